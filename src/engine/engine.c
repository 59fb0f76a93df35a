/*
 * engine: the public API (engine.h) over the layers below: opening and recovering a data directory, the tree
 * directory, transactions with row locks and undo, checkpoints and the background thread.
 *
 * Files of a data directory:  strata.ctl (space/file list, space.c)  strata_sys.dat (system tablespace)
 *                             redo.log (redo.c)                     any data files of other tablespaces
 *
 * Tree directory: a B+tree (id ENGINE_DIR_TREE) in the system tablespace whose root page id is kept in the system
 * file header.  Key: tree id, 8 bytes big-endian.  Value (16 bytes): u32 space id, u64 root page id, u32 flags.
 *
 * Undo record (payload of a REDO_REC_UNDO record, logged in the same mini-transaction as the row change):
 *   0 8 trx id   8 8 tree id   16 8 trx id of the previous version's writer (restored by rollback; the link
 *   MVCC read views will follow)   24 1 op (1 = the key was absent: undo deletes it; 2 = it had the value
 *   below: undo puts it back; 3 = it was delete-marked with the value below: undo puts it back marked)
 *   25 2 key length   27 4 old value length   31 key bytes, then old value bytes
 *
 * MVCC: DELETE only sets a delete mark in the cell; every change pushes the replaced version on the key's chain in
 * the version store (vstore.c); a consistent read resolves the cell against its read view.  At commit the chain
 * nodes get a commit number; purge drops them once every open view is younger, and removes the delete marks they
 * made (so extents return).  Purge runs right after a committing DELETE when no view is open, and otherwise in
 * the background thread; after a restart a background scan removes the marks left by committed deletes.
 * A transaction's undo records live in memory for rollback and in the redo log for crash recovery; the
 * checkpoint keeps the log from the first undo record of the oldest active transaction on (its tail).
 * Recovery: redo pages from the checkpoint, collect undo records from the tail, and roll back every transaction
 * with neither a COMMIT nor a ROLLBACK record, after re-logging its undo records in the new log run (so a crash
 * during that rollback recovers again).  Undo is idempotent: applied in reverse it sets each key to its value
 * before the transaction's first change, which row locks guarantee nobody else changed.
 */
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/btree.h"
#include "engine/engine_int.h"
#include "engine/lock.h"
#include "engine/redo.h"
#include "engine/space.h"
#include "engine/undo.h"
#include "engine/vstore.h"
#include "util/blocking.h"
#include "util/fio.h"
#include "util/util.h"

#define ENGINE_DIR_TREE 1ull
#define FIRST_USER_TREE 16ull
#define TREE_BUCKETS 1024
#define UNDO_HDR 31
#define LOCK_WAIT_DEFAULT_US (50ull * 1000000)
#define RB_SKIP_MAX 64
/* Undo record ops (docs/engine.md): the key was absent (undo deletes it); had a value (undo puts it back); was
 * delete-marked with a value (undo puts it back marked); or was live and the change only delete-marked it (undo
 * clears the mark: the cell kept its value, so the record carries none and the rollback needs no space). */
enum { UNDO_OP_DELETE = 1, UNDO_OP_PUT = 2, UNDO_OP_PUT_MARKED = 3, UNDO_OP_UNMARK = 4 };
enum { USER_NEXT_TRX = 0, USER_SPILL_MANIFEST = 1, USER_SPILL_END = 2, USER_COMMIT_TAG = 3 };

/* Commit tags (engine_trx_commit_tagged): a NOTE record "CTAG" + u64 tag in the COMMIT's mini-transaction.  The
 * engine's commit tag is the tag of the last tagged commit in log order; a checkpoint saves it (user word
 * USER_COMMIT_TAG) together with its LSN, and recovery takes the saved value, then every tag logged from the
 * checkpoint LSN on, so after a crash it is the tag of the last tagged commit that survived. */
#define CTAG_MAGIC "CTAG"
enum { CTAG_LEN = 12 };

typedef enum { TRX_ACTIVE = 1, TRX_COMMITTED, TRX_ROLLED_BACK } trx_state_t;

typedef struct tree_ent {
    btree_t *t;
    uint32_t space;
    struct tree_ent *next;
} tree_ent_t;

/* A range of the undo file one checkpoint appended for a transaction: its undo records [first, first + n). */
typedef struct spill_batch {
    uint64_t off, end;
    size_t first, n;
} spill_batch_t;

struct engine_trx {
    engine_t *e;
    uint64_t id;
    trx_state_t state;
    uint64_t first_lsn; /* 0 until the first change */
    size_t nspilled;    /* undo records [0, nspilled) are in the undo file (undo.h); under mu */
    bool spilled;       /* listed in every checkpoint's spill manifest while active; under mu */
    bool end_logged;    /* its COMMIT or ROLLBACK record is in the log: no checkpoint lists it any more */
    bool eliding;       /* listed in the elide registry: its inserts' record locks are implicit */
    bool logged;        /* it has logged an undo record, so its end must be logged even when a rollback to a
                           savepoint left it none: recovery would otherwise undo its undone changes again over
                           what others did since (under mu) */
    bool must_carry;    /* recovered: the next checkpoint carries its undo forward whatever its age; under mu */
    bool stuck;         /* its rollback failed part way: the engine owns it and retries it ("stuck rollbacks") */
    uint64_t retry_at, retry_us; /* stuck: the next try (time_mono_us) and the pause after it (doubles to 32 s) */
    buf_t undo;         /* undo records back to back */
    size_t *offs;
    size_t nundo, capundo;
    size_t undo_reserved_at; /* undo_total when the undo file's room was last checked (undo_room_reserve) */
    /* Undo records [0, base) are only in the undo file: spilled by a checkpoint, then dropped from memory, so a
     * transaction's memory does not grow with its undo; undo/offs hold [base, nundo) (offs[i - base] is record
     * i's start in undo, capundo counts from base).  spilled_bytes: the bytes of [0, base); batches: where they
     * are (rollback reads them back, trx_undo_to).  low: the lowest nundo since the running checkpoint took its
     * spill (a rollback meanwhile makes what that spill holds past it stale).  Under mu. */
    size_t base, low;
    uint64_t spilled_bytes;
    spill_batch_t *batches;
    size_t nbatches, capbatches;
    lock_owner_t lo;
    pthread_mutex_t mu; /* undo, offs, nundo: appended by the owner, copied forward by the checkpointer */
    engine_isolation_t iso;
    bool gap_locks;     /* REPEATABLE READ / SERIALIZABLE: locking reads take gap (next-key) locks */
    uint64_t lock_wait_us; /* 0: the engine's innodb_lock_wait_timeout */
    bool has_view, unlinked, did_delete;
    bool prepared, recovered; /* two-phase commit; recovered: prepared before a crash, awaiting xa commit/rollback */
    buf_t xid;
    read_view_t view;   /* under engine.trx_mu while has_view (purge reads view_no) */
    vs_trx_list_t vsl;  /* its version-store nodes */
    struct engine_trx *prev, *next;
};

/* The trx's undo in bytes, in memory and spilled (under t->mu: the checkpointer moves bytes between the two). */
static uint64_t undo_total(const engine_trx_t *t) { return t->spilled_bytes + t->undo.len; }
static uint64_t undo_total_now(engine_trx_t *t)
{
    pthread_mutex_lock(&t->mu);
    uint64_t n = undo_total(t);
    pthread_mutex_unlock(&t->mu);
    return n;
}

struct engine_cursor {
    engine_trx_t *trx;
    btree_cur_t c;
    bool mvcc;
    buf_t vis; /* the value the trx's read view sees */
    /* a locking cursor (engine_cursor_lock): latest versions, each row locked, and at REPEATABLE READ the gaps */
    lock_mode_t lmode;  /* 0: a consistent-read cursor */
    bool gaps;
    bool unique;        /* an equality on a whole unique key: the row past it is gap-locked only */
    bool took_lock;     /* the last positioning call took the current row's lock (it was not held before) */
    bool has_lo, has_hi;
    buf_t lo, hi;       /* the scan's bounds (key prefixes) */
    lock_gap_t *gap;    /* the gap this scan extends as it moves */
    btree_cur_t nb;     /* finds the neighbour key that closes a gap */
    buf_t from, k, tmp;
};

struct engine {
    engine_opts_t o;
    char *datadir;
    fsys_t *fs;
    undo_sys_t *undo;
    bpool_t *bp;
    redo_t *redo;
    bool redo_started;
    lock_sys_t *locks;
    btree_t *dir;
    pthread_rwlock_t trees_mu;
    tree_ent_t *trees[TREE_BUCKETS];
    pthread_mutex_t ddl;
    pthread_mutex_t trx_mu;
    engine_trx_t *active;
    /* transactions whose inserts lock implicitly (see "implicit insert locks"): the registry lock_convert's callers
     * search, under elide_mu (taken before a lock partition's mutex, never under one) */
    pthread_mutex_t elide_mu;
    engine_trx_t **eliders;
    size_t neliders, capeliders;
    _Atomic uint32_t n_eliders;
    uint64_t next_trx_id, next_tree_id;
    pthread_mutex_t ckpt_mu;
    pthread_t bg;
    bool bg_running, stop;
    pthread_mutex_t bg_mu;
    pthread_cond_t bg_cond;
    uint64_t n_commit, n_rollback, n_ckpt, n_purged;
    _Atomic uint64_t n_stuck; /* rollbacks that failed part way and wait for their retry (under trx_mu to change) */
    uint64_t lock_wait_us;
    vstore_t *vs;
    uint64_t commit_seq;       /* under trx_mu */
    pthread_mutex_t tag_mu;    /* a tagged COMMIT's append with the tag's update; a checkpoint's LSN with its read */
    uint64_t commit_tag;       /* under tag_mu */
    uint64_t startup_next_trx; /* delete marks by older trx ids are committed: the startup purge removes them */
    bool startup_purge_done;
    /* online rebalance (see "rebalance" below) */
    pthread_t rb;
    bool rb_running, rb_stop, rb_kick;
    _Atomic bool rb_enabled;
    pthread_mutex_t rb_mu;   /* rb_stop, rb_kick, rb_cond */
    pthread_cond_t rb_cond;
    pthread_mutex_t rb_step; /* one extent move at a time (thread or engine_rebalance_run) */
    fsys_move_t rb_skip[RB_SKIP_MAX];
    size_t rb_nskip;         /* under rb_step */
    _Atomic uint64_t rb_extents_moved, rb_pages_moved, rb_pending, rb_refused;
};

static uint64_t trx_wait_us(const engine_trx_t *t) { return t->lock_wait_us ? t->lock_wait_us : t->e->lock_wait_us; }

/* ---------------------------------------------------------------- options, helpers */

void engine_opts_default(engine_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->pool_bytes = 128u << 20;
    o->page_size = PAGE_SIZE_DEFAULT;
    o->flush_mode = ENGINE_FLUSH_SYNC;
    o->log_bytes = 64u << 20;
    o->sys_initial_bytes = 12u << 20;
    o->sys_extent_bytes = 1u << 20;
    o->checkpoint_ms = 1000;
    o->undo_max_bytes = 1ull << 30;
}

static void key_be64(uint8_t k[8], uint64_t v)
{
    for (int i = 0; i < 8; i++)
        k[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t be64_key(const uint8_t k[8])
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | k[i];
    return v;
}

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = mem_alloc(n);
    snprintf(s, n, "%s/%s", dir, name);
    return s;
}

static void engine_wal(void *ctx, uint64_t lsn)
{
    engine_t *e = ctx;
    if (e->redo_started)
        redo_flush(e->redo, lsn, true);
}

/* ---------------------------------------------------------------- tree handles */

static void trees_put(engine_t *e, btree_t *t, uint32_t space)
{
    tree_ent_t *x = mem_calloc(1, sizeof *x);
    x->t = t;
    x->space = space;
    pthread_rwlock_wrlock(&e->trees_mu);
    x->next = e->trees[t->id % TREE_BUCKETS];
    e->trees[t->id % TREE_BUCKETS] = x;
    pthread_rwlock_unlock(&e->trees_mu);
}

static btree_t *trees_find(engine_t *e, uint64_t id)
{
    pthread_rwlock_rdlock(&e->trees_mu);
    tree_ent_t *x = e->trees[id % TREE_BUCKETS];
    while (x && x->t->id != id)
        x = x->next;
    pthread_rwlock_unlock(&e->trees_mu);
    return x ? x->t : NULL;
}

static void trees_remove(engine_t *e, uint64_t id)
{
    pthread_rwlock_wrlock(&e->trees_mu);
    tree_ent_t **pp = &e->trees[id % TREE_BUCKETS];
    while (*pp && (*pp)->t->id != id)
        pp = &(*pp)->next;
    if (*pp) {
        tree_ent_t *x = *pp;
        *pp = x->next;
        btree_handle_free(x->t);
        mem_free(x);
    }
    pthread_rwlock_unlock(&e->trees_mu);
}

/* A tree's directory entry (16 bytes: space, root, flags) into v; k gets its key. */
static int dir_entry_get(engine_t *e, uint64_t id, uint8_t k[8], buf_t *v)
{
    key_be64(k, id);
    int rc = btree_get(e->dir, k, 8, v);
    if (rc == 0 && v->len != 16)
        rc = CORRUPT("engine: directory entry of tree %llu is %zu bytes", (unsigned long long)id, v->len);
    return rc;
}

/* The handle of a tree, loaded from the directory on first use. */
static int tree_get(engine_t *e, uint64_t id, btree_t **out)
{
    btree_t *t = trees_find(e, id);
    if (t) {
        *out = t;
        return 0;
    }
    uint8_t k[8];
    buf_t v;
    buf_init(&v);
    int rc = dir_entry_get(e, id, k, &v);
    if (rc == 0) {
        pthread_mutex_lock(&e->ddl);
        t = trees_find(e, id);
        if (!t) {
            t = btree_handle(e->fs, e->bp, e->redo, id, rd64(v.data + 4));
            trees_put(e, t, rd32(v.data));
        }
        pthread_mutex_unlock(&e->ddl);
        *out = t;
    }
    buf_free(&v);
    return rc;
}

static void purge_run(engine_t *e);
static void stuck_retry(engine_t *e);
static void purge_startup(engine_t *e);

/* ---------------------------------------------------------------- checkpoints */

/* A checkpoint's spill of t is durable: records [bfirst, upto) are in the file at [boff, bend) (what it holds
 * past upto a rollback has made stale).  They become a batch and leave memory.  Under t->mu. */
static void spill_settle(engine_trx_t *t, size_t upto, size_t bfirst, uint64_t boff, uint64_t bend)
{
    t->nspilled = upto;
    if (upto <= bfirst || upto <= t->base)
        return;
    if (t->nbatches == t->capbatches) {
        t->capbatches = t->capbatches ? t->capbatches * 2 : 8;
        t->batches = mem_realloc(t->batches, t->capbatches * sizeof *t->batches);
    }
    t->batches[t->nbatches++] = (spill_batch_t){.off = boff, .end = bend, .first = bfirst, .n = upto - bfirst};
    /* [base, bfirst) went to the file with earlier batches and left memory with them, so base == bfirst */
    ASSERT(t->base == bfirst);
    size_t drop = upto - t->base, bytes = upto < t->nundo ? t->offs[drop] : t->undo.len;
    buf_consume(&t->undo, bytes);
    memmove(t->offs, t->offs + drop, (t->nundo - upto) * sizeof *t->offs);
    for (size_t i = 0; i < t->nundo - upto; i++)
        t->offs[i] -= bytes;
    t->base = upto;
    t->spilled_bytes += bytes;
    if (t->undo.cap > 2 * t->undo.len + (1u << 20)) { /* give the buffer's peak back */
        buf_t nb;
        buf_init(&nb);
        buf_append(&nb, t->undo.data, t->undo.len);
        buf_free(&t->undo);
        t->undo = nb;
    }
}

/* A transaction whose first undo record is far back pins the log tail.  Its undo records are carried forward so
 * the tail can move (called by the checkpointer after redo_ckpt_begin, so that every record logged from here on
 * is after the checkpoint):
 *   - a small one (< 1/16 of the log) is re-logged: recovery then sees some records twice, which is harmless
 *     because undo is idempotent (engine.c header);
 *   - a large one is spilled to the logfile group's undo file (undo.h): the records it has not spilled yet are
 *     appended, and from then on it is listed in the manifest of every checkpoint until it ends.
 * A transaction whose COMMIT or ROLLBACK record is already logged is left alone (recovery must not list a trx
 * whose end record may lie before the tail).  spill[0..1] receive the manifest's place (0 when none). */
