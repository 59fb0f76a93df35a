/*
 * sql/stats: a table's optimizer statistics, as ANALYZE TABLE computes them and the planner reads them.
 *
 * Per table: the number of rows, and per index, for each key prefix of 1..ncols columns, the number of distinct
 * values of that prefix (InnoDB's n_diff_pfx, SHOW INDEX's Cardinality of the prefix's last column).  They are
 * counted exactly by one ordered pass over each index tree in a fresh read view (the keys are memcmp-ordered, so
 * two neighbours share a prefix exactly when its key bytes are equal); there is no sampling.
 *
 * They are kept in the catalog's tree (catalog_aux_put, record kind CAT_AUX_STATS), so they survive a restart
 * and go with DROP TABLE, and cached in memory per table id.  An index is matched by name and column count: an
 * index added or changed since the last ANALYZE has no statistics until the next one.  A table never analyzed
 * has none until it is counted, and callers fall back to what they did without (the planner's fixed preferences).
 *
 * Automatic recalculation (InnoDB's innodb_stats_auto_recalc): row changes are counted per table
 * (stats_note_change, from access/table.c: a thread-local count added to a counter chosen by the table id once
 * per 32 rows, so writers of a hot table do not share a cache line per row); once a
 * table has changed by more than a tenth of the rows its statistics counted (at least STATS_AUTO_MIN_CHANGES
 * changes, and at once for a table never counted), it is queued for the statistics thread, which counts it as
 * ANALYZE does, under a shared metadata lock so DDL cannot drop its trees meanwhile.  Statements never wait for
 * it: they use the statistics there are until new ones are published.
 *
 * Thread safety: one mutex guards the cache; nothing is held across an engine call.
 */
#ifndef STRATA_SQL_STATS_H
#define STRATA_SQL_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "access/catalog.h"

/* Computes t's statistics, stores them durably and publishes them.  0 or an engine error (negative). */
int stats_analyze(catalog_t *c, const cat_table_t *t);
/* Rows counted by the last ANALYZE; false when the table has no statistics. */
bool stats_table_rows(catalog_t *c, const cat_table_t *t, uint64_t *rows);
/* Distinct values of the first n (1..ncols) columns of index ix; false when unknown. */
bool stats_index_distinct(catalog_t *c, const cat_table_t *t, uint32_t ix, uint32_t n, uint64_t *distinct);
/* Rows one lookup of the first n columns of index ix is expected to match (rows / distinct, at least 1); false
 * when unknown. */
bool stats_rows_per_key(catalog_t *c, const cat_table_t *t, uint32_t ix, uint32_t n, uint64_t *rows);
/* Increases with every ANALYZE that published statistics: access paths chosen at an older value may no longer be
 * the cheapest (prepared plans choose theirs again). */
uint64_t stats_generation(void);
/* Frees the cache (server shutdown). */
void stats_shutdown(void);

enum { STATS_AUTO_MIN_CHANGES = 200 };
/* A row of t was inserted, updated or deleted. */
void stats_note_change(const cat_table_t *t);
/* Starts the statistics thread over catalog c; enabled() is read before each recalculation
 * (innodb_stats_auto_recalc).  0 or -errno. */
int stats_auto_start(catalog_t *c, bool (*enabled)(void));
/* Stops it (before the catalog closes); queued tables are dropped. */
void stats_auto_stop(void);
/* Recalculations the thread has done (tests, monitoring). */
uint64_t stats_auto_count(void);

#endif
