/*
 * Expression evaluation (sql_expr_eval): a recursive walk of the tree producing value_t, with MySQL's typing:
 * integer arithmetic stays exact and raises 1690 on overflow, DECIMAL arithmetic is exact (128-bit scaled
 * integers, falling back to DOUBLE beyond 38 digits), a string meeting a number becomes a DOUBLE with 1292
 * truncation warnings, division by zero is NULL with warning 1365.  What SQL cannot know (variables, session
 * functions, placeholders, column values) comes through ctx->cb.
 *
 * Columns: the executor binds each SQL_E_COLUMN once (e->slot = index into ctx->row) and then evaluates per
 * row by pointing ctx->row at the current row; unbound columns go through cb->column_get.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <openssl/evp.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sql/value/collation.h"
#include "sql/expr/expr_int.h"
#include "sql/value/store.h"
#include "sql/value/tz.h"
#include "util/password.h"

/* A function result over max_allowed_packet: NULL and warning 1301, as MySQL does. */
static value_t too_long(sql_eval_ctx_t *ctx, const char *fn)
{
    diag_warn(ctx->diag, ER_WARN_ALLOWED_PACKET_OVERFLOWED, fn, (long)ctx->max_allowed_packet);
    return value_null();
}

typedef __int128 i128;

/* ---------------------------------------------------------------- helpers */

static int need_cb(sql_eval_ctx_t *ctx, const void *fn, const char *what)
{
    if (fn)
        return 0;
    return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, what);
}

/* MariaDB's printed form of an expression (used in 1690 messages): "a + b", "abs(x)". */
static void expr_print(buf_t *b, const sql_expr_t *e);

static const char *op_text(sql_op_t op)
{
    switch (op) {
    case SQL_OP_OR: return "or"; case SQL_OP_XOR: return "xor"; case SQL_OP_AND: return "and";
    case SQL_OP_EQ: return "="; case SQL_OP_NSEQ: return "<=>"; case SQL_OP_NE: return "<>";
    case SQL_OP_LT: return "<"; case SQL_OP_LE: return "<="; case SQL_OP_GT: return ">"; case SQL_OP_GE: return ">=";
    case SQL_OP_BITOR: return "|"; case SQL_OP_BITAND: return "&"; case SQL_OP_SHL: return "<<";
    case SQL_OP_SHR: return ">>"; case SQL_OP_BITXOR: return "^"; case SQL_OP_ADD: return "+";
    case SQL_OP_SUB: return "-"; case SQL_OP_MUL: return "*"; case SQL_OP_DIV: return "/";
    case SQL_OP_IDIV: return "DIV"; case SQL_OP_MOD: return "%"; default: return "?";
    }
}

static void expr_print(buf_t *b, const sql_expr_t *e)
{
    switch (e->kind) {
    case SQL_E_LITERAL:
        if (e->lit.type == VAL_STRING) {
            buf_append_byte(b, '\'');
            buf_append(b, e->lit.s.ptr, e->lit.s.len);
            buf_append_byte(b, '\'');
        } else {
            value_append_text(b, &e->lit);
        }
        break;
    case SQL_E_BINARY:
        expr_print(b, e->args[0]);
        buf_printf(b, " %s ", op_text(e->op));
        expr_print(b, e->args[1]);
        break;
    case SQL_E_UNARY:
        buf_append_str(b, e->op == SQL_OP_NEG ? "-" : e->op == SQL_OP_NOT ? "!" : e->op == SQL_OP_BITNOT ? "~" : "");
        expr_print(b, e->args[0]);
        break;
    case SQL_E_COLUMN:
        if (e->bound_tab && e->bound_db && *e->bound_db)
            buf_printf(b, "`%s`.`%s`.`%s`", e->bound_db, e->bound_tab, e->col.name);
        else if (e->bound_tab)
            buf_printf(b, "`%s`.`%s`", e->bound_tab, e->col.name);
        else
            buf_append(b, e->src, e->src_len);
        break;
    case SQL_E_CAST: {
        static const char *const tn[] = {"signed", "unsigned", "char", "binary", "decimal", "double", "float",
                                         "date", "datetime", "time"};
        buf_append_str(b, "cast(");
        if (e->nargs)
            expr_print(b, e->args[0]);
        buf_printf(b, " as %s", (unsigned)e->cast.type < ARRAY_LEN(tn) ? tn[e->cast.type] : "?");
        if (e->cast.type == SQL_CAST_DECIMAL)
            buf_printf(b, "(%d,%d)", e->cast.len >= 0 ? e->cast.len : 10, e->cast.scale >= 0 ? e->cast.scale : 0);
        buf_append_byte(b, ')');
        break;
    }
    case SQL_E_FUNC:
        for (const char *p = e->func.name; *p; p++)
            buf_append_byte(b, (uint8_t)tolower((unsigned char)*p));
        buf_append_byte(b, '(');
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (i)
                buf_append_byte(b, ',');
            expr_print(b, e->args[i]);
        }
        buf_append_byte(b, ')');
        break;
    default:
        buf_append(b, e->src, e->src_len);
        break;
    }
}

static int out_of_range(sql_eval_ctx_t *ctx, const sql_expr_t *e, bool is_unsigned)
{
    buf_t b;
    buf_init(&b);
    expr_print(&b, e);
    buf_append_byte(&b, 0);
    int r = diag_error(ctx->diag, ER_DATA_OUT_OF_RANGE, is_unsigned ? "BIGINT UNSIGNED" : "BIGINT", (char *)b.data);
    buf_free(&b);
    return r;
}

static int div_by_zero(sql_eval_ctx_t *ctx, value_t *out)
{
    if (ctx->div_zero_error)
        return diag_error(ctx->diag, ER_DIVISION_BY_ZERO);
    if (!ctx->div_zero_off)
        diag_warn(ctx->diag, ER_DIVISION_BY_ZERO);
    *out = value_null();
    return 0;
}

/* UTF-8 helpers (character semantics for non-binary strings) */
static bool is_mb(uint16_t coll) { return coll != COLL_BINARY && value_coll_mbmaxlen(coll) > 1; }

static size_t u8len(unsigned char c) { return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4; }

static size_t char_count(const value_t *v)
{
    if (!is_mb(v->coll))
        return v->s.len;
    size_t n = 0;
    for (size_t i = 0; i < v->s.len; i += u8len((unsigned char)v->s.ptr[i]))
        n++;
    return n;
}

/* byte offset of character index ci (clamped to the end) */
static size_t char_off(const value_t *v, size_t ci)
{
    if (!is_mb(v->coll))
        return MIN(ci, v->s.len);
    size_t i = 0;
    while (ci-- && i < v->s.len)
        i += u8len((unsigned char)v->s.ptr[i]);
    return MIN(i, v->s.len);
}

/* Converts any value to a string value (numbers/temporals get the default collation). */
static value_t to_str(sql_eval_ctx_t *ctx, const value_t *v)
{
    if (v->type == VAL_STRING)
        return *v;
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    value_t r = value_str(s, n, COLL_DEFAULT);
    value_set_deriv(&r, COLL_DERIV_NUMERIC, true); /* a number as text gives way to every string */
    return r;
}

/* ---------------------------------------------------------------- decimals as scaled 128-bit integers */

typedef struct dec {
    i128 m;   /* mantissa */
    int s;    /* scale */
} dec_t;

static const i128 DEC_LIMIT = (i128)1000000000000000000LL * (i128)1000000000000000000LL * 100; /* 1e38 */

static bool dec_parse(const value_t *v, dec_t *d)
{
    d->m = 0;
    d->s = 0;
    if (v->type == VAL_INT) { d->m = v->i; return true; }
    if (v->type == VAL_UINT) { d->m = (i128)v->u; return true; }
    const char *p = v->s.ptr;
    size_t n = v->s.len;
    bool neg = n && *p == '-';
    bool frac = false;
    for (size_t i = neg; i < n; i++) {
        if (p[i] == '.') { frac = true; continue; }
        if (d->m >= DEC_LIMIT / 10) {
            /* trailing zeros of the fraction past what fits (12.000...0 with 38 decimals) change nothing */
            size_t k = i;
            while (frac && k < n && p[k] == '0')
                k++;
            if (k < n)
                return false;
            while (d->s > 0 && d->m % 10 == 0) { /* and so do those already read */
                d->m /= 10;
                d->s--;
            }
            break;
        }
        d->m = d->m * 10 + (p[i] - '0');
        if (frac)
            d->s++;
    }
    if (neg)
        d->m = -d->m;
    return true;
}

static i128 pow10i(int k)
{
    i128 r = 1;
    while (k-- > 0)
        r *= 10;
    return r;
}

static bool dec_rescale(dec_t *d, int s)
{
    while (d->s < s) {
        if (d->m >= DEC_LIMIT / 10 || d->m <= -DEC_LIMIT / 10)
            return false;
        d->m *= 10;
        d->s++;
    }
    return true;
}

static value_t dec_value(sql_eval_ctx_t *ctx, dec_t d)
{
    /* up to 39 significant digits, but the scale can be larger (0.000...01): size by both */
    size_t cap = (size_t)(d.s > 0 ? d.s : 0) + 48;
    char *buf = arena_alloc(ctx->arena, cap + 4);
    char *digits = arena_alloc(ctx->arena, cap);
    int nd = 0;
    bool neg = d.m < 0;
    unsigned __int128 m = neg ? (unsigned __int128)(-d.m) : (unsigned __int128)d.m;
    do {
        digits[nd++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    while (nd <= d.s)
        digits[nd++] = '0';
    size_t o = 0;
    bool allzero = true;
    for (int i = 0; i < nd; i++)
        if (digits[i] != '0')
            allzero = false;
    if (neg && !allzero)
        buf[o++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        buf[o++] = digits[i];
        if (i == d.s && d.s > 0)
            buf[o++] = '.';
    }
    buf[o] = 0;
    return value_decimal(ctx->arena, buf, o);
}

/* ---------------------------------------------------------------- arithmetic */

typedef enum { K_INT, K_DEC, K_DBL } num_kind_t;

static num_kind_t num_kind(const value_t *v)
{
    switch (v->type) {
    case VAL_INT: case VAL_UINT: return K_INT;
    case VAL_DECIMAL: return K_DEC;
    case VAL_DATE: case VAL_DATETIME: case VAL_TIMESTAMP: case VAL_TIME: return v->t.usec || v->dec ? K_DEC : K_INT;
    case VAL_STRING: return v->dec == VAL_DEC_ENUM ? K_INT : K_DBL; /* an ENUM / SET: its index / mask */
    default: return K_DBL; /* strings and doubles */
    }
}

/* A hex or bit literal (0x41, X'41', b'101', 0b101) is a number in arithmetic: its bytes big-endian. */
void sql_eval_hex_as_number(const sql_expr_t *e, value_t *v)
{
    if (e->kind != SQL_E_LITERAL || v->type != VAL_STRING || v->coll != COLL_BINARY || !e->src || e->src_len < 2)
        return;
    char c0 = e->src[0], c1 = (char)tolower((unsigned char)e->src[1]);
    bool hex = (c0 == '0' && (c1 == 'x' || c1 == 'b')) || ((c0 == 'x' || c0 == 'X' || c0 == 'b' || c0 == 'B') && c1 == '\'');
    if (!hex)
        return;
    uint64_t u = 0;
    for (size_t i = 0; i < v->s.len; i++)
        u = u << 8 | (unsigned char)v->s.ptr[i];
    *v = value_uint(u);
}

/* A user variable read that holds a DECIMAL: MariaDB gives it 38 decimals in arithmetic (SELECT @s shows the
 * value's own). */
static bool uservar_decimal(const sql_expr_t *arg, const value_t *v)
{
    return arg && arg->kind == SQL_E_USERVAR && v->type == VAL_DECIMAL;
}

/* A DECIMAL result whose text has fewer decimals than its display scale (dec) gets zeros appended. */
static void dec_pad(sql_eval_ctx_t *ctx, value_t *v)
{
    int scale = value_decimal_scale(v->s.ptr, v->s.len);
    if (v->type != VAL_DECIMAL || v->dec <= scale || v->dec > 38)
        return;
    char *t = arena_alloc(ctx->arena, v->s.len + v->dec + 2);
    memcpy(t, v->s.ptr, v->s.len);
    size_t n = v->s.len;
    if (scale == 0)
        t[n++] = '.';
    for (int i = scale; i < v->dec; i++)
        t[n++] = '0';
    t[n] = 0;
    v->s.ptr = t;
    v->s.len = n;
}

static int arith(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, const value_t *b, value_t *out)
{
    sql_op_t op = e->op;
    num_kind_t ka = num_kind(a), kb = num_kind(b);
    num_kind_t k = ka == K_DBL || kb == K_DBL ? K_DBL : ka == K_DEC || kb == K_DEC ? K_DEC : K_INT;
    if (op == SQL_OP_DIV && k == K_INT)
        k = K_DEC;
    if (op == SQL_OP_IDIV) {
        /* integer division: computed in the operands' type, then truncated to integer */
        value_t q;
        sql_expr_t tmp = *e;
        tmp.op = SQL_OP_DIV;
        if (k == K_INT) {
            bool ua = a->type == VAL_UINT || b->type == VAL_UINT;
            int64_t x = value_to_int(a, ctx->diag), y = value_to_int(b, ctx->diag);
            if (y == 0)
                return div_by_zero(ctx, out);
            if (ua) {
                uint64_t ux = a->type == VAL_UINT ? a->u : (uint64_t)x, uy = b->type == VAL_UINT ? b->u : (uint64_t)y;
                if ((a->type == VAL_INT && x < 0) || (b->type == VAL_INT && y < 0)) {
                    i128 r = (i128)(a->type == VAL_UINT ? (i128)ux : x) / (b->type == VAL_UINT ? (i128)uy : y);
                    if (r < 0)
                        return out_of_range(ctx, e, true);
                    *out = value_uint((uint64_t)r);
                } else {
                    *out = value_uint(ux / uy);
                }
                return 0;
            }
            if (x == INT64_MIN && y == -1)
                return out_of_range(ctx, e, false);
            *out = value_int(x / y);
            return 0;
        }
        int rc = arith(ctx, &tmp, a, b, &q);
        if (rc || q.type == VAL_NULL) {
            *out = q;
            return rc;
        }
        double dq = value_to_double(&q, NULL);
        dq = trunc(dq);
        if (dq >= 9223372036854775808.0 || dq < -9223372036854775808.0)
            return out_of_range(ctx, e, false);
        *out = value_int((int64_t)dq);
        return 0;
    }
    if (k == K_INT) {
        bool ua = a->type == VAL_UINT, ub = b->type == VAL_UINT;
        i128 x = ua ? (i128)a->u : (i128)value_to_int(a, NULL);
        i128 y = ub ? (i128)b->u : (i128)value_to_int(b, NULL);
        i128 r;
        switch (op) {
        case SQL_OP_ADD: r = x + y; break;
        case SQL_OP_SUB: r = x - y; break;
        case SQL_OP_MUL: /* |x|,|y| < 2^64: the product can exceed i128 (2^127) */
            if (__builtin_mul_overflow(x, y, &r))
                return out_of_range(ctx, e, ua || ub);
            break;
        case SQL_OP_MOD:
            if (y == 0)
                return div_by_zero(ctx, out);
            r = x % y;
            break;
        default: return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "operator");
        }
        if (ua || ub) {
            /* MySQL: unsigned if either operand is unsigned; MOD keeps the sign of the first */
            if (op == SQL_OP_MOD && !ua) {
                if (r < INT64_MIN || r > INT64_MAX)
                    return out_of_range(ctx, e, false);
                *out = value_int((int64_t)r);
                return 0;
            }
            if (r < 0 || r > (i128)UINT64_MAX)
                return out_of_range(ctx, e, true);
            *out = value_uint((uint64_t)r);
            return 0;
        }
        if (r < INT64_MIN || r > INT64_MAX)
            return out_of_range(ctx, e, false);
        *out = value_int((int64_t)r);
        return 0;
    }
    if (k == K_DEC) {
        value_t da = value_to_decimal(ctx->arena, a, ctx->diag), db = value_to_decimal(ctx->arena, b, ctx->diag);
        dec_t x, y, r;
        if (!dec_parse(&da, &x) || !dec_parse(&db, &y))
            goto as_double;
        switch (op) {
        case SQL_OP_ADD:
        case SQL_OP_SUB: {
            int s = MAX(x.s, y.s);
            if (!dec_rescale(&x, s) || !dec_rescale(&y, s))
                goto as_double;
            r.m = op == SQL_OP_ADD ? x.m + y.m : x.m - y.m;
            r.s = s;
            break;
        }
        case SQL_OP_MUL: {
            r.s = x.s + y.s;
            /* overflow check through doubles' magnitude */
            double mag = fabs((double)x.m) * fabs((double)y.m);
            if (mag >= 1e37 || r.s > 38)
                goto as_double;
            r.m = x.m * y.m;
            break;
        }
        case SQL_OP_DIV: {
            if (y.m == 0)
                return div_by_zero(ctx, out);
            int inc = (int)ctx->div_precision_increment;
            r.s = MIN((x.s + inc + 8) / 9 * 9, 36);
            /* r.m = round(x.m * 10^(r.s - x.s + y.s) / y.m) */
            int sh = r.s - x.s + y.s;
            if (sh > 36 || fabs((double)x.m) * pow(10, sh) >= 1e37)
                goto as_double;
            i128 num = x.m * pow10i(sh);
            i128 q = num / y.m, rem = num % y.m;
            if (rem < 0)
                rem = -rem;
            i128 ay = y.m < 0 ? -y.m : y.m;
            if (rem * 2 >= ay)
                q += ((num < 0) != (y.m < 0)) ? -1 : 1;
            r.m = q;
            break;
        }
        case SQL_OP_MOD: {
            if (y.m == 0)
                return div_by_zero(ctx, out);
            int s = MAX(x.s, y.s);
            if (!dec_rescale(&x, s) || !dec_rescale(&y, s))
                goto as_double;
            r.m = x.m % y.m;
            r.s = s;
            break;
        }
        default: return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "operator");
        }
        if (r.m >= DEC_LIMIT || r.m <= -DEC_LIMIT)
            goto as_double;
        *out = dec_value(ctx, r);
        /* display scale (what is sent) vs the kept digits: MariaDB keeps division results to whole 9-digit
         * groups internally, so 1/3*3 is 1.0000, not 0.9999 */
        {
            /* a DECIMAL user variable counts with MariaDB's 38 decimals (its item's scale is DECIMAL_MAX_SCALE) */
            int sa = uservar_decimal(e->args[0], a) ? 38 : da.dec, sb = uservar_decimal(e->args[1], b) ? 38 : db.dec;
            int disp;
            switch (op) {
            case SQL_OP_MUL: disp = sa + sb; break;
            case SQL_OP_DIV: disp = sa + (int)ctx->div_precision_increment; break;
            default: disp = MAX(sa, sb); break;
            }
            out->dec = (uint8_t)MIN(disp, 38);
            dec_pad(ctx, out);
        }
        return 0;
    }
as_double: {
        double x = value_to_double(a, ctx->diag), y = value_to_double(b, ctx->diag), r;
        switch (op) {
        case SQL_OP_ADD: r = x + y; break;
        case SQL_OP_SUB: r = x - y; break;
        case SQL_OP_MUL: r = x * y; break;
        case SQL_OP_DIV:
            if (y == 0)
                return div_by_zero(ctx, out);
            r = x / y;
            break;
        case SQL_OP_MOD:
            if (y == 0)
                return div_by_zero(ctx, out);
            r = fmod(x, y);
            break;
        default: return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "operator");
        }
        if (isinf(r) || isnan(r)) {
            buf_t bb;
            buf_init(&bb);
            expr_print(&bb, e);
            buf_append_byte(&bb, 0);
            int rc = diag_error(ctx->diag, ER_DATA_OUT_OF_RANGE, "DOUBLE", (char *)bb.data);
            buf_free(&bb);
            return rc;
        }
        *out = value_double(r);
        return 0;
    }
}

