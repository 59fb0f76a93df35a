"""One fsync per commit group (docs/binlog.md): with sync_binlog=1 a commit syncs only the binary log, and after a
crash the transactions whose redo was lost are re-applied from the binlog's row events.  The test switch
STRATA_FAULT=point:commit.skip_redo_sync:*:ON (the test build's fault seam, util/fio.h) stops the checkpointer from ever syncing the redo, so the
recovery MUST re-apply: acknowledged inserts, updates, deletes, multi-row transactions, a table without a primary
key and a table of every column type, then kill -9; after the restart every table must equal what the clients saw
acknowledged, the binlog and the table must agree, and strata-check must find no fault."""
import os
import random
import re
import signal
import subprocess

import pytest

import conftest
import test_faults
from sqlutil import binlog_insert_ids

TABLES = {
    'pk': 'SELECT * FROM r.pk ORDER BY id',
    'nopk': 'SELECT * FROM r.nopk',
    'types': 'SELECT * FROM r.types ORDER BY id',
    'ins': 'SELECT * FROM r.ins ORDER BY id',
    'ai': 'SELECT * FROM r.ai ORDER BY id',
}


def snapshot(c):
    out = {}
    with c.cursor() as cur:
        for name, q in TABLES.items():
            cur.execute(q)
            out[name] = sorted(cur.fetchall(), key=repr)
    return out


def workload(c, rnd, base, alter=False):
    with c.cursor() as cur:
        for i in range(20):
            cur.execute('INSERT INTO r.ai (v) VALUES (%s)', (i,))
        for i in range(base, base + 150):
            cur.execute('INSERT INTO r.pk VALUES (%s, %s, %s, %s)', (i, i, 'v%d' % i, 2**64 - 1 - i))
            cur.execute('INSERT INTO r.ins VALUES (%s)', (i,))
        for i in range(base, base + 150, 7):
            cur.execute('UPDATE r.pk SET v = %s, u = u - 5 WHERE id = %s', ('upd%d' % i, i))
        for i in range(base + 1, base + 150, 11):
            cur.execute('DELETE FROM r.pk WHERE id = %s', (i,))
        # multi-row transactions: a primary key moves, two unique values swap through a third
        cur.execute('BEGIN')
        cur.execute('UPDATE r.pk SET id = id + 100000 WHERE id = %s', (base + 3,))
        cur.execute('UPDATE r.pk SET k = -1 WHERE id = %s', (base + 4,))
        cur.execute('UPDATE r.pk SET k = %s WHERE id = %s', (base + 4, base + 5))
        cur.execute('UPDATE r.pk SET k = %s WHERE id = %s', (base + 5, base + 4))
        cur.execute('INSERT INTO r.pk VALUES (%s, %s, NULL, 0)', (base + 200000, base + 200000))
        cur.execute('COMMIT')
        # no primary key: identical rows, one of them changed, one deleted
        for i in range(40):
            cur.execute('INSERT INTO r.nopk VALUES (%s, %s, %s)', (i % 10, 'b%d' % (i % 3), '%d.%02d' % (i, i)))
        cur.execute("UPDATE r.nopk SET b = 'changed' WHERE a = 5 LIMIT 1")
        cur.execute('DELETE FROM r.nopk WHERE a = 7 LIMIT 1')
        cur.execute('BEGIN')
        cur.execute("UPDATE r.nopk SET c = c + 1 WHERE a = 2")
        cur.execute('DELETE FROM r.nopk WHERE a = 3')
        cur.execute('COMMIT')
        # every column type binrow.c maps
        for i in range(base, base + 30):
            neg = -1 if i % 2 else 1
            cur.execute(
                'INSERT INTO r.types VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, '
                '%s, %s)',
                (i, neg * (i % 128), i % 65536, neg * i * 1000, neg * i * 10**12, neg * i / 3.0, neg * i / 7.0,
                 '%s%d.%06d' % ('-' if neg < 0 else '', i, i % 1000000), 'ch%d' % i, bytes([0, i % 256, 255]),
                 't' * (i % 300), bytes(range(i % 200)), '20%02d-%02d-%02d' % (i % 100, i % 12 + 1, i % 28 + 1),
                 '2024-02-29 23:59:%02d.%03d' % (i % 60, i % 1000), None if i % 5 == 0 else
                 '2021-%02d-01 12:00:00.%06d' % (i % 12 + 1, i), '%s%d:%02d:%02d.%02d' % ('-' if neg < 0 else '',
                                                                                         i % 838, i % 60, i % 60,
                                                                                         i % 100),
                 1901 + i % 254, 'abc'[i % 3], ['x', 'x,z', 'y,z', ''][i % 4], i % 1024))
        cur.execute("UPDATE r.types SET tx = CONCAT(tx, 'more'), e = 'c', s = 'x,y,z', bt = 1023 WHERE id % 3 = 0")
        cur.execute('DELETE FROM r.types WHERE id % 4 = 1')
        for _ in range(20):
            cur.execute('UPDATE r.pk SET v = %s WHERE id = %s', ('r%d' % rnd.randint(0, 999), base + rnd.randint(0, 149)))
        if alter:
            # DDL in the middle: the transactions after it are re-applied against the new definition
            cur.execute("ALTER TABLE r.nopk ADD COLUMN note VARCHAR(10) DEFAULT 'n'")
            for i in range(10):
                cur.execute("INSERT INTO r.nopk VALUES (%s, 'after', 1.25, %s)", (100 + i, 'x%d' % i))
            cur.execute("UPDATE r.nopk SET note = 'upd' WHERE a = 101")
            cur.execute('DELETE FROM r.nopk WHERE a = 102')


