/*
 * The stored-routine interpreter: runs the tree of sql/parser/sp.h for CALL and for stored functions met in
 * expressions.
 *
 * A call is a frame (sp_frame_t) over the routine's body as the session parsed it from its catalog text (the
 * session's cache of parsed routines, one entry per routine and catalog version: see sp_cached_t), one slot per
 * variable (parameters first), the cursors, the active handlers.  The frames of a session form a
 * stack (session.sp_frame, innermost first) that the recursion limits read: a procedure may be active at most
 * max_sp_recursion_depth + 1 times (1456), a function once (1424).
 *
 * Every leaf operation -- a statement, an expression -- runs with the session's arena swapped for the frame's
 * scratch arena, reset when the operation ends, so a loop of a million iterations holds no more memory than
 * one; what outlives an operation (a variable's value, a cursor's rows) is copied out first.  A statement is
 * parsed from its text at every execution and run by the session's own statement path (session_sp_stmt) with
 * the frame's variables as the values of its `?`, so it is bound and checked for privileges each time.
 *
 * Conditions: a statement that fails leaves its error in the session's diagnostics area; the list that ran it
 * looks for a handler from the innermost block outwards (an error number beats an SQLSTATE, which beats
 * SQLEXCEPTION / SQLWARNING / NOT FOUND) and runs it with the handled condition kept for GET DIAGNOSTICS and
 * RESIGNAL; CONTINUE goes on after the statement, EXIT leaves the handler's block.  Warnings raised by a
 * statement that succeeded are offered to handlers the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "access/routine.h"
#include "access/trigger.h"
#include "acl/priv.h"
#include "session/sp_int.h"
#include "session/sysvar.h"
#include "sql/exec/exec.h"
#include "util/buf.h"
#include "util/mem.h"

enum { SP_OK = 0, SP_ERR = -1, SP_R_LEAVE = 1, SP_R_ITERATE = 2, SP_R_RETURN = 3 };

#define SP_MAX_FRAMES 64

typedef struct sp_var {
    value_t v;
    char *data; /* mem_alloc'd bytes of a string / decimal value */
} sp_var_t;

typedef struct sp_cursor {
    bool open;
    arena_t arena;
    value_t **rows;
    uint64_t nrows, cap, pos;
    uint32_t ncols;
} sp_cursor_t;

typedef struct sp_handler_ent {
    const sp_node_t *h;
    const sp_node_t *block;
    uint32_t level;
} sp_handler_ent_t;

typedef struct sp_cond_info {
    uint16_t code;
    char state[6];
    char msg[512];
    bool warning;
} sp_cond_info_t;

typedef struct sp_frame {
    struct sp_frame *up;
    session_t *s;
    cat_routine_t r;
    const char *qname;          /* db.name */
    bool is_function;
    bool mode_set;        /* the routine's sql_mode is the session's while it runs; saved_mode comes back */
    int64_t saved_mode;
    sp_body_t *body;
    sql_routine_stmt_t *def;
    arena_t arena;              /* the body's tree and what lives for the call */
    arena_t scratch;            /* one leaf operation's allocations */
    arena_t saved;              /* the session's arena while the scratch one stands in */
    int scratch_depth;
    sp_var_t *vars;
    sp_cursor_t *cursors;
    sp_handler_ent_t hstack[128];
    uint32_t nh, level;
    uint32_t ex_lo, ex_hi;      /* handlers not to search: those of the block whose handler runs now */
    sp_cond_info_t hconds[16];  /* the conditions of the handlers running now, innermost last */
    uint32_t nhconds;
    const sp_node_t *target;    /* SP_LEAVE / SP_ITERATE's node */
    value_t ret;
    char *ret_data;
    bool returned;
    const sp_text_t *cur_text;  /* the statement running now (a CALL's OUT arguments write through it) */
    uint32_t err_line;          /* the statement an unhandled error left from */
    uint32_t ret_line;          /* the RETURN that ran (a failed conversion of its value is noted there) */
    bool *row_assigned;         /* a trigger's: per variable, a SET NEW.col ran */
    struct sp_cached *cached;   /* the parsed routine it runs (the session's cache holds it while referenced) */
    uint64_t affected;          /* rows changed or selected INTO, the CALL's OK reports their sum (MariaDB) */
    res_sink_t *sink;           /* the client's, for result sets */
    bool strict;
    sql_trg_row_t *trg;         /* a trigger's row; row_col[var]: the column of a NEW.x / OLD.x variable */
    uint32_t *row_col;
} sp_frame_t;

/* ---------------------------------------------------------------- arenas */

static void scratch_begin(sp_frame_t *f)
{
    if (f->scratch_depth++ == 0) {
        f->saved = f->s->arena;
        f->s->arena = f->scratch;
    }
}

static void scratch_end(sp_frame_t *f)
{
    if (--f->scratch_depth == 0) {
        f->scratch = f->s->arena;
        f->s->arena = f->saved;
        arena_reset(&f->scratch);
    }
}

/* ---------------------------------------------------------------- variables */

static void var_put(sp_var_t *sv, const value_t *v)
{
    char *old = sv->data;
    sv->data = NULL;
    sv->v = *v;
    if (v->type == VAL_STRING || v->type == VAL_DECIMAL) {
        sv->data = mem_alloc(v->s.len + 1);
        memcpy(sv->data, v->s.ptr, v->s.len);
        sv->data[v->s.len] = 0;
        sv->v.s.ptr = sv->data;
    }
    mem_free(old);
}

/* Stores v into variable i, converted to its declared type as a column would store it. */
static int var_set(sp_frame_t *f, uint32_t i, const value_t *v)
{
    const sp_var_info_t *vi = &f->body->vars[i];
    if (vi->is_row) { /* a trigger's NEW.col: converted to the column's type now (an error stops the body) */
        value_t out = *v;
        if (f->trg && f->trg->store && v->type != VAL_NULL &&
            f->trg->store(f->trg->store_arg, f->row_col[i], v, &out, &f->s->arena, &f->s->diag) != 0)
            return SP_ERR;
        var_put(&f->vars[i], &out);
        if (f->row_assigned)
            f->row_assigned[i] = true; /* SET NEW.col ran (not only written in the body) */
        return SP_OK;
    }
    sql_store_col_t col = {.type = &vi->type, .coll = vi->type.coll >= 0 ? (uint16_t)vi->type.coll : COLL_UTF8MB4_GENERAL_CI,
                           .name = vi->name, .db = "", .table = ""};
    value_t out;
    if (v->type == VAL_NULL) {
        out = *v;
    } else {
        int rc = sql_value_store(&f->s->arena, &col, v, f->strict, 0, &f->s->diag, &out); /* "at row 0" */
        if (rc)
            return SP_ERR;
    }
    var_put(&f->vars[i], &out);
    return SP_OK;
}

/* An argument into parameter i: converted under the caller's sql_mode (MariaDB binds them before the routine's
 * own mode applies), so a routine created in a loose mode still refuses 1264 from a strict caller. */
static int arg_set(sp_frame_t *f, uint32_t i, const value_t *v)
{
    bool strict = f->strict;
    if (f->mode_set)
        f->strict = (f->saved_mode & (3ll << 21)) != 0;
    int rc = var_set(f, i, v);
    f->strict = strict;
    return rc;
}

static value_t *text_params(sp_frame_t *f, const sp_text_t *t)
{
    value_t *p = arena_alloc(&f->s->arena, sizeof(value_t) * (t->nvars + 1));
    for (uint32_t i = 0; i < t->nvars; i++)
        p[i] = f->vars[t->vars[i]].v;
    return p;
}

static void param_set(void *arg, uint32_t index, const value_t *v);

/* Forgets the conditions from index w0 on (what a stored function raised and handled itself). */
static void diag_drop_from(diag_t *d, uint32_t w0)
{
    while (d->n > w0) {
        diag_cond_t *c = &d->conds[--d->n];
        mem_free(c->msg);
        c->msg = NULL;
        if (d->warn_count)
            d->warn_count--;
    }
}

