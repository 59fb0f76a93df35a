"""CHANGE MASTER's filtering and timing options and START SLAVE UNTIL on a strata replica (src/repl/replica.c):
MASTER_DELAY (SQL_Delay, SQL_Remaining_Delay, the waiting state), IGNORE_SERVER_IDS, DO_DOMAIN_IDS /
IGNORE_DOMAIN_IDS (filtered transactions are not applied but their GTIDs are recorded, as MariaDB's ign_gtids),
UNTIL master_gtid_pos and UNTIL MASTER_LOG_FILE / MASTER_LOG_POS (stop exactly there); each against a MariaDB
10.11 primary and a strata primary.  The statements' errors, notes and SHOW SLAVE STATUS columns are compared with
a MariaDB replica's (the target fixture)."""
import time

import pymysql
import pytest

from sqlutil import run
from test_replica import PRIMARY_OPTS, caught_up, follow, replica_pair, replication_user, slave_status


pair = pytest.fixture(params=['mariadb', 'strata'])(replica_pair)  # (primary, strata replica)


def attach(primary, rep, extra=''):
    p = primary.connect()
    replication_user(p)
    run(p, 'CREATE DATABASE op')
    run(p, 'CREATE TABLE op.t (id INT PRIMARY KEY, d INT)')
    r = rep.connect()
    follow(r, primary, extra)
    caught_up(r, p)
    return p, r


def wait_stopped(r, timeout=30):
    t0 = time.time()
    while True:
        st = slave_status(r)[1]
        if st['Slave_SQL_Running'] == 'No':
            return st
        assert time.time() - t0 < timeout, st
        time.sleep(0.05)


def ids(c):
    return [x[0] for x in run(c, 'SELECT id FROM op.t ORDER BY id')]


def err(c, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, sql)
    return e.value.args[0]


def test_change_master_option_errors(target):
    c = target.connect()
    try:
        base = "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=1, MASTER_USER='u', MASTER_CONNECT_RETRY=1"
        assert err(c, base + ', DO_DOMAIN_IDS=(1), IGNORE_DOMAIN_IDS=(2)') == 1201
        assert err(c, base + ', MASTER_USE_GTID=no, DO_DOMAIN_IDS=(1)') == 1201
        assert err(c, base + ', MASTER_DELAY=2147483648') == 1729
        assert err(c, base + ', MASTER_DELAY=-1') == 1064
        run(c, base + ', MASTER_USE_GTID=slave_pos, IGNORE_SERVER_IDS=(8,7,8), DO_DOMAIN_IDS=(3,1), MASTER_DELAY=3')
        st = slave_status(c)[1]
        assert (st['Replicate_Ignore_Server_Ids'], st['Replicate_Do_Domain_Ids'], st['Replicate_Ignore_Domain_Ids'],
                st['SQL_Delay'], st['SQL_Remaining_Delay'], st['Until_Condition']) == \
            ('7, 8', '1, 3', '', 3, None, 'None'), st
        # a list is replaced whole; () empties it; the other options stay
        run(c, 'CHANGE MASTER TO DO_DOMAIN_IDS=(), IGNORE_DOMAIN_IDS=(4)')
        st = slave_status(c)[1]
        assert (st['Replicate_Ignore_Server_Ids'], st['Replicate_Do_Domain_Ids'],
                st['Replicate_Ignore_Domain_Ids'], st['SQL_Delay']) == ('7, 8', '', '4', 3), st
        assert err(c, "START SLAVE UNTIL master_gtid_pos='x'") == 1941
        assert err(c, "START SLAVE IO_THREAD UNTIL master_gtid_pos='0-1-5'") == 1277
        assert err(c, "START SLAVE UNTIL MASTER_LOG_FILE='mb.000001'") == 1277
        with c.cursor() as cur:
            cur.execute("START SLAVE UNTIL MASTER_LOG_FILE='mb.000001', MASTER_LOG_POS=400")
            cur.execute('SHOW WARNINGS')
            assert [w[1] for w in cur.fetchall()] == [1278]
        st = slave_status(c)[1]
        assert (st['Until_Condition'], st['Until_Log_File'], st['Until_Log_Pos']) == ('Master', 'mb.000001', 400)
        run(c, 'STOP SLAVE')
        run(c, "START SLAVE UNTIL master_gtid_pos='0-1-5'")
        assert slave_status(c)[1]['Until_Condition'] == 'Gtid'
        run(c, 'STOP SLAVE')
        run(c, 'CHANGE MASTER TO IGNORE_SERVER_IDS=(), IGNORE_DOMAIN_IDS=(), MASTER_DELAY=0')
        st = slave_status(c)[1]
        assert (st['Replicate_Ignore_Server_Ids'], st['Replicate_Ignore_Domain_Ids'], st['SQL_Delay']) == ('', '', 0)
    finally:
        run(c, 'STOP SLAVE')
        run(c, 'RESET SLAVE ALL')
        c.close()


