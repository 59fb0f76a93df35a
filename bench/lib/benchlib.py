"""Shared helpers for the workload scripts in bench/workloads/.

Every workload script can be pointed at any MySQL-protocol server (--host, --port, --user, --password) and
reports on stdout, one line per figure:

    RESULT {"metric": "<key>", "value": <number>}
    RESULT {"metric": "<key>", "unsupported": "<why>"}
    UNSUPPORTED <why>            (the whole invocation could not run; every figure it owes is unsupported)

Everything else (progress, sysbench output) goes to stderr.  A workload never invents a number: when the server
errors, refuses, times out or returns something unusable, it says so with the reason.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD_DIR = os.path.join(BENCH_DIR, "workloads")


class Unsupported(Exception):
    """The server could not run this workload; the message says why."""


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def emit(metric, value):
    print("RESULT " + json.dumps({"metric": metric, "value": float(value)}), flush=True)


def emit_unsupported(metric, why):
    print("RESULT " + json.dumps({"metric": metric, "unsupported": str(why)}), flush=True)


def base_parser(desc):
    p = argparse.ArgumentParser(description=desc)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=3306)
    p.add_argument("--user", default="root")
    p.add_argument("--password", default="")
    p.add_argument("--db", default="sbtest", help="database the workload uses (created if missing)")
    return p


def main_wrapper(fn):
    """Run fn(); turn Unsupported (and unexpected failures) into one UNSUPPORTED line, exit 0 for Unsupported."""
    try:
        fn()
    except Unsupported as e:
        print("UNSUPPORTED " + " ".join(str(e).split())[:300], flush=True)
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)


def raise_nofile(n=65536):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(n, hard) if hard != resource.RLIM_INFINITY else n
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def connect(a, db=None, timeout=30, **kw):
    import pymysql
    try:
        return pymysql.connect(host=a.host, port=a.port, user=a.user, password=a.password, database=db,
                               connect_timeout=timeout, read_timeout=max(timeout, 120),
                               write_timeout=max(timeout, 120), autocommit=True, **kw)
    except Exception as e:
        raise Unsupported("connect failed: %s" % (e,))


def query(conn, sql, what=None):
    """Run one statement, return all rows; any error becomes Unsupported naming the statement."""
    try:
        with conn.cursor() as c:
            c.execute(sql)
            return c.fetchall()
    except Exception as e:
        raise Unsupported("%s: %s" % (what or sql[:60], e))


def ensure_db(a, db):
    conn = connect(a)
    query(conn, "CREATE DATABASE IF NOT EXISTS `%s`" % db)
    conn.close()


# ---------------------------------------------------------------------------------------------------------------
# sysbench

def sysbench_base(a, db):
    return ["sysbench", "--db-driver=mysql", "--mysql-host=%s" % a.host, "--mysql-port=%d" % a.port,
            "--mysql-user=%s" % a.user, "--mysql-password=%s" % a.password, "--mysql-db=%s" % db]


def sysbench(args, timeout, what="sysbench"):
    """Run sysbench, return its stdout; on any failure raise Unsupported with sysbench's own error line."""
    log("+ " + " ".join(x if not x.startswith("--mysql-password=") else "--mysql-password=***" for x in args))
    try:
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Unsupported("%s timed out after %ds" % (what, timeout))
    out = r.stdout
    sys.stderr.write(out)
    fatal = [l.strip() for l in out.splitlines() if "FATAL" in l]
    if r.returncode != 0 or fatal:
        reason = next((l for l in fatal if "error" in l), None) or (fatal[0] if fatal else None) or \
            "exit status %d" % r.returncode
        raise Unsupported("%s failed: %s" % (what, reason))
    return out


# sysbench prints one percentile of its own (--percentile, 95 by default); with --histogram=on it also prints
# the latency histogram it takes that percentile from, so any other is read off the same buckets the same way:
# the first bucket at which the running count reaches the share of all events.
HISTOGRAM = ["--histogram=on"]


def histogram_percentiles(out, shares=(("p95", 0.95), ("p99", 0.99))):
    """{"p95": ms, "p99": ms} from the histogram of a sysbench run report ({} when there is none)."""
    at = out.find("Latency histogram")
    if at < 0:
        return {}
    buckets = [(float(m.group(1)), int(m.group(2)))
               for m in re.finditer(r"^\s*([\d.]+) \|[* ]*\s(\d+)\s*$", out[at:], re.M)]
    total = sum(n for _, n in buckets)
    if not total:
        return {}
    res = {}
    for key, share in shares:
        run = 0
        for v, n in buckets:
            run += n
            if run >= share * total:
                res[key] = v
                break
    return res


def parse_sysbench(out):
    """Figures from a sysbench 1.0 run report."""
    res = {}
    m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out)
    if m:
        res["tps"] = float(m.group(2))
        res["transactions"] = int(m.group(1))
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", out)
    if m:
        res["qps"] = float(m.group(2))
    m = re.search(r"95th percentile:\s+([\d.]+)", out)
    if m:
        res["p95"] = float(m.group(1))
    res.update(histogram_percentiles(out))
    m = re.search(r"total time:\s+([\d.]+)s", out)
    if m:
        res["time"] = float(m.group(1))
    m = re.search(r"ignored errors:\s+(\d+)", out)
    if m:
        res["ignored_errors"] = int(m.group(1))
    if "tps" not in res:
        raise Unsupported("sysbench printed no transaction count")
    if res["transactions"] == 0:
        raise Unsupported("sysbench completed no transaction")
    return res


# ---------------------------------------------------------------------------------------------------------------
# /proc

def proc_cpu(pid):
    """(utime, stime) of a process in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    tck = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tck, int(fields[12]) / tck


def proc_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Unsupported("no VmRSS for pid %d" % pid)


def dir_bytes(path, prefix=None):
    """Bytes allocated on disk under path (st_blocks, like du); with prefix, only files whose name starts so."""
    total = 0
    for root, dirs, files in os.walk(path):
        for f in files:
            if prefix and not f.startswith(prefix):
                continue
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except OSError:
                pass
    return total


def wait_query_ok(a, deadline):
    """Poll connect + SELECT 1 until it works or deadline (time.monotonic()) passes; return the moment it worked."""
    import pymysql
    while time.monotonic() < deadline:
        try:
            c = pymysql.connect(host=a.host, port=a.port, user=a.user, password=a.password, connect_timeout=2,
                                read_timeout=5)
            with c.cursor() as cur:
                cur.execute("SELECT 1")
                ok = cur.fetchall()
            c.close()
            if ok and int(ok[0][0]) == 1:
                return time.monotonic()
        except Exception:
            pass
        time.sleep(0.01)
    return None
