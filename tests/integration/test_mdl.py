"""Metadata locks (src/access/mdl.h): DDL waits for the transactions that used the table, statements wait behind a
waiting DDL, lock_wait_timeout ends a wait with 1205 and KILL QUERY with 1317.  Every test runs against MariaDB
too: the expectations are InnoDB's MDL behaviour.  The first test is the reason MDL exists: without it a
transaction's committed insert could land in a table ALTER TABLE had already copied, and be lost."""
import time

import pymysql
import pytest

from sqlutil import background, run


def waiting_for_mdl(target, conn_id, timeout=15):
    """Waits until connection conn_id shows PROCESSLIST State 'Waiting for table metadata lock' (MariaDB's name;
    strata's waits name themselves the same way), instead of guessing with a sleep."""
    c = target.connect()
    try:
        t0 = time.time()
        while time.time() - t0 < timeout:
            st = run(c, 'SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = %d' % conn_id)
            if st and st[0][0] == 'Waiting for table metadata lock':
                return
            time.sleep(0.05)
        pytest.fail('connection %d never waited for a metadata lock (state %s)' % (conn_id, st))
    finally:
        c.close()


@pytest.fixture
def db(target):
    c = target.connect()
    run(c, 'DROP DATABASE IF EXISTS mdl')
    run(c, 'CREATE DATABASE mdl')
    run(c, 'CREATE TABLE mdl.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB')
    run(c, 'INSERT INTO mdl.t VALUES (1, 1)')
    yield target
    run(c, 'DROP DATABASE IF EXISTS mdl')
    c.close()


def test_alter_waits_for_an_open_write_and_keeps_it(db):
    a, b = db.connect(), db.connect()
    run(a, 'BEGIN')
    run(a, 'INSERT INTO mdl.t VALUES (2, 2)')
    bid = run(b, 'SELECT CONNECTION_ID()')[0][0]
    th, box = background(b, 'ALTER TABLE mdl.t ADD COLUMN w INT')
    waiting_for_mdl(db, bid)
    assert 't' not in box, 'ALTER TABLE did not wait for the open transaction'
    run(a, 'COMMIT')
    th.join(10)
    assert 'err' not in box, box
    assert run(a, 'SELECT id, v, w FROM mdl.t ORDER BY id') == ((1, 1, None), (2, 2, None))
    a.close()
    b.close()


def test_drop_waits_for_a_reading_transaction(db):
    a, b = db.connect(), db.connect()
    run(a, 'BEGIN')
    assert run(a, 'SELECT COUNT(*) FROM mdl.t') == ((1,),)
    bid = run(b, 'SELECT CONNECTION_ID()')[0][0]
    th, box = background(b, 'DROP TABLE mdl.t')
    waiting_for_mdl(db, bid)
    assert 't' not in box
    assert run(a, 'SELECT COUNT(*) FROM mdl.t') == ((1,),)  # still readable in the transaction
    run(a, 'COMMIT')
    th.join(10)
    assert 'err' not in box, box
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        run(a, 'SELECT * FROM mdl.t')
    assert e.value.args[0] == 1146
    a.close()
    b.close()


def test_lock_wait_timeout_and_queued_statements(db):
    a, b, c = db.connect(), db.connect(), db.connect()
    run(a, 'BEGIN')
    run(a, 'UPDATE mdl.t SET v = 5 WHERE id = 1')
    run(b, 'SET SESSION lock_wait_timeout = 2')
    bid = run(b, 'SELECT CONNECTION_ID()')[0][0]
    th, box = background(b, 'ALTER TABLE mdl.t ADD COLUMN w INT')
    waiting_for_mdl(db, bid)
    # a statement arriving behind the waiting ALTER waits too, and times out with 1205
    run(c, 'SET SESSION lock_wait_timeout = 1')
    t0 = time.time()
    with pytest.raises(pymysql.err.OperationalError) as e:
        run(c, 'SELECT * FROM mdl.t')
    assert e.value.args[0] == 1205 and time.time() - t0 >= 0.9
    th.join(10)
    assert isinstance(box.get('err'), pymysql.err.OperationalError) and box['err'].args[0] == 1205, box
    assert 1.8 <= box['t'] < 6
    # once the DDL gave up, reads go again
    assert run(c, 'SELECT v FROM mdl.t') == ((1,),)
    run(a, 'COMMIT')
    assert run(c, 'SELECT v FROM mdl.t') == ((5,),)
    for x in (a, b, c):
        x.close()


