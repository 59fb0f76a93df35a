/*
 * SQL values (value.h): conversions, comparison and text formatting with MySQL's rules, checked against
 * MariaDB 10.11 (the expected outputs in tests/unit/test_value.c were read from a running MariaDB).
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/value/collation.h"
#include "sql/value/value.h"
#include "sql/value/store.h"
#include "util/diag.h"
#include "sql/value/store.h"

/* ---------------------------------------------------------------- collations */

typedef struct coll_info {
    uint16_t id;
    const char *name;
    const char *charset;
    bool is_default;
    bool ci;
    uint32_t mbmaxlen;
} coll_info_t;

static const coll_info_t colls[] = {
    {COLL_LATIN1_SWEDISH_CI, "latin1_swedish_ci", "latin1", true, true, 1},
    {COLL_LATIN1_BIN, "latin1_bin", "latin1", false, false, 1},
    {COLL_UTF8MB3_GENERAL_CI, "utf8mb3_general_ci", "utf8mb3", true, true, 3},
    {83, "utf8mb3_bin", "utf8mb3", false, false, 3},
    {COLL_UTF8MB4_GENERAL_CI, "utf8mb4_general_ci", "utf8mb4", true, true, 4},
    {COLL_UTF8MB4_BIN, "utf8mb4_bin", "utf8mb4", false, false, 4},
    {COLL_UTF8MB4_UNICODE_CI, "utf8mb4_unicode_ci", "utf8mb4", false, true, 4},
    {COLL_UTF8MB4_UNICODE_520_CI, "utf8mb4_unicode_520_ci", "utf8mb4", false, true, 4},
    {COLL_UTF8MB4_UCA1400_AI_CI, "utf8mb4_uca1400_ai_ci", "utf8mb4", false, true, 4},
    {COLL_UTF8MB3_UNICODE_CI, "utf8mb3_unicode_ci", "utf8mb3", false, true, 3},
    {COLL_UTF8MB3_UNICODE_520_CI, "utf8mb3_unicode_520_ci", "utf8mb3", false, true, 3},
    {COLL_UTF8MB3_UCA1400_AI_CI, "utf8mb3_uca1400_ai_ci", "utf8mb3", false, true, 3},
    {COLL_BINARY, "binary", "binary", true, false, 1},
    {COLL_ASCII_GENERAL_CI, "ascii_general_ci", "ascii", true, true, 1},
};

static const coll_info_t *coll_find(uint16_t id)
{
    for (size_t i = 0; i < ARRAY_LEN(colls); i++)
        if (colls[i].id == id)
            return &colls[i];
    return NULL;
}

const char *value_coll_name(uint16_t coll)
{
    const coll_info_t *c = coll_find(coll);
    return c ? c->name : "binary";
}

bool value_coll_is_ci(uint16_t coll)
{
    const coll_info_t *c = coll_find(coll);
    return c && c->ci;
}

const char *value_coll_charset(uint16_t coll)
{
    const coll_info_t *c = coll_find(coll);
    return c ? c->charset : "binary";
}

int value_charset_bin_coll(uint16_t coll)
{
    const coll_info_t *c = coll_find(coll);
    for (size_t i = 0; c && i < ARRAY_LEN(colls); i++)
        if (!colls[i].ci && strcmp(colls[i].charset, c->charset) == 0)
            return colls[i].id;
    return -1;
}

uint32_t value_coll_mbmaxlen(uint16_t coll)
{
    const coll_info_t *c = coll_find(coll);
    return c ? c->mbmaxlen : 1;
}

static int coll_by_name(const char *buf);

int value_coll_by_name(const char *name, size_t len)
{
    char buf[64];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, name, len);
    buf[len] = 0;
    /* the names a thread asks for again and again (@@collation_connection at every statement and expression of a
     * routine): the last few found, by their exact spelling */
    static _Thread_local struct {
        char name[64];
        int id;
    } seen[4];
    static _Thread_local unsigned next_seen;
    for (unsigned i = 0; i < 4; i++)
        if (seen[i].id > 0 && strcmp(seen[i].name, buf) == 0)
            return seen[i].id;
    int id = coll_by_name(buf);
    if (id > 0) {
        unsigned i = next_seen++ % 4;
        memcpy(seen[i].name, buf, len + 1);
        seen[i].id = id;
    }
    return id;
}

static int coll_by_name(const char *buf)
{
    const char *name;
    /* utf8 is an alias of utf8mb3 in MariaDB 10.11 (old_mode UTF8_IS_UTF8MB3) */
    char alias[80];
    if (strncasecmp(buf, "utf8_", 5) == 0) {
        snprintf(alias, sizeof alias, "utf8mb3_%s", buf + 5);
        name = alias;
    } else {
        name = buf;
    }
    for (size_t i = 0; i < ARRAY_LEN(colls); i++)
        if (strcasecmp(colls[i].name, name) == 0)
            return colls[i].id;
    return -1;
}

