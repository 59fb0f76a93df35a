/*
 * Aggregate accumulators (agg.h): COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, BIT_*, STD/VARIANCE, with DISTINCT.
 * Exact sums of integers and decimals use a 128-bit scaled integer, as MySQL's DECIMAL arithmetic would.
 * Memory: everything kept across adds is malloc'd (mem_*) and released by sql_agg_reset / sql_agg_free.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sql/rowcodec.h"
#include "sql/sql_int.h"
#include "util/hash.h"

typedef __int128 i128;

struct sql_agg_entry {
    char *text;           /* GROUP_CONCAT: the concatenated arguments */
    size_t len;
    value_t *keys;        /* ORDER BY keys (owned copies) */
    char **key_bufs;
};

bool sql_agg_is_aggregate(const sql_expr_t *e)
{
    if (e->kind != SQL_E_FUNC)
        return false;
    switch (e->func.fn) {
    case SQL_FN_COUNT: case SQL_FN_SUM: case SQL_FN_AVG: case SQL_FN_MIN: case SQL_FN_MAX:
    case SQL_FN_GROUP_CONCAT: case SQL_FN_BIT_AND: case SQL_FN_BIT_OR: case SQL_FN_BIT_XOR:
    case SQL_FN_STD: case SQL_FN_STDDEV: case SQL_FN_STDDEV_POP: case SQL_FN_STDDEV_SAMP:
    case SQL_FN_VARIANCE: case SQL_FN_VAR_POP: case SQL_FN_VAR_SAMP:
        return true;
    default:
        return false;
    }
}

void sql_agg_init(sql_agg_t *g, const sql_expr_t *call, const sql_agg_opts_t *opts)
{
    memset(g, 0, sizeof *g);
    g->call = call;
    g->fn = call->func.fn;
    if (opts)
        g->opts = *opts;
    if (!g->opts.group_concat_max_len)
        g->opts.group_concat_max_len = 1048576;
    if (!g->opts.div_precision_increment && !opts)
        g->opts.div_precision_increment = 4;
    g->bits = g->fn == SQL_FN_BIT_AND ? UINT64_MAX : 0;
}

/* ---------------------------------------------------------------- owned value copies */

static value_t copy_value(const value_t *v, char **owned)
{
    value_t c = *v;
    *owned = NULL;
    if (v->type == VAL_STRING || v->type == VAL_DECIMAL) {
        char *b = mem_alloc(v->s.len + 1);
        memcpy(b, v->s.ptr, v->s.len);
        b[v->s.len] = 0;
        c.s.ptr = b;
        *owned = b;
    }
    return c;
}

static void free_entries(sql_agg_t *g)
{
    uint32_t nk = g->call->nagg_order;
    for (uint32_t i = 0; i < g->nentries; i++) {
        sql_agg_entry_t *e = g->entries[i];
        mem_free(e->text);
        for (uint32_t k = 0; k < nk; k++)
            mem_free(e->key_bufs[k]);
        mem_free(e->keys);
        mem_free(e->key_bufs);
        mem_free(e);
    }
    mem_free(g->entries);
    g->entries = NULL;
    g->nentries = g->capentries = 0;
    for (uint32_t i = 0; i < g->hcap; i++)
        mem_free(g->hkeys ? g->hkeys[i] : NULL);
    mem_free(g->hashes);
    mem_free(g->hkeys);
    mem_free(g->hklen);
    g->hashes = NULL;
    g->hkeys = NULL;
    g->hklen = NULL;
    g->hcap = g->hn = 0;
}

void sql_agg_reset(sql_agg_t *g)
{
    const sql_expr_t *call = g->call;
    sql_agg_opts_t o = g->opts;
    free_entries(g);
    mem_free(g->best_buf);
    sql_agg_init(g, call, &o);
}

void sql_agg_free(sql_agg_t *g)
{
    free_entries(g);
    mem_free(g->best_buf);
    g->best_buf = NULL;
}

/* ---------------------------------------------------------------- DISTINCT */

