/*
 * The advice rules (advice.h).  Each rule reads counter increases over its window, gauges and variables through
 * the context and fires only on enough evidence (a minimum number of events in the window), so a quiet server
 * or a window a few samples long says nothing rather than something noisy.  Suggested values are concrete:
 * the variable and the number to set, or what to change when no variable fixes it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "monitor/advice.h"

/* ---------------------------------------------------------------- reading the context */

static double delta(const advice_ctx_t *c, const char *name)
{
    double v;
    return c->delta && c->delta(c->arg, name, &v) ? v : NAN;
}

static double gauge(const advice_ctx_t *c, const char *name)
{
    double v;
    return c->gauge && c->gauge(c->arg, name, &v) ? v : NAN;
}

static double gauge_max(const advice_ctx_t *c, const char *name)
{
    double v;
    return c->gauge_max && c->gauge_max(c->arg, name, &v) ? v : NAN;
}

static const char *var(const advice_ctx_t *c, const char *name) { return c->var ? c->var(c->arg, name) : NULL; }

/* A numeric variable; NAN if unknown or not a number.  ON/OFF read as 1/0. */
static double var_num(const advice_ctx_t *c, const char *name)
{
    const char *v = var(c, name);
    if (!v)
        return NAN;
    if (!strcasecmp(v, "ON") || !strcasecmp(v, "YES"))
        return 1;
    if (!strcasecmp(v, "OFF") || !strcasecmp(v, "NO"))
        return 0;
    char *end;
    double d = strtod(v, &end);
    return end == v ? NAN : d;
}

#define KNOWN(x) (!isnan(x))

static void set_var(char *out, size_t cap, const char *name, double v)
{
    snprintf(out, cap, "%s=%.0f", name, v);
}

/* ---------------------------------------------------------------- the rules */

static bool rule_buffer_pool_hit_rate(const advice_ctx_t *c, advice_result_t *r)
{
    double req = delta(c, "Innodb_buffer_pool_read_requests"), miss = delta(c, "Innodb_buffer_pool_reads");
    double size = var_num(c, "innodb_buffer_pool_size");
    if (!KNOWN(req) || !KNOWN(miss) || !KNOWN(size) || req < 10000)
        return false;
    double hit = 1.0 - miss / req;
    if (hit >= 0.99)
        return false;
    r->severity = hit < 0.9 ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "hit rate %.2f%%: %.0f of %.0f page requests read from disk", hit * 100,
             miss, req);
    set_var(r->current, sizeof r->current, "innodb_buffer_pool_size", size);
    set_var(r->suggested, sizeof r->suggested, "innodb_buffer_pool_size", size * 2);
    return true;
}

static bool rule_buffer_pool_working_set(const advice_ctx_t *c, advice_result_t *r)
{
    double freep = gauge_max(c, "Innodb_buffer_pool_pages_free"), total = gauge(c, "Innodb_buffer_pool_pages_total");
    double miss = delta(c, "Innodb_buffer_pool_reads"), size = var_num(c, "innodb_buffer_pool_size");
    if (!KNOWN(freep) || !KNOWN(total) || !KNOWN(miss) || !KNOWN(size) || total <= 0 || miss < 1000)
        return false;
    if (freep > total * 0.01)
        return false;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence,
             "the pool never had more than %.0f of %.0f pages free and %.0f pages were read from disk: the "
             "working set does not fit", freep, total, miss);
    set_var(r->current, sizeof r->current, "innodb_buffer_pool_size", size);
    set_var(r->suggested, sizeof r->suggested, "innodb_buffer_pool_size", size * 2);
    return true;
}

static bool rule_max_connections(const advice_ctx_t *c, advice_result_t *r)
{
    double peak = gauge_max(c, "Threads_connected"), max = var_num(c, "max_connections");
    double refused = delta(c, "Connection_errors_max_connections");
    if (!KNOWN(peak) || !KNOWN(max) || max <= 0)
        return false;
    if (peak < max * 0.85 && !(KNOWN(refused) && refused > 0))
        return false;
    r->severity = KNOWN(refused) && refused > 0 ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "up to %.0f connections of max_connections=%.0f (%.0f%%), %.0f refused",
             peak, max, peak * 100 / max, KNOWN(refused) ? refused : 0);
    set_var(r->current, sizeof r->current, "max_connections", max);
    set_var(r->suggested, sizeof r->suggested, "max_connections", ceil(fmax(peak, max) * 1.5));
    return true;
}

