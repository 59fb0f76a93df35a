/*
 * Metadata locks (mdl.h): a table of locked names (chained hash, one mutex), each with counts of shared
 * (READ + WRITE) and WRITE holders, NO_WRITE and EXCLUSIVE holder flags and counts of their waiters; one condition variable for every waiter
 * (waits are rare: only around DDL), woken by broadcast when a lock is released.  An entry nobody holds or waits
 * for stays in the table, idle, for the next statement on that table (no allocation per statement), up to
 * MDL_IDLE_MAX idle entries; past that it is freed.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "access/mdl.h"
#include "util/blocking.h"
#include "util/util.h"
#include "util/hash.h"

enum { MDL_BUCKETS = 1024, MDL_IDLE_MAX = 4096 };

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
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    mdl_lock_t *b[MDL_BUCKETS];
    uint32_t count; /* entries in the table */
    uint32_t idle;  /* of which nobody holds or waits for */
} g_m = {.mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

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
    mem_free(l->key);
    mem_free(l);
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
    }
    s->held[s->n] = l;
    s->mode[s->n++] = (uint8_t)mode;
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

/* Waits on the shared condition for up to 100 ms (mu held); MDL_TIMEOUT / MDL_KILLED or 0 to look again. */
static _Atomic uint32_t g_waiting; /* sessions in wait_step now (the monitor's gauge) */

static int wait_step(uint64_t deadline, _Atomic bool *kill)
{
    if (kill && atomic_exchange(kill, false))
        return MDL_KILLED;
    uint64_t now = time_mono_us();
    if (now >= deadline)
        return MDL_TIMEOUT;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t step = MIN(deadline - now, 100000);
    ts.tv_nsec += (long)(step * 1000);
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    blocking_begin(); /* waiting for another session: the worker pool may grow */
    const char *was = blocking_set_state("Waiting for table metadata lock");
    atomic_fetch_add_explicit(&g_waiting, 1, memory_order_relaxed);
    pthread_cond_timedwait(&g_m.cond, &g_m.mu, &ts);
    atomic_fetch_sub_explicit(&g_waiting, 1, memory_order_relaxed);
    blocking_set_state(was);
    blocking_end();
    return 0;
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
    for (;;) {
        bool blocked = at < 0 && (l->excl || l->excl_waiting);
        if (write && (l->nowrite || l->nowrite_waiting || l->excl || l->excl_waiting)) {
            if (at >= 0) { /* raising a READ past a DDL that waits for, or will wait for, this very READ */
                rc = MDL_DEADLOCK;
                break;
            }
            blocked = true;
        }
        if (!blocked || (rc = wait_step(deadline, kill)) != 0)
            break;
    }
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
    while (l->excl || l->nowrite || l->writers > own_shared(s, l, true))
        if ((rc = wait_step(deadline, kill)) != 0)
            break;
    l->nowrite_waiting--;
    l->excl_waiting--;
    if (rc == 0)
        pthread_cond_broadcast(&g_m.cond); /* readers held back by our waiting may go */
    if (rc == 0) {
        l->nowrite = true;
        add(s, l, MDL_NO_WRITE);
    } else {
        unref(l);
        pthread_cond_broadcast(&g_m.cond); /* writers held back by our waiting may go */
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
        pthread_cond_broadcast(&g_m.cond); /* a reader about to write must see it and give up (MDL_DEADLOCK) */
        while (l->shared > own_shared(s, l, false))
            if ((rc = wait_step(deadline, kill)) != 0)
                break;
        l->excl_waiting--;
        if (rc == 0) {
            l->nowrite = false;
            l->excl = true;
            s->mode[i] = MDL_EXCLUSIVE;
        }
    }
    if (rc)
        pthread_cond_broadcast(&g_m.cond);
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
        if ((rc = wait_step(deadline, kill)) != 0)
            break;
    }
    for (uint32_t i = 0; i < n; i++) {
        mdl_lock_t *l = want[i];
        l->excl_waiting--;
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
    if (rc)
        pthread_cond_broadcast(&g_m.cond); /* shared requests held back by our waiting may go */
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
        unref(s->held[i]);
    }
    s->n = 0;
    pthread_cond_broadcast(&g_m.cond);
    pthread_mutex_unlock(&g_m.mu);
}

void mdl_set_free(mdl_set_t *s)
{
    mdl_release_all(s);
    mem_free(s->held);
    mem_free(s->mode);
    s->held = NULL;
    s->mode = NULL;
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
