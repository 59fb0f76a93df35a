/*
 * Expression evaluation and value formatting against results read from MariaDB 10.11 (sql_expr_cases.h is
 * generated from a running server: value text, error code, and the SHOW WARNINGS rows), plus the session
 * callbacks (variables, placeholders, session functions, bound columns).
 */
#include <string.h>
#include <strings.h>

#include "sql/sql.h"
#include "unit.h"
#include "sql_expr_cases.h"

static value_t uvar;
static bool uvar_set;

static int cb_sysvar(void *u, sql_var_scope_t scope, const char *comp, const char *name, value_t *out, diag_t *d)
{
    if (!strcasecmp(name, "version")) {
        *out = value_str("10.11.19-MariaDB", 16, COLL_DEFAULT);
        return 0;
    }
    if (!strcasecmp(name, "max_connections")) {
        *out = scope == SQL_SCOPE_GLOBAL ? value_uint(151) : value_uint(0);
        return 0;
    }
    return diag_error(d, ER_UNKNOWN_SYSTEM_VARIABLE, name);
}
static int cb_uget(void *u, const char *name, value_t *out)
{
    *out = uvar_set && !strcasecmp(name, "x") ? uvar : value_null();
    return 0;
}
static int cb_uset(void *u, const char *name, const value_t *v)
{
    if (strcasecmp(name, "x"))
        return 0;
    uvar = *v;
    uvar_set = true;
    return 0;
}
static int cb_session(void *u, sql_session_fn_t fn, value_t *out)
{
    switch (fn) {
    case SQL_SFN_CONNECTION_ID: *out = value_uint(42); break;
    case SQL_SFN_DATABASE: *out = value_null(); break;
    default: *out = value_str("root@localhost", 14, COLL_DEFAULT); break;
    }
    return 0;
}
static int cb_param(void *u, uint32_t i, value_t *out)
{
    *out = value_int(10 * (int64_t)(i + 1));
    return 0;
}
static const sql_eval_cb_t cbs = {.sysvar_get = cb_sysvar, .uservar_get = cb_uget, .uservar_set = cb_uset,
                                  .session_fn = cb_session, .param_get = cb_param};

/* Parses "SELECT <expr>", evaluates item 0; returns rc and sets text (or "\x01NULL"). */
static int eval1(arena_t *a, diag_t *d, const char *expr, const char **text, sql_stmt_t **stp)
{
    char *q = arena_printf(a, "SELECT %s", expr);
    sql_stmt_list_t l;
    int rc = sql_parse(a, q, strlen(q), &l, d);
    if (rc)
        return rc;
    sql_eval_ctx_t ctx;
    sql_eval_ctx_init(&ctx, a, d, &cbs, NULL);
    value_t v;
    rc = sql_expr_eval(&ctx, l.stmts[0]->select->items[0].expr, &v);
    if (stp)
        *stp = l.stmts[0];
    if (rc)
        return rc;
    size_t n;
    *text = v.type == VAL_NULL ? "\x01NULL" : value_to_text(a, &v, &n);
    if (v.type != VAL_NULL)
        *text = arena_strndup(a, *text, n);
    return 0;
}

TEST(test_expr_against_mariadb)
{
    for (size_t i = 0; i < ARRAY_LEN(expr_cases); i++) {
        const struct expr_case *c = &expr_cases[i];
        arena_t a;
        arena_init(&a, 4096);
        diag_t d;
        diag_init(&d, 64);
        const char *text = NULL;
        int rc = eval1(&a, &d, c->expr, &text, NULL);
        if (c->err) {
            if (rc != -c->err) {
                fprintf(stderr, "  expr %s: want error %d, got rc %d\n", c->expr, c->err, rc);
                CHECK(rc == -c->err);
            }
        } else if (rc) {
            fprintf(stderr, "  expr %s: unexpected error %d %s\n", c->expr, rc, d.error ? d.error->msg : "");
            CHECK(rc == 0);
        } else {
            if (strcmp(text, c->value) != 0)
                fprintf(stderr, "  expr %s\n", c->expr);
            CHECK_EQ_STR(text, c->value);
            /* conditions */
            buf_t b;
            buf_init(&b);
            for (uint32_t k = 0; k < d.n; k++) {
                if (k)
                    buf_append_byte(&b, '|');
                buf_printf(&b, "%s %d %s", d.conds[k].level == DIAG_NOTE ? "Note" : d.conds[k].level == DIAG_WARNING ? "Warning" : "Error",
                           d.conds[k].code, d.conds[k].msg);
            }
            buf_append_byte(&b, 0);
            if (strcmp((char *)b.data, c->conds) != 0)
                fprintf(stderr, "  expr %s\n", c->expr);
            CHECK_EQ_STR((char *)b.data, c->conds);
            buf_free(&b);
        }
        diag_free(&d);
        arena_destroy(&a);
    }
}

