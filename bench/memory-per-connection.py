"""What idle connections keep after each wrote a transaction of 20,000 rows once (docs/performance.md, "Memory
after a large write").  Usage: memory-per-connection.py PORT CONNECTIONS, against a stratad with a database m
holding a table k of the integers 0..999 (m.c is created)."""
import pymysql, sys, threading
port = int(sys.argv[1]); n = int(sys.argv[2])
def st(c):
    cur = c.cursor(); cur.execute("SHOW GLOBAL STATUS LIKE 'Memory_used'"); return int(cur.fetchone()[1])
a = pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True, database='m')
a.cursor().execute('DROP TABLE IF EXISTS m.c'); a.cursor().execute('CREATE TABLE m.c (id INT PRIMARY KEY, pad CHAR(60))')
base = st(a)
cs = [pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True, database='m') for _ in range(n)]
opened = st(a)
for i, c in enumerate(cs):
    cur = c.cursor(); cur.execute('BEGIN')
    cur.execute("INSERT INTO m.c SELECT %d + a.i * 1000 + b.i, REPEAT('x', 60) FROM k a, k b WHERE a.i < 20" % (i * 100000))
    cur.execute('COMMIT')
print('connections %d: Memory_used base %.1f MB, opened %.1f MB, after each wrote 20,000 rows %.1f MB' % (n, base/1e6, opened/1e6, st(a)/1e6))
