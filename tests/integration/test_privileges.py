"""Privileges (issue 7): accounts with different grants attempt statements and get exactly MariaDB's errors;
GRANT / REVOKE / roles and the SHOW GRANTS text that recreates them; a REVOKE reaching an open connection;
SHOW DATABASES and SHOW PROCESSLIST showing only what the account may see; grants surviving a restart.

Every test runs against stratad and the MariaDB 10.11 reference (`target`); both create the databases and tables
the table-level tests need (a GRANT on a table needs the table).
"""
import pymysql
import pytest

import rawclient

ACCESS_1227 = 'Access denied; you need (at least one of) the %s privilege(s) for this operation'


def run(conn, sql):
    """Runs one statement; returns (errno, message) or None on success."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            cur.fetchall()
        return None
    except pymysql.err.MySQLError as e:
        return (e.args[0], e.args[1] if len(e.args) > 1 else '')


def rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [r[0] if len(r) == 1 else r for r in cur.fetchall()]


def ok(conn, sql):
    err = run(conn, sql)
    assert err is None, '%s -> %s' % (sql, err)


_made_dbs = []


def try_make_table(root, db, table):
    """CREATE DATABASE/TABLE for a table-level grant (a GRANT on a table needs the table); dropped after the test."""
    for sql in ('CREATE DATABASE IF NOT EXISTS `%s`' % db, 'CREATE TABLE IF NOT EXISTS `%s`.`%s` (a INT, b INT)' % (db, table)):
        err = run(root, sql)
        assert err is None or err[0] == 1235, err
    _made_dbs.append(db)


@pytest.fixture
def users(target, unique):
    """Makes accounts name@localhost (no password) and drops them (and roles) at the end."""
    made, roles = [], []
    root = target.connect()

    def make(prefix='p', role=False):
        name = unique(prefix)
        if role:
            ok(root, 'CREATE ROLE %s' % name)
            roles.append(name)
        else:
            ok(root, "CREATE USER '%s'@'localhost'" % name)
            made.append(name)
        return name
    make.root = root
    yield make
    for n in made:
        run(root, "DROP USER IF EXISTS '%s'@'localhost'" % n)
    for n in roles:
        run(root, 'DROP ROLE IF EXISTS %s' % n)
    while _made_dbs:  # the session servers are shared: leave no database behind (others dump --all-databases)
        run(root, 'DROP DATABASE IF EXISTS `%s`' % _made_dbs.pop())
    root.close()


def test_global_privileges_denied(target, users):
    u = users('nop')
    c = target.connect(user=u, password='')
    cases = [
        ('SHUTDOWN', 1227, ACCESS_1227 % 'SHUTDOWN'),
        ("SET GLOBAL sql_mode=''", 1227, ACCESS_1227 % 'SUPER'),
        ('SET GLOBAL max_connections=100', 1227, ACCESS_1227 % 'SUPER, CONNECTION ADMIN'),
        ('SET GLOBAL read_only=1', 1227, ACCESS_1227 % 'READ_ONLY ADMIN'),
        ('FLUSH PRIVILEGES', 1227, ACCESS_1227 % 'RELOAD'),
        ('FLUSH STATUS', 1227, ACCESS_1227 % 'RELOAD'),
        ('FLUSH BINARY LOGS', 1227, ACCESS_1227 % 'RELOAD'),
        ('SHOW BINARY LOGS', 1227, ACCESS_1227 % 'SUPER, BINLOG MONITOR'),
        ('SHOW MASTER STATUS', 1227, ACCESS_1227 % 'SUPER, BINLOG MONITOR'),
        ('SHOW BINLOG EVENTS', 1227, ACCESS_1227 % 'BINLOG MONITOR'),
        ("PURGE BINARY LOGS TO 'x'", 1227, ACCESS_1227 % 'SUPER, BINLOG ADMIN'),
        ('RESET MASTER', 1227, ACCESS_1227 % 'RELOAD'),
        ("CREATE USER 'zz_%s'" % u, 1227, ACCESS_1227 % 'CREATE USER'),
        ("DROP USER 'zz_%s'" % u, 1227, ACCESS_1227 % 'CREATE USER'),
        ("RENAME USER 'zz_%s' TO 'zy_%s'" % (u, u), 1227, ACCESS_1227 % 'CREATE USER'),
        ("ALTER USER root@localhost ACCOUNT LOCK", 1227, ACCESS_1227 % 'CREATE USER'),
        ("ALTER USER CURRENT_USER() IDENTIFIED BY ''", 1227, ACCESS_1227 % 'CREATE USER'),
        ('CREATE ROLE rr_%s' % u, 1227, ACCESS_1227 % 'CREATE USER'),
        ('DROP ROLE rr_%s' % u, 1227, ACCESS_1227 % 'CREATE USER'),
        ("REVOKE ALL PRIVILEGES, GRANT OPTION FROM root@localhost", 1227, ACCESS_1227 % 'CREATE USER'),
        ("SET PASSWORD FOR root@localhost = PASSWORD('x')", 1044,
         "Access denied for user '%s'@'localhost' to database 'mysql'" % u),
        ('SHOW GRANTS FOR root@localhost', 1044, "Access denied for user '%s'@'localhost' to database 'mysql'" % u),
        ('SHOW CREATE USER root@localhost', 1044, "Access denied for user '%s'@'localhost' to database 'mysql'" % u),
        ('USE nodb_%s' % u, 1044, "Access denied for user '%s'@'localhost' to database 'nodb_%s'" % (u, u)),
        ('GRANT SELECT ON db1.* TO root@localhost', 1044, "Access denied for user '%s'@'localhost' to database 'db1'" % u),
        ('GRANT RELOAD ON *.* TO root@localhost', 1045, "Access denied for user '%s'@'localhost' (using password: NO)" % u),
    ]
    for sql, code, msg in cases:
        assert run(c, sql) == (code, msg), sql
    # what every account may do about itself
    assert rows(c, 'SHOW GRANTS FOR CURRENT_USER()') == ['GRANT USAGE ON *.* TO `%s`@`localhost`' % u]
    assert rows(c, 'SHOW CREATE USER CURRENT_USER()') == ['CREATE USER `%s`@`localhost`' % u]
    ok(c, "SET PASSWORD = PASSWORD('')")
    c.close()


def test_privileges_granted_allow(target, users):
    u = users('adm')
    root = users.root
    ok(root, "GRANT RELOAD, SHUTDOWN, PROCESS, SUPER, CREATE USER, BINLOG MONITOR ON *.* TO '%s'@'localhost'" % u)
    c = target.connect(user=u, password='')
    ok(c, 'FLUSH STATUS')
    ok(c, 'FLUSH PRIVILEGES')
    ok(c, "SET GLOBAL max_connections = @@global.max_connections")
    name = 'made_%s' % u
    ok(c, "CREATE USER '%s'@'localhost'" % name)
    ok(c, "DROP USER '%s'@'localhost'" % name)
    assert run(c, 'SHOW GRANTS FOR root@localhost') == (
        1044, "Access denied for user '%s'@'localhost' to database 'mysql'" % u)   # CREATE USER is not enough
    ok(root, "GRANT SELECT ON mysql.* TO '%s'@'localhost'" % u)
    assert rows(c, 'SHOW GRANTS FOR root@localhost')[-2:] != []
    c.close()


def test_grant_needs_grant_option_and_the_privileges(target, users):
    g = users('gr')
    w = users('gw')
    root = users.root
    try_make_table(root, 'db1', 't')
    ok(root, "GRANT SELECT, INSERT ON db1.* TO '%s'@'localhost' WITH GRANT OPTION" % g)
    ok(root, "GRANT RELOAD ON *.* TO '%s'@'localhost' WITH GRANT OPTION" % g)
    c = target.connect(user=g, password='')
    tgt = "'%s'@'localhost'" % w
    assert run(c, 'GRANT SELECT ON db1.* TO %s' % tgt) is None
    assert run(c, 'GRANT SELECT, UPDATE ON db1.* TO %s' % tgt) == (
        1044, "Access denied for user '%s'@'localhost' to database 'db1'" % g)
    assert run(c, 'GRANT RELOAD ON *.* TO %s' % tgt) is None
    assert run(c, 'GRANT RELOAD, PROCESS ON *.* TO %s' % tgt) == (
        1045, "Access denied for user '%s'@'localhost' (using password: NO)" % g)
    assert run(c, 'GRANT SELECT ON db2.t TO %s' % tgt) == (
        1142, "SELECT command denied to user '%s'@'localhost' for table `db2`.`t`" % g)
    assert run(c, 'REVOKE RELOAD ON *.* FROM %s' % tgt) is None
    assert run(c, 'REVOKE SELECT ON db1.* FROM %s' % tgt) is None
    assert run(c, "GRANT SELECT ON db1.* TO %s IDENTIFIED BY 'x'" % tgt) == (
        1044, "Access denied for user '%s'@'localhost' to database 'mysql'" % g)
    assert run(c, "GRANT SELECT ON db1.* TO 'nobody_%s'@'localhost'" % g) == (
        1133, "Can't find any matching row in the user table")
    assert run(c, "GRANT SELECT ON db1.* TO 'nobody_%s'@'localhost' IDENTIFIED BY 'x'" % g) == (
        1410, 'You are not allowed to create a user with GRANT')
    c.close()
    assert rows(root, 'SHOW GRANTS FOR %s' % tgt) == ['GRANT USAGE ON *.* TO `%s`@`localhost`' % w]


def test_grant_errors(target, users):
    u = users('ge')
    root = users.root
    tgt = "'%s'@'localhost'" % u
    assert run(root, 'GRANT RELOAD ON db1.* TO %s' % tgt) == (1221, 'Incorrect usage of DB GRANT and GLOBAL PRIVILEGES')
    illegal = (1144, 'Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used')
    assert run(root, 'GRANT SUPER ON db1.t TO %s' % tgt) == illegal
    assert run(root, 'GRANT SELECT (a) ON db1.* TO %s' % tgt) == illegal
    assert run(root, "GRANT SELECT ON db1.* TO 'nobody_%s'@'localhost'" % u) == (
        1133, "Can't find any matching row in the user table")
    assert run(root, 'REVOKE SELECT ON db9.* FROM %s' % tgt) == (
        1141, "There is no such grant defined for user '%s' on host 'localhost'" % u)
    assert run(root, 'REVOKE SELECT ON db1.t9 FROM %s' % tgt) == (
        1147, "There is no such grant defined for user '%s' on host 'localhost' on table 't9'" % u)
    assert run(root, 'REVOKE SELECT ON *.* FROM %s' % tgt) is None
    assert run(root, "SHOW GRANTS FOR 'nobody_%s'@'localhost'" % u) == (
        1141, "There is no such grant defined for user 'nobody_%s' on host 'localhost'" % u)


def test_show_grants_recreates(target, users):
    u = users('sg')
    root = users.root
    try_make_table(root, 'db1', 't')
    tgt = "'%s'@'localhost'" % u
    ok(root, 'GRANT SELECT ON db1.t TO %s' % tgt)
    ok(root, 'GRANT INSERT (a, b), UPDATE (b) ON db1.t TO %s' % tgt)
    ok(root, 'GRANT CREATE, DROP ON db2.* TO %s WITH GRANT OPTION' % tgt)
    ok(root, 'GRANT RELOAD, PROCESS ON *.* TO %s' % tgt)
    ok(root, 'GRANT SELECT ON `test\\_%%`.* TO %s' % tgt)
    want = ['GRANT RELOAD, PROCESS ON *.* TO `%s`@`localhost`' % u,
            'GRANT CREATE, DROP ON `db2`.* TO `%s`@`localhost` WITH GRANT OPTION' % u,
            'GRANT SELECT ON `test\\_%%`.* TO `%s`@`localhost`' % u,
            'GRANT SELECT, INSERT (`a`, `b`), UPDATE (`b`) ON `db1`.`t` TO `%s`@`localhost`' % u]
    assert rows(root, 'SHOW GRANTS FOR %s' % tgt) == want
    ok(root, 'GRANT ALL PRIVILEGES ON db3.* TO %s' % tgt)
    ok(root, 'GRANT SUPER, SHUTDOWN, CREATE USER, REPLICATION SLAVE, REPLICATION CLIENT, REPLICATION SLAVE ADMIN, '
             'CREATE TABLESPACE, LOCK TABLES, EXECUTE, FILE, SHOW VIEW, CREATE VIEW, INDEX, ALTER ON *.* TO %s' % tgt)
    got = rows(root, 'SHOW GRANTS FOR %s' % tgt)
    assert got[0] == ('GRANT RELOAD, SHUTDOWN, PROCESS, FILE, INDEX, ALTER, SUPER, LOCK TABLES, EXECUTE, '
                      'REPLICATION SLAVE, BINLOG MONITOR, CREATE VIEW, SHOW VIEW, CREATE USER, CREATE TABLESPACE, '
                      'REPLICATION SLAVE ADMIN ON *.* TO `%s`@`localhost`' % u)
    assert 'GRANT ALL PRIVILEGES ON `db3`.* TO `%s`@`localhost`' % u in got
    # Running the printed statements against a fresh account recreates the same grants.
    v = users('sg2')
    for line in got:
        ok(root, line.replace('`%s`@`localhost`' % u, "'%s'@'localhost'" % v))
    assert [x.replace(v, u) for x in rows(root, "SHOW GRANTS FOR '%s'@'localhost'" % v)] == got
    # REVOKE ALL PRIVILEGES ON a level keeps GRANT OPTION; the long form takes everything.
    ok(root, 'REVOKE ALL PRIVILEGES ON db2.* FROM %s' % tgt)
    assert 'GRANT USAGE ON `db2`.* TO `%s`@`localhost` WITH GRANT OPTION' % u in rows(root, 'SHOW GRANTS FOR %s' % tgt)
    ok(root, 'REVOKE ALL PRIVILEGES, GRANT OPTION FROM %s' % tgt)
    assert rows(root, 'SHOW GRANTS FOR %s' % tgt) == ['GRANT USAGE ON *.* TO `%s`@`localhost`' % u]


def test_grant_identified_by_creates_account(target, users, unique):
    root = users.root
    name = unique('gid')
    try:
        ok(root, "GRANT SELECT ON *.* TO '%s'@'localhost' IDENTIFIED BY 'pw-1'" % name)
        got = rows(root, "SHOW GRANTS FOR '%s'@'localhost'" % name)
        assert got == ["GRANT SELECT ON *.* TO `%s`@`localhost` IDENTIFIED BY PASSWORD "
                       "'*1DBBB7AC4CEFE6FB3DF22C8C5D61E9A8D7B1D4FD'" % name] or got[0].startswith(
                           'GRANT SELECT ON *.* TO `%s`@`localhost` IDENTIFIED BY PASSWORD' % name)
        c = target.connect(user=name, password='pw-1')
        assert rows(c, 'SELECT CURRENT_USER()') == ['%s@localhost' % name]
        c.close()
    finally:
        run(root, "DROP USER IF EXISTS '%s'@'localhost'" % name)


def test_roles(target, users):
    u = users('ru')
    r = users('rr', role=True)
    root = users.root
    tgt = "'%s'@'localhost'" % u
    ok(root, 'GRANT SELECT ON db3.* TO %s' % r)
    ok(root, 'GRANT RELOAD ON *.* TO %s' % r)
    assert rows(root, 'SHOW GRANTS FOR %s' % r) == ['GRANT RELOAD ON *.* TO `%s`' % r,
                                                    'GRANT SELECT ON `db3`.* TO `%s`' % r]
    assert run(root, 'CREATE ROLE %s' % r) == (1396, "Operation CREATE ROLE failed for '%s'" % r)
    assert run(root, 'DROP ROLE no_%s' % r) == (1396, "Operation DROP ROLE failed for 'no_%s'" % r)
    assert run(root, 'GRANT no_%s TO %s' % (r, tgt)) == (1959, 'Invalid role specification `no_%s`' % r)
    assert run(root, 'REVOKE %s FROM %s' % (r, tgt)) == (1962, "Cannot revoke role '%s' from: '%s'@'localhost'" % (r, u))
    assert run(root, 'SET DEFAULT ROLE %s FOR %s' % (r, tgt)) == (
        1959, 'User `%s`@`localhost` has not been granted role `%s`' % (u, r))
    c = target.connect(user=u, password='')
    assert run(c, 'SET ROLE %s' % r) == (1959, 'Invalid role specification `%s`' % r)
    assert run(c, 'FLUSH STATUS') == (1227, ACCESS_1227 % 'RELOAD')
    ok(root, 'GRANT %s TO %s' % (r, tgt))
    assert rows(c, 'SELECT CURRENT_ROLE()') == [None]
    ok(c, 'SET ROLE %s' % r)
    assert rows(c, 'SELECT CURRENT_ROLE(), CURRENT_ROLE') == [(r, r)]
    ok(c, 'FLUSH STATUS')                      # through the role
    assert rows(c, 'SHOW GRANTS FOR CURRENT_USER()') == ['GRANT `%s` TO `%s`@`localhost`' % (r, u),
                                                          'GRANT USAGE ON *.* TO `%s`@`localhost`' % u]
    ok(c, 'SET ROLE NONE')
    assert run(c, 'FLUSH STATUS') == (1227, ACCESS_1227 % 'RELOAD')
    c.close()
    ok(root, 'SET DEFAULT ROLE %s FOR %s' % (r, tgt))
    assert rows(root, 'SHOW GRANTS FOR %s' % tgt)[-1] == 'SET DEFAULT ROLE `%s` FOR `%s`@`localhost`' % (r, u)
    c = target.connect(user=u, password='')
    ok(c, 'FLUSH STATUS')                      # the default role is active at login
    c.close()
    ok(root, 'REVOKE %s FROM %s' % (r, tgt))
    assert rows(root, 'SHOW GRANTS FOR %s' % tgt)[0] == 'GRANT USAGE ON *.* TO `%s`@`localhost`' % u


def test_revoke_reaches_open_connection(target, users):
    """A database-level REVOKE applies to a connection opened before it, at its next USE (both servers)."""
    u = users('rv')
    root = users.root
    try_make_table(root, 'dbrv', 't')
    ok(root, "GRANT SELECT ON dbrv.* TO '%s'@'localhost'" % u)
    c = target.connect(user=u, password='')
    assert run(c, 'USE dbrv') is None
    ok(root, "REVOKE SELECT ON dbrv.* FROM '%s'@'localhost'" % u)
    assert run(c, 'USE dbrv') == (1044, "Access denied for user '%s'@'localhost' to database 'dbrv'" % u)
    ok(root, "GRANT SELECT ON dbrv.* TO '%s'@'localhost'" % u)
    assert run(c, 'USE dbrv') is None
    c.close()


def test_global_revoke_reaches_open_connection(target, users):
    """strata: global privileges too (MariaDB: only new connections see them; see DIFFERENCES)."""
    u = users('rg')
    root = users.root
    ok(root, "GRANT RELOAD ON *.* TO '%s'@'localhost'" % u)
    c = target.connect(user=u, password='')
    ok(c, 'FLUSH STATUS')
    ok(root, "REVOKE RELOAD ON *.* FROM '%s'@'localhost'" % u)
    if target.differs('global_grants_reach_open_connections'):
        assert run(c, 'FLUSH STATUS') == (1227, ACCESS_1227 % 'RELOAD')
        ok(root, "GRANT RELOAD ON *.* TO '%s'@'localhost'" % u)
        ok(c, 'FLUSH STATUS')
    else:
        ok(c, 'FLUSH STATUS')
    c.close()
    c = target.connect(user=u, password='')    # a new connection sees the current grants on both
    ok(root, "REVOKE RELOAD ON *.* FROM '%s'@'localhost'" % u)
    c.close()
    c = target.connect(user=u, password='')
    assert run(c, 'FLUSH STATUS') == (1227, ACCESS_1227 % 'RELOAD')
    c.close()


def test_show_databases_hides(target, users):
    u = users('sd')
    c = target.connect(user=u, password='')
    seen = set(rows(c, 'SHOW DATABASES'))
    # MariaDB's reference grants PUBLIC the `test` database; nothing else may show.
    assert seen - {'test'} == {'information_schema'}
    assert 'mysql' not in seen
    c.close()


def test_processlist_own_threads_and_kill(target, users):
    a = users('pa')
    b = users('pb')
    root = users.root
    ca1, ca2 = target.connect(user=a, password=''), target.connect(user=a, password='')
    cb = target.connect(user=b, password='')
    users_seen = {r[1] for r in rows(ca1, 'SHOW PROCESSLIST')}
    assert users_seen == {a}
    ids = {r[1]: r[0] for r in rows(root, 'SHOW PROCESSLIST')}
    assert a in ids and b in ids
    bid = rows(cb, 'SELECT CONNECTION_ID()')[0]
    assert run(ca1, 'KILL %d' % bid) == (1095, 'You are not owner of thread %d' % bid)
    a2id = rows(ca2, 'SELECT CONNECTION_ID()')[0]
    ok(ca1, 'KILL QUERY %d' % a2id)           # one's own threads
    ok(root, "GRANT PROCESS ON *.* TO '%s'@'localhost'" % a)
    ca3 = target.connect(user=a, password='')
    assert {r[1] for r in rows(ca3, 'SHOW PROCESSLIST')} >= {a, b}
    for c in (ca1, ca2, cb, ca3):
        c.close()


def test_grants_survive_restart(fresh_target):
    root = fresh_target.connect()
    ok(root, "CREATE USER 'keep'@'localhost'")
    ok(root, "CREATE ROLE keeper")
    ok(root, "GRANT RELOAD ON *.* TO 'keep'@'localhost'")
    ok(root, "GRANT SELECT ON db5.* TO keeper")
    ok(root, "GRANT keeper TO 'keep'@'localhost'")
    ok(root, "SET DEFAULT ROLE keeper FOR 'keep'@'localhost'")
    before = rows(root, "SHOW GRANTS FOR 'keep'@'localhost'")
    before_r = rows(root, 'SHOW GRANTS FOR keeper')
    root.close()
    fresh_target.restart()
    root = fresh_target.connect()
    assert rows(root, "SHOW GRANTS FOR 'keep'@'localhost'") == before
    assert rows(root, 'SHOW GRANTS FOR keeper') == before_r
    assert 'GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION' in rows(root, 'SHOW GRANTS')
    root.close()
    c = fresh_target.connect(user='keep', password='')
    ok(c, 'FLUSH STATUS')
    assert run(c, 'SHUTDOWN') == (1227, ACCESS_1227 % 'SHUTDOWN')
    c.close()


def test_account_options(target, users, unique):
    root = users.root
    name = unique('ao')
    acct = "'%s'@'localhost'" % name
    try:
        ok(root, "CREATE USER %s IDENTIFIED BY 'x' REQUIRE SSL WITH MAX_USER_CONNECTIONS 2 ACCOUNT LOCK" % acct)
        assert rows(root, 'SHOW CREATE USER %s' % acct) == [
            "CREATE USER `%s`@`localhost` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227' "
            "REQUIRE SSL WITH MAX_USER_CONNECTIONS 2 ACCOUNT LOCK" % name]
        ok(root, 'GRANT SELECT ON *.* TO %s WITH GRANT OPTION' % acct)
        assert rows(root, 'SHOW GRANTS FOR %s' % acct) == [
            "GRANT SELECT ON *.* TO `%s`@`localhost` IDENTIFIED BY PASSWORD "
            "'*B69027D44F6E5EDC07F1AEAD1477967B16F28227' REQUIRE SSL WITH GRANT OPTION MAX_USER_CONNECTIONS 2" % name]
        with pytest.raises(pymysql.err.MySQLError) as ei:   # REQUIRE SSL is checked before the lock
            target.connect(user=name, password='x')
        assert ei.value.args == (1045, "Access denied for user '%s'@'localhost' (using password: YES)" % name)
        ok(root, 'ALTER USER %s REQUIRE NONE' % acct)
        with pytest.raises(pymysql.err.MySQLError) as ei:
            target.connect(user=name, password='x')
        assert ei.value.args == (4151, 'Access denied, this account is locked')
        ok(root, 'ALTER USER %s WITH MAX_USER_CONNECTIONS 1 ACCOUNT UNLOCK' % acct)
        assert rows(root, 'SHOW CREATE USER %s' % acct) == [
            "CREATE USER `%s`@`localhost` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227' "
            "WITH MAX_USER_CONNECTIONS 1" % name]
        c = target.connect(user=name, password='x')
        with pytest.raises(pymysql.err.MySQLError) as ei:
            target.connect(user=name, password='x')
        assert ei.value.args == (1226, "User '%s' has exceeded the 'max_user_connections' resource (current value: 1)" % name)
        c.close()
        ok(root, 'GRANT USAGE ON *.* TO %s WITH MAX_USER_CONNECTIONS 3' % acct)
        assert rows(root, 'SHOW CREATE USER %s' % acct)[0].endswith('WITH MAX_USER_CONNECTIONS 3')
    finally:
        run(root, 'DROP USER IF EXISTS %s' % acct)


@pytest.mark.parametrize('options', ['', 'REQUIRE SSL ACCOUNT LOCK'])
@pytest.mark.parametrize('change', ['DROP USER %(a)s', "RENAME USER %(a)s TO '%(n)s_b'@'localhost'"])
def test_account_vanishing_mid_login(target, users, unique, change, options):
    """The account is dropped (or renamed) while the client holds its answer to the auth switch: the password is
    right, but the account whose REQUIRE SSL / ACCOUNT LOCK / limits apply is gone.  With those options both
    servers refuse (MariaDB checks them on the account as first read); without, see DIFFERENCES."""
    root = users.root
    name = unique('vm')
    acct = "'%s'@'localhost'" % name
    try:
        ok(root, "CREATE USER %s IDENTIFIED BY 'pw' %s" % (acct, options))
        c = rawclient.RawClient.open(unix=target.socket)
        answer = c.auth_response

        def answer_after_change(plugin, password, salt):
            if getattr(c, 'auth_switched_to', None):  # the switch came: the server is waiting for us
                ok(root, change % {'a': acct, 'n': name})
            return answer(plugin, password, salt)
        c.auth_response = answer_after_change
        try:
            # a client plugin the account does not use: the server switches to mysql_native_password
            c.handshake(name, 'pw', plugin='caching_sha2_password')
            err = None
        except rawclient.ServerError as e:
            err = e
        assert c.auth_switched_to == 'mysql_native_password'
        if options or target.differs('login_of_vanished_account_refused'):
            assert err is not None and (err.code, err.sqlstate, err.message) == (
                1045, '28000', "Access denied for user '%s'@'localhost' (using password: YES)" % name)
        else:  # MariaDB: logged in with the account as first read, and no grants
            assert err is None
            with pytest.raises(rawclient.ServerError) as ei:
                c.query('SHOW GRANTS')
            assert ei.value.code == 1141
        c.close()
    finally:
        run(root, 'DROP USER IF EXISTS %s' % acct)
        run(root, "DROP USER IF EXISTS '%s_b'@'localhost'" % name)


@pytest.fixture
def tdb(target, unique):
    """A scratch database with tables t(a, b) and x(a), dropped afterwards."""
    root = target.connect()
    db = unique('pdb')
    ok(root, 'CREATE DATABASE %s' % db)
    ok(root, 'CREATE TABLE %s.t (a INT, b INT)' % db)
    ok(root, 'CREATE TABLE %s.x (a INT)' % db)
    ok(root, 'INSERT INTO %s.t VALUES (1, 2)' % db)
    yield db
    run(root, 'DROP DATABASE IF EXISTS %s' % db)
    root.close()


def test_table_and_column_privileges(target, users, tdb):
    w = users('tw')
    root = users.root
    db = tdb
    ok(root, "GRANT SELECT (a) ON %s.t TO '%s'@'localhost'" % (db, w))
    assert run(root, "GRANT SELECT ON %s.nope TO '%s'@'localhost'" % (db, w)) == (
        1146, "Table '%s.nope' doesn't exist" % db)
    c = target.connect(user=w, password='')
    deny = lambda cmd, t: (1142, "%s command denied to user '%s'@'localhost' for table `%s`.`%s`" % (cmd, w, db, t))
    cases = [
        ('SELECT * FROM %s.t' % db, deny('SELECT', 't')),
        ('SELECT b FROM %s.t' % db, (1143, "SELECT command denied to user '%s'@'localhost' for column 'b' in table 't'" % w)),
        ('SELECT a FROM %s.t WHERE b = 1' % db, (1143, "SELECT command denied to user '%s'@'localhost' for column 'b' in table 't'" % w)),
        ('INSERT INTO %s.t VALUES (1, 2)' % db, deny('INSERT', 't')),
        ('INSERT INTO %s.t (a) VALUES (1)' % db, deny('INSERT', 't')),
        ('UPDATE %s.t SET a = 1' % db, deny('UPDATE', 't')),
        ('DELETE FROM %s.t' % db, deny('DELETE', 't')),
        ('CREATE TABLE %s.y (a INT)' % db, deny('CREATE', 'y')),
        ('DROP TABLE %s.x' % db, deny('DROP', 'x')),
        ('TRUNCATE %s.x' % db, deny('DROP', 'x')),
        ('ALTER TABLE %s.x ADD c INT' % db, deny('ALTER', 'x')),
        ('CREATE INDEX i ON %s.x (a)' % db, deny('INDEX', 'x')),
        ('RENAME TABLE %s.x TO %s.y' % (db, db), deny('DROP, ALTER', 'x')),
        ('SHOW COLUMNS FROM %s.x' % db, deny('SELECT', 'x')),
        ('SHOW INDEX FROM %s.x' % db, deny('SELECT', 'x')),
        ('SHOW CREATE TABLE %s.x' % db, deny('SHOW', 'x')),
        ('SELECT t.a FROM %s.t JOIN %s.x ON t.a = x.a' % (db, db), deny('SELECT', 'x')),
        ('DROP DATABASE %s' % db, (1044, "Access denied for user '%s'@'localhost' to database '%s'" % (w, db))),
        ('LOCK TABLES %s.t READ' % db, (1044, "Access denied for user '%s'@'localhost' to database '%s'" % (w, db))),
        ('CREATE DATABASE %s_new' % db, (1044, "Access denied for user '%s'@'localhost' to database '%s_new'" % (w, db))),
    ]
    for sql, want in cases:
        assert run(c, sql) == want, sql
    assert rows(c, 'SELECT a FROM %s.t' % db) == [1]
    assert rows(c, 'SHOW TABLES FROM %s' % db) == ['t']           # only the table it has a privilege on
    ok(root, "GRANT INSERT, UPDATE ON %s.t TO '%s'@'localhost'" % (db, w))
    ok(c, 'INSERT INTO %s.t (a, b) VALUES (3, 4)' % db)            # table-level grants reach it at once
    assert run(c, 'UPDATE %s.t SET b = 5 WHERE b = 4' % db) == (
        1143, "SELECT command denied to user '%s'@'localhost' for column 'b' in table 't'" % w)
    ok(c, 'UPDATE %s.t SET b = 5 WHERE a = 3' % db)
    c.close()


def test_prepared_statement_checked_at_execute(target, users, tdb):
    w = users('pw')
    root = users.root
    ok(root, "GRANT SELECT ON %s.t TO '%s'@'localhost'" % (tdb, w))
    c = target.connect(user=w, password='')
    ok(c, "PREPARE s FROM 'SELECT a FROM %s.t'" % tdb)
    assert rows(c, 'EXECUTE s') == [1]
    ok(root, "REVOKE SELECT ON %s.t FROM '%s'@'localhost'" % (tdb, w))
    assert run(c, 'EXECUTE s') == (1142, "SELECT command denied to user '%s'@'localhost' for table `%s`.`t`" % (w, tdb))
    c.close()


def test_no_database_names_leak(target, users, tdb):
    u = users('nl')
    c = target.connect(user=u, password='')
    assert tdb not in rows(c, 'SHOW DATABASES')
    assert tdb not in rows(c, 'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA')
    assert rows(c, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '%s'" % tdb) == []
    assert rows(c, "SELECT TABLE_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = '%s'" % tdb) == []
    assert run(c, 'SHOW TABLES FROM %s' % tdb) == (1044, "Access denied for user '%s'@'localhost' to database '%s'" % (u, tdb))
    # a missing database and an existing one answer the same: no way to probe names
    assert run(c, 'USE %s' % tdb) == (1044, "Access denied for user '%s'@'localhost' to database '%s'" % (u, tdb))
    assert run(c, 'USE %s_missing' % tdb) == (
        1044, "Access denied for user '%s'@'localhost' to database '%s_missing'" % (u, tdb))
    c.close()
    users.root.cursor().execute("GRANT SELECT ON %s.x TO '%s'@'localhost'" % (tdb, u))
    c = target.connect(user=u, password='')
    assert tdb in rows(c, 'SHOW DATABASES')
    assert rows(c, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '%s'" % tdb) == ['x']
    assert rows(c, "SELECT TABLE_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = '%s'" % tdb) == ['x']
    c.close()


@pytest.fixture
def two_dbs(target, unique):
    """Databases d1 (t(a PRIMARY KEY, b, KEY kb(b)), s(a, b), x(a)) and an empty d2, dropped afterwards."""
    root = target.connect()
    d1, d2 = unique('pa'), unique('pb')
    for sql in ('CREATE DATABASE %s' % d1, 'CREATE DATABASE %s' % d2,
                'CREATE TABLE %s.t (a INT PRIMARY KEY, b INT, KEY kb (b))' % d1, 'CREATE TABLE %s.s (a INT, b INT)' % d1,
                'CREATE TABLE %s.x (a INT)' % d1, 'INSERT INTO %s.t VALUES (1, 2), (3, 4)' % d1,
                'INSERT INTO %s.s VALUES (1, 2), (5, 6)' % d1, 'INSERT INTO %s.x VALUES (1)' % d1):
        ok(root, sql)
    yield d1, d2
    for d in (d1, d2):
        run(root, 'DROP DATABASE IF EXISTS %s' % d)
    root.close()


# (grants, [(statement, expected)]): expected is None for success, else (errno, command, db, table) for 1142 or
# (errno, column, table) for 1143.  {d1} / {d2} are the databases, {u} the account.
STATEMENT_PRIVILEGE_CASES = [
    (['GRANT ALTER ON {d1}.t TO {u}'], [
        ('ALTER TABLE {d1}.t RENAME TO {d2}.t', (1142, 'DROP', 'd1', 't')),
        ('ALTER TABLE {d1}.t RENAME TO {d1}.t9', (1142, 'DROP', 'd1', 't')),
        ('ALTER TABLE {d1}.t ADD c INT, RENAME TO {d1}.t8', (1142, 'DROP', 'd1', 't')),
        ('ALTER TABLE {d1}.t ADD INDEX i (a)', None)]),
    (['GRANT DROP ON {d1}.t TO {u}'], [
        ('RENAME TABLE {d1}.t TO {d1}.t2', (1142, 'ALTER', 'd1', 't')),
        ('ALTER TABLE {d1}.t RENAME TO {d1}.t2', (1142, 'ALTER', 'd1', 't'))]),
    (['GRANT ALTER, DROP ON {d1}.t TO {u}'], [
        ('ALTER TABLE {d1}.t RENAME TO {d2}.t', (1142, 'INSERT, CREATE', 'd2', 't'))]),
    (['GRANT ALTER, DROP ON {d1}.t TO {u}', 'GRANT CREATE ON {d2}.* TO {u}'], [
        ('ALTER TABLE {d1}.t RENAME TO {d2}.t', (1142, 'INSERT', 'd2', 't'))]),
    (['GRANT ALTER, DROP ON {d1}.t TO {u}', 'GRANT INSERT ON {d2}.* TO {u}'], [
        ('ALTER TABLE {d1}.t RENAME TO {d2}.t', (1142, 'CREATE', 'd2', 't'))]),
    (['GRANT ALTER ON {d1}.* TO {u}'], [
        ('USE {d1}', None),
        ('ALTER TABLE t RENAME TO t7', (1142, 'DROP', 'd1', 't')),
        ('ALTER TABLE t RENAME t7', (1142, 'DROP', 'd1', 't'))]),
    (['GRANT ALTER, DROP, CREATE, INSERT ON {d1}.* TO {u}'], [
        ('RENAME TABLE {d1}.t TO {d1}.t2, {d1}.s TO {d2}.s', (1142, 'INSERT, CREATE', 'd2', 's'))]),
    (['GRANT CREATE ON {d1}.* TO {u}'], [
        ('CREATE TABLE {d1}.n LIKE {d1}.s', (1142, 'SELECT', 'd1', 's')),
        ('CREATE TABLE {d1}.n AS SELECT * FROM {d1}.s', (1142, 'INSERT', 'd1', 'n')),
        ('CREATE TABLE {d1}.n AS SELECT 1', (1142, 'INSERT', 'd1', 'n'))]),
    (['GRANT CREATE, INSERT ON {d1}.* TO {u}'], [
        ('CREATE TABLE {d1}.n AS SELECT * FROM {d1}.s', (1142, 'SELECT', 'd1', 's'))]),
    (['GRANT CREATE, INSERT ON {d1}.* TO {u}', 'GRANT SELECT (a) ON {d1}.s TO {u}'], [
        ('CREATE TABLE {d1}.n AS SELECT a, b FROM {d1}.s', (1143, 'b', 's')),
        ('CREATE TABLE {d1}.n LIKE {d1}.s', None)]),
    (['GRANT DELETE ON {d1}.x TO {u}'], [
        ('TRUNCATE {d1}.x', (1142, 'DROP', 'd1', 'x'))]),
    (['GRANT SELECT ON {d1}.x TO {u}'], [
        ('REPLACE INTO {d1}.t VALUES (1, 5)', (1142, 'INSERT, DELETE', 'd1', 't')),
        ('INSERT INTO {d1}.t VALUES (1, 5) ON DUPLICATE KEY UPDATE b = 6', (1142, 'INSERT, UPDATE', 'd1', 't'))]),
    (['GRANT INSERT ON {d1}.t TO {u}'], [
        ('INSERT INTO {d1}.t VALUES (1, 5) ON DUPLICATE KEY UPDATE b = 6', (1142, 'UPDATE', 'd1', 't')),
        ('REPLACE INTO {d1}.t VALUES (1, 5)', (1142, 'DELETE', 'd1', 't'))]),
    (['GRANT INSERT ON {d1}.t TO {u}', 'GRANT UPDATE (b) ON {d1}.t TO {u}'], [
        ('INSERT INTO {d1}.t VALUES (1, 5) ON DUPLICATE KEY UPDATE b = a', (1143, 'a', 't')),
        ('INSERT INTO {d1}.t VALUES (1, 5) ON DUPLICATE KEY UPDATE b = VALUES(b)', (1143, 'b', 't'))]),
    (['GRANT INSERT ON {d1}.x TO {u}', 'GRANT SELECT (a) ON {d1}.s TO {u}'], [
        ('INSERT INTO {d1}.x SELECT b FROM {d1}.s', (1143, 'b', 's')),
        ('INSERT INTO {d1}.x SELECT a FROM {d1}.s WHERE b = 1', (1143, 'b', 's')),
        ('INSERT INTO {d1}.x SELECT a FROM {d1}.s', None)]),
    (['GRANT LOCK TABLES ON {d1}.* TO {u}'], [
        ('LOCK TABLES {d1}.t READ', (1142, 'SELECT', 'd1', 't'))]),
    (['GRANT LOCK TABLES ON {d1}.* TO {u}', 'GRANT SELECT (a) ON {d1}.t TO {u}'], [
        ('LOCK TABLES {d1}.t READ', None), ('UNLOCK TABLES', None)]),
    # multi-table UPDATE: a table read only in a join needs SELECT, and so do the columns read anywhere
    (['GRANT UPDATE ON {d1}.t TO {u}'], [
        ('UPDATE {d1}.t JOIN {d1}.s ON t.a = s.a SET t.b = 1', (1142, 'SELECT', 'd1', 's')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = 1', (1142, 'SELECT', 'd1', 's'))]),
    (['GRANT UPDATE ON {d1}.t TO {u}', 'GRANT SELECT ON {d1}.s TO {u}'], [
        ('UPDATE {d1}.t JOIN {d1}.s ON t.a = s.a SET t.b = 1', (1143, 'a', 't')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = s.b', None)]),
    (['GRANT UPDATE, SELECT (b) ON {d1}.t TO {u}', 'GRANT SELECT ON {d1}.s TO {u}'], [
        ('UPDATE {d1}.t JOIN {d1}.s ON t.a = s.a SET t.b = 1', (1143, 'a', 't')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = 1 WHERE t.a = 1', (1143, 'a', 't')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = t.a + 1', (1143, 'a', 't')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = (SELECT MAX(a) FROM {d1}.x)', (1142, 'SELECT', 'd1', 'x')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = 7', None)]),
    (['GRANT UPDATE ON {d1}.t TO {u}', 'GRANT SELECT (a) ON {d1}.s TO {u}'], [
        ('UPDATE {d1}.t, {d1}.s SET t.b = s.b', (1143, 'b', 's')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = s.a', None)]),
    (['GRANT UPDATE (b) ON {d1}.t TO {u}', 'GRANT SELECT ON {d1}.s TO {u}'], [
        ('UPDATE {d1}.t JOIN {d1}.s ON t.b = s.b SET t.b = 1', (1143, 'b', 't')),
        ('UPDATE {d1}.t, {d1}.s SET t.b = 7', None)]),
    # multi-table DELETE: every table named needs SELECT, targets too
    (['GRANT DELETE ON {d1}.t TO {u}'], [
        ('USE {d1}', None),
        ('DELETE t FROM {d1}.t JOIN {d1}.s ON t.a = s.a', (1142, 'SELECT', 'd1', 't')),
        ('DELETE t FROM {d1}.t, {d1}.s', (1142, 'SELECT', 'd1', 't'))]),
    (['GRANT DELETE ON {d1}.t TO {u}', 'GRANT SELECT ON {d1}.s TO {u}'], [
        ('USE {d1}', None),
        ('DELETE t FROM {d1}.t JOIN {d1}.s USING (a)', (1142, 'SELECT', 'd1', 't')),
        ('DELETE t, s FROM {d1}.t, {d1}.s WHERE 0', (1142, 'SELECT', 'd1', 't')),
        ('DELETE FROM {d1}.t WHERE a = 9', (1143, 'a', 't'))]),
    (['GRANT DELETE, SELECT ON {d1}.t TO {u}', 'GRANT SELECT (a) ON {d1}.s TO {u}'], [
        ('USE {d1}', None),
        ('DELETE t FROM {d1}.t JOIN {d1}.s ON t.a = s.b WHERE 0', (1143, 'b', 's')),
        ('DELETE t FROM {d1}.t JOIN {d1}.s ON t.a = s.a WHERE 0', None),
        ('DELETE t FROM {d1}.t, {d1}.s WHERE 0', None)]),
    # SELECT: join conditions, GROUP BY, ORDER BY, subqueries in every position, COUNT(*) with column grants
    (['GRANT SELECT (b) ON {d1}.t TO {u}', 'GRANT SELECT ON {d1}.s TO {u}'], [
        ('SELECT t.b FROM {d1}.t JOIN {d1}.s ON t.a = s.a', (1143, 'a', 't')),
        ('SELECT t.b FROM {d1}.t GROUP BY t.a', (1143, 'a', 't')),
        ('SELECT t.b FROM {d1}.t ORDER BY t.a', (1143, 'a', 't')),
        ('SELECT COUNT(*) FROM {d1}.t', None),
        ('SELECT b FROM {d1}.t WHERE EXISTS (SELECT 1 FROM {d1}.x)', (1142, 'SELECT', 'd1', 'x')),
        ('SELECT (SELECT a FROM {d1}.t LIMIT 1)', (1143, 'a', 't')),
        ('SELECT b FROM {d1}.t WHERE b IN (SELECT a FROM {d1}.t)', (1143, 'a', 't')),
        ('SELECT b FROM (SELECT a, b FROM {d1}.t) dt', (1143, 'a', 't')),
        ('SHOW CREATE TABLE {d1}.t', (1142, 'SHOW', 'd1', 't')),
        ('SHOW COLUMNS FROM {d1}.x', (1142, 'SELECT', 'd1', 'x'))]),
    (['GRANT INSERT (a) ON {d1}.t TO {u}'], [
        ('SELECT COUNT(*) FROM {d1}.t', (1142, 'SELECT', 'd1', 't')),
        ('SHOW CREATE TABLE {d1}.t', (1142, 'SHOW', 'd1', 't'))]),
]


@pytest.mark.parametrize('case', range(len(STATEMENT_PRIVILEGE_CASES)))
def test_statement_privileges(target, unique, two_dbs, case):
    """Each statement needs every privilege MariaDB asks for: RENAME in ALTER TABLE, LIKE / SELECT in CREATE
    TABLE, ON DUPLICATE KEY UPDATE and REPLACE, INSERT ... SELECT, LOCK TABLES, the tables and columns a
    multi-table UPDATE / DELETE reads, the columns of joins, groupings and subqueries; 1142 names every missing
    privilege.  A table read only in a join is not readable through the affected-row count."""
    d1, d2 = two_dbs
    root = target.connect()
    name = unique('sp')
    acct = "'%s'@'localhost'" % name
    grants, statements = STATEMENT_PRIVILEGE_CASES[case]
    try:
        ok(root, 'CREATE USER %s' % acct)
        for g in grants:
            ok(root, g.format(d1=d1, d2=d2, u=acct))
        c = target.connect(user=name, password='')
        dbs = {'d1': d1, 'd2': d2}
        for sql, want in statements:
            sql = sql.format(d1=d1, d2=d2)
            if want and want[0] == 1142:
                want = (1142, "%s command denied to user '%s'@'localhost' for table `%s`.`%s`" % (
                    want[1], name, dbs[want[2]], want[3]))
            elif want:
                want = (1143, "SELECT command denied to user '%s'@'localhost' for column '%s' in table '%s'" % (
                    name, want[1], want[2]))
            assert run(c, sql) == want, sql
        c.close()
    finally:
        run(root, 'DROP USER IF EXISTS %s' % acct)
        root.close()


def test_column_metadata_follows_column_grants(target, users, unique):
    """information_schema.COLUMNS / STATISTICS, SHOW [FULL] COLUMNS and SHOW INDEX show only the columns the
    account holds a privilege on, and COLUMNS.PRIVILEGES lists those privileges (MariaDB's answers)."""
    root = users.root
    db = unique('cg')
    ok(root, 'CREATE DATABASE %s' % db)
    try:
        ok(root, 'CREATE TABLE %s.t (a INT PRIMARY KEY, b INT, c INT, KEY kb (b), KEY kc (c))' % db)
        u = users('cgu')
        ok(root, "GRANT SELECT (a, b), UPDATE (b) ON %s.t TO '%s'@'localhost'" % (db, u))
        c = target.connect(user=u, password='')
        q = "SELECT COLUMN_NAME, PRIVILEGES FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '%s' ORDER BY 1" % db
        assert rows(c, q) == [('a', 'select'), ('b', 'select,update')]
        assert [r[0] for r in rows(c, 'SHOW COLUMNS FROM %s.t' % db)] == ['a', 'b']
        with c.cursor() as cur:
            cur.execute('SHOW FULL COLUMNS FROM %s.t' % db)
            assert [(r[0], r[7]) for r in cur.fetchall()] == [('a', 'select'), ('b', 'select,update')]
            cur.execute('SHOW INDEX FROM %s.t' % db)
            assert [(r[2], r[4]) for r in cur.fetchall()] == [('PRIMARY', 'a'), ('kb', 'b')]
        q = ("SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '%s' "
             "ORDER BY 1" % db)
        assert rows(c, q) == [('kb', 'b'), ('PRIMARY', 'a')]
        c.close()
        v = users('cgt')
        ok(root, "GRANT INSERT ON %s.t TO '%s'@'localhost'" % (db, v))
        ok(root, "GRANT SELECT (a) ON %s.t TO '%s'@'localhost'" % (db, v))
        c = target.connect(user=v, password='')
        q = "SELECT COLUMN_NAME, PRIVILEGES FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '%s' ORDER BY 1" % db
        assert rows(c, q) == [('a', 'select,insert'), ('b', 'insert'), ('c', 'insert')]
        c.close()
        assert rows(root, q)[0] == ('a', 'select,insert,update,references')
    finally:
        run(root, 'DROP DATABASE IF EXISTS %s' % db)


def test_denial_names_the_client_host(target, unique):
    """1142 and 1143 name the client's host, 1044 the account's host pattern (MariaDB 10.11)."""
    root = target.connect()
    db, u = unique('hd'), unique('hu')
    ok(root, 'CREATE DATABASE %s' % db)
    try:
        ok(root, 'CREATE TABLE %s.t (a INT, b INT)' % db)
        ok(root, "CREATE USER '%s'@'%%'" % u)
        ok(root, "GRANT SELECT (a) ON %s.t TO '%s'@'%%'" % (db, u))
        c = target.connect(user=u, password='')
        assert run(c, 'SELECT * FROM %s.t' % db) == (
            1142, "SELECT command denied to user '%s'@'localhost' for table `%s`.`t`" % (u, db))
        assert run(c, 'SELECT b FROM %s.t' % db) == (
            1143, "SELECT command denied to user '%s'@'localhost' for column 'b' in table 't'" % u)
        assert run(c, 'CREATE DATABASE %s_x' % db) == (
            1044, "Access denied for user '%s'@'%%' to database '%s_x'" % (u, db))
        c.close()
    finally:
        run(root, "DROP USER IF EXISTS '%s'@'%%'" % u)
        run(root, 'DROP DATABASE IF EXISTS %s' % db)
        root.close()
