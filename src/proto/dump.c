/*
 * Replication source commands: COM_REGISTER_SLAVE and COM_BINLOG_DUMP (a MariaDB or MySQL replica following
 * strata).  The event stream itself comes from the binlog's sender (binlog.h, send.c); this file frames it:
 *
 *   COM_REGISTER_SLAVE  u32 server_id | u8 len + host | u8 len + user | u8 len + password | u16 port |
 *                       u32 replication rank | u32 master id                              -> OK
 *   COM_BINLOG_DUMP     u32 position | u16 flags (1 = BINLOG_DUMP_NON_BLOCK) | u32 server_id | file name (rest)
 *                       -> packets 0x00 + event, without end (blocking), or EOF at the end (NON_BLOCK)
 *
 * Semi-sync (repl/semisync.h): a replica that set @rpl_semi_sync_slave gets 0xef + a flag byte after the 0x00 of
 * every event packet; the flag asks for an ACK (0x01) on the last event of each transaction (XID, or the QUERY of
 * a DDL) while semi-sync is on.  The replica answers on the same connection with a packet
 *   u8 0xef | u64 position after the event | file name (rest)
 * which this loop reads between events (poll on the socket while an ACK is outstanding) and reports.
 *
 * GTID mode is what a MariaDB replica with MASTER_USE_GTID asks for: before the dump it sets the user variable
 * @slave_connect_state to its GTID position (one GTID per domain, '' for none) and the file name is empty.
 * @master_heartbeat_period (nanoseconds) sets how long an idle stream waits before a HEARTBEAT event.
 * The command holds its worker thread for the stream's life (one per replica), counted as blocked so the pool
 * grows; KILL, a closed socket or shutdown end it.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binlog/binlog.h"
#include "proto/proto_int.h"
#include "repl/semisync.h"
#include "acl/priv.h"
#include "util/blocking.h"

int conn_register_slave(conn_t *c, const uint8_t *arg, size_t alen)
{
    session_t *s = c->sess;
    if (!priv_has_global(s, PRIV_REPL_SLAVE)) {
        conn_send_err_code(c, ER_SPECIFIC_ACCESS_DENIED_ERROR, "REPLICATION SLAVE");
        return 0;
    }
    pcur_t cur;
    pcur_init(&cur, arg, alen);
    uint32_t sid = pcur_get_u32(&cur);
    if (cur.err) {
        conn_send_err_code(c, ER_MALFORMED_PACKET);
        return 0;
    }
    s->replica_server_id = sid;
    conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL);
    return 0;
}

/* The replica's GTID position from @slave_connect_state; false when it did not set one (file/pos mode). */
static bool gtid_start(session_t *s, binlog_gtid_set_t *set, bool *bad)
{
    const value_t *v = session_uservar(s, "slave_connect_state");
    *bad = false;
    if (!v || v->type == VAL_NULL)
        return false;
    if (v->type != VAL_STRING)
        return (*bad = true);
    char buf[4096];
    size_t n = MIN(v->s.len, sizeof buf - 1);
    memcpy(buf, v->s.ptr, n);
    buf[n] = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        binlog_gtid_t g;
        if (binlog_gtid_parse(tok, &g) != 0)
            return (*bad = true);
        binlog_gtid_set_update(set, g);
    }
    return true;
}

static int heartbeat_ms(session_t *s)
{
    const value_t *v = session_uservar(s, "master_heartbeat_period");
    uint64_t ns = 0;
    if (v && (v->type == VAL_INT || v->type == VAL_UINT))
        ns = v->u;
    else if (v && v->type == VAL_DOUBLE && v->d > 0)
        ns = (uint64_t)v->d;
    else if (v && (v->type == VAL_STRING || v->type == VAL_DECIMAL))
        ns = strtoull(v->s.ptr, NULL, 10);
    uint64_t ms = ns / 1000000u;
    return ms == 0 || ms > 600000 ? 30000 : (int)ms; /* MariaDB's default slave_heartbeat_period is 30 s... */
}

