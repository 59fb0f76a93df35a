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
#ifndef STRATA_SQL_SQL_H
#define STRATA_SQL_SQL_H

#include "sql/parser/ast.h"
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

/* ---------------------------------------------------------------- evaluation */

typedef enum sql_session_fn {
    SQL_SFN_DATABASE,      /* string or NULL */
    SQL_SFN_USER,          /* "user@host" as the client connected */
    SQL_SFN_CURRENT_USER,  /* "user@host" of the matched account */
    SQL_SFN_CONNECTION_ID,
    SQL_SFN_LAST_INSERT_ID,
    SQL_SFN_FOUND_ROWS,
    SQL_SFN_ROW_COUNT,
    SQL_SFN_VERSION,
    SQL_SFN_CURRENT_ROLE,  /* the active role or NULL */
} sql_session_fn_t;

/*
 * What the session supplies.  Each callback returns 0 or a negative error it already pushed to the diag.
 * Any callback may be NULL: the expression then fails with ER_NOT_SUPPORTED_YET.
 */
typedef struct sql_eval_cb {
    /* @@[scope.]name; `component` is NULL unless @@comp.name.  Unknown: push ER_UNKNOWN_SYSTEM_VARIABLE. */
    int (*sysvar_get)(void *user, sql_var_scope_t scope, const char *component, const char *name, value_t *out,
                      diag_t *d);
    /* @name: out = NULL value when never set.  Names are case-insensitive. */
    int (*uservar_get)(void *user, const char *name, value_t *out);
    /* @name := v / SET @name = v.  The callee copies strings (v lives in the statement arena). */
    int (*uservar_set)(void *user, const char *name, const value_t *v);
    int (*session_fn)(void *user, sql_session_fn_t fn, value_t *out);
    /* LAST_INSERT_ID(n) sets it */
    int (*set_last_insert_id)(void *user, uint64_t id);
    /* Value of placeholder `index` (0-based). */
    int (*param_get)(void *user, uint32_t index, value_t *out);
    /* An unbound column reference (slot < 0): resolve by name. */
    int (*column_get)(void *user, const sql_expr_t *col, value_t *out, diag_t *d);
    /* SLEEP(seconds): waits, and returns 1 if KILL QUERY interrupted it (the statement then fails with 1317). */
    int (*sleep)(void *user, double seconds);
    /* GET_LOCK(name, timeout) (timeout in seconds, >= 0; 1.8e13 and above: no limit), RELEASE_LOCK(name),
     * RELEASE_ALL_LOCKS() (name NULL), IS_FREE_LOCK(name), IS_USED_LOCK(name): fn says which; out is the
     * function's value.  The name is checked already (a string of 1..192 bytes). */
    int (*user_lock)(void *user, sql_fn_t fn, const char *name, size_t len, double timeout, value_t *out, diag_t *d);
    /* BINLOG_GTID_POS(file, pos): the GTID state at that binlog position as text, or NULL. */
    int (*binlog_gtid_pos)(void *user, const char *file, size_t len, uint64_t pos, value_t *out);
    /*
     * A subquery node: SQL_E_SUBQUERY (scalar), SQL_E_EXISTS, SQL_E_IN with e->sub (args[0] is the left operand)
     * and SQL_E_QUANTIFIED (args[0] op ANY/ALL (e->sub)).  The executor runs e->sub and sets out (NULL/0/1 for
     * the predicates, with SQL's three-valued IN/ANY/ALL semantics).
     */
    int (*subquery_eval)(void *user, const sql_expr_t *e, value_t *out, diag_t *d);
    /* VALUES(col) in INSERT ... ON DUPLICATE KEY UPDATE: the value the failed row would have inserted (NULL
     * outside ON DUPLICATE KEY UPDATE, as MySQL). `col` is the function's argument (a SQL_E_COLUMN). */
    int (*values_get)(void *user, const sql_expr_t *col, value_t *out, diag_t *d);
    /* An aggregate call (COUNT/SUM/AVG/MIN/MAX/GROUP_CONCAT...) met while evaluating a select item / HAVING /
     * ORDER BY: the executor returns the current group's result (it drives sql_agg_t accumulators, exec_agg.c). */
    int (*aggregate_get)(void *user, const sql_expr_t *agg, value_t *out, diag_t *d);
    /* DEFAULT(col): the column's default value. */
    int (*default_get)(void *user, const sql_expr_t *col, value_t *out, diag_t *d);
} sql_eval_cb_t;

typedef struct sql_eval_ctx {
    arena_t *arena;          /* results (strings, decimals) are allocated here */
    diag_t *diag;            /* warnings and errors */
    const sql_eval_cb_t *cb;
    void *user;              /* passed to every callback */
    const value_t *row;      /* bound column slots: a SQL_E_COLUMN with slot >= 0 reads row[slot] */
    uint64_t stmt_time_us;   /* statement start (wall clock, µs): NOW() is constant within a statement */
    int32_t tz_offset_sec;   /* session time zone offset from UTC (seconds); the session keeps it current */
    uint64_t rand_seed1, rand_seed2; /* RAND() state (MySQL's algorithm), per session */
    bool strict;             /* STRICT_*_TABLES in sql_mode (affects writes, not SELECT expressions) */
    uint32_t div_precision_increment; /* @@div_precision_increment (default 4) */
    uint64_t max_allowed_packet; /* longest string a function may build (REPEAT, LPAD, ...): longer is NULL + 1301 */
    bool div_zero_off;       /* ERROR_FOR_DIVISION_BY_ZERO not in sql_mode: x/0 is NULL without warning 1365 */
    bool div_zero_error;     /* strict INSERT/UPDATE with ERROR_FOR_DIVISION_BY_ZERO: x/0 is error 1365 */
    uint16_t conn_coll;      /* collation_connection: a plain '...' literal (parsed from utf8mb4 text) is converted
                                to it when evaluated; 0 = leave literals in utf8mb4 */
} sql_eval_ctx_t;

