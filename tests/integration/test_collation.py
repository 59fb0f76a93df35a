"""Collation weights against MariaDB 10.11, exhaustively (issue 4).

Every BMP code point (surrogates aside) and a few beyond it go into a utf8mb4_general_ci (and a utf8mb3_general_ci)
column on stratad and on the MariaDB reference; every byte into a latin1_swedish_ci one.  Then, on both servers:

  * GROUP BY the column, ORDER BY it: the classes of equal characters and their order must be the same (this
    reads strata's sort keys, rowcodec.c, the same bytes its indexes hold);
  * the same through the column's index (FORCE INDEX, ORDER BY the indexed column);
  * STRCMP of each class's first member with the next class's first member and with the other members of its
    class (value_collate_cmp, the comparison every predicate uses): -1 and 0 where MariaDB says so.

strata's weights come from scripts/gen_collation.py (the Unicode data, not MariaDB's tables); this test is what
proves the rule.
"""
import pymysql
import pytest

DB = 'coll_bmp'


def bmp_points():
    pts = [cp for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF]
    return pts + [0x10000, 0x1F600, 0x1F601, 0x10FFFF]


def connect(server):
    return pymysql.connect(host='127.0.0.1', port=server.port, user='root', password=server.password or '',
                           charset='utf8mb4', autocommit=True)


def load(conn, charset, coll, points, enc):
    cur = conn.cursor()
    cur.execute('DROP DATABASE IF EXISTS %s' % DB)
    cur.execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % DB)
    cur.execute('USE %s' % DB)
    cur.execute('CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(2) CHARACTER SET %s COLLATE %s, KEY kc (c))'
                % (charset, coll))
    for i in range(0, len(points), 2000):
        chunk = points[i:i + 2000]
        cur.execute('INSERT INTO t VALUES ' + ','.join(
            "(%d, CONVERT(X'%s' USING %s))" % (cp, enc(cp).hex(), charset) for cp in chunk))
    return cur


def classes(cur, index):
    """GROUP BY classes in order (lists of code points), or with index=True the ids as the index orders them."""
    if index:
        cur.execute('SELECT id FROM t FORCE INDEX (kc) WHERE c IS NOT NULL ORDER BY c')
        return [r[0] for r in cur.fetchall()]
    cur.execute('SET SESSION group_concat_max_len = 65536')
    cur.execute('SELECT GROUP_CONCAT(id ORDER BY id) FROM t GROUP BY c ORDER BY c')
    out = []
    for (v,) in cur.fetchall():
        v = v.decode() if isinstance(v, bytes) else v
        out.append([int(x) for x in v.split(',')])
    return out


def strcmp_pairs(cur, charset, groups, enc):
    """STRCMP for (first of class i, first of class i+1) and (first of class i, every other member)."""
    pairs = []
    for i, g in enumerate(groups):
        if i + 1 < len(groups):
            pairs.append((g[0], groups[i + 1][0]))
        pairs.extend((g[0], m) for m in g[1:])
    res = []
    for i in range(0, len(pairs), 1000):
        chunk = pairs[i:i + 1000]
        cur.execute('SELECT ' + ','.join(
            "STRCMP(CONVERT(X'%s' USING %s), CONVERT(X'%s' USING %s))" % (enc(a).hex(), charset, enc(b).hex(), charset)
            for a, b in chunk))
        res.extend(int(v) for v in cur.fetchone())
    return pairs, res


def utf8(cp):
    return chr(cp).encode('utf-8')


def latin1(b):
    return bytes([b])


CASES = [
    ('utf8mb4', 'utf8mb4_general_ci', bmp_points, utf8),
    ('utf8mb4', 'utf8mb4_unicode_ci', bmp_points, utf8),
    ('utf8mb4', 'utf8mb4_unicode_520_ci', bmp_points, utf8),
    ('utf8mb4', 'utf8mb4_uca1400_ai_ci', bmp_points, utf8),
    ('utf8mb3', 'utf8mb3_unicode_520_ci', lambda: [cp for cp in bmp_points() if cp < 0x10000], utf8),
    ('utf8mb3', 'utf8mb3_general_ci', lambda: [cp for cp in bmp_points() if cp < 0x10000], utf8),
    ('latin1', 'latin1_swedish_ci', lambda: list(range(256)), latin1),
]