static void key_append(buf_t *b, const value_t *v)
{
    char tag = (char)('A' + v->type);
    if (v->type == VAL_INT || v->type == VAL_UINT || v->type == VAL_DECIMAL)
        tag = 'N';
    buf_append(b, &tag, 1);
    switch (v->type) {
    case VAL_INT: case VAL_UINT: case VAL_DECIMAL: {
        char tmp[64];
        const char *s;
        size_t n;
        if (v->type == VAL_DECIMAL) {
            s = v->s.ptr;
            n = v->s.len;
        } else {
            n = (size_t)(v->type == VAL_INT ? snprintf(tmp, sizeof tmp, "%lld", (long long)v->i)
                                           : snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->u));
            s = tmp;
        }
        if (memchr(s, '.', n)) { /* 1.50 == 1.5 == 1.500 */
            while (n && s[n - 1] == '0')
                n--;
            if (n && s[n - 1] == '.')
                n--;
        }
        if (n == 2 && s[0] == '-' && s[1] == '0')
            s = "0", n = 1;
        buf_append(b, s, n);
        break;
    }
    case VAL_DOUBLE: {
        char tmp[40];
        int n = snprintf(tmp, sizeof tmp, "%.17g", v->d == 0 ? 0.0 : v->d);
        buf_append(b, tmp, (size_t)n);
        break;
    }
    case VAL_STRING: {
        /* the collation's key form: equal bytes exactly when the strings are equal under the collation */
        rc_key_string(b, v->coll, v->s.ptr, v->s.len);
        break;
    }
    default: {
        size_t n;
        char tmp[64];
        value_t c = *v;
        buf_t t;
        buf_init(&t);
        value_append_text(&t, &c);
        n = MIN(t.len, sizeof tmp);
        memcpy(tmp, t.data, n);
        buf_free(&t);
        buf_append(b, tmp, n);
        break;
    }
    }
    buf_append(b, "\0", 1);
}

static uint64_t distinct_hash(const char *s, size_t n)
{
    return hash_bytes(s, n) | 1; /* 0 marks an empty slot */
}

/* Inserts the key; returns true if it was new. */
static bool distinct_insert(sql_agg_t *g, const char *k, size_t n)
{
    if (g->hn * 2 >= g->hcap) {
        uint32_t ncap = g->hcap ? g->hcap * 2 : 64;
        uint64_t *nh = mem_calloc(ncap, sizeof *nh);
        char **nk = mem_calloc(ncap, sizeof *nk);
        size_t *nl = mem_calloc(ncap, sizeof *nl);
        for (uint32_t i = 0; i < g->hcap; i++) {
            if (!g->hashes[i])
                continue;
            uint32_t j = (uint32_t)(g->hashes[i] & (ncap - 1));
            while (nh[j])
                j = (j + 1) & (ncap - 1);
            nh[j] = g->hashes[i];
            nk[j] = g->hkeys[i];
            nl[j] = g->hklen[i];
        }
        mem_free(g->hashes);
        mem_free(g->hkeys);
        mem_free(g->hklen);
        g->hashes = nh;
        g->hkeys = nk;
        g->hklen = nl;
        g->hcap = ncap;
    }
    uint64_t h = distinct_hash(k, n);
    uint32_t j = (uint32_t)(h & (g->hcap - 1));
    while (g->hashes[j]) {
        if (g->hashes[j] == h && g->hklen[j] == n && memcmp(g->hkeys[j], k, n) == 0)
            return false;
        j = (j + 1) & (g->hcap - 1);
    }
    g->hashes[j] = h;
    g->hkeys[j] = mem_alloc(n ? n : 1);
    memcpy(g->hkeys[j], k, n);
    g->hklen[j] = n;
    g->hn++;
    return true;
}

/* ---------------------------------------------------------------- decimals */

static const i128 LIMIT38 = (i128)1000000000000000000LL * (i128)1000000000000000000LL * 100;

