/* sql/tz: @@time_zone conversions of TIMESTAMP values against the server's zone (the process zone, set to UTC
 * here; tz.c caches it once per process: the path for a server in another zone was checked by hand against
 * MariaDB, both started with TZ=Europe/Paris). */
#include <stdlib.h>
#include <time.h>

#include "sql/value/tz.h"
#include "unit.h"

static sql_time_t mk(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s)
{
    sql_time_t t = {.year = y, .month = mo, .day = d, .hour = h, .minute = mi, .second = s, .usec = 123};
    return t;
}

static int same(const sql_time_t *a, unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s)
{
    return a->year == y && a->month == mo && a->day == d && a->hour == h && a->minute == mi && a->second == s &&
           a->usec == 123;
}

TEST(test_tz_utc_system)
{
    setenv("TZ", "UTC", 1);
    tzset();
    sql_tz_set("SYSTEM");
    CHECK(!sql_tz_active());
    CHECK(sql_tz_offset_now() == 0);
    sql_tz_set("+00:00");
    CHECK(!sql_tz_active()); /* mariadb-dump's zone on a UTC server: nothing to convert */
    sql_tz_set("+03:00");
    CHECK(sql_tz_active());
    CHECK(sql_tz_offset_now() == 3 * 3600);
    sql_time_t t = mk(2038, 1, 19, 6, 14, 7);
    sql_tz_to_system(&t);
    CHECK(same(&t, 2038, 1, 19, 3, 14, 7));
    sql_tz_from_system(&t);
    CHECK(same(&t, 2038, 1, 19, 6, 14, 7));
    t = mk(2024, 3, 1, 1, 30, 0); /* across a leap day and a month */
    sql_tz_to_system(&t);
    CHECK(same(&t, 2024, 2, 29, 22, 30, 0));
    t = mk(1970, 1, 1, 0, 0, 1);
    sql_tz_set("-05:30");
    CHECK(sql_tz_offset_now() == -(5 * 3600 + 1800));
    sql_tz_from_system(&t);
    CHECK(same(&t, 1969, 12, 31, 18, 30, 1));
    sql_time_t z = {0};
    sql_tz_to_system(&z); /* the zero date stays */
    CHECK(z.year == 0 && z.month == 0 && z.day == 0 && z.hour == 0);
    sql_tz_set("SYSTEM");
    t = mk(2000, 1, 1, 0, 0, 0);
    sql_tz_to_system(&t);
    CHECK(same(&t, 2000, 1, 1, 0, 0, 0));
}

UNIT_MAIN(test_tz_utc_system)
