/*
 * Date and time functions: DATE_ADD / DATE_SUB / ADDDATE / SUBDATE and `x +/- INTERVAL n unit`, DATEDIFF,
 * TIMESTAMPDIFF, TIMESTAMPADD, DATE_FORMAT, STR_TO_DATE, DATE(), TIME(), the field extractors (YEAR, MONTH, DAY,
 * HOUR, MINUTE, SECOND, MICROSECOND, DAYOFWEEK, WEEKDAY, DAYOFYEAR, QUARTER, DAYNAME, MONTHNAME), LAST_DAY,
 * TO_DAYS, FROM_DAYS.  Results and warnings follow MariaDB 10.11 (tests/unit/sql_date_cases.h).
 *
 * Days are counted with the proleptic Gregorian calendar (days_from_civil / civil_from_days, day 0 = 1970-01-01).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/expr/expr_int.h"

static int64_t d_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_d(int64_t z, uint32_t *y, uint32_t *m, uint32_t *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t yy = (int64_t)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (uint32_t)(yy + (*m <= 2));
}

static bool leap_year(uint32_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static uint32_t month_days(uint32_t y, uint32_t m)
{
    static const uint8_t dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap_year(y) ? 29 : dm[m - 1];
}

static void warn_incorrect(sql_eval_ctx_t *ctx, const char *type, const value_t *v)
{
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    char msg[300];
    snprintf(msg, sizeof msg, "Incorrect %s value: '%.*s'", type, (int)MIN(n, 200), s ? s : "");
    diag_push_msg(ctx->diag, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, msg);
}

/* Number YYYYMMDD[HHMMSS] / YYMMDD[HHMMSS] -> datetime */
static bool number_dt(const value_t *v, value_t *out)
{
    if (v->type == VAL_DOUBLE || v->type == VAL_DECIMAL) {
        value_t iv = value_int(value_to_int(v, NULL));
        return number_dt(&iv, out);
    }
    int64_t x = value_to_int(v, NULL);
    if (x <= 0)
        return false;
    char buf[32], t[40];
    int nd = snprintf(buf, sizeof buf, "%lld", (long long)x);
    if (nd == 5 || nd == 6) {
        snprintf(buf, sizeof buf, "%06lld", (long long)x);
        snprintf(t, sizeof t, "%.2s-%.2s-%.2s", buf, buf + 2, buf + 4);
    } else if (nd == 7 || nd == 8) {
        snprintf(buf, sizeof buf, "%08lld", (long long)x);
        snprintf(t, sizeof t, "%.4s-%.2s-%.2s", buf, buf + 4, buf + 6);
    } else if (nd >= 11 && nd <= 12) {
        snprintf(buf, sizeof buf, "%012lld", (long long)x);
        snprintf(t, sizeof t, "%.2s-%.2s-%.2s %.2s:%.2s:%.2s", buf, buf + 2, buf + 4, buf + 6, buf + 8, buf + 10);
    } else if (nd >= 13 && nd <= 14) {
        snprintf(buf, sizeof buf, "%014lld", (long long)x);
        snprintf(t, sizeof t, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", buf, buf + 4, buf + 6, buf + 8, buf + 10, buf + 12);
    } else {
        return false;
    }
    return value_parse_datetime(t, strlen(t), out);
}

/*
 * Any value as a date/datetime.  Returns false (after warning 1292 "Incorrect datetime value") when it is not
 * one.  TIME values become today's date + time? MariaDB uses CURRENT_DATE; we do too.
 */
static bool get_dt(sql_eval_ctx_t *ctx, const value_t *v, value_t *out, const char *what)
{
    switch (v->type) {
    case VAL_DATE: case VAL_DATETIME: case VAL_TIMESTAMP:
        *out = *v;
        return true;
    case VAL_STRING:
        if (value_parse_datetime(v->s.ptr, v->s.len, out))
            return true;
        break;
    case VAL_INT: case VAL_UINT: case VAL_DECIMAL: case VAL_DOUBLE:
        if (number_dt(v, out))
            return true;
        break;
    default:
        break;
    }
    warn_incorrect(ctx, what, v);
    return false;
}

/* Any value as a TIME (for HOUR/MINUTE/SECOND/TIME()). */
static bool get_time(sql_eval_ctx_t *ctx, const value_t *v, value_t *out)
{
    switch (v->type) {
    case VAL_TIME: *out = *v; return true;
    case VAL_DATETIME: case VAL_TIMESTAMP: *out = *v; return true;
    case VAL_DATE: *out = *v; out->t.hour = out->t.minute = out->t.second = out->t.usec = 0; return true;
    case VAL_STRING: {
        size_t i = 0;
        while (i < v->s.len && (isspace((unsigned char)v->s.ptr[i]) || isdigit((unsigned char)v->s.ptr[i]) ||
                                v->s.ptr[i] == '-'))
            i++;
        bool time_first = i < v->s.len && v->s.ptr[i] == ':' && !memchr(v->s.ptr, '-', i ? i - 0 : 0);
        if (time_first && value_parse_time(v->s.ptr, v->s.len, out))
            return true;
        if (value_parse_datetime(v->s.ptr, v->s.len, out) || value_parse_time(v->s.ptr, v->s.len, out))
            return true;
        break;
    }
    default: {
        size_t n;
        const char *s = value_to_text(ctx->arena, v, &n);
        if (value_parse_time(s, n, out))
            return true;
    }
    }
    warn_incorrect(ctx, "time", v);
    return false;
}

/* ---------------------------------------------------------------- intervals */

typedef struct ival {
    bool neg;
    int64_t months;   /* years*12 + months */
    __int128 usec;    /* days, hours, minutes, seconds, microseconds as microseconds */
    bool has_time;    /* a unit below DAY was involved */
    int dec;          /* fraction digits the result shows (SECOND with 1.5: 1; MICROSECOND units: 6) */
} ival_t;

static const struct unit { const char *name; int nf; char fields[5]; } units[] = {
    /* fields: Y=year M=month D=day h=hour m=minute s=second u=microsecond W=week Q=quarter */
    {"MICROSECOND", 1, "u"}, {"SECOND", 1, "s"}, {"MINUTE", 1, "m"}, {"HOUR", 1, "h"}, {"DAY", 1, "D"},
    {"WEEK", 1, "W"}, {"MONTH", 1, "M"}, {"QUARTER", 1, "Q"}, {"YEAR", 1, "Y"},
    {"SECOND_MICROSECOND", 2, "su"}, {"MINUTE_MICROSECOND", 3, "msu"}, {"MINUTE_SECOND", 2, "ms"},
    {"HOUR_MICROSECOND", 4, "hmsu"}, {"HOUR_SECOND", 3, "hms"}, {"HOUR_MINUTE", 2, "hm"},
    {"DAY_MICROSECOND", 5, "Dhmsu"}, {"DAY_SECOND", 4, "Dhms"}, {"DAY_MINUTE", 3, "Dhm"}, {"DAY_HOUR", 2, "Dh"},
    {"YEAR_MONTH", 2, "YM"},
};

static const struct unit *find_unit(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(units); i++)
        if (strcasecmp(units[i].name, name) == 0)
            return &units[i];
    return NULL;
}

