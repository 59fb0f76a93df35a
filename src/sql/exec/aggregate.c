/*
 * Aggregate accumulators (exec_int.h, "aggregate accumulators"): COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT,
 * BIT_AND/OR/XOR and STD/VARIANCE, with DISTINCT, as the executor drives them per group (exec_select.c).
 * Exact sums of integers and decimals use a 128-bit integer scaled to the largest scale seen, as MariaDB's
 * DECIMAL arithmetic would; a DOUBLE or string argument turns the sum into a double for good.  DISTINCT keys
 * and GROUP_CONCAT's ORDER BY keys are the executor's sort keys (key_append_value), so "distinct" and "order" are
 * the collation's, as in GROUP BY.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_int.h"

void sql_agg_init(sql_agg_t *g)
{
    memset(g, 0, sizeof *g);
    buf_init(&g->concat);
}

void sql_agg_free(sql_agg_t *g)
{
    buf_free(&g->concat);
    if (g->distinct_init)
        keymap_free(&g->distinct);
}


static __int128 pow10i(int n)
{
    __int128 r = 1;
    while (n-- > 0)
        r *= 10;
    return r;
}

/* Parses canonical decimal text into a scaled integer at `scale` (which must be >= the text's scale). */
static __int128 dec_scaled(const char *s, size_t n, int scale)
{
    bool neg = n && s[0] == '-';
    size_t i = neg;
    __int128 v = 0;
    int fd = -1;
    for (; i < n; i++) {
        if (s[i] == '.') {
            fd = 0;
            continue;
        }
        v = v * 10 + (s[i] - '0');
        if (fd >= 0)
            fd++;
    }
    if (fd < 0)
        fd = 0;
    v *= pow10i(scale - fd);
    return neg ? -v : v;
}

static value_t dec_from_scaled(arena_t *a, __int128 v, int scale)
{
    char buf[64];
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-v) : (unsigned __int128)v;
    char digits[48];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (nd <= scale)
        digits[nd++] = '0';
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        buf[k++] = digits[i];
        if (i == scale && scale > 0)
            buf[k++] = '.';
    }
    value_t r = value_decimal(a, buf, k);
    r.dec = (uint8_t)scale;
    return r;
}

/* @@group_concat_max_len's default (MariaDB 10.11's), when the caller gives none. */
#define GC_DEFAULT_MAX 1048576u

