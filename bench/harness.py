#!/usr/bin/python3
"""bench/run's engine: start MariaDB and stratad side by side, run the workloads against both, print one table.

Each workload is a script in bench/workloads/ that any MySQL-protocol server can be pointed at; this file only
starts the servers, decides the order of runs (the two servers alternate, ABBA, so drift hits both), collects the
figures, and prints them with the machine, the versions and the exact options.  A figure a server could not
produce is shown as "not supported yet" with the reason in the notes; no number is ever made up.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
WL = os.path.join(BENCH, "workloads")
sys.path.insert(0, os.path.join(BENCH, "lib"))
import benchlib  # noqa: E402

WORKLOADS = ["oltp", "show-warnings", "binlog-rotation", "disk-data", "connections", "recovery", "commit-fsyncs",
             "semisync", "routines", "joins"]
# Run only when named (too long for the default run and CI): bench/run prepare-large
NAMED_ONLY = ["prepare-large", "larger", "scaling"]
NOT_SUPPORTED = "not supported yet"
CURRENT_CHILD = None  # the workload process running now, killed (its process group) on interrupt


def say(*a):
    print(*a, flush=True)


def free_port():
    """A free loopback port below the kernel's ephemeral range: other test harnesses on this machine take ports
    with bind(0), from the ephemeral range, so they cannot pick ours between our check and the server's bind."""
    import random
    lo = 32768
    try:
        lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    lo = max(lo, 12000)
    for _ in range(200):
        port = random.randrange(10000, lo)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def run_quiet(args, timeout=30):
    try:
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return r.returncode, r.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


# ---------------------------------------------------------------------------------------------------------------
# Servers

# Options strata may be started without, if it refuses them (its figures are then marked "*").
DROPPABLE = ("--innodb-buffer-pool-size", "--innodb-flush-log-at-trx-commit", "--log-bin", "--sync-binlog",
             "--binlog-format", "--server-id", "--max-connections", "--pid-file", "--log-error")

class Server:
    """One server under test, in its own scratch directory, on a free loopback port."""

    def __init__(self, kind, scratch, o):
        self.kind = kind
        self.name = "MariaDB" if kind == "mariadb" else "strata"
        self.dir = os.path.join(scratch, kind)
        os.makedirs(self.dir)
        self.datadir = os.path.join(self.dir, "data")
        self.socket = os.path.join(self.dir, "server.sock")
        self.port = free_port()
        self.log = os.path.join(self.dir, "server.log")
        self.user, self.password = "root", ""
        self.proc = None
        self.pid = None
        self.down = None          # why this server cannot run anything any more
        self.version = None
        self.dropped = []         # options of the common set the server refused, so it ran without them
        self.in_effect = ""       # what SELECT @@global.x says after start
        self.restarts = 0         # restarts after the server died or hung during a workload
        self.events = []          # what happened to it during the run (deaths, restarts)
        self.differs = []         # settings not in effect as asked
        self.o = o
        # Same durability and buffer pool for both, under the same (MySQL) option names.
        self.common = ["--datadir=" + self.datadir, "--port=%d" % self.port, "--socket=" + self.socket,
                       "--bind-address=127.0.0.1", "--pid-file=" + os.path.join(self.dir, "server.pid"),
                       "--log-error=" + os.path.join(self.dir, "error.log"),
                       "--innodb-buffer-pool-size=" + o.buffer_pool, "--innodb-flush-log-at-trx-commit=1",
                       "--log-bin=binlog", "--sync-binlog=1", "--binlog-format=ROW", "--server-id=1",
                       "--max-connections=4000"]
        if o.flush_method:
            self.common.append("--innodb-flush-method=" + o.flush_method)
        if kind == "mariadb":
            self.cmd = ["mariadbd", "--no-defaults", "--user=root"] + self.common + ["--open-files-limit=20000"]
        else:
            self.cmd = [o.stratad] + self.common

    def start(self):
        if self.kind == "mariadb":
            rc, out = run_quiet(["mariadb-install-db", "--no-defaults", "--user=root", "--datadir=" + self.datadir,
                                 "--auth-root-authentication-method=normal", "--skip-test-db"], 300)
            if rc != 0:
                self.down = "mariadb-install-db failed: " + out.splitlines()[-1] if out else "exit %d" % rc
                return
        else:
            if not os.access(self.cmd[0], os.X_OK):
                self.down = "%s does not exist (run make)" % self.cmd[0]
                return
            os.makedirs(self.datadir, exist_ok=True)
        for attempt in range(len(DROPPABLE) + 1):
            mark = os.path.getsize(self.log) if os.path.exists(self.log) else 0
            with open(self.log, "a") as logf:
                self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=logf,
                                             stderr=subprocess.STDOUT, start_new_session=True)
            self.pid = self.proc.pid
            why = self.wait_ready(self.o.start_timeout)
            if not why:
                return
            self.stop()
            # A server that refuses an option of the common set is started again without it, and every figure
            # it then produces is marked: it did not run under the same options.
            bad = self.refused_option(mark)
            if self.kind == "strata" and bad and bad.split("=")[0] in DROPPABLE and bad in self.cmd:
                self.cmd.remove(bad)
                self.dropped.append(bad)
                continue
            self.down = why
            return

    def refused_option(self, offset):
        import re
        try:
            with open(self.log, errors="replace") as f:
                f.seek(offset)
                m = re.search(r"unknown option '([^']+)'", f.read())
            return m.group(1) if m else None
        except OSError:
            return None

    def restart(self):
        """Stop and start again with the same command (a fresh process for figures that a warm one would hide)."""
        self.stop()
        with open(self.log, "a") as logf:
            self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.pid = self.proc.pid
        why = self.wait_ready(self.o.start_timeout)
        if why:
            self.down = "restart failed: " + why
            self.stop()

    def health(self):
        """None if the server still answers a statement within 10 s (an error reply counts as an answer)."""
        import pymysql
        try:
            c = pymysql.connect(host="127.0.0.1", port=self.port, user=self.user, password=self.password,
                                connect_timeout=10, read_timeout=10, autocommit=None)
        except Exception as e:
            return "stopped accepting connections (%s)" % e
        try:
            with c.cursor() as cur:
                cur.execute("SELECT 1")
        except pymysql.err.MySQLError as e:
            if isinstance(e, pymysql.err.OperationalError) and e.args and e.args[0] in (2006, 2013):
                return "stopped answering statements (%s)" % e
        finally:
            try:
                c.close()
            except Exception:
                pass
        return None

    def wait_ready(self, timeout):
        """None once a client can connect and authenticate, else why not."""
        import pymysql
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self.proc and self.proc.poll() is not None:
                return "%s exited with status %d at start: %s" % (self.name, self.proc.returncode, self.log_tail())
            try:
                c = pymysql.connect(host="127.0.0.1", port=self.port, user=self.user, password=self.password,
                                    connect_timeout=2, read_timeout=10, autocommit=None)
                self.version = c.get_server_info()
                c.close()
                return None
            except Exception as e:
                last = str(e)
            time.sleep(0.1)
        return "%s did not accept a connection within %d s (%s)" % (self.name, timeout, last)

    def log_tail(self):
        for f in (os.path.join(self.dir, "error.log"), self.log):
            try:
                lines = [l.strip() for l in open(f, errors="replace") if l.strip()]
                errs = [l for l in lines if "error" in l.lower() or "unknown" in l.lower()]
                if errs or lines:
                    return (errs or lines)[-1][:200]
            except OSError:
                pass
        return "(no output)"

    def args(self, db=None):
        return ["--host", "127.0.0.1", "--port", str(self.port), "--user", self.user, "--password", self.password] + \
            (["--db", db] if db else [])

    def check_alive(self, during):
        if not self.down and self.pid and not alive(self.pid):
            self.down = "%s died during %s: %s" % (self.name, during, self.log_tail())

    def ours(self, pid):
        """pid is alive and is this server (its command line names our data directory): no pid-reuse accidents."""
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                return alive(pid) and ("--datadir=" + self.datadir).encode() in f.read().split(b"\0")
        except OSError:
            return False

    def stop_all(self):
        """Stop the server and, if the recovery workload restarted it and was interrupted, the restarted one."""
        self.stop()
        try:
            pid = int(open(os.path.join(self.dir, "restarted.pid")).read().strip())
        except (OSError, ValueError):
            return
        if self.ours(pid):
            self.pid, self.proc = pid, None
            self.stop()

    def stop(self):
        """SIGTERM by pid, SIGKILL after 60 s."""
        if not self.pid:
            return
        pid, self.pid = self.pid, None
        if self.ours(pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
            deadline = time.monotonic() + 60
            while alive(pid) and time.monotonic() < deadline:
                if self.proc and self.proc.pid == pid:
                    try:
                        self.proc.wait(0.1)
                    except subprocess.TimeoutExpired:
                        pass
                else:
                    time.sleep(0.1)
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        if self.proc:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass


def size_bytes(txt):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = str(txt).strip().upper()
    return int(t[:-1]) * m[t[-1]] if t and t[-1] in m else int(t)


def check_settings(s, o):
    """Ask the running server what it actually runs with: equal options on the command line are not equal
    durability if a server accepts an option and ignores it.  Returns (in-effect text, list of differences)."""
    import pymysql
    want = [("log_bin", "ON"), ("sync_binlog", "1"), ("binlog_format", "ROW"),
            ("innodb_flush_log_at_trx_commit", "1"), ("innodb_buffer_pool_size", str(size_bytes(o.buffer_pool))),
            ("max_connections", "4000")]
    want.append(("innodb_flush_method", o.flush_method or ""))  # "": each server's default, shown, not compared
    have, diffs = [], []
    try:
        c = pymysql.connect(host="127.0.0.1", port=s.port, user=s.user, password=s.password, connect_timeout=10,
                            read_timeout=10, autocommit=None)
    except Exception as e:
        return "could not connect to check (%s)" % e, ["all settings unverified"]
    for name, expect in want:
        try:
            with c.cursor() as cur:
                cur.execute("SELECT @@global.%s" % name)
                v = cur.fetchall()[0][0]
            v = v.decode() if isinstance(v, bytes) else str(v)
        except Exception as e:
            have.append("%s=?" % name)
            diffs.append("%s unverified (%s)" % (name, str(e)[:80]))
            continue
        norm = {"1": "ON", "0": "OFF"}.get(v, v.upper()) if name == "log_bin" else v.upper()
        have.append("%s=%s" % (name, v))
        if expect and norm != expect.upper():
            diffs.append("%s=%s (asked %s)" % (name, v, expect))
    c.close()
    return " ".join(have), diffs


def setup_accounts(servers):
    """Use a password account 'bench' on both servers if both can create it; otherwise root with no password on
    both, so the two are always driven the same way."""
    import pymysql
    ok = True
    for s in servers:
        if s.down:
            continue
        try:
            c = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", connect_timeout=5,
                                read_timeout=30, autocommit=True)
            with c.cursor() as cur:
                cur.execute("CREATE USER IF NOT EXISTS 'bench'@'%' IDENTIFIED BY 'bench'")
                cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'bench'@'%' WITH GRANT OPTION")
            c.close()
            c = pymysql.connect(host="127.0.0.1", port=s.port, user="bench", password="bench", connect_timeout=5)
            c.close()
        except Exception as e:
            ok = False
    for s in servers:
        if ok:
            s.user, s.password = "bench", "bench"
    return "bench/bench (created on every server that runs)" if ok else "root, empty password (a server could not create 'bench')"


