/*
 * Parser tests for milestone B: DDL, DML, full SELECT, EXPLAIN/DESCRIBE/SHOW, GRANT/REVOKE/roles, binlog
 * statements, the tablespace statements of issue 3.  Every statement of sql_ddl_cases.h must parse (sysbench's,
 * seed 002's, a mariadb-dump); then the AST of representative statements is checked field by field; error
 * texts were read from MariaDB 10.11.19.
 */
#include <string.h>

#include "sql/sql.h"
#include "unit.h"
#include "sql_ddl_cases.h"

typedef struct {
    arena_t a;
    diag_t d;
    sql_stmt_list_t l;
    int rc;
} pr_t;

static sql_stmt_t *one(pr_t *p, const char *q)
{
    arena_init(&p->a, 4096);
    diag_init(&p->d, 64);
    p->rc = sql_parse(&p->a, q, strlen(q), &p->l, &p->d);
    if (p->rc) {
        fprintf(stderr, "  parse failed: %s: %s\n", q, p->d.error ? p->d.error->msg : "");
        return NULL;
    }
    return p->l.stmts[0];
}

static void pr_free(pr_t *p)
{
    diag_free(&p->d);
    arena_destroy(&p->a);
}

TEST(test_all_forms_parse)
{
    for (size_t i = 0; i < ARRAY_LEN(must_parse); i++) {
        pr_t p;
        sql_stmt_t *st = one(&p, must_parse[i]);
        CHECK(st != NULL);
        if (st)
            CHECK_EQ_INT(p.l.n, 1);
        pr_free(&p);
    }
}

