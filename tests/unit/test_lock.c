/* Unit tests for gap (next-key) locks: the lock manager alone (engine/lock.h: gap conflicts with inserts only,
 * insert intentions that do not conflict, in-flight inserts and the epoch, gaps extended by a scan, wake-up on
 * release, deadlock through gaps), then through the engine API (engine_cursor_lock and engine_lock_key at
 * REPEATABLE READ against READ COMMITTED, which takes no gap locks) and a stress test: scanners that repeat a
 * locking range read while other threads insert into the range must never see a phantom. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/lock.h"
#include "unit.h"
#include "util/util.h"

#define SHORT_US 50000 /* a wait that must time out */

static lock_bound_t B(const char *k) { return (lock_bound_t){k, strlen(k), false}; }
static const lock_bound_t INF = {NULL, 0, true};

static int ins(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const char *k, uint64_t us)
{
    int rc = lock_insert_begin(ls, o, tree, k, strlen(k), us);
    if (rc == 0)
        lock_insert_end(ls, o);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(test_lock_gap_blocks_inserts_only)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t a, b;
    lock_owner_init(&a, 1);
    lock_owner_init(&b, 2);
    lock_gap_t *hint = NULL;
    buf_t inflight;
    buf_init(&inflight);
    /* a holds the gap ("k10", "k20") of tree 7 */
    CHECK_EQ_INT(lock_gap(ls, &a, 7, B("k10"), B("k20"), LOCK_X, lock_insert_epoch(ls, 7), &hint, &inflight), 0);
    CHECK(hint != NULL);
    CHECK(lock_gap_covers(ls, &b, 7, "k15", 3));
    CHECK(!lock_gap_covers(ls, &a, 7, "k15", 3)); /* not against its own owner */
    CHECK(!lock_gap_covers(ls, &b, 7, "k10", 3)); /* open interval: the ends are records, not gap */
    CHECK(!lock_gap_covers(ls, &b, 7, "k20", 3));
    CHECK(!lock_gap_covers(ls, &b, 8, "k15", 3)); /* another tree */
    double t0 = now_s();
    CHECK_EQ_INT(ins(ls, &b, 7, "k15", SHORT_US), ENGINE_ELOCKWAIT);
    CHECK(now_s() - t0 >= 0.04);
    CHECK_EQ_INT(ins(ls, &b, 7, "k100", SHORT_US), ENGINE_ELOCKWAIT); /* "k100" sorts between k10 and k20 */
    CHECK_EQ_INT(ins(ls, &b, 7, "k20", SHORT_US), 0);
    CHECK_EQ_INT(ins(ls, &b, 7, "k05", SHORT_US), 0);
    CHECK_EQ_INT(ins(ls, &b, 7, "k25", SHORT_US), 0);
    CHECK_EQ_INT(ins(ls, &b, 8, "k15", SHORT_US), 0);
    CHECK_EQ_INT(ins(ls, &a, 7, "k15", SHORT_US), 0); /* its own gap does not stop a */
    /* gaps never conflict with gaps, whatever the modes: b locks an overlapping gap at once */
    lock_gap_t *hb = NULL;
    CHECK_EQ_INT(lock_gap(ls, &b, 7, B("k12"), INF, LOCK_X, lock_insert_epoch(ls, 7), &hb, &inflight), 0);
    CHECK_EQ_INT(lock_gap_count(ls, &b), 1);
    /* record locks are not affected by gaps: b may lock k16 or k10 (k15 is a's: it inserted it) */
    CHECK_EQ_INT(lock_acquire(ls, &b, 7, "k15", 3, LOCK_X, SHORT_US), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(lock_acquire(ls, &b, 7, "k16", 3, LOCK_X, SHORT_US), 0);
    CHECK_EQ_INT(lock_acquire(ls, &b, 7, "k10", 3, LOCK_X, SHORT_US), 0);
    /* now a's insert above k12 waits for b's gap */
    CHECK_EQ_INT(ins(ls, &a, 7, "k90", SHORT_US), ENGINE_ELOCKWAIT);
    lock_release_all(ls, &b);
    CHECK_EQ_INT(ins(ls, &a, 7, "k90", SHORT_US), 0);
    CHECK_EQ_INT(ins(ls, &b, 7, "k17", SHORT_US), ENGINE_ELOCKWAIT); /* a still holds its gap */
    /* ... and the failed insert left no record lock behind: a can still lock k17 */
    CHECK_EQ_INT(lock_acquire(ls, &a, 7, "k17", 3, LOCK_X, SHORT_US), 0);
    lock_release_all(ls, &a);
    CHECK_EQ_INT(ins(ls, &b, 7, "k17", SHORT_US), 0);
    CHECK_EQ_INT(ins(ls, &b, 7, "k15", SHORT_US), 0);
    CHECK_EQ_INT(lock_gap_count(ls, &a), 0);
    buf_free(&inflight);
    lock_owner_destroy(&a);
    lock_owner_destroy(&b);
    lock_sys_destroy(ls);
}

TEST(test_lock_insert_intention_inflight_epoch)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t a, b, c;
    lock_owner_init(&a, 1);
    lock_owner_init(&b, 2);
    lock_owner_init(&c, 3);
    buf_t inflight;
    buf_init(&inflight);
    /* insert intentions do not conflict: a and b are both inserting into the same gap at once */
    CHECK_EQ_INT(lock_insert_begin(ls, &a, 7, "k15", 3, SHORT_US), 0);
    CHECK_EQ_INT(lock_insert_begin(ls, &b, 7, "k16", 3, SHORT_US), 0);
    /* c read the keys k10 and k20 before those inserts land: its gap covers in-flight keys, so it is refused
     * with one of them (it must wait for that key's record lock and read again) */
    uint64_t ep = lock_insert_epoch(ls, 7);
    lock_gap_t *h = NULL;
    CHECK_EQ_INT(lock_gap(ls, &c, 7, B("k10"), B("k20"), LOCK_S, ep, &h, &inflight), LOCK_GAP_INFLIGHT);
    CHECK(inflight.len == 3 && (memcmp(inflight.data, "k15", 3) == 0 || memcmp(inflight.data, "k16", 3) == 0));
    CHECK(h == NULL);
    CHECK_EQ_INT(lock_gap_count(ls, &c), 0);
    /* a gap elsewhere is granted */
    CHECK_EQ_INT(lock_gap(ls, &c, 7, B("k30"), B("k40"), LOCK_S, ep, &h, &inflight), 0);
    /* the inserts land: the epoch moves, and a gap granted on keys read before that is stale */
    lock_insert_end(ls, &a);
    lock_insert_end(ls, &b);
    CHECK(lock_insert_epoch(ls, 7) != ep);
    lock_gap_t *h2 = NULL;
    CHECK_EQ_INT(lock_gap(ls, &c, 7, B("k10"), B("k20"), LOCK_S, ep, &h2, &inflight), LOCK_GAP_STALE);
    CHECK(h2 != NULL); /* granted all the same */
    CHECK_EQ_INT(lock_gap(ls, &c, 7, B("k10"), B("k20"), LOCK_S, lock_insert_epoch(ls, 7), &h2, &inflight), 0);
    /* an insert into another tree moves only that tree's epoch (bucket) */
    ep = lock_insert_epoch(ls, 7);
    CHECK_EQ_INT(ins(ls, &a, 8, "x", SHORT_US), 0);
    CHECK_EQ_INT(lock_insert_epoch(ls, 7), ep);
    buf_free(&inflight);
    lock_release_all(ls, &a);
    lock_release_all(ls, &b);
    lock_release_all(ls, &c);
    lock_owner_destroy(&a);
    lock_owner_destroy(&b);
    lock_owner_destroy(&c);
    lock_sys_destroy(ls);
}

