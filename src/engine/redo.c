/*
 * engine/redo: redo log file, appends, group commit, checkpoints and the recovery scan (see redo.h).
 *
 * File layout (little-endian):
 *   offset  size      what
 *   0       4096      header: magic "STRATAREDO\0\0" (12), version u32 (1), page size u32, capacity u64,
 *                     created (µs since epoch) u64, crc32c u32 of bytes [0, 36) at offset 36
 *   4096    4096      checkpoint slot 0 \  the valid slot with the higher sequence wins; a torn slot write
 *   8192    4096      checkpoint slot 1 /  leaves the other one intact
 *   12288   capacity  circular data: the byte with LSN L lives at 12288 + L % capacity
 *
 * Checkpoint slot:
 *   0  4  magic 0x54504b43 ("CKPT")    4  4  crc32c of bytes [8, 80)
 *   8  8  sequence                      16 8  checkpoint LSN        24 4 run id     28 4 reserved
 *   32 8  tail LSN (<= checkpoint LSN): the scan starts here; groups in [tail, checkpoint) are read only for
 *         their logical (undo, commit) records
 *   40 32 user words (4 x u64): engine state saved with the checkpoint
 *
 * Group (one per mini-transaction; never split except by the wrap of the circular area):
 *   0  4  total length, header included
 *   4  4  crc32c of bytes [8, total)
 *   8  8  start LSN of this group (a stale group from an earlier lap has the wrong LSN)
 *   16 4  run id (groups left over from before the last recovery have another run id)
 *   20 4  reserved (0)
 *   24 .. body: records, see mtr.c
 *
 * The log is never overwritten past the last checkpoint: redo_append() asserts there is room and the engine calls
 * a checkpoint long before (engine.c, log_free_check).
 */
#include "util/blocking.h"
#include "engine/redo.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/page.h"
#include "util/fio.h"
#include "util/util.h"

#define REDO_MAGIC "STRATAREDO\0\0"
#define REDO_HDR_SIZE 12288
#define CKPT_MAGIC 0x54504b43u
#define LSN_START 65536ull
/* Pending groups past this many bytes are written (not synced) by the appender, so a long transaction that
 * commits nothing does not keep its whole redo in memory (InnoDB writes when its log buffer fills); and the
 * buffer is given back down to this size once written. */
#define REDO_WRITE_AHEAD (8u << 20)

typedef struct waiter {
    uint64_t lsn;
    bool sync, done;
    int rc;
    pthread_cond_t cond;
    struct waiter *next;
} waiter_t;

struct redo {
    int fd;
    bool dsync;           /* opened with O_DSYNC (innodb_flush_method=O_DSYNC): every write is durable when it
                             returns, so a sync needs no fdatasync */
    char *path;
    uint64_t cap;
    uint32_t page_size;
    redo_ckpt_t ckpt;
    uint64_t ckpt_seq;
    pthread_mutex_t mu;
    uint64_t cur_lsn;     /* end of the appended log */
    uint64_t buf_lsn;     /* LSN of pending.data[0] */
    uint64_t written_lsn; /* written to the file */
    uint64_t flushed_lsn; /* durable */
    uint64_t horizon;     /* pages whose LSN is <= this get a full image on their next change */
    buf_t pending, spare;
    bool leader_active;
    bool started;
    int err;              /* sticky write error */
    waiter_t *waiters;    /* sorted by lsn */
    redo_stats_t st;
};

static int pwrite_all(int fd, const void *p, size_t n, off_t off) { return fio_pwrite(FIO_REDO, fd, p, n, off); }

/* Past the end of the file reads as zeros (a sparse log's never-written tail). */
static int pread_all(int fd, void *p, size_t n, off_t off)
{
    size_t got = 0;
    int rc = fio_pread(FIO_REDO, fd, p, n, off, &got);
    if (!rc && got < n)
        memset((uint8_t *)p + got, 0, n - got);
    return rc;
}

