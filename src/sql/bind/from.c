/*
 * The binder: FROM sources (base tables with their catalog references, derived tables, information_schema and
 * performance_schema tables as rows, JOIN ... ON / USING / NATURAL) resolved into the query, and every column
 * reference of an expression bound to a slot of the combined row (1054 unknown, 1052 ambiguous); aggregates
 * collected where allowed.
 */
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "sql/exec/extsort.h"
#include "sql/expr/typeinf.h"
#include "sql/value/tz.h"
#include "util/util.h"
#include "util/hash.h"
#include "sql/exec/query_int.h"
#include "access/view.h"
#include "sql/bind/view.h"
#include "sql/parser/parser.h"

/* ---------------------------------------------------------------- FROM and binding */

void bind_push_source(query_t *q, query_source_t *s)
{
    query_source_t *ns = arena_alloc(q->x->arena, sizeof(query_source_t) * (q->nsrc + 1));
    if (q->nsrc)
        memcpy(ns, q->src, sizeof(query_source_t) * q->nsrc);
    s->base = q->width;
    ns[q->nsrc] = *s;
    q->src = ns;
    q->nsrc++;
    q->width += s->t->ncols;
}

/* A column definition that describes a result column (derived tables: names and metadata). */
void column_from_result(cat_column_t *c, const res_col_t *r)
{
    memset(c, 0, sizeof *c);
    c->name = r->name;
    c->comment = "";
    c->rc.nullable = !(r->flags & COLF_NOT_NULL);
    c->rc.is_unsigned = (r->flags & COLF_UNSIGNED) != 0;
    c->rc.coll = r->charset;
    c->def = CAT_DEF_NULL;
    uint32_t mb = value_coll_mbmaxlen(r->charset);
    switch (r->type) {
    case MYSQL_TYPE_TINY: c->rc.type = SQLT_TINYINT; break;
    case MYSQL_TYPE_SHORT: c->rc.type = SQLT_SMALLINT; break;
    case MYSQL_TYPE_INT24: c->rc.type = SQLT_MEDIUMINT; break;
    case MYSQL_TYPE_LONG: c->rc.type = SQLT_INT; break;
    case MYSQL_TYPE_LONGLONG: c->rc.type = SQLT_BIGINT; break;
    case MYSQL_TYPE_NEWDECIMAL: case MYSQL_TYPE_DECIMAL: {
        /* length = precision + point + sign */
        uint32_t extra = (r->decimals ? 1u : 0u) + (c->rc.is_unsigned ? 0u : 1u);
        c->rc.type = SQLT_DECIMAL;
        c->rc.scale = r->decimals;
        c->rc.len = r->length > extra && r->length - extra >= r->decimals ? r->length - extra : 10;
        break;
    }
    case MYSQL_TYPE_FLOAT: c->rc.type = SQLT_FLOAT; break;
    case MYSQL_TYPE_DOUBLE:
        c->rc.type = SQLT_DOUBLE;
        if (r->decimals < VAL_DEC_NOT_FIXED && r->length > r->decimals) { /* ROUND(x, 1), PI(): double(M,D) */
            c->rc.len = r->length;
            c->rc.scale = r->decimals;
        }
        break;
    case MYSQL_TYPE_NULL: c->rc.type = SQLT_BINARY; c->rc.coll = COLL_BINARY; c->rc.len = 0; break;
    case MYSQL_TYPE_DATE: c->rc.type = SQLT_DATE; break;
    case MYSQL_TYPE_DATETIME: c->rc.type = SQLT_DATETIME; c->rc.scale = r->decimals <= 6 ? r->decimals : 0; break;
    case MYSQL_TYPE_TIMESTAMP: c->rc.type = SQLT_TIMESTAMP; c->rc.scale = r->decimals <= 6 ? r->decimals : 0; break;
    case MYSQL_TYPE_TIME: c->rc.type = SQLT_TIME; c->rc.scale = r->decimals <= 6 ? r->decimals : 0; break;
    case MYSQL_TYPE_YEAR: c->rc.type = SQLT_YEAR; break;
    case MYSQL_TYPE_BLOB: case MYSQL_TYPE_TINY_BLOB: case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB: {
        /* the smallest TEXT / BLOB holding the length (in characters of the collation) */
        uint64_t chars = mb ? r->length / mb : r->length;
        bool bin = r->charset == COLL_BINARY;
        if (r->type == MYSQL_TYPE_LONG_BLOB)
            chars = 0;
        else if (r->type == MYSQL_TYPE_MEDIUM_BLOB && chars <= 65535)
            chars = 65536;
        c->rc.type = chars == 0 || chars > 16777215 ? (bin ? SQLT_LONGBLOB : SQLT_LONGTEXT)
                   : chars > 65535                  ? (bin ? SQLT_MEDIUMBLOB : SQLT_MEDIUMTEXT)
                   : chars > 255                    ? (bin ? SQLT_BLOB : SQLT_TEXT)
                                                    : (bin ? SQLT_TINYBLOB : SQLT_TINYTEXT);
        break;
    }
    default:
        c->rc.type = r->charset == COLL_BINARY ? SQLT_VARBINARY : SQLT_VARCHAR;
        if (r->type == MYSQL_TYPE_STRING && !(r->flags & (COLF_ENUM | COLF_SET)))
            c->rc.type = r->charset == COLL_BINARY ? SQLT_BINARY : SQLT_CHAR;
        c->rc.len = mb ? r->length / mb : r->length;
        break;
    }
    if (sqlt_is_int((sqlt_t)c->rc.type) && r->length)
        c->display_width = r->length; /* an expression's length is the column's display width: bigint(12) */
}

