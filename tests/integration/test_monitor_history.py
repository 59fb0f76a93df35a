"""The history inside the server (strata_monitor), the advice over it, alerts, and the rest of the fleet.

strata-only: MariaDB has no strata_monitor, no SHOW STRATA ADVICE and no fleet sampler; where the tests need a
reference it is a MariaDB started by the test and sampled over the MySQL protocol.  Servers run with
--monitor-interval=1 so a sample is a second away."""
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

pytestmark = pytest.mark.only('strata')

FAST = ['--monitor-interval=1']


def wait_for(pred, timeout=20, step=0.1):
    t0 = time.time()
    while time.time() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def rows(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def nsamples(c, server='local'):
    try:
        return rows(c, 'SELECT COUNT(DISTINCT ts) FROM strata_monitor.status_history WHERE server = %s',
                    (server,))[0][0]
    except Exception as e:
        if e.args[0] in (1049, 1146):  # the first pass has not created the schema yet
            return 0
        raise


def wait_samples(c, n, server='local', timeout=30):
    """Waits until n more samples of server are written; the pass that wrote the first of them is complete
    (advice evaluated) once the second is there."""
    base = nsamples(c, server)
    assert wait_for(lambda: nsamples(c, server) >= base + n, timeout), 'no new samples of %s' % server


def advice(c):
    with c.cursor() as cur:
        cur.execute('SHOW STRATA ADVICE')
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}


def var_recorded(c, name, value):
    return rows(c, 'SELECT COUNT(*) FROM strata_monitor.variables_history WHERE server = %s AND name = %s AND '
                   'value = %s', ('local', name, value))[0][0] > 0


def set_and_wait(c, name, value, text=None):
    """SET GLOBAL name = value, then wait until the sampler recorded the change (the rules reading it start
    their window there)."""
    rows(c, 'SET GLOBAL %s = %s' % (name, value))
    text = str(value) if text is None else text
    assert wait_for(lambda: var_recorded(c, name, text)), '%s=%s not recorded' % (name, text)


def test_history_tables_sampled_and_kept_across_restart(fresh_strata):
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    assert wait_for(lambda: nsamples(c) >= 3)
    names = {r[0] for r in rows(c, "SELECT DISTINCT name FROM strata_monitor.status_history WHERE server = 'local'")}
    # every global status counter, and the gauges
    status = {r[0] for r in rows(c, 'SHOW GLOBAL STATUS')}
    numeric = {r[0] for r in rows(c, 'SHOW GLOBAL STATUS') if re.fullmatch(r'-?[0-9.]+|ON|OFF', r[1] or '')}
    assert numeric - names == set(), numeric - names
    assert 'Ssl_cipher' not in names and 'Ssl_cipher' in status  # text, not a series
    for g in ('Threads_running', 'Threads_connected', 'Innodb_buffer_pool_pages_dirty', 'Strata_buffer_pool_hit_rate',
              'Strata_redo_fsyncs_per_commit', 'Innodb_row_lock_current_waits', 'Rpl_semi_sync_master_wait_sessions',
              'Strata_binlog_files', 'Strata_binlog_bytes', 'Strata_binlog_disk_bytes', 'Strata_datadir_bytes',
              'Strata_disk_free_bytes', 'Strata_disk_total_bytes', 'Strata_tablespace_free_bytes',
              'Strata_tablespace_free_extents:strata_system', 'Strata_datafile_total_extents:strata_sys.dat',
              'Strata_semisync_ack_wait_us:250', 'Strata_semisync_ack_wait_us:inf', 'Strata_mdl_waiting',
              'Strata_monitor_pass_ms', 'Strata_transactions_committed'):
        assert g in names, g
    # counters only grow between samples; ts is unix time
    up = rows(c, "SELECT ts, value FROM strata_monitor.status_history WHERE server = 'local' AND name = 'Uptime' "
                 "ORDER BY ts")
    assert [v for _, v in up] == sorted(v for _, v in up)
    assert abs(up[-1][0] - time.time()) < 10
    assert rows(c, "SELECT FROM_UNIXTIME(MAX(ts)) IS NOT NULL FROM strata_monitor.status_history")[0][0] == 1
    # variables: every one at the first sample, then only changes
    assert var_recorded(c, 'monitor_interval', '1')
    set_and_wait(c, 'long_query_time', 5, '5.000000')
    assert rows(c, "SELECT value FROM strata_monitor.variables_history WHERE server = 'local' AND "
                   "name = 'long_query_time' ORDER BY ts") == (('10.000000',), ('5.000000',))
    assert rows(c, "SELECT COUNT(*) FROM strata_monitor.variables_history WHERE name = 'max_connections'")[0][0] == 1
    # a system schema: not listed, read by name
    assert 'strata_monitor' not in {r[0] for r in rows(c, 'SHOW DATABASES')}
    assert {r[0] for r in rows(c, 'SHOW TABLES FROM strata_monitor')} == {
        'status_history', 'status_history_5min', 'variables_history', 'digest_history', 'advice', 'servers'}
    before = nsamples(c)
    last_ts = rows(c, 'SELECT MAX(ts) FROM strata_monitor.status_history')[0][0]
    c.close()
    srv.restart(FAST + ['--long-query-time=5'])
    c = srv.connect()
    assert wait_for(lambda: nsamples(c) >= before + 2)
    assert rows(c, 'SELECT MIN(ts) <= %s FROM strata_monitor.status_history', (last_ts,))[0][0] == 1
    # the restart recorded no variable that did not change
    assert rows(c, "SELECT COUNT(*) FROM strata_monitor.variables_history WHERE name = 'max_connections'")[0][0] == 1
    assert rows(c, "SELECT COUNT(*) FROM strata_monitor.variables_history WHERE name = 'long_query_time'")[0][0] == 2


