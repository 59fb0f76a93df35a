/*
 * engine/lock: record and gap locks with waits, timeouts and deadlock detection (see lock.h for the rules).
 * A record entry lists its holders (one X holder, or any number of S holders) and its waiters; entries live in a
 * hash by (tree, key).  Gaps live in per-tree lists (lock_tree_t, a hash by tree id) together with the inserts
 * waiting on them; a tree entry is freed when it has neither.  In-flight inserts are a short array (one per
 * inserting thread at most).  A record bucket belongs to partition (bucket % LOCK_PARTS), a tree bucket likewise,
 * so both hashes stay single arrays whose chains each one partition mutex guards.  A woken waiter re-checks under
 * its partition mutex; the deadlock search walks waiter -> its blockers -> what they wait for, depth-first, with a
 * step bound, holding every partition.
 */
#include "util/blocking.h"
#include "engine/lock.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/page.h"
#include "util/util.h"

#define LOCK_PARTS 16
#define LOCK_BUCKETS (1 << 20) /* multiples of LOCK_PARTS: a bucket's partition is bucket % LOCK_PARTS.  A
                                 * statement holds a record lock per row it writes (LOAD DATA, INSERT ... SELECT of
                                 * a million rows): chains stay short (8 MiB of pointers) */
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

/* One partition: its mutex guards the record buckets and tree buckets mapped to it, and the in-flight inserts into
 * its trees. */
typedef struct {
    _Alignas(64) pthread_mutex_t mu;
    lock_owner_t **inflight;
    uint32_t ninflight, capinflight;
    _Atomic uint64_t drops;   /* record entries dropped for implicit locks (moved under mu) */
} lock_part_t;

struct lock_sys {
    lock_part_t parts[LOCK_PARTS];
    lock_entry_t *b[LOCK_BUCKETS];
    lock_tree_t *trees[TREE_BUCKETS];
    _Atomic uint64_t epoch[EPOCH_BUCKETS];
    _Atomic uint64_t waits, deadlocks, wakeups;
    uint64_t search_stamp; /* deadlock searches so far (under every partition) */
    lock_wait_hook_fn hook; /* lock_set_wait_hook (read under every partition) */
    void *hook_arg;
    _Atomic uint64_t waiting;                /* owners in wait_for now */
    _Atomic uint64_t wait_us, wait_max_us;    /* time spent in wait_for: total and the longest wait */
    pthread_mutex_t smu;                      /* guards sleepers (a leaf: taken under a partition mutex) */
    pthread_mutex_t cmu;                      /* guards every owner's conv list (a leaf, like smu) */
    _Atomic uint64_t nentries;                /* record entries now */
    lock_owner_t *sleepers;                   /* every owner in wait_for, for lock_kick */
};

lock_sys_t *lock_sys_create(void)
{
    lock_sys_t *ls;
    if (posix_memalign((void **)&ls, 64, sizeof *ls))
        ASSERT(!"out of memory for the lock table");
    memset(ls, 0, sizeof *ls);
    for (int i = 0; i < LOCK_PARTS; i++)
        pthread_mutex_init(&ls->parts[i].mu, NULL);
    pthread_mutex_init(&ls->smu, NULL);
    pthread_mutex_init(&ls->cmu, NULL);
    return ls;
}

static lock_part_t *rec_part(lock_sys_t *ls, uint32_t hash) { return &ls->parts[hash % LOCK_BUCKETS % LOCK_PARTS]; }
static lock_part_t *tree_part(lock_sys_t *ls, uint64_t tree) { return &ls->parts[tree % TREE_BUCKETS % LOCK_PARTS]; }

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
    for (int i = 0; i < LOCK_PARTS; i++) {
        mem_free(ls->parts[i].inflight);
        pthread_mutex_destroy(&ls->parts[i].mu);
    }
    pthread_mutex_destroy(&ls->smu);
    pthread_mutex_destroy(&ls->cmu);
    free(ls);
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
    pthread_mutex_init(&o->wmu, NULL);
}

