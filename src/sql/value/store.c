/*
 * sql_value_store(): MySQL's conversion of a value to a column type on INSERT / UPDATE, with the strict and
 * non-strict outcomes MariaDB 10.11 shows (tests/unit/test_sql_store.c lists the cases, each read from a
 * running MariaDB).  See store.h for what each type's stored value looks like.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/value/store.h"
#include "sql/value/tz.h"

typedef struct sctx {
    arena_t *a;
    const sql_store_col_t *col;
    bool strict;
    uint64_t row;
    diag_t *d;
} sctx_t;

/* ---------------------------------------------------------------- messages */

/* A value as error messages quote it; a non-finite double (binary-protocol parameters carry them) as "0", the
 * text MariaDB's conversion gives it. */
static const char *short_text(sctx_t *c, const value_t *v)
{
    if (v->type == VAL_DOUBLE && !isfinite(v->d))
        return "0";
    size_t n;
    const char *s = value_to_text(c->a, v, &n);
    if (!s)
        return "NULL";
    return arena_printf(c->a, "%.*s", (int)MIN(n, 128), s);
}

static int e_1366(sctx_t *c, const char *type, const value_t *v)
{
    const char *db = c->col->db ? c->col->db : "", *tb = c->col->table ? c->col->table : "";
    return diag_push(c->d, c->strict ? DIAG_ERROR : DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, type,
                     short_text(c, v), db, tb, c->col->name, (unsigned long)c->row);
}

/* 1292 with the 1366-style text MariaDB uses when storing a bad temporal (errors only: strict). */
static int e_1292(sctx_t *c, const char *type, const value_t *v)
{
    char msg[512];
    snprintf(msg, sizeof msg, "Incorrect %s value: '%s' for column `%s`.`%s`.`%s` at row %lu", type,
             short_text(c, v), c->col->db ? c->col->db : "", c->col->table ? c->col->table : "", c->col->name,
             (unsigned long)c->row);
    diag_push_msg(c->d, DIAG_ERROR, ER_TRUNCATED_WRONG_VALUE, msg);
    return -ER_TRUNCATED_WRONG_VALUE;
}

static int e_code(sctx_t *c, int code, bool strict_error)
{
    if (strict_error)
        return diag_push(c->d, DIAG_ERROR, code, c->col->name, (unsigned long)c->row);
    return diag_push(c->d, DIAG_WARNING, code, c->col->name, (unsigned long)c->row);
}

static int e_1265(sctx_t *c) { return e_code(c, WARN_DATA_TRUNCATED, c->strict); }
static int e_1264(sctx_t *c) { return e_code(c, ER_WARN_DATA_OUT_OF_RANGE, c->strict); }
static void n_1265(sctx_t *c) { diag_push(c->d, DIAG_NOTE, WARN_DATA_TRUNCATED, c->col->name, (unsigned long)c->row); }

/* ---------------------------------------------------------------- numbers */

typedef enum {
    NUM_OK, NUM_SPACES /* trailing spaces: note 1265 */, NUM_NONE /* no digits: 1366 */,
    NUM_TRAIL /* trailing garbage: 1265 */
} num_scan_t;

/* How much of a string is a number (MySQL reads the prefix); trailing spaces are fine. */
static num_scan_t scan_string_number(const value_t *v, size_t *used, bool *is_int)
{
    *used = value_num_prefix(v->s.ptr, v->s.len, is_int);
    if (!*used)
        return NUM_NONE;
    for (size_t i = *used; i < v->s.len; i++)
        if (!isspace((unsigned char)v->s.ptr[i]))
            return NUM_TRAIL;
    return *used < v->s.len ? NUM_SPACES : NUM_OK;
}

/* A negative number (MariaDB: any negative value, even one rounding to 0, is out of range for UNSIGNED). */
static bool value_is_negative(const value_t *v)
{
    switch (v->type) {
    case VAL_INT: return v->i < 0;
    case VAL_DOUBLE: return v->d < 0;
    case VAL_DECIMAL: case VAL_STRING: {
        size_t i = 0;
        while (i < v->s.len && isspace((unsigned char)v->s.ptr[i]))
            i++;
        if (i >= v->s.len || v->s.ptr[i] != '-')
            return false;
        for (i++; i < v->s.len && (isdigit((unsigned char)v->s.ptr[i]) || v->s.ptr[i] == '.'); i++)
            if (v->s.ptr[i] >= '1' && v->s.ptr[i] <= '9')
                return true;
        return false;
    }
    default: return false;
    }
}

static const int64_t int_min[] = {-128, -32768, -8388608, INT32_MIN, INT64_MIN};
static const int64_t int_max[] = {127, 32767, 8388607, INT32_MAX, INT64_MAX};
static const uint64_t uint_max[] = {255, 65535, 16777215, UINT32_MAX, UINT64_MAX};

/*
 * A value as a 128-bit integer (rounded half away from zero), for the integer range checks.  Doubles beyond
 * the 128-bit range saturate.
 */
static __int128 round_double_i128(double d)
{
    d = round(d);
    if (d >= 1.7e38)
        return (__int128)(((unsigned __int128)1 << 126));
    if (d <= -1.7e38)
        return -(__int128)(((unsigned __int128)1 << 126));
    return (__int128)d;
}