int value_charset_default_coll(const char *cs, size_t len)
{
    char buf[64];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, cs, len);
    buf[len] = 0;
    const char *n = buf;
    if (strcasecmp(n, "utf8") == 0)
        n = "utf8mb3";
    for (size_t i = 0; i < ARRAY_LEN(colls); i++)
        if (colls[i].is_default && strcasecmp(colls[i].charset, n) == 0)
            return colls[i].id;
    return -1;
}

/* Binary strings compare as bytes, the shorter first; every other collation by its weights, PAD SPACE
 * (collation.h). */
int value_collate_cmp(uint16_t coll, const char *a, size_t an, const char *b, size_t bn)
{
    if (coll == COLL_BINARY) {
        int r = MIN(an, bn) ? memcmp(a, b, MIN(an, bn)) : 0;
        if (r)
            return r < 0 ? -1 : 1;
        return an < bn ? -1 : an > bn ? 1 : 0;
    }
    coll_kind_t k = coll_kind_of(coll);
    if (k == COLL_KIND_UCA)
        return coll_uca_cmp(coll_uca_of(coll), a, an, b, bn);
    return coll_cmp(k, a, an, b, bn);
}

/* ---------------------------------------------------------------- numbers from text */

/* Parses a number prefix of s MySQL's way (leading spaces, sign, digits, '.', exponent).  Returns the length
 * consumed (0 if no digits); *is_int when there is no '.'/exponent. */
static size_t num_prefix(const char *s, size_t n, bool *is_int);
size_t value_num_prefix(const char *s, size_t n, bool *is_int) { return num_prefix(s, n, is_int); }

static size_t num_prefix(const char *s, size_t n, bool *is_int)
{
    size_t i = 0;
    *is_int = true;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t digits = 0;
    while (i < n && isdigit((unsigned char)s[i]))
        i++, digits++;
    if (i < n && s[i] == '.') {
        size_t j = i + 1;
        size_t fd = 0;
        while (j < n && isdigit((unsigned char)s[j]))
            j++, fd++;
        if (digits || fd) {
            i = j;
            digits += fd;
            *is_int = false;
        }
    }
    if (!digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && isdigit((unsigned char)s[j])) {
            while (j < n && isdigit((unsigned char)s[j]))
                j++;
            i = j;
            *is_int = false;
        }
    }
    return i;
}

/* 1292 for a string that is not entirely a number; only trailing spaces make it a note. */
static void warn_truncated(diag_t *d, const char *type, const char *s, size_t n, size_t used)
{
    if (!d || (used == n && n)) /* '' is truncated too: MariaDB warns of it */
        return;
    bool only_space = used > 0;
    for (size_t i = used; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            only_space = false;
    char val[200];
    snprintf(val, sizeof val, "%.*s", (int)MIN(n, 150), s);
    if (only_space)
        diag_note(d, ER_TRUNCATED_WRONG_VALUE, type, val);
    else
        diag_warn(d, ER_TRUNCATED_WRONG_VALUE, type, val);
}

static double str_to_double(const char *s, size_t n, diag_t *d)
{
    bool is_int;
    size_t used = num_prefix(s, n, &is_int);
    double r = 0;
    if (used) {
        char buf[400];
        size_t k = MIN(used, sizeof buf - 1);
        memcpy(buf, s, k);
        buf[k] = 0;
        r = strtod(buf, NULL);
        if (isinf(r)) { /* MariaDB's strtod saturates at +-DBL_MAX and calls the text truncated */
            r = r > 0 ? DBL_MAX : -DBL_MAX;
            used = 0;
        }
    }
    if (used != n || !n)
        warn_truncated(d, "DOUBLE", s, n, used);
    return r;
}

/* Decimal text -> int64 with rounding half away from zero; sets *ovf on overflow (result clamped). */
static int64_t dec_text_to_int(const char *s, size_t n, bool *ovf)
{
    bool neg = n && s[0] == '-';
    size_t i = neg;
    unsigned __int128 v = 0;
    *ovf = false;
    for (; i < n && isdigit((unsigned char)s[i]); i++) {
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > ((unsigned __int128)1 << 64))
            *ovf = true, v = (unsigned __int128)1 << 64;
    }
    if (i < n && s[i] == '.' && i + 1 < n && s[i + 1] >= '5')
        v++;
    if (neg) {
        if (v > (unsigned __int128)INT64_MAX + 1) {
            *ovf = true;
            return INT64_MIN;
        }
        return (int64_t)(-(__int128)v);
    }
    if (v > INT64_MAX) {
        *ovf = true;
        return INT64_MAX;
    }
    return (int64_t)v;
}

