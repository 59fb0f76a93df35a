/*
 * Session-internal: strata as a replica (src/repl/replica.h) seen from SQL.  exec_repl.c answers CHANGE MASTER,
 * START / STOP / RESET SLAVE, SHOW SLAVE STATUS and gtid_slave_pos; replica_apply.c is the applier the SQL
 * thread calls (row events through access/binapply.c, QUERY events through this layer's own statement path) and
 * the position store (the catalog's 'R'/'Q' records, written in the applied transaction).
 */
#ifndef STRATA_SESSION_EXEC_REPL_H
#define STRATA_SESSION_EXEC_REPL_H

#include <stdbool.h>

#include "repl/replica.h"
#include "session/session.h"
#include "sql/sql.h"

/* At start-up, after the catalog and the binlog: loads the configuration and starts replicating unless
 * skip_start.  0 or an error (logged). */
int session_replica_open(server_t *srv, bool skip_start);
/* At shutdown, before the engine closes. */
void session_replica_close(server_t *srv);
replica_t *session_replica(void);

/* CHANGE MASTER / START SLAVE / STOP SLAVE / RESET SLAVE. */
int exec_repl_stmt(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more);
/* SHOW SLAVE | REPLICA STATUS; all: SHOW ALL SLAVES STATUS (its two columns before, six after). */
int exec_repl_show_status(session_t *s, bool all, res_sink_t *sink, bool more);
/* SET GLOBAL gtid_slave_pos (the check hook): 0 or -ER_x pushed to d. */
int exec_repl_set_gtid_slave_pos(const char *text, size_t len, diag_t *d);
/* A GTID list ("d-s-n, ...", one per domain) into set (freed by the caller): 0 or -1. */
int exec_repl_parse_gtid_list(const char *text, size_t len, binlog_gtid_set_t *set);
/* Rpl_semi_sync_slave_status, _send_ack, Slave_running, Slave_heartbeat_period, Slave_received_heartbeats,
 * Strata_replica_lag_ms: true when
 * which is one of them (the value in *num or out). */
bool exec_repl_status(int which, uint64_t *num, buf_t *out);
/* gtid_slave_pos / gtid_current_pos text into out. */
void exec_repl_gtid_pos(server_t *srv, bool current, buf_t *out);

#endif
