"""Second crashes: the server is stopped (SIGKILL through the test build's fault points, util/fio.h) while it
recovers from a first crash, and started again; nothing acknowledged is lost, nothing uncommitted comes back.

Points (docs/faults.md): engine.recovery_scan (each redo group of the recovery scan), engine.recovery_started
(the new log run has begun, the interrupted transactions' undo is not yet carried into it), engine.recovery_carried
(right after recovery's first checkpoint, the one that carries that undo), engine.recovery_rolled_back (between
two rollbacks of interrupted transactions), recovery.reapplied (between two binlog transactions re-applied for
commits whose redo was lost)."""
import os
import signal
import subprocess
import time

import pymysql
import pytest

import conftest
import test_faults
from sqlutil import binlog_insert_ids, run

pytestmark = [pytest.mark.only('strata'),
              pytest.mark.skipif(not test_faults.binary_has_seam(conftest.strata_exe()),
                                 reason='needs the test build (make SAN=1)')]


def kill9(s):
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait()
    s.stderr_f.close()


def start_and_die(s, monkeypatch, spec, extra=()):
    """Starts s with STRATA_FAULT=spec; it must die at the point (SIGKILL) before it serves."""
    monkeypatch.setenv('STRATA_FAULT', spec)
    s.start(list(extra), wait=False)
    try:
        rc = s.proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        s.proc.kill()
        s.proc.wait()
        pytest.fail('the server did not stop at %s\n%s' % (spec, s.tail()))
    s.stderr_f.close()
    assert rc == -signal.SIGKILL, 'exit status %s at %s\n%s' % (rc, spec, s.tail())
    monkeypatch.delenv('STRATA_FAULT')


strata_check = test_faults.strata_check


def table(c, t='s.t'):
    return sorted(run(c, 'SELECT id, v FROM %s' % t))


def make_table(s, rows, value):
    """Starts s and makes s.t with ids 0..rows-1; returns a connection."""
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE s')
    run(c, 'CREATE TABLE s.t (id INT PRIMARY KEY, v VARCHAR(200))')
    for i in range(rows):
        run(c, 'INSERT INTO s.t VALUES (%s, %s)', (i, value % i))
    return c


def killed_in(s, c, rule, stmt):
    """Arms rule (a KILL), runs stmt, which the kill interrupts, and starts s again; returns a new connection."""
    run(c, "SET GLOBAL debug_fault = %s", (rule,))
    with pytest.raises(pymysql.err.MySQLError):
        run(c, stmt)
    s.proc.wait(timeout=30)
    s.stderr_f.close()
    s.start()
    return s.connect()


def interrupted_transaction(s):
    """Committed rows, then a transaction that changes many of them and inserts more, left open at a kill -9
    after its redo is durable.  Returns the committed contents."""
    c = make_table(s, 200, 'committed%d')
    want = table(c)
    u = s.connect()
    run(u, 'BEGIN')
    run(u, "UPDATE s.t SET v = CONCAT('uncommitted', REPEAT('x', 150)) WHERE id % 2 = 0")
    run(u, 'DELETE FROM s.t WHERE id % 5 = 1')
    for i in range(1000, 1300):
        run(u, 'INSERT INTO s.t VALUES (%s, %s)', (i, 'uncommitted'))
    # a later commit, and the binlog checkpointer's round, make the open transaction's redo durable
    run(c, 'CREATE TABLE s.other (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO s.other VALUES (1)')
    time.sleep(2)
    kill9(s)
    return want


@pytest.mark.parametrize('points', [
    ['point:engine.recovery_started:1:KILL'],
    ['point:engine.recovery_carried:1:KILL'],
    ['point:engine.recovery_started:1:KILL', 'point:engine.recovery_carried:1:KILL',
     'point:engine.recovery_rolled_back:1:KILL'],
    ['point:engine.recovery_scan:2:KILL', 'point:engine.recovery_scan:5:KILL'],
], ids=['started', 'carried', 'each-point', 'scan'])
def test_crash_during_recovery_of_an_interrupted_transaction(fresh_strata, monkeypatch, points):
    s = fresh_strata
    want = interrupted_transaction(s)
    for spec in points:
        start_and_die(s, monkeypatch, spec)
    s.start()
    c = s.connect()
    have = table(c)
    assert not [r for r in have if r[1].startswith('uncommitted')], 'an interrupted transaction came back'
    assert have == want
    assert run(c, 'SELECT id FROM s.other') == ((1,),)
    c.close()
    assert s.stop() == 0
    strata_check(s)
    s.start()


