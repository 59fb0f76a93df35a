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
    usleep(200000);
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

UNIT_MAIN(test_shared_coexist_and_reentry, test_exclusive_waits_and_times_out,
          test_waiting_exclusive_blocks_new_shared_and_gets_all_names, test_kill, test_wakeups_per_name_and_kill)
