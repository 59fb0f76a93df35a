/*
 * sql_value_store() against MariaDB: every case of sql_store_cases.h (generated from a running MariaDB 10.11)
 * is converted here the same way (the value expression evaluated by sql_expr_eval, the column type parsed by
 * sql_parse from a CREATE TABLE) and must give the same outcome: error code, stored value, conditions.
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql.h"
#include "unit.h"
#include "sql_store_cases.h"
#include "sql_meta_cases.h"

static const char *result_text(arena_t *a, const char *col, const value_t *v)
{
    size_t n;
    if (strcmp(col, "bn") == 0 || strcmp(col, "vb") == 0) {
        char *h = arena_alloc(a, v->s.len * 2 + 1);
        for (size_t i = 0; i < v->s.len; i++)
            sprintf(h + 2 * i, "%02X", (unsigned char)v->s.ptr[i]);
        h[v->s.len * 2] = 0;
        return h;
    }
    value_t plus0 = *v; /* the cases read FLOAT columns as f+0: all digits */
    if (plus0.type == VAL_DOUBLE && plus0.dec == VAL_DEC_FLOAT)
        plus0.dec = VAL_DEC_NOT_FIXED;
    v = &plus0;
    const char *s = value_to_text(a, v, &n);
    if (s && v->type == VAL_STRING && v->coll != COLL_BINARY) { /* MariaDB sent it in utf8mb4 */
        size_t bad;
        s = sql_str_convert(a, s, n, v->coll, COLL_UTF8MB4_GENERAL_CI, &n, &bad);
    }
    return s ? arena_strndup(a, s, n) : "NULL";
}

static int run_case(const struct store_case *c, bool verbose)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 16);
    int bad = 0;
    char q[256];
    snprintf(q, sizeof q, "CREATE TABLE s (%s %s) DEFAULT CHARSET=utf8mb4", c->col, c->type);
    sql_stmt_list_t l;
    if (sql_parse(&a, q, strlen(q), &l, &d)) {
        fprintf(stderr, "  cannot parse %s\n", q);
        bad = 1;
        goto done;
    }
    sql_column_def_t *cd = &l.stmts[0]->create_table->cols[0];
    snprintf(q, sizeof q, "SELECT %s", c->val);
    sql_stmt_list_t l2;
    if (sql_parse(&a, q, strlen(q), &l2, &d)) {
        fprintf(stderr, "  cannot parse %s\n", q);
        bad = 1;
        goto done;
    }
    sql_eval_ctx_t ctx;
    sql_eval_cb_t cb = {0};
    sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
    value_t v, out;
    if (sql_expr_eval(&ctx, l2.stmts[0]->select->items[0].expr, &v)) {
        fprintf(stderr, "  cannot evaluate %s\n", q);
        bad = 1;
        goto done;
    }
    diag_clear(&d);
    sql_store_col_t sc = {.type = &cd->type, .not_null = false, .name = c->col, .db = "d1", .table = "s"};
    sc.coll = cd->type.coll >= 0 ? (uint16_t)cd->type.coll : COLL_UTF8MB4_GENERAL_CI;
    int rc = sql_value_store(&a, &sc, &v, c->strict, 1, &d, &out);
    char conds[128] = "";
    for (uint32_t i = 0; i < d.n; i++) {
        if (d.conds[i].level == DIAG_ERROR)
            continue;
        size_t k = strlen(conds);
        snprintf(conds + k, sizeof conds - k, "%s%c%d", k ? "," : "", d.conds[i].level == DIAG_NOTE ? 'N' : 'W',
                 d.conds[i].code);
    }
    const char *txt = rc == 0 ? result_text(&a, c->col, &out) : NULL;
    if (rc != c->rc || (rc == 0 && strcmp(txt, c->text) != 0) || (rc == 0 && strcmp(conds, c->conds) != 0))
        bad = 1;
    if (bad && verbose)
        fprintf(stderr, "  %s <- %s [%s]: got rc %d '%s' {%s}, want rc %d '%s' {%s}\n", c->type, c->val,
                c->strict ? "strict" : "non-strict", rc, txt ? txt : "", conds, c->rc, c->text ? c->text : "",
                c->conds);
    if (rc < 0 && d.error && rc == c->rc) {
        /* the error text names the column */
        if (!strstr(d.error->msg, c->col))
            bad = 1;
    }
done:
    diag_free(&d);
    arena_destroy(&a);
    return bad;
}

TEST(test_store_matches_mariadb)
{
    int bad = 0;
    for (size_t i = 0; i < ARRAY_LEN(store_cases); i++)
        bad += run_case(&store_cases[i], true);
    CHECK_EQ_INT(bad, 0);
}

