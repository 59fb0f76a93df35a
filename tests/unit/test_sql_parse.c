/*
 * Parser tests: statements of milestone A parse into the expected AST fields; syntax errors give MariaDB's
 * exact 1064 text (every expected message below was read from MariaDB 10.11.19 with a multi-statement
 * COM_QUERY, so the near-text runs to the end of the whole buffer).
 */
#include <string.h>

#include "sql/sql.h"
#include "unit.h"

typedef struct {
    arena_t a;
    diag_t d;
    sql_stmt_list_t l;
    int rc;
} pr_t;

static void pr_parse(pr_t *p, const char *q)
{
    arena_init(&p->a, 4096);
    diag_init(&p->d, 64);
    p->rc = sql_parse(&p->a, q, strlen(q), &p->l, &p->d);
}

static void pr_free(pr_t *p)
{
    diag_free(&p->d);
    arena_destroy(&p->a);
}

static sql_stmt_t *one(pr_t *p, const char *q)
{
    pr_parse(p, q);
    if (p->rc) {
        fprintf(stderr, "  parse failed: %s: %s\n", q, p->d.error ? p->d.error->msg : "");
        return NULL;
    }
    return p->l.stmts[0];
}

#define PREFIX "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near "

TEST(test_syntax_errors_match_mariadb)
{
    static const struct { const char *q, *near; int line; } cases[] = {
        {"selec 1", "selec 1", 1},
        {"select 1 +", "", 1},
        {"select 1 from", "", 1},
        {"select (1", "", 1},
        {"select 1,,2", "2", 1},
        {"select 1,,2,3", "2,3", 1},
        {"select 1,,  2", "  2", 1},
        {"select (,1)", "1)", 1},
        {"select 1\nfrom\nwhere x", "where x", 3},
        {"select 1,\n,2", "2", 2},
        {"set", "", 1},
        {"show foo", "foo", 1},
        {"select 'abc", "'abc", 1},
        {"select `ab", "`ab", 1},
        {"select \xc3\xa9 \xc3\xa9 \xc3\xa9", "\xc3\xa9", 1},
        {"select 1 order", "", 1},
        {"set names", "", 1},
        {"kill", "", 1},
        {"select select", "select", 1},
        {"select ) x y", ") x y", 1},
        {"select 1 2 3", "2 3", 1},
        {"select 1 +) 5", ") 5", 1},
        {"select 1 = = 2", "= 2", 1},
        {"select ; select 1", "; select 1", 1},
        {"set @a=", "", 1},
        {"select a.b.c.d", ".d", 1},
        {"select 1 as", "", 1},
        {"select  'x'  'y' z w", "w", 1},
        {"select 1; selec 2", "selec 2", 1},
        {"select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' 'x' foo bar", "bar", 1},
        /* cut to 80 characters */
        {"select 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32",
         "2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 3", 1},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        pr_t p;
        pr_parse(&p, cases[i].q);
        CHECK_EQ_INT(p.rc, -ER_PARSE_ERROR);
        if (p.d.error) {
            char want[600];
            snprintf(want, sizeof want, PREFIX "'%s' at line %d", cases[i].near, cases[i].line);
            CHECK_EQ_STR(p.d.error->msg, want);
            CHECK_EQ_STR(p.d.error->sqlstate, "42000");
        } else {
            CHECK(p.d.error != NULL);
        }
        pr_free(&p);
    }
}

/* A statement's text (what the binlog logs) runs from after the previous ';' to its own ';', or to the end of the
 * text for the last one: comments on either side and an executable comment's closing belong to it. */
