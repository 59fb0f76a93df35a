/*
 * The advice rules (monitor/advice.c) on fixed counters: each rule fires on the window it is written for,
 * and is silent on the same load once its suggested value is in place (or on a load too small to judge).
 * The context is a table of numbers standing in for the history: deltas over the window, the latest and the
 * highest gauge values, and the variables.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/advice.h"
#include "unit.h"

typedef struct kv {
    const char *name;
    double v;
} kv_t;

typedef struct var {
    const char *name, *value;
} var_t;

typedef struct fake {
    kv_t delta[12], gauge[12], gauge_max[12];
    var_t vars[12];
    const char *top_text;
    double top_count, top_total;
    double window;
} fake_t;

static bool find(const kv_t *t, const char *name, double *out)
{
    for (int i = 0; i < 12 && t[i].name; i++)
        if (!strcmp(t[i].name, name)) {
            *out = t[i].v;
            return true;
        }
    return false;
}

static bool f_delta(void *arg, const char *name, double *out) { return find(((fake_t *)arg)->delta, name, out); }
static bool f_gauge(void *arg, const char *name, double *out) { return find(((fake_t *)arg)->gauge, name, out); }
static bool f_gauge_max(void *arg, const char *name, double *out)
{
    fake_t *f = arg;
    return find(f->gauge_max, name, out) || find(f->gauge, name, out);
}

static const char *f_var(void *arg, const char *name)
{
    fake_t *f = arg;
    for (int i = 0; i < 12 && f->vars[i].name; i++)
        if (!strcmp(f->vars[i].name, name))
            return f->vars[i].value;
    return NULL;
}

static bool f_top(void *arg, char *text, size_t cap, double *count, double *total)
{
    fake_t *f = arg;
    if (!f->top_text)
        return false;
    snprintf(text, cap, "%s", f->top_text);
    *count = f->top_count;
    *total = f->top_total;
    return true;
}

static advice_result_t last;

static bool fires(const char *rule, fake_t *f)
{
    const advice_rule_t *r = advice_rule_find(rule);
    if (!r) {
        fprintf(stderr, "no rule %s\n", rule);
        return false;
    }
    advice_ctx_t c = {.arg = f, .delta = f_delta, .gauge = f_gauge, .gauge_max = f_gauge_max, .var = f_var,
                      .top_digest = f_top, .window_seconds = f->window ? f->window : 3600};
    return advice_eval(r, &c, &last);
}

/* Sets variable name to value in f (replacing it). */
static void set_var(fake_t *f, const char *name, const char *value)
{
    int i = 0;
    for (; i < 12 && f->vars[i].name; i++)
        if (!strcmp(f->vars[i].name, name))
            break;
    f->vars[i] = (var_t){name, value};
}

static void set_delta(fake_t *f, const char *name, double v)
{
    int i = 0;
    for (; i < 12 && f->delta[i].name; i++)
        if (!strcmp(f->delta[i].name, name))
            break;
    f->delta[i] = (kv_t){name, v};
}

TEST(test_every_rule_has_a_name_doc_and_unit_test)
{
    CHECK(advice_nrules >= 20);
    for (unsigned i = 0; i < advice_nrules; i++) {
        CHECK(advice_rules[i].name && advice_rules[i].doc && advice_rules[i].eval && advice_rules[i].reads);
        CHECK(advice_rule_find(advice_rules[i].name) == &advice_rules[i]);
    }
    /* an empty history fires nothing (but the configuration rules, which need variables) */
    fake_t f = {0};
    for (unsigned i = 0; i < advice_nrules; i++)
        CHECK(!fires(advice_rules[i].name, &f));
}

TEST(test_buffer_pool_hit_rate)
{
    fake_t f = {.delta = {{"Innodb_buffer_pool_read_requests", 100000}, {"Innodb_buffer_pool_reads", 5000}},
                .vars = {{"innodb_buffer_pool_size", "134217728"}}};
    CHECK(fires("buffer_pool_hit_rate", &f));
    CHECK_EQ_STR(last.suggested, "innodb_buffer_pool_size=268435456");
    CHECK(last.severity == ADVICE_WARNING);
    set_delta(&f, "Innodb_buffer_pool_reads", 500); /* the bigger pool: 99.5% */
    CHECK(!fires("buffer_pool_hit_rate", &f));
    set_delta(&f, "Innodb_buffer_pool_read_requests", 5000); /* too few requests to judge */
    set_delta(&f, "Innodb_buffer_pool_reads", 4000);
    CHECK(!fires("buffer_pool_hit_rate", &f));
}