void lock_owner_destroy(lock_owner_t *o)
{
    pthread_cond_destroy(&o->cond);
    pthread_mutex_destroy(&o->wmu);
    mem_free(o->held);
    o->held = NULL;
    mem_free(o->conv);
    o->conv = NULL;
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
    atomic_fetch_sub(&ls->nentries, 1);
}

/* The record entry of (tree, key) of hash h, or NULL; under its partition mutex. */
static lock_entry_t *entry_find(lock_sys_t *ls, uint32_t h, uint64_t tree, const void *key, size_t klen)
{
    lock_entry_t *e = ls->b[h % LOCK_BUCKETS];
    while (e && !(e->hash == h && e->tree == tree && e->klen == klen && (!klen || !memcmp(e->key, key, klen))))
        e = e->next;
    return e;
}

/* A new, unheld record entry of (tree, key), in its bucket; under its partition mutex. */
static lock_entry_t *entry_new(lock_sys_t *ls, uint32_t h, uint64_t tree, const void *key, size_t klen)
{
    lock_entry_t *e = mem_calloc(1, sizeof *e);
    e->tree = tree;
    e->hash = h;
    e->klen = klen;
    e->key = mem_alloc(klen ? klen : 1);
    if (klen)
        memcpy(e->key, key, klen);
    e->next = ls->b[h % LOCK_BUCKETS];
    ls->b[h % LOCK_BUCKETS] = e;
    atomic_fetch_add(&ls->nentries, 1);
    return e;
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
    lock_part_t *tp = tree_part(ls, tree);
    pthread_mutex_lock(&tp->mu);
    /* an insert of another trx that passed its check but may not be in the tree yet, inside the interval */
    for (uint32_t i = 0; i < tp->ninflight; i++) {
        lock_owner_t *p = tp->inflight[i];
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
    pthread_mutex_unlock(&tp->mu);
    return rc;
}

/* Do owners other than o hold key's record lock in S mode only (nobody else in X)?  Under the key's partition. */
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
    lock_part_t *tp = tree_part(ls, tree);
    pthread_mutex_lock(&tp->mu);
    bool r = gap_blocking(tree_find(ls, tree, false), o, key, klen) != NULL;
    pthread_mutex_unlock(&tp->mu);
    return r;
}

/* (An owner's gap list is changed only by the owner's own thread, which is the caller.) */
uint32_t lock_gap_count(lock_sys_t *ls, const lock_owner_t *o)
{
    (void)ls;
    uint32_t n = 0;
    for (const lock_gap_t *g = o->gaps; g; g = g->onext)
        n++;
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

/* Does some chain of waits starting at me's blockers lead back to me?  Each waiting owner is visited once (marked
 * with this search's stamp): a cycle of others that does not pass through me (two requests that registered their
 * waits at once and have not searched yet) ends the walk instead of looping.  Under every partition. */
static bool reaches(lock_sys_t *ls, lock_owner_t *me)
{
    uint64_t stamp = ++ls->search_stamp;
    lock_owner_t **stack = NULL;
    uint32_t n = 0, cap = 0;
    bool found = false;
    me->visit = stamp;
    push_owner(&stack, &n, &cap, me);
    for (int steps = 0; n && !found && steps < DEADLOCK_STEPS; steps++) {
        lock_owner_t *b[MAX_BLOCKERS];
        uint32_t nb = blockers_of(stack[--n], b);
        for (uint32_t i = 0; i < nb && !found; i++) {
            if (atomic_load(&b[i]->aborted))
                continue; /* it gives its locks back: no wait through it lasts */
            found = b[i] == me;
            if (!found && b[i]->wait != LOCK_WAIT_NONE && b[i]->visit != stamp) {
                b[i]->visit = stamp;
                push_owner(&stack, &n, &cap, b[i]);
            }
        }
    }
    mem_free(stack);
    return found;
}

static bool can_go(const lock_owner_t *o)
{
    if (o->wait == LOCK_WAIT_RECORD)
        return compatible(o->waiting_for, o, o->waiting_mode);
    return !gap_blocking(o->wait_tree, o, o->wait_key, o->wait_klen);
}

/* Wakes one sleeping owner: one signal, to it alone.  Under the partition mutex of what it waits on. */
static void wake(lock_sys_t *ls, lock_owner_t *w)
{
    pthread_mutex_lock(&w->wmu);
    w->woken = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->wmu);
    atomic_fetch_add(&ls->wakeups, 1);
}

