/*
 * REGEXP / RLIKE and REGEXP_REPLACE, REGEXP_SUBSTR, REGEXP_INSTR on PCRE2, the library MariaDB uses, so that
 * patterns mean what they mean there (Perl syntax, \w, (?i), lookarounds, backreferences).
 *
 * Subject and pattern meet in one collation by the coercibility rules of a comparison.  A binary collation
 * matches bytes case-sensitively; a text collation matches characters (PCRE2_UTF | PCRE2_UCP; latin1 and the
 * other single-byte sets are converted to UTF-8 first, and results back) and a _ci collation adds
 * PCRE2_CASELESS.  @@default_regex_flags adds DOTALL, EXTENDED ... to every pattern.
 *
 * Compiling is the expensive step and a pattern is nearly always a constant, so compiled patterns are kept in
 * a small per-thread cache keyed by pattern bytes and options: a statement compiles each distinct pattern once
 * per worker thread, and nothing is stored in the parse tree.  A match limit bounds the backtracking of one
 * match; exceeding it is warning 1139 and counts as no match, as in MariaDB.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/value/collation.h"
#include "sql/expr/expr_int.h"
#include "sql/value/store.h"
#include "util/buf.h"

/* PCRE2's own default, stated so that a library built with a larger one cannot let a pattern stall a worker. */
#define RX_MATCH_LIMIT 10000000u
#define RX_CACHE_SIZE 8

typedef struct rx_entry {
    char *pat;                /* malloc'd copy of the pattern bytes (NULL: slot free) */
    size_t len;
    uint32_t opts;
    pcre2_code *code;
    pcre2_match_data *md;
    uint64_t used;            /* last use, for eviction */
} rx_entry_t;

typedef struct rx_cache {
    rx_entry_t e[RX_CACHE_SIZE];
    uint64_t clock;
    pcre2_match_context *mctx;
} rx_cache_t;

static _Thread_local rx_cache_t rx_cache;

static void rx_entry_free(rx_entry_t *x);

/* A worker thread's cache goes with the thread: the key's destructor runs at its exit (the key's value is
 * only a marker that the thread has a cache to free). */
static pthread_key_t rx_key;
static pthread_once_t rx_key_once = PTHREAD_ONCE_INIT;

static void rx_cache_free(void *unused)
{
    (void)unused;
    for (int i = 0; i < RX_CACHE_SIZE; i++)
        if (rx_cache.e[i].pat)
            rx_entry_free(&rx_cache.e[i]);
    pcre2_match_context_free(rx_cache.mctx);
    rx_cache.mctx = NULL;
}

static void rx_key_make(void) { (void)pthread_key_create(&rx_key, rx_cache_free); }

/* A subject and pattern ready to match: both in `coll` (UTF-8 text unless binary). */
typedef struct rx_call {
    value_t subj, pat;
    uint16_t coll;            /* collation of the result */
    bool utf;                 /* character semantics */
    bool converted;           /* subj / pat were converted to UTF-8 from coll's character set */
    rx_entry_t *re;
} rx_call_t;

static void rx_entry_free(rx_entry_t *x)
{
    pcre2_match_data_free(x->md);
    pcre2_code_free(x->code);
    free(x->pat);
    memset(x, 0, sizeof *x);
}

static uint32_t rx_default_opts(uint32_t bits)
{
    /* the order of @@default_regex_flags' SET values; EXTRA has no PCRE2 equivalent (MariaDB ignores it too) */
    static const uint32_t map[] = {PCRE2_DOTALL, PCRE2_DUPNAMES, PCRE2_EXTENDED, PCRE2_EXTENDED_MORE, 0,
                                   PCRE2_MULTILINE, PCRE2_UNGREEDY};
    uint32_t o = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (bits & (1u << i))
            o |= map[i];
    return o;
}

static int rx_error(sql_eval_ctx_t *ctx, int level, int code, size_t off, bool with_off)
{
    char m[256], msg[320];
    if (pcre2_get_error_message(code, (PCRE2_UCHAR *)m, sizeof m) < 0)
        snprintf(m, sizeof m, "error %d", code);
    if (with_off)
        snprintf(msg, sizeof msg, "Regex error '%s at offset %zu'", m, off);
    else
        snprintf(msg, sizeof msg, "Regex error '%s'", m);
    diag_push_msg(ctx->diag, level, ER_REGEXP_ERROR, msg);
    return level == DIAG_ERROR ? -ER_REGEXP_ERROR : 0;
}

