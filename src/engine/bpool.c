/*
 * engine/bpool: buffer pool (see bpool.h for the policy).  The frames are split among partitions; a page's
 * partition is fixed by its id's hash.  Each partition's mutex protects its hash table, LRU sublists, free list,
 * and the pin counts and dirty flags of the frames it owns; page contents are protected by each frame's rwlock
 * latch.  A partition mutex is a leaf: never held across I/O, while waiting for a latch, or together with another
 * partition's mutex.  A frame is only latched while pinned, and only frames with pin == 0 are evicted, so eviction
 * never waits on a latch.
 *
 * Moving a frame between partitions (a partition with every frame pinned steals one): the donor, under its own
 * mutex, takes an unpinned clean frame off its lists and hash, marks it FREE and sets its owner to the thief; the
 * thief then adds it to its own lists under its mutex.  Code that walks all frames (flush, discard, stats) locks
 * the owner it read and re-reads the owner under that lock, so it always holds the mutex of the frame's owner.
 */
#include "engine/bpool.h"

#include <stdlib.h>

#include "util/fio.h"
#include "util/util.h"

#define BPOOL_MAX_PARTS 16
#define BPOOL_MIN_PART_FRAMES 64 /* fewer frames than this per partition: fewer partitions */

typedef struct {
    bframe_t *head, *tail;
    uint32_t len;
} flist_t;

typedef struct {
    _Alignas(64) pthread_mutex_t mu;
    bframe_t **hash;
    uint32_t hmask;
    uint32_t nframes; /* frames this partition owns now */
    flist_t young, old, free;
    bpool_stats_t st; /* counters only */
} bpart_t;

struct bpool {
    uint32_t page_size, nframes;
    uint32_t nparts, part_shift;
    bpool_io_t io;
    bframe_t *frames;
    uint8_t *mem;
    bpart_t *parts;
    uint64_t old_time_us;
    bool recovery;
    bool read_only;  /* nothing is written: dirty frames (replayed redo) are never evicted nor flushed */
};

static void fl_remove(flist_t *l, bframe_t *f)
{
    if (f->prev)
        f->prev->next = f->next;
    else
        l->head = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        l->tail = f->prev;
    f->prev = f->next = NULL;
    l->len--;
}

static void fl_push_head(flist_t *l, bframe_t *f)
{
    f->prev = NULL;
    f->next = l->head;
    if (l->head)
        l->head->prev = f;
    else
        l->tail = f;
    l->head = f;
    l->len++;
}

static uint64_t page_hash(page_id_t id) { return id * 0x9e3779b97f4a7c15ull; }

/* The partition of a page: the hash's top bits (the slot inside the partition uses bits 32 and up). */
static bpart_t *part_of(const bpool_t *bp, page_id_t id)
{
    return &bp->parts[bp->nparts > 1 ? page_hash(id) >> bp->part_shift : 0];
}

static uint32_t frame_part_no(const bframe_t *f) { return __atomic_load_n(&f->part, __ATOMIC_ACQUIRE); }

/* The owner of a frame the caller has pinned (a pinned frame never moves). */
static bpart_t *pinned_part(const bpool_t *bp, const bframe_t *f) { return &bp->parts[frame_part_no(f)]; }

/* Locks the partition that owns f, whether or not f is pinned, and returns it. */
static bpart_t *lock_owner(bpool_t *bp, const bframe_t *f)
{
    for (;;) {
        uint32_t n = frame_part_no(f);
        pthread_mutex_lock(&bp->parts[n].mu);
        if (frame_part_no(f) == n)
            return &bp->parts[n];
        pthread_mutex_unlock(&bp->parts[n].mu);
    }
}

static uint32_t hslot(const bpart_t *p, page_id_t id) { return (uint32_t)(page_hash(id) >> 32) & p->hmask; }

static bframe_t *hfind(bpart_t *p, page_id_t id)
{
    for (bframe_t *f = p->hash[hslot(p, id)]; f; f = f->hnext)
        if (f->id == id)
            return f;
    return NULL;
}

