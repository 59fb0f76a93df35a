/*
 * CREATE / DROP PROCEDURE and FUNCTION, and the texts MariaDB prints for a routine.  A routine is kept as text
 * (access/routine.h): its parameter list and body as written, its RETURNS type as SHOW CREATE prints it, its
 * characteristics; the session's interpreter (session/sp_exec.c) parses the body again at every call, so
 * nothing bound outlives a statement.  CREATE checks what MariaDB checks then: the database exists (1049), the
 * name is free unless OR REPLACE (1304, a note with IF NOT EXISTS), a FUNCTION has a RETURN (1320); the body
 * parsed already when the statement was (1064, 1327, 1337 ...).
 */
#include <string.h>
#include <strings.h>
#include <time.h>
#include "access/routine.h"
#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "sql/value/value.h"
#include "util/util.h"

/* The type as MariaDB prints a RETURNS clause: the column type, then CHARSET / COLLATE when one was given. */
static const char *returns_text(sql_exec_ctx_t *x, const sql_type_t *ty, uint16_t db_coll)
{
    cat_table_t t = {.coll = db_coll};
    sql_column_def_t cd = {.name = "", .type = *ty};
    cat_column_t c;
    if (col_from_def(x, &t, &cd, &c))
        return NULL;
    const char *s = type_text(x->arena, &c);
    sqlt_t st = (sqlt_t)c.rc.type;
    if ((ty->charset || ty->collation) && (sqlt_is_string(st) || st == SQLT_ENUM || st == SQLT_SET) && c.rc.coll != COLL_BINARY)
        s = arena_printf(x->arena, "%s CHARSET %s COLLATE %s", s, value_coll_charset(c.rc.coll), value_coll_name(c.rc.coll));
    return s;
}

const char *routine_create_text(arena_t *a, const cat_routine_t *r, char q)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "CREATE DEFINER=");
    exec_ident_quote(&b, r->definer_user, q);
    if (r->definer_host && r->definer_host[0]) {
        buf_append_byte(&b, '@');
        exec_ident_quote(&b, r->definer_host, q);
    }
    buf_printf(&b, " %s ", r->type);
    exec_ident_quote(&b, r->name, q);
    buf_printf(&b, "(%s)", r->params);
    if (strcmp(r->type, "FUNCTION") == 0)
        buf_printf(&b, " RETURNS %s", r->returns);
    buf_append_byte(&b, '\n');
    if (strcmp(r->data_access, "CONTAINS SQL") != 0)
        buf_printf(&b, "    %s\n", r->data_access);
    if (strcmp(r->deterministic, "YES") == 0)
        buf_append_str(&b, "    DETERMINISTIC\n");
    if (strcmp(r->security, "INVOKER") == 0)
        buf_append_str(&b, "    SQL SECURITY INVOKER\n");
    if (r->comment && r->comment[0]) {
        buf_append_str(&b, "    COMMENT '");
        for (const char *s = r->comment; *s; s++) {
            if (*s == '\'' || *s == '\\')
                buf_append_byte(&b, (uint8_t)*s);
            buf_append_byte(&b, (uint8_t)*s);
        }
        buf_append_str(&b, "'\n");
    }
    buf_append_str(&b, r->body);
    const char *t = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return t;
}

/* The record CREATE would write (also what the binlog's text is made from). */
static int routine_record(sql_exec_ctx_t *x, const sql_stmt_t *st, const char *db, cat_routine_t *out)
{
    const sql_routine_stmt_t *r = st->routine;
    memset(out, 0, sizeof *out);
    unsigned line = 1;
    for (const char *q = st->src; st->src && q < r->body_src; q++)
        line += *q == '\n';
    out->body_line = arena_printf(x->arena, "%u", line);
    out->db = db;
    out->name = r->name.name;
    out->type = r->is_function ? "FUNCTION" : "PROCEDURE";
    bool own = !r->has_definer || r->definer.current;
    out->definer_user = own ? (x->user ? x->user : "") : r->definer.user;
    out->definer_host = own ? (x->host ? x->host : "") : r->definer.host;
    out->params = arena_strndup(x->arena, r->params_src, r->params_len);
    uint16_t dbc = catalog_db_coll(exec_cat, db);
    out->returns = "";
    if (r->is_function) {
        out->returns = returns_text(x, &r->returns, dbc);
        if (!out->returns)
            return -x->diag->error_code;
    }
    out->body = arena_strndup(x->arena, r->body_src, r->body_len);
    out->deterministic = r->deterministic ? "YES" : "NO";
    out->data_access = r->data_access ? r->data_access : "CONTAINS SQL";
    out->security = r->security ? r->security : "DEFINER";
    out->comment = r->comment ? r->comment : "";
    out->sql_mode = x->sql_mode_text ? x->sql_mode_text : "";
    time_t tt = (time_t)(time_wall_us() / 1000000);
    struct tm tm;
    localtime_r(&tt, &tm);
    char *ct = arena_alloc(x->arena, 32);
    strftime(ct, 32, "%Y-%m-%d %H:%M:%S", &tm);
    out->created = out->modified = ct;
    uint16_t cc = x->conn_coll ? x->conn_coll : COLL_DEFAULT;
    out->client_cs = value_coll_charset(cc);
    out->conn_coll = value_coll_name(cc);
    out->db_coll = value_coll_name(dbc);
    return 0;
}

