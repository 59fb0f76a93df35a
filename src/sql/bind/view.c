/*
 * Views merged into the statements that write through them.  A view whose SELECT can be merged (MariaDB's
 * rules: one SELECT over tables, no DISTINCT, GROUP BY, HAVING, aggregate, window function, LIMIT or RAND(),
 * not ALGORITHM=TEMPTABLE) is taken apart into its FROM (the views under it merged in turn, so that only base
 * tables remain), its WHERE and one expression per column over those tables (view_merge).  A write through the
 * view is then the same write on the base table (view_dml_rewrite): its SET list and column list name the base
 * columns a view column stands for (a column that is an expression is not updatable: 1348), its WHERE, ORDER BY
 * and RETURNING see the expressions, and its WHERE gains the view's.  The executor runs the rewritten statement
 * through the table's own paths, so triggers, foreign keys, generated columns, CHECK constraints, RETURNING and
 * the binlog's row events are the base table's.  WITH CHECK OPTION becomes conditions the executor evaluates
 * with the table's CHECKs on every row written (constraints.c): LOCAL the view's own WHERE, CASCADED every
 * level's, as MariaDB 10.11 checks them (a view without the option checks nothing, whatever the views under it
 * say).
 *
 * The rewritten trees are copies in the statement arena; the statement as parsed is never changed (its
 * privileges were checked on the view, by its name).
 */
#include <string.h>
#include <strings.h>

#include "sql/bind/view.h"
#include "sql/exec/query_int.h"
#include "sql/parser/parser.h"
#include "util/util.h"

/* ---------------------------------------------------------------- expression copies */

static sql_expr_t *expr_copy(arena_t *a, const sql_expr_t *e)
{
    if (!e)
        return NULL;
    sql_expr_t *n = arena_alloc(a, sizeof *n);
    *n = *e;
    n->slot = -1;
    if (e->nargs) {
        n->args = arena_alloc(a, sizeof(sql_expr_t *) * e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++)
            n->args[i] = expr_copy(a, e->args[i]);
    }
    n->else_expr = expr_copy(a, e->else_expr);
    return n;
}

static bool expr_any(const sql_expr_t *e, bool (*pred)(const sql_expr_t *))
{
    if (!e)
        return false;
    if (pred(e))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (expr_any(e->args[i], pred))
            return true;
    return expr_any(e->else_expr, pred);
}

static bool is_window(const sql_expr_t *e) { return e->kind == SQL_E_FUNC && e->over; }
static bool is_rand(const sql_expr_t *e) { return e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_RAND; }
static bool is_aggregate(const sql_expr_t *e) { return sql_expr_is_aggregate(e); }

static bool has_sub(const sql_expr_t *e)
{
    return e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
           (e->kind == SQL_E_IN && e->sub);
}

static sql_expr_t *expr_and(arena_t *a, sql_expr_t *l, sql_expr_t *r)
{
    if (!l)
        return r;
    if (!r)
        return l;
    sql_expr_t *n = arena_calloc(a, sizeof *n);
    n->kind = SQL_E_BINARY;
    n->op = SQL_OP_AND;
    n->nargs = 2;
    n->args = arena_alloc(a, sizeof(sql_expr_t *) * 2);
    n->args[0] = l;
    n->args[1] = r;
    n->slot = -1;
    n->src = "";
    return n;
}

static sql_expr_t *column_ref(arena_t *a, const char *db, const char *table, const char *name)
{
    sql_expr_t *n = arena_calloc(a, sizeof *n);
    n->kind = SQL_E_COLUMN;
    n->col = (sql_ident3_t){.db = db, .table = table, .name = name};
    n->slot = -1;
    n->src = name;
    n->src_len = (uint32_t)strlen(name);
    return n;
}

/* ---------------------------------------------------------------- merging */

bool view_select_mergeable(const sql_select_t *sel)
{
    if (sel->union_next || sel->distinct || sel->ngroup_by || sel->having || sel->limit.count || !sel->from ||
        sel->nwindows || sel->nctes || expr_any(sel->where, is_rand))
        return false;
    for (uint32_t i = 0; i < sel->nitems; i++) {
        const sql_expr_t *e = sel->items[i].expr;
        if (expr_any(e, is_aggregate) || expr_any(e, is_window) || expr_any(e, is_rand))
            return false;
    }
    for (uint32_t i = 0; i < sel->norder_by; i++)
        if (expr_any(sel->order_by[i].expr, is_aggregate))
            return false;
    return true;
}

/* What a reference inside a view can name: a base table of its FROM, or a view merged into it. */
typedef struct member {
    const char *db, *name;   /* the table (base) */
    const char *ref;         /* what references qualify it by: its alias, else its name */
    bool alias;
    view_merge_t *vm;        /* a merged view */
    cat_table_t *t;          /* a base table's definition (held until its level's merge ends) */
} member_t;

typedef struct merge_run {
    sql_exec_ctx_t *x;
    view_merge_t *out;
    member_t *m;
    uint32_t nm, cap;
    sql_from_t **joins;      /* join nodes of this level, whose ON conditions see this level's members */
    uint32_t njoins, jcap;
    bool derived;            /* a derived table or a CTE in FROM: not written through */
} merge_run_t;

static void add_member(merge_run_t *R, member_t m)
{
    if (R->nm == R->cap) {
        R->cap = R->cap ? R->cap * 2 : 4;
        member_t *n = arena_alloc(R->x->arena, sizeof *n * R->cap);
        if (R->nm)
            memcpy(n, R->m, sizeof *n * R->nm);
        R->m = n;
    }
    R->m[R->nm++] = m;
}

static bool table_has(const cat_table_t *t, const char *col)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (strcasecmp(t->cols[i].name, col) == 0)
            return true;
    return false;
}

static int view_col(const view_merge_t *vm, const char *col)
{
    for (uint32_t i = 0; i < vm->ncols; i++)
        if (strcasecmp(vm->names[i], col) == 0)
            return (int)i;
    return -1;
}