static bool rule_sync_binlog(const advice_ctx_t *c, advice_result_t *r)
{
    double on = var_num(c, "log_bin"), sync = var_num(c, "sync_binlog");
    if (!KNOWN(on) || !KNOWN(sync) || on == 0 || sync == 1)
        return false;
    r->severity = ADVICE_CRITICAL;
    snprintf(r->evidence, sizeof r->evidence,
             "the binary log is on but not synced at every commit: a crash can lose committed transactions from "
             "it (and from replicas)");
    set_var(r->current, sizeof r->current, "sync_binlog", sync);
    set_var(r->suggested, sizeof r->suggested, "sync_binlog", 1);
    return true;
}

static bool rule_flush_log_at_trx_commit(const advice_ctx_t *c, advice_result_t *r)
{
    double v = var_num(c, "innodb_flush_log_at_trx_commit");
    if (!KNOWN(v) || v == 1)
        return false;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence,
             "the redo log is not flushed at every commit: a crash loses up to a second of committed transactions");
    set_var(r->current, sizeof r->current, "innodb_flush_log_at_trx_commit", v);
    set_var(r->suggested, sizeof r->suggested, "innodb_flush_log_at_trx_commit", 1);
    return true;
}

/* Binary log bytes kept for the retention period at the window's write rate, against the free disk. */
static bool rule_binlog_retention(const advice_ctx_t *c, advice_result_t *r)
{
    double written = delta(c, "Binlog_bytes_written"), freeb = gauge(c, "Strata_disk_free_bytes");
    double secs = var_num(c, "binlog_expire_logs_seconds"), days = var_num(c, "expire_logs_days");
    if (!KNOWN(written) || !KNOWN(freeb) || c->window_seconds < 60 || written <= 0)
        return false;
    double keep = KNOWN(secs) && secs > 0 ? secs : KNOWN(days) && days > 0 ? days * 86400 : 0;
    double rate = written / c->window_seconds;
    double horizon = keep > 0 ? keep : 30 * 86400.0; /* kept forever: judge the next 30 days */
    double need = rate * horizon;
    if (need < freeb * 0.8)
        return false;
    r->severity = need >= freeb ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence,
             "binary logs grow %.0f bytes/s; %s they need %.0f bytes, the disk has %.0f free", rate,
             keep > 0 ? "kept for the retention period" : "never purged, over 30 days", need, freeb);
    set_var(r->current, sizeof r->current, "binlog_expire_logs_seconds", keep);
    set_var(r->suggested, sizeof r->suggested, "binlog_expire_logs_seconds", floor(freeb * 0.5 / rate));
    return true;
}

static bool rule_tmp_disk_tables(const advice_ctx_t *c, advice_result_t *r)
{
    double disk = delta(c, "Created_tmp_disk_tables"), all = delta(c, "Created_tmp_tables");
    double tts = var_num(c, "tmp_table_size"), mhs = var_num(c, "max_heap_table_size");
    if (!KNOWN(disk) || !KNOWN(all) || !KNOWN(tts) || all < 10 || disk <= all * 0.25)
        return false;
    double limit = KNOWN(mhs) && mhs < tts ? mhs : tts;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "%.0f of %.0f internal temporary tables went to disk (%.0f%%)", disk,
             all, disk * 100 / all);
    snprintf(r->current, sizeof r->current, "tmp_table_size=%.0f max_heap_table_size=%.0f", tts, KNOWN(mhs) ? mhs : tts);
    snprintf(r->suggested, sizeof r->suggested, "tmp_table_size=%.0f max_heap_table_size=%.0f", limit * 4, limit * 4);
    return true;
}

static bool rule_table_open_cache(const advice_ctx_t *c, advice_result_t *r)
{
    double opened = delta(c, "Opened_tables"), open = gauge(c, "Open_tables"), cache = var_num(c, "table_open_cache");
    if (!KNOWN(opened) || !KNOWN(open) || !KNOWN(cache) || opened < 100 || open < cache * 0.95)
        return false;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "%.0f tables opened in the window with the cache full (%.0f of %.0f)",
             opened, open, cache);
    set_var(r->current, sizeof r->current, "table_open_cache", cache);
    set_var(r->suggested, sizeof r->suggested, "table_open_cache", cache * 2);
    return true;
}