TEST(test_out_of_range_messages)
{
    static const struct { const char *expr, *msg; } cases[] = {
        /* texts from MariaDB 10.11 */
        {"9223372036854775807+1", "BIGINT value is out of range in '9223372036854775807 + 1'"},
        {"-9223372036854775807-2", "BIGINT value is out of range in '-9223372036854775807 - 2'"},
        {"18446744073709551615+1", "BIGINT UNSIGNED value is out of range in '18446744073709551615 + 1'"},
        {"2*9223372036854775807", "BIGINT value is out of range in '2 * 9223372036854775807'"},
        {"abs(-9223372036854775808)", "BIGINT value is out of range in 'abs(-9223372036854775808)'"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        arena_t a;
        arena_init(&a, 4096);
        diag_t d;
        diag_init(&d, 64);
        const char *t;
        int rc = eval1(&a, &d, cases[i].expr, &t, NULL);
        CHECK_EQ_INT(rc, -ER_DATA_OUT_OF_RANGE);
        REQUIRE(d.error);
        CHECK_EQ_STR(d.error->msg, cases[i].msg);
        CHECK_EQ_STR(d.error->sqlstate, "22003");
        diag_free(&d);
        arena_destroy(&a);
    }
}

TEST(test_callbacks)
{
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 64);
    const char *t;
    CHECK_EQ_INT(eval1(&a, &d, "@@version", &t, NULL), 0);
    CHECK_EQ_STR(t, "10.11.19-MariaDB");
    CHECK_EQ_INT(eval1(&a, &d, "@@global.max_connections", &t, NULL), 0);
    CHECK_EQ_STR(t, "151");
    CHECK_EQ_INT(eval1(&a, &d, "@@nosuch", &t, NULL), -ER_UNKNOWN_SYSTEM_VARIABLE);
    CHECK_EQ_STR(d.error->msg, "Unknown system variable 'nosuch'");
    diag_clear(&d);
    uvar_set = false;
    CHECK_EQ_INT(eval1(&a, &d, "@x", &t, NULL), 0);
    CHECK_EQ_STR(t, "\x01NULL");
    CHECK_EQ_INT(eval1(&a, &d, "@x := 1 + 2", &t, NULL), 0);
    CHECK_EQ_STR(t, "3");
    CHECK_EQ_INT(eval1(&a, &d, "@X * 2", &t, NULL), 0);
    CHECK_EQ_STR(t, "6");
    CHECK_EQ_INT(eval1(&a, &d, "connection_id()", &t, NULL), 0);
    CHECK_EQ_STR(t, "42");
    CHECK_EQ_INT(eval1(&a, &d, "database()", &t, NULL), 0);
    CHECK_EQ_STR(t, "\x01NULL");
    CHECK_EQ_INT(eval1(&a, &d, "current_user", &t, NULL), 0);
    CHECK_EQ_STR(t, "root@localhost");
    sql_stmt_t *st;
    CHECK_EQ_INT(eval1(&a, &d, "? + ?", &t, &st), 0);
    CHECK_EQ_STR(t, "30");
    CHECK_EQ_INT(st->nparams, 2);
    CHECK_EQ_INT(st->params[1]->param_index, 1);
    diag_free(&d);
    arena_destroy(&a);
}

TEST(test_bound_columns)
{
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 64);
    const char *q = "SELECT a + b * 2 FROM t";
    sql_stmt_list_t l;
    REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
    sql_expr_t *e = l.stmts[0]->select->items[0].expr;
    REQUIRE(e->kind == SQL_E_BINARY && e->args[0]->kind == SQL_E_COLUMN);
    e->args[0]->slot = 0; /* the executor binds once ... */
    e->args[1]->args[0]->slot = 1;
    value_t row[2] = {value_int(1), value_int(5)};
    sql_eval_ctx_t ctx;
    sql_eval_ctx_init(&ctx, &a, &d, &cbs, NULL);
    ctx.row = row; /* ... and evaluates per row */
    value_t v;
    REQUIRE(sql_expr_eval(&ctx, e, &v) == 0);
    CHECK_EQ_INT(v.i, 11);
    row[0] = value_int(100);
    REQUIRE(sql_expr_eval(&ctx, e, &v) == 0);
    CHECK_EQ_INT(v.i, 110);
    diag_free(&d);
    arena_destroy(&a);
}

