/*
 * The SQL executor: turns a parsed statement (ast.h) that needs tables into catalog and engine operations and
 * result rows (result.h).  The session fills a sql_exec_ctx_t per statement and calls sql_exec_stmt(); the
 * executor answers through ctx->sink exactly once (OK, result set) or returns a negative -ER_* error already
 * pushed to ctx->diag (the session then sends the ERR packet).
 *
 * Transactions: the session owns a sql_exec_session_t (one per connection, sql_exec_session_new) holding the
 * engine transaction.  A statement with no transaction open begins one; with autocommit on and no explicit
 * BEGIN it is committed (or rolled back on error) at the end of the statement.  Inside BEGIN ... COMMIT (or
 * with autocommit off) it stays open across statements; a failing statement is undone alone (rolled back to
 * the engine savepoint it began at), a deadlock rolls back the whole transaction as MySQL does.  DDL commits the open transaction first.
 *
 * Process-wide state: the engine and catalog that main.c opens (sql_exec_global_init).
 */
#ifndef STRATA_SQL_EXEC_H
#define STRATA_SQL_EXEC_H

#include <stdatomic.h>

#include "engine/engine.h"
#include "sql/parser/ast.h"
#include "access/catalog.h"
#include "access/mdl.h"
#include "sql/exec/result.h"
#include "sql/parser/parser.h"
#include "sql/expr/expr.h"
#include "access/table.h"
#include "access/fk.h"

/* Opens the catalog over an open engine (main.c, at start-up); 0 or an error (logged). */
int sql_exec_global_init(engine_t *e, const char *datadir);
/* Closes the catalog (main.c, at shutdown, before engine_close). */
void sql_exec_global_shutdown(void);
/* NULL until sql_exec_global_init succeeded (the session then answers ER_NOT_SUPPORTED_YET as before). */
catalog_t *sql_exec_catalog(void);
/* For session_set_db / USE: does the database exist?  (information_schema etc. included.) */
bool sql_exec_db_exists(const char *db);

/*
 * Per-connection executor state.  Its transaction fields are the one source of truth for what the session
 * reports (SERVER_STATUS_IN_TRANS / _IN_TRANS_READONLY, @@in_transaction, the session tracker's transaction
 * state):
 *
 *     NONE --BEGIN--> (explicit_begin, no trx) --first table--> EXPLICIT --COMMIT/ROLLBACK/DDL/deadlock--> NONE
 *     NONE --table, autocommit=0--> EXPLICIT (implicit: 'I') --COMMIT/ROLLBACK/DDL/SET autocommit=1--> NONE
 *     NONE --table, autocommit=1--> STMT --end of the statement--> NONE
 *
 * As in MariaDB, a transaction is open across statements (sql_exec_in_trans) from BEGIN on, or, with autocommit
 * off, from the first statement that opens a table (its engine transaction begins there, before any row or
 * column definition is sent); a statement without tables (SELECT 1, SET, DO) starts none.
 */
typedef enum sql_exec_trx_state {
    SQLX_TRX_NONE = 0,    /* no engine transaction */
    SQLX_TRX_STMT,        /* an implicit one, for the current autocommit statement */
    SQLX_TRX_EXPLICIT,    /* BEGIN / START TRANSACTION, or autocommit=0: open until COMMIT/ROLLBACK */
} sql_exec_trx_state_t;

