"""User-level locks (src/session/ulock.h): GET_LOCK waits for another connection's lock up to its timeout (0
after it), is granted when the holder releases it or disconnects, KILL QUERY ends a wait with NULL, a wait that
would close a cycle is refused with 1213 at once, KILL of a waiting connection leaves the holder's lock alone,
and locks outlive COMMIT / ROLLBACK.  Every test runs against MariaDB too: the expectations are its behaviour."""
import time

import pymysql
import pytest

from sqlutil import background, run


def conn_id(c):
    return run(c, 'SELECT CONNECTION_ID()')[0][0]


@pytest.fixture
def names(unique):
    """Lock names of this test (unique: the session servers are shared), released afterwards."""
    made = []

    def make():
        made.append(unique('ul'))
        return made[-1]
    yield make


def test_timeout_then_granted_on_release(target, names):
    a, b = target.connect(), target.connect()
    n = names()
    assert run(a, "SELECT GET_LOCK(%s, 0), GET_LOCK(%s, 0)", (n, n)) == ((1, 1),)  # counted twice
    t0 = time.time()
    assert run(b, "SELECT GET_LOCK(%s, 0.4)", (n,)) == ((0,),)
    assert 0.3 <= time.time() - t0 < 3
    assert run(b, "SELECT IS_USED_LOCK(%s) = %s, IS_FREE_LOCK(%s), RELEASE_LOCK(%s)", (n, conn_id(a), n, n)) == \
        ((1, 0, 0),)
    th, box = background(b, "SELECT GET_LOCK('%s', 10)" % n)
    time.sleep(0.5)
    assert 't' not in box, 'GET_LOCK did not wait'
    assert run(a, "SELECT RELEASE_LOCK(%s)", (n,)) == ((1,),)  # count 2 -> 1: still held
    time.sleep(0.3)
    assert 't' not in box, 'GET_LOCK was granted while the lock was still held once'
    assert run(a, "SELECT RELEASE_LOCK(%s)", (n,)) == ((1,),)
    th.join(10)
    assert box.get('rows') == ((1,),), box
    assert box['t'] < 5
    assert run(a, "SELECT IS_USED_LOCK(%s) = %s", (n, conn_id(b))) == ((1,),)
    assert run(b, "SELECT RELEASE_ALL_LOCKS()") == ((1,),)
    a.close()
    b.close()


def test_released_at_disconnect_and_not_by_rollback(target, names):
    a, b = target.connect(), target.connect()
    n1, n2 = names(), names()
    run(a, 'BEGIN')
    assert run(a, "SELECT GET_LOCK(%s, 0), GET_LOCK(%s, 0), GET_LOCK(%s, 0)", (n1, n2, n2)) == ((1, 1, 1),)
    run(a, 'ROLLBACK')
    assert run(b, "SELECT IS_FREE_LOCK(%s), IS_FREE_LOCK(%s)", (n1, n2)) == ((0, 0),)
    th, box = background(b, "SELECT GET_LOCK('%s', 10)" % n2)
    time.sleep(0.4)
    assert 't' not in box
    a.close()  # both locks go with the connection
    th.join(10)
    assert box.get('rows') == ((1,),), box
    assert run(b, "SELECT IS_FREE_LOCK(%s)", (n1,)) == ((1,),)
    assert run(b, "SELECT RELEASE_ALL_LOCKS(), RELEASE_ALL_LOCKS()") == ((1, 0),)
    b.close()


def test_kill_query_ends_a_wait_with_null(target, names):
    a, b = target.connect(), target.connect()
    n = names()
    assert run(a, "SELECT GET_LOCK(%s, 0)", (n,)) == ((1,),)
    bid = conn_id(b)
    th, box = background(b, "SELECT GET_LOCK('%s', 20)" % n)
    time.sleep(0.5)
    states = run(a, "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = %s", (bid,))
    assert states == (('User lock',),), states
    run(a, 'KILL QUERY %d' % bid)
    th.join(10)
    assert box.get('rows') == ((None,),), box
    assert box['t'] < 5
    assert run(b, 'SELECT 1') == ((1,),)  # the connection goes on
    assert run(b, "SELECT IS_USED_LOCK(%s) = %s", (n, conn_id(a))) == ((1,),)
    run(a, "SELECT RELEASE_ALL_LOCKS()")
    a.close()
    b.close()


