/*
 * The binlog: files, group commit, rotation, purge, recovery, compression policy.  README.md beside this file
 * states the invariants, the lock order and the group-commit protocol; docs/binlog.md the formats.
 *
 * The head of every file strata writes (positions as in MariaDB 10.11):
 *     4    FORMAT_DESCRIPTION  (IN_USE flag set while the file is active, cleared when it is closed)
 *     256  GTID_LIST           GTID state at file start (last GTID per domain-server)
 *     ...  BINLOG_CHECKPOINT   name of the oldest file recovery needs (the engine checkpoint's file)
 *     ...  transactions: GTID [ANNOTATE_ROWS TABLE_MAP ROWS...]... XID    or    GTID(standalone) QUERY
 *     end  ROTATE (next file) or STOP (clean shutdown); a crashed file has neither.
 *
 * Group commit (binlog_commit): committers queue under mu; the one that finds the writer role free becomes the
 * leader, takes the whole queue, assigns GTIDs and file positions in queue order, writes the group with one
 * pwrite and one fdatasync, publishes the durable position, and completes exactly the waiters of its group, each
 * on its own condition variable.  If more committers queued meanwhile, the leader hands the role to the first
 * of them (one signal) rather than waking everyone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binlog/binlog_priv.h"
#include "util/fio.h"
#include "util/blocking.h"

static uint32_t now_s(void)
{
    return (uint32_t)time(NULL);
}

void binlog_options_default(binlog_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->dir = ".";
    o->basename = "strata-bin";
    o->server_id = 1;
    o->max_size = 1ull << 30;
    o->sync = 1;
    o->server_version = "10.11.6-MariaDB-strata";
}

void binlog_file_name(binlog_t *bl, uint32_t seq, char *name, size_t cap)
{
    snprintf(name, cap, "%s.%06u", bl->base, seq);
}

int binlog_file_seq(binlog_t *bl, const char *name, uint32_t *seq)
{
    const char *slash = strrchr(name, '/');
    if (slash)
        name = slash + 1;
    size_t bn = strlen(bl->base);
    if (strncmp(name, bl->base, bn) || name[bn] != '.')
        return STRATA_ENOTFOUND;
    char *e;
    unsigned long v = strtoul(name + bn + 1, &e, 10);
    if (e == name + bn + 1 || *e || v == 0 || v > UINT32_MAX)
        return STRATA_ENOTFOUND;
    *seq = (uint32_t)v;
    return 0;
}

void bl_file_path(binlog_t *bl, const bl_file_t *f, char *path, size_t cap)
{
    char name[BL_NAME_MAX];
    if (f->alt_name) {
        snprintf(path, cap, "%s/%s", bl->dir, f->alt_name);
        return;
    }
    binlog_file_name(bl, f->seq, name, sizeof name);
    snprintf(path, cap, "%s/%s%s", bl->dir, name, (f->flags & BL_F_COMPRESSED) ? ".zst" : "");
}

int binlog_file_path(binlog_t *bl, const char *name, char *path, size_t cap, bool *compressed)
{
    uint32_t seq;
    if (binlog_file_seq(bl, name, &seq))
        return STRATA_ENOTFOUND;
    pthread_mutex_lock(&bl->mu);
    bl_file_t *f = bl_file_by_seq(bl, seq);
    int rc = STRATA_ENOTFOUND;
    if (f) {
        bl_file_path(bl, f, path, cap);
        *compressed = (f->flags & BL_F_COMPRESSED) != 0;
        rc = 0;
    }
    pthread_mutex_unlock(&bl->mu);
    return rc;
}

void binlog_count_open(binlog_t *bl)
{
    __atomic_add_fetch(&bl->n_opened, 1, __ATOMIC_RELAXED);
}

/* Reports a file that is not a readable binlog, once in its life (the flag is persisted). Caller holds mu. */
static void report_unreadable(binlog_t *bl, bl_file_t *f, const char *why)
{
    f->flags |= BL_F_UNREADABLE;
    if (!f->reason || strcmp(f->reason, why)) {
        mem_free(f->reason);
        f->reason = mem_strdup(why);
    }
    if (f->flags & BL_F_REPORTED)
        return;
    char path[BL_PATH_MAX + 64];
    bl_file_path(bl, f, path, sizeof path);
    log_error("binlog: '%s' is not a readable binary log (%s); it stays in the index and is purged like any "
              "other file; this is reported once",
              path, why);
    f->flags |= BL_F_REPORTED;
    bl->stats.unreadable_reported++;
    bl_state_put_file(bl, f);
}

void binlog_mark_unreadable(binlog_t *bl, const char *name, const char *why)
{
    uint32_t seq;
    if (binlog_file_seq(bl, name, &seq))
        return;
    pthread_mutex_lock(&bl->mu);
    bl_file_t *f = bl_file_by_seq(bl, seq);
    if (f && seq != bl->active_seq)
        report_unreadable(bl, f, why);
    pthread_mutex_unlock(&bl->mu);
}

/* ---- durable-position waiters: a min-heap by position ------------------------------------------------------ */

static void pw_swap(bl_pwait_t *a, bl_pwait_t *b)
{
    bl_pwait_t t = *a;
    *a = *b;
    *b = t;
}

static void pw_push(binlog_t *bl, bl_pwait_t w)
{
    if (bl->npw == bl->cappw) {
        bl->cappw = bl->cappw ? 2 * bl->cappw : 16;
        bl->pw = mem_realloc(bl->pw, bl->cappw * sizeof *bl->pw);
    }
    uint32_t i = bl->npw++;
    bl->pw[i] = w;
    while (i > 0 && binlog_pos_cmp(bl->pw[(i - 1) / 2].pos, bl->pw[i].pos) > 0) {
        pw_swap(&bl->pw[(i - 1) / 2], &bl->pw[i]);
        i = (i - 1) / 2;
    }
}

static void pw_remove_at(binlog_t *bl, uint32_t i)
{
    bl->pw[i] = bl->pw[--bl->npw];
    for (;;) { /* sift down (the moved entry is never smaller than i's parent after a pop from the top; for
                  removal at i from the middle, also sift up) */
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < bl->npw && binlog_pos_cmp(bl->pw[l].pos, bl->pw[m].pos) < 0)
            m = l;
        if (r < bl->npw && binlog_pos_cmp(bl->pw[r].pos, bl->pw[m].pos) < 0)
            m = r;
        if (m == i)
            break;
        pw_swap(&bl->pw[i], &bl->pw[m]);
        i = m;
    }
    while (i > 0 && i < bl->npw && binlog_pos_cmp(bl->pw[(i - 1) / 2].pos, bl->pw[i].pos) > 0) {
        pw_swap(&bl->pw[(i - 1) / 2], &bl->pw[i]);
        i = (i - 1) / 2;
    }
}

typedef struct cb_list {
    void (*fn)(void *);
    void *arg;
} cb_t;

/* Completes position waiters at or below the durable position; callbacks are returned to run after unlock.
 * Caller holds mu.  Cost is O(woken * log waiting). */
static uint32_t pw_wake(binlog_t *bl, cb_t **cbs, uint32_t *ncap)
{
    uint32_t n = 0;
    while (bl->npw > 0 && binlog_pos_cmp(bl->pw[0].pos, bl->durable) <= 0) {
        bl_pwait_t w = bl->pw[0];
        pw_remove_at(bl, 0);
        if (w.cv) {
            *w.done = true;
            pthread_cond_signal(w.cv);
        } else {
            if (n == *ncap) {
                *ncap = *ncap ? 2 * *ncap : 8;
                *cbs = mem_realloc(*cbs, *ncap * sizeof **cbs);
            }
            (*cbs)[n++] = (cb_t){w.fn, w.arg};
        }
    }
    return n;
}

/* Sets the durable position outside a group (file head, ROTATE/STOP) and completes the waiters it satisfies, so a
 * reader tailing the end of a file is woken by the rotation.  Called and returns with mu held; runs callbacks
 * with mu released. */
static void durable_set(binlog_t *bl, binlog_pos_t p)
{
    bl->durable = p;
    binlog_gtid_set_copy(&bl->durable_state, &bl->state); /* no group in flight here */
    bl->durable_state_ok = true;
    cb_t *cbs = NULL;
    uint32_t ncap = 0, n = pw_wake(bl, &cbs, &ncap);
    if (n) {
        pthread_mutex_unlock(&bl->mu);
        for (uint32_t i = 0; i < n; i++)
            cbs[i].fn(cbs[i].arg);
        pthread_mutex_lock(&bl->mu);
    }
    mem_free(cbs);
}

binlog_pos_t binlog_durable_pos(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    binlog_pos_t p = bl->durable;
    pthread_mutex_unlock(&bl->mu);
    return p;
}

