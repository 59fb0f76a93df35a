"""Protocol commands other than COM_QUERY/COM_STMT_*: COM_PING, COM_INIT_DB, COM_STATISTICS,
COM_RESET_CONNECTION, COM_CHANGE_USER, COM_PROCESS_KILL / KILL, COM_SET_OPTION, COM_QUIT; multi-statements
and multiple results."""
import re
import threading
import time

import MySQLdb
import pymysql
import pytest

import rawclient
from rawclient import RawClient, ServerError


def raw(target, **kw):
    return RawClient.connect(port=target.port, **kw)


def test_ping(target):
    c = raw(target)
    ok = c.ping()
    assert ok.affected_rows == 0 and ok.status & rawclient.SERVER_STATUS_AUTOCOMMIT
    assert c.last_seq == 1  # the answer to a command is sequence 1
    c.close()
    p = target.connect()
    p.ping(reconnect=False)
    p.close()
    m = MySQLdb.connect(host=target.host, port=target.port, user='root')
    m.ping()
    m.close()


def test_ping_counts_no_question(target):
    """COM_PING is not a statement: Questions counts only statements (MariaDB: COM_QUERY and friends)."""
    c = raw(target)
    q = lambda: int(c.query("SHOW SESSION STATUS LIKE 'Questions'")[1][0][1])
    a = q()
    for _ in range(5):
        c.ping()
    b = q()
    assert b - a == 1  # only the SHOW itself
    c.close()


def test_init_db(target):
    c = raw(target)
    assert c.query('SELECT DATABASE()')[1] == [(None,)]
    c.init_db('information_schema')
    assert c.query('SELECT DATABASE()')[1] == [(b'information_schema',)]
    with pytest.raises(ServerError) as ei:
        c.init_db('no_such_db_zz')
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1049, '42000', "Unknown database 'no_such_db_zz'")
    assert c.query('SELECT DATABASE()')[1] == [(b'information_schema',)]  # unchanged after the error
    c.close()
    p = target.connect()
    p.select_db('information_schema')
    with p.cursor() as cur:
        cur.execute('SELECT DATABASE()')
        assert cur.fetchone() == ('information_schema',)
    p.close()


def test_connect_with_db(target):
    c = raw(target, db='information_schema')
    assert c.query('SELECT DATABASE()')[1] == [(b'information_schema',)]
    c.close()
    with pytest.raises(ServerError) as ei:
        raw(target, db='no_such_db_zz')
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1049, '42000', "Unknown database 'no_such_db_zz'")


def test_use_statement(target):
    c = raw(target)
    c.query('USE information_schema')
    assert c.query('SELECT DATABASE()')[1] == [(b'information_schema',)]
    with pytest.raises(ServerError) as ei:
        c.query('USE no_such_db_zz')
    assert ei.value.code == 1049
    c.close()


STAT_RE = re.compile(r'^Uptime: (\d+)  Threads: (\d+)  Questions: (\d+)  Slow queries: (\d+)  Opens: (\d+)  '
                     r'Open tables: (\d+)  Queries per second avg: (\d+\.\d{3})$')


def test_statistics(target):
    m = MySQLdb.connect(host=target.host, port=target.port, user='root')
    s = m.stat()
    mo = STAT_RE.match(s)
    assert mo, s
    assert int(mo.group(2)) >= 1
    m.close()
    c = raw(target)
    s2 = c.statistics()
    assert STAT_RE.match(s2), s2
    assert c.last_seq == 1
    c.ping()  # still in sync afterwards
    c.close()