static void hinsert(bpart_t *p, bframe_t *f)
{
    uint32_t s = hslot(p, f->id);
    f->hnext = p->hash[s];
    p->hash[s] = f;
}

static void hremove(bpart_t *p, bframe_t *f)
{
    bframe_t **pp = &p->hash[hslot(p, f->id)];
    while (*pp != f)
        pp = &(*pp)->hnext;
    *pp = f->hnext;
    f->hnext = NULL;
}

/* Takes a hashed, unpinned frame out of its partition's hash and LRU sublist: it becomes FREE, on no list. */
static void frame_forget(bpart_t *p, bframe_t *f)
{
    hremove(p, f);
    fl_remove(f->old ? &p->old : &p->young, f);
    f->state = FRAME_FREE;
    f->id = PAGE_ID_NONE;
    f->old = false;
}

bpool_t *bpool_create(uint32_t nframes, uint32_t page_size, const bpool_io_t *io)
{
    if (nframes < 8)
        nframes = 8;
    bpool_t *bp = mem_calloc(1, sizeof *bp);
    bp->page_size = page_size;
    bp->nframes = nframes;
    bp->io = *io;
    bp->old_time_us = 1000000;
    bp->nparts = 1;
    while (bp->nparts < BPOOL_MAX_PARTS && nframes / (bp->nparts * 2) >= BPOOL_MIN_PART_FRAMES)
        bp->nparts *= 2;
    uint32_t bits = 0;
    while ((1u << bits) < bp->nparts)
        bits++;
    bp->part_shift = 64 - bits;
    bp->frames = mem_calloc(nframes, sizeof(bframe_t));
    if (posix_memalign((void **)&bp->mem, FIO_DIRECT_ALIGN, (size_t)nframes * page_size) ||
        posix_memalign((void **)&bp->parts, 64, bp->nparts * sizeof(bpart_t)))
        ASSERT(!"out of memory for the buffer pool");
    memset(bp->parts, 0, bp->nparts * sizeof(bpart_t));
    uint32_t per = nframes / bp->nparts;
    for (uint32_t i = 0; i < bp->nparts; i++) {
        bpart_t *p = &bp->parts[i];
        pthread_mutex_init(&p->mu, NULL);
        uint32_t hs = 1;
        while (hs < per * 2)
            hs <<= 1;
        p->hash = mem_calloc(hs, sizeof(bframe_t *));
        p->hmask = hs - 1;
    }
    for (uint32_t i = 0; i < nframes; i++) {
        bframe_t *f = &bp->frames[i];
        uint32_t pn = i / per < bp->nparts ? i / per : bp->nparts - 1;
        f->data = bp->mem + (size_t)i * page_size;
        pthread_rwlock_init(&f->latch, NULL);
        f->id = PAGE_ID_NONE;
        f->part = pn;
        fl_push_head(&bp->parts[pn].free, f);
        bp->parts[pn].nframes++;
    }
    return bp;
}

void bpool_destroy(bpool_t *bp)
{
    if (!bp)
        return;
    for (uint32_t i = 0; i < bp->nframes; i++)
        pthread_rwlock_destroy(&bp->frames[i].latch);
    for (uint32_t i = 0; i < bp->nparts; i++) {
        mem_free(bp->parts[i].hash);
        pthread_mutex_destroy(&bp->parts[i].mu);
    }
    free(bp->parts);
    free(bp->mem);
    mem_free(bp->frames);
    mem_free(bp);
}

uint32_t bpool_page_size(const bpool_t *bp) { return bp->page_size; }
void bpool_set_old_time(bpool_t *bp, uint64_t us) { bp->old_time_us = us; }
void bpool_set_recovery(bpool_t *bp, bool on) { bp->recovery = on; }
void bpool_set_read_only(bpool_t *bp, bool on) { bp->read_only = on; }

static void latch(bframe_t *f, latch_mode_t m)
{
    if (m == LATCH_S)
        pthread_rwlock_rdlock(&f->latch);
    else if (m == LATCH_X)
        pthread_rwlock_wrlock(&f->latch);
}

static void unlatch(bframe_t *f, latch_mode_t m)
{
    if (m != LATCH_NONE)
        pthread_rwlock_unlock(&f->latch);
}

