"""Semi-synchronous replication, replica side (src/repl/replica.c): a strata replica with
rpl_semi_sync_slave_enabled acknowledges every transaction its source asks an ACK for, once the transaction is
applied and committed on the replica (there is no relay log), so a strata primary and a MariaDB 10.11 primary with
semi-sync on both commit without waiting for their timeout (Rpl_semi_sync_master_yes_tx grows, _no_tx stays).
A commit the source has returned is already readable on the replica.  Without rpl_semi_sync_slave_enabled the
replica sends no ACK: the source times out (the check that the ACKs above are what lets the commits through)."""
import threading
import time

import pytest

from sqlutil import run
from conftest import new_server
from test_replica import PRIMARY_OPTS, caught_up, follow, replication_user, slave_status


@pytest.fixture
def fresh_strata2():
    s = new_server('strata')
    s.prepare()
    yield s
    s.stop()
    s.check_clean_stop()


def master_status(c):
    return {r[0]: r[1] for r in run(c, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")}


def slave_semi(c):
    return {r[0]: r[1] for r in run(c, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_slave_%'")}


def wait_clients(p, n, timeout=20):
    t0 = time.time()
    while master_status(p)['Rpl_semi_sync_master_clients'] != str(n):
        assert time.time() - t0 < timeout, master_status(p)
        time.sleep(0.1)


def semisync_body(primary, rep):
    """The primary has semi-sync on with a 5 s timeout; rep is a strata replica with semi-sync on."""
    p = primary.connect()
    run(p, 'SET GLOBAL rpl_semi_sync_master_wait_no_slave = OFF')  # no replica yet: do not wait
    replication_user(p)
    run(p, 'CREATE DATABASE ss')
    run(p, 'CREATE TABLE ss.t (id INT PRIMARY KEY, v VARCHAR(20))')
    r = rep.connect()
    assert run(r, 'SELECT @@rpl_semi_sync_slave_enabled') == ((1,),)
    follow(r, primary)
    caught_up(r, p)
    wait_clients(p, 1)
    assert slave_semi(r)['Rpl_semi_sync_slave_status'] == 'ON'
    st0, acks0 = master_status(p), int(slave_semi(r)['Rpl_semi_sync_slave_send_ack'])
    assert st0['Rpl_semi_sync_master_status'] == 'ON', st0
    t0 = time.time()
    for i in range(20):
        run(p, "INSERT INTO ss.t VALUES (%d, 'a')" % i)
        # acknowledged means applied and committed here: readable the moment the source's commit returns
        assert run(r, 'SELECT v FROM ss.t WHERE id = %d' % i) == (('a',),), i
    assert time.time() - t0 < 10  # no commit waited for the 5 s timeout
    st1 = master_status(p)
    assert int(st1['Rpl_semi_sync_master_yes_tx']) - int(st0['Rpl_semi_sync_master_yes_tx']) == 20, st1
    assert st1['Rpl_semi_sync_master_no_tx'] == st0['Rpl_semi_sync_master_no_tx'], st1
    assert int(slave_semi(r)['Rpl_semi_sync_slave_send_ack']) - acks0 >= 20

    # 16 concurrent committers, a transaction of several statements each time: all acknowledged
    def writer(w):
        c = primary.connect()
        for i in range(8):
            run(c, 'BEGIN')
            run(c, "INSERT INTO ss.t VALUES (%d, 'w')" % (1000 + w * 100 + i))
            run(c, "UPDATE ss.t SET v = 'x' WHERE id = %d" % (1000 + w * 100 + i))
            run(c, 'COMMIT')
        c.close()
    ths = [threading.Thread(target=writer, args=(w,)) for w in range(16)]
    t0 = time.time()
    for t in ths:
        t.start()
    for t in ths:
        t.join(120)
    assert time.time() - t0 < 30
    st2 = master_status(p)
    assert int(st2['Rpl_semi_sync_master_yes_tx']) - int(st1['Rpl_semi_sync_master_yes_tx']) == 128, st2
    assert st2['Rpl_semi_sync_master_no_tx'] == st0['Rpl_semi_sync_master_no_tx'], st2
    assert st2['Rpl_semi_sync_master_status'] == 'ON', st2
    caught_up(r, p)
    assert run(r, 'SELECT COUNT(*), SUM(v = \'x\') FROM ss.t') == run(p, 'SELECT COUNT(*), SUM(v = \'x\') FROM ss.t')
    # DDL is acknowledged too
    run(p, 'CREATE TABLE ss.t2 (a INT PRIMARY KEY)')
    assert run(r, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'ss' AND table_name = 't2'") \
        == ((1,),)
    assert master_status(p)['Rpl_semi_sync_master_no_tx'] == st0['Rpl_semi_sync_master_no_tx']
    # STOP SLAVE: the replica is no semi-sync client any more
    run(r, 'STOP SLAVE')
    assert slave_semi(r)['Rpl_semi_sync_slave_status'] == 'OFF'
    assert slave_status(r)[1]['Seconds_Behind_Master'] is None


@pytest.mark.only('strata')
def test_semisync_replica_of_strata(fresh_strata, fresh_strata2):
    primary, rep = fresh_strata, fresh_strata2
    primary.start(['--rpl-semi-sync-master-enabled=ON', '--rpl-semi-sync-master-timeout=5000'])
    rep.start(['--server-id=2', '--rpl-semi-sync-slave-enabled=ON'])
    semisync_body(primary, rep)


@pytest.mark.only('strata')
def test_semisync_parallel_replica_of_strata(fresh_strata, fresh_strata2):
    """The same with four apply workers: a group is acknowledged once committed in order and synced."""
    primary, rep = fresh_strata, fresh_strata2
    primary.start(['--rpl-semi-sync-master-enabled=ON', '--rpl-semi-sync-master-timeout=5000'])
    rep.start(['--server-id=2', '--rpl-semi-sync-slave-enabled=ON', '--slave-parallel-threads=4'])
    semisync_body(primary, rep)


@pytest.mark.only('strata')
def test_semisync_replica_of_mariadb(fresh_mariadb, fresh_strata):
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS + ['--rpl-semi-sync-master-enabled=ON', '--rpl-semi-sync-master-timeout=5000'])
    rep.start(['--server-id=2', '--rpl-semi-sync-slave-enabled=ON'])
    semisync_body(primary, rep)


@pytest.mark.only('strata')
def test_no_ack_without_semisync_slave(fresh_strata, fresh_strata2):
    """The same pair with rpl_semi_sync_slave_enabled OFF: the source waits out its timeout and counts no_tx."""
    primary, rep = fresh_strata, fresh_strata2
    primary.start(['--rpl-semi-sync-master-enabled=ON', '--rpl-semi-sync-master-timeout=1000'])
    rep.start(['--server-id=2'])
    p = primary.connect()
    run(p, 'SET GLOBAL rpl_semi_sync_master_wait_no_slave = ON')
    replication_user(p)
    r = rep.connect()
    follow(r, primary)
    caught_up(r, p)
    assert slave_semi(r)['Rpl_semi_sync_slave_status'] == 'OFF'
    run(p, 'CREATE DATABASE ss2')  # the first commits waited out the timeout: semi-sync is OFF
    run(p, 'CREATE TABLE ss2.t (a INT PRIMARY KEY)')
    for i in range(5):
        run(p, 'INSERT INTO ss2.t VALUES (%d)' % (100 + i))
    caught_up(r, p)
    st = master_status(p)
    assert st['Rpl_semi_sync_master_status'] == 'OFF' and st['Rpl_semi_sync_master_yes_tx'] == '0', st
    assert int(st['Rpl_semi_sync_master_no_tx']) >= 1, st
    assert slave_semi(r)['Rpl_semi_sync_slave_send_ack'] == '0'
    # turned on (read when the IO thread connects, as in MariaDB): ACKs flow and semi-sync comes back ON
    run(r, 'SET GLOBAL rpl_semi_sync_slave_enabled = ON')
    run(r, 'STOP SLAVE IO_THREAD')
    run(r, 'START SLAVE IO_THREAD')
    caught_up(r, p)
    wait_clients(p, 1)
    t0 = time.time()
    while master_status(p)['Rpl_semi_sync_master_status'] != 'ON':
        assert time.time() - t0 < 10, master_status(p)
        run(p, 'INSERT INTO ss2.t SELECT COALESCE(MAX(a), 0) + 1 FROM ss2.t')
    yes = int(master_status(p)['Rpl_semi_sync_master_yes_tx'])
    t0 = time.time()
    run(p, 'INSERT INTO ss2.t VALUES (1000)')
    assert time.time() - t0 < 0.9
    assert int(master_status(p)['Rpl_semi_sync_master_yes_tx']) == yes + 1
