"""Connecting with stock clients: the mariadb CLI, PyMySQL and MySQLdb (libmariadb), over TCP and the Unix
socket, plain, TLS and compressed (zlib; zstd through the raw client since no stock client here has it)."""
import os
import re
import subprocess

import pytest

import rawclient
from rawclient import RawClient


def version_ok(target, v):
    v = v[len('5.5.5-'):] if v.startswith('5.5.5-') else v
    return re.match(target.differs('version_re'), v), v


@pytest.mark.parametrize('unix', [False, True], ids=['tcp', 'unix'])
def test_cli_plain(target, unix):
    r = target.cli('--skip-ssl', '--batch', '-e', "SELECT 1+1 AS two, CURRENT_USER() AS cu, 'x' AS s, NULL AS n",
                   unix=unix)
    assert r.stdout == 'two\tcu\ts\tn\n2\troot@localhost\tx\tNULL\n'


@pytest.mark.parametrize('unix', [False, True], ids=['tcp', 'unix'])
def test_cli_status_connection(target, unix):
    r = target.cli('--skip-ssl', '-e', 'status', unix=unix)
    want = 'Localhost via UNIX socket' if unix else '127.0.0.1 via TCP/IP'
    assert re.search(r'Connection:\s+' + re.escape(want), r.stdout), r.stdout
    m = re.search(r'Server version:\s+(\S+)', r.stdout)
    assert m and version_ok(target, m.group(1))[0], r.stdout


def test_cli_ssl(target):
    r = target.cli('--ssl', '-e', 'status')
    assert re.search(r'SSL:\s+Cipher in use is \S+', r.stdout), r.stdout


def test_cli_ssl_status_variables(target):
    r = target.cli('--ssl', '--batch', '--skip-column-names', '-e',
                   "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version','Ssl_cipher')")
    vals = dict(line.split('\t') for line in r.stdout.splitlines())
    assert vals['Ssl_version'].startswith('TLSv1.'), vals
    assert vals['Ssl_cipher'] != '', vals


@pytest.mark.parametrize('unix', [False, True], ids=['tcp', 'unix'])
def test_cli_compress(target, unix):
    r = target.cli('--skip-ssl', '--compress', '-e', 'status', unix=unix)
    assert re.search(r'Protocol:\s+Compressed', r.stdout), r.stdout
    r = target.cli('--skip-ssl', '--compress', '--batch', '--skip-column-names', '-e',
                   "SHOW SESSION STATUS LIKE 'Compression'; SELECT REPEAT('ab', 5000)", unix=unix)
    lines = r.stdout.splitlines()
    assert lines[0] == 'Compression\tON'
    assert lines[1] == 'ab' * 5000


def test_cli_ssl_and_compress(target):
    r = target.cli('--ssl', '--compress', '--batch', '--skip-column-names', '-e',
                   "SELECT REPEAT('xyz', 3000); SHOW SESSION STATUS LIKE 'Compression'")
    lines = r.stdout.splitlines()
    assert lines == ['xyz' * 3000, 'Compression\tON']


def test_cli_column_type_info(target):
    r = target.cli('--skip-ssl', '-t', '--column-type-info', '-e', "SELECT 1 AS a, 'xy' AS b")
    expect_a = ('Field   1:  `a`\nOrg_field:  ``\nCatalog:    `def`\nDatabase:   ``\nTable:      ``\n'
                'Org_table:  ``\nType:       LONG\nCollation:  binary (63)\nLength:     1\nMax_length: 1\n'
                'Decimals:   0\nFlags:      NOT_NULL BINARY NUM \n')
    assert expect_a in r.stdout, r.stdout
    m = re.search(r'Field   2:  `b`.*?Type:\s+(\S+).*?Max_length: (\d+)', r.stdout, re.S)
    assert m and m.group(1) == 'VAR_STRING' and m.group(2) == '2', r.stdout
    assert '| 1 | xy |' in r.stdout