/* The compiled pattern for pat/opts, from the cache or compiled now; NULL after error 1139. */
static rx_entry_t *rx_compile(sql_eval_ctx_t *ctx, const char *pat, size_t len, uint32_t opts)
{
    rx_cache_t *c = &rx_cache;
    if (!c->mctx) { /* this thread's first pattern: have its cache freed when it ends */
        pthread_once(&rx_key_once, rx_key_make);
        (void)pthread_setspecific(rx_key, c);
    }
    rx_entry_t *victim = &c->e[0];
    for (int i = 0; i < RX_CACHE_SIZE; i++) {
        rx_entry_t *x = &c->e[i];
        if (x->pat && x->opts == opts && x->len == len && memcmp(x->pat, pat, len) == 0) {
            x->used = ++c->clock;
            return x;
        }
        if (!x->pat || (victim->pat && x->used < victim->used))
            victim = x;
    }
    int err;
    PCRE2_SIZE eoff;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat, len, opts, &err, &eoff, NULL);
    if (!code) {
        rx_error(ctx, DIAG_ERROR, err, eoff, true);
        return NULL;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    char *copy = malloc(len + 1);
    if (!c->mctx && (c->mctx = pcre2_match_context_create(NULL)))
        pcre2_set_match_limit(c->mctx, RX_MATCH_LIMIT);
    if (!md || !copy || !c->mctx) {
        pcre2_match_data_free(md);
        pcre2_code_free(code);
        free(copy);
        diag_error(ctx->diag, ER_OUTOFMEMORY, (int)len);
        return NULL;
    }
    if (victim->pat)
        rx_entry_free(victim);
    memcpy(copy, pat, len);
    *victim = (rx_entry_t){.pat = copy, .len = len, .opts = opts, .code = code, .md = md, .used = ++c->clock};
    return victim;
}

static value_t rx_text(sql_eval_ctx_t *ctx, const value_t *v)
{
    if (v->type == VAL_STRING)
        return *v;
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    value_t r = value_str(s, n, COLL_DEFAULT);
    value_set_deriv(&r, COLL_DERIV_NUMERIC, true);
    return r;
}

static void rx_to_utf8(sql_eval_ctx_t *ctx, value_t *v)
{
    size_t n, bad;
    v->s.ptr = sql_str_convert(ctx->arena, v->s.ptr, v->s.len, v->coll, COLL_UTF8MB4_GENERAL_CI, &n, &bad);
    v->s.len = n;
}

/* Brings subject and pattern to one collation and compiles the pattern.  `extra` (the replacement, or NULL)
 * is converted alongside. */
static int rx_prepare(sql_eval_ctx_t *ctx, const char *op, const value_t *s, const value_t *p, value_t *extra,
                      rx_call_t *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->subj = rx_text(ctx, s);
    rc->pat = rx_text(ctx, p);
    int r = sql_eval_coll_cmp(ctx, op, &rc->subj, &rc->pat);
    if (r)
        return r;
    bool bin = rc->subj.coll == COLL_BINARY || rc->pat.coll == COLL_BINARY;
    rc->coll = bin ? COLL_BINARY : rc->subj.coll;
    rc->utf = !bin;
    if (!bin && value_coll_mbmaxlen(rc->coll) == 1) {
        rc->converted = true;
        rx_to_utf8(ctx, &rc->subj);
        rx_to_utf8(ctx, &rc->pat);
        if (extra && extra->type == VAL_STRING && extra->coll != COLL_BINARY &&
            value_coll_mbmaxlen(extra->coll) == 1)
            rx_to_utf8(ctx, extra);
    }
    uint32_t opts = rx_default_opts(ctx->regex_flags);
    if (!bin)
        opts |= PCRE2_UTF | PCRE2_UCP | (value_coll_is_ci(rc->coll) ? PCRE2_CASELESS : 0);
    rc->re = rx_compile(ctx, rc->pat.s.ptr ? rc->pat.s.ptr : "", rc->pat.s.len, opts);
    return rc->re ? 0 : -ER_REGEXP_ERROR;
}

/* One match from byte `start`: true with the match's byte range in *b, *e.  A limit or encoding failure is a
 * warning and no match. */
