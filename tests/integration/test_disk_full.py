"""Disk full (issue 3's ENOSPC item, issue 5's commit path): when the binary log's disk fills, the commits that
cannot be written fail with 1021 and are rolled back in the engine, the server keeps running, and once space is
freed commits go through again; engine and binlog agree throughout and after a restart.  The binlog directory is
a small tmpfs (the test is skipped where mount is not permitted)."""
import subprocess
import time

import pymysql
import pytest

import test_faults
from sqlutil import binlog_insert_ids, run



@pytest.fixture
def small_dir(tmp_path):
    d = tmp_path / 'bl'
    d.mkdir()
    r = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', str(d)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip('cannot mount a tmpfs here: ' + r.stderr.strip())
    yield d
    subprocess.run(['umount', '-l', str(d)], capture_output=True)


@pytest.mark.only('strata')
@pytest.mark.fresh_opts(start=False)
def test_binlog_disk_full_fails_commits_then_recovers(fresh_target, small_dir):
    s = fresh_target
    ballast = small_dir / 'ballast'
    ballast.write_bytes(b'\0' * (512 * 1024))
    s.start(['--log-bin=%s/sb' % small_dir])
    c = s.connect()
    run(c, 'CREATE DATABASE df')
    run(c, 'CREATE TABLE df.t (id INT PRIMARY KEY, b MEDIUMBLOB)')
    ok, errors = [], []
    for i in range(200):
        try:
            run(c, 'INSERT INTO df.t VALUES (%s, REPEAT(%s, 30000))', (i, 'z'))
            ok.append(i)
        except pymysql.err.OperationalError as e:
            errors.append(e.args)
    assert ok and errors, 'the disk never filled'
    assert all(e[0] == 1021 for e in errors), errors[:3]
    assert 'binary log' in errors[0][1]
    # what failed is not in the table, what succeeded is, and the binlog says the same
    assert sorted(r[0] for r in run(c, 'SELECT id FROM df.t')) == ok
    # a transaction whose commit fails is rolled back whole
    run(c, 'BEGIN')
    run(c, 'INSERT INTO df.t VALUES (1000, REPEAT(%s, 30000))', ('q',))
    run(c, 'INSERT INTO df.t VALUES (1001, REPEAT(%s, 30000))', ('q',))
    with pytest.raises(pymysql.err.OperationalError) as e:
        run(c, 'COMMIT')
    assert e.value.args[0] == 1021
    assert run(c, 'SELECT COUNT(*) FROM df.t WHERE id >= 1000') == ((0,),)
    # space comes back: commits work again without a restart
    ballast.unlink()
    run(c, 'INSERT INTO df.t VALUES (2000, REPEAT(%s, 30000))', ('w',))
    have = {r[0] for r in run(c, 'SELECT id FROM df.t')}
    assert have == set(ok) | {2000}
    with c.cursor() as cur:
        assert binlog_insert_ids(cur, 'df', 't') == have
    c.close()
    # and after a restart
    assert s.stop() == 0
    s.start(['--log-bin=%s/sb' % small_dir])
    c = s.connect()
    assert {r[0] for r in run(c, 'SELECT id FROM df.t')} == have
    c.close()



# ---------------------------------------------------------------- the whole data directory on a small file system

