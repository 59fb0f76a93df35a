"""Fault injection (util/fio.h): every file class of the server failed on purpose through the test-build seam
(SET GLOBAL debug_fault = 'CLASS:OP:N:ACTION', or STRATA_FAULT at start-up), and the release binary without any
of it.  Each case checks the statement's error, that the server keeps serving reads, that writes come back once
the fault is cleared, and ends with a kill -9, a restart, a clean strata-check and every acknowledged row there.
docs/faults.md has the policy these tests hold the server to."""
import os
import signal
import subprocess
import time

import pymysql
import pytest

import conftest
from sqlutil import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Text that only the fault seam puts in a binary: the variable, the environment switch, the rule words, the points.
SEAM_STRINGS = [b'debug_fault', b'STRATA_FAULT', b'STRATA_TEST_NO_REDO_SYNC', b'commit.skip_redo_sync',
                b'engine.recovery_carried', b'commit.ddl_before_binlog',
                b'binlog.before_fsync', b'CLASS:OP:N:ACTION']


def binary_has_seam(path):
    with open(path, 'rb') as f:
        return b'debug_fault' in f.read()


needs_seam = pytest.mark.skipif(not binary_has_seam(conftest.strata_exe()),
                                reason='the fault seam is only in test builds (make SAN=1)')


def seam_test(f):
    """A strata-only test that needs the fault seam."""
    return needs_seam(pytest.mark.only('strata')(f))


def test_release_build_has_no_fault_switch():
    release = os.path.join(ROOT, 'build', 'stratad')
    test_build = os.path.join(ROOT, 'build-san', 'stratad')
    if not os.path.exists(release):
        pytest.skip('no release build (make all)')
    with open(release, 'rb') as f:
        data = f.read()
    assert [s for s in SEAM_STRINGS if s in data] == []
    if os.path.exists(test_build):  # the same check finds them in a test build, so it can fail
        with open(test_build, 'rb') as f:
            data = f.read()
        assert [s for s in SEAM_STRINGS if s not in data and s != b'STRATA_TEST_NO_REDO_SYNC'] == []


def arm(c, spec):
    run(c, "SET GLOBAL debug_fault = %s", (spec,))


def ids(c, table='f.t'):
    return {r[0] for r in run(c, 'SELECT id FROM %s' % table)}


def crash_and_check(s, want, maybe=(), table='f.t', extra=None):
    """kill -9, restart, every acknowledged row present (and nothing but those and the maybe ones), clean stop,
    strata-check clean, and a last start (left running for the fixture's clean-stop check)."""
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait()
    s.stderr_f.close()
    s.start(s.extra if extra is None else extra)
    c = s.connect()
    have = ids(c, table)
    c.close()
    assert want <= have, 'acknowledged rows lost: %s' % sorted(want - have)[:10]
    assert have <= want | set(maybe), 'rows that were refused came back: %s' % sorted(have - want - set(maybe))[:10]
    assert s.stop() == 0
    strata_check(s)
    s.start(s.extra)
    return have


def run_checker(s):
    checker = os.path.join(os.path.dirname(conftest.strata_exe()), 'strata-check')
    return subprocess.run([checker, s.datadir], capture_output=True, text=True, timeout=300)


def strata_check(s):
    """tools/strata-check on s's (stopped) data directory finds nothing."""
    r = run_checker(s)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def setup_table(c, ddl='CREATE TABLE f.t (id INT PRIMARY KEY, b LONGBLOB)'):
    run(c, 'CREATE DATABASE f')
    run(c, ddl)


def start_with_rows(s, extra=(), n=10, size=4000, ddl='CREATE TABLE f.t (id INT PRIMARY KEY, b LONGBLOB)'):
    """Starts s, makes f.t with n rows; returns (connection, the rows' ids)."""
    s.start(list(extra))
    c = s.connect()
    setup_table(c, ddl)
    want, errs = fill(c, 0, n, size)
    assert not errs, errs
    return c, want


def fill(c, first, n, size=4000, table='f.t', stop_after=None):
    """Autocommit inserts; returns (ids acknowledged, errors).  Stops after stop_after errors."""
    ok, errs = set(), []
    for i in range(first, first + n):
        try:
            run(c, 'INSERT INTO %s VALUES (%%s, REPEAT(%%s, %%s))' % table, (i, 'v', size))
            ok.add(i)
        except pymysql.err.MySQLError as e:
            errs.append(e.args)
            if stop_after and len(errs) >= stop_after:
                break
    return ok, errs


