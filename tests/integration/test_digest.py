"""Statement digests: performance_schema.events_statements_summary_by_digest against MariaDB 10.11 started
with --performance-schema=ON (the fixtures' MariaDB runs with it OFF, so every test here has its own server).

The expectations are MariaDB's: DIGEST_TEXT of a normalization matrix, COUNT_STAR and the sums, TRUNCATE,
the lost-digest row and Performance_schema_digest_lost with a tiny performance_schema_digests_size, SHOW
WARNINGS on top of seed 000's workload, privileges.  The DIGEST hash differs (strata hashes its text, MariaDB
its token array) and strata adds QUANTILE_95 / QUANTILE_99 after LAST_SEEN (DIFFERENCES 'digest_columns')."""
import pymysql
import pytest

import conftest

PFS = ['--performance-schema=ON']
TABLE = 'performance_schema.events_statements_summary_by_digest'

# statement -> MariaDB 10.11's DIGEST_TEXT
MATRIX = [
    ("select 1", "SELECT ? "),
    ("SELECT   a , b FROM t   WHERE a = 5 AND b='x' -- comment\n", "SELECT `a` , `b` FROM `t` WHERE `a` = ? AND `b` = ? "),
    ("select * from t where a in (1,2,3)", "SELECT * FROM `t` WHERE `a` IN (...) "),
    ("select * from t where a in (7)", "SELECT * FROM `t` WHERE `a` IN (?) "),
    ("insert into t values (11,'a',1.5),(12,'b',2.5),(13,'c',3e5)", "INSERT INTO `t` VALUES (...) /* , ... */ "),
    ("insert into t (a,b) values (21,'x'),(22,'y') on duplicate key update b='z'",
     "INSERT INTO `t` ( `a` , `b` ) VALUES (...) /* , ... */ ON DUPLICATE KEY UPDATE `b` = ? "),
    ("update t set b = 'q' where a = -1", "UPDATE `t` SET `b` = ? WHERE `a` = - ? "),
    ("select -1, +2, - 3, 1 - 2, a-1 from t", "SELECT ?, ... - ? , `a` - ? FROM `t` "),
    ("select /* hi */ `a` from `t` where b like 'x%' limit 10", "SELECT `a` FROM `t` WHERE `b` LIKE ? LIMIT ? "),
    ("select a from t where b = \"dq\" order by a desc limit 5, 10",
     "SELECT `a` FROM `t` WHERE `b` = ? ORDER BY `a` DESC LIMIT ?, ... "),
    ("select @a, @@version, @@session.sql_mode", "SELECT @? , @@`version` , @@SESSION . `sql_mode` "),
    ("select count(*), sum(a) from t group by b having count(*) > 1",
     "SELECT COUNT ( * ) , SUM ( `a` ) FROM `t` GROUP BY `b` HAVING COUNT ( * ) > ? "),
    ("select null, true, false from dual", "SELECT ? , TRUE , FALSE FROM DUAL "),
    ("delete from t where a between 100 and 200", "DELETE FROM `t` WHERE `a` BETWEEN ? AND ? "),
    ("select * from t where (a, b) in ((1,'a'),(2,'b'))",
     "SELECT * FROM `t` WHERE ( `a` , `b` ) IN ( (...) /* , ... */ ) "),
    ("select now(), concat('a', b), cast(a as char), database() from t",
     "SELECT NOW ( ) , `concat` ( ? , `b` ) , CAST ( `a` AS CHARACTER ) , SCHEMA ( ) FROM `t` "),
    ("select distinct a from t where a <> 1 and b is not null", "SELECT DISTINCTROW `a` FROM `t` WHERE `a` != ? AND `b` IS NOT NULL "),
    ("select 0x41, b'101', N'nat', 1.5e3, _utf8mb4'x'", "SELECT ?, ... , (_charset) ? "),
    ("set @a = 5", "SET @? = ? "),
    ("/*!40101 select 5 */", "SELECT ? "),
    ("show warnings", "SHOW WARNINGS "),
]


def rows(c, where='', args=None):
    cur = c.cursor()
    cur.execute('SELECT SCHEMA_NAME, DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_ERRORS, SUM_WARNINGS, SUM_ROWS_AFFECTED, '
                'SUM_ROWS_SENT, SUM_ROWS_EXAMINED, SUM_NO_INDEX_USED, SUM_TIMER_WAIT, MIN_TIMER_WAIT, '
                'AVG_TIMER_WAIT, MAX_TIMER_WAIT, FIRST_SEEN, LAST_SEEN FROM %s %s' % (TABLE, where), args)
    return {r[2]: r for r in cur.fetchall()}


