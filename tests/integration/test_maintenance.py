"""Table maintenance statements: ANALYZE, CHECK, OPTIMIZE, REPAIR and CHECKSUM TABLE, as MariaDB 10.11 answers
them for InnoDB tables (result rows, missing and temporary tables, several tables per statement, options,
privileges), the statistics ANALYZE computes (SHOW INDEX Cardinality, information_schema, the planner's index
choice), CHECKSUM TABLE's value against MariaDB's own over a wide matrix of column types, CHECK TABLE finding an
index corrupted on disk, OPTIMIZE TABLE giving extents back, and mariadb-check (mysqlcheck) driving them.

Binary log (read off a MariaDB 10.11 with --log-bin by hand): ANALYZE, OPTIMIZE and REPAIR are QUERY events,
whatever each table's outcome (a missing table too), unless LOCAL / NO_WRITE_TO_BINLOG; CHECK and CHECKSUM are
never logged.  The session MariaDB runs with --skip-log-bin, so that test is strata's only."""
import os
import struct
import subprocess

import pytest


@pytest.fixture
def db(target, unique):
    name = unique('mt')
    c = target.connect()
    cur = c.cursor()
    cur.execute('CREATE DATABASE %s' % name)
    cur.execute('USE %s' % name)
    yield target, name, c
    cur.execute('DROP DATABASE %s' % name)
    c.close()


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


def test_result_rows(db):
    target, name, c = db
    q(c, 'CREATE TABLE t (a INT PRIMARY KEY, b INT, KEY (b))')
    q(c, 'INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)')
    q(c, 'CREATE TEMPORARY TABLE tt (x INT)')
    t, ns, tt = name + '.t', name + '.nosuch', name + '.tt'
    missing = [(ns, 'Error', "Table '%s' doesn't exist" % ns), (ns, 'status', 'Operation failed')]

    def rows(sql, op):
        got = q(c, sql)
        assert all(r[1] == op for r in got), got
        return [(r[0], r[2], r[3]) for r in got]

    assert rows('ANALYZE TABLE t, nosuch, tt', 'analyze') == [(t, 'status', 'OK')] + missing + [(tt, 'status', 'OK')]
    assert rows('CHECK TABLE t, nosuch, tt', 'check') == [(t, 'status', 'OK')] + missing + [(tt, 'status', 'OK')]
    note = 'Table does not support optimize, doing recreate + analyze instead'
    assert rows('OPTIMIZE TABLE t, nosuch, tt', 'optimize') == [(t, 'note', note), (t, 'status', 'OK')] + missing + \
        [(tt, 'note', note), (tt, 'status', 'OK')]
    rep = "The storage engine for the table doesn't support repair"
    assert rows('REPAIR TABLE t, nosuch, tt', 'repair') == [(t, 'note', rep)] + missing + [(tt, 'note', rep)]
    assert rows('ANALYZE TABLE t PERSISTENT FOR ALL', 'analyze') == [
        (t, 'status', 'Engine-independent statistics collected'), (t, 'status', 'OK')]
    assert rows('ANALYZE TABLE t PERSISTENT FOR COLUMNS (a, b) INDEXES (b)', 'analyze')[-1] == (t, 'status', 'OK')
    for opt in ('QUICK', 'FAST', 'MEDIUM', 'EXTENDED', 'CHANGED', 'FOR UPGRADE'):
        assert rows('CHECK TABLE t ' + opt, 'check') == [(t, 'status', 'OK')]
    assert rows('OPTIMIZE LOCAL TABLE t', 'optimize')[-1] == (t, 'status', 'OK')
    assert rows('ANALYZE NO_WRITE_TO_BINLOG TABLE t', 'analyze') == [(t, 'status', 'OK')]
    assert rows('CHECK TABLE %s.t' % name, 'check') == [(t, 'status', 'OK')]
    assert q(c, 'SELECT * FROM t ORDER BY a') == [(1, 1), (2, 1), (3, 2)]
    assert q(c, 'SELECT a FROM t WHERE b = 1 ORDER BY a') == [(1,), (2,)]
    # the result set's metadata
    cur = c.cursor()
    cur.execute('CHECK TABLE t')
    assert [(d[0], d[1]) for d in cur.description] == [('Table', 253), ('Op', 253), ('Msg_type', 253),
                                                       ('Msg_text', 250)]
    cur.execute('CHECKSUM TABLE t')
    assert [(d[0], d[1]) for d in cur.description] == [('Table', 253), ('Checksum', 8)]
    # no database: 1046 for the whole statement
    c2 = target.connect()
    with pytest.raises(Exception) as e:
        q(c2, 'CHECK TABLE t')
    assert e.value.args[0] == 1046
    c2.close()