/* ---------------------------------------------------------------- collation derivation */

/*
 * Every operation that takes several strings (comparisons, CONCAT, CASE, IN, LIKE, ...) first brings them to one
 * collation by MySQL's coercibility table (collation.h, coll_aggregate): each operand's value carries its
 * collation and coercibility (value_t.deriv, set where values are made: literals COERCIBLE, columns IMPLICIT,
 * COLLATE EXPLICIT, USER() SYSCONST, ...), the operands are aggregated, 1267 / 1270 / 1271 are raised with
 * MariaDB's operation name when they do not aggregate, and strings of another character set are converted to
 * the winner's.  Function results carry the aggregate's collation and coercibility on (coll_stamp).
 */

/* What an operand brings to an aggregation: numbers and temporals are NUMERIC (ASCII), NULL IGNORABLE. */
static coll_dt_t value_dt(const value_t *v)
{
    if (v->type == VAL_NULL && (v->deriv & 0x7F)) /* the NULL of a string function: its collation (coll_stamp) */
        return (coll_dt_t){.coll = v->coll, .deriv = (uint8_t)value_deriv(v), .ascii = value_deriv_ascii(v)};
    if (v->type == VAL_NULL)
        return (coll_dt_t){.coll = COLL_BINARY, .deriv = COLL_DERIV_IGNORABLE, .ascii = true};
    if (v->type != VAL_STRING)
        return (coll_dt_t){.coll = COLL_LATIN1_SWEDISH_CI, .deriv = COLL_DERIV_NUMERIC, .ascii = true};
    int d = value_deriv(v);
    return (coll_dt_t){.coll = v->coll, .deriv = (uint8_t)d,
                       .ascii = value_deriv_ascii(v) || d == COLL_DERIV_NUMERIC || v->coll == COLL_ASCII_GENERAL_CI};
}

static bool bytes_ascii(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] >= 0x80)
            return false;
    return true;
}

/* A string made by the statement's text (a literal, a ?): COERCIBLE, ASCII when its bytes are. */
static void mark_coercible(value_t *v)
{
    if (v->type == VAL_STRING)
        value_set_deriv(v, COLL_DERIV_COERCIBLE, bytes_ascii(v->s.ptr, v->s.len));
}

static int coll_error(sql_eval_ctx_t *ctx, const char *op, const coll_dt_t *d, uint32_t n)
{
#define COLL_ARG(i) value_coll_name(d[i].coll), coll_deriv_name((coll_deriv_t)d[i].deriv)
    if (n == 2)
        return diag_error(ctx->diag, ER_CANT_AGGREGATE_2COLLATIONS, COLL_ARG(0), COLL_ARG(1), op);
    if (n == 3)
        return diag_error(ctx->diag, ER_CANT_AGGREGATE_3COLLATIONS, COLL_ARG(0), COLL_ARG(1), COLL_ARG(2), op);
#undef COLL_ARG
    return diag_error(ctx->diag, ER_CANT_AGGREGATE_NCOLLATIONS, op);
}

/* v in collation `coll`: the bytes converted when the character sets differ (binary on either side: the bytes
 * as they are).  False, v unchanged, when a character does not fit. */
static bool str_to_coll(sql_eval_ctx_t *ctx, value_t *v, uint16_t coll)
{
    if (v->type != VAL_STRING || v->coll == coll)
        return true;
    if (v->coll != COLL_BINARY && coll != COLL_BINARY &&
        strcmp(value_coll_charset(v->coll), value_coll_charset(coll)) != 0) {
        size_t n, bad;
        const char *cv = sql_str_convert(ctx->arena, v->s.ptr, v->s.len, v->coll, coll, &n, &bad);
        if (bad != SIZE_MAX)
            return false;
        v->s.ptr = cv;
        v->s.len = n;
    }
    v->coll = coll;
    return true;
}

/*
 * Brings the operands vs[0..n) to one collation: aggregates their collations under `flags`, raises 1267 / 1270 /
 * 1271 for operation `op`, and converts every string among vs to the result (*out).  Non-strings are left
 * alone (they take part as NUMERIC / IGNORABLE).
 */
static int coll_unify(sql_eval_ctx_t *ctx, const char *op, value_t *vs, uint32_t n, unsigned flags, coll_dt_t *out)
{
    coll_dt_t stack[8] = {{0}}, *dts = n <= 8 ? stack : arena_alloc(ctx->arena, n * sizeof *dts);
    for (uint32_t i = 0; i < n; i++)
        dts[i] = value_dt(&vs[i]);
    if (!coll_aggregate(dts, n, flags, ctx->conn_coll, out))
        return coll_error(ctx, op, dts, n);
    for (uint32_t i = 0; i < n; i++)
        if (!str_to_coll(ctx, &vs[i], out->coll))
            return coll_error(ctx, op, dts, n);
    return 0;
}

/* A function's string result takes the aggregate's collation (its bytes are in that charset already) and
 * coercibility; so does its NULL, which COLLATION() and later aggregations still see (MariaDB types it so). */
static void coll_stamp(value_t *out, const coll_dt_t *dt)
{
    if (out->type != VAL_STRING && out->type != VAL_NULL)
        return;
    if (out->coll != COLL_BINARY || dt->coll == COLL_BINARY)
        out->coll = dt->coll;
    value_set_deriv(out, dt->deriv, dt->ascii);
}

int sql_coll_of_cmp(uint16_t col_coll, const value_t *v)
{
    coll_dt_t d[2] = {{.coll = col_coll, .deriv = COLL_DERIV_IMPLICIT, .ascii = col_coll == COLL_ASCII_GENERAL_CI},
                      value_dt(v)}, out;
    return coll_aggregate(d, 2, COLL_AGG_FOR_CMP, 0, &out) ? out.coll : -1;
}

int sql_eval_coll_cmp(sql_eval_ctx_t *ctx, const char *op, value_t *a, value_t *b)
{
    if (a->type != VAL_STRING || b->type != VAL_STRING)
        return 0;
    value_t vs[2] = {*a, *b};
    coll_dt_t dt;
    int rc = coll_unify(ctx, op, vs, 2, COLL_AGG_FOR_CMP, &dt);
    *a = vs[0];
    *b = vs[1];
    return rc;
}

/*
 * The collation an expression would bring without evaluating it, for the branches of CASE / IF / COALESCE
 * that are not taken (MariaDB aggregates all branches before it reads a row): literals, NULL, the current
 * row's columns, COLLATE and CONVERT ... USING over those.  False when it cannot be known without evaluating.
 */
static bool expr_static_dt(sql_eval_ctx_t *ctx, const sql_expr_t *e, coll_dt_t *dt)
{
    switch (e->kind) {
    case SQL_E_LITERAL: {
        value_t v = e->lit;
        if (v.type == VAL_STRING) {
            if (e->lit_conn && ctx->conn_coll)
                v.coll = ctx->conn_coll;
            mark_coercible(&v);
        }
        *dt = value_dt(&v);
        return true;
    }
    case SQL_E_COLUMN:
        if (e->slot < 0 || !ctx->row || ctx->row[e->slot].type == VAL_NULL)
            return false;
        *dt = value_dt(&ctx->row[e->slot]);
        return true;
    case SQL_E_COLLATE: case SQL_E_CONVERT_USING:
        if (e->cast.coll < 0)
            return false;
        *dt = (coll_dt_t){.coll = (uint16_t)e->cast.coll,
                          .deriv = e->kind == SQL_E_COLLATE ? COLL_DERIV_EXPLICIT : COLL_DERIV_IMPLICIT};
        return true;
    case SQL_E_FUNC: {
        /* the functions whose result's collation follows from their string arguments' (functions.def) */
        const sql_fn_coll_t *r = &sql_fn_defs[e->func.fn].coll;
        if (r->kind == SQL_FN_COLL_SYSCONST) {
            *dt = (coll_dt_t){.coll = COLL_UTF8MB3_GENERAL_CI, .deriv = COLL_DERIV_SYSCONST};
            return true;
        }
        if (r->kind == SQL_FN_COLL_NONE || r->kind == SQL_FN_COLL_CMP)
            return false;
        uint32_t first = r->first, step = r->step, max = r->max;
        coll_dt_t ds[8];
        uint32_t k = 0;
        for (uint32_t i = first; i < e->nargs && (!max || k < max) && k < 8; i += step)
            if (!expr_static_dt(ctx, e->args[i], &ds[k++]))
                return false;
        return k && coll_aggregate(ds, k, COLL_AGG_FOR_RESULT, ctx->conn_coll, dt);
    }
    default:
        return false;
    }
}

/*
 * The value of the branch taken (`taken` of branches[0..n)) in the collation of all the branches, as CASE,
 * IF, IFNULL and COALESCE give it (`op` names the function in 1267).  Branches whose collation is unknown
 * without evaluating them are left out.
 */
static int coll_branches(sql_eval_ctx_t *ctx, const char *op, const sql_expr_t *const *branches, uint32_t n,
                         int taken, value_t *out)
{
    if (n < 2)
        return 0;
    coll_dt_t stack[8] = {{0}}, *dts = n <= 8 ? stack : arena_alloc(ctx->arena, n * sizeof *dts);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if ((int)i == taken) {
            dts[k++] = value_dt(out);
        } else if (branches[i] && expr_static_dt(ctx, branches[i], &dts[k])) {
            k++;
        }
    }
    bool any_str = false;
    for (uint32_t i = 0; i < k; i++)
        any_str |= dts[i].deriv < COLL_DERIV_NUMERIC;
    if (!any_str) { /* numbers and NULLs: not a string CASE; its NULL is a number's */
        bool any_num = false;
        for (uint32_t i = 0; i < k; i++)
            any_num |= dts[i].deriv == COLL_DERIV_NUMERIC;
        if (out->type == VAL_NULL && any_num) {
            out->coll = COLL_BINARY;
            value_set_deriv(out, COLL_DERIV_NUMERIC, true);
        }
        return 0;
    }
    coll_dt_t dt;
    if (!coll_aggregate(dts, k, COLL_AGG_FOR_RESULT, ctx->conn_coll, &dt))
        return coll_error(ctx, op, dts, k);
    for (uint32_t i = 0; i < n; i++) {
        /* a literal branch not taken must still fit the result's character set */
        value_t lit;
        if ((int)i != taken && branches[i] && branches[i]->kind == SQL_E_LITERAL &&
            branches[i]->lit.type == VAL_STRING && sql_expr_eval(ctx, branches[i], &lit) == 0 &&
            !str_to_coll(ctx, &lit, dt.coll))
            return coll_error(ctx, op, dts, k);
    }
    if (out->type != VAL_STRING && out->type != VAL_NULL)
        *out = to_str(ctx, out); /* a number in a string CASE is a string */
    if (!str_to_coll(ctx, out, dt.coll))
        return coll_error(ctx, op, dts, k);
    coll_stamp(out, &dt);
    return 0;
}