/* value -> (mantissa, scale); false on overflow */
static bool dec_of(const value_t *v, i128 *m, int *s)
{
    *m = 0;
    *s = 0;
    if (v->type == VAL_INT) { *m = v->i; return true; }
    if (v->type == VAL_UINT) { *m = (i128)v->u; return true; }
    const char *p = v->s.ptr;
    size_t n = v->s.len;
    bool neg = n && p[0] == '-', frac = false;
    for (size_t i = neg; i < n; i++) {
        if (p[i] == '.') { frac = true; continue; }
        if (*m >= LIMIT38 / 10)
            return false;
        *m = *m * 10 + (p[i] - '0');
        if (frac)
            (*s)++;
    }
    if (neg)
        *m = -*m;
    return true;
}

static value_t dec_text(arena_t *a, i128 m, int s)
{
    size_t cap = (size_t)(s > 0 ? s : 0) + 48;
    char *digits = arena_alloc(a, cap);
    char *buf = arena_alloc(a, cap + 4);
    int nd = 0;
    bool neg = m < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-m) : (unsigned __int128)m;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (nd <= s)
        digits[nd++] = '0';
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        buf[k++] = digits[i];
        if (i == s && s > 0)
            buf[k++] = '.';
    }
    return value_decimal(a, buf, k);
}

/* ---------------------------------------------------------------- add */

static int eval_args(sql_eval_ctx_t *ctx, const sql_expr_t *call, value_t *vals, bool *any_null)
{
    *any_null = false;
    for (uint32_t i = 0; i < call->nargs; i++) {
        int rc = sql_expr_eval(ctx, call->args[i], &vals[i]);
        if (rc)
            return rc;
        if (vals[i].type == VAL_NULL)
            *any_null = true;
    }
    return 0;
}

static int add_group_concat(sql_agg_t *g, sql_eval_ctx_t *ctx, const value_t *vals)
{
    const sql_expr_t *call = g->call;
    buf_t t;
    buf_init(&t);
    for (uint32_t i = 0; i < call->nargs; i++)
        value_append_text(&t, &vals[i]);
    sql_agg_entry_t *e = mem_calloc(1, sizeof *e);
    e->len = t.len;
    e->text = mem_alloc(t.len + 1);
    if (t.len)
        memcpy(e->text, t.data, t.len);
    buf_free(&t);
    uint32_t nk = call->nagg_order;
    if (nk) {
        e->keys = mem_calloc(nk, sizeof *e->keys);
        e->key_bufs = mem_calloc(nk, sizeof *e->key_bufs);
        for (uint32_t k = 0; k < nk; k++) {
            value_t kv;
            int rc = sql_expr_eval(ctx, call->agg_order[k].expr, &kv);
            if (rc) {
                for (uint32_t j = 0; j < k; j++)
                    mem_free(e->key_bufs[j]);
                mem_free(e->keys);
                mem_free(e->key_bufs);
                mem_free(e->text);
                mem_free(e);
                return rc;
            }
            e->keys[k] = copy_value(&kv, &e->key_bufs[k]);
        }
    }
    if (g->nentries == g->capentries) {
        g->capentries = g->capentries ? g->capentries * 2 : 16;
        g->entries = mem_realloc(g->entries, g->capentries * sizeof *g->entries);
    }
    g->entries[g->nentries++] = e;
    return 0;
}