def test_checksum_missing_quick_empty(db):
    target, name, c = db
    q(c, 'CREATE TABLE t (a INT PRIMARY KEY, b INT, KEY (b))')
    q(c, 'INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)')
    q(c, 'CREATE TABLE e (a INT)')
    q(c, 'CREATE TEMPORARY TABLE tt (x INT)')
    assert q(c, 'CHECKSUM TABLE t, nosuch, e, tt') == [(name + '.t', 369534750), (name + '.nosuch', None),
                                                      (name + '.e', 0), (name + '.tt', 0)]
    assert q(c, 'SHOW WARNINGS') == [('Error', 1146, "Table '%s.nosuch' doesn't exist" % name)]
    assert q(c, 'SELECT @@warning_count, @@error_count') == [(1, 1)]
    assert q(c, 'CHECKSUM TABLE t QUICK') == [(name + '.t', None)]
    assert q(c, 'CHECKSUM TABLE t EXTENDED') == [(name + '.t', 369534750)]


# Columns of the checksum matrix: every type strata stores, nullable and not, with its edge values.
MATRIX = [
    ('ti', 'TINYINT', ['-128', '127', '0']), ('tu', 'TINYINT UNSIGNED', ['255', '0', '7']),
    ('si', 'SMALLINT', ['-32768', '32767', '1']), ('mi', 'MEDIUMINT', ['-8388608', '8388607', '-1']),
    ('mu', 'MEDIUMINT UNSIGNED', ['16777215', '0', '5']), ('i', 'INT', ['-2147483648', '2147483647', '42']),
    ('iu', 'INT UNSIGNED', ['4294967295', '0', '3']), ('bi', 'BIGINT', ['-9223372036854775808', '9223372036854775807', '-5']),
    ('bu', 'BIGINT UNSIGNED', ['18446744073709551615', '0', '9']),
    ('d1', 'DECIMAL(10,2)', ['-12345678.91', '0.00', '0.05']), ('d2', 'DECIMAL(30,10)', ['-12345678901234567890.0123456789', '1', '0']),
    ('d3', 'DECIMAL(5,0)', ['99999', '-99999', '0']), ('f', 'FLOAT', ['1.5', '-3.25e10', '0']),
    ('dbl', 'DOUBLE', ['3.141592653589793', '-1e300', '0']), ('b1', 'BIT(1)', ["b'1'", "b'0'", "b'1'"]),
    ('b13', 'BIT(13)', ["b'1010101010101'", "b'0'", "b'1'"]), ('b64', 'BIT(64)', ['18446744073709551615', '0', '1']),
    ('c1', 'CHAR(5) CHARACTER SET latin1', ["'ab'", "''", "'abcde'"]),
    ('c2', 'CHAR(4) CHARACTER SET utf8mb4', ["'é€'", "'x'", "''"]), ('bn', 'BINARY(4)', ["'ab'", "x'00ff'", "''"]),
    ('v1', 'VARCHAR(10) CHARACTER SET latin1', ["'hello'", "''", "'a  '"]),
    ('v2', 'VARCHAR(300) CHARACTER SET utf8mb4', ["'ünïcødé'", "REPEAT('x', 300)", "''"]),
    ('vb', 'VARBINARY(20)', ["x'000102'", "''", "'zz'"]),
    ('tx', 'TEXT CHARACTER SET utf8mb4', ["'some text'", "REPEAT('long ', 5000)", "''"]),
    ('bl', 'BLOB', ["x'deadbeef'", "''", "REPEAT('b', 60000)"]), ('tt', 'TINYTEXT CHARACTER SET latin1', ["'t'", "''", "'x'"]),
    ('mb', 'MEDIUMBLOB', ["'m'", "''", "'y'"]), ('dt', 'DATE', ["'2024-02-29'", "'1000-01-01'", "'9999-12-31'"]),
    ('dtm', 'DATETIME', ["'2024-02-29 13:14:15'", "'1000-01-01 00:00:00'", "'9999-12-31 23:59:59'"]),
    ('dtm3', 'DATETIME(3)', ["'2024-02-29 13:14:15.123'", "'2000-01-01 00:00:00.001'", "'1999-12-31 23:59:59.999'"]),
    ('dtm6', 'DATETIME(6)', ["'2024-02-29 13:14:15.123456'", "'2000-01-01 00:00:00'", "'2038-01-19 03:14:08.000001'"]),
    ('ts', 'TIMESTAMP NULL', ["'2024-02-29 13:14:15'", "'1970-01-02 00:00:00'", "'2038-01-19 03:14:07'"]),
    ('ts2', 'TIMESTAMP(2) NULL', ["'2024-02-29 13:14:15.12'", "'2001-01-01 00:00:00.99'", "'2020-06-01 12:00:00'"]),
    ('tm', 'TIME', ["'838:59:59'", "'-838:59:59'", "'00:00:00'"]),
    ('tm1', 'TIME(1)', ["'12:34:56.7'", "'-00:00:00.1'", "'-12:00:00.5'"]),
    ('tm4', 'TIME(4)', ["'12:34:56.7891'", "'-01:02:03.0004'", "'00:00:00'"]),
    ('tm6', 'TIME(6)', ["'12:34:56.789123'", "'-838:59:59.000000'", "'-00:00:01.000001'"]),
    ('y', 'YEAR', ['1901', '2155', '0']), ('en', "ENUM('a','b','c')", ["'c'", "'a'", "'b'"]),
    ('st', "SET('x','y','z')", ["'x,z'", "''", "'y'"]),
    ('st9', "SET('a1','a2','a3','a4','a5','a6','a7','a8','a9')", ["'a9,a1'", "''", "'a5'"]),
    ('st40', 'SET(%s)' % ','.join("'m%d'" % k for k in range(40)), ["'m39,m0'", "''", "'m20'"]),
]