/* ---------------------------------------------------------------- sinks */

/* What a statement inside a routine answers: result sets go to the client (more results follow: the CALL's
 * final OK), OKs and errors stay here (the error is in the diagnostics area). */
typedef struct fwd_sink {
    res_sink_t base;
    res_sink_t *real;
    uint64_t *affected;
} fwd_sink_t;

/* A function's frame has no sink (real is NULL): its statements return no result set (1415 at CREATE). */
static void fwd_columns(res_sink_t *k, const res_col_t *c, int n)
{
    res_sink_t *r = ((fwd_sink_t *)k)->real;
    if (r)
        r->columns(r, c, n);
}
static void fwd_row(res_sink_t *k, const res_cell_t *c)
{
    res_sink_t *r = ((fwd_sink_t *)k)->real;
    if (r)
        r->row(r, c);
}
static void fwd_rows_end(res_sink_t *k, bool more)
{
    (void)more;
    res_sink_t *r = ((fwd_sink_t *)k)->real;
    if (r)
        r->rows_end(r, true);
}
static void fwd_ok(res_sink_t *k, uint64_t affected, uint64_t last_id, const char *info, bool more)
{
    (void)last_id, (void)info, (void)more;
    *((fwd_sink_t *)k)->affected += affected;
}
static void sink_error_none(res_sink_t *k) { (void)k; }
static void sink_raw_none(res_sink_t *k, const char *p, size_t n) { (void)k, (void)p, (void)n; }
static void sink_prepared_none(res_sink_t *k, uint32_t id, const res_col_t *c, int n, uint32_t np)
{
    (void)k, (void)id, (void)c, (void)n, (void)np;
}

/* Rows captured as values (SELECT ... INTO, a cursor's OPEN, an expression with a subquery). */
typedef struct cap_sink {
    res_sink_t base;
    arena_t *a;
    res_col_t *cols;
    uint32_t ncols;
    value_t **rows;
    uint64_t nrows, cap, keep; /* keep: rows kept at most */
} cap_sink_t;

static void cap_columns(res_sink_t *k, const res_col_t *c, int n)
{
    cap_sink_t *s = (cap_sink_t *)k;
    s->ncols = (uint32_t)n;
    s->cols = arena_alloc(s->a, sizeof(res_col_t) * ((size_t)n + 1));
    memcpy(s->cols, c, sizeof(res_col_t) * (size_t)n);
}

/* A text cell back into a value of its column's type. */
static value_t cell_value(arena_t *a, const res_col_t *c, const res_cell_t *cell)
{
    if (cell->null)
        return value_null();
    char *p = arena_strndup(a, cell->p, cell->len);
    switch (c->type) {
    case SQL_TYPE_TINY: case SQL_TYPE_SHORT: case SQL_TYPE_LONG: case SQL_TYPE_LONGLONG: case SQL_TYPE_INT24:
    case SQL_TYPE_YEAR:
        if (c->flags & SQL_FLAG_UNSIGNED)
            return value_uint(strtoull(p, NULL, 10));
        return value_int(strtoll(p, NULL, 10));
    case SQL_TYPE_FLOAT: case SQL_TYPE_DOUBLE:
        return value_double(strtod(p, NULL));
    case SQL_TYPE_NEWDECIMAL: case SQL_TYPE_DECIMAL:
        return value_decimal(a, p, cell->len);
    default: {
        value_t v = value_str(p, cell->len, c->charset == CHARSET_BINARY ? COLL_BINARY : COLL_UTF8MB4_GENERAL_CI);
        return v;
    }
    }
}

static void cap_row(res_sink_t *k, const res_cell_t *cells)
{
    cap_sink_t *s = (cap_sink_t *)k;
    if (s->nrows++ >= s->keep)
        return;
    if (s->nrows > s->cap) {
        uint64_t nc = s->cap ? s->cap * 2 : 16;
        value_t **nr = arena_alloc(s->a, sizeof(value_t *) * nc);
        if (s->cap)
            memcpy(nr, s->rows, sizeof(value_t *) * s->cap);
        s->rows = nr;
        s->cap = nc;
    }
    value_t *r = arena_alloc(s->a, sizeof(value_t) * (s->ncols + 1));
    for (uint32_t i = 0; i < s->ncols; i++)
        r[i] = cell_value(s->a, &s->cols[i], &cells[i]);
    s->rows[s->nrows - 1] = r;
}

static void cap_rows_end(res_sink_t *k, bool more) { (void)k, (void)more; }
static void cap_ok(res_sink_t *k, uint64_t a, uint64_t l, const char *i, bool m) { (void)k, (void)a, (void)l, (void)i, (void)m; }

static void cap_init(cap_sink_t *c, arena_t *a, uint64_t keep)
{
    memset(c, 0, sizeof *c);
    c->base.columns = cap_columns;
    c->base.row = cap_row;
    c->base.rows_end = cap_rows_end;
    c->base.ok = cap_ok;
    c->base.error = sink_error_none;
    c->base.raw = sink_raw_none;
    c->base.prepared = sink_prepared_none;
    c->a = a;
    c->keep = keep;
}

/* ---------------------------------------------------------------- statements and expressions */

static bool stmt_has_result(sql_stmt_kind_t k) { return k == SQL_STMT_SELECT || k == SQL_STMT_SHOW || k == SQL_STMT_EXPLAIN; }

/* Parses text (a statement of the body, its variables `?`) and runs it into sink. */
static int run_text(sp_frame_t *f, const sp_text_t *t, res_sink_t *sink)
{
    session_t *s = f->s;
    sql_stmt_list_t l;
    diag_t *d = &s->diag;
    if (sql_parse_mode(&s->arena, t->text, t->len, session_parse_mode(s), &l, d) != 0 || l.n != 1)
        return SP_ERR;
    /* a variable's placeholder keeps the variable's name (a select item's column name, MariaDB's) */
    const sql_stmt_t *st = l.stmts[0];
    if (st->kind == SQL_STMT_SELECT && st->select && st->nparams) {
        for (uint32_t i = 0; i < st->select->nitems; i++) {
            sql_expr_t *e = st->select->items[i].expr;
            if (st->select->items[i].alias || !e->src || e == st->params[0] || e->kind == SQL_E_PARAM)
                continue;
            buf_t b;
            buf_init(&b);
            const char *q = e->src, *end = e->src + e->src_len;
            for (uint32_t k = 0; k < st->nparams && k < t->nvars; k++) {
                const char *ps = st->params[k]->src;
                if (!ps || ps < q || ps >= end)
                    continue;
                buf_append(&b, q, (size_t)(ps - q));
                buf_append_str(&b, f->body->vars[t->vars[k]].name);
                q = ps + 1;
            }
            if (q != e->src) {
                buf_append(&b, q, (size_t)(end - q));
                e->src = arena_strndup(&s->arena, (const char *)b.data, b.len);
                e->src_len = (uint32_t)b.len;
            }
            buf_free(&b);
        }
    }
    for (uint32_t i = 0; i < st->nparams && i < t->nvars; i++) {
        st->params[i]->src = f->body->vars[t->vars[i]].name;
        st->params[i]->src_len = (uint32_t)strlen(st->params[i]->src);
    }
    value_t *p = text_params(f, t);
    const sp_text_t *cur = f->cur_text;
    f->cur_text = t;
    /* an integer variable's wire type, so that SELECT v declares it as MariaDB does (INT: LONG) */
    uint16_t *types = arena_alloc(&s->arena, sizeof(uint16_t) * (t->nvars + 1));
    for (uint32_t i = 0; i < t->nvars; i++) {
        const sql_type_t *ty = &f->body->vars[t->vars[i]].type;
        static const uint16_t wire[] = {[SQL_T_TINYINT] = SQL_TYPE_TINY, [SQL_T_SMALLINT] = SQL_TYPE_SHORT,
                                        [SQL_T_MEDIUMINT] = SQL_TYPE_INT24, [SQL_T_INT] = SQL_TYPE_LONG,
                                        [SQL_T_BIGINT] = SQL_TYPE_LONGLONG};
        types[i] = ty->kind <= SQL_T_BIGINT && !ty->is_bool ? (uint16_t)(wire[ty->kind] | (ty->is_unsigned ? 0x8000 : 0)) : 0;
    }
    int rc = session_sp_stmt(s, l.stmts[0], p, types, t->nvars, param_set, f, sink, true);
    f->cur_text = cur;
    return rc || diag_failed(d) ? SP_ERR : SP_OK;
}

