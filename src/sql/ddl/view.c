/*
 * CREATE VIEW and DROP VIEW.  A view is its SELECT's text, kept in the catalog (access/view.h) with the column
 * names it had when created; every statement that names it parses that text again and reads it as a derived
 * table in the view's database (bind/from.c), so nothing bound is ever kept.  Checked at creation as MariaDB
 * does: the name is neither a table (1050) nor, without OR REPLACE, a view; the SELECT binds (1054, 1146 ...);
 * column lists match (1353) and names are unique (1060).
 */
#include <string.h>
#include <strings.h>
#include "access/view.h"
#include "sql/bind/view.h"
#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "sql/value/value.h"
#include "util/util.h"

int exec_create_view(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_view_stmt_t *v = st->view;
    const char *db = exec_db_name(x, v->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    if (catalog_db_is_virtual(db))
        return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
    if (!catalog_db_exists(exec_cat, db))
        return diag_error(x->diag, ER_BAD_DB_ERROR, db);
    cat_table_t *t = catalog_table_get(exec_cat, db, v->name.name);
    if (t) {
        catalog_table_release(t);
        return diag_error(x->diag, ER_TABLE_EXISTS_ERROR, v->name.name);
    }
    cat_view_t old;
    int ex = catalog_view_get(exec_cat, x->arena, db, v->name.name, &old);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (ex && !v->or_replace) {
        if (v->if_not_exists) {
            diag_note(x->diag, ER_TABLE_EXISTS_ERROR, v->name.name);
            exec_pend_ok(x, 0, NULL);
            return 0;
        }
        return diag_error(x->diag, ER_TABLE_EXISTS_ERROR, v->name.name);
    }
    /* the SELECT must bind where the view lives */
    const char *cur = x->db;
    x->db = db;
    res_col_t *cols;
    int ncols;
    int rc = exec_select_describe(x, v->select, &cols, &ncols);
    x->db = cur;
    if (rc)
        return rc;
    if (v->ncols && v->ncols != (uint32_t)ncols)
        return diag_error(x->diag, ER_VIEW_WRONG_LIST);
    cat_view_t nv = {.db = db, .name = v->name.name};
    nv.cols = arena_alloc(x->arena, sizeof(char *) * ((size_t)ncols + 1));
    nv.ncols = (uint32_t)ncols;
    for (int i = 0; i < ncols; i++) {
        nv.cols[i] = v->ncols ? v->cols[i] : cols[i].name;
        for (int k = 0; k < i; k++)
            if (strcasecmp(nv.cols[k], nv.cols[i]) == 0)
                return diag_error(x->diag, ER_DUP_FIELDNAME, nv.cols[i]);
    }
    bool own = !v->has_definer || v->definer.current;
    nv.definer_user = own ? (x->user ? x->user : "") : v->definer.user;
    nv.definer_host = own ? (x->host ? x->host : "") : v->definer.host;
    nv.security = v->security ? v->security : "DEFINER";
    nv.algorithm = v->algorithm ? v->algorithm : "UNDEFINED";
    nv.check_option = v->check_option ? v->check_option : "NONE";
    nv.text = arena_strndup(x->arena, v->select_src, v->select_src_len);
    uint16_t cc = x->conn_coll ? x->conn_coll : COLL_DEFAULT;
    nv.client_cs = value_coll_charset(cc);
    nv.conn_coll = value_coll_name(cc);
    if (strcmp(nv.algorithm, "MERGE") == 0 && !view_select_mergeable(v->select)) {
        diag_push(x->diag, DIAG_WARNING, ER_WARN_VIEW_MERGE); /* MariaDB keeps it as UNDEFINED */
        nv.algorithm = "UNDEFINED";
    }
    if (strcmp(nv.check_option, "NONE") != 0) {
        view_merge_t vm;
        if ((rc = view_merge_def(x, &nv, &vm)) < 0)
            return rc;
        if (!vm.checkable)
            return diag_error(x->diag, ER_VIEW_NONUPD_CHECK, db, nv.name);
    }
    if (catalog_view_put(exec_cat, &nv) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    exec_pend_ok(x, 0, NULL);
    return 0;
}

int exec_view_rename(sql_exec_ctx_t *x, const char *db, const char *from, const char *ndb, const char *to)
{
    cat_view_t v, other;
    int r = catalog_view_get(exec_cat, x->arena, db, from, &v);
    if (r < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (r == 0)
        return 1;
    if (strcmp(db, ndb) != 0)
        return diag_error(x->diag, ER_FORBID_SCHEMA_CHANGE, db, ndb);
    cat_table_t *t = catalog_table_get(exec_cat, ndb, to);
    if (t)
        catalog_table_release(t);
    if (t || catalog_view_get(exec_cat, x->arena, ndb, to, &other) != 0)
        return diag_error(x->diag, ER_TABLE_EXISTS_ERROR, to);
    /* the new name first: a crash between the two commits leaves both names, never neither */
    v.name = to;
    if (catalog_view_put(exec_cat, &v) != 0 || catalog_view_delete(exec_cat, db, from) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    return 0;
}

const char *view_log_text(sql_exec_ctx_t *x, const sql_view_stmt_t *v)
{
    bool own = !v->has_definer || v->definer.current;
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "CREATE %sALGORITHM=%s DEFINER=", v->or_replace ? "OR REPLACE " : "",
               v->algorithm ? v->algorithm : "UNDEFINED");
    exec_ident_quote(&b, own ? (x->user ? x->user : "") : v->definer.user, '`');
    buf_append_byte(&b, '@');
    exec_ident_quote(&b, own ? (x->host ? x->host : "") : v->definer.host, '`');
    buf_printf(&b, " SQL SECURITY %s VIEW %s", v->security ? v->security : "DEFINER", v->if_not_exists ? "IF NOT EXISTS " : "");
    if (v->name.db) {
        exec_ident_quote(&b, v->name.db, '`');
        buf_append_byte(&b, '.');
    }
    exec_ident_quote(&b, v->name.name, '`');
    if (v->ncols) {
        buf_append(&b, " (", 2);
        for (uint32_t i = 0; i < v->ncols; i++) {
            if (i)
                buf_append_byte(&b, ',');
            exec_ident_quote(&b, v->cols[i], '`');
        }
        buf_append_byte(&b, ')');
    }
    buf_printf(&b, " AS %.*s", (int)v->select_src_len, v->select_src);
    if (v->check_option)
        buf_printf(&b, " WITH %s CHECK OPTION", v->check_option);
    const char *t = arena_strndup(x->arena, (const char *)b.data, b.len);
    buf_free(&b);
    return t;
}

int exec_drop_view(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_table_list_t *tl = &st->tables;
    buf_t missing;
    buf_init(&missing);
    int rc = 0;
    for (uint32_t i = 0; i < tl->n && !rc; i++) {
        const char *db = exec_db_name(x, tl->tables[i].db);
        if (!db) {
            rc = -ER_NO_DB_ERROR;
            break;
        }
        int d = catalog_view_delete(exec_cat, db, tl->tables[i].name);
        if (d == STRATA_ENOTFOUND) {
            cat_table_t *t = catalog_table_get(exec_cat, db, tl->tables[i].name);
            if (t) { /* MariaDB: a table named is a warning on its own, then part of the 4092 */
                catalog_table_release(t);
                diag_warn(x->diag, ER_WRONG_OBJECT, db, tl->tables[i].name, "VIEW");
            }
            if (missing.len)
                buf_append_byte(&missing, ',');
            buf_printf(&missing, "%s.%s", db, tl->tables[i].name);
        } else if (d) {
            rc = diag_error(x->diag, ER_UNKNOWN_ERROR);
        }
    }
    if (!rc && missing.len) {
        buf_append_byte(&missing, 0);
        if (tl->if_exists)
            diag_note(x->diag, ER_UNKNOWN_VIEW, (const char *)missing.data);
        else
            rc = diag_error(x->diag, ER_UNKNOWN_VIEW, (const char *)missing.data);
    }
    buf_free(&missing);
    if (!rc)
        exec_pend_ok(x, 0, NULL);
    return rc;
}
