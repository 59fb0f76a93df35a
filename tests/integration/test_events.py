"""Events beyond single statements (tests/sql/events.sql has the statements): the scheduler runs an EVERY event
while event_scheduler is ON and stops when it is OFF; an AT event runs once and is dropped (or kept DISABLED);
events survive a restart and kill -9 and go on running; the body runs as its definer, who needs EVENT; SHOW
PROCESSLIST shows the scheduler and a running event as MariaDB does; a body's error reaches the error log in
MariaDB's words; event_scheduler=DISABLED at start-up cannot be changed; mariadb-dump --events of either server
restores into the other."""
import re
import signal
import subprocess
import time

import pymysql
import pytest


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()] if cur.description else []


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, sql)
    return e.value.args[0]


def wait_for(fn, timeout=10.0, step=0.1):
    end = time.time() + timeout
    while True:
        v = fn()
        if v or time.time() > end:
            return v
        time.sleep(step)


def setup_db(server, db):
    c = server.connect()
    q(c, 'CREATE DATABASE %s COLLATE utf8mb4_general_ci' % db)
    q(c, 'USE %s' % db)
    q(c, 'CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, who VARCHAR(100), tag VARCHAR(20))')
    return c


def count(c, tag):
    return q(c, "SELECT COUNT(*) FROM t WHERE tag = %s", (tag,))[0][0]


def test_every_event_runs_while_on(target, unique):
    db = unique('ev')
    c = setup_db(target, db)
    try:
        assert q(c, 'SELECT @@global.event_scheduler') == [('OFF',)]
        q(c, "CREATE EVENT tick ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t (who, tag) VALUES (CURRENT_USER(), 'tick')")
        time.sleep(1.5)
        assert count(c, 'tick') == 0  # OFF: nothing runs
        q(c, 'SET GLOBAL event_scheduler = ON')
        assert wait_for(lambda: count(c, 'tick') >= 3, 10), count(c, 'tick')
        rows = q(c, 'SHOW PROCESSLIST')
        sched = [r for r in rows if r[1] == 'event_scheduler']
        assert len(sched) == 1 and sched[0][2] == 'localhost' and sched[0][3] is None, rows
        assert sched[0][4] == 'Daemon' and sched[0][6] == 'Waiting for next activation', sched
        assert q(c, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'event_scheduler' "
                    "AND COMMAND = 'Daemon'") == [(1,)]
        last = q(c, "SELECT LAST_EXECUTED IS NOT NULL, STATUS FROM information_schema.EVENTS WHERE EVENT_NAME = 'tick'")
        assert last == [(1, 'ENABLED')]
        q(c, 'SET GLOBAL event_scheduler = OFF')
        time.sleep(0.5)
        n = count(c, 'tick')
        time.sleep(2.2)
        assert count(c, 'tick') == n  # OFF again: it stopped
        assert not [r for r in q(c, 'SHOW PROCESSLIST') if r[1] == 'event_scheduler']
        assert q(c, "SELECT DISTINCT who FROM t WHERE tag = 'tick'") == [('root@localhost',)]
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        c.close()


def test_at_event_runs_once(target, unique):
    db = unique('ea')
    c = setup_db(target, db)
    try:
        q(c, 'SET GLOBAL event_scheduler = ON')
        q(c, "CREATE EVENT once ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 SECOND "
             "DO INSERT INTO t (who, tag) VALUES (CURRENT_USER(), 'once')")
        q(c, "CREATE EVENT kept ON SCHEDULE AT CURRENT_TIMESTAMP ON COMPLETION PRESERVE "
             "DO BEGIN INSERT INTO t (tag) VALUES ('kept'); INSERT INTO t (tag) VALUES ('kept'); END")
        assert wait_for(lambda: count(c, 'once') == 1 and count(c, 'kept') == 2, 10)
        assert wait_for(lambda: q(c, "SELECT EVENT_NAME, STATUS, LAST_EXECUTED IS NOT NULL FROM "
                                     "information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()") ==
                        [('kept', 'DISABLED', 1)], 5), q(c, 'SHOW EVENTS')
        time.sleep(1.5)
        assert count(c, 'once') == 1 and count(c, 'kept') == 2
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        c.close()