def checksum_tables(c):
    """Creates the matrix tables on connection c and returns their names."""
    names = []
    # one column per table, NOT NULL and nullable: the null bitmap and packed-record rules each get their case
    for k, (col, ty, vals) in enumerate(MATRIX):
        for nn in (True, False):
            t = 'm%d%s' % (k, 'n' if nn else '')
            null = ' NOT NULL' if nn and 'NULL' not in ty else ''
            q(c, 'CREATE TABLE %s (%s %s%s) DEFAULT CHARSET=latin1' % (t, col, ty, null))
            for v in vals:
                q(c, 'INSERT INTO %s VALUES (%s)' % (t, v))
            if not nn:
                q(c, 'INSERT INTO %s VALUES (NULL)' % t)
            names.append(t)
    # every column in one wide table, rows mixing NULLs (up to 42 nullable columns: a bitmap of 6 bytes)
    cols = ', '.join('%s %s' % (col, ty) for col, ty, _ in MATRIX)
    q(c, 'CREATE TABLE wide (id INT PRIMARY KEY, %s) DEFAULT CHARSET=latin1' % cols)
    for r in range(3):
        vals = [vals[r] for _, _, vals in MATRIX]
        q(c, 'INSERT INTO wide VALUES (%d, %s)' % (r, ', '.join(vals)))
    for r in range(3, 6):
        vals = [v[r - 3] if (k + r) % 3 else 'NULL' for k, (_, _, v) in enumerate(MATRIX)]
        q(c, 'INSERT INTO wide VALUES (%d, %s)' % (r, ', '.join(vals)))
    # fixed-length records with their bit 0, several nullable columns, and a packed one
    q(c, 'CREATE TABLE fixed (a INT, b INT NOT NULL, c CHAR(3), d INT, e DOUBLE, f INT, g INT, h INT, i INT) '
         'DEFAULT CHARSET=latin1')
    q(c, "INSERT INTO fixed VALUES (1, 2, 'x', NULL, 1.5, NULL, 7, NULL, 9), (NULL, 0, NULL, 4, NULL, 6, NULL, 8, NULL)")
    q(c, 'CREATE TABLE packed (a INT, v VARCHAR(5), b INT NOT NULL) DEFAULT CHARSET=latin1')
    q(c, "INSERT INTO packed VALUES (1, 'x', 2), (NULL, NULL, 3), (4, '', 5)")
    return names + ['wide', 'fixed', 'packed']


