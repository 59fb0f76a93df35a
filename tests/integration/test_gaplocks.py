"""Gap and next-key locks (issue 3: "row-level locks with gap/next-key protection at REPEATABLE READ").

Two connections against strata and MariaDB alike (the `target` fixture), so every expectation here is InnoDB's:
a locking read or a searched UPDATE/DELETE at REPEATABLE READ locks the rows it scanned and the gaps around them,
and an INSERT into a locked gap waits (1205 after innodb_lock_wait_timeout, or 1213 when the wait closes a cycle);
an INSERT elsewhere goes through; READ COMMITTED takes no gap locks.

Table t: id 5, 10, 20, 30, 50 (k = id, a non-unique secondary index).  The ranges used leave a row (30) past
their end, so InnoDB's next-key lock on that first row past the range never reaches the far inserts (100).
"""
import threading
import time

import pymysql
import pytest

ROWS = (5, 10, 20, 30, 50)


def setup_table(target, db):
    c = target.connect()
    with c.cursor() as cur:
        cur.execute('DROP DATABASE IF EXISTS %s' % db)
        cur.execute('CREATE DATABASE %s' % db)
        cur.execute('CREATE TABLE %s.t (id INT PRIMARY KEY, k INT, v INT, KEY (k)) ENGINE=InnoDB' % db)
        cur.execute('INSERT INTO %s.t VALUES %s' % (db, ','.join('(%d,%d,0)' % (i, i) for i in ROWS)))
    c.close()


def session(target, db, iso='REPEATABLE READ', timeout=1):
    c = target.connect(database=db)
    with c.cursor() as cur:
        cur.execute('SET SESSION TRANSACTION ISOLATION LEVEL ' + iso)
        cur.execute('SET SESSION innodb_lock_wait_timeout = %d' % timeout)
    return c


def run(c, sql):
    with c.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def attempt(c, sql):
    """Runs sql in its own transaction on c and rolls it back: 'OK' or the MySQL error number."""
    try:
        run(c, 'BEGIN')
        run(c, sql)
        return 'OK'
    except pymysql.MySQLError as e:
        return e.args[0]
    finally:
        run(c, 'ROLLBACK')


def ids(rows):
    return [r[0] for r in rows]


@pytest.fixture
def gl(target, request):
    db = 'gl_' + request.node.name.split('[')[0][5:][:40]
    setup_table(target, db)
    conns = []

    def open_(iso='REPEATABLE READ', timeout=1):
        c = session(target, db, iso, timeout)
        conns.append(c)
        return c
    yield open_
    for c in conns:
        try:
            c.close()
        except Exception:  # noqa: BLE001 - a connection the test broke on purpose
            pass
    target.query('DROP DATABASE IF EXISTS %s' % db)


def test_range_for_update_blocks_inserts_into_the_range(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE')) == [10, 20]
    t0 = time.time()
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 1205
    assert time.time() - t0 >= 0.8  # it waited for innodb_lock_wait_timeout
    assert attempt(b, 'INSERT INTO t VALUES (25, 25, 0)') == 1205  # gap up to the next row (30), next-key
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 30') == 1205  # ... which is locked too
    # outside the locked range
    assert attempt(b, 'INSERT INTO t VALUES (100, 100, 0)') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (7, 7, 0)') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (35, 35, 0)') == 'OK'
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 5') == 'OK'
    run(a, 'COMMIT')
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'


def test_read_committed_takes_no_gap_locks(gl):
    a, b = gl('READ COMMITTED'), gl()
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE')) == [10, 20]
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (100, 100, 0)') == 'OK'
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 30') == 'OK'  # the row past the range is not kept locked
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 20') == 1205  # the rows read are
    run(a, 'ROLLBACK')


def test_repeated_locking_read_sees_no_phantom(gl):
    """The inserter waits for the reader's commit (it does not time out: 10 s), and the reader's second locking
    read meanwhile returns exactly what the first did."""
    a, b = gl(), gl(timeout=10)
    run(a, 'BEGIN')
    first = run(a, 'SELECT id, v FROM t WHERE id BETWEEN 10 AND 40 FOR UPDATE')
    assert ids(first) == [10, 20, 30]
    out = {}

    def insert():
        t0 = time.time()
        try:
            run(b, 'INSERT INTO t VALUES (15, 15, 0)')
            out['rc'] = 'OK'
        except pymysql.MySQLError as e:
            out['rc'] = e.args[0]
        out['waited'] = time.time() - t0
    th = threading.Thread(target=insert)
    th.start()
    time.sleep(0.7)
    assert th.is_alive(), out  # blocked on the gap lock
    assert run(a, 'SELECT id, v FROM t WHERE id BETWEEN 10 AND 40 FOR UPDATE') == first
    assert run(a, 'SELECT COUNT(*) FROM t WHERE id BETWEEN 10 AND 40 LOCK IN SHARE MODE')[0][0] == 3
    run(a, 'COMMIT')
    th.join(15)
    assert out.get('rc') == 'OK' and out['waited'] >= 0.6, out
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 40 FOR UPDATE')) == [10, 15, 20, 30]


