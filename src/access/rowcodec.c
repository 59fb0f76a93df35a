/*
 * Row codec: memcomparable keys and compact row values (see rowcodec.h for the why).
 *
 * ---- Key format (RC_KEY_VERSION 2) -------------------------------------------------------------------------
 * A key is the concatenation of its columns' encodings; the catalog records the key version per index.
 *
 *   nullable column      1 byte marker: 0x00 NULL (nothing follows; NULL sorts first), 0x01 a value follows
 *   TINYINT..BIGINT      1/2/3/4/8 bytes big-endian; signed: top bit flipped (two's complement -> offset)
 *   YEAR                 1 byte: 0 for 0000, else year - 1900
 *   BIT                  8 bytes big-endian
 *   ENUM                 2 bytes big-endian index (1-based, 0 = the '' error value): MySQL orders by index
 *   SET                  8 bytes big-endian bit mask: MySQL orders by the numeric value
 *   FLOAT / DOUBLE       4 / 8 bytes big-endian IEEE bits; positive: sign bit set; negative: all bits inverted;
 *                        -0 is written as +0
 *   DECIMAL(M,D)         1 byte sign (0x01 negative, 0x02 zero or positive), then M digits as nibbles
 *                        ((M+1)/2 bytes): M-D integer digits zero-padded on the left, D fraction digits
 *                        truncated/padded on the right; negative numbers store 9-digit so larger magnitudes
 *                        sort first.  Out-of-range magnitudes clamp to all nines.
 *   DATE                 3 bytes big-endian: year*512 + month*32 + day
 *   DATETIME/TIMESTAMP   8 bytes big-endian: ((((year*13+month)*32+day)*24+hour)*60+minute)*60+second, times
 *                        10^6, plus microseconds
 *   TIME                 8 bytes big-endian: signed microseconds (negative TIME below zero), top bit flipped
 *   binary strings       (collation binary: BINARY/VARBINARY/BLOB) bytes with 0x00 written as 0x00 0xFF, then
 *                        the terminator 0x00 0x00: shorter sorts first, as memcmp of the raw bytes
 *   PAD SPACE strings    (every other collation) the string's weights (collation.h: one per character, what
 *                        value_collate_cmp compares), trailing spaces dropped, written as tokens so the order is
 *                        MySQL's "as if padded with spaces":
 *                          0x00 w      a weight w below ' ' (0x20)
 *                          0x01 k(4)   a run of k spaces followed by a weight below ' ' (longer run sorts later)
 *                          0x02        end of string ("spaces forever")
 *                          0x03 ~k(4)  a run of k spaces followed by a weight above ' ' (longer run sorts first)
 *                          w           a weight above ' ': one byte when below 0x80 or of a single-byte
 *                                      collation (latin1: 0x21..0xFF); else (utf8 general_ci: 0x80..0x100FF)
 *                                      the UTF-8 form of the number, 2-4 bytes with lead byte 0xC2..0xF4, which
 *                                      keeps the order and never starts with 0x00..0x03
 *                        An index prefix length (characters; UTF-8 characters for multi-byte charsets) cuts
 *                        the string before encoding.
 *                        Version 1 wrote bytes with ASCII letters upper-cased: the same bytes for ASCII strings,
 *                        other orders beyond (exec.c brings version-1 indexes over at start-up).
 *
 * ---- Row format (RC_ROW_VERSION 1) -------------------------------------------------------------------------
 *   offset  size        field
 *   0       1           version (1)
 *   1       varint      n: columns stored (a row written before ALTER ADD COLUMN holds fewer than the table)
 *   ..      (n+7)/8     null bitmap, bit i%8 of byte i/8 set = column i is NULL
 *   ..      fixed part  each non-NULL fixed-width column in column order, little-endian:
 *                         TINYINT..BIGINT 1/2/3/4/8, YEAR 1 (0 or year - 1900), ENUM 2, SET 8, BIT 8, FLOAT 4, DOUBLE 8,
 *                         DATE 3 (year*512+month*32+day), DATETIME/TIMESTAMP 8 (the key's number),
 *                         TIME 8 (signed microseconds)
 *   ..      var part    each non-NULL variable column in column order: varint length + bytes
 *                         (strings as stored; DECIMAL as its canonical text)
 */
