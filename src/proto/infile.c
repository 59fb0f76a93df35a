/*
 * LOAD DATA LOCAL INFILE on the wire: the server answers the COM_QUERY with a LOCAL INFILE request (0xFB, then
 * the file name as the statement wrote it), the client streams the file's bytes in packets of its choosing and
 * ends with an empty packet, and the statement's OK or ERR follows, all in the command's one sequence of packet
 * ids:
 *
 *   client COM_QUERY (seq 0) -> server 0xFB 'name' (seq 1) -> client data (2), data (3), ..., empty (n)
 *                            -> server OK / ERR (n + 1)
 *
 * A client that cannot open its file sends the empty packet at once (the statement then loads nothing).  The
 * worker running the statement reads these packets itself, waiting on the socket with poll() (the connection
 * is not handed back to the event loop mid-statement); a client that stops sending for net_read_timeout's
 * default (30 s) or a KILL ends the connection.  On a compressed connection the packets come inside compressed
 * frames whose sequence continues the command's (conn_unwrap_frame keeps it while infile_active).
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include "proto/proto_int.h"
#include "session/session.h"
#include "util/util.h"

#define INFILE_READ_TIMEOUT_MS 30000

static conn_t *sink_conn(res_sink_t *s) { return (conn_t *)((char *)s - offsetof(conn_t, sink)); }

static int infile_request(res_sink_t *s, const char *name)
{
    conn_t *c = sink_conn(s);
    if (!(c->caps & CLIENT_LOCAL_FILES))
        return 1;
    conn_pk_begin(c);
    buf_put_u8(&c->obuf, 0xfb);
    buf_append(&c->obuf, name, strlen(name));
    conn_pk_end(c);
    if (conn_flush(c) != 0)
        return -1;
    c->infile_active = true;
    buf_reset(&c->infile);
    c->infile_off = 0;
    return 0;
}

/* The client's next packet into c->infile: 0 one with data, 1 the empty one that ends the file, -1 the
 * connection failed (it is closing then). */
static int infile_packet(conn_t *c)
{
    int waited = 0;
    for (;;) {
        buf_t *src = c->compressed ? &c->ibuf : &c->rbuf;
        size_t consumed = 0;
        uint8_t seq = c->seq;
        int rc = c->compressed ? packet_read_any_seq(src->data, src->len, c->max_packet - 1, &seq, &c->infile, &consumed)
                               : packet_read(src->data, src->len, c->max_packet - 1, &seq, &c->infile, &consumed);
        if (rc == STRATA_EAGAIN && c->compressed) {
            rc = conn_unwrap_frame(c);
            if (rc == 0)
                continue;
            if (rc != STRATA_EAGAIN)
                goto fail;
        }
        if (rc == 0) {
            buf_consume(src, consumed);
            c->seq = seq;
            return c->infile.len ? 0 : 1;
        }
        if (rc != STRATA_EAGAIN)
            goto fail;
        int n = conn_read_some(c);
        if (n > 0) {
            waited = 0;
            continue;
        }
        if (n < 0)
            goto fail;
        /* nothing yet: wait in one-second steps, so a KILL is seen */
        if (atomic_load(&c->sess->killed) || waited >= INFILE_READ_TIMEOUT_MS)
            goto fail;
        struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
        int pr = poll(&pfd, 1, 1000);
        if (pr < 0 && errno != EINTR)
            goto fail;
        if (pr == 0)
            waited += 1000;
    }
fail:
    c->phase = PH_CLOSING;
    return -1;
}

static long infile_read(res_sink_t *s, char *p, size_t cap)
{
    conn_t *c = sink_conn(s);
    while (c->infile_off >= c->infile.len) {
        if (!c->infile_active)
            return 0;
        c->infile_off = 0;
        int r = infile_packet(c);
        if (r != 0) {
            c->infile_active = false;
            buf_reset(&c->infile);
            buf_shrink(&c->infile, 0);
            return r > 0 ? 0 : -1;
        }
    }
    size_t n = MIN(cap, c->infile.len - c->infile_off);
    memcpy(p, c->infile.data + c->infile_off, n);
    c->infile_off += n;
    return (long)n;
}

void conn_infile_sink_init(conn_t *c)
{
    c->sink.infile_request = infile_request;
    c->sink.infile_read = infile_read;
}
