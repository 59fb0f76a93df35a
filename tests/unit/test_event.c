/* Events: catalog records (access/event.c) put, read back (names case-insensitive), listed in order, deleted,
 * surviving close and reopen; the schedule arithmetic (sql/ddl/event.c event_next_run): EVERY slots after the
 * last run, months stepping through the calendar, ENDS, AT events that ran. */
#include <stdlib.h>
#include <unistd.h>

#include "access/event.h"
#include "engine/engine.h"
#include "sql/ddl/event.h"
#include "unit.h"
#include "util/util.h"

static engine_t *open_engine(const char *dir)
{
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 4u << 20;
    o.log_bytes = 16u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    o.flush_mode = ENGINE_FLUSH_LAZY;
    engine_t *e = NULL;
    if (engine_open(&o, &e))
        return NULL;
    return e;
}

static cat_event_t rec(const char *db, const char *name)
{
    cat_event_t e = {.db = db, .name = name, .definer_user = "root", .definer_host = "localhost",
                     .time_zone = "+00:00", .body = "INSERT INTO t VALUES (1)", .recurring = true,
                     .interval_value = "1", .interval_field = "HOUR", .interval_seconds = 3600,
                     .starts = 1893456000 /* 2030-01-01 */, .ends = CAT_EVENT_NEVER, .preserve = true,
                     .status = "ENABLED", .comment = "c", .sql_mode = "", .created = 1, .last_altered = 2,
                     .last_executed = CAT_EVENT_NEVER, .originator = 7, .client_cs = "utf8mb4",
                     .conn_coll = "utf8mb4_general_ci", .db_coll = "utf8mb4_general_ci"};
    return e;
}

TEST(test_event_records)
{
    char dir[64];
    strcpy(dir, "/tmp/strata_ev_XXXXXX");
    REQUIRE(mkdtemp(dir));
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    catalog_t *c;
    REQUIRE(catalog_open(e, dir, &c) == 0);
    arena_t a;
    arena_init(&a, 4096);
    cat_event_t x = rec("d", "Tick"), y = rec("d", "another"), z = rec("e", "tick");
    y.recurring = false;
    y.execute_at = 1900000000;
    y.preserve = false;
    CHECK_EQ_INT(catalog_event_put(c, &x), 0);
    CHECK_EQ_INT(catalog_event_put(c, &y), 0);
    CHECK_EQ_INT(catalog_event_put(c, &z), 0);
    cat_event_t o;
    CHECK_EQ_INT(catalog_event_get(c, &a, "d", "TICK", &o), 1);
    CHECK_EQ_STR(o.name, "Tick");
    CHECK(o.recurring && o.preserve);
    CHECK_EQ_INT(o.interval_seconds, 3600);
    CHECK_EQ_INT(o.ends, CAT_EVENT_NEVER);
    CHECK_EQ_INT(o.originator, 7);
    CHECK_EQ_STR(o.comment, "c");
    CHECK_EQ_INT(catalog_event_get(c, &a, "d", "another", &o), 1);
    CHECK(!o.recurring && !o.preserve);
    CHECK_EQ_INT(o.execute_at, 1900000000);
    CHECK_EQ_INT(catalog_event_get(c, &a, "f", "tick", &o), 0);
    cat_event_t *all;
    uint32_t n;
    CHECK_EQ_INT(catalog_event_list(c, &a, "d", &all, &n), 0);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(all[0].name, "another");
        CHECK_EQ_STR(all[1].name, "Tick");
    }
    CHECK_EQ_INT(catalog_event_list(c, &a, NULL, &all, &n), 0);
    CHECK_EQ_INT(n, 3);
    catalog_close(c);
    engine_close(e);
    e = open_engine(dir);
    REQUIRE(e);
    REQUIRE(catalog_open(e, dir, &c) == 0);
    CHECK_EQ_INT(catalog_event_get(c, &a, "d", "tick", &o), 1);
    CHECK_EQ_INT(catalog_event_delete(c, "d", "TICK"), 0);
    CHECK_EQ_INT(catalog_event_delete(c, "d", "TICK"), STRATA_ENOTFOUND);
    CHECK_EQ_INT(catalog_event_get(c, &a, "e", "tick", &o), 1);
    CHECK_EQ_INT(catalog_event_decode(&a, "\x01\x05", 2, &o), -1);
    catalog_close(c);
    engine_close(e);
    arena_destroy(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

TEST(test_event_next_run)
{
    cat_event_t e = rec("d", "t");
    int64_t at = 0;
    /* never ran: STARTS; then the first slot after the last run */
    CHECK_EQ_INT(event_next_run(&e, &at), 1);
    CHECK_EQ_INT(at, e.starts);
    e.last_executed = e.starts;
    CHECK_EQ_INT(event_next_run(&e, &at), 1);
    CHECK_EQ_INT(at, e.starts + 3600);
    e.last_executed = e.starts + 3601; /* ran late: the next slot, not one per missed slot */
    CHECK_EQ_INT(event_next_run(&e, &at), 1);
    CHECK_EQ_INT(at, e.starts + 7200);
    e.ends = e.starts + 7199; /* past ENDS: no more runs */
    CHECK_EQ_INT(event_next_run(&e, &at), 0);
    /* months: 2030-01-31 + 1 MONTH is 2030-02-28, + 2 is 2030-03-31 (each from STARTS, as DATE_ADD) */
    cat_event_t m = rec("d", "m");
    m.interval_seconds = 0;
    m.interval_months = 1;
    m.starts = 1896048000; /* 2030-01-31 00:00:00 UTC */
    m.last_executed = m.starts;
    CHECK_EQ_INT(event_next_run(&m, &at), 1);
    arena_t a;
    arena_init(&a, 1024);
    CHECK_EQ_STR(event_time_text(&a, "+00:00", at), "2030-02-28 00:00:00");
    m.last_executed = at;
    CHECK_EQ_INT(event_next_run(&m, &at), 1);
    CHECK_EQ_STR(event_time_text(&a, "+00:00", at), "2030-03-31 00:00:00");
    CHECK_EQ_STR(event_time_text(&a, "+05:30", at), "2030-03-31 05:30:00");
    arena_destroy(&a);
    /* AT: once */
    cat_event_t o = rec("d", "o");
    o.recurring = false;
    o.execute_at = 5;
    CHECK_EQ_INT(event_next_run(&o, &at), 1);
    CHECK_EQ_INT(at, 5);
    o.last_executed = 6;
    CHECK_EQ_INT(event_next_run(&o, &at), 0);
}

UNIT_MAIN(test_event_records, test_event_next_run)