static int carry_undo(engine_t *e, uint64_t spill[2])
{
    uint64_t cur = redo_current_lsn(e->redo), cap = redo_capacity(e->redo);
    uint64_t threshold = cur > cap / 4 ? cur - cap / 4 : 0;
    int rc = 0;
    size_t nman = 0, capman = 0, npend = 0;
    undo_manifest_ent_t *man = NULL;
    /* What a spill changes in a trx takes effect only once the whole spill and its manifest are on disk. */
    typedef struct { engine_trx_t *t; size_t nspilled; uint64_t first; size_t bfirst; uint64_t boff, bend; } pend_t;
    pend_t *pend = NULL;
    spill[0] = spill[1] = 0;
    pthread_mutex_lock(&e->trx_mu);
    /* Only the checkpointer (ckpt_mu) changes spilled, so reading it here without t->mu is safe (nspilled and the
     * undo's size are read under t->mu: a rollback changes them too). */
    bool need = false;
    for (engine_trx_t *t = e->active; t && !need; t = t->next)
        need = t->spilled ||
               ((t->must_carry || (t->first_lsn && t->first_lsn < threshold)) && undo_total_now(t) >= cap / 16);
    if (need) {
        bool restarted = false;
        if ((rc = undo_spill_begin(e->undo, &restarted)))
            goto done;
        if (restarted) /* the file starts over: every spilled trx writes all of its undo again */
            for (engine_trx_t *t = e->active; t && !rc; t = t->next) {
                pthread_mutex_lock(&t->mu);
                t->nspilled = 0;
                if (t->base && !t->end_logged) /* cannot be: such a trx is named by every checkpoint until it ends */
                    rc = CORRUPT("engine: the undo file would start over under trx %llu's spilled undo",
                                 (unsigned long long)t->id);
                pthread_mutex_unlock(&t->mu);
            }
        if (rc)
            goto done;
    }
    for (engine_trx_t *t = e->active; t && !rc; t = t->next) {
        pthread_mutex_lock(&t->mu);
        bool old = t->must_carry || (t->first_lsn && t->first_lsn < threshold);
        if (t->end_logged || (!old && !t->spilled)) {
            pthread_mutex_unlock(&t->mu);
            continue;
        }
        uint64_t first = redo_current_lsn(e->redo);
        if (t->spilled || undo_total(t) >= cap / 16) {
            if (!need) {
                /* this transaction grew past the bound after the scan above found none to spill: the spill
                 * begins here (appending without undo_spill_begin wrote over the undo file's header) */
                bool restarted = false;
                if ((rc = undo_spill_begin(e->undo, &restarted))) {
                    pthread_mutex_unlock(&t->mu);
                    break;
                }
                need = true;
                if (restarted) /* nothing was appended yet in this pass */
                    for (engine_trx_t *o = e->active; o && !rc; o = o->next) {
                        if (o != t) /* (t's mutex is held here) */
                            pthread_mutex_lock(&o->mu);
                        o->nspilled = 0;
                        if (o->base && !o->end_logged)
                            rc = CORRUPT("engine: the undo file would start over under trx %llu's spilled undo",
                                         (unsigned long long)o->id);
                        if (o != t)
                            pthread_mutex_unlock(&o->mu);
                    }
                if (rc) {
                    pthread_mutex_unlock(&t->mu);
                    break;
                }
            }
            if (t->nspilled > t->nundo)
                t->nspilled = t->nundo;
            if (t->nspilled < t->base)
                t->nspilled = t->base; /* [0, base) is in the file already */
            uint64_t boff = undo_spill_pos(e->undo);
            for (size_t i = t->nspilled; i < t->nundo && !rc; i++) {
                size_t st = t->offs[i - t->base], end = i + 1 < t->nundo ? t->offs[i + 1 - t->base] : t->undo.len;
                rc = undo_spill_append(e->undo, t->undo.data + st, (uint32_t)(end - st));
            }
            pend = mem_realloc(pend, (npend + 1) * sizeof *pend);
            pend[npend] = (pend_t){.t = t, .nspilled = t->nundo, .first = first, .bfirst = t->nspilled,
                                          .boff = boff, .bend = undo_spill_pos(e->undo)};
            t->low = t->nundo;
            npend++;
        } else if (undo_total(t) < cap / 4) {
            ASSERT(t->base == 0); /* never spilled */
            for (size_t i = 0; i < t->nundo;) {
                mtr_t m;
                mtr_start(&m, e->bp, e->redo);
                size_t bytes = 0;
                for (; i < t->nundo && bytes < (256u << 10); i++) {
                    size_t end = i + 1 < t->nundo ? t->offs[i + 1] : t->undo.len;
                    mtr_log_undo(&m, t->undo.data + t->offs[i], (uint32_t)(end - t->offs[i]));
                    bytes += end - t->offs[i];
                }
                mtr_commit(&m);
            }
            if (t->prepared) {
                mtr_t m;
                mtr_start(&m, e->bp, e->redo);
                mtr_log_prepare(&m, t->id, t->xid.data, (uint16_t)t->xid.len);
                mtr_commit(&m);
            }
            t->first_lsn = first;
            t->must_carry = false;
        }
        pthread_mutex_unlock(&t->mu);
    }
    /* The manifest: every spilled trx still open, with what recovery needs besides its undo. */
    for (engine_trx_t *t = e->active; t && !rc; t = t->next) {
        bool now = false;
        for (size_t i = 0; i < npend && !now; i++)
            now = pend[i].t == t;
        pthread_mutex_lock(&t->mu);
        if ((t->spilled || now) && !t->end_logged) {
            if (nman == capman) {
                capman = capman ? capman * 2 : 8;
                man = mem_realloc(man, capman * sizeof *man);
            }
            man[nman++] = (undo_manifest_ent_t){.trx_id = t->id, .prepared = t->prepared, .xid = t->xid.data,
                                                .xid_len = (uint16_t)t->xid.len};
        }
        pthread_mutex_unlock(&t->mu);
    }
    if (!rc && nman)
        rc = undo_spill_manifest(e->undo, man, nman, &spill[0], &spill[1]);
    if (rc) {
        undo_spill_abort(e->undo);
    } else {
        for (size_t i = 0; i < npend; i++) {
            engine_trx_t *t = pend[i].t;
            pthread_mutex_lock(&t->mu);
            spill_settle(t, MIN(pend[i].nspilled, t->low), pend[i].bfirst, pend[i].boff, pend[i].bend);
            t->spilled = true;
            t->must_carry = false;
            t->first_lsn = pend[i].first;
            pthread_mutex_unlock(&t->mu);
        }
    }
    mem_free(pend);
done:
    pthread_mutex_unlock(&e->trx_mu);
    mem_free(man);
    if (rc)
        log_error("engine: checkpoint: cannot spill undo to the undo file: %d", rc);
    return rc;
}

static uint64_t active_tail(engine_t *e, uint64_t upper)
{
    uint64_t tail = upper;
    pthread_mutex_lock(&e->trx_mu);
    for (engine_trx_t *t = e->active; t; t = t->next)
        if (t->first_lsn && t->first_lsn < tail)
            tail = t->first_lsn;
    pthread_mutex_unlock(&e->trx_mu);
    return tail;
}

static int checkpoint(engine_t *e, uint64_t only_if_used_over)
{
    int rc = 0;
    if (e->o.read_only) /* nothing may be written; the pages replayed at the start stay in the pool */
        return 0;
    pthread_mutex_lock(&e->ckpt_mu);
    if (redo_used(e->redo) < only_if_used_over)
        goto out;
    /* Every tagged commit logged before lsn has set commit_tag (tag_mu); those after it are in the scan. */
    pthread_mutex_lock(&e->tag_mu);
    uint64_t tag = e->commit_tag;
    uint64_t lsn = redo_ckpt_begin(e->redo), spill[2];
    pthread_mutex_unlock(&e->tag_mu);
    if ((rc = carry_undo(e, spill)) || (rc = bpool_flush_all(e->bp)) || (rc = fsys_sync_all(e->fs)))
        goto out;
    /* The undo carried forward lies after lsn, and the slot will put the tail at lsn: those records must be
     * durable before the slot says the older log is no longer needed. */
    if ((rc = redo_flush(e->redo, redo_current_lsn(e->redo), true)))
        goto out;
    uint64_t user[REDO_USER_WORDS] = {0};
    user[USER_COMMIT_TAG] = tag;
    pthread_mutex_lock(&e->trx_mu);
    user[USER_NEXT_TRX] = e->next_trx_id;
    pthread_mutex_unlock(&e->trx_mu);
    user[USER_SPILL_MANIFEST] = spill[0];
    user[USER_SPILL_END] = spill[1];
    rc = redo_ckpt_end(e->redo, lsn, active_tail(e, lsn), user);
    if (!rc) {
        undo_spill_checkpointed(e->undo, spill[1] != 0);
        __atomic_add_fetch(&e->n_ckpt, 1, __ATOMIC_RELAXED);
    }
out:
    pthread_mutex_unlock(&e->ckpt_mu);
    if (rc)
        log_error("engine: checkpoint failed: %d", rc);
    return rc;
}

int engine_checkpoint(engine_t *e) { return checkpoint(e, 0); }
bool engine_read_only(const engine_t *e) { return e->o.read_only; }

/* Called before a change, holding no latch: keeps room in the redo log. */
static int log_free_check(engine_t *e)
{
    if (e->o.read_only) /* every change passes here first: the one gate of a read-only engine */
        return ENGINE_EREADONLY;
    uint64_t cap = redo_capacity(e->redo);
    if (redo_used(e->redo) > cap / 2)
        checkpoint(e, cap / 2);
    if (redo_used(e->redo) > cap / 8 * 7) {
        static uint64_t last_us;
        uint64_t now = time_mono_us();
        if (now - __atomic_load_n(&last_us, __ATOMIC_RELAXED) > 10000000) {
            __atomic_store_n(&last_us, now, __ATOMIC_RELAXED);
            log_error("engine: redo log full: a transaction is too large for a log of %llu bytes",
                      (unsigned long long)cap);
        }
        return ENGINE_ELOGFULL;
    }
    return 0;
}

/* ---------------------------------------------------------------- online rebalance
 *
 * After ALTER TABLESPACE ... ADD DATAFILE the old files hold every used extent and the new one none; new extents
 * go round-robin, so the imbalance would stay.  A background thread moves used extents, one at a time, from the
 * most loaded data file of a space to the least loaded until each holds its fair share (space.c
 * fsys_rebalance_pick); the pages move through btree_move_extent (one mtr per page, crash-safe).  It holds the
 * engine DDL mutex across one extent (so the tree cannot be dropped under it) and the tree latch X inside
 * btree_move_extent: readers and writers of that tree wait for one extent's move (64 pages), then go on.
 * Extents it cannot move (a root page, a change in flight) are skipped until the next data file is added. */

static int rb_log_check(void *ctx) { return log_free_check(ctx); }

static void rebalance_kick(engine_t *e)
{
    pthread_mutex_lock(&e->rb_step);
    e->rb_nskip = 0;
    pthread_mutex_unlock(&e->rb_step);
    pthread_mutex_lock(&e->rb_mu);
    e->rb_kick = true;
    pthread_cond_signal(&e->rb_cond);
    pthread_mutex_unlock(&e->rb_mu);
}

/* Moves (part of) one extent.  *pages: pages moved.  STRATA_ENOTFOUND when nothing needs to move. */
static int rebalance_step(engine_t *e, uint32_t max_pages, uint32_t *pages)
{
    int rc;
    fsys_move_t mv;
    uint64_t pending = 0;
    *pages = 0;
    pthread_mutex_lock(&e->rb_step);
    rc = fsys_rebalance_pick(e->fs, FIRST_USER_TREE, e->rb_skip, e->rb_nskip, &mv, &pending);
    e->rb_pending = pending;
    if (rc)
        goto out;
    btree_t *t;
    if ((rc = tree_get(e, mv.seg_id, &t)))
        goto skip;
    if ((rc = log_free_check(e)))
        goto out;
    pthread_mutex_lock(&e->ddl);
    bool emptied = false;
    if (trees_find(e, mv.seg_id) == t)
        rc = btree_move_extent(t, mv.src_file, mv.ext, mv.dst_file, max_pages, rb_log_check, e, pages, &emptied);
    else
        rc = STRATA_ENOTFOUND;
    pthread_mutex_unlock(&e->ddl);
    if (*pages) /* progress is durable per extent (one fsync), not per page */
        redo_flush(e->redo, redo_current_lsn(e->redo), true);
    e->rb_pages_moved += *pages;
    if (!rc && emptied) {
        e->rb_extents_moved++;
        if (e->rb_pending)
            e->rb_pending--;
    }
    if (rc == ENGINE_EBUSY || rc == ENGINE_EFULL || (rc && rc != STRATA_ENOTFOUND && rc != ENGINE_ELOGFULL))
        goto skip;
    if (rc == STRATA_ENOTFOUND)
        rc = 0; /* changed under us: pick again */
    goto out;
skip:
    e->rb_refused++;
    if (e->rb_nskip < RB_SKIP_MAX)
        e->rb_skip[e->rb_nskip++] = mv;
    if (rc != ENGINE_EBUSY)
        log_note("engine: rebalance: extent %u of file %u of space %u not moved (%d)", mv.ext, mv.src_file,
                 mv.space_id, rc);
    rc = 0;
out:
    pthread_mutex_unlock(&e->rb_step);
    return rc;
}

static void *rb_main(void *arg)
{
    engine_t *e = arg;
    for (;;) {
        pthread_mutex_lock(&e->rb_mu);
        if (e->rb_stop) {
            pthread_mutex_unlock(&e->rb_mu);
            break;
        }
        e->rb_kick = false;
        pthread_mutex_unlock(&e->rb_mu);
        int rc = STRATA_ENOTFOUND;
        uint32_t pages = 0;
        if (e->rb_enabled)
            rc = rebalance_step(e, UINT32_MAX, &pages);
        else {
            fsys_move_t mv;
            uint64_t pending = 0;
            fsys_rebalance_pick(e->fs, FIRST_USER_TREE, NULL, 0, &mv, &pending);
            e->rb_pending = pending;
        }
        pthread_mutex_lock(&e->rb_mu);
        if (!e->rb_stop && !e->rb_kick) {
            /* Work left: a short pause so foreground work gets the tree latch; none: wait for a kick. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t ns = (uint64_t)ts.tv_nsec + (rc == 0 ? 2000000ull : 1000000000ull);
            ts.tv_sec += (time_t)(ns / 1000000000ull);
            ts.tv_nsec = (long)(ns % 1000000000ull);
            pthread_cond_timedwait(&e->rb_cond, &e->rb_mu, &ts);
        }
        pthread_mutex_unlock(&e->rb_mu);
    }
    return NULL;
}

void engine_rebalance_enable(engine_t *e, bool on)
{
    e->rb_enabled = on;
    if (on)
        rebalance_kick(e);
}

void engine_rebalance_status(engine_t *e, engine_rebalance_t *st)
{
    st->enabled = e->rb_enabled;
    st->extents_moved = e->rb_extents_moved;
    st->pages_moved = e->rb_pages_moved;
    st->extents_pending = e->rb_pending;
    st->extents_refused = e->rb_refused;
}

uint64_t engine_rebalance_run(engine_t *e, uint64_t max_pages)
{
    uint64_t done = 0;
    while (done < max_pages) {
        uint32_t p = 0;
        int rc = rebalance_step(e, (uint32_t)MIN(max_pages - done, (uint64_t)UINT32_MAX), &p);
        done += p;
        if (rc)
            break;
        if (!p) {
            /* nothing moved this step: stop once the picker has nothing left */
            fsys_move_t mv;
            pthread_mutex_lock(&e->rb_step);
            int r2 = fsys_rebalance_pick(e->fs, FIRST_USER_TREE, e->rb_skip, e->rb_nskip, &mv, NULL);
            pthread_mutex_unlock(&e->rb_step);
            if (r2)
                break;
        }
    }
    return done;
}

static void *bg_main(void *arg)
{
    engine_t *e = arg;
    pthread_mutex_lock(&e->bg_mu);
    while (!e->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)e->o.checkpoint_ms * 1000000ull;
        ts.tv_sec += (time_t)(ns / 1000000000ull);
        ts.tv_nsec = (long)(ns % 1000000000ull);
        pthread_cond_timedwait(&e->bg_cond, &e->bg_mu, &ts);
        if (e->stop)
            break;
        pthread_mutex_unlock(&e->bg_mu);
        if (!e->startup_purge_done) {
            purge_startup(e);
            e->startup_purge_done = true;
        }
        purge_run(e);
        stuck_retry(e);
        if (e->o.flush_mode != ENGINE_FLUSH_SYNC)
            redo_flush(e->redo, redo_current_lsn(e->redo), true);
        checkpoint(e, redo_capacity(e->redo) / 4);
        pthread_mutex_lock(&e->bg_mu);
    }
    pthread_mutex_unlock(&e->bg_mu);
    return NULL;
}

