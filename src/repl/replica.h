/*
 * strata as a replica (DESIGN.md decision 10): follows a MariaDB 10.11 or strata source by GTID or by file and
 * position, as MariaDB's replica does, with MariaDB's statements and SHOW SLAVE STATUS.
 *
 *   IO thread   connects through MariaDB Connector/C (auth plugins, TLS), sets the variables a MariaDB replica
 *               sets, COM_REGISTER_SLAVE, COM_BINLOG_DUMP; reads events, checks each (header, length, CRC32),
 *               and cuts the stream into event groups (one source transaction: GTID ... XID / COMMIT, or a
 *               standalone DDL).  Only whole groups are queued: a group cut by a disconnect is discarded and
 *               fetched again after the reconnect (MASTER_CONNECT_RETRY seconds apart, by GTID or position).
 *   SQL thread  takes groups in order and hands each to the applier (replica_apply_ops_t, supplied by the
 *               session layer), which applies it and writes its position in the same engine transaction.  A
 *               group that cannot be applied stops the SQL thread with MariaDB's error in Last_SQL_Errno; the
 *               group stays queued, so START SLAVE retries it.
 *   workers     with slave_parallel_threads > 0 the SQL thread is a coordinator: it hands whole groups to that
 *               many workers, which apply them at once (slave_parallel_mode decides which may overlap) and
 *               commit them in the queue's order (replica_worker_wait_turn); a later group holding a row lock
 *               an earlier one waits for is killed and applied again (replica_lock_wait).  replica.c's
 *               "parallel apply" has the rules.
 *
 * There is no relay log: the queue lives in memory (bounded; the IO thread waits when it is full), and the
 * position that survives a crash is the applied one, so a restart re-fetches whatever was queued.
 *
 * Thread states (replica_io_state_t, replica_sql_state_t), changed under the replica's mutex:
 *
 *   IO:  STOPPED --START--> CONNECTING --dump started--> RUNNING --error/EOF--> CONNECTING (after the retry
 *        wait) ...; STOP from any state -> STOPPED; a fatal error (1236, equal server ids) -> STOPPED.
 *   SQL: STOPPED --START--> RUNNING --STOP or apply error--> STOPPED.
 *
 * The configuration (CHANGE MASTER) is stored in <datadir>/replica.info, written atomically (tmp, fsync,
 * rename, fsync of the directory); the format is drawn at the top of replica.c.
 */
#ifndef STRATA_REPL_REPLICA_H
#define STRATA_REPL_REPLICA_H

#include <stdbool.h>
#include <stdint.h>

#include "binlog/binlog.h"
#include "util/buf.h"

typedef enum replica_gtid_mode {
    REPLICA_GTID_NO = 0,      /* file and position */
    REPLICA_GTID_SLAVE_POS,   /* from gtid_slave_pos */
    REPLICA_GTID_CURRENT_POS, /* from gtid_current_pos (gtid_slave_pos and this server's own binlog) */
} replica_gtid_mode_t;

/* A server or domain id list of CHANGE MASTER (IGNORE_SERVER_IDS, DO_DOMAIN_IDS, IGNORE_DOMAIN_IDS): sorted,
 * without duplicates. */
enum { REPLICA_MAX_IDS = 256 };
typedef struct replica_id_list {
    uint32_t n;
    uint32_t v[REPLICA_MAX_IDS];
} replica_id_list_t;
bool replica_id_list_has(const replica_id_list_t *l, uint32_t id);
/* Inserts id in order (nothing if present); false when the list is full. */
bool replica_id_list_add(replica_id_list_t *l, uint32_t id);

enum { REPLICA_MAX_DELAY = 2147483647 }; /* MASTER_DELAY's maximum (MariaDB's) */

typedef struct replica_config {
    char host[256];
    uint32_t port;
    char user[128];
    char password[128];
    replica_gtid_mode_t use_gtid;
    char log_file[256];        /* MASTER_LOG_FILE / MASTER_LOG_POS: where file/position mode starts */
    uint64_t log_pos;
    uint32_t connect_retry;    /* seconds between connection attempts */
    uint32_t heartbeat_ms;     /* MASTER_HEARTBEAT_PERIOD (0: none) */
    bool ssl;                  /* MASTER_SSL */
    bool ssl_verify;           /* MASTER_SSL_VERIFY_SERVER_CERT */
    char ssl_ca[256], ssl_capath[256], ssl_cert[256], ssl_key[256], ssl_cipher[256], ssl_crl[256],
        ssl_crlpath[256];
    uint32_t delay;            /* MASTER_DELAY: apply a transaction this many seconds after the source committed it */
    replica_id_list_t ignore_server_ids; /* events of these servers are not applied (their position is recorded) */
    replica_id_list_t do_domain_ids;     /* GTID mode: only these domains are applied ... */
    replica_id_list_t ignore_domain_ids; /* ... or every domain but these (at most one list is non-empty) */
} replica_config_t;

