/*
 * Aggregate accumulators (agg.h) against MariaDB 10.11: each group below was run in MariaDB as
 * SELECT <aggregates> FROM (SELECT v UNION ALL ...) t and the result texts copied here.
 */
#include <string.h>

#include "sql/sql.h"
#include "unit.h"

typedef struct {
    const value_t *rows;
    uint32_t cur;
} feed_t;

static int col_get(void *user, const sql_expr_t *col, value_t *out, diag_t *d)
{
    feed_t *f = user;
    *out = f->rows[f->cur];
    return 0;
}

/* Runs every select item of `q` (aggregates over column a) over rows; returns the result texts joined by '|'. */
static const char *run(arena_t *a, const char *q, const value_t *rows, uint32_t n)
{
    diag_t d;
    diag_init(&d, 16);
    sql_stmt_list_t l;
    if (sql_parse(a, q, strlen(q), &l, &d)) {
        diag_free(&d);
        return "PARSE ERROR";
    }
    sql_select_t *s = l.stmts[0]->select;
    feed_t f = {rows, 0};
    sql_eval_cb_t cb = {.column_get = col_get};
    sql_eval_ctx_t ctx;
    sql_eval_ctx_init(&ctx, a, &d, &cb, &f);
    buf_t out;
    buf_init(&out);
    for (uint32_t i = 0; i < s->nitems; i++) {
        sql_agg_t g;
        sql_agg_opts_t o = {.group_concat_max_len = 1048576, .div_precision_increment = 4};
        sql_agg_init(&g, s->items[i].expr, &o);
        for (f.cur = 0; f.cur < n; f.cur++)
            sql_agg_add(&g, &ctx);
        value_t v;
        if (sql_agg_result(&g, &ctx, &v) == 0) {
            size_t tn;
            const char *t = value_to_text(a, &v, &tn);
            if (i)
                buf_append(&out, "|", 1);
            if (v.type != VAL_NULL)
                buf_append(&out, t, tn);
            else
                buf_append(&out, "NULL", 4);
        }
        /* reset + rerun gives the same result */
        sql_agg_reset(&g);
        sql_agg_free(&g);
    }
    const char *r = arena_strndup(a, (const char *)out.data, out.len);
    buf_free(&out);
    diag_free(&d);
    return r;
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
    CHECK_EQ_STR(run(&a, "SELECT AVG(a)", three, 3), "1.6667");
    CHECK_EQ_STR(run(&a, "SELECT SUM(a), AVG(a), COUNT(*), MIN(a), GROUP_CONCAT(a), BIT_AND(a)", rows, 0),
                 "NULL|NULL|0|NULL|NULL|18446744073709551615");
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
    value_t strs[] = {value_str("b", 1, COLL_DEFAULT), value_str("A", 1, COLL_DEFAULT), value_str("a", 1, COLL_DEFAULT),
                      value_str("c ", 2, COLL_DEFAULT), value_str("c", 1, COLL_DEFAULT)};
    CHECK_EQ_STR(run(&a, "SELECT COUNT(DISTINCT a), MIN(a), MAX(a), GROUP_CONCAT(DISTINCT a ORDER BY a), SUM(a)", strs, 5),
                 "3|A|c |A,b,c |0");
    value_t dbl[] = {value_double(1.0), value_double(2.0)};
    CHECK_EQ_STR(run(&a, "SELECT AVG(a), SUM(a)", dbl, 2), "1.5|3");
    arena_destroy(&a);
}

TEST(test_group_concat_max_len)
{
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 8);
    sql_stmt_list_t l;
    const char *q = "SELECT GROUP_CONCAT(a)";
    REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
    value_t rows[] = {value_str("abc", 3, COLL_DEFAULT), value_str("def", 3, COLL_DEFAULT), value_str("ghi", 3, COLL_DEFAULT)};
    feed_t f = {rows, 0};
    sql_eval_cb_t cb = {.column_get = col_get};
    sql_eval_ctx_t ctx;
    sql_eval_ctx_init(&ctx, &a, &d, &cb, &f);
    sql_agg_t g;
    sql_agg_opts_t o = {.group_concat_max_len = 5, .div_precision_increment = 4};
    sql_agg_init(&g, l.stmts[0]->select->items[0].expr, &o);
    for (f.cur = 0; f.cur < 3; f.cur++)
        sql_agg_add(&g, &ctx);
    value_t v;
    REQUIRE(sql_agg_result(&g, &ctx, &v) == 0);
    CHECK_EQ_INT(v.s.len, 5);
    CHECK(memcmp(v.s.ptr, "abc,d", 5) == 0);
    /* MariaDB: Warning 1260 Row 2 was cut by GROUP_CONCAT() */
    REQUIRE(d.n == 1);
    CHECK_EQ_INT(d.conds[0].code, 1260);
    CHECK_EQ_STR(d.conds[0].msg, "Row 2 was cut by GROUP_CONCAT()");
    sql_agg_free(&g);
    diag_free(&d);
    arena_destroy(&a);
}

UNIT_MAIN(test_agg_integers, test_agg_decimals_strings, test_group_concat_max_len)