/* Reads or writes [lsn, lsn+n) of the circular area, in two pieces when it wraps. */
static int circ_io(redo_t *r, uint64_t lsn, void *p, size_t n, bool wr)
{
    uint8_t *b = p;
    while (n) {
        uint64_t pos = lsn % r->cap;
        size_t chunk = (size_t)MIN((uint64_t)n, r->cap - pos);
        int rc = wr ? pwrite_all(r->fd, b, chunk, (off_t)(REDO_HDR_SIZE + pos))
                    : pread_all(r->fd, b, chunk, (off_t)(REDO_HDR_SIZE + pos));
        if (rc)
            return rc;
        b += chunk;
        n -= chunk;
        lsn += chunk;
    }
    return 0;
}

static int read_ckpt(redo_t *r, int slot, redo_ckpt_t *c, uint64_t *seq)
{
    uint8_t b[80];
    if (pread_all(r->fd, b, sizeof b, 4096 * (1 + slot)))
        return -1;
    if (rd32(b) != CKPT_MAGIC || rd32(b + 4) != crc32c(0, b + 8, 72))
        return -1;
    *seq = rd64(b + 8);
    c->ckpt_lsn = rd64(b + 16);
    c->run_id = rd32(b + 24);
    c->tail_lsn = rd64(b + 32);
    for (int i = 0; i < REDO_USER_WORDS; i++)
        c->user[i] = rd64(b + 40 + 8 * i);
    return 0;
}

static int write_ckpt(redo_t *r, const redo_ckpt_t *c)
{
    uint8_t b[4096] = {0};
    uint64_t seq = r->ckpt_seq + 1;
    wr32(b, CKPT_MAGIC);
    wr64(b + 8, seq);
    wr64(b + 16, c->ckpt_lsn);
    wr32(b + 24, c->run_id);
    wr64(b + 32, c->tail_lsn);
    for (int i = 0; i < REDO_USER_WORDS; i++)
        wr64(b + 40 + 8 * i, c->user[i]);
    wr32(b + 4, crc32c(0, b + 8, 72));
    int rc = pwrite_all(r->fd, b, sizeof b, 4096 * (1 + (seq & 1)));
    if (!rc)
        rc = fio_fdatasync(FIO_REDO, r->fd);
    if (!rc)
        r->ckpt_seq = seq;
    return rc;
}

static int create_file(const char *path, uint64_t cap, uint32_t page_size, bool sparse)
{
    int rc = 0;
    int fd = fio_open(FIO_REDO, path, O_RDWR | O_CREAT | O_EXCL, 0640);
    if (fd < 0)
        return fd;
    uint8_t *blk = mem_calloc(1, 1 << 20);
    memcpy(blk, REDO_MAGIC, 12);
    wr32(blk + 12, 1);
    wr32(blk + 16, page_size);
    wr64(blk + 20, cap);
    wr64(blk + 28, time_wall_us());
    wr32(blk + 36, crc32c(0, blk, 36));
    if ((rc = pwrite_all(fd, blk, 4096, 0)))
        goto out;
    /* The first checkpoint: an empty log starting at LSN_START, run 1. */
    redo_t tmp = {.fd = fd, .cap = cap};
    redo_ckpt_t c = {.ckpt_lsn = LSN_START, .tail_lsn = LSN_START, .run_id = 1};
    if ((rc = write_ckpt(&tmp, &c)))
        goto out;
    if (sparse) {
        rc = fio_ftruncate(FIO_REDO, fd, REDO_HDR_SIZE + cap);
    } else {
        /* Large writes, never small blocks: 1 MiB at a time. */
        memset(blk, 0, 1 << 20);
        if ((rc = fio_allocate(FIO_REDO, fd, REDO_HDR_SIZE, cap)))
            goto out;
        for (uint64_t off = 0; off < cap && !rc; off += 1 << 20)
            rc = pwrite_all(fd, blk, (size_t)MIN((uint64_t)1 << 20, cap - off), (off_t)(REDO_HDR_SIZE + off));
    }
    if (!rc)
        rc = fio_fsync(FIO_REDO, fd);
out:
    mem_free(blk);
    close(fd);
    if (rc)
        unlink(path);
    return rc;
}

