/*
 * The executor's entry points (exec.h): the process-wide catalog, result-column metadata of table columns,
 * and statement dispatch: each statement kind on tables goes to its handler in exec/ (DML, SELECT) or ddl/.
 *
 * Statement life: the statement's work runs in the session's engine transaction (begun on demand, exec_trx); its
 * OK is held back (exec_pend_ok) until an autocommit statement has committed, so a failed commit is reported as
 * the statement's error rather than after an OK.  On error the statement's changes are undone (statement undo
 * log) or the whole implicit transaction rolled back.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "access/binrow.h"
#include "sql/value/collation.h"
#include "commit/commit.h"
#include "sql/exec/constraints.h"
#include "sql/exec/gencol.h"
#include "access/fk.h"
#include "sql/exec/exec_int.h"
#include "access/view.h"
#include "access/routine.h"
#include "access/stats.h"
#include "util/util.h"
#include "sql/exec/query_int.h"
#include "sql/bind/view.h"
#include "sql/exec/file.h"

catalog_t *exec_cat;
engine_t *exec_engine;

int sql_exec_keys_upgrade(void);

int sql_exec_global_init(engine_t *e, const char *datadir)
{
    int rc = catalog_open(e, datadir, &exec_cat);
    if (rc == 0) {
        exec_engine = e;
        table_set_engine(e);
        fk_row_derive_set(gencol_derive); /* a cascaded child row's generated columns */
        /* temporary tables of connections that were open at a crash or shutdown (kept by a read-only start) */
        if (catalog_db_exists(exec_cat, EXEC_TEMP_DB) && !engine_read_only(e)) {
            diag_t d;
            diag_init(&d, 4);
            catalog_db_drop(exec_cat, EXEC_TEMP_DB, true, &d, NULL);
            diag_free(&d);
        }
        /* indexes written by an older strata (rowcodec.h RC_KEY_VERSION) */
        rc = engine_read_only(e) ? 0 : sql_exec_keys_upgrade();
        if (rc) {
            catalog_close(exec_cat);
            exec_cat = NULL;
            exec_engine = NULL;
            table_set_engine(NULL);
            return rc;
        }
    }
    return rc;
}

void sql_exec_global_shutdown(void)
{
    stats_auto_stop();
    stats_shutdown();
    catalog_close(exec_cat);
    exec_cat = NULL;
    exec_engine = NULL;
    table_set_engine(NULL);
}

catalog_t *sql_exec_catalog(void) { return exec_cat; }

bool sql_exec_db_exists(const char *db)
{
    if (catalog_db_is_virtual(db))
        return true;
    return exec_cat && catalog_db_exists(exec_cat, db);
}

/* ---------------------------------------------------------------- helpers */

const char *exec_db_name(sql_exec_ctx_t *x, const char *db)
{
    if (db)
        return db;
    if (x->db)
        return x->db;
    diag_error(x->diag, ER_NO_DB_ERROR);
    return NULL;
}

void exec_pend_ok(sql_exec_ctx_t *x, uint64_t affected, const char *info)
{
    x->exec_pend_ok = true;
    x->pend_affected = affected;
    x->pend_info = info;
}

static uint32_t int_width_default(sqlt_t t, bool uns)
{
    switch (t) {
    case SQLT_TINYINT: return uns ? 3 : 4;
    case SQLT_SMALLINT: return uns ? 5 : 6;
    case SQLT_MEDIUMINT: return uns ? 8 : 9;
    case SQLT_INT: return uns ? 10 : 11;
    default: return 20;
    }
}

static bool col_in_index(const cat_table_t *t, uint32_t col, int kind, bool first_only)
{
    for (uint32_t i = 0; i < t->nidx; i++) {
        if (kind >= 0 && (int)t->idx[i].kind != kind)
            continue;
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == col && (!first_only || k == 0))
                return true;
    }
    return false;
}