static __int128 dec_text_i128(const char *s, size_t n)
{
    bool neg = n && s[0] == '-';
    size_t i = neg || (n && s[0] == '+');
    __int128 v = 0;
    bool sat = false;
    for (; i < n && isdigit((unsigned char)s[i]); i++) {
        if (v > ((__int128)1 << 120))
            sat = true;
        else
            v = v * 10 + (s[i] - '0');
    }
    if (!sat && i < n && s[i] == '.' && i + 1 < n && s[i + 1] >= '5')
        v++;
    return neg ? -v : v;
}

static int store_int(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    int k = t->kind - SQL_T_TINYINT;
    __int128 v = 0;
    int rc = 0;
    switch (in->type) {
    case VAL_INT: v = in->i; break;
    case VAL_UINT: v = (__int128)in->u; break;
    case VAL_DOUBLE:
        if (isnan(in->d)) {
            /* MariaDB casts NaN as x86 does, to 0x8000000000000000, and keeps the column's low bits without a
             * warning: INT64_MIN for BIGINT, 2^63 for BIGINT UNSIGNED, 0 for the narrower types */
            bool big = t->kind == SQL_T_BIGINT;
            *out = t->is_unsigned ? value_uint(big ? (uint64_t)1 << 63 : 0) : value_int(big ? INT64_MIN : 0);
            return 0;
        }
        v = round_double_i128(in->d);
        break;
    case VAL_DECIMAL: v = dec_text_i128(in->s.ptr, in->s.len); break;
    case VAL_STRING: {
        size_t used;
        bool is_int;
        num_scan_t sc = scan_string_number(in, &used, &is_int);
        if (sc == NUM_NONE) {
            if ((rc = e_1366(c, "integer", in)) < 0)
                return rc;
            v = 0;
            break;
        }
        if (sc == NUM_TRAIL && (rc = e_1265(c)) < 0)
            return rc;
        if (sc == NUM_SPACES)
            n_1265(c);
        char buf[400];
        size_t k2 = MIN(used, sizeof buf - 1);
        memcpy(buf, in->s.ptr, k2);
        buf[k2] = 0;
        if (is_int) {
            const char *p = buf;
            while (isspace((unsigned char)*p))
                p++;
            v = dec_text_i128(p, strlen(p));
        } else {
            v = round_double_i128(strtod(buf, NULL));
        }
        if (sc == NUM_TRAIL)
            goto range; /* one warning is enough when also out of range? MariaDB gives both; keep both */
        break;
    }
    default: {
        /* temporals: their number form (20200105, 101112) */
        value_t dv = value_to_decimal(c->a, in, NULL);
        v = dec_text_i128(dv.s.ptr, dv.s.len);
        break;
    }
    }
range:
    if (t->is_unsigned) {
        if (v < 0 || v > (__int128)uint_max[k] || value_is_negative(in)) {
            if ((rc = e_1264(c)) < 0)
                return rc;
            v = (v < 0 || value_is_negative(in)) ? 0 : (__int128)uint_max[k];
        }
        *out = value_uint((uint64_t)v);
    } else {
        if (v < int_min[k] || v > int_max[k]) {
            if ((rc = e_1264(c)) < 0)
                return rc;
            v = v < int_min[k] ? int_min[k] : int_max[k];
        }
        *out = value_int((int64_t)v);
    }
    return 0;
}

/* Canonical decimal text of any numeric-ish value; *scan tells whether a string had garbage. */
static int to_decimal_text(sctx_t *c, const value_t *in, const char *type, value_t *dv)
{
    int rc;
    if (in->type == VAL_STRING) {
        size_t used;
        bool is_int;
        num_scan_t sc = scan_string_number(in, &used, &is_int);
        if (sc == NUM_NONE) {
            if ((rc = e_1366(c, type, in)) < 0)
                return rc;
            *dv = value_decimal(c->a, "0", 1);
            return 0;
        }
        if (sc == NUM_TRAIL && (rc = e_1265(c)) < 0)
            return rc;
        if (sc == NUM_SPACES)
            n_1265(c);
        value_t pre = value_str(in->s.ptr, used, in->coll);
        *dv = value_to_decimal(c->a, &pre, NULL);
        return 0;
    }
    *dv = value_to_decimal(c->a, in, NULL);
    return 0;
}

/*
 * Rounds canonical decimal text to `scale` fraction digits (half away from zero) and checks the integer part
 * against prec - scale digits.  Writes the result text to *res.  Returns: 0 exact, 1 fraction digits dropped,
 * 2 out of range (res = the clamped maximum).
 */
