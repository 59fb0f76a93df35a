"""The binlog cache (issue 19, "memory stays bounded"): a transaction keeps at most binlog_cache_size bytes of its
binlog events in memory; the rest goes to a temporary file in tmpdir that the commit streams into the binary log.
Binlog_cache_use / Binlog_cache_disk_use count as MariaDB's do, max_binlog_cache_size refuses the statement that
would pass it with 1197 (the transaction goes on), and what a spilled transaction logs — a statement's rows split
across the file, a multi-table UPDATE whose second table first shows up after rows were spilled, a savepoint rolled
back into the file — reaches a MariaDB replica as the same rows."""
import os
import subprocess

import pymysql
import pytest

from sqlutil import run
from test_replica_replay import attach, start_primary, table_contents, wait_caught_up

CACHE = 4096


def status(c, name):
    return int(run(c, "SHOW GLOBAL STATUS LIKE '%s'" % name)[0][1])


def counters(c):
    return status(c, 'Binlog_cache_use'), status(c, 'Binlog_cache_disk_use')


def make_tables(c):
    run(c, 'CREATE DATABASE bc')
    run(c, 'CREATE TABLE bc.k (i INT PRIMARY KEY)')
    run(c, 'INSERT INTO bc.k VALUES ' + ','.join('(%d)' % i for i in range(100)))
    run(c, 'CREATE TABLE bc.t (id INT PRIMARY KEY, v VARCHAR(200))')


@pytest.mark.fresh_opts('--log-bin=cachelog', '--binlog-format=ROW', '--server-id=1',
                        '--binlog-cache-size=%d' % CACHE)
def test_cache_counters(fresh_target):
    """Every rows transaction ended counts in Binlog_cache_use, committed or rolled back; those past
    binlog_cache_size also in Binlog_cache_disk_use; DDL and reads count in neither."""
    c = fresh_target.connect()
    make_tables(c)
    run(c, 'SELECT COUNT(*) FROM bc.k')
    base = counters(c)
    run(c, "INSERT INTO bc.t VALUES (1, 'small')")
    assert counters(c) == (base[0] + 1, base[1])
    run(c, "INSERT INTO bc.t SELECT 1000 + i, REPEAT('x', 200) FROM bc.k")  # ~21 KB of row images
    assert counters(c) == (base[0] + 2, base[1] + 1)
    run(c, 'BEGIN')
    run(c, "INSERT INTO bc.t SELECT 2000 + i, REPEAT('y', 200) FROM bc.k")
    run(c, 'ROLLBACK')
    assert counters(c) == (base[0] + 3, base[1] + 2)
    run(c, 'CREATE TABLE bc.other (a INT)')
    run(c, 'SELECT * FROM bc.t')
    assert counters(c) == (base[0] + 3, base[1] + 2)
    assert run(c, 'SELECT COUNT(*) FROM bc.t')[0][0] == 101


@pytest.mark.fresh_opts('--log-bin=cachelog', '--binlog-format=ROW', '--server-id=1',
                        '--binlog-cache-size=%d' % CACHE, '--max-binlog-cache-size=65536')
def test_max_binlog_cache_size_fails_the_statement_not_the_transaction(fresh_target):
    c = fresh_target.connect()
    make_tables(c)
    assert run(c, 'SELECT @@max_binlog_cache_size')[0][0] == 65536
    run(c, 'BEGIN')
    run(c, "INSERT INTO bc.t VALUES (1, 'before')")
    with pytest.raises(pymysql.err.OperationalError) as e:
        # 100 rows x 5 = about 105 KB of images on top of what the transaction holds
        run(c, "INSERT INTO bc.t SELECT 1000 + a.i * 100 + b.i, REPEAT('z', 200) FROM bc.k a, bc.k b "
               "WHERE a.i < 5")
    assert e.value.args[0] == 1197
    assert "max_binlog_cache_size" in e.value.args[1]
    assert run(c, 'SELECT @@in_transaction')[0][0] == 1
    assert run(c, 'SELECT COUNT(*) FROM bc.t')[0][0] == 1  # the failed statement's rows are gone
    run(c, "INSERT INTO bc.t VALUES (2, 'after')")
    run(c, 'COMMIT')
    assert run(c, 'SELECT id, v FROM bc.t ORDER BY id') == ((1, 'before'), (2, 'after'))
    # the bound is on the transaction: statements that each fit but together pass it fail at the one that passes
    run(c, 'BEGIN')
    failed_at = None
    for n in range(10):
        try:
            run(c, "INSERT INTO bc.t SELECT %d + i, REPEAT('w', 200) FROM bc.k" % (10000 + 1000 * n))
        except pymysql.err.OperationalError as ex:
            assert ex.args[0] == 1197
            failed_at = n
            break
    assert failed_at in (2, 3), failed_at
    run(c, 'COMMIT')
    assert run(c, 'SELECT COUNT(*) FROM bc.t')[0][0] == 2 + 100 * failed_at
    # raised again, the same transaction size fits
    run(c, 'SET GLOBAL max_binlog_cache_size = DEFAULT')
    c2 = fresh_target.connect()
    run(c2, "INSERT INTO bc.t SELECT 1000 + a.i * 100 + b.i, REPEAT('z', 200) FROM bc.k a, bc.k b WHERE a.i < 5")