/* An expression's value (in the scratch arena); with a subquery it runs as a SELECT. */
/* An expression of the body; assign: its value goes into a variable (SET, DECLARE ... DEFAULT, RETURN), where
 * x/0 under strict mode with ERROR_FOR_DIVISION_BY_ZERO is error 1365 as in a table's column (MariaDB). */
static int eval_value(sp_frame_t *f, const sp_text_t *t, value_t *out, bool assign)
{
    session_t *s = f->s;
    if (!t->has_query) {
        value_t *p = text_params(f, t);
        int rc = session_sp_eval(s, t->expr, p, t->nvars, assign, out);
        return rc || diag_failed(&s->diag) ? SP_ERR : SP_OK;
    }
    sp_text_t q = *t;
    q.text = arena_printf(&s->arena, "SELECT %.*s", (int)t->len, t->text);
    q.len = strlen(q.text);
    cap_sink_t c;
    cap_init(&c, &s->arena, 1);
    if (run_text(f, &q, &c.base))
        return SP_ERR;
    *out = c.nrows && c.ncols ? c.rows[0][0] : value_null();
    return SP_OK;
}

static int eval_text(sp_frame_t *f, const sp_text_t *t, value_t *out) { return eval_value(f, t, out, false); }

static int eval_bool(sp_frame_t *f, const sp_text_t *t, bool *out)
{
    value_t v;
    if (eval_text(f, t, &v))
        return SP_ERR;
    *out = v.type != VAL_NULL && value_to_bool(&v, &f->s->diag);
    return diag_failed(&f->s->diag) ? SP_ERR : SP_OK;
}

static int assign_target(sp_frame_t *f, const sp_target_t *t, const value_t *v)
{
    if (t->var < 0) {
        session_sp_uservar_set(f->s, t->uservar, v);
        return SP_OK;
    }
    return var_set(f, (uint32_t)t->var, v);
}

static int do_sql(sp_frame_t *f, const sp_node_t *n)
{
    session_t *s = f->s;
    if (n->ninto) {
        cap_sink_t c;
        cap_init(&c, &s->arena, 1);
        s->sp_into = true; /* its values go into variables: x/0 is 1365 under strict mode (exec.c sqlx_ctx) */
        int rrc = run_text(f, n->stmt, &c.base);
        s->sp_into = false;
        if (rrc)
            return SP_ERR;
        if (c.nrows == 0) {
            diag_warn(&s->diag, ER_SP_FETCH_NO_DATA);
            return SP_OK;
        }
        if (c.nrows > 1) {
            diag_error(&s->diag, ER_TOO_MANY_ROWS);
            return SP_ERR;
        }
        if (c.ncols != n->ninto) {
            diag_error(&s->diag, ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT);
            return SP_ERR;
        }
        for (uint32_t i = 0; i < n->ninto; i++)
            if (assign_target(f, &n->into[i], &c.rows[0][i]))
                return SP_ERR;
        f->affected++;
        return SP_OK;
    }
    if (stmt_has_result(n->stmt_kind) && !s->multi_results) {
        diag_error(&s->diag, ER_SP_BADSELECT, f->qname);
        return SP_ERR;
    }
    fwd_sink_t k = {.base = {.columns = fwd_columns, .row = fwd_row, .rows_end = fwd_rows_end, .ok = fwd_ok,
                             .error = sink_error_none, .raw = sink_raw_none, .prepared = sink_prepared_none,
                             .binary = f->sink && f->sink->binary},
                    .real = f->sink, .affected = &f->affected};
    return run_text(f, n->stmt, &k.base);
}

/* ---------------------------------------------------------------- conditions */

static void cond_of_diag(session_t *s, sp_cond_info_t *c, const diag_cond_t *dc)
{
    memset(c, 0, sizeof *c);
    c->code = dc->code;
    memcpy(c->state, dc->sqlstate, 6);
    c->state[5] = 0;
    snprintf(c->msg, sizeof c->msg, "%s", dc->msg ? dc->msg : "");
    c->warning = dc->level != DIAG_ERROR;
    (void)s;
}

static int match_quality(const sp_cond_t *hc, const sp_cond_info_t *c)
{
    switch (hc->kind) {
    case SP_COND_ERRNO: return hc->err == c->code ? 3 : 0;
    case SP_COND_STATE: return strcmp(hc->state, c->state) == 0 ? 2 : 0;
    /* by level, as MariaDB matches them: a warning of any SQLSTATE is an SQLWARNING */
    case SP_COND_WARNING:
        return strncmp(c->state, "01", 2) == 0 || (c->warning && strncmp(c->state, "02", 2) != 0) ? 1 : 0;
    case SP_COND_NOT_FOUND: return strncmp(c->state, "02", 2) == 0 ? 1 : 0;
    case SP_COND_EXCEPTION:
        return !c->warning && strncmp(c->state, "01", 2) != 0 && strncmp(c->state, "02", 2) != 0 ? 1 : 0;
    }
    return 0;
}

/* The handler for c: the innermost block's best match; -1 when none */
static int find_handler(sp_frame_t *f, const sp_cond_info_t *c)
{
    int best = -1, bq = 0;
    uint32_t level = 0;
    for (uint32_t i = f->nh; i-- > 0;) {
        if (i >= f->ex_lo && i < f->ex_hi)
            continue;
        if (best >= 0 && f->hstack[i].level != level)
            break;
        const sp_node_t *h = f->hstack[i].h;
        for (uint32_t k = 0; k < h->ncond; k++) {
            int q = match_quality(&h->cond_list[k], c);
            if (q > bq) {
                bq = q;
                best = (int)i;
                level = f->hstack[i].level;
            }
        }
    }
    return best;
}

static int exec_list(sp_frame_t *f, const sp_list_t *l);

/* Runs handler hi for condition c; the handler's own block's handlers do not see what it raises. */
static int run_handler(sp_frame_t *f, int hi, const sp_cond_info_t *c)
{
    const sp_handler_ent_t *e = &f->hstack[hi];
    diag_clear(&f->s->diag);
    uint32_t lo = f->ex_lo, hi0 = f->ex_hi, j = (uint32_t)hi, k = (uint32_t)hi + 1;
    while (j > 0 && f->hstack[j - 1].level == e->level)
        j--;
    while (k < f->nh && f->hstack[k].level == e->level)
        k++;
    f->ex_lo = j;
    f->ex_hi = k;
    if (f->nhconds < ARRAY_LEN(f->hconds))
        f->hconds[f->nhconds] = *c;
    f->nhconds++;
    int rc = exec_list(f, &e->h->body);
    f->nhconds--;
    f->ex_lo = lo;
    f->ex_hi = hi0;
    if (rc == SP_OK && e->h->exit_handler) {
        f->target = e->block;
        return SP_R_LEAVE;
    }
    return rc;
}

