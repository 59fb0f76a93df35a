/*
 * SHOW statements over the catalog (DATABASES, TABLES, COLUMNS / DESCRIBE, INDEX, CREATE TABLE, CREATE
 * DATABASE, TABLE STATUS) and the information_schema tables SCHEMATA, TABLES, COLUMNS, STATISTICS and FILES.
 *
 * Both are built the same way: a virtual table (a catalog-shaped definition plus rows of values, vt_t), which
 * SHOW sends after its LIKE / WHERE filter and information_schema hands to the SELECT machinery as a source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "monitor/digest.h"
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "access/view.h"
#include "sql/bind/view.h"
#include "sql/ddl/constraint.h"
#include "access/event.h"
#include "access/routine.h"
#include "sql/ddl/event.h"
#include "access/trigger.h"
#include "sql/exec/query_int.h"
#include "util/util.h"

/* Rows the account may see (the session's filter; everything without one). */
#define XVISIBLE(x, db, table) (!(x)->visible || (x)->visible((x)->visible_user, (db), (table)))
#define XTRIGGER_VISIBLE(x, db, table) (!(x)->trigger_visible || (x)->trigger_visible((x)->visible_user, (db), (table)))

/* The account's SQL_COLPRIV_* on a column (every one without a callback: unit tests, the server itself). */
static unsigned col_privs(sql_exec_ctx_t *x, const char *db, const char *table, const char *col)
{
    return x->column_privs ? x->column_privs(x->visible_user, db, table, col) : 15u;
}

/* COLUMNS.PRIVILEGES / SHOW FULL COLUMNS: the privileges held on the column, MariaDB's words and order. */
static const char *col_privs_text(unsigned p, arena_t *a)
{
    char buf[48] = "";
    static const char *const names[] = {"select", "insert", "update", "references"};
    for (int i = 0; i < 4; i++)
        if (p & (1u << i))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "," : "", names[i]);
    return arena_strdup(a, buf);
}

/* ---------------------------------------------------------------- virtual tables */

typedef struct vt {
    sql_exec_ctx_t *x;
    cat_table_t *t;
    uint32_t cap;
    value_t **rows;
    uint64_t n, rcap;
    uint64_t owned; /* rows [0, owned) hold their own strings (vt_own) */
} vt_t;

static void vt_init(vt_t *v, sql_exec_ctx_t *x, const char *name)
{
    memset(v, 0, sizeof *v);
    v->x = x;
    v->t = arena_calloc(x->arena, sizeof(cat_table_t));
    v->t->db = "information_schema";
    v->t->name = name;
    v->t->engine = "MEMORY";
    v->cap = 40;
    v->t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * v->cap);
}

/* A column: strings are VARCHAR(len) utf8mb3; numbers BIGINT UNSIGNED (len 0). */
static void vt_col(vt_t *v, const char *name, uint32_t len, bool number, bool nullable)
{
    cat_column_t *c = &v->t->cols[v->t->ncols++];
    c->name = name;
    c->comment = "";
    c->rc.nullable = nullable;
    if (number) {
        c->rc.type = SQLT_BIGINT;
        c->rc.is_unsigned = true;
        c->display_width = 21;
        c->rc.coll = COLL_BINARY;
    } else {
        c->rc.type = SQLT_VARCHAR;
        c->rc.len = len;
        c->rc.coll = COLL_UTF8MB3_GENERAL_CI;
    }
    c->def = CAT_DEF_NULL;
}

/* The last column made a DATETIME (its values are given as text 'YYYY-MM-DD hh:mm:ss') */
static void vt_datetime(vt_t *v)
{
    cat_column_t *c = &v->t->cols[v->t->ncols - 1];
    c->rc.type = SQLT_DATETIME;
    c->rc.len = 0;
    c->rc.scale = 0;
    c->rc.coll = COLL_BINARY;
}

static value_t *vt_row(vt_t *v)
{
    if (v->n == v->rcap) {
        uint64_t nc = v->rcap ? v->rcap * 2 : 32;
        value_t **nr = arena_alloc(v->x->arena, sizeof(value_t *) * nc);
        if (v->n)
            memcpy(nr, v->rows, sizeof(value_t *) * v->n);
        v->rows = nr;
        v->rcap = nc;
    }
    value_t *r = arena_calloc(v->x->arena, sizeof(value_t) * (v->t->ncols + 1));
    v->rows[v->n++] = r;
    return r;
}

/* The rows' strings copied into the statement's arena: builders point into catalog records (table names,
 * comments, ...) they release before the rows are read, and a concurrent DDL frees a released record (the
 * monitor's information_schema.TABLES read hit that under ASan). */
static void vt_own(vt_t *v)
{
    for (uint64_t r = v->owned; r < v->n; r++)
        for (uint32_t c = 0; c < v->t->ncols; c++)
            if (v->rows[r][c].type == VAL_STRING)
                v->rows[r][c] = value_copy_into(v->x->arena, &v->rows[r][c]);
    v->owned = v->n;
}

/* A table's record released once the rows made from it own their strings. */
static void vt_release(vt_t *v, cat_table_t *t)
{
    vt_own(v);
    catalog_table_release(t);
}

static value_t show_text(const char *s) { return s ? value_str(s, strlen(s), COLL_UTF8MB3_GENERAL_CI) : value_null(); }
static value_t show_uint(uint64_t u) { return value_uint(u); }

typedef struct vt_send {
    sql_exec_ctx_t *x;
    res_col_t *cols;
    uint32_t n;
    bool started;
} vt_send_t;

static int vt_send_row(void *arg, const value_t *row)
{
    vt_send_t *s = arg;
    sql_exec_ctx_t *x = s->x;
    if (!s->started) {
        x->sink->columns(x->sink, s->cols, (int)s->n);
        s->started = true;
    }
    res_cell_t *cells = arena_alloc(x->arena, sizeof(res_cell_t) * (s->n + 1));
    for (uint32_t i = 0; i < s->n; i++) {
        cells[i].null = row[i].type == VAL_NULL;
        cells[i].p = "";
        cells[i].len = 0;
        if (!cells[i].null)
            cells[i].p = value_to_text(x->arena, &row[i], &cells[i].len);
    }
    x->sink->row(x->sink, cells);
    return 0;
}

/* Sends a virtual table as a SHOW result: LIKE on column like_col, WHERE through the SELECT machinery. */
static int vt_send(vt_t *v, int like_col, const char *like, sql_expr_t *where)
{
    sql_exec_ctx_t *x = v->x;
    vt_own(v);
    vt_send_t s = {.x = x, .n = v->t->ncols};
    s.cols = arena_calloc(x->arena, sizeof(res_col_t) * (v->t->ncols + 1));
    for (uint32_t i = 0; i < v->t->ncols; i++) {
        column_meta(&s.cols[i], v->t, i, "", "", v->t->cols[i].name);
        s.cols[i].schema = s.cols[i].table = s.cols[i].org_table = "";
        s.cols[i].flags &= (uint16_t)~(COLF_NO_DEFAULT);
        if (!v->t->cols[i].rc.nullable)
            s.cols[i].flags |= COLF_NOT_NULL;
    }
    if (like && like_col >= 0) {
        uint64_t w = 0;
        for (uint64_t i = 0; i < v->n; i++) {
            const value_t *c = &v->rows[i][like_col];
            if (c->type == VAL_STRING && sql_like_match(COLL_UTF8MB3_GENERAL_CI, c->s.ptr, c->s.len, like, strlen(like), '\\'))
                v->rows[w++] = v->rows[i];
        }
        v->n = w;
    }
    int rc = 0;
    if (where) {
        query_t q;
        memset(&q, 0, sizeof q);
        q.x = x;
        q.src = arena_calloc(x->arena, sizeof(query_source_t));
        q.src[0] = (query_source_t){.db = "", .name = v->t->name, .alias = v->t->name, .t = v->t, .is_virtual = true,
                            .vrows = v->rows, .nvrows = v->n};
        q.nsrc = 1;
        q.width = v->t->ncols;
        if ((rc = bind_expr(&q, where, "WHERE", false)) == 0)
            rc = query_run(&q, where, vt_send_row, &s, -1, false);
        query_release(&q);
    } else {
        for (uint64_t i = 0; i < v->n && !rc; i++)
            rc = vt_send_row(&s, v->rows[i]);
    }
    if (rc)
        return rc;
    if (!s.started)
        x->sink->columns(x->sink, s.cols, (int)s.n);
    x->sink->rows_end(x->sink, x->more);
    x->row_count = -1;
    return 0;
}

/* ---------------------------------------------------------------- type text, keys */

static const char *charset_of(uint16_t coll)
{
    const char *n = value_coll_name(coll);
    if (!n)
        return "utf8mb4";
    const char *u = strchr(n, '_');
    static char buf[4][32];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%.*s", u ? (int)(u - n) : (int)strlen(n), n);
    return buf[k];
}

static char *quote_str(arena_t *a, const char *s)
{
    buf_t b;
    buf_init(&b);
    buf_append_byte(&b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            buf_append_byte(&b, '\'');
        if (*s == '\\')
            buf_append_byte(&b, '\\');
        buf_append_byte(&b, (uint8_t)*s);
    }
    buf_append_byte(&b, '\'');
    char *r = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return r;
}

const char *type_text(arena_t *a, const cat_column_t *c)
{
    sqlt_t t = (sqlt_t)c->rc.type;
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, sqlt_name(t));
    if (sqlt_is_int(t)) {
        uint32_t w = c->display_width;
        if (!w)
            w = t == SQLT_TINYINT ? (c->rc.is_unsigned ? 3 : 4) : t == SQLT_SMALLINT ? (c->rc.is_unsigned ? 5 : 6)
              : t == SQLT_MEDIUMINT ? (c->rc.is_unsigned ? 8 : 9) : t == SQLT_INT ? (c->rc.is_unsigned ? 10 : 11) : 20;
        buf_printf(&b, "(%u)", w);
    } else if (t == SQLT_DECIMAL) {
        buf_printf(&b, "(%u,%u)", c->rc.len, c->rc.scale);
    } else if ((t == SQLT_FLOAT || t == SQLT_DOUBLE) && c->rc.len) {
        buf_printf(&b, "(%u,%u)", c->rc.len, c->rc.scale);
    } else if (t == SQLT_BIT || t == SQLT_CHAR || t == SQLT_VARCHAR || t == SQLT_BINARY || t == SQLT_VARBINARY) {
        buf_printf(&b, "(%u)", c->rc.len);
    } else if ((t == SQLT_DATETIME || t == SQLT_TIMESTAMP || t == SQLT_TIME) && c->rc.scale) {
        buf_printf(&b, "(%u)", c->rc.scale);
    } else if (t == SQLT_YEAR) {
        buf_append_str(&b, "(4)");
    } else if (t == SQLT_ENUM || t == SQLT_SET) {
        buf_append_byte(&b, '(');
        for (uint32_t i = 0; i < c->nelems; i++) {
            if (i)
                buf_append_byte(&b, ',');
            buf_append_str(&b, quote_str(a, c->elems[i]));
        }
        buf_append_byte(&b, ')');
    }
    if (c->rc.is_unsigned && (sqlt_is_int(t) || t == SQLT_DECIMAL || t == SQLT_FLOAT || t == SQLT_DOUBLE))
        buf_append_str(&b, " unsigned");
    if (c->zerofill)
        buf_append_str(&b, " zerofill");
    char *r = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return r;
}

/* The order MariaDB shows a table's keys in (its sort_keys()): unique keys first -- those without nullable
 * columns before the others, PRIMARY first, whole-column keys before prefix keys -- then the others, each group
 * in creation order.  Only the display follows it; the catalog keeps its own order. */
static int key_rank(const cat_table_t *t, const cat_index_t *ix)
{
    if (ix->kind == CAT_IDX_KEY)
        return 8;
    bool nullpart = false, partial = false;
    for (uint32_t k = 0; k < ix->ncols; k++) {
        nullpart |= t->cols[ix->cols[k].col].rc.nullable;
        partial |= ix->cols[k].prefix != 0;
    }
    return (nullpart ? 4 : 0) + (ix->kind == CAT_IDX_PRIMARY ? 0 : 1 + partial);
}

static uint32_t *key_order(arena_t *a, const cat_table_t *t)
{
    uint32_t *o = arena_alloc(a, sizeof(uint32_t) * (t->nidx + 1));
    uint32_t n = 0;
    for (int r = 0; r <= 8; r++)
        for (uint32_t i = 0; i < t->nidx; i++)
            if (key_rank(t, &t->idx[i]) == r)
                o[n++] = i;
    return o;
}

static const char *col_key(const cat_table_t *t, uint32_t col)
{
    for (uint32_t i = 0; i < t->nidx; i++)
        if (t->idx[i].kind == CAT_IDX_PRIMARY)
            for (uint32_t k = 0; k < t->idx[i].ncols; k++)
                if (t->idx[i].cols[k].col == col)
                    return "PRI";
    for (uint32_t i = 0; i < t->nidx; i++)
        if (t->idx[i].kind == CAT_IDX_UNIQUE && t->idx[i].cols[0].col == col)
            return t->idx[i].ncols == 1 ? "UNI" : "MUL";
    for (uint32_t i = 0; i < t->nidx; i++)
        if (t->idx[i].cols[0].col == col)
            return "MUL";
    return "";
}

