/*
 * binlog: strata's binary log.  The one public header of src/binlog (see README.md there and docs/binlog.md).
 *
 * The commit path builds a binlog_trx_t in memory (row images, DDL text), then binlog_commit() appends it under
 * group commit: one write and one fsync per group, GTIDs assigned in commit order, followers woken by position.
 * Files are standard MariaDB 10.11 v4 binlogs (CRC32 on every event) that `mariadb-binlog` decodes.  An index
 * (<basename>.index for tools, <basename>.state for strata) answers rotation, purge, SHOW BINARY LOGS and GTID
 * lookups without opening old files.  Closed files may be compressed into a seekable zstd layout in the
 * background; the reader API serves both kinds.
 */
#ifndef STRATA_BINLOG_H
#define STRATA_BINLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* ---- event types (events.def) ------------------------------------------------------------------------ */
enum binlog_event_type {
#define EVT(sym, code, name) sym = code,
#include "binlog/events.def"
#undef EVT
};
const char *binlog_event_type_name(int type); /* "Query", ...; "Unknown" */

enum {
    BINLOG_HEADER_LEN = 19,    /* v4 common header */
    BINLOG_CRC_LEN = 4,        /* CRC32 trailer of every event */
    BINLOG_MAGIC_LEN = 4,      /* 0xfe 'b' 'i' 'n' */
    BINLOG_MAX_EVENT = 1 << 30 /* larger than any event we write or accept (max_allowed_packet ceiling) */
};

/* A position in the binlog: file sequence number (the 000123 of the name) and byte offset in that file. */
typedef struct binlog_pos {
    uint32_t file;
    uint64_t offset;
} binlog_pos_t;
int binlog_pos_cmp(binlog_pos_t a, binlog_pos_t b);

/* A MariaDB GTID: domain-server-sequence. */
typedef struct binlog_gtid {
    uint32_t domain;
    uint32_t server;
    uint64_t seq;
} binlog_gtid_t;

/* A GTID state (gtid_binlog_state / GTID_LIST): the last GTID per (domain, server). */
typedef struct binlog_gtid_set {
    binlog_gtid_t *v;
    uint32_t n, cap;
} binlog_gtid_set_t;
void binlog_gtid_set_free(binlog_gtid_set_t *s);
void binlog_gtid_set_copy(binlog_gtid_set_t *dst, const binlog_gtid_set_t *src);
void binlog_gtid_set_update(binlog_gtid_set_t *s, binlog_gtid_t g); /* record g as the last for its (domain,server) */
/* The highest seq seen in domain d (0 if none). */
uint64_t binlog_gtid_set_domain_seq(const binlog_gtid_set_t *s, uint32_t domain);
/* Does s hold a GTID of (domain, server)?  Its seq in *seq. */
bool binlog_gtid_set_find(const binlog_gtid_set_t *s, uint32_t domain, uint32_t server, uint64_t *seq);
/* Does s name domain d at all? */
bool binlog_gtid_set_has_domain(const binlog_gtid_set_t *s, uint32_t domain);
/* "0-1-5,1-1-3" (domain order), the text of gtid_binlog_state; gtid_binlog_pos keeps one per domain (last). */
void binlog_gtid_set_format(const binlog_gtid_set_t *s, bool one_per_domain, buf_t *out);
int binlog_gtid_parse(const char *s, binlog_gtid_t *g); /* "d-s-n" */

