"""System variables (GLOBAL / SESSION, SET forms, errors), user variables, SHOW VARIABLES, SHOW STATUS with
MySQL's status names, and what stock clients send when they connect (mariadb CLI, PyMySQL, mysqlclient,
mariadb-dump)."""
import re
import subprocess
import time

import MySQLdb
import pytest

import rawclient
from rawclient import RawClient, ServerError


@pytest.fixture
def c(target):
    cl = RawClient.connect(port=target.port)
    yield cl
    cl.close()


def one(c, sql):
    return c.query(sql)[1][0]


def err(c, sql):
    with pytest.raises(ServerError) as ei:
        c.query(sql)
    e = ei.value
    return e.code, e.sqlstate, e.message


def test_session_set_forms(c):
    base = one(c, 'SELECT @@GLOBAL.wait_timeout')[0]
    c.query('SET SESSION wait_timeout = 101')
    assert one(c, 'SELECT @@wait_timeout, @@SESSION.wait_timeout, @@GLOBAL.wait_timeout') == (b'101', b'101', base)
    c.query('SET @@wait_timeout = 102')
    assert one(c, 'SELECT @@session.wait_timeout') == (b'102',)
    c.query('SET @@session.wait_timeout = 103')
    assert one(c, 'SELECT @@wait_timeout') == (b'103',)
    c.query('SET wait_timeout = 104')
    assert one(c, 'SELECT @@wait_timeout') == (b'104',)
    c.query('SET LOCAL wait_timeout = 105')
    assert one(c, 'SELECT @@wait_timeout') == (b'105',)
    c.query('SET wait_timeout = DEFAULT')
    assert one(c, 'SELECT @@wait_timeout') == (base,)
    # several in one SET, mixing user and system variables
    c.query('SET @x = 3, max_error_count = 10, @@SESSION.net_read_timeout = 31')
    assert one(c, 'SELECT @x, @@max_error_count, @@net_read_timeout') == (b'3', b'10', b'31')


def test_global_scope(fresh_target):
    s = fresh_target
    a = RawClient.connect(port=s.port)
    a.query('SET SESSION wait_timeout = 100')
    a.query('SET GLOBAL wait_timeout = 200')
    assert one(a, 'SELECT @@wait_timeout, @@GLOBAL.wait_timeout') == (b'100', b'200')
    b = RawClient.connect(port=s.port)  # a new session starts from the global value
    assert one(b, 'SELECT @@wait_timeout') == (b'200',)
    c2 = RawClient.connect(port=s.port)
    c2.query('SET @@GLOBAL.wait_timeout = 300')
    assert one(b, 'SELECT @@wait_timeout, @@GLOBAL.wait_timeout') == (b'200', b'300')
    # global-only variable
    a.query('SET GLOBAL max_connections = 77')
    assert one(b, 'SELECT @@max_connections, @@GLOBAL.max_connections') == (b'77', b'77')
    for x in (a, b, c2):
        x.close()


def test_variable_errors(c):
    assert err(c, 'SET @@no_such_var = 1') == (1193, 'HY000', "Unknown system variable 'no_such_var'")
    assert err(c, 'SELECT @@no_such_var') == (1193, 'HY000', "Unknown system variable 'no_such_var'")
    assert err(c, 'SET SESSION max_connections = 10') == (
        1229, 'HY000', "Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL")
    assert err(c, 'SELECT @@SESSION.max_connections') == (
        1238, 'HY000', "Variable 'max_connections' is a GLOBAL variable")
    assert err(c, 'SET @@warning_count = 1') == (1238, 'HY000', "Variable 'warning_count' is a read only variable")
    assert err(c, "SET autocommit = 'maybe'") == (
        1231, '42000', "Variable 'autocommit' can't be set to the value of 'maybe'")
    assert err(c, "SET wait_timeout = 'abc'") == (1232, '42000', "Incorrect argument type to variable 'wait_timeout'")


def test_out_of_range_truncated_with_warning(c):
    c.query('SET wait_timeout = 0')
    assert c.last.warnings == 1
    assert c.query('SHOW WARNINGS')[1] == [(b'Warning', b'1292', b"Truncated incorrect wait_timeout value: '0'")]
    assert one(c, 'SELECT @@wait_timeout') == (b'1',)