def test_checksum_matches_mariadb(request, unique):
    """Differential: the same CREATE TABLEs and rows give the same CHECKSUM TABLE on strata and MariaDB."""
    import conftest
    if request.config.getoption('target') != 'both':
        pytest.skip('needs both servers')
    strata, mariadb = conftest.session_server('strata'), conftest.session_server('mariadb')
    name = unique('ck')
    got = {}
    for s in (strata, mariadb):
        c = s.connect()
        q(c, 'CREATE DATABASE %s' % name)
        q(c, 'USE %s' % name)
        try:
            tables = checksum_tables(c)
            got[s.kind] = dict(q(c, 'CHECKSUM TABLE ' + ', '.join(tables)))
            assert all(w[1] not in (1265, 1264, 1292) for w in q(c, 'SHOW WARNINGS')), q(c, 'SHOW WARNINGS')
        finally:
            q(c, 'DROP DATABASE %s' % name)
            c.close()
    diff = {t: (v, got['mariadb'][t]) for t, v in got['strata'].items() if v != got['mariadb'][t]}
    assert not diff, 'strata vs MariaDB checksums differ: %s' % diff
    assert len(got['strata']) == 2 * len(MATRIX) + 3


def test_privileges(db, unique):
    target, name, c = db
    q(c, 'CREATE TABLE t (a INT PRIMARY KEY)')
    users = {}
    for kind, grant in (('sel', 'SELECT ON %s.*' % name), ('ins', 'INSERT ON %s.*' % name), ('none', None)):
        u = unique(kind)
        q(c, "CREATE USER '%s'@'%%'" % u)
        if grant:
            q(c, "GRANT %s TO '%s'@'%%'" % (grant, u))
        else:
            q(c, "GRANT USAGE ON *.* TO '%s'@'%%'" % u)
        users[kind] = u
    want = {
        'sel': {'ANALYZE': 'INSERT', 'CHECK': None, 'OPTIMIZE': 'INSERT', 'REPAIR': 'INSERT', 'CHECKSUM': None},
        'ins': {'ANALYZE': 'SELECT', 'CHECK': None, 'OPTIMIZE': 'SELECT', 'REPAIR': 'SELECT', 'CHECKSUM': 'SELECT'},
        'none': {'ANALYZE': 'SELECT, INSERT', 'CHECK': 'CHECK TABLE', 'OPTIMIZE': 'SELECT, INSERT',
                 'REPAIR': 'SELECT, INSERT', 'CHECKSUM': 'SELECT'},
    }
    try:
        for kind, u in users.items():
            uc = target.connect(user=u, password='', database=name if kind != 'none' else None)
            for stmt, denied in want[kind].items():
                sql = '%s TABLE %s.t' % (stmt, name)
                if denied is None:
                    assert q(uc, sql)
                    continue
                with pytest.raises(Exception) as e:
                    q(uc, sql)
                code, text = e.value.args  # the client's host, not the account's '%'
                assert code == 1142 and text == "%s command denied to user '%s'@'localhost' for table `%s`.`t`" % (
                    denied, u, name), (kind, stmt, text)
            uc.close()
    finally:
        for u in users.values():
            q(c, "DROP USER '%s'@'%%'" % u)


def rows_of(n, f):
    return ','.join('(%d, %d, %d)' % (i, f(i)[0], f(i)[1]) for i in range(1, n + 1))