/* current_timestamp(fsp) as MariaDB shows it; the catalog keeps no fsp of its own, the column's is shown (a
 * DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3) is what dumps write) */
static const char *now_shown(const cat_column_t *c, arena_t *a)
{
    return c->rc.scale ? arena_printf(a, "current_timestamp(%u)", (unsigned)c->rc.scale) : "current_timestamp()";
}

static const char *default_shown(const cat_column_t *c, bool for_create, arena_t *a)
{
    switch (c->def) {
    /* a DEFAULT's own fsp is in default_text ("0".."6", exec.c col_default); "" (older catalogs): the column's */
    case CAT_DEF_NOW: return c->default_text && c->default_text[0] ? (c->default_text[0] == '0' ? "current_timestamp()" : arena_printf(a, "current_timestamp(%s)", c->default_text)) : now_shown(c, a);
    case CAT_DEF_NULL: return for_create ? "NULL" : NULL;
    case CAT_DEF_EXPR: return c->default_text; /* as MariaDB prints it: uuid(), (1 + rand()) */
    case CAT_DEF_VALUE: {
        sqlt_t t = (sqlt_t)c->rc.type;
        if (t == SQLT_BIT) { /* b'101' */
            uint64_t v = strtoull(c->default_text, NULL, 10);
            char bits[70];
            int n = 0;
            for (int k = 63; k >= 0; k--)
                if (n || (v >> k) & 1 || k == 0)
                    bits[n++] = (char)('0' + ((v >> k) & 1));
            bits[n] = 0;
            return arena_printf(a, "b'%s'", bits);
        }
        bool quoted = sqlt_is_string(t) || sqlt_is_temporal(t) || t == SQLT_ENUM || t == SQLT_SET;
        return for_create && quoted ? quote_str(a, c->default_text) : c->default_text;
    }
    default:
        return c->rc.nullable ? (for_create ? "NULL" : NULL) : NULL;
    }
}

static const char *extra_of(const cat_column_t *c, arena_t *a)
{
    const char *e = c->gen_expr ? (c->gen_stored ? "STORED GENERATED" : "VIRTUAL GENERATED")
                    : c->auto_increment ? "auto_increment"
                    : c->on_update_now ? arena_printf(a, "on update %s", now_shown(c, a)) : "";
    if (c->invisible) /* MariaDB: "auto_increment, INVISIBLE" */
        return *e ? arena_printf(a, "%s, INVISIBLE", e) : "INVISIBLE";
    return e;
}

/* ---------------------------------------------------------------- SHOW CREATE TABLE */

/* `name` (or "name" under ANSI_QUOTES: q is the quote), the quote doubled inside */
void exec_ident_quote(buf_t *b, const char *s, char q)
{
    buf_append_byte(b, (uint8_t)q);
    for (; *s; s++) {
        if (*s == q)
            buf_append_byte(b, (uint8_t)q);
        buf_append_byte(b, (uint8_t)*s);
    }
    buf_append_byte(b, (uint8_t)q);
}

/* `mode`: SQL_SHOW_CREATE_* flags (exec.h) */
char *exec_show_create_table_text(arena_t *a, const cat_table_t *t, unsigned mode)
{
    return exec_show_create_table_text_as(a, t, mode, t->name, false);
}

char *exec_show_create_table_text_as(arena_t *a, const cat_table_t *t, unsigned mode, const char *name, bool temporary)
{
    char q = (mode & SQL_SHOW_CREATE_ANSI_QUOTES) ? '"' : '`';
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, temporary ? "CREATE TEMPORARY TABLE " : "CREATE TABLE ");
    exec_ident_quote(&b, name, q);
    buf_append_str(&b, " (\n");
    for (uint32_t i = 0; i < t->ncols; i++) {
        const cat_column_t *c = &t->cols[i];
        sqlt_t ty = (sqlt_t)c->rc.type;
        buf_append_str(&b, "  ");
        exec_ident_quote(&b, c->name, q);
        buf_append_byte(&b, ' ');
        buf_append_str(&b, type_text(a, c));
        if ((sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET) && c->rc.coll != COLL_BINARY && c->rc.coll != t->coll)
            buf_printf(&b, " CHARACTER SET %s COLLATE %s", charset_of(c->rc.coll), value_coll_name(c->rc.coll));
        if (c->gen_expr) /* MariaDB: no NULL / DEFAULT on a generated column, PERSISTENT shown as STORED */
            buf_printf(&b, " GENERATED ALWAYS AS (%s) %s", check_expr_requote(a, c->gen_expr, q),
                       c->gen_stored ? "STORED" : "VIRTUAL");
        else if (!c->rc.nullable)
            buf_append_str(&b, " NOT NULL");
        else if (ty == SQLT_TIMESTAMP)
            buf_append_str(&b, " NULL");
        if (c->invisible)
            buf_append_str(&b, " INVISIBLE");
        const char *d = c->gen_expr ? NULL : default_shown(c, true, a);
        if (d && !c->auto_increment)
            buf_printf(&b, " DEFAULT %s", d);
        if (c->auto_increment && !(mode & SQL_SHOW_CREATE_NO_FIELD_OPTIONS))
            buf_append_str(&b, " AUTO_INCREMENT");
        if (c->on_update_now && !(mode & SQL_SHOW_CREATE_NO_FIELD_OPTIONS))
            buf_printf(&b, " ON UPDATE %s", now_shown(c, a));
        if (c->comment && c->comment[0])
            buf_printf(&b, " COMMENT %s", quote_str(a, c->comment));
        ddl_show_column_check(&b, t, c);
        if (c->is_json) { /* MariaDB's JSON type: a LONGTEXT with this check (jsoncheck.c enforces it) */
            buf_append_str(&b, " CHECK (json_valid(");
            exec_ident_quote(&b, c->name, q);
            buf_append_str(&b, "))");
        }
        if (i + 1 < t->ncols || t->nidx || ddl_show_constraint_count(t))
            buf_append_byte(&b, ',');
        buf_append_byte(&b, '\n');
    }
    uint32_t *ord = key_order(a, t);
    for (uint32_t o = 0; o < t->nidx; o++) {
        uint32_t i = ord[o];
        const cat_index_t *x = &t->idx[i];
        buf_append_str(&b, "  ");
        if (x->kind == CAT_IDX_PRIMARY) {
            buf_append_str(&b, "PRIMARY KEY (");
        } else {
            buf_append_str(&b, x->kind == CAT_IDX_UNIQUE ? "UNIQUE KEY " : "KEY ");
            exec_ident_quote(&b, x->name, q);
            buf_append_str(&b, " (");
        }
        for (uint32_t k = 0; k < x->ncols; k++) {
            if (k)
                buf_append_byte(&b, ',');
            exec_ident_quote(&b, t->cols[x->cols[k].col].name, q);
            if (x->cols[k].prefix)
                buf_printf(&b, "(%u)", x->cols[k].prefix);
            if (x->cols[k].desc)
                buf_append_str(&b, " DESC");
        }
        buf_append_byte(&b, ')');
        if (x->comment && x->comment[0] && !(mode & SQL_SHOW_CREATE_NO_KEY_OPTIONS))
            buf_printf(&b, " COMMENT %s", quote_str(a, x->comment));
        if (o + 1 < t->nidx || ddl_show_constraint_count(t))
            buf_append_byte(&b, ',');
        buf_append_byte(&b, '\n');
    }
    ddl_show_constraints(&b, t);
    buf_append_byte(&b, ')');
    if (mode & SQL_SHOW_CREATE_NO_TABLE_OPTIONS)
        goto done;
    buf_printf(&b, " ENGINE=%s", t->engine ? t->engine : "InnoDB");
    uint64_t ai = t->ctr ? atomic_load(&t->ctr->auto_inc) : 1;
    if (cat_table_autoinc_col(t) >= 0 && ai > 1)
        buf_printf(&b, " AUTO_INCREMENT=%llu", (unsigned long long)ai);
    buf_printf(&b, " DEFAULT CHARSET=%s COLLATE=%s", charset_of(t->coll), value_coll_name(t->coll));
    if (t->comment && t->comment[0])
        buf_printf(&b, " COMMENT=%s", quote_str(a, t->comment));
    if (t->tablespace) {
        buf_append_str(&b, " TABLESPACE ");
        exec_ident_quote(&b, t->tablespace, q);
    }
done:;
    char *r = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return r;
}

/* ---------------------------------------------------------------- the SHOWs */

bool exec_show_handles(const sql_show_t *sh)
{
    switch (sh->what) {
    case SQL_SHOW_DATABASES: case SQL_SHOW_TABLES: case SQL_SHOW_COLUMNS: case SQL_SHOW_INDEX:
    case SQL_SHOW_CREATE_TABLE: case SQL_SHOW_TABLE_STATUS: case SQL_SHOW_CREATE_DATABASE: case SQL_SHOW_TRIGGERS:
    case SQL_SHOW_CREATE_VIEW: case SQL_SHOW_OPEN_TABLES: case SQL_SHOW_EVENTS: case SQL_SHOW_PROCEDURE_STATUS: case SQL_SHOW_FUNCTION_STATUS:
    case SQL_SHOW_CREATE_PROCEDURE: case SQL_SHOW_CREATE_FUNCTION: case SQL_SHOW_CREATE_TRIGGER:
    case SQL_SHOW_CREATE_EVENT:
        return true;
    default:
        return false;
    }
}

static cat_table_t *show_table(sql_exec_ctx_t *x, const sql_show_t *sh, const char **dbout)
{
    const char *db = exec_db_name(x, sh->table.db ? sh->table.db : sh->db);
    if (!db)
        return NULL;
    *dbout = db;
    const char *rdb = db, *rname = sh->table.name;
    exec_temp_map(x, &rdb, &rname);
    cat_table_t *t = catalog_table_get(sql_exec_catalog(), rdb, rname);
    if (!t && rdb == db)
        t = bind_view_table(x, db, sh->table.name, NULL);
    if (!t && !x->diag->error_code)
        diag_error(x->diag, ER_NO_SUCH_TABLE, db, sh->table.name);
    return t;
}

/* SHOW CREATE VIEW's text: MariaDB's clauses around the SELECT as it was written (MariaDB prints its own
 * normalized form of the SELECT instead: tests/sql/DIFFERENCES.md). */
static const char *view_create_text(sql_exec_ctx_t *x, const cat_view_t *v)
{
    buf_t b;
    buf_init(&b);
    char q = (x->show_create & SQL_SHOW_CREATE_ANSI_QUOTES) ? '"' : '`';
    buf_printf(&b, "CREATE ALGORITHM=%s DEFINER=", v->algorithm);
    exec_ident_quote(&b, v->definer_user, q);
    if (v->definer_host && v->definer_host[0]) {
        buf_append_byte(&b, '@');
        exec_ident_quote(&b, v->definer_host, q);
    }
    buf_printf(&b, " SQL SECURITY %s VIEW ", v->security);
    exec_ident_quote(&b, v->name, q);
    buf_append(&b, " (", 2);
    for (uint32_t i = 0; i < v->ncols; i++) {
        if (i)
            buf_append_byte(&b, ',');
        exec_ident_quote(&b, v->cols[i], q);
    }
    buf_printf(&b, ") AS %s", v->text);
    if (strcmp(v->check_option, "NONE") != 0)
        buf_printf(&b, " WITH %s CHECK OPTION", v->check_option);
    const char *s = arena_strndup(x->arena, (const char *)b.data, b.len);
    buf_free(&b);
    return s;
}

/* SHOW CREATE VIEW v, and SHOW CREATE TABLE v of a view: MariaDB's four columns. */
static int show_create_view(sql_exec_ctx_t *x, const sql_show_t *sh, bool table_asked)
{
    const char *db = exec_db_name(x, sh->table.db ? sh->table.db : sh->db);
    if (!db)
        return -ER_NO_DB_ERROR;
    cat_view_t v;
    if (!bind_view_table(x, db, sh->table.name, &v)) {
        if (x->diag->error_code)
            return -x->diag->error_code;
        cat_table_t *t = table_asked ? NULL : catalog_table_get(sql_exec_catalog(), db, sh->table.name);
        if (t) {
            catalog_table_release(t);
            return diag_error(x->diag, ER_WRONG_OBJECT, db, sh->table.name, "VIEW");
        }
        return diag_error(x->diag, ER_NO_SUCH_TABLE, db, sh->table.name);
    }
    vt_t t;
    vt_init(&t, x, "CREATE");
    vt_col(&t, "View", 64, false, false);
    vt_col(&t, "Create View", 1024, false, false);
    vt_col(&t, "character_set_client", 32, false, false);
    vt_col(&t, "collation_connection", 32, false, false);
    value_t *r = vt_row(&t);
    r[0] = show_text(v.name);
    r[1] = show_text(view_create_text(x, &v));
    r[2] = show_text(v.client_cs);
    r[3] = show_text(v.conn_coll);
    return vt_send(&t, -1, NULL, NULL);
}

