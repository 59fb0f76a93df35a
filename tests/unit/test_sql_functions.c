/*
 * The function table (src/sql/parser/functions.def, sql_fn_defs): every row is complete and consistent, every name
 * finds its own row, and every row reaches an evaluator and a type rule that know it.  A call of each function
 * is parsed from SQL, so the parser's name lookup is walked too; the call is then evaluated without session
 * callbacks (functions that need them fail with their own error, which is fine: only "not implemented by the
 * evaluator its row names" means a row routed to the wrong place).
 */
#include <stdio.h>
#include <string.h>

#include "sql/expr/expr_int.h"
#include "sql/parser/parser_int.h"
#include "sql/expr/typeinf.h"
#include "unit.h"

/* Calls whose arguments need a shape (a unit, an INTERVAL, a column); the others get `1` for each argument. */
static const struct {
    sql_fn_t fn;
    const char *call;
} special[] = {
    {SQL_FN_DATE_ADD, "DATE_ADD('2024-01-31', INTERVAL 1 DAY)"},
    {SQL_FN_DATE_SUB, "DATE_SUB('2024-01-31', INTERVAL 1 DAY)"},
    {SQL_FN_ADDDATE, "ADDDATE('2024-01-31', INTERVAL 1 DAY)"},
    {SQL_FN_SUBDATE, "SUBDATE('2024-01-31', INTERVAL 1 DAY)"},
    {SQL_FN_TIMESTAMPADD, "TIMESTAMPADD(DAY, 1, '2024-01-31')"},
    {SQL_FN_TIMESTAMPDIFF, "TIMESTAMPDIFF(DAY, '2024-01-01', '2024-01-31')"},
    {SQL_FN_EXTRACT, "EXTRACT(YEAR FROM '2024-01-31')"},
    {SQL_FN_VALUES, "VALUES(a)"},
    {SQL_FN_COUNT, "COUNT(*)"},
    {SQL_FN_TRIM, "TRIM(' a ')"},
    {SQL_FN_SLEEP, "SLEEP(0)"},
    {SQL_FN_GET_FORMAT, "GET_FORMAT(DATE, 'ISO')"},
};

static int col_get(void *user, const sql_expr_t *col, value_t *out, diag_t *d)
{
    *out = value_int(1);
    return 0;
}

static int col_type(void *user, const sql_expr_t *col, sql_rtype_t *out)
{
    return -1;
}