TEST(test_buffer_pool_working_set)
{
    fake_t f = {.delta = {{"Innodb_buffer_pool_reads", 50000}},
                .gauge = {{"Innodb_buffer_pool_pages_total", 8192}, {"Innodb_buffer_pool_pages_free", 0}},
                .gauge_max = {{"Innodb_buffer_pool_pages_free", 10}},
                .vars = {{"innodb_buffer_pool_size", "134217728"}}};
    CHECK(fires("buffer_pool_working_set", &f));
    f.gauge_max[0].v = 2000; /* the pool had room */
    CHECK(!fires("buffer_pool_working_set", &f));
}

TEST(test_max_connections)
{
    fake_t f = {.gauge = {{"Threads_connected", 40}}, .gauge_max = {{"Threads_connected", 95}},
                .delta = {{"Connection_errors_max_connections", 0}}, .vars = {{"max_connections", "100"}}};
    CHECK(fires("max_connections", &f));
    CHECK_EQ_STR(last.suggested, "max_connections=150");
    set_var(&f, "max_connections", "150");
    CHECK(!fires("max_connections", &f));
    set_delta(&f, "Connection_errors_max_connections", 3); /* refusals fire whatever the peak */
    CHECK(fires("max_connections", &f));
    CHECK(last.severity == ADVICE_CRITICAL);
}

TEST(test_sync_binlog)
{
    fake_t f = {.vars = {{"log_bin", "ON"}, {"sync_binlog", "0"}}};
    CHECK(fires("sync_binlog", &f));
    CHECK_EQ_STR(last.suggested, "sync_binlog=1");
    set_var(&f, "sync_binlog", "1");
    CHECK(!fires("sync_binlog", &f));
    set_var(&f, "sync_binlog", "0");
    set_var(&f, "log_bin", "OFF"); /* no binlog: nothing to lose */
    CHECK(!fires("sync_binlog", &f));
}

TEST(test_innodb_flush_log_at_trx_commit)
{
    fake_t f = {.vars = {{"innodb_flush_log_at_trx_commit", "2"}}};
    CHECK(fires("innodb_flush_log_at_trx_commit", &f));
    set_var(&f, "innodb_flush_log_at_trx_commit", "1");
    CHECK(!fires("innodb_flush_log_at_trx_commit", &f));
}

TEST(test_binlog_retention_vs_disk)
{
    /* 1 MB/s for a day, kept 7 days: 604 GB against 100 GB free */
    fake_t f = {.delta = {{"Binlog_bytes_written", 86400e6}}, .gauge = {{"Strata_disk_free_bytes", 100e9}},
                .vars = {{"binlog_expire_logs_seconds", "604800"}, {"expire_logs_days", "0"}}, .window = 86400};
    CHECK(fires("binlog_retention_vs_disk", &f));
    CHECK(last.severity == ADVICE_CRITICAL);
    CHECK_EQ_STR(last.suggested, "binlog_expire_logs_seconds=50000");
    set_var(&f, "binlog_expire_logs_seconds", "50000");
    CHECK(!fires("binlog_retention_vs_disk", &f));
}

TEST(test_tmp_tables_on_disk)
{
    fake_t f = {.delta = {{"Created_tmp_tables", 100}, {"Created_tmp_disk_tables", 60}},
                .vars = {{"tmp_table_size", "16777216"}, {"max_heap_table_size", "16777216"}}};
    CHECK(fires("tmp_tables_on_disk", &f));
    CHECK_EQ_STR(last.suggested, "tmp_table_size=67108864 max_heap_table_size=67108864");
    set_delta(&f, "Created_tmp_disk_tables", 5);
    CHECK(!fires("tmp_tables_on_disk", &f));
}

TEST(test_sort_merge_passes)
{
    fake_t f = {.delta = {{"Sort_merge_passes", 100}, {"Sort_scan", 20}, {"Sort_range", 0}},
                .vars = {{"sort_buffer_size", "32768"}}};
    CHECK(fires("sort_merge_passes", &f));
    CHECK_EQ_STR(last.suggested, "sort_buffer_size=131072");
    set_delta(&f, "Sort_merge_passes", 0); /* the replayed load under the bigger buffer */
    CHECK(!fires("sort_merge_passes", &f));
}

TEST(test_table_open_cache)
{
    fake_t f = {.delta = {{"Opened_tables", 5000}}, .gauge = {{"Open_tables", 2000}},
                .vars = {{"table_open_cache", "2000"}}};
    CHECK(fires("table_open_cache", &f));
    set_var(&f, "table_open_cache", "4000");
    CHECK(!fires("table_open_cache", &f));
}

TEST(test_aborted_connects)
{
    fake_t f = {.delta = {{"Aborted_connects", 50}, {"Connections", 200}}};
    CHECK(fires("aborted_connects", &f));
    set_delta(&f, "Aborted_connects", 5);
    CHECK(!fires("aborted_connects", &f));
}

