"""A small MySQL client/server protocol client for the integration tests (sockets + struct).

It exists because no stock Python client exercises the binary protocol (COM_STMT_*), zstd compression,
caching_sha2_password over TLS or deliberately broken packets. It follows the MySQL source docs'
page_protocol_* pages; nothing here is copied from a client library.

Packet layout (every packet):
    0  3  payload length (little-endian); 0xffffff means "more packets follow with the same command"
    3  1  sequence id (reset to 0 at each command)
    4  n  payload
Compressed layout (after CLIENT_COMPRESS or CLIENT_ZSTD_COMPRESSION_ALGORITHM), wrapping the above:
    0  3  compressed payload length
    3  1  compressed sequence id
    4  3  uncompressed length (0: the payload is not compressed)
    7  n  payload (zlib or zstd stream of one or more whole/partial packets)

Use:
    c = RawClient.connect(host='127.0.0.1', port=3306, user='root', password='')
    cols, rows = c.query('SELECT 1')           # text protocol, raises ServerError on ERR
    st = c.prepare('SELECT ?+1'); cols, rows = c.execute(st, [41])
"""
import ctypes
import ctypes.util
import hashlib
import socket
import ssl
import struct
import zlib

# Capability flags.
CLIENT_LONG_PASSWORD = 1
CLIENT_FOUND_ROWS = 2
CLIENT_LONG_FLAG = 4
CLIENT_CONNECT_WITH_DB = 8
CLIENT_COMPRESS = 32
CLIENT_LOCAL_FILES = 128
CLIENT_PROTOCOL_41 = 512
CLIENT_INTERACTIVE = 1024
CLIENT_SSL = 2048
CLIENT_TRANSACTIONS = 8192
CLIENT_SECURE_CONNECTION = 32768
CLIENT_MULTI_STATEMENTS = 1 << 16
CLIENT_MULTI_RESULTS = 1 << 17
CLIENT_PS_MULTI_RESULTS = 1 << 18
CLIENT_PLUGIN_AUTH = 1 << 19
CLIENT_CONNECT_ATTRS = 1 << 20
CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21
CLIENT_SESSION_TRACK = 1 << 23
CLIENT_DEPRECATE_EOF = 1 << 24
CLIENT_ZSTD_COMPRESSION_ALGORITHM = 1 << 26

SERVER_STATUS_AUTOCOMMIT = 2
SERVER_MORE_RESULTS_EXISTS = 8
SERVER_SESSION_STATE_CHANGED = 0x4000
SESSION_TRACK_SYSTEM_VARIABLES = 0
SESSION_TRACK_SCHEMA = 1
SESSION_TRACK_STATE_CHANGE = 2

# Commands.
COM_QUIT = 0x01
COM_INIT_DB = 0x02
COM_QUERY = 0x03
COM_STATISTICS = 0x09
COM_PROCESS_KILL = 0x0c
COM_PING = 0x0e
COM_CHANGE_USER = 0x11
COM_STMT_PREPARE = 0x16
COM_STMT_EXECUTE = 0x17
COM_STMT_SEND_LONG_DATA = 0x18
COM_STMT_CLOSE = 0x19
COM_STMT_RESET = 0x1a
COM_SET_OPTION = 0x1b
COM_RESET_CONNECTION = 0x1f

# Column types.
T_DECIMAL, T_TINY, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE, T_NULL, T_TIMESTAMP, T_LONGLONG, T_INT24 = range(10)
T_DATE, T_TIME, T_DATETIME, T_YEAR, T_NEWDATE, T_VARCHAR, T_BIT = range(10, 17)
T_NEWDECIMAL, T_ENUM, T_SET, T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_BLOB = range(246, 253)
T_VAR_STRING, T_STRING, T_GEOMETRY = 253, 254, 255

DEFAULT_CAPS = (CLIENT_LONG_PASSWORD | CLIENT_LONG_FLAG | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS |
                CLIENT_SECURE_CONNECTION | CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS |
                CLIENT_PS_MULTI_RESULTS | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS |
                CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)
MAX_PACKET = 0xffffff