/* ---------------------------------------------------------------- read views and purge */

/* The oldest open view's commit number (UINT64_MAX when no view is open).  trx_mu held. */
static uint64_t min_view_no_locked(engine_t *e)
{
    uint64_t m = UINT64_MAX;
    for (engine_trx_t *t = e->active; t; t = t->next)
        if (t->has_view && t->view.view_no < m)
            m = t->view.view_no;
    return m;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void view_open(engine_t *e, engine_trx_t *t)
{
    if (t->has_view)
        return;
    pthread_mutex_lock(&e->trx_mu);
    size_t n = 0;
    for (engine_trx_t *x = e->active; x; x = x->next)
        n++;
    mem_free(t->view.active);
    t->view.active = mem_alloc(sizeof(uint64_t) * (n ? n : 1));
    t->view.nactive = 0;
    for (engine_trx_t *x = e->active; x; x = x->next)
        if (x != t)
            t->view.active[t->view.nactive++] = x->id;
    t->view.creator = t->id;
    t->view.low_limit = e->next_trx_id;
    t->view.view_no = e->commit_seq;
    t->has_view = true;
    pthread_mutex_unlock(&e->trx_mu);
    qsort(t->view.active, t->view.nactive, sizeof(uint64_t), cmp_u64);
}

static void view_close(engine_t *e, engine_trx_t *t)
{
    pthread_mutex_lock(&e->trx_mu);
    t->has_view = false;
    pthread_mutex_unlock(&e->trx_mu);
}

/* Removes versions no open view can need, and physically the delete marks they made. */
static void purge_run(engine_t *e)
{
    pthread_mutex_lock(&e->trx_mu);
    uint64_t limit = min_view_no_locked(e);
    pthread_mutex_unlock(&e->trx_mu);
    vs_purge_item_t *items;
    size_t n = vstore_purge(e->vs, limit, &items);
    for (size_t i = 0; i < n; i++) {
        btree_t *bt;
        if (tree_get(e, items[i].tree, &bt))
            continue; /* dropped since */
        if (log_free_check(e))
            break;
        /* a DDL statement may drop the tree meanwhile (purge holds no metadata lock): see purge_startup */
        pthread_mutex_lock(&e->ddl);
        if (trees_find(e, items[i].tree) == bt &&
            btree_delete(bt, NULL, items[i].key, items[i].klen, NULL, NULL, BT_DEL_PURGE, items[i].trx) == 0)
            __atomic_add_fetch(&e->n_purged, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&e->ddl);
    }
    vstore_purge_free(items, n);
}

static bool id_listed(const uint64_t *ids, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* After a restart no version chains exist, and every delete mark left in the trees was made by a committed
 * transaction, except those of the transactions recovery kept active (prepared ones awaiting XA COMMIT or
 * ROLLBACK, and all of them in a read-only open): remove the others. */
static void purge_startup(engine_t *e)
{
    uint64_t *kept = NULL;
    size_t nkept = 0, capkept = 0;
    pthread_mutex_lock(&e->trx_mu);
    for (engine_trx_t *x = e->active; x; x = x->next)
        if (x->id < e->startup_next_trx) {
            if (nkept == capkept) {
                capkept = capkept ? capkept * 2 : 8;
                kept = mem_realloc(kept, capkept * sizeof *kept);
            }
            kept[nkept++] = x->id;
        }
    pthread_mutex_unlock(&e->trx_mu);
    btree_cur_t dc;
    btree_cur_init(&dc, e->dir);
    buf_t keys, from;
    buf_init(&keys);
    buf_init(&from);
    for (int r = btree_cur_seek(&dc, NULL, 0, BT_FIRST); r == 0 && !e->stop; r = btree_cur_next(&dc)) {
        if (dc.key.len != 8)
            continue;
        uint64_t id = be64_key(dc.key.data);
        btree_t *bt;
        if (tree_get(e, id, &bt))
            continue;
        /* A DDL statement may drop the tree meanwhile (the SQL layer's metadata locks do not know this thread):
         * each chunk of the scan runs under the DDL mutex, on the tree still registered, as a rebalance step does. */
        buf_reset(&from);
        bool done = false, first = true;
        while (!done && !e->stop) {
            pthread_mutex_lock(&e->ddl);
            if (trees_find(e, id) != bt) {
                pthread_mutex_unlock(&e->ddl);
                break;
            }
            btree_cur_t c;
            btree_cur_init(&c, bt);
            c.raw = true;
            buf_reset(&keys);
            int rc = first ? btree_cur_seek(&c, NULL, 0, BT_FIRST) : btree_cur_seek(&c, from.data, from.len, BT_GE);
            int n = 0;
            for (; rc == 0 && n < 4096; rc = btree_cur_next(&c), n++)
                if (c.delmarked && c.trx < e->startup_next_trx && !id_listed(kept, nkept, c.trx)) {
                    uint8_t h[10];
                    wr16(h, (uint16_t)c.key.len);
                    wr64(h + 2, c.trx);
                    buf_append(&keys, h, sizeof h);
                    buf_append(&keys, c.key.data, c.key.len);
                }
            done = rc != 0;
            if (!done) { /* the next chunk starts at the cell this one stopped on */
                buf_reset(&from);
                buf_append(&from, c.key.data, c.key.len);
            }
            first = false;
            btree_cur_free(&c);
            for (size_t off = 0; off < keys.len;) {
                uint16_t kl = rd16(keys.data + off);
                uint64_t trx = rd64(keys.data + off + 2);
                if (log_free_check(e)) {
                    done = true;
                    break;
                }
                if (btree_delete(bt, NULL, keys.data + off + 10, kl, NULL, NULL, BT_DEL_PURGE, trx) == 0)
                    __atomic_add_fetch(&e->n_purged, 1, __ATOMIC_RELAXED);
                off += 10 + kl;
            }
            pthread_mutex_unlock(&e->ddl);
        }
    }
    buf_free(&keys);
    buf_free(&from);
    btree_cur_free(&dc);
    mem_free(kept);
}

/* ---------------------------------------------------------------- undo */

typedef struct {
    engine_trx_t *trx;
    uint64_t tree;
    const void *key;
    size_t klen;
    bool is_delete;
} undo_ctx_t;

static void trx_add_undo(engine_trx_t *t, const uint8_t *rec, size_t len)
{
    if (t->nundo - t->base >= t->capundo) {
        t->capundo = t->capundo ? t->capundo * 2 : 16;
        t->offs = mem_realloc(t->offs, t->capundo * sizeof(size_t));
    }
    t->offs[t->nundo++ - t->base] = t->undo.len;
    buf_append(&t->undo, rec, len);
    t->logged = true;
}

/* btree hook: logs the undo record in the row change's own mtr and keeps it for rollback. */
static void undo_hook(void *ctx, mtr_t *m, bt_before_t before, const buf_t *old, uint64_t old_trx)
{
    undo_ctx_t *u = ctx;
    bool existed = before != BT_BEFORE_ABSENT, unmark = u->is_delete && before == BT_BEFORE_PRESENT;
    size_t vlen = existed && !unmark ? old->len : 0;
    uint8_t *rec = mem_alloc(UNDO_HDR + u->klen + vlen);
    wr64(rec, u->trx->id);
    wr64(rec + 8, u->tree);
    wr64(rec + 16, existed ? old_trx : 0);
    rec[24] = unmark                         ? UNDO_OP_UNMARK
              : before == BT_BEFORE_PRESENT   ? UNDO_OP_PUT
              : before == BT_BEFORE_DELMARKED ? UNDO_OP_PUT_MARKED
                                              : UNDO_OP_DELETE;
    wr16(rec + 25, (uint16_t)u->klen);
    wr32(rec + 27, (uint32_t)vlen);
    if (u->klen)
        memcpy(rec + UNDO_HDR, u->key, u->klen);
    if (vlen)
        memcpy(rec + UNDO_HDR + u->klen, old->data, vlen);
    mtr_log_undo(m, rec, (uint32_t)(UNDO_HDR + u->klen + vlen));
    pthread_mutex_lock(&u->trx->mu);
    trx_add_undo(u->trx, rec, UNDO_HDR + u->klen + vlen);
    pthread_mutex_unlock(&u->trx->mu);
    mem_free(rec);
    /* A key that did not exist before needs no version: a reader who cannot see the writer and finds no way back
     * sees no row, which is right. */
    if (existed || u->is_delete)
        vstore_push(u->trx->e->vs, &u->trx->vsl, u->trx->id, u->tree, u->key, u->klen, before,
                    existed ? old->data : NULL, existed ? old->len : 0, existed ? old_trx : 0, u->is_delete);
}

/* Before one step of a rollback, which must never fail for want of log: waits until the log has room for the
 * step's compensation (at most a path of page images, the value's overflow pages, and slack), checkpointing to make
 * it.  The checkpoints this needs only write pages and undo into space already allocated (undo_room_reserve), so
 * the wait ends unless the disk fails (EIO); the server keeps serving reads meanwhile. */
static void rollback_log_room(engine_t *e, uint32_t vlen)
{
    uint64_t cap = redo_capacity(e->redo), ps = fsys_page_size(e->fs);
    uint64_t need = (12 + vlen / (ps / 2)) * (ps + 64);
    uint64_t last_log = 0;
    while (redo_used(e->redo) + need > cap) {
        if (checkpoint(e, 0) == 0 && redo_used(e->redo) + need <= cap)
            break;
        uint64_t now = time_mono_us();
        if (now - last_log > 10000000) {
            log_error("engine: a rollback waits for room in the redo log (checkpoints fail; see above)");
            last_log = now;
        }
        blocking_begin();
        usleep(100000);
        blocking_end();
    }
}

/* Copies record i of t's undo into rec: from memory, or from its batch in the undo file (one batch is kept loaded
 * in *bl while a rollback walks down through it).  Under no lock: takes t->mu itself. */
typedef struct {
    bool loaded;
    size_t first, n;
    buf_t recs;
    size_t *offs;
} batch_cache_t;

static int undo_record(engine_t *e, engine_trx_t *t, size_t i, buf_t *rec, batch_cache_t *bl)
{
    buf_reset(rec);
    pthread_mutex_lock(&t->mu);
    if (i >= t->base) {
        size_t st = t->offs[i - t->base], end = i + 1 < t->nundo ? t->offs[i + 1 - t->base] : t->undo.len;
        buf_append(rec, t->undo.data + st, end - st);
        pthread_mutex_unlock(&t->mu);
        return 0;
    }
    spill_batch_t b = {0};
    bool found = false;
    for (size_t k = t->nbatches; k-- > 0 && !found;)
        if (t->batches[k].first <= i && i < t->batches[k].first + t->batches[k].n) {
            b = t->batches[k];
            found = true;
        }
    pthread_mutex_unlock(&t->mu);
    if (!found)
        return CORRUPT("engine: undo record %zu of trx %llu is neither in memory nor in a spilled batch", i,
                       (unsigned long long)t->id);
    if (!bl->loaded || bl->first != b.first) {
        mem_free(bl->offs);
        bl->offs = NULL;
        bl->loaded = false;
        int rc = undo_spill_load(e->undo, b.off, b.end, &bl->recs, &bl->offs, &bl->n);
        if (rc)
            return rc;
        if (bl->n < b.n)
            return CORRUPT("engine: trx %llu's spilled undo at %llu holds %zu records, not %zu",
                           (unsigned long long)t->id, (unsigned long long)b.off, bl->n, b.n);
        bl->loaded = true;
        bl->first = b.first;
    }
    size_t k = i - b.first, st = bl->offs[k], end = k + 1 < bl->n ? bl->offs[k + 1] : bl->recs.len;
    buf_append(rec, bl->recs.data + st, end - st);
    if (rec->len < UNDO_HDR || rd64(rec->data) != t->id)
        return CORRUPT("engine: spilled undo record %zu at %llu is not trx %llu's", i, (unsigned long long)b.off,
                       (unsigned long long)t->id);
    return 0;
}

/* Applies a transaction's undo records [from, nundo) in reverse and drops them (no new undo is logged: these are
 * compensations).  from = 0 undoes the whole transaction.  Records a checkpoint spilled and dropped from memory
 * are read back from the undo file, one batch at a time. */
static int trx_undo_to(engine_t *e, engine_trx_t *t, size_t from)
{
    int first_err = 0;
    buf_t rec;
    buf_init(&rec);
    batch_cache_t bl = {0};
    buf_init(&bl.recs);
    for (size_t i = t->nundo; i-- > from;) {
        int rc = undo_record(e, t, i, &rec, &bl);
        if (rc) {
            /* the rest cannot be undone now: the caller's rollback fails (logged above) */
            if (!t->stuck)
                log_error("engine: rollback of trx %llu stopped at undo record %zu: %d", (unsigned long long)t->id,
                          i, rc);
            first_err = rc;
            break;
        }
        const uint8_t *r = rec.data;
        uint64_t tree = rd64(r + 8), prev_trx = rd64(r + 16);
        uint32_t kl = rd16(r + 25), vl = rd32(r + 27);
        btree_t *bt;
        rc = tree_get(e, tree, &bt);
        if (rc == STRATA_ENOTFOUND)
            rc = 0, bt = NULL; /* the tree was dropped since */
        if (bt)
            rollback_log_room(e, vl);
        /* A stuck rollback's retry (the background thread) holds no metadata lock: a DDL statement may drop the
         * tree meanwhile, so each record is undone under the DDL mutex on the tree still registered (as
         * purge_startup does).  The owner's own rollback holds its tables' metadata locks. */
        bool ddl_held = bt && !rc && t->stuck;
        if (ddl_held) {
            pthread_mutex_lock(&e->ddl);
            if (trees_find(e, tree) != bt)
                bt = NULL; /* dropped since: nothing left to undo */
        }
        if (bt && !rc && t->eliding && r[24] != UNDO_OP_DELETE) {
            /* "implicit insert locks": a put over an existing cell pushed the version it replaced on the key's
             * chain, which stays there until this trx ends; the key stays locked to that end too (explicitly
             * now), so no other writer's version comes between and a reader's walk never lands on it.  An
             * insert of an absent key pushed none: its key is free once its cell is gone. */
            int lrc = lock_acquire(e->locks, &t->lo, tree, r + UNDO_HDR, kl, LOCK_X, 0);
            if (lrc)
                log_error("engine: rollback of trx %llu: the lock of a key it wrote is held by another (%d)",
                          (unsigned long long)t->id, lrc);
        }
        if (bt && !rc) {
            /* Only a cell this trx wrote last is undone.  Its cell keeps its writer id until its lowest undo record
             * is applied (a forward DELETE only marks), and while it does, the key is locked (explicitly, or
             * implicitly by that id).  Any other writer means this record was undone already and the key has
             * gone on to another transaction since: that happens when recovery applies the undo of a trx whose
             * rollback (or rollback to a savepoint) had run before the crash, and with implicit insert locks a
             * key whose cell went back is free at once.  So undo applied twice changes nothing, without the key
             * staying locked. */
            uint64_t w = 0;
            bt_before_t cst;
            int grc = btree_get_ex(bt, r + UNDO_HDR, kl, NULL, &w, &cst);
            if (grc == STRATA_ENOTFOUND || (!grc && w != t->id))
                bt = NULL;
            else if (grc)
                rc = grc;
        }
        if (bt && !rc) {
            if (r[24] == UNDO_OP_DELETE) {
                rc = btree_delete(bt, NULL, r + UNDO_HDR, kl, NULL, NULL, BT_DEL_PHYSICAL, 0);
                if (rc == STRATA_ENOTFOUND)
                    rc = 0;
            } else if (r[24] == UNDO_OP_UNMARK) {
                /* No page needed.  Not marked by us: undone already (recovery applies undo twice). */
                rc = btree_unmark(bt, r + UNDO_HDR, kl, t->id, prev_trx);
                if (rc == STRATA_ENOTFOUND)
                    rc = 0;
            } else {
                /* An UPDATE's old value goes back, which may need pages (docs/faults.md).  A marked one is two
                 * changes: the value keeps this trx as its writer until the mark (by its deleter) is set, so a
                 * crash or a failure between them leaves the record to be undone again. */
                bool marked = r[24] == UNDO_OP_PUT_MARKED;
                rc = btree_write(bt, NULL, BT_PUT, r + UNDO_HDR, kl, r + UNDO_HDR + kl, vl,
                                 marked ? t->id : prev_trx, NULL, NULL, NULL);
                if (!rc && marked)
                    rc = btree_delete(bt, NULL, r + UNDO_HDR, kl, NULL, NULL, BT_DEL_MARK, prev_trx);
            }
        }
        if (ddl_held)
            pthread_mutex_unlock(&e->ddl);
        if (rc) {
            /* record i stays (a tree change is all or nothing): the retry starts with it */
            if (!t->stuck)
                log_error("engine: rollback of trx %llu failed on tree %llu: %d", (unsigned long long)t->id,
                          (unsigned long long)tree, rc);
            first_err = rc;
            break;
        }
        /* What is undone needs no undo any more: the checkpoint then copies forward only the rest, so even a
         * transaction that filled the log can roll back (its compensations are logged before that copy).  What a
         * running checkpoint's spill holds from i on is stale now (low), and so is every batch from i on. */
        pthread_mutex_lock(&t->mu);
        t->nundo = i;
        if (i < t->low)
            t->low = i;
        if (t->nspilled > i)
            t->nspilled = i;
        if (i >= t->base) {
            t->undo.len = t->offs[i - t->base];
        } else {
            t->base = i;
            t->undo.len = 0;
            t->spilled_bytes -= MIN(t->spilled_bytes, (uint64_t)rec.len);
            while (t->nbatches && t->batches[t->nbatches - 1].first >= i)
                t->nbatches--;
            if (t->nbatches && t->batches[t->nbatches - 1].first + t->batches[t->nbatches - 1].n > i)
                t->batches[t->nbatches - 1].n = i - t->batches[t->nbatches - 1].first;
        }
        pthread_mutex_unlock(&t->mu);
        if (redo_used(e->redo) > redo_capacity(e->redo) / 2)
            checkpoint(e, redo_capacity(e->redo) / 2);
    }
    buf_free(&rec);
    buf_free(&bl.recs);
    mem_free(bl.offs);
    return first_err;
}

/* ---------------------------------------------------------------- recovery */

typedef struct rtrx {
    uint64_t id;
    bool done, prepared;
    buf_t xid;
    buf_t undo;
    size_t *offs;
    size_t n, cap;
    struct rtrx *next;
} rtrx_t;

typedef struct {
    engine_t *e;
    uint64_t ckpt_lsn;
    rtrx_t *trx;
    uint64_t max_trx;
    uint64_t groups, applied;
    uint64_t bad_undo; /* malformed undo records (a checksummed record that does not parse is corruption) */
    uint64_t group_start;   /* of the group being applied */
    uint64_t commit_tag;    /* the checkpoint's, then each tag logged at or after the checkpoint LSN */
} rctx_t;

static rtrx_t *rtrx_get(rctx_t *r, uint64_t id)
{
    for (rtrx_t *t = r->trx; t; t = t->next)
        if (t->id == id)
            return t;
    rtrx_t *t = mem_calloc(1, sizeof *t);
    t->id = id;
    buf_init(&t->undo);
    buf_init(&t->xid);
    t->next = r->trx;
    r->trx = t;
    return t;
}

static void rtrx_add_undo(rctx_t *r, const uint8_t *p, uint32_t n)
{
    /* The lengths inside must add up: recovery reads key and old value through them. */
    if (n < UNDO_HDR || (uint64_t)UNDO_HDR + rd16(p + 25) + rd32(p + 27) != n || p[24] < UNDO_OP_DELETE ||
        p[24] > UNDO_OP_UNMARK || (p[24] == UNDO_OP_UNMARK && rd32(p + 27))) {
        r->bad_undo++;
        return;
    }
    uint64_t id = rd64(p);
    rtrx_t *t = rtrx_get(r, id);
    r->max_trx = MAX(r->max_trx, id);
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->offs = mem_realloc(t->offs, t->cap * sizeof(size_t));
    }
    t->offs[t->n++] = t->undo.len;
    buf_append(&t->undo, p, n);
}

static void on_logical(void *ctx, const uint8_t *rec, size_t len)
{
    rctx_t *r = ctx;
    uint8_t type = rec[0];
    if (type == REDO_REC_COMMIT || type == REDO_REC_ROLLBACK) {
        uint64_t id = rd64(rec + 1);
        rtrx_get(r, id)->done = true;
        r->max_trx = MAX(r->max_trx, id);
    } else if (type == REDO_REC_PREPARE) {
        uint64_t id = rd64(rec + 1);
        rtrx_t *t = rtrx_get(r, id);
        t->prepared = true;
        buf_reset(&t->xid);
        buf_append(&t->xid, rec + 11, rd16(rec + 9));
        r->max_trx = MAX(r->max_trx, id);
    } else if (type == REDO_REC_UNDO) {
        rtrx_add_undo(r, rec + 5, rd32(rec + 1));
    } else if (type == REDO_REC_NOTE && rd16(rec + 1) == CTAG_LEN && memcmp(rec + 3, CTAG_MAGIC, 4) == 0) {
        /* groups in [tail, checkpoint) are older than the checkpoint's saved tag */
        if (r->group_start >= r->ckpt_lsn)
            r->commit_tag = rd64(rec + 7);
    }
}

/* The undo spill named by the checkpoint (undo.h): read before the log, so its records come first. */
static void on_spill_undo(void *ctx, const uint8_t *rec, uint32_t len) { rtrx_add_undo(ctx, rec, len); }

static void on_spill_trx(void *ctx, const undo_manifest_ent_t *ent)
{
    rctx_t *r = ctx;
    rtrx_t *t = rtrx_get(r, ent->trx_id);
    r->max_trx = MAX(r->max_trx, ent->trx_id);
    if (ent->prepared) {
        t->prepared = true;
        buf_reset(&t->xid);
        buf_append(&t->xid, ent->xid, ent->xid_len);
    }
}

static int on_group(void *ctx, uint64_t start, uint64_t end, const uint8_t *body, size_t len)
{
    rctx_t *r = ctx;
    r->groups++;
    r->group_start = start;
    bool pages = start >= r->ckpt_lsn;
    (void)FAULT_POINT("engine.recovery_scan"); /* test builds: a crash in the middle of the redo scan */
    r->applied += pages;
    return mtr_apply_group(r->e->bp, pages, end, body, len, on_logical, r);
}

static void trx_unlink_locked(engine_t *e, engine_trx_t *t)
{
    if (t->unlinked)
        return;
    if (t->prev)
        t->prev->next = t->next;
    else
        e->active = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->unlinked = true;
}

static void elide_unregister(engine_t *e, engine_trx_t *t);

static void trx_free(engine_trx_t *t)
{
    engine_t *e = t->e;
    if (t->eliding) /* first: no lock may be made explicit for it once its locks are given back */
        elide_unregister(e, t);
    lock_release_all(e->locks, &t->lo);
    pthread_mutex_lock(&e->trx_mu);
    trx_unlink_locked(e, t);
    pthread_mutex_unlock(&e->trx_mu);
    if (t->vsl.head)
        vstore_rollback(e->vs, &t->vsl); /* a trx freed without commit stamping: nothing may keep its nodes */
    mem_free(t->view.active);
    lock_owner_destroy(&t->lo);
    pthread_mutex_destroy(&t->mu);
    buf_free(&t->undo);
    buf_free(&t->xid);
    mem_free(t->offs);
    mem_free(t->batches);
    mem_free(t);
}

/* id 0: take the next id.  Taking the id and joining the active list happen under one lock, so no read view can
 * see an id below its low limit that is neither active nor committed. */
static engine_trx_t *trx_new(engine_t *e, uint64_t id)
{
    engine_trx_t *t = mem_calloc(1, sizeof *t);
    t->e = e;
    t->state = TRX_ACTIVE;
    buf_init(&t->undo);
    buf_init(&t->xid);
    pthread_mutex_init(&t->mu, NULL);
    t->iso = ENGINE_ISO_REPEATABLE_READ;
    t->gap_locks = true;
    pthread_mutex_lock(&e->trx_mu);
    t->id = id ? id : e->next_trx_id++;
    t->next = e->active;
    if (e->active)
        e->active->prev = t;
    e->active = t;
    pthread_mutex_unlock(&e->trx_mu);
    lock_owner_init(&t->lo, t->id);
    return t;
}

/* A recovered transaction kept active instead of rolled back (prepared, or any of them when read-only): it holds
 * the row locks of its changes, and each changed key's version before it goes on the key's chain, so that every
 * view sees the rows as they were before it. */
static void trx_keep_recovered(engine_t *e, engine_trx_t *t)
{
    buf_t rec;
    buf_init(&rec);
    batch_cache_t bl = {0};
    buf_init(&bl.recs);
    for (size_t i = 0; i < t->nundo; i++) {
        /* (the first checkpoint may have spilled it: read back from the undo file then) */
        if (undo_record(e, t, i, &rec, &bl)) {
            log_error("engine: recovered trx %llu: undo record %zu cannot be read; its row is not locked",
                      (unsigned long long)t->id, i);
            continue;
        }
        const uint8_t *u = rec.data;
        uint32_t kl = rd16(u + 25), vl = rd32(u + 27);
        bt_before_t before = u[24] == UNDO_OP_PUT || u[24] == UNDO_OP_UNMARK ? BT_BEFORE_PRESENT
                             : u[24] == UNDO_OP_PUT_MARKED                  ? BT_BEFORE_DELMARKED
                                                                            : BT_BEFORE_ABSENT;
        lock_acquire(e->locks, &t->lo, rd64(u + 8), u + UNDO_HDR, kl, LOCK_X, 0);
        /* A delete's record has no value: older views find it in the marked cell, which kept it. */
        buf_t kept;
        buf_init(&kept);
        btree_t *bt;
        uint64_t wr;
        bt_before_t st;
        if (u[24] == UNDO_OP_UNMARK && !tree_get(e, rd64(u + 8), &bt))
            btree_get_ex(bt, u + UNDO_HDR, kl, &kept, &wr, &st);
        vstore_push(e->vs, &t->vsl, t->id, rd64(u + 8), u + UNDO_HDR, kl, before,
                    u[24] == UNDO_OP_UNMARK ? kept.data : u + UNDO_HDR + kl,
                    u[24] == UNDO_OP_UNMARK ? kept.len : vl, rd64(u + 16), true);
        buf_free(&kept);
    }
    buf_free(&rec);
    buf_free(&bl.recs);
    mem_free(bl.offs);
}

/* Transactions the crash interrupted (undo records, no COMMIT or ROLLBACK).  First each becomes an engine trx
 * with its undo in memory, marked to be carried forward, and one checkpoint re-logs (or spills) all of their
 * undo: that is the first checkpoint of this run (redo_start_deferred), so until it is durable the previous
 * checkpoint and the old log still hold every one of them, and a crash here recovers them again.  Only then
 * are they rolled back, or, prepared, kept for the coordinator. */
static int recover_rollback(engine_t *e, rctx_t *r)
{
    int rc = 0, n = 0;
    size_t nt = 0;
    for (rtrx_t *x = r->trx; x; x = x->next)
        nt += !x->done && x->n;
    if (!nt)
        return 0;
    engine_trx_t **ts = mem_calloc(nt, sizeof *ts);
    size_t k = 0;
    for (rtrx_t *x = r->trx; x; x = x->next) {
        if (x->done || x->n == 0)
            continue;
        engine_trx_t *t = ts[k++] = trx_new(e, x->id);
        pthread_mutex_lock(&t->mu);
        t->first_lsn = redo_current_lsn(e->redo);
        t->must_carry = true;
        /* Known as prepared before its undo is carried: the checkpoint re-logs its PREPARE with the undo, or
         * lists it as prepared in the spill manifest. */
        if (x->prepared) {
            t->prepared = true;
            buf_append(&t->xid, x->xid.data, x->xid.len);
        }
        for (size_t i = 0; i < x->n; i++) {
            size_t end = i + 1 < x->n ? x->offs[i + 1] : x->undo.len;
            trx_add_undo(t, x->undo.data + x->offs[i], end - x->offs[i]);
        }
        pthread_mutex_unlock(&t->mu);
    }
    if (e->o.read_only) {
        /* Nothing may be written, so nothing is rolled back: each stays active for as long as the server runs,
         * and every reader sees the rows as they were before it (the next normal start rolls them back). */
        for (k = 0; k < nt; k++) {
            ts[k]->recovered = ts[k]->prepared;
            trx_keep_recovered(e, ts[k]);
        }
        log_warn("engine: read-only: %zu transaction(s) left incomplete by the crash are not rolled back; their "
                 "changes are not visible", nt);
        goto out;
    }
    if ((rc = checkpoint(e, 0)))
        goto out;
    (void)FAULT_POINT("engine.recovery_carried"); /* test builds: a crash right after that checkpoint */
    for (k = 0; k < nt && !rc; k++) {
        engine_trx_t *t = ts[k];
        if (t->prepared) {
            /* Prepared: the coordinator (binlog) decides.  Keep it active with its locks and its versions. */
            t->recovered = true;
            trx_keep_recovered(e, t);
            log_note("engine: transaction %llu was prepared at the crash; it waits for XA COMMIT or ROLLBACK",
                     (unsigned long long)t->id);
            continue;
        }
        rc = engine_trx_rollback(t);
        n++;
        (void)FAULT_POINT("engine.recovery_rolled_back"); /* test builds: a crash between two rollbacks */
    }
    if (n)
        log_note("engine: rolled back %d transaction(s) left incomplete by the crash", n);
out:
    mem_free(ts);
    return rc;
}

static void rctx_free(rctx_t *r)
{
    while (r->trx) {
        rtrx_t *t = r->trx;
        r->trx = t->next;
        buf_free(&t->undo);
        buf_free(&t->xid);
        mem_free(t->offs);
        mem_free(t);
    }
}

/* ---------------------------------------------------------------- open / close */

static int open_directory(engine_t *e, bool created)
{
    page_id_t root;
    int rc = 0;
    if (created) {
        mtr_t m;
        mtr_start(&m, e->bp, e->redo);
        if (!(rc = btree_create(e->fs, &m, SPACE_SYSTEM, ENGINE_DIR_TREE, &root)))
            rc = fsys_set_dir_root(e->fs, &m, root);
        uint64_t lsn = mtr_commit(&m);
        if (!rc)
            rc = redo_flush(e->redo, lsn, true);
        if (rc)
            return rc;
    } else if ((rc = fsys_dir_root(e->fs, &root))) {
        return rc;
    } else if (root == PAGE_ID_NONE) {
        return CORRUPT("engine: the system tablespace has no tree directory");
    }
    e->dir = btree_handle(e->fs, e->bp, e->redo, ENGINE_DIR_TREE, root);
    /* The next tree id follows the largest in the directory. */
    btree_cur_t c;
    btree_cur_init(&c, e->dir);
    rc = btree_cur_seek(&c, NULL, 0, BT_LAST);
    e->next_tree_id = FIRST_USER_TREE;
    if (rc == 0 && c.key.len == 8)
        e->next_tree_id = MAX(FIRST_USER_TREE, be64_key(c.key.data) + 1);
    btree_cur_free(&c);
    return rc == STRATA_ENOTFOUND ? 0 : rc;
}

static int drop_unfinished(engine_t *e);

int engine_open(const engine_opts_t *opts, engine_t **out)
{
    int rc = 0;
    *out = NULL;
    engine_t *e = mem_calloc(1, sizeof *e);
    e->o = *opts;
    if (!e->o.datadir) {
        mem_free(e);
        return ENGINE_EINVAL;
    }
    e->datadir = mem_strdup(opts->datadir);
    e->o.datadir = e->datadir;
    if (!e->o.page_size)
        e->o.page_size = PAGE_SIZE_DEFAULT;
    if (!e->o.log_bytes)
        e->o.log_bytes = 64u << 20;
    if (!e->o.pool_bytes)
        e->o.pool_bytes = 128u << 20;
    if (!e->o.sys_initial_bytes)
        e->o.sys_initial_bytes = 12u << 20;
    if (!e->o.sys_extent_bytes)
        e->o.sys_extent_bytes = 1u << 20;
    if (!e->o.checkpoint_ms)
        e->o.checkpoint_ms = 1000;
    if (!e->o.undo_max_bytes)
        e->o.undo_max_bytes = 1ull << 30;
    e->lock_wait_us = LOCK_WAIT_DEFAULT_US;
    pthread_rwlock_init(&e->trees_mu, NULL);
    pthread_mutex_init(&e->ddl, NULL);
    pthread_mutex_init(&e->trx_mu, NULL);
    pthread_mutex_init(&e->elide_mu, NULL);
    pthread_mutex_init(&e->ckpt_mu, NULL);
    pthread_mutex_init(&e->tag_mu, NULL);
    pthread_mutex_init(&e->bg_mu, NULL);
    pthread_cond_init(&e->bg_cond, NULL);
    pthread_mutex_init(&e->rb_mu, NULL);
    pthread_cond_init(&e->rb_cond, NULL);
    pthread_mutex_init(&e->rb_step, NULL);
    e->rb_enabled = !e->o.rebalance_off;
    e->locks = lock_sys_create();
    e->vs = vstore_create();
    uint32_t ps = e->o.page_size;
    if (ps < PAGE_SIZE_MIN || ps > PAGE_SIZE_MAX || (ps & (ps - 1))) {
        rc = ENGINE_EINVAL;
        goto fail;
    }
    if (mkdir(e->datadir, 0750) && errno != EEXIST) {
        rc = -errno;
        log_error("engine: cannot create data directory '%s': %s", e->datadir, strerror(errno));
        goto fail;
    }
    char *ctl = path_join(e->datadir, "strata.ctl"), *log = path_join(e->datadir, "redo.log");
    bool have_ctl = access(ctl, F_OK) == 0, have_log = access(log, F_OK) == 0;
    mem_free(ctl);
    if (have_ctl != have_log) {
        log_error("engine: '%s/%s' exists without '%s'; restore the missing file or remove the leftover one",
                  e->datadir, have_ctl ? "strata.ctl" : "redo.log", have_ctl ? "redo.log" : "strata.ctl");
        mem_free(log);
        rc = have_ctl ? STRATA_ENOTFOUND : STRATA_EEXIST;
        goto fail;
    }
    if (e->o.read_only && !have_ctl) {
        log_error("engine: '%s' holds no data directory to open read-only", e->datadir);
        mem_free(log);
        rc = STRATA_ENOTFOUND;
        goto fail;
    }
    if ((rc = fsys_open(e->datadir, ps, !e->o.read_only, e->o.sys_initial_bytes, e->o.sys_extent_bytes / ps,
                        e->o.data_direct, &e->fs))) {
        mem_free(log);
        goto fail;
    }
    fsys_set_read_only(e->fs, e->o.read_only);
    ps = fsys_page_size(e->fs);
    e->o.page_size = ps;
    if ((rc = undo_sys_open(e->datadir, e->o.undo_max_bytes, &e->undo))) {
        mem_free(log);
        goto fail;
    }
    rc = redo_open(log, e->o.log_bytes, ps, e->o.log_sparse, e->o.log_dsync, &e->redo);
    mem_free(log);
    if (rc)
        goto fail;
    uint64_t frames = e->o.pool_bytes / ps;
    bpool_io_t io = {.read = fsys_page_read, .write = fsys_page_write, .wal = engine_wal, .ctx = e->fs,
                     .wal_ctx = e};
    e->bp = bpool_create((uint32_t)MAX(frames, 16), ps, &io);
    bpool_set_read_only(e->bp, e->o.read_only);
    fsys_attach(e->fs, e->bp, e->redo);

    /* Recovery: replay pages from the checkpoint, gather undo from the tail. */
    uint64_t t0 = time_mono_us();
    rctx_t r = {.e = e, .ckpt_lsn = redo_last_ckpt(e->redo)->ckpt_lsn};
    uint64_t end;
    const uint64_t *cw = redo_last_ckpt(e->redo)->user;
    r.commit_tag = cw[USER_COMMIT_TAG];
    bool no_undo = e->o.read_only && (e->o.no_undo || e->o.no_redo);
    if (no_undo)
        log_warn("engine: read-only: the undo of transactions left incomplete by a crash is not read: their changes "
                 "are visible as if committed");
    if (cw[USER_SPILL_END] && !no_undo && (rc = undo_spill_read(e->undo, cw[USER_SPILL_MANIFEST], cw[USER_SPILL_END],
                                                     on_spill_undo, on_spill_trx, &r))) {
        rctx_free(&r);
        log_error("engine: recovery of '%s' failed: the undo spill cannot be read (%d)", e->datadir, rc);
        goto fail;
    }
    bpool_set_recovery(e->bp, true);
    if (e->o.read_only && e->o.no_redo) {
        end = r.ckpt_lsn;
        log_warn("engine: read-only: the redo log past the last checkpoint is not applied: the data files are read "
                 "as they are on disk");
    } else {
        rc = redo_scan(e->redo, on_group, &r, &end);
    }
    if (!rc && r.bad_undo)
        rc = CORRUPT("engine: %llu undo record(s) in the redo log or undo spill do not parse",
                     (unsigned long long)r.bad_undo);
    bpool_set_recovery(e->bp, false);
    if (rc == STRATA_ENOMEM && e->o.read_only)
        log_error("engine: read-only: the pages the redo log changes since the last checkpoint do not fit in the "
                  "buffer pool; start with a larger innodb_buffer_pool_size");
    if (no_undo) { /* what the scan gathered counts as committed */
        rctx_free(&r);
        r.trx = NULL;
    }
    if (!rc && !e->o.read_only)
        rc = bpool_flush_all(e->bp);
    if (!rc && !e->o.read_only)
        rc = fsys_sync_all(e->fs);
    e->next_trx_id = MAX(redo_last_ckpt(e->redo)->user[USER_NEXT_TRX], r.max_trx + 1);
    if (e->next_trx_id < 1)
        e->next_trx_id = 1;
    uint64_t user[REDO_USER_WORDS] = {0};
    user[USER_NEXT_TRX] = e->next_trx_id;
    /* The spill stays named until the checkpoint at the end of the start has carried its trx (rolled back or
     * prepared) again. */
    user[USER_SPILL_MANIFEST] = cw[USER_SPILL_MANIFEST];
    user[USER_SPILL_END] = cw[USER_SPILL_END];
    user[USER_COMMIT_TAG] = e->commit_tag = r.commit_tag;
    /* Interrupted transactions keep the old checkpoint in force until their undo is carried into this run. */
    bool carry = false;
    for (rtrx_t *x = r.trx; x && !carry; x = x->next)
        carry = !x->done && x->n;
    if (!rc && !e->o.read_only)
        rc = carry ? redo_start_deferred(e->redo, end, user) : redo_start(e->redo, end, user);
    if (rc) {
        rctx_free(&r);
        log_error("engine: recovery of '%s' failed (%d)", e->datadir, rc);
        goto fail;
    }
    e->redo_started = !e->o.read_only;
    (void)FAULT_POINT("engine.recovery_started"); /* test builds: a crash once the new log run has begun */
    if (r.applied)
        log_note("engine: recovery replayed %llu redo groups (%llu bytes) in %llu ms",
                 (unsigned long long)r.applied, (unsigned long long)(end - r.ckpt_lsn),
                 (unsigned long long)(time_mono_us() - t0) / 1000);
    if ((rc = fsys_load(e->fs)) || (rc = open_directory(e, fsys_created(e->fs))) || (rc = recover_rollback(e, &r)) ||
        (!e->o.read_only && (rc = drop_unfinished(e)))) {
        rctx_free(&r);
        goto fail;
    }
    rctx_free(&r);
    e->startup_next_trx = e->next_trx_id;
    if (e->o.read_only) { /* no checkpoint, no checkpointer, purge or rebalance: nothing is ever written */
        log_note("engine: '%s' opened read-only", e->datadir);
        *out = e;
        return 0;
    }
    if ((rc = checkpoint(e, 0)))
        goto fail;
    if (pthread_create(&e->bg, NULL, bg_main, e) == 0)
        e->bg_running = true;
    if (pthread_create(&e->rb, NULL, rb_main, e) == 0)
        e->rb_running = true;
    *out = e;
    return 0;
fail:
    engine_close(e);
    return rc;
}

void engine_close(engine_t *e)
{
    if (!e)
        return;
    if (e->bg_running) {
        pthread_mutex_lock(&e->bg_mu);
        e->stop = true;
        pthread_cond_signal(&e->bg_cond);
        pthread_mutex_unlock(&e->bg_mu);
        pthread_join(e->bg, NULL);
    }
    if (e->rb_running) {
        pthread_mutex_lock(&e->rb_mu);
        e->rb_stop = true;
        pthread_cond_signal(&e->rb_cond);
        pthread_mutex_unlock(&e->rb_mu);
        pthread_join(e->rb, NULL);
    }
    if (e->redo_started && e->dir)
        checkpoint(e, 0);
    /* Transactions still open (normally only recovered prepared ones the coordinator has not resolved): their
     * records stay in the log (the checkpoint kept the tail), so the next start finds them again. */
    while (e->active) {
        engine_trx_t *t = e->active;
        e->active = t->next;
        lock_owner_destroy(&t->lo);
        pthread_mutex_destroy(&t->mu);
        buf_free(&t->undo);
        buf_free(&t->xid);
        mem_free(t->offs);
        mem_free(t->batches);
        mem_free(t->view.active);
        mem_free(t);
    }
    for (int i = 0; i < TREE_BUCKETS; i++)
        while (e->trees[i]) {
            tree_ent_t *x = e->trees[i];
            e->trees[i] = x->next;
            btree_handle_free(x->t);
            mem_free(x);
        }
    btree_handle_free(e->dir);
    bpool_destroy(e->bp);
    redo_close(e->redo);
    undo_sys_close(e->undo);
    fsys_close(e->fs);
    lock_sys_destroy(e->locks);
    vstore_destroy(e->vs);
    pthread_rwlock_destroy(&e->trees_mu);
    pthread_mutex_destroy(&e->ddl);
    pthread_mutex_destroy(&e->trx_mu);
    pthread_mutex_destroy(&e->elide_mu);
    mem_free(e->eliders);
    pthread_mutex_destroy(&e->ckpt_mu);
    pthread_mutex_destroy(&e->tag_mu);
    pthread_mutex_destroy(&e->bg_mu);
    pthread_cond_destroy(&e->bg_cond);
    pthread_mutex_destroy(&e->rb_mu);
    pthread_cond_destroy(&e->rb_cond);
    pthread_mutex_destroy(&e->rb_step);
    mem_free(e->datadir);
    mem_free(e);
}

/* ---------------------------------------------------------------- tablespaces */

int engine_tablespace_create(engine_t *e, const char *name, const char *path, uint64_t initial_bytes,
                             uint64_t extent_bytes, uint32_t *space_id)
{
    if (e->o.read_only)
        return ENGINE_EREADONLY;
    return fsys_space_create(e->fs, name, path, initial_bytes, extent_bytes, 0, false, space_id);
}

int engine_tablespace_add_datafile(engine_t *e, const char *name, const char *path, uint64_t initial_bytes)
{
    uint32_t id;
    int rc = e->o.read_only ? ENGINE_EREADONLY : fsys_space_find(e->fs, name, &id);
    if (!rc && !(rc = fsys_space_add_file(e->fs, id, path, initial_bytes)))
        rebalance_kick(e);
    return rc;
}

int engine_tablespace_drop(engine_t *e, const char *name)
{
    uint32_t id;
    int rc = e->o.read_only ? ENGINE_EREADONLY : fsys_space_find(e->fs, name, &id);
    if (rc)
        return rc;
    /* A checkpoint first, so that recovery never needs the dropped files' pages. */
    if ((rc = checkpoint(e, 0)))
        return rc;
    if ((rc = fsys_space_drop(e->fs, id)))
        return rc;
    return checkpoint(e, 0);
}

int engine_tablespace_lookup(engine_t *e, const char *name, uint32_t *space_id)
{
    return fsys_space_find(e->fs, name, space_id);
}

int engine_logfile_group_create(engine_t *e, const char *name, const char *undo_path, uint64_t initial_bytes,
                                uint64_t undo_buffer_bytes)
{
    if (e->o.read_only)
        return ENGINE_EREADONLY;
    return undo_lfg_create(e->undo, name, undo_path, initial_bytes, undo_buffer_bytes);
}

int engine_logfile_group_drop(engine_t *e, const char *name)
{
    if (e->o.read_only)
        return ENGINE_EREADONLY;
    /* A checkpoint first: a spill that no transaction needs any more is then no longer named. */
    checkpoint(e, 0); /* may fail while a transaction's undo overflows the file: the drop then refuses */
    return undo_lfg_drop(e->undo, name);
}

int engine_files(engine_t *e, engine_file_info_t **out, size_t *n)
{
    space_file_info_t *v;
    undo_file_info_t *uf;
    size_t nd, nu;
    int rc = fsys_files(e->fs, &v, &nd);
    if (rc)
        return rc;
    undo_files(e->undo, &uf, &nu);
    *n = nd + nu;
    engine_file_info_t *r = mem_calloc(*n ? *n : 1, sizeof *r);
    /* Undo files first, as MySQL Cluster lists them. */
    for (size_t i = 0; i < nu; i++) {
        engine_file_info_t *x = &r[i];
        x->file_type = "UNDO LOG";
        memcpy(x->logfile_group_name, uf[i].lfg_name, sizeof x->logfile_group_name);
        memcpy(x->file_name, uf[i].file_name, sizeof x->file_name);
        x->logfile_group_number = uf[i].lfg_id;
        x->undo_buffer_size = uf[i].undo_buffer;
        x->extent_size = 4; /* MySQL Cluster counts undo files in 4-byte words */
        x->total_extents = uf[i].size / 4;
        x->free_extents = (uf[i].size - UNDO_FILE_HDR - MIN(uf[i].used, uf[i].size - UNDO_FILE_HDR)) / 4;
        x->initial_size = uf[i].initial;
        x->maximum_size = uf[i].autoextend ? e->o.undo_max_bytes + UNDO_FILE_HDR : uf[i].size;
        x->size = uf[i].size;
        x->autoextend = uf[i].autoextend;
        x->status = "NORMAL";
    }
    /* As in MySQL Cluster, the one logfile group takes the undo of every tablespace, so each data file names it;
     * before any exists, the group the engine makes when it first needs one.  The system tablespace is not disk
     * data: it is FILE_TYPE 'TABLESPACE' (as MySQL 8 shows innodb_system), which mariadb-dump does not recreate. */
    char lfg[64];
    uint32_t lfg_id = nu ? uf[0].lfg_id : 0;
    snprintf(lfg, sizeof lfg, "%s", nu ? uf[0].lfg_name : UNDO_DEFAULT_LFG);
    mem_free(uf);
    r += nu;
    *out = r - nu;
    for (size_t i = 0; i < nd; i++) {
        bool sys = v[i].space_id == SPACE_SYSTEM;
        r[i].file_type = sys ? "TABLESPACE" : "DATAFILE";
        if (!sys) {
            memcpy(r[i].logfile_group_name, lfg, sizeof r[i].logfile_group_name);
            r[i].logfile_group_number = lfg_id;
        }
        memcpy(r[i].tablespace_name, v[i].space_name, sizeof r[i].tablespace_name);
        memcpy(r[i].file_name, v[i].path, sizeof r[i].file_name);
        r[i].space_id = v[i].space_id;
        r[i].file_no = v[i].file_no;
        r[i].extent_size = v[i].extent_size;
        r[i].total_extents = v[i].total_extents;
        r[i].free_extents = v[i].free_extents;
        r[i].initial_size = v[i].initial_size;
        r[i].maximum_size = v[i].autoextend ? v[i].maximum_size : v[i].size;
        r[i].size = v[i].size;
        r[i].autoextend = v[i].autoextend;
        r[i].status = v[i].status;
    }
    mem_free(v);
    return 0;
}

void engine_files_free(engine_file_info_t *rows) { mem_free(rows); }

/* ---------------------------------------------------------------- transactions */

int engine_trx_begin(engine_t *e, engine_trx_t **out)
{
    *out = trx_new(e, 0);
    return 0;
}

uint64_t engine_trx_id(const engine_trx_t *t) { return t->id; }

static int trx_commit(engine_trx_t *t, bool sync, uint64_t *lsn_out, bool tagged, uint64_t tag)
{
    engine_t *e = t->e;
    ASSERT(t->state == TRX_ACTIVE);
    uint64_t lsn = 0;
    int rc = 0;
    if (t->logged || tagged) {
        mtr_t m;
        mtr_start(&m, e->bp, e->redo);
        if (t->logged)
            mtr_log_commit(&m, t->id);
        if (tagged) {
            uint8_t note[CTAG_LEN];
            memcpy(note, CTAG_MAGIC, 4);
            wr64(note + 4, tag);
            mtr_log_note(&m, note, sizeof note);
        }
        pthread_mutex_lock(&t->mu);
        if (tagged) /* the tag moves with its group's append: a checkpoint sees both or neither */
            pthread_mutex_lock(&e->tag_mu);
        lsn = mtr_commit(&m);
        if (tagged) {
            e->commit_tag = tag;
            pthread_mutex_unlock(&e->tag_mu);
        }
        t->end_logged = true;
        pthread_mutex_unlock(&t->mu);
    }
    t->state = TRX_COMMITTED;
    /* Leaving the active list and taking a commit number happen together, so a view made afterwards both sees
     * this trx and is younger than its versions (purge relies on it). */
    pthread_mutex_lock(&e->trx_mu);
    trx_unlink_locked(e, t);
    uint64_t commit_no = ++e->commit_seq;
    vstore_commit(e->vs, &t->vsl, commit_no);
    pthread_mutex_unlock(&e->trx_mu);
    bool purge_now = t->did_delete;
    /* Locks go before the wait for durability: a later transaction that reads our rows commits after us in
     * the log, so it cannot become durable without us. */
    trx_free(t);
    __atomic_add_fetch(&e->n_commit, 1, __ATOMIC_RELAXED);
    if (lsn && sync && e->o.flush_mode != ENGINE_FLUSH_LAZY)
        rc = redo_flush(e->redo, lsn, e->o.flush_mode == ENGINE_FLUSH_SYNC);
    if (purge_now)
        purge_run(e);
    if (lsn_out)
        *lsn_out = lsn;
    return rc;
}

int engine_trx_commit(engine_trx_t *t) { return trx_commit(t, true, NULL, false, 0); }
int engine_trx_commit_nosync(engine_trx_t *t, uint64_t *commit_lsn)
{
    return trx_commit(t, false, commit_lsn, false, 0);
}
int engine_trx_commit_tagged(engine_trx_t *t, uint64_t tag, uint64_t *commit_lsn)
{
    return trx_commit(t, false, commit_lsn, true, tag);
}
int engine_commit_tag_set(engine_t *e, uint64_t tag)
{
    if (e->o.read_only)
        return ENGINE_EREADONLY;
    uint8_t note[CTAG_LEN];
    memcpy(note, CTAG_MAGIC, 4);
    wr64(note + 4, tag);
    mtr_t m;
    mtr_start(&m, e->bp, e->redo);
    mtr_log_note(&m, note, sizeof note);
    pthread_mutex_lock(&e->tag_mu);
    uint64_t lsn = mtr_commit(&m);
    e->commit_tag = tag;
    pthread_mutex_unlock(&e->tag_mu);
    return redo_flush(e->redo, lsn, true);
}

uint64_t engine_commit_tag(engine_t *e)
{
    pthread_mutex_lock(&e->tag_mu);
    uint64_t v = e->commit_tag;
    pthread_mutex_unlock(&e->tag_mu);
    return v;
}
int engine_log_sync(engine_t *e, uint64_t lsn) { return lsn ? redo_flush(e->redo, lsn, true) : 0; }
uint64_t engine_log_lsn(engine_t *e) { return redo_current_lsn(e->redo); }

int engine_trx_prepare(engine_trx_t *t, const void *xid, size_t len, uint64_t *prepare_lsn)
{
    engine_t *e = t->e;
    ASSERT(t->state == TRX_ACTIVE && !t->prepared);
    if (len > 1024)
        return ENGINE_EINVAL;
    if (e->o.read_only)
        return ENGINE_EREADONLY;
    uint64_t lsn = 0;
    buf_reset(&t->xid);
    buf_append(&t->xid, xid, len);
    pthread_mutex_lock(&t->mu); /* the checkpointer copies prepared trx forward with their PREPARE record */
    if (t->logged) {
        mtr_t m;
        mtr_start(&m, e->bp, e->redo);
        mtr_log_prepare(&m, t->id, xid, (uint16_t)len);
        lsn = mtr_commit(&m);
    }
    t->prepared = true;
    pthread_mutex_unlock(&t->mu);
    if (prepare_lsn)
        *prepare_lsn = lsn;
    return 0;
}

int engine_xa_recover(engine_t *e, engine_xa_cb cb, void *ctx)
{
    int n = 0;
    pthread_mutex_lock(&e->trx_mu);
    for (engine_trx_t *t = e->active; t; t = t->next)
        if (t->recovered) {
            cb(ctx, t->id, t->xid.data, t->xid.len);
            n++;
        }
    pthread_mutex_unlock(&e->trx_mu);
    return n;
}

static engine_trx_t *recovered_trx(engine_t *e, uint64_t id)
{
    engine_trx_t *r = NULL;
    pthread_mutex_lock(&e->trx_mu);
    for (engine_trx_t *t = e->active; t && !r; t = t->next)
        if (t->recovered && t->id == id) {
            t->recovered = false; /* claimed */
            r = t;
        }
    pthread_mutex_unlock(&e->trx_mu);
    return r;
}

int engine_xa_commit(engine_t *e, uint64_t trx_id)
{
    if (e->o.read_only) /* its COMMIT would be written: it stays prepared */
        return ENGINE_EREADONLY;
    engine_trx_t *t = recovered_trx(e, trx_id);
    return t ? engine_trx_commit(t) : STRATA_ENOTFOUND;
}

int engine_xa_rollback(engine_t *e, uint64_t trx_id)
{
    if (e->o.read_only)
        return ENGINE_EREADONLY;
    engine_trx_t *t = recovered_trx(e, trx_id);
    return t ? engine_trx_rollback(t) : STRATA_ENOTFOUND;
}

/* ---------------------------------------------------------------- stuck rollbacks
 *
 * A rollback that cannot finish (an undo record the undo file will not give back, a tree change that fails on a
 * full disk or a read error) must not log ROLLBACK: that would make what it could not undo look committed, to
 * readers now and to recovery after a restart.  So the transaction stays active, owned by the engine (its
 * caller is told the rollback failed and forgets it): its row locks stay, its undo stays in the log and is carried
 * by every checkpoint, every view keeps seeing the rows as they were before it, and the background thread tries
 * the rest of its rollback again at every tick until it finishes (then it ends as any rollback does).  A restart
 * before that finds it without an end and rolls it back in recovery.  Strata_rollbacks_pending counts them. */

/* Undoes what is left of t and ends it; a failure leaves it stuck (above).  The caller's thread, or the
 * background thread for a stuck one. */
static int trx_rollback_run(engine_t *e, engine_trx_t *t)
{
    bool wrote = t->logged;
    int rc = trx_undo_to(e, t, 0);
    if (rc) {
        if (!t->stuck) {
            log_error("engine: trx %llu is not rolled back (%d): it keeps its locks and its %zu undo record(s) "
                      "left, and its rollback is tried again until it finishes (or by recovery after a restart)",
                      (unsigned long long)t->id, rc, t->nundo);
            if (t->has_view)
                view_close(e, t); /* it reads nothing more; purge must not wait for its view */
            t->lo.kill = NULL;    /* its session's flag: that session is gone */
            t->retry_us = 500000;
            t->retry_at = time_mono_us() + t->retry_us;
            pthread_mutex_lock(&e->trx_mu);
            t->stuck = true;
            atomic_fetch_add(&e->n_stuck, 1);
            pthread_mutex_unlock(&e->trx_mu);
        }
        return rc;
    }
    if (t->stuck) {
        log_note("engine: the rollback of trx %llu has finished", (unsigned long long)t->id);
        pthread_mutex_lock(&e->trx_mu);
        atomic_fetch_sub(&e->n_stuck, 1);
        pthread_mutex_unlock(&e->trx_mu);
    }
    /* The cells are restored, but a reader may have copied one of ours just before: its versions stay, queued
     * for purge like a commit's, until every view open now has ended. */
    pthread_mutex_lock(&e->trx_mu);
    vstore_commit(e->vs, &t->vsl, ++e->commit_seq);
    pthread_mutex_unlock(&e->trx_mu);
    if (wrote) {
        mtr_t m;
        mtr_start(&m, e->bp, e->redo);
        mtr_log_rollback(&m, t->id);
        pthread_mutex_lock(&t->mu);
        mtr_commit(&m);
        t->end_logged = true;
        pthread_mutex_unlock(&t->mu);
    }
    t->state = TRX_ROLLED_BACK;
    trx_free(t);
    __atomic_add_fetch(&e->n_rollback, 1, __ATOMIC_RELAXED);
    return 0;
}

int engine_trx_rollback(engine_trx_t *t)
{
    ASSERT(t->state == TRX_ACTIVE && !t->stuck);
    return trx_rollback_run(t->e, t);
}

/* The background thread's retry of every stuck rollback.  Only this thread ends a stuck trx, so it stays valid
 * once found. */
static void stuck_retry(engine_t *e)
{
    if (!atomic_load(&e->n_stuck))
        return;
    engine_trx_t *todo[16];
    size_t n = 0;
    pthread_mutex_lock(&e->trx_mu);
    uint64_t now = time_mono_us();
    for (engine_trx_t *t = e->active; t && n < 16; t = t->next)
        if (t->stuck && now >= t->retry_at)
            todo[n++] = t;
    pthread_mutex_unlock(&e->trx_mu);
    for (size_t i = 0; i < n; i++) {
        engine_trx_t *t = todo[i];
        if (trx_rollback_run(e, t)) {
            /* still failing: each failure has logged its cause, so the tries thin out */
            t->retry_us = MIN(t->retry_us * 2, 32000000u);
            t->retry_at = time_mono_us() + t->retry_us;
        }
    }
}

/* ---------------------------------------------------------------- trees */

/* Creates a tree and its directory entry with the given flags, durable at return. */
static int tree_create(engine_t *e, uint32_t space_id, uint32_t flags, engine_tree_id_t *tree)
{
    int rc = log_free_check(e);
    if (rc)
        return rc;
    pthread_mutex_lock(&e->ddl);
    uint64_t id = e->next_tree_id++;
    mtr_t m;
    page_id_t root;
    mtr_start(&m, e->bp, e->redo);
    rc = btree_create(e->fs, &m, space_id, id, &root);
    if (!rc) {
        uint8_t k[8], v[16];
        key_be64(k, id);
        wr32(v, space_id);
        wr64(v + 4, root);
        wr32(v + 12, flags);
        rc = btree_write(e->dir, &m, BT_INSERT, k, 8, v, 16, 0, NULL, NULL, NULL);
        if (rc)
            log_error("engine: tree %llu created but not entered in the directory (%d)", (unsigned long long)id, rc);
    }
    uint64_t lsn = mtr_commit(&m);
    if (!rc)
        rc = redo_flush(e->redo, lsn, true);
    if (!rc) {
        trees_put(e, btree_handle(e->fs, e->bp, e->redo, id, root), space_id);
        *tree = id;
    }
    pthread_mutex_unlock(&e->ddl);
    return rc;
}

int engine_tree_create(engine_trx_t *trx, engine_t *e, uint32_t space_id, engine_tree_id_t *tree)
{
    (void)trx;
    return tree_create(e, space_id, 0, tree);
}

int engine_tree_drop(engine_trx_t *trx, engine_t *e, engine_tree_id_t tree)
{
    btree_t *t;
    int rc = log_free_check(e);
    if (rc || (rc = tree_get(e, tree, &t)))
        return rc;
    pthread_mutex_lock(&e->ddl);
    mtr_t m;
    uint8_t k[8];
    key_be64(k, tree);
    mtr_start(&m, e->bp, e->redo);
    rc = btree_delete(e->dir, &m, k, 8, NULL, NULL, BT_DEL_PHYSICAL, 0);
    if (!rc)
        rc = btree_destroy(t, &m);
    uint64_t lsn = mtr_commit(&m);
    if (!rc)
        rc = redo_flush(e->redo, lsn, true);
    if (!rc)
        trees_remove(e, tree);
    pthread_mutex_unlock(&e->ddl);
    return rc;
}

/* ---------------------------------------------------------------- bulk load (engine.h)
 *
 * The tree of a bulk load is entered in the directory with DIR_FLAG_BUILDING, which engine_bulk_finish clears
 * once every page of the load is durable; a start-up finds a tree still marked only after a crash during its
 * build and drops it (drop_unfinished), so no half-built tree outlives the crash.  The pages go through the
 * buffer pool and the redo log as full page images (btree.c), one mtr per page, with the log-space check between
 * pages: a build is bounded by neither the pool nor the log. */

#define DIR_FLAG_BUILDING 1u

struct engine_bulk {
    engine_t *e;
    engine_tree_id_t id;
    btree_bulk_t b;
};

static int dir_set_flags(engine_t *e, engine_tree_id_t id, uint32_t flags)
{
    uint8_t k[8];
    buf_t v;
    buf_init(&v);
    int rc = dir_entry_get(e, id, k, &v);
    if (rc == 0) {
        wr32(v.data + 12, flags);
        mtr_t m;
        mtr_start(&m, e->bp, e->redo);
        rc = btree_write(e->dir, &m, BT_UPDATE, k, 8, v.data, 16, 0, NULL, NULL, NULL);
        uint64_t lsn = mtr_commit(&m);
        if (!rc)
            rc = redo_flush(e->redo, lsn, true);
    }
    buf_free(&v);
    return rc;
}

int engine_bulk_begin(engine_t *e, uint32_t space_id, engine_bulk_t **out)
{
    engine_bulk_t *b = mem_calloc(1, sizeof *b);
    b->e = e;
    btree_t *t;
    int rc = tree_create(e, space_id, DIR_FLAG_BUILDING, &b->id);
    if (!rc && (rc = tree_get(e, b->id, &t)) != 0)
        engine_tree_drop(NULL, e, b->id);
    if (rc) {
        mem_free(b);
        return rc;
    }
    /* leaves 15/16 full, as InnoDB's sorted index build leaves room for later inserts */
    btree_bulk_init(&b->b, t, 94, rb_log_check, e);
    *out = b;
    return 0;
}

engine_tree_id_t engine_bulk_tree(const engine_bulk_t *b) { return b->id; }

int engine_bulk_add(engine_bulk_t *b, const void *key, size_t klen, const void *val, size_t vlen)
{
    return btree_bulk_add(&b->b, key, klen, val, vlen);
}

int engine_bulk_finish(engine_bulk_t *b)
{
    engine_t *e = b->e;
    int rc = btree_bulk_finish(&b->b);
    if (!rc)
        rc = redo_flush(e->redo, redo_current_lsn(e->redo), true);
    if (!rc)
        rc = dir_set_flags(e, b->id, 0);
    if (rc) {
        engine_bulk_abort(b);
        return rc;
    }
    btree_bulk_free(&b->b);
    mem_free(b);
    return 0;
}

void engine_bulk_abort(engine_bulk_t *b)
{
    btree_bulk_free(&b->b);
    int rc = engine_tree_drop(NULL, b->e, b->id);
    if (rc)
        log_error("engine: tree %llu of a failed bulk load not dropped (%d); dropped at the next start",
                  (unsigned long long)b->id, rc);
    mem_free(b);
}

/* Start-up: drops the trees a crash left half-built (still marked DIR_FLAG_BUILDING). */
static int drop_unfinished(engine_t *e)
{
    uint64_t *ids = NULL;
    size_t n = 0, cap = 0;
    btree_cur_t c;
    btree_cur_init(&c, e->dir);
    int rc = btree_cur_seek(&c, NULL, 0, BT_FIRST);
    for (; rc == 0; rc = btree_cur_next(&c)) {
        if (c.key.len != 8 || c.val.len != 16 || !(rd32(c.val.data + 12) & DIR_FLAG_BUILDING))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            ids = mem_realloc(ids, cap * sizeof *ids);
        }
        ids[n++] = be64_key(c.key.data);
    }
    btree_cur_free(&c);
    rc = rc == STRATA_ENOTFOUND ? 0 : rc;
    for (size_t i = 0; i < n && !rc; i++) {
        log_note("engine: dropping tree %llu, whose build a crash interrupted", (unsigned long long)ids[i]);
        rc = engine_tree_drop(NULL, e, ids[i]);
    }
    mem_free(ids);
    return rc;
}