void column_meta(res_col_t *c, const cat_table_t *t, uint32_t col, const char *db, const char *table_alias,
               const char *name)
{
    const cat_column_t *cc = &t->cols[col];
    sqlt_t ty = (sqlt_t)cc->rc.type;
    memset(c, 0, sizeof *c);
    c->schema = db;
    c->table = table_alias;
    c->org_table = t->name;
    c->name = name ? name : cc->name;
    c->org_name = cc->name;
    c->json = cc->is_json;
    uint16_t f = 0;
    if (!cc->rc.nullable)
        f |= COLF_NOT_NULL;
    if (col_in_index(t, col, CAT_IDX_PRIMARY, false))
        f |= COLF_PRI_KEY;
    if (col_in_index(t, col, CAT_IDX_UNIQUE, false))
        f |= COLF_UNIQUE_KEY;
    if (col_in_index(t, col, CAT_IDX_KEY, true))
        f |= COLF_MULTIPLE_KEY;
    if (cc->rc.is_unsigned)
        f |= COLF_UNSIGNED;
    if (cc->zerofill)
        f |= COLF_ZEROFILL;
    if (cc->auto_increment)
        f |= COLF_AUTO_INCREMENT;
    if (cc->def == CAT_DEF_NONE && !cc->rc.nullable && !cc->auto_increment)
        f |= COLF_NO_DEFAULT;
    uint32_t mb = value_coll_mbmaxlen(cc->rc.coll);
    c->charset = CHARSET_BINARY;
    if (sqlt_is_int(ty) || ty == SQLT_YEAR || ty == SQLT_DECIMAL || ty == SQLT_FLOAT || ty == SQLT_DOUBLE) {
        f |= COLF_NUM;
    }
    switch (ty) {
    case SQLT_TINYINT: c->type = MYSQL_TYPE_TINY; break;
    case SQLT_SMALLINT: c->type = MYSQL_TYPE_SHORT; break;
    case SQLT_MEDIUMINT: c->type = MYSQL_TYPE_INT24; break;
    case SQLT_INT: c->type = MYSQL_TYPE_LONG; break;
    case SQLT_BIGINT: c->type = MYSQL_TYPE_LONGLONG; break;
    case SQLT_DECIMAL:
        c->type = MYSQL_TYPE_NEWDECIMAL;
        c->length = cc->rc.len + (cc->rc.scale ? 1 : 0) + (cc->rc.is_unsigned ? 0 : 1);
        c->decimals = cc->rc.scale;
        break;
    case SQLT_FLOAT: c->type = MYSQL_TYPE_FLOAT; c->length = 12; c->decimals = 31; break;
    case SQLT_DOUBLE: c->type = MYSQL_TYPE_DOUBLE; c->length = 22; c->decimals = 31; break;
    case SQLT_BIT: c->type = MYSQL_TYPE_BIT; c->length = cc->rc.len; f |= COLF_UNSIGNED; break;
    case SQLT_DATE: c->type = MYSQL_TYPE_DATE; c->length = 10; f |= COLF_BINARY; break;
    case SQLT_DATETIME:
        c->type = MYSQL_TYPE_DATETIME;
        c->length = 19 + (cc->rc.scale ? cc->rc.scale + 1u : 0);
        c->decimals = cc->rc.scale;
        f |= COLF_BINARY;
        break;
    case SQLT_TIMESTAMP:
        c->type = MYSQL_TYPE_TIMESTAMP;
        c->length = 19 + (cc->rc.scale ? cc->rc.scale + 1u : 0);
        c->decimals = cc->rc.scale;
        f |= COLF_BINARY | COLF_TIMESTAMP;
        break;
    case SQLT_TIME:
        c->type = MYSQL_TYPE_TIME;
        c->length = 10 + (cc->rc.scale ? cc->rc.scale + 1u : 0);
        c->decimals = cc->rc.scale;
        f |= COLF_BINARY;
        break;
    case SQLT_YEAR: c->type = MYSQL_TYPE_YEAR; c->length = 4; f |= COLF_UNSIGNED | COLF_ZEROFILL; break;
    case SQLT_CHAR: case SQLT_BINARY:
        c->type = MYSQL_TYPE_STRING;
        c->charset = cc->rc.coll;
        c->length = cc->rc.len * (cc->rc.coll == COLL_BINARY ? 1 : mb);
        break;
    case SQLT_VARCHAR: case SQLT_VARBINARY:
        c->type = MYSQL_TYPE_VAR_STRING;
        c->charset = cc->rc.coll;
        c->length = cc->rc.len * (cc->rc.coll == COLL_BINARY ? 1 : mb);
        break;
    case SQLT_ENUM: case SQLT_SET: {
        c->type = MYSQL_TYPE_STRING;
        c->charset = cc->rc.coll;
        uint32_t mx = 0;
        for (uint32_t i = 0; i < cc->nelems; i++) {
            uint32_t l = (uint32_t)strlen(cc->elems[i]);
            mx = ty == SQLT_ENUM ? MAX(mx, l) : mx + l + (i ? 1 : 0);
        }
        c->length = mx * mb;
        f |= ty == SQLT_ENUM ? COLF_ENUM : COLF_SET;
        break;
    }
    default: { /* TEXT / BLOB */
        c->type = MYSQL_TYPE_BLOB;
        c->charset = cc->rc.coll;
        uint64_t bytes = ty == SQLT_TINYTEXT || ty == SQLT_TINYBLOB ? 255
                       : ty == SQLT_TEXT || ty == SQLT_BLOB ? 65535
                       : ty == SQLT_MEDIUMTEXT || ty == SQLT_MEDIUMBLOB ? 16777215 : 4294967295ull;
        uint64_t l = bytes * (cc->rc.coll == COLL_BINARY ? 1 : mb);
        c->length = (uint32_t)MIN(l, 4294967295ull);
        f |= COLF_BLOB;
        break;
    }
    }
    if (sqlt_is_int(ty))
        c->length = cc->display_width ? cc->display_width : int_width_default(ty, cc->rc.is_unsigned);
    if ((sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET) &&
        (cc->rc.coll == COLL_BINARY || !value_coll_is_ci(cc->rc.coll)))
        f |= COLF_BINARY; /* binary strings and _bin collations */
    if (ty == SQLT_TIMESTAMP) {
        /* MariaDB: UNSIGNED BINARY, TIMESTAMP only for auto-set ones */
        f = (uint16_t)((f & ~COLF_TIMESTAMP) | COLF_UNSIGNED | COLF_BINARY);
        if (cc->def == CAT_DEF_NOW || cc->on_update_now)
            f |= COLF_TIMESTAMP;
    }
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == col)
                f |= 16384; /* PART_KEY_FLAG */
    c->flags = f;
}