static void add_field(ival_t *iv, char f, int64_t v, int usec_digits)
{
    switch (f) {
    case 'Y': iv->months += v * 12; break;
    case 'Q': iv->months += v * 3; break;
    case 'M': iv->months += v; break;
    case 'W': iv->usec += (__int128)v * 7 * 86400000000LL; break;
    case 'D': iv->usec += (__int128)v * 86400000000LL; break;
    case 'h': iv->usec += (__int128)v * 3600000000LL; iv->has_time = true; break;
    case 'm': iv->usec += (__int128)v * 60000000LL; iv->has_time = true; break;
    case 's': iv->usec += (__int128)v * 1000000LL; iv->has_time = true; break;
    case 'u': {
        /* in compound units the fraction is read as written digits ('1.5' SECOND_MICROSECOND = 1s 500000us) */
        int64_t us = v;
        if (usec_digits > 0)
            for (int k = usec_digits; k < 6; k++)
                us *= 10;
        iv->usec += us;
        iv->has_time = true;
        iv->dec = 6;
        break;
    }
    }
}

/* The value of INTERVAL expr unit; false (NULL result) when the value is NULL or the unit unknown. */
static int get_interval(sql_eval_ctx_t *ctx, const sql_expr_t *ie, ival_t *iv, bool *is_null)
{
    memset(iv, 0, sizeof *iv);
    *is_null = false;
    value_t v;
    int rc = sql_expr_eval(ctx, ie->args[0], &v);
    if (rc)
        return rc;
    if (v.type == VAL_NULL) {
        *is_null = true;
        return 0;
    }
    const struct unit *u = find_unit(ie->interval_unit);
    if (!u)
        return diag_error(ctx->diag, ER_NOT_SUPPORTED_YET, ie->interval_unit);
    if (u->nf == 1) {
        if (u->fields[0] == 's' && (v.type == VAL_DECIMAL || v.type == VAL_DOUBLE || v.type == VAL_STRING)) {
            /* SECOND keeps a fraction */
            double d = value_to_double(&v, ctx->diag);
            iv->usec = (__int128)llround(d * 1e6);
            iv->has_time = true;
            iv->dec = v.type == VAL_DECIMAL ? MIN(v.dec, 6) : 6;
            if (iv->usec < 0) {
                iv->neg = true;
                iv->usec = -iv->usec;
            }
            return 0;
        }
        int64_t x = value_to_int(&v, ctx->diag);
        if (x < 0) {
            iv->neg = true;
            x = -x;
        }
        add_field(iv, u->fields[0], x, 0);
        return 0;
    }
    /* compound: digits groups separated by anything, right-aligned onto the fields */
    size_t n;
    const char *s = value_to_text(ctx->arena, &v, &n);
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i < n && s[i] == '-') {
        iv->neg = true;
        i++;
    }
    int64_t vals[8];
    int ndig[8];
    int nv = 0;
    while (i < n && nv < 8) {
        while (i < n && !isdigit((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        int64_t x = 0;
        int nd = 0;
        while (i < n && isdigit((unsigned char)s[i])) {
            if (x < 100000000000000LL)
                x = x * 10 + (s[i] - '0');
            i++;
            nd++;
        }
        vals[nv] = x;
        ndig[nv++] = nd;
    }
    if (nv > u->nf) {
        *is_null = true;
        return 0;
    }
    int off = u->nf - nv;
    for (int k = 0; k < nv; k++) {
        char f = u->fields[off + k];
        add_field(iv, f, vals[k], f == 'u' && nv > 1 ? ndig[k] : 0);
    }
    return 0;
}

static bool overflow_null(sql_eval_ctx_t *ctx, value_t *out)
{
    diag_warn(ctx->diag, ER_DATETIME_FUNCTION_OVERFLOW, "datetime");
    *out = value_null();
    return true;
}

/* dt (+/-) iv.  dt is a DATE/DATETIME/TIMESTAMP or TIME value. */
static int apply_interval(sql_eval_ctx_t *ctx, const value_t *dt, const ival_t *iv0, bool subtract, value_t *out)
{
    ival_t iv = *iv0;
    bool neg = iv.neg != subtract;
    if (dt->type == VAL_TIME) {
        if (iv.months) { /* MariaDB: TIME + INTERVAL n MONTH is NULL */
            *out = value_null();
            return 0;
        }
        __int128 t = ((__int128)dt->t.hour * 3600 + dt->t.minute * 60 + dt->t.second) * 1000000 + dt->t.usec;
        if (dt->t.neg)
            t = -t;
        t += neg ? -iv.usec : iv.usec;
        value_t r = {.type = VAL_TIME};
        if (t < 0) {
            r.t.neg = true;
            t = -t;
        }
        if (t > (__int128)838 * 3600000000LL + 59 * 60000000LL + 59999999) {
            overflow_null(ctx, out);
            return 0;
        }
        r.t.usec = (uint32_t)(t % 1000000);
        t /= 1000000;
        r.t.second = (uint32_t)(t % 60);
        r.t.minute = (uint32_t)(t / 60 % 60);
        r.t.hour = (uint32_t)(t / 3600);
        r.dec = (uint8_t)MAX(dt->dec, iv.dec);
        *out = r;
        return 0;
    }
    value_t r = *dt;
    if (dt->t.month == 0 || dt->t.day == 0) { /* zero dates: NULL with a warning */
        warn_incorrect(ctx, "datetime", dt);
        *out = value_null();
        return 0;
    }
    if (iv.months) {
        int64_t m = (int64_t)r.t.year * 12 + (r.t.month - 1) + (neg ? -iv.months : iv.months);
        if (m < 0 || m / 12 > 9999) {
            overflow_null(ctx, out);
            return 0;
        }
        r.t.year = (uint32_t)(m / 12);
        r.t.month = (uint32_t)(m % 12 + 1);
        uint32_t md = month_days(r.t.year, r.t.month);
        if (r.t.day > md)
            r.t.day = md;
    }
    if (iv.usec) {
        __int128 t = (__int128)d_from_civil(r.t.year, r.t.month, r.t.day) * 86400000000LL +
                     ((__int128)r.t.hour * 3600 + r.t.minute * 60 + r.t.second) * 1000000 + r.t.usec;
        t += neg ? -iv.usec : iv.usec;
        __int128 lo = (__int128)d_from_civil(1, 1, 1) * 86400000000LL; /* a result in year 0 overflows (MariaDB) */
        __int128 hi = (__int128)d_from_civil(10000, 1, 1) * 86400000000LL;
        if (t < lo || t >= hi) {
            overflow_null(ctx, out);
            return 0;
        }
        __int128 days = t >= 0 ? t / 86400000000LL : -((-t + 86400000000LL - 1) / 86400000000LL);
        __int128 rem = t - days * 86400000000LL;
        civil_from_d((int64_t)days, &r.t.year, &r.t.month, &r.t.day);
        r.t.usec = (uint32_t)(rem % 1000000);
        rem /= 1000000;
        r.t.second = (uint32_t)(rem % 60);
        r.t.minute = (uint32_t)(rem / 60 % 60);
        r.t.hour = (uint32_t)(rem / 3600);
    }
    if (r.t.year == 0 && !iv.has_time && r.type == VAL_DATE) {
        /* year 0 is out of range for DATE arithmetic in MariaDB */
    }
    if (r.type == VAL_DATE && iv.has_time)
        r.type = VAL_DATETIME;
    if (r.type == VAL_TIMESTAMP)
        r.type = VAL_DATETIME;
    if (iv.has_time && r.dec < iv.dec)
        r.dec = (uint8_t)iv.dec;
    *out = r;
    return 0;
}

/* DATE_ADD(d, INTERVAL ...) and friends; `iexpr` is the SQL_E_INTERVAL node (or, for ADDDATE(d, n), a plain
 * expression meaning n DAY). */
static int date_add(sql_eval_ctx_t *ctx, const sql_expr_t *dexpr, const sql_expr_t *iexpr, bool subtract,
                    value_t *out)
{
    value_t dv, dt;
    int rc = sql_expr_eval(ctx, dexpr, &dv);
    if (rc)
        return rc;
    ival_t iv;
    bool inull = false;
    if (iexpr->kind == SQL_E_INTERVAL) {
        if ((rc = get_interval(ctx, iexpr, &iv, &inull)))
            return rc;
    } else {
        value_t n;
        if ((rc = sql_expr_eval(ctx, iexpr, &n)))
            return rc;
        memset(&iv, 0, sizeof iv);
        if (n.type == VAL_NULL) {
            inull = true;
        } else {
            int64_t x = value_to_int(&n, ctx->diag);
            if (x < 0) {
                iv.neg = true;
                x = -x;
            }
            add_field(&iv, 'D', x, 0);
        }
    }
    if (dv.type == VAL_NULL || inull) {
        *out = value_null();
        return 0;
    }
    if (dv.type == VAL_TIME) {
        dt = dv;
    } else if (!get_dt(ctx, &dv, &dt, "datetime")) {
        *out = value_null();
        return 0;
    }
    rc = apply_interval(ctx, &dt, &iv, subtract, out);
    if (rc == 0 && dv.type == VAL_STRING && out->type != VAL_NULL) {
        /* a string argument gives a string result (same text) */
        size_t n;
        const char *s = value_to_text(ctx->arena, out, &n);
        *out = value_str(s, n, COLL_DEFAULT);
    }
    return rc;
}

/* ---------------------------------------------------------------- formatting */

static const char *const month_names[] = {"January", "February", "March", "April", "May", "June", "July",
                                          "August", "September", "October", "November", "December"};
static const char *const day_names[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

static int weekday0(const value_t *t) /* 0 = Monday */
{
    int64_t d = d_from_civil(t->t.year, t->t.month, t->t.day);
    return (int)(((d + 3) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
}

static int dayofyear(const value_t *t) { return (int)(d_from_civil(t->t.year, t->t.month, t->t.day) - d_from_civil(t->t.year, 1, 1) + 1); }

/* MySQL's calc_week: behaviour bits 1 = Monday first, 2 = week year, 4 = first weekday (week 1 starts on the
 * first Sunday/Monday of the year); year_out gets the week's year. */
static int calc_week(const value_t *t, int behaviour, int *year_out)
{
    bool monday_first = behaviour & 1, week_year = behaviour & 2, first_weekday = behaviour & 4;
    int64_t daynr = d_from_civil(t->t.year, t->t.month, t->t.day);
    int64_t first_daynr = d_from_civil(t->t.year, 1, 1);
    int wd = (int)(((first_daynr + 3) % 7 + 7) % 7); /* Monday = 0 */
    int weekday = monday_first ? wd : (wd + 1) % 7;
    int days;
    *year_out = (int)t->t.year;
    if (t->t.month == 1 && t->t.day <= (uint32_t)(7 - weekday)) {
        if (!week_year && ((first_weekday && weekday != 0) || (!first_weekday && weekday >= 4)))
            return 0;
        week_year = true;
        (*year_out)--;
        days = leap_year((uint32_t)*year_out) ? 366 : 365;
        first_daynr -= days;
        weekday = (weekday + 53 * 7 - days) % 7;
    }
    if ((first_weekday && weekday != 0) || (!first_weekday && weekday >= 4))
        days = (int)(daynr - (first_daynr + (7 - weekday)));
    else
        days = (int)(daynr - (first_daynr - weekday));
    if (week_year && days >= 52 * 7) {
        weekday = (weekday + (leap_year((uint32_t)*year_out) ? 366 : 365)) % 7;
        if ((!first_weekday && weekday < 4) || (first_weekday && weekday == 0)) {
            (*year_out)++;
            return 1;
        }
    }
    return days / 7 + 1;
}

/* WEEK(d, mode) -> calc_week behaviour (MySQL's week_mode) */
static int week_mode(int mode)
{
    int f = mode & 7;
    if (!(f & 1))
        f ^= 4;
    return f;
}

static value_t date_format(sql_eval_ctx_t *ctx, const value_t *t, const char *f, size_t fn, bool is_time)
{
    buf_t b;
    buf_init(&b);
    if (is_time && t->t.neg) /* a negative TIME: one '-' before everything (MariaDB's make_date_time) */
        buf_append_byte(&b, '-');
    for (size_t i = 0; i < fn; i++) {
        if (f[i] != '%' || i + 1 == fn) {
            buf_append(&b, &f[i], 1);
            continue;
        }
        char c = f[++i];
        uint32_t h12 = t->t.hour % 12 == 0 ? 12 : t->t.hour % 12;
        int yr;
        switch (c) {
        case 'Y': buf_printf(&b, "%04u", t->t.year); break;
        case 'y': buf_printf(&b, "%02u", t->t.year % 100); break;
        case 'm': buf_printf(&b, "%02u", t->t.month); break;
        case 'c': buf_printf(&b, "%u", t->t.month); break;
        case 'd': buf_printf(&b, "%02u", t->t.day); break;
        case 'e': buf_printf(&b, "%u", t->t.day); break;
        case 'D': {
            uint32_t d = t->t.day;
            const char *suf = (d % 100 >= 11 && d % 100 <= 13) ? "th" : d % 10 == 1 ? "st" : d % 10 == 2 ? "nd" : d % 10 == 3 ? "rd" : "th";
            buf_printf(&b, "%u%s", d, suf);
            break;
        }
        case 'H': buf_printf(&b, "%02u", t->t.hour); break;
        case 'k': buf_printf(&b, "%u", t->t.hour); break;
        case 'h': case 'I': buf_printf(&b, "%02u", h12); break;
        case 'l': buf_printf(&b, "%u", h12); break;
        case 'i': buf_printf(&b, "%02u", t->t.minute); break;
        case 's': case 'S': buf_printf(&b, "%02u", t->t.second); break;
        case 'f': buf_printf(&b, "%06u", t->t.usec); break;
        case 'p': buf_printf(&b, "%s", t->t.hour % 24 < 12 ? "AM" : "PM"); break;
        case 'r': buf_printf(&b, "%02u:%02u:%02u %s", h12, t->t.minute, t->t.second, t->t.hour % 24 < 12 ? "AM" : "PM"); break;
        case 'T': buf_printf(&b, "%02u:%02u:%02u", t->t.hour, t->t.minute, t->t.second); break;
        case 'M': case 'b': case 'W': case 'a': case 'w': case 'j': case 'U': case 'u': case 'V': case 'v':
        case 'X': case 'x':
            if (is_time || t->t.month == 0) {
                goto null_out;
            }
            if (c == 'M') buf_printf(&b, "%s", month_names[t->t.month - 1]);
            else if (c == 'b') buf_printf(&b, "%.3s", month_names[t->t.month - 1]);
            else if (c == 'W') buf_printf(&b, "%s", day_names[weekday0(t)]);
            else if (c == 'a') buf_printf(&b, "%.3s", day_names[weekday0(t)]);
            else if (c == 'w') buf_printf(&b, "%d", (weekday0(t) + 1) % 7);
            else if (c == 'j') buf_printf(&b, "%03d", dayofyear(t));
            else if (c == 'U') buf_printf(&b, "%02d", calc_week(t, 4, &yr));
            else if (c == 'u') buf_printf(&b, "%02d", calc_week(t, 1, &yr));
            else if (c == 'V') buf_printf(&b, "%02d", calc_week(t, 6, &yr));
            else if (c == 'v') buf_printf(&b, "%02d", calc_week(t, 3, &yr));
            else if (c == 'X') { calc_week(t, 6, &yr); buf_printf(&b, "%04d", yr); }
            else { calc_week(t, 3, &yr); buf_printf(&b, "%04d", yr); }
            break;
        default: buf_append(&b, &c, 1); break;
        }
    }
    {
        char *s = arena_strndup(ctx->arena, b.len ? (const char *)b.data : "", b.len);
        value_t v = value_str(s, b.len, COLL_DEFAULT);
        buf_free(&b);
        return v;
    }
null_out:
    buf_free(&b);
    return value_null();
}

/* STR_TO_DATE(str, fmt): the common specifiers.  NULL + warning 1411 on mismatch. */
static bool str_to_date(const char *s, size_t n, const char *f, size_t fn, value_t *out, bool *has_date, bool *has_time)
{
    value_t r = {.type = VAL_DATETIME};
    size_t i = 0;
    bool pm = false, h12 = false;
    *has_date = *has_time = false;
    for (size_t k = 0; k < fn; k++) {
        if (f[k] != '%' || k + 1 == fn) {
            if (isspace((unsigned char)f[k])) {
                while (i < n && isspace((unsigned char)s[i]))
                    i++;
                continue;
            }
            if (i >= n || s[i] != f[k])
                return false;
            i++;
            continue;
        }
        char c = f[++k];
        uint32_t *dst = NULL;
        int maxd = 2;
        switch (c) {
        case 'Y': dst = &r.t.year; maxd = 4; *has_date = true; break;
        case 'y': dst = &r.t.year; maxd = 2; *has_date = true; break;
        case 'm': case 'c': dst = &r.t.month; *has_date = true; break;
        case 'd': case 'e': dst = &r.t.day; *has_date = true; break;
        case 'H': case 'k': dst = &r.t.hour; *has_time = true; break;
        case 'h': case 'I': case 'l': dst = &r.t.hour; h12 = true; *has_time = true; break;
        case 'i': dst = &r.t.minute; *has_time = true; break;
        case 's': case 'S': dst = &r.t.second; *has_time = true; break;
        case 'f': dst = &r.t.usec; maxd = 6; *has_time = true; break;
        case 'p':
            if (i + 2 <= n && strncasecmp(s + i, "PM", 2) == 0) pm = true;
            else if (!(i + 2 <= n && strncasecmp(s + i, "AM", 2) == 0)) return false;
            i += 2;
            continue;
        case 'M': case 'b': {
            bool found = false;
            for (int m = 0; m < 12 && !found; m++) {
                size_t ml = c == 'M' ? strlen(month_names[m]) : 3;
                if (i + ml <= n && strncasecmp(s + i, month_names[m], ml) == 0) {
                    r.t.month = (uint32_t)m + 1;
                    i += ml;
                    found = true;
                }
            }
            if (!found)
                return false;
            *has_date = true;
            continue;
        }
        case 'a': case 'W': { /* a day name: read and ignored */
            bool found = false;
            for (int d = 0; d < 7 && !found; d++) {
                size_t dl = c == 'W' ? strlen(day_names[d]) : 3;
                if (i + dl <= n && strncasecmp(s + i, day_names[d], dl) == 0) {
                    i += dl;
                    found = true;
                }
            }
            if (!found)
                return false;
            continue;
        }
        case 'r': { /* hh:mm:ss AM|PM */
            value_t tt;
            bool hd, ht;
            size_t j = i;
            while (j < n && (isdigit((unsigned char)s[j]) || s[j] == ':'))
                j++;
            if (!str_to_date(s + i, j - i, "%h:%i:%s", 8, &tt, &hd, &ht))
                return false;
            while (j < n && isspace((unsigned char)s[j]))
                j++;
            bool p_m = j + 2 <= n && strncasecmp(s + j, "PM", 2) == 0;
            if (!p_m && !(j + 2 <= n && strncasecmp(s + j, "AM", 2) == 0))
                return false;
            r.t.hour = tt.t.hour % 12 + (p_m ? 12 : 0);
            r.t.minute = tt.t.minute;
            r.t.second = tt.t.second;
            i = j + 2;
            *has_time = true;
            continue;
        }
        case 'T':
            if (!str_to_date(s + i, n - i, "%H:%i:%s", 8, out, has_date, has_time))
                return false;
            r.t.hour = out->t.hour; r.t.minute = out->t.minute; r.t.second = out->t.second;
            while (i < n && (isdigit((unsigned char)s[i]) || s[i] == ':'))
                i++;
            *has_time = true;
            continue;
        case '%':
            if (i >= n || s[i] != '%')
                return false;
            i++;
            continue;
        default:
            return false;
        }
        uint32_t v = 0;
        int nd = 0;
        while (i < n && isdigit((unsigned char)s[i]) && nd < maxd) {
            v = v * 10 + (uint32_t)(s[i] - '0');
            i++;
            nd++;
        }
        if (!nd)
            return false;
        if (c == 'f')
            for (int z = nd; z < 6; z++)
                v *= 10;
        if (c == 'y')
            v += v < 70 ? 2000 : 1900;
        *dst = v;
    }
    if (h12) {
        if (r.t.hour > 12 || r.t.hour == 0)
            return false;
        r.t.hour = r.t.hour % 12 + (pm ? 12 : 0);
    }
    if (r.t.month > 12 || r.t.day > 31 || r.t.hour > 23 || r.t.minute > 59 || r.t.second > 59)
        return false;
    /* a day past the month's end (2024-02-30) is kept as written, as MariaDB's STR_TO_DATE does */
    *out = r;
    return true;
}

/* ---------------------------------------------------------------- entry points */

int sql_eval_date_interval(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out)
{
    /* e: binary + or - with an INTERVAL operand */
    const sql_expr_t *l = e->args[0], *r = e->args[1];
    if (l->kind == SQL_E_INTERVAL) {
        if (e->op == SQL_OP_SUB)
            return diag_error(ctx->diag, ER_PARSE_ERROR, "You have an error in your SQL syntax", "INTERVAL", 1);
        return date_add(ctx, r, l, false, out);
    }
    return date_add(ctx, l, r, e->op == SQL_OP_SUB, out);
}

/* DATE_ADD, TIMESTAMPADD, TIMESTAMPDIFF ...: functions that need their INTERVAL or unit argument unevaluated. */
int sql_eval_date_add_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null, value_t *out)
{
    switch (e->func.fn) {
    case SQL_FN_DATE_ADD: case SQL_FN_ADDDATE:
        return date_add(ctx, e->args[0], e->args[1], false, out);
    case SQL_FN_DATE_SUB: case SQL_FN_SUBDATE:
        return date_add(ctx, e->args[0], e->args[1], true, out);
    case SQL_FN_TIMESTAMPADD: {
        /* TIMESTAMPADD(unit, n, dt): build the interval from the unit word */
        if (e->args[0]->kind != SQL_E_COLUMN || !find_unit(e->args[0]->col.name))
            return diag_error(ctx->diag, ER_PARSE_ERROR, "You have an error in your SQL syntax", arena_strndup(ctx->arena, e->src, e->src_len), 1);
        sql_expr_t iv = {.kind = SQL_E_INTERVAL, .nargs = 1, .args = (sql_expr_t **)&e->args[1], .slot = -1};
        iv.interval_unit = e->args[0]->col.name;
        int rc = date_add(ctx, e->args[2], &iv, false, out);
        if (rc == 0 && out->type == VAL_STRING) {
            value_t t;
            if (value_parse_datetime(out->s.ptr, out->s.len, &t))
                *out = t;
        }
        return rc;
    }
    case SQL_FN_TIMESTAMPDIFF: {
        if (e->args[0]->kind != SQL_E_COLUMN || !find_unit(e->args[0]->col.name))
            return diag_error(ctx->diag, ER_PARSE_ERROR, "You have an error in your SQL syntax", arena_strndup(ctx->arena, e->src, e->src_len), 1);
        const struct unit *u = find_unit(e->args[0]->col.name);
        value_t a, b, ta, tb;
        int rc;
        if ((rc = sql_expr_eval(ctx, e->args[1], &a)) || (rc = sql_expr_eval(ctx, e->args[2], &b)))
            return rc;
        if (a.type == VAL_NULL || b.type == VAL_NULL || !get_dt(ctx, &a, &ta, "datetime") ||
            !get_dt(ctx, &b, &tb, "datetime")) {
            *out = value_null();
            return 0;
        }
        __int128 ua = (__int128)d_from_civil(ta.t.year, ta.t.month, ta.t.day) * 86400000000LL +
                      ((__int128)ta.t.hour * 3600 + ta.t.minute * 60 + ta.t.second) * 1000000 + ta.t.usec;
        __int128 ub = (__int128)d_from_civil(tb.t.year, tb.t.month, tb.t.day) * 86400000000LL +
                      ((__int128)tb.t.hour * 3600 + tb.t.minute * 60 + tb.t.second) * 1000000 + tb.t.usec;
        __int128 diff = ub - ua;
        int64_t r;
        char f = u->nf == 1 ? u->fields[0] : 0;
        if (f == 'M' || f == 'Q' || f == 'Y') {
            /* whole months between, adjusted when the day/time of the end is before the start's */
            bool neg = diff < 0;
            const value_t *lo = neg ? &tb : &ta, *hi = neg ? &ta : &tb;
            int64_t months = ((int64_t)hi->t.year * 12 + hi->t.month) - ((int64_t)lo->t.year * 12 + lo->t.month);
            uint64_t lo_rest = ((uint64_t)lo->t.day * 86400 + lo->t.hour * 3600 + lo->t.minute * 60 + lo->t.second) * 1000000 + lo->t.usec;
            uint64_t hi_rest = ((uint64_t)hi->t.day * 86400 + hi->t.hour * 3600 + hi->t.minute * 60 + hi->t.second) * 1000000 + hi->t.usec;
            if (hi_rest < lo_rest)
                months--;
            if (f == 'Q') months /= 3;
            if (f == 'Y') months /= 12;
            r = neg ? -months : months;
        } else {
            __int128 div = f == 'u' ? 1 : f == 's' ? 1000000 : f == 'm' ? 60000000 : f == 'h' ? 3600000000LL
                         : f == 'D' ? 86400000000LL : f == 'W' ? 7 * 86400000000LL : 0;
            if (!div)
                return diag_error(ctx->diag, ER_PARSE_ERROR, "You have an error in your SQL syntax", arena_strndup(ctx->arena, e->src, e->src_len), 1);
            r = (int64_t)(diff / div);
        }
        *out = value_int(r);
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* Date parts and conversions of evaluated arguments: NULL when an argument is. */
int sql_eval_date_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    value_t t;
    if (any_null) {
        *out = value_null();
        return 0;
    }
    switch (fn) {
    case SQL_FN_DATEDIFF: {
        value_t t2;
        if (!get_dt(ctx, &a[0], &t, "datetime") || !get_dt(ctx, &a[1], &t2, "datetime") || !t.t.month || !t2.t.month) {
            *out = value_null();
            return 0;
        }
        *out = value_int(d_from_civil(t.t.year, t.t.month, t.t.day) - d_from_civil(t2.t.year, t2.t.month, t2.t.day));
        return 0;
    }
    case SQL_FN_DATE_FORMAT: {
        bool is_time = a[0].type == VAL_TIME;
        if (is_time) t = a[0];
        else if (!get_dt(ctx, &a[0], &t, "datetime")) { *out = value_null(); return 0; }
        size_t fnl;
        const char *f = value_to_text(ctx->arena, &a[1], &fnl);
        *out = date_format(ctx, &t, f, fnl, is_time);
        return 0;
    }
    case SQL_FN_STR_TO_DATE: {
        size_t sn, fnl;
        const char *s = value_to_text(ctx->arena, &a[0], &sn);
        const char *f = value_to_text(ctx->arena, &a[1], &fnl);
        bool hd, ht;
        if (!str_to_date(s, sn, f, fnl, &t, &hd, &ht)) {
            char msg[400];
            snprintf(msg, sizeof msg, "Incorrect datetime value: '%.*s' for function str_to_date", (int)MIN(sn, 200), s);
            diag_push_msg(ctx->diag, DIAG_WARNING, 1411, msg);
            *out = value_null();
            return 0;
        }
        if (hd && !ht) t.type = VAL_DATE;
        else if (ht && !hd) { t.type = VAL_TIME; t.t.year = t.t.month = t.t.day = 0; }
        if (t.t.usec) t.dec = 6;
        *out = t;
        return 0;
    }
    case SQL_FN_DATE:
        if (!get_dt(ctx, &a[0], &t, "datetime")) { *out = value_null(); return 0; }
        t.type = VAL_DATE;
        t.t.hour = t.t.minute = t.t.second = t.t.usec = 0;
        t.dec = 0;
        *out = t;
        return 0;
    case SQL_FN_TIME:
        if (!get_time(ctx, &a[0], &t)) { *out = value_null(); return 0; }
        t.type = VAL_TIME;
        t.t.year = t.t.month = t.t.day = 0;
        *out = t;
        return 0;
    case SQL_FN_HOUR: case SQL_FN_MINUTE: case SQL_FN_SECOND: case SQL_FN_MICROSECOND:
        if (!get_time(ctx, &a[0], &t)) { *out = value_null(); return 0; }
        *out = value_int(fn == SQL_FN_HOUR ? t.t.hour : fn == SQL_FN_MINUTE ? t.t.minute
                         : fn == SQL_FN_SECOND ? t.t.second : t.t.usec);
        return 0;
    case SQL_FN_YEAR: case SQL_FN_MONTH: case SQL_FN_DAY: case SQL_FN_DAYOFMONTH: case SQL_FN_QUARTER:
        if (!get_dt(ctx, &a[0], &t, "datetime")) { *out = value_null(); return 0; }
        *out = value_int(fn == SQL_FN_YEAR ? t.t.year : fn == SQL_FN_MONTH ? t.t.month
                         : fn == SQL_FN_QUARTER ? (t.t.month + 2) / 3 : t.t.day);
        return 0;
    case SQL_FN_DAYOFWEEK: case SQL_FN_WEEKDAY: case SQL_FN_DAYOFYEAR: case SQL_FN_DAYNAME: case SQL_FN_MONTHNAME:
    case SQL_FN_LAST_DAY: case SQL_FN_TO_DAYS: case SQL_FN_WEEK:
        if (!get_dt(ctx, &a[0], &t, "datetime")) {
            *out = value_null();
            return 0;
        }
        if (t.t.month == 0 || t.t.day == 0) {
            warn_incorrect(ctx, "datetime", &a[0]);
            *out = value_null();
            return 0;
        }
        switch (fn) {
        case SQL_FN_DAYOFWEEK: *out = value_int((weekday0(&t) + 1) % 7 + 1); break;
        case SQL_FN_WEEKDAY: *out = value_int(weekday0(&t)); break;
        case SQL_FN_DAYOFYEAR: *out = value_int(dayofyear(&t)); break;
        case SQL_FN_DAYNAME: { const char *n = day_names[weekday0(&t)]; *out = value_str(n, strlen(n), COLL_DEFAULT); break; }
        case SQL_FN_MONTHNAME: { const char *n = month_names[t.t.month - 1]; *out = value_str(n, strlen(n), COLL_DEFAULT); break; }
        case SQL_FN_TO_DAYS: {
            /* MySQL's calc_daynr (its year 0 is not a leap year: 0000-01-01 is day 1) */
            int64_t y = t.t.year, m = t.t.month, dn = 365 * y + 31 * (m - 1) + t.t.day;
            if (m <= 2)
                y--;
            else
                dn -= (m * 4 + 23) / 10;
            *out = value_int(dn + y / 4 - ((y / 100 + 1) * 3) / 4);
            break;
        }
        case SQL_FN_WEEK: {
            int yr, mode = e->nargs > 1 ? (int)value_to_int(&a[1], ctx->diag) : 0;
            *out = value_int(calc_week(&t, week_mode(mode), &yr));
            break;
        }
        default: /* LAST_DAY */
            t.type = VAL_DATE;
            t.t.day = month_days(t.t.year, t.t.month);
            t.t.hour = t.t.minute = t.t.second = t.t.usec = 0;
            t.dec = 0;
            *out = t;
            break;
        }
        return 0;
    case SQL_FN_FROM_DAYS: {
        int64_t n = value_to_int(&a[0], ctx->diag);
        value_t r = {.type = VAL_DATE};
        if (n >= 366 && n <= 3652424)
            civil_from_d(n + d_from_civil(0, 1, 1), &r.t.year, &r.t.month, &r.t.day);
        *out = r;
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* ---------------------------------------------------------------- TIME arithmetic */

static const __int128 TIME_MAX_US = (__int128)838 * 3600000000LL + 59 * 60000000LL + 59 * 1000000LL;

static __int128 time_us(const value_t *t)
{
    __int128 us = ((__int128)t->t.hour * 3600 + t->t.minute * 60 + t->t.second) * 1000000 + t->t.usec;
    if (t->type != VAL_TIME)
        us += (__int128)d_from_civil(t->t.year, t->t.month ? t->t.month : 1, t->t.day ? t->t.day : 1) * 86400000000LL;
    return t->t.neg ? -us : us;
}

/* A TIME from signed microseconds, clamped to +-838:59:59 with warning 1292 on the original text. */
static value_t time_from_us(sql_eval_ctx_t *ctx, __int128 us, int dec, const char *orig)
{
    value_t r = {.type = VAL_TIME, .dec = (uint8_t)dec};
    if (us > TIME_MAX_US || us < -TIME_MAX_US) {
        char msg[300];
        snprintf(msg, sizeof msg, "Truncated incorrect time value: '%s'", orig ? orig : "");
        diag_push_msg(ctx->diag, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, msg);
        us = us > 0 ? TIME_MAX_US : -TIME_MAX_US;
    }
    r.t.neg = us < 0;
    if (us < 0)
        us = -us;
    r.t.usec = (uint32_t)(us % 1000000);
    __int128 s = us / 1000000;
    r.t.second = (uint32_t)(s % 60);
    r.t.minute = (uint32_t)(s / 60 % 60);
    r.t.hour = (uint32_t)(s / 3600);
    return r;
}

static value_t dt_from_us(__int128 us, int dec, bool *ok)
{
    value_t r = {.type = VAL_DATETIME, .dec = (uint8_t)dec};
    int64_t days = (int64_t)(us >= 0 ? us / 86400000000LL : -((-us + 86400000000LL - 1) / 86400000000LL));
    __int128 rest = us - (__int128)days * 86400000000LL;
    civil_from_d(days, &r.t.year, &r.t.month, &r.t.day);
    *ok = r.t.year >= 1 && r.t.year <= 9999;
    r.t.usec = (uint32_t)(rest % 1000000);
    int64_t s = (int64_t)(rest / 1000000);
    r.t.second = (uint32_t)(s % 60);
    r.t.minute = (uint32_t)(s / 60 % 60);
    r.t.hour = (uint32_t)(s / 3600);
    return r;
}

/* A value read as a datetime when it has a date part, else as a TIME; false when neither. */
static bool dt_or_time(sql_eval_ctx_t *ctx, const value_t *v, value_t *out)
{
    if (v->type == VAL_TIME || v->type == VAL_DATE || v->type == VAL_DATETIME || v->type == VAL_TIMESTAMP) {
        *out = *v;
        return true;
    }
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    const char *colon = memchr(s, ':', n), *dash = memchr(s, '-', n);
    bool date_like = dash && (!colon || dash < colon) && dash != s;
    if (date_like && value_parse_datetime(s, n, out))
        return true;
    if (value_parse_time(s, n, out))
        return true;
    if (value_parse_datetime(s, n, out))
        return true;
    warn_incorrect(ctx, "time", v);
    return false;
}

static int frac_digits(const value_t *v)
{
    if (v->type == VAL_DECIMAL)
        return MIN(v->dec, 6);
    if (v->type == VAL_DOUBLE)
        return 6;
    if (v->type == VAL_STRING) {
        const char *dot = memchr(v->s.ptr, '.', v->s.len);
        return dot ? (int)MIN((size_t)6, v->s.len - (size_t)(dot - v->s.ptr) - 1) : 0;
    }
    return value_is_temporal(v) ? v->dec : 0;
}

static int tz_offset(const value_t *v, int64_t *sec)
{
    if (v->type != VAL_STRING)
        return -1;
    const char *s = v->s.ptr;
    size_t n = v->s.len;
    int h, m;
    char sign;
    char buf[16];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (sscanf(buf, "%c%d:%d", &sign, &h, &m) != 3 || (sign != '+' && sign != '-') || m < 0 || m > 59 || h > 14)
        return -1;
    *sec = (sign == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
    return 0;
}

/* TIME_FORMAT, MAKETIME, ADDTIME, TIMEDIFF, CONVERT_TZ, EXTRACT ...: NULL when an argument is. */
int sql_eval_time_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    sql_fn_t fn = e->func.fn;
    value_t t, t2;
    if (any_null) {
        *out = value_null();
        return 0;
    }
    switch (fn) {
    case SQL_FN_TIME_FORMAT: {
        if (!get_time(ctx, &a[0], &t)) { *out = value_null(); return 0; }
        size_t fl;
        const char *f = value_to_text(ctx->arena, &a[1], &fl);
        *out = date_format(ctx, &t, f, fl, true);
        return 0;
    }
    case SQL_FN_YEARWEEK: {
        if (!get_dt(ctx, &a[0], &t, "datetime") || !t.t.month || !t.t.day) { *out = value_null(); return 0; }
        int yr, mode = e->nargs > 1 ? (int)value_to_int(&a[1], ctx->diag) : 0;
        int wk = calc_week(&t, week_mode(mode) | 2, &yr);
        *out = value_int((int64_t)yr * 100 + wk);
        return 0;
    }
    case SQL_FN_MAKEDATE: {
        int64_t y = value_to_int(&a[0], ctx->diag), doy = value_to_int(&a[1], ctx->diag);
        if (doy <= 0 || y < 0 || y > 9999) { *out = value_null(); return 0; }
        if (y < 70) y += 2000;
        else if (y < 100) y += 1900;
        int64_t days = d_from_civil(y, 1, 1) + doy - 1;
        value_t r = {.type = VAL_DATE};
        civil_from_d(days, &r.t.year, &r.t.month, &r.t.day);
        if (r.t.year > 9999) { *out = value_null(); return 0; }
        *out = r;
        return 0;
    }
    case SQL_FN_MAKETIME: {
        int64_t h = value_to_int(&a[0], ctx->diag), m = value_to_int(&a[1], ctx->diag);
        double s = value_to_double(&a[2], ctx->diag);
        if (m < 0 || m > 59 || s < 0 || s >= 60) { *out = value_null(); return 0; }
        int dec = frac_digits(&a[2]);
        __int128 us = ((__int128)llabs(h) * 3600 + m * 60) * 1000000 + (__int128)llround(s * 1e6);
        char orig[64];
        snprintf(orig, sizeof orig, "%lld:%02lld:%02d", (long long)h, (long long)m, (int)s);
        *out = time_from_us(ctx, h < 0 ? -us : us, dec, orig);
        return 0;
    }
    case SQL_FN_SEC_TO_TIME: {
        int dec = frac_digits(&a[0]);
        double s = value_to_double(&a[0], ctx->diag);
        size_t n;
        const char *orig = value_to_text(ctx->arena, &a[0], &n);
        __int128 us = (__int128)llround(s * 1e6);
        if (fabs(s) > 1e12) us = s > 0 ? TIME_MAX_US + 1 : -TIME_MAX_US - 1;
        if (us > TIME_MAX_US || us < -TIME_MAX_US) { /* MariaDB names the argument: "seconds value" */
            char msg[300];
            snprintf(msg, sizeof msg, "Truncated incorrect seconds value: '%s'", orig);
            diag_push_msg(ctx->diag, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, msg);
            us = us > 0 ? TIME_MAX_US : -TIME_MAX_US;
        }
        *out = time_from_us(ctx, us, dec, orig);
        return 0;
    }
    case SQL_FN_TIME_TO_SEC: {
        if (!get_time(ctx, &a[0], &t)) { *out = value_null(); return 0; }
        int64_t s = (int64_t)t.t.hour * 3600 + t.t.minute * 60 + t.t.second;
        if (t.t.usec) {
            char buf[48];
            snprintf(buf, sizeof buf, "%s%lld.%06u", t.t.neg ? "-" : "", (long long)s, t.t.usec);
            *out = value_decimal(ctx->arena, buf, strlen(buf));
        } else {
            *out = value_int(t.t.neg ? -s : s);
        }
        return 0;
    }
    case SQL_FN_TIMESTAMP: {
        if (!get_dt(ctx, &a[0], &t, "datetime")) { *out = value_null(); return 0; }
        int dec = t.type == VAL_DATE ? 0 : t.dec;
        if (e->nargs == 2) {
            if (!get_time(ctx, &a[1], &t2)) { *out = value_null(); return 0; }
            t2.type = VAL_TIME;
            bool ok;
            dec = MAX(dec, frac_digits(&a[1]));
            t = dt_from_us(time_us(&(value_t){.type = VAL_DATETIME, .t = {.year = t.t.year, .month = t.t.month,
                                     .day = t.t.day, .hour = t.t.hour, .minute = t.t.minute, .second = t.t.second,
                                     .usec = t.t.usec}}) + time_us(&t2), dec, &ok);
            if (!ok) { *out = value_null(); return 0; }
        }
        t.type = VAL_DATETIME;
        t.dec = (uint8_t)dec;
        *out = t;
        return 0;
    }
    case SQL_FN_ADDTIME: case SQL_FN_SUBTIME: {
        if (!dt_or_time(ctx, &a[0], &t) || !get_time(ctx, &a[1], &t2)) { *out = value_null(); return 0; }
        if (t2.type != VAL_TIME) { t2.type = VAL_TIME; t2.t.year = t2.t.month = t2.t.day = 0; }
        __int128 d = time_us(&t2);
        if (fn == SQL_FN_SUBTIME) d = -d;
        int dec = MAX(frac_digits(&a[0]), frac_digits(&a[1]));
        if (t.type == VAL_TIME) {
            *out = time_from_us(ctx, time_us(&t) + d, dec, "");
        } else {
            bool ok;
            t.type = VAL_DATETIME;
            *out = dt_from_us(time_us(&t) + d, dec, &ok);
            if (!ok) *out = value_null();
        }
        return 0;
    }
    case SQL_FN_TIMEDIFF: {
        if (!dt_or_time(ctx, &a[0], &t) || !dt_or_time(ctx, &a[1], &t2)) { *out = value_null(); return 0; }
        if ((t.type == VAL_TIME) != (t2.type == VAL_TIME)) { *out = value_null(); return 0; }
        int dec = MAX(frac_digits(&a[0]), frac_digits(&a[1]));
        *out = time_from_us(ctx, time_us(&t) - time_us(&t2), dec, "");
        return 0;
    }
    case SQL_FN_EXTRACT: {
        size_t ul;
        const char *u = value_to_text(ctx->arena, &a[0], &ul);
        bool date_unit = strstr(u, "YEAR") || strstr(u, "QUARTER") || strstr(u, "MONTH") || strstr(u, "WEEK") ||
                         strncmp(u, "DAY", 3) == 0;
        if (date_unit ? !get_dt(ctx, &a[1], &t, "datetime") : !get_time(ctx, &a[1], &t)) {
            *out = value_null();
            return 0;
        }
        int64_t y = t.t.year, mo = t.t.month, d = t.t.day, h = t.t.hour, mi = t.t.minute, s = t.t.second,
                us = t.t.usec, r;
        if (t.type == VAL_TIME && date_unit) { /* a TIME's days are in its hours */
            d = h / 24;
            h %= 24;
        }
        if (!strcmp(u, "YEAR")) r = y;
        else if (!strcmp(u, "QUARTER")) r = (mo + 2) / 3;
        else if (!strcmp(u, "MONTH")) r = mo;
        else if (!strcmp(u, "WEEK")) { int yr; r = calc_week(&t, week_mode(0), &yr); }
        else if (!strcmp(u, "DAY")) r = d;
        else if (!strcmp(u, "HOUR")) r = h;
        else if (!strcmp(u, "MINUTE")) r = mi;
        else if (!strcmp(u, "SECOND")) r = s;
        else if (!strcmp(u, "MICROSECOND")) r = us;
        else if (!strcmp(u, "YEAR_MONTH")) r = y * 100 + mo;
        else if (!strcmp(u, "DAY_HOUR")) r = d * 100 + h;
        else if (!strcmp(u, "DAY_MINUTE")) r = (d * 100 + h) * 100 + mi;
        else if (!strcmp(u, "DAY_SECOND")) r = ((d * 100 + h) * 100 + mi) * 100 + s;
        else if (!strcmp(u, "HOUR_MINUTE")) r = h * 100 + mi;
        else if (!strcmp(u, "HOUR_SECOND")) r = (h * 100 + mi) * 100 + s;
        else if (!strcmp(u, "MINUTE_SECOND")) r = mi * 100 + s;
        else if (!strcmp(u, "DAY_MICROSECOND")) r = (((d * 100 + h) * 100 + mi) * 100 + s) * 1000000 + us;
        else if (!strcmp(u, "HOUR_MICROSECOND")) r = ((h * 100 + mi) * 100 + s) * 1000000 + us;
        else if (!strcmp(u, "MINUTE_MICROSECOND")) r = (mi * 100 + s) * 1000000 + us;
        else if (!strcmp(u, "SECOND_MICROSECOND")) r = s * 1000000 + us;
        else return diag_error(ctx->diag, ER_PARSE_ERROR, "You have an error in your SQL syntax", u, 1);
        *out = value_int(t.t.neg ? -r : r);
        return 0;
    }
    case SQL_FN_CONVERT_TZ: {
        int64_t from, to;
        if (!get_dt(ctx, &a[0], &t, "datetime") || tz_offset(&a[1], &from) || tz_offset(&a[2], &to)) {
            *out = value_null();
            return 0;
        }
        bool ok;
        int dec = t.type == VAL_DATE ? 0 : t.dec;
        t.type = VAL_DATETIME;
        value_t r = dt_from_us(time_us(&t) + (__int128)(to - from) * 1000000, dec, &ok);
        *out = ok ? r : t;
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}
