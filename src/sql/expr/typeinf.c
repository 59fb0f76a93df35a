/*
 * Static result types of expressions (see typeinf.h).  Each rule below is MariaDB 10.11's, checked against a
 * running server with `CREATE TABLE t AS SELECT <expr>` + SHOW CREATE TABLE and `mariadb --column-type-info`
 * (the cases are in tests/unit/test_sql_typeinf.c and tests/sql/types_infer.sql).
 *
 * The vocabulary is MariaDB's: an integer's precision is its digits (display length without the sign), a
 * DECIMAL's length is precision + point + sign, its "int part" is precision - scale.  Where MariaDB's answer
 * was not established (FORMAT, TO_BASE64, ROUND of a DOUBLE, STD, string arguments of DATE_ADD ...) the answer
 * is "unknown" (false): the caller then keeps the value-based metadata.  A few nullability flags of rarely
 * used functions (SIN, TAN, ...) follow the family's rule without a case of their own.
 */
#include <string.h>
#include <strings.h>

#include "sql/expr/expr_int.h"
#include "sql/expr/typeinf.h"
#include "sql/value/collation.h"

#define DEC_NOT_FIXED_DOUBLE 31 /* a DOUBLE without fixed decimals */
#define DEC_NOT_FIXED_STRING 39 /* MariaDB's NOT_FIXED_DEC on most string results */
#define DECIMAL_MAX_PREC 65
#define DECIMAL_MAX_SCALE 38

/* ---------------------------------------------------------------- small constructors */

static bool is_int_type(uint8_t t)
{
    return t == SQL_TYPE_TINY || t == SQL_TYPE_SHORT || t == SQL_TYPE_INT24 || t == SQL_TYPE_LONG ||
           t == SQL_TYPE_LONGLONG || t == SQL_TYPE_YEAR;
}
static bool is_real_type(uint8_t t) { return t == SQL_TYPE_DOUBLE || t == SQL_TYPE_FLOAT; }
static bool is_dec_type(uint8_t t) { return t == SQL_TYPE_NEWDECIMAL || t == SQL_TYPE_DECIMAL; }
static bool is_temporal_type(uint8_t t)
{
    return t == SQL_TYPE_DATE || t == SQL_TYPE_DATETIME || t == SQL_TYPE_TIMESTAMP || t == SQL_TYPE_TIME;
}
static bool is_string_type(uint8_t t)
{
    return t == SQL_TYPE_VAR_STRING || t == SQL_TYPE_STRING || t == SQL_TYPE_VARCHAR || t == SQL_TYPE_BLOB ||
           t == SQL_TYPE_TINY_BLOB || t == SQL_TYPE_MEDIUM_BLOB || t == SQL_TYPE_LONG_BLOB || t == SQL_TYPE_ENUM ||
           t == SQL_TYPE_SET;
}
static bool is_blob_type(uint8_t t)
{
    return t == SQL_TYPE_BLOB || t == SQL_TYPE_TINY_BLOB || t == SQL_TYPE_MEDIUM_BLOB || t == SQL_TYPE_LONG_BLOB;
}

/* An integer result typed by its length, as MariaDB's type_handler_long_or_longlong(). */
static sql_rtype_t rt_int(uint32_t prec, bool unsig, bool nullable)
{
    sql_rtype_t r = {.prec = prec, .unsig = unsig, .nullable = nullable, .coll = COLL_BINARY};
    r.len = prec + (unsig ? 0 : 1);
    r.type = r.len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG;
    return r;
}

/* An integer result of a fixed type and length (functions: LENGTH() is int(10), COUNT() bigint(21), ...). */
static sql_rtype_t rt_fixed_int(uint8_t type, uint32_t len, bool unsig, bool nullable)
{
    sql_rtype_t r = {.type = type, .len = len, .prec = unsig ? len : (len ? len - 1 : 0), .unsig = unsig,
                     .nullable = nullable, .coll = COLL_BINARY};
    return r;
}

static sql_rtype_t rt_decimal(uint32_t prec, uint32_t scale, bool unsig, bool nullable)
{
    if (scale > DECIMAL_MAX_SCALE)
        scale = DECIMAL_MAX_SCALE;
    if (prec > DECIMAL_MAX_PREC)
        prec = DECIMAL_MAX_PREC;
    if (prec < scale)
        prec = scale;
    if (prec == 0)
        prec = 1;
    sql_rtype_t r = {.type = SQL_TYPE_NEWDECIMAL, .prec = prec, .dec = (uint8_t)scale, .unsig = unsig,
                     .nullable = nullable, .coll = COLL_BINARY};
    r.len = prec + (scale ? 1 : 0) + (unsig ? 0 : 1);
    return r;
}

static sql_rtype_t rt_double(uint32_t len, uint8_t dec, bool nullable)
{
    sql_rtype_t r = {.type = SQL_TYPE_DOUBLE, .len = len, .dec = dec, .nullable = nullable, .coll = COLL_BINARY};
    return r;
}

static sql_rtype_t rt_string(uint32_t chars, uint16_t coll, uint8_t dec, bool nullable)
{
    sql_rtype_t r = {.type = SQL_TYPE_VAR_STRING, .len = chars, .dec = dec, .nullable = nullable, .coll = coll};
    return r;
}

static sql_rtype_t rt_temporal(uint8_t type, uint8_t fsp, bool nullable)
{
    sql_rtype_t r = {.type = type, .dec = fsp, .nullable = nullable, .coll = COLL_BINARY};
    r.len = (type == SQL_TYPE_DATE ? 10 : type == SQL_TYPE_TIME ? 10 : 19) + (fsp ? 1u + fsp : 0);
    return r;
}

/* Digits of a number type (MariaDB's decimal_precision()). */
static uint32_t num_prec(const sql_rtype_t *t)
{
    if (is_dec_type(t->type) || is_int_type(t->type))
        return t->prec;
    return t->len;
}
static uint32_t int_part(const sql_rtype_t *t)
{
    uint32_t p = num_prec(t);
    return is_dec_type(t->type) ? (p > t->dec ? p - t->dec : 0) : p;
}

/* The length a value of type t takes as a string (CONCAT, CAST AS CHAR, string branches of COALESCE). */
static uint32_t str_len(const sql_rtype_t *t)
{
    return t->len;
}

static uint16_t env_conn(const sql_typeinf_env_t *env) { return env->conn_coll ? env->conn_coll : COLL_DEFAULT; }

/* ---------------------------------------------------------------- the walk */

static bool infer(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out);
static bool typeinf_date_add(const sql_rtype_t *dt, const char *unit, sql_rtype_t *out);

static bool infer_args(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *a, uint32_t max)
{
    if (e->nargs > max)
        return false;
    for (uint32_t i = 0; i < e->nargs; i++) {
        if (!e->args[i])
            return false;
        if (e->args[i]->kind == SQL_E_INTERVAL) { /* INTERVAL n unit: the caller reads the unit */
            memset(&a[i], 0, sizeof a[i]);
            a[i].type = SQL_TYPE_NULL;
            continue;
        }
        if (!infer(env, e->args[i], &a[i]))
            return false;
    }
    return true;
}

static bool any_nullable(const sql_rtype_t *a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].nullable)
            return true;
    return false;
}

