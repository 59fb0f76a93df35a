-- Stored functions that run statements (SELECT ... INTO, cursors, DML), called from statements on tables: their
-- statements run nested in the calling one, in its transaction (session/sp_exec.c, sql/exec/evalctx.c); a
-- function may not change a table the calling statement uses (1442); routine variables named like columns in
-- the column positions of INSERT / UPDATE (sql/parser/sp_parse.c rewrite); what CREATE FUNCTION refuses.
CREATE TABLE names (id INT PRIMARY KEY, name VARCHAR(20));
INSERT INTO names VALUES (1, 'one'), (2, 'two'), (3, 'three');
CREATE TABLE t (a INT PRIMARY KEY, b INT);
INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40);
CREATE TABLE logt (id INT AUTO_INCREMENT PRIMARY KEY, v INT);
CREATE TABLE seq (id INT PRIMARY KEY);
INSERT INTO seq VALUES (100);
DELIMITER //
CREATE FUNCTION name_of(i INT) RETURNS VARCHAR(20) READS SQL DATA
BEGIN
  DECLARE n VARCHAR(20);
  SELECT name INTO n FROM names WHERE id = i;
  RETURN n;
END//
CREATE FUNCTION cnt_names() RETURNS INT READS SQL DATA RETURN (SELECT COUNT(*) FROM names)//
CREATE FUNCTION logit(v INT) RETURNS INT MODIFIES SQL DATA
BEGIN
  INSERT INTO logt (v) VALUES (v);
  RETURN v * 2;
END//
CREATE FUNCTION next_id() RETURNS INT MODIFIES SQL DATA
BEGIN
  UPDATE seq SET id = LAST_INSERT_ID(id + 1);
  RETURN LAST_INSERT_ID();
END//
CREATE FUNCTION bad_t() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE t SET b = b + 1; RETURN 1; END//
CREATE FUNCTION sum_cur() RETURNS INT READS SQL DATA
BEGIN
  DECLARE done INT DEFAULT 0;
  DECLARE v, s INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT id FROM names;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN c;
  l: LOOP
    FETCH c INTO v;
    IF done THEN LEAVE l; END IF;
    SET s = s + v;
  END LOOP;
  CLOSE c;
  RETURN s;
END//
CREATE FUNCTION fails() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO logt (id, v) VALUES (1, 0); RETURN 1; END//
DELIMITER ;
SELECT a, name_of(a) FROM t ORDER BY a;
SELECT a FROM t WHERE name_of(a) = 'two';
SELECT a, cnt_names(), sum_cur() FROM t ORDER BY a;
SELECT a, logit(a) FROM t ORDER BY a;
SELECT * FROM logt ORDER BY id;
INSERT INTO t VALUES (next_id(), 0);
INSERT INTO t SELECT next_id(), a FROM t WHERE a < 3;
SELECT * FROM t ORDER BY a;
SELECT * FROM seq;
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT a, bad_t() FROM t;
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
UPDATE t SET b = bad_t() WHERE a = 1;
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
DELETE FROM t WHERE a = bad_t();
UPDATE t SET b = logit(b) WHERE a <= 2;
SELECT * FROM t ORDER BY a;
SELECT COUNT(*) FROM logt;
INSERT INTO names VALUES (10, name_of(1));
SELECT * FROM names ORDER BY id;
-- an error inside the function fails the calling statement: its rows and the function's go together
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT a, fails() FROM t ORDER BY a;
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
UPDATE t SET b = b + fails();
SELECT COUNT(*) FROM logt;
SELECT * FROM t ORDER BY a;
START TRANSACTION;
SELECT a, logit(100 + a) FROM t WHERE a < 3 ORDER BY a;
SELECT COUNT(*) FROM logt;
ROLLBACK;
SELECT COUNT(*) FROM logt;
DELETE FROM t WHERE a = cnt_names() + 1;
SELECT * FROM t ORDER BY a;
SELECT (SELECT name_of(2)) x, name_of(3) FROM names WHERE id = 1;
SELECT GROUP_CONCAT(name_of(a) ORDER BY a) FROM t;
SELECT name_of(a) n, COUNT(*) FROM t GROUP BY n ORDER BY n;
CREATE TABLE t2 AS SELECT a, name_of(a) n FROM t;
SELECT * FROM t2 ORDER BY a;
-- variables named like columns: the column in INSERT's column list and as UPDATE's SET target, the variable
-- in the expressions
CREATE TABLE cv (v INT, b INT);
INSERT INTO cv VALUES (1, 1);
DELIMITER //
CREATE PROCEDURE pv(v INT)
BEGIN
  INSERT INTO cv (v, b) VALUES (v, v);
  UPDATE cv SET b = v WHERE b = 1;
  INSERT INTO cv (v) SELECT v FROM cv LIMIT 1;
  SELECT v, EXTRACT(YEAR FROM '2024-01-02') y, (SELECT COUNT(*) FROM cv) c FROM cv ORDER BY 1, 2 LIMIT 1;
  SELECT * FROM cv ORDER BY 1, 2;
