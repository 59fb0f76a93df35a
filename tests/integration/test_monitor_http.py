"""The monitoring HTTP server: login, Prometheus /metrics, the dashboard's JSON and pages.

strata-only (MariaDB has no HTTP server): one stratad started with --monitor-http-port serves the module.
Checks: off by default and read-only; HTTP basic auth against the account store (401 without, with a wrong
password, for an account without PROCESS/SUPER, for a locked one; 200 with PROCESS, SUPER or root, through
both password plugins); /metrics parsed by prometheus_client with mysqld_exporter's names and types, its values
equal to SHOW GLOBAL STATUS / VARIABLES; a scrape runs no statement (no Questions, nothing in the process list,
the general log or the slow log); a real Debian Prometheus scrapes it with basic_auth; headless Chromium loads
every page with no console error and the overview shows charts with data; TLS with the server's certificate;
and a scrape costs the same with 2,000 tables as with one (measured and printed)."""
import base64
import json
import os
import re
import shutil
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest

import conftest

PROMETHEUS = shutil.which('prometheus')
CHROMIUM = shutil.which('chromium')


def http_get(port, path, user=None, password='', scheme='http', ctx=None, method='GET'):
    """(status, headers, body bytes)."""
    req = urllib.request.Request('%s://127.0.0.1:%d%s' % (scheme, port, path), method=method)
    if user is not None:
        tok = base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
        req.add_header('Authorization', 'Basic ' + tok)
    try:
        with urllib.request.urlopen(req, timeout=30, context=ctx) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Monitor:
    def __init__(self, srv, port):
        self.srv = srv
        self.port = port

    def get(self, path, user='root', password='', **kw):
        return http_get(self.port, path, user, password, **kw)

    def json(self, path):
        st, _, body = self.get(path)
        assert st == 200, (path, st, body[:200])
        return json.loads(body)

    def metrics_text(self):
        st, hdr, body = self.get('/metrics')
        assert st == 200, body[:300]
        assert hdr['Content-Type'].startswith('text/plain; version=0.0.4')
        return body.decode()


def start_monitored(extra=()):
    s = conftest.new_server('strata')
    s.prepare()
    port = conftest.free_port()
    s.start(['--monitor-http-port=%d' % port] + list(extra))
    return s, port


@pytest.fixture(scope='module')
def mon():
    s, port = start_monitored()
    yield Monitor(s, port)
    s.check_clean_stop()


def status_map(conn):
    with conn.cursor() as c:
        c.execute('SHOW GLOBAL STATUS')
        return dict(c.fetchall())


def families(text):
    from prometheus_client.parser import text_string_to_metric_families
    return {f.name: f for f in text_string_to_metric_families(text)}


def sample_value(fams, name, **labels):
    """The value of one sample; the parser strips _total from a counter's family name."""
    fam = fams.get(name) or fams.get(re.sub(r'_total$', '', name))
    assert fam is not None, 'no metric family %s' % name
    for s in fam.samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise AssertionError('no sample %s%r' % (name, labels))


def parse_status_number(v):
    low = v.lower()
    if low in ('on', 'yes'):
        return 1.0
    if low in ('off', 'no', 'disabled', 'connecting'):
        return 0.0
    try:
        return float(v)
    except ValueError:
        return None


def metric_for_status(name):
    """(sample name, labels) under which mysqld_exporter publishes a status variable."""
    low = name.lower()
    for prefix, fam, label in (('com_', 'commands_total', 'command'), ('handler_', 'handlers_total', 'handler'),
                               ('connection_errors_', 'connection_errors_total', 'error'),
                               ('innodb_rows_', 'innodb_row_ops_total', 'operation'),
                               ('performance_schema_', 'performance_schema_lost_total', 'instrumentation')):
        if low.startswith(prefix):
            return 'mysql_global_status_' + fam, {label: low[len(prefix):]}
    if low.startswith('innodb_buffer_pool_pages_'):
        rest = low[len('innodb_buffer_pool_pages_'):]
        if rest in ('data', 'dirty', 'free', 'misc'):
            return 'mysql_global_status_buffer_pool_pages', {'state': rest}
        return 'mysql_global_status_buffer_pool_page_changes_total', {'operation': rest}
    return 'mysql_global_status_' + low, {}


