-- Joins read in another order than FROM's (plan/join.c chooses by cost once ANALYZE has counted the tables):
-- every result must be the one FROM order gives.  f is large with an index on its join column, d1/d2 small,
-- so the order starts from a dimension table; STRAIGHT_JOIN forces FROM order for comparison.
CREATE TABLE d1 (id INT PRIMARY KEY, name VARCHAR(10), grp INT);
CREATE TABLE d2 (id INT PRIMARY KEY, tag VARCHAR(10));
CREATE TABLE f (id INT PRIMARY KEY, a INT, b INT, amount INT, KEY ka (a), KEY kb (b));
CREATE TABLE n (v INT);
INSERT INTO n VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
INSERT INTO d1 SELECT x.v, CONCAT('n', x.v), x.v % 3 FROM n x;
INSERT INTO d2 SELECT x.v + 10 * y.v, CONCAT('t', x.v + 10 * y.v) FROM n x, n y;
INSERT INTO f SELECT x.v + 10 * y.v + 100 * z.v + 1000 * w.v, (x.v + y.v) % 10, (x.v * 7 + z.v * 3 + w.v) % 100, x.v + y.v + z.v FROM n x, n y, n z, n w;
ANALYZE TABLE d1, d2, f, n;
SELECT COUNT(*), SUM(f.amount) FROM f JOIN d1 ON f.a = d1.id WHERE d1.grp = 1;
SELECT STRAIGHT_JOIN COUNT(*), SUM(f.amount) FROM f JOIN d1 ON f.a = d1.id WHERE d1.grp = 1;
SELECT d1.name, COUNT(*), SUM(f.amount) FROM f JOIN d1 ON f.a = d1.id WHERE d1.grp = 2 GROUP BY d1.name ORDER BY d1.name;
SELECT f.id, d1.name, d2.tag FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON f.b = d2.id WHERE d1.name = 'n3' AND d2.tag IN ('t5', 't17') ORDER BY f.id;
SELECT f.id, d1.name, d2.tag FROM f, d1, d2 WHERE f.a = d1.id AND f.b = d2.id AND d1.name = 'n3' AND d2.tag IN ('t5', 't17') ORDER BY f.id;
SELECT f.id, d1.name, d2.tag FROM d2 JOIN f ON f.b = d2.id JOIN d1 ON f.a = d1.id AND d1.grp = d2.id % 3 WHERE d2.id < 4 AND f.amount > 20 ORDER BY f.id;
SELECT f.id FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON d2.id = f.b AND d2.id + d1.id = 12 WHERE d1.grp = 0 ORDER BY f.id LIMIT 7;
SELECT f.id FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON d2.id = f.b AND (d2.id = 3 OR d1.id = 3) WHERE d1.grp = 0 ORDER BY f.id DESC LIMIT 5;
SELECT DISTINCT d1.grp, d2.id % 5 FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON f.b = d2.id WHERE d2.id < 10 ORDER BY 1, 2;
-- five sources: dynamic programming over the orders
SELECT COUNT(*), MIN(f.id), MAX(f.id) FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON f.b = d2.id JOIN n ON n.v = d1.grp JOIN d1 e ON e.id = n.v WHERE e.name = 'n1';
SELECT STRAIGHT_JOIN COUNT(*), MIN(f.id), MAX(f.id) FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON f.b = d2.id JOIN n ON n.v = d1.grp JOIN d1 e ON e.id = n.v WHERE e.name = 'n1';
-- USING, NATURAL, CROSS JOIN
SELECT COUNT(*) FROM f JOIN d1 USING (id) JOIN d2 USING (id);
SELECT COUNT(*) FROM f CROSS JOIN d1 WHERE f.a = d1.id AND d1.id = 4 AND f.b < 3;
SELECT d1.id, d1.name FROM d1 NATURAL JOIN d1 AS d1b ORDER BY d1.id LIMIT 3;
-- a correlated subquery over a reordered join, and a reordered join inside a derived table
SELECT d1.id, (SELECT COUNT(*) FROM f JOIN d2 ON f.b = d2.id WHERE f.a = d1.id AND d2.tag = 't7') FROM d1 ORDER BY d1.id;
SELECT x.name, x.c FROM (SELECT d1.name, COUNT(*) c FROM f JOIN d1 ON f.a = d1.id WHERE d1.grp = 1 GROUP BY d1.name) x ORDER BY x.name;
SELECT d1.id FROM d1 WHERE EXISTS (SELECT 1 FROM f JOIN d2 ON f.b = d2.id WHERE f.a = d1.id AND d2.id = 99) ORDER BY d1.id;
-- a volatile or assigning ON stays where it was written
SET @k := 0;
SELECT COUNT(*) FROM f JOIN d1 ON f.a = d1.id AND (@k := @k + 1) > 0 WHERE d1.id = 2;
-- a LEFT JOIN in the FROM: FROM order, results as before
SELECT d1.id, COUNT(f.id) FROM d1 LEFT JOIN f ON f.a = d1.id AND f.b = 1 GROUP BY d1.id ORDER BY d1.id;
-- prepared: executed again with other parameters, and after the statistics change
PREPARE s FROM 'SELECT COUNT(*) FROM f JOIN d1 ON f.a = d1.id JOIN d2 ON d2.id = f.b WHERE d1.grp = ? AND d2.id < ?';
SET @g = 1, @m = 10;
EXECUTE s USING @g, @m;
SET @g = 2, @m = 50;
EXECUTE s USING @g, @m;
DELETE FROM f WHERE id >= 2000;
ANALYZE TABLE f;
EXECUTE s USING @g, @m;
DEALLOCATE PREPARE s;
-- DML joins (read in FROM order: they lock what they read)
UPDATE f JOIN d1 ON f.a = d1.id SET f.amount = f.amount + 100 WHERE d1.name = 'n9';
SELECT SUM(f.amount) FROM f JOIN d1 ON f.a = d1.id WHERE d1.name = 'n9';
DROP TABLE d1, d2, f, n;