TEST(test_lock_gap_extends_along_a_scan)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t a, b;
    lock_owner_init(&a, 1);
    lock_owner_init(&b, 2);
    buf_t inflight;
    buf_init(&inflight);
    lock_gap_t *h = NULL;
    uint64_t ep = lock_insert_epoch(ls, 1);
    /* a scan: (k05, k10), k10, (k10, k20), k20, (k20, +inf) is one interval */
    CHECK_EQ_INT(lock_gap(ls, &a, 1, B("k05"), B("k10"), LOCK_X, ep, &h, &inflight), 0);
    CHECK_EQ_INT(lock_gap(ls, &a, 1, B("k10"), B("k20"), LOCK_X, ep, &h, &inflight), 0);
    CHECK_EQ_INT(lock_gap(ls, &a, 1, B("k20"), INF, LOCK_X, ep, &h, &inflight), 0);
    CHECK_EQ_INT(lock_gap_count(ls, &a), 1);
    CHECK(lock_gap_covers(ls, &b, 1, "k07", 3));
    CHECK(lock_gap_covers(ls, &b, 1, "k15", 3));
    CHECK(lock_gap_covers(ls, &b, 1, "zzz", 3));
    CHECK(!lock_gap_covers(ls, &b, 1, "k05", 3));
    CHECK(!lock_gap_covers(ls, &b, 1, "a", 1));
    /* backwards (a descending scan) widens the low end */
    CHECK_EQ_INT(lock_gap(ls, &a, 1, INF, B("k05"), LOCK_X, ep, &h, &inflight), 0);
    CHECK_EQ_INT(lock_gap_count(ls, &a), 1);
    CHECK(lock_gap_covers(ls, &b, 1, "a", 1));
    /* a disjoint interval (another scan, no hint) is a second gap */
    lock_gap_t *h2 = NULL;
    CHECK_EQ_INT(lock_gap(ls, &a, 2, B("m"), B("n"), LOCK_S, ep, &h2, &inflight), 0);
    CHECK_EQ_INT(lock_gap_count(ls, &a), 2);
    CHECK(h2 != h);
    buf_free(&inflight);
    lock_release_all(ls, &a);
    CHECK(!lock_gap_covers(ls, NULL, 1, "k15", 3));
    lock_owner_destroy(&a);
    lock_owner_destroy(&b);
    lock_sys_destroy(ls);
}

typedef struct {
    lock_sys_t *ls;
    lock_owner_t *o;
    uint64_t tree;
    const char *key;
    uint64_t us;
    int rc;
    double waited;
} ins_arg_t;

static void *ins_thread(void *p)
{
    ins_arg_t *a = p;
    double t0 = now_s();
    a->rc = ins(a->ls, a->o, a->tree, a->key, a->us);
    a->waited = now_s() - t0;
    return NULL;
}

typedef struct {
    lock_sys_t *ls;
    lock_owner_t *o;
    int rc;
} rec_arg_t;

static void *rec_thread(void *p)
{
    rec_arg_t *a = p;
    a->rc = lock_acquire(a->ls, a->o, 1, "r", 1, LOCK_X, 5000000);
    return NULL;
}