static int dec_fit(arena_t *a, const char *s, size_t n, int prec, int scale, char **res)
{
    bool neg = n && s[0] == '-';
    const char *p = s + neg;
    size_t pn = n - neg;
    const char *dot = memchr(p, '.', pn);
    size_t ilen = dot ? (size_t)(dot - p) : pn;
    const char *frac = dot ? dot + 1 : p + pn;
    size_t flen = dot ? pn - ilen - 1 : 0;
    /* digits: integer part + scale fraction digits, then round on the next digit */
    size_t tot = ilen + (size_t)scale;
    char *dg = arena_alloc(a, tot + 2);
    memcpy(dg + 1, p, ilen);
    for (int i = 0; i < scale; i++)
        dg[1 + ilen + (size_t)i] = (size_t)i < flen ? frac[i] : '0';
    dg[0] = '0';
    int dropped = 0;
    if (flen > (size_t)scale) {
        for (size_t i = (size_t)scale; i < flen; i++)
            if (frac[i] != '0')
                dropped = 1;
        if (frac[scale] >= '5') {
            size_t i = tot;
            while (true) {
                if (dg[i] == '9') {
                    dg[i] = '0';
                    i--;
                } else {
                    dg[i]++;
                    break;
                }
            }
        }
    }
    /* strip leading zeros of the integer part (keep one) */
    size_t start = 0;
    size_t int_digits = ilen + 1;
    while (int_digits > 1 && dg[start] == '0') {
        start++;
        int_digits--;
    }
    bool over = int_digits > (size_t)(prec - scale) && !(int_digits == 1 && dg[start] == '0' && prec == scale);
    if (prec - scale == 0 && int_digits == 1 && dg[start] == '0')
        over = false;
    bool zero = true;
    for (size_t i = start; i < tot + 1; i++)
        if (dg[i] != '0')
            zero = false;
    char *o = arena_alloc(a, (size_t)prec + 4);
    size_t k = 0;
    if (over) {
        if (neg)
            o[k++] = '-';
        if (prec == scale)
            o[k++] = '0';
        for (int i = 0; i < prec - scale; i++)
            o[k++] = '9';
        if (scale) {
            o[k++] = '.';
            for (int i = 0; i < scale; i++)
                o[k++] = '9';
        }
        o[k] = 0;
        *res = o;
        return 2;
    }
    o = arena_alloc(a, int_digits + (size_t)scale + 4);
    if (neg && !zero)
        o[k++] = '-';
    memcpy(o + k, dg + start, int_digits);
    k += int_digits;
    if (scale) {
        o[k++] = '.';
        memcpy(o + k, dg + 1 + ilen, (size_t)scale);
        k += (size_t)scale;
    }
    o[k] = 0;
    *res = o;
    return dropped;
}

static int store_decimal(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    value_t dv;
    int rc = to_decimal_text(c, in, "decimal", &dv);
    if (rc < 0)
        return rc;
    char *res;
    if (t->is_unsigned && value_is_negative(&dv)) {
        if ((rc = e_1264(c)) < 0)
            return rc;
        dv = value_decimal(c->a, "0", 1);
    }
    int fit = dec_fit(c->a, dv.s.ptr, dv.s.len, t->len, t->scale < 0 ? 0 : t->scale, &res);
    if (fit == 2) {
        if ((rc = e_1264(c)) < 0)
            return rc;
    } else if (fit == 1) {
        n_1265(c);
    }
    *out = value_decimal(c->a, res, strlen(res));
    if (t->is_unsigned && res[0] == '-') {
        if ((rc = e_1264(c)) < 0)
            return rc;
        *out = value_decimal(c->a, t->scale > 0 ? arena_printf(c->a, "0.%0*d", t->scale, 0) : "0",
                             t->scale > 0 ? (size_t)t->scale + 2 : 1);
    }
    return 0;
}

static int store_float(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    int rc, text_rc = 0;
    double d;
    if (in->type == VAL_STRING) {
        size_t used;
        bool is_int;
        num_scan_t sc = scan_string_number(in, &used, &is_int);
        if (sc == NUM_NONE) {
            if ((rc = e_1366(c, "double", in)) < 0)
                return rc;
            d = 0;
        } else {
            if (sc == NUM_TRAIL && (rc = e_1265(c)) < 0)
                return rc;
            if (sc == NUM_SPACES)
                n_1265(c);
            char buf[400];
            size_t k = MIN(used, sizeof buf - 1);
            memcpy(buf, in->s.ptr, k);
            buf[k] = 0;
            d = strtod(buf, NULL);
            if (isinf(d)) {
                /* MariaDB reads an overflowing string as +-DBL_MAX with its own 1264 (an error when strict, but
                 * it goes on), then range-checks that against the column as any number: a second 1264 for
                 * FLOAT, DOUBLE(M,D), UNSIGNED */
                text_rc = e_1264(c);
                d = d > 0 ? DBL_MAX : -DBL_MAX;
            }
        }
    } else {
        d = value_to_double(in, NULL);
    }
    double maxv = t->kind == SQL_T_FLOAT ? FLT_MAX : DBL_MAX;
    if (t->len >= 0 && t->scale >= 0) {
        double f = pow(10.0, t->scale);
        d = rint(d * f) / f; /* MariaDB's my_double_round: half to even on the scaled value */
        if (d == 0)
            d = 0; /* no -0.00 */
        double m = pow(10.0, t->len - t->scale) - 1.0 / f;
        if (m < maxv)
            maxv = m;
    }
    if (isnan(d) || d > maxv || d < -maxv || (t->is_unsigned && d < 0)) {
        if ((rc = e_1264(c)) < 0)
            return rc;
        d = isnan(d) ? 0 : (t->is_unsigned && d < 0) ? 0 : d > 0 ? maxv : -maxv;
    }
    if (text_rc < 0)
        return text_rc;
    if (t->kind == SQL_T_FLOAT)
        d = (double)(float)d;
    *out = value_double(d);
    if (t->scale >= 0)
        out->dec = (uint8_t)t->scale;
    else if (t->kind == SQL_T_FLOAT)
        out->dec = VAL_DEC_FLOAT;
    return 0;
}