def test_reset_connection(target):
    c = raw(target)
    cid = c.query('SELECT CONNECTION_ID()')[1][0][0]
    c.query('SET @u = 42')
    c.query("SET SESSION sql_mode = 'ANSI'")
    c.query('SET SESSION max_error_count = 7')
    c.query('SELECT 1/0')
    st = c.prepare('SELECT ?')
    c.init_db('information_schema')
    c.simple(rawclient.COM_RESET_CONNECTION)
    assert c.query('SELECT CONNECTION_ID()')[1][0][0] == cid
    assert c.query('SELECT @u')[1] == [(None,)]
    glob = c.query('SELECT @@GLOBAL.sql_mode, @@SESSION.sql_mode')[1][0]
    assert glob[0] == glob[1]
    assert c.query('SELECT @@max_error_count')[1] == [(b'64',)]
    assert c.query('SHOW COUNT(*) WARNINGS')[1] == [(b'0',)]
    with pytest.raises(ServerError) as ei:
        c.execute(st, [1])
    assert ei.value.code == 1243  # ER_UNKNOWN_STMT_HANDLER: reset closed the statement
    # MySQL keeps the current database across COM_RESET_CONNECTION
    assert c.query('SELECT DATABASE()')[1] == [(b'information_schema',)]
    c.close()


def test_change_user_mysqldb(target, unique):
    u = unique('chg')
    target.query("CREATE USER '%s'@'localhost' IDENTIFIED BY 'Chg-pw'" % u)
    try:
        m = MySQLdb.connect(host=target.host, port=target.port, user='root')
        cur = m.cursor()
        cur.execute('SET @v = 1')
        m.change_user(u, 'Chg-pw')
        cur = m.cursor()
        cur.execute('SELECT CURRENT_USER(), @v')
        assert cur.fetchone() == ('%s@localhost' % u, None)
        m.change_user('root', '')
        cur = m.cursor()
        cur.execute('SELECT CURRENT_USER()')
        assert cur.fetchone() == ('root@localhost',)
        with pytest.raises(MySQLdb.OperationalError) as ei:
            m.change_user(u, 'bad')
        assert ei.value.args == (1045, "Access denied for user '%s'@'localhost' (using password: YES)" % u)
        m.close()
    finally:
        target.query("DROP USER '%s'@'localhost'" % u)


def test_change_user_raw(target, unique):
    u = unique('chr')
    target.query("CREATE USER '%s'@'localhost' IDENTIFIED BY 'Raw-pw'" % u)
    try:
        c = raw(target)
        c.query('SET @v = 1')
        c.change_user(u, 'Raw-pw', db='information_schema')
        assert c.query('SELECT CURRENT_USER(), @v, DATABASE()')[1] == [
            (('%s@localhost' % u).encode(), None, b'information_schema')]
        c.close()
        c = raw(target)
        with pytest.raises(ServerError) as ei:
            c.change_user(u, 'bad')
        assert (ei.value.code, ei.value.sqlstate) == (1045, '28000')
        c.close()
    finally:
        target.query("DROP USER '%s'@'localhost'" % u)


def threads_connected(target):
    return int(target.query("SHOW GLOBAL STATUS LIKE 'Threads_connected'")[0][1])


def wait_for(pred, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def test_kill_connection(target):
    a = target.connect()
    b = target.connect()
    with b.cursor() as cur:
        cur.execute('KILL %d' % a.thread_id())
    time.sleep(0.2)
    with pytest.raises(pymysql.err.OperationalError) as ei:
        with a.cursor() as cur:
            cur.execute('SELECT 1')
    assert ei.value.args[0] in (2013, 1927), ei.value.args
    with b.cursor() as cur:
        with pytest.raises(pymysql.err.OperationalError) as ei:
            cur.execute('KILL 987654')
        assert ei.value.args == (1094, 'Unknown thread id: 987654')
    b.close()


def test_com_process_kill(target):
    m = MySQLdb.connect(host=target.host, port=target.port, user='root')
    victim = MySQLdb.connect(host=target.host, port=target.port, user='root')
    m.kill(victim.thread_id())
    time.sleep(0.2)
    with pytest.raises(MySQLdb.OperationalError) as ei:
        victim.query('SELECT 1')
    assert ei.value.args[0] in (2013, 2006, 1927)
    with pytest.raises(MySQLdb.OperationalError) as ei:
        m.kill(987654)
    assert ei.value.args == (1094, 'Unknown thread id: 987654')
    m.close()


def test_kill_self(target):
    c = raw(target)
    with pytest.raises(ServerError) as ei:
        c.query('KILL CONNECTION_ID()')
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1927, '70100', 'Connection was killed')
    c.close()


