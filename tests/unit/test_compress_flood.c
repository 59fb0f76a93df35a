/*
 * Seed 000's flood against the protocol layer alone: a minimal server built only on proto/packet and
 * proto/compress (handshake v10 accepting any password, every COM_QUERY answered with an empty SHOW WARNINGS
 * result, PING/other commands with OK), driven by sysbench with 30 threads running `SHOW WARNINGS`, with
 * compression off and on.  The server does no SQL work at all, so the share of compression in its cost is as
 * large as it can ever be: this is the pessimistic case for the 0.9x target.  It prints throughput and CPU time
 * per query of the server (this process) and of sysbench, and checks only that queries were answered.
 *
 * Opt-in (it takes ~25 s and needs sysbench): STRATA_FLOOD=1 build/tests/test_compress_flood [seconds].
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/compress.h"
#include "proto/packet.h"
#include "unit.h"

#define CAP_PROTOCOL_41 0x200u
#define CAP_SECURE_CONNECTION 0x8000u
#define CAP_CONNECT_WITH_DB 0x8u
#define CAP_PLUGIN_AUTH 0x80000u
#define CAP_CONNECT_ATTRS 0x100000u
#define CAP_PLUGIN_AUTH_LENENC 0x200000u
#define SERVER_CAPS                                                                                                \
    (0x1u | 0x2u | 0x4u | CAP_CONNECT_WITH_DB | PCOMP_CLIENT_COMPRESS | CAP_PROTOCOL_41 | 0x2000u |                  \
     CAP_SECURE_CONNECTION | 0x10000u | 0x20000u | CAP_PLUGIN_AUTH | CAP_CONNECT_ATTRS | CAP_PLUGIN_AUTH_LENENC)

static atomic_long queries_answered;
static atomic_int bad_handshakes;
static buf_t show_warnings_answer; /* inner packets with ids 1.. */

static void put_coldef(buf_t *p, const char *name, uint8_t type)
{
    buf_put_lenenc_str(p, "def", 3);
    for (int i = 0; i < 3; i++)
        buf_put_lenenc_str(p, "", 0);
    buf_put_lenenc_str(p, name, strlen(name));
    buf_put_lenenc_str(p, "", 0);
    buf_put_u8(p, 0x0c);
    buf_put_u16(p, 33);
    buf_put_u32(p, 21);
    buf_put_u8(p, type);
    buf_put_u16(p, 1);
    buf_put_u8(p, 0);
    buf_put_u16(p, 0);
}

static void build_answer(void)
{
    buf_t p;
    buf_init(&p);
    uint8_t seq = 1;
    buf_put_u8(&p, 3);
    packet_write(&show_warnings_answer, p.data, p.len, &seq);
    const char *cols[] = {"Level", "Code", "Message"};
    for (int i = 0; i < 3; i++) {
        buf_reset(&p);
        put_coldef(&p, cols[i], i == 1 ? 3 : 253);
        packet_write(&show_warnings_answer, p.data, p.len, &seq);
    }
    static const uint8_t eof[] = {0xfe, 0, 0, 2, 0};
    packet_write(&show_warnings_answer, eof, sizeof eof, &seq);
    packet_write(&show_warnings_answer, eof, sizeof eof, &seq);
    buf_free(&p);
}

typedef struct {
    int fd;
    buf_t rbuf, inner, payload, obuf, wbuf;
    pcomp_t pc;
    bool compressed;
    uint8_t seq, cseq;
} conn_t;

static int conn_fill(conn_t *c)
{
    buf_reserve(&c->rbuf, 16384);
    ssize_t r = read(c->fd, c->rbuf.data + c->rbuf.len, c->rbuf.cap - c->rbuf.len);
    if (r <= 0)
        return -1;
    c->rbuf.len += (size_t)r;
    return 0;
}