def test_kill_query_ends_a_waiting_ddl(db):
    a, b, k = db.connect(), db.connect(), db.connect()
    run(a, 'BEGIN')
    run(a, 'SELECT * FROM mdl.t')
    bid = run(b, 'SELECT CONNECTION_ID()')[0][0]
    th, box = background(b, 'TRUNCATE TABLE mdl.t')
    waiting_for_mdl(db, bid)
    run(k, 'KILL QUERY %d' % bid)
    th.join(10)
    assert isinstance(box.get('err'), pymysql.err.OperationalError) and box['err'].args[0] == 1317, box
    run(a, 'COMMIT')
    assert run(b, 'SELECT COUNT(*) FROM mdl.t') == ((1,),)
    for x in (a, b, k):
        x.close()


def test_ddl_in_own_transaction_commits_it_first(db):
    """A session's own open transaction never blocks its DDL: DDL commits it first (implicit commit)."""
    a = db.connect()
    run(a, 'BEGIN')
    run(a, 'INSERT INTO mdl.t VALUES (3, 3)')
    run(a, 'ALTER TABLE mdl.t ADD COLUMN w INT')
    run(a, 'ROLLBACK')
    assert run(a, 'SELECT COUNT(*) FROM mdl.t') == ((2,),)
    a.close()


def test_two_ddls_waiting_on_each_others_readers_deadlock_at_once(db):
    """A and B each read a table; C's ALTER of A's table and D's of B's wait for them and hold new readers back.
    A then reads B's table (waits for D) and B reads A's (waits for C): a cycle of metadata-lock waits.  MariaDB's
    MDL deadlock detector fails B's statement at once with 1213 and rolls its transaction back, and everybody
    else finishes; without the search all four waited for lock_wait_timeout (a day)."""
    c0 = db.connect()
    run(c0, 'CREATE TABLE mdl.t2 (id INT PRIMARY KEY) ENGINE=InnoDB')
    a, b, c, d = (db.connect() for _ in range(4))
    ids = [run(x, 'SELECT CONNECTION_ID()')[0][0] for x in (a, b, c, d)]
    run(a, 'BEGIN')
    run(a, 'SELECT * FROM mdl.t')
    run(b, 'BEGIN')
    run(b, 'INSERT INTO mdl.t2 VALUES (5)')
    tc, bc = background(c, 'ALTER TABLE mdl.t ADD COLUMN w INT')
    waiting_for_mdl(db, ids[2])
    td, bd = background(d, 'ALTER TABLE mdl.t2 ADD COLUMN w INT')
    waiting_for_mdl(db, ids[3])
    ta, ba = background(a, 'SELECT * FROM mdl.t2')
    waiting_for_mdl(db, ids[0])
    t0 = time.time()
    with pytest.raises(pymysql.err.OperationalError) as e:
        run(b, 'SELECT * FROM mdl.t')
    assert e.value.args[0] == 1213, e.value.args
    assert time.time() - t0 < 5, 'the deadlock was not found at once'
    td.join(20)  # B's rollback released mdl.t2: D, then A go
    ta.join(20)
    assert 'err' not in bd and 'err' not in ba, (bd, ba)
    run(a, 'COMMIT')
    tc.join(20)
    assert 'err' not in bc, bc
    assert run(c0, 'SELECT COUNT(*) FROM mdl.t2') == ((0,),), "the victim's transaction was not rolled back"
    run(b, 'COMMIT')
    for x in (a, b, c, d, c0):
        x.close()


def test_kill_connection_ends_a_waiting_ddl(db):
    """KILL (the connection, not the query) of a session asleep in a metadata-lock wait ends the wait and the
    connection at once; so does shutdown."""
    a, b, k = db.connect(), db.connect(), db.connect()
    run(a, 'BEGIN')
    run(a, 'SELECT * FROM mdl.t')
    bid = run(b, 'SELECT CONNECTION_ID()')[0][0]
    th, box = background(b, 'ALTER TABLE mdl.t ADD COLUMN w INT')
    waiting_for_mdl(db, bid)
    run(k, 'KILL %d' % bid)
    th.join(10)
    assert not th.is_alive(), 'the killed connection still waits'
    assert isinstance(box.get('err'), pymysql.err.OperationalError), box
    t0 = time.time()
    while time.time() - t0 < 10:
        if not run(k, 'SELECT ID FROM information_schema.PROCESSLIST WHERE ID = %d' % bid):
            break
        time.sleep(0.05)
    else:
        pytest.fail('the killed connection is still in the process list')
    run(a, 'COMMIT')
    assert run(a, 'SELECT COUNT(*) FROM mdl.t') == ((1,),)
    for x in (a, k):
        x.close()
