/*
 * Unit tests of access/mdl.c: shared locks coexist, exclusive waits for them and blocks new shared requests while
 * waiting, timeouts and kills, re-entry, a multi-name exclusive that takes all names at once.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "access/mdl.h"
#include "unit.h"
#include "util/util.h"

TEST(test_shared_coexist_and_reentry)
{
    mdl_set_t a = {0}, b = {0};
    CHECK_EQ_INT(mdl_shared(&a, "d", "t", 1000, NULL), 0);
    CHECK_EQ_INT(mdl_shared(&b, "d", "t", 1000, NULL), 0);
    CHECK_EQ_INT(mdl_shared(&a, "d", "t", 1000, NULL), 0); /* held already: no second entry */
    CHECK_EQ_INT(a.n, 1);
    CHECK_EQ_INT(mdl_count(), 1);
    mdl_set_free(&a);
    mdl_set_free(&b);
    CHECK_EQ_INT(mdl_count(), 0);
}

TEST(test_exclusive_waits_and_times_out)
{
    mdl_set_t a = {0}, d = {0};
    CHECK_EQ_INT(mdl_shared(&a, "d", "t", 1000, NULL), 0);
    const char *dbs[] = {"d"}, *names[] = {"t"};
    uint64_t t0 = time_mono_us();
    CHECK_EQ_INT(mdl_exclusive(&d, dbs, names, 1, 150000, NULL), MDL_TIMEOUT);
    CHECK(time_mono_us() - t0 >= 140000);
    CHECK_EQ_INT(d.n, 0);
    /* the same session upgrades its own shared lock */
    CHECK_EQ_INT(mdl_exclusive(&a, dbs, names, 1, 1000, NULL), 0);
    CHECK(a.mode[0] == MDL_EXCLUSIVE);
    mdl_set_t b = {0};
    CHECK_EQ_INT(mdl_shared(&b, "d", "t", 50000, NULL), MDL_TIMEOUT); /* exclusive held: shared waits */
    mdl_release_all(&a);
    CHECK_EQ_INT(mdl_shared(&b, "d", "t", 1000, NULL), 0);
    mdl_set_free(&a);
    mdl_set_free(&b);
    mdl_set_free(&d);
    CHECK_EQ_INT(mdl_count(), 0);
}

typedef struct {
    mdl_set_t *s;
    const char *const *dbs, *const *names;
    uint32_t n;
    int rc;
    uint64_t waited;
} excl_arg_t;

static void *excl_thread(void *p)
{
    excl_arg_t *a = p;
    uint64_t t0 = time_mono_us();
    a->rc = mdl_exclusive(a->s, a->dbs, a->names, a->n, 5000000, NULL);
    a->waited = time_mono_us() - t0;
    return NULL;
}

TEST(test_waiting_exclusive_blocks_new_shared_and_gets_all_names)
{
    mdl_set_t holder = {0}, ddl = {0}, late = {0};
    CHECK_EQ_INT(mdl_shared(&holder, "d", "t2", 1000, NULL), 0);
    const char *dbs[] = {"d", "d", "d"}, *names[] = {"t1", "t2", "t1"}; /* a name twice, as RENAME may */
    excl_arg_t arg = {.s = &ddl, .dbs = dbs, .names = names, .n = 3};
    pthread_t th;
    pthread_create(&th, NULL, excl_thread, &arg);
    for (int i = 0; i < 1000 && mdl_waiting() == 0; i++)
        usleep(10000); /* asleep in its wait (a loaded machine may start the thread late) */
    usleep(100000);
    /* t1 is free but the DDL holds nothing while it waits for t2 */
    mdl_set_t other = {0};
    CHECK_EQ_INT(mdl_shared(&other, "d", "t1", 50000, NULL), MDL_TIMEOUT); /* behind the waiting DDL */
    CHECK_EQ_INT(mdl_shared(&late, "d", "t3", 1000, NULL), 0);              /* other names are free */
    mdl_release_all(&holder);
    pthread_join(th, NULL);
    CHECK_EQ_INT(arg.rc, 0);
    CHECK(arg.waited >= 90000);
    CHECK_EQ_INT(ddl.n, 2);
    mdl_release_all(&ddl);
    CHECK_EQ_INT(mdl_shared(&other, "d", "t1", 1000, NULL), 0);
    mdl_set_free(&holder);
    mdl_set_free(&ddl);
    mdl_set_free(&other);
    mdl_set_free(&late);
    CHECK_EQ_INT(mdl_count(), 0);
}