/* Initialises a context with defaults (tz from the process, div_precision_increment 4, seeds from time). */
void sql_eval_ctx_init(sql_eval_ctx_t *ctx, arena_t *a, diag_t *d, const sql_eval_cb_t *cb, void *user);

/* Evaluates `e`.  Returns 0 (out set, possibly NULL) or a negative -ER_* error already pushed to ctx->diag. */
int sql_expr_eval(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);

/* The collation a comparison of a column of collation `col_coll` (IMPLICIT) with the string value v runs in, by
 * MySQL's coercibility rules (eval.c); -1 when they have none (the comparison fails with 1267). */
int sql_coll_of_cmp(uint16_t col_coll, const value_t *v);

/*
 * LIKE matching under a collation (case-insensitive for _ci), `%` and `_` over characters, `esc` the escape
 * character ('\\' by default; -1 for none).  For SHOW ... LIKE 'pattern' (use COLL_UTF8MB3_GENERAL_CI).
 */
bool sql_like_match(uint16_t coll, const char *s, size_t sn, const char *pat, size_t pn, int esc);

/* ---------------------------------------------------------------- result metadata */

/* MySQL field types (protocol numbers) and column flags used in column-definition packets. */
enum {
    SQL_TYPE_DECIMAL = 0, SQL_TYPE_TINY = 1, SQL_TYPE_SHORT = 2, SQL_TYPE_LONG = 3, SQL_TYPE_FLOAT = 4,
    SQL_TYPE_DOUBLE = 5, SQL_TYPE_NULL = 6, SQL_TYPE_TIMESTAMP = 7, SQL_TYPE_LONGLONG = 8, SQL_TYPE_INT24 = 9,
    SQL_TYPE_DATE = 10, SQL_TYPE_TIME = 11, SQL_TYPE_DATETIME = 12, SQL_TYPE_YEAR = 13, SQL_TYPE_VARCHAR = 15,
    SQL_TYPE_BIT = 16, SQL_TYPE_NEWDECIMAL = 246, SQL_TYPE_ENUM = 247, SQL_TYPE_SET = 248,
    SQL_TYPE_TINY_BLOB = 249, SQL_TYPE_MEDIUM_BLOB = 250, SQL_TYPE_LONG_BLOB = 251, SQL_TYPE_BLOB = 252,
    SQL_TYPE_VAR_STRING = 253, SQL_TYPE_STRING = 254,
};
enum {
    SQL_FLAG_NOT_NULL = 1, SQL_FLAG_PRI_KEY = 2, SQL_FLAG_UNIQUE_KEY = 4, SQL_FLAG_MULTIPLE_KEY = 8,
    SQL_FLAG_BLOB = 16, SQL_FLAG_UNSIGNED = 32, SQL_FLAG_ZEROFILL = 64, SQL_FLAG_BINARY = 128,
    SQL_FLAG_ENUM = 256, SQL_FLAG_AUTO_INCREMENT = 512, SQL_FLAG_TIMESTAMP = 1024, SQL_FLAG_SET = 2048,
    SQL_FLAG_NO_DEFAULT_VALUE = 4096, SQL_FLAG_ON_UPDATE_NOW = 8192, SQL_FLAG_PART_KEY = 16384,
    SQL_FLAG_NUM = 32768,
};

typedef struct sql_col_meta {
    uint8_t type;        /* SQL_TYPE_* */
    uint16_t coll;       /* collation id: 63 for numbers and temporals */
    uint32_t length;     /* column length in bytes (chars * mbmaxlen for strings) */
    uint8_t decimals;
    uint16_t flags;      /* SQL_FLAG_* */
} sql_col_meta_t;

/* The name MySQL gives select item `it` (its alias, or its source text / literal value).  Arena string. */
const char *sql_item_name(arena_t *a, const sql_select_item_t *it);
/*
 * Column metadata for a select item whose value (first row) is `v` (may be NULL when unknown): MySQL derives
 * it from the expression's type (sql_type_infer() of typeinf.h, without columns); where the type is only
 * known at run time (system and user variables, `?`) the value settles it.
 */
void sql_item_meta(const sql_expr_t *e, const value_t *v, sql_col_meta_t *m);

/*
 * A value formatted for a result column of type `type` (SQL_TYPE_*) / `dec`, where the value's own form differs
 * from what MariaDB sends: a DECIMAL column shows every value with the column's scale (`COALESCE(SUM(x), 0)`
 * over no rows is 0.00, `IF(c, 1, 2.5)` is 1.0), a DATETIME column shows a DATE at midnight.  Returns `v` itself
 * when nothing changes; new strings in `a` (typeinf.c).
 */
value_t sql_rtype_format(arena_t *a, uint8_t type, uint8_t dec, const value_t *v);

/*
 * Column metadata of a table column as MariaDB sends it for `SELECT col FROM t`: type code, length, decimals,
 * flags from the definition (`col_coll` = the column's effective collation), strings announced in
 * `result_coll` (@@character_set_results' collation: length = characters x its mbmaxlen).  `key_flags` are the
 * executor's SQL_FLAG_PRI_KEY / UNIQUE_KEY / MULTIPLE_KEY / PART_KEY for the column.
 */
void sql_column_meta(const sql_column_def_t *c, uint16_t col_coll, uint16_t result_coll, uint16_t key_flags,
                     sql_col_meta_t *m);

#endif