int redo_open(const char *path, uint64_t capacity, uint32_t page_size, bool sparse, bool dsync, redo_t **out)
{
    int rc = 0;
    *out = NULL;
    if (access(path, F_OK) != 0) {
        capacity = (capacity + 4095) & ~4095ull;
        if (capacity < (1 << 20))
            capacity = 1 << 20;
        if ((rc = create_file(path, capacity, page_size, sparse))) {
            log_error("redo: cannot create '%s': %s", path, strerror(-rc));
            return rc;
        }
    }
    redo_t *r = mem_calloc(1, sizeof *r);
    r->path = mem_strdup(path);
    pthread_mutex_init(&r->mu, NULL);
    buf_init(&r->pending);
    buf_init(&r->spare);
    r->dsync = dsync;
    r->fd = fio_open(FIO_REDO, path, O_RDWR | (dsync ? O_DSYNC : 0), 0);
    if (r->fd < 0) {
        rc = r->fd;
        log_error("redo: cannot open '%s': %s", path, strerror(-rc));
        goto fail;
    }
    uint8_t h[40];
    if ((rc = pread_all(r->fd, h, sizeof h, 0)))
        goto fail;
    if (memcmp(h, REDO_MAGIC, 12) || rd32(h + 36) != crc32c(0, h, 36) || rd32(h + 12) != 1) {
        rc = CORRUPT("redo: '%s' is not a strata redo log (bad header)", path);
        goto fail;
    }
    r->page_size = rd32(h + 16);
    r->cap = rd64(h + 20);
    /* A header with a good checksum can still be nonsense (fuzzing found a zero capacity: a division by zero in
     * the first scan): the capacity must be whole 4 KiB blocks that the file holds, the page size a real one. */
    struct stat st;
    if (fstat(r->fd, &st) || r->cap < 4096 || r->cap % 4096 || r->cap > (uint64_t)st.st_size ||
        (uint64_t)st.st_size - r->cap < REDO_HDR_SIZE || r->page_size < 4096 || r->page_size > 65536 ||
        (r->page_size & (r->page_size - 1))) {
        rc = CORRUPT("redo: '%s' has an impossible capacity or page size in its header", path);
        goto fail;
    }
    redo_ckpt_t c[2];
    uint64_t seq[2];
    int ok0 = read_ckpt(r, 0, &c[0], &seq[0]) == 0, ok1 = read_ckpt(r, 1, &c[1], &seq[1]) == 0;
    if (!ok0 && !ok1) {
        rc = CORRUPT("redo: '%s' has no valid checkpoint", path);
        goto fail;
    }
    int best = (ok0 && (!ok1 || seq[0] > seq[1])) ? 0 : 1;
    r->ckpt = c[best];
    r->ckpt_seq = seq[best];
    *out = r;
    return 0;
fail:
    redo_close(r);
    return rc;
}

void redo_close(redo_t *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    buf_free(&r->pending);
    buf_free(&r->spare);
    pthread_mutex_destroy(&r->mu);
    mem_free(r->path);
    mem_free(r);
}

const redo_ckpt_t *redo_last_ckpt(const redo_t *r) { return &r->ckpt; }
uint64_t redo_capacity(const redo_t *r) { return r->cap; }

int redo_scan(redo_t *r, redo_scan_cb cb, void *ctx, uint64_t *end_lsn)
{
    int rc = 0;
    uint64_t lsn = r->ckpt.tail_lsn;
    buf_t g;
    buf_init(&g);
    for (;;) {
        uint8_t h[REDO_GROUP_HDR];
        if ((rc = circ_io(r, lsn, h, sizeof h, false)))
            break;
        uint32_t len = rd32(h);
        if (len < REDO_GROUP_HDR || len > r->cap / 2 || lsn + len - r->ckpt.tail_lsn > r->cap ||
            rd64(h + 8) != lsn || rd32(h + 16) != r->ckpt.run_id)
            break;
        buf_reset(&g);
        buf_reserve(&g, len);
        if ((rc = circ_io(r, lsn, g.data, len, false)))
            break;
        if (rd32(g.data + 4) != crc32c(0, g.data + 8, len - 8))
            break; /* torn tail: the end of the log */
        if ((rc = cb(ctx, lsn, lsn + len, g.data + REDO_GROUP_HDR, len - REDO_GROUP_HDR)))
            break;
        lsn += len;
    }
    buf_free(&g);
    *end_lsn = lsn;
    return rc;
}

