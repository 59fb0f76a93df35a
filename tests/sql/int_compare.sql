-- Comparisons, BETWEEN, AND and OR on integer operands (expr/eval.c sql_expr_eval's own cases) beside the same
-- forms on other types (eval_full): three-valued logic, NOT BETWEEN, <=>, signed against unsigned, the edges.
CREATE TABLE ic (id INT PRIMARY KEY, a INT, b BIGINT, u BIGINT UNSIGNED, d DECIMAL(10,2), s VARCHAR(10), KEY (a));
INSERT INTO ic VALUES (1, 5, -9223372036854775808, 18446744073709551615, 5.00, '5'), (2, NULL, 0, 0, NULL, NULL),
  (3, -1, 9223372036854775807, 9223372036854775808, -1.50, 'x'), (4, 10, 10, 10, 10.00, '10'), (5, 0, NULL, NULL, 0, '');
SELECT id, a BETWEEN 0 AND 5, a NOT BETWEEN 0 AND 5, a BETWEEN NULL AND 5, a BETWEEN 0 AND NULL, a NOT BETWEEN NULL AND 4 FROM ic ORDER BY id;
SELECT id, a = 5, a <> 5, a < 5, a <= 5, a > 5, a >= 5, a <=> 5, a <=> NULL, NULL <=> a FROM ic ORDER BY id;
SELECT id, a = 5 OR a IS NULL, a = 5 OR a = NULL, a = 5 AND a = NULL, a > 0 AND b > 0, a > 0 OR b > 0 FROM ic ORDER BY id;
SELECT id, b < u, b = u, u > b, b BETWEEN -1 AND u, u BETWEEN b AND 18446744073709551615 FROM ic ORDER BY id;
SELECT id, a = d, a BETWEEN d AND 10, a = s, a BETWEEN s AND 10, d BETWEEN a AND 10 FROM ic ORDER BY id;
SELECT COUNT(*) FROM ic WHERE a BETWEEN 0 AND 5 OR a BETWEEN 9 AND 11 OR a BETWEEN -3 AND -1;
SELECT COUNT(*) FROM ic WHERE NOT (a BETWEEN 0 AND 5 OR a > 9);
SELECT id FROM ic WHERE b BETWEEN -9223372036854775808 AND -1 OR b = 9223372036854775807 ORDER BY id;
PREPARE p FROM 'SELECT COUNT(*), SUM(id) FROM ic WHERE a BETWEEN ? AND ? OR a BETWEEN ? AND ? OR a = ?';
SET @a = 0, @b = 5, @c = 9, @d = 10, @e = -1;
EXECUTE p USING @a, @b, @c, @d, @e;
SET @a = NULL;
EXECUTE p USING @a, @b, @c, @d, @e;
SET @a = '0', @b = 5.5;
EXECUTE p USING @a, @b, @c, @d, @e;
DEALLOCATE PREPARE p;
SELECT 1 BETWEEN 1 AND 1, 2 NOT BETWEEN 1 AND 3, -9223372036854775808 < 9223372036854775807, 0 <=> 0, 1 AND NULL, 0 AND NULL, 1 OR NULL, 0 OR NULL;
DROP TABLE ic;
