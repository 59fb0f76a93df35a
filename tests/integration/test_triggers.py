"""Triggers beyond single statements: they survive a restart and kill -9 (catalog records), DROP TABLE / DROP
DATABASE take them along, the TRIGGER privilege guards CREATE and DROP, CREATE TRIGGER reaches the binary log with
its DEFINER, and with binlog_format=ROW the rows a trigger writes are logged as row events of the firing
statement (no trigger runs again where the binlog is applied: a MariaDB fed strata's binlog ends with the same
rows).  SHOW TRIGGERS is compared with MariaDB here (its Created column differs by nature); the per-statement
behaviour is tests/sql/triggers.sql."""
import signal
import subprocess

import pymysql
import pytest


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()] if cur.description else []


SCHEMA = [
    'CREATE TABLE t (a INT PRIMARY KEY, b INT)',
    'CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(64))',
    'CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.b = NEW.a * 10',
    "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO log (msg) VALUES (CONCAT('ai ', NEW.a, ' ', NEW.b))",
    "CREATE TRIGGER t_bi0 BEFORE INSERT ON t FOR EACH ROW PRECEDES t_bi INSERT INTO log (msg) VALUES (CONCAT('bi0 ', NEW.a))",
    '''CREATE TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW
BEGIN
  IF NEW.b < 0 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative';
  END IF;
  INSERT INTO log (msg) VALUES (CONCAT('bu ', OLD.b, '->', NEW.b));
END''',
    "CREATE TRIGGER t_ad AFTER DELETE ON t FOR EACH ROW INSERT INTO log (msg) VALUES (CONCAT('ad ', OLD.a))",
]


def build(server, db):
    c = server.connect()
    q(c, 'CREATE DATABASE %s COLLATE utf8mb4_general_ci' % db)  # (Debian's MariaDB defaults to latin1)
    q(c, 'USE %s' % db)
    for s in SCHEMA:
        q(c, s)
    return c


def work(c):
    q(c, 'INSERT INTO t (a) VALUES (1), (2)')
    q(c, 'UPDATE t SET b = b + 1 WHERE a = 1')
    q(c, 'DELETE FROM t WHERE a = 2')


def observe(server, db):
    c = server.connect(database=db)
    out = (q(c, 'SELECT TRIGGER_NAME, EVENT_MANIPULATION, ACTION_TIMING, ACTION_ORDER, ACTION_STATEMENT '
                'FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY TRIGGER_NAME'),
           [r[:5] + r[6:] for r in q(c, 'SHOW TRIGGERS')],  # Created (r[5]) is the time of CREATE
           q(c, 'SHOW CREATE TRIGGER t_bu')[0][:6])
    c.close()
    return out


@pytest.mark.parametrize('how', [signal.SIGTERM, signal.SIGKILL])
def test_triggers_survive_restart(fresh_strata, unique, how):
    s = fresh_strata
    s.start()
    db = unique('tr')
    c = build(s, db)
    before = observe(s, db)
    assert [r[0] for r in before[0]] == ['t_ad', 't_ai', 't_bi', 't_bi0', 't_bu']
    q(c, 'CREATE TRIGGER gone BEFORE DELETE ON t FOR EACH ROW SET @x = 1')
    q(c, 'DROP TRIGGER gone')
    c.close()
    if how == signal.SIGTERM:
        s.stop()
    else:
        s.proc.send_signal(how)
        s.proc.wait(timeout=10)
        s.stderr_f.close()
    s.start()
    assert observe(s, db) == before
    c = s.connect(database=db)
    work(c)  # the triggers still fire, in their order
    assert q(c, 'SELECT msg FROM log ORDER BY id') == [('bi0 1',), ('ai 1 10',), ('bi0 2',), ('ai 2 20',),
                                                       ('bu 10->11',), ('ad 2',)]
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, 'DROP TRIGGER gone')
    assert e.value.args[0] == 1360
    q(c, 'DROP TABLE t')  # its triggers go with it
    assert q(c, "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '%s'" % db) == [(0,)]
    q(c, 'CREATE TABLE t (a INT PRIMARY KEY, b INT)')
    q(c, 'INSERT INTO t (a) VALUES (5)')
    assert q(c, 'SELECT * FROM t') == [(5, None)]
    q(c, 'CREATE TRIGGER again BEFORE INSERT ON t FOR EACH ROW SET NEW.b = 1')
    q(c, 'DROP DATABASE %s' % db)  # and a database's with it
    q(c, 'CREATE DATABASE %s' % db)
    assert q(c, "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '%s'" % db) == [(0,)]
    q(c, 'DROP DATABASE %s' % db)
    c.close()


