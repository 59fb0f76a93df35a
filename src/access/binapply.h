/*
 * binapply: applies binary log row events to tables through the SQL table layer (table.c), the inverse of
 * binrow.c.  Crash recovery uses it to re-apply the binlog transactions whose engine commit was lost (commit/commit.c,
 * docs/binlog.md "one fsync per commit group"); a replica's applier can use it the same way.
 *
 *   INSERT  the after image is inserted (a table without a primary key gets a new hidden row id)
 *   UPDATE  the row is found by primary key (built from the before image), or, without a primary key, by a scan
 *           for a row equal to the whole before image; it is replaced by the after image
 *   DELETE  the row is found the same way and deleted
 *
 * Each TABLE_MAP is checked against the catalog's current definition of db.name (column count and binlog types
 * as binrow_col() maps them): a transaction logged against another definition is refused (STRATA_EPROTO), never
 * applied to the wrong columns.  Changes are not logged again (no binrow log), and take no locks beyond the
 * engine's own: the caller runs them when nothing else writes (start-up), or serialises them itself.
 */
#ifndef STRATA_SQL_BINAPPLY_H
#define STRATA_SQL_BINAPPLY_H

#include "binlog/binlog.h"
#include "engine/engine.h"
#include "access/catalog.h"
#include "util/diag.h"

typedef struct binapply binapply_t;

binapply_t *binapply_new(catalog_t *cat);
void binapply_free(binapply_t *a);
/* Applies one event of a transaction (feed them all in order, GTID first) inside x.  0, or an error with a
 * message in d (a row not found for UPDATE/DELETE is STRATA_ENOTFOUND, a duplicate key -ER_DUP_ENTRY ...). */
int binapply_event(binapply_t *a, engine_trx_t *x, const binlog_event_t *ev, diag_t *d);
/* Rows applied so far (inserts, updates, deletes). */
void binapply_counts(const binapply_t *a, uint64_t *ins, uint64_t *upd, uint64_t *del);

#endif
