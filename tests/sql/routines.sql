-- Stored procedures and functions: CREATE / DROP / SHOW, the body language, CALL's result sets, handlers,
-- cursors, SIGNAL / RESIGNAL, GET DIAGNOSTICS, recursion limits (session/sp_exec.c, sql/parser/sp_parse.c).
CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(20));
INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');

DELIMITER //
CREATE PROCEDURE p_sum(IN n INT, OUT s INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  SET s = 0;
  WHILE i < n DO
    SET i = i + 1;
    SET s = s + i;
  END WHILE;
END//
CREATE FUNCTION f_double(x INT) RETURNS INT DETERMINISTIC RETURN x * 2//
CREATE FUNCTION f_name(x INT) RETURNS VARCHAR(20) CHARSET latin1 READS SQL DATA COMMENT 'looks up b'
BEGIN
  DECLARE r VARCHAR(20);
  SELECT b INTO r FROM t WHERE a = x;
  RETURN r;
END//
CREATE PROCEDURE p_results(lim INT)
  READS SQL DATA
  SQL SECURITY INVOKER
BEGIN
  SELECT a, b FROM t WHERE a <= lim ORDER BY a;
  SELECT lim AS the_limit, f_double(lim);
END//
DELIMITER ;

SHOW CREATE PROCEDURE p_sum;
SHOW CREATE FUNCTION f_double;
SHOW CREATE FUNCTION f_name;
SHOW CREATE PROCEDURE p_results;
SELECT ROUTINE_NAME, ROUTINE_TYPE, DTD_IDENTIFIER, ROUTINE_BODY, IS_DETERMINISTIC, SQL_DATA_ACCESS, SECURITY_TYPE, ROUTINE_COMMENT, DEFINER FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() ORDER BY ROUTINE_NAME;
SELECT ROUTINE_DEFINITION FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = 'p_sum';
SHOW PROCEDURE STATUS WHERE Db = DATABASE() AND Name LIKE 'p_%';
SELECT Name, Type, Security_type, Comment FROM information_schema.ROUTINES r JOIN (SELECT 1) x WHERE 0;

CALL p_sum(10, @s);
SELECT @s;
CALL p_sum(0, @s);
SELECT @s;
SELECT f_double(21), f_double(NULL), f_name(2), f_name(9);
SELECT a, f_double(a) FROM t WHERE f_double(a) > 2 ORDER BY a;
CALL p_results(2);
CALL p_results(0);

-- errors of CREATE, DROP and CALL
DELIMITER //
CREATE PROCEDURE p_sum() BEGIN END//
CREATE PROCEDURE IF NOT EXISTS p_sum() BEGIN END//
CREATE FUNCTION f_noreturn() RETURNS INT DETERMINISTIC BEGIN DECLARE x INT; SET x = 1; END//
CREATE PROCEDURE p_ret() RETURN 1//
CREATE PROCEDURE p_undeclared() BEGIN SELECT 1 INTO nosuch; END//
CREATE PROCEDURE p_order() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END//
CREATE PROCEDURE p_order2() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END; DECLARE c CURSOR FOR SELECT 1; END//
CREATE PROCEDURE p_label() BEGIN l1: LOOP LEAVE l2; END LOOP; END//
CREATE PROCEDURE p_dupvar() BEGIN DECLARE x INT; DECLARE x INT; END//
CREATE PROCEDURE p_dupparam(a INT, a INT) BEGIN END//
CREATE FUNCTION f_rs() RETURNS INT DETERMINISTIC BEGIN SELECT 1; RETURN 1; END//
CREATE PROCEDURE p_badstate() BEGIN DECLARE CONTINUE HANDLER FOR SQLSTATE '00000' BEGIN END; END//
CREATE PROCEDURE p_nocursor() BEGIN OPEN c; END//
CREATE PROCEDURE p_nocond() BEGIN SIGNAL nosuch; END//
DELIMITER ;
DROP PROCEDURE nosuch;
DROP PROCEDURE IF EXISTS nosuch;
DROP FUNCTION nosuch;
CALL nosuch();
CALL p_sum(1);
CALL p_sum(1, 2);
SELECT nosuch_fn(1);
SELECT f_double(1, 2);

-- control flow
DELIMITER //
CREATE PROCEDURE p_flow(x INT)
BEGIN
  DECLARE r VARCHAR(100) DEFAULT '';
  DECLARE i INT DEFAULT 0;
  IF x < 0 THEN SET r = 'negative';
  ELSEIF x = 0 THEN SET r = 'zero';
  ELSE SET r = 'positive';
  END IF;
  CASE x WHEN 1 THEN SET r = CONCAT(r, ' one'); WHEN 2 THEN SET r = CONCAT(r, ' two'); ELSE SET r = CONCAT(r, ' many'); END CASE;
  CASE WHEN x > 10 THEN SET r = CONCAT(r, ' big'); ELSE BEGIN END; END CASE;
  outer_loop: REPEAT
    SET i = i + 1;
    IF i = 2 THEN ITERATE outer_loop; END IF;
    SET r = CONCAT(r, ' ', i);
  UNTIL i >= 4 END REPEAT outer_loop;
  lp: LOOP
    SET i = i - 1;
    IF i <= 1 THEN LEAVE lp; END IF;
  END LOOP lp;
  blk: BEGIN
    SET r = CONCAT(r, ' in');
    LEAVE blk;
    SET r = CONCAT(r, ' never');
  END blk;
  SELECT r, i;
END//
CREATE PROCEDURE p_case(x INT) BEGIN CASE x WHEN 1 THEN SELECT 'one'; END CASE; END//
CREATE PROCEDURE p_scope()
BEGIN
  DECLARE x INT DEFAULT 1;
  BEGIN
    DECLARE x INT DEFAULT 2;
    SELECT x AS inner_x;
  END;
  SELECT x AS outer_x;
END//
DELIMITER ;
CALL p_flow(-5);
CALL p_flow(0);
CALL p_flow(2);
CALL p_flow(20);
CALL p_case(1);
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
CALL p_case(2);
CALL p_scope();

-- SELECT ... INTO, DML inside, OUT / INOUT
DELIMITER //
CREATE PROCEDURE p_dml(INOUT n INT, OUT cnt INT)
BEGIN
  INSERT INTO t VALUES (n, CONCAT('n', n));
  UPDATE t SET b = UPPER(b) WHERE a = n;
  SELECT COUNT(*) INTO cnt FROM t;
  SET n = n * 10;
END//
CREATE PROCEDURE p_into()
BEGIN
  DECLARE v VARCHAR(20) DEFAULT 'unset';
  SELECT b INTO v FROM t WHERE a = 999;
  SELECT v;
  SELECT b INTO v FROM t;
END//
DELIMITER ;
SET @n = 10;
CALL p_dml(@n, @c);
SELECT @n, @c;
SELECT * FROM t ORDER BY a;
CALL p_dml(@n, @c);
CALL p_dml(@n, @c);
SELECT @n;
CALL p_into();

-- handlers: CONTINUE and EXIT, their scope, cursors and NOT FOUND
DELIMITER //
CREATE PROCEDURE p_cursor(OUT total INT, OUT cnt INT)
BEGIN
  DECLARE done INT DEFAULT 0;
  DECLARE v INT;
  DECLARE c CURSOR FOR SELECT a FROM t ORDER BY a;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  SET total = 0, cnt = 0;
  OPEN c;
  rd: LOOP
    FETCH c INTO v;
    IF done THEN LEAVE rd; END IF;
    SET total = total + v;
    SET cnt = cnt + 1;
  END LOOP;
  CLOSE c;
END//
CREATE PROCEDURE p_nf()
BEGIN
  DECLARE v INT;
  DECLARE c CURSOR FOR SELECT a FROM t WHERE a > 1000;
  OPEN c;
  FETCH c INTO v;
END//
CREATE PROCEDURE p_curerr()
BEGIN
  DECLARE v INT;
  DECLARE c CURSOR FOR SELECT a FROM t;
  OPEN c;
  OPEN c;
END//
CREATE PROCEDURE p_exit()
BEGIN
  DECLARE EXIT HANDLER FOR SQLEXCEPTION
  BEGIN
    GET DIAGNOSTICS CONDITION 1 @errno = MYSQL_ERRNO, @msg = MESSAGE_TEXT, @state = RETURNED_SQLSTATE;
    SELECT 'caught', @errno, @msg, @state;
  END;
  INSERT INTO t VALUES (1, 'dup');
  SELECT 'not reached';
END//
CREATE PROCEDURE p_continue()
BEGIN
  DECLARE CONTINUE HANDLER FOR 1062 SET @dups = @dups + 1;
  SET @dups = 0;
  INSERT INTO t VALUES (1, 'dup');
  INSERT INTO t VALUES (2, 'dup');
  SELECT 'after', @dups;
END//
CREATE PROCEDURE p_hscope()
BEGIN
  DECLARE CONTINUE HANDLER FOR SQLSTATE '23000' SELECT 'outer handler';
  BEGIN
    DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SELECT 'inner handler';
    INSERT INTO t VALUES (1, 'dup');
  END;
  INSERT INTO t VALUES (1, 'dup');
  BEGIN
    DECLARE dup CONDITION FOR 1062;
    DECLARE CONTINUE HANDLER FOR dup SELECT 'named condition';
    INSERT INTO t VALUES (1, 'dup');
  END;
END//
CREATE PROCEDURE p_unhandled()
BEGIN
  DECLARE CONTINUE HANDLER FOR 1146 SELECT 'no table';
  INSERT INTO t VALUES (1, 'dup');
  SELECT 'not reached';
END//
CREATE PROCEDURE p_warn()
BEGIN
  DECLARE CONTINUE HANDLER FOR SQLWARNING SELECT 'warning handled';
  SELECT CAST('1x' AS SIGNED) INTO @w;
  SELECT @w;
END//
DELIMITER ;
CALL p_cursor(@t, @c);
SELECT @t, @c;
CALL p_nf();
CALL p_curerr();
CALL p_exit();
CALL p_continue();
CALL p_hscope();
CALL p_unhandled();
CALL p_warn();

-- SIGNAL and RESIGNAL, a SIGNAL inside a handler
DELIMITER //
CREATE PROCEDURE p_signal(x INT)
BEGIN
  IF x < 0 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative value', MYSQL_ERRNO = 1234;
  END IF;
  IF x = 0 THEN
    SIGNAL SQLSTATE '45001';
  END IF;
  SELECT x;
END//
CREATE PROCEDURE p_resignal()
BEGIN
  DECLARE CONTINUE HANDLER FOR SQLSTATE '45000'
  BEGIN
    RESIGNAL SET MESSAGE_TEXT = 'resignalled';
  END;
  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'first';
END//
CREATE PROCEDURE p_sig_in_handler()
BEGIN
  DECLARE EXIT HANDLER FOR 1062
    SIGNAL SQLSTATE 'HY000' SET MESSAGE_TEXT = 'duplicate refused', MYSQL_ERRNO = 5001;
  INSERT INTO t VALUES (1, 'dup');
END//
CREATE PROCEDURE p_sig_caught()
BEGIN
  DECLARE msg VARCHAR(100);
  DECLARE CONTINUE HANDLER FOR SQLSTATE '45000'
  BEGIN
    GET DIAGNOSTICS CONDITION 1 msg = MESSAGE_TEXT;
  END;
  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'to be caught';
  SELECT msg;
END//
CREATE PROCEDURE p_resignal_outside() RESIGNAL//
DELIMITER ;
CALL p_signal(5);
CALL p_signal(-1);
CALL p_signal(0);
CALL p_resignal();
CALL p_sig_in_handler();
CALL p_sig_caught();
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
CALL p_resignal_outside();

-- recursion: procedures up to max_sp_recursion_depth, functions never
DELIMITER //
CREATE PROCEDURE p_rec(n INT)
BEGIN
  IF n > 0 THEN CALL p_rec(n - 1); END IF;
  SELECT n;
END//
CREATE FUNCTION f_rec(n INT) RETURNS INT DETERMINISTIC
BEGIN
  IF n <= 1 THEN RETURN 1; END IF;
  RETURN n * f_rec(n - 1);
END//
CREATE FUNCTION f_fact(n INT) RETURNS BIGINT DETERMINISTIC
BEGIN
  DECLARE r BIGINT DEFAULT 1;
  WHILE n > 1 DO
    SET r = r * n, n = n - 1;
  END WHILE;
  RETURN r;
END//
CREATE FUNCTION f_end() RETURNS INT DETERMINISTIC
BEGIN
  IF FALSE THEN RETURN 1; END IF;
END//
DELIMITER ;
CALL p_rec(2);
SET max_sp_recursion_depth = 2;
CALL p_rec(2);
CALL p_rec(3);
SET max_sp_recursion_depth = DEFAULT;
SELECT @@max_sp_recursion_depth;
-- @diff note 4094's line: MariaDB's is its parser's position after some statements (DIFFERENCES.md)
SELECT f_rec(3);
SELECT f_fact(10), f_fact(1);
SELECT f_end();

-- OR REPLACE, DROP, and what is left
DELIMITER //
CREATE OR REPLACE FUNCTION f_double(x INT) RETURNS INT DETERMINISTIC RETURN x * 3//
DELIMITER ;
SELECT f_double(2);
DROP FUNCTION f_double;
SELECT f_double(2);
DROP PROCEDURE p_sum;
DROP FUNCTION IF EXISTS f_name;
DROP FUNCTION IF EXISTS f_name;
SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() ORDER BY ROUTINE_NAME;
