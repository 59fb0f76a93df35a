-- Generated columns: [GENERATED ALWAYS] AS (expr) VIRTUAL | STORED | PERSISTENT (src/sql/exec/gencol.c)
CREATE TABLE g (a INT, b INT AS (a + 1) VIRTUAL, c INT GENERATED ALWAYS AS (a * 2) STORED,
  d VARCHAR(10) AS (CONCAT('x', a)) PERSISTENT, e INT AS (b + c), KEY (b), KEY (c));
SHOW CREATE TABLE g;
INSERT INTO g (a) VALUES (1), (2), (NULL);
INSERT INTO g VALUES (3, DEFAULT, DEFAULT, DEFAULT, DEFAULT);
SELECT * FROM g ORDER BY a;
-- a value for a generated column: 1906, an error in strict mode
INSERT INTO g VALUES (4, 5, DEFAULT, DEFAULT, DEFAULT);
INSERT INTO g (a, b) VALUES (5, 5);
INSERT INTO g (a, c) SELECT 6, 7;
INSERT IGNORE INTO g (a, b) VALUES (7, 7);
SHOW WARNINGS;
SET sql_mode = '';
INSERT INTO g (a, b) VALUES (8, 8);
SHOW WARNINGS;
UPDATE g SET b = 100 WHERE a = 8;
SHOW WARNINGS;
SET sql_mode = DEFAULT;
UPDATE g SET b = 1;
UPDATE g SET c = 1, a = 2;
UPDATE g SET b = DEFAULT;
-- an UPDATE of a base column updates what is computed from it
UPDATE g SET a = 10 WHERE a = 1;
SELECT * FROM g ORDER BY a;
UPDATE g SET a = a + 1;
SELECT a, b, c, d, e FROM g ORDER BY a;
-- lookups through the indexes on the generated columns (VIRTUAL and STORED)
SELECT a FROM g WHERE b = 12;
SELECT a FROM g WHERE c = 16;
SELECT a FROM g FORCE INDEX (b) WHERE b BETWEEN 3 AND 9 ORDER BY b;
SELECT COUNT(*) FROM g WHERE b IS NULL;
DELETE FROM g WHERE b = 4;
SELECT a, b FROM g ORDER BY a;
-- @meta
SELECT a, b, c, d, e FROM g ORDER BY a LIMIT 1;
PREPARE ins FROM 'INSERT INTO g (a) VALUES (?)';
SET @v = 40;
EXECUTE ins USING @v;
PREPARE upd FROM 'UPDATE g SET a = ? WHERE a = 40';
SET @w = 41;
EXECUTE upd USING @w;
SELECT a, b, c, d, e FROM g WHERE a = 41;
PREPARE bad FROM 'INSERT INTO g (a, b) VALUES (?, ?)';
EXECUTE bad USING @v, @v;
DEALLOCATE PREPARE ins;
DEALLOCATE PREPARE bad;
DEALLOCATE PREPARE upd;
DESCRIBE g;
SHOW COLUMNS FROM g;
SHOW FULL COLUMNS FROM g;
SELECT column_name, column_default, is_nullable, data_type, column_type, column_key, extra, is_generated,
  generation_expression FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'g'
  ORDER BY ordinal_position;