/* Caps the young sublist at 5/8 of the partition, so the old sublist keeps at least 3/8 as InnoDB does. */
static void rebalance(bpart_t *p)
{
    while (p->young.len > p->nframes - p->nframes * 3 / 8) {
        bframe_t *f = p->young.tail;
        fl_remove(&p->young, f);
        f->old = true;
        fl_push_head(&p->old, f);
    }
}

/* A hit: an old page touched long enough after it arrived becomes young; a young page moves to the head. */
static void touch(bpool_t *bp, bpart_t *p, bframe_t *f)
{
    if (f->old) {
        if (time_mono_us() - f->in_us < bp->old_time_us)
            return;
        fl_remove(&p->old, f);
        f->old = false;
        fl_push_head(&p->young, f);
        p->st.young_moves++;
        rebalance(p);
    } else if (f != p->young.head) {
        fl_remove(&p->young, f);
        fl_push_head(&p->young, f);
    }
}

/* A page buffer for flush_frame's copy, aligned as the frames are: data files opened with O_DIRECT take only
 * aligned buffers.  Freed with free(). */
static uint8_t *write_buf(const bpool_t *bp)
{
    uint8_t *b = fio_direct_buf(bp->page_size);
    if (!b) {
        log_error("out of memory allocating a %u-byte page buffer", bp->page_size);
        abort();
    }
    return b;
}