/* Reads the semi-sync ACKs the replica sent (waiting up to timeout_ms for the first); 0, or -1 when the
 * replica closed the connection or sent something else. */
static int read_acks(conn_t *c, binlog_t *bl, int timeout_ms, binlog_pos_t *got)
{
    if (c->rbuf.len == 0) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (poll(&p, 1, timeout_ms) <= 0)
            return 0;
    }
    if (conn_read_some(c) < 0)
        return -1;
    for (;;) {
        size_t consumed = 0;
        uint8_t seq = 0;
        int rc = packet_read_any_seq(c->rbuf.data, c->rbuf.len, 1 << 20, &seq, &c->pkt, &consumed);
        if (rc == STRATA_EAGAIN)
            return 0;
        if (rc != 0)
            return -1;
        buf_consume(&c->rbuf, consumed);
        if (c->pkt.len < 9 || c->pkt.data[0] != 0xef)
            return -1; /* COM_QUIT or anything else ends the dump */
        uint64_t pos = 0;
        for (int i = 0; i < 8; i++)
            pos |= (uint64_t)c->pkt.data[1 + i] << (8 * i);
        char name[256];
        size_t nl = MIN(c->pkt.len - 9, sizeof name - 1);
        memcpy(name, c->pkt.data + 9, nl);
        name[nl] = 0;
        uint32_t fseq;
        if (binlog_file_seq(bl, name, &fseq) == 0) {
            binlog_pos_t p = {fseq, pos};
            repl_semisync_ack(p);
            if (binlog_pos_cmp(p, *got) > 0)
                *got = p;
        }
    }
}

/* The last event of a transaction: the replica acknowledges it. */
static bool ends_transaction(const buf_t *ev)
{
    uint8_t type = ev->len > 4 ? ev->data[4] : 0;
    return type == BINLOG_EV_XID || type == BINLOG_EV_QUERY;
}

