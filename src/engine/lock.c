/*
 * engine/lock: record and gap locks with waits, timeouts and deadlock detection (see lock.h for the rules).
 * A record entry lists its holders (one X holder, or any number of S holders) and its waiters; entries live in a
 * hash by (tree, key).  Gaps live in per-tree lists (lock_tree_t, a hash by tree id) together with the inserts
 * waiting on them; a tree entry is freed when it has neither.  In-flight inserts are a short array (one per
 * inserting thread at most).  A waiter re-checks whenever something it waits on is released; the deadlock search
 * walks waiter -> its blockers -> what they wait for, depth-first, with a step bound.
 */
#include "util/blocking.h"
#include "engine/lock.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/page.h"
#include "util/util.h"

#define LOCK_BUCKETS 4096
#define TREE_BUCKETS 256
#define EPOCH_BUCKETS 1024
#define DEADLOCK_STEPS 100000
#define MAX_BLOCKERS 64

struct lock_entry {
    uint64_t tree;
    uint32_t hash;
    size_t klen;
    uint8_t *key;
    lock_owner_t *x;          /* exclusive holder, or NULL */
    lock_owner_t **s;         /* shared holders */
    uint32_t ns, caps;
    lock_owner_t **waiters;
    uint32_t nwaiters, wcap;
    lock_entry_t *next;       /* bucket chain */
};

/* A gap: the open interval (lo, hi) of one tree's keys, held by one owner. */
struct lock_gap {
    lock_tree_t *tt;
    lock_owner_t *owner;
    lock_mode_t mode;         /* kept for diagnostics: gaps never conflict with gaps */
    uint8_t *lo, *hi;         /* owned copies (meaningless with the inf flag) */
    size_t lolen, hilen, locap, hicap;
    bool lo_inf, hi_inf;
    lock_gap_t *tnext;        /* the tree's gaps */
    lock_gap_t *onext;        /* the owner's gaps */
};

struct lock_tree {
    uint64_t id;
    lock_gap_t *gaps;
    lock_owner_t **waiters;   /* inserts waiting on this tree's gaps */
    uint32_t nwaiters, wcap;
    lock_tree_t *next;
};

struct lock_sys {
    pthread_mutex_t mu;
    lock_entry_t *b[LOCK_BUCKETS];
    lock_tree_t *trees[TREE_BUCKETS];
    lock_owner_t **inflight;
    uint32_t ninflight, capinflight;
    _Atomic uint64_t epoch[EPOCH_BUCKETS];
    uint64_t waits, deadlocks;
    uint64_t waiting;         /* owners in wait_for now */
    uint64_t wait_us, wait_max_us; /* time spent in wait_for: total and the longest wait */
};

lock_sys_t *lock_sys_create(void)
{
    lock_sys_t *ls = mem_calloc(1, sizeof *ls);
    pthread_mutex_init(&ls->mu, NULL);
    return ls;
}

static void entry_free(lock_entry_t *e)
{
    mem_free(e->key);
    mem_free(e->s);
    mem_free(e->waiters);
    mem_free(e);
}

static void gap_free(lock_gap_t *g)
{
    mem_free(g->lo);
    mem_free(g->hi);
    mem_free(g);
}

void lock_sys_destroy(lock_sys_t *ls)
{
    if (!ls)
        return;
    for (int i = 0; i < LOCK_BUCKETS; i++)
        while (ls->b[i]) {
            lock_entry_t *e = ls->b[i];
            ls->b[i] = e->next;
            entry_free(e);
        }
    for (int i = 0; i < TREE_BUCKETS; i++)
        while (ls->trees[i]) {
            lock_tree_t *tt = ls->trees[i];
            ls->trees[i] = tt->next;
            while (tt->gaps) {
                lock_gap_t *g = tt->gaps;
                tt->gaps = g->tnext;
                gap_free(g);
            }
            mem_free(tt->waiters);
            mem_free(tt);
        }
    mem_free(ls->inflight);
    pthread_mutex_destroy(&ls->mu);
    mem_free(ls);
}

void lock_owner_init(lock_owner_t *o, uint64_t trx_id)
{
    memset(o, 0, sizeof *o);
    o->trx_id = trx_id;
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&o->cond, &a);
    pthread_condattr_destroy(&a);
}

