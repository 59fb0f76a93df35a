/*
 * The replication sender: what a binlog dump (COM_BINLOG_DUMP) streams to a replica, event by event.
 *
 *   fake ROTATE (timestamp 0, log_pos 0, LOG_EVENT_ARTIFICIAL_F) naming the file and position the stream starts at
 *   the file's FORMAT_DESCRIPTION (log_pos 0 when the stream starts past it, so the replica does not move)
 *   events from the start position; at the end of a closed file its ROTATE (or a fake one when the file was
 *   closed by recovery without one), then the next file's FORMAT_DESCRIPTION and events; at the end of the
 *   active file: wait until more is durable (only durable events are ever sent), or a HEARTBEAT after the
 *   replica's heartbeat period
 *
 * GTID mode (a MariaDB replica with MASTER_USE_GTID, @slave_connect_state): the stream starts at the newest file
 * whose start state is at or before the replica's position (binlog_gtid_start_file, index only) and skips the
 * event groups the replica already has (per domain, sequence numbers at or below the replica's).
 * Compressed files are read through the same reader as plain ones.
 */
#include <string.h>
#include <unistd.h>

#include "binlog/binlog_priv.h"

typedef enum send_state { SEND_ROTATE = 0, SEND_FDE, SEND_EVENTS } send_state_t;

struct binlog_sender {
    binlog_t *bl;
    send_state_t state;
    uint32_t seq;          /* current file */
    char name[BL_NAME_MAX];
    uint64_t pos;          /* position of the next event to send in the current file */
    uint64_t start_pos;    /* where the replica asked to start in the first file (4 = beginning) */
    bool first_file;
    binlog_reader_t *r;
    bool gtid_mode;
    binlog_gtid_set_t have; /* GTID mode: what the replica has */
    int skip;               /* events left to skip in the current group: -1 = up to its XID */
    bool last_was_rotate;
    char err[700];
};

static uint32_t first_seq(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    uint32_t s = bl->nfiles ? bl->files[bl->head].seq : 0;
    pthread_mutex_unlock(&bl->mu);
    return s;
}

static bool file_exists(binlog_t *bl, uint32_t seq)
{
    pthread_mutex_lock(&bl->mu);
    bool e = bl_file_by_seq(bl, seq) != NULL;
    pthread_mutex_unlock(&bl->mu);
    return e;
}

/* Where file seq ends: its size if closed, the write position if it is the active file. */
static uint64_t file_end(binlog_t *bl, uint32_t seq)
{
    pthread_mutex_lock(&bl->mu);
    bl_file_t *f = bl_file_by_seq(bl, seq);
    uint64_t size = f ? f->size : 0;
    bool active = seq == bl->active_seq;
    pthread_mutex_unlock(&bl->mu);
    if (active) {
        char an[BL_NAME_MAX];
        binlog_master_status(bl, an, sizeof an, &size);
    }
    return size;
}

/*
 * Is every GTID of the replica's position one of ours (MariaDB's check_slave_start_position)?  A GTID whose
 * (domain, server) our state holds at that sequence number or later is in our history (strata writes no gaps
 * within a domain, so there is no "hole" to refuse under the replica's gtid_strict_mode, and both modes answer
 * the same).  A domain we never had is another primary's: it is accepted, and the replica's entry just skips
 * what it has should that domain ever appear.  Anything else (ahead of us, or a server of the domain we never
 * logged) is a replica we cannot serve: MariaDB's two texts, the second when our binlog holds higher sequence
 * numbers of that domain, meaning the replica has diverged.
 */
static int gtid_position_check(binlog_t *bl, const binlog_gtid_set_t *pos, char *err, size_t errcap)
{
    binlog_gtid_set_t st = {0};
    binlog_gtid_state(bl, &st);
    int rc = 0;
    for (uint32_t i = 0; i < pos->n && rc == 0; i++) {
        binlog_gtid_t g = pos->v[i];
        uint64_t have;
        if ((binlog_gtid_set_find(&st, g.domain, g.server, &have) && have >= g.seq) ||
            !binlog_gtid_set_has_domain(&st, g.domain))
            continue;
        bool diverged = binlog_gtid_set_domain_seq(&st, g.domain) >= g.seq;
        snprintf(err, errcap, "Error: connecting slave requested to start from GTID %u-%u-%llu, which is not in the "
                              "master's binlog%s", g.domain, g.server, (unsigned long long)g.seq,
                 diverged ? ". Since the master's binlog contains GTIDs with higher sequence numbers, it probably "
                            "means that the slave has diverged due to executing extra erroneous transactions" : "");
        rc = STRATA_ENOTFOUND;
    }
    binlog_gtid_set_free(&st);
    return rc;
}

