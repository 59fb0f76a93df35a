"""SELECT ... INTO OUTFILE / DUMPFILE and LOAD DATA [LOCAL] INFILE, on strata and on MariaDB alike: the bytes of
the files written, a round trip of awkward data (NULLs, tabs, newlines, quotes, backslashes, binary) through
OUTFILE and LOAD DATA with several FIELDS / LINES options, LOAD DATA's warnings, errors and info string, LOCAL
through PyMySQL and the mariadb client, the FILE privilege, and 1086 for a file that exists."""
import os
import stat

import pymysql
import pytest

AWKWARD = [
    (1, 'plain', b'\x00\x01\xff', '2024-01-02', '1.50', 0.25),
    (2, 'tab\there', None, None, None, None),
    (3, 'nl\nand\\back', b'', '2000-12-31', '-3.25', 1e20),
    (4, 'q"uo\'te,comma', b'\\N', '1999-01-01', '0.00', -0.5),
    (5, '', b'NULL', '2024-02-29', '9.99', 0.0),
    (6, 'NULL', b'\r\n\t', '2024-03-01', '1.00', 3.0),
    (7, '\\N', b'"', '2024-03-02', '2.00', 4.0),
]

OPTIONS = [
    '',
    "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\r\\n'",
    "FIELDS TERMINATED BY ',' ENCLOSED BY '\"' ESCAPED BY '\\\\' LINES STARTING BY 'S:' TERMINATED BY '|'",
    "FIELDS TERMINATED BY '||' ENCLOSED BY '\\'' LINES TERMINATED BY '<eol>\\n'",
]


@pytest.fixture
def db(target, unique, tmp_path):
    name = unique('ld')
    c = target.connect()
    c.cursor().execute('CREATE DATABASE %s' % name)
    c.select_db(name)
    os.chmod(str(tmp_path), 0o777)
    yield c, name, tmp_path
    c.cursor().execute('DROP DATABASE %s' % name)
    c.close()


def make_table(cur, name='t'):
    cur.execute('CREATE TABLE %s (id INT PRIMARY KEY, s VARCHAR(40), b VARBINARY(20), d DATE, n DECIMAL(6,2), '
                'f DOUBLE)' % name)
    cur.executemany('INSERT INTO ' + name + ' VALUES (%s, %s, %s, %s, %s, %s)', AWKWARD)


def info(c):
    """The OK's info string (PyMySQL leaves the session-state length byte in front of it)."""
    m = c._result.message
    return m[m.index(b'Records'):]


def rows(cur, name='t'):
    cur.execute('SELECT id, s, b, d, n, f FROM %s ORDER BY id' % name)
    return cur.fetchall()


@pytest.mark.parametrize('opts', OPTIONS, ids=['default', 'csv', 'enclosed_starting', 'multibyte'])
def test_outfile_load_round_trip(db, opts):
    c, name, tmp = db
    cur = c.cursor()
    make_table(cur)
    path = str(tmp / 'out.txt')
    assert cur.execute("SELECT * FROM t ORDER BY id INTO OUTFILE '%s' %s" % (path, opts)) == len(AWKWARD)
    cur.execute('CREATE TABLE u LIKE t')
    cur.execute("LOAD DATA INFILE '%s' INTO TABLE u %s" % (path, opts))
    assert rows(cur, 'u') == rows(cur, 't')
    assert cur.execute('SHOW WARNINGS') == 0


def test_outfile_bytes(db):
    """The file's exact bytes (compared with MariaDB's through the expected text, which both must write)."""
    c, name, tmp = db
    cur = c.cursor()
    make_table(cur)
    p1, p2, p3 = (str(tmp / n) for n in ('a', 'b', 'c'))
    cur.execute("SELECT id, s, b, d, n FROM t WHERE id <= 4 ORDER BY id INTO OUTFILE '%s'" % p1)
    assert open(p1, 'rb').read() == (b'1\tplain\t\\0\x01\xff\t2024-01-02\t1.50\n'
                                     b'2\ttab\\\there\t\\N\t\\N\t\\N\n'
                                     b'3\tnl\\\nand\\\\back\t\t2000-12-31\t-3.25\n'
                                     b'4\tq"uo\'te,comma\t\\\\N\t1999-01-01\t0.00\n')
    cur.execute("SELECT id, s, d, n FROM t WHERE id IN (2, 4) ORDER BY id INTO OUTFILE '%s' FIELDS TERMINATED BY ',' "
                "OPTIONALLY ENCLOSED BY '\"'" % p2)
    assert open(p2, 'rb').read() == b'2,"tab\there",\\N,\\N\n4,"q\\"uo\'te,comma","1999-01-01",0.00\n'
    cur.execute("SELECT s, b FROM t WHERE id = 1 INTO DUMPFILE '%s'" % p3)
    assert open(p3, 'rb').read() == b'plain\x00\x01\xff'
    # created under the server's umask (0666 & ~umask): never executable, never more than rw-rw-rw-
    mode = stat.S_IMODE(os.stat(p1).st_mode)
    assert mode & 0o111 == 0 and mode & ~0o666 == 0


