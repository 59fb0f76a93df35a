"""Accounts and authentication: both plugins, right and wrong passwords, auth switch, caching_sha2 full
authentication over TLS then the fast path, root on a fresh datadir, the non-loopback refusal, accounts
surviving a restart, ALTER USER / SET PASSWORD / DROP USER.

Syntax note: MariaDB 10.11 rejects MySQL's `IDENTIFIED WITH <plugin> BY '<pw>'` (1064) and has no
caching_sha2_password server plugin; tests that need either are marked only('strata')."""
import subprocess

import pymysql
import pytest

from rawclient import RawClient, ServerError


def denied_msg(user, using):
    return "Access denied for user '%s'@'localhost' (using password: %s)" % (user, 'YES' if using else 'NO')


def expect_denied(target, user, password, unix=False):
    with pytest.raises(pymysql.err.OperationalError) as ei:
        target.connect(user=user, password=password, unix=unix)
    assert ei.value.args == (1045, denied_msg(user, bool(password)))
    # the SQLSTATE, through the raw client
    with pytest.raises(ServerError) as ei:
        RawClient.connect(port=target.port, user=user, password=password)
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1045, '28000', denied_msg(user, bool(password)))


def current_user(conn):
    with conn.cursor() as cur:
        cur.execute('SELECT CURRENT_USER(), USER()')
        return cur.fetchone()


@pytest.fixture
def account(target, unique):
    """Creates name@localhost IDENTIFIED BY pw (default plugin) and drops it afterwards."""
    made = []

    def make(pw='Secret-1', clause=None):
        name = unique('acct')
        target.query("CREATE USER '%s'@'localhost' %s" % (name, clause or "IDENTIFIED BY '%s'" % pw))
        made.append(name)
        return name
    yield make
    for n in made:
        target.query("DROP USER IF EXISTS '%s'@'localhost'" % n)


def test_root_empty_password(target):
    for unix in (False, True):
        c = target.connect(user='root', password='', unix=unix)
        assert current_user(c)[0] == 'root@localhost'
        c.close()


def test_default_plugin_is_native(target, account):
    u = account()
    import hashlib
    h = '*' + hashlib.sha1(hashlib.sha1(b'Secret-1').digest()).hexdigest().upper()
    rows = target.query("SHOW CREATE USER '%s'@'localhost'" % u)
    assert rows == (("CREATE USER `%s`@`localhost` IDENTIFIED BY PASSWORD '%s'" % (u, h),),)
    assert target.query("SELECT PASSWORD('Secret-1')") == ((h,),)
    c = RawClient.connect(port=target.port, user=u, password='Secret-1')
    assert c.plugin == 'mysql_native_password' and c.auth_switched_to is None
    c.close()


@pytest.mark.parametrize('unix', [False, True], ids=['tcp', 'unix'])
def test_native_right_and_wrong(target, account, unix):
    u = account('Right-pw')
    c = target.connect(user=u, password='Right-pw', unix=unix)
    assert current_user(c) == ('%s@localhost' % u, '%s@localhost' % u)
    c.close()
    expect_denied(target, u, 'wrong-pw', unix)
    expect_denied(target, u, '', unix)
    expect_denied(target, 'no_such_user_x', 'x', unix)


def test_native_cli_and_mysqldb(target, account):
    import MySQLdb
    u = account('Cli-pw')
    r = target.cli('--skip-ssl', '--batch', '-N', '-e', 'SELECT CURRENT_USER()', user=u, password='Cli-pw')
    assert r.stdout == '%s@localhost\n' % u
    r = target.cli('--skip-ssl', '-e', 'SELECT 1', user=u, password='nope', check=False)
    assert r.returncode == 1 and 'ERROR 1045 (28000): ' + denied_msg(u, True) in r.stderr, r.stderr
    c = MySQLdb.connect(host=target.host, port=target.port, user=u, passwd='Cli-pw')
    c.close()
    with pytest.raises(MySQLdb.OperationalError) as ei:
        MySQLdb.connect(host=target.host, port=target.port, user=u, passwd='nope')
    assert ei.value.args == (1045, denied_msg(u, True))