TEST(test_item_names_and_meta)
{
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 64);
    /* names and column types as MariaDB 10.11 reports them (mariadb --column-type-info) */
    const char *q = "select 1, 1+1, 'abc', 1.5, 1e0, null, 'a' 'b', x'41', 1 as a, 'q' b, ( 1+1 ), @@version";
    sql_stmt_list_t l;
    REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
    sql_select_t *s = l.stmts[0]->select;
    REQUIRE(s->nitems == 12);
    static const char *names[] = {"1", "1+1", "abc", "1.5", "1e0", "NULL", "ab", "x'41'", "a", "b", "( 1+1 )", "@@version"};
    for (uint32_t i = 0; i < s->nitems; i++)
        CHECK_EQ_STR(sql_item_name(&a, &s->items[i]), names[i]);
    sql_eval_ctx_t ctx;
    sql_eval_ctx_init(&ctx, &a, &d, &cbs, NULL);
    struct { uint8_t type; uint32_t len; uint8_t dec; uint16_t coll; } want[] = {
        {SQL_TYPE_LONG, 1, 0, 63}, {SQL_TYPE_LONG, 3, 0, 63}, {SQL_TYPE_VAR_STRING, 12, 39, 45},
        {SQL_TYPE_NEWDECIMAL, 4, 1, 63}, {SQL_TYPE_DOUBLE, 3, 31, 63}, {SQL_TYPE_NULL, 0, 0, 63},
        {SQL_TYPE_VAR_STRING, 8, 39, 45}, {SQL_TYPE_VAR_STRING, 1, 0, 63},
    };
    for (uint32_t i = 0; i < ARRAY_LEN(want); i++) {
        value_t v;
        REQUIRE(sql_expr_eval(&ctx, s->items[i].expr, &v) == 0);
        sql_col_meta_t m;
        sql_item_meta(s->items[i].expr, &v, &m);
        CHECK_EQ_INT(m.type, want[i].type);
        CHECK_EQ_INT(m.length, want[i].len);
        CHECK_EQ_INT(m.decimals, want[i].dec);
        CHECK_EQ_INT(m.coll, want[i].coll);
    }
    diag_free(&d);
    arena_destroy(&a);
}

TEST(test_double_format)
{
    /* MariaDB 10.11 text-protocol output for these doubles */
    static const struct { double d; const char *s; } cases[] = {
        {1e14, "100000000000000"}, {1e15, "1e15"}, {1e-5, "0.00001"}, {1.5e-10, "0.00000000015"},
        {123456789012345678.0, "1.2345678901234568e17"}, {-2.5e300, "-2.5e300"}, {0.1 + 0.2, "0.30000000000000004"},
        {1.0 / 3, "0.3333333333333333"}, {1e-15, "0.000000000000001"}, {1e-16, "1e-16"},
        {1234567890123456.7, "1234567890123456.8"}, {1234567890123456.0, "1.234567890123456e15"},
        {4.9e-324, "5e-324"}, {100, "100"}, {0, "0"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char b[64];
        value_format_double(cases[i].d, b, sizeof b);
        CHECK_EQ_STR(b, cases[i].s);
    }
}

TEST(test_like_for_show)
{
    const char *pat = "gtid\\_mode"; /* as the parser keeps 'gtid\_mode' */
    CHECK(sql_like_match(COLL_UTF8MB3_GENERAL_CI, "gtid_mode", 9, pat, strlen(pat), '\\'));
    CHECK(!sql_like_match(COLL_UTF8MB3_GENERAL_CI, "gtidXmode", 9, pat, strlen(pat), '\\'));
    CHECK(sql_like_match(COLL_UTF8MB3_GENERAL_CI, "MAX_CONNECTIONS", 15, "max%", 4, '\\'));
    CHECK(!sql_like_match(COLL_BINARY, "MAX_CONNECTIONS", 15, "max%", 4, '\\'));
    CHECK(sql_like_match(COLL_UTF8MB4_GENERAL_CI, "h\xc3\xa9llo", 6, "h_llo", 5, '\\'));
}

UNIT_MAIN(test_expr_against_mariadb, test_like_for_show, test_out_of_range_messages, test_callbacks, test_bound_columns,
          test_item_names_and_meta, test_double_format)