def setup_db(c):
    cur = c.cursor()
    cur.execute('CREATE DATABASE d1')
    cur.execute('USE d1')
    cur.execute('CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(20), c DOUBLE)')
    cur.execute("INSERT INTO t VALUES (1,'a',1),(2,'b',2),(3,'c',3)")
    cur.execute('TRUNCATE TABLE %s' % TABLE)
    return cur


@pytest.mark.fresh_opts(*PFS)
def test_digest_text_matrix(fresh_target):
    c = fresh_target.connect()
    cur = setup_db(c)
    for sql, _ in MATRIX:
        cur.execute(sql)
        cur.fetchall()
    got = rows(c)
    for sql, want in MATRIX:
        assert want in got, 'digest of %r: %r not among %r' % (sql, want, sorted(got))
        assert got[want][0] == 'd1'
    assert got['SELECT ? '][3] == 2  # select 1 and /*!40101 select 5 */
    c.close()


@pytest.mark.fresh_opts(*PFS)
def test_counts_sums_and_columns(fresh_target):
    c = fresh_target.connect()
    cur = setup_db(c)
    for i in range(5):
        cur.execute('SELECT * FROM t WHERE a = %d' % (i % 3 + 1))
    cur.execute('SELECT * FROM t')                            # a full scan: 3 rows sent
    cur.execute("UPDATE t SET b = 'z' WHERE a IN (1, 2)")    # 2 affected
    cur.execute("SELECT CAST('x' AS SIGNED)")                # 1 warning
    with pytest.raises(pymysql.err.ProgrammingError):
        cur.execute('SELECT * FROM nosuch')                  # an error
    r = rows(c)
    point = r['SELECT * FROM `t` WHERE `a` = ? ']
    assert point[3] == 5 and point[7] == 5 and point[9] == 0 and point[4] == 0
    assert point[11] <= point[12] <= point[13] <= point[10] and point[11] > 0  # MIN <= AVG <= MAX <= SUM
    assert point[14] <= point[15]
    scan = r['SELECT * FROM `t` ']
    assert scan[3] == 1 and scan[7] == 3 and scan[8] == 3 and scan[9] == 1
    assert r["UPDATE `t` SET `b` = ? WHERE `a` IN (...) "][6] == 2
    assert r['SELECT CAST ( ? AS SIGNED ) '][5] == 1 and r['SELECT CAST ( ? AS SIGNED ) '][4] == 0
    err = r['SELECT * FROM `nosuch` ']
    assert err[4] == 1 and err[5] == 0
    # a virtual table like information_schema's: WHERE, ORDER BY, LIMIT
    cur.execute('SELECT DIGEST_TEXT, COUNT_STAR FROM %s WHERE COUNT_STAR > 1 AND SCHEMA_NAME = %%s '
                'ORDER BY COUNT_STAR DESC LIMIT 1' % TABLE, ('d1',))
    assert cur.fetchall() == (('SELECT * FROM `t` WHERE `a` = ? ', 5),)
    cur.execute('SELECT * FROM %s LIMIT 1' % TABLE)
    names = [d[0] for d in cur.description]
    assert names[:3] == ['SCHEMA_NAME', 'DIGEST', 'DIGEST_TEXT'] and names[27:29] == ['FIRST_SEEN', 'LAST_SEEN']
    assert names[8:11] == ['SUM_LOCK_TIME', 'SUM_ERRORS', 'SUM_WARNINGS'] and names[26] == 'SUM_NO_GOOD_INDEX_USED'
    assert names[29:] == fresh_target.differs('digest_columns')
    c.close()


@pytest.mark.fresh_opts(*PFS)
def test_truncate(fresh_target):
    c = fresh_target.connect()
    cur = setup_db(c)
    cur.execute('SELECT 1')
    assert 'SELECT ? ' in rows(c)
    cur.execute('TRUNCATE TABLE %s' % TABLE)
    assert list(rows(c)) == ['TRUNCATE TABLE `performance_schema` . `events_statements_summary_by_digest` ']
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        cur.execute('SELECT * FROM performance_schema.no_such_table')
    assert e.value.args[0] == 1146
    c.close()