typedef struct sql_exec_session {
    engine_trx_t *trx;
    sql_exec_trx_state_t state;
    bool explicit_begin;  /* BEGIN was written (autocommit=0 transactions start implicitly) */
    bool wrote;           /* the open transaction changed rows (else an autocommit statement rolls back) */
    table_stmt_t stmt;    /* the current statement's binlog row log and foreign-key state, for table.c */
    uint64_t stmt_sp;     /* the engine savepoint the current statement began at (its failure rolls back to it) */
    uint64_t stmt_trx;    /* the id of the engine trx stmt_sp belongs to (0: none was open when it began) */
    table_fk_t fk;        /* foreign-key processing of them (access/fk.h), set per statement */
    struct binrow_log *bl; /* the transaction's binlog events (access/binrow.h), committed by commit/commit.c */
    mdl_set_t mdl;        /* metadata locks held until the transaction ends (access/mdl.h) */
    bool read_only;       /* READ ONLY transaction (START TRANSACTION READ ONLY, tx_read_only): writes fail with 1792 */
    /* what the open multi-statement transaction did, for the session tracker's state string (cleared at its end) */
    bool did_read;        /* a table was opened for reading ('R') */
    bool did_write;       /* a table was opened for writing ('W'), whether or not rows changed */
    bool snapshot;        /* WITH CONSISTENT SNAPSHOT ('R' too) */
    bool result_set;      /* a result set was sent ('S'; sql_exec_note) */
    bool unsafe;          /* a statement the binary log cannot replay as text ran ('s'; sql_exec_note) */
    uint64_t trx_seq;     /* counts transactions begun (one-shot SET TRANSACTION characteristics end with theirs) */
    uint64_t trk_events;  /* counts what the transaction tracker reacts to: a transaction begun or ended, a table or
                             a result set in one (the session reports a changed state only after such an event) */
    /* what the current statement did, for its OK / EOF (cleared by sql_exec_stmt_begin) */
    bool db_dropped;      /* dropped a database (SERVER_STATUS_DB_DROPPED) */
    bool no_index_used;   /* read a table by a full scan (SERVER_QUERY_NO_INDEX_USED) */
    /* SAVEPOINT: each holds an engine savepoint (engine_trx_savepoint) and a binlog mark */
    struct sql_exec_savepoint *sp;
    uint32_t nsp, capsp;
    struct sql_exec_tmp *tmp; /* this connection's TEMPORARY tables (real tables in the hidden #sql_tmp database) */
    /* triggers running now (sql/exec/trigfire.c): their statements run nested in the one that fired them, and
     * may not change the tables of the statements firing (1442) */
    uint32_t trg_depth;
    struct exec_trg_table { const char *db, *name; } trg_tables[64];
    uint32_t ntrg_tables;
    /* stored functions running now inside a statement on tables (sql/exec/evalctx.c): their statements run nested
     * like a trigger's (trg_depth counts them too), and may not change a table that statement opened (1442),
     * which are listed here as it opens them (the first 64) */
    uint32_t fn_depth;
    struct exec_trg_table stmt_tables[64];
    uint32_t nstmt_tables;
} sql_exec_session_t;

sql_exec_session_t *sql_exec_session_new(void);
/* Rolls back what is open and frees (connection end). */
void sql_exec_session_free(sql_exec_session_t *ss);

/* What a statement's sorts and temporary results did, for the session's status variables (MariaDB's names). */
typedef struct sql_exec_stats {
    uint64_t sort_merge_passes;  /* Sort_merge_passes: merges of sorted runs on disk */
    uint64_t sort_priority_queue_sorts; /* Sort_priority_queue_sorts: ORDER BY ... LIMIT kept in a heap */
    uint64_t sort_rows;          /* Sort_rows */
    uint64_t sort_range;         /* Sort_range: sorts of rows read through an index range */
    uint64_t sort_scan;          /* Sort_scan: sorts of rows read by a full scan */
    uint64_t tmp_tables;         /* Created_tmp_tables: GROUP BY / DISTINCT / UNION results held aside */
    uint64_t tmp_disk_tables;    /* Created_tmp_disk_tables: those that went to disk */
    uint64_t tmp_files;          /* Created_tmp_files (global) */
    uint64_t plan_hits;          /* a prepared statement's plan reused */
    uint64_t plan_rebinds;       /* Com_stmt_reprepare: a prepared plan bound again after its tables changed */
    uint64_t rows_examined;      /* rows read from tables (the slow log's Rows_examined) */
    uint64_t lock_us;            /* time waiting for metadata locks (its Lock_time) */
    uint64_t full_scans;         /* Select_scan: 1 when a first table was read by a full scan */
    uint64_t full_joins;         /* Select_full_join: 1 when a later table of a join was */
    uint64_t read_rnd_next;      /* Handler_read_rnd_next: rows of table scans, and one per scan's end */
    uint64_t read_key, read_next, read_prev, read_first, read_last; /* Handler_read_*: index reads */
} sql_exec_stats_t;