# ---------------------------------------------------------------------------------------------------------------
# The plan: invocations of workload scripts, each owing a list of figures

class Metric:
    def __init__(self, key, label, better, ratio=None):
        self.key, self.label, self.better = key, label, better
        self.ratio = ratio  # (numerator key, denominator key): a row derived from two medians, no runs of its own


class Invocation:
    """needs_sbtest: True for the common sbtest tables (--tables x --table-size in database sbtest), or a tuple
    (database, tables, rows) of its own, prepared once per server before the first invocation that names it.
    runs: how many runs per server (default --runs)."""
    def __init__(self, section, script, args, metrics, needs_sbtest=False, special=None, timeout=900, runs=None):
        self.section, self.script, self.args, self.metrics = section, script, args, metrics
        self.needs_sbtest, self.special, self.timeout = needs_sbtest, special, timeout
        self.runs = runs
        self.db = needs_sbtest[0] if isinstance(needs_sbtest, tuple) else None  # None: the workload's default
        self.derived = []


def csv_ints(s):
    return [int(x) for x in str(s).split(",") if x.strip()]


def plan(o, which):
    inv = []
    sb = ["--tables", str(o.tables), "--table-size", str(o.table_size)]
    if "oltp" in which:
        for test in o.oltp_tests.split(","):
            test = test if test.startswith(("oltp_", "select_", "bulk_")) else "oltp_" + test
            for t in csv_ints(o.threads):
                unit = "QPS" if test == "oltp_point_select" else "TPS"
                inv.append(Invocation(
                    "1. sysbench OLTP, %d tables x %s rows, %d s per run" % (o.tables, f"{o.table_size:,}", o.time),
                    "oltp", ["run", "--test", test, "--threads", str(t), "--time", str(o.time)] + sb,
                    [Metric("%s/%d/tps" % (test, t), "%s, %d thr: %s" % (test, t, unit), "higher"),
                     Metric("%s/%d/p95" % (test, t), "%s, %d thr: p95 latency ms" % (test, t), "lower"),
                     Metric("%s/%d/p99" % (test, t), "%s, %d thr: p99 latency ms" % (test, t), "lower")],
                    needs_sbtest=True))
    if "show-warnings" in which:
        for client, comp in (("sysbench", "off"), ("sysbench", "zlib"), ("flood", "off"), ("flood", "zstd")):
            k = "show-warnings/%s/%s" % (client, comp)
            lab = "SHOW WARNINGS, %d thr, %s, compression %s" % (o.sw_threads, client, comp)
            inv.append(Invocation(
                "2. SHOW WARNINGS flood (seed 000), %d s per run" % o.sw_time, "show-warnings",
                ["--client", client, "--compress", comp, "--threads", str(o.sw_threads), "--time", str(o.sw_time),
                 "--flood", o.flood or ""],
                [Metric(k + "/qps", lab + ": QPS", "higher")] +
                ([Metric(k + "/p95", lab + ": p95 latency ms", "lower"),
                  Metric(k + "/p99", lab + ": p99 latency ms", "lower")] if client == "sysbench" else []) +
                [Metric(k + "/sys", lab + ": server sys CPU % of all cores", "lower")],
                special="pid"))
    if "binlog-rotation" in which:
        counts = sorted(csv_ints(o.binlog_files))
        for i, n in enumerate(counts):
            inv.append(Invocation(
                "3. binlog rotation (seed 000): %d samples per run" % o.binlog_samples, "binlog-rotation",
                ["--files", str(n), "--samples", str(o.binlog_samples)] + (["--reset"] if i == 0 else []),
                [Metric("binlog/flush/%d" % n, "FLUSH BINARY LOGS at %s files: ms (median)" % f"{n:,}", "lower"),
                 Metric("binlog/purge/%d" % n, "PURGE BINARY LOGS BEFORE (removes none) at %s files: ms (median)"
                        % f"{n:,}", "lower"),
                 Metric("binlog/flush-opens/%d" % n, "old binlog files opened per FLUSH at %s files (strace)"
                        % f"{n:,}", "lower"),
                 Metric("binlog/purge-opens/%d" % n, "binlog files opened per PURGE (removes none) at %s files "
                        "(strace)" % f"{n:,}", "lower")],
                special="pid", timeout=3600))
        if len(counts) > 1:
            inv[-1].derived = [
                Metric("binlog/%s/ratio" % w, "%s time, %s / %s files (ratio of the medians above)"
                       % (w.upper(), f"{counts[-1]:,}", f"{counts[0]:,}"), "lower",
                       ratio=("binlog/%s/%d" % (w, counts[-1]), "binlog/%s/%d" % (w, counts[0])))
                for w in ("flush", "purge")]
    if "disk-data" in which:
        inv.append(Invocation(
            "4. disk-data counters (seed 002): %s rows of 4 KiB" % f"{o.dd_rows:,}", "disk-data",
            ["--rows", str(o.dd_rows), "--read-threads", str(o.dd_read_threads), "--read-time", str(o.dd_read_time)],
            [Metric("dd/insert", "insert, 1 client, batches of 5: rows/s", "higher"),
             Metric("dd/read", "random reads by id, %d clients, %d s: reads/s" % (o.dd_read_threads, o.dd_read_time),
                    "higher"),
             Metric("dd/read/p95", "  p95 latency of one read ms", "lower"),
             Metric("dd/read/p99", "  p99 latency of one read ms", "lower"),
             Metric("dd/disk", "data directory growth during the inserts: MiB", "lower"),
             Metric("dd/binlog", "  of which binlog files: MiB", "lower"),
             Metric("dd/size", "data directory size right after the inserts: MiB", "lower")],
            special="datadir", timeout=3600))
    if "connections" in which:
        sec = "5. connections (seed 003)"
        inv.append(Invocation(sec, "idle-connections", ["--connections", str(o.idle_connections)],
                              [Metric("conn/idle/%d" % o.idle_connections, "memory per idle connection at %s: KiB"
                                      % f"{o.idle_connections:,}", "lower")], special="fresh-pid"))
        for t in csv_ints(o.conn_threads):
            inv.append(Invocation(
                sec, "oltp", ["run", "--test", "oltp_write_only", "--threads", str(t), "--time", str(o.conn_time),
                              "--ps-mode", "disable", "--tag", "conn/"] + sb,
                [Metric("conn/oltp_write_only/%d/tps" % t, "oltp_write_only (no PS), %d thr, %d s: TPS"
                        % (t, o.conn_time), "higher"),
                 Metric("conn/oltp_write_only/%d/p95" % t, "oltp_write_only (no PS), %d thr: p95 latency ms" % t,
                        "lower"),
                 Metric("conn/oltp_write_only/%d/p99" % t, "oltp_write_only (no PS), %d thr: p99 latency ms" % t,
                        "lower")],
                needs_sbtest=True))
    if "commit-fsyncs" in which:
        for t in (1, 64):
            k = "fsync/oltp_insert/%d" % t
            inv.append(Invocation(
                "7. commit path: fsyncs per transaction (oltp_insert, %d s)" % o.time, "oltp",
                ["run", "--test", "oltp_insert", "--threads", str(t), "--time", str(o.time), "--fsyncs",
                 "--tag", "fsync/"] + sb,
                [Metric(k + "/tps", "oltp_insert, %d thr: TPS" % t, "higher"),
                 Metric(k + "/p95", "oltp_insert, %d thr: p95 latency ms" % t, "lower"),
                 Metric(k + "/p99", "oltp_insert, %d thr: p99 latency ms" % t, "lower"),
                 Metric(k + "/binlog-fsyncs", "oltp_insert, %d thr: binlog fsyncs per transaction" % t, "lower"),
                 Metric(k + "/redo-fsyncs", "oltp_insert, %d thr: engine log fsyncs per transaction" % t,
                        "lower")],
                needs_sbtest=True))
    if "semisync" in which:
        st = csv_ints(o.semisync_threads)
        mets = []
        for t in st:
            mets += [Metric("semisync/%d/async" % t, "oltp_write_only (no PS), %d thr, replica async: TPS" % t, "higher"),
                     Metric("semisync/%d/async/p95" % t, "  p95 latency ms", "lower"),
                     Metric("semisync/%d/async/p99" % t, "  p99 latency ms", "lower"),
                     Metric("semisync/%d/semi" % t, "oltp_write_only (no PS), %d thr, replica semi-sync: TPS" % t,
                            "higher"),
                     Metric("semisync/%d/semi/p95" % t, "  p95 latency ms", "lower"),
                     Metric("semisync/%d/semi/p99" % t, "  p99 latency ms", "lower"),
                     Metric("semisync/%d/yes" % t, "  share of those transactions the replica acknowledged", "higher")]
        inv.append(Invocation(
            "8. semi-synchronous replication (seed 003): a MariaDB replica, %d s per run" % o.semisync_time,
            "semisync", ["--threads", ",".join(map(str, st)), "--time", str(o.semisync_time)] + sb, mets,
            needs_sbtest=True, timeout=3600))
        inv[-1].derived = [Metric("semisync/%d/cost" % t, "semi-sync / async TPS at %d thr" % t, "higher",
                                  ratio=("semisync/%d/semi" % t, "semisync/%d/async" % t)) for t in st]
        if len(st) > 1:
            inv[-1].derived.append(Metric("semisync/hold", "semi-sync TPS, %d thr / %d thr" % (st[-1], st[0]),
                                          "higher", ratio=("semisync/%d/semi" % st[-1], "semisync/%d/semi" % st[0])))
    if "prepare-large" in which:
        inv.append(Invocation(
            "9. sysbench prepare at scale: %d tables x %s rows (multi-row INSERTs, then CREATE INDEX)"
            % (o.large_tables, f"{o.large_size:,}"), "prepare-large",
            ["--tables", str(o.large_tables), "--table-size", str(o.large_size)],
            [Metric("prepare-large/s", "sysbench prepare %dx%s: wall time s" % (o.large_tables, f"{o.large_size:,}"),
                    "lower"),
             Metric("prepare-large/hwm-mib", "  server peak resident memory over it: MiB", "lower"),
             Metric("prepare-large/rss-mib", "  server resident memory after it: MiB", "lower")],
            special="pid", timeout=7200))
    if "larger" in which:
        # Data about 8x the buffer pool (8 x 1,000,000 rows, ~1.9 GiB beside 128 MiB), both servers with
        # innodb_flush_method=O_DIRECT (main() sets it) so neither reads through the page cache.  One warm-up run
        # fills each pool first; its figure is shown, cold and warm differ.
        db = ("sblarger", o.larger_tables, o.larger_size)
        sec = ("12. data larger than the buffer pool: %d tables x %s rows, %s pool, innodb_flush_method=%s, %d s "
               "per run" % (o.larger_tables, f"{o.larger_size:,}", o.buffer_pool, o.flush_method, o.larger_time))
        sbl = ["--tables", str(o.larger_tables), "--table-size", str(o.larger_size)]
        inv.append(Invocation(
            sec, "oltp", ["run", "--test", "oltp_read_only", "--threads", "16", "--time", str(o.larger_warmup),
                          "--tag", "larger-warmup/"] + sbl,
            [Metric("larger-warmup/oltp_read_only/16/tps", "warm-up: oltp_read_only, 16 thr, %d s from the start: "
                    "TPS" % o.larger_warmup, "higher")], needs_sbtest=db, runs=1, timeout=o.larger_warmup + 900))
        for test in o.larger_tests.split(","):
            test = test if test.startswith(("oltp_", "select_")) else "oltp_" + test
            unit = "QPS" if test == "oltp_point_select" else "TPS"
            for t in csv_ints(o.larger_threads):
                k = "larger/%s/%d" % (test, t)
                inv.append(Invocation(
                    sec, "oltp", ["run", "--test", test, "--threads", str(t), "--time", str(o.larger_time),
                                  "--tag", "larger/"] + sbl,
                    [Metric(k + "/tps", "%s, %d thr: %s" % (test, t, unit), "higher"),
                     Metric(k + "/p95", "%s, %d thr: p95 latency ms" % (test, t), "lower"),
                     Metric(k + "/p99", "%s, %d thr: p99 latency ms" % (test, t), "lower")],
                    needs_sbtest=db, timeout=o.larger_time + 900))
    if "scaling" in which:
        # The growth of cost with the work: one table of each size, every connection count, one run per cell.
        for size in csv_ints(o.scaling_sizes):
            db = ("sbscale%d" % size, 1, size)
            sec = "13. scaling: 1 table x %s rows, %d s per run" % (f"{size:,}", o.scaling_time)
            for test in o.scaling_tests.split(","):
                test = test if test.startswith(("oltp_", "select_")) else "oltp_" + test
                unit = "QPS" if test == "oltp_point_select" else "TPS"
                for t in csv_ints(o.scaling_threads):
                    k = "scaling/%d/%s/%d" % (size, test, t)
                    inv.append(Invocation(
                        sec, "oltp", ["run", "--test", test, "--threads", str(t), "--time", str(o.scaling_time),
                                      "--ps-mode", "disable", "--tag", "scaling/%d/" % size, "--tables", "1",
                                      "--table-size", str(size)],
                        [Metric(k + "/tps", "%s rows, %s, %d thr: %s" % (f"{size:,}", test, t, unit), "higher"),
                         Metric(k + "/p95", "  p95 latency ms", "lower"),
                         Metric(k + "/p99", "  p99 latency ms", "lower")],
                        needs_sbtest=db, runs=o.scaling_runs, timeout=o.scaling_time + 900))
    if "routines" in which:
        inv.append(Invocation(
            "10. stored procedures and triggers: a %s-iteration SET loop, a %s-row cursor loop and INSERT ... SELECT"
            " of those rows with and without an audit trigger (best of 3)"
            % (f"{o.routine_iterations:,}", f"{o.routine_rows:,}"), "routines",
            ["--iterations", str(o.routine_iterations), "--rows", str(o.routine_rows)],
            [Metric("routines/loop-s", "WHILE x < n DO SET x = x + 1: CALL wall time s", "lower"),
             Metric("routines/cursor-s", "cursor loop (FETCH until NOT FOUND): CALL wall time s", "lower"),
             Metric("routines/trigger-insert-s", "INSERT ... SELECT into a table with an AFTER INSERT audit "
                    "trigger: wall time s", "lower"),
             Metric("routines/plain-insert-s", "the same INSERT ... SELECT without a trigger: wall time s",
                    "lower")],
            timeout=900))
    if "joins" in which:
        inv.append(Invocation(
            "11. joins on columns no index serves: %s x %s rows on an equality (hash join), at the servers' defaults"
            " and at join_cache_level=4 on both, a third table; and the same three tables indexed (best of 3)"
            % (f"{o.join_rows:,}", f"{o.join_small:,}"), "joins",
            ["--rows", str(o.join_rows), "--small", str(o.join_small)],
            [Metric("joins/hash-2-s", "big JOIN small ON big.x = small.y, no index: wall time s", "lower"),
             Metric("joins/hash-2-jcl4-s", "  the same at join_cache_level=4 (MariaDB's hash join): s", "lower"),
             Metric("joins/hash-3-s", "  joined to a third table by its primary key, filtered: s", "lower"),
             Metric("joins/indexed-3-s", "the three tables with indexes on the join columns: s", "lower"),
             Metric("joins/indexed-3-best-s", "  the same with FROM written in its best order: s", "lower"),
             Metric("joins/star-5-s", "fact + 4 dimensions, FROM written fact first: s", "lower"),
             Metric("joins/star-5-best-s", "  the same with FROM written in its best order: s", "lower")],
            timeout=1800))
    if "recovery" in which:
        inv.append(Invocation(
            "6. crash recovery", "recovery",
            ["--load-threads", str(o.recovery_threads), "--load-time", str(o.recovery_load)] + sb,
            [Metric("recovery/s", "kill -9 under oltp_write_only x%d -> SELECT 1 answers: s" % o.recovery_threads,
                    "lower")], needs_sbtest=True, special="recovery", timeout=900))
    return inv