TEST(test_statement_text_through_its_last_byte)
{
    static const struct {
        const char *text;
        const char *want[3];
    } cases[] = {
        {"CREATE TABLE t (a INT) /*! ENGINE = innodb */", {"CREATE TABLE t (a INT) /*! ENGINE = innodb */"}},
        {"CREATE TABLE t (a INT) /*!40101 ENGINE=InnoDB */; CREATE TABLE u (a INT) -- c\n",
         {"CREATE TABLE t (a INT) /*!40101 ENGINE=InnoDB */", "CREATE TABLE u (a INT) -- c"}},
        {"  /* lead */ DO 1 # hash", {"/* lead */ DO 1 # hash"}},
        {"DO 1 /*M!100100 , 2 */ ;  /* c2 */ DO 3 ; \n", {"DO 1 /*M!100100 , 2 */ ", "/* c2 */ DO 3"}},
        {"/*!40101 DO 1 */", {"/*!40101 DO 1 */"}},
        {"DO 1; -- only a comment after", {"DO 1"}},
        {"DO 1;\t\n  ", {"DO 1"}},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        pr_t p;
        pr_parse(&p, cases[i].text);
        REQUIRE(p.rc == 0);
        uint32_t n = 0;
        while (n < 3 && cases[i].want[n])
            n++;
        CHECK_EQ_INT(p.l.n, n);
        for (uint32_t k = 0; k < n && k < p.l.n; k++)
            CHECK_EQ_STR(arena_strndup(&p.a, p.l.stmts[k]->src, p.l.stmts[k]->src_len), cases[i].want[k]);
        pr_free(&p);
    }
}

TEST(test_limit_ident_is_undeclared_variable)
{
    pr_t p;
    pr_parse(&p, "select 1 limit x");
    CHECK_EQ_INT(p.rc, -1327);
    CHECK_EQ_STR(p.d.error->msg, "Undeclared variable: x");
    pr_free(&p);
}

TEST(test_multi_statements_and_spans)
{
    pr_t p;
    pr_parse(&p, "  select 1 ;; SET @a = 2;\n select ? , ?;");
    REQUIRE(p.rc == 0);
    REQUIRE(p.l.n == 3);
    CHECK_EQ_INT(p.l.stmts[0]->kind, SQL_STMT_SELECT);
    CHECK(p.l.stmts[0]->src_len == 9 && memcmp(p.l.stmts[0]->src, "select 1 ", 9) == 0); /* up to its ';' */
    CHECK_EQ_INT(p.l.stmts[1]->kind, SQL_STMT_SET);
    CHECK(p.l.stmts[1]->src_len == 10 && memcmp(p.l.stmts[1]->src, "SET @a = 2", 10) == 0);
    CHECK_EQ_INT(p.l.stmts[2]->nparams, 2);
    CHECK_EQ_INT(p.l.stmts[2]->params[0]->param_index, 0);
    CHECK_EQ_INT(p.l.stmts[2]->params[1]->param_index, 1);
    CHECK_EQ_INT(p.l.stmts[1]->nparams, 0);
    pr_free(&p);
    pr_parse(&p, " -- only a comment\n");
    REQUIRE(p.rc == 0);
    CHECK_EQ_INT(p.l.n, 1);
    CHECK_EQ_INT(p.l.stmts[0]->kind, SQL_STMT_EMPTY);
    pr_free(&p);
}

TEST(test_comments_and_executable_comments)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "/*!40101 SET NAMES utf8mb4 */");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_SET);
    CHECK_EQ_INT(st->set.items[0].kind, SQL_SET_NAMES);
    CHECK_EQ_STR(st->set.items[0].charset, "utf8mb4");
    pr_free(&p);
    st = one(&p, "select 1 /*!50000 + 1 */ # tail\n");
    REQUIRE(st);
    CHECK_EQ_INT(st->select->items[0].expr->kind, SQL_E_BINARY);
    pr_free(&p);
    st = one(&p, "select 1 /*!999999 + 1 */");  /* version above ours: skipped */
    REQUIRE(st);
    CHECK_EQ_INT(st->select->items[0].expr->kind, SQL_E_LITERAL);
    pr_free(&p);
    st = one(&p, "/*M!100100 select 5 */");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_SELECT);
    pr_free(&p);
    st = one(&p, "select 1 -- c\n + 2 /* x */");
    REQUIRE(st);
    CHECK_EQ_INT(st->select->items[0].expr->kind, SQL_E_BINARY);
    pr_free(&p);
    /* "--" without a following space is two minus signs */
    st = one(&p, "select 1--1");
    REQUIRE(st);
    CHECK_EQ_INT(st->select->items[0].expr->op, SQL_OP_SUB);
    pr_free(&p);
}