void lock_owner_destroy(lock_owner_t *o)
{
    pthread_cond_destroy(&o->cond);
    mem_free(o->held);
    o->held = NULL;
}

static uint32_t khash(uint64_t tree, const void *key, size_t klen)
{
    return crc32c((uint32_t)tree * 2654435761u, key, klen);
}

static int keycmp(const void *a, size_t al, const void *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (al < bl ? -1 : al > bl);
}

static void push_owner(lock_owner_t ***arr, uint32_t *n, uint32_t *cap, lock_owner_t *o)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        *arr = mem_realloc(*arr, *cap * sizeof(lock_owner_t *));
    }
    (*arr)[(*n)++] = o;
}

static void remove_owner(lock_owner_t **arr, uint32_t *n, const lock_owner_t *o)
{
    for (uint32_t i = 0; i < *n; i++)
        if (arr[i] == o) {
            memmove(&arr[i], &arr[i + 1], (*n - i - 1) * sizeof(lock_owner_t *));
            (*n)--;
            return;
        }
}

/* ---------------------------------------------------------------- record entries */

static void unlink_entry(lock_sys_t *ls, lock_entry_t *e)
{
    lock_entry_t **pp = &ls->b[e->hash % LOCK_BUCKETS];
    while (*pp != e)
        pp = &(*pp)->next;
    *pp = e->next;
    entry_free(e);
}

static bool holds_s(const lock_entry_t *e, const lock_owner_t *o)
{
    for (uint32_t i = 0; i < e->ns; i++)
        if (e->s[i] == o)
            return true;
    return false;
}

/* Can o have e in mode m right now? */
static bool compatible(const lock_entry_t *e, const lock_owner_t *o, lock_mode_t m)
{
    if (e->x && e->x != o)
        return false;
    if (m == LOCK_S)
        return true;
    return e->ns == 0 || (e->ns == 1 && e->s[0] == o);
}

/* e is new to o (held in neither mode): no search, or a big scan's locks would cost n^2 */
static void add_held(lock_owner_t *o, lock_entry_t *e)
{
    if (o->nheld == o->capheld) {
        o->capheld = o->capheld ? o->capheld * 2 : 8;
        o->held = mem_realloc(o->held, o->capheld * sizeof(lock_entry_t *));
    }
    o->held[o->nheld++] = e;
}

static void grant(lock_entry_t *e, lock_owner_t *o, lock_mode_t m)
{
    bool had = holds_s(e, o); /* (an X holder never gets here) */
    if (m == LOCK_X)
        e->x = o;
    else if (!had)
        push_owner(&e->s, &e->ns, &e->caps, o);
    if (!had)
        add_held(o, e);
}

/* ---------------------------------------------------------------- gaps */

static lock_tree_t *tree_find(lock_sys_t *ls, uint64_t id, bool create)
{
    lock_tree_t **pp = &ls->trees[id % TREE_BUCKETS];
    for (lock_tree_t *t = *pp; t; t = t->next)
        if (t->id == id)
            return t;
    if (!create)
        return NULL;
    lock_tree_t *t = mem_calloc(1, sizeof *t);
    t->id = id;
    t->next = *pp;
    *pp = t;
    return t;
}

/* Frees a tree entry that has no gap and no waiter left. */
static void tree_maybe_free(lock_sys_t *ls, lock_tree_t *tt)
{
    if (tt->gaps || tt->nwaiters)
        return;
    lock_tree_t **pp = &ls->trees[tt->id % TREE_BUCKETS];
    while (*pp != tt)
        pp = &(*pp)->next;
    *pp = tt->next;
    mem_free(tt->waiters);
    mem_free(tt);
}

static bool gap_covers(const lock_gap_t *g, const void *key, size_t klen)
{
    return (g->lo_inf || keycmp(g->lo, g->lolen, key, klen) < 0) &&
           (g->hi_inf || keycmp(key, klen, g->hi, g->hilen) < 0);
}

static bool bound_covers(lock_bound_t lo, lock_bound_t hi, const void *key, size_t klen)
{
    return (lo.inf || keycmp(lo.key, lo.len, key, klen) < 0) && (hi.inf || keycmp(key, klen, hi.key, hi.len) < 0);
}

