/*
 * Expression evaluation inside the executor: the session's callbacks wrapped with what only the executor
 * knows (column values of the current row, aggregates of the current group, VALUES() in ON DUPLICATE KEY
 * UPDATE, subqueries).  Uncorrelated subqueries run once per statement and are cached; correlated ones per
 * outer row.
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

/* ---------------------------------------------------------------- evaluation callbacks */

static int exec_eval_sysvar_get(void *u, sql_var_scope_t scope, const char *comp, const char *name, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->sysvar_get)
        return diag_error(d, ER_NOT_SUPPORTED_YET, "system variables here");
    return cb->sysvar_get(xe->x->cb_user, scope, comp, name, out, d);
}

static int exec_eval_uservar_get(void *u, const char *name, value_t *out)
{
    row_eval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->uservar_get) {
        *out = value_null();
        return 0;
    }
    return cb->uservar_get(xe->x->cb_user, name, out);
}

static int exec_eval_uservar_set(void *u, const char *name, const value_t *v)
{
    row_eval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    return cb && cb->uservar_set ? cb->uservar_set(xe->x->cb_user, name, v) : 0;
}

static int exec_eval_session_fn(void *u, sql_session_fn_t fn, value_t *out)
{
    row_eval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->session_fn) {
        *out = value_null();
        return 0;
    }
    return cb->session_fn(xe->x->cb_user, fn, out);
}

static int exec_eval_set_last_insert_id(void *u, uint64_t id)
{
    row_eval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    return cb && cb->set_last_insert_id ? cb->set_last_insert_id(xe->x->cb_user, id) : 0;
}

static int exec_eval_param_get(void *u, uint32_t index, value_t *out)
{
    row_eval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->param_get) {
        *out = value_null();
        return 0;
    }
    return cb->param_get(xe->x->cb_user, index, out);
}

static int exec_eval_column_get(void *u, const sql_expr_t *col, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    const query_t *oq = xe->x->outer_q;
    if (oq && xe->x->outer_row) {
        for (uint32_t i = 0; i < oq->nsrc; i++) {
            const query_source_t *s = &oq->src[i];
            if (col->col.table && strcmp(col->col.table, s->alias) != 0)
                continue;
            int c = cat_table_col(s->t, col->col.name);
            if (c >= 0) {
                *out = xe->x->outer_row[s->base + (uint32_t)c];
                return 0;
            }
        }
    }
    return diag_error(d, ER_BAD_FIELD_ERROR, col->col.name ? col->col.name : "", "SELECT");
}

/* ---- subqueries: uncorrelated ones run once per statement (cached), correlated ones per outer row ---- */

typedef struct subquery_rows {
    struct subquery_rows *next;
    const sql_select_t *sub;
    value_t **rows;
    uint64_t n;
    uint32_t ncols;
} subquery_rows_t;

static int subq_rows(row_eval_t *xe, const sql_select_t *sub, subquery_rows_t **out)
{
    sql_exec_ctx_t *x = xe->x;
    for (subquery_rows_t *c = x->subq_cache; c; c = c->next)
        if (c->sub == sub) {
            *out = c;
            return 0;
        }
    const void *save_q = x->outer_q;
    const value_t *save_row = x->outer_row;
    bool save_seen = x->saw_outer_ref;
    x->outer_q = xe->q;
    x->outer_row = xe->ev.row;
    x->saw_outer_ref = false;
    subquery_rows_t *r = arena_calloc(x->arena, sizeof *r);
    r->sub = sub;
    int rc = exec_select_rows(x, sub, &r->rows, &r->n, &r->ncols);
    bool correlated = x->saw_outer_ref;
    x->outer_q = save_q;
    x->outer_row = save_row;
    x->saw_outer_ref = save_seen || correlated;
    if (rc)
        return rc;
    if (!correlated) {
        r->next = x->subq_cache;
        x->subq_cache = r;
    }
    *out = r;
    return 0;
}

/* (a, b) [NOT] IN (SELECT x, y ...), (a, b) = ANY / <> ALL (...): each row compared as a row; IN and ANY true when
 * one is, ALL when all are (and when there are none), else NULL where a comparison was, else false */