static int64_t double_to_int(double d)
{
    d = round(d);
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

int64_t value_to_int(const value_t *v, diag_t *d)
{
    if (v->type == VAL_STRING && v->dec == VAL_DEC_QUIET)
        d = NULL;
    switch (v->type) {
    case VAL_NULL: return 0;
    case VAL_INT: return v->i;
    case VAL_UINT: return (int64_t)v->u;
    case VAL_DOUBLE: return double_to_int(v->d);
    case VAL_DECIMAL: {
        bool ovf;
        return dec_text_to_int(v->s.ptr, v->s.len, &ovf);
    }
    case VAL_STRING: {
        if (v->dec == VAL_DEC_ENUM)
            return (int64_t)v->s.num;
        bool is_int;
        size_t used = num_prefix(v->s.ptr, v->s.len, &is_int);
        int64_t r = 0;
        if (used) {
            char buf[400];
            size_t k = MIN(used, sizeof buf - 1);
            memcpy(buf, v->s.ptr, k);
            buf[k] = 0;
            if (is_int) {
                errno = 0;
                const char *b = buf;
                while (isspace((unsigned char)*b))
                    b++;
                if (*b == '-') {
                    r = strtoll(b, NULL, 10);
                } else {
                    uint64_t u = strtoull(b, NULL, 10);
                    r = (int64_t)u;
                }
            } else {
                r = double_to_int(strtod(buf, NULL));
            }
        }
        if (used != v->s.len || !used)
            warn_truncated(d, "INTEGER", v->s.ptr, v->s.len, used);
        return r;
    }
    case VAL_DATE:
        return (int64_t)(v->t.year * 10000 + v->t.month * 100 + v->t.day);
    case VAL_DATETIME:
    case VAL_TIMESTAMP:
        return (int64_t)((uint64_t)v->t.year * 10000000000ULL + (uint64_t)v->t.month * 100000000ULL +
                         v->t.day * 1000000ULL + v->t.hour * 10000ULL + v->t.minute * 100ULL + v->t.second);
    case VAL_TIME: {
        int64_t r = (int64_t)v->t.hour * 10000 + v->t.minute * 100 + v->t.second;
        return v->t.neg ? -r : r;
    }
    }
    return 0;
}

uint64_t value_to_uint(const value_t *v, diag_t *d)
{
    if (v->type == VAL_STRING && v->dec == VAL_DEC_QUIET)
        d = NULL;
    switch (v->type) {
    case VAL_UINT: return v->u;
    case VAL_DOUBLE:
        if (v->d <= 0)
            return (uint64_t)double_to_int(v->d);
        if (v->d >= 18446744073709551615.0)
            return UINT64_MAX;
        return (uint64_t)round(v->d);
    case VAL_STRING: {
        if (v->dec == VAL_DEC_ENUM)
            return v->s.num;
        const char *s = v->s.ptr;
        size_t i = 0;
        while (i < v->s.len && isspace((unsigned char)s[i]))
            i++;
        if (i < v->s.len && s[i] != '-') {
            bool is_int;
            size_t used = num_prefix(s, v->s.len, &is_int);
            if (is_int && used) {
                char buf[64];
                size_t k = MIN(used, sizeof buf - 1);
                memcpy(buf, s, k);
                buf[k] = 0;
                if (used != v->s.len)
                    warn_truncated(d, "INTEGER", s, v->s.len, used);
                return strtoull(buf, NULL, 10);
            }
        }
        return (uint64_t)value_to_int(v, d);
    }
    default:
        return (uint64_t)value_to_int(v, d);
    }
}

static double time_to_double(const value_t *v)
{
    double r = (double)value_to_int(v, NULL);
    double f = v->t.usec / 1e6;
    return (v->type == VAL_TIME && v->t.neg) ? r - f : r + f;
}

double value_to_double(const value_t *v, diag_t *d)
{
    if (v->type == VAL_STRING && v->dec == VAL_DEC_QUIET)
        d = NULL;
    switch (v->type) {
    case VAL_NULL: return 0;
    case VAL_INT: return (double)v->i;
    case VAL_UINT: return (double)v->u;
    case VAL_DOUBLE: return v->d;
    case VAL_DECIMAL: return strtod(v->s.ptr, NULL);
    case VAL_STRING: return v->dec == VAL_DEC_ENUM ? (double)v->s.num : str_to_double(v->s.ptr, v->s.len, d);
    default: return time_to_double(v);
    }
}

bool value_to_bool(const value_t *v, diag_t *d)
{
    switch (v->type) {
    case VAL_INT: return v->i != 0;
    case VAL_UINT: return v->u != 0;
    case VAL_DECIMAL:
        for (size_t i = 0; i < v->s.len; i++)
            if (v->s.ptr[i] >= '1' && v->s.ptr[i] <= '9')
                return true;
        return false;
    default: return value_to_double(v, d) != 0;
    }
}

/* ---------------------------------------------------------------- decimals */

int value_decimal_scale(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    return dot ? (int)(n - (size_t)(dot - s) - 1) : 0;
}

value_t value_decimal(arena_t *a, const char *text, size_t len)
{
    value_t v = {.type = VAL_DECIMAL};
    v.s.ptr = arena_strndup(a, text, len);
    v.s.len = len;
    v.dec = (uint8_t)MIN(value_decimal_scale(text, len), 38);
    return v;
}

static size_t real_digits(double d, bool is_float, char digits[24], int *exp10, bool *neg);

/*
 * A double as plain decimal text from its shortest exact digits (1e34 is 1 and 34 zeros, as MariaDB's
 * double2decimal gives it, not the binary value's 9999999999999999455752309870428160), so the DECIMAL
 * range checks see the whole number.  Infinities and NaN (binary-protocol parameters) are 0, as MariaDB
 * stores them; text beyond the double range never gets here as inf (str_to_double saturates).  Fraction
 * digits past 80 are dropped: no DECIMAL keeps them.
 */
static value_t decimal_from_double(arena_t *a, double d)
{
    if (!isfinite(d) || d == 0)
        return value_decimal(a, "0", 1);
    char digits[24];
    int exp10;
    bool neg;
    size_t nd = real_digits(d, false, digits, &exp10, &neg);
    int decpt = exp10 + 1;
    if (decpt < -80)
        return value_decimal(a, "0", 1);
    size_t cap = (size_t)(decpt > 0 ? decpt : 1) + nd + (decpt < 0 ? (size_t)-decpt : 0) + 4;
    char *o = arena_alloc(a, cap);
    size_t k = 0;
    if (neg)
        o[k++] = '-';
    if (decpt <= 0) {
        o[k++] = '0';
        o[k++] = '.';
        for (int i = 0; i < -decpt; i++)
            o[k++] = '0';
        memcpy(o + k, digits, nd);
        k += nd;
    } else {
        for (int i = 0; i < decpt; i++)
            o[k++] = i < (int)nd ? digits[i] : '0';
        if ((int)nd > decpt) {
            o[k++] = '.';
            for (size_t i = (size_t)decpt; i < nd; i++)
                o[k++] = digits[i];
        }
    }
    return value_decimal(a, o, k);
}

value_t value_to_decimal(arena_t *a, const value_t *v, diag_t *d)
{
    if (v->type == VAL_STRING && v->dec == VAL_DEC_QUIET)
        d = NULL;
    char buf[64];
    switch (v->type) {
    case VAL_DECIMAL: return *v;
    case VAL_INT: snprintf(buf, sizeof buf, "%lld", (long long)v->i); return value_decimal(a, buf, strlen(buf));
    case VAL_UINT: snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->u); return value_decimal(a, buf, strlen(buf));
    case VAL_DOUBLE: return decimal_from_double(a, v->d);
    case VAL_STRING: {
        if (v->dec == VAL_DEC_ENUM) {
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->s.num);
            return value_decimal(a, buf, strlen(buf));
        }
        bool is_int;
        size_t used = num_prefix(v->s.ptr, v->s.len, &is_int);
        if (used != v->s.len || !used)
            warn_truncated(d, "DECIMAL", v->s.ptr, v->s.len, used);
        if (!used)
            return value_decimal(a, "0", 1);
        if (!is_int) {
            /* exponent or fraction: normalise through the text */
            const char *p = v->s.ptr;
            while (isspace((unsigned char)*p))
                p++;
            size_t k = used - (size_t)(p - v->s.ptr);
            if (!memchr(p, 'e', k) && !memchr(p, 'E', k)) {
                char *t = arena_strndup(a, p, k);
                if (*t == '+')
                    t++;
                if (*t == '.' || (t[0] == '-' && t[1] == '.')) {
                    t = arena_printf(a, "%s0%s", *t == '-' ? "-" : "", t + (*t == '-'));
                }
                size_t tl = strlen(t);
                if (t[tl - 1] == '.')
                    t[--tl] = 0;
                return value_decimal(a, t, tl);
            }
            return decimal_from_double(a, str_to_double(v->s.ptr, v->s.len, NULL));
        }
        const char *p = v->s.ptr;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '+')
            p++;
        size_t k = used - (size_t)(p - v->s.ptr);
        return value_decimal(a, p, k);
    }
    default: {
        if (v->t.usec) {
            snprintf(buf, sizeof buf, "%s%lld.%06u", v->type == VAL_TIME && v->t.neg ? "-" : "",
                     (long long)llabs(value_to_int(v, NULL)), v->t.usec);
            return value_decimal(a, buf, strlen(buf));
        }
        snprintf(buf, sizeof buf, "%lld", (long long)value_to_int(v, NULL));
        return value_decimal(a, buf, strlen(buf));
    }
    }
}

