/*
 * The less common built-in functions: string (MID, ASCII, ORD, CHAR, STRCMP, FIELD, FIND_IN_SET, ELT, INSERT,
 * SUBSTRING_INDEX, FORMAT, QUOTE, CRC32, TO_BASE64, FROM_BASE64, SOUNDEX, CONV, BIN, OCT, BIT_LENGTH), math (EXP,
 * LN, LOG*, trigonometry, DEGREES, RADIANS) and miscellaneous (UUID, UUID_SHORT, INET_ATON, INET_NTOA, BENCHMARK).
 *
 * Arguments arrive evaluated (the rows of functions.def that name sql_eval_more_fn); results and warnings follow MariaDB 10.11, checked
 * by tests/sql/functions_*.sql against the reference server.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sql/expr/expr_int.h"
#include "sql/value/collation.h"

static value_t text_of(sql_eval_ctx_t *ctx, const value_t *v)
{
    if (v->type == VAL_STRING)
        return *v;
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    return value_str(s, n, COLL_DEFAULT);
}

static bool mb(uint16_t coll) { return coll != COLL_BINARY && value_coll_mbmaxlen(coll) > 1; }
static size_t u8l(unsigned char c) { return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4; }

/* byte offset of character ci of s (clamped) */
static size_t coff(const value_t *s, size_t ci)
{
    if (!mb(s->coll))
        return MIN(ci, s->s.len);
    size_t i = 0;
    while (ci-- && i < s->s.len)
        i += u8l((unsigned char)s->s.ptr[i]);
    return MIN(i, s->s.len);
}

static size_t ccount(const value_t *s)
{
    if (!mb(s->coll))
        return s->s.len;
    size_t n = 0;
    for (size_t i = 0; i < s->s.len; i += u8l((unsigned char)s->s.ptr[i]))
        n++;
    return n;
}

static value_t arena_str(sql_eval_ctx_t *ctx, const char *p, size_t n, uint16_t coll)
{
    return value_str(arena_strndup(ctx->arena, p ? p : "", n), n, coll);
}

/* LN/LOG of a non-positive number: NULL, and MariaDB's divide-by-zero signal */
static value_t log_null(sql_eval_ctx_t *ctx)
{
    if (!ctx->div_zero_off)
        diag_warn(ctx->diag, ER_DIVISION_BY_ZERO);
    return value_null();
}

/* CONV's digit reader: the longest prefix of s in base b (sign first); *neg set for '-'. */
static uint64_t conv_read(const char *s, size_t n, int base, bool *neg)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    *neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        *neg = s[i++] == '-';
    uint64_t v = 0;
    for (; i < n; i++) {
        int c = (unsigned char)s[i], d;
        if (isdigit(c)) d = c - '0';
        else if (isalpha(c)) d = toupper(c) - 'A' + 10;
        else break;
        if (d >= base)
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
            v = UINT64_MAX;
            continue;
        }
        v = v * (uint64_t)base + (uint64_t)d;
    }
    return v;
}

static value_t conv(sql_eval_ctx_t *ctx, const value_t *num, int64_t from, int64_t to)
{
    if (from == INT64_MIN || to == INT64_MIN || llabs(from) < 2 || llabs(from) > 36 || llabs(to) < 2 ||
        llabs(to) > 36)
        return value_null();
    value_t s = text_of(ctx, num);
    bool neg;
    uint64_t v;
    if (num->type == VAL_INT || num->type == VAL_UINT || num->type == VAL_DECIMAL || num->type == VAL_DOUBLE) {
        /* numbers are read in base 10 whatever `from` says, as MariaDB does for numeric arguments */
        v = conv_read(s.s.ptr, s.s.len, (int)llabs(from), &neg);
    } else {
        v = conv_read(s.s.ptr, s.s.len, (int)llabs(from), &neg);
    }
    if (neg) {
        if (from < 0)
            v = (uint64_t)(-(int64_t)v);
        else
            v = (uint64_t)(-(int64_t)v);
    }
    bool outneg = false;
    if (to < 0 && (int64_t)v < 0) {
        outneg = true;
        v = (uint64_t)(-(int64_t)v);
    }
    char buf[80];
    int p = (int)sizeof buf;
    buf[--p] = 0;
    int b = (int)llabs(to);
    do {
        int d = (int)(v % (uint64_t)b);
        buf[--p] = (char)(d < 10 ? '0' + d : 'A' + d - 10);
        v /= (uint64_t)b;
    } while (v);
    if (outneg)
        buf[--p] = '-';
    return arena_str(ctx, buf + p, strlen(buf + p), COLL_DEFAULT);
}

