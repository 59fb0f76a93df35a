"""Stored procedures and functions beyond single statements: they survive a restart and kill -9, CALL's result sets
reach pymysql and the mariadb client (the MULTI_RESULTS protocol; a client without CLIENT_MULTI_RESULTS gets
1312), OUT parameters come back through user variables, CREATE reaches the binary log with its DEFINER, and the
privileges MariaDB asks for (CREATE ROUTINE to create, ALTER ROUTINE to drop, EXECUTE to call).
The per-statement behaviour (errors, handlers, cursors, SIGNAL) is tests/sql/routines.sql."""
import signal
import subprocess

import pymysql
import pytest

import rawclient
from rawclient import RawClient, ServerError


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()] if cur.description else []


SCHEMA = [
    'CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))',
    "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
    '''CREATE PROCEDURE p(IN lim INT, OUT n INT)
BEGIN
  DECLARE s INT DEFAULT 0;
  DECLARE v INT;
  DECLARE done INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT a FROM t WHERE a <= lim ORDER BY a;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  SELECT a, b FROM t WHERE a <= lim ORDER BY a;
  OPEN c;
  l: LOOP
    FETCH c INTO v;
    IF done THEN LEAVE l; END IF;
    SET s = s + v;
  END LOOP;
  CLOSE c;
  SELECT s AS total;
  SET n = s;
END''',
    'CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x * 10',
]


def build(server, db):
    c = server.connect()
    q(c, 'CREATE DATABASE %s' % db)
    q(c, 'USE %s' % db)
    for s in SCHEMA:
        q(c, s)
    return c


def call_all(c, sql):
    """Every result set of one CALL (pymysql: nextset), then the OUT value."""
    cur = c.cursor()
    cur.execute(sql)
    sets = []
    while True:
        if cur.description:
            sets.append([tuple(r) for r in cur.fetchall()])
        if not cur.nextset():
            break
    return sets


def observe(server, db):
    c = server.connect(database=db)
    out = (call_all(c, 'CALL p(2, @n)'), q(c, 'SELECT @n'), q(c, 'SELECT f(4), f(a) FROM t WHERE a = 3'),
           q(c, 'SHOW CREATE PROCEDURE p')[0][2], q(c, 'SHOW CREATE FUNCTION f')[0][2])
    c.close()
    return out


@pytest.mark.parametrize('how', [signal.SIGTERM, signal.SIGKILL])
def test_routines_survive_restart(fresh_strata, unique, how):
    s = fresh_strata
    s.start()
    db = unique('rt')
    c = build(s, db)
    before = observe(s, db)
    assert before[0] == [[(1, 'x'), (2, 'y')], [(3,)]]
    assert before[1] == [(3,)] and before[2] == [(40, 30)]
    q(c, 'CREATE PROCEDURE gone() SELECT 1')
    q(c, 'DROP PROCEDURE gone')
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
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, 'CALL gone()')
    assert e.value.args[0] == 1305
    q(c, 'DROP DATABASE %s' % db)  # its routines go with it
    q(c, 'CREATE DATABASE %s' % db)
    assert q(c, "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '%s'" % db) == [(0,)]
    c.close()


def test_call_results_same_as_mariadb(strata, mariadb, unique):
    db = unique('rc')
    out = []
    for server in (strata, mariadb):
        build(server, db).close()
        got = observe(server, db)
        out.append(got[:3])
        server.query('DROP DATABASE %s' % db)
    assert out[0] == out[1]


def test_mariadb_client_delimiter(target, unique):
    """The mysql client sends the whole CREATE (BEGIN ... END with its ';') as one statement."""
    db = unique('rm')
    script = '''CREATE DATABASE %s;
USE %s;
DELIMITER //
CREATE PROCEDURE squares(n INT)
BEGIN
  DECLARE i INT DEFAULT 1;
  WHILE i <= n DO
    SELECT i, i * i AS sq;
    SET i = i + 1;
  END WHILE;
END//
DELIMITER ;
CALL squares(3);
SELECT 'done';
DROP DATABASE %s;
''' % (db, db, db)
    r = target.cli('--batch', input=script)
    assert r.stdout.split('\n') == ['i\tsq', '1\t1', 'i\tsq', '2\t4', 'i\tsq', '3\t9', 'done', 'done', ''], r.stdout