/* Writes one dirty frame that the caller has pinned.  Called without any partition mutex. */
static int flush_frame(bpool_t *bp, bframe_t *f, uint8_t *tmp)
{
    bpart_t *p = pinned_part(bp, f);
    pthread_rwlock_rdlock(&f->latch);
    pthread_mutex_lock(&p->mu);
    bool dirty = f->dirty && f->state == FRAME_READY;
    f->dirty = false;
    pthread_mutex_unlock(&p->mu);
    if (!dirty) {
        pthread_rwlock_unlock(&f->latch);
        return 0;
    }
    memcpy(tmp, f->data, bp->page_size);
    pthread_rwlock_unlock(&f->latch);
    page_seal(tmp, bp->page_size);
    if (bp->io.wal)
        bp->io.wal(bp->io.wal_ctx, page_lsn(tmp));
    int rc = bp->io.write(bp->io.ctx, f->id, tmp);
    pthread_mutex_lock(&p->mu);
    if (rc)
        f->dirty = true;
    else
        p->st.writes++;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* The coldest unpinned clean frame of p (old sublist first, then young), or NULL; *dirty gets the coldest unpinned
 * dirty one.  Under p->mu. */
static bframe_t *find_victim(bpart_t *p, bframe_t **dirty)
{
    for (int pass = 0; pass < 2; pass++) {
        flist_t *l = pass == 0 ? &p->old : &p->young;
        for (bframe_t *f = l->tail; f; f = f->prev) {
            if (f->pin > 0 || f->state == FRAME_LOADING)
                continue;
            if (!f->dirty)
                return f;
            if (dirty && !*dirty)
                *dirty = f;
        }
    }
    return NULL;
}

/* For a partition with every frame pinned: a free or clean unpinned frame of another partition, handed over to
 * partition `to` (FREE, on no list; the caller adds it under its mutex).  Called without any partition mutex. */
static bframe_t *steal_frame(bpool_t *bp, uint32_t to)
{
    for (uint32_t k = 1; k < bp->nparts; k++) {
        bpart_t *q = &bp->parts[(to + k) % bp->nparts];
        pthread_mutex_lock(&q->mu);
        bframe_t *f = q->free.head;
        if (f) {
            fl_remove(&q->free, f);
        } else if ((f = find_victim(q, NULL))) {
            frame_forget(q, f);
            q->st.evictions++;
        }
        if (f) {
            q->nframes--;
            __atomic_store_n(&f->part, to, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&q->mu);
        if (f)
            return f;
    }
    return NULL;
}

/* Finds a frame to reuse in p: its free list first, then the tail of its old sublist, then of the young one, then
 * another partition's.  Called and returns with p->mu held; may drop it to write a dirty victim or to steal.
 * Returns NULL when every frame of the pool is pinned (or dirty in other partitions). */
static bframe_t *claim_frame(bpool_t *bp, bpart_t *p, int *err)
{
    uint8_t *tmp = NULL;
    bframe_t *got = NULL;
    for (int round = 0; round < 1000 && !got; round++) {
        if (p->free.head) {
            got = p->free.head;
            fl_remove(&p->free, got);
            break;
        }
        bframe_t *dirty = NULL, *victim = find_victim(p, &dirty);
        if (victim) {
            frame_forget(p, victim);
            p->st.evictions++;
            got = victim;
            break;
        }
        if (!dirty) {
            uint32_t me = (uint32_t)(p - bp->parts);
            pthread_mutex_unlock(&p->mu);
            got = bp->nparts > 1 ? steal_frame(bp, me) : NULL;
            pthread_mutex_lock(&p->mu);
            if (got) {
                p->nframes++;
                p->st.steals++;
            }
            break;
        }
        if (bp->read_only) { /* the replayed pages must all stay in memory: the pool is full */
            *err = STRATA_ENOMEM;
            break;
        }
        /* Only dirty pages left unpinned: write the coldest one back and look again. */
        dirty->pin++;
        pthread_mutex_unlock(&p->mu);
        if (!tmp)
            tmp = write_buf(bp);
        int rc = flush_frame(bp, dirty, tmp);
        pthread_mutex_lock(&p->mu);
        dirty->pin--;
        if (rc) {
            *err = rc;
            break;
        }
    }
    free(tmp);
    if (got) {
        got->old = false;
        got->dirty = false;
        got->was_bad = false;
    }
    return got;
}

static int fix(bpool_t *bp, page_id_t id, latch_mode_t mode, bool is_new, bframe_t **out)
{
    int err = 0;
    *out = NULL;
    bpart_t *p = part_of(bp, id);
    pthread_mutex_lock(&p->mu);
    bframe_t *f = hfind(p, id);
retry_hit:
    if (f) {
        f->pin++;
        p->st.hits++;
        touch(bp, p, f);
        pthread_mutex_unlock(&p->mu);
        latch(f, is_new ? LATCH_X : mode);
        if (f->state == FRAME_ERROR) {
            unlatch(f, is_new ? LATCH_X : mode);
            bpool_unfix(bp, f, LATCH_NONE);
            return STRATA_ECORRUPT;
        }
        if (is_new) {
            memset(f->data, 0, bp->page_size);
            f->was_bad = false;
        }
        *out = f;
        return 0;
    }
    p->st.misses++;
    f = claim_frame(bp, p, &err);
    if (!f) {
        pthread_mutex_unlock(&p->mu);
        if (!err) {
            log_error("buffer pool: all %u frames are pinned", bp->nframes);
            err = STRATA_ENOMEM;
        }
        return err;
    }
    /* claim_frame may have dropped the mutex to write a victim or to steal: someone else may have read our page
     * meanwhile.  Two frames must never hold one page. */
    bframe_t *other = hfind(p, id);
    if (other) {
        f->state = FRAME_FREE;
        f->id = PAGE_ID_NONE;
        fl_push_head(&p->free, f);
        f = other;
        goto retry_hit;
    }
    f->id = id;
    f->state = FRAME_LOADING;
    f->pin = 1;
    f->in_us = time_mono_us();
    f->old = true;
    hinsert(p, f);
    fl_push_head(&p->old, f);
    rebalance(p);
    int ok = pthread_rwlock_trywrlock(&f->latch);
    ASSERT(ok == 0);
    pthread_mutex_unlock(&p->mu);

    int rc = 0;
    bool bad = false;
    if (is_new) {
        memset(f->data, 0, bp->page_size);
    } else {
        rc = bp->io.read(bp->io.ctx, id, f->data);
        if (rc == 0)
            rc = page_verify(f->data, bp->page_size, id, bp->recovery);
        if (rc == STRATA_ECORRUPT && bp->recovery) {
            memset(f->data, 0, bp->page_size);
            bad = true;
            rc = 0;
        }
    }
    pthread_mutex_lock(&p->mu);
    if (!is_new)
        p->st.reads++;
    f->state = rc ? FRAME_ERROR : FRAME_READY;
    f->was_bad = bad;
    pthread_mutex_unlock(&p->mu);
    if (rc) {
        pthread_rwlock_unlock(&f->latch);
        bpool_unfix(bp, f, LATCH_NONE);
        return rc;
    }
    if (!is_new && mode != LATCH_X) {
        pthread_rwlock_unlock(&f->latch);
        latch(f, mode);
    }
    *out = f;
    return 0;
}

int bpool_fix(bpool_t *bp, page_id_t id, latch_mode_t mode, bframe_t **out) { return fix(bp, id, mode, false, out); }
int bpool_fix_new(bpool_t *bp, page_id_t id, bframe_t **out) { return fix(bp, id, LATCH_X, true, out); }

void bpool_unfix(bpool_t *bp, bframe_t *f, latch_mode_t mode)
{
    unlatch(f, mode);
    bpart_t *p = pinned_part(bp, f);
    pthread_mutex_lock(&p->mu);
    ASSERT(f->pin > 0);
    if (--f->pin == 0 && f->state == FRAME_ERROR) {
        frame_forget(p, f);
        fl_push_head(&p->free, f);
    }
    pthread_mutex_unlock(&p->mu);
}

void bpool_set_dirty(bpool_t *bp, bframe_t *f)
{
    bpart_t *p = pinned_part(bp, f);
    pthread_mutex_lock(&p->mu);
    f->dirty = true;
    f->was_bad = false;
    pthread_mutex_unlock(&p->mu);
}

int bpool_flush_all(bpool_t *bp)
{
    if (bp->read_only)
        return 0;
    uint8_t *tmp = write_buf(bp);
    int rc = 0;
    for (uint32_t i = 0; i < bp->nframes && !rc; i++) {
        bframe_t *f = &bp->frames[i];
        bpart_t *p = lock_owner(bp, f);
        if (!f->dirty || f->state != FRAME_READY) {
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        f->pin++;
        pthread_mutex_unlock(&p->mu);
        rc = flush_frame(bp, f, tmp);
        bpool_unfix(bp, f, LATCH_NONE);
    }
    free(tmp);
    return rc;
}

void bpool_discard_space(bpool_t *bp, uint32_t space)
{
    for (uint32_t i = 0; i < bp->nframes; i++) {
        bframe_t *f = &bp->frames[i];
        bpart_t *p = lock_owner(bp, f);
        if (f->state != FRAME_FREE && f->id != PAGE_ID_NONE && page_id_space(f->id) == space) {
            ASSERT(f->pin == 0);
            frame_forget(p, f);
            f->dirty = false;
            fl_push_head(&p->free, f);
        }
        pthread_mutex_unlock(&p->mu);
    }
}

bool bpool_contains(bpool_t *bp, page_id_t id)
{
    bpart_t *p = part_of(bp, id);
    pthread_mutex_lock(&p->mu);
    bool r = hfind(p, id) != NULL;
    pthread_mutex_unlock(&p->mu);
    return r;
}

void bpool_stats(bpool_t *bp, bpool_stats_t *st)
{
    memset(st, 0, sizeof *st);
    st->frames = bp->nframes;
    st->partitions = bp->nparts;
    for (uint32_t i = 0; i < bp->nparts; i++) {
        bpart_t *p = &bp->parts[i];
        pthread_mutex_lock(&p->mu);
        st->hits += p->st.hits;
        st->misses += p->st.misses;
        st->reads += p->st.reads;
        st->writes += p->st.writes;
        st->evictions += p->st.evictions;
        st->young_moves += p->st.young_moves;
        st->steals += p->st.steals;
        st->free_frames += p->free.len;
        st->young += p->young.len;
        st->old += p->old.len;
        /* every frame that can be dirty (READY) is on one of the two sublists */
        for (int l = 0; l < 2; l++)
            for (const bframe_t *f = (l ? p->young : p->old).head; f; f = f->next)
                st->dirty += f->dirty;
        pthread_mutex_unlock(&p->mu);
    }
}
