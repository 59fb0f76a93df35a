/*
 * The join order.  A FROM of inner joins (JOIN, CROSS JOIN, commas; no LEFT / RIGHT, no STRAIGHT_JOIN) may be
 * read in any order: every ON is then a condition on the whole combined row, as WHERE is.  The order is chosen
 * by estimated cost: for each order, the rows each source is expected to read per row of the sources before
 * it (the access path choose_path picks when those sources' columns are known, from the tables' statistics),
 * summed over the rows that reach it (System R's nested-loop cost, as MariaDB's greedy search uses).  Up to
 * JOIN_DP_MAX sources every subset is costed once (dynamic programming over subsets); above that the order is
 * built greedily, the cheapest next source each time.
 *
 * The FROM order stays unless another is clearly cheaper (JOIN_SWITCH), and whenever a table source has no
 * statistics yet: without them the estimates are guesses, and the user's order is the better guess.
 *
 * Whatever the order, each ON is evaluated at the depth where every source it names has been read (an ON
 * with a subquery or a volatile function: at the last depth), so an order never changes which rows come out.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "util/util.h"
#include "sql/exec/query_int.h"

#define JOIN_DP_MAX 8
#define JOIN_SWITCH 0.7 /* another order is taken when it costs less than this share of FROM order's */

/* Rows source si is expected to read through path p per row of the sources before it. */
static double path_rows(const query_t *q, uint32_t si, const access_path_t *p)
{
    const query_source_t *s = &q->src[si];
    if (s->is_virtual)
        return s->nvrows ? (double)s->nvrows : 1.0;
    return p->est_rows ? (double)p->est_rows : 1.0;
}

/* The share of the rows path p reads that the conditions on si's columns it does not use let through, by System
 * R's guesses where no statistics describe them: an equality 1/10, an IN list 1/10 per value, a range 1/3 (1/4
 * bounded on both sides), an OR of ranges 1/3.  The columns the path's index lookup or hash key uses are
 * counted in its rows already. */
static double filter_share(const query_t *q, uint32_t si, const access_path_t *p)
{
    const query_source_t *s = &q->src[si];
    if (s->is_virtual || !p->conds)
        return 1.0;
    const cat_table_t *t = s->t;
    double share = 1.0;
    for (uint32_t c = 0; c < t->ncols; c++) {
        const column_cond_t *cc = &p->conds[c];
        bool used = false;
        if (p->index >= 0) {
            const cat_index_t *ix = &t->idx[p->index];
            for (uint32_t k = 0; k < p->neq + (p->range ? 1u : 0u) && k < ix->ncols && !used; k++)
                used = ix->cols[k].col == c;
        }
        for (uint32_t k = 0; p->hashed && k < p->nhash && !used; k++)
            used = p->hcol[k] == c;
        if (used)
            continue;
        if (cc->eq)
            share *= 0.1;
        else if (cc->in)
            share *= fmin(1.0, 0.1 * (double)cc->nin);
        else if (cc->lo && cc->hi)
            share *= 0.25;
        else if (cc->lo || cc->hi || cc->nors)
            share *= 1.0 / 3.0;
    }
    return share;
}

/* The cost of reading si next, after the sources in mask, with rows combined rows reaching it; its path in *p
 * and the rows that leave it in *out. */
static double step_cost(query_t *q, uint32_t si, uint64_t mask, double rows, const sql_expr_t *where,
                        access_path_t *p, double *out, arena_t *a)
{
    q->jbefore[si] = mask;
    choose_path(q, si, where, p, a);
    double r = path_rows(q, si, p);
    if (p->hashed && p->nhash) {
        /* read once into a hash table (a row kept costs about two read), then one lookup per outer row finding
         * r / 10 rows per key column (System R's selectivity of an equality no statistics describe) */
        double m = fmax(1.0, r * pow(0.1, (double)p->nhash));
        *out = rows * m * filter_share(q, si, p);
        return 2.0 * r + rows * (1.0 + m);
    }
    *out = rows * r * filter_share(q, si, p);
    /* every lookup descends a tree; a full scan per outer row reads r rows (a flat join buffer tries as many) */
    return rows * (r + (p->index >= 0 ? 1.0 : 0.0)) + (p->hashed ? 2.0 * r : 0.0);
}

typedef struct dp_cell {
    double cost, rows;
    int last;          /* the source read last in the best order of this subset; -1: not costed */
} dp_cell_t;

static double order_cost(query_t *q, const uint32_t *order, const sql_expr_t *where, arena_t *a)
{
    double cost = 0, rows = 1;
    uint64_t mask = 0;
    access_path_t p;
    for (uint32_t d = 0; d < q->nsrc; d++) {
        double out;
        cost += step_cost(q, order[d], mask, rows, where, &p, &out, a);
        rows = out;
        mask |= (uint64_t)1 << order[d];
    }
    return cost;
}

