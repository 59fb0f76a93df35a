/*
 * User-level locks (ulock.h): a chained hash table of named locks under one mutex.  A lock entry lives while
 * someone holds it or waits for it; its holder is an owner (one per connection), which lists the entries it
 * holds (RELEASE_ALL_LOCKS, disconnect) and the one it waits for (deadlock detection walks holder -> the lock it
 * waits for -> that lock's holder ...).
 *
 * Entry states:   FREE (no holder; only while waiters are about to take it) --take--> HELD(count n)
 *                 HELD(n) --take by holder--> HELD(n+1);  HELD(1) --release--> FREE (one waiter signalled;
 *                 freed when no waiter remains)
 */
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "session/ulock.h"
#include "util/blocking.h"
#include "util/util.h"
#include "util/hash.h"

enum { ULOCK_BUCKETS = 256 };

typedef struct ulock ulock_t;
struct ulock {
    ulock_t *next;        /* hash chain */
    char *name;           /* len bytes (+ NUL), compared as bytes */
    size_t len;
    ulock_owner_t *holder; /* NULL: free */
    uint64_t count;        /* GET_LOCKs of the holder not yet released */
    uint32_t waiters;
    pthread_cond_t cond;   /* its waiters sleep here; a release signals one */
};

struct ulock_owner {
    uint32_t id;            /* connection id */
    ulock_t **held;
    uint32_t nheld, capheld;
    ulock_t *waiting_for;   /* under the mutex; NULL when not waiting */
};

static struct {
    pthread_mutex_t mu;
    ulock_t *b[ULOCK_BUCKETS];
} g_ul = {.mu = PTHREAD_MUTEX_INITIALIZER};

static uint32_t hash(const char *k, size_t n)
{
    return (uint32_t)(hash_bytes(k, n) % ULOCK_BUCKETS);
}

/* The entry of a name (mu held), created when `create`. */
static ulock_t *lookup(const char *name, size_t len, bool create)
{
    uint32_t h = hash(name, len);
    for (ulock_t *l = g_ul.b[h]; l; l = l->next)
        if (l->len == len && memcmp(l->name, name, len) == 0)
            return l;
    if (!create)
        return NULL;
    ulock_t *l = mem_calloc(1, sizeof *l);
    l->name = mem_alloc(len + 1);
    memcpy(l->name, name, len);
    l->name[len] = 0;
    l->len = len;
    pthread_cond_init(&l->cond, NULL);
    l->next = g_ul.b[h];
    g_ul.b[h] = l;
    return l;
}

/* Frees an entry nobody holds or waits for (mu held). */
static void maybe_free(ulock_t *l)
{
    if (l->holder || l->waiters)
        return;
    for (ulock_t **pp = &g_ul.b[hash(l->name, l->len)]; *pp; pp = &(*pp)->next)
        if (*pp == l) {
            *pp = l->next;
            break;
        }
    pthread_cond_destroy(&l->cond);
    mem_free(l->name);
    mem_free(l);
}

static void held_add(ulock_owner_t *o, ulock_t *l)
{
    if (o->nheld == o->capheld) {
        o->capheld = o->capheld ? o->capheld * 2 : 4;
        o->held = mem_realloc(o->held, o->capheld * sizeof *o->held);
    }
    o->held[o->nheld++] = l;
}

static void held_remove(ulock_owner_t *o, ulock_t *l)
{
    for (uint32_t i = 0; i < o->nheld; i++)
        if (o->held[i] == l) {
            o->held[i] = o->held[--o->nheld];
            return;
        }
}

/* Drops the holder's hold entirely (mu held): one waiter is signalled, the entry freed if nobody waits. */
static void drop(ulock_owner_t *o, ulock_t *l)
{
    held_remove(o, l);
    l->holder = NULL;
    l->count = 0;
    if (l->waiters)
        pthread_cond_signal(&l->cond);
    else
        maybe_free(l);
}