static bool rule_semisync_unacked(const advice_ctx_t *c, advice_result_t *r)
{
    double no = delta(c, "Rpl_semi_sync_master_no_tx"), yes = delta(c, "Rpl_semi_sync_master_yes_tx");
    double enabled = var_num(c, "rpl_semi_sync_master_enabled");
    if (!KNOWN(no) || !KNOWN(yes) || enabled != 1 || no < 1 || no < (no + yes) * 0.01)
        return false;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "%.0f of %.0f commits were not acknowledged by any replica", no,
             no + yes);
    snprintf(r->current, sizeof r->current, "%.1f%% unacknowledged", no * 100 / (no + yes));
    snprintf(r->suggested, sizeof r->suggested, "check the replicas' links and Rpl_semi_sync_master_clients");
    return true;
}

static bool rule_replica_lag(const advice_ctx_t *c, advice_result_t *r)
{
    double lag = gauge_max(c, "Strata_replica_lag_seconds"), now = gauge(c, "Strata_replica_lag_seconds");
    if (!KNOWN(lag) || lag < 60)
        return false;
    r->severity = lag >= 600 ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "the replica fell up to %.0f s behind its source", lag);
    snprintf(r->current, sizeof r->current, "Seconds_Behind_Master=%.0f", KNOWN(now) ? now : lag);
    snprintf(r->suggested, sizeof r->suggested, "slave_parallel_threads=%.0f",
             fmax(4, var_num(c, "slave_parallel_threads") * 2));
    return true;
}

/* A quantity that shrinks over the window: fires when it reaches 0 within 7 days at the window's rate.
 * what is printf'd with (bytes left, days). */
static bool days_to_full(const advice_ctx_t *c, advice_result_t *r, const char *gauge_name, const char *what,
                         const char *advice)
{
    double d = delta(c, gauge_name), left = gauge(c, gauge_name);
    if (!KNOWN(d) || !KNOWN(left) || d >= 0 || c->window_seconds < 60)
        return false;
    double days = left / (-d / c->window_seconds) / 86400;
    if (days >= 7)
        return false;
    r->severity = days < 1 ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, what, left, days);
    snprintf(r->current, sizeof r->current, "%.1f days to full", days);
    snprintf(r->suggested, sizeof r->suggested, "%s", advice);
    return true;
}

static bool rule_tablespace_days_to_full(const advice_ctx_t *c, advice_result_t *r)
{
    return days_to_full(c, r, "Strata_tablespace_free_bytes",
                        "the tablespaces' free extents (%.0f bytes) last %.1f days at the window's rate",
                        "ALTER TABLESPACE ... ADD DATAFILE (or autoextend)");
}

static bool rule_disk_days_to_full(const advice_ctx_t *c, advice_result_t *r)
{
    return days_to_full(c, r, "Strata_disk_free_bytes",
                        "the data directory's disk (%.0f bytes free) fills in %.1f days at the window's rate",
                        "more disk, or purge binary logs sooner");
}

static bool rule_disk_free_low(const advice_ctx_t *c, advice_result_t *r)
{
    double freeb = gauge(c, "Strata_disk_free_bytes"), total = gauge(c, "Strata_disk_total_bytes");
    if (!KNOWN(freeb) || !KNOWN(total) || total <= 0 || freeb >= total * 0.1)
        return false;
    r->severity = freeb < total * 0.03 ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "%.0f of %.0f bytes free on the data directory's disk", freeb, total);
    snprintf(r->current, sizeof r->current, "%.1f%% free", freeb * 100 / total);
    snprintf(r->suggested, sizeof r->suggested, "at least 10%% free");
    return true;
}

static bool rule_dominating_statement(const advice_ctx_t *c, advice_result_t *r)
{
    char text[256];
    double count, total;
    if (!c->top_digest || !c->top_digest(c->arg, text, sizeof text, &count, &total) || total < 1000 ||
        count < total * 0.5)
        return false;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "one statement class is %.0f%% of the window's %.0f statements: %s",
             count * 100 / total, total, text);
    snprintf(r->current, sizeof r->current, "%.0f executions", count);
    snprintf(r->suggested, sizeof r->suggested, "run it less often (batch it, cache its answer, or drop it)");
    return true;
}

static bool rule_purge_held_back(const advice_ctx_t *c, advice_result_t *r)
{
    double hll = gauge(c, "Innodb_history_list_length"), grew = delta(c, "Innodb_history_list_length");
    if (!KNOWN(hll) || !KNOWN(grew) || hll < 100000 || grew <= 0)
        return false;
    r->severity = hll >= 1000000 ? ADVICE_CRITICAL : ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence,
             "%.0f old row versions wait for purge and grew by %.0f: a long transaction holds purge back", hll, grew);
    snprintf(r->current, sizeof r->current, "Innodb_history_list_length=%.0f", hll);
    snprintf(r->suggested, sizeof r->suggested, "commit or kill the oldest transaction (information_schema.INNODB_TRX)");
    return true;
}