TEST(test_literals)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "select 'it''s\\n', _utf8mb4'x', X'4142', 0x41, b'1000001', 12, 1.50, 1e3, NULL, TRUE, "
                             "18446744073709551615, 99999999999999999999, \"dq\", N'n'");
    REQUIRE(st);
    sql_select_item_t *it = st->select->items;
    CHECK(it[0].expr->lit.type == VAL_STRING && it[0].expr->lit.s.len == 5 && memcmp(it[0].expr->lit.s.ptr, "it's\n", 5) == 0);
    CHECK_EQ_INT(it[1].expr->lit.coll, COLL_UTF8MB4_GENERAL_CI);
    CHECK(it[2].expr->lit.coll == COLL_BINARY && it[2].expr->lit.s.len == 2 && memcmp(it[2].expr->lit.s.ptr, "AB", 2) == 0);
    CHECK(it[3].expr->lit.s.len == 1 && it[3].expr->lit.s.ptr[0] == 'A');
    CHECK(it[4].expr->lit.s.len == 1 && it[4].expr->lit.s.ptr[0] == 'A');
    CHECK(it[5].expr->lit.type == VAL_INT && it[5].expr->lit.i == 12);
    CHECK(it[6].expr->lit.type == VAL_DECIMAL && it[6].expr->lit.dec == 2);
    CHECK(it[7].expr->lit.type == VAL_DOUBLE && it[7].expr->lit.d == 1000);
    CHECK(it[8].expr->lit.type == VAL_NULL);
    CHECK(it[9].expr->lit.type == VAL_INT && it[9].expr->lit.i == 1);
    CHECK(it[10].expr->lit.type == VAL_UINT && it[10].expr->lit.u == UINT64_MAX);
    CHECK(it[11].expr->lit.type == VAL_DECIMAL);
    CHECK(it[12].expr->lit.type == VAL_STRING);
    CHECK(it[13].expr->lit.type == VAL_STRING);
    pr_free(&p);
}

TEST(test_precedence)
{
    pr_t p;
    /* 1 + 2 * 3 = 7 OR NOT 0 AND 1  ==  ((1 + (2*3)) = 7) OR ((NOT 0) AND 1) */
    sql_stmt_t *st = one(&p, "select 1 + 2 * 3 = 7 OR NOT 0 AND 1");
    REQUIRE(st);
    sql_expr_t *e = st->select->items[0].expr;
    CHECK_EQ_INT(e->op, SQL_OP_OR);
    CHECK_EQ_INT(e->args[0]->op, SQL_OP_EQ);
    CHECK_EQ_INT(e->args[0]->args[0]->op, SQL_OP_ADD);
    CHECK_EQ_INT(e->args[0]->args[0]->args[1]->op, SQL_OP_MUL);
    CHECK_EQ_INT(e->args[1]->op, SQL_OP_AND);
    CHECK_EQ_INT(e->args[1]->args[0]->op, SQL_OP_NOT);
    pr_free(&p);
    st = one(&p, "select a NOT BETWEEN 1 AND 2 AND b NOT LIKE 'x%' ESCAPE '|' AND c NOT IN (1,2) AND d IS NOT NULL");
    REQUIRE(st);
    e = st->select->items[0].expr;
    CHECK_EQ_INT(e->op, SQL_OP_AND);
    CHECK_EQ_INT(e->args[1]->kind, SQL_E_IS);
    CHECK(e->args[1]->negated);
    CHECK_EQ_INT(e->args[0]->args[1]->kind, SQL_E_IN);
    CHECK_EQ_INT(e->args[0]->args[1]->nargs, 3);
    CHECK_EQ_INT(e->args[0]->args[0]->args[1]->kind, SQL_E_LIKE);
    CHECK_EQ_INT(e->args[0]->args[0]->args[1]->nargs, 3);
    CHECK_EQ_INT(e->args[0]->args[0]->args[0]->kind, SQL_E_BETWEEN);
    pr_free(&p);
    st = one(&p, "select @a := 1 + 2, - 2 ^ 2, !1 + 1");
    REQUIRE(st);
    CHECK_EQ_INT(st->select->items[0].expr->kind, SQL_E_ASSIGN);
    CHECK_EQ_INT(st->select->items[0].expr->args[0]->op, SQL_OP_ADD);
    CHECK_EQ_INT(st->select->items[1].expr->op, SQL_OP_BITXOR); /* unary minus binds tighter than ^ */
    CHECK_EQ_INT(st->select->items[2].expr->op, SQL_OP_ADD);    /* ! binds tighter than + */
    pr_free(&p);
}

