"""Generated columns beyond one statement (src/sql/exec/gencol.c, the catalog record's generated-column part): the
definitions survive a restart and a kill -9 and are computed after them; an index on a VIRTUAL column stays equal
to a full scan through updates of its base column, a rebuilding ALTER and a kill -9; a mariadb-dump of strata
restores into strata and into MariaDB with the values computed again; LOAD DATA ignores the file's values for
them, as MariaDB; row images carry them both ways between strata and a MariaDB replica."""
import signal

import pymysql
import pytest

from sqlutil import run
from test_replica import PRIMARY_OPTS, caught_up, follow, replication_user

SCHEMA = [
    'CREATE DATABASE gc',
    'CREATE TABLE gc.t (id INT PRIMARY KEY, a INT, s VARCHAR(20), '
    'b INT AS (a * 2) VIRTUAL, c VARCHAR(30) AS (CONCAT(s, \'-\', a)) STORED, '
    'd INT GENERATED ALWAYS AS (b + 1) PERSISTENT, KEY kb (b), UNIQUE KEY kc (c))',
    'CREATE TABLE gc.n (a INT, b INT AS (a % 7) VIRTUAL, KEY (b))',
    'CREATE TABLE gc.r (id INT PRIMARY KEY, a INT, v VARCHAR(20) AS (CONCAT(CONNECTION_ID() > 0, \'-\', a)) VIRTUAL)',
]


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        run(c, sql)
    return e.value.args[0]


def show_create(c, t):
    return run(c, 'SHOW CREATE TABLE %s' % t)[0][1]


def rows(c, t='gc.t'):
    return run(c, 'SELECT * FROM %s ORDER BY 1' % t)


def index_agrees(c):
    """Every value of the VIRTUAL column found through its index is what a full scan finds."""
    full = run(c, 'SELECT b, COUNT(*) FROM gc.n IGNORE INDEX (b) GROUP BY b ORDER BY b')
    for b, n in full:
        if b is None:
            continue
        assert run(c, 'SELECT COUNT(*) FROM gc.n FORCE INDEX (b) WHERE b = %s', (b,))[0][0] == n, b
    assert run(c, 'SELECT COUNT(*) FROM gc.n FORCE INDEX (b) WHERE b IS NULL')[0][0] == \
        run(c, 'SELECT COUNT(*) FROM gc.n IGNORE INDEX (b) WHERE b IS NULL')[0][0]
    assert run(c, 'SELECT COUNT(*) FROM gc.n FORCE INDEX (b) WHERE b >= 0')[0][0] == \
        run(c, 'SELECT COUNT(*) FROM gc.n WHERE a IS NOT NULL')[0][0]
    assert run(c, 'CHECK TABLE gc.n')[0][3] == 'OK'
    return full


