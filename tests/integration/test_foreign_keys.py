"""FOREIGN KEY and CHECK constraints beyond one statement (src/access/fk.c, sql/ddl/constraint.c,
sql/exec/constraints.c): the definitions survive a restart and a kill -9 (they are in the catalog record) and are
enforced after it; a child insert racing a parent delete never leaves an orphan (the child's check share-locks
the parent row, the parent's delete finds the uncommitted child under its lock, as InnoDB); cascaded rows are not
binlogged, so a MariaDB replica of strata cascades them itself and ends with the same rows, and strata as a
replica of MariaDB does the same; rows written with foreign_key_checks=0 reach a replica that way."""
import signal
import threading
import time

import pymysql
import pytest

from sqlutil import run
from test_replica import PRIMARY_OPTS, caught_up, follow, replication_user

SCHEMA = [
    'CREATE DATABASE fk',
    'CREATE TABLE fk.p (id INT PRIMARY KEY, name VARCHAR(20), UNIQUE KEY (name))',
    'CREATE TABLE fk.c (id INT PRIMARY KEY, pid INT, n VARCHAR(20), x INT CHECK (x >= 0), '
    'CONSTRAINT fk_c FOREIGN KEY (pid) REFERENCES fk.p (id) ON DELETE CASCADE ON UPDATE CASCADE, '
    'CONSTRAINT fk_n FOREIGN KEY (n) REFERENCES fk.p (name) ON DELETE SET NULL, CONSTRAINT pos CHECK (id > 0))',
    'CREATE TABLE fk.g (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES fk.c (id) ON DELETE CASCADE)',
]


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        run(c, sql)
    return e.value.args[0]


def show_create(c, t):
    return run(c, 'SHOW CREATE TABLE %s' % t)[0][1]


def started_with_schema(s):
    """The server started, SCHEMA created and two parents inserted: a connection to it."""
    s.start()
    c = s.connect()
    for q in SCHEMA:
        run(c, q)
    run(c, "INSERT INTO fk.p VALUES (1, 'a'), (2, 'b')")
    return c


def test_constraints_survive_restart_and_kill9(fresh_strata):
    s = fresh_strata
    c = started_with_schema(s)
    run(c, "INSERT INTO fk.c VALUES (1, 1, 'a', 0), (2, 2, 'b', 5)")
    before = {t: show_create(c, 'fk.' + t) for t in ('p', 'c', 'g')}
    assert 'CONSTRAINT `fk_c` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE ON UPDATE CASCADE' in before['c']
    assert 'CONSTRAINT `pos` CHECK (`id` > 0)' in before['c'] and 'CHECK (`x` >= 0)' in before['c']
    c.close()
    for how in ('restart', 'kill9'):
        if how == 'restart':
            s.restart()
        else:
            s.stop(sig=signal.SIGKILL)
            s.start(s.extra)
        c = s.connect()
        assert {t: show_create(c, 'fk.' + t) for t in ('p', 'c', 'g')} == before, how
        assert err(c, 'INSERT INTO fk.c VALUES (9, 99, NULL, 0)') == 1452
        assert err(c, 'INSERT INTO fk.c VALUES (9, 1, NULL, -1)') == 4025
        assert err(c, 'DROP TABLE fk.p') == 1451
        rows = run(c, 'SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = %s',
                   ('fk',))
        assert rows[0][0] == 3
        c.close()
    c = s.connect()
    run(c, 'INSERT INTO fk.g VALUES (1, 1)')
    run(c, 'DELETE FROM fk.p WHERE id = 1')  # cascades to c, then to g
    assert run(c, 'SELECT id FROM fk.c ORDER BY id') == ((2,),)
    assert run(c, 'SELECT COUNT(*) FROM fk.g')[0][0] == 0


def test_renamed_referenced_column_survives_kill9(fresh_strata):
    """RENAME COLUMN of a parent's referenced column rewrites the children's keys in the same catalog commit: after
    a kill -9 both definitions agree and the key is enforced on the new name."""
    s = fresh_strata
    c = started_with_schema(s)
    run(c, "INSERT INTO fk.c VALUES (1, 1, 'a', 0)")
    run(c, 'ALTER TABLE fk.p RENAME COLUMN id TO pid, RENAME COLUMN name TO id')
    c.close()
    s.stop(sig=signal.SIGKILL)
    s.start(s.extra)
    c = s.connect()
    sc = show_create(c, 'fk.c')
    assert 'FOREIGN KEY (`pid`) REFERENCES `p` (`pid`) ON DELETE CASCADE ON UPDATE CASCADE' in sc
    assert 'FOREIGN KEY (`n`) REFERENCES `p` (`id`) ON DELETE SET NULL' in sc
    assert run(c, "SELECT REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'fk' "
                  "AND TABLE_NAME = 'c' AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY CONSTRAINT_NAME") == (('pid',), ('id',))
    assert err(c, "INSERT INTO fk.c VALUES (9, 99, NULL, 0)") == 1452
    assert err(c, "INSERT INTO fk.c VALUES (9, 1, 'zz', 0)") == 1452
    run(c, "INSERT INTO fk.c VALUES (2, 2, 'b', 0)")
    run(c, 'UPDATE fk.p SET pid = 20 WHERE pid = 2')  # ON UPDATE CASCADE through the renamed column
    assert run(c, 'SELECT id, pid FROM fk.c ORDER BY id') == ((1, 1), (2, 20))


