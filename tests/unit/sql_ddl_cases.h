/* Statements that must parse: milestone B forms, sysbench 1.0's oltp_common.lua / bulk_insert / select_random_*,
 * seed 002's SQL and its tablespace syntax, ORM-generated DDL (Django, Hibernate, Laravel), views and table
 * maintenance statements.  One statement each. */
static const char *const must_parse[] = {
    "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) /*! ENGINE = innodb */",
    "CREATE INDEX k_1 ON sbtest1(k)",
    "CREATE TABLE IF NOT EXISTS sbtest1 (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))",
    "INSERT INTO sbtest1(k, c, pad) VALUES(1, 'a', 'b'),(2, 'c', 'd')",
    "SELECT c FROM sbtest1 WHERE id=?",
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "UPDATE sbtest1 SET k=k+1 WHERE id=?",
    "UPDATE sbtest1 SET c=? WHERE id=?",
    "DELETE FROM sbtest1 WHERE id=?",
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
    "DROP TABLE IF EXISTS sbtest1",
    "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?)",
    "SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?",
    "INSERT INTO sbtest1 VALUES(1,2),(3,4)",
    "select free_extents, total_extents from information_schema.files where file_type='datafile'",
    "create table t1(a char(255)) engine=ndb tablespace ts1 storage disk",
    "insert into t1(a) values ('a')",
    "insert into t1(a) select a from t1 limit 4096",
    "delete from t1 limit 4096",
    "create table t2(a char(255)) engine=ndb tablespace ts1 storage disk",
    "insert into t2 (a) values ('aaaa')",
    "insert into t1 (a) select a from t1 limit 4096",
    "create table dd ( id integer primary key, ts integer, data varbinary(4096), index(ts)) engine=ndb TABLESPACE ts_1 storage disk",
    "CREATE LOGFILE GROUP lg_1 ADD UNDOFILE 'undo_1.log' INITIAL_SIZE 16M UNDO_BUFFER_SIZE 2M ENGINE NDBCLUSTER",
    "CREATE LOGFILE GROUP lg ADD UNDOFILE 'u.log' INITIAL_SIZE=20G UNDO_BUFFER_SIZE=128M ENGINE=ndb",
    "CREATE LOGFILE GROUP lg ADD UNDOFILE 'u.log' INITIAL_SIZE 1073741824",
    "CREATE TABLESPACE ts_1 ADD DATAFILE 'data_1.dat' USE LOGFILE GROUP lg_1 INITIAL_SIZE 128M EXTENT_SIZE 1M ENGINE NDBCLUSTER",
    "CREATE TABLESPACE ts1 ADD DATAFILE 'd.dat' USE LOGFILE GROUP lg INITIAL_SIZE=5M EXTENT_SIZE=1M AUTOEXTEND_SIZE 4M MAX_SIZE 1G ENGINE=ndb",
    "ALTER TABLESPACE ts_1 ADD DATAFILE 'data_2.dat' INITIAL_SIZE 128M ENGINE NDBCLUSTER",
    "ALTER TABLESPACE ts_1 DROP DATAFILE 'data_2.dat' ENGINE NDBCLUSTER",
    "DROP TABLESPACE ts_1 ENGINE NDBCLUSTER",
    "DROP TABLESPACE ts_1",
    "DROP LOGFILE GROUP lg_1 ENGINE NDBCLUSTER",
    "DROP LOGFILE GROUP lg_1",
    "CREATE DATABASE d1",
    "CREATE DATABASE IF NOT EXISTS d1 CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
    "CREATE SCHEMA d1 DEFAULT CHARSET=latin1",
    "DROP DATABASE d1",
    "DROP SCHEMA IF EXISTS d1",
    "ALTER DATABASE d1 CHARACTER SET = latin1",
    "ALTER DATABASE DEFAULT COLLATE utf8mb4_general_ci",
    "CREATE TABLE t (a TINYINT(3) UNSIGNED ZEROFILL, b SMALLINT, c MEDIUMINT, d INT(11), e BIGINT UNSIGNED, f DECIMAL(10,2), g FLOAT, h FLOAT(7,3), i DOUBLE, j DOUBLE(10,4), k DOUBLE PRECISION, l REAL, m BIT(8), n CHAR(5), o VARCHAR(100), p BINARY(3), q VARBINARY(10), r TINYTEXT, s TEXT, t MEDIUMTEXT, u LONGTEXT, v TINYBLOB, w BLOB, x MEDIUMBLOB, y LONGBLOB, z DATE)",
    "CREATE TABLE t (a DATETIME(6), b TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), c TIME(2), d YEAR, e ENUM('a','b'), f SET('x','y'), g BOOL, h BOOLEAN, i JSON, j NUMERIC(5), k DEC, l SERIAL)",
    "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL DEFAULT 'x' COMMENT 'the name', u INT UNIQUE, u2 INT UNIQUE KEY, c CHAR(3) CHARACTER SET latin1 COLLATE latin1_bin, ts TIMESTAMP DEFAULT NOW() ON UPDATE NOW())",
    "CREATE TABLE t (a INT DEFAULT (1+1), b INT DEFAULT -1, c DOUBLE DEFAULT +1.5e3, d VARCHAR(10) DEFAULT NULL, e DATETIME DEFAULT CURRENT_TIMESTAMP)",
    "CREATE TABLE t (a INT, b INT, c VARCHAR(100), PRIMARY KEY (a, b), UNIQUE KEY uk (c(10)), KEY k1 (b DESC, a ASC), INDEX (c), UNIQUE INDEX u2 USING BTREE (b), CONSTRAINT pk2 UNIQUE (a), FULLTEXT KEY ft (c))",
    "CREATE TABLE t (a INT, b INT, FOREIGN KEY (b) REFERENCES p(id) ON DELETE CASCADE ON UPDATE SET NULL, CONSTRAINT fk1 FOREIGN KEY fkb (b) REFERENCES p (id), CHECK (a > 0), CONSTRAINT c1 CHECK (b < 10))",
    "CREATE TABLE t (a INT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci AUTO_INCREMENT=10 COMMENT='hi' ROW_FORMAT=DYNAMIC",
    "CREATE TABLE t (a INT) ENGINE InnoDB, CHARACTER SET latin1, AUTO_INCREMENT 5, COMMENT 'x', ROW_FORMAT COMPACT, TABLESPACE ts STORAGE MEMORY",
    "CREATE TABLE t (a INT) ENGINE=MEMORY",
    "CREATE TEMPORARY TABLE tmp (a INT)",
    "CREATE TEMPORARY TABLE IF NOT EXISTS tmp (a INT) ENGINE=MEMORY",
    "CREATE TABLE t2 LIKE t1",
    "CREATE TABLE IF NOT EXISTS t2 (LIKE db.t1)",
    "CREATE TABLE t2 AS SELECT * FROM t1",
    "CREATE TABLE t2 SELECT a, b FROM t1 WHERE a > 1",
    "CREATE TABLE t2 (c INT) ENGINE=InnoDB SELECT a FROM t1",
    "CREATE TABLE t2 IGNORE SELECT a FROM t1",
    "CREATE OR REPLACE TABLE t2 (a INT)",
    "CREATE TABLE `db`.`t` (`a` int(11) NOT NULL)",
    "CREATE TABLE t (a NATIONAL CHAR(5), b NCHAR(2), c NVARCHAR(5), d CHARACTER VARYING(9), e LONG VARCHAR, f CHAR(4) BINARY, g VARCHAR(10) CHARSET ascii, h TEXT(100), i BLOB(70000), j INT1, k INT8, l FLOAT(30))",
    "DROP TABLE t1",
    "DROP TABLE IF EXISTS t1, t2, db.t3 RESTRICT",
    "DROP TEMPORARY TABLE IF EXISTS t1 CASCADE",
    "TRUNCATE TABLE t1",
    "TRUNCATE t1",
    "RENAME TABLE a TO b",
    "RENAME TABLE a TO b, db.c TO db2.d",
    "CREATE UNIQUE INDEX i ON t (a, b(10) DESC)",
    "CREATE INDEX i USING BTREE ON t (a) COMMENT 'x' ALGORITHM=INPLACE LOCK=NONE",
    "CREATE INDEX IF NOT EXISTS i ON t (a)",
    "DROP INDEX i ON t",
    "DROP INDEX IF EXISTS `PRIMARY` ON t",
    "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 0 AFTER b",
    "ALTER TABLE t ADD c INT FIRST, ADD d VARCHAR(5)",
    "ALTER TABLE t ADD (c INT, d INT)",
    "ALTER TABLE t DROP COLUMN c, DROP d",
    "ALTER TABLE t MODIFY COLUMN c BIGINT UNSIGNED NOT NULL, MODIFY d TEXT",
    "ALTER TABLE t CHANGE COLUMN c c2 INT NULL AFTER a, CHANGE d d2 CHAR(3) FIRST",
    "ALTER TABLE t ADD INDEX i (a), ADD UNIQUE KEY u (b), ADD PRIMARY KEY (id), ADD KEY (c), ADD UNIQUE (d)",
    "ALTER TABLE t DROP INDEX i, DROP KEY u, DROP PRIMARY KEY",
    "ALTER TABLE t RENAME TO t2",
    "ALTER TABLE t RENAME AS db.t2",
    "ALTER TABLE t RENAME t2",
    "ALTER TABLE t ENGINE=InnoDB",
    "ALTER TABLE t ENGINE=InnoDB, AUTO_INCREMENT=100, COMMENT='z'",
    "ALTER TABLE t AUTO_INCREMENT 5 DEFAULT CHARSET utf8mb4",
    "ALTER TABLE t DISABLE KEYS",
    "ALTER TABLE t ENABLE KEYS",
    "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
    "ALTER TABLE t ALTER COLUMN a SET DEFAULT 5, ALTER b DROP DEFAULT",
    "ALTER TABLE t RENAME COLUMN a TO b, RENAME INDEX i TO j",
    "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES p(id), DROP FOREIGN KEY fk",
    "ALTER TABLE t FORCE",
    "ALTER IGNORE TABLE t ADD UNIQUE (a)",
    "ALTER TABLE t ADD COLUMN IF NOT EXISTS c INT, DROP COLUMN IF EXISTS d, DROP INDEX IF EXISTS i",
    "INSERT t VALUES (1)",
    "INSERT INTO t VALUE (1, DEFAULT, NULL)",
    "INSERT INTO t () VALUES ()",
    "INSERT IGNORE INTO t (a, b) VALUES (1, 2), (3, 4)",
    "INSERT LOW_PRIORITY IGNORE t SET a = 1, b = DEFAULT",
    "INSERT INTO t (a) SELECT a FROM t2 WHERE b > 0 ORDER BY a LIMIT 10",
    "INSERT INTO t SELECT * FROM t2",
    "INSERT INTO t (a) (SELECT a FROM t2)",
    "INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = VALUES(b) + 1, a = a",
    "INSERT INTO t SET a = 1 ON DUPLICATE KEY UPDATE b = b + 1",
    "INSERT INTO t (a) SELECT a FROM t2 ON DUPLICATE KEY UPDATE a = VALUES(a)",
    "INSERT INTO db.t (t.a, db.t.b) VALUES (1, 2)",
    "REPLACE INTO t VALUES (1, 2)",
    "REPLACE t (a) VALUES (1)",
    "REPLACE INTO t SET a = 1",
    "REPLACE INTO t SELECT * FROM t2",
    "UPDATE t SET a = 1",
    "UPDATE IGNORE t SET a = a + 1, b = DEFAULT WHERE c > 0 ORDER BY a DESC LIMIT 10",
    "UPDATE LOW_PRIORITY t AS x SET x.a = 2 WHERE x.b = 3",
    "UPDATE t1, t2 SET t1.a = t2.a WHERE t1.id = t2.id",
    "UPDATE t1 JOIN t2 ON t1.id = t2.id SET t1.a = t2.b, t2.c = 1 WHERE t2.x > 0",
    "UPDATE t1 LEFT JOIN t2 USING (id) SET t1.a = 0 WHERE t2.id IS NULL",
    "DELETE FROM t",
    "DELETE IGNORE FROM t WHERE a = 1 ORDER BY b LIMIT 5",
    "DELETE LOW_PRIORITY QUICK FROM t AS x WHERE x.a = 1",
    "DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.id WHERE t2.x = 1",
    "DELETE t1, t2 FROM t1 INNER JOIN t2 INNER JOIN t3 WHERE t1.id = t2.id AND t2.id = t3.id",
    "DELETE t1.*, db.t2.* FROM t1, db.t2 WHERE t1.id = t2.id",
    "DELETE FROM t1 USING t1, t2 WHERE t1.id = t2.id",
    "DELETE FROM t1, t2 USING t1 INNER JOIN t2 INNER JOIN t3 WHERE t1.id = t2.id",
    "SELECT a, b FROM t1, t2 WHERE t1.a = t2.b",
    "SELECT * FROM t1 INNER JOIN t2 ON t1.a = t2.a CROSS JOIN t3 LEFT OUTER JOIN t4 USING (a, b) RIGHT JOIN t5 ON 1",
    "SELECT * FROM t1 STRAIGHT_JOIN t2 ON t1.a = t2.a NATURAL JOIN t3",
    "SELECT x.a FROM (SELECT a FROM t) AS x",
    "SELECT x.a FROM (SELECT a FROM t) x JOIN (SELECT 1 AS a) y ON x.a = y.a",
    "SELECT * FROM t USE INDEX (i1, i2) WHERE a = 1",
    "SELECT * FROM t FORCE INDEX (PRIMARY) IGNORE KEY FOR ORDER BY (k) WHERE a = 1",
    "SELECT * FROM t AS a USE INDEX FOR JOIN () JOIN t b FORCE KEY FOR GROUP BY (x)",
    "SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP HAVING COUNT(*) > 1",
    "SELECT a, b AS bb FROM t ORDER BY 1, bb DESC, a + 1 ASC LIMIT 10 OFFSET 5",
    "SELECT a FROM t LIMIT 5, 10",
    "SELECT a FROM t WHERE id = 1 FOR UPDATE",
    "SELECT a FROM t WHERE id = 1 FOR SHARE",
    "SELECT a FROM t WHERE id = 1 LOCK IN SHARE MODE",
    "SELECT a FROM t FOR UPDATE NOWAIT",
    "SELECT SQL_CALC_FOUND_ROWS a FROM t LIMIT 1",
    "SELECT DISTINCT a FROM t",
    "SELECT ALL a FROM t",
    "SELECT HIGH_PRIORITY SQL_NO_CACHE SQL_BUFFER_RESULT a FROM t",
    "SELECT SQL_CACHE a FROM t",
    "SELECT a FROM t1 UNION SELECT b FROM t2",
    "SELECT a FROM t1 UNION ALL SELECT b FROM t2 UNION DISTINCT SELECT c FROM t3 ORDER BY 1 LIMIT 3",
    "(SELECT a FROM t1 ORDER BY a LIMIT 1) UNION (SELECT b FROM t2 ORDER BY b LIMIT 2) ORDER BY a DESC LIMIT 1",
    "(SELECT a FROM t1) UNION ALL (SELECT b FROM t2)",
    "(SELECT 1) ORDER BY 1",
    "SELECT (SELECT MAX(a) FROM t2) AS m FROM t1",
    "SELECT * FROM t1 WHERE a IN (SELECT b FROM t2 WHERE t2.c = t1.c)",
    "SELECT * FROM t1 WHERE a NOT IN (SELECT b FROM t2)",
    "SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a)",
    "SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2)",
    "SELECT * FROM t1 WHERE a > ANY (SELECT b FROM t2)",
    "SELECT * FROM t1 WHERE a = SOME (SELECT b FROM t2) AND a <> ALL (SELECT c FROM t3)",
    "SELECT db.t.c, t.*, db.t.* FROM db.t",
    "SELECT GROUP_CONCAT(DISTINCT a ORDER BY a DESC, b SEPARATOR '; ') FROM t GROUP BY c",
    "SELECT COUNT(DISTINCT a, b), SUM(DISTINCT a), AVG(a), MIN(a), MAX(a) FROM t",
    "SELECT a FROM t GROUP BY a DESC",
    "EXPLAIN SELECT * FROM t WHERE a = 1",
    "EXPLAIN FORMAT=JSON SELECT * FROM t",
    "EXPLAIN EXTENDED SELECT 1",
    "EXPLAIN UPDATE t SET a = 1 WHERE b = 2",
    "EXPLAIN DELETE FROM t WHERE a = 1",
    "EXPLAIN INSERT INTO t VALUES (1)",
    "EXPLAIN t",
    "DESCRIBE t",
    "DESC db.t a",
    "DESCRIBE t 'a%'",
    "SHOW CREATE TABLE t",
    "SHOW CREATE TABLE db.t",
    "SHOW COLUMNS FROM t",
    "SHOW FULL COLUMNS FROM t FROM db LIKE 'a%'",
    "SHOW FIELDS IN db.t",
    "SHOW INDEX FROM t",
    "SHOW INDEXES FROM t IN db",
    "SHOW KEYS FROM t",
    "SHOW TABLE STATUS",
    "SHOW TABLE STATUS FROM db LIKE 't%'",
    "SHOW TABLES",
    "SHOW FULL TABLES FROM db LIKE 'x'",
    "SHOW DATABASES",
    "GRANT SELECT ON *.* TO 'u'@'localhost'",
    "GRANT SELECT, INSERT, UPDATE (a, b), DELETE ON db.* TO u@'%'",
    "GRANT ALL PRIVILEGES ON db.t TO 'u'@'h' IDENTIFIED BY 'pw' WITH GRANT OPTION",
    "GRANT ALL ON TABLE t TO u",
    "GRANT SELECT (c1), REFERENCES (c2) ON db.t TO u1, u2",
    "GRANT CREATE TEMPORARY TABLES, LOCK TABLES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO u",
    "GRANT USAGE ON *.* TO u WITH MAX_QUERIES_PER_HOUR 10",
    "GRANT SELECT ON * TO u",
    "GRANT r1 TO u",
    "GRANT r1, r2 TO 'u'@'h' WITH ADMIN OPTION",
    "REVOKE SELECT ON *.* FROM u",
    "REVOKE INSERT (a) ON db.t FROM 'u'@'h'",
    "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u, v",
    "REVOKE ALL, GRANT OPTION FROM u",
    "REVOKE ALL PRIVILEGES ON db.* FROM u",
    "REVOKE GRANT OPTION ON *.* FROM u",
    "REVOKE r1 FROM u",
    "CREATE ROLE r1",
    "CREATE ROLE IF NOT EXISTS r1 WITH ADMIN CURRENT_USER",
    "DROP ROLE r1",
    "DROP ROLE IF EXISTS r1, r2",
    "SET ROLE r1",
    "SET ROLE NONE",
    "SET DEFAULT ROLE r1",
    "SET DEFAULT ROLE NONE FOR 'u'@'h'",
    "FLUSH BINARY LOGS",
    "PURGE BINARY LOGS TO 'mysql-bin.000010'",
    "PURGE MASTER LOGS BEFORE '2024-01-01 00:00:00'",
    "PURGE BINARY LOGS BEFORE NOW() - INTERVAL 3 DAY",
    "RESET MASTER",
    "RESET MASTER TO 100",
    "SHOW BINLOG EVENTS",
    "SHOW BINLOG EVENTS IN 'mysql-bin.000001' FROM 4 LIMIT 2, 10",
    "SHOW BINARY LOG STATUS",
    "SHOW MASTER STATUS",
    "SHOW BINLOG STATUS",
    "SHOW BINARY LOGS",
    "LOCK TABLES `t` WRITE",
    "SELECT DATE_ADD('2020-01-01', INTERVAL 1 DAY), '2020-01-01' + INTERVAL 2 MONTH",
    "SELECT a REGEXP '^x', a NOT REGEXP 'y' FROM t",
    "CREATE TABLE `auth_user` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `password` varchar(128) NOT NULL, `last_login` datetime(6) NULL, `is_superuser` bool NOT NULL, `username` varchar(150) NOT NULL UNIQUE)",
    "ALTER TABLE `auth_permission` ADD CONSTRAINT `auth_permission_content_type_id_2f476e4b_fk_django_co` FOREIGN KEY (`content_type_id`) REFERENCES `django_content_type` (`id`)",
    "CREATE INDEX `django_session_expire_date_a5c62663` ON `django_session` (`expire_date`)",
    "create table hibernate_sequence (next_val bigint) engine=InnoDB",
    "create table Person (id bigint not null auto_increment, name varchar(255), primary key (id)) engine=InnoDB",
    "alter table Person add constraint UK_abc unique (name)",
    "CREATE TABLE IF NOT EXISTS `migrations` (`id` int unsigned not null auto_increment primary key, `migration` varchar(255) not null, `batch` int not null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    "alter table `users` add unique `users_email_unique`(`email`)",
    "CREATE TABLE t (a INT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci",
    "CREATE TABLE t (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, created_at TIMESTAMP NULL DEFAULT NULL, updated_at TIMESTAMP NULL DEFAULT NULL, PRIMARY KEY (id)) ENGINE=InnoDB",
    "CREATE TABLE t (a INT NOT NULL DEFAULT '0' COMMENT 'x', KEY idx_a (a) USING BTREE) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8",
    "CREATE TABLE t (a DOUBLE UNSIGNED ZEROFILL, b DECIMAL(65,30), c VARCHAR(10) BINARY, d TEXT CHARACTER SET latin1, e TINYINT(1) UNSIGNED NOT NULL DEFAULT 1)",
    "CREATE TABLE t (a INT, INDEX USING HASH (a))",
    "CREATE TABLE t (a INT, b INT AS (a + 1) VIRTUAL)",
    "CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a + 1) STORED)",
    "CREATE TABLE t (`a` DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00')",
    "CREATE TABLE t (a INT) COMMENT 'it''s'",
    "CREATE TABLE t (a INT) PACK_KEYS=0 CHECKSUM=1 DELAY_KEY_WRITE=1",
    "CREATE TABLE t1 (a INT) SELECT 1 AS a",
    "CREATE TABLE t1 AS (SELECT 1 AS a)",
    "INSERT INTO t VALUES (1),(2) ON DUPLICATE KEY UPDATE a=a+VALUES(a)",
    "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 1, b = DEFAULT",
    "INSERT INTO t SELECT * FROM u ON DUPLICATE KEY UPDATE t.a = u.a",
    "INSERT DELAYED INTO t VALUES (1)",
    "INSERT INTO t (`a`,`b`) VALUES (_utf8mb4'x' COLLATE utf8mb4_bin, 0x41)",
    "UPDATE t SET a = (SELECT MAX(b) FROM u) WHERE id IN (SELECT id FROM v)",
    "UPDATE t1 INNER JOIN t2 ON t1.a = t2.a LEFT JOIN t3 ON t3.b = t2.b SET t1.c = t3.c",
    "DELETE FROM t WHERE a IN (SELECT a FROM (SELECT a FROM t) AS x)",
    "DELETE QUICK IGNORE FROM t WHERE 1",
    "SELECT * FROM t1 JOIN t2",
    "SELECT * FROM t1, (t2, t3)",
    "SELECT * FROM t1 LEFT JOIN (t2 JOIN t3 ON t2.a = t3.a) ON t1.a = t2.a",
    "SELECT * FROM t1 NATURAL LEFT JOIN t2",
    "SELECT a FROM t ORDER BY a LIMIT 10 FOR UPDATE SKIP LOCKED",
    "SELECT a FROM t GROUP BY a ASC",
    "SELECT 1 FROM DUAL WHERE 1",
    "SELECT COUNT(*) AS `count` FROM `t` WHERE (`t`.`a` = 'x' AND `t`.`b` IS NULL)",
    "SELECT t.* FROM t WHERE t.id = 1 LIMIT 1",
    "SELECT SQL_NO_CACHE * FROM t",
    "SELECT * FROM t WHERE a LIKE 'x%' ESCAPE '!'",
    "SELECT * FROM t WHERE (a, b) IN ((1, 2), (3, 4))",
    "SELECT * FROM t WHERE a = ALL (SELECT 1)",
    "SELECT EXISTS(SELECT 1 FROM t)",
    "SELECT (SELECT 1) + 1",
    "SELECT * FROM t1 UNION (SELECT * FROM t2) ORDER BY 1",
    "SELECT * FROM t1 UNION ALL SELECT * FROM t2 LIMIT 1",
    "SELECT DISTINCT a, b FROM t ORDER BY a DESC, b",
    "SELECT a, GROUP_CONCAT(b SEPARATOR ', ') FROM t GROUP BY a HAVING COUNT(*) > 1 ORDER BY NULL",
    "SELECT CAST(a AS UNSIGNED), CONVERT(b, CHAR(10)) FROM t",
    "SELECT * FROM t LIMIT 18446744073709551615 OFFSET 1",
    "SELECT a AS 'x', b \"y\" FROM t",
    "EXPLAIN EXTENDED SELECT * FROM t",
    "EXPLAIN PARTITIONS SELECT * FROM t",
    "DESCRIBE SELECT 1",
    "SHOW FULL PROCESSLIST",
    "SHOW TABLE STATUS WHERE Name = 't'",
    "SHOW COLUMNS FROM t WHERE Field = 'a'",
    "SHOW INDEX FROM t FROM d",
    "SHOW CREATE DATABASE d",
    "SHOW PROCEDURE STATUS WHERE Db = 'd'",
    "SHOW FUNCTION STATUS LIKE 'f%'",
    "SHOW PACKAGE STATUS WHERE Db = 'd'",
    "SHOW PACKAGE BODY STATUS WHERE Db = 'd'",
    "SHOW EVENTS",
    "SHOW ENGINE INNODB STATUS",
    "SHOW ENGINE INNODB MUTEX",
    "SHOW GRANTS FOR CURRENT_USER()",
    "GRANT SELECT ON `d`.* TO 'u'@'%'",
    "GRANT SELECT, INSERT ON TABLE d.t TO 'u'@'localhost' IDENTIFIED BY PASSWORD '*94BDCEBE19083CE2A1F959FD02F964C7AF4CFC29'",
    "GRANT EXECUTE ON PROCEDURE d.p TO u",
    "REVOKE ALL ON d.* FROM 'u'@'%'",
    "GRANT SUPER, PROCESS, RELOAD, SHUTDOWN, FILE, SHOW DATABASES ON *.* TO u",
    "GRANT role1 TO CURRENT_USER",
    "SET ROLE 'role1'",
    "SET DEFAULT ROLE role1 FOR u",
    "CREATE ROLE 'r2'",
    "DROP TABLE IF EXISTS `t1`,`t2`",
    "TRUNCATE TABLE `d`.`t`",
    "RENAME TABLE `a` TO `b`",
    "ALTER TABLE t ADD COLUMN c INT AFTER `b`, ADD INDEX (c)",
    "ALTER TABLE t MODIFY a VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT ''",
    "ALTER TABLE t CHANGE `a` `b` INT(11) NOT NULL AUTO_INCREMENT",
    "ALTER TABLE t ADD PRIMARY KEY (a), ADD UNIQUE KEY `u` (`b`)",
    "ALTER TABLE t DROP FOREIGN KEY fk, DROP KEY fk",
    "ALTER TABLE t ALGORITHM=INPLACE, LOCK=NONE, ADD INDEX (a)",
    "ALTER TABLE t ROW_FORMAT=DYNAMIC",
    "ALTER TABLE t COMMENT 'x'",
    "ALTER TABLE t CHARACTER SET utf8mb4",
    "ALTER TABLE t DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
    "ALTER TABLE t AUTO_INCREMENT = 1000",
    "ALTER TABLE t ADD INDEX idx (a(10) DESC, b)",
    "ALTER TABLE t MODIFY COLUMN a INT FIRST",
    "CREATE DATABASE `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 */",
    "CREATE DATABASE IF NOT EXISTS d DEFAULT CHARACTER SET = utf8mb4 DEFAULT COLLATE = utf8mb4_unicode_ci",
    "DROP DATABASE IF EXISTS `d`",
    "PURGE BINARY LOGS BEFORE DATE_SUB(NOW(), INTERVAL 7 DAY)",
    "SHOW BINLOG EVENTS FROM 256 LIMIT 5",
    "SHOW MASTER LOGS",
    "INSERT INTO t VALUES (DEFAULT)",
    "INSERT INTO t () VALUES (), ()",
    "REPLACE LOW_PRIORITY INTO t (a) SELECT 1",
    "UPDATE t SET a = DEFAULT(a)",
    "SELECT * FROM t FORCE INDEX FOR JOIN (idx) WHERE a = 1",
    "SELECT STRAIGHT_JOIN * FROM t1, t2",
    "SELECT * FROM t1 STRAIGHT_JOIN t2",
    "LOCK TABLES t1 READ, t2 WRITE",
    "SELECT HIGH_PRIORITY DISTINCT SQL_CALC_FOUND_ROWS a FROM t",
    "SELECT a, b FROM t WHERE a BETWEEN 1 AND 10 AND b NOT LIKE '%x' OR c IS NOT NULL XOR d",
    "SELECT DATE_FORMAT(NOW(), '%Y') , NOW() - INTERVAL 1 DAY",
    "CREATE TABLE t (a ENUM('x','y') CHARACTER SET latin1 NOT NULL DEFAULT 'x')",
    "CREATE TABLE t (id SERIAL, a BIT(1) DEFAULT b'0', b BINARY(16), c YEAR(4))",
    "CREATE TABLE t (a INT PRIMARY KEY) AUTO_INCREMENT=1 ENGINE=MyISAM",
    "CREATE TABLE t (`order` INT, `key` INT, `status` INT, `date` DATE, `comment` TEXT, `type` INT, `value` INT, `name` INT, `timestamp` INT, `text` INT, `year` INT)",
    "CREATE TABLE t (status INT, date DATE, comment TEXT, type INT, value INT, name INT, timestamp INT, text INT, year INT, action INT, level INT, data INT, user INT, password INT, position INT)",
    "SELECT status, date, comment, type, value, name, timestamp, text, year FROM t",
    "INSERT INTO t (status, date, type, value) VALUES (1, '2020-01-01', 2, 3)",
    "CREATE VIEW v AS SELECT 1",
    "CREATE OR REPLACE VIEW db.v (a, b) AS SELECT x, y FROM t WHERE x > 1 WITH CHECK OPTION",
    "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS select `t`.`id` AS `id` from `t`",
    "CREATE SQL SECURITY INVOKER VIEW v AS (SELECT 1) UNION (SELECT 2)",
    "DROP VIEW IF EXISTS `v`",
    "DROP VIEW v1, v2 CASCADE",
    "ANALYZE TABLE t",
    "ANALYZE NO_WRITE_TO_BINLOG TABLE t1, t2",
    "ANALYZE SELECT * FROM t",
    "ANALYZE FORMAT=JSON SELECT 1",
    "OPTIMIZE TABLE t",
    "CHECK TABLE t FOR UPGRADE",
    "CHECK TABLE t1, t2 QUICK",
    "REPAIR LOCAL TABLE t USE_FRM",
    "CHECKSUM TABLE t EXTENDED",
    "WITH t AS (SELECT 1 AS a) SELECT a FROM t",
    "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r",
    "WITH a AS (SELECT 1), b AS (SELECT 2) SELECT * FROM a, b",
    "SELECT * FROM (WITH x AS (SELECT 1 AS c) SELECT c FROM x) y",
    "INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x",
};

