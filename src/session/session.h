/*
 * session: everything a connection knows between statements (user, current database, variables, diagnostics,
 * prepared statements, transaction state) and the server-wide registry of sessions (PROCESSLIST, KILL).
 *
 * The protocol layer owns the socket and calls down into the session with decoded commands; the session
 * answers through a res_sink_t the protocol layer provides, so it never formats packets itself.
 */
#ifndef STRATA_SESSION_H
#define STRATA_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "session/admit.h"
#include "session/status.h"
#include "session/sysvar.h"
#include "sql/exec/result.h"
#include "sql/value/value.h"
#include "util/diag.h"
#include "util/util.h"

/* Server status flags sent in OK/EOF packets (MySQL's SERVER_STATUS_*). */
enum {
    SERVER_STATUS_IN_TRANS = 1,
    SERVER_STATUS_AUTOCOMMIT = 2,
    SERVER_MORE_RESULTS_EXISTS = 8,
    SERVER_STATUS_NO_GOOD_INDEX_USED = 16,
    SERVER_STATUS_NO_INDEX_USED = 32,
    SERVER_STATUS_CURSOR_EXISTS = 64,
    SERVER_STATUS_LAST_ROW_SENT = 128,
    SERVER_STATUS_DB_DROPPED = 256,
    SERVER_STATUS_NO_BACKSLASH_ESCAPES = 512,
    SERVER_STATUS_METADATA_CHANGED = 1024,
    SERVER_QUERY_WAS_SLOW = 2048,
    SERVER_PS_OUT_PARAMS = 4096,
    SERVER_STATUS_IN_TRANS_READONLY = 8192,
    SERVER_SESSION_STATE_CHANGED = 16384,
};

/* Session state tracker entry types (the OK packet's session-state info, MySQL's enum_session_state_type). */
enum {
    SESSION_TRACK_SYSTEM_VARIABLES = 0,
    SESSION_TRACK_SCHEMA = 1,
    SESSION_TRACK_STATE_CHANGE = 2,
    SESSION_TRACK_TRANSACTION_CHARACTERISTICS = 4,
    SESSION_TRACK_TRANSACTION_STATE = 5,
};

typedef struct server server_t;
typedef struct session session_t;

#define SP_MODE_CACHE 4
typedef struct acl acl_t;
typedef struct binlog binlog_t;
typedef struct auth_cache auth_cache_t;

/* A user variable (@x): name lower-cased, value copied into its own allocation. */
typedef struct uservar {
    struct uservar *next;
    char *name;
    value_t v;
    char *data; /* string bytes of v */
} uservar_t;

/* A prepared statement (COM_STMT_PREPARE or SQL PREPARE; one implementation).  It owns an arena holding its
 * text and parse tree, which execution never modifies. */
typedef struct sess_stmt {
    struct sess_stmt *next;
    uint32_t id;
    char *name;          /* SQL-level name (PREPARE s FROM ...), NULL for protocol statements */
    arena_t arena;
    char *text;
    size_t text_len;
    void *stmt;          /* sql_stmt_t* */
    uint32_t nparams;
    uint16_t *param_types; /* from the last COM_STMT_EXECUTE that bound types */
    buf_t *long_data;      /* COM_STMT_SEND_LONG_DATA per parameter */
    bool *has_long_data;
    bool long_data_too_long; /* some parameter's data passed max_allowed_packet: every EXECUTE fails until RESET */
    int ncols;
    res_col_t *cols;
    char *db;              /* the current database at PREPARE: executions run in it, as MariaDB's do (NULL: none) */
    struct sql_plan *plan; /* its bound plan, reused while its tables do not change (sql/exec/exec.h); NULL: none */
} sess_stmt_t;

enum session_cmd_state { SESS_SLEEP = 0, SESS_QUERY, SESS_CONNECT, SESS_KILLED_STATE };