/* Is some lower bound (a) at or below some upper bound (b)?  Then the intervals they close touch or overlap. */
static bool lo_le_hi(bool a_inf, const void *a, size_t al, bool b_inf, const void *b, size_t bl)
{
    return a_inf || b_inf || keycmp(a, al, b, bl) <= 0;
}

/* A scan moves one end of its gap at every row: the buffer is reused. */
static void set_bound(uint8_t **dst, size_t *dlen, size_t *dcap, bool *dinf, lock_bound_t b)
{
    *dinf = b.inf;
    *dlen = 0;
    if (b.inf)
        return;
    if (!*dst || *dcap < b.len) {
        *dcap = b.len < 32 ? 32 : b.len;
        mem_free(*dst);
        *dst = mem_alloc(*dcap);
    }
    if (b.len)
        memcpy(*dst, b.key, b.len);
    *dlen = b.len;
}

/* A gap of an owner other than o covering key in tt, or NULL. */
static lock_gap_t *gap_blocking(const lock_tree_t *tt, const lock_owner_t *o, const void *key, size_t klen)
{
    for (lock_gap_t *g = tt ? tt->gaps : NULL; g; g = g->tnext)
        if (g->owner != o && gap_covers(g, key, klen))
            return g;
    return NULL;
}

uint64_t lock_insert_epoch(lock_sys_t *ls, uint64_t tree)
{
    return atomic_load(&ls->epoch[tree % EPOCH_BUCKETS]);
}

int lock_gap(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, lock_bound_t lo, lock_bound_t hi, lock_mode_t mode,
             uint64_t epoch, lock_gap_t **hint, buf_t *inflight)
{
    int rc = 0;
    pthread_mutex_lock(&ls->mu);
    /* an insert of another trx that passed its check but may not be in the tree yet, inside the interval */
    for (uint32_t i = 0; i < ls->ninflight; i++) {
        lock_owner_t *p = ls->inflight[i];
        if (p != o && p->ins_tree == tree && bound_covers(lo, hi, p->ins_key, p->ins_klen)) {
            buf_reset(inflight);
            buf_append(inflight, p->ins_key, p->ins_klen);
            rc = LOCK_GAP_INFLIGHT;
            goto out;
        }
    }
    lock_gap_t *g = hint ? *hint : NULL;
    if (g && (g->owner != o || g->tt->id != tree))
        g = NULL;
    if (g && lo_le_hi(lo.inf, lo.key, lo.len, g->hi_inf, g->hi, g->hilen) &&
        lo_le_hi(g->lo_inf, g->lo, g->lolen, hi.inf, hi.key, hi.len)) {
        /* touches or overlaps the scan's gap: widen it (the key between two touching gaps is the scan's row,
         * record-locked already, so covering it too changes nothing for inserts of other keys) */
        if (!g->lo_inf && (lo.inf || keycmp(lo.key, lo.len, g->lo, g->lolen) < 0))
            set_bound(&g->lo, &g->lolen, &g->locap, &g->lo_inf, lo);
        if (!g->hi_inf && (hi.inf || keycmp(hi.key, hi.len, g->hi, g->hilen) > 0))
            set_bound(&g->hi, &g->hilen, &g->hicap, &g->hi_inf, hi);
        if (mode > g->mode)
            g->mode = mode;
    } else {
        lock_tree_t *tt = tree_find(ls, tree, true);
        g = mem_calloc(1, sizeof *g);
        g->tt = tt;
        g->owner = o;
        g->mode = mode;
        set_bound(&g->lo, &g->lolen, &g->locap, &g->lo_inf, lo);
        set_bound(&g->hi, &g->hilen, &g->hicap, &g->hi_inf, hi);
        g->tnext = tt->gaps;
        tt->gaps = g;
        g->onext = o->gaps;
        o->gaps = g;
    }
    if (hint)
        *hint = g;
    if (atomic_load(&ls->epoch[tree % EPOCH_BUCKETS]) != epoch)
        rc = LOCK_GAP_STALE;
out:
    pthread_mutex_unlock(&ls->mu);
    return rc;
}