/* ---- column types and row images (rows.c) ---------------------------------------------------------------- */
/* MYSQL_TYPE_* codes as they appear in a TABLE_MAP event. */
enum binlog_mysql_type {
    BINLOG_T_DECIMAL = 0, BINLOG_T_TINY = 1, BINLOG_T_SHORT = 2, BINLOG_T_LONG = 3, BINLOG_T_FLOAT = 4,
    BINLOG_T_DOUBLE = 5, BINLOG_T_NULL = 6, BINLOG_T_TIMESTAMP = 7, BINLOG_T_LONGLONG = 8, BINLOG_T_INT24 = 9,
    BINLOG_T_DATE = 10, BINLOG_T_TIME = 11, BINLOG_T_DATETIME = 12, BINLOG_T_YEAR = 13, BINLOG_T_NEWDATE = 14,
    BINLOG_T_VARCHAR = 15, BINLOG_T_BIT = 16, BINLOG_T_TIMESTAMP2 = 17, BINLOG_T_DATETIME2 = 18,
    BINLOG_T_TIME2 = 19, BINLOG_T_NEWDECIMAL = 246, BINLOG_T_ENUM = 247, BINLOG_T_SET = 248,
    BINLOG_T_TINY_BLOB = 249, BINLOG_T_MEDIUM_BLOB = 250, BINLOG_T_LONG_BLOB = 251, BINLOG_T_BLOB = 252,
    BINLOG_T_VAR_STRING = 253, BINLOG_T_STRING = 254, BINLOG_T_GEOMETRY = 255
};

/*
 * One column as the binlog sees it.  `type` is the SQL type (ENUM, SET and CHAR keep their own code here; the
 * encoder writes them as MYSQL_TYPE_STRING with the real type in the metadata, as MariaDB does).
 *   length:  VARCHAR/CHAR: max bytes (chars * mbmaxlen); BLOB: length-prefix bytes 1..4; ENUM/SET: storage bytes
 *            (1/2 for ENUM, 1..8 for SET); BIT: number of bits (1..64); DECIMAL: precision
 *   scale:   DECIMAL scale; DATETIME2/TIMESTAMP2/TIME2: fractional digits 0..6
 * Build them with binlog_col() below.
 */
typedef struct binlog_col {
    uint8_t type;
    bool nullable;
    bool is_unsigned; /* only for display; the row bytes are the same */
    uint16_t length;
    uint8_t scale;
} binlog_col_t;
binlog_col_t binlog_col(enum binlog_mysql_type type, uint16_t length, uint8_t scale, bool nullable);

typedef struct binlog_table {
    uint64_t id; /* table id (48 bits), stable while the table definition is */
    const char *db;
    const char *name;
    uint32_t ncols;
    const binlog_col_t *cols;
} binlog_table_t;

typedef struct binlog_tm {
    int year, month, day, hour, minute, second, usec;
    bool neg; /* TIME2 only */
} binlog_tm_t;

/* A typed value for the row encoder.  Which member is read depends on the column type:
 *   TINY..LONGLONG, INT24, YEAR(year number), ENUM (1-based index), SET (bit mask), BIT: i (or u)
 *   FLOAT, DOUBLE: d
 *   VARCHAR, CHAR, BLOB family, DECIMAL (decimal text such as "-123.45"): s, len
 *   DATE, DATETIME2, TIMESTAMP2 (epoch seconds in `i`, micro-seconds in tm.usec), TIME2: tm */
typedef struct binlog_value {
    bool is_null;
    union {
        int64_t i;
        uint64_t u;
        double d;
    };
    const char *s;
    size_t len;
    binlog_tm_t tm;
} binlog_value_t;

/* Appends the row-format bytes of one value of column c (no null handling); 0 or STRATA_EPROTO. */
int binlog_value_encode(buf_t *out, const binlog_col_t *c, const binlog_value_t *v);
/* Appends a full row image (null bitmap + values of every column); 0 or STRATA_EPROTO. */
int binlog_row_encode(buf_t *out, const binlog_table_t *t, const binlog_value_t *vals);
/* Table-map type byte and metadata bytes of a column (as written in TABLE_MAP); returns metadata length. */
int binlog_col_map(const binlog_col_t *c, uint8_t *type, uint8_t meta[2]);

/* ---- transactions being built (trx.c) --------------------------------------------------------------------- */
typedef enum binlog_trx_kind { BINLOG_TRX_ROWS = 0, BINLOG_TRX_DDL = 1 } binlog_trx_kind_t;

/* The session context a QUERY event carries so a replica parses the statement as the master did (MariaDB's
 * status variables).  binlog_trx_init() sets MariaDB 10.11's defaults. */
