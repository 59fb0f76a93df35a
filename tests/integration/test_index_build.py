"""Index builds on tables larger than the buffer pool: CREATE INDEX / ALTER TABLE ... ADD INDEX sort the keys and
load the new tree bottom-up (src/sql/ddl/index_build.c, engine_bulk_*).  The index must answer as a scan does, CHECK
TABLE must be clean, a reader must not wait for the whole build (the build holds a NO_WRITE metadata lock, as
InnoDB's LOCK=SHARED), SHOW PROCESSLIST must say what the build is doing, and a kill -9 during the build must leave
no index and a clean strata-check after the restart."""
import os
import subprocess
import threading
import time

import pymysql
import pytest

import conftest

ROWS = int(os.environ.get('IDXBUILD_ROWS', '250000'))
POOL = ['--innodb-buffer-pool-size=4M']  # 250k rows of ~200 bytes: about 12x the pool


def load(c, rows=ROWS):
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE ib')
        cur.execute('CREATE TABLE ib.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, '
                    'pad CHAR(60) NOT NULL)')
        step = 2000
        for lo in range(1, rows + 1, step):
            vals = ','.join("(%d,%d,'%s','p')" % (i, (i * 7919) % (rows // 4), 'c%d' % (i % 1000))
                            for i in range(lo, min(lo + step, rows + 1)))
            cur.execute('INSERT INTO ib.t VALUES ' + vals)


def processlist(c):
    with c.cursor() as cur:
        cur.execute('SHOW PROCESSLIST')
        return cur.fetchall()


def checker(s):
    exe = os.path.join(os.path.dirname(conftest.strata_exe()), 'strata-check')
    r = subprocess.run([exe, s.datadir], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout[-3000:] + r.stderr[-3000:]


@pytest.mark.only('strata')  # the buffer pool size and the bottom-up build are strata's; answers checked by scans
def test_build_larger_than_pool(fresh_strata):
    s = fresh_strata
    s.start(POOL)
    c = s.connect()
    load(c)
    done = threading.Event()
    err = []

    def build():
        try:
            b = s.connect()
            with b.cursor() as cur:
                cur.execute('CREATE INDEX k ON ib.t (k)')
            b.close()
        except Exception as e:  # reported below
            err.append(e)
        done.set()

    th = threading.Thread(target=build)
    th.start()
    reads, states, progress = 0, set(), set()
    r = s.connect()
    t0 = time.time()
    while not done.is_set() and time.time() - t0 < 120:
        with r.cursor() as cur:
            cur.execute('SELECT COUNT(*) FROM ib.t WHERE id <= 1000')
            assert cur.fetchone()[0] == 1000
        if not done.is_set():
            reads += 1
        for row in processlist(c):
            if row[7] and 'CREATE INDEX' in row[7]:
                states.add(row[6])
                progress.add(row[8])
        time.sleep(0.05)
    th.join(120)
    assert not err, err
    assert done.is_set()
    # the reader was answered while the build ran (it did not wait on the metadata lock for the whole build)
    assert reads >= 2, (reads, states)
    assert any(st and st.startswith('Building index') for st in states), states
    assert any(p not in ('0.000', None) for p in progress), progress
    with c.cursor() as cur:
        cur.execute('SHOW INDEX FROM ib.t')
        assert [x[2] for x in cur.fetchall()] == ['PRIMARY', 'k']
        cur.execute('SELECT COUNT(*), SUM(k), SUM(id) FROM ib.t FORCE INDEX (k) WHERE k >= 0')
        by_index = cur.fetchone()
        cur.execute('SELECT COUNT(*), SUM(k), SUM(id) FROM ib.t IGNORE INDEX (k)')
        assert by_index == cur.fetchone()
        assert by_index[0] == ROWS
        for k in (0, 17, ROWS // 8, ROWS // 4 - 1):
            cur.execute('SELECT id FROM ib.t FORCE INDEX (k) WHERE k = %s ORDER BY id', (k,))
            a = cur.fetchall()
            cur.execute('SELECT id FROM ib.t IGNORE INDEX (k) WHERE k = %s ORDER BY id', (k,))
            assert a == cur.fetchall() and a
        cur.execute('EXPLAIN SELECT id FROM ib.t WHERE k = 17')
        assert cur.fetchone()[5] == 'k'
        cur.execute('CHECK TABLE ib.t')
        assert cur.fetchall()[-1][3] == 'OK'
        # the new tree takes ordinary writes afterwards
        cur.execute("INSERT INTO ib.t VALUES (%s, 17, 'new', 'p')", (ROWS + 1,))
        cur.execute('DELETE FROM ib.t WHERE id = 5')
        cur.execute('SELECT COUNT(*) FROM ib.t FORCE INDEX (k) WHERE k = 17')
        n17 = cur.fetchone()[0]
        cur.execute('SELECT COUNT(*) FROM ib.t IGNORE INDEX (k) WHERE k = 17')
        assert cur.fetchone()[0] == n17
        # a UNIQUE index over duplicates fails and leaves nothing behind
        with pytest.raises(pymysql.err.IntegrityError) as ei:
            cur.execute('ALTER TABLE ib.t ADD UNIQUE INDEX u (k)')
        assert ei.value.args[0] == 1062 and "for key 'u'" in ei.value.args[1]
        cur.execute('SHOW INDEX FROM ib.t')
        assert [x[2] for x in cur.fetchall()] == ['PRIMARY', 'k']
        # a second index through ALTER TABLE, and a rebuild that rebuilds both
        cur.execute('ALTER TABLE ib.t ADD INDEX kc (k, c)')
        cur.execute('ALTER TABLE ib.t MODIFY pad VARCHAR(80) NOT NULL')
        cur.execute('SELECT COUNT(*), SUM(id) FROM ib.t FORCE INDEX (kc) WHERE k >= 0')
        a = cur.fetchone()
        cur.execute('SELECT COUNT(*), SUM(id) FROM ib.t FORCE INDEX (k) WHERE k >= 0')
        assert a == cur.fetchone()
        cur.execute('CHECK TABLE ib.t')
        assert cur.fetchall()[-1][3] == 'OK'
    r.close()
    c.close()
    assert s.stop() == 0
    rc, out = checker(s)
    assert rc == 0, out
    s.start(POOL)  # the fixture stops it again


@pytest.mark.only('strata')  # kill -9 and strata-check
def test_kill9_during_build(fresh_strata):
    s = fresh_strata
    s.start(POOL)
    c = s.connect()
    load(c)

    def build():
        try:
            b = s.connect()
            with b.cursor() as cur:
                cur.execute('CREATE INDEX k ON ib.t (k, c)')
        except Exception:
            pass  # the server dies under it

    th = threading.Thread(target=build)
    th.start()
    seen = None
    t0 = time.time()
    while time.time() - t0 < 60 and seen is None:
        for row in processlist(c):
            if row[6] and row[6].startswith('Building index: loading'):
                seen = row[6]
        time.sleep(0.01)
    assert seen, 'the build never reached its loading phase'
    s.proc.kill()
    s.proc.wait()
    s.stderr_f.close()
    th.join(30)
    s.start(POOL)
    c = s.connect()
    with c.cursor() as cur:
        cur.execute('SHOW INDEX FROM ib.t')
        assert [x[2] for x in cur.fetchall()] == ['PRIMARY']
        cur.execute('SELECT COUNT(*) FROM ib.t')
        assert cur.fetchone()[0] == ROWS
    c.close()
    assert s.stop() == 0
    rc, out = checker(s)
    assert rc == 0, out
    assert 'leaked' in out and ' 0 leaked' in out, out  # the half-built tree went back whole
    s.start(POOL)


def test_unique_build_duplicate(fresh_target):
    """The error of a UNIQUE build over duplicates, and a concurrent writer that waits for the build: both as
    MariaDB answers them."""
    c = fresh_target.connect()
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE ib')
        cur.execute('CREATE TABLE ib.u (id INT PRIMARY KEY, a INT, b VARCHAR(10))')
        cur.execute("INSERT INTO ib.u VALUES (1, 5, 'x'), (2, NULL, 'y'), (3, NULL, 'y'), (4, 5, 'x'), (5, 6, 'x')")
        with pytest.raises(pymysql.err.IntegrityError) as ei:
            cur.execute('CREATE UNIQUE INDEX ua ON ib.u (a)')
        assert ei.value.args == (1062, "Duplicate entry '5' for key 'ua'")
        with pytest.raises(pymysql.err.IntegrityError) as ei:
            cur.execute('ALTER TABLE ib.u ADD UNIQUE KEY uab (a, b), ADD COLUMN d INT')  # a rebuild
        assert ei.value.args == (1062, "Duplicate entry '5-x' for key 'uab'")
        cur.execute('DELETE FROM ib.u WHERE id = 4')
        cur.execute('CREATE UNIQUE INDEX ua ON ib.u (a)')  # NULLs are not duplicates
        cur.execute('SELECT id FROM ib.u FORCE INDEX (ua) WHERE a IS NULL ORDER BY id')
        assert cur.fetchall() == ((2,), (3,))
        cur.execute('SHOW INDEX FROM ib.u')
        assert [x[2] for x in cur.fetchall()] == ['PRIMARY', 'ua']
    c.close()