def test_cli_wrong_password(target):
    r = target.cli('--skip-ssl', '-e', 'SELECT 1', password='definitely-wrong', check=False)
    assert r.returncode == 1
    assert re.search(r"ERROR 1045 \(28000\): Access denied for user 'root'@'localhost' \(using password: YES\)",
                     r.stderr), r.stderr


# -- PyMySQL -----------------------------------------------------------------------------------------
@pytest.mark.parametrize('unix', [False, True], ids=['tcp', 'unix'])
def test_pymysql_plain(target, unix):
    c = target.connect(unix=unix)
    try:
        with c.cursor() as cur:
            cur.execute("SELECT 42, 'héllo', NULL, CONNECTION_ID() > 0")
            assert cur.fetchall() == ((42, 'héllo', None, 1),)
            assert [d[0] for d in cur.description] == ['42', 'héllo', 'NULL', 'CONNECTION_ID() > 0']
        m, v = version_ok(target, c.get_server_info())
        assert m, c.get_server_info()
        assert c.get_proto_info() == 10
    finally:
        c.close()


def test_pymysql_ssl(target):
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    c = target.connect(ssl=ctx)
    try:
        with c.cursor() as cur:
            cur.execute("SHOW SESSION STATUS LIKE 'Ssl_version'")
            assert cur.fetchone()[1].startswith('TLSv1.')
            cur.execute("SELECT REPEAT('s', 100000)")
            assert cur.fetchone()[0] == 's' * 100000
        assert c._sock.version().startswith('TLSv1.')  # the socket really is TLS
    finally:
        c.close()


def test_pymysql_compress_not_supported(target):
    """PyMySQL has no protocol compression: it refuses before connecting (client-side fact, no server)."""
    import pymysql
    with pytest.raises(NotImplementedError):
        pymysql.connect(host=target.host, port=target.port, user='root', password='', compress=True)


# -- MySQLdb (mysqlclient over libmariadb) ------------------------------------------------------------
def mysqldb_connect(target, unix=False, **kw):
    import MySQLdb
    args = dict(user='root', passwd='', connect_timeout=10)
    if unix:
        args['unix_socket'] = target.socket
        args['host'] = 'localhost'
    else:
        args.update(host=target.host, port=target.port)
    args.update(kw)
    return MySQLdb.connect(**args)


def session_status(conn, name):
    cur = conn.cursor()
    cur.execute("SHOW SESSION STATUS LIKE '%s'" % name)
    row = cur.fetchone()
    return row[1] if row else None


@pytest.mark.parametrize('unix', [False, True], ids=['tcp', 'unix'])
@pytest.mark.parametrize('mode', ['plain', 'compress', 'ssl', 'ssl+compress'])
def test_mysqldb(target, unix, mode):
    kw = {}
    if 'compress' in mode:
        kw['compress'] = True
    if 'ssl' in mode:
        kw['ssl'] = {'ca': None}
    c = mysqldb_connect(target, unix, **kw)
    try:
        cur = c.cursor()
        cur.execute("SELECT 7*6, REPEAT('q', 70000), CAST(NULL AS CHAR)")
        a, b, n = cur.fetchone()
        assert (a, b, n) == (42, 'q' * 70000, None)
        assert session_status(c, 'Compression') == ('ON' if 'compress' in mode else 'OFF')
        v = session_status(c, 'Ssl_version')
        if 'ssl' in mode:
            assert v.startswith('TLSv1.'), v
        else:
            assert v == '', v
        assert c.get_host_info() == ('Localhost via UNIX socket' if unix else '127.0.0.1 via TCP/IP')
    finally:
        c.close()


# -- zstd ----------------------------------------------------------------------------------------------
def test_zstd_offered(target):
    c = RawClient.connect(port=target.port)
    try:
        has = bool(c.server_caps & rawclient.CLIENT_ZSTD_COMPRESSION_ALGORITHM)
        assert has == target.differs('zstd')
        assert c.server_caps & rawclient.CLIENT_COMPRESS
    finally:
        c.close()


