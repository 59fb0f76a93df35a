"""Index-only reads ("covering indexes", issue 4): a query that reads only columns a secondary index holds (its
own columns and the primary key's) is answered from the index entries without reading the rows.  Every test
runs on strata and MariaDB with the same expectations: results, EXPLAIN's "Using index", and the read views of
concurrent transactions (the index entries themselves are versioned: an index-only read must not see what its
view must not)."""
import random

import pytest

N = 300


@pytest.fixture
def cv(target, unique):
    db = unique('cv')
    c = target.connect()
    cur = c.cursor()
    cur.execute('CREATE DATABASE %s' % db)
    cur.execute('USE %s' % db)
    cur.execute('CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, s SMALLINT, d DATE, dt DATETIME(3), '
                'y YEAR, pad VARCHAR(50), KEY kk (k), KEY ksd (s, d), KEY kdt (dt, y))')
    rnd = random.Random(7)
    rows = []
    for i in range(1, N + 1):
        rows.append((i, rnd.randrange(100), rnd.choice([None, rnd.randrange(-50, 50)]),
                     '20%02d-%02d-%02d' % (rnd.randrange(30), rnd.randrange(1, 13), rnd.randrange(1, 29)),
                     '2024-01-01 00:00:%02d.%03d' % (rnd.randrange(60), rnd.randrange(1000)),
                     rnd.choice([None, 1901, 1999, 2024, 2155]), 'p%d' % i))
    cur.executemany('INSERT INTO t VALUES (%s, %s, %s, %s, %s, %s, %s)', rows)
    yield target, db, c, rows
    cur.execute('DROP DATABASE %s' % db)
    c.close()


def q(c, sql):
    cur = c.cursor()
    cur.execute(sql)
    return cur.fetchall()


def extra(c, sql):
    return q(c, 'EXPLAIN ' + sql)[0][9] or ''


def test_results_from_the_index(cv):
    target, db, c, rows = cv
    want = sorted((r[1], r[0]) for r in rows if 10 <= r[1] <= 40)
    assert [tuple(x) for x in q(c, 'SELECT k, id FROM t WHERE k BETWEEN 10 AND 40 ORDER BY k, id')] == want
    assert q(c, 'SELECT COUNT(k) FROM t WHERE k BETWEEN 10 AND 40')[0][0] == len(want)
    want = sorted((r[2], str(r[3]), r[0]) for r in rows if r[2] is not None and r[2] >= 0)
    got = q(c, 'SELECT s, d, id FROM t WHERE s >= 0 ORDER BY s, d, id')
    assert [(a, str(b), i) for a, b, i in got] == want
    got = q(c, 'SELECT k, COUNT(*), MIN(id), MAX(id) FROM t WHERE k < 20 GROUP BY k')
    byk = {}
    for r in rows:
        if r[1] < 20:
            byk.setdefault(r[1], []).append(r[0])
    assert [tuple(x) for x in got] == [(k, len(v), min(v), max(v)) for k, v in sorted(byk.items())]
    got = q(c, "SELECT y, id FROM t WHERE dt >= '2024-01-01 00:00:30' ORDER BY id")
    assert [tuple(x) for x in got] == [(r[5], r[0]) for r in rows if r[4] >= '2024-01-01 00:00:30']
    # a join whose inner side is read through its index alone
    got = q(c, 'SELECT a.id, b.id FROM t a JOIN t b ON b.k = a.id WHERE a.id <= 5 ORDER BY a.id, b.id')
    assert [tuple(x) for x in got] == sorted((r[1], r[0]) for r in rows if r[1] <= 5 and r[1] >= 1)


def test_explain_says_using_index(cv):
    target, db, c, rows = cv
    assert 'Using index' in extra(c, 'SELECT k, id FROM t WHERE k BETWEEN 10 AND 40')
    assert 'Using index' in extra(c, 'SELECT COUNT(k) FROM t WHERE k = 3')
    assert 'Using index' in extra(c, 'SELECT s, d FROM t WHERE s = 3')
    assert 'Using index' not in extra(c, 'SELECT k, pad FROM t WHERE k BETWEEN 10 AND 40')
    assert 'Using index' not in extra(c, 'SELECT * FROM t WHERE k = 3')


@pytest.mark.parametrize('iso', ['REPEATABLE READ', 'READ COMMITTED'])
def test_index_only_reads_keep_the_read_view(cv, iso):
    target, db, c, rows = cv
    a = target.connect(database=db)
    b = target.connect(database=db)
    try:
        q(a, 'SET SESSION TRANSACTION ISOLATION LEVEL ' + iso)
        sql = 'SELECT k, id FROM t WHERE k BETWEEN 0 AND 1000 ORDER BY k, id'
        assert 'Using index' in extra(a, sql)
        q(a, 'BEGIN')
        before = q(a, sql)
        # uncommitted: a new row, a deleted row, a row whose k moves
        q(b, 'BEGIN')
        q(b, "INSERT INTO t VALUES (1000, 50, NULL, NULL, NULL, NULL, 'new')")
        q(b, 'DELETE FROM t WHERE id = 1')
        q(b, 'UPDATE t SET k = k + 500 WHERE id = 2')
        assert q(a, sql) == before
        q(b, 'COMMIT')
        now = q(a, sql)
        if iso == 'REPEATABLE READ':
            assert now == before
        q(a, 'COMMIT')
        after = q(a, sql)
        exp = sorted([(r[1], r[0]) for r in rows if r[0] not in (1, 2)] + [(50, 1000), (rows[1][1] + 500, 2)])
        assert [tuple(x) for x in after] == exp
        if iso == 'READ COMMITTED':
            assert now == after
    finally:
        a.close()
        b.close()


def test_or_of_ranges_reads_the_ranges(cv):
    """sysbench's select_random_ranges shape: an OR of ranges over one indexed column is a range read of that
    index (MariaDB's range access), not a full scan; overlapping ranges give each row once."""
    target, db, c, rows = cv
    sql = 'SELECT COUNT(k) FROM t WHERE k BETWEEN 10 AND 20 OR k BETWEEN 15 AND 40 OR k = 90'
    e = q(c, 'EXPLAIN ' + sql)[0]
    assert (e[3], e[5]) == ('range', 'kk') and 'Using index' in e[9]
    assert q(c, sql)[0][0] == sum(1 for r in rows if 10 <= r[1] <= 40 or r[1] == 90)
    e = q(c, 'EXPLAIN SELECT pad FROM t WHERE id < 3 OR id BETWEEN 100 AND 102 OR id = 250')[0]
    assert (e[3], e[5]) == ('range', 'PRIMARY')
    got = q(c, 'SELECT id FROM t WHERE id < 3 OR id BETWEEN 100 AND 102 OR id = 250 ORDER BY id DESC')
    assert [x[0] for x in got] == [250, 102, 101, 100, 2, 1]