void column_meta_results(sql_exec_ctx_t *x, res_col_t *c, const cat_table_t *t, uint32_t col, const char *db,
                       const char *table_alias, const char *name)
{
    column_meta(c, t, col, db, table_alias, name);
    const cat_column_t *cc = &t->cols[col];
    sqlt_t ty = (sqlt_t)cc->rc.type;
    bool text = (sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET) && cc->rc.coll != COLL_BINARY;
    if (text && x->result_coll == COLL_BINARY)
        c->charset = CHARSET_BINARY; /* SET NAMES binary: strings go out as they are, declared binary */
    if (!text || !x->result_coll || x->result_coll == COLL_BINARY)
        return;
    uint32_t from = value_coll_mbmaxlen(cc->rc.coll), to = value_coll_mbmaxlen(x->result_coll);
    uint64_t chars = from ? c->length / from : c->length;
    uint64_t l = chars * to;
    c->length = (uint32_t)MIN(l, 4294967295ull);
    c->charset = x->result_coll;
}

const cat_table_t *exec_single_def(query_t *q, sql_exec_ctx_t *x, cat_table_t *t, const char *db)
{
    memset(q, 0, sizeof *q);
    q->x = x;
    q->src = arena_calloc(x->arena, sizeof(query_source_t));
    q->src[0].db = db;
    q->src[0].name = t->name;
    q->src[0].alias = t->name;
    q->src[0].t = t;
    q->src[0].is_virtual = true; /* not released by query_release: the caller owns the reference */
    q->nsrc = 1;
    q->width = t->ncols;
    return t;
}

/* Opens a table for writing: 1146 when missing, 1044 for the virtual schemas. */
cat_table_t *exec_open_write(sql_exec_ctx_t *x, const sql_name_t *n, const char **dbout)
{
    const char *db = exec_db_name(x, n->db);
    if (!db)
        return NULL;
    if (sql_exec_in_trans(x->ss) ? x->ss->read_only : x->tx_read_only) {
        const char *rdb = db, *rname = n->name;
        if (!exec_temp_map(x, &rdb, &rname)) { /* TEMPORARY tables stay writable, as in MySQL */
            diag_error(x->diag, ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION);
            return NULL;
        }
    }
    if (catalog_db_is_virtual(db)) {
        diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
        return NULL;
    }
    const char *rdb = db, *rname = n->name;
    exec_temp_map(x, &rdb, &rname);
    *dbout = db;
    if (exec_mdl_lock(x, rdb, rname, true) != 0)
        return NULL;
    cat_table_t *t = catalog_table_get(exec_cat, rdb, rname);
    cat_view_t vw;
    if (!t && rdb == db && catalog_view_get(exec_cat, x->arena, db, n->name, &vw) > 0)
        diag_error(x->diag, ER_NOT_SUPPORTED_YET, "INSERT, UPDATE, DELETE or ALTER through a view");
    else if (!t)
        diag_error(x->diag, ER_NO_SUCH_TABLE, db, n->name);
    else if (exec_table_used(x, true) != 0) {
        catalog_table_release(t);
        return NULL;
    }
    return t;
}

bool exec_same_stored(const value_t *a, const value_t *b)
{
    if (a->type == VAL_NULL || b->type == VAL_NULL)
        return a->type == b->type;
    if ((a->type == VAL_STRING || a->type == VAL_DECIMAL) && a->type == b->type)
        return a->s.len == b->s.len && memcmp(a->s.ptr, b->s.ptr, a->s.len) == 0;
    return a->type == b->type && value_compare(a, b, NULL) == 0;
}

/* ---------------------------------------------------------------- dispatch */

bool sql_expr_has_subquery(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED || (e->kind == SQL_E_IN && e->sub))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (sql_expr_has_subquery(e->args[i]))
            return true;
    return e->kind == SQL_E_CASE && sql_expr_has_subquery(e->else_expr);
}