# ---------------------------------------------------------------------------------------------------------------
# Running

def run_script(script, args, logf, timeout):
    """Run one workload script; return ({metric: value}, {metric: why}, why-all-or-None)."""
    global CURRENT_CHILD
    cmd = [os.path.join(WL, script)] + args
    shown = " ".join(shlex.quote(x) for x in cmd)
    logf.write("\n$ %s\n" % shown)
    logf.flush()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=logf, text=True, start_new_session=True)
    CURRENT_CHILD = p
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, _ = p.communicate()
        return {}, {}, "timed out after %d s" % timeout
    except BaseException:
        kill_group(p)  # interrupted: the workload and its sysbench go too
        p.wait()
        raise
    finally:
        CURRENT_CHILD = None
    logf.write(out)
    vals, whys, whole = {}, {}, None
    for line in out.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[7:])
            if "value" in r:
                vals[r["metric"]] = r["value"]
            else:
                whys[r["metric"]] = r["unsupported"]
        elif line.startswith("UNSUPPORTED "):
            whole = line[12:].strip()
    if p.returncode != 0 and not whole:
        whole = "%s exited with status %d (see the log)" % (script, p.returncode)
    return vals, whys, whole


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass


class Results:
    def __init__(self):
        self.vals = {}    # (key, server kind) -> [values]
        self.why = {}     # (key, server kind) -> reason

    def add(self, key, kind, v):
        self.vals.setdefault((key, kind), []).append(v)

    def fail(self, key, kind, why):
        self.why.setdefault((key, kind), why)