def test_definitions_survive_restart_and_kill9(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    for q in SCHEMA:
        run(c, q)
    run(c, "INSERT INTO gc.t (id, a, s) VALUES (1, 1, 'x'), (2, 2, 'y')")
    run(c, 'UPDATE gc.t SET a = 10 WHERE id = 1')
    before = show_create(c, 'gc.t')
    assert '`b` int(11) GENERATED ALWAYS AS (`a` * 2) VIRTUAL' in before
    assert "`c` varchar(30) GENERATED ALWAYS AS (concat(`s`,'-',`a`)) STORED" in before
    assert '`d` int(11) GENERATED ALWAYS AS (`b` + 1) STORED' in before
    expect = ((1, 10, 'x', 20, 'x-10', 21), (2, 2, 'y', 4, 'y-2', 5))
    assert rows(c) == expect
    c.close()
    for n, how in enumerate(('restart', 'kill9')):
        if how == 'restart':
            s.restart()
        else:
            s.stop(sig=signal.SIGKILL)
            s.start(s.extra)
        c = s.connect()
        assert show_create(c, 'gc.t') == before, how
        assert rows(c)[:2] == expect, how
        info = run(c, "SELECT COLUMN_NAME, EXTRA, IS_GENERATED, GENERATION_EXPRESSION FROM information_schema.COLUMNS "
                      "WHERE TABLE_SCHEMA = 'gc' AND TABLE_NAME = 't' AND IS_GENERATED = 'ALWAYS' ORDER BY 1")
        assert info == (('b', 'VIRTUAL GENERATED', 'ALWAYS', '`a` * 2'),
                        ('c', 'STORED GENERATED', 'ALWAYS', "concat(`s`,'-',`a`)"),
                        ('d', 'STORED GENERATED', 'ALWAYS', '`b` + 1')), how
        # still computed, still refused, still indexed
        assert err(c, 'INSERT INTO gc.t (id, a, s, b) VALUES (9, 1, \'z\', 5)') == 1906
        run(c, "INSERT INTO gc.t (id, a, s) VALUES (%s, 3, 'z%s')", (3 + n, n))
        assert run(c, 'SELECT b, c, d FROM gc.t WHERE id = %s', (3 + n,)) == ((6, 'z%d-3' % n, 7),)
        assert run(c, 'SELECT id FROM gc.t FORCE INDEX (kb) WHERE b = 20') == ((1,),)
        plan = run(c, 'EXPLAIN SELECT id FROM gc.t WHERE b = 20')[0]
        assert plan[3] == 'ref' and plan[5] == 'kb', plan  # the VIRTUAL column's index is the access path
        assert err(c, "INSERT INTO gc.t (id, a, s) VALUES (99, 10, 'x')") == 1062  # kc: 'x-10' again
        # a VIRTUAL column of a non-deterministic expression is still computed as it is read
        run(c, 'INSERT INTO gc.r (id, a) VALUES (%s, %s)', (n, n))
        assert run(c, 'SELECT id, v FROM gc.r ORDER BY id') == tuple((i, '1-%d' % i) for i in range(n + 1))
        assert err(c, 'CREATE INDEX iv ON gc.r (v)') == 1901
        c.close()


def test_virtual_index_consistent_through_updates_and_crash(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    for q in SCHEMA:
        run(c, q)
    run(c, 'INSERT INTO gc.n (a) VALUES ' + ', '.join('(%d)' % i for i in range(500)) + ', (NULL)')
    index_agrees(c)
    run(c, 'UPDATE gc.n SET a = a * 3 + 1 WHERE a % 2 = 0')
    run(c, 'DELETE FROM gc.n WHERE a % 5 = 0')
    run(c, 'UPDATE gc.n SET a = NULL WHERE a BETWEEN 100 AND 120')
    run(c, 'INSERT INTO gc.n (a) SELECT a + 1000 FROM gc.n WHERE a < 50')
    index_agrees(c)
    # a rebuild that changes the base column's type computes every value again
    run(c, 'ALTER TABLE gc.n MODIFY a BIGINT')
    after_alter = index_agrees(c)
    # uncommitted changes at the kill are gone, committed ones stay, the index still agrees
    run(c, 'UPDATE gc.n SET a = a + 1 WHERE a < 300')
    committed = run(c, 'SELECT SUM(a), SUM(b), COUNT(*) FROM gc.n')
    c2 = s.connect()
    run(c2, 'BEGIN')
    run(c2, 'UPDATE gc.n SET a = a + 3')
    s.stop(sig=signal.SIGKILL)
    s.start(s.extra)
    c = s.connect()
    got = index_agrees(c)
    assert got != after_alter
    assert run(c, 'SELECT SUM(a), SUM(b), COUNT(*) FROM gc.n') == committed
    assert run(c, 'SELECT COUNT(*) FROM gc.n WHERE b <> a % 7')[0][0] == 0
    s.restart()
    c = s.connect()
    assert index_agrees(c) == got


def test_dump_round_trip(fresh_strata, fresh_mariadb, tmp_path):
    import subprocess
    s, m = fresh_strata, fresh_mariadb
    s.start()
    m.start()
    c = s.connect()
    for q in SCHEMA:
        run(c, q)
    run(c, "INSERT INTO gc.t (id, a, s) VALUES (1, 1, 'x'), (2, NULL, 'y'), (3, 3, NULL)")
    run(c, 'INSERT INTO gc.n (a) VALUES (1), (8), (NULL)')
    want = {t: rows(c, t) for t in ('gc.t', 'gc.n')}
    create = {t: show_create(c, t) for t in ('gc.t', 'gc.n')}
    dump = tmp_path / 'gc.sql'
    with open(dump, 'wb') as f:
        r = subprocess.run(['mariadb-dump', '--no-defaults', '-uroot', '-h', s.host, '-P', str(s.port),
                            '--protocol=TCP', '--databases', 'gc'], stdout=f, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr
    text = dump.read_text()
    assert 'GENERATED ALWAYS AS (`a` * 2) VIRTUAL' in text
    run(c, 'DROP DATABASE gc')
    for server in (s, m):
        with open(dump, 'rb') as f:
            r = subprocess.run(['mariadb', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                                '--protocol=TCP'], stdin=f, stderr=subprocess.PIPE)
        assert r.returncode == 0, (server.kind, r.stderr)
        d = server.connect()
        assert {t: rows(d, t) for t in ('gc.t', 'gc.n')} == want, server.kind
        assert run(d, 'SELECT id FROM gc.t FORCE INDEX (kb) WHERE b = 6') == ((3,),)
        if server is s:
            assert {t: show_create(d, t) for t in ('gc.t', 'gc.n')} == create


def test_load_data_ignores_values_for_generated_columns(fresh_strata, tmp_path):
    s = fresh_strata
    s.start()
    f = tmp_path / 'ld.txt'
    f.write_text('1\t5\n2\t6\n')
    c = s.connect(local_infile=True)
    run(c, 'CREATE DATABASE gc')
    run(c, 'CREATE TABLE gc.ld (a INT, b INT AS (a + 1) VIRTUAL, c INT AS (a * 2) STORED)')
    run(c, "LOAD DATA LOCAL INFILE %s INTO TABLE gc.ld", (str(f),))
    warnings = run(c, 'SHOW WARNINGS')
    assert [w[1] for w in warnings] == [1261, 1261]  # the file has no field for c: noted, the value computed
    run(c, "LOAD DATA LOCAL INFILE %s INTO TABLE gc.ld (a, b)", (str(f),))
    assert run(c, 'SHOW WARNINGS') == ()
    run(c, "LOAD DATA LOCAL INFILE %s INTO TABLE gc.ld (a) SET c = 7", (str(f),))
    assert run(c, 'SELECT a, b, c, COUNT(*) FROM gc.ld GROUP BY a, b, c ORDER BY a') == ((1, 2, 2, 3), (2, 3, 4, 3))


WORKLOAD = [
    "INSERT INTO gc.t (id, a, s) VALUES (1, 1, 'x'), (2, 2, 'y'), (3, NULL, 'z')",
    'UPDATE gc.t SET a = a + 10 WHERE id <= 2',
    "REPLACE INTO gc.t (id, a, s) VALUES (3, 7, 'w')",
    "INSERT INTO gc.t (id, a, s) VALUES (2, 0, 'q') ON DUPLICATE KEY UPDATE s = 'dup'",
    'DELETE FROM gc.t WHERE id = 1',
    'INSERT INTO gc.n (a) VALUES (1), (2), (3), (NULL)',
    'UPDATE gc.n SET a = a * 5',
    'ALTER TABLE gc.n ADD COLUMN e INT AS (a + 100) STORED',
    'INSERT INTO gc.n (a) VALUES (9)',
]


@pytest.mark.parametrize('direction', ['strata_primary', 'mariadb_primary'])
def test_row_images_between_strata_and_mariadb(fresh_strata, fresh_mariadb, direction):
    if direction == 'strata_primary':
        primary, rep = fresh_strata, fresh_mariadb
        primary.start()
    else:
        primary, rep = fresh_mariadb, fresh_strata
        primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    r = rep.connect()
    follow(r, primary)
    for q in SCHEMA + WORKLOAD:
        run(p, q)
    caught_up(r, p)
    for t in ('gc.t', 'gc.n'):
        assert rows(r, t) == rows(p, t), t
    assert run(r, 'SELECT COUNT(*) FROM gc.n FORCE INDEX (b) WHERE b = 3')[0][0] == \
        run(p, 'SELECT COUNT(*) FROM gc.n WHERE a % 7 = 3')[0][0]
    gen = [ln for ln in show_create(p, 'gc.t').splitlines() if 'GENERATED' in ln]
    assert len(gen) == 3 and [ln for ln in show_create(r, 'gc.t').splitlines() if 'GENERATED' in ln] == gen
