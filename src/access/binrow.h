/*
 * binrow: the SQL layer's side of the binary log.  A session's changes become row events as they are
 * made: table.c calls binrow_insert/update/delete after each successful row change (through the statement undo
 * log, which carries the session's binrow_log_t), and the executor brackets statements and transactions:
 *
 *   binrow_stmt_start(text)  at each statement; nothing is written until the statement changes a row, then an
 *                            ANNOTATE_ROWS event with the text, TABLE_MAPs and WRITE/UPDATE/DELETE_ROWS follow
 *   binrow_stmt_end()        the statement succeeded (STMT_END_F on its last rows event)
 *   binrow_stmt_undo()       the statement failed inside a transaction: its events are dropped with its rows
 *   binrow_trx() / reset     the commit path hands the built binlog_trx_t to binlog_commit (commit/commit.c)
 *
 * Column mapping (TABLE_MAP types, MariaDB's): TINYINT..BIGINT -> TINY/SHORT/INT24/LONG/LONGLONG, DECIMAL ->
 * NEWDECIMAL(p,s), FLOAT/DOUBLE, BIT(n), CHAR/BINARY -> STRING(max bytes), VARCHAR/VARBINARY -> VARCHAR(max
 * bytes), TEXT/BLOB family -> BLOB(1..4 length bytes), DATE, DATETIME -> DATETIME2(fsp), TIMESTAMP ->
 * TIMESTAMP2(fsp, epoch seconds of the server's time zone), TIME -> TIME2(fsp), YEAR, ENUM/SET -> STRING with
 * the real type in the metadata.  Images are full (binlog_row_image=FULL).  Tables of the hidden '#' databases
 * (TEMPORARY tables) are not logged, as MariaDB does not log temporary tables in ROW format.
 */
#ifndef STRATA_SQL_BINROW_H
#define STRATA_SQL_BINROW_H

#include "binlog/binlog.h"
#include "access/catalog.h"
#include "sql/value/value.h"

typedef struct binrow_log binrow_log_t;

binrow_log_t *binrow_log_new(void);
void binrow_log_free(binrow_log_t *l);
/* The transaction's events so far (for binlog_commit; session fields such as thread_id may be set on it). */
binlog_trx_t *binrow_trx(binrow_log_t *l);
/* Forgets everything (after commit or rollback). */
void binrow_reset(binrow_log_t *l);
bool binrow_empty(const binrow_log_t *l);

/* Statement brackets (query is kept by pointer until binrow_stmt_end/undo). */
void binrow_stmt_start(binrow_log_t *l, const char *query, size_t len);
void binrow_stmt_end(binrow_log_t *l);
void binrow_stmt_undo(binrow_log_t *l);
/* The statement runs with foreign_key_checks=0: its rows events say so (MariaDB's NO_FOREIGN_KEY_CHECKS_F). */
void binrow_stmt_no_fk_checks(binrow_log_t *l, bool off);

/* Savepoints: where the transaction's events stand between statements, and going back there. */
binlog_trx_mark_t binrow_savepoint(binrow_log_t *l);
/* errno of the last failed write of the transaction's binlog-cache file (after BINLOG_ECACHEWRITE) */
int binrow_cache_errno(const binrow_log_t *l);
void binrow_rollback_to(binrow_log_t *l, binlog_trx_mark_t m);

/* One row change with the full images; 0 or STRATA_EPROTO (a value the row format cannot carry). */
int binrow_insert(binrow_log_t *l, const cat_table_t *t, const value_t *row);
int binrow_update(binrow_log_t *l, const cat_table_t *t, const value_t *before, const value_t *after);
int binrow_delete(binrow_log_t *l, const cat_table_t *t, const value_t *row);

/* The binlog description of a catalog column (exposed for tests). */
binlog_col_t binrow_col(const cat_column_t *c);
/* A stored value (table_value_store's domain) as the binlog encoder's value (exposed for tests). */
binlog_value_t binrow_value(const cat_column_t *c, const value_t *v);

#endif
