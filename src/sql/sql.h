/*
 * The SQL layer's public header for its callers (session, proto): parsing (parser/parser.h), expression
 * evaluation (expr/expr.h) and the executor (exec/exec.h).  Files inside src/sql include the header of the box
 * they use instead.
 */
#ifndef STRATA_SQL_SQL_H
#define STRATA_SQL_SQL_H

#include "sql/parser/parser.h"
#include "sql/expr/expr.h"

#endif