def prepare_sbtest(s, o, logf, state, which=True):
    db, tables, size = ("sbtest", o.tables, o.table_size) if which is True else which
    key = (s.kind, db)
    if key in state:
        return state[key]
    say("  [%s] preparing %s: %d tables x %s rows" % (s.name, db, tables, f"{size:,}"))
    t = time.monotonic()
    vals, whys, whole = run_script("oltp", ["prepare", "--tables", str(tables), "--table-size", str(size)]
                                   + s.args(db), logf, 4 * 3600)
    say("    %.0f s" % (time.monotonic() - t))
    state[key] = ("%s prepare: %s" % (db, whole)) if whole else None
    return state[key]


def execute(o, servers, invs, res, logf):
    sb_state = {}
    for i, inv in enumerate(invs):
        say("[%d/%d] %s %s" % (i + 1, len(invs), inv.script, " ".join(a for a in inv.args if a != "--flood"
                                                                      and a != (o.flood or "-"))))
        given_up = {}
        for rep in range(inv.runs or o.runs):
            order = servers if rep % 2 == 0 else list(reversed(servers))
            for s in order:
                if s.down:
                    why = s.down
                elif s.kind in given_up:
                    continue
                elif inv.needs_sbtest:
                    why = prepare_sbtest(s, o, logf, sb_state, inv.needs_sbtest)  # None once prepared
                else:
                    why = None
                if why:
                    for m in inv.metrics:
                        res.fail(m.key, s.kind, why)
                    given_up[s.kind] = why
                    continue
                args = list(inv.args) + s.args(inv.db)
                pidfile = None
                if inv.special == "fresh-pid":
                    s.restart()
                    if s.down:
                        for m in inv.metrics:
                            res.fail(m.key, s.kind, s.down)
                        continue
                if inv.special in ("pid", "fresh-pid"):
                    args += ["--pid", str(s.pid)]
                elif inv.special == "datadir":
                    args += ["--datadir", s.datadir]
                elif inv.special == "recovery":
                    pidfile = os.path.join(s.dir, "restarted.pid")
                    if os.path.exists(pidfile):
                        os.unlink(pidfile)
                    args += ["--pid", str(s.pid), "--start-cmd", json.dumps(s.cmd), "--pid-out", pidfile,
                             "--log", s.log]
                t = time.monotonic()
                vals, whys, whole = run_script(inv.script, args, logf, inv.timeout)
                if pidfile:
                    recovered(s, pidfile)
                for m in inv.metrics:
                    if m.key in vals:
                        res.add(m.key, s.kind, vals[m.key])
                    else:
                        res.fail(m.key, s.kind, whole or whys.get(m.key) or "workload printed no figure")
                got = [vals[m.key] for m in inv.metrics if m.key in vals]
                say("    run %d %-7s %5.1fs  %s" % (rep + 1, s.name, time.monotonic() - t,
                                                    ", ".join(fmt(v) for v in got) if got else
                                                    "%s: %s" % (NOT_SUPPORTED, whole or "see notes")))
                if not got:
                    given_up[s.kind] = whole
                s.check_alive(inv.script)
                if not got and not s.down:
                    h = s.health()
                    if h:
                        s.down = "%s %s after %s" % (s.name, h, inv.script)
                if s.down and s.restarts < o.max_restarts:
                    # One workload that kills the server should not blank every later one: note it, start the
                    # server again on the same data directory, and go on.
                    s.restarts += 1
                    s.events.append("%s %s: %s; restarted (%d of at most %d)"
                                    % (time.strftime("%H:%M:%S"), " ".join(inv.args[:4]), s.down, s.restarts,
                                       o.max_restarts))
                    say("    %s is down (%s); restarting it" % (s.name, s.down))
                    s.down = None
                    s.restart()
                    if s.down:
                        s.events.append("restart failed: " + s.down)