static bool rx_exec(sql_eval_ctx_t *ctx, rx_call_t *rc, size_t start, size_t *b, size_t *e)
{
    const char *s = rc->subj.s.ptr ? rc->subj.s.ptr : "";
    int r = pcre2_match(rc->re->code, (PCRE2_SPTR)s, rc->subj.s.len, start, 0, rc->re->md, rx_cache.mctx);
    if (r < 0) {
        if (r != PCRE2_ERROR_NOMATCH)
            rx_error(ctx, DIAG_WARNING, r, 0, false);
        return false;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(rc->re->md);
    *b = ov[0];
    *e = ov[1];
    return true;
}

static value_t rx_result(sql_eval_ctx_t *ctx, const rx_call_t *rc, const char *p, size_t n)
{
    value_t v = value_str(p, n, rc->coll);
    if (rc->converted) {
        size_t len, bad;
        v.s.ptr = sql_str_convert(ctx->arena, p, n, COLL_UTF8MB4_GENERAL_CI, rc->coll, &len, &bad);
        v.s.len = len;
    }
    return v;
}

/* REGEXP_REPLACE's replacement: \0..\9 are groups (an unset one is empty), a backslash before anything else
 * keeps that character, a trailing backslash is dropped. */
static void rx_append_replacement(buf_t *out, const rx_call_t *rc, const value_t *rep)
{
    const char *r = rep->s.ptr ? rep->s.ptr : "";
    const char *s = rc->subj.s.ptr;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(rc->re->md);
    uint32_t npairs = pcre2_get_ovector_count(rc->re->md);
    for (size_t i = 0; i < rep->s.len; i++) {
        if (r[i] != '\\') {
            buf_append_byte(out, (uint8_t)r[i]);
            continue;
        }
        if (++i == rep->s.len)
            break;
        if (r[i] >= '0' && r[i] <= '9') {
            uint32_t g = (uint32_t)(r[i] - '0');
            if (g < npairs && ov[2 * g] != PCRE2_UNSET)
                buf_append(out, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
        } else {
            buf_append_byte(out, (uint8_t)r[i]);
        }
    }
}

static size_t rx_char_pos(const rx_call_t *rc, size_t byte)
{
    if (!rc->utf)
        return byte + 1;
    size_t n = 1;
    for (size_t i = 0; i < byte; i++)
        if (((unsigned char)rc->subj.s.ptr[i] & 0xC0) != 0x80)
            n++;
    return n;
}

int sql_eval_regexp_op(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    value_t a, b;
    int r;
    if ((r = sql_expr_eval(ctx, e->args[0], &a)) || (r = sql_expr_eval(ctx, e->args[1], &b)))
        return r;
    if (a.type == VAL_NULL || b.type == VAL_NULL) {
        *out = value_null();
        return 0;
    }
    rx_call_t rc;
    if ((r = rx_prepare(ctx, "regexp", &a, &b, NULL, &rc)))
        return r;
    size_t mb, me;
    *out = value_int(rx_exec(ctx, &rc, 0, &mb, &me) != e->negated);
    return 0;
}

int sql_eval_regexp_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    if (any_null) {
        *out = value_null();
        return 0;
    }
    rx_call_t rc;
    size_t mb, me;
    int r;
    switch (fn) {
    case SQL_FN_REGEXP_INSTR:
        if ((r = rx_prepare(ctx, "regexp_instr", &a[0], &a[1], NULL, &rc)))
            return r;
        *out = value_int(rx_exec(ctx, &rc, 0, &mb, &me) ? (int64_t)rx_char_pos(&rc, mb) : 0);
        return 0;
    case SQL_FN_REGEXP_SUBSTR:
        if ((r = rx_prepare(ctx, "regexp_substr", &a[0], &a[1], NULL, &rc)))
            return r;
        if (!rx_exec(ctx, &rc, 0, &mb, &me))
            mb = me = 0;
        *out = rx_result(ctx, &rc, rc.subj.s.ptr + mb, me - mb);
        return 0;
    case SQL_FN_REGEXP_REPLACE: {
        value_t rep = rx_text(ctx, &a[2]);
        if ((r = rx_prepare(ctx, "regexp_replace", &a[0], &a[1], &rep, &rc)))
            return r;
        buf_t b;
        buf_init(&b);
        size_t at = 0;
        /* an empty match ends the replacing, as in MariaDB: REGEXP_REPLACE('abc', 'x*', '-') is 'abc' */
        while (at <= rc.subj.s.len && rx_exec(ctx, &rc, at, &mb, &me) && me > mb) {
            buf_append(&b, rc.subj.s.ptr + at, mb - at);
            rx_append_replacement(&b, &rc, &rep);
            at = me;
        }
        if (at < rc.subj.s.len)
            buf_append(&b, rc.subj.s.ptr + at, rc.subj.s.len - at);
        char *p = arena_strndup(ctx->arena, b.data ? (char *)b.data : "", b.len);
        *out = rx_result(ctx, &rc, p, b.len);
        buf_free(&b);
        if (b.len > ctx->max_allowed_packet) {
            diag_warn(ctx->diag, ER_WARN_ALLOWED_PACKET_OVERFLOWED, "regexp_replace", (long)ctx->max_allowed_packet);
            *out = value_null();
        }
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}
