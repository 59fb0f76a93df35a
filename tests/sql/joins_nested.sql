-- A LEFT JOIN whose right side is itself a join: the nested join is NULL-extended as one group when nothing in it
-- matches (Sequelize's belongsToMany include is u LEFT JOIN p ON .. LEFT JOIN (pt JOIN t ON ..) ON ..), and its ON
-- may name any table of the group.
CREATE TABLE u (id INT PRIMARY KEY);
CREATE TABLE p (id INT PRIMARY KEY, uid INT);
CREATE TABLE pt (pid INT, tid INT);
CREATE TABLE t (id INT PRIMARY KEY, label VARCHAR(9));
INSERT INTO u VALUES (1), (2), (3);
INSERT INTO p VALUES (1, 1), (2, 1), (3, 2);
INSERT INTO t VALUES (1, 'sql'), (2, 'db');
INSERT INTO pt VALUES (1, 1), (1, 2), (3, 1);
SELECT u.id, p.id, pt.tid, t.label FROM u LEFT OUTER JOIN p ON u.id = p.uid LEFT OUTER JOIN (pt INNER JOIN t ON t.id = pt.tid) ON p.id = pt.pid ORDER BY u.id, p.id, t.label;
SELECT p.id, pt.tid FROM p LEFT JOIN (pt JOIN t ON t.id = pt.tid) ON p.id = pt.pid ORDER BY 1, 2;
SELECT p.id, x.tid FROM p LEFT JOIN (SELECT pt.* FROM pt JOIN t ON t.id = pt.tid) x ON p.id = x.pid ORDER BY 1, 2;
SELECT u.id, p.id, t.label FROM u LEFT JOIN (p JOIN pt ON pt.pid = p.id JOIN t ON t.id = pt.tid) ON u.id = p.uid ORDER BY 1, 2, 3;
SELECT u.id, p.id, t.label FROM u LEFT JOIN (p LEFT JOIN pt ON pt.pid = p.id JOIN t ON t.id = pt.tid AND t.label = 'db') ON u.id = p.uid AND t.id > 0 ORDER BY 1, 2, 3;
SELECT u.id, p.id, pt.tid FROM u LEFT JOIN (p JOIN pt ON pt.pid = p.id) ON u.id = p.uid WHERE pt.tid IS NULL ORDER BY 1, 2;
SELECT t.id, t.label, pt.pid, pt.tid, p.id FROM t RIGHT JOIN (pt JOIN p ON p.id = pt.pid) ON t.id = pt.tid AND t.label = 'sql' ORDER BY 1, 2, 3, 4, 5;
SELECT COUNT(*) FROM u LEFT JOIN (p JOIN pt ON pt.pid = p.id) ON u.id = p.uid AND pt.tid = 2;
SELECT u.id, x.id FROM u LEFT JOIN (p x JOIN pt ON pt.pid = x.id) USING (id) ORDER BY 1, 2;
SELECT u.id, p.id, t.label FROM u LEFT JOIN (p JOIN (pt JOIN t ON t.id = pt.tid) ON pt.pid = p.id) ON u.id = p.uid ORDER BY 1, 2, 3;
SELECT u.id, COUNT(t.id) FROM u LEFT JOIN (p JOIN pt ON pt.pid = p.id JOIN t ON t.id = pt.tid) ON u.id = p.uid GROUP BY u.id ORDER BY u.id;
DROP TABLE u, p, pt, t;