def recovered(s, pidfile):
    """After the recovery workload the old process may be gone and a new one (started by the workload) run."""
    try:
        newpid = int(open(pidfile).read().strip())
    except (OSError, ValueError):
        newpid = None  # the workload stopped before its kill -9
    if newpid is None:
        if s.pid and not alive(s.pid):
            s.down = "%s is gone after the recovery workload: %s" % (s.name, s.log_tail())
        return
    if s.proc:
        try:
            s.proc.wait(10)  # reap the killed process
        except subprocess.TimeoutExpired:
            pass
        s.proc = None
    s.pid = newpid
    if not alive(newpid):
        s.down = "%s did not come back after kill -9: %s" % (s.name, s.log_tail())


# ---------------------------------------------------------------------------------------------------------------
# Output

def fmt(v):
    a = abs(v)
    if v == 0:
        return "0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


MARKS = {}  # server kind -> suffix for its figures ("*" when it ran without some of the common options)


def cell(res, key, kind, runs, kinds):
    if kind not in kinds:
        return "not run", None
    vs = res.vals.get((key, kind))
    if not vs:
        return NOT_SUPPORTED, None
    med = statistics.median(vs)
    txt = "%s (%s–%s)" % (fmt(med), fmt(min(vs)), fmt(max(vs)))
    if len(vs) < runs:
        txt += " n=%d" % len(vs)
    return txt + MARKS.get(kind, ""), med