/* What one statement cost, for the slow log and the digest summary (session/querylog.c, digest.c): set at its
 * start, summed from the executor's calls (sql_exec_stats_t, same names) while it runs. */
typedef struct stmt_meter {
    uint64_t start_wall_us, start_mono_us;
    uint64_t rows_out0, bytes_out0; /* session rows_out / bytes_out at the start */
    uint64_t rows_examined;         /* rows read from tables */
    uint64_t lock_us;               /* waiting for metadata locks */
    uint64_t merge_passes;
    uint64_t full_scans, full_joins, tmp_tables, tmp_disk_tables, sort_rows, sort_range, sort_scan,
        priority_queue_sorts;
} stmt_meter_t;

struct session {
    server_t *srv;
    uint32_t id;
    char user[520];      /* as the client gave it (USER()) */
    char host[264];      /* client host ("localhost" or IP) */
    char ip[64];         /* client IP, "" for the Unix socket (the slow log's "@ host [ip]") */
    uint16_t port;       /* client port (TCP), 0 for the Unix socket */
    char priv_user[520]; /* the account matched (CURRENT_USER()) */
    char priv_host[264];
    char role[520];          /* active role (SET ROLE, default role at login); "" = none */
    struct acl_privs *privs; /* resolved privileges (priv.c), NULL until first needed */
    uint64_t privs_version;  /* acl_version() they were resolved at */
    char *db;            /* current database, mem_alloc'd, NULL if none */
    uint64_t connect_us;
    diag_t diag;
    arena_t arena;       /* per statement */
    bool multi_statements;
    bool multi_results;     /* CLIENT_MULTI_RESULTS: a CALL may send result sets */
    struct sp_frame *sp_frame; /* the innermost stored routine running (session/sp_exec.c), NULL outside */
    bool tls;
    bool compressed;
    char tls_version[16];    /* Ssl_version */
    char tls_cipher[64];     /* Ssl_cipher */
    atomic_bool killed;      /* KILL CONNECTION */
    atomic_bool kill_query;  /* KILL QUERY */
    enum session_cmd_state state;
    const char *command;     /* PROCESSLIST's Command when it is not Query / Sleep ("Daemon", "Connect": the event
                                scheduler's sessions), NULL otherwise */
    pthread_mutex_t info_lock; /* guards info for SHOW PROCESSLIST readers */
    char *info;          /* current statement text (truncated), mem_alloc'd */
    uint64_t state_since_us;
    _Atomic(unsigned) proc_progress;  /* PROCESSLIST Progress, thousandths of a percent (util/blocking.h) */
    _Atomic(const char *) proc_state; /* PROCESSLIST State while a statement waits (util/blocking.h), else NULL */
    uint64_t last_insert_id;
    uint64_t found_rows;
    int64_t row_count;
    buf_t track;            /* session state changes for the next OK (CLIENT_SESSION_TRACK) */
    sysvar_session_t vars;  /* SESSION variables */
    status_session_t stat;  /* SESSION status counters */
    uservar_t *uservars;
    sess_stmt_t *stmts;
    uint32_t next_stmt_id;
    uint32_t prev_warn_count, prev_error_count; /* the previous statement's, for @@warning_count */
    /* Transactions: whether one is open, and how, is the executor's (sqlx, sql/exec/exec.h); the session keeps what
     * only it knows.  SET TRANSACTION without GLOBAL/SESSION sets the next transaction's characteristics
     * (next_iso, next_access) until a transaction begun after it ends (its trx_seq passes next_seq). */
    int8_t next_iso;        /* tx_isolation enum index for the next transaction, -1: none */
    int8_t next_access;     /* sql_access_t for the next transaction, 0: none */
    uint64_t next_seq;
    int8_t begin_access;    /* the access clause of the open START TRANSACTION (sql_access_t) */
    bool locked_tables;     /* LOCK TABLES is in effect (until UNLOCK TABLES) */
    bool more_results;      /* another statement of the same COM_QUERY follows (SERVER_MORE_RESULTS_EXISTS) */
    /* session_track_transaction_info: the mode the last OK reported under, and what it reported */
    int8_t trk_mode;        /* 0 OFF, 1 STATE, 2 CHARACTERISTICS */
    char trk_state[9];      /* "" when not reported yet */
    char *trk_chars;        /* characteristics statement text, NULL when not reported yet */
    uint64_t trk_seen;      /* the executor's trk_events when the current statement began */
    bool trk_touched;       /* the statement changed what the tracker reports (SET TRANSACTION, LOCK TABLES) */
    bool trk_blind;         /* turned on inside transaction trk_blind_seq, which it then reports as none */
    uint64_t trk_blind_seq;
    bool snap_valid;        /* START TRANSACTION WITH CONSISTENT SNAPSHOT: the binlog position of its view */
    char snap_file[128];    /* (Binlog_snapshot_file / _position while the transaction lasts) */
    uint64_t snap_pos;
    admit_node_t admit;     /* transaction admission (admit.h): waiting for or holding a slot */
    uint32_t replica_server_id; /* COM_REGISTER_SLAVE: the replica's server_id (0: not a replica) */
    bool system_thread;     /* the replica's SQL thread: every privilege, exempt from read_only */
    uint32_t replica_origin; /* the replica's SQL thread: the server_id of the source's statement it applies (the
                                events it creates are SLAVESIDE_DISABLED, that server their ORIGINATOR); 0 else */
    bool unmetered;         /* the history sampler's: its statements reach neither the slow log nor the digests */
    void *sqlx;             /* the SQL executor's per-connection state (sql_exec_session_t), NULL until used */
    struct ulock_owner *ulock; /* user-level locks held (GET_LOCK, session/ulock.h), NULL until the first */
    session_t *prev, *next; /* server registry */
    void *proto_conn;       /* the protocol connection (for KILL: shutdown of its socket) */
    int fd;
    uint64_t rows_out;      /* result rows the protocol encoded (all statements), for the statement meter */
    uint64_t bytes_out;     /* bytes of packets the protocol framed, the same */
    stmt_meter_t meter;     /* the running statement's */
    char *slow_log_db;      /* the database of this session's last slow-log record ("use db;" when it changes) */
    struct digest_cache *digest_cache; /* the digest texts of its last statements (session/digest.c), NULL at first */
    char *sql_mode_text;    /* @@sql_mode as its names, for sql_mode_val (exec.c: formatted when the mode changes) */
    int64_t sql_mode_val;
    struct { char *text; int64_t val; } sp_modes[SP_MODE_CACHE]; /* routines' sql_mode names read (sp_exec.c) */
    uint32_t sp_modes_next;
    bool sp_into;           /* a routine's SELECT ... INTO runs (its x/0 is an error in strict mode) */
    struct sp_cached *sp_cache; /* routines as this session parsed them (sp_exec.c) */
};

