"""Server-side prepared statements over the binary protocol (COM_STMT_PREPARE / EXECUTE /
SEND_LONG_DATA / RESET / CLOSE) with typed parameters and binary rows, through rawclient.py (no stock
Python client uses them), plus SQL-level PREPARE / EXECUTE / DEALLOCATE."""
import datetime

import pytest

import rawclient as rc
from rawclient import RawClient, ServerError


@pytest.fixture
def c(target):
    cl = RawClient.connect(port=target.port)
    yield cl
    cl.close()


def test_prepare_metadata(c):
    st = c.prepare("SELECT ? + 1 AS a, ? AS b, CONCAT(?, 'x') AS c")
    assert st.id > 0
    assert len(st.params) == 3
    assert [col.name for col in st.columns] == ['a', 'b', 'c']
    st2 = c.prepare('SELECT 1')
    assert st2.id != st.id and len(st2.params) == 0 and len(st2.columns) == 1


def test_execute_basic(c):
    st = c.prepare("SELECT ? + 1, ?, CONCAT(?, 'x')")
    names, rows = c.execute(st, [41, None, 'abc'])
    assert rows == [(42, None, b'abcx')]
    # execute again with other values, and again without re-sending the types (new-params-bound = 0)
    assert c.execute(st, [1, 'y', 'z'])[1] == [(2, b'y', b'zx')]
    assert c.execute(st, [2, 'w', 'v'], send_types=False)[1] == [(3, b'w', b'vx')]


TYPED = [
    ('tiny', (rc.T_TINY, -5), -5, rc.T_TINY),
    ('short', (rc.T_SHORT, -300), -300, rc.T_SHORT),
    ('long', (rc.T_LONG, -70000), -70000, rc.T_LONG),
    ('longlong', (rc.T_LONGLONG, -(1 << 40)), -(1 << 40), rc.T_LONGLONG),
    ('ulonglong', 2 ** 64 - 1, 2 ** 64 - 1, rc.T_LONGLONG),
    ('float', (rc.T_FLOAT, 1.5), 1.5, rc.T_FLOAT),
    ('double', (rc.T_DOUBLE, 2.25), 2.25, rc.T_DOUBLE),
    ('string', 'héllo', 'héllo'.encode(), rc.T_VAR_STRING),
    ('blob', b'a\0b\xff', b'a\0b\xff', rc.T_BLOB),
    ('date', (rc.T_DATE, datetime.date(2024, 2, 29)), datetime.date(2024, 2, 29), rc.T_DATE),
    ('datetime', (rc.T_DATETIME, datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), rc.T_DATETIME),
    ('time', (rc.T_TIME, -datetime.timedelta(hours=1, minutes=2, seconds=3)),
     -datetime.timedelta(hours=1, minutes=2, seconds=3), rc.T_TIME),
    ('null', None, None, rc.T_NULL),
]


@pytest.mark.parametrize('name,param,want,wtype', TYPED, ids=[t[0] for t in TYPED])
def test_typed_params_roundtrip(c, name, param, want, wtype):
    st = c.prepare('SELECT ?')
    names, rows = c.execute(st, [param])
    assert rows == [(want,)]
    col = c.last.columns[0]
    assert col.type == wtype
    if name == 'ulonglong':
        assert col.flags & 32  # UNSIGNED_FLAG


def test_binary_result_types(c):
    st = c.prepare("SELECT CAST(1 AS SIGNED), 1.5e0, 'str', NULL, CAST('2024-01-02' AS DATE), "
                   "CAST('2024-01-02 03:04:05.123456' AS DATETIME(6)), CAST('-01:02:03' AS TIME), 1.50, "
                   "18446744073709551615, CAST(-1 AS SIGNED), 255")
    names, rows = c.execute(st)
    assert rows == [(1, 1.5, b'str', None, datetime.date(2024, 1, 2),
                     datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
                     -datetime.timedelta(hours=1, minutes=2, seconds=3), b'1.50', 18446744073709551615, -1, 255)]
    assert [col.type for col in c.last.columns] == [
        rc.T_LONG, rc.T_DOUBLE, rc.T_VAR_STRING, rc.T_NULL, rc.T_DATE, rc.T_DATETIME, rc.T_TIME,
        rc.T_NEWDECIMAL, rc.T_LONGLONG, rc.T_LONG, rc.T_LONG]