int binlog_wait_durable(binlog_t *bl, binlog_pos_t p, int timeout_ms)
{
    pthread_cond_t cv;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cv, &ca);
    pthread_condattr_destroy(&ca);
    bool done = false;
    int rc = 0;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    if (timeout_ms >= 0) {
        dl.tv_sec += timeout_ms / 1000;
        dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&bl->mu);
    if (binlog_pos_cmp(p, bl->durable) <= 0)
        goto out;
    pw_push(bl, (bl_pwait_t){p, &cv, &done, NULL, NULL});
    while (!done) {
        if (timeout_ms < 0) {
            pthread_cond_wait(&cv, &bl->mu);
        } else if (pthread_cond_timedwait(&cv, &bl->mu, &dl) == ETIMEDOUT && !done) {
            for (uint32_t i = 0; i < bl->npw; i++)
                if (bl->pw[i].done == &done) {
                    pw_remove_at(bl, i);
                    break;
                }
            rc = STRATA_EAGAIN;
            break;
        }
    }
out:
    pthread_mutex_unlock(&bl->mu);
    pthread_cond_destroy(&cv);
    return rc;
}

void binlog_on_durable(binlog_t *bl, binlog_pos_t p, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&bl->mu);
    if (binlog_pos_cmp(p, bl->durable) <= 0) {
        pthread_mutex_unlock(&bl->mu);
        fn(arg);
        return;
    }
    pw_push(bl, (bl_pwait_t){p, NULL, NULL, fn, arg});
    pthread_mutex_unlock(&bl->mu);
}

/* ---- the writer role ---------------------------------------------------------------------------------------- */

/* Caller holds mu.  Hands the writer role to an admin if one waits, else to the first queued committer. */
static void leader_run(binlog_t *bl);

/* Caller holds mu.  Hands the writer role to an admin if one waits, else to the first queued committer.  An
 * asynchronous committer has no thread to hand the role to: the releasing thread writes that group itself. */
static void writer_release(binlog_t *bl)
{
    for (;;) {
        if (bl->admin_waiting) {
            bl->writer_busy = false;
            pthread_cond_broadcast(&bl->writer_cv);
        } else if (bl->qhead && bl->qhead->cb) {
            leader_run(bl);
            continue;
        } else if (bl->qhead) {
            bl->qhead->state = BL_W_LEADER;
            pthread_cond_signal(&bl->qhead->cv);
        } else {
            bl->writer_busy = false;
        }
        return;
    }
}

static void writer_acquire(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    bl->admin_waiting++;
    while (bl->writer_busy)
        pthread_cond_wait(&bl->writer_cv, &bl->mu);
    bl->admin_waiting--;
    bl->writer_busy = true;
    pthread_mutex_unlock(&bl->mu);
}

static void writer_release_locked(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    writer_release(bl);
    pthread_mutex_unlock(&bl->mu);
}

/* sync_binlog: 0 never, 1 every group, N every N-th group (a file's end is always synced when sync != 0). */
static int do_sync(binlog_t *bl, bool force)
{
    if (!bl->opt.sync)
        return 0;
    if (!force && bl->opt.sync > 1 && ++bl->groups_unsynced < (uint32_t)bl->opt.sync)
        return 0;
    bl->groups_unsynced = 0;
    __atomic_add_fetch(&bl->n_fsyncs, 1, __ATOMIC_RELAXED);
    int rc = FAULT_POINT("binlog.before_fsync");
    if (rc < 0)
        return rc;
    return fio_fdatasync(FIO_BINLOG, bl->fd);
}

static int fsync_dir(const char *dir) { return fio_fsync_dir(FIO_BINLOG, dir); }

/* ---- files: create, close, rotate (writer role held) ---------------------------------------------------------- */