def test_autocommit_in_status_flags(c):
    r = c.query_results('SET autocommit = 0')[0]
    assert not r.status & rawclient.SERVER_STATUS_AUTOCOMMIT
    assert one(c, 'SELECT @@autocommit') == (b'0',)
    r = c.query_results('SET autocommit = 1')[0]
    assert r.status & rawclient.SERVER_STATUS_AUTOCOMMIT


def test_set_names(c):
    c.query('SET NAMES latin1 COLLATE latin1_bin')
    assert one(c, 'SELECT @@character_set_client, @@character_set_connection, @@character_set_results, '
                  '@@collation_connection') == (b'latin1', b'latin1', b'latin1', b'latin1_bin')
    c.query("SET NAMES 'utf8mb4'")
    assert one(c, 'SELECT @@character_set_client, @@character_set_connection, @@character_set_results, '
                  '@@collation_connection') == (b'utf8mb4', b'utf8mb4', b'utf8mb4', b'utf8mb4_general_ci')
    assert err(c, 'SET NAMES nosuchcharset')[0] == 1115  # ER_UNKNOWN_CHARACTER_SET


def test_user_variables(c):
    c.query("SET @a = 1, @b = 'x', @c = NULL, @d = 1.5")
    c.query('SET @a = @a + 1')
    assert one(c, 'SELECT @a, @b, @c, @d, @undefined_var') == (b'2', b'x', None, b'1.5', None)
    assert one(c, 'SELECT @a := 7, @a') == (b'7', b'7')
    c.query('SET @A_Case = 5')
    assert one(c, 'SELECT @a_case') == (b'5',)  # user variable names are case-insensitive


def test_user_variables_are_per_session(target):
    a = RawClient.connect(port=target.port)
    b = RawClient.connect(port=target.port)
    a.query('SET @mine = 1')
    assert one(b, 'SELECT @mine') == (None,)
    a.close()
    b.close()


def test_show_variables(c, target):
    names, rows = c.query("SHOW VARIABLES LIKE 'net_%_timeout'")
    assert names == ['Variable_name', 'Value']
    assert rows == [(b'net_read_timeout', b'30'), (b'net_write_timeout', b'60')]
    rows = c.query("SHOW VARIABLES WHERE Variable_name IN ('port', 'wait_timeout')")[1]
    assert rows == [(b'port', str(target.port).encode()), (b'wait_timeout', b'28800')]
    c.query('SET SESSION wait_timeout = 123')
    assert c.query("SHOW SESSION VARIABLES LIKE 'wait_timeout'")[1] == [(b'wait_timeout', b'123')]
    assert c.query("SHOW VARIABLES LIKE 'wait_timeout'")[1] == [(b'wait_timeout', b'123')]
    assert c.query("SHOW GLOBAL VARIABLES LIKE 'wait_timeout'")[1] == [(b'wait_timeout', b'28800')]
    assert c.query("SHOW VARIABLES LIKE 'max\\_allowed\\_packet'")[1] == [(b'max_allowed_packet', b'16777216')]
    assert c.query("SHOW VARIABLES LIKE 'no_such_%'")[1] == []
    allv = c.query('SHOW GLOBAL VARIABLES')[1]
    names = [r[0] for r in allv]
    assert len(names) > 50 and 'wait_timeout' in [n.decode() for n in names]


def test_server_identity_variables(c, target):
    row = one(c, 'SELECT @@port, @@socket, @@datadir, @@bind_address, @@version, @@lower_case_table_names, '
                 '@@autocommit, @@tx_isolation, @@character_set_server, @@max_connections > 0')
    port, sock, datadir, bind, version, lctn, ac, iso, cs, mc = row
    assert int(port) == target.port
    assert sock.decode() == target.socket
    assert datadir.decode() == target.datadir + '/'  # MariaDB shows it with the trailing slash
    assert bind == b'127.0.0.1'
    assert re.match(target.differs('version_re'), version.decode())
    assert (lctn, ac, iso, mc) == (b'0', b'1', b'REPEATABLE-READ', b'1')
    assert one(c, 'SELECT VERSION()') == (version,)
    assert len(c.query('SELECT @@version_comment LIMIT 1')[1]) == 1


