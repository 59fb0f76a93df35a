/*
 * Unit tests of access/mdl.c: shared locks coexist, exclusive waits for them and blocks new shared requests while
 * waiting, timeouts and kills, re-entry, a multi-name exclusive that takes all names at once.
 */
#include <pthread.h>
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

UNIT_MAIN(test_shared_coexist_and_reentry, test_exclusive_waits_and_times_out,
          test_waiting_exclusive_blocks_new_shared_and_gets_all_names, test_kill)
