"""A stock MariaDB replica follows strata (issue 5: "a stock MariaDB replica can later follow strata by GTID"):
COM_REGISTER_SLAVE and COM_BINLOG_DUMP in MariaDB's GTID mode, row events, DDL, rotation, a replica that stops
and resumes from its GTID position (groups it has are skipped), and a kill -9 of strata that the replica rides
through.  The replica is Debian's mariadbd, started by the test with server_id 2."""
import time

import pytest

from sqlutil import run

REPL_USER, REPL_PW = 'repl', 'rpl-pw-1'


def wait_for(replica, gtid, timeout=30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        st = run(replica, 'SHOW SLAVE STATUS')
        pos = run(replica, 'SELECT @@gtid_slave_pos')[0][0]
        if pos == gtid:
            return
        if st and (st[0][10] != 'Yes' or st[0][11] != 'Yes') and time.time() - t0 > 5:
            break
        time.sleep(0.1)
    with replica.cursor() as cur:
        cur.execute('SHOW SLAVE STATUS')
        cols = [d[0] for d in cur.description]
        row = cur.fetchone()
    info = {k: v for k, v in zip(cols, row or ()) if k in ('Slave_IO_Running', 'Slave_SQL_Running', 'Last_IO_Error',
                                                            'Last_SQL_Error', 'Gtid_IO_Pos')}
    pytest.fail('replica did not reach %s (at %s): %s' % (gtid, pos, info))


def start_replica(replica, primary):
    run(replica, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', "
                 "MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1"
        % (primary.port, REPL_USER, REPL_PW))
    run(replica, 'START SLAVE')


@pytest.mark.only('strata')
def test_mariadb_replica_follows_strata(fresh_strata, fresh_mariadb):
    primary, rep = fresh_strata, fresh_mariadb
    primary.start([])
    rep.start(['--server-id=2'])
    p = primary.connect()
    run(p, "CREATE USER '%s'@'%%' IDENTIFIED BY '%s'" % (REPL_USER, REPL_PW))
    run(p, "GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'" % REPL_USER)
    run(p, 'CREATE DATABASE rp')
    run(p, 'CREATE TABLE rp.t (id INT PRIMARY KEY, v VARCHAR(40), d DATETIME(3), n DECIMAL(10,2), b BLOB) '
           'DEFAULT CHARSET=utf8mb4')
    run(p, "INSERT INTO rp.t VALUES (1, 'héllo', '2024-02-29 12:00:00.125', -1.50, x'00ff'), "
           "(2, NULL, NULL, NULL, NULL)")
    r = rep.connect()
    start_replica(r, primary)
    wait_for(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    want = run(p, 'SELECT * FROM rp.t ORDER BY id')
    assert run(r, 'SELECT * FROM rp.t ORDER BY id') == want
    # updates, deletes, a transaction, DDL, a rotation: all follow
    run(p, "UPDATE rp.t SET v = 'changed' WHERE id = 2")
    run(p, 'DELETE FROM rp.t WHERE id = 1')
    run(p, 'BEGIN')
    for i in range(10, 20):
        run(p, "INSERT INTO rp.t (id, v) VALUES (%d, 'trx')" % i)
    run(p, 'COMMIT')
    run(p, 'ALTER TABLE rp.t ADD COLUMN extra INT')
    run(p, 'FLUSH BINARY LOGS')
    run(p, 'UPDATE rp.t SET extra = id * 2 WHERE id >= 10')
    wait_for(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    assert run(r, 'SELECT * FROM rp.t ORDER BY id') == run(p, 'SELECT * FROM rp.t ORDER BY id')
    # the replica stops, strata goes on, the replica resumes from its GTID position
    run(r, 'STOP SLAVE')
    run(p, "INSERT INTO rp.t (id, v) VALUES (100, 'while stopped')")
    run(r, 'START SLAVE')
    wait_for(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    assert run(r, 'SELECT COUNT(*) FROM rp.t WHERE id = 100') == ((1,),)
    # kill -9 of the primary: the replica reconnects to the restarted server and goes on
    import signal
    primary.proc.send_signal(signal.SIGKILL)
    primary.proc.wait()
    primary.stderr_f.close()
    primary.start(primary.extra)
    p = primary.connect()
    run(p, "INSERT INTO rp.t (id, v) VALUES (200, 'after kill -9')")
    wait_for(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    assert run(r, 'SELECT * FROM rp.t ORDER BY id') == run(p, 'SELECT * FROM rp.t ORDER BY id')
    run(r, 'STOP SLAVE')
    p.close()
    r.close()


@pytest.mark.only('strata')
def test_dump_needs_replication_slave_and_a_known_position(fresh_strata):
    """Without REPLICATION SLAVE: 1227.  A GTID position that is not in the binlog any more: 1236."""
    import rawclient
    s = fresh_strata
    s.start([])
    c = s.connect()
    run(c, "CREATE USER 'norepl'@'%' IDENTIFIED BY 'x'")
    c.close()
    cl = rawclient.RawClient.connect(port=s.port, user='norepl', password='x')
    cl.command(0x15, b'\x02\x00\x00\x00' + b'\x00' * 3 + b'\x00\x00' + b'\x00' * 8)
    e = cl.parse_err(cl.read_packet())
    assert e.code == 1227, e
    cl.close()
    # root may dump; a purged/unknown GTID position gives 1236 with MariaDB's text
    cl = rawclient.RawClient.connect(port=s.port)
    cl.query("SET @slave_connect_state = '0-1-999999'")
    cl.command(0x12, b'\x04\x00\x00\x00' + b'\x00\x00' + b'\x02\x00\x00\x00')
    e = cl.parse_err(cl.read_packet())
    assert e.code == 1236 and 'GTID' in e.message, e
    cl.close()
    # file/pos mode with BINLOG_DUMP_NON_BLOCK: fake ROTATE, FORMAT_DESCRIPTION, ..., then EOF
    cl = rawclient.RawClient.connect(port=s.port)
    cl.command(0x12, b'\x04\x00\x00\x00' + b'\x01\x00' + b'\x02\x00\x00\x00')
    types = []
    while True:
        pk = cl.read_packet()
        if pk[0] == 0xfe and len(pk) < 9:
            break
        assert pk[0] == 0x00, pk[:40]
        types.append(pk[1 + 4])
    assert types[:3] == [4, 15, 163], types  # ROTATE, FORMAT_DESCRIPTION, GTID_LIST
    cl.close()
