/*
 * INSERT / REPLACE / DELETE ... RETURNING (MariaDB 10.5+): the statement answers with a result set of its
 * RETURNING items, evaluated over each row it wrote (the row as stored, after defaults and AUTO_INCREMENT; the
 * row ON DUPLICATE KEY UPDATE left; the row DELETE removed), instead of the OK.
 *
 * The items are a select list over the one table being written: they are bound through the SELECT pipeline
 * (select_run_prepare_over, so `*`, aliases, names and column metadata are a SELECT's), evaluated as each row
 * is written (an error fails the statement and undoes it), and kept in statement memory.  The result set goes
 * out where the OK would have (exec_run, returning_end), once the statement's transaction is settled, so a
 * failed autocommit commit is the statement's error and no row of an undone statement reaches the client.
 *
 * As in MariaDB: an aggregate among the items is 1111, a subquery reading the table an INSERT / REPLACE with
 * VALUES or SET writes is 1093 (INSERT ... SELECT and DELETE may read it: they see the statement's own changes),
 * an unknown column is 1054 "in 'RETURNING'"; UPDATE has no RETURNING (a syntax error, in the parser).
 */
#include <string.h>
#include <strings.h>
#include "sql/exec/query_int.h"
#include "util/util.h"

struct returning {
    select_run_t s;           /* the items bound over the table (its source is the caller's, not released) */
    value_t **rows;           /* the items' values per written row, in statement memory */
    uint64_t n, cap;
    bool have_cols;
};

static bool names_table(sql_exec_ctx_t *x, const sql_name_t *n, const char *db, const char *name)
{
    const char *ndb = n->db ? n->db : x->db;
    return ndb && strcmp(ndb, db) == 0 && strcmp(n->name, name) == 0;
}

static bool select_reads(sql_exec_ctx_t *x, const sql_select_t *sel, const char *db, const char *name);

static bool expr_reads(sql_exec_ctx_t *x, const sql_expr_t *e, const char *db, const char *name)
{
    if (!e)
        return false;
    if ((e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
         (e->kind == SQL_E_IN && e->sub)) && e->sub && select_reads(x, e->sub, db, name))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (expr_reads(x, e->args[i], db, name))
            return true;
    return e->kind == SQL_E_CASE && expr_reads(x, e->else_expr, db, name);
}

static bool from_reads(sql_exec_ctx_t *x, const sql_from_t *f, const char *db, const char *name)
{
    if (!f)
        return false;
    switch (f->kind) {
    case SQL_FROM_TABLE:
        return !f->cte && names_table(x, &f->table, db, name);
    case SQL_FROM_DERIVED:
        return select_reads(x, f->derived, db, name);
    case SQL_FROM_JSON_TABLE:
        return expr_reads(x, f->jt->doc, db, name);
    case SQL_FROM_JOIN:
        return from_reads(x, f->left, db, name) || from_reads(x, f->right, db, name) || expr_reads(x, f->on, db, name);
    }
    return false;
}

/* Does sel (or anything nested in it) read db.name? */
static bool select_reads(sql_exec_ctx_t *x, const sql_select_t *sel, const char *db, const char *name)
{
    for (; sel; sel = sel->union_next) {
        if (from_reads(x, sel->from, db, name) || expr_reads(x, sel->where, db, name) ||
            expr_reads(x, sel->having, db, name))
            return true;
        for (uint32_t i = 0; i < sel->nitems; i++)
            if (expr_reads(x, sel->items[i].expr, db, name))
                return true;
        for (uint32_t i = 0; i < sel->nctes; i++)
            if (select_reads(x, sel->ctes[i].select, db, name))
                return true;
    }
    return false;
}

/* Binds the items over t as db.alias; the items' own checks first (1054 'RETURNING', 1111, 1093). */
static int returning_bind(sql_exec_ctx_t *x, select_run_t *s, const sql_select_item_t *items, uint32_t n,
                          cat_table_t *t, const char *db, const char *alias, const char *verb)
{
    query_t q;
    exec_single_def(&q, x, t, db);
    if (alias)
        q.src[0].alias = alias;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        sql_expr_t *e = items[i].expr;
        if (e->kind == SQL_E_STAR)
            continue;
        if (verb && expr_reads(x, e, db, t->name)) {
            rc = diag_error(x->diag, ER_UPDATE_TABLE_USED, t->name, verb);
            break;
        }
        if ((rc = bind_expr(&q, e, "RETURNING", true)) != 0)
            break;
        if (q.nagg || q.nwin)
            rc = diag_error(x->diag, q.nwin ? ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION : ER_INVALID_GROUP_FUNC_USE);
    }
    query_release(&q);
    if (rc)
        return rc;
    sql_select_t *sel = arena_calloc(x->arena, sizeof *sel);
    sel->items = (sql_select_item_t *)items;
    sel->nitems = n;
    exec_single_def(&q, x, t, db);
    if (alias)
        q.src[0].alias = alias;
    return select_run_prepare_over(s, x, sel, &q);
}

