-- The JSON functions (expr/json.c over expr/jsondoc.c): results printed as MariaDB prints them, warnings for
-- broken JSON text and paths (4036 .. 4046) with their positions, NULL handling.
-- JSON_VALID: notes for what breaks the text
SELECT JSON_VALID('{"a": 1}'), JSON_VALID('[1, 2'), JSON_VALID(' 1 '), JSON_VALID(''), JSON_VALID(NULL), JSON_VALID('01');
SELECT JSON_VALID('[1,]'), JSON_VALID('[1 2]'), JSON_VALID('x'), JSON_VALID('{"a":1 x'), JSON_VALID('[01]');
SELECT JSON_VALID('"ab'), JSON_VALID('[1.]'), JSON_VALID('{1:2}'), JSON_VALID('tru'), JSON_VALID('trux');
SELECT JSON_VALID('[1]]'), JSON_VALID('  [1] x'), JSON_VALID('"a\tb"'), JSON_VALID('[-]'), JSON_VALID('{"a":1,}');
SELECT JSON_VALID('[1e]'), JSON_VALID('['), JSON_VALID('{"a"'), JSON_VALID('1 2'), JSON_VALID('-'), JSON_VALID('1e');
SELECT JSON_VALID('{"a" 1}'), JSON_VALID('"\\u00e9"'), JSON_VALID('"\\u00zz"'), JSON_VALID('"\\x"'), JSON_VALID('nul');
SELECT JSON_VALID('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]');
SELECT JSON_VALID('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]');
SELECT JSON_VALID(1), JSON_VALID('true'), JSON_VALID('null'), JSON_VALID('{"a":{"b":[1,{"c":null}]}}');
-- JSON_EXTRACT keeps scalars' spelling and prints containers again
SELECT JSON_EXTRACT('{"a": [1,  2], "b":{"c" : 3}}', '$.a'), JSON_EXTRACT('{"a": [1,  2], "b":{"c" : 3}}', '$.a', '$.b');
SELECT JSON_EXTRACT('[1,2,3]', '$[*]'), JSON_EXTRACT('[1,2,3]', '$[0]'), JSON_EXTRACT('[1,2,3]', '$[3]'), JSON_EXTRACT('[1,2,3]', '$[last]');
SELECT JSON_EXTRACT('[1.0e2, "a\\u00e9\\n", -0, 1E+2]', '$[0]'), JSON_EXTRACT('[1.0e2, "a\\u00e9\\n"]', '$[1]');
SELECT JSON_EXTRACT('[1.0e2, "a\\u00e9\\n", -0, 1E+2]', '$'), JSON_EXTRACT('{"a":{"b":1}}', '$.a'), JSON_EXTRACT('{"a":{"b":1}}', '$.a.b');
SELECT JSON_EXTRACT('{"a b": 1, "c": {"d": [10, 20]}}', '$."a b"'), JSON_EXTRACT('{"c": {"d": [10, 20]}}', '$.c.d[1]');
SELECT JSON_EXTRACT('{"a":1,"b":2}', '$.*'), JSON_EXTRACT('{"a":{"x":1},"b":{"x":2}}', '$.*.x'), JSON_EXTRACT('[[1,2],[3]]', '$[*][0]');
SELECT JSON_EXTRACT('{"a":{"x":1},"b":[{"x":2}]}', '$**.x'), JSON_EXTRACT('[1,2,3,4,5]', '$[1 to 3]'), JSON_EXTRACT('[1,2,3,4,5]', '$[last-1]');
SELECT JSON_EXTRACT(NULL, '$'), JSON_EXTRACT('[1]', NULL), JSON_EXTRACT('{"a":1}', '$.b'), JSON_EXTRACT('1', '$[0]');
SELECT JSON_EXTRACT('{"a":', '$');
SELECT JSON_EXTRACT('{"a" 1}', '$');
SELECT JSON_EXTRACT('[1]', '$.a.');
SELECT JSON_EXTRACT('[1]', 'x');
SELECT JSON_EXTRACT('[1]', '$[');
SELECT JSON_EXTRACT('[1]', '$[a]');
SELECT JSON_EXTRACT('[1]', '$.');
SELECT JSON_EXTRACT('[1]', '');
SELECT JSON_EXTRACT('[1]');
-- JSON_UNQUOTE / JSON_QUOTE
SELECT JSON_UNQUOTE('"a\\nb\\u00e9"'), JSON_UNQUOTE('abc'), JSON_UNQUOTE('"abc'), JSON_UNQUOTE('"a\\"b"'), JSON_UNQUOTE(NULL);
SELECT JSON_UNQUOTE(JSON_EXTRACT('{"k":"click"}', '$.k')), JSON_UNQUOTE('[1, 2]'), JSON_UNQUOTE('""'), JSON_UNQUOTE('"\\t"');
SELECT JSON_QUOTE('a"\\b\n'), JSON_QUOTE(''), JSON_QUOTE(NULL), JSON_QUOTE('é'), JSON_QUOTE('tab\there');
SELECT JSON_QUOTE(1);
-- JSON_OBJECT / JSON_ARRAY
SELECT JSON_OBJECT('a', 1, 'b', 'x', 'c', NULL, 'd', TRUE, 'e', FALSE), JSON_OBJECT(), JSON_ARRAY();
SELECT JSON_ARRAY(1, 'a"b', NULL, 1.50, 1e3, JSON_OBJECT()), JSON_ARRAY(JSON_ARRAY(1, 2), '[1, 2]');
SELECT JSON_OBJECT('a', JSON_OBJECT('b', JSON_ARRAY(1, 'x'))), JSON_OBJECT('k"ey', 'v\\al');
SELECT JSON_OBJECT('a');
SELECT JSON_OBJECT('a', 1, 'b');
SELECT JSON_ARRAY(-5, 18446744073709551615, 0.1, -1.5e-3, 'x');
-- JSON_TYPE, JSON_KEYS, JSON_LENGTH, JSON_DEPTH
SELECT JSON_TYPE('{}'), JSON_TYPE('1'), JSON_TYPE('1.5'), JSON_TYPE('"x"'), JSON_TYPE('null'), JSON_TYPE('true'), JSON_TYPE('[]');
SELECT JSON_TYPE('1e2'), JSON_TYPE('-3'), JSON_TYPE(NULL), JSON_TYPE('false');
SELECT JSON_TYPE('[1');
SELECT JSON_KEYS('{"a":1,"b":{"c":2}}'), JSON_KEYS('{"a":1,"b":{"c":2}}', '$.b'), JSON_KEYS('[1]'), JSON_KEYS('{}'), JSON_KEYS(NULL);
SELECT JSON_KEYS('{"a":1}', '$.x'), JSON_KEYS('{"a":1}', NULL);
SELECT JSON_LENGTH('[1,2,[3]]'), JSON_LENGTH('{"a":1}', '$.a'), JSON_LENGTH('{}'), JSON_LENGTH('"x"'), JSON_LENGTH('[1]', '$[5]');
SELECT JSON_LENGTH('[1,2]', '$[*]');
SELECT JSON_DEPTH('[1,[2]]'), JSON_DEPTH('1'), JSON_DEPTH('[]'), JSON_DEPTH('{}'), JSON_DEPTH('{"a":[1,{"b":2}]}'), JSON_DEPTH(NULL);
-- JSON_CONTAINS / JSON_CONTAINS_PATH
SELECT JSON_CONTAINS('[1,2,{"a":3}]', '{"a":3}'), JSON_CONTAINS('[1,2]', '1'), JSON_CONTAINS('[1,2]', '3'), JSON_CONTAINS('[1,2]', '[2,1]');
SELECT JSON_CONTAINS('{"a":1,"b":2}', '{"a":1}'), JSON_CONTAINS('{"a":1}', '{"a":2}'), JSON_CONTAINS('{"a":[1,2]}', '1', '$.a');
SELECT JSON_CONTAINS('1', '1.0'), JSON_CONTAINS('"a"', '"a"'), JSON_CONTAINS(NULL, '1'), JSON_CONTAINS('[1]', NULL);
SELECT JSON_CONTAINS('{"a":1}', '1', '$.b');
SELECT JSON_CONTAINS_PATH('{"a":1}', 'one', '$.a', '$.b'), JSON_CONTAINS_PATH('{"a":1}', 'all', '$.a', '$.b'), JSON_CONTAINS_PATH('{"a":1}', 'ALL', '$.a');
SELECT JSON_CONTAINS_PATH('{"a":1}', 'some', '$.a');
SELECT JSON_CONTAINS_PATH('[1, [2]]', 'one', '$[1][0]'), JSON_CONTAINS_PATH(NULL, 'one', '$'), JSON_CONTAINS_PATH('{"tags":[]}', 'one', '$."tags"');
-- JSON_SET / JSON_INSERT / JSON_REPLACE
SELECT JSON_SET('{"a":1}', '$.b', 2), JSON_SET('{ "a" : 1 }', '$.a', '[1]'), JSON_INSERT('[1, 2]', '$[5]', 3), JSON_REPLACE('{"a":1}', '$.a', JSON_ARRAY(1, 2));
SELECT JSON_SET('{"a" :  1,"b":[1,2]}', '$.c', 3), JSON_INSERT('{"a":[1,2]}', '$.a[0]', 9), JSON_REPLACE('{"a":[1,2]}', '$.a[0]', 9);
SELECT JSON_SET('[1]', '$[0]', 'x', '$[1]', 'y'), JSON_INSERT('{"a":1}', '$.a', 2, '$.b', 3), JSON_REPLACE('{"a":1}', '$.b', 2);
SELECT JSON_SET('1', '$[0]', 2), JSON_SET('1', '$[1]', 2), JSON_SET('{"a":1}', '$', '[]'), JSON_SET('{"a":{}}', '$.a.b.c', 1);
SELECT JSON_SET(NULL, '$.a', 1), JSON_SET('{}', NULL, 1), JSON_SET('{}', '$.a', NULL), JSON_SET('{}', '$.a', TRUE);
SELECT JSON_SET('{}', '$.*', 1);
SELECT JSON_SET('{}', '$.a');
-- JSON_REMOVE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT
SELECT JSON_REMOVE('[1, 2, 3]', '$[1]'), JSON_REMOVE('{"a": 1, "b": 2}', '$.a'), JSON_REMOVE('{"a":1}', '$.x'), JSON_REMOVE('[1,2,3]', '$[0]', '$[0]');
SELECT JSON_REMOVE('[1]', '$');
SELECT JSON_REMOVE(NULL, '$[0]'), JSON_REMOVE('[1]', NULL);
SELECT JSON_ARRAY_APPEND('[1, 2]', '$', 3), JSON_ARRAY_APPEND('{"a": 1}', '$.a', 2), JSON_ARRAY_APPEND('{"a":1,"b":[1 ,2]}', '$.b', 3);
SELECT JSON_ARRAY_APPEND('[[1],2]', '$[0]', 'x', '$[1]', 'y'), JSON_ARRAY_APPEND('{"a":1}', '$.z', 2), JSON_ARRAY_APPEND('1', '$', 2);
SELECT JSON_ARRAY_INSERT('[1, 2]', '$[1]', 'x'), JSON_ARRAY_INSERT('[1, 2]', '$[9]', 'x'), JSON_ARRAY_INSERT('{"a":[1]}', '$.a[0]', 0);
SELECT JSON_ARRAY_INSERT('[1]', '$', 2);
SELECT JSON_ARRAY_INSERT('{"a":1}', '$.a', 2);
-- JSON_MERGE_PATCH / JSON_MERGE_PRESERVE / JSON_MERGE
SELECT JSON_MERGE_PATCH('{"a":1,"b":2}', '{"b":null,"c":3}'), JSON_MERGE_PATCH('{"a" :  [1,2]}', '{"c":{"d":1}}'), JSON_MERGE_PATCH('[1]', '[2]');
SELECT JSON_MERGE_PATCH('{"a":{"x":1}}', '{"a":{"y":2}}'), JSON_MERGE_PATCH('1', '{"a":1}'), JSON_MERGE_PATCH('{"a":1}', '2');
SELECT JSON_MERGE_PATCH(NULL, '{"a":1}'), JSON_MERGE_PATCH('{"a":1}', NULL), JSON_MERGE_PATCH('{"a":1}', NULL, '{"b":2}');
SELECT JSON_MERGE_PRESERVE('{"a":1}', '{"a":2}'), JSON_MERGE('[1]', '[2]'), JSON_MERGE_PRESERVE('{"a":1,  "b":[1]}', '{"b":2}');
SELECT JSON_MERGE_PRESERVE('1', '2'), JSON_MERGE_PRESERVE('[1]', '{"a":1}'), JSON_MERGE_PRESERVE('{"a":1}', '[1]'), JSON_MERGE_PRESERVE('[1]', NULL);
SELECT JSON_MERGE('[1', '[2]');
-- JSON_SEARCH
SELECT JSON_SEARCH('["abc","x",{"k":"abc"}]', 'all', 'abc'), JSON_SEARCH('["abc"]', 'one', 'a%'), JSON_SEARCH('["abc"]', 'one', 'z');
SELECT JSON_SEARCH('{"a":["x","y"],"b":"y"}', 'all', 'y'), JSON_SEARCH('{"a":["x","y"],"b":"y"}', 'one', 'y'), JSON_SEARCH('["a_c"]', 'one', 'a\\_c');
SELECT JSON_SEARCH('["a%c","abc"]', 'all', 'a|%c', '|'), JSON_SEARCH(NULL, 'one', 'a'), JSON_SEARCH('["a"]', 'one', NULL);
SELECT JSON_SEARCH('{"a":["x","y"],"b":"y"}', 'all', 'y', NULL, '$.a');
SELECT JSON_SEARCH('["a"]', 'two', 'a');
-- JSON_VALUE / JSON_QUERY / JSON_EXISTS
SELECT JSON_VALUE('{"a":"x"}', '$.a'), JSON_VALUE('{"a":[1]}', '$.a'), JSON_VALUE('{"a":1.50}', '$.a'), JSON_VALUE('{"a":null}', '$.a'), JSON_VALUE('{"a":"\\u00e9"}', '$.a');
SELECT JSON_QUERY('{"a":[1]}', '$.a'), JSON_QUERY('{"a":"x"}', '$.a'), JSON_QUERY('{"a":{"b" :2}}', '$.a'), JSON_QUERY(NULL, '$');
SELECT JSON_EXISTS('{"a":1}', '$.a'), JSON_EXISTS('{"a":1}', '$.b'), JSON_EXISTS('[1]', '$[0]'), JSON_EXISTS(NULL, '$');
-- layouts
SELECT JSON_COMPACT('{ "a" : [ 1 , 2 ] }'), JSON_LOOSE('{ "a" :1, "b" : [ ] ,"c":{ } }'), JSON_COMPACT('[ 1 , { } ]'), JSON_COMPACT(NULL);
SELECT JSON_DETAILED('{"a":[1,2],"b":{}}'), JSON_DETAILED('[1,[2,{"a":[]}],{}]'), JSON_DETAILED('{"a":1}'), JSON_DETAILED('1'), JSON_DETAILED('[]');
SELECT JSON_PRETTY('{"a":{"b":1}}'), JSON_DETAILED('{}');
SELECT JSON_COMPACT('[1');
-- JSON_OVERLAPS / JSON_EQUALS / JSON_NORMALIZE
SELECT JSON_OVERLAPS('[1,2]', '[2,3]'), JSON_OVERLAPS('[1,2]', '[3]'), JSON_OVERLAPS('{"a":1}', '{"a":1,"b":2}'), JSON_OVERLAPS('1', '[1]');
SELECT JSON_EQUALS('{"a":1,"b":2}', '{"b":2,"a":1}'), JSON_EQUALS('[1,2]', '[2,1]'), JSON_EQUALS('1', '1.0'), JSON_EQUALS(NULL, '1');
SELECT JSON_NORMALIZE('{"b":1.0,"a":[1e2, "x"]}'), JSON_NORMALIZE('[-0, 0.5, 12345678, true, null]'), JSON_NORMALIZE(NULL);
-- text after the document, booleans, NULL keys, surrogates, duplicate keys, JSON_DETAILED's indentation
SELECT JSON_VALID('[1] x'), JSON_LENGTH('[1] x'), JSON_EXTRACT('[1,2] x', '$[0]'), JSON_TYPE('1 x'), JSON_KEYS('{"a":1} ]');
SELECT JSON_LENGTH('1 2'), JSON_EXTRACT('{"a":1} {', '$.a');
SELECT JSON_ARRAY(1=1, 1<2, NOT 1, 'a' LIKE 'a', NULL IS NULL, 1 IN (1, 2), 2 BETWEEN 1 AND 3), JSON_OBJECT('a', 1>0), JSON_OBJECT(NULL, 1);
SELECT JSON_OBJECT('a', x'41'), JSON_ARRAY(_binary'ab'), JSON_ARRAY(DATE'2020-01-01'), JSON_ARRAY(CAST(1.5 AS DOUBLE)), JSON_ARRAY(0.1e0), JSON_ARRAY(1 + 1);
SELECT JSON_UNQUOTE('"\ud83d\ude00"') = _utf8mb4 0xF09F9880, JSON_UNQUOTE('"\ud83d"'), JSON_UNQUOTE('"a\x"'), JSON_VALID('"\udc00"');
SELECT JSON_EXTRACT('{"a":1,"a":2}', '$.a'), JSON_KEYS('{"a":1,"a":2}'), JSON_LENGTH('{"a":1,"a":2}');
SELECT JSON_DETAILED('[1]'), JSON_DETAILED('{"a":[1]}'), JSON_DETAILED('[1,2]', 2), JSON_DETAILED('{"a":[1,2]}', 3), JSON_DETAILED('[[1],[2,3]]'), JSON_DETAILED('[{"a":1}]', 1);
SELECT JSON_PRETTY('[1, "a"]'), JSON_DETAILED('["a"]'), JSON_DETAILED('[null]'), JSON_DETAILED('[[]]'), JSON_DETAILED('[{}]');
-- JSON in tables
CREATE TABLE j (id INT PRIMARY KEY, doc JSON);
INSERT INTO j VALUES (1, '{"kind": "click", "n": 3, "tags": ["a", "b"]}'), (2, '{"kind":"view","n":1}'), (3, NULL);
SELECT id, JSON_EXTRACT(doc, '$.kind'), JSON_UNQUOTE(JSON_EXTRACT(doc, '$.kind')), JSON_LENGTH(doc) FROM j ORDER BY id;
SELECT id FROM j WHERE JSON_UNQUOTE(JSON_EXTRACT(doc, '$."kind"')) = 'click';
SELECT id FROM j WHERE JSON_CONTAINS_PATH(doc, 'one', '$."tags"') ORDER BY id;
SELECT id, JSON_SET(doc, '$.n', JSON_EXTRACT(doc, '$.n') + 1) FROM j ORDER BY id;
UPDATE j SET doc = JSON_SET(doc, '$.seen', TRUE) WHERE id = 2;
SELECT doc FROM j WHERE id = 2;
DROP TABLE j;
-- a JSON function's result compared with a plain string: its string scalar is compared unquoted
SELECT JSON_EXTRACT('{"k":"click"}', '$.k') = 'click', 'click' = JSON_EXTRACT('"click"', '$'), JSON_EXTRACT('"a"', '$') = '"a"';
SELECT JSON_EXTRACT('[1]', '$') = '[1]', JSON_EXTRACT('"b"', '$') > 'a', JSON_EXTRACT('1', '$') = 1, JSON_UNQUOTE(JSON_EXTRACT('{"k":"v"}', '$.k')) = JSON_EXTRACT('"v"', '$');
-- JSON columns are JSON as value arguments (not in comparisons); JSON_ARRAYAGG / JSON_OBJECTAGG
CREATE TABLE jc (c JSON, s TEXT);
INSERT INTO jc VALUES ('{"a": [1, 2]}', '{"a": [1, 2]}'), ('"x"', '"x"');
SELECT JSON_OBJECT('x', c), JSON_OBJECT('x', s), JSON_ARRAY(c, s), JSON_SET('{}', '$.k', c) FROM jc ORDER BY s;
SELECT c = 'x', s = 'x', c = '"x"' FROM jc WHERE s = '"x"';
SELECT c->'$.a' FROM jc;
CREATE TABLE ag (g INT, k VARCHAR(10), v INT, j JSON);
INSERT INTO ag VALUES (1, 'a', 1, '[1]'), (1, 'b', NULL, '{"x": 2}'), (2, 'c', 3, NULL), (2, NULL, 4, '"s"');
SELECT g, JSON_ARRAYAGG(v), JSON_ARRAYAGG(k), JSON_ARRAYAGG(j), JSON_OBJECTAGG(k, v) FROM ag GROUP BY g ORDER BY g;
SELECT JSON_ARRAYAGG(v) FROM ag WHERE 0;
SELECT JSON_OBJECTAGG(k, j) FROM ag WHERE g = 1;
SELECT JSON_ARRAYAGG(1.5), JSON_ARRAYAGG(TRUE), JSON_ARRAYAGG(v > 1) FROM ag;
SELECT JSON_OBJECTAGG(k) FROM ag;
SELECT JSON_ARRAYAGG(v, k) FROM ag;
DROP TABLE jc, ag;
-- JSON_ARRAYAGG is MariaDB's GROUP_CONCAT of JSON items: DISTINCT, ORDER BY, group_concat_max_len
CREATE TABLE ag (g INT, k VARCHAR(10), v INT, j JSON);
INSERT INTO ag VALUES (1, 'a', 1, '[1]'), (1, 'b', NULL, '{"x": 2}'), (2, 'c', 3, NULL), (2, NULL, 4, '"s"'), (3, 'a', 1, '[1]');
SELECT JSON_ARRAYAGG(DISTINCT v), JSON_ARRAYAGG(v ORDER BY v DESC), JSON_ARRAYAGG(DISTINCT k ORDER BY k), JSON_ARRAYAGG(DISTINCT j) FROM ag;
SELECT g, JSON_ARRAYAGG(k ORDER BY k DESC) FROM ag GROUP BY g ORDER BY g;
SET SESSION group_concat_max_len = 6;
SELECT JSON_ARRAYAGG(v), JSON_OBJECTAGG(k, v) FROM ag;
SELECT JSON_ARRAYAGG(v ORDER BY g, v DESC) FROM ag;
SET SESSION group_concat_max_len = DEFAULT;
SELECT JSON_OBJECTAGG(DISTINCT k, v) FROM ag;
SELECT JSON_ARRAYAGG(v SEPARATOR ';') FROM ag;
SELECT JSON_ARRAYAGG(v) OVER () FROM ag;
SELECT JSON_OBJECTAGG(k, v) OVER () FROM ag;
DROP TABLE ag;
-- JSON_EXTRACT's value in numeric context
SELECT JSON_EXTRACT('{"n":3}', '$.n') + 1, JSON_EXTRACT('[1.5]', '$[0]') * 2, JSON_EXTRACT('{"n":3}', '$.n') > 2, JSON_EXTRACT('{"n":10}', '$.n') > 9;
SELECT JSON_EXTRACT('{"n":"x"}', '$.n') + 0, JSON_EXTRACT('[[1]]', '$[0]') + 0, CAST(JSON_EXTRACT('{"n":3}', '$.n') AS SIGNED);
SELECT SUM(JSON_EXTRACT(j, '$.n')) FROM (SELECT '{"n":1}' AS j UNION ALL SELECT '{"n":2.5}') t;
SELECT JSON_EXTRACT('{"ok": true}', '$.ok') = 1, JSON_EXTRACT('{"ok": false}', '$.ok') = 0, JSON_EXTRACT('{"ok": true}', '$.ok') = TRUE, JSON_EXTRACT('{"n": "3"}', '$.n') = 3;
SELECT CASE JSON_EXTRACT('{"ok": true}', '$.ok') WHEN 'null' THEN NULL WHEN TRUE THEN TRUE ELSE FALSE END, CASE JSON_EXTRACT('{"ok": null}', '$.ok') WHEN 'null' THEN NULL WHEN TRUE THEN TRUE ELSE FALSE END;
SELECT JSON_EXTRACT('[1]', '$') = 0, JSON_EXTRACT('{"n": 2.50}', '$.n') = 2.5, 1 = JSON_EXTRACT('[true]', '$[0]');
