-- JSON paths and text edge cases: path syntax and its errors (4041 / 4042 with positions), unicode, escapes,
-- numbers as written, nesting limits.
SELECT JSON_EXTRACT('{"a":{"b":{"c":[10,20,[30,40]]}}}', '$.a.b.c[2][1]'), JSON_EXTRACT('{"a":1}', '$ . a'), JSON_EXTRACT('{"a":1}', ' $.a');
SELECT JSON_EXTRACT('[1,2,3]', '$[ 1 ]'), JSON_EXTRACT('[1,2,3]', '$[last - 2]'), JSON_EXTRACT('[1,2,3]', '$[last-5]'), JSON_EXTRACT('[1,2,3]', '$[0 to last]');
SELECT JSON_EXTRACT('[1,2,3]', '$[2 to 1]'), JSON_EXTRACT('[1,2,3]', '$[1 to 9]'), JSON_EXTRACT('[[1,2],[3,4]]', '$[*][last]');
SELECT JSON_EXTRACT('{"a b":1,"c.d":2,"e\\"f":3}', '$."c.d"'), JSON_EXTRACT('{"e\\"f":3}', '$."e\\"f"'), JSON_EXTRACT('{"é":1}', '$.é'), JSON_EXTRACT('{"é":1}', '$."é"');
SELECT JSON_EXTRACT('{"\\u00e9":1}', '$."é"'), JSON_EXTRACT('{"a":{"a":{"a":1}}}', '$**.a'), JSON_EXTRACT('[{"a":1},[{"a":2}]]', '$**.a');
SELECT JSON_EXTRACT('{"a":[{"b":1},{"b":2}]}', '$.a[*].b'), JSON_EXTRACT('{"a":1}', '$[0]'), JSON_EXTRACT('{"a":1}', '$[0].a');
SELECT JSON_EXTRACT('[1]', 'lax $[0]'), JSON_EXTRACT('[1]', 'strict $[0]');
SELECT JSON_EXTRACT('[1]', '$[');
SELECT JSON_EXTRACT('[1]', '$[1');
SELECT JSON_EXTRACT('[1]', '$[-1]');
SELECT JSON_EXTRACT('[1]', '$[1]x');
SELECT JSON_EXTRACT('[1]', '$.a b');
SELECT JSON_EXTRACT('[1]', '$**');
SELECT JSON_EXTRACT('[1]', '$***');
SELECT JSON_EXTRACT('[1]', '$."a');
SELECT JSON_EXTRACT('[1]', '$a');
SELECT JSON_EXTRACT('[1]', '.a');
SELECT JSON_EXTRACT('[1]', '$..a');
SELECT JSON_EXTRACT('[1]', '$[*');
SELECT JSON_EXTRACT('[1]', '$[last-]');
SELECT JSON_EXTRACT('[1]', '$[1 to]');
SELECT JSON_EXTRACT('[1]', '$.*.*');
SELECT JSON_EXTRACT('[1]', '$.a', '$[');
-- unicode and escapes are kept as written; JSON_UNQUOTE decodes them
SELECT JSON_EXTRACT('["\\u0041\\u00e9\\u20ac\\ud83d\\ude00"]', '$[0]'), JSON_UNQUOTE(JSON_EXTRACT('["\\u0041\\u00e9\\u20ac"]', '$[0]'));
SELECT JSON_UNQUOTE('"\\b\\f\\n\\r\\t\\/\\\\\\""'), HEX(JSON_UNQUOTE('"\\b\\f"')), JSON_QUOTE('\b\f\0'), JSON_QUOTE('ü€ĳ');
SELECT JSON_ARRAY('é', 'ü€ĳ', '\\', '/'), JSON_OBJECT('é', 'x'), JSON_VALID('"é"'), JSON_LENGTH('"ü€ĳ"');
SELECT JSON_VALID('"\\u00e9"'), JSON_VALID('"\\u00E9"'), JSON_VALID('"\\u00e"'), JSON_VALID('"\\ud800\\udc00"'), JSON_VALID('"\\ud800x"');
-- numbers as written
SELECT JSON_EXTRACT('[1.50, 1e5, 1E-5, -0.0, 12345678901234567890123]', '$'), JSON_EXTRACT('[0.1e+2]', '$[0]') + 0, JSON_EXTRACT('[1e2]', '$[0]') * 2;
SELECT JSON_CONTAINS('[1.0, 2]', '1'), JSON_CONTAINS('[100]', '1e2'), JSON_EQUALS('[1e2]', '[100.0]'), JSON_OVERLAPS('[1.5]', '1.50');
SELECT JSON_VALUE('[1.50]', '$[0]') + 0, JSON_VALUE('[true]', '$[0]'), JSON_VALUE('[false]', '$[0]'), JSON_VALUE('["a\\tb"]', '$[0]');
-- whitespace inside and around documents
SELECT JSON_EXTRACT(' \t\n\r{ "a" : [ 1 ,\n 2 ] } \n', '$.a'), JSON_VALID('\n[1]\n'), JSON_VALID(CONCAT('[1]', CHAR(11))), JSON_VALID(CONCAT(CHAR(12), '1'));
SELECT JSON_VALID('[1,\n'), JSON_VALID('{"a":\n'), JSON_VALID('{"a\n":1}'), JSON_VALID('["\\']');
-- nesting
SELECT JSON_DEPTH('[[[[[[[[[[1]]]]]]]]]]'), JSON_LENGTH('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]');
SELECT JSON_EXTRACT('{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}', '$.a');
-- NULL and non-string arguments
SELECT JSON_EXTRACT(123, '$'), JSON_EXTRACT(1.5, '$'), JSON_LENGTH(12), JSON_TYPE(1), JSON_KEYS(NULL, '$'), JSON_DEPTH(''), JSON_TYPE('');
SELECT JSON_SEARCH('[1, "1"]', 'one', 1), JSON_CONTAINS_PATH('[1]', NULL, '$'), JSON_CONTAINS_PATH('[1]', 'one', NULL);
SELECT * FROM JSON_TABLE('[1,2]', '$[*]' COLUMNS (a INT PATH '$')) AS t;
SELECT json_table FROM (SELECT 1 AS json_table) x;