@pytest.mark.parametrize('charset,coll,points,enc', CASES, ids=[c[1] for c in CASES])
def test_collation_matches_mariadb(strata, mariadb, charset, coll, points, enc):
    pts = points()
    got = {}
    for name, server in (('strata', strata), ('mariadb', mariadb)):
        conn = connect(server)
        try:
            cur = load(conn, charset, coll, pts, enc)
            groups = classes(cur, False)
            by_index = classes(cur, True)
            pairs, cmp = strcmp_pairs(cur, charset, groups, enc)
            cur.execute('DROP DATABASE %s' % DB)
        finally:
            conn.close()
        got[name] = (groups, by_index, pairs, cmp)
    sg, si, sp, sc = got['strata']
    mg, mi, mp, mc = got['mariadb']
    assert len(mg) > 1000 or charset == 'latin1'
    # the classes and their order
    if sg != mg:
        diffs = [(i, a, b) for i, (a, b) in enumerate(zip(sg, mg)) if a != b][:10]
        pytest.fail('%s: %d classes on strata, %d on MariaDB; first differences (index, strata, mariadb): %s'
                    % (coll, len(sg), len(mg), diffs))
    # the index order: rows in the same class may come in any order, so compare class by class
    pos = {cp: i for i, g in enumerate(mg) for cp in g}
    assert [pos[cp] for cp in si] == sorted(pos[cp] for cp in si), 'strata index order differs from the classes'
    assert [pos[cp] for cp in mi] == sorted(pos[cp] for cp in mi)
    # value comparison: strata's STRCMP of MariaDB's pairs equals MariaDB's
    assert sp == mp
    bad = [(hex(a), hex(b), x, y) for (a, b), x, y in zip(sp, sc, mc) if x != y][:10]
    assert not bad, '%s: STRCMP differs (a, b, strata, mariadb): %s' % (coll, bad)
    if 'unicode' not in coll and 'uca' not in coll:
        assert set(mc) <= {-1, 0}  # (MariaDB's own UCA sort and STRCMP disagree on a few pairs; strata as MariaDB)


UCA = ['utf8mb4_unicode_ci', 'utf8mb4_unicode_520_ci', 'utf8mb4_uca1400_ai_ci']


def uca_strings():
    """Strings whose weights are more than their characters' one by one: expansions, contractions (every one
    scripts/gen_uca.py found, alone, followed, cut short), spaces that are not ' ', ignorables inside a word."""
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, 'src', 'sql', 'value', 'coll_uca_tables.c'), encoding='utf-8') as f:
        contr = re.findall(r'\{\{0x([0-9a-f]+), 0x([0-9a-f]+), 0x([0-9a-f]+)\}', f.read())
    out = ['', ' ', 'a', 'A ', 'a\t', 'a\x00', '\x00a', 'a\u00a0', 'a\u00a0b', 'a b', 'a  b', 'a\u2003b', 'ab',
           '\u00df', 'ss', 'SS', 'sS', 's', '\u00dfa', 'ssa', '\u00e6', 'ae', 'AE', '\u01c4', 'd\u017e', 'dz',
           '\ufb01', 'fi', '\u2460', '1', '\u00bd', '1/2', 'co\u00adop', 'coop', 'co-op', 'a\u0301', '\u00e1', 'a\u0300b',
           '\U0001f600', '\U0001f601', '\u4e2d', '\u4e2d\u6587', '\U00020000', 'z', 'Z', '\u00fe', 'th']
    for a, b, c in contr:
        cps = [int(x, 16) for x in (a, b, c) if int(x, 16)]
        s = ''.join(chr(x) for x in cps)
        out += [s, s + 'a', s[:-1] + 'x', s[:-1], 'x' + s]
    return sorted(set(out))