bool sql_exec_select_handles(const sql_select_t *sel)
{
    if (!exec_cat)
        return false;
    if (sel->from || sel->union_next || sel->having || sel->into)
        return true;
    if (sql_expr_has_subquery(sel->where) || sql_expr_has_subquery(sel->having))
        return true;
    for (uint32_t i = 0; i < sel->nitems; i++)
        if (sql_expr_has_subquery(sel->items[i].expr))
            return true;
    return false;
}

/* ---- the handlers statements.def names that are written here ---- */

int exec_select_handler(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    return st->select->into ? exec_select_into(x, st->select) : exec_select_stmt(x, st->select);
}
int exec_show_handler(sql_exec_ctx_t *x, const sql_stmt_t *st) { return exec_show_stmt(x, &st->show); }
int exec_explain_handler(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const char *f = st->explain.format;
    bool json = f && strcasecmp(f, "JSON") == 0;
    if (f && !json && strcasecmp(f, "TRADITIONAL") != 0)
        return diag_error(x->diag, ER_UNKNOWN_EXPLAIN_FORMAT, f);
    if (json && st->explain.analyze)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "ANALYZE FORMAT=JSON");
    const sql_stmt_t *es = st->explain.stmt, *vst;
    view_check_t *chk = NULL;
    if (es) { /* EXPLAIN UPDATE / DELETE of a view explains the write on its base table (bind/view.c) */
        int vr = view_dml_rewrite(x, es, &vst, &chk);
        if (vr < 0)
            return vr;
        if (vr == 0)
            es = vst;
    }
    view_check_t *keep = x->view_check;
    x->view_check = chk;
    int rc = exec_explain(x, es, st->explain.analyze, st->explain.extended, st->explain.partitions, json);
    x->view_check = keep;
    return rc;
}

int exec_truncate(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    int rc = truncate_table(x, &st->tables.tables[0]);
    if (rc == 0)
        exec_pend_ok(x, 0, NULL);
    return rc;
}

int exec_rename_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    int rc = 0;
    bool held = st->rename_table.n > 1; /* one commit per pair: a replica's position rides with the last */
    if (held)
        catalog_commit_hook_hold(true);
    for (uint32_t i = 0; i < st->rename_table.n && rc == 0; i++) {
        if (held && i == st->rename_table.n - 1)
            catalog_commit_hook_hold(held = false);
        const char *db = exec_db_name(x, st->rename_table.from[i].db), *ndb = exec_db_name(x, st->rename_table.to[i].db);
        cat_view_t vw;
        if (db && ndb) {
            int vr = exec_view_rename(x, db, st->rename_table.from[i].name, ndb, st->rename_table.to[i].name);
            if (vr <= 0) {
                rc = vr;
                continue;
            }
            if (catalog_view_get(exec_cat, x->arena, ndb, st->rename_table.to[i].name, &vw) > 0) {
                rc = diag_error(x->diag, ER_TABLE_EXISTS_ERROR, st->rename_table.to[i].name);
                continue;
            }
        }
        rc = !db || !ndb ? -ER_NO_DB_ERROR
                         : (rc = trigger_rename_check(x, db, st->rename_table.from[i].name, ndb)) != 0 ? rc
                         : catalog_table_rename(exec_cat, db, st->rename_table.from[i].name, ndb,
                                                st->rename_table.to[i].name, x->diag);
        if (rc == 0 && strcmp(db, ndb) == 0) /* its triggers follow it */
            trigger_rename_table(x, db, st->rename_table.from[i].name, st->rename_table.to[i].name);
    }
    if (held)
        catalog_commit_hook_hold(false);
    if (rc != 0)
        return rc;
    exec_pend_ok(x, 0, NULL);
    return 0;
}

int exec_create_index(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    if (st->index.algorithm == SQL_ALGORITHM_COPY) {
        /* the table copy it asks for: ALTER TABLE t ADD INDEX ..., ALGORITHM=COPY */
        sql_alter_action_t add = {.kind = SQL_ALTER_ADD_INDEX, .index = st->index.index,
                                  .if_not_exists = st->index.index.if_not_exists};
        sql_alter_table_t at = {.table = st->index.table, .algorithm = SQL_ALGORITHM_COPY,
                                .lock = st->index.lock, .actions = &add, .nactions = 1};
        return alter_rebuild(x, &at);
    }
    int rc = create_index(x, &st->index.table, &st->index.index, st->index.index.if_not_exists);
    if (rc == 0)
        exec_pend_ok(x, 0, arena_printf(x->arena, "Records: 0  Duplicates: 0  Warnings: %u", x->diag->warn_count));
    return rc;
}

int exec_drop_index(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    int rc = drop_index(x, &st->index.table, st->index.index.name, st->index.if_exists);
    if (rc == 0)
        exec_pend_ok(x, 0, arena_printf(x->arena, "Records: 0  Duplicates: 0  Warnings: %u", x->diag->warn_count));
    return rc;
}

