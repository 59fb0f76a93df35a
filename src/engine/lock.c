/*
 * engine/lock: shared and exclusive row locks with waits, timeouts and deadlock detection (see lock.h).
 * An entry lists its holders (one X holder, or any number of S holders) and its waiters.  A waiter re-checks
 * compatibility whenever a holder of its entry releases; the deadlock search walks holder -> the lock it waits
 * for -> that lock's holders, depth-first, with a step bound.
 */
#include "util/blocking.h"
#include "engine/lock.h"

#include <errno.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/page.h"
#include "util/util.h"

#define LOCK_BUCKETS_MIN 4096 /* the table doubles when it holds twice as many locks as buckets */
#define DEADLOCK_STEPS 100000

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

struct lock_sys {
    pthread_mutex_t mu;
    lock_entry_t **b;
    uint32_t nb;              /* buckets, a power of two */
    uint64_t n;               /* entries */
    uint64_t waits, deadlocks;
};

lock_sys_t *lock_sys_create(void)
{
    lock_sys_t *ls = mem_calloc(1, sizeof *ls);
    ls->nb = LOCK_BUCKETS_MIN;
    ls->b = mem_calloc(ls->nb, sizeof *ls->b);
    pthread_mutex_init(&ls->mu, NULL);
    return ls;
}

static void grow(lock_sys_t *ls)
{
    uint32_t nb = ls->nb * 2;
    lock_entry_t **b = mem_calloc(nb, sizeof *b);
    for (uint32_t i = 0; i < ls->nb; i++)
        while (ls->b[i]) {
            lock_entry_t *e = ls->b[i];
            ls->b[i] = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    mem_free(ls->b);
    ls->b = b;
    ls->nb = nb;
}

static void entry_free(lock_entry_t *e)
{
    mem_free(e->key);
    mem_free(e->s);
    mem_free(e->waiters);
    mem_free(e);
}

void lock_sys_destroy(lock_sys_t *ls)
{
    if (!ls)
        return;
    for (uint32_t i = 0; i < ls->nb; i++)
        while (ls->b[i]) {
            lock_entry_t *e = ls->b[i];
            ls->b[i] = e->next;
            entry_free(e);
        }
    mem_free(ls->b);
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

static void unlink_entry(lock_sys_t *ls, lock_entry_t *e)
{
    ls->n--;
    lock_entry_t **pp = &ls->b[e->hash & (ls->nb - 1)];
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

/* Called once per (owner, entry): grant() knows whether the owner held the entry already, so no scan of the
 * owner's list (which made a transaction of n row locks cost n^2). */
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
    bool had = e->x == o || holds_s(e, o);
    if (m == LOCK_X) {
        e->x = o;
    } else if (!holds_s(e, o)) {
        if (e->ns == e->caps) {
            e->caps = e->caps ? e->caps * 2 : 4;
            e->s = mem_realloc(e->s, e->caps * sizeof(lock_owner_t *));
        }
        e->s[e->ns++] = o;
    }
    if (!had)
        add_held(o, e);
}

/* Does some chain of waits starting at the holders of e (that block mode m) lead back to me? */
static bool reaches(const lock_entry_t *e, const lock_owner_t *requester, const lock_owner_t *me, lock_mode_t m,
                    int *steps)
{
    if (++*steps > DEADLOCK_STEPS)
        return false;
    lock_owner_t *blockers[1 + 64];
    uint32_t nb = 0;
    if (e->x && e->x != requester)
        blockers[nb++] = e->x;
    if (m == LOCK_X)
        for (uint32_t i = 0; i < e->ns && nb < 64; i++)
            if (e->s[i] != requester)
                blockers[nb++] = e->s[i];
    for (uint32_t i = 0; i < nb; i++) {
        if (blockers[i] == me)
            return true;
        if (blockers[i]->waiting_for &&
            reaches(blockers[i]->waiting_for, blockers[i], me, blockers[i]->waiting_mode, steps))
            return true;
    }
    return false;
}

static void remove_waiter(lock_entry_t *e, lock_owner_t *o)
{
    for (uint32_t i = 0; i < e->nwaiters; i++)
        if (e->waiters[i] == o) {
            memmove(&e->waiters[i], &e->waiters[i + 1], (e->nwaiters - i - 1) * sizeof(lock_owner_t *));
            e->nwaiters--;
            return;
        }
}

int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                 uint64_t timeout_us)
{
    uint32_t h = khash(tree, key, klen);
    int rc = 0;
    pthread_mutex_lock(&ls->mu);
    lock_entry_t *e = ls->b[h & (ls->nb - 1)];
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
        if (++ls->n > 2ull * ls->nb)
            grow(ls); /* one large transaction holds a lock per row it changed: keep chains short */
        e->next = ls->b[h & (ls->nb - 1)];
        ls->b[h & (ls->nb - 1)] = e;
    }
    if (e->x == o || (mode == LOCK_S && holds_s(e, o)))
        goto out;
    if (!compatible(e, o, mode)) {
        int steps = 0;
        if (reaches(e, o, o, mode, &steps)) {
            ls->deadlocks++;
            rc = ENGINE_EDEADLOCK;
            goto out;
        }
        ls->waits++;
        if (e->nwaiters == e->wcap) {
            e->wcap = e->wcap ? e->wcap * 2 : 4;
            e->waiters = mem_realloc(e->waiters, e->wcap * sizeof(lock_owner_t *));
        }
        e->waiters[e->nwaiters++] = o;
        o->waiting_for = e;
        o->waiting_mode = mode;
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += (time_t)(timeout_us / 1000000);
        dl.tv_nsec += (long)(timeout_us % 1000000) * 1000;
        if (dl.tv_nsec >= 1000000000) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000;
        }
        blocking_begin(); /* the worker pool may add a thread while this one waits */
        while (!compatible(e, o, mode)) {
            if (pthread_cond_timedwait(&o->cond, &ls->mu, &dl) == ETIMEDOUT && !compatible(e, o, mode)) {
                rc = ENGINE_ELOCKWAIT;
                break;
            }
        }
        blocking_end();
        remove_waiter(e, o);
        o->waiting_for = NULL;
        if (rc) {
            if (!e->x && !e->ns && !e->nwaiters)
                unlink_entry(ls, e);
            goto out;
        }
    }
    grant(e, o, mode);
out:
    pthread_mutex_unlock(&ls->mu);
    return rc;
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
        if (e->x || e->ns || e->nwaiters) {
            /* Wake only this lock's waiters; each re-checks whether it may go now. */
            for (uint32_t j = 0; j < e->nwaiters; j++)
                pthread_cond_signal(&e->waiters[j]->cond);
        }
        if (!e->x && !e->ns && !e->nwaiters)
            unlink_entry(ls, e);
    }
    o->nheld = 0;
    pthread_mutex_unlock(&ls->mu);
}

uint64_t lock_waits(lock_sys_t *ls) { return ls->waits; }
uint64_t lock_deadlocks(lock_sys_t *ls) { return ls->deadlocks; }
