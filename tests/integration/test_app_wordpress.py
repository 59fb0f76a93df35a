"""WordPress 6.1 (Debian's wordpress package, PHP 8.2 mysqli) against strata and the MariaDB reference.

apps/wordpress.php installs a site as WordPress's installer does (wp_install: the schema in
utf8mb4_unicode_520_ci, options, the admin user), runs dbDelta again (DESCRIBE / SHOW INDEX must say nothing
changed), then does what a blog does through WordPress's own API: posts with categories and tags, post meta,
comments, paged queries with SQL_CALC_FOUND_ROWS / FOUND_ROWS(), search, tag / meta / date queries, archives,
revisions, serialized options, users and roles, trash and delete, transients.  It prints what each step read
back, every database error WordPress met and the SQL it sent; the test requires strata's document to equal
MariaDB's and no database error beyond the ones MariaDB gives too (the installer's probes for tables that do
not exist yet).  docs/applications.md says what is covered.
"""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, 'apps', 'wordpress.php')

pytestmark = pytest.mark.skipif(not (shutil.which('php') and os.path.exists('/usr/share/wordpress/wp-settings.php')),
                                reason='php-cli and wordpress are not installed (scripts/deps installs them)')


def run_wordpress(server, db):
    c = server.connect()
    cur = c.cursor()
    cur.execute('DROP DATABASE IF EXISTS %s' % db)
    cur.execute('CREATE DATABASE %s' % db)
    content = tempfile.mkdtemp(prefix='wp-content-')
    try:
        p = subprocess.run(['php', SCRIPT, server.host, str(server.port), server.user, server.password or '', db,
                            content], capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(content, ignore_errors=True)
    assert p.returncode == 0, 'php exited %d\n%s\n%s' % (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    doc = json.loads(p.stdout)
    cur.execute('DROP DATABASE %s' % db)
    c.close()
    return doc


def test_wordpress_same_as_mariadb(strata, mariadb, unique):
    db = unique('wp')
    got = run_wordpress(strata, db)
    want = run_wordpress(mariadb, db)
    new_errors = [e for e in got['errors'] if e not in want['errors']]
    assert not new_errors, 'database errors on strata only:\n' + '\n'.join('%s\n  -> %s' % (q, m) for q, m in new_errors)
    # what WordPress read back, step by step
    for key in want:
        if key in ('queries', 'nqueries', 'errors'):
            continue
        assert got.get(key) == want[key], '%s: strata %r, MariaDB %r' % (key, got.get(key), want[key])
    # and what it must read on both (a step that broke the same way on both would pass the comparison)
    assert got['charset'] == ['utf8mb4', 'utf8mb4_unicode_520_ci', 'utf8mb4_unicode_520_ci']
    assert len(got['install']['tables']) == 12
    assert {c for _, c in got['table_collation']} == {'utf8mb4_unicode_520_ci'}
    assert got['dbdelta'] == []
    assert got['page1'][1:] == [5, 3]
    assert got['search'] == ['Über Kollationen']
    assert got['meta'] == ['4', '3'] and got['by_meta'] == ['Hello strata', 'Second post']
    assert got['option_roundtrip'] == ['Just another strata site', {'a': 1, 'b': [2, 3]}]
    assert got['after_delete'] == [True, 0] and got['users'][1:] == ['e@example.test', True]
    # 'Straße' and 'strasse' are one term under utf8mb4_unicode_520_ci (expansion ß = ss), as on MariaDB
    assert ['Straße', 'post_tag', '4'] in got['terms']
    assert all(q for q in got['queries'])
