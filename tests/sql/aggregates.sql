-- Aggregates as the executor accumulates them (src/sql/exec_agg.c): values, result types, NULL rules,
-- DISTINCT (collation-aware, several arguments), GROUP_CONCAT ORDER BY / SEPARATOR, grouping and no rows;
-- and the argument-count rule of functions.def (1582).
CREATE TABLE ag (id INT PRIMARY KEY, g INT, i INT, d DECIMAL(6,2), f DOUBLE, s VARCHAR(10), u BIGINT UNSIGNED);
INSERT INTO ag VALUES (1, 1, 1, 1.50, 0.5, 'b', 18446744073709551615), (2, 1, 2, 2.25, 1.5, 'A', 1),
  (3, 1, 2, -0.50, NULL, 'a', 2), (4, 2, NULL, NULL, 2.5, 'c ', NULL), (5, 2, 5, 10.00, 3.5, 'c', 3),
  (6, 3, NULL, NULL, NULL, NULL, NULL);
SELECT COUNT(*), COUNT(i), COUNT(DISTINCT i), SUM(i), AVG(i), MIN(i), MAX(i), BIT_AND(i), BIT_OR(i), BIT_XOR(i) FROM ag;
SELECT SUM(d), AVG(d), MIN(d), MAX(d), SUM(DISTINCT d), COUNT(DISTINCT d, i) FROM ag;
SELECT SUM(f), AVG(f), MIN(f), MAX(f), STD(f), VARIANCE(f), VAR_SAMP(f), STDDEV_SAMP(f), STDDEV_POP(f), VAR_POP(f) FROM ag;
SELECT STD(i), STDDEV(i), VARIANCE(i), VAR_SAMP(i), STDDEV_SAMP(i), STD(d), VAR_POP(d) FROM ag;
SELECT SUM(u), AVG(u), MAX(u), MIN(u), BIT_AND(u), BIT_OR(u) FROM ag;
SELECT COUNT(DISTINCT s), MIN(s), MAX(s), GROUP_CONCAT(DISTINCT s ORDER BY s), GROUP_CONCAT(s ORDER BY id) FROM ag;
SELECT GROUP_CONCAT(DISTINCT s ORDER BY s DESC SEPARATOR '-'), GROUP_CONCAT(i, s ORDER BY id SEPARATOR ''), COUNT(DISTINCT s, i) FROM ag;
SELECT g, COUNT(*), COUNT(i), SUM(i), AVG(d), MIN(s), MAX(f), GROUP_CONCAT(id ORDER BY id DESC), BIT_AND(i), STD(i) FROM ag GROUP BY g ORDER BY g;
SELECT g, COUNT(DISTINCT s), GROUP_CONCAT(DISTINCT s), GROUP_CONCAT(DISTINCT i, s SEPARATOR '/') FROM ag GROUP BY g HAVING COUNT(DISTINCT s) > 1 ORDER BY g;
-- no rows, and rows of NULLs only
SELECT COUNT(*), COUNT(i), SUM(i), AVG(i), MIN(i), MAX(s), GROUP_CONCAT(s), BIT_AND(i), BIT_OR(i), BIT_XOR(i), STD(i), VAR_SAMP(i) FROM ag WHERE id > 100;
SELECT COUNT(*), COUNT(i), SUM(i), AVG(d), MAX(s), GROUP_CONCAT(s), BIT_AND(u), STDDEV_SAMP(f) FROM ag WHERE id = 6;
SELECT g, SUM(i) FROM ag WHERE id > 100 GROUP BY g;
-- several arguments: DISTINCT compares each argument, not their concatenation
CREATE TABLE ag2 (a VARCHAR(5), b VARCHAR(5));
INSERT INTO ag2 VALUES ('ab', 'c'), ('a', 'bc'), ('A', 'BC'), ('x', NULL), (NULL, NULL);
SELECT COUNT(DISTINCT a, b), GROUP_CONCAT(DISTINCT a, b ORDER BY a, b), GROUP_CONCAT(a, b ORDER BY BINARY a DESC) FROM ag2;
SELECT COUNT(DISTINCT a), COUNT(DISTINCT b), COUNT(DISTINCT 1, 1.0), COUNT(DISTINCT a, 1) FROM ag2;
-- result types
-- @types
SELECT COUNT(*), COUNT(i), SUM(i), AVG(i), SUM(d), AVG(d), MIN(d), MAX(s), BIT_OR(i) FROM ag;
-- @meta
SELECT SUM(f), AVG(f), MIN(f), STD(i), VARIANCE(d), GROUP_CONCAT(s) FROM ag;
-- wrong argument counts: 1582 from the function's row (min / max arguments)
SELECT LENGTH();
SELECT LENGTH('a', 'b');
SELECT CONCAT_WS('a');
SELECT PI(1);
SELECT IF(1, 2);
SELECT DATE_FORMAT('2024-01-01');
SELECT ROUND(1, 2, 3);
-- when the statement is parsed: before a table is opened, and in a branch that never runs
SELECT ABS() FROM no_such_table;
SELECT IF(0, ABS(1, 2), 1);
SELECT i FROM ag WHERE 0 AND LEFT(s) = 'x';
-- functions that are grammar rules in MariaDB (keywords): a wrong count is 1064 where the grammar fails
SELECT LEFT('a');
SELECT RIGHT('a');
SELECT REPLACE('a', 'b');
SELECT MOD(1);
SELECT DATABASE(1);
SELECT SCHEMA(1);
SELECT INSERT('a', 1, 2);
SELECT REPEAT('a');
SELECT CHAR();
SELECT CURRENT_USER(1);
SELECT CURRENT_DATE(1);
SELECT CURRENT_TIME(1, 2);
SELECT NOW(1, 2);
SELECT UTC_DATE(1);
SELECT TRUNCATE(1);
SELECT POSITION('a');
SELECT CURRENT_ROLE(1);
SELECT LOCALTIME(1, 2);
SELECT UTC_TIME(1, 2);
SELECT UTC_TIMESTAMP(1, 2);
SELECT CURRENT_TIMESTAMP(1, 2);
SELECT LOCALTIMESTAMP(1, 2);
DROP TABLE ag, ag2;
-- GROUP_CONCAT is cut at @@group_concat_max_len (not at 1024 bytes), with warning 1260 naming the value cut in
CREATE TABLE gcut (k INT, s VARCHAR(10));
INSERT INTO gcut VALUES (1, 'aaaa'), (1, 'bbbb'), (1, 'cccc'), (2, 'dd'), (2, 'ee');
SET SESSION group_concat_max_len = 6;
SELECT k, GROUP_CONCAT(s ORDER BY s) FROM gcut GROUP BY k ORDER BY k;
SELECT GROUP_CONCAT(s ORDER BY s DESC) FROM gcut;
SET SESSION group_concat_max_len = 4;
SELECT k, LENGTH(GROUP_CONCAT(s ORDER BY s SEPARATOR '')) FROM gcut GROUP BY k ORDER BY k;
SET SESSION group_concat_max_len = 1048576;
SELECT LENGTH(GROUP_CONCAT(REPEAT('x', 100))) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11) d;
SET SESSION group_concat_max_len = 10;
SELECT GROUP_CONCAT(s) FROM gcut WHERE k = 1;
SELECT GROUP_CONCAT(CONVERT('ééé' USING utf8mb4)) FROM gcut WHERE k = 2;
SET SESSION group_concat_max_len = DEFAULT;
-- argument counts and DISTINCT / ALL are grammar in MariaDB: 1064
SELECT COUNT() FROM gcut;
SELECT SUM() FROM gcut;
SELECT COUNT(k, s) FROM gcut;
SELECT COUNT(DISTINCT k, s) FROM gcut;
SELECT SUM(k, k) FROM gcut;
SELECT GROUP_CONCAT() FROM gcut;
SELECT LENGTH(DISTINCT s) FROM gcut;
SELECT STD(DISTINCT k) FROM gcut;
SELECT MAX(DISTINCT k), COUNT(ALL k), SUM(ALL k) FROM gcut;
SELECT BIT_OR(DISTINCT k) FROM gcut;
SELECT LENGTH(ALL s) FROM gcut;
SELECT SUBSTRING('a');
