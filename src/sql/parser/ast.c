/*
 * Tables generated from the .def files for the parser (statement kinds, function names and flags) and the
 * errors errors.def lacks.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/parser/parser_int.h"

static const char *const stmt_names[] = {
#define STMT(id, privileges, handler, com, flags) #id,
#include "sql/parser/statements.def"
#undef STMT
};

static const unsigned stmt_flags[] = {
#define STMT(id, privileges, handler, com, flags) flags,
#include "sql/parser/statements.def"
#undef STMT
};

unsigned sql_stmt_flags(sql_stmt_kind_t k)
{
    return (unsigned)k < ARRAY_LEN(stmt_flags) ? stmt_flags[k] : 0;
}

const char *sql_stmt_kind_name(sql_stmt_kind_t k)
{
    return (unsigned)k < ARRAY_LEN(stmt_names) ? stmt_names[k] : "?";
}

/* The parser's view of the function table: names and flags (the evaluator and type columns are expr's). */
static const struct {
    const char *name;
    int minargs, maxargs; /* maxargs -1: any number */
    unsigned flags;
} fn_rows[SQL_FN__COUNT] = {
#define FN(id, name, mn, mx, eval, type, coll, flags) [SQL_FN_##id] = {name, mn, mx, flags},
#include "sql/parser/functions.def"
#undef FN
};

/* The ids sorted by name, for the parser's lookups (built once; the table is constant). */
static sql_fn_t fn_by_name[SQL_FN__COUNT - 1];
static pthread_once_t fn_by_name_once = PTHREAD_ONCE_INIT;

static int fn_name_cmp(const void *a, const void *b)
{
    return strcmp(fn_rows[*(const sql_fn_t *)a].name, fn_rows[*(const sql_fn_t *)b].name);
}

static void fn_by_name_build(void)
{
    for (int i = 1; i < SQL_FN__COUNT; i++)
        fn_by_name[i - 1] = (sql_fn_t)i;
    qsort(fn_by_name, ARRAY_LEN(fn_by_name), sizeof fn_by_name[0], fn_name_cmp);
}

sql_fn_t sql_fn_lookup(const char *upper_name)
{
    pthread_once(&fn_by_name_once, fn_by_name_build);
    size_t lo = 0, hi = ARRAY_LEN(fn_by_name);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(upper_name, fn_rows[fn_by_name[mid]].name);
        if (c == 0)
            return fn_by_name[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return SQL_FN_UNKNOWN;
}

const char *sql_fn_name(sql_fn_t fn) { return (unsigned)fn < SQL_FN__COUNT ? fn_rows[fn].name : ""; }
unsigned sql_fn_flags(sql_fn_t fn) { return (unsigned)fn < SQL_FN__COUNT ? fn_rows[fn].flags : 0; }

void sql_fn_arg_counts(sql_fn_t fn, int *minargs, int *maxargs)
{
    bool known = (unsigned)fn < SQL_FN__COUNT && fn != SQL_FN_UNKNOWN;
    *minargs = known ? fn_rows[fn].minargs : 0;
    *maxargs = known ? fn_rows[fn].maxargs : -1;
}

bool sql_fn_args_ok(sql_fn_t fn, uint32_t nargs)
{
    if ((unsigned)fn >= SQL_FN__COUNT || fn == SQL_FN_UNKNOWN)
        return true;
    return (int)nargs >= fn_rows[fn].minargs && (fn_rows[fn].maxargs < 0 || (int)nargs <= fn_rows[fn].maxargs);
}

bool sql_expr_is_aggregate(const sql_expr_t *e)
{
    return e->kind == SQL_E_FUNC && !e->over && (sql_fn_flags(e->func.fn) & SQL_FNF_AGGREGATE);
}

/* ---------------------------------------------------------------- errors not in errors.def */

static int push_text(diag_t *d, int code, const char *fmt, const char *a, const char *b)
{
    char msg[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(msg, sizeof msg, fmt, a, b);
#pragma GCC diagnostic pop
    return diag_push_msg(d, DIAG_ERROR, code, msg);
}

int sql_error_undeclared_var(diag_t *d, const char *name)
{
    return push_text(d, 1327, "Undeclared variable: %s%s", name, "");
}

int sql_error_wrong_value(diag_t *d, const char *type, const char *val)
{
    return push_text(d, 1525, "Incorrect %s value: '%s'", type, val);
}

int sql_error_param_type(diag_t *d, const char *type, const char *op)
{
    return push_text(d, 4079, "Illegal parameter data type %s for operation '%s'", type, op);
}

int sql_error_paramcount(diag_t *d, const char *fname)
{
    return diag_error(d, ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, fname);
}

int sql_error_no_function(diag_t *d, const char *fname)
{
    /* MariaDB: 1305 FUNCTION db.name does not exist (needs the current db; the session may refine it) */
    char what[200];
    snprintf(what, sizeof what, "%s", fname);
    for (char *p = what; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return diag_error(d, ER_SP_DOES_NOT_EXIST, "FUNCTION", what);
}

