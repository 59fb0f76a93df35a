"""log_slave_updates on a strata replica (src/session/replica_apply.c, commit/commit.c's GTID override): what B
applies from its source A goes to B's own binlog under A's GTIDs, so a MariaDB replica C chained behind B follows
(A -> strata B -> MariaDB C, rows equal on C, the same gtid_binlog_pos on A and B), with A a MariaDB 10.11 or a
strata primary.  Without log_slave_updates B's binlog holds none of A's transactions."""
import re
import signal

import pytest

import conftest
import test_faults
from sqlutil import run
from test_replica import (PRIMARY_OPTS, TYPES_DDL, caught_up, follow, replication_user, same_tables, server_maker,
                          slave_status, workload)


@pytest.fixture
def chain():
    make, stop_all = server_maker()
    yield make
    stop_all()


@pytest.mark.only('strata')
@pytest.mark.parametrize('source', ['mariadb', 'strata'])
def test_chain_through_strata(chain, source):
    a = chain(source, PRIMARY_OPTS if source == 'mariadb' else ['--server-id=1'])
    b = chain('strata', ['--server-id=2', '--log-slave-updates'])
    c = chain('mariadb', ['--server-id=3'])
    pa = a.connect()
    replication_user(pa)  # replicated to B: C logs in to B with it
    run(pa, 'CREATE DATABASE rp')
    run(pa, TYPES_DDL)
    run(pa, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    workload(pa, 1, 20)
    pb, pc = b.connect(), c.connect()
    assert run(pb, 'SELECT @@log_slave_updates') == ((1,),)
    follow(pb, a)
    caught_up(pb, pa)
    follow(pc, b)
    caught_up(pc, pa)  # C reaches A's GTID position through B
    workload(pa, 100, 10)
    run(pa, 'ALTER TABLE rp.kv ADD COLUMN extra INT')
    run(pa, 'INSERT INTO rp.kv VALUES (5000, \'x\', 1)')
    caught_up(pc, pa)
    same_tables(pa, pc, ['rp.types', 'rp.kv'])
    same_tables(pa, pb, ['rp.types', 'rp.kv'])
    assert run(pb, 'SELECT @@gtid_binlog_pos') == run(pa, 'SELECT @@gtid_binlog_pos')
    st = slave_status(pc)[1]
    assert st['Last_SQL_Errno'] == 0 and st['Master_Server_Id'] == 2, st
    # B restarts: its binlog and its position agree, C carries on
    b.restart()
    workload(pa, 200, 5)
    caught_up(pc, pa)
    same_tables(pa, pc, ['rp.types', 'rp.kv'])


@pytest.mark.only('strata')
def test_no_log_slave_updates(chain):
    a = chain('mariadb', PRIMARY_OPTS)
    b = chain('strata', ['--server-id=2'])
    pa = a.connect()
    replication_user(pa)
    run(pa, 'CREATE DATABASE rp')
    run(pa, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    run(pa, "INSERT INTO rp.kv VALUES (1, 'a')")
    pb = b.connect()
    follow(pb, a)
    caught_up(pb, pa)
    assert run(pb, 'SELECT @@log_slave_updates') == ((0,),)
    assert run(pb, 'SELECT @@gtid_binlog_pos') == (('',),)
    assert run(pb, 'SELECT * FROM rp.kv') == ((1, 'a'),)


@pytest.mark.skipif(not test_faults.binary_has_seam(conftest.strata_exe()), reason='needs the test build (make SAN=1)')
@pytest.mark.only('strata')
def test_log_slave_updates_crash_reapply(chain, monkeypatch):
    """kill -9 of a logging replica whose engine commits were never synced (commit.skip_redo_sync): recovery
    re-applies them from B's binlog, positions included, so B then neither applies one twice (1062) nor loses
    one."""
    a = chain('mariadb', PRIMARY_OPTS)
    monkeypatch.setenv('STRATA_FAULT', 'point:commit.skip_redo_sync:*:ON')
    b = chain('strata', ['--server-id=2', '--log-slave-updates'])
    monkeypatch.delenv('STRATA_FAULT')
    pa = a.connect()
    replication_user(pa)
    run(pa, 'CREATE DATABASE rp')
    run(pa, TYPES_DDL)
    run(pa, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    pb = b.connect()
    follow(pb, a)
    caught_up(pb, pa)
    workload(pa, 1, 30)
    caught_up(pb, pa)
    pb.close()
    b.proc.send_signal(signal.SIGKILL)
    b.proc.wait()
    b.stderr_f.close()
    b.start(b.extra)
    assert re.findall(r're-applied (\d+) transaction', b.log_text()), 'nothing was re-applied'
    workload(pa, 100, 5)
    pb = b.connect()
    caught_up(pb, pa)
    same_tables(pa, pb, ['rp.types', 'rp.kv'])
    assert run(pb, 'SELECT @@gtid_binlog_pos') == run(pa, 'SELECT @@gtid_binlog_pos')