/* After a statement: its error, or a warning it raised (from index w0 of the diagnostics area), to a handler. */
static int after_stmt(sp_frame_t *f, const sp_node_t *n, int rc, uint32_t w0)
{
    diag_t *d = &f->s->diag;
    if (rc == SP_ERR) {
        if (!d->error)
            return SP_ERR;
        sp_cond_info_t c;
        cond_of_diag(f->s, &c, d->error);
        int hi = find_handler(f, &c);
        if (hi >= 0)
            return run_handler(f, hi, &c);
        if (!f->err_line)
            f->err_line = n->line;
        return SP_ERR;
    }
    if (rc != SP_OK || f->nh == 0)
        return rc;
    for (uint32_t i = d->n; i-- > w0;) {
        if (i >= d->n || d->conds[i].level != DIAG_WARNING)
            continue;
        sp_cond_info_t c;
        cond_of_diag(f->s, &c, &d->conds[i]);
        int hi = find_handler(f, &c);
        if (hi >= 0)
            return run_handler(f, hi, &c);
    }
    return SP_OK;
}

/* SIGNAL / RESIGNAL: the condition raised as MariaDB builds it (class 01 a warning, else an error) */
static int do_signal(sp_frame_t *f, const sp_node_t *n)
{
    session_t *s = f->s;
    sp_cond_info_t c = {0};
    if (n->kind == SP_RESIGNAL) {
        if (!f->nhconds) {
            diag_error(&s->diag, ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER);
            return SP_ERR;
        }
        c = f->hconds[MIN(f->nhconds, ARRAY_LEN(f->hconds)) - 1];
    }
    if (n->has_cond) {
        memcpy(c.state, n->sig.state, 6);
        c.warning = strncmp(c.state, "01", 2) == 0;
        bool nf = strncmp(c.state, "02", 2) == 0;
        c.code = c.warning ? ER_SIGNAL_WARN : nf ? ER_SIGNAL_NOT_FOUND : ER_SIGNAL_EXCEPTION;
        snprintf(c.msg, sizeof c.msg, "%s", errors_format(c.code));
    }
    for (uint32_t i = 0; i < n->nitems; i++) {
        value_t v;
        if (eval_text(f, n->item_vals[i], &v))
            return SP_ERR;
        if (n->item_kind[i] == SP_DI_MESSAGE_TEXT) {
            size_t len;
            const char *t = v.type == VAL_NULL ? "" : value_to_text(&s->arena, &v, &len);
            snprintf(c.msg, sizeof c.msg, "%s", t);
        } else if (n->item_kind[i] == SP_DI_MYSQL_ERRNO) {
            int64_t e = v.type == VAL_NULL ? 0 : value_to_int(&v, NULL);
            if (e <= 0 || e > 65534) {
                diag_error(&s->diag, ER_WRONG_VALUE_FOR_VAR, "MYSQL_ERRNO", v.type == VAL_NULL ? "NULL" : value_to_text(&s->arena, &v, &(size_t){0}));
                return SP_ERR;
            }
            c.code = (uint16_t)e;
        }
    }
    diag_push_msg(&s->diag, c.warning ? DIAG_WARNING : DIAG_ERROR, c.code, c.msg);
    /* the condition's own SQLSTATE, not the error number's */
    if (s->diag.n) {
        memcpy(s->diag.conds[s->diag.n - 1].sqlstate, c.state, 6);
    }
    if (!c.warning && s->diag.error)
        memcpy(((diag_cond_t *)s->diag.error)->sqlstate, c.state, 6);
    return c.warning ? SP_OK : SP_ERR;
}

static int do_get_diag(sp_frame_t *f, const sp_node_t *n)
{
    session_t *s = f->s;
    sp_cond_info_t c = {0};
    bool in_handler = f->nhconds > 0;
    uint32_t number = in_handler ? 1 : s->diag.n;
    if (n->diag_condition) {
        value_t v;
        if (eval_text(f, n->diag_number, &v))
            return SP_ERR;
        int64_t k = v.type == VAL_NULL ? 0 : value_to_int(&v, NULL);
        if (k < 1 || (uint64_t)k > number) {
            diag_error(&s->diag, ER_DA_INVALID_CONDITION_NUMBER);
            return SP_ERR;
        }
        if (in_handler)
            c = f->hconds[MIN(f->nhconds, ARRAY_LEN(f->hconds)) - 1];
        else
            cond_of_diag(s, &c, &s->diag.conds[k - 1]);
    }
    for (uint32_t i = 0; i < n->ninto; i++) {
        value_t v = value_str("", 0, COLL_UTF8MB4_GENERAL_CI);
        switch (n->into[i].item) {
        case SP_DI_NUMBER: v = value_uint(number); break;
        case SP_DI_ROW_COUNT: v = value_int(s->row_count); break;
        case SP_DI_MYSQL_ERRNO: v = value_uint(c.code); break;
        case SP_DI_MESSAGE_TEXT: v = value_str(arena_strdup(&s->arena, c.msg), strlen(c.msg), COLL_UTF8MB4_GENERAL_CI); break;
        case SP_DI_RETURNED_SQLSTATE: v = value_str(arena_strdup(&s->arena, c.state), strlen(c.state), COLL_UTF8MB4_GENERAL_CI); break;
        case SP_DI_CLASS_ORIGIN: case SP_DI_SUBCLASS_ORIGIN:
            if (c.code) {
                const char *o = c.state[0] >= '0' && c.state[0] <= '4' ? "ISO 9075" : "MySQL";
                v = value_str(o, strlen(o), COLL_UTF8MB4_GENERAL_CI);
            }
            break;
        default: break;
        }
        if (assign_target(f, &n->into[i], &v))
            return SP_ERR;
    }
    return SP_OK;
}

/* ---------------------------------------------------------------- cursors */

static int do_open(sp_frame_t *f, const sp_node_t *n, const sp_text_t *q)
{
    sp_cursor_t *c = &f->cursors[n->cursor];
    if (c->open) {
        diag_error(&f->s->diag, ER_SP_CURSOR_ALREADY_OPEN);
        return SP_ERR;
    }
    arena_init(&c->arena, 4096);
    cap_sink_t k;
    cap_init(&k, &c->arena, UINT64_MAX);
    if (run_text(f, q, &k.base)) {
        arena_destroy(&c->arena);
        return SP_ERR;
    }
    c->open = true;
    c->rows = k.rows;
    c->nrows = k.nrows;
    c->ncols = k.ncols;
    c->pos = 0;
    return SP_OK;
}

static void cursor_close(sp_cursor_t *c)
{
    if (c->open)
        arena_destroy(&c->arena);
    c->open = false;
}

static int do_fetch(sp_frame_t *f, const sp_node_t *n)
{
    sp_cursor_t *c = &f->cursors[n->cursor];
    if (!c->open) {
        diag_error(&f->s->diag, ER_SP_CURSOR_NOT_OPEN);
        return SP_ERR;
    }
    if (c->pos >= c->nrows) {
        diag_error(&f->s->diag, ER_SP_FETCH_NO_DATA);
        return SP_ERR;
    }
    if (c->ncols != n->ninto) {
        diag_error(&f->s->diag, ER_SP_WRONG_NO_OF_FETCH_ARGS);
        return SP_ERR;
    }
    const value_t *row = c->rows[c->pos++];
    for (uint32_t i = 0; i < n->ninto; i++)
        if (assign_target(f, &n->into[i], &row[i]))
            return SP_ERR;
    return SP_OK;
}

/* ---------------------------------------------------------------- the tree */

static int exec_node(sp_frame_t *f, const sp_node_t *n);

static int exec_list(sp_frame_t *f, const sp_list_t *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (atomic_load(&f->s->kill_query)) {
            diag_error(&f->s->diag, ER_QUERY_INTERRUPTED);
            return SP_ERR;
        }
        if (l->items[i]->kind == SP_SQL)
            diag_clear(&f->s->diag); /* a statement starts with an empty diagnostics area */
        uint32_t w0 = f->s->diag.n;
        int rc = after_stmt(f, l->items[i], exec_node(f, l->items[i]), w0);
        if (rc != SP_OK)
            return rc;
    }
    return SP_OK;
}