static int file_create(binlog_t *bl, uint32_t seq, bool at_startup)
{
    char name[BL_NAME_MAX], path[BL_PATH_MAX + 64];
    binlog_file_name(bl, seq, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", bl->dir, name);
    int fd = fio_open(FIO_BINLOG, path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
    if (fd < 0) {
        log_error("binlog: cannot create '%s': %s", path, strerror(-fd));
        return fd == -ENOSPC || fd == -EDQUOT ? BINLOG_EDISKFULL : fd;
    }
    binlog_count_open(bl);
    uint32_t t = now_s();
    buf_t b;
    buf_init(&b);
    static const uint8_t magic[4] = {0xfe, 'b', 'i', 'n'};
    buf_append(&b, magic, 4);
    binlog_ev_fde(&b, t, bl->opt.server_id, bl->opt.server_version, at_startup ? t : 0, BINLOG_EVF_IN_USE);
    pthread_mutex_lock(&bl->mu);
    binlog_gtid_set_t start = {0};
    binlog_gtid_set_copy(&start, &bl->state);
    uint32_t ck = bl->has_ckpt && bl_file_by_seq(bl, bl->ckpt.file) ? bl->ckpt.file : seq;
    pthread_mutex_unlock(&bl->mu);
    binlog_ev_gtid_list(&b, t, bl->opt.server_id, &start);
    char ckname[BL_NAME_MAX];
    binlog_file_name(bl, ck, ckname, sizeof ckname);
    binlog_ev_checkpoint(&b, t, bl->opt.server_id, ckname);
    uint64_t end = binlog_events_seal(b.data + 4, b.len - 4, 4, 0, 0);
    int rc = fio_pwrite(FIO_BINLOG, fd, b.data, b.len, 0);
    if (!rc && bl->opt.sync && !(rc = fio_fdatasync(FIO_BINLOG, fd)))
        rc = fsync_dir(bl->dir);
    if (rc) {
        log_error("binlog: cannot write '%s': %s", path, strerror(-rc));
        rc = rc == -ENOSPC || rc == -EDQUOT ? BINLOG_EDISKFULL : STRATA_EIO;
        close(fd);
        unlink(path);
        goto out;
    }
    if (bl->opt.sync)
        __atomic_add_fetch(&bl->n_fsyncs, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&bl->mu);
    bl_file_t *f = bl_file_append(bl, seq);
    f->size = f->disk_size = end;
    f->first_time = f->last_time = t;
    binlog_gtid_set_copy(&f->start, &start);
    bl->next_seq = seq + 1;
    bl->fd = fd;
    bl->active_seq = seq;
    bl->wpos = end;
    durable_set(bl, (binlog_pos_t){seq, end});
    /* a rotation's two index changes (old file closed, new file) go in one durable append */
    bl_file_t *prev = bl_file_by_seq(bl, seq - 1);
    bool both = prev && bl->defer_close_record;
    bl->defer_close_record = false;
    rc = both ? bl_state_put_files(bl, prev, f) : bl_state_put_file(bl, f);
    if (rc == 0)
        rc = bl_text_index_append(bl, seq);
    pthread_mutex_unlock(&bl->mu);
out:
    binlog_gtid_set_free(&start);
    buf_free(&b);
    return rc;
}

/* Ends the active file with ROTATE(next) or STOP, clears its IN_USE flag, records it closed. */
static int file_close(binlog_t *bl, bool rotate)
{
    if (bl->fd < 0)
        return 0;
    buf_t b;
    buf_init(&b);
    uint32_t t = now_s();
    if (rotate) {
        char next[BL_NAME_MAX];
        binlog_file_name(bl, bl->active_seq + 1, next, sizeof next);
        binlog_ev_rotate(&b, t, bl->opt.server_id, next, 4);
    } else {
        binlog_ev_stop(&b, t, bl->opt.server_id);
    }
    binlog_events_seal(b.data, b.len, bl->wpos, 0, 0);
    int rc = 0;
    uint8_t clear = 0;
    /* the cleared IN_USE flag needs no sync of its own: the index's CLOSED flag is what recovery trusts */
    if ((rc = fio_pwrite(FIO_BINLOG, bl->fd, b.data, b.len, (int64_t)bl->wpos)) || (rc = do_sync(bl, true)) ||
        (rc = fio_pwrite(FIO_BINLOG, bl->fd, &clear, 1, BINLOG_FDE_FLAGS_OFFSET))) {
        log_error("binlog: cannot close binlog file %u: %s", bl->active_seq, strerror(-rc));
        rc = STRATA_EIO;
    }
    close(bl->fd);
    pthread_mutex_lock(&bl->mu);
    bl->wpos += b.len;
    bl_file_t *f = bl_file_by_seq(bl, bl->active_seq);
    f->flags |= BL_F_CLOSED;
    f->size = f->disk_size = bl->wpos;
    f->last_time = t;
    bl->fd = -1;
    durable_set(bl, (binlog_pos_t){bl->active_seq, bl->wpos});
    int r2 = 0;
    if (rotate) /* recorded together with the new file (file_create) */
        bl->defer_close_record = true;
    else
        r2 = bl_state_put_file(bl, f);
    pthread_mutex_unlock(&bl->mu);
    buf_free(&b);
    return rc ? rc : r2;
}

static void bg_kick(binlog_t *bl)
{
    if (!bl->bg_running)
        return;
    pthread_mutex_lock(&bl->mu);
    bl->bg_kick = true;
    pthread_cond_signal(&bl->bg_cv);
    pthread_mutex_unlock(&bl->mu);
}

static int purge_before(binlog_t *bl, uint64_t t, bool nowait);

/* Expiry (binlog_expire_logs_seconds).  From the commit path (rotation by a group leader) it must not wait for
 * admin_mu, which the compressor may hold for a while: the background thread does it, or it is skipped until
 * the next rotation if someone else is purging right now. */
static void expire_logs(binlog_t *bl, bool from_commit_path)
{
    if (!bl->opt.expire_seconds)
        return;
    if (from_commit_path && bl->bg_running) {
        bg_kick(bl);
        return;
    }
    uint64_t now = now_s();
    if (now > bl->opt.expire_seconds)
        purge_before(bl, now - bl->opt.expire_seconds, from_commit_path);
}

/* Writer role held. */
static int rotate_locked(binlog_t *bl)
{
    uint32_t next = bl->active_seq + 1;
    int rc = file_close(bl, true);
    if (rc == 0)
        rc = file_create(bl, next, false);
    if (rc) {
        pthread_mutex_lock(&bl->mu);
        bl->broken = true;
        pthread_mutex_unlock(&bl->mu);
        return rc;
    }
    pthread_mutex_lock(&bl->mu);
    bl->stats.rotations++;
    pthread_mutex_unlock(&bl->mu);
    expire_logs(bl, true);
    bg_kick(bl);
    return 0;
}

int binlog_rotate(binlog_t *bl)
{
    writer_acquire(bl);
    int rc = rotate_locked(bl);
    writer_release_locked(bl);
    return rc;
}

/* ---- group commit ------------------------------------------------------------------------------------------ */

void binlog_set_group_hooks(binlog_t *bl, binlog_group_hook_fn before_sync, binlog_group_hook_fn after_sync,
                            void *arg)
{
    pthread_mutex_lock(&bl->mu);
    bl->before_sync = before_sync;
    bl->after_sync = after_sync;
    bl->hook_arg = arg;
    pthread_mutex_unlock(&bl->mu);
}

/* What the group buffer keeps between groups, and how much of it is written at once. */
#define WBUF_KEEP (4u << 20)
enum { GW_READ = 1u << 20 }; /* read from a binlog-cache file at a time */

/* The group being written: b holds bytes for the file at off; b->data[0 .. sealed) are whole sealed events. */
typedef struct gw {
    binlog_t *bl;
    buf_t *b;
    uint64_t off;
    size_t sealed;
    int err;          /* the first failed write (-errno) */
    bool read_failed; /* ... or a binlog-cache file could not be read */
} gw_t;

static void gw_flush(gw_t *g)
{
    if (!g->err && g->sealed)
        g->err = fio_pwrite(FIO_BINLOG, g->bl->fd, g->b->data, g->sealed, (int64_t)g->off);
    if (!g->err)
        g->off += g->sealed;
    buf_consume(g->b, g->sealed); /* after a failure the rest is still sealed, never written */
    g->sealed = 0;
}

/* Seals the whole events after `sealed` (their positions start at pos) and writes wbuf out once it is full;
 * returns the position after them. */
static uint64_t gw_seal(gw_t *g, uint64_t pos, uint32_t when, uint32_t sid)
{
    buf_t *b = g->b;
    size_t n = g->sealed;
    while (n + BINLOG_HEADER_LEN <= b->len) {
        uint32_t size = rd32(b->data + n + 9);
        if (size < BINLOG_HEADER_LEN || n + size > b->len)
            break;
        n += size;
    }
    pos = binlog_events_seal(b->data + g->sealed, n - g->sealed, pos, when, sid);
    g->sealed = n;
    if (g->sealed >= WBUF_KEEP)
        gw_flush(g);
    return pos;
}

/* The leader's work.  Called and returns with mu held and the writer role held. */

static void leader_run(binlog_t *bl)
{
    if (bl->opt.commit_wait_usec) {
        pthread_mutex_unlock(&bl->mu);
        usleep(bl->opt.commit_wait_usec);
        pthread_mutex_lock(&bl->mu);
    }
    bl_waiter_t *batch = bl->qhead;
    bl->qhead = bl->qtail = NULL;
    uint32_t t = now_s();
    uint32_t count = 0;
    uint64_t first_seq = 0;
    /* the state before this group: a write that fails for lack of space gives its GTIDs back */
    binlog_gtid_set_t saved = {0};
    binlog_gtid_set_copy(&saved, &bl->state);
    /* GTIDs in queue order; commit_id lets a MariaDB parallel replica apply the group's members together */
    for (bl_waiter_t *w = batch; w; w = w->next) {
        uint32_t dom = w->trx->domain_set || w->trx->domain ? w->trx->domain : bl->opt.domain_id;
        uint64_t next = binlog_gtid_set_domain_seq(&bl->state, dom) + 1;
        binlog_gtid_t g = {dom, w->trx->server_id ? w->trx->server_id : bl->opt.server_id,
                           w->trx->gtid_seq > next ? w->trx->gtid_seq : next};
        binlog_gtid_set_update(&bl->state, g);
        w->res->gtid = g;
        if (!first_seq)
            first_seq = g.seq;
        count++;
    }
    binlog_group_hook_fn before = bl->before_sync, after = bl->after_sync;
    void *harg = bl->hook_arg;
    pthread_mutex_unlock(&bl->mu);

    /* The group goes into wbuf, sealed event by event; a transaction whose events are partly in its binlog-cache
     * file is streamed from it, and wbuf is written out whenever it holds WBUF_KEEP bytes, so a large
     * transaction is never in memory whole. */
    gw_t g = {.bl = bl, .b = &bl->wbuf, .off = bl->wpos};
    buf_t *b = g.b;
    b->len = 0;
    uint64_t pos = bl->wpos;
    for (bl_waiter_t *w = batch; w; w = w->next) {
        binlog_trx_t *x = w->trx;
        uint32_t when = x->when ? x->when : t;
        uint32_t sid = w->res->gtid.server;
        bool ddl = x->kind == BINLOG_TRX_DDL;
        uint8_t f2 = ddl ? (BINLOG_GTID_FL_STANDALONE | BINLOG_GTID_FL_ALLOW_PARALLEL | BINLOG_GTID_FL_DDL)
                         : (BINLOG_GTID_FL_TRANSACTIONAL | BINLOG_GTID_FL_ALLOW_PARALLEL);
        w->res->start = (binlog_pos_t){bl->active_seq, pos};
        binlog_ev_gtid(b, when, sid, w->res->gtid, f2, count > 1 ? first_seq : 0);
        binlog_trx_stmt_end(x);
        pos = gw_seal(&g, pos, when, sid);
        for (uint64_t off = 0; off < x->spilled && !g.err;) {
            size_t want = (size_t)MIN(x->spilled - off, (uint64_t)GW_READ), got = 0;
            buf_reserve(b, want);
            int e = fio_pread(FIO_TEMP, x->spill_fd, b->data + b->len, want, (int64_t)off, &got);
            if (e || got == 0) {
                log_error("binlog: reading a transaction's binlog cache file: %s", e ? strerror(-e) : "short file");
                g.err = STRATA_EIO;
                g.read_failed = true;
                break;
            }
            b->len += got;
            off += got;
            pos = gw_seal(&g, pos, when, sid);
        }
        buf_append(b, x->ev.data, x->ev.len);
        if (!ddl)
            binlog_ev_xid(b, when, sid, x->xid);
        pos = gw_seal(&g, pos, when, sid);
        w->res->end = (binlog_pos_t){bl->active_seq, pos};
    }
    gw_flush(&g);
    binlog_pos_t gstart = {bl->active_seq, bl->wpos}, gend = {bl->active_seq, pos};
    int rc = 0;
    bool retryable = false;
    int err = g.err;
    uint64_t group_bytes = g.off - bl->wpos;
    if (err) {
        rc = g.read_failed ? STRATA_EIO : err == -ENOSPC || err == -EDQUOT ? BINLOG_EDISKFULL : STRATA_EIO;
        if (!g.read_failed)
            log_error("binlog: write of %" PRIu64 " bytes to binlog file %u failed: %s%s", pos - bl->wpos,
                      bl->active_seq, strerror(-err),
                      rc == BINLOG_EDISKFULL ? "; the group's transactions are rolled back, later commits try again"
                                             : "");
        /* the torn bytes go; if they cannot, recovery truncates the tail at the next start */
        retryable = (rc == BINLOG_EDISKFULL || g.read_failed) && fio_ftruncate(FIO_BINLOG, bl->fd, bl->wpos) == 0;
    }
    if (rc == 0 && before)
        before(harg, gstart, gend);
    if (rc == 0 && (err = do_sync(bl, false))) {
        rc = STRATA_EIO;
        log_error("binlog: fdatasync of binlog file %u failed: %s", bl->active_seq, strerror(-err));
    }
    if (rc == 0 && after)
        after(harg, gstart, gend);

    pthread_mutex_lock(&bl->mu);
    bool rot = false;
    if (rc == 0) {
        bl->wpos = pos;
        bl->durable = gend;
        binlog_gtid_set_copy(&bl->durable_state, &bl->state); /* the group just written is the last in state */
        bl->durable_state_ok = true;
        bl->stats.commits += count;
        bl->stats.group_commits++;
        bl->stats.bytes_written += group_bytes;
        bl_file_t *f = bl_file_by_seq(bl, bl->active_seq);
        f->size = f->disk_size = pos;
        f->last_time = t;
        bl_waiter_t *last = batch;
        while (last->next)
            last = last->next;
        f->last_gtid = last->res->gtid;
        if (!f->first_gtid.seq)
            f->first_gtid = batch->res->gtid;
        for (bl_waiter_t *w = batch; w; w = w->next)
            w->res->order = ++bl->order;
        rot = pos >= bl->opt.max_size;
    } else if (retryable) {
        binlog_gtid_set_copy(&bl->state, &saved); /* nothing of the group is in the file */
    } else {
        bl->broken = true;
    }
    binlog_gtid_set_free(&saved);
    bl_waiter_t *async = NULL;
    for (bl_waiter_t *w = batch, *nx; w; w = nx) {
        nx = w->next;
        w->rc = rc;
        w->state = BL_W_DONE;
        if (w->cb) { /* completed after unlock */
            w->next = async;
            async = w;
        } else {
            pthread_cond_signal(&w->cv); /* one signal per member of the group, nobody else */
        }
    }
    cb_t *cbs = NULL;
    uint32_t ncap = 0, ncb = pw_wake(bl, &cbs, &ncap);
    pthread_mutex_unlock(&bl->mu);
    for (bl_waiter_t *w = async, *nx; w; w = nx) {
        nx = w->next;
        w->cb(w->cb_arg, w->rc, w->res);
        mem_free(w);
    }
    for (uint32_t i = 0; i < ncb; i++)
        cbs[i].fn(cbs[i].arg);
    mem_free(cbs);
    b->len = 0;
    buf_shrink(b, WBUF_KEEP); /* a large transaction's group does not stay allocated after it is written */
    if (rot)
        rotate_locked(bl);
    pthread_mutex_lock(&bl->mu);
}

int binlog_commit(binlog_t *bl, binlog_trx_t *trx, binlog_commit_result_t *res)
{
    bl_waiter_t w;
    binlog_commit_result_t dummy;
    memset(&w, 0, sizeof w);
    pthread_cond_init(&w.cv, NULL);
    w.trx = trx;
    w.res = res ? res : &dummy;
    memset(w.res, 0, sizeof *w.res);
    if (binlog_trx_empty(trx)) { /* nothing to log: a DDL needs its query; an empty rows transaction logs nothing */
        pthread_cond_destroy(&w.cv);
        return trx->kind == BINLOG_TRX_DDL ? STRATA_EPROTO : 0;
    }
    pthread_mutex_lock(&bl->mu);
    if (bl->broken) {
        pthread_mutex_unlock(&bl->mu);
        pthread_cond_destroy(&w.cv);
        return STRATA_EIO;
    }
    if (bl->qtail)
        bl->qtail->next = &w;
    else
        bl->qhead = &w;
    bl->qtail = &w;
    if (!bl->writer_busy) {
        bl->writer_busy = true;
        w.state = BL_W_LEADER;
    }
    if (w.state == BL_W_QUEUED) {
        blocking_begin(); /* a follower waits for the leader: the worker pool may grow meanwhile */
        while (w.state == BL_W_QUEUED)
            pthread_cond_wait(&w.cv, &bl->mu);
        blocking_end();
    }
    if (w.state == BL_W_LEADER) {
        leader_run(bl); /* our own trx is in the group it writes */
        writer_release(bl);
    }
    int rc = w.rc;
    pthread_mutex_unlock(&bl->mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}

void binlog_commit_async(binlog_t *bl, binlog_trx_t *trx, binlog_commit_cb fn, void *arg)
{
    bl_waiter_t *w = mem_calloc(1, sizeof *w);
    w->trx = trx;
    w->res = &w->own_res;
    w->cb = fn;
    w->cb_arg = arg;
    int rc = 0;
    if (binlog_trx_empty(trx)) {
        rc = trx->kind == BINLOG_TRX_DDL ? STRATA_EPROTO : 0;
        goto now;
    }
    pthread_mutex_lock(&bl->mu);
    if (bl->broken) {
        pthread_mutex_unlock(&bl->mu);
        rc = STRATA_EIO;
        goto now;
    }
    if (bl->qtail)
        bl->qtail->next = w;
    else
        bl->qhead = w;
    bl->qtail = w;
    if (!bl->writer_busy) { /* nobody is writing: this thread writes the group (w may be freed after this) */
        bl->writer_busy = true;
        leader_run(bl);
        writer_release(bl);
    }
    pthread_mutex_unlock(&bl->mu);
    return;
now:
    fn(arg, rc, w->res);
    mem_free(w);
}

void binlog_set_limits(binlog_t *bl, uint64_t max_size, int sync, uint64_t expire_seconds)
{
    pthread_mutex_lock(&bl->mu);
    if (max_size)
        bl->opt.max_size = max_size;
    bl->opt.sync = sync;
    bl->opt.expire_seconds = expire_seconds;
    pthread_mutex_unlock(&bl->mu);
}

void binlog_engine_checkpoint(binlog_t *bl, binlog_pos_t p)
{
    pthread_mutex_lock(&bl->mu);
    if (bl->has_ckpt && binlog_pos_cmp(p, bl->ckpt) <= 0) {
        pthread_mutex_unlock(&bl->mu);
        return;
    }
    bool newfile = !bl->has_ckpt || p.file != bl->ckpt.file;
    bl->ckpt = p;
    bl->has_ckpt = true;
    if (newfile)
        bl_state_put_ckpt(bl, p);
    pthread_mutex_unlock(&bl->mu);
}

/* ---- purge and reset ---------------------------------------------------------------------------------------- */

/* Removes the first n files of the index (admin_mu held, mu NOT held). */
static int purge_front(binlog_t *bl, uint32_t n)
{
    if (n == 0)
        return 0;
    char **paths = mem_calloc(n, sizeof *paths);
    pthread_mutex_lock(&bl->mu);
    for (uint32_t i = 0; i < n; i++) {
        char p[BL_PATH_MAX + 64];
        bl_file_path(bl, &bl->files[bl->head + i], p, sizeof p);
        paths[i] = mem_strdup(p);
    }
    uint32_t keep = bl->files[bl->head + n].seq;
    /* memory first, then the record (see state_put): a crash before the record leaves the files in the index
     * and on disk; the unlinks below wait for the record */
    bl_files_drop_front(bl, n);
    bl->stats.purged_files += n;
    int rc = bl_state_put_u32(bl, BL_REC_PURGE, keep);
    if (rc == 0)
        bl_text_index_rewrite(bl);
    pthread_mutex_unlock(&bl->mu);
    for (uint32_t i = 0; i < n; i++) {
        if (rc == 0 && unlink(paths[i]) && errno != ENOENT)
            log_warn("binlog: purge could not remove '%s': %s", paths[i], strerror(errno));
        mem_free(paths[i]);
    }
    mem_free(paths);
    return rc ? rc : (int)n;
}

/* Files that may be purged: before the active file and before the engine checkpoint's file. Caller holds mu. */
static uint32_t purge_limit_seq(binlog_t *bl)
{
    uint32_t lim = bl->active_seq ? bl->active_seq : bl->next_seq;
    if (bl->has_ckpt && bl->ckpt.file < lim && bl_file_by_seq(bl, bl->ckpt.file))
        lim = bl->ckpt.file;
    return lim;
}

/* Before a purge: the engine reports how far it is durable now, so that files the engine no longer needs for
 * recovery may go (the report is otherwise about a second old).  Called holding no binlog lock. */
static void ask_checkpoint(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    void (*fn)(void *) = bl->ckpt_hook;
    void *arg = bl->ckpt_hook_arg;
    pthread_mutex_unlock(&bl->mu);
    if (fn)
        fn(arg);
}

void binlog_set_checkpoint_hook(binlog_t *bl, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&bl->mu);
    bl->ckpt_hook = fn;
    bl->ckpt_hook_arg = arg;
    pthread_mutex_unlock(&bl->mu);
}

int binlog_purge_to(binlog_t *bl, const char *name)
{
    uint32_t seq;
    if (binlog_file_seq(bl, name, &seq))
        return STRATA_ENOTFOUND;
    ask_checkpoint(bl);
    pthread_mutex_lock(&bl->admin_mu);
    pthread_mutex_lock(&bl->mu);
    int rc = 0;
    if (!bl_file_by_seq(bl, seq)) {
        rc = STRATA_ENOTFOUND;
    } else {
        uint32_t lim = MIN(seq, purge_limit_seq(bl));
        rc = lim > bl->files[bl->head].seq ? (int)(lim - bl->files[bl->head].seq) : 0;
    }
    pthread_mutex_unlock(&bl->mu);
    if (rc > 0)
        rc = purge_front(bl, (uint32_t)rc);
    pthread_mutex_unlock(&bl->admin_mu);
    return rc;
}

int binlog_purge_before(binlog_t *bl, uint64_t t)
{
    ask_checkpoint(bl);
    return purge_before(bl, t, false);
}

static int purge_before(binlog_t *bl, uint64_t t, bool nowait)
{
    if (nowait) {
        if (pthread_mutex_trylock(&bl->admin_mu))
            return 0;
    } else {
        pthread_mutex_lock(&bl->admin_mu);
    }
    pthread_mutex_lock(&bl->mu);
    uint32_t n = 0;
    if (bl->nfiles) {
        uint32_t lim = purge_limit_seq(bl);
        uint32_t maxn = lim > bl->files[bl->head].seq ? lim - bl->files[bl->head].seq : 0;
        maxn = MIN(maxn, bl->nfiles);
        /* last_time never decreases along the files: binary search for the first file to keep */
        uint32_t lo = 0, hi = maxn;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (bl->files[bl->head + mid].last_time < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        n = lo;
    }
    pthread_mutex_unlock(&bl->mu);
    int rc = purge_front(bl, n);
    pthread_mutex_unlock(&bl->admin_mu);
    return rc;
}

int binlog_reset(binlog_t *bl, uint32_t first_seq)
{
    if (first_seq == 0)
        first_seq = 1;
    writer_acquire(bl);
    pthread_mutex_lock(&bl->admin_mu);
    if (bl->fd >= 0) {
        close(bl->fd);
        bl->fd = -1;
    }
    pthread_mutex_lock(&bl->mu);
    uint32_t n = bl->nfiles;
    char **paths = mem_calloc(n + 1, sizeof *paths);
    for (uint32_t i = 0; i < n; i++) {
        char p[BL_PATH_MAX + 64];
        bl_file_path(bl, &bl->files[bl->head + i], p, sizeof p);
        paths[i] = mem_strdup(p);
    }
    bl_files_drop_front(bl, n);
    bl->state.n = 0;
    bl->has_ckpt = false;
    bl->next_seq = first_seq;
    bl->active_seq = 0;
    bl->broken = false;
    bl->stats.purged_files += n;
    int rc = bl_state_put_u32(bl, BL_REC_RESET, first_seq);
    bl_text_index_rewrite(bl);
    pthread_mutex_lock(&bl->state_mu);
    bl_state_rewrite(bl);
    pthread_mutex_unlock(&bl->state_mu);
    pthread_mutex_unlock(&bl->mu);
    for (uint32_t i = 0; i < n; i++) {
        unlink(paths[i]);
        mem_free(paths[i]);
    }
    mem_free(paths);
    if (rc == 0)
        rc = file_create(bl, first_seq, false);
    pthread_mutex_lock(&bl->mu);
    uint64_t last_order = bl->order;
    void (*hook)(void *, uint64_t) = bl->reset_hook;
    void *harg = bl->reset_hook_arg;
    pthread_mutex_unlock(&bl->mu);
    if (hook) /* still the writer: nothing new is written meanwhile */
        hook(harg, last_order);
    pthread_mutex_unlock(&bl->admin_mu);
    writer_release_locked(bl);
    return rc;
}

void binlog_set_reset_hook(binlog_t *bl, void (*fn)(void *arg, uint64_t last_order), void *arg)
{
    pthread_mutex_lock(&bl->mu);
    bl->reset_hook = fn;
    bl->reset_hook_arg = arg;
    pthread_mutex_unlock(&bl->mu);
}

int binlog_sync_setting(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    int v = bl->opt.sync;
    pthread_mutex_unlock(&bl->mu);
    return v;
}

/* ---- compression ------------------------------------------------------------------------------------------------ */

int binlog_compress_run(binlog_t *bl)
{
    int done = 0;
    if (!bl->opt.compress_after_files && !bl->opt.compress_after_seconds)
        return 0;
    for (;;) {
        pthread_mutex_lock(&bl->admin_mu);
        pthread_mutex_lock(&bl->mu);
        uint64_t now = now_s();
        bl_file_t *pick = NULL;
        /* files below zfrom are done (compressed, unreadable or given up): the scan does not grow with them */
        uint32_t first = bl->nfiles ? bl->files[bl->head].seq : 0;
        if (bl->zfrom < first)
            bl->zfrom = first;
        for (uint32_t i = bl->zfrom - first; i < bl->nfiles; i++) {
            bl_file_t *f = &bl->files[bl->head + i];
            if (f->flags & (BL_F_COMPRESSED | BL_F_UNREADABLE | BL_F_NOCOMPRESS)) {
                if (f->seq == bl->zfrom)
                    bl->zfrom = f->seq + 1;
                continue;
            }
            if (f->seq >= bl->active_seq || !(f->flags & BL_F_CLOSED))
                continue;
            uint32_t newer = bl->active_seq - f->seq;
            if ((bl->opt.compress_after_files && newer >= bl->opt.compress_after_files) ||
                (bl->opt.compress_after_seconds && now >= f->last_time + bl->opt.compress_after_seconds)) {
                pick = f;
                break;
            }
        }
        if (!pick || bl->bg_stop) {
            pthread_mutex_unlock(&bl->mu);
            pthread_mutex_unlock(&bl->admin_mu);
            return done;
        }
        uint32_t seq = pick->seq;
        char src[BL_PATH_MAX + 64], dst[BL_PATH_MAX + 80], tmp[BL_PATH_MAX + 96];
        bl_file_path(bl, pick, src, sizeof src);
        pthread_mutex_unlock(&bl->mu);
        snprintf(dst, sizeof dst, "%s.zst", src);
        snprintf(tmp, sizeof tmp, "%s.tmp", dst);
        uint64_t zsize = 0, opened = 0;
        int rc = binlog_zfile_compress(src, tmp, &zsize, &opened);
        __atomic_add_fetch(&bl->n_opened, opened, __ATOMIC_RELAXED);
        if (rc == 0 && (rename(tmp, dst) || fsync_dir(bl->dir)))
            rc = -errno;
        pthread_mutex_lock(&bl->mu);
        bl_file_t *f = bl_file_by_seq(bl, seq);
        if (rc == 0 && f) {
            f->flags |= BL_F_COMPRESSED;
            f->disk_size = zsize;
            rc = bl_state_put_file(bl, f);
            bl->stats.compressed_files++;
        } else if (rc) { /* e.g. disk full: the file stays plain and readable; not retried until a restart */
            log_error("binlog: compressing '%s' failed (%s); the file stays plain", src,
                      rc < 0 && rc > -4096 ? strerror(-rc) : "error");
            if (f)
                f->flags |= BL_F_NOCOMPRESS;
        }
        pthread_mutex_unlock(&bl->mu);
        if (rc == 0)
            unlink(src);
        else
            unlink(tmp);
        pthread_mutex_unlock(&bl->admin_mu);
        if (rc)
            return done;
        done++;
    }
}

static void *bg_main(void *arg)
{
    binlog_t *bl = arg;
    pthread_mutex_lock(&bl->mu);
    while (!bl->bg_stop) {
        if (!bl->bg_kick) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 60; /* age-based compression and expiry need a clock tick */
            pthread_cond_timedwait(&bl->bg_cv, &bl->mu, &ts);
        }
        bl->bg_kick = false;
        if (bl->bg_stop)
            break;
        pthread_mutex_unlock(&bl->mu);
        expire_logs(bl, false);
        binlog_compress_run(bl);
        pthread_mutex_lock(&bl->mu);
    }
    pthread_mutex_unlock(&bl->mu);
    return NULL;
}

/* ---- listing and GTID lookups ------------------------------------------------------------------------------------ */

static void file_info(binlog_t *bl, const bl_file_t *f, binlog_file_info_t *o)
{
    memset(o, 0, sizeof *o);
    binlog_file_name(bl, f->seq, o->name, sizeof o->name);
    o->seq = f->seq;
    o->size = f->size;
    o->disk_size = f->disk_size;
    o->compressed = (f->flags & BL_F_COMPRESSED) != 0;
    o->readable = !(f->flags & BL_F_UNREADABLE);
    o->active = f->seq == bl->active_seq && bl->fd >= 0;
    o->first_time = f->first_time;
    o->last_time = f->last_time;
    o->first_gtid = f->first_gtid;
    o->last_gtid = f->last_gtid;
}

void binlog_list_files(binlog_t *bl, int (*fn)(void *arg, const binlog_file_info_t *f), void *arg)
{
    /* copy under the lock, call outside it */
    pthread_mutex_lock(&bl->mu);
    uint32_t n = bl->nfiles;
    binlog_file_info_t *v = mem_alloc((n ? n : 1) * sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        file_info(bl, &bl->files[bl->head + i], &v[i]);
    pthread_mutex_unlock(&bl->mu);
    for (uint32_t i = 0; i < n; i++)
        if (fn(arg, &v[i]))
            break;
    mem_free(v);
}

uint32_t binlog_file_count(binlog_t *bl)
{
    pthread_mutex_lock(&bl->mu);
    uint32_t n = bl->nfiles;
    pthread_mutex_unlock(&bl->mu);
    return n;
}

void binlog_master_status(binlog_t *bl, char *name, size_t cap, uint64_t *pos)
{
    pthread_mutex_lock(&bl->mu);
    binlog_file_name(bl, bl->durable.file, name, cap);
    *pos = bl->durable.offset;
    pthread_mutex_unlock(&bl->mu);
}

uint32_t binlog_server_id(binlog_t *bl) { return bl->opt.server_id; }

void binlog_gtid_state(binlog_t *bl, binlog_gtid_set_t *out)
{
    pthread_mutex_lock(&bl->mu);
    binlog_gtid_set_copy(out, &bl->state);
    pthread_mutex_unlock(&bl->mu);
}

int binlog_gtid_find_file(binlog_t *bl, binlog_gtid_t g, uint32_t *seq)
{
    pthread_mutex_lock(&bl->mu);
    int rc = STRATA_ENOTFOUND;
    if (bl->nfiles && g.seq > binlog_gtid_set_domain_seq(&bl->files[bl->head].start, g.domain) &&
        g.seq <= binlog_gtid_set_domain_seq(&bl->state, g.domain)) {
        /* the last file whose start state has a lower seq in g's domain */
        uint32_t lo = 0, hi = bl->nfiles - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) / 2;
            if (binlog_gtid_set_domain_seq(&bl->files[bl->head + mid].start, g.domain) < g.seq)
                lo = mid;
            else
                hi = mid - 1;
        }
        *seq = bl->files[bl->head + lo].seq;
        rc = 0;
    }
    pthread_mutex_unlock(&bl->mu);
    return rc;
}

/* May a replica at pos start reading at file f?  Only if f holds every transaction the replica lacks: in each
 * domain f's start state names, the replica must be at or past that state (MariaDB's contains_all_slave_gtid).  A
 * domain of f's start state that pos does not name at all means the replica needs that domain from its very
 * first transaction, which is in an earlier file (so an empty pos, a new replica, starts at a file with an empty
 * start state: the first file ever written, or an error when it was purged).  Domains pos names that f's start
 * state lacks are not checked: the primary's transactions of that domain, if any, all follow f's start. */
static bool start_at_or_before(const bl_file_t *f, const binlog_gtid_set_t *pos)
{
    for (uint32_t i = 0; i < f->start.n; i++) {
        uint32_t d = f->start.v[i].domain;
        if (!binlog_gtid_set_has_domain(pos, d) || binlog_gtid_set_domain_seq(&f->start, d) > binlog_gtid_set_domain_seq(pos, d))
            return false;
    }
    return true;
}

int binlog_gtid_start_file(binlog_t *bl, const binlog_gtid_set_t *pos, uint32_t *seq)
{
    pthread_mutex_lock(&bl->mu);
    int rc = STRATA_ENOTFOUND;
    if (bl->nfiles && start_at_or_before(&bl->files[bl->head], pos)) {
        uint32_t lo = 0, hi = bl->nfiles - 1; /* the predicate holds for a prefix of the files */
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) / 2;
            if (start_at_or_before(&bl->files[bl->head + mid], pos))
                lo = mid;
            else
                hi = mid - 1;
        }
        *seq = bl->files[bl->head + lo].seq;
        rc = 0;
    }
    pthread_mutex_unlock(&bl->mu);
    return rc;
}