def test_null_bitmap_wide(c):
    """Binary rows put NULLs in a bitmap offset by 2 bits: check across byte boundaries."""
    n = 19
    st = c.prepare('SELECT ' + ', '.join('?' for _ in range(n)))
    vals = [None if i % 3 == 0 else i for i in range(n)]
    assert c.execute(st, vals)[1] == [tuple(vals)]
    vals = [i if i % 3 == 0 else None for i in range(n)]
    assert c.execute(st, vals)[1] == [tuple(vals)]


def test_send_long_data_and_reset(c):
    st = c.prepare("SELECT LENGTH(?), CONCAT('<', ?, '>')")
    c.send_long_data(st, 0, b'a' * 100000)
    c.send_long_data(st, 0, b'b' * 100000)
    c.send_long_data(st, 1, b'xyz')
    rows = c.execute(st, [None, None], long_data=(0, 1))[1]
    assert rows == [(200000, b'<xyz>')]
    # COM_STMT_RESET drops accumulated long data; the next execute uses bound values
    c.send_long_data(st, 0, b'zzz')
    ok = c.stmt_reset(st)
    assert ok.affected_rows == 0
    assert c.execute(st, ['ab', 'cd'])[1] == [(2, b'<cd>')]


LONG_DATA_TOO_LONG = (1105, 'HY000', "Parameter of prepared statement which is set through mysql_send_long_data() "
                      "is longer than 'max_allowed_packet' bytes")


@pytest.mark.fresh_opts('--max-allowed-packet=1048576')
def test_send_long_data_capped_at_max_allowed_packet(fresh_target):
    """A parameter's long data may total max_allowed_packet bytes; one byte more and the statement fails at
    EXECUTE with MariaDB's 1105, every EXECUTE, until COM_STMT_RESET.  The server keeps nothing past the cap."""
    cl = RawClient.connect(port=fresh_target.port)
    st = cl.prepare('SELECT LENGTH(?), ?')

    def outcome(*a, **k):
        try:
            return cl.execute(st, *a, **k)[1]
        except ServerError as e:
            return (e.code, e.sqlstate, e.message)
    for total, want in ((1048576, [(1048576, b'x')]), (1048577, LONG_DATA_TOO_LONG)):
        for _ in range(2):
            cl.send_long_data(st, 0, b'a' * 500000)
        cl.send_long_data(st, 0, b'a' * (total - 1000000))
        assert outcome([None, 'x'], long_data=(0,)) == want
        cl.stmt_reset(st)
    # 64 MiB sent in all: still refused, and the error sticks across executions until the reset
    for _ in range(64):
        cl.send_long_data(st, 0, b'b' * 1000000)
    assert outcome([None, 'x'], long_data=(0,)) == LONG_DATA_TOO_LONG
    assert outcome(['abc', 'x']) == LONG_DATA_TOO_LONG
    cl.stmt_reset(st)
    assert outcome(['abc', 'x']) == [(3, b'x')]
    assert cl.query('SELECT 1')[1] == [(b'1',)]
    cl.close()


def test_stmt_close(c):
    st = c.prepare('SELECT 1')
    c.stmt_close(st)  # no answer
    with pytest.raises(ServerError) as ei:
        c.execute(st)
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (
        1243, 'HY000', 'Unknown prepared statement handler (%d) given to mysqld_stmt_execute' % st.id)
    c.ping()


def test_prepare_errors(c):
    with pytest.raises(ServerError) as ei:
        c.prepare('SELECT 1; SELECT 2')
    assert (ei.value.code, ei.value.sqlstate) == (1064, '42000')
    with pytest.raises(ServerError) as ei:
        c.prepare('SELEKT 1')
    assert (ei.value.code, ei.value.sqlstate) == (1064, '42000')
    c.ping()


