-- Static result types of expressions (src/sql/typeinf.c): the column definitions a SELECT sends (@types:
-- type, length, flags, decimals, character set) and the columns CREATE TABLE ... SELECT makes, as MariaDB
-- infers them before reading a row.
CREATE TABLE src (id INT NOT NULL PRIMARY KEY, i INT NOT NULL, ni INT, ti TINYINT, si SMALLINT, bi BIGINT,
  ui INT UNSIGNED, d DECIMAL(10,2), d0 DECIMAL(5,0), f FLOAT, db DOUBLE, v VARCHAR(20), c CHAR(5),
  vb VARBINARY(10), l1 VARCHAR(10) CHARACTER SET latin1, dt DATE, dtm DATETIME, dtm3 DATETIME(3), tm TIME, y YEAR);
INSERT INTO src VALUES (1, 7, NULL, 2, 300, 4000000000, 5, 12.50, 99, 1.5, 2.25, 'abc', 'de', 'xy', 'lat',
  '2020-01-02', '2020-01-02 03:04:05', '2020-01-02 03:04:05.123', '01:02:03', 2021);
INSERT INTO src VALUES (2, -3, 4, -5, NULL, NULL, 0, NULL, -1, NULL, -0.5, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL);

-- integer arithmetic widens by digits; int + int is int(n) up to 9 digits, bigint beyond
-- @types
SELECT i * 2, 1 + 1, i + 1, i * i, bi * 2, ui + 1, ui * 2, ti + si, i - 1, -i, ti * 2 FROM src ORDER BY id;
-- @types
SELECT i DIV 2, i % 3, i * ui, bi * bi, dt + 0, dtm + 0, y + 1 FROM src ORDER BY id;
-- DECIMAL precision and scale; / adds div_precision_increment decimals
-- @types
SELECT d + 1, d * 2, d * d, d / 3, d + i, i / 2, i + 1.5, 1.5 * 2, i + d0, MOD(d, 2) FROM src ORDER BY id;
-- @types
SELECT d + f, f + 1, db * 2, '1' + 1, 2.50, 0.5, -1, 123456789, 1234567890, 00012, TRUE FROM src ORDER BY id;
-- strings: lengths from the arguments
-- @types
SELECT CONCAT(v, c), CONCAT(v, i), CONCAT(v, d), CONCAT_WS(',', v, c), CONCAT(ti, ui), UPPER(v), TRIM(v)
  FROM src ORDER BY id;
-- @types
SELECT SUBSTRING(v, 2), SUBSTRING(v, 1, 3), LEFT(v, 3), RIGHT(v, 2), REPEAT(v, 3), LPAD(v, 8, 'x'),
  REPLACE(v, 'a', 'bb'), INSERT(v, 1, 2, 'xyz'), QUOTE(v) FROM src ORDER BY id;
-- @types
SELECT HEX(v), HEX(i), MD5(v), LENGTH(v), CHAR_LENGTH(v), INSTR(v, 'b'), ASCII(v), STRCMP(v, c),
  FIELD(v, 'a', 'abc'), CRC32(v) FROM src ORDER BY id;
-- COALESCE / IFNULL / IF / CASE aggregate their branches
-- @types
SELECT COALESCE(d, 0), COALESCE(ni, 0), COALESCE(v, 0), COALESCE(i, 1.5), COALESCE(ti, si), COALESCE(ti, ui),
  COALESCE(dt, dtm), COALESCE(dt, 1) FROM src ORDER BY id;
-- @types
SELECT IFNULL(d, i), IF(i > 0, d, i), IF(i > 0, 1, 2), IF(i > 0, NULL, 2), IF(i > 0, 1.5, 2),
  CASE WHEN i > 0 THEN d ELSE 0 END, CASE WHEN i > 0 THEN i ELSE 'x' END, NULLIF(i, 7), GREATEST(i, d),
  LEAST(i, 1.5) FROM src ORDER BY id;
-- aggregates: SUM widens to DECIMAL(p+22), AVG adds 4 decimals, COUNT is bigint(21)
-- @types
SELECT SUM(i), SUM(d), SUM(bi), SUM(db), AVG(i), AVG(d), COUNT(*), COUNT(ni), MAX(i + 1), BIT_OR(i),
  COALESCE(SUM(d), 0) FROM src;
-- @types
SELECT id, SUM(d), AVG(ti), COALESCE(SUM(d), 0), COALESCE(MAX(d), 0) FROM src GROUP BY id ORDER BY id;
-- over no rows the DECIMAL's scale shows: 0.00
-- @types
SELECT COALESCE(SUM(d), 0), COALESCE(SUM(d0), 0), COALESCE(AVG(d), 0), IFNULL(SUM(d), 1) FROM src WHERE id > 5;
-- comparisons and logic are int(1)
-- @types
SELECT i > 1, i = 1 AND ni = 2, i IS NULL, i <=> ni, v LIKE 'a%', i IN (1, 2), NOT i, i & 1,
  i BETWEEN 1 AND 9 FROM src ORDER BY id;
-- dates
-- @types
SELECT DATE(dtm), TIME(dtm3), DATE_ADD(dt, INTERVAL 1 DAY), DATE_ADD(dt, INTERVAL 1 HOUR),
  DATE_ADD(dtm3, INTERVAL 1 DAY), dt + INTERVAL 1 DAY, DATE_FORMAT(dt, '%Y-%m-%d'), TIME_FORMAT(tm, '%H'),
  DATEDIFF(dt, dt), YEAR(dt), MONTH(dt), DAYNAME(dt), TIMEDIFF(dtm, dtm) FROM src ORDER BY id;
