/*
 * engine: strata's storage engine, the one header the SQL layer includes.
 *
 * The engine stores ordered maps of (key bytes -> value bytes), one B+tree per table or index, in tablespaces
 * made of data files cut into extents.  Keys compare with memcmp (shorter key first on a common prefix), so the
 * SQL layer encodes rows as memcomparable keys: a table is keyed by its primary key (or a hidden 8-byte row id)
 * with the row as value; a secondary index is keyed by (index columns, primary key) with an empty or small value.
 *
 * Durability: every change is redo-logged; engine_trx_commit() returns once the commit is durable (flush mode
 * ENGINE_FLUSH_SYNC, like innodb_flush_log_at_trx_commit=1), with group commit batching concurrent commits into
 * one fsync.  After a crash engine_open() replays the log.
 *
 * Status convention (util.h): 0 success, negative error.  Engine-specific codes below; the SQL layer maps them:
 *   ENGINE_EDUPKEY  -> ER_DUP_ENTRY (1062)        ENGINE_EFULL   -> ER_RECORD_FILE_FULL (1114)
 *   ENGINE_ENOSPC   -> ER_RECORD_FILE_FULL (1114) STRATA_ENOTFOUND: no such key / cursor ran off the end
 *   ENGINE_ELOCKWAIT-> ER_LOCK_WAIT_TIMEOUT 1205  ENGINE_EDEADLOCK -> ER_LOCK_DEADLOCK 1213
 *   ENGINE_EINTR    -> ER_QUERY_INTERRUPTED 1317
 *   (after ELOCKWAIT or EINTR the statement failed, after EDEADLOCK the caller must roll the whole trx back, as MySQL does)
 *
 * STRATA_ENOTFOUND / STRATA_EEXIST are in util/util.h; a negative errno may also come back from file operations.
 *
 * Unique secondary indexes: the index tree is keyed by (index columns, primary key), so uniqueness is the SQL
 * layer's check: take engine_lock_row(trx, index tree, <index columns prefix>) (a lock on the prefix key, which
 * need not exist as a row), then look with a cursor seek GE on the prefix for an entry with that prefix, then
 * insert.  The prefix lock serialises concurrent inserters of the same value.
 *
 * Threads: an engine_t is shared by all threads.  A trx and its cursors belong to one thread at a time.  Do not
 * drop a tree while another thread uses it (metadata locking is the SQL layer's job).
 */
#ifndef STRATA_ENGINE_H
#define STRATA_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum {
    ENGINE_EDUPKEY = -10101,    /* insert of a key that exists */
    ENGINE_EFULL = -10102,      /* tablespace has no free extent and the tree no free page: ER_RECORD_FILE_FULL */
    ENGINE_ENOSPC = -10103,     /* the file system is full */
    ENGINE_EINVAL = -10104,     /* bad argument (key too long, bad extent size, ...) */
    ENGINE_ENOTEMPTY = -10105,  /* dropping a tablespace that still holds trees */
    ENGINE_ELOCKWAIT = -10106,  /* row lock wait timeout */
    ENGINE_EDEADLOCK = -10107,  /* this trx would close a cycle of lock waits: it is the victim */
    ENGINE_EREADONLY = -10108,  /* a change asked of an engine opened read-only (engine_opts_t.read_only) */
    ENGINE_ELOGFULL = -10109,   /* the redo log cannot hold more: a transaction is too large or open too long */
    ENGINE_EBUSY = -10110,      /* internal: not now (an extent the rebalance cannot move yet) */
    ENGINE_EINTR = -10111,      /* a row-lock wait ended by its kill flag (KILL QUERY, KILL, shutdown) */
};

#define ENGINE_MAX_KEY 3072                 /* bytes, like InnoDB's index key prefix limit (less for 4/8 KiB pages) */
#define ENGINE_MAX_VALUE (1024u << 20)      /* 1 GiB, max_allowed_packet's ceiling */