int binlog_sender_open(binlog_t *bl, const char *file, uint64_t pos, const binlog_gtid_set_t *gtid_pos,
                       binlog_sender_t **out, char *err, size_t errcap)
{
    *out = NULL;
    uint32_t seq;
    if (gtid_pos) {
        if (gtid_position_check(bl, gtid_pos, err, errcap) != 0)
            return STRATA_ENOTFOUND;
        if (binlog_gtid_start_file(bl, gtid_pos, &seq) != 0) {
            snprintf(err, errcap, "Could not find GTID state requested by slave in any binlog files. Probably the "
                                  "slave state is too old and required binlog files have been purged.");
            return STRATA_ENOTFOUND;
        }
        pos = 4;
    } else if (!file || !*file) {
        if (!(seq = first_seq(bl))) {
            snprintf(err, errcap, "Binary log is not open");
            return STRATA_ENOTFOUND;
        }
    } else if (binlog_file_seq(bl, file, &seq) != 0 || !file_exists(bl, seq)) {
        snprintf(err, errcap, "Could not find first log file name in binary log index file");
        return STRATA_ENOTFOUND;
    } else if (pos > file_end(bl, seq)) { /* MariaDB's text, with the positions it has read by then */
        snprintf(err, errcap, "Client requested master to start replication from impossible position; the first "
                              "event '%s' at %llu, the last event read from '%s' at 4, the last byte read from '%s' "
                              "at 4.", file, (unsigned long long)pos, file, file);
        return STRATA_ENOTFOUND;
    }
    binlog_sender_t *s = mem_calloc(1, sizeof *s);
    s->bl = bl;
    s->seq = seq;
    binlog_file_name(bl, seq, s->name, sizeof s->name);
    s->start_pos = pos < 4 ? 4 : pos;
    s->pos = s->start_pos;
    s->first_file = true;
    s->gtid_mode = gtid_pos != NULL;
    if (gtid_pos)
        binlog_gtid_set_copy(&s->have, gtid_pos);
    *out = s;
    return 0;
}

void binlog_sender_close(binlog_sender_t *s)
{
    if (!s)
        return;
    if (s->r)
        binlog_reader_close(s->r);
    binlog_gtid_set_free(&s->have);
    mem_free(s);
}

const char *binlog_sender_error(binlog_sender_t *s) { return s->err; }

void binlog_sender_position(binlog_sender_t *s, char *name, size_t cap, uint64_t *pos)
{
    snprintf(name, cap, "%s", s->name);
    *pos = s->pos;
}

/* An artificial event (ROTATE or HEARTBEAT): log_pos as given, LOG_EVENT_ARTIFICIAL_F, CRC32. */
static void artificial(binlog_sender_t *s, buf_t *out, int type, uint64_t rotate_pos, uint32_t log_pos)
{
    buf_reset(out);
    size_t at = binlog_ev_begin(out, type, 0, s->bl->opt.server_id, BINLOG_EVF_ARTIFICIAL);
    if (type == BINLOG_EV_ROTATE)
        buf_put_u64(out, rotate_pos);
    buf_append_str(out, s->name);
    binlog_ev_end(out, at);
    wr32(out->data + 13, log_pos);
    wr32(out->data + out->len - 4, binlog_crc32(out->data, out->len - 4));
}

void binlog_sender_heartbeat(binlog_sender_t *s, buf_t *out)
{
    artificial(s, out, BINLOG_EV_HEARTBEAT, 0, (uint32_t)s->pos);
}

/* Is [pos, ...) of the current file durable?  Only then may the event at pos be read and sent. */
static bool durable_past(binlog_sender_t *s, uint64_t pos)
{
    binlog_pos_t d = binlog_durable_pos(s->bl);
    return d.file > s->seq || (d.file == s->seq && d.offset > pos);
}

/* Copies ev into out with log_pos forced to 0 (an FDE sent out of its place) and a fresh CRC. */
static void copy_event(buf_t *out, const binlog_event_t *ev, bool zero_pos)
{
    buf_reset(out);
    buf_append(out, ev->data, ev->size);
    bool fde = ev->type == BINLOG_EV_FORMAT_DESCRIPTION;
    if (zero_pos)
        wr32(out->data + 13, 0);
    if (fde) /* the active file's in-use flag is not the replica's business (its CRC never covered it) */
        out->data[17] &= (uint8_t)~BINLOG_EVF_IN_USE;
    if (zero_pos || fde)
        wr32(out->data + out->len - 4, binlog_crc32(out->data, out->len - 4));
}