def test_sampler_is_invisible(fresh_strata):
    """Not in the process list, the slow log, the digests, the binary log or the status counters."""
    srv = fresh_strata
    slow = os.path.join(srv.base, 'slow.log')
    srv.start(FAST + ['--slow-query-log=ON', '--slow-query-log-file=' + slow, '--long-query-time=0'])
    c = srv.connect()
    wait_samples(c, 3)
    assert [r for r in rows(c, 'SHOW FULL PROCESSLIST') if r[0] != c.thread_id()] == []
    q0 = int(rows(c, "SHOW GLOBAL STATUS LIKE 'Questions'")[0][1])
    ins0 = int(rows(c, "SHOW GLOBAL STATUS LIKE 'Com_insert'")[0][1])
    time.sleep(2.5)
    q1 = int(rows(c, "SHOW GLOBAL STATUS LIKE 'Questions'")[0][1])
    assert q1 - q0 == 2  # the SHOWs of ins0 and q1: none of the sampler's statements
    assert int(rows(c, "SHOW GLOBAL STATUS LIKE 'Com_insert'")[0][1]) == ins0 == 0
    text = open(slow).read()
    # the test's own SELECTs of strata_monitor are there; the sampler's INSERTs and DELETEs are not
    assert 'SHOW GLOBAL STATUS' in text and 'FROM strata_monitor.status_history' in text
    assert 'INTO strata_monitor' not in text and 'DELETE FROM strata_monitor' not in text
    assert rows(c, "SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest WHERE "
                   "DIGEST_TEXT LIKE '%INTO `strata_monitor`%' OR DIGEST_TEXT LIKE '%INTO strata_monitor%'")[0][0] == 0
    assert rows(c, "SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest WHERE "
                   "DIGEST_TEXT LIKE '%strata_monitor%'")[0][0] > 0  # the test's SELECTs: the check can fail
    for (log, *_rest) in rows(c, 'SHOW BINARY LOGS'):
        for ev in rows(c, "SHOW BINLOG EVENTS IN '%s'" % log):
            assert 'strata_monitor' not in str(ev[5]), ev


def test_monitor_interval_zero_stops_sampling(fresh_strata):
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    wait_samples(c, 2)
    rows(c, 'SET GLOBAL monitor_interval = 0')
    time.sleep(1.5)
    n = nsamples(c)
    time.sleep(2.5)
    assert nsamples(c) == n
    rows(c, 'SET GLOBAL monitor_interval = 1')
    wait_samples(c, 2, timeout=10)


def test_downsampled_beyond_a_week_and_digests_kept_a_day(fresh_strata):
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    wait_samples(c, 1)
    now = int(time.time())
    old = (now - 8 * 86400) // 300 * 300  # a 5-minute bucket 8 days ago
    vals = ','.join("('local', %d, 'Synthetic_gauge', %d)" % (old + 10 * i, i) for i in range(30))
    rows(c, 'INSERT INTO strata_monitor.status_history (server, ts, name, value) VALUES ' + vals)
    rows(c, "INSERT INTO strata_monitor.digest_history VALUES ('local', %d, 'd', 'ffff', 'SELECT ?', 1, 1, 1, 1, "
            "0, 0)" % (now - 2 * 86400))
    # maintenance runs every 6 passes
    assert wait_for(lambda: rows(c, "SELECT COUNT(*) FROM strata_monitor.status_history WHERE name = "
                                    "'Synthetic_gauge'")[0][0] == 0, timeout=20)
    assert rows(c, "SELECT ts, value FROM strata_monitor.status_history_5min WHERE name = 'Synthetic_gauge' "
                   "ORDER BY ts") == ((old, 14.5),)
    assert rows(c, "SELECT COUNT(*) FROM strata_monitor.digest_history WHERE digest = 'ffff'")[0][0] == 0