def test_queries_counts_statements(target):
    """Queries (mysql_global_status_queries, what dashboards graph as QPS) counts statements as Questions
    does when no stored program runs."""
    import MySQLdb
    c = MySQLdb.connect(unix_socket=target.socket, user='root', passwd=target.password)
    try:
        cur = c.cursor()
        cur.execute('SHOW GLOBAL STATUS WHERE Variable_name IN (\'Queries\', \'Questions\')')
        before = {k: int(v) for k, v in cur.fetchall()}
        for _ in range(3):
            cur.execute('SELECT 1')
        cur.execute('DO 1')
        cur.execute('SHOW GLOBAL STATUS WHERE Variable_name IN (\'Queries\', \'Questions\')')
        after = {k: int(v) for k, v in cur.fetchall()}
    finally:
        c.close()
    assert after['Questions'] - before['Questions'] == 5
    assert after['Queries'] - before['Queries'] == 5


# ---- configuration ---------------------------------------------------------------------------------------

def test_off_by_default_and_read_only(strata):
    """Without monitor_http_port nothing listens; the three variables exist with their defaults and are
    start-up only (1238, as MariaDB's read-only variables)."""
    with strata.connect() as c, c.cursor() as cur:
        cur.execute('SELECT @@monitor_http_port, @@monitor_http_address, @@monitor_http_tls')
        assert cur.fetchone() == (0, '127.0.0.1', 0)
        for stmt in ('SET GLOBAL monitor_http_port = 8080', "SET GLOBAL monitor_http_address = '0.0.0.0'",
                     'SET GLOBAL monitor_http_tls = ON'):
            with pytest.raises(Exception) as e:
                cur.execute(stmt)
            assert e.value.args[0] == 1238, e.value.args
    assert 'monitor: dashboard' not in strata.log_text()


def test_bad_address_refuses_to_start(fresh_strata):
    fresh_strata.start(['--monitor-http-port=%d' % conftest.free_port(), '--monitor-http-address=not-an-ip'],
                       wait=False)
    fresh_strata.proc.wait(30)
    assert fresh_strata.proc.returncode != 0
    fresh_strata.stderr_f.close()
    assert "monitor_http_address 'not-an-ip' is not an IPv4 or IPv6 address" in fresh_strata.log_text()
    assert not fresh_strata.sanitizer_reports()
    fresh_strata.start()  # the data directory is fine without it


# ---- login ---------------------------------------------------------------------------------------------

def test_login_required(mon):
    with mon.srv.connect() as c, c.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS mon_proc@localhost IDENTIFIED BY 'pw1'")
        cur.execute('GRANT PROCESS ON *.* TO mon_proc@localhost')
        cur.execute("CREATE USER IF NOT EXISTS mon_super@localhost IDENTIFIED WITH caching_sha2_password BY 'pw2'")
        cur.execute('GRANT SUPER ON *.* TO mon_super@localhost')
        cur.execute("CREATE USER IF NOT EXISTS mon_sel@localhost IDENTIFIED BY 'pw3'")
        cur.execute('GRANT SELECT ON *.* TO mon_sel@localhost')
        cur.execute("CREATE USER IF NOT EXISTS mon_locked@localhost IDENTIFIED BY 'pw4' ACCOUNT LOCK")
        cur.execute('GRANT PROCESS ON *.* TO mon_locked@localhost')
        cur.execute("CREATE USER IF NOT EXISTS mon_remote@'10.%' IDENTIFIED BY 'pw5'")
        cur.execute("GRANT PROCESS ON *.* TO mon_remote@'10.%'")
    for path in ('/metrics', '/', '/api/status', '/chart/queries.svg', '/static/app.js'):
        st, hdr, _ = http_get(mon.port, path)
        assert st == 401, path
        assert hdr.get('WWW-Authenticate', '').startswith('Basic realm="strata monitor"'), hdr
    for user, pw in (('root', 'x'), ('mon_proc', 'wrong'), ('mon_proc', ''), ('mon_super', 'pw1'),
                     ('mon_sel', 'pw3'), ('mon_locked', 'pw4'), ('mon_remote', 'pw5'), ('nobody', '')):
        assert mon.get('/metrics', user, pw)[0] == 401, (user, pw)
    for user, pw in (('root', ''), ('mon_proc', 'pw1'), ('mon_super', 'pw2')):
        assert mon.get('/metrics', user, pw)[0] == 200, (user, pw)
    # privileges are read at each request: a revoke locks the account out at once
    with mon.srv.connect() as c, c.cursor() as cur:
        cur.execute('REVOKE PROCESS ON *.* FROM mon_proc@localhost')
    assert mon.get('/metrics', 'mon_proc', 'pw1')[0] == 401