/* Wakes the waiters of e that can have it now, in arrival order, up to and including the first X request among
 * them (it will take the lock alone).  Under e's partition mutex. */
static void wake_record(lock_sys_t *ls, const lock_entry_t *e)
{
    for (uint32_t j = 0; j < e->nwaiters; j++) {
        lock_owner_t *w = e->waiters[j];
        if (!compatible(e, w, w->waiting_mode))
            continue;
        wake(ls, w);
        if (w->waiting_mode == LOCK_X)
            break;
    }
}

/* Wakes the inserts waiting in tt whose key no gap of another owner covers now.  Under tt's partition mutex. */
static void wake_inserts(lock_sys_t *ls, const lock_tree_t *tt)
{
    for (uint32_t j = 0; j < tt->nwaiters; j++)
        if (can_go(tt->waiters[j]))
            wake(ls, tt->waiters[j]);
}

/* Searches the wait-for graph from o, holding every partition (taken in index order; the caller holds none). */
static bool deadlocked(lock_sys_t *ls, lock_owner_t *o)
{
    for (int i = 0; i < LOCK_PARTS; i++)
        pthread_mutex_lock(&ls->parts[i].mu);
    if (ls->hook) { /* the owners o is about to wait for: the hook may abort them (before the search, so that
                     * a cycle through a later transaction makes it the victim, not o) */
        lock_owner_t *b[MAX_BLOCKERS];
        uint32_t nb = blockers_of(o, b);
        for (uint32_t i = 0; i < nb; i++)
            if (!atomic_load(&b[i]->aborted) && ls->hook(ls->hook_arg, o->trx_id, b[i]->trx_id)) {
                atomic_store(&b[i]->aborted, true);
                if (b[i]->wait != LOCK_WAIT_NONE)
                    wake(ls, b[i]);
            }
    }
    bool dead = reaches(ls, o);
    if (dead)
        o->wait = LOCK_WAIT_NONE; /* a victim waits for nobody: a concurrent search must not count it */
    for (int i = LOCK_PARTS - 1; i >= 0; i--)
        pthread_mutex_unlock(&ls->parts[i].mu);
    return dead;
}

/* Sleeps until woken or the deadline passes.  Called with no partition mutex held.  ETIMEDOUT or 0. */
static int sleep_until_woken(lock_owner_t *o, const struct timespec *dl)
{
    int rc = 0;
    pthread_mutex_lock(&o->wmu);
    while (!o->woken && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&o->cond, &o->wmu, dl);
    o->woken = false;
    pthread_mutex_unlock(&o->wmu);
    return rc == ETIMEDOUT ? ETIMEDOUT : 0;
}

static void sleeper_add(lock_sys_t *ls, lock_owner_t *o)
{
    pthread_mutex_lock(&ls->smu);
    o->sprev = NULL;
    o->snext = ls->sleepers;
    if (ls->sleepers)
        ls->sleepers->sprev = o;
    ls->sleepers = o;
    pthread_mutex_unlock(&ls->smu);
}

static void sleeper_remove(lock_sys_t *ls, lock_owner_t *o)
{
    pthread_mutex_lock(&ls->smu);
    if (o->sprev)
        o->sprev->snext = o->snext;
    else
        ls->sleepers = o->snext;
    if (o->snext)
        o->snext->sprev = o->sprev;
    o->snext = o->sprev = NULL;
    pthread_mutex_unlock(&ls->smu);
}

