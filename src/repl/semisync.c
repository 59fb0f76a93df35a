/*
 * Semi-sync source side (semisync.h): a position-ordered queue of waiting committers, each with its own condition
 * variable.  An ACK moves the acknowledged position and signals the waiters it covers, from the head of the queue,
 * one each.  A waiter that times out switches semi-sync OFF (one log line) and wakes the others: they would time
 * out too; from then on commits do not wait until an ACK reaches the position where it was switched off.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "repl/semisync.h"
#include "util/blocking.h"
#include "util/util.h"

typedef struct waiter {
    struct waiter *prev, *next;
    binlog_pos_t pos;
    pthread_cond_t cv;
    bool done;
} waiter_t;

static struct {
    pthread_mutex_t mu;
    repl_semisync_cfg_t cfg;
    bool on;                 /* Rpl_semi_sync_master_status */
    binlog_pos_t acked;      /* highest position a replica confirmed */
    binlog_pos_t off_at;     /* while OFF: the position a replica must reach to switch it back ON */
    waiter_t head;           /* sentinel of the sorted queue */
    bool init;
    repl_semisync_stats_t st;
} g_s = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void ensure_init(void)
{
    if (!g_s.init) {
        g_s.head.prev = g_s.head.next = &g_s.head;
        g_s.on = true;
        g_s.init = true;
    }
}

void repl_semisync_configure(const repl_semisync_cfg_t *cfg)
{
    pthread_mutex_lock(&g_s.mu);
    ensure_init();
    bool was = g_s.cfg.enabled;
    g_s.cfg = *cfg;
    if (cfg->enabled && !was)
        g_s.on = true;
    pthread_mutex_unlock(&g_s.mu);
}

bool repl_semisync_after_sync(void)
{
    pthread_mutex_lock(&g_s.mu);
    bool a = g_s.cfg.after_sync;
    pthread_mutex_unlock(&g_s.mu);
    return a;
}

bool repl_semisync_enabled(void)
{
    pthread_mutex_lock(&g_s.mu);
    bool e = g_s.cfg.enabled;
    pthread_mutex_unlock(&g_s.mu);
    return e;
}

static bool active_locked(void)
{
    return g_s.cfg.enabled && g_s.on && (g_s.st.clients > 0 || g_s.cfg.wait_no_slave);
}

bool repl_semisync_active(void)
{
    pthread_mutex_lock(&g_s.mu);
    ensure_init();
    bool a = active_locked();
    pthread_mutex_unlock(&g_s.mu);
    return a;
}

static void unlink_waiter(waiter_t *w)
{
    w->prev->next = w->next;
    w->next->prev = w->prev;
    w->prev = w->next = NULL;
    g_s.st.wait_sessions--;
}

/* Wakes the waiters at or below the acknowledged position (mu held). */
static void wake_covered(void)
{
    while (g_s.head.next != &g_s.head && binlog_pos_cmp(g_s.head.next->pos, g_s.acked) <= 0) {
        waiter_t *w = g_s.head.next;
        unlink_waiter(w);
        w->done = true;
        pthread_cond_signal(&w->cv);
    }
}

int repl_semisync_wait(binlog_pos_t end)
{
    pthread_mutex_lock(&g_s.mu);
    ensure_init();
    if (!g_s.cfg.enabled) {
        pthread_mutex_unlock(&g_s.mu);
        return 1;
    }
    if (!active_locked() || binlog_pos_cmp(end, g_s.acked) <= 0) {
        bool yes = binlog_pos_cmp(end, g_s.acked) <= 0;
        yes ? g_s.st.yes_tx++ : g_s.st.no_tx++;
        pthread_mutex_unlock(&g_s.mu);
        return yes ? 0 : 1;
    }
    waiter_t w = {.pos = end};
    pthread_cond_init(&w.cv, NULL);
    waiter_t *at = g_s.head.prev; /* commits arrive nearly in order: search from the tail */
    while (at != &g_s.head && binlog_pos_cmp(at->pos, end) > 0)
        at = at->prev;
    w.prev = at;
    w.next = at->next;
    at->next->prev = &w;
    at->next = &w;
    g_s.st.wait_sessions++;
    uint64_t t0 = time_mono_us();
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    uint64_t ms = g_s.cfg.timeout_ms;
    dl.tv_sec += (time_t)(ms / 1000);
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    blocking_begin();
    int rc = 0;
    while (!w.done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w.cv, &g_s.mu, &dl);
    blocking_end();
    bool yes = w.done && binlog_pos_cmp(end, g_s.acked) <= 0;
    if (!w.done) { /* timed out: semi-sync goes OFF, the others stop waiting too */
        unlink_waiter(&w);
        if (g_s.on) {
            g_s.on = false;
            g_s.off_at = end;
            g_s.st.no_times++;
            log_warn("semi-sync: timeout of %llu ms waiting for a replica's ACK of binlog %u:%llu; switching to "
                     "asynchronous replication until a replica catches up",
                     (unsigned long long)ms, end.file, (unsigned long long)end.offset);
        }
        while (g_s.head.next != &g_s.head) {
            waiter_t *o = g_s.head.next;
            unlink_waiter(o);
            o->done = true;
            pthread_cond_signal(&o->cv);
        }
    }
    yes ? g_s.st.yes_tx++ : g_s.st.no_tx++;
    g_s.st.tx_waits++;
    uint64_t waited = time_mono_us() - t0;
    g_s.st.tx_wait_us += waited;
    int b = 0;
    while (waited >= repl_semisync_hist_us[b])
        b++; /* the last bound is UINT64_MAX */
    g_s.st.wait_hist[b]++;
    pthread_mutex_unlock(&g_s.mu);
    pthread_cond_destroy(&w.cv);
    return yes ? 0 : 1;
}

const uint64_t repl_semisync_hist_us[REPL_SEMISYNC_HIST] = {250,    500,    1000,   2000,    4000,    8000,
                                                            16000,  64000,  256000, 1000000, 4000000, UINT64_MAX};

void repl_semisync_ack(binlog_pos_t pos)
{
    pthread_mutex_lock(&g_s.mu);
    ensure_init();
    g_s.st.get_ack++;
    if (binlog_pos_cmp(pos, g_s.acked) > 0)
        g_s.acked = pos;
    if (!g_s.on && g_s.cfg.enabled && binlog_pos_cmp(g_s.acked, g_s.off_at) >= 0) {
        g_s.on = true;
        log_note("semi-sync: a replica caught up to binlog %u:%llu; semi-synchronous replication is on again",
                 g_s.acked.file, (unsigned long long)g_s.acked.offset);
    }
    wake_covered();
    pthread_mutex_unlock(&g_s.mu);
}

void repl_semisync_replica_add(void)
{
    pthread_mutex_lock(&g_s.mu);
    ensure_init();
    g_s.st.clients++;
    pthread_mutex_unlock(&g_s.mu);
}

void repl_semisync_replica_remove(void)
{
    pthread_mutex_lock(&g_s.mu);
    if (g_s.st.clients)
        g_s.st.clients--;
    pthread_mutex_unlock(&g_s.mu);
}

void repl_semisync_count_request(void)
{
    pthread_mutex_lock(&g_s.mu);
    g_s.st.request_ack++;
    pthread_mutex_unlock(&g_s.mu);
}

void repl_semisync_get_stats(repl_semisync_stats_t *st)
{
    pthread_mutex_lock(&g_s.mu);
    ensure_init();
    *st = g_s.st;
    st->status = g_s.cfg.enabled && g_s.on;
    pthread_mutex_unlock(&g_s.mu);
}