def test_kill_query_interrupts_sleep(target):
    a = target.connect()
    b = target.connect()
    out = {}

    def run():
        t = time.time()
        try:
            with a.cursor() as cur:
                cur.execute('SELECT SLEEP(20)')
                out['rows'] = cur.fetchall()
        except pymysql.err.MySQLError as e:
            out['err'] = e.args
        out['t'] = time.time() - t
    th = threading.Thread(target=run)
    th.start()
    time.sleep(0.5)
    with b.cursor() as cur:
        cur.execute('KILL QUERY %d' % a.thread_id())
    th.join(10)
    assert not th.is_alive()
    assert out.get('err') == (1317, 'Query execution was interrupted'), out
    assert out['t'] < 5
    with a.cursor() as cur:  # the connection survives KILL QUERY
        cur.execute('SELECT 2')
        assert cur.fetchone() == (2,)
    a.close()
    b.close()


def test_set_option_multi_statements(target):
    c = raw(target)
    ans = c.set_option(False)
    assert ans[0] in (0xfe, 0x00) and len(ans) < 9  # EOF (OK if DEPRECATE_EOF)
    with pytest.raises(ServerError) as ei:
        c.query('SELECT 1; SELECT 2')
    assert (ei.value.code, ei.value.sqlstate) == (1064, '42000')
    c.set_option(True)
    rs = c.query_results('SELECT 1; SELECT 2')
    assert [r.rows for r in rs] == [[(b'1',)], [(b'2',)]]
    c.close()
    m = MySQLdb.connect(host=target.host, port=target.port, user='root',
                        client_flag=MySQLdb.constants.CLIENT.MULTI_STATEMENTS)
    m.set_server_option(1)  # MYSQL_OPTION_MULTI_STATEMENTS_OFF
    with pytest.raises(MySQLdb.ProgrammingError) as ei:
        m.query('SELECT 1; SELECT 2')
    assert ei.value.args[0] == 1064
    m.close()


def test_quit(target):
    c = raw(target)
    cid = int(c.query('SELECT CONNECTION_ID()')[1][0][0])
    assert c.quit() == b''  # no answer: the server just closes

    def gone():
        ids = [int(r[0]) for r in target.query('SHOW PROCESSLIST')]
        return cid not in ids
    assert wait_for(gone)


def test_multi_statements(target):
    c = raw(target)
    rs = c.query_results("SELECT 1 AS a; SELECT 2 AS b, 'x' AS c; SET @m = 5; SELECT @m")
    assert len(rs) == 4
    assert [r.more() for r in rs] == [True, True, True, False]
    assert [c.name for c in rs[1].columns] == ['b', 'c']
    assert rs[1].rows == [(b'2', b'x')]
    assert rs[2].columns is None
    assert rs[3].rows == [(b'5',)]
    # An error stops the batch: earlier results arrive, later statements do not run.
    res, err = c.query_results_until_error('SELECT 1; SELECT @@no_such_var; SET @after = 1')
    assert len(res) == 1 and res[0].more()
    assert (err.code, err.sqlstate, err.message) == (1193, 'HY000', "Unknown system variable 'no_such_var'")
    assert c.query('SELECT @after')[1] == [(None,)]
    c.close()


def test_multi_statements_pymysql(target):
    from pymysql.constants import CLIENT
    p = target.connect(client_flag=CLIENT.MULTI_STATEMENTS)
    with p.cursor() as cur:
        cur.execute('SELECT 10; SELECT 20, 30; DO 1')
        got = [cur.fetchall()]
        while cur.nextset():
            got.append(cur.fetchall())
        assert got == [((10,),), ((20, 30),), ()]
    p.close()


def test_multi_statements_need_flag(target):
    c = raw(target, caps=rawclient.DEFAULT_CAPS & ~rawclient.CLIENT_MULTI_STATEMENTS)
    with pytest.raises(ServerError) as ei:
        c.query('SELECT 1; SELECT 2')
    assert (ei.value.code, ei.value.sqlstate) == (1064, '42000')
    c.ping()
    c.close()


