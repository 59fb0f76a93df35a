/*
 * Window functions: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE,
 * LAST_VALUE, NTH_VALUE and the aggregates with OVER (...), over PARTITION BY / ORDER BY windows with ROWS and
 * RANGE frames and named windows (WINDOW w AS (...)), as MariaDB 10.11 computes them.
 *
 * They are computed after WHERE, GROUP BY and HAVING and before DISTINCT, ORDER BY and LIMIT.  The SELECT
 * runs as usual, but each row (or, with GROUP BY, each group that passed HAVING) is kept here instead of being
 * output (win_collect).  Then, per call, every kept unit's partition key, order key and arguments are
 * evaluated, the units are sorted by (partition, order, arrival), and the call's value is computed for each
 * unit over its partition and frame.  Last, every unit goes through the output path again (win_finish), where
 * the select list and ORDER BY read the calls' values (window_get).  Everything is kept in memory: a window
 * pass has no spill to disk (tmp_table_size does not bound it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sql/exec/query_int.h"
#include "util/util.h"

enum { WIN_COLLECT = 1, WIN_EMIT = 2 };

typedef struct win_run {
    int phase;
    uint64_t n, cap;
    value_t **rows;           /* per unit: the combined row (a group's representative row) */
    group_t **groups;         /* per unit with GROUP BY: the group; NULL otherwise */
    value_t **vals;           /* vals[k][unit]: call k's value */
    uint64_t cur;             /* the unit being output */
} win_run_t;

/* What a call is computed over, its named window merged in. */
typedef struct win_spec {
    sql_expr_t **partition;
    uint32_t npartition;
    const sql_order_item_t *order;
    uint32_t norder;
    sql_frame_unit_t unit;
    sql_frame_bound_t start, end;
} win_spec_t;

typedef struct unit_key {
    uint64_t unit;
    buf_t pkey, okey;
    value_t ord;              /* the first ORDER BY value (RANGE offsets) */
} unit_key_t;

bool win_collecting(const select_run_t *s)
{
    return s->win && s->win->phase == WIN_COLLECT;
}

int win_begin(select_run_t *s)
{
    if (!s->q.nwin)
        return 0;
    s->win = arena_calloc(s->ga, sizeof *s->win);
    s->win->phase = WIN_COLLECT;
    s->xe.win = s->win;
    return 0;
}

void win_free(select_run_t *s)
{
    s->win = NULL;
    s->xe.win = NULL;
}

int win_collect(select_run_t *s, const value_t *row, group_t *g)
{
    win_run_t *w = s->win;
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 256;
        value_t **nr = arena_alloc(s->ga, sizeof(value_t *) * w->cap);
        group_t **ng = arena_alloc(s->ga, sizeof(group_t *) * w->cap);
        if (w->n) {
            memcpy(nr, w->rows, sizeof(value_t *) * w->n);
            memcpy(ng, w->groups, sizeof(group_t *) * w->n);
        }
        w->rows = nr;
        w->groups = ng;
    }
    if (g) {
        w->rows[w->n] = g->rep;
    } else {
        value_t *copy = arena_alloc(s->ga, sizeof(value_t) * (s->q.width + 1));
        for (uint32_t i = 0; i < s->q.width; i++)
            copy[i] = value_copy_into(s->ga, &row[i]);
        w->rows[w->n] = copy;
    }
    w->groups[w->n++] = g;
    return 0;
}

/* e evaluated for unit u: its row, and its group's aggregates. */
static int unit_eval(select_run_t *s, uint64_t u, const sql_expr_t *e, value_t *out)
{
    s->xe.group = s->win->groups[u];
    int rc = row_eval(&s->xe, e, s->win->rows[u], out);
    s->xe.group = NULL;
    if (rc == 0)
        *out = value_copy_into(s->ga, out);
    return rc;
}