/* sql_mode's effect on SHOW CREATE TABLE (MariaDB 10.11; ANSI, POSTGRESQL, ORACLE, MSSQL, DB2 and MAXDB imply
 * NO_TABLE_OPTIONS and NO_KEY_OPTIONS there). */
enum {
    SQL_SHOW_CREATE_ANSI_QUOTES = 1,       /* identifiers in "..." instead of `...` */
    SQL_SHOW_CREATE_NO_TABLE_OPTIONS = 2,  /* nothing after the closing ')' (ENGINE=, CHARSET=, COMMENT= ...) */
    SQL_SHOW_CREATE_NO_KEY_OPTIONS = 4,    /* no COMMENT on keys */
    SQL_SHOW_CREATE_NO_FIELD_OPTIONS = 8,  /* no AUTO_INCREMENT, no ON UPDATE on columns */
};

/* A prepared statement's cached plan (exec_select.c): opaque, owned by the statement. */
typedef struct sql_plan sql_plan_t;
sql_plan_t *sql_plan_new(void);
void sql_plan_free(sql_plan_t *p);
/* The copy of the current database db that executions with plan p use as sql_exec_ctx_t.db: bound column
 * references point at their table's database name, so it must live as long as the plan. */
const char *sql_plan_db(sql_plan_t *p, const char *db);