int binlog_gtid_pos(binlog_t *bl, const char *name, uint64_t pos, binlog_gtid_set_t *out)
{
    uint32_t seq;
    if (binlog_file_seq(bl, name, &seq))
        return STRATA_ENOTFOUND;
    pthread_mutex_lock(&bl->mu);
    bl_file_t *f = bl_file_by_seq(bl, seq);
    if (!f) {
        pthread_mutex_unlock(&bl->mu);
        return STRATA_ENOTFOUND;
    }
    binlog_gtid_set_copy(out, &f->start);
    uint64_t size = f->size;
    pthread_mutex_unlock(&bl->mu);
    if (seq == bl->active_seq) { /* the active file: its end is the write position */
        char an[BL_NAME_MAX];
        binlog_master_status(bl, an, sizeof an, &size);
    }
    pthread_mutex_lock(&bl->mu);
    if (pos > size) { /* past the end: MariaDB answers NULL */
        pthread_mutex_unlock(&bl->mu);
        return STRATA_ENOTFOUND;
    }
    bool at_start = pos <= 4, at_end = false;
    if (pos == size) { /* the state at the end of a closed file is the start state of the next */
        bl_file_t *nx = bl_file_by_seq(bl, seq + 1);
        if (nx) {
            binlog_gtid_set_copy(out, &nx->start);
            at_end = true;
        }
    }
    if (!at_end && bl->durable_state_ok && bl->durable.file == seq && bl->durable.offset == pos) {
        binlog_gtid_set_copy(out, &bl->durable_state); /* the durable end of the active file: no read */
        at_end = true;
    }
    pthread_mutex_unlock(&bl->mu);
    if (at_start || at_end)
        return 0;
    /* inside a file (or at a write position not yet durable): read that one file up to pos */
    binlog_reader_t *r;
    int rc = binlog_reader_open(bl, name, 4, &r);
    binlog_event_t ev = {0};
    uint64_t end = 4; /* where the last whole event read ends */
    while (rc == 0) {
        int k = binlog_reader_next(r, &ev);
        if (k <= 0) { /* the end of what is written (or a group being written after pos) */
            rc = end == pos ? 0 : k;
            ev.pos = end;
            break;
        }
        end = ev.pos + ev.size;
        if (ev.pos == pos)
            break;
        if (ev.pos > pos) { /* not an event boundary */
            rc = STRATA_ENOTFOUND;
            break;
        }
        binlog_gtid_t g;
        if (ev.type == BINLOG_EV_GTID && binlog_event_gtid(&ev, &g, NULL, NULL) == 0)
            binlog_gtid_set_update(out, g);
    }
    if (rc == 0 && ev.pos != pos) /* ran out of events before pos */
        rc = STRATA_ENOTFOUND;
    binlog_reader_close(r);
    return rc;
}

