/*
 * User-level locks (session/ulock.h): counting, release, holders, a waiter granted on release, a timeout, KILL
 * of a waiter, a waiter whose client hangs up, and the refusal of a wait that would close a cycle.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "session/ulock.h"
#include "unit.h"
#include "util/util.h"

#define L(s) s, sizeof s - 1

TEST(test_count_release_holder)
{
    ulock_owner_t *a = NULL, *b = NULL;
    CHECK_EQ_INT(ulock_get(&a, 7, L("x"), 0, NULL, NULL, -1), ULOCK_GOT);
    CHECK_EQ_INT(ulock_get(&a, 7, L("x"), 0, NULL, NULL, -1), ULOCK_GOT); /* counted */
    CHECK_EQ_INT(ulock_get(&a, 7, L("X"), 0, NULL, NULL, -1), ULOCK_GOT); /* another name: bytes compare */
    CHECK_EQ_INT(ulock_holder(L("x")), 7);
    CHECK_EQ_INT(ulock_holder(L("y")), 0);
    CHECK_EQ_INT(ulock_get(&b, 8, L("x"), 0, NULL, NULL, -1), ULOCK_TIMEOUT);
    CHECK_EQ_INT(ulock_release(b, L("x")), 0);  /* another's */
    CHECK_EQ_INT(ulock_release(b, L("y")), -1); /* nobody's */
    CHECK_EQ_INT(ulock_release(a, L("x")), 1);
    CHECK_EQ_INT(ulock_holder(L("x")), 7);      /* still held once */
    CHECK_EQ_INT(ulock_release(a, L("x")), 1);
    CHECK_EQ_INT(ulock_holder(L("x")), 0);
    CHECK_EQ_INT(ulock_release(a, L("x")), -1);
    CHECK_EQ_INT(ulock_get(&b, 8, L("x"), 0, NULL, NULL, -1), ULOCK_GOT);
    CHECK_EQ_INT(ulock_get(&b, 8, L("x"), 0, NULL, NULL, -1), ULOCK_GOT);
    CHECK_EQ_INT(ulock_get(&b, 8, L("z"), 0, NULL, NULL, -1), ULOCK_GOT);
    CHECK_EQ_INT(ulock_release_all(b), 3);
    CHECK_EQ_INT(ulock_release_all(b), 0);
    CHECK_EQ_INT(ulock_holder(L("z")), 0);
    ulock_owner_free(a); /* releases "X" */
    CHECK_EQ_INT(ulock_holder(L("X")), 0);
    ulock_owner_free(b);
    CHECK_EQ_INT(ulock_release_all(NULL), 0);
    CHECK_EQ_INT(ulock_release(NULL, L("q")), -1);
}

typedef struct {
    ulock_owner_t *own;
    uint32_t id;
    const char *name;
    uint64_t timeout_us;
    _Atomic bool kill;
    int rc;
    uint64_t took_us;
    int fd; /* the "client" socket (-1: none) */
} waiter_t;

static void *wait_thread(void *arg)
{
    waiter_t *w = arg;
    uint64_t t0 = time_mono_us();
    w->rc = ulock_get(&w->own, w->id, w->name, strlen(w->name), w->timeout_us, &w->kill, NULL, w->fd);
    w->took_us = time_mono_us() - t0;
    return NULL;
}

static void msleep(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

TEST(test_wait_granted_timeout_kill)
{
    ulock_owner_t *a = NULL;
    REQUIRE(ulock_get(&a, 1, L("w"), 0, NULL, NULL, -1) == ULOCK_GOT);
    /* granted when the holder releases */
    waiter_t w = {.id = 2, .name = "w", .timeout_us = 10000000, .fd = -1};
    pthread_t th;
    pthread_create(&th, NULL, wait_thread, &w);
    msleep(150);
    CHECK_EQ_INT(ulock_holder(L("w")), 1);
    CHECK_EQ_INT(ulock_release(a, L("w")), 1);
    pthread_join(th, NULL);
    CHECK_EQ_INT(w.rc, ULOCK_GOT);
    CHECK(w.took_us >= 100000 && w.took_us < 5000000);
    CHECK_EQ_INT(ulock_holder(L("w")), 2);
    /* a timeout */
    uint64_t t0 = time_mono_us();
    CHECK_EQ_INT(ulock_get(&a, 1, L("w"), 200000, NULL, NULL, -1), ULOCK_TIMEOUT);
    uint64_t took = time_mono_us() - t0;
    CHECK(took >= 190000 && took < 3000000);
    /* KILL QUERY ends a wait (and is consumed) */
    waiter_t k = {.own = a, .id = 1, .name = "w", .timeout_us = UINT64_MAX, .fd = -1};
    pthread_create(&th, NULL, wait_thread, &k);
    msleep(150);
    atomic_store(&k.kill, true);
    pthread_join(th, NULL);
    CHECK_EQ_INT(k.rc, ULOCK_KILLED);
    CHECK(!atomic_load(&k.kill));
    CHECK(k.took_us < 2000000);
    /* so does the client hanging up */
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    waiter_t h = {.own = a, .id = 1, .name = "w", .timeout_us = UINT64_MAX, .fd = sv[0]};
    pthread_create(&th, NULL, wait_thread, &h);
    msleep(150);
    CHECK_EQ_INT(ulock_holder(L("w")), 2);
    close(sv[1]);
    pthread_join(th, NULL);
    CHECK_EQ_INT(h.rc, ULOCK_KILLED);
    CHECK(h.took_us < 2000000);
    close(sv[0]);
    ulock_owner_free(w.own);
    ulock_owner_free(a);
}

TEST(test_deadlock_refused)
{
    ulock_owner_t *a = NULL;
    REQUIRE(ulock_get(&a, 1, L("d1"), 0, NULL, NULL, -1) == ULOCK_GOT);
    waiter_t b = {.id = 2, .name = "d2", .timeout_us = 0, .fd = -1};
    wait_thread(&b); /* b takes d2 */
    REQUIRE(b.rc == ULOCK_GOT);
    b.name = "d1";
    b.timeout_us = 1000000;
    pthread_t th;
    pthread_create(&th, NULL, wait_thread, &b); /* b waits for a */
    msleep(150);
    uint64_t t0 = time_mono_us();
    CHECK_EQ_INT(ulock_get(&a, 1, L("d2"), 5000000, NULL, NULL, -1), ULOCK_DEADLOCK);
    CHECK(time_mono_us() - t0 < 500000);
    CHECK_EQ_INT(ulock_holder(L("d2")), 2);
    CHECK_EQ_INT(ulock_release_all(a), 1); /* d1: b gets it */
    pthread_join(th, NULL);
    CHECK_EQ_INT(b.rc, ULOCK_GOT);
    CHECK_EQ_INT(ulock_release_all(b.own), 2);
    ulock_owner_free(b.own);
    ulock_owner_free(a);
}

UNIT_MAIN(test_count_release_holder, test_wait_granted_timeout_kill, test_deadlock_refused)