/* The member a column reference names (NULL: none; the binder gives its error). */
static const member_t *ref_member(const member_t *m, uint32_t nm, const sql_ident3_t *c)
{
    for (uint32_t i = 0; i < nm; i++) {
        if (c->table) {
            if (strcmp(m[i].ref, c->table) != 0 || (c->db && (m[i].alias || strcmp(m[i].db, c->db) != 0)))
                continue;
            return &m[i];
        }
        if (m[i].vm ? view_col(m[i].vm, c->name) >= 0 : table_has(m[i].t, c->name))
            return &m[i];
    }
    return NULL;
}

/* A copy of e whose column references name base tables: a merged view's column becomes its expression. */
static sql_expr_t *merge_expr(merge_run_t *R, const sql_expr_t *e)
{
    if (!e)
        return NULL;
    if (e->kind == SQL_E_COLUMN) {
        const member_t *m = ref_member(R->m, R->nm, &e->col);
        if (m && m->vm) {
            int i = view_col(m->vm, e->col.name);
            if (i >= 0)
                return expr_copy(R->x->arena, m->vm->exprs[i]);
        }
        sql_expr_t *n = expr_copy(R->x->arena, e);
        if (m) {
            n->col.table = m->ref;
            n->col.db = m->alias ? NULL : m->db;
        }
        return n;
    }
    sql_expr_t *n = arena_alloc(R->x->arena, sizeof *n);
    *n = *e;
    n->slot = -1;
    if (e->nargs) {
        n->args = arena_alloc(R->x->arena, sizeof(sql_expr_t *) * e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++)
            n->args[i] = merge_expr(R, e->args[i]);
    }
    n->else_expr = merge_expr(R, e->else_expr);
    return n;
}

static int merge_view(sql_exec_ctx_t *x, const char *db, const char *name, view_merge_t *out);
static int merge_level(merge_run_t *R, const sql_select_t *sel);

/* f's tree with every view merged away; the views' WHEREs go to R->out. */
static int merge_from(merge_run_t *R, const sql_from_t *f, bool in_outer, sql_from_t **res)
{
    sql_exec_ctx_t *x = R->x;
    view_merge_t *V = R->out;
    if (f->kind == SQL_FROM_DERIVED || f->kind == SQL_FROM_JSON_TABLE || (f->kind == SQL_FROM_TABLE && f->cte)) {
        R->derived = true;
        *res = NULL;
        return 0;
    }
    if (f->kind == SQL_FROM_JOIN) {
        sql_from_t *n = arena_alloc(x->arena, sizeof *n);
        *n = *f;
        bool outer = in_outer || f->join == SQL_JOIN_LEFT || f->join == SQL_JOIN_RIGHT;
        if (f->join == SQL_JOIN_LEFT || f->join == SQL_JOIN_RIGHT)
            V->outer_join = true;
        uint32_t before = R->nm;
        int rc = merge_from(R, f->left, outer, &n->left);
        if (!rc)
            rc = merge_from(R, f->right, outer, &n->right);
        if (rc)
            return rc;
        for (uint32_t i = before; i < R->nm; i++)
            if (R->m[i].vm && (f->natural || f->nusing))
                V->writable = V->updatable = V->checkable = false; /* USING over a merged view's columns: not merged */
        if (R->njoins == R->jcap) {
            R->jcap = R->jcap ? R->jcap * 2 : 4;
            sql_from_t **nj = arena_alloc(x->arena, sizeof *nj * R->jcap);
            if (R->njoins)
                memcpy(nj, R->joins, sizeof *nj * R->njoins);
            R->joins = nj;
        }
        R->joins[R->njoins++] = n;
        *res = n;
        return 0;
    }
    const char *tdb = f->table.db ? f->table.db : V->v.db;
    const char *ref = f->alias ? f->alias : f->table.name;
    if (strcasecmp(tdb, "information_schema") == 0 || strcasecmp(tdb, "performance_schema") == 0) {
        V->writable = V->updatable = V->checkable = false;
        *res = NULL;
        return 0;
    }
    int mrc = exec_mdl_shared(x, tdb, f->table.name);
    if (mrc)
        return mrc;
    cat_table_t *t = catalog_table_get(sql_exec_catalog(), tdb, f->table.name);
    if (t) {
        add_member(R, (member_t){.db = tdb, .name = f->table.name, .ref = ref, .alias = f->alias != NULL, .t = t});
        sql_from_t *n = arena_alloc(x->arena, sizeof *n);
        *n = *f;
        n->table.db = tdb;
        V->nbase++;
        *res = n;
        return 0;
    }
    view_merge_t *in = arena_calloc(x->arena, sizeof *in);
    int r = merge_view(x, tdb, f->table.name, in);
    if (r < 0)
        return r;
    if (r == 1) {
        diag_error(x->diag, ER_VIEW_INVALID, V->v.db, V->v.name);
        return -ER_VIEW_INVALID;
    }
    if (!in->updatable)
        V->updatable = V->checkable = false;
    if (!in->writable || !in->from) {
        V->writable = false;
        *res = NULL;
        return 0;
    }
    if (in->outer_join)
        V->outer_join = true;
    if (in_outer && in->where)
        V->writable = V->updatable = V->checkable = false; /* its WHERE belongs in the outer join's ON: not merged */
    add_member(R, (member_t){.db = tdb, .name = f->table.name, .ref = ref, .alias = f->alias != NULL, .vm = in});
    V->where = expr_and(x->arena, V->where, in->where);
    for (uint32_t i = 0; i < in->nconds; i++) {
        sql_expr_t **nc = arena_alloc(x->arena, sizeof *nc * (V->nconds + 1));
        if (V->nconds)
            memcpy(nc, V->conds, sizeof *nc * V->nconds);
        nc[V->nconds++] = in->conds[i];
        V->conds = nc;
    }
    V->nbase += in->nbase;
    *res = in->from;
    return 0;
}

