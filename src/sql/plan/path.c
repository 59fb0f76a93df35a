/*
 * Access paths: what WHERE says about each column of a source (=, IN, BETWEEN, <, <=, >, >=, ORs of those
 * on one column), the candidate indexes, and the choice among them by estimated rows from the table's
 * statistics (access/stats.h); then, at run time, the key ranges of the chosen path from the values in hand.
 */
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "sql/exec/extsort.h"
#include "sql/expr/typeinf.h"
#include "sql/value/tz.h"
#include "util/util.h"
#include "util/hash.h"
#include "sql/exec/query_int.h"

/* ---------------------------------------------------------------- access paths */




static void split_and(const sql_expr_t *e, const sql_expr_t ***list, uint32_t *n, arena_t *a)
{
    if (!e)
        return;
    if (e->kind == SQL_E_BINARY && e->op == SQL_OP_AND) {
        split_and(e->args[0], list, n, a);
        split_and(e->args[1], list, n, a);
        return;
    }
    const sql_expr_t **nl = arena_alloc(a, sizeof(*nl) * (*n + 1));
    if (*n)
        memcpy(nl, *list, sizeof(*nl) * *n);
    nl[(*n)++] = e;
    *list = nl;
}

/* The column of source si an expression is, or -1. */
int src_col(const query_t *q, uint32_t si, const sql_expr_t *e)
{
    if (e->kind != SQL_E_COLUMN || e->slot < 0)
        return -1;
    const query_source_t *s = &q->src[si];
    if ((uint32_t)e->slot < s->base || (uint32_t)e->slot >= s->base + s->t->ncols)
        return -1;
    return (int)((uint32_t)e->slot - s->base);
}

static bool avail(const query_t *q, uint32_t si, const sql_expr_t *e)
{
    bool pure = true;
    if (q->jbefore) { /* a chosen join order: the sources read before si */
        uint64_t m = expr_src_mask(q, e, &pure);
        return pure && (m & ~q->jbefore[si]) == 0;
    }
    int m = expr_max_src(q, e, &pure);
    return pure && m < (int)si;
}

/* Is e `column op value` (either way round) with the value known before source si is read?  Gives the column,
 * the operator as seen from the column's side and the value. */
static bool col_cmp(const query_t *q, uint32_t si, const sql_expr_t *e, int *col, sql_op_t *op, const sql_expr_t **val)
{
    sql_op_t o = e->op;
    const sql_expr_t *l = e->args[0], *v = e->args[1];
    if (src_col(q, si, l) < 0 && src_col(q, si, v) >= 0) {
        const sql_expr_t *t = l;
        l = v;
        v = t;
        o = o == SQL_OP_LT ? SQL_OP_GT : o == SQL_OP_GT ? SQL_OP_LT : o == SQL_OP_LE ? SQL_OP_GE
          : o == SQL_OP_GE ? SQL_OP_LE : o;
    }
    if ((*col = src_col(q, si, l)) < 0 || !avail(q, si, v))
        return false;
    *op = o;
    *val = v;
    return true;
}

/* Adds the ranges of e, a disjunct of an OR, on column *col of source si (-1: not settled yet).  False when e is
 * not a comparison of one column with values known before si is read, or names another column. */