/* FORMAT(x, d): rounded half away from zero to d decimals, thousands grouped with ',' (en_US). */
static value_t format_num(sql_eval_ctx_t *ctx, const value_t *x, int64_t d)
{
    if (d < 0) d = 0;
    if (d > 38) d = 38;
    char tmp[128];
    const char *digits;
    size_t n;
    if (x->type == VAL_DOUBLE) {
        snprintf(tmp, sizeof tmp, "%.*f", (int)d, x->d);
        digits = tmp;
        n = strlen(tmp);
    } else {
        value_t dv = value_to_decimal(ctx->arena, x, ctx->diag);
        digits = dv.s.ptr;
        n = dv.s.len;
    }
    /* split sign / integer part / fraction */
    bool neg = n && digits[0] == '-';
    const char *ip = digits + neg;
    const char *dot = memchr(ip, '.', n - neg);
    size_t il = dot ? (size_t)(dot - ip) : n - neg;
    const char *fp = dot ? dot + 1 : "";
    size_t fl = dot ? n - neg - il - 1 : 0;
    /* integer digits and d fraction digits, rounded (exact decimal text; doubles were printed rounded) */
    size_t tot = il + (size_t)d;
    char *m = arena_alloc(ctx->arena, tot + 2);
    m[0] = '0';
    memcpy(m + 1, ip, il);
    for (size_t i = 0; i < (size_t)d; i++)
        m[1 + il + i] = i < fl ? fp[i] : '0';
    if ((size_t)d < fl && fp[d] >= '5') {
        for (size_t i = tot; ; i--) {
            if (m[i] == '9') { m[i] = '0'; if (!i) break; continue; }
            m[i]++;
            break;
        }
    }
    size_t mstart = m[0] == '0' ? 1 : 0;
    size_t intlen = 1 + il - mstart;
    if (intlen == 0) { mstart--; intlen = 1; }
    buf_t b;
    buf_init(&b);
    bool allzero = true;
    for (size_t i = mstart; i <= tot; i++)
        if (m[i] != '0') allzero = false;
    if (neg && !allzero)
        buf_append_byte(&b, '-');
    for (size_t i = 0; i < intlen; i++) {
        if (i && (intlen - i) % 3 == 0)
            buf_append_byte(&b, ',');
        buf_append_byte(&b, (uint8_t)m[mstart + i]);
    }
    if (d) {
        buf_append_byte(&b, '.');
        buf_append(&b, m + mstart + intlen, (size_t)d);
    }
    value_t r = arena_str(ctx, (char *)b.data, b.len, COLL_DEFAULT);
    buf_free(&b);
    return r;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static value_t to_base64(sql_eval_ctx_t *ctx, const value_t *s)
{
    buf_t b;
    buf_init(&b);
    const unsigned char *p = (const unsigned char *)s->s.ptr;
    size_t n = s->s.len, col = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        if (col == 76) { /* MariaDB breaks lines every 76 characters */
            buf_append_byte(&b, '\n');
            col = 0;
        }
        buf_append_byte(&b, (uint8_t)B64[w >> 18 & 63]);
        buf_append_byte(&b, (uint8_t)B64[w >> 12 & 63]);
        buf_append_byte(&b, (uint8_t)(i + 1 < n ? B64[w >> 6 & 63] : '='));
        buf_append_byte(&b, (uint8_t)(i + 2 < n ? B64[w & 63] : '='));
        col += 4;
    }
    value_t r = arena_str(ctx, (char *)b.data, b.len, COLL_DEFAULT);
    buf_free(&b);
    return r;
}