# -- status ---------------------------------------------------------------------------------------------
def status(c, name, scope='SESSION'):
    rows = c.query("SHOW %s STATUS LIKE '%s'" % (scope, name))[1]
    assert len(rows) == 1, (name, rows)
    return rows[0][1].decode()


STATUS_NAMES = ['Uptime', 'Threads_connected', 'Threads_running', 'Threads_created', 'Connections', 'Questions',
                'Queries', 'Com_select', 'Com_set_option', 'Com_show_status', 'Com_show_variables',
                'Bytes_sent', 'Bytes_received', 'Aborted_connects', 'Aborted_clients', 'Max_used_connections',
                'Prepared_stmt_count', 'Ssl_version', 'Ssl_cipher', 'Compression', 'Uptime_since_flush_status']


def test_status_names_exist(c):
    names = [r[0].decode() for r in c.query('SHOW GLOBAL STATUS')[1]]
    missing = [n for n in STATUS_NAMES if n not in names]
    assert not missing, missing
    assert c.query("SHOW STATUS LIKE 'Uptime'")[0] == ['Variable_name', 'Value']


def test_status_counters(target, c):
    u1 = int(status(c, 'Uptime', 'GLOBAL'))
    q1 = int(status(c, 'Questions'))
    s1 = int(status(c, 'Com_select'))
    for _ in range(3):
        c.query('SELECT 1')
    q2 = int(status(c, 'Questions'))
    s2 = int(status(c, 'Com_select'))
    assert q2 - q1 == 5  # the SHOW, 3 SELECTs and the second SHOW (counted when it starts)
    assert s2 - s1 == 3
    assert int(status(c, 'Questions', 'GLOBAL')) >= q2
    r1 = int(status(c, 'Bytes_received'))
    c.query("SELECT '" + 'x' * 10000 + "'")
    r2 = int(status(c, 'Bytes_received'))
    assert 10000 < r2 - r1 < 12000
    b1 = int(status(c, 'Bytes_sent'))
    c.query("SELECT REPEAT('y', 20000)")
    b2 = int(status(c, 'Bytes_sent'))
    assert 20000 < b2 - b1 < 22000
    time.sleep(1.1)
    assert int(status(c, 'Uptime', 'GLOBAL')) >= u1 + 1


def test_threads_and_connections(target, c):
    def g(name):
        return int(status(c, name, 'GLOBAL'))
    # let connections of earlier tests finish closing
    end = time.time() + 5
    prev = g('Threads_connected')
    while time.time() < end:
        time.sleep(0.2)
        cur = g('Threads_connected')
        if cur == prev:
            break
        prev = cur
    conn1, tc1 = g('Connections'), g('Threads_connected')
    extra = [RawClient.connect(port=target.port) for _ in range(3)]
    assert g('Connections') == conn1 + 3
    assert g('Threads_connected') == tc1 + 3
    assert g('Max_used_connections') >= tc1 + 3
    assert g('Threads_running') >= 1
    for x in extra:
        x.quit()
    end = time.time() + 5
    while time.time() < end and g('Threads_connected') != tc1:
        time.sleep(0.05)
    assert g('Threads_connected') == tc1


def test_show_status_where(c):
    rows = c.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Uptime', 'Connections')")[1]
    assert [r[0] for r in rows] == [b'Connections', b'Uptime']
    assert all(r[1].isdigit() for r in rows)


# -- what clients send at connect --------------------------------------------------------------------------
def test_cli_interactive_queries(target):
    r = target.cli('--skip-ssl', '-e', 'status')
    assert re.search(r'Uptime:\s+\d+', r.stdout)
    assert re.search(r'Threads: \d+  Questions: \d+', r.stdout)
    assert re.search(r'Current user:\s+root@localhost', r.stdout)
    r = target.cli('--skip-ssl', input='SELECT @@version_comment LIMIT 1;\nSELECT 5;\n')
    assert r.stdout.endswith('5\n5\n')


def test_pymysql_connect_options(target):
    p = target.connect(charset='utf8mb4', autocommit=False, init_command="SET @init = 'done'",
                       client_flag=0, sql_mode='STRICT_TRANS_TABLES')
    with p.cursor() as cur:
        cur.execute('SELECT @init, @@autocommit, @@character_set_client, @@sql_mode')
        assert cur.fetchone() == ('done', 0, 'utf8mb4', 'STRICT_TRANS_TABLES')
    p.close()