TEST(test_semisync_fallbacks)
{
    fake_t f = {.delta = {{"Rpl_semi_sync_master_no_times", 2}}, .vars = {{"rpl_semi_sync_master_timeout", "10000"}}};
    CHECK(fires("semisync_fallbacks", &f));
    CHECK_EQ_STR(last.suggested, "rpl_semi_sync_master_timeout=20000");
    set_delta(&f, "Rpl_semi_sync_master_no_times", 0);
    CHECK(!fires("semisync_fallbacks", &f));
}

TEST(test_semisync_unacked_commits)
{
    fake_t f = {.delta = {{"Rpl_semi_sync_master_no_tx", 50}, {"Rpl_semi_sync_master_yes_tx", 950}},
                .vars = {{"rpl_semi_sync_master_enabled", "ON"}}};
    CHECK(fires("semisync_unacked_commits", &f));
    set_var(&f, "rpl_semi_sync_master_enabled", "OFF");
    CHECK(!fires("semisync_unacked_commits", &f));
}

TEST(test_replica_lag)
{
    fake_t f = {.gauge = {{"Strata_replica_lag_seconds", 5}}, .gauge_max = {{"Strata_replica_lag_seconds", 300}},
                .vars = {{"slave_parallel_threads", "0"}}};
    CHECK(fires("replica_lag", &f));
    CHECK_EQ_STR(last.suggested, "slave_parallel_threads=4");
    f.gauge_max[0].v = 10;
    CHECK(!fires("replica_lag", &f));
}

TEST(test_tablespace_days_to_full)
{
    /* 10 GB free, 5 GB used in the last day: 2 days */
    fake_t f = {.delta = {{"Strata_tablespace_free_bytes", -5e9}}, .gauge = {{"Strata_tablespace_free_bytes", 10e9}},
                .window = 86400};
    CHECK(fires("tablespace_days_to_full", &f));
    CHECK_EQ_STR(last.current, "2.0 days to full");
    set_delta(&f, "Strata_tablespace_free_bytes", -1e9); /* 10 days */
    CHECK(!fires("tablespace_days_to_full", &f));
}

TEST(test_disk_days_to_full)
{
    fake_t f = {.delta = {{"Strata_disk_free_bytes", -20e9}}, .gauge = {{"Strata_disk_free_bytes", 10e9}},
                .window = 86400};
    CHECK(fires("disk_days_to_full", &f));
    CHECK(last.severity == ADVICE_CRITICAL);
    set_delta(&f, "Strata_disk_free_bytes", 1e9); /* freeing space */
    CHECK(!fires("disk_days_to_full", &f));
}

TEST(test_disk_free_low)
{
    fake_t f = {.gauge = {{"Strata_disk_free_bytes", 5e9}, {"Strata_disk_total_bytes", 100e9}}};
    CHECK(fires("disk_free_low", &f));
    f.gauge[0].v = 50e9;
    CHECK(!fires("disk_free_low", &f));
}

TEST(test_dominating_statement)
{
    fake_t f = {.top_text = "SHOW WARNINGS", .top_count = 9000, .top_total = 10000};
    CHECK(fires("dominating_statement", &f));
    CHECK(strstr(last.evidence, "SHOW WARNINGS") != NULL);
    CHECK(strstr(last.evidence, "90%") != NULL);
    f.top_count = 3000; /* the application stopped asking after every statement */
    CHECK(!fires("dominating_statement", &f));
}

TEST(test_purge_held_back)
{
    fake_t f = {.gauge = {{"Innodb_history_list_length", 500000}}, .delta = {{"Innodb_history_list_length", 200000}}};
    CHECK(fires("purge_held_back", &f));
    set_delta(&f, "Innodb_history_list_length", -100000); /* purge catching up */
    CHECK(!fires("purge_held_back", &f));
}

TEST(test_slow_queries)
{
    fake_t f = {.delta = {{"Slow_queries", 100}, {"Questions", 1000}}, .vars = {{"long_query_time", "1.000000"}}};
    CHECK(fires("slow_queries", &f));
    set_delta(&f, "Slow_queries", 10);
    CHECK(!fires("slow_queries", &f));
}

TEST(test_full_table_scans)
{
    fake_t f = {.delta = {{"Select_scan", 800}, {"Com_select", 1000}}};
    CHECK(fires("full_table_scans", &f));
    CHECK(last.severity == ADVICE_NOTE);
    set_delta(&f, "Select_scan", 100);
    CHECK(!fires("full_table_scans", &f));
}

