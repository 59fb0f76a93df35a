"""Switchover with stock statements (docs/replication.md): the replica B (log_slave_updates, gtid_strict_mode) is
promoted with STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only=0, and the old primary A, stopped from writing,
follows it with MASTER_USE_GTID=current_pos: nothing lost, nothing applied twice, the same GTID positions
everywhere.  strata <-> strata, MariaDB 10.11 -> strata, strata -> MariaDB 10.11.  Also gtid_strict_mode on a
replica that logs: a transaction whose GTID would put its domain out of order stops the SQL thread with 1950."""
import time

import pytest

from sqlutil import run
from test_replica import TYPES_DDL, caught_up, follow, replication_user, same_tables, server_maker, slave_status, workload
from test_replication import REPL_PW, REPL_USER

MARIADB_OPTS = ['--log-bin=mb', '--binlog-format=ROW', '--character-set-server=utf8mb4',
                '--collation-server=utf8mb4_general_ci', '--log-slave-updates', '--gtid-strict-mode=ON']
STRATA_OPTS = ['--log-slave-updates', '--gtid-strict-mode=ON']


@pytest.fixture
def servers():
    make, stop_all = server_maker()
    yield lambda kind, sid: make(kind, (MARIADB_OPTS if kind == 'mariadb' else STRATA_OPTS) + ['--server-id=%d' % sid])
    stop_all()


TABLES = ['rp.types', 'rp.kv']


@pytest.mark.only('strata')
@pytest.mark.parametrize('kinds', [('strata', 'strata'), ('mariadb', 'strata'), ('strata', 'mariadb')])
def test_switchover(servers, kinds):
    a, b = servers(kinds[0], 1), servers(kinds[1], 2)
    pa, pb = a.connect(), b.connect()
    assert run(pa, 'SELECT @@gtid_strict_mode') == run(pb, 'SELECT @@gtid_strict_mode') == ((1,),)
    replication_user(pa)
    run(pa, 'CREATE DATABASE rp')
    run(pa, TYPES_DDL)
    run(pa, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    workload(pa, 1, 20)
    follow(pb, a)
    caught_up(pb, pa)
    workload(pa, 100, 10)
    # switchover: A stops taking writes, B has everything, B is promoted
    run(pa, 'SET GLOBAL read_only = 1')
    caught_up(pb, pa)
    run(pb, 'STOP SLAVE')
    run(pb, 'RESET SLAVE ALL')
    run(pb, 'SET GLOBAL read_only = 0')
    assert slave_status(pb)[1] == {}
    # A follows B from its own position (gtid_current_pos: its binlog)
    run(pa, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', "
            "MASTER_USE_GTID=current_pos, MASTER_CONNECT_RETRY=1" % (b.port, REPL_USER, REPL_PW))
    run(pa, 'START SLAVE')
    workload(pb, 1000, 10)
    run(pb, "INSERT INTO rp.kv VALUES (99999, 'on b')")
    caught_up(pa, pb)
    same_tables(pb, pa, TABLES)
    st = slave_status(pa)[1]
    assert st['Using_Gtid'] == 'Current_Pos' and st['Last_SQL_Errno'] == 0 and st['Last_IO_Errno'] == 0, st
    for v in ('gtid_binlog_pos', 'gtid_current_pos'):
        assert run(pa, 'SELECT @@' + v) == run(pb, 'SELECT @@' + v), v
    assert run(pa, 'SELECT @@gtid_binlog_pos')[0][0].startswith('0-2-')


@pytest.mark.only('strata')
def test_strict_mode_out_of_order(servers):
    """B logs what it applies and has a local transaction of its own in the domain: the source's next GTID is not
    past it, so strict mode refuses it (1950) and nothing of it is applied."""
    a, b = servers('strata', 1), servers('strata', 2)
    pa, pb = a.connect(), b.connect()
    replication_user(pa)
    run(pa, 'CREATE DATABASE rp')
    run(pa, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    follow(pb, a)
    caught_up(pb, pa)
    run(pb, 'STOP SLAVE')
    run(pb, 'CREATE TABLE rp.local (a INT PRIMARY KEY)')  # B's own GTID 0-2-N, past A's 0-1-(N-1)
    run(pb, 'START SLAVE')
    run(pa, "INSERT INTO rp.kv VALUES (1, 'a')")
    t0 = time.time()
    while slave_status(pb)[1]['Slave_SQL_Running'] == 'Yes':
        assert time.time() - t0 < 20
        time.sleep(0.1)
    st = slave_status(pb)[1]
    assert st['Last_SQL_Errno'] == 1950, st
    assert 'out-of-order sequence number' in st['Last_SQL_Error'], st
    assert run(pb, 'SELECT COUNT(*) FROM rp.kv') == ((0,),)