typedef enum replica_io_state { REPLICA_IO_STOPPED = 0, REPLICA_IO_CONNECTING, REPLICA_IO_RUNNING } replica_io_state_t;
typedef enum replica_sql_state { REPLICA_SQL_STOPPED = 0, REPLICA_SQL_RUNNING } replica_sql_state_t;

/* One source transaction as received: its events back to back, each a whole v4 event with its CRC32. */
typedef struct replica_group {
    struct replica_group *next;
    binlog_gtid_t gtid;
    bool has_gtid;
    uint8_t flags2;            /* the GTID event's (BINLOG_GTID_FL_*) */
    uint64_t commit_id;        /* the GTID event's commit_id (the source's group commit; 0: alone) */
    uint32_t when;             /* the source's timestamp of its events (its commit time) */
    char log_file[256];        /* the source position just past the group */
    uint64_t end_pos;
    buf_t ev;
    uint32_t nev;
    bool skip;                 /* filtered out (IGNORE_SERVER_IDS, domain ids): only its position is recorded */
    bool need_ack;             /* semi-sync: the source asked for an ACK once this group is durable here */
} replica_group_t;

/* Iterates a group's events: *off starts at 0; 1 = *ev filled, 0 = end. */
int replica_group_next(const replica_group_t *g, size_t *off, binlog_event_t *ev);

/* The applier (the session layer's src/session/replica_apply.c).  Calls come from the SQL thread only, except
 * save_pos/load (under the replica's admin lock, threads stopped). */
/* slave_parallel_mode, MariaDB's names in this order. */
typedef enum replica_par_mode {
    REPLICA_PAR_NONE = 0,     /* one transaction at a time */
    REPLICA_PAR_MINIMAL,      /* the same here (MariaDB overlaps only the commits) */
    REPLICA_PAR_CONSERVATIVE, /* the members of one source group commit (same commit_id) run in parallel */
    REPLICA_PAR_OPTIMISTIC,   /* every transaction runs ahead; one the source saw wait (FL_WAITED) waits first */
    REPLICA_PAR_AGGRESSIVE,   /* optimistic without the FL_WAITED wait */
} replica_par_mode_t;

/* A parallel apply worker, as the applier sees it while it applies one group (apply_worker). */
typedef struct replica_worker replica_worker_t;
/* apply_worker's answer for a transaction it rolled back because the worker was killed (a later transaction
 * held a lock an earlier one waits for) or an earlier one failed: apply it again. */
enum { REPLICA_RETRY = -2 };
/* The engine transaction the worker runs now (0: none), for replica_lock_wait. */
void replica_worker_set_trx(replica_worker_t *w, uint64_t trx_id);
/* Waits until every earlier group committed.  0: its turn, commit now; -1: killed, or an earlier group failed:
 * roll back and return REPLICA_RETRY. */
int replica_worker_wait_turn(replica_worker_t *w);
/* Killed meanwhile (checked between events: roll back and return REPLICA_RETRY). */
bool replica_worker_killed(replica_worker_t *w);