/* Do owners other than o hold key's record lock in S mode only (nobody else in X)?  Under ls->mu. */
static bool shared_by_others(lock_sys_t *ls, const lock_owner_t *o, uint64_t tree, const void *key, size_t klen)
{
    uint32_t h = khash(tree, key, klen);
    for (const lock_entry_t *e = ls->b[h % LOCK_BUCKETS]; e; e = e->next)
        if (e->hash == h && e->tree == tree && e->klen == klen && (!klen || !memcmp(e->key, key, klen)))
            return (!e->x || e->x == o) && (e->ns > 1 || (e->ns == 1 && e->s[0] != o));
    return false;
}

bool lock_gap_covers(lock_sys_t *ls, const lock_owner_t *o, uint64_t tree, const void *key, size_t klen)
{
    pthread_mutex_lock(&ls->mu);
    bool r = gap_blocking(tree_find(ls, tree, false), o, key, klen) != NULL;
    pthread_mutex_unlock(&ls->mu);
    return r;
}

uint32_t lock_gap_count(lock_sys_t *ls, const lock_owner_t *o)
{
    uint32_t n = 0;
    pthread_mutex_lock(&ls->mu);
    for (const lock_gap_t *g = o->gaps; g; g = g->onext)
        n++;
    pthread_mutex_unlock(&ls->mu);
    return n;
}

/* ---------------------------------------------------------------- waiting and deadlocks */

/* The owners w waits for right now. */
static uint32_t blockers_of(const lock_owner_t *w, lock_owner_t **out)
{
    uint32_t n = 0;
    if (w->wait == LOCK_WAIT_RECORD) {
        const lock_entry_t *e = w->waiting_for;
        if (e->x && e->x != w)
            out[n++] = e->x;
        if (w->waiting_mode == LOCK_X)
            for (uint32_t i = 0; i < e->ns && n < MAX_BLOCKERS; i++)
                if (e->s[i] != w)
                    out[n++] = e->s[i];
    } else if (w->wait == LOCK_WAIT_INSERT) {
        for (const lock_gap_t *g = w->wait_tree->gaps; g && n < MAX_BLOCKERS; g = g->tnext)
            if (g->owner != w && gap_covers(g, w->wait_key, w->wait_klen))
                out[n++] = g->owner;
    }
    return n;
}

/* Does some chain of waits starting at w's blockers lead back to me? */
static bool reaches(const lock_owner_t *w, const lock_owner_t *me, int *steps)
{
    if (++*steps > DEADLOCK_STEPS)
        return false;
    lock_owner_t *b[MAX_BLOCKERS];
    uint32_t n = blockers_of(w, b);
    for (uint32_t i = 0; i < n; i++) {
        if (b[i] == me)
            return true;
        if (b[i]->wait != LOCK_WAIT_NONE && reaches(b[i], me, steps))
            return true;
    }
    return false;
}

static bool can_go(const lock_owner_t *o)
{
    if (o->wait == LOCK_WAIT_RECORD)
        return compatible(o->waiting_for, o, o->waiting_mode);
    return !gap_blocking(o->wait_tree, o, o->wait_key, o->wait_klen);
}

/* o's wait state is set: refuse a deadlock, else wait until can_go or the timeout.  Under ls->mu. */
static int wait_for(lock_sys_t *ls, lock_owner_t *o, uint64_t timeout_us)
{
    int steps = 0;
    if (reaches(o, o, &steps)) {
        ls->deadlocks++;
        return ENGINE_EDEADLOCK;
    }
    ls->waits++;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += (time_t)(timeout_us / 1000000);
    dl.tv_nsec += (long)(timeout_us % 1000000) * 1000;
    if (dl.tv_nsec >= 1000000000) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000;
    }
    int rc = 0;
    uint64_t t0 = time_mono_us();
    ls->waiting++;
    blocking_begin(); /* the worker pool may add a thread while this one waits */
    while (!can_go(o)) {
        if (pthread_cond_timedwait(&o->cond, &ls->mu, &dl) == ETIMEDOUT && !can_go(o)) {
            rc = ENGINE_ELOCKWAIT;
            break;
        }
    }
    blocking_end();
    ls->waiting--;
    uint64_t took = time_mono_us() - t0;
    ls->wait_us += took;
    ls->wait_max_us = MAX(ls->wait_max_us, took);
    return rc;
}

