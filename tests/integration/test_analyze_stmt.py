"""ANALYZE SELECT: the query is run (its rows are not sent) and the plan comes back with MariaDB's measured
columns: r_rows (rows read per scan of each table), filtered and r_filtered (the share of the rows read that went
on).  Single-table figures are compared with MariaDB 10.11's own; in a join strata evaluates WHERE at the last
table (MariaDB pushes each part to the first table where it can be evaluated), so there the figures are strata's
and checked for what they must mean."""
import pytest


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()], [d[0] for d in cur.description or ()]


@pytest.fixture
def db(target, unique):
    name = unique('an')
    c = target.connect()
    q(c, 'CREATE DATABASE %s' % name)
    q(c, 'USE %s' % name)
    q(c, 'CREATE TABLE t (id INT PRIMARY KEY, k INT, v INT, KEY kk (k))')
    q(c, 'INSERT INTO t VALUES ' + ','.join('(%d, %d, %d)' % (i, i % 10, i % 7) for i in range(100)))
    q(c, 'ANALYZE TABLE t')
    yield target, c
    q(c, 'DROP DATABASE %s' % name)
    c.close()


COLS = ['id', 'select_type', 'table', 'type', 'possible_keys', 'key', 'key_len', 'ref', 'rows', 'r_rows',
        'filtered', 'r_filtered', 'Extra']


def test_columns_and_full_scan(db):
    target, c = db
    rows, cols = q(c, 'ANALYZE SELECT * FROM t WHERE v = 3')
    assert cols == COLS
    assert len(rows) == 1
    r = dict(zip(cols, rows[0]))
    assert (r['table'], r['type'], r['Extra']) == ('t', 'ALL', 'Using where')
    assert float(r['r_rows']) == 100.0
    # 14 of the 100 rows have v = 3
    assert float(r['r_filtered']) == 14.0, r


def test_index_lookup(db):
    target, c = db
    rows, cols = q(c, 'ANALYZE SELECT * FROM t WHERE k = 3')
    r = dict(zip(cols, rows[0]))
    assert (r['type'], r['key']) == ('ref', 'kk'), r
    assert float(r['r_rows']) == 10.0 and float(r['r_filtered']) == 100.0, r


def test_rows_not_sent_and_nothing_changed(db):
    target, c = db
    rows, cols = q(c, 'ANALYZE SELECT id FROM t ORDER BY v LIMIT 5')
    assert len(rows) == 1 and cols == COLS
    assert q(c, 'SELECT COUNT(*) FROM t')[0] == [(100,)]


def test_analyze_update_refused_or_run(db):
    """MariaDB's ANALYZE UPDATE changes the rows; strata refuses it (1235) rather than explain without running."""
    target, c = db
    if target.kind == 'mariadb':
        pytest.skip('MariaDB runs it')
    import pymysql
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, 'ANALYZE UPDATE t SET v = 0 WHERE k = 1')
    assert e.value.args[0] == 1235
    assert q(c, 'SELECT COUNT(*) FROM t WHERE v = 0')[0] == [(15,)]


def test_join(strata, unique):
    name = unique('an')
    c = strata.connect()
    q(c, 'CREATE DATABASE %s' % name)
    q(c, 'USE %s' % name)
    try:
        q(c, 'CREATE TABLE a (id INT PRIMARY KEY, b INT)')
        q(c, 'CREATE TABLE b (id INT PRIMARY KEY, x INT)')
        q(c, 'INSERT INTO a VALUES ' + ','.join('(%d, %d)' % (i, i % 5) for i in range(20)))
        q(c, 'INSERT INTO b VALUES ' + ','.join('(%d, %d)' % (i, i % 2) for i in range(5)))
        rows, cols = q(c, 'ANALYZE SELECT * FROM a JOIN b ON b.id = a.b WHERE b.x = 1')
        ra, rb = (dict(zip(cols, r)) for r in rows)
        assert (ra['table'], rb['table']) == ('a', 'b')
        assert float(ra['r_rows']) == 20.0 and float(ra['r_filtered']) == 100.0
        # b is looked up once per row of a (20 scans, one row each), and WHERE b.x = 1 keeps a.b in (1, 3)
        assert rb['type'] == 'eq_ref' and float(rb['r_rows']) == 1.0, rb
        assert float(rb['r_filtered']) == 40.0, rb
    finally:
        q(c, 'DROP DATABASE %s' % name)
        c.close()


