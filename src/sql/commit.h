/*
 * The commit path (issue 5; DESIGN.md decisions 2 and 3): a transaction that changed rows commits in two phases
 * with the binary log as coordinator.
 *
 *   1. engine_trx_prepare(xid = engine trx id)      PREPARE record in the redo log
 *   2. engine_log_sync(prepare lsn)                 redo group commit: one fsync for every committer waiting
 *   3. binlog_commit(GTID ... XID)                  binlog group commit: one write + one fsync per group
 *   4. engine_trx_commit_nosync()                   the COMMIT record is not synced: recovery commits a prepared
 *                                                   trx whose XID is in the binlog
 *
 * So a group of N concurrent committers costs two fsyncs (one per file), whatever N.  After a crash the engine
 * comes back with its prepared transactions; sql_commit_start() commits those whose XID the binlog holds
 * (binlog_open's recovery list) and rolls back the others, so engine and binlog agree: a transaction is in both or
 * in neither.  A checkpointer thread tells the binlog, about once a second, up to where every transaction's
 * engine COMMIT is durable (binlog_engine_checkpoint), which bounds what recovery reads and what purge keeps.
 *
 * Without a binlog (--skip-log-bin) or for a transaction that logged nothing, the engine commits alone
 * (engine_trx_commit: durable per innodb_flush_log_at_trx_commit).
 */
#ifndef STRATA_SQL_COMMIT_H
#define STRATA_SQL_COMMIT_H

#include "binlog/binlog.h"
#include "engine/engine.h"

/* At start-up, after engine_open and binlog_open (bl and rec may be NULL without a binlog): settles the engine's
 * prepared transactions against rec and starts the checkpointer.  0 or an error (logged). */
int sql_commit_start(engine_t *e, binlog_t *bl, const binlog_recovery_t *rec);
/* Stops the checkpointer (before engine_close / binlog_close). */
void sql_commit_stop(void);
/* The binlog the commit path writes to, NULL when off. */
binlog_t *sql_commit_binlog(void);

/* Commits trx (freed in every case) with the events of blt (may be NULL or empty: engine only).  0, or a
 * strata/engine error: the transaction is then rolled back in the engine and absent from the binlog. */
int sql_commit_trx(engine_trx_t *trx, binlog_trx_t *blt, binlog_commit_result_t *res);

/* START TRANSACTION WITH CONSISTENT SNAPSHOT: opens trx's read view and reads the binlog position (name in
 * file[cap], *pos) with no two-phase commit in between, so that the view sees exactly the transactions that end
 * at or before the position (mariadb-dump --single-transaction --master-data).  Commits that have not begun
 * wait while the ones in progress finish (milliseconds).  file is "" and *pos 0 without a binlog. */
void sql_commit_snapshot(engine_trx_t *trx, char *file, size_t cap, uint64_t *pos);

/* A DDL statement as a standalone QUERY event (GTID with FL_STANDALONE|FL_DDL), durable at return.  0 or error.
 * Does nothing without a binlog.  sql_mode: the session's @@sql_mode bits, which the event carries (a replica
 * reads the text under it: ANSI_QUOTES ...). */
int sql_commit_ddl(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode);


#endif
