"""REGEXP on PCRE2 beyond what tests/sql/regexp.sql compares: patterns that backtrack without end stop at the
match limit (warning 1139, no match) in bounded time and the server keeps serving; a constant pattern over many
rows, and a pattern that changes per row, give MariaDB's results; prepared statements bind subject and
pattern."""
import time

import pytest

from rawclient import RawClient, ServerError


@pytest.fixture
def c(target):
    cl = RawClient.connect(port=target.port)
    yield cl
    cl.close()


def rows(c, sql):
    return c.query(sql)[1]


def test_pathological_patterns_return(c):
    for subj, pat in (("CONCAT(REPEAT('a', 60), 'b')", '^(a|aa)+$'),
                      ("CONCAT(REPEAT('a', 5000), 'X')", '^(a*)*$'),
                      ("REPEAT('ab', 3000)", '^(?:(ab)*)*c')):
        t0 = time.monotonic()
        assert rows(c, "SELECT %s REGEXP '%s'" % (subj, pat)) == [(b'0',)]
        assert time.monotonic() - t0 < 20
        w = rows(c, 'SHOW WARNINGS')
        assert [(r[0], r[1]) for r in w] in ([(b'Warning', b'1139')], []), w
        if w:
            assert w[0][2].startswith(b'Regex error')
    assert rows(c, "SELECT 'still' REGEXP 'st'") == [(b'1',)]


def test_constant_and_per_row_patterns(c):
    c.query('CREATE DATABASE IF NOT EXISTS rx_rows')
    c.query('USE rx_rows')
    c.query('DROP TABLE IF EXISTS t')
    c.query('CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), p VARCHAR(20)) DEFAULT CHARSET=utf8mb4')
    vals = ', '.join("(%d, 'x%dy', '^x%d')" % (i, i, i % 13) for i in range(1, 1501))
    c.query('INSERT INTO t VALUES ' + vals)
    assert rows(c, "SELECT COUNT(*) FROM t WHERE s REGEXP '^x1[0-9]*5y$'") == [(b'61',)]
    assert rows(c, 'SELECT COUNT(*) FROM t WHERE s REGEXP p') == [(b'152',)]
    assert rows(c, "SELECT SUM(REGEXP_INSTR(s, '[0-9]+')), MAX(REGEXP_REPLACE(s, '([0-9])', '<\\\\1>'))"
                   " FROM t") == [(b'3000', b'x<9>y')]
    c.query('DROP DATABASE rx_rows')


def test_bad_pattern_per_row_fails_statement(c):
    with pytest.raises(ServerError) as ei:
        c.query("SELECT 'a' REGEXP CONCAT('(', 'x')")
    assert ei.value.code == 1139
    assert ei.value.message == "Regex error 'missing closing parenthesis at offset 2'"
    assert rows(c, "SELECT 'a' REGEXP 'a'") == [(b'1',)]