/* Aggregates a function's arguments a[] by its row's collation rule (converting the strings among them); *dt
 * is the result's collation.  Returns 1 when the result takes no collation from the rule (compared arguments,
 * numbers). */
static int coll_fn_args(sql_eval_ctx_t *ctx, const sql_fn_coll_t *r, value_t *a, uint32_t nargs, coll_dt_t *dt)
{
    value_t stack[8], *vs = nargs <= 8 ? stack : arena_alloc(ctx->arena, nargs * sizeof *vs);
    uint32_t n = 0;
    bool all_str = true, cmp = r->kind == SQL_FN_COLL_CMP;
    for (uint32_t i = r->first; i < nargs && (!r->max || n < r->max); i += r->step) {
        vs[n++] = a[i];
        all_str &= a[i].type == VAL_STRING || a[i].type == VAL_NULL;
    }
    if (!n || (cmp && (n < 2 || !all_str)) || (r->kind == SQL_FN_COLL_STRINGS && !all_str))
        return 1; /* compared as numbers / temporals */
    unsigned flags = cmp ? COLL_AGG_FOR_CMP
                         : COLL_AGG_FOR_RESULT | (r->kind == SQL_FN_COLL_STRICT ? COLL_AGG_DISALLOW_NONE : 0);
    int rc = coll_unify(ctx, r->op, vs, n, flags, dt);
    if (rc)
        return rc;
    n = 0;
    for (uint32_t i = r->first; i < nargs && (!r->max || n < r->max); i += r->step)
        a[i] = vs[n++];
    return cmp ? 1 : 0;
}

/* ---------------------------------------------------------------- LIKE */

bool sql_like_match(uint16_t coll, const char *s, size_t sn, const char *p, size_t pn, int esc)
{
    coll_kind_t kind = coll_kind_of(coll);
    const uint8_t *bw = coll_byte_weights(kind);
    bool mb = is_mb(coll);
    size_t si = 0, pi = 0;
    size_t star_p = (size_t)-1, star_s = 0;
    while (si < sn) {
        if (pi < pn) {
            unsigned char pc = (unsigned char)p[pi];
            if (pc == '%') {
                star_p = ++pi;
                star_s = si;
                continue;
            }
            size_t plen = mb ? u8len(pc) : 1, slen = mb ? u8len((unsigned char)s[si]) : 1;
            if (pc == '_') {
                pi++;
                si += slen;
                continue;
            }
            size_t lit = pi;
            if ((int)pc == esc && pi + 1 < pn) {
                lit = pi + 1;
                plen = mb ? u8len((unsigned char)p[lit]) : 1;
            }
            bool eq;
            if (plen == 1 && slen == 1 && kind != COLL_KIND_UCA) {
                eq = bw[(unsigned char)p[lit]] == bw[(unsigned char)s[si]];
            } else if (kind == COLL_KIND_UCA) {
                /* a character matches one of equal weights (MariaDB compares code point by code point here: ß
                 * does not match "ss", and no contraction is formed) */
                const coll_uca_t *u = coll_uca_of(coll);
                size_t pe = lit, se = si;
                uint32_t wp[8], ws[8];
                uint32_t np = coll_uca_char(u, (const unsigned char *)p, pn, &pe, wp);
                uint32_t ns = coll_uca_char(u, (const unsigned char *)s, sn, &se, ws);
                eq = np == ns && memcmp(wp, ws, np * sizeof wp[0]) == 0;
                plen = pe - lit;
                slen = se - si;
            } else if (kind == COLL_KIND_UTF8_GENERAL) {
                /* characters match when their weights do (é matches E), whatever their lengths */
                size_t pe = lit, se = si;
                eq = coll_weight_next(kind, bw, (const unsigned char *)p, pn, &pe) ==
                     coll_weight_next(kind, bw, (const unsigned char *)s, sn, &se);
                plen = pe - lit;
                slen = se - si;
            } else {
                eq = plen == slen && lit + plen <= pn && si + slen <= sn && memcmp(p + lit, s + si, plen) == 0;
            }
            if (eq) {
                pi = lit + plen;
                si += slen;
                continue;
            }
        }
        if (star_p != (size_t)-1) {
            star_s += mb ? u8len((unsigned char)s[star_s]) : 1;
            si = star_s;
            pi = star_p;
            continue;
        }
        return false;
    }
    while (pi < pn && p[pi] == '%')
        pi++;
    return pi == pn;
}

/* ---------------------------------------------------------------- time */

static void time_from_epoch(int64_t sec, uint32_t usec, value_t *out)
{
    time_t t = (time_t)sec;
    struct tm tm;
    gmtime_r(&t, &tm);
    memset(out, 0, sizeof *out);
    out->type = VAL_DATETIME;
    out->t.year = (uint32_t)tm.tm_year + 1900;
    out->t.month = (uint32_t)tm.tm_mon + 1;
    out->t.day = (uint32_t)tm.tm_mday;
    out->t.hour = (uint32_t)tm.tm_hour;
    out->t.minute = (uint32_t)tm.tm_min;
    out->t.second = (uint32_t)tm.tm_sec;
    out->t.usec = usec;
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

static int fsp_arg(sql_eval_ctx_t *ctx, const sql_expr_t *e, int *fsp)
{
    *fsp = 0;
    if (e->nargs < 1)
        return 0;
    value_t v;
    int rc = sql_expr_eval(ctx, e->args[0], &v);
    if (rc)
        return rc;
    int64_t f = value_to_int(&v, NULL);
    if (f < 0 || f > 6) {
        return diag_error(ctx->diag, ER_TOO_BIG_PRECISION, (unsigned long long)f, e->func.name, 6u);
    }
    *fsp = (int)f;
    return 0;
}

static void now_value(sql_eval_ctx_t *ctx, uint64_t us, int fsp, value_t *out)
{
    int64_t local = (int64_t)(us / 1000000) + ctx->tz_offset_sec;
    uint32_t usec = (uint32_t)(us % 1000000);
    static const uint32_t div[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
    usec = usec / div[fsp] * div[fsp];
    time_from_epoch(local, fsp ? usec : 0, out);
    out->dec = (uint8_t)fsp;
}

/* ---------------------------------------------------------------- functions */

static value_t str_result(sql_eval_ctx_t *ctx, const char *p, size_t n, uint16_t coll)
{
    return value_str(p, n, coll);
}

static uint16_t result_coll(const value_t *vals, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (vals[i].type == VAL_STRING && vals[i].coll == COLL_BINARY)
            return COLL_BINARY;
    /* latin1 next to UTF-8: the result is UTF-8 (the superset; MySQL converts the other arguments) */
    for (uint32_t i = 0; i < n; i++)
        if (vals[i].type == VAL_STRING && value_coll_mbmaxlen(vals[i].coll) > 1)
            return vals[i].coll;
    for (uint32_t i = 0; i < n; i++)
        if (vals[i].type == VAL_STRING)
            return vals[i].coll;
    return COLL_DEFAULT;
}

/* An argument as a string in the result's character set (CONCAT of a latin1 and a utf8mb4 string). */
static value_t to_str_in(sql_eval_ctx_t *ctx, const value_t *v, uint16_t coll)
{
    value_t s = to_str(ctx, v);
    if (coll != COLL_BINARY && s.coll != COLL_BINARY && s.coll != coll &&
        value_coll_mbmaxlen(s.coll) != value_coll_mbmaxlen(coll)) {
        size_t n, bad;
        s.s.ptr = sql_str_convert(ctx->arena, s.s.ptr, s.s.len, s.coll, coll, &n, &bad);
        s.s.len = n;
        s.coll = coll;
    }
    return s;
}

static uint64_t rand_next(sql_eval_ctx_t *ctx, double *r)
{
    const uint64_t max = 0x3FFFFFFFUL;
    ctx->rand_seed1 = (ctx->rand_seed1 * 3 + ctx->rand_seed2) % max;
    ctx->rand_seed2 = (ctx->rand_seed1 + ctx->rand_seed2 + 33) % max;
    *r = (double)ctx->rand_seed1 / (double)max;
    return 0;
}

static int session(sql_eval_ctx_t *ctx, sql_session_fn_t fn, value_t *out)
{
    int rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->session_fn : NULL, "session function");
    if (rc)
        return rc;
    if ((rc = ctx->cb->session_fn(ctx->user, fn, out)) == 0 && out->type == VAL_STRING)
        value_set_deriv(out, COLL_DERIV_SYSCONST, false); /* USER(), DATABASE(), VERSION() */
    return rc;
}

/* ROUND/TRUNCATE of a decimal to d places */
static value_t dec_round(sql_eval_ctx_t *ctx, const value_t *v, int64_t d, bool truncate)
{
    dec_t x;
    if (!dec_parse(v, &x))
        return value_double(truncate ? trunc(value_to_double(v, NULL)) : round(value_to_double(v, NULL)));
    int target = (int)MAX(MIN(d, 38), -38);
    if (target >= x.s) {
        if (target > x.s && !dec_rescale(&x, MIN(target, 30)))
            return *v;
        return dec_value(ctx, x);
    }
    int drop = x.s - target;
    if (drop > 38)
        drop = 38;
    i128 p = pow10i(drop);
    i128 q = x.m / p, rem = x.m % p;
    if (!truncate) {
        i128 ar = rem < 0 ? -rem : rem;
        if (ar * 2 >= p)
            q += x.m < 0 ? -1 : 1;
    }
    dec_t r = {q, target};
    if (target < 0) {
        r.m = q * pow10i(-target);
        r.s = 0;
    }
    return dec_value(ctx, r);
}

/*
 * GET_LOCK(name, timeout) and the other user-level lock functions, MariaDB 10.11's argument rules: a NULL or
 * empty name gives NULL; a name that is not a string is 4079; longer than 192 bytes 1059 (quoted up to 97 bytes
 * and "..."); a NULL or negative timeout gives NULL with warning 1411.  The session holds the locks.
 */
static int eval_user_lock(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    diag_t *d = ctx->diag;
    const char *name = NULL;
    size_t len = 0;
    *out = value_null();
    if (fn != SQL_FN_RELEASE_ALL_LOCKS) {
        const value_t *n = &a[0];
        char op[32];
        snprintf(op, sizeof op, "%s", e->func.name);
        for (char *p = op; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        switch (n->type) {
        case VAL_NULL:
            return 0;
        case VAL_INT: case VAL_UINT:
            return sql_error_param_type(d, (n->type == VAL_INT ? n->i >= INT32_MIN && n->i <= INT32_MAX : n->u <= INT32_MAX)
                                               ? "int" : "bigint", op);
        case VAL_DOUBLE:
            return sql_error_param_type(d, "double", op);
        case VAL_DECIMAL:
            return sql_error_param_type(d, "decimal", op);
        case VAL_DATE:
            return sql_error_param_type(d, "date", op);
        case VAL_DATETIME:
            return sql_error_param_type(d, "datetime", op);
        case VAL_TIMESTAMP:
            return sql_error_param_type(d, "timestamp", op);
        case VAL_TIME:
            return sql_error_param_type(d, "time", op);
        default:
            break;
        }
        name = n->s.ptr;
        len = n->s.len;
        if (len == 0)
            return 0;
        if (len > 192) {
            size_t cut = 97; /* MariaDB's %-.100T: 97 bytes, whole characters, then "..." */
            while (cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80)
                cut--;
            char msg[128];
            snprintf(msg, sizeof msg, "%.*s...", (int)cut, name);
            return diag_error(d, ER_TOO_LONG_IDENT, msg);
        }
    }
    double timeout = 0;
    if (fn == SQL_FN_GET_LOCK) {
        if (a[1].type == VAL_NULL || (timeout = value_to_double(&a[1], d)) < 0) {
            size_t tl;
            const char *t = a[1].type == VAL_NULL ? "NULL" : value_to_text(ctx->arena, &a[1], &tl);
            diag_warn(d, ER_WRONG_VALUE_FOR_TYPE, "timeout", t, "get_lock");
            return 0;
        }
    }
    int rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->user_lock : NULL, "user-level locks");
    if (rc)
        return rc;
    return ctx->cb->user_lock(ctx->user, fn, name, len, timeout, out, d);
}

/* A name that is no function: "FUNCTION db.name does not exist", the name as written, qualified by the
 * current database. */
int sql_eval_unknown_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    (void)args;
    (void)any_null;
    if (ctx->cb && ctx->cb->stored_fn) {
        /* a stored function: its arguments evaluated here (the row is lazy so that 1305 comes first) */
        value_t *a = arena_alloc(ctx->arena, sizeof(value_t) * (e->nargs + 1));
        for (uint32_t i = 0; i < e->nargs; i++) {
            int rc = sql_expr_eval(ctx, e->args[i], &a[i]);
            if (rc)
                return rc;
        }
        int rc = ctx->cb->stored_fn(ctx->user, e, a, e->nargs, ctx->arena, false, out, ctx->diag);
        if (rc != 1)
            return rc;
    }
    const char *nm = e->func.name;
    if (e->src && e->src_len) {
        size_t l = 0;
        while (l < e->src_len && e->src[l] != '(' && e->src[l] != ' ')
            l++;
        nm = arena_strndup(ctx->arena, e->src, l);
    }
    value_t db = value_null();
    if (!strchr(nm, '.') && ctx->cb && ctx->cb->session_fn)
        ctx->cb->session_fn(ctx->user, SQL_SFN_DATABASE, &db);
    if (db.type == VAL_STRING)
        nm = arena_printf(ctx->arena, "%.*s.%s", (int)db.s.len, db.s.ptr, nm);
    return sql_error_no_function(ctx->diag, nm);
}

/* IF, IFNULL, COALESCE: only the branch taken is evaluated; the result in the collation of all branches. */
int sql_eval_control_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    int rc = 0;
    switch (fn) {
    case SQL_FN_IF: {
        value_t c;
        if ((rc = sql_expr_eval(ctx, e->args[0], &c)))
            return rc;
        bool t = c.type != VAL_NULL && value_to_bool(&c, ctx->diag);
        if ((rc = sql_expr_eval(ctx, e->args[t ? 1 : 2], out)))
            return rc;
        return coll_branches(ctx, "if", (const sql_expr_t *const *)e->args + 1, 2, t ? 0 : 1, out);
    }
    case SQL_FN_IFNULL:
    case SQL_FN_COALESCE:
        for (uint32_t i = 0; i < e->nargs; i++) {
            if ((rc = sql_expr_eval(ctx, e->args[i], out)))
                return rc;
            if (out->type != VAL_NULL)
                return coll_branches(ctx, fn == SQL_FN_IFNULL ? "ifnull" : "coalesce",
                                     (const sql_expr_t *const *)e->args, e->nargs, (int)i, out);
        }
        *out = value_null();
        return 0;
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* RAND([seed]): MySQL's generator, seeded per statement or by the argument. */
int sql_eval_rand_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    if (e->func.fn != SQL_FN_RAND)
        return sql_fn_unrouted(ctx, e);
    if (e->nargs == 1) {
        value_t s;
        int rc;
        if ((rc = sql_expr_eval(ctx, e->args[0], &s)))
            return rc;
        uint64_t seed = (uint64_t)value_to_int(&s, ctx->diag);
        ctx->rand_seed1 = (uint32_t)(seed * 0x10001 + 55555555) % 0x3FFFFFFFUL;
        ctx->rand_seed2 = (uint32_t)(seed * 0x10000001) % 0x3FFFFFFFUL;
    }
    double r;
    rand_next(ctx, &r);
    *out = value_double(r);
    return 0;
}