static bool rule_row_lock_waits(const advice_ctx_t *c, advice_result_t *r)
{
    double waits = delta(c, "Innodb_row_lock_waits"), ms = delta(c, "Innodb_row_lock_time");
    if (!KNOWN(waits) || !KNOWN(ms) || waits < 10 || ms / waits < 100)
        return false;
    r->severity = ADVICE_WARNING;
    snprintf(r->evidence, sizeof r->evidence, "%.0f row lock waits of %.0f ms on average", waits, ms / waits);
    snprintf(r->current, sizeof r->current, "%.0f ms per wait", ms / waits);
    snprintf(r->suggested, sizeof r->suggested, "shorter transactions on the hot rows (SHOW ENGINE INNODB STATUS)");
    return true;
}

/* ---------------------------------------------------------------- counting rules
 * The rules of one shape: a counter grew by at least `min` in the window and, when `base` is given, by at least
 * `share` of base (the sum of the counters listed, at least `min_base`); the suggestion is `var` times `factor`
 * (at least `floor`), or a sentence when no variable fixes it. */
typedef struct count_rule {
    const char *counter;
    const char *base[2];
    double min, min_base, share;
    const char *var;
    double factor, floor;
    advice_severity_t severity;
    const char *evidence; /* printf format of (count, base) */
    const char *advice;   /* the suggestion when var is NULL */
} count_rule_t;

static bool count_rule(const advice_ctx_t *c, advice_result_t *r, const count_rule_t *k)
{
    double n = delta(c, k->counter), base = 0;
    for (int i = 0; i < 2 && k->base[i]; i++) {
        double b = delta(c, k->base[i]);
        base += KNOWN(b) ? b : 0;
    }
    double v = k->var ? var_num(c, k->var) : 0;
    if (!KNOWN(n) || !KNOWN(v) || n < k->min || base < k->min_base || n < base * k->share || n == 0)
        return false;
    r->severity = k->severity;
    snprintf(r->evidence, sizeof r->evidence, k->evidence, n, base);
    if (k->var) {
        set_var(r->current, sizeof r->current, k->var, v);
        set_var(r->suggested, sizeof r->suggested, k->var, fmax(v * k->factor, k->floor));
    } else {
        if (k->base[0] && base > 0)
            snprintf(r->current, sizeof r->current, "%.1f%% of %s", n * 100 / base, k->base[0]);
        else
            snprintf(r->current, sizeof r->current, "%s +%.0f", k->counter, n);
        snprintf(r->suggested, sizeof r->suggested, "%s", k->advice);
    }
    return true;
}

#define COUNT_RULE(fn, ...)                                                                                     \
    static bool fn(const advice_ctx_t *c, advice_result_t *r)                                                 \
    {                                                                                                         \
        static const count_rule_t k = {__VA_ARGS__};                                                          \
        return count_rule(c, r, &k);                                                                          \
    }

COUNT_RULE(rule_sort_merge_passes, .counter = "Sort_merge_passes", .base = {"Sort_scan", "Sort_range"}, .min = 5,
           .share = 0.1, .var = "sort_buffer_size", .factor = 4, .severity = ADVICE_WARNING,
           .evidence = "%.0f merge passes for %.0f sorts: sorts spill to disk")
COUNT_RULE(rule_aborted_connects, .counter = "Aborted_connects", .base = {"Connections"}, .min = 10, .share = 0.1,
           .severity = ADVICE_WARNING,
           .evidence = "%.0f of %.0f connection attempts failed (bad passwords, unknown users, handshake timeouts)",
           .advice = "fix the clients' credentials; the error log names their hosts")
COUNT_RULE(rule_semisync_fallbacks, .counter = "Rpl_semi_sync_master_no_times", .min = 1,
           .var = "rpl_semi_sync_master_timeout", .factor = 2, .severity = ADVICE_CRITICAL,
           .evidence = "semi-synchronous replication fell back to asynchronous %.0f times (no ACK within the timeout)")
COUNT_RULE(rule_slow_queries, .counter = "Slow_queries", .base = {"Questions"}, .min_base = 100, .share = 0.05,
           .severity = ADVICE_WARNING, .evidence = "%.0f of %.0f statements ran longer than long_query_time",
           .advice = "slow_query_log=ON and pt-query-digest the slow log")
