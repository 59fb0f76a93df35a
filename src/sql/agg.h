/*
 * Aggregate accumulators: the building blocks the executor drives for GROUP BY.  One sql_agg_t per aggregate
 * call per group:
 *
 *   sql_agg_t g;
 *   sql_agg_init(&g, call, &opts);          // call: a SQL_E_FUNC with sql_agg_is_aggregate(call)
 *   for each row of the group: bind the row (ctx->row / column_get), then sql_agg_add(&g, ctx);
 *   sql_agg_result(&g, ctx, &v);            // MySQL's result type (below); may be called more than once
 *   sql_agg_reset(&g) to reuse for the next group, sql_agg_free(&g) at the end (it owns malloc'd memory).
 *
 * sql_agg_add evaluates the call's arguments (and GROUP_CONCAT's ORDER BY keys) itself with ctx; NULL arguments
 * are skipped as SQL says (COUNT(a, b) / GROUP_CONCAT skip a row when any argument is NULL).  Values are copied:
 * the executor may reset per-row memory between adds.  The result is allocated in ctx->arena.
 *
 * Result types (MySQL / MariaDB):
 *   COUNT(*) / COUNT(x) / COUNT(DISTINCT x, ...)   VAL_INT, 0 for no rows
 *   SUM(x)   integer or DECIMAL x: VAL_DECIMAL with x's scale;  other x: VAL_DOUBLE;   no rows: NULL
 *   AVG(x)   integer or DECIMAL x: VAL_DECIMAL, scale = x's scale + div_precision_increment (max 38);
 *            other x: VAL_DOUBLE;  no rows: NULL
 *   MIN / MAX            the argument's own value (comparison by value_compare: collation-aware)
 *   GROUP_CONCAT         VAL_STRING, cut at group_concat_max_len bytes with warning 1260
 *   BIT_AND / BIT_OR / BIT_XOR   VAL_UINT (BIT_AND of no rows = 18446744073709551615)
 *   STD / STDDEV / STDDEV_POP / VARIANCE / VAR_POP / STDDEV_SAMP / VAR_SAMP   VAL_DOUBLE (NULL: no rows, or one
 *            row for the _SAMP forms)
 */
#ifndef STRATA_SQL_AGG_H
#define STRATA_SQL_AGG_H

#include "sql/ast.h"

struct sql_eval_ctx;

typedef struct sql_agg_opts {
    uint64_t group_concat_max_len;   /* @@group_concat_max_len (MariaDB default 1048576) */
    uint32_t div_precision_increment;/* @@div_precision_increment (default 4) */
} sql_agg_opts_t;

typedef struct sql_agg_entry sql_agg_entry_t;

typedef struct sql_agg {
    const sql_expr_t *call;
    sql_fn_t fn;
    sql_agg_opts_t opts;
    uint64_t count;            /* rows counted (non-NULL arguments) */
    /* SUM / AVG */
    int mode;                  /* 0 undecided, 1 decimal, 2 double */
    __int128 dsum;             /* decimal sum, scaled by 10^dscale */
    int dscale;
    bool overflow;
    double fsum, fsumsq;       /* double sum; STD/VARIANCE use Welford's mean/m2 below */
    double mean, m2;
    /* MIN / MAX */
    value_t best;
    bool have_best;
    char *best_buf;            /* owned copy of best's bytes */
    /* BIT_* */
    uint64_t bits;
    /* GROUP_CONCAT: entries (text + sort keys); DISTINCT: hash set of keys */
    sql_agg_entry_t **entries;
    uint32_t nentries, capentries;
    uint64_t *hashes;          /* DISTINCT: open-addressing set of 64-bit hashes + full keys */
    char **hkeys;
    size_t *hklen;
    uint32_t hcap, hn;
} sql_agg_t;

/* True for COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, BIT_*, STD*, VAR*. */
bool sql_agg_is_aggregate(const sql_expr_t *e);
void sql_agg_init(sql_agg_t *g, const sql_expr_t *call, const sql_agg_opts_t *opts);
int sql_agg_add(sql_agg_t *g, struct sql_eval_ctx *ctx);
int sql_agg_result(sql_agg_t *g, struct sql_eval_ctx *ctx, value_t *out);
void sql_agg_reset(sql_agg_t *g);
void sql_agg_free(sql_agg_t *g);

#endif