@seam_test
def test_debug_fault_variable(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    for bad in ('nonsense', 'redo:fsync:1:EIO', 'redo:sync:0:EIO', 'redo:sync:1:EPERM', 'point::1:ON'):
        with pytest.raises(pymysql.err.MySQLError) as e:
            arm(c, bad)
        assert e.value.args[0] == 1231, (bad, e.value.args)
    arm(c, 'redo:sync:3+:EIO,point:binlog.before_fsync:*:ON')
    assert run(c, 'SELECT @@global.debug_fault') == (('redo:sync:3+:EIO,point:binlog.before_fsync:*:ON',),)
    arm(c, '')
    c.close()


@seam_test
def test_binlog_write_enospc_then_recovers(fresh_strata):
    s = fresh_strata
    c, want = start_with_rows(s, (), n=20)
    arm(c, 'binlog:write:1+:ENOSPC')
    ok, errs = fill(c, 100, 5)
    assert not ok and len(errs) == 5
    assert all(e[0] == 1021 and 'binary log' in e[1] for e in errs), errs
    assert ids(c) == want  # refused rows are rolled back, reads go on
    arm(c, '')
    ok, errs = fill(c, 200, 5)  # space is back: no restart needed
    assert not errs
    want |= ok
    c.close()
    crash_and_check(s, want)


@seam_test
def test_binlog_fsync_eio(fresh_strata):
    s = fresh_strata
    c, want = start_with_rows(s, (), n=10)
    arm(c, 'binlog:sync:1:EIO')
    ok, errs = fill(c, 100, 3)
    assert errs and errs[0][0] in (1026, 1030, 1180), errs  # the group whose fsync failed is not acknowledged
    assert ids(c) >= want
    want |= ok
    c.close()
    crash_and_check(s, want, maybe={100, 101, 102})


@seam_test
@pytest.mark.parametrize('size', [4000, 1 << 20])
def test_data_file_cannot_grow(fresh_strata, size):
    s = fresh_strata
    c, want = start_with_rows(s, ['--skip-log-bin', '--max-allowed-packet=64M'], n=5, size=size)
    arm(c, 'data:write:1+:ENOSPC')
    ok, errs = fill(c, 100, 10000 if size < 65536 else 40, size, stop_after=3)
    assert errs, 'the data file never had to grow'
    assert all(e[0] == 1114 for e in errs), errs[:3]  # MariaDB: "The table 't' is full"
    want |= ok
    assert ids(c) == want
    arm(c, '')
    ok, errs = fill(c, 5000, 3, size)
    assert not errs
    want |= ok
    c.close()
    crash_and_check(s, want)


@seam_test
def test_undo_file_cannot_be_created(fresh_strata):
    # the 64 MiB log spills a transaction's undo past 4 MiB, so the UPDATE below needs the undo file
    s = fresh_strata
    c, want = start_with_rows(s, ['--skip-log-bin'], n=3000, size=2000)
    arm(c, 'undo:open:1+:ENOSPC')
    run(c, 'BEGIN')
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, "UPDATE f.t SET b = REPEAT('u', 2001)")
    assert e.value.args[0] == 1114, e.value.args
    run(c, 'ROLLBACK')
    assert run(c, "SELECT COUNT(*) FROM f.t WHERE b LIKE 'u%'") == ((0,),)
    assert s.alive()
    arm(c, '')
    run(c, "UPDATE f.t SET b = REPEAT('w', 2001)")
    assert run(c, "SELECT COUNT(*) FROM f.t WHERE b LIKE 'w%'") == ((3000,),)
    c.close()
    crash_and_check(s, want)


@seam_test
def test_redo_fsync_eio_keeps_reads(fresh_strata):
    s = fresh_strata
    c, want = start_with_rows(s, ['--skip-log-bin'], n=10)
    arm(c, 'redo:sync:1+:EIO')
    ok, errs = fill(c, 100, 3)
    assert not ok and errs and all(e[0] == 1180 and 'Input/output error' in e[1] for e in errs), errs
    assert ids(c) >= want  # reads go on
    arm(c, '')
    c.close()
    crash_and_check(s, want, maybe={100, 101, 102}, extra=['--skip-log-bin'])


@seam_test
def test_temp_file_enospc_in_a_sort(fresh_strata):
    s = fresh_strata
    c, want = start_with_rows(s, ['--skip-log-bin'], n=3000, size=1000, ddl='CREATE TABLE f.t (id INT PRIMARY KEY, b VARCHAR(2000))')
    run(c, 'SET SESSION sort_buffer_size = 65536')
    q = 'SELECT id FROM f.t ORDER BY b DESC, id DESC LIMIT 1 OFFSET 2990'
    arm(c, 'temp:write:1+:ENOSPC')
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, q)
    assert e.value.args[0] == 1026 and 'errno: 28' in e.value.args[1], e.value.args
    arm(c, '')
    assert run(c, q) == ((9,),)
    c.close()
    crash_and_check(s, want, extra=['--skip-log-bin'])