int engine_tree_stats(engine_t *e, engine_tree_id_t tree, uint64_t *pages, uint64_t *extents)
{
    uint32_t ext = 0;
    int64_t p = seg_used_pages(e->fs, tree, &ext);
    if (p < 0)
        return STRATA_ENOTFOUND;
    *pages = (uint64_t)p;
    *extents = ext;
    return 0;
}

/* ---------------------------------------------------------------- rows */

/* A transaction whose undo may be spilled (invariant 5: at least 1/16 of the log) makes sure, before its change,
 * that the undo file already holds room for what the next checkpoint would spill: every such transaction's undo
 * not yet in the file, this change's record, and a step ahead (so that the check runs once per UNDO_ROOM_STEP of
 * undo, not per row).  A full disk then fails the change (1021) before anything is changed, and the checkpoint, and
 * so the log tail and every rollback, never wait for space. */
#define UNDO_ROOM_STEP (512u << 10)
static int undo_room_reserve(engine_t *e, engine_trx_t *t, size_t add)
{
    uint64_t big = redo_capacity(e->redo) / 16;
    uint64_t total = undo_total_now(t);
    if ((!t->spilled && total + add < big) || total + add < t->undo_reserved_at + UNDO_ROOM_STEP)
        return 0;
    uint64_t need = add + UNDO_SPILL_REC_OVERHEAD + 2 * UNDO_ROOM_STEP;
    pthread_mutex_lock(&e->trx_mu);
    for (engine_trx_t *x = e->active; x; x = x->next) {
        pthread_mutex_lock(&x->mu);
        if (x->spilled || undo_total(x) >= big) {
            size_t from = MAX(MIN(x->nspilled, x->nundo), x->base);
            need += x->undo.len - (from < x->nundo ? x->offs[from - x->base] : x->undo.len) +
                    (uint64_t)(x->nundo - from) * UNDO_SPILL_REC_OVERHEAD;
        }
        pthread_mutex_unlock(&x->mu);
    }
    pthread_mutex_unlock(&e->trx_mu);
    int rc = undo_spill_reserve(e->undo, need);
    if (rc) {
        /* The file may hold only the spill of transactions that have ended: after a checkpoint that names no
         * spill the next one starts the file over (undo.h), so one checkpoint can make the room. */
        checkpoint(e, 0);
        rc = undo_spill_reserve(e->undo, need);
    }
    if (!rc)
        t->undo_reserved_at = total + add;
    return rc;
}