def test_methods_and_unknown_paths(mon):
    assert mon.get('/nothing-here')[0] == 404
    assert mon.get('/chart/nosuch.svg')[0] == 404
    assert mon.get('/metrics', method='POST')[0] == 405
    assert mon.get('/metrics', method='HEAD')[0] == 200


# ---- /metrics ------------------------------------------------------------------------------------------

def test_metrics_names_types_and_values(mon):
    with mon.srv.connect() as c, c.cursor() as cur:
        cur.execute('CREATE DATABASE IF NOT EXISTS monm')
        cur.execute('CREATE TABLE IF NOT EXISTS monm.t (a INT PRIMARY KEY, b INT)')
        cur.execute('REPLACE INTO monm.t VALUES (1, 1), (2, 2)')
        cur.execute('SELECT * FROM monm.t')
        status = status_map(c)
        text = mon.metrics_text()
        with c.cursor() as cur2:
            cur2.execute('SHOW GLOBAL VARIABLES')
            variables = dict(cur2.fetchall())
    fams = families(text)
    assert sample_value(fams, 'mysql_up') == 1
    assert fams['mysql_up'].type == 'gauge'
    assert fams['mysql_global_status_commands'].type == 'counter'
    assert fams['mysql_global_status_handlers'].type == 'counter'
    assert fams['mysql_global_status_buffer_pool_pages'].type == 'gauge'
    assert fams['mysql_global_status_connection_errors'].type == 'counter'
    assert fams['mysql_global_status_queries'].type == 'unknown'  # untyped, as mysqld_exporter has it
    assert fams['mysql_global_variables_max_connections'].type == 'gauge'
    # between SHOW GLOBAL STATUS and the scrape only SHOW ran, and a scrape runs no statement: values are equal
    moving = re.compile(r'^(Uptime.*|Memory_used|Bytes_sent|Threads_running|Innodb_.*|Binlog_.*|Strata_rebalance.*)$')
    checked = 0
    for name, v in status.items():
        num = parse_status_number(v)
        if num is None:
            continue
        sname, labels = metric_for_status(name)
        got = sample_value(fams, sname, **labels)
        if not moving.match(name):
            assert got == num, (name, v, got)
            checked += 1
    assert checked > 250
    assert sample_value(fams, 'mysql_global_status_commands_total', command='select') >= 1
    assert sample_value(fams, 'mysql_global_status_commands_total', command='replace') >= 1
    for name, v in variables.items():
        num = parse_status_number(v)
        if num is not None and name not in ('timestamp', 'gtid_binlog_pos', 'gtid_current_pos'):
            assert sample_value(fams, 'mysql_global_variables_' + name) == num, name
    assert sample_value(fams, 'mysql_global_variables_monitor_http_port') == mon.port
    # strata's own gauges
    assert 0 <= sample_value(fams, 'strata_buffer_pool_hit_rate') <= 1
    assert sample_value(fams, 'strata_buffer_pool_dirty_pages') >= 0
    assert sample_value(fams, 'strata_tablespace_total_extents', tablespace='strata_system') >= \
        sample_value(fams, 'strata_tablespace_free_extents', tablespace='strata_system')
    assert sample_value(fams, 'strata_binlog_files') >= 1
    assert sample_value(fams, 'strata_binlog_bytes') > 0
    assert 'mysql_slave_status_slave_io_running' not in fams  # not a replica


def test_metrics_replica_status(fresh_strata):
    """A configured replica (its IO thread not started) publishes mysql_slave_status_* with master_host."""
    port = conftest.free_port()
    fresh_strata.start(['--monitor-http-port=%d' % port])
    with fresh_strata.connect() as c, c.cursor() as cur:
        cur.execute("CHANGE MASTER TO master_host='127.0.0.1', master_port=%d, master_user='r'"
                    % conftest.free_port())
    st, _, body = http_get(port, '/metrics', 'root')
    fams = families(body.decode())
    assert sample_value(fams, 'mysql_slave_status_slave_io_running', master_host='127.0.0.1') == 0
    assert sample_value(fams, 'mysql_slave_status_slave_sql_running') == 0
    assert 'mysql_slave_status_seconds_behind_master' not in fams  # NULL while stopped


