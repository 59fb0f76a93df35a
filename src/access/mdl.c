/*
 * Metadata locks (mdl.h): a table of locked names (chained hash, one mutex), each with counts of shared
 * (READ + WRITE) and WRITE holders, NO_WRITE and EXCLUSIVE holder flags, counts of their waiters and the list of
 * requests waiting on it.  A waiting request sleeps on its own condition variable until its deadline; whoever
 * changes a name's state (a release, a DDL that stops or starts waiting) wakes, with one signal each, the
 * requests waiting on that name only, and KILL QUERY wakes the one request of the killed session (mdl_kick).
 * Nobody polls.  An entry nobody holds or waits for stays in the table, idle, for the next statement on that
 * table (no allocation per statement), up to MDL_IDLE_MAX idle entries; past that it is freed.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "access/mdl.h"
#include "util/blocking.h"
#include "util/util.h"
#include "util/hash.h"

enum { MDL_BUCKETS = 1024, MDL_IDLE_MAX = 4096 };

typedef struct mdl_holder {
    mdl_set_t *s;
    uint32_t entry; /* the index in s->held */
} mdl_holder_t;

struct mdl_lock {
    struct mdl_lock *next;
    char *key; /* "db\0name" */
    size_t klen;
    uint32_t shared;      /* READ and WRITE holders */
    uint32_t writers;     /* of which WRITE */
    bool nowrite;         /* a NO_WRITE holder */
    uint32_t nowrite_waiting;
    bool excl;
    uint32_t excl_waiting;
    uint32_t refs; /* holders and waiters that point here */
    struct mdl_waiter **waiters; /* requests sleeping on this name */
    uint32_t nwaiters, wcap;
    struct mdl_holder *holders; /* one per held entry (a session with two entries on the name is here twice) */
    uint32_t nholders, hcap;
};

/* A request that waits: on the names in `on`, on its own condition variable (CLOCK_MONOTONIC). */
typedef struct mdl_waiter {
    pthread_cond_t cv;
    bool woken;
    bool victim;     /* a deadlock search chose this request: it fails with MDL_DEADLOCK */
    mdl_set_t *s;    /* the requesting session */
    mdl_mode_t want; /* the mode asked for (an upgrade asks for EXCLUSIVE) */
    _Atomic bool *kill;
    mdl_lock_t *const *on;
    uint32_t non;
    struct mdl_waiter *next, *prev; /* g_m.waiting */
} mdl_waiter_t;

static struct {
    pthread_mutex_t mu;
    mdl_lock_t *b[MDL_BUCKETS];
    uint32_t count; /* entries in the table */
    uint32_t idle;  /* of which nobody holds or waits for */
    mdl_waiter_t *waiting; /* every sleeping request (mdl_kick) */
    uint64_t wakeups;      /* signals sent to sleeping requests */
    uint64_t stamp;        /* deadlock searches so far */
    uint64_t deadlocks;    /* requests they failed */
} g_m = {.mu = PTHREAD_MUTEX_INITIALIZER};

static uint32_t hash(const char *k, size_t n)
{
    return (uint32_t)(hash_bytes(k, n) % MDL_BUCKETS);
}

/* Finds or creates the entry (mu held); takes a reference. */
static mdl_lock_t *lookup(const char *db, const char *name)
{
    size_t dl = strlen(db), nl = strlen(name), kl = dl + 1 + nl;
    char key[512];
    if (kl > sizeof key)
        kl = sizeof key; /* names are at most 64 characters: never in practice */
    memcpy(key, db, MIN(dl, sizeof key));
    if (dl + 1 < sizeof key) {
        key[dl] = 0;
        memcpy(key + dl + 1, name, MIN(nl, sizeof key - dl - 1));
    }
    uint32_t h = hash(key, kl);
    for (mdl_lock_t *l = g_m.b[h]; l; l = l->next)
        if (l->klen == kl && memcmp(l->key, key, kl) == 0) {
            if (l->refs++ == 0)
                g_m.idle--;
            return l;
        }
    mdl_lock_t *l = mem_calloc(1, sizeof *l);
    l->key = mem_alloc(kl);
    memcpy(l->key, key, kl);
    l->klen = kl;
    l->refs = 1;
    l->next = g_m.b[h];
    g_m.b[h] = l;
    g_m.count++;
    return l;
}