TEST(test_lock_gap_release_wakes_and_deadlock)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t a, b;
    lock_owner_init(&a, 1);
    lock_owner_init(&b, 2);
    buf_t inflight;
    buf_init(&inflight);
    lock_gap_t *ha = NULL, *hb = NULL;
    /* both hold the gap (k10, k20) */
    CHECK_EQ_INT(lock_gap(ls, &a, 1, B("k10"), B("k20"), LOCK_X, lock_insert_epoch(ls, 1), &ha, &inflight), 0);
    CHECK_EQ_INT(lock_gap(ls, &b, 1, B("k10"), B("k20"), LOCK_X, lock_insert_epoch(ls, 1), &hb, &inflight), 0);
    /* a inserts k15: waits for b's gap */
    ins_arg_t x = {ls, &a, 1, "k15", 5000000, -1, 0};
    pthread_t th;
    pthread_create(&th, NULL, ins_thread, &x);
    usleep(100000);
    /* b inserting k16 would wait for a, which waits for b: a deadlock, b is refused at once */
    double t0 = now_s();
    CHECK_EQ_INT(ins(ls, &b, 1, "k16", 5000000), ENGINE_EDEADLOCK);
    CHECK(now_s() - t0 < 1.0);
    CHECK_EQ_INT(lock_deadlocks(ls), 1);
    /* the victim releases: a goes in, woken (long before its 5 s timeout) */
    lock_release_all(ls, &b);
    pthread_join(th, NULL);
    CHECK_EQ_INT(x.rc, 0);
    CHECK(x.waited >= 0.09 && x.waited < 2.0);
    /* a record wait and a gap wait in one cycle: a holds the gap (k30, k40) and waits for b's record r; b's
     * insert into a's gap closes the cycle */
    lock_gap_t *h3 = NULL;
    CHECK_EQ_INT(lock_gap(ls, &a, 1, B("k30"), B("k40"), LOCK_S, lock_insert_epoch(ls, 1), &h3, &inflight), 0);
    CHECK_EQ_INT(lock_acquire(ls, &b, 1, "r", 1, LOCK_X, SHORT_US), 0);
    rec_arg_t y = {ls, &a, -1};
    pthread_create(&th, NULL, rec_thread, &y);
    usleep(100000);
    CHECK_EQ_INT(ins(ls, &b, 1, "k35", 5000000), ENGINE_EDEADLOCK);
    CHECK_EQ_INT(lock_deadlocks(ls), 2);
    CHECK_EQ_INT(ins(ls, &b, 1, "k45", SHORT_US), 0); /* outside the gap: fine */
    lock_release_all(ls, &b);
    pthread_join(th, NULL);
    CHECK_EQ_INT(y.rc, 0);
    buf_free(&inflight);
    lock_release_all(ls, &a);
    lock_release_all(ls, &b);
    lock_owner_destroy(&a);
    lock_owner_destroy(&b);
    lock_sys_destroy(ls);
}

/* A kill flag set and kicked ends a record wait and an insert wait at once with ENGINE_EINTR (not at the 5 s
 * timeout); the flag is consumed, another owner's flag wakes nobody, and the killed waiter left no lock behind. */
TEST(test_lock_kick_ends_waits_at_once)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t a, b;
    lock_owner_init(&a, 1);
    lock_owner_init(&b, 2);
    _Atomic bool kill = false, other = false;
    b.kill = &kill;
    CHECK_EQ_INT(lock_acquire(ls, &a, 1, "r", 1, LOCK_X, SHORT_US), 0);
    rec_arg_t y = {ls, &b, -1};
    pthread_t th;
    pthread_create(&th, NULL, rec_thread, &y);
    usleep(100000);
    lock_kick(ls, &other); /* not b's flag: b sleeps on */
    usleep(50000);
    CHECK_EQ_INT(y.rc, -1);
    double t0 = now_s();
    atomic_store(&kill, true);
    lock_kick(ls, &kill);
    pthread_join(th, NULL);
    CHECK_EQ_INT(y.rc, ENGINE_EINTR);
    CHECK(now_s() - t0 < 1.0);
    CHECK(!atomic_load(&kill));
    /* an insert waiting for a's gap ends the same way */
    buf_t inflight;
    buf_init(&inflight);
    lock_gap_t *ha = NULL;
    CHECK_EQ_INT(lock_gap(ls, &a, 1, B("k10"), B("k20"), LOCK_X, lock_insert_epoch(ls, 1), &ha, &inflight), 0);
    ins_arg_t x = {ls, &b, 1, "k15", 5000000, -1, 0};
    pthread_create(&th, NULL, ins_thread, &x);
    usleep(100000);
    atomic_store(&kill, true);
    lock_kick(ls, &kill);
    pthread_join(th, NULL);
    CHECK_EQ_INT(x.rc, ENGINE_EINTR);
    CHECK(x.waited < 1.0);
    /* b holds nothing: once a is gone b takes the record without waiting */
    lock_release_all(ls, &a);
    CHECK_EQ_INT(lock_acquire(ls, &b, 1, "r", 1, LOCK_X, SHORT_US), 0);
    buf_free(&inflight);
    lock_release_all(ls, &b);
    lock_owner_destroy(&a);
    lock_owner_destroy(&b);
    lock_sys_destroy(ls);
}

/* ---------------------------------------------------------------- partitions and wake-ups */