-- @types
SELECT LENGTH(NOW()), LENGTH(NOW(3)), LENGTH(CURDATE()), CURDATE() > '2000-01-01', NOW(3) > '2000-01-01' FROM src;
-- CAST targets
-- @types
SELECT CAST(i AS CHAR), CAST(i AS SIGNED), CAST(d AS SIGNED), CAST(i AS UNSIGNED), CAST(i AS DECIMAL(5,2)),
  CAST(i AS DOUBLE), CAST(v AS CHAR(2)), CAST(v AS BINARY), CAST(dtm AS DATE) FROM src ORDER BY id;
-- numeric functions
-- @types
SELECT ABS(i), ABS(ti), ABS(d), ROUND(d), ROUND(d, 1), ROUND(i), ROUND(123.456, 2), TRUNCATE(d, 1), FLOOR(d),
  CEIL(d), SIGN(d), PI() FROM src ORDER BY id;
-- a derived table MariaDB merges into the query keeps its items' definitions; a materialized one (GROUP BY)
-- has a temporary table's columns
-- @types
SELECT * FROM (SELECT i * 2 AS a, i, d + 1 AS b, CONCAT(v, '!') AS s FROM src) t ORDER BY a;
-- @types
SELECT * FROM (SELECT i * 2 AS a, SUM(d) AS b FROM src GROUP BY i) t ORDER BY a;
-- without tables: the same static types, and values shown in them (1 in a decimal(2,1) column is 1.0)
-- @types
SELECT IF(1, 1, 2.5), COALESCE(NULL, 2, 1.25), CASE WHEN 1 THEN 3 ELSE 0.5 END, GREATEST(1, 2.5), IFNULL(NULL, 3) / 1,
  1 + 1, 10 DIV 3, 7 % 3, CAST(1 AS UNSIGNED), FLOOR(2.5), -1, .5, 00012, TRUE;
-- @types
SELECT CONCAT('a', 1), COALESCE(1, 'a'), IF(1, 'a', 'bcd'), 1 / 3, CAST('1.5' AS DECIMAL(5,2)), ROUND(2.567, 1),
  LENGTH('abc'), UPPER('abc'), REPEAT('ab', 3), MD5('a'), SHA2('a', 512), 1 & 3, NULLIF(1, 1), (SELECT 1), EXISTS(SELECT 1);
-- a UNION column aggregates its members' types as COALESCE does, flagged as a temporary table's column
CREATE TABLE pk (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE, k INT, KEY (k));
INSERT INTO pk VALUES (1, 1, 1);
-- @types
SELECT id, u, k FROM pk UNION SELECT 2, 2, 2;
-- @types
SELECT i FROM src UNION SELECT 1.5 ORDER BY 1;
-- @types
SELECT 1 AS c UNION SELECT 'abc' ORDER BY 1;
-- @types
SELECT d FROM src UNION ALL SELECT i FROM src ORDER BY 1;
-- @types
SELECT v FROM src UNION SELECT c FROM src ORDER BY 1;
-- @types
SELECT dt FROM src UNION SELECT dtm FROM src ORDER BY 1;
-- @types
SELECT ti FROM src UNION SELECT si FROM src ORDER BY 1;
-- @types
SELECT NULL AS c UNION SELECT 1 ORDER BY 1;
-- CREATE TABLE ... SELECT takes the same types
CREATE TABLE t1 AS SELECT i * 2 AS a, 1 + 1 AS b, i + 1.5 AS c, d * d AS e, i / 2 AS g, ui + 1 AS h,
  SUM(i) AS s1, AVG(d) AS s2, COUNT(*) AS n FROM src;
SHOW CREATE TABLE t1;
CREATE TABLE t2 AS SELECT CONCAT(v, c) AS a, UPPER(v) AS b, LEFT(v, 3) AS c, COALESCE(v, 0) AS e,
  IF(i > 0, 'a', 'bcd') AS g, CAST(i AS CHAR) AS h, HEX(v) AS k, CONVERT(v USING latin1) AS l,
  IFNULL(l1, '') AS m, COALESCE(v, l1) AS o FROM src;
SHOW CREATE TABLE t2;
CREATE TABLE t3 AS SELECT COALESCE(d, 0) AS a, IFNULL(ni, 0) AS b, COALESCE(ti, si) AS c, CASE WHEN i > 0 THEN d ELSE 0 END AS e,
  GREATEST(i, d) AS g, COALESCE(dt, dtm) AS h, NULLIF(i, 1) AS k FROM src;
SHOW CREATE TABLE t3;
CREATE TABLE t4 AS SELECT DATE(dtm) AS a, DATE_ADD(dt, INTERVAL 1 HOUR) AS b, YEAR(dt) AS c, MONTH(dt) AS e,
  DATEDIFF(dt, dt) AS g, DATE_FORMAT(dt, '%Y') AS h, CAST(v AS DATETIME(2)) AS k, NOW(3) AS l FROM src WHERE id = 0;
SHOW CREATE TABLE t4;
CREATE TABLE t5 AS SELECT c, l1, y, ROUND(d, 1) AS r, PI() AS p, .5 AS h, i > 1 AS k, NULL AS z, -d AS nd FROM src;
SHOW CREATE TABLE t5;
SELECT * FROM t5 ORDER BY r;
DROP TABLE t1, t2, t3, t4, t5, pk, src;
