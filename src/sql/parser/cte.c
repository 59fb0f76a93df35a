/*
 * WITH elements are resolved where they are written, not where they run: a table reference without a
 * database that names a WITH element in scope points at that element (sql_from_t.cte) once the select body
 * holding the WITH is parsed.  Bodies are resolved innermost first, and a reference already resolved is left
 * alone, so an inner WITH's name shadows an outer one's and a non-recursive element's own name inside its
 * body reaches the outer scope (or a table), as in MariaDB.  Visibility inside element i: the elements before
 * it, or with RECURSIVE every element of the clause including itself.
 */
#include <string.h>
#include "sql/parser/parser_int.h"
#include "util/errors.h"

typedef struct walk {
    const sql_cte_t *ctes;
    uint32_t n;               /* visible: ctes[0 .. n-1] */
    sql_cte_t *defining;      /* the element whose body is being walked (self-reference makes it recursive) */
} walk_t;

static void walk_select(const walk_t *w, sql_select_t *s);

static void walk_expr(const walk_t *w, sql_expr_t *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->nargs; i++)
        walk_expr(w, e->args[i]);
    walk_expr(w, e->else_expr);
    for (uint32_t i = 0; i < e->nagg_order; i++)
        walk_expr(w, e->agg_order[i].expr);
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
        (e->kind == SQL_E_IN && e->sub))
        walk_select(w, e->sub);
}

static void walk_from(const walk_t *w, sql_from_t *f)
{
    if (!f)
        return;
    switch (f->kind) {
    case SQL_FROM_TABLE:
        if (f->table.db || f->cte)
            return;
        for (uint32_t i = w->n; i-- > 0;)
            if (strcmp(w->ctes[i].name, f->table.name) == 0) {
                f->cte = &w->ctes[i];
                if (&w->ctes[i] == w->defining)
                    w->defining->recursive = true;
                return;
            }
        return;
    case SQL_FROM_DERIVED:
        walk_select(w, f->derived);
        return;
    case SQL_FROM_JSON_TABLE:
        walk_expr(w, f->jt->doc);
        return;
    case SQL_FROM_JOIN:
        walk_from(w, f->left);
        walk_from(w, f->right);
        walk_expr(w, f->on);
        return;
    }
}

static void walk_select(const walk_t *w, sql_select_t *first)
{
    for (sql_select_t *s = first; s; s = s->union_next) {
        for (uint32_t i = 0; i < s->nctes; i++) /* an inner WITH's elements may name outer ones */
            walk_select(w, s->ctes[i].select);
        for (uint32_t i = 0; i < s->nitems; i++)
            walk_expr(w, s->items[i].expr);
        walk_from(w, s->from);
        walk_expr(w, s->where);
        for (uint32_t i = 0; i < s->ngroup_by; i++)
            walk_expr(w, s->group_by[i]);
        walk_expr(w, s->having);
        for (uint32_t i = 0; i < s->norder_by; i++)
            walk_expr(w, s->order_by[i].expr);
        for (uint32_t i = 0; i < s->nunion_order_by; i++)
            walk_expr(w, s->union_order_by[i].expr);
        walk_expr(w, s->limit.count);
        walk_expr(w, s->limit.offset);
        walk_expr(w, s->union_limit.count);
        walk_expr(w, s->union_limit.offset);
    }
}

int sql_resolve_ctes(sql_select_t *s, diag_t *d)
{
    for (uint32_t i = 0; i < s->nctes; i++)
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(s->ctes[i].name, s->ctes[k].name) == 0) {
                diag_error(d, ER_DUP_QUERY_NAME, s->ctes[i].name);
                return -1;
            }
    for (uint32_t i = 0; i < s->nctes; i++) {
        walk_t w = {s->ctes, s->with_recursive ? s->nctes : i, s->with_recursive ? &s->ctes[i] : NULL};
        walk_select(&w, s->ctes[i].select);
    }
    /* the body: the select the WITH is written on and the members of its UNION, but not its elements again */
    walk_t w = {s->ctes, s->nctes, NULL};
    sql_cte_t *ctes = s->ctes;
    uint32_t n = s->nctes;
    s->nctes = 0;
    walk_select(&w, s);
    s->nctes = n;
    s->ctes = ctes;
    return 0;
}