typedef enum {
    ENGINE_FLUSH_LAZY = 0,  /* commit writes nothing; a background thread writes and syncs every second */
    ENGINE_FLUSH_SYNC = 1,  /* commit returns after the redo is durable (default) */
    ENGINE_FLUSH_WRITE = 2, /* commit writes the redo to the OS; synced every second */
} engine_flush_mode_t;

typedef struct {
    const char *datadir;           /* created if it holds no control file */
    uint64_t pool_bytes;           /* buffer pool size (default 128 MiB) */
    uint32_t page_size;            /* only when creating (default 16384; 4096..32768, power of two) */
    engine_flush_mode_t flush_mode;
    uint64_t log_bytes;            /* redo capacity, only when creating (default 64 MiB) */
    bool log_sparse;               /* create the redo file sparse instead of writing it out */
    bool data_direct;              /* data files opened with O_DIRECT (innodb_flush_method=O_DIRECT) */
    bool log_dsync;                /* the redo file opened with O_DSYNC (innodb_flush_method=O_DSYNC) */
    uint64_t sys_initial_bytes;    /* system tablespace initial size when creating (default 12 MiB, autoextend) */
    uint32_t sys_extent_bytes;     /* system tablespace extent size (default 1 MiB) */
    uint32_t checkpoint_ms;        /* background checkpoint check interval (default 1000) */
    bool rebalance_off;            /* start with the online rebalance disabled (engine_rebalance_enable) */
    uint64_t undo_max_bytes;       /* the most undo one transaction may hold when no CREATE LOGFILE GROUP set a
                                      fixed undo file (default 1 GiB; ENGINE_ELOGFULL beyond) */
    /* Read-only open (innodb_force_recovery >= 1, innodb_read_only): nothing is written to any file.  The redo
     * past the checkpoint is applied to pages in the buffer pool only (they must fit; STRATA_ENOMEM otherwise),
     * the transactions the crash interrupted stay active in memory (their changes invisible, as rolled back,
     * their undo not applied), no checkpoint, purge or rebalance runs, and every change, tree creation or drop
     * fails with ENGINE_EREADONLY.  An existing data directory is needed (STRATA_ENOTFOUND otherwise). */
    bool read_only;
    bool no_undo;                  /* read_only only: interrupted transactions count as committed (level 5) */
    bool no_redo;                  /* read_only only: the redo past the checkpoint is not applied (level 6) */
} engine_opts_t;

typedef struct engine engine_t;
typedef struct engine_trx engine_trx_t;
typedef struct engine_cursor engine_cursor_t;
typedef uint64_t engine_tree_id_t;

void engine_opts_default(engine_opts_t *o);
int engine_open(const engine_opts_t *o, engine_t **out);
/* Checkpoints and closes.  Every trx must be finished and every cursor closed. */
void engine_close(engine_t *e);
/* Writes every dirty page and a checkpoint (recovery then starts from here).  0 and nothing done when read-only. */
int engine_checkpoint(engine_t *e);
bool engine_read_only(const engine_t *e);

/* ---- tablespaces (MySQL Cluster's CREATE TABLESPACE ... ADD DATAFILE ... INITIAL_SIZE ... EXTENT_SIZE) ---- */
#define ENGINE_DEFAULT_TABLESPACE 0u
/* The data file (path relative to the datadir unless absolute) is created at its full size (fallocate) and never
 * grows, as in MySQL Cluster; initial_bytes is rounded down to whole extents (at least 2, one holding metadata).
 * extent_bytes: 0 = 1 MiB; must be 4..256 pages.  STRATA_EEXIST when the name is taken; -EEXIST when the file
 * exists.  The default tablespace (id 0, "strata_system") autoextends. */
int engine_tablespace_create(engine_t *e, const char *name, const char *path, uint64_t initial_bytes,
                             uint64_t extent_bytes, uint32_t *space_id);
int engine_tablespace_add_datafile(engine_t *e, const char *name, const char *path, uint64_t initial_bytes);
/* Fails with ENGINE_ENOTEMPTY while a tree lives in it. */
int engine_tablespace_drop(engine_t *e, const char *name);
int engine_tablespace_lookup(engine_t *e, const char *name, uint32_t *space_id);