def test_size_bound(fresh_strata):
    srv = fresh_strata
    bound = 1 << 20
    srv.start(FAST + ['--monitor-history-max-size=%d' % bound])
    c = srv.connect()
    size = lambda: rows(c, "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES WHERE "
                           "TABLE_SCHEMA = 'strata_monitor'")[0][0]
    assert wait_for(lambda: 'over monitor_history_max_size' in srv.log_text(), timeout=30)
    peak = 0
    for _ in range(15):
        peak = max(peak, size())
        time.sleep(1)
    # checked at each maintenance (6 passes): never more than those passes' rows over the bound
    assert peak < 2.5 * bound, peak
    assert nsamples(c) >= 1


def test_advice_sort_merge_passes_fires_and_converges(fresh_strata):
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    rows(c, 'CREATE DATABASE adv')
    rows(c, 'CREATE TABLE adv.s (id INT PRIMARY KEY, v VARCHAR(100))')
    rows(c, 'INSERT INTO adv.s VALUES ' + ','.join("(%d, MD5(%d))" % (i, i) for i in range(1, 3001)))

    def load():
        u = srv.connect()
        for _ in range(12):
            rows(u, 'SELECT COUNT(*) FROM (SELECT v FROM adv.s ORDER BY v) x')
        u.close()

    set_and_wait(c, 'sort_buffer_size', 32768)
    load()
    wait_samples(c, 2)
    a = advice(c)
    assert 'sort_merge_passes' in a, a
    r = a['sort_merge_passes']
    assert r['Severity'] == 'warning' and r['Current_value'] == 'sort_buffer_size=32768'
    assert r['Suggested_value'] == 'sort_buffer_size=131072' and 'merge passes' in r['Evidence']
    assert r['Window'].startswith('1h (')
    assert rows(c, "SELECT severity, suggested_value FROM strata_monitor.advice WHERE server = 'local' AND "
                   "rule = 'sort_merge_passes'") == (('warning', 'sort_buffer_size=131072'),)
    # follow the advice until it is satisfied: each step restarts the window at the change
    for _ in range(3):
        value = int(a['sort_merge_passes']['Suggested_value'].split('=')[1])
        set_and_wait(c, 'sort_buffer_size', value)
        load()
        wait_samples(c, 2)
        a = advice(c)
        if 'sort_merge_passes' not in a:
            break
    assert 'sort_merge_passes' not in a, a
    assert rows(c, "SELECT COUNT(*) FROM strata_monitor.advice WHERE rule = 'sort_merge_passes'")[0][0] == 0


def test_advice_binlog_cache_fires_and_stops(fresh_strata):
    """Transactions whose binlog events pass binlog_cache_size spill to a file (Binlog_cache_disk_use): over 10%
    of them, the rule suggests 4x the cache; set to that, the same transactions fit and the advice goes."""
    srv = fresh_strata
    srv.start(FAST + ['--log-bin=advbin', '--server-id=1'])
    c = srv.connect()
    rows(c, 'CREATE DATABASE adv')
    rows(c, 'CREATE TABLE adv.b (id INT PRIMARY KEY, v VARCHAR(400))')
    n = [0]

    def load():
        u = srv.connect()
        for _ in range(12):  # about 8 KB of row images each
            rows(u, 'INSERT INTO adv.b VALUES ' + ','.join("(%d, REPEAT('b', 380))" % (n[0] + i) for i in range(20)))
            n[0] += 20
        u.close()

    set_and_wait(c, 'binlog_cache_size', 4096)
    load()
    wait_samples(c, 2)
    a = advice(c)
    assert 'binlog_cache_disk_use' in a, a
    r = a['binlog_cache_disk_use']
    assert r['Current_value'] == 'binlog_cache_size=4096' and r['Suggested_value'] == 'binlog_cache_size=16384', r
    set_and_wait(c, 'binlog_cache_size', 16384)
    load()
    wait_samples(c, 2)
    assert 'binlog_cache_disk_use' not in advice(c)