def test_analyze_statistics_and_index_choice(db):
    """Two indexes both bound by WHERE: the planner must take the one the statistics say is more selective, and
    change its choice when the data (and ANALYZE) say the other is.  A planner that ignored the statistics would
    keep one of them both times."""
    target, name, c = db
    q(c, 'CREATE TABLE p (id INT PRIMARY KEY, a INT, b INT, KEY ka (a), KEY kb (b))')
    q(c, 'INSERT INTO p VALUES ' + rows_of(400, lambda i: (i % 2, i)))
    assert q(c, 'ANALYZE TABLE p') == [(name + '.p', 'analyze', 'status', 'OK')]
    # InnoDB's numbers are estimates from sampled pages; strata counts exactly
    exact = target.kind == 'strata'
    card = {r[2]: r[6] for r in q(c, 'SHOW INDEX FROM p')}
    assert card['ka'] < card['kb'] and card['PRIMARY'] == 400, card
    if exact:
        assert card == {'PRIMARY': 400, 'ka': 2, 'kb': 400}
    assert dict(q(c, "SELECT INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = %s "
                     "AND TABLE_NAME = 'p'", (name,))) == card
    assert q(c, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'p'",
             (name,)) == [(400,)]
    assert q(c, "SHOW TABLE STATUS LIKE 'p'")[0][4] == 400
    ex = q(c, 'EXPLAIN SELECT * FROM p WHERE a = 1 AND b = 5')[0]
    assert ex[5] == 'kb', ex
    assert int(ex[8]) == 1, ex  # (MariaDB sends rows as text)
    assert q(c, 'SELECT id FROM p WHERE a = 1 AND b = 5') == [(5,)]
    # the other way round: a distinct, b two values
    q(c, 'UPDATE p SET a = id, b = id % 2')
    q(c, 'ANALYZE TABLE p')
    card = {r[2]: r[6] for r in q(c, 'SHOW INDEX FROM p')}
    assert card['ka'] > card['kb'], card
    if exact:
        assert card == {'PRIMARY': 400, 'ka': 400, 'kb': 2}
    ex = q(c, 'EXPLAIN SELECT * FROM p WHERE a = 5 AND b = 1')[0]
    assert ex[5] == 'ka', ex
    assert q(c, 'SELECT id FROM p WHERE a = 5 AND b = 1') == [(5,)]
    # a two-column index: the cardinality of each prefix
    q(c, 'CREATE TABLE m (id INT PRIMARY KEY, x INT, y INT, KEY kxy (x, y))')
    q(c, 'INSERT INTO m VALUES ' + rows_of(60, lambda i: (i % 3, i % 12)))
    q(c, 'ANALYZE TABLE m')
    if exact:
        assert [r[6] for r in q(c, 'SHOW INDEX FROM m') if r[2] == 'kxy'] == [3, 12]


def test_prepared_plan_follows_analyze(fresh_target):
    """A prepared SELECT keeps its binding across executions, but ANALYZE's new statistics make it choose its
    index again: seen in the slow log's Rows_examined (1 through the selective index, 200 through the other)."""
    import os
    srv = fresh_target
    log = os.path.join(srv.base, 'slow-prep.log')
    c = srv.connect()
    q(c, 'CREATE DATABASE pp')
    q(c, 'CREATE TABLE pp.p (id INT PRIMARY KEY, a INT, b INT, KEY ka (a), KEY kb (b))')
    q(c, 'INSERT INTO pp.p VALUES ' + rows_of(400, lambda i: (i % 2, i)))
    q(c, 'ANALYZE TABLE pp.p')
    q(c, "SET GLOBAL slow_query_log_file = '%s'" % log)
    q(c, 'SET GLOBAL slow_query_log = ON')
    q(c, 'SET SESSION long_query_time = 0, SESSION slow_query_log = ON')
    with c.cursor() as cur:
        cur.execute("PREPARE s FROM 'SELECT id FROM pp.p WHERE a = ? AND b = ?'")
        cur.execute('SET @a = 1, @b = 5')
        cur.execute('EXECUTE s USING @a, @b')
        assert cur.fetchall() == ((5,),)
        cur.execute('UPDATE pp.p SET a = id, b = id % 2')
        cur.execute('ANALYZE TABLE pp.p')
        cur.fetchall()
        cur.execute('SET @a = 5, @b = 1')
        cur.execute('EXECUTE s USING @a, @b')
        assert cur.fetchall() == ((5,),)
    q(c, 'SET GLOBAL slow_query_log = OFF')
    c.close()
    examined = []
    with open(log) as f:
        for line in f:
            if 'Rows_examined:' in line:
                last = int(line.split('Rows_examined:')[1].split()[0])
            elif line.startswith('EXECUTE s') or line.startswith('SELECT id FROM pp.p'):
                examined.append(last)  # (MariaDB logs the prepared text with the values in place)
    assert examined == [1, 1], examined


