/*
 * SQL values: the tagged value_t every expression evaluates to, with MySQL's conversions (to integer, double,
 * string, temporal), its comparison rules and its text formatting (what the text protocol sends).
 *
 * A value never owns memory: string and decimal bytes live in an arena (the statement's) or in static storage.
 * DECIMAL is kept as its canonical text ("-12.50", scale in `dec`): exact, simple, and what the text protocol
 * sends anyway; arithmetic on it goes through 128-bit scaled integers (value.c).
 */
#ifndef STRATA_SQL_VALUE_H
#define STRATA_SQL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"
#include "util/diag.h"

/* Collation ids as MariaDB numbers them (SHOW COLLATION). */
enum {
    COLL_LATIN1_SWEDISH_CI = 8,
    COLL_ASCII_GENERAL_CI = 11,
    COLL_UTF8MB3_GENERAL_CI = 33,
    COLL_UTF8MB4_GENERAL_CI = 45,
    COLL_UTF8MB4_BIN = 46,
    COLL_LATIN1_BIN = 47,
    COLL_BINARY = 63,
    COLL_UTF8MB3_UNICODE_CI = 192,
    COLL_UTF8MB3_UNICODE_520_CI = 214,
    COLL_UTF8MB4_UNICODE_CI = 224,
    COLL_UTF8MB4_UNICODE_520_CI = 246,
    COLL_UTF8MB3_UCA1400_AI_CI = 2048,
    COLL_UTF8MB4_UCA1400_AI_CI = 2304,
};
#define COLL_DEFAULT COLL_UTF8MB4_GENERAL_CI

typedef enum value_type {
    VAL_NULL = 0,
    VAL_INT,       /* signed 64-bit: i */
    VAL_UINT,      /* unsigned 64-bit: u */
    VAL_DOUBLE,    /* d; dec = display decimals, VAL_DEC_NOT_FIXED when not fixed (MySQL's 31) */
    VAL_DECIMAL,   /* s = canonical text "[-]digits[.digits]", dec = scale */
    VAL_STRING,    /* s = bytes, coll = collation id (COLL_BINARY for binary strings) */
    VAL_DATE,      /* t */
    VAL_DATETIME,  /* t, dec = fractional digits (0..6) */
    VAL_TIMESTAMP, /* t, dec = fractional digits */
    VAL_TIME,      /* t (hour may exceed 23, neg for negative), dec = fractional digits */
} value_type_t;

#define VAL_DEC_NOT_FIXED 31
/* dec of a DOUBLE value read from a FLOAT column: not fixed, shown with 6 significant digits (value_format_float) */
#define VAL_DEC_FLOAT 32
/* dec of a STRING value read from an ENUM or SET column: s.num is its index / mask, which numeric contexts,
 * comparisons with numbers and ORDER BY use (MySQL's rules); a string built from it is a plain string */
#define VAL_DEC_ENUM 33
/* dec of a STRING value read from a user variable: MariaDB converts those to numbers without warnings */
#define VAL_DEC_QUIET 34

typedef struct sql_time {
    uint32_t year, month, day;
    uint32_t hour, minute, second;
    uint32_t usec;
    bool neg; /* TIME only */
} sql_time_t;

typedef struct value {
    value_type_t type;
    uint16_t coll; /* strings: collation id */
    uint8_t dec;   /* decimals (see value_type) */
    uint8_t deriv; /* strings: coercibility (collation.h) + 1, 0 for IMPLICIT (what a value read from a column
                      is); | VAL_DERIV_ASCII when every character is known to be ASCII (a literal 'abc') */
    union {
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *ptr;
            size_t len;
            uint64_t num; /* dec == VAL_DEC_ENUM: the ENUM index / SET mask the string stands for */
        } s;
        sql_time_t t;
    };
} value_t;

#define VAL_DERIV_ASCII 0x80u

/* The coercibility of a string value and whether its repertoire is ASCII (value_t.deriv). */
static inline int value_deriv(const value_t *v) { return (v->deriv & 0x7F) ? (v->deriv & 0x7F) - 1 : 2; }
static inline bool value_deriv_ascii(const value_t *v) { return (v->deriv & VAL_DERIV_ASCII) != 0; }
static inline void value_set_deriv(value_t *v, int deriv, bool ascii)
{
    v->deriv = (uint8_t)((deriv + 1) | (ascii ? VAL_DERIV_ASCII : 0));
}