COUNT_RULE(rule_full_scans, .counter = "Select_scan", .base = {"Com_select"}, .min_base = 100, .share = 0.5,
           .severity = ADVICE_NOTE, .evidence = "%.0f of %.0f SELECTs scanned a whole table",
           .advice = "log_queries_not_using_indexes=ON and index what they filter on")
COUNT_RULE(rule_full_joins, .counter = "Select_full_join", .min = 10, .severity = ADVICE_WARNING,
           .evidence = "%.0f joins read a table without an index",
           .advice = "an index on the join columns (slow log, log_slow_verbosity=query_plan)")
COUNT_RULE(rule_thread_cache, .counter = "Threads_created", .base = {"Connections"}, .min_base = 100, .share = 0.1,
           .var = "thread_cache_size", .factor = 2, .floor = 16, .severity = ADVICE_NOTE,
           .evidence = "%.0f threads created for %.0f connections")
COUNT_RULE(rule_binlog_cache, .counter = "Binlog_cache_disk_use", .base = {"Binlog_cache_use"}, .min_base = 10,
           .share = 0.1, .var = "binlog_cache_size", .factor = 4, .severity = ADVICE_NOTE,
           .evidence = "%.0f of %.0f transactions' binlog caches spilled to disk")
COUNT_RULE(rule_deadlocks, .counter = "Innodb_deadlocks", .min = 5, .severity = ADVICE_WARNING,
           .evidence = "%.0f deadlocks: transactions lock the same rows in different orders",
           .advice = "take row locks in one order (innodb_print_all_deadlocks shows them)")
COUNT_RULE(rule_digest_lost, .counter = "Performance_schema_digest_lost", .min = 1,
           .var = "performance_schema_digests_size", .factor = 2, .floor = 1000, .severity = ADVICE_NOTE,
           .evidence = "%.0f statements found the digest table full")
COUNT_RULE(rule_redo_log_waits, .counter = "Innodb_log_waits", .min = 10, .var = "innodb_log_file_size",
           .factor = 2, .severity = ADVICE_WARNING, .evidence = "%.0f times a commit waited for redo log space")

