"""Simulated power losses (tests/powerloss: an LD_PRELOAD shim that, at the cut, throws away every write the
server had not made durable with fsync/fdatasync and can tear the last page write in half).  Concurrent
clients commit inserts and balance transfers; the power goes at a random moment (or at the Nth data-file
write, torn); the server restarts on what a real disk would have kept.  After every cut: no acknowledged commit
is missing, nothing that was never acknowledged appears except the commits in flight at the cut, transfers
kept the total, the binlog and the tables agree, a torn data page was found by its checksum and rebuilt from
its full-page image in the redo log; at the end a clean stop and a clean strata-check.

CI runs POWERLOSS_CYCLES (default 50) short cycles; a longer soak is the same test with more, e.g.
  POWERLOSS_CYCLES=1000 STRATAD=build/stratad /usr/bin/python3 -m pytest -q tests/integration/test_powerloss.py
"""
import os
import random
import subprocess
import threading
import time

import pymysql
import pytest

import conftest
import test_faults
from sqlutil import binlog_insert_ids

CUT_STATUS = 86  # the shim's _exit status at a power loss
ACCOUNTS = 10
START_BALANCE = 1000


def shim_path():
    return os.path.join(os.path.dirname(conftest.strata_exe()), 'tests', 'powerloss.so')


pytestmark = [pytest.mark.only('strata'),
              pytest.mark.skipif(not os.path.exists(shim_path()), reason='no tests/powerloss.so (make all)')]


class Cutter:
    """Starts s with the shim in front of it; cut() asks for a power loss through the control file."""

    def __init__(self, s, tear=None):
        self.s = s
        self.ctl = os.path.join(s.base, 'powerloss.ctl')
        self.tear = tear
        plain_env = s.env

        def env():
            e = plain_env()
            e['LD_PRELOAD'] = shim_path()
            e['POWERLOSS_DIR'] = s.datadir
            e['POWERLOSS_CTL'] = self.ctl
            if self.tear:
                e['POWERLOSS_TEAR'] = self.tear
            else:
                e.pop('POWERLOSS_TEAR', None)
            # the shim comes before the sanitizer runtime in the library list, on purpose
            e['ASAN_OPTIONS'] = e.get('ASAN_OPTIONS', 'detect_leaks=1:abort_on_error=0') + ':verify_asan_link_order=0'
            return e

        s.env = env

    def order(self, what):
        with open(self.ctl + '.tmp', 'w') as f:
            f.write(what)
        os.rename(self.ctl + '.tmp', self.ctl)

    def wait_cut(self, timeout=60):
        """Waits for the power loss; returns the shim's report line."""
        rc = self.s.proc.wait(timeout=timeout)
        self.s.stderr_f.close()
        assert rc == CUT_STATUS, 'the server exited with %s, not at a power loss\n%s' % (rc, self.s.tail())
        with open(self.s.stderr_path, errors='replace') as f:
            lines = [ln for ln in f if ln.startswith('powerloss: ')]
        assert lines, 'no report from the shim'
        return lines[-1]


class Load:
    """Client threads: autocommit inserts into p.t, and transfers between rows of p.acct in transactions.
    acked holds every insert whose commit was acknowledged; inflight the one each thread had sent unanswered."""

    def __init__(self, s, first_id, threads=4):
        self.s = s
        self.acked = set()
        self.inflight = set()
        self.mu = threading.Lock()
        self.stop = False
        self.errors = []
        self.threads = [threading.Thread(target=self.run, args=(first_id + t * 100000, t), daemon=True)
                        for t in range(threads)]

    def run(self, base, t):
        rnd = random.Random(base)
        try:
            c = self.s.connect()
        except pymysql.err.MySQLError:
            return
        i = 0
        try:
            with c.cursor() as cur:
                while not self.stop:
                    i += 1
                    if i % 4 == 0:
                        a, b = rnd.sample(range(ACCOUNTS), 2)
                        cur.execute('BEGIN')
                        cur.execute('UPDATE p.acct SET bal = bal - 1 WHERE id = %s', (a,))
                        cur.execute('UPDATE p.acct SET bal = bal + 1 WHERE id = %s', (b,))
                        cur.execute('COMMIT')
                        continue
                    rid = base + i
                    with self.mu:
                        self.inflight.add(rid)
                    cur.execute('INSERT INTO p.t VALUES (%s, %s, REPEAT(%s, 900))', (rid, t, chr(97 + rid % 26)))
                    with self.mu:
                        self.inflight.discard(rid)
                        self.acked.add(rid)
        except (pymysql.err.MySQLError, OSError) as e:
            if not self.stop:
                self.errors.append(e)
        finally:
            try:
                c.close()
            except Exception:
                pass

    def start(self):
        for t in self.threads:
            t.start()

    def join(self):
        self.stop = True
        for t in self.threads:
            t.join(timeout=30)