/* Does a subquery of e read one of the view's own base tables?  MariaDB then refuses writes through it. */
static bool sub_reads(const merge_run_t *R, const sql_expr_t *e)
{
    if (!e)
        return false;
    if (has_sub(e) && e->sub) {
        for (const sql_select_t *s = e->sub; s; s = s->union_next) {
            const sql_from_t *stack[64];
            int sp = 0;
            if (s->from)
                stack[sp++] = s->from;
            while (sp) {
                const sql_from_t *f = stack[--sp];
                if (f->kind == SQL_FROM_JOIN) {
                    if (sp < 62) {
                        stack[sp++] = f->left;
                        stack[sp++] = f->right;
                    }
                    continue;
                }
                if (f->kind != SQL_FROM_TABLE)
                    continue;
                const char *db = f->table.db ? f->table.db : R->out->v.db;
                for (uint32_t i = 0; i < R->nm; i++)
                    if (!R->m[i].vm && strcmp(R->m[i].db, db) == 0 && strcmp(R->m[i].name, f->table.name) == 0)
                        return true;
            }
        }
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (sub_reads(R, e->args[i]))
            return true;
    return sub_reads(R, e->else_expr);
}

static int merge_def(sql_exec_ctx_t *x, view_merge_t *out);

static int merge_view(sql_exec_ctx_t *x, const char *db, const char *name, view_merge_t *out)
{
    memset(out, 0, sizeof *out);
    int r = catalog_view_get(sql_exec_catalog(), x->arena, db, name, &out->v);
    if (r < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (r == 0)
        return 1;
    return merge_def(x, out);
}

int view_merge_def(sql_exec_ctx_t *x, const cat_view_t *v, view_merge_t *out)
{
    memset(out, 0, sizeof *out);
    out->v = *v;
    return merge_def(x, out);
}

static int merge_def(sql_exec_ctx_t *x, view_merge_t *out)
{
    const char *db = out->v.db, *name = out->v.name;
    if (x->view_depth >= 32)
        return diag_error(x->diag, ER_VIEW_RECURSIVE, db, name);
    sql_stmt_list_t l;
    if (sql_parse(x->arena, out->v.text, strlen(out->v.text), &l, x->diag) != 0 || l.n != 1 ||
        l.stmts[0]->kind != SQL_STMT_SELECT) {
        diag_clear(x->diag);
        return diag_error(x->diag, ER_VIEW_INVALID, db, name);
    }
    const sql_select_t *sel = l.stmts[0]->select;
    out->names = out->v.cols;
    out->ncols = out->v.ncols;
    out->updatable = out->writable = out->checkable =
        view_select_mergeable(sel) && strcmp(out->v.algorithm, "TEMPTABLE") != 0;
    if (!out->updatable)
        return 0;
    merge_run_t R = {.x = x, .out = out};
    x->view_depth++;
    int rc = merge_from(&R, sel->from, false, &out->from);
    x->view_depth--;
    if (!rc)
        rc = merge_level(&R, sel);
    for (uint32_t i = 0; i < R.nm; i++)
        if (R.m[i].t)
            catalog_table_release(R.m[i].t);
    return rc;
}

/* The level's columns, WHERE and ON conditions over its members, once its FROM is merged. */
static int merge_level(merge_run_t *R_, const sql_select_t *sel)
{
    merge_run_t R = *R_;
    sql_exec_ctx_t *x = R.x;
    view_merge_t *out = R.out;
    const char *db = out->v.db, *name = out->v.name;
    if (R.derived) {
        out->writable = false; /* MariaDB: IS_UPDATABLE says YES, a write is 1288 */
        return 0;
    }
    if (!out->writable || !out->from)
        return 0;
    for (uint32_t i = 0; i < R.njoins; i++)
        R.joins[i]->on = merge_expr(&R, R.joins[i]->on);
    /* the columns: `*` and `t.*` stand for the columns of every member (of t) in order */
    sql_expr_t **ex = arena_calloc(x->arena, sizeof *ex * (out->ncols + 1));
    uint32_t n = 0;
    bool plain = false;
    for (uint32_t i = 0; i < sel->nitems; i++) {
        const sql_expr_t *e = sel->items[i].expr;
        if (e->kind != SQL_E_STAR) {
            if (n < out->ncols)
                ex[n] = merge_expr(&R, e);
            plain |= n < out->ncols && ex[n]->kind == SQL_E_COLUMN;
            n++;
            continue;
        }
        for (uint32_t k = 0; k < R.nm; k++) {
            const member_t *m = &R.m[k];
            if (e->col.table && strcmp(e->col.table, m->ref) != 0)
                continue;
            if (m->vm) {
                for (uint32_t c = 0; c < m->vm->ncols; c++, n++)
                    if (n < out->ncols) {
                        ex[n] = expr_copy(x->arena, m->vm->exprs[c]);
                        plain |= ex[n]->kind == SQL_E_COLUMN;
                    }
            } else {
                for (uint32_t c = 0; c < m->t->ncols; c++) {
                    if (m->t->cols[c].invisible)
                        continue;
                    if (n < out->ncols)
                        ex[n] = column_ref(x->arena, m->alias ? NULL : m->db, m->ref, m->t->cols[c].name);
                    plain = true;
                    n++;
                }
            }
        }
    }
    if (n != out->ncols)
        return diag_error(x->diag, ER_VIEW_INVALID, db, name);
    out->exprs = ex;
    if (!plain)
        out->updatable = out->writable = false;
    out->own_where = merge_expr(&R, sel->where);
    if (sub_reads(&R, sel->where))
        out->writable = out->checkable = false;
    for (uint32_t i = 0; i < sel->nitems; i++)
        if (sub_reads(&R, sel->items[i].expr))
            out->writable = out->checkable = false;
    if (out->own_where) {
        sql_expr_t **nc = arena_alloc(x->arena, sizeof *nc * (out->nconds + 1));
        nc[0] = out->own_where;
        if (out->nconds)
            memcpy(nc + 1, out->conds, sizeof *nc * out->nconds);
        out->conds = nc;
        out->nconds++;
    }
    out->where = expr_and(x->arena, out->own_where, out->where);
    return 0;
}

int view_merge(sql_exec_ctx_t *x, const char *db, const char *name, view_merge_t *out)
{
    return merge_view(x, db, name, out);
}

bool view_is_updatable(sql_exec_ctx_t *x, const cat_view_t *v)
{
    diag_t scratch, *keep = x->diag;
    diag_init(&scratch, 4);
    x->diag = &scratch;
    view_merge_t vm;
    int rc = view_merge(x, v->db, v->name, &vm);
    x->diag = keep;
    diag_free(&scratch);
    return rc == 0 && vm.updatable;
}

/* The statement's references to the view's columns, replaced by what they stand for. */
typedef struct outer {
    sql_exec_ctx_t *x;
    const view_merge_t *vm;
    const char *ref;         /* the view's name or the statement's alias for it */
    const char *clause;      /* for 1054 */
    int rc;
} outer_t;

static sql_expr_t *outer_expr(outer_t *O, const sql_expr_t *e)
{
    if (!e || O->rc)
        return NULL;
    if (e->kind == SQL_E_COLUMN) {
        int i = e->col.table && strcmp(e->col.table, O->ref) != 0 ? -1 : view_col(O->vm, e->col.name);
        if (i < 0) {
            const char *full = e->col.table ? arena_printf(O->x->arena, "%s.%s", e->col.table, e->col.name)
                                            : e->col.name;
            O->rc = diag_error(O->x->diag, ER_BAD_FIELD_ERROR, full, O->clause);
            return NULL;
        }
        return expr_copy(O->x->arena, O->vm->exprs[i]);
    }
    sql_expr_t *n = arena_alloc(O->x->arena, sizeof *n);
    *n = *e;
    n->slot = -1;
    if (e->nargs) {
        n->args = arena_alloc(O->x->arena, sizeof(sql_expr_t *) * e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++)
            n->args[i] = outer_expr(O, e->args[i]);
    }
    n->else_expr = outer_expr(O, e->else_expr);
    return n;
}

/* ---------------------------------------------------------------- reads through a view (MERGE) */

typedef struct pushdown {
    const view_merge_t *vm;
    const char *alias;
    bool only;
} pushdown_t;

/* Can a conjunct of the outer WHERE be evaluated on the view's rows alone, with the same result? */
static bool pushable(const pushdown_t *P, const sql_expr_t *e)
{
    if (!e)
        return true;
    switch (e->kind) {
    case SQL_E_COLUMN:
        if (e->col.table ? strcmp(e->col.table, P->alias) != 0 || (e->col.db && strcmp(e->col.db, P->vm->v.db) != 0)
                         : !P->only)
            return false;
        return view_col(P->vm, e->col.name) >= 0;
    case SQL_E_SUBQUERY: case SQL_E_EXISTS: case SQL_E_QUANTIFIED: case SQL_E_ASSIGN: case SQL_E_STAR:
    case SQL_E_DEFAULT:
        return false;
    case SQL_E_IN:
        if (e->sub)
            return false;
        break;
    case SQL_E_FUNC:
        if (e->over || sql_expr_is_aggregate(e) || (sql_fn_flags(e->func.fn) & SQL_FNF_VOLATILE) ||
            e->func.fn == SQL_FN_UNKNOWN)
            return false;
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!pushable(P, e->args[i]))
            return false;
    return pushable(P, e->else_expr);
}

static sql_expr_t *push_conjuncts(const pushdown_t *P, outer_t *O, const sql_expr_t *e, sql_expr_t *acc)
{
    if (e->kind == SQL_E_BINARY && e->op == SQL_OP_AND) {
        acc = push_conjuncts(P, O, e->args[0], acc);
        return push_conjuncts(P, O, e->args[1], acc);
    }
    if (!pushable(P, e))
        return acc;
    sql_expr_t *c = outer_expr(O, e);
    return O->rc || !c ? acc : expr_and(O->x->arena, acc, c);
}

int view_read_select(sql_exec_ctx_t *x, const cat_view_t *v, const char *alias, const sql_expr_t *where, bool only,
                     sql_select_t **out)
{
    diag_t scratch, *keep = x->diag;
    diag_init(&scratch, 4);
    x->diag = &scratch;
    view_merge_t *vm = arena_calloc(x->arena, sizeof *vm);
    int rc = view_merge_def(x, v, vm);
    sql_expr_t *pushed = NULL;
    outer_t O = {.x = x, .vm = vm, .ref = alias, .clause = "WHERE"};
    if (rc == 0 && vm->updatable && vm->exprs && vm->from) {
        pushdown_t P = {.vm = vm, .alias = alias, .only = only};
        pushed = push_conjuncts(&P, &O, where, NULL);
    }
    x->diag = keep;
    diag_free(&scratch);
    if (!pushed || O.rc)
        return 1;
    sql_select_t *sel = arena_calloc(x->arena, sizeof *sel);
    sel->nitems = vm->ncols;
    sel->items = arena_calloc(x->arena, sizeof *sel->items * vm->ncols);
    for (uint32_t i = 0; i < vm->ncols; i++) {
        sel->items[i].expr = expr_copy(x->arena, vm->exprs[i]);
        sel->items[i].alias = vm->names[i];
    }
    sel->from = vm->from;
    sel->where = expr_and(x->arena, expr_copy(x->arena, vm->where), pushed);
    *out = sel;
    return 0;
}

/* ---------------------------------------------------------------- writes through a view */

/* The view column a SET / column list names, as the base column it is: *owner the table reference. */
static int target_col(outer_t *O, const char *table, const char *name, const char **base, const char **owner)
{
    int i = table && strcmp(table, O->ref) != 0 ? -1 : view_col(O->vm, name);
    if (i < 0) {
        const char *full = table ? arena_printf(O->x->arena, "%s.%s", table, name) : name;
        return O->rc = diag_error(O->x->diag, ER_BAD_FIELD_ERROR, full, O->clause);
    }
    const sql_expr_t *e = O->vm->exprs[i];
    if (e->kind != SQL_E_COLUMN)
        return O->rc = diag_error(O->x->diag, ER_NONUPDATEABLE_COLUMN, O->vm->names[i]);
    *base = e->col.name;
    *owner = e->col.table;
    return 0;
}

static sql_select_item_t *outer_items(outer_t *O, const sql_select_item_t *it, uint32_t n)
{
    if (!n)
        return NULL;
    sql_select_item_t *r = arena_alloc(O->x->arena, sizeof *r * n);
    for (uint32_t i = 0; i < n; i++) {
        r[i] = it[i];
        if (it[i].expr->kind == SQL_E_STAR) {
            O->rc = diag_error(O->x->diag, ER_NOT_SUPPORTED_YET, "RETURNING * through a view");
            return NULL;
        }
        r[i].expr = outer_expr(O, it[i].expr);
        if (!r[i].alias && it[i].expr->src)
            r[i].alias = it[i].expr->kind == SQL_E_COLUMN ? it[i].expr->col.name
                                                           : arena_strndup(O->x->arena, it[i].expr->src, it[i].expr->src_len);
    }
    return r;
}

static sql_order_item_t *outer_order(outer_t *O, const sql_order_item_t *o, uint32_t n)
{
    if (!n)
        return NULL;
    sql_order_item_t *r = arena_alloc(O->x->arena, sizeof *r * n);
    for (uint32_t i = 0; i < n; i++) {
        r[i] = o[i];
        r[i].expr = outer_expr(O, o[i].expr);
    }
    return r;
}

/* The base table leaf whose reference is `owner`. */
static const sql_from_t *leaf_of(const sql_from_t *f, const char *owner)
{
    if (!f)
        return NULL;
    if (f->kind == SQL_FROM_JOIN) {
        const sql_from_t *l = leaf_of(f->left, owner);
        return l ? l : leaf_of(f->right, owner);
    }
    return strcmp(f->alias ? f->alias : f->table.name, owner) == 0 ? f : NULL;
}

/* A copy of e with its column references unqualified (CHECK OPTION conditions, bound to the base table). */
static sql_expr_t *unqualify(arena_t *a, const sql_expr_t *e)
{
    sql_expr_t *n = expr_copy(a, e);
    if (!n)
        return NULL;
    if (n->kind == SQL_E_COLUMN) {
        n->col.table = NULL;
        n->col.db = NULL;
    }
    for (uint32_t i = 0; i < n->nargs; i++)
        n->args[i] = unqualify(a, n->args[i]);
    n->else_expr = n->else_expr ? unqualify(a, n->else_expr) : NULL;
    return n;
}

static int not_updatable(sql_exec_ctx_t *x, const view_merge_t *vm, const char *what, bool insert)
{
    return insert ? diag_error(x->diag, ER_NON_INSERTABLE_TABLE, vm->v.name, what)
                  : diag_error(x->diag, ER_NON_UPDATABLE_TABLE, vm->v.name, what);
}

static int make_check(sql_exec_ctx_t *x, const view_merge_t *vm, const sql_from_t *leaf, view_check_t **chk)
{
    *chk = NULL;
    const char *opt = vm->v.check_option;
    if (!opt || strcmp(opt, "NONE") == 0)
        return 0;
    bool cascaded = strcmp(opt, "CASCADED") == 0;
    uint32_t n = cascaded ? vm->nconds : vm->own_where ? 1 : 0;
    if (!n)
        return 0;
    if (vm->nbase > 1)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "a write through a join view WITH CHECK OPTION");
    view_check_t *c = arena_calloc(x->arena, sizeof *c);
    c->db = vm->v.db;
    c->name = vm->v.name;
    c->tdb = leaf->table.db;
    c->tname = leaf->table.name;
    c->conds = arena_alloc(x->arena, sizeof(sql_expr_t *) * n);
    for (uint32_t i = 0; i < n; i++)
        c->conds[i] = unqualify(x->arena, cascaded ? vm->conds[i] : vm->own_where);
    c->n = n;
    *chk = c;
    return 0;
}

/* The view a statement writes to: 0 and *vm, 1 when it is a table (or missing: the DML path says so). */
static int target_view(sql_exec_ctx_t *x, const sql_name_t *n, view_merge_t *vm)
{
    if (!n->db && !x->db)
        return 1; /* the DML path's 1046 */
    const char *db = exec_db_name(x, n->db);
    const char *rdb = db, *rname = n->name;
    if (exec_temp_map(x, &rdb, &rname) || catalog_db_is_virtual(db))
        return 1;
    cat_table_t *t = catalog_table_get(sql_exec_catalog(), db, n->name);
    if (t) {
        catalog_table_release(t);
        return 1;
    }
    cat_view_t v;
    if (catalog_view_get(sql_exec_catalog(), x->arena, db, n->name, &v) <= 0)
        return 1;
    int rc = exec_mdl_shared(x, db, n->name);
    if (rc)
        return rc;
    return view_merge(x, db, n->name, vm);
}

static int rewrite_update(sql_exec_ctx_t *x, const sql_update_t *up, view_merge_t *vm, sql_update_t **res,
                          view_check_t **chk)
{
    if (!vm->writable)
        return not_updatable(x, vm, "UPDATE", false);
    sql_update_t *u = arena_alloc(x->arena, sizeof *u);
    *u = *up;
    outer_t O = {.x = x, .vm = vm, .ref = up->tables->alias ? up->tables->alias : vm->v.name, .clause = "SET"};
    const char *owner = NULL;
    u->set = arena_alloc(x->arena, sizeof *u->set * (up->nset + 1));
    for (uint32_t i = 0; i < up->nset; i++) {
        const char *base, *own;
        if (target_col(&O, up->set[i].col->col.table, up->set[i].col->col.name, &base, &own))
            return O.rc;
        if (owner && strcmp(owner, own) != 0)
            return diag_error(x->diag, ER_VIEW_MULTIUPDATE, vm->v.db, vm->v.name);
        owner = own;
        u->set[i].col = column_ref(x->arena, NULL, own, base);
        u->set[i].value = outer_expr(&O, up->set[i].value);
    }
    O.clause = "FROM";
    u->where = expr_and(x->arena, expr_copy(x->arena, vm->where), outer_expr(&O, up->where));
    O.clause = "ORDER BY";
    u->order_by = outer_order(&O, up->order_by, up->norder_by);
    if (O.rc)
        return O.rc;
    const sql_from_t *leaf = leaf_of(vm->from, owner);
    if (vm->nbase > 1) {
        u->tables = vm->from;
        u->multi = true;
    } else {
        u->tables = (sql_from_t *)leaf;
    }
    *res = u;
    return make_check(x, vm, leaf, chk);
}

static int rewrite_delete(sql_exec_ctx_t *x, const sql_delete_t *del, view_merge_t *vm, sql_delete_t **res)
{
    if (!vm->writable || vm->outer_join)
        return not_updatable(x, vm, "DELETE", false);
    if (vm->nbase > 1)
        return diag_error(x->diag, ER_VIEW_DELETE_MERGE_VIEW, vm->v.db, vm->v.name);
    sql_delete_t *d = arena_alloc(x->arena, sizeof *d);
    *d = *del;
    outer_t O = {.x = x, .vm = vm, .ref = del->from->alias ? del->from->alias : vm->v.name, .clause = "FROM"};
    d->from = vm->from;
    d->where = expr_and(x->arena, expr_copy(x->arena, vm->where), outer_expr(&O, del->where));
    O.clause = "ORDER BY";
    d->order_by = outer_order(&O, del->order_by, del->norder_by);
    O.clause = "field list";
    d->returning = outer_items(&O, del->returning, del->nreturning);
    if (O.rc)
        return O.rc;
    *res = d;
    return 0;
}

/* An INSERT's (or LOAD DATA's) columns named through the view: the base columns, all of one table (*leaf). */
static int insert_cols(outer_t *O, const char *const *cols, uint32_t n, bool all, const char ***res,
                       const sql_from_t **leaf)
{
    sql_exec_ctx_t *x = O->x;
    const view_merge_t *vm = O->vm;
    if (all && vm->nbase > 1)
        return diag_error(x->diag, ER_VIEW_NO_INSERT_FIELD_LIST, vm->v.db, vm->v.name);
    if (all) {
        cols = vm->names;
        n = vm->ncols;
    }
    const char **r = arena_alloc(x->arena, sizeof *r * (n + 1));
    const char *owner = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const char *own;
        int vc = view_col(vm, cols[i]);
        if (vc >= 0 && vm->exprs[vc]->kind != SQL_E_COLUMN)
            return not_updatable(x, vm, "INSERT", true); /* MariaDB: 1471, where UPDATE's SET says 1348 */
        if (target_col(O, NULL, cols[i], &r[i], &own))
            return O->rc;
        if (owner && strcmp(owner, own) != 0)
            return diag_error(x->diag, ER_VIEW_MULTIUPDATE, vm->v.db, vm->v.name);
        owner = own;
    }
    if (!owner) { /* INSERT INTO v () VALUES (): the first table */
        const sql_from_t *f = vm->from;
        while (f->kind == SQL_FROM_JOIN)
            f = f->left;
        *leaf = f;
    } else {
        *leaf = leaf_of(vm->from, owner);
    }
    *res = r;
    return 0;
}

