"""What a MariaDB replica receives from strata: the text of logged statements, and the whole history.

* The QUERY (and ANNOTATE_ROWS) text of a statement is the statement as the client sent it, through its last
  byte: comments before and after it, an executable comment's closing star-slash, the spaces before its ';'.
  Checked against what MariaDB logs for the same statements (SHOW BINLOG EVENTS), and by replaying the whole
  differential suite (tests/sql/*.sql) and a sysbench prepare through a MariaDB replica, which re-parses every
  logged text: its SQL thread must end running, without error, with the primary's tables.
* A new replica (empty gtid_slave_pos) gets every event from the first binlog file, plain or compressed; once
  the files it needs are purged it gets error 1236, as from a MariaDB primary.  The start-position rules of a
  binlog dump (GTID and file/position) are checked against a MariaDB primary with the same history.
"""
import os
import shutil
import struct
import subprocess
import sys
import time

import pytest

import rawclient
from sqlutil import run

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_sql_diff import FILES, parse_file  # noqa: E402 - the suite's own statement splitter

REPL_USER, REPL_PW = 'repl', 'rpl-pw-2'


def primary_opts(kind, *extra):
    """A primary with a binary log in both kinds (the conftest MariaDB runs with --skip-log-bin)."""
    if kind == 'mariadb':
        return ['--log-bin=mariadb-bin', '--server-id=1', '--binlog-format=ROW'] + list(extra)
    return list(extra)


def start_primary(server, *extra):
    server.start(primary_opts(server.kind, *extra))
    c = server.connect()
    run(c, "CREATE USER '%s'@'%%' IDENTIFIED BY '%s'" % (REPL_USER, REPL_PW))
    run(c, "GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'" % REPL_USER)
    return c


def slave_status(replica):
    with replica.cursor() as cur:
        cur.execute('SHOW SLAVE STATUS')
        cols = [d[0] for d in cur.description]
        row = cur.fetchone()
    return dict(zip(cols, row)) if row else {}


def attach(replica, primary, use_gtid='slave_pos', log_file=None):
    opt = "MASTER_USE_GTID=%s" % use_gtid
    if log_file is not None:
        opt = "MASTER_LOG_FILE='%s', MASTER_LOG_POS=4, MASTER_USE_GTID=no" % log_file
    run(replica, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', "
                 "MASTER_PASSWORD='%s', MASTER_CONNECT_RETRY=1, %s" % (primary.port, REPL_USER, REPL_PW, opt))
    run(replica, 'START SLAVE')


def detach(replica):
    run(replica, 'STOP SLAVE')
    run(replica, 'RESET SLAVE ALL')
    run(replica, "SET GLOBAL gtid_slave_pos = ''")


def wait_caught_up(replica, pos, timeout=90):
    """Until the replica's SQL thread has applied pos; fails with its status if a thread stopped."""
    t0 = time.time()
    st = {}
    while time.time() - t0 < timeout:
        st = slave_status(replica)
        if run(replica, 'SELECT @@gtid_slave_pos')[0][0] == pos:
            return st
        if st and (st['Slave_IO_Running'] != 'Yes' or st['Slave_SQL_Running'] != 'Yes') and time.time() - t0 > 5:
            break
        time.sleep(0.1)
    pytest.fail('replica did not reach %s: %s' % (pos, {k: st.get(k) for k in (
        'Slave_IO_Running', 'Slave_SQL_Running', 'Last_IO_Errno', 'Last_IO_Error', 'Last_SQL_Errno',
        'Last_SQL_Error', 'Gtid_IO_Pos')}))


