/* Executor end to end in process: SQL text -> parser -> sql_exec_stmt over a real engine in a temp datadir,
 * results captured from the sink as text.  Covers the sysbench statements, DML semantics (duplicates, IGNORE,
 * REPLACE, ON DUPLICATE KEY UPDATE, info strings), SELECT (indexes, ranges, joins, grouping, ordering), SHOW
 * and information_schema, transactions with statement rollback, and a restart. */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "sql/exec/exec.h"
#include "sql/sql.h"
#include "unit.h"
#include "util/util.h"

#include "sql_exec_harness.h"

TEST(test_sysbench_flow)
{
    setup();
    CHECK_SQL("CREATE DATABASE db", "OK 1");
    CHECK_SQL("CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
              "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) /*! ENGINE = innodb */",
              "OK 0");
    CHECK_SQL("INSERT INTO sbtest1(k, c, pad) VALUES(5, 'c1', 'p1'),(3, 'c2', 'p2'),(5, 'c3', 'p3'),(9, 'c4', 'p4')",
              "OK 4 id=1 (Records: 4  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("CREATE INDEX k_1 ON sbtest1(k)", "OK 0 (Records: 0  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT c FROM sbtest1 WHERE id=2", "c2\n");
    CHECK_EQ_INT(last_ncols, 1);
    CHECK_EQ_INT(last_cols[0].type, MYSQL_TYPE_STRING);
    CHECK_EQ_INT(last_cols[0].length, 480);
    CHECK_EQ_STR(last_cols[0].org_table, "sbtest1");
    CHECK_EQ_INT(last_cols[0].flags & COLF_NOT_NULL, COLF_NOT_NULL);
    CHECK_SQL("SELECT id, k FROM sbtest1 WHERE id BETWEEN 2 AND 3", "2|3\n3|5\n");
    CHECK_EQ_INT(last_cols[0].flags & (COLF_PRI_KEY | COLF_AUTO_INCREMENT), COLF_PRI_KEY | COLF_AUTO_INCREMENT);
    CHECK_SQL("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 1 AND 3", "13\n");
    CHECK_SQL("SELECT c FROM sbtest1 WHERE id BETWEEN 1 AND 4 ORDER BY c DESC", "c4\nc3\nc2\nc1\n");
    CHECK_SQL("SELECT DISTINCT k FROM sbtest1 WHERE id BETWEEN 1 AND 4 ORDER BY k", "3\n5\n9\n");
    CHECK_SQL("UPDATE sbtest1 SET k=k+1 WHERE id=2", "OK 1 (Rows matched: 1  Changed: 1  Warnings: 0)");
    CHECK_SQL("SELECT id FROM sbtest1 WHERE k = 4", "2\n");
    CHECK_SQL("UPDATE sbtest1 SET c='new' WHERE id=2", "OK 1 (Rows matched: 1  Changed: 1  Warnings: 0)");
    CHECK_SQL("UPDATE sbtest1 SET c='new' WHERE id=2", "OK 0 (Rows matched: 1  Changed: 0  Warnings: 0)");
    CHECK_SQL("DELETE FROM sbtest1 WHERE id=2", "OK 1");
    CHECK_SQL("INSERT INTO sbtest1 (id, k, c, pad) VALUES (2, 7, 'again', 'x')", "OK 1 id=2"); /* MariaDB sends an explicit id as the OK's insert id */
    CHECK_SQL("INSERT INTO sbtest1 (id, k, c, pad) VALUES (2, 7, 'again', 'x')",
              "ERR 1062 Duplicate entry '2' for key 'PRIMARY'");
    CHECK_SQL("SELECT id, k FROM sbtest1 WHERE k IN (7, 9, 100) ORDER BY id", "2|7\n4|9\n");
    CHECK_SQL("SELECT COUNT(*) FROM sbtest1", "4\n");
    /* transactions: a failing statement is undone alone */
    CHECK_SQL("BEGIN", "OK");
    CHECK_SQL("INSERT INTO sbtest1 (k) VALUES (100)", "OK 1 id=5");
    CHECK_SQL("INSERT INTO sbtest1 (id, k) VALUES (10, 1), (1, 1)", "ERR 1062 Duplicate entry '1' for key 'PRIMARY'");
    CHECK_SQL("SELECT id FROM sbtest1 WHERE id >= 5", "5\n");
    CHECK_SQL("ROLLBACK", "OK");
    CHECK_SQL("SELECT id FROM sbtest1 WHERE id >= 5", "");
    CHECK_SQL("BEGIN", "OK");
    /* AUTO_INCREMENT values are not given back by a rollback, and the explicit 10 moved the counter (InnoDB) */
    CHECK_SQL("INSERT INTO sbtest1 (k) VALUES (101)", "OK 1 id=11");
    CHECK_SQL("COMMIT", "OK");
    CHECK_SQL("SELECT id, k FROM sbtest1 WHERE id >= 5", "11|101\n");
    /* survives a restart, and AUTO_INCREMENT continues */
    reopen();
    CHECK_SQL("SELECT id, k, c FROM sbtest1 ORDER BY id", "1|5|c1\n2|7|again\n3|5|c3\n4|9|c4\n11|101|\n");
    CHECK_SQL("INSERT INTO sbtest1 (k) VALUES (1)", "OK 1 id=12");
    /* the counter survives a clean restart even when the largest row is gone (MariaDB 10.11 keeps it too) */
    CHECK_SQL("DELETE FROM sbtest1 WHERE id = 12", "OK 1");
    reopen();
    CHECK_SQL("INSERT INTO sbtest1 (k) VALUES (2)", "OK 1 id=13");
    CHECK_SQL("ALTER TABLE sbtest1 AUTO_INCREMENT = 100", "OK 0 (Records: 0  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("TRUNCATE sbtest1", "OK 0");
    reopen();
    CHECK_SQL("INSERT INTO sbtest1 (k) VALUES (3)", "OK 1 id=1");
    CHECK_SQL("DROP TABLE IF EXISTS sbtest1", "OK 0");
    CHECK_SQL("DROP TABLE IF EXISTS sbtest1", "OK 0");
    CHECK_SQL("DROP TABLE sbtest1", "ERR 1051 Unknown table 'db.sbtest1'");
    teardown();
}

TEST(test_dml_semantics)
{
    setup();
    run("CREATE DATABASE db");
    CHECK_SQL("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL, n INT, UNIQUE KEY u (name))", "OK 0");
    CHECK_SQL("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)", "OK 2 (Records: 2  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("INSERT INTO t VALUES (3, 'A', 30)", "ERR 1062 Duplicate entry 'A' for key 'u'");
    CHECK_SQL("INSERT IGNORE INTO t VALUES (3, 'A', 30), (4, 'd', 40)", "OK 1 (Records: 2  Duplicates: 1  Warnings: 1)");
    CHECK_SQL("CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, u INT, UNIQUE KEY (u))", "OK 0");
    CHECK_SQL("INSERT IGNORE INTO ai (u) VALUES (1), (1), (2)", "OK 2 id=1 (Records: 3  Duplicates: 1  Warnings: 1)");
    CHECK_SQL("SELECT id, u FROM ai", "1|1\n2|2\n"); /* the skipped row gave its value back, as MariaDB */
    CHECK_SQL("REPLACE INTO t VALUES (5, 'B', 50)", "OK 2");
    CHECK_SQL("SELECT id, name, n FROM t ORDER BY id", "1|a|10\n4|d|40\n5|B|50\n");
    CHECK_SQL("INSERT INTO t VALUES (1, 'z', 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n)", "OK 2");
    CHECK_SQL("SELECT n FROM t WHERE id = 1", "11\n");
    CHECK_SQL("INSERT INTO t VALUES (6, 'toolongvalue', 1)", "ERR 1406 Data too long for column 'name' at row 1");
    CHECK_SQL("INSERT INTO t (id) VALUES (7)", "ERR 1364 Field 'name' doesn't have a default value");
    CHECK_SQL("INSERT INTO t VALUES (8, NULL, 1)", "ERR 1048 Column 'name' cannot be null");
    CHECK_SQL("INSERT INTO t VALUES (9, 'x')", "ERR 1136 Column count doesn't match value count at row 1");
    CHECK_SQL("INSERT INTO t (id, nope) VALUES (9, 1)", "ERR 1054 Unknown column 'nope' in 'INSERT INTO'");
    CHECK_SQL("UPDATE t SET n = n * 2 WHERE n > 10 ORDER BY id DESC LIMIT 1", "OK 1 (Rows matched: 1  Changed: 1  Warnings: 0)");
    CHECK_SQL("SELECT id, n FROM t ORDER BY n DESC", "5|100\n4|40\n1|11\n");
    CHECK_SQL("UPDATE t SET name = 'd' WHERE id = 1", "ERR 1062 Duplicate entry 'd' for key 'u'");
    CHECK_SQL("DELETE FROM t WHERE n < 50 ORDER BY id LIMIT 1", "OK 1");
    CHECK_SQL("SELECT id FROM t", "4\n5\n");
    CHECK_SQL("INSERT INTO t (id, name) SELECT id + 10, CONCAT(name, 'x') FROM t", "OK 2 (Records: 2  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT COUNT(*), MIN(id), MAX(name) FROM t", "4|4|dx\n");
    CHECK_SQL("TRUNCATE TABLE t", "OK 0");
    CHECK_SQL("SELECT COUNT(*) FROM t", "0\n");
    CHECK_SQL("SELECT nope FROM t", "ERR 1054 Unknown column 'nope' in 'SELECT'");
    CHECK_SQL("SELECT * FROM nosuch", "ERR 1146 Table 'db.nosuch' doesn't exist");
    teardown();
}

TEST(test_select_features)
{
    setup();
    run("CREATE DATABASE db");
    run("CREATE TABLE a (id INT PRIMARY KEY, g VARCHAR(5), v DECIMAL(6,2), KEY g (g))");
    run("CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, a_id INT, note TEXT, KEY a_id (a_id))");
    CHECK_SQL("INSERT INTO a VALUES (1,'x',1.50),(2,'y',2.25),(3,'x',3),(4,NULL,NULL)", "OK 4 (Records: 4  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("INSERT INTO b (a_id, note) VALUES (1,'n1'),(1,'n2'),(3,'n3')", "OK 3 id=1 (Records: 3  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT g, COUNT(*), SUM(v), AVG(v) FROM a GROUP BY g", "NULL|1|NULL|NULL\nx|2|4.50|2.250000\ny|1|2.25|2.250000\n");
    CHECK_SQL("SELECT g, COUNT(*) AS n FROM a GROUP BY g HAVING n > 1", "x|2\n");
    CHECK_SQL("SELECT a.id, b.note FROM a JOIN b ON b.a_id = a.id ORDER BY b.id", "1|n1\n1|n2\n3|n3\n");
    CHECK_SQL("SELECT a.id, b.note FROM a LEFT JOIN b ON b.a_id = a.id WHERE a.id > 1 ORDER BY a.id", "2|NULL\n3|n3\n4|NULL\n");
    CHECK_SQL("SELECT a.id FROM a, b WHERE a.id = b.a_id AND b.note = 'n3'", "3\n");
    CHECK_SQL("SELECT id FROM a WHERE g = 'X' ORDER BY id DESC LIMIT 1", "3\n");
    CHECK_SQL("SELECT id FROM a ORDER BY id DESC LIMIT 2 OFFSET 1", "3\n2\n");
    CHECK_SQL("SELECT id FROM a WHERE g IS NULL", "4\n");
    CHECK_SQL("SELECT id FROM a WHERE id > 1 AND id < 4 AND v > 2", "2\n3\n");
    CHECK_SQL("SELECT * FROM a WHERE id = 2", "2|y|2.25\n");
    CHECK_SQL("SELECT id, v * 2 AS dbl FROM a WHERE id IN (1, 3) ORDER BY dbl DESC", "3|6.00\n1|3.00\n");
    CHECK_SQL("SELECT GROUP_CONCAT(id) FROM a WHERE g = 'x'", "1,3\n");
    CHECK_SQL("SELECT 1 FROM a WHERE id = 99", "");
    CHECK_SQL("SELECT COUNT(*), SUM(id) FROM a WHERE id = 99", "0|NULL\n");
    CHECK_SQL("SELECT id FROM a GROUP BY 1 ORDER BY 1 DESC LIMIT 1", "4\n");
    CHECK_SQL("SELECT x.id FROM a AS x WHERE x.g = 'y'", "2\n");
    CHECK_SQL("SELECT g, COUNT(*), SUM(v) FROM a GROUP BY g WITH ROLLUP", "NULL|1|NULL\nx|2|4.50\ny|1|2.25\nNULL|4|6.75\n");
    CHECK_SQL("SELECT id FROM a WHERE g LIKE 'X%' ORDER BY id", "1\n3\n");
    teardown();
}

TEST(test_show_and_infoschema)
{
    setup();
    run("CREATE DATABASE db");
    CHECK_SQL("CREATE TABLE t1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', "
              "price DECIMAL(10,2) UNSIGNED, e ENUM('a','b') DEFAULT 'a', PRIMARY KEY (id), KEY k_1 (k)) ENGINE=NDB COMMENT='hi'",
              "OK 0");
    CHECK_EQ_INT(diag.n, 1); /* note 1266: NDB mapped */
    CHECK_SQL("SHOW TABLES", "t1\n");
    CHECK_EQ_STR(last_cols[0].name, "Tables_in_db");
    CHECK_SQL("SHOW CREATE TABLE t1",
              "t1|CREATE TABLE `t1` (\n"
              "  `id` int(11) NOT NULL AUTO_INCREMENT,\n"
              "  `k` int(11) NOT NULL DEFAULT 0,\n"
              "  `c` char(20) NOT NULL DEFAULT '',\n"
              "  `price` decimal(10,2) unsigned DEFAULT NULL,\n"
              "  `e` enum('a','b') DEFAULT 'a',\n"
              "  PRIMARY KEY (`id`),\n"
              "  KEY `k_1` (`k`)\n"
              ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='hi'\n");
    CHECK_SQL("DESCRIBE t1", "id|int(11)|NO|PRI|NULL|auto_increment\nk|int(11)|NO|MUL|0|\nc|char(20)|NO|||\n"
                             "price|decimal(10,2) unsigned|YES||NULL|\ne|enum('a','b')|YES||a|\n");
    CHECK_SQL("SHOW INDEX FROM t1", "t1|0|PRIMARY|1|id|A|0|NULL|NULL||BTREE|||NO\nt1|1|k_1|1|k|A|0|NULL|NULL||BTREE|||NO\n");
    CHECK_SQL("SHOW DATABASES LIKE 'd%'", "db\n");
    CHECK_SQL("SELECT TABLE_NAME, ENGINE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'db'", "t1|InnoDB|hi\n");
    CHECK_SQL("SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = 't1' AND ORDINAL_POSITION < 3",
              "id|int(11)\nk|int(11)\n");
    CHECK_SQL("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'db'", "db\n");
    /* the system tablespace is not disk data: FILE_TYPE 'TABLESPACE' (as MySQL 8's innodb_system), so that
     * mariadb-dump, which recreates the DATAFILE rows' tablespaces, leaves it out */
    CHECK_SQL("SELECT FILE_TYPE, TABLESPACE_NAME, LOGFILE_GROUP_NAME FROM information_schema.FILES WHERE FILE_ID = 0",
              "TABLESPACE|strata_system|NULL\n");
    CHECK_SQL("SELECT COUNT(*) FROM information_schema.FILES WHERE FILE_TYPE = 'DATAFILE'", "0\n");
    /* what mariadb-dump asks */
    CHECK_SQL("SELECT TABLE_NAME, TABLESPACE_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = 'db'", "t1|NULL\n");
    CHECK_SQL("SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = DATABASE()", "");
    CHECK_SQL("SELECT CONSTRAINT_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_NAME = 't1'", "PRIMARY|id\n");
    CHECK_SQL("SELECT column_name, generation_expression FROM information_schema.columns WHERE table_name = 't1' AND ordinal_position = 1", "id|NULL\n");
    CHECK_SQL("INSERT INTO t1 (k, e) VALUES (1, 'b')", "OK 1 id=1");
    CHECK_SQL("SELECT e FROM t1 WHERE e = 'b'", "b\n");
    CHECK_SQL("CREATE TABLE t1 (x INT)", "ERR 1050 Table 't1' already exists");
    CHECK_SQL("CREATE TABLE t2 (x INT) ENGINE=Foo", "ERR 1286 Unknown storage engine 'Foo'");
    CHECK_SQL("DROP DATABASE db", "OK 1");
    CHECK_SQL("SHOW TABLES FROM db", "ERR 1049 Unknown database 'db'");
    teardown();
}

TEST(test_subqueries_unions)
{
    setup();
    run("CREATE DATABASE db");
    run("CREATE TABLE a (id INT PRIMARY KEY, g VARCHAR(5))");
    run("CREATE TABLE b (id INT PRIMARY KEY, a_id INT)");
    run("INSERT INTO a VALUES (1,'x'),(2,'y'),(3,'x')");
    run("INSERT INTO b VALUES (10,1),(11,1),(12,3),(13,NULL)");
    CHECK_SQL("SELECT id FROM a WHERE id IN (SELECT a_id FROM b) ORDER BY id", "1\n3\n");
    CHECK_SQL("SELECT id FROM a WHERE id NOT IN (SELECT a_id FROM b WHERE a_id IS NOT NULL)", "2\n");
    CHECK_SQL("SELECT id FROM a WHERE id NOT IN (SELECT a_id FROM b)", ""); /* a NULL in the list: never true */
    CHECK_SQL("SELECT (SELECT COUNT(*) FROM b), (SELECT MAX(id) FROM a)", "4|3\n");
    CHECK_SQL("SELECT id, (SELECT COUNT(*) FROM b WHERE b.a_id = a.id) AS n FROM a ORDER BY id", "1|2\n2|0\n3|1\n");
    CHECK_SQL("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id) ORDER BY id DESC", "3\n1\n");
    CHECK_SQL("SELECT id FROM a WHERE id > ALL (SELECT a_id FROM b WHERE a_id < 3)", "2\n3\n");
    CHECK_SQL("SELECT id FROM a WHERE id = ANY (SELECT a_id FROM b)", "1\n3\n");
    CHECK_SQL("SELECT (SELECT id FROM a)", "ERR 1242 Subquery returns more than 1 row");
    CHECK_SQL("SELECT g FROM a UNION SELECT 'z' ORDER BY g DESC", "z\ny\nx\n");
    CHECK_SQL("SELECT g FROM a UNION ALL SELECT g FROM a WHERE id = 1", "x\ny\nx\nx\n");
    CHECK_SQL("SELECT 1 UNION SELECT 2 LIMIT 1", "1\n");
    CHECK_SQL("SELECT id, g FROM a UNION SELECT 1", "ERR 1222 The used SELECT statements have a different number of columns");
    CHECK_SQL("SELECT d.g, d.n FROM (SELECT g, COUNT(*) AS n FROM a GROUP BY g) AS d WHERE d.n > 1", "x|2\n");
    CHECK_SQL("SELECT COUNT(*) FROM (SELECT id FROM a UNION ALL SELECT id FROM b) t", "7\n");
    CHECK_SQL("DELETE FROM b WHERE a_id IN (SELECT id FROM a WHERE g = 'x')", "OK 3");
    CHECK_SQL("SELECT id FROM b", "13\n");
    teardown();
}

TEST(test_alter_table)
{
    setup();
    run("CREATE DATABASE db");
    run("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), b INT, KEY kb (b))");
    run("INSERT INTO t VALUES (1,'x',10),(2,'y',20),(3,NULL,30)");
    /* affected rows as MariaDB reports them: 0 for what InnoDB does INSTANT / INPLACE, the rows for a COPY */
    CHECK_SQL("ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 7 AFTER id", "OK 0 (Records: 0  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT * FROM t ORDER BY id", "1|7|x|10\n2|7|y|20\n3|7|NULL|30\n");
    CHECK_SQL("SELECT id FROM t WHERE b = 20", "2\n");
    CHECK_SQL("ALTER TABLE t MODIFY a VARCHAR(10) NOT NULL", "ERR 1265 Data truncated for column 'a' at row 3");
    CHECK_SQL("ALTER TABLE t DROP COLUMN c, CHANGE b bb BIGINT FIRST", "OK 3 (Records: 3  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT * FROM t ORDER BY id", "10|1|x\n20|2|y\n30|3|NULL\n");
    CHECK_SQL("SELECT id FROM t WHERE bb = 30", "3\n");
    CHECK_SQL("SHOW CREATE TABLE t", "t|CREATE TABLE `t` (\n  `bb` bigint(20) DEFAULT NULL,\n  `id` int(11) NOT NULL,\n"
                                     "  `a` varchar(10) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `kb` (`bb`)\n"
                                     ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci\n");
    CHECK_SQL("ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (bb), ADD UNIQUE KEY ua (a)", "OK 0 (Records: 0  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("INSERT INTO t VALUES (10, 9, 'z')", "ERR 1062 Duplicate entry '10' for key 'PRIMARY'");
    CHECK_SQL("INSERT INTO t VALUES (11, 9, 'x')", "ERR 1062 Duplicate entry 'x' for key 'ua'");
    CHECK_SQL("ALTER TABLE t ADD COLUMN n INT AUTO_INCREMENT UNIQUE", "OK 0 (Records: 0  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT bb, n FROM t ORDER BY n", "10|1\n20|2\n30|3\n");
    CHECK_SQL("INSERT INTO t (bb, id) VALUES (40, 4)", "OK 1 id=4");
    CHECK_SQL("ALTER TABLE t RENAME TO t2", "OK 0"); /* a rename alone: no info string */
    CHECK_SQL("SELECT COUNT(*) FROM t2", "4\n");
    reopen();
    CHECK_SQL("SELECT bb, id, a, n FROM t2 WHERE bb >= 30 ORDER BY bb", "30|3|NULL|3\n40|4|NULL|4\n");
    teardown();
}

TEST(test_joins_ctas_explain)
{
    setup();
    run("CREATE DATABASE db");
    run("CREATE TABLE a (id INT PRIMARY KEY, g VARCHAR(5))");
    run("CREATE TABLE b (bid INT PRIMARY KEY, id INT, KEY id (id))");
    run("INSERT INTO a VALUES (1,'x'),(2,'y')");
    run("INSERT INTO b VALUES (10,1),(11,3)");
    CHECK_SQL("SELECT a.id, b.bid FROM a RIGHT JOIN b ON a.id = b.id ORDER BY b.bid", "1|10\nNULL|11\n");
    CHECK_SQL("SELECT bid, g FROM a JOIN b USING (id)", "10|x\n");
    CHECK_SQL("SELECT bid, g FROM a NATURAL JOIN b", "10|x\n");
    CHECK_SQL("CREATE TABLE c AS SELECT id, g, id * 2 AS d FROM a", "OK 2 (Records: 2  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT * FROM c ORDER BY id", "1|x|2\n2|y|4\n");
    CHECK_SQL("CREATE TABLE e (PRIMARY KEY (id)) SELECT id FROM b", "OK 2 (Records: 2  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("INSERT INTO e VALUES (1)", "ERR 1062 Duplicate entry '1' for key 'PRIMARY'");
    CHECK_SQL("UPDATE a JOIN b ON b.id = a.id SET a.g = CONCAT(a.g, b.bid), b.bid = b.bid + 100", "OK 2 (Rows matched: 2  Changed: 2  Warnings: 0)");
    CHECK_SQL("SELECT a.id, a.g, b.bid FROM a LEFT JOIN b ON b.id = a.id ORDER BY a.id", "1|x10|110\n2|y|NULL\n");
    CHECK_SQL("DELETE a FROM a JOIN b ON b.id = a.id", "OK 1");
    CHECK_SQL("SELECT id FROM a", "2\n");
    CHECK_SQL("DELETE a, b FROM a, b WHERE b.bid > 100", "OK 2");
    CHECK_SQL("SELECT bid FROM b", "11\n");
    run("INSERT INTO a VALUES (1,'x')");
    CHECK_SQL("EXPLAIN SELECT * FROM a WHERE id = 1", "1|SIMPLE|a|const|PRIMARY|PRIMARY|4|const|1|Using where\n");
    CHECK_SQL("EXPLAIN SELECT a.g FROM a JOIN b ON b.id = a.id",
              "1|SIMPLE|a|ALL|NULL|NULL|NULL|NULL|1000|\n1|SIMPLE|b|ref|id|id|5|func|10|Using index\n");
    CHECK_SQL("EXPLAIN SELECT g FROM a ORDER BY g", "1|SIMPLE|a|ALL|NULL|NULL|NULL|NULL|1000|Using filesort\n");
    teardown();
}

TEST(test_temporary_tables)
{
    setup();
    run("CREATE DATABASE db");
    run("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    run("INSERT INTO t VALUES (1, 10)");
    CHECK_SQL("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w VARCHAR(5))", "OK 0");
    CHECK_SQL("INSERT INTO t VALUES (7, 'tmp')", "OK 1");
    CHECK_SQL("SELECT * FROM t", "7|tmp\n"); /* the temporary table hides the real one */
    CHECK_SQL("SHOW TABLES", "t\n");
    CHECK_SQL("SHOW DATABASES LIKE '#%'", "");
    CHECK_SQL("CREATE TEMPORARY TABLE t2 AS SELECT id * 2 AS d FROM t", "OK 1 (Records: 1  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("SELECT d FROM t2", "14\n");
    CHECK_SQL("DROP TEMPORARY TABLE t", "OK 0");
    CHECK_SQL("SELECT * FROM t", "1|10\n");
    /* the connection ends: its temporary tables go */
    sql_exec_session_free(ss);
    ss = sql_exec_session_new();
    CHECK_SQL("SELECT d FROM t2", "ERR 1146 Table 'db.t2' doesn't exist");
    teardown();
}

/* DEFAULT / ON UPDATE CURRENT_TIMESTAMP(n): the precision is kept, shown and applied (MariaDB 10.11's answers:
 * no n means the column's precision, over 6 is 6, an ON UPDATE n below the column's is 1294). */
TEST(test_now_default_precision)
{
    setup();
    run("CREATE DATABASE db");
    CHECK_SQL("CREATE TABLE tn (a DATETIME(3) DEFAULT CURRENT_TIMESTAMP(), b DATETIME(6) DEFAULT NOW(2), "
              "c DATETIME DEFAULT CURRENT_TIMESTAMP(0), d TIMESTAMP(4) NOT NULL DEFAULT CURRENT_TIMESTAMP(4) ON UPDATE "
              "CURRENT_TIMESTAMP, e DATETIME(6) DEFAULT CURRENT_TIMESTAMP(9), k INT)", "OK 0");
    CHECK_SQL("SHOW CREATE TABLE tn",
              "tn|CREATE TABLE `tn` (\n"
              "  `a` datetime(3) DEFAULT current_timestamp(3),\n"
              "  `b` datetime(6) DEFAULT current_timestamp(2),\n"
              "  `c` datetime DEFAULT current_timestamp(),\n"
              "  `d` timestamp(4) NOT NULL DEFAULT current_timestamp(4) ON UPDATE current_timestamp(4),\n"
              "  `e` datetime(6) DEFAULT current_timestamp(6),\n"
              "  `k` int(11) DEFAULT NULL\n"
              ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci\n");
    CHECK_SQL("SELECT EXTRA FROM information_schema.COLUMNS WHERE TABLE_NAME = 'tn' AND COLUMN_NAME = 'd'",
              "on update current_timestamp(4)\n");
    CHECK_SQL("INSERT INTO tn (k) VALUES (1)", "OK 1");
    /* b: NOW(2) in a DATETIME(6) column, the digits past the second one are zero */
    CHECK_SQL("SELECT LENGTH(a), RIGHT(b, 4), LENGTH(c), LENGTH(d) FROM tn", "23|0000|19|24\n");
    CHECK_SQL("CREATE TABLE tbad (a DATETIME(6) ON UPDATE CURRENT_TIMESTAMP(3))",
              "ERR 1294 Invalid ON UPDATE clause for 'a' column");
    teardown();
}

/* CHARACTER SET binary on a character type makes the binary type (MariaDB): CHAR(n) pads with 0x00 */
TEST(test_charset_binary_types)
{
    setup();
    run("CREATE DATABASE db");
    CHECK_SQL("CREATE TABLE tb (c CHAR(4) CHARACTER SET binary, v VARCHAR(10) CHARSET binary, t TEXT CHARACTER SET "
              "binary, m MEDIUMTEXT CHARACTER SET binary, b CHAR(3) BYTE) DEFAULT CHARSET=latin1", "OK 0");
    CHECK_SQL("SHOW CREATE TABLE tb",
              "tb|CREATE TABLE `tb` (\n"
              "  `c` binary(4) DEFAULT NULL,\n"
              "  `v` varbinary(10) DEFAULT NULL,\n"
              "  `t` blob DEFAULT NULL,\n"
              "  `m` mediumblob DEFAULT NULL,\n"
              "  `b` binary(3) DEFAULT NULL\n"
              ") ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci\n");
    CHECK_SQL("INSERT INTO tb (c, v) VALUES ('ab', 'Ab')", "OK 1");
    CHECK_SQL("SELECT HEX(c), v = 'ab', v = 'Ab' FROM tb", "61620000|0|1\n");
    teardown();
}

UNIT_MAIN(test_charset_binary_types, test_temporary_tables, test_joins_ctas_explain, test_alter_table, test_sysbench_flow, test_dml_semantics, test_select_features, test_show_and_infoschema, test_subqueries_unions, test_now_default_precision)