TEST(test_store_null)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 1024);
    diag_init(&d, 8);
    sql_type_t t = {.kind = SQL_T_INT, .len = 11, .scale = -1, .coll = -1};
    sql_store_col_t sc = {.type = &t, .not_null = true, .name = "nn", .coll = COLL_UTF8MB4_GENERAL_CI};
    value_t nul = value_null(), out;
    CHECK_EQ_INT(sql_value_store(&a, &sc, &nul, true, 1, &d, &out), -ER_BAD_NULL_ERROR);
    CHECK_EQ_STR(d.error->msg, "Column 'nn' cannot be null");
    diag_clear(&d);
    CHECK_EQ_INT(sql_value_store(&a, &sc, &nul, false, 2, &d, &out), 0);
    CHECK_EQ_INT(d.n, 1);
    CHECK_EQ_INT(d.conds[0].code, 1048);
    CHECK_EQ_INT(out.type, VAL_INT);
    CHECK_EQ_INT(out.i, 0);
    sc.not_null = false;
    diag_clear(&d);
    CHECK_EQ_INT(sql_value_store(&a, &sc, &nul, true, 1, &d, &out), 0);
    CHECK_EQ_INT(out.type, VAL_NULL);
    diag_free(&d);
    arena_destroy(&a);
}

TEST(test_column_meta_matches_mariadb)
{
    for (size_t i = 0; i < ARRAY_LEN(meta_cases); i++) {
        const struct meta_case *c = &meta_cases[i];
        arena_t a;
        diag_t d;
        arena_init(&a, 4096);
        diag_init(&d, 8);
        char *q = arena_printf(&a, "CREATE TABLE m (c %s) DEFAULT CHARSET=utf8mb4", c->type);
        sql_stmt_list_t l;
        REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
        sql_column_def_t *cd = &l.stmts[0]->create_table->cols[0];
        uint16_t coll = cd->type.coll >= 0 ? (uint16_t)cd->type.coll : COLL_UTF8MB4_GENERAL_CI;
        sql_col_meta_t m;
        sql_column_meta(cd, coll, COLL_UTF8MB4_GENERAL_CI, 0, &m);
        if (m.type != c->code || m.coll != c->charset || m.length != (uint32_t)c->length || m.decimals != c->decimals ||
            m.flags != c->flags)
            fprintf(stderr, "  %s: got %d/%d/%u/%d/%d want %d/%d/%lu/%d/%d\n", c->type, m.type, m.coll, m.length,
                    m.decimals, m.flags, c->code, c->charset, c->length, c->decimals, c->flags);
        CHECK_EQ_INT(m.type, c->code);
        CHECK_EQ_INT(m.coll, c->charset);
        CHECK_EQ_INT(m.length, (uint32_t)c->length);
        CHECK_EQ_INT(m.decimals, c->decimals);
        CHECK_EQ_INT(m.flags, c->flags);
        diag_free(&d);
        arena_destroy(&a);
    }
}

/* message text read from MariaDB 10.11 */
TEST(test_store_charset_message)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 1024);
    diag_init(&d, 8);
    sql_type_t t = {.kind = SQL_T_VARCHAR, .len = 5, .scale = -1, .coll = COLL_LATIN1_SWEDISH_CI};
    sql_store_col_t sc = {.type = &t, .name = "c", .db = "scratch", .table = "l1", .coll = COLL_LATIN1_SWEDISH_CI};
    value_t in = value_str("a\xe4\xb8\xad" "b", 5, COLL_UTF8MB4_GENERAL_CI), out;
    CHECK_EQ_INT(sql_value_store(&a, &sc, &in, true, 1, &d, &out), -1366);
    REQUIRE(d.error != NULL);
    CHECK_EQ_STR(d.error->msg, "Incorrect string value: '\\xE4\\xB8\\xADb' for column `scratch`.`l1`.`c` at row 1");
    diag_clear(&d);
    CHECK_EQ_INT(sql_value_store(&a, &sc, &in, false, 1, &d, &out), 0);
    CHECK_EQ_INT(out.s.len, 3);
    CHECK(memcmp(out.s.ptr, "a?b", 3) == 0);
    CHECK_EQ_INT(out.coll, COLL_LATIN1_SWEDISH_CI);
    /* latin1 back to utf8mb4 for the client: cp1252 0x80 is the euro sign */
    size_t n, bad;
    const char *u = sql_str_convert(&a, "\x80\xe9", 2, COLL_LATIN1_SWEDISH_CI, COLL_UTF8MB4_GENERAL_CI, &n, &bad);
    CHECK_EQ_INT(n, 5);
    CHECK(memcmp(u, "\xe2\x82\xac\xc3\xa9", 5) == 0);
    CHECK(bad == SIZE_MAX);
    diag_free(&d);
    arena_destroy(&a);
}