void binlog_get_stats(binlog_t *bl, binlog_stats_t *st)
{
    pthread_mutex_lock(&bl->mu);
    *st = bl->stats;
    st->files_opened = __atomic_load_n(&bl->n_opened, __ATOMIC_RELAXED);
    st->fsyncs = __atomic_load_n(&bl->n_fsyncs, __ATOMIC_RELAXED);
    st->index_writes = __atomic_load_n(&bl->n_index_writes, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&bl->mu);
}

/* ---- open and recovery ------------------------------------------------------------------------------------------------ */

/* What a scan of one file found. */
typedef struct scan {
    binlog_gtid_set_t state; /* GTID state at the end of what was scanned */
    uint64_t good_end;       /* end of the last complete transaction or file-level event */
    uint64_t first_time, last_time;
    binlog_gtid_t first_gtid, last_gtid;
    bool clean; /* ends with ROTATE or STOP */
    bool error;
    char why[600]; /* the reader's error when error */
    binlog_recovery_t *rec; /* append transactions ending after min_end here */
    binlog_pos_t min_end;
} scan_t;

static void rec_add(binlog_recovery_t *rec, binlog_recovered_trx_t t)
{
    if ((rec->n & (rec->n - 1)) == 0 || rec->n == 0)
        rec->trx = mem_realloc(rec->trx, (rec->n ? 2 * rec->n : 1) * sizeof *rec->trx);
    rec->trx[rec->n++] = t;
}