/* Online rebalance (DESIGN.md decision 6): after a data file is added, a background thread moves used extents
 * from the fuller data files of the space onto the emptier ones until each holds its fair share (by usable
 * size), while reads and writes go on; each page moves in its own redo-logged mini-transaction.  An extent that
 * holds a tree's root page never moves (the root page id is fixed).  Enabled by default. */
typedef struct {
    bool enabled;
    uint64_t extents_moved, pages_moved;
    uint64_t extents_pending;          /* extents above their files' fair share now */
    uint64_t extents_refused;          /* picked but not movable (root extent, change in flight, no room) */
} engine_rebalance_t;
void engine_rebalance_enable(engine_t *e, bool on);
void engine_rebalance_status(engine_t *e, engine_rebalance_t *st);

/* Logfile groups (CREATE LOGFILE GROUP lg ADD UNDOFILE 'u.log' INITIAL_SIZE n UNDO_BUFFER_SIZE n): one group,
 * one undo file, created at its full size (fallocate).  Large transactions' undo is spilled there by checkpoints
 * (engine/undo.h), which bounds a transaction's undo by the file instead of by the redo log.  Without one, the
 * engine makes DEFAULT_LG with undo_default.log (autoextend up to undo_max_bytes) the first time it spills.
 * create: STRATA_EEXIST when a group exists; drop: ENGINE_ENOTEMPTY while open transactions' undo is in it. */
int engine_logfile_group_create(engine_t *e, const char *name, const char *undo_path, uint64_t initial_bytes,
                                uint64_t undo_buffer_bytes);
int engine_logfile_group_drop(engine_t *e, const char *name);

/* One row per file, for information_schema.FILES: data files (FILE_TYPE 'DATAFILE') and undo files ('UNDO LOG',
 * counted as MySQL Cluster does: EXTENT_SIZE 4, TOTAL_EXTENTS = bytes / 4, FREE_EXTENTS = unused bytes / 4). */
typedef struct {
    const char *file_type;             /* "DATAFILE", "UNDO LOG", or "TABLESPACE" (the system tablespace's files) */
    char tablespace_name[64];          /* data files */
    char logfile_group_name[64];       /* undo files; data files: the group their undo goes to ("" for system) */
    uint32_t logfile_group_number;     /* 0: none (a data file's group not made yet) */
    uint64_t undo_buffer_size;
    char file_name[512];
    uint32_t space_id, file_no;
    uint64_t extent_size;              /* bytes */
    uint64_t total_extents, free_extents;
    uint64_t initial_size, maximum_size, size; /* bytes; maximum 0 = unlimited */
    bool autoextend;
    const char *status;                /* "NORMAL" */
} engine_file_info_t;
/* *out is an array of *n rows; free it with engine_files_free. */
int engine_files(engine_t *e, engine_file_info_t **out, size_t *n);
void engine_files_free(engine_file_info_t *rows);

/* ---- transactions ---- */
/* Isolation of consistent (non-locking) reads through engine_get and cursors.  REPEATABLE READ (the default):
 * one read view from the first read to the end of the trx.  READ COMMITTED: a new view per statement (call
 * engine_trx_statement_start).  READ UNCOMMITTED: the latest versions.  SERIALIZABLE behaves as REPEATABLE READ
 * for engine_get/cursors (the SQL layer makes its plain reads locking reads, as InnoDB does).  Writes always act
 * on the latest version under the row's exclusive lock.
 * Locking reads (engine_cursor_lock, engine_lock_key) take gap locks at REPEATABLE READ and SERIALIZABLE, and
 * record locks only at READ COMMITTED and READ UNCOMMITTED (see "locking reads" below). */
