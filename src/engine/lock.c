/*
 * engine/lock: exclusive row locks with waits, timeouts and deadlock detection (see lock.h).
 */
#include "engine/lock.h"

#include <errno.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/page.h"
#include "util/util.h"

#define LOCK_BUCKETS 4096

struct lock_entry {
    uint64_t tree;
    uint32_t hash;
    size_t klen;
    uint8_t *key;
    lock_owner_t *owner;
    uint32_t nwaiters;
    lock_owner_t **waiters;
    uint32_t wcap;
    lock_entry_t *next;      /* bucket chain */
    lock_entry_t *next_held; /* owner's list */
};

struct lock_sys {
    pthread_mutex_t mu;
    lock_entry_t *b[LOCK_BUCKETS];
    uint64_t waits, deadlocks;
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
    mem_free(e->waiters);
    mem_free(e);
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

void lock_owner_destroy(lock_owner_t *o) { pthread_cond_destroy(&o->cond); }

static uint32_t khash(uint64_t tree, const void *key, size_t klen)
{
    return crc32c((uint32_t)tree * 2654435761u, key, klen);
}

static void unlink_entry(lock_sys_t *ls, lock_entry_t *e)
{
    lock_entry_t **pp = &ls->b[e->hash % LOCK_BUCKETS];
    while (*pp != e)
        pp = &(*pp)->next;
    *pp = e->next;
    entry_free(e);
}

static void remove_waiter(lock_entry_t *e, lock_owner_t *o)
{
    for (uint32_t i = 0; i < e->nwaiters; i++)
        if (e->waiters[i] == o) {
            e->waiters[i] = e->waiters[--e->nwaiters];
            return;
        }
}

int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, uint64_t timeout_us)
{
    uint32_t h = khash(tree, key, klen);
    int rc = 0;
    pthread_mutex_lock(&ls->mu);
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
    if (e->owner == o)
        goto out;
    if (e->owner) {
        /* Deadlock check: does the chain of owners we would wait for come back to us? */
        lock_owner_t *x = e->owner;
        for (int steps = 0; x && steps < 10000; steps++) {
            if (x == o) {
                ls->deadlocks++;
                rc = ENGINE_EDEADLOCK;
                goto out;
            }
            x = x->waiting_for ? x->waiting_for->owner : NULL;
        }
        ls->waits++;
        if (e->nwaiters == e->wcap) {
            e->wcap = e->wcap ? e->wcap * 2 : 4;
            e->waiters = mem_realloc(e->waiters, e->wcap * sizeof(lock_owner_t *));
        }
        e->waiters[e->nwaiters++] = o;
        o->waiting_for = e;
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += (time_t)(timeout_us / 1000000);
        dl.tv_nsec += (long)(timeout_us % 1000000) * 1000;
        if (dl.tv_nsec >= 1000000000) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000;
        }
        while (e->owner != o) {
            if (pthread_cond_timedwait(&o->cond, &ls->mu, &dl) == ETIMEDOUT && e->owner != o) {
                rc = ENGINE_ELOCKWAIT;
                break;
            }
        }
        remove_waiter(e, o);
        o->waiting_for = NULL;
        /* Granted: the releaser handed the lock over and put it on our list. */
        goto out;
    }
    e->owner = o;
    e->next_held = o->held;
    o->held = e;
    o->nheld++;
out:
    pthread_mutex_unlock(&ls->mu);
    return rc;
}

void lock_release_all(lock_sys_t *ls, lock_owner_t *o)
{
    pthread_mutex_lock(&ls->mu);
    lock_entry_t *e = o->held;
    while (e) {
        lock_entry_t *next = e->next_held;
        e->owner = NULL;
        e->next_held = NULL;
        if (e->nwaiters) {
            /* Hand the lock straight to the first waiter; wake only it. */
            lock_owner_t *w = e->waiters[0];
            e->owner = w;
            e->next_held = w->held;
            w->held = e;
            w->nheld++;
            pthread_cond_signal(&w->cond);
        } else {
            unlink_entry(ls, e);
        }
        e = next;
    }
    o->held = NULL;
    o->nheld = 0;
    pthread_mutex_unlock(&ls->mu);
}

uint64_t lock_waits(lock_sys_t *ls) { return ls->waits; }
uint64_t lock_deadlocks(lock_sys_t *ls) { return ls->deadlocks; }
