/*
 * CHECK constraints on the rows INSERT, UPDATE, REPLACE and LOAD DATA write, as MariaDB evaluates them: each
 * condition over the row's values (as a SELECT would read them), failing only when FALSE (NULL passes), before the
 * row reaches the table.  The conditions are parsed once per statement and table (a small per-thread cache whose
 * entries name the statement they were made for: the trees live in that statement's arena).
 */
#include <string.h>
#include <strings.h>

#include "sql/exec/constraints.h"
#include "sql/exec/query_int.h"
#include "sql/bind/view.h"
#include "util/util.h"

int check_bind(sql_exec_ctx_t *x, const cat_table_t *t, sql_expr_t *e)
{
    query_source_t src = {.db = t->db, .name = t->name, .alias = t->name, .t = (cat_table_t *)t};
    query_t q = {.x = x, .src = &src, .nsrc = 1, .width = t->ncols, .clause = "CHECK"};
    return bind_expr(&q, e, "CHECK", false);
}

int exec_fk_db_drop_guard(sql_exec_ctx_t *x, const char *db)
{
    if (x->fk_checks_off || !catalog_fk_any(exec_cat))
        return 0;
    const char **names;
    uint32_t n;
    catalog_table_list(exec_cat, db, x->arena, &names, &n);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        cat_table_t **kids;
        uint32_t nk;
        catalog_fk_children(exec_cat, db, names[i], x->arena, &kids, &nk);
        for (uint32_t k = 0; k < nk; k++) {
            if (!rc && strcmp(kids[k]->db, db) != 0)
                rc = diag_push_msg(x->diag, DIAG_ERROR, ER_ROW_IS_REFERENCED_2,
                                   "Cannot delete or update a parent row: a foreign key constraint fails");
            catalog_table_release(kids[k]);
        }
    }
    return rc;
}

typedef struct check_cache {
    const sql_exec_session_t *ss;
    uint64_t stmt;
    const cat_table_t *t;
    sql_expr_t **exprs;
} check_cache_t;

static _Thread_local check_cache_t tl_cache[8];
static _Thread_local uint32_t tl_next;

static int exprs_for(sql_exec_ctx_t *x, const cat_table_t *t, sql_expr_t ***out)
{
    for (uint32_t i = 0; i < ARRAY_LEN(tl_cache); i++) {
        check_cache_t *c = &tl_cache[i];
        if (c->ss == x->ss && c->stmt == x->ss->fk.stmt && c->t == t) {
            *out = c->exprs;
            return 0;
        }
    }
    sql_expr_t **v = arena_calloc(x->arena, sizeof(sql_expr_t *) * (t->nchecks + 1));
    for (uint32_t i = 0; i < t->nchecks; i++) {
        const char *s = t->checks[i].expr;
        int rc = sql_parse_expr(x->arena, s, strlen(s), &v[i], x->diag);
        if (rc == 0)
            rc = check_bind(x, t, v[i]);
        if (rc)
            return rc;
    }
    check_cache_t *c = &tl_cache[tl_next++ % ARRAY_LEN(tl_cache)];
    *c = (check_cache_t){.ss = x->ss, .stmt = x->ss->fk.stmt, .t = t, .exprs = v};
    *out = v;
    return 0;
}

/* The CHECK OPTION of the view being written through (bind/view.h): a row the view would not show is 1369
 * (a warning and a skipped row under IGNORE).  NULL fails as FALSE does: MariaDB's test is val_int() == 0. */
static int view_check_row(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *out, bool ignore)
{
    view_check_t *c = x->view_check;
    int rc;
    if (c->bound_to != t) {
        for (uint32_t i = 0; i < c->n; i++)
            if ((rc = check_bind(x, t, c->conds[i])) != 0)
                return rc;
        c->bound_to = t;
    }
    row_eval_t xe;
    row_eval_init(&xe, x);
    for (uint32_t i = 0; i < c->n; i++) {
        value_t v;
        if ((rc = row_eval(&xe, c->conds[i], out, &v)) != 0)
            return rc;
        if (!value_is_null(&v) && value_to_double(&v, NULL) != 0)
            continue;
        if (ignore) {
            diag_push(x->diag, DIAG_WARNING, ER_VIEW_CHECK_FAILED, c->db, c->name);
            return CONSTRAINTS_SKIP_VIEW;
        }
        return diag_error(x->diag, ER_VIEW_CHECK_FAILED, c->db, c->name);
    }
    return 0;
}

static value_t *row_out(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *row)
{
    value_t *out = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++)
        out[c] = table_value_out(&t->cols[c], &row[c], x->arena);
    return out;
}

int constraints_check_row(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *row, bool ignore)
{
    const view_check_t *vc = x->view_check;
    if (vc && strcmp(vc->tdb, t->db) == 0 && strcmp(vc->tname, t->name) == 0) {
        int vrc = view_check_row(x, t, row_out(x, t, row), ignore);
        if (vrc)
            return vrc;
    }
    if (!t->nchecks || x->check_constraints_off)
        return 0;
    sql_expr_t **exprs;
    int rc = exprs_for(x, t, &exprs);
    if (rc)
        return rc;
    value_t *out = row_out(x, t, row);
    row_eval_t xe;
    row_eval_init(&xe, x);
    /* the columns' own checks first, then the table's (MariaDB's order, which names the first that fails) */
    for (uint32_t k = 0; k < 2 * t->nchecks; k++) {
        uint32_t i = k % t->nchecks;
        if (t->checks[i].column != (k < t->nchecks))
            continue;
        value_t v;
        if ((rc = row_eval(&xe, exprs[i], out, &v)) != 0)
            return rc;
        if (value_is_null(&v) || value_to_double(&v, NULL) != 0)
            continue;
        const char *name = t->checks[i].column ? arena_printf(x->arena, "%s.%s", t->name, t->checks[i].name)
                                               : t->checks[i].name;
        if (ignore) {
            diag_push(x->diag, DIAG_WARNING, ER_CONSTRAINT_FAILED, name, t->db, t->name);
            return 1;
        }
        return diag_error(x->diag, ER_CONSTRAINT_FAILED, name, t->db, t->name);
    }
    return 0;
}