@seam_test
def test_binlog_cache_file_enospc_and_eio(fresh_strata):
    """tmpdir full while a transaction's binlog events spill: that statement fails with 1026 and is undone, the
    transaction goes on and commits.  A binlog-cache file that cannot be read back at commit: the commit fails
    (nothing of it in the binlog or the tables) and later commits go through."""
    s = fresh_strata
    c, want = start_with_rows(s, ['--log-bin=fbin', '--server-id=1', '--binlog-cache-size=4096'], n=10, size=100)
    arm(c, 'temp:write:1+:ENOSPC')
    run(c, 'BEGIN')
    run(c, "INSERT INTO f.t VALUES (100, 'small')")  # a few hundred bytes: nothing spills
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, "INSERT INTO f.t VALUES (101, REPEAT('a', 3000)), (102, REPEAT('b', 3000)), (103, REPEAT('c', 3000))")
    assert e.value.args[0] == 1026 and 'errno: 28' in e.value.args[1], e.value.args
    run(c, "INSERT INTO f.t VALUES (104, 'small')")
    run(c, 'COMMIT')
    assert ids(c) >= want | {100, 104} and not ids(c) & {101, 102, 103}
    want |= {100, 104}
    arm(c, '')
    gtid = run(c, 'SELECT @@gtid_binlog_pos')[0][0]
    arm(c, 'temp:read:1+:EIO')
    run(c, 'BEGIN')
    run(c, "INSERT INTO f.t VALUES (200, REPEAT('d', 3000)), (201, REPEAT('e', 3000)), (202, REPEAT('f', 3000))")
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, 'COMMIT')
    assert e.value.args[0] == 1180, e.value.args  # "Got error ... during COMMIT": the binlog write failed
    arm(c, '')
    c.close()
    c = s.connect()
    assert not ids(c) & {200, 201, 202}
    assert run(c, 'SELECT @@gtid_binlog_pos')[0][0] == gtid
    more, errs = fill(c, 300, 3, size=3000)
    assert not errs, errs
    want |= more
    c.close()
    crash_and_check(s, want, extra=['--log-bin=fbin', '--server-id=1', '--binlog-cache-size=4096'])


@seam_test
def test_accounts_file_enospc(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    setup_table(c)
    arm(c, 'accounts:write:1:ENOSPC')
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, "CREATE USER 'u1'@'%' IDENTIFIED BY 'p'")
    assert e.value.args[0] != 0
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, "SHOW GRANTS FOR 'u1'@'%'")  # the refused user does not exist
    assert e.value.args[0] == 1141
    run(c, "CREATE USER 'u1'@'%' IDENTIFIED BY 'p'")  # the rule fired once: the next write goes through
    want, _ = fill(c, 0, 3)
    c.close()
    crash_and_check(s, want)
    c = s.connect(user='u1', password='p')  # the account that went through survived the crash
    c.close()


@seam_test
def test_kill_at_binlog_fsync_point(fresh_strata):
    s = fresh_strata
    c, want = start_with_rows(s, (), n=5)
    arm(c, 'point:binlog.before_fsync:3:KILL')
    ok, errs = fill(c, 100, 5)
    assert ok == {100, 101} and errs, (ok, errs)  # the third commit's fsync never happened: the server is gone
    s.proc.wait(timeout=30)
    assert s.proc.returncode == -signal.SIGKILL
    want |= ok
    s.stderr_f.close()
    s.start(s.extra)
    crash_and_check(s, want, maybe={102})


@seam_test
def test_startup_fault_from_environment(fresh_strata, monkeypatch):
    s = fresh_strata
    c, want = start_with_rows(s, (), n=3)
    c.close()
    assert s.stop() == 0
    monkeypatch.setenv('STRATA_FAULT', 'redo:open:1:EIO')
    s.start(wait=False)
    assert s.proc.wait(timeout=60) != 0
    assert 'Input/output error' in s.log_text()
    assert not s.sanitizer_reports()
    monkeypatch.delenv('STRATA_FAULT')
    s.stderr_f.close()
    s.start()
    crash_and_check(s, want)