def test_wrong_password_counts_aborted_connects(target, account):
    u = account('pw-abc')
    before = int(target.query("SHOW GLOBAL STATUS LIKE 'Aborted_connects'")[0][1])
    with pytest.raises(pymysql.err.OperationalError):
        target.connect(user=u, password='bad')
    after = int(target.query("SHOW GLOBAL STATUS LIKE 'Aborted_connects'")[0][1])
    assert after == before + 1


def test_auth_switch_to_native(target, account):
    """The client starts with caching_sha2_password; the account is native: the server asks to switch."""
    u = account('Switch-pw')
    c = RawClient.connect(port=target.port, user=u, password='Switch-pw', plugin='caching_sha2_password')
    assert c.auth_switched_to == 'mysql_native_password'
    assert c.query('SELECT CURRENT_USER()')[1] == [(('%s@localhost' % u).encode(),)]
    c.close()
    with pytest.raises(ServerError) as ei:
        RawClient.connect(port=target.port, user=u, password='bad', plugin='caching_sha2_password')
    assert (ei.value.code, ei.value.sqlstate) == (1045, '28000')


def test_change_password_alter_user(target, account):
    u = account('Old-pw')
    target.query("ALTER USER '%s'@'localhost' IDENTIFIED BY 'New-pw'" % u)
    expect_denied(target, u, 'Old-pw')
    target.connect(user=u, password='New-pw').close()


def test_set_password(target, account):
    u = account('Old-pw')
    target.query("SET PASSWORD FOR '%s'@'localhost' = PASSWORD('Set-pw')" % u)
    expect_denied(target, u, 'Old-pw')
    c = target.connect(user=u, password='Set-pw')
    with c.cursor() as cur:  # an account changes its own password
        cur.execute("SET PASSWORD = PASSWORD('Own-pw')")
    c.close()
    expect_denied(target, u, 'Set-pw')
    target.connect(user=u, password='Own-pw').close()
    with pytest.raises(pymysql.err.OperationalError) as ei:
        target.query("SET PASSWORD FOR '%s'@'localhost' = 'not-a-hash'" % u)
    assert ei.value.args == (1372, 'Password hash should be a 41-digit hexadecimal number')


def test_drop_user(target, account):
    u = account('Drop-pw')
    target.connect(user=u, password='Drop-pw').close()
    target.query("DROP USER '%s'@'localhost'" % u)
    expect_denied(target, u, 'Drop-pw')
    with pytest.raises(pymysql.err.OperationalError) as ei:
        target.query("DROP USER '%s'@'localhost'" % u)
    assert ei.value.args == (1396, "Operation DROP USER failed for '%s'@'localhost'" % u)


def test_create_user_errors(target, account):
    u = account()
    with pytest.raises(pymysql.err.OperationalError) as ei:
        target.query("CREATE USER '%s'@'localhost' IDENTIFIED BY 'x'" % u)
    assert ei.value.args == (1396, "Operation CREATE USER failed for '%s'@'localhost'" % u)
    c = target.connect()
    with c.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS '%s'@'localhost'" % u)
        cur.execute('SHOW WARNINGS')
        assert cur.fetchall() == (('Note', 1973, "Can't create user '%s'@'localhost'; it already exists" % u),)
    c.close()
    with pytest.raises(pymysql.err.OperationalError) as ei:
        target.query("ALTER USER 'nobody_here'@'localhost' IDENTIFIED BY 'x'")
    assert ei.value.args == (1396, "Operation ALTER USER failed for 'nobody_here'@'localhost'")


# -- MySQL syntax and caching_sha2_password (strata only: MariaDB 10.11 has neither) --------------------
@pytest.mark.only('strata')
def test_identified_with_native_by(target, account):
    u = account(clause="IDENTIFIED WITH mysql_native_password BY 'With-pw'")
    c = RawClient.connect(port=target.port, user=u, password='With-pw')
    assert c.plugin == 'mysql_native_password'
    c.close()
    expect_denied(target, u, 'bad')