def table_rows(invs, res, runs, kinds):
    rows, seen = [], set()
    section = None
    for inv in invs:
        if inv.section != section:
            section = inv.section
            rows.append(("section", section))
        for m in inv.metrics:
            if m.key in seen:
                continue
            seen.add(m.key)
            mt, mv = cell(res, m.key, "mariadb", inv.runs or runs, kinds)
            st, sv = cell(res, m.key, "strata", inv.runs or runs, kinds)
            ratio = "%.2fx" % (sv / mv) + MARKS.get("strata", "") if mv and sv is not None else "–"
            rows.append(("row", m.label, m.better, mt, st, ratio))
        for m in inv.derived:
            cells = []
            for kind in ("mariadb", "strata"):
                num = cell(res, m.ratio[0], kind, runs, kinds)[1]
                den = cell(res, m.ratio[1], kind, runs, kinds)[1]
                if kind not in kinds:
                    cells.append(("not run", None))
                elif num is None or den is None or den == 0:
                    cells.append((NOT_SUPPORTED, None))
                else:
                    cells.append(("%.2f" % (num / den) + MARKS.get(kind, ""), num / den))
            ratio = ("%.2fx" % (cells[1][1] / cells[0][1]) + MARKS.get("strata", "")
                     if cells[0][1] and cells[1][1] is not None else "–")
            rows.append(("row", m.label, m.better, cells[0][0], cells[1][0], ratio))
    return rows


HEAD = ("workload: figure", "better", "MariaDB median (min–max)", "strata median (min–max)", "strata/MariaDB")


def text_table(rows):
    w = [len(h) for h in HEAD]
    for r in rows:
        if r[0] == "row":
            for i, c in enumerate(r[1:]):
                w[i] = max(w[i], len(c))
    line = "  ".join("-" * x for x in w)
    out = ["  ".join(h.ljust(w[i]) for i, h in enumerate(HEAD)), line]
    for r in rows:
        if r[0] == "section":
            out.append(r[1])
        else:
            out.append("  ".join(c.ljust(w[i]) if i in (0, 1) else c.rjust(w[i]) for i, c in enumerate(r[1:])))
    return "\n".join(out)


def md_table(rows):
    out = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * 1 + ":---:|" + "---:|" * 3]
    for r in rows:
        if r[0] == "section":
            out.append("| **%s** | | | | |" % r[1])
        else:
            out.append("| " + " | ".join(r[1:]) + " |")
    return "\n".join(out)


def headlines(o, res, kinds):
    """The few figures the README quotes: strata/MariaDB ratios of medians, and the within-server ratios the issues
    set targets for.  Only from cells that have numbers."""
    def med(key, kind):
        vs = res.vals.get((key, kind)) if kind in kinds else None
        return statistics.median(vs) if vs else None

    def ran(*keys):
        return any((k, kind) in res.vals or (k, kind) in res.why for k in keys for kind in ("mariadb", "strata"))

    def vs_maria(label, key, better):
        if not ran(key):
            return None
        m, st = med(key, "mariadb"), med(key, "strata")
        if m and st is not None:
            return "%s: strata/MariaDB %.2fx%s (%s is better)" % (label, st / m, MARKS.get("strata", ""), better)
        return "%s: %s" % (label, NOT_SUPPORTED if m else "no MariaDB figure")

    def within(label, num, den, target):
        if not ran(num, den):
            return None
        parts = []
        for kind, name in (("mariadb", "MariaDB"), ("strata", "strata")):
            a, b = med(num, kind), med(den, kind)
            parts.append("%s %s" % (name, "%.2f" % (a / b) + MARKS.get(kind, "") if a is not None and b
                                    else NOT_SUPPORTED))
        return "%s: %s (%s)" % (label, ", ".join(parts), target)

    out = []
    if o.idle_connections:
        out.append(vs_maria("memory per idle connection at %s" % f"{o.idle_connections:,}",
                            "conn/idle/%d" % o.idle_connections, "lower"))
    sw = "show-warnings/"
    out.append(within("SHOW WARNINGS QPS, zlib / off (sysbench)", sw + "sysbench/zlib/qps", sw + "sysbench/off/qps",
                      "issue 2 wants >= 0.9 for strata"))
    out.append(within("SHOW WARNINGS QPS, zstd / off (flood client)", sw + "flood/zstd/qps", sw + "flood/off/qps",
                      "issue 2 wants >= 0.9 for strata"))
    out.append(vs_maria("SHOW WARNINGS QPS, zlib", sw + "sysbench/zlib/qps", "higher"))
    counts = sorted(csv_ints(o.binlog_files))
    if len(counts) > 1:
        out.append(within("FLUSH BINARY LOGS time, %s / %s files" % (f"{counts[-1]:,}", f"{counts[0]:,}"),
                          "binlog/flush/%d" % counts[-1], "binlog/flush/%d" % counts[0],
                          "issue 5 wants <= 1.2"))
    th = csv_ints(o.threads)
    if th:
        for t in ("oltp_point_select", "oltp_read_write", "oltp_write_only", "select_random_ranges"):
            out.append(vs_maria("%s, %d thr" % (t, th[-1]), "%s/%d/tps" % (t, th[-1]), "higher"))
    ct = csv_ints(o.conn_threads)
    if ct:
        out.append(vs_maria("oltp_write_only, %d thr" % ct[-1], "conn/oltp_write_only/%d/tps" % ct[-1], "higher"))
    out.append(vs_maria("disk-data inserts rows/s", "dd/insert", "higher"))
    sst = csv_ints(o.semisync_threads)
    if sst:
        out.append(within("semi-sync / async TPS, %d thr" % sst[0], "semisync/%d/semi" % sst[0],
                          "semisync/%d/async" % sst[0], "target: cost at most 10%, >= 0.90"))
        if len(sst) > 1:
            out.append(within("semi-sync TPS, %d thr / %d thr" % (sst[-1], sst[0]), "semisync/%d/semi" % sst[-1],
                              "semisync/%d/semi" % sst[0], "seed 003: MySQL 0.05"))
            out.append(vs_maria("semi-sync oltp_write_only, %d thr" % sst[-1], "semisync/%d/semi" % sst[-1],
                                "higher"))
    out.append(vs_maria("recovery time after kill -9", "recovery/s", "lower"))
    return [h for h in out if h]