@pytest.mark.parametrize('algo', ['zlib', 'zstd'])
@pytest.mark.parametrize('tls', [False, True], ids=['plain', 'tls'])
def test_raw_compression(target, algo, tls):
    """Compressed protocol both ways: large payloads compressed, small ones (< 50 bytes) sent as-is."""
    if algo == 'zstd' and not target.differs('zstd'):
        pytest.skip('%s has no zstd protocol compression' % target.kind)
    c = RawClient.connect(port=target.port, compress=algo, tls=tls)
    try:
        assert c.query('SELECT 1') == (['1'], [(b'1',)])
        before = dict(c.stats)
        names, rows = c.query("SELECT REPEAT('z', 200000) AS z, 'tail' AS t")
        assert rows == [(b'z' * 200000, b'tail')]
        assert c.stats['compressed_in'] > before['compressed_in'], c.stats
        # a query long enough that the client compresses it
        sql = "SELECT '" + 'k' * 5000 + "' = REPEAT('k', 5000) AS same"
        assert c.query(sql)[1] == [(b'1',)]
        assert c.stats['compressed_out'] >= 1
        names, rows = c.query("SHOW SESSION STATUS LIKE 'Compression'")
        assert rows == [(b'Compression', b'ON')]
        # the ping answer (OK, 7 bytes) must come back uncompressed
        before = dict(c.stats)
        c.ping()
        assert c.stats['plain_in'] == before['plain_in'] + 1
        assert c.stats['compressed_in'] == before['compressed_in']
    finally:
        c.close()


def test_no_stock_client_has_zstd():
    """Records the fact behind test_raw_compression: the mariadb CLI of this machine has no
    --compression-algorithms / --zstd-compression-level options (MySQL 8.0.18+ clients have them)."""
    out = subprocess.run(['mariadb', '--help'], capture_output=True, text=True).stdout
    assert '--compression-algorithms' not in out


@pytest.mark.parametrize('algo', ['zlib', 'zstd'])
@pytest.mark.parametrize('tls', [False, True], ids=['plain', 'tls'])
def test_compression_protocol_level(target, algo, tls):
    """Compression checked with commands that need no SQL: COM_PING, COM_STATISTICS and a COM_INIT_DB long
    enough (> 50 bytes) that the client sends it compressed; the ERR that comes back must be intact."""
    if algo == 'zstd' and not target.differs('zstd'):
        pytest.skip('%s has no zstd protocol compression' % target.kind)
    c = RawClient.connect(port=target.port, compress=algo, tls=tls)
    try:
        c.ping()
        assert re.match(r'^Uptime: \d+  Threads: \d+  Questions: \d+', c.statistics())
        name = 'no_such_db_' + 'q' * 50
        with pytest.raises(rawclient.ServerError) as ei:
            c.init_db(name)
        assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1049, '42000', "Unknown database '%s'" % name)
        assert c.stats['compressed_out'] >= 1
        c.ping()
        assert c.stats['plain_in'] >= 2  # OK packets are short: never compressed
    finally:
        c.close()


def peer_cert_der(server):
    c = RawClient.connect(port=server.port, tls=True)
    der = c.sock.getpeercert(binary_form=True)
    c.quit()
    return der