TEST(test_mariadb_dump_parses)
{
    pr_t p;
    sql_stmt_t *st = one(&p, dump_text);
    REQUIRE(st != NULL);
    CHECK_EQ_INT(p.l.n, 57);
    /* find the CREATE TABLE `t` and check a few columns */
    sql_create_table_t *ct = NULL;
    int inserts = 0, locks = 0, alters = 0, views = 0;
    for (uint32_t i = 0; i < p.l.n; i++) {
        sql_stmt_t *s = p.l.stmts[i];
        if (s->kind == SQL_STMT_CREATE_TABLE && !ct)
            ct = s->create_table;
        inserts += s->kind == SQL_STMT_INSERT;
        locks += s->kind == SQL_STMT_LOCK_TABLES;
        alters += s->kind == SQL_STMT_ALTER_TABLE;
        if (s->kind == SQL_STMT_CREATE_VIEW) {
            views++;
            if (views == 2) { /* the final view: ALGORITHM / DEFINER / SQL SECURITY in three executable comments */
                CHECK_EQ_STR(s->view->algorithm, "UNDEFINED");
                CHECK(s->view->has_definer);
                CHECK_EQ_STR(s->view->definer.user, "root");
                CHECK_EQ_STR(s->view->security, "DEFINER");
                CHECK_EQ_STR(s->view->name.name, "v");
            }
        }
    }
    CHECK_EQ_INT(views, 2);
    CHECK_EQ_INT(inserts, 1);
    CHECK_EQ_INT(locks, 2);
    CHECK_EQ_INT(alters, 4); /* DISABLE/ENABLE KEYS x2 */
    REQUIRE(ct != NULL);
    CHECK_EQ_STR(ct->table.name, "t");
    CHECK_EQ_INT(ct->ncols, 30);
    CHECK_EQ_INT(ct->nindexes, 4);
    CHECK_EQ_STR(ct->opts.engine, "InnoDB");
    CHECK_EQ_INT(ct->opts.auto_increment, 7);
    CHECK_EQ_INT(ct->opts.coll, COLL_UTF8MB4_GENERAL_CI);
    CHECK_EQ_STR(ct->opts.comment, "tbl");
    sql_column_def_t *c = ct->cols;
    CHECK_EQ_INT(c[0].type.kind, SQL_T_INT);
    CHECK(c[0].type.is_unsigned);
    CHECK_EQ_INT(c[0].type.len, 10);
    CHECK(c[0].auto_increment);
    CHECK_EQ_INT(c[0].nullable, SQL_NULL_NOT_NULL);
    CHECK(c[1].type.zerofill);
    CHECK_EQ_INT(c[5].type.kind, SQL_T_DECIMAL);
    CHECK_EQ_INT(c[5].type.len, 10);
    CHECK_EQ_INT(c[5].type.scale, 2);
    REQUIRE(c[5].default_expr != NULL);
    CHECK_EQ_INT(c[5].default_expr->kind, SQL_E_LITERAL);
    CHECK_EQ_INT(c[6].type.kind, SQL_T_FLOAT);
    CHECK_EQ_INT(c[6].type.len, 7);
    CHECK_EQ_INT(c[6].type.scale, 3);
    CHECK_EQ_INT(c[8].type.kind, SQL_T_BIT);
    CHECK_EQ_INT(c[8].type.len, 5);
    CHECK_EQ_INT(c[9].type.coll, COLL_LATIN1_BIN);
    CHECK_EQ_INT(c[11].type.kind, SQL_T_BINARY);
    CHECK_EQ_INT(c[11].type.coll, COLL_BINARY);
    CHECK_EQ_STR(c[14].comment, "a text");
    CHECK_EQ_INT(c[22].type.kind, SQL_T_DATETIME);
    CHECK_EQ_INT(c[22].type.scale, 3);
    CHECK(c[22].default_now);
    CHECK(c[22].on_update_now);
    CHECK_EQ_INT(c[23].type.kind, SQL_T_TIMESTAMP);
    CHECK_EQ_INT(c[25].type.kind, SQL_T_YEAR);
    CHECK_EQ_INT(c[26].type.kind, SQL_T_ENUM);
    REQUIRE(c[26].type.nelems == 3);
    CHECK_EQ_STR(c[26].type.elems[1], "b'x");
    CHECK_EQ_INT(c[27].type.kind, SQL_T_SET);
    CHECK_EQ_INT(c[29].type.kind, SQL_T_LONGTEXT);
    CHECK_EQ_INT(c[29].type.coll, COLL_UTF8MB4_BIN);
    sql_index_def_t *ix = ct->indexes;
    CHECK_EQ_INT(ix[0].kind, SQL_INDEX_PRIMARY);
    CHECK_EQ_INT(ix[1].kind, SQL_INDEX_UNIQUE);
    CHECK_EQ_STR(ix[1].name, "uk");
    CHECK_EQ_INT(ix[1].cols[0].prefix_len, 20);
    CHECK_EQ_INT(ix[1].cols[1].prefix_len, -1);
    CHECK(ix[2].cols[0].desc);
    CHECK(!ix[2].cols[1].desc);
    pr_free(&p);
}

TEST(test_sysbench_create)
{
    pr_t p;
    sql_stmt_t *st = one(&p, must_parse[0]);
    REQUIRE(st && st->kind == SQL_STMT_CREATE_TABLE);
    sql_create_table_t *ct = st->create_table;
    CHECK_EQ_STR(ct->table.name, "sbtest1");
    CHECK_EQ_INT(ct->ncols, 4);
    CHECK_EQ_INT(ct->cols[1].type.kind, SQL_T_INT);
    CHECK_EQ_INT(ct->cols[1].type.len, 11);
    CHECK_EQ_INT(ct->cols[1].nullable, SQL_NULL_NOT_NULL);
    REQUIRE(ct->cols[1].default_expr && ct->cols[1].default_expr->kind == SQL_E_LITERAL);
    CHECK_EQ_INT(ct->cols[1].default_expr->lit.type, VAL_STRING);
    CHECK_EQ_INT(ct->cols[2].type.kind, SQL_T_CHAR);
    CHECK_EQ_INT(ct->cols[2].type.len, 120);
    CHECK_EQ_INT(ct->cols[2].type.coll, -1);
    CHECK_EQ_INT(ct->nindexes, 1);
    CHECK_EQ_INT(ct->indexes[0].kind, SQL_INDEX_PRIMARY);
    CHECK_EQ_STR(ct->indexes[0].cols[0].name, "id");
    CHECK_EQ_STR(ct->opts.engine, "innodb");
    pr_free(&p);
    st = one(&p, "CREATE INDEX k_1 ON sbtest1(k)");
    REQUIRE(st && st->kind == SQL_STMT_CREATE_INDEX);
    CHECK_EQ_STR(st->index.index.name, "k_1");
    CHECK_EQ_STR(st->index.table.name, "sbtest1");
    CHECK_EQ_INT(st->index.index.kind, SQL_INDEX_KEY);
    CHECK_EQ_INT(st->index.index.ncols, 1);
    pr_free(&p);
}