int exec_create_database(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_database_stmt_t *d = &st->database;
    int rc;
    if (d->or_replace) {
        uint32_t n;
        if (catalog_db_exists(exec_cat, d->name) && (rc = catalog_db_drop(exec_cat, d->name, false, x->diag, &n)) < 0)
            return rc;
    }
    rc = catalog_db_create(exec_cat, d->name, d->coll >= 0 ? (uint16_t)d->coll : COLL_DEFAULT, d->if_not_exists, x->diag);
    if (rc < 0)
        return rc;
    exec_pend_ok(x, rc == 1 ? 0 : 1, NULL);
    return 0;
}

int exec_drop_database(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_database_stmt_t *d = &st->database;
    if (catalog_db_is_virtual(d->name))
        return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", d->name);
    uint32_t n = 0;
    int rc = exec_fk_db_drop_guard(x, d->name);
    if (rc == 0)
        rc = catalog_db_drop(exec_cat, d->name, d->if_exists, x->diag, &n);
    if (rc < 0)
        return rc;
    cat_view_t *views; /* a database's views go with it */
    uint32_t nv = 0;
    catalog_view_list(exec_cat, x->arena, d->name, &views, &nv);
    for (uint32_t i = 0; i < nv; i++)
        catalog_view_delete(exec_cat, views[i].db, views[i].name);
    cat_routine_t *routines; /* and its routines */
    uint32_t nr = 0;
    catalog_routine_list(exec_cat, x->arena, d->name, &routines, &nr);
    for (uint32_t i = 0; i < nr; i++)
        catalog_routine_delete(exec_cat, routines[i].type, routines[i].db, routines[i].name);
    trigger_drop_table(x, d->name, NULL); /* and its triggers */
    event_drop_database(x, d->name);      /* and its events */
    if (x->db && strcmp(x->db, d->name) == 0)
        x->db_dropped = true;
    x->ss->db_dropped = true; /* MariaDB flags every DROP DATABASE, of the current database or not */
    exec_pend_ok(x, n, NULL);
    return 0;
}

int exec_alter_database(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    (void)st;
    exec_pend_ok(x, 1, NULL);
    return 0;
}

/* The executor's statements, from statements.def's handler column (SESSION: not the executor's). */
typedef int exec_handler_t(sql_exec_ctx_t *x, const sql_stmt_t *st);
#define SESSION NULL
static exec_handler_t *const exec_handlers[SQL_STMT__COUNT] = {
#define STMT(id, privileges, handler, com, flags) [SQL_STMT_##id] = handler,
#include "sql/parser/statements.def"
#undef STMT
};
#undef SESSION

bool sql_exec_handles(const sql_stmt_t *st)
{
    if (!exec_cat || (unsigned)st->kind >= SQL_STMT__COUNT || !exec_handlers[st->kind])
        return false;
    switch (st->kind) { /* the forms the executor leaves to the session */
    case SQL_STMT_SELECT:
        return sql_exec_select_handles(st->select);
    case SQL_STMT_SHOW:
        return exec_show_handles(&st->show);
    case SQL_STMT_EXPLAIN:
        return st->explain.stmt && (st->explain.stmt->kind == SQL_STMT_SELECT || st->explain.stmt->kind == SQL_STMT_UPDATE ||
                                    st->explain.stmt->kind == SQL_STMT_DELETE);
    default:
        return true;
    }
}

/* A write through a view: the statement rewritten onto the base table (bind/view.c) runs as that table's
 * write, with the view's CHECK OPTION among the row checks.  Its plan is not cached (the rewritten tree is the
 * statement arena's, new at every execution). */
static int dispatch_through_view(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_stmt_t *vst, view_check_t *chk)
{
    view_check_t *keep = x->view_check;
    sql_plan_t *plan = x->plan;
    x->view_check = chk;
    x->plan = NULL;
    int rc = exec_handlers[vst->kind](x, vst);
    x->view_check = keep;
    x->plan = plan;
    if (rc && x->diag->error_code == ER_NO_DEFAULT_FOR_FIELD) {
        const sql_name_t *n = st->kind == SQL_STMT_LOAD_DATA ? &st->load->table : &st->insert->table;
        const char *db = exec_db_name(x, n->db);
        diag_error_replace(x->diag);
        rc = diag_error(x->diag, ER_NO_DEFAULT_FOR_VIEW_FIELD, db ? db : "", n->name);
    }
    return rc;
}

