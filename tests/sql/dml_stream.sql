-- Single-table UPDATE / DELETE that change each row as the scan reaches it (exec/modify.c dml_may_stream) and the
-- forms that must still read every row first: the same results either way, as MariaDB gives them.
CREATE TABLE s (id INT PRIMARY KEY, k INT, n INT NOT NULL DEFAULT 0, v VARCHAR(10), KEY (k), CHECK (n < 1000));
INSERT INTO s (id, k, v) SELECT a.i * 10 + b.i, (a.i * 10 + b.i) % 7, 'v' FROM (SELECT 0 i UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9) a, (SELECT 0 i UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9) b;
-- streamed: a column in no index, over the primary key, a range of it, and a secondary index's range
UPDATE s SET n = n + 1;
UPDATE s SET n = n + 1 WHERE id BETWEEN 10 AND 29;
UPDATE s SET n = n + 10 WHERE k = 3;
SELECT SUM(n), COUNT(*), SUM(n = 12), SUM(n = 11) FROM s;
UPDATE s SET n = n + 1 LIMIT 7;
SELECT COUNT(*) FROM s WHERE n IN (2, 3, 12, 13);
UPDATE s SET v = CONCAT(v, id) WHERE id > 90;
SELECT id, v FROM s WHERE id > 90 ORDER BY id;
-- no change: matched, not changed
UPDATE s SET v = v WHERE id < 5;
-- warnings name their row; a strict error undoes the whole statement
UPDATE s SET v = CONCAT('long-value-', id) WHERE id BETWEEN 40 AND 42;
SET sql_mode = '';
UPDATE s SET v = CONCAT('long-value-', id) WHERE id BETWEEN 40 AND 42;
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT id, v FROM s WHERE id BETWEEN 40 AND 42 ORDER BY id;
UPDATE s SET n = n + 995 WHERE id >= 50;
SELECT SUM(n) FROM s;
UPDATE IGNORE s SET n = n + 995 WHERE id >= 95;
SHOW WARNINGS;
SELECT id, n FROM s WHERE id >= 95 ORDER BY id;
-- read first: the key the scan walks changes (primary key, the secondary index)
UPDATE s SET id = id + 100 WHERE id < 10;
SELECT COUNT(*), MIN(id), MAX(id) FROM s;
UPDATE s SET k = k + 7 WHERE k < 7;
SELECT k, COUNT(*) FROM s GROUP BY k ORDER BY k;
UPDATE s SET n = (SELECT COUNT(*) FROM (SELECT id FROM s WHERE id < 20) d) WHERE id < 15;
SELECT id, n FROM s WHERE id < 15 ORDER BY id;
-- DELETE streamed, with LIMIT, then the rest
DELETE FROM s WHERE id BETWEEN 60 AND 69;
DELETE FROM s WHERE k = 10 LIMIT 3;
SELECT COUNT(*), SUM(id) FROM s;
DELETE FROM s WHERE n > 1000;
DELETE FROM s;
SELECT COUNT(*) FROM s;
-- a foreign key that cascades into its own table: read first
CREATE TABLE tree (id INT PRIMARY KEY, parent INT, tag INT, FOREIGN KEY (parent) REFERENCES tree (id) ON DELETE CASCADE ON UPDATE CASCADE);
INSERT INTO tree VALUES (1, NULL, 0), (2, 1, 0), (3, 2, 0), (4, 3, 0), (5, 1, 0), (6, 5, 0);
UPDATE tree SET tag = tag + 1;
DELETE FROM tree WHERE id IN (2, 5);
SELECT id, parent, tag FROM tree ORDER BY id;
-- a child of another table: streamed, each row checked
CREATE TABLE par (id INT PRIMARY KEY);
INSERT INTO par VALUES (1), (2);
CREATE TABLE kid (id INT PRIMARY KEY, p INT, x INT, FOREIGN KEY (p) REFERENCES par (id));
INSERT INTO kid VALUES (1, 1, 0), (2, 2, 0), (3, 1, 0);
UPDATE kid SET x = x + p;
SELECT id, p, x FROM kid ORDER BY id;
DELETE FROM par WHERE id = 2;
DELETE FROM kid WHERE p = 2;
DELETE FROM par WHERE id = 2;
SELECT COUNT(*) FROM par;
DROP TABLE kid, par, tree, s;
