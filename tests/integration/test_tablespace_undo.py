"""Logfile groups and large transactions (issue 3): a transaction's undo is no longer capped at 1/8 of the redo
log.  A DELETE of 200,000 rows and an UPDATE of every row of a table several times the redo log's eighth work in
one transaction (their undo is spilled to the undo file of the logfile group, DEFAULT_LG when none was created)
and survive a restart; information_schema.FILES shows the undo file as MySQL Cluster does (FILE_TYPE 'UNDO LOG',
LOGFILE_GROUP_NAME, EXTENT_SIZE 4, TOTAL_EXTENTS = bytes / 4, FREE_EXTENTS from the live spill, EXTRA
'UNDO_BUFFER_SIZE=n'); a CREATE LOGFILE GROUP file too small for a transaction gives a clear error (1297, as
MySQL Cluster's "out of undo space") and the transaction rolls back whole.  MariaDB has no logfile groups, so
this runs against strata only."""
import os
import subprocess

import pymysql
import pytest

import conftest


def undo_rows(s):
    return s.query("SELECT FILE_NAME, FILE_TYPE, TABLESPACE_NAME, LOGFILE_GROUP_NAME, EXTENT_SIZE, TOTAL_EXTENTS, "
                   "FREE_EXTENTS, INITIAL_SIZE, MAXIMUM_SIZE, EXTRA FROM information_schema.FILES "
                   "WHERE FILE_TYPE = 'UNDO LOG'")


def test_large_transactions_default_group(fresh_strata):
    s = fresh_strata
    s.start([])
    c = s.connect()
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE u')
        cur.execute('CREATE TABLE u.t (id INT PRIMARY KEY, v VARCHAR(100))')
        for i in range(0, 200000, 5000):
            cur.execute('INSERT INTO u.t VALUES ' + ','.join(
                "(%d, 'row-%d-%s')" % (j, j, 'x' * 60) for j in range(i, i + 5000)))
        cur.execute('SELECT COUNT(*) FROM u.t')
        assert cur.fetchone() == (200000,)
        assert undo_rows(s) == ()  # no logfile group yet
        cur.execute('SELECT SUM(LENGTH(v)) FROM u.t')
        before = cur.fetchone()[0]
        # one transaction: 200,000 updated rows, each old value in the undo, ~15 MB (the default log's eighth is
        # 8 MiB; a DELETE's undo keeps no value, so it is an UPDATE that makes megabytes)
        cur.execute('BEGIN')
        cur.execute("UPDATE u.t SET v = CONCAT(v, 'y')")
        assert cur.rowcount == 200000
        rows = undo_rows(s)
        assert len(rows) == 1, rows
        name, ftype, ts, lfg, ext, total, free, initial, maximum, extra = rows[0]
        assert (name, ftype, ts, lfg, ext) == ('undo_default.log', 'UNDO LOG', None, 'DEFAULT_LG', 4)
        assert free < total - 1000000, rows  # the spill holds megabytes now
        cur.execute('ROLLBACK')
        cur.execute('SELECT COUNT(*), SUM(LENGTH(v)) FROM u.t')
        assert cur.fetchone() == (200000, before)  # every old value back
        # a DELETE of every row, committed
        cur.execute('BEGIN')
        cur.execute('DELETE FROM u.t WHERE id >= 0')
        assert cur.rowcount == 200000
        cur.execute('COMMIT')
        cur.execute('SELECT COUNT(*) FROM u.t')
        assert cur.fetchone() == (0,)
        # UPDATE of every row of a table of 60 MB (7x the log's eighth) in one statement
        cur.execute('CREATE TABLE u.big (id INT PRIMARY KEY, v VARBINARY(4000))')
        for i in range(0, 15000, 500):
            cur.execute('INSERT INTO u.big VALUES ' + ','.join(
                "(%d, REPEAT('a', 4000))" % j for j in range(i, i + 500)))
        cur.execute("UPDATE u.big SET v = REPEAT('b', 4000)")
        assert cur.rowcount == 15000
        cur.execute("SELECT COUNT(*) FROM u.big WHERE v = REPEAT('b', 4000)")
        assert cur.fetchone() == (15000,)
    c.close()
    s.restart()
    assert s.query('SELECT COUNT(*) FROM u.t') == ((0,),)
    assert s.query("SELECT COUNT(*) FROM u.big WHERE v = REPEAT('b', 4000)") == ((15000,),)
    rows = undo_rows(s)
    assert rows[0][6] * 4 + 4096 == rows[0][5] * 4, rows  # nothing live after the restart
    assert s.stop() == 0
    checker = os.path.join(os.path.dirname(conftest.strata_exe()), 'strata-check')
    r = subprocess.run([checker, s.datadir], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    s.start(s.extra)


def test_logfile_group_bounds_a_transaction(fresh_strata):
    s = fresh_strata
    s.start([])
    c = s.connect()
    with c.cursor() as cur:
        cur.execute("CREATE LOGFILE GROUP lg ADD UNDOFILE 'lg_undo.log' INITIAL_SIZE 4M UNDO_BUFFER_SIZE 2M "
                    "ENGINE=NDB")
        with pytest.raises(pymysql.err.OperationalError) as ei:
            cur.execute("CREATE LOGFILE GROUP lg2 ADD UNDOFILE 'lg2.log' INITIAL_SIZE 4M ENGINE=NDB")
        assert ei.value.args[0] == 1528
        rows = undo_rows(s)
        assert rows == (('lg_undo.log', 'UNDO LOG', None, 'lg', 4, 1048576, 1047552, 4194304, 4194304,
                         'UNDO_BUFFER_SIZE=2097152'),), rows
        cur.execute('CREATE DATABASE u')
        cur.execute('CREATE TABLE u.t (id INT PRIMARY KEY, v VARBINARY(3000))')
        for i in range(0, 3000, 500):
            cur.execute('INSERT INTO u.t VALUES ' + ','.join(
                "(%d, REPEAT('o', 3000))" % j for j in range(i, i + 500)))
        # 9 MB of undo does not fit a 4 MB undo file
        cur.execute('BEGIN')
        with pytest.raises(pymysql.err.OperationalError) as ei:
            cur.execute("UPDATE u.t SET v = REPEAT('n', 3000)")
        assert ei.value.args[0] == 1297, ei.value.args
        assert 'undo' in ei.value.args[1]
        cur.execute('ROLLBACK')
        cur.execute("SELECT COUNT(*) FROM u.t WHERE v = REPEAT('o', 3000)")
        assert cur.fetchone() == (3000,)
        # one that fits
        cur.execute("UPDATE u.t SET v = REPEAT('m', 3000) WHERE id < 1000")
        cur.execute("SELECT COUNT(*) FROM u.t WHERE v = REPEAT('m', 3000)")
        assert cur.fetchone() == (1000,)
        cur.execute('DROP LOGFILE GROUP lg ENGINE=NDB')
        assert undo_rows(s) == ()
        assert not os.path.exists(os.path.join(s.datadir, 'lg_undo.log'))
        with pytest.raises(pymysql.err.OperationalError) as ei:
            cur.execute('DROP LOGFILE GROUP lg ENGINE=NDB')
        assert ei.value.args[0] == 1529
    c.close()