static int subquery_row_in(row_eval_t *xe, const sql_expr_t *e, const subquery_rows_t *r, value_t *out, diag_t *d)
{
    const sql_expr_t *row = e->args[0];
    sql_op_t op = e->kind == SQL_E_IN ? SQL_OP_EQ : e->op;
    bool all = e->kind == SQL_E_QUANTIFIED && e->quant_all;
    if (e->kind == SQL_E_QUANTIFIED && !(op == SQL_OP_EQ && !all) && !(op == SQL_OP_NE && all))
        return diag_error(d, ER_OPERAND_COLUMNS, 1); /* MariaDB compares rows with = ANY and <> ALL only */
    if (r->ncols != row->nargs)
        return diag_error(d, ER_OPERAND_COLUMNS, (int)row->nargs);
    value_t *left = arena_alloc(xe->x->arena, sizeof *left * row->nargs);
    int rc;
    for (uint32_t i = 0; i < row->nargs; i++)
        if ((rc = sql_expr_eval(&xe->ev, row->args[i], &left[i])) != 0)
            return rc;
    bool any_true = false, any_false = false, any_null = false;
    value_t *right = arena_alloc(xe->x->arena, sizeof *right * row->nargs);
    for (uint64_t i = 0; i < r->n; i++) {
        memcpy(right, r->rows[i], sizeof *right * row->nargs);
        value_t v;
        if ((rc = sql_eval_row_cmp_values(&xe->ev, op, left, right, row->nargs, &v)) != 0)
            return rc;
        if (v.type == VAL_NULL)
            any_null = true;
        else if (value_to_int(&v, NULL))
            any_true = true;
        else
            any_false = true;
        if (all ? any_false : any_true)
            break;
    }
    int res = all ? (any_false ? 0 : any_null ? -1 : 1) : (any_true ? 1 : any_null ? -1 : 0);
    if (e->negated && res >= 0)
        res = !res;
    *out = res < 0 ? value_null() : value_int(res);
    return 0;
}

/* A scalar subquery met as a row: its one row, or none. */
static int exec_eval_subquery_row(void *u, const sql_expr_t *e, const value_t **vals, uint32_t *ncols, diag_t *d)
{
    row_eval_t *xe = u;
    subquery_rows_t *r;
    int rc = subq_rows(xe, e->sub, &r);
    if (rc)
        return rc;
    if (r->n > 1)
        return diag_error(d, ER_SUBQUERY_NO_1_ROW);
    *ncols = r->ncols;
    *vals = r->n ? r->rows[0] : NULL;
    return 0;
}

static int exec_eval_subquery_eval(void *u, const sql_expr_t *e, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    subquery_rows_t *r;
    int rc = subq_rows(xe, e->sub, &r);
    if (rc)
        return rc;
    if (e->kind == SQL_E_EXISTS) {
        *out = value_int(r->n > 0);
        return 0;
    }
    if (e->kind != SQL_E_SUBQUERY && e->args[0]->kind == SQL_E_ROW)
        return subquery_row_in(xe, e, r, out, d);
    if (r->ncols != 1)
        return diag_error(d, ER_OPERAND_COLUMNS, 1);
    if (e->kind == SQL_E_SUBQUERY) {
        if (r->n > 1)
            return diag_error(d, ER_SUBQUERY_NO_1_ROW);
        *out = r->n ? r->rows[0][0] : value_null();
        return 0;
    }
    /* IN / ANY / ALL */
    value_t v;
    if ((rc = sql_expr_eval(&xe->ev, e->args[0], &v)) != 0)
        return rc;
    bool all = e->kind == SQL_E_QUANTIFIED && e->quant_all;
    sql_op_t op = e->kind == SQL_E_IN ? SQL_OP_EQ : e->op;
    bool any_true = false, any_null = v.type == VAL_NULL && r->n > 0, all_true = true;
    for (uint64_t i = 0; i < r->n && v.type != VAL_NULL; i++) {
        const value_t *w = &r->rows[i][0];
        if (w->type == VAL_NULL) {
            any_null = true;
            all_true = false;
            continue;
        }
        int c = value_compare(&v, w, d);
        bool t = op == SQL_OP_EQ ? c == 0 : op == SQL_OP_NE ? c != 0 : op == SQL_OP_LT ? c < 0 : op == SQL_OP_LE ? c <= 0
               : op == SQL_OP_GT ? c > 0 : op == SQL_OP_GE ? c >= 0 : false;
        any_true |= t;
        all_true &= t;
    }
    int res; /* 1 true, 0 false, -1 NULL */
    if (all)
        res = r->n == 0 ? 1 : (v.type == VAL_NULL ? -1 : !all_true ? (any_null && all_true ? -1 : 0) : (any_null ? -1 : 1));
    else
        res = any_true ? 1 : any_null ? -1 : 0;
    if (all && v.type != VAL_NULL && r->n) {
        /* ALL: false as soon as one comparison is false; NULL if none false but one NULL */
        bool one_false = false;
        for (uint64_t i = 0; i < r->n; i++) {
            const value_t *w = &r->rows[i][0];
            if (w->type == VAL_NULL)
                continue;
            int c = value_compare(&v, w, d);
            bool t = op == SQL_OP_EQ ? c == 0 : op == SQL_OP_NE ? c != 0 : op == SQL_OP_LT ? c < 0 : op == SQL_OP_LE ? c <= 0
                   : op == SQL_OP_GT ? c > 0 : op == SQL_OP_GE ? c >= 0 : false;
            if (!t)
                one_false = true;
        }
        res = one_false ? 0 : any_null ? -1 : 1;
    }
    if (e->negated && res >= 0)
        res = !res;
    *out = res < 0 ? value_null() : value_int(res);
    return 0;
}