def test_execute_warnings(c):
    st = c.prepare('SELECT ? / 0')
    assert c.execute(st, [1])[1] == [(None,)]
    assert c.last.warnings == 1
    assert c.query('SHOW WARNINGS')[1] == [(b'Warning', b'1365', b'Division by 0')]


def test_prepared_stmt_count(c, target):
    def count():
        return int(c.query("SHOW SESSION STATUS LIKE 'Prepared_stmt_count'")[1][0][1])
    a = count()
    st = c.prepare('SELECT 1')
    assert count() == a + 1
    c.stmt_close(st)
    assert count() == a


def test_sql_prepare_execute(c):
    c.query("PREPARE s FROM 'SELECT ? * 2 AS d'")
    c.query('SET @a = 21')
    assert c.query('EXECUTE s USING @a') == (['d'], [(b'42',)])
    assert c.query('EXECUTE s USING 5') == (['d'], [(b'10',)])
    c.query("SET @q = 'SELECT CONCAT(?, ?)'")
    c.query('PREPARE t FROM @q')
    assert c.query("EXECUTE t USING 'a', 'b'")[1] == [(b'ab',)]
    with pytest.raises(ServerError) as ei:
        c.query('EXECUTE t USING @a')
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1210, 'HY000', 'Incorrect arguments to EXECUTE')
    c.query('DEALLOCATE PREPARE s')
    with pytest.raises(ServerError) as ei:
        c.query('EXECUTE s USING @a')
    assert (ei.value.code, ei.value.message) == (1243, 'Unknown prepared statement handler (s) given to EXECUTE')
    with pytest.raises(ServerError) as ei:
        c.query('DEALLOCATE PREPARE s')
    assert (ei.value.code, ei.value.message) == (
        1243, 'Unknown prepared statement handler (s) given to DEALLOCATE PREPARE')


def test_prepared_compressed(target):
    cl = RawClient.connect(port=target.port, compress='zlib')
    st = cl.prepare('SELECT REPEAT(?, 1000), ?')
    assert cl.execute(st, ['abc', 7])[1] == [(b'abc' * 1000, 7)]
    cl.close()


# A binary-protocol DOUBLE or FLOAT parameter can carry inf, -inf and nan, which no SQL literal can: every
# column type stores what MariaDB stores (with its 1264 / 1265 warnings) or refuses with its strict-mode
# error, and never hands the binlog a value its row encoder cannot write.
INF, NAN = float('inf'), float('nan')
NONFINITE_COLS = ('d DOUBLE, f FLOAT, d52 DOUBLE(5,2), du DOUBLE UNSIGNED, dc DECIMAL(5,2), dc65 DECIMAL(65,0), '
                  'i INT, bu BIGINT UNSIGNED, b BIT(4), y YEAR, tm TIME, dt DATE, v VARCHAR(3), e ENUM(\'a\',\'b\')')
NONFINITE_NAMES = [x.split()[0] for x in NONFINITE_COLS.split(', ')]
NONFINITE_SELECT = 'SELECT k, d, f, d52, du, dc, dc65, i, bu, b + 0, y, tm, dt, v, e FROM t ORDER BY k'


def _nonfinite_table(c):
    c.query('CREATE DATABASE IF NOT EXISTS ps_nonfinite')
    c.query('USE ps_nonfinite')
    c.query('DROP TABLE IF EXISTS t')
    c.query('CREATE TABLE t (k INT PRIMARY KEY, ' + NONFINITE_COLS + ')')


def _warned(c):
    return [(int(code), msg.split(b"'")[1].decode()) for _, code, msg in c.query('SHOW WARNINGS')[1]]