def test_call_without_multi_results(target, unique):
    db = unique('rn')
    build(target, db).close()
    caps = rawclient.DEFAULT_CAPS & ~(rawclient.CLIENT_MULTI_RESULTS | rawclient.CLIENT_MULTI_STATEMENTS |
                                      rawclient.CLIENT_PS_MULTI_RESULTS)
    c = RawClient.connect(port=target.port, user=target.user, password=target.password, db=db, caps=caps)
    try:
        with pytest.raises(ServerError) as e:
            c.query('CALL p(1, @n)')
        assert (e.value.code, e.value.sqlstate) == (1312, '0A000')
        assert e.value.message == "PROCEDURE %s.p can't return a result set in the given context" % db
        assert c.query('SELECT f(2)')[1] == [(b'20',)]  # a function needs no result sets
    finally:
        c.close()
        target.query('DROP DATABASE %s' % db)


def test_create_routine_is_logged(fresh_strata, unique):
    fresh_strata.start()
    db = unique('rb')
    build(fresh_strata, db).close()
    c = fresh_strata.connect()
    events = q(c, 'SHOW BINLOG EVENTS')
    texts = [e[5] for e in events if e[2] == 'Query']
    # as MariaDB logs it: SHOW CREATE's text, the definer spelled out (a replica's SQL thread has no user)
    assert any('CREATE DEFINER=`root`@`localhost` PROCEDURE `p`(IN lim INT, OUT n INT)\nBEGIN' in t for t in texts), texts
    assert any('CREATE DEFINER=`root`@`localhost` FUNCTION `f`(x INT) RETURNS int(11)\n    DETERMINISTIC\nRETURN x * 10'
               in t for t in texts), texts
    # CALL itself is not logged: the rows its statements change are
    assert not any('CALL' in t for t in texts)
    c.close()


def test_routine_privileges(target, unique):
    db, user = unique('rp'), unique('ru')
    root = build(target, db)
    q(root, "CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
    q(root, "GRANT SELECT ON %s.* TO '%s'@'%%'" % (db, user))
    c = target.connect(user=user, password='pw', database=db)
    for sql, code in (('CALL p(1, @n)', 1370), ('SELECT f(1)', 1370),
                      ('CREATE PROCEDURE mine() SELECT 1', 1044), ('DROP PROCEDURE p', 1370)):
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(c, sql)
        assert e.value.args[0] == code, (sql, e.value.args)
    c.close()
    q(root, "GRANT EXECUTE ON %s.* TO '%s'@'%%'" % (db, user))
    c = target.connect(user=user, password='pw', database=db)
    assert call_all(c, 'CALL p(3, @n)')[1] == [(6,)]
    assert q(c, 'SELECT f(2)') == [(20,)]
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, 'DROP FUNCTION f')
    assert e.value.args[0] == 1370
    c.close()
    q(root, "GRANT ALTER ROUTINE ON %s.* TO '%s'@'%%'" % (db, user))
    c = target.connect(user=user, password='pw', database=db)
    q(c, 'DROP FUNCTION f')
    c.close()
    q(root, "DROP USER '%s'@'%%'" % user)
    q(root, 'DROP DATABASE %s' % db)


def test_prepared_call(target, unique):
    """CALL through COM_STMT_PREPARE / EXECUTE: the result sets in the binary protocol, then the final OK."""
    db = unique('rq')
    build(target, db).close()
    c = RawClient.connect(port=target.port, user=target.user, password=target.password, db=db)
    try:
        st = c.prepare('CALL p(?, @n)')
        c.execute(st, (2,))
        got = [([(col.name, col.type) for col in r.columns], r.rows) if r.columns is not None else 'OK'
               for r in st.results]
        assert got == [([('a', rawclient.T_LONG), ('b', rawclient.T_VAR_STRING)], [(1, b'x'), (2, b'y')]),
                       ([('total', rawclient.T_LONG)], [(3,)]), 'OK'], got
        assert c.query('SELECT @n')[1] == [(b'3',)]
        c.execute(st, (3,))  # the same statement again: the routine is read and bound anew
        assert st.results[1].rows == [(6,)]
    finally:
        c.close()
        target.query('DROP DATABASE %s' % db)


def dump(server, db):
    r = subprocess.run(['mariadb-dump', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                        '--protocol=TCP', '--routines', '--databases', db], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors='replace')
    return r.stdout


