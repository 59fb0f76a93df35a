"""Clients that do not speak utf8mb4 (issue 4): character_set_client / character_set_connection /
character_set_results as SET NAMES and the handshake's collation id set them.  Statement text is read in the
client's charset, a plain '...' literal is a string of the connection's charset, result strings (and column
names) are sent in character_set_results and declared with its collation number; latin1 is MySQL's latin1
(cp1252: 0x80 is the euro sign).  Every expectation here is checked against the MariaDB reference too.

Known gaps (not tested): UPPER/LOWER of letters beyond Latin-1 (Greek, Cyrillic, Latin Extended), and charset
introducers (_utf8mb4'..') inside a latin1 client's text (the whole text is converted first).  Comparison beyond
ASCII (utf8mb4_general_ci 'é' = 'É', latin1_swedish_ci) is tested in test_collation.py and tests/sql/collation.sql.
"""
import pymysql
import pytest

from rawclient import RawClient

LATIN1 = 8      # latin1_swedish_ci
UTF8MB4 = 45    # utf8mb4_general_ci
BINARY = 63


@pytest.fixture
def c(target):
    cl = RawClient.connect(port=target.port)
    cl.query('CREATE DATABASE IF NOT EXISTS cs_test')
    cl.query('USE cs_test')
    cl.query('DROP TABLE IF EXISTS t')
    cl.query('CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(20) CHARACTER SET utf8mb4, '
             'l VARCHAR(20) CHARACTER SET latin1, b VARBINARY(20))')
    yield cl
    cl.query('SET NAMES utf8mb4')
    cl.query('DROP DATABASE cs_test')
    cl.quit()


def charsets(cl):
    return [col.charset for col in cl.last.columns]


def test_latin1_client_writes_and_reads(c):
    c.query('SET NAMES latin1')
    c.query(b"INSERT INTO t VALUES (1, 'caf\xe9 \x80', 'caf\xe9 \x80', 'caf\xe9')")
    _, rows = c.query('SELECT u, l, b, HEX(u), HEX(l), HEX(b), LENGTH(u), LENGTH(l), CHAR_LENGTH(u) FROM t')
    # stored: utf8mb4 (é = C3A9, € = E282AC) and latin1 (E9, 80); sent back in latin1; binary untouched
    assert rows == [(b'caf\xe9 \x80', b'caf\xe9 \x80', b'caf\xe9', b'636166C3A920E282AC', b'636166E92080',
                     b'636166E9', b'9', b'6', b'6')]
    assert charsets(c)[:3] == [LATIN1, LATIN1, BINARY]


def test_utf8_client_reads_latin1_column(c):
    c.query('SET NAMES latin1')
    c.query(b"INSERT INTO t VALUES (1, 'caf\xe9 \x80', 'caf\xe9 \x80', 'x')")
    c.query('SET NAMES utf8mb4')
    _, rows = c.query('SELECT u, l, HEX(l), LENGTH(l) FROM t')
    assert rows == [('café €'.encode(), 'café €'.encode(), b'636166E92080', b'6')]
    assert charsets(c)[:2] == [UTF8MB4, UTF8MB4]


def test_unconvertible_characters_become_question_marks(c):
    c.query("INSERT INTO t VALUES (2, 'naïve 日本', 'naïve', 'x')")
    c.query('SET NAMES latin1')
    _, rows = c.query('SELECT u, l, CONCAT(u, l), CONCAT_WS(\'-\', l, u) FROM t')
    assert rows == [(b'na\xefve ??', b'na\xefve', b'na\xefve ??na\xefve', b'na\xefve-na\xefve ??')]


def test_latin1_literals_compare_with_both_charsets(c):
    c.query("INSERT INTO t VALUES (1, 'café €', 'café €', 'x'), (2, 'cafe', 'cafe', 'y')")
    c.query('SET NAMES latin1')
    assert c.query(b"SELECT id FROM t WHERE l = 'caf\xe9 \x80'")[1] == [(b'1',)]
    assert c.query(b"SELECT id FROM t WHERE u = 'caf\xe9 \x80'")[1] == [(b'1',)]
    assert c.query('SELECT id FROM t WHERE u = l ORDER BY id')[1] == [(b'1',), (b'2',)]


def test_set_names_binary_sends_bytes_as_stored(c):
    c.query("INSERT INTO t VALUES (1, 'café €', 'café €', 'caf')")
    c.query('SET NAMES binary')
    _, rows = c.query('SELECT u, l, b FROM t')
    assert rows == [('café €'.encode(), 'café €'.encode('cp1252'), b'caf')]
    assert charsets(c) == [BINARY, BINARY, BINARY]
    # the text is not converted either: these bytes are the literal
    _, rows = c.query(b"SELECT 'caf\xc3\xa9', LENGTH('caf\xc3\xa9')")
    assert rows == [(b'caf\xc3\xa9', b'5')]


def test_character_set_results_null_sends_as_stored(c):
    c.query("INSERT INTO t VALUES (1, 'café €', 'café €', 'x')")
    c.query('SET character_set_results = NULL')
    _, rows = c.query('SELECT u, l FROM t')
    assert rows == [('café €'.encode(), 'café €'.encode('cp1252'))]
    assert charsets(c) == [UTF8MB4, LATIN1]


def test_column_names_in_results_charset(c):
    c.query('SET NAMES latin1')
    names, rows = c.query(b"SELECT 1 AS `caf\xe9`, id AS `\xe9t\xe9` FROM t")
    assert [n.encode('utf-8', 'surrogateescape') for n in names] == [b'caf\xe9', b'\xe9t\xe9']


def test_handshake_collation_sets_the_connection_charsets(target):
    conn = pymysql.connect(host=target.host, port=target.port, user='root', password=target.password,
                           charset='latin1', autocommit=True)
    try:
        cur = conn.cursor()
        cur.execute('SELECT @@character_set_client, @@character_set_connection, @@character_set_results, '
                    '@@collation_connection')
        assert cur.fetchall() == (('latin1', 'latin1', 'latin1', 'latin1_swedish_ci'),)
        cur.execute("SELECT 'café', LENGTH('café'), CONVERT(_utf8mb4 0xE282AC USING utf8mb4)")
        assert cur.fetchall() == (('café', 4, '€'),)
        assert cur.description[0][0] == 'café'
    finally:
        conn.close()


def test_upper_lower_beyond_ascii(c):
    c.query("INSERT INTO t VALUES (2, 'naïve ÿ', 'naïve', 'x')")
    _, rows = c.query("SELECT UPPER(u), LOWER(UPPER(u)), HEX(UPPER(l)), HEX(LOWER(_latin1 0xC99F8A8CD7)) FROM t")
    assert rows == [('NAÏVE Ÿ'.encode(), 'naïve ÿ'.encode(), b'4E41CF5645', b'E99F8A8CD7')]
    c.query('SET NAMES latin1')
    _, rows = c.query('SELECT UPPER(l) FROM t')
    assert rows == [(b'NA\xcfVE',)]