def test_scrape_runs_no_statement(mon):
    """No Questions, no process-list row, no general- or slow-log record for a scrape or a page."""
    d = tempfile.mkdtemp(prefix='itest-monlog-')
    gen, slow = os.path.join(d, 'general.log'), os.path.join(d, 'slow.log')
    with mon.srv.connect() as c, c.cursor() as cur:
        cur.execute("SET GLOBAL general_log_file = '%s', slow_query_log_file = '%s'" % (gen, slow))
        cur.execute('SET GLOBAL long_query_time = 0')
        cur.execute('SET GLOBAL general_log = ON, slow_query_log = ON')
        try:
            sizes = (os.path.getsize(gen), os.path.getsize(slow))
            q0 = sample_value(families(mon.metrics_text()), 'mysql_global_status_questions')
            for path in ('/metrics', '/api/status', '/api/variables', '/api/processlist', '/api/digests'):
                assert mon.get(path)[0] == 200
            q1 = sample_value(families(mon.metrics_text()), 'mysql_global_status_questions')
            assert q1 == q0
            assert (os.path.getsize(gen), os.path.getsize(slow)) == sizes
            rows = mon.json('/api/processlist')
            assert all(r['user'] == 'root' for r in rows) and len(rows) == 1, rows
        finally:
            cur.execute('SET GLOBAL general_log = OFF, slow_query_log = OFF')
            cur.execute('SET GLOBAL long_query_time = 10')
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(not PROMETHEUS, reason='Debian prometheus not installed (scripts/deps)')
def test_prometheus_scrapes_with_basic_auth(mon):
    d = tempfile.mkdtemp(prefix='itest-prom-')
    with mon.srv.connect() as c, c.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS prom@localhost IDENTIFIED BY 'scrape-pw'")
        cur.execute('GRANT PROCESS ON *.* TO prom@localhost')
    cfg = os.path.join(d, 'prometheus.yml')
    with open(cfg, 'w') as f:
        f.write('global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
                'scrape_configs:\n  - job_name: strata\n    basic_auth:\n      username: prom\n'
                '      password: scrape-pw\n    static_configs:\n      - targets: ["127.0.0.1:%d"]\n' % mon.port)
    pport = conftest.free_port()
    log = open(os.path.join(d, 'prometheus.log'), 'wb')
    p = subprocess.Popen([PROMETHEUS, '--config.file=' + cfg, '--storage.tsdb.path=' + os.path.join(d, 'data'),
                          '--web.listen-address=127.0.0.1:%d' % pport], stdout=log, stderr=log,
                         preexec_fn=conftest.die_with_parent)
    try:
        deadline = time.time() + 90
        result = None
        while time.time() < deadline:
            time.sleep(1)
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/api/v1/query?query=mysql_global_status_queries'
                                            % pport, timeout=5) as r:
                    res = json.loads(r.read())
            except (urllib.error.URLError, ConnectionError):
                continue
            if res.get('status') == 'success' and res['data']['result']:
                result = res['data']['result']
                break
        assert result, open(os.path.join(d, 'prometheus.log')).read()[-3000:]
        assert result[0]['metric']['instance'] == '127.0.0.1:%d' % mon.port
        assert float(result[0]['value'][1]) > 0
        with urllib.request.urlopen('http://127.0.0.1:%d/api/v1/query?query=up' % pport, timeout=5) as r:
            assert json.loads(r.read())['data']['result'][0]['value'][1] == '1'
    finally:
        p.terminate()
        p.wait(30)
        log.close()
    shutil.rmtree(d, ignore_errors=True)


