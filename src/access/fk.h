/*
 * Foreign keys, enforced as InnoDB enforces them, below every writer of rows: the executor, binlog re-apply at
 * start-up and the replica applier all reach them through table_insert / table_update / table_delete when their
 * statement context carries a table_fk_t (table_stmt_t.fk; NULL: no foreign-key processing at all).
 *
 *   child side   a row inserted, or updated with its key columns changed, whose key columns are all non-NULL
 *                must find its parent row: a locking read (shared) of the parent's index on the referenced
 *                columns and of the parent's clustered row, so that a parent delete racing it either waits for
 *                it or makes it fail (1452); never an orphan.
 *   parent side  a row deleted, or updated with its referenced columns changed: the child rows naming its old
 *                values are found through the child's index on the key columns (locked, latest versions) and
 *                RESTRICT / NO ACTION fails with 1451, CASCADE deletes or updates them, SET NULL nulls their key
 *                columns, each change going through table.c again (so it cascades further, up to InnoDB's depth).
 *
 * Changes made by a cascade are undone with the statement (they are in its transaction's undo) but are not written to the
 * binary log: MariaDB logs only the rows the statement named, and a replica's own foreign keys cascade them.
 * That is also why re-applying logged rows (binapply.c) runs with foreign-key processing on.
 * foreign_key_checks=0 turns checks and actions off together, as in InnoDB.
 */
#ifndef STRATA_ACCESS_FK_H
#define STRATA_ACCESS_FK_H

#include "access/catalog.h"
#include "access/table.h"
#include "util/buf.h"

/* InnoDB's bound on nested cascades (FK_MAX_CASCADE_DEL): the 15th level fails. */
#define FK_MAX_DEPTH 15

typedef struct table_fk {
    catalog_t *cat;
    bool checks;     /* foreign_key_checks */
    uint32_t depth;  /* cascades in progress */
    uint64_t stmt;   /* counts the session's statements (the executor's caches of a statement name it) */
    const cat_table_t *no_children; /* a table this statement found no child of (the next rows skip the walk) */
    uint8_t ignore;  /* FK_IGNORE_*: under IGNORE a failing row is skipped instead of failing the statement */
} table_fk_t;

/* What IGNORE makes of a row's 1451 / 1452, as MariaDB: INSERT IGNORE (its ON DUPLICATE KEY UPDATE too) and a
 * single-table DELETE IGNORE keep the error as a warning; UPDATE IGNORE and multi-table DELETE IGNORE skip the
 * row silently.  table_insert / table_update / table_delete then take the row's changes (cascades included) back
 * and return TABLE_FK_IGNORED. */
enum { FK_IGNORE_NONE = 0, FK_IGNORE_WARN, FK_IGNORE_SILENT };

/* Called by table.c after a successful change of t (rows are t's columns, stored form). */
int fk_after_insert(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d);
int fk_after_update(engine_trx_t *x, const cat_table_t *t, const value_t *old, const value_t *nw, table_stmt_t *u,
                    diag_t *d);
int fk_after_delete(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d);

/* Computes a child row's derived columns after a cascade changed its key columns and before it is written (row
 * holds the stored values; strings into a): the SQL layer's generated columns (sql/exec/gencol.c), which this
 * layer cannot evaluate.  NULL: none.  Set once at start-up, before any statement runs. */
typedef int (*fk_row_derive_fn)(const cat_table_t *t, value_t *row, arena_t *a, diag_t *d);
void fk_row_derive_set(fk_row_derive_fn fn);

/* The child-side check of every foreign key of t for one row (ALTER TABLE ADD FOREIGN KEY over the rows there):
 * 1452 when a parent is missing.  Keys naming t itself are left out (its trees are being built). */
int fk_check_child_row(engine_trx_t *x, catalog_t *cat, const cat_table_t *t, const value_t *row, diag_t *d);

/* "CONSTRAINT `n` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE" as SHOW CREATE TABLE and the 1451 /
 * 1452 messages write it (the referenced table qualified when it is in another database than t). */
void fk_clause_print(buf_t *b, const cat_table_t *t, const cat_fk_t *f);
/* The first index of t whose leading columns are cols[0..n) (whole columns, in order), or -1. */
int fk_index_on(const cat_table_t *t, const char *const *cols, uint32_t n);

#endif
