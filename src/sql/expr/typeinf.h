/*
 * Static result types of expressions, as MariaDB 10.11 infers them before it reads a row: the field type,
 * display length, decimals, signedness, nullability and collation of `SELECT <expr>` and of the column
 * `CREATE TABLE t AS SELECT <expr>` makes.
 *
 * The inference walks a sql_expr_t bottom-up.  Leaves are literals (typed by their spelling), catalog columns
 * (typed by the caller's `column` callback: the executor knows what a bound slot is) and a few session
 * functions; every operator and function then applies MySQL's rule to its arguments' types (integer arithmetic
 * widens by digits, DECIMAL precision/scale rules, `/` adds div_precision_increment decimals, COALESCE / IF /
 * CASE aggregate their branches, SUM/AVG widen to DECIMAL, ...).  What cannot be known before execution (user
 * and system variables, `?`, subqueries, functions without a rule here) makes the whole expression "unknown":
 * sql_type_infer() returns false and the caller keeps its value-based metadata.
 *
 * Lengths are in characters (MariaDB's max_char_length); sql_rtype_meta() turns a type into the fields of a
 * column-definition packet (length in bytes of the collation).
 */
#ifndef STRATA_SQL_TYPEINF_H
#define STRATA_SQL_TYPEINF_H

#include "sql/expr/expr.h"

typedef struct sql_rtype {
    uint8_t type;      /* SQL_TYPE_* (VAR_STRING for strings, BLOB when over 65535 bytes; NULL for NULL) */
    uint32_t len;      /* display length in characters (numbers: digits + sign + point) */
    uint32_t prec;     /* NEWDECIMAL: precision; integers: digits (len without the sign) */
    uint8_t dec;       /* scale / fsp; 31 for a DOUBLE without fixed decimals, 39 for most strings */
    bool unsig;
    bool nullable;
    uint16_t coll;     /* COLL_BINARY for numbers and temporals */
    uint32_t width;    /* CREATE TABLE ... SELECT display width of an integer when it differs from len (0: len) */
    uint16_t flags;    /* extra SQL_FLAG_* bits (ENUM/SET of a column read through MIN/MAX) */
    bool coercible;    /* a string whose collation is a literal's: a column's collation wins over it */
} sql_rtype_t;

typedef struct sql_typeinf_env {
    /* Type of a column reference (bound by the executor): 0, or negative when unknown. */
    int (*column)(void *user, const sql_expr_t *col, sql_rtype_t *out);
    void *user;
    uint16_t conn_coll;              /* collation_connection (0: utf8mb4_general_ci) */
    uint32_t div_precision_increment;/* 0: 4 */
} sql_typeinf_env_t;

/* Infers the static type of `e`; false when some part of it is only known at run time (out is then unset). */
bool sql_type_infer(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out);

/*
 * The type of COALESCE / CASE / a UNION column over branch types a[0..n): NULLs skipped, any string makes a
 * string, DOUBLE a DOUBLE, DECIMAL with integers (or integers of mixed signedness) a DECIMAL, one temporal kind
 * stays.  Nullable when any branch is.  False when a branch type has no rule (BLOB, BIT).
 */
bool sql_rtype_aggregate(uint16_t conn_coll, const sql_rtype_t *a, uint32_t n, sql_rtype_t *out);

/* The column-definition fields of a type (length in bytes of `coll`, flags NOT_NULL/UNSIGNED/BINARY/NUM). */
void sql_rtype_meta(const sql_rtype_t *t, sql_col_meta_t *m);

/* sql_rtype_format() (the value shown in a column of a static type) is declared in sql.h. */

#endif