/* lock_acquire under ls->mu; *fresh (may be NULL) says o held the entry in neither mode before. */
static int acquire_locked(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                          lock_mode_t mode, uint64_t timeout_us, lock_entry_t **got, bool *fresh)
{
    uint32_t h = khash(tree, key, klen);
    int rc = 0;
    lock_entry_t *e = ls->b[h % LOCK_BUCKETS];
    while (e && !(e->hash == h && e->tree == tree && e->klen == klen && (!klen || !memcmp(e->key, key, klen))))
        e = e->next;
    if (!e) {
        e = mem_calloc(1, sizeof *e);
        e->tree = tree;
        e->hash = h;
        e->klen = klen;
        e->key = mem_alloc(klen ? klen : 1);
        if (klen)
            memcpy(e->key, key, klen);
        e->next = ls->b[h % LOCK_BUCKETS];
        ls->b[h % LOCK_BUCKETS] = e;
    }
    *got = e;
    if (fresh)
        *fresh = e->x != o && !holds_s(e, o);
    if (e->x == o || (mode == LOCK_S && holds_s(e, o)))
        return 0;
    if (!compatible(e, o, mode)) {
        o->wait = LOCK_WAIT_RECORD;
        o->waiting_for = e;
        o->waiting_mode = mode;
        push_owner(&e->waiters, &e->nwaiters, &e->wcap, o);
        rc = wait_for(ls, o, timeout_us);
        remove_owner(e->waiters, &e->nwaiters, o);
        o->wait = LOCK_WAIT_NONE;
        o->waiting_for = NULL;
        if (rc) {
            if (!e->x && !e->ns && !e->nwaiters)
                unlink_entry(ls, e);
            *got = NULL;
            return rc;
        }
    }
    grant(e, o, mode);
    return 0;
}

int lock_acquire_ex(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                    uint64_t timeout_us, bool *fresh)
{
    lock_entry_t *e;
    pthread_mutex_lock(&ls->mu);
    int rc = acquire_locked(ls, o, tree, key, klen, mode, timeout_us, &e, fresh);
    pthread_mutex_unlock(&ls->mu);
    if (rc && fresh)
        *fresh = false;
    return rc;
}

int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                 uint64_t timeout_us)
{
    return lock_acquire_ex(ls, o, tree, key, klen, mode, timeout_us, NULL);
}

/* Gives back one record lock of o (an insert that never happened): its waiters re-check. */
static void release_entry(lock_sys_t *ls, lock_owner_t *o, lock_entry_t *e)
{
    if (e->x == o)
        e->x = NULL;
    for (uint32_t j = 0; j < e->ns; j++)
        if (e->s[j] == o) {
            e->s[j] = e->s[--e->ns];
            break;
        }
    for (uint32_t i = 0; i < o->nheld; i++)
        if (o->held[i] == e) {
            o->held[i] = o->held[--o->nheld];
            break;
        }
    for (uint32_t j = 0; j < e->nwaiters; j++)
        pthread_cond_signal(&e->waiters[j]->cond);
    if (!e->x && !e->ns && !e->nwaiters)
        unlink_entry(ls, e);
}

/* Waits (under ls->mu) while a gap of another owner covers key in tree: the insert-intention wait. */
static int wait_gaps(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                     uint64_t timeout_us)
{
    lock_tree_t *tt = tree_find(ls, tree, false);
    if (!gap_blocking(tt, o, key, klen))
        return 0;
    o->wait = LOCK_WAIT_INSERT;
    o->wait_tree = tt;
    o->wait_key = key;
    o->wait_klen = klen;
    push_owner(&tt->waiters, &tt->nwaiters, &tt->wcap, o);
    int rc = wait_for(ls, o, timeout_us);
    remove_owner(tt->waiters, &tt->nwaiters, o);
    o->wait = LOCK_WAIT_NONE;
    o->wait_tree = NULL;
    tree_maybe_free(ls, tt);
    return rc;
}

int lock_insert_begin(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                      uint64_t timeout_us)
{
    return lock_insert_begin_ex(ls, o, tree, key, klen, timeout_us, false);
}

