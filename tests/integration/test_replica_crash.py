"""strata as a replica survives the crashes users cause (docs/replication.md, "Crash safety"): kill -9 of the
replica inside a large transaction being applied, between a commit and the next event, during DDL (and after a
statement-logged DML), while a transaction of several MB is half received, at 20 random moments under sysbench
writes; kill -9 of the source in the middle of a transaction.  After each crash the replica's data directory
passes strata-check, and after the restart the replica starts replicating by itself and reaches the source's
gtid_binlog_pos with the SQL thread running and Last_SQL_Errno 0 (never 1062 or 1032), every table equal to the
source's row for row (an ordered dump and CHECKSUM TABLE).  Sources: a MariaDB 10.11 primary started by the test
and a strata primary.  Also: a replica attached late to a source with 4 x 100,000 rows of history; a source that
rotated and purged the binary logs a replica needs (MariaDB's 1236 in Last_IO_Error, as a MariaDB replica shows
it); and Seconds_Behind_Master (NULL with the SQL thread stopped, growing while a row lock holds the applier,
never 0 while the source is unreachable).

The exact crash points are the fault seam's named points (util/fio.h, test builds only: make SAN=1):
replica.rows_before_commit, replica.rows_after_commit, replica.query_before_pos, replica.io_group_cut."""
import os
import random
import signal
import shutil
import subprocess
import threading
import time

import pytest

import conftest
from conftest import new_server
from sqlutil import run
from test_faults import binary_has_seam
from test_replica import PRIMARY_OPTS, replication_user, slave_status
from test_replication import REPL_PW, REPL_USER

REPLICA_OPTS = ['--server-id=2']
CHECKER = os.path.join(os.path.dirname(conftest.strata_exe()), 'strata-check')
needs_seam = pytest.mark.skipif(not binary_has_seam(conftest.strata_exe()),
                                reason='the fault seam is only in test builds (make SAN=1)')
SYSTEM_DBS = ('mysql', 'information_schema', 'performance_schema', 'sys')


# ---------------------------------------------------------------------------------------------- helpers

@pytest.fixture(params=['mariadb', 'strata'])
def source(request):
    """The primary, started: a MariaDB 10.11 with a ROW binlog, or a strata."""
    s = new_server(request.param)
    s.prepare()
    s.start(PRIMARY_OPTS if request.param == 'mariadb' else [])
    c = s.connect()
    replication_user(c)
    c.close()
    yield s
    conftest.finish_fresh(s, request)


@pytest.fixture
def replica(fresh_strata):
    fresh_strata.start(REPLICA_OPTS)
    return fresh_strata


def follow(r, primary, extra=''):
    run(r, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', "
           "MASTER_CONNECT_RETRY=1%s" % (primary.port, REPL_USER, REPL_PW, extra))
    run(r, 'START SLAVE')


def arm(c, spec):
    run(c, 'SET GLOBAL debug_fault = %s', (spec,))


def wait_dead(s, timeout=60):
    """Waits for a server to die by itself (a fault point's KILL)."""
    t0 = time.time()
    while s.proc.poll() is None:
        assert time.time() - t0 < timeout, 'the server did not reach its crash point\n' + s.tail()
        time.sleep(0.05)


