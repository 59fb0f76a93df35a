/* Stored routines: catalog records (access/routine.c) put, read back (names case-insensitive, the kind part of
 * the key), listed in order, deleted, and surviving close and reopen; the body parser (sql/parser/sp_parse.c)
 * resolves variables to frame slots lexically and reports MariaDB's CREATE-time errors. */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "access/routine.h"
#include "sql/sql.h"
#include "unit.h"
#include "util/util.h"

static engine_t *open_engine(const char *dir)
{
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 4u << 20;
    o.log_bytes = 16u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    o.flush_mode = ENGINE_FLUSH_LAZY;
    engine_t *e = NULL;
    if (engine_open(&o, &e))
        return NULL;
    return e;
}

static cat_routine_t rec(const char *type, const char *db, const char *name, const char *body)
{
    cat_routine_t r = {.db = db, .name = name, .type = type, .definer_user = "root", .definer_host = "localhost",
                       .params = "a INT", .returns = strcmp(type, "FUNCTION") == 0 ? "int(11)" : "", .body = body,
                       .deterministic = "NO", .data_access = "CONTAINS SQL", .security = "DEFINER", .comment = "",
                       .sql_mode = "", .created = "2026-01-01 00:00:00", .modified = "2026-01-01 00:00:00",
                       .client_cs = "utf8mb4", .conn_coll = "utf8mb4_general_ci", .db_coll = "utf8mb4_general_ci",
                       .body_line = "1"};
    return r;
}

TEST(test_routine_records)
{
    char dir[64];
    strcpy(dir, "/tmp/strata_rt_XXXXXX");
    REQUIRE(mkdtemp(dir));
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    catalog_t *c;
    REQUIRE(catalog_open(e, dir, &c) == 0);
    arena_t a;
    arena_init(&a, 4096);
    cat_routine_t p = rec("PROCEDURE", "d", "MyProc", "BEGIN SELECT a; END");
    cat_routine_t f = rec("FUNCTION", "d", "myproc", "RETURN a + 1");
    CHECK_EQ_INT(catalog_routine_put(c, &p), 0);
    CHECK_EQ_INT(catalog_routine_put(c, &f), 0);
    cat_routine_t o;
    CHECK_EQ_INT(catalog_routine_get(c, &a, "PROCEDURE", "d", "myPROC", &o), 1);
    CHECK_EQ_STR(o.name, "MyProc");
    CHECK_EQ_STR(o.body, "BEGIN SELECT a; END");
    CHECK_EQ_INT(catalog_routine_get(c, &a, "FUNCTION", "d", "MYPROC", &o), 1);
    CHECK_EQ_STR(o.body, "RETURN a + 1");
    CHECK_EQ_INT(catalog_routine_get(c, &a, "PROCEDURE", "e", "myproc", &o), 0);
    cat_routine_t *all;
    uint32_t n;
    CHECK_EQ_INT(catalog_routine_list(c, &a, "d", &all, &n), 0);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(all[0].type, "FUNCTION");
        CHECK_EQ_STR(all[1].type, "PROCEDURE");
    }
    catalog_close(c);
    engine_close(e);
    e = open_engine(dir);
    REQUIRE(e);
    REQUIRE(catalog_open(e, dir, &c) == 0);
    CHECK_EQ_INT(catalog_routine_get(c, &a, "PROCEDURE", "d", "myproc", &o), 1);
    CHECK_EQ_INT(catalog_routine_delete(c, "PROCEDURE", "d", "MYPROC"), 0);
    CHECK_EQ_INT(catalog_routine_delete(c, "PROCEDURE", "d", "MYPROC"), STRATA_ENOTFOUND);
    CHECK_EQ_INT(catalog_routine_get(c, &a, "FUNCTION", "d", "myproc", &o), 1);
    /* a record that does not parse is no routine */
    CHECK_EQ_INT(catalog_routine_decode(&a, "\x01\x05", 2, &o), -1);
    catalog_close(c);
    engine_close(e);
    arena_destroy(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

static int parse_err(const char *sql)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 8);
    sql_stmt_list_t l;
    int rc = sql_parse(&a, sql, strlen(sql), &l, &d);
    int code = rc ? d.error_code : 0;
    diag_free(&d);
    arena_destroy(&a);
    return code;
}

TEST(test_routine_body_parse)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 8);
    sql_stmt_list_t l;
    const char *sql = "CREATE PROCEDURE p(x INT) BEGIN DECLARE y INT DEFAULT x; BEGIN DECLARE x INT; SET x = y; END; "
                      "SELECT x, y INTO y, x FROM t WHERE a = x; END; SELECT 2";
    REQUIRE(sql_parse(&a, sql, strlen(sql), &l, &d) == 0);
    REQUIRE(l.n == 2);
    const sp_body_t *b = l.stmts[0]->routine->body;
    REQUIRE(b && b->nvars == 3);
    const sp_node_t *root = b->root;
    REQUIRE(root->kind == SP_BLOCK && root->body.n == 3);
    CHECK_EQ_INT(root->body.items[0]->expr->vars[0], 0);     /* DEFAULT x: the parameter */
    const sp_node_t *inner = root->body.items[1];
    REQUIRE(inner->kind == SP_BLOCK && inner->body.n == 2);
    CHECK_EQ_INT(inner->body.items[1]->var, 2);              /* the inner x shadows the parameter */
    CHECK_EQ_INT(inner->body.items[1]->expr->vars[0], 1);
    const sp_node_t *sel = root->body.items[2];
    REQUIRE(sel->kind == SP_SQL && sel->ninto == 2);
    CHECK_EQ_INT(sel->into[0].var, 1);
    CHECK_EQ_INT(sel->into[1].var, 0);
    CHECK_EQ_STR(sel->stmt->text, "SELECT ?, ?  FROM t WHERE a = ?");
    CHECK_EQ_INT(sel->stmt->nvars, 3);
    CHECK_EQ_INT(l.stmts[1]->kind, SQL_STMT_SELECT);
    diag_free(&d);
    arena_destroy(&a);

    CHECK_EQ_INT(parse_err("CREATE PROCEDURE p() BEGIN SELECT 1 INTO z; END"), ER_SP_UNDECLARED_VAR);
    CHECK_EQ_INT(parse_err("CREATE PROCEDURE p() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE v INT; END"),
                 ER_SP_VARCOND_AFTER_CURSHNDLR);
    CHECK_EQ_INT(parse_err("CREATE PROCEDURE p() l: LOOP ITERATE m; END LOOP"), ER_SP_LILABEL_MISMATCH);
    CHECK_EQ_INT(parse_err("CREATE PROCEDURE p() RETURN 1"), ER_SP_BADRETURN);
    CHECK_EQ_INT(parse_err("CREATE FUNCTION f() RETURNS INT BEGIN SELECT 1; RETURN 1; END"), ER_SP_NO_RETSET);
    CHECK_EQ_INT(parse_err("CREATE PROCEDURE p() BEGIN IF 1 THEN SELECT 1; END"), ER_PARSE_ERROR);
    CHECK_EQ_INT(parse_err("CREATE PROCEDURE p() BEGIN DECLARE x INT; DECLARE x INT; END"), ER_SP_DUP_VAR);
}

UNIT_MAIN(test_routine_records, test_routine_body_parse)