def check(s, acked, maybe, binlog=True):
    """Every acknowledged insert is there, nothing else but those in flight, the total kept, binlog = table."""
    c = s.connect()
    with c.cursor() as cur:
        cur.execute('SELECT id FROM p.t')
        have = {r[0] for r in cur.fetchall()}
        lost = acked - have
        assert not lost, 'acknowledged commits lost at the power cut: %s' % sorted(lost)[:10]
        extra = have - acked - maybe
        assert not extra, 'rows never acknowledged nor in flight: %s' % sorted(extra)[:10]
        cur.execute('SELECT COUNT(*), SUM(bal) FROM p.acct')
        assert cur.fetchone() == (ACCOUNTS, ACCOUNTS * START_BALANCE)
        cur.execute('SELECT COUNT(*) FROM p.t WHERE LENGTH(v) <> 900')
        assert cur.fetchone()[0] == 0
        if binlog:  # (mariadb-binlog over every file: not after every cut, to keep the test short)
            assert binlog_insert_ids(cur, 'p', 't') == have, 'the binlog and the table disagree'
    c.close()
    return have


def make_tables(s):
    c = s.connect()
    with c.cursor() as cur:
        cur.execute('CREATE DATABASE p')
        cur.execute('CREATE TABLE p.t (id BIGINT PRIMARY KEY, c INT, v VARCHAR(1000))')
        cur.execute('CREATE TABLE p.acct (id INT PRIMARY KEY, bal INT)')
        for i in range(ACCOUNTS):
            cur.execute('INSERT INTO p.acct VALUES (%s, %s)', (i, START_BALANCE))
    c.close()


strata_check = test_faults.strata_check


OPTS = ['--innodb-buffer-pool-size=2M']  # a small pool: dirty pages are written (unsynced) between checkpoints


SELFTEST = r'''
import os, sys
d, what = sys.argv[1], sys.argv[2]
fd = os.open(os.path.join(d, 'f.dat'), os.O_RDWR | os.O_CREAT, 0o600)
os.pwrite(fd, b'A' * 16384 * 2, 0)
os.fsync(fd)
os.pwrite(fd, b'B' * 16384, 0)          # unsynced: thrown away
os.write(fd, b'D' * 100)                # unsynced, at the file position (0 after pwrite): over B
os.lseek(fd, 0, os.SEEK_END)
os.write(fd, b'E' * 5000)               # unsynced growth: cut
fd2 = os.open(os.path.join(d, 'g.log'), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd2, b'never synced')
fd3 = os.open(os.path.join(d, 'h.log'), os.O_RDWR | os.O_CREAT | os.O_DSYNC, 0o600)
os.write(fd3, b'F' * 4096)              # O_DSYNC: durable as it returns, growth included
os.pwrite(fd3, b'G' * 100, 0)
os.pwrite(fd, b'C' * 16384, 16384)      # unsynced, the last page write to a .dat: torn when asked
open(os.path.join(d, 'ctl'), 'w').write(what)
import time
time.sleep(5)
sys.exit(1)  # the shim should have cut the power by now
'''


@pytest.mark.parametrize('tear', [None, '.dat'])
def test_shim_keeps_only_synced_writes(tmp_path, tear):
    """The shim itself: after a cut a file holds what its last fsync covered, growth since is cut, and with a
    tear the last page write is half new; what went through an O_DSYNC descriptor stays."""
    d = str(tmp_path)
    env = dict(os.environ, LD_PRELOAD=shim_path(), POWERLOSS_DIR=d, POWERLOSS_CTL=os.path.join(d, 'ctl'))
    env.pop('POWERLOSS_TEAR', None)
    if tear:
        env['POWERLOSS_TEAR'] = tear
    r = subprocess.run(['/usr/bin/python3', '-c', SELFTEST, d, 'now'], env=env, capture_output=True, timeout=60)
    assert r.returncode == CUT_STATUS, r.stderr
    with open(os.path.join(d, 'f.dat'), 'rb') as f:
        data = f.read()
    if tear:
        assert data == b'A' * 16384 + b'C' * 8192 + b'A' * 8192
        assert b'torn: %s/f.dat at 16384 (8192 of 16384 bytes new)' % d.encode() in r.stderr
    else:
        assert data == b'A' * 16384 * 2
    assert os.path.getsize(os.path.join(d, 'g.log')) == 0
    with open(os.path.join(d, 'h.log'), 'rb') as f:
        assert f.read() == b'G' * 100 + b'F' * 3996


