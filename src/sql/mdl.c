/*
 * Metadata locks (mdl.h): a table of locked names (chained hash, one mutex), each with a count of SHARED
 * holders, an EXCLUSIVE holder flag and a count of EXCLUSIVE waiters; one condition variable for every waiter
 * (waits are rare: only around DDL), woken by broadcast when a lock is released.  An entry nobody holds or waits
 * for stays in the table, idle, for the next statement on that table (no allocation per statement), up to
 * MDL_IDLE_MAX idle entries; past that it is freed.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "sql/mdl.h"
#include "util/blocking.h"
#include "util/util.h"
#include "util/hash.h"

enum { MDL_BUCKETS = 1024, MDL_IDLE_MAX = 4096 };

struct mdl_lock {
    struct mdl_lock *next;
    char *key; /* "db\0name" */
    size_t klen;
    uint32_t shared;
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

static bool holds(const mdl_set_t *s, const mdl_lock_t *l)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->held[i] == l)
            return true;
    return false;
}

static void add(mdl_set_t *s, mdl_lock_t *l, bool excl)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->held = mem_realloc(s->held, s->cap * sizeof *s->held);
        s->exclusive = mem_realloc(s->exclusive, s->cap * sizeof *s->exclusive);
    }
    s->held[s->n] = l;
    s->exclusive[s->n++] = excl;
}

/* Waits on the shared condition for up to 100 ms (mu held); MDL_TIMEOUT / MDL_KILLED or 0 to look again. */
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
    pthread_cond_timedwait(&g_m.cond, &g_m.mu, &ts);
    blocking_set_state(was);
    blocking_end();
    return 0;
}

static uint64_t deadline_of(uint64_t timeout_us)
{
    uint64_t now = time_mono_us();
    return timeout_us > UINT64_MAX - now ? UINT64_MAX : now + timeout_us;
}

int mdl_shared(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill)
{
    pthread_mutex_lock(&g_m.mu);
    mdl_lock_t *l = lookup(db, name);
    if (holds(s, l)) {
        unref(l);
        pthread_mutex_unlock(&g_m.mu);
        return 0;
    }
    uint64_t deadline = deadline_of(timeout_us);
    int rc = 0;
    while (l->excl || l->excl_waiting)
        if ((rc = wait_step(deadline, kill)) != 0)
            break;
    if (rc == 0) {
        l->shared++;
        add(s, l, false);
    } else {
        unref(l);
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
    for (;;) {
        bool free_all = true;
        for (uint32_t i = 0; i < n && free_all; i++) {
            mdl_lock_t *l = want[i];
            bool mine = holds(s, l);
            /* a name this session holds SHARED alone can be upgraded; two entries for one name count once */
            free_all = !l->excl && l->shared <= (mine ? 1u : 0u);
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
                    if (s->held[k] == l && !s->exclusive[k]) {
                        s->exclusive[k] = true;
                        l->shared--;
                    }
                l->excl = true;
                unref(l);
            } else {
                l->excl = true;
                add(s, l, true);
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
        mdl_lock_t *l = s->held[i];
        if (s->exclusive[i])
            l->excl = false;
        else
            l->shared--;
        unref(l);
    }
    s->n = 0;
    pthread_cond_broadcast(&g_m.cond);
    pthread_mutex_unlock(&g_m.mu);
}

void mdl_set_free(mdl_set_t *s)
{
    mdl_release_all(s);
    mem_free(s->held);
    mem_free(s->exclusive);
    s->held = NULL;
    s->exclusive = NULL;
    s->cap = 0;
}

uint32_t mdl_count(void)
{
    pthread_mutex_lock(&g_m.mu);
    uint32_t n = g_m.count - g_m.idle;
    pthread_mutex_unlock(&g_m.mu);
    return n;
}