/* ---------------------------------------------------------------- implicit insert locks
 *
 * A transaction that has taken ELIDE_AFTER record locks joins the elide registry; from then on each key it
 * inserts keeps no lock entry once the key is in its tree (lock_insert_end_implicit): the cell's writer id says
 * the key is locked while the writer is active, as InnoDB's implicit locks, so an INSERT ... SELECT or LOAD DATA
 * of a million rows holds ELIDE_AFTER entries, not a million.  The rule that makes this safe: every request for a
 * record lock (rec_lock, ins_lock) first reads the key's cell and, when its writer is in the registry, makes the
 * writer's lock explicit (lock_convert) before asking for its own, so it waits for the writer as before; a drop
 * between that read and the request moves the partition's drop epoch and the request is read again (lock.h).  A
 * writer leaves the registry when it has ended (committed, or rolled back: trx_free), before its locks are given
 * back, so no lock is ever made explicit for a transaction that no longer runs.  Undo of an implicitly locked
 * insert of an absent key removes its cell, which unlocks it at once, as InnoDB's rollback of an insert does: the
 * rollback takes no lock for it, so a rollback of a million inserts needs no memory for them.  That is safe
 * because such an insert pushed no version, and undo only changes a cell whose writer is still the undoing trx
 * (trx_undo_to): a key that went on to another transaction after its undo is never undone again, by a retried
 * rollback or by recovery.  An implicitly locked put over an existing cell did push the version it replaced,
 * which stays on the key's chain until the trx ends; its undo locks the key explicitly, so no other writer comes
 * between that version and the trx's end.
 * Short transactions never register: they pay nothing, and neither does anybody's lock request while nobody is
 * registered (n_eliders == 0). */