def test_outfile_errors(db):
    c, name, tmp = db
    cur = c.cursor()
    make_table(cur)
    path = str(tmp / 'x')
    cur.execute("SELECT 1 INTO OUTFILE '%s'" % path)
    with pytest.raises(pymysql.err.OperationalError) as e:
        cur.execute("SELECT 1 INTO OUTFILE '%s'" % path)
    assert e.value.args[0] == 1086
    with pytest.raises(pymysql.err.OperationalError) as e:
        cur.execute("SELECT s FROM t INTO DUMPFILE '%s'" % str(tmp / 'y'))
    assert e.value.args[0] == 1172
    with pytest.raises(pymysql.err.OperationalError) as e:
        cur.execute("SELECT 1 INTO OUTFILE '%s' FIELDS ENCLOSED BY 'ab'" % str(tmp / 'z'))
    assert e.value.args[0] == 1083


def test_load_data_warnings_and_info(db):
    c, name, tmp = db
    cur = c.cursor()
    cur.execute('CREATE TABLE a (id INT PRIMARY KEY, s VARCHAR(5), d DATE)')
    path = str(tmp / 'in.txt')
    with open(path, 'wb') as f:
        f.write(b'1\tabc\t2024-01-02\n2\t\\N\t\\N\n3\tx\\ty\\nz\t2000-01-01\textra\n4\n\n5\ttoolongvalue')
    # strict mode: the line with a field too many is an error, nothing is loaded
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE '%s' INTO TABLE a" % path)
    assert e.value.args[0] == 1262
    cur.execute("SELECT COUNT(*) FROM a")
    assert cur.fetchone() == (0,)
    cur.execute("SET sql_mode = ''")
    assert cur.execute("LOAD DATA INFILE '%s' INTO TABLE a" % path) == 6
    assert info(c) == b'Records: 6  Deleted: 0  Skipped: 0  Warnings: 8'
    cur.execute('SHOW WARNINGS')
    assert [(w[1], w[2]) for w in cur.fetchall()] == [
        (1262, 'Row 3 was truncated; it contained more data than there were input columns'),
        (1261, "Row 4 doesn't contain data for all columns"),
        (1261, "Row 4 doesn't contain data for all columns"),
        (1366, "Incorrect integer value: '' for column `%s`.`a`.`id` at row 5" % name),
        (1261, "Row 5 doesn't contain data for all columns"),
        (1261, "Row 5 doesn't contain data for all columns"),
        (1265, "Data truncated for column 's' at row 6"),
        (1261, "Row 6 doesn't contain data for all columns"),
    ]
    assert cur.execute("LOAD DATA INFILE '%s' IGNORE INTO TABLE a" % path) == 0
    assert info(c).startswith(b'Records: 6  Deleted: 0  Skipped: 6')
    cur.execute("LOAD DATA INFILE '%s' REPLACE INTO TABLE a (id, s) SET d = '2030-01-01'" % path)
    assert info(c).startswith(b'Records: 6  Deleted: 6  Skipped: 0')
    cur.execute("SELECT COUNT(*) FROM a WHERE d = '2030-01-01'")
    assert cur.fetchone() == (6,)


def test_load_data_columns_vars_set_ignore_lines(db):
    c, name, tmp = db
    cur = c.cursor()
    cur.execute('CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), n INT)')
    path = str(tmp / 'in.csv')
    with open(path, 'wb') as f:
        f.write(b'id,name,n\n"1","a,b",5\n"2","q""uote",6\n3,NULL,7\n"4","NULL",8\n')
    cur.execute("LOAD DATA INFILE '%s' INTO TABLE b FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' "
                "IGNORE 1 LINES" % path)
    cur.execute('SELECT * FROM b ORDER BY id')
    assert cur.fetchall() == ((1, 'a,b', 5), (2, 'q"uote', 6), (3, None, 7), (4, 'NULL', 8))
    cur.execute("LOAD DATA INFILE '%s' INTO TABLE b CHARACTER SET utf8mb4 FIELDS TERMINATED BY ',' ENCLOSED BY '\"' "
                "IGNORE 1 ROWS (@i, name, @n) SET id = @i + 10, n = @n * 2" % path)
    cur.execute('SELECT * FROM b WHERE id > 10 ORDER BY id')
    assert cur.fetchall() == ((11, 'a,b', 10), (12, 'q"uote', 12), (13, None, 14), (14, 'NULL', 16))
    cur.execute('SELECT @i, @n')
    assert cur.fetchone() == ('4', '8')
    with pytest.raises(pymysql.err.OperationalError) as e:
        cur.execute("LOAD DATA INFILE '%s' INTO TABLE b (nosuch)" % path)
    assert e.value.args[0] == 1054
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE '%s' INTO TABLE b" % str(tmp / 'missing'))
    assert e.value.args[0] == 13