def test_kill_of_a_waiting_connection(target, names):
    a, b = target.connect(), target.connect()
    n = names()
    run(a, "SELECT GET_LOCK(%s, 0)", (n,))
    bid = conn_id(b)
    th, box = background(b, "SELECT GET_LOCK('%s', 20)" % n)
    time.sleep(0.5)
    run(a, 'KILL %d' % bid)
    th.join(10)
    assert isinstance(box.get('err'), pymysql.err.OperationalError), box
    assert box['t'] < 5
    assert run(a, "SELECT IS_USED_LOCK(%s) = %s", (n, conn_id(a))) == ((1,),)
    run(a, "SELECT RELEASE_ALL_LOCKS()")
    a.close()


def test_deadlock_is_refused_at_once(target, names):
    a, b = target.connect(), target.connect()
    x, y = names(), names()
    assert run(a, "SELECT GET_LOCK(%s, 0)", (x,)) == ((1,),)
    assert run(b, "SELECT GET_LOCK(%s, 0)", (y,)) == ((1,),)
    th, box = background(b, "SELECT GET_LOCK('%s', 2)" % x)  # b waits for a
    time.sleep(0.4)
    t0 = time.time()
    with pytest.raises(pymysql.err.OperationalError) as e:
        run(a, "SELECT GET_LOCK(%s, 10)", (y,))  # a would wait for b: a cycle
    assert e.value.args[0] == 1213
    assert time.time() - t0 < 1
    th.join(10)
    assert box.get('rows') == ((0,),), box  # a kept x: b's wait times out
    run(a, "SELECT RELEASE_ALL_LOCKS()")
    run(b, "SELECT RELEASE_ALL_LOCKS()")
    a.close()
    b.close()


def test_many_waiters_one_at_a_time(target, names):
    """Four connections queue for one lock; each holds it alone for a moment and hands it on."""
    n = names()
    holder = target.connect()
    run(holder, "SELECT GET_LOCK(%s, 0)", (n,))
    cs = [target.connect() for _ in range(4)]
    sql = ("SELECT GET_LOCK('{0}', 20), IS_USED_LOCK('{0}') = CONNECTION_ID(), SLEEP(0.1), RELEASE_LOCK('{0}')"
           .format(n))
    jobs = [background(c, sql) for c in cs]
    time.sleep(0.4)
    assert not any('t' in box for _, box in jobs)
    run(holder, "SELECT RELEASE_LOCK(%s)", (n,))
    for th, box in jobs:
        th.join(20)
        assert box.get('rows') == ((1, 1, 0, 1),), box
    assert run(holder, "SELECT IS_FREE_LOCK(%s)", (n,)) == ((1,),)
    for c in cs + [holder]:
        c.close()


def test_reset_connection_and_change_user_release(target, names):
    from rawclient import COM_RESET_CONNECTION, RawClient
    a = target.connect()
    n1, n2 = names(), names()
    r = RawClient.connect(port=target.port, user=target.user, password=target.password)
    assert r.query("SELECT GET_LOCK('%s', 0)" % n1)[1] == [(b'1',)]
    assert run(a, "SELECT IS_FREE_LOCK(%s)", (n1,)) == ((0,),)
    r.simple(COM_RESET_CONNECTION)
    assert run(a, "SELECT IS_FREE_LOCK(%s)", (n1,)) == ((1,),)
    assert r.query("SELECT GET_LOCK('%s', 0)" % n2)[1] == [(b'1',)]
    r.change_user(target.user, target.password)
    assert run(a, "SELECT IS_FREE_LOCK(%s)", (n2,)) == ((1,),)
    r.close()
    a.close()


def test_client_hanging_up_ends_its_wait(target, names):
    import socket
    a, b = target.connect(), target.connect()
    n = names()
    run(a, "SELECT GET_LOCK(%s, 0)", (n,))
    bid = conn_id(b)
    th, box = background(b, "SELECT GET_LOCK('%s', 30)" % n)
    time.sleep(0.5)
    b._sock.shutdown(socket.SHUT_RDWR)
    th.join(10)
    deadline = time.time() + 5
    while time.time() < deadline and run(a, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %s",
                                         (bid,)) != ((0,),):
        time.sleep(0.1)
    assert run(a, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %s", (bid,)) == ((0,),)
    assert run(a, "SELECT RELEASE_LOCK(%s), IS_FREE_LOCK(%s)", (n, n)) == ((1, 1),)
    a.close()