static sql_stmt_t *one_mode(pr_t *p, const char *q, unsigned mode)
{
    arena_init(&p->a, 4096);
    diag_init(&p->d, 64);
    p->rc = sql_parse_mode(&p->a, q, strlen(q), mode, &p->l, &p->d);
    return p->rc ? NULL : p->l.stmts[0];
}

/* sql_mode flags that change the reading of the text (checked against MariaDB 10.11 in tests/sql/misc.sql) */
TEST(test_parse_modes)
{
    pr_t p;
    const char *q = "select \"a\"\"b\", 'x\\y' || \"c\\d\" || 1 ^ 2, NOT 1 BETWEEN 0 AND 2";
    sql_stmt_t *st = one_mode(&p, q, 0);
    REQUIRE(st);
    CHECK_EQ_INT(st->select->items[0].expr->kind, SQL_E_LITERAL);
    CHECK_EQ_STR(st->select->items[0].expr->lit.s.ptr, "a\"b");
    CHECK_EQ_INT(st->select->items[1].expr->op, SQL_OP_OR);
    CHECK_EQ_INT(st->select->items[2].expr->op, SQL_OP_NOT);
    pr_free(&p);
    st = one_mode(&p, q, SQL_PARSE_ANSI_QUOTES | SQL_PARSE_PIPES_AS_CONCAT | SQL_PARSE_HIGH_NOT_PRECEDENCE |
                             SQL_PARSE_NO_BACKSLASH_ESCAPES);
    REQUIRE(st);
    sql_expr_t *e = st->select->items[0].expr;
    CHECK_EQ_INT(e->kind, SQL_E_COLUMN);
    CHECK_EQ_STR(e->col.name, "a\"b");
    e = st->select->items[1].expr; /* CONCAT('x\\y', `c\\d`, 1) ^ 2 */
    CHECK_EQ_INT(e->op, SQL_OP_BITXOR);
    CHECK_EQ_INT(e->args[0]->kind, SQL_E_FUNC);
    CHECK_EQ_INT(e->args[0]->func.fn, SQL_FN_CONCAT);
    CHECK_EQ_INT(e->args[0]->nargs, 3);
    CHECK_EQ_STR(e->args[0]->args[0]->lit.s.ptr, "x\\y");
    CHECK_EQ_STR(e->args[0]->args[1]->col.name, "c\\d");
    e = st->select->items[2].expr; /* (NOT 1) BETWEEN 0 AND 2 */
    CHECK_EQ_INT(e->kind, SQL_E_BETWEEN);
    CHECK_EQ_INT(e->args[0]->op, SQL_OP_NOT);
    pr_free(&p);
    /* NO_BACKSLASH_ESCAPES: a backslash does not escape the quote, so 'a\'' is 'a\' then an open string */
    CHECK(one_mode(&p, "select 'a\\''", SQL_PARSE_NO_BACKSLASH_ESCAPES) == NULL);
    CHECK_EQ_INT(p.rc, -ER_PARSE_ERROR);
    pr_free(&p);
    CHECK(one_mode(&p, "select 'a\\''", 0) != NULL);
    pr_free(&p);
}

TEST(test_select_clauses)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "SELECT 1 AS x, 2 y, @@session.sql_mode, status FROM DUAL WHERE 1 LIMIT 5 OFFSET 2");
    REQUIRE(st);
    sql_select_t *s = st->select;
    CHECK_EQ_INT(s->nitems, 4);
    CHECK_EQ_STR(s->items[0].alias, "x");
    CHECK_EQ_STR(s->items[1].alias, "y");
    CHECK_EQ_INT(s->items[2].expr->kind, SQL_E_SYSVAR);
    CHECK_EQ_INT(s->items[2].expr->var.scope, SQL_SCOPE_SESSION);
    CHECK_EQ_STR(s->items[2].expr->var.name, "sql_mode");
    CHECK_EQ_INT(s->items[3].expr->kind, SQL_E_COLUMN); /* non-reserved keyword as identifier */
    CHECK(s->from_dual && s->where);
    CHECK_EQ_INT(s->limit.count->lit.i, 5);
    CHECK_EQ_INT(s->limit.offset->lit.i, 2);
    pr_free(&p);
    st = one(&p, "select 1 limit 2, 3");
    REQUIRE(st);
    CHECK_EQ_INT(st->select->limit.offset->lit.i, 2);
    CHECK_EQ_INT(st->select->limit.count->lit.i, 3);
    pr_free(&p);
    st = one(&p, "select CASE WHEN 1 THEN 'a' ELSE 'b' END, cast(1 as unsigned), convert('x' using latin1), "
                 "count(*), trim(leading 'x' from 'xa'), substring('abc' from 2 for 1), `select`");
    REQUIRE(st);
    s = st->select;
    CHECK_EQ_INT(s->items[0].expr->kind, SQL_E_CASE);
    CHECK_EQ_INT(s->items[1].expr->cast.type, SQL_CAST_UNSIGNED);
    CHECK_EQ_INT(s->items[2].expr->kind, SQL_E_CONVERT_USING);
    CHECK(s->items[3].expr->func.fn == SQL_FN_COUNT && s->items[3].expr->func.star);
    CHECK_EQ_INT(s->items[4].expr->nargs, 2);
    CHECK_EQ_INT(s->items[5].expr->nargs, 3);
    CHECK_EQ_STR(s->items[6].expr->col.name, "select");
    pr_free(&p);
}