#define ELIDE_AFTER 1024u

static void elide_register(engine_t *e, engine_trx_t *t)
{
    pthread_mutex_lock(&e->elide_mu);
    if (e->neliders == e->capeliders) {
        e->capeliders = e->capeliders ? e->capeliders * 2 : 8;
        e->eliders = mem_realloc(e->eliders, e->capeliders * sizeof *e->eliders);
    }
    e->eliders[e->neliders++] = t;
    atomic_fetch_add(&e->n_eliders, 1);
    t->eliding = true;
    pthread_mutex_unlock(&e->elide_mu);
}

static void elide_unregister(engine_t *e, engine_trx_t *t)
{
    pthread_mutex_lock(&e->elide_mu);
    for (size_t i = 0; i < e->neliders; i++)
        if (e->eliders[i] == t) {
            e->eliders[i] = e->eliders[--e->neliders];
            atomic_fetch_sub(&e->n_eliders, 1);
            break;
        }
    t->eliding = false;
    pthread_mutex_unlock(&e->elide_mu);
}

/* The rule above: when (tree, key)'s cell was written by another registered transaction, its implicit lock
 * becomes explicit. */
static int implicit_convert(engine_trx_t *t, uint64_t tree, const void *key, size_t klen)
{
    engine_t *e = t->e;
    if (!atomic_load(&e->n_eliders))
        return 0;
    btree_t *bt;
    if (tree_get(e, tree, &bt))
        return 0; /* no such tree: nothing in it is locked implicitly */
    uint64_t w = 0;
    bt_before_t st = BT_BEFORE_ABSENT;
    int rc = btree_get_ex(bt, key, klen, NULL, &w, &st); /* the writer only: no value copied */
    if (rc == STRATA_ENOTFOUND || (!rc && !w))
        return 0;
    if (rc)
        return rc; /* the cell cannot be read: whether it is locked is unknown, so the request fails */
    /* The writer's own request too: a key it locks implicitly becomes explicit first, so its request is never a
     * fresh lock (a shared one would not stop others' converts; READ COMMITTED would give a fresh one back). */
    pthread_mutex_lock(&e->elide_mu);
    for (size_t i = 0; i < e->neliders; i++)
        if (e->eliders[i]->id == w) {
            lock_convert(e->locks, &e->eliders[i]->lo, tree, key, klen);
            break;
        }
    pthread_mutex_unlock(&e->elide_mu);
    return 0;
}

