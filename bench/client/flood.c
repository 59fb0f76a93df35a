/*
 * flood: N threads each send one statement in a loop over the MySQL client/server protocol, with protocol
 * compression off, zlib or zstd, and print the throughput.
 *
 * Why it exists: seed 000's SHOW WARNINGS flood must run with zstd protocol compression, and nothing Debian ships
 * speaks it (sysbench and the mariadb CLI use MariaDB Connector/C, which has zlib only; MySQL's libmysqlclient,
 * which has zstd, is not in Debian).  This is a minimal client: handshake v10, mysql_native_password and the
 * caching_sha2_password fast path (plus auth switch), COM_QUERY, text result sets read and discarded.
 *
 *   flood --host H --port P --user U --password W [--db D] --threads 30 --time 10
 *         --compress none|zlib|zstd [--zstd-level 3] [--query "SHOW WARNINGS"]
 *
 * Prints "queries=N seconds=S qps=Q" on success (exit 0).  If the server does not offer the requested
 * compression it prints "UNSUPPORTED: ..." (exit 3); any other failure prints "ERROR: ..." (exit 1).
 *
 * Compressed packet (after the handshake, both directions):
 *   0  3  length of the payload that follows (compressed bytes, or raw bytes when byte 4..6 is 0)
 *   3  1  compressed sequence id
 *   4  3  uncompressed length of the payload, 0 = payload is not compressed
 *   7  .. payload: one or more ordinary packets (3-byte length, 1-byte sequence id, body), zlib stream or zstd frame
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define CLIENT_LONG_PASSWORD 1u
#define CLIENT_CONNECT_WITH_DB 8u
#define CLIENT_COMPRESS 32u
#define CLIENT_PROTOCOL_41 512u
#define CLIENT_TRANSACTIONS 8192u
#define CLIENT_SECURE_CONNECTION 32768u
#define CLIENT_MULTI_RESULTS (1u << 17)
#define CLIENT_PLUGIN_AUTH (1u << 19)
#define CLIENT_PLUGIN_AUTH_LENENC (1u << 21)
#define CLIENT_ZSTD (1u << 26)

enum { COMP_NONE, COMP_ZLIB, COMP_ZSTD };

static const char *o_host = "127.0.0.1", *o_user = "root", *o_pass = "", *o_db = NULL;
static const char *o_query = "SHOW WARNINGS";
static int o_port = 3306, o_threads = 30, o_time = 10, o_comp = COMP_NONE, o_zlevel = 3;

static atomic_int go, stop, ready, failed;
static atomic_long total;
static char errmsg[512];
static pthread_mutex_t errlock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int fd;
    uint8_t *in;        /* decompressed inbound stream */
    size_t in_len, in_pos, in_cap;
    uint8_t *raw;       /* one compressed frame */
    size_t raw_cap;
    uint8_t seq;        /* plain sequence id */
    uint8_t cseq;       /* compressed sequence id */
    int comp;           /* compression in effect (after handshake) */
    ZSTD_DCtx *zd;
} conn_t;

static int fail(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&errlock);
    if (!atomic_load(&failed)) {
        va_start(ap, fmt);
        vsnprintf(errmsg, sizeof errmsg, fmt, ap);
        va_end(ap);
    }
    atomic_store(&failed, 1);
    pthread_mutex_unlock(&errlock);
    return -1;
}

