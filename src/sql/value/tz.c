/*
 * sql/tz: session time zone conversions of TIMESTAMP values (see tz.h).
 */
#include "sql/value/tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/util.h"

static _Thread_local bool tz_fixed;   /* the session zone is a fixed offset, not SYSTEM */
static _Thread_local int32_t tz_off;  /* its offset from UTC, seconds */
static _Thread_local bool tz_conv;    /* sql_tz_active() */
static _Atomic int sys_utc = -1;      /* the process zone is UTC (no offset, no DST): -1 not known yet */

static bool system_is_utc(void)
{
    if (sys_utc < 0) {
        tzset();
        sys_utc = timezone == 0 && daylight == 0;
    }
    return sys_utc == 1;
}

void sql_tz_set(const char *name)
{
    tz_fixed = false;
    tz_off = 0;
    if (name && (name[0] == '+' || name[0] == '-')) {
        int h = 0, m = 0;
        if (sscanf(name + 1, "%d:%d", &h, &m) == 2) {
            tz_fixed = true;
            tz_off = (name[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
        }
    }
    tz_conv = tz_fixed && !(tz_off == 0 && system_is_utc());
}

bool sql_tz_active(void) { return tz_conv; }

int32_t sql_tz_offset_now(void)
{
    if (tz_fixed)
        return tz_off;
    time_t now = time(NULL);
    struct tm lt;
    localtime_r(&now, &lt);
    return (int32_t)lt.tm_gmtoff;
}

int32_t sql_tz_offset_at(int64_t epoch)
{
    if (tz_fixed)
        return tz_off;
    if (system_is_utc())
        return 0;
    time_t e = (time_t)epoch;
    struct tm lt;
    localtime_r(&e, &lt);
    return (int32_t)lt.tm_gmtoff;
}

int32_t sql_tz_offset_wall(const sql_time_t *t)
{
    if (tz_fixed)
        return tz_off;
    if (system_is_utc())
        return 0;
    struct tm tm = {.tm_year = (int)t->year - 1900, .tm_mon = t->month ? (int)t->month - 1 : 0,
                    .tm_mday = t->day ? (int)t->day : 1, .tm_hour = (int)t->hour, .tm_min = (int)t->minute,
                    .tm_sec = (int)t->second, .tm_isdst = -1};
    time_t e = mktime(&tm);
    if (e == (time_t)-1)
        return sql_tz_offset_now();
    return (int32_t)tm.tm_gmtoff;
}

/* days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm) */
static int64_t days_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_set(sql_time_t *t, int64_t secs)
{
    int64_t z = (secs >= 0 ? secs : secs - 86399) / 86400;
    int64_t sod = secs - z * 86400;
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = (int64_t)yoe + era * 400 + (m <= 2);
    t->year = (uint32_t)y;
    t->month = m;
    t->day = d;
    t->hour = (uint32_t)(sod / 3600);
    t->minute = (uint32_t)(sod / 60 % 60);
    t->second = (uint32_t)(sod % 60);
}

static int64_t civil_secs(const sql_time_t *t)
{
    return days_civil(t->year, t->month, t->day) * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
}

void sql_tz_to_system(sql_time_t *t)
{
    if (!tz_conv || (!t->year && !t->month && !t->day))
        return;
    int64_t epoch = civil_secs(t) - tz_off;
    if (system_is_utc()) {
        civil_set(t, epoch);
        return;
    }
    time_t e = (time_t)epoch;
    struct tm lt;
    localtime_r(&e, &lt);
    civil_set(t, days_civil(lt.tm_year + 1900, (unsigned)lt.tm_mon + 1, (unsigned)lt.tm_mday) * 86400 +
                     lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec);
}

void sql_tz_from_system(sql_time_t *t)
{
    if (!tz_conv || (!t->year && !t->month && !t->day))
        return;
    int64_t epoch;
    if (system_is_utc()) {
        epoch = civil_secs(t);
    } else {
        struct tm tm = {.tm_year = (int)t->year - 1900, .tm_mon = (int)t->month - 1, .tm_mday = (int)t->day,
                        .tm_hour = (int)t->hour, .tm_min = (int)t->minute, .tm_sec = (int)t->second, .tm_isdst = -1};
        epoch = (int64_t)mktime(&tm);
    }
    civil_set(t, epoch + tz_off);
}