static uint64_t table_bytes(const cat_table_t *t, bool data)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < t->nidx || (i == 0 && !t->nidx); i++) {
        engine_tree_id_t tree = t->nidx ? t->idx[i].tree : t->tree;
        bool is_data = tree == t->tree;
        if (is_data != data)
            continue;
        uint64_t pages = 0, ext = 0;
        if (engine_tree_stats(catalog_engine(sql_exec_catalog()), tree, &pages, &ext) == 0)
            total += pages * 16384;
        if (!t->nidx)
            break;
    }
    return total;
}

/* Rows of a table for statistics (SHOW INDEX Cardinality, TABLE_ROWS): the last ANALYZE's count (access/stats.h);
 * never analyzed: counted up to a cap, then the cap. */
static uint64_t table_rows(sql_exec_ctx_t *x, const cat_table_t *t)
{
    uint64_t rows;
    if (stats_table_rows(sql_exec_catalog(), t, &rows))
        return rows;
    engine_trx_t *trx;
    if (engine_trx_begin(catalog_engine(sql_exec_catalog()), &trx) != 0)
        return 0;
    engine_cursor_t *cur;
    uint64_t n = 0;
    if (engine_cursor_open(trx, t->tree, &cur) == 0) {
        for (int rc = engine_cursor_first(cur); rc == 0 && n < 100000; rc = engine_cursor_next(cur))
            n++;
        engine_cursor_close(cur);
    }
    engine_trx_rollback(trx);
    return n;
}

/* Cardinality of column k of index ix (distinct values of the prefix ending there) from the last ANALYZE;
 * without statistics, what the caller shows instead. */
static uint64_t index_cardinality(const cat_table_t *t, uint32_t ix, uint32_t k, uint64_t fallback)
{
    uint64_t d;
    return stats_index_distinct(sql_exec_catalog(), t, ix, k + 1, &d) ? d : fallback;
}

static int show_columns(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    const char *db;
    cat_table_t *t = show_table(x, sh, &db);
    if (!t)
        return -x->diag->error_code;
    vt_t v;
    vt_init(&v, x, "COLUMNS");
    vt_col(&v, "Field", 64, false, false);
    vt_col(&v, "Type", 64, false, false);
    if (sh->full)
        vt_col(&v, "Collation", 32, false, true);
    vt_col(&v, "Null", 3, false, false);
    vt_col(&v, "Key", 3, false, false);
    vt_col(&v, "Default", 64, false, true);
    vt_col(&v, "Extra", 20, false, false);
    if (sh->full) {
        vt_col(&v, "Privileges", 80, false, false);
        vt_col(&v, "Comment", 1024, false, false);
    }
    for (uint32_t i = 0; i < t->ncols; i++) {
        const cat_column_t *c = &t->cols[i];
        unsigned cp = col_privs(x, db, sh->table.name, c->name);
        if (!cp) /* columns the account holds no privilege on are not shown, as in MariaDB */
            continue;
        value_t *r = vt_row(&v);
        int k = 0;
        r[k++] = show_text(c->name);
        r[k++] = show_text(type_text(x->arena, c));
        if (sh->full)
            r[k++] = sqlt_is_string((sqlt_t)c->rc.type) || c->rc.type == SQLT_ENUM || c->rc.type == SQLT_SET
                         ? show_text(value_coll_name(c->rc.coll)) : value_null();
        r[k++] = show_text(c->rc.nullable ? "YES" : "NO");
        r[k++] = show_text(col_key(t, i));
        r[k++] = show_text(default_shown(c, false, x->arena));
        r[k++] = show_text(extra_of(c, x->arena));
        if (sh->full) {
            r[k++] = show_text(col_privs_text(cp, x->arena));
            r[k++] = show_text(c->comment);
        }
    }
    int rc = vt_send(&v, 0, sh->like, sh->where);
    vt_release(&v, t);
    return rc;
}

/* COM_FIELD_LIST's default of a NOT NULL column without DEFAULT: the type's zero, as MariaDB's default record
 * holds it (0, 0.00, '', 0000-00-00 00:00:00.000, the first ENUM member, zero bytes of BINARY and BIT). */
static res_cell_t implicit_default(const cat_column_t *c, arena_t *a)
{
    const rc_col_t *r = &c->rc;
    res_cell_t d = {.null = false, .p = "", .len = 0};
    const char *frac = r->scale ? arena_printf(a, ".%.*s", (int)r->scale, "000000") : "";
    switch ((sqlt_t)r->type) {
    case SQLT_TINYINT: case SQLT_SMALLINT: case SQLT_MEDIUMINT: case SQLT_INT: case SQLT_BIGINT:
    case SQLT_FLOAT: case SQLT_DOUBLE:
        d.p = "0";
        break;
    case SQLT_DECIMAL:
        d.p = r->scale ? arena_printf(a, "0.%.*s", (int)r->scale, "000000000000000000000000000000") : "0";
        break;
    case SQLT_DATE: d.p = "0000-00-00"; break;
    case SQLT_DATETIME: case SQLT_TIMESTAMP: d.p = arena_printf(a, "0000-00-00 00:00:00%s", frac); break;
    case SQLT_TIME: d.p = arena_printf(a, "00:00:00%s", frac); break;
    case SQLT_YEAR: d.p = "0000"; break;
    case SQLT_ENUM: d.p = c->nelems ? c->elems[0] : ""; break;
    case SQLT_BINARY:
    case SQLT_BIT: {
        size_t n = r->type == SQLT_BIT ? (r->len + 7) / 8 : r->len;
        d.p = arena_calloc(a, n ? n : 1);
        d.len = n;
        return d;
    }
    default: /* CHAR, VARCHAR, TEXT, BLOB, SET: empty */
        break;
    }
    d.len = strlen(d.p);
    return d;
}

int sql_exec_field_list(sql_exec_ctx_t *x, const char *table, const char *wild, res_col_t **cols,
                        res_cell_t **defaults, int *n)
{
    *n = 0;
    const char *db = exec_db_name(x, NULL);
    if (!db)
        return -x->diag->error_code;
    const char *rdb = db, *rname = table;
    exec_temp_map(x, &rdb, &rname);
    /* a catalog reference, not a metadata lock: no transaction is left holding one after the command */
    cat_table_t *t = catalog_table_get(sql_exec_catalog(), rdb, rname);
    if (!t)
        return diag_error(x->diag, ER_NO_SUCH_TABLE, db, table);
    *cols = arena_calloc(x->arena, sizeof(res_col_t) * (t->ncols + 1));
    *defaults = arena_calloc(x->arena, sizeof(res_cell_t) * (t->ncols + 1));
    for (uint32_t i = 0; i < t->ncols; i++) {
        const cat_column_t *c = &t->cols[i];
        if (wild && *wild && !sql_like_match(COLL_UTF8MB3_GENERAL_CI, c->name, strlen(c->name), wild, strlen(wild), '\\'))
            continue;
        column_meta_results(x, &(*cols)[*n], t, i, db, table, c->name);
        const char *d = default_shown(c, false, x->arena);
        res_cell_t *out = &(*defaults)[*n];
        if (d)
            *out = (res_cell_t){.null = false, .p = arena_strdup(x->arena, d), .len = strlen(d)};
        else if (!c->rc.nullable && !c->auto_increment)
            *out = implicit_default(c, x->arena);
        else if (!c->rc.nullable)
            *out = (res_cell_t){.null = false, .p = "0", .len = 1};
        else
            *out = (res_cell_t){.null = true};
        (*n)++;
    }
    catalog_table_release(t);
    return 0;
}

static int show_index(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    const char *db;
    cat_table_t *t = show_table(x, sh, &db);
    if (!t)
        return -x->diag->error_code;
    vt_t v;
    vt_init(&v, x, "STATISTICS");
    vt_col(&v, "Table", 64, false, false);
    vt_col(&v, "Non_unique", 0, true, false);
    vt_col(&v, "Key_name", 64, false, true);
    vt_col(&v, "Seq_in_index", 0, true, false);
    vt_col(&v, "Column_name", 64, false, true);
    vt_col(&v, "Collation", 1, false, true);
    vt_col(&v, "Cardinality", 0, true, true);
    vt_col(&v, "Sub_part", 0, true, true);
    vt_col(&v, "Packed", 10, false, true);
    vt_col(&v, "Null", 3, false, false);
    vt_col(&v, "Index_type", 16, false, false);
    vt_col(&v, "Comment", 16, false, true);
    vt_col(&v, "Index_comment", 1024, false, false);
    vt_col(&v, "Ignored", 3, false, false);
    uint64_t rows = table_rows(x, t);
    uint32_t *ord = key_order(x->arena, t);
    for (uint32_t o = 0; o < t->nidx; o++) {
        const cat_index_t *ix = &t->idx[ord[o]];
        for (uint32_t k = 0; k < ix->ncols; k++) {
            const cat_column_t *c = &t->cols[ix->cols[k].col];
            if (!col_privs(x, db, sh->table.name, c->name))
                continue;
            value_t *r = vt_row(&v);
            r[0] = show_text(t->name);
            r[1] = show_uint(ix->kind == CAT_IDX_KEY);
            r[2] = show_text(ix->name);
            r[3] = show_uint(k + 1);
            r[4] = show_text(c->name);
            r[5] = show_text(ix->cols[k].desc ? "D" : "A");
            r[6] = show_uint(index_cardinality(t, ord[o], k, rows));
            r[7] = ix->cols[k].prefix ? show_uint(ix->cols[k].prefix) : value_null();
            r[8] = value_null();
            r[9] = show_text(c->rc.nullable ? "YES" : "");
            r[10] = show_text("BTREE");
            r[11] = show_text("");
            r[12] = show_text(ix->comment ? ix->comment : "");
            r[13] = show_text("NO");
        }
    }
    int rc = vt_send(&v, -1, NULL, sh->where);
    vt_release(&v, t);
    return rc;
}

/* DATA_FREE: the free extents of the table's tablespace, in bytes (InnoDB shows its tablespace's free space);
 * what OPTIMIZE TABLE and DROP give back shows here. */
static uint64_t table_data_free(const cat_table_t *t)
{
    engine_file_info_t *f;
    size_t n;
    uint64_t free = 0;
    if (engine_files(catalog_engine(sql_exec_catalog()), &f, &n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].space_id == t->space_id && strcmp(f[i].file_type, "UNDO LOG") != 0)
            free += f[i].free_extents * f[i].extent_size;
    engine_files_free(f);
    return free;
}

static void status_cols(vt_t *v, bool is)
{
    vt_col(v, is ? "TABLE_NAME" : "Name", 64, false, false);
    vt_col(v, is ? "ENGINE" : "Engine", 64, false, true);
    vt_col(v, is ? "VERSION" : "Version", 0, true, true);
    vt_col(v, is ? "ROW_FORMAT" : "Row_format", 10, false, true);
    vt_col(v, is ? "TABLE_ROWS" : "Rows", 0, true, true);
    vt_col(v, is ? "AVG_ROW_LENGTH" : "Avg_row_length", 0, true, true);
    vt_col(v, is ? "DATA_LENGTH" : "Data_length", 0, true, true);
    vt_col(v, is ? "MAX_DATA_LENGTH" : "Max_data_length", 0, true, true);
    vt_col(v, is ? "INDEX_LENGTH" : "Index_length", 0, true, true);
    vt_col(v, is ? "DATA_FREE" : "Data_free", 0, true, true);
    vt_col(v, is ? "AUTO_INCREMENT" : "Auto_increment", 0, true, true);
    vt_col(v, is ? "CREATE_TIME" : "Create_time", 19, false, true);
    vt_col(v, is ? "UPDATE_TIME" : "Update_time", 19, false, true);
    vt_col(v, is ? "CHECK_TIME" : "Check_time", 19, false, true);
    vt_col(v, is ? "TABLE_COLLATION" : "Collation", 32, false, true);
    vt_col(v, is ? "CHECKSUM" : "Checksum", 0, true, true);
    vt_col(v, is ? "CREATE_OPTIONS" : "Create_options", 2048, false, true);
    vt_col(v, is ? "TABLE_COMMENT" : "Comment", 2048, false, false);
    vt_col(v, is ? "MAX_INDEX_LENGTH" : "Max_index_length", 0, true, true);
    vt_col(v, is ? "TEMPORARY" : "Temporary", 1, false, true);
}

static void status_row(vt_t *v, value_t *r, const cat_table_t *t)
{
    char *ct = arena_alloc(v->x->arena, 32);
    time_t tt = (time_t)t->create_time;
    struct tm tm;
    localtime_r(&tt, &tm);
    strftime(ct, 32, "%Y-%m-%d %H:%M:%S", &tm);
    int k = 0;
    r[k++] = show_text(t->name);
    r[k++] = show_text(t->engine);
    r[k++] = show_uint(10);
    r[k++] = show_text("Dynamic");
    uint64_t rows = table_rows(v->x, t), data = table_bytes(t, true);
    r[k++] = show_uint(rows);
    r[k++] = show_uint(rows ? data / rows : 0);
    r[k++] = show_uint(data);
    r[k++] = show_uint(0);
    r[k++] = show_uint(table_bytes(t, false));
    r[k++] = show_uint(table_data_free(t));
    r[k++] = cat_table_autoinc_col(t) >= 0 ? show_uint(atomic_load(&t->ctr->auto_inc)) : value_null();
    r[k++] = show_text(ct);
    r[k++] = value_null();
    r[k++] = value_null();
    r[k++] = show_text(value_coll_name(t->coll));
    r[k++] = value_null();
    r[k++] = show_text("");
    r[k++] = show_text(t->comment ? t->comment : "");
    r[k++] = show_uint(0);
    r[k++] = show_text("N");
}

