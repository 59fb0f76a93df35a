/*
 * Generated columns ([GENERATED ALWAYS] AS (expr) VIRTUAL | STORED): the expression is kept in the table's
 * catalog record as MariaDB prints it (cat_column_t.gen_expr), parsed and bound again where it is used, as the
 * CHECK constraints are (constraints.c).
 *
 * strata computes every generated column, VIRTUAL ones too, when a row is written (INSERT, REPLACE, ON DUPLICATE
 * KEY UPDATE, UPDATE, LOAD DATA, the copy of a rebuilding ALTER TABLE) and stores the value with the row.  A
 * VIRTUAL column then reads, indexes and logs (row images) like any column, and its value is the one MariaDB
 * would compute on read as long as the expression depends on the row alone.  One that does not (RAND(), NOW(),
 * CONNECTION_ID(), a variable: allowed in a VIRTUAL column that is not indexed) is marked gen_on_read and
 * computed again for every row a query reads (gencol_read, called by exec/loop.c as it fills the row), as
 * MariaDB computes it; its stored value only feeds row images.  SHOW CREATE TABLE and information_schema say
 * VIRTUAL or STORED as the user wrote it.
 *
 * The bound expressions are cached per statement and table (a small per-thread cache whose entries name the
 * statement they were made for: the trees live in that statement's arena), as constraints.c does.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "sql/exec/gencol.h"
#include "sql/exec/query_int.h"
#include "util/util.h"

#define GEN_CLAUSE "GENERATED ALWAYS AS"

bool gencol_any(const cat_table_t *t)
{
    for (uint32_t c = 0; c < t->ncols; c++)
        if (t->cols[c].gen_expr)
            return true;
    return false;
}

static int gen_bind(sql_exec_ctx_t *x, const cat_table_t *t, sql_expr_t *e)
{
    query_source_t src = {.db = t->db, .name = t->name, .alias = t->name, .t = (cat_table_t *)t};
    query_t q = {.x = x, .src = &src, .nsrc = 1, .width = t->ncols, .clause = GEN_CLAUSE};
    return bind_expr(&q, e, GEN_CLAUSE, false);
}

/* ---------------------------------------------------------------- definitions */

/* Functions whose value is not fixed by their arguments (MariaDB's VCOL_NON_DETERMINISTIC, VCOL_TIME_FUNC and
 * VCOL_SESSION_FUNC): not in a STORED or indexed column. */
static bool fn_not_fixed(const sql_expr_t *e)
{
    if (sql_fn_flags(e->func.fn) & (SQL_FNF_VOLATILE | SQL_FNF_SESSION | SQL_FNF_NOW))
        return true;
    switch (e->func.fn) {
    case SQL_FN_SYSDATE: case SQL_FN_CURDATE: case SQL_FN_CURTIME: case SQL_FN_UTC_TIMESTAMP: case SQL_FN_UTC_DATE:
    case SQL_FN_UTC_TIME: case SQL_FN_UUID: case SQL_FN_UUID_SHORT: case SQL_FN_SLEEP: case SQL_FN_BENCHMARK:
        return true;
    case SQL_FN_UNIX_TIMESTAMP:
        return e->nargs == 0;
    default:
        return false;
    }
}

/* MariaDB's name of a function in 1901: its printed name with "()" */
static const char *fn_print_name(arena_t *a, const sql_expr_t *e)
{
    if (sql_fn_flags(e->func.fn) & SQL_FNF_NOW)
        return "current_timestamp()";
    char *s = arena_printf(a, "%s()", e->func.name ? e->func.name : "");
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return s;
}

typedef struct gen_scan {
    sql_exec_ctx_t *x;
    const cat_table_t *t;
    uint32_t col;          /* the generated column being checked */
    const char *refused;   /* 1901 always (subquery, aggregate) */
    const char *unfixed;   /* 1901 when STORED or indexed, else the column is computed on read */
    int later;             /* a later (or its own) generated column it reads, -1 none */
    int autoinc;           /* an AUTO_INCREMENT column it reads, -1 none */
    const char *fkcol;     /* a column it reads that a foreign key's ON UPDATE CASCADE / SET NULL or ON DELETE
                              SET NULL changes (InnoDB: not under a STORED column) */
} gen_scan_t;

