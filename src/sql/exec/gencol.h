/* Generated columns: their definitions checked (DDL) and their values computed for the rows DML writes
 * (gencol.c). */
#ifndef STRATA_SQL_EXEC_GENCOL_H
#define STRATA_SQL_EXEC_GENCOL_H

#include "sql/exec/exec_int.h"

/* Does t have a generated column? */
bool gencol_any(const cat_table_t *t);
/*
 * Checks every generated column of a table definition as MariaDB does at CREATE / ALTER TABLE: the columns it
 * names exist (1054 ... in 'GENERATED ALWAYS AS') and are not itself or a later generated column (4029); no
 * subquery, aggregate or window function (1901); a STORED or indexed one reads no variable and no function whose
 * value is not fixed by its arguments (1901); a STORED one reads no AUTO_INCREMENT column and no column a foreign
 * key's CASCADE / SET NULL changes (1901, InnoDB's rule); no primary key on one (1903).  A VIRTUAL one of such
 * an expression is marked gen_on_read (computed again for every read, as MariaDB computes it).
 */
int gencol_check_table(sql_exec_ctx_t *x, cat_table_t *t);
/* Does t have a column computed on read (gen_on_read)? */
bool gencol_any_on_read(const cat_table_t *t);
/* Computes t's gen_on_read columns into out, a row of t's columns as a SELECT reads them (out[c] for column c),
 * from its other columns.  A value that does not fit the column is adjusted as a non-strict store would, quietly. */
int gencol_read(sql_exec_ctx_t *x, const cat_table_t *t, value_t *out);
/*
 * A statement gave a value (not DEFAULT) for generated column c: 1906, an error when strict, else a warning
 * and 0 (the value is ignored and the column computed).
 */
int gencol_value_given(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t c, bool strict);
/* May e (with value v once evaluated, or NULL before) be written into a generated column without 1906?  DEFAULT
 * and the NULL literal (or a parameter bound to NULL), as MariaDB's vcol_assignment_allowed_value. */
bool gencol_assign_allowed(const sql_expr_t *e, const value_t *v);
/*
 * Computes t's generated columns of row (stored values, ncols of them) from the row's other columns, in
 * column order (one may read an earlier one), storing each as an assigned value is stored (1264 / 1406 when
 * it does not fit and strict; 1365 for a division by zero when strict).  Values go into arena a.
 */
int gencol_compute(sql_exec_ctx_t *x, const cat_table_t *t, value_t *row, arena_t *a, bool strict, uint64_t rowno);

/*
 * The same for a row written below the executor, with no statement context: a child row a foreign key's CASCADE
 * or SET NULL changes (access/fk.h fk_row_derive_fn).  The expressions are parsed for each row (cascades are
 * rare); values are stored as in strict mode.
 */
int gencol_derive(const cat_table_t *t, value_t *row, arena_t *a, diag_t *d);

#endif
