"""Transaction admission (src/session/admit.h; seed 003): at most strata_max_active_transactions write
transactions run at once, the others wait parked (no thread) until one ends; transactions whose client is idle
stop counting after strata_admission_idle_ms; KILL and KILL QUERY reach a waiting session; 3,000 connections
keep the throughput of a few dozen (measured in bench/, `bench/run connections`)."""
import threading
import time

import pymysql
import pytest

from sqlutil import background, run


def status(c, name):
    return int(run(c, "SHOW GLOBAL STATUS LIKE '%s'" % name)[0][1])


@pytest.mark.only('strata')
@pytest.mark.fresh_opts('--strata-max-active-transactions=2', '--strata-admission-idle-ms=60000')
def test_third_transaction_waits_for_a_slot(fresh_target):
    s = fresh_target
    admin = s.connect()
    run(admin, 'CREATE DATABASE adm')
    run(admin, 'CREATE TABLE adm.t (id INT PRIMARY KEY)')
    a, b, c = s.connect(), s.connect(), s.connect()
    run(a, 'BEGIN')
    run(a, 'INSERT INTO adm.t VALUES (1)')
    run(b, 'BEGIN')
    run(b, 'INSERT INTO adm.t VALUES (2)')
    assert status(admin, 'Strata_admission_holding') == 2
    waits0 = status(admin, 'Strata_admission_waits')
    th, box = background(c, 'INSERT INTO adm.t VALUES (3)')
    time.sleep(0.6)
    assert 't' not in box, 'the third write transaction ran past strata_max_active_transactions=2'
    assert status(admin, 'Strata_admission_waiting') == 1
    assert status(admin, 'Strata_admission_waits') == waits0 + 1
    # reads do not wait
    assert run(admin, 'SELECT COUNT(*) FROM adm.t')[0][0] == 0
    run(a, 'COMMIT')
    th.join(5)
    assert 'rows' in box, box
    assert box['t'] >= 0.5
    run(b, 'ROLLBACK')
    assert sorted(r[0] for r in run(admin, 'SELECT id FROM adm.t')) == [1, 3]
    assert status(admin, 'Strata_admission_holding') == 0
    assert status(admin, 'Strata_admission_waiting') == 0
    for x in (a, b, c, admin):
        x.close()


@pytest.mark.only('strata')
@pytest.mark.fresh_opts('--strata-max-active-transactions=1', '--strata-admission-idle-ms=200')
def test_idle_transactions_stop_counting(fresh_target):
    """A client that opened a transaction and went quiet must not block everyone else."""
    s = fresh_target
    a, c = s.connect(), s.connect()
    run(a, 'CREATE DATABASE idl')
    run(a, 'CREATE TABLE idl.t (id INT PRIMARY KEY)')
    run(a, 'BEGIN')
    run(a, 'INSERT INTO idl.t VALUES (1)')
    time.sleep(0.3)  # idle past strata_admission_idle_ms
    t0 = time.time()
    run(c, 'INSERT INTO idl.t VALUES (2)')
    assert time.time() - t0 < 2
    run(a, 'COMMIT')
    assert status(c, 'Strata_admission_over_limit') >= 1  # admitted past the limit of 1, the holder being idle
    a.close()
    c.close()


@pytest.mark.only('strata')
@pytest.mark.fresh_opts('--strata-max-active-transactions=1', '--strata-admission-idle-ms=60000')
def test_kill_reaches_a_waiting_session(fresh_target):
    s = fresh_target
    admin, a, c, d = s.connect(), s.connect(), s.connect(), s.connect()
    run(admin, 'CREATE DATABASE kl')
    run(admin, 'CREATE TABLE kl.t (id INT PRIMARY KEY)')
    run(a, 'BEGIN')
    run(a, 'INSERT INTO kl.t VALUES (1)')
    cid = run(c, 'SELECT CONNECTION_ID()')[0][0]
    did = run(d, 'SELECT CONNECTION_ID()')[0][0]
    th_c, box_c = background(c, 'INSERT INTO kl.t VALUES (2)')
    th_d, box_d = background(d, 'INSERT INTO kl.t VALUES (3)')
    time.sleep(0.4)
    assert status(admin, 'Strata_admission_waiting') == 2
    run(admin, 'KILL QUERY %d' % cid)
    th_c.join(5)
    assert isinstance(box_c.get('err'), pymysql.err.OperationalError) and box_c['err'].args[0] == 1317, box_c
    assert run(c, 'SELECT 1')[0][0] == 1  # the connection stays
    run(admin, 'KILL %d' % did)
    th_d.join(5)
    assert 'err' in box_d, box_d
    assert status(admin, 'Strata_admission_waiting') == 0
    ids = [r[0] for r in run(admin, 'SHOW PROCESSLIST')]
    assert did not in ids
    run(a, 'COMMIT')
    assert [r[0] for r in run(admin, 'SELECT id FROM kl.t')] == [1]
    for x in (admin, a, c):
        x.close()


@pytest.mark.only('strata')
@pytest.mark.fresh_opts('--strata-max-active-transactions=4')
def test_many_writers_all_commit(fresh_target):
    """200 connections, 4 admitted at a time: every transaction commits, none is lost or doubled, and the limit
    can be changed at run time."""
    s = fresh_target
    admin = s.connect()
    run(admin, 'CREATE DATABASE many')
    run(admin, 'CREATE TABLE many.t (id INT PRIMARY KEY, n INT)')
    errors = []

    def worker(w):
        try:
            c = s.connect()
            for i in range(5):
                run(c, 'BEGIN')
                run(c, 'INSERT INTO many.t VALUES (%d, %d)' % (w * 100 + i, w))
                run(c, 'UPDATE many.t SET n = n + 1 WHERE id = %d' % (w * 100 + i))
                run(c, 'COMMIT')
            c.close()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    ths = [threading.Thread(target=worker, args=(w,)) for w in range(200)]
    for t in ths:
        t.start()
    time.sleep(0.2)
    run(admin, 'SET GLOBAL strata_max_active_transactions = 16')
    for t in ths:
        t.join(120)
    assert not errors, errors[:3]
    assert run(admin, 'SELECT COUNT(*), SUM(n) FROM many.t')[0] == (1000, sum(w + 1 for w in range(200)) * 5)
    assert status(admin, 'Strata_admission_holding') == 0
    assert status(admin, 'Strata_admission_waits') > 0
    admin.close()