/* Would `o` waiting for `l` close a cycle?  Follows holder -> the lock it waits for -> its holder ... (mu held). */
static bool would_deadlock(const ulock_owner_t *o, const ulock_t *l)
{
    const ulock_owner_t *h = l->holder;
    for (uint32_t steps = 0; h && steps < 100000; steps++) {
        if (h == o)
            return true;
        if (!h->waiting_for)
            return false;
        h = h->waiting_for->holder;
    }
    return false;
}

/* Has the client hung up (the peer closed its end)?  Reads nothing: the connection's socket stays the net
 * layer's. */
static bool client_gone(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

int ulock_get(ulock_owner_t **ownp, uint32_t id, const char *name, size_t len, uint64_t timeout_us,
              _Atomic bool *kill_query, _Atomic bool *killed, int client_fd)
{
    if (!*ownp) {
        *ownp = mem_calloc(1, sizeof **ownp);
        (*ownp)->id = id;
    }
    ulock_owner_t *o = *ownp;
    uint64_t now = time_mono_us();
    uint64_t deadline = timeout_us > UINT64_MAX - now ? UINT64_MAX : now + timeout_us;
    int rc;
    pthread_mutex_lock(&g_ul.mu);
    ulock_t *l = lookup(name, len, true);
    for (;;) {
        if (l->holder == o) {
            l->count++;
            rc = ULOCK_GOT;
            break;
        }
        if (!l->holder) {
            l->holder = o;
            l->count = 1;
            held_add(o, l);
            rc = ULOCK_GOT;
            break;
        }
        if (would_deadlock(o, l)) {
            rc = ULOCK_DEADLOCK;
            break;
        }
        if ((kill_query && atomic_exchange(kill_query, false)) || (killed && atomic_load(killed)) ||
            client_gone(client_fd)) {
            rc = ULOCK_KILLED;
            break;
        }
        now = time_mono_us();
        if (now >= deadline) {
            rc = ULOCK_TIMEOUT;
            break;
        }
        uint64_t step = MIN(deadline - now, 100000); /* KILL is noticed within 100 ms */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)(step * 1000);
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        l->waiters++;
        o->waiting_for = l;
        blocking_begin(); /* waiting for another session: the worker pool may grow */
        pthread_cond_timedwait(&l->cond, &g_ul.mu, &ts);
        blocking_end();
        o->waiting_for = NULL;
        l->waiters--;
    }
    if (rc != ULOCK_GOT) {
        if (!l->holder && l->waiters)
            pthread_cond_signal(&l->cond); /* a signal this waiter took on its way out goes to the next */
        maybe_free(l);
    }
    pthread_mutex_unlock(&g_ul.mu);
    return rc;
}

int ulock_release(ulock_owner_t *o, const char *name, size_t len)
{
    pthread_mutex_lock(&g_ul.mu);
    ulock_t *l = lookup(name, len, false);
    int rc;
    if (!l || !l->holder) {
        rc = -1;
    } else if (!o || l->holder != o) {
        rc = 0;
    } else {
        rc = 1;
        if (--l->count == 0)
            drop(o, l);
    }
    pthread_mutex_unlock(&g_ul.mu);
    return rc;
}

uint64_t ulock_release_all(ulock_owner_t *o)
{
    if (!o)
        return 0;
    uint64_t n = 0;
    pthread_mutex_lock(&g_ul.mu);
    while (o->nheld) {
        ulock_t *l = o->held[o->nheld - 1];
        n += l->count;
        drop(o, l);
    }
    pthread_mutex_unlock(&g_ul.mu);
    return n;
}

uint32_t ulock_holder(const char *name, size_t len)
{
    pthread_mutex_lock(&g_ul.mu);
    ulock_t *l = lookup(name, len, false);
    uint32_t id = l && l->holder ? l->holder->id : 0;
    pthread_mutex_unlock(&g_ul.mu);
    return id;
}

void ulock_owner_free(ulock_owner_t *o)
{
    if (!o)
        return;
    ulock_release_all(o);
    mem_free(o->held);
    mem_free(o);
}