static int scan_file(binlog_t *bl, const char *name, uint32_t seq, scan_t *s)
{
    binlog_reader_t *r;
    int rc = binlog_reader_open(bl, name, 4, &r);
    if (rc) {
        log_error("binlog: recovery cannot read '%s': %s", name, binlog_reader_error(r));
        binlog_reader_close(r);
        s->error = true;
        return rc;
    }
    s->good_end = 4;
    bool in_trx = false, standalone = false;
    binlog_recovered_trx_t cur = {0};
    binlog_event_t ev;
    int k;
    while ((k = binlog_reader_next(r, &ev)) > 0) {
        uint64_t end = ev.pos + ev.size;
        if (!s->first_time)
            s->first_time = ev.when;
        s->last_time = ev.when;
        s->clean = false;
        switch (ev.type) {
        case BINLOG_EV_GTID_LIST:
            binlog_event_gtid_list(&ev, &s->state);
            break;
        case BINLOG_EV_GTID: {
            uint8_t f2;
            if (binlog_event_gtid(&ev, &cur.gtid, &f2, NULL))
                goto out;
            in_trx = true;
            standalone = (f2 & BINLOG_GTID_FL_STANDALONE) != 0;
            cur.xid = 0;
            cur.start = (binlog_pos_t){seq, ev.pos};
            continue;
        }
        case BINLOG_EV_XID:
            if (in_trx)
                binlog_event_xid(&ev, &cur.xid);
            goto group_end;
        case BINLOG_EV_QUERY:
            if (in_trx && standalone)
                goto group_end;
            break;
        case BINLOG_EV_ROTATE:
        case BINLOG_EV_STOP:
            s->clean = !in_trx;
            break;
        default:
            break;
        }
        if (!in_trx)
            s->good_end = end;
        continue;
    group_end:
        if (!in_trx)
            continue;
        in_trx = false;
        cur.end = (binlog_pos_t){seq, end};
        binlog_gtid_set_update(&s->state, cur.gtid);
        s->last_gtid = cur.gtid;
        if (!s->first_gtid.seq)
            s->first_gtid = cur.gtid;
        s->good_end = end;
        if (s->rec && binlog_pos_cmp(cur.end, s->min_end) > 0)
            rec_add(s->rec, cur);
    }
    if (k < 0) { /* reported by the caller: one line, with the truncation it causes */
        s->error = true;
        snprintf(s->why, sizeof s->why, "%s", binlog_reader_error(r));
    }
out:
    binlog_reader_close(r);
    return 0;
}

