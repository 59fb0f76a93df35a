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