static void unref(mdl_lock_t *l)
{
    if (--l->refs)
        return;
    if (g_m.idle < MDL_IDLE_MAX) {
        g_m.idle++;
        return;
    }
    mdl_lock_t **pp = &g_m.b[hash(l->key, l->klen)];
    while (*pp != l)
        pp = &(*pp)->next;
    *pp = l->next;
    g_m.count--;
    mem_free(l->waiters);
    mem_free(l->holders);
    mem_free(l->key);
    mem_free(l);
}

/* Wakes the requests sleeping on l (mu held): each looks at l again.  Call before giving up a reference. */
static void wake_lock(mdl_lock_t *l)
{
    for (uint32_t i = 0; i < l->nwaiters; i++) {
        mdl_waiter_t *w = l->waiters[i];
        if (!w->woken) {
            w->woken = true;
            pthread_cond_signal(&w->cv);
            g_m.wakeups++;
        }
    }
}

/* Registers w as waiting on the n names of `on` (mu held; each already referenced by the caller). */
static void waiter_begin(mdl_waiter_t *w, mdl_set_t *s, mdl_mode_t want, mdl_lock_t *const *on, uint32_t n,
                         _Atomic bool *kill)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->want = want;
    s->wait = w;
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &a);
    pthread_condattr_destroy(&a);
    w->kill = kill;
    w->on = on;
    w->non = n;
    for (uint32_t i = 0; i < n; i++) {
        mdl_lock_t *l = on[i];
        if (l->nwaiters == l->wcap) {
            l->wcap = l->wcap ? 2 * l->wcap : 4;
            l->waiters = mem_realloc(l->waiters, l->wcap * sizeof *l->waiters);
        }
        l->waiters[l->nwaiters++] = w;
    }
    w->next = g_m.waiting;
    if (w->next)
        w->next->prev = w;
    g_m.waiting = w;
}

static void waiter_end(mdl_waiter_t *w)
{
    w->s->wait = NULL;
    for (uint32_t i = 0; i < w->non; i++) {
        mdl_lock_t *l = w->on[i];
        for (uint32_t j = 0; j < l->nwaiters; j++)
            if (l->waiters[j] == w) {
                l->waiters[j] = l->waiters[--l->nwaiters];
                break;
            }
    }
    if (w->prev)
        w->prev->next = w->next;
    else
        g_m.waiting = w->next;
    if (w->next)
        w->next->prev = w->prev;
    pthread_cond_destroy(&w->cv);
}

void mdl_kick(_Atomic bool *kill)
{
    pthread_mutex_lock(&g_m.mu);
    for (mdl_waiter_t *w = g_m.waiting; w; w = w->next)
        if (w->kill == kill && !w->woken) {
            w->woken = true;
            pthread_cond_signal(&w->cv);
            g_m.wakeups++;
        }
    pthread_mutex_unlock(&g_m.mu);
}

uint64_t mdl_wakeups(void)
{
    pthread_mutex_lock(&g_m.mu);
    uint64_t n = g_m.wakeups;
    pthread_mutex_unlock(&g_m.mu);
    return n;
}

/* The index of l in s, or -1. */
static int held_at(const mdl_set_t *s, const mdl_lock_t *l)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->held[i] == l)
            return (int)i;
    return -1;
}

static bool holds(const mdl_set_t *s, const mdl_lock_t *l) { return held_at(s, l) >= 0; }

