#!/usr/bin/env python3
"""Generates src/sql/value/coll_uca_tables.c: the primary weights of the UCA collations (utf8mb4/utf8mb3
unicode_ci = UCA 4.0.0, unicode_520_ci = UCA 5.2.0, utf8mb4_uca1400_ai_ci = UCA 14.0.0).

Usage: python3 scripts/gen_uca.py SOCKET > src/sql/value/coll_uca_tables.c
SOCKET is the socket of a running MariaDB 10.11 (Debian's mariadb-server); the build needs none of this, the
generated file is checked in.

The weights are the Unicode Collation Algorithm's DUCET primary weights, as MariaDB 10.11's WEIGHT_STRING() gives
them for each code point (the DUCET tables of those UCA versions are not packaged by Debian; MariaDB's collations
are defined as those tables, so reading them off the server is reading the standard as MariaDB applies it, and
tests/integration/test_collation.py checks the result against MariaDB character by character).

Each code point has 0..8 weights (0: ignorable, e.g. U+0000 and most controls; 2 or more: an expansion, ß ->
"ss").  Code points the DUCET does not list weigh by the UCA's implicit rule, two weights:
  (base + (cp >> 15), (cp & 0x7FFF) | 0x8000)
with base FB40 (CJK unified ideographs), FB80 (CJK extensions) or FBC0 (the rest); UCA 4.0.0 as MariaDB has it
gives every code point above U+FFFF the single weight FFFD.  A 256-code-point page whose every code point follows
one of these rules has no table, only its rule (its base, or 0 for FFFD); the other pages have a table of
entries: (n << 24) | weight when n == 1, else (n << 24) | offset of the n weights in the pool, with bit 31 set
on a code point that starts a contraction.

Contractions (two or three code points with weights of their own: in UCA 14.0, Cyrillic И + U+0306 weighs as Й,
Catalan l·l, Thai and Lao vowel reordering): the candidates are the multi-code-point entries of the DUCET that
Debian's perl ships (Unicode::Collate's allkeys.txt, UCA 13.0.0); each one whose weight on MariaDB differs from
its code points' weights one by one is a contraction of that collation.  MariaDB's unicode_ci and unicode_520_ci
have none; its uca1400_ai_ci has all 939 (a contraction new in 14.0 is not known here: docs/collations.md).
"""
import subprocess
import sys

COLLS = [('uca400', 'utf8mb4_unicode_ci'), ('uca520', 'utf8mb4_unicode_520_ci'),
         ('uca1400', 'utf8mb4_uca1400_ai_ci')]
NPAGES = 0x1100
ALLKEYS = '/usr/share/perl/5.36/Unicode/Collate/allkeys.txt'


def fetch(sock):
    cols = ', '.join("HEX(WEIGHT_STRING(CONVERT(CHAR(seq USING utf32) USING utf8mb4) COLLATE %s))" % c
                     for _, c in COLLS)
    q = ('SELECT seq, %s FROM seq_0_to_1114111 WHERE seq NOT BETWEEN 55296 AND 57343' % cols)
    out = subprocess.run(['mariadb', '-S', sock, '-N', '-B', '-e', q, 'mysql'], check=True,
                         capture_output=True, text=True).stdout
    w = [dict() for _ in COLLS]
    for line in out.splitlines():
        f = line.split('\t')
        cp = int(f[0])
        for k in range(len(COLLS)):
            h = f[k + 1]
            w[k][cp] = tuple(int(h[i:i + 4], 16) for i in range(0, len(h), 4))
    return w


def u8hex(cps):
    return ''.join(chr(c) for c in cps).encode('utf-8').hex()


def contractions(sock):
    """[{(cp, cp[, cp]): weights}] per collation."""
    cands = []
    with open(ALLKEYS, encoding='utf-8') as f:
        for line in f:
            key = line.split(';')[0].split('#')[0].split()
            if len(key) > 1 and all(len(k) in (4, 5) for k in key):
                cands.append(tuple(int(k, 16) for k in key))
    stmts = []
    for c in cands:
        parts = []
        for _, coll in COLLS:
            whole = "HEX(WEIGHT_STRING(_utf8mb4 X'%s' COLLATE %s))" % (u8hex(c), coll)
            each = 'CONCAT(%s)' % ','.join("HEX(WEIGHT_STRING(_utf8mb4 X'%s' COLLATE %s))" % (u8hex([x]), coll)
                                           for x in c)
            parts.append("CONCAT_WS('/', %s, %s)" % (whole, each))
        stmts.append('SELECT %s;' % ', '.join(parts))
    out = subprocess.run(['mariadb', '-S', sock, '-N', '-B'], input='\n'.join(stmts), check=True,
                         capture_output=True, text=True).stdout.splitlines()
    res = [dict() for _ in COLLS]
    for c, line in zip(cands, out):
        for k, f in enumerate(line.split('\t')):
            whole, each = f.split('/')
            if whole != each:
                res[k][c] = tuple(int(whole[i:i + 4], 16) for i in range(0, len(whole), 4))
    return res