/* The per-statement context the session fills. */
typedef struct sql_exec_ctx {
    arena_t *arena;            /* statement arena: rows, values, result cells */
    diag_t *diag;
    const sql_eval_cb_t *cb;   /* the session's evaluation callbacks (variables, session functions, params) */
    void *cb_user;
    uint32_t div_precision_increment;
    uint64_t group_concat_max_len; /* @@group_concat_max_len (0: MariaDB's default, 1 MiB) */
    uint64_t max_allowed_packet; /* bounds strings functions build (0: the evaluator's default) */
    uint64_t max_recursive_iterations; /* @@max_recursive_iterations: rounds of a recursive WITH element */
    struct cte_work *cte_work; /* recursive WITH elements being iterated: the rows their references read */
    uint32_t view_depth;       /* views being expanded inside one another (1462 past a bound) */
    struct view_check *view_check; /* a write through a view WITH CHECK OPTION: its conditions (bind/view.h) */
    const char *db;            /* current database, NULL if none */
    const char *user, *host;   /* for messages (1044 ...) */
    bool strict;               /* STRICT_TRANS_TABLES / STRICT_ALL_TABLES in sql_mode */
    bool div_zero_off;         /* ERROR_FOR_DIVISION_BY_ZERO not in sql_mode */
    bool limit_selects;        /* a client's statement: select_limit applies (internal contexts leave it off) */
    uint64_t select_limit;     /* @@sql_select_limit: rows of a top-level SELECT / UNION without LIMIT */
    bool div_zero_error;       /* set during a strict INSERT: x/0 in its SELECT / subqueries is error 1365 */
    unsigned show_create;      /* SQL_SHOW_CREATE_* below: how sql_mode shapes SHOW CREATE TABLE */
    uint64_t sql_mode;         /* @@sql_mode (its bits), which the binlog's QUERY events of DDL carry */
    uint32_t autoinc_increment, autoinc_offset; /* @@auto_increment_increment / _offset (0 taken as 1) */
    bool no_auto_value_on_zero; /* NO_AUTO_VALUE_ON_ZERO in sql_mode: 0 into an AUTO_INCREMENT column is stored
                                   (only NULL generates a value); mariadb-dump sets it for its restores */
    bool autocommit;
    bool log_bin;              /* sql_log_bin: the statement's changes go to the binary log (when it is on) */
    bool fk_checks_off;        /* foreign_key_checks=0: foreign keys are neither checked nor acted on */
    bool check_constraints_off;/* check_constraint_checks=0: CHECK constraints are not evaluated */
    uint32_t thread_id;        /* the connection id (pseudo_thread_id of QUERY events) */
    uint64_t lock_wait_timeout_us; /* lock_wait_timeout: metadata lock waits (0: the default, 1 day) */
    uint16_t result_coll;      /* character_set_results' default collation (column metadata, and result strings
                                  are converted to its charset); 0 = NULL/binary: sent as they are */
    uint16_t conn_coll;        /* collation_connection: plain string literals are in it (0: utf8mb4) */
    uint32_t regex_flags;      /* @@default_regex_flags (SET bits) */
    int isolation;             /* tx_isolation: 0 READ UNCOMMITTED, 1 READ COMMITTED, 2 REPEATABLE READ (set it!), 3 SERIALIZABLE */
    bool tx_read_only;         /* a transaction this statement begins is READ ONLY (tx_read_only or SET TRANSACTION) */
    uint64_t lock_wait_us;     /* innodb_lock_wait_timeout of the session (0: the engine's default) */
    sql_exec_session_t *ss;    /* the connection's state (transaction) */
    _Atomic bool *kill_query;  /* KILL QUERY: long scans stop with 1317 when it becomes true (and clear it) */
    /* which databases (table NULL) and tables the account may see, for SHOW DATABASES / SHOW TABLES /
     * information_schema rows; NULL = everything.  Statement privileges are checked by the session before
     * sql_exec_stmt (session/priv_stmt.c). */
    bool (*visible)(void *user, const char *db, const char *table);
    /* which of SELECT, INSERT, UPDATE, REFERENCES (SQL_COLPRIV_*) the account holds on a column: COLUMNS and
     * STATISTICS rows, SHOW COLUMNS / INDEX show the columns with any, and COLUMNS.PRIVILEGES lists them; NULL =
     * all of them */
    unsigned (*column_privs)(void *user, const char *db, const char *table, const char *column);
    /* whether the account holds TRIGGER on the table: SHOW TRIGGERS and information_schema.TRIGGERS list only
     * those triggers (MariaDB); NULL = all */
    bool (*trigger_visible)(void *user, const char *db, const char *table);
    /* whether the account holds EVENT on the database: information_schema.EVENTS lists only those events
     * (MariaDB); NULL = all */
    bool (*event_visible)(void *user, const char *db);
    /* whether user@host is an account (a DEFINER naming none is MariaDB's note 1449); NULL = every one is */
    bool (*account_exists)(void *user, const char *name, const char *host);
    void *visible_user;
    /* information_schema tables whose rows the session knows (PROCESSLIST, ENGINES, CHARACTER_SETS, COLLATIONS):
     * calls row(arg, vals) once per row, vals[] the text of each column in exec_show.c's order (NULL = NULL).
     * NULL when the session has none (unit tests): the tables are then empty. */
    void (*session_table)(void *user, const char *table, void (*row)(void *arg, const char *const *vals), void *arg);
    /* TRUNCATE TABLE of a performance_schema table the session keeps (events_statements_summary_by_digest):
     * empties it.  NULL when the session has none. */
    void (*session_table_truncate)(void *user, const char *table);
    res_sink_t *sink;
    bool more;                 /* another result follows (multi-statement) */
    sql_plan_t *plan;          /* executing a prepared statement: its plan cache (NULL: bind every time) */
    /* memory budgets (0: the defaults below): a sort keeps sort_buffer_size bytes of rows in memory, GROUP BY
     * and DISTINCT keep tmp_table_size (the session's min(tmp_table_size, max_heap_table_size)); beyond that
     * they spill to unlinked files in tmpdir (extsort.h) */
    uint64_t sort_buffer_size;
    uint64_t tmp_table_size;
    /* joins (exec/loop.c): an inner table read by a full scan is read once into a hash table on its join
     * columns, of at most max(join_buffer_size, tmp_table_size) bytes at a time (0: the defaults);
     * join_cache_off: join_cache_level = 0 (every outer row scans it again); hash_join_off: optimizer_switch
     * join_cache_hashed=off (read once, but every row of it is tried against each outer row) */
    uint64_t join_buffer_size;
    bool join_cache_off;
    bool hash_join_off;
    const char *tmpdir;
    const char *sql_mode_text;     /* @@sql_mode as its names (stored routines keep it) */
    const char *time_zone;         /* @@time_zone ("SYSTEM", "+hh:mm"): events keep it (NULL: SYSTEM) */
    uint32_t server_id;            /* @@server_id: a new event's ORIGINATOR */
    bool events_off;               /* event_scheduler is not ON: CREATE / ALTER EVENT warn (1105), as MariaDB */
    bool replicated;               /* a replica applying its source's statement: new events are SLAVESIDE_DISABLED */
    /* outputs */
    bool events_changed;       /* an event was created, changed or dropped: the scheduler looks again */
    bool last_insert_id_set;   /* the statement generated an AUTO_INCREMENT value */
    uint64_t last_insert_id;   /* the first one it generated */
    uint64_t found_rows;       /* SELECT: rows before LIMIT (SQL_CALC_FOUND_ROWS) or sent */
    int64_t row_count;         /* ROW_COUNT(): affected rows, -1 for a SELECT */
    bool db_dropped;           /* DROP DATABASE of the current database: the session clears its db */
    const char *ddl_done_text; /* a DDL that failed after changing something (DROP TABLE of several tables): the
                                  statement to log for what it did, as MariaDB logs it */
    sql_exec_stats_t stats;    /* added to the session's status counters after the statement */
    /* private to the executor */
    bool exec_pend_ok;              /* an OK to send once the statement's transaction is settled */
    uint64_t pend_affected;
    uint64_t pend_insert_id;   /* the OK's insert id when no value was generated (INSERT: explicit id) */
    const char *pend_info;
    struct returning *returning; /* INSERT / REPLACE / DELETE ... RETURNING: the result set sent instead of the
                                    OK once the statement's transaction is settled (exec/returning.c) */
    void *subq_cache;          /* uncorrelated subquery results of this statement */
    const void *outer_q;       /* while a subquery runs: the query it is nested in, and that query's row */
    const value_t *outer_row;
    bool saw_outer_ref;        /* set when binding met a reference to outer_q (a correlated subquery) */
    bool insert_select;        /* while INSERT ... SELECT reads its rows (locking reads at REPEATABLE READ) */
    uint64_t insert_rowno_base; /* LOAD DATA: rows of the file before the batch INSERT runs (warnings' row numbers) */
    bool no_trx;               /* DDL (it commits what is open) or a PREPARE's describe: tables it opens register
                                  no transaction (exec_table_used) */
} sql_exec_ctx_t;

