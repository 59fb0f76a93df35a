/*
 * CREATE / ALTER / DROP EVENT and the texts MariaDB prints for an event.  An event is a catalog record
 * (access/event.h): its schedule evaluated once, at CREATE / ALTER, into instants (epoch seconds) and an interval
 * of months or seconds, its body kept as written and parsed again by the scheduler's session at every run
 * (session/event_sched.c).  The checks are MariaDB's, in its order: the database (1049), the interval (1235 for
 * MICROSECOND, 1542), the times (1525, 1543), the name (1537, 1539, 1551); a schedule already over is dropped at
 * once (note 1588) or kept DISABLED (note 1544) by ON COMPLETION; while the scheduler is off CREATE and ALTER
 * warn 1105 as MariaDB does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "access/event.h"
#include "sql/ddl/event.h"
#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "sql/value/value.h"
#include "util/util.h"

#define EVENT_MAX_INTERVAL 1000000000LL /* MariaDB's EVENTS_MAX_INTERVAL_VALUE */

/* ---------------------------------------------------------------- time */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool fixed_zone(const char *tz, int32_t *off)
{
    int h = 0, m = 0;
    if (tz && (tz[0] == '+' || tz[0] == '-') && sscanf(tz + 1, "%d:%d", &h, &m) == 2) {
        *off = (tz[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
        return true;
    }
    return false;
}

/* wall-clock time in tz -> epoch seconds */
static int64_t wall_to_epoch(const char *tz, const sql_time_t *t)
{
    int32_t off;
    int64_t local = days_from_civil(t->year, t->month, t->day) * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
    if (fixed_zone(tz, &off))
        return local - off;
    struct tm tm = {.tm_year = (int)t->year - 1900, .tm_mon = (int)t->month - 1, .tm_mday = (int)t->day,
                    .tm_hour = (int)t->hour, .tm_min = (int)t->minute, .tm_sec = (int)t->second, .tm_isdst = -1};
    time_t e = mktime(&tm);
    return e == (time_t)-1 ? local : (int64_t)e;
}

static void epoch_to_wall(const char *tz, int64_t epoch, sql_time_t *t)
{
    int32_t off = 0;
    if (!fixed_zone(tz, &off)) {
        time_t e = (time_t)epoch;
        struct tm lt;
        localtime_r(&e, &lt);
        off = (int32_t)lt.tm_gmtoff;
    }
    int64_t local = epoch + off;
    int64_t days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    int64_t sec = local - days * 86400;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    memset(t, 0, sizeof *t);
    t->year = (uint32_t)y;
    t->month = m;
    t->day = d;
    t->hour = (uint32_t)(sec / 3600);
    t->minute = (uint32_t)(sec / 60 % 60);
    t->second = (uint32_t)(sec % 60);
}

const char *event_time_text(arena_t *a, const char *tz, int64_t epoch)
{
    sql_time_t t;
    epoch_to_wall(tz, epoch, &t);
    return arena_printf(a, "%04u-%02u-%02u %02u:%02u:%02u", t.year, t.month, t.day, t.hour, t.minute, t.second);
}

/* start + k months, in the event's wall-clock time (the day clipped to the month's last, as DATE_ADD does) */
static int64_t add_months(const char *tz, int64_t start, int64_t k)
{
    sql_time_t t;
    epoch_to_wall(tz, start, &t);
    int64_t mon = (int64_t)t.year * 12 + (t.month - 1) + k;
    t.year = (uint32_t)(mon / 12);
    t.month = (uint32_t)(mon % 12) + 1;
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    unsigned last = mdays[t.month - 1];
    if (t.month == 2 && ((t.year % 4 == 0 && t.year % 100 != 0) || t.year % 400 == 0))
        last = 29;
    if (t.day > last)
        t.day = last;
    return wall_to_epoch(tz, &t);
}

int event_next_run(const cat_event_t *e, int64_t *at)
{
    if (!e->recurring) {
        if (e->last_executed != CAT_EVENT_NEVER)
            return 0;
        *at = e->execute_at;
        return 1;
    }
    /* the first slot after the last run */
    int64_t floor = e->last_executed == CAT_EVENT_NEVER ? e->starts : e->last_executed + 1;
    int64_t next;
    if (floor <= e->starts) {
        next = e->starts;
    } else if (e->interval_seconds > 0) {
        int64_t k = (floor - e->starts + e->interval_seconds - 1) / e->interval_seconds;
        next = e->starts + k * e->interval_seconds;
    } else if (e->interval_months > 0) {
        sql_time_t a, b;
        epoch_to_wall(e->time_zone, e->starts, &a);
        epoch_to_wall(e->time_zone, floor, &b);
        int64_t k = ((int64_t)b.year * 12 + b.month - ((int64_t)a.year * 12 + a.month)) / e->interval_months;
        if (k < 0)
            k = 0;
        while (k > 0 && add_months(e->time_zone, e->starts, k * e->interval_months) >= floor)
            k--;
        next = add_months(e->time_zone, e->starts, k * e->interval_months);
        while (next < floor)
            next = add_months(e->time_zone, e->starts, ++k * e->interval_months);
    } else {
        return 0;
    }
    if (e->ends != CAT_EVENT_NEVER && next > e->ends)
        return 0;
    *at = next;
    return 1;
}

/* ---------------------------------------------------------------- the schedule of a statement */

static int64_t now_epoch(void) { return (int64_t)(time_wall_us() / 1000000); }

/* A time clause's value as an instant: 0; 1 when it is no time (warning 1292 pushed, as MariaDB's conversion
 * does, unless NULL); or an error. */
static int eval_time_value(sql_exec_ctx_t *x, const sql_expr_t *ex, int64_t *out, const char **text)
{
    row_eval_t xe;
    row_eval_init(&xe, x);
    value_t v;
    int rc = row_eval(&xe, ex, NULL, &v);
    if (rc)
        return rc;
    value_t t = v;
    bool ok = false;
    size_t n = 4;
    *text = v.type == VAL_NULL ? "NULL" : value_to_text(x->arena, &v, &n);
    *text = arena_strndup(x->arena, *text, n);
    if (v.type == VAL_DATETIME || v.type == VAL_TIMESTAMP || v.type == VAL_DATE) {
        ok = true;
    } else if (v.type == VAL_INT || v.type == VAL_UINT) { /* YYYYMMDD, YYYYMMDDhhmmss */
        int64_t i = value_to_int(&v, NULL);
        memset(&t, 0, sizeof t);
        t.type = VAL_DATETIME;
        if (i >= 10000101 && i <= 99991231) {
            t.t.year = (uint32_t)(i / 10000), t.t.month = (uint32_t)(i / 100 % 100), t.t.day = (uint32_t)(i % 100);
            ok = true;
        } else if (i >= 10000101000000LL && i <= 99991231235959LL) {
            int64_t d = i / 1000000, h = i % 1000000;
            t.t.year = (uint32_t)(d / 10000), t.t.month = (uint32_t)(d / 100 % 100), t.t.day = (uint32_t)(d % 100);
            t.t.hour = (uint32_t)(h / 10000), t.t.minute = (uint32_t)(h / 100 % 100), t.t.second = (uint32_t)(h % 100);
            ok = t.t.hour < 24 && t.t.minute < 60 && t.t.second < 60;
        }
    } else if (v.type != VAL_NULL && v.type != VAL_TIME) {
        ok = value_parse_datetime(*text, n, &t) && t.type != VAL_TIME;
    }
    if (ok && (t.t.month == 0 || t.t.month > 12 || t.t.day == 0 || t.t.day > 31))
        ok = false;
    if (!ok) {
        if (v.type != VAL_NULL)
            diag_push_msg(x->diag, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE,
                          arena_printf(x->arena, "Incorrect datetime value: '%s'", *text));
        return 1;
    }
    *out = wall_to_epoch(x->time_zone, &t.t);
    return 0;
}

/* AT / STARTS: 1525 "Incorrect <what> value" when it is no time. */
static int eval_time(sql_exec_ctx_t *x, const sql_expr_t *ex, const char *what, int64_t *out)
{
    const char *text;
    int rc = eval_time_value(x, ex, out, &text);
    if (rc == 1)
        return diag_error(x->diag, ER_WRONG_VALUE, what, text);
    return rc;
}

/* The compound units: their fields, high to low, in seconds (months for YEAR_MONTH), and how they print. */
typedef struct unit_def {
    const char *name;
    int n;
    int64_t mult[4];
    const char *sep[4]; /* before each field after the first */
    bool months;
} unit_def_t;

static const unit_def_t units[] = {
    {"SECOND", 1, {1}, {0}, false},
    {"MINUTE", 1, {60}, {0}, false},
    {"HOUR", 1, {3600}, {0}, false},
    {"DAY", 1, {86400}, {0}, false},
    {"WEEK", 1, {604800}, {0}, false},
    {"MONTH", 1, {1}, {0}, true},
    {"QUARTER", 1, {3}, {0}, true},
    {"YEAR", 1, {12}, {0}, true},
    {"YEAR_MONTH", 2, {12, 1}, {"", "-"}, true},
    {"DAY_HOUR", 2, {86400, 3600}, {"", " "}, false},
    {"DAY_MINUTE", 3, {86400, 3600, 60}, {"", " ", ":"}, false},
    {"DAY_SECOND", 4, {86400, 3600, 60, 1}, {"", " ", ":", ":"}, false},
    {"HOUR_MINUTE", 2, {3600, 60}, {"", ":"}, false},
    {"HOUR_SECOND", 3, {3600, 60, 1}, {"", ":", ":"}, false},
    {"MINUTE_SECOND", 2, {60, 1}, {"", ":"}, false},
};

/* EVERY n unit into e (interval_value / _field / _months / _seconds): 0, 1235 or 1542. */
static int eval_interval(sql_exec_ctx_t *x, const sql_event_stmt_t *st, cat_event_t *e)
{
    if (strstr(st->every_unit, "MICROSECOND"))
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "MICROSECOND");
    const unit_def_t *u = NULL;
    for (size_t i = 0; i < ARRAY_LEN(units); i++)
        if (strcmp(units[i].name, st->every_unit) == 0)
            u = &units[i];
    if (!u)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, st->every_unit);
    row_eval_t xe;
    row_eval_init(&xe, x);
    value_t v;
    int rc = row_eval(&xe, st->every_value, NULL, &v);
    if (rc)
        return rc;
    if (v.type == VAL_NULL)
        return diag_error(x->diag, ER_WRONG_VALUE, "INTERVAL", "NULL");
    int64_t total = 0; /* in the lowest field's unit */
    if (u->n == 1) {
        diag_t scratch;
        diag_init(&scratch, 2);
        total = value_to_int(&v, &scratch);
        diag_free(&scratch);
        if (total <= 0 || total > EVENT_MAX_INTERVAL)
            return diag_error(x->diag, ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG);
        e->interval_value = arena_printf(x->arena, "%lld", (long long)total);
        if (u->months)
            e->interval_months = total * u->mult[0];
        else
            e->interval_seconds = total * u->mult[0];
    } else {
        /* '1:2' HOUR_MINUTE: the numbers of the text, the last one the lowest field */
        size_t n;
        const char *s = value_to_text(x->arena, &v, &n);
        int64_t f[8];
        int nf = 0;
        bool neg = false;
        for (size_t i = 0; i < n && nf < 8;) {
            if (s[i] >= '0' && s[i] <= '9') {
                int64_t a = 0;
                while (i < n && s[i] >= '0' && s[i] <= '9' && a < EVENT_MAX_INTERVAL * 100)
                    a = a * 10 + (s[i++] - '0');
                f[nf++] = a;
            } else {
                if (s[i] == '-' && nf == 0)
                    neg = true;
                i++;
            }
        }
        if (nf == 0 || nf > u->n || neg)
            return diag_error(x->diag, ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG);
        int64_t low = u->mult[u->n - 1];
        for (int i = 0; i < nf; i++)
            total += f[i] * (u->mult[u->n - nf + i] / low);
        if (total <= 0 || total > EVENT_MAX_INTERVAL * 100)
            return diag_error(x->diag, ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG);
        buf_t b;
        buf_init(&b);
        buf_append_byte(&b, '\'');
        int64_t rest = total;
        for (int i = 0; i < u->n; i++) {
            int64_t m = u->mult[i] / low;
            buf_printf(&b, "%s%lld", u->sep[i] ? u->sep[i] : "", (long long)(rest / m));
            rest %= m;
        }
        buf_append_byte(&b, '\'');
        e->interval_value = arena_strndup(x->arena, (const char *)b.data, b.len);
        buf_free(&b);
        if (u->months)
            e->interval_months = total * low;
        else
            e->interval_seconds = total * low;
    }
    e->interval_field = u->name;
    return 0;
}

