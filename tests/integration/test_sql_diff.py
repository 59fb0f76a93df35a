"""The differential SQL suite (issue 4): every tests/sql/*.sql file runs statement by statement on stratad and on
the MariaDB reference (the session servers of conftest.py), and each statement's outcome must be the same on both:

  * an error: code, SQLSTATE and message;
  * a result set: column names and every value (as text-protocol bytes), in order;
  * an OK: affected rows, last insert id, the info string (`Records: n  Duplicates: n  Warnings: n`);
  * the warning count, and SHOW WARNINGS (level, code, message) when either side has warnings or an error.

One SQL file is one pytest test; a failure lists every statement that differed, with its file and line, so one
run shows all of them.  File format (tests/sql/README.md): statements end with `;` at the end of a line; lines
starting with `--` or `#` between statements are comments; a comment line `-- @name [text]` is a marker for the
next statement:

  -- @unordered          compare the rows as a multiset (no ORDER BY, and the order is not part of the test)
  -- @diff <reason>      a deliberate difference (listed in tests/sql/DIFFERENCES.md): both outcomes are recorded
                         but not compared; the test fails if the two outcomes became equal (stale marker)
  -- @meta               also compare each column's type code, flags and decimals
  -- @types              also compare each column's type code, length, flags, decimals and character set (the
                         whole column definition a driver converts values by)

Each file runs in a database of its own, `sqldiff_<file>`, created with utf8mb4_general_ci on both servers (the
Debian MariaDB build defaults to latin1; see DIFFERENCES in conftest.py) and dropped afterwards.

SQLDIFF_REPORT=path writes one line per file: `<file> <statements> <differing> <deliberate>`.
"""
import glob
import os
import re

import pytest

from rawclient import RawClient, ServerError

HERE = os.path.dirname(os.path.abspath(__file__))
SQL_DIR = os.path.join(os.path.dirname(HERE), 'sql')
FILES = sorted(glob.glob(os.path.join(SQL_DIR, '*.sql')))
MARKER_RE = re.compile(r'^\s*--\s*@(\w+)\s*(.*)$')


class Stmt:
    def __init__(self, line, text, markers):
        self.line, self.text, self.markers = line, text, markers


def parse_file(path):
    """Statements of one file, with their first line number and the markers above them."""
    out = []
    buf, start, markers = [], None, {}
    delim = ';'
    with open(path, encoding='utf-8') as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not buf:
                s = line.strip()
                m = MARKER_RE.match(line)
                if m:
                    markers[m.group(1)] = m.group(2).strip()
                    continue
                if not s or s.startswith('--') or s.startswith('#'):
                    continue
                if s.upper().startswith('DELIMITER '):
                    # the mysql client's DELIMITER: a stored routine's body keeps its own ';'
                    delim = s.split(None, 1)[1].strip()
                    continue
                start = no
            buf.append(line)
            if line.rstrip().endswith(delim):
                text = '\n'.join(buf).rstrip()[:-len(delim)].rstrip()
                out.append(Stmt(start, text, markers))
                buf, markers = [], {}
    if buf:
        out.append(Stmt(start, '\n'.join(buf), markers))
    return out


class Outcome:
    """What one statement did on one server, in a form that compares with ==."""

    def __init__(self, meta=False, unordered=False, types=False):
        self.meta, self.unordered, self.types = meta, unordered, types
        self.error = None
        self.columns = None
        self.rows = None
        self.ok = None
        self.warning_count = 0
        self.warnings = None
        self.more = []  # the results after the first (a CALL's result sets and its final OK)

    def key(self):
        rows = self.rows
        if rows is not None and self.unordered:
            rows = sorted(rows, key=lambda r: [(v is None, v or b'') for v in r])
        return (self.error, self.columns, rows, self.ok, self.warning_count, self.warnings, self.more)

    def __eq__(self, other):
        return self.key() == other.key()

    def lines(self):
        out = []
        if self.error:
            out.append('ERROR %d (%s): %s' % self.error)
        if self.columns is not None:
            out.append('columns %s' % (self.columns,))
            for r in self.rows[:30]:
                out.append('  %s' % (tuple(None if v is None else v.decode('utf-8', 'replace') for v in r),))
            if len(self.rows) > 30:
                out.append('  ... %d rows' % len(self.rows))
        if self.ok:
            out.append('OK affected=%d insert_id=%d info=%r' % self.ok)
        for m in self.more:
            out.append('then %s' % (m,))
        out.append('warnings %d' % self.warning_count)
        for w in self.warnings or ():
            out.append('  %s' % (w,))
        return out