typedef enum {
    ENGINE_ISO_READ_UNCOMMITTED = 0,
    ENGINE_ISO_READ_COMMITTED,
    ENGINE_ISO_REPEATABLE_READ,
    ENGINE_ISO_SERIALIZABLE,
} engine_isolation_t;
int engine_trx_begin(engine_t *e, engine_trx_t **out);
void engine_trx_set_isolation(engine_trx_t *t, engine_isolation_t iso);
/* Savepoints in the trx's own undo: engine_trx_savepoint marks where its undo ends now; engine_trx_rollback_to
 * applies every undo record logged after that mark in reverse and drops them, leaving the trx active with its
 * locks.  A statement that fails inside a transaction and ROLLBACK TO SAVEPOINT use them, so the SQL layer keeps
 * no copy of what it changed.  Compensations are logged as a full rollback's are (crash-safe, never short of
 * log).  Not on a prepared trx. */
uint64_t engine_trx_savepoint(engine_trx_t *t); /* (the trx's own thread, as every call on a trx) */
/* The trx's undo: the bytes kept in memory, and all of it (checkpoints spill a large one to the undo file and
 * drop it from memory; rollback reads it back). */
void engine_trx_undo_bytes(engine_trx_t *t, uint64_t *in_memory, uint64_t *total);
int engine_trx_rollback_to(engine_trx_t *t, uint64_t sp);
/* READ COMMITTED: the next read takes a fresh view.  Harmless at other levels. */
void engine_trx_statement_start(engine_trx_t *t);
/* START TRANSACTION WITH CONSISTENT SNAPSHOT: the read view is taken now rather than at the first read (no-op
 * when the trx has one, or reads uncommitted). */
void engine_trx_open_view(engine_trx_t *t);
uint64_t engine_trx_id(const engine_trx_t *t);
/* This trx's lock wait timeout (the session's innodb_lock_wait_timeout); 0 = the engine's. */
void engine_trx_set_lock_wait_timeout(engine_trx_t *t, uint64_t us);
/* The flag that ends this trx's row-lock waits (the session's kill_query; NULL for none): a wait that sees it true
 * clears it and fails with ENGINE_EINTR.  engine_kick wakes the waits of a flag just set, so a KILL QUERY takes
 * effect at once rather than at innodb_lock_wait_timeout. */
void engine_trx_set_kill(engine_trx_t *t, _Atomic bool *kill);
void engine_kick(engine_t *e, _Atomic bool *kill);
/* Durable per the flush mode, then frees the trx. */
int engine_trx_commit(engine_trx_t *t);
/* Undoes the trx's changes (undo records kept in memory and in the redo log), then frees the trx. */
int engine_trx_rollback(engine_trx_t *t);
/* Binlog group-commit hook (DESIGN.md decision 3): commit without waiting for durability, learn the commit's LSN,
 * and let the binlog leader make a whole group durable with one engine_log_sync(max LSN of the group). */
int engine_trx_commit_nosync(engine_trx_t *t, uint64_t *commit_lsn);
int engine_log_sync(engine_t *e, uint64_t lsn);
/* Commit tags: the binlog's one-fsync commit (commit/commit.h) commits in binlog order without syncing, each commit
 * tagged with its binlog position (tag != 0).  The tag is logged in the COMMIT's own redo group, so it is durable
 * exactly when the commit is.  engine_commit_tag() is the tag of the last tagged commit in log order: after a
 * crash, that of the last one that survived (checkpoints keep it).  The caller commits in tag order, so every
 * tagged commit logged before that one survived too. */
int engine_trx_commit_tagged(engine_trx_t *t, uint64_t tag, uint64_t *commit_lsn);
uint64_t engine_commit_tag(engine_t *e);
/* Sets the tag without a commit (the binlog's positions started over: RESET MASTER), durable at return. */
int engine_commit_tag_set(engine_t *e, uint64_t tag);
/* The redo log's end: engine_log_sync(e, engine_log_lsn(e)) makes everything logged so far durable. */
uint64_t engine_log_lsn(engine_t *e);
/* Two-phase commit with the binlog as coordinator: prepare logs a PREPARE record carrying xid (opaque, <= 1024
 * bytes, e.g. the binlog's XID or GTID) and returns its LSN; make it durable (engine_log_sync) before the binlog
 * write, then commit (engine_trx_commit / _nosync) or roll back.  A trx prepared at a crash survives recovery:
 * still active, its rows locked and invisible to read views, until the coordinator, having read its own log,
 * calls engine_xa_commit or engine_xa_rollback for each trx engine_xa_recover lists. */
