/*
 * The history sampler's session (monitor/history.h runs its statements through it) and its readings.
 *
 * The session is a system thread's (every privilege, read_only does not apply) that nobody can see or reach:
 * it is not in the session registry, so SHOW PROCESSLIST and KILL do not know it; it is unmetered, so its
 * statements reach neither the slow log nor the digest summary; sql_log_bin is 0, so nothing it writes goes
 * to the binary log or to replicas; and its counters (Questions, Com_insert, ...) go to a status_t of its own,
 * so the samples do not count the sampler.  Only the sampler thread uses it.
 */
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/statvfs.h>

#include "binlog/binlog.h"
#include "engine/engine.h"
#include "monitor/history.h"
#include "repl/replica.h"
#include "repl/semisync.h"
#include "session/exec_repl.h"
#include "session/monitor.h"
#include "access/catalog.h"
#include "access/mdl.h"
#include "sql/exec/exec.h"
#include "util/util.h"

static struct {
    server_t *srv;
    session_t *s;
    session_t *r;        /* the dashboard's reader session (session_monitor_read), under rmu */
    pthread_mutex_t rmu;
    status_t own_status; /* the sampler's own counters, apart from the server's */
    bool started;
} M = {.rmu = PTHREAD_MUTEX_INITIALIZER};

/* ---------------------------------------------------------------- statements */

typedef struct rows_sink {
    res_sink_t sink;
    int ncols;
    history_row_fn fn;
    void *arg;
    bool failed;
} rows_sink_t;

static void rs_columns(res_sink_t *s, const res_col_t *c, int n) { (void)c; ((rows_sink_t *)s)->ncols = n; }
static void rs_rows_end(res_sink_t *s, bool more) { (void)s; (void)more; }
static void rs_ok(res_sink_t *s, uint64_t a, uint64_t l, const char *i, bool m) { (void)s; (void)a; (void)l; (void)i; (void)m; }
static void rs_error(res_sink_t *s) { ((rows_sink_t *)s)->failed = true; }
static void rs_raw(res_sink_t *s, const char *p, size_t n) { (void)s; (void)p; (void)n; }

static void rs_row(res_sink_t *s, const res_cell_t *cells)
{
    rows_sink_t *r = (rows_sink_t *)s;
    if (!r->fn)
        return;
    const char *v[32] = {0};
    char *own[32] = {0};
    int n = MIN(r->ncols, 32);
    for (int i = 0; i < n; i++) {
        own[i] = cells[i].null ? NULL : mem_strndup(cells[i].p, cells[i].len);
        v[i] = own[i];
    }
    r->fn(r->arg, n, v);
    for (int i = 0; i < n; i++)
        mem_free(own[i]);
}

static int run_in(session_t *s, const char *sql, size_t len, history_row_fn fn, void *fnarg, char *err, size_t cap)
{
    rows_sink_t rs = {.sink = {.columns = rs_columns, .row = rs_row, .rows_end = rs_rows_end, .ok = rs_ok,
                               .error = rs_error, .raw = rs_raw},
                      .fn = fn, .arg = fnarg};
    session_begin_statement(s);
    session_query(s, sql, len, &rs.sink);
    int rc = 0;
    if (rs.failed) {
        rc = s->diag.error ? s->diag.error->code : ER_UNKNOWN_ERROR;
        snprintf(err, cap, "%s", s->diag.error ? s->diag.error->msg : "unknown error");
    }
    arena_reset(&s->arena);
    return rc;
}

static int monitor_exec(void *arg, const char *sql, size_t len, history_row_fn fn, void *fnarg, char *err, size_t cap)
{
    (void)arg;
    return run_in(M.s, sql, len, fn, fnarg, err, cap);
}

/* A session like the sampler's (system thread, unmetered, unlisted, never logged), its counters in own. */
static session_t *system_session(server_t *srv, status_t *own)
{
    session_t *s = session_new(srv);
    s->system_thread = true;
    s->unmetered = true;
    snprintf(s->user, sizeof s->user, "system user");
    snprintf(s->priv_user, sizeof s->priv_user, "system user");
    sysvar_session_set_int(&s->vars, SYSVAR_SQL_LOG_BIN, 0);
    status_session_end(&s->stat);
    status_session_init(&s->stat, own, s);
    return s;
}

int session_monitor_read(const char *sql, size_t len, history_row_fn fn, void *arg, char *err, size_t cap)
{
    pthread_mutex_lock(&M.rmu);
    if (!M.started) {
        pthread_mutex_unlock(&M.rmu);
        snprintf(err, cap, "the history sampler is not running");
        return ER_UNKNOWN_ERROR;
    }
    if (!M.r)
        M.r = system_session(M.srv, &M.own_status);
    int rc = run_in(M.r, sql, len, fn, arg, err, cap);
    pthread_mutex_unlock(&M.rmu);
    return rc;
}

/* ---------------------------------------------------------------- readings */

