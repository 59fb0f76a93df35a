"""Views beyond single statements: they survive a restart and kill -9, a mariadb-dump of a database with views
restores into strata and into MariaDB (and MariaDB's dump into strata) with the views reading the same rows,
CREATE VIEW reaches the binary log, and the privileges MariaDB asks for: SELECT on the view alone is enough to
read it (SQL SECURITY DEFINER), CREATE VIEW needs CREATE VIEW, SHOW CREATE VIEW needs SHOW VIEW; INVOKER views
check the invoker, writes through a view need the view's and the definer's (invoker's) privileges on the base
table, a missing definer is 1449; a write through a view is logged as row events of the base table (decoded by
mariadb-binlog the same on both servers); a point lookup through a view of a large table reads by its key.
The per-statement behaviour (errors, SHOW, information_schema) is tests/sql/views.sql."""
import os
import signal
import subprocess

import pymysql
import pytest


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()] if cur.description else []


SCHEMA = [
    'CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10), c DECIMAL(6,2))',
    "INSERT INTO t VALUES (1, 'x', 1.25), (2, 'y', NULL), (3, 'z', 9.5)",
    'CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1',
    'CREATE VIEW v2 (n, s) AS SELECT COUNT(*), SUM(c) FROM t',
    'CREATE VIEW v3 AS SELECT v.a, t.c FROM v JOIN t ON v.a = t.a',
    'CREATE VIEW v4 AS SELECT a, ROW_NUMBER() OVER (ORDER BY a DESC) AS rn FROM t',
]
READS = ['SELECT * FROM v ORDER BY a', 'SELECT * FROM v2', 'SELECT * FROM v3 ORDER BY a', 'SELECT * FROM v4 ORDER BY a']


def build(server, db):
    c = server.connect()
    q(c, 'CREATE DATABASE %s' % db)
    q(c, 'USE %s' % db)
    for s in SCHEMA:
        q(c, s)
    return c


def reads(server, db):
    c = server.connect(database=db)
    out = [q(c, s) for s in READS]
    c.close()
    return out


@pytest.mark.parametrize('how', [signal.SIGTERM, signal.SIGKILL])
def test_views_survive_restart(fresh_strata, unique, how):
    s = fresh_strata
    s.start()
    db = unique('vw')
    c = build(s, db)
    before = reads(s, db)
    q(c, 'DROP VIEW v4')
    c.close()
    if how == signal.SIGTERM:
        s.stop()
    else:
        s.proc.send_signal(how)
        s.proc.wait(timeout=10)
        s.stderr_f.close()
    s.start(s.extra)
    c = fresh_strata.connect(database=db)
    assert [q(c, s) for s in READS[:3]] == before[:3]
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        q(c, 'SELECT * FROM v4')
    assert e.value.args[0] == 1146
    assert q(c, 'SHOW FULL TABLES') == [('t', 'BASE TABLE'), ('v', 'VIEW'), ('v2', 'VIEW'), ('v3', 'VIEW')]


def dump(server, db):
    r = subprocess.run(['mariadb-dump', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                        '--protocol=TCP', '--databases', db], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors='replace')
    return r.stdout


def restore(server, text):
    r = subprocess.run(['mariadb', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                        '--protocol=TCP'], input=text, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors='replace')


def test_dump_round_trip(fresh_strata, fresh_mariadb, unique):
    fresh_strata.start()
    fresh_mariadb.start()
    db = unique('vd')
    for src, dst in ((fresh_strata, fresh_mariadb), (fresh_mariadb, fresh_strata)):
        build(src, db).close()
        want = reads(src, db)
        text = dump(src, db)
        assert b'VIEW `v3`' in text
        restore(dst, text)
        assert reads(dst, db) == want, (src.kind, dst.kind)
        for s in (src, dst):
            q(s.connect(), 'DROP DATABASE %s' % db)


def test_create_view_is_logged(fresh_strata, unique):
    fresh_strata.start()
    db = unique('vb')
    build(fresh_strata, db).close()
    c = fresh_strata.connect()
    events = q(c, "SHOW BINLOG EVENTS")
    texts = [e[5] for e in events if e[2] == 'Query']
    # as MariaDB logs it: the definer spelled out, so that a replica's SQL thread (no user) can create it
    want = 'CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v3` AS SELECT v.a'
    assert any(want in t for t in texts), texts