def test_kill9_mid_statement_keeps_committed_rows(fresh_strata, unique):
    """A trigger's rows commit with the statement that fired it: after kill -9 the log holds exactly the rows of
    the committed statements, and an open transaction's rows (the trigger's too) are gone."""
    s = fresh_strata
    s.start()
    db = unique('tk')
    c = build(s, db)
    q(c, 'INSERT INTO t (a) VALUES (1)')
    c2 = s.connect(database=db)
    q(c2, 'BEGIN')
    q(c2, 'INSERT INTO t (a) VALUES (2)')
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait(timeout=10)
    s.stderr_f.close()
    s.start()
    c = s.connect(database=db)
    assert q(c, 'SELECT * FROM t') == [(1, 10)]
    assert q(c, 'SELECT msg FROM log ORDER BY id') == [('bi0 1',), ('ai 1 10',)]
    c.close()


def test_show_triggers_same_as_mariadb(strata, mariadb, unique):
    db = unique('ts')
    out = []
    for server in (strata, mariadb):
        c = build(server, db)
        work(c)
        out.append(observe(server, db) + (q(c, 'SELECT msg FROM log ORDER BY id'), q(c, 'SELECT * FROM t')))
        c.close()
        server.query('DROP DATABASE %s' % db)
    assert out[0] == out[1]


def test_statement_rollback(target, unique):
    """SIGNAL in a trigger fails the statement: its rows and the trigger's rows are undone, earlier statements
    of the transaction stay."""
    db = unique('tb')
    c = build(target, db)
    q(c, 'INSERT INTO t (a) VALUES (1), (2)')
    q(c, 'BEGIN')
    q(c, 'UPDATE t SET b = 5 WHERE a = 2')
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, 'UPDATE t SET b = b - 8')  # row 1 passes (10 -> 2, logged), row 2 (5 -> -3) fails
    assert e.value.args == (1644, 'negative')
    q(c, 'COMMIT')
    assert q(c, 'SELECT * FROM t ORDER BY a') == [(1, 10), (2, 5)]
    assert q(c, 'SELECT msg FROM log ORDER BY id')[-1] == ('bu 20->5',)
    q(c, 'DROP DATABASE %s' % db)
    c.close()