@pytest.mark.fresh_opts(*(PFS + ['--performance-schema-digests-size=3']))
def test_lost_digests_counted(fresh_target):
    c = fresh_target.connect()
    cur = setup_db(c)                 # TRUNCATE last: its own row is the first
    cur.execute("SHOW GLOBAL STATUS LIKE 'Performance_schema_digest_lost'")
    lost0 = int(cur.fetchall()[0][1])
    for i in range(6):                # 6 distinct digests, 2 fit
        cur.execute('SELECT %s FROM t' % ', '.join(['a'] * (i + 1)))
    cur.execute("SHOW GLOBAL STATUS LIKE 'Performance_schema_digest_lost'")
    lost = int(cur.fetchall()[0][1]) - lost0
    r = rows(c)
    assert len([k for k in r if k is not None]) == 2  # the lost row takes one of the 3
    assert None in r, 'the row of lost digests (SCHEMA_NAME, DIGEST and DIGEST_TEXT NULL)'
    assert r[None][0] is None and r[None][1] is None
    assert lost >= 4 and r[None][3] >= 4  # (MariaDB's counter and its row differ by one; strata's agree)
    c.close()


@pytest.mark.fresh_opts(*PFS)
def test_show_warnings_flood_is_top_digest(fresh_target):
    """Seed 000: an ORM sends SHOW WARNINGS after every statement; over the compressed protocol too."""
    import MySQLdb
    for compress in (False, True):
        if compress:  # PyMySQL has no protocol compression
            c = MySQLdb.connect(host=fresh_target.host, port=fresh_target.port, user=fresh_target.user,
                                passwd=fresh_target.password or '', compress=True, autocommit=True)
        else:
            c = fresh_target.connect()
        cur = c.cursor()
        if not compress:
            setup_db(c)
        cur.execute('USE d1')
        for i in range(50):
            for sql in ('SELECT b FROM t WHERE a = %d' % (i % 3 + 1), "UPDATE t SET c = c + 1 WHERE a = 1",
                        "SELECT CAST('%dx' AS SIGNED)" % i):
                cur.execute(sql)
                cur.fetchall()
                cur.execute('SHOW WARNINGS')
                cur.fetchall()
        c.close()
    c = fresh_target.connect()
    cur = c.cursor()
    cur.execute('SELECT DIGEST_TEXT, COUNT_STAR FROM %s ORDER BY COUNT_STAR DESC LIMIT 2' % TABLE)
    top = cur.fetchall()
    assert top[0] == ('SHOW WARNINGS ', 300) and top[1][1] == 100
    c.close()


@pytest.mark.fresh_opts(*PFS)
def test_privileges_and_show_databases(fresh_target, unique):
    c = fresh_target.connect()
    cur = c.cursor()
    cur.execute('SHOW DATABASES')
    assert ('performance_schema',) in cur.fetchall()
    u = unique('pfs')
    cur.execute("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'" % u)
    o = fresh_target.connect(user=u, password='pw')
    oc = o.cursor()
    for sql in ('SELECT * FROM %s' % TABLE, 'TRUNCATE TABLE %s' % TABLE):
        with pytest.raises(pymysql.err.OperationalError) as e:
            oc.execute(sql)
        assert e.value.args[0] == 1142, sql
    cur.execute("GRANT SELECT ON performance_schema.* TO '%s'@'%%'" % u)
    o.close()
    o = fresh_target.connect(user=u, password='pw')
    oc = o.cursor()
    oc.execute('SELECT COUNT(*) FROM %s' % TABLE)
    assert oc.fetchall()[0][0] > 0
    with pytest.raises(pymysql.err.OperationalError) as e:
        oc.execute('TRUNCATE TABLE %s' % TABLE)  # TRUNCATE needs DROP
    assert e.value.args[0] == 1142
    o.close()
    c.close()


def test_strata_default_on(strata):
    """strata records digests by default (performance_schema=ON, DIFFERENCES 'default_variables'); MariaDB's
    default is OFF."""
    c = strata.connect()
    cur = c.cursor()
    cur.execute('SELECT @@performance_schema, @@performance_schema_digests_size, @@performance_schema_max_digest_length')
    assert cur.fetchall() == ((1, 5000, 1024),)
    cur.execute("SELECT 'digest-default-on'")
    cur.execute('SELECT COUNT_STAR FROM %s WHERE DIGEST_TEXT = %%s' % TABLE, ('SELECT ? ',))
    assert cur.fetchall()[0][0] >= 1
    c.close()
