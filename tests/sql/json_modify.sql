-- The JSON functions that change or compare documents: edge cases of paths that are not there, arrays that are
-- scalars, wildcards refused (4044), JSON_CONTAINS' nesting rules.
SELECT JSON_SET('{"a":1}', '$.b.c', 2), JSON_SET('{"a":[1,2]}', '$.a[1]', 'x'), JSON_SET('{"a":[1,2]}', '$.a[last]', 'z'), JSON_SET('[1,2]', '$[-1]', 9);
SELECT JSON_INSERT('[1,2]', '$[1]', 9), JSON_INSERT('[1,2]', '$[2]', 9), JSON_INSERT('{}', '$.a', JSON_OBJECT('b', 1)), JSON_INSERT('{"a":1}', '$.a[1]', 2);
SELECT JSON_REPLACE('[1,2]', '$[2]', 9), JSON_REPLACE('{"a":{"b":1}}', '$.a.b', '[]'), JSON_REPLACE('1', '$', 2), JSON_REPLACE('{"a":1}', '$.a[0]', 5);
SELECT JSON_SET('{"a":1}', '$.a', 2, '$.a', 3), JSON_SET('[]', '$[0]', 1, '$[1]', 2), JSON_INSERT('{"a":1}', '$.b', 1, '$.c', 2);
SELECT JSON_SET('[1]', '$[*]', 2);
SELECT JSON_REMOVE('[1]', '$[*]');
SELECT JSON_REPLACE('{}', '$**.a', 1);
SELECT JSON_ARRAY_APPEND('[1]', '$[*]', 2);
SELECT JSON_REMOVE('{"a":{"b":1,"c":2}}', '$.a.b'), JSON_REMOVE('[[1,2],3]', '$[0][1]'), JSON_REMOVE('[1,2]', '$[5]'), JSON_REMOVE('[1,2,3]', '$[last]');
SELECT JSON_ARRAY_APPEND('{"a":[1]}', '$.a', JSON_ARRAY(2)), JSON_ARRAY_APPEND('[1]', '$', NULL), JSON_ARRAY_APPEND('{"a":{}}', '$.a', 1);
SELECT JSON_ARRAY_INSERT('[1,2]', '$[0]', 0), JSON_ARRAY_INSERT('[1,2]', '$[last]', 'L'), JSON_ARRAY_INSERT('[[1]]', '$[0][0]', 0), JSON_ARRAY_INSERT('[1]', '$[0]', NULL);
SELECT JSON_CONTAINS('[1,[2,3]]', '[2]'), JSON_CONTAINS('[[1,2]]', '[1]'), JSON_CONTAINS('{"a":[1,2]}', '{"a":1}'), JSON_CONTAINS('[1,2]', '[]'), JSON_CONTAINS('{}', '{}');
SELECT JSON_CONTAINS('[{"a":1,"b":2}]', '{"a":1}'), JSON_CONTAINS('"abc"', '"b"'), JSON_CONTAINS('[1]', '[1,1]'), JSON_CONTAINS('{"a":1}', '[1]'), JSON_CONTAINS('1', '[1]');
SELECT JSON_CONTAINS('[1]', '1', '$[*]');
SELECT JSON_CONTAINS('[1', '1');
SELECT JSON_CONTAINS('[1]', '1 x');
SELECT JSON_OVERLAPS('{"a":[1]}', '{"a":[1]}'), JSON_OVERLAPS('[[1]]', '[1]'), JSON_OVERLAPS('[]', '[]'), JSON_OVERLAPS('null', 'null'), JSON_OVERLAPS('{"a":1}', '[{"a":1}]');
SELECT JSON_EQUALS('{"a":[1,{"b":2}]}', '{"a":[1,{"b":2.0}]}'), JSON_EQUALS('"a"', '"\\u0061"'), JSON_EQUALS('[1', '1');
SELECT JSON_MERGE_PATCH('{"a":[1,2]}', '{"a":[3]}'), JSON_MERGE_PATCH('{"a":1}', '{"a":{"b":null}}'), JSON_MERGE_PATCH('null', '{"a":1}'), JSON_MERGE_PATCH('{"a":1}', '{}', '{"b":2}');
SELECT JSON_MERGE_PRESERVE('{"a":[1]}', '{"a":[2]}', '{"a":3}'), JSON_MERGE_PRESERVE('"a"', '"b"', '["c"]'), JSON_MERGE_PRESERVE('{}', '{}');
SELECT JSON_KEYS('{"b":1,"a":2,"c":{"d":1}}'), JSON_KEYS('{"a":{"x":1,"y":2}}', '$.a'), JSON_KEYS('{"a":1}', '$.*');
SELECT JSON_LENGTH('{"a":[1,2,3]}', '$.a'), JSON_LENGTH('[[1,2],[3]]', '$[1]'), JSON_LENGTH('[]'), JSON_LENGTH('{"a":{}}', '$.a');
SELECT JSON_SEARCH('{"a b":"x","c":{"d-e":"x"},"1":"x"}', 'all', 'x'), JSON_SEARCH('{"a":[{"b":"xy"}]}', 'all', 'x%'), JSON_SEARCH('[["x"]]', 'one', 'x', NULL, '$[0]');
SELECT JSON_SEARCH('{"a":"x"}', 'all', 'x', NULL, '$.a', '$');