static bool or_ranges(const query_t *q, uint32_t si, const sql_expr_t *e, int *col, or_range_t **r, uint32_t *n,
                      uint32_t *cap, arena_t *a)
{
    if (e->kind == SQL_E_BINARY && e->op == SQL_OP_OR && e->nargs == 2)
        return or_ranges(q, si, e->args[0], col, r, n, cap, a) && or_ranges(q, si, e->args[1], col, r, n, cap, a);
    const sql_expr_t *lo = NULL, *hi = NULL, *const *pts = NULL;
    uint32_t npts = 0;
    int c = -1;
    if (e->kind == SQL_E_BINARY && e->nargs == 2) {
        sql_op_t op;
        const sql_expr_t *v;
        if (!col_cmp(q, si, e, &c, &op, &v))
            return false;
        switch (op) {
        case SQL_OP_EQ: lo = hi = v; break;
        case SQL_OP_LT: case SQL_OP_LE: hi = v; break;
        case SQL_OP_GT: case SQL_OP_GE: lo = v; break;
        default: return false;
        }
    } else if (e->kind == SQL_E_BETWEEN && !e->negated && e->nargs == 3) {
        if ((c = src_col(q, si, e->args[0])) < 0 || !avail(q, si, e->args[1]) || !avail(q, si, e->args[2]))
            return false;
        lo = e->args[1];
        hi = e->args[2];
    } else if (e->kind == SQL_E_IN && !e->negated && !e->sub && e->nargs >= 2) {
        if ((c = src_col(q, si, e->args[0])) < 0)
            return false;
        for (uint32_t k = 1; k < e->nargs; k++)
            if (!avail(q, si, e->args[k]))
                return false;
        pts = (const sql_expr_t *const *)e->args + 1;
        npts = e->nargs - 1;
    } else {
        return false;
    }
    if (*col >= 0 && c != *col)
        return false;
    *col = c;
    uint32_t add = pts ? npts : 1;
    if (*n + add > *cap) {
        uint32_t nc = MAX(*cap * 2, *n + add + 4);
        or_range_t *nr = arena_alloc(a, sizeof *nr * nc);
        if (*n)
            memcpy(nr, *r, sizeof *nr * *n);
        *r = nr;
        *cap = nc;
    }
    for (uint32_t k = 0; k < add; k++)
        (*r)[(*n)++] = pts ? (or_range_t){pts[k], pts[k]} : (or_range_t){lo, hi};
    return true;
}

static void collect_conds(const query_t *q, uint32_t si, const sql_expr_t *where, column_cond_t *conds, arena_t *a)
{
    const sql_expr_t **list = NULL;
    uint32_t n = 0;
    split_and(where, &list, &n, a);
    if (q->jinner) { /* inner joins only: every ON is a condition on the whole row, as WHERE */
        for (uint32_t k = 0; k < q->nsrc; k++)
            split_and(q->src[k].on, &list, &n, a);
    } else if (q->src[si].on) {
        split_and(q->src[si].on, &list, &n, a);
    }
    for (uint32_t i = 0; i < n; i++) {
        const sql_expr_t *e = list[i];
        int c;
        if (e->kind == SQL_E_BINARY && e->op == SQL_OP_OR && e->nargs == 2) {
            /* every disjunct a range of the same column: a union of ranges (MariaDB's range access over OR) */
            or_range_t *r = NULL;
            uint32_t n = 0, cap = 0;
            c = -1;
            if (or_ranges(q, si, e, &c, &r, &n, &cap, a) && !conds[c].ors) {
                conds[c].ors = r;
                conds[c].nors = n;
            }
            continue;
        }
        if (e->kind == SQL_E_BINARY && e->nargs == 2) {
            sql_op_t op;
            const sql_expr_t *r;
            if (!col_cmp(q, si, e, &c, &op, &r))
                continue;
            switch (op) {
            case SQL_OP_EQ: if (!conds[c].eq) conds[c].eq = r; break;
            case SQL_OP_LT: case SQL_OP_LE: if (!conds[c].hi) conds[c].hi = r; break;
            case SQL_OP_GT: case SQL_OP_GE: if (!conds[c].lo) conds[c].lo = r; break;
            default: break;
            }
        } else if (e->kind == SQL_E_BETWEEN && !e->negated && e->nargs == 3) {
            if ((c = src_col(q, si, e->args[0])) < 0 || !avail(q, si, e->args[1]) || !avail(q, si, e->args[2]))
                continue;
            if (!conds[c].lo)
                conds[c].lo = e->args[1];
            if (!conds[c].hi)
                conds[c].hi = e->args[2];
        } else if (e->kind == SQL_E_IN && !e->negated && !e->sub && e->nargs >= 2) {
            if ((c = src_col(q, si, e->args[0])) < 0)
                continue;
            bool ok = true;
            for (uint32_t k = 1; k < e->nargs; k++)
                ok &= avail(q, si, e->args[k]);
            if (ok && !conds[c].in && !conds[c].eq) {
                conds[c].in = (const sql_expr_t *const *)e->args + 1;
                conds[c].nin = e->nargs - 1;
            }
        }
    }
}

static bool col_indexable(const cat_column_t *c)
{
    sqlt_t t = (sqlt_t)c->rc.type;
    return t != SQLT_ENUM && t != SQLT_SET && t != SQLT_BIT;
}