static bool fk_changes(const cat_table_t *t, const char *col)
{
    for (uint32_t i = 0; i < t->nfks; i++) {
        const cat_fk_t *f = &t->fks[i];
        if (f->on_update != CAT_FK_CASCADE && f->on_update != CAT_FK_SET_NULL && f->on_delete != CAT_FK_SET_NULL)
            continue;
        for (uint32_t k = 0; k < f->ncols; k++)
            if (strcasecmp(f->cols[k], col) == 0)
                return true;
    }
    return false;
}

static void gen_scan(gen_scan_t *s, const sql_expr_t *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case SQL_E_SUBQUERY: case SQL_E_EXISTS: case SQL_E_QUANTIFIED:
        if (!s->refused)
            s->refused = "select ...";
        return;
    case SQL_E_IN:
        if (e->sub && !s->refused)
            s->refused = "select ...";
        break;
    case SQL_E_USERVAR: case SQL_E_ASSIGN:
        if (!s->unfixed)
            s->unfixed = arena_printf(s->x->arena, "@%s", e->var.name);
        break;
    case SQL_E_SYSVAR:
        if (!s->unfixed)
            s->unfixed = arena_printf(s->x->arena, "@@%s", e->var.name);
        break;
    case SQL_E_PARAM:
        if (!s->refused)
            s->refused = "?";
        break;
    case SQL_E_COLUMN: {
        int c = cat_table_col(s->t, e->col.name);
        if (c >= 0 && s->t->cols[c].gen_expr && (uint32_t)c >= s->col && s->later < 0)
            s->later = c;
        if (c >= 0 && s->t->cols[c].auto_increment && s->autoinc < 0)
            s->autoinc = c;
        if (c >= 0 && !s->fkcol && fk_changes(s->t, s->t->cols[c].name))
            s->fkcol = s->t->cols[c].name;
        /* an earlier column computed on read makes this one so too (MariaDB names the column in its 1901) */
        if (c >= 0 && (uint32_t)c < s->col && s->t->cols[c].gen_on_read && !s->unfixed)
            s->unfixed = s->t->cols[c].name;
        break;
    }
    case SQL_E_FUNC:
        if ((sql_fn_flags(e->func.fn) & (SQL_FNF_AGGREGATE | SQL_FNF_WINDOW)) || e->over) {
            if (!s->refused)
                s->refused = fn_print_name(s->x->arena, e);
        } else if (fn_not_fixed(e) && !s->unfixed) {
            s->unfixed = fn_print_name(s->x->arena, e);
        }
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        gen_scan(s, e->args[i]);
    gen_scan(s, e->else_expr);
}

static bool col_indexed(const cat_table_t *t, uint32_t c)
{
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == c)
                return true;
    return false;
}