/* A literal: its type comes from its spelling. */
static bool infer_literal(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    const value_t *v = &e->lit;
    switch (v->type) {
    case VAL_NULL:
        *out = (sql_rtype_t){.type = SQL_TYPE_NULL, .nullable = true, .coll = COLL_BINARY};
        return true;
    case VAL_INT:
    case VAL_UINT: {
        if (e->src && (e->src_len == 4 || e->src_len == 5) &&
            (strncasecmp(e->src, "TRUE", e->src_len) == 0 || strncasecmp(e->src, "FALSE", e->src_len) == 0)) {
            *out = rt_fixed_int(SQL_TYPE_LONG, 5, true, false); /* TRUE / FALSE: MariaDB's length is 5 */
            out->unsig = false;
            return true;
        }
        char b[32];
        int n = v->type == VAL_INT ? snprintf(b, sizeof b, "%lld", (long long)v->i)
                                   : snprintf(b, sizeof b, "%llu", (unsigned long long)v->u);
        uint32_t digits = (uint32_t)n - (b[0] == '-' ? 1u : 0u);
        if (e->src && e->src_len > (uint32_t)n && e->src[0] >= '0' && e->src[0] <= '9') {
            /* leading zeros are part of the spelling: 00012 is 5 long */
            uint32_t k = 0;
            while (k < e->src_len && e->src[k] >= '0' && e->src[k] <= '9')
                k++;
            if (k == e->src_len)
                n = (int)(digits = k);
        }
        *out = rt_int(digits, false, false);
        out->len = (uint32_t)n; /* a literal's length is its spelling: "1" is 1, "-1" 2 */
        out->type = out->len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG;
        if (v->type == VAL_UINT && v->u > (uint64_t)INT64_MAX) {
            out->unsig = true;
            out->type = SQL_TYPE_LONGLONG;
        }
        return true;
    }
    case VAL_DECIMAL: {
        /* precision = the digits written (".5" is 1, "0.5" 2), scale = the digits after the point */
        const char *s = e->src && e->src_len ? e->src : v->s.ptr;
        size_t n = e->src && e->src_len ? e->src_len : v->s.len;
        uint32_t digits = 0, frac = 0;
        bool point = false, lead = true;
        for (size_t i = 0; i < n; i++) {
            char c = s[i];
            if (c == '.') {
                point = true;
                lead = false;
            } else if (c >= '0' && c <= '9') {
                if (lead && c == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
                    continue; /* leading zeros of the integer part do not count */
                lead = false;
                digits++;
                if (point)
                    frac++;
            } else if (c == 'e' || c == 'E') {
                return false;
            }
        }
        if (frac != v->dec)
            frac = v->dec;
        *out = rt_decimal(digits, frac, false, false);
        return true;
    }
    case VAL_DOUBLE:
        *out = rt_double(e->src_len, DEC_NOT_FIXED_DOUBLE, false);
        return true;
    case VAL_STRING: {
        uint16_t coll = v->coll;
        if (e->lit_conn)
            coll = env_conn(env);
        uint32_t chars = (uint32_t)v->s.len;
        if (coll != COLL_BINARY && value_coll_mbmaxlen(coll) > 1) {
            chars = 0; /* characters of the UTF-8 text */
            for (size_t i = 0; i < v->s.len; i++)
                if (((unsigned char)v->s.ptr[i] & 0xC0) != 0x80)
                    chars++;
        }
        *out = rt_string(chars, coll, coll == COLL_BINARY ? 0 : DEC_NOT_FIXED_STRING, false);
        out->coercible = true;
        if (coll == COLL_BINARY)
            out->flags |= SQL_FLAG_UNSIGNED; /* MariaDB marks hex / binary literals so */
        return true;
    }
    case VAL_DATE:
        *out = rt_temporal(SQL_TYPE_DATE, 0, false);
        return true;
    case VAL_TIME:
        *out = rt_temporal(SQL_TYPE_TIME, v->dec, false);
        return true;
    case VAL_DATETIME:
    case VAL_TIMESTAMP:
        *out = rt_temporal(SQL_TYPE_DATETIME, v->dec, false);
        return true;
    }
    return false;
}

/* What a type becomes as a number in arithmetic: integers stay, temporals are numbers of their digits. */
static bool as_number(const sql_rtype_t *t, sql_rtype_t *n)
{
    *n = *t;
    switch (t->type) {
    case SQL_TYPE_DATE: *n = rt_int(8, false, t->nullable); break;
    case SQL_TYPE_TIME: /* up to 838:59:59: 7 digits */
        *n = t->dec ? rt_decimal(7 + t->dec, t->dec, false, t->nullable) : rt_int(7, false, t->nullable);
        break;
    case SQL_TYPE_DATETIME:
    case SQL_TYPE_TIMESTAMP:
        *n = t->dec ? rt_decimal(14 + t->dec, t->dec, false, t->nullable) : rt_int(14, false, t->nullable);
        break;
    case SQL_TYPE_YEAR: *n = rt_int(4, true, t->nullable); break;
    case SQL_TYPE_NULL: *n = rt_int(0, false, true); n->type = SQL_TYPE_NULL; break;
    case SQL_TYPE_ENUM: case SQL_TYPE_SET: case SQL_TYPE_BIT: return false;
    default:
        if (t->flags & (SQL_FLAG_ENUM | SQL_FLAG_SET))
            return false;
        break;
    }
    return true;
}

/* + - * / DIV % */
static bool infer_arith(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    if (e->nargs != 2)
        return false;
    sql_rtype_t t[2], a[2];
    if (e->args[1]->kind == SQL_E_INTERVAL || e->args[0]->kind == SQL_E_INTERVAL) {
        /* date + INTERVAL n unit: DATE_ADD */
        const sql_expr_t *d = e->args[0]->kind == SQL_E_INTERVAL ? e->args[1] : e->args[0];
        const sql_expr_t *iv = e->args[0]->kind == SQL_E_INTERVAL ? e->args[0] : e->args[1];
        sql_rtype_t dt;
        if (!infer(env, d, &dt))
            return false;
        return typeinf_date_add(&dt, iv->interval_unit, out);
    }
    if (!infer(env, e->args[0], &t[0]) || !infer(env, e->args[1], &t[1]))
        return false;
    bool nullable = t[0].nullable || t[1].nullable || e->op == SQL_OP_DIV || e->op == SQL_OP_IDIV || e->op == SQL_OP_MOD;
    if (is_blob_type(t[0].type) || is_blob_type(t[1].type))
        return false;
    if (t[0].type == SQL_TYPE_NULL || t[1].type == SQL_TYPE_NULL) {
        /* NULL + x: MariaDB types it from x (NULL as a 0-digit integer) */
        const sql_rtype_t *o = t[0].type == SQL_TYPE_NULL ? &t[1] : &t[0];
        if (o->type == SQL_TYPE_NULL || is_string_type(o->type) || is_real_type(o->type)) {
            *out = rt_double(23, DEC_NOT_FIXED_DOUBLE, true);
            return true;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (is_string_type(t[i].type) || is_real_type(t[i].type)) {
            /* strings are read as DOUBLE; any DOUBLE makes the result DOUBLE */
            if (e->op == SQL_OP_IDIV) {
                if (!is_real_type(t[0].type))
                    return false; /* a string dividend: MariaDB's length is its own */
                *out = rt_fixed_int(t[0].len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG, t[0].len, false, true);
                return true;
            }
            *out = rt_double(23, DEC_NOT_FIXED_DOUBLE, nullable);
            return true;
        }
        if (!as_number(&t[i], &a[i]))
            return false;
    }
    if (a[0].type == SQL_TYPE_NULL)
        a[0] = rt_int(0, false, true);
    if (a[1].type == SQL_TYPE_NULL)
        a[1] = rt_int(0, false, true);
    bool dec = is_dec_type(a[0].type) || is_dec_type(a[1].type);
    uint32_t s0 = is_dec_type(a[0].type) ? a[0].dec : 0, s1 = is_dec_type(a[1].type) ? a[1].dec : 0;
    uint32_t p0 = num_prec(&a[0]), p1 = num_prec(&a[1]);
    uint32_t i0 = p0 - MIN(p0, s0), i1 = p1 - MIN(p1, s1);
    bool unsig = a[0].unsig || a[1].unsig;
    switch (e->op) {
    case SQL_OP_ADD:
    case SQL_OP_SUB:
        if (dec) {
            uint32_t sc = MAX(s0, s1);
            *out = rt_decimal(MAX(i0, i1) + 1 + sc, sc, false, nullable);
        } else {
            *out = rt_int(MAX(p0, p1) + 1, unsig, nullable);
        }
        return true;
    case SQL_OP_MUL:
        if (dec)
            *out = rt_decimal(p0 + p1, s0 + s1, false, nullable);
        else
            *out = rt_int(p0 + p1, unsig, nullable);
        return true;
    case SQL_OP_DIV: {
        uint32_t inc = env->div_precision_increment ? env->div_precision_increment : 4;
        uint32_t sc = s0 + inc;
        *out = rt_decimal(i0 + s1 + sc, sc, false, true);
        return true;
    }
    case SQL_OP_IDIV: /* the dividend's integer digits, typed by length: 10 DIV 3 is int(2), i DIV 2 bigint(10) */
        *out = rt_int(i0 ? i0 : 1, true, true);
        out->unsig = a[0].unsig;
        return true;
    case SQL_OP_MOD:
        if (dec) {
            *out = rt_decimal(MAX(p0, p1), MAX(s0, s1), false, true);
        } else {
            *out = rt_int(MAX(p0, p1), a[0].unsig, true);
        }
        return true;
    default:
        return false;
    }
}

/*
 * The type of COALESCE / IFNULL / IF / CASE / GREATEST / LEAST over `n` branch types (MariaDB's
 * Type_handler_hybrid_field_type aggregation + count_decimal_length): NULL branches are skipped; any string
 * makes a string (binary when one is binary), any DOUBLE a DOUBLE, DECIMAL with integers a DECIMAL (also
 * integers of mixed signedness), temporals of one kind keep it (DATE with DATETIME/TIME: DATETIME), a
 * temporal with a number is a string.
 */
static bool aggregate(const sql_typeinf_env_t *env, const sql_rtype_t *a, uint32_t n, sql_rtype_t *out)
{
    bool any_str = false, any_bin = false, any_real = false, any_dec = false, any_int = false, any_temp = false;
    /* any_int: an integer branch (a temporal with an integer is a string) */
    bool all_unsig = true, any_unsig = false, any_signed = false, any = false, implicit = false;
    uint8_t temp = 0, int_type = 0;
    uint16_t coll = 0;
    uint32_t maxlen = 0, maxint = 0, maxdec = 0, maxfsp = 0;
    static const uint8_t int_rank[] = {[SQL_TYPE_TINY] = 1, [SQL_TYPE_SHORT] = 2, [SQL_TYPE_INT24] = 3,
                                       [SQL_TYPE_LONG] = 4, [SQL_TYPE_LONGLONG] = 5};
    for (uint32_t i = 0; i < n; i++) {
        const sql_rtype_t *t = &a[i];
        if (t->type == SQL_TYPE_NULL)
            continue;
        if (is_blob_type(t->type) || t->type == SQL_TYPE_BIT)
            return false;
        any = true;
        maxlen = MAX(maxlen, str_len(t));
        if (is_string_type(t->type)) {
            any_str = true;
            if (t->coll == COLL_BINARY) {
                any_bin = true;
            } else if (!t->coercible && !implicit) { /* a column's collation beats a literal's */
                coll = t->coll;
                implicit = true;
            } else if ((t->coercible == !implicit) &&
                       (!coll || value_coll_mbmaxlen(t->coll) > value_coll_mbmaxlen(coll))) {
                coll = t->coll; /* of equal standing: the superset */
            }
            continue;
        }
        if (is_temporal_type(t->type)) {
            any_temp = true;
            if (!temp)
                temp = t->type;
            else if (temp != t->type)
                temp = SQL_TYPE_DATETIME; /* DATE with TIME, DATE with DATETIME, TIMESTAMP with DATETIME */
            maxfsp = MAX(maxfsp, t->dec);
            continue;
        }
        sql_rtype_t nt;
        if (!as_number(t, &nt))
            return false;
        if (is_real_type(nt.type)) {
            any_real = true;
            continue;
        }
        if (is_dec_type(nt.type))
            any_dec = true;
        else {
            any_int = true;
            uint8_t r = nt.type < sizeof int_rank ? int_rank[nt.type] : 5;
            uint8_t cur = int_type && int_type < sizeof int_rank ? int_rank[int_type] : 0;
            if (r > cur)
                int_type = t->type == SQL_TYPE_YEAR ? SQL_TYPE_LONG : nt.type;
        }
        if (nt.unsig)
            any_unsig = true;
        else
            any_signed = true;
        all_unsig = all_unsig && nt.unsig;
        maxint = MAX(maxint, int_part(&nt));
        maxdec = MAX(maxdec, is_dec_type(nt.type) ? nt.dec : 0);
    }
    if (!any) {
        *out = (sql_rtype_t){.type = SQL_TYPE_NULL, .nullable = true, .coll = COLL_BINARY};
        return true;
    }
    uint32_t nonnull = 0, last = 0;
    for (uint32_t i = 0; i < n; i++)
        if (a[i].type != SQL_TYPE_NULL) {
            nonnull++;
            last = i;
        }
    if (nonnull == 1 && (!is_int_type(a[last].type) || a[last].type == SQL_TYPE_YEAR) && !is_dec_type(a[last].type) && a[last].type != SQL_TYPE_DOUBLE) {
        /* one typed branch keeps its type (a YEAR stays YEAR, a FLOAT FLOAT, a CHAR CHAR); numbers follow the
         * length rules below (NULL UNION 1 is int(2)) */
        *out = a[last];
        out->flags = 0;
        if (is_string_type(out->type))
            out->dec = DEC_NOT_FIXED_STRING;
        return true;
    }
    if (any_str || (any_temp && (any_int || any_dec || any_real))) {
        uint16_t c = any_bin ? COLL_BINARY : coll ? coll : env_conn(env);
        uint32_t len = maxlen;
        if (any_bin) {
            /* characters of the other branches become bytes */
            len = 0;
            for (uint32_t i = 0; i < n; i++)
                if (a[i].type != SQL_TYPE_NULL) {
                    uint32_t l = str_len(&a[i]);
                    if (is_string_type(a[i].type) && a[i].coll != COLL_BINARY)
                        l *= value_coll_mbmaxlen(a[i].coll);
                    len = MAX(len, l);
                }
        }
        *out = rt_string(len, c, DEC_NOT_FIXED_STRING, false);
        out->coercible = !implicit;
        return true;
    }
    if (any_temp) {
        *out = rt_temporal(temp, (uint8_t)maxfsp, false);
        return true;
    }
    if (any_real) {
        *out = rt_double(maxlen, DEC_NOT_FIXED_DOUBLE, false);
        return true;
    }
    if (any_dec || (any_unsig && any_signed)) {
        *out = rt_decimal(maxint + maxdec, maxdec, all_unsig, false);
        return true;
    }
    *out = rt_int(maxint, all_unsig, false);
    out->type = int_type ? int_type : SQL_TYPE_LONG;
    return true;
}

bool sql_rtype_aggregate(uint16_t conn_coll, const sql_rtype_t *a, uint32_t n, sql_rtype_t *out)
{
    sql_typeinf_env_t env = {.conn_coll = conn_coll};
    if (!aggregate(&env, a, n, out))
        return false;
    out->nullable = any_nullable(a, n);
    return true;
}

/* DATE_ADD(dt, INTERVAL n unit) and its spellings: the type of dt, DATE becoming DATETIME for time units. */
static bool typeinf_date_add(const sql_rtype_t *dt, const char *unit, sql_rtype_t *out)
{
    if (!unit)
        return false;
    bool date_unit = strcmp(unit, "DAY") == 0 || strcmp(unit, "WEEK") == 0 || strcmp(unit, "MONTH") == 0 ||
                     strcmp(unit, "QUARTER") == 0 || strcmp(unit, "YEAR") == 0 || strcmp(unit, "YEAR_MONTH") == 0;
    bool micro = strstr(unit, "MICROSECOND") != NULL;
    switch (dt->type) {
    case SQL_TYPE_DATE:
        *out = date_unit ? rt_temporal(SQL_TYPE_DATE, 0, true) : rt_temporal(SQL_TYPE_DATETIME, micro ? 6 : 0, true);
        return true;
    case SQL_TYPE_DATETIME:
    case SQL_TYPE_TIMESTAMP:
        *out = rt_temporal(SQL_TYPE_DATETIME, micro ? 6 : dt->dec, true);
        return true;
    default:
        return false; /* strings and TIME: MariaDB's rules depend on the value */
    }
}

static bool const_int_arg(const sql_expr_t *e, int64_t *v)
{
    bool neg = false;
    if (e->kind == SQL_E_UNARY && e->op == SQL_OP_NEG && e->nargs == 1) {
        neg = true;
        e = e->args[0];
    }
    if (e->kind != SQL_E_LITERAL || (e->lit.type != VAL_INT && e->lit.type != VAL_UINT))
        return false;
    *v = e->lit.type == VAL_INT ? e->lit.i : (int64_t)MIN(e->lit.u, (uint64_t)INT64_MAX);
    if (neg)
        *v = -*v;
    return true;
}

static const char *const_str_arg(const sql_expr_t *e, size_t *n)
{
    if (e->kind != SQL_E_LITERAL || e->lit.type != VAL_STRING)
        return NULL;
    *n = e->lit.s.len;
    return e->lit.s.ptr;
}

/* DATE_FORMAT's result length from its format (MariaDB's Item_func_date_format::format_length). */
static uint32_t date_format_len(const char *f, size_t n)
{
    uint32_t size = 0;
    for (size_t i = 0; i < n; i++) {
        if (f[i] != '%' || i + 1 == n) {
            size++;
            continue;
        }
        switch (f[++i]) {
        case 'M': case 'W': size += 64; break;
        case 'D': case 'Y': case 'x': case 'X': size += 4; break;
        case 'a': case 'b': size += 32; break;
        case 'j': size += 3; break;
        case 'U': case 'u': case 'V': case 'v': case 'y': case 'm': case 'd': case 'h': case 'I': case 'i':
        case 'l': case 'p': case 'S': case 's': case 'c': case 'e': size += 2; break;
        case 'k': case 'H': size += 7; break;
        case 'r': size += 11; break;
        case 'T': size += 8; break;
        case 'f': size += 6; break;
        default: size++; break;
        }
    }
    return size;
}

/* STR_TO_DATE's type from its format: date parts, time parts, or both; %f adds microseconds. */
static bool str_to_date_type(const char *f, size_t n, sql_rtype_t *out)
{
    bool date = false, time = false, frac = false;
    for (size_t i = 0; i + 1 < n; i++) {
        if (f[i] != '%')
            continue;
        switch (f[++i]) {
        case 'Y': case 'y': case 'm': case 'c': case 'd': case 'e': case 'D': case 'j': case 'M': case 'b':
        case 'U': case 'u': case 'V': case 'v': case 'x': case 'X': case 'W': case 'a': case 'w':
            date = true;
            break;
        case 'H': case 'h': case 'I': case 'i': case 'k': case 'l': case 'p': case 'S': case 's': case 'r': case 'T':
            time = true;
            break;
        case 'f':
            time = frac = true;
            break;
        default:
            break;
        }
    }
    uint8_t fsp = frac ? 6 : 0;
    *out = rt_temporal(date && time ? SQL_TYPE_DATETIME : time ? SQL_TYPE_TIME : SQL_TYPE_DATE, fsp, true);
    return true;
}

static uint8_t temporal_fsp(const sql_rtype_t *t)
{
    return is_temporal_type(t->type) ? t->dec : 0;
}

/* The typed arguments of a call, for the rules that look at them. */
typedef struct call_args {
    sql_rtype_t a[16];
    uint32_t n;
    bool anynull;      /* some argument may be NULL */
    uint16_t conn;     /* collation_connection */
} call_args_t;

static bool call_args(const sql_typeinf_env_t *env, const sql_expr_t *e, call_args_t *c)
{
    c->n = e->nargs;
    if (c->n > ARRAY_LEN(c->a) || !infer_args(env, e, c->a, ARRAY_LEN(c->a)))
        return false;
    c->anynull = any_nullable(c->a, c->n);
    c->conn = env_conn(env);
    return true;
}

/*
 * The type rules functions.def's rows name (sql_fn_type_t): 1 with *out, 0 when the type is unknown before a
 * value is seen, -1 for a function the rule does not know.
 */

/* No static type: the first value decides (GROUP_CONCAT, VERSION(), UUID() ...). */
int sql_type_unknown_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    return 0;
}

/* Types that need no argument types: COUNT, the clocks (fsp from a constant), RAND, PI, the session's values. */
int sql_type_fixed_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    uint32_t n = e->nargs;
    sql_fn_t fn = e->func.fn;
    switch (fn) {
    case SQL_FN_COUNT: case SQL_FN_ROW_NUMBER: case SQL_FN_RANK: case SQL_FN_DENSE_RANK: case SQL_FN_NTILE:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, false, false);
        return true;
    case SQL_FN_PERCENT_RANK: case SQL_FN_CUME_DIST:
        *out = rt_double(17, 10, false);
        return true;
    case SQL_FN_NOW: case SQL_FN_CURRENT_TIMESTAMP: case SQL_FN_LOCALTIME: case SQL_FN_LOCALTIMESTAMP:
    case SQL_FN_SYSDATE: case SQL_FN_UTC_TIMESTAMP: case SQL_FN_CURTIME: case SQL_FN_CURRENT_TIME: case SQL_FN_UTC_TIME: {
        int64_t fsp = 0;
        if (n == 1 && (!const_int_arg(e->args[0], &fsp) || fsp < 0 || fsp > 6))
            return false;
        bool time = fn == SQL_FN_CURTIME || fn == SQL_FN_CURRENT_TIME || fn == SQL_FN_UTC_TIME;
        *out = rt_temporal(time ? SQL_TYPE_TIME : SQL_TYPE_DATETIME, (uint8_t)fsp, false);
        return true;
    }
    case SQL_FN_CURDATE: case SQL_FN_CURRENT_DATE: case SQL_FN_UTC_DATE:
        *out = rt_temporal(SQL_TYPE_DATE, 0, false);
        return true;
    case SQL_FN_RAND:
        *out = rt_double(23, DEC_NOT_FIXED_DOUBLE, false);
        return true;
    case SQL_FN_PI:
        *out = rt_double(8, 6, false);
        return true;
    case SQL_FN_LAST_INSERT_ID:
        if (n)
            break;
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, true, false);
        return true;
    case SQL_FN_UUID_SHORT:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, true, false);
        return true;
    case SQL_FN_FOUND_ROWS: case SQL_FN_ROW_COUNT:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, false, false);
        return true;
    case SQL_FN_CONNECTION_ID:
        *out = rt_fixed_int(SQL_TYPE_LONG, 10, true, false);
        return true;
    case SQL_FN_DATABASE: case SQL_FN_SCHEMA:
        *out = rt_string(64, COLL_UTF8MB3_GENERAL_CI, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_USER: case SQL_FN_SESSION_USER: case SQL_FN_SYSTEM_USER: case SQL_FN_CURRENT_USER:
        *out = rt_string(384, COLL_UTF8MB3_GENERAL_CI, DEC_NOT_FIXED_STRING, true);
        return true;
    default:
        return -1;
    }
    return 0;
}