/*
 * Rows a candidate path is expected to read, from the table's statistics (ANALYZE TABLE, access/stats.h): a unique
 * point 1 per point; neq leading columns bound to points: rows / distinct values of that prefix, per point of an
 * IN list; a range after them (or alone): a third of that (System R's guess for an open range).
 */
static uint64_t path_estimate(const cat_table_t *t, uint32_t ix, uint32_t neq, bool range, bool uniq, uint32_t points,
                              uint64_t rows)
{
    uint64_t est = rows;
    if (uniq)
        est = 1;
    else if (neq && !stats_rows_per_key(sql_exec_catalog(), t, ix, neq, &est))
        est = rows / 10;
    if (!uniq && range)
        est /= 3;
    est *= points ? points : 1;
    return est ? est : 1;
}

/* May column c be a hash join's key?  Its stored value must be what the joined row holds (not ENUM / SET /
 * FLOAT / YEAR / ZEROFILL, which are read in another form), and equality in its
 * type must be equality of key_append_value's bytes: exact numbers, strings (weights of the column's
 * collation), temporal values (not TIMESTAMP under a session time zone). */
static bool hash_key_col(const cat_table_t *t, uint32_t c)
{
    const cat_column_t *col = &t->cols[c];
    sqlt_t ty = (sqlt_t)col->rc.type;
    if (col->zerofill)
        return false;
    if (ty == SQLT_TIMESTAMP)
        return !sql_tz_active();
    switch (ty) {
    case SQLT_TINYINT: case SQLT_SMALLINT: case SQLT_MEDIUMINT: case SQLT_INT: case SQLT_BIGINT: case SQLT_DECIMAL:
    case SQLT_DATE: case SQLT_DATETIME: case SQLT_TIME:
        return true;
    default:
        return sqlt_is_string(ty);
    }
}

/*
 * A source after the first that no index serves is read once into a hash table (MariaDB's hashed join
 * buffer, join_cache_level >= 3; here whenever join_cache_level > 0): keyed on the columns WHERE / ON set equal
 * to values known before it, or, without such columns or with join_cache_hashed=off, kept flat and tried whole
 * against each row before it.  Not for locking reads and multi-table DML (each row is locked as it is read),
 * sources inside a parenthesized group, or tables with columns computed on read.
 */
static void choose_hash(const query_t *q, uint32_t si, access_path_t *p, arena_t *a)
{
    const query_source_t *s = &q->src[si];
    const cat_table_t *t = s->t;
    bool first = q->jbefore ? q->jbefore[si] == 0 : si == 0;
    if (first || q->x->join_cache_off || q->locking || q->cur_pk || s->jt || s->group_last || s->in_group ||
        t->gen_on_read || (s->join != SQL_JOIN_INNER && s->join != SQL_JOIN_CROSS && s->join != SQL_JOIN_LEFT))
        return;
    p->hashed = true;
    if (q->x->hash_join_off)
        return;
    for (uint32_t c = 0; c < t->ncols && p->nhash < 8; c++) {
        if (!p->conds[c].eq || !hash_key_col(t, c))
            continue;
        if (!p->hcol) {
            p->hcol = arena_alloc(a, sizeof(uint32_t) * 8);
            p->hval = arena_alloc(a, sizeof(*p->hval) * 8);
        }
        p->hcol[p->nhash] = c;
        p->hval[p->nhash++] = p->conds[c].eq;
    }
}

/*
 * The access path of source si: among the indexes whose leading columns WHERE binds, the one expected to read
 * the fewest rows when the table has statistics (path_estimate), else by a fixed preference: a unique point,
 * then more bound columns, then a range, then the primary key.
 */