TEST(test_tablespace_statements)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "CREATE LOGFILE GROUP lg ADD UNDOFILE 'u.log' INITIAL_SIZE 16M UNDO_BUFFER_SIZE 128K ENGINE=ndb");
    REQUIRE(st && st->kind == SQL_STMT_CREATE_LOGFILE_GROUP);
    CHECK_EQ_STR(st->tablespace.name, "lg");
    CHECK_EQ_STR(st->tablespace.file, "u.log");
    CHECK(st->tablespace.undo);
    CHECK_EQ_INT(st->tablespace.initial_size, 16 << 20);
    CHECK_EQ_INT(st->tablespace.undo_buffer_size, 128 << 10);
    CHECK_EQ_INT(st->tablespace.set, SQL_TS_INITIAL_SIZE | SQL_TS_UNDO_BUFFER_SIZE);
    CHECK_EQ_STR(st->tablespace.engine, "ndb");
    pr_free(&p);
    st = one(&p, "CREATE TABLESPACE ts1 ADD DATAFILE 'd.dat' USE LOGFILE GROUP lg INITIAL_SIZE 1G EXTENT_SIZE 1048576 "
                 "AUTOEXTEND_SIZE 4M MAX_SIZE 2G ENGINE ndb");
    REQUIRE(st && st->kind == SQL_STMT_CREATE_TABLESPACE);
    CHECK_EQ_STR(st->tablespace.logfile_group, "lg");
    CHECK_EQ_STR(st->tablespace.file, "d.dat");
    CHECK_EQ_INT(st->tablespace.initial_size, 1ull << 30);
    CHECK_EQ_INT(st->tablespace.extent_size, 1048576);
    CHECK_EQ_INT(st->tablespace.autoextend_size, 4 << 20);
    CHECK_EQ_INT(st->tablespace.max_size, 2ull << 30);
    pr_free(&p);
    st = one(&p, "ALTER TABLESPACE ts1 DROP DATAFILE 'd.dat' ENGINE ndb");
    REQUIRE(st && st->kind == SQL_STMT_ALTER_TABLESPACE);
    CHECK(!st->tablespace.add);
    CHECK_EQ_STR(st->tablespace.file, "d.dat");
    pr_free(&p);
    st = one(&p, "create table t1(a char(255)) engine=ndb tablespace ts1 storage disk");
    REQUIRE(st && st->kind == SQL_STMT_CREATE_TABLE);
    CHECK_EQ_STR(st->create_table->opts.tablespace, "ts1");
    CHECK_EQ_INT(st->create_table->opts.storage, SQL_STORAGE_DISK);
    CHECK_EQ_INT(st->create_table->opts.set, SQL_TOPT_ENGINE | SQL_TOPT_TABLESPACE | SQL_TOPT_STORAGE);
    pr_free(&p);
    st = one(&p, "insert into t1(a) select a from t1 limit 4096");
    REQUIRE(st && st->kind == SQL_STMT_INSERT);
    CHECK_EQ_INT(st->insert->ncols, 1);
    REQUIRE(st->insert->select != NULL);
    CHECK_EQ_INT(st->insert->select->limit.count->lit.i, 4096);
    pr_free(&p);
    st = one(&p, "delete from t1 limit 4096");
    REQUIRE(st && st->kind == SQL_STMT_DELETE);
    CHECK(!st->del->multi);
    CHECK_EQ_STR(st->del->from->table.name, "t1");
    CHECK(st->del->limit.count != NULL);
    pr_free(&p);
}