static int exec_block(sp_frame_t *f, const sp_node_t *n)
{
    uint32_t nh0 = f->nh;
    f->level++;
    int rc = SP_OK;
    for (uint32_t i = 0; i < n->body.n && rc == SP_OK; i++) {
        const sp_node_t *it = n->body.items[i];
        if (it->kind == SP_DECLARE_HANDLER) {
            if (f->nh < ARRAY_LEN(f->hstack))
                f->hstack[f->nh++] = (sp_handler_ent_t){it, n, f->level};
            continue;
        }
        if (atomic_load(&f->s->kill_query)) {
            diag_error(&f->s->diag, ER_QUERY_INTERRUPTED);
            rc = SP_ERR;
            break;
        }
        if (it->kind == SP_SQL)
            diag_clear(&f->s->diag);
        uint32_t w0 = f->s->diag.n;
        rc = after_stmt(f, it, exec_node(f, it), w0);
    }
    /* the block's cursors close with it */
    for (uint32_t i = 0; i < n->body.n; i++)
        if (n->body.items[i]->kind == SP_DECLARE_CURSOR)
            cursor_close(&f->cursors[n->body.items[i]->cursor]);
    f->nh = nh0;
    f->level--;
    if (rc == SP_R_LEAVE && f->target == n)
        rc = SP_OK;
    return rc;
}

static int leaf(sp_frame_t *f, const sp_node_t *n)
{
    int rc = SP_OK;
    scratch_begin(f);
    switch (n->kind) {
    case SP_DECLARE_VAR: {
        value_t v = value_null();
        if (n->expr)
            rc = eval_value(f, n->expr, &v, true);
        for (uint32_t i = 0; i < n->nvars && rc == SP_OK; i++)
            rc = var_set(f, n->first + i, &v);
        break;
    }
    case SP_SET: {
        value_t v;
        rc = eval_value(f, n->expr, &v, true);
        if (rc == SP_OK)
            rc = var_set(f, n->var, &v);
        break;
    }
    case SP_SQL:
        rc = do_sql(f, n);
        break;
    case SP_RETURN: {
        value_t v;
        f->ret_line = n->line;
        rc = eval_value(f, n->expr, &v, true);
        if (rc == SP_OK) {
            /* kept as it is: the caller converts it to RETURNS's type once the body's own conditions are gone
             * (sp_function_call), so a truncation is the calling statement's warning, as MariaDB's */
            value_t out = v;
            if (rc == SP_OK) {
                sp_var_t tmp = {0};
                var_put(&tmp, &out);
                mem_free(f->ret_data);
                f->ret = tmp.v;
                f->ret_data = tmp.data; /* freed with the frame */
                f->returned = true;
                rc = SP_R_RETURN;
            }
        }
        break;
    }
    case SP_OPEN:
        rc = do_open(f, n, n->stmt);
        break;
    case SP_FETCH:
        rc = do_fetch(f, n);
        break;
    case SP_CLOSE:
        if (!f->cursors[n->cursor].open) {
            diag_error(&f->s->diag, ER_SP_CURSOR_NOT_OPEN);
            rc = SP_ERR;
        } else {
            cursor_close(&f->cursors[n->cursor]);
        }
        break;
    case SP_SIGNAL: case SP_RESIGNAL:
        rc = do_signal(f, n);
        break;
    case SP_GET_DIAG:
        rc = do_get_diag(f, n);
        break;
    default:
        break;
    }
    scratch_end(f);
    return rc;
}

static int cond_leaf(sp_frame_t *f, const sp_text_t *t, bool *b)
{
    scratch_begin(f);
    int rc = eval_bool(f, t, b);
    scratch_end(f);
    return rc;
}

static int exec_node(sp_frame_t *f, const sp_node_t *n)
{
    switch (n->kind) {
    case SP_BLOCK:
        return exec_block(f, n);
    case SP_DECLARE_COND: case SP_DECLARE_HANDLER:
        return SP_OK;
    case SP_DECLARE_CURSOR:
        return SP_OK;
    case SP_IF:
        for (uint32_t i = 0; i < n->nbranches; i++) {
            bool b;
            if (cond_leaf(f, n->conds[i], &b))
                return SP_ERR;
            if (b)
                return exec_list(f, &n->bodies[i]);
        }
        return n->has_else ? exec_list(f, &n->else_body) : SP_OK;
    case SP_CASE: {
        for (uint32_t i = 0; i < n->nbranches; i++) {
            bool b;
            int rc;
            if (n->expr) {
                /* CASE v WHEN x: v = x */
                scratch_begin(f);
                value_t a, w;
                rc = eval_text(f, n->expr, &a);
                if (rc == SP_OK)
                    rc = eval_text(f, n->conds[i], &w);
                if (rc == SP_OK) {
                    int c = value_compare(&a, &w, &f->s->diag);
                    b = a.type != VAL_NULL && w.type != VAL_NULL && c == 0;
                }
                scratch_end(f);
            } else {
                rc = cond_leaf(f, n->conds[i], &b);
            }
            if (rc)
                return SP_ERR;
            if (b)
                return exec_list(f, &n->bodies[i]);
        }
        if (n->has_else)
            return exec_list(f, &n->else_body);
        diag_error(&f->s->diag, ER_SP_CASE_NOT_FOUND);
        return SP_ERR;
    }
    case SP_WHILE: case SP_REPEAT: case SP_LOOP:
        for (;;) {
            bool b = true;
            if (n->kind == SP_WHILE && cond_leaf(f, n->expr, &b))
                return SP_ERR;
            if (!b)
                return SP_OK;
            int rc = exec_list(f, &n->body);
            if (rc == SP_R_LEAVE && f->target == n)
                return SP_OK;
            if (rc == SP_R_ITERATE && f->target == n)
                continue;
            if (rc != SP_OK)
                return rc;
            if (n->kind == SP_REPEAT) {
                if (cond_leaf(f, n->expr, &b))
                    return SP_ERR;
                if (b)
                    return SP_OK;
            }
            if (atomic_load(&f->s->kill_query)) {
                diag_error(&f->s->diag, ER_QUERY_INTERRUPTED);
                return SP_ERR;
            }
        }
    case SP_LEAVE:
        f->target = n->target;
        return SP_R_LEAVE;
    case SP_ITERATE:
        f->target = n->target;
        return SP_R_ITERATE;
    default:
        return leaf(f, n);
    }
}

/* ---------------------------------------------------------------- calls */

static void param_set(void *arg, uint32_t index, const value_t *v)
{
    /* a CALL inside the routine wrote an OUT argument given as `?`: index is the placeholder of the statement
     * being run, whose variable the frame noted */
    sp_frame_t *f = arg;
    if (f->cur_text && index < f->cur_text->nvars)
        var_set(f, f->cur_text->vars[index], v);
}

struct sp_cached;
static void cached_release(struct sp_cached *c);

static void frame_free(sp_frame_t *f)
{
    if (f->vars)
        for (uint32_t i = 0; i < f->body->nvars; i++)
            mem_free(f->vars[i].data);
    if (f->cursors)
        for (uint32_t i = 0; i < f->body->ncursors; i++)
            cursor_close(&f->cursors[i]);
    mem_free(f->vars);
    mem_free(f->cursors);
    mem_free(f->ret_data);
    if (f->mode_set)
        sysvar_session_set_int(&f->s->vars, SYSVAR_SQL_MODE, f->saved_mode);
    cached_release(f->cached);
    arena_destroy(&f->scratch);
    arena_destroy(&f->arena);
}

/* A routine's sql_mode (as its names) as the session's value: the last few looked up per session, since a
 * function called for every row of a statement would read the names again each time. */