int sql_agg_add(sql_agg_t *g, sql_eval_ctx_t *ctx)
{
    const sql_expr_t *call = g->call;
    if (g->fn == SQL_FN_COUNT && call->func.star) {
        g->count++;
        return 0;
    }
    value_t stackv[8];
    value_t *vals = call->nargs <= 8 ? stackv : arena_alloc(ctx->arena, call->nargs * sizeof *vals);
    bool any_null;
    int rc = eval_args(ctx, call, vals, &any_null);
    if (rc)
        return rc;
    if (any_null || call->nargs == 0)
        return 0;
    if (call->func.distinct) {
        buf_t k;
        buf_init(&k);
        for (uint32_t i = 0; i < call->nargs; i++)
            key_append(&k, &vals[i]);
        bool fresh = distinct_insert(g, (const char *)k.data, k.len);
        buf_free(&k);
        if (!fresh)
            return 0;
    }
    const value_t *v = &vals[0];
    g->count++;
    switch (g->fn) {
    case SQL_FN_COUNT:
        return 0;
    case SQL_FN_SUM: case SQL_FN_AVG: {
        if (!g->mode)
            g->mode = (v->type == VAL_INT || v->type == VAL_UINT || v->type == VAL_DECIMAL) ? 1 : 2;
        if (g->mode == 1) {
            i128 m;
            int s;
            if (v->type == VAL_INT || v->type == VAL_UINT || v->type == VAL_DECIMAL) {
                if (!dec_of(v, &m, &s)) {
                    g->overflow = true;
                    return 0;
                }
            } else {
                value_t dv = value_to_decimal(ctx->arena, v, ctx->diag);
                if (!dec_of(&dv, &m, &s)) {
                    g->overflow = true;
                    return 0;
                }
            }
            if (s > 38) {
                g->overflow = true;
                return 0;
            }
            while (g->dscale < s) {
                if (g->dsum >= LIMIT38 / 10 || g->dsum <= -LIMIT38 / 10) {
                    g->overflow = true;
                    return 0;
                }
                g->dsum *= 10;
                g->dscale++;
            }
            for (int k = s; k < g->dscale; k++) {
                if (m >= LIMIT38 / 10 || m <= -LIMIT38 / 10) {
                    g->overflow = true;
                    return 0;
                }
                m *= 10;
            }
            g->dsum += m;
            if (g->dsum >= LIMIT38 || g->dsum <= -LIMIT38)
                g->overflow = true;
        } else {
            g->fsum += value_to_double(v, ctx->diag);
        }
        return 0;
    }
    case SQL_FN_MIN: case SQL_FN_MAX: {
        if (g->have_best) {
            int c = value_compare(v, &g->best, NULL);
            if ((g->fn == SQL_FN_MIN && c >= 0) || (g->fn == SQL_FN_MAX && c <= 0))
                return 0;
        }
        mem_free(g->best_buf);
        g->best = copy_value(v, &g->best_buf);
        g->have_best = true;
        return 0;
    }
    case SQL_FN_GROUP_CONCAT:
        return add_group_concat(g, ctx, vals);
    case SQL_FN_BIT_AND: g->bits &= value_to_uint(v, ctx->diag); return 0;
    case SQL_FN_BIT_OR: g->bits |= value_to_uint(v, ctx->diag); return 0;
    case SQL_FN_BIT_XOR: g->bits ^= value_to_uint(v, ctx->diag); return 0;
    default: {
        /* STD / VARIANCE: Welford */
        double x = value_to_double(v, ctx->diag);
        double delta = x - g->mean;
        g->mean += delta / (double)g->count;
        g->m2 += delta * (x - g->mean);
        return 0;
    }
    }
}

/* ---------------------------------------------------------------- result */

static int entry_cmp(const void *a, const void *b, void *arg)
{
    const sql_expr_t *qs_call = arg;
    const sql_agg_entry_t *x = *(sql_agg_entry_t *const *)a, *y = *(sql_agg_entry_t *const *)b;
    for (uint32_t k = 0; k < qs_call->nagg_order; k++) {
        const value_t *u = &x->keys[k], *v = &y->keys[k];
        int c;
        if (u->type == VAL_NULL || v->type == VAL_NULL)
            c = (u->type != VAL_NULL) - (v->type != VAL_NULL);
        else
            c = value_compare(u, v, NULL);
        if (c)
            return qs_call->agg_order[k].desc ? -c : c;
    }
    return 0;
}

