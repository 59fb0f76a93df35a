"""What rolling back one large INSERT ... SELECT costs (docs/performance.md, "Peak memory of one large
statement").  Usage: rollback-memory.py PORT PID against a freshly started stratad with the binary log on, e.g.
build/stratad --no-defaults --datadir=/tmp/sm --port=3412 --log-bin=bin --server-id=1 --innodb-buffer-pool-size=64M
BEGIN, a 1,000,000-row INSERT ... SELECT into a table with a secondary index, ROLLBACK; prints both times, the
rows left (0), the peak growth of Memory_used (sampled every 10 ms) and VmHWM / VmRSS."""
import os, sys, time, pymysql
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'integration'))
from sqlutil import memory_growth  # noqa: E402 - the sampler the tests use
port, pid = int(sys.argv[1]), int(sys.argv[2])
def vm():
    return {l.split(':')[0]: int(l.split()[1])//1024 for l in open('/proc/%d/status' % pid) if l.startswith(('VmHWM','VmRSS'))}
c = pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True); cur = c.cursor()
m = pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True); mc = m.cursor()
cur.execute('CREATE DATABASE m'); cur.execute('CREATE TABLE m.k (i INT PRIMARY KEY)')
cur.execute('INSERT INTO m.k VALUES ' + ','.join('(%d)' % i for i in range(1000)))
cur.execute('CREATE TABLE m.t (id INT PRIMARY KEY, pad CHAR(60), KEY(pad))')
t = {}
def write_and_roll_back():
    cur.execute('BEGIN'); t[0] = time.time()
    cur.execute("INSERT INTO m.t SELECT a.i*1000+b.i, REPEAT('x',60) FROM m.k a, m.k b")
    t[1] = time.time(); cur.execute('ROLLBACK'); t[2] = time.time()
growth = memory_growth(m, write_and_roll_back)
t0, t1, t2 = t[0], t[1], t[2]
cur.execute('SELECT COUNT(*) FROM m.t'); n = cur.fetchall()[0][0]
print('insert %.1f s, rollback %.1f s, rows after %d, Memory_used peak +%d MiB, %s' % (t1-t0, t2-t1, n, growth>>20, vm()))