@pytest.mark.parametrize('ptype', [rc.T_DOUBLE, rc.T_FLOAT], ids=['double', 'float'])
def test_nonfinite_params_non_strict(c, target, ptype):
    _nonfinite_table(c)
    c.query("SET sql_mode = ''")
    st = c.prepare('INSERT INTO t (k, %s) VALUES (?%s)' % (', '.join(NONFINITE_NAMES), ', ?' * len(NONFINITE_NAMES)))
    warned = []
    for k, x in enumerate((INF, -INF, NAN)):
        c.execute(st, [k] + [(ptype, x)] * len(NONFINITE_NAMES))
        warned.append(_warned(c))
    oor = [(1264, n) for n in ('d', 'f', 'd52', 'du', 'i', 'bu', 'b', 'y')]
    trunc = [(1265, n) for n in ('dt', 'v', 'e')]
    assert warned[0] == oor + [(1264, 'tm')] + trunc
    assert warned[1] == oor + [(1264, 'tm')] + trunc
    assert warned[2] == [w for w in oor if w[1] not in ('i', 'bu')] + [(1265, 'tm')] + trunc
    nan = target.differs('nan_in_real_column')  # b'0' or NULL
    nan52 = nan and b'0.00'
    assert c.query(NONFINITE_SELECT)[1] == [
        (b'0', b'1.7976931348623157e308', b'3.40282e38', b'999.99', b'1.7976931348623157e308', b'0.00', b'0',
         b'2147483647', b'18446744073709551615', b'15', b'0000', b'838:59:59', b'0000-00-00', b'0', b''),
        (b'1', b'-1.7976931348623157e308', b'-3.40282e38', b'-999.99', b'0', b'0.00', b'0',
         b'-2147483648', b'0', b'15', b'0000', b'-838:59:59', b'0000-00-00', b'0', b''),
        (b'2', nan, nan, nan52, nan, b'0.00', b'0',
         b'0', b'9223372036854775808', b'15', b'0000', b'00:00:00', b'0000-00-00', b'0', b'')]
    # the rows are in the binlog's row log: changing them writes both images
    c.query("UPDATE t SET e = 'a'")
    assert c.query("SELECT COUNT(*) FROM t WHERE e = 'a'")[1] == [(b'3',)]


# MariaDB's strict-mode outcome per column for inf, -inf, nan: an error code, or None (stored silently).
NONFINITE_STRICT = {
    'd': (1264, 1264, 1264), 'f': (1264, 1264, 1264), 'd52': (1264, 1264, 1264), 'du': (1264, 1264, 1264),
    'dc': (None, None, None), 'dc65': (None, None, None), 'i': (1264, 1264, None), 'bu': (1264, 1264, None),
    'b': (1406, 1406, 1406), 'y': (1264, 1264, 1264), 'tm': (1292, 1292, 1292), 'dt': (1292, 1292, 1292),
    'v': (1406, 1406, 1406), 'e': (1265, 1265, 1265),
}


def test_nonfinite_params_strict(c):
    _nonfinite_table(c)
    c.query("SET sql_mode = DEFAULT")
    c.query('INSERT INTO t (k) VALUES (1)')
    got = {}
    for col in NONFINITE_NAMES:
        ins = c.prepare('INSERT INTO t (k, %s) VALUES (2, ?)' % col)
        upd = c.prepare('UPDATE t SET %s = ? WHERE k = 1' % col)
        out = []
        for x in (INF, -INF, NAN):
            codes = []
            for st in (ins, upd):
                try:
                    c.execute(st, [(rc.T_DOUBLE, x)])
                    codes.append(None)
                    assert _warned(c) == []
                except ServerError as e:
                    codes.append(e.code)
            c.query('DELETE FROM t WHERE k = 2')
            assert codes[0] == codes[1], (col, x, codes)
            out.append(codes[0])
        got[col] = tuple(out)
    assert got == NONFINITE_STRICT
    with pytest.raises(ServerError) as ei:
        c.execute(c.prepare('INSERT INTO t (k, tm) VALUES (3, ?)'), [(rc.T_DOUBLE, INF)])
    assert str(ei.value).endswith("Incorrect time value: '0' for column `ps_nonfinite`.`t`.`tm` at row 1")
    assert c.query('SELECT k, dc, i, bu FROM t')[1] == [(b'1', b'0.00', b'0', b'9223372036854775808')]