#include <math.h>
#include <string.h>

#include "sql/value/collation.h"
#include "access/rowcodec.h"

/* ---------------------------------------------------------------- types */

bool sqlt_is_int(sqlt_t t) { return t >= SQLT_TINYINT && t <= SQLT_BIGINT; }
bool sqlt_is_string(sqlt_t t) { return t >= SQLT_CHAR && t <= SQLT_LONGBLOB; }
bool sqlt_is_temporal(sqlt_t t) { return t >= SQLT_DATE && t <= SQLT_TIME; }
bool sqlt_is_fixed(sqlt_t t) { return !sqlt_is_string(t) && t != SQLT_DECIMAL; }

static int int_width(sqlt_t t)
{
    switch (t) {
    case SQLT_TINYINT: case SQLT_YEAR: return 1;
    case SQLT_SMALLINT: case SQLT_ENUM: return 2;
    case SQLT_MEDIUMINT: case SQLT_DATE: return 3;
    case SQLT_INT: case SQLT_FLOAT: return 4;
    default: return 8;
    }
}

/* ---------------------------------------------------------------- varints */

void rc_put_varint(buf_t *b, uint64_t v)
{
    while (v >= 0x80) {
        buf_append_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    buf_append_byte(b, (uint8_t)v);
}

int rc_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return -1;
        uint8_t c = *(*p)++;
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

static void put_be(buf_t *b, uint64_t v, int w)
{
    for (int i = w - 1; i >= 0; i--)
        buf_append_byte(b, (uint8_t)(v >> (8 * i)));
}

static void put_le(buf_t *b, uint64_t v, int w)
{
    for (int i = 0; i < w; i++)
        buf_append_byte(b, (uint8_t)(v >> (8 * i)));
}

static uint64_t get_le(const uint8_t *p, int w)
{
    uint64_t v = 0;
    for (int i = 0; i < w; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---------------------------------------------------------------- numbers into the column's range */

static void int_range(const rc_col_t *c, int64_t *lo, uint64_t *hi)
{
    int w = int_width((sqlt_t)c->type);
    if (c->type == SQLT_YEAR || c->type == SQLT_ENUM || c->type == SQLT_SET || c->type == SQLT_BIT || c->is_unsigned) {
        *lo = 0;
        *hi = w == 8 ? UINT64_MAX : (1ull << (8 * w)) - 1;
        return;
    }
    *lo = w == 8 ? INT64_MIN : -(1ll << (8 * w - 1));
    *hi = w == 8 ? (uint64_t)INT64_MAX : (1ull << (8 * w - 1)) - 1;
}

/* The integer nearest to v inside the column's range, as a two's complement 64-bit pattern. */
static uint64_t clamp_int(const rc_col_t *c, const value_t *v)
{
    int64_t lo;
    uint64_t hi;
    int_range(c, &lo, &hi);
    switch (v->type) {
    case VAL_INT:
        if (v->i < lo)
            return (uint64_t)lo;
        if (v->i >= 0 && (uint64_t)v->i > hi)
            return hi;
        return (uint64_t)v->i;
    case VAL_UINT:
        return v->u > hi ? hi : v->u;
    default: {
        double d = value_to_double(v, NULL);
        if (isnan(d))
            return (uint64_t)lo;
        if (d <= (double)lo)
            return (uint64_t)lo;
        if (d >= (double)hi)
            return hi;
        d = round(d);
        return d < 0 ? (uint64_t)(int64_t)d : (uint64_t)d;
    }
    }
}

static bool is_signed_int(const rc_col_t *c) { return sqlt_is_int((sqlt_t)c->type) && !c->is_unsigned; }

/* ---------------------------------------------------------------- temporal packing */

static bool temporal_of(const rc_col_t *c, const value_t *v, value_t *out)
{
    if (value_is_temporal(v)) {
        *out = *v;
        return true;
    }
    if (v->type == VAL_STRING) {
        if (c->type == SQLT_TIME)
            return value_parse_time(v->s.ptr, v->s.len, out) || value_parse_datetime(v->s.ptr, v->s.len, out);
        return value_parse_datetime(v->s.ptr, v->s.len, out);
    }
    return false;
}

static uint64_t pack_datetime(const sql_time_t *t)
{
    uint64_t s = ((((uint64_t)t->year * 13 + t->month) * 32 + t->day) * 24 + t->hour) * 60 + t->minute;
    return (s * 60 + t->second) * 1000000 + t->usec;
}

static void unpack_datetime(uint64_t v, sql_time_t *t)
{
    memset(t, 0, sizeof *t);
    t->usec = (uint32_t)(v % 1000000);
    v /= 1000000;
    t->second = (uint32_t)(v % 60);
    v /= 60;
    t->minute = (uint32_t)(v % 60);
    v /= 60;
    t->hour = (uint32_t)(v % 24);
    v /= 24;
    t->day = (uint32_t)(v % 32);
    v /= 32;
    t->month = (uint32_t)(v % 13);
    t->year = (uint32_t)(v / 13);
}

static int64_t pack_time(const value_t *v)
{
    const sql_time_t *t = &v->t;
    int64_t us;
    if (v->type == VAL_TIME)
        us = ((int64_t)t->hour * 3600 + t->minute * 60 + t->second) * 1000000 + t->usec;
    else /* a datetime given for a TIME column: its time of day */
        us = ((int64_t)t->hour * 3600 + t->minute * 60 + t->second) * 1000000 + t->usec;
    return v->type == VAL_TIME && t->neg ? -us : us;
}

static void unpack_time(int64_t us, sql_time_t *t)
{
    memset(t, 0, sizeof *t);
    if (us < 0) {
        t->neg = true;
        us = -us;
    }
    t->usec = (uint32_t)(us % 1000000);
    us /= 1000000;
    t->second = (uint32_t)(us % 60);
    us /= 60;
    t->minute = (uint32_t)(us % 60);
    t->hour = (uint32_t)(us / 60);
}

/* ---------------------------------------------------------------- keys */

static uint64_t double_key_bits(double d)
{
    if (d == 0)
        d = 0; /* -0 -> +0 */
    uint64_t u;
    memcpy(&u, &d, 8);
    return (u >> 63) ? ~u : u | (1ull << 63);
}

static uint32_t float_key_bits(float f)
{
    if (f == 0)
        f = 0;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u >> 31) ? ~u : u | (1u << 31);
}

/* DECIMAL(M,D): sign byte + M digit nibbles. */
static int decimal_key(buf_t *b, const rc_col_t *c, const value_t *v)
{
    char tmp[80];
    const char *s;
    size_t n;
    if (v->type == VAL_DECIMAL) {
        s = v->s.ptr;
        n = v->s.len;
    } else if (v->type == VAL_INT) {
        n = (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)v->i);
        s = tmp;
    } else if (v->type == VAL_UINT) {
        n = (size_t)snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->u);
        s = tmp;
    } else if (v->type == VAL_DOUBLE || v->type == VAL_STRING) {
        double d = value_to_double(v, NULL);
        if (isnan(d) || isinf(d))
            return -1;
        n = (size_t)snprintf(tmp, sizeof tmp, "%.*f", MIN(c->scale + 1, 38), d);
        if (n >= sizeof tmp)
            n = (size_t)snprintf(tmp, sizeof tmp, "%s", d < 0 ? "-1e99" : "1e99"); /* clamps below */
        s = tmp;
    } else {
        return -1;
    }
    uint32_t m = c->len ? c->len : 10, dsc = c->scale;
    if (dsc > m)
        dsc = m;
    uint32_t idig = m - dsc;
    bool neg = n && s[0] == '-';
    if (neg || (n && s[0] == '+'))
        s++, n--;
    size_t ilen = 0;
    while (ilen < n && s[ilen] >= '0' && s[ilen] <= '9')
        ilen++;
    const char *frac = ilen < n && s[ilen] == '.' ? s + ilen + 1 : "";
    size_t flen = 0;
    while (frac[0] && flen < n - ilen - 1 && frac[flen] >= '0' && frac[flen] <= '9')
        flen++;
    const char *ip = s;
    while (ilen && *ip == '0')
        ip++, ilen--;
    bool overflow = ilen > idig || (n > ilen && memchr(s, 'e', n) != NULL);
    uint8_t dig[96];
    bool zero = true;
    for (uint32_t i = 0; i < m; i++) {
        int d;
        if (overflow)
            d = 9;
        else if (i < idig)
            d = (i + ilen >= idig) ? ip[i + ilen - idig] - '0' : 0;
        else
            d = (i - idig < flen) ? frac[i - idig] - '0' : 0;
        dig[i] = (uint8_t)d;
        if (d)
            zero = false;
    }
    if (zero)
        neg = false;
    buf_append_byte(b, neg ? 0x01 : 0x02);
    for (uint32_t i = 0; i < m; i += 2) {
        uint8_t hi = dig[i], lo = i + 1 < m ? dig[i + 1] : 0;
        if (neg)
            hi = (uint8_t)(9 - hi), lo = (uint8_t)(9 - lo);
        buf_append_byte(b, (uint8_t)(hi << 4 | lo));
    }
    return 0;
}