static const char *call_text(char *buf, size_t n, sql_fn_t fn)
{
    for (size_t i = 0; i < ARRAY_LEN(special); i++)
        if (special[i].fn == fn)
            return special[i].call;
    const sql_fn_def_t *d = &sql_fn_defs[fn];
    size_t k = (size_t)snprintf(buf, n, "%s(", d->name);
    for (int i = 0; i < d->minargs && k + 4 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s1", i ? ", " : "");
    snprintf(buf + k, n - k, (d->flags & SQL_FNF_WINDOW) ? ") OVER (ORDER BY 1)" : ")"); /* a window function needs OVER */
    return buf;
}

/* A parsed call of function fn (NULL, said on stdout, when it does not parse). */
static const sql_expr_t *parse_call(arena_t *a, sql_fn_t fn, diag_t *d)
{
    char text[256], q[300];
    snprintf(q, sizeof q, "SELECT %s", call_text(text, sizeof text, fn));
    sql_stmt_list_t l;
    if (sql_parse(a, q, strlen(q), &l, d) != 0) {
        printf("  cannot parse %s\n", q);
        return NULL;
    }
    return l.stmts[0]->select->items[0].expr;
}

/* True when the last error in d is the one sql_fn_unrouted() raises. */
static bool unrouted(const diag_t *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        if (d->conds[i].code == ER_UNKNOWN_ERROR && strstr(d->conds[i].msg, "not implemented by the evaluator"))
            return true;
    return false;
}

TEST(test_rows_complete)
{
    CHECK_EQ_STR(sql_fn_defs[SQL_FN_UNKNOWN].name, "");
    for (int i = 0; i < SQL_FN__COUNT; i++) {
        const sql_fn_def_t *d = &sql_fn_defs[i];
        REQUIRE(d->name != NULL);
        CHECK(d->eval != NULL);
        CHECK(d->type != NULL);
        CHECK(d->minargs >= 0);
        CHECK(d->maxargs == -1 || d->maxargs >= d->minargs);
        if (i == SQL_FN_UNKNOWN)
            continue;
        /* a name in capitals, found again by the parser's lookup, and no other row has it */
        CHECK(d->name[0] != 0);
        for (const char *p = d->name; *p; p++)
            CHECK((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_');
        CHECK_EQ_INT(sql_fn_lookup(d->name), i);
        CHECK_EQ_STR(sql_fn_name((sql_fn_t)i), d->name);
        /* the collation rule: an operation name and a walk over the arguments exactly when it aggregates */
        if (d->coll.kind >= SQL_FN_COLL_RESULT) {
            CHECK(d->coll.op != NULL && d->coll.op[0] != 0);
            CHECK(d->coll.step >= 1);
            CHECK(d->maxargs == -1 || d->coll.first < d->maxargs);
        } else {
            CHECK(d->coll.op == NULL);
        }
        /* aggregates are evaluated by the executor's accumulators, on their own arguments */
        CHECK_EQ_INT(!!(d->flags & SQL_FNF_AGGREGATE), d->eval == sql_eval_aggregate_fn);
        if (d->flags & SQL_FNF_AGGREGATE)
            CHECK(d->flags & SQL_FNF_LAZY);
    }
    CHECK_EQ_INT(sql_fn_lookup("NO_SUCH_FUNCTION"), SQL_FN_UNKNOWN);
    CHECK_EQ_INT(sql_fn_lookup(""), SQL_FN_UNKNOWN);
    CHECK_EQ_INT(sql_fn_lookup("AAA"), SQL_FN_UNKNOWN);
    CHECK_EQ_INT(sql_fn_lookup("ZZZ"), SQL_FN_UNKNOWN);
}

TEST(test_rows_routed)
{
    arena_t a;
    arena_init(&a, 4096);
    sql_eval_cb_t cb = {.column_get = col_get};
    sql_typeinf_env_t env = {.column = col_type};
    for (int i = 1; i < SQL_FN__COUNT; i++) {
        const char *name = sql_fn_defs[i].name;
        diag_t d;
        diag_init(&d, 8);
        const sql_expr_t *e = parse_call(&a, (sql_fn_t)i, &d);
        CHECK(e != NULL);
        if (!e) {
            diag_free(&d);
            continue;
        }
        REQUIRE(e->kind == SQL_E_FUNC);
        CHECK_EQ_INT(e->func.fn, i);
        sql_eval_ctx_t ctx;
        sql_eval_ctx_init(&ctx, &a, &d, &cb, NULL);
        value_t v;
        if (sql_expr_eval(&ctx, e, &v) != 0 && unrouted(&d)) {
            printf("  %s: its evaluator does not know it\n", name);
            CHECK(!unrouted(&d));
        }
        sql_rtype_t t;
        int tr = sql_fn_defs[i].type(&env, e, &t);
        if (tr < 0)
            printf("  %s: its type rule does not know it\n", name);
        CHECK(tr >= 0);
        diag_free(&d);
        arena_reset(&a);
    }
    arena_destroy(&a);
}

/* The checks above can fail: a call handed to an evaluator or a type rule of another family is refused. */
TEST(test_misrouted_call_refused)
{
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 8);
    const char *q = "SELECT CONCAT('a', 'b')";
    sql_stmt_list_t l;
    REQUIRE(sql_parse(&a, q, strlen(q), &l, &d) == 0);
    const sql_expr_t *e = l.stmts[0]->select->items[0].expr;
    sql_eval_ctx_t ctx;
    sql_eval_ctx_init(&ctx, &a, &d, NULL, NULL);
    value_t args[2] = {value_str("a", 1, COLL_DEFAULT), value_str("b", 1, COLL_DEFAULT)}, v;
    CHECK(sql_eval_math_fn(&ctx, e, args, false, &v) < 0);
    CHECK(unrouted(&d));
    diag_free(&d);
    diag_init(&d, 8);
    CHECK(sql_eval_string_fn(&ctx, e, args, false, &v) == 0);
    CHECK(!unrouted(&d));
    sql_typeinf_env_t env = {.column = col_type};
    sql_rtype_t t;
    CHECK_EQ_INT(sql_type_temporal_fn(&env, e, &t), -1);
    CHECK_EQ_INT(sql_type_string_fn(&env, e, &t), 1);
    diag_free(&d);
    arena_destroy(&a);
}

/* A function whose value comes from the session (SQL_FNF_SESSION) says so when there is none; the others
 * need no callbacks. */
TEST(test_session_flag)
{
    arena_t a;
    arena_init(&a, 4096);
    for (int i = 1; i < SQL_FN__COUNT; i++) {
        if (sql_fn_defs[i].flags & SQL_FNF_AGGREGATE || i == SQL_FN_VALUES)
            continue; /* the executor's, not the session's */
        diag_t d;
        diag_init(&d, 8);
        const sql_expr_t *e = parse_call(&a, (sql_fn_t)i, &d);
        REQUIRE(e != NULL);
        sql_eval_ctx_t ctx;
        sql_eval_ctx_init(&ctx, &a, &d, NULL, NULL);
        value_t v;
        int rc = sql_expr_eval(&ctx, e, &v);
        bool needs = rc == -ER_NOT_SUPPORTED_YET;
        if (needs != !!(sql_fn_defs[i].flags & SQL_FNF_SESSION))
            printf("  %s: %s\n", sql_fn_defs[i].name, needs ? "needs a session, not flagged" : "flagged SESSION, needs none");
        CHECK_EQ_INT(needs, !!(sql_fn_defs[i].flags & SQL_FNF_SESSION));
        diag_free(&d);
        arena_reset(&a);
    }
    arena_destroy(&a);
}

/* 1582 for a count outside the row's [min, max], when the statement is parsed (as MariaDB): before a table is
 * opened and in a branch that never runs. */
TEST(test_paramcount)
{
    static const char *const bad[] = {"LENGTH()", "LENGTH('a', 'b')", "CONCAT_WS('a')", "PI(1)",
                                      "ROUND(1, 2, 3)", "LOCATE(1)", "GREATEST(1)", "IF(0, ABS(1, 2), 1)",
                                      "1 FROM no_such_table WHERE ABS() = 1"};
    arena_t a;
    arena_init(&a, 4096);
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char q[64];
        snprintf(q, sizeof q, "SELECT %s", bad[i]);
        diag_t d;
        diag_init(&d, 8);
        sql_stmt_list_t l;
        int rc = sql_parse(&a, q, strlen(q), &l, &d);
        if (rc != -ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT)
            printf("  %s: %d\n", q, rc);
        CHECK_EQ_INT(rc, -ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT);
        REQUIRE(d.n == 1);
        CHECK_EQ_STR(d.conds[0].sqlstate, "42000");
        diag_free(&d);
        arena_reset(&a);
    }
    arena_destroy(&a);
}

UNIT_MAIN(test_rows_complete, test_rows_routed, test_misrouted_call_refused, test_session_flag, test_paramcount)