/* TIMESTAMPDIFF, TIMESTAMPADD and EXTRACT: the type follows from the unit. */
int sql_type_interval_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    uint32_t n = e->nargs;
    sql_fn_t fn = e->func.fn;
    if (fn != SQL_FN_TIMESTAMPDIFF && fn != SQL_FN_TIMESTAMPADD && fn != SQL_FN_EXTRACT)
        return -1;
    if (fn == SQL_FN_TIMESTAMPDIFF && n == 3) {
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, false, true);
        return true;
    }
    if (fn == SQL_FN_TIMESTAMPADD && n == 3 && e->args[0]->kind == SQL_E_COLUMN && e->args[0]->col.name) {
        sql_rtype_t dt;
        char unit[32];
        size_t k = 0;
        for (const char *p = e->args[0]->col.name; *p && k + 1 < sizeof unit; p++)
            unit[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        unit[k] = 0;
        if (strncmp(unit, "SQL_TSI_", 8) == 0)
            memmove(unit, unit + 8, k - 8 + 1);
        return infer(env, e->args[2], &dt) && typeinf_date_add(&dt, unit, out);
    }
    if (fn == SQL_FN_EXTRACT && n == 2) {
        size_t ul;
        const char *u = const_str_arg(e->args[0], &ul);
        if (u && ul == 4 && memcmp(u, "YEAR", 4) == 0) {
            *out = rt_fixed_int(SQL_TYPE_LONG, 4, false, true);
            out->width = 5;
            return true;
        }
    }
    return 0;
}

