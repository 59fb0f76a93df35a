/*
 * CREATE / DROP TRIGGER and the texts MariaDB prints for a trigger.  A trigger is kept as text
 * (access/trigger.h): the CREATE statement from the word TRIGGER on and its body as written; the session's
 * interpreter (session/sp_exec.c) parses the body again when the trigger fires, with NEW.col / OLD.col bound
 * to the row's columns.  CREATE checks what MariaDB checks then: the table exists (1146) and is a base table
 * (1347 for a view, 1361 for a temporary table), the trigger's schema is the table's (1435), the name is free
 * unless OR REPLACE (1359, a note with IF NOT EXISTS), every NEW.col / OLD.col names a column (1054), a FOLLOWS /
 * PRECEDES trigger exists for the same table, event and timing (4031); the body parsed already with the
 * statement (1064, 1362, 1363 ...).
 *
 * ACTION_ORDER: a table's triggers of one event and timing fire in the order 1, 2, ...; a new trigger goes last,
 * or just after (FOLLOWS) / before (PRECEDES) the one named; the others are renumbered, as MariaDB does.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include "access/trigger.h"
#include "access/view.h"
#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "sql/parser/sp.h"
#include "sql/value/value.h"
#include "util/util.h"

bool trigger_table_exists(const char *db, const char *table)
{
    cat_table_t *t = catalog_table_get(exec_cat, db, table);
    if (t)
        catalog_table_release(t);
    return t != NULL;
}

/* SHOW CREATE TRIGGER's statement: CREATE DEFINER=`u`@`h` and the text as written from TRIGGER on. */
const char *trigger_create_text(arena_t *a, const cat_trigger_t *t, char q)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "CREATE DEFINER=");
    exec_ident_quote(&b, t->definer_user, q);
    if (t->definer_host && t->definer_host[0]) {
        buf_append_byte(&b, '@');
        exec_ident_quote(&b, t->definer_host, q);
    }
    buf_append_byte(&b, ' ');
    buf_append_str(&b, t->create_text);
    const char *s = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return s;
}

static bool same_slot(const cat_trigger_t *a, const char *event, const char *timing)
{
    return strcmp(a->event, event) == 0 && strcmp(a->timing, timing) == 0;
}

/* The record CREATE would write (also what the binlog's text is made from). */
static int trigger_record(sql_exec_ctx_t *x, const sql_stmt_t *st, const char *db, cat_trigger_t *out)
{
    const sql_trigger_stmt_t *r = st->trigger;
    memset(out, 0, sizeof *out);
    unsigned line = 1;
    for (const char *q = st->src; st->src && q < r->body_src; q++)
        line += *q == '\n';
    out->body_line = arena_printf(x->arena, "%u", line);
    out->db = db;
    out->name = r->name.name;
    out->table = r->table.name;
    out->event = r->event;
    out->timing = r->timing;
    out->order = "1";
    bool own = !r->has_definer || r->definer.current;
    out->definer_user = own ? (x->user ? x->user : "") : r->definer.user;
    out->definer_host = own ? (x->host ? x->host : "") : r->definer.host;
    /* the statement as written from TRIGGER on, without FOLLOWS / PRECEDES (SHOW CREATE TRIGGER's, MariaDB's) */
    const char *cut = r->order_src ? r->order_src : r->body_src;
    out->create_text = arena_printf(x->arena, "%.*s%.*s", (int)(cut - r->create_src), r->create_src, (int)r->body_len,
                                    r->body_src);
    out->body = arena_strndup(x->arena, r->body_src, r->body_len);
    out->sql_mode = x->sql_mode_text ? x->sql_mode_text : "";
    struct timeval tv;
    gettimeofday(&tv, NULL);
    time_t tt = tv.tv_sec;
    struct tm tm;
    localtime_r(&tt, &tm);
    char ct[32];
    strftime(ct, sizeof ct, "%Y-%m-%d %H:%M:%S", &tm);
    out->created = arena_printf(x->arena, "%s.%02d", ct, (int)(tv.tv_usec / 10000));
    uint16_t dbc = catalog_db_coll(exec_cat, db);
    uint16_t cc = x->conn_coll ? x->conn_coll : COLL_DEFAULT;
    out->client_cs = value_coll_charset(cc);
    out->conn_coll = value_coll_name(cc);
    out->db_coll = value_coll_name(dbc);
    return 0;
}

/* Writes the triggers of one table, event and timing with ACTION_ORDER 1..n in the order of v. */
static int renumber(sql_exec_ctx_t *x, cat_trigger_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const char *o = arena_printf(x->arena, "%u", i + 1);
        if (strcmp(v[i].order, o) == 0)
            continue;
        v[i].order = o;
        if (catalog_trigger_put(exec_cat, &v[i]) != 0)
            return diag_error(x->diag, ER_UNKNOWN_ERROR);
    }
    return 0;
}

/* What a trigger's body may not hold, refused at CREATE as MariaDB does: a statement that commits (1422), one
 * that returns a result set (1415). */
