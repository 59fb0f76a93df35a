/*
 * Semi-synchronous replication, source side (DESIGN.md decision 2).  A commit whose events end at
 * binlog position P is acknowledged to its client only once a semi-sync replica has confirmed it holds P, or
 * after rpl_semi_sync_master_timeout, when the source falls back to asynchronous replication until a replica
 * catches up again (MariaDB's semantics and variable names).
 *
 * Waiters are kept in a queue ordered by position and each has its own condition variable: an ACK for P wakes
 * exactly the committers at or below P, one signal each, never a broadcast (MySQL woke every waiter at every ACK:
 * 6,000 -> 300 TRX/s at 3,000 connections).  The dump threads (src/proto/dump.c) report ACKs and replica
 * arrivals and departures; the commit path (src/commit/commit.c) waits.
 *
 * Thread-safety: one mutex; waiters sleep on their own condition variable under it.
 */
#ifndef STRATA_REPL_SEMISYNC_H
#define STRATA_REPL_SEMISYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "binlog/binlog.h"

typedef struct repl_semisync_cfg {
    bool enabled;          /* rpl_semi_sync_master_enabled */
    uint64_t timeout_ms;   /* rpl_semi_sync_master_timeout */
    bool wait_no_slave;    /* rpl_semi_sync_master_wait_no_slave: wait even with no semi-sync replica */
    bool after_sync;       /* rpl_semi_sync_master_wait_point = AFTER_SYNC (else AFTER_COMMIT) */
} repl_semisync_cfg_t;

void repl_semisync_configure(const repl_semisync_cfg_t *cfg);
bool repl_semisync_after_sync(void);
/* rpl_semi_sync_master_enabled: replicas are asked for ACKs (also while OFF, so that one catching up turns it
 * back ON). */
bool repl_semisync_enabled(void);
/* Should this commit wait?  (enabled, status ON, and a replica connected or wait_no_slave) */
bool repl_semisync_active(void);

/* The commit path: blocks until a replica acknowledged `end` or the timeout; 0 = acknowledged ("yes"),
 * 1 = not waited or timed out ("no"). */
int repl_semisync_wait(binlog_pos_t end);

/* Dump threads. */
void repl_semisync_replica_add(void);
void repl_semisync_replica_remove(void);
/* An ACK: the replica holds everything before `pos` of file `seq`. */
void repl_semisync_ack(binlog_pos_t pos);

#define REPL_SEMISYNC_HIST 12
extern const uint64_t repl_semisync_hist_us[REPL_SEMISYNC_HIST]; /* upper bounds; the last is UINT64_MAX */

typedef struct repl_semisync_stats {
    bool status;          /* Rpl_semi_sync_master_status */
    uint32_t clients;     /* Rpl_semi_sync_master_clients */
    uint64_t yes_tx, no_tx, no_times, get_ack, request_ack;
    uint64_t tx_waits, tx_wait_us;
    uint32_t wait_sessions;
    /* the commits' waits for an ACK by duration: wait_hist[i] counts those under repl_semisync_hist_us[i]
     * microseconds and at least the bound before it; the last bucket has no upper bound */
    uint64_t wait_hist[REPL_SEMISYNC_HIST];
} repl_semisync_stats_t;
void repl_semisync_get_stats(repl_semisync_stats_t *st);
void repl_semisync_count_request(void);

#endif