/* The statement's ON SCHEDULE into e. */
static int eval_schedule(sql_exec_ctx_t *x, const sql_event_stmt_t *st, cat_event_t *e, int64_t now)
{
    int rc;
    e->recurring = st->every;
    e->execute_at = 0;
    e->interval_value = e->interval_field = "";
    e->interval_months = e->interval_seconds = 0;
    e->starts = 0;
    e->ends = CAT_EVENT_NEVER;
    if (!st->every)
        return eval_time(x, st->at, "AT", &e->execute_at);
    if ((rc = eval_interval(x, st, e)) != 0)
        return rc;
    e->starts = now;
    if (st->starts && (rc = eval_time(x, st->starts, "STARTS", &e->starts)) != 0)
        return rc;
    if (st->ends) {
        const char *text;
        rc = eval_time_value(x, st->ends, &e->ends, &text);
        if (rc < 0)
            return rc;
        if (rc == 1 || e->ends <= e->starts) /* an ENDS that is no time is MariaDB's 1543 too */
            return diag_error(x->diag, ER_EVENT_ENDS_BEFORE_STARTS);
    }
    return 0;
}

/* Is the schedule over already (an AT in the past, ENDS in the past)? */
static bool schedule_over(const cat_event_t *e, int64_t now)
{
    return e->recurring ? e->ends != CAT_EVENT_NEVER && e->ends < now : e->execute_at < now;
}

