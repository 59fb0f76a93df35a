"""innodb_force_recovery (docs/faults.md, "Forced recovery"): a read-only start that gets past a damaged catalog.

With it set (1..6) the server opens the data directory read-only: nothing is written to any of its files (checked
by checksum and mtime), every change is refused with MariaDB's answer (1036 "Table 't' is read only", CREATE TABLE
1005 with errno 165, the statements MariaDB runs outside InnoDB 1290), a damaged page or record of the catalog's
tree is skipped and named in the error log instead of refusing the start, a table with a damaged page fails with
1877, and mariadb-dump --all-databases --force saves every readable table: restored into a fresh server, each
reads row for row as the damaged server served it.  Levels 5 and 6 (interrupted transactions as committed, redo
not applied) after a kill -9."""
import hashlib
import os
import re
import signal
import subprocess

import pymysql
import pytest

from conftest import new_server
from sqlutil import run

pytestmark = pytest.mark.only('strata')  # damaging InnoDB's files is another test
PAGE = 16384
CATALOG_TREE = 16  # strata_catalog.id's tree: 'strata-catalog 1 16'


def snapshot(datadir):
    """Checksum and mtime of every file of the data directory."""
    out = {}
    for dirpath, _, files in os.walk(datadir):
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, 'rb') as f:
                out[os.path.relpath(p, datadir)] = (hashlib.sha1(f.read()).hexdigest(), os.stat(p).st_mtime_ns)
    return out


def refused(c, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, sql)
    return e.value.args


def pages(path):
    with open(path, 'rb') as f:
        data = f.read()
    return data, len(data) // PAGE