bool expr_has_aggregate(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_FUNC && sql_expr_is_aggregate(e))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (expr_has_aggregate(e->args[i]))
            return true;
    return expr_has_aggregate(e->else_expr);
}

/* A source from rows already computed (derived tables, WITH elements): a virtual table named `alias` whose
 * columns are the result columns (renamed by `names` when given: a WITH element's column list).  `sel` is the
 * select they came from, when its columns may pass their metadata through (mergeable), else NULL. */
int bind_push_rows(query_t *q, const char *alias, const sql_select_t *sel, const res_col_t *cols, int ncols,
                   value_t **rows, uint64_t n, uint32_t nc, const char *const *names, sql_join_kind_t join,
                   const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = "";
    t->name = alias;
    t->engine = "";
    t->ncols = nc;
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (nc + 1));
    for (uint32_t i = 0; i < nc; i++) {
        column_from_result(&t->cols[i], &cols[i < (uint32_t)ncols ? i : 0]);
        if (names)
            t->cols[i].name = names[i];
        for (uint32_t k = 0; k < i; k++)
            if (strcasecmp(t->cols[k].name, t->cols[i].name) == 0)
                return diag_error(x->diag, ER_DUP_FIELDNAME, t->cols[i].name);
    }
    bool mergeable = sel && !names && !sel->union_next && !sel->ngroup_by && !sel->having && !sel->distinct &&
                     !sel->limit.count && (uint32_t)ncols == nc;
    for (uint32_t i = 0; mergeable && i < sel->nitems; i++)
        mergeable = !expr_has_aggregate(sel->items[i].expr);
    query_source_t s = {.db = "", .name = alias, .alias = alias, .t = t, .is_virtual = true, .vrows = rows, .nvrows = n,
                .join = join, .on = on, .dcols = mergeable ? (res_col_t *)cols : NULL};
    bind_push_source(q, &s);
    return 0;
}

/* A view named in FROM: its SELECT parsed again and read as a derived table in the view's database, its
 * columns named as when it was created.  1: db.name is no view.  Anything that no longer binds is 1356. */