TEST(test_kill)
{
    mdl_set_t a = {0}, b = {0};
    const char *dbs[] = {"d"}, *names[] = {"k"};
    CHECK_EQ_INT(mdl_exclusive(&a, dbs, names, 1, 1000, NULL), 0);
    _Atomic bool kill = true;
    CHECK_EQ_INT(mdl_shared(&b, "d", "k", 5000000, &kill), MDL_KILLED);
    CHECK(!atomic_load(&kill)); /* cleared */
    mdl_set_free(&a);
    mdl_set_free(&b);
}

typedef struct {
    mdl_set_t s;
    const char *name;
    _Atomic bool kill;
    _Atomic int rc; /* -1 while waiting */
} shared_arg_t;

static void *shared_thread(void *p)
{
    shared_arg_t *a = p;
    a->rc = mdl_shared(&a->s, "d", a->name, 10000000, &a->kill);
    return NULL;
}

/* Requests wait on two names held EXCLUSIVE: releasing one name wakes only the requests waiting on it (one signal
 * each), the others sleep on; a KILL QUERY (flag + mdl_kick) ends a 10 s wait at once, with nothing released. */
TEST(test_wakeups_per_name_and_kill)
{
    mdl_set_t x1 = {0}, x2 = {0};
    const char *dbs[] = {"d"}, *n1[] = {"w1"}, *n2[] = {"w2"};
    REQUIRE(mdl_exclusive(&x1, dbs, n1, 1, 1000, NULL) == 0);
    REQUIRE(mdl_exclusive(&x2, dbs, n2, 1, 1000, NULL) == 0);
    enum { N = 6 };
    static shared_arg_t a[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].name = i < 3 ? "w1" : "w2";
        a[i].rc = -1;
        pthread_create(&th[i], NULL, shared_thread, &a[i]);
    }
    for (int i = 0; i < 1000 && mdl_waiting() < N; i++)
        usleep(10000);
    usleep(50000);
    uint64_t w0 = mdl_wakeups();
    mdl_release_all(&x1);
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(a[i].rc, 0);
    }
    CHECK_EQ_INT(mdl_wakeups() - w0, 3);
    usleep(50000);
    for (int i = 3; i < N; i++)
        CHECK_EQ_INT(a[i].rc, -1);
    uint64_t t0 = time_mono_us();
    atomic_store(&a[3].kill, true);
    mdl_kick(&a[3].kill);
    pthread_join(th[3], NULL);
    CHECK_EQ_INT(a[3].rc, MDL_KILLED);
    CHECK(time_mono_us() - t0 < 2000000);
    CHECK_EQ_INT(a[4].rc, -1);
    mdl_release_all(&x2);
    for (int i = 4; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(a[i].rc, 0);
    }
    for (int i = 0; i < N; i++)
        mdl_set_free(&a[i].s);
    mdl_set_free(&x1);
    mdl_set_free(&x2);
    CHECK_EQ_INT(mdl_count(), 0);
}

typedef struct {
    mdl_set_t *s;
    const char *name;
    bool ddl;
    _Atomic int rc; /* -1 while waiting */
} cyc_arg_t;

static void *cyc_thread(void *p)
{
    cyc_arg_t *a = p;
    const char *dbs[] = {"d"}, *names[] = {a->name};
    a->rc = a->ddl ? mdl_exclusive(a->s, dbs, names, 1, 10000000, NULL) : mdl_shared(a->s, "d", a->name, 10000000, NULL);
    return NULL;
}