/* Reads one payload (through the compressed layer when on). */
static int conn_read(conn_t *c)
{
    for (;;) {
        size_t used;
        int rc;
        if (c->compressed) {
            rc = pcomp_unwrap(&c->pc, c->rbuf.data, c->rbuf.len, &used, &c->cseq, &c->inner);
            buf_consume(&c->rbuf, used);
            if (rc != 0 && rc != STRATA_EAGAIN)
                return rc;
            rc = packet_read_any_seq(c->inner.data, c->inner.len, 1 << 24, &c->seq, &c->payload, &used);
            if (rc == 0) {
                buf_consume(&c->inner, used);
                return 0;
            }
        } else {
            rc = packet_read(c->rbuf.data, c->rbuf.len, 1 << 24, &c->seq, &c->payload, &used);
            if (rc == 0) {
                buf_consume(&c->rbuf, used);
                return 0;
            }
        }
        if (rc != STRATA_EAGAIN)
            return rc;
        if (conn_fill(c))
            return STRATA_ECLOSED;
    }
}

static int conn_flush(conn_t *c)
{
    const buf_t *b = &c->obuf;
    if (c->compressed) {
        buf_reset(&c->wbuf);
        pcomp_wrap(&c->pc, c->obuf.data, c->obuf.len, &c->cseq, &c->wbuf);
        b = &c->wbuf;
    }
    for (size_t off = 0; off < b->len;) {
        ssize_t w = write(c->fd, b->data + off, b->len - off);
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    buf_reset(&c->obuf);
    return 0;
}

static void send_ok(conn_t *c)
{
    static const uint8_t ok[] = {0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00};
    packet_write(&c->obuf, ok, sizeof ok, &c->seq);
}

static void *conn_main(void *arg)
{
    conn_t *c = arg;
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* Handshake v10. */
    buf_t h;
    buf_init(&h);
    buf_put_u8(&h, 10);
    buf_append(&h, "10.11.99-strata-flood", 22);
    buf_put_u32(&h, (uint32_t)c->fd);
    buf_append(&h, "abcdefgh", 8);
    buf_put_u8(&h, 0);
    buf_put_u16(&h, (uint16_t)SERVER_CAPS);
    buf_put_u8(&h, 33);
    buf_put_u16(&h, 2);
    buf_put_u16(&h, (uint16_t)(SERVER_CAPS >> 16));
    buf_put_u8(&h, 21);
    for (int i = 0; i < 10; i++)
        buf_put_u8(&h, 0);
    buf_append(&h, "ijklmnopqrst", 13);
    buf_append(&h, "mysql_native_password", 22);
    c->seq = 0;
    packet_write(&c->obuf, h.data, h.len, &c->seq);
    buf_free(&h);
    if (conn_flush(c) || conn_read(c))
        goto out;
    /* Handshake response, read with the cursor. */
    pcur_t r;
    pcur_init(&r, c->payload.data, c->payload.len);
    uint32_t caps = pcur_get_u32(&r);
    pcur_get_u32(&r);
    pcur_get_u8(&r);
    pcur_skip(&r, 23);
    size_t n;
    pcur_get_cstr(&r, &n);
    if (caps & CAP_PLUGIN_AUTH_LENENC)
        pcur_get_lenenc_str(&r, &n);
    else
        pcur_get_bytes(&r, pcur_get_u8(&r));
    if (caps & CAP_CONNECT_WITH_DB)
        pcur_get_cstr(&r, &n);
    if (!pcur_ok(&r)) {
        atomic_fetch_add(&bad_handshakes, 1);
        goto out;
    }
    send_ok(c);
    if (conn_flush(c))
        goto out;
    pcomp_algo_t algo = pcomp_negotiate(SERVER_CAPS, caps);
    if (algo != PCOMP_NONE) {
        pcomp_init(&c->pc, algo, 0);
        c->compressed = true;
    }
    /* Commands. */
    for (;;) {
        c->seq = c->cseq = 0;
        if (conn_read(c))
            break;
        uint8_t cmd = c->payload.len ? c->payload.data[0] : 0;
        if (cmd == 0x01) /* COM_QUIT */
            break;
        if (cmd == 0x03) {
            buf_append(&c->obuf, show_warnings_answer.data, show_warnings_answer.len);
            atomic_fetch_add(&queries_answered, 1);
        } else {
            send_ok(c);
        }
        if (conn_flush(c))
            break;
    }
out:
    close(c->fd);
    buf_free(&c->rbuf);
    buf_free(&c->inner);
    buf_free(&c->payload);
    buf_free(&c->obuf);
    buf_free(&c->wbuf);
    pcomp_free(&c->pc);
    free(c);
    return NULL;
}

static void *accept_main(void *arg)
{
    int ls = *(int *)arg;
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0)
            return NULL;
        conn_t *c = calloc(1, sizeof *c);
        c->fd = fd;
        pthread_t t;
        pthread_create(&t, NULL, conn_main, c);
        pthread_detach(t);
    }
}