int gencol_check_table(sql_exec_ctx_t *x, cat_table_t *t)
{
    const cat_index_t *pk = cat_table_pk(t);
    for (uint32_t k = 0; pk && k < pk->ncols; k++)
        if (t->cols[pk->cols[k].col].gen_expr)
            return diag_error(x->diag, ER_PRIMARY_KEY_BASED_ON_GENERATED_COLUMN);
    /* a foreign key on a generated column cannot have the key changed by its parent (1905) */
    for (uint32_t i = 0; i < t->nfks; i++) {
        const cat_fk_t *f = &t->fks[i];
        bool gen = false;
        for (uint32_t k = 0; k < f->ncols; k++) {
            int c = cat_table_col(t, f->cols[k]);
            gen |= c >= 0 && t->cols[c].gen_expr;
        }
        const char *clause = f->on_update == CAT_FK_CASCADE    ? "ON UPDATE CASCADE"
                             : f->on_update == CAT_FK_SET_NULL ? "ON UPDATE SET NULL"
                             : f->on_delete == CAT_FK_SET_NULL ? "ON DELETE SET NULL" : NULL;
        if (gen && clause)
            return diag_error(x->diag, ER_WRONG_FK_OPTION_FOR_GENERATED_COLUMN, clause);
    }
    for (uint32_t c = 0; c < t->ncols; c++) {
        cat_column_t *col = &t->cols[c];
        if (!col->gen_expr)
            continue;
        sql_expr_t *e;
        int rc = sql_parse_expr(x->arena, col->gen_expr, strlen(col->gen_expr), &e, x->diag);
        if (rc)
            return rc;
        gen_scan_t s = {.x = x, .t = t, .col = c, .later = -1, .autoinc = -1};
        gen_scan(&s, e);
        if (s.refused)
            return diag_error(x->diag, ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, s.refused, GEN_CLAUSE, col->name);
        if ((rc = gen_bind(x, t, e)) != 0) {
            diag_push_msg(x->diag, DIAG_ERROR, 4027,
                          arena_printf(x->arena, "Got an error evaluating stored expression %s", col->gen_expr));
            return rc;
        }
        if (s.later >= 0)
            return diag_error(x->diag, ER_EXPRESSION_REFERS_TO_UNINIT_FIELD, col->name, t->cols[s.later].name);
        bool fixed_needed = col->gen_stored || col_indexed(t, c);
        if (s.autoinc >= 0 && col->gen_stored)
            return diag_error(x->diag, ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, "AUTO_INCREMENT", GEN_CLAUSE,
                              t->cols[s.autoinc].name);
        if (s.fkcol && col->gen_stored)
            return diag_error(x->diag, ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, s.fkcol, GEN_CLAUSE, col->name);
        if (s.unfixed && fixed_needed)
            return diag_error(x->diag, ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, s.unfixed, GEN_CLAUSE, col->name);
        col->gen_on_read = s.unfixed != NULL;
    }
    t->gen_on_read = false;
    for (uint32_t c = 0; c < t->ncols; c++)
        t->gen_on_read |= t->cols[c].gen_on_read;
    return 0;
}

bool gencol_any_on_read(const cat_table_t *t)
{
    if (t->gen_on_read)
        return true;
    for (uint32_t c = 0; c < t->ncols; c++) /* a definition not read from the catalog */
        if (t->cols[c].gen_on_read)
            return true;
    return false;
}

int gencol_value_given(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t c, bool strict)
{
    if (strict)
        return diag_error(x->diag, ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN, t->cols[c].name, t->name);
    diag_warn(x->diag, ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN, t->cols[c].name, t->name);
    return 0;
}

bool gencol_assign_allowed(const sql_expr_t *e, const value_t *v)
{
    if (e->kind == SQL_E_DEFAULT && e->nargs == 0)
        return true;
    if (e->kind == SQL_E_LITERAL && e->lit.type == VAL_NULL)
        return true;
    return e->kind == SQL_E_PARAM && v && v->type == VAL_NULL;
}

/* ---------------------------------------------------------------- values */

typedef struct gen_cache {
    const sql_exec_session_t *ss;
    uint64_t stmt;
    const cat_table_t *t;
    sql_expr_t **exprs;    /* per column, NULL for an ordinary one */
} gen_cache_t;

static _Thread_local gen_cache_t tl_cache[8];
static _Thread_local uint32_t tl_next;

static int exprs_for(sql_exec_ctx_t *x, const cat_table_t *t, sql_expr_t ***out)
{
    for (uint32_t i = 0; i < ARRAY_LEN(tl_cache); i++) {
        gen_cache_t *c = &tl_cache[i];
        if (c->ss == x->ss && c->stmt == x->ss->fk.stmt && c->t == t) {
            *out = c->exprs;
            return 0;
        }
    }
    sql_expr_t **v = arena_calloc(x->arena, sizeof(sql_expr_t *) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++) {
        const char *s = t->cols[c].gen_expr;
        if (!s)
            continue;
        int rc = sql_parse_expr(x->arena, s, strlen(s), &v[c], x->diag);
        if (rc == 0)
            rc = gen_bind(x, t, v[c]);
        if (rc)
            return rc;
    }
    gen_cache_t *c = &tl_cache[tl_next++ % ARRAY_LEN(tl_cache)];
    *c = (gen_cache_t){.ss = x->ss, .stmt = x->ss->fk.stmt, .t = t, .exprs = v};
    *out = v;
    return 0;
}

