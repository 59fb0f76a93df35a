/*
 * expr: evaluating expressions (the AST's sql_expr_t) to values, with callbacks into the session and the
 * executor for what an expression cannot know by itself (variables, columns of the current row, aggregates,
 * subqueries); the names and result-column metadata MySQL gives select items.
 *
 *   sql_expr_eval()  expression -> value_t (value.h)
 *   sql_item_name()  the column name MySQL gives a select item
 *   sql_item_meta()  the column definition (type, length, decimals, charset) MySQL declares for it
 */
#ifndef STRATA_SQL_EXPR_H
#define STRATA_SQL_EXPR_H

#include "sql/parser/parser.h"

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
struct cat_trigger;
/* The row a trigger fires for: cols the table's column names, old / nw its values (NULL for the row the event
 * has not); an assignment to NEW.col is converted to the column's type by store (an error refuses it, as
 * MariaDB's field store in a trigger does) and kept in nw[c] (in a) with nw_set[c]. */
typedef struct sql_trg_row {
    const char *const *cols;
    uint32_t ncols;
    const value_t *old;
    value_t *nw;
    bool *nw_set;
    int (*store)(void *arg, uint32_t col, const value_t *in, value_t *out, arena_t *a, diag_t *d);
    void *store_arg;
    arena_t *a;
    void **cache;          /* the session's parse of the body, kept for the statement (in a); NULL: none */
} sql_trg_row_t;
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
    /* A SQL_E_SUBQUERY met as a row ((a, b) = (SELECT x, y ...)): its single row (*vals NULL when it returns none)
     * and its column count; 1242 when it returns more than one row. */
    int (*subquery_row)(void *user, const sql_expr_t *e, const value_t **vals, uint32_t *ncols, diag_t *d);
    /* VALUES(col) in INSERT ... ON DUPLICATE KEY UPDATE: the value the failed row would have inserted (NULL
     * outside ON DUPLICATE KEY UPDATE, as MySQL). `col` is the function's argument (a SQL_E_COLUMN). */
    int (*values_get)(void *user, const sql_expr_t *col, value_t *out, diag_t *d);
    /* An aggregate call (COUNT/SUM/AVG/MIN/MAX/GROUP_CONCAT...) met while evaluating a select item / HAVING /
     * ORDER BY: the executor returns the current group's result (it drives sql_agg_t accumulators, exec_agg.c). */
    int (*aggregate_get)(void *user, const sql_expr_t *agg, value_t *out, diag_t *d);
    /* A call with OVER (...) met while evaluating a select item / ORDER BY: the executor's window pass has its
     * value for the current row; 4015 where there is none (WHERE, GROUP BY, HAVING ...). */
    int (*window_get)(void *user, const sql_expr_t *call, value_t *out, diag_t *d);
    /* DEFAULT(col): the column's default value. */
    int (*default_get)(void *user, const sql_expr_t *col, value_t *out, diag_t *d);
    /* A call of a name that is no built-in function: a stored function's value (in a), or 1 when there is no
     * such stored function (the caller then raises 1305).  nested: called from inside the executor. */
    int (*stored_fn)(void *user, const sql_expr_t *call, const value_t *args, uint32_t nargs, arena_t *a,
                     bool nested, value_t *out, diag_t *d);
    /* A trigger (access/trigger.h) for one row (sql_trg_row_t).  0, or < 0 an error in the diagnostics area.
     * The executor's statements of the body run nested in the statement that fires it. */
    int (*trigger)(void *user, const struct cat_trigger *tr, struct sql_trg_row *row);
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
    uint32_t regex_flags;    /* @@default_regex_flags: its SET bits (DOTALL, DUPNAMES, ...; regexp.c) */
} sql_eval_ctx_t;

/* Initialises a context with defaults (tz from the process, div_precision_increment 4, seeds from time). */
void sql_eval_ctx_init(sql_eval_ctx_t *ctx, arena_t *a, diag_t *d, const sql_eval_cb_t *cb, void *user);

/* Evaluates `e`.  Returns 0 (out set, possibly NULL) or a negative -ER_* error already pushed to ctx->diag. */
int sql_expr_eval(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);

/* JSON_ARRAYAGG / JSON_OBJECTAGG's item for one row (json.c): appends argument x's value v as JSON text (JSON
 * when x is a JSON function or column, a boolean for a comparison, a number or a quoted string), for an
 * accumulator. */
void sql_json_append_value(arena_t *a, buf_t *b, const sql_expr_t *x, const value_t *v);

/* The collation a comparison of a column of collation `col_coll` (IMPLICIT) with the string value v runs in, by
 * MySQL's coercibility rules (eval.c); -1 when they have none (the comparison fails with 1267). */
int sql_coll_of_cmp(uint16_t col_coll, const value_t *v);

/*
 * LIKE matching under a collation (case-insensitive for _ci), `%` and `_` over characters, `esc` the escape
 * character ('\\' by default; -1 for none).  For SHOW ... LIKE 'pattern' (use COLL_UTF8MB3_GENERAL_CI).
 */
/* a op b over n values (=, <>, <=>, <, <=, >, >=), MariaDB's row comparison: component by component under the
 * components' collations, lexicographic for the orderings, NULL where a NULL leaves it undecided. */
int sql_eval_row_cmp_values(sql_eval_ctx_t *ctx, sql_op_t op, value_t *a, value_t *b, uint32_t n, value_t *out);

bool sql_like_match(uint16_t coll, const char *s, size_t sn, const char *pat, size_t pn, int esc);

/* ---------------------------------------------------------------- result metadata */


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
