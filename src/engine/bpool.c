/*
 * engine/bpool: buffer pool (see bpool.h for the policy).  One mutex protects the hash table, the LRU sublists,
 * pin counts and dirty flags; page contents are protected by each frame's rwlock latch.  The mutex is never held
 * across I/O or while waiting for a latch.  A frame is only latched while pinned, and only frames with pin == 0
 * are evicted, so eviction never waits on a latch.
 */
#include "engine/bpool.h"

#include <stdlib.h>

#include "util/util.h"

typedef struct {
    bframe_t *head, *tail;
    uint32_t len;
} flist_t;

struct bpool {
    pthread_mutex_t mu;
    uint32_t page_size, nframes;
    bpool_io_t io;
    bframe_t *frames;
    uint8_t *mem;
    bframe_t **hash;
    uint32_t hmask;
    flist_t young, old, free;
    uint64_t old_time_us;
    bool recovery;
    bpool_stats_t st;
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

static uint32_t hslot(const bpool_t *bp, page_id_t id)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & bp->hmask;
}

static bframe_t *hfind(bpool_t *bp, page_id_t id)
{
    for (bframe_t *f = bp->hash[hslot(bp, id)]; f; f = f->hnext)
        if (f->id == id)
            return f;
    return NULL;
}

static void hinsert(bpool_t *bp, bframe_t *f)
{
    uint32_t s = hslot(bp, f->id);
    f->hnext = bp->hash[s];
    bp->hash[s] = f;
}

static void hremove(bpool_t *bp, bframe_t *f)
{
    bframe_t **pp = &bp->hash[hslot(bp, f->id)];
    while (*pp != f)
        pp = &(*pp)->hnext;
    *pp = f->hnext;
    f->hnext = NULL;
}

bpool_t *bpool_create(uint32_t nframes, uint32_t page_size, const bpool_io_t *io)
{
    if (nframes < 8)
        nframes = 8;
    bpool_t *bp = mem_calloc(1, sizeof *bp);
    pthread_mutex_init(&bp->mu, NULL);
    bp->page_size = page_size;
    bp->nframes = nframes;
    bp->io = *io;
    bp->old_time_us = 1000000;
    bp->frames = mem_calloc(nframes, sizeof(bframe_t));
    if (posix_memalign((void **)&bp->mem, 4096, (size_t)nframes * page_size))
        ASSERT(!"out of memory for the buffer pool");
    uint32_t hs = 1;
    while (hs < nframes * 2)
        hs <<= 1;
    bp->hash = mem_calloc(hs, sizeof(bframe_t *));
    bp->hmask = hs - 1;
    for (uint32_t i = 0; i < nframes; i++) {
        bframe_t *f = &bp->frames[i];
        f->data = bp->mem + (size_t)i * page_size;
        pthread_rwlock_init(&f->latch, NULL);
        f->id = PAGE_ID_NONE;
        fl_push_head(&bp->free, f);
    }
    return bp;
}

void bpool_destroy(bpool_t *bp)
{
    if (!bp)
        return;
    for (uint32_t i = 0; i < bp->nframes; i++)
        pthread_rwlock_destroy(&bp->frames[i].latch);
    free(bp->mem);
    mem_free(bp->frames);
    mem_free(bp->hash);
    pthread_mutex_destroy(&bp->mu);
    mem_free(bp);
}

uint32_t bpool_page_size(const bpool_t *bp) { return bp->page_size; }
void bpool_set_old_time(bpool_t *bp, uint64_t us) { bp->old_time_us = us; }
void bpool_set_recovery(bpool_t *bp, bool on) { bp->recovery = on; }

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

/* Caps the young sublist at 5/8 of the pool, so the old sublist keeps at least 3/8 as InnoDB does. */
static void rebalance(bpool_t *bp)
{
    while (bp->young.len > bp->nframes - bp->nframes * 3 / 8) {
        bframe_t *f = bp->young.tail;
        fl_remove(&bp->young, f);
        f->old = true;
        fl_push_head(&bp->old, f);
    }
}

/* A hit: an old page touched long enough after it arrived becomes young; a young page moves to the head. */
static void touch(bpool_t *bp, bframe_t *f)
{
    if (f->old) {
        if (time_mono_us() - f->in_us < bp->old_time_us)
            return;
        fl_remove(&bp->old, f);
        f->old = false;
        fl_push_head(&bp->young, f);
        bp->st.young_moves++;
        rebalance(bp);
    } else if (f != bp->young.head) {
        fl_remove(&bp->young, f);
        fl_push_head(&bp->young, f);
    }
}

/* Writes one dirty frame that the caller has pinned.  Called without the mutex. */
static int flush_frame(bpool_t *bp, bframe_t *f, uint8_t *tmp)
{
    pthread_rwlock_rdlock(&f->latch);
    pthread_mutex_lock(&bp->mu);
    bool dirty = f->dirty && f->state == FRAME_READY;
    f->dirty = false;
    pthread_mutex_unlock(&bp->mu);
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
    pthread_mutex_lock(&bp->mu);
    if (rc)
        f->dirty = true;
    else
        bp->st.writes++;
    pthread_mutex_unlock(&bp->mu);
    return rc;
}

/* Finds a frame to reuse: the free list first, then the tail of the old sublist, then of the young one.  Called
 * and returns with the mutex held; may drop it to write a dirty victim.  Returns NULL when every frame is pinned. */