static int fn_is(const sql_expr_t *e, sql_fn_t a, sql_fn_t b)
{
    return e->func.fn == a || e->func.fn == b;
}

/* The call's window: its own, on the named one it references (4009 / 4011 / 4012 / 4013 as MariaDB). */
static int spec_of(select_run_t *s, const sql_expr_t *e, win_spec_t *sp)
{
    const sql_window_t *w = e->over;
    memset(sp, 0, sizeof *sp);
    if (w->ref) {
        const sql_window_t *base = NULL;
        for (uint32_t i = 0; i < s->sel->nwindows && !base; i++)
            if (strcasecmp(s->sel->windows[i].name, w->ref) == 0)
                base = &s->sel->windows[i].spec;
        if (!base)
            return diag_error(s->x->diag, ER_WRONG_WINDOW_SPEC_NAME, w->ref);
        if (base->ref)
            return diag_error(s->x->diag, ER_NOT_SUPPORTED_YET, "a named window defined on another named window");
        if (w->npartition)
            return diag_error(s->x->diag, ER_PARTITION_LIST_IN_REFERENCING_WINDOW_SPEC, w->ref);
        if (w->norder && base->norder)
            return diag_error(s->x->diag, ER_ORDER_LIST_IN_REFERENCING_WINDOW_SPEC, w->ref);
        if (base->unit != SQL_FRAME_DEFAULT)
            return diag_error(s->x->diag, ER_WINDOW_FRAME_IN_REFERENCED_WINDOW_SPEC, w->ref);
        sp->partition = base->partition;
        sp->npartition = base->npartition;
        sp->order = base->norder ? base->order : w->order;
        sp->norder = base->norder ? base->norder : w->norder;
    } else {
        sp->partition = w->partition;
        sp->npartition = w->npartition;
        sp->order = w->order;
        sp->norder = w->norder;
    }
    sp->unit = w->unit;
    sp->start = w->start;
    sp->end = w->end;
    return 0;
}