static int rewrite_insert(sql_exec_ctx_t *x, const sql_insert_t *ins, view_merge_t *vm, sql_insert_t **res,
                          view_check_t **chk)
{
    if (!vm->writable || vm->outer_join)
        return not_updatable(x, vm, "INSERT", true);
    sql_insert_t *I = arena_alloc(x->arena, sizeof *I);
    *I = *ins;
    outer_t O = {.x = x, .vm = vm, .ref = vm->v.name, .clause = "field list"};
    const sql_from_t *leaf = NULL;
    int rc;
    if (ins->nset) {
        const char **names = arena_alloc(x->arena, sizeof *names * ins->nset);
        for (uint32_t i = 0; i < ins->nset; i++)
            names[i] = ins->set[i].col->col.name;
        const char **base;
        if ((rc = insert_cols(&O, names, ins->nset, false, &base, &leaf)) != 0)
            return rc;
        I->set = arena_alloc(x->arena, sizeof *I->set * ins->nset);
        for (uint32_t i = 0; i < ins->nset; i++) {
            I->set[i].col = column_ref(x->arena, NULL, NULL, base[i]);
            I->set[i].value = ins->set[i].value;
        }
    } else if ((rc = insert_cols(&O, ins->cols, ins->ncols, ins->cols == NULL, &I->cols, &leaf)) != 0) {
        return rc;
    } else {
        I->ncols = ins->cols ? ins->ncols : vm->ncols;
    }
    if (ins->non_dup) {
        O.clause = "field list";
        I->on_dup = arena_alloc(x->arena, sizeof *I->on_dup * ins->non_dup);
        for (uint32_t i = 0; i < ins->non_dup; i++) {
            const char *base, *own;
            if (target_col(&O, ins->on_dup[i].col->col.table, ins->on_dup[i].col->col.name, &base, &own))
                return O.rc;
            if (strcmp(own, leaf->alias ? leaf->alias : leaf->table.name) != 0)
                return diag_error(x->diag, ER_VIEW_MULTIUPDATE, vm->v.db, vm->v.name);
            I->on_dup[i].col = column_ref(x->arena, NULL, NULL, base);
            I->on_dup[i].value = unqualify(x->arena, outer_expr(&O, ins->on_dup[i].value));
        }
    }
    I->returning = outer_items(&O, ins->returning, ins->nreturning);
    for (uint32_t i = 0; I->returning && i < ins->nreturning; i++)
        I->returning[i].expr = unqualify(x->arena, I->returning[i].expr);
    if (O.rc)
        return O.rc;
    I->table = leaf->table;
    I->alias = NULL;
    *res = I;
    return make_check(x, vm, leaf, chk);
}

