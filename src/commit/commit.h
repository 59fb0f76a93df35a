/*
 * The commit path (DESIGN.md decisions 2 and 3): a transaction that changed rows commits with the binary
 * log as the durable record.  With sync_binlog=1 (docs/binlog.md, "one fsync per commit group"):
 *
 *   1. binlog_commit(GTID ... XID)                  binlog group commit: one write + one fsync per group; the
 *                                                   transaction's redo records are not synced, nothing is prepared
 *   2. engine_trx_commit_tagged(binlog end pos)     in binlog order (a turnstile), not synced: the tag says which
 *                                                   binlog transactions the engine holds after a crash
 *
 * so a group of N concurrent committers costs one fsync.  After a crash sql_commit_start() re-applies, from their
 * row events (access/binapply.h), the binlog transactions after the engine's commit tag, before clients come.  With
 * sync_binlog != 1 the binlog may lose what it acknowledged, so the engine side is made durable first, as before:
 * engine_trx_prepare + engine_log_sync (one redo fsync per group), then 1 and 2; at start-up prepared transactions
 * are committed if their XID is in the binlog (binlog_open's recovery list), else rolled back.  A checkpointer
 * thread tells the binlog, about once a second, up to where every transaction's engine COMMIT is durable
 * (binlog_engine_checkpoint), which bounds what recovery reads and what purge keeps; it is also the redo's
 * background sync.
 *
 * Without a binlog (--skip-log-bin) or for a transaction that logged nothing, the engine commits alone
 * (engine_trx_commit: durable per innodb_flush_log_at_trx_commit).
 *
 * Test builds only (util/fio.h): the fault point commit.skip_redo_sync (STRATA_FAULT=point:commit.skip_redo_sync:*:ON)
 * stops the checkpointer from syncing the redo, so that a crash test must go through the re-apply.
 */
#ifndef STRATA_SQL_COMMIT_H
#define STRATA_SQL_COMMIT_H

#include "binlog/binlog.h"
#include "engine/engine.h"
#include "access/catalog.h"

/* At start-up, after engine_open, the catalog and binlog_open (bl and rec may be NULL without a binlog): settles
 * the engine's prepared transactions against rec, re-applies the binlog transactions the engine lost, syncs, and
 * starts the checkpointer.  0 or an error (logged; the server must not start). */
int sql_commit_start(engine_t *e, catalog_t *cat, binlog_t *bl, const binlog_recovery_t *rec);
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
/* Catalog change and QUERY event, both or neither.  Called before a DDL statement runs, with the text
 * sql_commit_ddl will log: from the statement's first catalog commit on, the catalog holds a note that the
 * event is owed (catalog_ddl_pending_set), and sql_commit_ddl deletes it in the engine commit it makes in the
 * event's binlog order; a recovery finding the note writes the event unless the binlog has it already.
 * sql_commit_ddl_abandon: the statement failed (deletes the note if one was written). */
/* The calling thread's statement runs with foreign_key_checks=0: its QUERY event carries OPTION_NO_FOREIGN_KEY_CHECKS
 * in flags2, so that a replica creates what refers to tables it does not have yet. */
void sql_commit_ddl_fk_checks(bool off);
void sql_commit_ddl_begin(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode);
void sql_commit_ddl_abandon(void);
/* The same for an account statement (CREATE/ALTER/DROP/RENAME USER, GRANT, REVOKE, roles), whose change goes to
 * the account file and not the catalog: the note is committed now, naming the file's generation, and recovery
 * writes the event only if the file moved past it.  The caller serialises these statements from here to its
 * sql_commit_ddl / sql_commit_ddl_abandon.  generation: the account store's, registered at start-up. */
int sql_commit_account_begin(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode);
void sql_commit_set_accounts(uint64_t (*generation)(void *arg), void *arg);
/* Decodes a DDL note's value (the fuzz target): 0 or STRATA_ECORRUPT. */
int sql_commit_ddl_note_check(const void *p, size_t n);

/* The replica's applier with log_slave_updates: the calling thread's next commits (sql_commit_trx, sql_commit_ddl)
 * are logged under the source's GTID g and timestamp when instead of a new GTID of this server, so that replicas
 * of this one follow the same GTIDs.  NULL: back to this server's own.  (The binlog takes g's seq only when it is
 * past the domain's last, so the domain's sequence never goes back.) */
void sql_commit_gtid_override(const binlog_gtid_t *g, uint32_t when);
/* The session's @@gtid_domain_id and @@server_id for what the calling thread commits next (set: false for the
 * binlog's own); the session sets it before each statement (SET SESSION gtid_domain_id / server_id, as MariaDB).
 * A replica applier's override wins over it. */
void sql_commit_identity(bool set, uint32_t domain, uint32_t server_id);


#endif