/* Brings the index in line with the directory using stat() only; a file whose size changed behind our back is
 * opened once to see what it is.  Orphans of an interrupted purge are removed. */
static void reconcile_dir(binlog_t *bl)
{
    static const char *const alien_suffix[] = {".gz", ".xz", ".bz2", ".zst", ".lz4", ".Z"};
    for (uint32_t i = 0; i < bl->nfiles; i++) {
        bl_file_t *f = &bl->files[bl->head + i];
        if (!(f->flags & BL_F_CLOSED))
            continue; /* the file active at a crash: recovery reads it */
        char path[BL_PATH_MAX + 64];
        bl_file_path(bl, f, path, sizeof path);
        struct stat st;
        if (stat(path, &st) == 0) {
            if ((uint64_t)st.st_size == f->disk_size || (f->flags & BL_F_UNREADABLE))
                continue;
            uint8_t h[4] = {0};
            int fd = fio_open(FIO_BINLOG, path, O_RDONLY, 0);
            size_t got = 0;
            ssize_t n = fd >= 0 && !fio_pread(FIO_BINLOG, fd, h, 4, 0, &got) ? (ssize_t)got : -1;
            if (fd >= 0) {
                binlog_count_open(bl);
                close(fd);
            }
            bool ours_z = (f->flags & BL_F_COMPRESSED) && n == 4 && binlog_zfile_is(h, 4);
            if (n == 4 && (ours_z || (h[0] == 0xfe && h[1] == 'b' && h[2] == 'i' && h[3] == 'n'))) {
                log_warn("binlog: '%s' changed size outside the server (%llu, index says %llu)", path,
                         (unsigned long long)st.st_size, (unsigned long long)f->disk_size);
                f->disk_size = (uint64_t)st.st_size;
                if (!(f->flags & BL_F_COMPRESSED))
                    f->size = f->disk_size;
                bl_state_put_file(bl, f);
            } else {
                f->disk_size = (uint64_t)st.st_size;
                report_unreadable(bl, f,
                                  n < 4                       ? "too short to be a binlog"
                                  : h[0] == 0x1f && h[1] == 0x8b ? "gzip-compressed data, bad magic number"
                                                              : "bad magic number, not a binlog");
            }
            continue;
        }
        /* missing: an operator may have compressed it under another name */
        char name[BL_NAME_MAX], alt[BL_PATH_MAX + 64];
        binlog_file_name(bl, f->seq, name, sizeof name);
        bool found = false;
        for (size_t k = 0; k < ARRAY_LEN(alien_suffix) && !found; k++) {
            if (!strcmp(alien_suffix[k], ".zst") && (f->flags & BL_F_COMPRESSED))
                continue;
            snprintf(alt, sizeof alt, "%s/%s%s", bl->dir, name, alien_suffix[k]);
            if (stat(alt, &st) == 0) {
                found = true;
                mem_free(f->alt_name);
                snprintf(alt, sizeof alt, "%s%s", name, alien_suffix[k]);
                f->alt_name = mem_strdup(alt);
                f->disk_size = (uint64_t)st.st_size;
                char why[BL_PATH_MAX + 128];
                snprintf(why, sizeof why, "replaced by %s, compressed outside the server", alt);
                f->flags &= ~(uint32_t)BL_F_REPORTED;
                report_unreadable(bl, f, why);
            }
        }
        if (!found && !(f->flags & BL_F_UNREADABLE))
            report_unreadable(bl, f, "file is missing");
    }
    /* orphans: files numbered below the first indexed one (a purge interrupted after its index record) */
    uint32_t first = bl->nfiles ? bl->files[bl->head].seq : bl->next_seq;
    DIR *d = opendir(bl->dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        uint32_t seq;
        char nm[300];
        snprintf(nm, sizeof nm, "%s", de->d_name);
        char *z = strstr(nm, ".zst");
        if (z && !z[4])
            *z = 0;
        if (binlog_file_seq(bl, nm, &seq) == 0 && seq < first) {
            char p[BL_PATH_MAX + 64];
            snprintf(p, sizeof p, "%s/%s", bl->dir, de->d_name);
            log_note("binlog: removing '%s', purged before a restart", p);
            unlink(p);
        }
    }
    closedir(d);
}

/* No state log: build the index from MySQL's <basename>.index by reading each listed file once. */
static void rebuild_from_text_index(binlog_t *bl)
{
    FILE *fp = fio_fopen_read(FIO_BINLOG, bl->index_path);
    if (!fp)
        return;
    log_note("binlog: %s is missing; rebuilding it from %s (reads each listed file once)", bl->state_path,
             bl->index_path);
    char line[BL_PATH_MAX + 64];
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = 0;
        uint32_t seq;
        if (binlog_file_seq(bl, line, &seq) || (bl->nfiles && seq != bl->next_seq))
            continue;
        bl_file_t *f = bl_file_append(bl, seq);
        bl->next_seq = seq + 1;
        char name[BL_NAME_MAX], path[BL_PATH_MAX + 64];
        binlog_file_name(bl, seq, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", bl->dir, name);
        struct stat st;
        f->flags = BL_F_CLOSED;
        if (stat(path, &st) == 0)
            f->size = f->disk_size = (uint64_t)st.st_size;
        scan_t s = {0};
        binlog_gtid_set_copy(&f->start, &bl->state);
        binlog_gtid_set_copy(&s.state, &bl->state);
        scan_file(bl, name, seq, &s);
        f->first_time = s.first_time;
        f->last_time = s.last_time ? s.last_time : (uint64_t)st.st_mtime;
        f->last_gtid = s.last_gtid;
        f->first_gtid = s.first_gtid;
        binlog_gtid_set_copy(&bl->state, &s.state);
        binlog_gtid_set_free(&s.state);
    }
    fclose(fp);
    bl->state.n = 0;
    if (bl->nfiles) /* we cannot know whether it was closed cleanly: let recovery check its tail */
        bl->files[bl->head + bl->nfiles - 1].flags &= ~(uint32_t)BL_F_CLOSED;
}

