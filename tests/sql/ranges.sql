-- Access paths whose answers must not change the results: unions of ranges over OR (merged when they overlap,
-- so a row is read once), IN lists, NULL in a disjunct, descending order over several ranges, index-only reads
-- of every key-decodable type (YEAR, BIT, ENUM, SET, temporal, signed and unsigned integers at their limits).
CREATE TABLE t (id INT PRIMARY KEY, k INT, s VARCHAR(10), n INT, KEY kk (k), KEY ks (s), KEY kkn (k, n));
INSERT INTO t VALUES (1,1,'a',1),(2,2,'b',NULL),(3,3,'c',3),(4,4,'d',4),(5,5,'e',5),(6,6,'f',NULL),(7,7,'g',7),
  (8,NULL,NULL,8),(9,9,'B',9),(10,10,'b ',10);
SELECT id FROM t WHERE k BETWEEN 1 AND 2 OR k BETWEEN 4 AND 5 ORDER BY id;
SELECT id FROM t WHERE k BETWEEN 1 AND 5 OR k BETWEEN 3 AND 8 ORDER BY id;
SELECT COUNT(k) FROM t WHERE k BETWEEN 1 AND 3 OR k BETWEEN 2 AND 9;
SELECT COUNT(*) FROM t WHERE k BETWEEN 1 AND 3 OR k BETWEEN 3 AND 3 OR k = 2;
SELECT id FROM t WHERE k < 3 OR k > 8 ORDER BY id;
SELECT id FROM t WHERE k <= 3 OR k >= 3 ORDER BY id;
SELECT id FROM t WHERE k = 2 OR k IN (4, 6, NULL) OR k IS NULL ORDER BY id;
SELECT id FROM t WHERE k = NULL OR k = 3;
SELECT id FROM t WHERE id BETWEEN 1 AND 2 OR id = 4 OR id >= 9 ORDER BY id;
SELECT id, s FROM t WHERE s = 'b' OR s BETWEEN 'c' AND 'd' ORDER BY id;
SELECT k FROM t WHERE k BETWEEN 1 AND 3 OR k BETWEEN 5 AND 7 ORDER BY k DESC;
SELECT k FROM t WHERE k BETWEEN 1 AND 3 OR k BETWEEN 5 AND 7 ORDER BY k LIMIT 4;
SELECT k FROM t WHERE k = 1 OR k = 1 OR k BETWEEN 1 AND 1;
SELECT id FROM t WHERE k = 3 AND (n = 3 OR n > 100) ORDER BY id;
SELECT id FROM t WHERE k IN (3, 4, 7) AND (n < 4 OR n BETWEEN 7 AND 7) ORDER BY id;
SELECT id FROM t WHERE (k = 1 OR n = 4) ORDER BY id;
SELECT id FROM t WHERE k > 2 AND (k = 1 OR k = 7 OR k = 100) ORDER BY id;
SELECT a.id, b.id FROM t a JOIN t b ON (b.k = a.id OR b.k = a.id + 1) WHERE a.id < 4 ORDER BY 1, 2;
SELECT id FROM t WHERE k = '3' OR k = 4.0 OR k BETWEEN '6' AND 6.5 ORDER BY id;
UPDATE t SET n = 0 WHERE k BETWEEN 1 AND 2 OR k BETWEEN 2 AND 3;
SELECT ROW_COUNT();
DELETE FROM t WHERE k < 2 OR k > 9;
SELECT ROW_COUNT();
SELECT id, k, n FROM t ORDER BY id;

CREATE TABLE c (id BIGINT PRIMARY KEY, a TINYINT, b SMALLINT UNSIGNED, m MEDIUMINT, d INT, e BIGINT UNSIGNED,
  y YEAR, dt DATE, dtm DATETIME(3), ts TIMESTAMP(2) NULL, tm TIME(1), en ENUM('x','y','z'), st SET('p','q'),
  bt BIT(5), KEY ka (a), KEY kb (b, m), KEY kd (d, e), KEY ky (y, dt), KEY kt (dtm, ts, tm), KEY ke (en, st, bt));
INSERT INTO c VALUES
  (1,-128,0,-8388608,-2147483648,0,1901,'1000-01-01','1000-01-01 00:00:00.001','1970-01-02 00:00:00.01','-838:59:59.0','x','',0),
  (2,127,65535,8388607,2147483647,18446744073709551615,2155,'9999-12-31','9999-12-31 23:59:59.999','2038-01-19 03:14:07.99','838:59:59.9','z','p,q',b'11111'),
  (3,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL),
  (4,0,1,0,0,1,0,'2024-02-29','2024-02-29 12:34:56.5','2024-02-29 12:34:56.5','00:00:00.5','y','q',b'00101'),
  (5,-1,2,-1,-1,2,2024,'2024-03-01','2024-03-01 00:00:00','2024-03-01 00:00:00','-00:00:00.5','x','p',1);
SELECT id, a FROM c WHERE a >= -128 ORDER BY a, id;
SELECT id, b, m FROM c WHERE b BETWEEN 0 AND 65535 ORDER BY b, m;
SELECT id, d, e FROM c WHERE d > -2147483649 AND d < 2147483648 ORDER BY d;
SELECT id, y, dt FROM c WHERE y >= 0 ORDER BY y, dt;
SELECT y, COUNT(*) FROM c WHERE y BETWEEN 1901 AND 2155 GROUP BY y;
SELECT id, dtm, ts, tm FROM c WHERE dtm > '0001-01-01' ORDER BY dtm;
SELECT id, tm FROM c WHERE dtm IS NOT NULL ORDER BY dtm, ts, tm;
SELECT id, en, st, bt + 0 FROM c WHERE en IN ('x', 'y', 'z') ORDER BY id;
SELECT id FROM c WHERE m = 0 OR m = -1 ORDER BY id;
SELECT a, COUNT(*) FROM c WHERE a IS NULL OR a >= -128 GROUP BY a;
