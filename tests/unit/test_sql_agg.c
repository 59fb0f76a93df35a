/*
 * The executor's aggregate accumulators (exec_agg.c, the ones GROUP BY runs) against MariaDB 10.11: each group
 * below was run in MariaDB as SELECT <aggregates> FROM (SELECT v UNION ALL ...) t and the result texts copied
 * here.  The rows are fed the way exec_select.c feeds them: one sql_agg_add per row, the arguments evaluated
 * in that row through the sql_agg_src_t, the group's memory in an arena reset between groups.
 */
#include <string.h>

#include "sql/exec/exec_int.h"
#include "unit.h"

typedef struct {
    const value_t *rows;
    uint32_t cur;
    sql_eval_ctx_t *ctx;
} feed_t;

static int col_get(void *user, const sql_expr_t *col, value_t *out, diag_t *d)
{
    feed_t *f = user;
    *out = f->rows[f->cur];
    return 0;
}

static uint64_t concat_max; /* GROUP_CONCAT's limit for run_diag (0: the default, 1 MiB) */

static int feed_eval(void *arg, const sql_expr_t *e, value_t *out)
{
    feed_t *f = arg;
    return sql_expr_eval(f->ctx, e, out);
}

/* Runs every select item of `q` (aggregates over column a) over rows; the result texts joined by '|'.  The
 * warnings go to *d when given. */
static const char *run_diag(arena_t *a, const char *q, const value_t *rows, uint32_t n, diag_t *d)
{
    diag_t own;
    diag_init(&own, 16);
    if (!d)
        d = &own;
    sql_stmt_list_t l;
    if (sql_parse(a, q, strlen(q), &l, d)) {
        diag_free(&own);
        return "PARSE ERROR";
    }
    sql_select_t *s = l.stmts[0]->select;
    sql_eval_cb_t cb = {.column_get = col_get};
    sql_eval_ctx_t ctx;
    feed_t f = {rows, 0, &ctx};
    sql_eval_ctx_init(&ctx, a, d, &cb, &f);
    arena_t group;
    arena_init(&group, 1024);
    buf_t out;
    buf_init(&out);
    for (uint32_t i = 0; i < s->nitems; i++) {
        const sql_expr_t *call = s->items[i].expr;
        sql_agg_t g;
        sql_agg_init(&g);
        sql_agg_src_t src = {feed_eval, &f, &group, d, concat_max};
        for (f.cur = 0; f.cur < n; f.cur++)
            if (sql_agg_add(&g, call, &src) != 0)
                buf_append_str(&out, "ERROR");
        value_t v = sql_agg_result(&g, call, a, 4, d);
        value_t again = sql_agg_result(&g, call, a, 4, d); /* reading twice gives the same */
        size_t tn, an;
        const char *t = value_to_text(a, &v, &tn), *t2 = value_to_text(a, &again, &an);
        if (i)
            buf_append(&out, "|", 1);
        if (v.type != VAL_NULL)
            buf_append(&out, t, tn);
        else
            buf_append(&out, "NULL", 4);
        if (v.type != again.type || tn != an || (tn && memcmp(t, t2, tn) != 0))
            buf_append_str(&out, "(changed when read again)");
        sql_agg_free(&g);
        arena_reset(&group);
    }
    const char *r = arena_strndup(a, (const char *)out.data, out.len);
    buf_free(&out);
    arena_destroy(&group);
    diag_free(&own);
    return r;
}

static const char *run(arena_t *a, const char *q, const value_t *rows, uint32_t n)
{
    return run_diag(a, q, rows, n, NULL);
}

TEST(test_agg_integers)
{
    arena_t a;
    arena_init(&a, 4096);
    value_t rows[] = {value_int(1), value_int(2), value_int(2), value_null(), value_int(5)};
    CHECK_EQ_STR(run(&a, "SELECT COUNT(a), COUNT(DISTINCT a), SUM(a), AVG(a), MIN(a), MAX(a), GROUP_CONCAT(a), "
                         "GROUP_CONCAT(DISTINCT a ORDER BY a DESC SEPARATOR '-'), BIT_AND(a), BIT_OR(a), BIT_XOR(a), "
                         "STD(a), VARIANCE(a), VAR_SAMP(a), STDDEV_SAMP(a), COUNT(*)",
                     rows, 5),
                 "4|3|10|2.5000|1|5|1,2,2,5|5-2-1|0|7|4|1.5000|2.2500|3.0000|1.7321|5");
    value_t three[] = {value_int(1), value_int(2), value_int(2)};
    CHECK_EQ_STR(run(&a, "SELECT AVG(a), STDDEV_POP(a), VAR_POP(a), STDDEV(a)", three, 3),
                 "1.6667|0.4714|0.2222|0.4714");
    /* no rows: COUNT 0, BIT_AND all ones, the others NULL */
    CHECK_EQ_STR(run(&a, "SELECT SUM(a), AVG(a), COUNT(*), COUNT(a), MIN(a), MAX(a), GROUP_CONCAT(a), BIT_AND(a), "
                         "BIT_OR(a), BIT_XOR(a), STD(a), VAR_SAMP(a)",
                     rows, 0),
                 "NULL|NULL|0|0|NULL|NULL|NULL|18446744073709551615|0|0|NULL|NULL");
    /* only NULLs: the same as no rows, except COUNT(*) */
    value_t nulls[] = {value_null(), value_null()};
    CHECK_EQ_STR(run(&a, "SELECT SUM(a), COUNT(*), COUNT(a), MAX(a), BIT_AND(a), GROUP_CONCAT(a)", nulls, 2),
                 "NULL|2|0|NULL|18446744073709551615|NULL");
    /* one row: the _SAMP forms are NULL, the population forms 0 */
    value_t one[] = {value_int(7)};
    CHECK_EQ_STR(run(&a, "SELECT VAR_SAMP(a), STDDEV_SAMP(a), VARIANCE(a), STD(a)", one, 1), "NULL|NULL|0.0000|0.0000");
    /* BIGINT sums do not overflow: exact in 128 bits, as MariaDB's DECIMAL sum */
    value_t big[] = {value_int(INT64_MAX), value_int(INT64_MAX), value_uint(UINT64_MAX)};
    CHECK_EQ_STR(run(&a, "SELECT SUM(a), AVG(a), MAX(a), MIN(a)", big, 3),
                 "36893488147419103229|12297829382473034409.6667|18446744073709551615|9223372036854775807");
    arena_destroy(&a);
}