-- NULL is taken as DEFAULT (MariaDB's vcol_assignment_allowed_value), an expression that is NULL is not
CREATE TABLE nn (id INT PRIMARY KEY, a INT, b INT AS (a + 1) VIRTUAL);
INSERT INTO nn (id, a, b) VALUES (1, 1, NULL);
INSERT INTO nn SET id = 2, a = 2, b = NULL;
INSERT INTO nn (id, a, b) VALUES (3, 3, NULL + 1);
INSERT INTO nn (id, a, b) SELECT 4, 4, NULL;
UPDATE nn SET b = NULL;
UPDATE nn SET b = NULL, a = a + 10 WHERE id = 1;
UPDATE nn SET b = a;
INSERT INTO nn (id, a) VALUES (2, 0) ON DUPLICATE KEY UPDATE b = NULL, a = 7;
SELECT * FROM nn ORDER BY id;
DROP TABLE nn;
-- REPLACE, ON DUPLICATE KEY UPDATE, INSERT ... SELECT
CREATE TABLE r (id INT PRIMARY KEY, v INT, w INT AS (v * 10) STORED, x INT AS (v + id) VIRTUAL, UNIQUE KEY (x));
INSERT INTO r (id, v) VALUES (1, 1), (2, 2);
REPLACE INTO r (id, v) VALUES (1, 5);
INSERT INTO r (id, v) VALUES (2, 0) ON DUPLICATE KEY UPDATE v = v + 100;
INSERT INTO r (id, v) VALUES (2, 0) ON DUPLICATE KEY UPDATE w = 3;
INSERT INTO r (id, v) VALUES (2, 0) ON DUPLICATE KEY UPDATE w = DEFAULT, v = 7;
SELECT * FROM r ORDER BY id;
-- the UNIQUE key on the VIRTUAL column x refuses a second row of the same x
INSERT INTO r (id, v) VALUES (3, 6);
INSERT INTO r (id, v) VALUES (4, 5);
INSERT INTO r (id, v) SELECT id + 10, v FROM r;
SELECT * FROM r ORDER BY id;
-- values that do not fit the column's type
CREATE TABLE fit (a VARCHAR(5), b VARCHAR(3) AS (a) STORED, n INT, t TINYINT AS (n) STORED);
INSERT INTO fit (a) VALUES ('abcde');
INSERT INTO fit (n) VALUES (1000);
CREATE TABLE dz (a INT, b INT AS (a / 0) STORED);
INSERT INTO dz (a) VALUES (1);
SELECT COUNT(*) FROM fit;
SET sql_mode = '';
INSERT INTO fit (a, n) VALUES ('abcdef', 1000);
SHOW WARNINGS;
INSERT INTO dz (a) VALUES (1);
SELECT * FROM fit;
SELECT * FROM dz;
SET sql_mode = DEFAULT;
-- a VIRTUAL column's value that does not fit: strata computes it on write, as MariaDB does only with binary
-- logging on (for the row image); the reference runs without a binlog and computes it on read
CREATE TABLE vfit (n INT, t TINYINT AS (n) VIRTUAL, z INT AS (n / 0) VIRTUAL);
-- @diff strata computes VIRTUAL columns on write: 1264 in strict mode (MariaDB with log_bin gives it too)
INSERT INTO vfit (n) VALUES (1000);

-- attributes around the clause
CREATE TABLE attrs (a INT, b INT AS (a) VIRTUAL COMMENT 'hi' INVISIBLE UNIQUE KEY, c INT AS (a) CHECK (c > 0));
SHOW CREATE TABLE attrs;
INSERT INTO attrs (a) VALUES (0);
INSERT INTO attrs (a) VALUES (1);
SELECT * FROM attrs;
SELECT a, b FROM attrs;
CREATE TABLE e1 (a INT, b INT NOT NULL AS (a));
CREATE TABLE e2 (a INT, b INT AS (a) NOT NULL);
CREATE TABLE e3 (a INT, b INT AS (a) DEFAULT 5);
CREATE TABLE e4 (a INT, b INT AS (a) PRIMARY KEY);
CREATE TABLE e5 (a INT, b INT AS (a) STORED KEY);
CREATE TABLE e6 (a INT, b INT AS (a) AUTO_INCREMENT);

-- what the expression may use
CREATE TABLE e7 (a INT, b INT AS (RAND()) STORED);
CREATE TABLE e8 (a INT, b DATETIME AS (NOW()) STORED);
CREATE TABLE e9 (a INT, b DATE AS (CURDATE()) VIRTUAL, KEY (b));
CREATE TABLE e10 (a INT, b VARCHAR(40) AS (UUID()) PERSISTENT);
CREATE TABLE e11 (a INT, b INT AS ((SELECT 1)));
CREATE TABLE e12 (a INT, b INT AS (SUM(a)));
CREATE TABLE e13 (a INT, b INT AS (@x) STORED);
CREATE TABLE e14 (a INT, b INT AS (zz + 1));
CREATE TABLE e15 (a INT, b INT AS (c + 1), c INT AS (a + 1));
CREATE TABLE e16 (a INT, b INT AS (b + 1));
CREATE TABLE e17 (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a + 1) STORED);
CREATE TABLE e18 (a INT, b INT AS (a + 1) VIRTUAL, PRIMARY KEY (b));
CREATE TABLE e19 (a INT, b INT AS (CONNECTION_ID()) STORED);
CREATE TABLE ok1 (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a + 1) VIRTUAL);
INSERT INTO ok1 () VALUES (), ();
SELECT * FROM ok1;
CREATE TABLE ok2 (a INT, b INT AS (a + 1), c INT AS (b * 2) STORED, s TEXT AS (REPEAT('x', a)) VIRTUAL,
  KEY (s(3)));
INSERT INTO ok2 (a) VALUES (2), (3);
SHOW CREATE TABLE ok2;
SELECT * FROM ok2 ORDER BY a;
SELECT a FROM ok2 WHERE s = 'xxx';