static int bind_view(query_t *q, const sql_from_t *f, const char *db, sql_join_kind_t join, const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    cat_view_t v;
    int r = catalog_view_get(sql_exec_catalog(), x->arena, db, f->table.name, &v);
    if (r < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (r == 0)
        return 1;
    if (x->view_depth >= 32)
        return diag_error(x->diag, ER_VIEW_RECURSIVE, v.db, v.name);
    sql_stmt_list_t l;
    if (sql_parse(x->arena, v.text, strlen(v.text), &l, x->diag) != 0 || l.n != 1 || l.stmts[0]->kind != SQL_STMT_SELECT)
        return diag_error(x->diag, ER_VIEW_INVALID, v.db, v.name);
    const sql_select_t *sel = l.stmts[0]->select;
    sql_select_t *merged;
    if (q->view_where && view_read_select(x, &v, f->alias ? f->alias : v.name, q->view_where, q->view_where_only,
                                          &merged) == 0)
        sel = merged; /* MERGE: the view's rows read with the outer WHERE's conditions on its base tables */
    const char *cur = x->db;
    x->db = v.db;
    x->view_depth++;
    res_col_t *cols;
    int ncols;
    value_t **rows;
    uint64_t n;
    uint32_t nc = 0;
    int rc = exec_select_describe(x, sel, &cols, &ncols);
    if (!rc)
        rc = exec_select_rows(x, sel, &rows, &n, &nc);
    x->view_depth--;
    x->db = cur;
    if (rc || nc != v.ncols) {
        diag_error_supersede(x->diag); /* MariaDB: the view's error follows what inside it failed */
        return diag_error(x->diag, ER_VIEW_INVALID, v.db, v.name);
    }
    if ((rc = bind_push_rows(q, f->alias ? f->alias : v.name, NULL, cols, ncols, rows, n, nc, v.cols, join, on)) != 0)
        return rc;
    q->src[q->nsrc - 1].db = v.db;
    q->src[q->nsrc - 1].name = v.name;
    return 0;
}

cat_table_t *bind_view_table(sql_exec_ctx_t *x, const char *db, const char *name, cat_view_t *vout)
{
    cat_view_t v;
    if (catalog_view_get(sql_exec_catalog(), x->arena, db, name, &v) <= 0)
        return NULL;
    sql_stmt_list_t l;
    res_col_t *cols;
    int ncols;
    const char *cur = x->db;
    x->db = v.db;
    int rc = sql_parse(x->arena, v.text, strlen(v.text), &l, x->diag);
    if (rc == 0)
        rc = l.n == 1 && l.stmts[0]->kind == SQL_STMT_SELECT ? exec_select_describe(x, l.stmts[0]->select, &cols, &ncols) : -1;
    x->db = cur;
    if (rc || (uint32_t)ncols != v.ncols) {
        diag_clear(x->diag); /* SHOW and DESCRIBE of a view: MariaDB gives its 1356 alone */
        diag_error(x->diag, ER_VIEW_INVALID, v.db, v.name);
        return NULL;
    }
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = v.db;
    t->name = v.name;
    t->engine = "";
    t->comment = "VIEW";
    t->ncols = v.ncols;
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (v.ncols + 1));
    for (uint32_t i = 0; i < v.ncols; i++) {
        column_from_result(&t->cols[i], &cols[i]);
        t->cols[i].name = v.cols[i];
    }
    /* statement memory, never the catalog's: a release never takes it to zero */
    atomic_store(&t->refs, 1 << 30);
    if (vout)
        *vout = v;
    return t;
}

static int add_derived(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    if (!f->alias)
        return diag_error(x->diag, ER_DERIVED_MUST_HAVE_ALIAS);
    res_col_t *cols;
    int ncols;
    value_t **rows;
    uint64_t n;
    uint32_t nc;
    int rc = exec_select_describe(x, f->derived, &cols, &ncols);
    if (!rc)
        rc = exec_select_rows(x, f->derived, &rows, &n, &nc);
    if (rc)
        return rc;
    return bind_push_rows(q, f->alias, f->derived, cols, ncols, rows, n, nc, NULL, join, on);
}

static int add_source(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on, star_list_t *out);

/* One FROM item: a table, view, derived table or CTE, or a join of two (their `*` lists in sl and sr, first
 * and second as they are read). */