def crash(s, check=True):
    """kill -9 (unless it is dead already), strata-check of the data directory as the crash left it, restart
    with the same options."""
    s.stop(sig=signal.SIGKILL)
    if check:
        r = subprocess.run([CHECKER, s.datadir], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, 'strata-check after kill -9:\n' + r.stdout[-2000:] + r.stderr[-2000:]
    s.start(s.extra)


def user_tables(c):
    dbs = [d for (d,) in run(c, 'SHOW DATABASES') if d not in SYSTEM_DBS]
    return sorted('%s.%s' % (d, t) for d in dbs for (t,) in run(c, 'SHOW TABLES FROM `%s`' % d))


def same_data(p, r):
    tables = user_tables(p)
    assert user_tables(r) == tables
    for t in tables:
        a, b = run(p, 'SELECT * FROM %s ORDER BY 1' % t), run(r, 'SELECT * FROM %s ORDER BY 1' % t)
        if a != b:
            extra, missing = set(b) - set(a), set(a) - set(b)
            raise AssertionError('%s differs: %d rows only on the replica %s, %d only on the source %s' % (
                t, len(extra), sorted(extra)[:3], len(missing), sorted(missing)[:3]))
        assert run(r, 'CHECKSUM TABLE %s' % t) == run(p, 'CHECKSUM TABLE %s' % t), t
    return tables


def converge(replica, primary, timeout=120):
    """The replica (which must have restarted replicating by itself) reaches the source's gtid_binlog_pos with
    both threads running and no SQL error, and holds the same rows.  Returns the tables compared."""
    p, r = primary.connect(), replica.connect()
    t0 = time.time()
    while True:
        # read each time: a writer stopped just before (sysbench's last commit) may still land on the source
        want = run(p, 'SELECT @@gtid_binlog_pos')[0][0]
        st = slave_status(r)[1]
        assert st, 'the replica lost its configuration'
        assert st['Last_SQL_Errno'] == 0, ('SQL thread error', st['Last_SQL_Errno'], st['Last_SQL_Error'])
        if (run(r, 'SELECT @@gtid_slave_pos')[0][0] == want and st['Slave_SQL_Running'] == 'Yes'
                and st['Slave_IO_Running'] == 'Yes'):
            break
        assert time.time() - t0 < timeout, 'replica did not reach %s: %s' % (want, st)
        time.sleep(0.1)
    tables = same_data(p, r)
    p.close()
    r.close()
    return tables


def sql_thread_stopped(r, timeout=60):
    """Waits for the SQL thread to stop (an apply error); returns SHOW SLAVE STATUS."""
    t0 = time.time()
    while True:
        st = slave_status(r)[1]
        if st['Slave_SQL_Running'] != 'Yes':
            return st
        assert time.time() - t0 < timeout, st
        time.sleep(0.1)


def rows_sql(table, first, n, pad=180):
    return 'INSERT INTO %s (id, n, pad) VALUES %s' % (table, ', '.join(
        "(%d, %d, REPEAT('%s', %d))" % (i, i % 97, chr(97 + i % 26), pad) for i in range(first, first + n)))


def big_transaction(p, table, first, nrows, chunk=500):
    """One transaction of nrows rows (about 200 bytes each) in INSERTs of chunk rows."""
    run(p, 'BEGIN')
    for i in range(first, first + nrows, chunk):
        run(p, rows_sql(table, i, min(chunk, first + nrows - i)))
    run(p, 'COMMIT')


def follow_with_table(primary, replica, extra=''):
    p = primary.connect()
    run(p, 'CREATE DATABASE rc')
    run(p, 'CREATE TABLE rc.t (id INT PRIMARY KEY, n INT, pad VARCHAR(200))')
    run(p, rows_sql('rc.t', 1, 100))
    r = replica.connect()
    follow(r, primary, extra)
    converge(replica, primary)
    return p, r


# ---------------------------------------------------------------------------------------------- exact points

@needs_seam
@pytest.mark.only('strata')
def test_kill_inside_large_transaction_being_applied(source, replica):
    p, r = follow_with_table(source, replica)
    arm(r, 'point:replica.rows_before_commit:1:KILL')
    big_transaction(p, 'rc.t', 1000, 20000)  # ~4 MB of row events
    wait_dead(replica)
    crash(replica)
    run(p, rows_sql('rc.t', 50000, 10))
    converge(replica, source)


@needs_seam
@pytest.mark.only('strata')
def test_kill_between_commit_and_next_event(source, replica):
    p, r = follow_with_table(source, replica)
    for k in range(3):
        arm(r, 'point:replica.rows_after_commit:1:KILL')
        run(p, 'BEGIN')
        run(p, rows_sql('rc.t', 1000 + 10 * k, 5))
        run(p, 'UPDATE rc.t SET n = n + 1 WHERE id <= 50')
        run(p, 'DELETE FROM rc.t WHERE id = %d' % (60 + k))
        run(p, 'COMMIT')
        wait_dead(replica)
        run(p, 'UPDATE rc.t SET n = n + 1 WHERE id <= 50')  # the next events arrive while it is down
        crash(replica)
        converge(replica, source)
        r = replica.connect()


DDL_STEPS = [
    'CREATE TABLE rc.n (a INT PRIMARY KEY, b VARCHAR(10))',
    'ALTER TABLE rc.t ADD COLUMN extra INT DEFAULT 7',
    'CREATE INDEX ix_n ON rc.t (n)',
    'RENAME TABLE rc.n TO rc.n2',
    'TRUNCATE TABLE rc.n2',
    'DROP TABLE rc.n2',
    'CREATE DATABASE rd',
    'DROP DATABASE rd',  # with two tables: several catalog commits, the position rides with the last
    'CREATE TABLE rc.m1 (a INT PRIMARY KEY)',
    'CREATE TABLE rc.m2 (a INT PRIMARY KEY)',
    'RENAME TABLE rc.m1 TO rc.r1, rc.m2 TO rc.r2',  # one commit per pair: the position rides with the last
    'DROP TABLE rc.r1, rc.r2',
]


@needs_seam
@pytest.mark.only('strata')
def test_kill_during_ddl(source, replica):
    """The crash comes after the DDL's catalog change committed, before the applier's own position write: the
    position must have committed with the DDL, else the restart runs it again (1050, 1060, 1146, ...)."""
    p, r = follow_with_table(source, replica)
    for ddl in DDL_STEPS:
        arm(r, 'point:replica.query_before_pos:1:KILL')
        run(p, ddl)
        wait_dead(replica)
        crash(replica)
        if ddl.startswith('CREATE TABLE rc.n '):
            run(p, "INSERT INTO rc.n VALUES (1, 'a'), (2, 'b')")
        if ddl == 'CREATE DATABASE rd':
            run(p, 'CREATE TABLE rd.a (x INT PRIMARY KEY)')
            run(p, 'CREATE TABLE rd.b (x INT PRIMARY KEY)')
            run(p, 'INSERT INTO rd.a VALUES (1)')
        converge(replica, source)
        r = replica.connect()
    assert 'rd' not in [d for (d,) in run(r, 'SHOW DATABASES')]
    # and at random moments while the replica rebuilds a table of 20,000 rows for an ALTER
    big_transaction(p, 'rc.t', 10000, 20000)
    converge(replica, source)
    rnd = random.Random(141)
    for k in range(4):
        run(p, 'ALTER TABLE rc.t ADD COLUMN c%d INT DEFAULT %d' % (k, k))
        time.sleep(rnd.uniform(0.0, 0.8))
        crash(replica)
        converge(replica, source)


@needs_seam
@pytest.mark.only('strata')
def test_kill_after_statement_logged_dml(fresh_mariadb, replica):
    """A STATEMENT-format source logs DML as QUERY events, which the replica runs through SQL: the position
    commits in the statement's own transaction, so a crash right after it does not run it again (1062)."""
    fresh_mariadb.start([o for o in PRIMARY_OPTS if not o.startswith('--binlog-format')] +
                        ['--binlog-format=STATEMENT'])
    replication_user(fresh_mariadb.connect())
    p, r = follow_with_table(fresh_mariadb, replica)
    for k, stmt in enumerate(['INSERT INTO rc.t VALUES (5000, 1, \'s\')', 'UPDATE rc.t SET n = n + 10 WHERE id < 20',
                              'DELETE FROM rc.t WHERE id = 5000']):
        arm(r, 'point:replica.query_before_pos:1:KILL')
        run(p, stmt)
        wait_dead(replica)
        crash(replica)
        converge(replica, fresh_mariadb)
        r = replica.connect()


@needs_seam
@pytest.mark.only('strata')
@pytest.mark.parametrize('mode', ['gtid', 'file_pos'])
def test_large_transaction_half_received(source, replica, mode):
    """A transaction of several MB cut after its first MiB: by kill -9 of the replica, and by a lost
    connection (the IO thread reconnects and fetches the whole transaction again, by GTID or from the
    position where it began)."""
    extra = ''
    if mode == 'file_pos':
        f, pos = run(source.connect(), 'SHOW MASTER STATUS')[0][:2]
        extra = ", MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d" % (f, pos)
    p, r = follow_with_table(source, replica, extra)
    arm(r, 'point:replica.io_group_cut:1:KILL')
    big_transaction(p, 'rc.t', 1000, 30000)  # ~6 MB
    wait_dead(replica)
    crash(replica)
    converge(replica, source)
    r = replica.connect()
    arm(r, 'point:replica.io_group_cut:1:ON')
    big_transaction(p, 'rc.t', 40000, 30000)
    converge(replica, source)
    st = slave_status(r)[1]
    assert st['Using_Gtid'] == ('No' if mode == 'file_pos' else 'Slave_Pos'), st


@needs_seam
@pytest.mark.only('strata')
def test_kill_between_the_commits_of_one_ddl(source, replica):
    """DROP DATABASE drops each table in a commit of its own and the database last; killed after the first
    table's commit, the replica has not moved its position, runs the DROP DATABASE again and drops the rest.
    DROP TABLE of several tables killed the same way runs again too: it drops what is left and stops with
    1051 for the table the first run dropped (MariaDB's STRICT slave_ddl_exec_mode), visibly, and never with a
    position past a statement done in part."""
    p, r = follow_with_table(source, replica)
    run(r, 'SET GLOBAL innodb_stats_auto_recalc = OFF')  # its thread's catalog commits would count as hits
    run(p, 'CREATE DATABASE rd2')
    for t in ('x', 'y', 'z'):
        run(p, 'CREATE TABLE rd2.%s (a INT PRIMARY KEY)' % t)
        run(p, 'INSERT INTO rd2.%s VALUES (1), (2)' % t)
    converge(replica, source)
    arm(r, 'point:catalog.after_commit:1:KILL')
    run(p, 'DROP DATABASE rd2')
    wait_dead(replica)
    crash(replica)
    converge(replica, source)
    r = replica.connect()
    run(p, 'CREATE TABLE rc.m1 (a INT PRIMARY KEY)')
    run(p, 'CREATE TABLE rc.m2 (a INT PRIMARY KEY)')
    converge(replica, source)
    run(r, 'SET GLOBAL innodb_stats_auto_recalc = OFF')  # again after the restart
    arm(r, 'point:catalog.after_commit:1:KILL')
    run(p, 'DROP TABLE rc.m1, rc.m2')
    wait_dead(replica)
    crash(replica)
    r = replica.connect()
    st = sql_thread_stopped(r)
    assert st['Last_SQL_Errno'] == 1051 and 'm1' in st['Last_SQL_Error'], st
    assert [t for (t,) in run(r, 'SHOW TABLES FROM rc')] == ['t']
    run(r, 'STOP SLAVE')  # the operator sees the tables are right and moves the position past the statement
    run(r, 'SET GLOBAL gtid_slave_pos = %s', (run(p, 'SELECT @@gtid_binlog_pos')[0][0],))
    run(r, 'START SLAVE')
    run(p, 'INSERT INTO rc.t (id, n, pad) VALUES (7777, 1, 1)')
    converge(replica, source)


# ---------------------------------------------------------------------------------------------- random moments

def sysbench_cmd(server, *args):
    return ['sysbench', '--db-driver=mysql', '--mysql-host=127.0.0.1', '--mysql-port=%d' % server.port,
            '--mysql-user=root', '--mysql-password=', '--mysql-db=sb', '--db-ps-mode=disable',
            '--report-interval=0'] + list(args)


def need_sysbench():
    if not shutil.which('sysbench'):
        pytest.skip('sysbench not installed')


@pytest.mark.only('strata')
def test_kill9_at_20_random_moments_under_sysbench(source, replica):
    need_sysbench()
    p = source.connect()
    run(p, 'CREATE DATABASE sb')
    prep = subprocess.run(sysbench_cmd(source, '--tables=2', '--table-size=2000', 'oltp_write_only', 'prepare'),
                          capture_output=True, text=True, timeout=300)
    assert prep.returncode == 0, prep.stdout[-2000:] + prep.stderr[-2000:]
    follow(replica.connect(), source)
    bench = subprocess.Popen(sysbench_cmd(source, '--tables=2', '--table-size=2000', '--threads=4',
                                          '--time=600', '--mysql-ignore-errors=all', 'oltp_write_only', 'run'),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rnd = random.Random(1414)
    try:
        for _ in range(20):
            time.sleep(rnd.uniform(0.2, 1.5))
            assert bench.poll() is None, bench.stdout.read()[-2000:]
            crash(replica)
    finally:
        bench.send_signal(signal.SIGINT)
        try:
            bench.wait(30)
        except subprocess.TimeoutExpired:
            bench.kill()
            bench.wait()
    before = run(p, 'SELECT @@gtid_binlog_pos')[0][0]
    assert before.split('-')[-1] and int(before.split('-')[-1]) > 100, before  # sysbench did write meanwhile
    tables = converge(replica, source, timeout=300)
    assert tables == ['sb.sbtest1', 'sb.sbtest2']


@pytest.mark.only('strata')
def test_kill9_source_mid_transaction(source, replica):
    """kill -9 of the source while a transaction is open on it, one is being committed and a writer commits a
    stream of small ones; the source restarts on the same port and the replica reconnects by itself.  While the
    source is down Seconds_Behind_Master is never 0."""
    p, r = follow_with_table(source, replica, ', MASTER_HEARTBEAT_PERIOD=1')
    stop = threading.Event()

    def writer():
        w = source.connect()
        i = 100000
        try:
            while not stop.is_set():
                i += 1
                run(w, 'BEGIN')
                run(w, rows_sql('rc.t', i, 1))
                run(w, 'UPDATE rc.t SET n = n + 1 WHERE id = %d' % (1 + i % 100))
                run(w, 'COMMIT')
        except Exception:  # noqa: BLE001 - the source died under it
            pass

    def committer():
        try:
            big_transaction(source.connect(), 'rc.t', 300000, 20000)
        except Exception:  # noqa: BLE001 - the source died under it
            pass
    for cycle in range(2):
        stop.clear()
        threads = [threading.Thread(target=writer), threading.Thread(target=committer)]
        for th in threads:
            th.start()
        opened = source.connect()
        run(opened, 'BEGIN')
        run(opened, rows_sql('rc.t', 200000 + cycle * 1000, 500))  # never committed
        time.sleep(1.0 + cycle)
        source.stop(sig=signal.SIGKILL)
        stop.set()
        for th in threads:
            th.join()
        time.sleep(2.5)  # two heartbeat periods: by then it knows the source is gone
        seen = lag_samples(r)
        assert 0 not in seen, seen
        source.start(source.extra)
        converge(replica, source)  # the big transaction is there whole or not at all, on both
        run(source.connect(), 'DELETE FROM rc.t WHERE id >= 100000')


# ---------------------------------------------------------------------------------------------- history, purge

@pytest.mark.only('strata')
def test_late_attach_to_sysbench_history(fresh_mariadb, replica):
    need_sysbench()
    primary = fresh_mariadb
    primary.start(PRIMARY_OPTS)
    p = primary.connect()
    replication_user(p)
    run(p, 'CREATE DATABASE sb')
    prep = subprocess.run(sysbench_cmd(primary, '--tables=4', '--table-size=100000', 'oltp_write_only',
                                       'prepare'), capture_output=True, text=True, timeout=600)
    assert prep.returncode == 0, prep.stdout[-2000:] + prep.stderr[-2000:]
    follow(replica.connect(), primary)
    tables = converge(replica, primary, timeout=900)
    assert tables == ['sb.sbtest1', 'sb.sbtest2', 'sb.sbtest3', 'sb.sbtest4']
    assert run(replica.connect(), 'SELECT COUNT(*) FROM sb.sbtest4')[0][0] == 100000


def io_error(c, timeout=60):
    t0 = time.time()
    while True:
        st = slave_status(c)[1]
        if st['Last_IO_Errno']:
            return st
        assert time.time() - t0 < timeout, st
        time.sleep(0.1)


def purge_all_but_current(p, timeout=30):
    """PURGE BINARY LOGS TO the current file; MariaDB keeps a file until its binlog checkpoint is written, so
    this retries until only the current file is left."""
    t0 = time.time()
    while True:
        run(p, "PURGE BINARY LOGS TO '%s'" % run(p, 'SHOW MASTER STATUS')[0][0])
        if len(run(p, 'SHOW BINARY LOGS')) == 1:
            return
        assert time.time() - t0 < timeout, run(p, 'SHOW BINARY LOGS')
        time.sleep(0.2)


@pytest.mark.only('strata')
def test_source_rotated_and_purged(fresh_mariadb, replica):
    """A replica that follows while the source rotates and purges goes on; one that still needs a purged file
    (stopped meanwhile, or new) gets MariaDB's 1236 in Last_IO_Error, word for word as a MariaDB replica."""
    primary = fresh_mariadb
    primary.start(PRIMARY_OPTS)
    replication_user(primary.connect())
    mrep = new_server('mariadb')
    mrep.prepare()
    late = new_server('strata')
    late.prepare()
    try:
        mrep.start(['--server-id=3'])
        late.start(['--server-id=4'])
        p, r = follow_with_table(primary, replica)
        m = mrep.connect()
        follow(m, primary)
        run(m, 'STOP SLAVE')
        run(r, 'STOP SLAVE')
        for i in range(3):
            run(p, rows_sql('rc.t', 1000 + i * 10, 10))
            run(p, 'FLUSH BINARY LOGS')
        purge_all_but_current(p)
        want = {}
        for c in (m, r):
            run(c, 'START SLAVE')
            st = io_error(c)
            want[c is m] = (st['Last_IO_Errno'], st['Last_IO_Error'], st['Slave_IO_Running'])
        assert want[False] == want[True], want
        assert want[False][0] == 1236 and 'purged' in want[False][1], want
        lc = late.connect()  # new: an empty gtid_slave_pos asks for the whole history
        follow(lc, primary)
        st = io_error(lc)
        assert st['Last_IO_Errno'] == 1236 and 'purged' in st['Last_IO_Error'], st
        run(lc, 'STOP SLAVE')
        # the operator's way out: take the data and the position another way, then follow from there
        run(r, 'STOP SLAVE')
        run(r, 'RESET SLAVE')
        run(r, 'SET GLOBAL gtid_slave_pos = %s', (run(p, 'SELECT @@gtid_binlog_pos')[0][0],))
        run(r, 'SET sql_log_bin = 0')
        for row in run(p, 'SELECT * FROM rc.t WHERE id >= 1000'):
            run(r, 'INSERT INTO rc.t VALUES (%s, %s, %s)', row)
        run(r, 'START SLAVE')
        run(p, rows_sql('rc.t', 2000, 5))
        converge(replica, primary)
        # a replica that keeps up while the source rotates and purges is not disturbed
        for i in range(3):
            run(p, rows_sql('rc.t', 3000 + i * 10, 10))
            run(p, 'FLUSH BINARY LOGS')
            converge(replica, primary)
            purge_all_but_current(p)
        run(p, rows_sql('rc.t', 4000, 5))
        converge(replica, primary)
    finally:
        for s in (mrep, late):
            s.stop()
            s.check_clean_stop()


# ---------------------------------------------------------------------------------------------- lag

def sbm(c):
    return slave_status(c)[1]['Seconds_Behind_Master']


def lag_samples(c, n=8, gap=0.25):
    out = []
    for _ in range(n):
        out.append(sbm(c))
        time.sleep(gap)
    return out


@pytest.mark.only('strata')
def test_seconds_behind_master(fresh_mariadb, replica):
    primary = fresh_mariadb
    primary.start(PRIMARY_OPTS)
    replication_user(primary.connect())
    p, r = follow_with_table(primary, replica, ', MASTER_HEARTBEAT_PERIOD=1')
    assert sbm(r) == 0
    run(r, 'STOP SLAVE SQL_THREAD')
    assert sbm(r) is None
    run(p, 'UPDATE rc.t SET n = n + 1 WHERE id = 1')
    time.sleep(1.2)
    assert sbm(r) is None  # stopped: NULL even with events waiting
    run(r, 'START SLAVE SQL_THREAD')
    converge(replica, primary)
    # a row lock held on the replica holds the applier back: the lag grows from the source's commit time
    holder = replica.connect()
    run(holder, 'BEGIN')
    run(holder, 'SELECT * FROM rc.t WHERE id = 5 FOR UPDATE')
    run(p, 'UPDATE rc.t SET n = n + 100 WHERE id = 5')
    time.sleep(1.5)
    a = sbm(r)
    time.sleep(2.0)
    b = sbm(r)
    st = slave_status(r)[1]
    assert a is not None and b is not None and 1 <= a < b, (a, b, st)
    assert st['Slave_SQL_Running'] == 'Yes' and st['Last_SQL_Errno'] == 0, st
    run(holder, 'COMMIT')
    converge(replica, primary)
    assert sbm(r) == 0
    # the source stopped (SIGSTOP: connected but silent) and killed: never a false 0
    primary.proc.send_signal(signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past two heartbeat periods
        seen = lag_samples(r)
    finally:
        primary.proc.send_signal(signal.SIGCONT)
    assert 0 not in seen, seen
    t0 = time.time()
    while sbm(r) != 0:
        assert time.time() - t0 < 30, slave_status(r)[1]
        time.sleep(0.2)
    primary.stop(sig=signal.SIGKILL)
    time.sleep(2.5)
    seen = lag_samples(r)
    assert 0 not in seen, seen
    primary.start(primary.extra)
    converge(replica, primary)
    assert sbm(r) == 0


@pytest.mark.only('strata')
def test_row_lock_wait_timeout_in_applier(fresh_mariadb, replica):
    """A local transaction holding a row longer than innodb_lock_wait_timeout stops the SQL thread with
    MariaDB's 1205 (not an unknown error) once slave_transaction_retries retries timed out too; nothing is half
    applied, and START SLAVE applies the transaction."""
    primary = fresh_mariadb
    primary.start(PRIMARY_OPTS)
    replication_user(primary.connect())
    p, r = follow_with_table(primary, replica)
    run(r, 'SET GLOBAL innodb_lock_wait_timeout = 1')
    run(r, 'SET GLOBAL slave_transaction_retries = 2')  # MariaDB's default 10 would take 11 s here
    run(r, 'STOP SLAVE')
    run(r, 'START SLAVE')  # the applier's session takes the new global
    holder = replica.connect()
    run(holder, 'BEGIN')
    run(holder, 'SELECT * FROM rc.t WHERE id = 50 FOR UPDATE')
    run(p, 'BEGIN')
    run(p, 'UPDATE rc.t SET n = -1 WHERE id = 10')
    run(p, 'UPDATE rc.t SET n = -1 WHERE id = 50')
    run(p, 'COMMIT')
    st = sql_thread_stopped(r)
    assert st['Last_SQL_Errno'] == 1205 and 'Lock wait timeout exceeded' in st['Last_SQL_Error'], st
    # retried twice before it gave up, as MariaDB's slave_transaction_retries
    assert run(r, "SHOW GLOBAL STATUS LIKE 'Slave_retried_transactions'") == (('Slave_retried_transactions', '2'),)
    assert run(r, 'SELECT n FROM rc.t WHERE id = 10')[0][0] == 10  # rolled back whole
    run(holder, 'COMMIT')
    run(r, 'START SLAVE')
    converge(replica, primary)