void lock_kick(lock_sys_t *ls, _Atomic bool *kill)
{
    pthread_mutex_lock(&ls->smu);
    for (lock_owner_t *o = ls->sleepers; o; o = o->snext)
        if (o->kill == kill) {
            pthread_mutex_lock(&o->wmu);
            o->woken = true;
            pthread_cond_signal(&o->cond);
            pthread_mutex_unlock(&o->wmu);
        }
    pthread_mutex_unlock(&ls->smu);
}

/* o's wait state is set and o is listed among the waiters of what it waits for, under part's mutex: refuse a
 * deadlock, else sleep until can_go or the timeout.  Returns with part's mutex held. */
static int wait_for(lock_sys_t *ls, lock_part_t *part, lock_owner_t *o, uint64_t timeout_us)
{
    pthread_mutex_lock(&o->wmu);
    o->woken = false;
    pthread_mutex_unlock(&o->wmu);
    pthread_mutex_unlock(&part->mu);
    bool dead = atomic_load(&o->aborted) || deadlocked(ls, o);
    pthread_mutex_lock(&part->mu);
    if (dead) {
        atomic_fetch_add(&ls->deadlocks, 1);
        return ENGINE_EDEADLOCK;
    }
    atomic_fetch_add(&ls->waits, 1);
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
    atomic_fetch_add(&ls->waiting, 1);
    sleeper_add(ls, o);
    blocking_begin(); /* the worker pool may add a thread while this one waits */
    while (!can_go(o)) {
        /* After sleeper_add: a KILL that set the flag before lock_kick could see this owner is seen here. */
        if (o->kill && atomic_exchange(o->kill, false)) {
            rc = ENGINE_EINTR;
            break;
        }
        pthread_mutex_unlock(&part->mu);
        int t = sleep_until_woken(o, &dl);
        pthread_mutex_lock(&part->mu);
        if (atomic_load(&o->aborted)) {
            rc = ENGINE_EDEADLOCK;
            break;
        }
        if (t == ETIMEDOUT && !can_go(o)) {
            rc = ENGINE_ELOCKWAIT;
            break;
        }
    }
    blocking_end();
    sleeper_remove(ls, o);
    atomic_fetch_sub(&ls->waiting, 1);
    uint64_t took = time_mono_us() - t0;
    atomic_fetch_add(&ls->wait_us, took);
    uint64_t max = atomic_load(&ls->wait_max_us);
    while (took > max && !atomic_compare_exchange_weak(&ls->wait_max_us, &max, took))
        ;
    return rc;
}

/* lock_acquire under the key's partition mutex (part, of hash h); *fresh (may be NULL) says o held the entry in
 * neither mode before. */
static int acquire_locked(lock_sys_t *ls, lock_part_t *part, uint32_t h, lock_owner_t *o, uint64_t tree,
                          const void *key, size_t klen, lock_mode_t mode, uint64_t timeout_us, lock_entry_t **got,
                          bool *fresh)
{
    int rc = 0;
    lock_entry_t *e = entry_find(ls, h, tree, key, klen);
    if (!e)
        e = entry_new(ls, h, tree, key, klen);
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
        rc = wait_for(ls, part, o, timeout_us);
        remove_owner(e->waiters, &e->nwaiters, o);
        o->wait = LOCK_WAIT_NONE;
        o->waiting_for = NULL;
        if (rc) {
            if (!e->x && !e->ns && !e->nwaiters)
                unlink_entry(ls, e);
            else
                wake_record(ls, e); /* a wake-up meant for us passes to whoever can go now */
            *got = NULL;
            return rc;
        }
    }
    grant(e, o, mode);
    /* the requests still waiting for e now wait for o as well: the hook sees that wait too (it is asked when
     * a request begins to wait, for the holders of that moment) */
    for (uint32_t j = 0; ls->hook && j < e->nwaiters && !atomic_load(&o->aborted); j++)
        if (e->waiters[j] != o && ls->hook(ls->hook_arg, e->waiters[j]->trx_id, o->trx_id))
            atomic_store(&o->aborted, true);
    return 0;
}

#define NO_EPOCH UINT64_MAX

