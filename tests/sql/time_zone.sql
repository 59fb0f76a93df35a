-- @@time_zone: TIMESTAMP columns are read and written in the session's zone (kept in the server's), NOW() and
-- UNIX_TIMESTAMP() / FROM_UNIXTIME() follow it; DATETIME does not move.  mariadb-dump reads and writes
-- TIMESTAMPs at '+00:00', so a dump taken or restored at another zone depends on this.
CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, ts6 TIMESTAMP(6) NULL, dt DATETIME, KEY k_ts (ts));
SET time_zone = '+03:00';
INSERT INTO t VALUES (2, '2038-01-19 06:14:07', '2000-01-01 00:00:00.5', '2000-01-01 00:00:00');
INSERT INTO t VALUES (3, '2038-01-19 06:14:08', NULL, NULL);
INSERT INTO t VALUES (4, '1970-01-01 03:00:00', NULL, NULL);
INSERT INTO t VALUES (5, '1970-01-01 03:00:01', NULL, NULL);
INSERT INTO t VALUES (7, '2024-02-29 01:30:00', '0000-00-00 00:00:00', '2024-02-29 01:30:00');
SELECT id, ts, ts6, dt, UNIX_TIMESTAMP(ts) FROM t ORDER BY id;
SELECT id FROM t WHERE ts = '2024-02-29 01:30:00';
SELECT id FROM t WHERE ts > '2024-01-01' ORDER BY id;
SELECT id FROM t WHERE ts BETWEEN '1970-01-01 03:00:01' AND '2000-01-01' ORDER BY id;
UPDATE t SET ts = ts + INTERVAL 1 HOUR WHERE id = 7;
SELECT id, ts FROM t WHERE id = 7;
SELECT MIN(ts), MAX(ts) FROM t;
SET time_zone = '+00:00';
SELECT id, ts, ts6, dt FROM t ORDER BY id;
SELECT id FROM t WHERE ts = '2024-02-29 00:30:00';
SELECT HOUR(TIMEDIFF(NOW(), UTC_TIMESTAMP()));
SET time_zone = '+05:30';
SELECT TIMEDIFF(NOW(), UTC_TIMESTAMP()), TIMEDIFF(CURRENT_TIMESTAMP, UTC_TIMESTAMP());
SELECT FROM_UNIXTIME(0), UNIX_TIMESTAMP('1970-01-01 05:30:00');
SET time_zone = '-05:00';
INSERT INTO t VALUES (8, '1969-12-31 19:00:01', NULL, NULL);
INSERT INTO t VALUES (10, '2038-01-18 22:14:08', NULL, NULL);
SELECT id, ts FROM t ORDER BY id;
DELETE FROM t WHERE ts < '1970-01-02';
SELECT id FROM t ORDER BY id;
SET time_zone = DEFAULT;
SELECT id, ts FROM t ORDER BY id;
-- a prepared statement's plan made at one zone, run at another: the TIMESTAMP bound is in the running zone
SET time_zone = '+00:00';
PREPARE p1 FROM 'SELECT id FROM t WHERE ts = ? ORDER BY id';
SET @v = '2038-01-19 03:14:07';
EXECUTE p1 USING @v;
SET time_zone = '+03:00';
EXECUTE p1 USING @v;
SET @v = '2038-01-19 06:14:07';
EXECUTE p1 USING @v;
PREPARE p2 FROM 'SELECT id, ts FROM t WHERE ts > ? ORDER BY id';
SET @v = '1970-01-02';
EXECUTE p2 USING @v;
SET time_zone = DEFAULT;
EXECUTE p2 USING @v;
DEALLOCATE PREPARE p1;
DEALLOCATE PREPARE p2;
-- an index-only read of the TIMESTAMP index (covering) gives the values in the session's zone too
SET time_zone = '+03:00';
SELECT ts FROM t WHERE ts IS NOT NULL ORDER BY ts;
SELECT id, ts FROM t FORCE INDEX (k_ts) ORDER BY ts;
SELECT COUNT(*), MIN(ts), MAX(ts) FROM t;
SET time_zone = DEFAULT;
-- ranges over OR on the TIMESTAMP index, at a converting zone
SET time_zone = '+03:00';
SELECT id FROM t WHERE ts = '2038-01-19 06:14:07' OR ts = '2024-02-29 02:30:00' ORDER BY id;
SELECT id FROM t WHERE ts < '1970-01-02' OR ts > '2030-01-01' ORDER BY id;
SET time_zone = DEFAULT;
