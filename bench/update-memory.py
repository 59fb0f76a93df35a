"""What a million-row UPDATE and DELETE cost in memory (docs/performance.md, "UPDATE and DELETE stream too";
bench/RESULTS.md).  Usage: update-memory.py PORT PID against a freshly started stratad, e.g.
build/stratad --no-defaults --datadir=/tmp/sm --port=3412 --log-bin=bin --server-id=1 --innodb-buffer-pool-size=64M
Loads m.t (id INT PRIMARY KEY, pad CHAR(60), n INT) with 1,000,000 rows, then runs the UPDATEs at REPEATABLE READ
and READ COMMITTED and one DELETE, each autocommit, with Memory_used sampled every 10 ms from a second connection;
prints each statement's time, the peak growth of Memory_used and VmHWM (MiB)."""
import os
import sys
import time

import pymysql

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'integration'))
from sqlutil import memory_growth  # noqa: E402 - the sampler the tests use

port, pid = int(sys.argv[1]), int(sys.argv[2])


def hwm():
    for line in open('/proc/%d/status' % pid):
        if line.startswith('VmHWM:'):
            return int(line.split()[1]) // 1024


c = pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True)
m = pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True)
cur = c.cursor()
cur.execute('CREATE DATABASE m')
cur.execute('CREATE TABLE m.k (i INT PRIMARY KEY)')
cur.execute('INSERT INTO m.k VALUES ' + ','.join('(%d)' % i for i in range(1000)))
cur.execute('CREATE TABLE m.t (id INT PRIMARY KEY, pad CHAR(60), n INT)')
cur.execute("INSERT INTO m.t SELECT a.i * 1000 + b.i, REPEAT('x', 60), 0 FROM m.k a, m.k b")


def measure(label, q):
    t0 = time.time()
    growth = memory_growth(m, lambda: cur.execute(q))
    print('%-50s %.1f s, Memory_used peak +%d MiB, VmHWM %d' % (label, time.time() - t0, growth >> 20, hwm()))


for iso in ('REPEATABLE-READ', 'READ-COMMITTED'):
    cur.execute("SET SESSION transaction_isolation = '%s'" % iso)
    measure('%s: UPDATE of 1,000,000 rows' % iso, 'UPDATE m.t SET n = n + 1')
    measure('%s: UPDATE of 500,000 rows' % iso, 'UPDATE m.t SET n = n + 1 WHERE id < 500000')
measure('DELETE of 500,000 rows', 'DELETE FROM m.t WHERE id >= 500000')
