"""COM_FIELD_LIST (mysql_list_fields(), what mariadb-show --count and old drivers use): the column definitions
and defaults of a table, byte for byte as MariaDB sends them, its errors, and mariadb-show --count over it."""
import subprocess

import pytest

from rawclient import RawClient, ServerError

DDL = [
    'DROP DATABASE IF EXISTS fl',
    'CREATE DATABASE fl',
    "CREATE TABLE fl.t (a INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5) NOT NULL, vd VARCHAR(5) DEFAULT 'xy', "
    "vn VARCHAR(5), dt DATETIME NOT NULL, dt3 DATETIME(3) NOT NULL, e ENUM('p','q') NOT NULL, bl BLOB NOT NULL, "
    "dc DECIMAL(5,2) NOT NULL, ts TIMESTAMP NOT NULL, f FLOAT NOT NULL, dd DATE NOT NULL, tm TIME NOT NULL, "
    "y YEAR NOT NULL, bi BIT(3) NOT NULL, s SET('a','b') NOT NULL, bn BINARY(3) NOT NULL, "
    "u BIGINT UNSIGNED NOT NULL DEFAULT 7, c CHAR(4) NOT NULL)",
    'CREATE TABLE fl.two (x INT, y INT)',
]


def field_list(srv, table, wild=b'', db='fl', user='root', password=''):
    """[(packet bytes)] of the answer up to and without the end packet, and the end packet's first byte."""
    c = RawClient.connect(port=srv.port, user=user, password=password, db=db)
    try:
        c.command(4, table + b'\x00' + wild)
        out = []
        while True:
            p = c.read_packet()
            if p[0] == 0xff:
                raise RawClient.parse_err(p)
            if p[0] == 0xfe and len(p) < 9:
                return out
            out.append(p)
    finally:
        c.close()


@pytest.fixture
def both(strata, mariadb):
    for srv in (strata, mariadb):
        for q in DDL:
            srv.query(q)
    return strata, mariadb


def test_field_list_bytes_as_mariadb(both):
    strata, mariadb = both
    for table, wild in ((b't', b''), (b't', b'd%'), (b't', b'v_'), (b'two', b''), (b't', b'nomatch')):
        got, want = field_list(strata, table, wild), field_list(mariadb, table, wild)
        assert got == want, (table, wild, [p.hex(' ') for p in got], [p.hex(' ') for p in want])


def test_field_list_errors(both):
    for srv in both:
        with pytest.raises(ServerError) as e:
            field_list(srv, b'nosuch')
        assert e.value.args[0] == 1146
        with pytest.raises(ServerError) as e:
            field_list(srv, b't', db=None)
        assert e.value.args[0] == 1046
        srv.query("DROP USER IF EXISTS 'flu'@'%'")
        srv.query("CREATE USER 'flu'@'%' IDENTIFIED BY 'pw'")
        srv.query("GRANT SELECT ON fl.two TO 'flu'@'%'")
        with pytest.raises(ServerError) as e:
            field_list(srv, b't', user='flu', password='pw')
        assert e.value.args[0] == 1142
        assert len(field_list(srv, b'two', user='flu', password='pw')) == 2
        srv.query("DROP USER 'flu'@'%'")


def test_mariadb_show_count(both):
    outs = []
    for srv in both:
        r = subprocess.run(['mariadb-show', '--no-defaults', '-uroot', '-h', srv.host, '-P', str(srv.port),
                            '--protocol=TCP', '--count', 'fl'], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    assert '|        19 |' in outs[0] or '19' in outs[0]