typedef struct num_out {
    history_num_fn fn;
    void *arg;
} num_out_t;

static int status_one(void *arg, const status_def_t *def, const char *value, size_t len)
{
    num_out_t *o = arg;
    (void)len;
    double v;
    char *end;
    if (!strcasecmp(value, "ON"))
        v = 1;
    else if (!strcasecmp(value, "OFF"))
        v = 0;
    else if (!*value || (v = strtod(value, &end), *end != 0))
        return 0; /* text (Ssl_cipher, Binlog_snapshot_file): not a series */
    o->fn(o->arg, def->name, v);
    return 0;
}

static uint64_t g_dir_bytes;

static int dir_add(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)path;
    (void)f;
    if (flag == FTW_F)
        g_dir_bytes += (uint64_t)st->st_blocks * 512;
    return 0;
}

typedef struct binlog_sum {
    uint64_t files, bytes, disk, compressed;
} binlog_sum_t;

static int binlog_add(void *arg, const binlog_file_info_t *f)
{
    binlog_sum_t *b = arg;
    b->files++;
    b->bytes += f->size;
    b->disk += f->disk_size;
    b->compressed += f->compressed;
    return 0;
}

/* The gauges that are not status variables: disk, data directory, binary log files, tablespaces and data
 * files, replica lag, committed transactions (the per-commit gauges' denominator). */
static void gauges(history_num_fn fn, void *arg)
{
    server_t *srv = M.srv;
    struct statvfs vfs;
    if (srv->datadir && statvfs(srv->datadir, &vfs) == 0) {
        fn(arg, "Strata_disk_free_bytes", (double)vfs.f_bavail * (double)vfs.f_frsize);
        fn(arg, "Strata_disk_total_bytes", (double)vfs.f_blocks * (double)vfs.f_frsize);
    }
    if (srv->datadir) {
        g_dir_bytes = 0; /* only the sampler thread walks */
        nftw(srv->datadir, dir_add, 16, FTW_PHYS);
        fn(arg, "Strata_datadir_bytes", (double)g_dir_bytes);
    }
    if (srv->binlog) {
        binlog_sum_t b = {0};
        binlog_list_files(srv->binlog, binlog_add, &b);
        fn(arg, "Strata_binlog_files", (double)b.files);
        fn(arg, "Strata_binlog_bytes", (double)b.bytes);
        fn(arg, "Strata_binlog_disk_bytes", (double)b.disk);
        fn(arg, "Strata_binlog_compressed_files", (double)b.compressed);
    }
    catalog_t *cat = sql_exec_catalog();
    engine_t *e = cat ? catalog_engine(cat) : NULL;
    if (e) {
        engine_stats_t es;
        engine_stats(e, &es);
        fn(arg, "Strata_transactions_committed", (double)es.trx_committed);
        fn(arg, "Strata_mdl_waiting", (double)mdl_waiting());
        engine_file_info_t *f = NULL;
        size_t n = 0;
        if (engine_files(e, &f, &n) == 0) {
            double free_b = 0, total_b = 0;
            char name[700];
            for (size_t i = 0; i < n; i++) {
                if (strcmp(f[i].file_type, "UNDO LOG") == 0)
                    continue;
                free_b += (double)(f[i].free_extents * f[i].extent_size);
                total_b += (double)(f[i].total_extents * f[i].extent_size);
                snprintf(name, sizeof name, "Strata_datafile_free_extents:%s", f[i].file_name);
                fn(arg, name, (double)f[i].free_extents);
                snprintf(name, sizeof name, "Strata_datafile_total_extents:%s", f[i].file_name);
                fn(arg, name, (double)f[i].total_extents);
            }
            /* per tablespace: the sums over its files */
            for (size_t i = 0; i < n; i++) {
                if (strcmp(f[i].file_type, "UNDO LOG") == 0)
                    continue;
                bool first = true;
                for (size_t j = 0; j < i && first; j++)
                    first = strcmp(f[j].file_type, "UNDO LOG") == 0 || strcmp(f[j].tablespace_name, f[i].tablespace_name) != 0;
                if (!first)
                    continue;
                double fe = 0, te = 0;
                for (size_t j = i; j < n; j++)
                    if (strcmp(f[j].file_type, "UNDO LOG") != 0 && !strcmp(f[j].tablespace_name, f[i].tablespace_name)) {
                        fe += (double)f[j].free_extents;
                        te += (double)f[j].total_extents;
                    }
                snprintf(name, sizeof name, "Strata_tablespace_free_extents:%s", f[i].tablespace_name);
                fn(arg, name, fe);
                snprintf(name, sizeof name, "Strata_tablespace_total_extents:%s", f[i].tablespace_name);
                fn(arg, name, te);
            }
            fn(arg, "Strata_tablespace_free_bytes", free_b);
            fn(arg, "Strata_tablespace_total_bytes", total_b);
            engine_files_free(f);
        }
    }
    repl_semisync_stats_t ss;
    repl_semisync_get_stats(&ss);
    char bucket[64];
    for (int i = 0; i < REPL_SEMISYNC_HIST; i++) {
        if (repl_semisync_hist_us[i] == UINT64_MAX)
            snprintf(bucket, sizeof bucket, "Strata_semisync_ack_wait_us:inf");
        else
            snprintf(bucket, sizeof bucket, "Strata_semisync_ack_wait_us:%llu", (unsigned long long)repl_semisync_hist_us[i]);
        fn(arg, bucket, (double)ss.wait_hist[i]);
    }
    replica_t *r = session_replica();
    if (r) {
        replica_status_t st;
        replica_status(r, &st);
        if (st.configured && st.seconds_behind >= 0)
            fn(arg, "Strata_replica_lag_seconds", (double)st.seconds_behind);
    }
}