/* A record lock (insert: an insert's intention check and record lock, lock_insert_begin_ex), under the rule
 * above. */
static int lock_key(engine_trx_t *t, uint64_t tree, const void *key, size_t klen, lock_mode_t m, bool *fresh,
                    bool insert, bool stop_at_shared)
{
    engine_t *e = t->e;
    for (;;) {
        uint64_t ep = lock_drop_epoch(e->locks, tree, key, klen);
        int rc = implicit_convert(t, tree, key, klen);
        if (rc)
            return rc;
        rc = insert ? lock_insert_begin_at(e->locks, &t->lo, tree, key, klen, trx_wait_us(t), stop_at_shared, ep)
                    : lock_acquire_at(e->locks, &t->lo, tree, key, klen, m, trx_wait_us(t), fresh, ep);
        if (rc != LOCK_RETRY)
            return rc;
    }
}

static int rec_lock(engine_trx_t *t, uint64_t tree, const void *key, size_t klen, lock_mode_t m, bool *fresh)
{
    return lock_key(t, tree, key, klen, m, fresh, false, false);
}

static int ins_lock(engine_trx_t *t, uint64_t tree, const void *key, size_t klen, bool stop_at_shared)
{
    return lock_key(t, tree, key, klen, LOCK_X, NULL, true, stop_at_shared);
}

/* After an insert's tree write: its record lock stays explicit, or, for a registered transaction (one that has
 * just passed ELIDE_AFTER joins), becomes implicit. */
static void ins_done(engine_trx_t *t, int write_rc)
{
    engine_t *e = t->e;
    if (write_rc == 0 && t->lo.ins_entry && !t->eliding && t->lo.nheld >= ELIDE_AFTER)
        elide_register(e, t);
    if (write_rc == 0 && t->eliding)
        lock_insert_end_implicit(e->locks, &t->lo);
    else
        lock_insert_end(e->locks, &t->lo);
}

static int row_write(engine_trx_t *t, engine_tree_id_t tree, bt_mode_t mode, const void *key, size_t klen,
                     const void *val, size_t vlen, bool del)
{
    engine_t *e = t->e;
    btree_t *bt;
    ASSERT(t->state == TRX_ACTIVE);
    if (klen > ENGINE_MAX_KEY || vlen > ENGINE_MAX_VALUE)
        return ENGINE_EINVAL;
    int rc = tree_get(e, tree, &bt);
    if (rc || (rc = log_free_check(e)))
        return rc;
    /* A transaction's undo is carried by the checkpointer into the undo file of the logfile group (undo.h), so
     * it is bounded by that file's room (or undo_max_bytes for the default, autoextending one), not by the log. */
    if (undo_total_now(t) + (uint64_t)(t->nundo + 1) * UNDO_SPILL_REC_OVERHEAD + klen + vlen + UNDO_HDR +
            UNDO_SPILL_SLACK >
        undo_spill_capacity(e->undo))
        return ENGINE_ELOGFULL;
    if ((rc = undo_room_reserve(e, t, UNDO_HDR + klen + vlen)))
        return rc;
    /* A key that may be new: the insert-intention check against other transactions' gap locks, then its X lock;
     * the insert counts as in flight (lock.h) until the tree holds it. */
    bool ins = !del && mode != BT_UPDATE;
    if (ins)
        rc = ins_lock(t, tree, key, klen, mode == BT_INSERT);
    else
        rc = rec_lock(t, tree, key, klen, LOCK_X, NULL);
    if (rc == LOCK_INSERT_SHARED) {
        /* Readers hold the key shared, so it exists (or existed): as InnoDB, a duplicate is reported under a
         * shared lock of the existing row rather than after waiting for those readers (1062, not 1205). */
        buf_t cur;
        buf_init(&cur);
        int g = btree_get(bt, key, klen, &cur);
        buf_free(&cur);
        if (g == 0) {
            rc = rec_lock(t, tree, key, klen, LOCK_S, NULL);
            return rc ? rc : ENGINE_EDUPKEY;
        }
        rc = ins_lock(t, tree, key, klen, false);
    }
    if (rc)
        return rc;
    if (!t->first_lsn) {
        pthread_mutex_lock(&e->trx_mu);
        t->first_lsn = redo_current_lsn(e->redo);
        pthread_mutex_unlock(&e->trx_mu);
    }
    undo_ctx_t u = {.trx = t, .tree = tree, .key = key, .klen = klen, .is_delete = del};
    bt_hook_t hook = {.fn = undo_hook, .ctx = &u};
    if (del) {
        rc = btree_delete(bt, NULL, key, klen, NULL, &hook, BT_DEL_MARK, t->id);
        if (!rc)
            t->did_delete = true;
        return rc;
    }
    rc = btree_write(bt, NULL, mode, key, klen, val, vlen, t->id, NULL, NULL, &hook);
    if (ins)
        ins_done(t, rc);
    return rc;
}

int engine_insert(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, const void *val, size_t vlen)
{
    return row_write(t, tree, BT_INSERT, key, klen, val, vlen, false);
}

int engine_update(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, const void *val,
                  size_t vlen)
{
    return row_write(t, tree, BT_UPDATE, key, klen, val, vlen, false);
}

int engine_put(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, const void *val, size_t vlen)
{
    return row_write(t, tree, BT_PUT, key, klen, val, vlen, false);
}

int engine_delete(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen)
{
    return row_write(t, tree, BT_PUT, key, klen, NULL, 0, true);
}

int engine_lock_row(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen)
{
    return rec_lock(t, tree, key, klen, LOCK_X, NULL);
}

int engine_lock_row_shared(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen)
{
    return rec_lock(t, tree, key, klen, LOCK_S, NULL);
}

int engine_get_e(engine_t *e, engine_tree_id_t tree, const void *key, size_t klen, buf_t *out)
{
    btree_t *bt;
    if (!e)
        return ENGINE_EINVAL;
    int rc = tree_get(e, tree, &bt);
    if (rc)
        return rc;
    buf_reset(out);
    return btree_get(bt, key, klen, out);
}

int engine_get(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, buf_t *out)
{
    if (!t)
        return ENGINE_EINVAL;
    if (t->iso == ENGINE_ISO_READ_UNCOMMITTED)
        return engine_get_e(t->e, tree, key, klen, out);
    btree_t *bt;
    int rc = tree_get(t->e, tree, &bt);
    if (rc)
        return rc;
    view_open(t->e, t);
    buf_t cur;
    buf_init(&cur);
    uint64_t writer = 0;
    bt_before_t st;
    rc = btree_get_ex(bt, key, klen, &cur, &writer, &st);
    if (rc == 0 || rc == STRATA_ENOTFOUND)
        rc = vstore_resolve(t->e->vs, &t->view, tree, key, klen, rc ? BT_BEFORE_ABSENT : st, &cur, writer, out)
                 ? 0
                 : STRATA_ENOTFOUND;
    buf_free(&cur);
    return rc;
}

void engine_trx_set_isolation(engine_trx_t *t, engine_isolation_t iso)
{
    t->iso = iso == ENGINE_ISO_SERIALIZABLE ? ENGINE_ISO_REPEATABLE_READ : iso;
    t->gap_locks = iso >= ENGINE_ISO_REPEATABLE_READ;
}

void engine_trx_set_lock_wait_timeout(engine_trx_t *t, uint64_t us) { t->lock_wait_us = us; }

void engine_trx_set_kill(engine_trx_t *t, _Atomic bool *kill) { t->lo.kill = kill; }

void engine_kick(engine_t *e, _Atomic bool *kill)
{
    if (e && kill)
        lock_kick(e->locks, kill);
}

uint64_t engine_trx_savepoint(engine_trx_t *t)
{
    return t->nundo; /* only the trx's own thread changes nundo (the checkpointer reads it under mu) */
}

void engine_trx_undo_bytes(engine_trx_t *t, uint64_t *in_memory, uint64_t *total)
{
    pthread_mutex_lock(&t->mu);
    *in_memory = t->undo.len;
    *total = undo_total(t);
    pthread_mutex_unlock(&t->mu);
}

int engine_trx_rollback_to(engine_trx_t *t, uint64_t sp)
{
    ASSERT(t->state == TRX_ACTIVE);
    if (sp >= t->nundo) /* (the caller is the trx's own thread, which alone changes nundo) */
        return 0;
    if (t->prepared)
        return ENGINE_EINVAL; /* a prepared trx changes nothing more, so this is a caller's mistake */
    /* The versions its changes pushed stay on their chains until the trx ends (a reader may have copied one), and
     * its row locks stay as InnoDB's do after ROLLBACK TO SAVEPOINT. */
    return trx_undo_to(t->e, t, (size_t)sp);
}

void engine_trx_statement_start(engine_trx_t *t)
{
    if (t->iso == ENGINE_ISO_READ_COMMITTED && t->has_view)
        view_close(t->e, t);
}

void engine_trx_open_view(engine_trx_t *t)
{
    if (t->iso != ENGINE_ISO_READ_UNCOMMITTED)
        view_open(t->e, t);
}

void engine_set_lock_wait_timeout(engine_t *e, uint64_t us) { e->lock_wait_us = us; }

void engine_set_lock_wait_hook(engine_t *e, bool (*hook)(void *arg, uint64_t waiter_trx, uint64_t holder_trx),
                               void *arg)
{
    lock_set_wait_hook(e->locks, hook, arg);
}

/* ---------------------------------------------------------------- cursors */

int engine_cursor_open(engine_trx_t *t, engine_tree_id_t tree, engine_cursor_t **out)
{
    btree_t *bt;
    int rc = tree_get(t->e, tree, &bt);
    if (rc)
        return rc;
    engine_cursor_t *c = mem_calloc(1, sizeof *c);
    c->trx = t;
    btree_cur_init(&c->c, bt);
    btree_cur_init(&c->nb, bt);
    c->nb.raw = true;
    buf_init(&c->vis);
    buf_init(&c->lo);
    buf_init(&c->hi);
    buf_init(&c->from);
    buf_init(&c->k);
    buf_init(&c->tmp);
    c->mvcc = t->iso != ENGINE_ISO_READ_UNCOMMITTED;
    c->c.raw = c->mvcc;
    *out = c;
    return 0;
}

/* After a positioning step rc, moves on in direction dir until the row is one the trx's view sees. */
static int cur_visible(engine_cursor_t *c, int rc, int dir)
{
    if (!c->mvcc)
        return rc;
    engine_trx_t *t = c->trx;
    while (rc == 0) {
        if (vstore_resolve(t->e->vs, &t->view, c->c.t->id, c->c.key.data, c->c.key.len,
                           c->c.delmarked ? BT_BEFORE_DELMARKED : BT_BEFORE_PRESENT, &c->c.val, c->c.trx, &c->vis))
            return 0;
        rc = dir > 0 ? btree_cur_next(&c->c) : btree_cur_prev(&c->c);
    }
    return rc;
}

/* The view must exist before a cell is read: a cell copied earlier could predate a commit the view sees. */
static void cur_view(engine_cursor_t *c)
{
    if (c->mvcc)
        view_open(c->trx->e, c->trx);
}

/* ---------------------------------------------------------------- locking reads */

static bool buf_eq(const buf_t *a, const buf_t *b)
{
    return a->len == b->len && (!a->len || memcmp(a->data, b->data, a->len) == 0);
}

/* Key k against a prefix: keys that begin with p compare equal. */
static int prefix_cmp(const void *k, size_t kl, const buf_t *p)
{
    size_t n = MIN(kl, p->len);
    int r = n ? memcmp(k, p->data, n) : 0;
    if (r)
        return r;
    return kl < p->len ? -1 : 0;
}

static lock_mode_t lmode_of(engine_lock_mode_t m) { return m == ENGINE_LOCK_SHARED ? LOCK_S : LOCK_X; }

