"""Collation derivation and coercibility against MariaDB 10.11, cell by cell.

Every pair of operand kinds (explicit COLLATE, columns of each supported collation, a binary column, function
results, literals of ASCII and non-ASCII text, NULL, system constants, a number) meets in every operator that
aggregates collations (=, <, LIKE, IN, BETWEEN, CONCAT, CASE, COALESCE, IF, GREATEST, REPLACE), and
COLLATION() / COERCIBILITY() of the results.  Each cell's outcome -- the rows, or the error code and message
(1267 / 1270 / 1271 with MariaDB's operation name) -- must be the same on stratad and on MariaDB.
"""
import itertools

import pymysql
import pytest

DB = 'coll_matrix'

# The table every cell reads: one column per collation strata supports (sql/value/value.c), a binary one, and rows
# that differ only by case and accent, so _ci, _bin and binary comparisons give different answers.
TABLE = ('CREATE TABLE w (id INT PRIMARY KEY, '
         'ci VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, '
         'cs VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, '
         'uc VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, '
         'u3 VARCHAR(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci, '
         'u3b VARCHAR(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_bin, '
         'l1 VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_swedish_ci, '
         'lb VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_bin, '
         'asc_ VARCHAR(10) CHARACTER SET ascii COLLATE ascii_general_ci, '
         'bin VARBINARY(10), KEY (ci), KEY (cs))')
ROWS = [(1, 'a'), (2, 'A'), (3, '\u00e9'), (4, 'E')]

OPERANDS = {
    'explicit_bin': 'ci COLLATE utf8mb4_bin',
    'explicit_l1': 'l1 COLLATE latin1_bin',
    'col_ci': 'ci',
    'col_bin': 'cs',
    'col_unicode': 'uc',
    'col_utf8mb3': 'u3',
    'col_utf8mb3_bin': 'u3b',
    'col_latin1': 'l1',
    'col_latin1_bin': 'lb',
    'col_ascii': 'asc_',
    'col_binary': 'bin',
    'func_ci': 'CONCAT(ci)',
    'func_latin1': 'UPPER(l1)',
    'literal': "'a'",
    'literal_accent': "'\u00e9'",
    'literal_cjk': "'\u65e5'",
    'null': 'NULL',
    'sysconst': 'DATABASE()',
    'number': '1',
}

# {x}, {y}: the two operands of a cell
BINARY_CELLS = {
    'eq': 'SELECT id, {x} = {y} FROM w ORDER BY id',
    'lt': 'SELECT id, {x} < {y} FROM w ORDER BY id',
    'like': 'SELECT id, {x} LIKE {y} FROM w ORDER BY id',
    'in': 'SELECT id, {x} IN ({y}, \'z\') FROM w ORDER BY id',
    'between': 'SELECT id, {x} BETWEEN {y} AND \'b\' FROM w ORDER BY id',
    'concat': 'SELECT id, CONCAT({x}, {y}) = \'aa\', COLLATION(CONCAT({x}, {y})), '
              'COERCIBILITY(CONCAT({x}, {y})) FROM w ORDER BY id',
    'case': 'SELECT id, COLLATION(CASE WHEN id > 2 THEN {x} ELSE {y} END), '
            'COERCIBILITY(CASE WHEN id > 2 THEN {x} ELSE {y} END) FROM w ORDER BY id',
    'coalesce': 'SELECT id, COLLATION(COALESCE({x}, {y})), COERCIBILITY(COALESCE({x}, {y})) FROM w ORDER BY id',
    'if': 'SELECT id, COLLATION(IF(id > 2, {x}, {y})) FROM w ORDER BY id',
    'greatest': 'SELECT id, GREATEST({x}, {y}) = \'a\' FROM w ORDER BY id',
    'replace': 'SELECT id, COLLATION(REPLACE({x}, {y}, \'z\')) FROM w ORDER BY id',
}
UNARY_CELLS = {
    'collation': 'SELECT id, COLLATION({x}), COERCIBILITY({x}) FROM w ORDER BY id',
}


def connect(server):
    return server.connect(charset='utf8mb4')


def load_table(server):
    c = connect(server)
    cur = c.cursor()
    cur.execute('DROP DATABASE IF EXISTS ' + DB)
    cur.execute('CREATE DATABASE %s CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci' % DB)
    cur.execute('USE ' + DB)
    cur.execute(TABLE)
    for i, v in ROWS:
        a = 'e' if v == '\u00e9' else v
        u = v
        cur.execute('INSERT INTO w VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)',
                    (i, v, v, u, v, v, v, v, a, v.encode()))
    return c


def outcome(cur, sql):
    try:
        cur.execute(sql)
        rows = cur.fetchall()
        return ('rows', tuple(tuple(x.decode('utf8', 'replace') if isinstance(x, bytes) else x for x in r)
                              for r in rows))
    except pymysql.MySQLError as e:
        return ('error', e.args[0], e.args[1] if len(e.args) > 1 else '')
    except ValueError as e:  # a value that does not parse as its column's type
        cur.connection.ping(reconnect=True)
        cur.execute('USE ' + DB)
        return ('undecodable', str(e))


def cells():
    for (name, tmpl), (xn, x) in itertools.product(UNARY_CELLS.items(), OPERANDS.items()):
        yield '%s(%s)' % (name, xn), tmpl.format(x=x)
    for (name, tmpl), (xn, x), (yn, y) in itertools.product(BINARY_CELLS.items(), OPERANDS.items(),
                                                           OPERANDS.items()):
        yield '%s(%s, %s)' % (name, xn, yn), tmpl.format(x=x, y=y)


def test_collation_matrix(strata, mariadb):
    s, m = load_table(strata), load_table(mariadb)
    cs, cm = s.cursor(), m.cursor()
    bad = []
    n = 0
    for label, sql in cells():
        n += 1
        a, b = outcome(cs, sql), outcome(cm, sql)
        if a != b:
            bad.append('%s: %s\n    strata:  %r\n    mariadb: %r' % (label, sql, a, b))
    s.close()
    m.close()
    assert not bad, '%d of %d cells differ:\n%s' % (len(bad), n, '\n'.join(bad))