@seam_test
def test_data_fsync_eio_is_never_retried_into_a_checkpoint(fresh_strata):
    """After a failed fdatasync of a data file no checkpoint succeeds any more (the pages may be gone), even once
    the disk answers again; the log keeps everything and a restart recovers every acknowledged row."""
    s = fresh_strata
    s.start(['--skip-log-bin'])
    c = s.connect()
    run(c, 'CREATE DATABASE f')
    # a data file made whole up front: the inserts below never grow one (growing syncs too)
    run(c, "CREATE TABLESPACE ts_f ADD DATAFILE 'f1.dat' INITIAL_SIZE 96M EXTENT_SIZE 1M ENGINE=NDB")
    run(c, 'CREATE TABLE f.t (id INT PRIMARY KEY, b LONGBLOB) ENGINE=NDB TABLESPACE ts_f STORAGE DISK')
    want, _ = fill(c, 0, 50)
    arm(c, 'data:sync:1:EIO')
    more, errs = fill(c, 100, 20, 1 << 20)  # 20 MiB of redo: past the quarter of the log that starts checkpoints
    assert not errs  # commits only need the redo
    want |= more

    def failed_checkpoints():
        return s.log_text().count('engine: checkpoint failed')
    deadline = time.time() + 30
    while failed_checkpoints() == 0 and time.time() < deadline:
        time.sleep(0.2)
    assert failed_checkpoints() > 0
    arm(c, '')  # the rule fired once; the next fdatasync would succeed
    n = failed_checkpoints()
    more, errs = fill(c, 200, 5)
    want |= more
    deadline = time.time() + 30
    while failed_checkpoints() == n and time.time() < deadline:
        time.sleep(0.2)
    assert failed_checkpoints() > n, 'a checkpoint succeeded after a failed fdatasync'
    assert ids(c) == want
    c.close()
    crash_and_check(s, want, extra=['--skip-log-bin'])


@seam_test
def test_query_log_write_enospc_closes_the_log_only(fresh_strata):
    s = fresh_strata
    c, want = start_with_rows(s, (), n=3)
    path = os.path.join(s.base, 'general.log')
    run(c, "SET GLOBAL general_log_file = %s", (path,))
    run(c, 'SET GLOBAL general_log = ON')
    arm(c, 'qlog:write:1+:ENOSPC')
    assert run(c, "SELECT 'not logged'") == (('not logged',),)  # the statement does not fail
    assert 'the log is closed' in s.log_text()
    arm(c, '')
    run(c, 'FLUSH LOGS')
    run(c, "SELECT 'logged again'")
    with open(path) as f:
        text = f.read()
    assert 'logged again' in text and 'not logged' not in text
    c.close()
    crash_and_check(s, want)


def status(c, name):
    return int(run(c, 'SHOW GLOBAL STATUS LIKE %s', (name,))[0][1])


@seam_test
@pytest.mark.parametrize('end', ['retried', 'killed'])
def test_rollback_that_cannot_read_its_undo(fresh_strata, end):
    """A ROLLBACK whose spilled undo cannot be read back (EIO) answers 1181 and does not end the transaction: no
    reader sees any of its changes, its row locks hold, and the engine finishes the rollback by itself once the
    undo file reads again ('retried'), or recovery does after kill -9 ('killed').  Before, it logged ROLLBACK
    and left every change it had not undone in the table as if committed."""
    s = fresh_strata
    c, want = start_with_rows(s, ['--skip-log-bin'], n=3000, size=2000)
    run(c, 'BEGIN')
    for ch in 'uvw':  # about 20 MB of undo: checkpoints spill most of it to the undo file
        run(c, "UPDATE f.t SET b = REPEAT(%s, 2001)", (ch,))
    arm(c, 'undo:read:1+:EIO')
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, 'ROLLBACK')
    assert e.value.args[0] == 1181 and 'during ROLLBACK' in e.value.args[1], e.value.args
    assert s.alive()
    o = s.connect()
    assert status(o, 'Strata_rollbacks_pending') == 1
    # nothing of it is visible, whether undone already or not
    assert run(o, "SELECT COUNT(*), MIN(LENGTH(b)), MAX(LENGTH(b)) FROM f.t WHERE b LIKE 'v%'") == ((3000, 2000, 2000),)
    assert run(o, "SELECT COUNT(*) FROM f.t WHERE b NOT LIKE 'v%'") == ((0,),)
    # its locks hold: a writer waits and times out
    run(o, 'SET SESSION innodb_lock_wait_timeout = 1')
    for key in (0, 2999):
        with pytest.raises(pymysql.err.MySQLError) as e:
            run(o, "UPDATE f.t SET b = 'x' WHERE id = %s", (key,))
        assert e.value.args[0] == 1205, e.value.args
    if end == 'killed':
        c.close()
        o.close()
        crash_and_check(s, want, extra=['--skip-log-bin'])
        c = s.connect()
    else:
        arm(c, '')
        deadline = time.time() + 60
        while status(o, 'Strata_rollbacks_pending') and time.time() < deadline:
            time.sleep(0.2)
        assert status(o, 'Strata_rollbacks_pending') == 0
        assert 'the rollback of trx' in s.log_text()
        run(o, "UPDATE f.t SET b = REPEAT('y', 10) WHERE id = 0")
        o.close()
    assert run(c, "SELECT COUNT(*) FROM f.t WHERE b LIKE 'v%' AND LENGTH(b) = 2000") == ((3000 - (end == 'retried'),),)
    c.close()
    crash_and_check(s, want, extra=['--skip-log-bin'])