static int rewrite_load(sql_exec_ctx_t *x, const sql_load_t *ld, view_merge_t *vm, sql_load_t **res,
                        view_check_t **chk)
{
    if (!vm->writable || vm->outer_join)
        return not_updatable(x, vm, "LOAD", true);
    sql_load_t *L = arena_alloc(x->arena, sizeof *L);
    *L = *ld;
    outer_t O = {.x = x, .vm = vm, .ref = vm->v.name, .clause = "field list"};
    const sql_from_t *leaf = NULL;
    uint32_t n = ld->has_targets ? ld->ntargets : vm->ncols;
    const char **names = arena_alloc(x->arena, sizeof *names * (n + 1));
    uint32_t nn = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!ld->has_targets || ld->targets[i]->kind == SQL_E_COLUMN)
            names[nn++] = ld->has_targets ? ld->targets[i]->col.name : vm->names[i];
    for (uint32_t i = 0; i < ld->nset; i++) {
        const char **nn2 = arena_alloc(x->arena, sizeof *nn2 * (nn + 1));
        memcpy(nn2, names, sizeof *nn2 * nn);
        nn2[nn++] = ld->set[i].col->col.name;
        names = nn2;
    }
    for (uint32_t i = 0; i < nn; i++) { /* MariaDB: 1348 here, where INSERT says 1471 */
        int vc = view_col(vm, names[i]);
        if (vc >= 0 && vm->exprs[vc]->kind != SQL_E_COLUMN)
            return diag_error(x->diag, ER_NONUPDATEABLE_COLUMN, vm->names[vc]);
    }
    const char **base;
    int rc = insert_cols(&O, names, nn, false, &base, &leaf);
    if (rc)
        return rc;
    L->targets = arena_alloc(x->arena, sizeof *L->targets * (n + 1));
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        L->targets[i] = ld->has_targets && ld->targets[i]->kind != SQL_E_COLUMN ? ld->targets[i]
                                                                                 : column_ref(x->arena, NULL, NULL, base[k++]);
    L->ntargets = n;
    L->has_targets = true;
    if (ld->nset) {
        L->set = arena_alloc(x->arena, sizeof *L->set * ld->nset);
        for (uint32_t i = 0; i < ld->nset; i++) {
            L->set[i].col = column_ref(x->arena, NULL, NULL, base[k++]);
            L->set[i].value = ld->set[i].value;
        }
    }
    L->table = leaf->table;
    *res = L;
    return make_check(x, vm, leaf, chk);
}