static const char *lower_name(select_run_t *s, const sql_expr_t *e)
{
    char *n = arena_strdup(s->ga, e->func.name);
    for (char *p = n; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return n;
}

/* What each kind of call accepts (MariaDB's errors), before any row is read. */
static int check_call(select_run_t *s, const sql_expr_t *e, const win_spec_t *sp)
{
    diag_t *d = s->x->diag;
    sql_fn_t fn = e->func.fn;
    bool ranking = fn == SQL_FN_ROW_NUMBER || fn == SQL_FN_RANK || fn == SQL_FN_DENSE_RANK ||
                   fn == SQL_FN_PERCENT_RANK || fn == SQL_FN_CUME_DIST || fn == SQL_FN_NTILE || fn == SQL_FN_LAG ||
                   fn == SQL_FN_LEAD;
    if (ranking && sp->unit != SQL_FRAME_DEFAULT)
        return diag_error(d, ER_NOT_ALLOWED_WINDOW_FRAME, lower_name(s, e));
    if (ranking && fn != SQL_FN_ROW_NUMBER && !sp->norder)
        return diag_error(d, ER_NO_ORDER_LIST_IN_WINDOW_SPEC, lower_name(s, e));
    if (e->func.distinct) {
        char what[64];
        snprintf(what, sizeof what, "%s(DISTINCT) aggregate as window function", e->func.name);
        return diag_error(d, ER_NOT_SUPPORTED_YET, what);
    }
    if (fn == SQL_FN_GROUP_CONCAT)
        return diag_error(d, ER_NOT_SUPPORTED_YET, "GROUP_CONCAT() aggregate as window function");
    if (fn == SQL_FN_JSON_ARRAYAGG || fn == SQL_FN_JSON_OBJECTAGG) /* as MariaDB 10.11 */
        return diag_error(d, ER_NOT_SUPPORTED_YET, fn == SQL_FN_JSON_ARRAYAGG ? "JSON_ARRAYAGG() aggregate as window function"
                                                                          : "JSON_OBJECTAGG() aggregate as window function");
    if (sp->unit != SQL_FRAME_DEFAULT &&
        (sp->start.kind == SQL_FB_UNBOUNDED_FOLLOWING || sp->end.kind == SQL_FB_UNBOUNDED_PRECEDING))
        return diag_error(d, ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS);
    const sql_frame_bound_t *b[2] = {&sp->start, &sp->end};
    for (int i = 0; i < 2; i++) {
        if (!b[i]->offset)
            continue;
        bool pure = true;
        if (expr_max_src(&s->q, b[i]->offset, &pure) >= 0 || !pure)
            return diag_error(d, sp->unit == SQL_FRAME_ROWS ? ER_WRONG_TYPE_FOR_ROWS_FRAME : ER_WRONG_TYPE_FOR_RANGE_FRAME);
        value_t v;
        int rc = row_eval(&s->xe, b[i]->offset, NULL, &v);
        if (rc)
            return rc;
        if (sp->unit == SQL_FRAME_ROWS && v.type != VAL_INT && v.type != VAL_UINT)
            return diag_error(d, ER_WRONG_TYPE_FOR_ROWS_FRAME);
        if (sp->unit == SQL_FRAME_RANGE) {
            if (sp->norder != 1)
                return diag_error(d, ER_RANGE_FRAME_NEEDS_SIMPLE_ORDERBY);
            if (v.type != VAL_INT && v.type != VAL_UINT && v.type != VAL_DOUBLE && v.type != VAL_DECIMAL)
                return diag_error(d, ER_WRONG_TYPE_FOR_RANGE_FRAME);
        }
    }
    return 0;
}

static int64_t offset_of(select_run_t *s, const sql_frame_bound_t *b, double *dv)
{
    if (!b->offset)
        return 0;
    value_t v;
    if (row_eval(&s->xe, b->offset, NULL, &v))
        return 0;
    *dv = value_to_double(&v, NULL);
    return v.type == VAL_UINT ? (int64_t)MIN(v.u, (uint64_t)INT64_MAX) : value_to_int(&v, NULL);
}

static int key_cmp_buf(const buf_t *a, const buf_t *b)
{
    size_t n = MIN(a->len, b->len);
    int r = n ? memcmp(a->data, b->data, n) : 0; /* an empty key has no buffer */
    return r ? r : (a->len < b->len ? -1 : a->len > b->len);
}

static int unit_cmp(const void *pa, const void *pb)
{
    const unit_key_t *a = pa, *b = pb;
    int r = key_cmp_buf(&a->pkey, &b->pkey);
    if (!r)
        r = key_cmp_buf(&a->okey, &b->okey);
    return r ? r : (a->unit < b->unit ? -1 : a->unit > b->unit);
}

/* An accumulator's arguments for one unit: what unit_eval gives. */
typedef struct agg_unit {
    select_run_t *s;
    uint64_t unit;
} agg_unit_t;

static int agg_unit_eval(void *arg, const sql_expr_t *e, value_t *out)
{
    agg_unit_t *a = arg;
    return unit_eval(a->s, a->unit, e, out);
}

/* Frame [*fs, *fe] (positions into keys; empty when *fs > *fe) of position r in the partition [ps, pe). */
static void frame_of(select_run_t *s, const win_spec_t *sp, const unit_key_t *keys, uint64_t ps, uint64_t pe,
                     uint64_t r, uint64_t peer_lo, uint64_t peer_hi, int64_t *fs, int64_t *fe)
{
    sql_frame_unit_t unit = sp->unit;
    sql_frame_bound_t start = sp->start, end = sp->end;
    if (unit == SQL_FRAME_DEFAULT) {
        if (!sp->norder) {
            *fs = (int64_t)ps;
            *fe = (int64_t)pe - 1;
            return;
        }
        unit = SQL_FRAME_RANGE;
        start.kind = SQL_FB_UNBOUNDED_PRECEDING;
        end.kind = SQL_FB_CURRENT_ROW;
    }
    const sql_frame_bound_t *b[2] = {&start, &end};
    int64_t out[2];
    for (int i = 0; i < 2; i++) {
        double dv = 0;
        int64_t off = offset_of(s, b[i], &dv);
        switch (b[i]->kind) {
        case SQL_FB_UNBOUNDED_PRECEDING: out[i] = (int64_t)ps; break;
        case SQL_FB_UNBOUNDED_FOLLOWING: out[i] = (int64_t)pe - 1; break;
        case SQL_FB_CURRENT_ROW:
            out[i] = unit == SQL_FRAME_ROWS ? (int64_t)r : i == 0 ? (int64_t)peer_lo : (int64_t)peer_hi;
            break;
        case SQL_FB_PRECEDING:
        case SQL_FB_FOLLOWING:
            if (unit == SQL_FRAME_ROWS) {
                out[i] = b[i]->kind == SQL_FB_PRECEDING ? (int64_t)r - off : (int64_t)r + off;
                break;
            }
            /* RANGE: rows whose order value lies within the offset of this row's (in the sort's direction);
             * a NULL order value has only its peers */
            if (keys[r].ord.type == VAL_NULL) {
                out[i] = i == 0 ? (int64_t)peer_lo : (int64_t)peer_hi;
                break;
            }
            {
                bool desc = sp->order[0].desc;
                double cur = value_to_double(&keys[r].ord, NULL);
                double sign = (b[i]->kind == SQL_FB_PRECEDING) != desc ? -1.0 : 1.0;
                double lim = cur + sign * dv;
                if (i == 0) { /* first row not before lim */
                    int64_t k = (int64_t)ps;
                    while (k < (int64_t)pe && (keys[k].ord.type == VAL_NULL ||
                                               (desc ? value_to_double(&keys[k].ord, NULL) > lim
                                                     : value_to_double(&keys[k].ord, NULL) < lim)))
                        k++;
                    out[i] = k;
                } else { /* last row not after lim */
                    int64_t k = (int64_t)pe - 1;
                    while (k >= (int64_t)ps && (keys[k].ord.type != VAL_NULL &&
                                                (desc ? value_to_double(&keys[k].ord, NULL) < lim
                                                      : value_to_double(&keys[k].ord, NULL) > lim)))
                        k--;
                    out[i] = k;
                }
            }
            break;
        }
    }
    *fs = MAX(out[0], (int64_t)ps);
    *fe = MIN(out[1], (int64_t)pe - 1);
}

static int compute_call(select_run_t *s, uint32_t k)
{
    win_run_t *w = s->win;
    const sql_expr_t *e = s->q.wins[k];
    win_spec_t sp;
    int rc = spec_of(s, e, &sp);
    if (!rc)
        rc = check_call(s, e, &sp);
    if (rc)
        return rc;
    value_t *vals = arena_alloc(s->ga, sizeof(value_t) * (w->n + 1));
    w->vals[k] = vals;
    unit_key_t *keys = mem_calloc(w->n + 1, sizeof *keys);
    for (uint64_t u = 0; u < w->n && !rc; u++) {
        keys[u].unit = u;
        buf_init(&keys[u].pkey);
        buf_init(&keys[u].okey);
        keys[u].ord = value_null();
        for (uint32_t i = 0; i < sp.npartition && !rc; i++) {
            value_t v;
            if ((rc = unit_eval(s, u, sp.partition[i], &v)) == 0)
                key_append_value(&keys[u].pkey, &v, false);
        }
        for (uint32_t i = 0; i < sp.norder && !rc; i++) {
            value_t v;
            if ((rc = unit_eval(s, u, sp.order[i].expr, &v)) == 0) {
                key_append_value(&keys[u].okey, &v, sp.order[i].desc);
                if (i == 0)
                    keys[u].ord = v;
            }
        }
    }
    bool range_offset = sp.unit == SQL_FRAME_RANGE && (sp.start.offset || sp.end.offset);
    for (uint64_t u = 0; !rc && range_offset && u < w->n; u++)
        if (keys[u].ord.type == VAL_STRING) /* RANGE n PRECEDING needs a number to subtract from */
            rc = diag_error(s->x->diag, ER_WRONG_TYPE_FOR_RANGE_FRAME);
    if (!rc && w->n > 1)
        qsort(keys, w->n, sizeof *keys, unit_cmp);
    sql_fn_t fn = e->func.fn;
    bool aggregate = (sql_fn_flags(fn) & SQL_FNF_AGGREGATE) != 0;
    int64_t ntiles = 0;
    if (!rc && fn == SQL_FN_NTILE && w->n) {
        value_t v;
        if ((rc = unit_eval(s, keys[0].unit, e->args[0], &v)) == 0) {
            ntiles = value_to_int(&v, NULL);
            if (v.type == VAL_NULL || ntiles <= 0)
                rc = diag_error(s->x->diag, ER_WRONG_NTILE_ARGUMENT);
        }
    }
    for (uint64_t ps = 0; ps < w->n && !rc;) {
        uint64_t pe = ps + 1;
        while (pe < w->n && key_cmp_buf(&keys[pe].pkey, &keys[ps].pkey) == 0)
            pe++;
        uint64_t n = pe - ps, rank = 1, dense = 0, peer_lo = ps, peer_hi = ps;
        /* an accumulator over frames starting at the partition's first row grows with the frame's end */
        bool running = aggregate && (sp.unit == SQL_FRAME_DEFAULT || sp.start.kind == SQL_FB_UNBOUNDED_PRECEDING);
        sql_agg_t acc;
        sql_agg_init(&acc);
        int64_t acc_end = (int64_t)ps - 1;
        for (uint64_t r = ps; r < pe && !rc; r++) {
            if (r == ps || key_cmp_buf(&keys[r].okey, &keys[r - 1].okey) != 0) {
                peer_lo = r;
                peer_hi = r;
                while (peer_hi + 1 < pe && key_cmp_buf(&keys[peer_hi + 1].okey, &keys[r].okey) == 0)
                    peer_hi++;
                rank = r - ps + 1;
                dense++;
            }
            uint64_t u = keys[r].unit;
            value_t v = value_null();
            int64_t fs, fe;
            switch (fn) {
            case SQL_FN_ROW_NUMBER: v = value_int((int64_t)(r - ps + 1)); break;
            case SQL_FN_RANK: v = value_int((int64_t)rank); break;
            case SQL_FN_DENSE_RANK: v = value_int((int64_t)dense); break;
            case SQL_FN_PERCENT_RANK:
                v = value_double(n > 1 ? (double)(rank - 1) / (double)(n - 1) : 0.0);
                v.dec = 10;
                break;
            case SQL_FN_CUME_DIST:
                v = value_double((double)(peer_hi - ps + 1) / (double)n);
                v.dec = 10;
                break;
            case SQL_FN_NTILE: {
                uint64_t i = r - ps, t = (uint64_t)ntiles, q = n / t, rem = n % t;
                uint64_t big = (q + 1) * rem;
                v = value_int((int64_t)(i < big ? i / (q + 1) + 1 : rem + (q ? (i - big) / q : 0) + 1));
                break;
            }
            case SQL_FN_LAG:
            case SQL_FN_LEAD: {
                int64_t off = 1;
                if (e->nargs > 1) {
                    value_t o;
                    if ((rc = unit_eval(s, u, e->args[1], &o)) != 0)
                        break;
                    off = value_to_int(&o, NULL);
                }
                int64_t at = fn == SQL_FN_LAG ? (int64_t)r - off : (int64_t)r + off;
                if (at >= (int64_t)ps && at < (int64_t)pe)
                    rc = unit_eval(s, keys[at].unit, e->args[0], &v);
                break;
            }
            default:
                frame_of(s, &sp, keys, ps, pe, r, peer_lo, peer_hi, &fs, &fe);
                if (fn_is(e, SQL_FN_FIRST_VALUE, SQL_FN_LAST_VALUE) || fn == SQL_FN_NTH_VALUE) {
                    int64_t at = fn == SQL_FN_FIRST_VALUE ? fs : fe;
                    if (fn == SQL_FN_NTH_VALUE) {
                        value_t nv;
                        if ((rc = unit_eval(s, u, e->args[1], &nv)) != 0)
                            break;
                        at = fs + value_to_int(&nv, NULL) - 1;
                        if (value_to_int(&nv, NULL) < 1)
                            at = fe + 1;
                    }
                    if (fs <= fe && at >= fs && at <= fe)
                        rc = unit_eval(s, keys[at].unit, e->args[0], &v);
                    break;
                }
                if (!aggregate)
                    break;
                if (running && fs == (int64_t)ps && fe >= acc_end) {
                    for (int64_t i = acc_end + 1; i <= fe && !rc; i++) {
                        agg_unit_t au = {s, keys[i].unit};
                        sql_agg_src_t src = {agg_unit_eval, &au, s->ga, s->x->diag, s->x->group_concat_max_len};
                        rc = sql_agg_add(&acc, e, &src);
                    }
                    acc_end = MAX(acc_end, fe);
                    if (!rc)
                        v = sql_agg_result(&acc, e, s->ga, s->x->div_precision_increment, s->x->diag);
                    break;
                }
                sql_agg_t g;
                sql_agg_init(&g);
                for (int64_t i = fs; i <= fe && !rc; i++) {
                    agg_unit_t au = {s, keys[i].unit};
                    sql_agg_src_t src = {agg_unit_eval, &au, s->ga, s->x->diag, s->x->group_concat_max_len};
                    rc = sql_agg_add(&g, e, &src);
                }
                if (!rc)
                    v = sql_agg_result(&g, e, s->ga, s->x->div_precision_increment, s->x->diag);
                sql_agg_free(&g);
                break;
            }
            vals[u] = value_copy_into(s->ga, &v);
        }
        sql_agg_free(&acc);
        ps = pe;
    }
    for (uint64_t u = 0; u < w->n; u++) {
        buf_free(&keys[u].pkey);
        buf_free(&keys[u].okey);
    }
    mem_free(keys);
    return rc;
}

int win_finish(select_run_t *s, int (*emit_row)(void *arg, const value_t *row), int (*emit_group)(select_run_t *s, group_t *g))
{
    win_run_t *w = s->win;
    w->vals = arena_calloc(s->ga, sizeof(value_t *) * (s->q.nwin + 1));
    int rc = 0;
    for (uint32_t k = 0; k < s->q.nwin && !rc; k++)
        rc = compute_call(s, k);
    w->phase = WIN_EMIT;
    for (uint64_t u = 0; u < w->n && !rc; u++) {
        w->cur = u;
        rc = w->groups[u] ? emit_group(s, w->groups[u]) : emit_row(s, w->rows[u]);
        if (rc == 1) /* LIMIT reached */
            return 0;
    }
    return rc < 0 ? rc : 0;
}

/* window_get of the evaluation callbacks (evalctx.c): call e's value for the unit being output. */
int win_value(const struct win_run *w, const query_t *q, const sql_expr_t *e, value_t *out)
{
    if (w->phase != WIN_EMIT) { /* HAVING and the select list while units are kept: not needed yet */
        *out = value_null();
        return 0;
    }
    for (uint32_t k = 0; k < q->nwin; k++)
        if (q->wins[k] == e) {
            *out = w->vals[k][w->cur];
            return 0;
        }
    return -ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION;
}