typedef struct binlog_query_ctx {
    uint32_t flags2;               /* OPTION_* bits: 0x01000000 explicit_defaults_for_timestamp, 0x4000000
                                      NO_FOREIGN_KEY_CHECKS, 0x8000000 RELAXED_UNIQUE_CHECKS, 0x80000 NOT_AUTOCOMMIT */
    uint64_t sql_mode;             /* MariaDB sql_mode bits (default 0x54200000) */
    uint16_t charset_client;       /* collation ids: 45 utf8mb4_general_ci */
    uint16_t collation_connection;
    uint16_t collation_server;
} binlog_query_ctx_t;

typedef struct binlog_trx {
    binlog_trx_kind_t kind;
    binlog_query_ctx_t qctx; /* session context for QUERY events (kept by binlog_trx_reset) */
    uint64_t xid;           /* engine transaction id written in XID_EVENT (rows transactions) */
    uint32_t domain;        /* gtid_domain_id of the session (when domain_set; else the binlog's) */
    bool domain_set;        /* domain is the one to log under, 0 included */
    uint32_t server_id;     /* server id to write (0: the binlog's) */
    uint64_t gtid_seq;      /* gtid_seq_no to use if higher than the domain's next (a replica applying a
                               master's GTID); 0: next in the domain */
    uint32_t thread_id;     /* pseudo_thread_id in QUERY events */
    uint32_t when;          /* event timestamp (0: now at commit) */
    buf_t ev;               /* events after the GTID event, each with header and a CRC slot, positions unset;
                               past binlog_cache_size the settled front of them is in spill_fd */
    int spill_fd;           /* the temporary file holding the first `spilled` bytes of the events, or -1 */
    uint64_t spilled;       /* bytes in spill_fd: ev.data[0] is the event byte at this offset */
    bool maps_spilled;      /* the open statement's TABLE_MAPs went to the file with rows after them */
    bool used_file;         /* a file was made for this transaction (Binlog_cache_disk_use) */
    int spill_errno;        /* the errno of the last failed write of the file */
    /* current statement */
    uint64_t *mapped;       /* table ids mapped in the current statement */
    uint32_t nmapped, capmapped;
    size_t rows_at;         /* offset in ev of the open rows event, or SIZE_MAX */
    size_t last_rows_at;    /* offset of the last closed rows event of the statement, or SIZE_MAX */
    size_t maps_at;         /* offset where the statement's next TABLE_MAP goes (after its maps), or SIZE_MAX */
    int rows_type;
    uint64_t rows_table;
    uint16_t rows_flags;    /* flags the statement's rows events carry: BINLOG_ROWS_NO_FK_CHECKS */
    uint32_t nevents;
} binlog_trx_t;
/* Rows event flag: the rows were written with foreign_key_checks=0 (a replica applies them without checks). */
#define BINLOG_ROWS_NO_FK_CHECKS 0x0002

void binlog_trx_init(binlog_trx_t *t, binlog_trx_kind_t kind);
void binlog_trx_free(binlog_trx_t *t);
/* Empties the events and per-transaction fields (xid, gtid_seq, when); domain, server_id and thread_id are the
 * session's and stay. */
void binlog_trx_reset(binlog_trx_t *t, binlog_trx_kind_t kind);
/* DDL: the statement as a QUERY event (db may be NULL or ""). A DDL trx holds exactly one query. */
void binlog_trx_query(binlog_trx_t *t, const char *db, const char *query, size_t len);
/* Row statements: optional ANNOTATE_ROWS with the statement text, then rows; stmt_end closes the statement
 * (sets STMT_END_F on its last rows event).  Every TABLE_MAP of a statement comes before its first rows event
 * (a MariaDB replica refuses a TABLE_MAP after a rows event without STMT_END_F): a table first touched after
 * rows of another (a multi-table UPDATE or DELETE) has its map moved in front of them. */
void binlog_trx_stmt_begin(binlog_trx_t *t, const char *query, size_t len);
int binlog_trx_write_row(binlog_trx_t *t, const binlog_table_t *tb, const binlog_value_t *after);
int binlog_trx_update_row(binlog_trx_t *t, const binlog_table_t *tb, const binlog_value_t *before,
                          const binlog_value_t *after);
