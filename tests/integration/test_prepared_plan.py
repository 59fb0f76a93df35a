"""Prepared statements keep their bound plan (src/sql/exec/select.c "prepared plans"): each execution reuses it
while the tables it reads are the same definitions, and binds again (Com_stmt_reprepare) when DDL changed them.
Every scenario runs on strata and on MariaDB with the same expectations; the column-shifting ones would return
or change the wrong column if a stale plan were reused.  Statements run in the database that was current at
PREPARE, as MariaDB's do."""
import pytest

import rawclient as rc
from rawclient import RawClient, ServerError


@pytest.fixture
def env(target, unique):
    db = unique('pp')
    root = target.connect()
    cur = root.cursor()
    cur.execute('CREATE DATABASE %s' % db)
    cur.execute('CREATE DATABASE %s_b' % db)
    cur.execute('CREATE TABLE %s.t (id INT PRIMARY KEY, k INT, v VARCHAR(10))' % db)
    cur.execute("INSERT INTO %s.t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')" % db)
    cur.execute('CREATE TABLE %s_b.t (id INT PRIMARY KEY, k INT)' % db)
    cur.execute('INSERT INTO %s_b.t VALUES (1, 100), (2, 200)' % db)
    c = RawClient.connect(port=target.port, db=db)
    yield target, db, cur, c
    c.close()
    cur.execute('DROP DATABASE %s' % db)
    cur.execute('DROP DATABASE %s_b' % db)
    root.close()


def status(c, name):
    rows = c.query("SHOW SESSION STATUS LIKE '%s'" % name)[1]
    return int(rows[0][1]) if rows else None


def test_select_rebound_after_ddl(env):
    target, db, ddl, c = env
    st = c.prepare('SELECT * FROM t WHERE id = ?')
    assert c.execute(st, [2])[1] == [(2, 20, b'b')]
    r0 = status(c, 'Com_stmt_reprepare')
    assert c.execute(st, [3])[1] == [(3, 30, b'c')]
    assert status(c, 'Com_stmt_reprepare') == r0
    # a column before the others: every slot moves
    ddl.execute('ALTER TABLE %s.t ADD COLUMN z INT DEFAULT 7 FIRST' % db)
    names, rows = c.execute(st, [2])
    assert rows == [(7, 2, 20, b'b')]
    assert status(c, 'Com_stmt_reprepare') == r0 + 1
    ddl.execute('ALTER TABLE %s.t DROP COLUMN k' % db)
    assert c.execute(st, [3])[1] == [(7, 3, b'c')]
    # dropped: 1146; created again with another shape: runs against it
    ddl.execute('DROP TABLE %s.t' % db)
    with pytest.raises(ServerError) as e:
        c.execute(st, [1])
    assert e.value.code == 1146
    ddl.execute('CREATE TABLE %s.t (v VARCHAR(5), id INT PRIMARY KEY)' % db)
    ddl.execute("INSERT INTO %s.t VALUES ('new', 1)" % db)
    assert c.execute(st, [1])[1] == [(b'new', 1)]


def test_access_path_follows_new_index(env):
    target, db, ddl, c = env
    st = c.prepare('SELECT id FROM t WHERE k = ? ORDER BY id')
    assert c.execute(st, [20])[1] == [(2,)]
    ddl.execute('CREATE INDEX kx ON %s.t (k)' % db)
    ddl.execute('INSERT INTO %s.t VALUES (4, 20, NULL)' % db)
    assert c.execute(st, [20])[1] == [(2,), (4,)]
    ddl.execute('DROP INDEX kx ON %s.t' % db)
    assert c.execute(st, [20])[1] == [(2,), (4,)]


def test_aggregate_order_limit_reused(env):
    target, db, ddl, c = env
    st = c.prepare('SELECT v, COUNT(*), SUM(k) FROM t GROUP BY v HAVING SUM(k) > ? ORDER BY v DESC LIMIT ?')
    for _ in range(3):
        assert c.execute(st, [15, 2])[1] == [(b'c', 1, b'30'), (b'b', 1, b'20')]
    assert c.execute(st, [25, 5])[1] == [(b'c', 1, b'30')]
    ddl.execute("INSERT INTO %s.t VALUES (5, 1, 'c')" % db)
    assert c.execute(st, [15, 1])[1] == [(b'c', 2, b'31')]