/* SUM, AVG, MIN, MAX, BIT_*: from the argument's type. */
int sql_type_aggregate_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    call_args_t c;
    if (!call_args(env, e, &c))
        return 0;
    sql_fn_t fn = e->func.fn;
    switch (fn) {
    case SQL_FN_SUM: case SQL_FN_AVG: {
        if (c.n != 1)
            return false;
        sql_rtype_t t;
        if (is_string_type(c.a[0].type) || is_real_type(c.a[0].type) || c.a[0].type == SQL_TYPE_NULL) {
            if (fn == SQL_FN_AVG && is_string_type(c.a[0].type))
                return false; /* MariaDB's length here depends on the string's */
            *out = rt_double(fn == SQL_FN_AVG ? MIN(c.a[0].len + 4, 23u) : 23, DEC_NOT_FIXED_DOUBLE, true);
            return true;
        }
        if (!as_number(&c.a[0], &t))
            return false;
        if (fn == SQL_FN_SUM) {
            *out = rt_decimal(num_prec(&t) + 22, is_dec_type(t.type) ? t.dec : 0, false, true);
        } else {
            uint32_t inc = env->div_precision_increment ? env->div_precision_increment : 4;
            uint32_t sc = (is_dec_type(t.type) ? t.dec : 0) + inc;
            *out = rt_decimal(num_prec(&t) + inc, sc, false, true);
        }
        return true;
    }
    case SQL_FN_MIN: case SQL_FN_MAX:
        if (c.n != 1 || c.a[0].type == SQL_TYPE_BIT || c.a[0].type == SQL_TYPE_ENUM || c.a[0].type == SQL_TYPE_SET ||
            (c.a[0].flags & (SQL_FLAG_ENUM | SQL_FLAG_SET)))
            return false;
        *out = c.a[0];
        out->nullable = true;
        out->flags = 0;
        if (is_real_type(out->type))
            out->len = 23;
        if (is_string_type(out->type)) {
            out->dec = DEC_NOT_FIXED_STRING;
            if (out->type != SQL_TYPE_STRING)
                out->type = SQL_TYPE_VAR_STRING;
        }
        return true;
    case SQL_FN_BIT_AND: case SQL_FN_BIT_OR: case SQL_FN_BIT_XOR:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, true, false);
        return true;
    default:
        return -1;
    }
    return 0;
}

/* COALESCE, IFNULL, GREATEST, LEAST, IF, NULLIF, ISNULL: the aggregate of the branches' types. */
int sql_type_control_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    call_args_t c;
    if (!call_args(env, e, &c))
        return 0;
    sql_fn_t fn = e->func.fn;
    switch (fn) {
    case SQL_FN_COALESCE: case SQL_FN_IFNULL: case SQL_FN_GREATEST: case SQL_FN_LEAST: {
        if (!aggregate(env, c.a, c.n, out))
            return false;
        bool all_null = true, anyn = false;
        for (uint32_t i = 0; i < c.n; i++) {
            all_null = all_null && c.a[i].nullable;
            anyn = anyn || c.a[i].nullable;
        }
        out->nullable = fn == SQL_FN_COALESCE ? all_null : fn == SQL_FN_IFNULL ? c.a[c.n - 1].nullable : anyn;
        if ((fn == SQL_FN_GREATEST || fn == SQL_FN_LEAST) && is_real_type(out->type))
            out->len = 23;
        if ((fn == SQL_FN_GREATEST || fn == SQL_FN_LEAST) && out->type == SQL_TYPE_VAR_STRING) {
            for (uint32_t i = 0; i < c.n; i++)
                if (!is_string_type(c.a[i].type) && c.a[i].type != SQL_TYPE_NULL)
                    return false; /* compared as numbers or dates, returned as ...: MariaDB's rules vary */
        }
        return true;
    }
    case SQL_FN_IF: {
        if (c.n != 3)
            return false;
        if (c.a[1].type == SQL_TYPE_NULL || c.a[2].type == SQL_TYPE_NULL) {
            *out = c.a[1].type == SQL_TYPE_NULL ? c.a[2] : c.a[1];
            out->nullable = true;
            out->flags = 0;
            if (is_string_type(out->type))
                out->dec = DEC_NOT_FIXED_STRING;
            return true;
        }
        if (!aggregate(env, &c.a[1], 2, out))
            return false;
        out->nullable = c.anynull; /* MariaDB counts the condition too: IF(nullable > 0, 'a', 'b') may be NULL */
        return true;
    }
    case SQL_FN_NULLIF:
        if (c.n != 2 || is_string_type(c.a[0].type) != is_string_type(c.a[1].type))
            return false; /* compared as numbers, MariaDB types the result so too */
        *out = c.a[0];
        out->nullable = true;
        out->flags = 0;
        if (is_string_type(out->type)) {
            out->type = SQL_TYPE_VAR_STRING;
            out->dec = DEC_NOT_FIXED_STRING;
        }
        return true;
    case SQL_FN_ISNULL:
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, false);
        return true;
    default:
        return -1;
    }
    return 0;
}

/* Numbers: arithmetic functions and the integers string functions return (lengths, positions). */
int sql_type_numeric_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    call_args_t c;
    if (!call_args(env, e, &c))
        return 0;
    sql_fn_t fn = e->func.fn;
    switch (fn) {
    case SQL_FN_ABS:
        if (is_int_type(c.a[0].type)) {
            *out = rt_int(c.a[0].prec, c.a[0].unsig, c.a[0].nullable);
            out->len = c.a[0].len;
            out->type = out->len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG;
            return true;
        }
        if (is_dec_type(c.a[0].type)) {
            *out = c.a[0];
            return true;
        }
        if (is_real_type(c.a[0].type) || is_string_type(c.a[0].type)) {
            *out = rt_double(23, DEC_NOT_FIXED_DOUBLE, c.a[0].nullable);
            return true;
        }
        return false;
    case SQL_FN_SIGN:
        *out = rt_fixed_int(SQL_TYPE_LONG, 2, false, c.anynull);
        return true;
    case SQL_FN_MOD: {
        sql_expr_t m = *e;
        m.kind = SQL_E_BINARY;
        m.op = SQL_OP_MOD;
        return c.n == 2 && infer_arith(env, &m, out);
    }
    case SQL_FN_ROUND: case SQL_FN_TRUNCATE: {
        bool trunc = fn == SQL_FN_TRUNCATE;
        if (c.a[0].type == SQL_TYPE_YEAR)
            as_number(&c.a[0], &c.a[0]);
        if (is_int_type(c.a[0].type) && (c.n == 1 || trunc || c.a[1].type != SQL_TYPE_NULL)) {
            int64_t places = 0;
            if (c.n == 2 && !const_int_arg(e->args[1], &places))
                return false;
            if (places < 0)
                return false;
            *out = c.a[0];
            out->nullable = c.anynull;
            return true;
        }
        if (is_dec_type(c.a[0].type)) {
            int64_t places = 0;
            if (c.n == 2 && !const_int_arg(e->args[1], &places)) {
                *out = c.a[0];
                out->nullable = c.anynull;
                return true;
            }
            if (places < 0)
                return false;
            if (places >= c.a[0].dec) { /* nothing to round: the argument's type */
                *out = c.a[0];
                out->nullable = c.anynull;
                return true;
            }
            uint32_t sc = (uint32_t)places;
            uint32_t ip = int_part(&c.a[0]);
            *out = rt_decimal(ip + (trunc ? 0 : 1) + sc, sc, c.a[0].unsig, c.anynull);
            return true;
        }
        return false;
    }
    case SQL_FN_FLOOR: case SQL_FN_CEIL: case SQL_FN_CEILING:
        if (c.a[0].type == SQL_TYPE_YEAR)
            as_number(&c.a[0], &c.a[0]);
        if (is_int_type(c.a[0].type)) {
            *out = c.a[0];
            return true;
        }
        if (is_dec_type(c.a[0].type)) {
            uint32_t p = int_part(&c.a[0]) + (c.a[0].dec ? 1 : 0);
            if (p < 1)
                p = 1;
            if (p > 18)
                *out = rt_decimal(p, 0, c.a[0].unsig, c.a[0].nullable);
            else {
                *out = rt_fixed_int(p > 9 ? SQL_TYPE_LONGLONG : SQL_TYPE_LONG, p + (c.a[0].unsig ? 0 : 1), c.a[0].unsig,
                                    c.a[0].nullable);
            }
            return true;
        }
        return false;
    case SQL_FN_SQRT: case SQL_FN_POW: case SQL_FN_POWER: case SQL_FN_EXP: case SQL_FN_LN: case SQL_FN_LOG:
    case SQL_FN_LOG2: case SQL_FN_LOG10: case SQL_FN_ASIN: case SQL_FN_ACOS: case SQL_FN_ATAN2:
        *out = rt_double(23, DEC_NOT_FIXED_DOUBLE, true);
        return true;
    case SQL_FN_SIN: case SQL_FN_COS: case SQL_FN_TAN: case SQL_FN_ATAN: case SQL_FN_DEGREES: case SQL_FN_RADIANS:
        if (fn == SQL_FN_ATAN && c.n == 2)
            return false;
        *out = rt_double(23, DEC_NOT_FIXED_DOUBLE, fn == SQL_FN_TAN || c.anynull);
        return true;
    case SQL_FN_CRC32:
        *out = rt_fixed_int(SQL_TYPE_LONG, 10, true, c.anynull);
        return true;
    case SQL_FN_BIT_COUNT:
        *out = rt_fixed_int(SQL_TYPE_LONG, 2, false, c.anynull);
        return true;
    case SQL_FN_INET_ATON:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, true, true);
        return true;
    case SQL_FN_SLEEP: case SQL_FN_BENCHMARK:
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, false);
        return true;
    /* ---- string lengths and positions */
    case SQL_FN_LENGTH: case SQL_FN_OCTET_LENGTH: case SQL_FN_CHAR_LENGTH: case SQL_FN_CHARACTER_LENGTH:
        *out = rt_fixed_int(SQL_TYPE_LONG, 10, false, c.anynull);
        return true;
    case SQL_FN_BIT_LENGTH:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 11, false, c.anynull);
        return true;
    case SQL_FN_INSTR: case SQL_FN_LOCATE:
        *out = rt_fixed_int(SQL_TYPE_LONG, 11, false, c.anynull);
        return true;
    case SQL_FN_ASCII: case SQL_FN_FIELD: case SQL_FN_FIND_IN_SET:
        *out = rt_fixed_int(SQL_TYPE_LONG, 3, false, fn == SQL_FN_FIELD ? false : c.anynull);
        return true;
    case SQL_FN_STRCMP:
        *out = rt_fixed_int(SQL_TYPE_LONG, 2, false, c.anynull);
        return true;
    default:
        return -1;
    }
    return 0;
}