def create(c):
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE r')
        cur.execute('CREATE TABLE r.pk (id INT PRIMARY KEY, k INT NOT NULL, v VARCHAR(100), u BIGINT UNSIGNED, '
                    'UNIQUE KEY uk (k), KEY vk (v))')
        cur.execute('CREATE TABLE r.nopk (a INT, b VARCHAR(20), c DECIMAL(10,2), KEY a (a))')
        cur.execute('CREATE TABLE r.types (id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, '
                    'bi BIGINT, f FLOAT, d DOUBLE, dc DECIMAL(20,6), ch CHAR(10), vb VARBINARY(20), tx TEXT, bl BLOB, '
                    'dt DATE, dtm DATETIME(3), ts TIMESTAMP(6) NULL, tm TIME(2), y YEAR, e ENUM(\'a\',\'b\',\'c\'), '
                    's SET(\'x\',\'y\',\'z\'), bt BIT(10))')
        cur.execute('CREATE TABLE r.ins (id BIGINT PRIMARY KEY)')
        cur.execute('CREATE TABLE r.ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT)')


def reapplied(s):
    """Transactions re-applied at the last start (from its log line), or 0."""
    m = re.findall(r're-applied (\d+) transaction', s.log_text())
    return int(m[-1]) if m else 0


@pytest.mark.skipif(not test_faults.binary_has_seam(conftest.strata_exe()), reason='needs the test build (make SAN=1)')
@pytest.mark.only('strata')
def test_crash_reapply_from_binlog(fresh_strata, monkeypatch):
    s = fresh_strata
    monkeypatch.setenv('STRATA_FAULT', 'point:commit.skip_redo_sync:*:ON')
    s.start()
    c = s.connect()
    create(c)
    rnd = random.Random(7)
    for cycle in range(2):
        workload(c, rnd, 1000 * (cycle + 1), alter=cycle == 1)
        want = snapshot(c)  # everything in it was acknowledged
        c.close()
        s.proc.send_signal(signal.SIGKILL)
        s.proc.wait()
        s.stderr_f.close()
        s.start(s.extra)
        n = reapplied(s)
        assert n > 0, 'cycle %d: the recovery re-applied nothing: the test switch did not keep the redo unsynced' % cycle
        c = s.connect()
        have = snapshot(c)
        for name in TABLES:
            assert have[name] == want[name], 'cycle %d: table %s differs after re-applying %d transactions:\n' \
                'only before the crash: %s\nonly after: %s' % (cycle, name, n,
                                                                [r for r in want[name] if r not in have[name]][:5],
                                                                [r for r in have[name] if r not in want[name]][:5])
        with c.cursor() as cur:
            assert binlog_insert_ids(cur, 'r', 'ins') == {r[0] for r in have['ins']}
            cur.execute('SELECT COUNT(*) FROM r.pk FORCE INDEX (uk) WHERE k >= -1')
            assert cur.fetchone()[0] == len(have['pk'])
            # AUTO_INCREMENT moved past the re-applied rows
            cur.execute('INSERT INTO r.ai (v) VALUES (-1)')
            assert cur.lastrowid > max(r[0] for r in have['ai'])
            cur.execute('DELETE FROM r.ai WHERE v = -1')
            have = snapshot(c)
    # the re-applied rows are durable: a clean stop, the checker, and one more start change nothing
    c.close()
    assert s.stop() == 0
    checker = os.path.join(os.path.dirname(conftest.strata_exe()), 'strata-check')
    r = subprocess.run([checker, s.datadir], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    monkeypatch.delenv('STRATA_FAULT')
    s.start()
    c = s.connect()
    assert snapshot(c) == have
    c.close()
