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
DROP TABLE ag;