def test_every_event_ends(target, unique):
    """An EVERY event past ENDS stops: DISABLED with PRESERVE, dropped without."""
    db = unique('ee')
    c = setup_db(target, db)
    try:
        q(c, 'SET GLOBAL event_scheduler = ON')
        q(c, "CREATE EVENT e1 ON SCHEDULE EVERY 1 SECOND ENDS CURRENT_TIMESTAMP + INTERVAL 2 SECOND "
             "ON COMPLETION PRESERVE DO INSERT INTO t (tag) VALUES ('e1')")
        q(c, "CREATE EVENT e2 ON SCHEDULE EVERY 1 SECOND ENDS CURRENT_TIMESTAMP + INTERVAL 2 SECOND "
             "DO INSERT INTO t (tag) VALUES ('e2')")
        assert wait_for(lambda: q(c, "SELECT EVENT_NAME, STATUS FROM information_schema.EVENTS "
                                     "WHERE EVENT_SCHEMA = DATABASE()") == [('e1', 'DISABLED')], 10), \
            q(c, 'SHOW EVENTS')
        n1, n2 = count(c, 'e1'), count(c, 'e2')
        assert 1 <= n1 <= 4 and 1 <= n2 <= 4, (n1, n2)
        time.sleep(1.5)
        assert (count(c, 'e1'), count(c, 'e2')) == (n1, n2)
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        c.close()


@pytest.mark.parametrize('how', [signal.SIGTERM, signal.SIGKILL])
def test_events_survive_restart(fresh_strata, unique, how):
    s = fresh_strata
    s.start(['--event-scheduler=ON'])
    db = unique('er')
    c = setup_db(s, db)
    q(c, "CREATE EVENT tick ON SCHEDULE EVERY 1 SECOND STARTS '2020-01-01 00:00:00' COMMENT 'c' "
         "DO INSERT INTO t (tag) VALUES ('tick')")
    q(c, "CREATE EVENT later ON SCHEDULE AT '2035-01-01 00:00:00' DISABLE DO INSERT INTO t (tag) VALUES ('later')")
    assert wait_for(lambda: count(c, 'tick') >= 2, 10)
    before = [q(c, 'SHOW CREATE EVENT %s' % e)[0] for e in ('tick', 'later')]
    c.close()
    if how == signal.SIGTERM:
        s.stop()
    else:
        s.proc.send_signal(how)
        s.proc.wait(timeout=10)
        s.stderr_f.close()
    s.start(['--event-scheduler=ON'])
    c = s.connect(database=db)
    assert [q(c, 'SHOW CREATE EVENT %s' % e)[0] for e in ('tick', 'later')] == before
    n = count(c, 'tick')
    assert wait_for(lambda: count(c, 'tick') >= n + 2, 10)  # it runs again after the restart
    assert q(c, 'SELECT @@event_scheduler') == [('ON',)]
    q(c, 'DROP DATABASE %s' % db)
    assert q(c, "SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = %s", (db,)) == [(0,)]
    c.close()


def test_event_privilege(target, unique):
    """CREATE / ALTER / DROP EVENT, SHOW EVENTS and SHOW CREATE EVENT need EVENT on the schema (1044); the body
    runs as its definer (CURRENT_USER()), who needs the privileges its statements use."""
    db = unique('ep')
    user = unique('eu')
    c = setup_db(target, db)
    try:
        q(c, "CREATE EVENT e0 ON SCHEDULE AT '2035-01-01' DO SELECT 1")
        q(c, "CREATE USER %s@localhost" % user)
        q(c, "CREATE USER %s@'127.0.0.1'" % user)
        for h in ('localhost', '127.0.0.1'):
            q(c, "GRANT SELECT, INSERT ON %s.* TO %s@'%s'" % (db, user, h))
        u = target.connect(user=user, password='', database=db)
        for sql in ("CREATE EVENT e1 ON SCHEDULE AT '2035-01-01' DO SELECT 1", 'ALTER EVENT e0 DISABLE',
                    'DROP EVENT e0', 'SHOW EVENTS', 'SHOW CREATE EVENT e0'):
            assert err(u, sql) == 1044, sql
        assert q(u, 'SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()') == [(0,)]
        u.close()
        for h in ('localhost', '127.0.0.1'):
            q(c, "GRANT EVENT ON %s.* TO %s@'%s'" % (db, user, h))
        u = target.connect(user=user, password='', database=db)
        q(u, "CREATE EVENT e1 ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 SECOND "
             "DO INSERT INTO t (who, tag) VALUES (CURRENT_USER(), 'e1')")
        assert [r[1] for r in q(u, 'SHOW EVENTS')] == ['e0', 'e1']
        q(u, 'ALTER EVENT e0 DISABLE')
        q(u, 'DROP EVENT e0')
        definer = q(u, 'SELECT CURRENT_USER()')[0][0]
        q(c, 'SET GLOBAL event_scheduler = ON')
        assert wait_for(lambda: count(c, 'e1') == 1, 10)
        assert q(c, "SELECT who FROM t WHERE tag = 'e1'") == [(definer,)]
        u.close()
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        for h in ('localhost', '127.0.0.1'):
            q(c, "DROP USER IF EXISTS %s@'%s'" % (user, h))
        c.close()