def test_trigger_privilege(target, unique):
    db, user = unique('tp'), unique('tu')
    root = build(target, db)
    q(root, "CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
    q(root, "GRANT SELECT, INSERT ON %s.* TO '%s'@'%%'" % (db, user))
    c = target.connect(user=user, password='pw', database=db)
    for sql in ('CREATE TRIGGER mine BEFORE INSERT ON t FOR EACH ROW SET NEW.b = 2', 'DROP TRIGGER t_bi'):
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(c, sql)
        assert e.value.args[0] == 1142, (sql, e.value.args)
        assert 'TRIGGER command denied' in e.value.args[1], e.value.args
    q(c, 'INSERT INTO t (a) VALUES (3)')  # firing needs no TRIGGER privilege of the invoker
    assert q(c, 'SELECT b FROM t WHERE a = 3') == [(30,)]
    c.close()
    q(root, "GRANT TRIGGER ON %s.t TO '%s'@'%%'" % (db, user))
    c = target.connect(user=user, password='pw', database=db)
    q(c, 'CREATE TRIGGER mine AFTER UPDATE ON t FOR EACH ROW SET @x = 1')
    q(c, 'DROP TRIGGER mine')
    q(c, "CREATE DEFINER = '%s'@'%%' TRIGGER mine AFTER UPDATE ON t FOR EACH ROW SET @x = 1" % user)
    q(c, 'DROP TRIGGER mine')
    with pytest.raises(pymysql.err.OperationalError) as e:  # another definer: SUPER or SET USER
        q(c, "CREATE DEFINER = 'root'@'localhost' TRIGGER mine AFTER UPDATE ON t FOR EACH ROW SET @x = 1")
    assert e.value.args[0] == 1227, e.value.args
    c.close()
    q(root, "DROP USER '%s'@'%%'" % user)
    q(root, 'DROP DATABASE %s' % db)
    root.close()


BINLOG_OPTS = ['--log-bin=trglog', '--binlog-format=ROW', '--server-id=1']


def binlog_files(c):
    import os
    base = q(c, 'SELECT @@log_bin_basename')[0][0]
    return [os.path.join(os.path.dirname(base), r[0]) for r in q(c, 'SHOW BINARY LOGS')]


def test_row_binlog_carries_trigger_rows(fresh_strata, mariadb, unique):
    """binlog_format=ROW: CREATE TRIGGER is a QUERY event with its DEFINER; an INSERT that fires an AFTER trigger
    logs the rows of both tables as row events in one transaction and no statement text; applied to MariaDB
    (mariadb-binlog | mariadb, whose triggers exist there too from the same binlog) no trigger runs again."""
    s = fresh_strata
    s.start(BINLOG_OPTS)
    db = unique('tl')
    c = build(s, db)
    work(c)
    events = q(c, 'SHOW BINLOG EVENTS')
    texts = [e[5] for e in events if e[2] == 'Query']
    assert any('CREATE DEFINER=`root`@`localhost` TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.b' in t
               for t in texts), texts
    dml = [t for t in texts if 'TRIGGER' not in t]
    assert not any('INSERT INTO' in t or 'UPDATE t' in t or 'DELETE FROM' in t for t in dml), dml
    kinds = [e[2] for e in events]
    assert kinds.count('Write_rows_v1') >= 3, kinds
    out = subprocess.run(['mariadb-binlog', '--verbose', '--base64-output=DECODE-ROWS'] + binlog_files(c),
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout.decode('utf-8', 'backslashreplace')
    assert "### INSERT INTO `%s`.`log`" % db in text and "### INSERT INTO `%s`.`t`" % db in text, text[-3000:]
    want_t = q(c, 'SELECT * FROM t ORDER BY a')
    want_log = q(c, 'SELECT * FROM log ORDER BY id')
    c.close()
    # replay the binlog into MariaDB: the schema and triggers from the QUERY events, the rows from row events
    dump = subprocess.run(['mariadb-binlog'] + binlog_files(s.connect()), capture_output=True, timeout=60)
    assert dump.returncode == 0, dump.stderr[-2000:]
    try:
        r = mariadb.cli('--binary-mode', input=dump.stdout.decode('utf-8', 'surrogateescape'))
        assert r.returncode == 0, r.stderr
        m = mariadb.connect(database=db)
        assert q(m, 'SELECT * FROM t ORDER BY a') == want_t
        assert q(m, 'SELECT * FROM log ORDER BY id') == want_log  # not doubled by MariaDB's triggers
        assert len(q(m, 'SHOW TRIGGERS')) == 5
        m.close()
    finally:
        mariadb.query('DROP DATABASE IF EXISTS %s' % db)


def dump(server, db):
    cmd = ['mariadb-dump', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port), '--protocol=TCP',
           '--triggers', '--databases', db]
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    assert r.returncode == 0, 'mariadb-dump from %s failed: %s' % (server.kind, r.stderr.decode(errors='replace'))
    return r.stdout


def restore(server, text):
    cmd = ['mariadb', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port), '--protocol=TCP',
           '--default-character-set=utf8mb4']
    r = subprocess.run(cmd, input=text, capture_output=True, timeout=120)
    assert r.returncode == 0, 'loading into %s failed: %s' % (server.kind, (r.stdout + r.stderr).decode(errors='replace'))