/* ---- multi-table UPDATE / DELETE naming one-table views: each merged in place under its name ---- */

typedef struct multi_view {
    const char *ref;         /* the view's name or alias in the statement: its base table's alias now */
    view_merge_t *vm;
    sql_expr_t **exprs;      /* vm's columns qualified by ref */
} multi_view_t;

typedef struct multi_run {
    sql_exec_ctx_t *x;
    multi_view_t *v;
    uint32_t n;
    sql_expr_t *where;       /* the views' WHEREs */
    const char *clause;
    int rc;
} multi_run_t;

static sql_expr_t *requalify(arena_t *a, const sql_expr_t *e, const char *ref)
{
    sql_expr_t *n = expr_copy(a, e);
    if (!n)
        return NULL;
    if (n->kind == SQL_E_COLUMN) {
        n->col.table = ref;
        n->col.db = NULL;
    }
    for (uint32_t i = 0; i < n->nargs; i++)
        n->args[i] = requalify(a, n->args[i], ref);
    n->else_expr = n->else_expr ? requalify(a, n->else_expr, ref) : NULL;
    return n;
}

/* The merged view a column reference names, and the column (-1: the reference is to none of them). */
static const multi_view_t *multi_ref(multi_run_t *M, const sql_ident3_t *c, int *col)
{
    for (uint32_t i = 0; i < M->n; i++) {
        if (c->table && strcmp(c->table, M->v[i].ref) != 0)
            continue;
        *col = view_col(M->v[i].vm, c->name);
        if (*col >= 0 || c->table)
            return &M->v[i];
    }
    *col = -1;
    return NULL;
}