def implicit_base(cp, ws):
    """The page rule a code point follows: its base, 0 for the single FFFD, None for neither."""
    if len(ws) == 1 and ws[0] == 0xFFFD and cp > 0xFFFF:
        return 0
    if len(ws) == 2 and ws[1] == (cp & 0x7FFF) | 0x8000 and ws[0] >= 0xFB00:
        return ws[0] - (cp >> 15)
    return None


def emit(tag, weights, contr, out):
    pool = []
    pool_at = {}
    pages = {}
    bases = [0] * NPAGES
    starters = {c[0] for c in contr}

    def pooled(ws):
        if ws not in pool_at:
            pool_at[ws] = len(pool)
            pool.extend(ws)
        return pool_at[ws]
    for page in range(NPAGES):
        cps = [cp for cp in range(page << 8, (page + 1) << 8) if not 0xD800 <= cp <= 0xDFFF]
        rules = {implicit_base(cp, weights[cp]) for cp in cps}
        if len(rules) == 1 and None not in rules and not any(cp in starters for cp in cps):
            bases[page] = rules.pop()
            continue
        ent = []
        for cp in range(page << 8, (page + 1) << 8):
            ws = weights.get(cp, ())
            flag = 0x80000000 if cp in starters else 0
            if len(ws) == 1:
                ent.append(flag | (1 << 24) | ws[0])
            elif not ws:
                ent.append(flag)
            else:
                ent.append(flag | (len(ws) << 24) | pooled(ws))
        pages[page] = ent
    clist = [(c + (0,) * (3 - len(c)), pooled(ws) if ws else 0, len(ws)) for c, ws in sorted(contr.items())]
    for page, ent in sorted(pages.items()):
        out.write('static const uint32_t %s_p%03x[256] = {\n' % (tag, page))
        for i in range(0, 256, 8):
            out.write('    ' + ', '.join('0x%08x' % e for e in ent[i:i + 8]) + ',\n')
        out.write('};\n')
    out.write('static const uint16_t %s_pool[%d] = {\n' % (tag, max(len(pool), 1)))
    for i in range(0, len(pool), 12):
        out.write('    ' + ', '.join('0x%04x' % w for w in pool[i:i + 12]) + ',\n')
    out.write('};\n')
    out.write('static const uint32_t *const %s_pages[0x%x] = {\n' % (tag, NPAGES))
    for page, _ in sorted(pages.items()):
        out.write('    [0x%03x] = %s_p%03x,\n' % (page, tag, page))
    out.write('};\n')
    out.write('static const uint16_t %s_bases[0x%x] = {\n' % (tag, NPAGES))
    for i in range(0, NPAGES, 12):
        out.write('    ' + ', '.join('0x%04x' % b for b in bases[i:i + 12]) + ',\n')
    out.write('};\n')
    if clist:
        out.write('static const coll_uca_contr_t %s_contr[%d] = {\n' % (tag, len(clist)))
        for (a, b, c), off, n in clist:
            out.write('    {{0x%04x, 0x%04x, 0x%04x}, %d, %d},\n' % (a, b, c, off, n))
        out.write('};\n')
    out.write('const coll_uca_t coll_%s = {%s_pages, %s_bases, %s_pool, %s, %d, 0x%04x};\n\n'
              % (tag, tag, tag, tag, tag + '_contr' if clist else 'NULL', len(clist), weights[0x20][0]))


def main():
    w = fetch(sys.argv[1])
    contr = contractions(sys.argv[1])
    out = sys.stdout
    out.write('/* Generated by scripts/gen_uca.py: the UCA collations\' primary weights (see the script). */\n')
    out.write('#include "sql/value/collation.h"\n\n')
    for k, (tag, _) in enumerate(COLLS):
        emit(tag, w[k], contr[k], out)


if __name__ == '__main__':
    main()