@pytest.mark.only('strata')
def test_options_survive_restart(fresh_strata):
    fresh_strata.start(['--server-id=2', '--skip-slave-start'])
    c = fresh_strata.connect()
    run(c, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=1, MASTER_USER='u', MASTER_DELAY=7, "
           "IGNORE_SERVER_IDS=(9, 4), IGNORE_DOMAIN_IDS=(2)")
    fresh_strata.restart()
    st = slave_status(fresh_strata.connect())[1]
    assert (st['SQL_Delay'], st['Replicate_Ignore_Server_Ids'], st['Replicate_Ignore_Domain_Ids']) == (7, '4, 9', '2')


def test_master_delay(pair):
    primary, rep = pair
    p, r = attach(primary, rep)
    run(r, 'STOP SLAVE')
    run(r, 'CHANGE MASTER TO MASTER_DELAY=3')
    run(r, 'START SLAVE')
    t0 = time.time()
    run(p, 'INSERT INTO op.t VALUES (1, 1)')
    time.sleep(1)
    st = slave_status(r)[1]
    assert st['SQL_Delay'] == 3, st
    assert st['Slave_SQL_Running_State'] == 'Waiting until MASTER_DELAY seconds after master executed event', st
    assert st['SQL_Remaining_Delay'] is not None and 1 <= st['SQL_Remaining_Delay'] <= 3, st
    assert st['Seconds_Behind_Master'] >= 1, st  # the transaction waits: the replica is behind
    assert ids(r) == []
    caught_up(r, p, timeout=20)
    assert time.time() - t0 >= 1.9  # one-second timestamps: 3 s after the second the commit began in
    assert ids(r) == [1]
    st = slave_status(r)[1]
    assert st['SQL_Remaining_Delay'] is None and st['Slave_SQL_Running_State'].startswith('Slave has read all'), st
    # STOP SLAVE does not wait out a delay
    run(p, 'INSERT INTO op.t VALUES (2, 2)')
    time.sleep(0.5)
    t0 = time.time()
    run(r, 'STOP SLAVE')
    assert time.time() - t0 < 2
    assert ids(r) == [1]
    run(r, 'CHANGE MASTER TO MASTER_DELAY=0')
    run(r, 'START SLAVE')
    caught_up(r, p)
    assert ids(r) == [1, 2]


def test_ignore_server_ids(pair):
    primary, rep = pair
    p, r = attach(primary, rep)
    run(r, 'STOP SLAVE')
    run(r, 'CHANGE MASTER TO IGNORE_SERVER_IDS=(1)')  # the primary's own id: nothing of it is applied
    run(r, 'START SLAVE')
    run(p, 'INSERT INTO op.t VALUES (1, 1)')
    run(p, 'INSERT INTO op.t VALUES (2, 2)')
    caught_up(r, p)  # the GTIDs are recorded: gtid_slave_pos reaches the primary's
    assert ids(r) == []
    assert slave_status(r)[1]['Replicate_Ignore_Server_Ids'] == '1'
    run(r, 'STOP SLAVE')
    run(r, 'CHANGE MASTER TO IGNORE_SERVER_IDS=()')
    run(r, 'START SLAVE')
    run(p, 'INSERT INTO op.t VALUES (3, 3)')
    caught_up(r, p)
    assert ids(r) == [3]


@pytest.mark.only('strata')
def test_ignore_server_ids_other_server(fresh_mariadb, fresh_strata):
    """Transactions a MariaDB primary logs under another server_id (SET server_id) are the ones skipped."""
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    p, r = attach(primary, rep, ', IGNORE_SERVER_IDS=(7)')
    run(p, 'INSERT INTO op.t VALUES (1, 1)')
    run(p, 'SET SESSION server_id = 7')
    run(p, 'INSERT INTO op.t VALUES (2, 2)')
    run(p, 'SET SESSION server_id = 8')
    run(p, 'INSERT INTO op.t VALUES (3, 3)')
    run(p, 'SET SESSION server_id = 7')
    run(p, 'INSERT INTO op.t VALUES (4, 4)')
    run(p, 'SET SESSION server_id = 1')
    caught_up(r, p)
    assert ids(r) == [1, 3]
    assert run(r, 'SELECT @@gtid_slave_pos') == run(p, 'SELECT @@gtid_binlog_pos')
    assert run(p, 'SELECT @@gtid_binlog_pos')[0][0].startswith('0-7-')


