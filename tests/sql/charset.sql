-- Character sets and collations in tables: utf8mb4_general_ci / utf8mb4_bin / latin1 / binary columns, their
-- comparisons, ordering, DISTINCT, GROUP BY, unique keys, LIKE, and conversions on store.
CREATE TABLE cs (id INT PRIMARY KEY, ci VARCHAR(20), bn VARCHAR(20) COLLATE utf8mb4_bin, l1 VARCHAR(20) CHARACTER SET latin1, vb VARBINARY(20));
INSERT INTO cs VALUES (1, 'apple', 'apple', 'apple', 'apple'), (2, 'Apple', 'Apple', 'Apple', 'Apple'), (3, 'APPLE ', 'APPLE ', 'APPLE ', 'APPLE '),
  (4, 'banana', 'banana', 'banana', 'banana'), (5, 'cherry', 'Cherry', 'chérry', 'cherry'), (6, 'zebra', 'zebra', 'zebra', 'zebra');
SELECT id FROM cs WHERE ci = 'apple' ORDER BY id;
SELECT id FROM cs WHERE bn = 'apple' ORDER BY id;
SELECT id FROM cs WHERE l1 = 'apple' ORDER BY id;
SELECT id FROM cs WHERE vb = 'apple' ORDER BY id;
SELECT id FROM cs WHERE ci = 'apple   ' ORDER BY id;
SELECT id FROM cs WHERE vb = 'APPLE' ORDER BY id;
SELECT ci FROM cs ORDER BY ci, id;
SELECT bn FROM cs ORDER BY bn;
SELECT vb FROM cs ORDER BY vb;
SELECT COUNT(DISTINCT ci), COUNT(DISTINCT bn), COUNT(DISTINCT l1), COUNT(DISTINCT vb) FROM cs;
SELECT LOWER(ci), COUNT(*) FROM cs GROUP BY LOWER(ci) ORDER BY 1;
SELECT ci, COUNT(*) FROM cs WHERE id < 4 GROUP BY ci;
SELECT id FROM cs WHERE ci LIKE 'a%' ORDER BY id;
SELECT id FROM cs WHERE bn LIKE 'a%' ORDER BY id;
SELECT id FROM cs WHERE vb LIKE 'A%' ORDER BY id;
SELECT LENGTH(l1), CHAR_LENGTH(l1), LENGTH(ci), CHAR_LENGTH(ci), HEX(l1) FROM cs WHERE id = 5;
SELECT MAX(ci), MIN(ci), MAX(bn), MIN(bn) FROM cs;
CREATE TABLE uq (a VARCHAR(10) PRIMARY KEY);
INSERT INTO uq VALUES ('abc');
INSERT INTO uq VALUES ('ABC');
INSERT INTO uq VALUES ('abc  ');
CREATE TABLE uqb (a VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY);
INSERT INTO uqb VALUES ('abc'), ('ABC');
INSERT INTO uqb VALUES ('abc ');
SELECT a FROM uqb ORDER BY a;
CREATE TABLE l (a VARCHAR(5) CHARACTER SET latin1);
INSERT INTO l VALUES ('€uro');
INSERT INTO l VALUES ('日本');
SET sql_mode = '';
INSERT INTO l VALUES ('日本');
SET sql_mode = DEFAULT;
SELECT HEX(a), LENGTH(a) FROM l;
SELECT id FROM cs WHERE ci IN ('APPLE', 'Banana') ORDER BY id;
SELECT id FROM cs WHERE ci BETWEEN 'a' AND 'b' ORDER BY id;
SELECT id FROM cs WHERE ci > 'B' ORDER BY id;
SELECT ci = bn, ci = vb, bn = vb FROM cs WHERE id = 2;
SELECT 'a' = 'A' COLLATE utf8mb4_bin, 'a' COLLATE utf8mb4_bin = 'A', _latin1'a' = 'A', BINARY 'a' = 'A';
SELECT COLLATION(ci), COLLATION(bn), COLLATION(l1), COLLATION(vb), CHARSET(l1) FROM cs WHERE id = 1;
SELECT COLLATION(CONCAT(ci, 'x')), COLLATION(CONCAT(vb, 'x')), COLLATION(UPPER(bn)) FROM cs WHERE id = 1;
-- @diff utf8mb4_general_ci folds ASCII letters only in strata (see queries_more.sql): 'Ä' sorts after 'z' here
SELECT 'Äpfel' < 'apple', 'Äpfel' > 'zebra', STRCMP('Äpfel', 'apfel');
