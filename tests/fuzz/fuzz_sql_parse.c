/*
 * libFuzzer target for the SQL front end: parses the input bytes; when they parse, evaluates every select
 * item (no callbacks: variables fail cleanly) and derives its name and metadata.  Must not crash or leak.
 */
#include <stddef.h>
#include <stdint.h>

#include "sql/sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 16);
    sql_stmt_list_t l;
    if (sql_parse(&a, (const char *)data, size, &l, &d) == 0) {
        for (uint32_t i = 0; i < l.n; i++) {
            sql_stmt_t *st = l.stmts[i];
            if (st->kind != SQL_STMT_SELECT)
                continue;
            sql_eval_ctx_t ctx;
            sql_eval_cb_t cb = {0};
            sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
            for (uint32_t j = 0; j < st->select->nitems; j++) {
                value_t v;
                diag_clear(&d);
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
    diag_free(&d);
    arena_destroy(&a);
    return 0;
}