static void add(mdl_set_t *s, mdl_lock_t *l, mdl_mode_t mode)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->held = mem_realloc(s->held, s->cap * sizeof *s->held);
        s->mode = mem_realloc(s->mode, s->cap * sizeof *s->mode);
        s->hpos = mem_realloc(s->hpos, s->cap * sizeof *s->hpos);
    }
    if (l->nholders == l->hcap) {
        l->hcap = l->hcap ? 2 * l->hcap : 4;
        l->holders = mem_realloc(l->holders, l->hcap * sizeof *l->holders);
    }
    l->holders[l->nholders] = (mdl_holder_t){s, s->n};
    s->hpos[s->n] = l->nholders++;
    s->held[s->n] = l;
    s->mode[s->n++] = (uint8_t)mode;
}

/* Takes entry i of s off its name's holders (mu held): O(1), the last holder moves into its place. */
static void unhold(mdl_set_t *s, uint32_t i)
{
    mdl_lock_t *l = s->held[i];
    uint32_t p = s->hpos[i];
    mdl_holder_t last = l->holders[--l->nholders];
    l->holders[p] = last;
    last.s->hpos[last.entry] = p;
}

/* Gives up what entry i of s holds on its lock (mu held; the entry itself stays). */
static void drop_mode(mdl_set_t *s, uint32_t i)
{
    mdl_lock_t *l = s->held[i];
    switch ((mdl_mode_t)s->mode[i]) {
    case MDL_WRITE: l->writers--; /* fall through */
    case MDL_READ: l->shared--; break;
    case MDL_NO_WRITE: l->nowrite = false; break;
    case MDL_EXCLUSIVE: l->excl = false; break;
    }
}

static _Atomic uint32_t g_waiting; /* requests asleep in wait_step now (the monitor's gauge) */

/* Sleeps (mu held) until woken or the deadline; MDL_TIMEOUT / MDL_KILLED, or 0 to look again. */
static int wait_step(mdl_waiter_t *w, uint64_t deadline)
{
    if (w->victim)
        return MDL_DEADLOCK;
    if (w->kill && atomic_exchange(w->kill, false))
        return MDL_KILLED;
    uint64_t now = time_mono_us();
    if (now >= deadline)
        return MDL_TIMEOUT;
    if (!w->woken) {
        uint64_t us = MIN(deadline - now, 86400000000ull); /* "no limit" sleeps a day at a time */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += (time_t)(us / 1000000);
        ts.tv_nsec += (long)(us % 1000000) * 1000;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        blocking_begin(); /* waiting for another session: the worker pool may grow */
        const char *was = blocking_set_state("Waiting for table metadata lock");
        atomic_fetch_add_explicit(&g_waiting, 1, memory_order_relaxed);
        pthread_cond_timedwait(&w->cv, &g_m.mu, &ts);
        atomic_fetch_sub_explicit(&g_waiting, 1, memory_order_relaxed);
        blocking_set_state(was);
        blocking_end();
    }
    w->woken = false;
    return 0;
}

/* ---------------------------------------------------------------- deadlocks */

/* The strongest mode s holds on l. */
static int mode_on(const mdl_set_t *s, const mdl_lock_t *l)
{
    int m = -1;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->held[i] == l && (int)s->mode[i] > m)
            m = s->mode[i];
    return m;
}

/* Does a holder of `held` keep a request for `want` waiting (mdl.h's table)? */
static bool conflicts(int held, mdl_mode_t want)
{
    switch (want) {
    case MDL_READ: return held == MDL_EXCLUSIVE;
    case MDL_WRITE: return held >= MDL_NO_WRITE;
    case MDL_NO_WRITE: return held >= MDL_WRITE;
    case MDL_EXCLUSIVE: return held >= MDL_READ;
    }
    return false;
}

typedef struct {
    mdl_set_t **v;
    uint32_t n, cap;
} set_list_t;

static void list_push(set_list_t *q, mdl_set_t *s)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 16;
        q->v = mem_realloc(q->v, q->cap * sizeof *q->v);
    }
    q->v[q->n++] = s;
}