int binlog_trx_delete_row(binlog_trx_t *t, const binlog_table_t *tb, const binlog_value_t *before);
/* Pre-encoded images (binlog_row_encode format); type is BINLOG_EV_{WRITE,UPDATE,DELETE}_ROWS_V1; an update
 * passes before and after concatenated. */
int binlog_trx_add_row_raw(binlog_trx_t *t, const binlog_table_t *tb, int type, const void *img, size_t len);
/* A whole event as read from another server's binlog (a replica's log_slave_updates): header, body, CRC slot. */
int binlog_trx_add_event(binlog_trx_t *t, const void *ev, size_t len);
void binlog_trx_stmt_end(binlog_trx_t *t);
bool binlog_trx_empty(const binlog_trx_t *t);
/* Statement savepoints: binlog_trx_mark() closes the open statement and returns where the next one starts;
 * binlog_trx_rollback_to() drops every event after it (a statement that failed inside a transaction). */
typedef struct binlog_trx_mark {
    size_t len;
    uint32_t nevents;
} binlog_trx_mark_t;
binlog_trx_mark_t binlog_trx_mark(binlog_trx_t *t);
void binlog_trx_rollback_to(binlog_trx_t *t, binlog_trx_mark_t m);
/* Bytes of events the transaction holds (memory and file). */
uint64_t binlog_trx_size(const binlog_trx_t *t);

/* The binlog cache, as MariaDB's: a transaction keeps up to binlog_cache_size bytes of its events in memory; past
 * that, the front of them (every event no later change can move) goes to a temporary file in tmpdir, unlinked at
 * once, which binlog_commit() streams into the binlog.  A transaction may not hold more than
 * max_binlog_cache_size bytes: the row that would pass it is refused with BINLOG_ECACHEFULL (ER_TRANS_CACHE_FULL,
 * the statement fails, the transaction goes on).  A failed write of the file is BINLOG_ECACHEWRITE (errno in
 * binlog_trx_cache_errno()).  Binlog_cache_use counts the rows transactions ended (committed or rolled back) with
 * events, Binlog_cache_disk_use those of them that used a file. */
enum { BINLOG_ECACHEFULL = -10210, BINLOG_ECACHEWRITE = -10211 };
void binlog_trx_set_cache(uint64_t cache_size, uint64_t max_cache_size);
void binlog_trx_set_tmpdir(const char *dir); /* at start-up, before any transaction */
void binlog_trx_cache_stats(uint64_t *use, uint64_t *disk_use);
int binlog_trx_cache_errno(const binlog_trx_t *t);
const char *binlog_trx_tmpdir(void);

/* ---- the binlog (binlog.c) ---------------------------------------------------------------------------------- */
typedef struct binlog_options {
    const char *dir;               /* directory of the files (log_bin_basename's directory) */
    const char *basename;          /* "strata-bin": files <basename>.000001, <basename>.index */
    const char *index_file;        /* log_bin_index: path of the text index (NULL: <dir>/<basename>.index) */
    uint32_t server_id;
    uint32_t domain_id;            /* gtid_domain_id default */
    uint64_t max_size;             /* max_binlog_size (default 1 GiB) */
    int sync;                      /* sync_binlog: 1 = fsync every group; N = every N-th group; 0 = never.
                                      With N != 1 "durable" means written, not synced. */
    uint64_t expire_seconds;       /* binlog_expire_logs_seconds (0 = never) */
    uint32_t compress_after_files; /* strata_binlog_compress_after_files: compress files with >= N newer (0 off) */
    uint64_t compress_after_seconds; /* strata_binlog_compress_after_seconds: ... or closed longer ago (0 off) */
    bool compress_in_background;   /* a thread does it (else binlog_compress_run() by the caller) */
    const char *server_version;    /* written in FORMAT_DESCRIPTION ("10.11.6-MariaDB-strata") */
    uint32_t commit_wait_usec;     /* leader waits this long for more committers before writing (default 0) */
} binlog_options_t;
void binlog_options_default(binlog_options_t *o);

typedef struct binlog binlog_t;

