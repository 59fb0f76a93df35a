"""What one large INSERT ... SELECT costs in memory while it runs (docs/performance.md, "Peak memory of one large
statement").  Usage: statement-memory.py PORT PID ROWS [ROWS ...], against a freshly started stratad (its VmHWM is
the peak over the process's life: the first ROWS figure is the one to quote) with the binary log on.  Creates m.k
(the integers 0..999) and, per ROWS, copies that many rows into a new m.t with Memory_used sampled every 10 ms from
a second connection.  Prints the statement's time, the peak growth of Memory_used and VmHWM / VmRSS.
Example: build/stratad --no-defaults --datadir=/tmp/sm --port=3412 --log-bin=bin --server-id=1 \\
             --innodb-buffer-pool-size=64M &  then  bench/statement-memory.py 3412 $! 1000000"""
import os
import sys
import time

import pymysql

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'integration'))
from sqlutil import memory_growth  # noqa: E402 - the sampler the tests use

port, pid = int(sys.argv[1]), int(sys.argv[2])
counts = [int(a) for a in sys.argv[3:]] or [1000000]


def vm():
    d = {}
    for line in open('/proc/%d/status' % pid):
        if line.startswith(('VmHWM', 'VmRSS')):
            d[line.split(':')[0]] = int(line.split()[1]) // 1024
    return d


def conn():
    return pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True)


c, m = conn(), conn()
cur, mc = c.cursor(), m.cursor()


def used():
    mc.execute("SHOW GLOBAL STATUS LIKE 'Memory_used'")
    return int(mc.fetchall()[0][1])


cur.execute('CREATE DATABASE IF NOT EXISTS m')
cur.execute('DROP TABLE IF EXISTS m.k')
cur.execute('CREATE TABLE m.k (i INT PRIMARY KEY)')
cur.execute('INSERT INTO m.k VALUES ' + ','.join('(%d)' % i for i in range(1000)))
for rows in counts:
    cur.execute('DROP TABLE IF EXISTS m.t')
    cur.execute('CREATE TABLE m.t (id INT PRIMARY KEY, pad CHAR(60))')
    base = used()
    t0 = time.time()
    growth = memory_growth(m, lambda: cur.execute(
        "INSERT INTO m.t SELECT a.i * 1000 + b.i, REPEAT('x', 60) FROM m.k a, m.k b WHERE a.i < %d" % -(-rows // 1000)))
    dt = time.time() - t0
    print('rows %d: %.1f s, Memory_used peak +%d MiB (base %d MiB), %s' % (rows, dt, growth >> 20, base >> 20, vm()))