/* ---------------------------------------------------------------- temporal parsing */

static bool leap(uint32_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static uint32_t days_in_month(uint32_t y, uint32_t m)
{
    static const uint8_t dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : dm[m - 1];
}

/* "YYYY-MM-DD[ HH:MM:SS[.ffffff]]" (also 'T' separator, 2-digit year, any punctuation). */
bool value_parse_datetime(const char *s, size_t n, value_t *out)
{
    uint32_t f[7] = {0};
    int nf = 0;
    size_t i = 0;
    int frac_digits = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t year_digits = 0;
    while (i < n && nf < 7) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        uint32_t v = 0;
        size_t nd = 0;
        while (i < n && isdigit((unsigned char)s[i]) && (nf != 6 || nd < 6)) {
            v = v * 10 + (uint32_t)(s[i] - '0');
            i++;
            nd++;
            if (nd > 9)
                return false;
        }
        if (nf == 0)
            year_digits = nd;
        if (nf == 6) {
            frac_digits = (int)nd;
            for (size_t k = nd; k < 6; k++)
                v *= 10;
            while (i < n && isdigit((unsigned char)s[i]))
                i++;
        }
        f[nf++] = v;
        if (i >= n)
            break;
        if (nf == 3) {
            if (s[i] == ' ' || s[i] == 'T')
                i++;
            else
                return false;
            while (i < n && s[i] == ' ')
                i++;
        } else if (nf == 6) {
            if (s[i] != '.')
                break;
            i++;
        } else if (ispunct((unsigned char)s[i])) {
            i++;
        } else {
            break;
        }
    }
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i != n || nf < 3)
        return false;
    if (year_digits <= 2)
        f[0] += f[0] < 70 ? 2000 : 1900;
    value_t v = {.type = nf > 3 ? VAL_DATETIME : VAL_DATE};
    v.t.year = f[0];
    v.t.month = f[1];
    v.t.day = f[2];
    v.t.hour = f[3];
    v.t.minute = f[4];
    v.t.second = f[5];
    v.t.usec = f[6];
    v.dec = (uint8_t)frac_digits;
    if (v.t.month > 12 || v.t.day > 31 || v.t.hour > 23 || v.t.minute > 59 || v.t.second > 59 || v.t.year > 9999)
        return false;
    if (v.t.month && v.t.day && v.t.day > days_in_month(v.t.year, v.t.month))
        return false;
    *out = v;
    return true;
}