static sql_expr_t *multi_expr(multi_run_t *M, const sql_expr_t *e)
{
    if (!e || M->rc)
        return NULL;
    if (e->kind == SQL_E_COLUMN) {
        int col;
        const multi_view_t *v = multi_ref(M, &e->col, &col);
        if (v && col < 0) {
            M->rc = diag_error(M->x->diag, ER_BAD_FIELD_ERROR,
                               arena_printf(M->x->arena, "%s.%s", e->col.table, e->col.name), M->clause);
            return NULL;
        }
        return v ? expr_copy(M->x->arena, v->exprs[col]) : expr_copy(M->x->arena, e);
    }
    sql_expr_t *n = arena_alloc(M->x->arena, sizeof *n);
    *n = *e;
    n->slot = -1;
    if (e->nargs) {
        n->args = arena_alloc(M->x->arena, sizeof(sql_expr_t *) * e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++)
            n->args[i] = multi_expr(M, e->args[i]);
    }
    n->else_expr = multi_expr(M, e->else_expr);
    return n;
}

/* f's tree with every one-table view merged in place; 1 in *any when one was. */
static int multi_from(multi_run_t *M, const sql_from_t *f, sql_from_t **res)
{
    sql_exec_ctx_t *x = M->x;
    sql_from_t *n = arena_alloc(x->arena, sizeof *n);
    *n = *f;
    *res = n;
    if (f->kind == SQL_FROM_JOIN) {
        int rc = multi_from(M, f->left, &n->left);
        return rc ? rc : multi_from(M, f->right, &n->right);
    }
    if (f->kind != SQL_FROM_TABLE || f->cte)
        return 0;
    view_merge_t *vm = arena_calloc(x->arena, sizeof *vm);
    int rc = target_view(x, &f->table, vm);
    if (rc < 0)
        return rc;
    if (rc == 1 || !vm->writable || vm->nbase != 1 || vm->from->kind != SQL_FROM_TABLE)
        return 0; /* read as a derived table (a target there is refused by the multi-table path) */
    if (vm->v.check_option && strcmp(vm->v.check_option, "NONE") != 0)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "a multi-table write through a view WITH CHECK OPTION");
    const char *ref = f->alias ? f->alias : vm->v.name;
    const char *base = vm->from->alias ? vm->from->alias : vm->from->table.name;
    (void)base;
    multi_view_t *nv = arena_alloc(x->arena, sizeof *nv * (M->n + 1));
    if (M->n)
        memcpy(nv, M->v, sizeof *nv * M->n);
    M->v = nv;
    multi_view_t *mv = &M->v[M->n++];
    mv->ref = ref;
    mv->vm = vm;
    mv->exprs = arena_alloc(x->arena, sizeof(sql_expr_t *) * (vm->ncols + 1));
    for (uint32_t i = 0; i < vm->ncols; i++)
        mv->exprs[i] = requalify(x->arena, vm->exprs[i], ref);
    M->where = expr_and(x->arena, M->where, vm->where ? requalify(x->arena, vm->where, ref) : NULL);
    *n = *vm->from;
    n->alias = ref;
    n->on = f->on;
    return 0;
}