static int recover(binlog_t *bl, binlog_recovery_t *rec)
{
    if (bl->nfiles == 0)
        return 0;
    bl_file_t *last = &bl->files[bl->head + bl->nfiles - 1];
    char name[BL_NAME_MAX];
    binlog_file_name(bl, last->seq, name, sizeof name);
    bool crashed = !(last->flags & BL_F_CLOSED);
    if (last->flags & BL_F_UNREADABLE) {
        binlog_gtid_set_copy(&bl->state, &last->start);
        return 0;
    }
    /* transactions since the engine checkpoint in the files before the last (read-only) */
    binlog_pos_t from = bl->has_ckpt ? bl->ckpt : (binlog_pos_t){last->seq, 0};
    if (crashed && rec) {
        for (uint32_t s = MAX(from.file, bl->files[bl->head].seq); s < last->seq; s++) {
            char nm[BL_NAME_MAX];
            binlog_file_name(bl, s, nm, sizeof nm);
            scan_t sc = {.rec = rec, .min_end = from};
            scan_file(bl, nm, s, &sc);
            binlog_gtid_set_free(&sc.state);
        }
    }
    scan_t sc = {.rec = crashed ? rec : NULL, .min_end = from};
    binlog_gtid_set_copy(&sc.state, &last->start);
    bl->active_seq = last->seq; /* so the reader does not treat it as active: fd is -1 */
    int rc = scan_file(bl, name, last->seq, &sc);
    bl->active_seq = 0;
    if (rc) {
        binlog_gtid_set_copy(&bl->state, &last->start);
        binlog_gtid_set_free(&sc.state);
        return 0;
    }
    char path[BL_PATH_MAX + 64];
    bl_file_path(bl, last, path, sizeof path);
    struct stat st;
    uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : sc.good_end;
    if (!(last->flags & BL_F_COMPRESSED) && size > sc.good_end) {
        log_warn("binlog: '%s' ends with an incomplete transaction or event; truncated from %llu to %llu bytes%s%s",
                 path, (unsigned long long)size, (unsigned long long)sc.good_end, sc.error ? ": " : "",
                 sc.error ? sc.why : "");
        sc.error = false;
        if (rec)
            rec->truncated_bytes = size - sc.good_end;
        if (truncate(path, (off_t)sc.good_end))
            log_error("binlog: cannot truncate '%s': %s", path, strerror(errno));
        size = sc.good_end;
    }
    if (sc.error) /* a bad event before the end that is not a torn tail: keep the bytes, say so */
        log_error("binlog: recovery of '%s' stopped early: %s", path, sc.why);
    if (crashed && !(last->flags & BL_F_COMPRESSED)) { /* clear IN_USE: the file is closed now */
        int fd = fio_open(FIO_BINLOG, path, O_WRONLY, 0);
        if (fd >= 0) {
            binlog_count_open(bl);
            uint8_t z = 0;
            if (fio_pwrite(FIO_BINLOG, fd, &z, 1, BINLOG_FDE_FLAGS_OFFSET) || fio_fdatasync(FIO_BINLOG, fd))
                log_warn("binlog: cannot clear the in-use flag of '%s'", path);
            close(fd);
        }
    }
    last->flags |= BL_F_CLOSED;
    if (!(last->flags & BL_F_COMPRESSED))
        last->size = last->disk_size = size;
    if (sc.first_time)
        last->first_time = sc.first_time;
    if (sc.last_time)
        last->last_time = sc.last_time;
    if (sc.last_gtid.seq)
        last->last_gtid = sc.last_gtid;
    if (sc.first_gtid.seq)
        last->first_gtid = sc.first_gtid;
    binlog_gtid_set_copy(&bl->state, &sc.state);
    binlog_gtid_set_free(&sc.state);
    if (rec)
        rec->crashed = crashed;
    pthread_mutex_lock(&bl->mu);
    int rc2 = bl_state_put_file(bl, last);
    pthread_mutex_unlock(&bl->mu);
    return rc2;
}

int binlog_open(const binlog_options_t *opt, binlog_t **out, binlog_recovery_t *rec)
{
    *out = NULL;
    if (rec)
        memset(rec, 0, sizeof *rec);
    binlog_t *bl = mem_calloc(1, sizeof *bl);
    bl->opt = *opt;
    if (!bl->opt.max_size)
        bl->opt.max_size = 1ull << 30;
    if (!bl->opt.server_version)
        bl->opt.server_version = "10.11.6-MariaDB-strata";
    const char *dir = opt->dir && opt->dir[0] ? opt->dir : ".";
    const char *base = opt->basename && opt->basename[0] ? opt->basename : "strata-bin";
    if (strlen(dir) >= BL_DIR_MAX || strlen(base) >= BL_BASE_MAX || strchr(base, '/')) {
        mem_free(bl);
        return STRATA_ETOOBIG;
    }
    memcpy(bl->dir, dir, strlen(dir) + 1);
    memcpy(bl->base, base, strlen(base) + 1);
    snprintf(bl->state_path, sizeof bl->state_path, "%s/%s.state", bl->dir, bl->base);
    if (opt->index_file && opt->index_file[0] && strlen(opt->index_file) < sizeof bl->index_path)
        memcpy(bl->index_path, opt->index_file, strlen(opt->index_file) + 1);
    else
        snprintf(bl->index_path, sizeof bl->index_path, "%s/%s.index", bl->dir, bl->base);
    pthread_mutex_init(&bl->mu, NULL);
    pthread_mutex_init(&bl->state_mu, NULL);
    pthread_mutex_init(&bl->text_mu, NULL);
    pthread_mutex_init(&bl->admin_mu, NULL);
    pthread_cond_init(&bl->writer_cv, NULL);
    pthread_cond_init(&bl->bg_cv, NULL);
    buf_init(&bl->wbuf);
    bl->fd = -1;
    bl->state_fd = -1;
    bl->next_seq = 1;
    bl->writer_busy = true; /* nobody commits before open returns */
    mkdir(bl->dir, 0750);

    bool existed = false;
    int rc = bl_state_load(bl, &existed);
    if (rc)
        goto fail;
    if (!existed) {
        rebuild_from_text_index(bl);
        if ((rc = bl_state_create(bl)))
            goto fail;
    }
    pthread_mutex_lock(&bl->mu); /* reconcile_dir's index updates follow the usual rule (mu held) */
    reconcile_dir(bl);
    pthread_mutex_unlock(&bl->mu);
    if ((rc = recover(bl, rec)))
        goto fail;
    if ((rc = file_create(bl, bl->next_seq, true)))
        goto fail;
    if (!existed || bl->state_records > 2 * (uint64_t)bl->nfiles + 64) {
        pthread_mutex_lock(&bl->state_mu);
        bl_state_rewrite(bl);
        pthread_mutex_unlock(&bl->state_mu);
    }
    bl->writer_busy = false;
    expire_logs(bl, false);
    if (bl->opt.compress_in_background && (bl->opt.compress_after_files || bl->opt.compress_after_seconds)) {
        bl->bg_running = pthread_create(&bl->bg, NULL, bg_main, bl) == 0;
        bg_kick(bl);
    }
    *out = bl;
    return 0;
fail:
    log_error("binlog: cannot open the binary log in '%s' (%d)", bl->dir, rc);
    bl->writer_busy = false;
    binlog_close(bl);
    return rc;
}

void binlog_recovery_free(binlog_recovery_t *rec)
{
    if (!rec)
        return;
    mem_free(rec->trx);
    memset(rec, 0, sizeof *rec);
}

void binlog_close(binlog_t *bl)
{
    if (!bl)
        return;
    if (bl->bg_running) {
        pthread_mutex_lock(&bl->mu);
        bl->bg_stop = true;
        pthread_cond_signal(&bl->bg_cv);
        pthread_mutex_unlock(&bl->mu);
        pthread_join(bl->bg, NULL);
        bl->bg_running = false;
    }
    if (bl->fd >= 0) {
        writer_acquire(bl);
        file_close(bl, false);
        writer_release_locked(bl);
    }
    if (bl->state_fd >= 0)
        close(bl->state_fd);
    bl_files_free(bl);
    binlog_gtid_set_free(&bl->state);
    binlog_gtid_set_free(&bl->durable_state);
    buf_free(&bl->wbuf);
    mem_free(bl->pw);
    pthread_mutex_destroy(&bl->mu);
    pthread_mutex_destroy(&bl->state_mu);
    pthread_mutex_destroy(&bl->text_mu);
    pthread_mutex_destroy(&bl->admin_mu);
    pthread_cond_destroy(&bl->writer_cv);
    pthread_cond_destroy(&bl->bg_cv);
    mem_free(bl);
}