static int body_check(sql_exec_ctx_t *x, const sp_node_t *n)
{
    if (!n)
        return 0;
    if (n->kind == SP_SQL) {
        sql_stmt_kind_t k = n->stmt_kind;
        if (k == SQL_STMT_BEGIN || k == SQL_STMT_COMMIT || k == SQL_STMT_ROLLBACK || k == SQL_STMT_LOCK_TABLES ||
            k == SQL_STMT_UNLOCK_TABLES || (sql_stmt_flags(k) & STMT_F_IMPLICIT_COMMIT))
            return diag_error(x->diag, ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG);
        if ((k == SQL_STMT_SELECT || k == SQL_STMT_SHOW || k == SQL_STMT_EXPLAIN) && !n->ninto) {
            diag_push_msg(x->diag, DIAG_ERROR, ER_SP_NO_RETSET, "Not allowed to return a result set from a trigger");
            return -ER_SP_NO_RETSET;
        }
    }
    int rc = 0;
    for (uint32_t i = 0; i < n->body.n && !rc; i++)
        rc = body_check(x, n->body.items[i]);
    for (uint32_t b = 0; b < n->nbranches && !rc; b++)
        for (uint32_t i = 0; i < n->bodies[b].n && !rc; i++)
            rc = body_check(x, n->bodies[b].items[i]);
    for (uint32_t i = 0; i < n->else_body.n && !rc; i++)
        rc = body_check(x, n->else_body.items[i]);
    return rc;
}

int exec_create_trigger(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_trigger_stmt_t *r = st->trigger;
    /* an unqualified table is looked up in the trigger's schema (MariaDB) */
    const char *tdb = exec_db_name(x, r->table.db ? r->table.db : r->name.db);
    if (!tdb)
        return -ER_NO_DB_ERROR;
    const char *db = r->name.db ? r->name.db : tdb;
    if (strcmp(db, tdb) != 0)
        return diag_error(x->diag, ER_TRG_IN_WRONG_SCHEMA);
    if (catalog_db_is_virtual(db))
        return diag_error(x->diag, ER_NO_TRIGGERS_ON_SYSTEM_SCHEMA);
    {
        const char *mdb = tdb, *mname = r->table.name;
        if (exec_temp_map(x, &mdb, &mname))
            return diag_error(x->diag, ER_TRG_ON_VIEW_OR_TEMP_TABLE, r->table.name);
    }
    cat_table_t *t = catalog_table_get(exec_cat, tdb, r->table.name);
    if (!t) {
        cat_view_t vw;
        if (catalog_view_get(exec_cat, x->arena, tdb, r->table.name, &vw) > 0)
            return diag_error(x->diag, ER_WRONG_OBJECT, tdb, r->table.name, "BASE TABLE");
        return diag_error(x->diag, ER_NO_SUCH_TABLE, tdb, r->table.name);
    }
    const sp_body_t *b = r->body;
    int rc = body_check(x, b->root);
    for (uint32_t i = 0; i < b->ntrig_refs && !rc; i++) {
        bool found = false;
        for (uint32_t c = 0; c < t->ncols && !found; c++)
            found = strcasecmp(t->cols[c].name, b->trig_refs[i].column) == 0;
        if (!found)
            rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, b->trig_refs[i].column, b->trig_refs[i].is_new ? "NEW" : "OLD");
    }
    const char *tname = arena_strdup(x->arena, t->name);
    catalog_table_release(t);
    if (rc)
        return rc;
    cat_trigger_t old;
    int ex = catalog_trigger_get(exec_cat, x->arena, db, r->name.name, &old);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (ex && !trigger_table_exists(old.db, old.table)) { /* stale: its table is gone */
        catalog_trigger_delete(exec_cat, old.db, old.name);
        ex = 0;
    }
    const char *qual = arena_printf(x->arena, "%s.%s", db, r->name.name);
    if (ex && !r->or_replace) {
        if (r->if_not_exists) {
            diag_note(x->diag, ER_TRG_ALREADY_EXISTS, qual);
            exec_pend_ok(x, 0, NULL);
            return 0;
        }
        return diag_error(x->diag, ER_TRG_ALREADY_EXISTS, qual);
    }
    cat_trigger_t nt;
    if ((rc = trigger_record(x, st, db, &nt)) != 0)
        return rc;
    nt.table = tname;
    /* the triggers of the same table, event and timing, in their order (the replaced one left out) */
    cat_trigger_t *all;
    uint32_t n = 0;
    catalog_trigger_list(exec_cat, x->arena, db, tname, &all, &n);
    cat_trigger_t *v = arena_alloc(x->arena, sizeof *v * (n + 2));
    uint32_t nv = 0;
    for (uint32_t i = 0; i < n; i++)
        if (same_slot(&all[i], nt.event, nt.timing) && strcmp(all[i].name, nt.name) != 0)
            v[nv++] = all[i];
    uint32_t at = nv;
    if (r->order_kind) {
        uint32_t k = 0;
        while (k < nv && strcmp(v[k].name, r->order_other) != 0)
            k++;
        if (k == nv)
            return diag_error(x->diag, ER_REFERENCED_TRG_DOES_NOT_EXIST, r->order_other);
        at = strcmp(r->order_kind, "FOLLOWS") == 0 ? k + 1 : k;
    }
    if (ex) {
        if (catalog_trigger_delete(exec_cat, db, old.name) != 0)
            return diag_error(x->diag, ER_UNKNOWN_ERROR);
        if (!same_slot(&old, nt.event, nt.timing) || strcmp(old.table, nt.table) != 0) {
            /* the old trigger's neighbours close up */
            cat_trigger_t *ov = arena_alloc(x->arena, sizeof *ov * (n + 1));
            uint32_t no = 0;
            for (uint32_t i = 0; i < n; i++)
                if (strcmp(all[i].table, old.table) == 0 && same_slot(&all[i], old.event, old.timing) &&
                    strcmp(all[i].name, old.name) != 0)
                    ov[no++] = all[i];
            if ((rc = renumber(x, ov, no)) != 0)
                return rc;
        }
    }
    memmove(&v[at + 1], &v[at], sizeof *v * (nv - at));
    v[at] = nt;
    v[at].order = "";
    nv++;
    if ((rc = renumber(x, v, nv)) != 0)
        return rc;
    exec_pend_ok(x, 0, NULL);
    return 0;
}