/* Counters a server can expose as status variables. */
typedef struct binlog_stats {
    uint64_t files_opened;   /* Binlog_files_opened: every open() of a binlog file (write, read, compress) */
    uint64_t commits;        /* Binlog_commits */
    uint64_t group_commits;  /* Binlog_group_commits: groups written */
    uint64_t fsyncs;         /* Binlog_fsyncs: fdatasync/fsync of binlog files */
    uint64_t bytes_written;  /* Binlog_bytes_written */
    uint64_t rotations;
    uint64_t purged_files;
    uint64_t compressed_files;
    uint64_t index_writes;   /* appends to the state log */
    uint64_t unreadable_reported; /* files reported as not readable binlogs (each once) */
} binlog_stats_t;

/* What the last file(s) hold since the engine's checkpoint: the engine commits its prepared transactions whose
 * XID is here and rolls back the others.  Transactions are listed in binlog order. */
typedef struct binlog_recovered_trx {
    uint64_t xid; /* 0 for DDL (standalone) */
    binlog_gtid_t gtid;
    binlog_pos_t start, end;
} binlog_recovered_trx_t;
typedef struct binlog_recovery {
    binlog_recovered_trx_t *trx;
    uint32_t n;
    bool crashed;             /* the last file was not closed cleanly */
    uint64_t truncated_bytes; /* incomplete tail removed */
} binlog_recovery_t;

/* Opens (creating the directory's index if there is none) and recovers: truncates an incomplete tail of the last
 * file (one log line), fills *rec (may be NULL) with the transactions since the engine checkpoint, applies expiry,
 * and starts a new file.  0 or negative error. */
int binlog_open(const binlog_options_t *opt, binlog_t **out, binlog_recovery_t *rec);
void binlog_recovery_free(binlog_recovery_t *rec);
/* Writes STOP, clears the in-use flag, closes.  Queued commits finish first. */
void binlog_close(binlog_t *bl);

typedef struct binlog_commit_result {
    binlog_gtid_t gtid;
    binlog_pos_t start, end; /* the transaction's events: [start, end) in file end.file */
    uint64_t order;          /* 1, 2, 3 ... in file order for every transaction written since binlog_open (0 when
                                nothing was written): the commit path commits the engine side in this order */
} binlog_commit_result_t;

/* Appends the transaction (GTID ... XID / GTID QUERY) under group commit and returns once it is durable (per
 * sync_binlog).  GTIDs are assigned here, in commit order.  0 or negative error (the trx is not in the binlog):
 * BINLOG_EDISKFULL when the disk is full (the binlog stays usable: later commits try again), STRATA_EIO when a
 * write or fsync failed otherwise (the binlog then refuses every commit until restart: after a failed fsync
 * nothing written can be trusted). */
enum { BINLOG_EDISKFULL = -10200 };
int binlog_commit(binlog_t *bl, binlog_trx_t *trx, binlog_commit_result_t *res);

/* The same for a session parked as state (DESIGN decision 1): returns at once; fn(arg, rc, res) is called exactly
 * once when the transaction is durable (or failed), by whichever thread writes its group (possibly this one,
 * before binlog_commit_async returns).  trx must stay untouched until then. */
typedef void (*binlog_commit_cb)(void *arg, int rc, const binlog_commit_result_t *res);
void binlog_commit_async(binlog_t *bl, binlog_trx_t *trx, binlog_commit_cb fn, void *arg);

/* Group hooks: the leader calls before_sync(arg, first, last) after writing a group and before its fsync
 * (the engine can flush its own log for the same group), and after_sync(arg, end) after it. Either may be NULL. */
typedef void (*binlog_group_hook_fn)(void *arg, binlog_pos_t group_start, binlog_pos_t group_end);
void binlog_set_group_hooks(binlog_t *bl, binlog_group_hook_fn before_sync, binlog_group_hook_fn after_sync,
                            void *arg);

/* Durable position (everything before it survives a crash) and waiting for it. */
binlog_pos_t binlog_durable_pos(binlog_t *bl);
/* Blocks until durable >= p or timeout (ms, <0 forever); 0, or STRATA_EAGAIN on timeout. */
int binlog_wait_durable(binlog_t *bl, binlog_pos_t p, int timeout_ms);
/* Non-blocking variant for parked sessions: fn(arg) is called once (by the thread that makes p durable, or now
 * if it already is). */
