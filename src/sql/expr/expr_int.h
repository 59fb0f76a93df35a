/*
 * Internals of the expression box: the function table (one row of parser/functions.def per function, with its
 * evaluator, type rule, collation rule and flags) and what the evaluators share.  No other box includes this.
 */
#ifndef STRATA_SQL_EXPR_INT_H
#define STRATA_SQL_EXPR_INT_H

#include "sql/expr/expr.h"
#include "sql/value/store.h"

/* ---------------------------------------------------------------- the function table (functions.def) */

struct sql_typeinf_env;
struct sql_rtype;

/* A function's implementation: args == NULL for SQL_FNF_LAZY rows, else the evaluated arguments (any_null: one
 * of them is NULL).  0 with *out set, or -ER_* with the error in ctx->diag. */
typedef int sql_fn_eval_t(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out);
/* A function's static result type: 1 typed (*out), 0 unknown before a value is seen, -1 not this rule's row. */
typedef int sql_fn_type_t(const struct sql_typeinf_env *env, const sql_expr_t *e, struct sql_rtype *out);

/* How a function's string arguments meet (functions.def, "collation"). */
typedef enum sql_fn_coll_kind {
    SQL_FN_COLL_NONE,
    SQL_FN_COLL_SAME,
    SQL_FN_COLL_SYSCONST,
    SQL_FN_COLL_RESULT,
    SQL_FN_COLL_STRICT,
    SQL_FN_COLL_STRINGS,
    SQL_FN_COLL_CMP,
} sql_fn_coll_kind_t;

typedef struct sql_fn_coll {
    sql_fn_coll_kind_t kind;
    const char *op;               /* the operation's name in 1267 / 1270 / 1271 */
    uint8_t first, step, max;     /* the aggregated arguments: first, first+step, ... (at most max; 0: all) */
} sql_fn_coll_t;

typedef struct sql_fn_def {
    const char *name;
    int minargs, maxargs;         /* maxargs -1: any number */
    sql_fn_eval_t *eval;
    sql_fn_type_t *type;
    sql_fn_coll_t coll;
    unsigned flags;               /* SQL_FNF_* */
} sql_fn_def_t;

/* Indexed by sql_fn_t: every row of functions.def. */
extern const sql_fn_def_t sql_fn_defs[SQL_FN__COUNT];

/* The evaluators and type rules the rows name. */
#define FN(id, name, mn, mx, eval, type, coll, flags) sql_fn_eval_t eval; sql_fn_type_t type;
#include "sql/parser/functions.def"
#undef FN

/* What an evaluator answers for a row it does not serve (a row naming the wrong evaluator): 1105, naming it. */
int sql_fn_unrouted(sql_eval_ctx_t *ctx, const sql_expr_t *e);


/* Two values about to be compared, brought to one collation by MySQL's coercibility rules when both are
 * strings (eval.c); 1267 for operation `op` when they have none. */
int sql_eval_coll_cmp(sql_eval_ctx_t *ctx, const char *op, value_t *a, value_t *b);
/* A hex or bit literal (0x41, X'41', b'101', 0b101) is a number where a number is wanted: *v becomes its bytes
 * read big-endian (any other e leaves *v alone). */
void sql_eval_hex_as_number(const sql_expr_t *e, value_t *v);
/* [NOT] REGEXP / RLIKE (regexp.c). */
int sql_eval_regexp_op(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);
/* A JSON function's result compared with a string that is not JSON: the JSON side's string scalar is compared
 * unquoted; compared with a number, it is read as one (true is 1), as MariaDB compares them (json.c). */
void sql_json_cmp_prepare(sql_eval_ctx_t *ctx, const sql_expr_t *ea, const sql_expr_t *eb, value_t *a, value_t *b);
/* x + INTERVAL .. / INTERVAL .. + x / x - INTERVAL .. */
int sql_eval_date_interval(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);

/* fnextra.c: FORMAT(x, d, locale); the CASE that NVL2 / DECODE_ORACLE are (typed: the form MariaDB types,
 * CASE x WHEN s ...; else the evaluated one, WHEN x <=> s ...); ADD_MONTHS(d, n) as DATE_ADD(d, INTERVAL n MONTH). */
int sql_fnextra_format(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, value_t *out);
sql_expr_t *sql_fnextra_case(arena_t *a, const sql_expr_t *e, bool typed);
sql_expr_t *sql_fnextra_add_months(arena_t *a, const sql_expr_t *e);

#endif