/* "[-][D ]HH:MM[:SS[.ffffff]]" or "HHMMSS". */
bool value_parse_time(const char *s, size_t n, value_t *out)
{
    value_t v = {.type = VAL_TIME};
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i < n && s[i] == '-') {
        v.t.neg = true;
        i++;
    }
    uint32_t parts[4] = {0};
    int np = 0;
    uint32_t days = 0;
    bool colon = memchr(s, ':', n) != NULL;
    if (!colon) {
        uint64_t num = 0;
        size_t nd = 0;
        while (i < n && isdigit((unsigned char)s[i]))
            num = num * 10 + (uint64_t)(s[i++] - '0'), nd++;
        if (!nd)
            return false;
        parts[0] = (uint32_t)(num / 10000);
        parts[1] = (uint32_t)(num / 100 % 100);
        parts[2] = (uint32_t)(num % 100);
        np = 3;
    } else {
        const char *sp = memchr(s + i, ' ', n - i);
        if (sp) {
            while (i < n && isdigit((unsigned char)s[i]))
                days = days * 10 + (uint32_t)(s[i++] - '0');
            while (i < n && s[i] == ' ')
                i++;
        }
        while (i < n && np < 3) {
            uint32_t x = 0;
            size_t nd = 0;
            while (i < n && isdigit((unsigned char)s[i]))
                x = x * 10 + (uint32_t)(s[i++] - '0'), nd++;
            if (!nd)
                return false;
            parts[np++] = x;
            if (i < n && s[i] == ':' && np < 3)
                i++;
            else
                break;
        }
    }
    if (i < n && s[i] == '.') {
        i++;
        uint32_t fr = 0;
        int nd = 0;
        while (i < n && isdigit((unsigned char)s[i])) {
            if (nd < 6)
                fr = fr * 10 + (uint32_t)(s[i] - '0'), nd++;
            i++;
        }
        v.dec = (uint8_t)nd;
        for (int k = nd; k < 6; k++)
            fr *= 10;
        parts[3] = fr;
    }
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i != n || parts[1] > 59 || parts[2] > 59)
        return false;
    v.t.hour = days * 24 + parts[0];
    v.t.minute = parts[1];
    v.t.second = parts[2];
    v.t.usec = parts[3];
    if (v.t.hour > 838) {
        v.t.hour = 838;
        v.t.minute = v.t.second = 59;
        v.t.usec = 0;
    }
    *out = v;
    return true;
}

/* ---------------------------------------------------------------- formatting */

static size_t format_real(double d, char *out, size_t cap, bool is_float);

size_t value_format_double(double d, char *out, size_t cap) { return format_real(d, out, cap, false); }
size_t value_format_float(double d, char *out, size_t cap) { return format_real(d, out, cap, true); }

