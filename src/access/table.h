/*
 * Table access: rows of a catalog table as engine operations.
 *
 *   clustered tree   key = PK columns (rowcodec keys), or an 8-byte big-endian hidden row id; value = the row
 *   secondary index  key = index columns (with prefix lengths) + the PK key; value empty.  Unique indexes are
 *                    checked by seeking the index-column prefix (rows with a NULL in it never conflict).
 *
 * A statement that fails half-way inside a multi-statement transaction is taken back with the engine's savepoints
 * (engine_trx_rollback_to), not with a copy of its changes kept here, so a statement's memory does not grow with
 * the rows it writes.  Values passed in must already be of their column's domain (table_value_store).
 */
#ifndef STRATA_SQL_TABLE_H
#define STRATA_SQL_TABLE_H

#include "engine/engine.h"
#include "access/catalog.h"
#include "sql/value/value.h"

/* ---- the writing statement ---- */
/* What table_insert/update/delete need to know of the statement they run for (NULL: neither logged nor checked).
 * What they change is undone through the engine transaction's own undo (engine_trx_savepoint/rollback_to): the
 * executor rolls a failed statement back to the savepoint it took when the statement began. */
typedef struct table_stmt {
    struct binrow_log *bl; /* the session's binlog row log (NULL: changes are not binlogged); table_insert/
                              update/delete append full row images to it after each successful change */
    struct table_fk *fk;   /* foreign-key processing of these changes (access/fk.h); NULL: none */
} table_stmt_t;

/* ---- keys ---- */
/* The clustered key of a row (PK columns, or the hidden row id in *rowid when the table has no PK). */
int table_pk_key(const cat_table_t *t, const value_t *row, uint64_t rowid, buf_t *key);
/* The key of index ix for a row whose clustered key is pk (pk appended; a secondary's full entry). */
int table_index_key(const cat_table_t *t, uint32_t ix, const value_t *row, const buf_t *pk, buf_t *key);
/* The rowcodec column of the i-th column of index ix. */
rc_col_t table_index_rc(const cat_table_t *t, uint32_t ix, uint32_t i);

/* ---- rows ---- */
/* Where a duplicate was found: index number and the conflicting row's clustered key. */
typedef struct table_dup {
    int index;
    buf_t pk;
} table_dup_t;

#define TABLE_DUP 1 /* returned instead of an error when the caller asked for the duplicate (dup != NULL) */
#define TABLE_FK_IGNORED 2 /* table_insert / _update / _delete under IGNORE (table_fk_t.ignore): a foreign key
                              refused the row, whose changes were taken back; the 1451 / 1452 is a warning or
                              nothing (fk.h FK_IGNORE_*) */

/*
 * Inserts a row.  On a duplicate key: with dup == NULL pushes ER_DUP_ENTRY 1062 ("Duplicate entry 'v' for key
 * 'name'") and returns -1062; with dup != NULL fills it and returns TABLE_DUP without touching the diag.
 * *rowid_out (may be NULL) receives the hidden row id used.  Engine errors map to MySQL codes (table_engine_err).
 */
int table_insert(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d,
                 table_dup_t *dup);
/* Replaces old (whose clustered key is oldpk) by new, moving index entries whose columns changed. */
int table_update(engine_trx_t *x, const cat_table_t *t, const buf_t *oldpk, const value_t *old, const value_t *new_row,
                 table_stmt_t *u, diag_t *d, table_dup_t *dup);
int table_delete(engine_trx_t *x, const cat_table_t *t, const buf_t *pk, const value_t *row, table_stmt_t *u, diag_t *d);
/* Reads the row with clustered key pk into row[ncols] (strings point into *store).  STRATA_ENOTFOUND if absent. */
int table_get(engine_trx_t *x, const cat_table_t *t, const void *pk, size_t pklen, buf_t *store, value_t *row);
/* The same, reading the latest version (a locking read, after engine_lock_row) rather than the read view. */
int table_get_latest(engine_trx_t *x, const cat_table_t *t, const void *pk, size_t pklen, buf_t *store, value_t *row);
/* The engine that latest-version reads and unique probes go to (the executor sets it at start; without it they
 * fall back to the transaction's read view). */
void table_set_engine(engine_t *e);
int table_decode(const cat_table_t *t, const void *p, size_t n, value_t *row);