static int64_t mode_of_text(session_t *s, const char *text)
{
    for (uint32_t i = 0; i < SP_MODE_CACHE; i++)
        if (s->sp_modes[i].text && strcmp(s->sp_modes[i].text, text) == 0)
            return s->sp_modes[i].val;
    int64_t saved = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    diag_t md;
    diag_init(&md, 2);
    sysvar_set_text(&s->srv->vars, &s->vars, sysvar_def(SYSVAR_SQL_MODE), SYSVAR_SESSION, text, &md);
    diag_free(&md);
    int64_t v = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    sysvar_session_set_int(&s->vars, SYSVAR_SQL_MODE, saved);
    uint32_t k = s->sp_modes_next++ % SP_MODE_CACHE;
    mem_free(s->sp_modes[k].text);
    s->sp_modes[k].text = mem_strdup(text);
    s->sp_modes[k].val = v;
    return v;
}

/*
 * Routines as the session parsed them: a function called for every row of a statement is read from the catalog
 * and parsed once, not per call.  An entry is valid while the catalog's version is the one it was parsed at
 * (routine DDL moves it on: access/routine.c); a stale or evicted entry still running in a frame is freed when
 * its last frame ends.  The tree is read-only while it runs (a trigger's body is shared across rows the same way).
 */
typedef struct sp_cached {
    struct sp_cached *next;
    uint64_t version;
    uint32_t refs;              /* frames running it */
    bool listed;                /* in the session's list (else freed at refs 0) */
    bool is_function;
    arena_t arena;              /* r, def and the tree */
    cat_routine_t r;
    sql_routine_stmt_t *def;
} sp_cached_t;

#define SP_CACHE_MAX 32

static void cached_free(sp_cached_t *c)
{
    arena_destroy(&c->arena);
    mem_free(c);
}

static void cached_release(struct sp_cached *c)
{
    if (c && --c->refs == 0 && !c->listed)
        cached_free(c);
}

/* Unlinks every entry (connection end, or all stale): those still running are freed by their last frame. */
void sp_cache_free(session_t *s)
{
    for (sp_cached_t *c = s->sp_cache, *n; c; c = n) {
        n = c->next;
        c->listed = false;
        if (c->refs == 0)
            cached_free(c);
    }
    s->sp_cache = NULL;
}

/* The valid entry for type db.name (names as the catalog compares them), or NULL. */
static sp_cached_t *cached_find(session_t *s, bool is_function, const char *db, const char *name)
{
    uint64_t v = catalog_version(sql_exec_catalog());
    sp_cached_t **pp = &s->sp_cache;
    for (sp_cached_t *c = s->sp_cache; c; c = *pp) {
        if (c->version != v) { /* stale: some DDL since */
            *pp = c->next;
            c->listed = false;
            if (c->refs == 0)
                cached_free(c);
            continue;
        }
        if (c->is_function == is_function && strcmp(c->r.db, db) == 0 && strcasecmp(c->r.name, name) == 0)
            return c;
        pp = &c->next;
    }
    return NULL;
}

/* Loads db.name of the kind, checks EXECUTE and the recursion limits, and parses its body: 0, or an error
 * pushed. */
static int frame_open(sp_frame_t *f, session_t *s, const char *type, const char *db, const char *name)
{
    memset(f, 0, sizeof *f);
    f->s = s;
    arena_init(&f->arena, 8192);
    arena_init(&f->scratch, 8192);
    f->is_function = strcmp(type, "FUNCTION") == 0;
    /* the record and its parsed definition: the session's entry, or a new one read and parsed now */
    sp_cached_t *ce = cached_find(s, f->is_function, db, name);
    bool fresh = ce == NULL;
    if (fresh) {
        ce = mem_calloc(1, sizeof *ce);
        arena_init(&ce->arena, 8192);
        ce->version = catalog_version(sql_exec_catalog());
        ce->is_function = f->is_function;
        int ex = catalog_routine_get(sql_exec_catalog(), &ce->arena, type, db, name, &ce->r);
        if (ex <= 0) {
            cached_free(ce);
            f->qname = arena_printf(&f->arena, "%s.%s", db, name);
            return diag_error(&s->diag, ER_SP_DOES_NOT_EXIST, type, f->qname);
        }
    }
    ce->refs++; /* released by frame_free */
    f->cached = ce;
    f->r = ce->r;
    f->qname = arena_printf(&f->arena, "%s.%s", db, f->r.name);
    if (!s->system_thread && (priv_db(s, db) & PRIV_EXECUTE) == 0)
        return diag_error(&s->diag, ER_PROCACCESS_DENIED_ERROR, "execute", s->priv_user, s->priv_host, f->qname);
    uint32_t depth = 0, active = 0;
    for (sp_frame_t *u = s->sp_frame; u; u = u->up) {
        depth++;
        if (u->is_function == f->is_function && strcmp(u->r.db, f->r.db) == 0 && strcasecmp(u->r.name, f->r.name) == 0)
            active++;
    }
    if (f->is_function && active) {
        diag_error(&s->diag, ER_SP_NO_RECURSION);
        return diag_error(&s->diag, ER_SP_DOES_NOT_EXIST, type, f->qname); /* MariaDB says both */
    }
    uint64_t limit = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MAX_SP_RECURSION_DEPTH);
    if (!f->is_function && (active > limit || depth >= SP_MAX_FRAMES))
        return diag_error(&s->diag, ER_SP_RECURSION_LIMIT, (int)limit, f->r.name);
    /* it runs (and its body parses) under the sql_mode it was created with, as MariaDB's routines do */
    if (f->r.sql_mode) {
        f->saved_mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
        f->mode_set = true;
        sysvar_session_set_int(&s->vars, SYSVAR_SQL_MODE, mode_of_text(s, f->r.sql_mode));
    }
    if (fresh) {
        /* the definition parsed again: CREATE's header around the stored parameter list and body */
        int pad = atoi(f->r.body_line) - 1;
        for (const char *q = f->r.params; *q; q++)
            pad -= *q == '\n';
        char *nl = arena_alloc(&ce->arena, (size_t)(pad > 0 ? pad : 0) + 1);
        memset(nl, '\n', (size_t)(pad > 0 ? pad : 0));
        nl[pad > 0 ? pad : 0] = 0;
        const char *text = f->is_function ? arena_printf(&ce->arena, "CREATE FUNCTION x(%s) RETURNS %s %s%s",
                                                         f->r.params, f->r.returns, nl, f->r.body)
                                          : arena_printf(&ce->arena, "CREATE PROCEDURE x(%s) %s%s", f->r.params, nl,
                                                         f->r.body);
        sql_stmt_list_t l;
        diag_t scratch;
        diag_init(&scratch, 4);
        int rc = sql_parse_mode(&ce->arena, text, strlen(text), session_parse_mode(s), &l, &scratch);
        if (rc || l.n != 1 || !l.stmts[0]->routine) {
            diag_push_msg(&s->diag, DIAG_ERROR, scratch.error_code ? scratch.error_code : ER_PARSE_ERROR,
                          scratch.error ? scratch.error->msg : "the stored routine does not parse");
            diag_free(&scratch);
            return -ER_PARSE_ERROR; /* the entry, never listed, goes with the frame */
        }
        diag_free(&scratch);
        ce->def = l.stmts[0]->routine;
        uint32_t n = 0;
        for (sp_cached_t *c = s->sp_cache; c; c = c->next)
            n++;
        if (n >= SP_CACHE_MAX) /* a session calling many routines: start over */
            sp_cache_free(s);
        ce->listed = true;
        ce->next = s->sp_cache;
        s->sp_cache = ce;
    }
    f->def = ce->def;
    f->body = f->def->body;
    f->vars = mem_calloc(f->body->nvars + 1, sizeof(sp_var_t));
    f->cursors = mem_calloc(f->body->ncursors + 1, sizeof(sp_cursor_t));
    int64_t mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    f->strict = (mode & (3ll << 21)) != 0;
    return 0;
}