void choose_path(const query_t *q, uint32_t si, const sql_expr_t *where, access_path_t *p, arena_t *a)
{
    const cat_table_t *t = q->src[si].t;
    memset(p, 0, sizeof *p);
    p->index = -1;
    if (q->src[si].is_virtual)
        return;
    p->conds = arena_calloc(a, sizeof(column_cond_t) * (t->ncols + 1));
    collect_conds(q, si, where, p->conds, a);
    uint64_t rows = 0;
    bool have_stats = stats_table_rows(sql_exec_catalog(), t, &rows);
    if (have_stats)
        p->est_rows = rows ? rows : 1; /* a full scan */
    int best = 0;
    uint64_t best_est = UINT64_MAX;
    for (uint32_t ix = 0; ix < t->nidx; ix++) {
        const cat_index_t *x = &t->idx[ix];
        uint32_t neq = 0, points = 1;
        bool in_used = false, range = false;
        for (uint32_t k = 0; k < x->ncols; k++) {
            const column_cond_t *c = &p->conds[x->cols[k].col];
            if (!col_indexable(&t->cols[x->cols[k].col]))
                break;
            if (c->eq || (c->in && !in_used)) {
                if (c->in && !c->eq)
                    points = c->nin;
                in_used |= c->in && !c->eq;
                neq++;
                continue;
            }
            range = c->lo || c->hi || c->nors;
            break;
        }
        if (!neq && !range)
            continue;
        bool full = neq == x->ncols;
        bool uniq = x->kind != CAT_IDX_KEY && full;
        for (uint32_t k = 0; k < x->ncols && uniq; k++)
            uniq = x->cols[k].prefix == 0;
        int score = uniq ? (x->kind == CAT_IDX_PRIMARY ? 1000 : 900) : (int)neq * 10 + (range ? 5 : 0) + (x->kind == CAT_IDX_PRIMARY ? 2 : 0);
        uint64_t est = have_stats ? path_estimate(t, ix, neq, !full && range, uniq, points, rows) : 0;
        bool better = have_stats ? est < best_est || (est == best_est && score > best) : score > best;
        if (better) {
            best = score;
            best_est = est;
            p->index = (int)ix;
            p->neq = neq;
            p->range = !full && range;
            p->point = uniq;
            p->est_rows = est;
        }
    }
    if (p->index < 0)
        choose_hash(q, si, p, a);
}

/* Is value v usable as a search key for column c?  (Else the comparison is not in the index's order.) */
static bool key_compatible(const cat_column_t *c, const value_t *v, bool for_range)
{
    sqlt_t t = (sqlt_t)c->rc.type;
    if (v->type == VAL_NULL)
        return true;
    if (sqlt_is_string(t)) {
        if (v->type != VAL_STRING)
            return false;
        return !for_range || v->coll != COLL_BINARY || c->rc.coll == COLL_BINARY;
    }
    if (t == SQLT_TIMESTAMP && sql_tz_active())
        return false; /* the index holds system-zone values, the bound is in @@time_zone (sql/value/tz.h): full scan */
    if (sqlt_is_temporal(t))
        return value_is_temporal(v) || v->type == VAL_STRING;
    return value_is_numeric(v) || (v->type == VAL_STRING && !for_range);
}

/*
 * A string search value in the index column's character set: the key is made of the column's weights.  The
 * comparison runs in the collation MySQL's coercibility rules give the column against the value
 * (sql_coll_of_cmp); the index serves it when that is the column's collation, or, for equality, a binary-sorting
 * collation of the same character set (the index finds a superset, which the WHERE / ON filters).  Else false
 * and the caller scans.
 */
static bool key_in_coll(row_eval_t *xe, const cat_column_t *c, value_t *v, bool for_range)
{
    uint16_t cc = c->rc.coll;
    if (v->type != VAL_STRING || !sqlt_is_string((sqlt_t)c->rc.type))
        return true;
    int cmp = sql_coll_of_cmp(cc, v);
    if (cmp < 0)
        return false; /* no common collation: the evaluation reports 1267 */
    if (cmp != cc && (for_range || value_coll_is_ci((uint16_t)cmp) ||
                      (cmp != COLL_BINARY && strcmp(value_coll_charset((uint16_t)cmp), value_coll_charset(cc)) != 0)))
        return false;
    if (v->coll != COLL_BINARY && cc != COLL_BINARY &&
        strcmp(value_coll_charset(v->coll), value_coll_charset(cc)) != 0) {
        size_t n, bad;
        const char *cv = sql_str_convert(xe->x->arena, v->s.ptr, v->s.len, v->coll, cc, &n, &bad);
        if (bad != SIZE_MAX)
            return false;
        v->s.ptr = cv;
        v->s.len = n;
    }
    v->coll = cc;
    return true;
}


static int cmp_range(const void *a, const void *b)
{
    const key_range_t *x = a, *y = b;
    size_t n = MIN(x->lo.len, y->lo.len);
    int r = n ? memcmp(x->lo.data, y->lo.data, n) : 0; /* (an open low end has no buffer at all) */
    return r ? r : (x->lo.len < y->lo.len ? -1 : x->lo.len > y->lo.len);
}

