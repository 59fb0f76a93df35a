-- More DDL: column options and defaults shown back, indexes with prefixes and DESC, ALTER variants, RENAME
-- across statements, DROP DATABASE with tables, TEMPORARY tables, errors of ALTER.
CREATE TABLE d1 (
  a INT UNSIGNED NOT NULL AUTO_INCREMENT,
  b VARCHAR(50) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'q',
  c DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  d DECIMAL(10,3) UNSIGNED ZEROFILL,
  e ENUM('p','q') NOT NULL DEFAULT 'q',
  f TEXT COMMENT 'notes',
  g BIT(3) DEFAULT b'101',
  h DOUBLE(8,2) DEFAULT '1.5',
  PRIMARY KEY (a),
  KEY kb (b(10)),
  UNIQUE KEY ue (e, a),
  KEY kc (c DESC)
) ENGINE=InnoDB AUTO_INCREMENT=7 DEFAULT CHARSET=utf8mb4 COMMENT='d one';
SHOW CREATE TABLE d1;
SHOW COLUMNS FROM d1;
SHOW INDEX FROM d1;
INSERT INTO d1 (b) VALUES ('x');
SELECT a, b, LENGTH(c), d, e, f, g + 0, h FROM d1;
ALTER TABLE d1 ALTER COLUMN b SET DEFAULT 'z', ALTER COLUMN h DROP DEFAULT;
SHOW CREATE TABLE d1;
ALTER TABLE d1 MODIFY COLUMN e ENUM('p','q','r') NOT NULL DEFAULT 'r';
ALTER TABLE d1 ADD COLUMN (x INT, y INT DEFAULT 2);
ALTER TABLE d1 DROP COLUMN x, DROP COLUMN y;
ALTER TABLE d1 RENAME COLUMN f TO notes;
ALTER TABLE d1 RENAME INDEX kb TO kb2;
ALTER TABLE d1 ADD INDEX IF NOT EXISTS kb2 (b);
ALTER TABLE d1 DROP INDEX IF EXISTS nosuch;
ALTER TABLE d1 ADD COLUMN IF NOT EXISTS notes INT;
ALTER TABLE d1 DROP COLUMN IF EXISTS nosuch;
SHOW CREATE TABLE d1;
ALTER TABLE d1 CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
SHOW CREATE TABLE d1;
ALTER TABLE d1 DROP PRIMARY KEY;
ALTER TABLE d1 MODIFY a INT UNSIGNED NOT NULL, DROP PRIMARY KEY, ADD PRIMARY KEY (a, e);
SHOW INDEX FROM d1;
CREATE TABLE d2 (id INT PRIMARY KEY) SELECT 1 AS id, 'v' AS val;
SHOW CREATE TABLE d2;
CREATE TEMPORARY TABLE tmp1 (a INT);
INSERT INTO tmp1 VALUES (1), (2);
SELECT SUM(a) FROM tmp1;
SHOW TABLES;
CREATE TEMPORARY TABLE d2 (shadow INT);
SELECT * FROM d2;
DROP TEMPORARY TABLE d2;
SELECT * FROM d2;
DROP TEMPORARY TABLE tmp1;
DROP TEMPORARY TABLE tmp1;
CREATE DATABASE sqldiff_ddl_more_x;
CREATE TABLE sqldiff_ddl_more_x.t (a INT);
RENAME TABLE sqldiff_ddl_more_x.t TO d3;
SHOW TABLES FROM sqldiff_ddl_more_x;
DROP DATABASE sqldiff_ddl_more_x;
SELECT * FROM d3;
CREATE TABLE d4 (a INT, b INT, INDEX (a), INDEX (a, b), UNIQUE (b));
SHOW CREATE TABLE d4;
CREATE TABLE d5 (a INT KEY, b INT UNIQUE KEY, c SERIAL);
SHOW CREATE TABLE d5;
CREATE TABLE d6 (a TIMESTAMP, b TIMESTAMP);
SHOW CREATE TABLE d6;
CREATE TABLE d7 (a INT, b INT AS (a * 2) VIRTUAL, c INT AS (a + 1) STORED);
CREATE TABLE d8 (a INT CHECK (a > 0), CONSTRAINT pos CHECK (a < 100));
CREATE TABLE d9 (a INT, FOREIGN KEY (a) REFERENCES d4 (a));
SHOW TABLES;
SHOW CREATE TABLE d7;
CREATE INDEX IF NOT EXISTS kb2 ON d1 (b);
DROP INDEX IF EXISTS nosuch ON d1;
CREATE TABLE bitd (a INT, g BIT(3) DEFAULT b'101', t TIMESTAMP(2) NULL DEFAULT CURRENT_TIMESTAMP(2));
INSERT INTO bitd (a) VALUES (1);
SELECT a, g + 0, LENGTH(t) FROM bitd;
SHOW COLUMNS FROM bitd;
-- type length, precision and scale limits (1439, 1074, 1426, 1425, 1427, 1063) and VARCHAR's 65532 bytes
CREATE TABLE tl1 (a INT(256));
CREATE TABLE tl2 (a BLOB(4294967296));
CREATE TABLE tl2 (a TEXT(4294967296));
CREATE TABLE tl2 (a VARCHAR(4294967296));
CREATE TABLE tl2 (a VARBINARY(4294967296));
CREATE TABLE tl2 (a BLOB(4294967295), b TEXT(2147483648));
SHOW CREATE TABLE tl2;
CREATE TABLE tl3 (a CHAR(256));
CREATE TABLE tl3 (a BINARY(4294967296));
CREATE TABLE tl4 (a VARCHAR(65536));
CREATE TABLE tl4 (a VARCHAR(16384));
CREATE TABLE tl4 (a VARCHAR(70000) CHARACTER SET utf8mb3);
CREATE TABLE tl4 (a VARCHAR(21845) CHARACTER SET utf8mb3);
CREATE TABLE tl4 (a VARCHAR(65533) CHARACTER SET latin1);
CREATE TABLE tl4 (a VARBINARY(65533));
CREATE TABLE tl4 (a VARBINARY(65532));
CREATE TABLE tl4b (b VARCHAR(21844) CHARACTER SET utf8mb3);
CREATE TABLE tl5 (a DECIMAL(66));
CREATE TABLE tl5 (a DECIMAL(4294967296));
CREATE TABLE tl6 (a DECIMAL(10,11));
CREATE TABLE tl6 (a DECIMAL(65,39));
CREATE TABLE tl7 (a FLOAT(54));
CREATE TABLE tl7 (a FLOAT(4294967296));
CREATE TABLE tl7 (a FLOAT(53), b FLOAT(24));
SHOW CREATE TABLE tl7;
CREATE TABLE tl8 (a DOUBLE(256,2));
CREATE TABLE tl8 (a DOUBLE(54,31));
CREATE TABLE tl8 (a FLOAT(10,31));
CREATE TABLE tl8 (a DOUBLE(255,30));
CREATE TABLE tl9 (a TIME(7));
CREATE TABLE tl10 (a DATETIME(7));
CREATE TABLE tl10 (a TIMESTAMP(7));
CREATE TABLE tl11 (a BIT(65));
CREATE TABLE tl11 (a BIT(4294967296));
SET sql_mode = '';
CREATE TABLE tl12 (a VARCHAR(65533) CHARACTER SET latin1, b VARBINARY(70000), c VARCHAR(5000000) CHARACTER SET latin1);
SHOW CREATE TABLE tl12;
SET sql_mode = DEFAULT;
-- OR REPLACE contradicts IF NOT EXISTS: 1221 for every kind of object, and nothing is created
CREATE OR REPLACE DATABASE IF NOT EXISTS orx;
CREATE OR REPLACE SCHEMA IF NOT EXISTS orx;
CREATE OR REPLACE TABLE IF NOT EXISTS ort (a INT);
CREATE OR REPLACE TEMPORARY TABLE IF NOT EXISTS ort (a INT);
CREATE OR REPLACE TABLE IF NOT EXISTS ort LIKE tl2;
CREATE OR REPLACE INDEX IF NOT EXISTS ori ON tl2 (a(10));
CREATE OR REPLACE UNIQUE INDEX IF NOT EXISTS ori ON tl2 (a(10));
CREATE OR REPLACE USER IF NOT EXISTS 'sqldiff_oru'@'%';
CREATE OR REPLACE ROLE IF NOT EXISTS sqldiff_orr;
CREATE OR REPLACE VIEW IF NOT EXISTS orv AS SELECT 1;
SHOW DATABASES LIKE 'orx';
SHOW TABLES LIKE 'or%';
SHOW GRANTS FOR 'sqldiff_oru'@'%';