struct server {
    uint64_t start_us;
    char *datadir;
    const char *version;    /* STRATA_VERSION_STRING */
    sysvar_store_t vars;    /* GLOBAL variables */
    status_t status;        /* status counters */
    atomic_uint next_id;
    pthread_mutex_t sessions_lock;
    session_t *sessions;
    int nsessions;
    atomic_bool shutdown_requested;
    void (*request_shutdown)(server_t *srv); /* set by main */
    acl_t *acl;
    auth_cache_t *auth_cache;
    binlog_t *binlog;       /* NULL with --skip-log-bin */
    pthread_mutex_t hosts_lock;
    struct host_errors *hosts; /* hosts with interrupted handshakes (max_connect_errors), under hosts_lock */
    bool qlog_ready;        /* the query logs follow their variables (set after start-up configured them) */
};

int server_init(server_t *srv);
void server_free(server_t *srv);
/* max_connect_errors: a client IP whose handshakes keep being interrupted is blocked until FLUSH HOSTS.
 * host_error() counts one interrupted handshake, host_ok() a successful login (which resets the count). */
bool server_host_blocked(server_t *srv, const char *ip);
void server_host_error(server_t *srv, const char *ip);
void server_host_ok(server_t *srv, const char *ip);
void server_hosts_flush(server_t *srv);
/* Shutdown: every session is marked killed (a running statement stops at its next check) and its socket shut. */
void server_kill_all(server_t *srv);