@pytest.mark.only('strata')  # strata's statistics across its own restart
def test_statistics_survive_restart(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    q(c, 'CREATE DATABASE d')
    q(c, 'CREATE TABLE d.p (id INT PRIMARY KEY, a INT, KEY ka (a))')
    q(c, 'INSERT INTO d.p VALUES ' + ','.join('(%d, %d)' % (i, i % 7) for i in range(1, 101)))
    q(c, 'ANALYZE TABLE d.p')
    q(c, 'INSERT INTO d.p VALUES (1000, 1000)')  # not analyzed: the stored numbers stay
    c.close()
    s.restart()
    c = s.connect()
    assert {r[2]: r[6] for r in q(c, 'SHOW INDEX FROM d.p')} == {'PRIMARY': 100, 'ka': 7}
    q(c, 'DROP TABLE d.p')
    q(c, 'CREATE TABLE d.p (id INT PRIMARY KEY, a INT, KEY ka (a))')  # a new table: no statistics of the old
    q(c, 'INSERT INTO d.p VALUES (1, 1), (2, 2)')
    assert {r[2]: r[6] for r in q(c, 'SHOW INDEX FROM d.p')} == {'PRIMARY': 2, 'ka': 2}
    c.close()


@pytest.mark.only('strata')  # information_schema.FILES counts extents on strata only (MariaDB's is empty)
def test_optimize_returns_extents(strata, unique):
    name = unique('op')
    c = strata.connect()
    q(c, 'CREATE DATABASE %s' % name)
    q(c, 'USE %s' % name)
    q(c, 'CREATE TABLE big (id INT PRIMARY KEY, k INT, pad VARCHAR(500), KEY kk (k))')
    for b in range(20):
        q(c, 'INSERT INTO big VALUES ' + ','.join("(%d, %d, REPEAT('p', 500))" % (i, i % 97)
                                                 for i in range(b * 500, (b + 1) * 500)))
    q(c, 'DELETE FROM big WHERE id % 20 <> 0')

    def data():
        return q(c, "SELECT DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s "
                    "AND TABLE_NAME = 'big'", (name,))[0]

    def free():
        return sum(r[0] for r in q(c, "SELECT FREE_EXTENTS FROM information_schema.FILES WHERE FILE_TYPE <> 'UNDO LOG'"))

    def data_free():
        return q(c, "SELECT DATA_FREE FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'big'",
                 (name,))[0][0]

    before, free_before, df_before = data(), free(), data_free()
    assert q(c, 'OPTIMIZE TABLE big')[-1] == (name + '.big', 'optimize', 'status', 'OK')
    after, free_after, df_after = data(), free(), data_free()
    assert after[0] < before[0] // 4, (before, after)
    assert free_after > free_before, (free_before, free_after)
    assert df_after > df_before, (df_before, df_after)
    want = [(i, i % 97) for i in range(0, 10000, 20)]
    assert q(c, 'SELECT id, k FROM big ORDER BY id') == want
    assert q(c, 'SELECT COUNT(*) FROM big WHERE k = 5') == [(sum(1 for _, k in want if k == 5),)]
    assert q(c, 'CHECK TABLE big') == [(name + '.big', 'check', 'status', 'OK')]
    assert {r[2]: r[6] for r in q(c, 'SHOW INDEX FROM big')} == {'PRIMARY': 500, 'kk': 97}
    q(c, 'DROP DATABASE %s' % name)
    c.close()


@pytest.mark.only('strata')  # strata's binary log; MariaDB's was read by hand (see the module docstring)
def test_binlog(strata, unique):
    name = unique('bl')
    c = strata.connect()
    q(c, 'CREATE DATABASE %s' % name)
    q(c, 'USE %s' % name)
    q(c, 'CREATE TABLE t (a INT)')
    q(c, 'FLUSH BINARY LOGS')
    f = q(c, 'SHOW MASTER STATUS')[0][0]
    stmts = ['ANALYZE TABLE t', 'ANALYZE LOCAL TABLE t', 'OPTIMIZE TABLE t', 'OPTIMIZE NO_WRITE_TO_BINLOG TABLE t',
             'REPAIR TABLE t', 'REPAIR LOCAL TABLE t', 'CHECK TABLE t', 'CHECKSUM TABLE t', 'ANALYZE TABLE nosuch']
    for s in stmts:
        q(c, s)
    logged = [r[5].split('; ', 1)[-1] for r in q(c, "SHOW BINLOG EVENTS IN '%s'" % f) if r[2] == 'Query']
    assert logged == ['ANALYZE TABLE t', 'OPTIMIZE TABLE t', 'REPAIR TABLE t', 'ANALYZE TABLE nosuch'], logged
    q(c, 'DROP DATABASE %s' % name)
    c.close()


def crc32c(data):
    table = crc32c.table
    if table is None:
        table = crc32c.table = []
        for i in range(256):
            v = i
            for _ in range(8):
                v = (v >> 1) ^ 0x82F63B78 if v & 1 else v >> 1
            table.append(v)
    crc = 0xFFFFFFFF
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


crc32c.table = None


def corrupt_index_entry(datadir, marker):
    """Changes the last byte of `marker` inside a B+tree leaf KEY (a secondary index entry: the clustered rows
    hold it in their values, not their keys) and re-seals the page checksum, so the page is well-formed but
    the entry no longer matches its row.  Returns how many pages were changed."""
    changed = 0
    for fn in os.listdir(datadir):
        if not fn.endswith('.dat') or fn == 'accounts.dat':
            continue
        path = os.path.join(datadir, fn)
        with open(path, 'r+b') as fh:
            data = bytearray(fh.read())
            ps = 16384
            for off in range(0, len(data) - ps + 1, ps):
                pg = data[off:off + ps]
                if pg[7] != 3 or struct.unpack_from('<H', pg, 32)[0] != 0:  # B+tree leaf pages only
                    continue
                n = struct.unpack_from('<H', pg, 34)[0]
                hit = False
                for i in range(n):
                    cp = struct.unpack_from('<H', pg, 64 + 2 * i)[0]
                    kl = struct.unpack_from('<H', pg, cp)[0]
                    key = pg[cp + 16:cp + 16 + kl]
                    at = key.find(marker)
                    if at >= 0:
                        pg[cp + 16 + at + len(marker) - 1] ^= 0x01
                        hit = True
                if hit:
                    struct.pack_into('<I', pg, 0, crc32c(bytes(pg[4:])))
                    data[off:off + ps] = pg
                    changed += 1
            fh.seek(0)
            fh.write(data)
    return changed


@pytest.mark.only('strata')  # edits strata's data file while the server is stopped
def test_check_reports_a_corrupt_secondary_index(fresh_strata):
    s = fresh_strata
    s.start()
    c = s.connect()
    q(c, 'CREATE DATABASE d')
    q(c, 'CREATE TABLE d.t (id INT PRIMARY KEY, v VARBINARY(20), KEY kv (v))')
    q(c, "INSERT INTO d.t VALUES (1, 'aaa'), (2, 'bbb'), (3, 'zzcorruptme')")
    assert q(c, 'CHECK TABLE d.t') == [('d.t', 'check', 'status', 'OK')]
    c.close()
    s.stop()
    assert corrupt_index_entry(s.datadir, b'zzcorruptme') == 1
    s.start()
    c = s.connect()
    got = q(c, 'CHECK TABLE d.t')
    assert got[-1] == ('d.t', 'check', 'error', 'Corrupt'), got
    assert any(r[2] == 'Warning' and "Index 'kv'" in r[3] for r in got), got
    assert q(c, 'CHECK TABLE d.t QUICK') == [('d.t', 'check', 'status', 'OK')]  # the trees themselves are sound
    # the server goes on; rebuilding the table from its rows repairs the index
    assert q(c, 'OPTIMIZE TABLE d.t')[-1] == ('d.t', 'optimize', 'status', 'OK')
    assert q(c, 'CHECK TABLE d.t') == [('d.t', 'check', 'status', 'OK')]
    assert q(c, "SELECT id FROM d.t WHERE v = 'zzcorruptme'") == [(3,)]
    c.close()


def test_mariadb_check(db):
    """mariadb-check (mysqlcheck) over the server: --check, --analyze, --optimize, --all-databases."""
    target, name, c = db
    q(c, 'CREATE TABLE t1 (a INT PRIMARY KEY, b INT, KEY (b))')
    q(c, 'INSERT INTO t1 VALUES (1, 1), (2, 2)')
    q(c, 'CREATE TABLE t2 (s VARCHAR(10))')
    base = ['mariadb-check', '--no-defaults', '-uroot', '-h', target.host, '-P', str(target.port), '--protocol=TCP',
            '--skip-ssl']
    for mode, status in (('--check', 'OK'), ('--analyze', 'OK'), ('--optimize', 'OK')):
        r = subprocess.run(base + [mode, name], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (mode, r.stdout, r.stderr)
        lines = r.stdout.split('\n')
        for t in ('t1', 't2'):
            i = next(k for k, line in enumerate(lines) if line.startswith('%s.%s' % (name, t)))
            assert status in lines[i] + (lines[i + 1] if i + 1 < len(lines) else '') or \
                any(status in line for line in lines[i:i + 3]), (mode, r.stdout)
    r = subprocess.run(base + ['--check', '--all-databases'], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert '%s.t1' % name in r.stdout and 'error' not in r.stdout.lower(), r.stdout