END//
DELIMITER ;
CALL pv(7);
-- what CREATE FUNCTION refuses
DELIMITER //
CREATE FUNCTION c1() RETURNS INT BEGIN COMMIT; RETURN 1; END//
CREATE FUNCTION c2() RETURNS INT BEGIN START TRANSACTION; RETURN 1; END//
CREATE FUNCTION c3() RETURNS INT BEGIN CREATE TABLE x (a INT); RETURN 1; END//
CREATE FUNCTION c4() RETURNS INT BEGIN LOCK TABLES t READ; RETURN 1; END//
CREATE PROCEDURE c4p() BEGIN UNLOCK TABLES; END//
CREATE FUNCTION c6() RETURNS INT BEGIN ROLLBACK TO SAVEPOINT x; RETURN 1; END//
CREATE FUNCTION c7() RETURNS INT BEGIN SAVEPOINT x; RETURN 1; END//
CREATE FUNCTION c8() RETURNS INT BEGIN ANALYZE TABLE t; RETURN 1; END//
CREATE FUNCTION c9() RETURNS INT BEGIN SET autocommit = 1; RETURN 1; END//
CREATE TRIGGER tr9 BEFORE INSERT ON t FOR EACH ROW SET @@autocommit = 0//
CREATE PROCEDURE p1() BEGIN COMMIT; END//
DELIMITER ;
SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() ORDER BY ROUTINE_NAME;
-- a routine runs under the sql_mode it was created with, whatever the caller's
SET sql_mode = '';
CREATE FUNCTION f_loose() RETURNS TINYINT RETURN 1000;
CREATE PROCEDURE p_loose() BEGIN DECLARE x TINYINT DEFAULT 0; SET x = 1000; SELECT x, @@sql_mode; END;
SET sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO';
CREATE FUNCTION f_strict() RETURNS TINYINT RETURN 1000;
CREATE PROCEDURE p_strict() BEGIN DECLARE x TINYINT DEFAULT 0; SET x = 1000; SELECT x; END;
SELECT f_loose();
-- @diff CALL's OK counts its body's warnings (DIFFERENCES.md)
CALL p_loose();
SELECT @@sql_mode;
SET sql_mode = '';
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT f_strict();
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
CALL p_strict();
SELECT a, f_loose() FROM t ORDER BY a LIMIT 2;
SELECT @@sql_mode;
SET sql_mode = DEFAULT;
-- x/0 into a routine's variable (SET, DEFAULT, RETURN) is 1365 under strict mode with ERROR_FOR_DIVISION_BY_ZERO,
-- as into a column; a SELECT's is NULL with the warning
SET sql_mode = 'TRADITIONAL';
DELIMITER //
CREATE FUNCTION dz1() RETURNS INT RETURN 1/0//
CREATE FUNCTION dz2() RETURNS INT BEGIN DECLARE x INT; SET x = 1/0; RETURN x; END//
CREATE PROCEDURE dzp1() BEGIN DECLARE x INT; SET x = 1/0; SELECT x; END//
CREATE PROCEDURE dzp2() BEGIN DECLARE x INT DEFAULT 1/0; SELECT x; END//
CREATE PROCEDURE dzp3() BEGIN SELECT 1/0; END//
DELIMITER ;
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT dz1();
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT dz2();
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
CALL dzp1();
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
CALL dzp2();
-- @diff CALL's OK counts its body's warnings (DIFFERENCES.md)
CALL dzp3();
SET sql_mode = '';
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT dz1();
SET sql_mode = DEFAULT;
-- a session's parsed routines follow DDL: a replaced function runs its new body, a dropped one is 1305; a
-- routine may not drop or alter one (1357)
DELIMITER //
CREATE FUNCTION fv() RETURNS INT RETURN 1//
DELIMITER ;
SELECT a, fv() FROM t ORDER BY a LIMIT 2;
CREATE OR REPLACE FUNCTION fv() RETURNS INT RETURN 2;
SELECT a, fv() FROM t ORDER BY a LIMIT 2;
DROP FUNCTION fv;
SELECT fv();
CREATE PROCEDURE pd1() DROP PROCEDURE IF EXISTS x;
CREATE PROCEDURE pd2() ALTER FUNCTION dz1 COMMENT 'x';
CREATE PROCEDURE pd3() DROP FUNCTION IF EXISTS dz1;
CREATE FUNCTION pd4() RETURNS INT BEGIN ALTER PROCEDURE dzp1 COMMENT 'x'; RETURN 1; END;