SET sql_mode = 'ANSI_QUOTES';
SHOW CREATE TABLE ok2;
SET sql_mode = DEFAULT;
-- CREATE TABLE ... LIKE keeps them; CREATE TABLE ... SELECT makes ordinary columns
CREATE TABLE like1 LIKE g;
SHOW CREATE TABLE like1;
INSERT INTO like1 (a) VALUES (4);
SELECT * FROM like1;
CREATE TABLE sel1 AS SELECT * FROM ok2;
SHOW CREATE TABLE sel1;
SELECT * FROM sel1 ORDER BY a;

-- ALTER TABLE: ADD / MODIFY / CHANGE / DROP, expressions computed again when a base column changes
CREATE TABLE al (a INT, b INT AS (a) VIRTUAL, KEY (b));
INSERT INTO al (a) VALUES (1), (2);
ALTER TABLE al MODIFY a BIGINT;
SELECT * FROM al ORDER BY a;
ALTER TABLE al ADD COLUMN c INT AS (a * 10) STORED;
SELECT * FROM al ORDER BY a;
ALTER TABLE al ADD COLUMN d INT AS (a * 100) VIRTUAL AFTER a;
SHOW CREATE TABLE al;
SELECT * FROM al ORDER BY a;
ALTER TABLE al MODIFY c INT AS (a * 1000) VIRTUAL;
ALTER TABLE al CHANGE c cc INT AS (a + 5) STORED;
SELECT * FROM al ORDER BY a;
ALTER TABLE al MODIFY cc INT;
SELECT * FROM al ORDER BY a;
SHOW CREATE TABLE al;
ALTER TABLE al MODIFY cc INT AS (a + 7) PERSISTENT;
SELECT * FROM al ORDER BY a;
ALTER TABLE al MODIFY d INT AS (a * 200) VIRTUAL;
SELECT * FROM al ORDER BY a;
ALTER TABLE al MODIFY d INT;
ALTER TABLE al MODIFY a INT AS (1) VIRTUAL;
ALTER TABLE al DROP COLUMN a;
ALTER TABLE al CHANGE a aa BIGINT;
SHOW CREATE TABLE al;
ALTER TABLE al RENAME COLUMN aa TO z;
SHOW CREATE TABLE al;
ALTER TABLE al ALTER COLUMN b SET DEFAULT 5;
SHOW COLUMNS FROM al;
SELECT column_name, column_default FROM information_schema.columns WHERE table_schema = DATABASE()
  AND table_name = 'al' ORDER BY ordinal_position;
ALTER TABLE al ALTER COLUMN b DROP DEFAULT;
ALTER TABLE al ADD KEY (d);
SELECT z FROM al WHERE d = 400;
UPDATE al SET z = 3 WHERE z = 2;
SELECT * FROM al ORDER BY z;
SELECT z FROM al WHERE b = 3;
ALTER TABLE al DROP COLUMN d, DROP COLUMN b, DROP COLUMN cc;
SHOW CREATE TABLE al;
ALTER TABLE al ADD COLUMN q INT AS (RAND()) STORED;
ALTER TABLE al ADD COLUMN q INT AS (nope) STORED;
-- a VIRTUAL column of a non-deterministic expression: computed as it is read (never indexed, never STORED)
CREATE TABLE vr (id INT PRIMARY KEY, a INT, r DOUBLE AS (RAND()) VIRTUAL, c INT AS (CONNECTION_ID() > 0) VIRTUAL,
  t VARCHAR(30) AS (DATE(NOW()) = CURDATE()) VIRTUAL, dd INT AS (DATEDIFF(NOW(), '2020-01-01') > 5) VIRTUAL,
  y INT AS (YEAR(CURDATE()) - a) VIRTUAL);
