-- REGEXP / RLIKE / NOT REGEXP and REGEXP_REPLACE / REGEXP_SUBSTR / REGEXP_INSTR (PCRE2 in both servers).
SELECT 'ABC' REGEXP 'b', 'ABC' RLIKE 'b', 'ABC' NOT REGEXP 'b', 'abc' REGEXP '^a.c$';
SELECT 'ABC' REGEXP BINARY 'b', _binary'ABC' REGEXP 'b', 'ABC' COLLATE utf8mb4_bin REGEXP 'b';
SELECT 'Ä' REGEXP 'ä', 'é' REGEXP '^\\w$', 'straße' REGEXP 'STRASSE', 'ab12' REGEXP '^[a-z]+\\d+$';
SELECT NULL REGEXP 'a', 'a' REGEXP NULL, 'a' NOT REGEXP NULL, 1 REGEXP 1, 12.5 REGEXP '\\.5';
SELECT 'abc' REGEXP '', 'a\nb' REGEXP '^b', 'a\nb' REGEXP '(?m)^b', 'a\nb' REGEXP 'a.b', 'a\nb' REGEXP '(?s)a.b';
SELECT 'foobar' REGEXP 'foo(?=bar)', 'foobaz' REGEXP 'foo(?=bar)', 'abab' REGEXP '^(ab)\\1$', 'AbC' REGEXP '(?-i)abc';
-- @meta
SELECT 'a' REGEXP 'a' AS r;
-- errors: a bad pattern is 1139 with PCRE2's message and offset
SELECT 'a' REGEXP '(';
SELECT 'x' REGEXP '(?<x';
SELECT 'x' REGEXP 'x{2,1}';
SELECT 'x' REGEXP '[z-a]';
SELECT REGEXP_REPLACE('abc', '*', 'x');
SELECT REGEXP_SUBSTR('abc', 'b', 1);
SELECT REGEXP_REPLACE('abc', 'b');
SELECT REGEXP_INSTR('abc');
-- REGEXP_REPLACE
SELECT REGEXP_REPLACE('abcabc', '(b)', '<\\1>'), REGEXP_REPLACE('ABC', 'b', 'x'), REGEXP_REPLACE('aXbxc', 'x', '-');
SELECT REGEXP_REPLACE('abc', '', '-'), REGEXP_REPLACE('abc', 'x*', '-'), REGEXP_REPLACE('a.b.c', '[.]', '');
SELECT REGEXP_REPLACE('abcb', 'b', '[\\x\\\\\\0]'), REGEXP_REPLACE('abc', 'b', '\\'), REGEXP_REPLACE('abc', '(b)', '\\2');
SELECT REGEXP_REPLACE('abc', '(a)|(z)', '[\\2]'), REGEXP_REPLACE(1234, '2', 'x'), REGEXP_REPLACE('äöü', 'ö', 'o');
SELECT REGEXP_REPLACE(NULL, 'a', 'b'), REGEXP_REPLACE('a', NULL, 'b'), REGEXP_REPLACE('a', 'a', NULL);
SELECT REGEXP_REPLACE('hello world', '(\\w+) (\\w+)', '\\2 \\1'), REGEXP_REPLACE('aaa', 'a', 'bb');
SELECT REGEXP_REPLACE('ABC' COLLATE utf8mb4_bin, 'b', 'x'), REGEXP_REPLACE(_binary'ABC', 'b', 'x');
-- REGEXP_SUBSTR
SELECT REGEXP_SUBSTR('abc', 'x'), REGEXP_SUBSTR('abc', 'x') IS NULL, REGEXP_SUBSTR('abc', 'b.'), REGEXP_SUBSTR('xyz ABC', '[a-c]+');
SELECT REGEXP_SUBSTR('abc', NULL), REGEXP_SUBSTR(NULL, 'a'), REGEXP_SUBSTR('abc', ''), REGEXP_SUBSTR('日本語', '本.');
-- REGEXP_INSTR
SELECT REGEXP_INSTR('abc', 'c'), REGEXP_INSTR('äbc', 'c'), REGEXP_INSTR(_binary'äbc', 'c'), REGEXP_INSTR('abc', 'x');
SELECT REGEXP_INSTR('abc', ''), REGEXP_INSTR('abc', '(?i)B'), REGEXP_INSTR(NULL, 'a'), REGEXP_INSTR('ABC', 'b');
-- latin1 strings are matched as characters
SELECT REGEXP_INSTR(CONVERT('äbc' USING latin1), 'c'), CONVERT('Ä' USING latin1) REGEXP 'ä';
SELECT HEX(REGEXP_REPLACE(CONVERT('äbc' USING latin1), 'b', 'ö')), HEX(REGEXP_SUBSTR(CONVERT('xäy' USING latin1), 'ä.'));
-- collations that cannot meet
SELECT 'a' COLLATE utf8mb4_bin REGEXP 'a' COLLATE utf8mb4_general_ci;
-- columns, WHERE, a pattern per row
CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(40), p VARCHAR(20)) DEFAULT CHARSET=utf8mb4;
INSERT INTO t VALUES (1, 'apple', '^a'), (2, 'Banana', 'an+'), (3, 'cherry', 'rr'), (4, NULL, 'x'), (5, 'date', NULL), (6, 'Éclair', '^é');
SELECT id FROM t WHERE s REGEXP '^[ab]' ORDER BY id;
SELECT id FROM t WHERE s NOT REGEXP 'a' ORDER BY id;
SELECT id, s REGEXP p, REGEXP_SUBSTR(s, p), REGEXP_INSTR(s, p), REGEXP_REPLACE(s, p, '#') FROM t ORDER BY id;
SELECT id FROM t WHERE s RLIKE 'A' ORDER BY id;
SELECT COUNT(*) FROM t WHERE REGEXP_INSTR(s, '[aeiou]{2}') > 0;
-- @@default_regex_flags
SELECT @@default_regex_flags, @@session.default_regex_flags;
SET default_regex_flags = 'DOTALL';
SELECT @@default_regex_flags, 'a\nb' REGEXP 'a.b', 'a\nb' REGEXP '(?-s)a.b';
SET default_regex_flags = 'EXTENDED,MULTILINE';
SELECT @@default_regex_flags, 'abc' REGEXP 'a b c', 'x\nb' REGEXP '^b';
SET default_regex_flags = 'UNGREEDY';
SELECT REGEXP_SUBSTR('aaa', 'a+');
SET default_regex_flags = 'DOTALL,FOO';
SET default_regex_flags = '';
SELECT 'a\nb' REGEXP 'a.b';
-- a pattern that backtracks without end stops at the match limit: warning 1139, no match
SELECT CONCAT(REPEAT('a', 40), 'b') REGEXP '^(a|aa)+$';
SHOW WARNINGS;
SELECT REGEXP_INSTR(CONCAT(REPEAT('a', 40), 'b'), '^(a|aa)+$');
DROP TABLE t;