static int add_source_1(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on, star_list_t *sl,
                        star_list_t *sr)
{
    sql_exec_ctx_t *x = q->x;
    if (f->kind == SQL_FROM_DERIVED)
        return add_derived(q, f, join, on);
    if (f->kind == SQL_FROM_JSON_TABLE)
        return jsontable_bind(q, f, join, on);
    if (f->kind == SQL_FROM_TABLE && f->cte)
        return bind_cte(q, f, join, on);
    if (f->kind == SQL_FROM_JOIN) {
        sql_join_kind_t j = f->join == SQL_JOIN_STRAIGHT ? SQL_JOIN_INNER : f->join;
        if (f->join == SQL_JOIN_STRAIGHT)
            q->no_reorder = true; /* t1 STRAIGHT_JOIN t2: read in FROM order (plan/join.c) */
        const sql_from_t *first = f->left, *second = f->right;
        if (j == SQL_JOIN_RIGHT) { /* t1 RIGHT JOIN t2 ON c  ==  t2 LEFT JOIN t1 ON c */
            first = f->right;
            second = f->left;
            j = SQL_JOIN_LEFT;
        }
        int rc = add_source(q, first, join, on, sl);
        if (rc)
            return rc;
        uint32_t before = q->nsrc;
        if ((rc = add_source(q, second, j, f->on, sr)) != 0)
            return rc;

        if (f->nusing || f->natural) {
            /* USING (c, ...) / NATURAL: equalities between the new source and the first earlier one having c */
            query_source_t *ns = &q->src[before];
            uint32_t n = f->natural ? ns->t->ncols : f->nusing;
            sql_expr_t *cond = (sql_expr_t *)ns->on;
            for (uint32_t i = 0; i < n; i++) {
                const char *c = f->natural ? ns->t->cols[i].name : f->using_cols[i];
                int other = -1;
                for (uint32_t k = 0; k < before && other < 0; k++)
                    if (cat_table_col(q->src[k].t, c) >= 0)
                        other = (int)k;
                if (other < 0) {
                    if (f->natural)
                        continue;
                    return diag_error(x->diag, ER_BAD_FIELD_ERROR, c, "FROM");
                }
                int nc = cat_table_col(ns->t, c), oc = cat_table_col(q->src[other].t, c);
                if (nc < 0)
                    return diag_error(x->diag, ER_BAD_FIELD_ERROR, c, "FROM");
                if (!ns->hidden)
                    ns->hidden = arena_calloc(x->arena, ns->t->ncols + 1);
                if (!q->src[other].lead)
                    q->src[other].lead = arena_calloc(x->arena, q->src[other].t->ncols + 1);
                ns->hidden[nc] = true;
                q->src[other].lead[oc] = true;
                sql_expr_t *eq = arena_calloc(x->arena, sizeof *eq);
                sql_expr_t **args = arena_calloc(x->arena, sizeof(sql_expr_t *) * 2);
                for (int side = 0; side < 2; side++) {
                    sql_expr_t *ce = arena_calloc(x->arena, sizeof *ce);
                    ce->kind = SQL_E_COLUMN;
                    ce->col.table = side ? ns->alias : q->src[other].alias;
                    ce->col.name = c;
                    ce->slot = -1;
                    ce->src = c;
                    ce->src_len = (uint32_t)strlen(c);
                    args[side] = ce;
                }
                eq->kind = SQL_E_BINARY;
                eq->op = SQL_OP_EQ;
                eq->nargs = 2;
                eq->args = args;
                eq->slot = -1;
                eq->src = c;
                eq->src_len = (uint32_t)strlen(c);
                if (!cond) {
                    cond = eq;
                } else {
                    sql_expr_t *and = arena_calloc(x->arena, sizeof *and);
                    sql_expr_t **aa = arena_calloc(x->arena, sizeof(sql_expr_t *) * 2);
                    aa[0] = cond;
                    aa[1] = eq;
                    and->kind = SQL_E_BINARY;
                    and->op = SQL_OP_AND;
                    and->nargs = 2;
                    and->args = aa;
                    and->slot = -1;
                    cond = and;
                }
            }
            ns->on = cond;
        }
        if (j == SQL_JOIN_LEFT && second->kind == SQL_FROM_JOIN && q->nsrc - before > 1) {
            /* a nested join on the right of a LEFT JOIN: one NULL-extended group, its ON checked once the whole
             * group is read (the ON may name any of its tables) */
            uint32_t last = q->nsrc - 1;
            query_source_t *head = &q->src[before], *tail = &q->src[last];
            /* the tail's ON filters what gets through the group only when the tail is inner-joined and no group
             * inside ends with it (a NULL-extended tail or inner group bypasses it): else the head keeps it */
            bool tail_inner = tail->join != SQL_JOIN_LEFT;
            for (uint32_t k = before + 1; k < last && tail_inner; k++)
                tail_inner = q->src[k].group_last != last;
            if (head->on && !tail_inner) {
                head->group_on = head->on;
                head->on = NULL;
            } else if (head->on) {
                if (!tail->on) {
                    tail->on = head->on;
                } else {
                    sql_expr_t *and = arena_calloc(x->arena, sizeof *and);
                    sql_expr_t **aa = arena_calloc(x->arena, sizeof(sql_expr_t *) * 2);
                    aa[0] = (sql_expr_t *)tail->on;
                    aa[1] = (sql_expr_t *)head->on;
                    and->kind = SQL_E_BINARY;
                    and->op = SQL_OP_AND;
                    and->nargs = 2;
                    and->args = aa;
                    and->slot = -1;
                    tail->on = and;
                }
                head->on = NULL;
            }
            head->group_last = last;
            for (uint32_t k = before; k <= last; k++)
                q->src[k].in_group = true;
        }
        return 0;
    }
    query_source_t *s = arena_calloc(x->arena, sizeof *s);
    const char *db = exec_db_name(x, f->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    s->db = db;
    s->name = f->table.name;
    s->alias = f->alias ? f->alias : f->table.name;
    s->join = join;
    s->on = on;
    if (strcasecmp(db, "information_schema") == 0 || strcasecmp(db, "performance_schema") == 0) {
        int rc = db[0] == 'i' || db[0] == 'I' ? exec_infoschema(x, f->table.name, s) : exec_perfschema(x, f->table.name, s);
        if (rc)
            return rc;
    } else {
        const char *rdb = db, *rname = f->table.name;
        exec_temp_map(x, &rdb, &rname);
        int mrc = exec_mdl_shared(x, rdb, rname);
        if (mrc)
            return mrc;
        s->t = catalog_table_get(sql_exec_catalog(), rdb, rname);
        if (!s->t) {
            int vrc = rdb == db ? bind_view(q, f, db, join, on) : 1;
            return vrc != 1 ? vrc : diag_error(x->diag, ER_NO_SUCH_TABLE, db, f->table.name);
        }
        int trc = exec_table_used(x, false);
        if (trc) {
            catalog_table_release(s->t);
            return trc;
        }
    }
    for (uint32_t i = 0; i < q->nsrc; i++)
        if (strcmp(q->src[i].alias, s->alias) == 0 && strcmp(q->src[i].db, s->db) == 0) {
            if (!s->is_virtual)
                catalog_table_release(s->t);
            return diag_error(x->diag, ER_NONUNIQ_TABLE, s->alias);
        }
    query_source_t *ns = arena_alloc(x->arena, sizeof(query_source_t) * (q->nsrc + 1));
    if (q->nsrc)
        memcpy(ns, q->src, sizeof(query_source_t) * q->nsrc);
    s->base = q->width;
    ns[q->nsrc] = *s;
    q->src = ns;
    q->nsrc++;
    q->width += s->t->ncols;
    return 0;
}

static void star_alloc(query_t *q, star_list_t *l, uint32_t cap)
{
    l->src = arena_alloc(q->x->arena, sizeof(uint32_t) * (cap + 1));
    l->col = arena_alloc(q->x->arena, sizeof(uint32_t) * (cap + 1));
    l->n = 0;
}

static void star_put(star_list_t *l, uint32_t src, uint32_t col)
{
    l->src[l->n] = src;
    l->col[l->n++] = col;
}

static void star_append(star_list_t *l, const star_list_t *from, const char *const *skip, uint32_t nskip,
                        const query_t *q)
{
    for (uint32_t i = 0; i < from->n; i++) {
        bool common = false;
        for (uint32_t k = 0; k < nskip && !common; k++)
            common = skip[k] && strcasecmp(q->src[from->src[i]].t->cols[from->col[i]].name, skip[k]) == 0;
        if (!common)
            star_put(l, from->src[i], from->col[i]);
    }
}

static int star_find(const query_t *q, const star_list_t *l, const char *name)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcasecmp(q->src[l->src[i]].t->cols[l->col[i]].name, name) == 0)
            return (int)i;
    return -1;
}