SHOW CREATE TABLE vr;
INSERT INTO vr (id, a) VALUES (1, 1), (2, 2);
SELECT id, r BETWEEN 0 AND 1, r = r, c, t, dd, y = YEAR(NOW()) - a FROM vr ORDER BY id;
SELECT COUNT(*) FROM vr WHERE r < 2 AND t = '1';
UPDATE vr SET a = 1 WHERE id = 1;
UPDATE vr SET a = 5 WHERE id = 1;
CREATE INDEX ir ON vr (r);
ALTER TABLE vr ADD KEY (t);
ALTER TABLE vr ADD COLUMN s DOUBLE AS (RAND()) STORED;
ALTER TABLE vr MODIFY r DOUBLE AS (RAND()) STORED;
ALTER TABLE vr MODIFY r DOUBLE AS (a * 2) STORED;
ALTER TABLE vr MODIFY y INT AS (YEAR(CURDATE()) - a - 1) VIRTUAL;
SELECT id, y = YEAR(NOW()) - a - 1 FROM vr ORDER BY id;
DROP TABLE vr;
CREATE TABLE rr (a INT, b DOUBLE AS (RAND()) VIRTUAL, c DOUBLE AS (b * 2) STORED);
CREATE TABLE rr (a INT, b DOUBLE AS (RAND()) VIRTUAL, c DOUBLE AS (b * 2) VIRTUAL, KEY (c));
CREATE TABLE rr (a INT, b DOUBLE AS (RAND()) VIRTUAL, c DOUBLE AS (b * 2) VIRTUAL);
INSERT INTO rr (a) VALUES (1), (2);
SELECT c = b * 2, c BETWEEN 0 AND 2 FROM rr;
DROP TABLE rr;
-- which ALTERs copy the rows (Records: n), as InnoDB decides it
CREATE TABLE q (a INT, b INT AS (a) VIRTUAL, c INT AS (a) STORED, d INT);
INSERT INTO q (a) VALUES (1), (2);
ALTER TABLE q ADD e INT AS (a + 1) VIRTUAL;
ALTER TABLE q ADD f INT AS (a + 1) VIRTUAL FIRST;
ALTER TABLE q ADD g INT AS (a + 1) STORED;
ALTER TABLE q DROP COLUMN e;
ALTER TABLE q DROP COLUMN c;
ALTER TABLE q MODIFY g INT AS (a + 2) STORED;
ALTER TABLE q ADD KEY (b);
ALTER TABLE q MODIFY b INT AS (a + 3) VIRTUAL;
ALTER TABLE q DROP COLUMN d;
ALTER TABLE q ADD COLUMN h INT AFTER a;
ALTER TABLE q DROP COLUMN f;
SHOW CREATE TABLE q;
SELECT * FROM q ORDER BY a;
SELECT a FROM q WHERE b = 5;
DROP TABLE g, r, fit, dz, vfit, attrs, ok1, ok2, like1, sel1, al, q;
-- foreign keys: a cascade into a child's base column computes the child's generated columns again
CREATE TABLE fp (id INT PRIMARY KEY);
CREATE TABLE fc1 (pid INT, g INT AS (pid * 2) STORED, FOREIGN KEY (pid) REFERENCES fp (id) ON UPDATE CASCADE);
CREATE TABLE fc2 (pid INT, g INT AS (pid * 2) STORED, FOREIGN KEY (pid) REFERENCES fp (id) ON DELETE SET NULL);
CREATE TABLE fc3 (pid INT, g INT AS (pid * 2) VIRTUAL, FOREIGN KEY (g) REFERENCES fp (id) ON UPDATE CASCADE);
CREATE TABLE fc4 (pid INT, g INT AS (pid * 2) STORED, FOREIGN KEY (g) REFERENCES fp (id) ON DELETE SET NULL);
CREATE TABLE fc5 (pid INT, g INT AS (pid * 2) VIRTUAL, KEY (g),
  FOREIGN KEY (pid) REFERENCES fp (id) ON UPDATE CASCADE ON DELETE SET NULL);
