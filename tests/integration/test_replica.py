"""strata as a replica (src/repl/replica.c, src/session/replica_apply.c, exec_repl.c): a stock MariaDB 10.11
primary (ROW format) and a strata primary, followed by GTID; DDL, DML of many column types, transactions;
STOP/START SLAVE, restarts and kill -9 of the replica mid-stream (no 1062/1032, same rows); SHOW SLAVE STATUS
with a MariaDB replica's columns; the statements' errors; read_only."""
import random
import threading
import time

import pytest

from conftest import new_server
from sqlutil import run
from test_replication import REPL_PW, REPL_USER

PRIMARY_OPTS = ['--log-bin=mb', '--binlog-format=ROW', '--server-id=1', '--character-set-server=utf8mb4',
                '--collation-server=utf8mb4_general_ci']

TYPES_DDL = ("CREATE TABLE rp.types (id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, "
             "bi BIGINT UNSIGNED, de DECIMAL(12,3), db DOUBLE, fl FLOAT, vc VARCHAR(40), ch CHAR(5), tx TEXT, "
             "bl BLOB, d DATE, dt DATETIME(6), ts TIMESTAMP NULL, tm TIME, yr YEAR, en ENUM('a','b','c'), "
             "st SET('x','y','z'), bt BIT(5))")


def replication_user(c):
    for host in ('%', 'localhost'):  # 'localhost': the template's anonymous ''@localhost would match first
        run(c, "CREATE USER '%s'@'%s' IDENTIFIED BY '%s'" % (REPL_USER, host, REPL_PW))
        run(c, "GRANT REPLICATION SLAVE ON *.* TO '%s'@'%s'" % (REPL_USER, host))


def follow(replica, primary, extra=''):
    run(replica, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', "
                 "MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1%s"
        % (primary.port, REPL_USER, REPL_PW, extra))
    run(replica, 'START SLAVE')


def slave_status(c):
    with c.cursor() as cur:
        cur.execute('SHOW SLAVE STATUS')
        cols = [d[0] for d in cur.description]
        row = cur.fetchone()
    return cols, dict(zip(cols, row)) if row else {}


def caught_up(replica, primary_conn, timeout=60):
    want = run(primary_conn, 'SELECT @@gtid_binlog_pos')[0][0]
    t0 = time.time()
    while time.time() - t0 < timeout:
        if run(replica, 'SELECT @@gtid_slave_pos')[0][0] == want:
            return
        st = slave_status(replica)[1]
        assert st.get('Last_SQL_Errno') in (0, '0', None), st
        time.sleep(0.1)
    raise AssertionError('replica did not reach %s: %s' % (want, slave_status(replica)[1]))


def same_tables(p, r, tables):
    for t in tables:
        assert run(r, 'SELECT * FROM %s ORDER BY 1' % t) == run(p, 'SELECT * FROM %s ORDER BY 1' % t), t
        assert run(r, 'CHECKSUM TABLE %s' % t) == run(p, 'CHECKSUM TABLE %s' % t), t


def workload(p, n0, n):
    for i in range(n0, n0 + n):
        run(p, "INSERT INTO rp.types VALUES (%d, %d, %d, %d, %d, %d.125, %d.5, 1.5, 'v%d', 'c', REPEAT('t', %d), "
               "x'00ff%02x', '2024-02-29', '2024-01-02 03:04:05.123456', '2024-05-06 07:08:09', '-12:34:56', "
               "2024, 'b', 'x,z', b'10101')" % (i, i % 100 - 50, i, -i, 2 ** 63 + i, i, i, i, i % 50, i % 256))
    run(p, 'BEGIN')
    run(p, 'UPDATE rp.types SET vc = CONCAT(vc, \'-u\'), en = \'c\' WHERE id %% 3 = 0 AND id >= %d' % n0)
    run(p, 'DELETE FROM rp.types WHERE id %% 7 = 0 AND id >= %d' % n0)
    run(p, 'INSERT INTO rp.kv (k) VALUES (%d)' % n0)
    run(p, 'COMMIT')


def server_maker():
    """For fixtures of several servers: (make, stop_all).  make(kind, opts) prepares and starts a fresh server;
    stop_all() stops them, newest first, with the clean-stop check."""
    made = []

    def make(kind, opts):
        s = new_server(kind)
        s.prepare()
        s.start(opts)
        made.append(s)
        return s

    def stop_all():
        for s in reversed(made):
            s.stop()
            s.check_clean_stop()
    return make, stop_all


def replica_pair(request):
    """Fixture body (params: the primary's kind): a fresh primary and a fresh strata replica (server_id 2)."""
    make, stop_all = server_maker()
    yield make(request.param, PRIMARY_OPTS if request.param == 'mariadb' else []), make('strata', ['--server-id=2'])
    stop_all()