/* NOW() and the other clocks: the statement's time (SYSDATE: the wall clock), fsp from the argument. */
int sql_eval_clock_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    int rc = 0;
    switch (fn) {
    case SQL_FN_NOW: case SQL_FN_CURRENT_TIMESTAMP: case SQL_FN_LOCALTIME: case SQL_FN_LOCALTIMESTAMP:
    case SQL_FN_SYSDATE: case SQL_FN_UTC_TIMESTAMP: {
        int fsp;
        if ((rc = fsp_arg(ctx, e, &fsp)))
            return rc;
        uint64_t us = fn == SQL_FN_SYSDATE ? time_wall_us() : ctx->stmt_time_us;
        if (fn == SQL_FN_UTC_TIMESTAMP) {
            time_from_epoch((int64_t)(us / 1000000), fsp ? (uint32_t)(us % 1000000) : 0, out);
            out->dec = (uint8_t)fsp;
        } else {
            now_value(ctx, us, fsp, out);
        }
        return 0;
    }
    case SQL_FN_UTC_DATE: case SQL_FN_UTC_TIME: {
        int fsp = 0;
        if (fn == SQL_FN_UTC_TIME && (rc = fsp_arg(ctx, e, &fsp)))
            return rc;
        uint64_t us = ctx->stmt_time_us;
        static const uint32_t dv[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
        time_from_epoch((int64_t)(us / 1000000), fsp ? (uint32_t)(us % 1000000) / dv[fsp] * dv[fsp] : 0, out);
        if (fn == SQL_FN_UTC_DATE) {
            out->type = VAL_DATE;
            out->t.hour = out->t.minute = out->t.second = out->t.usec = 0;
        } else {
            out->type = VAL_TIME;
            out->t.year = out->t.month = out->t.day = 0;
            out->dec = (uint8_t)fsp;
        }
        return 0;
    }
    case SQL_FN_CURDATE: case SQL_FN_CURRENT_DATE:
        now_value(ctx, ctx->stmt_time_us, 0, out);
        out->type = VAL_DATE;
        out->t.hour = out->t.minute = out->t.second = out->t.usec = 0;
        return 0;
    case SQL_FN_CURTIME: case SQL_FN_CURRENT_TIME: {
        int fsp;
        if ((rc = fsp_arg(ctx, e, &fsp)))
            return rc;
        now_value(ctx, ctx->stmt_time_us, fsp, out);
        out->type = VAL_TIME;
        out->t.year = out->t.month = out->t.day = 0;
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* Functions whose value the session knows (through sql_eval_cb_t). */
int sql_eval_session_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    int rc = 0;
    switch (fn) {
    case SQL_FN_DATABASE: case SQL_FN_SCHEMA: return session(ctx, SQL_SFN_DATABASE, out);
    case SQL_FN_USER: case SQL_FN_SESSION_USER: case SQL_FN_SYSTEM_USER: return session(ctx, SQL_SFN_USER, out);
    case SQL_FN_CURRENT_USER: return session(ctx, SQL_SFN_CURRENT_USER, out);
    case SQL_FN_CURRENT_ROLE: return session(ctx, SQL_SFN_CURRENT_ROLE, out);
    case SQL_FN_CONNECTION_ID: return session(ctx, SQL_SFN_CONNECTION_ID, out);
    case SQL_FN_FOUND_ROWS: return session(ctx, SQL_SFN_FOUND_ROWS, out);
    case SQL_FN_ROW_COUNT: return session(ctx, SQL_SFN_ROW_COUNT, out);
    case SQL_FN_VERSION: return session(ctx, SQL_SFN_VERSION, out);
    case SQL_FN_BINLOG_GTID_POS: { /* the GTID position of a binlog file and offset (a replica asks it) */
        value_t f, p;
        if ((rc = sql_expr_eval(ctx, e->args[0], &f)) || (rc = sql_expr_eval(ctx, e->args[1], &p)))
            return rc;
        if (f.type == VAL_NULL || p.type == VAL_NULL) {
            *out = value_null();
            return 0;
        }
        if ((rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->binlog_gtid_pos : NULL, "BINLOG_GTID_POS")))
            return rc;
        size_t fl;
        const char *fs = value_to_text(ctx->arena, &f, &fl);
        int64_t pos = value_to_int(&p, ctx->diag);
        return ctx->cb->binlog_gtid_pos(ctx->user, fs, fl, pos < 0 ? UINT64_MAX : (uint64_t)pos, out);
    }
    case SQL_FN_LAST_INSERT_ID:
        if (e->nargs == 1) {
            value_t v;
            if ((rc = sql_expr_eval(ctx, e->args[0], &v)))
                return rc;
            uint64_t id = v.type == VAL_NULL ? 0 : value_to_uint(&v, ctx->diag);
            if ((rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->set_last_insert_id : NULL, "LAST_INSERT_ID(expr)")))
                return rc;
            if ((rc = ctx->cb->set_last_insert_id(ctx->user, id)))
                return rc;
            *out = value_uint(id);
            return 0;
        }
        return session(ctx, SQL_SFN_LAST_INSERT_ID, out);
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* An aggregate call: the executor drives the accumulators (exec_agg.c) and hands back the group's result. */
int sql_eval_aggregate_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    if (!(sql_fn_defs[e->func.fn].flags & SQL_FNF_AGGREGATE))
        return sql_fn_unrouted(ctx, e);
    if (ctx->cb && ctx->cb->aggregate_get)
        return ctx->cb->aggregate_get(ctx->user, e, out, ctx->diag);
    return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "aggregate functions");
}

/* VALUES(col) in ON DUPLICATE KEY UPDATE: the column's value in the row that was to be inserted. */
int sql_eval_values_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    if (e->func.fn != SQL_FN_VALUES)
        return sql_fn_unrouted(ctx, e);
    if (e->nargs != 1 || e->args[0]->kind != SQL_E_COLUMN)
        return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "VALUES() of a non-column");
    if (ctx->cb && ctx->cb->values_get)
        return ctx->cb->values_get(ctx->user, e->args[0], out, ctx->diag);
    *out = value_null();
    return 0;
}

/* A window function met outside the executor's window pass (it is computed there, over the window). */
int sql_eval_window_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    (void)e, (void)args, (void)any_null, (void)out;
    return diag_error(ctx->diag, ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION);
}

static int eval_func(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    const sql_fn_def_t *def = &sql_fn_defs[e->func.fn];
    int rc;
    if (e->over) /* the executor's window pass has the value of this call for the current row */
        return ctx->cb && ctx->cb->window_get ? ctx->cb->window_get(ctx->user, e, out, ctx->diag)
                                              : diag_error(ctx->diag, ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION);
    if ((def->flags & SQL_FNF_SESSION) && !ctx->cb) /* evaluated outside a session (a unit, a tool) */
        return need_cb(ctx, NULL, def->name);
    if (def->flags & SQL_FNF_LAZY)
        return def->eval(ctx, e, NULL, false, out);

    /* every argument evaluated, then the strings among them brought to one collation by the row's rule */
    value_t stackv[8];
    value_t *a = e->nargs <= 8 ? stackv : arena_alloc(ctx->arena, e->nargs * sizeof *a);
    bool any_null = false;
    for (uint32_t i = 0; i < e->nargs; i++) {
        if ((rc = sql_expr_eval(ctx, e->args[i], &a[i])))
            return rc;
        if (a[i].type == VAL_NULL)
            any_null = true;
    }
    coll_dt_t dt;
    int agg = def->coll.kind >= SQL_FN_COLL_RESULT ? coll_fn_args(ctx, &def->coll, a, e->nargs, &dt) : 1;
    if (agg < 0)
        return agg;
    if ((rc = def->eval(ctx, e, a, any_null, out)) != 0)
        return rc;
    if (agg == 0) {
        coll_stamp(out, &dt);
    } else if (out->type == VAL_STRING && !out->deriv) {
        /* no rule: the coercibility of the arguments (UPPER(col) is IMPLICIT, HEX(1) COERCIBLE) */
        coll_dt_t stack[8] = {{0}}, *dts = e->nargs <= 8 ? stack : arena_alloc(ctx->arena, e->nargs * sizeof *dts);
        for (uint32_t i = 0; i < e->nargs; i++)
            dts[i] = value_dt(&a[i]);
        if (!e->nargs || !coll_aggregate(dts, e->nargs, COLL_AGG_FOR_RESULT, ctx->conn_coll, &dt))
            dt = (coll_dt_t){.deriv = COLL_DERIV_COERCIBLE};
        value_set_deriv(out, dt.deriv, dt.ascii);
    }
    return 0;
}