int engine_trx_prepare(engine_trx_t *t, const void *xid, size_t len, uint64_t *prepare_lsn);
typedef void (*engine_xa_cb)(void *ctx, uint64_t trx_id, const void *xid, size_t len);
/* Calls cb for each recovered prepared trx; returns how many. */
int engine_xa_recover(engine_t *e, engine_xa_cb cb, void *ctx);
int engine_xa_commit(engine_t *e, uint64_t trx_id);
int engine_xa_rollback(engine_t *e, uint64_t trx_id);

/* ---- trees (one per table or index) ---- */
/* DDL is durable at return and not undone by rolling back trx (trx may be NULL). */
int engine_tree_create(engine_trx_t *trx, engine_t *e, uint32_t space_id, engine_tree_id_t *tree);
int engine_tree_drop(engine_trx_t *trx, engine_t *e, engine_tree_id_t tree);
/* Pages and extents the tree holds now (for information_schema.TABLES DATA_LENGTH). */
int engine_tree_stats(engine_t *e, engine_tree_id_t tree, uint64_t *pages, uint64_t *extents);

/* ---- bulk load: a new tree filled from sorted entries (index builds) ----
 * engine_bulk_begin creates an empty tree, marked in the directory as being built; engine_bulk_add appends
 * entries in strictly increasing key order (ENGINE_EDUPKEY for a key equal to the previous one, ENGINE_EINVAL
 * for a smaller one), with no transaction, undo or row lock: nobody may use the tree before the load finishes,
 * and the entries carry trx id 0 (visible to every read view).  Pages are written as they fill, bottom-up,
 * through the buffer pool and the redo log, so memory stays a few pages whatever the size.  engine_bulk_finish
 * makes the tree complete and durable and clears the mark: engine_bulk_tree() is then an ordinary tree.  On
 * error, or by engine_bulk_abort, the tree is dropped; a tree still marked at start-up (the server died during
 * the load) is dropped by engine_open.  Both free b. */
typedef struct engine_bulk engine_bulk_t;
int engine_bulk_begin(engine_t *e, uint32_t space_id, engine_bulk_t **out);
engine_tree_id_t engine_bulk_tree(const engine_bulk_t *b);
int engine_bulk_add(engine_bulk_t *b, const void *key, size_t klen, const void *val, size_t vlen);
int engine_bulk_finish(engine_bulk_t *b);
void engine_bulk_abort(engine_bulk_t *b);

/* ---- rows ---- */
/* Fails with ENGINE_EDUPKEY when the key exists. */
int engine_insert(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, const void *val, size_t vlen);
/* Replaces the value of an existing key; STRATA_ENOTFOUND when absent. */
int engine_update(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, const void *val,
                  size_t vlen);
/* Insert or replace. */
int engine_put(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, const void *val, size_t vlen);
/* STRATA_ENOTFOUND when absent. */
int engine_delete(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen);
/* Consistent read: copies the value the trx's read view sees into *out (reset first); STRATA_ENOTFOUND when the
 * view sees no row. */
int engine_get(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, buf_t *out);
/* Latest-version read without a transaction (what a locking read sees after engine_lock_row; uncommitted
 * changes of other transactions included). */
int engine_get_e(engine_t *e, engine_tree_id_t tree, const void *key, size_t klen, buf_t *out);
/* SELECT ... FOR UPDATE: takes the row's exclusive lock (whether or not the row exists) until commit/rollback. */
int engine_lock_row(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen);
/* SELECT ... FOR SHARE / LOCK IN SHARE MODE: a shared lock; blocks writers, not other sharers.  A later write or
 * engine_lock_row by the same trx upgrades it (waiting for the other sharers; two sharers upgrading deadlock). */