static int dispatch(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    int rc;
    x->no_trx = (sql_stmt_flags(st->kind) & STMT_F_IMPLICIT_COMMIT) != 0;
    if ((rc = sql_exec_alter_clauses(x, st)) != 0) /* before the implicit commit, as MariaDB refuses them */
        return rc;
    if (x->no_trx && ((rc = ddl_begin(x)) != 0 || (rc = ddl_mdl(x, st)) != 0))
        return rc;
    if ((unsigned)st->kind >= SQL_STMT__COUNT || !exec_handlers[st->kind])
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, sql_stmt_kind_name(st->kind));
    const sql_stmt_t *vst;
    view_check_t *chk;
    int vr = view_dml_rewrite(x, st, &vst, &chk);
    if (vr < 0)
        return vr;
    if (vr == 1)
        return exec_handlers[st->kind](x, st);
    return dispatch_through_view(x, st, vst, chk);
}

/* Is st a DDL statement the binary log records as a QUERY event?  Decided before it runs (a DROP TABLE of a
 * TEMPORARY table is not logged: temporary tables stay on this server in ROW format, as in MariaDB). */
/*
 * DROP TABLE naming TEMPORARY tables (which are not logged) beside others: the QUERY text names only the
 * others, as MariaDB writes it ("DROP TABLE `t1` generated by server"), each with its database since the
 * statement may name several.  NULL when every table is TEMPORARY.
 */
static const char *drop_text_without_temporary(sql_exec_ctx_t *x, const sql_table_list_t *l)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, l->if_exists ? "DROP TABLE IF EXISTS " : "DROP TABLE ");
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const char *db = exec_db_name(x, l->tables[i].db), *name = l->tables[i].name;
        if (!db || exec_temp_map(x, &db, &name))
            continue;
        if (n++)
            buf_append_byte(&b, ',');
        exec_ident_quote(&b, db, '`');
        buf_append_byte(&b, '.');
        exec_ident_quote(&b, name, '`');
    }
    buf_append_str(&b, " /* generated by server */");
    const char *text = n ? arena_strndup(x->arena, (const char *)b.data, b.len) : NULL;
    buf_free(&b);
    return text;
}

/* Is st logged as a QUERY event once it succeeds, and with what text (*text, else the statement's own)? */
static bool ddl_logged(sql_exec_ctx_t *x, const sql_stmt_t *st, const char **text)
{
    *text = NULL;
    if (!(sql_stmt_flags(st->kind) & STMT_F_LOGGED))
        return false;
    switch (st->kind) {
    case SQL_STMT_CREATE_TABLE:
        return !st->create_table->temporary;
    case SQL_STMT_DROP_TABLE: case SQL_STMT_TRUNCATE: case SQL_STMT_DROP_VIEW: {
        const sql_table_list_t *l = &st->tables;
        if (l->temporary)
            return false;
        for (uint32_t i = 0; i < l->n; i++) {
            const char *db = exec_db_name(x, l->tables[i].db), *name = l->tables[i].name;
            if (exec_temp_map(x, &db, &name)) {
                *text = st->kind == SQL_STMT_DROP_TABLE ? drop_text_without_temporary(x, l) : NULL;
                return *text != NULL;
            }
        }
        return true;
    }
    case SQL_STMT_ANALYZE_TABLE: case SQL_STMT_OPTIMIZE_TABLE: case SQL_STMT_REPAIR_TABLE:
        return !st->tables.local; /* as MariaDB: whatever each table's outcome; CHECK and CHECKSUM never */
    case SQL_STMT_CREATE_VIEW:
        *text = view_log_text(x, st->view); /* with its DEFINER: a replica's SQL thread has no user of its own */
        return true;
    case SQL_STMT_CREATE_PROCEDURE: case SQL_STMT_CREATE_FUNCTION:
        *text = routine_log_text(x, st); /* as SHOW CREATE prints it, DEFINER spelled out (MariaDB) */
        return *text != NULL;
    case SQL_STMT_CREATE_TRIGGER:
        *text = trigger_log_text(x, st);
        return *text != NULL;
    case SQL_STMT_CREATE_EVENT:
        *text = event_log_text(x, st); /* its definition with the times resolved and the DEFINER spelled out */
        return *text != NULL;
    case SQL_STMT_ALTER_EVENT:
        *text = event_alter_log_text(x, st); /* with its DEFINER (NULL: as written, it has one) */
        return true;
    default:
        return true;
    }
}

/*
 * CREATE TABLE ... SELECT is logged as MariaDB logs it in row format: the new table's definition as a CREATE
 * TABLE without the SELECT (SHOW CREATE TABLE's text), then the rows it was filled with as row events.  The
 * statement's own text would make a replica run the SELECT again, and logged after the rows (as other DDL is,
 * once done) it would reach the replica after rows for a table it does not have yet.  So the definition goes
 * to the binlog here, before the statement's rows transaction commits.
 */