def domain_insert(primary, p, dom, i):
    """INSERT row i in GTID domain dom: a MariaDB primary by SET SESSION gtid_domain_id; a strata primary takes
    only the global gtid_domain_id, at start-up, so it restarts with it.  Returns the (new) connection."""
    if primary.kind == 'mariadb':
        run(p, 'SET SESSION gtid_domain_id = %d' % dom)
    elif run(p, 'SELECT @@gtid_domain_id')[0][0] != dom:
        primary.restart(['--gtid-domain-id=%d' % dom])
        p = primary.connect()
    run(p, 'INSERT INTO op.t VALUES (%d, %d)' % (i, dom))
    return p


def test_domain_ids(pair):
    primary, rep = pair
    p, r = attach(primary, rep, ', DO_DOMAIN_IDS=(0, 2)')
    for i, dom in enumerate([0, 1, 2, 1, 0, 3]):
        p = domain_insert(primary, p, dom, i)
    caught_up(r, p)  # the GTIDs of every domain are recorded, applied or not
    assert ids(r) == [0, 2, 4]
    run(r, 'STOP SLAVE')
    run(r, 'CHANGE MASTER TO DO_DOMAIN_IDS=(), IGNORE_DOMAIN_IDS=(0)')
    run(r, 'START SLAVE')
    for i, dom in [(10, 0), (11, 1), (12, 3)]:
        p = domain_insert(primary, p, dom, i)
    caught_up(r, p)
    assert ids(r) == [0, 2, 4, 11, 12]


def test_until_gtid_and_position(pair):
    primary, rep = pair
    p, r = attach(primary, rep)
    run(r, 'STOP SLAVE')
    for i in range(1, 21):
        run(p, 'INSERT INTO op.t VALUES (%d, %d)' % (i, i))
        if i == 7:
            g7 = run(p, 'SELECT @@gtid_binlog_pos')[0][0]
        if i == 14:
            with p.cursor() as cur:
                cur.execute('SHOW MASTER STATUS')
                f, pos = cur.fetchone()[:2]
    # by GTID: both threads stop with exactly the seventh row applied
    run(r, "START SLAVE UNTIL master_gtid_pos = '%s'" % g7)
    st = wait_stopped(r)
    assert ids(r) == list(range(1, 8)), st
    assert run(r, 'SELECT @@gtid_slave_pos')[0][0] == g7
    t0 = time.time()
    while slave_status(r)[1]['Slave_IO_Running'] != 'No':
        assert time.time() - t0 < 10
        time.sleep(0.05)
    assert slave_status(r)[1]['Until_Condition'] == 'Gtid'
    # a position the replica is already at: the SQL thread stops at once, nothing more applied
    run(r, "START SLAVE UNTIL master_gtid_pos = '%s'" % g7)
    wait_stopped(r)
    assert ids(r) == list(range(1, 8))
    # by file and position: the SQL thread stops after the group that ends there, the IO thread runs on
    run(r, 'STOP SLAVE')
    run(r, "START SLAVE UNTIL MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d" % (f, pos))
    st = wait_stopped(r)
    assert st['Until_Condition'] == 'Master' and st['Exec_Master_Log_Pos'] == pos, st
    assert st['Relay_Master_Log_File'] == f and st['Slave_IO_Running'] != 'No', st
    # the SQL thread may reach the position from events already relayed before the IO thread has reconnected
    # ('Connecting'); the IO thread must then go on to 'Yes', not stop at the SQL thread's position
    t0 = time.time()
    while slave_status(r)[1]['Slave_IO_Running'] != 'Yes':
        assert time.time() - t0 < 10, slave_status(r)[1]
        time.sleep(0.05)
    assert ids(r) == list(range(1, 15))
    run(r, 'START SLAVE SQL_THREAD')
    caught_up(r, p)
    assert ids(r) == list(range(1, 21))
    assert slave_status(r)[1]['Until_Condition'] == 'None'
