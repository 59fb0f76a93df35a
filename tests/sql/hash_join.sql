-- Joins on columns no index serves: strata reads such a table once into a hash table on its join columns (or a
-- flat join buffer when no equality links it to the tables before it) and looks it up per outer row; every
-- result must be the nested loop's.  Types whose equality is not bytes of one key (a string against a number,
-- another collation) must still find every row; NULL matches nothing; the table larger than the join buffer is
-- read in parts (inner joins) or scanned per row (outer joins).
CREATE TABLE n (v INT);
INSERT INTO n VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE a (id INT PRIMARY KEY, x INT, d DECIMAL(8,2), s VARCHAR(20), u VARCHAR(20) COLLATE utf8mb4_unicode_ci, b VARBINARY(10), dt DATE, big BIGINT UNSIGNED, e ENUM('p','q','r'), f FLOAT);
CREATE TABLE b (id INT PRIMARY KEY, y INT, d DECIMAL(10,4), s VARCHAR(20), u VARCHAR(20) COLLATE utf8mb4_unicode_ci, b VARBINARY(10), dt DATETIME, big BIGINT, e ENUM('p','q','r'), f FLOAT, t TEXT);
INSERT INTO a SELECT x.v + 10 * y.v + 100 * z.v, (x.v * 3 + y.v) % 40, ((x.v + y.v) % 7) / 2, CONCAT('k', (x.v + 2 * z.v) % 13), CONCAT('u', x.v), CONCAT('b', y.v), DATE_ADD('2024-01-01', INTERVAL (x.v + y.v) DAY), x.v * 1000, ELT(1 + x.v % 3, 'p', 'q', 'r'), x.v / 4 FROM n x, n y, n z;
INSERT INTO b SELECT x.v + 10 * y.v + 100 * z.v, (x.v * 7 + z.v) % 50, (x.v % 4) / 2, CONCAT('K', (y.v + z.v) % 15), CONCAT('U', y.v), CONCAT('B', x.v), DATE_ADD('2024-01-01', INTERVAL (y.v + z.v) DAY), y.v * 1000, ELT(1 + y.v % 3, 'p', 'q', 'r'), y.v / 4, CONCAT('t', x.v % 5) FROM n x, n y, n z;
INSERT INTO a VALUES (2000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (2001, 5, 1.5, 'ß', 'straße', 'B1', '2024-01-05', 3000, 'q', 0.25);
INSERT INTO b VALUES (2000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (2001, 5, 1.50, 'ss', 'STRASSE', 'b1', '2024-01-05 00:00:00', 3000, 'q', 0.25, 'k1 ');
ANALYZE TABLE n, a, b;
-- integers, exact numbers of other scales, strings in a case-insensitive collation, UCA's ß = ss
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.x = b.y;
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.d = b.d;
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.s = b.s;
SELECT a.id, b.id FROM a JOIN b ON a.u = b.u WHERE a.id > 1995 OR b.id > 1995 ORDER BY a.id, b.id;
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.u = b.u;
SELECT COUNT(*) FROM a JOIN b ON a.b = b.b;
SELECT COUNT(*), SUM(a.id) FROM a JOIN b ON a.big = b.big;
SELECT COUNT(*), SUM(b.id) FROM a JOIN b ON a.x = b.y AND a.s = b.s;
-- a string column against a text column with trailing spaces (PAD SPACE), ENUM and FLOAT (read in another form)
SELECT a.id, b.id FROM a JOIN b ON a.s = b.t WHERE b.id = 2001 ORDER BY a.id;
SELECT COUNT(*) FROM a JOIN b ON a.e = b.e AND a.x = b.y;
SELECT COUNT(*) FROM a JOIN b ON a.f = b.f AND a.x = b.y;
-- DATE against DATETIME, numbers against strings, a string against a number: equal by the comparison's rules
SELECT COUNT(*) FROM a JOIN b ON a.dt = b.dt;
SELECT COUNT(*), SUM(a.id) FROM a JOIN (SELECT id, CONCAT(y) ys FROM b) g ON g.ys = a.x;
SELECT COUNT(*) FROM a JOIN b ON CONCAT('', a.x) = b.y;
SELECT COUNT(*) FROM a JOIN b ON a.x + 0.0 = b.y;
SELECT COUNT(*) FROM a JOIN b ON a.s = b.s COLLATE utf8mb4_bin;
SELECT COUNT(*) FROM a JOIN b ON a.s = b.s COLLATE utf8mb4_unicode_ci;
-- rows when nothing orders them (strata gives the nested loop's order; MariaDB's join buffer another)
-- @unordered
SELECT a.id, b.id, b.y FROM a JOIN b ON a.x = b.y WHERE a.id < 12;
-- @unordered
SELECT a.id, b.id FROM a STRAIGHT_JOIN b ON b.s = a.s WHERE a.id IN (3, 17, 2001);
-- outer joins: NULL-extended rows where nothing matches, the ON's own conditions, WHERE after the join
SELECT a.id, b.id FROM a LEFT JOIN b ON a.x = b.y AND b.id < 40 WHERE a.id < 30 ORDER BY a.id, b.id;
SELECT COUNT(*), COUNT(b.id) FROM a LEFT JOIN b ON a.s = b.s;
SELECT a.id FROM a LEFT JOIN b ON a.x = b.y WHERE b.id IS NULL ORDER BY a.id;
SELECT a.id, b.id FROM a LEFT JOIN b ON a.x = b.y WHERE b.y IS NULL OR b.id = 7 ORDER BY a.id, b.id LIMIT 20;
SELECT COUNT(*) FROM b RIGHT JOIN a ON a.x = b.y AND b.d = 0;
-- three and four tables, a self-join, a cross join with a condition (a flat join buffer), LIMIT
SELECT COUNT(*), SUM(c.id) FROM a JOIN b ON a.x = b.y JOIN a c ON c.s = b.s;
SELECT COUNT(*) FROM a JOIN b ON a.x = b.y JOIN n ON n.v = b.d * 2 JOIN a c ON c.id = n.v;
SELECT COUNT(*) FROM a x JOIN a y ON x.s = y.s AND x.id <> y.id;
SELECT COUNT(*) FROM n x, n y, n z WHERE x.v < y.v AND y.v < z.v;
SELECT COUNT(*), SUM(a.id) FROM a JOIN n ON a.x > n.v * 4;
SELECT a.id, b.id FROM a JOIN b ON a.x = b.y ORDER BY a.id, b.id LIMIT 5;
-- aggregates and DISTINCT over a hashed join, a derived table on either side
SELECT a.s, COUNT(*), MIN(b.id) FROM a JOIN b ON a.x = b.y GROUP BY a.s ORDER BY a.s;
SELECT COUNT(DISTINCT b.s) FROM a JOIN b ON a.x = b.y;
SELECT COUNT(*) FROM (SELECT y, COUNT(*) c FROM b GROUP BY y) g JOIN a ON a.x = g.y;
SELECT COUNT(*) FROM a JOIN (SELECT s, MIN(id) m FROM b GROUP BY s) g ON g.s = a.s;
-- correlated subqueries: the hashed join inside runs again for every outer row
SELECT n.v, (SELECT COUNT(*) FROM a JOIN b ON a.x = b.y WHERE a.id % 10 = n.v) FROM n ORDER BY n.v;
SELECT n.v FROM n WHERE EXISTS (SELECT 1 FROM a JOIN b ON a.s = b.s WHERE b.id = n.v * 100) ORDER BY n.v;
-- a table larger than the join buffer (max(join_buffer_size, tmp_table_size)): read in parts, or scanned per row
SET SESSION join_buffer_size = 128, max_heap_table_size = 16384, tmp_table_size = 16384;
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.x = b.y;
SELECT COUNT(*), SUM(a.id * b.id) FROM a JOIN b ON a.s = b.s JOIN n ON n.v = a.x % 10;
SELECT COUNT(*), SUM(b.id) FROM a LEFT JOIN b ON a.x = b.y;
SELECT a.id, b.id FROM a JOIN b ON a.x = b.y WHERE a.id < 5 ORDER BY a.id, b.id;
SELECT a.id, COUNT(*) FROM a JOIN b ON a.x = b.y GROUP BY a.id ORDER BY a.id LIMIT 5;
SET SESSION join_buffer_size = DEFAULT, max_heap_table_size = DEFAULT, tmp_table_size = DEFAULT;
-- without join buffers, and with join_cache_hashed=off: the same rows
SET SESSION join_cache_level = 0;
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.s = b.s AND b.id < 300;
SET SESSION join_cache_level = DEFAULT;
SET SESSION optimizer_switch = 'join_cache_hashed=off';
SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.s = b.s AND b.id < 300;
SET SESSION optimizer_switch = DEFAULT;
-- locking reads and multi-table DML read row by row, with the same rows
SELECT COUNT(*) FROM a JOIN b ON a.x = b.y WHERE a.id < 50 FOR UPDATE;
UPDATE a JOIN b ON a.s = b.s SET a.d = a.d + 1 WHERE b.id = 3;
SELECT COUNT(*), SUM(d) FROM a;
DELETE b FROM a JOIN b ON a.x = b.y WHERE a.id = 7;
SELECT COUNT(*) FROM b;
-- prepared: executed again with another value
PREPARE p FROM 'SELECT COUNT(*) FROM a JOIN b ON a.x = b.y WHERE a.id < ?';
SET @m = 100;
EXECUTE p USING @m;
SET @m = 500;
EXECUTE p USING @m;
DEALLOCATE PREPARE p;