typedef struct replica_apply_ops {
    void *arg;
    /* Applies g and makes g's position (its GTID, and log_file/end_pos) durable in the same engine transaction.
     * 0, or a MariaDB error number with the message in err. */
    int (*apply)(void *arg, const replica_group_t *g, char *err, size_t cap);
    /* Makes every group apply returned 0 for durable (apply may commit without waiting for the disk: a crash
     * then loses a group together with its position, and it is fetched again).  Called once for a run of groups,
     * before their semi-sync ACK.  0 or an error.  NULL: apply's commits are durable. */
    int (*sync)(void *arg);
    /* Replaces the stored position (SET GLOBAL gtid_slave_pos; RESET SLAVE clears the file position). */
    int (*save_pos)(void *arg, const binlog_gtid_set_t *gtid, const char *file, uint64_t pos);
    /* Reads the stored position (start-up). */
    int (*load_pos)(void *arg, binlog_gtid_set_t *gtid, char *file, size_t cap, uint64_t *pos);
    /* This server's gtid_binlog_pos (for MASTER_USE_GTID = current_pos and gtid_current_pos). */
    void (*binlog_pos)(void *arg, binlog_gtid_set_t *out);
    /* slave_net_timeout in seconds: a read that waits longer reconnects (read when the IO thread connects). */
    uint32_t (*net_timeout)(void *arg);
    /* gtid_strict_mode (the source is told, @slave_gtid_strict_mode, when the IO thread connects). */
    bool (*gtid_strict)(void *arg);
    /* rpl_semi_sync_slave_enabled (read when the IO thread connects, as in MariaDB). */
    bool (*semi_sync_enabled)(void *arg);
    /* The applier's SQL thread ended (frees its per-thread state). */
    void (*thread_end)(void *arg);
    /* Parallel apply.  slave_parallel_threads and slave_parallel_mode (read when the SQL thread starts); NULL:
     * single-threaded. */
    void (*parallel)(void *arg, uint32_t *threads, replica_par_mode_t *mode);
    /* slave_transaction_retries (read at each retry). */
    uint32_t (*retries)(void *arg);
    /* A worker's own applier state: made when the worker starts, freed when it ends. */
    void *(*worker_new)(void *arg);
    void (*worker_free)(void *arg, void *wctx);
    /* Applies a group of row events in a worker thread, as apply does, except that between applying the rows and
     * writing the position it calls replica_worker_wait_turn(w) and commits only when that returns 0, so that
     * commits (and the binlog, and gtid_slave_pos) follow the source's order.  0 committed; REPLICA_RETRY rolled
     * back; else a MariaDB error number (1205 and 1213 are retried slave_transaction_retries times). */
    int (*apply_worker)(void *arg, void *wctx, replica_worker_t *w, const replica_group_t *g, char *err, size_t cap);
} replica_apply_ops_t;

typedef struct replica replica_t;

/* Loads <datadir>/replica.info and the stored position; starts both threads when configured unless
 * skip_start.  0 or an error (logged). */
int replica_open(const char *datadir, uint32_t server_id, const replica_apply_ops_t *ops, bool skip_start,
                 replica_t **out);
/* Stops the threads (the SQL thread finishes the group it is applying) and frees. */
void replica_close(replica_t *r);

/* CHANGE MASTER TO: which fields of c to take (REPLICA_SET_* bits); saved before return.  0 or a MariaDB error
 * number (1198 while a thread runs). */
enum {
    REPLICA_SET_HOST = 1 << 0, REPLICA_SET_PORT = 1 << 1, REPLICA_SET_USER = 1 << 2, REPLICA_SET_PASSWORD = 1 << 3,
    REPLICA_SET_USE_GTID = 1 << 4, REPLICA_SET_LOG_FILE = 1 << 5, REPLICA_SET_LOG_POS = 1 << 6,
    REPLICA_SET_CONNECT_RETRY = 1 << 7, REPLICA_SET_HEARTBEAT = 1 << 8, REPLICA_SET_SSL = 1 << 9,
    REPLICA_SET_SSL_VERIFY = 1 << 10, REPLICA_SET_SSL_CA = 1 << 11, REPLICA_SET_SSL_CAPATH = 1 << 12,
    REPLICA_SET_SSL_CERT = 1 << 13, REPLICA_SET_SSL_KEY = 1 << 14, REPLICA_SET_SSL_CIPHER = 1 << 15,
    REPLICA_SET_SSL_CRL = 1 << 16, REPLICA_SET_SSL_CRLPATH = 1 << 17, REPLICA_SET_DELAY = 1 << 18,
    REPLICA_SET_IGNORE_SERVER_IDS = 1 << 19, REPLICA_SET_DO_DOMAIN_IDS = 1 << 20,
    REPLICA_SET_IGNORE_DOMAIN_IDS = 1 << 21,
};
/* 1201 (logged, as MariaDB) for DO_DOMAIN_IDS with IGNORE_DOMAIN_IDS, or either without GTID mode. */
int replica_change(replica_t *r, const replica_config_t *c, uint32_t set);