int engine_lock_row_shared(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen);
/* The lock wait hook (lock_set_wait_hook, engine/lock.h): called with transaction ids before a trx sleeps on a
 * row lock; true aborts the holder's lock wait (ENGINE_EDEADLOCK).  A parallel replica's commit order uses it. */
void engine_set_lock_wait_hook(engine_t *e, bool (*hook)(void *arg, uint64_t waiter_trx, uint64_t holder_trx),
                               void *arg);
/* innodb_lock_wait_timeout (default 50 s). */
void engine_set_lock_wait_timeout(engine_t *e, uint64_t us);

/* ---- locking reads: record, gap and next-key locks (InnoDB's rules) ----
 * A locking read (SELECT ... FOR UPDATE / FOR SHARE, the row search of UPDATE and DELETE) reads the latest
 * committed version of each row after locking it (waiting for an uncommitted writer), never the read view.  At
 * REPEATABLE READ and SERIALIZABLE it also locks the gaps between the keys it walked over, so that no other trx
 * can insert a phantom into the range it read until this one ends: a gap lock blocks inserts of other
 * transactions into it (they wait, then fail with ENGINE_ELOCKWAIT, or ENGINE_EDEADLOCK if the wait closes a
 * cycle); gap locks never block each other nor anything but inserts.  Every engine_insert / engine_put of a key
 * makes that insert-intention check (inserts do not block each other; a failed wait leaves no lock behind).
 * READ COMMITTED takes no gap locks.
 * Gaps are intervals of one tree's key space, so a scan of a secondary index protects its range of that index.
 * All of them are held to commit / rollback. */
typedef enum { ENGINE_LOCK_SHARED = 1, ENGINE_LOCK_EXCLUSIVE = 2 } engine_lock_mode_t;
/* Unique equality lookup (a full key of the tree): when the row exists, locks the record only and returns 0 (read
 * it with engine_get_e); when it does not, returns STRATA_ENOTFOUND having locked, at REPEATABLE READ, the gap it
 * would go into (between its neighbours; nothing at READ COMMITTED).  ELOCKWAIT / EDEADLOCK as above. */
int engine_lock_key(engine_trx_t *t, engine_tree_id_t tree, const void *key, size_t klen, engine_lock_mode_t mode);
/* Makes c (just opened, not yet positioned) a locking cursor.  Each positioning call then stops on the latest
 * version of a row, locked in mode (rows found delete-marked once locked are passed over), and at REPEATABLE READ
 * locks the gaps as it goes: a seek locks the gap before the row found (none on an exact ENGINE_SEEK_GE/LE match
 * of the key: a unique row); next/prev lock the gap from the previous row; running off the tree locks the gap to
 * its end.  lo/hi (key prefixes, NULL = open) are where the scan ends: the first row past hi (moving forward) or
 * below lo (moving backward) is not returned (STRATA_ENOTFOUND); at REPEATABLE READ it stays locked with its gap
 * (InnoDB's next-key lock that closes the range), at READ COMMITTED it is not locked.  unique: the scan is an
 * equality on a whole unique key (lo == hi): the row past it gets its gap locked but not its record, as InnoDB's
 * unique search.  Positioning calls may then return ENGINE_ELOCKWAIT / ENGINE_EDEADLOCK. */
int engine_cursor_lock(engine_cursor_t *c, engine_lock_mode_t mode, const void *lo, size_t lolen, const void *hi,
                       size_t hilen, bool unique);
/* READ COMMITTED / READ UNCOMMITTED semi-consistent read (InnoDB's unlock_row): gives back the lock on the
 * locking cursor's current row (one its WHERE rejected) if this positioning call took it (a lock held before,
 * for example because this trx changed the row, stays).  At REPEATABLE READ and above a no-op. */
void engine_cursor_unlock(engine_cursor_t *c);

/* ---- cursors ---- */
typedef enum { ENGINE_SEEK_GE = 0, ENGINE_SEEK_GT, ENGINE_SEEK_LE, ENGINE_SEEK_LT } engine_seek_t;
/* A cursor reads through the trx's read view (as engine_get), unless made a locking cursor (engine_cursor_lock).
 * It holds no latch between calls, so the same trx may change the tree while iterating (its own changes are
 * visible to it; positions are kept by key). */
