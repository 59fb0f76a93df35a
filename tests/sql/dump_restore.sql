-- What a mariadb-dump restore relies on: NO_AUTO_VALUE_ON_ZERO (the dump's SQL_MODE) keeps an AUTO_INCREMENT
-- value 0, CHARACTER SET binary on a character type makes the binary type, identifiers that need quoting.
CREATE TABLE ai (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT);
SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO';
INSERT INTO ai VALUES (0, 1), (5, 2);
INSERT INTO ai (v) VALUES (3);
INSERT INTO ai VALUES (NULL, 4);
SELECT LAST_INSERT_ID();
SET sql_mode = DEFAULT;
INSERT INTO ai VALUES (0, 5);
SELECT LAST_INSERT_ID();
SELECT * FROM ai ORDER BY id;
SHOW CREATE TABLE ai;
CREATE TABLE bin_cs (c CHAR(4) CHARACTER SET binary, v VARCHAR(10) CHARSET binary, t TEXT CHARACTER SET binary,
  tt TINYTEXT CHARACTER SET binary, m MEDIUMTEXT CHARACTER SET binary, l LONGTEXT CHARACTER SET binary) DEFAULT CHARSET=latin1;
SHOW CREATE TABLE bin_cs;
INSERT INTO bin_cs (c, v, t) VALUES ('ab', 'Ab', 'x');
SELECT HEX(c), LENGTH(c), v = 'ab', v = 'Ab', t FROM bin_cs;
-- @meta
SELECT c, v, t FROM bin_cs;
CREATE TABLE `odd name``s` (`order` INT NOT NULL PRIMARY KEY, `select` VARCHAR(10) DEFAULT 'a''b' COMMENT 'it''s "q"',
  `a b` INT, UNIQUE KEY `u ``x` (`select`, `a b`));
SHOW CREATE TABLE `odd name``s`;
INSERT INTO `odd name``s` VALUES (1, 'x', 1), (2, DEFAULT, NULL);
SELECT * FROM `odd name``s` ORDER BY `order`;
-- DEFAULT (expr): kept as an expression and evaluated for each row (not folded at CREATE TABLE), shown as
-- MariaDB prints it
CREATE TABLE dflt (id INT PRIMARY KEY, a INT DEFAULT (1+1), u VARCHAR(40) DEFAULT (UUID()), c DATE DEFAULT (CURDATE()),
  r DOUBLE DEFAULT (RAND()), s VARCHAR(10) DEFAULT (CONCAT('a','b')), n DATETIME DEFAULT (NOW()), m INT DEFAULT (5),
  x INT DEFAULT (-3), y VARCHAR(20) DEFAULT (LPAD('x', 3, '-')), q VARCHAR(20) DEFAULT (CONCAT('it''s', 'a\\b')),
  w INT DEFAULT (ABS(-4) + 1), UNIQUE KEY (u));
SHOW CREATE TABLE dflt;
INSERT INTO dflt (id) VALUES (1), (2);
INSERT INTO dflt (id, u) VALUES (3, DEFAULT);
SELECT id, a, LENGTH(u), c = CURDATE(), r < 1, s, n IS NOT NULL, m, x, y, q, w FROM dflt ORDER BY id;
SELECT COUNT(DISTINCT u) FROM dflt;
UPDATE dflt SET s = 'zz' WHERE id = 1;
UPDATE dflt SET s = DEFAULT WHERE id = 1;
SELECT s FROM dflt WHERE id = 1;
SELECT COLUMN_NAME, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'dflt' ORDER BY ORDINAL_POSITION;
ALTER TABLE dflt ADD COLUMN u2 VARCHAR(40) DEFAULT (UUID());
SELECT COUNT(DISTINCT u2) FROM dflt;
ALTER TABLE dflt ALTER COLUMN m SET DEFAULT (FLOOR(7.5));
CREATE TABLE dflt2 (a INT DEFAULT (1+2*3), b INT DEFAULT ((1+2)*3), d DOUBLE DEFAULT (-RAND()), e INT DEFAULT (10 DIV 3),
  f INT DEFAULT (10 % 3), g VARCHAR(9) DEFAULT (IF(1,'a','b')), h INT DEFAULT (1-(2-3)), i DOUBLE DEFAULT (2/4),
  j INT DEFAULT (-(1)), k VARCHAR(10) DEFAULT (UPPER('x')), l DATE DEFAULT (CURRENT_DATE), o INT DEFAULT 7,
  t DATETIME(3) DEFAULT (NOW(3)));
SHOW CREATE TABLE dflt2;
INSERT INTO dflt2 () VALUES ();
SELECT a, b, d <= 0, e, f, g, h, i, j, k, l = CURDATE(), o, LENGTH(t) FROM dflt2;
