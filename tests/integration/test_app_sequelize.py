"""Sequelize 6 + mysql2 (npm, tests/integration/apps/sequelize, installed by scripts/deps with `npm ci`) against
strata and the MariaDB reference.

apps/sequelize/app.js defines models with associations (hasMany / belongsTo with ON DELETE CASCADE,
belongsToMany through a join table), a JSON column, an ENUM and a DECIMAL; syncs them; reads the schema back
through queryInterface (describeTable, showIndex, getForeignKeyReferencesForTable: information_schema's
KEY_COLUMN_USAGE); creates rows through associations; meets a unique and a foreign key violation; reads with
nested includes, JSON paths, operators, GROUP BY, findAndCountAll; runs managed (rolled back by a throw,
committed) and unmanaged transactions; upsert, bulkCreate with updateOnDuplicate, increment, a cascading
destroy, raw queries with replacements, drop.  The document of what each step read back must be MariaDB's.
"""
import json
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, 'apps', 'sequelize')

pytestmark = pytest.mark.skipif(not (shutil.which('node') and os.path.isdir(os.path.join(APP, 'node_modules'))),
                                reason='node or the npm packages are missing (scripts/deps runs npm ci in %s)' % APP)


def run_app(server, db):
    c = server.connect()
    cur = c.cursor()
    cur.execute('DROP DATABASE IF EXISTS %s' % db)
    cur.execute('CREATE DATABASE %s' % db)
    p = subprocess.run(['node', 'app.js', server.host, str(server.port), server.user, server.password or '', db],
                       cwd=APP, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, 'node exited %d\n%s\n%s' % (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    cur.execute('DROP DATABASE %s' % db)
    c.close()
    return json.loads(p.stdout)


def test_sequelize_same_as_mariadb(strata, mariadb, unique):
    db = unique('sq')
    got = run_app(strata, db)
    want = run_app(mariadb, db)
    diffs = ['%s:\n  strata  %s\n  mariadb %s' % (k, json.dumps(got.get(k))[:400], json.dumps(v)[:400])
             for k, v in want.items() if k != 'nqueries' and got.get(k) != v]
    assert not diffs, 'steps that read back differently:\n' + '\n'.join(diffs)
    # what both must read (a step broken the same way on both would pass the comparison)
    assert got['fks_posts'] == [['userId', 'Users', 'id']]
    assert got['fk_violation']['code'] == 1452 and got['unique_violation']['code'] == 1062
    assert got['json_read'][0] == {'theme': 'dark', 'langs': ['en', 'fr']}
    assert got['json_where'] == ['ann'] and got['managed_tx_rollback'] == 0 and got['unmanaged_tx'] == 41
    assert got['cascade_delete'] == [2, 1] and got['drop'] == 0
