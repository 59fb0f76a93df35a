/*
 * WITH elements as sources.  The parser has already pointed each reference at its element (sql_from_t.cte),
 * so nothing here looks names up.  A non-recursive element is run like a derived table, once per reference.
 * A recursive one is run as MariaDB does: its anchors (the members of its UNION that do not name it) give
 * the first rows; then each round runs the recursive members over the rows the previous round added (their
 * reference to the element reads x->cte_work), until a round adds nothing or @@max_recursive_iterations
 * rounds have run (warning 1931).  The element's columns are typed by its anchors, and every later row is
 * stored into those types as into a table (1406 when a string outgrows them in strict mode).  With UNION
 * DISTINCT anywhere in the element, a row already produced is not produced again, which ends cycles.
 */
#include <string.h>
#include <strings.h>
#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "util/util.h"

struct cte_work {
    const sql_cte_t *cte;
    value_t **rows;
    uint64_t n;
    const res_col_t *cols;
    int ncols;
    uint32_t nc;
    struct cte_work *up;
};

static bool select_refs(const sql_select_t *s, const sql_cte_t *c);

static bool expr_refs(const sql_expr_t *e, const sql_cte_t *c)
{
    if (!e)
        return false;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (expr_refs(e->args[i], c))
            return true;
    if (expr_refs(e->else_expr, c))
        return true;
    if ((e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
         (e->kind == SQL_E_IN && e->sub)) && select_refs(e->sub, c))
        return true;
    return false;
}

/* Whether the FROM tree names c directly (not through a subquery of an ON condition). */
static bool from_refs(const sql_from_t *f, const sql_cte_t *c)
{
    if (!f)
        return false;
    if (f->kind == SQL_FROM_TABLE)
        return f->cte == c;
    if (f->kind == SQL_FROM_DERIVED)
        return select_refs(f->derived, c);
    return from_refs(f->left, c) || from_refs(f->right, c);
}

static bool from_expr_refs(const sql_from_t *f, const sql_cte_t *c)
{
    if (!f || f->kind != SQL_FROM_JOIN)
        return false;
    return expr_refs(f->on, c) || from_expr_refs(f->left, c) || from_expr_refs(f->right, c);
}

/* Whether a subquery anywhere in the member (not its FROM tree) names c. */
static bool member_sub_refs(const sql_select_t *m, const sql_cte_t *c)
{
    for (uint32_t i = 0; i < m->nitems; i++)
        if (expr_refs(m->items[i].expr, c))
            return true;
    return expr_refs(m->where, c) || expr_refs(m->having, c) || from_expr_refs(m->from, c);
}

static bool select_refs(const sql_select_t *s, const sql_cte_t *c)
{
    for (const sql_select_t *m = s; m; m = m->union_next)
        if (from_refs(m->from, c) || member_sub_refs(m, c))
            return true;
    return false;
}

/* One member on its own: a shallow copy that ends the UNION chain at it. */
static sql_select_t *member_alone(arena_t *a, const sql_select_t *m)
{
    sql_select_t *c = arena_alloc(a, sizeof *c);
    *c = *m;
    c->union_next = NULL;
    c->union_all = false;
    c->nunion_order_by = 0;
    c->union_order_by = NULL;
    memset(&c->union_limit, 0, sizeof c->union_limit);
    return c;
}

static int run_recursive(sql_exec_ctx_t *x, const sql_cte_t *c, res_col_t **cols_out, int *ncols_out,
                         value_t ***rows_out, uint64_t *n_out, uint32_t *nc_out)
{
    const sql_select_t *body = c->select;
    if (body->nunion_order_by || body->union_limit.count)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "ORDER BY or LIMIT on a recursive WITH element");
    /* anchors, chained as their own UNION; the recursive members, each alone */
    sql_select_t *anchors = NULL, *alast = NULL;
    sql_select_t **rec = NULL;
    uint32_t nrec = 0, nmem = 0;
    bool distinct = false;
    for (const sql_select_t *m = body; m; m = m->union_next)
        nmem++;
    rec = arena_calloc(x->arena, sizeof(*rec) * (nmem + 1));
    for (const sql_select_t *m = body; m; m = m->union_next) {
        if (m->union_next && !m->union_all)
            distinct = true;
        bool in_from = from_refs(m->from, c);
        if (member_sub_refs(m, c))
            return diag_error(x->diag, ER_NOT_STANDARD_COMPLIANT_RECURSIVE, c->name);
        sql_select_t *one = member_alone(x->arena, m);
        if (!in_from) {
            if (alast) {
                alast->union_next = one;
                alast->union_all = m == body ? body->union_all : alast->union_all;
            } else {
                anchors = one;
            }
            one->union_all = m->union_all;
            alast = one;
            continue;
        }
        bool agg = m->ngroup_by > 0 || m->having;
        for (uint32_t i = 0; !agg && i < m->nitems; i++)
            agg = expr_has_aggregate(m->items[i].expr);
        if (agg)
            return diag_error(x->diag, ER_NOT_STANDARD_COMPLIANT_RECURSIVE, c->name);
        rec[nrec++] = one;
    }
    if (!anchors)
        return diag_error(x->diag, ER_RECURSIVE_WITHOUT_ANCHORS, c->name);
    alast->union_all = false;

    res_col_t *cols;
    int ncols;
    value_t **arows;
    uint64_t an;
    uint32_t nc;
    int rc = exec_select_describe(x, anchors, &cols, &ncols);
    if (!rc)
        rc = exec_select_rows(x, anchors, &arows, &an, &nc);
    if (rc)
        return rc;
    if (c->ncols && c->ncols != nc)
        return diag_error(x->diag, ER_WITH_COL_WRONG_LIST);
    /* the element's rows are stored in its anchors' column types, as into a temporary table */
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = "";
    t->name = c->name;
    t->engine = "";
    t->ncols = nc;
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (nc + 1));
    for (uint32_t i = 0; i < nc; i++) {
        column_from_result(&t->cols[i], &cols[i < (uint32_t)ncols ? i : 0]);
        t->cols[i].rc.nullable = true;
        if (c->ncols)
            t->cols[i].name = c->cols[i];
    }

    keymap_t seen;
    keymap_init(&seen, x->arena);
    value_t **all = NULL;
    uint64_t n = 0, cap = 0;
    value_t **work = NULL;
    uint64_t nwork = 0;
    /* adds row r (already in the element's types) unless DISTINCT has it; *added tells */
