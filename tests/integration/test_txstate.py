"""Transaction state in the protocol, against MariaDB: the server-status word of every OK / EOF packet
(SERVER_STATUS_IN_TRANS, _IN_TRANS_READONLY, _AUTOCOMMIT and the other bits), @@in_transaction, and the
session tracker's transaction state and characteristics (session_track_transaction_info = STATE |
CHARACTERISTICS).

The differential tests run one script of steps on strata and on MariaDB through the raw client, record every
OK / EOF / ERR each step gets, and compare the two lists whole.  The status word is compared bit for bit except
SERVER_SESSION_STATE_CHANGED (0x4000) in packets that carry no tracker entry: MariaDB raises it in the EOF of a
result set whose statement touched its transaction tracker, and in an OK whose tracker found nothing new to say
(COMMIT AND CHAIN), where no client can read anything from it (DIFFERENCES in conftest.py).
"""
import os
import shutil
import struct
import subprocess
import threading
import time

import pytest

import rawclient
from rawclient import RawClient, Reader, ServerError

STATE_CHANGED = rawclient.SERVER_SESSION_STATE_CHANGED
CAPS = rawclient.DEFAULT_CAPS | rawclient.CLIENT_SESSION_TRACK
IN_TRANS, AUTOCOMMIT, IN_TRANS_READONLY = 0x0001, 0x0002, 0x2000


def ok_entries(ok):
    return [(t, bytes(d)) for t, d in ok.session_state]


def ok_record(tag, ok):
    st = ok.status
    entries = ok_entries(ok)
    if not entries:
        st &= ~STATE_CHANGED
    return (tag, hex(st), ok.affected_rows, entries)


def read_answer(c, binary=False):
    """Every packet of one command's answer that carries a status (OK, both EOFs) or an error, in order."""
    out = []
    while True:
        p = c.read_packet()
        if p[0] == 0xff:
            out.append(('ERR', c.parse_err(p).code))
            return out
        if p[0] == 0x00:
            ok = rawclient.OK(p, c.caps)
            out.append(ok_record('OK', ok))
            if not ok.status & rawclient.SERVER_MORE_RESULTS_EXISTS:
                return out
            continue
        ncols = Reader(p).lenenc()
        cols = [rawclient.Column(c.read_packet()) for _ in range(ncols)]
        if not c.caps & rawclient.CLIENT_DEPRECATE_EOF:
            r = Reader(c.read_packet())
            r.u8()
            r.u16()
            out.append(('EOF-columns', hex(r.u16() & ~STATE_CHANGED)))
        rows = []
        while True:
            p = c.read_packet()
            if p[0] == 0xff:
                out.append(('ERR', c.parse_err(p).code))
                return out
            if p[0] == 0xfe and len(p) < 0xffffff and (len(p) < 9 or c.caps & rawclient.CLIENT_DEPRECATE_EOF):
                break
            rows.append(c.parse_binary_row(p, cols) if binary else c.parse_text_row(p, ncols))
        if c.caps & rawclient.CLIENT_DEPRECATE_EOF:
            ok = rawclient.OK(p, c.caps)
            st = ok.status
            out.append(('END-OK', hex(st & ~STATE_CHANGED), rows, ok_entries(ok)))
        else:
            r = Reader(p)
            r.u8()
            r.u16()
            st = r.u16()
            out.append(('EOF', hex(st & ~STATE_CHANGED), rows))
        if not st & rawclient.SERVER_MORE_RESULTS_EXISTS:
            return out


def wait_running(o, c, prefix):
    """Waits (asking on connection o) until connection c runs a statement that starts with prefix."""
    deadline = time.time() + 20
    while time.time() < deadline:
        _, rows = o.query("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %d AND INFO LIKE '%s%%'"
                          % (c.connection_id, prefix))
        if rows[0][0] == b'1':
            return
        time.sleep(0.05)
    raise AssertionError('connection %d never ran %s' % (c.connection_id, prefix))


