"""Views beyond single statements: they survive a restart and kill -9, a mariadb-dump of a database with views
restores into strata and into MariaDB (and MariaDB's dump into strata) with the views reading the same rows,
CREATE VIEW reaches the binary log, and the privileges MariaDB asks for: SELECT on the view alone is enough to
read it (SQL SECURITY DEFINER), CREATE VIEW needs CREATE VIEW, SHOW CREATE VIEW needs SHOW VIEW.
The per-statement behaviour (errors, SHOW, information_schema) is tests/sql/views.sql."""
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