def scrape_seconds(mon, n=15):
    """Medians of (the HTTP round trip, the server's own render time strata_metrics_render_seconds)."""
    times, render = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        text = mon.metrics_text()
        times.append(time.perf_counter() - t0)
        render.append(float(re.search(r'^strata_metrics_render_seconds (\S+)$', text, re.M).group(1)))
    times.sort()
    render.sort()
    return times[len(times) // 2], render[len(render) // 2]


def test_scrape_cost_does_not_grow_with_tables(fresh_strata):
    """A scrape with 2,000 tables costs what it costs with one, and says the same things (no per-table
    metric): the median of 15 scrapes is printed for both."""
    port = conftest.free_port()
    fresh_strata.start(['--monitor-http-port=%d' % port])
    mon = Monitor(fresh_strata, port)
    with fresh_strata.connect() as c, c.cursor() as cur:
        cur.execute('CREATE DATABASE many')
        cur.execute('CREATE TABLE many.t0 (a INT PRIMARY KEY)')
        one, one_render = scrape_seconds(mon)
        lines_one = len(mon.metrics_text().splitlines())
        for i in range(1, 2000):
            cur.execute('CREATE TABLE many.t%d (a INT PRIMARY KEY)' % i)
        many, many_render = scrape_seconds(mon)
        lines_many = len(mon.metrics_text().splitlines())
    print('\nscrape median: 1 table %.2f ms (render %.3f ms), 2000 tables %.2f ms (render %.3f ms); %d lines'
          % (one * 1e3, one_render * 1e3, many * 1e3, many_render * 1e3, lines_many))
    assert lines_many == lines_one
    # loose, against noise on a shared machine: a catalog walk would cost orders of magnitude more
    assert many_render < one_render * 5 + 0.002


def test_scrape_with_1200_connections(fresh_strata):
    """With more SQL connections open than select() can watch (FD_SETSIZE 1024), the HTTP socket's descriptor
    is above 1024: the server must still answer, and the render time is printed for 1 and 1,200 connections."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 2048:
        pytest.skip('the test process may not open 1,200 connections (RLIMIT_NOFILE %d)' % hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    port = conftest.free_port()
    fresh_strata.start(['--monitor-http-port=%d' % port])
    mon = Monitor(fresh_strata, port)
    _, one = scrape_seconds(mon, 7)
    conns = []
    try:
        for _ in range(1200):
            conns.append(fresh_strata.connect(unix=True))
        _, many = scrape_seconds(mon, 7)
        fams = families(mon.metrics_text())
        assert sample_value(fams, 'mysql_global_status_threads_connected') >= 1200
    finally:
        for c in conns:
            c.close()
    print('\nrender median: 1 connection %.3f ms, 1200 connections %.3f ms' % (one * 1e3, many * 1e3))


# ---- JSON ----------------------------------------------------------------------------------------------

def test_api_endpoints(mon):
    with mon.srv.connect() as c, c.cursor() as cur:
        cur.execute('CREATE DATABASE IF NOT EXISTS monapi')
        cur.execute('CREATE TABLE IF NOT EXISTS monapi.t (a INT PRIMARY KEY)')
        cur.execute('SELECT COUNT(*) FROM monapi.t WHERE a > 41')
        status = status_map(c)
        api = mon.json('/api/status')
        assert set(api) == set(status)
        assert api['Com_select'] == status['Com_select']
        variables = {v['name']: v for v in mon.json('/api/variables')}
        assert variables['monitor_http_port']['changed'] is True
        assert variables['monitor_http_port']['value'] == str(mon.port)
        assert variables['autocommit']['changed'] is False
        assert variables['max_connections']['changed'] is False
        digests = mon.json('/api/digests')
        assert any('monapi' == d['schema'] or 'SELECT COUNT' in d['text'] for d in digests), digests[:5]
        assert all(set(d) >= {'text', 'count', 'sum_ms', 'p95_ms', 'p99_ms'} for d in digests)
        ts = mon.json('/api/tablespaces')
        assert any(t['file'] == 'strata_sys.dat' and t['total_extents'] >= t['free_extents'] for t in ts), ts
        bl = mon.json('/api/binlogs')
        assert bl and bl[-1]['active'] and bl[-1]['name'].startswith('strata-bin.')
        procs = mon.json('/api/processlist')
        with c.cursor() as cur2:
            cur2.execute('SELECT CONNECTION_ID()')
            me = cur2.fetchone()[0]
        assert any(p['id'] == me and p['user'] == 'root' for p in procs), procs
        charts = mon.json('/api/charts')
        assert {'queries', 'threads_connected', 'bp_hit_rate', 'bp_dirty'} <= {ch['name'] for ch in charts}
        st, hdr, svg = mon.get('/chart/queries.svg?window=300')
        assert st == 200 and hdr['Content-Type'] == 'image/svg+xml' and svg.startswith(b'<svg')


# ---- pages in a browser --------------------------------------------------------------------------------

def chromium_dump(port, path, user='root', password=''):
    """(DOM after scripts ran, console lines) of a page in headless Chromium."""
    prof = tempfile.mkdtemp(prefix='itest-chromium-')
    try:
        r = subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
                            '--user-data-dir=' + prof, '--enable-logging=stderr', '--v=0',
                            '--virtual-time-budget=5000', '--dump-dom',
                            'http://%s:%s@127.0.0.1:%d%s' % (user, password, port, path)],
                           capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    console = [ln for ln in r.stderr.splitlines() if ':CONSOLE' in ln or 'Page load failed' in ln]
    return r.stdout, console


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    import struct
    import zlib
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


@pytest.mark.skipif(not CHROMIUM, reason='Debian chromium not installed (scripts/deps)')
def test_pages_load_in_chromium(mon):
    stop = threading.Event()

    def load():  # queries for the charts to show
        with mon.srv.connect() as c, c.cursor() as cur:
            while not stop.is_set():
                cur.execute('SELECT 1')
                time.sleep(0.01)
    t = threading.Thread(target=load)
    t.start()
    try:
        time.sleep(5)  # at least two samples of the ring
        expect = {'/': r'<polyline class="series"', '/variables': r'<tr class="changed"><td>monitor_http_port</td>',
                  '/processlist': r'<td>root</td>', '/digests': r'SELECT \?',
                  '/tablespaces': r'strata_sys\.dat', '/binlogs': r'strata-bin\.000001'}
        for path, pat in expect.items():
            dom, console = chromium_dump(mon.port, path)
            assert console == [], (path, console)
            assert re.search(pat, dom), (path, pat, dom[:3000])
            assert 'could not load' not in dom, path
        charts = re.findall(r'<svg[^>]*class="chart"', chromium_dump(mon.port, '/')[0])
        assert len(charts) >= 10
        # the screenshot shows the series lines: pixels of their colour (#1f6feb) in the chart area
        shot = os.path.join(tempfile.mkdtemp(prefix='itest-shot-'), 'overview.png')
        prof = tempfile.mkdtemp(prefix='itest-chromium-')
        subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
                        '--user-data-dir=' + prof, '--window-size=1400,1100', '--virtual-time-budget=5000',
                        '--screenshot=' + shot, 'http://root:@127.0.0.1:%d/' % mon.port],
                       capture_output=True, timeout=120)
        shutil.rmtree(prof, ignore_errors=True)
        w, h, bpp, rows = png_pixels(shot)
        blue = sum(1 for row in rows for x in range(0, w * bpp, bpp)
                   if abs(row[x] - 0x1f) < 40 and abs(row[x + 1] - 0x6f) < 40 and abs(row[x + 2] - 0xeb) < 40)
        assert blue > 50, 'no series drawn in %s (%d pixels of its colour)' % (shot, blue)
        shutil.rmtree(os.path.dirname(shot), ignore_errors=True)
    finally:
        stop.set()
        t.join()
    dom, console = chromium_dump(mon.port, '/', password='wrong')
    assert any('ERR_INVALID_AUTH_CREDENTIALS' in ln for ln in console) or '<polyline' not in dom


# ---- TLS -----------------------------------------------------------------------------------------------

def test_tls_with_the_server_certificate(fresh_strata):
    port = conftest.free_port()
    fresh_strata.start(['--monitor-http-port=%d' % port, '--monitor-http-tls=ON'])
    ctx = ssl.create_default_context(cafile=os.path.join(fresh_strata.datadir, 'ca.pem'))
    ctx.check_hostname = False
    st, _, body = http_get(port, '/metrics', 'root', scheme='https', ctx=ctx)
    assert st == 200 and b'mysql_up 1' in body
    assert http_get(port, '/metrics', scheme='https', ctx=ctx)[0] == 401
    with pytest.raises((urllib.error.URLError, ConnectionError, http_client_errors())):
        http_get(port, '/metrics', 'root')  # plain HTTP to the TLS port


def http_client_errors():
    import http.client
    return http.client.HTTPException


def test_ipv6_address(fresh_strata):
    """monitor_http_address ::1 binds IPv6 loopback only; root@localhost logs in from there."""
    import http.client
    port = conftest.free_port()
    fresh_strata.start(['--monitor-http-port=%d' % port, '--monitor-http-address=::1'])
    c = http.client.HTTPConnection('::1', port, timeout=30)
    c.request('GET', '/metrics', headers={'Authorization': 'Basic ' + base64.b64encode(b'root:').decode()})
    r = c.getresponse()
    assert r.status == 200 and b'mysql_up 1' in r.read()
    c.close()
    with pytest.raises(OSError):
        http_get(port, '/metrics', 'root')  # nothing on 127.0.0.1


# ---- windows past the ring's hour, from strata_monitor's history -----------------------------------------

def polyline_points(svg):
    m = re.search(rb'<polyline class="series"[^>]* points="([^"]*)"', svg)
    return [tuple(float(x) for x in p.split(b',')) for p in m.group(1).split()] if m else []


def axis_top(svg):
    """The value at the top grid line (the chart's scale)."""
    labels = re.findall(rb'text-anchor="end" fill="#555">([^<]*)<', svg)
    return labels[-1].decode()


def test_day_and_week_charts_and_days_to_full_read_the_history(fresh_strata):
    """The 1 day and 7 days windows are drawn from strata_monitor.status_history: a synthetic day of samples
    (Questions growing 20 a second, Threads_connected at 7, every 10 minutes) draws a rate chart topped at 20 and
    a gauge chart at 7 over that day, and nothing for the week before it; the data file whose used extents grew
    by 4 in the last 12 hours of history (8 a day), with no room to autoextend into (disk free 0), is full in
    free extents / 8 days."""
    s, port = fresh_strata, conftest.free_port()
    s.start(['--monitor-http-port=%d' % port, '--monitor-interval=1'])
    mon = Monitor(s, port)
    with s.connect() as c, c.cursor() as cur:
        for _ in range(100):  # the sampler's first pass creates the tables
            cur.execute("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'strata_monitor' "
                        "AND TABLE_NAME = 'status_history'")
            if cur.fetchone()[0]:
                break
            time.sleep(0.1)
        cur.execute('SET GLOBAL monitor_interval = 0')  # no live sample mixes in
        time.sleep(1.5)
        cur.execute('DELETE FROM strata_monitor.status_history')
        now = int(time.time())
        rows = []
        for k in range(0, 24 * 6 + 1):
            ts = now - 86400 + 300 + k * 600
            rows.append("('local', %d, 'Questions', %d)" % (ts, 1000 + 20 * (ts - (now - 86400))))
            rows.append("('local', %d, 'Threads_connected', 7)" % ts)
        cur.execute('INSERT INTO strata_monitor.status_history (server, ts, name, value) VALUES ' + ','.join(rows))
        files = mon.json('/api/tablespaces')
        f = next(x for x in files if x['file'] == 'strata_sys.dat')
        assert f['days_to_full'] is None  # no history of its extents yet
        used_now = f['total_extents'] - f['free_extents']
        then = now - 12 * 3600
        cur.execute("INSERT INTO strata_monitor.status_history (server, ts, name, value) VALUES "
                    "('local', %d, 'Strata_datafile_free_extents:strata_sys.dat', %d), "
                    "('local', %d, 'Strata_datafile_total_extents:strata_sys.dat', %d), "
                    "('local', %d, 'Strata_disk_free_bytes', 0)"
                    % (then, f['free_extents'] + 4, then, f['total_extents'], now - 60))
    st, _, svg = mon.get('/chart/queries.svg?window=86400')
    assert st == 200
    pts = polyline_points(svg)
    assert len(pts) > 100, svg[-400:]
    assert axis_top(svg) == '20', svg[:1200]
    assert b'-18 h' in svg
    _, _, svg = mon.get('/chart/threads_connected.svg?window=86400')
    assert axis_top(svg) == '10' and len(polyline_points(svg)) > 100
    ys = {round(y, 1) for _, y in polyline_points(svg)}
    assert len(ys) == 1  # a flat 7
    _, _, svg = mon.get('/chart/queries.svg?window=604800')
    pts = polyline_points(svg)
    assert pts and min(x for x, _ in pts) > 56 + (628 - 56) * 5.9 / 7, pts[:3]  # only the last day has data
    assert b'-7 d' in svg or b'-5.25 d' in svg
    files = mon.json('/api/tablespaces')
    f = next(x for x in files if x['file'] == 'strata_sys.dat')
    # used grew by 4 extents in 12 h: 8 extents a day; room: free extents (+ 0 to autoextend into: disk free 0)
    rate = 4 * f['extent_size'] * 2
    assert abs(f['growth_bytes_per_day'] - rate) / rate < 0.01, f
    want = f['free_extents'] * f['extent_size'] / rate
    assert f['days_to_full'] is not None and abs(f['days_to_full'] - want) < 0.02, (f, want)
    assert used_now == f['total_extents'] - f['free_extents']


def test_fleet_and_replicas_pages(fresh_strata):
    """/api/fleet lists 'local' and each server of strata_monitor.servers with its latest sample and query rate
    from the history, and a sum row; /chart/<name>.svg?server=all sums the servers' series; /api/replicas
    lists a connection registered as a replica (COM_REGISTER_SLAVE) and this server's own link once CHANGE
    MASTER TO configured one; both pages load in Chromium without console errors."""
    import struct
    s, port = fresh_strata, conftest.free_port()
    s.start(['--monitor-http-port=%d' % port, '--monitor-interval=1'])
    mon = Monitor(s, port)
    with s.connect() as c, c.cursor() as cur:
        for _ in range(100):
            cur.execute("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'strata_monitor' "
                        "AND TABLE_NAME = 'servers'")
            if cur.fetchone()[0]:
                break
            time.sleep(0.1)
        cur.execute('SET GLOBAL monitor_interval = 0')
        time.sleep(1.5)
        cur.execute('DELETE FROM strata_monitor.status_history')
        cur.execute("INSERT INTO strata_monitor.servers (host, port) VALUES ('127.0.0.1', 1)")
        now = int(time.time())
        rows = []
        for srv, conns, qps, up in (('local', 5, 10, 1), ('127.0.0.1:1', 3, 30, 1)):
            for k in range(30):
                ts = now - 1800 + k * 60
                rows += ["('%s', %d, 'Threads_connected', %d)" % (srv, ts, conns),
                         "('%s', %d, 'Threads_running', 1)" % (srv, ts),
                         "('%s', %d, 'Uptime', %d)" % (srv, ts, 10000 + k * 60),
                         "('%s', %d, 'Questions', %d)" % (srv, ts, qps * k * 60),
                         "('%s', %d, 'Strata_up', %d)" % (srv, ts, up)]
        rows.append("('127.0.0.1:1', %d, 'Strata_replica_lag_seconds', 4)" % (now - 1800 + 29 * 60))
        cur.execute('INSERT INTO strata_monitor.status_history (server, ts, name, value) VALUES ' + ','.join(rows))
    fleet = {r['server']: r for r in mon.json('/api/fleet')}
    assert list(fleet) == ['local', '127.0.0.1:1', 'all'], fleet
    assert fleet['local']['threads_connected'] == 5 and fleet['127.0.0.1:1']['threads_connected'] == 3
    assert abs(fleet['local']['questions_per_second'] - 10) < 0.01
    assert abs(fleet['127.0.0.1:1']['questions_per_second'] - 30) < 0.01
    assert fleet['127.0.0.1:1']['replica_lag_seconds'] == 4 and fleet['local']['replica_lag_seconds'] is None
    assert fleet['all']['threads_connected'] == 8 and abs(fleet['all']['questions_per_second'] - 40) < 0.01
    assert fleet['all']['up'] == 2
    _, _, svg = mon.get('/chart/threads_connected.svg?server=all&window=3600')
    assert axis_top(svg) == '10' and len(polyline_points(svg)) >= 20, svg[-300:]
    assert {round(y, 1) for _, y in polyline_points(svg)} == {round(172 - 144 * 8 / 10, 1)}  # a flat 8
    _, _, svg = mon.get('/chart/queries.svg?server=127.0.0.1:1&window=3600')
    assert axis_top(svg) == '50' and len(polyline_points(svg)) >= 20  # 30 a second, one server
    assert mon.json('/api/replicas') == {'replicas': [], 'source': None}
    rep = s.connect()
    rep._execute_command(0x15, struct.pack('<IBBBHII', 77, 0, 0, 0, 3306, 0, 0))  # COM_REGISTER_SLAVE
    rep._read_ok_packet()
    with s.connect() as c, c.cursor() as cur:
        cur.execute("CHANGE MASTER TO master_host='127.0.0.1', master_port=%d, master_user='r'" % conftest.free_port())
    r = mon.json('/api/replicas')
    assert [x['server_id'] for x in r['replicas']] == [77], r
    assert r['source']['host'] == '127.0.0.1' and r['source']['sql_running'] == 'No'
    assert r['source']['seconds_behind_master'] is None
    if CHROMIUM:
        for path, pat in (('/fleet', r'127\.0\.0\.1:1'), ('/replicas', r'>77</td>')):
            dom, console = chromium_dump(port, path)
            assert console == [], (path, console)
            assert re.search(pat, dom) and 'could not load' not in dom, (path, dom[:2000])
        dom, _ = chromium_dump(port, '/fleet')
        assert len(re.findall(r'<polyline class="series"', dom)) == 3, dom[:3000]
    rep.close()