int lock_acquire_at(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                    uint64_t timeout_us, bool *fresh, uint64_t epoch)
{
    lock_entry_t *e;
    uint32_t h = khash(tree, key, klen);
    lock_part_t *part = rec_part(ls, h);
    pthread_mutex_lock(&part->mu);
    int rc = epoch != NO_EPOCH && atomic_load(&part->drops) != epoch
                 ? LOCK_RETRY
                 : acquire_locked(ls, part, h, o, tree, key, klen, mode, timeout_us, &e, fresh);
    pthread_mutex_unlock(&part->mu);
    if (rc && fresh)
        *fresh = false;
    return rc;
}

int lock_acquire_ex(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                    uint64_t timeout_us, bool *fresh)
{
    return lock_acquire_at(ls, o, tree, key, klen, mode, timeout_us, fresh, NO_EPOCH);
}

uint64_t lock_drop_epoch(lock_sys_t *ls, uint64_t tree, const void *key, size_t klen)
{
    return atomic_load(&rec_part(ls, khash(tree, key, klen))->drops);
}

uint64_t lock_entries(lock_sys_t *ls) { return atomic_load(&ls->nentries); }

/* Removes e from o's conv list if it is there (under cmu). */
static void conv_forget(lock_sys_t *ls, lock_owner_t *o, const lock_entry_t *e)
{
    pthread_mutex_lock(&ls->cmu);
    for (uint32_t i = 0; i < o->nconv; i++)
        if (o->conv[i] == e) {
            o->conv[i] = o->conv[--o->nconv];
            break;
        }
    pthread_mutex_unlock(&ls->cmu);
}

void lock_convert(lock_sys_t *ls, lock_owner_t *holder, uint64_t tree, const void *key, size_t klen)
{
    uint32_t h = khash(tree, key, klen);
    lock_part_t *part = rec_part(ls, h);
    pthread_mutex_lock(&part->mu);
    lock_entry_t *e = entry_find(ls, h, tree, key, klen);
    if (e && (e->x || e->ns)) {
        /* held already: by the writer (explicitly, or converted by another request), or, against the rule, by
         * someone else, which converting cannot mend */
        pthread_mutex_unlock(&part->mu);
        return;
    }
    if (!e)
        e = entry_new(ls, h, tree, key, klen);
    e->x = holder;
    pthread_mutex_lock(&ls->cmu);
    if (holder->nconv == holder->capconv) {
        holder->capconv = holder->capconv ? holder->capconv * 2 : 8;
        holder->conv = mem_realloc(holder->conv, holder->capconv * sizeof *holder->conv);
    }
    holder->conv[holder->nconv++] = e;
    pthread_mutex_unlock(&ls->cmu);
    pthread_mutex_unlock(&part->mu);
}

int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                 uint64_t timeout_us)
{
    return lock_acquire_ex(ls, o, tree, key, klen, mode, timeout_us, NULL);
}

/* Gives back one record lock of o (an insert that never happened, a semi-consistent read): the waiters that can
 * go now are woken.  Under e's partition mutex. */
static void release_entry(lock_sys_t *ls, lock_owner_t *o, lock_entry_t *e)
{
    if (e->x == o)
        e->x = NULL;
    for (uint32_t j = 0; j < e->ns; j++)
        if (e->s[j] == o) {
            e->s[j] = e->s[--e->ns];
            break;
        }
    bool found = false;
    for (uint32_t i = o->nheld; i-- > 0;) /* from the end: an insert's own entry is the last one */
        if (o->held[i] == e) {
            o->held[i] = o->held[--o->nheld];
            found = true;
            break;
        }
    if (!found)
        conv_forget(ls, o, e);
    wake_record(ls, e);
    if (!e->x && !e->ns && !e->nwaiters)
        unlink_entry(ls, e);
}

/* Waits (under the tree's partition mutex, tp) while a gap of another owner covers key in tree: the
 * insert-intention wait. */
static int wait_gaps(lock_sys_t *ls, lock_part_t *tp, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
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
    int rc = wait_for(ls, tp, o, timeout_us);
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
    return lock_insert_begin_at(ls, o, tree, key, klen, timeout_us, stop_at_shared, NO_EPOCH);
}