@pytest.mark.parametrize('direction', ['mariadb_to_strata', 'strata_to_mariadb'])
def test_dump_triggers_restore(strata, mariadb, unique, direction):
    """mariadb-dump --triggers (SHOW TRIGGERS, SHOW CREATE TRIGGER: the version-comment form
    /*!50003 CREATE*/ /*!50017 DEFINER=...*/ /*!50003 TRIGGER ... */) of one server restores into the other, with
    the same triggers in the same order, firing the same way."""
    src, dst = (mariadb, strata) if direction == 'mariadb_to_strata' else (strata, mariadb)
    db = unique('td')
    c = build(src, db)
    work(c)
    c.close()
    text = dump(src, db)
    assert b'/*!50003 TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW\nBEGIN' in text, text[-3000:]
    try:
        restore(dst, text)
        assert observe(dst, db) == observe(src, db)
        for server in (src, dst):
            cc = server.connect(database=db)
            q(cc, 'INSERT INTO t (a) VALUES (7)')
            q(cc, 'UPDATE t SET b = 1 WHERE a = 7')
            cc.close()
        got = [server.query('SELECT * FROM %s.log ORDER BY id' % db) for server in (src, dst)]
        assert got[0] == got[1]
    finally:
        for server in (src, dst):
            server.query('DROP DATABASE IF EXISTS %s' % db)


def test_trigger_runs_as_definer(target, unique):
    """A trigger's statements run with its definer's privileges (MariaDB's triggers are SQL SECURITY DEFINER): a
    user who may only insert into t fills the audit table through the trigger, and CURRENT_USER() inside is the
    definer; a definer without TRIGGER on the table makes the firing statement fail (1142)."""
    db, user, owner = unique('tq'), unique('tv'), unique('to')
    root = build(target, db)
    q(root, "CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
    q(root, "GRANT SELECT, INSERT ON %s.t TO '%s'@'%%'" % (db, user))
    q(root, 'CREATE TABLE who (u VARCHAR(100))')
    q(root, 'CREATE TRIGGER t_who AFTER INSERT ON t FOR EACH ROW INSERT INTO who VALUES (CURRENT_USER())')
    c = target.connect(user=user, password='pw', database=db)
    q(c, 'INSERT INTO t (a) VALUES (4)')
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, 'SELECT * FROM log')
    assert e.value.args[0] == 1142
    c.close()
    assert q(root, 'SELECT msg FROM log ORDER BY id') == [('bi0 4',), ('ai 4 40',)]
    assert q(root, 'SELECT u FROM who') == [('root@localhost',)]
    # a definer who lost TRIGGER on the table
    q(root, "CREATE USER '%s'@'localhost'" % owner)
    q(root, "GRANT INSERT ON %s.* TO '%s'@'localhost'" % (db, owner))
    q(root, "CREATE DEFINER='%s'@'localhost' TRIGGER t_owned BEFORE DELETE ON t FOR EACH ROW SET @x = 1" % owner)
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(root, 'DELETE FROM t WHERE a = 4')
    assert e.value.args[0] == 1142 and 'TRIGGER command denied' in e.value.args[1], e.value.args
    assert q(root, 'SELECT COUNT(*) FROM t') == [(1,)]
    q(root, "GRANT TRIGGER ON %s.* TO '%s'@'localhost'" % (db, owner))
    q(root, 'DELETE FROM t WHERE a = 4')
    q(root, "DROP USER '%s'@'%%'" % user)
    q(root, "DROP USER '%s'@'localhost'" % owner)
    q(root, 'DROP DATABASE %s' % db)
    root.close()