/* The length of p cut to at most max bytes without splitting a UTF-8 character (the result's charset). */
static size_t gc_cut_len(const uint8_t *p, uint64_t max)
{
    size_t n = (size_t)max;
    while (n > 0 && (p[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/* GROUP_CONCAT and JSON_ARRAYAGG (MariaDB's is a GROUP_CONCAT of JSON items: its DISTINCT, ORDER BY and
 * group_concat_max_len cut are the same) */
static bool gc_fn(sql_fn_t fn) { return fn == SQL_FN_GROUP_CONCAT || fn == SQL_FN_JSON_ARRAYAGG; }

static void gc_warn_cut(diag_t *d, const sql_expr_t *e, uint32_t item)
{
    if (e->func.fn == SQL_FN_GROUP_CONCAT) {
        diag_warn(d, ER_CUT_VALUE_GROUP_CONCAT, (unsigned)item);
        return;
    }
    char msg[96];
    snprintf(msg, sizeof msg, "Row %u was cut by JSON_ARRAYAGG()", (unsigned)item);
    diag_push_msg(d, DIAG_WARNING, ER_CUT_VALUE_GROUP_CONCAT, msg);
}

/* GROUP_CONCAT keeps sort keys beside its values: ORDER BY's, or DISTINCT's when there is no ORDER BY. */
static bool gc_sorts(const sql_expr_t *e)
{
    return e->nagg_order || e->func.distinct;
}

/*
 * GROUP_CONCAT and COUNT of several arguments: a row with any NULL argument is skipped.  DISTINCT compares the
 * arguments as GROUP BY would, one sort key per argument (collation-aware: 'A' = 'a' in a _ci collation,
 * 1 = 1.0, and ('ab', 'c') differs from ('a', 'bc')).
 */
static int add_arguments(sql_agg_t *g, const sql_expr_t *e, const sql_agg_src_t *src)
{
    buf_t text, dkey, okey;
    buf_init(&text);
    buf_init(&dkey);
    buf_init(&okey);
    int rc = 0;
    bool json = e->func.fn == SQL_FN_JSON_ARRAYAGG;
    for (uint32_t i = 0; i < e->nargs; i++) {
        value_t a;
        if ((rc = src->eval(src->arg, e->args[i], &a)) != 0 || (a.type == VAL_NULL && !json))
            goto done;
        if (json) /* its item is the value as JSON, null included */
            sql_json_append_value(src->arena, &text, e->args[i], &a);
        else
            value_append_text(&text, &a);
        if (e->func.distinct)
            key_append_value(&dkey, &a, false);
    }
    if (e->func.distinct) {
        bool added;
        if (!g->distinct_init) {
            keymap_init(&g->distinct, src->arena);
            g->distinct_init = true;
        }
        keymap_put(&g->distinct, dkey.data, dkey.len, &added);
        if (!added)
            goto done;
    }
    if (gc_fn(e->func.fn))
        g->concat_max = src->concat_max ? src->concat_max : GC_DEFAULT_MAX;
    if (gc_fn(e->func.fn) && gc_sorts(e)) {
        /* kept as records (u32 key length, key, u32 text length, text), sorted when the result is read; without
         * ORDER BY, DISTINCT's keys order them (MariaDB reads its tree of distinct values in order) */
        for (uint32_t k = 0; k < e->nagg_order; k++) {
            value_t kv;
            if ((rc = src->eval(src->arg, e->agg_order[k].expr, &kv)) != 0)
                goto done;
            key_append_value(&okey, &kv, e->agg_order[k].desc);
        }
        const buf_t *key = e->nagg_order ? &okey : &dkey;
        uint32_t kl = (uint32_t)key->len, tl = (uint32_t)text.len;
        buf_append(&g->concat, &kl, 4);
        buf_append(&g->concat, key->data, key->len);
        buf_append(&g->concat, &tl, 4);
        buf_append(&g->concat, text.data, text.len);
    } else if (gc_fn(e->func.fn) && !g->cut_item) {
        if (g->any)
            buf_append_str(&g->concat, e->func.separator ? e->func.separator : ",");
        buf_append(&g->concat, text.data, text.len);
        g->items++;
        if (g->concat.len > g->concat_max) {
            /* cut here, and keep nothing more of this group: MariaDB's warning names the value cut */
            g->concat.len = gc_cut_len(g->concat.data, g->concat_max);
            g->cut_item = g->items;
            g->cut_warned = true;
            if (src->diag)
                gc_warn_cut(src->diag, e, g->cut_item);
        }
    } else if (gc_fn(e->func.fn)) {
        g->items++;
    }
    g->any = true;
    g->count++;
done:
    buf_free(&text);
    buf_free(&dkey);
    buf_free(&okey);
    return rc;
}

int sql_agg_add(sql_agg_t *g, const sql_expr_t *e, const sql_agg_src_t *src)
{
    arena_t *ga = src->arena;
    sql_fn_t fn = e->func.fn;
    if (fn == SQL_FN_COUNT && (e->func.star || e->nargs == 0)) {
        g->count++;
        return 0;
    }
    value_t v;
    int rc;
    if (gc_fn(fn) || (fn == SQL_FN_COUNT && e->nargs > 1))
        return add_arguments(g, e, src);
    if (fn == SQL_FN_JSON_OBJECTAGG) {
        /* MariaDB's layout: [1,null] and {"a":1, "b":null}; a NULL key leaves the row out */
        value_t k, val;
        if ((rc = src->eval(src->arg, e->args[0], &k)) != 0)
            return rc;
        if (fn == SQL_FN_JSON_OBJECTAGG) {
            if (k.type == VAL_NULL)
                return 0;
            if ((rc = src->eval(src->arg, e->args[1], &val)) != 0)
                return rc;
            if (g->any)
                buf_append_str(&g->concat, ", ");
            size_t kl = k.s.len;
            const char *kp = k.type == VAL_STRING ? k.s.ptr : value_to_text(ga, &k, &kl);
            value_t key = value_str(kp ? kp : "", kl, COLL_UTF8MB4_BIN);
            sql_json_append_value(ga, &g->concat, NULL, &key); /* the key is always a string */
            buf_append_byte(&g->concat, ':');
            sql_json_append_value(ga, &g->concat, e->args[1], &val);
        }
        g->any = true;
        g->count++;
        return 0;
    }
    if ((rc = src->eval(src->arg, e->args[0], &v)) != 0)
        return rc;
    if (v.type == VAL_NULL)
        return 0;
    if (e->func.distinct) {
        buf_t k;
        buf_init(&k);
        key_append_value(&k, &v, false);
        if (!g->distinct_init) {
            keymap_init(&g->distinct, ga);
            g->distinct_init = true;
        }
        bool added;
        keymap_put(&g->distinct, k.data, k.len, &added);
        buf_free(&k);
        if (!added)
            return 0;
    }
    bool first = !g->any;
    g->any = true;
    g->count++;
    switch (fn) {
    case SQL_FN_SUM: case SQL_FN_AVG:
        if (first)
            g->exact = true;
        if (g->exact && (v.type == VAL_INT || v.type == VAL_UINT || v.type == VAL_DECIMAL)) {
            if (v.type == VAL_DECIMAL) {
                int sc = value_decimal_scale(v.s.ptr, v.s.len);
                if (sc > g->scale) {
                    g->isum *= pow10i(sc - g->scale);
                    g->scale = sc;
                }
                g->isum += dec_scaled(v.s.ptr, v.s.len, g->scale);
            } else {
                __int128 iv = v.type == VAL_INT ? (__int128)v.i : (__int128)v.u;
                g->isum += iv * pow10i(g->scale);
            }
        } else {
            if (g->exact) {
                g->dsum = (double)g->isum / (double)pow10i(g->scale);
                g->exact = false;
            }
            g->dsum += value_to_double(&v, src->diag);
        }
        break;
    case SQL_FN_STD: case SQL_FN_STDDEV: case SQL_FN_STDDEV_POP: case SQL_FN_STDDEV_SAMP:
    case SQL_FN_VARIANCE: case SQL_FN_VAR_POP: case SQL_FN_VAR_SAMP: {
        double x = value_to_double(&v, src->diag);
        double delta = x - g->wmean;
        g->wmean += delta / (double)g->count;
        g->wm2 += delta * (x - g->wmean);
        int d = v.type == VAL_DECIMAL ? value_decimal_scale(v.s.ptr, v.s.len) : v.type == VAL_INT || v.type == VAL_UINT ? 0 : -1;
        if (first)
            g->vdec = d;
        else if (g->vdec >= 0)
            g->vdec = d < 0 ? -1 : MAX(g->vdec, d);
        break;
    }
    case SQL_FN_MIN: case SQL_FN_MAX: {
        int c = first ? 0 : value_compare(&v, &g->best, NULL);
        if (first || (fn == SQL_FN_MIN ? c < 0 : c > 0))
            g->best = value_copy_into(ga, &v);
        break;
    }
    case SQL_FN_BIT_AND: case SQL_FN_BIT_OR: case SQL_FN_BIT_XOR: {
        uint64_t b = value_to_uint(&v, NULL);
        if (fn == SQL_FN_BIT_AND)
            g->bits = first ? b : (g->bits & b);
        else if (fn == SQL_FN_BIT_OR)
            g->bits |= b;
        else
            g->bits ^= b;
        break;
    }
    default:
        break;
    }
    return 0;
}

typedef struct gc_item {
    const uint8_t *key, *text;
    uint32_t klen, tlen, idx;
} gc_item_t;

static int gc_cmp(const void *pa, const void *pb)
{
    const gc_item_t *x = pa, *y = pb;
    int c = memcmp(x->key, y->key, MIN(x->klen, y->klen));
    if (c)
        return c;
    if (x->klen != y->klen)
        return x->klen < y->klen ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* GROUP_CONCAT(... ORDER BY ...): the group's records sorted by key (ties in arrival order), joined and cut at
 * the group's limit (the value cut in is remembered for the warning). */
static value_t gc_sorted(arena_t *a, const sql_expr_t *e, sql_agg_t *g)
{
    uint32_t n = 0;
    for (size_t p = 0; p + 4 <= g->concat.len; n++) {
        uint32_t l;
        memcpy(&l, g->concat.data + p, 4);
        p += 4 + l;
        memcpy(&l, g->concat.data + p, 4);
        p += 4 + l;
    }
    gc_item_t *it = arena_alloc(a, sizeof(gc_item_t) * (n + 1));
    size_t p = 0;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(&it[i].klen, g->concat.data + p, 4);
        it[i].key = g->concat.data + p + 4;
        p += 4 + it[i].klen;
        memcpy(&it[i].tlen, g->concat.data + p, 4);
        it[i].text = g->concat.data + p + 4;
        p += 4 + it[i].tlen;
        it[i].idx = i;
    }
    qsort(it, n, sizeof *it, gc_cmp);
    buf_t b;
    buf_init(&b);
    uint64_t max = g->concat_max ? g->concat_max : GC_DEFAULT_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            buf_append_str(&b, e->func.separator ? e->func.separator : ",");
        buf_append(&b, it[i].text, it[i].tlen);
        if (b.len > max) {
            b.len = gc_cut_len(b.data, max);
            g->cut_item = i + 1;
            break;
        }
    }
    char *s = arena_alloc(a, b.len + 1);
    if (b.len)
        memcpy(s, b.data, b.len);
    value_t r = value_str(s, b.len, COLL_DEFAULT);
    buf_free(&b);
    return r;
}

value_t sql_agg_result(sql_agg_t *g, const sql_expr_t *e, arena_t *a, uint32_t div_precision_increment, diag_t *d)
{
    switch (e->func.fn) {
    case SQL_FN_COUNT:
        return value_int((int64_t)g->count);
    case SQL_FN_SUM:
        if (!g->any)
            return value_null();
        return g->exact ? dec_from_scaled(a, g->isum, g->scale) : value_double(g->dsum);
    case SQL_FN_AVG: {
        if (!g->any)
            return value_null();
        if (!g->exact)
            return value_double(g->dsum / (double)g->count);
        int add = div_precision_increment ? (int)div_precision_increment : 4;
        int sc = MIN(g->scale + add, 30);
        __int128 num = g->isum * pow10i(sc - g->scale);
        __int128 q = num / (__int128)g->count, r = num % (__int128)g->count;
        if ((r < 0 ? -r : r) * 2 >= (__int128)g->count)
            q += num < 0 ? -1 : 1;
        return dec_from_scaled(a, q, sc);
    }
    case SQL_FN_MIN: case SQL_FN_MAX:
        return g->any ? g->best : value_null();
    case SQL_FN_STD: case SQL_FN_STDDEV: case SQL_FN_STDDEV_POP: case SQL_FN_STDDEV_SAMP:
    case SQL_FN_VARIANCE: case SQL_FN_VAR_POP: case SQL_FN_VAR_SAMP: {
        bool samp = e->func.fn == SQL_FN_STDDEV_SAMP || e->func.fn == SQL_FN_VAR_SAMP;
        if (!g->any || (samp && g->count < 2))
            return value_null();
        double var = g->wm2 / (double)(samp ? g->count - 1 : g->count);
        bool sd = e->func.fn == SQL_FN_STD || e->func.fn == SQL_FN_STDDEV || e->func.fn == SQL_FN_STDDEV_POP ||
                  e->func.fn == SQL_FN_STDDEV_SAMP;
        value_t r = value_double(sd ? sqrt(var < 0 ? 0 : var) : var);
        if (g->vdec >= 0)
            r.dec = (uint8_t)MIN(g->vdec + 4, 30);
        return r;
    }
    case SQL_FN_BIT_AND:
        return value_uint(g->any ? g->bits : UINT64_MAX);
    case SQL_FN_BIT_OR: case SQL_FN_BIT_XOR:
        return value_uint(g->bits);
    case SQL_FN_JSON_ARRAYAGG:
    case SQL_FN_JSON_OBJECTAGG: {
        if (!g->any)
            return value_null();
        bool arr = e->func.fn == SQL_FN_JSON_ARRAYAGG;
        value_t in = value_str((const char *)g->concat.data, g->concat.len, COLL_UTF8MB4_BIN);
        if (arr && gc_sorts(e)) {
            in = gc_sorted(a, e, g);
            if (g->cut_item && !g->cut_warned && d) {
                g->cut_warned = true;
                gc_warn_cut(d, e, g->cut_item);
            }
        }
        char *p = arena_alloc(a, in.s.len + 3);
        p[0] = arr ? '[' : '{';
        if (in.s.len)
            memcpy(p + 1, in.s.ptr, in.s.len);
        p[in.s.len + 1] = arr ? ']' : '}';
        return value_str(p, in.s.len + 2, COLL_UTF8MB4_BIN);
    }
    case SQL_FN_GROUP_CONCAT: {
        if (!g->any)
            return value_null();
        if (gc_sorts(e)) {
            value_t r = gc_sorted(a, e, g);
            if (g->cut_item && !g->cut_warned && d) { /* once, however often the result is read */
                g->cut_warned = true;
                gc_warn_cut(d, e, g->cut_item);
            }
            return r;
        }
        char *p = arena_alloc(a, g->concat.len + 1);
        if (g->concat.len)
            memcpy(p, g->concat.data, g->concat.len);
        return value_str(p, g->concat.len, COLL_DEFAULT);
    }
    default:
        return value_null();
    }
}