def run_script(server, steps, caps=CAPS):
    """Runs steps on server; returns [(step, answer)].  A step is a SQL text (COM_QUERY on the main
    connection) or a tuple: ('ps', sql, params) prepare + execute (binary protocol), ('other', sql) on a second
    connection, ('reset',) COM_RESET_CONNECTION, ('change_user',), ('ping',), ('init_db', db),
    ('kill_query', sql) sends sql and KILL QUERY from the second connection once it runs,
    ('deadlock', sql_main, sql_other) sends sql_main (which waits for a lock the other connection holds), then
    sql_other on the other connection (closing the cycle): both answers, in that order."""
    c = RawClient.connect(port=server.port, caps=caps)
    o = RawClient.connect(port=server.port, caps=caps)
    out = []
    try:
        for step in steps:
            if isinstance(step, str):
                c.command(rawclient.COM_QUERY, step.encode())
                out.append((step, read_answer(c)))
                continue
            kind = step[0]
            if kind == 'ps':
                c.command(rawclient.COM_STMT_PREPARE, step[1].encode())
                p = c.read_packet()
                if p[0] == 0xff:
                    out.append((step, [('ERR', c.parse_err(p).code)]))
                    continue
                r = Reader(p)
                r.u8()
                st = rawclient.Stmt()
                st.id = r.u32()
                ncols, nparams = r.u16(), r.u16()
                st.params = [rawclient.Column(c.read_packet()) for _ in range(nparams)]
                prep = []
                if nparams and not c.caps & rawclient.CLIENT_DEPRECATE_EOF:
                    e = Reader(c.read_packet())
                    e.u8()
                    e.u16()
                    prep.append(('EOF-params', hex(e.u16() & ~STATE_CHANGED)))
                st.columns = [rawclient.Column(c.read_packet()) for _ in range(ncols)]
                if ncols and not c.caps & rawclient.CLIENT_DEPRECATE_EOF:
                    e = Reader(c.read_packet())
                    e.u8()
                    e.u16()
                    prep.append(('EOF-prepare-columns', hex(e.u16() & ~STATE_CHANGED)))
                body = struct.pack('<IBI', st.id, 0, 1)
                if nparams:
                    params = step[2]
                    tbytes = vbytes = b''
                    for v in params:
                        t, enc = rawclient.encode_param(None, v)
                        tbytes += struct.pack('<BB', t & 0xff, 0)
                        vbytes += enc
                    body += bytes((nparams + 7) // 8) + b'\x01' + tbytes + vbytes
                c.command(rawclient.COM_STMT_EXECUTE, body)
                out.append((step, prep + read_answer(c, binary=True)))
                c.stmt_close(st)
            elif kind == 'other':
                o.command(rawclient.COM_QUERY, step[1].encode())
                out.append((step, read_answer(o)))
            elif kind == 'reset':
                out.append((step, [ok_record('OK', c.simple(rawclient.COM_RESET_CONNECTION))]))
            elif kind == 'ping':
                out.append((step, [ok_record('OK', c.ping())]))
            elif kind == 'init_db':
                out.append((step, [ok_record('OK', c.init_db(step[1]))]))
            elif kind == 'change_user':
                c.change_user('root', '')
                out.append((step, [ok_record('OK', c.ok_packet)]))
            elif kind == 'kill_query':
                c.command(rawclient.COM_QUERY, step[1].encode())
                wait_running(o, c, 'SELECT SLEEP')
                o.query('KILL QUERY %d' % c.connection_id)
                # the ERR alone: MariaDB sends SLEEP's column definitions before it is interrupted, strata not
                out.append((step, read_answer(c)[-1:]))
            elif kind == 'deadlock':
                c.command(rawclient.COM_QUERY, step[1].encode())
                wait_running(o, c, 'UPDATE')  # the main connection waits for the row lock
                time.sleep(0.3)
                res = {}
                t = threading.Thread(target=lambda: res.setdefault('main', read_answer(c)))
                t.start()
                o.command(rawclient.COM_QUERY, step[2].encode())
                other = read_answer(o)
                t.join(30)
                out.append((step, sorted([res.get('main'), other], key=repr)))
            else:
                raise AssertionError('unknown step %r' % (step,))
    finally:
        for x in (c, o):
            try:
                x.quit()
            except OSError:
                pass
    return out


def compare(strata, mariadb, steps, caps=CAPS, first=()):
    """Runs first, a fresh database txs with table t, steps, and a cleanup on both servers; every answer but
    the cleanup's must be the same."""
    # the table is made on the other connection: MariaDB's tracker keeps what autocommit statements did and
    # reports it at the next transaction (a stale 'W'), which strata does not copy
    setup = list(first) + [('other', q) for q in ('DROP DATABASE IF EXISTS txs', 'CREATE DATABASE txs', 'USE txs',
                                                  'CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB',
                                                  'INSERT INTO t VALUES (1, 1), (2, 2)')] + ['USE txs']
    cleanup = ['SET autocommit=1', 'DROP DATABASE IF EXISTS txs']
    full = setup + steps + cleanup
    got = run_script(strata, full, caps)[:-len(cleanup)]
    want = run_script(mariadb, full, caps)[:-len(cleanup)]
    diffs = ['%r\n    strata:  %r\n    mariadb: %r' % (s[0], s[1], m[1]) for s, m in zip(got, want) if s != m]
    assert not diffs, '%d of %d steps differ:\n%s' % (len(diffs), len(got), '\n'.join(diffs))


def need_both(request):
    if request.config.getoption('target') != 'both':
        pytest.skip('needs both servers')


AUTOCOMMIT_OFF = [
    'SET autocommit=0',
    'SELECT 1',                      # no table: no transaction yet
    'SET @x = 1',
    'DO 1',
    'SHOW VARIABLES LIKE \'autocommit\'',
    'SELECT @@in_transaction',
    'DELETE FROM t WHERE a = 1',     # registers the transaction: IN_TRANS from this OK on
    'SELECT @@in_transaction',
    'SELECT 1',
    'ROLLBACK',
    'SELECT COUNT(*) FROM t',        # a read registers one too
    'SELECT @@in_transaction',
    'COMMIT',
    'SELECT * FROM nosuch',          # fails before it opens a table: none
    'SELECT 1',
    'INSERT INTO t VALUES (1, 1)',   # fails at its first row, after the table was opened: the transaction stays
    'SELECT @@in_transaction',
    'ROLLBACK',
    'INSERT INTO t VALUES (3, 3)',
    'SET autocommit=1',              # commits
    'SELECT COUNT(*) FROM t',
    'SET autocommit=1',
]

EXPLICIT = [
    'BEGIN',
    'SELECT 1',
    'SELECT * FROM t WHERE a = 1',
    'INSERT INTO t VALUES (4, 4)',
    'SAVEPOINT s1',
    'UPDATE t SET b = 40 WHERE a = 4',
    'ROLLBACK TO SAVEPOINT s1',
    'RELEASE SAVEPOINT s1',
    'SELECT b FROM t WHERE a = 4',
    'INSERT INTO t VALUES (1, 1)',   # 1062 inside the transaction: the statement alone is undone
    'SELECT @@in_transaction',
    'CREATE TABLE u (a INT)',        # DDL commits
    'SELECT @@in_transaction',
    'DROP TABLE u',
    'BEGIN',
    'INSERT INTO t VALUES (5, 5)',
    'SET autocommit=1',              # already 1: nothing is committed
    'SELECT @@in_transaction',
    'SET autocommit=0',
    'SET autocommit=1',              # 0 -> 1 inside the transaction: commits
    'SELECT @@in_transaction',
    'BEGIN',
    'INSERT INTO t VALUES (6, 6)',
    'LOCK TABLES t READ',            # commits
    'SELECT @@in_transaction',
    'UNLOCK TABLES',
    'START TRANSACTION READ ONLY',
    'SELECT COUNT(*) FROM t',
    'INSERT INTO t VALUES (7, 7)',   # 1792
    'COMMIT',
    'START TRANSACTION READ WRITE',
    'UPDATE t SET b = b + 1 WHERE a = 2',
    'COMMIT AND CHAIN',
    'SELECT @@in_transaction',
    'ROLLBACK AND CHAIN',
    'ROLLBACK',
    'START TRANSACTION WITH CONSISTENT SNAPSHOT',
    'SELECT COUNT(*) FROM t',
    'COMMIT',
    'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
    'COMMIT',
    'SET TRANSACTION READ ONLY',     # the next transaction only
    'BEGIN',
    'SET TRANSACTION READ WRITE',    # 1568 inside a transaction
    'UPDATE t SET b = 0',            # 1792
    'COMMIT',
    'BEGIN',                         # read write again
    'UPDATE t SET b = 0 WHERE a = 99',
    'COMMIT',
    'SET SESSION TRANSACTION READ ONLY',
    'SELECT @@tx_read_only',
    'INSERT INTO t VALUES (8, 8)',   # 1792 in an autocommit statement too
    'BEGIN',
    'COMMIT',
    'SET SESSION TRANSACTION READ WRITE',
    'SET TRANSACTION READ ONLY',
    'SET autocommit=0',
    'SELECT * FROM t WHERE a = 1',   # the implicit transaction is READ ONLY
    'DELETE FROM t WHERE a = 1',
    'COMMIT',
    'DELETE FROM t WHERE a = 99',    # and the one after it is not
    'COMMIT',
    'SET autocommit=1',
    'SET TRANSACTION READ ONLY',     # an autocommit statement is the next transaction too
    'INSERT INTO t VALUES (9, 9)',
    'INSERT INTO t VALUES (9, 9)',
    'DELETE FROM t WHERE a = 9',
    'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',  # the next transaction reads committed rows
    'BEGIN',
    'SELECT b FROM t WHERE a = 2',
    ('other', 'UPDATE t SET b = 200 WHERE a = 2'),
    'SELECT b FROM t WHERE a = 2',
    'COMMIT',
    'BEGIN',                         # and the one after it is REPEATABLE READ again
    'SELECT b FROM t WHERE a = 2',
    ('other', 'UPDATE t SET b = 300 WHERE a = 2'),
    'SELECT b FROM t WHERE a = 2',
    'COMMIT',
]

OTHER_BITS = [
    'SELECT * FROM t',               # full scan: SERVER_QUERY_NO_INDEX_USED
    'SELECT * FROM t WHERE a = 1',
    'SELECT * FROM t WHERE b = 1',
    'DELETE FROM t WHERE b = 99',
    'UPDATE t SET b = 9 WHERE a = 99',
    'SHOW TABLES',
    'SHOW DATABASES LIKE \'txs\'',
    'SELECT * FROM t; SELECT 2; BEGIN; SELECT 3; COMMIT',  # SERVER_MORE_RESULTS_EXISTS in every packet
    'SELECT 1; SELECT * FROM nosuch; SELECT 2',
    'SET sql_mode = \'NO_BACKSLASH_ESCAPES\'',
    'SELECT 1',
    'SET sql_mode = DEFAULT',
    'CREATE DATABASE txs2',
    'USE txs2',
    'DROP DATABASE txs2',            # of the current database: SERVER_STATUS_DB_DROPPED
    'SELECT 1',
    ('init_db', 'txs'),
    ('ping',),
]

PROTOCOL = [
    ('ps', 'SELECT ?', [1]),
    'SET autocommit=0',
    ('ps', 'SELECT 1', []),
    ('ps', 'SELECT b FROM t WHERE a = ?', [1]),
    ('ping',),
    'ROLLBACK',
    ('ps', 'DELETE FROM t WHERE a = ?', [1]),
    'SELECT @@in_transaction',
    ('reset',),                      # rolls back, autocommit back on
    'SELECT COUNT(*) FROM txs.t',
    'USE txs',
    'BEGIN',
    ('ps', 'INSERT INTO t VALUES (?, ?)', [10, 10]),
    ('change_user',),                # rolls back too
    'SELECT COUNT(*) FROM txs.t WHERE a = 10',
    'USE txs',
]

LOCKS = [
    'SET innodb_lock_wait_timeout = 1',
    ('other', 'BEGIN'),
    ('other', 'UPDATE t SET b = 10 WHERE a = 1'),
    'BEGIN',
    'UPDATE t SET b = 20 WHERE a = 2',
    'UPDATE t SET b = 11 WHERE a = 1',   # 1205: the statement alone is rolled back
    'SELECT @@in_transaction',
    'ROLLBACK',
    ('other', 'ROLLBACK'),
    'BEGIN',
    'SELECT SLEEP(0)',
    ('kill_query', 'SELECT SLEEP(20)'),  # 1317: the transaction stays
    'SELECT @@in_transaction',
    'ROLLBACK',
    'SET innodb_lock_wait_timeout = 20',
    ('other', 'BEGIN'),
    ('other', 'UPDATE t SET b = 10 WHERE a = 1'),
    'BEGIN',
    'UPDATE t SET b = 20 WHERE a = 2',
    ('deadlock', 'UPDATE t SET b = 11 WHERE a = 1', 'UPDATE t SET b = 21 WHERE a = 2'),
    'SELECT @@in_transaction',           # the victim's transaction is rolled back whole, the other one stays
    ('other', 'SELECT @@in_transaction'),
    'ROLLBACK',
    ('other', 'ROLLBACK'),
]


def tracking(mode):
    return ['SET session_track_transaction_info = %s' % mode]


SCRIPTS = {'autocommit_off': AUTOCOMMIT_OFF, 'explicit': EXPLICIT, 'other_bits': OTHER_BITS,
           'binary_reset_change_user': PROTOCOL, 'lock_wait_kill_deadlock': LOCKS}


@pytest.mark.parametrize('script', sorted(SCRIPTS))
def test_status_word(request, strata, mariadb, script):
    need_both(request)
    compare(strata, mariadb, SCRIPTS[script])


@pytest.mark.parametrize('mode', ['STATE', 'CHARACTERISTICS'])
def test_track_transaction_info(request, strata, mariadb, mode):
    need_both(request)
    compare(strata, mariadb, AUTOCOMMIT_OFF + EXPLICIT + [
        'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
        'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE',
        'SELECT * FROM t WHERE a = 1',      # ends the one-shot characteristics
        'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY',
        'START TRANSACTION',
        'SELECT 1',
        'COMMIT',
        'SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED',
        'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE',
        'COMMIT',
        'SET session_track_transaction_info = OFF',
        'BEGIN',
        'SET session_track_transaction_info = STATE',
        'SELECT 1',
        'COMMIT',
    ], first=tracking(mode))


def test_deprecate_eof(request, strata, mariadb):
    """The same with CLIENT_DEPRECATE_EOF: the result set ends with an OK packet."""
    need_both(request)
    compare(strata, mariadb, AUTOCOMMIT_OFF + OTHER_BITS[:8], caps=CAPS | rawclient.CLIENT_DEPRECATE_EOF,
            first=tracking('STATE'))


def test_in_transaction_flag(target):
    """What Connector/J's rollback() trusts: after the first DELETE of autocommit=0 the OK says IN_TRANS."""
    c = RawClient.connect(port=target.port)
    try:
        c.query('CREATE DATABASE IF NOT EXISTS txf')
        c.query('CREATE TABLE IF NOT EXISTS txf.t (a INT PRIMARY KEY)')
        c.query('INSERT IGNORE INTO txf.t VALUES (1)')
        c.query('SET autocommit=0')
        assert not c.last.status & (IN_TRANS | AUTOCOMMIT)
        c.query('DELETE FROM txf.t WHERE a = 1')
        assert c.last.status & IN_TRANS and not c.last.status & AUTOCOMMIT
        assert c.query('SELECT @@in_transaction')[1] == [(b'1',)]
        c.query('ROLLBACK')
        assert not c.last.status & IN_TRANS
        c.query('SET autocommit=1')
        assert c.query('SELECT COUNT(*) FROM txf.t')[1] == [(b'1',)]
        c.query('START TRANSACTION READ ONLY')
        assert c.last.status & (IN_TRANS | IN_TRANS_READONLY) == IN_TRANS | IN_TRANS_READONLY
        with pytest.raises(ServerError) as e:
            c.query('DELETE FROM txf.t')
        assert (e.value.code, e.value.sqlstate) == (1792, '25006')
        c.query('COMMIT')
        assert not c.last.status & (IN_TRANS | IN_TRANS_READONLY)
        c.query('DROP DATABASE txf')
    finally:
        c.quit()


JAVA_TEST = r'''
import java.sql.*;

public class TxState {
    static int count(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM txj.t")) {
            r.next();
            return r.getInt(1);
        }
    }

    public static void main(String[] a) throws Exception {
        try (Connection c = DriverManager.getConnection(a[0], "root", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS txj");
                s.execute("CREATE DATABASE txj");
                s.execute("CREATE TABLE txj.t (a INT PRIMARY KEY) ENGINE=InnoDB");
                s.execute("INSERT INTO txj.t VALUES (1), (2)");
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM txj.t WHERE a = 1");
            }
            c.rollback();
            c.setAutoCommit(true);
            if (count(c) != 2) throw new AssertionError("rollback() lost: " + count(c) + " rows");
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("DELETE FROM txj.t WHERE a = ?")) {
                p.setInt(1, 2);
                p.executeUpdate();
            }
            c.rollback();
            c.setAutoCommit(true);
            if (count(c) != 2) throw new AssertionError("prepared rollback() lost: " + count(c) + " rows");
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM txj.t WHERE a = 1");
            }
            c.commit();
            c.setAutoCommit(true);
            if (count(c) != 1) throw new AssertionError("commit() did not commit: " + count(c) + " rows");
            try (Statement s = c.createStatement()) {
                s.execute("DROP DATABASE txj");
            }
        }
        System.out.println("OK");
    }
}
'''


def connector_j_jar():
    for p in ('/usr/share/java/mariadb-java-client.jar',):
        if os.path.exists(p):
            return p
    return None


def test_connector_j_rollback(target, tmp_path):
    """MariaDB Connector/J: setAutoCommit(false), DELETE, rollback(), setAutoCommit(true) keeps the row (its
    rollback() sends nothing when the last OK did not say IN_TRANS); commit() commits."""
    jar = connector_j_jar()
    if not shutil.which('javac') or not shutil.which('java') or not jar:
        pytest.skip('needs javac, java and libmariadb-java (scripts/deps installs them)')
    (tmp_path / 'TxState.java').write_text(JAVA_TEST)
    subprocess.run(['javac', '-cp', jar, '-d', str(tmp_path), str(tmp_path / 'TxState.java')], check=True,
                   capture_output=True, timeout=300)
    url = 'jdbc:mariadb://127.0.0.1:%d/?useServerPrepStmts=false' % target.port
    for u in (url, url.replace('false', 'true')):
        r = subprocess.run(['java', '-cp', '%s:%s' % (jar, tmp_path), 'TxState', u], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0 and r.stdout.strip() == 'OK', (u, r.stdout, r.stderr)