def restore(server, text):
    r = subprocess.run(['mariadb', '--no-defaults', '-uroot', '-h', server.host, '-P', str(server.port),
                        '--protocol=TCP'], input=text, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors='replace')


OLD_DUMP = b"""CREATE DATABASE %s;
USE %s;
DELIMITER ;;
/*!50003 CREATE*/ /*!50020 DEFINER=`root`@`localhost`*/ /*!50003 PROCEDURE `old`(IN x INT)
BEGIN
  DECLARE y INT DEFAULT 2;
  SELECT x * y AS r;
END */;;
DELIMITER ;
"""


def test_dump_round_trip(fresh_strata, fresh_mariadb, unique):
    """mariadb-dump --routines of either server restores into the other, the routines behaving the same; the
    executable-comment form older dumps write (MySQL 5.x, MariaDB before 10.x) restores too."""
    fresh_strata.start()
    fresh_mariadb.start()
    db = unique('rd')
    for src, dst in ((fresh_strata, fresh_mariadb), (fresh_mariadb, fresh_strata)):
        build(src, db).close()
        want = observe(src, db)
        text = dump(src, db)
        assert b'PROCEDURE `p`' in text and b'FUNCTION `f`' in text
        restore(dst, text)
        assert observe(dst, db) == want, (src.kind, dst.kind)
        for x in (src, dst):
            q(x.connect(), 'DROP DATABASE %s' % db)
    restore(fresh_strata, OLD_DUMP % (db.encode(), db.encode()))
    c = fresh_strata.connect(database=db)
    assert call_all(c, 'CALL old(4)') == [[(8,)]]
    q(c, 'DROP DATABASE %s' % db)
    c.close()


def test_function_writes_inside_a_table_statement(fresh_strata, unique):
    """A function that inserts, called by a SELECT on a table: its rows are the statement's, logged as ROW events
    in the statement's transaction (a replica applies them; no CALL or SELECT text), durable once the SELECT
    returns (kill -9 then), and gone with the statement when the function fails at a later row."""
    s = fresh_strata
    s.start()
    db = unique('fw')
    c = s.connect()
    q(c, 'CREATE DATABASE %s' % db)
    q(c, 'USE %s' % db)
    q(c, 'CREATE TABLE t (a INT PRIMARY KEY)')
    q(c, 'INSERT INTO t VALUES (1), (2), (3)')
    q(c, 'CREATE TABLE logt (id INT PRIMARY KEY, v INT)')
    q(c, '''CREATE FUNCTION logit(v INT) RETURNS INT MODIFIES SQL DATA
BEGIN
  INSERT INTO logt VALUES (v, v * 10);
  RETURN v * 2;
END''')
    q(c, 'FLUSH BINARY LOGS')
    assert q(c, 'SELECT a, logit(a) FROM t ORDER BY a') == [(1, 2), (2, 4), (3, 6)]
    events = q(c, 'SHOW BINLOG EVENTS IN %s', (q(c, 'SHOW MASTER STATUS')[0][0],))
    kinds = [e[2] for e in events]
    assert kinds.count('Write_rows_v1') == 1 and kinds.count('Xid') == 1, events
    assert not any('logit' in str(e[5]) for e in events), events
    # a failure at the third row (its key is taken) undoes the function's first two rows with the statement
    q(c, 'DELETE FROM logt WHERE id < 3')
    with pytest.raises(pymysql.err.IntegrityError) as e:
        q(c, 'SELECT a, logit(a) FROM t ORDER BY a')
    assert e.value.args[0] == 1062
    assert q(c, 'SELECT id FROM logt ORDER BY id') == [(3,)]
    # 1442: the table the calling statement reads
    q(c, 'CREATE FUNCTION bad() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM t; RETURN 0; END')
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, 'SELECT bad() FROM t')
    assert e.value.args[0] == 1442
    q(c, 'DELETE FROM logt')
    q(c, 'SELECT logit(a) FROM t WHERE a >= 2')
    c.close()
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait(timeout=10)
    s.stderr_f.close()
    s.start()
    c = s.connect(database=db)
    assert q(c, 'SELECT * FROM logt ORDER BY id') == [(2, 20), (3, 30)]
    assert q(c, 'SELECT COUNT(*) FROM t') == [(3,)]
    q(c, 'DROP DATABASE %s' % db)
    c.close()