@pytest.mark.only('strata')
def test_caching_sha2_full_then_fast(target, account):
    u = account(clause="IDENTIFIED WITH caching_sha2_password BY 'Sha-pw'")
    assert 'caching_sha2_password' in target.query("SHOW CREATE USER '%s'@'localhost'" % u)[0][0]
    # First login after creation: the server has no cached hash, full authentication over TLS.
    c = RawClient.connect(port=target.port, user=u, password='Sha-pw', plugin='caching_sha2_password', tls=True)
    assert c.sha2_path == 'full'
    assert c.query('SELECT CURRENT_USER()')[1] == [(('%s@localhost' % u).encode(),)]
    c.close()
    # Reconnect without TLS: the fast path (scramble against the cached hash).
    c = RawClient.connect(port=target.port, user=u, password='Sha-pw', plugin='caching_sha2_password')
    assert c.sha2_path == 'fast'
    c.close()
    # Client starting with native gets switched to caching_sha2_password, fast path.
    c = RawClient.connect(port=target.port, user=u, password='Sha-pw', plugin='mysql_native_password')
    assert c.auth_switched_to == 'caching_sha2_password' and c.sha2_path == 'fast'
    c.close()
    with pytest.raises(ServerError) as ei:
        RawClient.connect(port=target.port, user=u, password='bad', plugin='caching_sha2_password')
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1045, '28000', denied_msg(u, True))


@pytest.mark.only('strata')
def test_caching_sha2_stock_clients(target, account):
    import ssl
    import MySQLdb
    u = account(clause="IDENTIFIED WITH caching_sha2_password BY 'Stock-pw'")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    c = target.connect(user=u, password='Stock-pw', ssl=ctx)      # PyMySQL, full auth over TLS
    assert current_user(c)[0] == '%s@localhost' % u
    c.close()
    c = target.connect(user=u, password='Stock-pw')                # PyMySQL, fast path
    c.close()
    c = MySQLdb.connect(host=target.host, port=target.port, user=u, passwd='Stock-pw')  # libmariadb plugin
    c.close()
    r = target.cli('-N', '-e', 'SELECT CURRENT_USER()', user=u, password='Stock-pw')
    assert r.stdout.strip() == '%s@localhost' % u
    expect_denied(target, u, 'bad')


@pytest.mark.only('strata')
def test_caching_sha2_full_over_unix_socket(target, account):
    """A Unix socket is a secure transport: full authentication may send the password in clear there."""
    u = account(clause="IDENTIFIED WITH caching_sha2_password BY 'Sock-pw'")
    c = RawClient.connect(unix=target.socket, user=u, password='Sock-pw', plugin='caching_sha2_password')
    assert c.sha2_path == 'full'
    c.close()


@pytest.mark.only('strata')
def test_caching_sha2_full_over_rsa(target, account):
    """Plain TCP, no cached hash: the client asks for the server's public key (0x02) and sends the password
    XOR the scramble, RSA-OAEP encrypted; PyMySQL (with python3-cryptography) does the same."""
    u = account(clause="IDENTIFIED WITH caching_sha2_password BY 'Rsa-pw'")
    c = RawClient.connect(port=target.port, user=u, password='Rsa-pw', plugin='caching_sha2_password')
    assert c.sha2_path == 'full'
    assert c.query('SELECT CURRENT_USER()')[1] == [(('%s@localhost' % u).encode(),)]
    c.close()
    v = account(clause="IDENTIFIED WITH caching_sha2_password BY 'Rsa-pw2'")
    target.connect(user=v, password='Rsa-pw2').close()
    with pytest.raises(ServerError) as ei:
        RawClient.connect(port=target.port, user=v, password='wrong', plugin='caching_sha2_password')
    assert (ei.value.code, ei.value.sqlstate) == (1045, '28000')


