/*
 * The SELECT pipeline: select items with * expanded, WHERE through the nested loops (exec/loop.c), GROUP BY
 * with aggregates and HAVING, DISTINCT, ORDER BY (index order when it matches, else a sort on memcomparable
 * keys, top-N in a heap under LIMIT), LIMIT/OFFSET, and the result columns' metadata.
 *
 * Memory of large results (extsort.h): an ORDER BY sort keeps sort_buffer_size bytes of rows in memory and
 * spills sorted runs beyond that.  GROUP BY keeps groups in a hash map up to tmp_table_size; once over it,
 * rows of groups not already in memory go to an external sort on the group key, and the output merges the
 * (sorted) in-memory groups with the groups read back one at a time.  DISTINCT does the same with its set of
 * keys: rows whose key is new once the set is full are sorted by key and de-duplicated when read back.
 * Per-row evaluation uses a scratch arena (select_run_t.rowa) reset for every row, so only what is kept grows.
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

/* ---------------------------------------------------------------- groups */


/* An accumulator's arguments evaluated in one row of the group (sql_agg_src_t). */
typedef struct agg_row {
    row_eval_t *xe;
    const value_t *row;
} agg_row_t;

static int agg_row_eval(void *arg, const sql_expr_t *e, value_t *out)
{
    agg_row_t *r = arg;
    return row_eval(r->xe, e, r->row, out);
}

/* ---------------------------------------------------------------- the SELECT pipeline */





#define XSORT_BUFFER_DEFAULT 2097152u  /* sort_buffer_size's default */
#define XTMP_TABLE_DEFAULT 16777216u   /* tmp_table_size's default */
#define XMAP_ENTRY_OVERHEAD 48u        /* a key's slot, pointers and length in keymap_t */

static size_t sort_budget(const sql_exec_ctx_t *x)
{
    return x->sort_buffer_size ? (size_t)x->sort_buffer_size : XSORT_BUFFER_DEFAULT;
}

static size_t tmp_budget(const sql_exec_ctx_t *x)
{
    return x->tmp_table_size ? (size_t)x->tmp_table_size : XTMP_TABLE_DEFAULT;
}

static extsort_t *sort_new(select_run_t *s)
{
    extsort_t *e = mem_alloc(sizeof *e);
    extsort_init(e, sort_budget(s->x), s->x->tmpdir);
    return e;
}

/* Frees a sorter, adding what it did to the statement's status counters. */
static void sort_done(select_run_t *s, extsort_t **e)
{
    if (!*e)
        return;
    s->x->stats.sort_merge_passes += (*e)->merge_passes;
    s->x->stats.tmp_files += (*e)->files_created;
    extsort_free(*e);
    mem_free(*e);
    *e = NULL;
}

/* An extsort failure (negative errno or STRATA_E*) as MySQL reports a temporary file it cannot write: 1026. */
static int sort_error(select_run_t *s, int rc)
{
    int e = rc < 0 && rc > -10000 ? -rc : EIO;
    return diag_error(s->x->diag, ER_ERROR_ON_WRITE, s->x->tmpdir ? s->x->tmpdir : "/tmp", e, strerror(e));
}

static int item_by_name(select_run_t *s, const sql_expr_t *e)
{
    if (e->kind == SQL_E_LITERAL && (e->lit.type == VAL_INT || e->lit.type == VAL_UINT)) {
        int64_t pos = e->lit.type == VAL_INT ? e->lit.i : (int64_t)e->lit.u;
        if (pos >= 1 && (uint64_t)pos <= s->nitems)
            return (int)(pos - 1);
        return -2;
    }
    if (e->kind == SQL_E_COLUMN && !e->col.table)
        for (uint32_t i = 0; i < s->nitems; i++)
            if (s->items[i].alias && strcasecmp(s->items[i].alias, e->col.name) == 0)
                return (int)i;
    return -1;
}

static int resolve_orders(select_run_t *s, const sql_order_item_t *ob, sql_expr_t **gb, uint32_t n, order_term_t **out,
                          const char *clause)
{
    order_term_t *o = arena_calloc(s->x->arena, sizeof(order_term_t) * (n + 1));
    for (uint32_t i = 0; i < n; i++) {
        sql_expr_t *e = ob ? ob[i].expr : gb[i];
        o[i].desc = ob ? ob[i].desc : false;
        o[i].item = item_by_name(s, e);
        if (o[i].item == -2) {
            char pos[32];
            snprintf(pos, sizeof pos, "%lld", (long long)(e->lit.type == VAL_INT ? e->lit.i : (int64_t)e->lit.u));
            return diag_error(s->x->diag, ER_BAD_FIELD_ERROR, pos, clause);
        }
        if (o[i].item < 0) {
            o[i].expr = e;
            int rc = bind_expr(&s->q, e, clause, ob != NULL);
            if (rc)
                return rc;
        }
    }
    *out = o;
    return 0;
}