static int row_name_cmp(const void *a, const void *b)
{
    const value_t *x = *(value_t *const *)a, *y = *(value_t *const *)b;
    size_t n = MIN(x[0].s.len, y[0].s.len);
    int r = n ? memcmp(x[0].s.ptr, y[0].s.ptr, n) : 0;
    return r ? r : (x[0].s.len < y[0].s.len ? -1 : x[0].s.len > y[0].s.len);
}

static int show_tables(sql_exec_ctx_t *x, const sql_show_t *sh, bool status)
{
    const char *db = exec_db_name(x, sh->db);
    if (!db)
        return -ER_NO_DB_ERROR;
    if (!sql_exec_db_exists(db))
        return diag_error(x->diag, ER_BAD_DB_ERROR, db);
    vt_t v;
    vt_init(&v, x, "TABLES");
    if (status) {
        status_cols(&v, false);
    } else {
        const char *h = arena_printf(x->arena, "Tables_in_%s%s%s%s", db, sh->like ? " (" : "", sh->like ? sh->like : "",
                                     sh->like ? ")" : "");
        vt_col(&v, h, 64, false, false);
        if (sh->full)
            vt_col(&v, "Table_type", 64, false, false);
    }
    const char **names;
    uint32_t n;
    if (strcasecmp(db, "information_schema") == 0 && !status) {
        static const char *const is_tables[] = {"CHARACTER_SETS", "CHECK_CONSTRAINTS", "COLLATIONS",
                                                "COLLATION_CHARACTER_SET_APPLICABILITY", "COLUMNS",
                                                "ENGINES", "EVENTS", "FILES", "KEY_COLUMN_USAGE", "PARAMETERS",
                                                "PARTITIONS", "PLUGINS", "PROCESSLIST", "REFERENTIAL_CONSTRAINTS", "ROUTINES",
                                                "SCHEMATA", "STATISTICS", "SYSTEM_VARIABLES", "TABLES", "TABLE_CONSTRAINTS", "TRIGGERS",
                                                "VIEWS"};
        for (size_t i = 0; i < ARRAY_LEN(is_tables); i++) {
            value_t *r = vt_row(&v);
            r[0] = show_text(is_tables[i]);
            if (sh->full)
                r[1] = show_text("SYSTEM VIEW");
        }
        return vt_send(&v, 0, sh->like, sh->where);
    }
    catalog_table_list(sql_exec_catalog(), db, x->arena, &names, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (!XVISIBLE(x, db, names[i]))
            continue;
        cat_table_t *t = catalog_table_get(sql_exec_catalog(), db, names[i]);
        if (!t)
            continue;
        value_t *r = vt_row(&v);
        if (status) {
            status_row(&v, r, t);
        } else {
            r[0] = show_text(names[i]);
            if (sh->full)
                r[1] = show_text("BASE TABLE");
        }
        vt_release(&v, t);
    }
    cat_view_t *views;
    uint32_t nv;
    catalog_view_list(sql_exec_catalog(), x->arena, db, &views, &nv);
    for (uint32_t i = 0; i < nv; i++) {
        if (!XVISIBLE(x, db, views[i].name))
            continue;
        value_t *r = vt_row(&v);
        if (status) { /* a view's status row: its name and the comment VIEW, NULL elsewhere */
            for (uint32_t k = 0; k < v.t->ncols; k++)
                r[k] = value_null();
            r[0] = show_text(views[i].name);
            r[17] = show_text("VIEW");
        } else {
            r[0] = show_text(views[i].name);
            if (sh->full)
                r[1] = show_text("VIEW");
        }
    }
    if (nv && v.n > 1) /* tables and views in one name order */
        qsort(v.rows, v.n, sizeof *v.rows, row_name_cmp);
    return vt_send(&v, 0, sh->like, sh->where);
}

/* SHOW DATABASES and information_schema.SCHEMATA leave out the monitor's history (strata_monitor): it is the
 * server's own record, not data, and mariadb-dump --all-databases must not carry one server's history into
 * another.  It is read by name, and information_schema.TABLES lists its tables. */
static bool db_listed(const char *name) { return strcmp(name, "strata_monitor") != 0; }

static int show_databases(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    vt_t v;
    vt_init(&v, x, "SCHEMATA");
    vt_col(&v, sh->like ? arena_printf(x->arena, "Database (%s)", sh->like) : "Database", 64, false, false);
    const char **names;
    uint32_t n;
    catalog_db_list(sql_exec_catalog(), x->arena, &names, &n);
    for (uint32_t i = 0; i < n; i++)
        if (XVISIBLE(x, names[i], NULL) && db_listed(names[i]))
            vt_row(&v)[0] = show_text(names[i]);
    return vt_send(&v, 0, sh->like, sh->where);
}

/* DATA_TYPE .. DTD_IDENTIFIER of information_schema.ROUTINES and PARAMETERS, from r[0] on */
static void type_fact_cols(value_t *r, const routine_type_facts_t *tf)
{
    r[0] = show_text(tf->data_type);
    const int64_t n[] = {tf->char_max, tf->char_octet, tf->num_prec, tf->num_scale, tf->dt_prec};
    for (int i = 0; i < 5; i++)
        r[1 + i] = n[i] < 0 ? value_null() : value_uint((uint64_t)n[i]);
    r[6] = show_text(tf->cs);
    r[7] = show_text(tf->coll);
    r[8] = show_text(tf->dtd);
}

/* SHOW CREATE PROCEDURE | FUNCTION (ddl/routine.c makes the text) */
static int show_create_routine(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    bool fn = sh->what == SQL_SHOW_CREATE_FUNCTION;
    const char *db = exec_db_name(x, sh->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    cat_routine_t r;
    if (catalog_routine_get(sql_exec_catalog(), x->arena, fn ? "FUNCTION" : "PROCEDURE", db, sh->table.name, &r) <= 0)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, fn ? "FUNCTION" : "PROCEDURE", sh->table.name);
    vt_t t;
    vt_init(&t, x, "CREATE");
    vt_col(&t, fn ? "Function" : "Procedure", 64, false, false);
    vt_col(&t, "sql_mode", 1024, false, false);
    vt_col(&t, fn ? "Create Function" : "Create Procedure", 1024, false, true);
    vt_col(&t, "character_set_client", 32, false, false);
    vt_col(&t, "collation_connection", 32, false, false);
    vt_col(&t, "Database Collation", 32, false, false);
    value_t *row = vt_row(&t);
    row[0] = show_text(r.name);
    row[1] = show_text(r.sql_mode);
    row[2] = show_text(routine_create_text(x->arena, &r, (x->show_create & SQL_SHOW_CREATE_ANSI_QUOTES) ? '"' : '`'));
    row[3] = show_text(r.client_cs);
    row[4] = show_text(r.conn_coll);
    row[5] = show_text(r.db_coll);
    return vt_send(&t, -1, NULL, NULL);
}

/* SHOW EVENTS' row of an event (15 columns) */
static void event_row(sql_exec_ctx_t *x, const cat_event_t *e, value_t *r)
{
    r[0] = show_text(e->db);
    r[1] = show_text(e->name);
    r[2] = show_text(arena_printf(x->arena, "%s@%s", e->definer_user, e->definer_host));
    r[3] = show_text(e->time_zone);
    r[4] = show_text(e->recurring ? "RECURRING" : "ONE TIME");
    r[5] = e->recurring ? value_null() : show_text(event_time_text(x->arena, e->time_zone, e->execute_at));
    r[6] = e->recurring ? show_text(e->interval_value) : value_null();
    r[7] = e->recurring ? show_text(e->interval_field) : value_null();
    r[8] = e->recurring ? show_text(event_time_text(x->arena, e->time_zone, e->starts)) : value_null();
    r[9] = e->recurring && e->ends != CAT_EVENT_NEVER ? show_text(event_time_text(x->arena, e->time_zone, e->ends))
                                                      : value_null();
    r[10] = show_text(e->status);
    r[11] = show_uint(e->originator);
    r[12] = show_text(e->client_cs);
    r[13] = show_text(e->conn_coll);
    r[14] = show_text(e->db_coll);
}