static int store_bit(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    uint64_t v = 0;
    bool over = false;
    if (in->type == VAL_STRING) {
        /* bytes, big-endian */
        for (size_t i = 0; i < in->s.len; i++) {
            if (v >> 56)
                over = true;
            v = (v << 8) | (unsigned char)in->s.ptr[i];
        }
    } else if (in->type == VAL_INT && in->i < 0) {
        v = (uint64_t)in->i;
    } else if (in->type == VAL_DOUBLE && in->d < 0) {
        v = (uint64_t)(int64_t)round(in->d);
    } else {
        v = value_to_uint(in, NULL);
    }
    uint64_t maxv = t->len >= 64 ? UINT64_MAX : (((uint64_t)1 << t->len) - 1);
    if (over || v > maxv) {
        /* MariaDB: strict -> 1406 Data too long; non-strict -> 1264 warning, all ones */
        if (c->strict)
            return e_code(c, ER_DATA_TOO_LONG, true);
        e_code(c, ER_WARN_DATA_OUT_OF_RANGE, false);
        v = maxv;
    }
    *out = value_uint(v);
    return 0;
}

/* ---------------------------------------------------------------- strings */

size_t sql_utf8_prefix_bytes(const char *s, size_t n, uint64_t chars, uint64_t *counted)
{
    size_t i = 0;
    uint64_t k = 0;
    while (i < n && k < chars) {
        unsigned char ch = (unsigned char)s[i];
        size_t l = ch < 0x80 ? 1 : ch < 0xe0 ? 2 : ch < 0xf0 ? 3 : 4;
        if (i + l > n)
            l = n - i;
        i += l;
        k++;
    }
    if (counted)
        *counted = k;
    return i;
}

uint64_t sql_type_blob_max(sql_type_kind_t k)
{
    switch (k) {
    case SQL_T_TINYTEXT: case SQL_T_TINYBLOB: return 255;
    case SQL_T_TEXT: case SQL_T_BLOB: return 65535;
    case SQL_T_MEDIUMTEXT: case SQL_T_MEDIUMBLOB: return 16777215;
    case SQL_T_LONGTEXT: case SQL_T_LONGBLOB: return 4294967295ull;
    default: return 0;
    }
}

static int store_string(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    uint16_t coll = c->col->coll;
    size_t n;
    const char *s;
    if (in->type == VAL_STRING) {
        s = in->s.ptr;
        n = in->s.len;
    } else if (in->type == VAL_DOUBLE && !isfinite(in->d)) {
        /* MariaDB has no text for inf / nan: '0', truncated (1406 when strict) */
        if (c->strict)
            return e_code(c, ER_DATA_TOO_LONG, true);
        e_code(c, WARN_DATA_TRUNCATED, false);
        *out = value_str("0", 1, coll);
        return 0;
    } else {
        s = value_to_text(c->a, in, &n);
    }
    bool binary = coll == COLL_BINARY;
    bool had_1366 = false;
    if (!binary) {
        uint16_t from = in->type == VAL_STRING ? in->coll : COLL_DEFAULT;
        size_t bad, cn;
        const char *cs = sql_str_convert(c->a, s, n, from, coll, &cn, &bad);
        if (bad != SIZE_MAX) {
            /* MariaDB quotes up to 6 bytes from the first bad one, non-ASCII as \xHH */
            char val[64];
            size_t k = 0;
            for (size_t i = bad; i < n && i < bad + 6 && k + 5 < sizeof val; i++) {
                unsigned char ch = (unsigned char)s[i];
                if (ch >= 0x20 && ch < 0x7f)
                    val[k++] = (char)ch;
                else
                    k += (size_t)snprintf(val + k, sizeof val - k, "\\x%02X", ch);
            }
            if (n > bad + 6 && k + 4 < sizeof val)
                k += (size_t)snprintf(val + k, sizeof val - k, "...");
            val[k] = 0;
            value_t vv = value_str(val, k, COLL_BINARY);
            int rc = e_1366(c, "string", &vv);
            if (rc < 0)
                return rc;
            had_1366 = true;
        }
        s = cs;
        n = cn;
    }
    bool by_bytes = binary || sql_type_blob_max(t->kind) != 0 || value_coll_mbmaxlen(coll) == 1;
    uint64_t limit = sql_type_blob_max(t->kind);
    if (!limit)
        limit = (uint64_t)(t->len < 0 ? 0 : t->len);
    bool is_char = t->kind == SQL_T_CHAR;
    if (is_char) /* CHAR drops trailing spaces */
        while (n && s[n - 1] == ' ')
            n--;
    size_t keep;
    uint64_t counted;
    if (by_bytes) {
        keep = n < limit ? n : (size_t)limit;
    } else {
        keep = sql_utf8_prefix_bytes(s, n, limit, &counted);
    }
    if (keep < n) {
        bool only_spaces = !binary || t->kind == SQL_T_VARBINARY ? true : false;
        for (size_t i = keep; i < n; i++) /* MariaDB's MY_SEQ_SPACES: space, \t \n \v \f \r */
            if (s[i] != ' ' && !(s[i] >= '\t' && s[i] <= '\r'))
                only_spaces = false;
        if (only_spaces && !binary) {
            n_1265(c);
        } else if (!had_1366) { /* MariaDB reports only the 1366 when both apply */
            if (c->strict)
                return e_code(c, ER_DATA_TOO_LONG, true);
            e_code(c, WARN_DATA_TRUNCATED, false);
        }
        n = keep;
        if (is_char)
            while (n && s[n - 1] == ' ')
                n--;
    }
    if (t->kind == SQL_T_BINARY && n < (size_t)t->len) {
        char *b = arena_calloc(c->a, (size_t)t->len + 1);
        memcpy(b, s, n);
        s = b;
        n = (size_t)t->len;
    }
    *out = value_str(s, n, coll);
    return 0;
}