TEST(test_alter_table_actions)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "ALTER TABLE t ADD c INT FIRST, DROP d, MODIFY e CHAR(3) AFTER c, CHANGE f g INT, "
                             "ADD UNIQUE INDEX u (a), DROP PRIMARY KEY, RENAME TO t2, ENGINE=InnoDB, DISABLE KEYS");
    REQUIRE(st && st->kind == SQL_STMT_ALTER_TABLE);
    sql_alter_table_t *at = st->alter_table;
    REQUIRE(at->nactions == 9);
    CHECK_EQ_INT(at->actions[0].kind, SQL_ALTER_ADD_COLUMN);
    CHECK(at->actions[0].col.first);
    CHECK_EQ_INT(at->actions[1].kind, SQL_ALTER_DROP_COLUMN);
    CHECK_EQ_STR(at->actions[1].name, "d");
    CHECK_EQ_INT(at->actions[2].kind, SQL_ALTER_MODIFY_COLUMN);
    CHECK_EQ_STR(at->actions[2].col.after, "c");
    CHECK_EQ_INT(at->actions[3].kind, SQL_ALTER_CHANGE_COLUMN);
    CHECK_EQ_STR(at->actions[3].name, "f");
    CHECK_EQ_STR(at->actions[3].col.name, "g");
    CHECK_EQ_INT(at->actions[4].kind, SQL_ALTER_ADD_INDEX);
    CHECK_EQ_INT(at->actions[4].index.kind, SQL_INDEX_UNIQUE);
    CHECK_EQ_INT(at->actions[5].kind, SQL_ALTER_DROP_PRIMARY_KEY);
    CHECK_EQ_INT(at->actions[6].kind, SQL_ALTER_RENAME);
    CHECK_EQ_STR(at->actions[6].new_name.name, "t2");
    CHECK_EQ_INT(at->actions[7].kind, SQL_ALTER_OPTIONS);
    CHECK_EQ_STR(at->opts.engine, "InnoDB");
    CHECK_EQ_INT(at->actions[8].kind, SQL_ALTER_DISABLE_KEYS);
    pr_free(&p);
}

TEST(test_dml_shapes)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "INSERT IGNORE INTO t (a, b) VALUES (1, DEFAULT), (2, 3) ON DUPLICATE KEY UPDATE b = VALUES(b) + 1");
    REQUIRE(st && st->kind == SQL_STMT_INSERT);
    sql_insert_t *in = st->insert;
    CHECK(in->ignore);
    CHECK_EQ_INT(in->ncols, 2);
    CHECK_EQ_STR(in->cols[1], "b");
    CHECK_EQ_INT(in->nrows, 2);
    CHECK_EQ_INT(in->rows[0].n, 2);
    CHECK_EQ_INT(in->rows[0].vals[1]->kind, SQL_E_DEFAULT);
    REQUIRE(in->non_dup == 1);
    CHECK_EQ_STR(in->on_dup[0].col->col.name, "b");
    CHECK_EQ_INT(in->on_dup[0].value->args[0]->func.fn, SQL_FN_VALUES);
    pr_free(&p);
    st = one(&p, "REPLACE INTO t SET a = 1, b = 'x'");
    REQUIRE(st && st->kind == SQL_STMT_REPLACE);
    CHECK_EQ_INT(st->insert->nset, 2);
    CHECK(st->insert->cols == NULL);
    pr_free(&p);
    st = one(&p, "UPDATE t1 JOIN t2 ON t1.id = t2.id SET t1.a = t2.b WHERE t2.x > 0");
    REQUIRE(st && st->kind == SQL_STMT_UPDATE);
    CHECK(st->update->multi);
    CHECK_EQ_INT(st->update->tables->kind, SQL_FROM_JOIN);
    CHECK_EQ_STR(st->update->set[0].col->col.table, "t1");
    pr_free(&p);
    st = one(&p, "UPDATE t SET a = a + 1 WHERE b = 2 ORDER BY c DESC LIMIT 3");
    REQUIRE(st && st->kind == SQL_STMT_UPDATE);
    CHECK(!st->update->multi);
    CHECK_EQ_INT(st->update->norder_by, 1);
    CHECK(st->update->order_by[0].desc);
    CHECK_EQ_INT(st->update->limit.count->lit.i, 3);
    pr_free(&p);
    st = one(&p, "DELETE t1, t2 FROM t1 JOIN t2 ON t1.id = t2.id WHERE t2.x = 1");
    REQUIRE(st && st->kind == SQL_STMT_DELETE);
    CHECK(st->del->multi);
    CHECK_EQ_INT(st->del->ntargets, 2);
    CHECK_EQ_STR(st->del->targets[1].name, "t2");
    pr_free(&p);
    st = one(&p, "DELETE FROM t1 USING t1, t2 WHERE t1.id = t2.id");
    REQUIRE(st && st->kind == SQL_STMT_DELETE);
    CHECK(st->del->multi);
    CHECK_EQ_INT(st->del->ntargets, 1);
    CHECK_EQ_INT(st->del->from->kind, SQL_FROM_JOIN);
    pr_free(&p);
}