/* The sessions w waits for (mu held): the holders of a conflicting mode on its names and, for a shared request,
 * the DDL waiting there before it (which holds new shared requests back). */
static void blockers(const mdl_waiter_t *w, set_list_t *out)
{
    out->n = 0;
    for (uint32_t i = 0; i < w->non; i++) {
        const mdl_lock_t *l = w->on[i];
        for (uint32_t j = 0; j < l->nholders; j++) {
            mdl_set_t *h = l->holders[j].s;
            if (h != w->s && conflicts(mode_on(h, l), w->want))
                list_push(out, h);
        }
        if (w->want > MDL_WRITE)
            continue;
        for (uint32_t j = 0; j < l->nwaiters; j++) {
            const mdl_waiter_t *o = l->waiters[j];
            if (o != w && o->s != w->s && o->want >= MDL_NO_WRITE)
                list_push(out, o->s);
        }
    }
}

/* Before w sleeps (mu held): a breadth-first walk of the wait-for graph from w's session.  A path back to it is
 * a deadlock: returns true when w itself is the victim; when another shared request of the cycle is, marks and
 * wakes it and returns false. */
static bool deadlock_search(mdl_waiter_t *w)
{
    uint64_t stamp = ++g_m.stamp;
    set_list_t queue = {0}, next = {0};
    mdl_set_t *me = w->s, *closing = NULL;
    me->visit = stamp;
    me->via = NULL;
    list_push(&queue, me);
    for (uint32_t qi = 0; qi < queue.n && !closing; qi++) {
        mdl_set_t *s = queue.v[qi];
        if (!s->wait)
            continue; /* running: it ends its transaction sometime, whatever waits for it */
        blockers(s->wait, &next);
        for (uint32_t k = 0; k < next.n && !closing; k++) {
            mdl_set_t *b = next.v[k];
            if (b == me)
                closing = s;
            else if (b->visit != stamp) {
                b->visit = stamp;
                b->via = s;
                list_push(&queue, b);
            }
        }
    }
    mem_free(queue.v);
    mem_free(next.v);
    if (!closing)
        return false;
    g_m.deadlocks++;
    if (w->want <= MDL_WRITE)
        return true;
    /* the cycle is me -> ... -> closing -> me, walked backwards through via */
    for (mdl_set_t *s = closing; s && s != me; s = s->via)
        if (s->wait && s->wait->want <= MDL_WRITE && !s->wait->victim) {
            s->wait->victim = true;
            s->wait->woken = true;
            pthread_cond_signal(&s->wait->cv);
            g_m.wakeups++;
            return false;
        }
    return true;
}

uint64_t mdl_deadlocks(void)
{
    pthread_mutex_lock(&g_m.mu);
    uint64_t n = g_m.deadlocks;
    pthread_mutex_unlock(&g_m.mu);
    return n;
}

static uint64_t deadline_of(uint64_t timeout_us)
{
    uint64_t now = time_mono_us();
    return timeout_us > UINT64_MAX - now ? UINT64_MAX : now + timeout_us;
}