def test_event_runs_under_its_sql_mode(target, unique):
    """The body runs under the sql_mode the event was created with, not the scheduler's or the session's now: a
    too-long value is cut with a warning under '' and refused (nothing inserted) under STRICT_ALL_TABLES."""
    db = unique('em')
    c = setup_db(target, db)
    try:
        q(c, "SET SESSION sql_mode = ''")
        q(c, "CREATE EVENT loose ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 SECOND "
             "DO INSERT INTO t (who, tag) VALUES (REPEAT('x', 200), 'loose')")
        q(c, "SET SESSION sql_mode = 'STRICT_ALL_TABLES'")
        q(c, "CREATE EVENT strict ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 SECOND "
             "DO INSERT INTO t (who, tag) VALUES (REPEAT('x', 200), 'strict')")
        q(c, 'SET SESSION sql_mode = DEFAULT')
        q(c, 'SET GLOBAL event_scheduler = ON')
        assert wait_for(lambda: count(c, 'loose') == 1, 10)
        assert wait_for(lambda: q(c, 'SELECT COUNT(*) FROM information_schema.EVENTS '
                                     'WHERE EVENT_SCHEMA = DATABASE()') == [(0,)], 10)
        time.sleep(0.5)
        assert q(c, "SELECT tag, LENGTH(who) FROM t ORDER BY tag") == [('loose', 100)]
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        c.close()


def test_running_event_in_processlist(target, unique):
    db = unique('es')
    c = setup_db(target, db)
    try:
        q(c, 'SET GLOBAL event_scheduler = ON')
        q(c, 'CREATE EVENT sl ON SCHEDULE AT CURRENT_TIMESTAMP DO SELECT SLEEP(3)')  # (its rows go nowhere)

        def running():
            return [r for r in q(c, 'SHOW PROCESSLIST') if r[7] == 'SELECT SLEEP(3)']

        # the row shows the statement (State 'starting') a moment before the sleep begins ('User sleep')
        rows = wait_for(lambda: [r for r in running() if r[6] == 'User sleep'], 5)
        assert rows, q(c, 'SHOW PROCESSLIST')
        r = rows[0]
        assert (r[1], r[2], r[3], r[4], r[6]) == ('root', 'localhost', db, 'Connect', 'User sleep'), r
        q(c, 'KILL QUERY %d' % r[0])
        assert wait_for(lambda: not running(), 5)
        with open(target.log, errors='replace') as f:
            assert "[%s.sl] can't return a result set" not in f.read()
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        c.close()


def test_body_error_logged(target, unique):
    db = unique('el')
    c = setup_db(target, db)
    try:
        q(c, 'SET GLOBAL event_scheduler = ON')
        q(c, 'CREATE EVENT bad ON SCHEDULE AT CURRENT_TIMESTAMP DO INSERT INTO nope VALUES (1)')
        want = "Event Scheduler: [root@localhost][%s.bad] Table '%s.nope' doesn't exist" % (db, db)

        def logged():
            with open(target.log, errors='replace') as f:
                return want in f.read()
        assert wait_for(logged, 10), want
    finally:
        q(c, 'SET GLOBAL event_scheduler = OFF')
        q(c, 'DROP DATABASE %s' % db)
        c.close()