def test_load_data_local_pymysql(target, db):
    c, name, tmp = db
    cur = c.cursor()
    cur.execute('CREATE TABLE lc (id INT PRIMARY KEY, s VARCHAR(20))')
    path = str(tmp / 'local.txt')
    with open(path, 'w') as f:
        for i in range(30000):
            f.write('%d\tv%d\n' % (i, i))
    lc = target.connect(database=name, local_infile=True)
    lcur = lc.cursor()
    assert lcur.execute("LOAD DATA LOCAL INFILE '%s' INTO TABLE lc" % path) == 30000
    assert info(lc) == b'Records: 30000  Deleted: 0  Skipped: 0  Warnings: 0'
    # LOCAL without REPLACE is IGNORE: duplicates are skipped with warnings, not an error
    assert lcur.execute("LOAD DATA LOCAL INFILE '%s' INTO TABLE lc" % path) == 0
    assert info(lc).startswith(b'Records: 30000  Deleted: 0  Skipped: 30000')
    lcur.execute('SELECT COUNT(*), SUM(id) FROM lc')
    assert lcur.fetchone() == (30000, 449985000)
    # the connection is still in step
    lcur.execute('SELECT 1')
    assert lcur.fetchone() == (1,)
    lc.close()
    # a client that did not offer CLIENT_LOCAL_FILES
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA LOCAL INFILE '%s' INTO TABLE lc" % path)
    assert e.value.args[0] == 4166


def test_load_data_local_mariadb_client(target, db):
    c, name, tmp = db
    cur = c.cursor()
    cur.execute('CREATE TABLE lm (id INT PRIMARY KEY, s VARCHAR(20))')
    path = str(tmp / 'm.txt')
    with open(path, 'w') as f:
        f.write('1,one\n2,two\n3,three\n')
    r = target.cli('--local-infile=1', name, '-e',
                   "LOAD DATA LOCAL INFILE '%s' INTO TABLE lm FIELDS TERMINATED BY ','; SELECT COUNT(*) FROM lm" % path)
    assert r.stdout.split() == ['COUNT(*)', '3']
    r = target.cli('--local-infile=0', name, '-e', "LOAD DATA LOCAL INFILE '%s' INTO TABLE lm" % path, check=False)
    assert r.returncode != 0 and '4166' in r.stderr
    # compressed protocol
    r = target.cli('--local-infile=1', '--compress', name, '-e',
                   "LOAD DATA LOCAL INFILE '%s' REPLACE INTO TABLE lm FIELDS TERMINATED BY ','; SELECT COUNT(*) FROM lm"
                   % path)
    assert r.stdout.split() == ['COUNT(*)', '3']


