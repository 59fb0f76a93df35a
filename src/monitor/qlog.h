/*
 * qlog: the general query log and the slow query log, written to files in MariaDB 10.11's formats so that
 * pt-query-digest, mysqldumpslow and operators' habits read them unchanged.  The session decides what is logged
 * (general_log, slow_query_log, long_query_time, log_queries_not_using_indexes, min_examined_row_limit,
 * log_slow_verbosity, sql_log_off) and calls here with the facts; this box only formats and appends.
 *
 * Each log is one file opened O_APPEND; a record is formatted into a buffer and written with one write(2)
 * under the log's mutex, so concurrent sessions never interleave inside a record and a crash leaves at most
 * the last record cut short.  FLUSH LOGS closes and reopens the files (logrotate moves the old one first).
 *
 * The formats, as MariaDB writes them:
 *   header (at every open)   "<prog>, Version: <version> (<comment>). started with:\n"
 *                            "Tcp port: <port>  Unix socket: <socket>\n"
 *                            "Time\t\t    Id Command\tArgument\n"
 *   general record           "YYMMDD HH:MM:SS\t" (or "\t\t" when the second is the previous record's)
 *                            "%6u <Command>\t<argument>\n"
 *   slow record              ["# Time: YYMMDD HH:MM:SS\n" when the second changed]
 *                            "# User@Host: <priv_user>[<user>] @ <host> [<ip>]\n"
 *                            "# Thread_id: <id>  Schema: <db>  QC_hit: No\n"
 *                            "# Query_time: %.6f  Lock_time: %.6f  Rows_sent: N  Rows_examined: N\n"
 *                            "# Rows_affected: N  Bytes_sent: N\n"
 *                            [query_plan verbosity: "# Full_scan: Yes|No  Full_join: ..." two lines]
 *                            ["use `db`;\n" when the thread's database changed since its last record]
 *                            "SET timestamp=<unix seconds>;\n" "<statement text>;\n"
 */
#ifndef STRATA_MONITOR_QLOG_H
#define STRATA_MONITOR_QLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { QLOG_GENERAL = 0, QLOG_SLOW = 1 } qlog_kind_t;

/* What the file headers name: the server's version, TCP port and socket path (copied). */
void qlog_set_identity(const char *version, unsigned port, const char *socket);

/* Opens (path non-NULL) or closes (NULL) a log.  Reopening the path already open does nothing.  0, or -errno
 * (the log stays closed; the caller reports it). */
int qlog_open(qlog_kind_t kind, const char *path);
/* FLUSH LOGS: each open log is closed and opened again at its path (a new file if it was moved away). */
int qlog_reopen(qlog_kind_t kind);
/* Is the log open?  A relaxed read: callers test it before building a record. */
bool qlog_is_open(qlog_kind_t kind);
void qlog_close_all(void);

/* A general-log record: command is MariaDB's name ("Connect", "Query", "Init DB", "Quit", "Prepare",
 * "Execute", "Close stmt", "Field List", "Change user", "Reset stmt", ...). */
void qlog_general(uint32_t thread_id, const char *command, const char *arg, size_t len);

/* A slow-log record. */
typedef struct qlog_slow {
    uint32_t thread_id;
    const char *user, *priv_user, *host, *ip; /* ip "" for the Unix socket */
    const char *db;                           /* current database, "" when none */
    bool db_changed;                          /* print "use `db`;" first */
    uint64_t start_us;                        /* wall clock at the statement's start (SET timestamp) */
    uint64_t query_us, lock_us;
    uint64_t rows_sent, rows_examined, rows_affected, bytes_sent;
    bool query_plan;                          /* log_slow_verbosity has query_plan: the plan lines below */
    bool full_scan, full_join, tmp_table, tmp_table_on_disk, filesort, filesort_on_disk, priority_queue;
    uint64_t merge_passes;
    const char *text;
    size_t len;
} qlog_slow_t;
void qlog_slow(const qlog_slow_t *e);

#endif
