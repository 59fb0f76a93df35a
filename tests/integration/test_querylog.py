"""The general query log and the slow query log, in MariaDB's file formats.

Each test runs on strata and on the MariaDB reference: the same client actions must give the same general-log
records (command and argument) and slow-log records that pt-query-digest (Debian's percona-toolkit) reads into
the same classes.  Run-time control: SET GLOBAL general_log / slow_query_log / *_file, FLUSH LOGS reopening a
file that was moved away, sql_log_off, log_queries_not_using_indexes, min_examined_row_limit, long_query_time."""
import os
import re
import shutil
import subprocess
import time

import pytest


def general_records(path, thread_ids=None):
    """[(command, argument)] of a general log, header lines left out; only those of thread_ids if given (the
    records of sessions that run at once are in the order the server took their commands)."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^(?:\d{6} [ \d]\d:\d\d:\d\d)?\t(?:\t)?\s*(\d+) ([A-Za-z ]+?)\t(.*)$', line)
            if m and (thread_ids is None or int(m.group(1)) in thread_ids):
                out.append((m.group(2), m.group(3)))
    return out


def slow_records(path):
    """[dict] of a slow log: text, Query_time ..., Rows_sent, Rows_examined, Rows_affected, Schema."""
    recs, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('# User@Host:'):
                cur = {'user_host': line[len('# User@Host: '):], 'text': []}
                recs.append(cur)
            elif cur is None:
                continue
            elif line.startswith('# '):
                for k, v in re.findall(r'(\w+): (\S*)', line[2:]):
                    cur[k] = v
            elif line.startswith('SET timestamp=') or line.startswith('use `'):
                continue
            else:
                cur['text'].append(line)
    for r in recs:
        r['text'] = '\n'.join(r['text']).rstrip(';')
    return recs


def wait_for(pred, timeout=5):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def log_dir(srv):
    d = os.path.join(srv.base, 'logs')
    os.makedirs(d, exist_ok=True)
    return d


def test_general_log_records_as_mariadb(fresh_target):
    srv = fresh_target
    path = os.path.join(log_dir(srv), 'general.log')
    srv.query("SET GLOBAL general_log_file = '%s'" % path)
    srv.query('SET GLOBAL general_log = ON')
    c = srv.connect()
    ids = [c.thread_id()]
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE ql')
        cur.execute('USE ql')
        cur.execute('CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))')
        cur.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
        cur.execute('SELECT b FROM t WHERE a = 2')
        try:
            cur.execute('SELECT nosuch FROM t')
        except Exception:
            pass
        c.select_db('ql')  # COM_INIT_DB
    c.close()
    c = srv.connect(database='ql')
    ids.append(c.thread_id())
    with c.cursor() as cur:
        cur.execute('SET sql_log_off = 1')
        cur.execute('SELECT 42')  # not logged: sql_log_off
        cur.execute('SET sql_log_off = 0')
        cur.execute('SELECT 43')
    c.close()
    # its Quit reaches the log when the server reads it: before general_log goes OFF below
    wait_for(lambda: ('Quit', '') in general_records(path, {ids[-1]}))
    c = srv.connect()
    ids.append(c.thread_id())
    with c.cursor() as cur:
        cur.execute('SET GLOBAL general_log = OFF')
    c.close()
    # each connection's records in order (the server takes commands of different connections in any order: a
    # closed connection's Quit may be written after the next one's Connect)
    want = [
        [('Connect', 'root@localhost on  using TCP/IP'),
         ('Query', 'CREATE DATABASE ql'),
         ('Query', 'USE ql'),
         ('Query', 'CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))'),
         ('Query', "INSERT INTO t VALUES (1, 'x'), (2, 'y')"),
         ('Query', 'SELECT b FROM t WHERE a = 2'),
         ('Query', 'SELECT nosuch FROM t'),
         ('Init DB', 'ql'),
         ('Quit', '')],
        [('Connect', 'root@localhost on ql using TCP/IP'),
         ('Query', 'SET sql_log_off = 1'),
         ('Query', 'SELECT 43'),
         ('Quit', '')],
        [('Connect', 'root@localhost on  using TCP/IP'),
         ('Query', 'SET GLOBAL general_log = OFF')],
    ]
    assert len(set(ids)) == 3

    def ours():
        # pymysql sends SET autocommit after connecting; keep only what the test itself asked for
        return [[r for r in general_records(path, {i}) if not r[1].upper().startswith('SET AUTOCOMMIT')]
                for i in ids]
    wait_for(lambda: ours() == want)
    got = ours()
    assert got == want, '\n'.join(map(repr, got))
    with open(path) as f:
        head = f.read().split('\n')[:3]
    assert head[0].endswith('. started with:')
    assert head[1].startswith('Tcp port: %d  Unix socket: ' % srv.port)
    assert head[2] == 'Time\t\t    Id Command\tArgument'


def test_slow_log_read_by_pt_query_digest(fresh_target):
    if not shutil.which('pt-query-digest'):
        pytest.skip('pt-query-digest (percona-toolkit) not installed')
    srv = fresh_target
    path = os.path.join(log_dir(srv), 'slow.log')
    srv.query("SET GLOBAL slow_query_log_file = '%s'" % path)
    srv.query('SET GLOBAL long_query_time = 0')
    srv.query('SET GLOBAL slow_query_log = ON')
    c = srv.connect()
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE sq')
        cur.execute('CREATE TABLE sq.t (a INT PRIMARY KEY, b INT)')
        cur.execute('INSERT INTO sq.t VALUES ' + ','.join('(%d,%d)' % (i, i % 7) for i in range(200)))
        for i in range(30):
            cur.execute('SELECT * FROM sq.t WHERE a = %d' % i)
        for i in range(5):
            cur.execute('SELECT COUNT(*) FROM sq.t WHERE b = %d' % i)
        cur.execute('UPDATE sq.t SET b = b + 1 WHERE a < 10')
    c.close()
    srv.query('SET GLOBAL slow_query_log = OFF')
    recs = slow_records(path)
    by_text = {r['text']: r for r in recs}
    r = by_text['SELECT * FROM sq.t WHERE a = 3']
    assert r['Rows_sent'] == '1' and int(r['Rows_examined']) >= 1
    assert r['user_host'].startswith('root[root] @ localhost [127.0.0.1]')
    r = by_text['SELECT COUNT(*) FROM sq.t WHERE b = 2']
    assert r['Rows_sent'] == '1' and int(r['Rows_examined']) >= 200
    r = by_text['UPDATE sq.t SET b = b + 1 WHERE a < 10']
    assert r['Rows_affected'] == '10'
    for r in recs:
        float(r['Query_time'])
        float(r['Lock_time'])
        int(r['Bytes_sent'])
    out = subprocess.run(['pt-query-digest', '--limit', '100%', '--report-format', 'profile', path],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # the point lookup class: 30 calls, the count class: 5
    classes = re.findall(r'^#\s+\d+\s+0x[0-9A-F]+\s+[\d.]+\s+[\d.]+%\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(\w+)\s+(\S+)',
                         out.stdout, re.M)
    selects = sorted(int(n) for n, kind, tbl in classes if (kind, tbl) == ('SELECT', 'sq.t'))
    assert selects == [5, 30], out.stdout


def test_flush_logs_reopens_moved_files(fresh_target):
    srv = fresh_target
    d = log_dir(srv)
    gpath, spath = os.path.join(d, 'g.log'), os.path.join(d, 's.log')
    srv.query("SET GLOBAL general_log_file = '%s'" % gpath)
    srv.query("SET GLOBAL slow_query_log_file = '%s'" % spath)
    srv.query('SET GLOBAL long_query_time = 0')
    srv.query('SET GLOBAL general_log = ON')
    srv.query('SET GLOBAL slow_query_log = ON')
    srv.query('SELECT 1001')
    os.rename(gpath, gpath + '.1')  # as logrotate does
    os.rename(spath, spath + '.1')
    srv.query('SELECT 1002')        # still goes to the moved files
    srv.query('FLUSH LOGS')
    srv.query('SELECT 1003')
    srv.query('SET GLOBAL general_log = OFF')
    srv.query('SET GLOBAL slow_query_log = OFF')
    old = [a for _, a in general_records(gpath + '.1')]
    new = [a for _, a in general_records(gpath)]
    assert 'SELECT 1001' in old and 'SELECT 1002' in old and 'SELECT 1003' not in old
    assert 'SELECT 1003' in new and 'SELECT 1002' not in new
    old = [r['text'] for r in slow_records(spath + '.1')]
    new = [r['text'] for r in slow_records(spath)]
    assert 'SELECT 1002' in old and 'SELECT 1003' in new and 'SELECT 1003' not in old


def test_slow_log_thresholds(fresh_target):
    srv = fresh_target
    path = os.path.join(log_dir(srv), 'thr.log')
    srv.query("SET GLOBAL slow_query_log_file = '%s'" % path)
    srv.query('SET GLOBAL slow_query_log = ON')
    srv.query('CREATE DATABASE th')
    srv.query('CREATE TABLE th.t (a INT PRIMARY KEY, b INT)')
    srv.query('INSERT INTO th.t VALUES ' + ','.join('(%d,%d)' % (i, i) for i in range(50)))
    c = srv.connect()
    with c.cursor() as cur:
        cur.execute('SET SESSION long_query_time = 10')
        cur.execute('SELECT SLEEP(0.3)')                 # under 10 s: not logged
        cur.execute('SET SESSION long_query_time = 0.2')
        cur.execute('SELECT SLEEP(0.3)')                 # over: logged
        cur.execute('SELECT 7')                          # fast: not logged
        cur.execute('SET SESSION long_query_time = 10')
        cur.execute('SET SESSION log_queries_not_using_indexes = ON')
        cur.execute('SELECT * FROM th.t WHERE b = 5')    # full scan: logged
        cur.execute('SELECT * FROM th.t WHERE a = 5')    # primary key: not logged
        cur.execute('SET SESSION min_examined_row_limit = 1000')
        cur.execute('SELECT * FROM th.t WHERE b = 6')    # full scan of 50 rows < 1000: not logged
        cur.execute('SET SESSION min_examined_row_limit = 0')
        cur.execute('SET SESSION slow_query_log = OFF')
        cur.execute('SELECT * FROM th.t WHERE b = 7')    # this session's log off: not logged
        cur.execute("SHOW SESSION STATUS LIKE 'Slow_queries'")
        slow = int(cur.fetchall()[0][1])
    c.close()
    srv.query('SET GLOBAL slow_query_log = OFF')
    texts = [r['text'] for r in slow_records(path)]
    ours = [t for t in texts if 'th.t WHERE' in t or 'SLEEP' in t or t == 'SELECT 7']
    assert ours == ['SELECT SLEEP(0.3)', 'SELECT * FROM th.t WHERE b = 5'], texts
    # Slow_queries counts what qualifies whether or not it is logged: SLEEP over long_query_time, the full scan
    # b = 5 and, although this session's slow log is off, b = 7; not b = 6 (under min_examined_row_limit)
    assert slow == 3


@pytest.mark.only('strata')
def test_log_output_table_refused(fresh_target):
    """strata has no mysql.general_log / slow_log tables: TABLE is refused rather than accepted and lost
    (a deliberate difference, tests/sql/DIFFERENCES.md)."""
    import pymysql
    srv = fresh_target
    with pytest.raises(pymysql.err.OperationalError) as e:
        srv.query("SET GLOBAL log_output = 'TABLE'")
    assert e.value.args[0] == 1231
    assert srv.query('SELECT @@log_output')[0][0] == 'FILE'


def test_unwritable_log_file_refused(fresh_target):
    import pymysql
    srv = fresh_target
    before = srv.query('SELECT @@general_log_file')[0][0]
    for var in ('general_log_file', 'slow_query_log_file'):
        with pytest.raises(pymysql.err.OperationalError) as e:
            srv.query("SET GLOBAL %s = '/nonexistent-dir/x.log'" % var)
        assert e.value.args[0] == 1231
    assert srv.query('SELECT @@general_log_file')[0][0] == before
    assert srv.query('SELECT 1')[0][0] == 1


def test_query_was_slow_status_flag(target):
    """SERVER_QUERY_WAS_SLOW (0x0800) in the end packet of a statement over long_query_time, log on or off."""
    from rawclient import RawClient
    c = RawClient.connect(port=target.port)
    try:
        c.query_results('SET SESSION long_query_time = 0.1')
        slow = c.query_results('SELECT SLEEP(0.25)')[-1]
        fast = c.query_results('SELECT 1')[-1]
        ok_slow = c.query_results('DO SLEEP(0.25)')[-1]
        assert slow.status & 0x0800
        assert not fast.status & 0x0800
        assert ok_slow.ok.status & 0x0800
    finally:
        c.close()
