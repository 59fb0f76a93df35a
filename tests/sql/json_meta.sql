-- Result-column types of the JSON functions where MariaDB's is not the value's (what drivers convert values by):
-- JSON_ARRAYAGG / JSON_OBJECTAGG are BLOB-typed text as GROUP_CONCAT is, JSON_DETAILED / JSON_PRETTY LONGTEXT.
CREATE TABLE ag (k VARCHAR(10), v INT);
INSERT INTO ag VALUES ('a', 1);
-- @meta
SELECT JSON_ARRAYAGG(v) AS a, JSON_OBJECTAGG(k, v) AS b FROM ag;
-- @types
SELECT JSON_DETAILED('[1]') AS c, JSON_PRETTY('{"a":1}') AS d;
-- @meta
SELECT JSON_EXTRACT('[1]', '$[0]') AS a, JSON_OBJECT('a', 1) AS b, JSON_VALID('1') AS c, JSON_LENGTH('[1]') AS d, JSON_TYPE('1') AS e;
-- CREATE TABLE ... SELECT sizes the columns before a row is read
CREATE TABLE ct AS SELECT JSON_OBJECT('a', 1) a, JSON_EXTRACT('[1, 2]', '$') b, JSON_VALID('1') c, JSON_LENGTH('[1]') d, JSON_TYPE('1') e, JSON_DETAILED('[1]') g, JSON_QUOTE('ab"') h;
SELECT * FROM ct;
-- @diff MariaDB's string lengths are tighter (DIFFERENCES.md)
SHOW CREATE TABLE ct;
SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ct' ORDER BY ORDINAL_POSITION;
DROP TABLE ag, ct;