/* String functions of evaluated arguments (functions.def rows naming sql_eval_string_fn). */
int sql_eval_string_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    int rc = 0;
    diag_t *dg = ctx->diag;
    switch (fn) { /* the functions that look at NULL arguments themselves */
    case SQL_FN_CONCAT: {
        if (any_null) { *out = value_null(); return 0; }
        buf_t b;
        buf_init(&b);
        uint16_t rc = result_coll(a, e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++) {
            value_t s = to_str_in(ctx, &a[i], rc);
            buf_append(&b, s.s.ptr, s.s.len);
        }
        char *r = arena_strndup(ctx->arena, b.data ? (char *)b.data : "", b.len);
        *out = str_result(ctx, r, b.len, rc);
        buf_free(&b);
        return 0;
    }
    case SQL_FN_CONCAT_WS: {
        if (a[0].type == VAL_NULL) { *out = value_null(); return 0; }
        uint16_t rc = result_coll(a, e->nargs);
        value_t sep = to_str_in(ctx, &a[0], rc);
        buf_t b;
        buf_init(&b);
        bool first = true;
        for (uint32_t i = 1; i < e->nargs; i++) {
            if (a[i].type == VAL_NULL)
                continue;
            if (!first)
                buf_append(&b, sep.s.ptr, sep.s.len);
            first = false;
            value_t s = to_str_in(ctx, &a[i], rc);
            buf_append(&b, s.s.ptr, s.s.len);
        }
        char *r = arena_strndup(ctx->arena, b.data ? (char *)b.data : "", b.len);
        *out = str_result(ctx, r, b.len, rc);
        buf_free(&b);
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
    case SQL_FN_LENGTH: case SQL_FN_OCTET_LENGTH: {
        value_t s = to_str(ctx, &a[0]);
        *out = value_int((int64_t)s.s.len);
        return 0;
    }
    case SQL_FN_CHAR_LENGTH: case SQL_FN_CHARACTER_LENGTH: {
        value_t s = to_str(ctx, &a[0]);
        *out = value_int((int64_t)char_count(&s));
        return 0;
    }
    case SQL_FN_SUBSTRING: case SQL_FN_SUBSTR: case SQL_FN_MID: {
        value_t s = to_str(ctx, &a[0]);
        int64_t pos = value_to_int(&a[1], dg);
        int64_t len = e->nargs > 2 ? value_to_int(&a[2], dg) : INT64_MAX;
        int64_t nc = (int64_t)char_count(&s);
        *out = str_result(ctx, "", 0, s.coll);
        if (pos == 0 || len <= 0 || pos > nc || -pos > nc)
            return 0;
        int64_t start = pos > 0 ? pos - 1 : nc + pos;
        int64_t end = len > nc - start ? nc : start + len;
        size_t bs = char_off(&s, (size_t)start), be = char_off(&s, (size_t)end);
        *out = str_result(ctx, s.s.ptr + bs, be - bs, s.coll);
        return 0;
    }
    case SQL_FN_LEFT: case SQL_FN_RIGHT: {
        value_t s = to_str(ctx, &a[0]);
        int64_t n = value_to_int(&a[1], dg);
        int64_t nc = (int64_t)char_count(&s);
        if (n < 0)
            n = 0;
        if (n > nc)
            n = nc;
        if (fn == SQL_FN_LEFT) {
            *out = str_result(ctx, s.s.ptr, char_off(&s, (size_t)n), s.coll);
        } else {
            size_t off = char_off(&s, (size_t)(nc - n));
            *out = str_result(ctx, s.s.ptr + off, s.s.len - off, s.coll);
        }
        return 0;
    }
    case SQL_FN_UPPER: case SQL_FN_UCASE: case SQL_FN_LOWER: case SQL_FN_LCASE: {
        value_t s = to_str(ctx, &a[0]);
        char *r = arena_strndup(ctx->arena, s.s.ptr, s.s.len);
        sql_str_case(r, s.s.len, s.coll, fn == SQL_FN_UPPER || fn == SQL_FN_UCASE);
        *out = str_result(ctx, r, s.s.len, s.coll);
        return 0;
    }
    case SQL_FN_TRIM: case SQL_FN_LTRIM: case SQL_FN_RTRIM: {
        value_t s = to_str(ctx, &a[0]);
        const char *rem = " ";
        size_t rn = 1;
        if (e->nargs == 2) {
            value_t r = to_str(ctx, &a[1]);
            rem = r.s.ptr;
            rn = r.s.len;
        }
        bool left = fn != SQL_FN_RTRIM, right = fn != SQL_FN_LTRIM;
        if (e->func.separator) {
            left = strcmp(e->func.separator, "RTRIM_FROM") != 0;
            right = strcmp(e->func.separator, "LTRIM_FROM") != 0;
        }
        const char *p = s.s.ptr;
        size_t n = s.s.len;
        if (rn) {
            while (left && n >= rn && memcmp(p, rem, rn) == 0)
                p += rn, n -= rn;
            while (right && n >= rn && memcmp(p + n - rn, rem, rn) == 0)
                n -= rn;
        }
        *out = str_result(ctx, p, n, s.coll);
        return 0;
    }
    case SQL_FN_REPLACE: {
        value_t s = to_str(ctx, &a[0]), f = to_str(ctx, &a[1]), t = to_str(ctx, &a[2]);
        if (!f.s.len) { *out = s; return 0; }
        buf_t b;
        buf_init(&b);
        size_t i = 0;
        while (i < s.s.len) {
            if (i + f.s.len <= s.s.len && memcmp(s.s.ptr + i, f.s.ptr, f.s.len) == 0) {
                buf_append(&b, t.s.ptr, t.s.len);
                i += f.s.len;
            } else {
                buf_append_byte(&b, (uint8_t)s.s.ptr[i++]);
            }
        }
        char *r = arena_strndup(ctx->arena, b.data ? (char *)b.data : "", b.len);
        *out = str_result(ctx, r, b.len, result_coll(a, 3));
        buf_free(&b);
        return 0;
    }
    case SQL_FN_LPAD: case SQL_FN_RPAD: {
        value_t s = to_str(ctx, &a[0]), pad = to_str(ctx, &a[2]);
        int64_t len = value_to_int(&a[1], dg);
        if (len < 0) { *out = value_null(); return 0; }
        size_t nc = char_count(&s);
        if ((size_t)len <= nc) {
            *out = str_result(ctx, s.s.ptr, char_off(&s, (size_t)len), s.coll);
            return 0;
        }
        size_t padc = char_count(&pad);
        if (!padc) { *out = value_null(); return 0; }
        if ((uint64_t)len > ctx->max_allowed_packet) { *out = too_long(ctx, fn == SQL_FN_RPAD ? "rpad" : "lpad"); return 0; }
        buf_t b;
        buf_init(&b);
        size_t need = (size_t)len - nc;
        if (fn == SQL_FN_RPAD)
            buf_append(&b, s.s.ptr, s.s.len);
        while (need) {
            size_t take = MIN(need, padc);
            buf_append(&b, pad.s.ptr, char_off(&pad, take));
            need -= take;
        }
        if (fn == SQL_FN_LPAD)
            buf_append(&b, s.s.ptr, s.s.len);
        char *r = arena_strndup(ctx->arena, (char *)b.data, b.len);
        *out = str_result(ctx, r, b.len, result_coll(a, 3));
        buf_free(&b);
        return 0;
    }
    case SQL_FN_INSTR: case SQL_FN_LOCATE: {
        /* INSTR(str, sub) / LOCATE(sub, str[, pos]) */
        value_t s = to_str(ctx, fn == SQL_FN_INSTR ? &a[0] : &a[1]);
        value_t sub = to_str(ctx, fn == SQL_FN_INSTR ? &a[1] : &a[0]);
        if ((rc = sql_eval_coll_cmp(ctx, fn == SQL_FN_INSTR ? "instr" : "locate", &s, &sub)))
            return rc;
        int64_t pos = fn == SQL_FN_LOCATE && e->nargs == 3 ? value_to_int(&a[2], dg) : 1;
        uint16_t coll = s.coll == COLL_BINARY || sub.coll == COLL_BINARY ? COLL_BINARY : s.coll;
        int64_t nc = (int64_t)char_count(&s);
        *out = value_int(0);
        if (pos < 1 || pos > nc + 1)
            return 0;
        for (int64_t ci = pos - 1; ci <= nc; ci++) {
            size_t off = char_off(&s, (size_t)ci);
            if (off + sub.s.len > s.s.len)
                break;
            if (value_collate_cmp(coll == COLL_BINARY ? COLL_BINARY : coll, s.s.ptr + off, sub.s.len, sub.s.ptr, sub.s.len) == 0 &&
                (coll == COLL_BINARY || sub.s.len == 0 || s.s.ptr[off + sub.s.len - 1] != ' ' || memcmp(s.s.ptr + off, sub.s.ptr, sub.s.len) == 0)) {
                *out = value_int(ci + 1);
                return 0;
            }
        }
        return 0;
    }
    case SQL_FN_HEX: {
        static const char hx[] = "0123456789ABCDEF";
        if (a[0].type == VAL_STRING) {
            char *r = arena_alloc(ctx->arena, a[0].s.len * 2 + 1);
            for (size_t i = 0; i < a[0].s.len; i++) {
                r[2 * i] = hx[(unsigned char)a[0].s.ptr[i] >> 4];
                r[2 * i + 1] = hx[(unsigned char)a[0].s.ptr[i] & 15];
            }
            *out = value_str(r, a[0].s.len * 2, COLL_DEFAULT);
        } else {
            uint64_t u = a[0].type == VAL_DOUBLE || a[0].type == VAL_DECIMAL
                             ? (uint64_t)value_to_int(&a[0], dg) : value_to_uint(&a[0], dg);
            char *r = arena_printf(ctx->arena, "%llX", (unsigned long long)u);
            *out = value_str(r, strlen(r), COLL_DEFAULT);
        }
        return 0;
    }
    case SQL_FN_UNHEX: {
        value_t s = to_str(ctx, &a[0]);
        size_t n = s.s.len;
        char *r = arena_alloc(ctx->arena, n / 2 + 2);
        size_t o = 0, i = 0;
        int hv = 0;
        if (n % 2) {
            char c = s.s.ptr[0];
            hv = isxdigit((unsigned char)c) ? (isdigit((unsigned char)c) ? c - '0' : (toupper((unsigned char)c) - 'A' + 10)) : -1;
            if (hv < 0) { *out = value_null(); return 0; }
            r[o++] = (char)hv;
            i = 1;
        }
        for (; i + 1 < n + 1 && i < n; i += 2) {
            int x[2];
            for (int k = 0; k < 2; k++) {
                char c = s.s.ptr[i + (size_t)k];
                if (!isxdigit((unsigned char)c)) { *out = value_null(); return 0; }
                x[k] = isdigit((unsigned char)c) ? c - '0' : toupper((unsigned char)c) - 'A' + 10;
            }
            r[o++] = (char)(x[0] * 16 + x[1]);
        }
        *out = value_str(r, o, COLL_BINARY);
        return 0;
    }
    case SQL_FN_REPEAT: {
        value_t s = to_str(ctx, &a[0]);
        int64_t n = value_to_int(&a[1], dg);
        if (n <= 0 || !s.s.len) { *out = str_result(ctx, "", 0, s.coll); return 0; }
        if ((uint64_t)n * s.s.len > ctx->max_allowed_packet) { *out = too_long(ctx, "repeat"); return 0; }
        char *r = arena_alloc(ctx->arena, (size_t)n * s.s.len + 1);
        for (int64_t i = 0; i < n; i++)
            memcpy(r + (size_t)i * s.s.len, s.s.ptr, s.s.len);
        *out = str_result(ctx, r, (size_t)n * s.s.len, s.coll);
        return 0;
    }
    case SQL_FN_SPACE: {
        int64_t n = value_to_int(&a[0], dg);
        if (n < 0) n = 0;
        if ((uint64_t)n > ctx->max_allowed_packet) { *out = too_long(ctx, "space"); return 0; }
        char *r = arena_alloc(ctx->arena, (size_t)n + 1);
        memset(r, ' ', (size_t)n);
        *out = value_str(r, (size_t)n, COLL_DEFAULT);
        return 0;
    }
    case SQL_FN_REVERSE: {
        value_t s = to_str(ctx, &a[0]);
        char *r = arena_alloc(ctx->arena, s.s.len + 1);
        size_t i = 0;
        while (i < s.s.len) {
            size_t l = is_mb(s.coll) ? MIN(u8len((unsigned char)s.s.ptr[i]), s.s.len - i) : 1;
            memcpy(r + s.s.len - i - l, s.s.ptr + i, l);
            i += l;
        }
        *out = str_result(ctx, r, s.s.len, s.coll);
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* Arithmetic functions (ABS, ROUND, POW ...): NULL when an argument is. */
int sql_eval_math_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    int rc = 0;
    diag_t *dg = ctx->diag;
    if (any_null) {
        *out = value_null();
        return 0;
    }
    switch (fn) {
    case SQL_FN_PI:
        *out = value_double(M_PI);
        out->dec = 6;
        return 0;
    case SQL_FN_ABS: {
        value_t v = a[0];
        if (v.type == VAL_INT) {
            if (v.i == INT64_MIN)
                return out_of_range(ctx, e, false);
            *out = value_int(v.i < 0 ? -v.i : v.i);
        } else if (v.type == VAL_UINT) {
            *out = v;
        } else if (v.type == VAL_DECIMAL) {
            *out = v;
            if (v.s.len && v.s.ptr[0] == '-') {
                out->s.ptr++;
                out->s.len--;
            }
        } else {
            *out = value_double(fabs(value_to_double(&v, dg)));
        }
        return 0;
    }
    case SQL_FN_SIGN: {
        int c;
        if (a[0].type == VAL_DECIMAL || a[0].type == VAL_INT || a[0].type == VAL_UINT) {
            value_t z = value_int(0);
            c = value_compare(&a[0], &z, dg);
        } else {
            double d = value_to_double(&a[0], dg);
            c = d < 0 ? -1 : d > 0;
        }
        *out = value_int(c);
        return 0;
    }
    case SQL_FN_FLOOR: case SQL_FN_CEIL: case SQL_FN_CEILING: {
        bool ceil_ = fn != SQL_FN_FLOOR;
        value_t v = a[0];
        if (v.type == VAL_INT || v.type == VAL_UINT) { *out = v; return 0; }
        if (v.type == VAL_DECIMAL) {
            dec_t x;
            if (dec_parse(&v, &x)) {
                i128 p = pow10i(x.s), q = x.m / p, rem = x.m % p;
                if (rem && ceil_ && x.m > 0) q++;
                if (rem && !ceil_ && x.m < 0) q--;
                if (q >= INT64_MIN && q <= INT64_MAX) { *out = value_int((int64_t)q); return 0; }
                *out = dec_value(ctx, (dec_t){q, 0});
                return 0;
            }
        }
        double d = value_to_double(&v, dg);
        *out = value_double(ceil_ ? ceil(d) : floor(d));
        return 0;
    }
    case SQL_FN_ROUND: case SQL_FN_TRUNCATE: {
        bool trunc_ = fn == SQL_FN_TRUNCATE;
        int64_t d = e->nargs > 1 ? value_to_int(&a[1], dg) : 0;
        value_t v = a[0];
        if (v.type == VAL_INT || v.type == VAL_UINT) {
            if (d >= 0) { *out = v; return 0; }
            value_t dv = value_to_decimal(ctx->arena, &v, NULL);
            value_t r = dec_round(ctx, &dv, d, trunc_);
            *out = value_int(value_to_int(&r, NULL));
            if (v.type == VAL_UINT) *out = value_uint((uint64_t)out->i);
            return 0;
        }
        if (v.type == VAL_DECIMAL) {
            *out = dec_round(ctx, &v, d, trunc_);
            return 0;
        }
        double x = value_to_double(&v, dg);
        double p = pow(10.0, (double)(d < -308 ? -308 : d > 308 ? 308 : d));
        double r;
        if (trunc_)
            r = d >= 0 ? trunc(x * p) / p : trunc(x / (1 / p)) * (1 / p);
        else
            r = d >= 0 ? rint(x * p) / p : rint(x / (1 / p)) * (1 / p);
        if (isinf(x * p) && d >= 0)
            r = x;
        *out = value_double(r);
        if (e->nargs > 1 && e->args[1]->kind == SQL_E_LITERAL && d >= 0 && d < VAL_DEC_NOT_FIXED)
            out->dec = (uint8_t)d;
        return 0;
    }
    case SQL_FN_MOD: {
        sql_expr_t tmp = *e;
        tmp.kind = SQL_E_BINARY;
        tmp.op = SQL_OP_MOD;
        return arith(ctx, &tmp, &a[0], &a[1], out);
    }
    case SQL_FN_SQRT: {
        double d = value_to_double(&a[0], dg);
        *out = d < 0 ? value_null() : value_double(sqrt(d));
        return 0;
    }
    case SQL_FN_POW: case SQL_FN_POWER: {
        double r = pow(value_to_double(&a[0], dg), value_to_double(&a[1], dg));
        if (isinf(r) || isnan(r)) {
            buf_t bb;
            buf_init(&bb);
            expr_print(&bb, e);
            buf_append_byte(&bb, 0);
            rc = diag_error(dg, ER_DATA_OUT_OF_RANGE, "DOUBLE", (char *)bb.data);
            buf_free(&bb);
            return rc;
        }
        *out = value_double(r);
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* NULL tests, GREATEST / LEAST, collation functions, user locks, UNIX time, hashes, SLEEP. */
int sql_eval_misc_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    diag_t *dg = ctx->diag;
    switch (fn) { /* the functions that look at NULL arguments themselves */
    case SQL_FN_ISNULL:
        *out = value_int(a[0].type == VAL_NULL);
        return 0;
    case SQL_FN_NULLIF: {
        if (a[0].type == VAL_NULL || a[1].type == VAL_NULL) { *out = a[0]; return 0; }
        *out = value_compare(&a[0], &a[1], dg) == 0 ? value_null() : a[0];
        return 0;
    }
    case SQL_FN_GREATEST:
    case SQL_FN_LEAST: {
        if (any_null) { *out = value_null(); return 0; }
        /* a temporal argument with strings / temporals: compared as temporals, the result a temporal (MariaDB) */
        int temporal = -1;
        bool only_tmp_str = true;
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (value_is_temporal(&a[i]))
                temporal = temporal < 0 || a[i].type > a[temporal].type ? (int)i : temporal;
            else if (a[i].type != VAL_STRING)
                only_tmp_str = false;
        }
        if (temporal >= 0 && only_tmp_str) {
            uint32_t best = 0;
            for (uint32_t i = 1; i < e->nargs; i++) {
                int c = value_compare(&a[i], &a[best], dg);
                if ((fn == SQL_FN_GREATEST && c > 0) || (fn == SQL_FN_LEAST && c < 0))
                    best = i;
            }
            value_t r = a[best];
            if (r.type == VAL_STRING && !value_parse_datetime(r.s.ptr, r.s.len, &r)) {
                *out = a[best];
                return 0;
            }
            value_type_t want = a[temporal].type; /* the result has the temporal argument's type */
            if (r.type != want && want != VAL_TIME) {
                r.type = want;
                if (want == VAL_DATE)
                    r.t.hour = r.t.minute = r.t.second = r.t.usec = 0;
            }
            *out = r;
            return 0;
        }
        /* all strings: compare as strings; all integers: exact; else as the widest numeric */
        bool all_str = true, any_dbl = false, any_dec = false;
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (a[i].type != VAL_STRING) all_str = false;
            if (a[i].type == VAL_DOUBLE || a[i].type == VAL_STRING) any_dbl = true;
            if (a[i].type == VAL_DECIMAL) any_dec = true;
        }
        uint32_t best = 0;
        for (uint32_t i = 1; i < e->nargs; i++) {
            int c = all_str || !any_dbl ? value_compare(&a[i], &a[best], dg)
                                        : (value_to_double(&a[i], dg) < value_to_double(&a[best], dg) ? -1 : value_to_double(&a[i], dg) > value_to_double(&a[best], dg));
            if ((fn == SQL_FN_GREATEST && c > 0) || (fn == SQL_FN_LEAST && c < 0))
                best = i;
        }
        *out = a[best];
        if (!all_str && any_dbl)
            *out = value_double(value_to_double(&a[best], NULL));
        else if (!all_str && any_dec) {
            int ms = 0;
            for (uint32_t i = 0; i < e->nargs; i++)
                if (a[i].type == VAL_DECIMAL)
                    ms = MAX(ms, a[i].dec);
            value_t dv = value_to_decimal(ctx->arena, &a[best], NULL);
            dec_t x;
            if (dec_parse(&dv, &x) && dec_rescale(&x, ms))
                dv = dec_value(ctx, x);
            *out = dv;
        }
        return 0;
    }
    case SQL_FN_CHARSET: case SQL_FN_COLLATION: {
        /* a NULL keeps the collation of the expression that made it (CONCAT(col, NULL)); NULL itself is binary */
        coll_dt_t d = value_dt(&a[0]);
        uint16_t c = a[0].type == VAL_STRING || (a[0].type == VAL_NULL && d.deriv != COLL_DERIV_IGNORABLE)
                   ? d.coll : COLL_BINARY; /* numbers and temporals: binary */
        const char *n = fn == SQL_FN_CHARSET ? value_coll_charset(c) : value_coll_name(c);
        *out = value_str(n, strlen(n), COLL_UTF8MB3_GENERAL_CI);
        value_set_deriv(out, COLL_DERIV_SYSCONST, true);
        return 0;
    }
    case SQL_FN_COERCIBILITY:
        *out = value_int(value_dt(&a[0]).deriv);
        return 0;
    case SQL_FN_GET_LOCK: case SQL_FN_RELEASE_LOCK: case SQL_FN_RELEASE_ALL_LOCKS: case SQL_FN_IS_FREE_LOCK:
    case SQL_FN_IS_USED_LOCK:
        return eval_user_lock(ctx, e, a, out);
    default:
        break;
    }
    if (any_null) {
        *out = value_null();
        return 0;
    }
    switch (fn) {
    case SQL_FN_UNIX_TIMESTAMP: {
        if (e->nargs == 0) {
            *out = value_int((int64_t)(ctx->stmt_time_us / 1000000));
            return 0;
        }
        value_t t = a[0];
        if (t.type == VAL_STRING && !value_parse_datetime(t.s.ptr, t.s.len, &t)) {
            *out = value_null();
            return 0;
        }
        if (t.type == VAL_INT || t.type == VAL_UINT) {
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%lld", (long long)value_to_int(&t, NULL));
            if (!value_parse_datetime(buf, (size_t)n, &t) && n == 8) {
                t.type = VAL_DATE;
            }
            if (!value_is_temporal(&t)) { *out = value_null(); return 0; }
        }
        if (!value_is_temporal(&t) || t.type == VAL_TIME) {
            *out = value_null();
            return 0;
        }
        int64_t days = days_from_civil(t.t.year, t.t.month ? t.t.month : 1, t.t.day ? t.t.day : 1);
        int64_t secs = days * 86400 + t.t.hour * 3600 + t.t.minute * 60 + t.t.second -
                       sql_tz_offset_wall(&t.t); /* @@time_zone, with the system zone's DST (sql/value/tz.h) */
        if (secs < 0 || t.t.year == 0) {
            *out = value_int(0);
            return 0;
        }
        if (t.dec && t.t.usec) {
            char buf[48];
            snprintf(buf, sizeof buf, "%lld.%0*u", (long long)secs, t.dec, t.t.usec / (uint32_t)pow(10, 6 - t.dec));
            *out = value_decimal(ctx->arena, buf, strlen(buf));
        } else if (t.dec) {
            char buf[48];
            snprintf(buf, sizeof buf, "%lld.%0*d", (long long)secs, t.dec, 0);
            *out = value_decimal(ctx->arena, buf, strlen(buf));
        } else {
            *out = value_int(secs);
        }
        return 0;
    }
    case SQL_FN_FROM_UNIXTIME: {
        value_t v = a[0];
        int64_t sec;
        uint32_t usec = 0;
        int dec = 0;
        if (v.type == VAL_DECIMAL) {
            dec_t x;
            dec_parse(&v, &x);
            dec = MIN(x.s, 6);
            i128 p = pow10i(x.s);
            sec = (int64_t)(x.m / p);
            i128 fr = x.m % p;
            usec = (uint32_t)(fr * 1000000 / p);
            if (x.m < 0) { *out = value_null(); return 0; }
        } else if (v.type == VAL_DOUBLE || v.type == VAL_STRING) {
            double d = value_to_double(&v, dg);
            if (d < 0) { *out = value_null(); return 0; }
            sec = (int64_t)d;
            usec = (uint32_t)llround((d - (double)sec) * 1e6);
            dec = 6;
        } else {
            sec = value_to_int(&v, dg);
        }
        if (sec < 0) { *out = value_null(); return 0; }
        if (sec > 2147483647LL) { /* MariaDB 10.11's TIMESTAMP range ends in 2038 */
            size_t tl;
            const char *tx = value_to_text(ctx->arena, &v, &tl);
            char msg[200];
            snprintf(msg, sizeof msg, "Truncated incorrect unixtime value: '%.*s'", (int)MIN(tl, 100), tx);
            diag_push_msg(dg, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, msg);
            *out = value_null();
            return 0;
        }
        time_from_epoch(sec + sql_tz_offset_at(sec), usec, out); /* @@time_zone, DST included (sql/value/tz.h) */
        out->dec = (uint8_t)dec;
        if (e->nargs == 2) { /* FROM_UNIXTIME(t, format) = DATE_FORMAT(FROM_UNIXTIME(t), format) */
            sql_expr_t df = *e;
            df.func.fn = SQL_FN_DATE_FORMAT;
            value_t fa[2] = {*out, a[1]};
            return sql_eval_date_fn(ctx, &df, fa, false, out);
        }
        return 0;
    }
    case SQL_FN_PASSWORD: {
        /* mysql_native_password's stored form: "*" + HEX(SHA1(SHA1(pw))); '' for an empty password. */
        value_t pw = to_str(ctx, &a[0]);
        if (!pw.s.len) {
            *out = str_result(ctx, "", 0, COLL_DEFAULT);
            return 0;
        }
        char *h = arena_alloc(ctx->arena, PASSWORD_NATIVE_HASH_LEN + 1);
        password_native_hash(pw.s.ptr, pw.s.len, h);
        *out = value_str(h, strlen(h), COLL_DEFAULT);
        return 0;
    }
    case SQL_FN_MD5:
    case SQL_FN_SHA1:
    case SQL_FN_SHA:
    case SQL_FN_SHA2: {
        const EVP_MD *md = fn == SQL_FN_MD5 ? EVP_md5() : EVP_sha1();
        if (fn == SQL_FN_SHA2) {
            if (value_is_null(&a[1])) { *out = value_null(); return 0; }
            int64_t bits = value_to_int(&a[1], dg);
            md = bits == 0 || bits == 256 ? EVP_sha256() : bits == 224 ? EVP_sha224() : bits == 384 ? EVP_sha384()
                 : bits == 512 ? EVP_sha512() : NULL;
            if (!md) { *out = value_null(); return 0; }
        }
        value_t in = to_str(ctx, &a[0]);
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned int dl = 0;
        EVP_Digest(in.s.ptr, in.s.len, d, &dl, md, NULL);
        char *hex = arena_alloc(ctx->arena, dl * 2 + 1);
        for (unsigned i = 0; i < dl; i++)
            snprintf(hex + 2 * i, 3, "%02x", d[i]);
        *out = value_str(hex, dl * 2, COLL_DEFAULT);
        return 0;
    }
    case SQL_FN_SLEEP: {
        double secs = value_to_double(&a[0], dg);
        int interrupted = secs > 0 && ctx->cb && ctx->cb->sleep ? ctx->cb->sleep(ctx->user, secs) : 0;
        if (interrupted)
            return diag_error(dg, ER_QUERY_INTERRUPTED);
        *out = value_int(0);
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* ---------------------------------------------------------------- CAST */

/* CAST(string AS SIGNED/UNSIGNED) reads the integer at the start ('1.7' is 1, '1e3' is 1) with warning 1292,
 * where the number conversions round; false when the string is a plain integer (value_to_int handles it). */
static bool cast_str_int(sql_eval_ctx_t *ctx, const value_t *v, int64_t *out, bool *neg)
{
    if (v->type != VAL_STRING)
        return false;
    bool is_int;
    size_t n = value_num_prefix(v->s.ptr, v->s.len, &is_int);
    if (is_int || n == 0)
        return false;
    const char *s = v->s.ptr;
    size_t i = 0;
    while (i < v->s.len && isspace((unsigned char)s[i]))
        i++;
    *neg = i < v->s.len && s[i] == '-';
    if (i < v->s.len && (s[i] == '-' || s[i] == '+'))
        i++;
    uint64_t u = 0;
    for (; i < v->s.len && isdigit((unsigned char)s[i]); i++)
        u = u * 10 + (uint64_t)(s[i] - '0');
    *out = *neg ? -(int64_t)u : (int64_t)u;
    char val[200];
    snprintf(val, sizeof val, "%.*s", (int)MIN(v->s.len, 150), s);
    diag_warn(ctx->diag, ER_TRUNCATED_WRONG_VALUE, "INTEGER", val);
    return true;
}

static int eval_cast(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *v, value_t *out)
{
    const sql_cast_t *c = &e->cast;
    diag_t *dg = ctx->diag;
    int64_t si;
    bool sneg;
    switch (c->type) {
    case SQL_CAST_SIGNED:
        if (v->type == VAL_UINT) *out = value_int((int64_t)v->u);
        else if (cast_str_int(ctx, v, &si, &sneg)) *out = value_int(si);
        else *out = value_int(value_to_int(v, dg));
        return 0;
    case SQL_CAST_UNSIGNED:
        if (cast_str_int(ctx, v, &si, &sneg)) {
            *out = value_uint((uint64_t)si);
            if (sneg && si)
                diag_push_msg(dg, DIAG_NOTE, ER_UNKNOWN_ERROR,
                              "Cast to unsigned converted negative integer to it's positive complement");
            return 0;
        }
        if (v->type == VAL_STRING) {
            bool is_int;
            size_t k = 0;
            while (k < v->s.len && isspace((unsigned char)v->s.ptr[k]))
                k++;
            if (value_num_prefix(v->s.ptr, v->s.len, &is_int) && is_int && k < v->s.len && v->s.ptr[k] == '-') {
                *out = value_uint((uint64_t)value_to_int(v, dg));
                if (out->u)
                    diag_push_msg(dg, DIAG_NOTE, ER_UNKNOWN_ERROR,
                                  "Cast to unsigned converted negative integer to it's positive complement");
                return 0;
            }
        }
        if (v->type == VAL_INT) {
            *out = value_uint((uint64_t)v->i);
            if (v->i < 0)
                diag_push_msg(dg, DIAG_NOTE, ER_UNKNOWN_ERROR,
                              "Cast to unsigned converted negative integer to it's positive complement");
        }
        else *out = value_uint(value_to_uint(v, dg));
        return 0;
    case SQL_CAST_CHAR:
    case SQL_CAST_BINARY: {
        value_t s = to_str(ctx, v);
        s.coll = c->type == SQL_CAST_BINARY ? COLL_BINARY : (uint16_t)(c->coll >= 0 ? c->coll : COLL_DEFAULT);
        if (c->len >= 0) {
            size_t cut = c->type == SQL_CAST_BINARY ? MIN((size_t)c->len, s.s.len) : char_off(&s, (size_t)c->len);
            if (cut < s.s.len) {
                char val[200];
                snprintf(val, sizeof val, "%.*s", (int)MIN(s.s.len, 150), s.s.ptr);
                diag_warn(dg, ER_TRUNCATED_WRONG_VALUE,
                          arena_printf(ctx->arena, "%s(%d)", c->type == SQL_CAST_BINARY ? "BINARY" : "CHAR", c->len), val);
                s.s.len = cut;
            }
            if (c->type == SQL_CAST_BINARY && s.s.len < (size_t)c->len) { /* BINARY(N) pads with zero bytes */
                char *p = arena_alloc(ctx->arena, (size_t)c->len);
                memcpy(p, s.s.ptr, s.s.len);
                memset(p + s.s.len, 0, (size_t)c->len - s.s.len);
                s.s.ptr = p;
                s.s.len = (size_t)c->len;
            }
        }
        *out = s;
        return 0;
    }
    case SQL_CAST_DECIMAL: {
        value_t d = value_to_decimal(ctx->arena, v, dg);
        int prec = c->len >= 0 ? c->len : 10;
        int scale = c->scale >= 0 ? c->scale : 0;
        value_t r = dec_round(ctx, &d, scale, false);
        /* clamp to the precision: MariaDB gives the max value with warning 1264 */
        dec_t x;
        if (dec_parse(&r, &x)) {
            if (!dec_rescale(&x, scale)) x.m = DEC_LIMIT;
            i128 lim = pow10i(prec);
            if (x.m >= lim || x.m <= -lim) {
                x.m = x.m > 0 ? lim - 1 : -(lim - 1);
                diag_warn(dg, ER_WARN_DATA_OUT_OF_RANGE, arena_printf(ctx->arena, "%.*s", (int)MIN(e->src_len, 200), e->src ? e->src : ""), 1UL);
            }
            *out = dec_value(ctx, x);
        } else {
            *out = r;
        }
        return 0;
    }
    case SQL_CAST_DOUBLE:
    case SQL_CAST_FLOAT:
        *out = value_double(value_to_double(v, dg));
        if (c->type == SQL_CAST_FLOAT)
            out->d = (float)out->d;
        return 0;
    case SQL_CAST_DATE:
    case SQL_CAST_DATETIME:
    case SQL_CAST_TIME: {
        value_t t;
        bool ok;
        if (value_is_temporal(v)) {
            t = *v;
            ok = true;
        } else {
            value_t s = to_str(ctx, v);
            ok = c->type == SQL_CAST_TIME ? value_parse_time(s.s.ptr, s.s.len, &t) || value_parse_datetime(s.s.ptr, s.s.len, &t)
                                          : value_parse_datetime(s.s.ptr, s.s.len, &t);
            if (!ok && (v->type == VAL_INT || v->type == VAL_UINT)) {
                /* YYYYMMDD[HHMMSS] numbers */
                char buf[32];
                int64_t n = value_to_int(v, NULL);
                if (n >= 10000101 && n <= 99991231) {
                    snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld", (long long)(n / 10000), (long long)(n / 100 % 100), (long long)(n % 100));
                    ok = value_parse_datetime(buf, strlen(buf), &t);
                } else if (n >= 10000101000000LL && n <= 99991231235959LL) {
                    snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", (long long)(n / 10000000000LL),
                             (long long)(n / 100000000 % 100), (long long)(n / 1000000 % 100), (long long)(n / 10000 % 100),
                             (long long)(n / 100 % 100), (long long)(n % 100));
                    ok = value_parse_datetime(buf, strlen(buf), &t);
                }
            }
            if (!ok) {
                char val[200];
                snprintf(val, sizeof val, "%.*s", (int)MIN(s.s.len, 150), s.s.ptr);
                /* MariaDB: "Incorrect datetime value: 'x'" (time for CAST AS TIME) */
                char msg[300];
                snprintf(msg, sizeof msg, "Incorrect %s value: '%s'", c->type == SQL_CAST_TIME ? "time" : "datetime", val);
                diag_push_msg(dg, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, msg);
                *out = value_null();
                return 0;
            }
        }
        int fsp = c->scale >= 0 ? MIN(c->scale, 6) : 0;
        static const uint32_t div[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
        if (c->type == SQL_CAST_DATE) {
            if (t.type == VAL_TIME) { now_value(ctx, ctx->stmt_time_us, 0, &t); }
            t.type = VAL_DATE;
            t.t.hour = t.t.minute = t.t.second = t.t.usec = 0;
            t.dec = 0;
        } else if (c->type == SQL_CAST_DATETIME) {
            if (t.type == VAL_TIME) {
                value_t nw;
                now_value(ctx, ctx->stmt_time_us, 0, &nw);
                nw.t.hour = t.t.hour;
                nw.t.minute = t.t.minute;
                nw.t.second = t.t.second;
                nw.t.usec = t.t.usec;
                t = nw;
            }
            t.type = VAL_DATETIME;
            t.t.usec = t.t.usec / div[fsp] * div[fsp];
            t.dec = (uint8_t)fsp;
        } else {
            if (t.type != VAL_TIME) {
                t.type = VAL_TIME;
                t.t.year = t.t.month = t.t.day = 0;
            }
            t.t.usec = t.t.usec / div[fsp] * div[fsp];
            t.dec = (uint8_t)fsp;
        }
        *out = t;
        return 0;
    }
    }
    return diag_error(dg, ER_NOT_SUPPORTED_YET, "CAST");
}

/* ---------------------------------------------------------------- main */

static int cmp_op_result(sql_op_t op, int c)
{
    switch (op) {
    case SQL_OP_EQ: case SQL_OP_NSEQ: return c == 0;
    case SQL_OP_NE: return c != 0;
    case SQL_OP_LT: return c < 0;
    case SQL_OP_LE: return c <= 0;
    case SQL_OP_GT: return c > 0;
    case SQL_OP_GE: return c >= 0;
    default: return 0;
    }
}

static bool row_cmp_op(sql_op_t op)
{
    return op == SQL_OP_EQ || op == SQL_OP_NE || op == SQL_OP_NSEQ || op == SQL_OP_LT || op == SQL_OP_LE ||
           op == SQL_OP_GT || op == SQL_OP_GE;
}

int sql_eval_row_cmp_values(sql_eval_ctx_t *ctx, sql_op_t op, value_t *a, value_t *b, uint32_t n, value_t *out)
{
    bool saw_null = false;
    for (uint32_t i = 0; i < n; i++) {
        if (a[i].type == VAL_NULL || b[i].type == VAL_NULL) {
            if (op == SQL_OP_NSEQ) {
                if (a[i].type != b[i].type) {
                    *out = value_int(0);
                    return 0;
                }
                continue;
            }
            saw_null = true;
            if (op == SQL_OP_EQ || op == SQL_OP_NE)
                continue;
            *out = value_null();
            return 0;
        }
        int rc = sql_eval_coll_cmp(ctx, op == SQL_OP_NSEQ ? "<=>" : op_text(op), &a[i], &b[i]);
        if (rc)
            return rc;
        int c = value_compare(&a[i], &b[i], ctx->diag);
        if (c != 0) {
            *out = value_int(op == SQL_OP_NSEQ ? 0 : cmp_op_result(op, c));
            return 0;
        }
    }
    *out = saw_null ? value_null() : value_int(cmp_op_result(op, 0));
    return 0;
}

/* One side of a row comparison: a ROW's values, a subquery's row (NULLs when it returns none; `want` columns
 * unless 0), or one value. */
static int row_side(sql_eval_ctx_t *ctx, const sql_expr_t *e, uint32_t want, value_t **vals, uint32_t *n)
{
    int rc;
    if (e->kind == SQL_E_ROW) {
        *n = e->nargs;
        *vals = arena_alloc(ctx->arena, sizeof **vals * (e->nargs ? e->nargs : 1));
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (e->args[i]->kind == SQL_E_ROW) /* a row inside a row: not compared here (MariaDB's error) */
                return diag_error(ctx->diag, ER_OPERAND_COLUMNS, (int)e->args[i]->nargs);
            if ((rc = sql_expr_eval(ctx, e->args[i], &(*vals)[i])))
                return rc;
        }
        return 0;
    }
    if (e->kind == SQL_E_SUBQUERY && ctx->cb && ctx->cb->subquery_row) {
        const value_t *row;
        if ((rc = ctx->cb->subquery_row(ctx->user, e, &row, n, ctx->diag)))
            return rc;
        if (want && *n != want)
            return diag_error(ctx->diag, ER_OPERAND_COLUMNS, (int)want);
        *vals = arena_alloc(ctx->arena, sizeof **vals * *n);
        for (uint32_t i = 0; i < *n; i++)
            (*vals)[i] = row ? row[i] : value_null();
        return 0;
    }
    *n = 1;
    *vals = arena_alloc(ctx->arena, sizeof **vals);
    return sql_expr_eval(ctx, e, *vals);
}

/* (a, b, ...) op (c, d, ...), either side a ROW or a subquery's row: lexicographic, NULL when undecided because
 * of a NULL; the column counts must agree (1241 names the left side's, or the right's when the left is one
 * value) */
static int eval_row_cmp(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    const sql_expr_t *l = e->args[0], *r = e->args[1];
    sql_op_t op = e->op;
    uint32_t want = l->kind == SQL_E_ROW ? l->nargs : r->kind == SQL_E_ROW ? r->nargs : 1;
    if (!row_cmp_op(op))
        return diag_error(ctx->diag, ER_OPERAND_COLUMNS, 1);
    value_t *a, *b;
    uint32_t na, nb;
    int rc;
    if ((rc = row_side(ctx, l, l->kind == SQL_E_ROW ? 0 : r->kind == SQL_E_ROW ? want : 0, &a, &na)) ||
        (rc = row_side(ctx, r, na, &b, &nb)))
        return rc;
    if (na != nb)
        return diag_error(ctx->diag, ER_OPERAND_COLUMNS, (int)(na != 1 ? na : nb));
    return sql_eval_row_cmp_values(ctx, op, a, b, na, out);
}

/* Three-valued truth: -1 NULL, 0 false, 1 true */
static int truth(sql_eval_ctx_t *ctx, const value_t *v)
{
    if (v->type == VAL_NULL)
        return -1;
    return value_to_bool(v, ctx->diag) ? 1 : 0;
}

static value_t tv(int t) { return t < 0 ? value_null() : value_int(t); }

static bool cmp_operator(sql_op_t op)
{
    return op == SQL_OP_EQ || op == SQL_OP_NE || op == SQL_OP_LT || op == SQL_OP_LE || op == SQL_OP_GT ||
           op == SQL_OP_GE || op == SQL_OP_NSEQ;
}

/* A placeholder's value. */
static int param_value(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    int rc;
    if ((rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->param_get : NULL, "placeholders")))
        return rc;
    if ((rc = ctx->cb->param_get(ctx->user, e->param_index, out)) == 0)
        mark_coercible(out);
    return rc;
}

/* A binary operator other than AND/OR on its two evaluated operands. */
static int __attribute__((noinline)) binary_values(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t a, value_t b, value_t *out)
{
    int rc;
    sql_op_t op = e->op;
    if (cmp_operator(op)) {
        sql_json_cmp_prepare(ctx, e->args[0], e->args[1], &a, &b);
        if ((rc = sql_eval_coll_cmp(ctx, op_text(op), &a, &b)))
            return rc;
    }
    if (op == SQL_OP_NSEQ) {
        if (a.type == VAL_NULL || b.type == VAL_NULL)
            *out = value_int(a.type == VAL_NULL && b.type == VAL_NULL);
        else
            *out = value_int(value_compare(&a, &b, ctx->diag) == 0);
        return 0;
    }
    if (a.type == VAL_NULL || b.type == VAL_NULL) {
        *out = value_null();
        return 0;
    }
    if (cmp_operator(op)) {
        /* strings are in one collation already (sql_eval_coll_cmp) */
    } else if (op != SQL_OP_XOR) {
        sql_eval_hex_as_number(e->args[0], &a);
        sql_eval_hex_as_number(e->args[1], &b);
    }
    switch (op) {
    case SQL_OP_XOR:
        *out = value_int(value_to_bool(&a, ctx->diag) != value_to_bool(&b, ctx->diag));
        return 0;
    case SQL_OP_EQ: case SQL_OP_NE: case SQL_OP_LT: case SQL_OP_LE: case SQL_OP_GT: case SQL_OP_GE:
        *out = value_int(cmp_op_result(op, value_compare(&a, &b, ctx->diag)));
        return 0;
    case SQL_OP_BITOR: case SQL_OP_BITAND: case SQL_OP_BITXOR: case SQL_OP_SHL: case SQL_OP_SHR: {
        uint64_t x = value_to_uint(&a, ctx->diag), y = value_to_uint(&b, ctx->diag);
        uint64_t r = op == SQL_OP_BITOR ? x | y : op == SQL_OP_BITAND ? x & y : op == SQL_OP_BITXOR ? x ^ y
                   : op == SQL_OP_SHL ? (y >= 64 ? 0 : x << y) : (y >= 64 ? 0 : x >> y);
        *out = value_uint(r);
        return 0;
    }
    default:
        return arith(ctx, e, &a, &b, out);
    }
}

/* x [NOT] BETWEEN lo AND hi on its three evaluated operands. */
static int __attribute__((noinline)) between_values(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t a, value_t b, value_t c, value_t *out)
{
    int rc;
    if (a.type == VAL_NULL) {
        *out = value_null();
        return 0;
    }
    value_t vs[3] = {a, b, c};
    coll_dt_t dt;
    if (a.type == VAL_STRING && (b.type == VAL_STRING || b.type == VAL_NULL) &&
        (c.type == VAL_STRING || c.type == VAL_NULL)) {
        if ((rc = coll_unify(ctx, "between", vs, 3, COLL_AGG_FOR_CMP, &dt)))
            return rc;
        b = vs[1];
        c = vs[2];
    }
    value_t al = vs[0], ah = vs[0];
    int lo = b.type == VAL_NULL ? -1 : value_compare(&al, &b, ctx->diag) >= 0;
    int hi = c.type == VAL_NULL ? -1 : value_compare(&ah, &c, ctx->diag) <= 0;
    int t = (lo == 0 || hi == 0) ? 0 : (lo < 0 || hi < 0) ? -1 : 1;
    if (t >= 0 && e->negated)
        t = !t;
    *out = tv(t);
    return 0;
}

static int eval_full(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);

static int int_cmp(int64_t x, int64_t y) { return x < y ? -1 : x > y; }

/* A truth value (-1: NULL) stored field by field, so the reads of type and i that follow are forwarded from
 * stores of their own width (a value_t built aside and copied in whole stalls the load of its tail). */
static inline void put_truth(value_t *out, int t)
{
    memset(out, 0, sizeof *out);
    out->type = t < 0 ? VAL_NULL : VAL_INT;
    out->i = t < 0 ? 0 : t;
}

/* The cases a row filter meets most, with a small stack frame of their own: a column of the row, a placeholder,
 * AND / OR, and a comparison or BETWEEN whose operands come out as integers (compared here exactly as
 * value_compare does).  Everything else is eval_full's, whose frame (every case's locals) is large. */
int sql_expr_eval(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    int rc;
    value_t a, b, c;
    switch (e->kind) {
    case SQL_E_COLUMN:
        if (e->slot >= 0 && ctx->row) {
            *out = ctx->row[e->slot];
            return 0;
        }
        break;
    case SQL_E_PARAM:
        return param_value(ctx, e, out);
    case SQL_E_BINARY: {
        sql_op_t op = e->op;
        if (op == SQL_OP_AND || op == SQL_OP_OR) {
            if ((rc = sql_expr_eval(ctx, e->args[0], &a)))
                return rc;
            int ta = truth(ctx, &a);
            if (op == SQL_OP_AND && ta == 0) { put_truth(out, 0); return 0; }
            if (op == SQL_OP_OR && ta == 1) { put_truth(out, 1); return 0; }
            if ((rc = sql_expr_eval(ctx, e->args[1], &b)))
                return rc;
            int tb = truth(ctx, &b);
            if (op == SQL_OP_AND)
                put_truth(out, tb == 0 ? 0 : (ta < 0 || tb < 0) ? -1 : 1);
            else
                put_truth(out, tb == 1 ? 1 : (ta < 0 || tb < 0) ? -1 : 0);
            return 0;
        }
        if (!cmp_operator(op) || e->args[0]->kind == SQL_E_ROW || e->args[1]->kind == SQL_E_ROW ||
            e->args[0]->kind == SQL_E_SUBQUERY || e->args[1]->kind == SQL_E_SUBQUERY)
            break;
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)) || (rc = sql_expr_eval(ctx, e->args[1], &b)))
            return rc;
        if (a.type == VAL_INT && b.type == VAL_INT) {
            put_truth(out, cmp_op_result(op, int_cmp(a.i, b.i)));
            return 0;
        }
        return binary_values(ctx, e, a, b, out);
    }
    case SQL_E_BETWEEN:
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)) || (rc = sql_expr_eval(ctx, e->args[1], &b)) ||
            (rc = sql_expr_eval(ctx, e->args[2], &c)))
            return rc;
        if (a.type == VAL_INT && b.type == VAL_INT && c.type == VAL_INT) {
            bool in = a.i >= b.i && a.i <= c.i;
            put_truth(out, e->negated ? !in : in);
            return 0;
        }
        return between_values(ctx, e, a, b, c, out);
    default:
        break;
    }
    return eval_full(ctx, e, out);
}

