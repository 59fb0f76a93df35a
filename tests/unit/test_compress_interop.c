/*
 * Interoperability of proto/compress with a real client and a real server: a re-compressing proxy.
 *
 *   mariadb --compress  <->  [ this proxy: pcomp_unwrap each frame, pcomp_wrap the bytes again ]  <->  mariadbd
 *
 * Every compressed frame the libmariadb client sends is decoded by pcomp_unwrap and re-encoded by pcomp_wrap
 * before mariadbd sees it, and the same the other way, so the client only ever reads frames strata made and the
 * server only frames strata made (the small-slice encoder for short answers, zlib's deflate for large ones).
 * The client's output must be identical to a direct compressed connection's.
 *
 * It needs a MariaDB server: set STRATA_INTEROP_PORT to its TCP port (root@localhost, empty password, as the
 * reference server in HELPERS.md is set up).  Without it the program says it skipped and reports nothing.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/compress.h"
#include "proto/packet.h"
#include "unit.h"

static int interop_port;

#define A64 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define LONG_A A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 A64 /* 1 KB of query text */

static const char *queries =
    "drop database if exists strata_interop; create database strata_interop; use strata_interop;"
    "create table w (a tinyint);"
    "insert ignore into w values (300),(400),(500),(-300);"
    "show warnings;"
    "select repeat('abc', 40) as x, 1, 'short';"
    "select length(repeat('x', 100000)) as n, md5(repeat('y', 1000)) as h;"
    "select md5(repeat('abcdefghij', 20000)) as big_md5, repeat('abcdefghij', 20000) like '%jab%' as big;"
    "select repeat('abcdefghij', 20000) as big;"
    "select count(*), md5(group_concat(s)) from (select sha2(concat(seq, 'salt'), 512) as s from seq_1_to_200) t;"
    "select sha2(concat(seq, 'salt'), 512) as s from seq_1_to_3;"
    "select length('" LONG_A "') as q, md5('" LONG_A "') as m;"
    "select 1; do 1;"
    "drop database strata_interop;";

static int tcp_listen(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 1) || getsockname(s, (struct sockaddr *)&a, &l))
        return -1;
    *port = ntohs(a.sin_port);
    return s;
}

static int tcp_connect(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(s, (struct sockaddr *)&a, sizeof a)) {
        close(s);
        return -1;
    }
    return s;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Starts the mariadb client against port, its output going to a temporary file (not a pipe: the proxy must not
 * stall a client that has a big result to print); *fd_out is that file, read back once the client is done. */
static void run_client(int port, pid_t *pid_out, int *fd_out)
{
    char path[] = "/tmp/strata-interop-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        char p[16];
        snprintf(p, sizeof p, "-P%d", port);
        execlp("mariadb", "mariadb", "--no-defaults", "--compress", "-h127.0.0.1", p, "-uroot", "-e", queries,
               (char *)NULL);
        _exit(127);
    }
    *pid_out = pid;
    *fd_out = fd;
}

static char *read_all(int fd)
{
    buf_t b;
    buf_init(&b);
    uint8_t tmp[4096];
    ssize_t r;
    lseek(fd, 0, SEEK_SET);
    while ((r = read(fd, tmp, sizeof tmp)) > 0)
        buf_append(&b, tmp, (size_t)r);
    buf_append_byte(&b, 0);
    close(fd);
    char *s = strdup((char *)b.data);
    buf_free(&b);
    return s;
}

/* One direction of the proxy. */
typedef struct {
    int from, to;
    buf_t in, inner, out;
    pcomp_t rx, tx;
    uint64_t frames, compressed_in, compressed_out;
} side_t;

/* Plain phase: forwards whole packets; returns 1 when a packet from the server ends authentication (OK/ERR). */
static int relay_plain(side_t *s, int from_server)
{
    int done = 0;
    for (;;) {
        uint32_t n;
        uint8_t seq;
        if (packet_peek_header(s->in.data, s->in.len, &n, &seq) || s->in.len < 4 + n)
            break;
        if (from_server && seq > 0 && n > 0 && (s->in.data[4] == 0x00 || s->in.data[4] == 0xff))
            done = 1;
        if (write_all(s->to, s->in.data, 4 + n))
            return -1;
        buf_consume(&s->in, 4 + n);
        if (done)
            break;
    }
    return done;
}

/* Compressed phase: each complete frame is unwrapped and wrapped again with the same compressed id. */
static int relay_compressed(side_t *s)
{
    while (s->in.len >= PCOMP_HEADER_SIZE) {
        size_t flen = PCOMP_HEADER_SIZE + ((size_t)s->in.data[0] | (size_t)s->in.data[1] << 8 |
                                           (size_t)s->in.data[2] << 16);
        if (s->in.len < flen)
            break;
        uint8_t cseq = s->in.data[3], wseq = cseq;
        size_t used;
        int compressed = s->in.data[4] | s->in.data[5] | s->in.data[6];
        buf_reset(&s->inner);
        int rc = pcomp_unwrap(&s->rx, s->in.data, flen, &used, &cseq, &s->inner);
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(used, flen);
        if (rc)
            return -1;
        if (getenv("INTEROP_DEBUG"))
            fprintf(stderr, "frame %zu cseq %u ulen %u -> inner %zu\n", flen, s->in.data[3],
                    s->in.data[4] | s->in.data[5] << 8 | s->in.data[6] << 16, s->inner.len);
        buf_reset(&s->out);
        pcomp_wrap(&s->tx, s->inner.data, s->inner.len, &wseq, &s->out);
        s->frames++;
        s->compressed_in += compressed != 0;
        s->compressed_out += (s->out.data[4] | s->out.data[5] | s->out.data[6]) != 0;
        if (write_all(s->to, s->out.data, s->out.len))
            return -1;
        buf_consume(&s->in, flen);
    }
    return 0;
}

