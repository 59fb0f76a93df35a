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

#include "session/status.h"
#include "session/sysvar.h"
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

/* Column types on the wire (MySQL's enum_field_types). */
enum mysql_type {
    MYSQL_TYPE_DECIMAL = 0, MYSQL_TYPE_TINY = 1, MYSQL_TYPE_SHORT = 2, MYSQL_TYPE_LONG = 3,
    MYSQL_TYPE_FLOAT = 4, MYSQL_TYPE_DOUBLE = 5, MYSQL_TYPE_NULL = 6, MYSQL_TYPE_TIMESTAMP = 7,
    MYSQL_TYPE_LONGLONG = 8, MYSQL_TYPE_INT24 = 9, MYSQL_TYPE_DATE = 10, MYSQL_TYPE_TIME = 11,
    MYSQL_TYPE_DATETIME = 12, MYSQL_TYPE_YEAR = 13, MYSQL_TYPE_NEWDATE = 14, MYSQL_TYPE_VARCHAR = 15,
    MYSQL_TYPE_BIT = 16, MYSQL_TYPE_NEWDECIMAL = 246, MYSQL_TYPE_ENUM = 247, MYSQL_TYPE_SET = 248,
    MYSQL_TYPE_TINY_BLOB = 249, MYSQL_TYPE_MEDIUM_BLOB = 250, MYSQL_TYPE_LONG_BLOB = 251,
    MYSQL_TYPE_BLOB = 252, MYSQL_TYPE_VAR_STRING = 253, MYSQL_TYPE_STRING = 254, MYSQL_TYPE_GEOMETRY = 255,
};

/* Column flags (MySQL's *_FLAG). */
enum {
    COLF_NOT_NULL = 1, COLF_PRI_KEY = 2, COLF_UNIQUE_KEY = 4, COLF_MULTIPLE_KEY = 8, COLF_BLOB = 16,
    COLF_UNSIGNED = 32, COLF_ZEROFILL = 64, COLF_BINARY = 128, COLF_ENUM = 256, COLF_AUTO_INCREMENT = 512,
    COLF_TIMESTAMP = 1024, COLF_SET = 2048, COLF_NO_DEFAULT = 4096, COLF_NUM = 32768,
};

#define CHARSET_UTF8MB4_GENERAL_CI 45
#define CHARSET_BINARY 63
#define CHARSET_LATIN1_SWEDISH_CI 8

typedef struct res_col {
    const char *schema, *table, *org_table, *name, *org_name;
    uint16_t charset;
    uint32_t length;
    uint8_t type;
    uint16_t flags;
    uint8_t decimals;
} res_col_t;

/* One cell of a result row as the session hands it to the protocol layer: text for the text protocol, and
 * enough type to encode the binary protocol (the column's type says how). */
typedef struct res_cell {
    bool null;
    const char *p;
    size_t len;
} res_cell_t;

typedef struct res_sink res_sink_t;
struct res_sink {
    void (*columns)(res_sink_t *s, const res_col_t *cols, int n);
    void (*row)(res_sink_t *s, const res_cell_t *cells);
    /* End of a result set (after rows), with more=true when another result follows. */
    void (*rows_end)(res_sink_t *s, bool more);
    /* An OK for a statement without a result set. */
    void (*ok)(res_sink_t *s, uint64_t affected, uint64_t last_id, const char *info, bool more);
    /* The statement's error is in the session's diag; more is never true after an error. */
    void (*error)(res_sink_t *s);
    /* Raw string reply (COM_STATISTICS). */
    void (*raw)(res_sink_t *s, const char *p, size_t n);
};

typedef struct server server_t;
typedef struct session session_t;

enum session_cmd_state { SESS_SLEEP = 0, SESS_QUERY, SESS_CONNECT, SESS_KILLED_STATE };

struct session {
    server_t *srv;
    uint32_t id;
    char user[128];      /* as the client gave it (USER()) */
    char host[80];       /* client host ("localhost" or IP) */
    char priv_user[128]; /* the account matched (CURRENT_USER()) */
    char priv_host[80];
    char *db;            /* current database, mem_alloc'd, NULL if none */
    uint64_t connect_us;
    diag_t diag;
    arena_t arena;       /* per statement */
    uint16_t status;     /* SERVER_STATUS_* */
    bool multi_statements;
    bool tls;
    atomic_bool killed;      /* KILL CONNECTION */
    atomic_bool kill_query;  /* KILL QUERY */
    enum session_cmd_state state;
    pthread_mutex_t info_lock; /* guards info for SHOW PROCESSLIST readers */
    char *info;          /* current statement text (truncated), mem_alloc'd */
    uint64_t state_since_us;
    uint64_t last_insert_id;
    uint64_t found_rows;
    int64_t row_count;
    sysvar_session_t vars;  /* SESSION variables */
    status_session_t stat;  /* SESSION status counters */
    session_t *prev, *next; /* server registry */
    void *proto_conn;       /* the protocol connection (for KILL: shutdown of its socket) */
    int fd;
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
};

int server_init(server_t *srv);
void server_free(server_t *srv);

session_t *session_new(server_t *srv);
void session_free(session_t *s);
/* Adds to / removes from the registry (PROCESSLIST, KILL). */
void session_register(session_t *s);
void session_unregister(session_t *s);

/* Commands.  Each answers through the sink exactly once (an OK, a result set or an error). */
void session_query(session_t *s, const char *sql, size_t len, res_sink_t *sink);
void session_init_db(session_t *s, const char *db, size_t len, res_sink_t *sink);
void session_statistics(session_t *s, res_sink_t *sink);
void session_kill(session_t *s, uint32_t id, bool query_only, res_sink_t *sink);
void session_reset(session_t *s);
uint16_t session_status_flags(session_t *s);

#endif