# innodb_flush_method: fsync (the default: page cache, fdatasync), O_DIRECT (data files bypass the page cache, still
# synced at checkpoints) and O_DSYNC (the redo log's writes are durable as they return, no fdatasync per commit:
# the shim keeps O_DSYNC writes).  The other two run fewer cycles, to keep CI's time.
@pytest.mark.parametrize('method', ['fsync', 'O_DIRECT', 'O_DSYNC'])
def test_power_loss_under_concurrent_commits(fresh_strata, method):
    s = fresh_strata
    cycles = int(os.environ.get('POWERLOSS_CYCLES', '50'))
    if method != 'fsync':
        cycles = max(1, cycles // 3)
    rnd = random.Random(int(os.environ.get('POWERLOSS_SEED', '1')))
    cut = Cutter(s)
    opts = OPTS + ['--innodb-flush-method=' + method]
    s.start(opts)
    assert s.query('SELECT @@innodb_flush_method') == ((method,),)
    make_tables(s)
    acked, maybe = set(), set()
    torn_restored = 0
    torn = 0
    cut_in_recovery = 0
    for cycle in range(cycles):
        # every fifth cut tears a data page: the power goes at a data file write, which lands half done
        tear = cycle % 5 == 4
        cut.tear = '.dat' if tear else None
        if cycle:
            if cycle % 7 == 3:
                # a second power loss, during the recovery from the first one (its page writes, its checkpoint)
                cut.order(str(rnd.randint(1, 60)))
                s.start(opts, wait=False)
                try:
                    s.wait_ready()
                    # recovery needed fewer writes than the countdown: disarm it before the check, or the cut
                    # comes in the middle of the check's reads (the shim polls its control file every 2 ms)
                    cut.order('off')
                    deadline = time.time() + 5
                    while os.path.exists(cut.ctl) and s.proc.poll() is None and time.time() < deadline:
                        time.sleep(0.01)
                    if s.proc.poll() is not None:
                        raise RuntimeError('cut after recovery')
                except RuntimeError:
                    s.proc.wait(timeout=30)
                    assert s.proc.returncode == CUT_STATUS, s.tail()
                    s.stderr_f.close()
                    cut_in_recovery += 1
                    s.start(opts)
            else:
                s.start(opts)
            have = check(s, acked, maybe, binlog=cycle % 10 == 0)
            maybe = set()
            acked = have
        load = Load(s, 1000000 * (cycle + 1))
        load.start()
        if tear:
            cut.order(str(rnd.randint(1, 40)))
            deadline = time.time() + 15
            while s.proc.poll() is None and time.time() < deadline:
                time.sleep(0.05)
            if s.proc.poll() is None:
                cut.order('now')  # not that many page writes in this cycle: cut anyway
        else:
            time.sleep(rnd.uniform(0.1, 0.6))
            cut.order('now')
        report = cut.wait_cut()
        if tear and 'torn: none' not in report:
            torn += 1
        load.join()
        assert not [e for e in load.errors if not isinstance(e, (pymysql.err.OperationalError,
                                                                 pymysql.err.InterfaceError, OSError))], load.errors
        acked |= load.acked
        maybe |= load.inflight
    # the last cut's recovery, then a clean stop, the checker and one more start
    cut.tear = None
    s.env = conftest.Server.env.__get__(s)  # without the shim
    s.start(opts)
    have = check(s, acked, maybe)
    torn_restored = s.log_text().count('restored from its full-page image')
    assert s.stop() == 0
    strata_check(s)
    s.start(opts)
    assert check(s, have, set()) == have
    assert torn == 0 or torn_restored > 0, 'pages were torn (%d cuts) but no recovery rebuilt one' % torn
    print('power losses: %d (%d more during recovery), torn data-page writes: %d, torn pages rebuilt by recovery: '
          '%d, rows: %d' % (cycles, cut_in_recovery, torn, torn_restored, len(have)))
