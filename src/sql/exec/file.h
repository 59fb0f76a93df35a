/*
 * Server-side files of SELECT ... INTO OUTFILE / DUMPFILE and LOAD DATA INFILE (without LOCAL): names resolved
 * as MariaDB resolves them and checked against secure_file_priv.  Internal to exec/.
 */
#ifndef STRATA_SQL_EXEC_FILE_H
#define STRATA_SQL_EXEC_FILE_H

#include "sql/exec/exec_int.h"

/* Creates name for writing (O_EXCL, 0666 under the umask): *fd, *path (statement memory).  0, or -ER_* pushed:
 * 1290 outside secure_file_priv, 1086 when it exists, 1004 when it cannot be created. */
int exec_file_create(sql_exec_ctx_t *x, const char *name, int *fd, const char **path);
/* Opens name for reading: 0, or -ER_* pushed (1290, 1017 missing, 1085 not readable by all outside the data
 * directory). */
int exec_file_open_read(sql_exec_ctx_t *x, const char *name, int *fd, const char **path);
/* OPTIONALLY ENCLOSED BY encloses the columns of these types: all but numbers (MariaDB's STRING_RESULT). */
bool into_col_is_string(const res_col_t *c);
int exec_select_into(sql_exec_ctx_t *x, const sql_select_t *sel);

#endif
