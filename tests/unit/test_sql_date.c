/*
 * Date and time functions (datefn.c) against MariaDB 10.11: each case of sql_date_cases.h is evaluated as
 * SELECT <expr> and must give MariaDB's text and warnings.
 */
#include <string.h>

#include "sql/sql.h"
#include "unit.h"
#include "sql_date_cases.h"

TEST(test_date_functions_against_mariadb)
{
    for (size_t i = 0; i < ARRAY_LEN(date_cases); i++) {
        const struct date_case *c = &date_cases[i];
        arena_t a;
        arena_init(&a, 4096);
        diag_t d;
        diag_init(&d, 16);
        char *q = arena_printf(&a, "SELECT %s", c->expr);
        sql_stmt_list_t l;
        int rc = sql_parse(&a, q, strlen(q), &l, &d);
        value_t v = value_null();
        if (rc == 0) {
            sql_eval_ctx_t ctx;
            sql_eval_cb_t cb = {0};
            sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
            rc = sql_expr_eval(&ctx, l.stmts[0]->select->items[0].expr, &v);
        }
        if (rc) {
            fprintf(stderr, "  %s: error %d %s\n", c->expr, rc, d.error ? d.error->msg : "");
            CHECK(rc == 0);
        } else {
            size_t n;
            const char *t = v.type == VAL_NULL ? "\x01NULL" : value_to_text(&a, &v, &n);
            if (v.type != VAL_NULL)
                t = arena_strndup(&a, t, n);
            buf_t b;
            buf_init(&b);
            for (uint32_t k = 0; k < d.n; k++) {
                if (k)
                    buf_append_byte(&b, '|');
                buf_printf(&b, "%s %d %s", d.conds[k].level == DIAG_NOTE ? "Note" : "Warning", d.conds[k].code,
                           d.conds[k].msg);
            }
            buf_append_byte(&b, 0);
            if (strcmp(t, c->value) || strcmp((char *)b.data, c->conds))
                fprintf(stderr, "  %s: got '%s' {%s}, want '%s' {%s}\n", c->expr, t, (char *)b.data, c->value, c->conds);
            CHECK_EQ_STR(t, c->value);
            CHECK_EQ_STR((char *)b.data, c->conds);
            buf_free(&b);
        }
        diag_free(&d);
        arena_destroy(&a);
    }
}

/* REGEXP: results read from MariaDB 10.11 (its PCRE and our POSIX ERE agree on these) */
TEST(test_regexp)
{
    static const struct { const char *e; const char *want; } cases[] = {
        {"'abc' regexp '^a'", "1"}, {"'ABC' regexp 'b'", "1"}, {"'abc' not regexp 'x'", "1"},
        {"binary 'ABC' regexp 'b'", "0"}, {"null regexp 'a'", "\x01NULL"}, {"'a' rlike 'a|b'", "1"},
        {"'foo123' regexp '[0-9]+$'", "1"}, {"POSITION('b' IN 'abc')", "2"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        arena_t a;
        arena_init(&a, 1024);
        diag_t d;
        diag_init(&d, 8);
        char *q = arena_printf(&a, "SELECT %s", cases[i].e);
        sql_stmt_list_t l;
        REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
        sql_eval_ctx_t ctx;
        sql_eval_cb_t cb = {0};
        sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
        value_t v;
        REQUIRE(sql_expr_eval(&ctx, l.stmts[0]->select->items[0].expr, &v) == 0);
        size_t n = 0;
        const char *t = "\x01NULL";
        if (v.type != VAL_NULL) {
            const char *s = value_to_text(&a, &v, &n);
            t = arena_strndup(&a, s, n);
        }
        CHECK_EQ_STR(t, cases[i].want);
        diag_free(&d);
        arena_destroy(&a);
    }
    /* a bad pattern is error 1139 */
    arena_t a;
    arena_init(&a, 1024);
    diag_t d;
    diag_init(&d, 8);
    const char *q = "SELECT 'abc' regexp '('";
    sql_stmt_list_t l;
    REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
    sql_eval_ctx_t ctx;
    sql_eval_cb_t cb = {0};
    sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
    value_t v;
    CHECK_EQ_INT(sql_expr_eval(&ctx, l.stmts[0]->select->items[0].expr, &v), -1139);
    diag_free(&d);
    arena_destroy(&a);
}

UNIT_MAIN(test_date_functions_against_mariadb, test_regexp)