int lock_insert_begin_ex(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                         uint64_t timeout_us, bool stop_at_shared)
{
    int rc;
    pthread_mutex_lock(&ls->mu);
    ASSERT(!o->inserting);
    if (stop_at_shared && shared_by_others(ls, o, tree, key, klen)) {
        rc = LOCK_INSERT_SHARED;
        goto out;
    }
    /* The intention check first, without the record lock (a waiting insert holds nothing, as in InnoDB: another
     * trx may insert the same key meanwhile, and this one then finds a duplicate), then the record lock; a gap
     * granted while that waited sends the insert back to the gap wait, giving back a record lock it just took. */
    for (;;) {
        if ((rc = wait_gaps(ls, o, tree, key, klen, timeout_us)))
            goto out;
        lock_entry_t *rec;
        bool fresh;
        if ((rc = acquire_locked(ls, o, tree, key, klen, LOCK_X, timeout_us, &rec, &fresh)))
            goto out;
        if (!gap_blocking(tree_find(ls, tree, false), o, key, klen))
            break;
        if (fresh)
            release_entry(ls, o, rec);
    }
    o->inserting = true;
    o->ins_tree = tree;
    o->ins_key = key;
    o->ins_klen = klen;
    push_owner(&ls->inflight, &ls->ninflight, &ls->capinflight, o);
out:
    pthread_mutex_unlock(&ls->mu);
    return rc;
}

void lock_insert_end(lock_sys_t *ls, lock_owner_t *o)
{
    pthread_mutex_lock(&ls->mu);
    if (o->inserting) {
        remove_owner(ls->inflight, &ls->ninflight, o);
        o->inserting = false;
        atomic_fetch_add(&ls->epoch[o->ins_tree % EPOCH_BUCKETS], 1);
    }
    pthread_mutex_unlock(&ls->mu);
}

void lock_release(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen)
{
    uint32_t h = khash(tree, key, klen);
    pthread_mutex_lock(&ls->mu);
    lock_entry_t *e = ls->b[h % LOCK_BUCKETS];
    while (e && !(e->hash == h && e->tree == tree && e->klen == klen && (!klen || !memcmp(e->key, key, klen))))
        e = e->next;
    if (e && (e->x == o || holds_s(e, o)))
        release_entry(ls, o, e);
    pthread_mutex_unlock(&ls->mu);
}

void lock_release_all(lock_sys_t *ls, lock_owner_t *o)
{
    pthread_mutex_lock(&ls->mu);
    for (uint32_t i = 0; i < o->nheld; i++) {
        lock_entry_t *e = o->held[i];
        if (e->x == o)
            e->x = NULL;
        for (uint32_t j = 0; j < e->ns; j++)
            if (e->s[j] == o) {
                e->s[j] = e->s[--e->ns];
                break;
            }
        /* Wake only this lock's waiters; each re-checks whether it may go now. */
        for (uint32_t j = 0; j < e->nwaiters; j++)
            pthread_cond_signal(&e->waiters[j]->cond);
        if (!e->x && !e->ns && !e->nwaiters)
            unlink_entry(ls, e);
    }
    o->nheld = 0;
    while (o->gaps) {
        lock_gap_t *g = o->gaps;
        o->gaps = g->onext;
        lock_tree_t *tt = g->tt;
        lock_gap_t **pp = &tt->gaps;
        while (*pp != g)
            pp = &(*pp)->tnext;
        *pp = g->tnext;
        gap_free(g);
        for (uint32_t j = 0; j < tt->nwaiters; j++)
            pthread_cond_signal(&tt->waiters[j]->cond);
        tree_maybe_free(ls, tt);
    }
    pthread_mutex_unlock(&ls->mu);
}

uint64_t lock_waits(lock_sys_t *ls) { return ls->waits; }

void lock_wait_stats(lock_sys_t *ls, uint64_t *waiting, uint64_t *wait_us, uint64_t *wait_max_us)
{
    pthread_mutex_lock(&ls->mu);
    *waiting = ls->waiting;
    *wait_us = ls->wait_us;
    *wait_max_us = ls->wait_max_us;
    pthread_mutex_unlock(&ls->mu);
}
uint64_t lock_deadlocks(lock_sys_t *ls) { return ls->deadlocks; }