void binlog_on_durable(binlog_t *bl, binlog_pos_t p, void (*fn)(void *arg), void *arg);

/* The engine reports that every transaction ending at or before p is durable in the engine; recovery starts
 * from the newest such report.  Cheap (one small record in the state log when the file changes). */
void binlog_engine_checkpoint(binlog_t *bl, binlog_pos_t p);

/* RESET MASTER calls fn(arg, order of the last transaction written) once the files are gone, still holding the
 * writer role (no commit is written meanwhile): positions start over, so whoever keeps positions adjusts. */
void binlog_set_reset_hook(binlog_t *bl, void (*fn)(void *arg, uint64_t last_order), void *arg);
/* PURGE BINARY LOGS calls fn(arg) first, holding no binlog lock: the engine then reports (binlog_engine_checkpoint)
 * how far it is durable now rather than at its last periodic report, so that purge may remove what it no longer
 * needs. */
void binlog_set_checkpoint_hook(binlog_t *bl, void (*fn)(void *arg), void *arg);
/* The current sync_binlog. */
int binlog_sync_setting(binlog_t *bl);

/* SET GLOBAL max_binlog_size / sync_binlog / binlog_expire_logs_seconds at run time (max_size 0 keeps it). */
void binlog_set_limits(binlog_t *bl, uint64_t max_size, int sync, uint64_t expire_seconds);

/* FLUSH BINARY LOGS. */
int binlog_rotate(binlog_t *bl);
/* PURGE BINARY LOGS TO 'name' (files before it) / BEFORE t (files whose last event is older than t, unix s).
 * The active file is never purged.  Returns number of files removed or negative error. */
int binlog_purge_to(binlog_t *bl, const char *name);
int binlog_purge_before(binlog_t *bl, uint64_t unix_seconds);
/* RESET MASTER [TO n]: removes every file, starts <basename>.<n or 1>, clears the GTID state. */
int binlog_reset(binlog_t *bl, uint32_t first_seq);
/* Compresses closed files that the policy selects (the background thread calls this); returns files done. */
int binlog_compress_run(binlog_t *bl);

void binlog_get_stats(binlog_t *bl, binlog_stats_t *st);

/* SHOW BINARY LOGS / SHOW MASTER STATUS from the index. */
typedef struct binlog_file_info {
    char name[128];
    uint32_t seq;
    uint64_t size;      /* plain (logical) size */
    uint64_t disk_size; /* bytes on disk (compressed size if compressed) */
    bool compressed, readable, active;
    uint64_t first_time, last_time; /* unix seconds of first/last event */
    binlog_gtid_t first_gtid, last_gtid; /* seq 0 if none */
} binlog_file_info_t;
/* Calls fn for each file in order; stops if fn returns non-zero. */
void binlog_list_files(binlog_t *bl, int (*fn)(void *arg, const binlog_file_info_t *f), void *arg);
uint32_t binlog_file_count(binlog_t *bl);
/* SHOW MASTER STATUS: active file name and position. */
void binlog_master_status(binlog_t *bl, char *name, size_t cap, uint64_t *pos);
void binlog_file_name(binlog_t *bl, uint32_t seq, char *name, size_t cap); /* "<basename>.000123" */
int binlog_file_seq(binlog_t *bl, const char *name, uint32_t *seq);

/* GTID state: gtid_binlog_state (all servers), gtid_binlog_pos (last per domain). */
void binlog_gtid_state(binlog_t *bl, binlog_gtid_set_t *out);
/* The server_id the binlog writes its own transactions under. */
uint32_t binlog_server_id(binlog_t *bl);
/* The file holding GTID g (O(log files), index only); STRATA_ENOTFOUND if purged or never written. */
int binlog_gtid_find_file(binlog_t *bl, binlog_gtid_t g, uint32_t *seq);
/* Where a replica connecting with GTID position `pos` (one GTID per domain, its gtid_slave_pos) must start
 * reading: the newest file whose start state pos has reached in every domain of that state; a domain pos does
 * not name counts as "needs all of it", so an empty pos starts at a file with an empty start state (binary
 * search on the index, no file opened).  The dump thread then skips that file's transactions the replica
 * already has.  STRATA_ENOTFOUND if the transactions the replica needs were purged. */
