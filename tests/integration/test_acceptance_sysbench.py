"""Issue 4 acceptance: sysbench 1.0's bundled OLTP scripts prepare, run and clean up with no error, with
--db-ps-mode=auto (binary protocol) and =disable (text protocol), against strata and the MariaDB reference.

One database per server holds the oltp_common tables (2 x 1000 rows): it is prepared once (by the first script
of the list, which is the same oltp_common prepare for every oltp_* and select_random_* script), every script
runs against it in both modes, and the last test cleans it up. bulk_insert has tables of its own (one per
thread, different columns), so it prepares, runs and cleans up in a database of its own.

Why --rand-type=uniform and at most 2 writing threads: with sysbench's default "special" distribution the
writers hammer a few rows in the middle of 1000 and InnoDB itself reports deadlocks (about 1% of the
transactions on MariaDB with 4 threads); sysbench counts those as "ignored errors", which this test wants at 0.
Spreading the keys keeps the test about the SQL, not about lock-conflict luck."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import TARGETS, session_server

SCRIPTS = ['oltp_read_write', 'oltp_read_only', 'oltp_write_only', 'oltp_point_select', 'oltp_insert',
           'oltp_delete', 'oltp_update_index', 'oltp_update_non_index', 'select_random_points',
           'select_random_ranges']
READ_ONLY = {'oltp_read_only', 'oltp_point_select', 'select_random_points', 'select_random_ranges'}
MODES = ['auto', 'disable']
DB = 'sbtest_acc'
BULK_DB = 'sbtest_bulk'
RUN_SECONDS = 2


def sysbench(server, db, script, command, mode='auto', threads=2, extra=()):
    cmd = ['sysbench', '--db-driver=mysql', '--mysql-user=root', '--mysql-password=',
           '--mysql-host=127.0.0.1', '--mysql-port=%d' % server.port, '--mysql-db=' + db,
           '--db-ps-mode=' + mode, '--threads=%d' % threads, '--report-interval=0',
           '--tables=2', '--table-size=1000', '--rand-type=uniform', '--time=%d' % RUN_SECONDS]
    cmd += list(extra) + [script, command]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    where = '%s %s %s on %s' % (script, command, mode, server.kind)
    assert r.returncode == 0, '%s: exit %d\n%s' % (where, r.returncode, out[-3000:])
    assert 'FATAL' not in out, '%s:\n%s' % (where, out[-3000:])
    return out


def check_run(out, where):
    m = re.search(r'transactions:\s+(\d+)', out)
    assert m and int(m.group(1)) > 0, '%s: no transactions\n%s' % (where, out[-2000:])
    assert re.search(r'ignored errors:\s+0\s', out), '%s:\n%s' % (where, out[-2000:])
    assert re.search(r'reconnects:\s+0\s', out), '%s:\n%s' % (where, out[-2000:])


def kinds(config):
    opt = config.getoption('target')
    return TARGETS if opt == 'both' else [opt]


@pytest.fixture(scope='module', params=TARGETS)
def sbserver(request):
    """The session server of one kind with the oltp_common tables prepared in DB (module scope, so pytest
    runs every test of one kind before the other and prepares once per kind)."""
    if request.param not in kinds(request.config):
        pytest.skip('--target excludes %s' % request.param)
    if not shutil.which('sysbench'):
        pytest.skip('sysbench not installed')
    s = session_server(request.param)
    s.query('DROP DATABASE IF EXISTS ' + DB)
    s.query('CREATE DATABASE ' + DB)
    state = {'server': s, 'prepared': False}
    yield state
    try:
        s.query('DROP DATABASE IF EXISTS ' + DB)
    except Exception:
        pass


def test_prepare(sbserver):
    out = sysbench(sbserver['server'], DB, SCRIPTS[0], 'prepare')
    assert "Creating table 'sbtest2'" in out and "Inserting 1000 records into 'sbtest2'" in out, out
    rows = sbserver['server'].query('SELECT COUNT(*), MIN(id), MAX(id) FROM %s.sbtest2' % DB)
    assert rows == ((1000, 1, 1000),), rows
    sbserver['prepared'] = True


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('script', SCRIPTS)
def test_run(sbserver, script, mode):
    if not sbserver['prepared']:
        pytest.skip('prepare failed')
    threads = 3 if script in READ_ONLY else 2
    out = sysbench(sbserver['server'], DB, script, 'run', mode, threads)
    check_run(out, '%s run %s on %s' % (script, mode, sbserver['server'].kind))


def test_cleanup(sbserver):
    s = sbserver['server']
    out = sysbench(s, DB, SCRIPTS[0], 'cleanup')
    assert "Dropping table 'sbtest2'" in out, out
    assert s.query("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s'" % DB) == ((0,),)


@pytest.mark.parametrize('mode', MODES)
def test_bulk_insert(sbserver, mode):
    """bulk_insert: one table per thread (id, k), multi-row INSERTs of a few thousand rows each."""
    s = sbserver['server']
    s.query('DROP DATABASE IF EXISTS ' + BULK_DB)
    s.query('CREATE DATABASE ' + BULK_DB)
    try:
        sysbench(s, BULK_DB, 'bulk_insert', 'prepare', mode)
        out = sysbench(s, BULK_DB, 'bulk_insert', 'run', mode)
        check_run(out, 'bulk_insert run %s on %s' % (mode, s.kind))
        n = s.query('SELECT COUNT(*), COUNT(DISTINCT id), MAX(id) FROM %s.sbtest1' % BULK_DB)[0]
        assert n[0] > 0 and n[0] == n[1] == n[2], n
        sysbench(s, BULK_DB, 'bulk_insert', 'cleanup', mode)
        assert s.query("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s'" % BULK_DB) \
            == ((0,),)
    finally:
        s.query('DROP DATABASE IF EXISTS ' + BULK_DB)