def test_file_privilege(target, db, unique):
    c, name, tmp = db
    cur = c.cursor()
    cur.execute('CREATE TABLE p (id INT)')
    cur.execute('INSERT INTO p VALUES (1), (2)')
    user = unique('u')
    cur.execute("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % user)
    cur.execute("GRANT SELECT, INSERT ON %s.* TO '%s'@'%%'" % (name, user))
    path = str(tmp / 'priv.txt')
    with open(path, 'w') as f:
        f.write('7\n')
    u = target.connect(user=user, password='pw', database=name, local_infile=True)
    ucur = u.cursor()
    for sql, code in (("SELECT * FROM p INTO OUTFILE '%s'" % str(tmp / 'po'), 1227),
                      ("SELECT * FROM p INTO DUMPFILE '%s'" % str(tmp / 'pd'), 1227),
                      ("LOAD DATA INFILE '%s' INTO TABLE p" % path, 1045)):
        with pytest.raises(pymysql.err.OperationalError) as e:
            ucur.execute(sql)
        assert e.value.args[0] == code, sql
    # INTO @var and LOCAL need no FILE
    ucur.execute('SELECT MAX(id) INTO @m FROM p')
    assert ucur.execute("LOAD DATA LOCAL INFILE '%s' INTO TABLE p" % path) == 1
    cur.execute("GRANT FILE ON *.* TO '%s'@'%%'" % user)
    u.close()
    u = target.connect(user=user, password='pw', database=name)
    u.cursor().execute("SELECT * FROM p INTO OUTFILE '%s'" % str(tmp / 'po'))
    # REPLACE needs DELETE as well
    with pytest.raises(pymysql.err.OperationalError) as e:
        u.cursor().execute("LOAD DATA INFILE '%s' REPLACE INTO TABLE p" % path)
    assert e.value.args[0] == 1142
    u.close()
    cur.execute("DROP USER '%s'@'%%'" % user)


@pytest.mark.only('strata')
def test_loaded_rows_reach_a_mariadb_replica(fresh_strata, fresh_mariadb, tmp_path):
    """LOAD DATA (server file and LOCAL, with REPLACE, IGNORE and SET) and INSERT / DELETE ... RETURNING are
    logged as row events: a MariaDB replica of strata ends with the same rows."""
    from test_replica_replay import start_primary, attach, wait_caught_up, table_contents
    from sqlutil import run
    primary, rep = fresh_strata, fresh_mariadb
    p = start_primary(primary)
    rep.start(['--server-id=2'])
    r = rep.connect()
    attach(r, primary)
    run(p, 'CREATE DATABASE rl')
    run(p, 'CREATE TABLE rl.t (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(40), b VARBINARY(20), n INT)')
    path = str(tmp_path / 'r.txt')
    with open(path, 'wb') as f:
        for i in range(1, 2501):
            f.write(b'%d\tname\\t%d\t\\0\xff%d\t\\N\n' % (i, i, i))
    os.chmod(str(tmp_path), 0o777)
    run(p, "LOAD DATA INFILE '%s' INTO TABLE rl.t" % path)
    run(p, "LOAD DATA INFILE '%s' REPLACE INTO TABLE rl.t (id, s, @b, @n) SET n = id * 2, b = UNHEX('00')" % path)
    lc = primary.connect(database='rl', local_infile=True)
    run(lc, "LOAD DATA LOCAL INFILE '%s' INTO TABLE t (@i, s) SET id = @i + 5000" % path)
    lc.close()
    run(p, "INSERT INTO rl.t (s) VALUES ('ret1'), ('ret2') RETURNING id")
    run(p, "DELETE FROM rl.t WHERE id < 100 RETURNING id")
    st = wait_caught_up(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0], timeout=120)
    assert st['Last_SQL_Errno'] == 0 and st['Last_IO_Errno'] == 0, st
    have, want = table_contents(r, 'rl'), table_contents(p, 'rl')
    assert have == want
    assert len(want['t'][1]) == 2 * 2500 - 99 + 2


def test_mariadb_dump_tab_and_mariadb_import(target, db):
    """`mariadb-dump --tab` (SELECT ... INTO OUTFILE on the server) and `mariadb-import` (LOAD DATA, server file
    and --local, --replace) restore the same rows."""
    import subprocess
    c, name, tmp = db
    cur = c.cursor()
    make_table(cur)
    want = rows(cur)
    conn = ['--no-defaults', '-uroot', '-h', target.host, '-P', str(target.port), '--protocol=TCP']
    r = subprocess.run(['mariadb-dump'] + conn + ['--tab=' + str(tmp), name], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    cur.execute('DROP TABLE t')
    with open(str(tmp / 't.sql')) as f:
        target.cli(name, input=f.read())
    for extra in ([], ['--local', '--replace']):
        r = subprocess.run(['mariadb-import'] + conn + extra + [name, str(tmp / 't.txt')], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert 'Records: %d' % len(AWKWARD) in r.stdout
        assert rows(cur) == want


def test_load_data_null_into_not_null(db):
    c, name, tmp = db
    cur = c.cursor()
    cur.execute('CREATE TABLE nn (id INT NOT NULL, s VARCHAR(5) NOT NULL)')
    path = str(tmp / 'nn.txt')
    with open(path, 'w') as f:
        f.write('1\t\\N\n\\N\tx\n')
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE '%s' INTO TABLE nn" % path)
    assert e.value.args[0] == 1263
    cur.execute("SET sql_mode = ''")
    cur.execute("LOAD DATA INFILE '%s' INTO TABLE nn" % path)
    cur.execute('SHOW WARNINGS')
    assert [(w[1], w[2]) for w in cur.fetchall()] == [
        (1263, "Column set to default value; NULL supplied to NOT NULL column 's' at row 1"),
        (1263, "Column set to default value; NULL supplied to NOT NULL column 'id' at row 2")]
    cur.execute('SELECT * FROM nn ORDER BY id')
    assert cur.fetchall() == ((0, 'x'), (1, ''))