static int shared_lock(mdl_set_t *s, const char *db, const char *name, bool write, uint64_t timeout_us,
                       _Atomic bool *kill)
{
    pthread_mutex_lock(&g_m.mu);
    mdl_lock_t *l = lookup(db, name);
    int at = held_at(s, l), rc = 0;
    if (at >= 0 && (!write || s->mode[at] != MDL_READ)) {
        unref(l);
        pthread_mutex_unlock(&g_m.mu);
        return 0;
    }
    uint64_t deadline = deadline_of(timeout_us);
    mdl_waiter_t w;
    bool waiting = false;
    for (;;) {
        bool blocked = at < 0 && (l->excl || l->excl_waiting);
        if (write && (l->nowrite || l->nowrite_waiting || l->excl || l->excl_waiting)) {
            if (at >= 0) { /* raising a READ past a DDL that waits for, or will wait for, this very READ */
                rc = MDL_DEADLOCK;
                break;
            }
            blocked = true;
        }
        if (!blocked)
            break;
        if (!waiting) {
            waiter_begin(&w, s, write ? MDL_WRITE : MDL_READ, &l, 1, kill);
            waiting = true;
            if (deadlock_search(&w)) {
                rc = MDL_DEADLOCK;
                break;
            }
        }
        if ((rc = wait_step(&w, deadline)) != 0)
            break;
    }
    if (waiting)
        waiter_end(&w);
    if (rc == 0 && at >= 0) {
        s->mode[at] = MDL_WRITE;
        l->writers++;
        unref(l);
    } else if (rc == 0) {
        l->shared++;
        l->writers += write;
        add(s, l, write ? MDL_WRITE : MDL_READ);
    } else {
        unref(l);
    }
    pthread_mutex_unlock(&g_m.mu);
    return rc;
}

int mdl_shared(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill)
{
    return shared_lock(s, db, name, false, timeout_us, kill);
}

int mdl_shared_write(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill)
{
    return shared_lock(s, db, name, true, timeout_us, kill);
}

/* Shared entries of s on l (a session's own READ/WRITE do not block its DDL). */
static uint32_t own_shared(const mdl_set_t *s, const mdl_lock_t *l, bool writers_only)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->held[i] == l && (s->mode[i] == MDL_WRITE || (!writers_only && s->mode[i] == MDL_READ)))
            n++;
    return n;
}

int mdl_no_write(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill)
{
    pthread_mutex_lock(&g_m.mu);
    mdl_lock_t *l = lookup(db, name);
    int at = held_at(s, l), rc = 0;
    if (at >= 0 && s->mode[at] >= MDL_NO_WRITE) {
        unref(l);
        pthread_mutex_unlock(&g_m.mu);
        return 0;
    }
    uint64_t deadline = deadline_of(timeout_us);
    /* While it waits it holds back new readers too, as MariaDB's ALTER waiting for its first EXCLUSIVE does */
    l->nowrite_waiting++;
    l->excl_waiting++;
    mdl_waiter_t w;
    waiter_begin(&w, s, MDL_NO_WRITE, &l, 1, kill);
    bool blocked = l->excl || l->nowrite || l->writers > own_shared(s, l, true);
    if (blocked && deadlock_search(&w))
        rc = MDL_DEADLOCK;
    while (!rc && (l->excl || l->nowrite || l->writers > own_shared(s, l, true)))
        if ((rc = wait_step(&w, deadline)) != 0)
            break;
    waiter_end(&w);
    l->nowrite_waiting--;
    l->excl_waiting--;
    wake_lock(l); /* readers (on success) or writers too (on failure) held back by our waiting may go */
    if (rc == 0) {
        l->nowrite = true;
        add(s, l, MDL_NO_WRITE);
    } else {
        unref(l);
    }
    pthread_mutex_unlock(&g_m.mu);
    return rc;
}

int mdl_upgrade(mdl_set_t *s, uint64_t timeout_us, _Atomic bool *kill)
{
    pthread_mutex_lock(&g_m.mu);
    uint64_t deadline = deadline_of(timeout_us);
    int rc = 0;
    for (uint32_t i = 0; i < s->n && !rc; i++) {
        if (s->mode[i] != MDL_NO_WRITE)
            continue;
        mdl_lock_t *l = s->held[i];
        l->excl_waiting++;
        wake_lock(l); /* a reader about to write must see it and give up (MDL_DEADLOCK) */
        mdl_waiter_t w;
        waiter_begin(&w, s, MDL_EXCLUSIVE, &l, 1, kill);
        if (l->shared > own_shared(s, l, false) && deadlock_search(&w))
            rc = MDL_DEADLOCK;
        while (!rc && l->shared > own_shared(s, l, false))
            if ((rc = wait_step(&w, deadline)) != 0)
                break;
        waiter_end(&w);
        l->excl_waiting--;
        if (rc == 0) {
            l->nowrite = false;
            l->excl = true;
            s->mode[i] = MDL_EXCLUSIVE;
        } else {
            wake_lock(l); /* requests held back by our waiting may go */
        }
    }
    pthread_mutex_unlock(&g_m.mu);
    return rc;
}