/*
 * Builds the key ranges of a path for the current outer row.  *nr 0 with rc 0 means "no row can match" (col =
 * NULL); rc 1 means "fall back to a full scan" (a value not comparable in index order).
 */
int build_ranges(row_eval_t *xe, const query_t *q, uint32_t si, const access_path_t *p, const value_t *row,
                        key_range_t **out, uint32_t *nr)
{
    const cat_table_t *t = q->src[si].t;
    const cat_index_t *ix = &t->idx[p->index];
    arena_t *a = xe->x->arena;
    key_range_t *r = arena_calloc(a, sizeof *r);
    uint32_t n = 1;
    buf_init(&r[0].lo);
    buf_init(&r[0].hi);
    r[0].has_lo = r[0].has_hi = true;
    int rc = 0;
    for (uint32_t k = 0; k < p->neq; k++) {
        const column_cond_t *c = &p->conds[ix->cols[k].col];
        rc_col_t rcol = table_index_rc(t, (uint32_t)p->index, k);
        const cat_column_t *col = &t->cols[ix->cols[k].col];
        if (c->eq) {
            value_t v;
            if ((rc = row_eval(xe, c->eq, row, &v)) != 0)
                goto fail;
            if (v.type == VAL_NULL) {
                n = 0;
                goto done;
            }
            if (!key_compatible(col, &v, false) || !key_in_coll(xe, col, &v, false)) {
                rc = 1;
                goto fail;
            }
            for (uint32_t i = 0; i < n; i++) {
                if (rc_key_append(&r[i].lo, &rcol, &v) < 0) {
                    rc = 1;
                    goto fail;
                }
                rc_key_append(&r[i].hi, &rcol, &v);
            }
            continue;
        }
        /* IN: one range per (distinct, non-NULL) value */
        key_range_t *nrg = arena_calloc(a, sizeof *nrg * (n * c->nin + 1));
        uint32_t m = 0;
        for (uint32_t j = 0; j < c->nin; j++) {
            value_t v;
            if ((rc = row_eval(xe, c->in[j], row, &v)) != 0)
                goto fail;
            if (v.type == VAL_NULL)
                continue;
            if (!key_compatible(col, &v, false) || !key_in_coll(xe, col, &v, false)) {
                rc = 1;
                for (uint32_t z = 0; z < m; z++) { /* the ranges made for the values before this one */
                    buf_free(&nrg[z].lo);
                    buf_free(&nrg[z].hi);
                }
                goto fail;
            }
            for (uint32_t i = 0; i < n; i++) {
                key_range_t *d = &nrg[m++];
                buf_init(&d->lo);
                buf_init(&d->hi);
                d->has_lo = d->has_hi = true;
                buf_append(&d->lo, r[i].lo.data, r[i].lo.len);
                if (rc_key_append(&d->lo, &rcol, &v) < 0) {
                    rc = 1;
                    for (uint32_t z = 0; z < m; z++) {
                        buf_free(&nrg[z].lo);
                        buf_free(&nrg[z].hi);
                    }
                    goto fail;
                }
                buf_append(&d->hi, d->lo.data, d->lo.len);
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            buf_free(&r[i].lo);
            buf_free(&r[i].hi);
        }
        r = nrg;
        n = m;
        if (!n)
            goto done;
    }
    if (p->range && p->conds[ix->cols[p->neq].col].nors) {
        /* a union of ranges on the next column: each prefix so far times each disjunct */
        uint32_t k = p->neq;
        const column_cond_t *c = &p->conds[ix->cols[k].col];
        rc_col_t rcol = table_index_rc(t, (uint32_t)p->index, k);
        const cat_column_t *col = &t->cols[ix->cols[k].col];
        key_range_t *nrg = arena_calloc(a, sizeof *nrg * ((size_t)n * c->nors + 1));
        uint32_t m = 0;
        for (uint32_t j = 0; j < c->nors && rc == 0; j++) {
            value_t lo = value_null(), hi = value_null();
            const or_range_t *o = &c->ors[j];
            if (o->lo && (rc = row_eval(xe, o->lo, row, &lo)) != 0)
                break;
            if (o->hi && (rc = o->hi == o->lo ? (hi = lo, 0) : row_eval(xe, o->hi, row, &hi)) != 0)
                break;
            if ((o->lo && lo.type == VAL_NULL) || (o->hi && hi.type == VAL_NULL))
                continue; /* this disjunct is never true */
            bool point = o->lo == o->hi;
            if ((o->lo && !key_compatible(col, &lo, !point)) || (o->hi && !key_compatible(col, &hi, !point))) {
                rc = 1;
                break;
            }
            for (uint32_t i = 0; i < n && rc == 0; i++) {
                key_range_t *d = &nrg[m++];
                buf_init(&d->lo);
                buf_init(&d->hi);
                d->has_lo = d->has_hi = true;
                buf_append(&d->lo, r[i].lo.data, r[i].lo.len);
                buf_append(&d->hi, r[i].hi.data, r[i].hi.len);
                if (o->lo && rc_key_append(&d->lo, &rcol, &lo) < 0)
                    rc = 1;
                else if (!o->lo && rcol.nullable)
                    buf_append_byte(&d->lo, 0x01); /* skip NULLs: col < x is never true for NULL */
                if (rc == 0 && o->hi && rc_key_append(&d->hi, &rcol, &hi) < 0)
                    rc = 1;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            buf_free(&r[i].lo);
            buf_free(&r[i].hi);
        }
        r = nrg;
        n = m;
        if (rc)
            goto fail;
    } else if (p->range) {
        uint32_t k = p->neq;
        const column_cond_t *c = &p->conds[ix->cols[k].col];
        rc_col_t rcol = table_index_rc(t, (uint32_t)p->index, k);
        const cat_column_t *col = &t->cols[ix->cols[k].col];
        value_t lo = value_null(), hi = value_null();
        if (c->lo && (rc = row_eval(xe, c->lo, row, &lo)) != 0)
            goto fail;
        if (c->hi && (rc = row_eval(xe, c->hi, row, &hi)) != 0)
            goto fail;
        if ((c->lo && lo.type == VAL_NULL) || (c->hi && hi.type == VAL_NULL)) {
            n = 0; /* col > NULL is never true */
            goto done;
        }
        if ((c->lo && (!key_compatible(col, &lo, true) || !key_in_coll(xe, col, &lo, true))) ||
            (c->hi && (!key_compatible(col, &hi, true) || !key_in_coll(xe, col, &hi, true)))) {
            rc = 1;
            goto fail;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (c->lo) {
                if (rcol.nullable) {
                    /* the key of a non-NULL value starts with 0x01 (NULLs sort first and never match a range) */
                }
                if (rc_key_append(&r[i].lo, &rcol, &lo) < 0) {
                    rc = 1;
                    goto fail;
                }
            } else if (rcol.nullable) {
                buf_append_byte(&r[i].lo, 0x01); /* skip NULLs: col < x is never true for NULL */
            }
            if (c->hi) {
                if (rc_key_append(&r[i].hi, &rcol, &hi) < 0) {
                    rc = 1;
                    goto fail;
                }
            }
        }
    }
    if (n > 1) {
        /* sorted by their low ends, overlapping ranges merged: a row is read once (bounds are inclusive key
         * prefixes: a high end covers every key it begins, so of two high ends equal on the shorter's length the
         * shorter reaches further) */
        qsort(r, n, sizeof *r, cmp_range);
        uint32_t w = 1;
        for (uint32_t i = 1; i < n; i++) {
            key_range_t *cur = &r[w - 1];
            size_t ml = MIN(r[i].lo.len, cur->hi.len);
            if (ml == 0 || memcmp(r[i].lo.data, cur->hi.data, ml) <= 0) {
                size_t mh = MIN(r[i].hi.len, cur->hi.len);
                int c = mh ? memcmp(r[i].hi.data, cur->hi.data, mh) : 0;
                if (c > 0 || (c == 0 && r[i].hi.len < cur->hi.len)) {
                    buf_t t = cur->hi;
                    cur->hi = r[i].hi;
                    r[i].hi = t;
                }
                buf_free(&r[i].lo);
                buf_free(&r[i].hi);
                continue;
            }
            r[w++] = r[i];
        }
        n = w;
    }
done:
    *out = r;
    *nr = n;
    return 0;
fail:
    for (uint32_t i = 0; i < n; i++) {
        buf_free(&r[i].lo);
        buf_free(&r[i].hi);
    }
    *out = NULL;
    *nr = 0;
    return rc;
}

void free_ranges(key_range_t *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        buf_free(&r[i].lo);
        buf_free(&r[i].hi);
    }
}