def run_one(c, st):
    o = Outcome(meta='meta' in st.markers, unordered='unordered' in st.markers, types='types' in st.markers)
    try:
        res, err = c.query_results_until_error(st.text)
        if not res:
            raise err
        for x in res[1:]:
            if x.columns is not None:
                o.more.append(([col.name for col in x.columns], list(x.rows)))
            else:
                o.more.append(('OK', x.ok.affected_rows, x.warnings))
        if err is not None:
            o.more.append(('ERROR', err.code, err.sqlstate, err.message))
        r = res[0]
        if r.columns is not None:
            if o.types:
                o.columns = [(col.name, col.type, col.length, col.flags, col.decimals, col.charset) for col in r.columns]
            elif o.meta:
                o.columns = [(col.name, col.type, col.flags, col.decimals) for col in r.columns]
            else:
                o.columns = [col.name for col in r.columns]
            o.rows = list(r.rows)
        else:
            info = r.ok.info.decode('utf-8', 'replace') if r.ok.info else ''
            o.ok = (r.ok.affected_rows, r.ok.insert_id, info)
        o.warning_count = r.warnings
    except ServerError as e:
        o.error = (e.code, e.sqlstate, e.message)
    if o.error or o.warning_count:
        try:
            names, rows = c.query('SHOW WARNINGS')
            o.warnings = [tuple(v.decode('utf-8', 'replace') for v in row) for row in rows]
        except ServerError as e:
            o.warnings = [('SHOW WARNINGS failed', e.code, e.message)]
    return o


def connect(server, db):
    c = RawClient.connect(port=server.port)
    c.query('DROP DATABASE IF EXISTS `%s`' % db)
    c.query('CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci' % db)
    c.query('USE `%s`' % db)
    return c


def drop(server, db):
    c = RawClient.connect(port=server.port)
    try:
        c.query('DROP DATABASE IF EXISTS `%s`' % db)
    finally:
        c.close()


def report_line(name, n, bad, deliberate):
    path = os.environ.get('SQLDIFF_REPORT')
    if path:
        with open(path, 'a') as f:
            f.write('%s %d %d %d\n' % (name, n, bad, deliberate))


@pytest.mark.parametrize('path', FILES, ids=[os.path.basename(p)[:-4] for p in FILES])
def test_sql_file(strata, mariadb, path):
    name = os.path.basename(path)[:-4]
    db = 'sqldiff_' + re.sub(r'\W', '_', name)
    stmts = parse_file(path)
    assert stmts, 'no statements in %s' % path
    cs, cm = connect(strata, db), connect(mariadb, db)
    failures, deliberate = [], 0
    try:
        for st in stmts:
            a, b = run_one(cs, st), run_one(cm, st)
            where = '%s:%d' % (os.path.relpath(path, os.path.dirname(SQL_DIR)), st.line)
            if 'diff' in st.markers:
                deliberate += 1
                if a == b:
                    failures.append('%s: stale @diff marker (%s): both now give\n    %s\n    %s' % (
                        where, st.markers['diff'], st.text, '\n    '.join(a.lines())))
                continue
            if a != b:
                failures.append('%s:\n    %s\n  strata:\n    %s\n  mariadb:\n    %s' % (
                    where, st.text.replace('\n', '\n    '), '\n    '.join(a.lines()),
                    '\n    '.join(b.lines())))
    finally:
        cs.close()
        cm.close()
        drop(strata, db)
        drop(mariadb, db)
    report_line(name, len(stmts), len(failures), deliberate)
    if failures:
        pytest.fail('%d of %d statements differ:\n\n%s' % (len(failures), len(stmts), '\n\n'.join(failures)),
                    pytrace=False)
