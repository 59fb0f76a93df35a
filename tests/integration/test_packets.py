"""Big packets (16 MiB and more, split into 0xffffff pieces and joined) both ways, plain and compressed,
and max_allowed_packet enforcement (1153, SQLSTATE 08S01; only that connection is closed)."""
import pytest

from rawclient import RawClient, ServerError

MiB = 1024 * 1024
PIECE = 0xffffff


def length_query(total_payload):
    """A COM_QUERY payload (command byte included) of exactly total_payload bytes: SELECT LENGTH('aaa...')."""
    head, tail = b"SELECT LENGTH('", b"')"
    n = total_payload - 1 - len(head) - len(tail)
    return head + b'a' * n + tail, n


@pytest.mark.fresh_opts('--max-allowed-packet=64M')
@pytest.mark.parametrize('size', [PIECE, PIECE + 1, 2 * PIECE, 17 * MiB], ids=['exact', 'plus1', 'two-exact', '17MiB'])
def test_big_statement(fresh_target, size):
    """A statement whose packet is exactly 0xffffff bytes is followed by an empty packet: the server must
    wait for it; larger ones are split and joined."""
    c = RawClient.connect(port=fresh_target.port)
    q, n = length_query(size)
    assert c.query(q)[1] == [(str(n).encode(),)]
    assert c.query('SELECT 1')[1] == [(b'1',)]  # still in step
    c.close()


@pytest.mark.fresh_opts('--max-allowed-packet=64M')
def test_big_rows_and_compression(fresh_target):
    s = fresh_target
    c = RawClient.connect(port=s.port)
    names, rows = c.query("SELECT REPEAT('r', %d) AS r, 'end' AS e" % (17 * MiB))
    assert len(rows[0][0]) == 17 * MiB and rows[0][0] == b'r' * (17 * MiB) and rows[0][1] == b'end'
    c.close()
    # the same through the compressed protocol (compressed packets split at 16 MiB too)
    c = RawClient.connect(port=s.port, compress='zlib')
    q, n = length_query(PIECE + 100)
    assert c.query(q)[1] == [(str(n).encode(),)]
    names, rows = c.query("SELECT REPEAT('s', %d)" % (PIECE + 5))
    assert rows == [(b's' * (PIECE + 5),)]
    c.close()
    # and through PyMySQL
    p = s.connect(max_allowed_packet=64 * MiB)
    with p.cursor() as cur:
        cur.execute("SELECT LENGTH(%s)", ('b' * (16 * MiB + 10),))
        assert cur.fetchone() == (16 * MiB + 10,)
    p.close()


@pytest.mark.fresh_opts('--max-allowed-packet=64M')
def test_big_zstd(fresh_target):
    if not fresh_target.differs('zstd'):
        pytest.skip('%s has no zstd protocol compression' % fresh_target.kind)
    c = RawClient.connect(port=fresh_target.port, compress='zstd')
    q, n = length_query(PIECE + 100)
    assert c.query(q)[1] == [(str(n).encode(),)]
    assert c.query("SELECT REPEAT('s', %d)" % (PIECE + 5))[1] == [(b's' * (PIECE + 5),)]
    c.close()


@pytest.mark.fresh_opts('--max-allowed-packet=1M')
def test_max_allowed_packet(fresh_target):
    s = fresh_target
    assert s.query('SELECT @@max_allowed_packet, @@GLOBAL.max_allowed_packet') == ((MiB, MiB),)
    other = RawClient.connect(port=s.port)
    c = RawClient.connect(port=s.port)
    q, n = length_query(MiB - 1024)
    assert c.query(q)[1] == [(str(n).encode(),)]  # under the limit: fine
    # Announce a 2 MiB packet: the server answers 1153 from the header alone and closes the connection.
    c.send_raw((2 * MiB).to_bytes(3, 'little') + b'\x00' + b'\x03SELECT ')
    p = c.read_packet()
    err = c.parse_err(p)
    assert (err.code, err.sqlstate, err.message) == (1153, '08S01',
                                                     "Got a packet bigger than 'max_allowed_packet' bytes")
    with pytest.raises((ConnectionError, OSError)):
        c.sock.settimeout(5)
        if not c.sock.recv(1):
            raise ConnectionError('closed')
    c.close()
    # A whole oversized statement: that connection is closed (ERR 1153 or reset while still writing).
    c = RawClient.connect(port=s.port)
    try:
        c.query(length_query(3 * MiB)[0])
        pytest.fail('oversized statement was accepted')
    except ServerError as e:
        assert e.code == 1153
    except (ConnectionError, OSError):
        pass
    c.close()
    # Everyone else is still served.
    assert other.query('SELECT 2')[1] == [(b'2',)]
    assert s.query('SELECT 3') == ((3,),)
    other.close()


@pytest.mark.fresh_opts('--max-allowed-packet=1M')
def test_max_allowed_packet_session_readonly(fresh_target):
    with pytest.raises(Exception) as ei:
        fresh_target.query('SET SESSION max_allowed_packet = 2048')
    assert ei.value.args == (1621, "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value")
    # SET GLOBAL takes effect for new connections
    fresh_target.query('SET GLOBAL max_allowed_packet = 4194304')
    c = RawClient.connect(port=fresh_target.port)
    q, n = length_query(2 * MiB)
    assert c.query(q)[1] == [(str(n).encode(),)]
    c.close()


def test_default_max_allowed_packet(target):
    assert target.query('SELECT @@GLOBAL.max_allowed_packet') == ((16 * MiB,),)