static size_t format_real(double d, char *out, size_t cap, bool is_float)
{
    if (isnan(d) || isinf(d))
        return (size_t)snprintf(out, cap, "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
    if (d == 0)
        return (size_t)snprintf(out, cap, "0");
    char digits[24];
    int exp10;
    bool neg;
    size_t nd = real_digits(d, is_float, digits, &exp10, &neg);
    int decpt = exp10 + 1;
    /* MariaDB prints exponent form below 1e-15 and for integers of 16+ digits (checked on 10.11) */
    bool use_exp = exp10 < -15 || (exp10 >= 15 && (int)nd <= decpt);
    size_t o = 0;
#define PUT(c) do { if (o + 1 < cap) out[o] = (c); o++; } while (0)
    if (neg)
        PUT('-');
    if (use_exp) {
        PUT(digits[0]);
        if (nd > 1) {
            PUT('.');
            for (size_t i = 1; i < nd; i++)
                PUT(digits[i]);
        }
        char ex[8];
        snprintf(ex, sizeof ex, "e%d", exp10);
        for (char *x = ex; *x; x++)
            PUT(*x);
    } else if (decpt <= 0) {
        PUT('0');
        PUT('.');
        for (int i = 0; i < -decpt; i++)
            PUT('0');
        for (size_t i = 0; i < nd; i++)
            PUT(digits[i]);
    } else {
        for (int i = 0; i < decpt; i++)
            PUT(i < (int)nd ? digits[i] : '0');
        if ((int)nd > decpt) {
            PUT('.');
            for (size_t i = (size_t)decpt; i < nd; i++)
                PUT(digits[i]);
        }
    }
#undef PUT
    if (cap)
        out[o < cap ? o : cap - 1] = 0;
    return o;
}

/*
 * The significant digits of a finite, non-zero d (no trailing zeros, NUL-terminated) and its decimal exponent:
 * d = 0.DIGITS * 10^(exp10 + 1).  DOUBLE: the shortest digits that read back exactly; FLOAT: 6 significant
 * digits (FLT_DIG).
 */
static size_t real_digits(double d, bool is_float, char digits[24], int *exp10, bool *neg)
{
    char e[40];
    if (is_float) {
        snprintf(e, sizeof e, "%.*e", 5, d);
    } else {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(e, sizeof e, "%.*e", prec - 1, d);
            if (strtod(e, NULL) == d)
                break;
        }
    }
    /* e = "[-]D.DDDDe[+-]XX": pull digits and exponent */
    *neg = e[0] == '-';
    size_t nd = 0;
    const char *p = e + *neg;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p))
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    *exp10 = atoi(p + 1);
    return nd;
}

static size_t format_temporal(const value_t *v, char *b, size_t cap)
{
    size_t n = 0;
    const sql_time_t *t = &v->t;
    switch (v->type) {
    case VAL_DATE:
        return (size_t)snprintf(b, cap, "%04u-%02u-%02u", t->year, t->month, t->day);
    case VAL_TIME:
        n = (size_t)snprintf(b, cap, "%s%02u:%02u:%02u", t->neg ? "-" : "", t->hour, t->minute, t->second);
        break;
    default:
        n = (size_t)snprintf(b, cap, "%04u-%02u-%02u %02u:%02u:%02u", t->year, t->month, t->day, t->hour,
                             t->minute, t->second);
        break;
    }
    if (v->dec > 0 && v->dec <= 6) {
        char fr[8];
        snprintf(fr, sizeof fr, "%06u", t->usec);
        n += (size_t)snprintf(b + n, cap - n, ".%.*s", v->dec, fr);
    }
    return n;
}

/* A DECIMAL's text rounded to its display scale (v->dec) when it keeps more digits (half away from zero). */
static size_t dec_display(const value_t *v, char *out, size_t cap)
{
    const char *s = v->s.ptr;
    size_t n = v->s.len;
    int scale = value_decimal_scale(s, n);
    if (scale <= v->dec || n + 2 >= cap) {
        size_t k = MIN(n, cap - 1);
        memcpy(out, s, k);
        out[k] = 0;
        return k;
    }
    size_t keep = n - (size_t)(scale - v->dec);
    if (v->dec == 0)
        keep--; /* drop the '.' too */
    bool up = s[n - (size_t)(scale - v->dec)] >= '5';
    /* out = "0" + kept text, so a carry can grow it */
    out[0] = '0';
    memcpy(out + 1, s, keep);
    size_t len = keep + 1;
    out[len] = 0;
    bool neg = s[0] == '-';
    if (up) {
        for (size_t i = len; i-- > 0;) {
            if (out[i] == '.' || out[i] == '-')
                continue;
            if (out[i] == '9') {
                out[i] = '0';
                continue;
            }
            out[i]++;
            break;
        }
    }
    /* normalise: move '-' first, strip the helper leading zero when not needed */
    char tmp[128];
    size_t o = 0;
    if (neg)
        tmp[o++] = '-';
    const char *q = out;
    size_t ql = len;
    if (neg) {
        /* out = "0-ddd": the carry digit sits before '-' */
        char c0 = out[0];
        q = out + 2;
        ql = len - 2;
        if (c0 != '0')
            tmp[o++] = c0;
    } else if (out[0] == '0' && len > 1 && out[1] != '.') {
        q = out + 1;
        ql = len - 1;
    }
    memcpy(tmp + o, q, ql);
    o += ql;
    bool zero = true;
    for (size_t i = 0; i < o; i++)
        if (tmp[i] >= '1' && tmp[i] <= '9')
            zero = false;
    size_t start = (neg && zero) ? 1 : 0;
    memcpy(out, tmp + start, o - start);
    out[o - start] = 0;
    return o - start;
}