def wait_io_error(replica, timeout=30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        st = slave_status(replica)
        if st.get('Slave_IO_Running') == 'No' and st.get('Last_IO_Errno'):
            return st
        time.sleep(0.1)
    pytest.fail('the IO thread did not stop with an error: %s' % slave_status(replica))


def binlog_files(c):
    return [r[0] for r in run(c, 'SHOW BINARY LOGS')]


# ---- the text of logged statements -------------------------------------------------------------------------

# (statement(s) sent in one COM_QUERY, the texts logged for them: what MariaDB 10.11 logs)
TEXT_CASES = [
    ("CREATE TABLE t1 (a INT) /*! ENGINE = innodb */", ["CREATE TABLE t1 (a INT) /*! ENGINE = innodb */"]),
    ("CREATE TABLE t2 (a INT) /*!40101 ENGINE=InnoDB */; CREATE TABLE t3 (a INT) -- trailing\n",
     ["CREATE TABLE t2 (a INT) /*!40101 ENGINE=InnoDB */", "CREATE TABLE t3 (a INT) -- trailing"]),
    ("  /* lead */ CREATE TABLE t4 (a INT) # hash", ["/* lead */ CREATE TABLE t4 (a INT) # hash"]),
    ("CREATE TABLE t5 (a INT);   \n  ", ["CREATE TABLE t5 (a INT)"]),
    ("CREATE TABLE t6 (a INT) /*M!100100 ENGINE=InnoDB */ ;  /* c2 */ CREATE TABLE t7 (a INT) ; ",
     ["CREATE TABLE t6 (a INT) /*M!100100 ENGINE=InnoDB */ ", "/* c2 */ CREATE TABLE t7 (a INT)"]),
    ("/*!40101 CREATE TABLE t8 (a INT) */", ["/*!40101 CREATE TABLE t8 (a INT) */"]),
    ("CREATE TABLE t9 (a INT); -- only a comment after", ["CREATE TABLE t9 (a INT)"]),
    ("CREATE TABLE t10 (a INT) /* plain */;", ["CREATE TABLE t10 (a INT) /* plain */"]),
    ("ALTER TABLE t3 ADD b INT /*!50000 , ADD c INT */", ["ALTER TABLE t3 ADD b INT /*!50000 , ADD c INT */"]),
    ("CREATE USER 'u1'@'%' IDENTIFIED BY 'pw' /* c */", ["CREATE USER 'u1'@'%' IDENTIFIED BY 'pw' /* c */"]),
    ("GRANT SELECT ON bt.* TO 'u1'@'%' -- g", ["GRANT SELECT ON bt.* TO 'u1'@'%' -- g"]),
    ("INSERT INTO t3 VALUES (1, 2, 3) /* ins */", ["INSERT INTO t3 VALUES (1, 2, 3) /* ins */"]),
]


def logged_texts(c, file, pos):
    out = []
    for r in run(c, "SHOW BINLOG EVENTS IN '%s' FROM %d" % (file, pos)):
        if r[2] in ('Query', 'Annotate_rows') and r[5] not in ('BEGIN', 'COMMIT'):
            out.append(r[5][len('use `bt`; '):] if r[5].startswith('use `bt`; ') else r[5])
    return out


@pytest.mark.fresh_opts(start=False)
def test_logged_text_is_the_statement_through_its_last_byte(fresh_target):
    from pymysql.constants import CLIENT
    start_primary(fresh_target)
    c = fresh_target.connect(client_flag=CLIENT.MULTI_STATEMENTS)
    run(c, 'CREATE DATABASE bt')
    run(c, 'USE bt')
    for sql, want in TEXT_CASES:
        f, p = run(c, 'SHOW MASTER STATUS')[0][:2]
        with c.cursor() as cur:
            cur.execute(sql)
            while cur.nextset():
                pass
        assert logged_texts(c, f, int(p)) == want, sql
    c.close()


@pytest.mark.only('strata')
def test_processlist_info_is_the_running_statement(strata):
    """SHOW PROCESSLIST's Info of a multi-statement text is the statement running, as MariaDB shows it."""
    import threading
    from pymysql.constants import CLIENT
    c = strata.connect(client_flag=CLIENT.MULTI_STATEMENTS)

    def go():
        with c.cursor() as cur:
            cur.execute("  /* x */ SELECT 1 ; SELECT SLEEP(1.5) /* y */ ;  \n")
            while cur.nextset():
                pass
    t = threading.Thread(target=go)
    t.start()
    try:
        time.sleep(0.7)
        infos = [r[7] for r in run(strata.connect(), 'SHOW PROCESSLIST') if r[7] and 'SLEEP' in r[7]]
    finally:
        t.join()
    c.close()
    assert infos == ['SELECT SLEEP(1.5) /* y */'], infos


# Tables (or their rows) whose difference is not the binlog's: (what is not compared, why).
NOT_COMPARED = {
    ('sqldiff_dump_restore', 'dflt'): ('rows', 'ALTER TABLE ADD COLUMN u2 ... DEFAULT (UUID()) fills the existing '
                                               'rows with UUIDs of each server, as from a MariaDB primary'),
}


def table_contents(c, db):
    """Every table of db: its columns (what SHOW CREATE TABLE says of them) and all its rows, sorted."""
    out = {}
    for (name,) in run(c, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND "
                          "TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", (db,)):
        skip = NOT_COMPARED.get((db, name), ('',))[0]
        if skip == 'table':
            continue
        cols = run(c, "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, COLLATION_NAME, EXTRA "
                      "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
                      "ORDER BY ORDINAL_POSITION", (db, name))
        rows = [] if skip == 'rows' else run(c, 'SELECT * FROM `%s`.`%s`' % (db, name.replace('`', '``')))
        out[name] = (cols, sorted(rows, key=repr))
    return out


@pytest.mark.only('strata')
def test_differential_suite_replays_through_a_mariadb_replica(fresh_strata, fresh_mariadb):
    """Every statement of tests/sql/*.sql, each file in its database as test_sql_diff runs it, on strata with a
    MariaDB replica attached: the replica re-parses every logged text and ends with the same tables."""
    primary, rep = fresh_strata, fresh_mariadb
    start_primary(primary)
    rep.start(['--server-id=2'])
    r = rep.connect()
    attach(r, primary)
    dbs = []
    for path in FILES:
        db = 'sqldiff_' + os.path.basename(path)[:-4]
        dbs.append(db)
        c = rawclient.RawClient.connect(port=primary.port)
        c.query('CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci' % db)
        c.query('USE `%s`' % db)
        for st in parse_file(path):
            try:
                c.query_results(st.text)
            except (rawclient.ServerError, rawclient.ProtocolError):
                pass  # a failed statement is not logged
        c.close()
    p = primary.connect()
    st = wait_caught_up(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0], timeout=120)
    assert st['Last_SQL_Errno'] == 0 and st['Last_IO_Errno'] == 0, st
    for db in dbs:
        have, want = table_contents(r, db), table_contents(p, db)
        assert sorted(have) == sorted(want), db
        for name in want:
            assert have[name][0] == want[name][0], (db, name, 'columns')
            assert have[name][1] == want[name][1], (db, name, 'rows')


