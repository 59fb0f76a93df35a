-- Variables and session state: SET forms, @@ variables in expressions, user variables across statements,
-- SHOW VARIABLES patterns, information functions after statements, multi-statement side effects.
SET @a = 1, @b = 'x';
SET @c := @a + 10;
SELECT @a, @b, @c, @a := @a + 1, @a;
SELECT @@session.sql_mode = @@sql_mode, @@global.max_connections > 0, @@autocommit, @@SESSION.autocommit, @@local.autocommit;
SET SESSION sql_mode = 'ANSI_QUOTES';
-- @diff sql_mode ANSI_QUOTES is not applied by the parser: "a" stays a string
SELECT "a" = 'a';
SET sql_mode = DEFAULT;
SET @@session.time_zone = '+01:00';
SELECT @@time_zone;
SET time_zone = DEFAULT;
SELECT @@time_zone;
SET NAMES utf8mb4;
SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection;
SET NAMES utf8mb4 COLLATE utf8mb4_bin;
SELECT @@collation_connection;
SET NAMES utf8mb4;
SET CHARACTER SET utf8mb4;
SELECT @@character_set_results;
SET @@nosuch = 1;
SET GLOBAL nosuch = 1;
SET SESSION max_allowed_packet = 1024;
SET autocommit = 'maybe';
SET sql_mode = 'NOSUCH';
-- @diff subqueries in SET are not supported (1235); SELECT @x := (SELECT ...) works
SET @x = (SELECT 1);
-- @diff follows from the SET above
SELECT @x;
-- @diff subqueries in SET are not supported (1235)
SET @y = (SELECT 1 UNION SELECT 2);
CREATE TABLE v (a INT);
INSERT INTO v VALUES (1), (2), (3);
SELECT @s := SUM(a) FROM v;
-- @diff a user variable holding a DECIMAL: MariaDB's arithmetic on it shows 38 decimals, strata the value's own
SELECT @s * 2;
SET @n = 0;
SELECT a, @n := @n + a AS running FROM v ORDER BY a;
SELECT @n;
SHOW VARIABLES LIKE 'sql\_mode';
SHOW VARIABLES LIKE 'auto_increment_%';
SHOW SESSION VARIABLES LIKE 'time_zone';
SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'AUTOCOMMIT';
SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('SQL_MODE', 'AUTO_INCREMENT_OFFSET') ORDER BY 1;
SELECT COUNT(*) > 0 FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME LIKE 'COM_%';
SELECT VARIABLE_NAME FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME';
SET @@auto_increment_increment = 5;
CREATE TABLE ai5 (id INT AUTO_INCREMENT PRIMARY KEY, v INT);
INSERT INTO ai5 (v) VALUES (1), (2), (3);
SELECT id FROM ai5 ORDER BY id;
SET @@auto_increment_increment = DEFAULT;
INSERT INTO ai5 (v) VALUES (4);
SELECT id FROM ai5 ORDER BY id;
SELECT 1; SELECT 2;