/* Runs the body with the routine's database current (MariaDB: a routine runs in its own database). */
static int frame_run(sp_frame_t *f)
{
    session_t *s = f->s;
    char *own = s->db;
    s->db = mem_strdup(f->r.db);
    f->up = s->sp_frame;
    s->sp_frame = f;
    uint32_t w0 = s->diag.n;
    int rc = after_stmt(f, f->body->root, exec_node(f, f->body->root), w0);
    s->sp_frame = f->up;
    mem_free(s->db);
    s->db = own;
    if (rc == SP_R_LEAVE || rc == SP_R_ITERATE || rc == SP_R_RETURN)
        rc = SP_OK;
    if (rc == SP_ERR && f->err_line) /* where it stopped, one note per routine left (MariaDB) */
        diag_note(&s->diag, ER_SP_STACK_TRACE, f->err_line, f->qname);
    return rc;
}

int sp_call(session_t *s, const sql_call_stmt_t *c, const value_t *args, const bool *is_var, sp_param_set_fn out,
            void *out_arg, res_sink_t *sink, bool more)
{
    const char *db = c->name.db ? c->name.db : s->db;
    if (!db)
        return diag_error(&s->diag, ER_NO_DB_ERROR);
    sp_frame_t *f = mem_calloc(1, sizeof *f);
    int rc = frame_open(f, s, "PROCEDURE", db, c->name.name);
    if (!rc && f->def->nparams != c->nargs)
        rc = diag_error(&s->diag, ER_SP_WRONG_NO_OF_ARGS, "PROCEDURE", f->qname, f->def->nparams, c->nargs);
    for (uint32_t i = 0; !rc && i < c->nargs; i++) {
        const sql_routine_param_t *p = &f->def->params[i];
        if (p->mode != SQL_PARAM_IN && !is_var[i]) {
            rc = diag_error(&s->diag, ER_SP_NOT_VAR_ARG, i + 1, f->qname);
            break;
        }
        if (p->mode != SQL_PARAM_OUT) {
            scratch_begin(f);
            if (arg_set(f, i, &args[i]))
                rc = -s->diag.error_code;
            scratch_end(f);
        }
    }
    if (!rc) {
        f->sink = sink;
        rc = frame_run(f) == SP_OK ? 0 : -(s->diag.error_code ? s->diag.error_code : ER_UNKNOWN_ERROR);
    }
    if (!rc)
        for (uint32_t i = 0; i < c->nargs; i++)
            if (f->def->params[i].mode != SQL_PARAM_IN)
                out(out_arg, i, &f->vars[i].v);
    uint64_t affected = f->affected;
    frame_free(f);
    mem_free(f);
    if (rc)
        return rc;
    sink->ok(sink, affected, 0, NULL, more);
    return 0;
}

int sp_function_call(session_t *s, const sql_expr_t *call, const value_t *args, uint32_t nargs, arena_t *a,
                     bool nested, value_t *out)
{
    /* the name as written: [db.]name */
    const char *nm = call->func.name;
    if (call->src && call->src_len) {
        size_t l = 0;
        while (l < call->src_len && call->src[l] != '(' && call->src[l] != ' ')
            l++;
        nm = arena_strndup(a, call->src, l);
    }
    const char *db = s->db, *name = nm;
    const char *dot = strchr(nm, '.');
    if (dot) {
        db = arena_strndup(a, nm, (size_t)(dot - nm));
        name = dot + 1;
    }
    if (!db)
        return 1;
    if (!cached_find(s, true, db, name)) { /* no function of that name: the evaluator's unknown function */
        cat_routine_t probe;
        arena_t pa;
        arena_init(&pa, 1024);
        int ex = catalog_routine_get(sql_exec_catalog(), &pa, "FUNCTION", db, name, &probe);
        arena_destroy(&pa);
        if (ex <= 0)
            return 1;
    }
    sp_frame_t *f = mem_calloc(1, sizeof *f);
    int rc = frame_open(f, s, "FUNCTION", db, name);
    if (!rc && f->def->nparams != nargs)
        rc = diag_error(&s->diag, ER_SP_WRONG_NO_OF_ARGS, "FUNCTION", f->qname, f->def->nparams, nargs);
    for (uint32_t i = 0; !rc && i < nargs; i++) {
        scratch_begin(f);
        if (arg_set(f, i, &args[i]))
            rc = -s->diag.error_code;
        scratch_end(f);
    }
    if (!rc) {
        f->sink = NULL;
        uint32_t w0 = s->diag.n;
        int fr = frame_run(f);
        if (fr == SP_OK)
            diag_drop_from(&s->diag, w0); /* a function's own warnings stay inside it */
        if (fr != SP_OK)
            rc = -(s->diag.error_code ? s->diag.error_code : ER_UNKNOWN_ERROR);
        else if (!f->returned)
            rc = diag_error(&s->diag, ER_SP_NORETURNEND, f->r.name);
    }
    if (!rc) {
        /* RETURN's value as RETURNS's type, under the routine's sql_mode; its conditions are the caller's, on
         * a column named as the call is written ("Out of range value for column 'f()' at row 0") */
        sql_store_col_t col = {.type = &f->def->returns,
                               .coll = f->def->returns.coll >= 0 ? (uint16_t)f->def->returns.coll : COLL_UTF8MB4_GENERAL_CI,
                               .name = call->src && call->src_len ? arena_strndup(a, call->src, call->src_len) : f->r.name,
                               .db = "", .table = ""};
        *out = f->ret;
        if (f->ret.type != VAL_NULL && sql_value_store(a, &col, &f->ret, f->strict, 0, &s->diag, out)) {
            rc = -(s->diag.error_code ? s->diag.error_code : ER_UNKNOWN_ERROR);
            diag_note(&s->diag, ER_SP_STACK_TRACE, f->ret_line, f->qname);
        }
        else if (out->type == VAL_STRING || out->type == VAL_DECIMAL)
            out->s.ptr = arena_strndup(a, out->s.ptr, out->s.len);
    }
    frame_free(f);
    mem_free(f);
    return rc;
}

/* ---------------------------------------------------------------- triggers */

/*
 * One trigger for one row (the executor's trigger callback, sql/exec/trigfire.c): the body parsed from the
 * record's CREATE text into a frame whose NEW.col / OLD.col variables hold the row's columns (cols names them,
 * old / nw their values, NULL for the row the event has not), run in the trigger's database.  What the body
 * assigned to NEW.col comes back in nw[c] (in a) with nw_set[c].  The statements of the body run inside the
 * statement that fired it (the executor's nested mode): their rows join its undo and binlog images.
 */