/* Strings: CONCAT and the functions whose result length follows from their arguments'. */
int sql_type_string_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    call_args_t c;
    if (!call_args(env, e, &c))
        return 0;
    sql_fn_t fn = e->func.fn;
    switch (fn) {
    case SQL_FN_CONCAT: case SQL_FN_CONCAT_WS: {
        uint32_t len = 0;
        uint16_t coll = 0;
        bool bin = false;
        for (uint32_t i = 0; i < c.n; i++) {
            if (is_blob_type(c.a[i].type))
                return false;
            if (fn == SQL_FN_CONCAT_WS && i == 0)
                continue;
            len += str_len(&c.a[i]);
        }
        if (fn == SQL_FN_CONCAT_WS && c.n > 2)
            len += str_len(&c.a[0]) * (c.n - 2);
        for (uint32_t i = 0; i < c.n; i++) {
            if (!is_string_type(c.a[i].type))
                continue;
            if (c.a[i].coll == COLL_BINARY)
                bin = true;
            else if (!coll || value_coll_mbmaxlen(c.a[i].coll) > value_coll_mbmaxlen(coll))
                coll = c.a[i].coll;
        }
        if (bin) {
            len = 0;
            for (uint32_t i = fn == SQL_FN_CONCAT_WS ? 1 : 0; i < c.n; i++)
                len += str_len(&c.a[i]) * (is_string_type(c.a[i].type) && c.a[i].coll != COLL_BINARY ? value_coll_mbmaxlen(c.a[i].coll) : 1);
            if (fn == SQL_FN_CONCAT_WS && c.n > 2)
                len += str_len(&c.a[0]) * (c.n - 2);
        }
        /* nullable whatever the arguments: a result over max_allowed_packet is NULL */
        *out = rt_string(len, bin ? COLL_BINARY : coll ? coll : c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    default:
        break;
    }
    /* string functions of one string argument (its collation, or the connection's for a number) */
    for (uint32_t i = 0; i < c.n; i++)
        if (is_blob_type(c.a[i].type))
            return false;
    uint16_t c0 = c.n && is_string_type(c.a[0].type) ? c.a[0].coll : c.conn;
    uint32_t l0 = c.n ? str_len(&c.a[0]) : 0;
    uint32_t b0 = c.n && is_string_type(c.a[0].type) && c.a[0].coll != COLL_BINARY ? l0 * value_coll_mbmaxlen(c.a[0].coll) : l0;
    int64_t k;
    switch (fn) {
    case SQL_FN_UPPER: case SQL_FN_UCASE: case SQL_FN_LOWER: case SQL_FN_LCASE: case SQL_FN_REVERSE:
    case SQL_FN_SOUNDEX: case SQL_FN_SUBSTRING_INDEX:
        *out = rt_string(l0, c0, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_TRIM: case SQL_FN_LTRIM: case SQL_FN_RTRIM:
        *out = rt_string(l0, c0, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_LEFT: case SQL_FN_RIGHT:
        if (c.n != 2 || !const_int_arg(e->args[1], &k))
            return false;
        *out = rt_string(k <= 0 ? 0 : (uint32_t)MIN((int64_t)l0, k), c0, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_SUBSTRING: case SQL_FN_SUBSTR: case SQL_FN_MID: {
        /* MariaDB works on the byte length here (a VARCHAR(20) utf8mb4 from position 2 is 79 long) */
        if (c.n < 2 || !const_int_arg(e->args[1], &k))
            return false;
        uint32_t ml = l0 * (is_string_type(c.a[0].type) && c.a[0].coll != COLL_BINARY ? value_coll_mbmaxlen(c.a[0].coll) : 1);
        if (k < 0)
            ml = (uint64_t)(-k) > ml ? 0 : (uint32_t)(-k);
        else if (k > 0)
            ml -= (uint32_t)MIN((uint64_t)(k - 1), (uint64_t)ml);
        if (c.n == 3) {
            int64_t l;
            if (!const_int_arg(e->args[2], &l))
                return false;
            ml = l <= 0 ? 0 : (uint32_t)MIN((int64_t)ml, l);
        }
        *out = rt_string(ml, c0, DEC_NOT_FIXED_STRING, true);
        out->nullable = c.anynull;
        return true;
    }
    case SQL_FN_REPEAT:
        if (c.n != 2 || !const_int_arg(e->args[1], &k))
            return false;
        *out = rt_string(k <= 0 ? 0 : (uint32_t)MIN((uint64_t)l0 * (uint64_t)k, 16777216ull), c0,
                         DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_LPAD: case SQL_FN_RPAD:
        if (c.n != 3 || !const_int_arg(e->args[1], &k))
            return false;
        *out = rt_string(k <= 0 ? 0 : (uint32_t)MIN(k, 16777216), c0, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_REPLACE: {
        if (c.n != 3)
            return false;
        uint32_t to = str_len(&c.a[2]);
        uint64_t len = l0 + (to > 1 ? (uint64_t)l0 * (to - 1) : 0);
        *out = rt_string((uint32_t)MIN(len, 16777216ull), c0, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    case SQL_FN_INSERT:
        if (c.n != 4)
            return false;
        *out = rt_string(l0 + str_len(&c.a[3]), c0, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_SPACE:
        if (!const_int_arg(e->args[0], &k))
            return false;
        *out = rt_string(k <= 0 ? 0 : (uint32_t)MIN(k, 16777216), c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_QUOTE:
        *out = rt_string(l0 * 2 + 2, c0, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_HEX: {
        uint32_t l = is_string_type(c.a[0].type) ? l0 * (c.a[0].coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(c.a[0].coll)) * 2
                                               : 16;
        *out = rt_string(l, c.conn, 0, true);
        return true;
    }
    case SQL_FN_UNHEX:
        *out = rt_string((b0 + 1) / 2, COLL_BINARY, 0, true);
        return true;
    case SQL_FN_CHAR:
        if (e->func.using_coll) /* 4 bytes an argument: as many characters of the set as that holds */
            *out = rt_string(4 * c.n / value_coll_mbmaxlen(e->func.using_coll), e->func.using_coll,
                             DEC_NOT_FIXED_STRING, true);
        else
            *out = rt_string(4 * c.n, COLL_BINARY, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_SHA2: {
        int64_t bits = 256;
        if (c.n == 2 && !const_int_arg(e->args[1], &bits))
            return false;
        uint32_t l = bits == 224 ? 56 : bits == 384 ? 96 : bits == 512 ? 128 : 64;
        *out = rt_string(l, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    case SQL_FN_MD5:
        *out = rt_string(32, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_SHA1: case SQL_FN_SHA:
        *out = rt_string(40, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_PASSWORD:
        *out = rt_string(41, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_CONV: case SQL_FN_BIN: case SQL_FN_OCT:
        *out = rt_string(65, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_INET_NTOA:
        *out = rt_string(31, c.conn, 0, true);
        return true;
    case SQL_FN_CHARSET: case SQL_FN_COLLATION:
        *out = rt_string(64, COLL_UTF8MB3_GENERAL_CI, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_ELT: {
        uint32_t len = 0;
        uint16_t coll = 0;
        for (uint32_t i = 1; i < c.n; i++) {
            len = MAX(len, str_len(&c.a[i]));
            if (is_string_type(c.a[i].type) && !coll)
                coll = c.a[i].coll;
        }
        *out = rt_string(len, coll ? coll : c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    default:
        return -1;
    }
    return 0;
}

/* Dates and times, and the names and numbers taken from them. */
int sql_type_temporal_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    call_args_t c;
    if (!call_args(env, e, &c))
        return 0;
    sql_fn_t fn = e->func.fn;
    /* a BLOB argument: MariaDB's lengths depend on it; no rule */
    for (uint32_t i = 0; i < c.n; i++)
        if (is_blob_type(c.a[i].type))
            return false;
    switch (fn) {
    case SQL_FN_DAYNAME: case SQL_FN_MONTHNAME:
        *out = rt_string(9, c.conn, 0, true);
        return true;
    case SQL_FN_DATE_FORMAT: case SQL_FN_TIME_FORMAT: case SQL_FN_FROM_UNIXTIME: {
        size_t fl;
        const char *f;
        if (fn == SQL_FN_FROM_UNIXTIME && c.n == 1) {
            uint8_t fsp = is_dec_type(c.a[0].type) ? (uint8_t)MIN(c.a[0].dec, 6) : 0;
            if (!is_int_type(c.a[0].type) && !is_dec_type(c.a[0].type))
                return false;
            *out = rt_temporal(SQL_TYPE_DATETIME, fsp, true);
            return true;
        }
        if (c.n != 2 || !(f = const_str_arg(e->args[1], &fl)))
            return false;
        *out = rt_string(date_format_len(f, fl), c.conn, 0, true);
        return true;
    }
    /* ---- dates */
    case SQL_FN_DATE: case SQL_FN_LAST_DAY: case SQL_FN_FROM_DAYS: case SQL_FN_MAKEDATE:
        *out = rt_temporal(SQL_TYPE_DATE, 0, true);
        return true;
    case SQL_FN_TIME:
        if (!is_temporal_type(c.a[0].type))
            return false;
        *out = rt_temporal(SQL_TYPE_TIME, temporal_fsp(&c.a[0]), true);
        return true;
    case SQL_FN_TIMESTAMP:
        if (c.n != 1 || !is_temporal_type(c.a[0].type))
            return false;
        *out = rt_temporal(SQL_TYPE_DATETIME, temporal_fsp(&c.a[0]), true);
        return true;
    case SQL_FN_CONVERT_TZ:
        if (!is_temporal_type(c.a[0].type) || c.a[0].type == SQL_TYPE_TIME)
            return false;
        *out = rt_temporal(SQL_TYPE_DATETIME, temporal_fsp(&c.a[0]), true);
        return true;
    case SQL_FN_TIMEDIFF:
        if (!is_temporal_type(c.a[0].type) || !is_temporal_type(c.a[1].type))
            return false;
        *out = rt_temporal(SQL_TYPE_TIME, (uint8_t)MAX(c.a[0].dec, c.a[1].dec), true);
        return true;
    case SQL_FN_SEC_TO_TIME:
        if (!is_int_type(c.a[0].type))
            return false;
        *out = rt_temporal(SQL_TYPE_TIME, 0, true);
        return true;
    case SQL_FN_MAKETIME:
        if (!is_int_type(c.a[2].type))
            return false;
        *out = rt_temporal(SQL_TYPE_TIME, 0, true);
        return true;
    case SQL_FN_ADDTIME: case SQL_FN_SUBTIME: {
        if (!is_temporal_type(c.a[0].type) || c.a[0].type == SQL_TYPE_DATE)
            return false;
        uint8_t f1;
        if (is_temporal_type(c.a[1].type))
            f1 = c.a[1].dec;
        else if (e->args[1]->kind == SQL_E_LITERAL && e->args[1]->lit.type == VAL_STRING &&
                 !memchr(e->args[1]->lit.s.ptr, '.', e->args[1]->lit.s.len))
            f1 = 0;
        else
            return false;
        *out = rt_temporal(c.a[0].type == SQL_TYPE_TIME ? SQL_TYPE_TIME : SQL_TYPE_DATETIME, (uint8_t)MAX(c.a[0].dec, f1), true);
        return true;
    }
    case SQL_FN_DATE_ADD: case SQL_FN_DATE_SUB: case SQL_FN_ADDDATE: case SQL_FN_SUBDATE:
        if (c.n != 2)
            return false;
        if (e->args[1]->kind == SQL_E_INTERVAL)
            return typeinf_date_add(&c.a[0], e->args[1]->interval_unit, out);
        if (fn == SQL_FN_ADDDATE || fn == SQL_FN_SUBDATE)
            return typeinf_date_add(&c.a[0], "DAY", out);
        return false;
    case SQL_FN_STR_TO_DATE: {
        size_t fl;
        const char *f = c.n == 2 ? const_str_arg(e->args[1], &fl) : NULL;
        return f && str_to_date_type(f, fl, out);
    }
    case SQL_FN_UNIX_TIMESTAMP:
        if (c.n == 1 && temporal_fsp(&c.a[0]))
            return false;
        if (c.n == 1 && !is_temporal_type(c.a[0].type))
            return false;
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 17, false, true);
        return true;
    case SQL_FN_TIME_TO_SEC:
        if (!is_temporal_type(c.a[0].type) || c.a[0].dec)
            return false;
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 17, false, true);
        return true;
    case SQL_FN_DATEDIFF:
        *out = rt_fixed_int(SQL_TYPE_LONG, 8, false, true);
        return true;
    case SQL_FN_YEAR: case SQL_FN_MONTH: case SQL_FN_DAY: case SQL_FN_DAYOFMONTH: case SQL_FN_HOUR:
    case SQL_FN_MINUTE: case SQL_FN_SECOND: case SQL_FN_MICROSECOND: case SQL_FN_QUARTER: case SQL_FN_DAYOFWEEK:
    case SQL_FN_WEEKDAY: case SQL_FN_DAYOFYEAR: case SQL_FN_TO_DAYS: case SQL_FN_WEEK: case SQL_FN_YEARWEEK:
    case SQL_FN_WEEKOFYEAR: {
        /* metadata length, and the display width CREATE TABLE ... SELECT gives (MariaDB adds a sign to some) */
        uint32_t len, width;
        switch (fn) {
        case SQL_FN_YEAR: len = 4; width = 5; break;
        case SQL_FN_MICROSECOND: case SQL_FN_TO_DAYS: len = 6; width = 7; break;
        case SQL_FN_YEARWEEK: len = 6; width = 6; break;
        case SQL_FN_DAYOFYEAR: len = 3; width = 4; break;
        case SQL_FN_QUARTER: len = 1; width = 2; break;
        case SQL_FN_DAYOFWEEK: case SQL_FN_WEEKDAY: len = 1; width = 1; break;
        default: len = 2; width = 3; break;
        }
        *out = rt_fixed_int(SQL_TYPE_LONG, len, false, true);
        out->width = width;
        return true;
    }
    default:
        return -1;
    }
    return 0;
}

/* A call's type by its row's rule; a wrong argument count has none (evaluation raises 1582). */
static bool infer_func(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    const sql_fn_def_t *def = &sql_fn_defs[e->func.fn];
    if ((int)e->nargs < def->minargs || (def->maxargs >= 0 && (int)e->nargs > def->maxargs))
        return false;
    return def->type(env, e, out) > 0;
}

static bool infer_cast(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    sql_rtype_t a;
    if (e->nargs != 1 || !infer(env, e->args[0], &a))
        return false;
    const sql_cast_t *c = &e->cast;
    switch (c->type) {
    case SQL_CAST_SIGNED: {
        if (is_blob_type(a.type))
            return false;
        uint32_t len = MIN(a.len, 20u);
        *out = rt_fixed_int(len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG, len, false, a.nullable);
        return true;
    }
    case SQL_CAST_UNSIGNED: {
        /* a signed value may wrap to 20 digits; an unsigned one or a literal >= 0 keeps its length */
        bool keeps = a.unsig || (e->args[0]->kind == SQL_E_LITERAL && is_int_type(a.type));
        uint32_t len = keeps ? MIN(a.len, 20u) : 20;
        *out = rt_fixed_int(len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG, len, true, a.nullable);
        return true;
    }
    case SQL_CAST_DECIMAL: {
        uint32_t p = c->len >= 0 ? (uint32_t)c->len : 10, s = c->scale >= 0 ? (uint32_t)c->scale : 0;
        *out = rt_decimal(p, s, false, a.nullable);
        return true;
    }
    case SQL_CAST_DOUBLE:
        *out = rt_double(22, DEC_NOT_FIXED_DOUBLE, true);
        return true;
    case SQL_CAST_FLOAT:
        *out = rt_double(12, DEC_NOT_FIXED_DOUBLE, true);
        out->type = SQL_TYPE_FLOAT;
        return true;
    case SQL_CAST_DATE:
        *out = rt_temporal(SQL_TYPE_DATE, 0, true);
        return true;
    case SQL_CAST_DATETIME:
    case SQL_CAST_TIME: {
        uint8_t fsp = c->scale >= 0 ? (uint8_t)MIN(c->scale, 6) : 0;
        *out = rt_temporal(c->type == SQL_CAST_TIME ? SQL_TYPE_TIME : SQL_TYPE_DATETIME, fsp, true);
        return true;
    }
    case SQL_CAST_CHAR:
    case SQL_CAST_BINARY: {
        if (is_blob_type(a.type))
            return false;
        bool bin = c->type == SQL_CAST_BINARY;
        uint16_t coll = bin ? COLL_BINARY : c->coll >= 0 ? (uint16_t)c->coll : env_conn(env);
        uint32_t len;
        if (c->len >= 0)
            len = (uint32_t)c->len;
        else if (bin && is_string_type(a.type) && a.coll != COLL_BINARY)
            len = a.len * value_coll_mbmaxlen(a.coll);
        else
            len = a.len;
        *out = rt_string(len, coll, 0, true);
        return true;
    }
    }
    return false;
}

static bool infer(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    sql_rtype_t a[3];
    memset(out, 0, sizeof *out);
    switch (e->kind) {
    case SQL_E_LITERAL:
        return infer_literal(env, e, out);
    case SQL_E_COLUMN:
        return env->column && e->slot >= 0 && env->column(env->user, e, out) == 0;
    case SQL_E_UNARY:
        if (e->nargs != 1 || !infer(env, e->args[0], &a[0]))
            return false;
        switch (e->op) {
        case SQL_OP_PLUS:
            *out = a[0];
            return true;
        case SQL_OP_NOT:
            *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, a[0].nullable);
            return true;
        case SQL_OP_BITNOT:
            *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, true, a[0].nullable);
            return true;
        case SQL_OP_NEG:
            if (e->args[0]->kind == SQL_E_LITERAL && is_dec_type(a[0].type)) {
                *out = a[0]; /* -2.5 is one literal: decimal(2,1) */
                return true;
            }
            if (is_int_type(a[0].type)) {
                *out = rt_int(a[0].prec + 1, false, a[0].nullable);
                out->len = a[0].len + 1;
                out->prec = out->len - 1;
                out->type = out->len <= 9 ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG;
                return true;
            }
            if (is_dec_type(a[0].type)) {
                *out = a[0];
                out->unsig = false;
                out->len = a[0].len + 1;
                return true;
            }
            if (is_real_type(a[0].type)) {
                *out = rt_double(a[0].len + 1, DEC_NOT_FIXED_DOUBLE, a[0].nullable);
                return true;
            }
            return false;
        default:
            return false;
        }
    case SQL_E_BINARY:
        switch (e->op) {
        case SQL_OP_ADD: case SQL_OP_SUB: case SQL_OP_MUL: case SQL_OP_DIV: case SQL_OP_IDIV: case SQL_OP_MOD:
            return infer_arith(env, e, out);
        case SQL_OP_OR: case SQL_OP_XOR: case SQL_OP_AND: case SQL_OP_EQ: case SQL_OP_NE: case SQL_OP_LT:
        case SQL_OP_LE: case SQL_OP_GT: case SQL_OP_GE: case SQL_OP_NSEQ:
            if (!infer_args(env, e, a, 2))
                return false;
            *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, e->op != SQL_OP_NSEQ && any_nullable(a, e->nargs));
            return true;
        case SQL_OP_BITOR: case SQL_OP_BITAND: case SQL_OP_SHL: case SQL_OP_SHR: case SQL_OP_BITXOR:
            if (!infer_args(env, e, a, 2))
                return false;
            *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, true, any_nullable(a, e->nargs));
            return true;
        default:
            return false;
        }
    case SQL_E_IS: /* whatever the argument: int(1) NOT NULL */
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, false);
        return true;
    case SQL_E_LIKE: case SQL_E_REGEXP: case SQL_E_BETWEEN:
        if (!infer_args(env, e, a, 3))
            return false;
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, any_nullable(a, e->nargs));
        return true;
    case SQL_E_IN: {
        if (e->sub)
            return false;
        bool nullable = false;
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (!infer(env, e->args[i], &a[0]))
                return false;
            nullable = nullable || a[0].nullable;
        }
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, nullable);
        return true;
    }
    case SQL_E_CASE: {
        /* args: [operand], then (when, then) pairs; the result aggregates the THENs and the ELSE */
        sql_rtype_t br[33];
        uint32_t nb = 0;
        bool cond_null = false; /* MariaDB counts the operand and the WHENs too */
        if (e->nargs < 3 || (e->nargs - 1) / 2 + 1 > ARRAY_LEN(br))
            return false;
        if (e->args[0]) {
            if (!infer(env, e->args[0], &a[0]))
                return false;
            cond_null = a[0].nullable;
        }
        for (uint32_t i = 1; i + 1 < e->nargs; i += 2) {
            if (!infer(env, e->args[i], &a[0]) || !infer(env, e->args[i + 1], &br[nb++]))
                return false;
            cond_null = cond_null || a[0].nullable;
        }
        if (e->else_expr && !infer(env, e->else_expr, &br[nb++]))
            return false;
        if (!aggregate(env, br, nb, out))
            return false;
        out->nullable = !e->else_expr || cond_null || any_nullable(br, nb);
        return true;
    }
    case SQL_E_FUNC:
        return infer_func(env, e, out);
    case SQL_E_CAST:
        return infer_cast(env, e, out);
    case SQL_E_CONVERT_USING:
    case SQL_E_COLLATE:
        if (e->nargs != 1 || !infer(env, e->args[0], &a[0]) || e->cast.coll < 0)
            return false;
        if (!is_string_type(a[0].type) || is_blob_type(a[0].type))
            return false;
        *out = a[0];
        out->coll = (uint16_t)e->cast.coll;
        out->type = SQL_TYPE_VAR_STRING;
        out->dec = DEC_NOT_FIXED_STRING;
        out->flags = 0;
        if (e->kind == SQL_E_CONVERT_USING)
            out->nullable = true;
        return true;
    case SQL_E_EXISTS:
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, false);
        return true;
    case SQL_E_SUBQUERY: {
        /* (SELECT expr) without tables: the type of expr; with tables the executor would have to bind it */
        const sql_select_t *q = e->sub;
        if (!q || q->from || q->union_next || q->nitems != 1 || q->where || q->having || q->ngroup_by ||
            q->limit.count || !q->items[0].expr || q->items[0].expr->kind == SQL_E_STAR)
            return false;
        sql_typeinf_env_t inner = *env;
        inner.column = NULL;
        return infer(&inner, q->items[0].expr, out);
    }
    default:
        return false;
    }
}

bool sql_type_infer(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    sql_rtype_t r;
    if (!e || !infer(env, e, &r))
        return false;
    if (r.type == SQL_TYPE_VAR_STRING && r.coll != COLL_BINARY) {
        uint64_t bytes = (uint64_t)r.len * value_coll_mbmaxlen(r.coll);
        if (bytes >= 65536)
            return false; /* BLOB-typed text results: MariaDB's lengths there are its own */
    }
    *out = r;
    return true;
}

void sql_rtype_meta(const sql_rtype_t *t, sql_col_meta_t *m)
{
    memset(m, 0, sizeof *m);
    m->type = t->type;
    m->coll = t->coll;
    m->decimals = t->dec;
    m->length = t->len;
    uint16_t f = t->flags;
    if (!t->nullable)
        f |= SQL_FLAG_NOT_NULL;
    if (t->unsig)
        f |= SQL_FLAG_UNSIGNED;
    if (is_string_type(t->type)) {
        if (t->coll == COLL_BINARY)
            f |= SQL_FLAG_BINARY;
        else
            m->length = (uint32_t)MIN((uint64_t)t->len * value_coll_mbmaxlen(t->coll), 4294967295ull);
    } else if (t->type == SQL_TYPE_NULL) {
        f = SQL_FLAG_BINARY | SQL_FLAG_NUM;
        m->coll = COLL_BINARY;
    } else {
        f |= SQL_FLAG_BINARY;
        if (!is_temporal_type(t->type))
            f |= SQL_FLAG_NUM;
    }
    m->flags = f;
}

value_t sql_rtype_format(arena_t *a, uint8_t type, uint8_t dec, const value_t *v)
{
    if ((type == SQL_TYPE_DATETIME || type == SQL_TYPE_TIMESTAMP) && v->type == VAL_DATE) {
        value_t r = *v; /* a DATE in a DATETIME column (COALESCE(date, datetime)) shows its midnight */
        r.type = VAL_DATETIME;
        r.t.hour = r.t.minute = r.t.second = 0;
        r.t.usec = 0;
        r.dec = dec <= 6 ? dec : 0;
        return r;
    }
    if (type != SQL_TYPE_NEWDECIMAL || dec == 0 || dec > DECIMAL_MAX_SCALE)
        return *v;
    if (v->type != VAL_INT && v->type != VAL_UINT && v->type != VAL_DECIMAL)
        return *v;
    if (v->type == VAL_DECIMAL && v->dec >= dec)
        return *v;
    size_t len;
    const char *txt = value_to_text(a, v, &len);
    uint32_t have = v->type == VAL_DECIMAL ? v->dec : 0;
    size_t nl = len + (have ? 0 : 1) + (dec - have);
    char *p = arena_alloc(a, nl + 1);
    memcpy(p, txt, len);
    size_t o = len;
    if (!have)
        p[o++] = '.';
    for (uint32_t i = have; i < dec; i++)
        p[o++] = '0';
    p[o] = 0;
    value_t r = value_decimal(a, p, o);
    r.dec = dec;
    return r;
}

/* ---------------------------------------------------------------- column metadata */

static bool coll_is_bin(uint16_t coll)
{
    const char *n = value_coll_name(coll);
    size_t l = n ? strlen(n) : 0;
    return coll == COLL_BINARY || (l > 4 && strcmp(n + l - 4, "_bin") == 0);
}

void sql_column_meta(const sql_column_def_t *c, uint16_t col_coll, uint16_t result_coll, uint16_t key_flags,
                     sql_col_meta_t *m)
{
    const sql_type_t *t = &c->type;
    memset(m, 0, sizeof *m);
    m->coll = COLL_BINARY;
    uint32_t flags = key_flags;
    /* explicit_defaults_for_timestamp is ON in MariaDB 10.10+: TIMESTAMP is nullable like any column */
    bool not_null = c->nullable == SQL_NULL_NOT_NULL || c->primary_key || c->auto_increment;
    if (not_null)
        flags |= SQL_FLAG_NOT_NULL;
    if (not_null && !c->default_expr && !c->default_now && !c->auto_increment)
        flags |= SQL_FLAG_NO_DEFAULT_VALUE;
    if (c->auto_increment)
        flags |= SQL_FLAG_AUTO_INCREMENT;
    if (c->primary_key)
        flags |= SQL_FLAG_PRI_KEY | SQL_FLAG_PART_KEY;
    else if (c->unique_key && !(key_flags & SQL_FLAG_PRI_KEY))
        flags |= SQL_FLAG_UNIQUE_KEY | SQL_FLAG_PART_KEY;
    if (key_flags & SQL_FLAG_PRI_KEY)
        flags &= ~(uint32_t)SQL_FLAG_UNIQUE_KEY;
    if (c->on_update_now)
        flags |= SQL_FLAG_ON_UPDATE_NOW;
    if (t->kind == SQL_T_TIMESTAMP && (c->default_now || c->on_update_now))
        flags |= SQL_FLAG_TIMESTAMP;
    if (t->is_unsigned)
        flags |= SQL_FLAG_UNSIGNED;
    if (t->zerofill)
        flags |= SQL_FLAG_ZEROFILL;
    uint32_t mb = value_coll_mbmaxlen(result_coll);
    if (!mb)
        mb = 1;
    bool binary = col_coll == COLL_BINARY;
    switch (t->kind) {
    case SQL_T_TINYINT: m->type = SQL_TYPE_TINY; m->length = (uint32_t)t->len; break;
    case SQL_T_SMALLINT: m->type = SQL_TYPE_SHORT; m->length = (uint32_t)t->len; break;
    case SQL_T_MEDIUMINT: m->type = SQL_TYPE_INT24; m->length = (uint32_t)t->len; break;
    case SQL_T_INT: m->type = SQL_TYPE_LONG; m->length = (uint32_t)t->len; break;
    case SQL_T_BIGINT: m->type = SQL_TYPE_LONGLONG; m->length = (uint32_t)t->len; break;
    case SQL_T_DECIMAL:
        m->type = SQL_TYPE_NEWDECIMAL;
        m->decimals = (uint8_t)t->scale;
        m->length = (uint32_t)t->len + (t->scale > 0) + !t->is_unsigned;
        break;
    case SQL_T_FLOAT: case SQL_T_DOUBLE:
        m->type = t->kind == SQL_T_FLOAT ? SQL_TYPE_FLOAT : SQL_TYPE_DOUBLE;
        if (t->len >= 0 && t->scale >= 0) {
            m->length = (uint32_t)t->len;
            m->decimals = (uint8_t)t->scale;
        } else {
            m->length = t->kind == SQL_T_FLOAT ? 12 : 22;
            m->decimals = VAL_DEC_NOT_FIXED;
        }
        break;
    case SQL_T_BIT:
        m->type = SQL_TYPE_BIT;
        m->length = (uint32_t)t->len;
        flags |= SQL_FLAG_UNSIGNED;
        break;
    case SQL_T_CHAR: case SQL_T_BINARY: case SQL_T_VARCHAR: case SQL_T_VARBINARY:
        m->type = (t->kind == SQL_T_CHAR || t->kind == SQL_T_BINARY) ? SQL_TYPE_STRING : SQL_TYPE_VAR_STRING;
        if (binary) {
            m->length = (uint32_t)t->len;
        } else {
            m->coll = result_coll;
            m->length = (uint32_t)t->len * mb;
        }
        if (coll_is_bin(col_coll))
            flags |= SQL_FLAG_BINARY;
        break;
    case SQL_T_TINYTEXT: case SQL_T_TEXT: case SQL_T_MEDIUMTEXT: case SQL_T_LONGTEXT:
    case SQL_T_TINYBLOB: case SQL_T_BLOB: case SQL_T_MEDIUMBLOB: case SQL_T_LONGBLOB: {
        m->type = SQL_TYPE_BLOB;
        uint64_t maxb = sql_type_blob_max(t->kind);
        flags |= SQL_FLAG_BLOB;
        if (binary) {
            m->length = (uint32_t)maxb;
            flags |= SQL_FLAG_BINARY;
        } else {
            m->coll = result_coll;
            uint64_t l = maxb * mb;
            m->length = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
            if (coll_is_bin(col_coll))
                flags |= SQL_FLAG_BINARY;
        }
        break;
    }
    case SQL_T_DATE: m->type = SQL_TYPE_DATE; m->length = 10; flags |= SQL_FLAG_BINARY; break;
    case SQL_T_DATETIME: case SQL_T_TIMESTAMP: {
        int fsp = t->scale > 0 ? t->scale : 0;
        m->type = t->kind == SQL_T_DATETIME ? SQL_TYPE_DATETIME : SQL_TYPE_TIMESTAMP;
        m->length = 19 + (fsp ? (uint32_t)fsp + 1 : 0);
        m->decimals = (uint8_t)fsp;
        flags |= SQL_FLAG_BINARY;
        if (t->kind == SQL_T_TIMESTAMP)
            flags |= SQL_FLAG_UNSIGNED;
        break;
    }
    case SQL_T_TIME: {
        int fsp = t->scale > 0 ? t->scale : 0;
        m->type = SQL_TYPE_TIME;
        m->length = 10 + (fsp ? (uint32_t)fsp + 1 : 0);
        m->decimals = (uint8_t)fsp;
        flags |= SQL_FLAG_BINARY;
        break;
    }
    case SQL_T_YEAR: m->type = SQL_TYPE_YEAR; m->length = 4; flags |= SQL_FLAG_UNSIGNED | SQL_FLAG_ZEROFILL; break;
    case SQL_T_ENUM: case SQL_T_SET: {
        uint32_t chars = 0;
        for (uint32_t i = 0; i < t->nelems; i++) {
            uint64_t cnt;
            sql_utf8_prefix_bytes(t->elems[i], t->elem_lens[i], UINT64_MAX, &cnt);
            if (t->kind == SQL_T_ENUM)
                chars = MAX(chars, (uint32_t)cnt);
            else
                chars += (uint32_t)cnt + (i ? 1 : 0);
        }
        m->type = SQL_TYPE_STRING;
        m->coll = binary ? COLL_BINARY : result_coll;
        m->length = chars * (binary ? 1 : mb);
        flags |= t->kind == SQL_T_ENUM ? SQL_FLAG_ENUM : SQL_FLAG_SET;
        break;
    }
    }
    m->flags = (uint16_t)flags;
}

/* ---------------------------------------------------------------- fnextra.c's functions */

/* A copy of call e as function fn, typed by that function's rule (NVL as IFNULL, LENGTHB as LENGTH). */
static int type_as(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_fn_t fn, sql_rtype_t *out)
{
    sql_expr_t c = *e;
    c.func.fn = fn;
    return sql_fn_defs[fn].type(env, &c, out);
}

/* The rewritten expression (NVL2 / DECODE_ORACLE as CASE, ADD_MONTHS as DATE_ADD), typed in a scratch arena. */
static int type_rewrite(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    arena_t a;
    arena_init(&a, 1024);
    sql_expr_t *r = e->func.fn == SQL_FN_ADD_MONTHS ? sql_fnextra_add_months(&a, e) : sql_fnextra_case(&a, e, true);
    bool ok = infer(env, r, out);
    arena_destroy(&a);
    sql_rtype_t a0;
    if (!ok && e->func.fn == SQL_FN_ADD_MONTHS && infer(env, e->args[0], &a0) && is_string_type(a0.type) &&
        !is_blob_type(a0.type)) {
        *out = rt_string(19, env_conn(env), DEC_NOT_FIXED_STRING, true); /* DATE_ADD of a string: a string */
        return true;
    }
    if (ok && e->func.fn == SQL_FN_NVL2) {
        sql_rtype_t t;
        for (uint32_t i = 0; i < 3; i++)
            if (!infer(env, e->args[i], &t) || t.nullable)
                out->nullable = true;
    }
    return ok;
}

int sql_type_extra_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    sql_fn_t fn = e->func.fn;
    switch (fn) {
    case SQL_FN_NVL: return type_as(env, e, SQL_FN_IFNULL, out);
    case SQL_FN_LENGTHB: return type_as(env, e, SQL_FN_LENGTH, out);
    case SQL_FN_NVL2: case SQL_FN_DECODE_ORACLE: case SQL_FN_ADD_MONTHS: return type_rewrite(env, e, out);
    case SQL_FN_SYS_GUID:
        *out = rt_string(32, COLL_LATIN1_SWEDISH_CI, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_MASTER_POS_WAIT:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 21, false, true);
        return true;
    default:
        break;
    }
    call_args_t c;
    if (!call_args(env, e, &c))
        return 0;
    switch (fn) {
    case SQL_FN_INTERVAL:
        *out = rt_fixed_int(SQL_TYPE_LONG, 2, false, false);
        return true;
    case SQL_FN_PERIOD_ADD: case SQL_FN_PERIOD_DIFF:
        *out = rt_fixed_int(SQL_TYPE_LONG, 6, false, c.anynull);
        return true;
    case SQL_FN_TO_SECONDS:
        *out = rt_fixed_int(SQL_TYPE_LONGLONG, 12, false, true);
        return true;
    case SQL_FN_UNCOMPRESSED_LENGTH:
        *out = rt_fixed_int(SQL_TYPE_LONG, 10, false, true);
        return true;
    case SQL_FN_CRC32C:
        *out = rt_fixed_int(SQL_TYPE_LONG, 10, true, c.anynull);
        return true;
    case SQL_FN_IS_IPV4: case SQL_FN_IS_IPV6:
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, false);
        return true;
    case SQL_FN_IS_IPV4_MAPPED: case SQL_FN_IS_IPV4_COMPAT:
        *out = rt_fixed_int(SQL_TYPE_LONG, 1, false, true);
        return true;
    case SQL_FN_GET_FORMAT:
        *out = rt_string(17, c.conn, 0, true);
        return true;
    case SQL_FN_INET6_NTOA:
        *out = rt_string(39, c.conn, 0, true);
        return true;
    case SQL_FN_MAKE_SET: case SQL_FN_EXPORT_SET: {
        uint32_t len = 0;
        uint16_t coll = 0;
        for (uint32_t i = 1; i < c.n && i < 4; i++) {
            if (is_blob_type(c.a[i].type))
                return false;
            if (is_string_type(c.a[i].type) && !coll)
                coll = c.a[i].coll;
        }
        if (fn == SQL_FN_MAKE_SET) {
            for (uint32_t i = 1; i < c.n; i++) {
                if (is_blob_type(c.a[i].type))
                    return false;
                len += str_len(&c.a[i]);
                if (is_string_type(c.a[i].type) && !coll)
                    coll = c.a[i].coll;
            }
            len += c.n > 2 ? c.n - 2 : 0;
        } else {
            uint32_t sep = c.n > 3 ? str_len(&c.a[3]) : 1;
            len = 64 * MAX(str_len(&c.a[1]), str_len(&c.a[2])) + 63 * sep;
        }
        *out = rt_string(len, coll ? coll : c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    case SQL_FN_INET6_ATON:
        *out = rt_string(16, COLL_BINARY, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_OLD_PASSWORD:
        *out = rt_string(16, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_CHR:
        *out = rt_string(1, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    case SQL_FN_COMPRESS: {
        if (is_blob_type(c.a[0].type))
            return false;
        uint64_t bytes = (uint64_t)str_len(&c.a[0]) * (c.a[0].coll == COLL_BINARY || !is_string_type(c.a[0].type)
                                                          ? 1 : value_coll_mbmaxlen(c.a[0].coll));
        uint64_t l = bytes * 120 / 100 + 12;
        if (l > 65535)
            return false;
        *out = rt_string((uint32_t)l, COLL_BINARY, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    case SQL_FN_WEIGHT_STRING: {
        if (is_blob_type(c.a[0].type))
            return false;
        uint16_t coll = is_string_type(c.a[0].type) ? c.a[0].coll : c.conn;
        uint64_t chars = str_len(&c.a[0]);
        bool bin = false;
        if (c.n == 3) {
            const sql_expr_t *k = e->args[2];
            bin = k->kind == SQL_E_LITERAL && k->lit.type == VAL_STRING && k->lit.s.len && k->lit.s.ptr[0] == 'B';
            chars = (uint64_t)e->args[1]->lit.i;
        }
        coll_kind_t kd = coll_kind_of(coll);
        uint32_t mbmax = coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(coll);
        uint64_t per = bin || coll == COLL_BINARY ? 1 : kd == COLL_KIND_UCA ? 16 : kd == COLL_KIND_UTF8_GENERAL ? 2
                     : kd == COLL_KIND_BYTES && mbmax > 1 ? (mbmax == 4 ? 3 : 2) : 1;
        if (chars * per > 65535)
            return false;
        *out = rt_string((uint32_t)(chars * per), COLL_BINARY, 0, true);
        return true;
    }
    case SQL_FN_ENCODE: case SQL_FN_DECODE: {
        if (is_blob_type(c.a[0].type))
            return false;
        uint64_t bytes = (uint64_t)str_len(&c.a[0]) * (c.a[0].coll == COLL_BINARY || !is_string_type(c.a[0].type)
                                                          ? 1 : value_coll_mbmaxlen(c.a[0].coll));
        if (bytes > 65535)
            return false;
        *out = rt_string((uint32_t)bytes, COLL_BINARY, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    case SQL_FN_AES_ENCRYPT: case SQL_FN_AES_DECRYPT: {
        if (is_blob_type(c.a[0].type))
            return false;
        uint64_t bytes = (uint64_t)str_len(&c.a[0]) * (c.a[0].coll == COLL_BINARY || !is_string_type(c.a[0].type)
                                                          ? 1 : value_coll_mbmaxlen(c.a[0].coll));
        uint64_t l = fn == SQL_FN_AES_ENCRYPT ? (bytes / 16 + 1) * 16 : bytes;
        if (l > 65535)
            return false;
        *out = rt_string((uint32_t)l, COLL_BINARY, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    case SQL_FN_FORMAT: {
        /* MariaDB: integer digits + a separator per 3 of them + point + sign + the (constant) decimals */
        const sql_expr_t *d = e->args[1];
        if (d->kind != SQL_E_LITERAL || (d->lit.type != VAL_INT && d->lit.type != VAL_UINT))
            return 0;
        int64_t dec = d->lit.type == VAL_INT ? d->lit.i : (int64_t)MIN(d->lit.u, 38);
        dec = dec < 0 ? 0 : dec > 38 ? 38 : dec;
        uint32_t digits;
        if (is_int_type(c.a[0].type)) /* the type's digits, not the argument's */
            digits = c.a[0].type == SQL_TYPE_TINY ? 3 : c.a[0].type == SQL_TYPE_SHORT ? 5
                   : c.a[0].type == SQL_TYPE_INT24 ? 8 : c.a[0].type == SQL_TYPE_LONG ? 10 : 19;
        else if (is_dec_type(c.a[0].type))
            digits = int_part(&c.a[0]);
        else
            return 0;
        if (!digits)
            digits = 1;
        uint32_t seps = digits / 3 + (dec ? 1 : 0) + 1;
        *out = rt_string(digits + seps + (uint32_t)dec, c.conn, DEC_NOT_FIXED_STRING, true);
        return true;
    }
    default:
        return 0; /* UNCOMPRESS: the value decides */
    }
}