int lock_insert_begin_at(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                         uint64_t timeout_us, bool stop_at_shared, uint64_t epoch)
{
    int rc = 0;
    ASSERT(!o->inserting);
    uint32_t h = khash(tree, key, klen);
    lock_part_t *tp = tree_part(ls, tree), *rp = rec_part(ls, h);
    if (stop_at_shared) {
        pthread_mutex_lock(&rp->mu);
        bool shared = shared_by_others(ls, o, tree, key, klen);
        pthread_mutex_unlock(&rp->mu);
        if (shared)
            return LOCK_INSERT_SHARED;
    }
    /* The intention check first, without the record lock (a waiting insert holds nothing, as in InnoDB: another
     * trx may insert the same key meanwhile, and this one then finds a duplicate), then the record lock; a gap
     * granted while that waited sends the insert back to the gap wait, giving back a record lock it just took.
     * The last check and the in-flight mark are one step under the tree's partition, where gaps are granted. */
    for (;;) {
        pthread_mutex_lock(&tp->mu);
        rc = wait_gaps(ls, tp, o, tree, key, klen, timeout_us);
        pthread_mutex_unlock(&tp->mu);
        if (rc)
            return rc;
        lock_entry_t *rec;
        bool fresh;
        pthread_mutex_lock(&rp->mu);
        rc = epoch != NO_EPOCH && atomic_load(&rp->drops) != epoch
                 ? LOCK_RETRY
                 : acquire_locked(ls, rp, h, o, tree, key, klen, LOCK_X, timeout_us, &rec, &fresh);
        pthread_mutex_unlock(&rp->mu);
        if (rc)
            return rc;
        pthread_mutex_lock(&tp->mu);
        if (!gap_blocking(tree_find(ls, tree, false), o, key, klen)) {
            o->ins_entry = fresh ? rec : NULL;
            o->inserting = true;
            o->ins_tree = tree;
            o->ins_key = key;
            o->ins_klen = klen;
            push_owner(&tp->inflight, &tp->ninflight, &tp->capinflight, o);
            pthread_mutex_unlock(&tp->mu);
            return 0;
        }
        pthread_mutex_unlock(&tp->mu);
        if (fresh) { /* (held by o, so the entry cannot have gone) */
            pthread_mutex_lock(&rp->mu);
            release_entry(ls, o, rec);
            pthread_mutex_unlock(&rp->mu);
        }
    }
}

bool lock_insert_end_implicit(lock_sys_t *ls, lock_owner_t *o)
{
    lock_entry_t *e = o->inserting ? o->ins_entry : NULL;
    bool dropped = false;
    if (e) {
        /* The entry is o's (its X holder since lock_insert_begin), so it is still there.  The drop and its epoch
         * move happen under the key's partition mutex, where lock_acquire_at compares the epoch. */
        lock_part_t *rp = rec_part(ls, e->hash);
        pthread_mutex_lock(&rp->mu);
        if (e->x == o && !e->ns && !e->nwaiters) {
            bool found = false;
            for (uint32_t i = o->nheld; i-- > 0;)
                if (o->held[i] == e) {
                    o->held[i] = o->held[--o->nheld];
                    found = true;
                    break;
                }
            if (found) {
                atomic_fetch_add(&rp->drops, 1);
                unlink_entry(ls, e);
                dropped = true;
            }
        }
        pthread_mutex_unlock(&rp->mu);
    }
    lock_insert_end(ls, o);
    return dropped;
}

void lock_insert_end(lock_sys_t *ls, lock_owner_t *o)
{
    o->ins_entry = NULL;
    if (!o->inserting)
        return;
    lock_part_t *tp = tree_part(ls, o->ins_tree);
    pthread_mutex_lock(&tp->mu);
    remove_owner(tp->inflight, &tp->ninflight, o);
    o->inserting = false;
    atomic_fetch_add(&ls->epoch[o->ins_tree % EPOCH_BUCKETS], 1);
    pthread_mutex_unlock(&tp->mu);
}