def test_explain_extended_and_partitions(db):
    """EXPLAIN EXTENDED adds `filtered`, EXPLAIN PARTITIONS adds `partitions` (NULL: no partitioning), as MariaDB
    10.11 shows them.  (MariaDB's EXTENDED also leaves a note 1003 with its rewritten query, which strata does
    not write: tests/sql/DIFFERENCES.md.)"""
    target, c = db
    rows, cols = q(c, 'EXPLAIN EXTENDED SELECT * FROM t WHERE k = 3')
    assert cols == ['id', 'select_type', 'table', 'type', 'possible_keys', 'key', 'key_len', 'ref', 'rows',
                    'filtered', 'Extra']
    r = dict(zip(cols, rows[0]))
    assert float(r['filtered']) == 100.0 and r['key'] == 'kk'
    rows, cols = q(c, 'EXPLAIN PARTITIONS SELECT * FROM t WHERE k = 3')
    assert cols == ['id', 'select_type', 'table', 'partitions', 'type', 'possible_keys', 'key', 'key_len', 'ref',
                    'rows', 'Extra']
    assert dict(zip(cols, rows[0]))['partitions'] is None


def explain_json(c, sql):
    import json
    rows, cols = q(c, 'EXPLAIN FORMAT=JSON ' + sql)
    assert cols == ['EXPLAIN'] and len(rows) == 1
    return json.loads(rows[0][0])


def test_explain_format_json(db):
    """EXPLAIN FORMAT=JSON: MariaDB's document (query_block, nested_loop of tables with access_type, keys,
    used_key_parts, ref, rows, filtered, attached_condition; ORDER BY by a sort wrapped in read_sorted_file)."""
    target, c = db
    t = explain_json(c, 'SELECT * FROM t WHERE k = 3')['query_block']
    assert t['select_id'] == 1
    tab = t['nested_loop'][0]['table']
    assert {k: tab[k] for k in ('table_name', 'access_type', 'possible_keys', 'key', 'key_length', 'used_key_parts',
                                'ref')} == {'table_name': 't', 'access_type': 'ref', 'possible_keys': ['kk'],
                                            'key': 'kk', 'key_length': '5', 'used_key_parts': ['k'],
                                            'ref': ['const']}
    assert tab['rows'] == 10 and tab['filtered'] == 100
    tab = explain_json(c, 'SELECT * FROM t WHERE v = 3')['query_block']['nested_loop'][0]['table']
    assert tab['access_type'] == 'ALL' and tab['rows'] == 100
    # MariaDB prints the condition in its own normalized form (t.v = 3); strata as it was written
    assert tab['attached_condition'].replace('t.', '') == 'v = 3'
    assert explain_json(c, 'SELECT 1')['query_block']['table'] == {'message': 'No tables used'}
    fs = explain_json(c, 'SELECT * FROM t ORDER BY v')['query_block']['nested_loop'][0]['read_sorted_file']['filesort']
    assert fs['sort_key'].replace('t.', '') == 'v' and fs['table']['table_name'] == 't'
    import pymysql
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, 'EXPLAIN FORMAT=foo SELECT 1')
    assert e.value.args == (1791, "Unknown EXPLAIN/ANALYZE format name: 'foo'")
    rows, cols = q(c, 'EXPLAIN FORMAT=TRADITIONAL SELECT * FROM t WHERE k = 3')
    assert len(cols) == 10 and rows[0][5] == 'kk'