static value_t from_base64(sql_eval_ctx_t *ctx, const value_t *s)
{
    char *out = arena_alloc(ctx->arena, s->s.len + 1);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < s->s.len; i++) {
        int c = (unsigned char)s->s.ptr[i];
        if (isspace(c))
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        const char *q = c ? strchr(B64, c) : NULL;
        if (!q || pad)
            return value_null();
        acc = acc << 6 | (uint32_t)(q - B64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)(acc >> bits & 0xff);
        }
    }
    return value_str(out, o, COLL_BINARY);
}

static value_t soundex(sql_eval_ctx_t *ctx, const value_t *s)
{
    static const char map[] = "01230120022455012623010202";
    buf_t b;
    buf_init(&b);
    char last = 0;
    for (size_t i = 0; i < s->s.len; i++) {
        int c = toupper((unsigned char)s->s.ptr[i]);
        if (c < 'A' || c > 'Z')
            continue;
        char code = map[c - 'A'];
        if (!b.len) {
            buf_append_byte(&b, (uint8_t)c);
            last = code;
            continue;
        }
        if (code != '0' && code != last)
            buf_append_byte(&b, (uint8_t)code);
        last = code;
    }
    while (b.len && b.len < 4)
        buf_append_byte(&b, '0');
    value_t r = arena_str(ctx, b.data ? (char *)b.data : "", b.len, s->coll == COLL_BINARY ? COLL_DEFAULT : s->coll);
    buf_free(&b);
    return r;
}