def notes(invs, res, servers):
    """Unique reasons for 'not supported yet', with the number of cells each explains."""
    out = []
    for s in servers:
        seen = {}
        for inv in invs:
            for m in inv.metrics:
                if (m.key, s.kind) not in res.vals and (m.key, s.kind) in res.why:
                    labels = seen.setdefault(res.why[(m.key, s.kind)], [])
                    if m.label.split(":")[0] not in labels:
                        labels.append(m.label.split(":")[0])
        for why, labels in seen.items():
            out.append("%s, %d row group(s) (%s%s): %s" % (s.name, len(labels), "; ".join(labels[:3]),
                                                        "; ..." if len(labels) > 3 else "", why))
    return out


def machine_info(scratch):
    info = []
    cpu = "?"
    try:
        for l in open("/proc/cpuinfo"):
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for l in open("/proc/meminfo"):
            if l.startswith("MemTotal:"):
                mem = "%.1f GiB" % (int(l.split()[1]) / 1048576)
    except OSError:
        pass
    rc, src = run_quiet(["findmnt", "-no", "SOURCE,FSTYPE", "-T", scratch])
    dev = src.split()[0] if rc == 0 and src else ""
    disk = src if rc == 0 else "?"
    if dev.startswith("/dev/"):
        rc, ls = run_quiet(["lsblk", "-dno", "SIZE,ROTA,MODEL", dev])
        if rc == 0 and ls:
            parts = ls.split(None, 2)
            disk += ", %s, %s%s" % (parts[0], "rotational" if parts[1:2] == ["1"] else "non-rotational",
                                    (", " + parts[2]) if len(parts) > 2 else "")
    info.append("machine: %d cores (nproc) %s, %s memory, disk %s (scratch %s), kernel %s"
                % (os.cpu_count(), cpu, mem, disk, scratch, platform.release()))
    return info


