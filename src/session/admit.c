/*
 * Transaction admission: a counted set of holders and a FIFO of waiters (admit.h).
 *
 * "Busy" holders are those executing or idle for less than idle_ms; waiters are admitted while busy < limit.
 * A release hands its slot to the first waiter directly.  admit_tick() re-counts busy holders (idle ones stop
 * counting after idle_ms) and admits waiters into the room that frees.
 */
#include <pthread.h>
#include <time.h>

#include "session/admit.h"
#include "session/session.h"
#include "util/util.h"

static struct {
    pthread_mutex_t mu;
    uint32_t limit, idle_ms;
    admit_node_t holders; /* sentinels of circular lists */
    admit_node_t queue;
    uint32_t nholding, nwaiting;
    admit_stats_t st;
    bool init;
    bool stop, running;
    pthread_t ticker;
    pthread_cond_t cond;
    struct server *srv;
} g_a = {.mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void list_init(admit_node_t *h)
{
    h->prev = h->next = h;
}

static void list_add_tail(admit_node_t *h, admit_node_t *n)
{
    n->prev = h->prev;
    n->next = h;
    h->prev->next = n;
    h->prev = n;
}

static void list_del(admit_node_t *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = NULL;
}

static void ensure_init(void)
{
    if (!g_a.init) {
        list_init(&g_a.holders);
        list_init(&g_a.queue);
        g_a.init = true;
    }
}

void admit_configure(uint32_t limit, uint32_t idle_ms)
{
    pthread_mutex_lock(&g_a.mu);
    ensure_init();
    g_a.limit = limit;
    g_a.idle_ms = idle_ms ? idle_ms : 1;
    pthread_mutex_unlock(&g_a.mu);
    admit_tick(); /* a raised limit admits waiters now */
}

/* Holders that count against the limit. Caller holds mu. */
static uint32_t busy_holders(uint64_t now)
{
    uint32_t n = 0;
    uint64_t idle_us = (uint64_t)g_a.idle_ms * 1000;
    for (admit_node_t *h = g_a.holders.next; h != &g_a.holders; h = h->next)
        if (!h->idle_since_us || now - h->idle_since_us < idle_us)
            n++;
    return n;
}

/* Moves the first waiter to the holders; returns it (its wake is called by the caller without the lock). */
static admit_node_t *admit_first(uint64_t now)
{
    admit_node_t *w = g_a.queue.next;
    list_del(w);
    g_a.nwaiting--;
    w->state = ADMIT_HOLDING;
    w->idle_since_us = 0;
    list_add_tail(&g_a.holders, w);
    g_a.nholding++;
    g_a.st.wait_us += now - w->queued_us;
    return w;
}

bool admit_enter(admit_node_t *n, void (*wake)(void *arg), void *arg)
{
    if (n->state == ADMIT_HOLDING)
        return true;
    pthread_mutex_lock(&g_a.mu);
    ensure_init();
    if (n->state == ADMIT_WAITING) { /* resumed by other means (KILL): still queued */
        pthread_mutex_unlock(&g_a.mu);
        return false;
    }
    uint64_t now = time_mono_us();
    if (g_a.limit == 0 || (g_a.nwaiting == 0 && (g_a.nholding < g_a.limit || busy_holders(now) < g_a.limit))) {
        if (g_a.limit && g_a.nholding >= g_a.limit)
            g_a.st.over_limit++; /* room only because holders are idle */
        n->state = ADMIT_HOLDING;
        n->idle_since_us = 0;
        list_add_tail(&g_a.holders, n);
        g_a.nholding++;
        pthread_mutex_unlock(&g_a.mu);
        return true;
    }
    n->state = ADMIT_WAITING;
    n->wake = wake;
    n->arg = arg;
    n->queued_us = now;
    list_add_tail(&g_a.queue, n);
    g_a.nwaiting++;
    g_a.st.waits++;
    pthread_mutex_unlock(&g_a.mu);
    return false;
}

void admit_set_idle(admit_node_t *n, bool idle)
{
    if (n->state != ADMIT_HOLDING)
        return;
    pthread_mutex_lock(&g_a.mu);
    n->idle_since_us = idle ? time_mono_us() : 0;
    pthread_mutex_unlock(&g_a.mu);
}

void admit_leave(admit_node_t *n)
{
    if (n->state == ADMIT_NONE)
        return;
    admit_node_t *w = NULL;
    pthread_mutex_lock(&g_a.mu);
    if (n->state == ADMIT_WAITING) {
        list_del(n);
        g_a.nwaiting--;
    } else {
        list_del(n);
        g_a.nholding--;
        uint64_t now = time_mono_us();
        if (g_a.nwaiting && (g_a.limit == 0 || busy_holders(now) < g_a.limit))
            w = admit_first(now);
    }
    n->state = ADMIT_NONE;
    pthread_mutex_unlock(&g_a.mu);
    if (w)
        w->wake(w->arg);
}

bool admit_cancel(admit_node_t *n)
{
    pthread_mutex_lock(&g_a.mu);
    bool waiting = n->state == ADMIT_WAITING;
    if (waiting) {
        list_del(n);
        g_a.nwaiting--;
        n->state = ADMIT_NONE;
    }
    pthread_mutex_unlock(&g_a.mu);
    if (waiting)
        n->wake(n->arg);
    return waiting;
}

void admit_tick(void)
{
    enum { BATCH = 64 };
    admit_node_t *woken[BATCH];
    int nw;
    do {
        nw = 0;
        pthread_mutex_lock(&g_a.mu);
        ensure_init();
        if (g_a.nwaiting) {
            uint64_t now = time_mono_us();
            uint32_t busy = busy_holders(now);
            while (g_a.nwaiting && nw < BATCH && (g_a.limit == 0 || busy < g_a.limit)) {
                if (g_a.limit && g_a.nholding >= g_a.limit)
                    g_a.st.over_limit++;
                woken[nw++] = admit_first(now);
                busy++;
            }
        }
        pthread_mutex_unlock(&g_a.mu);
        for (int i = 0; i < nw; i++)
            woken[i]->wake(woken[i]->arg);
    } while (nw == BATCH);
}

void admit_get_stats(admit_stats_t *st)
{
    pthread_mutex_lock(&g_a.mu);
    *st = g_a.st;
    st->holding = g_a.nholding;
    st->waiting = g_a.nwaiting;
    st->limit = g_a.limit;
    pthread_mutex_unlock(&g_a.mu);
}

static void *ticker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_a.mu);
    while (!g_a.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&g_a.cond, &g_a.mu, &ts);
        if (g_a.stop)
            break;
        pthread_mutex_unlock(&g_a.mu);
        uint32_t lim = (uint32_t)sysvar_global_int(&g_a.srv->vars, SYSVAR_STRATA_MAX_ACTIVE_TRANSACTIONS);
        uint32_t idle = (uint32_t)sysvar_global_int(&g_a.srv->vars, SYSVAR_STRATA_ADMISSION_IDLE_MS);
        if (lim != g_a.limit || idle != g_a.idle_ms)
            admit_configure(lim, idle); /* SET GLOBAL takes effect here */
        else
            admit_tick();
        mem_give_back(); /* after a large statement, resident memory goes back down */
        pthread_mutex_lock(&g_a.mu);
    }
    pthread_mutex_unlock(&g_a.mu);
    return NULL;
}

int admit_start(struct server *srv)
{
    g_a.srv = srv;
    g_a.stop = false;
    admit_configure((uint32_t)sysvar_global_int(&srv->vars, SYSVAR_STRATA_MAX_ACTIVE_TRANSACTIONS),
                    (uint32_t)sysvar_global_int(&srv->vars, SYSVAR_STRATA_ADMISSION_IDLE_MS));
    if (pthread_create(&g_a.ticker, NULL, ticker, NULL) != 0)
        return -1;
    g_a.running = true;
    return 0;
}

void admit_stop(void)
{
    pthread_mutex_lock(&g_a.mu);
    g_a.stop = true;
    g_a.limit = 0; /* nobody waits any more */
    pthread_cond_broadcast(&g_a.cond);
    pthread_mutex_unlock(&g_a.mu);
    if (g_a.running)
        pthread_join(g_a.ticker, NULL);
    g_a.running = false;
    admit_tick(); /* limit 0: every waiter is admitted (and sees that it was killed) */
}
