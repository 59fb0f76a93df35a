"""The join order is chosen by cost (src/sql/plan/join.c): a FROM of inner joins is read starting from the
table that makes the fewest rows flow, whatever order FROM names them in, and STRAIGHT_JOIN keeps FROM's.
Every test runs on strata and on MariaDB with the same expectations: the order EXPLAIN shows is the one both
servers pick, the rows are the same in every order, and a prepared statement keeps its order across
executions and takes a new one after ANALYZE TABLE changed the statistics."""
import pytest

from rawclient import RawClient
from sqlutil import run


def q(c, sql, args=None):
    return [tuple(r) for r in run(c, sql, args)]


def order_of(c, sql):
    """The tables in the order EXPLAIN lists them (the order they are read)."""
    return [r[2] for r in q(c, 'EXPLAIN ' + sql)]


@pytest.fixture
def db(target, unique):
    name = unique('jo')
    c = target.connect()
    q(c, 'CREATE DATABASE %s' % name)
    q(c, 'USE %s' % name)
    # big: 20000 rows, k has 100 distinct values; small: 10 rows; mid: 5000 rows
    q(c, 'CREATE TABLE big (id INT PRIMARY KEY, k INT, pad VARCHAR(20), KEY kk (k))')
    for s in range(0, 20000, 5000):
        q(c, 'INSERT INTO big VALUES ' + ','.join("(%d, %d, 'p%d')" % (i, i % 100, i) for i in range(s, s + 5000)))
    q(c, 'CREATE TABLE small (id INT PRIMARY KEY, v INT)')
    q(c, 'INSERT INTO small VALUES ' + ','.join('(%d, %d)' % (i, i % 3) for i in range(10)))
    q(c, 'CREATE TABLE mid (id INT PRIMARY KEY, b INT, KEY kb (b))')
    q(c, 'INSERT INTO mid VALUES ' + ','.join('(%d, %d)' % (i, i * 7 % 20000) for i in range(5000)))
    q(c, 'ANALYZE TABLE big, small, mid')
    yield target, name, c
    q(c, 'DROP DATABASE %s' % name)
    c.close()


TWO = 'SELECT big.id, small.v FROM big JOIN small ON big.k = small.id WHERE small.v = 1'
TWO_COMMA = 'SELECT big.id, small.v FROM big, small WHERE big.k = small.id AND small.v = 1'
THREE = ('SELECT big.id, mid.id, small.id FROM big JOIN mid ON mid.b = big.id JOIN small ON big.k = small.id '
         'WHERE small.v = 2')


def test_small_table_read_first(db):
    _, _, c = db
    assert order_of(c, TWO) == ['small', 'big']
    assert order_of(c, TWO_COMMA) == ['small', 'big']
    ex = q(c, 'EXPLAIN ' + TWO)
    assert ex[1][3] == 'ref' and ex[1][5] == 'kk', ex  # big through its index on k, per row of small


def test_rows_same_in_every_order(db):
    _, _, c = db
    expect = sorted((i, (i % 100) % 3) for i in range(20000) if i % 100 < 10 and (i % 100) % 3 == 1)
    assert sorted(q(c, TWO)) == expect
    assert sorted(q(c, TWO_COMMA)) == expect
    assert sorted(q(c, TWO.replace('SELECT', 'SELECT STRAIGHT_JOIN', 1))) == expect
    assert sorted(q(c, 'SELECT big.id, small.v FROM big STRAIGHT_JOIN small ON big.k = small.id '
                       'WHERE small.v = 1')) == expect
    # three tables: the same rows as the order FROM names, forced
    three = sorted(q(c, THREE))
    assert three == sorted(q(c, THREE.replace('SELECT', 'SELECT STRAIGHT_JOIN', 1)))
    want = sorted((i * 7 % 20000, i, (i * 7 % 20000) % 100) for i in range(5000)
                  if (i * 7 % 20000) % 100 < 10 and ((i * 7 % 20000) % 100) % 3 == 2)
    assert three == want
    # an aggregate over a reordered join
    assert q(c, 'SELECT COUNT(*), SUM(big.id) FROM big JOIN small ON big.k = small.id WHERE small.v = 1') == \
        [(len(expect), sum(r[0] for r in expect))]


def test_straight_join_keeps_from_order(db):
    _, _, c = db
    assert order_of(c, TWO.replace('SELECT', 'SELECT STRAIGHT_JOIN', 1)) == ['big', 'small']
    assert order_of(c, 'SELECT big.id FROM big STRAIGHT_JOIN small ON big.k = small.id WHERE small.v = 1') == \
        ['big', 'small']


def test_three_tables_start_small(db):
    _, _, c = db
    order = order_of(c, THREE)
    assert order[0] == 'small', order
    assert sorted(order) == ['big', 'mid', 'small']