static int add_source(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on, star_list_t *out)
{
    uint32_t start = q->nsrc;
    star_list_t sl = {0}, sr = {0};
    int rc = add_source_1(q, f, join, on, &sl, &sr);
    if (rc)
        return rc;
    if (f->kind != SQL_FROM_JOIN) {
        uint32_t cap = 0;
        for (uint32_t k = start; k < q->nsrc; k++)
            cap += q->src[k].t->ncols;
        star_alloc(q, out, cap);
        for (uint32_t k = start; k < q->nsrc; k++)
            for (uint32_t c = 0; c < q->src[k].t->ncols; c++)
                if (!q->src[k].t->cols[c].invisible)
                    star_put(out, k, c);
        return 0;
    }
    star_alloc(q, out, sl.n + sr.n);
    if (!f->nusing && !f->natural) { /* FROM as written */
        bool right = f->join == SQL_JOIN_RIGHT;
        star_append(out, right ? &sr : &sl, NULL, 0, q);
        star_append(out, right ? &sl : &sr, NULL, 0, q);
        return 0;
    }
    /* the common columns, in USING's order or the first side's, taken from the first side; then the rest */
    const char **common = arena_alloc(q->x->arena, sizeof(char *) * (sl.n + f->nusing + 1));
    uint32_t ncommon = 0;
    if (f->natural) {
        for (uint32_t i = 0; i < sl.n; i++) {
            const char *nm = q->src[sl.src[i]].t->cols[sl.col[i]].name;
            if (star_find(q, &sr, nm) >= 0)
                common[ncommon++] = nm;
        }
    } else {
        for (uint32_t i = 0; i < f->nusing; i++)
            common[ncommon++] = f->using_cols[i];
    }
    for (uint32_t i = 0; i < ncommon; i++) {
        int at = star_find(q, &sl, common[i]);
        if (at >= 0)
            star_put(out, sl.src[at], sl.col[at]);
    }
    star_append(out, &sl, common, ncommon, q);
    star_append(out, &sr, common, ncommon, q);
    return 0;
}