static void wait_sleepers(uint32_t n)
{
    for (int i = 0; i < 1000 && mdl_waiting() < n; i++)
        usleep(10000);
}

/* A and B read c1 / c2; C's DDL on c1 and D's on c2 wait for them.  A asks for c2 (behind D), then B for c1
 * (behind C): the cycle B -> C -> A -> D -> B.  B, the request that closes it and a reader, fails at once with
 * MDL_DEADLOCK; when the cycle is closed by a DDL (E's upgrade below), a reader of the cycle is the victim. */
TEST(test_deadlock_cycle_fails_a_reader_at_once)
{
    mdl_set_t A = {0}, B = {0}, C = {0}, D = {0};
    REQUIRE(mdl_shared(&A, "d", "c1", 1000, NULL) == 0);
    REQUIRE(mdl_shared(&B, "d", "c2", 1000, NULL) == 0);
    cyc_arg_t c = {&C, "c1", true, -1}, d = {&D, "c2", true, -1}, a = {&A, "c2", false, -1};
    pthread_t tc, td, ta;
    pthread_create(&tc, NULL, cyc_thread, &c);
    wait_sleepers(1);
    pthread_create(&td, NULL, cyc_thread, &d);
    wait_sleepers(2);
    pthread_create(&ta, NULL, cyc_thread, &a);
    wait_sleepers(3);
    uint64_t dl = mdl_deadlocks(), t0 = time_mono_us();
    CHECK_EQ_INT(mdl_shared(&B, "d", "c1", 10000000, NULL), MDL_DEADLOCK);
    CHECK(time_mono_us() - t0 < 1000000);
    CHECK_EQ_INT(mdl_deadlocks() - dl, 1);
    CHECK_EQ_INT(c.rc, -1);
    mdl_release_all(&B); /* the victim's transaction ends: D, then A, then (A done) C */
    pthread_join(td, NULL);
    CHECK_EQ_INT(d.rc, 0);
    mdl_release_all(&D);
    pthread_join(ta, NULL);
    CHECK_EQ_INT(a.rc, 0);
    mdl_release_all(&A);
    pthread_join(tc, NULL);
    CHECK_EQ_INT(c.rc, 0);
    mdl_release_all(&C);

    /* closed by a DDL: E holds e2 EXCLUSIVE (an ALTER under way) and asks for e1 too, which R1 reads while it
     * waits for e2 behind E.  The cycle E -> R1 -> E fails R1, the reader, and E goes on once R1 rolls back. */
    mdl_set_t R1 = {0}, E = {0};
    const char *dbs[] = {"d"}, *e2[] = {"e2"};
    REQUIRE(mdl_shared(&R1, "d", "e1", 1000, NULL) == 0);
    REQUIRE(mdl_exclusive(&E, dbs, e2, 1, 1000, NULL) == 0);
    cyc_arg_t r = {&R1, "e2", false, -1}, e = {&E, "e1", true, -1};
    pthread_t tr, te;
    pthread_create(&tr, NULL, cyc_thread, &r);
    wait_sleepers(1);
    pthread_create(&te, NULL, cyc_thread, &e);
    pthread_join(tr, NULL);
    CHECK_EQ_INT(r.rc, MDL_DEADLOCK);
    mdl_release_all(&R1);
    pthread_join(te, NULL);
    CHECK_EQ_INT(e.rc, 0);
    mdl_set_free(&R1);
    mdl_set_free(&E);
    mdl_set_free(&A);
    mdl_set_free(&B);
    mdl_set_free(&C);
    mdl_set_free(&D);
    CHECK_EQ_INT(mdl_count(), 0);
}

UNIT_MAIN(test_shared_coexist_and_reentry, test_exclusive_waits_and_times_out,
          test_waiting_exclusive_blocks_new_shared_and_gets_all_names, test_kill, test_wakeups_per_name_and_kill,
          test_deadlock_cycle_fails_a_reader_at_once)
