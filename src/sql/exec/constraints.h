/* CHECK constraints evaluated on the rows DML writes (constraints.c). */
#ifndef STRATA_SQL_EXEC_CONSTRAINTS_H
#define STRATA_SQL_EXEC_CONSTRAINTS_H

#include "sql/exec/exec_int.h"

/* Binds e's columns to t's columns (slot = column number): 1054 "... in 'CHECK'" for another name. */
int check_bind(sql_exec_ctx_t *x, const cat_table_t *t, sql_expr_t *e);
/* Evaluates t's CHECKs on a row about to be written (stored values): 4025 when one is false (not NULL).  With
 * ignore the failure is a warning and 1 is returned (the row is skipped).  check_constraint_checks=0: none. */
/* DROP DATABASE of a database whose tables other databases' keys reference (foreign_key_checks=1): 1451. */
int exec_fk_db_drop_guard(sql_exec_ctx_t *x, const char *db);
/* What constraints_check_row returns for a row skipped (IGNORE) by a view's CHECK OPTION rather than a CHECK. */
#define CONSTRAINTS_SKIP_VIEW 2
int constraints_check_row(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *row, bool ignore);

#endif