/* ---- scans ---- */
typedef enum table_scan_state { TSCAN_NEW = 0, TSCAN_ON_ROW, TSCAN_DONE } table_scan_state_t;
typedef struct table_scan {
    engine_trx_t *x;
    const cat_table_t *t;
    int index;              /* -1 or the PK index: clustered tree; else a secondary index */
    engine_cursor_t *cur;
    buf_t lo, hi;           /* inclusive key prefixes; empty = unbounded */
    bool has_lo, has_hi, desc;
    table_scan_state_t state;
    buf_t pk;               /* current row's clustered key */
    buf_t rowbuf;           /* current row's stored bytes (the row's strings point here) */
    value_t *row;           /* ncols values */
    uint64_t fetched;
    bool locking;           /* table_scan_lock: latest versions, rows and gaps locked by the engine cursor */
    bool covering;          /* table_scan_covering: rows come from the index entries alone */
} table_scan_t;
/* A scan over the clustered tree (index < 0 or the PK) or a secondary index, between lo and hi (key prefixes
 * built with table_index_rc/rc_key_append; NULL = open), ascending or descending. */
int table_scan_open(table_scan_t *s, engine_trx_t *x, const cat_table_t *t, int index, const buf_t *lo,
                    const buf_t *hi, bool desc, arena_t *a);
/* Makes the scan a locking read (before the first table_scan_next): the engine cursor locks each index entry it
 * stops on, and at REPEATABLE READ the gaps of the range (engine_cursor_lock, with the scan's bounds), and the
 * rows come in their latest version.  The caller still locks the clustered row of a secondary index entry.
 * unique: lo == hi is a whole value of a unique index (the entry past it is then gap-locked only). */
int table_scan_lock(table_scan_t *s, engine_lock_mode_t mode, bool unique);
/* Can secondary index ix give every column need[] marks (table columns) from its entries alone?  Index columns
 * without a prefix and the primary key's columns, of key-decodable types (rc_key_decodable). */
bool table_index_covers(const cat_table_t *t, uint32_t ix, const bool *need);
/* Makes a non-locking scan of a secondary index that covers need[] an index-only read (before the first
 * table_scan_next): rows are decoded from the index entries, the columns need[] does not mark come back NULL, and
 * the clustered tree is not read.  Returns whether it did (need NULL: every column, never covered). */
bool table_scan_covering(table_scan_t *s, const bool *need);
/* 0 with s->row filled, STRATA_ENOTFOUND at the end, or an error. */
int table_scan_next(table_scan_t *s);
void table_scan_close(table_scan_t *s);

/* ---- AUTO_INCREMENT ---- */
uint64_t table_autoinc_next(const cat_table_t *t);
/* An explicit value v was stored: the counter moves past it. */
void table_autoinc_seen(const cat_table_t *t, uint64_t v);
/* Sets the counter (ALTER TABLE ... AUTO_INCREMENT, TRUNCATE). */
void table_autoinc_set(const cat_table_t *t, uint64_t v);

/* Engine error -> MySQL error pushed to d (1114 table full, 1205, 1213, 1062 ...). */
int table_engine_err(diag_t *d, const cat_table_t *t, int rc);

/* ---- values into and out of columns ---- */
/*
 * Converts v to column c's domain with MySQL's rules: strict (STRICT_TRANS_TABLES) raises errors, otherwise
 * the value is adjusted with a warning (1264 out of range, 1265 data truncated, 1366 incorrect value, 1292,
 * 1406 data too long, 1048 NULL into NOT NULL -> error in strict, implicit default with warning otherwise).
 * row is the 1-based row number for messages.  Returns 0 or -ER_*.
 */
int table_value_store(const cat_table_t *t, uint32_t col, const value_t *v, value_t *out, arena_t *a, diag_t *d, bool strict,
                      uint64_t row);
/* The column's default for a row (DEFAULT or omitted), or an error 1364 "Field '%s' doesn't have a default
 * value" in strict mode for NOT NULL columns without one. */
int table_value_default(const cat_column_t *c, value_t *out, arena_t *a, diag_t *d, bool strict);
/* A stored value as the client sees it (ENUM/SET names, FLOAT's digits, YEAR). */
value_t table_value_out(const cat_column_t *c, const value_t *v, arena_t *a);

#endif
