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
    const char *s = value_to_text(a, v, &n);
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

UNIT_MAIN(test_store_matches_mariadb, test_store_null, test_column_meta_matches_mariadb)