const char *trigger_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_trigger_stmt_t *r = st->trigger;
    const char *db = exec_db_name(x, r->table.db ? r->table.db : r->name.db);
    cat_trigger_t nt;
    if (!db || trigger_record(x, st, r->name.db ? r->name.db : db, &nt))
        return NULL;
    /* the binlog keeps FOLLOWS / PRECEDES: a replica orders its triggers as this server does */
    nt.create_text = arena_strndup(x->arena, r->create_src, (size_t)(r->body_src + r->body_len - r->create_src));
    const char *t = trigger_create_text(x->arena, &nt, '`');
    if (r->or_replace) /* CREATE OR REPLACE is logged as written (MariaDB keeps it in the query) */
        t = arena_printf(x->arena, "CREATE OR REPLACE %s", t + 7);
    return t;
}

int exec_drop_trigger(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_trigger_stmt_t *r = st->trigger;
    const char *db = exec_db_name(x, r->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    cat_trigger_t old;
    int ex = catalog_trigger_get(exec_cat, x->arena, db, r->name.name, &old);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (!ex) {
        if (!r->if_exists)
            return diag_error(x->diag, ER_TRG_DOES_NOT_EXIST);
        diag_note(x->diag, ER_TRG_DOES_NOT_EXIST);
        exec_pend_ok(x, 0, NULL);
        return 0;
    }
    int rc = trigger_drop_one(x, &old);
    if (rc)
        return rc;
    exec_pend_ok(x, 0, NULL);
    return 0;
}

int trigger_drop_one(sql_exec_ctx_t *x, const cat_trigger_t *old)
{
    if (catalog_trigger_delete(exec_cat, old->db, old->name) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    cat_trigger_t *all;
    uint32_t n = 0, no = 0;
    catalog_trigger_list(exec_cat, x->arena, old->db, old->table, &all, &n);
    cat_trigger_t *ov = arena_alloc(x->arena, sizeof *ov * (n + 1));
    for (uint32_t i = 0; i < n; i++)
        if (same_slot(&all[i], old->event, old->timing))
            ov[no++] = all[i];
    return renumber(x, ov, no);
}

void trigger_drop_table(sql_exec_ctx_t *x, const char *db, const char *table)
{
    cat_trigger_t *all;
    uint32_t n = 0;
    if (!catalog_trigger_any(exec_cat))
        return;
    catalog_trigger_list(exec_cat, x->arena, db, table, &all, &n);
    for (uint32_t i = 0; i < n; i++)
        catalog_trigger_delete(exec_cat, all[i].db, all[i].name);
}

int trigger_rename_check(sql_exec_ctx_t *x, const char *db, const char *table, const char *ndb)
{
    cat_trigger_t *all;
    uint32_t n = 0;
    if (strcmp(db, ndb) == 0 || !catalog_trigger_any(exec_cat))
        return 0;
    catalog_trigger_list(exec_cat, x->arena, db, table, &all, &n);
    return n ? diag_error(x->diag, ER_TRG_IN_WRONG_SCHEMA) : 0;
}

void trigger_rename_table(sql_exec_ctx_t *x, const char *db, const char *from, const char *to)
{
    cat_trigger_t *all;
    uint32_t n = 0;
    if (!catalog_trigger_any(exec_cat))
        return;
    trigger_drop_table(x, db, to); /* (stale ones of the new name, see trigger_table_exists) */
    catalog_trigger_list(exec_cat, x->arena, db, from, &all, &n);
    for (uint32_t i = 0; i < n; i++) {
        all[i].table = to;
        catalog_trigger_put(exec_cat, &all[i]);
    }
}