def test_crash_during_binlog_reapply(fresh_strata, monkeypatch):
    """Commits whose redo was never synced (commit.skip_redo_sync) are re-applied from the binlog at start-up;
    the server is killed between two re-applied transactions, twice, then starts for good."""
    s = fresh_strata
    monkeypatch.setenv('STRATA_FAULT', 'point:commit.skip_redo_sync:*:ON')
    c = make_table(s, 300, 'v%d')
    run(c, "UPDATE s.t SET v = 'updated' WHERE id % 3 = 0")
    run(c, 'DELETE FROM s.t WHERE id % 7 = 0')
    want = table(c)
    c.close()
    kill9(s)
    for spec in ('point:commit.skip_redo_sync:*:ON,point:recovery.reapplied:20:KILL',
                 'point:commit.skip_redo_sync:*:ON,point:recovery.reapplied:50:KILL'):
        start_and_die(s, monkeypatch, spec)
    s.start()
    assert 're-applied' in s.log_text()
    c = s.connect()
    assert table(c) == want
    with c.cursor() as cur:
        assert binlog_insert_ids(cur, 's', 't') == set(range(300))
    c.close()
    assert s.stop() == 0
    strata_check(s)
    s.start()


def binlog_statements(c):
    """The Info of every QUERY event in the server's binlog files."""
    out = []
    with c.cursor() as cur:
        cur.execute('SHOW BINARY LOGS')
        for (name, *_rest) in cur.fetchall():
            cur.execute('SHOW BINLOG EVENTS IN %s', (name,))
            out += [r[5] for r in cur.fetchall() if r[2] == 'Query']
    return out


DDL_CASES = {
    # statement, then a query whose answer says whether the catalog has the change
    'create': ('CREATE TABLE d.n (id INT PRIMARY KEY)',
               "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'n'"),
    'alter': ('ALTER TABLE d.t ADD COLUMN extra INT',
              "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND COLUMN_NAME = 'extra'"),
    'drop': ('DROP TABLE d.t',
             "SELECT COUNT(*) = 0 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't'"),
    'database': ('CREATE DATABASE d2',
                 "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'd2'"),
}


@pytest.mark.parametrize('point', ['commit.ddl_before_binlog', 'commit.ddl_after_binlog'])
@pytest.mark.parametrize('case', sorted(DDL_CASES))
def test_ddl_catalog_and_binlog_agree_after_a_crash(fresh_strata, point, case):
    """A kill between a DDL's catalog change and its QUERY event (or between the event and the engine commit
    that settles it): after the restart the catalog and the binlog both have the statement, once."""
    stmt, probe = DDL_CASES[case]
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE d')
    run(c, 'CREATE TABLE d.t (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO d.t VALUES (1)')
    c = killed_in(s, c, 'point:%s:1:KILL' % point, stmt)
    in_catalog = run(c, probe)[0][0]
    logged = [q for q in binlog_statements(c) if q.endswith(stmt)]
    assert in_catalog == 1, 'the catalog lost a DDL whose catalog change was committed'
    assert len(logged) == 1, 'the DDL is in the catalog, but %d times in the binlog' % len(logged)
    c.close()
    assert s.stop() == 0
    strata_check(s)
    s.start()


def grants(c, user):
    """SHOW GRANTS FOR user@'%' as one string, or None for no such account."""
    try:
        return ' '.join(r[0] for r in run(c, "SHOW GRANTS FOR %s@'%%'", (user,)))
    except pymysql.err.MySQLError:
        return None


ACCOUNT_CASES = {
    # statement, then whether the account store has its change
    'create_user': ("CREATE USER 'crash'@'%' IDENTIFIED BY 'pw'", lambda c: grants(c, 'crash') is not None),
    'grant': ("GRANT SELECT ON d.* TO 'old'@'%'", lambda c: 'ON `d`.*' in (grants(c, 'old') or '')),
    'drop_user': ("DROP USER 'old'@'%'", lambda c: grants(c, 'old') is None),
}


@pytest.mark.parametrize('point', ['accounts:write:1:KILL', 'point:commit.ddl_before_binlog:1:KILL',
                                   'point:commit.ddl_after_binlog:1:KILL'])
@pytest.mark.parametrize('case', sorted(ACCOUNT_CASES))
def test_account_statement_and_binlog_agree_after_a_crash(fresh_strata, point, case):
    """A kill before the account file is written (neither), between it and the QUERY event, or after the event:
    the account store has the change exactly when the binlog has the statement (once)."""
    stmt, probe = ACCOUNT_CASES[case]
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE d')
    run(c, "CREATE USER 'old'@'%'")
    c = killed_in(s, c, point, stmt)
    changed = int(probe(c))
    logged = [q for q in binlog_statements(c) if q.endswith(stmt)]
    assert len(logged) == changed, 'account store changed: %s, statement in the binlog %d times' % (changed, len(logged))
    assert changed == (0 if point.startswith('accounts') else 1)
    c.close()
