"""Disk full (issue 3's ENOSPC item, issue 5's commit path): when the binary log's disk fills, the commits that
cannot be written fail with 1021 and are rolled back in the engine, the server keeps running, and once space is
freed commits go through again; engine and binlog agree throughout and after a restart.  The binlog directory is
a small tmpfs (the test is skipped where mount is not permitted)."""
import subprocess

import pymysql
import pytest

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