@pytest.mark.fresh_opts('--event-scheduler=DISABLED')
def test_scheduler_disabled_at_startup(fresh_target):
    c = fresh_target.connect()
    assert q(c, 'SELECT @@event_scheduler') == [('DISABLED',)]
    assert err(c, 'SET GLOBAL event_scheduler = ON') == 1290
    assert err(c, 'SET GLOBAL event_scheduler = OFF') == 1290
    c.close()


def test_set_disabled_refused(target):
    c = target.connect()
    assert err(c, 'SET GLOBAL event_scheduler = DISABLED') == 1231
    q(c, 'SET GLOBAL event_scheduler = 1')
    assert q(c, 'SELECT @@event_scheduler') == [('ON',)]
    q(c, 'SET GLOBAL event_scheduler = ORIGINAL')
    assert q(c, 'SELECT @@event_scheduler') == [('OFF',)]
    c.close()


def dump(server, db):
    r = subprocess.run(['mariadb-dump', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                        '--protocol=TCP', '--events', '--databases', db], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors='replace')
    return r.stdout


def restore(server, text):
    r = subprocess.run(['mariadb', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                        '--protocol=TCP'], input=text, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors='replace')


def observe(server, db):
    c = server.connect(database=db)
    out = ([r[:11] + r[12:] for r in q(c, 'SHOW EVENTS')],  # (Originator is each server's server_id)
           [q(c, 'SHOW CREATE EVENT %s' % r[1])[0] for r in q(c, 'SHOW EVENTS')])
    c.close()
    return out


def test_dump_round_trip(fresh_strata, fresh_mariadb, unique):
    """mariadb-dump --events of either server restores into the other with the same definitions."""
    fresh_strata.start()
    fresh_mariadb.start()
    db = unique('ed')
    for src, dst in ((fresh_strata, fresh_mariadb), (fresh_mariadb, fresh_strata)):
        c = setup_db(src, db)
        q(c, "CREATE EVENT a1 ON SCHEDULE EVERY 2 HOUR STARTS '2030-01-01 00:00:00' ENDS '2031-01-01 00:00:00' "
             "ON COMPLETION PRESERVE COMMENT 'it''s' DO INSERT INTO t (tag) VALUES ('a1')")
        q(c, "CREATE EVENT a2 ON SCHEDULE AT '2030-05-06 07:08:09' DISABLE DO BEGIN\n"
             "  INSERT INTO t (tag) VALUES ('a2');\n  DELETE FROM t WHERE tag = 'x';\nEND")
        q(c, "CREATE EVENT a3 ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS '2030-01-01 00:00:00' "
             "DISABLE ON SLAVE DO SELECT 1")
        c.close()
        want = observe(src, db)
        assert len(want[0]) == 3
        text = dump(src, db)
        assert b'EVENT `a1`' in text and b'EVENT `a3`' in text
        restore(dst, text)
        assert observe(dst, db) == want, (src.kind, dst.kind)
        for x in (src, dst):
            q(x.connect(), 'DROP DATABASE %s' % db)


def replica_events(r, db):
    return q(r, "SELECT EVENT_NAME, STATUS, ORIGINATOR FROM information_schema.EVENTS WHERE EVENT_SCHEMA = %s "
                "ORDER BY EVENT_NAME", (db,))