int returning_begin(sql_exec_ctx_t *x, const sql_select_item_t *items, uint32_t n, cat_table_t *t, const char *db,
                    const char *alias, const char *verb)
{
    returning_t *r = arena_calloc(x->arena, sizeof *r);
    x->returning = r;
    return returning_bind(x, &r->s, items, n, t, db, alias, verb);
}

int returning_row(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *stored)
{
    returning_t *r = x->returning;
    select_run_t *s = &r->s;
    arena_reset(&s->rowa);
    value_t *row = arena_alloc(&s->rowa, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++)
        row[c] = table_value_out(&t->cols[c], &stored[c], &s->rowa);
    value_t *vals = arena_alloc(x->arena, sizeof(value_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++) {
        value_t v;
        int rc = row_eval(&s->xe, s->items[i].expr, row, &v);
        if (rc)
            return rc;
        vals[i] = value_copy_into(x->arena, &v);
    }
    if (r->n == r->cap) {
        uint64_t cap = r->cap ? r->cap * 2 : 16;
        value_t **nr = arena_alloc(x->arena, sizeof(value_t *) * cap);
        if (r->n)
            memcpy(nr, r->rows, sizeof(value_t *) * r->n);
        r->rows = nr;
        r->cap = cap;
    }
    r->rows[r->n++] = vals;
    return 0;
}

static const char *dup_str(arena_t *a, const char *s)
{
    return s ? arena_strdup(a, s) : NULL;
}

/* Column metadata from the bound items and the first row, in statement memory (the table is released after). */
static void returning_columns(sql_exec_ctx_t *x, returning_t *r, res_col_t *cols)
{
    select_run_t *s = &r->s;
    for (uint32_t i = 0; i < s->nitems; i++) {
        item_col(s, i, r->n ? &r->rows[0][i] : NULL, &cols[i]);
        cols[i].schema = dup_str(x->arena, cols[i].schema);
        cols[i].table = dup_str(x->arena, cols[i].table);
        cols[i].org_table = dup_str(x->arena, cols[i].org_table);
        cols[i].name = dup_str(x->arena, cols[i].name);
        cols[i].org_name = dup_str(x->arena, cols[i].org_name);
    }
}

void returning_finish(sql_exec_ctx_t *x)
{
    returning_t *r = x->returning;
    if (!r || r->have_cols)
        return;
    r->s.cols = arena_calloc(x->arena, sizeof(res_col_t) * (r->s.nitems + 1));
    returning_columns(x, r, r->s.cols);
    r->have_cols = true;
    r->s.sel = NULL; /* send_row takes the metadata as it is */
}

void returning_end(sql_exec_ctx_t *x, bool send)
{
    returning_t *r = x->returning;
    if (!r)
        return;
    x->returning = NULL;
    if (send && r->have_cols) {
        for (uint64_t i = 0; i < r->n; i++) {
            arena_reset(&r->s.rowa);
            send_row(&r->s, r->rows[i]);
        }
        send_columns(&r->s);
        x->sink->rows_end(x->sink, x->more);
        sql_exec_note(x->ss, SQLX_NOTE_RESULT_SET);
    }
    r->s.q.nsrc = 0; /* the caller's table: not this one's to release */
    select_run_free(&r->s);
}

int returning_describe(sql_exec_ctx_t *x, const sql_stmt_t *st, res_col_t **cols, int *ncols)
{
    const sql_select_item_t *items;
    uint32_t n;
    const sql_name_t *tn;
    const char *alias = NULL, *verb;
    if (st->kind == SQL_STMT_DELETE) {
        if (st->del->multi || !st->del->nreturning)
            return 0;
        items = st->del->returning;
        n = st->del->nreturning;
        tn = &st->del->from->table;
        alias = st->del->from->alias;
        verb = NULL;
    } else {
        items = st->insert->returning;
        n = st->insert->nreturning;
        tn = &st->insert->table;
        verb = st->insert->select ? NULL : "INSERT";
    }
    if (!n)
        return 0;
    const char *db;
    cat_table_t *t = exec_open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    returning_t r;
    memset(&r, 0, sizeof r);
    int rc = returning_bind(x, &r.s, items, n, t, db, alias, verb);
    if (rc == 0) {
        res_col_t *c = arena_calloc(x->arena, sizeof(res_col_t) * (r.s.nitems + 1));
        returning_columns(x, &r, c);
        *cols = c;
        *ncols = (int)r.s.nitems;
    }
    r.s.q.nsrc = 0;
    select_run_free(&r.s);
    catalog_table_release(t);
    return rc;
}