static int exec_eval_aggregate_get(void *u, const sql_expr_t *e, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    if (!xe->q || !xe->group)
        return diag_error(d, ER_INVALID_GROUP_FUNC_USE);
    for (uint32_t i = 0; i < xe->q->nagg; i++)
        if (xe->q->aggs[i] == e) {
            *out = sql_agg_result(&xe->group->aggs[i], e, xe->ev.arena, xe->x->div_precision_increment, xe->x->diag);
            return 0;
        }
    return diag_error(d, ER_INVALID_GROUP_FUNC_USE);
}

static int exec_eval_window_get(void *u, const sql_expr_t *e, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    if (!xe->win || !xe->q || win_value(xe->win, xe->q, e, out) != 0)
        return diag_error(d, ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION);
    return 0;
}

static int exec_eval_values_get(void *u, const sql_expr_t *col, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    if (!xe->values_row || !xe->values_t) {
        *out = value_null();
        return 0;
    }
    int c = cat_table_col(xe->values_t, col->col.name);
    if (c < 0)
        return diag_error(d, ER_BAD_FIELD_ERROR, col->col.name, "SELECT");
    *out = table_value_out(&xe->values_t->cols[c], &xe->values_row[c], xe->x->arena);
    return 0;
}

static int exec_eval_sleep(void *u, double secs)
{
    row_eval_t *xe = u;
    const sql_exec_ctx_t *x = xe->x;
    return x->cb && x->cb->sleep ? x->cb->sleep(x->cb_user, secs) : 0;
}

static int exec_eval_user_lock(void *u, sql_fn_t fn, const char *name, size_t len, double timeout, value_t *out, diag_t *d)
{
    row_eval_t *xe = u;
    const sql_exec_ctx_t *x = xe->x;
    if (!x->cb || !x->cb->user_lock)
        return diag_error(d, ER_NOT_SUPPORTED_YET, "user-level locks");
    return x->cb->user_lock(x->cb_user, fn, name, len, timeout, out, d);
}

/* A stored function called inside a statement on tables: the session runs it, told it is nested.  Its statements
 * run nested in this one, as a trigger's do (exec.c's exec_run): in its transaction and undo, with its binlog row
 * images, and they may not change a table this statement opened (1442, trigfire.c). */
static int exec_eval_stored_fn(void *u, const sql_expr_t *call, const value_t *args, uint32_t nargs, arena_t *a,
                               bool nested, value_t *out, diag_t *d)
{
    (void)nested;
    row_eval_t *xe = u;
    const sql_exec_ctx_t *x = xe->x;
    if (!x->cb || !x->cb->stored_fn)
        return 1;
    sql_exec_session_t *ss = x->ss;
    if (ss) {
        ss->trg_depth++;
        ss->fn_depth++;
    }
    int rc = x->cb->stored_fn(x->cb_user, call, args, nargs, a, true, out, d);
    if (ss) {
        ss->trg_depth--;
        ss->fn_depth--;
    }
    return rc;
}

static const sql_eval_cb_t xcb = {
    .stored_fn = exec_eval_stored_fn,
    .sleep = exec_eval_sleep,
    .user_lock = exec_eval_user_lock,
    .sysvar_get = exec_eval_sysvar_get,
    .uservar_get = exec_eval_uservar_get,
    .uservar_set = exec_eval_uservar_set,
    .session_fn = exec_eval_session_fn,
    .set_last_insert_id = exec_eval_set_last_insert_id,
    .param_get = exec_eval_param_get,
    .column_get = exec_eval_column_get,
    .aggregate_get = exec_eval_aggregate_get,
    .window_get = exec_eval_window_get,
    .values_get = exec_eval_values_get,
    .subquery_eval = exec_eval_subquery_eval,
    .subquery_row = exec_eval_subquery_row,
};

void row_eval_init(row_eval_t *xe, sql_exec_ctx_t *x)
{
    memset(xe, 0, sizeof *xe);
    xe->x = x;
    sql_eval_ctx_init(&xe->ev, x->arena, x->diag, &xcb, xe);
    xe->ev.strict = x->strict;
    xe->ev.div_zero_off = x->div_zero_off;
    xe->ev.div_zero_error = x->div_zero_error;
    if (x->div_precision_increment)
        xe->ev.div_precision_increment = x->div_precision_increment;
    if (x->max_allowed_packet)
        xe->ev.max_allowed_packet = x->max_allowed_packet;
    xe->ev.conn_coll = x->conn_coll;
    xe->ev.regex_flags = x->regex_flags;
}

int row_eval(row_eval_t *xe, const sql_expr_t *e, const value_t *row, value_t *out)
{
    xe->ev.row = row;
    return sql_expr_eval(&xe->ev, e, out);
}

int row_eval_bool(row_eval_t *xe, const sql_expr_t *e, const value_t *row)
{
    value_t v;
    int rc = row_eval(xe, e, row, &v);
    if (rc)
        return rc;
    return v.type != VAL_NULL && value_to_bool(&v, xe->x->diag);
}