int binlog_gtid_start_file(binlog_t *bl, const binlog_gtid_set_t *pos, uint32_t *seq);
/* BINLOG_GTID_POS(file, pos): the GTID state at that position.  File boundaries come from the index; a position
 * inside a file reads that one file up to pos. */
int binlog_gtid_pos(binlog_t *bl, const char *name, uint64_t pos, binlog_gtid_set_t *out);

/* ---- reading (reader.c) ----------------------------------------------------------------------------------- */
typedef struct binlog_event {
    uint32_t when;
    uint8_t type;
    uint32_t server_id;
    uint32_t size;     /* whole event incl. header and CRC */
    uint32_t next_pos; /* end position as written */
    uint16_t flags;
    uint64_t pos;      /* where it starts */
    const uint8_t *data; /* the whole event (valid until the next call) */
} binlog_event_t;

typedef struct binlog_reader binlog_reader_t;
/* Opens file `name` (plain or compressed) positioned at pos (4 = first event).  Reading a file counts in
 * Binlog_files_opened.  A file that is not a readable binlog fails with STRATA_ECORRUPT, reported once. */
int binlog_reader_open(binlog_t *bl, const char *name, uint64_t pos, binlog_reader_t **out);
/* Stand-alone (tools): a path, no binlog_t. */
int binlog_reader_open_path(const char *path, uint64_t pos, binlog_reader_t **out);
/* Next event: 1 = event, 0 = end of file, negative = error (bad CRC, impossible length, I/O); the message
 * names file and position (binlog_reader_error). */
int binlog_reader_next(binlog_reader_t *r, binlog_event_t *ev);
const char *binlog_reader_error(binlog_reader_t *r);
void binlog_reader_close(binlog_reader_t *r);

/* SHOW BINLOG EVENTS [IN name] [FROM pos] [LIMIT skip, limit]: one row per event as MariaDB prints them
 * (Log_name, Pos, Event_type, Server_id, End_log_pos, Info).  name NULL = the first file.  limit < 0 = all.
 * Returns 0, or the reader's error (message in err, naming file and position). */
typedef struct binlog_show_row {
    const char *log_name;
    uint64_t pos;
    const char *event_type;
    uint32_t server_id;
    uint64_t end_log_pos;
    const char *info;
} binlog_show_row_t;
int binlog_show_events(binlog_t *bl, const char *name, uint64_t pos, int64_t skip, int64_t limit,
                       int (*fn)(void *arg, const binlog_show_row_t *row), void *arg, char *err, size_t errcap);

/* ---- decoding row events (rowdec.c): one transaction's TABLE_MAP + WRITE/UPDATE/DELETE_ROWS -> row changes --
 * Feed the events of a transaction in order (GTID first: it forgets the previous transaction's table maps).  For
 * each row of a rows event fn gets the table as its TABLE_MAP described it (id, db, name, column types; no
 * column names nor signedness: integers come sign-extended in v.i, the applier masks UNSIGNED ones) and the
 * images: INSERT after only, DELETE before only, UPDATE both.  Values as binlog_value_t (binlog_value_encode's
 * domain; DECIMAL as text), strings pointing into the event: valid during the call.  Every column must be in
 * both images (binlog_row_image=FULL). */
typedef enum binlog_row_op { BINLOG_ROW_INSERT = 1, BINLOG_ROW_UPDATE = 2, BINLOG_ROW_DELETE = 3 } binlog_row_op_t;
typedef int (*binlog_row_fn)(void *arg, const binlog_table_t *t, binlog_row_op_t op, const binlog_value_t *before,
                             const binlog_value_t *after);
typedef struct binlog_rowdec binlog_rowdec_t;
binlog_rowdec_t *binlog_rowdec_new(void);
void binlog_rowdec_free(binlog_rowdec_t *d);
void binlog_rowdec_reset(binlog_rowdec_t *d);
/* 0 (events other than TABLE_MAP and rows events are skipped), fn's non-zero result, STRATA_ECORRUPT (malformed)
 * or STRATA_EPROTO (a type or image the decoder does not take). */