-- CREATE TABLE (columns) SELECT: the declared columns the SELECT does not name first, then the SELECT's in its
-- order, a declared definition where the names match; keys follow their columns
CREATE TABLE ctas_order (a INT, b INT PRIMARY KEY, c INT, KEY (a)) SELECT 1 AS c, 2 AS x, 3 AS a, 4 AS b;
SHOW CREATE TABLE ctas_order;
SELECT * FROM ctas_order;
CREATE TABLE ctas_order2 (a INT, b INT) SELECT 1 AS a;
SHOW CREATE TABLE ctas_order2;
SELECT * FROM ctas_order2;
DROP TABLE ctas_order, ctas_order2;

-- SHOW CREATE TABLE of a TEMPORARY table: its own name, CREATE TEMPORARY TABLE
CREATE TEMPORARY TABLE tmp_show (a INT PRIMARY KEY, b VARCHAR(10)) DEFAULT CHARSET=utf8mb4;
SHOW CREATE TABLE tmp_show;
DROP TEMPORARY TABLE tmp_show;
-- ALTER TABLE names the columns of the table as it was: each column is changed by one clause at most, renames
-- happen at once (a swap works), and generated columns, CHECKs and keys follow the new names
create table rt (a int, b int, c int);
show create table rt;
alter table rt rename column a to x, rename column b to a;
show create table rt;
alter table rt add column z int, rename column z to zz;
alter table rt rename column x to y, rename column y to w;
alter table rt change x b int, change a x int;
show create table rt;
alter table rt rename column b to c;
alter table rt drop column c, rename column b to c;
show create table rt;
alter table rt rename column c to q, drop column c;
alter table rt rename column c to q, add column c int;
show create table rt;
alter table rt change q c int, change c q int;
show create table rt;
alter table rt modify q bigint, rename column q to r;
show create table rt;
create table rg (a int, b int, s int as (a * 10 + b) stored, v int as (a - b) virtual, check (a < 100), c int check (c > 0), key (s));
insert into rg (a, b, c) values (1, 2, 3);
alter table rg rename column a to b, rename column b to a;
show create table rg;
select * from rg;
alter table rg change c cc int;
show create table rg;
alter table rg add column h int as (a + 1), rename column a to a2;
alter table rg add column h int as (a2 + 1), rename column a to a2;
show create table rg;
select * from rg;
alter table rg modify cc int check (cc > 5);
insert into rg (b, a2, cc) values (1, 1, 3);
show create table rg;
drop table rt, rg;