void lock_release(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen)
{
    uint32_t h = khash(tree, key, klen);
    lock_part_t *part = rec_part(ls, h);
    pthread_mutex_lock(&part->mu);
    lock_entry_t *e = entry_find(ls, h, tree, key, klen);
    if (e && (e->x == o || holds_s(e, o)))
        release_entry(ls, o, e);
    pthread_mutex_unlock(&part->mu);
}

void lock_set_wait_hook(lock_sys_t *ls, lock_wait_hook_fn hook, void *arg)
{
    for (int i = 0; i < LOCK_PARTS; i++)
        pthread_mutex_lock(&ls->parts[i].mu);
    ls->hook = hook;
    ls->hook_arg = arg;
    for (int i = LOCK_PARTS - 1; i >= 0; i--)
        pthread_mutex_unlock(&ls->parts[i].mu);
}

void lock_release_all(lock_sys_t *ls, lock_owner_t *o)
{
    /* record locks: each under its partition, keeping a partition locked across a run of entries in it */
    lock_part_t *cur = NULL;
    for (uint32_t i = 0; i < o->nheld; i++) {
        lock_entry_t *e = o->held[i];
        lock_part_t *part = rec_part(ls, e->hash);
        if (part != cur) {
            if (cur)
                pthread_mutex_unlock(&cur->mu);
            pthread_mutex_lock(&part->mu);
            cur = part;
        }
        if (e->x == o)
            e->x = NULL;
        for (uint32_t j = 0; j < e->ns; j++)
            if (e->s[j] == o) {
                e->s[j] = e->s[--e->ns];
                break;
            }
        wake_record(ls, e);
        if (!e->x && !e->ns && !e->nwaiters)
            unlink_entry(ls, e);
    }
    if (cur)
        pthread_mutex_unlock(&cur->mu);
    o->nheld = 0;
    /* the locks others made explicit for o (lock_convert); none is added any more (the engine's elide registry
     * no longer lists o) */
    pthread_mutex_lock(&ls->cmu);
    lock_entry_t **conv = o->conv;
    uint32_t nconv = o->nconv;
    o->conv = NULL;
    o->nconv = o->capconv = 0;
    pthread_mutex_unlock(&ls->cmu);
    for (uint32_t i = 0; i < nconv; i++) {
        lock_entry_t *e = conv[i];
        lock_part_t *part = rec_part(ls, e->hash);
        pthread_mutex_lock(&part->mu);
        if (e->x == o)
            e->x = NULL;
        wake_record(ls, e);
        if (!e->x && !e->ns && !e->nwaiters)
            unlink_entry(ls, e);
        pthread_mutex_unlock(&part->mu);
    }
    mem_free(conv);
    while (o->gaps) {
        lock_gap_t *g = o->gaps;
        o->gaps = g->onext;
        lock_tree_t *tt = g->tt;
        lock_part_t *tp = tree_part(ls, tt->id);
        pthread_mutex_lock(&tp->mu);
        lock_gap_t **pp = &tt->gaps;
        while (*pp != g)
            pp = &(*pp)->tnext;
        *pp = g->tnext;
        gap_free(g);
        wake_inserts(ls, tt);
        tree_maybe_free(ls, tt);
        pthread_mutex_unlock(&tp->mu);
    }
    atomic_store(&o->aborted, false);
}

uint64_t lock_waits(lock_sys_t *ls) { return atomic_load(&ls->waits); }
void lock_wait_stats(lock_sys_t *ls, uint64_t *waiting, uint64_t *wait_us, uint64_t *wait_max_us)
{
    *waiting = atomic_load(&ls->waiting);
    *wait_us = atomic_load(&ls->wait_us);
    *wait_max_us = atomic_load(&ls->wait_max_us);
}
uint64_t lock_deadlocks(lock_sys_t *ls) { return atomic_load(&ls->deadlocks); }
uint64_t lock_wakeups(lock_sys_t *ls) { return atomic_load(&ls->wakeups); }