def test_update_delete_rebound_after_ddl(env):
    target, db, ddl, c = env
    up = c.prepare('UPDATE t SET k = k + ? WHERE id = ?')
    de = c.prepare('DELETE FROM t WHERE v = ?')
    c.execute(up, [1, 1])
    c.execute(up, [1, 1])
    ddl.execute('ALTER TABLE %s.t ADD COLUMN z INT DEFAULT 0 FIRST' % db)
    c.execute(up, [5, 1])
    ddl.execute('ALTER TABLE %s.t ADD INDEX vx (v)' % db)
    c.execute(de, ['b'])
    c.execute(de, ['zzz'])
    ddl.execute('SELECT * FROM %s.t ORDER BY id' % db)
    assert ddl.fetchall() == ((0, 1, 17, 'a'), (0, 3, 30, 'c'))


def test_prepare_time_database(env):
    target, db, ddl, c = env
    st = c.prepare('SELECT DATABASE(), id, k FROM t WHERE id = ?')
    ins = c.prepare('INSERT INTO t (id, k) VALUES (?, ?)')
    assert c.execute(st, [2])[1] == [(db.encode(), 2, 20)]
    c.query('USE %s_b' % db)
    # MariaDB runs a prepared statement in the database current at PREPARE
    assert c.execute(st, [2])[1] == [(db.encode(), 2, 20)]
    c.execute(ins, [9, 90])
    ddl.execute('SELECT k FROM %s.t WHERE id = 9' % db)
    assert ddl.fetchall() == ((90,),)
    ddl.execute('SELECT COUNT(*) FROM %s_b.t WHERE id = 9' % db)
    assert ddl.fetchall() == ((0,),)
    assert c.query('SELECT DATABASE()')[1] == [(('%s_b' % db).encode(),)]
    st2 = c.prepare('SELECT k FROM t WHERE id = ?')
    assert c.execute(st2, [2])[1] == [(200,)]


def test_prepare_without_database(target):
    c = RawClient.connect(port=target.port)
    try:
        with pytest.raises(ServerError) as e:
            c.prepare('SELECT * FROM t')
        assert e.value.code == 1046
    finally:
        c.close()


def test_temporary_table_shadows_and_unshadows(env):
    target, db, ddl, c = env
    st = c.prepare('SELECT * FROM t WHERE id = ?')
    assert c.execute(st, [2])[1] == [(2, 20, b'b')]
    c.query("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, z VARCHAR(5))")
    c.query("INSERT INTO t VALUES (2, 'tmp')")
    assert c.execute(st, [2])[1] == [(2, b'tmp')]
    c.query('DROP TEMPORARY TABLE t')
    assert c.execute(st, [2])[1] == [(2, 20, b'b')]


def test_sql_level_execute_shares_the_plan(env):
    target, db, ddl, c = env
    c.query("PREPARE s FROM 'SELECT v FROM t WHERE id = ?'")
    c.query('SET @a = 3')
    assert c.query('EXECUTE s USING @a')[1] == [(b'c',)]
    ddl.execute('ALTER TABLE %s.t ADD COLUMN z INT FIRST' % db)
    assert c.query('EXECUTE s USING @a')[1] == [(b'c',)]


@pytest.mark.only('strata')
def test_plan_is_reused(env):
    """The plan is kept: executions after the first reuse it (Strata_prepared_plan_hits), until DDL."""
    target, db, ddl, c = env
    st = c.prepare('SELECT v FROM t WHERE id = ?')
    up = c.prepare('UPDATE t SET k = ? WHERE id = ?')
    h0 = status(c, 'Strata_prepared_plan_hits')
    for i in range(5):
        c.execute(st, [1])
        c.execute(up, [i, 1])
    assert status(c, 'Strata_prepared_plan_hits') == h0 + 8
    r0 = status(c, 'Com_stmt_reprepare')
    ddl.execute('ALTER TABLE %s.t ADD COLUMN z INT' % db)
    c.execute(st, [1])
    c.execute(st, [1])
    assert status(c, 'Com_stmt_reprepare') == r0 + 1
    assert status(c, 'Strata_prepared_plan_hits') == h0 + 9