@pytest.mark.only('strata')
def test_tls_certificates_generated_and_kept(fresh_strata):
    """First start writes MySQL's auto-generated set (ca.pem, server-cert.pem, server-key.pem, client-cert.pem,
    client-key.pem; private_key.pem / public_key.pem for caching_sha2_password) into the datadir; the server
    presents server-cert.pem, which verifies against ca.pem, and keeps it across restarts."""
    import ssl
    s = fresh_strata
    s.start()
    names = ['ca.pem', 'server-cert.pem', 'server-key.pem', 'client-cert.pem', 'client-key.pem',
             'private_key.pem', 'public_key.pem']
    missing = [n for n in names if not os.path.exists(os.path.join(s.datadir, n))]
    assert not missing, missing
    for key in ('server-key.pem', 'client-key.pem', 'private_key.pem'):
        assert os.stat(os.path.join(s.datadir, key)).st_mode & 0o077 == 0, key  # private keys not world-readable
    der = peer_cert_der(s)
    with open(os.path.join(s.datadir, 'server-cert.pem')) as f:
        assert ssl.PEM_cert_to_DER_cert(f.read()) == der
    for cert in ('server-cert.pem', 'client-cert.pem'):
        r = subprocess.run(['openssl', 'verify', '-CAfile', os.path.join(s.datadir, 'ca.pem'),
                            os.path.join(s.datadir, cert)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
    # a client that verifies the chain against ca.pem (not the host name) connects
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(os.path.join(s.datadir, 'ca.pem'))
    p = s.connect(ssl=ctx)
    p.close()
    s.restart()
    assert peer_cert_der(s) == der


REQUIRED_CAPS = ['CLIENT_LONG_FLAG', 'CLIENT_CONNECT_WITH_DB', 'CLIENT_COMPRESS', 'CLIENT_PROTOCOL_41',
                 'CLIENT_SSL', 'CLIENT_TRANSACTIONS', 'CLIENT_SECURE_CONNECTION', 'CLIENT_MULTI_STATEMENTS',
                 'CLIENT_MULTI_RESULTS', 'CLIENT_PS_MULTI_RESULTS', 'CLIENT_PLUGIN_AUTH', 'CLIENT_CONNECT_ATTRS',
                 'CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA', 'CLIENT_SESSION_TRACK', 'CLIENT_DEPRECATE_EOF']


def test_handshake(target):
    """Greeting v10: capabilities, a fresh 20-byte scramble of non-NUL bytes per connection, autocommit
    status, default plugin, increasing connection ids that CONNECTION_ID() agrees with."""
    a = RawClient.open(port=target.port)
    a.read_handshake()
    b = RawClient.open(port=target.port)
    b.read_handshake()
    try:
        assert a.protocol == 10
        missing = [n for n in REQUIRED_CAPS if not a.server_caps & getattr(rawclient, n)]
        assert not missing, missing
        assert len(a.salt) == 20 and 0 not in a.salt
        assert a.salt != b.salt
        assert a.auth_plugin == 'mysql_native_password'
        assert a.server_status & rawclient.SERVER_STATUS_AUTOCOMMIT
        assert b.connection_id > a.connection_id
        assert version_ok(target, a.server_version)[0], a.server_version
    finally:
        a.close()
        b.close()
    c = RawClient.connect(port=target.port)
    assert int(c.query('SELECT CONNECTION_ID()')[1][0][0]) == c.connection_id
    c.quit()


def test_charset_conversion(target):
    """SET NAMES decides how literals are read and results are sent (and the column charset number)."""
    check_charset_conversion(target)


def check_charset_conversion(target):
    c = RawClient.connect(port=target.port)
    try:
        c.query('SET NAMES latin1')
        names, rows = c.query(b"SELECT 'caf\xe9' AS w, LENGTH('caf\xe9'), CHAR_LENGTH('caf\xe9')")
        assert rows == [(b'caf\xe9', b'4', b'4')]
        assert c.last.columns[0].charset == 8  # latin1_swedish_ci
        c.query('SET NAMES utf8mb4')
        names, rows = c.query("SELECT 'café' AS w, LENGTH('café'), CHAR_LENGTH('café')")
        assert rows == [('café'.encode(), b'5', b'4')]
        assert c.last.columns[0].charset == 45  # utf8mb4_general_ci
    finally:
        c.quit()
