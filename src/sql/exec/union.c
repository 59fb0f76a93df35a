/*
 * UNION [ALL | DISTINCT]: every member SELECT run in turn, their rows typed by MariaDB's aggregation of the
 * members' column types, duplicates removed on a memcomparable key, then the UNION's own ORDER BY and LIMIT.
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

/* ---------------------------------------------------------------- UNION, INTERSECT, EXCEPT */

typedef struct rowset {
    value_t **rows;
    uint64_t n;
} rowset_t;

/* Each row's key id in km (rows equal under the columns' collations share one). */
static uint32_t *row_ids(keymap_t *km, arena_t *a, const rowset_t *r, uint32_t ncols)
{
    uint32_t *ids = arena_alloc(a, sizeof(uint32_t) * (r->n + 1));
    buf_t k;
    buf_init(&k);
    for (uint64_t i = 0; i < r->n; i++) {
        k.len = 0;
        for (uint32_t c = 0; c < ncols; c++)
            key_append_value(&k, &r->rows[i][c], false);
        bool added;
        ids[i] = keymap_put(km, k.data, k.len, &added);
    }
    buf_free(&k);
    return ids;
}

typedef struct idset {
    rowset_t r;
    uint32_t *ids;
} idset_t;

static void idset_push(arena_t *a, idset_t *s, uint64_t *cap, value_t *row, uint32_t id)
{
    if (s->r.n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        value_t **nr = arena_alloc(a, sizeof(value_t *) * *cap);
        uint32_t *ni = arena_alloc(a, sizeof(uint32_t) * *cap);
        if (s->r.n) {
            memcpy(nr, s->r.rows, sizeof(value_t *) * s->r.n);
            memcpy(ni, s->ids, sizeof(uint32_t) * s->r.n);
        }
        s->r.rows = nr;
        s->ids = ni;
    }
    s->r.rows[s->r.n] = row;
    s->ids[s->r.n++] = id;
}

/* a op b as multisets (ALL) or sets: UNION keeps a's rows then b's, INTERSECT and EXCEPT keep a's order. */
static idset_t set_apply(arena_t *ar, uint32_t nkeys, const idset_t *a, const idset_t *b, sql_setop_t op, bool all)
{
    idset_t out = {{NULL, 0}, NULL};
    uint64_t cap = 0;
    uint64_t *cnt = mem_calloc((size_t)nkeys + 1, sizeof *cnt);
    bool *emitted = mem_calloc((size_t)nkeys + 1, sizeof *emitted);
    if (op == SQL_SETOP_UNION) {
        for (int side = 0; side < 2; side++) {
            const idset_t *s = side ? b : a;
            for (uint64_t i = 0; i < s->r.n; i++) {
                if (!all && emitted[s->ids[i]])
                    continue;
                emitted[s->ids[i]] = true;
                idset_push(ar, &out, &cap, s->r.rows[i], s->ids[i]);
            }
        }
    } else {
        for (uint64_t i = 0; i < b->r.n; i++)
            cnt[b->ids[i]]++;
        for (uint64_t i = 0; i < a->r.n; i++) {
            uint32_t id = a->ids[i];
            bool keep;
            if (op == SQL_SETOP_INTERSECT) {
                keep = all ? cnt[id] > 0 : cnt[id] > 0 && !emitted[id];
                if (keep && all)
                    cnt[id]--;
            } else if (all) {
                keep = cnt[id] == 0;
                if (!keep)
                    cnt[id]--;
            } else {
                keep = cnt[id] == 0 && !emitted[id];
            }
            if (!keep)
                continue;
            emitted[id] = true;
            idset_push(ar, &out, &cap, a->r.rows[i], id);
        }
    }
    mem_free(cnt);
    mem_free(emitted);
    return out;
}

/* The members' rows combined as the chain says.  A chain of UNIONs only: a UNION DISTINCT removes duplicates
 * among the members up to it (MySQL: it overrides any UNION ALL to its left), the members after the last one
 * are appended as they are.  With INTERSECT or EXCEPT: INTERSECT first (it binds tighter), then UNION and
 * EXCEPT from left to right, as MariaDB does. */
