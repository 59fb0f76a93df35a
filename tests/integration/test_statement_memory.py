"""What a large write leaves allocated once it is over (strata only: Memory_used is the server's count of what it
allocated, VmRSS the kernel's).  A statement or transaction that writes hundreds of thousands of rows with the
binary log on grows the session's event buffer, the binlog group buffer, the transaction's undo and the redo
buffer; none of them may stay at that size after it ends, and the allocator's free pages go back to the system
(util/mem.c mem_give_back), so an idle server does not hold a past statement's peak."""
import time

import pytest

from sqlutil import memory_growth, run

ROWS = 300000
# what may stay allocated after the write, beyond what the server held before it: the kept sizes of the buffers
# (binlog group 4 MiB, session events 256 KiB, redo 8 MiB x 2) and noise
KEPT = 24 << 20


def status(c, name):
    return int(run(c, "SHOW GLOBAL STATUS LIKE '%s'" % name)[0][1])


def vm(pid, key):
    for line in open('/proc/%d/status' % pid):
        if line.startswith(key + ':'):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


@pytest.fixture
def server(fresh_strata):
    fresh_strata.start(['--log-bin=binlog', '--server-id=1', '--innodb-buffer-pool-size=32M'])
    c = fresh_strata.connect()
    run(c, 'CREATE DATABASE m')
    run(c, 'CREATE TABLE m.k (i INT PRIMARY KEY)')
    run(c, 'INSERT INTO m.k VALUES ' + ','.join('(%d)' % i for i in range(1000)))
    run(c, 'CREATE TABLE m.t (id INT PRIMARY KEY, pad CHAR(60))')
    yield fresh_strata, c
    c.close()


def write_rows(c, base, in_trx, rows=ROWS):
    if in_trx:
        run(c, 'BEGIN')
    run(c, "INSERT INTO m.t SELECT %d + a.i * 1000 + b.i, REPEAT('x', 60) FROM m.k a, m.k b WHERE a.i < %d"
        % (base, rows // 1000))
    if in_trx:
        run(c, 'INSERT INTO m.t VALUES (%d, NULL)' % (base + 2000000))
        run(c, 'COMMIT')


@pytest.mark.parametrize('in_trx', [False, True], ids=['autocommit', 'transaction'])
def test_large_write_leaves_nothing_allocated(server, in_trx):
    s, c = server
    before = status(c, 'Memory_used')
    write_rows(c, 0, in_trx)
    assert run(c, 'SELECT COUNT(*) FROM m.t')[0][0] == ROWS + (1 if in_trx else 0)
    after = status(c, 'Memory_used')
    assert after - before < KEPT, (before, after)
    # the same on a new connection, and again after a second write (nothing accumulates)
    c2 = s.connect()
    write_rows(c2, 10000000, in_trx)
    c2.close()
    assert status(c, 'Memory_used') - before < KEPT


def test_resident_memory_follows_a_large_statement_down(server):
    s, c = server
    pid = s.proc.pid
    if 'libasan' in open('/proc/%d/maps' % pid).read():
        pytest.skip("AddressSanitizer's allocator keeps freed memory in its quarantine: resident memory is its own")
    rss0 = vm(pid, 'VmRSS')
    # A million rows written: what stays resident is the 32 MiB buffer pool (the write touched all of it), the
    # buffers' kept sizes (KEPT), and free heap the allocator keeps because the write's own allocations stay
    # under the 64 MiB fall after which they are given back (util/mem.c mem_give_back): the write's memory is
    # bounded, so how much of it stays depends only on timing (how often checkpoints spill its undo).
    write_rows(c, 0, False, 1000000)
    floor = KEPT + (32 << 20)
    assert vm(pid, 'VmRSS') - rss0 < floor + (64 << 20), (rss0, vm(pid, 'VmRSS'))
    # A statement that allocates far more than that and frees it at its end (a 1M-row sort in a 256 MiB sort
    # buffer): its pages go back to the system (glibc returns these itself; mem_give_back's malloc_trim is for
    # free pages below live ones), so resident memory falls back by two thirds of its rise.  Until session 20 a
    # million-row INSERT allocated enough to test this; with its locks and undo bounded it no longer does.
    rss1 = vm(pid, 'VmRSS')
    run(c, 'SET SESSION sort_buffer_size = 268435456')
    assert run(c, 'SELECT COUNT(DISTINCT pad, id) FROM m.t')[0][0] == 1000000
    hwm = vm(pid, 'VmHWM')
    assert hwm - rss1 > (64 << 20), 'the sort did not raise resident memory enough to test (%d -> %d)' % (rss1, hwm)
    t0 = time.time()
    while vm(pid, 'VmRSS') - rss1 > (hwm - rss1) // 3:
        assert time.time() - t0 < 10, (rss0, rss1, hwm, vm(pid, 'VmRSS'))
        time.sleep(0.1)


@pytest.mark.parametrize('iso', ['REPEATABLE-READ', 'READ-COMMITTED'])
def test_update_and_delete_change_rows_as_they_are_read(server, iso):
    """A 300,000-row UPDATE and DELETE, sampled from a second connection.  Before, each read every matching row
    into the statement's arena first and built each new row there too (about 850 bytes a row: UPDATE of 1M rows
    peaked 1.1 GB above the start); now each row changes as the scan reaches it (exec/modify.c dml_may_stream).
    What still grows is the engine's: the version each change pushes for older views and, at REPEATABLE READ, the
    row lock (about 300 bytes a row together)."""
    s, c = server
    write_rows(c, 0, False)
    m = s.connect()
    run(c, "SET SESSION transaction_isolation = '%s'" % iso)
    growth = memory_growth(m, lambda: run(c, "UPDATE m.t SET pad = REPEAT('y', 60)"))
    assert growth < 130 << 20, growth
    assert run(c, "SELECT COUNT(*) FROM m.t WHERE pad LIKE 'y%'") == ((ROWS,),)
    growth = memory_growth(m, lambda: run(c, 'DELETE FROM m.t WHERE id >= 100'))
    assert growth < 130 << 20, growth
    assert run(c, 'SELECT COUNT(*) FROM m.t') == ((100,),)