@pytest.mark.only('strata')
def test_caching_sha2_full_needs_tls(target, account):
    """Full authentication over plain TCP without RSA: the server must not accept a clear password."""
    u = account(clause="IDENTIFIED WITH caching_sha2_password BY 'Plain-pw'")
    c = RawClient.open(port=target.port)
    c.read_handshake()
    import struct
    import rawclient as rc
    caps = rc.DEFAULT_CAPS & c.server_caps
    body = struct.pack('<IIB23x', caps, rc.MAX_PACKET, 45) + u.encode() + b'\0'
    auth = rc.scramble_sha2('Plain-pw', c.salt)
    body += rc.lenenc_str(auth) + b'caching_sha2_password\0' + rc.lenenc_str(b'')
    c.write_packet(body)
    p = c.read_packet()
    assert p == b'\x01\x04'  # perform full authentication
    c.write_packet(b'Plain-pw\0')  # clear text over plain TCP: must be refused
    try:
        p = c.read_packet()
        assert p[0] == 0xff, p
    except ConnectionError:
        pass
    c.close()


# -- fresh servers ---------------------------------------------------------------------------------------
def test_accounts_survive_restart(fresh_target):
    s = fresh_target
    s.query("CREATE USER 'keep'@'localhost' IDENTIFIED BY 'Keep-pw'")
    s.query("CREATE USER 'gone'@'localhost' IDENTIFIED BY 'Gone-pw'")
    s.query("CREATE USER 'changed'@'localhost' IDENTIFIED BY 'Before-pw'")
    s.query("ALTER USER 'changed'@'localhost' IDENTIFIED BY 'After-pw'")
    s.query("DROP USER 'gone'@'localhost'")
    s.restart()
    s.connect(user='keep', password='Keep-pw').close()
    s.connect(user='changed', password='After-pw').close()
    expect_denied(s, 'changed', 'Before-pw')
    expect_denied(s, 'gone', 'Gone-pw')
    s.connect(user='root', password='').close()


def test_root_password_survives_restart(fresh_target):
    s = fresh_target
    s.query("ALTER USER 'root'@'localhost' IDENTIFIED BY 'Root-pw'")
    if s.kind == 'mariadb':  # the reference also has root@127.0.0.1, ::1, <hostname>
        s.password = 'Root-pw'
        for h in ('127.0.0.1', '::1'):
            s.query("ALTER USER 'root'@'%s' IDENTIFIED BY 'Root-pw'" % h)
    s.password = 'Root-pw'
    s.restart()
    expect_denied(s, 'root', '')
    s.connect().close()


@pytest.mark.only('strata')
def test_fresh_datadir_root_and_refuse_public_bind(fresh_strata):
    s = fresh_strata
    # Non-loopback bind with the empty root password of a fresh datadir: refuse to start.
    s.start(['--bind-address=0.0.0.0'], wait=False)
    try:
        s.proc.wait(15)
    except subprocess.TimeoutExpired:
        pytest.fail('stratad started on 0.0.0.0 with an empty root password')
    assert s.proc.returncode != 0
    s.stderr_f.close()
    assert any('[ERROR]' in line for line in s.log_lines()), s.tail()
    assert not s.sanitizer_reports()
    # The datadir is still usable on loopback, root has an empty password.
    s.start()
    assert s.query('SELECT CURRENT_USER()') == (('root@localhost',),)
    s.query("ALTER USER 'root'@'localhost' IDENTIFIED BY 'Now-set'")
    s.password = 'Now-set'
    assert s.stop() == 0
    # With a root password, a non-loopback bind is allowed.
    s.start(['--bind-address=0.0.0.0'])
    s.connect().close()


def test_require_secure_transport(fresh_target):
    """require_secure_transport=ON: plain TCP logins are refused; TLS and the Unix socket are fine."""
    s = fresh_target
    s.query('SET GLOBAL require_secure_transport = ON')
    with pytest.raises(ServerError) as ei:
        RawClient.connect(port=s.port)
    # MariaDB 10.11 answers with a plain access-denied; strata gives MySQL 8's 3159, which issue 7 asks for
    if s.kind == 'strata':
        assert (ei.value.code, ei.value.sqlstate) == (3159, 'HY000')
        assert 'require_secure_transport=ON' in ei.value.message
    else:
        assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1045, '28000', denied_msg('root', False))
    RawClient.connect(port=s.port, tls=True).quit()
    RawClient.connect(unix=s.socket).quit()
    s.query('SET GLOBAL require_secure_transport = OFF', unix=True)
    RawClient.connect(port=s.port).quit()