static int log_ctas_create(sql_exec_ctx_t *x, const sql_create_table_t *ct)
{
    const char *db = exec_db_name(x, ct->table.db);
    cat_table_t *t = db ? catalog_table_get(exec_cat, db, ct->table.name) : NULL;
    if (!t)
        return 0; /* nothing was created */
    const char *def = exec_show_create_table_text(x->arena, t, 0) + strlen("CREATE TABLE ");
    catalog_table_release(t);
    const char *text = arena_printf(x->arena, "CREATE %sTABLE %s%s", ct->or_replace ? "OR REPLACE " : "",
                                    ct->if_not_exists ? "IF NOT EXISTS " : "", def);
    int rc = sql_commit_ddl(db, text, strlen(text), x->thread_id, x->sql_mode); /* in the table's database */
    if (rc)
        return diag_error(x->diag, ER_BINLOG_LOGGING_IMPOSSIBLE, "the statement is done but could not be written "
                                                                 "to the binary log");
    return 0;
}

/* SET @x = (SELECT ...): the value is the one item of `SELECT e`, read as a SELECT reads (exec_select_rows) */
static int eval_dispatch(sql_exec_ctx_t *x, const sql_expr_t *e, value_t *out)
{
    sql_select_item_t item = {.expr = (sql_expr_t *)e};
    sql_select_t sel = {.items = &item, .nitems = 1};
    value_t **rows;
    uint64_t n;
    uint32_t nc;
    int rc = exec_select_rows(x, &sel, &rows, &n, &nc);
    if (rc)
        return rc;
    *out = n && nc ? rows[0][0] : value_null();
    return 0;
}

static int exec_run(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *eval, value_t *eval_out);

/* What IGNORE makes of a foreign-key failure in this statement (access/fk.h). */
static uint8_t stmt_fk_ignore(const sql_stmt_t *st)
{
    if (st->kind == SQL_STMT_INSERT && st->insert && st->insert->ignore)
        return FK_IGNORE_WARN;
    if (st->kind == SQL_STMT_DELETE && st->del && st->del->ignore)
        return st->del->multi ? FK_IGNORE_SILENT : FK_IGNORE_WARN;
    if (st->kind == SQL_STMT_UPDATE && st->update && st->update->ignore)
        return FK_IGNORE_SILENT;
    return FK_IGNORE_NONE;
}

int sql_exec_stmt(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    return exec_run(x, st, NULL, NULL);
}

int sql_exec_eval(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *e, value_t *out)
{
    return exec_run(x, st, e, out);
}

