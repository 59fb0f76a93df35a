/*
 * Unit tests of repl/semisync.c: an ACK wakes exactly the committers at or below its position (one each, in
 * position order, no broadcast); a timeout switches semi-sync OFF and an ACK past that point switches it ON.
 */
#include <pthread.h>
#include <unistd.h>

#include "repl/semisync.h"
#include "unit.h"
#include "util/util.h"

enum { N = 16 };
static _Atomic int woken[N];
static _Atomic int results[N];

static void *waiter(void *arg)
{
    intptr_t i = (intptr_t)arg;
    results[i] = repl_semisync_wait((binlog_pos_t){1, (uint64_t)(100 + 10 * i)});
    woken[i] = 1;
    return NULL;
}

static int count_woken(void)
{
    int n = 0;
    for (int i = 0; i < N; i++)
        n += woken[i];
    return n;
}

static void wait_sessions(uint32_t want)
{
    repl_semisync_stats_t st;
    for (int k = 0; k < 2000; k++) {
        repl_semisync_get_stats(&st);
        if (st.wait_sessions == want)
            return;
        usleep(1000);
    }
}

TEST(test_ack_wakes_by_position)
{
    repl_semisync_cfg_t cfg = {.enabled = true, .timeout_ms = 20000, .wait_no_slave = true};
    repl_semisync_configure(&cfg);
    repl_semisync_replica_add();
    pthread_t th[N];
    for (intptr_t i = 0; i < N; i++)
        pthread_create(&th[i], NULL, waiter, (void *)i);
    wait_sessions(N);
    CHECK_EQ_INT(count_woken(), 0);
    repl_semisync_ack((binlog_pos_t){1, 135}); /* covers 100, 110, 120, 130 */
    for (int k = 0; k < 1000 && count_woken() < 4; k++)
        usleep(1000);
    usleep(20000);
    CHECK_EQ_INT(count_woken(), 4);
    for (int i = 0; i < 4; i++)
        CHECK(woken[i] && results[i] == 0);
    CHECK(!woken[4]);
    repl_semisync_stats_t st;
    repl_semisync_get_stats(&st);
    CHECK_EQ_INT(st.wait_sessions, N - 4);
    repl_semisync_ack((binlog_pos_t){2, 4}); /* a later file covers the rest */
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(count_woken(), N);
    repl_semisync_get_stats(&st);
    CHECK_EQ_INT(st.yes_tx, N);
    CHECK(st.status);
    repl_semisync_replica_remove();
}

TEST(test_timeout_switches_off_and_ack_back_on)
{
    repl_semisync_cfg_t cfg = {.enabled = true, .timeout_ms = 100, .wait_no_slave = true};
    repl_semisync_configure(&cfg);
    repl_semisync_stats_t before;
    repl_semisync_get_stats(&before);
    uint64_t t0 = time_mono_us();
    CHECK_EQ_INT(repl_semisync_wait((binlog_pos_t){3, 500}), 1); /* nobody answers */
    CHECK(time_mono_us() - t0 >= 90000);
    repl_semisync_stats_t st;
    repl_semisync_get_stats(&st);
    CHECK_EQ_INT(st.wait_hist[8] - before.wait_hist[8], 1); /* the 100 ms wait: in [64 ms, 256 ms) */
    uint64_t all = 0;
    for (int i = 0; i < REPL_SEMISYNC_HIST; i++)
        all += st.wait_hist[i];
    CHECK_EQ_INT(all, st.tx_waits);
    CHECK(!st.status);
    CHECK_EQ_INT(st.no_times, 1);
    t0 = time_mono_us();
    CHECK_EQ_INT(repl_semisync_wait((binlog_pos_t){3, 600}), 1); /* OFF: no wait */
    CHECK(time_mono_us() - t0 < 50000);
    repl_semisync_ack((binlog_pos_t){3, 400}); /* not caught up yet */
    repl_semisync_get_stats(&st);
    CHECK(!st.status);
    repl_semisync_ack((binlog_pos_t){3, 600});
    repl_semisync_get_stats(&st);
    CHECK(st.status);
}

UNIT_MAIN(test_ack_wakes_by_position, test_timeout_switches_off_and_ack_back_on)