TEST(test_select_shapes)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "(SELECT a FROM t1 ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM t2) UNION SELECT c FROM t3 "
                             "ORDER BY 1 DESC LIMIT 5");
    REQUIRE(st && st->kind == SQL_STMT_SELECT);
    sql_select_t *s = st->select;
    CHECK(s->parenthesized);
    CHECK_EQ_INT(s->norder_by, 1);
    CHECK_EQ_INT(s->limit.count->lit.i, 1);
    CHECK(s->union_all);
    REQUIRE(s->union_next && s->union_next->union_next);
    CHECK(!s->union_next->union_all);
    CHECK_EQ_INT(s->nunion_order_by, 1);
    CHECK(s->union_order_by[0].desc);
    CHECK_EQ_INT(s->union_limit.count->lit.i, 5);
    pr_free(&p);
    st = one(&p, "SELECT a, COUNT(*) FROM t FORCE INDEX (PRIMARY, k) WHERE a > ANY (SELECT b FROM u) "
                 "GROUP BY a WITH ROLLUP HAVING COUNT(*) > 1 LIMIT 2, 3 FOR UPDATE");
    REQUIRE(st);
    s = st->select;
    REQUIRE(s->from && s->from->nhints == 1);
    CHECK_EQ_INT(s->from->hints[0].kind, SQL_HINT_FORCE);
    CHECK_EQ_INT(s->from->hints[0].n, 2);
    CHECK_EQ_STR(s->from->hints[0].names[0], "PRIMARY");
    CHECK_EQ_INT(s->where->kind, SQL_E_QUANTIFIED);
    CHECK(!s->where->quant_all);
    CHECK_EQ_INT(s->where->op, SQL_OP_GT);
    CHECK(s->with_rollup);
    CHECK_EQ_INT(s->limit.offset->lit.i, 2);
    CHECK_EQ_INT(s->limit.count->lit.i, 3);
    CHECK_EQ_INT(s->lock, SQL_LOCK_FOR_UPDATE);
    pr_free(&p);
    st = one(&p, "SELECT GROUP_CONCAT(DISTINCT a ORDER BY b DESC SEPARATOR '-') FROM t");
    REQUIRE(st);
    sql_expr_t *g = st->select->items[0].expr;
    CHECK(g->func.distinct);
    CHECK_EQ_INT(g->nagg_order, 1);
    CHECK(g->agg_order[0].desc);
    CHECK_EQ_STR(g->func.separator, "-");
    pr_free(&p);
    st = one(&p, "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10), q AS (SELECT 2) "
                 "SELECT n FROM r");
    REQUIRE(st && st->kind == SQL_STMT_SELECT);
    CHECK(st->select->with_recursive);
    REQUIRE(st->select->nctes == 2);
    CHECK_EQ_STR(st->select->ctes[0].name, "r");
    CHECK_EQ_INT(st->select->ctes[0].ncols, 1);
    CHECK(st->select->ctes[0].select->union_next != NULL);
    CHECK_EQ_STR(st->select->ctes[1].name, "q");
    pr_free(&p);
    st = one(&p, "EXPLAIN FORMAT=JSON UPDATE t SET a = 1");
    REQUIRE(st && st->kind == SQL_STMT_EXPLAIN);
    CHECK_EQ_STR(st->explain.format, "JSON");
    CHECK_EQ_INT(st->explain.stmt->kind, SQL_STMT_UPDATE);
    pr_free(&p);
    st = one(&p, "DESC db.t 'a%'");
    REQUIRE(st && st->kind == SQL_STMT_SHOW);
    CHECK(st->show.describe);
    CHECK_EQ_INT(st->show.what, SQL_SHOW_COLUMNS);
    CHECK_EQ_STR(st->show.table.db, "db");
    CHECK_EQ_STR(st->show.like, "a%");
    pr_free(&p);
}