/* One statement, or (eval != NULL) one expression of statement st, inside the statement's transaction. */
static int exec_run(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *eval, value_t *eval_out)
{
    if (!exec_cat)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "tables (no storage engine)");
    sql_exec_session_t *ss = x->ss;
    x->exec_pend_ok = false;
    x->pend_insert_id = 0;
    if (ss && ss->trg_depth) {
        /* a statement of a trigger's body: it runs inside the statement that fired the trigger, in its
         * transaction, with its undo, foreign-key state and binlog row images (trigfire.c); no DDL */
        x->row_count = -1;
        if (!eval && (sql_stmt_flags(st->kind) & STMT_F_IMPLICIT_COMMIT))
            return diag_error(x->diag, ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG);
        uint8_t fk_ignore = ss->fk.ignore; /* its own IGNORE, not the firing statement's */
        ss->fk.ignore = stmt_fk_ignore(st);
        int nrc = eval ? eval_dispatch(x, eval, eval_out) : dispatch(x, st);
        ss->fk.ignore = fk_ignore;
        return nrc;
    }
    sql_exec_stmt_begin(ss);
    x->row_count = -1;
    ss->stmt_trx = ss->trx ? engine_trx_id(ss->trx) : 0;
    ss->stmt_sp = ss->trx ? engine_trx_savepoint(ss->trx) : 0;
    bool logging = x->log_bin && sql_commit_binlog() != NULL;
    ss->stmt.bl = logging ? ss->bl : NULL;
    ss->fk = (table_fk_t){.cat = exec_cat, .checks = !x->fk_checks_off, .stmt = ss->fk.stmt + 1,
                          .ignore = stmt_fk_ignore(st)};
    ss->stmt.fk = &ss->fk;
    binrow_stmt_start(ss->bl, st->src, st->src_len);
    binrow_stmt_no_fk_checks(ss->bl, x->fk_checks_off);
    sql_commit_ddl_fk_checks(x->fk_checks_off);
    const char *ddl_text = NULL;
    bool log_ddl = !eval && logging && ddl_logged(x, st, &ddl_text);
    if (log_ddl && !(st->kind == SQL_STMT_CREATE_TABLE && st->create_table->as_select)) {
        /* its catalog commits carry the note that its QUERY event is owed (commit/commit.h) */
        const char *text = ddl_text ? ddl_text : st->src;
        size_t len = ddl_text ? strlen(ddl_text) : st->src ? st->src_len : 0;
        if (len)
            sql_commit_ddl_begin(x->db, text, len, x->thread_id, x->sql_mode);
    }
    if (ss->trx)
        engine_trx_statement_start(ss->trx); /* READ COMMITTED: a fresh view per statement */
    int rc = eval ? eval_dispatch(x, eval, eval_out) : dispatch(x, st);
    bool ctas = log_ddl && st->kind == SQL_STMT_CREATE_TABLE && st->create_table->as_select;
    if (rc == 0 && ctas)
        rc = log_ctas_create(x, st->create_table);
    if (rc == 0)
        binrow_stmt_end(ss->bl);
    else
        binrow_stmt_undo(ss->bl);
    if (ss->trx) {
        if (rc == 0) {
            if (ss->state == SQLX_TRX_STMT) {
                if (ss->wrote) {
                    rc = exec_commit_open(x);
                } else {
                    engine_trx_rollback(ss->trx);
                    exec_trx_end(ss);
                }
            }
        } else if (x->diag->error_code == ER_LOCK_DEADLOCK || ss->state == SQLX_TRX_STMT) {
            engine_trx_rollback(ss->trx);
            exec_trx_end(ss);
            if (x->diag->error_code == ER_LOCK_DEADLOCK)
                ss->explicit_begin = false;
        } else {
            /* back to where the statement began; a trx begun inside it (its first write) goes back to empty */
            int urc = engine_trx_rollback_to(ss->trx, engine_trx_id(ss->trx) == ss->stmt_trx ? ss->stmt_sp : 0);
            if (urc) {
                log_error("executor: undoing a failed statement failed (%d); rolling back the transaction", urc);
                engine_trx_rollback(ss->trx);
                exec_trx_end(ss);
                ss->explicit_begin = false;
            }
        }
    }
    if (!ss->trx)
        mdl_release_all(&ss->mdl); /* no transaction open: the statement's metadata locks end with it */
    if (rc == 0 && log_ddl && !ctas && (ddl_text || (st->src && st->src_len))) {
        int brc = ddl_text ? sql_commit_ddl(x->db, ddl_text, strlen(ddl_text), x->thread_id, x->sql_mode)
                           : sql_commit_ddl(x->db, st->src, st->src_len, x->thread_id, x->sql_mode);
        if (brc) {
            char msg[160];
            snprintf(msg, sizeof msg, "the statement is done but could not be written to the binary log (%d)", brc);
            rc = diag_error(x->diag, ER_BINLOG_LOGGING_IMPOSSIBLE, msg);
        }
    }
    if (rc != 0 && log_ddl && x->ddl_done_text) /* what the failed statement did is logged all the same */
        (void)sql_commit_ddl(x->db, x->ddl_done_text, strlen(x->ddl_done_text), x->thread_id, x->sql_mode);
    x->ddl_done_text = NULL;
    if (log_ddl)
        sql_commit_ddl_abandon(); /* the statement failed: no event owed (nothing once sql_commit_ddl ran) */
    if (x->returning)
        returning_end(x, rc == 0 && x->exec_pend_ok); /* its result set instead of the OK */
    else if (rc == 0 && x->exec_pend_ok)
        x->sink->ok(x->sink, x->pend_affected, x->last_insert_id_set ? x->last_insert_id : x->pend_insert_id, x->pend_info,
                    x->more);
    return rc;
}

int sql_exec_describe(sql_exec_ctx_t *x, const sql_stmt_t *st, res_col_t **cols, int *ncols)
{
    *cols = NULL;
    *ncols = 0;
    if (!exec_cat)
        return 0;
    x->no_trx = true; /* describing opens the tables, but as MariaDB's PREPARE it begins no transaction */
    if (st->kind == SQL_STMT_INSERT || st->kind == SQL_STMT_REPLACE || st->kind == SQL_STMT_DELETE)
        return returning_describe(x, st, cols, ncols);
    if (st->kind == SQL_STMT_SELECT && sql_exec_select_handles(st->select)) {
        diag_t scratch;
        diag_init(&scratch, 4);
        diag_t *keep = x->diag;
        x->diag = &scratch;
        int rc = exec_select_describe(x, st->select, cols, ncols);
        x->diag = keep;
        int code = scratch.error_code;
        if (rc && scratch.error && (code == ER_NO_SUCH_TABLE || code == ER_BAD_FIELD_ERROR || code == ER_NON_UNIQ_ERROR ||
                                    code == ER_BAD_DB_ERROR || code == ER_UNKNOWN_TABLE || code == ER_NO_DB_ERROR)) {
            /* a statement naming what does not exist fails at PREPARE, as in MariaDB */
            int r = diag_push_msg(x->diag, DIAG_ERROR, code, scratch.error->msg);
            diag_free(&scratch);
            *cols = NULL;
            *ncols = 0;
            return r;
        }
        diag_free(&scratch);
        if (rc) {
            *cols = NULL;
            *ncols = 0;
        }
    }
    return 0;
}
