-- Values beyond a column's range, through INSERT, INSERT ... SELECT and UPDATE, strict and not: every one is
-- stored clamped (with MariaDB's warnings) or refused with its error, and every stored row reaches the binlog
-- (a value the row encoder could not write used to fail the statement with 1598).
CREATE TABLE r (k INT PRIMARY KEY AUTO_INCREMENT, d DOUBLE, f FLOAT, d52 DOUBLE(5,2), f52 FLOAT(5,2),
  du DOUBLE UNSIGNED, dc DECIMAL(5,2), dc65 DECIMAL(65,0), dc30 DECIMAL(65,30), tm TIME, tm2 TIME(2));
-- strict: the errors
INSERT INTO r (d) VALUES ('1e1000');
INSERT INTO r (d) VALUES ('-1e1000');
INSERT INTO r (f) VALUES ('1e39');
INSERT INTO r (d) VALUES (1e308 * 10);
INSERT INTO r (dc) VALUES ('1e1000');
INSERT INTO r (dc) VALUES ('-1e1000');
INSERT INTO r (dc65) VALUES (1e66);
INSERT INTO r (dc65) VALUES ('1e66');
INSERT INTO r (d52) VALUES ('1e1000');
INSERT INTO r (tm) VALUES (1e300);
INSERT INTO r (tm) VALUES (-1e300);
INSERT INTO r (dc65, dc30) VALUES (1e64, 1e34);
INSERT INTO r (dc30) VALUES (1.5e-20);
SELECT k, dc65, dc30 FROM r;
UPDATE r SET dc = '1e1000';
UPDATE r SET dc65 = 1e66;
INSERT IGNORE INTO r (dc, d) VALUES ('1e1000', '-1e1000');
UPDATE IGNORE r SET dc = '-1e1000', dc65 = -1e300;
SELECT k, d, dc, dc65 FROM r ORDER BY k;
-- non-strict: warnings and clamped values
SET sql_mode = '';
DELETE FROM r;
INSERT INTO r (d, f, d52, f52, du) VALUES ('1e1000', '1e1000', '1e1000', '1e1000', '1e1000');
INSERT INTO r (d, f, d52, f52, du) VALUES ('-1e1000', '-1e1000', '-1e1000', '-1e1000', '-1e1000');
INSERT INTO r (d, f, d52, f52, du) VALUES (1e300, -1e300, 1e300, -1e300, -1e300);
INSERT INTO r (d, f) VALUES (-0.0, -0.0e0);
INSERT INTO r (dc, dc65, dc30) VALUES ('1e1000', 1e66, 1e40);
INSERT INTO r (dc, dc65, dc30) VALUES ('-1e1000', -1e66, '-1e1000');
INSERT INTO r (dc, dc65, dc30) VALUES (1e300, 1e64, 1e34);
INSERT INTO r (tm, tm2) VALUES (1e300, 1e300);
INSERT INTO r (tm, tm2) VALUES (-1e300, '9999:00:00');
INSERT INTO r (tm, tm2) VALUES (-8385959.5, 8385959.99);
INSERT INTO r (tm, tm2) VALUES (99999999, 9999999.5);
SELECT * FROM r ORDER BY k;
UPDATE r SET dc = '1e1000', d = '-1e1000' WHERE d = 0;
UPDATE r SET d = 1e308 * 10;
SELECT k, d, dc FROM r WHERE k > 3 ORDER BY k;
-- INSERT ... SELECT from text beyond the double range
CREATE TABLE rs (s VARCHAR(20));
INSERT INTO rs VALUES ('1e1000'), ('-1e1000'), ('1e300');
INSERT INTO r (dc) SELECT s FROM rs;
INSERT INTO r (f) SELECT s FROM rs;
INSERT INTO r (dc65) SELECT s FROM rs;
SELECT k, f, dc, dc65 FROM r WHERE k > 11 ORDER BY k;
SET sql_mode = DEFAULT;
INSERT INTO r (dc) SELECT s FROM rs;
-- text beyond the double range in expressions saturates at DBL_MAX (1292), as MariaDB's strtod
SELECT '1e1000' + 0.0, '-1e1000' * 1, CAST('1e1000' AS DOUBLE);
-- a DEFAULT must be storable
CREATE TABLE rd (dc DECIMAL(5,2) DEFAULT '1e1000');
CREATE TABLE rd (d DOUBLE DEFAULT '1e1000');
CREATE TABLE rd (f FLOAT DEFAULT 1e300);