@pytest.fixture
def small_fs(tmp_path):
    """A 160 MiB ext4 image, loop-mounted (skipped where mount is not permitted)."""
    img, mnt = tmp_path / 'fs.img', tmp_path / 'mnt'
    mnt.mkdir()
    subprocess.run(['truncate', '-s', '160M', str(img)], check=True)
    r = subprocess.run(['mkfs.ext4', '-q', '-F', str(img)], capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run(['mount', '-o', 'loop', str(img), str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip('cannot make a loop-mounted ext4 here: ' + r.stderr.strip())
    yield mnt
    subprocess.run(['umount', '-l', str(mnt)], capture_output=True)


def insert_until_full(c, table, first, size, limit):
    return test_faults.fill(c, first, limit, size, table=table, stop_after=3)


@pytest.mark.only('strata')
@pytest.mark.parametrize('size', [4096, 1 << 20, 30 << 20], ids=['4KiB', '1MiB', '30MB'])
def test_datadir_fills_any_row_size(small_fs, fresh_strata, size):
    """Whichever file meets the full disk first (data file, binlog, undo), the statement fails with MariaDB's
    error, reads go on, committed rows stay, and once space comes back writes go through without a restart."""
    s = fresh_strata
    s.datadir = str(small_fs / 'data')
    ballast = small_fs / 'ballast'
    ballast.write_bytes(b'\0' * (40 << 20))
    s.start(['--max-allowed-packet=64M'])
    c = s.connect()
    run(c, 'CREATE DATABASE df')
    run(c, 'CREATE TABLE df.t (id INT PRIMARY KEY, b LONGBLOB)')
    ok, errors = insert_until_full(c, 'df.t', 0, size, 100000)
    assert errors, 'the disk never filled'
    for e in errors:
        assert e[0] in (1114, 1021), errors
        assert e[0] == 1114 or 'binary log' in e[1], errors
    assert s.alive()
    assert {r[0] for r in run(c, 'SELECT id FROM df.t')} == ok
    # a DELETE whose rows do not fit in the binlog any more is rolled back, and its rollback needs no space
    try:
        run(c, 'DELETE FROM df.t')
        ok = set()
    except pymysql.err.OperationalError as e:
        assert e.args[0] == 1021 and 'binary log' in e.args[1], e.args
    assert {r[0] for r in run(c, 'SELECT id FROM df.t')} == ok
    # a transaction that fails on the full disk rolls back whole and needs no space to do it
    run(c, 'BEGIN')
    with pytest.raises(pymysql.err.OperationalError):
        for i in range(10 ** 6, 10 ** 6 + 1000):
            run(c, 'INSERT INTO df.t VALUES (%s, REPEAT(%s, %s))', (i, 'q', size))
        run(c, 'COMMIT')
    run(c, 'ROLLBACK')
    assert {r[0] for r in run(c, 'SELECT id FROM df.t')} == ok
    # space comes back: writes go through by themselves
    ballast.unlink()
    more, errors = insert_until_full(c, 'df.t', 2 * 10 ** 6, min(size, 1 << 20), 3)
    assert not errors and len(more) == 3
    ok |= more
    c.close()
    test_faults.crash_and_check(s, ok, table='df.t')


@pytest.mark.only('strata')
def test_full_data_file_reused_after_delete_and_drop(small_fs, fresh_strata):
    """Without a binlog the data file is what fills: DELETE (once purged) and DROP TABLE give its pages and extents
    back, and the next inserts use them, with nothing freed on the file system."""
    s = fresh_strata
    s.datadir = str(small_fs / 'data')
    # the history sampler writes into the same data file: it would take the pages the DELETE frees before the
    # test's inserts can show they are reused
    s.start(['--skip-log-bin', '--monitor-interval=0'])
    c = s.connect()
    run(c, 'CREATE DATABASE df')
    run(c, 'CREATE TABLE df.a (id INT PRIMARY KEY, b LONGBLOB)')
    run(c, 'CREATE TABLE df.b (id INT PRIMARY KEY, b LONGBLOB)')
    a_ok, errors = insert_until_full(c, 'df.a', 0, 1 << 20, 1000)
    assert errors and all(e[0] == 1114 for e in errors), errors
    # DELETE needs no new space (its undo only clears a mark), and the purge frees the rows' pages
    run(c, 'DELETE FROM df.a WHERE id MOD 2 = 0')
    a_ok = {i for i in a_ok if i % 2}
    b_ok = set()
    for attempt in range(100):
        more, errors = insert_until_full(c, 'df.b', len(b_ok), 1 << 20, 1)
        b_ok |= more
        if more:
            break
        time.sleep(0.2)
    assert b_ok, 'the deleted rows\' pages were never reused'
    run(c, 'DROP TABLE df.a')
    more, errors = insert_until_full(c, 'df.b', 1000, 1 << 20, 5)
    assert not errors, errors
    b_ok |= more
    c.close()
    test_faults.crash_and_check(s, b_ok, table='df.b')


@pytest.mark.only('strata')
@pytest.mark.fresh_opts(start=False)
def test_binlog_full_then_purge_binary_logs(fresh_target, small_dir):
    """The binlog's disk fills; PURGE BINARY LOGS gives space back and commits go through again, no restart."""
    s = fresh_target
    s.start(['--log-bin=%s/sb' % small_dir, '--max-binlog-size=262144'])
    c = s.connect()
    run(c, 'CREATE DATABASE df')
    run(c, 'CREATE TABLE df.t (id INT PRIMARY KEY, b MEDIUMBLOB)')
    ok, errors = insert_until_full(c, 'df.t', 0, 30000, 500)
    assert ok and errors and all(e[0] == 1021 and 'binary log' in e[1] for e in errors), errors[:3]
    last = run(c, 'SHOW BINARY LOGS')[-1][0]
    run(c, "PURGE BINARY LOGS TO '%s'" % last)
    assert len(run(c, 'SHOW BINARY LOGS')) == 1
    more, errors = insert_until_full(c, 'df.t', 1000, 30000, 5)
    assert not errors and len(more) == 5
    ok |= more
    assert {r[0] for r in run(c, 'SELECT id FROM df.t')} == ok
    c.close()
    test_faults.crash_and_check(s, ok, table='df.t')
