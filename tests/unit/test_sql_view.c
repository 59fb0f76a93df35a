/*
 * view_select_mergeable (sql/bind/view.c): which SELECTs a view can merge, MariaDB 10.11's rules as read from a
 * running server (information_schema.VIEWS.IS_UPDATABLE and 1354 / 1288 in tests/sql/views.sql).  CREATE VIEW's
 * 1354 and every write and merged read through a view ask it.
 */
#include "sql/sql.h"
#include "sql/bind/view.h"
#include "unit.h"

static const struct { const char *sel; bool merges; } cases[] = {
    {"SELECT a, b FROM t", true},
    {"SELECT a, b + 1 AS c FROM t WHERE a > 1", true},
    {"SELECT t.a, u.x FROM t JOIN u ON t.id = u.id", true},
    {"SELECT t.a FROM t LEFT JOIN u ON t.id = u.id", true},
    {"SELECT a, (SELECT MAX(x) FROM u) FROM t", true},
    {"SELECT a FROM t WHERE a IN (SELECT x FROM u)", true},
    {"SELECT * FROM t ORDER BY a", true},
    {"SELECT DISTINCT a FROM t", false},
    {"SELECT a, COUNT(*) FROM t GROUP BY a", false},
    {"SELECT MAX(a) FROM t", false},
    {"SELECT a FROM t GROUP BY a HAVING a > 1", false},
    {"SELECT a FROM t LIMIT 2", false},
    {"SELECT a FROM t UNION SELECT x FROM u", false},
    {"SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t", false},
    {"SELECT a, RAND() FROM t", false},
    {"SELECT a FROM t WHERE RAND() > 0.5", false},
    {"SELECT 1", false},
    {"WITH w AS (SELECT a FROM t) SELECT a FROM w", false},
};

TEST(test_view_mergeable_rules)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        arena_t a;
        diag_t d;
        arena_init(&a, 4096);
        diag_init(&d, 8);
        sql_stmt_list_t l;
        int rc = sql_parse(&a, cases[i].sel, strlen(cases[i].sel), &l, &d);
        REQUIRE(rc == 0 && l.n == 1 && l.stmts[0]->kind == SQL_STMT_SELECT);
        if (view_select_mergeable(l.stmts[0]->select) != cases[i].merges)
            fprintf(stderr, "  %s: expected %s\n", cases[i].sel, cases[i].merges ? "mergeable" : "not mergeable");
        CHECK(view_select_mergeable(l.stmts[0]->select) == cases[i].merges);
        diag_free(&d);
        arena_destroy(&a);
    }
}

UNIT_MAIN(test_view_mergeable_rules)