TEST(test_grant_shapes)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "GRANT SELECT (a, b), INSERT, CREATE TEMPORARY TABLES ON db.t TO 'u'@'h' IDENTIFIED BY 'pw' WITH GRANT OPTION");
    REQUIRE(st && st->kind == SQL_STMT_GRANT);
    sql_grant_t *g = st->grant;
    CHECK_EQ_INT(g->level, SQL_GRANT_TABLE);
    CHECK_EQ_STR(g->db, "db");
    CHECK_EQ_STR(g->table, "t");
    REQUIRE(g->nprivs == 3);
    CHECK_EQ_STR(g->privs[0].name, "SELECT");
    CHECK_EQ_INT(g->privs[0].ncols, 2);
    CHECK_EQ_STR(g->privs[2].name, "CREATE TEMPORARY TABLES");
    CHECK_EQ_STR(g->users[0].user.user, "u");
    CHECK_EQ_STR(g->users[0].user.host, "h");
    CHECK_EQ_STR(g->users[0].password, "pw");
    CHECK(g->with_grant_option);
    pr_free(&p);
    st = one(&p, "GRANT ALL PRIVILEGES ON *.* TO u");
    REQUIRE(st);
    CHECK_EQ_INT(st->grant->level, SQL_GRANT_GLOBAL);
    CHECK_EQ_STR(st->grant->privs[0].name, "ALL");
    pr_free(&p);
    st = one(&p, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u, v");
    REQUIRE(st && st->kind == SQL_STMT_REVOKE);
    CHECK(st->grant->revoke_all);
    CHECK_EQ_INT(st->grant->nusers, 2);
    pr_free(&p);
    st = one(&p, "GRANT r1, r2 TO u WITH ADMIN OPTION");
    REQUIRE(st);
    CHECK_EQ_INT(st->grant->level, SQL_GRANT_ROLE);
    CHECK_EQ_INT(st->grant->nroles, 2);
    CHECK_EQ_STR(st->grant->roles[1], "r2"); /* role names as written */
    CHECK(st->grant->with_admin_option);
    pr_free(&p);
    st = one(&p, "SET DEFAULT ROLE r1 FOR 'u'@'h'");
    REQUIRE(st && st->kind == SQL_STMT_SET_DEFAULT_ROLE);
    CHECK_EQ_STR(st->role.role, "r1");
    CHECK(st->role.has_user);
    pr_free(&p);
    st = one(&p, "PURGE BINARY LOGS TO 'b.000003'");
    REQUIRE(st && st->kind == SQL_STMT_PURGE_BINARY_LOGS);
    CHECK_EQ_STR(st->purge.to_log, "b.000003");
    pr_free(&p);
}