def versions(servers, o):
    out = []
    rc, v = run_quiet(["mariadbd", "--version"])
    out.append("MariaDB: " + (v.splitlines()[0] if v else "?"))
    st = next((s for s in servers if s.kind == "strata"), None)
    if st:
        rc, v = run_quiet([o.stratad, "--version"], 10) if os.access(o.stratad, os.X_OK) else (1, "")
        git = run_quiet(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])[1]
        dirty = run_quiet(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"])[1]
        out.append("strata: %s at commit %s%s; --version printed: %s; handshake version: %s"
                   % (o.stratad, git, " (+ uncommitted changes)" if dirty else "",
                      (v.splitlines() or ["nothing"])[0][:100] if rc == 0 else "(failed)", st.version or "-"))
    out.append("clients: " + run_quiet(["sysbench", "--version"])[1] + "; " +
               "bench/client/flood.c (zstd) " + ("built" if o.flood else "not built") +
               "; PyMySQL " + __import__("pymysql").__version__)
    return out


def options_text(servers, o, account):
    out = []
    for s in servers:
        out.append("%s command: %s" % (s.name, " ".join(shlex.quote(x) for x in s.cmd)))
        if s.in_effect:
            out.append("%s in effect (SELECT @@global.x): %s" % (s.name, s.in_effect))
        if s.dropped:
            out.append("* %s refused %s (unknown option) and ran without: its figures marked * are NOT under the "
                       "same options as %s's" % (s.name, " ".join(s.dropped),
                                                  "MariaDB" if s.kind == "strata" else "strata"))
        for e in s.events:
            out.append("%s died or hung: %s" % (s.name, e))
        if s.differs:
            out.append("* %s does not run as asked: %s; its figures marked * are NOT under equal durability/sizes"
                       % (s.name, "; ".join(s.differs)))
    out.append("account: " + account)
    out.append("runs per cell: %d (median, min–max); servers alternate ABBA; both run throughout" % o.runs)
    return out


# ---------------------------------------------------------------------------------------------------------------

def build_flood(scratch, logf):
    src = os.path.join(BENCH, "client", "flood.c")
    out = os.path.join(scratch, "flood")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    rc, msg = run_quiet([cc, "-O2", "-std=c11", "-Wall", "-o", out, src, "-lzstd", "-lz", "-lcrypto", "-lpthread"],
                        120)
    logf.write("flood build: rc=%d %s\n" % (rc, msg))
    return out if rc == 0 else None


QUICK = dict(larger_tables=2, larger_size=2000, larger_time=1, larger_warmup=1, larger_threads="1,4",
             scaling_sizes="1000,5000", scaling_threads="1,4", scaling_time=1,
             table_size=1000, threads="1,4", time=1, sw_time=1, binlog_files="10,50", binlog_samples=5,
             dd_rows=1000, dd_read_time=1, idle_connections=100, conn_threads="4,30", conn_time=1, recovery_load=1,
             semisync_threads="4,30", semisync_time=1, join_rows=2000, join_small=500)


def options():
    p = argparse.ArgumentParser(
        prog="bench/run", description="strata beside MariaDB: start both, run the workloads, print one table.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("workloads", nargs="*", help="any of: " + ", ".join(WORKLOADS) + " (default: all)")
    p.add_argument("--runs", type=int, default=3, help="runs per cell (at least 3 for the table)")
    p.add_argument("--servers", default="mariadb,strata")
    p.add_argument("--stratad", default=os.path.join(REPO, "build", "stratad"))
    p.add_argument("--buffer-pool", default="128M", help="innodb_buffer_pool_size for both")
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--table-size", type=int, default=10000)
    p.add_argument("--oltp-tests", default="point_select,read_only,read_write,write_only,insert,select_random_ranges")
    p.add_argument("--threads", default="1,16,64")
    p.add_argument("--time", type=int, default=3, help="seconds per sysbench OLTP run")
    p.add_argument("--sw-threads", type=int, default=30)
    p.add_argument("--sw-time", type=int, default=3)
    p.add_argument("--binlog-files", default="10,1000,3500")
    p.add_argument("--binlog-samples", type=int, default=20)
    p.add_argument("--dd-rows", type=int, default=10000)
    p.add_argument("--dd-read-threads", type=int, default=20)
    p.add_argument("--dd-read-time", type=int, default=3)
    p.add_argument("--idle-connections", type=int, default=3000)
    p.add_argument("--conn-threads", default="30,300,3000")
    p.add_argument("--semisync-threads", default="30,3000", help="semisync workload: client threads")
    p.add_argument("--semisync-time", type=int, default=5, help="semisync workload: seconds per run")
    p.add_argument("--conn-time", type=int, default=3)
    p.add_argument("--recovery-threads", type=int, default=16)
    p.add_argument("--routine-iterations", type=int, default=1000000, help="routines: SET loop iterations")
    p.add_argument("--routine-rows", type=int, default=10000, help="routines: cursor loop rows")
    p.add_argument("--join-rows", type=int, default=50000, help="joins: rows of the big table")
    p.add_argument("--join-small", type=int, default=5000, help="joins: rows of the table joined to it")
    p.add_argument("--large-tables", type=int, default=4, help="prepare-large: tables")
    p.add_argument("--large-size", type=int, default=1000000, help="prepare-large: rows per table")
    p.add_argument("--larger-tables", type=int, default=8, help="larger: tables")
    p.add_argument("--larger-size", type=int, default=1000000, help="larger: rows per table")
    p.add_argument("--larger-tests", default="point_select,read_only,read_write", help="larger: sysbench tests")
    p.add_argument("--larger-threads", default="1,16,64", help="larger: client threads")
    p.add_argument("--larger-time", type=int, default=10, help="larger: seconds per run")
    p.add_argument("--larger-warmup", type=int, default=60, help="larger: seconds of the warm-up run")
    p.add_argument("--scaling-sizes", default="10000,1000000,10000000", help="scaling: rows of the one table")
    p.add_argument("--scaling-tests", default="point_select,write_only", help="scaling: sysbench tests")
    p.add_argument("--scaling-threads", default="1,16,64,300,3000", help="scaling: client threads")
    p.add_argument("--scaling-time", type=int, default=5, help="scaling: seconds per run")
    p.add_argument("--scaling-runs", type=int, default=1, help="scaling: runs per cell")
    p.add_argument("--flush-method", default=None,
                   help="innodb_flush_method for both servers (default: each server's own, MariaDB O_DIRECT, "
                        "strata fsync; O_DIRECT when the larger workload runs)")
    p.add_argument("--recovery-load", type=int, default=3, help="seconds of write load before kill -9")
    p.add_argument("--start-timeout", type=int, default=60)
    p.add_argument("--max-restarts", type=int, default=3,
                   help="restart a server that died or hung during a workload at most this often, then give up")
    p.add_argument("--scratch", default=None, help="parent directory for the scratch directory")
    p.add_argument("--keep", action="store_true", help="keep the data directories (logs are always kept)")
    p.add_argument("--results", default=None,
                   help="write the markdown table here (default: bench/RESULTS.md when every workload runs)")
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes and 1 s runs, to check the harness (never writes bench/RESULTS.md)")
    o = p.parse_args()
    if o.quick:
        for k, v in QUICK.items():
            if getattr(o, k) == p.get_default(k):
                setattr(o, k, v)
    if "larger" in o.workloads and not o.flush_method:
        o.flush_method = "O_DIRECT"
    for w in o.workloads:
        if w not in WORKLOADS + NAMED_ONLY and w != "all":
            p.error("unknown workload %r (choose from %s)" % (w, ", ".join(WORKLOADS + NAMED_ONLY)))
    return o


def main():
    o = options()
    which = WORKLOADS if not o.workloads or "all" in o.workloads else \
        [w for w in WORKLOADS + NAMED_ONLY if w in o.workloads]
    # bench/RESULTS.md only from a full run of the real pair; anything else writes only where --results says.
    real = (os.path.abspath(o.stratad) == os.path.join(REPO, "build", "stratad") and
            [x.strip() for x in o.servers.split(",")] == ["mariadb", "strata"])
    results_path = o.results or (os.path.join(BENCH, "RESULTS.md") if which == WORKLOADS and real and not o.quick
                                 and o.runs >= 3 else None)
    cmdline = os.environ.get("BENCH_CMDLINE") or "bench/run " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    benchlib.raise_nofile(20000)
    scratch = tempfile.mkdtemp(prefix="strata-bench-", dir=o.scratch)
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    logf = open(os.path.join(scratch, "bench.log"), "w")
    servers = []

    def on_signal(sig, frame):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        say("scratch: %s (log: %s/bench.log)" % (scratch, scratch))
        o.flood = build_flood(scratch, logf) if "show-warnings" in which else None
        for kind in o.servers.split(","):
            servers.append(Server(kind.strip(), scratch, o))
        for s in servers:
            say("starting %s on 127.0.0.1:%d" % (s.name, s.port))
            s.start()
            if s.dropped:
                MARKS[s.kind] = " *"
                say("  %s refused %s: started without (its figures are marked *)" % (s.name, " ".join(s.dropped)))
            if s.down:
                say("  %s is not running: %s" % (s.name, s.down))
            else:
                say("  %s is up, pid %d, version %s" % (s.name, s.pid, s.version))
        account = setup_accounts(servers)
        for s in servers:
            if s.down:
                continue
            s.in_effect, s.differs = check_settings(s, o)
            if s.differs or s.dropped:
                MARKS[s.kind] = " *"
            say("  %s runs with: %s%s" % (s.name, s.in_effect,
                                         ("; DIFFERS: " + "; ".join(s.differs)) if s.differs else ""))
        invs = plan(o, which)
        res = Results()
        execute(o, servers, invs, res, logf)
        elapsed = time.monotonic() - t0
        rows = table_rows(invs, res, o.runs, [s.kind for s in servers])
        head = ["strata beside MariaDB, %s UTC, %.1f min" % (started.strftime("%Y-%m-%d %H:%M"), elapsed / 60),
                "command: " + cmdline] + machine_info(scratch) + versions(servers, o) + options_text(servers, o,
                                                                                                   account)
        nts = notes(invs, res, servers)
        hl = headlines(o, res, [s.kind for s in servers])
        say("")
        say("\n".join(head))
        say("")
        say(text_table(rows))
        say("\nheadlines (medians):")
        say("\n".join("  " + h for h in hl))
        if nts:
            say("\nwhy 'not supported yet':")
            say("\n".join("  " + n for n in nts))
        if results_path:
            write_results(results_path, head, rows, nts, hl, o)
            say("\nwrote " + results_path)
    except KeyboardInterrupt:
        say("\ninterrupted; stopping everything")
        if CURRENT_CHILD:
            kill_group(CURRENT_CHILD)
        return_code = 130
    else:
        return_code = 0
    finally:
        for s in servers:
            s.stop_all()
        logf.close()
        if not o.keep:
            for s in servers:
                shutil.rmtree(s.datadir, ignore_errors=True)
    sys.exit(return_code)


def write_results(path, head, rows, nts, hl, o):
    text = ["# bench results", "",
            "Written by `bench/run`; never edited by hand.  Each cell is the median of %d runs with min–max; "
            "`not supported yet` means the server could not run that workload (the reason is listed below)."
            % o.runs, "", "```"] + head + ["```", "", md_table(rows), "", "Headlines (medians):", ""] + \
        ["- " + h for h in hl] + [""]
    if nts:
        text += ["Why `not supported yet`:", ""] + ["- " + n for n in nts] + [""]
    with open(path, "w") as f:
        f.write("\n".join(text))


if __name__ == "__main__":
    main()