int bind_from(query_t *q, sql_exec_ctx_t *x, const sql_from_t *from)
{
    memset(q, 0, sizeof *q);
    q->x = x;
    return add_source(q, from, SQL_JOIN_INNER, NULL, &q->star);
}

static bool from_has_outer_join(const sql_from_t *f)
{
    if (f->kind != SQL_FROM_JOIN)
        return false;
    return f->join == SQL_JOIN_LEFT || f->join == SQL_JOIN_RIGHT || from_has_outer_join(f->left) ||
           from_has_outer_join(f->right);
}

int bind_from_where(query_t *q, sql_exec_ctx_t *x, const sql_from_t *from, const sql_expr_t *where)
{
    memset(q, 0, sizeof *q);
    q->x = x;
    if (where && !from_has_outer_join(from)) { /* a view under an outer join may not take WHERE's conditions */
        q->view_where = where;
        q->view_where_only = from->kind == SQL_FROM_TABLE;
    }
    int rc = add_source(q, from, SQL_JOIN_INNER, NULL, &q->star);
    q->view_where = NULL;
    return rc;
}

void query_release(query_t *q)
{
    for (uint32_t i = 0; i < q->nsrc; i++)
        if (!q->src[i].is_virtual)
            catalog_table_release(q->src[i].t);
    q->nsrc = 0;
    if (!q->aggs_shared)
        mem_free(q->aggs);
    q->aggs = NULL;
}

/* Clauses a window call's own parts are bound in: a window call there is 4074 (an aggregate's argument) or 4015. */
static const char WIN_ARG[] = "SELECT", WIN_AGG_ARG[] = "SELECT", WIN_SPEC[] = "SELECT";

/* A call with OVER (...): allowed in the select list and ORDER BY only (4015), not inside another one's
 * arguments (4074) or window (4015); its arguments, PARTITION BY and ORDER BY are bound like the select list's
 * (aggregates of a grouped query allowed); collected in q->wins for the window pass. */
static int bind_window_call(query_t *q, sql_expr_t *e, const char *clause, bool allow_agg)
{
    sql_exec_ctx_t *x = q->x;
    if (clause == WIN_AGG_ARG)
        return diag_error(x->diag, ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG);
    if (clause == WIN_ARG || clause == WIN_SPEC || (strcmp(clause, "SELECT") != 0 && strcmp(clause, "ORDER BY") != 0))
        return diag_error(x->diag, ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION);
    bool agg = (sql_fn_flags(e->func.fn) & SQL_FNF_AGGREGATE) != 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        int rc = bind_expr(q, e->args[i], agg ? WIN_AGG_ARG : WIN_ARG, allow_agg);
        if (rc)
            return rc;
    }
    const sql_window_t *w = e->over;
    for (uint32_t i = 0; i < w->npartition; i++) {
        int rc = bind_expr(q, w->partition[i], WIN_SPEC, allow_agg);
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < w->norder; i++) {
        int rc = bind_expr(q, w->order[i].expr, WIN_SPEC, allow_agg);
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < q->nwin; i++)
        if (q->wins[i] == e)
            return 0;
    if (q->nwin == q->capwin) {
        q->capwin = q->capwin ? q->capwin * 2 : 8;
        const sql_expr_t **n = arena_alloc(x->arena, sizeof(*n) * q->capwin);
        if (q->nwin)
            memcpy(n, q->wins, sizeof(*n) * q->nwin);
        q->wins = n;
    }
    q->wins[q->nwin++] = e;
    return 0;
}