/* error texts read from MariaDB 10.11.19 */
TEST(test_ddl_errors_match_mariadb)
{
    static const struct { const char *q; int code; const char *msg; } cases[] = {
        {"create table t (a int,)", 1064, "near ')' at line 1"},
        {"create table t ()", 1064, "near ')' at line 1"},
        {"alter table t add", 1064, "near '' at line 1"},
        {"insert into t values (1) (2)", 1064, "near '(2)' at line 1"},
        {"select * from t1 where a > any (1)", 1064, "near '1)' at line 1"},
        {"SELECT a FROM t1 ORDER BY a UNION SELECT 1", 1064, "near 'UNION SELECT 1' at line 1"},
        {"create table t (a int default)", 1064, "near ')' at line 1"},
        {"create table tq (a datetime(7))", 1426, "Too big precision specified for 'a'. Maximum is 6"},
        {"create table tq (a decimal(66,2))", 1426, "Too big precision specified for 'a'. Maximum is 65"},
        {"create table tq (a decimal(40,39))", 1425, "Too big scale specified for 'a'. Maximum is 38"},
        {"create table tq (a decimal(5,6))", 1427, "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column 'a')"},
        {"create table tq (a bit(65))", 1439, "Display width out of range for 'a' (max = 64)"},
        {"create table tq (a int(300))", 1439, "Display width out of range for 'a' (max = 255)"},
        {"create table tq (a char(256))", 1074, "Column length too big for column 'a' (max = 255); use BLOB or TEXT instead"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        pr_t p;
        arena_init(&p.a, 4096);
        diag_init(&p.d, 8);
        int rc = sql_parse(&p.a, cases[i].q, strlen(cases[i].q), &p.l, &p.d);
        CHECK_EQ_INT(rc, -cases[i].code);
        if (p.d.error) {
            const char *m = p.d.error->msg;
            size_t ml = strlen(m), el = strlen(cases[i].msg);
            CHECK(ml >= el && strcmp(m + ml - el, cases[i].msg) == 0);
            if (!(ml >= el && strcmp(m + ml - el, cases[i].msg) == 0))
                fprintf(stderr, "  %s: got %s\n", cases[i].q, m);
        } else {
            CHECK(p.d.error != NULL);
        }
        pr_free(&p);
    }
}

/* defaults are kept as text by the catalog and re-parsed with sql_parse_expr */
TEST(test_default_text_roundtrip)
{
    pr_t p;
    sql_stmt_t *st = one(&p, "CREATE TABLE t (a INT DEFAULT -1, b VARCHAR(5) DEFAULT 'it''s', c INT DEFAULT (1 + 2), "
                             "d DOUBLE DEFAULT 1.5e3, e BIT(3) DEFAULT b'101')");
    REQUIRE(st != NULL);
    static const char *const want[] = {"-1", "it's", "3", "1500", "\x05"};
    for (uint32_t i = 0; i < 5; i++) {
        const sql_expr_t *de = st->create_table->cols[i].default_expr;
        REQUIRE(de != NULL);
        sql_expr_t *e;
        REQUIRE(sql_parse_expr(&p.a, de->src, de->src_len, &e, &p.d) == 0);
        sql_eval_ctx_t ctx;
        sql_eval_cb_t cb = {0};
        sql_eval_ctx_init(&ctx, &p.a, &p.d, &cb, NULL);
        value_t v;
        REQUIRE(sql_expr_eval(&ctx, e, &v) == 0);
        size_t n;
        const char *t = value_to_text(&p.a, &v, &n);
        CHECK(n == strlen(want[i]) && memcmp(t, want[i], n) == 0);
    }
    sql_expr_t *e;
    CHECK_EQ_INT(sql_parse_expr(&p.a, "1 +", 3, &e, &p.d), -ER_PARSE_ERROR);
    pr_free(&p);
}

UNIT_MAIN(test_default_text_roundtrip, test_all_forms_parse, test_mariadb_dump_parses, test_sysbench_create, test_tablespace_statements,
          test_alter_table_actions, test_dml_shapes, test_select_shapes, test_grant_shapes,
          test_ddl_errors_match_mariadb)