static int combine(sql_exec_ctx_t *x, const sql_select_t *first, rowset_t *sets, uint32_t nmembers, uint32_t ncols,
                   value_t ***rows_out, uint64_t *n_out)
{
    keymap_t km;
    keymap_init(&km, x->arena);
    bool only_union = true;
    for (const sql_select_t *m = first; m->union_next; m = m->union_next)
        only_union &= m->set_op == SQL_SETOP_UNION;
    if (only_union) {
        int dedupe_upto = -1, idx = 0;
        for (const sql_select_t *m = first; m->union_next; m = m->union_next, idx++)
            if (!m->union_all)
                dedupe_upto = idx + 1;
        idset_t out = {{NULL, 0}, NULL};
        uint64_t cap = 0;
        bool *seen = NULL; /* by key id: produced by a distinct member already */
        uint32_t nseen = 0;
        for (uint32_t i = 0; i < nmembers; i++) {
            bool distinct = (int)i <= dedupe_upto;
            uint32_t *rid = distinct ? row_ids(&km, x->arena, &sets[i], ncols) : NULL;
            if (distinct && km.n > nseen) {
                seen = mem_realloc(seen, km.n);
                memset(seen + nseen, 0, km.n - nseen);
                nseen = km.n;
            }
            for (uint64_t r = 0; r < sets[i].n; r++) {
                if (distinct) {
                    if (seen[rid[r]])
                        continue;
                    seen[rid[r]] = true;
                }
                idset_push(x->arena, &out, &cap, sets[i].rows[r], 0);
            }
        }
        mem_free(seen);
        keymap_free(&km);
        *rows_out = out.r.rows;
        *n_out = out.r.n;
        return 0;
    }
    idset_t *ids = arena_calloc(x->arena, sizeof(idset_t) * (nmembers + 1));
    for (uint32_t i = 0; i < nmembers; i++) {
        ids[i].r = sets[i];
        ids[i].ids = row_ids(&km, x->arena, &sets[i], ncols);
    }
    uint32_t nkeys = km.n;
    keymap_free(&km);
    /* terms: runs of members joined by INTERSECT, each reduced to one set */
    idset_t result = {{NULL, 0}, NULL}, term = ids[0];
    sql_setop_t pending = SQL_SETOP_UNION;
    bool pending_all = true, have_result = false;
    uint32_t i = 0;
    for (const sql_select_t *m = first; m; m = m->union_next, i++) {
        if (m->union_next && m->set_op == SQL_SETOP_INTERSECT) {
            term = set_apply(x->arena, nkeys, &term, &ids[i + 1], SQL_SETOP_INTERSECT, m->union_all);
            continue;
        }
        result = have_result ? set_apply(x->arena, nkeys, &result, &term, pending, pending_all) : term;
        have_result = true;
        if (m->union_next) {
            pending = m->set_op;
            pending_all = m->union_all;
            term = ids[i + 1];
        }
    }
    *rows_out = result.r.rows;
    *n_out = result.r.n;
    return 0;
}