def test_mysqldb_connect_options(target):
    m = MySQLdb.connect(host=target.host, port=target.port, user='root', charset='utf8mb4',
                        init_command="SET @init = 'md'", autocommit=True)
    cur = m.cursor()
    cur.execute('SELECT @init, @@autocommit, @@character_set_results')
    assert cur.fetchone() == ('md', 1, 'utf8mb4')
    m.autocommit(False)
    cur.execute('SELECT @@autocommit')
    assert cur.fetchone() == (0,)
    assert m.character_set_name() == 'utf8mb4'
    m.close()


def test_mariadb_dump_no_data(target):
    r = subprocess.run(['mariadb-dump', '--no-defaults', '-h', target.host, '-P', str(target.port), '-uroot',
                        '--skip-ssl', '--no-data', '--all-databases'], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '-- MariaDB dump' in r.stdout
    assert re.search(r'-- Dump completed on \d{4}-\d\d-\d\d', r.stdout)


def test_cli_interactive_session(target):
    """The mariadb CLI on a terminal: banner (it asks @@version_comment at connect), a statement, quit."""
    import os
    import pty
    import select
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp('mariadb', ['mariadb', '--no-defaults', '--skip-ssl', '-uroot', '-h', target.host,
                              '-P', str(target.port), '--protocol=TCP'])
    out = b''

    def read_until(token, timeout=20):
        nonlocal out
        end = time.time() + timeout
        while token not in out and time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
        return token in out
    try:
        assert read_until(b'> '), out
        os.write(fd, b'SELECT 6*7 AS answer;\n')
        assert read_until(b'| answer |') and read_until(b'|     42 |'), out
        os.write(fd, b'quit\n')
        read_until(b'Bye')
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    text = out.decode(errors='replace')
    assert 'Welcome to the MariaDB monitor' in text
    m = re.search(r'Server version: (\S+)', text)
    assert m and re.match(target.differs('version_re'), m.group(1)), text
    assert 'ERROR' not in text, text
    assert os.WEXITSTATUS(status) == 0


# What connectors read at connect (Connector/J's list, plus MariaDB Connector/C and the CLI) and what
# mariadb-dump and sysbench look at; the default values must be MariaDB's unless DIFFERENCES says otherwise.
CONNECT_TIME_VARIABLES = [
    'auto_increment_increment', 'auto_increment_offset', 'autocommit', 'character_set_client',
    'character_set_connection', 'character_set_results', 'character_set_server', 'collation_server',
    'collation_connection', 'init_connect', 'interactive_timeout', 'license', 'lower_case_table_names',
    'max_allowed_packet', 'net_buffer_length', 'net_read_timeout', 'net_write_timeout', 'performance_schema',
    'query_cache_size', 'query_cache_type', 'sql_mode', 'system_time_zone', 'time_zone', 'tx_isolation',
    'tx_read_only', 'wait_timeout', 'max_error_count', 'sql_notes', 'sql_warnings', 'sql_select_limit',
    'sql_auto_is_null', 'sql_safe_updates', 'max_join_size', 'big_tables', 'foreign_key_checks',
    'unique_checks', 'group_concat_max_len', 'div_precision_increment', 'default_storage_engine',
    'connect_timeout', 'have_ssl', 'have_openssl', 'skip_networking', 'old_passwords', 'default_week_format', 'lc_time_names', 'explicit_defaults_for_timestamp',
    'max_connect_errors', 'thread_handling', 'version_compile_os', 'protocol_version', 'require_secure_transport',
]


def test_connect_time_defaults_match_mariadb(request):
    """Differential: the default value of each variable above is the same on strata and MariaDB."""
    import conftest
    if request.config.getoption('target') != 'both':
        pytest.skip('needs both servers')
    strata, maria = conftest.session_server('strata'), conftest.session_server('mariadb')
    skip = conftest.DIFFERENCES['default_variables']['strata']
    diffs = []
    for name in CONNECT_TIME_VARIABLES:
        if name in skip:
            continue
        vals = []
        for s in (strata, maria):
            try:
                vals.append(s.query('SELECT @@GLOBAL.%s' % name)[0][0] if name not in ('tx_read_only',)
                            else s.query('SELECT @@%s' % name)[0][0])
            except Exception as e:  # noqa: BLE001 - an unknown variable is a difference too
                vals.append('ERROR %s' % (e.args[:1],))
        if str(vals[0]) != str(vals[1]):
            diffs.append('%s: strata %r, mariadb %r' % (name, vals[0], vals[1]))
    assert not diffs, '\n'.join(diffs)


def test_information_schema_system_variables(fresh_target):
    """information_schema.SYSTEM_VARIABLES as MariaDB has it (mariadb-test-run's include files read it): the
    values, where the global one came from (SQL after SET GLOBAL), scope, type and limits."""
    c = RawClient.connect(port=fresh_target.port)
    c.query('SET GLOBAL wait_timeout = 200')
    rows = c.query("SELECT VARIABLE_NAME, SESSION_VALUE IS NULL, GLOBAL_VALUE, GLOBAL_VALUE_ORIGIN, DEFAULT_VALUE, "
                   "VARIABLE_SCOPE, VARIABLE_TYPE, NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, NUMERIC_BLOCK_SIZE, "
                   "ENUM_VALUE_LIST, READ_ONLY, COMMAND_LINE_ARGUMENT FROM information_schema.SYSTEM_VARIABLES "
                   "WHERE VARIABLE_NAME IN ('WAIT_TIMEOUT', 'LOCK_WAIT_TIMEOUT', 'MAX_ALLOWED_PACKET', "
                   "'WARNING_COUNT', 'SQL_SAFE_UPDATES') ORDER BY 1")[1]
    assert rows == [
        (b'LOCK_WAIT_TIMEOUT', b'0', b'86400', b'COMPILE-TIME', b'86400', b'SESSION', b'BIGINT UNSIGNED', b'0',
         b'31536000', b'1', None, b'NO', b'REQUIRED'),
        (b'MAX_ALLOWED_PACKET', b'0', b'16777216', b'COMPILE-TIME', b'16777216', b'SESSION', b'BIGINT UNSIGNED',
         b'1024', b'1073741824', b'1024', None, b'NO', b'REQUIRED'),
        (b'SQL_SAFE_UPDATES', b'0', b'OFF', b'COMPILE-TIME', b'OFF', b'SESSION', b'BOOLEAN', None, None, None,
         b'OFF,ON', b'NO', b'OPTIONAL'),
        (b'WAIT_TIMEOUT', b'0', b'200', b'SQL', b'28800', b'SESSION', b'BIGINT UNSIGNED', b'1', b'31536000', b'1',
         None, b'NO', b'REQUIRED'),
        (b'WARNING_COUNT', b'0', None, b'COMPILE-TIME', None, b'SESSION ONLY', b'BIGINT UNSIGNED', b'0',
         b'18446744073709551615', b'1', None, b'YES', None),
    ]
    assert one(c, "SELECT COUNT(*) FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'VERSION' "
                  "AND READ_ONLY = 'YES' AND SESSION_VALUE IS NULL") == (b'1',)
    c.query('SET GLOBAL wait_timeout = DEFAULT')
    c.close()


def test_plugins(target):
    """SHOW PLUGINS and information_schema.PLUGINS name what is compiled in, as MariaDB lists it
    (tools test for an engine or an auth plugin there; mariadb-test-run's include files skip on them)."""
    c = RawClient.connect(port=target.port)
    cols, rows = c.query('SHOW PLUGINS')
    assert cols == ['Name', 'Status', 'Type', 'Library', 'License']
    assert (b'mysql_native_password', b'ACTIVE', b'AUTHENTICATION', None, b'GPL') in rows
    assert (b'InnoDB', b'ACTIVE', b'STORAGE ENGINE', None, b'GPL') in rows
    for form in ("SHOW PLUGINS LIKE 'x'", "SHOW PLUGINS WHERE Name = 'x'"):  # neither form in MariaDB
        with pytest.raises(ServerError) as e:
            c.query(form)
        assert e.value.code == 1064
    assert c.query("SELECT PLUGIN_STATUS, PLUGIN_TYPE, PLUGIN_LICENSE, PLUGIN_MATURITY FROM information_schema.PLUGINS "
                   "WHERE PLUGIN_NAME = 'InnoDB'")[1] == [(b'ACTIVE', b'STORAGE ENGINE', b'GPL', b'Stable')]
    c.close()