def test_create_trigger_waits_for_users_of_the_table(target, unique):
    """CREATE / DROP TRIGGER take the table's metadata lock exclusively: a transaction that read the table keeps
    them waiting (1205 after lock_wait_timeout), and they go through once it ends."""
    db = unique('tw')
    root = build(target, db)
    a = target.connect(database=db)
    q(a, 'BEGIN')
    q(a, 'SELECT * FROM t')
    b = target.connect(database=db)
    q(b, 'SET SESSION lock_wait_timeout = 1')
    for sql in ('CREATE TRIGGER late BEFORE DELETE ON t FOR EACH ROW SET @x = 1', 'DROP TRIGGER t_bi'):
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(b, sql)
        assert e.value.args[0] == 1205, (sql, e.value.args)
    q(a, 'COMMIT')
    q(b, 'CREATE TRIGGER late BEFORE DELETE ON t FOR EACH ROW SET @x = 1')
    q(b, 'DROP TRIGGER t_bi')
    a.close()
    b.close()
    q(root, 'DROP DATABASE %s' % db)
    root.close()


def test_show_triggers_needs_trigger_privilege(strata, mariadb, unique):
    """SHOW TRIGGERS, information_schema.TRIGGERS and SHOW CREATE TRIGGER show a trigger to an account with
    TRIGGER on its table only, on both servers alike."""
    out = []
    for server in (strata, mariadb):
        db, user = unique('tx'), unique('ty')
        root = build(server, db)
        q(root, "CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
        q(root, "GRANT SELECT ON %s.* TO '%s'@'%%'" % (db, user))
        got = []
        for grant in (None, "GRANT TRIGGER ON %s.t TO '%s'@'%%'" % (db, user)):
            if grant:
                q(root, grant)
            c = server.connect(user=user, password='pw', database=db)
            got.append([r[0] for r in q(c, 'SHOW TRIGGERS')])
            got.append(q(c, 'SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() '
                            'ORDER BY TRIGGER_NAME'))
            try:
                got.append(q(c, 'SHOW CREATE TRIGGER t_bi')[0][:3])
            except pymysql.err.OperationalError as e:
                got.append(e.args)
            c.close()
        q(root, "DROP USER '%s'@'%%'" % user)
        q(root, 'DROP DATABASE %s' % db)
        root.close()
        out.append([str(g).replace(db, 'DB').replace(user, 'USER') for g in got])
    assert out[0] == out[1]


@pytest.mark.only('strata')
def test_replica_applies_rows_not_triggers(fresh_mariadb, fresh_strata):
    """A MariaDB primary (ROW format) with triggers, strata following it: CREATE TRIGGER arrives as a QUERY event
    and is kept; the rows a trigger wrote on the primary arrive as row events and are applied as they are, and
    the replica's copy of the trigger does not fire for them (the log table is not doubled, no 1062)."""
    from test_replica import PRIMARY_OPTS, caught_up, follow, replication_user, same_tables
    primary, rep = fresh_mariadb, fresh_strata
    primary.start(PRIMARY_OPTS)
    rep.start(['--server-id=2'])
    p = primary.connect()
    replication_user(p)
    build(primary, 'trp').close()
    r = rep.connect()
    follow(r, primary)
    p = primary.connect(database='trp')
    work(p)
    q(p, 'INSERT INTO t (a) VALUES (9)')
    caught_up(r, p)
    same_tables(p, r, ['trp.t', 'trp.log'])
    assert [x[0] for x in q(r, 'SHOW TRIGGERS FROM trp')] == ['t_bi0', 't_bi', 't_ai', 't_bu', 't_ad']
    assert q(r, 'SELECT COUNT(*) FROM trp.log') == q(p, 'SELECT COUNT(*) FROM log')
    q(p, 'DROP TRIGGER t_ai')
    q(p, 'INSERT INTO t (a) VALUES (10)')
    caught_up(r, p)
    assert [x[0] for x in q(r, 'SHOW TRIGGERS FROM trp')] == ['t_bi0', 't_bi', 't_bu', 't_ad']
    same_tables(p, r, ['trp.t', 'trp.log'])
    # a statement on the replica itself fires its triggers
    q(r, 'SET sql_log_bin = 0')
    q(r, 'INSERT INTO trp.t (a) VALUES (100)')
    assert q(r, 'SELECT b FROM trp.t WHERE a = 100') == [(1000,)]


@pytest.mark.only('strata')
def test_mariadb_replica_of_strata_runs_no_trigger(fresh_strata, fresh_mariadb):
    """A stock MariaDB replica follows strata (COM_BINLOG_DUMP, ROW events): it creates the triggers from the QUERY
    events and applies the trigger's rows as strata wrote them, without its own copies firing again (its
    slave_run_triggers_for_rbr is NO), so the log table has the same rows on both."""
    from test_replication import REPL_PW, REPL_USER, start_replica, wait_for
    primary, rep = fresh_strata, fresh_mariadb
    primary.start([])
    rep.start(['--server-id=2'])
    p = primary.connect()
    q(p, "CREATE USER '%s'@'%%' IDENTIFIED BY '%s'" % (REPL_USER, REPL_PW))
    q(p, "GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'" % REPL_USER)
    build(primary, 'trm').close()
    p = primary.connect(database='trm')
    work(p)
    r = rep.connect()
    start_replica(r, primary)
    wait_for(r, q(p, 'SELECT @@gtid_binlog_pos')[0][0])
    for sql in ('SELECT * FROM trm.t ORDER BY a', 'SELECT * FROM trm.log ORDER BY id'):
        assert q(r, sql) == q(p, sql), sql
    assert len(q(r, 'SHOW TRIGGERS FROM trm')) == 5
    q(p, 'INSERT INTO t (a) VALUES (3)')
    q(p, 'UPDATE t SET b = b + 1')
    wait_for(r, q(p, 'SELECT @@gtid_binlog_pos')[0][0])
    for sql in ('SELECT * FROM trm.t ORDER BY a', 'SELECT * FROM trm.log ORDER BY id'):
        assert q(r, sql) == q(p, sql), sql


def test_concurrent_writers_fire_their_own_triggers(target, unique):
    """Four connections insert, update and delete at once through the same triggers: each row's trigger rows are
    there exactly once, and a DDL on another table's trigger meanwhile changes nothing for them."""
    import threading
    db = unique('tc')
    root = build(target, db)
    errors = []

    def writer(k):
        try:
            c = target.connect(database=db)
            for i in range(50):
                a = k * 1000 + i
                q(c, 'INSERT INTO t (a) VALUES (%d)' % a)
                q(c, 'UPDATE t SET b = b + 1 WHERE a = %d' % a)
                if i % 5 == 0:
                    q(c, 'DELETE FROM t WHERE a = %d' % a)
            c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(1, 5)]
    for th in threads:
        th.start()
    q(root, 'CREATE TABLE other (a INT)')
    for i in range(5):
        q(root, 'CREATE TRIGGER o%d BEFORE INSERT ON other FOR EACH ROW SET @x = 1' % i)
        q(root, 'DROP TRIGGER o%d' % i)
    for th in threads:
        th.join(120)
    assert not errors, errors
    assert q(root, 'SELECT COUNT(*) FROM t') == [(160,)]
    counts = dict(q(root, "SELECT SUBSTRING_INDEX(msg, ' ', 1), COUNT(*) FROM log GROUP BY 1"))
    assert counts == {'bi0': 200, 'ai': 200, 'bu': 200, 'ad': 40}, counts
    q(root, 'DROP DATABASE %s' % db)
    root.close()