def test_advice_max_connections_fires_and_stops(fresh_strata):
    srv = fresh_strata
    srv.start(FAST + ['--max-connections=10'])
    c = srv.connect()
    held = [srv.connect() for _ in range(8)]  # 9 of 10
    wait_samples(c, 2)
    a = advice(c)
    assert a['max_connections']['Current_value'] == 'max_connections=10'
    assert a['max_connections']['Suggested_value'] == 'max_connections=15'
    set_and_wait(c, 'max_connections', 15)
    wait_samples(c, 2)  # the same 9 connections: 60% of the new limit
    assert 'max_connections' not in advice(c)
    for h in held:
        h.close()


def test_advice_durability_rules_fire_and_stop(fresh_strata):
    srv = fresh_strata
    srv.start(FAST + ['--sync-binlog=0', '--innodb-flush-log-at-trx-commit=2'])
    c = srv.connect()
    wait_samples(c, 2)
    a = advice(c)
    assert a['sync_binlog']['Severity'] == 'critical' and a['sync_binlog']['Suggested_value'] == 'sync_binlog=1'
    assert a['innodb_flush_log_at_trx_commit']['Suggested_value'] == 'innodb_flush_log_at_trx_commit=1'
    rows(c, 'SET GLOBAL sync_binlog = 1')
    wait_samples(c, 2)
    a = advice(c)
    assert 'sync_binlog' not in a and 'innodb_flush_log_at_trx_commit' in a


def test_advice_dominating_statement(fresh_strata):
    """The SHOW WARNINGS flood (one statement class over half the traffic) is named with its digest text."""
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    wait_samples(c, 1)  # the first digest snapshot: the window's start
    u = srv.connect()
    for i in range(600):
        rows(u, 'SELECT %d' % i)
        rows(u, 'SHOW WARNINGS')
        rows(u, 'SHOW WARNINGS')
    wait_samples(c, 2)
    # the rule reads the digest snapshots, taken once a minute: on a loaded machine the one after the flood can
    # be the next minute's
    a = wait_for(lambda: (lambda d: d if 'dominating_statement' in d else None)(advice(c)), timeout=90, step=1) \
        or advice(c)
    assert 'dominating_statement' in a, a
    assert 'SHOW WARNINGS' in a['dominating_statement']['Evidence']


def test_show_strata_advice_needs_process(fresh_strata):
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    rows(c, "CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'")
    u = srv.connect(user='plain', password='pw')
    with pytest.raises(Exception) as e:
        rows(u, 'SHOW STRATA ADVICE')
    assert e.value.args[0] == 1227
    rows(c, "GRANT PROCESS ON *.* TO 'plain'@'%'")
    u.close()
    u = srv.connect(user='plain', password='pw')
    with u.cursor() as cur:
        cur.execute('SHOW STRATA ADVICE')
        assert [d[0] for d in cur.description] == ['Rule', 'Severity', 'Window', 'Evidence', 'Current_value',
                                                   'Suggested_value']
    with pytest.raises(Exception) as e:
        rows(c, 'SHOW STRATA')
    assert e.value.args[0] == 1064