/* A WINDOW clause's windows are bound with the select list, referenced or not (their columns must exist). */
int bind_windows(query_t *q, const sql_select_t *sel, bool allow_agg)
{
    for (uint32_t w = 0; w < sel->nwindows; w++) {
        const sql_window_t *sp = &sel->windows[w].spec;
        for (uint32_t i = 0; i < sp->npartition; i++) {
            int rc = bind_expr(q, sp->partition[i], WIN_SPEC, allow_agg);
            if (rc)
                return rc;
        }
        for (uint32_t i = 0; i < sp->norder; i++) {
            int rc = bind_expr(q, sp->order[i].expr, WIN_SPEC, allow_agg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int bind_expr(query_t *q, sql_expr_t *e, const char *clause, bool allow_agg)
{
    if (!e)
        return 0;
    sql_exec_ctx_t *x = q->x;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS)
        return 0; /* bound when it runs (subquery_eval) */
    if ((e->kind == SQL_E_IN && e->sub) || e->kind == SQL_E_QUANTIFIED)
        return e->nargs ? bind_expr(q, e->args[0], clause, allow_agg) : 0;
    if (e->kind == SQL_E_COLUMN) {
        int found = -1;
        for (uint32_t i = 0; i < q->nsrc; i++) {
            const query_source_t *s = &q->src[i];
            if (e->col.table && strcmp(e->col.table, s->alias) != 0)
                continue;
            if (e->col.db && strcmp(e->col.db, s->db) != 0)
                continue;
            int c = cat_table_col(s->t, e->col.name);
            if (c < 0)
                continue;
            if (!e->col.table && s->hidden && s->hidden[c])
                continue; /* a USING / NATURAL column is the earlier source's (one column, not ambiguous) */
            if (found >= 0) { /* named as written: 't2.v' when qualified (MariaDB) */
                char full[200];
                snprintf(full, sizeof full, "%s%s%s", e->col.table ? e->col.table : "", e->col.table ? "." : "", e->col.name);
                return diag_error(x->diag, ER_NON_UNIQ_ERROR, full, clause);
            }
            e->bound_db = s->db;
            e->bound_tab = s->alias;
            e->bound_json = s->t->cols[c].is_json;
            {
                /* MariaDB's max_length of an integer column (result types of integer arithmetic follow it) */
                static const uint32_t sl[] = {4, 6, 9, 11, 20}, ul[] = {3, 5, 8, 10, 20};
                sqlt_t ty = (sqlt_t)s->t->cols[c].rc.type;
                e->bound_len = sqlt_is_int(ty) ? (s->t->cols[c].rc.is_unsigned ? ul : sl)[ty - SQLT_TINYINT] : 0;
            }
            found = (int)(s->base + (uint32_t)c);
        }
        if (found < 0 && !e->col.table && q->alias_names) {
            for (uint32_t i = 0; i < q->nalias; i++)
                if (q->alias_names[i] && strcasecmp(q->alias_names[i], e->col.name) == 0) {
                    e->slot = (int32_t)(q->width + i);
                    return 0;
                }
        }
        if (found < 0 && x->outer_q) {
            /* a correlated reference: left unbound, read from the outer row by name (exec_eval_column_get) */
            const query_t *oq = x->outer_q;
            for (uint32_t i = 0; i < oq->nsrc; i++) {
                const query_source_t *s = &oq->src[i];
                if (e->col.table && strcmp(e->col.table, s->alias) != 0)
                    continue;
                if (cat_table_col(s->t, e->col.name) >= 0) {
                    e->slot = -1;
                    x->saw_outer_ref = true;
                    return 0;
                }
            }
        }
        if (found < 0) {
            char full[200];
            snprintf(full, sizeof full, "%s%s%s", e->col.table ? e->col.table : "", e->col.table ? "." : "", e->col.name);
            return diag_error(x->diag, ER_BAD_FIELD_ERROR, full, clause);
        }
        e->slot = found;
        return 0;
    }
    if (e->kind == SQL_E_FUNC && e->over)
        return bind_window_call(q, e, clause, allow_agg);
    if (sql_expr_is_aggregate(e)) {
        if (!allow_agg)
            return diag_error(x->diag, ER_INVALID_GROUP_FUNC_USE);
        if (q->nagg == q->capagg) {
            q->capagg = q->capagg ? q->capagg * 2 : 8;
            q->aggs = mem_realloc(q->aggs, sizeof(*q->aggs) * q->capagg);
        }
        bool dup = false;
        for (uint32_t i = 0; i < q->nagg; i++)
            dup |= q->aggs[i] == e;
        if (!dup)
            q->aggs[q->nagg++] = e;
        for (uint32_t i = 0; i < e->nargs; i++) {
            int rc = bind_expr(q, e->args[i], clause, false);
            if (rc)
                return rc;
        }
        for (uint32_t i = 0; i < e->nagg_order; i++) { /* GROUP_CONCAT(... ORDER BY ...) */
            int rc = bind_expr(q, e->agg_order[i].expr, clause, false);
            if (rc)
                return rc;
        }
        return 0;
    }
    for (uint32_t i = 0; i < e->nargs; i++) {
        int rc = bind_expr(q, e->args[i], clause, allow_agg);
        if (rc)
            return rc;
    }
    if (e->kind == SQL_E_CASE && e->else_expr)
        return bind_expr(q, e->else_expr, clause, allow_agg);
    return 0;
}

/* Highest source index an expression reads (-1 none); *pure false when it can't be evaluated early (variables
 * assigned, aggregates, RAND()...). */
uint64_t expr_src_mask(const query_t *q, const sql_expr_t *e, bool *pure)
{
    if (!e)
        return 0;
    uint64_t m = 0;
    if (e->kind == SQL_E_COLUMN) {
        for (uint32_t i = 0; i < q->nsrc && i < 64; i++)
            if ((uint32_t)e->slot >= q->src[i].base && (uint32_t)e->slot < q->src[i].base + q->src[i].t->ncols)
                m |= (uint64_t)1 << i;
        return m; /* (an outer query's column: a value fixed while this query runs) */
    }
    if (e->kind == SQL_E_ASSIGN || e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
        (e->kind == SQL_E_IN && e->sub))
        *pure = false;
    if (e->kind == SQL_E_FUNC && (sql_fn_flags(e->func.fn) & (SQL_FNF_AGGREGATE | SQL_FNF_VOLATILE)))
        *pure = false;
    for (uint32_t i = 0; i < e->nargs; i++)
        m |= expr_src_mask(q, e->args[i], pure);
    if (e->kind == SQL_E_CASE)
        m |= expr_src_mask(q, e->else_expr, pure);
    return m;
}

int expr_max_src(const query_t *q, const sql_expr_t *e, bool *pure)
{
    if (!e)
        return -1;
    int m = -1;
    if (e->kind == SQL_E_COLUMN) {
        for (uint32_t i = 0; i < q->nsrc; i++)
            if ((uint32_t)e->slot >= q->src[i].base && (uint32_t)e->slot < q->src[i].base + q->src[i].t->ncols)
                m = (int)i;
        return m;
    }
    if (e->kind == SQL_E_ASSIGN || e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
        (e->kind == SQL_E_IN && e->sub) || (e->kind == SQL_E_COLUMN && e->slot < 0))
        *pure = false;
    if (e->kind == SQL_E_FUNC && (sql_fn_flags(e->func.fn) & (SQL_FNF_AGGREGATE | SQL_FNF_VOLATILE)))
        *pure = false;
    for (uint32_t i = 0; i < e->nargs; i++)
        m = MAX(m, expr_max_src(q, e->args[i], pure));
    if (e->kind == SQL_E_CASE)
        m = MAX(m, expr_max_src(q, e->else_expr, pure));
    return m;
}