def test_searched_delete_locks_its_range(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    run(a, 'DELETE FROM t WHERE id >= 20 AND id < 40')
    assert attempt(b, 'INSERT INTO t VALUES (25, 25, 0)') == 1205  # where the deleted rows were
    assert attempt(b, 'INSERT INTO t VALUES (45, 45, 0)') == 1205  # next-key lock on 50 (the first row past)
    assert attempt(b, 'INSERT INTO t VALUES (100, 100, 0)') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'  # an exact match of the start: no gap before
    run(a, 'ROLLBACK')


def test_searched_update_locks_its_range(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    run(a, 'UPDATE t SET v = v + 1 WHERE id > 25')
    assert attempt(b, 'INSERT INTO t VALUES (27, 27, 0)') == 1205  # gap before the first row found (30)
    assert attempt(b, 'INSERT INTO t VALUES (1000, 1000, 0)') == 1205  # gap to the end of the table
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'
    run(a, 'ROLLBACK')


def test_secondary_index_range_is_protected(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE k BETWEEN 10 AND 20 FOR UPDATE')) == [10, 20]
    # phantoms through the index: new k values inside (and next to) the range wait, whatever their id
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 1205
    assert attempt(b, 'INSERT INTO t VALUES (1000, 12, 0)') == 1205
    assert attempt(b, 'INSERT INTO t VALUES (1001, 25, 0)') == 1205
    assert attempt(b, 'UPDATE t SET k = 15 WHERE id = 50') == 1205  # moving a row into the range is an insert
    assert attempt(b, 'INSERT INTO t VALUES (1002, 100, 0)') == 'OK'
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 30') == 'OK'  # the row past the range: index entry only
    run(a, 'ROLLBACK')


def test_unique_lookup_locks_record_or_gap(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    # an existing row: the record alone
    assert ids(run(a, 'SELECT * FROM t WHERE id = 20 FOR UPDATE')) == [20]
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (25, 25, 0)') == 'OK'
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 20') == 1205
    # a missing row: the gap it would go into (30, 50), not the rows around it
    assert run(a, 'SELECT * FROM t WHERE id = 40 FOR UPDATE') == ()
    assert attempt(b, 'INSERT INTO t VALUES (40, 40, 0)') == 1205
    assert attempt(b, 'INSERT INTO t VALUES (45, 45, 0)') == 1205
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 50') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (55, 55, 0)') == 'OK'
    run(a, 'ROLLBACK')


def test_gap_locks_do_not_conflict_and_inserts_do_not_either(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    run(b, 'BEGIN')
    # both lock the gap (30, 50): gap locks never wait for each other, even exclusive ones
    assert run(a, 'SELECT * FROM t WHERE id = 40 FOR UPDATE') == ()
    assert run(b, 'SELECT * FROM t WHERE id = 41 FOR UPDATE') == ()
    run(a, 'ROLLBACK')
    run(b, 'ROLLBACK')
    # insert intentions into one gap with nobody holding it: both go in at once
    run(a, 'BEGIN')
    run(b, 'BEGIN')
    run(a, 'INSERT INTO t VALUES (41, 41, 0)')
    run(b, 'INSERT INTO t VALUES (42, 42, 0)')
    run(a, 'COMMIT')
    run(b, 'COMMIT')
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 40 AND 49')) == [41, 42]


def test_deadlock_through_gap_locks(gl):
    a, b = gl(timeout=10), gl(timeout=10)
    run(a, 'BEGIN')
    run(b, 'BEGIN')
    assert run(a, 'SELECT * FROM t WHERE id = 25 FOR UPDATE') == ()
    assert run(b, 'SELECT * FROM t WHERE id = 26 FOR UPDATE') == ()
    out = {}

    def a_insert():
        try:
            run(a, 'INSERT INTO t VALUES (25, 25, 0)')
            out['a'] = 'OK'
        except pymysql.MySQLError as e:
            out['a'] = e.args[0]
    th = threading.Thread(target=a_insert)
    th.start()
    time.sleep(1.0)
    assert th.is_alive()  # a waits for b's gap lock
    with pytest.raises(pymysql.MySQLError) as ei:
        run(b, 'INSERT INTO t VALUES (26, 26, 0)')  # ... and b for a's: a cycle
    assert ei.value.args[0] == 1213
    th.join(15)
    assert out.get('a') == 'OK', out  # the victim (b) was rolled back, which let a in
    run(a, 'COMMIT')
    run(b, 'ROLLBACK')
    assert ids(run(b, 'SELECT * FROM t WHERE id BETWEEN 21 AND 29')) == [25]


def test_serializable_plain_reads_lock_in_share_mode(gl):
    a, b = gl('SERIALIZABLE'), gl()
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20')) == [10, 20]
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 1205
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 10') == 1205
    assert attempt(b, 'INSERT INTO t VALUES (100, 100, 0)') == 'OK'
    # shared: another reader may lock the same rows
    assert ids(run(b, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20 LOCK IN SHARE MODE')) == [10, 20]
    run(a, 'COMMIT')
    # autocommit SELECT at SERIALIZABLE stays a consistent read: no locks left behind
    run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20')
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'
    # with autocommit=0 every statement is in a transaction: the plain read locks again
    run(a, 'SET autocommit = 0')
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20')) == [10, 20]
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 1205
    run(a, 'COMMIT')
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'


def test_descending_scan_and_full_scan(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE id BETWEEN 10 AND 30 ORDER BY id DESC FOR UPDATE')) == [30, 20, 10]
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 1205
    assert attempt(b, 'INSERT INTO t VALUES (35, 35, 0)') == 1205  # the gap above the range, up to 50
    assert attempt(b, 'INSERT INTO t VALUES (7, 7, 0)') == 1205    # and below it: the row past the range (5)
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 5') == 1205
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 50') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (100, 100, 0)') == 'OK'
    run(a, 'ROLLBACK')
    # a condition no index serves: the whole table and every gap, even when nothing matches
    run(a, 'BEGIN')
    assert run(a, 'SELECT * FROM t WHERE v = 1 FOR UPDATE') == ()
    assert attempt(b, 'INSERT INTO t VALUES (1, 1, 0)') == 1205
    assert attempt(b, 'INSERT INTO t VALUES (100, 100, 0)') == 1205
    run(a, 'ROLLBACK')


def test_in_list_and_limit(gl):
    a, b = gl(), gl()
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE id IN (10, 40) FOR UPDATE')) == [10]
    assert attempt(b, 'INSERT INTO t VALUES (45, 45, 0)') == 1205  # 40 is missing: its gap (30, 50)
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'  # 10 exists: the record alone
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 10') == 1205
    run(a, 'ROLLBACK')
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM t WHERE id >= 10 LIMIT 1 FOR UPDATE')) == [10]
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'  # the scan stopped at the first row
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 20') == 'OK'
    run(a, 'ROLLBACK')


def test_unique_secondary_lookup(gl, target):
    db = 'gl_unique_secondary_lookup'
    target.query('CREATE TABLE %s.u (id INT PRIMARY KEY, u INT, v INT, UNIQUE KEY (u))' % db)
    target.query('INSERT INTO %s.u VALUES (1, 10, 0), (2, 20, 0), (3, 30, 0), (4, 50, 0)' % db)
    a, b = gl(), gl()
    run(a, 'BEGIN')
    assert run(a, 'SELECT * FROM u WHERE u = 15 FOR UPDATE') == ()
    assert attempt(b, 'INSERT INTO u VALUES (9, 15, 0)') == 1205
    assert attempt(b, 'INSERT INTO u VALUES (8, 12, 0)') == 1205
    assert attempt(b, 'UPDATE u SET u = 21 WHERE id = 2') == 'OK'  # the entry past a unique lookup: gap only
    assert attempt(b, 'INSERT INTO u VALUES (7, 25, 0)') == 'OK'
    run(a, 'ROLLBACK')
    run(a, 'BEGIN')
    assert ids(run(a, 'SELECT * FROM u WHERE u = 20 FOR UPDATE')) == [2]
    assert attempt(b, 'UPDATE u SET v = 1 WHERE id = 2') == 1205
    assert attempt(b, 'UPDATE u SET v = 1 WHERE id = 3') == 'OK'
    assert attempt(b, 'INSERT INTO u VALUES (8, 25, 0)') == 'OK'
    run(a, 'ROLLBACK')


def test_join_for_update_locks_every_table(gl, target):
    db = 'gl_join_for_update_locks_every_table'
    target.query('CREATE TABLE %s.s (id INT PRIMARY KEY, tid INT, KEY (tid))' % db)
    target.query('INSERT INTO %s.s VALUES (1, 10), (2, 20), (3, 99)' % db)
    a, b = gl(), gl()
    run(a, 'BEGIN')
    assert len(run(a, 'SELECT * FROM s JOIN t ON t.id = s.tid WHERE s.id <= 2 FOR UPDATE')) == 2
    assert attempt(b, 'UPDATE s SET tid = 0 WHERE id = 1') == 1205
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 10') == 1205  # the joined rows too
    assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 30') == 'OK'
    assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == 'OK'  # t was read by unique lookups: no gaps
    run(a, 'ROLLBACK')


def test_insert_select_locks_its_source(gl, target):
    db = 'gl_insert_select_locks_its_source'
    target.query('CREATE TABLE %s.d (id INT PRIMARY KEY, k INT, v INT)' % db)
    for iso, blocked in (('REPEATABLE READ', 1205), ('READ COMMITTED', 'OK')):
        a, b = gl(iso), gl()
        run(a, 'BEGIN')
        run(a, 'INSERT INTO d SELECT * FROM t WHERE id BETWEEN 10 AND 20')
        # shared next-key locks on the source at REPEATABLE READ; a consistent read at READ COMMITTED
        assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 10') == blocked
        assert attempt(b, 'INSERT INTO t VALUES (15, 15, 0)') == blocked
        assert attempt(b, 'UPDATE t SET v = 1 WHERE id = 50') == 'OK'
        assert ids(run(b, 'SELECT * FROM t WHERE id BETWEEN 10 AND 20 LOCK IN SHARE MODE')) == [10, 20]
        run(a, 'ROLLBACK')


def test_read_committed_unlocks_rows_the_where_rejects(gl):
    """READ COMMITTED's semi-consistent read: a full scan keeps only the rows that matched, unless the lock was
    already held (this transaction changed or locked the row before); REPEATABLE READ keeps everything."""
    a, b = gl('READ COMMITTED'), gl()
    run(a, 'BEGIN')
    assert run(a, 'UPDATE t SET v = 2 WHERE v = 0 AND id >= 20') == ()
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 10') == 'OK'   # read, rejected, unlocked
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 20') == 1205   # changed
    run(a, 'ROLLBACK')
    run(a, 'BEGIN')
    run(a, 'UPDATE t SET v = 5 WHERE id = 10')
    run(a, 'SELECT * FROM t WHERE id BETWEEN 20 AND 30 FOR UPDATE')
    assert run(a, 'UPDATE t SET v = 6 WHERE v = 100') == ()          # rejects every row
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 10') == 1205   # changed by a earlier
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 20') == 1205   # locked by a earlier
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 50') == 'OK'
    run(a, 'ROLLBACK')
    # a unique lookup keeps its lock even when the WHERE rejects the row
    run(a, 'BEGIN')
    assert run(a, 'SELECT * FROM t WHERE id = 10 AND v = 1 FOR UPDATE') == ()
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 10') == 1205
    run(a, 'ROLLBACK')
    r = gl('REPEATABLE READ')
    run(r, 'BEGIN')
    assert run(r, 'UPDATE t SET v = 2 WHERE v = 1') == ()
    assert attempt(b, 'UPDATE t SET v = 3 WHERE id = 10') == 1205
    run(r, 'ROLLBACK')


def test_waiting_insert_holds_no_lock(gl):
    """b's insert waits for a's gap; a may still insert the same key itself (b holds nothing while it waits),
    and b then finds the duplicate."""
    a, b = gl(timeout=10), gl(timeout=10)
    run(a, 'BEGIN')
    run(b, 'BEGIN')
    assert run(a, 'SELECT * FROM t WHERE id = 15 FOR UPDATE') == ()
    out = {}

    def b_insert():
        try:
            run(b, 'INSERT INTO t VALUES (15, 15, 1)')
            out['b'] = 'OK'
        except pymysql.MySQLError as e:
            out['b'] = e.args[0]
    th = threading.Thread(target=b_insert)
    th.start()
    time.sleep(0.7)
    assert th.is_alive()
    run(a, 'INSERT INTO t VALUES (15, 15, 2)')  # no wait, no deadlock
    run(a, 'COMMIT')
    th.join(15)
    assert out.get('b') == 1062, out
    run(b, 'ROLLBACK')
    assert run(a, 'SELECT v FROM t WHERE id = 15') == ((2,),)


def test_duplicate_insert_under_a_shared_reader(gl):
    """An INSERT of a key that exists and that another transaction holds shared reports 1062 at once (InnoDB
    checks the duplicate under a shared lock of its own); an exclusive holder makes it wait (1205), and REPLACE,
    which must change the row, waits for the shared holder too."""
    a, b = gl(), gl()
    cases = [('SELECT * FROM t WHERE id = 10 LOCK IN SHARE MODE', 'INSERT INTO t VALUES (10, 99, 0)', 1062),
             ('SELECT * FROM t WHERE id = 10 FOR UPDATE', 'INSERT INTO t VALUES (10, 99, 0)', 1205),
             ('SELECT * FROM t WHERE id = 10 LOCK IN SHARE MODE', 'INSERT IGNORE INTO t VALUES (10, 99, 0)', 'OK'),
             ('SELECT * FROM t WHERE id = 10 LOCK IN SHARE MODE', 'REPLACE INTO t VALUES (10, 99, 0)', 1205),
             ('SELECT * FROM t WHERE id = 10 LOCK IN SHARE MODE',
              'INSERT INTO t VALUES (10, 99, 0) ON DUPLICATE KEY UPDATE v = 1', 1205)]
    for lock, ins, want in cases:
        run(a, 'BEGIN')
        run(a, lock)
        t0 = time.time()
        got = attempt(b, ins)
        took = time.time() - t0
        run(a, 'ROLLBACK')
        assert got == want, (lock, ins)
        if want != 1205:
            assert took < 0.5, (lock, ins, took)
    assert ids(run(b, 'SELECT * FROM t ORDER BY id')) == list(ROWS)


def wait_until_row_lock_waits(c, n, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        if int(run(c, "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'")[0][1]) >= n:
            return
        time.sleep(0.05)
    raise AssertionError('no row-lock wait began')


@pytest.mark.parametrize('kill', ['KILL QUERY', 'KILL'])
def test_kill_ends_a_row_lock_wait_at_once(gl, kill):
    """KILL QUERY of a statement waiting for a row lock ends it with 1317 at once, not at innodb_lock_wait_timeout;
    the statement is undone and its transaction stays open (its earlier rows are still there).  KILL of the
    connection ends the wait and the connection, and its transaction rolls back, so the row is free again."""
    a, b, c = gl(timeout=30), gl(timeout=30), gl()
    run(a, 'BEGIN')
    run(a, 'UPDATE t SET v = 1 WHERE id = 10')
    run(b, 'BEGIN')
    run(b, 'UPDATE t SET v = 7 WHERE id = 20')
    bid = run(b, 'SELECT CONNECTION_ID()')[0][0]
    out = {}

    def b_update():
        try:
            run(b, 'UPDATE t SET v = 2 WHERE id = 10')
            out['b'] = 'OK'
        except pymysql.MySQLError as e:
            out['b'] = e.args[0]
    th = threading.Thread(target=b_update)
    th.start()
    wait_until_row_lock_waits(c, 1)
    t0 = time.time()
    run(c, '%s %d' % (kill, bid))
    th.join(10)
    took = time.time() - t0
    assert not th.is_alive()
    assert took < 5, took
    if kill == 'KILL QUERY':
        assert out['b'] == 1317, out
        assert run(b, 'SELECT v FROM t WHERE id IN (10, 20) ORDER BY id') == ((0,), (7,))  # its own row stays
        run(b, 'ROLLBACK')
    else:
        assert out['b'] in (1317, 1927, 2013, 2006), out  # the connection went away under the statement
        # b's transaction rolled back: a can take id 20 at once
        run(a, 'SET SESSION innodb_lock_wait_timeout = 5')
        run(a, 'UPDATE t SET v = 3 WHERE id = 20')
    run(a, 'ROLLBACK')
    assert run(c, 'SELECT v FROM t WHERE id IN (10, 20) ORDER BY id') == ((0,), (0,))