static int double_result(sql_eval_ctx_t *ctx, const sql_expr_t *e, double r, value_t *out)
{
    if (isinf(r) || isnan(r)) {
        char msg[300];
        snprintf(msg, sizeof msg, "%.*s", (int)MIN(e->src_len, 200), e->src ? e->src : "");
        for (char *p = msg; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        return diag_error(ctx->diag, ER_DATA_OUT_OF_RANGE, "DOUBLE", msg);
    }
    *out = value_double(r);
    return 0;
}

/* CHAR(... USING cs): where the bytes stop being characters of cs (utf8mb3/utf8mb4: a well-formed UTF-8
 * sequence of at most 3/4 bytes; the single-byte sets take any byte), or n. */
static size_t char_using_bad_at(uint16_t coll, const uint8_t *s, size_t n)
{
    uint32_t maxlen = value_coll_mbmaxlen(coll);
    if (coll == COLL_BINARY || maxlen == 1)
        return n;
    for (size_t i = 0; i < n;) {
        size_t at = i;
        uint32_t cp;
        if (!coll_utf8_decode(s, n, &i, &cp) || (maxlen == 3 && cp > 0xFFFF))
            return at;
    }
    return n;
}

int sql_eval_more_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    diag_t *dg = ctx->diag;
    if (fn == SQL_FN_FORMAT && e->nargs == 3) /* FORMAT(x, d, locale): fnextra.c */
        return sql_fnextra_format(ctx, e, a, out);
    /* the functions that look at NULL arguments themselves */
    switch (fn) {
    case SQL_FN_CHAR: {
        buf_t b;
        buf_init(&b);
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (a[i].type == VAL_NULL)
                continue;
            value_t arg = a[i];
            const char *src = e->args[i]->src;
            if (!src || (src[0] != 'x' && src[0] != 'X')) /* X'41' is a string here (MariaDB: CHAR(X'41') is 0) */
                sql_eval_hex_as_number(e->args[i], &arg);
            uint32_t v = (uint32_t)value_to_uint(&arg, dg);
            bool started = false;
            for (int k = 3; k >= 0; k--) { /* big-endian bytes without leading zeros; CHAR(0) is one 0 byte */
                uint8_t by = (uint8_t)(v >> (8 * k));
                if (by || started || k == 0) {
                    buf_append_byte(&b, by);
                    started = true;
                }
            }
        }
        uint16_t coll = e->func.using_coll ? e->func.using_coll : COLL_BINARY;
        size_t bad = char_using_bad_at(coll, b.data, b.len);
        if (bad < b.len) { /* CHAR(0xA0 USING utf8mb4): NULL with 1300 naming the bytes from the bad one on */
            char hex[2 * 3 + 1]; /* MariaDB names at most 3 bytes */
            size_t k = 0;
            for (size_t i = bad; i < b.len && k + 2 < sizeof hex; i++, k += 2)
                snprintf(hex + k, 3, "%02X", b.data[i]);
            hex[k] = 0;
            diag_push(dg, DIAG_WARNING, ER_INVALID_CHARACTER_STRING, value_coll_charset(coll), hex);
            *out = value_null();
        } else {
            *out = arena_str(ctx, (char *)b.data, b.len, coll);
        }
        buf_free(&b);
        return 0;
    }
    case SQL_FN_FIELD: {
        *out = value_int(0);
        if (a[0].type == VAL_NULL)
            return 0;
        bool all_str = true;
        for (uint32_t i = 0; i < e->nargs; i++)
            if (a[i].type != VAL_STRING && a[i].type != VAL_NULL)
                all_str = false;
        for (uint32_t i = 1; i < e->nargs; i++) {
            if (a[i].type == VAL_NULL)
                continue;
            bool eq;
            if (all_str) {
                /* all in one collation (the row's collation rule in functions.def) */
                eq = value_collate_cmp(a[0].coll, a[0].s.ptr, a[0].s.len, a[i].s.ptr, a[i].s.len) == 0;
            }
            else
                eq = value_to_double(&a[0], dg) == value_to_double(&a[i], dg);
            if (eq) {
                *out = value_int(i);
                return 0;
            }
        }
        return 0;
    }
    case SQL_FN_ELT: {
        int64_t k = a[0].type == VAL_NULL ? 0 : value_to_int(&a[0], dg);
        if (k < 1 || k >= (int64_t)e->nargs || a[k].type == VAL_NULL) {
            *out = value_null();
            return 0;
        }
        *out = text_of(ctx, &a[k]);
        return 0;
    }
    case SQL_FN_QUOTE: {
        if (a[0].type == VAL_NULL) {
            *out = value_str("NULL", 4, COLL_DEFAULT);
            return 0;
        }
        value_t s = text_of(ctx, &a[0]);
        buf_t b;
        buf_init(&b);
        buf_append_byte(&b, '\'');
        for (size_t i = 0; i < s.s.len; i++) {
            char c = s.s.ptr[i];
            if (c == '\\' || c == '\'') { buf_append_byte(&b, '\\'); buf_append_byte(&b, (uint8_t)c); }
            else if (c == 0) buf_append_str(&b, "\\0");
            else if (c == 26) buf_append_str(&b, "\\Z");
            else buf_append_byte(&b, (uint8_t)c);
        }
        buf_append_byte(&b, '\'');
        *out = arena_str(ctx, (char *)b.data, b.len, s.coll);
        buf_free(&b);
        return 0;
    }
    case SQL_FN_BENCHMARK:
        *out = any_null ? value_null() : value_int(0);
        return 0;
    case SQL_FN_UUID: {
        unsigned char r[16];
        FILE *f = fopen("/dev/urandom", "rb");
        if (!f || fread(r, 1, sizeof r, f) != sizeof r)
            for (int i = 0; i < 16; i++)
                r[i] = (unsigned char)rand();
        if (f)
            fclose(f);
        uint64_t us = time_wall_us();
        /* version 1 layout with the clock as time, random node: the shape MariaDB's UUID() has */
        uint64_t ts = us * 10 + 0x01B21DD213814000ULL;
        char *s = arena_alloc(ctx->arena, 37);
        snprintf(s, 37, "%08x-%04x-1%03x-%02x%02x-%02x%02x%02x%02x%02x%02x", (unsigned)(ts & 0xffffffffu),
                 (unsigned)(ts >> 32 & 0xffff), (unsigned)(ts >> 48 & 0xfff), (r[0] & 0x3f) | 0x80, r[1], r[2] | 1,
                 r[3], r[4], r[5], r[6], r[7]);
        *out = value_str(s, 36, COLL_DEFAULT);
        return 0;
    }
    case SQL_FN_UUID_SHORT: {
        static uint64_t counter;
        uint64_t start = (time_wall_us() / 1000000) << 24;
        uint64_t c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        *out = value_uint(start + c);
        return 0;
    }
    default:
        break;
    }
    if (any_null) {
        *out = value_null();
        return 0;
    }
    switch (fn) {
    case SQL_FN_WEEKOFYEAR: { /* WEEK(d, 3) */
        sql_expr_t w = *e;
        w.func.fn = SQL_FN_WEEK;
        w.nargs = 2;
        value_t wa[2] = {a[0], value_int(3)};
        return sql_eval_date_fn(ctx, &w, wa, false, out);
    }
    case SQL_FN_BIT_COUNT:
        *out = value_int(__builtin_popcountll(value_to_uint(&a[0], dg)));
        return 0;
    case SQL_FN_BIT_LENGTH: {
        value_t s = text_of(ctx, &a[0]);
        *out = value_int((int64_t)s.s.len * 8);
        return 0;
    }
    case SQL_FN_ASCII: {
        value_t s = text_of(ctx, &a[0]);
        *out = value_int(s.s.len ? (unsigned char)s.s.ptr[0] : 0);
        return 0;
    }
    case SQL_FN_ORD: {
        value_t s = text_of(ctx, &a[0]);
        if (!s.s.len) { *out = value_int(0); return 0; }
        size_t l = mb(s.coll) ? MIN(u8l((unsigned char)s.s.ptr[0]), s.s.len) : 1;
        uint64_t v = 0;
        for (size_t i = 0; i < l; i++)
            v = v << 8 | (unsigned char)s.s.ptr[i];
        *out = value_int((int64_t)v);
        return 0;
    }
    case SQL_FN_STRCMP: {
        value_t x = text_of(ctx, &a[0]), y = text_of(ctx, &a[1]);
        int rc = sql_eval_coll_cmp(ctx, "strcmp", &x, &y);
        if (rc)
            return rc;
        uint16_t coll = x.coll == COLL_BINARY || y.coll == COLL_BINARY ? COLL_BINARY : x.coll;
        int c = value_collate_cmp(coll, x.s.ptr, x.s.len, y.s.ptr, y.s.len);
        *out = value_int(c < 0 ? -1 : c > 0);
        return 0;
    }
    case SQL_FN_FIND_IN_SET: {
        value_t x = text_of(ctx, &a[0]), set = text_of(ctx, &a[1]);
        int rc = sql_eval_coll_cmp(ctx, "find_in_set", &x, &set);
        if (rc)
            return rc;
        if (memchr(x.s.ptr, ',', x.s.len)) { *out = value_int(0); return 0; }
        *out = value_int(0);
        if (!set.s.len)
            return 0;
        size_t i = 0;
        for (int64_t k = 1;; k++) {
            const char *c = memchr(set.s.ptr + i, ',', set.s.len - i);
            size_t end = c ? (size_t)(c - set.s.ptr) : set.s.len;
            if (value_collate_cmp(set.coll, set.s.ptr + i, end - i, x.s.ptr, x.s.len) == 0) {
                *out = value_int(k);
                return 0;
            }
            if (!c)
                break;
            i = end + 1;
        }
        return 0;
    }
    case SQL_FN_INSERT: {
        value_t s = text_of(ctx, &a[0]), ns = text_of(ctx, &a[3]);
        int64_t pos = value_to_int(&a[1], dg), len = value_to_int(&a[2], dg);
        size_t nc = ccount(&s);
        if (pos < 1 || (uint64_t)pos > nc) { *out = s; return 0; }
        if (len < 0 || (uint64_t)len > nc) len = (int64_t)nc;
        size_t b0 = coff(&s, (size_t)pos - 1), b1 = coff(&s, (size_t)(pos - 1 + len));
        buf_t b;
        buf_init(&b);
        buf_append(&b, s.s.ptr, b0);
        buf_append(&b, ns.s.ptr, ns.s.len);
        buf_append(&b, s.s.ptr + b1, s.s.len - b1);
        *out = arena_str(ctx, (char *)b.data, b.len, s.coll == COLL_BINARY || ns.coll == COLL_BINARY ? COLL_BINARY : s.coll);
        buf_free(&b);
        return 0;
    }
    case SQL_FN_SUBSTRING_INDEX: {
        value_t s = text_of(ctx, &a[0]), d = text_of(ctx, &a[1]);
        int64_t cnt = value_to_int(&a[2], dg);
        if (!d.s.len || !cnt) { *out = value_str("", 0, s.coll); return 0; }
        if (cnt > 0) {
            size_t i = 0;
            int64_t seen = 0;
            while (i + d.s.len <= s.s.len) {
                if (memcmp(s.s.ptr + i, d.s.ptr, d.s.len) == 0) {
                    if (++seen == cnt) { *out = value_str(s.s.ptr, i, s.coll); return 0; }
                    i += d.s.len;
                } else {
                    i++;
                }
            }
            *out = s;
            return 0;
        }
        /* from the right: positions of every occurrence, left to right (non-overlapping) */
        int64_t occ = 0;
        for (size_t i = 0; i + d.s.len <= s.s.len;)
            if (memcmp(s.s.ptr + i, d.s.ptr, d.s.len) == 0) { occ++; i += d.s.len; } else i++;
        int64_t want = occ + cnt + 1; /* 1-based occurrence whose end starts the result */
        if (want < 1) { *out = s; return 0; }
        int64_t k = 0;
        for (size_t i = 0; i + d.s.len <= s.s.len;) {
            if (memcmp(s.s.ptr + i, d.s.ptr, d.s.len) == 0) {
                if (++k == want) {
                    size_t st = i + d.s.len;
                    *out = value_str(s.s.ptr + st, s.s.len - st, s.coll);
                    return 0;
                }
                i += d.s.len;
            } else {
                i++;
            }
        }
        *out = s;
        return 0;
    }
    case SQL_FN_FORMAT:
        *out = format_num(ctx, &a[0], value_to_int(&a[1], dg));
        return 0;
    case SQL_FN_CRC32: {
        value_t s = text_of(ctx, &a[0]);
        *out = value_int((int64_t)crc32(0L, (const Bytef *)s.s.ptr, (uInt)s.s.len));
        return 0;
    }
    case SQL_FN_TO_BASE64: {
        value_t s = text_of(ctx, &a[0]);
        *out = to_base64(ctx, &s);
        return 0;
    }
    case SQL_FN_FROM_BASE64: {
        value_t s = text_of(ctx, &a[0]);
        *out = from_base64(ctx, &s);
        return 0;
    }
    case SQL_FN_SOUNDEX: {
        value_t s = text_of(ctx, &a[0]);
        *out = soundex(ctx, &s);
        return 0;
    }
    case SQL_FN_CONV:
        *out = conv(ctx, &a[0], value_to_int(&a[1], dg), value_to_int(&a[2], dg));
        return 0;
    case SQL_FN_BIN: case SQL_FN_OCT: {
        value_t n = value_int(value_to_int(&a[0], dg));
        *out = conv(ctx, &n, 10, fn == SQL_FN_BIN ? 2 : 8);
        return 0;
    }
    case SQL_FN_EXP:
        return double_result(ctx, e, exp(value_to_double(&a[0], dg)), out);
    case SQL_FN_LN: case SQL_FN_LOG2: case SQL_FN_LOG10: case SQL_FN_LOG: {
        double x = value_to_double(&a[e->nargs - 1], dg);
        if (x <= 0) { *out = log_null(ctx); return 0; }
        if (fn == SQL_FN_LOG && e->nargs == 2) {
            double b = value_to_double(&a[0], dg);
            if (b <= 1) { *out = log_null(ctx); return 0; }
            *out = value_double(log(x) / log(b));
            return 0;
        }
        *out = value_double(fn == SQL_FN_LOG2 ? log2(x) : fn == SQL_FN_LOG10 ? log10(x) : log(x));
        return 0;
    }
    case SQL_FN_SIN: *out = value_double(sin(value_to_double(&a[0], dg))); return 0;
    case SQL_FN_COS: *out = value_double(cos(value_to_double(&a[0], dg))); return 0;
    case SQL_FN_TAN: return double_result(ctx, e, tan(value_to_double(&a[0], dg)), out);
    case SQL_FN_ASIN: case SQL_FN_ACOS: {
        double x = value_to_double(&a[0], dg);
        *out = x < -1 || x > 1 ? value_null() : value_double(fn == SQL_FN_ASIN ? asin(x) : acos(x));
        return 0;
    }
    case SQL_FN_ATAN: case SQL_FN_ATAN2:
        if (e->nargs == 2)
            *out = value_double(atan2(value_to_double(&a[0], dg), value_to_double(&a[1], dg)));
        else
            *out = value_double(atan(value_to_double(&a[0], dg)));
        return 0;
    case SQL_FN_DEGREES: *out = value_double(value_to_double(&a[0], dg) * (180.0 / M_PI)); return 0;
    case SQL_FN_RADIANS: *out = value_double(value_to_double(&a[0], dg) * (M_PI / 180.0)); return 0;
    case SQL_FN_INET_ATON: {
        value_t s = text_of(ctx, &a[0]);
        uint64_t v = 0, part = 0;
        int dots = 0;
        bool digit = false;
        for (size_t i = 0; i < s.s.len; i++) {
            char c = s.s.ptr[i];
            if (c >= '0' && c <= '9') {
                part = part * 10 + (uint64_t)(c - '0');
                if (part > 255) { *out = value_null(); return 0; }
                digit = true;
            } else if (c == '.' && digit && dots < 3) {
                v = v << 8 | part;
                part = 0;
                dots++;
                digit = false;
            } else {
                *out = value_null();
                return 0;
            }
        }
        if (!digit) { *out = value_null(); return 0; }
        v = v << 8 | part;
        if (dots == 1) v = (v & 0xff00) << 16 | (v & 0xff);
        else if (dots == 2) v = (v & 0xffff00) << 8 | (v & 0xff);
        *out = value_uint(v);
        return 0;
    }
    case SQL_FN_INET_NTOA: {
        int64_t v = value_to_int(&a[0], dg);
        if (v < 0 || v > 0xffffffffLL) { *out = value_null(); return 0; }
        char buf[20];
        snprintf(buf, sizeof buf, "%u.%u.%u.%u", (unsigned)(v >> 24 & 255), (unsigned)(v >> 16 & 255),
                 (unsigned)(v >> 8 & 255), (unsigned)(v & 255));
        *out = arena_str(ctx, buf, strlen(buf), COLL_DEFAULT);
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}