#define CTE_ADD(r, added_)                                                                                      \
    do {                                                                                                         \
        bool added_in_ = true;                                                                                   \
        if (distinct) {                                                                                          \
            buf_t k_;                                                                                            \
            buf_init(&k_);                                                                                       \
            for (uint32_t c_ = 0; c_ < nc; c_++)                                                                 \
                key_append_value(&k_, &(r)[c_], false);                                                          \
            keymap_put(&seen, k_.data, k_.len, &added_in_);                                                      \
            buf_free(&k_);                                                                                       \
        }                                                                                                        \
        if (added_in_) {                                                                                         \
            if (n == cap) {                                                                                      \
                cap = cap ? cap * 2 : 64;                                                                        \
                value_t **nr_ = arena_alloc(x->arena, sizeof(value_t *) * cap);                                  \
                if (n)                                                                                           \
                    memcpy(nr_, all, sizeof(value_t *) * n);                                                     \
                all = nr_;                                                                                       \
            }                                                                                                    \
            all[n++] = (r);                                                                                      \
        }                                                                                                        \
        (added_) = added_in_;                                                                                    \
    } while (0)
    uint64_t start = 0;
    for (uint64_t i = 0; i < an; i++) {
        bool added;
        CTE_ADD(arows[i], added);
        (void)added;
    }
    work = all;
    nwork = n;
    struct cte_work w = {.cte = c, .cols = cols, .ncols = ncols, .nc = nc, .up = x->cte_work};
    uint64_t round = 0;
    while (!rc && nwork) {
        if (round == x->max_recursive_iterations) {
            diag_push(x->diag, DIAG_WARNING, ER_QUERY_RESULT_INCOMPLETE, "max_recursive_iterations =",
                      (unsigned long long)x->max_recursive_iterations);
            break;
        }
        round++;
        w.rows = work;
        w.n = nwork;
        start = n;
        x->cte_work = &w;
        for (uint32_t k = 0; !rc && k < nrec; k++) {
            value_t **rrows;
            uint64_t rn;
            uint32_t rnc;
            rc = exec_select_rows(x, rec[k], &rrows, &rn, &rnc);
            if (!rc && rnc != nc)
                rc = diag_push_msg(x->diag, DIAG_ERROR, 1222,
                                   "The used SELECT statements have a different number of columns");
            for (uint64_t i = 0; !rc && i < rn; i++) {
                value_t *r = arena_alloc(x->arena, sizeof(value_t) * (nc + 1));
                for (uint32_t col = 0; !rc && col < nc; col++)
                    rc = table_value_store(t, col, &rrows[i][col], &r[col], x->arena, x->diag, x->strict, n + 1);
                if (!rc) {
                    bool added;
                    CTE_ADD(r, added);
                    (void)added;
                }
            }
        }
        x->cte_work = w.up;
        /* the rows this round added are the next round's input (all may have moved: index from start) */
        work = all + start;
        nwork = n - start;
    }
#undef CTE_ADD
    keymap_free(&seen);
    if (rc)
        return rc;
    *cols_out = cols;
    *ncols_out = ncols;
    *rows_out = all;
    *n_out = n;
    *nc_out = nc;
    return 0;
}

int bind_cte(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    const sql_cte_t *c = f->cte;
    const char *alias = f->alias ? f->alias : c->name;
    for (const struct cte_work *w = x->cte_work; w; w = w->up)
        if (w->cte == c) /* a recursive member's reference: the rows of the round before */
            return bind_push_rows(q, alias, NULL, w->cols, w->ncols, w->rows, w->n, w->nc, c->ncols ? c->cols : NULL,
                                  join, on);
    res_col_t *cols;
    int ncols;
    value_t **rows;
    uint64_t n;
    uint32_t nc;
    int rc;
    if (c->recursive) {
        rc = run_recursive(x, c, &cols, &ncols, &rows, &n, &nc);
    } else {
        rc = exec_select_describe(x, c->select, &cols, &ncols);
        if (!rc)
            rc = exec_select_rows(x, c->select, &rows, &n, &nc);
        if (!rc && c->ncols && c->ncols != nc)
            rc = diag_error(x->diag, ER_WITH_COL_WRONG_LIST);
    }
    if (rc)
        return rc;
    return bind_push_rows(q, alias, c->recursive ? NULL : c->select, cols, ncols, rows, n, nc,
                          c->ncols ? c->cols : NULL, join, on);
}