int mdl_exclusive(mdl_set_t *s, const char *const *dbs, const char *const *names, uint32_t n, uint64_t timeout_us,
                  _Atomic bool *kill)
{
    pthread_mutex_lock(&g_m.mu);
    mdl_lock_t **want = mem_calloc(n ? n : 1, sizeof *want);
    for (uint32_t i = 0; i < n; i++) {
        want[i] = lookup(dbs[i], names[i]);
        want[i]->excl_waiting++;
    }
    uint64_t deadline = deadline_of(timeout_us);
    int rc = 0;
    mdl_waiter_t w;
    bool waiting = false;
    for (;;) {
        bool free_all = true;
        for (uint32_t i = 0; i < n && free_all; i++) {
            mdl_lock_t *l = want[i];
            bool mine = holds(s, l);
            /* a name this session holds shared alone can be upgraded; two entries for one name count once */
            int at = held_at(s, l);
            free_all = !l->excl && (!l->nowrite || (at >= 0 && s->mode[at] == MDL_NO_WRITE)) &&
                       l->shared <= (mine ? own_shared(s, l, false) : 0u);
        }
        if (free_all)
            break;
        if (!waiting) {
            waiter_begin(&w, s, MDL_EXCLUSIVE, want, n, kill);
            waiting = true;
            if (deadlock_search(&w)) {
                rc = MDL_DEADLOCK;
                break;
            }
        }
        if ((rc = wait_step(&w, deadline)) != 0)
            break;
    }
    if (waiting)
        waiter_end(&w);
    for (uint32_t i = 0; i < n; i++) {
        mdl_lock_t *l = want[i];
        l->excl_waiting--;
        if (rc)
            wake_lock(l); /* shared requests held back by our waiting may go */
        if (rc == 0 && !l->excl) {
            if (holds(s, l)) { /* upgrade in place */
                for (uint32_t k = 0; k < s->n; k++)
                    if (s->held[k] == l && s->mode[k] != MDL_EXCLUSIVE) {
                        drop_mode(s, k);
                        s->mode[k] = MDL_EXCLUSIVE;
                    }
                l->excl = true;
                unref(l);
            } else {
                l->excl = true;
                add(s, l, MDL_EXCLUSIVE);
            }
        } else {
            unref(l); /* duplicate name in the list, or failure */
        }
    }
    pthread_mutex_unlock(&g_m.mu);
    mem_free(want);
    return rc;
}

void mdl_release_all(mdl_set_t *s)
{
    if (!s->n)
        return;
    pthread_mutex_lock(&g_m.mu);
    for (uint32_t i = 0; i < s->n; i++) {
        drop_mode(s, i);
        unhold(s, i);
        wake_lock(s->held[i]);
        unref(s->held[i]);
    }
    s->n = 0;
    pthread_mutex_unlock(&g_m.mu);
}

void mdl_set_free(mdl_set_t *s)
{
    mdl_release_all(s);
    mem_free(s->held);
    mem_free(s->mode);
    mem_free(s->hpos);
    s->held = NULL;
    s->mode = NULL;
    s->hpos = NULL;
    s->cap = 0;
}

uint32_t mdl_waiting(void) { return atomic_load_explicit(&g_waiting, memory_order_relaxed); }

uint32_t mdl_count(void)
{
    pthread_mutex_lock(&g_m.mu);
    uint32_t n = g_m.count - g_m.idle;
    pthread_mutex_unlock(&g_m.mu);
    return n;
}
