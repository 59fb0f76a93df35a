"""The diagnostics area: warnings and notes per statement, SHOW WARNINGS / SHOW ERRORS / SHOW COUNT(*),
@@warning_count, @@error_count, max_error_count, sql_notes, and the warning count carried in OK and EOF
packets (with and without CLIENT_DEPRECATE_EOF).

Reference rule worth knowing (MariaDB 10.11, MySQL's documented behaviour): the list of conditions is
reset by a statement that uses a table (SHOW VARIABLES / SHOW STATUS read information_schema tables) or that
raises conditions of its own; SELECT 1, SET @x, DO 1 leave the previous statement's list in place.
"""
import pytest

import rawclient
from rawclient import RawClient, ServerError

DIV0 = (b'Warning', b'1365', b'Division by 0')


@pytest.fixture(params=['eof', 'deprecate_eof'])
def c(target, request):
    caps = rawclient.DEFAULT_CAPS
    if request.param == 'deprecate_eof':
        caps |= rawclient.CLIENT_DEPRECATE_EOF
    cl = RawClient.connect(port=target.port, caps=caps)
    if request.param == 'deprecate_eof':
        assert cl.caps & rawclient.CLIENT_DEPRECATE_EOF
    yield cl
    cl.close()


def rows(c, sql):
    return c.query(sql)[1]


def test_warning_in_result_set_terminator(c):
    assert rows(c, 'SELECT 1/0') == [(None,)]
    assert c.last.warnings == 1
    assert rows(c, 'SELECT 2/0, 3/0') == [(None, None)]
    assert c.last.warnings == 2
    assert rows(c, 'SHOW WARNINGS') == [DIV0, DIV0]
    assert c.query('SHOW WARNINGS')[0] == ['Level', 'Code', 'Message']


def test_note_in_ok_packet(c):
    c.query("DROP USER IF EXISTS 'nobody_zz'@'localhost'")
    assert c.last.ok is not None and c.last.warnings == 1
    assert rows(c, 'SHOW WARNINGS') == [(b'Note', b'1974', b"Can't drop user 'nobody_zz'@'localhost'; it doesn't exist")]
    assert rows(c, 'SELECT @@warning_count, @@error_count') == [(b'1', b'0')]


def test_sql_notes_off(c):
    c.query('SET sql_notes = 0')
    c.query("DROP USER IF EXISTS 'nobody_zz'@'localhost'")
    assert c.last.warnings == 0
    c.query('SET sql_notes = 1')


def test_show_warnings_does_not_clear(c):
    c.query('SELECT 1/0')
    assert rows(c, 'SHOW WARNINGS') == [DIV0]
    assert rows(c, 'SHOW WARNINGS') == [DIV0]
    assert rows(c, 'SHOW COUNT(*) WARNINGS') == [(b'1',)]
    assert c.query('SHOW COUNT(*) WARNINGS')[0] == ['@@session.warning_count']
    assert rows(c, 'SELECT @@warning_count') == [(b'1',)]


def test_new_warnings_replace_old(c):
    c.query('SELECT 1/0')
    c.query("SELECT CAST('x' AS SIGNED)")
    assert rows(c, 'SHOW WARNINGS') == [(b'Warning', b'1292', b"Truncated incorrect INTEGER value: 'x'")]


def test_table_statement_clears(c):
    c.query('SELECT 1/0')
    c.query("SHOW VARIABLES LIKE 'port'")
    assert rows(c, 'SHOW WARNINGS') == []
    assert rows(c, 'SHOW COUNT(*) WARNINGS') == [(b'0',)]


def test_tableless_statement_keeps_previous_warnings(c):
    """MariaDB (the reference) keeps the list across statements that use no table and raise nothing."""
    c.query('SELECT 1/0')
    c.query('SELECT 1')
    assert c.last.warnings == 0  # the statement itself had none...
    assert rows(c, 'SHOW WARNINGS') == [DIV0]  # ...but the list is the previous one
    c.query('SET @x = 1')
    assert rows(c, 'SHOW WARNINGS') == [DIV0]


def test_errors(c):
    with pytest.raises(ServerError) as ei:
        c.query('SELECT @@no_such_var_zz')
    assert ei.value.code == 1193
    err = (b'Error', b'1193', b"Unknown system variable 'no_such_var_zz'")
    assert rows(c, 'SHOW ERRORS') == [err]
    assert rows(c, 'SHOW WARNINGS') == [err]  # SHOW WARNINGS lists errors too
    assert rows(c, 'SHOW COUNT(*) ERRORS') == [(b'1',)]
    assert c.query('SHOW COUNT(*) ERRORS')[0] == ['@@session.error_count']
    assert rows(c, 'SELECT @@error_count, @@warning_count') == [(b'1', b'1')]
    # a statement with only warnings: SHOW ERRORS is empty
    c.query('SELECT 1/0')
    assert rows(c, 'SHOW ERRORS') == []
    assert rows(c, 'SELECT @@error_count, @@warning_count') == [(b'0', b'1')]


def test_error_replaces_warnings(c):
    c.query('SELECT 1/0')
    with pytest.raises(ServerError):
        c.query('SELECT @@no_such_var_zz')
    assert rows(c, 'SHOW WARNINGS') == [(b'Error', b'1193', b"Unknown system variable 'no_such_var_zz'")]


def test_max_error_count(c):
    assert rows(c, 'SELECT @@max_error_count') == [(b'64',)]
    c.query('SET max_error_count = 2')
    c.query('SELECT 1/0, 2/0, 3/0')
    assert c.last.warnings == 3
    assert rows(c, 'SHOW WARNINGS') == [DIV0, DIV0]
    assert rows(c, 'SELECT @@warning_count') == [(b'3',)]
    assert rows(c, 'SHOW COUNT(*) WARNINGS') == [(b'3',)]
    c.query('SET max_error_count = 0')
    c.query('SELECT 1/0')
    assert c.last.warnings == 1
    assert rows(c, 'SHOW WARNINGS') == []
    assert rows(c, 'SELECT @@warning_count') == [(b'1',)]


def test_show_warnings_limit(c):
    c.query("SELECT 1/0, CAST('x' AS SIGNED), 2/0")
    assert c.last.warnings == 3
    assert rows(c, 'SHOW WARNINGS LIMIT 1') == [DIV0]
    assert rows(c, 'SHOW WARNINGS LIMIT 1, 1') == [(b'Warning', b'1292', b"Truncated incorrect INTEGER value: 'x'")]
    assert rows(c, 'SHOW WARNINGS LIMIT 2, 5') == [DIV0]


def test_warnings_in_multi_statement(c):
    rs = c.query_results('SELECT 1/0; SELECT 2')
    assert [r.warnings for r in rs] == [1, 0]


def test_warnings_pymysql_and_mysqldb(target):
    p = target.connect()
    with p.cursor() as cur:
        cur.execute('SELECT 1/0')
        assert cur._result.warning_count == 1
        cur.execute('SHOW WARNINGS')
        assert cur.fetchall() == (('Warning', 1365, 'Division by 0'),)
    p.close()
    import MySQLdb
    m = MySQLdb.connect(host=target.host, port=target.port, user='root')
    cur = m.cursor()
    cur.execute('SELECT 1/0, 2/0')
    assert m.warning_count() == 2
    cur.execute('SHOW WARNINGS')
    assert cur.fetchall() == (('Warning', 1365, 'Division by 0'),) * 2
    m.close()


def test_warnings_cli(target):
    r = target.cli('--skip-ssl', '--show-warnings', '-e', "SELECT 1/0")
    assert 'Warning (Code 1365): Division by 0' in r.stdout + r.stderr
