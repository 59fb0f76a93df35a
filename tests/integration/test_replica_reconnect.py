"""The replica's connection to its source (src/repl/replica.c): reconnects every MASTER_CONNECT_RETRY seconds by
GTID after the connection is cut in the middle of a large transaction (cut by a TCP relay in the test: the part
received is dropped, nothing of it is applied, the whole transaction arrives after the reconnect) and after the
source restarts; Seconds_Behind_Master and Strata_replica_lag_ms tell the truth meanwhile (never 0 while the
source is unreachable, NULL only with the SQL thread stopped); heartbeats (MASTER_HEARTBEAT_PERIOD) keep an idle
connection known to be alive.  Each against a MariaDB 10.11 and a strata primary."""
import socket
import threading
import time

import pytest

from conftest import new_server
from sqlutil import run
from test_replica import caught_up, replica_pair, replication_user, same_tables, slave_status
from test_replication import REPL_PW, REPL_USER


class Relay:
    """A TCP relay to a server's port: cut() closes every relayed connection, block() refuses new ones (accepted
    and closed at once) until unblock(); cut_after(n) cuts once n more bytes went from the server to the client."""

    def __init__(self, port):
        self.port_to = port
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(('127.0.0.1', 0))
        self.ls.listen(16)
        self.port = self.ls.getsockname()[1]
        self.lock = threading.Lock()
        self.conns = []
        self.blocked = False
        self.budget = None  # bytes still allowed server -> client before a cut
        self.cuts = 0
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.closed:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            if self.blocked:
                c.close()
                continue
            s = socket.create_connection(('127.0.0.1', self.port_to))
            with self.lock:
                self.conns.append((c, s))
            threading.Thread(target=self.pump, args=(c, s, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(s, c, True), daemon=True).start()

    def pump(self, src, dst, from_server):
        try:
            while True:
                b = src.recv(65536)
                if not b:
                    break
                if from_server:
                    with self.lock:
                        if self.budget is not None:
                            if len(b) >= self.budget:
                                b = b[:self.budget]
                                self.budget = None
                                dst.sendall(b)
                                self.cuts += 1
                                raise OSError('cut')
                            self.budget -= len(b)
                dst.sendall(b)
        except OSError:
            pass
        for x in (src, dst):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            x.close()

    def cut(self):
        with self.lock:
            for c, s in self.conns:
                for x in (c, s):
                    try:
                        x.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
            self.conns = []

    def cut_after(self, n):
        with self.lock:
            self.budget = n

    def close(self):
        self.closed = True
        self.ls.close()
        self.cut()


pair = pytest.fixture(params=['mariadb', 'strata'])(replica_pair)  # (primary, strata replica)


def follow_port(r, port, extra=''):
    run(r, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', "
           "MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1%s" % (port, REPL_USER, REPL_PW, extra))
    run(r, 'START SLAVE')


def lag_ms(r):
    return run(r, "SHOW GLOBAL STATUS LIKE 'Strata_replica_lag_ms'")[0][1]


def big_transaction(p, first, rows=2000, width=1000):
    run(p, 'BEGIN')
    for k in range(0, rows, 250):
        run(p, 'INSERT INTO rc.big VALUES ' + ', '.join(
            "(%d, REPEAT('%s', %d))" % (first + k + i, chr(97 + (k + i) % 26), width) for i in range(250)))
    run(p, 'COMMIT')


def test_cut_mid_transaction(pair):
    primary, rep = pair
    relay = Relay(primary.port)
    try:
        p = primary.connect()
        replication_user(p)
        run(p, 'CREATE DATABASE rc')
        run(p, 'CREATE TABLE rc.big (id INT PRIMARY KEY, pad TEXT)')
        run(p, 'INSERT INTO rc.big VALUES (0, \'first\')')
        r = rep.connect()
        follow_port(r, relay.port)
        caught_up(r, p)
        # the next 300 kB from the source, then the connection is cut: inside the 2 MB transaction
        relay.blocked = True
        relay.cut_after(300000)
        big_transaction(p, 1)
        t0 = time.time()
        while relay.cuts == 0:
            assert time.time() - t0 < 20
            time.sleep(0.05)
        time.sleep(2.5)  # the source stays unreachable for a while
        st = slave_status(r)[1]
        assert st['Slave_IO_Running'] == 'Connecting' and st['Slave_SQL_Running'] == 'Yes', st
        assert st['Last_IO_Errno'] in (2013, 2003, 2006, 1158, 1159), st
        assert st['Seconds_Behind_Master'] is not None and st['Seconds_Behind_Master'] >= 1, st
        assert int(lag_ms(r)) >= 1000
        assert run(r, 'SELECT COUNT(*) FROM rc.big') == ((1,),)  # nothing of the cut transaction applied
        relay.blocked = False
        caught_up(r, p)
        assert run(r, 'SELECT COUNT(*), SUM(LENGTH(pad)) FROM rc.big') == \
            run(p, 'SELECT COUNT(*), SUM(LENGTH(pad)) FROM rc.big')
        st = slave_status(r)[1]
        assert st['Slave_IO_Running'] == 'Yes' and st['Seconds_Behind_Master'] == 0, st
        assert lag_ms(r) == '0'
        # a cut between transactions, then more: nothing twice, nothing lost
        relay.cut()
        for i in range(20):
            run(p, "INSERT INTO rc.big VALUES (%d, 'x')" % (10000 + i))
        caught_up(r, p)
        same_tables(p, r, ['rc.big'])
        # the SQL thread stopped: NULL, and the lag status empty
        run(r, 'STOP SLAVE SQL_THREAD')
        assert slave_status(r)[1]['Seconds_Behind_Master'] is None
        assert lag_ms(r) == ''
        run(r, 'START SLAVE SQL_THREAD')
    finally:
        relay.close()


def test_source_restart(pair):
    primary, rep = pair
    p = primary.connect()
    replication_user(p)
    run(p, 'CREATE DATABASE rc')
    run(p, 'CREATE TABLE rc.t (id INT PRIMARY KEY, v INT)')
    r = rep.connect()
    follow_port(r, primary.port)
    for i in range(10):
        run(p, 'INSERT INTO rc.t VALUES (%d, %d)' % (i, i))
    caught_up(r, p)
    primary.stop()
    time.sleep(2.5)
    st = slave_status(r)[1]
    assert st['Slave_IO_Running'] == 'Connecting', st
    assert st['Seconds_Behind_Master'] is not None and st['Seconds_Behind_Master'] >= 1, st
    primary.start(primary.extra)
    p = primary.connect()
    for i in range(10, 20):
        run(p, 'INSERT INTO rc.t VALUES (%d, %d)' % (i, i))
    caught_up(r, p)
    same_tables(p, r, ['rc.t'])
    assert slave_status(r)[1]['Last_SQL_Errno'] == 0


def test_heartbeat(pair):
    primary, rep = pair
    p = primary.connect()
    replication_user(p)
    r = rep.connect()
    follow_port(r, primary.port, ', MASTER_HEARTBEAT_PERIOD=0.5')
    caught_up(r, p)
    assert run(r, "SHOW GLOBAL STATUS LIKE 'Slave_heartbeat_period'") == (('Slave_heartbeat_period', '0.500'),)
    n0 = int(run(r, "SHOW GLOBAL STATUS LIKE 'Slave_received_heartbeats'")[0][1])
    time.sleep(3)  # idle source: heartbeats only
    n1 = int(run(r, "SHOW GLOBAL STATUS LIKE 'Slave_received_heartbeats'")[0][1])
    assert n1 - n0 >= 3, (n0, n1)
    st = slave_status(r)[1]
    assert st['Slave_IO_Running'] == 'Yes' and st['Seconds_Behind_Master'] == 0, st
    assert run(r, "SHOW GLOBAL STATUS LIKE 'Slave_running'") == (('Slave_running', 'ON'),)


@pytest.mark.only('strata')
def test_apply_syncs_once_per_run(fresh_strata):
    """Transactions that wait in the queue are applied with one redo sync for the run, not one each (a crash
    loses the unsynced ones with their position: they are fetched again)."""
    primary = new_server('strata')
    primary.prepare()
    primary.start([])
    try:
        fresh_strata.start(['--server-id=2'])
        p, r = primary.connect(), fresh_strata.connect()
        replication_user(p)
        run(p, 'CREATE DATABASE rc')
        run(p, 'CREATE TABLE rc.t (id INT PRIMARY KEY)')
        follow_port(r, primary.port)
        caught_up(r, p)
        run(r, 'STOP SLAVE SQL_THREAD')
        for i in range(300):
            run(p, 'INSERT INTO rc.t VALUES (%d)' % i)
        t0 = time.time()
        while slave_status(r)[1]['Gtid_IO_Pos'] != run(p, 'SELECT @@gtid_binlog_pos')[0][0]:
            assert time.time() - t0 < 30
            time.sleep(0.05)
        f0 = int(run(r, "SHOW GLOBAL STATUS LIKE 'Innodb_data_fsyncs'")[0][1])
        run(r, 'START SLAVE SQL_THREAD')
        caught_up(r, p)
        f1 = int(run(r, "SHOW GLOBAL STATUS LIKE 'Innodb_data_fsyncs'")[0][1])
        assert run(r, 'SELECT COUNT(*) FROM rc.t') == ((300,),)
        assert f1 - f0 <= 30, (f0, f1)  # 300 transactions: a sync per 64 at most, not one each
    finally:
        primary.stop()
        primary.check_clean_stop()