/* ---------------------------------------------------------------- ENUM / SET */

static bool member_eq(uint16_t coll, const char *a, size_t an, const char *b, size_t bn)
{
    return value_collate_cmp(coll == COLL_BINARY ? COLL_BINARY : (value_coll_is_ci(coll) ? coll : coll), a, an, b,
                             bn) == 0;
}

uint32_t sql_enum_index(const sql_type_t *t, const char *s, size_t n)
{
    for (uint32_t i = 0; i < t->nelems; i++)
        if (member_eq(COLL_UTF8MB4_GENERAL_CI, t->elems[i], t->elem_lens[i], s, n))
            return i + 1;
    return 0;
}

uint64_t sql_set_mask(const sql_type_t *t, const char *s, size_t n)
{
    uint64_t m = 0;
    size_t i = 0;
    while (i <= n && n) {
        const char *q = memchr(s + i, ',', n - i);
        size_t e = q ? (size_t)(q - s) : n;
        for (uint32_t k = 0; k < t->nelems && k < 64; k++)
            if (member_eq(COLL_UTF8MB4_GENERAL_CI, t->elems[k], t->elem_lens[k], s + i, e - i))
                m |= (uint64_t)1 << k;
        i = e + 1;
    }
    return m;
}

static value_t set_text(sctx_t *c, const sql_type_t *t, uint64_t m)
{
    buf_t b;
    buf_init(&b);
    for (uint32_t k = 0; k < t->nelems && k < 64; k++)
        if (m & ((uint64_t)1 << k)) {
            if (b.len)
                buf_append(&b, ",", 1);
            buf_append(&b, t->elems[k], t->elem_lens[k]);
        }
    char *s = arena_strndup(c->a, b.len ? (const char *)b.data : "", b.len);
    value_t v = value_str(s, b.len, c->col->coll);
    buf_free(&b);
    return v;
}

static int store_enum(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    int rc;
    if (in->type == VAL_STRING) {
        size_t n = in->s.len;
        while (n && in->s.ptr[n - 1] == ' ')
            n--;
        for (uint32_t i = 0; i < t->nelems; i++)
            if (member_eq(c->col->coll, t->elems[i], t->elem_lens[i], in->s.ptr, n)) {
                *out = value_str(t->elems[i], t->elem_lens[i], c->col->coll);
                return 0;
            }
        /* a string of digits is an index */
        bool is_int;
        size_t used = value_num_prefix(in->s.ptr, in->s.len, &is_int);
        if (used == in->s.len && used && is_int) {
            uint64_t idx = strtoull(in->s.ptr, NULL, 10);
            if (idx >= 1 && idx <= t->nelems) {
                *out = value_str(t->elems[idx - 1], t->elem_lens[idx - 1], c->col->coll);
                return 0;
            }
        }
    } else if (in->type != VAL_NULL) {
        uint64_t idx = value_to_uint(in, NULL);
        if (idx >= 1 && idx <= t->nelems && !(in->type == VAL_INT && in->i < 0)) {
            *out = value_str(t->elems[idx - 1], t->elem_lens[idx - 1], c->col->coll);
            return 0;
        }
    }
    if ((rc = e_1265(c)) < 0)
        return rc;
    *out = value_str("", 0, c->col->coll);
    return 0;
}

static int store_set(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    int rc;
    uint64_t all = t->nelems >= 64 ? UINT64_MAX : (((uint64_t)1 << t->nelems) - 1);
    if (in->type == VAL_STRING) {
        const char *s = in->s.ptr;
        size_t n = in->s.len, i = 0;
        uint64_t m = 0;
        bool bad = false;
        while (n && i <= n) {
            const char *q = memchr(s + i, ',', n - i);
            size_t e = q ? (size_t)(q - s) : n;
            size_t el = e;
            while (el > i && s[el - 1] == ' ')
                el--;
            bool found = false;
            for (uint32_t k = 0; k < t->nelems && k < 64; k++)
                if (member_eq(c->col->coll, t->elems[k], t->elem_lens[k], s + i, el - i)) {
                    m |= (uint64_t)1 << k;
                    found = true;
                    break;
                }
            if (!found)
                bad = true;
            i = e + 1;
        }
        if (bad) {
            bool is_int;
            size_t used = value_num_prefix(s, n, &is_int);
            if (used == n && is_int) {
                m = strtoull(s, NULL, 10);
                bad = m > all;
            }
        }
        if (bad) {
            if ((rc = e_1265(c)) < 0)
                return rc;
        }
        *out = set_text(c, t, m & all);
        return 0;
    }
    uint64_t m = value_to_uint(in, NULL);
    if ((in->type == VAL_INT && in->i < 0) || m > all) {
        if ((rc = e_1265(c)) < 0)
            return rc;
        m &= all;
    }
    *out = set_text(c, t, m);
    return 0;
}