int sql_agg_result(sql_agg_t *g, sql_eval_ctx_t *ctx, value_t *out)
{
    switch (g->fn) {
    case SQL_FN_COUNT:
        *out = value_int((int64_t)g->count);
        return 0;
    case SQL_FN_SUM: case SQL_FN_AVG:
        if (!g->count) {
            *out = value_null();
            return 0;
        }
        if (g->overflow)
            return diag_error(ctx->diag, ER_DATA_OUT_OF_RANGE, "DECIMAL", g->fn == SQL_FN_SUM ? "sum" : "avg");
        if (g->mode == 2) {
            *out = value_double(g->fn == SQL_FN_SUM ? g->fsum : g->fsum / (double)g->count);
            return 0;
        }
        if (g->fn == SQL_FN_SUM) {
            *out = dec_text(ctx->arena, g->dsum, g->dscale);
            return 0;
        }
        {
            int rs = g->dscale + (int)g->opts.div_precision_increment;
            if (rs > 38)
                rs = 38;
            i128 num = g->dsum;
            int up = rs - g->dscale;
            while (up-- > 0) {
                if (num >= LIMIT38 / 10 || num <= -LIMIT38 / 10)
                    return diag_error(ctx->diag, ER_DATA_OUT_OF_RANGE, "DECIMAL", "avg");
                num *= 10;
            }
            i128 cnt = (i128)g->count;
            i128 q = num / cnt, r = num % cnt;
            if ((r < 0 ? -r : r) * 2 >= cnt)
                q += num < 0 ? -1 : 1;
            *out = dec_text(ctx->arena, q, rs);
            return 0;
        }
    case SQL_FN_MIN: case SQL_FN_MAX:
        if (!g->have_best) {
            *out = value_null();
            return 0;
        }
        *out = g->best;
        if (out->type == VAL_STRING || out->type == VAL_DECIMAL)
            out->s.ptr = arena_strndup(ctx->arena, g->best.s.ptr, g->best.s.len);
        return 0;
    case SQL_FN_GROUP_CONCAT: {
        if (!g->nentries) {
            *out = value_null();
            return 0;
        }
        if (g->call->nagg_order) {
            if (g->nentries > 1)
                qsort_r(g->entries, g->nentries, sizeof *g->entries, entry_cmp, (void *)g->call);
        }
        const char *sep = g->call->func.separator ? g->call->func.separator : ",";
        size_t seplen = strlen(sep);
        buf_t b;
        buf_init(&b);
        uint64_t maxlen = g->opts.group_concat_max_len;
        bool cut = false;
        uint32_t cut_row = 0;
        for (uint32_t i = 0; i < g->nentries && !cut; i++) {
            if (i)
                buf_append(&b, sep, seplen);
            buf_append(&b, g->entries[i]->text, g->entries[i]->len);
            if (b.len > maxlen) {
                cut = true;
                cut_row = i + 1;
            }
        }
        size_t n = b.len;
        if (cut) {
            n = (size_t)maxlen;
            /* do not split a UTF-8 character */
            while (n && ((unsigned char)((const char *)b.data)[n] & 0xc0) == 0x80)
                n--;
            diag_warn(ctx->diag, ER_CUT_VALUE_GROUP_CONCAT, cut_row);
        }
        char *s = arena_strndup(ctx->arena, n ? (const char *)b.data : "", n);
        buf_free(&b);
        uint16_t coll = COLL_DEFAULT;
        *out = value_str(s, n, coll);
        return 0;
    }
    case SQL_FN_BIT_AND: case SQL_FN_BIT_OR: case SQL_FN_BIT_XOR:
        *out = value_uint(g->bits);
        return 0;
    default: {
        bool samp = g->fn == SQL_FN_STDDEV_SAMP || g->fn == SQL_FN_VAR_SAMP;
        bool var = g->fn == SQL_FN_VARIANCE || g->fn == SQL_FN_VAR_POP || g->fn == SQL_FN_VAR_SAMP;
        if (g->count == 0 || (samp && g->count == 1)) {
            *out = value_null();
            return 0;
        }
        double vr = g->m2 / (double)(samp ? g->count - 1 : g->count);
        *out = value_double(var ? vr : sqrt(vr));
        out->dec = 4; /* MariaDB shows STD/VARIANCE of integers with 4 decimals */
        return 0;
    }
    }
}
