-- More types: every column type in SHOW CREATE TABLE / DESCRIBE, result metadata (@meta: type, flags, decimals)
-- of columns and common expressions, temporal rounding and arithmetic, unsigned arithmetic, BIT.
CREATE TABLE allt (
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  de DECIMAL(12,4), deu DECIMAL(5,0) UNSIGNED, fl FLOAT, db DOUBLE, bt BIT(5), bo BOOL,
  ch CHAR(4), vc VARCHAR(30), bn BINARY(3), vb VARBINARY(9), tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT,
  tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  d DATE, dt DATETIME, dt3 DATETIME(3), ts TIMESTAMP NULL, ts6 TIMESTAMP(6) NULL, tm TIME, tm2 TIME(2), y YEAR,
  en ENUM('a','b'), st SET('x','y'), nn INT NOT NULL DEFAULT 3, vl VARCHAR(10) CHARACTER SET latin1, vbin VARCHAR(5) COLLATE utf8mb4_bin
);
SHOW CREATE TABLE allt;
DESCRIBE allt;
INSERT INTO allt VALUES (-1, 1, -2, -3, -4, 4, -5, 5, 1.5, 2, 1.25, 2.5, b'10101', 1, 'ab', 'vc', 'bn', 'vb', 'tt', 'tx', 'mt', 'lt',
  'tb', 'bl', 'mb', 'lb', '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05.678', '2024-01-02 03:04:05', '2024-01-02 03:04:05.123456',
  '10:11:12', '10:11:12.34', 2024, 'b', 'x,y', 9, 'latin', 'Bin');
-- @meta
SELECT * FROM allt;
-- @meta
SELECT ti + 1, iu - 1, bi * 2, de + 1, de * de, fl + 1, db / 2, ch, CONCAT(vc, 'x'), d + INTERVAL 1 DAY, dt3, tm2, y, en, st, nn FROM allt;
-- @meta
SELECT COUNT(*), SUM(i), SUM(de), AVG(i), AVG(de), MIN(vc), MAX(d), GROUP_CONCAT(ch) FROM allt;
-- @meta
SELECT 1, -1, 1.5, 1e0, 'a', NULL, 18446744073709551615, 1 + 1, 1.0 * 2, 10 / 4, 10 DIV 4, CAST(1 AS UNSIGNED), CAST('2024-01-01' AS DATE), NOW() IS NULL;
SELECT HEX(bn), LENGTH(bn), HEX(bt), bt + 0, vl, vbin FROM allt;
SELECT CAST('2024-01-02 03:04:05.6789' AS DATETIME(2)), CAST('10:11:12.999' AS TIME), CAST('2024-01-02 23:59:59.9' AS DATETIME);
CREATE TABLE tr (dt DATETIME, dt2 DATETIME(2), t TIME, t1 TIME(1), ts TIMESTAMP(1) NULL);
INSERT INTO tr VALUES ('2024-01-02 03:04:05.5', '2024-01-02 03:04:05.555', '10:11:12.5', '10:11:12.55', '2024-01-02 03:04:05.55');
INSERT INTO tr VALUES ('2024-12-31 23:59:59.999', '2024-12-31 23:59:59.999', '23:59:59.9', '-10:11:12.55', NULL);
SELECT * FROM tr ORDER BY dt;
SELECT dt + INTERVAL 1 SECOND, dt2 - INTERVAL 1 DAY, t + INTERVAL 30 MINUTE, TIMEDIFF(dt2, dt), dt2 > dt FROM tr ORDER BY dt;
SELECT DATE_ADD(dt2, INTERVAL 500 MICROSECOND), DATE_SUB(t1, INTERVAL 1 HOUR), ADDTIME(dt, '01:00:00.25') FROM tr ORDER BY dt;
SELECT CAST(iu AS SIGNED) - 10, biu + 18446744073709551610, iu * 1000000000000 FROM allt;
SELECT biu - 6 FROM allt;
SELECT -biu FROM allt;
SELECT 9223372036854775807 * 2;
SELECT 5 & 3, 5 | 8, 5 ^ 1, ~5, 1 << 4, 256 >> 4, BIT_COUNT(255);
SELECT 0.1 + 0.7, 1.1 * 1.1, 2.0 / 3, 1 / 3, 1e0 / 3, 100 * 1.1, 12345678901234567890 + 1;
SELECT '1e2' + 0, '0x10' + 0, '.5' + 0, '-' + 0, ' 12 ' + 0, '1,5' + 0;