TEST(test_agg_decimals_strings)
{
    arena_t a;
    arena_init(&a, 4096);
    value_t decs[] = {value_decimal(&a, "1.50", 4), value_decimal(&a, "2.25", 4), value_decimal(&a, "-0.50", 5)};
    CHECK_EQ_STR(run(&a, "SELECT COUNT(a), COUNT(DISTINCT a), SUM(a), AVG(a), MIN(a), MAX(a), GROUP_CONCAT(a ORDER BY a)",
                     decs, 3),
                 "3|3|3.25|1.083333|-0.50|2.25|-0.50,1.50,2.25");
    /* integers and decimals in one sum: exact, at the largest scale; 1 and 1.0 are one DISTINCT value */
    value_t mixed[] = {value_int(1), value_decimal(&a, "1.0", 3), value_decimal(&a, "0.125", 5)};
    CHECK_EQ_STR(run(&a, "SELECT SUM(a), COUNT(DISTINCT a), SUM(DISTINCT a)", mixed, 3), "2.125|2|1.125");
    value_t strs[] = {value_str("b", 1, COLL_DEFAULT), value_str("A", 1, COLL_DEFAULT), value_str("a", 1, COLL_DEFAULT),
                      value_str("c ", 2, COLL_DEFAULT), value_str("c", 1, COLL_DEFAULT)};
    /* utf8mb4_general_ci: 'A' = 'a' and 'c ' = 'c' (PAD SPACE), the first one seen kept */
    CHECK_EQ_STR(run(&a, "SELECT COUNT(DISTINCT a), MIN(a), MAX(a), GROUP_CONCAT(DISTINCT a ORDER BY a), SUM(a)", strs, 5),
                 "3|A|c |A,b,c |0");
    value_t dbl[] = {value_double(1.0), value_double(2.0)};
    CHECK_EQ_STR(run(&a, "SELECT AVG(a), SUM(a)", dbl, 2), "1.5|3");
    arena_destroy(&a);
}

TEST(test_agg_several_arguments)
{
    arena_t a;
    arena_init(&a, 4096);
    /* COUNT(DISTINCT a, a + 1) / GROUP_CONCAT(a, 'x'): a row with any NULL argument is skipped; GROUP_CONCAT(DISTINCT)
     * without ORDER BY gives its values in the order of their keys, as MariaDB reads its tree of them */
    value_t rows[] = {value_int(3), value_null(), value_int(1), value_int(3)};
    CHECK_EQ_STR(run(&a, "SELECT COUNT(DISTINCT a, a + 1), GROUP_CONCAT(a, 'x' ORDER BY a), "
                         "GROUP_CONCAT(DISTINCT a, '-' SEPARATOR ''), COUNT(a)",
                     rows, 4),
                 "2|1x,3x,3x|1-3-|3");
    arena_destroy(&a);
}

TEST(test_group_concat_cut)
{
    arena_t a;
    arena_init(&a, 4096);
    /* 300 rows of 'abcd' make 1499 bytes: whole under the default limit (1 MiB, MariaDB's), cut at the limit
     * given with one warning 1260 per aggregate naming the value cut in, read twice or not */
    value_t rows[300];
    for (int i = 0; i < 300; i++)
        rows[i] = value_str("abcd", 4, COLL_DEFAULT);
    diag_t d;
    diag_init(&d, 8);
    concat_max = 0;
    const char *r = run_diag(&a, "SELECT GROUP_CONCAT(a), GROUP_CONCAT(a ORDER BY a)", rows, 300, &d);
    CHECK_EQ_INT(strlen(r), 1499 + 1 + 1499);
    CHECK_EQ_INT(d.n, 0);
    concat_max = 12;
    r = run_diag(&a, "SELECT GROUP_CONCAT(a), GROUP_CONCAT(a ORDER BY a)", rows, 300, &d);
    CHECK_EQ_STR(r, "abcd,abcd,ab|abcd,abcd,ab");
    CHECK_EQ_INT(d.n, 2);
    CHECK(d.n >= 1 && d.conds[0].code == 1260 && strcmp(d.conds[0].msg, "Row 3 was cut by GROUP_CONCAT()") == 0);
    concat_max = 0;
    diag_free(&d);
    arena_destroy(&a);
}

UNIT_MAIN(test_agg_integers, test_agg_decimals_strings, test_agg_several_arguments, test_group_concat_cut)