/* SHOW CREATE EVENT (ddl/event.c makes the text) */
static int show_create_event(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    const char *db = exec_db_name(x, sh->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    cat_event_t e;
    if (catalog_event_get(sql_exec_catalog(), x->arena, db, sh->table.name, &e) <= 0)
        return diag_error(x->diag, ER_EVENT_DOES_NOT_EXIST, sh->table.name);
    vt_t t;
    vt_init(&t, x, "CREATE");
    vt_col(&t, "Event", 64, false, false);
    vt_col(&t, "sql_mode", 1024, false, false);
    vt_col(&t, "time_zone", 64, false, false);
    vt_col(&t, "Create Event", 1024, false, true);
    vt_col(&t, "character_set_client", 32, false, false);
    vt_col(&t, "collation_connection", 32, false, false);
    vt_col(&t, "Database Collation", 32, false, false);
    value_t *row = vt_row(&t);
    row[0] = show_text(e.name);
    row[1] = show_text(e.sql_mode);
    row[2] = show_text(e.time_zone);
    row[3] = show_text(event_create_text(x->arena, &e, (x->show_create & SQL_SHOW_CREATE_ANSI_QUOTES) ? '"' : '`'));
    row[4] = show_text(e.client_cs);
    row[5] = show_text(e.conn_coll);
    row[6] = show_text(e.db_coll);
    return vt_send(&t, -1, NULL, NULL);
}

/* SHOW CREATE TRIGGER (ddl/trigger.c makes the text) */
static int show_create_trigger(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    const char *db = exec_db_name(x, sh->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    cat_trigger_t r;
    if (catalog_trigger_get(sql_exec_catalog(), x->arena, db, sh->table.name, &r) <= 0)
        return diag_error(x->diag, ER_TRG_DOES_NOT_EXIST);
    vt_t t;
    vt_init(&t, x, "CREATE");
    vt_col(&t, "Trigger", 64, false, false);
    vt_col(&t, "sql_mode", 1024, false, false);
    vt_col(&t, "SQL Original Statement", 1024, false, false);
    vt_col(&t, "character_set_client", 32, false, false);
    vt_col(&t, "collation_connection", 32, false, false);
    vt_col(&t, "Database Collation", 32, false, false);
    vt_col(&t, "Created", 32, false, true);
    value_t *row = vt_row(&t);
    row[0] = show_text(r.name);
    row[1] = show_text(r.sql_mode);
    row[2] = show_text(trigger_create_text(x->arena, &r, (x->show_create & SQL_SHOW_CREATE_ANSI_QUOTES) ? '"' : '`'));
    row[3] = show_text(r.client_cs);
    row[4] = show_text(r.conn_coll);
    row[5] = show_text(r.db_coll);
    row[6] = show_text(r.created);
    return vt_send(&t, -1, NULL, NULL);
}

int exec_show_stmt(sql_exec_ctx_t *x, const sql_show_t *sh)
{
    /* MariaDB answers these from an information_schema table it scans in full: SERVER_QUERY_NO_INDEX_USED */
    if (sh->what == SQL_SHOW_DATABASES || sh->what == SQL_SHOW_TABLES || sh->what == SQL_SHOW_TABLE_STATUS ||
        sh->what == SQL_SHOW_COLUMNS || sh->what == SQL_SHOW_INDEX)
        x->ss->no_index_used = true;
    switch (sh->what) {
    case SQL_SHOW_DATABASES:
        return show_databases(x, sh);
    case SQL_SHOW_TABLES:
        return show_tables(x, sh, false);
    case SQL_SHOW_TABLE_STATUS:
        return show_tables(x, sh, true);
    case SQL_SHOW_COLUMNS:
        return show_columns(x, sh);
    case SQL_SHOW_INDEX:
        return show_index(x, sh);
    case SQL_SHOW_CREATE_VIEW:
        return show_create_view(x, sh, false);
    case SQL_SHOW_CREATE_PROCEDURE: case SQL_SHOW_CREATE_FUNCTION:
        return show_create_routine(x, sh);
    case SQL_SHOW_CREATE_TRIGGER:
        return show_create_trigger(x, sh);
    case SQL_SHOW_CREATE_EVENT:
        return show_create_event(x, sh);
    case SQL_SHOW_CREATE_TABLE: {
        const char *db;
        const char *vdb = exec_db_name(x, sh->table.db ? sh->table.db : sh->db);
        cat_view_t vv;
        if (vdb && !sh->table.db && exec_temp_map(x, &(const char *){vdb}, &(const char *){sh->table.name}))
            vdb = NULL; /* a TEMPORARY table shadows a view */
        if (vdb && catalog_view_get(sql_exec_catalog(), x->arena, vdb, sh->table.name, &vv) > 0)
            return show_create_view(x, sh, true);
        cat_table_t *t = show_table(x, sh, &db);
        if (!t)
            return -x->diag->error_code;
        /* a TEMPORARY table under its own name (the catalog knows it by its session-unique one), as MariaDB */
        const char *tdb = db, *tname = sh->table.name;
        bool temp = exec_temp_map(x, &tdb, &tname);
        vt_t v;
        vt_init(&v, x, "CREATE");
        vt_col(&v, "Table", 64, false, false);
        vt_col(&v, "Create Table", 1024, false, false);
        value_t *r = vt_row(&v);
        r[0] = show_text(temp ? sh->table.name : t->name);
        r[1] = show_text(exec_show_create_table_text_as(x->arena, t, x->show_create, temp ? sh->table.name : t->name,
                                                        temp));
        vt_release(&v, t);
        return vt_send(&v, -1, NULL, NULL);
    }
    case SQL_SHOW_CREATE_DATABASE: {
        const char *db = sh->db;
        if (!db || !sql_exec_db_exists(db))
            return diag_error(x->diag, ER_BAD_DB_ERROR, db ? db : "");
        uint16_t coll = catalog_db_coll(sql_exec_catalog(), db);
        vt_t v;
        vt_init(&v, x, "CREATE");
        vt_col(&v, "Database", 64, false, false);
        vt_col(&v, "Create Database", 1024, false, false);
        value_t *r = vt_row(&v);
        r[0] = show_text(db);
        buf_t qn; /* the name quoted as SHOW CREATE TABLE quotes (ANSI_QUOTES: "db") */
        buf_init(&qn);
        exec_ident_quote(&qn, db, (x->show_create & SQL_SHOW_CREATE_ANSI_QUOTES) ? '"' : '`');
        r[1] = show_text(arena_printf(x->arena, "CREATE DATABASE %s%.*s /*!40100 DEFAULT CHARACTER SET %s COLLATE %s */",
                              sh->if_not_exists ? "/*!32312 IF NOT EXISTS*/ " : "", (int)qn.len, (const char *)qn.data,
                              charset_of(coll), value_coll_name(coll)));
        buf_free(&qn);
        return vt_send(&v, -1, NULL, NULL);
    }
    case SQL_SHOW_TRIGGERS: {
        /* the database's triggers (access/trigger.h) in firing order per table; LIKE matches the table's name */
        const char *db = exec_db_name(x, sh->db);
        if (!db)
            return -ER_NO_DB_ERROR;
        if (!sql_exec_db_exists(db))
            return diag_error(x->diag, ER_BAD_DB_ERROR, db);
        vt_t v;
        vt_init(&v, x, "TRIGGERS");
        static const char *const cn[] = {"Trigger", "Event", "Table", "Statement", "Timing", "Created", "sql_mode",
                                         "Definer", "character_set_client", "collation_connection", "Database Collation"};
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], i == 3 ? 65535 : 64, false, true);
        cat_trigger_t *ts;
        uint32_t nt = 0;
        catalog_trigger_list(sql_exec_catalog(), x->arena, db, NULL, &ts, &nt);
        for (uint32_t i = 0; i < nt; i++) {
            const cat_trigger_t *tr = &ts[i];
            if (!XTRIGGER_VISIBLE(x, tr->db, tr->table) || !trigger_table_exists(tr->db, tr->table))
                continue;
            value_t *r = vt_row(&v);
            r[0] = show_text(tr->name);
            r[1] = show_text(tr->event);
            r[2] = show_text(tr->table);
            r[3] = show_text(tr->body);
            r[4] = show_text(tr->timing);
            r[5] = show_text(tr->created);
            r[6] = show_text(tr->sql_mode);
            r[7] = show_text(arena_printf(x->arena, "%s@%s", tr->definer_user, tr->definer_host));
            r[8] = show_text(tr->client_cs);
            r[9] = show_text(tr->conn_coll);
            r[10] = show_text(tr->db_coll);
        }
        return vt_send(&v, 2, sh->like, sh->where);
    }
    case SQL_SHOW_EVENTS: case SQL_SHOW_PROCEDURE_STATUS: case SQL_SHOW_FUNCTION_STATUS: {
        /* no events or stored routines: MariaDB's columns, no rows */
        static const char *const ev[] = {"Db", "Name", "Definer", "Time zone", "Type", "Execute at",
                                         "Interval value", "Interval field", "Starts", "Ends", "Status",
                                         "Originator", "character_set_client", "collation_connection",
                                         "Database Collation"};
        static const char *const rt[] = {"Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type",
                                         "Comment", "character_set_client", "collation_connection",
                                         "Database Collation"};
        bool events = sh->what == SQL_SHOW_EVENTS;
        if (events) {
            const char *db = exec_db_name(x, sh->db);
            if (!db)
                return -ER_NO_DB_ERROR;
            /* (an unknown database has no events: MariaDB answers with no rows) */
        }
        vt_t v;
        vt_init(&v, x, events ? "EVENTS" : "ROUTINES");
        for (size_t i = 0; i < (events ? ARRAY_LEN(ev) : ARRAY_LEN(rt)); i++) {
            /* (MariaDB's SHOW EVENTS: only Execute at, Interval value / field, Starts, Ends may be NULL) */
            vt_col(&v, events ? ev[i] : rt[i], 64, events && i == 11, !events || (i >= 5 && i <= 9));
            if (events && (i == 5 || i == 8 || i == 9))
                vt_datetime(&v);
        }
        if (events) {
            cat_event_t *es;
            uint32_t ne = 0;
            catalog_event_list(sql_exec_catalog(), x->arena, exec_db_name(x, sh->db), &es, &ne);
            for (uint32_t i = 0; i < ne; i++) {
                value_t *r = vt_row(&v);
                event_row(x, &es[i], r);
            }
            return vt_send(&v, 1, sh->like, sh->where);
        }
        if (!events && !sh->package) {
            cat_routine_t *rs;
            uint32_t nr = 0;
            const char *want = sh->what == SQL_SHOW_FUNCTION_STATUS ? "FUNCTION" : "PROCEDURE";
            catalog_routine_list(sql_exec_catalog(), x->arena, NULL, &rs, &nr);
            for (uint32_t i = 0; i < nr; i++) {
                if (strcmp(rs[i].type, want) != 0 || !XVISIBLE(x, rs[i].db, NULL))
                    continue;
                value_t *r = vt_row(&v);
                r[0] = show_text(rs[i].db);
                r[1] = show_text(rs[i].name);
                r[2] = show_text(rs[i].type);
                r[3] = show_text(arena_printf(x->arena, "%s@%s", rs[i].definer_user, rs[i].definer_host));
                r[4] = show_text(rs[i].modified);
                r[5] = show_text(rs[i].created);
                r[6] = show_text(rs[i].security);
                r[7] = show_text(rs[i].comment);
                r[8] = show_text(rs[i].client_cs);
                r[9] = show_text(rs[i].conn_coll);
                r[10] = show_text(rs[i].db_coll);
            }
            return vt_send(&v, 1, sh->like, sh->where);
        }
        return vt_send(&v, 0, sh->like, sh->where);
    }
    case SQL_SHOW_OPEN_TABLES: {
        vt_t v;
        vt_init(&v, x, "OPEN_TABLES");
        vt_col(&v, "Database", 64, false, false);
        vt_col(&v, "Table", 64, false, false);
        vt_col(&v, "In_use", 0, true, false);
        vt_col(&v, "Name_locked", 0, true, false);
        const char **dbs;
        uint32_t ndb;
        catalog_db_list(sql_exec_catalog(), x->arena, &dbs, &ndb);
        for (uint32_t d = 0; d < ndb; d++) {
            if (sh->db && strcmp(sh->db, dbs[d]) != 0)
                continue;
            const char **names;
            uint32_t n;
            catalog_table_list(sql_exec_catalog(), dbs[d], x->arena, &names, &n);
            for (uint32_t i = 0; i < n; i++) {
                value_t *r = vt_row(&v);
                r[0] = show_text(dbs[d]);
                r[1] = show_text(names[i]);
                r[2] = show_uint(0);
                r[3] = show_uint(0);
            }
        }
        return vt_send(&v, 1, sh->like, sh->where);
    }
    default:
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "this SHOW");
    }
}

/* ---------------------------------------------------------------- information_schema */

/* The rows of one table (or view) in information_schema.COLUMNS (columns), STATISTICS (stats) or TABLES. */
static void is_table_rows(vt_t *v, const cat_table_t *t, const char *db, const char *name, bool columns, bool stats,
                          bool view)
{
    sql_exec_ctx_t *x = v->x;
    if (columns) {
        for (uint32_t c = 0; c < t->ncols; c++) {
            const cat_column_t *cc = &t->cols[c];
            unsigned cp = col_privs(x, db, name, cc->name);
            if (!cp)
                continue;
            sqlt_t ty = (sqlt_t)cc->rc.type;
            bool str = sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET;
            bool bin = cc->rc.coll == COLL_BINARY;
            value_t *r = vt_row(v);
            int k = 0;
            r[k++] = show_text("def");
            r[k++] = show_text(t->db);
            r[k++] = show_text(t->name);
            r[k++] = show_text(cc->name);
            r[k++] = show_uint(c + 1);
            const char *dflt = default_shown(cc, true, x->arena);
            r[k++] = show_text(cc->gen_expr && cc->def == CAT_DEF_NONE ? "NULL" : cc->auto_increment ? NULL : dflt);
            r[k++] = show_text(cc->rc.nullable ? "YES" : "NO");
            r[k++] = show_text(sqlt_name(ty));
            /* TEXT / BLOB: the type's byte limit in both columns, as MariaDB shows it */
            uint64_t lob = ty == SQLT_TINYTEXT || ty == SQLT_TINYBLOB ? 255
                         : ty == SQLT_TEXT || ty == SQLT_BLOB ? 65535
                         : ty == SQLT_MEDIUMTEXT || ty == SQLT_MEDIUMBLOB ? 16777215
                         : ty == SQLT_LONGTEXT || ty == SQLT_LONGBLOB ? 4294967295ULL : 0;
            r[k++] = lob ? show_uint(lob) : str ? show_uint(cc->rc.len) : value_null();
            r[k++] = lob ? show_uint(lob) : str ? show_uint((uint64_t)cc->rc.len * (bin ? 1 : value_coll_mbmaxlen(cc->rc.coll))) : value_null();
            r[k++] = sqlt_is_int(ty) || ty == SQLT_DECIMAL ? show_uint(ty == SQLT_DECIMAL ? cc->rc.len : ty == SQLT_TINYINT ? 3 : ty == SQLT_SMALLINT ? 5 : ty == SQLT_MEDIUMINT ? 7 : ty == SQLT_INT ? 10 : 19) : value_null();
            r[k++] = sqlt_is_int(ty) || ty == SQLT_DECIMAL ? show_uint(cc->rc.scale) : value_null();
            r[k++] = ty == SQLT_DATETIME || ty == SQLT_TIMESTAMP || ty == SQLT_TIME ? show_uint(cc->rc.scale) : value_null();
            r[k++] = str && !bin ? show_text(charset_of(cc->rc.coll)) : value_null();
            r[k++] = str && !bin ? show_text(value_coll_name(cc->rc.coll)) : value_null();
            r[k++] = show_text(type_text(x->arena, cc));
            r[k++] = show_text(col_key(t, c));
            r[k++] = show_text(extra_of(cc, x->arena));
            r[k++] = show_text(col_privs_text(cp, x->arena));
            r[k++] = show_text(cc->comment);
            r[k++] = show_text(cc->gen_expr ? "ALWAYS" : "NEVER");
            r[k++] = cc->gen_expr ? show_text(cc->gen_expr) : value_null();
        }
    } else if (stats) {
        uint32_t *ord = key_order(x->arena, t);
        for (uint32_t i2 = 0; i2 < t->nidx; i2++) {
            const cat_index_t *ix = &t->idx[ord[i2]];
            for (uint32_t k2 = 0; k2 < ix->ncols; k2++) {
                if (!col_privs(x, db, name, t->cols[ix->cols[k2].col].name))
                    continue;
                value_t *r = vt_row(v);
                int k = 0;
                r[k++] = show_text("def");
                r[k++] = show_text(t->db);
                r[k++] = show_text(t->name);
                r[k++] = show_uint(ix->kind == CAT_IDX_KEY);
                r[k++] = show_text(t->db);
                r[k++] = show_text(ix->name);
                r[k++] = show_uint(k2 + 1);
                r[k++] = show_text(t->cols[ix->cols[k2].col].name);
                r[k++] = show_text("A");
                r[k++] = show_uint(index_cardinality(t, ord[i2], k2, 0));
                r[k++] = ix->cols[k2].prefix ? show_uint(ix->cols[k2].prefix) : value_null();
                r[k++] = value_null();
                r[k++] = show_text(t->cols[ix->cols[k2].col].rc.nullable ? "YES" : "");
                r[k++] = show_text("BTREE");
                r[k++] = show_text("");
                r[k++] = show_text(ix->comment ? ix->comment : "");
            }
        }
    } else if (view) { /* a view's row: its type and the comment VIEW, NULL for what only tables have */
        value_t *r = vt_row(v);
        for (uint32_t k = 0; k < v->t->ncols; k++)
            r[k] = value_null();
        r[0] = show_text("def");
        r[1] = show_text(db);
        r[2] = show_text(name);
        r[3] = show_text("VIEW");
        r[3 + 17] = show_text("VIEW"); /* TABLE_COMMENT: status_cols' 18th, after the three leading columns */
    } else {
        value_t *r = vt_row(v);
        r[0] = show_text("def");
        r[1] = show_text(t->db);
        r[2] = show_text("BASE TABLE");
        status_row(v, r + 3, t);
        /* status_row writes the name first: move it to TABLE_NAME's place */
        value_t name = r[3];
        memmove(r + 2, r + 3, sizeof(value_t));
        r[2] = name;
        r[3] = show_text("BASE TABLE");
    }
}