TEST(test_set_statements)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "SET GLOBAL max_connections = 100, sort_buffer_size = DEFAULT, SESSION sql_mode = 'x', "
                             "@@global.a.b = ON, @u := 5, NAMES utf8mb4 COLLATE utf8mb4_bin, autocommit = OFF");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_SET);
    REQUIRE(st->set.nitems == 7);
    sql_set_item_t *it = st->set.items;
    CHECK(it[0].kind == SQL_SET_SYSVAR && it[0].scope == SQL_SCOPE_GLOBAL);
    CHECK_EQ_STR(it[0].name, "max_connections");
    CHECK(it[1].scope == SQL_SCOPE_GLOBAL && it[1].value->kind == SQL_E_DEFAULT);
    CHECK(it[2].scope == SQL_SCOPE_SESSION);
    CHECK(it[3].scope == SQL_SCOPE_GLOBAL);
    CHECK_EQ_STR(it[3].component, "a");
    CHECK_EQ_STR(it[3].name, "b");
    CHECK(it[3].value->kind == SQL_E_COLUMN);
    CHECK_EQ_STR(it[3].value->col.name, "ON");
    CHECK(it[4].kind == SQL_SET_USERVAR);
    CHECK_EQ_STR(it[4].name, "u");
    CHECK(it[5].kind == SQL_SET_NAMES);
    CHECK_EQ_STR(it[5].collation, "utf8mb4_bin");
    CHECK_EQ_STR(it[6].value->col.name, "OFF");
    pr_free(&p);
    st = one(&p, "SET CHARACTER SET latin1");
    REQUIRE(st);
    CHECK(st->set.items[0].kind == SQL_SET_CHARSET);
    pr_free(&p);
    st = one(&p, "SET PASSWORD FOR 'bob'@'%' = PASSWORD('x')");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_SET_PASSWORD);
    CHECK(st->set_password.has_user);
    CHECK_EQ_STR(st->set_password.user.user, "bob");
    CHECK_EQ_STR(st->set_password.user.host, "%");
    CHECK_EQ_INT(st->set_password.value->func.fn, SQL_FN_PASSWORD);
    pr_free(&p);
    st = one(&p, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_SET_TRANSACTION);
    CHECK_EQ_INT(st->txn.isolation, SQL_ISO_READ_COMMITTED);
    CHECK_EQ_INT(st->txn.access, SQL_ACCESS_READ_ONLY);
    CHECK_EQ_INT(st->txn.scope, SQL_SCOPE_SESSION);
    pr_free(&p);
    pr_parse(&p, "SET NAMES nosuch");
    CHECK_EQ_INT(p.rc, -ER_UNKNOWN_CHARACTER_SET);
    pr_free(&p);
}