@pytest.mark.parametrize('coll', UCA)
def test_uca_strings_match_mariadb(strata, mariadb, coll):
    """Ordering, grouping, STRCMP and LIKE of strings made of several characters (the exhaustive test above
    weighs one code point at a time)."""
    strs = uca_strings()
    got = {}
    for name, server in (('strata', strata), ('mariadb', mariadb)):
        conn = connect(server)
        try:
            cur = conn.cursor()
            cur.execute('DROP DATABASE IF EXISTS %s' % DB)
            cur.execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % DB)
            cur.execute('USE %s' % DB)
            cur.execute('CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(16) CHARACTER SET utf8mb4 COLLATE %s, KEY kc (c))'
                        % coll)
            cur.execute('INSERT INTO t VALUES ' + ','.join(
                "(%d, CONVERT(X'%s' USING utf8mb4))" % (i, s.encode('utf-8').hex()) for i, s in enumerate(strs)))
            groups = classes(cur, False)
            by_index = classes(cur, True)
            pairs = [(g[0], h[0]) for g, h in zip(groups, groups[1:])] + [(g[0], m) for g in groups for m in g[1:]]
            pairs += [(i, j) for i in range(0, len(strs), 37) for j in range(0, len(strs), 41)]
            cmps = []
            for k in range(0, len(pairs), 500):
                chunk = pairs[k:k + 500]
                cur.execute('SELECT ' + ','.join(
                    "STRCMP(CONVERT(X'%s' USING utf8mb4) COLLATE %s, CONVERT(X'%s' USING utf8mb4))"
                    % (strs[a].encode('utf-8').hex(), coll, strs[b].encode('utf-8').hex()) for a, b in chunk))
                cmps.extend(int(v) for v in cur.fetchone())
            likes = []
            for pat in ('ss', '\u00df', 's_', '_', '%a', 'a%', 'A_B', '%\u00a0%', 'co%op', '1%', 'x%'):
                # IGNORE INDEX: MariaDB's range for 'x%' under unicode_ci misses x followed by a character beyond
                # the BMP (they weigh FFFD): a MariaDB defect; strata finds them
                cur.execute("SELECT GROUP_CONCAT(id ORDER BY id) FROM t IGNORE INDEX (kc) WHERE c LIKE _utf8mb4 X'%s'"
                            % pat.encode('utf-8').hex())
                likes.append(cur.fetchone()[0])
            cur.execute('DROP DATABASE %s' % DB)
        finally:
            conn.close()
        got[name] = (groups, by_index, cmps, likes)
    sg, si, sc, sl = got['strata']
    mg, mi, mc, ml = got['mariadb']
    show = lambda g: [[strs[i] for i in c] for c in g]
    assert sg == mg, [(a, b) for a, b in zip(show(sg), show(mg)) if a != b][:8]
    pos = {i: k for k, g in enumerate(mg) for i in g}
    assert [pos[i] for i in si] == sorted(pos[i] for i in si), 'strata index order differs from the classes'
    assert sc == mc, [(strs[a], strs[b], x, y) for (a, b), x, y in zip(pairs, sc, mc) if x != y][:8]
    assert sl == ml


def test_generated_uca_tables_are_current(mariadb):
    """src/sql/value/coll_uca_tables.c is what scripts/gen_uca.py reads off MariaDB 10.11."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not os.path.exists('/usr/share/perl/5.36/Unicode/Collate/allkeys.txt'):
        pytest.skip("perl's Unicode::Collate allkeys.txt is not installed")
    out = subprocess.run([sys.executable, os.path.join(root, 'scripts', 'gen_uca.py'), mariadb.socket], check=True,
                         capture_output=True, text=True).stdout
    with open(os.path.join(root, 'src', 'sql', 'value', 'coll_uca_tables.c'), encoding='utf-8') as f:
        assert out == f.read(), 'coll_uca_tables.c is stale: run scripts/gen_uca.py SOCKET > src/sql/value/coll_uca_tables.c'


def test_generated_table_is_current():
    """src/sql/value/coll_tables.c is what scripts/gen_collation.py makes of the Unicode data (Debian's unicode-data)."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not os.path.exists('/usr/share/unicode/UnicodeData.txt'):
        pytest.skip('unicode-data is not installed')
    out = subprocess.run([sys.executable, os.path.join(root, 'scripts', 'gen_collation.py')], check=True,
                         capture_output=True, text=True).stdout
    with open(os.path.join(root, 'src', 'sql', 'value', 'coll_tables.c'), encoding='utf-8') as f:
        assert out == f.read(), 'src/sql/value/coll_tables.c is stale: run scripts/gen_collation.py > src/sql/value/coll_tables.c'