/* Constructors (strings are not copied). */
static inline value_t value_null(void) { value_t v = {.type = VAL_NULL}; return v; }
static inline value_t value_int(int64_t i) { value_t v = {.type = VAL_INT}; v.i = i; return v; }
static inline value_t value_uint(uint64_t u) { value_t v = {.type = VAL_UINT}; v.u = u; return v; }
static inline value_t value_double(double d) { value_t v = {.type = VAL_DOUBLE, .dec = VAL_DEC_NOT_FIXED}; v.d = d; return v; }
static inline value_t value_str(const char *p, size_t n, uint16_t coll)
{
    value_t v = {.type = VAL_STRING, .coll = coll};
    v.s.ptr = p;
    v.s.len = n;
    return v;
}
static inline bool value_is_null(const value_t *v) { return v->type == VAL_NULL; }
static inline bool value_is_numeric(const value_t *v)
{
    return v->type == VAL_INT || v->type == VAL_UINT || v->type == VAL_DOUBLE || v->type == VAL_DECIMAL;
}
static inline bool value_is_temporal(const value_t *v) { return v->type >= VAL_DATE; }

/* Makes a DECIMAL from text (must be canonical: optional '-', digits, optional '.' digits). */
value_t value_decimal(arena_t *a, const char *text, size_t len);

/*
 * Conversions, with MySQL's rules.  `d` may be NULL (no warnings).  String-to-number conversion that stops
 * before the end of the string pushes warning 1292 "Truncated incorrect INTEGER|DOUBLE|DECIMAL value: '...'".
 */
int64_t value_to_int(const value_t *v, diag_t *d);      /* rounds doubles/decimals half away from zero */
uint64_t value_to_uint(const value_t *v, diag_t *d);
double value_to_double(const value_t *v, diag_t *d);
bool value_to_bool(const value_t *v, diag_t *d);        /* caller checks NULL first */
/* The text form MySQL's text protocol sends (1.0e0 -> "1", 1.50 DECIMAL -> "1.50", dates "YYYY-MM-DD ..."). */
const char *value_to_text(arena_t *a, const value_t *v, size_t *len);
/* As value_to_text but appends to a buf. */
void value_append_text(buf_t *b, const value_t *v);
/* Converts any non-NULL value to a DECIMAL value (strings parsed as numbers). */
value_t value_to_decimal(arena_t *a, const value_t *v, diag_t *d);
/* Parses a string as a date/datetime/time; returns false when not a valid temporal literal. */
bool value_parse_datetime(const char *s, size_t n, value_t *out);
bool value_parse_time(const char *s, size_t n, value_t *out);

/* Length of the number MySQL reads at the start of s (leading spaces, sign, digits, '.', exponent); 0 when
 * none.  *is_int is false when a fraction or exponent was read. */
size_t value_num_prefix(const char *s, size_t n, bool *is_int);

/* MySQL's %g-like DOUBLE formatting: shortest text that reads back exactly (up to 17 digits). */
size_t value_format_double(double d, char *out, size_t cap);
/* The same for a FLOAT column's value (6 significant digits: 16777216 -> "16777200", 3.4e38 -> "3.4e38"). */
size_t value_format_float(double d, char *out, size_t cap);

/*
 * Comparison with MySQL's rules: numbers numerically (exactly across signed/unsigned/decimal), two strings by
 * collation (case-insensitive for *_ci, bytewise for _bin/binary, trailing spaces ignored for PAD SPACE
 * collations), string vs number as doubles, temporal vs string as temporal.  Returns <0, 0, >0.  Neither may
 * be NULL (the caller applies NULL semantics).
 */
int value_compare(const value_t *a, const value_t *b, diag_t *d);
/* String comparison under a collation: bytes for binary, else the collation's weights, PAD SPACE (collation.h;
 * index keys, rc_key_string, order and tie exactly as this does). */
int value_collate_cmp(uint16_t coll, const char *a, size_t an, const char *b, size_t bn);
bool value_coll_is_ci(uint16_t coll);

/* Collation/charset names. */
const char *value_coll_name(uint16_t coll);
int value_coll_by_name(const char *name, size_t len);       /* -1 if unknown */
int value_charset_default_coll(const char *cs, size_t len); /* "utf8mb4" -> 45; -1 if unknown */
uint32_t value_coll_mbmaxlen(uint16_t coll);
const char *value_coll_charset(uint16_t coll);              /* 45 -> "utf8mb4" */
int value_charset_bin_coll(uint16_t coll);                  /* the _bin collation of coll's charset; -1: none */

/* Decimal helpers (value.c).  Scale of a canonical decimal text. */
int value_decimal_scale(const char *s, size_t n);

#endif