int union_rows(sql_exec_ctx_t *x, const sql_select_t *first, uint64_t dflt_limit, value_t ***rows_out, uint64_t *n_out,
                      uint32_t *ncols_out, res_col_t **cols_out)
{
    uint32_t nmembers = 0;
    for (const sql_select_t *m = first; m; m = m->union_next)
        nmembers++;
    rowset_t *sets = arena_calloc(x->arena, sizeof(rowset_t) * (nmembers + 1));
    int member = 0;
    value_t **rows = NULL;
    uint64_t n = 0;
    uint32_t ncols = 0;
    res_col_t *cols = NULL;
    sql_rtype_t *urt = NULL; /* the union's static column types, while every member's are known */
    bool *uknown = NULL;
    int rc = 0;
    for (const sql_select_t *m = first; m && !rc; m = m->union_next) {
        select_run_t s;
        rc = select_run_prepare(&s, x, m, true);
        if (!rc) {
            s.collect_only = true;
            rc = select_run_run(&s);
        }
        if (!rc) {
            const value_t *fv = s.nout > s.offset ? s.outs[s.offset].vals : NULL;
            if (m == first) {
                ncols = s.nitems;
                cols = arena_calloc(x->arena, sizeof(res_col_t) * (ncols + 1));
                urt = arena_calloc(x->arena, sizeof(sql_rtype_t) * (ncols + 1));
                uknown = arena_calloc(x->arena, sizeof(bool) * (ncols + 1));
                for (uint32_t i = 0; i < ncols; i++) {
                    item_col(&s, i, fv ? &fv[i] : NULL, &cols[i]);
                    uknown[i] = select_run_infer(&s, s.items[i].expr, &urt[i]);
                }
            } else if (s.nitems != ncols) {
                rc = diag_push_msg(x->diag, DIAG_ERROR, 1222, "The used SELECT statements have a different number of columns");
            } else {
                /* the union's column type covers every member's (string > double > decimal > integer) */
                for (uint32_t i = 0; i < ncols; i++) {
                    res_col_t mc;
                    item_col(&s, i, fv ? &fv[i] : NULL, &mc);
                    res_col_t *u = &cols[i];
                    bool us = u->charset != CHARSET_BINARY || u->type == MYSQL_TYPE_BLOB;
                    bool ms = mc.charset != CHARSET_BINARY || mc.type == MYSQL_TYPE_BLOB;
                    if (us || ms) {
                        if (!us) {
                            u->type = mc.type;
                            u->charset = mc.charset;
                            u->decimals = mc.decimals;
                        }
                        u->length = MAX(u->length, mc.length);
                        u->flags &= (uint16_t)~(COLF_NUM | COLF_UNSIGNED);
                    } else if (u->type == MYSQL_TYPE_DOUBLE || mc.type == MYSQL_TYPE_DOUBLE || mc.type == MYSQL_TYPE_FLOAT) {
                        if (u->type != MYSQL_TYPE_DOUBLE) {
                            u->type = MYSQL_TYPE_DOUBLE;
                            u->decimals = 31;
                            u->length = 22;
                        }
                    } else if (u->type == MYSQL_TYPE_NEWDECIMAL || mc.type == MYSQL_TYPE_NEWDECIMAL) {
                        uint8_t d = (uint8_t)MAX(u->type == MYSQL_TYPE_NEWDECIMAL ? u->decimals : 0,
                                                 mc.type == MYSQL_TYPE_NEWDECIMAL ? mc.decimals : 0);
                        u->type = MYSQL_TYPE_NEWDECIMAL;
                        u->decimals = d;
                        u->length = MAX(u->length, mc.length) + d;
                    } else {
                        u->length = MAX(u->length, mc.length);
                    }
                    if (!(mc.flags & COLF_NOT_NULL))
                        u->flags &= (uint16_t)~COLF_NOT_NULL;
                    /* MariaDB types a union column as COALESCE types its arguments */
                    sql_rtype_t mt, two[2];
                    if (uknown[i] && select_run_infer(&s, s.items[i].expr, &mt)) {
                        two[0] = urt[i];
                        two[1] = mt;
                        uknown[i] = sql_rtype_aggregate(x->conn_coll, two, 2, &urt[i]);
                    } else {
                        uknown[i] = false;
                    }
                }
            }
        }
        if (!rc) {
            rowset_t *r = &sets[member];
            uint64_t from = MIN(s.offset, s.nout);
            r->n = MIN(s.nout - from, s.limit);
            r->rows = arena_alloc(x->arena, sizeof(value_t *) * (r->n + 1));
            for (uint64_t i = 0; i < r->n; i++)
                r->rows[i] = s.outs[from + i].vals;
        }
        member++;
        select_run_free(&s);
    }
    if (!rc)
        rc = combine(x, first, sets, nmembers, ncols, &rows, &n);
    if (rc)
        return rc;
    for (uint32_t c = 0; first->union_next && c < ncols; c++) {
        if (!uknown[c] || urt[c].type == MYSQL_TYPE_NULL)
            continue;
        sql_col_meta_t m;
        sql_rtype_meta(&urt[c], &m);
        res_col_t *u = &cols[c];
        u->type = m.type;
        u->decimals = m.decimals;
        u->length = m.length;
        u->charset = m.coll;
        if (m.coll != COLL_BINARY && x->result_coll == COLL_BINARY)
            u->charset = CHARSET_BINARY;
        else if (m.coll != COLL_BINARY && x->result_coll && m.coll != x->result_coll) {
            uint32_t from = value_coll_mbmaxlen(m.coll), to = value_coll_mbmaxlen(x->result_coll);
            u->length = (uint32_t)MIN((uint64_t)(from ? m.length / from : m.length) * to, 4294967295ull);
            u->charset = x->result_coll;
        }
        /* a union column is a temporary table's column: flagged as a table column of its type is (integers
         * without BINARY, strings without the NOT_FIXED decimals, no key / default / auto-increment flags) */
        u->flags &= (uint16_t)(COLF_NOT_NULL | COLF_UNSIGNED | COLF_ZEROFILL | COLF_BINARY | COLF_NUM);
        if (m.coll != COLL_BINARY) {
            u->flags &= (uint16_t)~(COLF_NUM | COLF_UNSIGNED | COLF_BINARY);
            u->decimals = 0;
        } else if (!urt[c].unsig) {
            u->flags &= (uint16_t)~COLF_UNSIGNED;
        }
        if (m.type == MYSQL_TYPE_TINY || m.type == MYSQL_TYPE_SHORT || m.type == MYSQL_TYPE_INT24 ||
            m.type == MYSQL_TYPE_LONG || m.type == MYSQL_TYPE_LONGLONG || m.type == MYSQL_TYPE_NEWDECIMAL ||
            m.type == MYSQL_TYPE_FLOAT || m.type == MYSQL_TYPE_DOUBLE)
            u->flags &= (uint16_t)~COLF_BINARY; /* numbers: BINARY only marks binary strings here */
        else if (m.type == MYSQL_TYPE_VAR_STRING && m.coll == COLL_BINARY)
            u->decimals = 0;
    }
    for (uint32_t c = 0; c < ncols; c++) {
        if (cols[c].type != MYSQL_TYPE_NEWDECIMAL && cols[c].type != MYSQL_TYPE_DOUBLE)
            continue;
        for (uint64_t r = 0; r < n; r++) {
            value_t *v = &rows[r][c];
            if (v->type == VAL_NULL)
                continue;
            if (cols[c].type == MYSQL_TYPE_DOUBLE) {
                if (v->type != VAL_DOUBLE)
                    *v = value_double(value_to_double(v, NULL));
                continue;
            }
            value_t d = value_to_decimal(x->arena, v, NULL);
            if (d.type == VAL_DECIMAL && d.dec < cols[c].decimals) {
                /* pad the fraction to the union's scale */
                size_t extra = cols[c].decimals - d.dec;
                char *t = arena_alloc(x->arena, d.s.len + extra + 2);
                memcpy(t, d.s.ptr, d.s.len);
                size_t k = d.s.len;
                if (!d.dec)
                    t[k++] = '.';
                for (size_t z = 0; z < extra; z++)
                    t[k++] = '0';
                d = value_decimal(x->arena, t, k);
                d.dec = cols[c].decimals;
            }
            *v = d;
        }
    }
    /* ORDER BY / LIMIT of the whole union: by position or by result column name */
    if (first->nunion_order_by) {
        uint32_t no = first->nunion_order_by;
        int *pos = arena_alloc(x->arena, sizeof(int) * no);
        for (uint32_t i = 0; i < no; i++) {
            const sql_expr_t *e = first->union_order_by[i].expr;
            pos[i] = -1;
            if (e->kind == SQL_E_LITERAL && (e->lit.type == VAL_INT || e->lit.type == VAL_UINT)) {
                int64_t p = e->lit.type == VAL_INT ? e->lit.i : (int64_t)e->lit.u;
                if (p >= 1 && (uint64_t)p <= ncols)
                    pos[i] = (int)p - 1;
            } else if (e->kind == SQL_E_COLUMN) {
                for (uint32_t c = 0; c < ncols && pos[i] < 0; c++)
                    if (strcasecmp(cols[c].name, e->col.name) == 0)
                        pos[i] = (int)c;
            }
            if (pos[i] < 0) {
                char nm[128];
                snprintf(nm, sizeof nm, "%.*s", (int)MIN(e->src_len, 100u), e->src ? e->src : "?");
                return diag_error(x->diag, ER_BAD_FIELD_ERROR, nm, "ORDER BY");
            }
        }
        out_row_t *o = mem_alloc(sizeof(out_row_t) * (n + 1));
        for (uint64_t r = 0; r < n; r++) {
            buf_t k;
            buf_init(&k);
            for (uint32_t i = 0; i < no; i++)
                key_append_value(&k, &rows[r][pos[i]], first->union_order_by[i].desc);
            o[r].vals = rows[r];
            o[r].key = arena_alloc(x->arena, k.len + 1);
            if (k.len)
                memcpy(o[r].key, k.data, k.len);
            o[r].klen = k.len;
            buf_free(&k);
        }
        qsort(o, n, sizeof *o, cmp_out);
        for (uint64_t r = 0; r < n; r++)
            rows[r] = o[r].vals;
        mem_free(o);
    }
    row_eval_t xe;
    row_eval_init(&xe, x);
    uint64_t limit = dflt_limit, offset = 0;
    value_t v;
    if (first->union_limit.count) {
        if ((rc = row_eval(&xe, first->union_limit.count, NULL, &v)) != 0)
            return rc;
        limit = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    if (first->union_limit.offset) {
        if ((rc = row_eval(&xe, first->union_limit.offset, NULL, &v)) != 0)
            return rc;
        offset = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    uint64_t k = n > offset ? MIN(n - offset, limit) : 0;
    *rows_out = rows ? rows + (n > offset ? offset : 0) : NULL;
    *n_out = k;
    *ncols_out = ncols;
    if (cols_out)
        *cols_out = cols;
    return 0;
}

int union_send(sql_exec_ctx_t *x, const sql_select_t *sel)
{
    value_t **rows;
    uint64_t n;
    uint32_t ncols;
    res_col_t *cols;
    int rc = union_rows(x, sel, x->limit_selects ? x->select_limit : UINT64_MAX, &rows, &n, &ncols, &cols);
    if (rc)
        return rc;
    select_run_t s;
    memset(&s, 0, sizeof s);
    s.x = x;
    s.nitems = ncols;
    s.cols = cols;
    send_columns(&s);
    for (uint64_t i = 0; i < n; i++)
        send_row(&s, rows[i]);
    x->sink->rows_end(x->sink, x->more);
    x->found_rows = n;
    x->row_count = -1;
    return 0;
}