void value_append_text(buf_t *b, const value_t *v)
{
    char tmp[64];
    switch (v->type) {
    case VAL_NULL: buf_append_str(b, "NULL"); break;
    case VAL_INT: buf_printf(b, "%lld", (long long)v->i); break;
    case VAL_UINT: buf_printf(b, "%llu", (unsigned long long)v->u); break;
    case VAL_DOUBLE:
        if (v->dec < VAL_DEC_NOT_FIXED) {
            buf_printf(b, "%.*f", v->dec, v->d);
        } else {
            if (v->dec == VAL_DEC_FLOAT)
                value_format_float(v->d, tmp, sizeof tmp);
            else
                value_format_double(v->d, tmp, sizeof tmp);
            buf_append_str(b, tmp);
        }
        break;
    case VAL_DECIMAL:
        if (value_decimal_scale(v->s.ptr, v->s.len) > v->dec && v->s.len < 100) {
            char t[128];
            size_t n = dec_display(v, t, sizeof t);
            buf_append(b, t, n);
        } else {
            buf_append(b, v->s.ptr, v->s.len);
        }
        break;
    case VAL_STRING: buf_append(b, v->s.ptr, v->s.len); break;
    default:
        format_temporal(v, tmp, sizeof tmp);
        buf_append_str(b, tmp);
        break;
    }
}

const char *value_to_text(arena_t *a, const value_t *v, size_t *len)
{
    if (v->type == VAL_DECIMAL && value_decimal_scale(v->s.ptr, v->s.len) > v->dec && v->s.len < 100) {
        char t[128];
        *len = dec_display(v, t, sizeof t);
        return arena_strndup(a, t, *len);
    }
    if (v->type == VAL_STRING || v->type == VAL_DECIMAL) {
        *len = v->s.len;
        return v->s.ptr;
    }
    char tmp[400];
    size_t n;
    switch (v->type) {
    case VAL_NULL: n = 0; tmp[0] = 0; break;
    case VAL_INT: n = (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)v->i); break;
    case VAL_UINT: n = (size_t)snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->u); break;
    case VAL_DOUBLE:
        if (v->dec < VAL_DEC_NOT_FIXED)
            n = (size_t)snprintf(tmp, sizeof tmp, "%.*f", v->dec, v->d);
        else if (v->dec == VAL_DEC_FLOAT)
            n = value_format_float(v->d, tmp, sizeof tmp);
        else
            n = value_format_double(v->d, tmp, sizeof tmp);
        break;
    default: n = format_temporal(v, tmp, sizeof tmp); break;
    }
    if (n >= sizeof tmp)
        n = sizeof tmp - 1;
    *len = n;
    return arena_strndup(a, tmp, n);
}

/* ---------------------------------------------------------------- comparison */

/* Exact comparison of two decimal texts. */
static int dec_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    bool na = an && a[0] == '-', nb = bn && b[0] == '-';
    /* -0 == 0: treat all-zero as positive */
    bool za = true, zb = true;
    for (size_t i = 0; i < an; i++) if (a[i] >= '1' && a[i] <= '9') za = false;
    for (size_t i = 0; i < bn; i++) if (b[i] >= '1' && b[i] <= '9') zb = false;
    if (za) na = false;
    if (zb) nb = false;
    if (na != nb)
        return na ? -1 : 1;
    if (na) { a++; an--; b++; bn--; }
    while (an > 1 && a[0] == '0' && a[1] != '.') a++, an--;
    while (bn > 1 && b[0] == '0' && b[1] != '.') b++, bn--;
    const char *da = memchr(a, '.', an), *db = memchr(b, '.', bn);
    size_t ia = da ? (size_t)(da - a) : an, ib = db ? (size_t)(db - b) : bn;
    int r;
    if (ia != ib) {
        r = ia < ib ? -1 : 1;
    } else {
        r = memcmp(a, b, ia);
        r = r < 0 ? -1 : r > 0 ? 1 : 0;
        if (!r) {
            size_t fa = da ? an - ia - 1 : 0, fb = db ? bn - ib - 1 : 0;
            size_t m = MAX(fa, fb);
            for (size_t i = 0; i < m && !r; i++) {
                char x = i < fa ? a[ia + 1 + i] : '0', y = i < fb ? b[ib + 1 + i] : '0';
                if (x != y)
                    r = x < y ? -1 : 1;
            }
        }
    }
    return na ? -r : r;
}

static int cmp3(double a, double b) { return a < b ? -1 : a > b ? 1 : 0; }

static uint64_t temporal_key(const value_t *v, uint32_t *usec)
{
    *usec = v->t.usec;
    if (v->type == VAL_TIME) {
        uint64_t s = (uint64_t)v->t.hour * 3600 + v->t.minute * 60 + v->t.second;
        return s;
    }
    return ((uint64_t)v->t.year * 13 + v->t.month) * 32 * 86400 + (uint64_t)v->t.day * 86400 +
           (uint64_t)v->t.hour * 3600 + v->t.minute * 60 + v->t.second;
}