TEST(test_show_statements)
{
    static const struct { const char *q; sql_show_kind_t k; } cases[] = {
        {"SHOW GLOBAL VARIABLES LIKE 'max%'", SQL_SHOW_VARIABLES}, {"SHOW STATUS", SQL_SHOW_STATUS},
        {"SHOW WARNINGS LIMIT 10", SQL_SHOW_WARNINGS}, {"SHOW ERRORS", SQL_SHOW_ERRORS},
        {"SHOW COUNT(*) WARNINGS", SQL_SHOW_WARNINGS}, {"SHOW SCHEMAS", SQL_SHOW_DATABASES},
        {"SHOW FULL PROCESSLIST", SQL_SHOW_PROCESSLIST}, {"SHOW ENGINES", SQL_SHOW_ENGINES},
        {"SHOW CHARACTER SET LIKE 'utf%'", SQL_SHOW_CHARSET}, {"SHOW COLLATION", SQL_SHOW_COLLATION},
        {"SHOW GRANTS FOR CURRENT_USER()", SQL_SHOW_GRANTS}, {"SHOW CREATE DATABASE d", SQL_SHOW_CREATE_DATABASE},
        {"SHOW CREATE TABLE d.t", SQL_SHOW_CREATE_TABLE}, {"SHOW FULL TABLES FROM d LIKE 't%'", SQL_SHOW_TABLES},
        {"SHOW FULL COLUMNS FROM t FROM d", SQL_SHOW_COLUMNS}, {"SHOW INDEX FROM t", SQL_SHOW_INDEX},
        {"SHOW TABLE STATUS", SQL_SHOW_TABLE_STATUS}, {"SHOW BINARY LOGS", SQL_SHOW_BINARY_LOGS},
        {"SHOW MASTER STATUS", SQL_SHOW_MASTER_STATUS}, {"SHOW BINLOG EVENTS IN 'b.000001' FROM 4 LIMIT 3", SQL_SHOW_BINLOG_EVENTS},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        pr_t p;
        sql_stmt_t *st = one(&p, cases[i].q);
        CHECK(st != NULL);
        if (st) {
            CHECK_EQ_INT(st->kind, SQL_STMT_SHOW);
            CHECK_EQ_INT(st->show.what, cases[i].k);
        }
        pr_free(&p);
    }
    pr_t p;
    sql_stmt_t *st = one(&p, "SHOW SESSION STATUS WHERE Variable_name = 'Uptime'");
    REQUIRE(st);
    CHECK(st->show.scope == SQL_SCOPE_SESSION && st->show.where);
    pr_free(&p);
    st = one(&p, "SHOW FULL COLUMNS FROM t FROM d");
    REQUIRE(st);
    CHECK(st->show.full);
    CHECK_EQ_STR(st->show.table.name, "t");
    CHECK_EQ_STR(st->show.table.db, "d");
    pr_free(&p);
    st = one(&p, "SHOW COUNT(*) ERRORS");
    REQUIRE(st);
    CHECK(st->show.count_only && st->show.what == SQL_SHOW_ERRORS);
    pr_free(&p);
}

