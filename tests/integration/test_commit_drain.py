"""The waits of the commit path that wait for committers to leave, under a steady stream of commits: START
TRANSACTION WITH CONSISTENT SNAPSHOT (waits until every committer inside has finished its engine commit),
RESET MASTER (waits for the commit turnstile to pass every transaction written before it) and the binlog
checkpointer (waits for an epoch of committers).  They sleep until the last committer they wait for wakes them;
a lost wake-up shows as a statement that never returns, a drain that does not wait as a snapshot whose rows and
binlog position disagree.  Run side by side with MariaDB, same binlog options."""
import bisect
import contextlib
import threading
import time

import pytest

BINLOG_OPTS = ['--log-bin=binlog', '--server-id=1', '--sync-binlog=1', '--binlog-format=ROW']


def q(c, sql):
    with c.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def status(c, name):
    return q(c, "SHOW STATUS LIKE '%s'" % name)[0][1]


@contextlib.contextmanager
def committing(s, n=6):
    """Starts s with the binlog on, makes d.t, and keeps n connections inserting one row per autocommit
    transaction until the block ends; yields (a connection of its own, the writers' errors)."""
    s.start(BINLOG_OPTS)
    c = s.connect()
    c.autocommit(True)
    q(c, 'CREATE DATABASE IF NOT EXISTS d')
    q(c, 'CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, w INT) ENGINE=InnoDB')
    q(c, 'RESET MASTER')
    stop = threading.Event()
    errors = []

    def run(i):
        w = s.connect()
        w.autocommit(True)
        try:
            while not stop.is_set():
                q(w, 'INSERT INTO d.t (w) VALUES (%d)' % i)
        except Exception as e:  # noqa: BLE001 - reported by the test
            errors.append(repr(e))
        finally:
            w.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    try:
        yield c, errors
    finally:
        stop.set()
        for t in threads:
            t.join(60)


@pytest.mark.fresh_opts(start=False)
def test_consistent_snapshot_under_commits(fresh_target):
    samples = []
    with committing(fresh_target) as (c, errors):
        end = time.monotonic() + 3
        while time.monotonic() < end:
            t0 = time.monotonic()
            q(c, 'START TRANSACTION WITH CONSISTENT SNAPSHOT')
            n = q(c, 'SELECT COUNT(*) FROM d.t')[0][0]
            f, p = status(c, 'Binlog_snapshot_file'), int(status(c, 'Binlog_snapshot_position'))
            q(c, 'COMMIT')
            samples.append((f, p, n, time.monotonic() - t0))
            time.sleep(0.01)
    assert not errors, errors
    assert len(samples) >= 10
    files = {f for f, _, _, _ in samples}
    assert len(files) == 1, files
    # each snapshot sees exactly the transactions the binlog holds before its position
    ends = sorted(int(e[4]) for e in q(c, "SHOW BINLOG EVENTS IN '%s'" % files.pop()) if e[2] == 'Xid')
    wrong = [(p, n, bisect.bisect_right(ends, p)) for _, p, n, _ in samples if n != bisect.bisect_right(ends, p)]
    assert not wrong, wrong[:5]
    assert max(dt for _, _, _, dt in samples) < 5.0
    assert max(n for _, _, n, _ in samples) > 0
    c.close()


@pytest.mark.fresh_opts(start=False)
def test_reset_master_and_flush_under_commits(fresh_target):
    took = []
    with committing(fresh_target) as (c, errors):
        time.sleep(0.3)
        for sql in ('RESET MASTER', 'FLUSH BINARY LOGS', 'RESET MASTER', 'FLUSH BINARY LOGS', 'RESET MASTER'):
            t0 = time.monotonic()
            q(c, sql)
            took.append((sql, time.monotonic() - t0))
            time.sleep(0.2)
    assert not errors, errors
    assert all(dt < 5.0 for _, dt in took), took
    # the server goes on committing and logging after the resets
    rows = q(c, 'SELECT COUNT(*) FROM d.t')[0][0]
    q(c, 'INSERT INTO d.t (w) VALUES (99)')
    assert q(c, 'SELECT COUNT(*) FROM d.t')[0][0] == rows + 1
    assert q(c, 'SHOW MASTER STATUS')[0][0].endswith('.000001')
    c.close()