session_t *session_new(server_t *srv);
void session_free(session_t *s);
/* Adds to / removes from the registry (PROCESSLIST, KILL). */
void session_register(session_t *s);
void session_unregister(session_t *s);

/* Commands.  Each answers through the sink exactly once (an OK, a result set or an error). */
void session_query(session_t *s, const char *sql, size_t len, res_sink_t *sink);
void session_init_db(session_t *s, const char *db, size_t len, res_sink_t *sink);
/* Makes db the current database; pushes the error (1049 ...) and returns it negated if it can't. */
int session_set_db(session_t *s, const char *db, size_t len);
/* The collation id of the handshake (or COM_CHANGE_USER) sets character_set_client / _connection / _results and
 * collation_connection as SET NAMES would; an id strata does not know leaves the defaults, as MariaDB does. */
void session_set_client_collation(session_t *s, unsigned coll_id);
void session_statistics(session_t *s, res_sink_t *sink);
void session_kill(session_t *s, uint32_t id, bool query_only, res_sink_t *sink);
void session_reset(session_t *s);
/* Frees prepared statements and user variables (COM_RESET_CONNECTION, COM_CHANGE_USER, disconnect). */
void session_clear_state(session_t *s);
/* Prepared statements (protocol level).  Execute takes parameter values already decoded from the wire. */
void session_stmt_prepare(session_t *s, const char *sql, size_t len, res_sink_t *sink);
sess_stmt_t *session_stmt_find(session_t *s, uint32_t id);
void session_stmt_execute(session_t *s, sess_stmt_t *st, const value_t *params, res_sink_t *sink);
/* COM_STMT_SEND_LONG_DATA: appends to a parameter's data, up to max_allowed_packet bytes in all for it; past that
 * the data is dropped and every EXECUTE fails with MariaDB's 1105 until COM_STMT_RESET. */
void session_stmt_long_data(session_t *s, sess_stmt_t *st, uint32_t param, const uint8_t *data, size_t n);
void session_stmt_close(session_t *s, uint32_t id);
void session_stmt_reset(session_t *s, sess_stmt_t *st);
/* The SERVER_STATUS_* word of the next OK / EOF, computed from the session's state at the time it is sent:
 * autocommit, sql_mode, the executor's transaction (IN_TRANS, IN_TRANS_READONLY), what the current statement
 * did (DB_DROPPED). */
uint16_t session_status_flags(session_t *s);
/* Is a transaction open across statements (SERVER_STATUS_IN_TRANS, @@in_transaction)? */
bool session_in_trans(const session_t *s);
/* A result set is complete: recorded for the transaction tracker (called by the protocol before its EOF). */
void session_result_set_sent(session_t *s);
/* Before an OK is encoded: settles what the statement changed that the OK must report (a current database that
 * was dropped is left, SESSION_TRACK_SCHEMA ""), and appends the transaction tracker's entries (state,
 * characteristics) that changed since the last OK when session_track_transaction_info asks for them. */
void session_track_pending(session_t *s);
/* The current database was dropped: the session has none from now on (tracked as the schema ""). */
void session_db_gone(session_t *s);
/* Ends the one-shot characteristics of SET TRANSACTION once a transaction begun after them has ended. */
void session_next_trx_expire(session_t *s);
/* A statement begins: the diagnostics area goes stale (see util/diag.h) under the session's max_error_count and
 * sql_notes. */
void session_begin_statement(session_t *s);
/* Session state tracking (the OK packet's session-state info): the current schema changed; a system variable
 * changed (recorded only if session_track_system_variables lists it, or is '*'). */