static int __attribute__((noinline)) eval_full(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    int rc = 0;
    value_t a, b, c;
    switch (e->kind) {
    case SQL_E_LITERAL:
        *out = e->lit;
        if (e->lit_conn && ctx->conn_coll && e->lit.type == VAL_STRING && ctx->conn_coll != e->lit.coll) {
            /* the statement text was converted to utf8mb4; the literal itself is in the connection's charset */
            size_t n, bad;
            out->s.ptr = sql_str_convert(ctx->arena, e->lit.s.ptr, e->lit.s.len, e->lit.coll, ctx->conn_coll, &n, &bad);
            out->s.len = n;
            out->coll = ctx->conn_coll;
        }
        mark_coercible(out);
        return 0;
    case SQL_E_COLUMN:
        if (e->slot >= 0 && ctx->row) {
            *out = ctx->row[e->slot];
            return 0;
        }
        if (ctx->cb && ctx->cb->column_get)
            return ctx->cb->column_get(ctx->user, e, out, ctx->diag);
        return diag_error(ctx->diag, ER_BAD_FIELD_ERROR, e->col.name ? e->col.name : "", "SELECT");
    case SQL_E_STAR:
        return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "*");
    case SQL_E_SYSVAR:
        if ((rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->sysvar_get : NULL, "system variables")))
            return rc;
        if ((rc = ctx->cb->sysvar_get(ctx->user, e->var.scope, e->var.component, e->var.name, out, ctx->diag)) == 0 &&
            out->type == VAL_STRING)
            value_set_deriv(out, COLL_DERIV_SYSCONST, false);
        return rc;
    case SQL_E_USERVAR:
        if ((rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->uservar_get : NULL, "user variables")))
            return rc;
        if ((rc = ctx->cb->uservar_get(ctx->user, e->var.name, out)) == 0 && out->type == VAL_STRING) {
            if (!out->dec)
                out->dec = VAL_DEC_QUIET; /* converted to a number without warnings, as MariaDB does */
            value_set_deriv(out, COLL_DERIV_IMPLICIT, false);
        }
        return rc;
    case SQL_E_ASSIGN:
        if ((rc = sql_expr_eval(ctx, e->args[0], out)))
            return rc;
        if ((rc = need_cb(ctx, ctx->cb ? (const void *)ctx->cb->uservar_set : NULL, "user variables")))
            return rc;
        if (out->type == VAL_STRING)
            value_set_deriv(out, COLL_DERIV_IMPLICIT, false);
        return ctx->cb->uservar_set(ctx->user, e->var.name, out);
    case SQL_E_PARAM:
    case SQL_E_BETWEEN:
        return sql_expr_eval(ctx, e, out); /* sql_expr_eval's own cases, never left to here */
    case SQL_E_UNARY:
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)))
            return rc;
        if (a.type == VAL_NULL) {
            *out = a;
            return 0;
        }
        switch (e->op) {
        case SQL_OP_NOT:
            *out = value_int(!value_to_bool(&a, ctx->diag));
            return 0;
        case SQL_OP_NEG:
            if (a.type == VAL_INT) {
                if (a.i == INT64_MIN) /* MariaDB: -(-9223372036854775808) is DECIMAL 9223372036854775808 */
                    *out = value_decimal(ctx->arena, "9223372036854775808", 19);
                else
                    *out = value_int(-a.i);
            } else if (a.type == VAL_UINT) {
                if (a.u > (uint64_t)INT64_MAX + 1) {
                    char buf[32];
                    snprintf(buf, sizeof buf, "-%llu", (unsigned long long)a.u);
                    *out = value_decimal(ctx->arena, buf, strlen(buf));
                } else {
                    *out = value_int((int64_t)(0 - a.u));
                }
            } else if (a.type == VAL_DECIMAL) {
                bool zero = true;
                for (size_t i = 0; i < a.s.len; i++)
                    if (a.s.ptr[i] >= '1' && a.s.ptr[i] <= '9')
                        zero = false;
                if (zero) {
                    *out = a;
                } else if (a.s.ptr[0] == '-') {
                    *out = a;
                    out->s.ptr++;
                    out->s.len--;
                } else {
                    char *s = arena_printf(ctx->arena, "-%.*s", (int)a.s.len, a.s.ptr);
                    *out = value_decimal(ctx->arena, s, strlen(s));
                }
                if (uservar_decimal(e->args[0], &a)) {
                    out->dec = 38;
                    dec_pad(ctx, out);
                }
            } else {
                *out = value_double(-value_to_double(&a, ctx->diag));
            }
            return 0;
        case SQL_OP_BITNOT:
            *out = value_uint(~value_to_uint(&a, ctx->diag));
            return 0;
        case SQL_OP_BINARY:
            *out = to_str(ctx, &a);
            out->coll = COLL_BINARY;
            value_set_deriv(out, COLL_DERIV_IMPLICIT, false); /* BINARY x is CAST(x AS BINARY) */
            return 0;
        default:
            *out = a;
            return 0;
        }
    case SQL_E_BINARY: {
        sql_op_t op = e->op; /* AND and OR are sql_expr_eval's */
        if (e->args[0]->kind == SQL_E_ROW || e->args[1]->kind == SQL_E_ROW ||
            (e->args[0]->kind == SQL_E_SUBQUERY && e->args[1]->kind == SQL_E_SUBQUERY && row_cmp_op(op)))
            return eval_row_cmp(ctx, e, out);
        if ((op == SQL_OP_ADD || op == SQL_OP_SUB) &&
            (e->args[0]->kind == SQL_E_INTERVAL || e->args[1]->kind == SQL_E_INTERVAL))
            return sql_eval_date_interval(ctx, e, out);
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)) || (rc = sql_expr_eval(ctx, e->args[1], &b)))
            return rc;
        return binary_values(ctx, e, a, b, out);
    }
    case SQL_E_IS: {
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)))
            return rc;
        /* IS [NOT] NULL looks at NULL-ness only (no conversion, no 1292 for 'abc' IS NULL) */
        int t = e->is_what == SQL_IS_NULL ? (a.type == VAL_NULL ? -1 : 1) : truth(ctx, &a);
        bool r;
        switch (e->is_what) {
        case SQL_IS_NULL: case SQL_IS_UNKNOWN: r = t < 0; break;
        case SQL_IS_TRUE: r = t == 1; break;
        default: r = t == 0; break;
        }
        *out = value_int(r != e->negated);
        return 0;
    }
    case SQL_E_LIKE: {
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)) || (rc = sql_expr_eval(ctx, e->args[1], &b)))
            return rc;
        int esc = '\\';
        if (e->nargs > 2) {
            if ((rc = sql_expr_eval(ctx, e->args[2], &c)))
                return rc;
            value_t es = to_str(ctx, &c);
            if (es.s.len > 1)
                return diag_error(ctx->diag, ER_WRONG_ARGUMENTS, "ESCAPE");
            esc = es.s.len ? (unsigned char)es.s.ptr[0] : -1;
        }
        if (a.type == VAL_NULL || b.type == VAL_NULL) {
            *out = value_null();
            return 0;
        }
        value_t vs[2] = {to_str(ctx, &a), to_str(ctx, &b)};
        coll_dt_t dt;
        if ((rc = coll_unify(ctx, "like", vs, 2, COLL_AGG_FOR_CMP, &dt)))
            return rc;
        bool m = sql_like_match(dt.coll, vs[0].s.ptr, vs[0].s.len, vs[1].s.ptr, vs[1].s.len, esc);
        *out = value_int(m != e->negated);
        return 0;
    }
    case SQL_E_IN: {
        if (e->sub) {
            if (ctx->cb && ctx->cb->subquery_eval)
                return ctx->cb->subquery_eval(ctx->user, e, out, ctx->diag);
            return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "IN (subquery)");
        }
        if (e->args[0]->kind == SQL_E_ROW) {
            /* (a, b) IN ((1, 2), (3, 4)): row equalities, NULL when none is true and one is unknown */
            bool unknown = false;
            for (uint32_t i = 1; i < e->nargs; i++) {
                sql_expr_t eq = {.kind = SQL_E_BINARY, .op = SQL_OP_EQ, .nargs = 2, .src = e->src, .src_len = e->src_len};
                sql_expr_t *pair[2] = {e->args[0], e->args[i]};
                eq.args = pair;
                if ((rc = eval_row_cmp(ctx, &eq, &b)))
                    return rc;
                if (b.type == VAL_NULL)
                    unknown = true;
                else if (value_to_int(&b, NULL)) {
                    *out = value_int(!e->negated);
                    return 0;
                }
            }
            *out = unknown ? value_null() : value_int(e->negated);
            return 0;
        }
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)))
            return rc;
        if (a.type == VAL_NULL) {
            *out = value_null();
            return 0;
        }
        value_t *vs = NULL;
        if (a.type == VAL_STRING) {
            /* a string against the list: all of it in one collation first (one item is '=') */
            vs = arena_alloc(ctx->arena, e->nargs * sizeof *vs);
            vs[0] = a;
            bool all_str = true;
            for (uint32_t i = 1; i < e->nargs; i++) {
                if ((rc = sql_expr_eval(ctx, e->args[i], &vs[i])))
                    return rc;
                all_str &= vs[i].type == VAL_STRING || vs[i].type == VAL_NULL;
            }
            coll_dt_t dt;
            if (all_str && (rc = coll_unify(ctx, e->nargs == 2 ? "=" : "in", vs, e->nargs, COLL_AGG_FOR_CMP, &dt)))
                return rc;
            a = vs[0];
        }
        bool saw_null = false;
        for (uint32_t i = 1; i < e->nargs; i++) {
            if (vs)
                b = vs[i];
            else if ((rc = sql_expr_eval(ctx, e->args[i], &b)))
                return rc;
            if (b.type == VAL_NULL) {
                saw_null = true;
                continue;
            }
            value_t x = a;
            if ((rc = sql_eval_coll_cmp(ctx, "=", &x, &b)))
                return rc;
            if (value_compare(&x, &b, ctx->diag) == 0) {
                *out = value_int(!e->negated);
                return 0;
            }
        }
        *out = saw_null ? value_null() : value_int(e->negated);
        return 0;
    }
    case SQL_E_CASE: {
        const sql_expr_t *operand = e->args[0];
        if (operand && (rc = sql_expr_eval(ctx, operand, &a)))
            return rc;
        /* the results: THEN ..., ELSE, aggregated as one (MariaDB's 'case') */
        uint32_t nthen = e->nargs / 2;
        const sql_expr_t **res = arena_alloc(ctx->arena, (nthen + 1) * sizeof *res);
        for (uint32_t i = 0; i < nthen; i++)
            res[i] = e->args[2 + 2 * i];
        res[nthen] = e->else_expr;
        value_t *whens = NULL;
        if (operand && a.type == VAL_STRING) {
            /* CASE x WHEN y ...: x and every WHEN are compared in one collation */
            whens = arena_alloc(ctx->arena, (nthen + 1) * sizeof *whens);
            whens[0] = a;
            bool all_str = true;
            for (uint32_t i = 0; i < nthen; i++) {
                if ((rc = sql_expr_eval(ctx, e->args[1 + 2 * i], &whens[1 + i])))
                    return rc;
                all_str &= whens[1 + i].type == VAL_STRING || whens[1 + i].type == VAL_NULL;
            }
            coll_dt_t dt;
            if (all_str && (rc = coll_unify(ctx, "case", whens, nthen + 1, COLL_AGG_FOR_CMP, &dt)))
                return rc;
            a = whens[0];
        }
        int taken = (int)nthen;
        for (uint32_t i = 1; i + 1 < e->nargs; i += 2) {
            if (whens)
                b = whens[1 + i / 2];
            else if ((rc = sql_expr_eval(ctx, e->args[i], &b)))
                return rc;
            bool hit;
            if (operand) {
                value_t x = a;
                sql_json_cmp_prepare(ctx, operand, e->args[i], &x, &b);
                if ((rc = sql_eval_coll_cmp(ctx, "case", &x, &b)))
                    return rc;
                hit = a.type != VAL_NULL && b.type != VAL_NULL && value_compare(&x, &b, ctx->diag) == 0;
            }
            else
                hit = truth(ctx, &b) == 1;
            if (hit) {
                taken = (int)(i / 2);
                break;
            }
        }
        if (res[taken]) {
            if ((rc = sql_expr_eval(ctx, res[taken], out)))
                return rc;
        } else {
            *out = value_null();
        }
        return coll_branches(ctx, "case", res, nthen + 1, taken, out);
    }
    case SQL_E_FUNC:
        return eval_func(ctx, e, out);
    case SQL_E_CAST:
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)))
            return rc;
        if (a.type == VAL_NULL) {
            *out = a;
            return 0;
        }
        if ((rc = eval_cast(ctx, e, &a, out)) == 0 && out->type == VAL_STRING)
            value_set_deriv(out, COLL_DERIV_IMPLICIT, false); /* CAST(x AS CHAR) is as strong as a column */
        return rc;
    case SQL_E_CONVERT_USING:
    case SQL_E_COLLATE:
        if ((rc = sql_expr_eval(ctx, e->args[0], &a)))
            return rc;
        if (a.type == VAL_NULL) {
            *out = a;
            return 0;
        }
        *out = to_str(ctx, &a);
        if (e->kind == SQL_E_CONVERT_USING && out->coll != (uint16_t)e->cast.coll) {
            /* CONVERT(x USING cs): the bytes change character set ('?' for what cs cannot hold) */
            size_t n, bad;
            const char *p = sql_str_convert(ctx->arena, out->s.ptr, out->s.len, out->coll, (uint16_t)e->cast.coll, &n, &bad);
            if (bad != SIZE_MAX && bad < out->s.len) {
                /* MariaDB names the first character it could not convert, in hex */
                size_t cl = 1;
                unsigned char c0 = (unsigned char)out->s.ptr[bad];
                if (value_coll_mbmaxlen(out->coll) > 1)
                    cl = c0 < 0x80 ? 1 : c0 < 0xE0 ? 2 : c0 < 0xF0 ? 3 : 4;
                char hex[16] = "";
                for (size_t k = 0; k < cl && bad + k < out->s.len && k < 4; k++)
                    snprintf(hex + 2 * k, 3, "%02X", (unsigned char)out->s.ptr[bad + k]);
                const char *from = value_coll_name(out->coll), *to = value_coll_name((uint16_t)e->cast.coll);
                diag_warn(ctx->diag, ER_CANNOT_CONVERT_CHARACTER,
                          arena_strndup(ctx->arena, from, strcspn(from, "_")), hex, arena_strndup(ctx->arena, to, strcspn(to, "_")));
            }
            out->s.ptr = p;
            out->s.len = n;
        }
        if (e->kind == SQL_E_COLLATE && a.type == VAL_STRING && out->coll != COLL_BINARY &&
            strcmp(value_coll_charset(out->coll), value_coll_charset((uint16_t)e->cast.coll)) != 0)
            return diag_error(ctx->diag, ER_COLLATION_CHARSET_MISMATCH, value_coll_name((uint16_t)e->cast.coll),
                              value_coll_charset(out->coll));
        out->coll = (uint16_t)e->cast.coll;
        value_set_deriv(out, e->kind == SQL_E_COLLATE ? COLL_DERIV_EXPLICIT : COLL_DERIV_IMPLICIT,
                        value_deriv_ascii(out));
        return 0;
    case SQL_E_DEFAULT:
        if (e->nargs == 1 && ctx->cb && ctx->cb->default_get)
            return ctx->cb->default_get(ctx->user, e->args[0], out, ctx->diag);
        return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "DEFAULT here");
    case SQL_E_ROW:
        return diag_error(ctx->diag, ER_OPERAND_COLUMNS, 1);
    case SQL_E_SUBQUERY:
    case SQL_E_EXISTS:
    case SQL_E_QUANTIFIED:
        if (ctx->cb && ctx->cb->subquery_eval)
            return ctx->cb->subquery_eval(ctx->user, e, out, ctx->diag);
        return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "subqueries");
    case SQL_E_REGEXP:
        return sql_eval_regexp_op(ctx, e, out);
    case SQL_E_INTERVAL:
        return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "INTERVAL");
    }
    return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, "expression");
}