static void is_tables(vt_t *v, bool columns, bool stats)
{
    sql_exec_ctx_t *x = v->x;
    catalog_t *cat = sql_exec_catalog();
    const char **dbs;
    uint32_t ndb;
    catalog_db_list(cat, x->arena, &dbs, &ndb);
    for (uint32_t d = 0; d < ndb; d++) {
        const char **names;
        uint32_t n;
        catalog_table_list(cat, dbs[d], x->arena, &names, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (!XVISIBLE(x, dbs[d], names[i]))
                continue;
            cat_table_t *t = catalog_table_get(cat, dbs[d], names[i]);
            if (!t)
                continue;
            is_table_rows(v, t, dbs[d], names[i], columns, stats, false);
            vt_release(v, t);
        }
        cat_view_t *views;
        uint32_t nv;
        catalog_view_list(cat, x->arena, dbs[d], &views, &nv);
        for (uint32_t i = 0; i < nv; i++) {
            if (!XVISIBLE(x, dbs[d], views[i].name))
                continue;
            /* a view that no longer binds has no columns to show: its error stays out of this statement's */
            diag_t quiet, *keep = x->diag;
            diag_init(&quiet, 4);
            x->diag = &quiet;
            cat_table_t *t = bind_view_table(x, dbs[d], views[i].name, NULL);
            x->diag = keep;
            diag_free(&quiet);
            if (t || (!columns && !stats))
                is_table_rows(v, t, dbs[d], views[i].name, columns, stats, true);
        }
    }
}

/* A row of a session-filled table: text cells, numbers converted for the BIGINT columns. */
static void vt_session_row(void *arg, const char *const *vals)
{
    vt_t *v = arg;
    value_t *r = vt_row(v);
    for (uint32_t i = 0; i < v->t->ncols; i++) {
        if (!vals[i]) {
            r[i] = value_null();
        } else if (v->t->cols[i].rc.type == SQLT_BIGINT) {
            r[i] = show_uint(strtoull(vals[i], NULL, 10));
        } else if (v->t->cols[i].rc.type == SQLT_TIMESTAMP) { /* "YYYY-MM-DD HH:MM:SS" */
            value_t t = {.type = VAL_TIMESTAMP};
            if (sscanf(vals[i], "%u-%u-%u %u:%u:%u", &t.t.year, &t.t.month, &t.t.day, &t.t.hour, &t.t.minute,
                       &t.t.second) != 6)
                memset(&t.t, 0, sizeof t.t);
            r[i] = t;
        } else {
            r[i] = show_text(arena_strdup(v->x->arena, vals[i]));
        }
    }
}

/* ---------------------------------------------------------------- performance_schema */

#define PFS_DIGEST_TABLE "events_statements_summary_by_digest"

/* events_statements_summary_by_digest with MariaDB 10.11's columns (types, NULL-ability, order), then strata's
 * QUANTILE_95 and QUANTILE_99 (MySQL 8's names).  Rows come from the session (monitor/digest.h); the sums'
 * names are monitor/digest.h's DIGEST_SUMS list, the one the session fills them from. */
int exec_perfschema(sql_exec_ctx_t *x, const char *name, query_source_t *s)
{
    if (strcmp(name, PFS_DIGEST_TABLE) != 0)
        return diag_error(x->diag, ER_NO_SUCH_TABLE, "performance_schema", name);
    vt_t v;
    vt_init(&v, x, PFS_DIGEST_TABLE);
    v.t->db = "performance_schema";
    v.t->engine = "PERFORMANCE_SCHEMA";
    vt_col(&v, "SCHEMA_NAME", 64, false, true);
    vt_col(&v, "DIGEST", 32, false, true);
    vt_col(&v, "DIGEST_TEXT", 0, false, true);
    v.t->cols[v.t->ncols - 1].rc.type = SQLT_LONGTEXT;
    v.t->cols[v.t->ncols - 1].rc.len = 4294967295u;
    static const char *const timers[] = {"COUNT_STAR", "SUM_TIMER_WAIT", "MIN_TIMER_WAIT", "AVG_TIMER_WAIT",
                                         "MAX_TIMER_WAIT"};
    for (size_t i = 0; i < ARRAY_LEN(timers); i++)
        vt_col(&v, timers[i], 0, true, false);
#define PFS_SUM_COL(n) vt_col(&v, "SUM_" #n, 0, true, false);
    DIGEST_SUMS(PFS_SUM_COL)
#undef PFS_SUM_COL
    for (int i = 0; i < 2; i++) {
        vt_col(&v, i ? "LAST_SEEN" : "FIRST_SEEN", 0, false, false);
        cat_column_t *c = &v.t->cols[v.t->ncols - 1];
        c->rc.type = SQLT_TIMESTAMP;
        c->rc.coll = COLL_BINARY;
        c->display_width = 19;
    }
    vt_col(&v, "QUANTILE_95", 0, true, false);
    vt_col(&v, "QUANTILE_99", 0, true, false);
    if (x->session_table)
        x->session_table(x->visible_user, PFS_DIGEST_TABLE, vt_session_row, &v);
    s->t = v.t;
    s->is_virtual = true;
    vt_own(&v);
    s->vrows = v.rows;
    s->nvrows = v.n;
    return 0;
}

int exec_perfschema_truncate(sql_exec_ctx_t *x, const char *name)
{
    if (strcmp(name, PFS_DIGEST_TABLE) != 0)
        return diag_error(x->diag, ER_NO_SUCH_TABLE, "performance_schema", name);
    if (x->session_table_truncate)
        x->session_table_truncate(x->visible_user, PFS_DIGEST_TABLE);
    return 0;
}

