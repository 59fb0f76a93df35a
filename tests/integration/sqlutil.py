"""Small helpers the integration tests share: run a statement, run one in a background thread, and read the row
ids a table's INSERTs left in a server's binary log (decoded by Debian's mariadb-binlog)."""
import os
import subprocess
import threading
import time


def run(c, sql, args=None):
    """Runs one statement on a PyMySQL connection; returns all rows."""
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def background(c, sql):
    """Starts sql on c in a thread; returns (thread, box): box gets 'rows' or 'err', and 't' (seconds taken)."""
    box = {}

    def go():
        t0 = time.time()
        try:
            box['rows'] = run(c, sql)
        except Exception as e:  # noqa: BLE001 - reported to the test
            box['err'] = e
        box['t'] = time.time() - t0
    th = threading.Thread(target=go)
    th.start()
    return th, box


def memory_growth(m, fn):
    """Runs fn() while a thread samples the server's Memory_used every 10 ms on connection m; returns the peak's
    growth over the value before (strata only: MariaDB has no such counter)."""
    def used():
        return int(run(m, "SHOW GLOBAL STATUS LIKE 'Memory_used'")[0][1])
    base = used()
    peak = [base]
    done = []

    def sample():
        while not done:
            peak[0] = max(peak[0], used())
            time.sleep(0.01)
    th = threading.Thread(target=sample)
    th.start()
    try:
        fn()
    finally:
        done.append(1)
        th.join()
    return peak[0] - base


def binlog_insert_ids(cur, db, table):
    """The first column of every row inserted into db.table according to all the server's binlog files."""
    cur.execute('SELECT @@log_bin_basename')
    base = cur.fetchone()[0]
    cur.execute('SHOW BINARY LOGS')
    files = [os.path.join(os.path.dirname(base), r[0]) for r in cur.fetchall()]
    out = subprocess.run(['mariadb-binlog', '--verbose', '--base64-output=DECODE-ROWS'] + files,
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    ids, want = set(), False
    for line in out.stdout.decode('utf-8', 'replace').splitlines():  # (BLOB rows need not be UTF-8)
        if line.startswith('### INSERT INTO `%s`.`%s`' % (db, table)):
            want = True
        elif want and line.startswith('###   @1='):
            ids.add(int(line.split('=', 1)[1]))
            want = False
    return ids