const advice_rule_t advice_rules[] = {
    {"buffer_pool_hit_rate", ADVICE_HOUR, "innodb_buffer_pool_size", rule_buffer_pool_hit_rate,
     "Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests: fires under a 99% hit rate (10,000 requests at least)"},
    {"buffer_pool_working_set", ADVICE_HOUR, "innodb_buffer_pool_size", rule_buffer_pool_working_set,
     "Innodb_buffer_pool_pages_free (highest in the window) vs _pages_total, Innodb_buffer_pool_reads: fires when "
     "the pool stayed full (at most 1% free) while 1,000 pages or more were read from disk"},
    {"max_connections", ADVICE_DAY, "max_connections", rule_max_connections,
     "Threads_connected (highest in the window) vs max_connections, Connection_errors_max_connections: fires at "
     "85% or at any refusal"},
    {"sync_binlog", ADVICE_HOUR, "sync_binlog,log_bin", rule_sync_binlog,
     "log_bin and sync_binlog: fires when the binlog is on and sync_binlog is not 1"},
    {"innodb_flush_log_at_trx_commit", ADVICE_HOUR, "innodb_flush_log_at_trx_commit", rule_flush_log_at_trx_commit,
     "innodb_flush_log_at_trx_commit: fires when it is not 1"},
    {"binlog_retention_vs_disk", ADVICE_DAY, "binlog_expire_logs_seconds,expire_logs_days", rule_binlog_retention,
     "Binlog_bytes_written rate x binlog_expire_logs_seconds (30 days if never purged) vs Strata_disk_free_bytes: "
     "fires at 80% of the free space"},
    {"tmp_tables_on_disk", ADVICE_HOUR, "tmp_table_size,max_heap_table_size", rule_tmp_disk_tables,
     "Created_tmp_disk_tables / Created_tmp_tables: fires over 25% (10 temporary tables at least)"},
    {"sort_merge_passes", ADVICE_HOUR, "sort_buffer_size", rule_sort_merge_passes,
     "Sort_merge_passes vs Sort_scan + Sort_range: fires at 5 passes or more and over 10% of the sorts"},
    {"table_open_cache", ADVICE_HOUR, "table_open_cache", rule_table_open_cache,
     "Opened_tables, Open_tables vs table_open_cache: fires when 100 tables or more were opened with the cache full"},
    {"aborted_connects", ADVICE_HOUR, "", rule_aborted_connects,
     "Aborted_connects / Connections: fires at 10 failures or more and over 10% of the attempts"},
    {"semisync_fallbacks", ADVICE_DAY, "rpl_semi_sync_master_timeout", rule_semisync_fallbacks,
     "Rpl_semi_sync_master_no_times: fires at any fallback to asynchronous replication"},
    {"semisync_unacked_commits", ADVICE_DAY, "rpl_semi_sync_master_enabled", rule_semisync_unacked,
     "Rpl_semi_sync_master_no_tx vs _yes_tx with semi-sync enabled: fires over 1% unacknowledged commits"},
    {"replica_lag", ADVICE_HOUR, "slave_parallel_threads", rule_replica_lag,
     "Strata_replica_lag_seconds (Seconds_Behind_Master, highest in the window): fires at 60 s"},
    {"tablespace_days_to_full", ADVICE_DAY, "", rule_tablespace_days_to_full,
     "Strata_tablespace_free_bytes now and its decrease over the window: fires under 7 days to full"},
    {"disk_days_to_full", ADVICE_DAY, "", rule_disk_days_to_full,
     "Strata_disk_free_bytes now and its decrease over the window: fires under 7 days to full"},
    {"disk_free_low", ADVICE_HOUR, "", rule_disk_free_low,
     "Strata_disk_free_bytes vs Strata_disk_total_bytes: fires under 10% free"},
    {"dominating_statement", ADVICE_HOUR, "", rule_dominating_statement,
     "the digest snapshots: fires when one statement class is half or more of 1,000 statements or more"},
    {"purge_held_back", ADVICE_HOUR, "", rule_purge_held_back,
     "Innodb_history_list_length now and its growth: fires at 100,000 versions still growing"},
    {"slow_queries", ADVICE_HOUR, "long_query_time", rule_slow_queries,
     "Slow_queries / Questions: fires over 5% (100 statements at least)"},
    {"full_table_scans", ADVICE_HOUR, "", rule_full_scans,
     "Select_scan / Com_select: fires over 50% (100 SELECTs at least)"},
    {"full_joins", ADVICE_HOUR, "", rule_full_joins, "Select_full_join: fires at 10 or more"},
    {"thread_cache", ADVICE_HOUR, "thread_cache_size", rule_thread_cache,
     "Threads_created / Connections: fires over 10% (100 connections at least)"},
    {"binlog_cache_disk_use", ADVICE_HOUR, "binlog_cache_size", rule_binlog_cache,
     "Binlog_cache_disk_use / Binlog_cache_use: fires over 10% (10 transactions at least)"},
    {"row_lock_waits", ADVICE_HOUR, "", rule_row_lock_waits,
     "Innodb_row_lock_waits and Innodb_row_lock_time: fires at 10 waits or more averaging 100 ms"},
    {"deadlocks", ADVICE_HOUR, "", rule_deadlocks, "Innodb_deadlocks: fires at 5 or more"},
    {"digest_table_full", ADVICE_DAY, "performance_schema_digests_size", rule_digest_lost,
     "Performance_schema_digest_lost: fires at any statement not recorded"},
    {"redo_log_waits", ADVICE_HOUR, "innodb_log_file_size", rule_redo_log_waits,
     "Innodb_log_waits: fires at 10 or more"},
};
const unsigned advice_nrules = sizeof advice_rules / sizeof advice_rules[0];

const advice_rule_t *advice_rule_find(const char *name)
{
    for (unsigned i = 0; i < advice_nrules; i++)
        if (!strcmp(advice_rules[i].name, name))
            return &advice_rules[i];
    return NULL;
}

bool advice_eval(const advice_rule_t *rule, const advice_ctx_t *c, advice_result_t *r)
{
    memset(r, 0, sizeof *r);
    return rule->eval(c, r);
}

const char *advice_window_name(advice_window_t w) { return w == ADVICE_HOUR ? "1h" : w == ADVICE_DAY ? "1d" : "7d"; }

double advice_window_seconds(advice_window_t w)
{
    return w == ADVICE_HOUR ? 3600 : w == ADVICE_DAY ? 86400 : 7 * 86400;
}

const char *advice_severity_name(advice_severity_t s)
{
    return s == ADVICE_CRITICAL ? "critical" : s == ADVICE_WARNING ? "warning" : "note";
}