int engine_cursor_open(engine_trx_t *t, engine_tree_id_t tree, engine_cursor_t **out);
/* Each positioning call returns 0 on a row, STRATA_ENOTFOUND when there is none (the cursor is then unpositioned). */
int engine_cursor_seek(engine_cursor_t *c, const void *key, size_t klen, engine_seek_t how);
int engine_cursor_first(engine_cursor_t *c);
int engine_cursor_last(engine_cursor_t *c);
int engine_cursor_next(engine_cursor_t *c);
int engine_cursor_prev(engine_cursor_t *c);
/* The current row; valid until the next call on the cursor. */
const void *engine_cursor_key(const engine_cursor_t *c, size_t *len);
const void *engine_cursor_value(const engine_cursor_t *c, size_t *len);
void engine_cursor_close(engine_cursor_t *c);

/* ---- monitoring ---- */
typedef struct {
    uint64_t pool_pages, pool_free, pool_dirty, pool_reads, pool_writes, pool_hits, pool_misses;
    uint64_t log_lsn, log_flushed_lsn, log_checkpoint_lsn, log_capacity, log_syncs, log_groups, log_waits;
    uint64_t checkpoints, trx_committed, trx_rolled_back, lock_waits, lock_deadlocks;
    uint64_t lock_waiting, lock_wait_us, lock_wait_max_us; /* row-lock waits now; time waited, longest */
    uint64_t lock_entries;      /* record-lock entries in the lock table now (implicit insert locks have none) */
    uint64_t rollbacks_pending; /* rollbacks that failed part way, kept and retried (engine.c "stuck rollbacks") */
    uint64_t mvcc_versions, purged_rows;
    uint64_t rebalance_extents_moved, rebalance_extents_pending, rebalance_pages_moved;
} engine_stats_t;
void engine_stats(engine_t *e, engine_stats_t *st);

/* Checks every tree of the directory (structure, ordering, links, pages against the segment's extents); cb gets
 * one call per tree (rc 0 or the fault; owned_pages from the extent descriptors).  0 or STRATA_ECORRUPT. */
typedef void (*engine_verify_cb)(void *ctx, uint64_t tree, uint32_t space, int rc, uint64_t pages, uint64_t rows,
                                 int64_t owned_pages);
int engine_verify(engine_t *e, engine_verify_cb cb, void *ctx);

/* Salvage (innodb_force_recovery): every live entry of a tree that its readable pages hold, in key order, for a
 * tree a normal scan cannot get through (a damaged page).  lost() is called for each part that cannot be read:
 * the keys in [lo, hi) (NULL, 0: an open end) of the page named "space:file:page", or, with page NULL, the one
 * key lo whose value is damaged.  Latest committed state (no read view); for a read-only engine at start-up.
 * 0, or STRATA_ENOTFOUND for an unknown tree. */
typedef void (*engine_salvage_cb)(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen);
typedef void (*engine_salvage_lost_cb)(void *ctx, const char *page, const uint8_t *lo, size_t lol, const uint8_t *hi,
                                       size_t hil);
int engine_tree_salvage(engine_t *e, engine_tree_id_t tree, engine_salvage_cb entry, engine_salvage_lost_cb lost,
                        void *ctx);

/* One tree, online (engine/verify.c): structure, every page it reaches allocated in an extent of its own
 * segment and reached once, the segment owning at least those pages.  fault gets one sentence per problem;
 * page (may be NULL) every page reached.  *rows (may be NULL): the tree's entries.  0 or STRATA_ECORRUPT. */
typedef struct engine_check_report {
    void (*fault)(void *ctx, const char *msg);
    void (*page)(void *ctx, uint64_t page_id);
    void *ctx;
} engine_check_report_t;
int engine_tree_check(engine_t *e, uint64_t tree, const engine_check_report_t *r, uint64_t *rows);

#endif