def spill_fds(pid):
    out = []
    for fd in os.listdir('/proc/%d/fd' % pid):
        try:
            target = os.readlink('/proc/%d/fd/%s' % (pid, fd))
        except OSError:
            continue
        if 'strata-binlog-' in target:
            out.append(target)
    return out


@pytest.mark.only('strata')
def test_a_large_transaction_is_in_a_temporary_file_until_it_ends(fresh_strata):
    """The file is in tmpdir, unlinked from the start, and closed once the transaction ends."""
    tmp = os.path.join(fresh_strata.base, 'tmp')
    os.makedirs(tmp, exist_ok=True)
    fresh_strata.start(['--log-bin=cachelog', '--server-id=1', '--binlog-cache-size=%d' % CACHE, '--tmpdir=' + tmp])
    c = fresh_strata.connect()
    make_tables(c)
    pid = fresh_strata.proc.pid
    run(c, 'BEGIN')
    run(c, "INSERT INTO bc.t VALUES (1, 'x')")
    assert spill_fds(pid) == []  # a few hundred bytes stay in memory
    run(c, "INSERT INTO bc.t SELECT 1000 + a.i * 100 + b.i, REPEAT('z', 200) FROM bc.k a, bc.k b")
    files = spill_fds(pid)
    assert len(files) == 1 and files[0].startswith(tmp + '/strata-binlog-') and files[0].endswith('(deleted)'), files
    assert os.listdir(tmp) == []
    run(c, 'COMMIT')
    assert spill_fds(pid) == []
    run(c, 'BEGIN')
    run(c, "UPDATE bc.t SET v = 'u'")
    assert len(spill_fds(pid)) == 1
    run(c, 'ROLLBACK')
    assert spill_fds(pid) == []
    assert run(c, "SELECT COUNT(*), SUM(v = 'u') FROM bc.t") == ((10001, 0),)


@pytest.mark.only('strata')
def test_spilled_transactions_reach_a_mariadb_replica(fresh_strata, fresh_mariadb):
    primary, rep = fresh_strata, fresh_mariadb
    p = start_primary(primary, '--binlog-cache-size=%d' % CACHE)
    rep.start(['--server-id=2'])
    r = rep.connect()
    attach(r, primary)
    make_tables(p)
    run(p, 'CREATE TABLE bc.u (id INT PRIMARY KEY, w INT)')
    # one statement of ~2 MB of row images: its rows events go to the file while it runs
    run(p, "INSERT INTO bc.t SELECT a.i * 100 + b.i, REPEAT('r', 200) FROM bc.k a, bc.k b")
    run(p, 'INSERT INTO bc.u SELECT id, 0 FROM bc.t WHERE id >= 9900')
    # a multi-table UPDATE: bc.u's first row comes after 9,900 rows of bc.t went to the file
    run(p, "UPDATE bc.t LEFT JOIN bc.u ON bc.t.id = bc.u.id SET bc.t.v = CONCAT('n', bc.t.id), bc.u.w = bc.u.w + 1")
    # a savepoint rolled back into the file, and a failed statement, inside one transaction
    run(p, 'BEGIN')
    run(p, "INSERT INTO bc.t VALUES (20001, 'kept')")
    run(p, 'SAVEPOINT s')
    run(p, "UPDATE bc.t SET v = 'undone' WHERE id < 5000")
    run(p, 'ROLLBACK TO SAVEPOINT s')
    with pytest.raises(pymysql.err.IntegrityError):
        run(p, "INSERT INTO bc.t SELECT id + 30000, v FROM bc.t WHERE id < 3000 UNION ALL SELECT 1, 'dup'")
    run(p, "DELETE FROM bc.t WHERE id BETWEEN 100 AND 4000")
    run(p, "INSERT INTO bc.t VALUES (20002, 'kept too')")
    run(p, 'COMMIT')
    assert status(p, 'Binlog_cache_disk_use') >= 3
    st = wait_caught_up(r, run(p, 'SELECT @@gtid_binlog_pos')[0][0])
    assert st['Last_SQL_Errno'] == 0, st
    assert table_contents(r, 'bc') == table_contents(p, 'bc')
    assert run(p, "SELECT COUNT(*), SUM(v LIKE 'n%'), SUM(v = 'undone') FROM bc.t") == ((10000 - 3901 + 2, 10000 - 3901, 0),)
    assert run(p, 'SELECT SUM(w), COUNT(*) FROM bc.u') == ((100, 100),)
    # the primary's own binlog decodes with mariadb-binlog
    base = run(p, 'SELECT @@log_bin_basename')[0][0]
    files = [os.path.join(os.path.dirname(base), row[0]) for row in run(p, 'SHOW BINARY LOGS')]
    out = subprocess.run(['mariadb-binlog', '--verbose'] + files, capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