@pytest.mark.only('strata')
def test_sysbench_prepare_reaches_a_mariadb_replica(fresh_strata, fresh_mariadb):
    """sysbench's prepare logs CREATE TABLE ... /*! ENGINE = innodb */ and CREATE INDEX: the replica applies both
    and the rows."""
    if not shutil.which('sysbench'):
        pytest.skip('sysbench not installed')
    primary, rep = fresh_strata, fresh_mariadb
    p = start_primary(primary)
    run(p, 'CREATE DATABASE sbtest')
    rep.start(['--server-id=2'])
    r = rep.connect()
    attach(r, primary)
    cmd = ['sysbench', 'oltp_read_write', '--db-driver=mysql', '--mysql-user=root', '--mysql-password=',
           '--mysql-host=127.0.0.1', '--mysql-port=%d' % primary.port, '--mysql-db=sbtest', '--tables=2',
           '--table-size=500', 'prepare']
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (out.stdout + out.stderr)[-2000:]
    st = wait_caught_up(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    assert st['Last_SQL_Errno'] == 0, st
    for t in ('sbtest1', 'sbtest2'):
        assert run(r, 'SELECT COUNT(*), SUM(k), SUM(CRC32(c)) FROM sbtest.%s' % t) == \
            run(p, 'SELECT COUNT(*), SUM(k), SUM(CRC32(c)) FROM sbtest.%s' % t)
    assert table_contents(r, 'sbtest') == table_contents(p, 'sbtest')


@pytest.mark.only('strata')
def test_statements_logged_other_than_as_sent_reach_a_mariadb_replica(fresh_strata, fresh_mariadb):
    """DROP TABLE of a TEMPORARY and a real table logs the real one only; CREATE TABLE ... SELECT (into another
    database too) logs the new table's definition, then its rows; a multi-table UPDATE maps both tables first."""
    primary, rep = fresh_strata, fresh_mariadb
    p = start_primary(primary)
    rep.start(['--server-id=2'])
    r = rep.connect()
    attach(r, primary)
    run(p, 'CREATE DATABASE d1')
    run(p, 'CREATE DATABASE d2')
    run(p, 'USE d1')
    run(p, 'CREATE TABLE real1 (a INT PRIMARY KEY, b VARCHAR(10))')
    run(p, "INSERT INTO real1 VALUES (1, 'x'), (2, 'y')")
    run(p, 'CREATE TEMPORARY TABLE tmp1 (a INT)')
    run(p, 'CREATE TABLE keep1 (a INT)')
    run(p, 'CREATE TABLE gone1 (a INT)')
    run(p, 'DROP TABLE gone1, tmp1')
    run(p, 'CREATE TABLE d2.copy1 AS SELECT a, b FROM real1')
    run(p, 'CREATE TABLE IF NOT EXISTS copy2 SELECT a * 10 AS a FROM real1 WHERE a > 1')
    run(p, "UPDATE real1 JOIN d2.copy1 ON real1.a = copy1.a SET real1.b = 'u', copy1.b = 'v'")
    st = wait_caught_up(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    assert st['Last_SQL_Errno'] == 0, st
    for db in ('d1', 'd2'):
        assert table_contents(r, db) == table_contents(p, db), db
    assert sorted(table_contents(r, 'd1')) == ['copy2', 'keep1', 'real1']


# ---- a new replica gets the whole history ------------------------------------------------------------------

def history_opts(kind):
    if kind == 'strata':  # every closed file but the newest compressed
        return ['--max-binlog-size=8192', '--strata-binlog-compress=ON', '--strata-binlog-compress-after-files=1']
    return ['--max-binlog-size=8192']


@pytest.mark.fresh_opts(start=False)
def test_new_replica_gets_every_file_then_1236_once_purged(fresh_target, fresh_mariadb):
    primary, rep = fresh_target, fresh_mariadb
    p = start_primary(primary, *history_opts(primary.kind))
    run(p, 'CREATE DATABASE rr')
    run(p, 'CREATE TABLE rr.t (id INT PRIMARY KEY, v VARCHAR(64))')
    for b in range(26):
        run(p, 'INSERT INTO rr.t VALUES ' + ','.join("(%d, 'row %d of the history, padded to some length')"
                                                     % (b * 100 + i, b * 100 + i) for i in range(100)))
    run(p, "UPDATE rr.t SET v = 'updated' WHERE id % 7 = 0")
    files = binlog_files(p)
    assert len(files) >= 5, files
    if primary.kind == 'strata':
        t0 = time.time()
        while sum(1 for row in run(p, 'SHOW BINARY LOGS') if row[2] == 'Yes') < 2 and time.time() - t0 < 30:
            time.sleep(0.2)
        assert sum(1 for row in run(p, 'SHOW BINARY LOGS') if row[2] == 'Yes') >= 2, run(p, 'SHOW BINARY LOGS')
    want_pos = run(p, 'SELECT @@gtid_binlog_pos')[0][0]
    want_rows = run(p, 'SELECT * FROM rr.t ORDER BY id')
    rep.start(['--server-id=2'])
    r = rep.connect()
    attach(r, primary)  # a new replica: empty gtid_slave_pos
    st = wait_caught_up(r, want_pos)
    assert run(r, 'SELECT * FROM rr.t ORDER BY id') == want_rows
    assert len(want_rows) == 2600
    assert st['Gtid_IO_Pos'] == want_pos, st
    # by file and position from the first file: the same history
    detach(r)
    run(r, 'DROP DATABASE rr')
    run(r, "DROP USER '%s'@'%%'" % REPL_USER)  # the history starts with it
    attach(r, primary, log_file=files[0])
    st = wait_caught_up(r, want_pos)
    assert run(r, 'SELECT * FROM rr.t ORDER BY id') == want_rows
    # the first files purged: a new replica cannot get the history and is told so
    run(p, "PURGE BINARY LOGS TO '%s'" % files[2])
    for how in ('gtid', 'file'):
        detach(r)
        run(r, 'DROP DATABASE IF EXISTS rr')
        attach(r, primary, log_file=files[0] if how == 'file' else None)
        st = wait_io_error(r)
        assert st['Last_IO_Errno'] == 1236, st
        if how == 'gtid':
            assert 'Could not find GTID state requested by slave in any binlog files' in st['Last_IO_Error'], st
        else:
            assert 'Could not find first log file name in binary log index file' in st['Last_IO_Error'], st
    detach(r)


def dump(port, state=None, file=b'', pos=4):
    """A non-blocking binlog dump: ('err', code, message) or ('ok', [the GTIDs' sequence numbers sent])."""
    cl = rawclient.RawClient.connect(port=port)
    cl.query("SET @master_binlog_checksum = 'CRC32'")
    cl.query('SET @mariadb_slave_capability = 4')
    if state is not None:
        cl.query("SET @slave_connect_state = '%s'" % state)
    cl.command(0x12, struct.pack('<IHI', pos, 1, 2) + file)
    seqs = []
    try:
        while True:
            pk = cl.read_packet()
            if pk[0] == 0xff:
                e = cl.parse_err(pk)
                return ('err', e.code, e.message)
            if pk[0] == 0xfe and len(pk) < 9:
                return ('ok', seqs)
            if pk[5] == 162:  # GTID: seq (8), domain (4), flags
                seqs.append(struct.unpack('<Q', pk[20:28])[0])
    finally:
        cl.close()


NOT_IN = "Error: connecting slave requested to start from GTID %s, which is not in the master's binlog"
DIVERGED = NOT_IN + (". Since the master's binlog contains GTIDs with higher sequence numbers, it probably means "
                     "that the slave has diverged due to executing extra erroneous transactions")
PURGED = ("Could not find GTID state requested by slave in any binlog files. Probably the slave state is too old "
          "and required binlog files have been purged.")


@pytest.mark.fresh_opts(start=False)
def test_dump_start_positions_as_mariadb(fresh_target):
    s = fresh_target
    p = start_primary(s)
    run(p, 'CREATE DATABASE hx')
    run(p, 'CREATE TABLE hx.h (a INT PRIMARY KEY)')
    run(p, 'INSERT INTO hx.h VALUES (1), (2)')
    run(p, 'FLUSH BINARY LOGS')
    run(p, 'INSERT INTO hx.h VALUES (3)')
    run(p, 'FLUSH BINARY LOGS')
    run(p, 'INSERT INTO hx.h VALUES (4)')
    n = int(run(p, 'SELECT @@gtid_binlog_pos')[0][0].split('-')[2])
    files = binlog_files(p)
    first = files[0].encode()
    size0 = int(run(p, 'SHOW BINARY LOGS')[0][1])
    every = list(range(1, n + 1))
    assert dump(s.port, '') == ('ok', every)                       # a new replica: from the first file
    assert dump(s.port, '0-1-2') == ('ok', every[2:])
    assert dump(s.port, '0-1-%d' % n) == ('ok', [])
    assert dump(s.port, '0-1-%d' % (n + 5)) == ('err', 1236, NOT_IN % ('0-1-%d' % (n + 5)))
    assert dump(s.port, '0-2-1') == ('err', 1236, DIVERGED % '0-2-1')   # a server this domain never had
    assert dump(s.port, '7-1-5') == ('ok', every)                  # a domain we never had: another primary's
    assert dump(s.port, '0-1-2,7-1-5') == ('ok', every[2:])
    assert dump(s.port, 'no-such-gtid')[:2] == ('err', 1941)
    assert dump(s.port, None) == ('ok', every)                     # file/position: the first file
    assert dump(s.port, None, first) == ('ok', every)
    assert dump(s.port, None, first, size0 + 1000) == ('err', 1236, (
        "Client requested master to start replication from impossible position; the first event '%s' at %d, "
        "the last event read from '%s' at 4, the last byte read from '%s' at 4." % (files[0], size0 + 1000,
                                                                                files[0], files[0])))
    assert dump(s.port, None, b'nosuch.000099') == ('err', 1236,
                                                    'Could not find first log file name in binary log index file')
    run(p, "PURGE BINARY LOGS TO '%s'" % files[-2])
    assert dump(s.port, '') == ('err', 1236, PURGED)
    assert dump(s.port, '0-1-1') == ('err', 1236, PURGED)
    assert dump(s.port, '7-1-1') == ('err', 1236, PURGED)
    assert dump(s.port, '0-1-%d' % (n - 1)) == ('ok', [n])
    assert dump(s.port, None, first) == ('err', 1236, 'Could not find first log file name in binary log index file')