@pytest.fixture
def fresh_strata2(request):
    s = new_server('strata')
    s.prepare()
    yield s
    s.stop()
    s.check_clean_stop()


@pytest.mark.only('strata')
def test_mariadb_primary_strata_replica(fresh_mariadb, fresh_strata):
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    run(p, 'CREATE DATABASE rp')
    run(p, TYPES_DDL)
    run(p, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    workload(p, 1, 30)  # history before the replica attaches
    r = rep.connect()
    follow(r, primary)
    caught_up(r, p)
    same_tables(p, r, ['rp.types', 'rp.kv'])
    st = slave_status(r)[1]
    assert st['Slave_IO_Running'] == 'Yes' and st['Slave_SQL_Running'] == 'Yes', st
    assert st['Using_Gtid'] == 'Slave_Pos' and st['Master_Server_Id'] == 1, st
    assert st['Seconds_Behind_Master'] == 0, st
    # DDL while following, then STOP / START
    run(p, 'ALTER TABLE rp.kv ADD COLUMN extra INT')
    run(p, 'CREATE TABLE rp.t2 (a INT PRIMARY KEY, b INT)')
    run(p, 'INSERT INTO rp.t2 VALUES (1, 1), (2, 2)')
    caught_up(r, p)
    run(r, 'STOP SLAVE')
    assert slave_status(r)[1]['Seconds_Behind_Master'] is None
    workload(p, 100, 10)
    run(r, 'START SLAVE')
    caught_up(r, p)
    same_tables(p, r, ['rp.types', 'rp.kv', 'rp.t2'])
    # restart of the replica: configuration and position survive, replication resumes by itself
    rep.restart()
    workload(p, 200, 10)
    r = rep.connect()
    caught_up(r, p)
    same_tables(p, r, ['rp.types', 'rp.kv', 'rp.t2'])
    # a row the replica lacks stops the SQL thread with 1032, never a crash or a skip
    run(r, 'SET sql_log_bin = 0')
    run(r, 'DELETE FROM rp.t2 WHERE a = 2')
    run(p, 'UPDATE rp.t2 SET b = 20 WHERE a = 2')
    t0 = time.time()
    while slave_status(r)[1]['Slave_SQL_Running'] == 'Yes' and time.time() - t0 < 20:
        time.sleep(0.1)
    st = slave_status(r)[1]
    assert st['Slave_SQL_Running'] == 'No' and st['Last_SQL_Errno'] == 1032, st
    assert "Can't find record in 't2'" in st['Last_SQL_Error'], st
    assert st['Slave_IO_Running'] == 'Yes' and st['Seconds_Behind_Master'] is None, st
    run(r, 'INSERT INTO rp.t2 VALUES (2, 2)')  # fix the cause; START SLAVE retries the same transaction
    run(r, 'START SLAVE')
    caught_up(r, p)
    same_tables(p, r, ['rp.t2'])


@pytest.mark.only('strata')
def test_slave_status_columns_match_mariadb(fresh_mariadb, fresh_strata):
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    mrep = new_server('mariadb')
    mrep.prepare()
    try:
        mrep.start(['--server-id=3'])
        p = primary.connect()
        replication_user(p)
        m, r = mrep.connect(), rep.connect()
        assert slave_status(r) == (slave_status(m)[0], {})  # not configured: the columns, no row
        for c in (m, r):
            follow(c, primary)
        caught_up(m, p)
        caught_up(r, p)
        mcols, mst = slave_status(m)
        scols, sst = slave_status(r)
        assert scols == mcols
        for k in ('Slave_IO_State', 'Master_Host', 'Master_User', 'Master_Port', 'Connect_Retry', 'Master_Log_File',
                  'Read_Master_Log_Pos', 'Slave_IO_Running', 'Slave_SQL_Running', 'Exec_Master_Log_Pos',
                  'Seconds_Behind_Master', 'Last_IO_Errno', 'Last_SQL_Errno', 'Master_Server_Id', 'Using_Gtid',
                  'Gtid_IO_Pos', 'Slave_SQL_Running_State'):
            assert sst[k] == mst[k], (k, sst[k], mst[k])
        # statements' errors and notes, as MariaDB's
        for c in (m, r):
            for stmt, code in (("CHANGE MASTER TO MASTER_PORT=1", 1198), ('RESET SLAVE', 1198),
                               ("SET GLOBAL gtid_slave_pos = '0-1-1'", 1198)):
                with pytest.raises(Exception) as e:
                    run(c, stmt)
                assert e.value.args[0] == code, (stmt, e.value.args)
            run(c, 'START SLAVE')
            assert run(c, 'SHOW WARNINGS') == (('Note', 1254, 'Slave is already running'),)
            run(c, 'STOP SLAVE')
            run(c, 'STOP SLAVE')
            assert run(c, 'SHOW WARNINGS') == (('Note', 1255, 'Slave already has been stopped'),)
            run(c, 'RESET SLAVE ALL')
            with pytest.raises(Exception) as e:
                run(c, 'START SLAVE')
            assert e.value.args[0] == 1200, e.value.args
            assert slave_status(c)[1] == {}
    finally:
        mrep.stop()
        mrep.check_clean_stop()


@pytest.mark.only('strata')
def test_replica_privileges_and_read_only(fresh_strata):
    rep = fresh_strata
    rep.start(['--server-id=2'])
    r = rep.connect()
    run(r, 'CREATE DATABASE ro')
    run(r, 'CREATE TABLE ro.t (a INT PRIMARY KEY)')
    run(r, "CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'")
    run(r, "GRANT ALL ON ro.* TO 'plain'@'%'")
    u = rep.connect(user='plain', password='pw')
    for stmt in ("CHANGE MASTER TO MASTER_HOST='h'", 'START SLAVE', 'STOP REPLICA', 'RESET SLAVE',
                 'SHOW SLAVE STATUS'):
        with pytest.raises(Exception) as e:
            run(u, stmt)
        assert e.value.args[0] == 1227, (stmt, e.value.args)
    # MySQL 8's spelling; an option strata does not implement is refused, not ignored
    run(r, "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=1, SOURCE_USER='x'")
    assert slave_status(r)[1]['Master_Port'] == 1
    with pytest.raises(Exception) as e:
        run(r, "CHANGE MASTER TO RELAY_LOG_FILE='relay.000001'")  # no relay log
    assert e.value.args[0] == 1235
    run(r, 'SET GLOBAL read_only = 1')
    with pytest.raises(Exception) as e:
        run(u, 'INSERT INTO ro.t VALUES (1)')
    assert e.value.args[0] == 1290 and '--read-only' in e.value.args[1]
    run(u, 'CREATE TEMPORARY TABLE ro.tmp (a INT)')
    run(r, 'INSERT INTO ro.t VALUES (1)')  # root has READ_ONLY ADMIN
    run(r, 'SET GLOBAL read_only = 0')
    run(u, 'INSERT INTO ro.t VALUES (2)')
    # the configuration survives a restart; skip_slave_start leaves the threads stopped
    rep.restart(['--server-id=2', '--skip-slave-start'])
    r = rep.connect()
    st = slave_status(r)[1]
    assert st['Master_Port'] == 1 and st['Slave_IO_Running'] == 'No' and st['Slave_SQL_Running'] == 'No', st


@pytest.mark.only('strata')
def test_replica_kill9_midstream(fresh_mariadb, fresh_strata):
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    run(p, 'CREATE DATABASE rp')
    run(p, 'CREATE TABLE rp.c (id INT PRIMARY KEY, n INT, pad VARCHAR(100))')
    r = rep.connect()
    follow(r, primary)
    caught_up(r, p)
    stop = threading.Event()

    def writer():
        w = primary.connect()
        i = 0
        while not stop.is_set():
            i += 1
            run(w, 'BEGIN')
            run(w, "INSERT INTO rp.c VALUES (%d, 0, REPEAT('p', 90))" % i)
            run(w, 'UPDATE rp.c SET n = n + 1 WHERE id = %d' % max(1, i // 2))
            run(w, 'COMMIT')
    th = threading.Thread(target=writer)
    th.start()
    rnd = random.Random(14)
    try:
        for _ in range(5):
            time.sleep(rnd.uniform(0.2, 1.2))
            rep.stop(sig=9)
            rep.start(['--server-id=2'])
    finally:
        stop.set()
        th.join()
    r = rep.connect()
    caught_up(r, p)
    st = slave_status(r)[1]
    assert st['Last_SQL_Errno'] == 0, st
    same_tables(p, r, ['rp.c'])


@pytest.mark.only('strata')
def test_strata_primary_strata_replica(fresh_strata, fresh_strata2):
    primary, rep = fresh_strata, fresh_strata2
    primary.start([])
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    run(p, 'CREATE DATABASE rp')
    run(p, TYPES_DDL)
    run(p, 'CREATE TABLE rp.kv (k INT PRIMARY KEY, v VARCHAR(20))')
    workload(p, 1, 20)
    r = rep.connect()
    follow(r, primary)
    caught_up(r, p)
    workload(p, 50, 10)
    caught_up(r, p)
    same_tables(p, r, ['rp.types', 'rp.kv'])
    assert run(r, 'SELECT @@gtid_slave_pos') == run(p, 'SELECT @@gtid_binlog_pos')