/* ---------------------------------------------------------------- temporals */

/* Number -> datetime as MySQL reads YYYYMMDD[HHMMSS] / YYMMDD[HHMMSS]. */
static bool number_to_datetime(const value_t *in, value_t *out)
{
    char buf[64];
    int64_t iv = value_to_int(in, NULL);
    if (iv < 0)
        return false;
    int nd = snprintf(buf, sizeof buf, "%lld", (long long)iv);
    if (iv == 0) {
        memset(out, 0, sizeof *out);
        out->type = VAL_DATETIME;
        return true;
    }
    char f[32];
    if (nd <= 6 && nd >= 5) /* YYMMDD */
        snprintf(f, sizeof f, "%06lld", (long long)iv), memmove(f + 2, f + 2, 5);
    else if (nd == 7 || nd == 8) /* YYYYMMDD */
        snprintf(f, sizeof f, "%08lld", (long long)iv);
    else if (nd >= 11 && nd <= 14) /* [YY]YYMMDDHHMMSS */
        snprintf(f, sizeof f, nd <= 12 ? "%012lld" : "%014lld", (long long)iv);
    else
        return false;
    size_t fl = strlen(f);
    char t[40];
    if (fl == 6)
        snprintf(t, sizeof t, "%.2s-%.2s-%.2s", f, f + 2, f + 4);
    else if (fl == 8)
        snprintf(t, sizeof t, "%.4s-%.2s-%.2s", f, f + 4, f + 6);
    else if (fl == 12)
        snprintf(t, sizeof t, "%.2s-%.2s-%.2s %.2s:%.2s:%.2s", f, f + 2, f + 4, f + 6, f + 8, f + 10);
    else
        snprintf(t, sizeof t, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", f, f + 4, f + 6, f + 8, f + 10, f + 12);
    return value_parse_datetime(t, strlen(t), out);
}

/* Longest prefix of s that parses as a date/datetime (non-strict '2020-01-05x' stores 2020-01-05). */
static bool prefix_datetime(const char *s, size_t n, value_t *out)
{
    if (n < 9)
        return false;
    for (size_t k = n - 1; k >= 8; k--)
        if (!isdigit((unsigned char)s[k]) && value_parse_datetime(s, k, out))
            return true;
    return false;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static _Thread_local unsigned store_mode;

void sql_store_set_mode(unsigned bits) { store_mode = bits; }

static int store_datetime(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    const char *tname = t->kind == SQL_T_DATE ? "date" : "datetime";
    value_t v = {0};
    bool ok = false, partial = false;
    int rc;
    switch (in->type) {
    case VAL_DATE: case VAL_DATETIME: case VAL_TIMESTAMP:
        v = *in;
        ok = true;
        break;
    case VAL_STRING:
        ok = value_parse_datetime(in->s.ptr, in->s.len, &v);
        if (!ok && !c->strict && prefix_datetime(in->s.ptr, in->s.len, &v))
            partial = true;
        break;
    case VAL_INT: case VAL_UINT: case VAL_DECIMAL: case VAL_DOUBLE:
        ok = number_to_datetime(in, &v);
        break;
    default:
        ok = false;
    }
    if (!ok) {
        if (c->strict)
            return e_1292(c, tname, in);
        e_code(c, WARN_DATA_TRUNCATED, false);
        if (!partial) {
            memset(&v, 0, sizeof v);
        }
    } else if (store_mode & (SQL_STORE_NO_ZERO_DATE | SQL_STORE_NO_ZERO_IN_DATE)) {
        /* NO_ZERO_DATE: '0000-00-00' (1264 when not strict); NO_ZERO_IN_DATE: a zero month or day (1265, the
         * zero date stored) */
        bool zero = !v.t.year && !v.t.month && !v.t.day;
        bool zero_in = !zero && (!v.t.month || !v.t.day);
        if ((zero && (store_mode & SQL_STORE_NO_ZERO_DATE)) || (zero_in && (store_mode & SQL_STORE_NO_ZERO_IN_DATE))) {
            if (c->strict)
                return e_1292(c, tname, in);
            e_code(c, zero ? ER_WARN_DATA_OUT_OF_RANGE : WARN_DATA_TRUNCATED, false);
            memset(&v.t, 0, sizeof v.t);
        }
    }
    value_t r = {0};
    r.t = v.t;
    r.t.neg = false;
    int fsp = t->scale < 0 ? 0 : t->scale;
    if (t->kind == SQL_T_DATE) {
        r.type = VAL_DATE;
        if (ok && (v.t.hour || v.t.minute || v.t.second || v.t.usec))
            n_1265(c);
        r.t.hour = r.t.minute = r.t.second = r.t.usec = 0;
    } else {
        r.type = t->kind == SQL_T_TIMESTAMP ? VAL_TIMESTAMP : VAL_DATETIME;
        uint32_t div = 1;
        for (int i = fsp; i < 6; i++)
            div *= 10;
        r.t.usec = r.t.usec / div * div;
        r.dec = (uint8_t)fsp;
        if (t->kind == SQL_T_TIMESTAMP && (r.t.year || r.t.month || r.t.day)) {
            int64_t secs = days_from_civil(r.t.year, r.t.month, r.t.day) * 86400 + r.t.hour * 3600 +
                           r.t.minute * 60 + r.t.second -
                           sql_tz_offset_wall(&r.t); /* in @@time_zone (sql/value/tz.h) */
            if (secs < 1 || secs > 2147483647LL) {
                if (c->strict)
                    return e_1292(c, "datetime", in);
                e_code(c, ER_WARN_DATA_OUT_OF_RANGE, false);
                memset(&r.t, 0, sizeof r.t);
            }
        }
    }
    (void)rc;
    *out = r;
    return 0;
}

static int store_time(sctx_t *c, const value_t *in, value_t *out)
{
    const sql_type_t *t = c->col->type;
    value_t v = {0};
    bool ok = false, over = false;
    switch (in->type) {
    case VAL_TIME: v = *in; ok = true; break;
    case VAL_DATETIME: case VAL_TIMESTAMP:
        v = *in;
        v.type = VAL_TIME;
        v.t.year = v.t.month = v.t.day = 0;
        ok = true;
        break;
    case VAL_STRING: {
        /* detect > 838:59:59 before value_parse_time clamps it */
        ok = value_parse_time(in->s.ptr, in->s.len, &v);
        if (ok && v.t.hour == 838 && v.t.minute == 59 && v.t.second == 59) {
            value_t chk;
            /* re-parse the hour field alone: a clamped value had more hours */
            const char *s = in->s.ptr;
            size_t i = 0;
            while (i < in->s.len && (isspace((unsigned char)s[i]) || s[i] == '-'))
                i++;
            uint64_t h = 0;
            while (i < in->s.len && isdigit((unsigned char)s[i]))
                h = h * 10 + (uint64_t)(s[i++] - '0');
            if (i < in->s.len && s[i] == ':' && h > 838)
                over = true;
            (void)chk;
        }
        break;
    }
    case VAL_INT: case VAL_UINT: case VAL_DECIMAL: case VAL_DOUBLE: {
        size_t n;
        /* a number beyond what a 64-bit [-]HHHMMSS can hold is out of range (MariaDB's Sec6 saturates) */
        double d = value_to_double(in, NULL);
        if (isnan(d))
            break; /* not a time: 1265 */
        if (!(fabs(d) < 1e18)) {
            ok = over = true;
            v.t.neg = d < 0;
            break;
        }
        const char *s = value_to_text(c->a, in, &n);
        ok = value_parse_time(s, n, &v);
        if (ok && fabs(trunc(d)) > 8385959) /* the fraction does not count: 838:59:59.99 fits */
            over = true;
        break;
    }
    default: ok = false;
    }
    if (!ok) {
        if (c->strict)
            return e_1292(c, "time", in);
        e_code(c, WARN_DATA_TRUNCATED, false);
        memset(&v, 0, sizeof v);
    } else if (over) {
        if (c->strict)
            return e_1292(c, "time", in);
        e_code(c, ER_WARN_DATA_OUT_OF_RANGE, false);
        v.t.hour = 838;
        v.t.minute = v.t.second = 59;
        v.t.usec = 999999; /* the maximum, cut to the column's fsp below: 838:59:59.99 for TIME(2) */
    }
    int fsp = t->scale < 0 ? 0 : t->scale;
    uint32_t div = 1;
    for (int i = fsp; i < 6; i++)
        div *= 10;
    v.type = VAL_TIME;
    v.t.usec = v.t.usec / div * div;
    v.dec = (uint8_t)fsp;
    *out = v;
    return 0;
}

static int store_year(sctx_t *c, const value_t *in, value_t *out)
{
    int rc;
    int64_t y;
    bool from_string = in->type == VAL_STRING;
    if (from_string) {
        size_t used;
        bool is_int;
        num_scan_t sc = scan_string_number(in, &used, &is_int);
        if (sc == NUM_NONE) {
            if ((rc = e_1366(c, "integer", in)) < 0)
                return rc;
            *out = value_uint(0);
            return 0;
        }
        if (sc == NUM_TRAIL && (rc = e_1265(c)) < 0)
            return rc;
        value_t pre = value_str(in->s.ptr, used, in->coll);
        y = value_to_int(&pre, NULL);
    } else if (in->type == VAL_DATE || in->type == VAL_DATETIME || in->type == VAL_TIMESTAMP) {
        y = in->t.year;
    } else {
        y = value_to_int(in, NULL);
    }
    if (y == 0 && !from_string) {
        *out = value_uint(0);
        return 0;
    }
    if (y >= 0 && y < 70)
        y += 2000;
    else if (y >= 70 && y < 100)
        y += 1900;
    if (y < 1901 || y > 2155) {
        if ((rc = e_1264(c)) < 0)
            return rc;
        y = 0;
    }
    *out = value_uint((uint64_t)y);
    return 0;
}

/* ---------------------------------------------------------------- entry points */

value_t sql_type_implicit_default(const sql_type_t *t, uint16_t coll)
{
    switch (t->kind) {
    case SQL_T_TINYINT: case SQL_T_SMALLINT: case SQL_T_MEDIUMINT: case SQL_T_INT: case SQL_T_BIGINT:
        return t->is_unsigned ? value_uint(0) : value_int(0);
    case SQL_T_BIT: case SQL_T_YEAR: return value_uint(0);
    case SQL_T_DECIMAL: {
        value_t v = {.type = VAL_DECIMAL};
        static const char zeros[] = "0.00000000000000000000000000000000000000";
        int sc = t->scale < 0 ? 0 : t->scale;
        v.s.ptr = sc ? zeros : "0";
        v.s.len = sc ? (size_t)sc + 2 : 1;
        v.dec = (uint8_t)sc;
        return v;
    }
    case SQL_T_FLOAT: case SQL_T_DOUBLE: return value_double(0);
    case SQL_T_DATE: { value_t v = {.type = VAL_DATE}; return v; }
    case SQL_T_DATETIME: case SQL_T_TIMESTAMP: {
        value_t v = {.type = t->kind == SQL_T_DATETIME ? VAL_DATETIME : VAL_TIMESTAMP};
        v.dec = (uint8_t)(t->scale < 0 ? 0 : t->scale);
        return v;
    }
    case SQL_T_TIME: { value_t v = {.type = VAL_TIME}; v.dec = (uint8_t)(t->scale < 0 ? 0 : t->scale); return v; }
    case SQL_T_ENUM:
        if (t->nelems)
            return value_str(t->elems[0], t->elem_lens[0], coll);
        return value_str("", 0, coll);
    default:
        return value_str("", 0, coll);
    }
}

int sql_value_store(arena_t *a, const sql_store_col_t *col, const value_t *in, bool strict, uint64_t row,
                    diag_t *d, value_t *out)
{
    sctx_t c = {.a = a, .col = col, .strict = strict, .row = row, .d = d};
    const sql_type_t *t = col->type;
    if (in->type == VAL_NULL) {
        if (!col->not_null) {
            *out = value_null();
            return 0;
        }
        if (strict)
            return diag_error(d, ER_BAD_NULL_ERROR, col->name);
        diag_warn(d, ER_BAD_NULL_ERROR, col->name);
        *out = sql_type_implicit_default(t, col->coll);
        return 0;
    }
    switch (t->kind) {
    case SQL_T_TINYINT: case SQL_T_SMALLINT: case SQL_T_MEDIUMINT: case SQL_T_INT: case SQL_T_BIGINT:
        return store_int(&c, in, out);
    case SQL_T_DECIMAL: return store_decimal(&c, in, out);
    case SQL_T_FLOAT: case SQL_T_DOUBLE: return store_float(&c, in, out);
    case SQL_T_BIT: return store_bit(&c, in, out);
    case SQL_T_CHAR: case SQL_T_VARCHAR: case SQL_T_BINARY: case SQL_T_VARBINARY:
    case SQL_T_TINYTEXT: case SQL_T_TEXT: case SQL_T_MEDIUMTEXT: case SQL_T_LONGTEXT:
    case SQL_T_TINYBLOB: case SQL_T_BLOB: case SQL_T_MEDIUMBLOB: case SQL_T_LONGBLOB:
        return store_string(&c, in, out);
    case SQL_T_DATE: case SQL_T_DATETIME: case SQL_T_TIMESTAMP: return store_datetime(&c, in, out);
    case SQL_T_TIME: return store_time(&c, in, out);
    case SQL_T_YEAR: return store_year(&c, in, out);
    case SQL_T_ENUM: return store_enum(&c, in, out);
    case SQL_T_SET: return store_set(&c, in, out);
    }
    return diag_error(d, ER_NOT_SUPPORTED_YET, "column type");
}


/* ---------------------------------------------------------------- column values as text */

const char *sql_column_text(arena_t *a, const value_t *v, const sql_type_t *t, size_t *len)
{
    if (v->type == VAL_NULL) {
        *len = 0;
        return NULL;
    }
    if (t->kind == SQL_T_BIT) {
        size_t nb = (size_t)(t->len + 7) / 8;
        if (nb == 0)
            nb = 1;
        uint64_t x = value_to_uint(v, NULL);
        char *o = arena_alloc(a, nb + 1);
        for (size_t i = 0; i < nb; i++)
            o[nb - 1 - i] = (char)((x >> (8 * i)) & 0xff);
        o[nb] = 0;
        *len = nb;
        return o;
    }
    size_t n;
    const char *s = value_to_text(a, v, &n);
    uint32_t width = 0;
    if (t->kind == SQL_T_YEAR)
        width = 4;
    else if (t->zerofill) {
        switch (t->kind) {
        case SQL_T_DECIMAL: width = (uint32_t)t->len + (t->scale > 0); break;
        case SQL_T_FLOAT: case SQL_T_DOUBLE:
            width = t->len >= 0 && t->scale >= 0 ? (uint32_t)t->len : (t->kind == SQL_T_FLOAT ? 12 : 22);
            break;
        default: width = (uint32_t)(t->len > 0 ? t->len : 0); break;
        }
    }
    if (width > n && s && s[0] != '-') {
        char *o = arena_alloc(a, width + 1);
        memset(o, '0', width - n);
        memcpy(o + (width - n), s, n);
        o[width] = 0;
        *len = width;
        return o;
    }
    *len = n;
    return s;
}