/* mariadb-dump 10.19 output of a MariaDB 10.11 database with every column type, a foreign key and a view. */
static const char dump_text[] =
    "/*M!999999\\- enable the sandbox mode */ \n"
    "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)\n"
    "--\n"
    "-- Host: localhost    Database: d1\n"
    "-- ------------------------------------------------------\n"
    "-- Server version\t10.11.19-MariaDB-0+deb12u1\n"
    "\n"
    "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n"
    "/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;\n"
    "/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;\n"
    "/*!40101 SET NAMES utf8mb4 */;\n"
    "/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n"
    "/*!40103 SET TIME_ZONE='+00:00' */;\n"
    "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n"
    "/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n"
    "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n"
    "/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;\n"
    "\n"
    "--\n"
    "-- Current Database: `d1`\n"
    "--\n"
    "\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d1` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci */;\n"
    "\n"
    "USE `d1`;\n"
    "\n"
    "--\n"
    "-- Table structure for table `t`\n"
    "--\n"
    "\n"
    "DROP TABLE IF EXISTS `t`;\n"
    "/*!40101 SET @saved_cs_client     = @@character_set_client */;\n"
    "/*!40101 SET character_set_client = utf8mb4 */;\n"
    "CREATE TABLE `t` (\n"
    "  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n"
    "  `ti` tinyint(3) unsigned zerofill DEFAULT NULL,\n"
    "  `si` smallint(6) DEFAULT NULL,\n"
    "  `mi` mediumint(8) unsigned DEFAULT NULL,\n"
    "  `bi` bigint(20) DEFAULT -5,\n"
    "  `de` decimal(10,2) NOT NULL DEFAULT 0.00,\n"
    "  `f` float(7,3) DEFAULT NULL,\n"
    "  `db` double DEFAULT NULL,\n"
    "  `bt` bit(5) DEFAULT b'101',\n"
    "  `c` char(10) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT NULL,\n"
    "  `vc` varchar(255) NOT NULL DEFAULT '',\n"
    "  `bn` binary(4) DEFAULT NULL,\n"
    "  `vb` varbinary(20) DEFAULT NULL,\n"
    "  `tt` tinytext DEFAULT NULL,\n"
    "  `tx` text DEFAULT NULL COMMENT 'a text',\n"
    "  `mt` mediumtext DEFAULT NULL,\n"
    "  `lt` longtext DEFAULT NULL,\n"
    "  `tb` tinyblob DEFAULT NULL,\n"
    "  `bl` blob DEFAULT NULL,\n"
    "  `mb` mediumblob DEFAULT NULL,\n"
    "  `lb` longblob DEFAULT NULL,\n"
    "  `d` date DEFAULT NULL,\n"
    "  `dt` datetime(3) DEFAULT current_timestamp(3) ON UPDATE current_timestamp(3),\n"
    "  `ts` timestamp NOT NULL DEFAULT current_timestamp(),\n"
    "  `tm` time(2) DEFAULT NULL,\n"
    "  `y` year(4) DEFAULT NULL,\n"
    "  `e` enum('a','b''x','c') DEFAULT 'a',\n"
    "  `s` set('x','y','z') DEFAULT NULL,\n"
    "  `b` tinyint(1) DEFAULT NULL,\n"
    "  `j` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`j`)),\n"
    "  PRIMARY KEY (`id`),\n"
    "  UNIQUE KEY `uk` (`vc`(20),`d`),\n"
    "  KEY `k1` (`bi` DESC,`si`),\n"
    "  KEY `k2` (`c`)\n"
    ") ENGINE=InnoDB AUTO_INCREMENT=7 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='tbl';\n"
    "/*!40101 SET character_set_client = @saved_cs_client */;\n"
    "\n"
    "--\n"
    "-- Dumping data for table `t`\n"
    "--\n"
    "\n"
    "LOCK TABLES `t` WRITE;\n"
    "/*!40000 ALTER TABLE `t` DISABLE KEYS */;\n"
    "INSERT INTO `t` VALUES\n"
    "(5,005,NULL,NULL,-5,0.00,NULL,NULL,'\x05',NULL,'a',NULL,NULL,NULL,'it\\'s',NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-11-30 06:14:09.587','2026-11-30 06:14:09',NULL,NULL,'b\\'x','x,z',NULL,'{\\\"a\\\":1}'),\n"
    "(6,006,NULL,NULL,-5,0.00,NULL,NULL,'\x05',NULL,'b',NULL,NULL,NULL,'x\\\\y',NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-11-30 06:14:09.587','2026-11-30 06:14:09',NULL,NULL,NULL,'',NULL,NULL);\n"
    "/*!40000 ALTER TABLE `t` ENABLE KEYS */;\n"
    "UNLOCK TABLES;\n"
    "\n"
    "--\n"
    "-- Table structure for table `t2`\n"
    "--\n"
    "\n"
    "DROP TABLE IF EXISTS `t2`;\n"
    "/*!40101 SET @saved_cs_client     = @@character_set_client */;\n"
    "/*!40101 SET character_set_client = utf8mb4 */;\n"
    "CREATE TABLE `t2` (\n"
    "  `a` int(11) NOT NULL,\n"
    "  `b` int(11) DEFAULT NULL,\n"
    "  PRIMARY KEY (`a`),\n"
    "  KEY `b` (`b`),\n"
    "  CONSTRAINT `t2_ibfk_1` FOREIGN KEY (`b`) REFERENCES `t2` (`a`) ON DELETE CASCADE\n"
    ") ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;\n"
    "/*!40101 SET character_set_client = @saved_cs_client */;\n"
    "\n"
    "--\n"
    "-- Dumping data for table `t2`\n"
    "--\n"
    "\n"
    "LOCK TABLES `t2` WRITE;\n"
    "/*!40000 ALTER TABLE `t2` DISABLE KEYS */;\n"
    "/*!40000 ALTER TABLE `t2` ENABLE KEYS */;\n"
    "UNLOCK TABLES;\n"
    "\n"
    "--\n"
    "-- Temporary table structure for view `v`\n"
    "--\n"
    "\n"
    "DROP TABLE IF EXISTS `v`;\n"
    "/*!50001 DROP VIEW IF EXISTS `v`*/;\n"
    "SET @saved_cs_client     = @@character_set_client;\n"
    "SET character_set_client = utf8mb4;\n"
    "/*!50001 CREATE VIEW `v` AS SELECT\n"
    " NULL AS `id` */;\n"
    "SET character_set_client = @saved_cs_client;\n"
    "\n"
    "--\n"
    "-- Current Database: `d1`\n"
    "--\n"
    "\n"
    "USE `d1`;\n"
    "\n"
    "--\n"
    "-- Final view structure for view `v`\n"
    "--\n"
    "\n"
    "/*!50001 DROP VIEW IF EXISTS `v`*/;\n"
    "/*!50001 SET @saved_cs_client          = @@character_set_client */;\n"
    "/*!50001 SET @saved_cs_results         = @@character_set_results */;\n"
    "/*!50001 SET @saved_col_connection     = @@collation_connection */;\n"
    "/*!50001 SET character_set_client      = utf8mb3 */;\n"
    "/*!50001 SET character_set_results     = utf8mb3 */;\n"
    "/*!50001 SET collation_connection      = utf8mb3_general_ci */;\n"
    "/*!50001 CREATE ALGORITHM=UNDEFINED */\n"
    "/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */\n"
    "/*!50001 VIEW `v` AS select `t`.`id` AS `id` from `t` */;\n"
    "/*!50001 SET character_set_client      = @saved_cs_client */;\n"
    "/*!50001 SET character_set_results     = @saved_cs_results */;\n"
    "/*!50001 SET collation_connection      = @saved_col_connection */;\n"
    "/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;\n"
    "\n"
    "/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;\n"
    "/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;\n"
    "/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;\n"
    "/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n"
    "/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;\n"
    "/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;\n"
    "/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;\n"
    "\n"
    "-- Dump completed on 2026-11-30  6:14:09\n"
    "\n"
    ;