int redo_start(redo_t *r, uint64_t end_lsn, const uint64_t user[REDO_USER_WORDS])
{
    redo_ckpt_t c = {.ckpt_lsn = end_lsn, .tail_lsn = end_lsn, .run_id = r->ckpt.run_id + 1};
    memcpy(c.user, user, sizeof c.user);
    int rc = write_ckpt(r, &c);
    if (rc)
        return rc;
    r->ckpt = c;
    r->cur_lsn = r->buf_lsn = r->written_lsn = r->flushed_lsn = r->horizon = end_lsn;
    r->started = true;
    return 0;
}

int redo_start_deferred(redo_t *r, uint64_t end_lsn, const uint64_t user[REDO_USER_WORDS])
{
    /* The slot on disk stays the old run's, and so does the tail in memory: no group of the new run may
     * overwrite the old log while the old checkpoint is the one a crash would recover from. */
    redo_ckpt_t c = {.ckpt_lsn = r->ckpt.ckpt_lsn, .tail_lsn = r->ckpt.tail_lsn, .run_id = r->ckpt.run_id + 1};
    memcpy(c.user, user, sizeof c.user);
    r->ckpt = c;
    r->cur_lsn = r->buf_lsn = r->written_lsn = r->flushed_lsn = r->horizon = end_lsn;
    r->started = true;
    return 0;
}

static void lead(redo_t *r, bool sync);

uint64_t redo_append(redo_t *r, const uint8_t *body, size_t len, uint64_t fpi_horizon)
{
    uint8_t h[REDO_GROUP_HDR] = {0};
    uint32_t total = (uint32_t)(len + REDO_GROUP_HDR);
    pthread_mutex_lock(&r->mu);
    ASSERT(r->started);
    if (fpi_horizon != r->horizon) {
        pthread_mutex_unlock(&r->mu);
        return 0;
    }
    uint64_t lsn = r->cur_lsn;
    ASSERT(lsn + total - r->ckpt.tail_lsn <= r->cap);
    wr32(h, total);
    wr64(h + 8, lsn);
    wr32(h + 16, r->ckpt.run_id);
    uint32_t crc = crc32c(0, h + 8, REDO_GROUP_HDR - 8);
    crc = crc32c(crc, body, len);
    wr32(h + 4, crc);
    buf_append(&r->pending, h, sizeof h);
    buf_append(&r->pending, body, len);
    r->cur_lsn = lsn + total;
    r->st.groups++;
    r->st.bytes += total;
    if (r->pending.len >= REDO_WRITE_AHEAD && !r->leader_active && !r->err)
        lead(r, false);
    pthread_mutex_unlock(&r->mu);
    return lsn + total;
}

uint64_t redo_fpi_horizon(redo_t *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t h = r->horizon;
    pthread_mutex_unlock(&r->mu);
    return h;
}

uint64_t redo_current_lsn(redo_t *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t v = r->cur_lsn;
    pthread_mutex_unlock(&r->mu);
    return v;
}

uint64_t redo_flushed_lsn(redo_t *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t v = r->flushed_lsn;
    pthread_mutex_unlock(&r->mu);
    return v;
}

uint64_t redo_used(redo_t *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t v = r->cur_lsn - r->ckpt.tail_lsn;
    pthread_mutex_unlock(&r->mu);
    return v;
}

static bool covered(const redo_t *r, const waiter_t *w)
{
    return r->err || (w->sync ? r->flushed_lsn : r->written_lsn) >= w->lsn;
}

/* Called with the mutex held by the leader: writes the pending buffer, syncs if asked, and wakes the waiters the
 * new positions cover.  Drops the mutex during I/O so that other threads keep appending. */