int binlog_rowdec_event(binlog_rowdec_t *d, const binlog_event_t *ev, binlog_row_fn fn, void *arg);
/* A TABLE_MAP event into t (cols[maxcols], db[256], name[256] receive the contents). */
int binlog_table_map_decode(const binlog_event_t *ev, binlog_table_t *t, binlog_col_t *cols, uint32_t maxcols,
                            char *db, char *name);
/* One value of column c at p (inverse of binlog_value_encode); DECIMAL text goes to dec_text[96]. */
int binlog_value_decode(const uint8_t *p, size_t avail, const binlog_col_t *c, binlog_value_t *v, char *dec_text,
                        size_t *used);

/* ---- the replication sender (send.c): the event stream of COM_BINLOG_DUMP -------------------------------- */
typedef struct binlog_sender binlog_sender_t;
/* From file/pos (file NULL or "": the first file), or in GTID mode from the replica's position gtid_pos (one GTID
 * per domain; file and pos ignored).  0, or STRATA_ENOTFOUND with err set (MariaDB's texts for error 1236). */
int binlog_sender_open(binlog_t *bl, const char *file, uint64_t pos, const binlog_gtid_set_t *gtid_pos,
                       binlog_sender_t **out, char *err, size_t errcap);
/* The next event's bytes into out (reset first): 1 = an event to send, 0 = nothing new within wait_ms (0: do not
 * wait), negative = error (binlog_sender_error names file and position).  Only durable events are sent. */
int binlog_sender_next(binlog_sender_t *s, buf_t *out, int wait_ms);
/* A HEARTBEAT event for an idle stream. */
void binlog_sender_heartbeat(binlog_sender_t *s, buf_t *out);
const char *binlog_sender_error(binlog_sender_t *s);
void binlog_sender_position(binlog_sender_t *s, char *name, size_t cap, uint64_t *pos);
void binlog_sender_close(binlog_sender_t *s);

/* ---- events (event.c) ------------------------------------------------------------------------------------- */
/* Checks one event at the head of p[0..len): header, length bounds, CRC.  0 = ok and *ev filled (data = p),
 * STRATA_EAGAIN = need more bytes (ev->size set if the header was complete), STRATA_ECORRUPT with *why set. */
int binlog_event_parse(const uint8_t *p, size_t len, binlog_event_t *ev, const char **why);
/* SHOW BINLOG EVENTS "Info" column of a checked event; 0 or STRATA_ECORRUPT if the body is malformed. */
int binlog_event_info(const binlog_event_t *ev, buf_t *out);
/* Decoded GTID / XID / GTID_LIST bodies (0 or STRATA_ECORRUPT). */
int binlog_event_gtid(const binlog_event_t *ev, binlog_gtid_t *g, uint8_t *flags2, uint64_t *commit_id);
int binlog_event_xid(const binlog_event_t *ev, uint64_t *xid);
int binlog_event_gtid_list(const binlog_event_t *ev, binlog_gtid_set_t *out);
/* A QUERY event's body: the database, the statement and the session context it was logged under (status
 * variables MariaDB 10.11 and strata write; decoding stops at the first code it does not know, keeping what it
 * read).  Pointers into the event. */
typedef struct binlog_query {
    uint32_t thread_id;
    uint16_t error_code;
    const char *db;
    size_t db_len;
    const char *text;
    size_t len;
    bool has_flags2, has_sql_mode, has_charset;
    uint32_t flags2;
    uint64_t sql_mode;
    uint16_t charset_client, collation_connection, collation_server;
} binlog_query_t;
int binlog_event_query(const binlog_event_t *ev, binlog_query_t *q);

/* GTID_EVENT flags2 (MariaDB). */
enum {
    BINLOG_GTID_FL_STANDALONE = 1,
    BINLOG_GTID_FL_GROUP_COMMIT_ID = 2,
    BINLOG_GTID_FL_TRANSACTIONAL = 4,
    BINLOG_GTID_FL_ALLOW_PARALLEL = 8,
    BINLOG_GTID_FL_WAITED = 16,
    BINLOG_GTID_FL_DDL = 32
};

#endif