static double cpu_s(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec / 1e6;
}

static int flood_seconds = 5;

/* Runs sysbench's SHOW WARNINGS flood; returns queries per second, fills CPU per query (µs). */
static double run_flood(int port, const char *compression, double *srv_us, double *cli_us)
{
    static const char lua[] = "function thread_init() drv = sysbench.sql.driver(); con = drv:connect() end\n"
                              "function event() con:query(\"SHOW WARNINGS\") end\n";
    FILE *f = fopen("/tmp/strata-flood.lua", "w");
    fputs(lua, f);
    fclose(f);
    long q0 = atomic_load(&queries_answered);
    double s0 = cpu_s(RUSAGE_SELF), c0 = cpu_s(RUSAGE_CHILDREN);
    uint64_t t0 = time_mono_us();
    pid_t pid = fork();
    if (pid == 0) {
        char p[32], t[32], comp[64];
        snprintf(p, sizeof p, "--mysql-port=%d", port);
        snprintf(t, sizeof t, "--time=%d", flood_seconds);
        snprintf(comp, sizeof comp, "--mysql-compression=%s", compression);
        int devnull = open("/dev/null", 1);
        dup2(devnull, 1);
        execlp("sysbench", "sysbench", "/tmp/strata-flood.lua", "--db-driver=mysql", "--mysql-host=127.0.0.1", p,
               "--mysql-user=root", "--mysql-password=x", "--threads=30", t, comp, "run", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    double secs = (double)(time_mono_us() - t0) / 1e6;
    long q = atomic_load(&queries_answered) - q0;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(q > 1000);
    if (q <= 0)
        return 0;
    *srv_us = (cpu_s(RUSAGE_SELF) - s0) * 1e6 / (double)q;
    *cli_us = (cpu_s(RUSAGE_CHILDREN) - c0) * 1e6 / (double)q;
    return (double)q / secs;
}

TEST(test_show_warnings_flood)
{
    build_answer();
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    REQUIRE(bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 128) == 0);
    getsockname(ls, (struct sockaddr *)&a, &l);
    int port = ntohs(a.sin_port);
    pthread_t t;
    pthread_create(&t, NULL, accept_main, &ls);
    const char *modes[] = {"off", "on", "off", "on"};
    double qps[4], srv[4], cli[4];
    if (getenv("STRATA_FLOOD_ONLY")) { /* one mode, for profiling */
        qps[0] = run_flood(port, getenv("STRATA_FLOOD_ONLY"), &srv[0], &cli[0]);
        printf("compression %-3s: %8.0f qps, server %5.1f us CPU/query, sysbench %5.1f us CPU/query\n",
               getenv("STRATA_FLOOD_ONLY"), qps[0], srv[0], cli[0]);
        return;
    }
    for (int i = 0; i < 4; i++) {
        qps[i] = run_flood(port, modes[i], &srv[i], &cli[i]);
        printf("compression %-3s: %8.0f qps, server %5.1f us CPU/query, sysbench %5.1f us CPU/query\n", modes[i],
               qps[i], srv[i], cli[i]);
    }
    CHECK_EQ_INT(atomic_load(&bad_handshakes), 0);
    printf("compressed/uncompressed: throughput %.2fx, server CPU per query %.2fx, total CPU per query %.2fx\n",
           (qps[1] + qps[3]) / (qps[0] + qps[2]), (srv[1] + srv[3]) / (srv[0] + srv[2]),
           (srv[1] + srv[3] + cli[1] + cli[3]) / (srv[0] + srv[2] + cli[0] + cli[2]));
    shutdown(ls, SHUT_RDWR);
    close(ls);
    pthread_join(t, NULL);
    buf_free(&show_warnings_answer);
}

int main(int argc, char **argv)
{
    if (!getenv("STRATA_FLOOD")) {
        printf("skipped: set STRATA_FLOOD=1 (needs sysbench; ~25 s)\n0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    if (argc > 1)
        flood_seconds = atoi(argv[1]);
    int before = unit_failed_checks;
    test_show_warnings_flood();
    int ok = unit_failed_checks == before;
    printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
