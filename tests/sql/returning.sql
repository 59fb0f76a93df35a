-- INSERT / REPLACE / DELETE ... RETURNING (MariaDB 10.5+): the result set instead of the OK, its column
-- metadata, the row as written (defaults, AUTO_INCREMENT, ON DUPLICATE KEY UPDATE's row, REPLACE's new row,
-- DELETE's old row), and the errors MariaDB gives.
CREATE TABLE r1 (id INT AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10), b INT DEFAULT 5, c DECIMAL(6,2) DEFAULT 1.50,
  d DATE DEFAULT '2024-01-02', u INT UNSIGNED NULL, UNIQUE KEY (a));
-- @types
INSERT INTO r1 (a) VALUES ('x'), ('y') RETURNING id, a, b, c, d, u;
-- @types
INSERT INTO r1 (a, b) VALUES ('z', 7) RETURNING *;
-- @types
INSERT INTO r1 (a) VALUES ('w') RETURNING id AS ident, b * 2 AS bb, CONCAT(a, '!'), a, 1.5, NULL, UPPER(a) up;
INSERT INTO r1 SET a = 'v', b = 9 RETURNING id, LENGTH(a), b + id;
INSERT INTO r1 (a) VALUES ('k') RETURNING r1.id, r1.a;
INSERT INTO r1 (a) VALUES ('k2') RETURNING LAST_INSERT_ID() = id;
CREATE TABLE r2 (k INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO r2 VALUES (1, 'one'), (2, 'two');
INSERT INTO r1 (a) VALUES ('k4') RETURNING id, (SELECT v FROM r2 WHERE k = 2) AS sub;
INSERT INTO r1 (a) VALUES ('k5') RETURNING id, EXISTS (SELECT 1 FROM r2 WHERE k = 9) AS e;
-- INSERT ... SELECT ... RETURNING
INSERT INTO r1 (a, b) SELECT CONCAT('s', v), k FROM r2 ORDER BY k RETURNING id, a, b;
INSERT INTO r1 (a, b) SELECT CONCAT('t', v), k FROM r2 WHERE k > 10 RETURNING id;
INSERT INTO r1 (a) SELECT CONCAT(a, '_') FROM r1 WHERE a IN ('x', 'y') ORDER BY a RETURNING id, a;
-- duplicates: IGNORE skips the row, ON DUPLICATE KEY UPDATE returns the updated row
INSERT IGNORE INTO r1 (a) VALUES ('x'), ('new1') RETURNING id, a;
SHOW WARNINGS;
INSERT INTO r1 (a, b) VALUES ('x', 1), ('new2', 2) ON DUPLICATE KEY UPDATE b = b + 100 RETURNING id, a, b;
INSERT INTO r1 (a, b) VALUES ('x', 1) ON DUPLICATE KEY UPDATE b = VALUES(b) RETURNING a, b;
INSERT INTO r1 (a) VALUES ('x') RETURNING id;
INSERT INTO r1 (a) VALUES ('x9') RETURNING nosuch;
INSERT INTO r1 (a) VALUES ('x9') RETURNING r2.k;
INSERT INTO r1 (a) VALUES ('x9') RETURNING MAX(id);
INSERT INTO r1 (a) VALUES ('x9') RETURNING COUNT(*);
INSERT INTO r1 (a) VALUES ('x9') RETURNING (SELECT COUNT(*) FROM r1);
INSERT INTO r1 SET a = 'x9' RETURNING id, (SELECT COUNT(*) FROM r1);
INSERT INTO r1 (a) VALUES ('x8') RETURNING (SELECT COUNT(*) FROM (SELECT * FROM r1) AS dt);
INSERT INTO r1 (a) SELECT 'x9' FROM r2 WHERE k = 1 RETURNING (SELECT COUNT(*) FROM r2);
INSERT INTO r1 (a) VALUES ('x9') RETURNING id, *;
INSERT INTO r1 (a) VALUES ('x9') RETURNING;
SELECT COUNT(*) FROM r1 WHERE a = 'x9';
-- strict mode: an error in a later row undoes the rows before it, and nothing is returned
INSERT INTO r1 (a, b) VALUES ('e1', 1), ('e2', 'notanumber') RETURNING id;
SELECT COUNT(*) FROM r1 WHERE a LIKE 'e_';
-- REPLACE
REPLACE INTO r1 (id, a, b) VALUES (1, 'x', 50) RETURNING id, a, b;
REPLACE INTO r1 (a, b) VALUES ('r1', 60), ('r2', 61) RETURNING *;
REPLACE INTO r1 (a) VALUES ('x9') RETURNING (SELECT 1 FROM r1 LIMIT 1);
-- DELETE
DELETE FROM r1 WHERE a LIKE 's%' ORDER BY id RETURNING id, a, b;
DELETE FROM r1 WHERE id = 1 RETURNING *;
DELETE FROM r1 WHERE id < 0 RETURNING id;
DELETE FROM r1 WHERE a = 'w' RETURNING CONCAT('gone ', a) AS msg, b * 10;
DELETE FROM r1 WHERE r1.a = 'v' RETURNING r1.id, r1.a;
DELETE FROM r1 ORDER BY id DESC LIMIT 2 RETURNING id;
DELETE FROM r1 WHERE a = 'k' RETURNING SUM(b);
DELETE FROM r1 WHERE a = 'k' RETURNING (SELECT COUNT(*) FROM r1);
DELETE FROM r1 WHERE a = 'k' RETURNING nosuch;
DELETE r1 FROM r1 JOIN r2 ON r1.b = r2.k RETURNING r1.id;
UPDATE r1 SET b = 1 RETURNING b;
SELECT id, a, b FROM r1 ORDER BY id;
-- in a transaction, rolled back
START TRANSACTION;
INSERT INTO r1 (a) VALUES ('tx') RETURNING a;
DELETE FROM r1 WHERE a = 'tx' RETURNING a;
ROLLBACK;
SELECT COUNT(*) FROM r1 WHERE a = 'tx';
-- prepared (SQL PREPARE: the text protocol)
PREPARE s FROM 'INSERT INTO r1 (a, b) VALUES (?, ?) RETURNING id, a, b + 1';
SET @a = 'p1', @b = 10;
EXECUTE s USING @a, @b;
SET @a = 'p2';
EXECUTE s USING @a, @b;
DEALLOCATE PREPARE s;
PREPARE s FROM 'DELETE FROM r1 WHERE a = ? RETURNING id, a';
EXECUTE s USING @a;
DEALLOCATE PREPARE s;
-- a table with every kind of column
CREATE TABLE r3 (i TINYINT, s SMALLINT UNSIGNED, f DOUBLE, t TIME, dt DATETIME(3), ts TIMESTAMP NULL, e ENUM('a','b'),
  st SET('x','y'), bl BLOB, tx TEXT, bi BIT(5), y YEAR, ch CHAR(3) CHARACTER SET latin1);
-- @types
INSERT INTO r3 VALUES (-1, 2, 1.25, '12:34:56', '2024-05-06 07:08:09.123', '2024-05-06 07:08:09', 'b', 'x,y', 'blob',
  'text', b'10101', 2024, 'abc') RETURNING *;
-- @types
DELETE FROM r3 RETURNING i + 1, f * 2, e, bi, LENGTH(bl), ch;
DROP TABLE r1, r2, r3;