int exec_infoschema(sql_exec_ctx_t *x, const char *name, query_source_t *s)
{
    vt_t v;
    static const struct { const char *name; const char *cols; const char *num; } sess_tables[] = {
        {"PROCESSLIST", "ID,USER,HOST,DB,COMMAND,TIME,STATE,INFO,TIME_MS,STAGE,MAX_STAGE,PROGRESS,MEMORY_USED,"
                        "MAX_MEMORY_USED,EXAMINED_ROWS,QUERY_ID,INFO_BINARY,TID", "100001000111111101"},
        {"ENGINES", "ENGINE,SUPPORT,COMMENT,TRANSACTIONS,XA,SAVEPOINTS", "000000"},
        {"CHARACTER_SETS", "CHARACTER_SET_NAME,DEFAULT_COLLATE_NAME,DESCRIPTION,MAXLEN", "0001"},
        {"COLLATIONS", "COLLATION_NAME,CHARACTER_SET_NAME,ID,IS_DEFAULT,IS_COMPILED,SORTLEN", "001001"},
        {"COLLATION_CHARACTER_SET_APPLICABILITY", "COLLATION_NAME,CHARACTER_SET_NAME,FULL_COLLATION_NAME,ID,IS_DEFAULT",
         "00010"},
        {"SESSION_VARIABLES", "VARIABLE_NAME,VARIABLE_VALUE", "00"},
        {"GLOBAL_VARIABLES", "VARIABLE_NAME,VARIABLE_VALUE", "00"},
        {"PLUGINS", "PLUGIN_NAME,PLUGIN_VERSION,PLUGIN_STATUS,PLUGIN_TYPE,PLUGIN_TYPE_VERSION,PLUGIN_LIBRARY,"
                    "PLUGIN_LIBRARY_VERSION,PLUGIN_AUTHOR,PLUGIN_DESCRIPTION,PLUGIN_LICENSE,LOAD_OPTION,PLUGIN_MATURITY,"
                    "PLUGIN_AUTH_VERSION", "0000000000000"},
        {"SYSTEM_VARIABLES", "VARIABLE_NAME,SESSION_VALUE,GLOBAL_VALUE,GLOBAL_VALUE_ORIGIN,DEFAULT_VALUE,VARIABLE_SCOPE,"
                             "VARIABLE_TYPE,VARIABLE_COMMENT,NUMERIC_MIN_VALUE,NUMERIC_MAX_VALUE,NUMERIC_BLOCK_SIZE,"
                             "ENUM_VALUE_LIST,READ_ONLY,COMMAND_LINE_ARGUMENT,GLOBAL_VALUE_PATH", "000000000000000"},
        {"SESSION_STATUS", "VARIABLE_NAME,VARIABLE_VALUE", "00"},
        {"GLOBAL_STATUS", "VARIABLE_NAME,VARIABLE_VALUE", "00"},
    };
    for (size_t i = 0; i < ARRAY_LEN(sess_tables); i++) {
        if (strcasecmp(name, sess_tables[i].name) != 0)
            continue;
        vt_init(&v, x, sess_tables[i].name);
        const char *p = sess_tables[i].cols;
        for (int k = 0; *p; k++) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            bool num = sess_tables[i].num[k] == '1';
            vt_col(&v, arena_strndup(x->arena, p, l), num ? 0 : 64, num, true);
            p += l + (e ? 1 : 0);
        }
        if (x->session_table)
            x->session_table(x->visible_user, sess_tables[i].name, vt_session_row, &v);
        s->t = v.t;
        s->is_virtual = true;
        vt_own(&v);
        s->vrows = v.rows;
        s->nvrows = v.n;
        return 0;
    }
    if (strcasecmp(name, "SCHEMATA") == 0) {
        vt_init(&v, x, "SCHEMATA");
        vt_col(&v, "CATALOG_NAME", 512, false, false);
        vt_col(&v, "SCHEMA_NAME", 64, false, false);
        vt_col(&v, "DEFAULT_CHARACTER_SET_NAME", 32, false, false);
        vt_col(&v, "DEFAULT_COLLATION_NAME", 64, false, false);
        vt_col(&v, "SQL_PATH", 512, false, true);
        vt_col(&v, "SCHEMA_COMMENT", 1024, false, false);
        const char **dbs;
        uint32_t n;
        catalog_db_list(sql_exec_catalog(), x->arena, &dbs, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (!XVISIBLE(x, dbs[i], NULL) || !db_listed(dbs[i]))
                continue;
            uint16_t coll = catalog_db_is_virtual(dbs[i]) ? COLL_UTF8MB3_GENERAL_CI : catalog_db_coll(sql_exec_catalog(), dbs[i]);
            value_t *r = vt_row(&v);
            r[0] = show_text("def");
            r[1] = show_text(dbs[i]);
            r[2] = show_text(charset_of(coll));
            r[3] = show_text(value_coll_name(coll));
            r[4] = value_null();
            r[5] = show_text("");
        }
    } else if (strcasecmp(name, "TABLES") == 0) {
        vt_init(&v, x, "TABLES");
        vt_col(&v, "TABLE_CATALOG", 512, false, false);
        vt_col(&v, "TABLE_SCHEMA", 64, false, false);
        vt_col(&v, "TABLE_TYPE", 64, false, false);
        status_cols(&v, true);
        /* order as MariaDB: TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE ... */
        cat_column_t tmp = v.t->cols[2];
        v.t->cols[2] = v.t->cols[3];
        v.t->cols[3] = tmp;
        is_tables(&v, false, false);
    } else if (strcasecmp(name, "VIEWS") == 0) {
        vt_init(&v, x, "VIEWS");
        static const char *const cn[] = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "VIEW_DEFINITION",
                                         "CHECK_OPTION", "IS_UPDATABLE", "DEFINER", "SECURITY_TYPE",
                                         "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION", "ALGORITHM"};
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], i == 3 ? 65535 : 64, false, false);
        cat_view_t *views;
        uint32_t nv;
        catalog_view_list(sql_exec_catalog(), x->arena, NULL, &views, &nv);
        for (uint32_t i = 0; i < nv; i++) {
            if (!XVISIBLE(x, views[i].db, views[i].name))
                continue;
            value_t *r = vt_row(&v);
            r[0] = show_text("def");
            r[1] = show_text(views[i].db);
            r[2] = show_text(views[i].name);
            r[3] = show_text(views[i].text);
            r[4] = show_text(views[i].check_option);
            r[5] = show_text(view_is_updatable(x, &views[i]) ? "YES" : "NO");
            r[6] = show_text(arena_printf(x->arena, "%s@%s", views[i].definer_user, views[i].definer_host));
            r[7] = show_text(views[i].security);
            r[8] = show_text(views[i].client_cs);
            r[9] = show_text(views[i].conn_coll);
            r[10] = show_text(views[i].algorithm);
        }
    } else if (strcasecmp(name, "COLUMNS") == 0) {
        vt_init(&v, x, "COLUMNS");
        static const char *const cn[] = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
                                         "COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH",
                                         "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE",
                                         "DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE",
                                         "COLUMN_KEY", "EXTRA", "PRIVILEGES", "COLUMN_COMMENT", "IS_GENERATED",
                                         "GENERATION_EXPRESSION"};
        static const bool num[] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], 64, num[i], true);
        is_tables(&v, true, false);
    } else if (strcasecmp(name, "STATISTICS") == 0) {
        vt_init(&v, x, "STATISTICS");
        static const char *const cn[] = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "NON_UNIQUE", "INDEX_SCHEMA",
                                         "INDEX_NAME", "SEQ_IN_INDEX", "COLUMN_NAME", "COLLATION", "CARDINALITY",
                                         "SUB_PART", "PACKED", "NULLABLE", "INDEX_TYPE", "COMMENT", "INDEX_COMMENT"};
        static const bool num[] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0};
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], 64, num[i], true);
        is_tables(&v, false, true);
    } else if (strcasecmp(name, "FILES") == 0) {
        /* MariaDB 10.11's 38 columns (its table is empty); rows as MySQL Cluster fills them for disk data:
         * DATAFILE rows per data file, UNDO LOG rows per undo file of a logfile group, in 4-byte "extents"
         * (EXTENT_SIZE 4) with UNDO_BUFFER_SIZE in EXTRA.  Counters are the engine's live ones. */
        vt_init(&v, x, "FILES");
        static const char *const cn[] = {
            "FILE_ID", "FILE_NAME", "FILE_TYPE", "TABLESPACE_NAME", "TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME",
            "LOGFILE_GROUP_NAME", "LOGFILE_GROUP_NUMBER", "ENGINE", "FULLTEXT_KEYS", "DELETED_ROWS", "UPDATE_COUNT",
            "FREE_EXTENTS", "TOTAL_EXTENTS", "EXTENT_SIZE", "INITIAL_SIZE", "MAXIMUM_SIZE", "AUTOEXTEND_SIZE",
            "CREATION_TIME", "LAST_UPDATE_TIME", "LAST_ACCESS_TIME", "RECOVER_TIME", "TRANSACTION_COUNTER", "VERSION",
            "ROW_FORMAT", "TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH",
            "DATA_FREE", "CREATE_TIME", "UPDATE_TIME", "CHECK_TIME", "CHECKSUM", "STATUS", "EXTRA"};
        static const bool num[] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                   0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0};
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], 512, num[i], true);
        engine_file_info_t *f = NULL;
        size_t n = 0;
        if (engine_files(catalog_engine(sql_exec_catalog()), &f, &n) == 0) {
            for (size_t i = 0; i < n; i++) {
                bool undo = strcmp(f[i].file_type, "UNDO LOG") == 0;
                value_t *r = vt_row(&v);
                for (size_t k = 0; k < ARRAY_LEN(cn); k++)
                    r[k] = value_null();
                r[0] = show_uint(undo ? 1000000000ull + f[i].logfile_group_number : (uint64_t)f[i].space_id * 1000 + f[i].file_no);
                r[1] = show_text(arena_strdup(x->arena, f[i].file_name));
                r[2] = show_text(f[i].file_type);
                if (!undo)
                    r[3] = show_text(arena_strdup(x->arena, f[i].tablespace_name));
                r[4] = show_text("def");
                if (f[i].logfile_group_name[0]) /* data files too, as MySQL Cluster: mariadb-dump's USE LOGFILE GROUP */
                    r[7] = show_text(arena_strdup(x->arena, f[i].logfile_group_name));
                if (f[i].logfile_group_number)
                    r[8] = show_uint(f[i].logfile_group_number);
                r[9] = show_text("InnoDB");
                r[13] = show_uint(f[i].free_extents);
                r[14] = show_uint(f[i].total_extents);
                r[15] = show_uint(f[i].extent_size);
                r[16] = show_uint(f[i].initial_size);
                r[17] = f[i].maximum_size ? show_uint(f[i].maximum_size) : value_null();
                r[18] = f[i].autoextend ? show_uint(undo ? 0 : f[i].extent_size) : show_uint(0);
                r[31] = show_uint(undo ? f[i].free_extents * 4 : f[i].free_extents * f[i].extent_size);
                r[36] = show_text(f[i].status ? f[i].status : "NORMAL");
                if (undo)
                    r[37] = show_text(arena_printf(x->arena, "UNDO_BUFFER_SIZE=%llu", (unsigned long long)f[i].undo_buffer_size));
            }
            engine_files_free(f);
        }
    } else if (strcasecmp(name, "PARTITIONS") == 0) {
        /* no partitioning: one row per table, as MariaDB shows unpartitioned tables */
        vt_init(&v, x, "PARTITIONS");
        static const char *const cn[] = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "PARTITION_NAME",
                                         "SUBPARTITION_NAME", "PARTITION_ORDINAL_POSITION", "PARTITION_METHOD",
                                         "PARTITION_EXPRESSION", "TABLE_ROWS", "DATA_LENGTH", "INDEX_LENGTH",
                                         "PARTITION_COMMENT", "NODEGROUP", "TABLESPACE_NAME"};
        static const bool num[] = {0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0};
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], 64, num[i], true);
        catalog_t *cat = sql_exec_catalog();
        const char **dbs;
        uint32_t ndb;
        catalog_db_list(cat, x->arena, &dbs, &ndb);
        for (uint32_t d = 0; d < ndb; d++) {
            const char **names;
            uint32_t n;
            catalog_table_list(cat, dbs[d], x->arena, &names, &n);
            for (uint32_t i = 0; i < n; i++) {
                if (!XVISIBLE(x, dbs[d], names[i])) /* only tables the account may see */
                    continue;
                cat_table_t *t = catalog_table_get(cat, dbs[d], names[i]);
                if (!t)
                    continue;
                value_t *r = vt_row(&v);
                for (size_t k = 0; k < ARRAY_LEN(cn); k++)
                    r[k] = value_null();
                r[0] = show_text("def");
                r[1] = show_text(t->db);
                r[2] = show_text(t->name);
                r[8] = show_uint(0);
                r[9] = show_uint(table_bytes(t, true));
                r[10] = show_uint(table_bytes(t, false));
                r[11] = show_text("");
                r[13] = t->tablespace ? show_text(arena_strdup(x->arena, t->tablespace)) : value_null();
                vt_release(&v, t);
            }
        }
    } else if (strcasecmp(name, "KEY_COLUMN_USAGE") == 0 || strcasecmp(name, "TABLE_CONSTRAINTS") == 0) {
        bool kcu = strcasecmp(name, "KEY_COLUMN_USAGE") == 0;
        vt_init(&v, x, kcu ? "KEY_COLUMN_USAGE" : "TABLE_CONSTRAINTS");
        static const char *const kc[] = {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_CATALOG",
                                         "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
                                         "POSITION_IN_UNIQUE_CONSTRAINT", "REFERENCED_TABLE_SCHEMA",
                                         "REFERENCED_TABLE_NAME", "REFERENCED_COLUMN_NAME"};
        static const char *const tc[] = {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_SCHEMA",
                                         "TABLE_NAME", "CONSTRAINT_TYPE"};
        if (kcu)
            for (size_t i = 0; i < ARRAY_LEN(kc); i++)
                vt_col(&v, kc[i], 64, i == 7 || i == 8, true);
        else
            for (size_t i = 0; i < ARRAY_LEN(tc); i++)
                vt_col(&v, tc[i], 64, false, true);
        catalog_t *cat = sql_exec_catalog();
        const char **dbs;
        uint32_t ndb;
        catalog_db_list(cat, x->arena, &dbs, &ndb);
        for (uint32_t d = 0; d < ndb; d++) {
            const char **names;
            uint32_t n;
            catalog_table_list(cat, dbs[d], x->arena, &names, &n);
            for (uint32_t i = 0; i < n; i++) {
                if (!XVISIBLE(x, dbs[d], names[i])) /* only tables the account may see */
                    continue;
                cat_table_t *t = catalog_table_get(cat, dbs[d], names[i]);
                if (!t)
                    continue;
                for (uint32_t ix = 0; ix < t->nidx; ix++) {
                    const cat_index_t *id = &t->idx[ix];
                    if (id->kind == CAT_IDX_KEY)
                        continue;
                    const char *cname = arena_strdup(x->arena, id->name);
                    if (!kcu) {
                        value_t *r = vt_row(&v);
                        r[0] = show_text("def");
                        r[1] = show_text(t->db);
                        r[2] = show_text(cname);
                        r[3] = show_text(t->db);
                        r[4] = show_text(t->name);
                        r[5] = show_text(id->kind == CAT_IDX_PRIMARY ? "PRIMARY KEY" : "UNIQUE");
                        continue;
                    }
                    for (uint32_t k = 0; k < id->ncols; k++) {
                        value_t *r = vt_row(&v);
                        r[0] = show_text("def");
                        r[1] = show_text(t->db);
                        r[2] = show_text(cname);
                        r[3] = show_text("def");
                        r[4] = show_text(t->db);
                        r[5] = show_text(t->name);
                        r[6] = show_text(arena_strdup(x->arena, t->cols[id->cols[k].col].name));
                        r[7] = show_uint(k + 1);
                        r[8] = r[9] = r[10] = r[11] = value_null();
                    }
                }
                /* CHECK constraints (TABLE_CONSTRAINTS only), then FOREIGN KEYs, as MariaDB lists them */
                for (uint32_t c = 0; c < t->nchecks && !kcu; c++) {
                    value_t *r = vt_row(&v);
                    r[0] = show_text("def");
                    r[1] = show_text(t->db);
                    r[2] = show_text(arena_strdup(x->arena, t->checks[c].name));
                    r[3] = show_text(t->db);
                    r[4] = show_text(t->name);
                    r[5] = show_text("CHECK");
                }
                for (uint32_t f = 0; f < t->nfks; f++) {
                    const cat_fk_t *fk = &t->fks[f];
                    for (uint32_t k = 0; k < (kcu ? fk->ncols : 1); k++) {
                        value_t *r = vt_row(&v);
                        r[0] = show_text("def");
                        r[1] = show_text(t->db);
                        r[2] = show_text(arena_strdup(x->arena, fk->name));
                        if (!kcu) {
                            r[3] = show_text(t->db);
                            r[4] = show_text(t->name);
                            r[5] = show_text("FOREIGN KEY");
                            continue;
                        }
                        r[3] = show_text("def");
                        r[4] = show_text(t->db);
                        r[5] = show_text(t->name);
                        r[6] = show_text(arena_strdup(x->arena, fk->cols[k]));
                        r[7] = show_uint(k + 1);
                        r[8] = show_uint(k + 1);
                        r[9] = show_text(arena_strdup(x->arena, fk->ref_db));
                        r[10] = show_text(arena_strdup(x->arena, fk->ref_table));
                        r[11] = show_text(arena_strdup(x->arena, fk->ref_cols[k]));
                    }
                }
                vt_release(&v, t);
            }
        }
    } else if (strcasecmp(name, "REFERENTIAL_CONSTRAINTS") == 0 || strcasecmp(name, "CHECK_CONSTRAINTS") == 0) {
        bool rcs = strcasecmp(name, "REFERENTIAL_CONSTRAINTS") == 0;
        vt_init(&v, x, rcs ? "REFERENTIAL_CONSTRAINTS" : "CHECK_CONSTRAINTS");
        static const char *const rc_cols[] = {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME",
                                              "UNIQUE_CONSTRAINT_CATALOG", "UNIQUE_CONSTRAINT_SCHEMA",
                                              "UNIQUE_CONSTRAINT_NAME", "MATCH_OPTION", "UPDATE_RULE", "DELETE_RULE",
                                              "TABLE_NAME", "REFERENCED_TABLE_NAME"};
        static const char *const cc_cols[] = {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "TABLE_NAME",
                                              "CONSTRAINT_NAME", "LEVEL", "CHECK_CLAUSE"};
        static const char *const rules[] = {"RESTRICT", "CASCADE", "SET NULL", "NO ACTION"};
        if (rcs)
            for (size_t i = 0; i < ARRAY_LEN(rc_cols); i++)
                vt_col(&v, rc_cols[i], 64, false, i == 5);
        else
            for (size_t i = 0; i < ARRAY_LEN(cc_cols); i++)
                vt_col(&v, cc_cols[i], i == 5 ? 2048 : 64, false, false);
        catalog_t *cat = sql_exec_catalog();
        const char **dbs;
        uint32_t ndb;
        catalog_db_list(cat, x->arena, &dbs, &ndb);
        for (uint32_t d = 0; d < ndb; d++) {
            const char **names;
            uint32_t n;
            catalog_table_list(cat, dbs[d], x->arena, &names, &n);
            for (uint32_t i = 0; i < n; i++) {
                if (!XVISIBLE(x, dbs[d], names[i]))
                    continue;
                cat_table_t *t = catalog_table_get(cat, dbs[d], names[i]);
                if (!t)
                    continue;
                for (uint32_t c = 0; c < t->nchecks && !rcs; c++) {
                    value_t *r = vt_row(&v);
                    r[0] = show_text("def");
                    r[1] = show_text(dbs[d]);
                    r[2] = show_text(names[i]);
                    r[3] = show_text(arena_strdup(x->arena, t->checks[c].name));
                    r[4] = show_text(t->checks[c].column ? "Column" : "Table");
                    r[5] = show_text(arena_strdup(x->arena, t->checks[c].expr));
                }
                for (uint32_t f = 0; f < t->nfks && rcs; f++) {
                    const cat_fk_t *fk = &t->fks[f];
                    cat_table_t *p = catalog_table_get(cat, fk->ref_db, fk->ref_table);
                    int pix = p ? fk_index_on(p, fk->ref_cols, fk->ncols) : -1;
                    value_t *r = vt_row(&v);
                    r[0] = show_text("def");
                    r[1] = show_text(dbs[d]);
                    r[2] = show_text(arena_strdup(x->arena, fk->name));
                    r[3] = show_text("def");
                    r[4] = show_text(arena_strdup(x->arena, fk->ref_db));
                    r[5] = pix >= 0 ? show_text(arena_strdup(x->arena, p->idx[pix].name)) : value_null();
                    r[6] = show_text("NONE");
                    r[7] = show_text(rules[fk->on_update]);
                    r[8] = show_text(rules[fk->on_delete]);
                    r[9] = show_text(names[i]);
                    r[10] = show_text(arena_strdup(x->arena, fk->ref_table));
                    if (p)
                        catalog_table_release(p);
                }
                vt_release(&v, t);
            }
        }
    } else if (strcasecmp(name, "PARAMETERS") == 0) {
        static const char *const cn[] = {"SPECIFIC_CATALOG", "SPECIFIC_SCHEMA", "SPECIFIC_NAME", "ORDINAL_POSITION",
                                         "PARAMETER_MODE", "PARAMETER_NAME", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH",
                                         "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE",
                                         "DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME",
                                         "DTD_IDENTIFIER", "ROUTINE_TYPE"};
        vt_init(&v, x, "PARAMETERS");
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], 64, i == 3 || (i >= 7 && i <= 11), true);
        cat_routine_t *rs;
        uint32_t nr = 0;
        catalog_routine_list(sql_exec_catalog(), x->arena, NULL, &rs, &nr);
        for (uint32_t i = 0; i < nr; i++) {
            const cat_routine_t *rt = &rs[i];
            if (!XVISIBLE(x, rt->db, NULL))
                continue;
            sql_routine_stmt_t *hd = routine_header(x, rt);
            if (!hd)
                continue;
            bool fn = strcmp(rt->type, "FUNCTION") == 0;
            uint16_t dbc = catalog_db_coll(sql_exec_catalog(), rt->db);
            for (uint32_t k = fn ? 0 : 1; k <= hd->nparams; k++) {
                routine_type_facts_t tf;
                const sql_type_t *ty = k ? &hd->params[k - 1].type : &hd->returns;
                if (routine_type_facts(x, ty, dbc, &tf)) {
                    diag_clear(x->diag);
                    continue;
                }
                value_t *r = vt_row(&v);
                r[0] = show_text("def");
                r[1] = show_text(rt->db);
                r[2] = show_text(rt->name);
                r[3] = show_uint(k);
                static const char *const modes[] = {"IN", "OUT", "INOUT"};
                r[4] = k ? show_text(modes[hd->params[k - 1].mode]) : value_null();
                r[5] = k ? show_text(hd->params[k - 1].name) : value_null();
                type_fact_cols(r + 6, &tf);
                r[15] = show_text(rt->type);
            }
        }
    } else if (strcasecmp(name, "TRIGGERS") == 0) {
        /* triggers (access/trigger.h): MariaDB 10.11's columns */
        static const char *const cn[] = {"TRIGGER_CATALOG", "TRIGGER_SCHEMA", "TRIGGER_NAME", "EVENT_MANIPULATION",
                                         "EVENT_OBJECT_CATALOG", "EVENT_OBJECT_SCHEMA", "EVENT_OBJECT_TABLE",
                                         "ACTION_ORDER", "ACTION_CONDITION", "ACTION_STATEMENT",
                                         "ACTION_ORIENTATION", "ACTION_TIMING", "ACTION_REFERENCE_OLD_TABLE",
                                         "ACTION_REFERENCE_NEW_TABLE", "ACTION_REFERENCE_OLD_ROW",
                                         "ACTION_REFERENCE_NEW_ROW", "CREATED", "SQL_MODE", "DEFINER",
                                         "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION", "DATABASE_COLLATION"};
        vt_init(&v, x, "TRIGGERS");
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], i == 9 ? 65535 : 64, i == 7, true);
        cat_trigger_t *ts;
        uint32_t nt = 0;
        catalog_trigger_list(sql_exec_catalog(), x->arena, NULL, NULL, &ts, &nt);
        for (uint32_t i = 0; i < nt; i++) {
            const cat_trigger_t *tr = &ts[i];
            if (!XTRIGGER_VISIBLE(x, tr->db, tr->table) || !trigger_table_exists(tr->db, tr->table))
                continue;
            value_t *r = vt_row(&v);
            r[0] = show_text("def");
            r[1] = show_text(tr->db);
            r[2] = show_text(tr->name);
            r[3] = show_text(tr->event);
            r[4] = show_text("def");
            r[5] = show_text(tr->db);
            r[6] = show_text(tr->table);
            r[7] = value_int(atoi(tr->order));
            r[8] = value_null();
            r[9] = show_text(tr->body);
            r[10] = show_text("ROW");
            r[11] = show_text(tr->timing);
            r[12] = value_null();
            r[13] = value_null();
            r[14] = show_text("OLD");
            r[15] = show_text("NEW");
            r[16] = show_text(tr->created);
            r[17] = show_text(tr->sql_mode);
            r[18] = show_text(arena_printf(x->arena, "%s@%s", tr->definer_user, tr->definer_host));
            r[19] = show_text(tr->client_cs);
            r[20] = show_text(tr->conn_coll);
            r[21] = show_text(tr->db_coll);
        }
    } else if (strcasecmp(name, "EVENTS") == 0) {
        /* events (access/event.h): MariaDB 10.11's columns; the times in each event's time zone */
        static const char *const cn[] = {"EVENT_CATALOG", "EVENT_SCHEMA", "EVENT_NAME", "DEFINER", "TIME_ZONE",
                                         "EVENT_BODY", "EVENT_DEFINITION", "EVENT_TYPE", "EXECUTE_AT",
                                         "INTERVAL_VALUE", "INTERVAL_FIELD", "SQL_MODE", "STARTS", "ENDS", "STATUS",
                                         "ON_COMPLETION", "CREATED", "LAST_ALTERED", "LAST_EXECUTED",
                                         "EVENT_COMMENT", "ORIGINATOR", "CHARACTER_SET_CLIENT",
                                         "COLLATION_CONNECTION", "DATABASE_COLLATION"};
        vt_init(&v, x, "EVENTS");
        for (size_t i = 0; i < ARRAY_LEN(cn); i++) {
            vt_col(&v, cn[i], i == 6 ? 65535 : 64, i == 20, i == 8 || i == 9 || i == 10 || i == 12 || i == 13 || i == 18);
            if (i == 8 || i == 12 || i == 13 || i == 16 || i == 17 || i == 18)
                vt_datetime(&v);
        }
        cat_event_t *es;
        uint32_t ne = 0;
        catalog_event_list(sql_exec_catalog(), x->arena, NULL, &es, &ne);
        for (uint32_t i = 0; i < ne; i++) {
            const cat_event_t *e = &es[i];
            if (x->event_visible && !x->event_visible(x->visible_user, e->db))
                continue;
            value_t sr[15];
            event_row(x, e, sr);
            value_t *r = vt_row(&v);
            r[0] = show_text("def");
            r[1] = sr[0];
            r[2] = sr[1];
            r[3] = sr[2];
            r[4] = sr[3];
            r[5] = show_text("SQL");
            r[6] = show_text(e->body);
            r[7] = sr[4];
            r[8] = sr[5];
            r[9] = sr[6];
            r[10] = sr[7];
            r[11] = show_text(e->sql_mode);
            r[12] = sr[8];
            r[13] = sr[9];
            r[14] = sr[10];
            r[15] = show_text(e->preserve ? "PRESERVE" : "NOT PRESERVE");
            r[16] = show_text(event_time_text(x->arena, e->time_zone, e->created));
            r[17] = show_text(event_time_text(x->arena, e->time_zone, e->last_altered));
            r[18] = e->last_executed == CAT_EVENT_NEVER ? value_null()
                                                        : show_text(event_time_text(x->arena, e->time_zone, e->last_executed));
            r[19] = show_text(e->comment);
            r[20] = sr[11];
            r[21] = sr[12];
            r[22] = sr[13];
            r[23] = sr[14];
        }
    } else if (strcasecmp(name, "ROUTINES") == 0) {
        /* stored procedures and functions (access/routine.h): MariaDB 10.11's columns */
        static const char *const cn[] = {"SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME",
                                         "ROUTINE_TYPE", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH",
                                         "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE",
                                         "DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME",
                                         "DTD_IDENTIFIER", "ROUTINE_BODY", "ROUTINE_DEFINITION", "EXTERNAL_NAME",
                                         "EXTERNAL_LANGUAGE", "PARAMETER_STYLE", "IS_DETERMINISTIC",
                                         "SQL_DATA_ACCESS", "SQL_PATH", "SECURITY_TYPE", "CREATED", "LAST_ALTERED",
                                         "SQL_MODE", "ROUTINE_COMMENT", "DEFINER", "CHARACTER_SET_CLIENT",
                                         "COLLATION_CONNECTION", "DATABASE_COLLATION"};
        vt_init(&v, x, "ROUTINES");
        for (size_t i = 0; i < ARRAY_LEN(cn); i++)
            vt_col(&v, cn[i], i == 15 ? 65535 : 64, i >= 6 && i <= 10, true);
        cat_routine_t *rs;
        uint32_t nr = 0;
        catalog_routine_list(sql_exec_catalog(), x->arena, NULL, &rs, &nr);
        for (uint32_t i = 0; i < nr; i++) {
            const cat_routine_t *rt = &rs[i];
            if (!XVISIBLE(x, rt->db, NULL))
                continue;
            value_t *r = vt_row(&v);
            for (size_t k = 0; k < ARRAY_LEN(cn); k++)
                r[k] = value_null();
            bool fn = strcmp(rt->type, "FUNCTION") == 0;
            r[0] = show_text(rt->name);
            r[1] = show_text("def");
            r[2] = show_text(rt->db);
            r[3] = show_text(rt->name);
            r[4] = show_text(rt->type);
            r[5] = show_text("");
            sql_routine_stmt_t *hd = fn ? routine_header(x, rt) : NULL;
            routine_type_facts_t tf;
            if (hd && routine_type_facts(x, &hd->returns, catalog_db_coll(sql_exec_catalog(), rt->db), &tf) == 0)
                type_fact_cols(r + 5, &tf);
            diag_clear(x->diag);
            r[14] = show_text("SQL");
            r[15] = show_text(rt->body);
            r[18] = show_text("SQL");
            r[19] = show_text(rt->deterministic);
            r[20] = show_text(rt->data_access);
            r[22] = show_text(rt->security);
            r[23] = show_text(rt->created);
            r[24] = show_text(rt->modified);
            r[25] = show_text(rt->sql_mode);
            r[26] = show_text(rt->comment);
            r[27] = show_text(arena_printf(x->arena, "%s@%s", rt->definer_user, rt->definer_host));
            r[28] = show_text(rt->client_cs);
            r[29] = show_text(rt->conn_coll);
            r[30] = show_text(rt->db_coll);
        }
    } else {
        /* schemas of objects strata does not have yet: the columns tools select, no rows */
        static const struct { const char *name; const char *cols; } empty[] = {
            {"ROUTINES", "SPECIFIC_NAME,ROUTINE_CATALOG,ROUTINE_SCHEMA,ROUTINE_NAME,ROUTINE_TYPE,DATA_TYPE,"
                         "ROUTINE_BODY,ROUTINE_DEFINITION,EXTERNAL_NAME,EXTERNAL_LANGUAGE,PARAMETER_STYLE,"
                         "IS_DETERMINISTIC,SQL_DATA_ACCESS,SQL_PATH,SECURITY_TYPE,CREATED,LAST_ALTERED,SQL_MODE,"
                         "ROUTINE_COMMENT,DEFINER,CHARACTER_SET_CLIENT,COLLATION_CONNECTION,DATABASE_COLLATION"},
        };
        size_t i = 0;
        while (i < ARRAY_LEN(empty) && strcasecmp(empty[i].name, name) != 0)
            i++;
        if (i == ARRAY_LEN(empty))
            return diag_error(x->diag, ER_UNKNOWN_TABLE, name, "information_schema");
        vt_init(&v, x, empty[i].name);
        const char *p = empty[i].cols;
        while (*p) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            vt_col(&v, arena_strndup(x->arena, p, l), 64, false, true);
            p += l + (e ? 1 : 0);
        }
    }
    s->t = v.t;
    s->is_virtual = true;
    vt_own(&v);
    s->vrows = v.rows;
    s->nvrows = v.n;
    return 0;
}