static void best_order_dp(query_t *q, const sql_expr_t *where, uint32_t *order, arena_t *a)
{
    uint32_t n = q->nsrc;
    size_t cells = (size_t)1 << n;
    dp_cell_t *dp = arena_alloc(a, sizeof *dp * cells);
    for (size_t m = 0; m < cells; m++)
        dp[m].last = -1;
    dp[0] = (dp_cell_t){0, 1, -1};
    access_path_t p;
    for (size_t m = 1; m < cells; m++) {
        for (uint32_t s = 0; s < n; s++) {
            if (!(m & ((size_t)1 << s)))
                continue;
            size_t prev = m & ~((size_t)1 << s);
            if (prev && dp[prev].last < 0)
                continue;
            double out;
            double c = dp[prev].cost + step_cost(q, s, prev, dp[prev].rows, where, &p, &out, a);
            if (dp[m].last < 0 || c < dp[m].cost) {
                dp[m].cost = c;
                dp[m].rows = out;
                dp[m].last = (int)s;
            }
        }
    }
    size_t m = cells - 1;
    for (uint32_t d = n; d-- > 0;) {
        order[d] = (uint32_t)dp[m].last;
        m &= ~((size_t)1 << order[d]);
    }
}

static void best_order_greedy(query_t *q, const sql_expr_t *where, uint32_t *order, arena_t *a)
{
    uint64_t mask = 0;
    double rows = 1;
    access_path_t p;
    for (uint32_t d = 0; d < q->nsrc; d++) {
        int best = -1;
        double best_cost = 0, best_out = 0;
        for (uint32_t s = 0; s < q->nsrc; s++) {
            if (mask & ((uint64_t)1 << s))
                continue;
            double out, c = step_cost(q, s, mask, rows, where, &p, &out, a);
            if (best < 0 || c < best_cost) {
                best = (int)s;
                best_cost = c;
                best_out = out;
            }
        }
        order[d] = (uint32_t)best;
        mask |= (uint64_t)1 << best;
        rows = best_out;
    }
}

/* May the sources be read in another order than FROM's? */
static bool reorderable(const query_t *q)
{
    if (q->nsrc < 2 || q->nsrc > 64 || q->locking || q->cur_pk)
        return false;
    for (uint32_t i = 0; i < q->nsrc; i++) {
        const query_source_t *s = &q->src[i];
        if ((i && s->join != SQL_JOIN_INNER && s->join != SQL_JOIN_CROSS) || s->group_last || s->in_group)
            return false;
    }
    return true;
}

/* Every table source has statistics (ANALYZE TABLE, or the automatic recount). */
static bool have_statistics(const query_t *q)
{
    for (uint32_t i = 0; i < q->nsrc; i++) {
        uint64_t rows;
        if (!q->src[i].is_virtual && !stats_table_rows(sql_exec_catalog(), q->src[i].t, &rows))
            return false;
    }
    return true;
}

void plan_join(query_t *q, const sql_expr_t *where, access_path_t *paths, arena_t *a)
{
    q->jorder = NULL;
    q->jpos = NULL;
    q->jbefore = NULL;
    q->jon = NULL;
    q->jnon = NULL;
    q->jinner = reorderable(q);
    if (!q->jinner) {
        for (uint32_t i = 0; i < q->nsrc; i++)
            choose_path(q, i, where, &paths[i], a);
        return;
    }
    uint32_t n = q->nsrc;
    uint32_t *order = arena_alloc(a, sizeof(uint32_t) * n);
    for (uint32_t d = 0; d < n; d++)
        order[d] = d;
    q->jbefore = arena_calloc(a, sizeof(uint64_t) * n);
    q->jinner = true;
    if (!q->no_reorder && have_statistics(q)) {
        uint32_t *best = arena_alloc(a, sizeof(uint32_t) * n);
        if (n <= JOIN_DP_MAX)
            best_order_dp(q, where, best, a);
        else
            best_order_greedy(q, where, best, a);
        double from_cost = order_cost(q, order, where, a), best_cost = order_cost(q, best, where, a);
        if (best_cost < from_cost * JOIN_SWITCH)
            memcpy(order, best, sizeof(uint32_t) * n);
    }
    plan_join_set(q, order, a);
    for (uint32_t i = 0; i < n; i++)
        choose_path(q, i, where, &paths[i], a);
}

uint32_t join_depth(const query_t *q, const sql_expr_t *e, uint64_t also)
{
    bool pure = true;
    uint64_t m = expr_src_mask(q, e, &pure) | also;
    if (!pure)
        return q->nsrc - 1;
    uint32_t d = 0;
    for (uint32_t k = 0; k < q->nsrc; k++)
        if (m & ((uint64_t)1 << k))
            d = MAX(d, q->jpos[k]);
    return d;
}

void plan_join_set(query_t *q, uint32_t *order, arena_t *a)
{
    uint32_t n = q->nsrc;
    q->jinner = true;
    q->jorder = order;
    if (!q->jbefore)
        q->jbefore = arena_calloc(a, sizeof(uint64_t) * n);
    q->jpos = arena_alloc(a, sizeof(uint32_t) * n);
    uint64_t mask = 0;
    for (uint32_t d = 0; d < n; d++) {
        q->jpos[order[d]] = d;
        q->jbefore[order[d]] = mask;
        mask |= (uint64_t)1 << order[d];
    }
    /* each ON where every source it names has been read */
    q->jon = arena_calloc(a, sizeof(*q->jon) * n);
    q->jnon = arena_calloc(a, sizeof(uint32_t) * n);
    for (uint32_t i = 0; i < n; i++) {
        const sql_expr_t *on = q->src[i].on;
        if (!on)
            continue;
        uint32_t d = join_depth(q, on, (uint64_t)1 << i);
        const sql_expr_t **l = arena_alloc(a, sizeof(*l) * (q->jnon[d] + 1));
        if (q->jnon[d])
            memcpy(l, q->jon[d], sizeof(*l) * q->jnon[d]);
        l[q->jnon[d]++] = on;
        q->jon[d] = l;
    }
}