int engine_lock_key(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, engine_lock_mode_t mode)
{
    engine_t *e = t->e;
    btree_t *bt;
    if (mode != ENGINE_LOCK_SHARED && mode != ENGINE_LOCK_EXCLUSIVE)
        return ENGINE_EINVAL;
    int rc = tree_get(e, tree, &bt);
    if (rc)
        return rc;
    lock_mode_t m = lmode_of(mode);
    buf_t v, lok, inflight;
    buf_init(&v);
    buf_init(&lok);
    buf_init(&inflight);
    btree_cur_t nb;
    btree_cur_init(&nb, bt);
    nb.raw = true;
    bool held = false;
    for (;;) {
        uint64_t epoch = lock_insert_epoch(e->locks, tree);
        bt_before_t st = BT_BEFORE_ABSENT;
        uint64_t w;
        rc = btree_get_ex(bt, key, klen, &v, &w, &st);
        if (rc && rc != STRATA_ENOTFOUND)
            break;
        if (rc == 0 && !held) {
            /* there is a cell (live, or delete-marked by a trx that may still roll back): lock it, look again */
            if ((rc = rec_lock(t, tree, key, klen, m, NULL)))
                break;
            held = true;
            continue;
        }
        if (rc == 0 && st != BT_BEFORE_DELMARKED)
            break; /* the row exists and is locked: the record alone, as InnoDB's unique search */
        rc = STRATA_ENOTFOUND;
        if (!t->gap_locks)
            break;
        /* no row: lock the gap it would go into, between its neighbours */
        lock_bound_t lo = {.inf = true}, hi = {.inf = true};
        int n = btree_cur_seek(&nb, key, klen, BT_LT);
        if (n && n != STRATA_ENOTFOUND) {
            rc = n;
            break;
        }
        if (n == 0) {
            buf_reset(&lok);
            buf_append(&lok, nb.key.data, nb.key.len);
            lo = (lock_bound_t){lok.data, lok.len, false};
        }
        n = btree_cur_seek(&nb, key, klen, BT_GT);
        if (n && n != STRATA_ENOTFOUND) {
            rc = n;
            break;
        }
        if (n == 0)
            hi = (lock_bound_t){nb.key.data, nb.key.len, false};
        int g = lock_gap(e->locks, &t->lo, tree, lo, hi, m, epoch, NULL, &inflight);
        if (g == LOCK_GAP_INFLIGHT) {
            if ((rc = rec_lock(t, tree, inflight.data, inflight.len, m, NULL)))
                break;
            continue;
        }
        if (g == LOCK_GAP_STALE)
            continue;
        rc = STRATA_ENOTFOUND;
        break;
    }
    btree_cur_free(&nb);
    buf_free(&v);
    buf_free(&lok);
    buf_free(&inflight);
    return rc;
}

int engine_cursor_lock(engine_cursor_t *c, engine_lock_mode_t mode, const void *lo, size_t lolen, const void *hi,
                       size_t hilen, bool unique)
{
    if (mode != ENGINE_LOCK_SHARED && mode != ENGINE_LOCK_EXCLUSIVE)
        return ENGINE_EINVAL;
    c->lmode = lmode_of(mode);
    c->gaps = c->trx->gap_locks;
    c->unique = unique;
    c->mvcc = false;
    c->c.raw = true;
    c->has_lo = lo && lolen;
    c->has_hi = hi && hilen;
    buf_reset(&c->lo);
    buf_reset(&c->hi);
    if (c->has_lo)
        buf_append(&c->lo, lo, lolen);
    if (c->has_hi)
        buf_append(&c->hi, hi, hilen);
    return 0;
}

/* Is k past the scan's end when moving in direction dir? */
static bool lcur_beyond(const engine_cursor_t *c, const void *k, size_t kl, int dir)
{
    if (dir > 0)
        return c->has_hi && prefix_cmp(k, kl, &c->hi) > 0;
    return c->has_lo && prefix_cmp(k, kl, &c->lo) < 0;
}

/*
 * Moves a locking cursor to the next row in direction dir (how/key as btree_cur_seek) and locks it.
 * step: the move starts from the row the cursor stands on (key is that row's, how BT_GT or BT_LT), so the gap
 * runs from that row to the one found; otherwise the gap runs from the row found back to its neighbour (InnoDB's
 * next-key lock: a record is locked with the gap before it), except on an exact GE/LE match (a unique key found:
 * the record alone).  Running off the tree locks the gap to infinity (InnoDB's supremum).  The first row past the
 * scan's end is locked with its gap at REPEATABLE READ (the next-key lock that closes the range; the gap alone
 * after a unique equality) and not at all at READ COMMITTED, and is not returned.  Rows delete-marked once
 * locked are passed over.
 */
static int lcur_move(engine_cursor_t *c, bt_seek_t how, const void *key, size_t klen, bool step)
{
    engine_trx_t *t = c->trx;
    engine_t *e = t->e;
    uint64_t tree = c->c.t->id;
    int dir = how == BT_GE || how == BT_GT || how == BT_FIRST ? 1 : -1;
    bool has_from = how != BT_FIRST && how != BT_LAST;
    buf_reset(&c->from);
    if (has_from && klen)
        buf_append(&c->from, key, klen);
    for (;;) {
        uint64_t epoch = lock_insert_epoch(e->locks, tree);
        int rc;
        if (step && c->c.state == BTCUR_ON_ROW && buf_eq(&c->c.key, &c->from))
            rc = dir > 0 ? btree_cur_next(&c->c) : btree_cur_prev(&c->c); /* resumes on its leaf when unchanged */
        else
            rc = btree_cur_seek(&c->c, has_from ? c->from.data : NULL, c->from.len, how);
        if (rc && rc != STRATA_ENOTFOUND)
            return rc;
        bool found = rc == 0;
        buf_reset(&c->k);
        if (found)
            buf_append(&c->k, c->c.key.data, c->c.key.len);
        bool beyond = found && lcur_beyond(c, c->k.data, c->k.len, dir);
        bool exact = found && !step && (how == BT_GE || how == BT_LE) && buf_eq(&c->k, &c->from);
        if (c->gaps && !exact) {
            lock_bound_t other = {.inf = true};
            if (step) {
                other = (lock_bound_t){c->from.data, c->from.len, false};
            } else {
                int n = found ? btree_cur_seek(&c->nb, c->k.data, c->k.len, dir > 0 ? BT_LT : BT_GT)
                              : btree_cur_seek(&c->nb, NULL, 0, dir > 0 ? BT_LAST : BT_FIRST);
                if (n && n != STRATA_ENOTFOUND)
                    return n;
                if (n == 0)
                    other = (lock_bound_t){c->nb.key.data, c->nb.key.len, false};
            }
            lock_bound_t here = found ? (lock_bound_t){c->k.data, c->k.len, false} : (lock_bound_t){.inf = true};
            int g = lock_gap(e->locks, &t->lo, tree, dir > 0 ? other : here, dir > 0 ? here : other, c->lmode, epoch,
                             &c->gap, &c->tmp);
            if (g == LOCK_GAP_INFLIGHT) {
                /* another trx's insert is landing inside: wait for it as for a row of its, then look again */
                if ((rc = rec_lock(t, tree, c->tmp.data, c->tmp.len, c->lmode, NULL)))
                    return rc;
                continue;
            }
            if (g == LOCK_GAP_STALE)
                continue; /* an insert finished since the keys were read: read them again (the gap stays) */
        }
        if (!found || (beyond && (!c->gaps || c->unique))) {
            c->c.state = BTCUR_UNPOSITIONED;
            return STRATA_ENOTFOUND;
        }
        if ((rc = rec_lock(t, tree, c->k.data, c->k.len, c->lmode, &c->took_lock)))
            return rc;
        if (beyond) {
            c->c.state = BTCUR_UNPOSITIONED;
            return STRATA_ENOTFOUND;
        }
        /* locked: its latest state is final for this trx (what the cursor read, when its leaf did not change) */
        bt_before_t st = BT_BEFORE_ABSENT;
        uint64_t writer = 0;
        if (btree_cur_unchanged(&c->c)) {
            rc = 0;
            st = c->c.delmarked ? BT_BEFORE_DELMARKED : BT_BEFORE_PRESENT;
            writer = c->c.trx;
            buf_reset(&c->tmp);
            buf_append(&c->tmp, c->c.val.data, c->c.val.len);
        } else {
            rc = btree_get_ex(c->c.t, c->k.data, c->k.len, &c->tmp, &writer, &st);
        }
        if (rc && rc != STRATA_ENOTFOUND)
            return rc;
        if (rc == STRATA_ENOTFOUND || st == BT_BEFORE_DELMARKED) {
            buf_reset(&c->from);
            buf_append(&c->from, c->k.data, c->k.len);
            how = dir > 0 ? BT_GT : BT_LT;
            has_from = step = true;
            continue;
        }
        buf_reset(&c->c.key);
        buf_append(&c->c.key, c->k.data, c->k.len);
        buf_reset(&c->c.val);
        buf_append(&c->c.val, c->tmp.data, c->tmp.len);
        c->c.trx = writer;
        c->c.delmarked = false;
        c->c.state = BTCUR_ON_ROW;
        return 0;
    }
}

void engine_cursor_unlock(engine_cursor_t *c)
{
    if (!c->lmode || c->gaps || !c->took_lock || c->c.state != BTCUR_ON_ROW)
        return;
    lock_release(c->trx->e->locks, &c->trx->lo, c->c.t->id, c->c.key.data, c->c.key.len);
    c->took_lock = false;
}

static int lcur_step(engine_cursor_t *c, int dir)
{
    if (c->c.state != BTCUR_ON_ROW)
        return STRATA_ENOTFOUND;
    return lcur_move(c, dir > 0 ? BT_GT : BT_LT, c->c.key.data, c->c.key.len, true);
}

int engine_cursor_seek(engine_cursor_t *c, const void *key, size_t klen, engine_seek_t how)
{
    static const bt_seek_t map[] = {BT_GE, BT_GT, BT_LE, BT_LT};
    if ((unsigned)how > ENGINE_SEEK_LT)
        return ENGINE_EINVAL;
    if (c->lmode)
        return lcur_move(c, map[how], key, klen, false);
    cur_view(c);
    int rc = btree_cur_seek(&c->c, key, klen, map[how]);
    return cur_visible(c, rc, how == ENGINE_SEEK_GE || how == ENGINE_SEEK_GT ? 1 : -1);
}

int engine_cursor_first(engine_cursor_t *c)
{
    if (c->lmode)
        return lcur_move(c, BT_FIRST, NULL, 0, false);
    cur_view(c);
    return cur_visible(c, btree_cur_seek(&c->c, NULL, 0, BT_FIRST), 1);
}

int engine_cursor_last(engine_cursor_t *c)
{
    if (c->lmode)
        return lcur_move(c, BT_LAST, NULL, 0, false);
    cur_view(c);
    return cur_visible(c, btree_cur_seek(&c->c, NULL, 0, BT_LAST), -1);
}

int engine_cursor_next(engine_cursor_t *c)
{
    if (c->lmode)
        return lcur_step(c, 1);
    cur_view(c);
    return cur_visible(c, btree_cur_next(&c->c), 1);
}

int engine_cursor_prev(engine_cursor_t *c)
{
    if (c->lmode)
        return lcur_step(c, -1);
    cur_view(c);
    return cur_visible(c, btree_cur_prev(&c->c), -1);
}

const void *engine_cursor_key(const engine_cursor_t *c, size_t *len)
{
    *len = c->c.state == BTCUR_ON_ROW ? c->c.key.len : 0;
    return c->c.state == BTCUR_ON_ROW ? c->c.key.data : NULL;
}

const void *engine_cursor_value(const engine_cursor_t *c, size_t *len)
{
    const buf_t *v = c->mvcc ? &c->vis : &c->c.val;
    *len = c->c.state == BTCUR_ON_ROW ? v->len : 0;
    return c->c.state == BTCUR_ON_ROW ? v->data : NULL;
}

void engine_cursor_close(engine_cursor_t *c)
{
    if (!c)
        return;
    btree_cur_free(&c->c);
    btree_cur_free(&c->nb);
    buf_free(&c->vis);
    buf_free(&c->lo);
    buf_free(&c->hi);
    buf_free(&c->from);
    buf_free(&c->k);
    buf_free(&c->tmp);
    mem_free(c);
}

/* ---------------------------------------------------------------- monitoring and checking */

void engine_stats(engine_t *e, engine_stats_t *st)
{
    memset(st, 0, sizeof *st);
    bpool_stats_t b;
    bpool_stats(e->bp, &b);
    st->pool_pages = b.frames;
    st->pool_free = b.free_frames;
    st->pool_dirty = b.dirty;
    st->pool_reads = b.reads;
    st->pool_writes = b.writes;
    st->pool_hits = b.hits;
    st->pool_misses = b.misses;
    redo_stats_t r;
    redo_stats(e->redo, &r);
    st->log_lsn = redo_current_lsn(e->redo);
    st->log_flushed_lsn = redo_flushed_lsn(e->redo);
    st->log_checkpoint_lsn = redo_last_ckpt(e->redo)->ckpt_lsn;
    st->log_capacity = redo_capacity(e->redo);
    st->log_syncs = r.syncs;
    st->log_groups = r.groups;
    st->log_waits = r.waits;
    st->checkpoints = e->n_ckpt;
    st->trx_committed = e->n_commit;
    st->trx_rolled_back = e->n_rollback;
    st->lock_waits = lock_waits(e->locks);
    lock_wait_stats(e->locks, &st->lock_waiting, &st->lock_wait_us, &st->lock_wait_max_us);
    st->lock_deadlocks = lock_deadlocks(e->locks);
    st->lock_entries = lock_entries(e->locks);
    st->rollbacks_pending = atomic_load(&e->n_stuck);
    st->mvcc_versions = vstore_size(e->vs);
    st->purged_rows = e->n_purged;
    st->rebalance_extents_moved = e->rb_extents_moved;
    st->rebalance_extents_pending = e->rb_pending;
    st->rebalance_pages_moved = e->rb_pages_moved;
}

typedef struct {
    engine_salvage_cb entry;
    engine_salvage_lost_cb lost;
    void *ctx;
} salvage_t;

static void salvage_entry(void *ctx, const uint8_t *k, uint32_t kl, const uint8_t *v, size_t vl)
{
    salvage_t *s = ctx;
    s->entry(s->ctx, k, kl, v, vl);
}

static void salvage_bad(void *ctx, page_id_t page, const uint8_t *lo, uint32_t lol, const uint8_t *hi, uint32_t hil)
{
    salvage_t *s = ctx;
    char name[48];
    if (page != PAGE_ID_NONE)
        snprintf(name, sizeof name, "%u:%u:%u", page_id_space(page), page_id_file(page), page_id_pgno(page));
    s->lost(s->ctx, page != PAGE_ID_NONE ? name : NULL, lo, lol, hi, hil);
}

int engine_tree_salvage(engine_t *e, engine_tree_id_t tree, engine_salvage_cb entry, engine_salvage_lost_cb lost,
                        void *ctx)
{
    btree_t *t;
    int rc = engine_tree_handle(e, tree, &t);
    if (rc)
        return rc;
    salvage_t s = {entry, lost, ctx};
    btree_salvage(t, salvage_entry, salvage_bad, &s);
    return 0;
}

int engine_verify(engine_t *e, engine_verify_cb cb, void *ctx)
{
    /* Every tree in the directory: structure, and its page count against its segment's allocation. */
    int rc = btree_verify(e->dir, NULL, NULL), bad = rc ? 1 : 0;
    btree_cur_t c;
    btree_cur_init(&c, e->dir);
    for (int r = btree_cur_seek(&c, NULL, 0, BT_FIRST); r == 0; r = btree_cur_next(&c)) {
        uint64_t id = be64_key(c.key.data);
        btree_t *t;
        uint64_t pages = 0, rows = 0;
        int trc = tree_get(e, id, &t);
        if (!trc)
            trc = btree_verify(t, &pages, &rows);
        int64_t owned = seg_used_pages(e->fs, id, NULL);
        if (cb)
            cb(ctx, id, c.val.len == 16 ? rd32(c.val.data) : 0, trc, pages, rows, owned);
        if (trc || owned < (int64_t)pages)
            bad++;
    }
    btree_cur_free(&c);
    return bad ? STRATA_ECORRUPT : 0;
}

fsys_t *engine_fsys(engine_t *e) { return e->fs; }
bpool_t *engine_bpool(engine_t *e) { return e->bp; }
int engine_tree_handle(engine_t *e, uint64_t id, btree_t **out) { return id == ENGINE_DIR_TREE ? (*out = e->dir, 0) : tree_get(e, id, out); }
uint64_t engine_dir_tree_id(void) { return ENGINE_DIR_TREE; }
void engine_purge_now(engine_t *e)
{
    if (!e->o.read_only)
        purge_run(e);
}