def flip_byte(path, pageno, off=PAGE // 2):
    with open(path, 'r+b') as f:
        f.seek(pageno * PAGE + off)
        b = f.read(1)
        f.seek(pageno * PAGE + off)
        f.write(bytes([b[0] ^ 0xff]))


def table_pages_with(path, marker, owner=None, leaf=None):
    """B+tree pages holding marker (owner: only that tree's; leaf: only level-0 pages)."""
    data, n = pages(path)
    hit = []
    for i in range(n):
        pg = data[i * PAGE:(i + 1) * PAGE]
        if pg[7] != 3 or marker not in pg:
            continue
        if owner is not None and int.from_bytes(pg[24:32], 'little') != owner:
            continue
        if leaf is not None and (int.from_bytes(pg[32:34], 'little') == 0) != leaf:
            continue
        hit.append(i)
    return hit


def start_refused(s, extra=()):
    s.start(list(extra), wait=False)
    rc = s.proc.wait(timeout=60)
    s.stderr_f.close()
    assert rc != 0
    return s.log_text()


def dump_all(s):
    r = subprocess.run(['mariadb-dump', '--no-defaults', '-uroot', '-h', s.host, '-P', str(s.port), '--protocol=TCP',
                        '--all-databases', '--force'], capture_output=True, timeout=300)
    return r


def restore(s, text):
    r = subprocess.run(['mariadb', '--no-defaults', '-uroot', '-h', s.host, '-P', str(s.port), '--protocol=TCP'],
                       input=text, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors='replace')[-2000:]


def user_tables(c):
    return sorted((db, t) for db, t in run(c, "SELECT table_schema, table_name FROM information_schema.tables "
                                              "WHERE table_schema NOT IN ('mysql', 'information_schema', "
                                              "'performance_schema', 'sys', 'strata_monitor') AND table_type = 'BASE TABLE'"))


def rows(c, db, t):
    return run(c, 'SELECT * FROM `%s`.`%s` ORDER BY 1' % (db, t))


def test_read_only_start_writes_nothing_and_refuses_changes(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE x')
    run(c, 'CREATE TABLE x.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))')
    run(c, "INSERT INTO x.t (v) VALUES ('a'), ('b'), ('c')")
    run(c, 'CREATE TABLE x.u (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO x.u VALUES (5)')
    run(c, 'CREATE VIEW x.vw AS SELECT id, v FROM x.t')
    c.close()
    assert s.stop() == 0
    before = snapshot(s.datadir)
    s.start(['--innodb-force-recovery=4'])
    c = s.connect()
    assert run(c, 'SELECT @@innodb_force_recovery, @@innodb_read_only, @@log_bin') == ((4, 1, 0),)
    assert refused(c, 'SET GLOBAL innodb_force_recovery = 0') == (
        1238, "Variable 'innodb_force_recovery' is a read only variable")
    assert run(c, 'SELECT * FROM x.t ORDER BY id') == ((1, 'a'), (2, 'b'), (3, 'c'))
    assert run(c, 'SELECT COUNT(*) FROM x.vw') == ((3,),)
    assert run(c, 'SELECT * FROM x.t WHERE id = 2 FOR UPDATE') == ((2, 'b'),)  # a locking read is no change
    ro = (1036, "Table 't' is read only")
    assert refused(c, "INSERT INTO x.t (v) VALUES ('d')") == ro
    assert refused(c, "UPDATE x.t SET v = 'z'") == ro
    assert refused(c, 'DELETE FROM x.t') == ro
    assert refused(c, 'TRUNCATE TABLE x.t') == ro
    assert refused(c, 'ALTER TABLE x.t ADD COLUMN w INT') == ro
    assert refused(c, 'CREATE INDEX iv ON x.t (v)') == ro
    assert refused(c, 'DROP TABLE x.u') == (1036, "Table 'u' is read only")
    assert refused(c, 'CREATE TABLE x.n (id INT)') == (
        1005, 'Can\'t create table `x`.`n` (errno: 165 "Table is read only")')
    assert run(c, 'SHOW WARNINGS') == (
        ('Error', 1005, 'Can\'t create table `x`.`n` (errno: 165 "Table is read only")'),
        ('Warning', 1036, "Table 'n' is read only"))
    assert refused(c, 'CREATE TEMPORARY TABLE x.tt (id INT)')[0] == 1005
    prevents = (1290, 'The MariaDB server is running with the --innodb-force-recovery option so it cannot execute '
                      'this statement')
    for sql in ('CREATE DATABASE y', 'DROP DATABASE x', 'CREATE VIEW x.v2 AS SELECT 1', 'DROP VIEW x.vw',
                "CREATE USER u@localhost", 'GRANT SELECT ON x.* TO root@localhost',
                'CREATE PROCEDURE x.p() SELECT 1'):
        assert refused(c, sql) == prevents, sql
    # as MariaDB: ANALYZE works (statistics kept in memory), OPTIMIZE answers with rows
    assert run(c, 'ANALYZE TABLE x.t') == (('x.t', 'analyze', 'status', 'OK'),)
    assert run(c, 'OPTIMIZE TABLE x.t') == (
        ('x.t', 'optimize', 'Warning', 'Running in read-only mode'),
        ('x.t', 'optimize', 'Warning', 'Running in read-only mode'),
        ('x.t', 'optimize', 'Error', "Table 't' is read only"), ('x.t', 'optimize', 'status', 'Operation failed'))
    assert run(c, 'CHECK TABLE x.t') == (('x.t', 'check', 'status', 'OK'),)
    assert refused(c, 'CREATE TABLE x.c AS SELECT * FROM x.t')[0] == 1005
    run(c, 'BEGIN')
    assert refused(c, "INSERT INTO x.t (v) VALUES ('e')") == ro
    run(c, 'COMMIT')
    assert run(c, 'SELECT * FROM x.t ORDER BY id') == ((1, 'a'), (2, 'b'), (3, 'c'))
    assert 'AUTO_INCREMENT=4 ' in run(c, 'SHOW CREATE TABLE x.t')[0][1]  # the refused INSERTs took no value
    c.close()
    assert s.stop() == 0
    assert snapshot(s.datadir) == before  # not a byte, not an mtime
    log = s.log_text()
    assert '!!! innodb_force_recovery is set to 4 !!!' in log
    assert 'opened read-only' in log
    # a normal start afterwards: everything as it was, and writable
    s.start()
    c = s.connect()
    run(c, "INSERT INTO x.t (v) VALUES ('d')")
    assert run(c, 'SELECT * FROM x.t ORDER BY id') == ((1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'))
    c.close()


def test_set_in_my_cnf(fresh_strata):
    s = fresh_strata
    s.start()
    assert s.stop() == 0
    path = s.write_defaults_file(['innodb_force_recovery = 2'])
    s.write_defaults_file = lambda extra_lines=(): path  # start() uses this file as written
    s.start(defaults_file=True)
    c = s.connect()
    assert run(c, 'SELECT @@GLOBAL.innodb_force_recovery, @@innodb_read_only') == ((2, 1),)
    assert refused(c, 'CREATE DATABASE y')[0] == 1290
    c.close()


def test_innodb_read_only_is_the_same_read_only_start(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE test')
    run(c, 'CREATE TABLE test.t (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO test.t VALUES (1)')
    c.close()
    assert s.stop() == 0
    before = snapshot(s.datadir)
    s.start(['--innodb-read-only=1'])
    c = s.connect()
    assert run(c, 'SELECT @@innodb_read_only, @@innodb_force_recovery') == ((1, 0),)
    assert refused(c, 'INSERT INTO test.t VALUES (2)') == (1036, "Table 't' is read only")
    assert refused(c, 'CREATE DATABASE y')[0] == 1290
    assert run(c, 'SELECT * FROM test.t') == ((1,),)
    c.close()
    assert s.stop() == 0
    assert snapshot(s.datadir) == before


def test_missing_accounts_and_certificates_are_not_written(fresh_strata):
    """accounts.dat moved away (the way out of a damaged one) and no TLS files: a read-only start has root alone in
    memory and no TLS, and creates neither."""
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE k')
    run(c, 'CREATE TABLE k.t (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO k.t VALUES (1)')
    run(c, "CREATE USER app@localhost IDENTIFIED BY 'pw'")
    c.close()
    assert s.stop() == 0
    for name in os.listdir(s.datadir):
        if name == 'accounts.dat' or name.endswith('.pem'):
            os.rename(os.path.join(s.datadir, name), os.path.join(s.base, name))
    before = snapshot(s.datadir)
    s.start(['--innodb-force-recovery=1'])
    c = s.connect()
    assert run(c, 'SELECT * FROM k.t') == ((1,),)
    with pytest.raises(pymysql.err.OperationalError) as e:  # the accounts of the moved file are not there
        s.connect(user='app', password='pw')
    assert e.value.args[0] == 1045
    c.close()
    assert s.stop() == 0
    assert snapshot(s.datadir) == before
    assert 'does not exist: this read-only start has root@localhost alone (no password), in memory only' in \
        s.log_text()


def make_damaged(s):
    """A data directory with several databases and tables, then two kinds of damage: a data page of a.bad and
    the catalog leaf holding m.victim's record.  Returns the damaged catalog page number."""
    s.start()
    c = s.connect()
    for db in ('a', 'm', 'z'):
        run(c, 'CREATE DATABASE %s' % db)
    run(c, 'CREATE TABLE a.t1 (id INT PRIMARY KEY, v VARCHAR(40), d DATE, n DECIMAL(10,2))')
    for i in range(200):
        run(c, 'INSERT INTO a.t1 VALUES (%s, %s, %s, %s)', (i, 'row %d' % i, '2024-01-%02d' % (i % 28 + 1), i * 1.5))
    run(c, 'CREATE TABLE a.bad (id INT PRIMARY KEY, v VARCHAR(100))')
    for i in range(300):
        run(c, 'INSERT INTO a.bad VALUES (%s, %s)', (i, 'MARKERxyz%05d' % i))
    # long comments spread the catalog over several leaves, so one damaged leaf loses a few records only
    for i in range(30):
        name = 'p15_victim' if i == 15 else 'p%02d' % i
        comment = ('VICTIMCOMMENT' if i == 15 else 'filler') + '-' * 1800
        run(c, "CREATE TABLE m.%s (id INT PRIMARY KEY, v VARCHAR(10)) COMMENT '%s'" % (name, comment))
        run(c, "INSERT INTO m.%s VALUES (1, 'one'), (2, 'two')" % name)
    run(c, 'CREATE TABLE z.t2 (k VARCHAR(10) PRIMARY KEY, b BLOB)')
    run(c, "INSERT INTO z.t2 VALUES ('x', REPEAT('b', 30000)), ('y', NULL)")
    run(c, 'CREATE VIEW z.v AS SELECT k FROM z.t2')
    c.close()
    assert s.stop() == 0
    sysdat = os.path.join(s.datadir, 'strata_sys.dat')
    bad = table_pages_with(sysdat, b'MARKERxyz')
    assert bad
    flip_byte(sysdat, bad[0])
    cat = table_pages_with(sysdat, b'VICTIMCOMMENT', owner=CATALOG_TREE, leaf=True)
    assert len(cat) == 1, cat
    flip_byte(sysdat, cat[0], PAGE - 100)
    return cat[0]


def test_damaged_catalog_and_page_dump_restore(fresh_strata, tmp_path):
    s = fresh_strata
    catpage = make_damaged(s)
    # without the option: refused, and the way out is named
    log = start_refused(s)
    assert "Aborting: the catalog in '%s' can't be used" % s.datadir in log
    assert 'start with innodb_force_recovery=1' in log
    before = snapshot(s.datadir)
    s.start(['--innodb-force-recovery=1'])
    log = s.log_text()
    assert 'page 0:0:%d of the catalog is damaged; the records on it (from ' % catpage in log
    c = s.connect()
    served = user_tables(c)
    assert ('m', 'p15_victim') not in served
    assert refused(c, 'SELECT * FROM m.p15_victim') == (1146, "Table 'm.p15_victim' doesn't exist")
    for t in (('a', 't1'), ('a', 'bad'), ('z', 't2')):
        assert t in served
    lost = [('m', 'p%02d' % i) for i in range(30) if i != 15 and ('m', 'p%02d' % i) not in served]
    assert len(lost) < 10  # one leaf's worth
    assert len([t for t in served if t[0] == 'm']) >= 15
    assert refused(c, 'SELECT COUNT(*) FROM a.bad') == (
        1877, "Operation cannot be performed. The table 'a.bad' is missing, corrupt or contains bad data")
    assert rows(c, 'a', 't1')[5] == (5, 'row 5', __import__('datetime').date(2024, 1, 6),
                                     __import__('decimal').Decimal('7.50'))
    expect = {t: rows(c, *t) for t in served if t != ('a', 'bad')}
    assert run(c, 'SELECT * FROM z.v ORDER BY k') == (('x',), ('y',))
    c.close()
    r = dump_all(s)
    assert r.returncode != 0  # --force went on past a.bad's 1877 and says so
    err = r.stderr.decode(errors='replace')
    assert '1877' in err and 'a.bad' in err or '`bad`' in err, err
    dump = r.stdout
    assert b'VICTIMCOMMENT' not in dump
    assert s.stop() == 0
    assert snapshot(s.datadir) == before
    # restore into a fresh server: every readable table, row for row
    t = new_server('strata')
    t.prepare()
    try:
        t.start()
        restore(t, dump)
        c = t.connect()
        got = user_tables(c)
        assert set(got) == set(served)
        for tab, want in expect.items():
            assert rows(c, *tab) == want, tab
        assert run(c, 'SELECT COUNT(*) FROM a.bad') == ((0,),)  # its definition was readable, its rows not
        assert run(c, 'SELECT * FROM z.v ORDER BY k') == (('x',), ('y',))
        c.close()
    finally:
        t.stop()


def test_damaged_overflow_of_a_catalog_record(fresh_strata):
    """A table record too large for its leaf lives in overflow pages: one of them damaged loses that record only."""
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE o')
    cols = ', '.join("c%d INT COMMENT '%s'" % (i, ('BIGRECORD%02d' % i) + 'x' * 900) for i in range(12))
    run(c, 'CREATE TABLE o.big (id INT PRIMARY KEY, %s)' % cols)
    run(c, 'CREATE TABLE o.after (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO o.after VALUES (7)')
    run(c, 'CREATE TABLE o.a_first (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO o.a_first VALUES (3)')
    c.close()
    assert s.stop() == 0
    sysdat = os.path.join(s.datadir, 'strata_sys.dat')
    data, n = pages(sysdat)
    ovf = [i for i in range(n) if data[i * PAGE + 7] == 4 and b'BIGRECORD05' in data[i * PAGE:(i + 1) * PAGE] and
           int.from_bytes(data[i * PAGE + 24:i * PAGE + 32], 'little') == CATALOG_TREE]
    assert ovf
    for p in ovf:  # the chain's page, and any freed copy of an earlier write of the record
        flip_byte(sysdat, p)
    assert "the catalog in '%s' can't be used" % s.datadir in start_refused(s)
    before = snapshot(s.datadir)
    s.start(['--innodb-force-recovery=1'])
    assert "the record of table 'o.big' is damaged and was skipped" in s.log_text()
    c = s.connect()
    assert user_tables(c) == [('o', 'a_first'), ('o', 'after')]
    assert run(c, 'SELECT * FROM o.after') == ((7,),)
    assert run(c, 'SELECT * FROM o.a_first') == ((3,),)
    c.close()
    assert s.stop() == 0
    assert snapshot(s.datadir) == before


def test_damaged_catalog_leaf_with_the_database_records(fresh_strata):
    """The first leaf holds the 'D' records: its tables' databases come back from the tables that name them."""
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE d1')
    run(c, 'CREATE TABLE d1.t (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO d1.t VALUES (1), (2)')
    c.close()
    assert s.stop() == 0
    sysdat = os.path.join(s.datadir, 'strata_sys.dat')
    cat = table_pages_with(sysdat, b'd1', owner=CATALOG_TREE, leaf=True)
    assert cat
    flip_byte(sysdat, cat[0], PAGE - 64)
    s.start(['--innodb-force-recovery=2'])
    log = s.log_text()
    assert 'of the catalog is damaged; the records on it (from the first record to the last)' in log
    assert '0 database(s) and 0 table(s) read from the damaged catalog' in log
    c = s.connect()
    assert user_tables(c) == []
    c.close()


def test_crash_then_force_recovery_levels(fresh_strata):
    """Without the binary log (with it, the last commits can be in the binlog alone, re-applied by a normal start:
    a read-only start does not open it, docs/faults.md)."""
    s = fresh_strata
    s.start(['--skip-log-bin'])
    c = s.connect()
    run(c, 'CREATE DATABASE test')
    run(c, 'CREATE TABLE test.t (id INT PRIMARY KEY, v INT)')
    run(c, 'CREATE TABLE test.other (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO test.t VALUES (1, 10), (2, 20)')
    c.close()
    assert s.stop() == 0  # a checkpoint holds the table and its rows
    s.start(['--skip-log-bin'])
    c = s.connect()
    run(c, 'INSERT INTO test.t VALUES (4, 40)')  # committed after the checkpoint: in the redo log only
    open_trx = s.connect()
    run(open_trx, 'BEGIN')
    run(open_trx, 'INSERT INTO test.t VALUES (3, 30)')
    run(open_trx, 'UPDATE test.t SET v = 11 WHERE id = 1')
    run(c, 'INSERT INTO test.other VALUES (1)')  # its commit writes the open transaction's redo too
    c.close()
    s.stop(sig=signal.SIGKILL)
    before = snapshot(s.datadir)
    # 1..4: the redo is applied in memory; the interrupted transaction is not rolled back (nothing is written)
    # but its changes are not seen
    s.start(['--skip-log-bin', '--innodb-force-recovery=3'])
    c = s.connect()
    assert run(c, 'SELECT * FROM test.t ORDER BY id') == ((1, 10), (2, 20), (4, 40))
    assert refused(c, 'INSERT INTO test.t VALUES (5, 50)') == (1036, "Table 't' is read only")
    c.close()
    assert s.stop() == 0
    assert re.search(r'\d+ transaction\(s\) left incomplete by the crash are not rolled back; their changes are '
                     r'not visible', s.log_text())
    assert snapshot(s.datadir) == before
    # 5: its undo is not read: its changes show as if committed
    s.start(['--skip-log-bin', '--innodb-force-recovery=5'])
    c = s.connect()
    assert run(c, 'SELECT * FROM test.t ORDER BY id') == ((1, 11), (2, 20), (3, 30), (4, 40))
    c.close()
    assert s.stop() == 0
    assert snapshot(s.datadir) == before
    # 6: the redo is not applied: the data files as they are (what the checkpoints wrote)
    s.start(['--skip-log-bin', '--innodb-force-recovery=6'])
    assert 'the redo log past the last checkpoint is not applied' in s.log_text()
    c = s.connect()
    assert {r[0] for r in run(c, 'SELECT id FROM test.t')} >= {1, 2}
    c.close()
    assert s.stop() == 0
    assert snapshot(s.datadir) == before
    # and the next normal start recovers as if none of that had happened
    s.start(['--skip-log-bin'])
    c = s.connect()
    assert run(c, 'SELECT * FROM test.t ORDER BY id') == ((1, 10), (2, 20), (4, 40))
    c.close()