class ServerError(Exception):
    """An ERR packet: code, sqlstate, message."""

    def __init__(self, code, sqlstate, message):
        super().__init__(code, sqlstate, message)
        self.code, self.sqlstate, self.message = code, sqlstate, message

    def __str__(self):
        return '(%d, %s) %s' % (self.code, self.sqlstate, self.message)


class ProtocolError(Exception):
    pass


class _Zstd:
    """libzstd through ctypes (no Python zstd module in Debian's python3 here)."""
    lib = None

    @classmethod
    def load(cls):
        if cls.lib is None:
            name = ctypes.util.find_library('zstd') or 'libzstd.so.1'
            lib = ctypes.CDLL(name)
            lib.ZSTD_compress.restype = ctypes.c_size_t
            lib.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                          ctypes.c_int]
            lib.ZSTD_decompress.restype = ctypes.c_size_t
            lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
            lib.ZSTD_compressBound.restype = ctypes.c_size_t
            lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
            lib.ZSTD_isError.restype = ctypes.c_uint
            lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
            cls.lib = lib
        return cls.lib

    @classmethod
    def compress(cls, data, level=3):
        lib = cls.load()
        cap = lib.ZSTD_compressBound(len(data))
        dst = ctypes.create_string_buffer(cap)
        n = lib.ZSTD_compress(dst, cap, data, len(data), level)
        if lib.ZSTD_isError(n):
            raise ProtocolError('ZSTD_compress failed')
        return dst.raw[:n]

    @classmethod
    def decompress(cls, data, size):
        lib = cls.load()
        dst = ctypes.create_string_buffer(max(size, 1))
        n = lib.ZSTD_decompress(dst, size, data, len(data))
        if lib.ZSTD_isError(n) or n != size:
            raise ProtocolError('ZSTD_decompress failed or wrong size (%d != %d)' % (n, size))
        return dst.raw[:n]


def lenenc_int(n):
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b'\xfc' + struct.pack('<H', n)
    if n < 1 << 24:
        return b'\xfd' + struct.pack('<I', n)[:3]
    return b'\xfe' + struct.pack('<Q', n)


def lenenc_str(b):
    return lenenc_int(len(b)) + b


class Reader:
    """Cursor over one packet payload."""

    def __init__(self, data):
        self.d = data
        self.p = 0

    def u8(self):
        v = self.d[self.p]
        self.p += 1
        return v

    def u16(self):
        v = struct.unpack_from('<H', self.d, self.p)[0]
        self.p += 2
        return v

    def u24(self):
        v = int.from_bytes(self.d[self.p:self.p + 3], 'little')
        self.p += 3
        return v

    def u32(self):
        v = struct.unpack_from('<I', self.d, self.p)[0]
        self.p += 4
        return v

    def u64(self):
        v = struct.unpack_from('<Q', self.d, self.p)[0]
        self.p += 8
        return v

    def take(self, n):
        if self.p + n > len(self.d):
            raise ProtocolError('short packet')
        v = self.d[self.p:self.p + n]
        self.p += n
        return v

    def nul_str(self):
        e = self.d.index(b'\0', self.p)
        v = self.d[self.p:e]
        self.p = e + 1
        return v

    def lenenc(self):
        c = self.u8()
        if c < 251:
            return c
        if c == 0xfb:
            return None
        if c == 0xfc:
            return self.u16()
        if c == 0xfd:
            return self.u24()
        return self.u64()

    def lenenc_str(self):
        n = self.lenenc()
        return None if n is None else self.take(n)

    def rest(self):
        v = self.d[self.p:]
        self.p = len(self.d)
        return v

    def eof(self):
        return self.p >= len(self.d)