int gencol_compute(sql_exec_ctx_t *x, const cat_table_t *t, value_t *row, arena_t *a, bool strict, uint64_t rowno)
{
    if (!gencol_any(t))
        return 0;
    sql_expr_t **exprs;
    int rc = exprs_for(x, t, &exprs);
    if (rc)
        return rc;
    value_t *in = arena_alloc(a, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++)
        in[c] = t->cols[c].gen_expr ? value_null() : table_value_out(&t->cols[c], &row[c], a);
    sql_exec_ctx_t x2 = *x;
    x2.arena = a;
    row_eval_t xe;
    row_eval_init(&xe, &x2);
    xe.ev.div_zero_error = strict && !x->div_zero_off;
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (!exprs[c])
            continue;
        value_t v;
        if ((rc = row_eval(&xe, exprs[c], in, &v)) != 0)
            return rc;
        if (v.type == VAL_NULL)
            row[c] = v;
        else if ((rc = table_value_store(t, c, &v, &row[c], a, x->diag, strict, rowno)) != 0)
            return rc;
        in[c] = table_value_out(&t->cols[c], &row[c], a);
    }
    return 0;
}

int gencol_derive(const cat_table_t *t, value_t *row, arena_t *a, diag_t *d)
{
    if (!gencol_any(t))
        return 0;
    /* the expressions read only the row's columns and fixed functions (gencol_check_table), so a context
     * without a session (no variables, no session functions) evaluates them as the statement's would */
    sql_exec_ctx_t x;
    memset(&x, 0, sizeof x);
    x.arena = a;
    x.diag = d;
    x.strict = true;
    x.conn_coll = COLL_DEFAULT;
    value_t *in = arena_alloc(a, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++)
        in[c] = t->cols[c].gen_expr ? value_null() : table_value_out(&t->cols[c], &row[c], a);
    row_eval_t xe;
    row_eval_init(&xe, &x);
    for (uint32_t c = 0; c < t->ncols; c++) {
        const char *s = t->cols[c].gen_expr;
        if (!s)
            continue;
        if (t->cols[c].gen_on_read) { /* computed as it is read; without a session it is not computed here */
            row[c] = value_null();
            continue;
        }
        sql_expr_t *e;
        value_t v;
        int rc = sql_parse_expr(a, s, strlen(s), &e, d);
        if (rc == 0)
            rc = gen_bind(&x, t, e);
        if (rc == 0)
            rc = row_eval(&xe, e, in, &v);
        if (rc == 0 && v.type == VAL_NULL)
            row[c] = v;
        else if (rc == 0)
            rc = table_value_store(t, c, &v, &row[c], a, d, true, 1);
        if (rc)
            return rc;
        in[c] = table_value_out(&t->cols[c], &row[c], a);
    }
    return 0;
}

int gencol_read(sql_exec_ctx_t *x, const cat_table_t *t, value_t *out)
{
    sql_expr_t **exprs;
    int rc = exprs_for(x, t, &exprs);
    if (rc)
        return rc;
    row_eval_t xe;
    row_eval_init(&xe, x);
    diag_t quiet; /* MariaDB computes it as it reads, without a row number to report */
    diag_init(&quiet, 4);
    for (uint32_t c = 0; c < t->ncols && rc == 0; c++) {
        if (!t->cols[c].gen_on_read)
            continue;
        value_t v, st;
        if ((rc = row_eval(&xe, exprs[c], out, &v)) != 0)
            break;
        if (v.type == VAL_NULL) {
            out[c] = v;
            continue;
        }
        diag_clear(&quiet);
        if (table_value_store(t, c, &v, &st, x->arena, &quiet, false, 1) == 0)
            out[c] = table_value_out(&t->cols[c], &st, x->arena);
        else
            out[c] = value_null();
    }
    diag_free(&quiet);
    return rc;
}