void session_track_schema(session_t *s);
void session_track_var(session_t *s, const char *name);
/* Whether the session holds the SUPER privilege (priv.h has the specific checks). */
bool session_is_admin(session_t *s);
/* A user variable (@name) of the session, NULL if never set (replication: @slave_connect_state ...). */
const value_t *session_uservar(session_t *s, const char *name);
/* After SET GLOBAL of `def`: pushes the new value to the box that uses it (binlog limits, lock wait timeout). */
void server_apply_global(server_t *srv, const struct sysvar_def *def);
/* rpl_semi_sync_master_* into the semi-sync box (start-up and SET GLOBAL). */
void server_apply_semisync(server_t *srv);
/* Transaction admission around one command (admit.h): does this command (COM_QUERY text or COM_STMT_EXECUTE)
 * start a transaction that must be admitted first?  Cheap: looks at the first keyword only. */
bool session_admission_needed(session_t *s, uint8_t cmd, const char *arg, size_t len);
/* After a command: a transaction that ended gives its slot back; one that stays open is marked idle. */
void session_admission_after(session_t *s);

/* COM_FIELD_LIST: table's column definitions (names matching the LIKE pattern wild) and defaults (NULL: none),
 * in the statement arena.  0, or an error in s->diag (1046, 1142, 1146). */
int session_field_list(session_t *s, const char *table, size_t tlen, const char *wild, size_t wlen,
                       res_col_t **cols, res_cell_t **defaults, int *n);

/* The general and slow query logs (session/querylog.c over monitor/qlog.h). */
/* Opens or closes both logs to match general_log(_file), slow_query_log(_file) and log_output; 0 or -errno. */
int session_qlog_configure(server_t *srv);
/* Does SET GLOBAL of this variable reconfigure the logs? */
bool session_qlog_var(sysvar_id_t id);
/* SET GLOBAL general_log_file / slow_query_log_file: can the file be written (relative to the data directory)?
 * 0, or -1 (MariaDB's 1231). */
int session_qlog_check_path(server_t *srv, const char *path);
/* log_output bits that cannot be honoured (TABLE): -1, else 0. */
int session_qlog_check_output(int64_t bits);
/* FLUSH [GENERAL | SLOW] LOGS: reopen. */
void session_qlog_flush(server_t *srv, bool general, bool slow);
/* A general-log record of this session's command (nothing when the log is closed or sql_log_off). */
void session_qlog_general(session_t *s, const char *command, const char *arg, size_t len);
/* The login's record: "user@host on db using via" or MariaDB's access-denied text. */
void session_qlog_connect(session_t *s, const char *db, const char *via, bool denied, const char *used_password);
/* Around each statement: start its meter; after it, Slow_queries and the slow log. */
void session_meter_begin(session_t *s);
struct sql_stmt;
void session_meter_end(session_t *s, const struct sql_stmt *st);

/* The SQL_PARSE_* flags (sql/sql.h) of the session's sql_mode. */
unsigned session_parse_mode(session_t *s);

/* Statement digests (session/digest.c over monitor/digest.h). */
/* Start-up: sizes the summary from performance_schema_digests_size, or leaves it off with performance_schema. */
void session_digest_init(server_t *srv);
/* After a statement: its digest text (the session keeps the last few, so a prepared statement or a repeated
 * text is not normalized again), its meter and diagnostics added to its row. */
void session_digest_record(session_t *s, const struct sql_stmt *st, uint64_t query_us);
/* performance_schema.events_statements_summary_by_digest: one row(arg, vals) per row, vals in the table's
 * column order (sql/ddl/show.c exec_perfschema); and its TRUNCATE. */
void session_digest_rows(void (*row)(void *arg, const char *const *vals), void *arg);
void session_digest_truncate(void);
/* Frees the session's digest cache (session_free). */
void session_digest_free(session_t *s);

#endif