def scramble_native(password, salt):
    if not password:
        return b''
    p = password.encode() if isinstance(password, str) else password
    h1 = hashlib.sha1(p).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(salt + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def scramble_sha2(password, nonce):
    if not password:
        return b''
    p = password.encode() if isinstance(password, str) else password
    h1 = hashlib.sha256(p).digest()
    h2 = hashlib.sha256(h1).digest()
    h3 = hashlib.sha256(h2 + nonce).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


class OK:
    def __init__(self, payload, caps):
        r = Reader(payload)
        r.u8()
        self.affected_rows = r.lenenc()
        self.insert_id = r.lenenc()
        self.status = r.u16()
        self.warnings = r.u16()
        self.session_state = []  # (type, data bytes) with CLIENT_SESSION_TRACK
        if caps & CLIENT_SESSION_TRACK:
            self.info = r.lenenc_str() or b'' if not r.eof() else b''
            if self.status & SERVER_SESSION_STATE_CHANGED and not r.eof():
                st = Reader(r.lenenc_str())
                while not st.eof():
                    t = st.u8()
                    self.session_state.append((t, st.lenenc_str()))
        else:
            # MariaDB length-prefixes the info string even without CLIENT_SESSION_TRACK (as libmysqlclient
            # expects), not the string<EOF> of the protocol documentation
            self.info = r.lenenc_str() if not r.eof() else b''

    def __repr__(self):
        return 'OK(rows=%s, status=%#x, warnings=%d)' % (self.affected_rows, self.status, self.warnings)


class Column:
    def __init__(self, payload):
        r = Reader(payload)
        self.catalog = r.lenenc_str()
        self.schema = r.lenenc_str()
        self.table = r.lenenc_str()
        self.org_table = r.lenenc_str()
        self.name = r.lenenc_str().decode('utf-8', errors='surrogateescape')
        self.org_name = r.lenenc_str()
        r.lenenc()
        self.charset = r.u16()
        self.length = r.u32()
        self.type = r.u8()
        self.flags = r.u16()
        self.decimals = r.u8()

    def __repr__(self):
        return 'Column(%s, type=%d)' % (self.name, self.type)


class Result:
    """One result of a command: either an OK (columns is None) or a result set."""

    def __init__(self):
        self.ok = None
        self.columns = None
        self.rows = []
        self.warnings = 0
        self.status = 0

    def more(self):
        return bool(self.status & SERVER_MORE_RESULTS_EXISTS)


class RawClient:
    def __init__(self, sock):
        self.sock = sock
        self.seq = 0
        self.cseq = 0
        self.compress = None  # None, 'zlib' or 'zstd'
        self.zstd_level = 3
        self.inbuf = b''      # decompressed bytes not yet consumed
        self.caps = 0
        self.server_caps = 0
        self.stats = {'compressed_in': 0, 'plain_in': 0, 'compressed_out': 0, 'plain_out': 0}

    # -- connection ---------------------------------------------------------------------------------
    @classmethod
    def open(cls, host='127.0.0.1', port=3306, unix=None, timeout=30):
        if unix:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            s.connect(unix)
        else:
            s = socket.create_connection((host, port), timeout=timeout)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = cls(s)
        return c

    @classmethod
    def connect(cls, host='127.0.0.1', port=3306, unix=None, user='root', password='', db=None,
                tls=False, compress=None, caps=None, plugin=None, attrs=None, zstd_level=3, timeout=30):
        c = cls.open(host, port, unix, timeout)
        try:
            c.handshake(user, password, db, tls, compress, caps, plugin, attrs, zstd_level)
        except Exception:
            c.sock.close()
            raise
        return c

    def read_handshake(self):
        p = self.read_packet()
        if p[0] == 0xff:
            raise self.parse_err(p)
        r = Reader(p)
        self.protocol = r.u8()
        self.server_version = r.nul_str().decode()
        self.connection_id = r.u32()
        salt = r.take(8)
        r.u8()
        caps = r.u16()
        self.server_charset = r.u8()
        self.server_status = r.u16()
        caps |= r.u16() << 16
        alen = r.u8()
        r.take(10)
        if caps & CLIENT_SECURE_CONNECTION:
            salt += r.take(max(13, alen - 8))[:-1] if alen else r.take(13)[:-1]
        self.auth_plugin = r.nul_str().decode() if (caps & CLIENT_PLUGIN_AUTH and not r.eof()) else ''
        self.salt = salt
        self.server_caps = caps
        return p

    def handshake(self, user, password, db=None, tls=False, compress=None, caps=None, plugin=None,
                  attrs=None, zstd_level=3):
        self.read_handshake()
        want = DEFAULT_CAPS if caps is None else caps
        if db:
            want |= CLIENT_CONNECT_WITH_DB
        if tls:
            want |= CLIENT_SSL
        if compress == 'zlib':
            want |= CLIENT_COMPRESS
        elif compress == 'zstd':
            want |= CLIENT_ZSTD_COMPRESSION_ALGORITHM
        self.caps = want & self.server_caps
        if compress == 'zstd' and not self.server_caps & CLIENT_ZSTD_COMPRESSION_ALGORITHM:
            raise ProtocolError('server does not offer CLIENT_ZSTD_COMPRESSION_ALGORITHM')
        if compress == 'zlib' and not self.server_caps & CLIENT_COMPRESS:
            raise ProtocolError('server does not offer CLIENT_COMPRESS')
        if tls and not self.server_caps & CLIENT_SSL:
            raise ProtocolError('server does not offer CLIENT_SSL')
        self.tls = tls
        head = struct.pack('<IIB23x', self.caps, MAX_PACKET, 45)  # utf8mb4_general_ci
        if tls:
            self.write_packet(head)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            self.sock = ctx.wrap_socket(self.sock)
            self.tls_version = self.sock.version()
        plugin = plugin or self.auth_plugin or 'mysql_native_password'
        self.password = password
        auth = self.auth_response(plugin, password, self.salt)
        body = head + user.encode() + b'\0'
        if self.caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA:
            body += lenenc_str(auth)
        else:
            body += bytes([len(auth)]) + auth
        if self.caps & CLIENT_CONNECT_WITH_DB:
            body += (db or '').encode() + b'\0'
        if self.caps & CLIENT_PLUGIN_AUTH:
            body += plugin.encode() + b'\0'
        if self.caps & CLIENT_CONNECT_ATTRS:
            a = attrs if attrs is not None else {'_client_name': 'strata-itest-raw', 'program_name': 'pytest'}
            blob = b''.join(lenenc_str(k.encode()) + lenenc_str(v.encode()) for k, v in a.items())
            body += lenenc_str(blob)
        if self.caps & CLIENT_ZSTD_COMPRESSION_ALGORITHM:
            body += bytes([zstd_level])
        self.write_packet(body)
        self.plugin = plugin
        self.finish_auth(plugin, password)
        if compress:
            self.compress = compress
            self.zstd_level = zstd_level
        return self

    def auth_response(self, plugin, password, salt):
        if plugin == 'mysql_native_password':
            return scramble_native(password, salt)
        if plugin == 'caching_sha2_password':
            return scramble_sha2(password, salt)
        if plugin == 'mysql_clear_password':
            return (password or '').encode() + b'\0'
        raise ProtocolError('unsupported auth plugin %r' % plugin)

    def finish_auth(self, plugin, password):
        """Reads the server's answers after the handshake response until OK or ERR."""
        self.auth_switched_to = None
        self.sha2_path = None
        while True:
            p = self.read_packet()
            if p[0] == 0x00:
                self.ok_packet = OK(p, self.caps)
                return
            if p[0] == 0xff:
                raise self.parse_err(p)
            if p[0] == 0xfe:  # auth switch request
                r = Reader(p)
                r.u8()
                plugin = r.nul_str().decode()
                data = r.rest()
                if data.endswith(b'\0'):
                    data = data[:-1]
                self.salt = data
                self.auth_switched_to = plugin
                self.write_packet(self.auth_response(plugin, password, data))
                continue
            if p[0] == 0x01:  # auth more data
                if plugin == 'caching_sha2_password' or self.auth_switched_to == 'caching_sha2_password':
                    if p[1:2] == b'\x03':
                        self.sha2_path = 'fast'
                        continue
                    if p[1:2] == b'\x04':
                        self.sha2_path = 'full'
                        if self.tls or isinstance(self.sock, socket.socket) and self.sock.family == socket.AF_UNIX:
                            self.write_packet((password or '').encode() + b'\0')
                        else:
                            self.write_packet(b'\x02')  # request public key
                            key = self.read_packet()
                            if key[0] != 0x01:
                                raise ProtocolError('expected public key, got %r' % key[:16])
                            self.write_packet(self.rsa_encrypt(key[1:], password))
                        continue
                raise ProtocolError('unexpected auth-more-data %r' % p[:16])
            raise ProtocolError('unexpected packet during auth: %r' % p[:16])

    def rsa_encrypt(self, pem, password):
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding
        pub = serialization.load_pem_public_key(pem)
        pw = (password or '').encode() + b'\0'
        x = bytes(b ^ self.salt[i % len(self.salt)] for i, b in enumerate(pw))
        return pub.encrypt(x, padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()),
                                           algorithm=hashes.SHA1(), label=None))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- framing --------------------------------------------------------------------------------------
    def recv_exact(self, n):
        out = bytearray()
        while len(out) < n:
            b = self.sock.recv(n - len(out))
            if not b:
                raise ConnectionError('server closed the connection (%d of %d bytes read)' % (len(out), n))
            out += b
        return bytes(out)

    def _read_compressed_chunk(self):
        h = self.recv_exact(7)
        clen = int.from_bytes(h[:3], 'little')
        self.cseq = (h[3] + 1) & 0xff
        ulen = int.from_bytes(h[4:7], 'little')
        body = self.recv_exact(clen)
        if ulen == 0:
            self.stats['plain_in'] += 1
            return body
        self.stats['compressed_in'] += 1
        if self.compress == 'zlib':
            d = zlib.decompress(body)
        else:
            d = _Zstd.decompress(body, ulen)
        if len(d) != ulen:
            raise ProtocolError('decompressed %d bytes, header said %d' % (len(d), ulen))
        return d

    def _read_bytes(self, n):
        if not self.compress:
            return self.recv_exact(n)
        while len(self.inbuf) < n:
            self.inbuf += self._read_compressed_chunk()
        v, self.inbuf = self.inbuf[:n], self.inbuf[n:]
        return v

    def read_packet(self):
        """One logical packet (joins 0xffffff-sized pieces)."""
        out = b''
        while True:
            h = self._read_bytes(4)
            n = int.from_bytes(h[:3], 'little')
            self.last_seq = h[3]
            self.seq = (h[3] + 1) & 0xff
            out += self._read_bytes(n)
            if n < MAX_PACKET:
                return out

    def _send(self, data):
        if not self.compress:
            self.sock.sendall(data)
            return
        # Split into compressed packets of at most 16 MiB - 1 uncompressed bytes.
        for i in range(0, max(len(data), 1), MAX_PACKET):
            chunk = data[i:i + MAX_PACKET]
            if len(chunk) < 50:
                payload, ulen = chunk, 0
                self.stats['plain_out'] += 1
            else:
                payload = zlib.compress(chunk) if self.compress == 'zlib' else _Zstd.compress(chunk, self.zstd_level)
                ulen = len(chunk)
                self.stats['compressed_out'] += 1
            self.sock.sendall(len(payload).to_bytes(3, 'little') + bytes([self.cseq]) +
                              ulen.to_bytes(3, 'little') + payload)
            self.cseq = (self.cseq + 1) & 0xff

    def write_packet(self, payload, seq=None):
        """Writes a logical packet, splitting at 16 MiB - 1 (an exact multiple ends with an empty packet)."""
        if seq is not None:
            self.seq = seq
        out = bytearray()
        i = 0
        while True:
            chunk = payload[i:i + MAX_PACKET]
            out += len(chunk).to_bytes(3, 'little') + bytes([self.seq]) + chunk
            self.seq = (self.seq + 1) & 0xff
            i += len(chunk)
            if len(chunk) < MAX_PACKET:
                break
        self._send(bytes(out))

    def send_raw(self, data):
        self.sock.sendall(data)

    def command(self, cmd, arg=b''):
        self.seq = 0
        self.cseq = 0
        self.write_packet(bytes([cmd]) + arg)

    # -- responses ------------------------------------------------------------------------------------
    @staticmethod
    def parse_err(p):
        r = Reader(p)
        r.u8()
        code = r.u16()
        state = None
        if r.d[r.p:r.p + 1] == b'#':
            r.u8()
            state = r.take(5).decode()
        return ServerError(code, state, r.rest().decode(errors='replace'))

    def is_eof(self, p):
        return p[0] == 0xfe and len(p) < 0xffffff and len(p) < 9

    def read_result(self, binary=False, columns_override=None):
        """Reads one result (OK, ERR raised, or result set) of a COM_QUERY / COM_STMT_EXECUTE."""
        p = self.read_packet()
        res = Result()
        if p[0] == 0x00:
            res.ok = OK(p, self.caps)
            res.status, res.warnings = res.ok.status, res.ok.warnings
            return res
        if p[0] == 0xff:
            raise self.parse_err(p)
        if p[0] == 0xfb:
            raise ProtocolError('LOCAL INFILE request not supported here')
        ncols = Reader(p).lenenc()
        res.columns = [Column(self.read_packet()) for _ in range(ncols)]
        if not self.caps & CLIENT_DEPRECATE_EOF:
            e = self.read_packet()
            if not self.is_eof(e):
                raise ProtocolError('expected EOF after column definitions, got %r' % e[:16])
        while True:
            p = self.read_packet()
            if p[0] == 0xff:
                raise self.parse_err(p)
            if p[0] == 0xfe and len(p) < 0xffffff:
                if self.caps & CLIENT_DEPRECATE_EOF:
                    ok = OK(p, self.caps)
                    res.status, res.warnings = ok.status, ok.warnings
                else:
                    r = Reader(p)
                    r.u8()
                    res.warnings = r.u16()
                    res.status = r.u16()
                return res
            res.rows.append(self.parse_binary_row(p, res.columns) if binary else self.parse_text_row(p, ncols))

    @staticmethod
    def parse_text_row(p, ncols):
        r = Reader(p)
        return tuple(r.lenenc_str() for _ in range(ncols))

    def query_results(self, sql):
        """All results of one COM_QUERY (multi-statements): list of Result. Raises on the first ERR."""
        self.command(COM_QUERY, sql.encode() if isinstance(sql, str) else sql)
        out = []
        while True:
            r = self.read_result()
            out.append(r)
            if not r.more():
                return out

    def query_results_until_error(self, sql):
        """(results before the first ERR, that ServerError or None) of one COM_QUERY."""
        self.command(COM_QUERY, sql.encode() if isinstance(sql, str) else sql)
        out = []
        while True:
            try:
                r = self.read_result()
            except ServerError as e:
                return out, e
            out.append(r)
            if not r.more():
                return out, None

    def query(self, sql):
        """(column names, rows as tuples of bytes/None) of a single-result statement; OK gives ([], [])."""
        rs = self.query_results(sql)
        r = rs[0]
        self.last = r
        if r.columns is None:
            return [], []
        return [c.name for c in r.columns], r.rows

    def simple(self, cmd, arg=b''):
        """A command answered by OK or ERR: returns OK, raises ServerError."""
        self.command(cmd, arg)
        p = self.read_packet()
        if p[0] == 0xff:
            raise self.parse_err(p)
        if p[0] != 0x00:
            raise ProtocolError('expected OK, got %r' % p[:16])
        return OK(p, self.caps)

    def ping(self):
        return self.simple(COM_PING)

    def init_db(self, db):
        return self.simple(COM_INIT_DB, db.encode())

    def statistics(self):
        self.command(COM_STATISTICS)
        p = self.read_packet()
        if p and p[0] == 0xff:
            raise self.parse_err(p)
        return p.decode()

    def change_user(self, user, password, db='', plugin='mysql_native_password', charset=45):
        """COM_CHANGE_USER; follows auth switch requests like the handshake does."""
        auth = self.auth_response(plugin, password, self.salt)
        body = user.encode() + b'\0' + bytes([len(auth)]) + auth + db.encode() + b'\0'
        body += struct.pack('<H', charset) + plugin.encode() + b'\0'
        if self.caps & CLIENT_CONNECT_ATTRS:
            body += lenenc_str(b'')
        self.command(COM_CHANGE_USER, body)
        self.finish_auth(plugin, password)
        return self.ok_packet

    def set_option(self, on):
        """COM_SET_OPTION: multi-statements on (True) or off. Returns the raw answer (EOF or OK)."""
        self.command(COM_SET_OPTION, struct.pack('<H', 0 if on else 1))
        p = self.read_packet()
        if p[0] == 0xff:
            raise self.parse_err(p)
        return p

    def quit(self):
        self.command(COM_QUIT)
        try:
            d = self.sock.recv(16)
        except OSError:
            d = b''
        self.close()
        return d

    # -- prepared statements --------------------------------------------------------------------------
    def prepare(self, sql):
        self.command(COM_STMT_PREPARE, sql.encode())
        p = self.read_packet()
        if p[0] == 0xff:
            raise self.parse_err(p)
        r = Reader(p)
        if r.u8() != 0:
            raise ProtocolError('bad prepare response %r' % p[:16])
        st = Stmt()
        st.id = r.u32()
        ncols = r.u16()
        nparams = r.u16()
        r.u8()
        st.warnings = r.u16() if not r.eof() else 0
        st.params = [Column(self.read_packet()) for _ in range(nparams)]
        if nparams and not self.caps & CLIENT_DEPRECATE_EOF:
            self.read_packet()
        st.columns = [Column(self.read_packet()) for _ in range(ncols)]
        if ncols and not self.caps & CLIENT_DEPRECATE_EOF:
            self.read_packet()
        return st

    def execute(self, st, params=(), types=None, long_data=(), flags=0, send_types=True):
        """Binds params (python values, or (type, value) pairs) and executes; returns (names, rows)."""
        body = struct.pack('<IBI', st.id, flags, 1)
        n = len(st.params)
        if n:
            nulls = bytearray((n + 7) // 8)
            tbytes = b''
            vbytes = b''
            for i in range(n):
                v = params[i] if i < len(params) else None
                t, v = (v if isinstance(v, tuple) else (None, v))
                if i in long_data:
                    t = t or T_BLOB
                    tbytes += struct.pack('<BB', t, 0)
                    continue
                if v is None:
                    nulls[i // 8] |= 1 << (i % 8)
                    tbytes += struct.pack('<BB', t or T_NULL, 0)
                    continue
                t, enc = encode_param(t, v)
                tbytes += struct.pack('<BB', t & 0xff, 0x80 if t & 0x8000 else 0)
                vbytes += enc
            body += bytes(nulls) + (b'\x01' + tbytes if send_types else b'\x00') + vbytes
        self.command(COM_STMT_EXECUTE, body)
        results = []
        while True:
            r = self.read_result(binary=True)
            results.append(r)
            if not r.more():
                break
        st.results = results
        r = results[0]
        self.last = r
        if r.columns is None:
            return [], []
        return [c.name for c in r.columns], r.rows

    def send_long_data(self, st, param, data):
        self.command(COM_STMT_SEND_LONG_DATA, struct.pack('<IH', st.id, param) + data)

    def stmt_reset(self, st):
        return self.simple(COM_STMT_RESET, struct.pack('<I', st.id))

    def stmt_close(self, st):
        self.command(COM_STMT_CLOSE, struct.pack('<I', st.id))

    def parse_binary_row(self, p, cols):
        r = Reader(p)
        if r.u8() != 0:
            raise ProtocolError('binary row does not start with 0x00')
        nb = (len(cols) + 7 + 2) // 8
        bitmap = r.take(nb)
        out = []
        for i, c in enumerate(cols):
            bit = i + 2
            if bitmap[bit // 8] & (1 << (bit % 8)):
                out.append(None)
                continue
            out.append(decode_binary(r, c))
        return tuple(out)


class Stmt:
    id = 0
    params = ()
    columns = ()
    warnings = 0


def encode_param(t, v):
    """Returns (type | 0x8000 if unsigned, encoded value)."""
    if t is None:
        if isinstance(v, bool):
            t = T_TINY
        elif isinstance(v, int):
            t = T_LONGLONG if v >= 0 or v >= -(1 << 63) else T_LONGLONG
            if v >= 1 << 63:
                return T_LONGLONG | 0x8000, struct.pack('<Q', v)
        elif isinstance(v, float):
            t = T_DOUBLE
        elif isinstance(v, (bytes, bytearray)):
            t = T_BLOB
        else:
            t = T_VAR_STRING
    if t == T_TINY:
        return t, struct.pack('<b', int(v))
    if t == T_SHORT:
        return t, struct.pack('<h', v)
    if t == T_LONG:
        return t, struct.pack('<i', v)
    if t == T_LONGLONG:
        return t, struct.pack('<q', v)
    if t == T_FLOAT:
        return t, struct.pack('<f', v)
    if t == T_DOUBLE:
        return t, struct.pack('<d', v)
    if t in (T_DATE, T_DATETIME, T_TIMESTAMP):
        import datetime
        if isinstance(v, datetime.datetime):
            if v.microsecond:
                return t, struct.pack('<BHBBBBBI', 11, v.year, v.month, v.day, v.hour, v.minute, v.second,
                                      v.microsecond)
            return t, struct.pack('<BHBBBBB', 7, v.year, v.month, v.day, v.hour, v.minute, v.second)
        return t, struct.pack('<BHBB', 4, v.year, v.month, v.day)
    if t == T_TIME:
        neg = v.total_seconds() < 0
        s = abs(int(v.total_seconds()))
        us = abs(v).microseconds
        d, rem = divmod(s, 86400)
        hh, rem = divmod(rem, 3600)
        mm, ss = divmod(rem, 60)
        if us:
            return t, struct.pack('<BBIBBBI', 12, neg, d, hh, mm, ss, us)
        return t, struct.pack('<BBIBBB', 8, neg, d, hh, mm, ss)
    b = v if isinstance(v, (bytes, bytearray)) else str(v).encode()
    return t, lenenc_str(bytes(b))


def decode_binary(r, c):
    import datetime
    t = c.type
    unsigned = bool(c.flags & 32)
    if t == T_TINY:
        return struct.unpack('<B' if unsigned else '<b', r.take(1))[0]
    if t in (T_SHORT, T_YEAR):
        return struct.unpack('<H' if unsigned else '<h', r.take(2))[0]
    if t in (T_LONG, T_INT24):
        return struct.unpack('<I' if unsigned else '<i', r.take(4))[0]
    if t == T_LONGLONG:
        return struct.unpack('<Q' if unsigned else '<q', r.take(8))[0]
    if t == T_FLOAT:
        return struct.unpack('<f', r.take(4))[0]
    if t == T_DOUBLE:
        return struct.unpack('<d', r.take(8))[0]
    if t in (T_DATE, T_DATETIME, T_TIMESTAMP):
        n = r.u8()
        if n == 0:
            return datetime.datetime(1, 1, 1) if t != T_DATE else None
        y, mo, d = struct.unpack('<HBB', r.take(4))
        hh = mi = ss = us = 0
        if n >= 7:
            hh, mi, ss = struct.unpack('<BBB', r.take(3))
        if n >= 11:
            us = r.u32()
        if t == T_DATE:
            return datetime.date(y, mo, d)
        return datetime.datetime(y, mo, d, hh, mi, ss, us)
    if t == T_TIME:
        n = r.u8()
        if n == 0:
            return datetime.timedelta(0)
        neg, days, hh, mi, ss = struct.unpack('<BIBBB', r.take(8))
        us = r.u32() if n >= 12 else 0
        td = datetime.timedelta(days=days, hours=hh, minutes=mi, seconds=ss, microseconds=us)
        return -td if neg else td
    return r.lenenc_str()


def packet(payload, seq):
    """Wire bytes of one packet (for tests that forge packets)."""
    return len(payload).to_bytes(3, 'little') + bytes([seq & 0xff]) + payload