static void lead(redo_t *r, bool sync)
{
    r->leader_active = true;
    buf_t out = r->pending;
    r->pending = r->spare;
    buf_reset(&r->pending);
    uint64_t start = r->buf_lsn, end = r->cur_lsn;
    r->buf_lsn = end;
    pthread_mutex_unlock(&r->mu);

    int rc = 0;
    if (out.len)
        rc = circ_io(r, start, out.data, out.len, true);
    if (!rc && sync && !r->dsync)
        rc = fio_fdatasync(FIO_REDO, r->fd);

    pthread_mutex_lock(&r->mu);
    buf_reset(&out);
    buf_shrink(&out, REDO_WRITE_AHEAD);
    r->spare = out;
    r->st.flushes++;
    if (rc) {
        log_error("redo: write to '%s' failed: %s", r->path, strerror(-rc));
        r->err = rc;
    } else {
        r->written_lsn = end;
        if (sync || r->dsync) {
            r->flushed_lsn = end;
            r->st.syncs += !r->dsync;
        }
    }
    r->leader_active = false;
    /* Wake by position: exactly the waiters at or below what is now written/durable. */
    waiter_t **pp = &r->waiters;
    while (*pp) {
        waiter_t *w = *pp;
        if (covered(r, w)) {
            *pp = w->next;
            w->done = true;
            w->rc = r->err;
            pthread_cond_signal(&w->cond);
        } else {
            pp = &w->next;
        }
    }
    /* The first waiter left becomes the next leader. */
    if (r->waiters)
        pthread_cond_signal(&r->waiters->cond);
}

int redo_flush(redo_t *r, uint64_t lsn, bool sync)
{
    pthread_mutex_lock(&r->mu);
    waiter_t w = {.lsn = lsn, .sync = sync};
    if (covered(r, &w)) {
        int rc = r->err;
        pthread_mutex_unlock(&r->mu);
        return rc;
    }
    pthread_cond_init(&w.cond, NULL);
    waiter_t **pp = &r->waiters;
    while (*pp && (*pp)->lsn <= lsn)
        pp = &(*pp)->next;
    w.next = *pp;
    *pp = &w;
    while (!w.done) {
        if (!r->leader_active) {
            /* Leave the queue while leading; lead() wakes the others. */
            waiter_t **q = &r->waiters;
            while (*q != &w)
                q = &(*q)->next;
            *q = w.next;
            lead(r, sync);
            if (covered(r, &w)) {
                w.done = true;
                w.rc = r->err;
                break;
            }
            pp = &r->waiters;
            while (*pp && (*pp)->lsn <= lsn)
                pp = &(*pp)->next;
            w.next = *pp;
            *pp = &w;
            continue;
        }
        r->st.waits++;
        blocking_begin();
        pthread_cond_wait(&w.cond, &r->mu);
        blocking_end();
    }
    pthread_mutex_unlock(&r->mu);
    pthread_cond_destroy(&w.cond);
    return w.rc;
}

uint64_t redo_ckpt_begin(redo_t *r)
{
    pthread_mutex_lock(&r->mu);
    r->horizon = r->cur_lsn;
    uint64_t v = r->cur_lsn;
    pthread_mutex_unlock(&r->mu);
    return v;
}

int redo_ckpt_end(redo_t *r, uint64_t ckpt_lsn, uint64_t tail_lsn, const uint64_t user[REDO_USER_WORDS])
{
    /* The checkpoint record may only name log that is durable. */
    int rc = redo_flush(r, ckpt_lsn, true);
    if (rc)
        return rc;
    redo_ckpt_t c = {.ckpt_lsn = ckpt_lsn, .tail_lsn = MIN(tail_lsn, ckpt_lsn), .run_id = r->ckpt.run_id};
    memcpy(c.user, user, sizeof c.user);
    /* Only the checkpointer (serialised by the engine) writes slots, so the write needs no log mutex. */
    rc = write_ckpt(r, &c);
    pthread_mutex_lock(&r->mu);
    if (!rc) {
        r->ckpt = c;
        r->st.checkpoints++;
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void redo_stats(redo_t *r, redo_stats_t *st)
{
    pthread_mutex_lock(&r->mu);
    *st = r->st;
    pthread_mutex_unlock(&r->mu);
}