TEST(test_account_and_admin_statements)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "CREATE USER IF NOT EXISTS 'u'@'localhost' IDENTIFIED BY 'pw', bob IDENTIFIED WITH "
                             "mysql_native_password AS '*ABC', `c`@`h` IDENTIFIED WITH caching_sha2_password BY 'p'");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_CREATE_USER);
    CHECK(st->user.if_not_exists);
    REQUIRE(st->user.nusers == 3);
    CHECK_EQ_STR(st->user.users[0].user.user, "u");
    CHECK_EQ_STR(st->user.users[0].user.host, "localhost");
    CHECK_EQ_STR(st->user.users[0].password, "pw");
    CHECK_EQ_STR(st->user.users[1].user.host, "%");
    CHECK_EQ_STR(st->user.users[1].plugin, "mysql_native_password");
    CHECK_EQ_STR(st->user.users[1].auth_string, "*ABC");
    CHECK_EQ_STR(st->user.users[2].plugin, "caching_sha2_password");
    CHECK_EQ_STR(st->user.users[2].password, "p");
    pr_free(&p);
    st = one(&p, "DROP USER IF EXISTS a@b, CURRENT_USER");
    REQUIRE(st);
    CHECK(st->kind == SQL_STMT_DROP_USER && st->user.if_exists && st->user.users[1].user.current);
    pr_free(&p);
    st = one(&p, "RENAME USER a@b TO c@'d'");
    REQUIRE(st);
    CHECK_EQ_STR(st->rename_user.to[0].host, "d");
    pr_free(&p);
    st = one(&p, "KILL QUERY 7");
    REQUIRE(st);
    CHECK(st->kind == SQL_STMT_KILL && st->kill.query && st->kill.id->lit.i == 7);
    pr_free(&p);
    st = one(&p, "FLUSH NO_WRITE_TO_BINLOG BINARY LOGS, PRIVILEGES");
    REQUIRE(st);
    CHECK(st->flush.local && st->flush.what == (SQL_FLUSH_BINARY_LOGS | SQL_FLUSH_PRIVILEGES));
    pr_free(&p);
    st = one(&p, "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT");
    REQUIRE(st);
    CHECK(st->kind == SQL_STMT_BEGIN && st->txn.access == SQL_ACCESS_READ_ONLY && st->txn.consistent_snapshot);
    pr_free(&p);
    st = one(&p, "ROLLBACK WORK TO SAVEPOINT s1");
    REQUIRE(st);
    CHECK_EQ_STR(st->txn.savepoint, "s1");
    pr_free(&p);
    st = one(&p, "PREPARE s FROM 'select ?'");
    REQUIRE(st);
    CHECK(st->kind == SQL_STMT_PREPARE && st->prepare.text_len == 8);
    pr_free(&p);
    st = one(&p, "EXECUTE s USING @a, @b");
    REQUIRE(st);
    CHECK(st->kind == SQL_STMT_EXECUTE && st->prepare.nusing == 2);
    pr_free(&p);
    st = one(&p, "DROP PREPARE s");
    REQUIRE(st);
    CHECK_EQ_INT(st->kind, SQL_STMT_DEALLOCATE);
    pr_free(&p);
    st = one(&p, "LOCK TABLES t1 READ LOCAL, d.t2 AS x WRITE");
    REQUIRE(st);
    CHECK(st->kind == SQL_STMT_LOCK_TABLES && st->lock.n == 2 && st->lock.tables[1].type == SQL_TLOCK_WRITE);
    pr_free(&p);
    static const char *more[] = {"USE `my db`", "SHUTDOWN", "BEGIN", "COMMIT WORK", "SAVEPOINT a", "RELEASE SAVEPOINT a",
                                 "DO 1, @a := 2", "UNLOCK TABLES", "ALTER USER u@h IDENTIFIED BY 'x'",
                                 "FLUSH LOCAL TABLES", "KILL CONNECTION 3", "SET PASSWORD = 'x'", "DEALLOCATE PREPARE s"};
    for (size_t i = 0; i < ARRAY_LEN(more); i++) {
        st = one(&p, more[i]);
        CHECK(st != NULL);
        pr_free(&p);
    }
}

/* A multi-row INSERT of many string literals parses in memory proportional to its text (each literal's decoded
 * copy is the size of that literal, not of the rest of the statement), with escapes and doubled quotes decoded. */
TEST(test_many_literals_bounded_memory)
{
    buf_t q;
    buf_init(&q);
    buf_append_str(&q, "INSERT INTO t (a, b) VALUES ");
    for (int i = 0; i < 5000; i++)
        buf_printf(&q, "%s(%d, 'row-%d-abcdefghijklmnopqrstuvwxyz0123456789')", i ? "," : "", i, i);
    buf_append_str(&q, ",(1, 'it''s \\'quoted\\' \\\\ x'),(2, '')");
    buf_append_byte(&q, 0);
    pr_t p;
    sql_stmt_t *st = one(&p, (const char *)q.data);
    REQUIRE(st && st->kind == SQL_STMT_INSERT);
    CHECK(p.a.total < 40 * q.len); /* was quadratic: about 5000 x 200 KiB */
    const sql_insert_t *ins = st->insert;
    REQUIRE(ins->nrows == 5002);
    const value_t *v = &ins->rows[5000].vals[1]->lit;
    CHECK(v->s.len == 17 && memcmp(v->s.ptr, "it's 'quoted' \\ x", 17) == 0);
    CHECK_EQ_INT((int)ins->rows[5001].vals[1]->lit.s.len, 0);
    pr_free(&p);
    buf_free(&q);
}

UNIT_MAIN(test_syntax_errors_match_mariadb, test_statement_text_through_its_last_byte, test_limit_ident_is_undeclared_variable, test_multi_statements_and_spans,
          test_comments_and_executable_comments, test_literals, test_precedence, test_parse_modes, test_select_clauses,
          test_set_statements, test_show_statements, test_account_and_admin_statements,
          test_many_literals_bounded_memory)
