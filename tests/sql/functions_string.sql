-- String functions.
SELECT CONCAT('a', 'b', 'c'), CONCAT('a', 1, 2.5), CONCAT('a', NULL), CONCAT(), CONCAT_WS(',', 'a', NULL, 'b'), CONCAT_WS(NULL, 'a');
SELECT LENGTH('héllo'), CHAR_LENGTH('héllo'), CHARACTER_LENGTH('abc'), OCTET_LENGTH('é'), BIT_LENGTH('ab'), LENGTH(NULL), LENGTH(123);
SELECT SUBSTRING('hello world', 7), SUBSTRING('hello', 2, 3), SUBSTRING('hello', -3), SUBSTRING('hello', -3, 2), SUBSTRING('hello', 0), SUBSTRING('hello' FROM 2 FOR 2), SUBSTR('hello', 10), MID('hello', 2, 2);
SELECT LEFT('hello', 2), RIGHT('hello', 2), LEFT('hi', 10), RIGHT('hi', -1), LEFT(NULL, 1), LEFT('héllo', 2);
SELECT UPPER('abcé'), LOWER('ABCÉ'), UCASE('x'), LCASE('Y');
SELECT TRIM('  a b  '), LTRIM('  a '), RTRIM(' a  '), TRIM(LEADING 'x' FROM 'xxaxx'), TRIM(TRAILING 'x' FROM 'xxaxx'), TRIM(BOTH 'xy' FROM 'xyaxy'), TRIM('x' FROM 'xax');
SELECT REPLACE('aaa', 'a', 'bb'), REPLACE('abc', '', 'x'), REPLACE('abc', 'B', 'x'), REPLACE(NULL, 'a', 'b');
SELECT LPAD('ab', 5, '*'), RPAD('ab', 5, '*-'), LPAD('abcdef', 3, '*'), RPAD('ab', 0, 'x'), LPAD('ab', 5, ''), LPAD('ab', -1, 'x');
SELECT INSTR('foobar', 'bar'), INSTR('foobar', 'x'), INSTR('FooBar', 'bar'), LOCATE('bar', 'foobarbar'), LOCATE('bar', 'foobarbar', 5), LOCATE('', 'abc'), POSITION('b' IN 'abc');
SELECT HEX('abc'), HEX(255), HEX(-1), HEX(NULL), UNHEX('616263'), UNHEX('zz'), HEX(UNHEX('00ff')), X'414243', 0x414243, 0x41 + 0;
SELECT REPEAT('ab', 3), REPEAT('a', 0), REPEAT('a', -1), REVERSE('abc'), SPACE(3), CONCAT('[', SPACE(0), ']');
SELECT ASCII('A'), ASCII(''), ORD('a'), CHAR(65, 66), CHAR(256) = 0x0100, CONV('ff', 16, 10), CONV(10, 10, 2), BIN(5), OCT(8);
SELECT STRCMP('a', 'b'), STRCMP('b', 'a'), STRCMP('a', 'A'), FIELD('b', 'a', 'b', 'c'), FIND_IN_SET('b', 'a,b,c'), ELT(2, 'x', 'y'), ELT(5, 'x');
SELECT INSERT('Quadratic', 3, 4, 'What'), SUBSTRING_INDEX('a.b.c', '.', 2), SUBSTRING_INDEX('a.b.c', '.', -1), SUBSTRING_INDEX('abc', '.', 1);
SELECT FORMAT(1234567.891, 2), FORMAT(0.5, 0), FORMAT(-1234.5, 1), QUOTE('it''s'), QUOTE(NULL);
SELECT MD5('abc'), SHA1('abc'), SHA2('abc', 256), CRC32('abc'), TO_BASE64('abc'), FROM_BASE64('YWJj');
SELECT 'a' 'b' 'c', _utf8mb4'x', N'nat', 'it''s', 'a\nb', 'tab\tx', 'q\'q', "dq", 'back\\slash', '\%\_';
SELECT CONCAT('abc' COLLATE utf8mb4_bin = 'ABC'), 'abc' = 'ABC' COLLATE utf8mb4_bin, 'abc' COLLATE utf8mb4_general_ci = 'ABC';
SELECT CHARSET('a'), COLLATION('a'), CHARSET(1), COLLATION(_latin1'a'), CHARSET(CONVERT('a' USING latin1));
SELECT LENGTH(CONVERT('é' USING latin1)), HEX(CONVERT('é' USING latin1)), HEX(CAST('é' AS BINARY));
SELECT SOUNDEX('Robert'), LOWER(NULL), UPPER(1), CONCAT(1.50), CONCAT(1e1), CONCAT(DATE '2024-01-02');
CREATE TABLE str (s VARCHAR(20), b VARBINARY(20));
INSERT INTO str VALUES ('Hello', 'Hello'), ('hello', 'hello'), ('HELLO ', 'HELLO '), (NULL, NULL), ('', '');
SELECT s, b FROM str WHERE s = 'hello' ORDER BY b;
SELECT s FROM str WHERE b = 'hello';
SELECT s, UPPER(s), LENGTH(s), CONCAT(s, '|') FROM str ORDER BY s, b;
SELECT DISTINCT s FROM str ORDER BY s;
SELECT COUNT(DISTINCT s), COUNT(DISTINCT b) FROM str;
SELECT GROUP_CONCAT(s ORDER BY b SEPARATOR '') FROM str;
SELECT MAX(s), MIN(s), MAX(b), MIN(b) FROM str;
SELECT UPPER('ñandú straße ÿ'), LOWER('ÀÉÎÕÜ ŁŻŹ'), UPPER('αβγ ωσς'), LOWER('ПРИВЕТ Ёж'), UPPER(BINARY 'abc'), HEX(UPPER(_latin1'abcé'));
SELECT HEX(CONVERT('é€' USING latin1)), CHAR_LENGTH(CONVERT('日本' USING latin1)), HEX(CONVERT('日本' USING latin1));
-- @diff result sets are not yet converted to character_set_results (latin1 values go out as their bytes); the charset work in exec_select.c / the protocol is on another branch
SELECT CONVERT('é' USING latin1), UPPER(_latin1'abcé');
-- @diff comparing strings of two character sets does not convert them to a common one yet (same branch as above)
SELECT CONVERT('€' USING latin1) = '€';
SELECT EXTRACT(YEAR FROM '2024-03-05'), EXTRACT(HOUR_MINUTE FROM '2024-03-05 14:07:09'), EXTRACT(DAY_SECOND FROM '2024-03-05 14:07:09'), EXTRACT(MICROSECOND FROM '10:00:00.25'), EXTRACT(WEEK FROM '2024-03-05'), EXTRACT(HOUR FROM '-10:00:00');
SELECT GREATEST('2024-01-01', DATE '2023-01-01'), LEAST(TIMESTAMP '2024-01-01 10:00:00', '2024-01-01'), GREATEST(DATE '2024-01-01', '2024-01-01 10:00:00');