enum { SQL_COLPRIV_SELECT = 1, SQL_COLPRIV_INSERT = 2, SQL_COLPRIV_UPDATE = 4, SQL_COLPRIV_REFERENCES = 8 };

/* ALTER TABLE / CREATE INDEX / DROP INDEX: are the ALGORITHM= and LOCK= clauses ones strata can honour for
 * the change?  0, or 1846 pushed. */
int sql_exec_alter_clauses(sql_exec_ctx_t *x, const sql_stmt_t *st);
/* Does this statement go to the executor (needs tables)?  SELECT with FROM, DML, DDL, table SHOWs. */
bool sql_exec_handles(const sql_stmt_t *st);
/* The same for a SELECT: one with FROM, a UNION, or subqueries. */
bool sql_exec_select_handles(const sql_select_t *sel);
/* Runs one statement.  0: answered through the sink; < 0: error in ctx->diag, not answered. */
int sql_exec_stmt(sql_exec_ctx_t *x, const sql_stmt_t *st);
/* Does the expression hold a subquery (scalar, EXISTS, IN / ANY / ALL)? */
bool sql_expr_has_subquery(const sql_expr_t *e);
/* Evaluates one expression of statement st that holds subqueries (SET @x = (SELECT ...)), with the
 * transaction, metadata locks and read view a SELECT of it would have; nothing is sent to the sink.  The value
 * is in x->arena.  1242 when a scalar subquery gives more than one row, as in a SELECT. */