TEST(test_full_joins)
{
    fake_t f = {.delta = {{"Select_full_join", 50}}};
    CHECK(fires("full_joins", &f));
    set_delta(&f, "Select_full_join", 0);
    CHECK(!fires("full_joins", &f));
}

TEST(test_thread_cache)
{
    fake_t f = {.delta = {{"Threads_created", 500}, {"Connections", 1000}}, .vars = {{"thread_cache_size", "8"}}};
    CHECK(fires("thread_cache", &f));
    CHECK_EQ_STR(last.suggested, "thread_cache_size=16");
    set_delta(&f, "Threads_created", 20);
    CHECK(!fires("thread_cache", &f));
}

TEST(test_binlog_cache_disk_use)
{
    fake_t f = {.delta = {{"Binlog_cache_disk_use", 30}, {"Binlog_cache_use", 100}},
                .vars = {{"binlog_cache_size", "32768"}}};
    CHECK(fires("binlog_cache_disk_use", &f));
    CHECK_EQ_STR(last.suggested, "binlog_cache_size=131072");
    set_delta(&f, "Binlog_cache_disk_use", 2);
    CHECK(!fires("binlog_cache_disk_use", &f));
}

TEST(test_row_lock_waits)
{
    fake_t f = {.delta = {{"Innodb_row_lock_waits", 100}, {"Innodb_row_lock_time", 50000}}};
    CHECK(fires("row_lock_waits", &f));
    set_delta(&f, "Innodb_row_lock_time", 500); /* 5 ms a wait */
    CHECK(!fires("row_lock_waits", &f));
}

TEST(test_deadlocks)
{
    fake_t f = {.delta = {{"Innodb_deadlocks", 12}}};
    CHECK(fires("deadlocks", &f));
    set_delta(&f, "Innodb_deadlocks", 1);
    CHECK(!fires("deadlocks", &f));
}

TEST(test_digest_table_full)
{
    fake_t f = {.delta = {{"Performance_schema_digest_lost", 10}}, .vars = {{"performance_schema_digests_size", "200"}}};
    CHECK(fires("digest_table_full", &f));
    CHECK_EQ_STR(last.suggested, "performance_schema_digests_size=1000");
    set_delta(&f, "Performance_schema_digest_lost", 0);
    CHECK(!fires("digest_table_full", &f));
}

TEST(test_redo_log_waits)
{
    fake_t f = {.delta = {{"Innodb_log_waits", 40}}, .vars = {{"innodb_log_file_size", "100663296"}}};
    CHECK(fires("redo_log_waits", &f));
    CHECK_EQ_STR(last.suggested, "innodb_log_file_size=201326592");
    set_delta(&f, "Innodb_log_waits", 0);
    CHECK(!fires("redo_log_waits", &f));
}

/* Every rule is named by one test above. */
TEST(test_rule_list_is_covered)
{
    static const char *const tested[] = {
        "buffer_pool_hit_rate", "buffer_pool_working_set", "max_connections", "sync_binlog",
        "innodb_flush_log_at_trx_commit", "binlog_retention_vs_disk", "tmp_tables_on_disk", "sort_merge_passes",
        "table_open_cache", "aborted_connects", "semisync_fallbacks", "semisync_unacked_commits", "replica_lag",
        "tablespace_days_to_full", "disk_days_to_full", "disk_free_low", "dominating_statement", "purge_held_back",
        "slow_queries", "full_table_scans", "full_joins", "thread_cache", "binlog_cache_disk_use", "row_lock_waits",
        "deadlocks", "digest_table_full", "redo_log_waits"};
    CHECK_EQ_INT(sizeof tested / sizeof tested[0], advice_nrules);
    for (unsigned i = 0; i < advice_nrules; i++) {
        bool found = false;
        for (size_t j = 0; j < sizeof tested / sizeof tested[0]; j++)
            found |= !strcmp(tested[j], advice_rules[i].name);
        CHECK(found);
    }
}

UNIT_MAIN(test_every_rule_has_a_name_doc_and_unit_test, test_buffer_pool_hit_rate, test_buffer_pool_working_set,
          test_max_connections, test_sync_binlog, test_innodb_flush_log_at_trx_commit, test_binlog_retention_vs_disk,
          test_tmp_tables_on_disk, test_sort_merge_passes, test_table_open_cache, test_aborted_connects,
          test_semisync_fallbacks, test_semisync_unacked_commits, test_replica_lag, test_tablespace_days_to_full,
          test_disk_days_to_full, test_disk_free_low, test_dominating_statement, test_purge_held_back,
          test_slow_queries, test_full_table_scans, test_full_joins, test_thread_cache, test_binlog_cache_disk_use,
          test_row_lock_waits, test_deadlocks, test_digest_table_full, test_redo_log_waits,
          test_rule_list_is_covered)