void sql_eval_ctx_init(sql_eval_ctx_t *ctx, arena_t *a, diag_t *d, const sql_eval_cb_t *cb, void *user)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->max_allowed_packet = 16u << 20;
    ctx->arena = a;
    ctx->diag = d;
    ctx->cb = cb;
    ctx->user = user;
    ctx->stmt_time_us = time_wall_us();
    time_t now = (time_t)(ctx->stmt_time_us / 1000000);
    /* the system zone's offset, looked up once a second per thread (a routine initialises a context per
     * statement and expression; offsets change on whole seconds) */
    static _Thread_local time_t lt_sec = -1;
    static _Thread_local int32_t lt_off;
    if (now != lt_sec) {
        struct tm lt;
        localtime_r(&now, &lt);
        lt_off = (int32_t)lt.tm_gmtoff;
        lt_sec = now;
    }
    ctx->tz_offset_sec = sql_tz_active() ? sql_tz_offset_now() : lt_off; /* @@time_zone (sql/value/tz.h) */
    uint64_t s = ctx->stmt_time_us;
    ctx->rand_seed1 = (s * 0x10001 + 55555555) % 0x3FFFFFFFUL;
    ctx->rand_seed2 = (s * 0x10000001) % 0x3FFFFFFFUL;
    ctx->div_precision_increment = 4;
}
