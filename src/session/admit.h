/*
 * Transaction admission (DESIGN.md decision 1): at most strata_max_active_transactions write
 * transactions run at once; a session that wants to start one past that waits in a FIFO *as state* (its
 * connection is parked, it holds no thread) and is resumed when a running transaction ends.
 *
 * Why: at 3,000 connections doing short write transactions on the same rows, letting all of them open a
 * transaction fills the lock tables with waiters and deadlocks (the throughput collapse operators report at thousands of connections).  Admitting
 * a bounded number keeps the contention of a 64-client run whatever the number of clients.
 *
 * A session holds its slot from the statement that starts its transaction until the transaction ends (COMMIT,
 * ROLLBACK, the end of an autocommit statement, disconnect).  A holder that sits idle inside a transaction (its
 * client is thinking) for more than strata_admission_idle_ms stops counting, so idle transactions never block
 * the server; waiters are then admitted over the limit.
 *
 * Thread-safety: every function may be called from any worker; one mutex.  The wake callback runs with no lock
 * held, possibly on another session's thread (it must only queue the session: net_resume).
 */
#ifndef STRATA_SESSION_ADMIT_H
#define STRATA_SESSION_ADMIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct admit_node {
    struct admit_node *prev, *next; /* in the holders list or the wait queue */
    enum { ADMIT_NONE = 0, ADMIT_WAITING, ADMIT_HOLDING } state;
    uint64_t idle_since_us;          /* holding and idle inside a transaction since (0: executing) */
    uint64_t queued_us;
    void (*wake)(void *arg);         /* called once when a waiter is admitted */
    void *arg;
} admit_node_t;

/* limit 0 disables admission (everyone is admitted at once). idle_ms: see above. */
void admit_configure(uint32_t limit, uint32_t idle_ms);
/* true: admitted now (state HOLDING).  false: queued; wake(arg) is called once it is admitted. */
bool admit_enter(admit_node_t *n, void (*wake)(void *arg), void *arg);
/* The holder finished a statement and stays in its transaction (idle = true), or starts one (idle = false). */
void admit_set_idle(admit_node_t *n, bool idle);
/* Its transaction ended, or the connection goes away (also leaves the wait queue). */
void admit_leave(admit_node_t *n);
/* KILL of a waiting session: leaves the queue and is woken (not admitted).  false if it was not waiting. */
bool admit_cancel(admit_node_t *n);
/* Periodic (about every 20 ms): admits waiters past the limit while holders are idle. */
void admit_tick(void);
/* The thread that calls admit_tick (main.c starts it with the server and stops it before the connections). */
struct server;
int admit_start(struct server *srv); /* reads strata_max_active_transactions / strata_admission_idle_ms each tick */
void admit_stop(void);

typedef struct admit_stats {
    uint32_t holding, waiting, limit;
    uint64_t waits;       /* sessions that had to wait */
    uint64_t wait_us;     /* total time they waited */
    uint64_t over_limit;  /* admitted past the limit because holders were idle */
} admit_stats_t;
void admit_get_stats(admit_stats_t *st);

#endif