def test_view_privileges(target, unique):
    db, user = unique('vp'), unique('vu')
    root = build(target, db)
    q(root, "CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
    q(root, "GRANT SELECT ON %s.v TO '%s'@'%%'" % (db, user))
    c = target.connect(user=user, password='pw', database=db)
    assert q(c, 'SELECT * FROM v ORDER BY a') == [(2, 'y'), (3, 'z')]
    for sql, code in (('SELECT * FROM t', 1142), ('SELECT * FROM v2', 1142), ('SHOW CREATE VIEW v', 1142),
                      ('CREATE VIEW v9 AS SELECT 1', 1142)):
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(c, sql)
        assert e.value.args[0] == code, (sql, e.value.args)
    q(root, "GRANT SHOW VIEW ON %s.v TO '%s'@'%%'" % (db, user))
    c.close()
    c = target.connect(user=user, password='pw', database=db)
    assert q(c, 'SHOW CREATE VIEW v')[0][0] == 'v'
    c.close()
    q(root, "DROP USER '%s'@'%%'" % user)
    q(root, 'DROP DATABASE %s' % db)


def test_view_security_definer_invoker(target, unique):
    """Real accounts: what a DEFINER view reads and writes is checked against its definer, an INVOKER view's
    against the invoker; either lacking is 1356; a definer without an account is 1449 (1045 without SUPER)."""
    db, user, definer = unique('vs'), unique('vu'), unique('vdf')
    root = target.connect()
    q(root, 'CREATE DATABASE %s' % db)
    q(root, 'USE %s' % db)
    q(root, 'CREATE TABLE t (id INT PRIMARY KEY, a INT)')
    q(root, 'INSERT INTO t VALUES (1, 1)')
    for u in (user, definer):
        q(root, "CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % u)
    q(root, "GRANT SELECT ON %s.t TO '%s'@'%%'" % (db, definer))
    q(root, "CREATE DEFINER='%s'@'%%' SQL SECURITY DEFINER VIEW vd AS SELECT * FROM t" % definer)
    q(root, "CREATE DEFINER='%s'@'%%' SQL SECURITY INVOKER VIEW vi AS SELECT * FROM t" % definer)
    q(root, "CREATE DEFINER='nobody_%s'@'%%' SQL SECURITY DEFINER VIEW vn AS SELECT * FROM t" % user)
    q(root, "CREATE DEFINER='%s'@'%%' SQL SECURITY DEFINER VIEW vv AS SELECT id, a FROM vi WHERE id > 0" % definer)
    for v in ('vd', 'vi', 'vn', 'vv'):
        q(root, "GRANT SELECT, INSERT, UPDATE, DELETE ON %s.%s TO '%s'@'%%'" % (db, v, user))
    q(root, "GRANT SELECT ON %s.vi TO '%s'@'%%'" % (db, definer))

    def err(c, sql):
        with pytest.raises(pymysql.err.MySQLError) as e:
            q(c, sql)
        return e.value.args[0]

    c = target.connect(user=user, password='pw', database=db)
    assert q(c, 'SELECT * FROM vd') == [(1, 1)]          # the definer's SELECT on t
    assert q(c, 'SELECT * FROM vv') == [(1, 1)]          # vi inside vv runs as vv's definer, who may read t
    assert err(c, 'SELECT * FROM vi') == 1356            # the invoker may not read t
    assert err(c, 'SELECT * FROM t') == 1142
    assert err(c, 'SELECT * FROM vn') == 1045
    assert err(root, 'SELECT * FROM vn') == 1449
    for sql in ('UPDATE vd SET a = 2', 'INSERT INTO vd VALUES (5, 5)', 'DELETE FROM vd WHERE id = 1',
                'UPDATE vi SET a = 3', 'UPDATE vv SET a = 4'):
        assert err(c, sql) == 1356, sql
    q(root, "GRANT INSERT, UPDATE, DELETE ON %s.t TO '%s'@'%%'" % (db, definer))
    q(root, "GRANT SELECT ON %s.t TO '%s'@'%%'" % (db, user))
    c.close()
    c = target.connect(user=user, password='pw', database=db, autocommit=True)
    assert q(c, 'SELECT * FROM vi') == [(1, 1)]
    q(c, 'UPDATE vd SET a = 2')
    q(c, 'INSERT INTO vd VALUES (5, 5)')
    q(c, 'DELETE FROM vd WHERE id = 5')
    assert err(c, 'UPDATE vi SET a = 3') == 1356         # the invoker has no UPDATE on t
    assert err(c, 'UPDATE vv SET a = 4') == 1356         # vv's definer has no UPDATE on vi
    assert q(root, 'SELECT * FROM %s.t' % db) == [(1, 2)]
    c.close()
    for u in (user, definer):
        q(root, "DROP USER '%s'@'%%'" % u)
    q(root, 'DROP DATABASE %s' % db)


BINLOG_OPTS = ('--log-bin=vlog', '--binlog-format=ROW', '--server-id=1', '--sync-binlog=1')


@pytest.mark.fresh_opts(*BINLOG_OPTS)
def test_write_through_view_logs_base_table_rows(fresh_target):
    """Row events of a write through a view name the base table: mariadb-binlog decodes them to the same row
    images on both servers."""
    c = fresh_target.connect(autocommit=True)
    q(c, 'RESET MASTER')
    for sql in ('CREATE DATABASE vbl', 'CREATE TABLE vbl.t (id INT PRIMARY KEY, a INT, b VARCHAR(10))',
                "CREATE VIEW vbl.v AS SELECT id, a AS x, b FROM vbl.t WHERE a < 100 WITH CHECK OPTION",
                "CREATE VIEW vbl.vv AS SELECT id, x FROM vbl.v WHERE id > 0",
                "INSERT INTO vbl.v VALUES (1, 10, 'p'), (2, 20, 'q')", 'UPDATE vbl.v SET x = x + 1 WHERE id = 2',
                'INSERT INTO vbl.vv (id, x) VALUES (3, 30)', 'DELETE FROM vbl.vv WHERE id = 1'):
        q(c, sql)
    base = q(c, 'SELECT @@log_bin_basename')[0][0]
    files = [os.path.join(os.path.dirname(base), r[0]) for r in q(c, 'SHOW BINARY LOGS')]
    out = subprocess.run(['mariadb-binlog', '--verbose', '--base64-output=DECODE-ROWS'] + files,
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout.decode('utf-8', 'backslashreplace')
    rows = [ln for ln in text.splitlines() if ln.startswith('###')]
    assert rows == [
        '### INSERT INTO `vbl`.`t`', '### SET', '###   @1=1', '###   @2=10', "###   @3='p'",
        '### INSERT INTO `vbl`.`t`', '### SET', '###   @1=2', '###   @2=20', "###   @3='q'",
        '### UPDATE `vbl`.`t`', '### WHERE', '###   @1=2', '###   @2=20', "###   @3='q'",
        '### SET', '###   @1=2', '###   @2=21', "###   @3='q'",
        '### INSERT INTO `vbl`.`t`', '### SET', '###   @1=3', '###   @2=30', '###   @3=NULL',
        '### DELETE FROM `vbl`.`t`', '### WHERE', '###   @1=1', '###   @2=10', "###   @3='p'",
    ], rows
    q(c, 'DROP DATABASE vbl')


def test_point_lookup_through_view_uses_key(fresh_strata):
    """A mergeable view (and a view of it) of a 200,000-row table: WHERE id = k through it reads a few pages by
    the primary key (no full scan: Select_scan stays 0), where the TEMPTABLE view reads the whole table."""
    s = fresh_strata
    s.start()
    c = s.connect(autocommit=True)
    q(c, 'CREATE DATABASE vpl')
    q(c, 'USE vpl')
    q(c, 'CREATE TABLE big (id INT PRIMARY KEY, v INT)')
    q(c, 'SET max_recursive_iterations = 1000000')
    q(c, 'INSERT INTO big WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 200000) '
         'SELECT n, n * 2 FROM s')
    q(c, 'CREATE VIEW bv AS SELECT id, v FROM big')
    q(c, 'CREATE VIEW bv2 AS SELECT id, v + 0 AS w FROM bv WHERE v > 0')
    q(c, 'CREATE ALGORITHM=TEMPTABLE VIEW bt AS SELECT id, v FROM big')

    def cost(sql, want):
        before = int(q(c, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'")[0][1])
        q(c, 'FLUSH STATUS')
        assert q(c, sql) == want
        scans = int(q(c, "SHOW SESSION STATUS LIKE 'Select_scan'")[0][1])
        after = int(q(c, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'")[0][1])
        return after - before, scans

    for sql in ('SELECT * FROM bv WHERE id = 123457', 'SELECT * FROM bv2 WHERE id = 123457 AND w > 1',
                'SELECT x.v FROM bv x WHERE x.id = 123457'):
        reads, scans = cost(sql, [(123457, 246914)] if 'x.v' not in sql else [(246914,)])
        assert reads < 100 and scans == 0, (sql, reads, scans)
    reads, scans = cost('SELECT * FROM bt WHERE id = 123457', [(123457, 246914)])
    assert reads > 10000 and scans == 1, (reads, scans)
    q(c, 'DROP DATABASE vpl')


def test_load_data_through_view(target, unique, tmp_path):
    """LOAD DATA INFILE into a view: the file's fields go to the base columns the view's columns are, the view's
    CHECK OPTION holds (1369; IGNORE skips the line with the warning), a column that is an expression is 1348."""
    import os as _os
    _os.chmod(str(tmp_path), 0o777)
    db = unique('vld')
    c = target.connect(autocommit=True)
    q(c, 'CREATE DATABASE %s' % db)
    q(c, 'USE %s' % db)
    q(c, 'CREATE TABLE t (id INT PRIMARY KEY, a INT, note VARCHAR(10) DEFAULT \'-\')')
    q(c, 'CREATE VIEW v AS SELECT a AS x, id FROM t WHERE a < 100 WITH CHECK OPTION')
    q(c, 'CREATE VIEW ve AS SELECT id, a + 1 AS y FROM t')
    path = str(tmp_path / 'v.txt')
    with open(path, 'wb') as f:
        f.write(b'10\t1\n20\t2\n')
    cur = c.cursor()
    assert cur.execute("LOAD DATA INFILE '%s' INTO TABLE v" % path) == 2
    assert q(c, 'SELECT * FROM t ORDER BY id') == [(1, 10, '-'), (2, 20, '-')]
    with open(path, 'wb') as f:
        f.write(b'3\t30\n4\t400\n5\t50\n')
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE '%s' INTO TABLE v (id, x)" % path)
    assert e.value.args[0] == 1369
    assert cur.execute("LOAD DATA INFILE '%s' IGNORE INTO TABLE v (id, @k) SET x = @k + 1" % path) == 2
    assert [tuple(w[:2]) for w in q(c, 'SHOW WARNINGS')] == [('Warning', 1369)]
    assert q(c, 'SELECT * FROM t WHERE id > 2 ORDER BY id') == [(3, 31, '-'), (5, 51, '-')]
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE '%s' INTO TABLE ve" % path)
    assert e.value.args[0] == 1348
    q(c, 'DROP DATABASE %s' % db)


def test_rename_and_writes_survive_kill(fresh_strata, unique):
    """RENAME TABLE of a view and rows written through a view are durable at return: after kill -9 the view is
    there under its new name only, and the rows are in its base table."""
    s = fresh_strata
    s.start()
    db = unique('vk')
    c = build(s, db)
    q(c, 'RENAME TABLE v TO vr')
    q(c, "INSERT INTO vr VALUES (7, 'k')")
    q(c, "UPDATE vr SET b = 'u' WHERE a = 2")
    c.close()
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait(timeout=10)
    s.stderr_f.close()
    s.start(s.extra)
    c = s.connect(database=db)
    assert q(c, 'SELECT * FROM vr ORDER BY a') == [(2, 'u'), (3, 'z'), (7, 'k')]
    assert ('v', 'VIEW') not in q(c, 'SHOW FULL TABLES')
    assert q(c, 'SELECT * FROM t WHERE a = 7') == [(7, 'k', None)]
