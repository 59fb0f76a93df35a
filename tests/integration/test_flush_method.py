"""innodb_flush_method (docs/variables.md): how strata opens its data files and its redo log.

  fsync (strata's default)  data files and redo through the page cache; redo fdatasync'ed per commit group, data
                            files at each checkpoint
  O_DIRECT                  data files opened with O_DIRECT (pages cached in the buffer pool only), still synced
                            at checkpoints; O_DIRECT_NO_FSYNC is the same (said in the error log)
  O_DSYNC                   the redo log opened with O_DSYNC: a commit's write is durable as it returns, no
                            fdatasync (Innodb_data_fsyncs, strata's count of redo syncs, does not move)

The flags are read from /proc/PID/fdinfo of the running server, so a value accepted and not acted on fails here.
Power losses under O_DIRECT and O_DSYNC are in test_powerloss.py.
"""
import os

import pytest

pytestmark = pytest.mark.only('strata')

O_DIRECT = 0o40000
O_DSYNC = 0o10000


def open_flags(s):
    """{path under the data directory: open flags} of the server's descriptors."""
    out = {}
    fds = '/proc/%d/fd' % s.proc.pid
    for fd in os.listdir(fds):
        try:
            path = os.readlink(os.path.join(fds, fd))
            with open('/proc/%d/fdinfo/%s' % (s.proc.pid, fd)) as f:
                flags = next(int(ln.split()[1], 8) for ln in f if ln.startswith('flags:'))
        except (OSError, StopIteration):
            continue
        if path.startswith(os.path.realpath(s.datadir) + '/'):
            out[os.path.basename(path)] = flags
    return out


def status(c, name):
    with c.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE '%s'" % name)
        return int(cur.fetchone()[1])


def fill(s, rows):
    c = s.connect()
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE fm')
        cur.execute('CREATE TABLE fm.t (id INT PRIMARY KEY, pad VARCHAR(600))')
        for b in range(0, rows, 500):
            cur.execute('INSERT INTO fm.t VALUES ' + ','.join("(%d, REPEAT('%s', 600))" % (i, chr(97 + i % 26))
                                                             for i in range(b, min(rows, b + 500))))
        cur.execute('COMMIT')
    return c


def redo_syncs_of_commits(s, rows):
    """Commits rows single-row autocommit INSERTs into a new fm.t (the rows fill() makes); returns how far
    Innodb_data_fsyncs (strata's count of redo syncs) moved meanwhile."""
    c = s.connect()
    try:
        with c.cursor() as cur:
            cur.execute('CREATE DATABASE fm')
            cur.execute('CREATE TABLE fm.t (id INT PRIMARY KEY, pad VARCHAR(600))')
            before = status(c, 'Innodb_data_fsyncs')
            for i in range(rows):
                cur.execute("INSERT INTO fm.t VALUES (%d, REPEAT('%s', 600))" % (i, chr(97 + i % 26)))
        return status(c, 'Innodb_data_fsyncs') - before
    finally:
        c.close()


def check_rows(s, rows):
    got = s.query("SELECT COUNT(*), SUM(id), SUM(pad = REPEAT(CHAR(97 + id % 26), 600)) FROM fm.t")
    assert got == ((rows, rows * (rows - 1) // 2, rows),)


def test_default_is_fsync_through_the_page_cache(fresh_strata):
    s = fresh_strata
    s.start()
    assert s.query('SELECT @@innodb_flush_method') == (('fsync',),)
    flags = open_flags(s)
    assert 'strata_sys.dat' in flags and 'redo.log' in flags, flags
    assert not [p for p, f in flags.items() if f & (O_DIRECT | O_DSYNC)], flags


@pytest.mark.parametrize('method', ['O_DIRECT', 'O_DIRECT_NO_FSYNC'])
def test_o_direct_data_files(fresh_strata, method):
    """Every data file, the system one and one added at run time, is open with O_DIRECT; the redo log is not.
    With a pool far smaller than the table the pages are written and read again through those descriptors, and
    after kill -9 every committed row is there."""
    s = fresh_strata
    s.start(['--innodb-flush-method=' + method, '--innodb-buffer-pool-size=4M'])
    assert s.query('SELECT @@innodb_flush_method') == ((method,),)
    if method == 'O_DIRECT_NO_FSYNC':
        assert 'O_DIRECT_NO_FSYNC: data files are opened with O_DIRECT and still synced' in s.log_text()
    c = s.connect()
    with c.cursor() as cur:
        cur.execute('CREATE LOGFILE GROUP lg ADD UNDOFILE "fm_undo.dat" INITIAL_SIZE 4M ENGINE=NDB')
        cur.execute('CREATE TABLESPACE ts ADD DATAFILE "fm_ts.dat" USE LOGFILE GROUP lg INITIAL_SIZE 4M ENGINE=NDB')
    c.close()
    flags = open_flags(s)
    for name in ('strata_sys.dat', 'fm_ts.dat'):
        assert flags[name] & O_DIRECT, (name, oct(flags[name]))
    assert not flags['redo.log'] & (O_DIRECT | O_DSYNC), oct(flags['redo.log'])
    rows = 20000  # about 13 MB of rows: three times the pool
    c = fill(s, rows)
    reads = status(c, 'Innodb_buffer_pool_reads')
    check_rows(s, rows)
    assert status(c, 'Innodb_buffer_pool_reads') - reads > 100  # read back from the data file
    c.close()
    s.stop(sig=9)
    s.start(['--innodb-flush-method=' + method, '--innodb-buffer-pool-size=4M'])
    assert open_flags(s)['fm_ts.dat'] & O_DIRECT
    check_rows(s, rows)
    assert s.query('CHECK TABLE fm.t')[0][3] == 'OK'


def test_o_dsync_redo(fresh_strata):
    """The redo log is open with O_DSYNC and commits issue no fdatasync of it; the data files are not direct.
    Without the binary log (whose fsync is otherwise the commit's only one) every commit makes its redo durable.
    After kill -9 every acknowledged commit is there."""
    s = fresh_strata
    s.start(['--innodb-flush-method=O_DSYNC', '--skip-log-bin'])
    flags = open_flags(s)
    assert flags['redo.log'] & O_DSYNC, oct(flags['redo.log'])
    assert not flags['strata_sys.dat'] & (O_DIRECT | O_DSYNC), oct(flags['strata_sys.dat'])
    assert redo_syncs_of_commits(s, 200) < 5  # checkpoints only, not one per commit
    s.stop(sig=9)
    s.start(['--innodb-flush-method=O_DSYNC', '--skip-log-bin'])
    check_rows(s, 200)


@pytest.mark.parametrize('method', ['littlesync', 'nosync'])
def test_testing_only_values_sync_as_fsync(fresh_strata, method):
    s = fresh_strata
    s.start(['--innodb-flush-method=' + method, '--skip-log-bin'])
    assert "MariaDB's testing-only value; strata syncs as with fsync" in s.log_text()
    flags = open_flags(s)
    assert not [p for p, f in flags.items() if f & (O_DIRECT | O_DSYNC)], flags
    assert redo_syncs_of_commits(s, 20) >= 20  # one per commit