def test_child_insert_racing_parent_delete_leaves_no_orphan(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE fk')
    run(c, 'CREATE TABLE fk.p (id INT PRIMARY KEY)')
    run(c, 'CREATE TABLE fk.c (id INT PRIMARY KEY AUTO_INCREMENT, pid INT, FOREIGN KEY (pid) REFERENCES fk.p (id))')
    # the two orders, step by step: the second transaction waits on the first's lock
    run(c, 'INSERT INTO fk.p VALUES (1), (2)')
    a, b = s.connect(), s.connect()
    run(a, 'BEGIN')
    run(a, 'INSERT INTO fk.c (pid) VALUES (1)')  # share-locks parent 1
    out = {}

    def delete_parent():
        try:
            run(b, 'DELETE FROM fk.p WHERE id = 1')
            out['b'] = 0
        except pymysql.MySQLError as e:
            out['b'] = e.args[0]
    t = threading.Thread(target=delete_parent)
    t.start()
    time.sleep(0.5)
    assert t.is_alive(), 'the parent delete did not wait for the child insert'
    run(a, 'COMMIT')
    t.join(30)
    assert out['b'] == 1451
    run(b, 'BEGIN')
    run(b, 'DELETE FROM fk.p WHERE id = 2')  # holds parent 2 exclusively

    def insert_child():
        try:
            run(a, 'INSERT INTO fk.c (pid) VALUES (2)')
            out['a'] = 0
        except pymysql.MySQLError as e:
            out['a'] = e.args[0]
    t = threading.Thread(target=insert_child)
    t.start()
    time.sleep(0.5)
    assert t.is_alive(), 'the child insert did not wait for the parent delete'
    run(b, 'COMMIT')
    t.join(30)
    assert out['a'] == 1452
    # many at once: inserters of children against deleters of parents
    run(c, 'INSERT INTO fk.p VALUES ' + ','.join('(%d)' % i for i in range(10, 210)))
    stop = time.time() + 6

    def child_writer(seed):
        k = s.connect()
        i = seed
        while time.time() < stop:
            i = (i * 7 + 13) % 200
            try:
                run(k, 'INSERT INTO fk.c (pid) VALUES (%d)' % (10 + i))
            except pymysql.MySQLError as e:
                assert e.args[0] in (1452, 1213, 1205), e
        k.close()

    def parent_deleter(seed):
        k = s.connect()
        i = seed
        while time.time() < stop:
            i = (i * 11 + 5) % 200
            try:
                run(k, 'DELETE FROM fk.p WHERE id = %d' % (10 + i))
            except pymysql.MySQLError as e:
                assert e.args[0] in (1451, 1213, 1205), e
        k.close()
    ts = [threading.Thread(target=child_writer, args=(n,)) for n in range(3)]
    ts += [threading.Thread(target=parent_deleter, args=(n,)) for n in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    orphans = run(c, 'SELECT COUNT(*) FROM fk.c LEFT JOIN fk.p ON fk.p.id = fk.c.pid WHERE fk.p.id IS NULL')
    assert orphans[0][0] == 0
    assert run(c, 'SELECT COUNT(*) FROM fk.c')[0][0] > 0


WORKLOAD = [
    "INSERT INTO fk.p VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
    "INSERT INTO fk.c VALUES (1, 1, 'a', 1), (2, 1, 'b', 2), (3, 2, 'c', 3), (4, 3, 'd', 4)",
    'INSERT INTO fk.g VALUES (1, 1), (2, 2), (3, 3)',
    'DELETE FROM fk.p WHERE id = 1',            # cascades into c (1, 2) and g (1, 2)
    "UPDATE fk.p SET id = 20 WHERE id = 2",     # ON UPDATE CASCADE into c
    "DELETE FROM fk.p WHERE name = 'd'",        # SET NULL of c.n (row 4)
    'SET foreign_key_checks = 0',
    "INSERT INTO fk.c VALUES (9, 999, NULL, 0)",  # an orphan on purpose: the replica must take it too
    'DELETE FROM fk.p WHERE id = 3',            # no cascade with checks off
    'CREATE TABLE fk.late (id INT, FOREIGN KEY (id) REFERENCES fk.nothing (id))',
    'SET foreign_key_checks = 1',
    "INSERT INTO fk.p VALUES (5, 'e')",
    "INSERT INTO fk.c VALUES (5, 5, 'e', 5)",
    "REPLACE INTO fk.p VALUES (5, 'e2')",       # REPLACE deletes the old row: its children cascade
]


def table_rows(c):
    return {t: run(c, 'SELECT * FROM fk.%s ORDER BY 1' % t) for t in ('p', 'c', 'g')}


def test_cascades_reach_a_mariadb_replica_as_it_cascades_them(fresh_strata, fresh_mariadb):
    primary, rep = fresh_strata, fresh_mariadb
    primary.start()
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    r = rep.connect()
    follow(r, primary)
    for q in SCHEMA:
        run(p, q)
    for q in WORKLOAD:
        run(p, q)
    caught_up(r, p)
    assert table_rows(r) == table_rows(p)
    # only the named rows were logged: one Delete_rows row for the first DELETE
    assert run(r, 'SELECT COUNT(*) FROM fk.c WHERE pid = 1')[0][0] == 0


def test_strata_replica_cascades_what_mariadb_logged(fresh_mariadb, fresh_strata):
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    r = rep.connect()
    follow(r, primary)
    for q in SCHEMA:
        run(p, q)
    for q in WORKLOAD:
        run(p, q)
    caught_up(r, p)
    assert table_rows(r) == table_rows(p)