static void scheduler_off_warning(sql_exec_ctx_t *x)
{
    if (x->events_off)
        diag_push_msg(x->diag, DIAG_WARNING, ER_UNKNOWN_ERROR,
                      "Event scheduler is switched off, use SET GLOBAL event_scheduler=ON to enable it.");
}

/* ---------------------------------------------------------------- statements */

/* The record CREATE makes of the statement (name, schedule, characteristics), without looking at the catalog:
 * 0, or the error pushed. */
static int event_record(sql_exec_ctx_t *x, const sql_event_stmt_t *es, const char *db, int64_t now, cat_event_t *e)
{
    memset(e, 0, sizeof *e);
    int rc = eval_schedule(x, es, e, now);
    if (rc)
        return rc;
    e->db = db;
    e->name = es->name.name;
    bool own = !es->has_definer || es->definer.current;
    e->definer_user = own ? (x->user ? x->user : "") : es->definer.user;
    e->definer_host = own ? (x->host ? x->host : "") : es->definer.host;
    e->time_zone = x->time_zone ? x->time_zone : "SYSTEM";
    e->body = arena_strndup(x->arena, es->body_src, es->body_len);
    e->preserve = es->completion == 1;
    e->status = es->status ? es->status : "ENABLED";
    if (x->replicated)
        e->status = "SLAVESIDE_DISABLED"; /* a replica keeps its source's events, disabled (MariaDB) */
    e->comment = es->comment ? es->comment : "";
    e->sql_mode = x->sql_mode_text ? x->sql_mode_text : "";
    e->created = e->last_altered = now;
    e->last_executed = CAT_EVENT_NEVER;
    e->originator = x->server_id;
    uint16_t cc = x->conn_coll ? x->conn_coll : COLL_DEFAULT;
    e->client_cs = value_coll_charset(cc);
    e->conn_coll = value_coll_name(cc);
    e->db_coll = value_coll_name(catalog_db_coll(exec_cat, db));
    if (schedule_over(e, now) && e->preserve)
        e->status = "DISABLED";
    return 0;
}