static int read_full(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = read(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return fail("read: %s", r == 0 ? "connection closed by server" : strerror(errno));
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t r = write(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return fail("write: %s", strerror(errno));
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static int in_reserve(conn_t *c, size_t more)
{
    if (c->in_pos > 0 && c->in_pos == c->in_len)
        c->in_pos = c->in_len = 0;
    if (c->in_len + more <= c->in_cap)
        return 0;
    if (c->in_pos > 0) {
        memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
        c->in_len -= c->in_pos;
        c->in_pos = 0;
        if (c->in_len + more <= c->in_cap)
            return 0;
    }
    size_t cap = c->in_cap ? c->in_cap : 65536;
    while (cap < c->in_len + more)
        cap *= 2;
    uint8_t *n = realloc(c->in, cap);
    if (!n)
        return fail("out of memory");
    c->in = n;
    c->in_cap = cap;
    return 0;
}

/* Append at least one more chunk of the inbound (plain) stream to c->in. */
static int fill(conn_t *c)
{
    if (c->comp == COMP_NONE) {
        if (in_reserve(c, 16384))
            return -1;
        ssize_t r;
        do
            r = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
        while (r < 0 && errno == EINTR);
        if (r <= 0)
            return fail("read: %s", r == 0 ? "connection closed by server" : strerror(errno));
        c->in_len += (size_t)r;
        return 0;
    }
    uint8_t h[7];
    if (read_full(c->fd, h, 7))
        return -1;
    size_t clen = h[0] | h[1] << 8 | (size_t)h[2] << 16;
    size_t ulen = h[4] | h[5] << 8 | (size_t)h[6] << 16;
    c->cseq = (uint8_t)(h[3] + 1);
    if (clen > c->raw_cap) {
        uint8_t *n = realloc(c->raw, clen);
        if (!n)
            return fail("out of memory");
        c->raw = n;
        c->raw_cap = clen;
    }
    if (read_full(c->fd, c->raw, clen))
        return -1;
    if (ulen == 0) {
        if (in_reserve(c, clen))
            return -1;
        memcpy(c->in + c->in_len, c->raw, clen);
        c->in_len += clen;
        return 0;
    }
    if (in_reserve(c, ulen))
        return -1;
    if (c->comp == COMP_ZLIB) {
        uLongf dl = ulen;
        if (uncompress(c->in + c->in_len, &dl, c->raw, clen) != Z_OK || dl != ulen)
            return fail("zlib: bad compressed packet");
    } else {
        size_t r = ZSTD_decompressDCtx(c->zd, c->in + c->in_len, ulen, c->raw, clen);
        if (ZSTD_isError(r) || r != ulen)
            return fail("zstd: bad compressed packet: %s", ZSTD_isError(r) ? ZSTD_getErrorName(r) : "length");
    }
    c->in_len += ulen;
    return 0;
}

/* Next plain packet; *p points into c->in and stays valid until the next call. */
static int read_packet(conn_t *c, uint8_t **p, size_t *len)
{
    for (;;) {
        size_t avail = c->in_len - c->in_pos;
        if (avail >= 4) {
            uint8_t *h = c->in + c->in_pos;
            size_t l = h[0] | h[1] << 8 | (size_t)h[2] << 16;
            if (l == 0xffffff)
                return fail("packets of 16 MiB are not expected here");
            if (avail >= 4 + l) {
                c->seq = (uint8_t)(h[3] + 1);
                *p = h + 4;
                *len = l;
                c->in_pos += 4 + l;
                return 0;
            }
        }
        if (fill(c))
            return -1;
    }
}

static int send_packet(conn_t *c, const uint8_t *body, size_t len)
{
    uint8_t buf[8192];
    if (len + 11 > sizeof buf)
        return fail("packet too large");
    uint8_t *q = buf + (c->comp ? 7 : 0);
    q[0] = len & 0xff, q[1] = (len >> 8) & 0xff, q[2] = (len >> 16) & 0xff, q[3] = c->seq++;
    memcpy(q + 4, body, len);
    if (!c->comp)
        return write_full(c->fd, buf, len + 4);
    /* Payloads under 50 bytes go uncompressed, as MySQL clients do; ours always are. */
    size_t pl = len + 4;
    buf[0] = pl & 0xff, buf[1] = (pl >> 8) & 0xff, buf[2] = (pl >> 16) & 0xff, buf[3] = c->cseq++;
    buf[4] = buf[5] = buf[6] = 0;
    if (pl >= 50) {
        uint8_t z[8192 + 64];
        size_t zl;
        if (c->comp == COMP_ZLIB) {
            uLongf d = sizeof z;
            if (compress(z, &d, q, pl) != Z_OK)
                return fail("zlib compress failed");
            zl = d;
        } else {
            zl = ZSTD_compress(z, sizeof z, q, pl, o_zlevel);
            if (ZSTD_isError(zl))
                return fail("zstd compress failed");
        }
        buf[0] = zl & 0xff, buf[1] = (zl >> 8) & 0xff, buf[2] = (zl >> 16) & 0xff;
        buf[4] = pl & 0xff, buf[5] = (pl >> 8) & 0xff, buf[6] = (pl >> 16) & 0xff;
        memcpy(buf + 7, z, zl);
        return write_full(c->fd, buf, zl + 7);
    }
    return write_full(c->fd, buf, pl + 7);
}

static void scramble_native(const char *pw, const uint8_t *salt, uint8_t out[20])
{
    uint8_t h1[20], h2[20], h3[20], tmp[40];
    SHA1((const uint8_t *)pw, strlen(pw), h1);
    SHA1(h1, 20, h2);
    memcpy(tmp, salt, 20);
    memcpy(tmp + 20, h2, 20);
    SHA1(tmp, 40, h3);
    for (int i = 0; i < 20; i++)
        out[i] = h1[i] ^ h3[i];
}

static void scramble_sha2(const char *pw, const uint8_t *salt, uint8_t out[32])
{
    uint8_t h1[32], h2[32], h3[32], tmp[52];
    SHA256((const uint8_t *)pw, strlen(pw), h1);
    SHA256(h1, 32, h2);
    memcpy(tmp, h2, 32);
    memcpy(tmp + 32, salt, 20);
    SHA256(tmp, 52, h3);
    for (int i = 0; i < 32; i++)
        out[i] = h1[i] ^ h3[i];
}

static size_t auth_response(const char *plugin, const uint8_t *salt, uint8_t *out)
{
    if (!*o_pass)
        return 0;
    if (!strcmp(plugin, "caching_sha2_password")) {
        scramble_sha2(o_pass, salt, out);
        return 32;
    }
    scramble_native(o_pass, salt, out);
    return 20;
}

static int err_packet(const uint8_t *p, size_t len, const char *what)
{
    unsigned code = len >= 3 ? (unsigned)(p[1] | p[2] << 8) : 0;
    size_t off = (len > 9 && p[3] == '#') ? 9 : 3;
    return fail("%s: error %u: %.*s", what, code, (int)(len > off ? len - off : 0), p + off);
}

static int conn_open(conn_t *c)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    char port[16];
    snprintf(port, sizeof port, "%d", o_port);
    if (getaddrinfo(o_host, port, &hints, &ai))
        return fail("cannot resolve %s", o_host);
    c->fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (c->fd < 0 || connect(c->fd, ai->ai_addr, ai->ai_addrlen)) {
        freeaddrinfo(ai);
        return fail("connect to %s:%d: %s", o_host, o_port, strerror(errno));
    }
    freeaddrinfo(ai);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    uint8_t *p;
    size_t len;
    if (read_packet(c, &p, &len))
        return -1;
    if (len && p[0] == 0xff)
        return err_packet(p, len, "handshake");
    if (len < 32 || p[0] != 10)
        return fail("unexpected handshake (protocol %d)", len ? p[0] : -1);
    size_t i = 1 + strnlen((char *)p + 1, len - 1) + 1 + 4;
    uint8_t salt[21] = {0};
    if (i + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10 > len)
        return fail("short handshake");
    memcpy(salt, p + i, 8);
    i += 9;
    uint32_t caps = p[i] | p[i + 1] << 8;
    i += 2 + 1 + 2;
    caps |= (uint32_t)(p[i] | p[i + 1] << 8) << 16;
    i += 2;
    size_t adl = p[i];
    i += 1 + 10;
    size_t n2 = adl > 8 ? adl - 8 : 13;
    if (n2 > 13)
        n2 = 13;
    if (i + n2 > len)
        return fail("short handshake");
    memcpy(salt + 8, p + i, n2 > 12 ? 12 : n2);
    i += n2;
    char plugin[64] = "mysql_native_password";
    if ((caps & CLIENT_PLUGIN_AUTH) && i < len)
        snprintf(plugin, sizeof plugin, "%.*s", (int)strnlen((char *)p + i, len - i), p + i);

    uint32_t want = CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION |
                    CLIENT_MULTI_RESULTS | CLIENT_PLUGIN_AUTH;
    if (o_db)
        want |= CLIENT_CONNECT_WITH_DB;
    if (o_comp == COMP_ZLIB) {
        if (!(caps & CLIENT_COMPRESS))
            return fail("UNSUPPORTED: server does not offer zlib protocol compression (CLIENT_COMPRESS)");
        want |= CLIENT_COMPRESS;
    } else if (o_comp == COMP_ZSTD) {
        if (!(caps & CLIENT_ZSTD))
            return fail("UNSUPPORTED: server does not offer zstd protocol compression "
                        "(CLIENT_ZSTD_COMPRESSION_ALGORITHM)");
        want |= CLIENT_ZSTD;
    }
    want &= caps | CLIENT_LONG_PASSWORD;

    uint8_t r[1024], ar[32];
    size_t k = 0;
    r[k++] = want & 0xff, r[k++] = (want >> 8) & 0xff, r[k++] = (want >> 16) & 0xff, r[k++] = want >> 24;
    r[k++] = 0, r[k++] = 0, r[k++] = 0, r[k++] = 1; /* max packet 16 MiB */
    r[k++] = 45;                                    /* utf8mb4_general_ci */
    memset(r + k, 0, 23);
    k += 23;
    size_t ul = strlen(o_user);
    memcpy(r + k, o_user, ul + 1);
    k += ul + 1;
    size_t al = auth_response(plugin, salt, ar);
    r[k++] = (uint8_t)al;
    memcpy(r + k, ar, al);
    k += al;
    if (o_db) {
        size_t dl = strlen(o_db);
        memcpy(r + k, o_db, dl + 1);
        k += dl + 1;
    }
    size_t pl = strlen(plugin);
    memcpy(r + k, plugin, pl + 1);
    k += pl + 1;
    if (want & CLIENT_ZSTD)
        r[k++] = (uint8_t)o_zlevel;
    if (send_packet(c, r, k))
        return -1;

    for (;;) {
        if (read_packet(c, &p, &len))
            return -1;
        if (len == 0)
            return fail("empty packet during authentication");
        if (p[0] == 0x00)
            break;
        if (p[0] == 0xff)
            return err_packet(p, len, "authentication");
        if (p[0] == 0xfe) { /* auth switch: plugin name, then 20 bytes of new salt */
            snprintf(plugin, sizeof plugin, "%.*s", (int)strnlen((char *)p + 1, len - 1), p + 1);
            size_t s = 1 + strlen(plugin) + 1;
            memset(salt, 0, sizeof salt);
            if (s < len)
                memcpy(salt, p + s, len - s > 20 ? 20 : len - s);
            if (strcmp(plugin, "mysql_native_password") && strcmp(plugin, "caching_sha2_password"))
                return fail("UNSUPPORTED: auth plugin %s", plugin);
            al = auth_response(plugin, salt, ar);
            if (send_packet(c, ar, al))
                return -1;
            continue;
        }
        if (p[0] == 0x01 && len >= 2 && p[1] == 3)
            continue; /* caching_sha2 fast auth succeeded; OK follows */
        if (p[0] == 0x01 && len >= 2 && p[1] == 4)
            return fail("UNSUPPORTED: caching_sha2_password full authentication needs TLS; use a cached account");
        return fail("unexpected packet 0x%02x during authentication", p[0]);
    }
    if (want & CLIENT_COMPRESS)
        c->comp = COMP_ZLIB;
    else if (want & CLIENT_ZSTD) {
        c->comp = COMP_ZSTD;
        c->zd = ZSTD_createDCtx();
    }
    if (c->in_pos != c->in_len)
        return fail("unexpected bytes after authentication");
    return 0;
}

/* One COM_QUERY; read and discard the whole reply (OK, or result sets). */
static int conn_query(conn_t *c, const char *sql)
{
    uint8_t body[4096];
    size_t ql = strlen(sql);
    if (ql + 1 > sizeof body)
        return fail("query too long");
    body[0] = 3;
    memcpy(body + 1, sql, ql);
    c->seq = 0;
    c->cseq = 0;
    if (send_packet(c, body, ql + 1))
        return -1;
    uint8_t *p;
    size_t len;
    for (;;) {
        if (read_packet(c, &p, &len))
            return -1;
        if (len == 0)
            return fail("empty reply packet");
        if (p[0] == 0xff)
            return err_packet(p, len, sql);
        uint16_t status;
        if (p[0] == 0x00) { /* OK: affected rows, insert id (lenenc), status */
            size_t i = 1;
            for (int f = 0; f < 2; f++)
                i += p[i] < 0xfb ? 1 : p[i] == 0xfc ? 3 : p[i] == 0xfd ? 4 : 9;
            status = i + 1 < len ? (uint16_t)(p[i] | p[i + 1] << 8) : 0;
        } else {
            /* Result set: columns, EOF, rows, EOF (we never ask for DEPRECATE_EOF). */
            int eofs = 0;
            status = 0;
            while (eofs < 2) {
                if (read_packet(c, &p, &len))
                    return -1;
                if (len && p[0] == 0xff)
                    return err_packet(p, len, sql);
                if (len && len < 9 && p[0] == 0xfe) {
                    eofs++;
                    status = len >= 5 ? (uint16_t)(p[3] | p[4] << 8) : 0;
                }
            }
        }
        if (!(status & 0x0008)) /* SERVER_MORE_RESULTS_EXISTS */
            return 0;
    }
}

static void *worker(void *arg)
{
    conn_t c;
    long n = 0;
    (void)arg;
    if (conn_open(&c) == 0) {
        atomic_fetch_add(&ready, 1);
        while (!atomic_load(&go) && !atomic_load(&failed))
            usleep(1000);
        while (!atomic_load(&stop) && !atomic_load(&failed)) {
            if (conn_query(&c, o_query))
                break;
            n++;
        }
    }
    atomic_fetch_add(&total, n);
    if (c.fd >= 0)
        close(c.fd);
    free(c.in);
    free(c.raw);
    if (c.zd)
        ZSTD_freeDCtx(c.zd);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--host")) o_host = v;
        else if (!strcmp(k, "--port")) o_port = atoi(v);
        else if (!strcmp(k, "--user")) o_user = v;
        else if (!strcmp(k, "--password")) o_pass = v;
        else if (!strcmp(k, "--db")) o_db = *v ? v : NULL;
        else if (!strcmp(k, "--threads")) o_threads = atoi(v);
        else if (!strcmp(k, "--time")) o_time = atoi(v);
        else if (!strcmp(k, "--query")) o_query = v;
        else if (!strcmp(k, "--zstd-level")) o_zlevel = atoi(v);
        else if (!strcmp(k, "--compress"))
            o_comp = !strcmp(v, "zlib") ? COMP_ZLIB : !strcmp(v, "zstd") ? COMP_ZSTD : COMP_NONE;
        else {
            fprintf(stderr, "unknown option %s\n", k);
            return 2;
        }
    }
    if (o_threads < 1 || o_threads > 10000 || o_time < 1) {
        fprintf(stderr, "bad --threads or --time\n");
        return 2;
    }
    pthread_t *t = calloc((size_t)o_threads, sizeof *t);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    for (int i = 0; i < o_threads; i++)
        if (pthread_create(&t[i], &attr, worker, NULL)) {
            fprintf(stderr, "ERROR: pthread_create failed\n");
            return 1;
        }
    double deadline = now() + 60;
    while (atomic_load(&ready) < o_threads && !atomic_load(&failed) && now() < deadline)
        usleep(1000);
    if (atomic_load(&ready) < o_threads && !atomic_load(&failed))
        fail("only %d of %d connections opened in 60 s", atomic_load(&ready), o_threads);
    double t0 = now();
    atomic_store(&go, 1);
    while (!atomic_load(&failed) && now() < t0 + o_time)
        usleep(10000);
    atomic_store(&stop, 1);
    double t1 = now();
    for (int i = 0; i < o_threads; i++)
        pthread_join(t[i], NULL);
    if (atomic_load(&failed)) {
        if (!strncmp(errmsg, "UNSUPPORTED: ", 13)) {
            printf("%s\n", errmsg);
            return 3;
        }
        printf("ERROR: %s\n", errmsg);
        return 1;
    }
    long n = atomic_load(&total);
    printf("queries=%ld seconds=%.3f qps=%.1f\n", n, t1 - t0, n / (t1 - t0));
    return 0;
}