/* START / STOP SLAVE [IO_THREAD | SQL_THREAD] (threads: REPLICA_THREAD_* bits).  0, or a MariaDB error (1200
 * when not configured); *note gets 1254 / 1255 when every named thread was already running / stopped. */
enum { REPLICA_THREAD_IO = 1, REPLICA_THREAD_SQL = 2, REPLICA_THREAD_BOTH = 3 };
/* START SLAVE UNTIL: the SQL thread stops once it applied up to the condition.  GTID: every domain of gtid at
 * its seq (a group of another domain, or past it, is not applied); both threads stop, as in MariaDB.  MASTER:
 * after the group that ends at or past log_file:log_pos. */
typedef enum replica_until_kind { REPLICA_UNTIL_NONE = 0, REPLICA_UNTIL_MASTER, REPLICA_UNTIL_GTID } replica_until_kind_t;
typedef struct replica_until {
    replica_until_kind_t kind;
    char log_file[256];
    uint64_t log_pos;
    binlog_gtid_set_t gtid;
} replica_until_t;
/* until may be NULL; it is copied. */
int replica_start(replica_t *r, unsigned threads, const replica_until_t *until, int *note);
int replica_stop(replica_t *r, unsigned threads, int *note);
/* RESET SLAVE [ALL]: forgets the received events, the errors and the file position (ALL: the configuration
 * too).  gtid_slave_pos is kept, as in MariaDB.  0 or 1198. */
int replica_reset(replica_t *r, bool all);

/* gtid_slave_pos: the last applied GTID per domain. */
void replica_gtid_slave_pos(replica_t *r, binlog_gtid_set_t *out);
/* SET GLOBAL gtid_slave_pos: 0, 1198 while a thread runs, or -1 (could not be stored). */
int replica_set_gtid_slave_pos(replica_t *r, const binlog_gtid_set_t *pos);

/* Whether a replication thread runs (SET GLOBAL slave_parallel_threads / _mode give 1198 then). */
bool replica_running(replica_t *r);
/* The engine's lock wait hook (engine_set_lock_wait_hook): when both transactions are parallel apply workers' and
 * the holder's group comes after the waiter's, the holder would wait for the waiter's commit while the waiter
 * waits for its lock: the holder is killed (it rolls back and is applied again) and true is returned.  Called
 * under the lock table's mutexes: takes only the replica's mu. */
bool replica_lock_wait(replica_t *r, uint64_t waiter_trx, uint64_t holder_trx);

/* SHOW SLAVE STATUS, as one snapshot. */
typedef struct replica_status {
    bool configured;
    replica_config_t cfg;
    const char *io_state;        /* Slave_IO_State */
    const char *io_running;      /* "Yes", "No", "Connecting" */
    bool sql_running;
    char master_log_file[256];   /* what the IO thread read up to */
    uint64_t read_master_log_pos;
    char exec_log_file[256];     /* what the SQL thread applied up to (Relay_Master_Log_File) */
    uint64_t exec_master_log_pos;
    uint64_t queued_bytes;       /* Relay_Log_Space: events received and not yet applied */
    int64_t seconds_behind;      /* -1: NULL */
    uint32_t last_io_errno, last_sql_errno;
    char last_io_error[512], last_sql_error[512];
    uint32_t master_server_id;
    char gtid_io_pos[512];       /* the GTIDs received (Gtid_IO_Pos) */
    const char *sql_state;       /* Slave_SQL_Running_State */
    uint64_t ddl_groups, nontrans_groups, trans_groups;
    uint64_t lag_ms;             /* the same lag in milliseconds (Strata_replica_lag_ms), 0 when NULL */
    int64_t remaining_delay;     /* SQL_Remaining_Delay while waiting for MASTER_DELAY, else -1 (NULL) */
    const char *until_condition; /* "None", "Master", "Gtid" */
    char until_log_file[256];
    uint64_t until_log_pos;
    bool semi_sync;              /* Rpl_semi_sync_slave_status: the IO thread runs with semi-sync */
    uint64_t acks_sent;          /* Rpl_semi_sync_slave_send_ack */
    uint64_t heartbeats;         /* Slave_received_heartbeats */
    uint64_t retried;            /* Slave_retried_transactions (Retried_transactions) */
    uint64_t executed;           /* Executed_log_entries: events applied */
    uint32_t workers;            /* parallel apply workers running (0: single-threaded) */
} replica_status_t;
void replica_status(replica_t *r, replica_status_t *st);

#endif