typedef struct {
    lock_sys_t *ls;
    lock_owner_t o;
    const char *key;
    bool insert;     /* an insert of key into tree 1 (else an X record lock of key) */
    _Atomic int rc;  /* -1 while waiting */
} waiter_arg_t;

static void *waiter_thread(void *p)
{
    waiter_arg_t *a = p;
    int rc = a->insert ? ins(a->ls, &a->o, 1, a->key, 5000000)
                       : lock_acquire(a->ls, &a->o, 1, a->key, strlen(a->key), LOCK_X, 5000000);
    lock_release_all(a->ls, &a->o); /* hands the lock on at once */
    a->rc = rc;
    return NULL;
}

static int count_done(waiter_arg_t *w, int from, int n)
{
    int d = 0;
    for (int i = from; i < from + n; i++)
        d += w[i].rc == 0;
    return d;
}

/* Six transactions queue for one record, three for another: each release wakes exactly the one waiter that gets
 * the lock next (six signals for six grants, where waking every waiter of the record would send 6+5+...+1 = 21),
 * and nobody waiting for the other record is woken. */
TEST(test_lock_record_waiters_woken_one_by_one)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t m, n;
    lock_owner_init(&m, 100);
    lock_owner_init(&n, 101);
    REQUIRE(lock_acquire(ls, &m, 1, "k", 1, LOCK_X, SHORT_US) == 0);
    REQUIRE(lock_acquire(ls, &n, 1, "j", 1, LOCK_X, SHORT_US) == 0);
    enum { NK = 6, NJ = 3 };
    waiter_arg_t w[NK + NJ];
    pthread_t th[NK + NJ];
    for (int i = 0; i < NK + NJ; i++) {
        w[i].ls = ls;
        lock_owner_init(&w[i].o, (uint64_t)i + 1);
        w[i].key = i < NK ? "k" : "j";
        w[i].insert = false;
        w[i].rc = -1;
        pthread_create(&th[i], NULL, waiter_thread, &w[i]);
    }
    while (lock_waits(ls) < NK + NJ)
        usleep(1000);
    usleep(20000);
    uint64_t w0 = lock_wakeups(ls);
    lock_release_all(ls, &m);
    for (int i = 0; i < NK; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(count_done(w, 0, NK), NK);
    CHECK_EQ_INT(lock_wakeups(ls) - w0, NK);
    usleep(20000);
    CHECK_EQ_INT(count_done(w, NK, NJ), 0); /* still waiting, never woken */
    lock_release_all(ls, &n);
    for (int i = NK; i < NK + NJ; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(count_done(w, NK, NJ), NJ);
    CHECK_EQ_INT(lock_wakeups(ls) - w0, NK + NJ);
    for (int i = 0; i < NK + NJ; i++)
        lock_owner_destroy(&w[i].o);
    lock_owner_destroy(&m);
    lock_owner_destroy(&n);
    lock_sys_destroy(ls);
}

/* Inserts wait on two gaps of one tree held by two transactions: when one gives its gap back, exactly the inserts
 * into that gap are woken (and go in); the ones inside the other gap sleep on. */
TEST(test_lock_insert_waiters_woken_by_their_gap)
{
    lock_sys_t *ls = lock_sys_create();
    lock_owner_t g1, g2;
    lock_owner_init(&g1, 100);
    lock_owner_init(&g2, 101);
    buf_t inflight;
    buf_init(&inflight);
    lock_gap_t *h1 = NULL, *h2 = NULL;
    REQUIRE(lock_gap(ls, &g1, 1, B("a"), B("m"), LOCK_S, lock_insert_epoch(ls, 1), &h1, &inflight) == 0);
    REQUIRE(lock_gap(ls, &g2, 1, B("m"), B("z"), LOCK_S, lock_insert_epoch(ls, 1), &h2, &inflight) == 0);
    static const char *keys[6] = {"c", "d", "e", "p", "q", "r"};
    waiter_arg_t w[6];
    pthread_t th[6];
    for (int i = 0; i < 6; i++) {
        w[i].ls = ls;
        lock_owner_init(&w[i].o, (uint64_t)i + 1);
        w[i].key = keys[i];
        w[i].insert = true;
        w[i].rc = -1;
        pthread_create(&th[i], NULL, waiter_thread, &w[i]);
    }
    while (lock_waits(ls) < 6)
        usleep(1000);
    usleep(20000);
    uint64_t w0 = lock_wakeups(ls);
    lock_release_all(ls, &g1);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(count_done(w, 0, 3), 3);
    CHECK_EQ_INT(lock_wakeups(ls) - w0, 3);
    usleep(20000);
    CHECK_EQ_INT(count_done(w, 3, 3), 0);
    lock_release_all(ls, &g2);
    for (int i = 3; i < 6; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(count_done(w, 3, 3), 3);
    CHECK_EQ_INT(lock_wakeups(ls) - w0, 6);
    for (int i = 0; i < 6; i++)
        lock_owner_destroy(&w[i].o);
    buf_free(&inflight);
    lock_owner_destroy(&g1);
    lock_owner_destroy(&g2);
    lock_sys_destroy(ls);
}

/* Eight threads take X locks on two random keys of 24 (spread over trees, so over partitions) in random order,
 * bump a counter per key that only the lock protects, and release: deadlocks are found across partitions (the
 * victim gives up), nothing hangs, and every counter equals the number of grants of its key. */
#define STRESS_KEYS 24
static uint32_t stress_count[STRESS_KEYS];
static _Atomic uint32_t stress_grants[STRESS_KEYS];

typedef struct {
    lock_sys_t *ls;
    unsigned seed;
    int id;
    int deadlocks, timeouts;
} stress_arg_t;

static void *lock_stress_thread(void *p)
{
    stress_arg_t *a = p;
    lock_owner_t o;
    for (int i = 0; i < 1500; i++) {
        lock_owner_init(&o, (uint64_t)a->id * 100000 + (uint64_t)i + 1);
        int k[2] = {(int)(rand_r(&a->seed) % STRESS_KEYS), (int)(rand_r(&a->seed) % STRESS_KEYS)};
        int got = 0, rc = 0;
        for (int j = 0; j < 2 && rc == 0; j++) {
            char key[8];
            snprintf(key, sizeof key, "key%d", k[j]);
            rc = lock_acquire(a->ls, &o, (uint64_t)(k[j] % 5), key, strlen(key), LOCK_X, 2000000);
            got += rc == 0;
        }
        a->deadlocks += rc == ENGINE_EDEADLOCK;
        a->timeouts += rc == ENGINE_ELOCKWAIT;
        for (int j = 0; j < got; j++) {
            if (j == 1 && k[1] == k[0])
                break;
            uint32_t v = stress_count[k[j]];
            if (i % 7 == 0)
                sched_yield();
            stress_count[k[j]] = v + 1;
            atomic_fetch_add(&stress_grants[k[j]], 1);
        }
        lock_release_all(a->ls, &o);
        lock_owner_destroy(&o);
    }
    return NULL;
}

TEST(test_lock_partitions_stress_deadlocks)
{
    lock_sys_t *ls = lock_sys_create();
    enum { NT = 8 };
    pthread_t th[NT];
    stress_arg_t a[NT];
    for (int i = 0; i < NT; i++) {
        a[i] = (stress_arg_t){.ls = ls, .seed = (unsigned)i * 13 + 5, .id = i};
        pthread_create(&th[i], NULL, lock_stress_thread, &a[i]);
    }
    int timeouts = 0;
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        timeouts += a[i].timeouts;
    }
    CHECK_EQ_INT(timeouts, 0); /* every cycle was found; no wait ran into its timeout */
    int bad = 0;
    for (int k = 0; k < STRESS_KEYS; k++)
        bad += stress_count[k] != atomic_load(&stress_grants[k]);
    CHECK_EQ_INT(bad, 0);
    lock_sys_destroy(ls);
}

/* ---------------------------------------------------------------- through the engine */

static engine_t *open_engine(char *dir)
{
    strcpy(dir, "/tmp/strata_lock_XXXXXX");
    if (!mkdtemp(dir))
        abort();
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 4u << 20;
    o.log_bytes = 16u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    engine_t *e = NULL;
    if (engine_open(&o, &e))
        return NULL;
    return e;
}

static void close_engine(engine_t *e, const char *dir)
{
    engine_close(e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

/* A tree holding k10 k20 k30 k50. */
static engine_tree_id_t make_tree(engine_t *e)
{
    engine_tree_id_t t = 0;
    engine_trx_t *x;
    if (engine_tree_create(NULL, e, ENGINE_DEFAULT_TABLESPACE, &t) || engine_trx_begin(e, &x))
        return 0;
    static const char *keys[] = {"k10", "k20", "k30", "k50"};
    for (int i = 0; i < 4; i++)
        engine_insert(x, t, keys[i], 3, "v", 1);
    engine_trx_commit(x);
    return t;
}

static engine_trx_t *trx(engine_t *e, engine_isolation_t iso, uint64_t wait_us)
{
    engine_trx_t *x = NULL;
    if (engine_trx_begin(e, &x))
        return NULL;
    engine_trx_set_isolation(x, iso);
    engine_trx_set_lock_wait_timeout(x, wait_us);
    return x;
}

/* A locking scan of [lo, hi] (prefixes); the keys it returned, concatenated, in out. */
static int scan(engine_trx_t *x, engine_tree_id_t t, engine_lock_mode_t m, const char *lo, const char *hi, buf_t *out)
{
    engine_cursor_t *c;
    int rc = engine_cursor_open(x, t, &c), n = 0;
    if (rc)
        return rc;
    buf_reset(out);
    rc = engine_cursor_lock(c, m, lo, strlen(lo), hi, strlen(hi), false);
    for (rc = rc ? rc : engine_cursor_seek(c, lo, strlen(lo), ENGINE_SEEK_GE); rc == 0; rc = engine_cursor_next(c)) {
        size_t kl;
        const void *k = engine_cursor_key(c, &kl);
        buf_append(out, k, kl);
        buf_append(out, " ", 1);
        n++;
    }
    engine_cursor_close(c);
    return rc == STRATA_ENOTFOUND ? n : rc;
}

static bool buf_is(const buf_t *b, const char *s) { return b->len == strlen(s) && memcmp(b->data, s, b->len) == 0; }

TEST(test_lock_engine_next_key_repeatable_read)
{
    char dir[64];
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    engine_tree_id_t t = make_tree(e);
    REQUIRE(t);
    buf_t got;
    buf_init(&got);
    engine_trx_t *a = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US), *b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(scan(a, t, ENGINE_LOCK_EXCLUSIVE, "k10", "k20", &got), 2);
    CHECK(buf_is(&got, "k10 k20 "));
    CHECK_EQ_INT(engine_insert(b, t, "k15", 3, "b", 1), ENGINE_ELOCKWAIT);   /* the gap between the rows */
    CHECK_EQ_INT(engine_insert(b, t, "k25", 3, "b", 1), ENGINE_ELOCKWAIT);   /* up to the first row past */
    CHECK_EQ_INT(engine_put(b, t, "k30", 3, "b", 1), ENGINE_ELOCKWAIT);      /* ... which is locked (next-key) */
    CHECK_EQ_INT(engine_put(b, t, "k20", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_insert(b, t, "k07", 3, "b", 1), 0); /* the seek matched k10 exactly: no gap before it */
    CHECK_EQ_INT(engine_insert(b, t, "k40", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_insert(b, t, "k60", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_insert(a, t, "k15", 3, "a", 1), 0); /* a's own gap */
    engine_trx_rollback(b);
    CHECK_EQ_INT(engine_trx_rollback(a), 0);
    /* a shared scan: another shared scan of the same range is fine, inserts are not */
    a = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(scan(a, t, ENGINE_LOCK_SHARED, "k12", "k35", &got), 2);
    CHECK(buf_is(&got, "k20 k30 "));
    CHECK_EQ_INT(scan(b, t, ENGINE_LOCK_SHARED, "k12", "k35", &got), 2);
    CHECK_EQ_INT(engine_insert(b, t, "k11", 3, "b", 1), ENGINE_ELOCKWAIT); /* gap (k10, k20) before the first row */
    CHECK_EQ_INT(engine_insert(b, t, "k45", 3, "b", 1), ENGINE_ELOCKWAIT); /* gap (k30, k50) */
    CHECK_EQ_INT(engine_insert(b, t, "k55", 3, "b", 1), 0);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    /* running off the end locks up to infinity (InnoDB's supremum) */
    a = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(scan(a, t, ENGINE_LOCK_EXCLUSIVE, "k40", "", &got), 1);
    CHECK_EQ_INT(engine_insert(b, t, "zzz", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_insert(b, t, "k35", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_insert(b, t, "k25", 3, "b", 1), 0);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    buf_free(&got);
    close_engine(e, dir);
}

TEST(test_lock_engine_read_committed_no_gaps)
{
    char dir[64];
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    engine_tree_id_t t = make_tree(e);
    REQUIRE(t);
    buf_t got;
    buf_init(&got);
    engine_trx_t *a = trx(e, ENGINE_ISO_READ_COMMITTED, SHORT_US), *b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(scan(a, t, ENGINE_LOCK_EXCLUSIVE, "k10", "k20", &got), 2);
    CHECK(buf_is(&got, "k10 k20 "));
    CHECK_EQ_INT(engine_insert(b, t, "k15", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_insert(b, t, "k25", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_put(b, t, "k30", 3, "b", 1), 0);                /* the row past the range: not locked */
    CHECK_EQ_INT(engine_put(b, t, "k20", 3, "b", 1), ENGINE_ELOCKWAIT); /* the rows read are */
    engine_trx_rollback(b);
    /* a unique lookup of a missing key locks nothing at READ COMMITTED */
    CHECK_EQ_INT(engine_lock_key(a, t, "k42", 3, ENGINE_LOCK_EXCLUSIVE), STRATA_ENOTFOUND);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(engine_insert(b, t, "k42", 3, "b", 1), 0);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    /* semi-consistent reads: the cursor gives back a lock it took, never one held before; nothing at RR */
    a = trx(e, ENGINE_ISO_READ_COMMITTED, SHORT_US);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(engine_lock_row(a, t, "k30", 3), 0);
    engine_cursor_t *c;
    REQUIRE(engine_cursor_open(a, t, &c) == 0);
    CHECK_EQ_INT(engine_cursor_lock(c, ENGINE_LOCK_EXCLUSIVE, NULL, 0, NULL, 0, false), 0);
    CHECK_EQ_INT(engine_cursor_seek(c, "k10", 3, ENGINE_SEEK_GE), 0);
    engine_cursor_unlock(c);
    CHECK_EQ_INT(engine_cursor_next(c), 0); /* k20: kept */
    CHECK_EQ_INT(engine_cursor_next(c), 0); /* k30: locked before the scan */
    engine_cursor_unlock(c);
    engine_cursor_close(c);
    CHECK_EQ_INT(engine_put(b, t, "k10", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_put(b, t, "k20", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_put(b, t, "k30", 3, "b", 1), ENGINE_ELOCKWAIT);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    a = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    REQUIRE(engine_cursor_open(a, t, &c) == 0);
    CHECK_EQ_INT(engine_cursor_lock(c, ENGINE_LOCK_SHARED, NULL, 0, NULL, 0, false), 0);
    CHECK_EQ_INT(engine_cursor_first(c), 0);
    engine_cursor_unlock(c); /* a no-op at REPEATABLE READ */
    engine_cursor_close(c);
    CHECK_EQ_INT(engine_put(b, t, "k10", 3, "b", 1), ENGINE_ELOCKWAIT);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    /* READ UNCOMMITTED: no gaps either */
    a = trx(e, ENGINE_ISO_READ_UNCOMMITTED, SHORT_US);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(scan(a, t, ENGINE_LOCK_SHARED, "k10", "k50", &got), 4);
    CHECK_EQ_INT(engine_insert(b, t, "k15", 3, "b", 1), 0);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    buf_free(&got);
    close_engine(e, dir);
}

TEST(test_lock_engine_unique_lookup)
{
    char dir[64];
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    engine_tree_id_t t = make_tree(e);
    REQUIRE(t);
    engine_trx_t *a = trx(e, ENGINE_ISO_SERIALIZABLE, SHORT_US), *b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    /* an existing row: its record only */
    CHECK_EQ_INT(engine_lock_key(a, t, "k20", 3, ENGINE_LOCK_EXCLUSIVE), 0);
    CHECK_EQ_INT(engine_insert(b, t, "k15", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_insert(b, t, "k25", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_put(b, t, "k20", 3, "b", 1), ENGINE_ELOCKWAIT);
    engine_trx_rollback(b);
    /* a missing one: the gap between its neighbours (k30, k50), no record */
    CHECK_EQ_INT(engine_lock_key(a, t, "k40", 3, ENGINE_LOCK_EXCLUSIVE), STRATA_ENOTFOUND);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(engine_insert(b, t, "k40", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_insert(b, t, "k31", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_put(b, t, "k50", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_put(b, t, "k30", 3, "b", 1), 0);
    CHECK_EQ_INT(engine_insert(b, t, "k55", 3, "b", 1), 0);
    /* b takes the same gap (no wait: gaps do not conflict) */
    CHECK_EQ_INT(engine_lock_key(b, t, "k41", 3, ENGINE_LOCK_EXCLUSIVE), STRATA_ENOTFOUND);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    /* a row deleted by a committed trx is no row: its gap is locked */
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(engine_delete(b, t, "k30", 3), 0);
    CHECK_EQ_INT(engine_trx_commit(b), 0);
    a = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    b = trx(e, ENGINE_ISO_REPEATABLE_READ, SHORT_US);
    CHECK_EQ_INT(engine_lock_key(a, t, "k30", 3, ENGINE_LOCK_SHARED), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_insert(b, t, "k30", 3, "b", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_insert(b, t, "k35", 3, "b", 1), ENGINE_ELOCKWAIT);
    engine_trx_rollback(b);
    engine_trx_rollback(a);
    close_engine(e, dir);
}

/* Stress: scanners repeat a locking range read and compare; inserters keep adding keys into the ranges. */
typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    volatile int *stop;
    unsigned seed;
    int scans, phantoms, inserts, errors;
    engine_lock_mode_t mode;
} stress_t;

static void *stress_inserter(void *p)
{
    stress_t *s = p;
    char k[32];
    while (!*s->stop) {
        engine_trx_t *x = trx(s->e, ENGINE_ISO_REPEATABLE_READ, 200000);
        if (!x) {
            s->errors++;
            break;
        }
        int n = sprintf(k, "r%06d.%06d", rand_r(&s->seed) % 2000, rand_r(&s->seed) % 1000000);
        int rc = engine_insert(x, s->t, k, (size_t)n, "i", 1);
        if (rc == 0) {
            s->inserts++;
            engine_trx_commit(x);
        } else {
            if (rc != ENGINE_ELOCKWAIT && rc != ENGINE_EDEADLOCK && rc != ENGINE_EDUPKEY)
                s->errors++;
            engine_trx_rollback(x);
        }
    }
    return NULL;
}

static void *stress_scanner(void *p)
{
    stress_t *s = p;
    buf_t one, two;
    buf_init(&one);
    buf_init(&two);
    char lo[16], hi[16];
    while (!*s->stop) {
        engine_trx_t *x = trx(s->e, ENGINE_ISO_REPEATABLE_READ, 2000000);
        int from = rand_r(&s->seed) % 1900;
        sprintf(lo, "r%06d", from);
        sprintf(hi, "r%06d", from + 100);
        int n1 = scan(x, s->t, s->mode, lo, hi, &one);
        usleep(3000); /* inserters get their chance */
        int n2 = n1 >= 0 ? scan(x, s->t, s->mode, lo, hi, &two) : -1;
        if (n1 < 0 || n2 < 0) {
            if (n1 != ENGINE_EDEADLOCK && n2 != ENGINE_EDEADLOCK && n1 != ENGINE_ELOCKWAIT && n2 != ENGINE_ELOCKWAIT)
                s->errors++;
        } else {
            s->scans++;
            if (n1 != n2 || one.len != two.len || memcmp(one.data, two.data, one.len) != 0)
                s->phantoms++;
        }
        engine_trx_commit(x);
    }
    buf_free(&one);
    buf_free(&two);
    return NULL;
}

TEST(test_lock_engine_no_phantoms_under_inserts)
{
    char dir[64];
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, ENGINE_DEFAULT_TABLESPACE, &t) == 0);
    engine_trx_t *x = trx(e, ENGINE_ISO_REPEATABLE_READ, 0);
    char k[16];
    for (int i = 0; i < 2000; i += 2)
        engine_insert(x, t, k, (size_t)sprintf(k, "r%06d", i), "v", 1);
    REQUIRE(engine_trx_commit(x) == 0);
    volatile int stop = 0;
    stress_t s[6];
    pthread_t th[6];
    for (int i = 0; i < 6; i++) {
        s[i] = (stress_t){.e = e, .t = t, .stop = &stop, .seed = 1234u + (unsigned)i,
                          .mode = i % 2 ? ENGINE_LOCK_SHARED : ENGINE_LOCK_EXCLUSIVE};
        pthread_create(&th[i], NULL, i < 2 ? stress_scanner : stress_inserter, &s[i]);
    }
    usleep(1500000);
    stop = 1;
    int scans = 0, phantoms = 0, inserts = 0, errors = 0;
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        scans += s[i].scans;
        phantoms += s[i].phantoms;
        inserts += s[i].inserts;
        errors += s[i].errors;
    }
    printf("gap stress: %d repeated scans, %d inserts, %d phantoms\n", scans, inserts, phantoms);
    CHECK(scans >= 10);
    CHECK(inserts >= 10);
    CHECK_EQ_INT(phantoms, 0);
    CHECK_EQ_INT(errors, 0);
    close_engine(e, dir);
}

/* ---------------------------------------------------------------- the wait hook (parallel replica order) */

/* Owners are "ordered" by trx id: a waiter with a smaller id than the holder aborts the holder (a later
 * transaction holds what an earlier one needs), as the replica's hook decides by commit order. */
static _Atomic int hook_calls;
static bool order_hook(void *arg, uint64_t waiter, uint64_t holder)
{
    (void)arg;
    atomic_fetch_add(&hook_calls, 1);
    return waiter < holder;
}

typedef struct {
    lock_sys_t *ls;
    lock_owner_t *o;
    const char *key;
    int rc;
} key_arg_t;

static void *key_thread(void *p)
{
    key_arg_t *a = p;
    a->rc = lock_acquire(a->ls, a->o, 1, a->key, strlen(a->key), LOCK_X, 5000000);
    return NULL;
}

TEST(test_lock_wait_hook_aborts_a_later_holder)
{
    lock_sys_t *ls = lock_sys_create();
    lock_set_wait_hook(ls, order_hook, NULL);
    lock_owner_t early, late, later;
    lock_owner_init(&early, 1);
    lock_owner_init(&late, 2);
    lock_owner_init(&later, 3);
    /* an earlier holder: the later waiter just waits (and gets it when the holder ends) */
    CHECK_EQ_INT(lock_acquire(ls, &early, 1, "a", 1, LOCK_X, SHORT_US), 0);
    CHECK_EQ_INT(lock_acquire(ls, &late, 1, "a", 1, LOCK_X, SHORT_US), ENGINE_ELOCKWAIT);
    CHECK(!atomic_load(&early.aborted));
    CHECK(atomic_load(&hook_calls) >= 1);
    /* late holds b and sleeps waiting for early's a; early asks for b: late is aborted, its wait ends with
     * ENGINE_EDEADLOCK at once, and early gets b once late rolled back */
    CHECK_EQ_INT(lock_acquire(ls, &late, 1, "b", 1, LOCK_X, SHORT_US), 0);
    key_arg_t w = {ls, &late, "a", -1};
    pthread_t th;
    pthread_create(&th, NULL, key_thread, &w);
    usleep(100000);
    key_arg_t e = {ls, &early, "b", -1};
    pthread_t th2;
    double t0 = now_s();
    pthread_create(&th2, NULL, key_thread, &e);
    pthread_join(th, NULL);
    CHECK_EQ_INT(w.rc, ENGINE_EDEADLOCK);
    CHECK(now_s() - t0 < 2.0);
    CHECK(atomic_load(&late.aborted));
    lock_release_all(ls, &late); /* the victim rolls back */
    CHECK(!atomic_load(&late.aborted));
    pthread_join(th2, NULL);
    CHECK_EQ_INT(e.rc, 0);
    /* a grant to a later owner while an earlier one still waits: late holds c, later queues for it, then early
     * (which aborts late, the holder then); late ends, c goes to later, first in line, with early still
     * waiting: the grant asks the hook, which aborts later (its next lock wait fails at once) */
    CHECK_EQ_INT(lock_acquire(ls, &late, 1, "c", 1, LOCK_X, SHORT_US), 0);
    key_arg_t l3 = {ls, &later, "c", -1};
    pthread_create(&th, NULL, key_thread, &l3);
    usleep(100000);
    key_arg_t e3 = {ls, &early, "c", -1};
    pthread_create(&th2, NULL, key_thread, &e3);
    usleep(100000);
    CHECK(atomic_load(&late.aborted));
    lock_release_all(ls, &late);
    pthread_join(th, NULL);
    /* later got c (first in line); early still waits for it: later is marked aborted */
    if (l3.rc == 0) {
        CHECK(atomic_load(&later.aborted));
        CHECK_EQ_INT(lock_acquire(ls, &later, 1, "a", 1, LOCK_X, 5000000), ENGINE_EDEADLOCK); /* no wait */
        lock_release_all(ls, &later);
    }
    pthread_join(th2, NULL);
    CHECK_EQ_INT(e3.rc, 0);
    lock_release_all(ls, &early);
    lock_release_all(ls, &later);
    lock_owner_destroy(&early);
    lock_owner_destroy(&late);
    lock_owner_destroy(&later);
    lock_sys_destroy(ls);
}

UNIT_MAIN(test_lock_gap_blocks_inserts_only, test_lock_insert_intention_inflight_epoch, test_lock_gap_extends_along_a_scan,
          test_lock_gap_release_wakes_and_deadlock, test_lock_kick_ends_waits_at_once,
          test_lock_engine_next_key_repeatable_read,
          test_lock_engine_read_committed_no_gaps, test_lock_engine_unique_lookup,
          test_lock_engine_no_phantoms_under_inserts, test_lock_record_waiters_woken_one_by_one,
          test_lock_insert_waiters_woken_by_their_gap, test_lock_partitions_stress_deadlocks,
          test_lock_wait_hook_aborts_a_later_holder)