static bframe_t *claim_frame(bpool_t *bp, int *err)
{
    uint8_t *tmp = NULL;
    bframe_t *got = NULL;
    for (int round = 0; round < 1000 && !got; round++) {
        if (bp->free.head) {
            got = bp->free.head;
            fl_remove(&bp->free, got);
            break;
        }
        bframe_t *victim = NULL, *dirty = NULL;
        for (int pass = 0; pass < 2 && !victim; pass++) {
            flist_t *l = pass == 0 ? &bp->old : &bp->young;
            for (bframe_t *f = l->tail; f; f = f->prev) {
                if (f->pin > 0 || f->state == FRAME_LOADING)
                    continue;
                if (f->dirty) {
                    if (!dirty)
                        dirty = f;
                    continue;
                }
                victim = f;
                break;
            }
        }
        if (victim) {
            fl_remove(victim->old ? &bp->old : &bp->young, victim);
            hremove(bp, victim);
            bp->st.evictions++;
            got = victim;
            break;
        }
        if (!dirty)
            break;
        /* Only dirty pages left unpinned: write the coldest one back and look again. */
        dirty->pin++;
        pthread_mutex_unlock(&bp->mu);
        if (!tmp)
            tmp = mem_alloc(bp->page_size);
        int rc = flush_frame(bp, dirty, tmp);
        pthread_mutex_lock(&bp->mu);
        dirty->pin--;
        if (rc) {
            *err = rc;
            break;
        }
    }
    if (tmp)
        mem_free(tmp);
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
    pthread_mutex_lock(&bp->mu);
    bframe_t *f = hfind(bp, id);
retry_hit:
    if (f) {
        f->pin++;
        bp->st.hits++;
        touch(bp, f);
        pthread_mutex_unlock(&bp->mu);
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
    bp->st.misses++;
    f = claim_frame(bp, &err);
    if (!f) {
        pthread_mutex_unlock(&bp->mu);
        if (!err) {
            log_error("buffer pool: all %u frames are pinned", bp->nframes);
            err = STRATA_ENOMEM;
        }
        return err;
    }
    /* claim_frame may have dropped the mutex to write a victim: someone else may have read our page meanwhile.
     * Two frames must never hold one page. */
    bframe_t *other = hfind(bp, id);
    if (other) {
        f->state = FRAME_FREE;
        f->id = PAGE_ID_NONE;
        fl_push_head(&bp->free, f);
        f = other;
        goto retry_hit;
    }
    f->id = id;
    f->state = FRAME_LOADING;
    f->pin = 1;
    f->in_us = time_mono_us();
    f->old = true;
    hinsert(bp, f);
    fl_push_head(&bp->old, f);
    rebalance(bp);
    int ok = pthread_rwlock_trywrlock(&f->latch);
    ASSERT(ok == 0);
    pthread_mutex_unlock(&bp->mu);

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
    pthread_mutex_lock(&bp->mu);
    if (!is_new)
        bp->st.reads++;
    f->state = rc ? FRAME_ERROR : FRAME_READY;
    f->was_bad = bad;
    pthread_mutex_unlock(&bp->mu);
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
    pthread_mutex_lock(&bp->mu);
    ASSERT(f->pin > 0);
    if (--f->pin == 0 && f->state == FRAME_ERROR) {
        hremove(bp, f);
        fl_remove(f->old ? &bp->old : &bp->young, f);
        f->state = FRAME_FREE;
        f->id = PAGE_ID_NONE;
        fl_push_head(&bp->free, f);
    }
    pthread_mutex_unlock(&bp->mu);
}

void bpool_set_dirty(bpool_t *bp, bframe_t *f)
{
    pthread_mutex_lock(&bp->mu);
    f->dirty = true;
    f->was_bad = false;
    pthread_mutex_unlock(&bp->mu);
}

int bpool_flush_all(bpool_t *bp)
{
    uint8_t *tmp = mem_alloc(bp->page_size);
    int rc = 0;
    for (uint32_t i = 0; i < bp->nframes && !rc; i++) {
        bframe_t *f = &bp->frames[i];
        pthread_mutex_lock(&bp->mu);
        if (!f->dirty || f->state != FRAME_READY) {
            pthread_mutex_unlock(&bp->mu);
            continue;
        }
        f->pin++;
        pthread_mutex_unlock(&bp->mu);
        rc = flush_frame(bp, f, tmp);
        bpool_unfix(bp, f, LATCH_NONE);
    }
    mem_free(tmp);
    return rc;
}

void bpool_discard_space(bpool_t *bp, uint32_t space)
{
    pthread_mutex_lock(&bp->mu);
    for (uint32_t i = 0; i < bp->nframes; i++) {
        bframe_t *f = &bp->frames[i];
        if (f->state == FRAME_FREE || f->id == PAGE_ID_NONE || page_id_space(f->id) != space)
            continue;
        ASSERT(f->pin == 0);
        hremove(bp, f);
        fl_remove(f->old ? &bp->old : &bp->young, f);
        f->state = FRAME_FREE;
        f->dirty = false;
        f->id = PAGE_ID_NONE;
        fl_push_head(&bp->free, f);
    }
    pthread_mutex_unlock(&bp->mu);
}

bool bpool_contains(bpool_t *bp, page_id_t id)
{
    pthread_mutex_lock(&bp->mu);
    bool r = hfind(bp, id) != NULL;
    pthread_mutex_unlock(&bp->mu);
    return r;
}

void bpool_stats(bpool_t *bp, bpool_stats_t *st)
{
    pthread_mutex_lock(&bp->mu);
    *st = bp->st;
    st->frames = bp->nframes;
    st->free_frames = bp->free.len;
    st->young = bp->young.len;
    st->old = bp->old.len;
    st->dirty = 0;
    for (uint32_t i = 0; i < bp->nframes; i++)
        st->dirty += bp->frames[i].dirty;
    pthread_mutex_unlock(&bp->mu);
}