int value_compare(const value_t *a, const value_t *b, diag_t *d)
{
    value_type_t ta = a->type, tb = b->type;
    if (ta == VAL_STRING && tb == VAL_STRING) {
        uint16_t coll = a->coll == COLL_BINARY || b->coll == COLL_BINARY ? COLL_BINARY : a->coll;
        bool sa = value_coll_mbmaxlen(a->coll) == 1, sb = value_coll_mbmaxlen(b->coll) == 1;
        if (coll != COLL_BINARY && sa != sb) {
            /* latin1 against UTF-8: the latin1 side is converted and both compare in the UTF-8 collation (MySQL
             * converts to the superset character set) */
            const value_t *l = sa ? a : b;
            uint16_t ucoll = sa ? b->coll : a->coll;
            arena_t t;
            arena_init(&t, 256);
            size_t n, bad;
            const char *cv = sql_str_convert(&t, l->s.ptr, l->s.len, l->coll, ucoll, &n, &bad);
            int r = sa ? value_collate_cmp(ucoll, cv, n, b->s.ptr, b->s.len)
                       : value_collate_cmp(ucoll, a->s.ptr, a->s.len, cv, n);
            arena_destroy(&t);
            return r;
        }
        return value_collate_cmp(coll, a->s.ptr, a->s.len, b->s.ptr, b->s.len);
    }
    /* temporal vs temporal or vs string: as temporal */
    if (value_is_temporal(a) || value_is_temporal(b)) {
        value_t x = *a, y = *b;
        if (x.type == VAL_STRING && !value_parse_datetime(x.s.ptr, x.s.len, &x) && !value_parse_time(x.s.ptr, x.s.len, &x))
            return cmp3(value_to_double(a, d), value_to_double(b, d));
        if (y.type == VAL_STRING && !value_parse_datetime(y.s.ptr, y.s.len, &y) && !value_parse_time(y.s.ptr, y.s.len, &y))
            return cmp3(value_to_double(a, d), value_to_double(b, d));
        if (value_is_temporal(&x) && value_is_temporal(&y) && (x.type == VAL_TIME) == (y.type == VAL_TIME)) {
            uint32_t ux, uy;
            uint64_t kx = temporal_key(&x, &ux), ky = temporal_key(&y, &uy);
            if (x.type == VAL_TIME) {
                int64_t sx = x.t.neg ? -(int64_t)(kx * 1000000 + ux) : (int64_t)(kx * 1000000 + ux);
                int64_t sy = y.t.neg ? -(int64_t)(ky * 1000000 + uy) : (int64_t)(ky * 1000000 + uy);
                return sx < sy ? -1 : sx > sy;
            }
            if (kx != ky)
                return kx < ky ? -1 : 1;
            return ux < uy ? -1 : ux > uy;
        }
        return cmp3(value_to_double(&x, d), value_to_double(&y, d));
    }
    /* integers exactly */
    if ((ta == VAL_INT || ta == VAL_UINT) && (tb == VAL_INT || tb == VAL_UINT)) {
        if (ta == VAL_INT && tb == VAL_INT)
            return a->i < b->i ? -1 : a->i > b->i;
        if (ta == VAL_UINT && tb == VAL_UINT)
            return a->u < b->u ? -1 : a->u > b->u;
        if (ta == VAL_INT)
            return a->i < 0 ? -1 : ((uint64_t)a->i < b->u ? -1 : (uint64_t)a->i > b->u);
        return b->i < 0 ? 1 : (a->u < (uint64_t)b->i ? -1 : a->u > (uint64_t)b->i);
    }
    /* decimal with integer/decimal: exactly */
    if ((ta == VAL_DECIMAL || ta == VAL_INT || ta == VAL_UINT) && (tb == VAL_DECIMAL || tb == VAL_INT || tb == VAL_UINT)) {
        char ba[32], bb[32];
        const char *pa = a->s.ptr, *pb = b->s.ptr;
        size_t la = a->s.len, lb = b->s.len;
        if (ta != VAL_DECIMAL) {
            la = (size_t)(ta == VAL_INT ? snprintf(ba, sizeof ba, "%lld", (long long)a->i) : snprintf(ba, sizeof ba, "%llu", (unsigned long long)a->u));
            pa = ba;
        }
        if (tb != VAL_DECIMAL) {
            lb = (size_t)(tb == VAL_INT ? snprintf(bb, sizeof bb, "%lld", (long long)b->i) : snprintf(bb, sizeof bb, "%llu", (unsigned long long)b->u));
            pb = bb;
        }
        return dec_cmp(pa, la, pb, lb);
    }
    /* string vs exact number: as DECIMAL (MariaDB 10.11 warns "Truncated incorrect DECIMAL value") */
    if ((ta == VAL_STRING && (tb == VAL_INT || tb == VAL_UINT || tb == VAL_DECIMAL)) ||
        (tb == VAL_STRING && (ta == VAL_INT || ta == VAL_UINT || ta == VAL_DECIMAL))) {
        arena_t tmp;
        arena_init(&tmp, 512);
        value_t x = ta == VAL_STRING ? value_to_decimal(&tmp, a, d) : *a;
        value_t y = tb == VAL_STRING ? value_to_decimal(&tmp, b, d) : *b;
        int r = (x.type == VAL_DECIMAL && y.type == VAL_DECIMAL) || x.type == VAL_DECIMAL || y.type == VAL_DECIMAL
                    ? value_compare(&x, &y, d) : cmp3(value_to_double(a, d), value_to_double(b, d));
        arena_destroy(&tmp);
        return r;
    }
    /* everything else as double (string vs number included) */
    return cmp3(value_to_double(a, d), value_to_double(b, d));
}