int conn_binlog_dump(conn_t *c, const uint8_t *arg, size_t alen)
{
    session_t *s = c->sess;
    binlog_t *bl = c->srv->binlog;
    if (!priv_has_global(s, PRIV_REPL_SLAVE)) {
        conn_send_err_code(c, ER_SPECIFIC_ACCESS_DENIED_ERROR, "REPLICATION SLAVE");
        return 0;
    }
    pcur_t cur;
    pcur_init(&cur, arg, alen);
    uint32_t pos = pcur_get_u32(&cur);
    uint16_t flags = pcur_get_u16(&cur);
    (void)pcur_get_u32(&cur); /* the replica's server id (COM_REGISTER_SLAVE has it too) */
    if (cur.err) {
        conn_send_err_code(c, ER_MALFORMED_PACKET);
        return 0;
    }
    char file[256];
    size_t fl = MIN((size_t)(cur.end - cur.p), sizeof file - 1);
    memcpy(file, cur.p, fl);
    file[fl] = 0;
    if (!bl) {
        conn_send_err(c, ER_MASTER_FATAL_ERROR_READING_BINLOG, "HY000", "Binary log is not open");
        return 0;
    }
    binlog_gtid_set_t gset = {0};
    bool bad, gtid = gtid_start(s, &gset, &bad);
    char err[800];
    binlog_sender_t *snd = NULL;
    if (bad) { /* MariaDB answers an unreadable @slave_connect_state with 1941, not 1236 */
        binlog_gtid_set_free(&gset);
        conn_send_err_code(c, ER_INCORRECT_GTID_STATE);
        return 0;
    }
    int rc = binlog_sender_open(bl, file, pos, gtid ? &gset : NULL, &snd, err, sizeof err);
    binlog_gtid_set_free(&gset);
    if (rc) {
        conn_send_err(c, ER_MASTER_FATAL_ERROR_READING_BINLOG, "HY000", err);
        return 0;
    }
    if (gtid) {
        const value_t *v = session_uservar(s, "slave_connect_state");
        log_note("replica (server_id %u) connected from '%s': binlog dump from GTID position '%.*s'",
                 s->replica_server_id, s->host, (int)MIN(v->s.len, 512), v->s.ptr);
    } else {
        log_note("replica (server_id %u) connected from '%s': binlog dump from '%s' at %u", s->replica_server_id,
                 s->host, file[0] ? file : "(the first file)", pos);
    }
    int hb = heartbeat_ms(s);
    const value_t *sv = session_uservar(s, "rpl_semi_sync_slave");
    bool semi = sv && sv->type != VAL_NULL && value_to_int(sv, NULL) != 0;
    bool awaiting_ack = false;
    binlog_pos_t requested = {0, 0}, acked = {0, 0};
    if (semi)
        repl_semisync_replica_add();
    buf_t ev;
    buf_init(&ev);
    int result = 0;
    uint64_t idle_since = 0;
    blocking_begin(); /* a long wait for other sessions' commits: the pool may grow */
    for (;;) {
        if (atomic_load(&s->killed) || atomic_load(&c->srv->shutdown_requested)) {
            result = -1;
            break;
        }
        if (semi && (c->rbuf.len || awaiting_ack)) { /* ACKs that came in */
            if (read_acks(c, bl, 0, &acked) != 0) {
                result = -1;
                break;
            }
            awaiting_ack = binlog_pos_cmp(acked, requested) < 0;
        }
        int k = binlog_sender_next(snd, &ev, 0);
        if (k == 0) { /* caught up: push what is buffered, then wait */
            if (conn_flush(c) != 0) {
                result = -1;
                break;
            }
            if (semi && awaiting_ack) { /* the replica's ACK, or new events, whichever first */
                if (read_acks(c, bl, 1, &acked) != 0) {
                    result = -1;
                    break;
                }
                awaiting_ack = binlog_pos_cmp(acked, requested) < 0;
                continue;
            }
            if (flags & 1) { /* BINLOG_DUMP_NON_BLOCK: end of the stream */
                conn_send_eof(c, session_status_flags(s), 0);
                break;
            }
            k = binlog_sender_next(snd, &ev, MIN(hb, 1000)); /* wake at least each second to see KILL */
            if (k == 0) {
                uint64_t now = time_mono_us();
                if (!idle_since)
                    idle_since = now;
                if (now - idle_since < (uint64_t)hb * 1000u)
                    continue;
                idle_since = 0;
                binlog_sender_heartbeat(snd, &ev);
                k = 1;
            }
        }
        if (k < 0) {
            char msg[1000];
            snprintf(msg, sizeof msg, "%s", binlog_sender_error(snd));
            log_warn("replica (server_id %u): binlog dump stopped: %s", s->replica_server_id, msg);
            conn_send_err(c, ER_MASTER_FATAL_ERROR_READING_BINLOG, "HY000", msg);
            break;
        }
        idle_since = 0;
        conn_pk_begin(c);
        buf_put_u8(&c->obuf, 0x00);
        if (semi) {
            bool ack = ends_transaction(&ev) && repl_semisync_enabled();
            buf_put_u8(&c->obuf, 0xef);
            buf_put_u8(&c->obuf, ack ? 0x01 : 0x00);
            if (ack) {
                repl_semisync_count_request();
                char nm[256];
                uint64_t p;
                uint32_t fs;
                binlog_sender_position(snd, nm, sizeof nm, &p);
                if (binlog_file_seq(bl, nm, &fs) == 0)
                    requested = (binlog_pos_t){fs, p};
                awaiting_ack = true;
            }
        }
        buf_append(&c->obuf, ev.data, ev.len);
        conn_pk_end(c);
        if (c->obuf.len >= 64 * 1024 && conn_flush(c) != 0) {
            result = -1;
            break;
        }
    }
    blocking_end();
    if (semi)
        repl_semisync_replica_remove();
    buf_free(&ev);
    binlog_sender_close(snd);
    return result;
}
