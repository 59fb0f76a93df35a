/*
 * libFuzzer target for the SQL front end: parses the input bytes (some under sql_mode flags); when they parse, evaluates every select
 * item (no callbacks: variables fail cleanly) and derives its name and metadata; aggregate items run through
 * an accumulator over two rows; the columns of a CREATE TABLE get a few values stored (sql_value_store) in
 * strict and non-strict mode.  Must not crash or leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sql/exec/exec_int.h"
#include "sql/sql.h"

/* The accumulators' argument source: the item's arguments evaluated without a row (no columns). */
static int fuzz_agg_eval(void *arg, const sql_expr_t *e, value_t *out)
{
    return sql_expr_eval(arg, e, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 16);
    sql_stmt_list_t l;
    /* one input in seven is read under sql_mode flags (ANSI_QUOTES, PIPES_AS_CONCAT ...) taken from its middle byte */
    unsigned mode = size && size % 7 == 0 ? data[size / 2] & 15u : 0;
    if (sql_parse_mode(&a, (const char *)data, size, mode, &l, &d) == 0) {
        for (uint32_t i = 0; i < l.n; i++) {
            sql_stmt_t *st = l.stmts[i];
            if (st->kind == SQL_STMT_CREATE_TABLE) {
                sql_create_table_t *ct = st->create_table;
                static const char *const texts[] = {"", "12abc", "2020-02-30 10:00:00", "x,y", "-1e300", "999999999999999999999.5"};
                for (uint32_t c = 0; c < ct->ncols; c++) {
                    sql_store_col_t sc = {.type = &ct->cols[c].type, .not_null = true, .name = ct->cols[c].name,
                                          .coll = ct->cols[c].type.coll >= 0 ? (uint16_t)ct->cols[c].type.coll : COLL_DEFAULT};
                    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
                        value_t in = value_str(texts[k], strlen(texts[k]), COLL_DEFAULT), out;
                        diag_clear(&d);
                        sql_value_store(&a, &sc, &in, k & 1, 1, &d, &out);
                        in = value_int(-(int64_t)k * 1000003);
                        sql_value_store(&a, &sc, &in, false, 1, &d, &out);
                        in = value_null();
                        sql_value_store(&a, &sc, &in, false, 1, &d, &out);
                    }
                }
                continue;
            }
            if (st->kind != SQL_STMT_SELECT)
                continue;
            sql_eval_ctx_t ctx;
            sql_eval_cb_t cb = {0};
            sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
            for (uint32_t j = 0; j < st->select->nitems; j++) {
                value_t v;
                diag_clear(&d);
                const sql_expr_t *item = st->select->items[j].expr;
                if (sql_expr_is_aggregate(item)) {
                    sql_agg_t g;
                    sql_agg_init(&g);
                    sql_agg_src_t src = {fuzz_agg_eval, &ctx, &a, &d, 8};
                    sql_agg_add(&g, item, &src);
                    sql_agg_add(&g, item, &src);
                    sql_agg_result(&g, item, &a, 4, &d);
                    sql_agg_free(&g);
                    continue;
                }
                int rc = sql_expr_eval(&ctx, st->select->items[j].expr, &v);
                sql_item_name(&a, &st->select->items[j]);
                if (rc == 0) {
                    size_t n;
                    value_to_text(&a, &v, &n);
                    sql_col_meta_t m;
                    sql_item_meta(st->select->items[j].expr, &v, &m);
                }
            }
        }
    }
    /* the same bytes as a standalone expression (catalog defaults) */
    diag_clear(&d);
    sql_expr_t *e;
    if (sql_parse_expr(&a, (const char *)data, size, &e, &d) == 0) {
        sql_eval_ctx_t ctx;
        sql_eval_cb_t cb = {0};
        sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
        value_t v;
        sql_expr_eval(&ctx, e, &v);
    }
    diag_free(&d);
    arena_destroy(&a);
    return 0;
}
