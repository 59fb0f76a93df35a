"""INSERT / REPLACE / DELETE ... RETURNING through the binary protocol (COM_STMT_PREPARE checks the items but,
as MariaDB 10.11, describes no columns; COM_STMT_EXECUTE sends the column definitions and binary rows), on strata
and on MariaDB alike; the text protocol's answers are in tests/sql/returning.sql."""
import datetime
import decimal

import pytest

from rawclient import RawClient, ServerError


@pytest.fixture
def c(target, unique):
    db = unique('ret')
    cl = RawClient.connect(port=target.port)
    cl.query('CREATE DATABASE %s' % db)
    cl.query('USE %s' % db)
    cl.query("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10), d DATE DEFAULT '2024-01-02', "
             "p DECIMAL(6,2) DEFAULT 1.50, f DOUBLE DEFAULT 0.5)")
    yield cl
    cl.query('DROP DATABASE %s' % db)
    cl.close()


def test_prepared_insert_returning(c):
    st = c.prepare('INSERT INTO t (a) VALUES (?), (?) RETURNING id, a, d, p, f, CONCAT(a, ?) AS x')
    assert len(st.params) == 3
    assert len(st.columns) == 0
    names, rows = c.execute(st, ['u', 'v', '!'])
    assert names == ['id', 'a', 'd', 'p', 'f', 'x']
    assert [col.type for col in c.last.columns][:5] == [3, 253, 10, 246, 5]
    day = datetime.date(2024, 1, 2)
    assert [tuple(r[:3]) for r in rows] == [(1, b'u', day), (2, b'v', day)]
    assert rows[0][5] == b'u!'
    # again: the same statement, new rows
    names, rows = c.execute(st, ['w', None, '?'])
    assert [(r[0], r[1], r[5]) for r in rows] == [(3, b'w', b'w?'), (4, None, None)]


def test_prepared_delete_and_replace_returning(c):
    c.query("INSERT INTO t (a) VALUES ('a'), ('b'), ('c')")
    st = c.prepare('DELETE FROM t WHERE id >= ? ORDER BY id RETURNING id, UPPER(a) AS up')
    assert c.execute(st, [2])[1] == [(2, b'B'), (3, b'C')]
    assert c.execute(st, [2])[1] == []
    st = c.prepare('REPLACE INTO t (id, a) VALUES (?, ?) RETURNING *')
    names, rows = c.execute(st, [1, 'z'])
    assert names == ['id', 'a', 'd', 'p', 'f']
    assert rows[0][:2] == (1, b'z')
    assert c.query('SELECT a FROM t ORDER BY id')[1] == [(b'z',)]


def test_prepare_errors(c):
    with pytest.raises(ServerError) as e:
        c.prepare('INSERT INTO t (a) VALUES (?) RETURNING nosuch')
    assert e.value.code == 1054
    with pytest.raises(ServerError) as e:
        c.prepare('INSERT INTO t (a) VALUES (?) RETURNING MAX(id)')
    assert e.value.code == 1111
    with pytest.raises(ServerError) as e:
        c.prepare('DELETE FROM nosuch WHERE id = ? RETURNING id')
    assert e.value.code == 1146
    with pytest.raises(ServerError) as e:
        c.query('UPDATE t SET a = 1 RETURNING a')
    assert e.value.code == 1064


def test_statement_without_returning_prepares_no_columns(c):
    st = c.prepare('INSERT INTO t (a) VALUES (?)')
    assert len(st.columns) == 0
    assert c.execute(st, ['q']) == ([], [])


def test_returning_needs_select_on_what_it_reads(target, unique):
    """INSERT / DELETE ... RETURNING read the rows they write: SELECT on the columns named (a column grant will
    do), as MariaDB checks it."""
    import pymysql
    db, user = unique('retp'), unique('u')
    c = target.connect()
    cur = c.cursor()
    cur.execute('CREATE DATABASE %s' % db)
    cur.execute('CREATE TABLE %s.t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, secret INT)' % db)
    cur.execute("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
    cur.execute("GRANT INSERT, DELETE ON %s.t TO '%s'@'%%'" % (db, user))
    cur.execute("GRANT SELECT (id, a) ON %s.t TO '%s'@'%%'" % (db, user))
    u = target.connect(user=user, password='pw', database=db)
    ucur = u.cursor()
    ucur.execute('INSERT INTO t (a) VALUES (1) RETURNING id, a')
    assert ucur.fetchall() == ((1, 1),)
    codes = []
    for sql in ('INSERT INTO t (a) VALUES (2) RETURNING secret', 'INSERT INTO t (a) VALUES (2) RETURNING *',
                'DELETE FROM t WHERE id = 1 RETURNING secret'):
        try:
            ucur.execute(sql)
            codes.append(0)
        except pymysql.err.MySQLError as e:
            codes.append(e.args[0])
    assert codes == [1143, 1142, 1143]  # `*` without SELECT on every column: the table-level 1142
    ucur.execute('DELETE FROM t WHERE id = 1 RETURNING a')
    assert ucur.fetchall() == ((1,),)
    u.close()
    cur.execute("DROP USER '%s'@'%%'" % user)
    cur.execute('DROP DATABASE %s' % db)
    c.close()
