"""Semi-synchronous replication, source side (src/repl/semisync.c): a stock MariaDB replica with
rpl_semi_sync_slave_enabled acknowledges each transaction; strata answers the client only after the ACK
(Rpl_semi_sync_master_yes_tx), falls back to asynchronous replication after rpl_semi_sync_master_timeout when the
replica goes away (status OFF, one log line) and turns semi-sync back on when the replica catches up.  Many
concurrent committers all get their ACKs (waiters are woken by position)."""
import threading
import time

import pytest

from sqlutil import run
from test_replication import REPL_PW, REPL_USER, start_replica, wait_for


def status(c):
    return {r[0]: r[1] for r in run(c, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")}


@pytest.mark.only('strata')
def test_semisync_ack_timeout_and_recovery(fresh_strata, fresh_mariadb):
    primary, rep = fresh_strata, fresh_mariadb
    primary.start(['--rpl-semi-sync-master-enabled=ON', '--rpl-semi-sync-master-timeout=1500'])
    rep.start(['--server-id=2', '--rpl-semi-sync-slave-enabled=ON'])
    p = primary.connect()
    run(p, 'SET GLOBAL rpl_semi_sync_master_wait_no_slave = OFF')  # no replica yet: do not wait
    run(p, "CREATE USER '%s'@'%%' IDENTIFIED BY '%s'" % (REPL_USER, REPL_PW))
    run(p, "GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'" % REPL_USER)
    run(p, 'CREATE DATABASE ss')
    run(p, 'CREATE TABLE ss.t (id INT PRIMARY KEY)')
    r = rep.connect()
    start_replica(r, primary)
    wait_for(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    t0 = time.time()
    while status(p)['Rpl_semi_sync_master_clients'] != '1' and time.time() - t0 < 10:
        time.sleep(0.1)
    st0 = status(p)
    assert st0['Rpl_semi_sync_master_status'] == 'ON' and st0['Rpl_semi_sync_master_clients'] == '1', st0
    for i in range(20):
        run(p, 'INSERT INTO ss.t VALUES (%d)' % i)
    st1 = status(p)
    assert int(st1['Rpl_semi_sync_master_yes_tx']) - int(st0['Rpl_semi_sync_master_yes_tx']) == 20, st1
    # each acknowledged commit has reached the replica (its relay log: what the ACK means; applying it may lag)
    # when the client hears of it
    pos = run(p, 'SELECT @@gtid_binlog_pos')[0][0]
    with r.cursor() as cur:
        cur.execute('SHOW SLAVE STATUS')
        io_pos = dict(zip([d[0] for d in cur.description], cur.fetchone()))['Gtid_IO_Pos']
    assert io_pos == pos, (io_pos, pos)
    wait_for(r, pos)
    assert run(r, 'SELECT COUNT(*) FROM ss.t') == ((20,),)
    # 32 concurrent committers: every one is acknowledged
    def writer(w):
        c = primary.connect()
        for i in range(10):
            run(c, 'INSERT INTO ss.t VALUES (%d)' % (1000 + w * 100 + i))
        c.close()
    ths = [threading.Thread(target=writer, args=(w,)) for w in range(32)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(60)
    st2 = status(p)
    assert int(st2['Rpl_semi_sync_master_yes_tx']) - int(st1['Rpl_semi_sync_master_yes_tx']) == 320, st2
    assert st2['Rpl_semi_sync_master_no_tx'] == st1['Rpl_semi_sync_master_no_tx']
    # the replica stops: one commit waits for the timeout, then semi-sync is OFF and commits do not wait
    run(r, 'STOP SLAVE')
    t0 = time.time()
    run(p, 'INSERT INTO ss.t VALUES (5000)')
    assert 1.3 <= time.time() - t0 < 5
    assert status(p)['Rpl_semi_sync_master_status'] == 'OFF'
    t0 = time.time()
    run(p, 'INSERT INTO ss.t VALUES (5001)')
    assert time.time() - t0 < 1
    # the replica comes back and catches up: ON again
    run(r, 'START SLAVE')
    wait_for(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    run(p, 'INSERT INTO ss.t VALUES (5002)')
    t0 = time.time()
    while status(p)['Rpl_semi_sync_master_status'] != 'ON' and time.time() - t0 < 10:
        run(p, 'INSERT INTO ss.t VALUES (%d)' % (6000 + int((time.time() - t0) * 1000)))
    assert status(p)['Rpl_semi_sync_master_status'] == 'ON'
    with open(primary.log) as f:
        log = f.read()
    assert 'switching to asynchronous replication' in log and 'semi-synchronous replication is on again' in log
    run(r, 'STOP SLAVE')
    p.close()
    r.close()