/* Evaluates the select items for a row (or a group). */
static int eval_items(select_run_t *s, const value_t *row, value_t *vals)
{
    for (uint32_t i = 0; i < s->nitems; i++) {
        int rc = row_eval(&s->xe, s->items[i].expr, row, &vals[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* ENUM and SET columns sort by their number (index / mask), as MySQL does, though rows carry their names. */
static value_t sort_value(select_run_t *s, const sql_expr_t *e, value_t v)
{
    if (!e || e->kind != SQL_E_COLUMN || e->slot < 0 || v.type != VAL_STRING)
        return v;
    for (uint32_t k = 0; k < s->q.nsrc; k++) {
        const query_source_t *src = &s->q.src[k];
        if ((uint32_t)e->slot < src->base || (uint32_t)e->slot >= src->base + src->t->ncols || src->is_virtual)
            continue;
        const cat_column_t *c = &src->t->cols[(uint32_t)e->slot - src->base];
        if (c->rc.type == SQLT_ENUM) {
            for (uint32_t i = 0; i < c->nelems; i++)
                if (strlen(c->elems[i]) == v.s.len && memcmp(c->elems[i], v.s.ptr, v.s.len) == 0)
                    return value_uint(i + 1);
            return value_uint(0);
        }
        if (c->rc.type == SQLT_SET) {
            uint64_t m = 0;
            size_t i = 0;
            while (i < v.s.len) {
                size_t j = i;
                while (j < v.s.len && v.s.ptr[j] != ',')
                    j++;
                for (uint32_t q = 0; q < c->nelems && q < 64; q++)
                    if (strlen(c->elems[q]) == j - i && memcmp(c->elems[q], v.s.ptr + i, j - i) == 0)
                        m |= 1ull << q;
                i = j + 1;
            }
            return value_uint(m);
        }
    }
    return v;
}

static int order_key(select_run_t *s, const value_t *row, const value_t *vals, buf_t *k)
{
    for (uint32_t i = 0; i < s->norder; i++) {
        value_t v;
        const sql_expr_t *e;
        if (s->order[i].item >= 0) {
            v = vals[s->order[i].item];
            e = s->items[s->order[i].item].expr;
        } else {
            e = s->order[i].expr;
            int rc = row_eval(&s->xe, e, row, &v);
            if (rc)
                return rc;
        }
        v = sort_value(s, e, v);
        key_append_value(k, &v, s->order[i].desc);
    }
    return 0;
}

void send_columns(select_run_t *s)
{
    if (!s->cols_sent && !s->collect_only && !s->discard) {
        uint16_t rc = s->x->result_coll;
        if (rc && rc != COLL_BINARY && value_coll_mbmaxlen(rc) == 1)
            for (uint32_t i = 0; i < s->nitems; i++) {
                /* names come from the (utf8mb4) statement text: a latin1 client reads them in latin1 */
                size_t n, bad;
                if (s->cols[i].name)
                    s->cols[i].name = sql_str_convert(s->x->arena, s->cols[i].name, strlen(s->cols[i].name),
                                                      COLL_UTF8MB4_GENERAL_CI, rc, &n, &bad);
            }
        s->x->sink->columns(s->x->sink, s->cols, (int)s->nitems);
        s->cols_sent = true;
    }
}

void item_col(select_run_t *s, uint32_t i, const value_t *first, res_col_t *c);

void send_row(select_run_t *s, const value_t *vals)
{
    sql_exec_ctx_t *x = s->x;
    if (s->discard)
        return;
    arena_t *ra = s->rowa_ok ? &s->rowa : x->arena; /* the sink copies the cells at once */
    if (!s->cols_sent && s->cols && s->sel)
        for (uint32_t i = 0; i < s->nitems; i++)
            if (s->items && s->items[i].src_col < 0)
                item_col(s, i, &vals[i], &s->cols[i]); /* the first row settles an expression's type */
    send_columns(s);
    res_cell_t *cells = arena_alloc(ra, sizeof(res_cell_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++) {
        cells[i].null = vals[i].type == VAL_NULL;
        cells[i].p = "";
        cells[i].len = 0;
        if (cells[i].null)
            continue;
        if (s->cols && s->cols[i].type == MYSQL_TYPE_BIT && (vals[i].type == VAL_UINT || vals[i].type == VAL_INT)) {
            /* BIT(M) goes out as its ceil(M/8) bytes, big-endian, as MySQL sends it */
            uint32_t nb = (s->cols[i].length + 7) / 8;
            nb = nb ? MIN(nb, 8u) : 1;
            char *p = arena_alloc(ra, nb);
            for (uint32_t k = 0; k < nb; k++)
                p[k] = (char)(vals[i].u >> (8 * (nb - 1 - k)));
            cells[i].p = p;
            cells[i].len = nb;
            continue;
        }
        if (vals[i].type == VAL_STRING && x->result_coll && x->result_coll != COLL_BINARY &&
            vals[i].coll != COLL_BINARY && vals[i].coll != x->result_coll) {
            /* strings go out in character_set_results (a latin1 column to a utf8mb4 client, and back) */
            size_t bad;
            cells[i].p = sql_str_convert(ra, vals[i].s.ptr, vals[i].s.len, vals[i].coll, x->result_coll,
                                         &cells[i].len, &bad);
            continue;
        }
        if (s->cols && (s->cols[i].type == MYSQL_TYPE_NEWDECIMAL ||
                        (s->cols[i].type == MYSQL_TYPE_DATETIME && vals[i].type == VAL_DATE))) {
            /* a DECIMAL column shows every value with its scale (COALESCE(SUM(x), 0) over no rows: 0.00), a
             * DATETIME column a DATE at midnight (COALESCE(date, datetime)) */
            value_t v = sql_rtype_format(ra, s->cols[i].type, s->cols[i].decimals, &vals[i]);
            cells[i].p = value_to_text(ra, &v, &cells[i].len);
            continue;
        }
        cells[i].p = value_to_text(ra, &vals[i], &cells[i].len);
    }
    x->sink->row(x->sink, cells);
}

/* One row in the LIMIT heap: key + payload in one allocation, seq = arrival (ties keep the earlier row). */
typedef struct topn_entry {
    uint8_t *rec;
    size_t klen, plen;
    uint64_t seq;
} topn_entry_t;

static int top_cmp(const topn_entry_t *a, const topn_entry_t *b)
{
    int r = memcmp(a->rec, b->rec, MIN(a->klen, b->klen));
    if (r == 0)
        r = a->klen < b->klen ? -1 : a->klen > b->klen;
    return r ? r : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

static void top_down(topn_entry_t *h, uint64_t n, uint64_t i)
{
    for (;;) {
        uint64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && top_cmp(&h[l], &h[m]) > 0)
            m = l;
        if (r < n && top_cmp(&h[r], &h[m]) > 0)
            m = r;
        if (m == i)
            return;
        topn_entry_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int top_cmp_qsort(const void *a, const void *b) { return top_cmp(a, b); }
static int top_seq_qsort(const void *a, const void *b)
{
    const topn_entry_t *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void top_free(select_run_t *s)
{
    if (!s->top)
        return;
    for (uint64_t i = 0; i < s->topn; i++)
        mem_free(s->top[i].rec);
    mem_free(s->top);
    s->top = NULL;
    s->topn = 0;
}

/* Moves the heap's rows into s->osort: in arrival order (the heap outgrew its budget: the sort goes on there,
 * stable) or in sorted order (the end of a LIMIT sort). */
static int top_flush(select_run_t *s, bool sorted)
{
    if (s->topn > 1)
        qsort(s->top, s->topn, sizeof *s->top, sorted ? top_cmp_qsort : top_seq_qsort);
    if (!s->osort)
        s->osort = sort_new(s);
    int rc = 0;
    for (uint64_t i = 0; i < s->topn && !rc; i++)
        rc = extsort_add(s->osort, s->top[i].rec, s->top[i].klen, s->top[i].rec + s->top[i].klen, s->top[i].plen);
    top_free(s);
    return rc ? sort_error(s, rc) : 0;
}

/* Offers a row (order key + payload in k) to the LIMIT heap. */
static int top_add(select_run_t *s, const buf_t *k, size_t kl)
{
    topn_entry_t t = {.klen = kl, .plen = k->len - kl, .seq = s->topseq++};
    if (s->topn == s->topk) {
        t.rec = (uint8_t *)k->data; /* compared in place: copied only if it goes in */
        if (top_cmp(&t, &s->top[0]) >= 0)
            return 0;
        s->topmem -= s->top[0].klen + s->top[0].plen;
        mem_free(s->top[0].rec);
        t.rec = mem_alloc(k->len ? k->len : 1);
        memcpy(t.rec, k->data, k->len);
        s->top[0] = t;
        top_down(s->top, s->topn, 0);
    } else {
        if (s->topn == s->topcap) {
            s->topcap = MIN(s->topk, s->topcap * 2);
            s->top = mem_realloc(s->top, sizeof(topn_entry_t) * s->topcap);
        }
        t.rec = mem_alloc(k->len ? k->len : 1);
        memcpy(t.rec, k->data, k->len);
        uint64_t i = s->topn++;
        s->top[i] = t;
        while (i > 0 && top_cmp(&s->top[(i - 1) / 2], &s->top[i]) < 0) {
            topn_entry_t x = s->top[i];
            s->top[i] = s->top[(i - 1) / 2];
            s->top[(i - 1) / 2] = x;
            i = (i - 1) / 2;
        }
    }
    s->topmem += k->len + sizeof(topn_entry_t);
    if (s->topmem > sort_budget(s->x))
        return top_flush(s, false); /* too big for a priority queue: an ordinary (external) sort */
    return 0;
}

/* A row past DISTINCT: straight out (streaming), into the ORDER BY sort, or kept.  okey: its order key when
 * already computed (rows read back from the DISTINCT sort have no source row any more).  1 = LIMIT reached. */
static int out_row_unique(select_run_t *s, const value_t *row, const value_t *vals, const uint8_t *okey, size_t oklen)
{
    s->total++;
    if (s->streaming) {
        if (s->skipped < s->offset) {
            s->skipped++;
            return 0;
        }
        if (s->sent >= s->limit)
            return s->sel->calc_found_rows ? 0 : 1;
        if (s->push) {
            int rc = s->push(s->push_arg, vals);
            if (rc)
                return rc;
        } else {
            send_row(s, vals);
        }
        s->sent++;
        if (s->sent >= s->limit && !s->sel->calc_found_rows)
            return 1;
        return 0;
    }
    if (s->need_sort) {
        buf_t k;
        buf_init(&k);
        int rc = 0;
        if (okey)
            buf_append(&k, okey, oklen);
        else
            rc = order_key(s, row, vals, &k);
        size_t kl = k.len;
        if (rc == 0) {
            row_pack(&k, vals, s->nitems);
            if (s->top) {
                rc = top_add(s, &k, kl);
            } else {
                if (!s->osort)
                    s->osort = sort_new(s);
                if ((rc = extsort_add(s->osort, k.data, kl, k.data + kl, k.len - kl)) != 0)
                    rc = sort_error(s, rc);
            }
        }
        buf_free(&k);
        if (rc == 0)
            s->nout++;
        return rc;
    }
    if (s->nout == s->capout) {
        s->capout = s->capout ? s->capout * 2 : 64;
        s->outs = mem_realloc(s->outs, sizeof(out_row_t) * s->capout);
    }
    out_row_t *o = &s->outs[s->nout++];
    o->vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++)
        o->vals[i] = value_copy_into(s->ga, &vals[i]);
    o->key = NULL;
    o->klen = 0;
    return 0;
}

/* A finished output row: DISTINCT first.  While the key set fits tmp_table_size it decides alone; after that,
 * rows with keys it does not hold go to s->dsort and are de-duplicated when read back (distinct_drain). */
static int out_row(select_run_t *s, const value_t *row, value_t *vals)
{
    if (s->sel->distinct) {
        buf_t k;
        buf_init(&k);
        for (uint32_t i = 0; i < s->nitems; i++)
            key_append_value(&k, &vals[i], false);
        if (!s->dsort) {
            bool added;
            keymap_put(&s->distinct, k.data, k.len, &added);
            if (added) {
                s->dmem += k.len + XMAP_ENTRY_OVERHEAD;
                if (s->dmem > tmp_budget(s->x)) {
                    s->dsort = sort_new(s);
                    s->x->stats.tmp_disk_tables++;
                }
            }
            buf_free(&k);
            if (!added)
                return 0;
        } else {
            int rc = 0;
            if (keymap_find(&s->distinct, k.data, k.len) < 0) {
                buf_t pay;
                buf_init(&pay);
                uint32_t ol = 0;
                buf_append(&pay, &ol, 4);
                if (s->need_sort && (rc = order_key(s, row, vals, &pay)) == 0) {
                    ol = (uint32_t)(pay.len - 4);
                    memcpy(pay.data, &ol, 4);
                }
                if (rc == 0) {
                    row_pack(&pay, vals, s->nitems);
                    if ((rc = extsort_add(s->dsort, k.data, k.len, pay.data, pay.len)) != 0)
                        rc = sort_error(s, rc);
                }
                buf_free(&pay);
            }
            buf_free(&k);
            return rc;
        }
    }
    return out_row_unique(s, row, vals, NULL, 0);
}

/* The DISTINCT rows that went to disk: sorted by key, the first of each key goes on. */
static int distinct_drain(select_run_t *s)
{
    if (!s->dsort)
        return 0;
    int rc = extsort_finish(s->dsort);
    if (rc)
        return sort_error(s, rc);
    buf_t last;
    buf_init(&last);
    bool have = false;
    value_t *vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
    const uint8_t *k, *p;
    size_t kl, pl;
    int n;
    while ((n = extsort_next(s->dsort, &k, &kl, &p, &pl)) == 1) {
        if (have && last.len == kl && memcmp(last.data, k, kl) == 0)
            continue;
        buf_reset(&last);
        buf_append(&last, k, kl);
        have = true;
        arena_reset(&s->rowa);
        uint32_t ol;
        memcpy(&ol, p, 4);
        row_unpack(&s->rowa, p + 4 + ol, vals, s->nitems);
        rc = out_row_unique(s, NULL, vals, s->need_sort ? p + 4 : NULL, ol);
        if (rc)
            break;
    }
    buf_free(&last);
    if (n < 0)
        return sort_error(s, n);
    return rc < 0 ? rc : 0;
}

static int on_row(void *arg, const value_t *row)
{
    select_run_t *s = arg;
    arena_reset(&s->rowa);
    if (s->aggregate) {
        buf_t k;
        buf_init(&k);
        size_t *cut = arena_alloc(&s->rowa, sizeof(size_t) * (s->ngroup + 1));
        for (uint32_t i = 0; i < s->ngroup; i++) {
            value_t v;
            cut[i] = k.len;
            const sql_expr_t *ge = s->group[i].item >= 0 ? s->items[s->group[i].item].expr : s->group[i].expr;
            int rc = row_eval(&s->xe, ge, row, &v);
            if (rc) {
                buf_free(&k);
                return rc;
            }
            v = sort_value(s, ge, v);
            key_append_value(&k, &v, s->sel->group_desc && s->sel->group_desc[i]); /* GROUP BY x DESC (MariaDB) */
        }
        /* WITH ROLLUP: the row also counts in one super-aggregate group per level; their keys are the prefix
         * of the level's columns and 0xFF, which sorts after every group under that prefix */
        int levels = s->sel->with_rollup ? (int)s->ngroup : 0;
        for (int lv = (int)s->ngroup; lv >= (int)s->ngroup - levels && lv >= 0; lv--) {
            buf_t lk;
            buf_init(&lk);
            if (lv == (int)s->ngroup) {
                buf_append(&lk, k.data, k.len);
            } else {
                buf_append(&lk, k.data, cut[lv]);
                buf_append_byte(&lk, 0xFF);
            }
            bool added = false;
            int64_t gi;
            if (!s->gsort) {
                gi = keymap_put(&s->gmap, lk.data, lk.len, &added);
            } else if ((gi = keymap_find(&s->gmap, lk.data, lk.len)) < 0) {
                /* over tmp_table_size: a row of a group not in memory is sorted aside with its level */
                buf_t pay;
                buf_init(&pay);
                uint32_t l32 = (uint32_t)lv;
                buf_append(&pay, &l32, 4);
                row_pack(&pay, row, s->q.width);
                int rc = extsort_add(s->gsort, lk.data, lk.len, pay.data, pay.len);
                buf_free(&pay);
                buf_free(&lk);
                if (rc) {
                    buf_free(&k);
                    return sort_error(s, rc);
                }
                continue;
            }
            if (added) {
                if (s->ngroups == s->capgroups) {
                    s->capgroups = s->capgroups ? s->capgroups * 2 : 16;
                    s->groups = mem_realloc(s->groups, sizeof(group_t *) * s->capgroups);
                }
                group_t *g = arena_calloc(s->ga, sizeof *g);
                g->rep = arena_calloc(s->ga, sizeof(value_t) * (s->q.width + s->nitems + 1));
                for (uint32_t i = 0; i < s->q.width; i++)
                    g->rep[i] = value_copy_into(s->ga, &row[i]);
                /* a super-aggregate row shows NULL for the columns rolled up */
                for (uint32_t j = (uint32_t)lv; j < s->ngroup; j++) {
                    const sql_expr_t *ge = s->group[j].item >= 0 ? s->items[s->group[j].item].expr : s->group[j].expr;
                    if (ge->kind == SQL_E_COLUMN && ge->slot >= 0)
                        g->rep[ge->slot] = value_null();
                }
                g->aggs = arena_alloc(s->ga, sizeof(sql_agg_t) * (s->q.nagg + 1));
                for (uint32_t i = 0; i < s->q.nagg; i++)
                    sql_agg_init(&g->aggs[i]);
                buf_init(&g->key);
                buf_append(&g->key, lk.data, lk.len);
                s->groups[s->ngroups++] = g;
                s->gmem += sizeof *g + row_packed_size(g->rep, s->q.width) + sizeof(value_t) * (s->nitems + 1) +
                           sizeof(sql_agg_t) * (s->q.nagg + 1) + 2 * lk.len + XMAP_ENTRY_OVERHEAD + sizeof(group_t *);
                if (s->gmem > tmp_budget(s->x)) {
                    s->gsort = sort_new(s);
                    s->x->stats.tmp_disk_tables++;
                }
            }
            buf_free(&lk);
            group_t *g = s->groups[gi];
            agg_row_t ar = {&s->xe, row};
            sql_agg_src_t src = {agg_row_eval, &ar, s->ga, s->x->diag, s->x->group_concat_max_len};
            for (uint32_t i = 0; i < s->q.nagg; i++) {
                int rc = sql_agg_add(&g->aggs[i], s->q.aggs[i], &src);
                if (rc) {
                    buf_free(&k);
                    return rc;
                }
            }
        }
        buf_free(&k);
        return 0;
    }
    if (win_collecting(s))
        return win_collect(s, row, NULL);
    value_t *vals = arena_alloc(&s->rowa, sizeof(value_t) * (s->nitems + 1));
    int rc = eval_items(s, row, vals);
    if (rc)
        return rc;
    if (s->sel->having) {
        value_t *ext = arena_alloc(&s->rowa, sizeof(value_t) * (s->q.width + s->nitems + 1));
        memcpy(ext, row, sizeof(value_t) * s->q.width);
        memcpy(ext + s->q.width, vals, sizeof(value_t) * s->nitems);
        rc = row_eval_bool(&s->xe, s->sel->having, ext);
        if (rc <= 0)
            return rc;
    }
    return out_row(s, row, vals);
}

static int cmp_group(const void *a, const void *b)
{
    const group_t *x = *(group_t *const *)a, *y = *(group_t *const *)b;
    size_t n = MIN(x->key.len, y->key.len);
    int r = memcmp(x->key.data, y->key.data, n);
    return r ? r : (x->key.len < y->key.len ? -1 : x->key.len > y->key.len);
}

int cmp_out(const void *a, const void *b)
{
    const out_row_t *x = a, *y = b;
    size_t n = MIN(x->klen, y->klen);
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->klen < y->klen ? -1 : x->klen > y->klen);
}

/* sql_type_infer()'s view of a bound column: its catalog type (nullable under the inner side of a LEFT JOIN). */
static int select_run_col_type(void *u, const sql_expr_t *col, sql_rtype_t *out)
{
    const select_run_t *s = u;
    uint32_t slot = (uint32_t)col->slot;
    for (uint32_t k = 0; k < s->q.nsrc; k++) {
        const query_source_t *src = &s->q.src[k];
        if (slot < src->base || slot >= src->base + src->t->ncols)
            continue;
        const cat_column_t *cc = &src->t->cols[slot - src->base];
        res_col_t c;
        column_meta(&c, src->t, slot - src->base, "", "", "");
        memset(out, 0, sizeof *out);
        out->type = c.type;
        out->coll = c.charset;
        out->dec = c.decimals;
        out->len = c.length;
        out->unsig = (c.flags & COLF_UNSIGNED) != 0;
        out->nullable = !(c.flags & COLF_NOT_NULL) || ((src->join == SQL_JOIN_LEFT || src->in_group) && k > 0);
        if (c.flags & COLF_ENUM)
            out->flags |= COLF_ENUM;
        if (c.flags & COLF_SET)
            out->flags |= COLF_SET;
        sqlt_t ty = (sqlt_t)cc->rc.type;
        if (sqlt_is_int(ty))
            out->prec = c.length - (out->unsig ? 0 : 1);
        else if (ty == SQLT_DECIMAL)
            out->prec = cc->rc.len;
        else if (c.charset != COLL_BINARY && (sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET)) {
            uint32_t mb = value_coll_mbmaxlen(c.charset);
            out->len = mb ? c.length / mb : c.length;
        }
        return 0;
    }
    return -1;
}

/* Whether e reads a column outside any aggregate call. */
static bool col_outside_agg(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_COLUMN)
        return true;
    if (e->kind == SQL_E_FUNC && sql_expr_is_aggregate(e))
        return false;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (col_outside_agg(e->args[i]))
            return true;
    return col_outside_agg(e->else_expr);
}

/* The static type of a select item (false: only its values will tell). */
bool select_run_infer(const select_run_t *s, const sql_expr_t *e, sql_rtype_t *rt)
{
    sql_typeinf_env_t env = {.column = select_run_col_type, .user = (void *)s, .conn_coll = s->x->conn_coll,
                             .div_precision_increment = s->x->div_precision_increment};
    if (e->kind == SQL_E_FUNC && (e->func.fn == SQL_FN_MIN || e->func.fn == SQL_FN_MAX) && e->nargs == 1 &&
        e->args[0]->kind == SQL_E_COLUMN) {
        /* MIN/MAX of a string, ENUM, SET or BIT column keep the column's own definition (item_col) */
        sql_rtype_t c;
        if (!sql_type_infer(&env, e->args[0], &c) || c.coll != COLL_BINARY || c.type == MYSQL_TYPE_BIT ||
            c.type == MYSQL_TYPE_STRING || c.type == MYSQL_TYPE_VAR_STRING || c.type == MYSQL_TYPE_BLOB)
            return false;
    }
    if (!sql_type_infer(&env, e, rt))
        return false;
    if (s->aggregate && s->ngroup == 0 && col_outside_agg(e))
        rt->nullable = true; /* aggregates without GROUP BY: over no rows the other items are NULL */
    return true;
}

/* Result column metadata of item i. */
/* A select item MariaDB describes as a JSON document (format=json in its extended metadata): a JSON column, a
 * JSON function that returns a document (not JSON_UNQUOTE, JSON_VALUE, JSON_TYPE, JSON_KEYS ...), or IFNULL /
 * COALESCE over such items only. */
static bool item_is_json(const sql_expr_t *e)
{
    if (e->kind == SQL_E_COLUMN)
        return e->bound_json;
    if (e->kind != SQL_E_FUNC)
        return false;
    if (sql_fn_flags(e->func.fn) & SQL_FNF_JSON_META)
        return true;
    if (e->func.fn == SQL_FN_IFNULL || e->func.fn == SQL_FN_COALESCE) {
        for (uint32_t i = 0; i < e->nargs; i++)
            if (!item_is_json(e->args[i]))
                return false;
        return e->nargs > 0;
    }
    return false;
}

void item_col(select_run_t *s, uint32_t i, const value_t *first, res_col_t *c)
{
    int slot = s->items[i].src_col;
    if (slot >= 0) {
        for (uint32_t k = 0; k < s->q.nsrc; k++) {
            const query_source_t *src = &s->q.src[k];
            if ((uint32_t)slot >= src->base && (uint32_t)slot < src->base + src->t->ncols) {
                if (src->dcols) {
                    /* a merged derived table's column is its select item (already in the results' charset) */
                    *c = src->dcols[(uint32_t)slot - src->base];
                    c->name = s->items[i].name;
                    c->table = c->org_table = src->alias;
                    if ((src->join == SQL_JOIN_LEFT || src->in_group) && k > 0)
                        c->flags &= (uint16_t)~COLF_NOT_NULL;
                    return;
                }
                column_meta_results(s->x, c, src->t, (uint32_t)slot - src->base, src->db, src->alias, s->items[i].name);
                if ((src->join == SQL_JOIN_LEFT || src->in_group) && k > 0)
                    c->flags &= (uint16_t)~COLF_NOT_NULL;
                return;
            }
        }
    }
    const sql_expr_t *e = s->items[i].expr;
    sql_rtype_t rt;
    sql_col_meta_t m;
    bool known = select_run_infer(s, e, &rt);
    if (known) {
        sql_rtype_meta(&rt, &m);
        goto fill;
    }
    /* aggregates over a column: MariaDB derives their type from the column */
    if (e->kind == SQL_E_FUNC && e->nargs == 1 && e->args[0]->kind == SQL_E_COLUMN && e->args[0]->slot >= 0 &&
        !e->func.distinct) {
        int as = e->args[0]->slot;
        for (uint32_t k = 0; k < s->q.nsrc; k++) {
            const query_source_t *src = &s->q.src[k];
            if ((uint32_t)as < src->base || (uint32_t)as >= src->base + src->t->ncols)
                continue;
            const cat_column_t *cc = &src->t->cols[(uint32_t)as - src->base];
            sqlt_t ty = (sqlt_t)cc->rc.type;
            if (e->func.fn == SQL_FN_MIN || e->func.fn == SQL_FN_MAX) {
                column_meta_results(s->x, c, src->t, (uint32_t)as - src->base, "", "", s->items[i].name);
                c->schema = c->table = c->org_table = c->org_name = "";
                c->flags &= (uint16_t)(COLF_UNSIGNED | COLF_BINARY | COLF_NUM | COLF_ZEROFILL | COLF_BLOB);
                if (sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET)
                    c->decimals = 39; /* MariaDB's NOT_FIXED_DEC on string results */
                return;
            }
            if ((e->func.fn == SQL_FN_SUM || e->func.fn == SQL_FN_AVG) && (sqlt_is_int(ty) || ty == SQLT_DECIMAL)) {
                uint32_t prec = ty == SQLT_DECIMAL ? cc->rc.len : (cc->display_width ? cc->display_width : 11);
                uint32_t sc = ty == SQLT_DECIMAL ? cc->rc.scale : 0;
                if (e->func.fn == SQL_FN_AVG)
                    sc += s->x->div_precision_increment ? s->x->div_precision_increment : 4;
                memset(c, 0, sizeof *c);
                c->schema = c->table = c->org_table = c->org_name = "";
                c->name = s->items[i].name;
                c->type = MYSQL_TYPE_NEWDECIMAL;
                c->charset = CHARSET_BINARY;
                c->decimals = (uint8_t)sc;
                c->length = e->func.fn == SQL_FN_SUM ? prec + 22 + (sc ? 1 : 0) + 1 : prec + 4 + (sc ? 1 : 0);
                c->flags = COLF_BINARY | COLF_NUM;
                return;
            }
        }
    }
    sql_item_meta(e, first, &m);
fill:
    memset(c, 0, sizeof *c);
    c->schema = c->table = c->org_table = c->org_name = "";
    c->name = s->items[i].name;
    c->type = m.type;
    c->charset = m.coll;
    c->length = m.length;
    c->decimals = m.decimals;
    c->json = item_is_json(e);
    c->flags = m.flags;
    if (e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_COUNT)
        c->flags |= COLF_NOT_NULL;
    if (!known && e->kind == SQL_E_FUNC && (e->func.fn == SQL_FN_GROUP_CONCAT || e->func.fn == SQL_FN_JSON_ARRAYAGG ||
                                            e->func.fn == SQL_FN_JSON_OBJECTAGG)) {
        /* group_concat_max_len (1M) is over 512: MariaDB makes it a BLOB-typed text column (JSON_ARRAYAGG and
         * JSON_OBJECTAGG are GROUP_CONCATs there) */
        c->type = MYSQL_TYPE_BLOB;
        c->decimals = 0;
        c->flags &= (uint16_t)~COLF_NOT_NULL;
    }
    if (c->charset != CHARSET_BINARY && s->x->result_coll == COLL_BINARY)
        c->charset = CHARSET_BINARY;
    if (c->charset != CHARSET_BINARY && s->x->result_coll && s->x->result_coll != COLL_BINARY &&
        c->charset != s->x->result_coll) {
        uint32_t from = value_coll_mbmaxlen(c->charset), to = value_coll_mbmaxlen(s->x->result_coll);
        c->length = (uint32_t)MIN((uint64_t)(from ? c->length / from : c->length) * to, 4294967295ull);
        c->charset = s->x->result_coll;
    }
}

/* Sets up items (with * expanded), binds everything, decides streaming vs sorting. */
/* First step of preparing a SELECT: its tables opened (metadata locks, catalog references) and how it locks. */
static int select_run_open(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, bool member)
{
    memset(s, 0, sizeof *s);
    s->x = x;
    s->sel = sel;
    s->ga = x->arena;
    arena_init(&s->rowa, 8192);
    s->rowa_ok = true;
    int rc;
    if (sel->union_next && !member)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "UNION here");
    if (!sel->from) {
        memset(&s->q, 0, sizeof s->q);
        s->q.x = x;
    } else if ((rc = bind_from_where(&s->q, x, sel->from, sel->where)) != 0) {
        return rc;
    }
    s->q.no_reorder |= sel->straight_join; /* SELECT STRAIGHT_JOIN: FROM order */
    s->q.locking = sel->lock != SQL_LOCK_NONE;
    s->q.lock_shared = sel->lock == SQL_LOCK_FOR_SHARE;
    if (!s->q.locking && ((x->isolation == 3 && x->ss && (!x->autocommit || x->ss->explicit_begin)) ||
                          (x->insert_select && x->isolation >= 2))) {
        /* SERIALIZABLE inside a transaction: plain reads are LOCK IN SHARE MODE reads (InnoDB's rule; an
         * autocommit SELECT stays a consistent read).  INSERT ... SELECT at REPEATABLE READ or above reads its
         * sources with shared next-key locks (InnoDB's rule, so the statement is replayed identically). */
        s->q.locking = true;
        s->q.lock_shared = true;
    }
    return 0;
}

/* Marks in need[] (slots of the combined row below width) the columns e reads.  False when e reads what binding
 * does not see: a subquery (bound when it runs, maybe correlated) or an outer reference. */
static bool expr_needs(const sql_expr_t *e, bool *need, uint32_t width)
{
    if (!e)
        return true;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED || e->kind == SQL_E_STAR ||
        (e->kind == SQL_E_IN && e->sub))
        return false;
    if (e->kind == SQL_E_COLUMN) {
        if (e->slot < 0)
            return false;
        if ((uint32_t)e->slot < width) /* (above: a HAVING reference to a select item) */
            need[e->slot] = true;
        return true;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!expr_needs(e->args[i], need, width))
            return false;
    for (uint32_t i = 0; i < e->nagg_order; i++)
        if (!expr_needs(e->agg_order[i].expr, need, width))
            return false;
    return expr_needs(e->else_expr, need, width);
}

/* The columns of each source the bound SELECT reads (query_source_t.need), so an index holding them all can be read
 * alone.  Left NULL (everything) when some expression hides what it reads. */
static void select_run_need(select_run_t *s)
{
    const sql_select_t *sel = s->sel;
    bool *need = arena_calloc(s->x->arena, s->q.width + 1);
    bool ok = expr_needs(sel->where, need, s->q.width) && expr_needs(sel->having, need, s->q.width);
    for (uint32_t i = 0; i < s->nitems && ok; i++)
        ok = expr_needs(s->items[i].expr, need, s->q.width);
    for (uint32_t i = 0; i < s->q.nsrc && ok; i++)
        ok = expr_needs(s->q.src[i].on, need, s->q.width) && expr_needs(s->q.src[i].group_on, need, s->q.width) &&
             expr_needs(s->q.src[i].jt_doc, need, s->q.width);
    for (uint32_t i = 0; i < s->ngroup && ok; i++)
        ok = s->group[i].item >= 0 || expr_needs(s->group[i].expr, need, s->q.width);
    for (uint32_t i = 0; i < s->norder && ok; i++)
        ok = s->order[i].item >= 0 || expr_needs(s->order[i].expr, need, s->q.width);
    s->need = ok ? need : NULL;
    for (uint32_t i = 0; i < s->q.nsrc; i++)
        s->q.src[i].need = ok ? need + s->q.src[i].base : NULL;
}

/* One column of a `*`: a select item naming it. */
static void star_item(select_run_t *s, const query_source_t *src, uint32_t c)
{
    sql_expr_t *ce = arena_calloc(s->x->arena, sizeof *ce);
    ce->kind = SQL_E_COLUMN;
    ce->col.name = src->t->cols[c].name;
    ce->slot = (int32_t)(src->base + c);
    ce->src = ce->col.name;
    ce->src_len = (uint32_t)strlen(ce->col.name);
    select_col_t *it = &s->items[s->nitems++];
    it->expr = ce;
    it->name = src->t->cols[c].name;
    it->src_col = ce->slot;
}

/* Second step: the select items (* expanded) and every clause bound to the opened sources. */
static int select_run_bind(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    const sql_select_t *sel = s->sel;
    int rc;
    uint32_t n = 0;
    for (uint32_t i = 0; i < sel->nitems; i++) {
        const sql_expr_t *e = sel->items[i].expr;
        if (e->kind == SQL_E_STAR && !e->col.table && s->q.star.n) {
            n += s->q.star.n;
        } else if (e->kind == SQL_E_STAR) {
            for (uint32_t k = 0; k < s->q.nsrc; k++)
                if (!e->col.table || strcmp(e->col.table, s->q.src[k].alias) == 0)
                    n += s->q.src[k].t->ncols;
        } else {
            n++;
        }
    }
    s->items = arena_calloc(x->arena, sizeof(select_col_t) * (n + 1));
    for (uint32_t i = 0; i < sel->nitems; i++) {
        sql_expr_t *e = sel->items[i].expr;
        if (e->kind == SQL_E_STAR && !e->col.table && s->q.star.n) {
            for (uint32_t k = 0; k < s->q.star.n; k++) {
                star_item(s, &s->q.src[s->q.star.src[k]], s->q.star.col[k]);
            }
            continue;
        }
        if (e->kind == SQL_E_STAR) {
            bool any = false;
            for (uint32_t k = 0; k < s->q.nsrc; k++) {
                const query_source_t *src = &s->q.src[k];
                if (e->col.table && strcmp(e->col.table, src->alias) != 0)
                    continue;
                any = true;
                /* unqualified * over USING / NATURAL joins: common columns first, once */
                bool coalesce = !e->col.table && (src->lead || src->hidden);
                for (uint32_t pass = coalesce ? 0 : 1; pass < 2; pass++)
                for (uint32_t c = 0; c < src->t->ncols; c++) {
                    if (coalesce && ((pass == 0) != (src->lead && src->lead[c])))
                        continue;
                    if (coalesce && src->hidden && src->hidden[c])
                        continue;
                    if (!src->t->cols[c].invisible) /* INVISIBLE: only when named */
                        star_item(s, src, c);
                }
            }
            if (!any)
                return diag_error(x->diag, ER_BAD_TABLE_ERROR,
                                  arena_printf(x->arena, "%s.%s", e->col.db ? e->col.db : (x->db ? x->db : ""),
                                               e->col.table ? e->col.table : "*"));
            continue;
        }
        if ((rc = bind_expr(&s->q, e, "SELECT", true)) != 0)
            return rc;
        select_col_t *it = &s->items[s->nitems++];
        it->expr = e;
        /* a column reference is named by its column (u.name -> name), as MariaDB does */
        it->name = !sel->items[i].alias && e->kind == SQL_E_COLUMN ? e->col.name : sql_item_name(x->arena, &sel->items[i]);
        it->alias = sel->items[i].alias;
        it->src_col = e->kind == SQL_E_COLUMN ? e->slot : -1;
    }
    if ((rc = bind_windows(&s->q, sel, true)) != 0)
        return rc;
    for (uint32_t k = 0; k < s->q.nsrc; k++)
        if ((rc = bind_expr(&s->q, s->q.src[k].jt_doc, "JSON_TABLE", false)) != 0 ||
            (rc = bind_expr(&s->q, (sql_expr_t *)s->q.src[k].on, "ON", false)) != 0 ||
            (rc = bind_expr(&s->q, (sql_expr_t *)s->q.src[k].group_on, "ON", false)) != 0)
            return rc;
    if ((rc = bind_expr(&s->q, sel->where, "WHERE", false)) != 0)
        return rc;
    if ((rc = resolve_orders(s, NULL, sel->group_by, sel->ngroup_by, &s->group, "GROUP BY")) != 0)
        return rc;
    s->ngroup = sel->ngroup_by;
    if (sel->having) {
        s->q.alias_names = arena_calloc(x->arena, sizeof(char *) * (s->nitems + 1));
        s->q.nalias = s->nitems;
        for (uint32_t i = 0; i < s->nitems; i++)
            s->q.alias_names[i] = s->items[i].alias;
        rc = bind_expr(&s->q, sel->having, "HAVING", true);
        s->q.alias_names = NULL;
        if (rc)
            return rc;
    }
    if ((rc = resolve_orders(s, sel->order_by, NULL, sel->norder_by, &s->order, "ORDER BY")) != 0)
        return rc;
    s->norder = sel->norder_by;
    s->aggregate = s->ngroup > 0 || s->q.nagg > 0;
    select_run_need(s);
    return 0;
}

/* Last step: the evaluation context, and LIMIT / OFFSET (which may be parameters). */
static int select_run_limits(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    const sql_select_t *sel = s->sel;
    int rc;
    s->limit = UINT64_MAX;
    row_eval_init(&s->xe, x);
    s->xe.q = &s->q;
    s->xe.ev.arena = &s->rowa; /* what is kept beyond a row is copied (value_copy_into, row_pack) */
    if (sel->limit.count) {
        value_t v;
        if ((rc = row_eval(&s->xe, sel->limit.count, NULL, &v)) != 0)
            return rc;
        s->limit = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    if (sel->limit.offset) {
        value_t v;
        if ((rc = row_eval(&s->xe, sel->limit.offset, NULL, &v)) != 0)
            return rc;
        s->offset = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    return 0;
}

int select_run_prepare(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, bool member)
{
    int rc = select_run_open(s, x, sel, member);
    if (rc == 0)
        rc = select_run_bind(s);
    if (rc == 0)
        rc = select_run_limits(s);
    return rc;
}

/* Prepares sel's items and clauses over sources already opened in q (INSERT / DELETE ... RETURNING: the table
 * being written); q is taken over (select_run_free releases what it references). */
int select_run_prepare_over(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, const query_t *q)
{
    memset(s, 0, sizeof *s);
    s->x = x;
    s->sel = sel;
    s->ga = x->arena;
    arena_init(&s->rowa, 8192);
    s->rowa_ok = true;
    s->q = *q;
    int rc = select_run_bind(s);
    if (rc == 0)
        rc = select_run_limits(s);
    return rc;
}

/* Does ORDER BY follow an index of the single source (after the columns WHERE fixes)?  Returns its number. */
int order_index(select_run_t *s, bool *desc)
{
    if (s->q.nsrc != 1 || s->aggregate || !s->norder || s->q.src[0].is_virtual)
        return -1;
    const cat_table_t *t = s->q.src[0].t;
    *desc = s->order[0].desc;
    int cols[64];
    for (uint32_t i = 0; i < s->norder && i < 64; i++) {
        const sql_expr_t *e = s->order[i].item >= 0 ? s->items[s->order[i].item].expr : s->order[i].expr;
        if (e->kind != SQL_E_COLUMN || s->order[i].desc != *desc)
            return -1;
        cols[i] = e->slot;
    }
    if (s->norder > 64)
        return -1;
    /* prefer the index the WHERE picks; ORDER BY must then follow it past the equality-bound columns */
    access_path_t p;
    choose_path(&s->q, 0, s->sel->where, &p, s->x->arena);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t ix = 0; ix < t->nidx; ix++) {
            if (pass == 0 && (int)ix != p.index)
                continue;
            if (pass == 1 && p.index >= 0)
                break;
            const cat_index_t *x = &t->idx[ix];
            uint32_t skip = (int)ix == p.index ? p.neq : 0;
            if (p.index >= 0 && (int)ix == p.index && p.conds) {
                /* IN lists give several ranges: their order is by value, so still ordered */
            }
            bool ok = skip + s->norder <= x->ncols || (x->kind != CAT_IDX_KEY && skip + s->norder >= x->ncols);
            for (uint32_t i = 0; i < s->norder && ok; i++) {
                if (skip + i >= x->ncols) {
                    ok = false;
                    break;
                }
                const cat_index_col_t *ic = &x->cols[skip + i];
                if (ic->prefix || (int)ic->col != cols[i] - (int)s->q.src[0].base)
                    ok = false;
                const cat_column_t *c = &t->cols[ic->col];
                if (c->rc.type == SQLT_ENUM || c->rc.type == SQLT_SET || c->rc.type == SQLT_BIT)
                    ok = false;
            }
            if (ok)
                return (int)ix;
        }
    }
    return -1;
}


/* Binds s (opened) into x's plan: what binding allocates goes to the plan's arena. */
static int plan_bind(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    sql_plan_t *p = x->plan;
    arena_t *stmt_arena = x->arena;
    x->arena = &p->mem;
    int rc = select_run_bind(s);
    if (rc == 0) {
        for (uint32_t i = 0; i < s->nitems; i++) /* names of * items point into the table definition */
            s->items[i].name = arena_strdup(&p->mem, s->items[i].name);
        p->need = s->need;
        p->items = s->items;
        p->nitems = s->nitems;
        p->order = s->order;
        p->norder = s->norder;
        p->group = s->group;
        p->ngroup = s->ngroup;
        p->aggregate = s->aggregate;
        p->nagg = s->q.nagg;
        p->aggs = arena_alloc(&p->mem, sizeof(*p->aggs) * (p->nagg + 1));
        if (p->nagg)
            memcpy(p->aggs, s->q.aggs, sizeof(*p->aggs) * p->nagg);
        p->wins = s->q.wins; /* in the plan's arena (x->arena while binding) */
        p->nwin = s->q.nwin;
        plan_cache_end(x, &s->q, s->sel->where);
        p->odesc = false;
        p->oix = order_index(s, &p->odesc);
    }
    x->arena = stmt_arena;
    return rc;
}

/* select_run_prepare for a prepared statement's top SELECT: the plan reused when it still matches, else rebuilt. */
static int select_run_prepare_planned(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel)
{
    int rc = select_run_open(s, x, sel, false);
    if (rc)
        return rc;
    sql_plan_t *p = x->plan;
    if (!sel->union_next && plan_cache_reuse(x, sel, &s->q)) {
        s->items = p->items;
        s->nitems = p->nitems;
        s->order = p->order;
        s->norder = p->norder;
        s->group = p->group;
        s->ngroup = p->ngroup;
        s->aggregate = p->aggregate;
        s->q.aggs = p->aggs;
        s->q.nagg = s->q.capagg = p->nagg;
        s->q.aggs_shared = true;
        s->q.wins = p->wins;
        s->q.nwin = s->q.capwin = p->nwin;
        s->need = p->need;
        for (uint32_t i = 0; i < s->q.nsrc; i++)
            s->q.src[i].need = p->need ? p->need + s->q.src[i].base : NULL;
    } else if (!sel->union_next && plan_cache_begin(x, sel, &s->q)) {
        rc = plan_bind(s);
    } else {
        rc = select_run_bind(s);
    }
    if (rc == 0 && s->q.paths) {
        s->plan_oix_set = true;
        s->plan_oix = p->oix;
        s->plan_odesc = p->odesc;
    }
    if (rc == 0)
        rc = select_run_limits(s);
    return rc;
}

void select_run_free(select_run_t *s)
{
    query_release(&s->q);
    mem_free(s->outs);
    for (uint64_t i = 0; i < s->ngroups; i++) {
        group_t *g = s->groups[i];
        for (uint32_t k = 0; k < s->q.nagg; k++)
            sql_agg_free(&g->aggs[k]);
        buf_free(&g->key);
    }
    mem_free(s->groups);
    keymap_free(&s->distinct);
    keymap_free(&s->gmap);
    top_free(s);
    sort_done(s, &s->osort);
    sort_done(s, &s->gsort);
    sort_done(s, &s->dsort);
    win_free(s);
    if (s->rowa_ok)
        arena_destroy(&s->rowa);
    s->rowa_ok = false;
}

/* Sort_range when the rows of the first table come through an index range, else Sort_scan (MariaDB). */
static void sort_stats(select_run_t *s, uint64_t rows)
{
    s->x->stats.sort_rows += rows;
    bool range = false;
    uint32_t s0 = s->q.nsrc ? join_src(&s->q, 0) : 0; /* the source read first */
    if (s->q.nsrc && !s->q.src[s0].is_virtual) {
        access_path_t p;
        if (s->q.paths)
            p = s->q.paths[s0];
        else if (s->q.jpaths)
            p = s->q.jpaths[s0];
        else
            choose_path(&s->q, s0, s->sel->where, &p, s->x->arena);
        range = p.index >= 0;
    }
    if (range)
        s->x->stats.sort_range++;
    else
        s->x->stats.sort_scan++;
}

/* One group's output row: the items, HAVING, then out_row.  0, 1 (LIMIT reached) or an error. */
static int group_emit(select_run_t *s, group_t *g)
{
    bool collect = win_collecting(s);
    if (!collect)
        s->ngroups_out++;
    s->xe.group = g;
    value_t *vals = arena_alloc(&s->rowa, sizeof(value_t) * (s->nitems + 1));
    int rc = eval_items(s, g->rep, vals);
    if (rc == 0 && s->sel->having) {
        memcpy(g->rep + s->q.width, vals, sizeof(value_t) * s->nitems);
        rc = row_eval_bool(&s->xe, s->sel->having, g->rep);
        rc = rc < 0 ? rc : rc == 0 ? 2 : 0;
    }
    if (rc == 0 && collect) /* a group that passed HAVING waits for the window pass */
        rc = win_collect(s, g->rep, g);
    else if (rc == 0)
        rc = out_row(s, g->rep, vals);
    s->xe.group = NULL;
    return rc == 2 ? 0 : rc;
}

static int key_cmp(const uint8_t *a, size_t al, const buf_t *b)
{
    int r = memcmp(a, b->data, MIN(al, b->len));
    return r ? r : (al < b->len ? -1 : al > b->len);
}

/* The groups in key order: the in-memory ones (sorted) merged with those read back from s->gsort, which are
 * built one at a time in their own arena (a spilled group's key is never one of the in-memory groups'). */
static int groups_emit(select_run_t *s)
{
    extsort_t *gs = s->gsort;
    int rc = 0;
    if (gs && (rc = extsort_finish(gs)) != 0)
        return sort_error(s, rc);
    const uint8_t *k = NULL, *p = NULL;
    size_t kl = 0, pl = 0;
    if (gs && s->win)
        return diag_error(s->x->diag, ER_NOT_SUPPORTED_YET, "window functions over more groups than tmp_table_size holds");
    int have = gs ? extsort_next(gs, &k, &kl, &p, &pl) : 0;
    uint64_t i = 0;
    arena_t ga;
    arena_init(&ga, 8192);
    buf_t key;
    buf_init(&key);
    value_t *row = arena_alloc(s->ga, sizeof(value_t) * (s->q.width + 1));
    while (rc == 0 && have >= 0 && (i < s->ngroups || have == 1)) {
        arena_reset(&s->rowa);
        if (!(have == 1 && (i == s->ngroups || key_cmp(k, kl, &s->groups[i]->key) < 0))) {
            rc = group_emit(s, s->groups[i++]);
            continue;
        }
        arena_reset(&ga);
        group_t g;
        memset(&g, 0, sizeof g);
        uint32_t lv;
        memcpy(&lv, p, 4);
        g.rep = arena_calloc(&ga, sizeof(value_t) * (s->q.width + s->nitems + 1));
        row_unpack(&ga, p + 4, g.rep, s->q.width);
        for (uint32_t j = lv; j < s->ngroup; j++) {
            const sql_expr_t *ge = s->group[j].item >= 0 ? s->items[s->group[j].item].expr : s->group[j].expr;
            if (ge->kind == SQL_E_COLUMN && ge->slot >= 0)
                g.rep[ge->slot] = value_null();
        }
        g.aggs = arena_alloc(&ga, sizeof(sql_agg_t) * (s->q.nagg + 1));
        for (uint32_t a = 0; a < s->q.nagg; a++)
            sql_agg_init(&g.aggs[a]);
        buf_reset(&key);
        buf_append(&key, k, kl);
        agg_row_t ar = {&s->xe, row};
        sql_agg_src_t src = {agg_row_eval, &ar, &ga, s->x->diag, s->x->group_concat_max_len};
        do {
            arena_reset(&s->rowa);
            row_unpack(&s->rowa, p + 4, row, s->q.width);
            for (uint32_t a = 0; a < s->q.nagg && rc == 0; a++)
                rc = sql_agg_add(&g.aggs[a], s->q.aggs[a], &src);
            if (rc)
                break;
            have = extsort_next(gs, &k, &kl, &p, &pl);
        } while (have == 1 && key_cmp(k, kl, &key) == 0);
        if (rc == 0 && have >= 0) {
            arena_reset(&s->rowa);
            rc = group_emit(s, &g);
        }
        for (uint32_t a = 0; a < s->q.nagg; a++)
            sql_agg_free(&g.aggs[a]);
    }
    arena_destroy(&ga);
    buf_free(&key);
    if (rc == 0 && have < 0)
        rc = sort_error(s, have);
    return rc < 0 ? rc : 0;
}

/* Reads the sorted rows back into s->outs (INSERT ... SELECT, subqueries and UNION members keep their rows). */
static int sorted_collect(select_run_t *s)
{
    const uint8_t *k, *p;
    size_t kl, pl;
    int n;
    uint64_t cnt = 0;
    s->capout = s->nout + 1;
    s->outs = mem_realloc(s->outs, sizeof(out_row_t) * s->capout);
    while ((n = extsort_next(s->osort, &k, &kl, &p, &pl)) == 1 && cnt < s->nout) {
        out_row_t *o = &s->outs[cnt++];
        o->vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
        row_unpack(s->ga, p, o->vals, s->nitems);
        o->key = NULL;
        o->klen = 0;
    }
    if (n < 0)
        return sort_error(s, n);
    s->nout = cnt;
    return 0;
}

/* Runs a prepared SELECT: rows go to the sink, or into s->outs when collect_only. */
int select_run_run(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    keymap_init(&s->distinct, s->ga);
    keymap_init(&s->gmap, s->ga);
    bool desc = s->plan_odesc;
    int oix = s->plan_oix_set ? s->plan_oix : order_index(s, &desc);
    s->need_sort = s->norder > 0 && oix < 0;
    s->streaming = !s->aggregate && !s->need_sort && !s->collect_only;
    if (s->need_sort && s->limit && s->limit != UINT64_MAX && s->offset + s->limit > s->offset) {
        /* LIMIT: keep only the best OFFSET + LIMIT rows (they come out through osort at the end); a heap that
         * outgrows sort_buffer_size turns into an ordinary sort (top_add) */
        s->topk = s->offset + s->limit;
        s->topcap = MIN(s->topk, 64u);
        s->top = mem_alloc(sizeof(topn_entry_t) * s->topcap);
    }
    int rc = win_begin(s);
    if (rc == 0)
        rc = query_run(&s->q, s->sel->where, on_row, s, oix, desc);
    if (rc == 0 && s->win && !s->aggregate)
        rc = win_finish(s, on_row, group_emit);
    if (rc)
        return rc;
    if (s->aggregate) {
        if (s->ngroups == 0 && s->ngroup == 0) {
            /* aggregates over no rows: one row (COUNT 0, SUM NULL) */
            if (s->capgroups == 0) {
                s->capgroups = 1;
                s->groups = mem_realloc(s->groups, sizeof(group_t *));
            }
            group_t *g = arena_calloc(s->ga, sizeof *g);
            g->rep = arena_calloc(s->ga, sizeof(value_t) * (s->q.width + s->nitems + 1));
            g->aggs = arena_alloc(s->ga, sizeof(sql_agg_t) * (s->q.nagg + 1));
            for (uint32_t i = 0; i < s->q.nagg; i++)
                sql_agg_init(&g->aggs[i]);
            buf_init(&g->key);
            s->groups[s->ngroups++] = g;
        }
        if (s->ngroup && s->ngroups > 1) /* qsort must not see a NULL base (UBSan) */
            qsort(s->groups, s->ngroups, sizeof *s->groups, cmp_group);
        s->streaming = !s->need_sort && !s->collect_only;
        if ((rc = groups_emit(s)) != 0)
            return rc;
        if (s->win && (rc = win_finish(s, on_row, group_emit)) != 0)
            return rc;
        if (s->ngroup) {
            /* MariaDB: GROUP BY through a temporary table, whose groups a filesort then orders */
            x->stats.tmp_tables++;
            x->stats.sort_rows += s->ngroups_out;
            x->stats.sort_scan++;
        }
    }
    if (s->sel->distinct)
        x->stats.tmp_tables++;
    if ((rc = distinct_drain(s)) != 0)
        return rc;
    if (!s->streaming) {
        if (s->top) {
            x->stats.sort_priority_queue_sorts++;
            if ((rc = top_flush(s, true)) != 0)
                return rc;
        }
        if (s->osort) {
            if ((rc = extsort_finish(s->osort)) != 0)
                return sort_error(s, rc);
            /* Sort_rows: the rows the sort returns (MariaDB counts OFFSET + LIMIT at most) */
            sort_stats(s, s->topk ? MIN(s->osort->rows, s->topk) : s->osort->rows);
            if (s->collect_only) {
                if ((rc = sorted_collect(s)) != 0)
                    return rc;
            } else {
                s->osorted = true;
            }
        }
        s->total = s->nout;
    }
    return 0;
}

static int select_run_send(select_run_t *s, const value_t *first)
{
    sql_exec_ctx_t *x = s->x;
    s->cols = arena_calloc(x->arena, sizeof(res_col_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++)
        item_col(s, i, first ? &first[i] : NULL, &s->cols[i]);
    return 0;
}

/* Sends the rows of the finished ORDER BY sort, after OFFSET and up to LIMIT, one row in memory at a time. */
static int send_sorted(select_run_t *s)
{
    value_t *vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
    const uint8_t *k, *p;
    size_t kl, pl;
    int n;
    uint64_t i = 0;
    while ((n = extsort_next(s->osort, &k, &kl, &p, &pl)) == 1) {
        arena_reset(&s->rowa);
        row_unpack(&s->rowa, p, vals, s->nitems);
        if (i == 0 && !s->cols_sent)
            select_run_send(s, vals);
        if (i >= s->offset) {
            if (i - s->offset >= s->limit)
                break;
            send_row(s, vals);
        }
        i++;
    }
    if (n < 0)
        return sort_error(s, n);
    if (i == 0 && !s->cols_sent)
        select_run_send(s, NULL);
    return 0;
}

int exec_select_stmt(sql_exec_ctx_t *x, const sql_select_t *sel)
{
    if (sel->union_next)
        return union_send(x, sel);
    select_run_t s;
    int rc = x->plan ? select_run_prepare_planned(&s, x, sel) : select_run_prepare(&s, x, sel, false);
    if (rc)
        goto out;
    if (x->limit_selects && !sel->limit.count && x->select_limit < s.limit)
        s.limit = x->select_limit; /* @@sql_select_limit: the statement's own LIMIT wins */
    /* column metadata needs a first value only for expressions; streaming sends columns before rows */
    s.cols = arena_calloc(x->arena, sizeof(res_col_t) * (s.nitems + 1));
    for (uint32_t i = 0; i < s.nitems; i++)
        item_col(&s, i, NULL, &s.cols[i]);
    rc = select_run_run(&s);
    if (rc)
        goto out;
    if (!s.streaming && s.osorted) {
        if ((rc = send_sorted(&s)) != 0)
            goto out;
    } else if (!s.streaming) {
        if (!s.cols_sent)
            select_run_send(&s, s.nout ? s.outs[0].vals : NULL);
        for (uint64_t i = s.offset; i < s.nout && i - s.offset < s.limit; i++)
            send_row(&s, s.outs[i].vals);
    }
    send_columns(&s);
    x->sink->rows_end(x->sink, x->more);
    x->found_rows = sel->calc_found_rows ? s.total
                                         : (s.streaming ? s.sent : (s.nout > s.offset ? MIN(s.nout - s.offset, s.limit) : 0));
    x->row_count = -1;
out:
    select_run_free(&s);
    return rc;
}

int exec_select_rows(sql_exec_ctx_t *x, const sql_select_t *sel, value_t ***rows, uint64_t *nrows, uint32_t *ncols)
{
    if (sel->union_next)
        return union_rows(x, sel, UINT64_MAX, rows, nrows, ncols, NULL);
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, false);
    if (rc)
        goto out;
    s.collect_only = true;
    if ((rc = select_run_run(&s)) != 0)
        goto out;
    uint64_t n = s.nout > s.offset ? MIN(s.nout - s.offset, s.limit) : 0;
    value_t **r = arena_alloc(x->arena, sizeof(value_t *) * (n + 1));
    for (uint64_t i = 0; i < n; i++)
        r[i] = s.outs[s.offset + i].vals;
    *rows = r;
    *nrows = n;
    *ncols = s.nitems;
out:
    select_run_free(&s);
    return rc;
}

/* INSERT ... SELECT without reading everything first (MariaDB streams it the same way): the SELECT runs and each
 * row goes to row(arg, vals) as it is made, when accept(arg, sources) agrees once the SELECT is prepared (it
 * checks that nothing the SELECT reads is the table written).  *pushed false: accept refused and nothing ran. */
int exec_select_push(sql_exec_ctx_t *x, const sql_select_t *sel, bool (*accept)(void *arg, const query_t *q, uint32_t nitems),
                     int (*row)(void *arg, const value_t *vals), void *arg, uint32_t *ncols, bool *pushed)
{
    *pushed = false;
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, false);
    if (rc || !accept(arg, &s.q, s.nitems))
        goto out;
    *pushed = true;
    *ncols = s.nitems;
    s.push = row;
    s.push_arg = arg;
    if ((rc = select_run_run(&s)) != 0)
        goto out;
    if (!s.streaming && s.osorted) { /* ORDER BY: the sorted rows, after OFFSET and up to LIMIT */
        value_t *vals = arena_alloc(s.ga, sizeof(value_t) * (s.nitems + 1));
        const uint8_t *k, *p;
        size_t kl, pl;
        int n;
        uint64_t i = 0;
        while (rc == 0 && (n = extsort_next(s.osort, &k, &kl, &p, &pl)) == 1) {
            if (i >= s.offset) {
                if (i - s.offset >= s.limit)
                    break;
                arena_reset(&s.rowa);
                row_unpack(&s.rowa, p, vals, s.nitems);
                rc = row(arg, vals);
            }
            i++;
        }
        if (rc == 0 && n < 0)
            rc = sort_error(&s, n);
    } else if (!s.streaming) {
        for (uint64_t i = s.offset; rc == 0 && i < s.nout && i - s.offset < s.limit; i++)
            rc = row(arg, s.outs[i].vals);
    }
out:
    select_run_free(&s);
    return rc;
}

int exec_select_describe_widths(sql_exec_ctx_t *x, const sql_select_t *sel, res_col_t **cols, uint32_t **widths,
                                int *ncols)
{
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, true);
    if (rc == 0) {
        res_col_t *c = arena_calloc(x->arena, sizeof(res_col_t) * (s.nitems + 1));
        uint32_t *w = widths ? arena_calloc(x->arena, sizeof(uint32_t) * (s.nitems + 1)) : NULL;
        for (uint32_t i = 0; i < s.nitems; i++) {
            item_col(&s, i, NULL, &c[i]);
            sql_rtype_t rt;
            if (w && s.items[i].src_col < 0 && select_run_infer(&s, s.items[i].expr, &rt))
                w[i] = rt.type == MYSQL_TYPE_NEWDECIMAL ? rt.prec : rt.width;
        }
        *cols = c;
        if (widths)
            *widths = w;
        *ncols = (int)s.nitems;
    }
    select_run_free(&s);
    return rc;
}

int exec_select_describe(sql_exec_ctx_t *x, const sql_select_t *sel, res_col_t **cols, int *ncols)
{
    return exec_select_describe_widths(x, sel, cols, NULL, ncols);
}