static void multi_on(multi_run_t *M, sql_from_t *f)
{
    if (f->kind != SQL_FROM_JOIN)
        return;
    multi_on(M, f->left);
    multi_on(M, f->right);
    M->clause = "on clause";
    f->on = multi_expr(M, f->on);
}

static int rewrite_multi(sql_exec_ctx_t *x, const sql_stmt_t *st, sql_stmt_t *n)
{
    multi_run_t M = {.x = x};
    bool upd = st->kind == SQL_STMT_UPDATE;
    sql_from_t *from;
    int rc = multi_from(&M, upd ? st->update->tables : st->del->from, &from);
    if (rc)
        return rc;
    if (!M.n)
        return 1;
    multi_on(&M, from);
    if (upd) {
        const sql_update_t *up = st->update;
        sql_update_t *u = arena_alloc(x->arena, sizeof *u);
        *u = *up;
        u->tables = from;
        u->set = arena_alloc(x->arena, sizeof *u->set * (up->nset + 1));
        M.clause = "SET";
        for (uint32_t i = 0; i < up->nset; i++) {
            int col;
            const multi_view_t *v = multi_ref(&M, &up->set[i].col->col, &col);
            u->set[i] = up->set[i];
            if (v && col < 0)
                return diag_error(x->diag, ER_BAD_FIELD_ERROR,
                                  arena_printf(x->arena, "%s.%s", up->set[i].col->col.table, up->set[i].col->col.name),
                                  "SET");
            if (v && v->exprs[col]->kind != SQL_E_COLUMN)
                return diag_error(x->diag, ER_NONUPDATEABLE_COLUMN, v->vm->names[col]);
            if (v)
                u->set[i].col = expr_copy(x->arena, v->exprs[col]);
            u->set[i].value = multi_expr(&M, up->set[i].value);
        }
        M.clause = "where clause";
        u->where = expr_and(x->arena, M.where, multi_expr(&M, up->where));
        n->update = u;
    } else {
        sql_delete_t *d = arena_alloc(x->arena, sizeof *d);
        *d = *st->del;
        d->from = from;
        M.clause = "where clause";
        d->where = expr_and(x->arena, M.where, multi_expr(&M, st->del->where));
        n->del = d;
    }
    return M.rc;
}

int view_dml_rewrite(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_stmt_t **out, view_check_t **chk)
{
    const sql_name_t *target;
    *chk = NULL;
    switch (st->kind) {
    case SQL_STMT_INSERT: case SQL_STMT_REPLACE:
        if (st->insert->bulk)
            return 1;
        target = &st->insert->table;
        break;
    case SQL_STMT_UPDATE: case SQL_STMT_DELETE: {
        bool multi = st->kind == SQL_STMT_UPDATE ? st->update->multi || st->update->tables->kind != SQL_FROM_TABLE
                                                 : st->del->multi || st->del->from->kind != SQL_FROM_TABLE;
        if (multi) {
            sql_stmt_t *n = arena_alloc(x->arena, sizeof *n);
            *n = *st;
            int rc = rewrite_multi(x, st, n);
            if (rc == 0)
                *out = n;
            return rc;
        }
        target = st->kind == SQL_STMT_UPDATE ? &st->update->tables->table : &st->del->from->table;
        break;
    }
    case SQL_STMT_LOAD_DATA:
        target = &st->load->table;
        break;
    default:
        return 1;
    }
    view_merge_t *vm = arena_calloc(x->arena, sizeof *vm);
    int rc = target_view(x, target, vm);
    if (rc)
        return rc;
    sql_stmt_t *n = arena_alloc(x->arena, sizeof *n);
    *n = *st;
    switch (st->kind) {
    case SQL_STMT_INSERT: case SQL_STMT_REPLACE:
        rc = rewrite_insert(x, st->insert, vm, &n->insert, chk);
        break;
    case SQL_STMT_UPDATE:
        rc = rewrite_update(x, st->update, vm, &n->update, chk);
        break;
    case SQL_STMT_DELETE:
        rc = rewrite_delete(x, st->del, vm, &n->del);
        break;
    default:
        rc = rewrite_load(x, st->load, vm, &n->load, chk);
        break;
    }
    if (rc)
        return rc;
    *out = n;
    return 0;
}
