/*
 * sql: strata's SQL front end, the public header of the box.
 *
 *   sql_parse()      text -> list of statements (ast.h), nodes in the caller's arena
 *   sql_expr_eval()  expression -> value_t (value.h), with callbacks into the session for what SQL cannot know
 *   sql_item_name()  the column name MySQL gives a select item
 *   sql_item_meta()  the column definition (type, length, decimals, charset) MySQL declares for it
 *
 * The parser is hand-written recursive descent (docs/sql-parser.md says why).
 */
#ifndef STRATA_SQL_PARSER_H
#define STRATA_SQL_PARSER_H

#include "sql/parser/ast.h"
#include "sql/parser/sp.h"
#include "sql/value/value.h"
#include "sql/value/store.h"
#include "util/diag.h"

/* The server version the parser emulates for executable comments: slash-star-bang NNNNN ... runs when NNNNN <= this. */
#define SQL_VERSION_ID 101119

/*
 * Parses one or more ';'-separated statements.  Every node comes from `a`; `text` must outlive the tree.
 * Empty statements (";;", trailing ';') are skipped; an all-empty text gives one SQL_STMT_EMPTY.
 * On a syntax error pushes ER_PARSE_ERROR (1064) with MariaDB's text and returns -ER_PARSE_ERROR.
 */
int sql_parse(arena_t *a, const char *text, size_t len, sql_stmt_list_t *out, diag_t *d);

/*
 * The sql_mode flags that change how text is read (the session derives them from @@sql_mode before each
 * parse; a prepared statement keeps the flags of its PREPARE, as in MySQL):
 *   ANSI_QUOTES           "x" is an identifier (as `x`), not a string
 *   PIPES_AS_CONCAT       a || b is CONCAT(a, b), binding tighter than ^ (MariaDB's MYSQL_CONCAT_SYM), not OR
 *   NO_BACKSLASH_ESCAPES  a backslash in a string literal is an ordinary character (LIKE's escape stays '\')
 *   HIGH_NOT_PRECEDENCE   NOT binds as tightly as '!': NOT a BETWEEN b AND c is (NOT a) BETWEEN b AND c
 * IGNORE_SPACE needs nothing: the parser always allows spaces between a function's name and its '('.
 */
enum {
    SQL_PARSE_ANSI_QUOTES = 1,
    SQL_PARSE_PIPES_AS_CONCAT = 2,
    SQL_PARSE_NO_BACKSLASH_ESCAPES = 4,
    SQL_PARSE_HIGH_NOT_PRECEDENCE = 8,
};
/* sql_parse() under the given SQL_PARSE_* flags (sql_parse is sql_parse_mode with 0). */
int sql_parse_mode(arena_t *a, const char *text, size_t len, unsigned mode, sql_stmt_list_t *out, diag_t *d);

/*
 * Parses one expression (the whole text).  For what the catalog keeps as text and re-reads later: a column's
 * DEFAULT (`col->default_expr->src`, `src_len` is its exact spelling), a generated column, a CHECK.
 */
int sql_parse_expr(arena_t *a, const char *text, size_t len, sql_expr_t **out, diag_t *d);

/*
 * A statement's digest text as MariaDB prints it in events_statements_summary_by_digest.DIGEST_TEXT (digest.c:
 * literals as ?, lists collapsed, keywords uppercased, identifiers backquoted, comments dropped), read under the
 * SQL_PARSE_* flags `mode`; max_bytes is performance_schema_max_digest_length (MariaDB's token-array budget:
 * what does not fit is left out).  The text is allocated in `a`; its length in *out_len.
 */
char *sql_digest_text(arena_t *a, const char *text, size_t len, unsigned mode, size_t max_bytes, size_t *out_len);

/*
 * Errors util/errors.def does not carry, pushed with MariaDB's text and SQLSTATE (parser/ast.c):
 * 1327 ER_SP_UNDECLARED_VAR 42000, 1525 ER_WRONG_VALUE HY000, 1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT 42000,
 * 1630 ER_FUNC_INEXISTENT_NAME_COLLISION 42000, 4079 ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION HY000.
 */
int sql_error_undeclared_var(diag_t *d, const char *name);
int sql_error_wrong_value(diag_t *d, const char *type, const char *val);
int sql_error_paramcount(diag_t *d, const char *fname);
int sql_error_no_function(diag_t *d, const char *fname);
int sql_error_param_type(diag_t *d, const char *type, const char *op);

#endif