int sql_exec_eval(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *e, value_t *out);
/* COM_FIELD_LIST: the column definitions of table (in the current database) whose names match the LIKE
 * pattern wild (NULL or "": all), with each column's default as mysql_list_fields() shows it (SHOW COLUMNS'
 * text, the type's zero for a NOT NULL column without one, NULL for a nullable one), in x->arena.  0, or an error pushed (1046, 1146, 1205). */
int sql_exec_field_list(sql_exec_ctx_t *x, const char *table, const char *wild, res_col_t **cols,
                        res_cell_t **defaults, int *n);
/* Result columns a statement will produce (COM_STMT_PREPARE); *ncols 0 when none. */
int sql_exec_describe(sql_exec_ctx_t *x, const sql_stmt_t *st, res_col_t **cols, int *ncols);

/* Transaction control from the session's BEGIN / COMMIT / ROLLBACK (and SET autocommit=1, which commits). */
int sql_exec_begin(sql_exec_ctx_t *x, bool read_only);
/* START TRANSACTION WITH CONSISTENT SNAPSHOT: BEGIN, then the read view now, and the binlog position it matches
 * (sql_commit_snapshot; file "" without a binlog). */
int sql_exec_begin_snapshot(sql_exec_ctx_t *x, bool read_only, char *file, size_t cap, uint64_t *pos);
int sql_exec_commit(sql_exec_ctx_t *x);
int sql_exec_rollback(sql_exec_ctx_t *x);
/* SAVEPOINT s / ROLLBACK TO [SAVEPOINT] s / RELEASE SAVEPOINT s (1305 for an unknown name). */
int sql_exec_savepoint(sql_exec_ctx_t *x, const char *name);
int sql_exec_rollback_to(sql_exec_ctx_t *x, const char *name);
int sql_exec_release_savepoint(sql_exec_ctx_t *x, const char *name);
/* Is a transaction open across statements (SERVER_STATUS_IN_TRANS, @@in_transaction)? */
bool sql_exec_in_trans(const sql_exec_session_t *ss);
/* A statement begins: what the previous one did (db_dropped, no_index_used) is forgotten. */
void sql_exec_stmt_begin(sql_exec_session_t *ss);
/* Is the open transaction READ ONLY (SERVER_STATUS_IN_TRANS_READONLY)? */
bool sql_exec_in_trans_read_only(const sql_exec_session_t *ss);
/* What the session saw a statement do, recorded in the open transaction for the tracker's state. */
typedef enum sql_exec_note {
    SQLX_NOTE_RESULT_SET, /* a result set went to the client ('S') */
    SQLX_NOTE_UNSAFE,     /* it read a system variable the binary log does not carry ('s') */
} sql_exec_note_t;
void sql_exec_note(sql_exec_session_t *ss, sql_exec_note_t what);
/* The session tracker's transaction state (MariaDB's session_track_transaction_info): 8 characters and a NUL,
 * "T" explicit / "I" implicit / "_", then "_R" (reads), "_W" (writes), "s" (unsafe), "S" (result sets) and "_" (the
 * eighth, 'L' for LOCK TABLES, is the session's to set). */
void sql_exec_trx_state_string(const sql_exec_session_t *ss, char out[9]);

#endif