static int create_event_locked(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_event_stmt_t *es = st->event;
    const char *db = exec_db_name(x, es->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    if (catalog_db_is_virtual(db))
        return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
    if (!catalog_db_exists(exec_cat, db))
        return diag_error(x->diag, ER_BAD_DB_ERROR, db);
    int64_t now = now_epoch();
    cat_event_t e;
    int rc = event_record(x, es, db, now, &e);
    if (rc)
        return rc;
    cat_event_t old;
    int ex = catalog_event_get(exec_cat, x->arena, db, es->name.name, &old);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (ex && !es->or_replace) {
        if (es->if_not_exists) {
            diag_note(x->diag, ER_EVENT_ALREADY_EXISTS, es->name.name);
            scheduler_off_warning(x);
            exec_pend_ok(x, 0, NULL);
            return 0;
        }
        return diag_error(x->diag, ER_EVENT_ALREADY_EXISTS, es->name.name);
    }
    if (es->has_definer && !es->definer.current && x->account_exists &&
        !x->account_exists(x->visible_user, e.definer_user, e.definer_host))
        diag_note(x->diag, ER_NO_SUCH_USER, e.definer_user, e.definer_host);
    if (ex && catalog_event_delete(exec_cat, db, old.name) != 0) /* OR REPLACE */
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (ex)
        x->events_changed = true;
    if (schedule_over(&e, now)) {
        if (!e.preserve) { /* nothing to keep: MariaDB creates it and drops it at once */
            diag_note(x->diag, ER_EVENT_CANNOT_CREATE_IN_THE_PAST);
            exec_pend_ok(x, 0, NULL);
            return 0;
        }
        diag_note(x->diag, ER_EVENT_EXEC_TIME_IN_THE_PAST);
    }
    if (catalog_event_put(exec_cat, &e) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    x->events_changed = true;
    scheduler_off_warning(x);
    exec_pend_ok(x, 0, NULL);
    return 0;
}

static int alter_event_locked(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_event_stmt_t *es = st->event;
    const char *db = exec_db_name(x, es->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    int64_t now = now_epoch();
    cat_event_t e;
    int ex = catalog_event_get(exec_cat, x->arena, db, es->name.name, &e);
    if (ex < 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (!ex)
        return diag_error(x->diag, ER_EVENT_DOES_NOT_EXIST, es->name.name);
    const char *old_db = e.db, *old_name = e.name;
    if (es->has_rename) {
        const char *ndb = exec_db_name(x, es->rename.db);
        if (!ndb)
            return -ER_NO_DB_ERROR;
        if (strcmp(ndb, db) == 0 && strcasecmp(es->rename.name, es->name.name) == 0)
            return diag_error(x->diag, ER_EVENT_SAME_NAME);
        if (!catalog_db_exists(exec_cat, ndb))
            return diag_error(x->diag, ER_BAD_DB_ERROR, ndb);
        cat_event_t other;
        if (catalog_event_get(exec_cat, x->arena, ndb, es->rename.name, &other) > 0)
            return diag_error(x->diag, ER_EVENT_ALREADY_EXISTS, es->rename.name);
    }
    if (es->has_schedule) {
        int rc = eval_schedule(x, es, &e, now);
        if (rc)
            return rc;
        /* (LAST_EXECUTED is kept, as MariaDB keeps it) */
        e.time_zone = x->time_zone ? x->time_zone : "SYSTEM";
    }
    if (es->completion)
        e.preserve = es->completion == 1;
    if (es->status) {
        e.status = es->status;
        if (x->replicated) { /* as CREATE: the source's events stay disabled here */
            e.status = "SLAVESIDE_DISABLED";
            e.originator = x->server_id;
        }
    }
    if (es->comment)
        e.comment = es->comment;
    if (es->body_src) {
        e.body = arena_strndup(x->arena, es->body_src, es->body_len);
        e.sql_mode = x->sql_mode_text ? x->sql_mode_text : "";
        uint16_t cc = x->conn_coll ? x->conn_coll : COLL_DEFAULT;
        e.client_cs = value_coll_charset(cc);
        e.conn_coll = value_coll_name(cc);
    }
    bool own = !es->has_definer || es->definer.current;
    if (!(x->replicated && !es->has_definer)) { /* (a replica's SQL thread is no account: the definer stays) */
        e.definer_user = own ? (x->user ? x->user : "") : es->definer.user;
        e.definer_host = own ? (x->host ? x->host : "") : es->definer.host;
    }
    if (!own && x->account_exists && !x->account_exists(x->visible_user, e.definer_user, e.definer_host))
        diag_note(x->diag, ER_NO_SUCH_USER, e.definer_user, e.definer_host);
    if (es->has_rename) {
        e.db = exec_db_name(x, es->rename.db);
        e.name = es->rename.name;
        e.db_coll = value_coll_name(catalog_db_coll(exec_cat, e.db));
    }
    if (es->has_schedule && schedule_over(&e, now)) { /* MariaDB looks only at a new schedule */
        if (!e.preserve)
            return diag_error(x->diag, ER_EVENT_CANNOT_ALTER_IN_THE_PAST);
        e.status = "DISABLED";
        diag_note(x->diag, ER_EVENT_EXEC_TIME_IN_THE_PAST);
    }
    e.last_altered = now;
    if (es->has_rename && catalog_event_delete(exec_cat, old_db, old_name) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    if (catalog_event_put(exec_cat, &e) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    x->events_changed = true; /* (ALTER does not warn that the scheduler is off: MariaDB's) */
    exec_pend_ok(x, 0, NULL);
    return 0;
}

static int drop_event_locked(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_event_stmt_t *es = st->event;
    const char *db = exec_db_name(x, es->name.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    int d = catalog_event_delete(exec_cat, db, es->name.name);
    if (d == STRATA_ENOTFOUND) {
        if (!es->if_exists)
            return diag_error(x->diag, ER_EVENT_DOES_NOT_EXIST, es->name.name);
        diag_note(x->diag, ER_SP_DOES_NOT_EXIST, "Event", es->name.name); /* MariaDB's note */
    } else if (d) {
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    } else {
        x->events_changed = true;
    }
    exec_pend_ok(x, 0, NULL);
    return 0;
}

/* The statements under the events' lock (access/event.h): read, check, write back as one step against the
 * scheduler's updates. */
int exec_create_event(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    catalog_event_lock();
    int rc = create_event_locked(x, st);
    catalog_event_unlock();
    return rc;
}

int exec_alter_event(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    catalog_event_lock();
    int rc = alter_event_locked(x, st);
    catalog_event_unlock();
    return rc;
}

int exec_drop_event(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    catalog_event_lock();
    int rc = drop_event_locked(x, st);
    catalog_event_unlock();
    return rc;
}

/* DROP DATABASE: its events go with it. */
void event_drop_database(sql_exec_ctx_t *x, const char *db)
{
    cat_event_t *v;
    uint32_t n = 0;
    catalog_event_lock();
    catalog_event_list(exec_cat, x->arena, db, &v, &n);
    for (uint32_t i = 0; i < n; i++)
        if (catalog_event_delete(exec_cat, v[i].db, v[i].name) == 0)
            x->events_changed = true;
    catalog_event_unlock();
}

/* ---------------------------------------------------------------- texts */

static void quote_string(buf_t *b, const char *s)
{
    buf_append_byte(b, '\'');
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            buf_append_byte(b, (uint8_t)*s);
        buf_append_byte(b, (uint8_t)*s);
    }
    buf_append_byte(b, '\'');
}

const char *event_create_text(arena_t *a, const cat_event_t *e, char q)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "CREATE DEFINER=");
    exec_ident_quote(&b, e->definer_user, q);
    if (e->definer_host && e->definer_host[0]) {
        buf_append_byte(&b, '@');
        exec_ident_quote(&b, e->definer_host, q);
    }
    buf_append_str(&b, " EVENT ");
    exec_ident_quote(&b, e->name, q);
    buf_append_str(&b, " ON SCHEDULE ");
    if (e->recurring) {
        buf_printf(&b, "EVERY %s %s STARTS '%s'", e->interval_value, e->interval_field,
                   event_time_text(a, e->time_zone, e->starts));
        if (e->ends != CAT_EVENT_NEVER)
            buf_printf(&b, " ENDS '%s'", event_time_text(a, e->time_zone, e->ends));
    } else {
        buf_printf(&b, "AT '%s'", event_time_text(a, e->time_zone, e->execute_at));
    }
    buf_printf(&b, " ON COMPLETION %sPRESERVE ", e->preserve ? "" : "NOT ");
    buf_append_str(&b, strcmp(e->status, "ENABLED") == 0 ? "ENABLE" : strcmp(e->status, "DISABLED") == 0 ? "DISABLE"
                                                                                                      : "DISABLE ON SLAVE");
    if (e->comment && e->comment[0]) {
        buf_append_str(&b, " COMMENT ");
        quote_string(&b, e->comment);
    }
    buf_append_str(&b, " DO ");
    buf_append_str(&b, e->body);
    const char *t = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return t;
}

/* The binlog's text of CREATE EVENT: SHOW CREATE EVENT's (DEFINER spelled out, times resolved), with OR REPLACE
 * / IF NOT EXISTS as written, so a replica makes the same event. */
const char *event_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_event_stmt_t *es = st->event;
    const char *db = exec_db_name(x, es->name.db);
    if (!db)
        return NULL;
    diag_t scratch, *real = x->diag;
    diag_init(&scratch, 4);
    x->diag = &scratch;
    cat_event_t e;
    int rc = event_record(x, es, db, now_epoch(), &e);
    x->diag = real;
    diag_free(&scratch);
    if (rc)
        return NULL;
    const char *t = event_create_text(x->arena, &e, '`');
    if (es->or_replace)
        t = arena_printf(x->arena, "CREATE OR REPLACE %s", t + 7);
    else if (es->if_not_exists) {
        const char *at = strstr(t, " EVENT ");
        if (at) {
            size_t pre = (size_t)(at - t) + 7;
            t = arena_printf(x->arena, "%.*sIF NOT EXISTS %s", (int)pre, t, t + pre);
        }
    }
    return t;
}

/* ALTER EVENT's binlog text: as written, with the DEFINER spelled out when it was not (MariaDB's), since ALTER
 * makes the account that runs it the definer and a replica's SQL thread is no account. */
const char *event_alter_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_event_stmt_t *es = st->event;
    if (es->has_definer || !es->name_src || !st->src || es->name_src < st->src ||
        es->name_src > st->src + st->src_len)
        return NULL;
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "ALTER DEFINER=");
    exec_ident_quote(&b, x->user ? x->user : "", '`');
    buf_append_byte(&b, '@');
    exec_ident_quote(&b, x->host ? x->host : "", '`');
    buf_append_str(&b, " EVENT ");
    buf_append(&b, es->name_src, (size_t)(st->src + st->src_len - es->name_src));
    const char *t = arena_strndup(x->arena, (const char *)b.data, b.len);
    buf_free(&b);
    return t;
}
