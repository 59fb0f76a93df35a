"""Binary log statements on a running stratad: on by default, rotation and listing read the index only (the
server's own open counter proves no old file is opened), files are readable by Debian's mariadb-binlog."""
import os
import subprocess

import pymysql

import pytest


def status(c, name):
    with c.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE %s", (name,))
        return int(cur.fetchone()[1])


def q(c, sql):
    with c.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


@pytest.mark.only('strata')
def test_binlog_on_by_default_and_rotation_opens_no_old_file(fresh_target):
    s = fresh_target
    c = s.connect()
    assert q(c, 'SELECT @@log_bin, @@binlog_format, @@sync_binlog') == ((1, 'ROW', 1),)
    first = q(c, 'SHOW MASTER STATUS')[0][0]
    for _ in range(30):
        q(c, 'FLUSH BINARY LOGS')
    logs = q(c, 'SHOW BINARY LOGS')
    assert len(logs) == 31 and logs[0][0] == first
    assert all(int(size) > 0 and compressed == 'No' for _, size, compressed, _ in logs)
    opened = status(c, 'Binlog_files_opened')
    for _ in range(10):
        q(c, 'FLUSH BINARY LOGS')
    q(c, 'SHOW BINARY LOGS')
    q(c, 'SHOW MASTER STATUS')
    # ten rotations: ten new files opened, not one of the 31 old ones
    assert status(c, 'Binlog_files_opened') - opened == 10
    assert status(c, 'Binlog_rotations') >= 40
    events = q(c, "SHOW BINLOG EVENTS IN '%s'" % first)
    assert [e[2] for e in events][:2] == ['Format_desc', 'Gtid_list'] and events[-1][2] == 'Rotate'
    c.close()


@pytest.mark.only('strata')
def test_mariadb_binlog_reads_strata_files(fresh_target):
    s = fresh_target
    c = s.connect()
    q(c, 'FLUSH BINARY LOGS')
    base = q(c, 'SELECT @@log_bin_basename')[0][0]
    c.close()
    out = subprocess.run(['mariadb-binlog', base + '.000001'], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert 'Rotate to' in out.stdout and 'End of log file' in out.stdout


@pytest.mark.only('strata')
@pytest.mark.fresh_opts('--skip-log-bin')
def test_skip_log_bin(fresh_target):
    c = fresh_target.connect()
    assert q(c, 'SELECT @@log_bin') == ((0,),)
    with pytest.raises(Exception) as ei:
        q(c, 'SHOW BINARY LOGS')
    assert ei.value.args[0] == 1381
    c.close()


@pytest.mark.only('strata')
def test_purge_and_reset_read_the_index_only(fresh_target):
    c = fresh_target.connect()
    for _ in range(5):
        q(c, 'FLUSH BINARY LOGS')
    names = [r[0] for r in q(c, 'SHOW BINARY LOGS')]
    opened = status(c, 'Binlog_files_opened')
    q(c, "PURGE BINARY LOGS BEFORE '2000-01-01 00:00:00'")  # removes nothing
    assert [r[0] for r in q(c, 'SHOW BINARY LOGS')] == names
    q(c, "PURGE BINARY LOGS TO '%s'" % names[3])
    assert [r[0] for r in q(c, 'SHOW BINARY LOGS')] == names[3:]
    assert status(c, 'Binlog_files_opened') == opened  # purge opened no binlog file
    with pytest.raises(pymysql.err.MySQLError) as ei:
        q(c, "PURGE BINARY LOGS TO 'nope.000001'")
    assert ei.value.args[0] == 1373
    q(c, 'PURGE BINARY LOGS BEFORE NOW() + INTERVAL 1 DAY')  # everything but the active file
    assert [r[0] for r in q(c, 'SHOW BINARY LOGS')] == [names[-1]]
    q(c, 'RESET MASTER')
    assert [r[0] for r in q(c, 'SHOW BINARY LOGS')] == [names[0]]
    c.close()


def test_session_gtid_domain_and_server_id(strata, unique):
    """SET SESSION gtid_domain_id / server_id: what the session commits (row transactions and DDL) is logged under
    them, as MariaDB does (they were accepted and the binlog's global values used); domain 0 too when the global
    domain is another; other sessions keep the global ones."""
    db = unique('gd')
    c = strata.connect()
    cur = c.cursor()

    def pos():
        cur.execute('SELECT @@gtid_binlog_pos')
        return dict((g.split('-')[0], g) for g in cur.fetchone()[0].split(',') if g)

    cur.execute('CREATE DATABASE %s' % db)
    cur.execute('CREATE TABLE %s.t (id INT PRIMARY KEY)' % db)
    try:
        cur.execute('SET SESSION gtid_domain_id = 7, SESSION server_id = 99')
        cur.execute('INSERT INTO %s.t VALUES (1)' % db)
        assert pos()['7'] == '7-99-1'
        cur.execute('CREATE TABLE %s.u (id INT)' % db)  # DDL too
        assert pos()['7'] == '7-99-2'
        cur.execute('SET GLOBAL gtid_domain_id = 3')
        before = int(pos()['0'].split('-')[2])
        c2 = strata.connect()
        cur2 = c2.cursor()
        cur2.execute('SET SESSION gtid_domain_id = 0')
        cur2.execute('INSERT INTO %s.t VALUES (2)' % db)
        c2.close()
        assert pos()['0'] == '0-1-%d' % (before + 1), 'domain 0 was logged under the global domain'
        c3 = strata.connect()
        c3.cursor().execute('INSERT INTO %s.t VALUES (3)' % db)
        c3.close()
        assert pos()['3'] == '3-1-1'
    finally:
        cur.execute('SET GLOBAL gtid_domain_id = 0')
        cur.execute('DROP DATABASE %s' % db)
        c.close()