/* GTID mode: does this event belong to a group the replica has?  Updates the skip state. */
static bool skip_event(binlog_sender_t *s, const binlog_event_t *ev)
{
    if (!s->gtid_mode)
        return false;
    if (ev->type == BINLOG_EV_GTID) {
        binlog_gtid_t g;
        uint8_t f2 = 0;
        if (binlog_event_gtid(ev, &g, &f2, NULL) != 0)
            return false;
        uint64_t have = binlog_gtid_set_domain_seq(&s->have, g.domain);
        if (g.seq > have) {
            s->skip = 0;
            return false;
        }
        s->skip = (f2 & BINLOG_GTID_FL_STANDALONE) ? 1 : -1;
        return true;
    }
    if (s->skip == 0)
        return false;
    if (s->skip > 0) {
        s->skip--;
        return true;
    }
    if (ev->type == BINLOG_EV_XID)
        s->skip = 0;
    return true;
}

int binlog_sender_next(binlog_sender_t *s, buf_t *out, int wait_ms)
{
    for (;;) {
        if (s->state == SEND_ROTATE) {
            artificial(s, out, BINLOG_EV_ROTATE, s->first_file ? s->start_pos : 4, 0);
            s->state = SEND_FDE;
            return 1;
        }
        if (s->state == SEND_FDE && !s->r) {
            int rc = binlog_reader_open(s->bl, s->name, 4, &s->r);
            if (rc) {
                snprintf(s->err, sizeof s->err, "%s", binlog_reader_error(s->r));
                return rc;
            }
        }
        if (s->state == SEND_FDE) {
            binlog_event_t ev;
            int k = binlog_reader_next(s->r, &ev);
            if (k <= 0 || ev.type != BINLOG_EV_FORMAT_DESCRIPTION) {
                snprintf(s->err, sizeof s->err, "%s", k < 0 ? binlog_reader_error(s->r)
                                                            : "binlog file does not start with a format description");
                return k < 0 ? k : STRATA_ECORRUPT;
            }
            bool out_of_place = s->first_file && s->start_pos > 4;
            copy_event(out, &ev, out_of_place);
            s->state = SEND_EVENTS;
            if (out_of_place) { /* go to where the replica asked */
                binlog_reader_close(s->r);
                s->r = NULL;
                int rc = binlog_reader_open(s->bl, s->name, s->start_pos, &s->r);
                if (rc) {
                    snprintf(s->err, sizeof s->err, "%s", binlog_reader_error(s->r));
                    return rc;
                }
                s->pos = s->start_pos;
            } else {
                s->pos = ev.pos + ev.size;
            }
            s->first_file = false;
            s->last_was_rotate = false;
            return 1;
        }
        /* events: only what is durable.  At the durable end of the active file the reader is dropped: it may
         * have buffered bytes being written; it is opened again at the position once more is durable. */
        if (!durable_past(s, s->pos) && !file_exists(s->bl, s->seq + 1)) {
            binlog_reader_close(s->r);
            s->r = NULL;
            binlog_pos_t want = {s->seq, s->pos + 1};
            if (wait_ms == 0 || binlog_wait_durable(s->bl, want, wait_ms) != 0)
                return 0; /* nothing new: the caller flushes, or sends a heartbeat */
        }
        if (!s->r) {
            int rc = binlog_reader_open(s->bl, s->name, s->pos, &s->r);
            if (rc) {
                snprintf(s->err, sizeof s->err, "%s", binlog_reader_error(s->r));
                return rc;
            }
        }
        binlog_event_t ev;
        int k = binlog_reader_next(s->r, &ev);
        if (k < 0) {
            snprintf(s->err, sizeof s->err, "%s", binlog_reader_error(s->r));
            return k;
        }
        if (k == 0) {
            if (!file_exists(s->bl, s->seq + 1)) {
                /* durable says more is there but the file ends: a rotation in progress; look again shortly */
                binlog_reader_close(s->r);
                s->r = NULL;
                if (wait_ms == 0)
                    return 0;
                usleep(1000);
                continue;
            }
            /* the next file */
            bool rotated = s->last_was_rotate;
            binlog_reader_close(s->r);
            s->r = NULL;
            s->seq++;
            binlog_file_name(s->bl, s->seq, s->name, sizeof s->name);
            s->pos = 4;
            s->state = SEND_FDE;
            if (!rotated) { /* a file closed by recovery has no ROTATE: tell the replica the new name */
                artificial(s, out, BINLOG_EV_ROTATE, 4, 0);
                return 1;
            }
            continue;
        }
        s->pos = ev.pos + ev.size;
        s->last_was_rotate = ev.type == BINLOG_EV_ROTATE;
        if (ev.type == BINLOG_EV_STOP || skip_event(s, &ev))
            continue;
        copy_event(out, &ev, false);
        return 1;
    }
}
