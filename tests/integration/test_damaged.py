"""Damaged files (docs/faults.md): a corrupted page, a truncated data file, a damaged account file or catalog id
file.  The error log names the damage; a damaged table fails with MariaDB's 1877 while every other table is
served; a damaged account store or catalog makes the server refuse to start with a message that names the file
and the way out, and the way out works."""
import os

import pymysql
import pytest

import test_faults
from sqlutil import run

pytestmark = pytest.mark.only('strata')  # damaging InnoDB's files is another test
PAGE = 16384
CORRUPT_MSG = "Operation cannot be performed. The table 'x.bad' is missing, corrupt or contains bad data"


def make_tables(s):
    s.start()
    c = s.connect()
    run(c, 'CREATE DATABASE x')
    run(c, 'CREATE TABLE x.bad (id INT PRIMARY KEY, v VARCHAR(100))')
    for i in range(300):
        run(c, 'INSERT INTO x.bad VALUES (%s, %s)', (i, 'MARKERxyz%05d' % i))
    run(c, 'CREATE TABLE x.good (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO x.good VALUES (1), (2)')
    c.close()
    assert s.stop() == 0


def pages_with(path, marker):
    with open(path, 'rb') as f:
        data = f.read()
    return [i for i in range(len(data) // PAGE) if marker in data[i * PAGE:(i + 1) * PAGE] and data[i * PAGE + 7] == 3]


checker = test_faults.run_checker


def expect_1877(c, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, sql)
    assert e.value.args == (1877, CORRUPT_MSG), e.value.args


def test_corrupted_page_fails_its_table_only(fresh_strata):
    s = fresh_strata
    make_tables(s)
    sysdat = os.path.join(s.datadir, 'strata_sys.dat')
    hit = pages_with(sysdat, b'MARKERxyz')
    assert hit
    with open(sysdat, 'r+b') as f:
        f.seek(hit[0] * PAGE + PAGE // 2)
        b = f.read(1)
        f.seek(hit[0] * PAGE + PAGE // 2)
        f.write(bytes([b[0] ^ 0xff]))
    r = checker(s)
    assert r.returncode != 0 and 'checksum' in r.stdout + r.stderr
    s.start()
    c = s.connect()
    assert run(c, 'SELECT COUNT(*) FROM x.good') == ((2,),)
    expect_1877(c, 'SELECT COUNT(*) FROM x.bad')
    expect_1877(c, 'SELECT v FROM x.bad WHERE id = 5')
    expect_1877(c, "INSERT INTO x.bad VALUES (1000, 'new')")
    assert run(c, 'CHECK TABLE x.bad')[-1] == ('x.bad', 'check', 'error', 'Corrupt')
    log = s.log_text()
    assert 'page 0:0:%d checksum' % hit[0] in log
    assert "table 'x.bad' is damaged on disk" in log
    run(c, 'INSERT INTO x.good VALUES (3)')  # writes to the others go on
    run(c, 'DROP TABLE x.bad')  # and the way out: drop it (then restore it from a dump)
    run(c, 'CREATE TABLE x.bad (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO x.bad VALUES (1)')
    assert run(c, 'SELECT COUNT(*) FROM x.good') == ((3,),)
    c.close()
    assert s.stop() == 0
    assert checker(s).returncode == 0
    s.start()


def test_truncated_data_file(fresh_strata):
    s = fresh_strata
    make_tables(s)
    sysdat = os.path.join(s.datadir, 'strata_sys.dat')
    size = os.path.getsize(sysdat)
    cut = min(pages_with(sysdat, b'MARKERxyz')) * PAGE
    os.truncate(sysdat, cut)
    s.start()
    assert "data file '%s' is %d bytes but its header says %d: it was truncated" % (sysdat, cut, size) in s.log_text()
    assert os.path.getsize(sysdat) == size  # its length back, the free extents usable
    c = s.connect()
    expect_1877(c, 'SELECT COUNT(*) FROM x.bad')
    run(c, 'CREATE TABLE x.new (id INT PRIMARY KEY)')
    run(c, 'INSERT INTO x.new VALUES (1)')
    assert run(c, 'SELECT * FROM x.new') == ((1,),)
    c.close()


def start_refused(s):
    s.start(wait=False)
    rc = s.proc.wait(timeout=60)
    s.stderr_f.close()
    assert rc != 0
    return s.log_text()


def test_damaged_account_file_refuses_to_start_with_a_way_out(fresh_strata):
    s = fresh_strata
    make_tables(s)
    acct = os.path.join(s.datadir, 'accounts.dat')
    with open(acct, 'r+b') as f:
        f.seek(40)
        b = f.read(1)
        f.seek(40)
        f.write(bytes([b[0] ^ 0xff]))
    log = start_refused(s)
    assert '%s: checksum mismatch' % acct in log
    assert 'restore accounts.dat from a backup, or move it away' in log
    os.rename(acct, acct + '.damaged')
    s.start()
    c = s.connect()
    assert run(c, 'SELECT COUNT(*) FROM x.good') == ((2,),)
    c.close()


def test_damaged_catalog_id_file_refuses_to_start_with_a_way_out(fresh_strata):
    s = fresh_strata
    make_tables(s)
    idf = os.path.join(s.datadir, 'strata_catalog.id')
    with open(idf) as f:
        good = f.read()
    with open(idf, 'w') as f:
        f.write('garbage\n')
    log = start_refused(s)
    assert '%s is not a catalog id file' % idf in log
    assert "write it again as the one line 'strata-catalog 1 16'" in log
    assert good == 'strata-catalog 1 16\n'  # what the way out says
    with open(idf, 'w') as f:
        f.write('strata-catalog 1 16\n')
    s.start()
    c = s.connect()
    assert run(c, 'SELECT COUNT(*) FROM x.bad') == ((300,),)
    c.close()