@pytest.mark.only('strata')
@pytest.mark.parametrize('primary_kind', ['mariadb', 'strata'])
def test_replica_keeps_events_disabled(primary_kind, unique):
    """A replica applying CREATE EVENT keeps the event SLAVESIDE_DISABLED (ENABLE or DISABLE alike) with the
    source as ORIGINATOR (MariaDB's rule), and the rows the source's event writes reach it as any statement's do.  Both directions: a MariaDB
    source with a strata replica, and a strata source followed by a MariaDB replica (strata's logged CREATE
    EVENT text is the one MariaDB applies)."""
    from test_replica import PRIMARY_OPTS, caught_up, follow, replication_user, server_maker
    make, stop_all = server_maker()
    try:
        primary = make(primary_kind, PRIMARY_OPTS if primary_kind == 'mariadb' else ['--server-id=1'])
        replica = make('strata' if primary_kind == 'mariadb' else 'mariadb', ['--server-id=2'])
        p = primary.connect()
        replication_user(p)
        db = unique('rv')
        r = replica.connect()
        follow(r, primary)
        c = setup_db(primary, db)
        q(c, "CREATE EVENT tick ON SCHEDULE EVERY 1 SECOND STARTS '2020-01-01 00:00:00' "
             "DO INSERT INTO t (tag) VALUES ('tick')")
        q(c, "CREATE EVENT off ON SCHEDULE AT '2035-01-01 00:00:00' DISABLE DO SELECT 1")
        q(c, 'SET GLOBAL event_scheduler = ON')
        assert wait_for(lambda: count(c, 'tick') >= 2, 10)
        q(c, 'SET GLOBAL event_scheduler = OFF')
        time.sleep(1.2)
        caught_up(r, p)
        assert replica_events(r, db) == [('off', 'SLAVESIDE_DISABLED', 1), ('tick', 'SLAVESIDE_DISABLED', 1)]
        assert q(r, 'SELECT COUNT(*) FROM %s.t' % db) == q(c, 'SELECT COUNT(*) FROM t')
        q(c, 'ALTER EVENT tick COMMENT %s', ('x',))
        q(c, 'DROP EVENT off')
        caught_up(r, p)
        assert replica_events(r, db) == [('tick', 'SLAVESIDE_DISABLED', 1)]
        # ALTER made the source's account the definer; the replica's copy keeps it (the logged DEFINER)
        assert q(r, "SELECT DEFINER, EVENT_COMMENT FROM information_schema.EVENTS WHERE EVENT_SCHEMA = %s",
                 (db,)) == [('root@localhost', 'x')]
        q(c, 'DROP DATABASE %s' % db)
        caught_up(r, p)
        assert replica_events(r, db) == []
    finally:
        stop_all()


def test_shutdown_with_event_running(fresh_strata, unique):
    """SIGTERM while a body sleeps: the run is killed with the other sessions and the server stops cleanly."""
    s = fresh_strata
    s.start(['--event-scheduler=ON'])
    db = unique('ek')
    c = setup_db(s, db)
    q(c, 'CREATE EVENT slow ON SCHEDULE EVERY 1 HOUR DO DO SLEEP(60)')
    assert wait_for(lambda: [r for r in q(c, 'SHOW PROCESSLIST') if r[7] == 'DO SLEEP(60)'], 10)
    c.close()
    t0 = time.time()
    assert s.stop() == 0
    assert time.time() - t0 < 8


def test_ddl_while_scheduler_runs(fresh_strata, unique):
    """Events created, altered and dropped while the scheduler runs them: no lost definition, no crash."""
    s = fresh_strata
    s.start(['--event-scheduler=ON'])
    db = unique('ec')
    c = setup_db(s, db)
    for i in range(12):
        q(c, "CREATE EVENT e%d ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t (tag) VALUES ('e%d')" % (i, i))
    end = time.time() + 4
    i = 0
    while time.time() < end:
        k = i % 12
        q(c, "ALTER EVENT e%d COMMENT 'n%d'" % (k, i))
        if i % 5 == 0:
            q(c, 'DROP EVENT e%d' % k)
            q(c, "CREATE EVENT e%d ON SCHEDULE EVERY 1 SECOND COMMENT 'n%d' DO INSERT INTO t (tag) VALUES ('e%d')"
              % (k, i, k))
        i += 1
        time.sleep(0.02)
    rows = q(c, "SELECT EVENT_NAME, EVENT_COMMENT, STATUS FROM information_schema.EVENTS WHERE EVENT_SCHEMA = "
                "DATABASE() ORDER BY EVENT_NAME")
    assert len(rows) == 12 and all(r[2] == 'ENABLED' for r in rows), rows
    last = {}
    for j in range(i):
        last[j % 12] = 'n%d' % j
    assert {r[0]: r[1] for r in rows} == {'e%d' % k: v for k, v in last.items()}
    assert q(c, 'SELECT COUNT(DISTINCT tag) FROM t') == [(12,)]
    q(c, 'DROP DATABASE %s' % db)
    c.close()
