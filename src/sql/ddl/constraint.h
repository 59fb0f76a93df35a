/*
 * FOREIGN KEY and CHECK constraints in definitions (sql/ddl/constraint.c) and CHECK evaluation for the rows DML
 * writes (sql/exec/constraints.c).
 */
#ifndef STRATA_SQL_DDL_CONSTRAINT_H
#define STRATA_SQL_DDL_CONSTRAINT_H

#include "sql/exec/exec_int.h"
#include "sql/exec/constraints.h"

/* MariaDB's printed form of a CHECK condition (`a` > 0 and `b` in (1,2)); what it cannot print, as written. */
const char *check_expr_text(arena_t *a, const sql_expr_t *e);
/* The same, a CAST(... AS CHAR) without a character set printed in the connection's (conn_coll), as MariaDB does
 * when it prints the definition it was given. */
const char *check_expr_text_conn(arena_t *a, const sql_expr_t *e, uint16_t conn_coll);
/* A printed expression again with identifiers in quote q ('"' under ANSI_QUOTES); text itself for a backtick. */
const char *check_expr_requote(arena_t *a, const char *text, char q);
/* CREATE TABLE: the CHECKs of the columns and the table, then the FOREIGN KEYs of both, into t. */
int ddl_constraints_create(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_column_def_t *cols,
                           uint32_t ncols, const sql_index_def_t *defs, uint32_t ndefs);
/* ALTER TABLE ADD FOREIGN KEY / ADD CHECK. */
int fk_add(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_index_def_t *d);
int ddl_check_add(sql_exec_ctx_t *x, cat_table_t *t, const sql_index_def_t *d);
/* ALTER TABLE ADD / MODIFY / CHANGE COLUMN: the column's own CHECK and REFERENCES. */
int ddl_column_constraints_add(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_column_def_t *cd);
/* DROP FOREIGN KEY (fk_only) / DROP CONSTRAINT name: 0 dropped, 1 absent with if_exists (note), else 1091. */
int ddl_constraint_drop(sql_exec_ctx_t *x, cat_table_t *t, const char *name, bool fk_only, bool if_exists);
/* SHOW CREATE TABLE: a column's CHECK after its definition; the table's keys and checks after its indexes. */
void ddl_show_column_check(buf_t *b, const cat_table_t *t, const cat_column_t *c);
void ddl_show_constraints(buf_t *b, const cat_table_t *t);
/* ALTER TABLE: DROP INDEX of an index a foreign key needs (1553); DROP COLUMN of a key's column (1553, 1829:
 * the column's own CHECK goes with it); a key column changed (its type: 1832; its name carried into the key);
 * every CHECK still binds (1054) once the columns are final. */
int ddl_alter_drop_index_check(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t ix);
int ddl_alter_drop_column(sql_exec_ctx_t *x, cat_table_t *t, const char *col);
/* After ALTER TABLE's clauses: columns renamed from[i] to to[i] (src maps t's columns to old's) are renamed in
 * the kept generation expressions, the table's kept FOREIGN KEYs (and their referenced columns when a key names
 * the table itself) and column CHECKs, all at once.  Other tables' keys follow in catalog_table_replace_renaming. */
void ddl_alter_rename_refs(sql_exec_ctx_t *x, const cat_table_t *old, cat_table_t *t, const int *src,
                           const char *const *from, const char *const *to, uint32_t n);
/* A column's own CHECK goes when CHANGE / MODIFY redefine the column (the new definition brings its own). */
void ddl_column_check_drop(cat_table_t *t, const char *col);
int ddl_alter_change_column(sql_exec_ctx_t *x, cat_table_t *t, const cat_column_t *old, const cat_column_t *nc);
int ddl_alter_recheck(sql_exec_ctx_t *x, const cat_table_t *t);
/* DROP TABLE (1451) / TRUNCATE (1701) of a table another table's foreign key references (foreign_key_checks=1). */
int ddl_fk_drop_guard(sql_exec_ctx_t *x, const cat_table_t *t, bool truncate);
bool ddl_fk_drop_guard_quiet(sql_exec_ctx_t *x, const cat_table_t *t); /* the same test, no error pushed */
uint32_t ddl_show_constraint_count(const cat_table_t *t); /* the lines ddl_show_constraints writes */

#endif