def test_show_processlist(target):
    a = raw(target)
    b = RawClient.connect(unix=target.socket, db='information_schema')
    bid = int(b.query('SELECT CONNECTION_ID()')[1][0][0])
    aid = int(a.query('SELECT CONNECTION_ID()')[1][0][0])
    names, rows = a.query('SHOW PROCESSLIST')
    assert names[:8] == ['Id', 'User', 'Host', 'db', 'Command', 'Time', 'State', 'Info']
    byid = {int(r[0]): r for r in rows}
    me, other = byid[aid], byid[bid]
    assert me[1] == b'root' and re.match(rb'^localhost:\d+$', me[2]) and me[3] is None
    assert (me[4], me[7]) == (b'Query', b'SHOW PROCESSLIST')
    assert (other[1], other[2], other[3], other[4], other[7]) == (b'root', b'localhost', b'information_schema',
                                                                  b'Sleep', None)
    assert a.query('SHOW FULL PROCESSLIST')[0][:8] == names[:8]
    a.quit()
    b.quit()


def test_kill_busy_connection(target):
    """KILL of a connection in the middle of a statement: its client loses the connection."""
    a = target.connect()
    b = raw(target)
    out = {}

    def run():
        try:
            with a.cursor() as cur:
                cur.execute('SELECT SLEEP(20)')
                out['rows'] = cur.fetchall()
        except pymysql.err.MySQLError as e:
            out['err'] = e.args
    th = threading.Thread(target=run)
    th.start()
    time.sleep(0.5)
    rows = b.query('SHOW PROCESSLIST')[1]
    busy = [r for r in rows if int(r[0]) == a.thread_id()][0]
    assert (busy[4], busy[7]) == (b'Query', b'SELECT SLEEP(20)')
    b.query('KILL %d' % a.thread_id())
    th.join(10)
    assert not th.is_alive()
    assert out.get('err', (None,))[0] in (2013, 1927), out
    b.quit()


def test_aborted_clients(target):
    """An authenticated client that goes away without COM_QUIT counts in Aborted_clients."""
    c = raw(target)
    g = lambda: int(c.query("SHOW GLOBAL STATUS LIKE 'Aborted_clients'")[1][0][1])
    before = g()
    x = raw(target)
    x.ping()
    x.close()  # no COM_QUIT
    assert wait_for(lambda: g() == before + 1)
    y = raw(target)
    y.quit()
    time.sleep(0.3)
    assert g() == before + 1
    c.quit()


def test_session_track(target):
    """With CLIENT_SESSION_TRACK the OK packet carries the info string length-encoded and, when the
    SERVER_SESSION_STATE_CHANGED flag is set, the changes: the current schema after USE and COM_INIT_DB,
    tracked system variables after SET."""
    c = raw(target, caps=rawclient.DEFAULT_CAPS | rawclient.CLIENT_SESSION_TRACK)
    assert c.caps & rawclient.CLIENT_SESSION_TRACK
    r = c.query_results('USE information_schema')[0]
    assert r.status & rawclient.SERVER_SESSION_STATE_CHANGED
    assert (rawclient.SESSION_TRACK_SCHEMA, b'\x12information_schema') in r.ok.session_state
    ok = c.init_db('information_schema')
    assert (rawclient.SESSION_TRACK_SCHEMA, b'\x12information_schema') in ok.session_state
    r = c.query_results("SET NAMES latin1")[0]
    assert r.status & rawclient.SERVER_SESSION_STATE_CHANGED
    tracked = [d for t, d in r.ok.session_state if t == rawclient.SESSION_TRACK_SYSTEM_VARIABLES]
    assert b'\x14character_set_client\x06latin1' in tracked, r.ok.session_state
    r = c.query_results('SELECT 1')[0]  # a result set: still parses, nothing changed
    assert r.rows == [(b'1',)]
    c.ping()
    c.quit()
