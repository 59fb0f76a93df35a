-- ALGORITHM= and LOCK= of ALTER TABLE / CREATE INDEX / DROP INDEX: what strata can do for the change, MariaDB's
-- 1800 / 1801 for unknown words and 1846 naming what would work; the clauses change nothing in the result.
CREATE TABLE aa (a INT PRIMARY KEY, b INT, c INT);
INSERT INTO aa VALUES (1, 1, 1), (2, 2, 2);
CREATE INDEX ib ON aa (b) ALGORITHM = INPLACE;
CREATE INDEX ic ON aa (c) ALGORITHM = NOCOPY, LOCK = SHARED;
CREATE INDEX ibc ON aa (b, c) ALGORITHM = INSTANT;
CREATE INDEX ibc ON aa (b, c) ALGORITHM = COPY LOCK = EXCLUSIVE;
CREATE INDEX ix ON aa (b) ALGORITHM = bogus;
CREATE INDEX ix ON aa (b) LOCK = bogus;
ALTER TABLE aa DROP INDEX ibc, ALGORITHM = INSTANT;
ALTER TABLE aa DROP INDEX ibc, ALGORITHM = NOCOPY, LOCK = NONE;
DROP INDEX ic ON aa ALGORITHM = INSTANT;
DROP INDEX ic ON aa;
ALTER TABLE aa ADD INDEX ic (c), ALGORITHM = COPY, LOCK = NONE;
ALTER TABLE aa ADD INDEX ic (c), ALGORITHM = COPY, LOCK = SHARED;
-- @diff the same 1846, with strata's reason (it copies the table for any column change) instead of MariaDB's
ALTER TABLE aa MODIFY c BIGINT, ALGORITHM = INPLACE;
-- @diff the same 1846, with strata's reason (it copies the table for any column change) instead of MariaDB's
ALTER TABLE aa MODIFY c BIGINT, ALGORITHM = INSTANT;
CREATE TABLE dd (a INT);
-- @diff MariaDB adds a column in place (INSTANT); strata copies the table and refuses, naming COPY
ALTER TABLE dd ADD COLUMN e INT, ALGORITHM = INSTANT;
-- @diff MariaDB builds an index with concurrent writes (LOCK=NONE); strata holds writes back and names LOCK=SHARED
CREATE INDEX ie ON dd (a) LOCK = NONE;
DROP TABLE dd;
ALTER TABLE aa MODIFY c BIGINT, ALGORITHM = COPY, LOCK = NONE;
ALTER TABLE aa MODIFY c BIGINT, ALGORITHM = COPY, LOCK = EXCLUSIVE;
ALTER TABLE aa ALGORITHM = bogus, ADD COLUMN d INT;
ALTER TABLE aa RENAME TO aa2, ALGORITHM = INSTANT;
SHOW CREATE TABLE aa2;
SELECT * FROM aa2 ORDER BY a;
