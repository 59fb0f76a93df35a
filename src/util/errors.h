/*
 * The one table of MySQL error codes (errors.def): symbolic name, number, SQLSTATE and message format, as
 * MySQL/MariaDB define them, so drivers that branch on codes behave.  Raise them through a diagnostics area
 * (session/diag); nothing else formats MySQL errors.
 */
#ifndef STRATA_ERRORS_H
#define STRATA_ERRORS_H

enum mysql_err {
#define ERR(name, code, state, msg) name = code,
#include "util/errors.def"
#undef ERR
};

/* SQLSTATE (5 chars) and printf format for a code; unknown codes give "HY000" and "Unknown error %d". */
const char *errors_sqlstate(int code);
const char *errors_format(int code);

#endif