static size_t utf8_prefix(const char *s, size_t n, uint32_t chars)
{
    size_t i = 0;
    uint32_t k = 0;
    while (i < n) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (k == chars)
                break;
            k++;
        }
        i++;
    }
    return i;
}

/* One weight as key bytes at o (room for 4): below 0x80 (and every weight of a single-byte collation) one byte,
 * else the order-preserving UTF-8 form of the number (2..4 bytes, lead byte 0xC0..0xF7, never 0x00..0x03).
 * Returns the bytes written. */
static size_t put_weight(uint8_t *o, uint32_t w, bool wide)
{
    if (w < 0x80 || !wide) {
        o[0] = (uint8_t)w;
        return 1;
    }
    if (w < 0x800) {
        o[0] = (uint8_t)(0xC0 | (w >> 6));
        o[1] = (uint8_t)(0x80 | (w & 0x3F));
        return 2;
    }
    if (w < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (w >> 12));
        o[1] = (uint8_t)(0x80 | ((w >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (w & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (w >> 18));
    o[1] = (uint8_t)(0x80 | ((w >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((w >> 6) & 0x3F));
    o[3] = (uint8_t)(0x80 | (w & 0x3F));
    return 4;
}

static void put_be32(uint8_t *o, uint32_t v)
{
    o[0] = (uint8_t)(v >> 24);
    o[1] = (uint8_t)(v >> 16);
    o[2] = (uint8_t)(v >> 8);
    o[3] = (uint8_t)v;
}

/* A UCA collation's key: its weight stream in put_weight's form, where a weight below the space's has a 0x00
 * before it, a run of space weights is a token as in rc_key_string, and space weights at the end are dropped
 * (PAD SPACE: NBSP and the other characters that weigh as a space count as one) */
static void key_uca(buf_t *b, const coll_uca_t *u, const char *s, size_t n)
{
    while (n && s[n - 1] == ' ')
        n--;
    coll_uca_iter_t it;
    coll_uca_iter_init(&it, u, s, n);
    uint32_t w = coll_uca_next(&it);
    while (w != COLL_UCA_END) {
        buf_reserve(b, 8);
        uint8_t *o = b->data + b->len;
        if (w == u->space) {
            uint32_t run = 0;
            while (w == u->space)
                run++, w = coll_uca_next(&it);
            if (w == COLL_UCA_END)
                break;
            o[0] = w < u->space ? 0x01 : 0x03;
            put_be32(o + 1, w < u->space ? run : 0xFFFFFFFFu - run);
            b->len += 5;
            continue;
        }
        if (w < u->space)
            *o++ = 0x00, b->len++;
        b->len += put_weight(o, w, true);
        w = coll_uca_next(&it);
    }
    buf_append_byte(b, 0x02);
}

void rc_key_string(buf_t *b, uint16_t coll, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (coll == COLL_BINARY) {
        for (size_t i = 0; i < n; i++) {
            buf_append_byte(b, s[i]);
            if (!s[i])
                buf_append_byte(b, 0xFF);
        }
        buf_append_byte(b, 0);
        buf_append_byte(b, 0);
        return;
    }
    coll_kind_t k = coll_kind_of(coll);
    if (k == COLL_KIND_UCA) {
        key_uca(b, coll_uca_of(coll), str, n);
        return;
    }
    const uint8_t *bw = coll_byte_weights(k);
    bool wide = k == COLL_KIND_UTF8_GENERAL;
    while (n && s[n - 1] == ' ')
        n--;
    /* written through a pointer.  Before each step there is room for one byte per input byte left plus 8: an
     * ASCII character above the space gives one key byte, any other step at most 5 (a space run's token, an
     * invalid byte's 4-byte weight) */
    buf_reserve(b, n + 16);
    size_t len = b->len, i = 0;
    while (i < n) {
        if (b->cap - len < n - i + 8) {
            b->len = len;
            buf_reserve(b, n - i + 16);
        }
        uint8_t *d = b->data;
        while (i < n && s[i] > ' ' && s[i] < 0x80) /* the common case, one byte each */
            d[len++] = bw[s[i++]];
        if (i == n)
            break;
        uint8_t *o = d + len;
        if (s[i] == ' ') {
            size_t run = 0;
            while (i < n && s[i] == ' ')
                i++, run++;
            /* not at the end: trailing spaces were dropped, so s[i] is the character after the run */
            size_t t = i;
            uint32_t next = coll_weight_next(k, bw, s, n, &t);
            if (next < COLL_WEIGHT_SPACE) {
                o[0] = 0x01;
                put_be32(o + 1, (uint32_t)run);
            } else {
                o[0] = 0x03;
                put_be32(o + 1, 0xFFFFFFFFu - (uint32_t)run);
            }
            len += 5;
            continue;
        }
        /* only ' ' weighs as a space (collation.h), so w != 0x20 here */
        uint32_t w = coll_weight_next(k, bw, s, n, &i);
        if (w < COLL_WEIGHT_SPACE) {
            *o++ = 0x00;
            len++;
        }
        len += put_weight(o, w, wide);
    }
    b->len = len;
    buf_append_byte(b, 0x02);
}

static void string_key(buf_t *b, const rc_col_t *c, const char *s, size_t n)
{
    if (c->prefix)
        n = value_coll_mbmaxlen(c->coll) > 1 ? utf8_prefix(s, n, c->prefix) : MIN(n, (size_t)c->prefix);
    rc_key_string(b, c->coll, s, n);
}

int rc_key_append(buf_t *b, const rc_col_t *c, const value_t *v)
{
    if (v->type == VAL_NULL) {
        if (!c->nullable)
            return -1;
        buf_append_byte(b, 0x00);
        return 0;
    }
    size_t mark = b->len;
    if (c->nullable)
        buf_append_byte(b, 0x01);
    sqlt_t t = (sqlt_t)c->type;
    switch (t) {
    case SQLT_TINYINT: case SQLT_SMALLINT: case SQLT_MEDIUMINT: case SQLT_INT: case SQLT_BIGINT:
    case SQLT_BIT: case SQLT_ENUM: case SQLT_SET: {
        int w = int_width(t);
        uint64_t u = clamp_int(c, v);
        if (is_signed_int(c))
            u ^= 1ull << (8 * w - 1);
        put_be(b, u, w);
        return 0;
    }
    case SQLT_YEAR: {
        /* the year itself (not clamped to the byte's range first: that made every year 1901) */
        int64_t y = v->type == VAL_UINT ? (int64_t)MIN(v->u, (uint64_t)INT64_MAX) : value_to_int(v, NULL);
        buf_append_byte(b, y <= 0 ? 0 : y <= 1900 ? 1 : y >= 2155 ? 255 : (uint8_t)(y - 1900));
        return 0;
    }
    case SQLT_FLOAT:
        put_be(b, float_key_bits((float)value_to_double(v, NULL)), 4);
        return 0;
    case SQLT_DOUBLE:
        put_be(b, double_key_bits(value_to_double(v, NULL)), 8);
        return 0;
    case SQLT_DECIMAL:
        if (decimal_key(b, c, v) < 0)
            goto bad;
        return 0;
    case SQLT_DATE: case SQLT_DATETIME: case SQLT_TIMESTAMP: case SQLT_TIME: {
        value_t tv;
        if (!temporal_of(c, v, &tv))
            goto bad;
        if (t == SQLT_TIME) {
            put_be(b, (uint64_t)pack_time(&tv) ^ (1ull << 63), 8);
        } else if (tv.type == VAL_TIME) {
            goto bad;
        } else if (t == SQLT_DATE) {
            put_be(b, (uint64_t)tv.t.year * 512 + tv.t.month * 32 + tv.t.day, 3);
        } else {
            put_be(b, pack_datetime(&tv.t), 8);
        }
        return 0;
    }
    default:
        if (sqlt_is_string(t) && v->type == VAL_STRING) {
            string_key(b, c, v->s.ptr, v->s.len);
            return 0;
        }
        goto bad;
    }
bad:
    b->len = mark;
    return -1;
}

int rc_key_skip(const rc_col_t *c, const uint8_t *p, size_t n)
{
    size_t i = 0;
    if (c->nullable) {
        if (n < 1)
            return -1;
        if (p[0] == 0)
            return 1;
        i = 1;
    }
    sqlt_t t = (sqlt_t)c->type;
    size_t w;
    if (sqlt_is_string(t)) {
        if (c->coll == COLL_BINARY) {
            for (; i + 1 < n; i++) {
                if (p[i] == 0) {
                    if (p[i + 1] == 0)
                        return (int)(i + 2);
                    i++;
                }
            }
            return -1;
        }
        while (i < n) {
            uint8_t x = p[i];
            if (x == 0x02)
                return (int)(i + 1);
            i += x == 0x00 ? 2 : (x == 0x01 || x == 0x03) ? 5 : 1;
        }
        return -1;
    }
    if (t == SQLT_DECIMAL)
        w = 1 + ((c->len ? c->len : 10) + 1) / 2;
    else if (t == SQLT_DOUBLE || t == SQLT_DATETIME || t == SQLT_TIMESTAMP || t == SQLT_TIME)
        w = 8;
    else
        w = (size_t)int_width(t);
    return i + w <= n ? (int)(i + w) : -1;
}

static int fixed_width(sqlt_t t);
static void fixed_value(const rc_col_t *c, uint64_t u, value_t *v);

bool rc_key_decodable(const rc_col_t *c)
{
    sqlt_t t = (sqlt_t)c->type;
    /* FLOAT / DOUBLE keys write -0 as +0; DECIMAL keys truncate to the column's digits; strings are folded */
    return sqlt_is_fixed(t) && t != SQLT_FLOAT && t != SQLT_DOUBLE;
}

int rc_key_decode(const rc_col_t *c, const uint8_t *p, size_t n, value_t *v)
{
    if (!rc_key_decodable(c))
        return -1;
    size_t i = 0;
    if (c->nullable) {
        if (n < 1)
            return -1;
        if (p[0] == 0) {
            *v = value_null();
            return 1;
        }
        i = 1;
    }
    sqlt_t t = (sqlt_t)c->type;
    int w = fixed_width(t);
    if (i + (size_t)w > n)
        return -1;
    uint64_t u = 0;
    for (int k = 0; k < w; k++)
        u = u << 8 | p[i + (size_t)k];
    if (t == SQLT_TIME)
        u ^= 1ull << 63;
    else if (is_signed_int(c))
        u ^= 1ull << (8 * w - 1);
    fixed_value(c, u, v);
    return (int)(i + (size_t)w);
}

/* ---------------------------------------------------------------- rows */

static int fixed_width(sqlt_t t)
{
    switch (t) {
    case SQLT_DOUBLE: case SQLT_DATETIME: case SQLT_TIMESTAMP: case SQLT_TIME: case SQLT_BIT: case SQLT_SET:
        return 8;
    default:
        return int_width(t);
    }
}

static uint64_t fixed_bits(const rc_col_t *c, const value_t *v)
{
    sqlt_t t = (sqlt_t)c->type;
    switch (t) {
    case SQLT_FLOAT: {
        float f = (float)value_to_double(v, NULL);
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    case SQLT_DOUBLE: {
        double d = value_to_double(v, NULL);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    case SQLT_DATE: case SQLT_DATETIME: case SQLT_TIMESTAMP: case SQLT_TIME: {
        value_t tv;
        if (!temporal_of(c, v, &tv))
            return 0;
        if (t == SQLT_TIME)
            return (uint64_t)pack_time(&tv);
        if (t == SQLT_DATE)
            return (uint64_t)tv.t.year * 512 + tv.t.month * 32 + tv.t.day;
        return pack_datetime(&tv.t);
    }
    case SQLT_YEAR: {
        int64_t y = value_to_int(v, NULL);
        return y <= 1900 ? 0 : (uint64_t)MIN(y - 1900, 255);
    }
    default:
        return clamp_int(c, v);
    }
}

int rc_row_encode(buf_t *b, const rc_col_t *cols, uint32_t ncols, const value_t *vals)
{
    buf_append_byte(b, RC_ROW_VERSION);
    rc_put_varint(b, ncols);
    size_t bm = b->len, nb = (ncols + 7) / 8;
    buf_reserve(b, nb);
    memset(b->data + bm, 0, nb);
    b->len += nb;
    for (uint32_t i = 0; i < ncols; i++)
        if (vals[i].type == VAL_NULL)
            b->data[bm + i / 8] |= (uint8_t)(1u << (i % 8));
    for (uint32_t i = 0; i < ncols; i++)
        if (vals[i].type != VAL_NULL && sqlt_is_fixed((sqlt_t)cols[i].type))
            put_le(b, fixed_bits(&cols[i], &vals[i]), fixed_width((sqlt_t)cols[i].type));
    for (uint32_t i = 0; i < ncols; i++) {
        if (vals[i].type == VAL_NULL || sqlt_is_fixed((sqlt_t)cols[i].type))
            continue;
        const value_t *v = &vals[i];
        if (v->type == VAL_STRING || v->type == VAL_DECIMAL) {
            rc_put_varint(b, v->s.len);
            buf_append(b, v->s.ptr, v->s.len);
        } else {
            /* not yet stored as the column's type: keep its text so nothing is lost */
            buf_t s;
            buf_init(&s);
            value_append_text(&s, v);
            rc_put_varint(b, s.len);
            buf_append(b, s.data, s.len);
            buf_free(&s);
        }
    }
    return 0;
}

/* The value of a fixed-width column from its number u (the row's little-endian field, the key's big-endian one). */
static void fixed_value(const rc_col_t *c, uint64_t u, value_t *v)
{
    sqlt_t t = (sqlt_t)c->type;
    int w = fixed_width(t);
    memset(v, 0, sizeof *v);
    switch (t) {
    case SQLT_FLOAT: {
        float f;
        uint32_t x = (uint32_t)u;
        memcpy(&f, &x, 4);
        *v = value_double(f);
        if (c->scale && c->scale < VAL_DEC_NOT_FIXED)
            v->dec = c->scale;
        break;
    }
    case SQLT_DOUBLE: {
        double d;
        memcpy(&d, &u, 8);
        *v = value_double(d);
        if (c->scale && c->scale < VAL_DEC_NOT_FIXED)
            v->dec = c->scale;
        break;
    }
    case SQLT_DATE:
        v->type = VAL_DATE;
        v->t.year = (uint32_t)(u / 512);
        v->t.month = (uint32_t)(u / 32 % 16);
        v->t.day = (uint32_t)(u % 32);
        break;
    case SQLT_DATETIME: case SQLT_TIMESTAMP:
        v->type = t == SQLT_DATETIME ? VAL_DATETIME : VAL_TIMESTAMP;
        unpack_datetime(u, &v->t);
        v->dec = c->scale;
        break;
    case SQLT_TIME:
        v->type = VAL_TIME;
        unpack_time((int64_t)u, &v->t);
        v->dec = c->scale;
        break;
    case SQLT_YEAR:
        *v = value_uint(u ? u + 1900 : 0);
        break;
    default:
        if (is_signed_int(c)) {
            /* sign-extend the stored width */
            int sh = 64 - 8 * w;
            *v = value_int((int64_t)(u << sh) >> sh);
        } else {
            *v = value_uint(u);
        }
        break;
    }
}

int rc_row_decode(const void *data, size_t n, const rc_col_t *cols, uint32_t ncols, value_t *out, uint32_t *nstored)
{
    const uint8_t *p = data, *end = p + n;
    uint64_t stored;
    if (n < 2 || p[0] != RC_ROW_VERSION)
        return STRATA_ECORRUPT;
    p++;
    if (rc_get_varint(&p, end, &stored) < 0 || stored > 65536)
        return STRATA_ECORRUPT;
    const uint8_t *bm = p;
    p += (stored + 7) / 8;
    if (p > end)
        return STRATA_ECORRUPT;
    if (nstored)
        *nstored = (uint32_t)stored;
    uint32_t have = (uint32_t)MIN(stored, (uint64_t)ncols);
    for (uint32_t i = have; i < ncols; i++)
        out[i] = value_null();
    for (uint32_t i = 0; i < (uint32_t)stored; i++) {
        bool null = bm[i / 8] & (1u << (i % 8));
        if (i >= ncols) {
            /* a column this reader does not know (dropped): skip its bytes */
            return STRATA_ECORRUPT;
        }
        value_t *v = &out[i];
        const rc_col_t *c = &cols[i];
        sqlt_t t = (sqlt_t)c->type;
        if (null) {
            *v = value_null();
            continue;
        }
        if (!sqlt_is_fixed(t))
            continue;
        int w = fixed_width(t);
        if (p + w > end)
            return STRATA_ECORRUPT;
        uint64_t u = get_le(p, w);
        p += w;
        fixed_value(c, u, v);
    }
    for (uint32_t i = 0; i < have; i++) {
        const rc_col_t *c = &cols[i];
        sqlt_t t = (sqlt_t)c->type;
        if ((bm[i / 8] & (1u << (i % 8))) || sqlt_is_fixed(t))
            continue;
        uint64_t len;
        if (rc_get_varint(&p, end, &len) < 0 || len > (uint64_t)(end - p))
            return STRATA_ECORRUPT;
        value_t *v = &out[i];
        memset(v, 0, sizeof *v);
        if (t == SQLT_DECIMAL) {
            v->type = VAL_DECIMAL;
            v->dec = c->scale;
        } else {
            v->type = VAL_STRING;
            v->coll = c->coll;
        }
        v->s.ptr = (const char *)p;
        v->s.len = (size_t)len;
        p += len;
    }
    return 0;
}