class Receiver(BaseHTTPRequestHandler):
    got = []

    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0))
        Receiver.got.append((self.headers.get('Content-Type'), json.loads(self.rfile.read(n))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *a):
        pass


def test_alerts_error_log_and_webhook(fresh_strata):
    Receiver.got = []
    http = HTTPServer(('127.0.0.1', 0), Receiver)
    t = threading.Thread(target=http.serve_forever, daemon=True)
    t.start()
    try:
        srv = fresh_strata
        url = 'http://127.0.0.1:%d/hook' % http.server_address[1]
        srv.start(FAST + ['--sync-binlog=0', '--monitor-alert-webhook=' + url])
        c = srv.connect()
        hit = lambda state: [b for _, b in Receiver.got if b['rule'] == 'sync_binlog' and b['state'] == state]
        assert wait_for(lambda: hit('firing'))
        ctype, body = [g for g in Receiver.got if g[1]['rule'] == 'sync_binlog'][0]
        assert ctype == 'application/json'
        assert body['server'] == 'local' and body['severity'] == 'critical'
        assert body['suggested_value'] == 'sync_binlog=1' and body['current_value'] == 'sync_binlog=0'
        assert 'monitor: advice sync_binlog (critical) on local' in srv.log_text()
        rows(c, 'SET GLOBAL sync_binlog = 1')
        assert wait_for(lambda: hit('resolved'))
        assert len(hit('firing')) == 1  # notified once, not at every pass
        # a receiver that is gone is reported, and sampling goes on
        rows(c, "SET GLOBAL monitor_alert_webhook = 'http://127.0.0.1:1/none'")
        rows(c, 'SET GLOBAL sync_binlog = 0')
        assert wait_for(lambda: 'alert webhook http://127.0.0.1:1/none failed' in srv.log_text())
        wait_samples(c, 1)
    finally:
        http.shutdown()


def test_fleet_mariadb_sampled_and_removed(fresh_strata, fresh_mariadb):
    m = fresh_mariadb
    m.start()
    srv = fresh_strata
    srv.start(FAST)
    c = srv.connect()
    wait_samples(c, 1)
    key = '127.0.0.1:%d' % m.port
    rows(c, "INSERT INTO strata_monitor.servers (host, port, user, password) VALUES ('127.0.0.1', %s, 'root', '')",
         (m.port,))
    assert wait_for(lambda: nsamples(c, key) >= 2)
    got = dict(rows(c, 'SELECT name, value FROM strata_monitor.status_history WHERE server = %s AND ts = '
                       '(SELECT MAX(ts) FROM strata_monitor.status_history WHERE server = %s)', (key, key)))
    assert got['Strata_up'] == 1 and got['Uptime'] >= 0 and 'Innodb_buffer_pool_read_requests' in got
    assert 'Strata_buffer_pool_hit_rate' in got or nsamples(c, key) < 3
    ver = rows(c, "SELECT value FROM strata_monitor.variables_history WHERE server = %s AND name = 'version'", (key,))
    assert ver and 'MariaDB' in ver[0][0] and 'strata' not in ver[0][0]
    # the same history sums across servers with plain SQL
    total = rows(c, "SELECT COUNT(DISTINCT server) FROM strata_monitor.status_history WHERE name = 'Uptime'")[0][0]
    assert total == 2
    # a server that stops answering is recorded as down; removing it stops its sampling
    m.stop()
    assert wait_for(lambda: rows(c, "SELECT value FROM strata_monitor.status_history WHERE server = %s AND name = "
                                    "'Strata_up' ORDER BY ts DESC LIMIT 1", (key,))[0][0] == 0)
    assert 'monitor: cannot sample ' + key in srv.log_text()
    rows(c, 'DELETE FROM strata_monitor.servers')
    wait_samples(c, 2)
    n = nsamples(c, key)
    wait_samples(c, 2)
    assert nsamples(c, key) == n


def test_wait_gauges_sampled(fresh_strata):
    """A DDL waiting for a metadata lock and a row-lock wait show in the samples taken meanwhile."""
    srv = fresh_strata
    srv.start(FAST + ['--innodb-lock-wait-timeout=20', '--lock-wait-timeout=20'])
    c = srv.connect()
    rows(c, 'CREATE DATABASE w')
    rows(c, 'CREATE TABLE w.t (id INT PRIMARY KEY, v INT)')
    rows(c, 'INSERT INTO w.t VALUES (1, 0)')
    holder = srv.connect()
    rows(holder, 'BEGIN')
    rows(holder, 'UPDATE w.t SET v = 1 WHERE id = 1')  # row lock and the table's metadata lock
    done = []

    def run_blocked(sql):
        u = srv.connect()
        try:
            rows(u, sql)
        finally:
            u.close()
            done.append(sql)
    peak = lambda name: rows(c, "SELECT MAX(value) FROM strata_monitor.status_history WHERE server = 'local' AND "
                                "name = %s", (name,))[0][0] or 0
    row_waiter = threading.Thread(target=run_blocked, args=('UPDATE w.t SET v = 2 WHERE id = 1',))
    row_waiter.start()
    assert wait_for(lambda: peak('Innodb_row_lock_current_waits') >= 1)
    ddl = threading.Thread(target=run_blocked, args=('ALTER TABLE w.t ADD COLUMN x INT',))
    ddl.start()
    assert wait_for(lambda: peak('Strata_mdl_waiting') >= 1)
    time.sleep(0.3)
    rows(holder, 'COMMIT')
    row_waiter.join()
    ddl.join()
    st = dict(rows(c, "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock%'"))
    assert int(st['Innodb_row_lock_waits']) >= 1 and int(st['Innodb_row_lock_time']) >= 500
    assert int(st['Innodb_row_lock_time_max']) >= 500 and int(st['Innodb_row_lock_current_waits']) == 0
    assert len(done) == 2