int exec_create_routine(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_routine_stmt_t *r = st->routine;
    const char *db = exec_db_name(x, r->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    if (catalog_db_is_virtual(db))
        return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
    if (!catalog_db_exists(exec_cat, db))
        return diag_error(x->diag, ER_BAD_DB_ERROR, db);
    if (r->is_function && !r->body->has_return)
        return diag_error(x->diag, ER_SP_NORETURN, arena_printf(x->arena, "%s.%s", db, r->name.name));
    const char *type = r->is_function ? "FUNCTION" : "PROCEDURE";
    cat_routine_t old;
    int ex = catalog_routine_get(exec_cat, x->arena, type, db, r->name.name, &old);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (ex && !r->or_replace) {
        if (r->if_not_exists) {
            diag_note(x->diag, ER_SP_ALREADY_EXISTS, type, r->name.name);
            exec_pend_ok(x, 0, NULL);
            return 0;
        }
        return diag_error(x->diag, ER_SP_ALREADY_EXISTS, type, r->name.name);
    }
    cat_routine_t nr;
    int rc = routine_record(x, st, db, &nr);
    if (rc)
        return rc;
    if (ex)
        nr.created = old.created;
    if (catalog_routine_put(exec_cat, &nr) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    exec_pend_ok(x, 0, NULL);
    return 0;
}

const char *routine_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_routine_stmt_t *r = st->routine;
    const char *db = exec_db_name(x, r->name.db);
    cat_routine_t nr;
    if (!db || routine_record(x, st, db, &nr))
        return NULL;
    const char *t = routine_create_text(x->arena, &nr, '`');
    /* CREATE OR REPLACE / IF NOT EXISTS are logged as written (MariaDB keeps them in the query) */
    if (r->or_replace)
        t = arena_printf(x->arena, "CREATE OR REPLACE %s", t + 7);
    else if (r->if_not_exists) {
        const char *kw = r->is_function ? " FUNCTION " : " PROCEDURE ";
        const char *at = strstr(t, kw);
        if (at) {
            size_t pre = (size_t)(at - t) + strlen(kw);
            t = arena_printf(x->arena, "%.*sIF NOT EXISTS %s", (int)pre, t, t + pre);
        }
    }
    return t;
}

int exec_drop_routine(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_routine_stmt_t *r = st->routine;
    const char *db = exec_db_name(x, r->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    const char *type = r->is_function ? "FUNCTION" : "PROCEDURE";
    int d = catalog_routine_delete(exec_cat, type, db, r->name.name);
    if (d == STRATA_ENOTFOUND) {
        const char *what = arena_printf(x->arena, "%s.%s", db, r->name.name);
        if (!r->if_exists)
            return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, type, what);
        diag_note(x->diag, ER_SP_DOES_NOT_EXIST, type, what);
    } else if (d) {
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    }
    exec_pend_ok(x, 0, NULL);
    return 0;
}

/* ALTER PROCEDURE | FUNCTION: the characteristics given replace the record's; LAST_ALTERED moves. */
int exec_alter_routine(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_routine_stmt_t *r = st->routine;
    const char *db = exec_db_name(x, r->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    const char *type = r->is_function ? "FUNCTION" : "PROCEDURE";
    cat_routine_t cur;
    int ex = catalog_routine_get(exec_cat, x->arena, type, db, r->name.name, &cur);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (!ex)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, type, arena_printf(x->arena, "%s.%s", db, r->name.name));
    if (r->comment)
        cur.comment = r->comment;
    if (r->security)
        cur.security = r->security;
    if (r->data_access_set)
        cur.data_access = r->data_access;
    time_t tt = (time_t)(time_wall_us() / 1000000);
    struct tm tm;
    localtime_r(&tt, &tm);
    char *ct = arena_alloc(x->arena, 32);
    strftime(ct, 32, "%Y-%m-%d %H:%M:%S", &tm);
    cur.modified = ct;
    if (catalog_routine_put(exec_cat, &cur) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    exec_pend_ok(x, 0, NULL);
    return 0;
}

/* ---------------------------------------------------------------- information_schema's type columns */

int routine_type_facts(sql_exec_ctx_t *x, const sql_type_t *ty, uint16_t db_coll, routine_type_facts_t *out)
{
    memset(out, 0, sizeof *out);
    out->char_max = out->char_octet = out->num_prec = out->num_scale = out->dt_prec = -1;
    cat_table_t t = {.coll = db_coll};
    sql_column_def_t cd = {.name = "", .type = *ty};
    cat_column_t c;
    if (col_from_def(x, &t, &cd, &c))
        return -x->diag->error_code;
    sqlt_t st = (sqlt_t)c.rc.type;
    out->data_type = sqlt_name(st);
    out->dtd = type_text(x->arena, &c);
    if (sqlt_is_int(st)) {
        static const int prec[] = {3, 5, 7, 10, 19};
        out->num_prec = prec[st - SQLT_TINYINT] + (st == SQLT_BIGINT && c.rc.is_unsigned);
        out->num_scale = 0;
    } else if (st == SQLT_DECIMAL) {
        out->num_prec = c.rc.len;
        out->num_scale = c.rc.scale;
    } else if (st == SQLT_FLOAT || st == SQLT_DOUBLE) {
        out->num_prec = c.rc.len ? c.rc.len : st == SQLT_FLOAT ? 12 : 22;
        if (c.rc.len)
            out->num_scale = c.rc.scale;
    } else if (st == SQLT_BIT) {
        out->num_prec = c.rc.len;
    } else if (st == SQLT_DATETIME || st == SQLT_TIMESTAMP || st == SQLT_TIME) {
        out->dt_prec = c.rc.scale;
    } else if (st == SQLT_DATE) {
        out->dt_prec = -1;
    }
    if (sqlt_is_string(st) || st == SQLT_ENUM || st == SQLT_SET) {
        uint32_t mb = c.rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(c.rc.coll);
        int64_t n = c.rc.len;
        switch (st) {
        case SQLT_TINYTEXT: case SQLT_TINYBLOB: n = 255; break;
        case SQLT_TEXT: case SQLT_BLOB: n = 65535; break;
        case SQLT_MEDIUMTEXT: case SQLT_MEDIUMBLOB: n = 16777215; break;
        case SQLT_LONGTEXT: case SQLT_LONGBLOB: n = 4294967295LL; break;
        default: break;
        }
        bool blob = st == SQLT_TINYTEXT || st == SQLT_TEXT || st == SQLT_MEDIUMTEXT || st == SQLT_LONGTEXT ||
                    st == SQLT_TINYBLOB || st == SQLT_BLOB || st == SQLT_MEDIUMBLOB || st == SQLT_LONGBLOB;
        if (st == SQLT_ENUM || st == SQLT_SET) { /* the longest member, or all of them with their commas */
            n = 0;
            for (uint32_t i = 0; i < c.nelems; i++) {
                int64_t l = 0; /* characters of the UTF-8 text */
                for (const char *q = c.elems[i]; *q; q++)
                    l += ((unsigned char)*q & 0xC0) != 0x80;
                n = st == SQLT_SET ? n + l + (i > 0) : MAX(n, l);
            }
        }
        out->char_max = n;
        out->char_octet = blob ? n : n * (mb ? mb : 1);
        if (c.rc.coll != COLL_BINARY) {
            out->cs = value_coll_charset(c.rc.coll);
            out->coll = value_coll_name(c.rc.coll);
        }
    }
    return 0;
}

sql_routine_stmt_t *routine_header(sql_exec_ctx_t *x, const cat_routine_t *r)
{
    bool fn = strcmp(r->type, "FUNCTION") == 0;
    const char *text = fn ? arena_printf(x->arena, "CREATE FUNCTION x(%s) RETURNS %s RETURN NULL", r->params, r->returns)
                          : arena_printf(x->arena, "CREATE PROCEDURE x(%s) BEGIN END", r->params);
    sql_stmt_list_t l;
    diag_t d;
    diag_init(&d, 2);
    int rc = sql_parse(x->arena, text, strlen(text), &l, &d);
    diag_free(&d);
    return rc || l.n != 1 ? NULL : l.stmts[0]->routine;
}