/* FLOAT column display, read from MariaDB 10.11 (SELECT f FROM a FLOAT column) */
TEST(test_float_format)
{
    static const struct { float f; const char *want; } cases[] = {
        {16777217.0f, "16777200"}, {1e-5f, "0.00001"}, {123456789.0f, "123457000"}, {0.1f, "0.1"}, {1.5f, "1.5"},
        {-2.25e-10f, "-0.000000000225"}, {3.4e38f, "3.4e38"}, {100000.0f, "100000"}, {999999.5f, "1000000"},
        {0.000123456f, "0.000123456"}, {12345.678f, "12345.7"}, {1e15f, "1e15"}, {0.0f, "0"}, {1e14f, "100000000000000"},
        {1e-15f, "0.000000000000001"}, {1e-16f, "1e-16"}, {1.23456e-16f, "1.23456e-16"}, {123456e10f, "1.23456e15"},
        {9.999999e14f, "1e15"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char b[64];
        value_format_float((double)cases[i].f, b, sizeof b);
        CHECK_EQ_STR(b, cases[i].want);
    }
    /* a stored FLOAT prints that way by itself (MariaDB: SELECT f after storing 1.23456789 gives 1.23457) */
    arena_t a;
    diag_t d;
    arena_init(&a, 1024);
    diag_init(&d, 4);
    sql_type_t t = {.kind = SQL_T_FLOAT, .len = -1, .scale = -1, .coll = -1};
    sql_store_col_t sc = {.type = &t, .name = "f", .coll = COLL_BINARY};
    value_t in = value_double(1.23456789), out;
    REQUIRE(sql_value_store(&a, &sc, &in, true, 1, &d, &out) == 0);
    size_t n;
    const char *txt = value_to_text(&a, &out, &n);
    CHECK(n == 7 && memcmp(txt, "1.23457", 7) == 0);
    diag_free(&d);
    arena_destroy(&a);
}

/* text-protocol bytes of stored values, read from MariaDB 10.11 with a raw (unconverted) client */
TEST(test_column_text)
{
    static const struct { const char *type, *val, *want; size_t wlen; } cases[] = {
        {"tinyint(3) zerofill", "5", "005", 3}, {"int(8) unsigned zerofill", "1234", "00001234", 8},
        {"smallint zerofill", "7", "00007", 5}, {"year", "0", "0000", 4}, {"year", "2024", "2024", 4},
        {"year", "5", "2005", 4}, {"bit(5)", "b'101'", "\x05", 1}, {"bit(12)", "4095", "\x0f\xff", 2},
        {"bit(1)", "1", "\x01", 1}, {"bit(64)", "18446744073709551615", "\xff\xff\xff\xff\xff\xff\xff\xff", 8},
        {"decimal(6,3) zerofill", "1.5", "001.500", 7}, {"float zerofill", "1.5", "0000000001.5", 12},
        {"double(8,3) zerofill", "2.5", "0002.500", 8}, {"datetime(3)", "'2020-01-05 10:11:12.5'", "2020-01-05 10:11:12.500", 23},
        {"time(2)", "'-01:02:03.4'", "-01:02:03.40", 12}, {"float(7,3)", "1.5", "1.500", 5}, {"double", "1e300", "1e300", 5},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        arena_t a;
        diag_t d;
        arena_init(&a, 1024);
        diag_init(&d, 4);
        char *q = arena_printf(&a, "CREATE TABLE ct (c %s)", cases[i].type);
        sql_stmt_list_t l;
        REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
        sql_column_def_t *cd = &l.stmts[0]->create_table->cols[0];
        q = arena_printf(&a, "SELECT %s", cases[i].val);
        sql_stmt_list_t l2;
        REQUIRE(sql_parse(&a, q, strlen(q), &l2, &d) == 0);
        sql_eval_ctx_t ctx;
        sql_eval_cb_t cb = {0};
        sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
        value_t v, out;
        REQUIRE(sql_expr_eval(&ctx, l2.stmts[0]->select->items[0].expr, &v) == 0);
        sql_store_col_t sc = {.type = &cd->type, .name = "c", .coll = COLL_BINARY};
        REQUIRE(sql_value_store(&a, &sc, &v, true, 1, &d, &out) == 0);
        size_t n;
        const char *t = sql_column_text(&a, &out, &cd->type, &n);
        bool ok = t && n == cases[i].wlen && memcmp(t, cases[i].want, n) == 0;
        if (!ok)
            fprintf(stderr, "  %s <- %s: got '%.*s'\n", cases[i].type, cases[i].val, (int)n, t ? t : "");
        CHECK(ok);
        diag_free(&d);
        arena_destroy(&a);
    }
}

UNIT_MAIN(test_column_text, test_float_format, test_store_matches_mariadb, test_store_null, test_column_meta_matches_mariadb, test_store_charset_message)