int sp_trigger_fire(session_t *s, const cat_trigger_t *tr, sql_trg_row_t *row)
{
    const char *const *cols = row->cols;
    uint32_t ncols = row->ncols;
    const value_t *old = row->old;
    value_t *nw = row->nw;
    sp_frame_t *f = mem_calloc(1, sizeof *f);
    arena_init(&f->arena, 8192);
    arena_init(&f->scratch, 8192);
    f->s = s;
    f->r.db = tr->db;
    f->r.name = tr->name;
    f->r.type = "TRIGGER";
    f->qname = arena_printf(&f->arena, "%s.%s", tr->db, tr->name);
    int rc = 0;
    uint32_t depth = 0;
    for (sp_frame_t *u = s->sp_frame; u; u = u->up)
        depth++;
    if (depth >= SP_MAX_FRAMES)
        rc = diag_error(&s->diag, ER_SP_RECURSION_LIMIT, (int)depth, tr->name);
    /* it runs (and its body parses) under the sql_mode it was created with (MariaDB keeps it with the trigger) */
    int64_t saved_mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    if (!rc) /* its names read once per session and text (mode_of_text), not per row */
        sysvar_session_set_int(&s->vars, SYSVAR_SQL_MODE, mode_of_text(s, tr->sql_mode ? tr->sql_mode : ""));
    /* the body parsed once per firing statement: the tree lives in the statement's arena (row->a), kept in the
     * executor's slot for this trigger (row->cache), read-only while it runs */
    sp_body_t *body = row->cache ? *row->cache : NULL;
    if (!rc && !body) {
        arena_t *pa = row->cache ? row->a : &f->arena;
        const char *text = arena_printf(pa, "CREATE %s", tr->create_text);
        diag_t scratch;
        diag_init(&scratch, 4);
        sql_stmt_list_t l;
        int prc = sql_parse_mode(pa, text, strlen(text), session_parse_mode(s), &l, &scratch);
        if (prc || l.n != 1 || l.stmts[0]->kind != SQL_STMT_CREATE_TRIGGER) {
            diag_push_msg(&s->diag, DIAG_ERROR, scratch.error_code ? scratch.error_code : ER_PARSE_ERROR,
                          scratch.error ? scratch.error->msg : "the trigger does not parse");
            rc = -ER_PARSE_ERROR;
        } else {
            body = l.stmts[0]->trigger->body;
            if (row->cache)
                *row->cache = body;
        }
        diag_free(&scratch);
    }
    if (!rc) {
        f->body = body;
        f->vars = mem_calloc(f->body->nvars + 1, sizeof(sp_var_t));
        f->cursors = mem_calloc(f->body->ncursors + 1, sizeof(sp_cursor_t));
        int64_t mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
        f->strict = (mode & (3ll << 21)) != 0;
    }
    /* NEW.col / OLD.col: each reference's column */
    uint32_t *colof = NULL;
    if (!rc) {
        f->trg = row;
        f->row_col = arena_calloc(&f->arena, sizeof(uint32_t) * (f->body->nvars + 1));
        f->row_assigned = arena_calloc(&f->arena, sizeof(bool) * (f->body->nvars + 1));
        colof = arena_alloc(&f->arena, sizeof(uint32_t) * (f->body->ntrig_refs + 1));
        for (uint32_t i = 0; i < f->body->ntrig_refs && !rc; i++) {
            const sp_trig_ref_t *r = &f->body->trig_refs[i];
            uint32_t c = 0;
            while (c < ncols && strcasecmp(cols[c], r->column) != 0)
                c++;
            if (c == ncols || (r->is_new ? !nw : !old)) { /* a column dropped since CREATE */
                rc = diag_error(&s->diag, ER_BAD_FIELD_ERROR, r->column, r->is_new ? "NEW" : "OLD");
                diag_note(&s->diag, ER_SP_STACK_TRACE, (unsigned)atoi(tr->body_line), f->qname);
                break;
            }
            colof[i] = c;
            f->row_col[r->var] = c;
            var_put(&f->vars[r->var], r->is_new ? &nw[c] : &old[c]);
        }
    }
    cap_sink_t cap;
    cap_init(&cap, &f->arena, 0);
    /* the body runs with its definer's privileges (MariaDB's triggers are SQL SECURITY DEFINER), who needs
     * TRIGGER on the table; CURRENT_USER() is the definer meanwhile */
    bool as_definer = !rc && s->srv->acl && !s->system_thread;
    char saved_user[sizeof s->priv_user], saved_host[sizeof s->priv_host], saved_role[sizeof s->role];
    struct acl_privs *saved_privs = s->privs;
    uint64_t saved_version = s->privs_version;
    if (as_definer) {
        memcpy(saved_user, s->priv_user, sizeof saved_user);
        memcpy(saved_host, s->priv_host, sizeof saved_host);
        memcpy(saved_role, s->role, sizeof saved_role);
        snprintf(s->priv_user, sizeof s->priv_user, "%s", tr->definer_user);
        snprintf(s->priv_host, sizeof s->priv_host, "%s", tr->definer_host);
        s->role[0] = 0;
        s->privs = NULL;
        s->privs_version = 0;
        int prc = priv_check_table(s, tr->db, tr->table, PRIV_TRIGGER);
        if (prc)
            rc = prc < 0 ? prc : diag_error(&s->diag, ER_TABLEACCESS_DENIED_ERROR, "TRIGGER", s->priv_user,
                                            s->priv_host, tr->table);
    }
    /* LAST_INSERT_ID() comes back as it was when the trigger ends (MariaDB) */
    uint64_t saved_last_id = s->last_insert_id;
    if (!rc) {
        f->sink = &cap.base;
        uint32_t w0 = s->diag.n;
        rc = frame_run(f) == SP_OK ? 0 : -(s->diag.error_code ? s->diag.error_code : ER_UNKNOWN_ERROR);
        if (!rc)
            diag_drop_from(&s->diag, w0); /* a trigger's own warnings stay inside it (MariaDB) */
    }
    sysvar_session_set_int(&s->vars, SYSVAR_SQL_MODE, saved_mode);
    s->last_insert_id = saved_last_id;
    if (as_definer) {
        priv_session_reset(s); /* the definer's resolved privileges */
        memcpy(s->priv_user, saved_user, sizeof saved_user);
        memcpy(s->priv_host, saved_host, sizeof saved_host);
        memcpy(s->role, saved_role, sizeof saved_role);
        s->privs = saved_privs;
        s->privs_version = saved_version;
    }
    if (!rc)
        for (uint32_t i = 0; i < f->body->ntrig_refs; i++) {
            const sp_trig_ref_t *r = &f->body->trig_refs[i];
            if (!r->is_new || !r->assigned || !f->row_assigned[r->var])
                continue;
            value_t v = f->vars[r->var].v;
            if (v.type == VAL_STRING || v.type == VAL_DECIMAL)
                v.s.ptr = arena_strndup(row->a, v.s.ptr, v.s.len);
            nw[colof[i]] = v;
            row->nw_set[colof[i]] = true;
        }
    frame_free(f);
    mem_free(f);
    return rc;
}

/* ---------------------------------------------------------------- events */

/* An event's body: parsed as a procedure's without parameters, run in the event's database with the session's
 * privileges (the scheduler made it its definer's) and sql_mode (the event's); its results go nowhere. */
int sp_event_run(session_t *s, const char *db, const char *name, const char *body)
{
    sp_frame_t *f = mem_calloc(1, sizeof *f);
    arena_init(&f->arena, 8192);
    arena_init(&f->scratch, 8192);
    f->s = s;
    f->r.db = arena_strdup(&f->arena, db);
    f->r.name = arena_strdup(&f->arena, name);
    f->r.type = "EVENT";
    f->qname = arena_printf(&f->arena, "%s.%s", db, name);
    int rc = 0;
    const char *text = arena_printf(&f->arena, "CREATE PROCEDURE x() %s", body);
    sql_stmt_list_t l;
    diag_t scratch;
    diag_init(&scratch, 4);
    int prc = sql_parse_mode(&f->arena, text, strlen(text), session_parse_mode(s), &l, &scratch);
    if (prc || l.n != 1 || !l.stmts[0]->routine) {
        diag_push_msg(&s->diag, DIAG_ERROR, scratch.error_code ? scratch.error_code : ER_PARSE_ERROR,
                      scratch.error ? scratch.error->msg : "the event's body does not parse");
        rc = -ER_PARSE_ERROR;
    }
    diag_free(&scratch);
    if (!rc) {
        f->def = l.stmts[0]->routine;
        f->body = f->def->body;
        f->vars = mem_calloc(f->body->nvars + 1, sizeof(sp_var_t));
        f->cursors = mem_calloc(f->body->ncursors + 1, sizeof(sp_cursor_t));
        int64_t mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
        f->strict = (mode & (3ll << 21)) != 0;
        cap_sink_t cap;
        cap_init(&cap, &f->arena, 0);
        f->sink = &cap.base;
        rc = frame_run(f) == SP_OK ? 0 : -(s->diag.error_code ? s->diag.error_code : ER_UNKNOWN_ERROR);
    }
    frame_free(f);
    mem_free(f);
    return rc;
}
