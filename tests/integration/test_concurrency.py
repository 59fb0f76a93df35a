"""Many sessions at once: every answer must belong to the session that asked (no cross-talk between
connections sharing workers), large results must arrive whole while others are busy (partial writes), and
slow readers must not stall everyone else."""
import threading
import time

import pytest

from rawclient import RawClient


def run_threads(n, fn):
    errors = []

    def wrap(i):
        try:
            fn(i)
        except Exception as e:  # noqa: BLE001 - collected and reported below
            errors.append('%d: %r' % (i, e))
    ts = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not any(t.is_alive() for t in ts), 'threads still running'
    assert not errors, errors[:10]


@pytest.mark.parametrize('mode', ['plain', 'zlib', 'tls'])
def test_no_crosstalk(target, mode):
    def worker(i):
        c = RawClient.connect(port=target.port, compress='zlib' if mode == 'zlib' else None, tls=mode == 'tls')
        c.query('SET @mine = %d' % i)
        for k in range(150):
            names, rows = c.query('SELECT %d, %d, @mine, CONNECTION_ID()' % (i, k))
            assert rows[0][:3] == (str(i).encode(), str(k).encode(), str(i).encode()), rows
            assert int(rows[0][3]) == c.connection_id
        c.quit()
    run_threads(24, worker)


def test_large_results_concurrently(target):
    def worker(i):
        c = RawClient.connect(port=target.port)
        for k in range(6):
            n = 200000 + 7919 * i + k
            names, rows = c.query("SELECT REPEAT('%s', %d), %d" % (chr(97 + i % 26), n, i))
            v = rows[0][0]
            assert len(v) == n and v == chr(97 + i % 26).encode() * n and rows[0][1] == str(i).encode()
        c.quit()
    run_threads(12, worker)


def test_slow_reader_does_not_stall_others(target):
    """One client asks for 32 MiB (four 8 MiB results, more than the socket buffers hold) and does not read
    for a while; the others keep getting answers, and the slow one then gets all of its data."""
    slow = RawClient.connect(port=target.port)
    slow.command(3, b"SELECT REPEAT('x', 8388608); SELECT REPEAT('y', 8388608); "
                    b"SELECT REPEAT('z', 8388608); SELECT REPEAT('w', 8388608)")
    time.sleep(0.5)
    c = RawClient.connect(port=target.port)
    t = time.time()
    for _ in range(50):
        assert c.query('SELECT 1')[1] == [(b'1',)]
    assert time.time() - t < 10
    got = []
    while True:
        r = slow.read_result()
        got.append(r.rows[0][0])
        if not r.more():
            break
    assert [(len(g), g[:1]) for g in got] == [(8388608, b'x'), (8388608, b'y'), (8388608, b'z'), (8388608, b'w')]
    slow.quit()
    c.quit()