def test_outer_join_order_kept(db):
    _, _, c = db
    # a LEFT JOIN's inner table can't be read first
    assert order_of(c, 'SELECT big.id, small.v FROM big LEFT JOIN small ON big.k = small.id WHERE big.id < 5') == \
        ['big', 'small']
    assert sorted(q(c, 'SELECT big.id, small.id FROM big LEFT JOIN small ON big.k = small.id '
                       'WHERE big.id IN (3, 50)')) == [(3, 3), (50, None)]


def test_on_condition_across_orders(db):
    _, _, c = db
    # the ON of mid names big and small both: it holds wherever the order puts it
    sql = ('SELECT mid.id FROM mid JOIN big ON mid.b = big.id JOIN small ON small.id = big.k AND small.v + mid.id '
           '> 1000 WHERE small.v = 0')
    want = sorted((i,) for i in range(5000) if (i * 7 % 20000) % 100 < 10 and ((i * 7 % 20000) % 100) % 3 == 0
                  and i > 1000)
    assert sorted(q(c, sql)) == want
    assert sorted(q(c, sql.replace('SELECT', 'SELECT STRAIGHT_JOIN', 1))) == want
    sql2 = sql.replace('> 1000', '> 4000')
    want2 = sorted((i,) for i in range(5000) if (i * 7 % 20000) % 100 < 10 and ((i * 7 % 20000) % 100) % 3 == 0
                   and i > 4000)
    assert want2 and sorted(q(c, sql2)) == want2


def test_prepared_statement_keeps_and_replans(db):
    target, name, c = db
    p = RawClient.connect(port=target.port, db=name)
    try:
        st = p.prepare('SELECT big.id FROM big JOIN small ON big.k = small.id WHERE small.v = ? AND big.id < ?')
        for v in (0, 1, 2):
            got = sorted(r[0] for r in p.execute(st, [v, 5000])[1])
            assert got == [i for i in range(5000) if i % 100 < 10 and (i % 100) % 3 == v]
        # small grows past big: the next execution is planned again with the new statistics
        q(c, 'INSERT INTO small VALUES ' + ','.join('(%d, %d)' % (i, 5) for i in range(10, 60000)))
        q(c, 'ANALYZE TABLE small')
        got = sorted(r[0] for r in p.execute(st, [1, 5000])[1])
        assert got == [i for i in range(5000) if i % 100 < 10 and (i % 100) % 3 == 1]
        got = sorted(r[0] for r in p.execute(st, [5, 300])[1])
        assert got == [i for i in range(300) if i % 100 >= 10]
    finally:
        p.close()


def test_star_filtered_dimension_first(target, unique):
    """A fact table and four dimensions joined by their primary keys, FROM written fact first: a range on one
    dimension's unindexed column (1/3 of its rows by the guess, 1% really) makes reading that dimension first
    and the fact table through its index cheaper, on both servers; the rows are those of every written order."""
    name = unique('star')
    c = target.connect()
    q(c, 'CREATE DATABASE %s' % name)
    q(c, 'USE %s' % name)
    q(c, 'CREATE TABLE fact (id INT PRIMARY KEY, a INT, b INT, c INT, d INT, KEY ia (a))')
    q(c, 'INSERT INTO fact VALUES ' + ','.join('(%d, %d, %d, %d, %d)' % (i, i % 1000, i * 7 % 1000, i * 11 % 1000,
                                                                          i * 13 % 1000) for i in range(20000)))
    for t in ('d1', 'd2', 'd3', 'd4'):
        q(c, 'CREATE TABLE %s (id INT PRIMARY KEY, k INT)' % t)
        q(c, 'INSERT INTO %s VALUES ' % t + ','.join('(%d, %d)' % (i, i * 37 % 1000) for i in range(1000)))
    q(c, 'ANALYZE TABLE fact, d1, d2, d3, d4')
    written = ('SELECT COUNT(*), SUM(f.id) FROM fact f JOIN d4 ON d4.id = f.d JOIN d3 ON d3.id = f.c '
               'JOIN d2 ON d2.id = f.b JOIN d1 ON d1.id = f.a WHERE d1.k < 10 AND d2.k < 500')
    best = ('SELECT COUNT(*), SUM(f.id) FROM d1 JOIN fact f ON d1.id = f.a JOIN d2 ON d2.id = f.b '
            'JOIN d3 ON d3.id = f.c JOIN d4 ON d4.id = f.d WHERE d1.k < 10 AND d2.k < 500')
    plan = [r[2] for r in q(c, 'EXPLAIN ' + written)]
    rows = q(c, written)
    rows_best = q(c, best)
    rows_straight = q(c, written.replace('SELECT', 'SELECT STRAIGHT_JOIN', 1))
    q(c, 'DROP DATABASE %s' % name)
    c.close()
    assert plan[:2] == ['d1', 'f'], plan
    keep = [i for i in range(20000) if (i % 1000) * 37 % 1000 < 10 and (i * 7 % 1000) * 37 % 1000 < 500]
    assert [(int(a), int(b)) for a, b in rows] == [(len(keep), sum(keep))]
    assert rows == rows_best == rows_straight