CREATE TABLE fc6 (pid INT, g INT AS (pid * 2) VIRTUAL, FOREIGN KEY (g) REFERENCES fp (id));
CREATE TABLE fc7 (pid INT, g INT AS (pid * 2) STORED, FOREIGN KEY (pid) REFERENCES fp (id) ON DELETE CASCADE);
INSERT INTO fp VALUES (1), (2);
INSERT INTO fc5 (pid) VALUES (1), (2);
INSERT INTO fc6 (pid) VALUES (1);
INSERT INTO fc7 (pid) VALUES (2);
UPDATE fp SET id = 5 WHERE id = 1;
SELECT * FROM fc5 ORDER BY pid;
SELECT pid FROM fc5 FORCE INDEX (g) WHERE g = 10;
DELETE FROM fp WHERE id = 5;
SELECT * FROM fc5 ORDER BY pid;
DELETE FROM fp WHERE id = 2;
INSERT INTO fc6 (pid) VALUES (1);
SELECT COUNT(*) FROM fc7;
DROP TABLE fc5, fc6, fc7, fp;
-- the expression as MariaDB prints it (SHOW CREATE TABLE, GENERATION_EXPRESSION)
CREATE TABLE px (a INT, b INT, s VARCHAR(20), d DATE, j LONGTEXT,
  e1 INT AS ((a + b) * 2), e2 INT AS (a > 1), e3 INT AS (CASE WHEN a > 1 THEN 1 ELSE 0 END), e4 INT AS (IF(a, b, 0)),
  e6 VARCHAR(20) AS (UPPER(s)), e7 INT AS (a DIV 2), e8 INT AS (-a), e9 INT AS (a IS NULL),
  e10 INT AS (s LIKE 'x%'), e11 INT AS (COALESCE(a, 0)), e12 VARCHAR(20) AS (JSON_EXTRACT(j, '$.a')),
  e13 DATE AS (d + INTERVAL 1 DAY), e14 INT AS (YEAR(d)), e15 VARCHAR(30) AS (CONCAT_WS('-', s, a)), e16 INT AS (a MOD 3),
  e17 INT AS (a BETWEEN 1 AND 3), e18 INT AS (a IN (1, 2)), e19 VARCHAR(20) AS (SUBSTR(s, 1, 2)), e20 DECIMAL(10,4) AS (a / 4),
  e23 INT AS (a <> b), e24 INT AS (a & b), e25 INT AS (a << 1), e26 VARCHAR(20) AS (s COLLATE utf8mb4_bin),
  e27 INT AS (ABS(a)), e28 VARCHAR(40) AS (DATE_FORMAT(d, '%Y')), e29 INT AS (LENGTH(s)), e30 DECIMAL(10,2) AS (ROUND(a / 3, 2)),
  e33 INT AS (a = 1 OR b = 2), e34 VARCHAR(20) AS (REPLACE(s, 'a', 'b')), e35 INT AS (IFNULL(a, 1)), e36 INT AS (NULLIF(a, 1)),
  e37 VARCHAR(10) AS ('x'), e38 INT AS (5), e40 INT AS (GREATEST(a, b)), e41 INT AS (a XOR b), e47 VARCHAR(20) AS (HEX(a)),
  e48 BIGINT UNSIGNED AS (~a), e49 VARCHAR(20) AS (CONCAT(s, "q")), e50 VARCHAR(20) AS (CONVERT(s USING latin1)),
  c1 VARCHAR(20) AS (CAST(a AS CHAR)), c2 VARCHAR(20) AS (CAST(a AS CHAR(5))), c4 VARCHAR(20) AS (CAST(s AS CHAR CHARACTER SET latin1)),
  c5 INT AS (CAST(s AS UNSIGNED)), c51 INT AS (CAST(s AS SIGNED)), c6 DOUBLE AS (CAST(a AS DOUBLE)), c7 DATE AS (CAST(d AS DATE)),
  c8 DATETIME(3) AS (CAST(d AS DATETIME(3))), c9 TIME AS (CAST(d AS TIME)), c10 DECIMAL(10,0) AS (CAST(a AS DECIMAL)),
  c52 DECIMAL(5,1) AS (CAST(a AS DECIMAL(5,1))), c11 DATE AS (d - INTERVAL (a) MONTH), c15 VARCHAR(20) AS (CONVERT(s, CHAR)));
SHOW CREATE TABLE px;
CREATE TABLE pb (a INT, b INT, s VARCHAR(20),
  n1 INT AS (NOT (a > 1)), n2 INT AS (NOT (a IS NULL)), n3 INT AS ((a > 1) AND b), n4 INT AS (NOT (s LIKE 'x')),
  n5 INT AS (a + 1 AND b), n6 INT AS (NOT (a + 1)), n7 INT AS (ABS(a) OR (b = 1)), n8 INT AS (NOT (a BETWEEN 1 AND 2)),
  n9 INT AS (NOT (a IN (1, 2))), n10 INT AS (a AND 1), n11 INT AS (!a), n12 INT AS (a && b), n13 INT AS (NOT NOT a),
  n14 INT AS (a = 1 AND b = 2 AND a < b), n15 INT AS (a OR b AND a), n16 INT AS (NOT (a = 1 AND b = 2)),
  CHECK (NOT (a < -100)), CONSTRAINT ck2 CHECK (a OR b IS NULL OR NOT b));
SHOW CREATE TABLE pb;
INSERT INTO pb (a, b, s) VALUES (0, 1, 'x'), (2, 0, 'y'), (NULL, NULL, NULL);
SELECT * FROM pb ORDER BY a;
INSERT INTO pb (a, b) VALUES (0, 5);
DROP TABLE pb;
SELECT column_name, generation_expression FROM information_schema.columns WHERE table_schema = DATABASE()
  AND table_name = 'px' AND is_generated = 'ALWAYS' ORDER BY ordinal_position;
INSERT INTO px (a, b, s, d, j) VALUES (2, 3, '7', '2024-02-29', '{"a": 7}');
SELECT * FROM px;
DROP TABLE px;