TEST(test_mariadb_client_and_server_through_strata_frames)
{
    /* Reference: a direct compressed connection. */
    pid_t pid;
    int fd;
    run_client(interop_port, &pid, &fd);
    int st;
    waitpid(pid, &st, 0);
    char *want = read_all(fd);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    int port;
    int ls = tcp_listen(&port);
    REQUIRE(ls >= 0);
    run_client(port, &pid, &fd);
    int c = accept(ls, NULL, NULL);
    int sv = tcp_connect(interop_port);
    REQUIRE(c >= 0 && sv >= 0);
    side_t up = {.from = c, .to = sv}, down = {.from = sv, .to = c};
    side_t *sides[2] = {&up, &down};
    for (int i = 0; i < 2; i++) {
        buf_init(&sides[i]->in);
        buf_init(&sides[i]->inner);
        buf_init(&sides[i]->out);
        pcomp_init(&sides[i]->rx, PCOMP_ZLIB, 0);
        pcomp_init(&sides[i]->tx, PCOMP_ZLIB, 0);
    }
    int compressed = 0, open = 1;
    while (open) {
        struct pollfd p[2] = {{c, POLLIN, 0}, {sv, POLLIN, 0}};
        int pr = poll(p, 2, 10000);
        if (getenv("INTEROP_DEBUG") && (pr <= 0 || (p[0].revents | p[1].revents) & ~POLLIN))
            fprintf(stderr, "poll %d revents %x %x\n", pr, p[0].revents, p[1].revents);
        if (pr <= 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP)))
                continue;
            side_t *s = sides[i];
            uint8_t tmp[65536];
            ssize_t r = read(s->from, tmp, sizeof tmp);
            if (r <= 0) {
                if (getenv("INTEROP_DEBUG"))
                    fprintf(stderr, "side %d: read %zd, %zu bytes pending\n", i, r, s->in.len);
                open = 0;
                break;
            }
            buf_append(&s->in, tmp, (size_t)r);
            if (getenv("INTEROP_DEBUG"))
                fprintf(stderr, "side %d: read %zd\n", i, r);
            if (!compressed) {
                int d = relay_plain(s, i == 1);
                if (d < 0)
                    open = 0;
                if (d == 1)
                    compressed = 1;
            }
            if (compressed && relay_compressed(s) < 0) {
                if (getenv("INTEROP_DEBUG"))
                    fprintf(stderr, "side %d: relay failed\n", i);
                open = 0;
            }
        }
    }
    close(c);
    close(sv);
    close(ls);
    waitpid(pid, &st, 0);
    char *got = read_all(fd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strlen(got) > 1000);
    int same = strcmp(got, want) == 0;
    CHECK(same);
    if (!same) { /* leave both for a diff */
        FILE *f = fopen("/tmp/strata-interop.want", "w");
        fputs(want, f);
        fclose(f);
        f = fopen("/tmp/strata-interop.got", "w");
        fputs(got, f);
        fclose(f);
        fprintf(stderr, "outputs differ: diff /tmp/strata-interop.want /tmp/strata-interop.got\n");
    }
    printf("client->server: %llu frames (%llu compressed by the client, %llu by strata); "
           "server->client: %llu frames (%llu compressed by mariadbd, %llu by strata)\n",
           (unsigned long long)up.frames, (unsigned long long)up.compressed_in, (unsigned long long)up.compressed_out,
           (unsigned long long)down.frames, (unsigned long long)down.compressed_in,
           (unsigned long long)down.compressed_out);
    CHECK(up.compressed_in > 0 && up.compressed_out > 0);
    CHECK(down.compressed_in > 3 && down.compressed_out > 3);
    for (int i = 0; i < 2; i++) {
        buf_free(&sides[i]->in);
        buf_free(&sides[i]->inner);
        buf_free(&sides[i]->out);
        pcomp_free(&sides[i]->rx);
        pcomp_free(&sides[i]->tx);
    }
    free(want);
    free(got);
}

int main(void)
{
    const char *p = getenv("STRATA_INTEROP_PORT");
    if (!p || !*p) {
        printf("skipped: set STRATA_INTEROP_PORT to a MariaDB server's TCP port\n0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    interop_port = atoi(p);
    int before = unit_failed_checks;
    test_mariadb_client_and_server_through_strata_frames();
    int ok = unit_failed_checks == before;
    printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