static void monitor_status(void *arg, history_num_fn fn, void *fnarg)
{
    (void)arg;
    num_out_t o = {fn, fnarg};
    status_show(&M.srv->status, NULL, true, NULL, status_one, &o);
    gauges(fn, fnarg);
}

typedef struct text_out {
    history_text_fn fn;
    void *arg;
} text_out_t;

static int var_one(void *arg, const sysvar_def_t *def, const char *value, size_t len)
{
    text_out_t *o = arg;
    (void)len;
    /* positions that move with every commit are history of the binlog, not configuration */
    if (!strncmp(def->name, "gtid_", 5) && strcmp(def->name, "gtid_domain_id") && strcmp(def->name, "gtid_strict_mode"))
        return 0;
    o->fn(o->arg, def->name, value);
    return 0;
}

static void monitor_variables(void *arg, history_text_fn fn, void *fnarg)
{
    (void)arg;
    text_out_t o = {fn, fnarg};
    sysvar_show(&M.srv->vars, NULL, SYSVAR_GLOBAL, NULL, var_one, &o);
}

static void monitor_config(void *arg, history_config_t *out)
{
    (void)arg;
    out->interval = (uint64_t)sysvar_global_int(&M.srv->vars, SYSVAR_MONITOR_INTERVAL);
    out->max_size = (uint64_t)sysvar_global_int(&M.srv->vars, SYSVAR_MONITOR_HISTORY_MAX_SIZE);
    if (sysvar_global_str(&M.srv->vars, SYSVAR_MONITOR_ALERT_WEBHOOK, out->webhook, sizeof out->webhook) < 0)
        out->webhook[0] = 0;
}

int session_monitor_start(server_t *srv)
{
    M.srv = srv;
    status_init(&M.own_status);
    session_t *s = system_session(srv, &M.own_status);
    M.s = s;
    history_ops_t ops = {.exec = monitor_exec, .status = monitor_status, .variables = monitor_variables,
                         .config = monitor_config};
    if (history_start(&ops) != 0) {
        session_free(s);
        status_destroy(&M.own_status);
        M.s = NULL;
        return -1;
    }
    M.started = true;
    return 0;
}

void session_monitor_stop(void)
{
    if (!M.started)
        return;
    history_stop();
    pthread_mutex_lock(&M.rmu);
    if (M.r)
        session_free(M.r);
    M.r = NULL;
    M.started = false;
    pthread_mutex_unlock(&M.rmu);
    session_free(M.s); /* rolls back nothing: every statement of it was autocommit */
    status_destroy(&M.own_status);
    M.s = NULL;
    M.started = false;
}

/* ---------------------------------------------------------------- SHOW STRATA ADVICE */

static const char *const advice_cols[] = {"Rule", "Severity", "Window", "Evidence", "Current_value", "Suggested_value"};
enum { ADVICE_NCOLS = sizeof advice_cols / sizeof advice_cols[0] };

static void advice_row(void *arg, const history_advice_row_t *r)
{
    res_sink_t *sink = arg;
    const char *v[ADVICE_NCOLS] = {r->rule, r->severity, r->window, r->evidence, r->current, r->suggested};
    res_cell_t cells[ADVICE_NCOLS];
    for (int i = 0; i < ADVICE_NCOLS; i++)
        cells[i] = (res_cell_t){.p = v[i], .len = strlen(v[i])};
    sink->row(sink, cells);
}

int session_monitor_show_advice(session_t *s, res_sink_t *sink, bool more)
{
    (void)s;
    res_col_t cols[ADVICE_NCOLS];
    for (int i = 0; i < ADVICE_NCOLS; i++)
        cols[i] = (res_col_t){.name = advice_cols[i], .org_name = advice_cols[i], .schema = "", .table = "",
                              .org_table = "", .type = MYSQL_TYPE_VAR_STRING, .charset = 33,
                              .length = i == 3 ? 1536 : 192};
    sink->columns(sink, cols, ADVICE_NCOLS);
    history_advice_scan(advice_row, sink);
    sink->rows_end(sink, more);
    return 0;
}
