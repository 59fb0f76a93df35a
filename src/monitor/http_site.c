/*
 * The monitoring site (routes in http_site.h): login, /metrics, the dashboard's JSON and charts, and the ring
 * of recent samples.
 *
 * The ring: a sampler thread of this module copies a few status values (SITE_SAMPLE_NAMES) every
 * SITE_SAMPLE_SECONDS into a fixed ring of SITE_RING_ROWS rows (one hour).  Charts are rates (counter deltas
 * over time) or gauges computed from it when drawn.  The ring's mutex is a leaf held only to copy rows in or
 * out.  Longer history lives in SQL tables of its own (docs/monitoring.md); this ring is what the overview
 * draws without them.
 *
 * Everything here reads memory: status sums, the variable store, the session registry (under its mutex, held
 * to copy the rows), the digest table (digest_scan's shared shard locks), the engine's file counters and the
 * binlog index.  No request enters a session, so none shows in the process list or the query logs.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "binlog/binlog.h"
#include "engine/engine.h"
#include "monitor/chart.h"
#include "monitor/digest.h"
#include "monitor/http.h"
#include "monitor/http_site.h"
#include "monitor/metrics.h"
#include "acl/acl.h"
#include "acl/priv.h"
#include "repl/replica.h"
#include "session/exec_repl.h"
#include "session/session.h"
#include "util/fio.h"
#include "util/password.h"

/* The built-in assets (http_assets.c). */
extern const char site_index_html[], site_app_js[], site_style_css[];
extern const size_t site_index_html_len, site_app_js_len, site_style_css_len;

#define SITE_SAMPLE_SECONDS 2
#define SITE_RING_ROWS 1800 /* one hour */

/* The status variables the ring keeps, by column. */
#define SITE_SAMPLE_NAMES(X)                                                                                     \
    X(QUESTIONS, "Questions") X(COM_SELECT, "Com_select") X(COM_INSERT, "Com_insert")                          \
    X(COM_UPDATE, "Com_update") X(COM_DELETE, "Com_delete") X(BYTES_RECEIVED, "Bytes_received")               \
    X(BYTES_SENT, "Bytes_sent") X(THREADS_CONNECTED, "Threads_connected")                                      \
    X(THREADS_RUNNING, "Threads_running") X(BP_REQUESTS, "Innodb_buffer_pool_read_requests")                   \
    X(BP_READS, "Innodb_buffer_pool_reads") X(BP_DIRTY, "Innodb_buffer_pool_pages_dirty")                      \
    X(ROW_LOCK_WAITS, "Innodb_row_lock_waits") X(BINLOG_COMMITS, "Binlog_commits")                             \
    X(BINLOG_FSYNCS, "Binlog_fsyncs") X(REDO_FSYNCS, "Innodb_data_fsyncs") X(SLOW_QUERIES, "Slow_queries")

enum site_col {
#define SITE_COL_ENUM(id, name) COL_##id,
    SITE_SAMPLE_NAMES(SITE_COL_ENUM)
#undef SITE_COL_ENUM
        SITE_NCOLS
};
static const char *const site_col_names[SITE_NCOLS] = {
#define SITE_COL_NAME(id, name) name,
    SITE_SAMPLE_NAMES(SITE_COL_NAME)
#undef SITE_COL_NAME
};

typedef struct site_row {
    double t; /* wall clock, seconds */
    double v[SITE_NCOLS];
} site_row_t;

/* How a chart is computed from the ring: the per-second rate of the sum of up to four counters, a gauge, or a
 * buffer-pool hit rate (1 - reads / requests over each interval). */
typedef enum { CHART_RATE, CHART_GAUGE, CHART_HIT_RATE } chart_kind_t;
typedef struct site_chart {
    const char *name, *title, *unit;
    chart_kind_t kind;
    int cols[4]; /* -1 ends */
} site_chart_t;

static const site_chart_t site_charts[] = {
    {"queries", "Queries", "per second", CHART_RATE, {COL_QUESTIONS, -1}},
    {"writes", "INSERT + UPDATE + DELETE", "per second", CHART_RATE, {COL_COM_INSERT, COL_COM_UPDATE, COL_COM_DELETE, -1}},
    {"selects", "SELECT", "per second", CHART_RATE, {COL_COM_SELECT, -1}},
    {"threads_connected", "Threads connected", "", CHART_GAUGE, {COL_THREADS_CONNECTED, -1}},
    {"threads_running", "Threads running", "", CHART_GAUGE, {COL_THREADS_RUNNING, -1}},
    {"network_in", "Bytes received", "bytes per second", CHART_RATE, {COL_BYTES_RECEIVED, -1}},
    {"network_out", "Bytes sent", "bytes per second", CHART_RATE, {COL_BYTES_SENT, -1}},
    {"bp_hit_rate", "Buffer pool hit rate", "fraction", CHART_HIT_RATE, {COL_BP_REQUESTS, COL_BP_READS, -1}},
    {"bp_dirty", "Buffer pool dirty pages", "pages", CHART_GAUGE, {COL_BP_DIRTY, -1}},
    {"row_lock_waits", "Row lock waits", "per second", CHART_RATE, {COL_ROW_LOCK_WAITS, -1}},
    {"binlog_commits", "Binlog commits", "per second", CHART_RATE, {COL_BINLOG_COMMITS, -1}},
    {"fsyncs", "Binlog + redo fsyncs", "per second", CHART_RATE, {COL_BINLOG_FSYNCS, COL_REDO_FSYNCS, -1}},
    {"slow_queries", "Slow queries", "per second", CHART_RATE, {COL_SLOW_QUERIES, -1}},
};

static struct site {
    monitor_http_cfg_t cfg;
    http_server_t *http;
    char *cert_pem, *key_pem;
    /* sampler */
    pthread_t sampler;
    bool sampler_running;
    pthread_mutex_t mu; /* ring and stop flag; a leaf */
    pthread_cond_t cv;
    bool stop;
    site_row_t *ring;
    size_t head, count; /* oldest row at (head - count) mod SITE_RING_ROWS, newest at head - 1 */
} g_site = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static double now_s(void) { return (double)time_wall_us() / 1e6; }

/* ---- JSON ---- */

static void json_str(buf_t *b, const char *s)
{
    buf_append_byte(b, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            buf_printf(b, "\\%c", *p);
        else if (*p < 0x20)
            buf_printf(b, "\\u%04x", *p);
        else
            buf_append_byte(b, *p);
    }
    buf_append_byte(b, '"');
}

/* "key": "value" with a leading comma unless first. */
static void json_kv(buf_t *b, bool first, const char *k, const char *v)
{
    if (!first)
        buf_append_byte(b, ',');
    json_str(b, k);
    buf_append_byte(b, ':');
    json_str(b, v);
}

static void json_kn(buf_t *b, bool first, const char *k, double v)
{
    if (!first)
        buf_append_byte(b, ',');
    json_str(b, k);
    if (isfinite(v))
        buf_printf(b, ":%.15g", v);
    else
        buf_append_str(b, ":null");
}

/* ---- login ---- */

static bool site_password_ok(const acl_account_t *a, const char *pw)
{
    size_t len = strlen(pw);
    if (!a->auth[0])
        return len == 0;
    switch (a->plugin) {
    case PASSWORD_PLUGIN_NATIVE: {
        char h[PASSWORD_NATIVE_HASH_LEN + 1];
        password_native_hash(pw, len, h);
        return strlen(a->auth) == PASSWORD_NATIVE_HASH_LEN && password_memeq(h, a->auth, PASSWORD_NATIVE_HASH_LEN);
    }
    case PASSWORD_PLUGIN_SHA2:
        return len <= PASSWORD_SHA2_MAX && password_sha2_verify(a->auth, pw, len);
    default:
        return false;
    }
}

static int site_auth(void *arg, const char *user, const char *password, const char *ip, bool tls)
{
    server_t *srv = arg;
    bool local = !strcmp(ip, "127.0.0.1") || !strcmp(ip, "::1") || !strcmp(ip, "::ffff:127.0.0.1");
    acl_account_t acc;
    if (acl_find_for_login(srv->acl, user, local ? "localhost" : NULL, ip, local, &acc) != 0)
        return -1;
    if ((acc.flags & ACL_FLAG_LOCKED) || ((acc.flags & ACL_FLAG_REQUIRE_SSL) && !tls))
        return -1;
    if (!site_password_ok(&acc, password))
        return -1;
    acl_privs_t *p = acl_privs_resolve(srv->acl, acc.user, acc.host, acc.default_role[0] ? acc.default_role : NULL);
    uint64_t g = acl_privs_global(p);
    acl_privs_free(p);
    return g & (PRIV_PROCESS | PRIV_SUPER) ? 0 : -1;
}

/* ---- the ring ---- */

static double site_status_value(server_t *srv, const char *name, buf_t *tmp)
{
    const status_def_t *def = status_find(name);
    if (!def)
        return 0;
    buf_reset(tmp);
    status_get_text(&srv->status, NULL, true, def, tmp);
    buf_append_byte(tmp, 0);
    return strtod((const char *)tmp->data, NULL);
}

static void site_sample_once(void)
{
    site_row_t row = {.t = now_s()};
    buf_t tmp;
    buf_init(&tmp);
    for (int c = 0; c < SITE_NCOLS; c++)
        row.v[c] = site_status_value(g_site.cfg.srv, site_col_names[c], &tmp);
    buf_free(&tmp);
    pthread_mutex_lock(&g_site.mu);
    g_site.ring[g_site.head] = row;
    g_site.head = (g_site.head + 1) % SITE_RING_ROWS;
    if (g_site.count < SITE_RING_ROWS)
        g_site.count++;
    pthread_mutex_unlock(&g_site.mu);
}

static void *site_sampler(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_site.mu);
    while (!g_site.stop) {
        pthread_mutex_unlock(&g_site.mu);
        site_sample_once();
        pthread_mutex_lock(&g_site.mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += SITE_SAMPLE_SECONDS;
        while (!g_site.stop && pthread_cond_timedwait(&g_site.cv, &g_site.mu, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&g_site.mu);
    return NULL;
}

/* A copy of the ring, oldest first; *n rows. */
static site_row_t *site_ring_copy(size_t *n)
{
    pthread_mutex_lock(&g_site.mu);
    size_t cnt = g_site.count;
    site_row_t *v = mem_alloc((cnt + 1) * sizeof *v);
    for (size_t i = 0; i < cnt; i++)
        v[i] = g_site.ring[(g_site.head + SITE_RING_ROWS - cnt + i) % SITE_RING_ROWS];
    pthread_mutex_unlock(&g_site.mu);
    *n = cnt;
    return v;
}

/* The chart's points from consecutive rows; *n in, points out. */
static chart_point_t *site_chart_points(const site_chart_t *c, const site_row_t *r, size_t nrows, size_t *n)
{
    chart_point_t *p = mem_alloc((nrows ? nrows : 1) * sizeof *p);
    size_t k = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (c->kind == CHART_GAUGE) {
            p[k++] = (chart_point_t){r[i].t, r[i].v[c->cols[0]]};
            continue;
        }
        if (i == 0)
            continue;
        double dt = r[i].t - r[i - 1].t;
        if (dt <= 0)
            continue;
        if (c->kind == CHART_HIT_RATE) {
            double req = r[i].v[c->cols[0]] - r[i - 1].v[c->cols[0]];
            double miss = r[i].v[c->cols[1]] - r[i - 1].v[c->cols[1]];
            p[k++] = (chart_point_t){r[i].t, req > 0 ? 1.0 - miss / req : 1.0};
            continue;
        }
        double d = 0;
        for (int j = 0; j < 4 && c->cols[j] >= 0; j++)
            d += r[i].v[c->cols[j]] - r[i - 1].v[c->cols[j]];
        p[k++] = (chart_point_t){r[i].t, d > 0 ? d / dt : 0}; /* FLUSH STATUS may step a counter back */
    }
    *n = k;
    return p;
}

static const site_chart_t *site_chart_find(const char *name, size_t len)
{
    for (size_t i = 0; i < ARRAY_LEN(site_charts); i++)
        if (strlen(site_charts[i].name) == len && !strncmp(site_charts[i].name, name, len))
            return &site_charts[i];
    return NULL;
}

/* ---- history: windows past the ring's hour ----
 *
 * Read from strata_monitor.status_history, one series at a time over its (server, name, ts) index, cut into
 * HIST_BUCKETS buckets of the window: a counter is read as its largest value in a bucket (its value at the
 * bucket's last sample: counters only grow, but for FLUSH STATUS and restarts) and a gauge as its average.  A
 * rate is the difference of two consecutive buckets that hold samples over the time between their last
 * samples; a step back counts as 0. */
#define HIST_BUCKETS 240

typedef struct name_list {
    char **v;
    size_t n;
} name_list_t;
#define HIST_MAX_WINDOW (31 * 86400.0)

typedef struct hist_series {
    int64_t b0;        /* the first bucket (ts DIV step) */
    size_t nb;
    double *max, *avg; /* per bucket */
    double *last;      /* the bucket's last sample time (where a counter has its largest value) */
    bool *have;
} hist_series_t;

static void hist_row(void *arg, int n, const char *const *cells)
{
    hist_series_t *h = arg;
    if (n < 4 || !cells[0] || !cells[1] || !cells[2] || !cells[3])
        return;
    int64_t b = strtoll(cells[0], NULL, 10) - h->b0;
    if (b < 0 || (size_t)b >= h->nb)
        return;
    h->max[b] = strtod(cells[1], NULL);
    h->avg[b] = strtod(cells[2], NULL);
    h->last[b] = strtod(cells[3], NULL);
    h->have[b] = true;
}

static void sql_quote(buf_t *b, const char *s)
{
    buf_append_byte(b, '\'');
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            buf_append_byte(b, '\\');
        buf_append_byte(b, (uint8_t)*s);
    }
    buf_append_byte(b, '\'');
}

/* One series of server over [from, from + nb * step): 0, or -1 when the history cannot be read. */
static int hist_read(const char *server, const char *name, int64_t from, int64_t step, hist_series_t *h)
{
    if (!g_site.cfg.history_read)
        return -1;
    buf_t q;
    buf_init(&q);
    buf_printf(&q, "SELECT ts DIV %lld, MAX(value), AVG(value), MAX(ts) FROM " HISTORY_SCHEMA ".status_history "
                   "FORCE INDEX (series) WHERE server = ", (long long)step);
    sql_quote(&q, server);
    buf_append_str(&q, " AND name = ");
    sql_quote(&q, name);
    buf_printf(&q, " AND ts >= %lld AND ts < %lld GROUP BY ts DIV %lld", (long long)from,
               (long long)(from + (int64_t)h->nb * step), (long long)step);
    char err[256];
    int rc = g_site.cfg.history_read((const char *)q.data, q.len, hist_row, h, err, sizeof err);
    buf_free(&q);
    return rc ? -1 : 0;
}

/* The chart's points over [now - window, now] from the history; NULL (and *n = 0) when it cannot be read. */
static chart_point_t *hist_chart_points(const site_chart_t *c, const char *server, double now, double window,
                                        size_t *n)
{
    int64_t step = (int64_t)ceil(window / HIST_BUCKETS);
    if (step < 1)
        step = 1;
    int64_t b0 = ((int64_t)now - (int64_t)window) / step;
    size_t nb = (size_t)(((int64_t)now / step) - b0 + 1);
    hist_series_t hs[4];
    int ns = 0;
    bool ok = true;
    for (int j = 0; j < 4 && c->cols[j] >= 0; j++, ns++) {
        hs[j] = (hist_series_t){.b0 = b0, .nb = nb, .max = mem_calloc(nb, sizeof(double)),
                                .avg = mem_calloc(nb, sizeof(double)), .last = mem_calloc(nb, sizeof(double)),
                                .have = mem_calloc(nb, sizeof(bool))};
        if (ok && hist_read(server, site_col_names[c->cols[j]], b0 * step, step, &hs[j]) != 0)
            ok = false;
    }
    chart_point_t *p = ok ? mem_alloc(nb * sizeof *p) : NULL;
    size_t k = 0;
    int64_t prev = -1;
    for (size_t b = 0; ok && b < nb; b++) {
        bool all = true;
        for (int j = 0; j < ns; j++)
            all = all && hs[j].have[b];
        if (!all)
            continue;
        double t = hs[0].last[b];
        if (c->kind == CHART_GAUGE) {
            p[k++] = (chart_point_t){(double)((b0 + (int64_t)b) * step) + step / 2.0, hs[0].avg[b]};
            continue;
        }
        if (prev >= 0) {
            double dt = t - hs[0].last[prev];
            if (c->kind == CHART_HIT_RATE) {
                double req = hs[0].max[b] - hs[0].max[prev], miss = hs[1].max[b] - hs[1].max[prev];
                p[k++] = (chart_point_t){t, req > 0 && miss >= 0 ? 1.0 - miss / req : 1.0};
            } else {
                double d = 0;
                for (int j = 0; j < ns; j++)
                    d += hs[j].max[b] - hs[j].max[prev];
                p[k++] = (chart_point_t){t, d > 0 && dt > 0 ? d / dt : 0};
            }
        }
        prev = (int64_t)b;
    }
    for (int j = 0; j < ns; j++) {
        mem_free(hs[j].max);
        mem_free(hs[j].avg);
        mem_free(hs[j].last);
        mem_free(hs[j].have);
    }
    *n = k;
    return p;
}

static name_list_t fleet_servers(void);
static void name_list_free(name_list_t *l);

/* server=all: the chart summed over the fleet ('local' and strata_monitor.servers), bucket by bucket (a
 * bucket's point is the sum of the servers' points in it; a server without one there adds nothing). */
static chart_point_t *hist_chart_sum(const site_chart_t *c, double now, double window, size_t *n)
{
    int64_t step = (int64_t)ceil(window / HIST_BUCKETS);
    if (step < 1)
        step = 1;
    int64_t b0 = ((int64_t)now - (int64_t)window) / step;
    size_t nb = (size_t)(((int64_t)now / step) - b0 + 1);
    double *sum = mem_calloc(nb, sizeof *sum), *at = mem_calloc(nb, sizeof *at);
    bool *have = mem_calloc(nb, sizeof *have);
    name_list_t l = fleet_servers();
    for (size_t i = 0; i < l.n; i++) {
        size_t np;
        chart_point_t *p = hist_chart_points(c, l.v[i], now, window, &np);
        for (size_t k = 0; p && k < np; k++) {
            int64_t b = (int64_t)floor(p[k].t / (double)step) - b0;
            if (b < 0 || (size_t)b >= nb)
                continue;
            sum[b] += p[k].v;
            at[b] = at[b] > p[k].t ? at[b] : p[k].t;
            have[b] = true;
        }
        mem_free(p);
    }
    name_list_free(&l);
    chart_point_t *out = mem_alloc(nb * sizeof *out);
    size_t k = 0;
    for (size_t b = 0; b < nb; b++)
        if (have[b])
            out[k++] = (chart_point_t){at[b], sum[b]};
    mem_free(sum);
    mem_free(at);
    mem_free(have);
    *n = k;
    return out;
}

static void site_chart_reply(const http_request_t *req, const site_chart_t *c, http_reply_t *rep)
{
    const char *w = http_request_arg(req, "window");
    const char *server = http_request_arg(req, "server");
    double window = w ? strtod(w, NULL) : 600;
    if (!(window >= 10))
        window = 600;
    if (window > HIST_MAX_WINDOW)
        window = HIST_MAX_WINDOW;
    size_t nrows = 0, np = 0;
    site_row_t *rows = NULL;
    chart_point_t *p = NULL;
    if (server && !strcmp(server, "all")) {
        p = hist_chart_sum(c, now_s(), window, &np);
    } else if (window > SITE_RING_ROWS * SITE_SAMPLE_SECONDS || (server && *server)) {
        p = hist_chart_points(c, server && *server ? server : HISTORY_LOCAL, now_s(), window, &np);
    } else {
        rows = site_ring_copy(&nrows);
        p = site_chart_points(c, rows, nrows, &np);
    }
    chart_svg(&rep->body, c->title, c->unit, p, np, now_s(), window);
    mem_free(p);
    mem_free(rows);
    rep->content_type = "image/svg+xml";
}

/* ---- JSON endpoints ---- */

static int put_status(void *arg, const status_def_t *def, const char *value, size_t len)
{
    buf_t *b = arg;
    (void)len;
    json_kv(b, b->data[b->len - 1] == '{', def->name, value);
    return 0;
}

static void api_status(server_t *srv, buf_t *b)
{
    buf_append_byte(b, '{');
    status_show(&srv->status, NULL, true, NULL, put_status, b);
    buf_append_byte(b, '}');
}

/* Whether a variable's value differs from its default, comparing numbers as numbers and ON/OFF as 1/0. */
static bool site_var_changed(const sysvar_def_t *def, const char *value)
{
    const char *dflt = def->dflt ? def->dflt : "";
    double a, b;
    if (metrics_parse_value(value, &a) && metrics_parse_value(dflt, &b))
        return a != b;
    return strcasecmp(value, dflt) != 0;
}

static int put_variable(void *arg, const sysvar_def_t *def, const char *value, size_t len)
{
    buf_t *b = arg;
    (void)len;
    if (def->target != def->id)
        return 0;
    if (b->data[b->len - 1] != '[')
        buf_append_byte(b, ',');
    buf_append_byte(b, '{');
    json_kv(b, true, "name", def->name);
    json_kv(b, false, "value", value);
    json_kv(b, false, "default", def->dflt ? def->dflt : "");
    buf_printf(b, ",\"changed\":%s,\"dynamic\":%s}", site_var_changed(def, value) ? "true" : "false",
               def->flags & SV_RO ? "false" : "true");
    return 0;
}

static void api_variables(server_t *srv, buf_t *b)
{
    buf_append_byte(b, '[');
    sysvar_show(&srv->vars, NULL, SYSVAR_GLOBAL, NULL, put_variable, b);
    buf_append_byte(b, ']');
}

static void api_processlist(server_t *srv, buf_t *b)
{
    uint64_t now = time_wall_us();
    buf_append_byte(b, '[');
    pthread_mutex_lock(&srv->sessions_lock);
    bool first = true;
    for (session_t *t = srv->sessions; t; t = t->next) {
        if (!first)
            buf_append_byte(b, ',');
        first = false;
        char host[300];
        if (t->port)
            snprintf(host, sizeof host, "%s:%u", t->host, t->port);
        else
            snprintf(host, sizeof host, "%s", t->host);
        bool busy = t->state == SESS_QUERY;
        const char *ps = atomic_load(&t->proc_state);
        buf_append_byte(b, '{');
        json_kn(b, true, "id", t->id);
        json_kv(b, false, "user", t->user);
        json_kv(b, false, "host", host);
        json_kv(b, false, "db", t->db ? t->db : "");
        json_kv(b, false, "command", busy ? "Query" : "Sleep");
        json_kn(b, false, "time",
                (double)((now - (t->state_since_us ? t->state_since_us : t->connect_us)) / 1000000));
        json_kv(b, false, "state", busy ? (ps ? ps : "starting") : "");
        pthread_mutex_lock(&t->info_lock);
        json_kv(b, false, "info", busy && t->info ? t->info : "");
        pthread_mutex_unlock(&t->info_lock);
        buf_append_byte(b, '}');
    }
    pthread_mutex_unlock(&srv->sessions_lock);
    buf_append_byte(b, ']');
}

/* Digest rows copied out of digest_scan (its callback may not take locks or allocate much). */
typedef struct site_digest {
    char schema[65], digest[33];
    char *text;
    uint64_t count, sum_ps, max_ps, p95_ps, p99_ps, rows_sent, rows_examined, errors, warnings, no_index;
} site_digest_t;

typedef struct site_digests {
    site_digest_t *v;
    size_t n, cap;
} site_digests_t;

static void copy_digest(void *arg, const digest_row_t *r)
{
    site_digests_t *d = arg;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->v = mem_realloc(d->v, d->cap * sizeof *d->v);
    }
    site_digest_t *x = &d->v[d->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->schema, sizeof x->schema, "%s", r->schema ? r->schema : "");
    snprintf(x->digest, sizeof x->digest, "%s", r->digest ? r->digest : "");
    x->text = mem_strdup(r->text ? r->text : "(statements not recorded: the digest table was full)");
    x->count = r->count, x->sum_ps = r->sum_ps, x->max_ps = r->max_ps, x->p95_ps = r->p95_ps, x->p99_ps = r->p99_ps;
    x->rows_sent = r->sums[DIGEST_SUM_ROWS_SENT];
    x->rows_examined = r->sums[DIGEST_SUM_ROWS_EXAMINED];
    x->errors = r->sums[DIGEST_SUM_ERRORS];
    x->warnings = r->sums[DIGEST_SUM_WARNINGS];
    x->no_index = r->sums[DIGEST_SUM_NO_INDEX_USED];
}

static int digest_by_time(const void *a, const void *b)
{
    const site_digest_t *x = a, *y = b;
    return x->sum_ps < y->sum_ps ? 1 : x->sum_ps > y->sum_ps ? -1 : 0;
}

static void api_digests(const http_request_t *req, buf_t *b)
{
    site_digests_t d = {0};
    digest_scan(copy_digest, &d);
    qsort(d.v, d.n, sizeof *d.v, digest_by_time);
    const char *l = http_request_arg(req, "limit");
    size_t limit = l ? (size_t)strtoul(l, NULL, 10) : 50;
    buf_append_byte(b, '[');
    for (size_t i = 0; i < d.n; i++) {
        site_digest_t *x = &d.v[i];
        if (i < limit) {
            buf_append_str(b, i ? ",{" : "{");
            json_kv(b, true, "schema", x->schema);
            json_kv(b, false, "digest", x->digest);
            json_kv(b, false, "text", x->text);
            json_kn(b, false, "count", (double)x->count);
            json_kn(b, false, "sum_ms", (double)x->sum_ps / 1e9);
            json_kn(b, false, "avg_ms", x->count ? (double)x->sum_ps / 1e9 / (double)x->count : 0);
            json_kn(b, false, "max_ms", (double)x->max_ps / 1e9);
            json_kn(b, false, "p95_ms", (double)x->p95_ps / 1e9);
            json_kn(b, false, "p99_ms", (double)x->p99_ps / 1e9);
            json_kn(b, false, "rows_sent", (double)x->rows_sent);
            json_kn(b, false, "rows_examined", (double)x->rows_examined);
            json_kn(b, false, "errors", (double)x->errors);
            json_kn(b, false, "warnings", (double)x->warnings);
            json_kn(b, false, "no_index_used", (double)x->no_index);
            buf_append_byte(b, '}');
        }
        mem_free(x->text);
    }
    buf_append_byte(b, ']');
    mem_free(d.v);
}

typedef struct hist_first {
    bool have;
    double ts, value;
} hist_first_t;

static void first_row(void *arg, int n, const char *const *cells)
{
    hist_first_t *f = arg;
    if (n >= 2 && cells[0] && cells[1] && !f->have) {
        f->ts = strtod(cells[0], NULL);
        f->value = strtod(cells[1], NULL);
        f->have = true;
    }
}

/* The oldest (or, newest, the latest) sample of one of server's series at or after since. */
static hist_first_t hist_sample(const char *server, const char *name, int64_t since, bool newest)
{
    hist_first_t f = {0};
    if (!g_site.cfg.history_read)
        return f;
    buf_t q;
    buf_init(&q);
    buf_append_str(&q, "SELECT ts, value FROM " HISTORY_SCHEMA ".status_history FORCE INDEX (series) WHERE server = ");
    sql_quote(&q, server);
    buf_append_str(&q, " AND name = ");
    sql_quote(&q, name);
    buf_printf(&q, " AND ts >= %lld ORDER BY ts%s LIMIT 1", (long long)since, newest ? " DESC" : "");
    char err[256];
    if (g_site.cfg.history_read((const char *)q.data, q.len, first_row, &f, err, sizeof err) != 0)
        f.have = false;
    buf_free(&q);
    return f;
}

static hist_first_t hist_first(const char *name, int64_t since, bool newest)
{
    return hist_sample(HISTORY_LOCAL, name, since, newest);
}

/* Days until a data file is full at the rate its used extents grew over the last day of history (the
 * file's free extents, plus its room to grow when it autoextends: to its maximum size, else the disk's free
 * bytes).  Negative when it did not grow or there is not an hour of history. */
static double file_days_to_full(const engine_file_info_t *f, double now, double disk_free, double *per_day)
{
    char nf[600], nt[600];
    snprintf(nf, sizeof nf, "Strata_datafile_free_extents:%s", f->file_name);
    snprintf(nt, sizeof nt, "Strata_datafile_total_extents:%s", f->file_name);
    hist_first_t then_free = hist_first(nf, (int64_t)now - 86400, false);
    *per_day = 0;
    if (!then_free.have || now - then_free.ts < 3600)
        return -1;
    hist_first_t then_total = hist_first(nt, (int64_t)then_free.ts, false);
    if (!then_total.have)
        return -1;
    double used_then = then_total.value - then_free.value;
    double used_now = (double)f->total_extents - (double)f->free_extents;
    double rate = (used_now - used_then) * (double)f->extent_size / (now - then_free.ts); /* bytes per second */
    *per_day = rate * 86400;
    if (!(rate > 0))
        return -1;
    double room = (double)f->free_extents * (double)f->extent_size;
    if (f->autoextend)
        room += f->maximum_size ? (f->maximum_size > f->size ? (double)(f->maximum_size - f->size) : 0) : disk_free;
    return room / rate / 86400;
}

static void api_tablespaces(engine_t *eng, buf_t *b)
{
    engine_file_info_t *f = NULL;
    size_t n = 0;
    buf_append_byte(b, '[');
    if (eng && engine_files(eng, &f, &n) == 0) {
        double now = now_s();
        hist_first_t disk = hist_first("Strata_disk_free_bytes", (int64_t)now - 3600, true);
        for (size_t i = 0; i < n; i++) {
            buf_append_str(b, i ? ",{" : "{");
            json_kv(b, true, "file_type", f[i].file_type);
            json_kv(b, false, "tablespace", f[i].tablespace_name);
            json_kv(b, false, "logfile_group", f[i].logfile_group_name);
            json_kv(b, false, "file", f[i].file_name);
            json_kn(b, false, "extent_size", (double)f[i].extent_size);
            json_kn(b, false, "total_extents", (double)f[i].total_extents);
            json_kn(b, false, "free_extents", (double)f[i].free_extents);
            json_kn(b, false, "size", (double)f[i].size);
            json_kn(b, false, "maximum_size", (double)f[i].maximum_size);
            buf_printf(b, ",\"autoextend\":%s", f[i].autoextend ? "true" : "false");
            double per_day, days = file_days_to_full(&f[i], now, disk.have ? disk.value : 0, &per_day);
            json_kn(b, false, "growth_bytes_per_day", per_day);
            if (days >= 0)
                json_kn(b, false, "days_to_full", days);
            else
                buf_append_str(b, ",\"days_to_full\":null");
            buf_append_byte(b, '}');
        }
        engine_files_free(f);
    }
    buf_append_byte(b, ']');
}

static int put_binlog(void *arg, const binlog_file_info_t *f)
{
    buf_t *b = arg;
    buf_append_str(b, b->data[b->len - 1] == '[' ? "{" : ",{");
    json_kv(b, true, "name", f->name);
    json_kn(b, false, "size", (double)f->size);
    json_kn(b, false, "disk_size", (double)f->disk_size);
    buf_printf(b, ",\"compressed\":%s,\"active\":%s", f->compressed ? "true" : "false", f->active ? "true" : "false");
    json_kn(b, false, "first_time", (double)f->first_time);
    json_kn(b, false, "last_time", (double)f->last_time);
    buf_append_byte(b, '}');
    return 0;
}

static void api_binlogs(server_t *srv, buf_t *b)
{
    buf_append_byte(b, '[');
    if (srv->binlog)
        binlog_list_files(srv->binlog, put_binlog, b);
    buf_append_byte(b, ']');
}

static void api_charts(buf_t *b)
{
    buf_append_byte(b, '[');
    for (size_t i = 0; i < ARRAY_LEN(site_charts); i++) {
        buf_append_str(b, i ? ",{" : "{");
        json_kv(b, true, "name", site_charts[i].name);
        json_kv(b, false, "title", site_charts[i].title);
        json_kv(b, false, "unit", site_charts[i].unit);
        buf_append_byte(b, '}');
    }
    buf_printf(b, "]");
}

static void api_overview(server_t *srv, buf_t *b)
{
    buf_t tmp;
    buf_init(&tmp);
    buf_append_byte(b, '{');
    json_kv(b, true, "version", srv->version);
    static const char *const names[] = {"Uptime", "Threads_connected", "Threads_running", "Questions",
                                        "Slow_queries", "Max_used_connections", "Innodb_buffer_pool_pages_dirty",
                                        "Innodb_buffer_pool_pages_total"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        json_kn(b, false, names[i], site_status_value(srv, names[i], &tmp));
    buf_free(&tmp);
    json_kn(b, false, "sample_seconds", SITE_SAMPLE_SECONDS);
    json_kn(b, false, "ring_seconds", SITE_RING_ROWS * SITE_SAMPLE_SECONDS);
    buf_append_byte(b, '}');
}

/* ---- the fleet and the replicas ---- */

static void server_row(void *arg, int n, const char *const *cells)
{
    name_list_t *l = arg;
    if (n < 2 || !cells[0] || !cells[1])
        return;
    char s[300];
    snprintf(s, sizeof s, "%s:%s", cells[0], cells[1]);
    l->v = mem_realloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n++] = mem_strdup(s);
}

/* 'local' and every server of strata_monitor.servers, as status_history names them ('host:port'). */
static name_list_t fleet_servers(void)
{
    name_list_t l = {0};
    l.v = mem_alloc(sizeof *l.v);
    l.v[l.n++] = mem_strdup(HISTORY_LOCAL);
    static const char q[] = "SELECT host, port FROM " HISTORY_SCHEMA ".servers ORDER BY host, port";
    char err[256];
    if (g_site.cfg.history_read)
        g_site.cfg.history_read(q, sizeof q - 1, server_row, &l, err, sizeof err);
    return l;
}

static void name_list_free(name_list_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        mem_free(l->v[i]);
    mem_free(l->v);
}

/* Each server's latest sample (within the last hour) of a few series, its query rate over its last two
 * samples, and the sums over the servers that answered: [{server, ts, up, uptime, threads_connected,
 * threads_running, questions_per_second, replica_lag_seconds}], the sum last with server "all". */
static void api_fleet(buf_t *b)
{
    static const char *const gauges[] = {"Strata_up", "Uptime", "Threads_connected", "Threads_running"};
    static const char *const keys[] = {"up", "uptime", "threads_connected", "threads_running"};
    name_list_t l = fleet_servers();
    int64_t since = (int64_t)now_s() - 3600;
    double sum[4] = {0}, sum_qps = 0;
    buf_append_byte(b, '[');
    for (size_t i = 0; i < l.n; i++) {
        buf_append_str(b, i ? ",{" : "{");
        json_kv(b, true, "server", l.v[i]);
        hist_first_t up = hist_sample(l.v[i], "Strata_up", since, true);
        json_kn(b, false, "ts", up.have ? up.ts : 0);
        for (size_t g = 0; g < ARRAY_LEN(gauges); g++) {
            hist_first_t v = hist_sample(l.v[i], gauges[g], up.have ? (int64_t)up.ts : since, true);
            if (v.have) {
                json_kn(b, false, keys[g], v.value);
                sum[g] += v.value;
            } else {
                buf_printf(b, ",\"%s\":null", keys[g]);
            }
        }
        /* the rate over the last two samples of Questions */
        hist_first_t q1 = hist_sample(l.v[i], "Questions", since, true);
        hist_first_t q0 = q1.have ? hist_sample(l.v[i], "Questions", (int64_t)q1.ts - 3600, false) : q1;
        if (q1.have && q0.have && q1.ts > q0.ts) {
            double qps = q1.value >= q0.value ? (q1.value - q0.value) / (q1.ts - q0.ts) : 0;
            json_kn(b, false, "questions_per_second", qps);
            sum_qps += qps;
        } else {
            buf_append_str(b, ",\"questions_per_second\":null");
        }
        hist_first_t lag = hist_sample(l.v[i], "Strata_replica_lag_seconds", up.have ? (int64_t)up.ts : since, true);
        if (lag.have)
            json_kn(b, false, "replica_lag_seconds", lag.value);
        else
            buf_append_str(b, ",\"replica_lag_seconds\":null");
        buf_append_byte(b, '}');
    }
    buf_append_str(b, l.n ? ",{" : "{");
    json_kv(b, true, "server", "all");
    json_kn(b, false, "ts", now_s());
    for (size_t g = 0; g < ARRAY_LEN(gauges); g++)
        json_kn(b, false, keys[g], sum[g]);
    json_kn(b, false, "questions_per_second", sum_qps);
    buf_append_str(b, ",\"replica_lag_seconds\":null}]");
    name_list_free(&l);
}

/* The replicas reading this server's binary log (its binlog dump connections) and, when this server itself
 * replicates, its own link: {"replicas": [{id, server_id, user, host, time}], "source": null | {host, port,
 * io_running, sql_running, seconds_behind_master, lag_ms, gtid_io_pos, last_io_error, last_sql_error}}. */
static void api_replicas(server_t *srv, buf_t *b)
{
    uint64_t now = time_wall_us();
    buf_append_str(b, "{\"replicas\":[");
    pthread_mutex_lock(&srv->sessions_lock);
    bool first = true;
    for (session_t *t = srv->sessions; t; t = t->next) {
        if (!t->replica_server_id)
            continue;
        buf_append_str(b, first ? "{" : ",{");
        first = false;
        json_kn(b, true, "id", t->id);
        json_kn(b, false, "server_id", t->replica_server_id);
        json_kv(b, false, "user", t->user);
        json_kv(b, false, "host", t->host);
        json_kn(b, false, "time", (double)((now - t->connect_us) / 1000000));
        buf_append_byte(b, '}');
    }
    pthread_mutex_unlock(&srv->sessions_lock);
    buf_append_str(b, "],\"source\":");
    replica_t *r = session_replica();
    replica_status_t st;
    if (r)
        replica_status(r, &st);
    if (!r || !st.configured) {
        buf_append_str(b, "null}");
        return;
    }
    buf_append_byte(b, '{');
    json_kv(b, true, "host", st.cfg.host);
    json_kn(b, false, "port", st.cfg.port);
    json_kv(b, false, "io_running", st.io_running);
    json_kv(b, false, "sql_running", st.sql_running ? "Yes" : "No");
    if (st.seconds_behind >= 0)
        json_kn(b, false, "seconds_behind_master", (double)st.seconds_behind);
    else
        buf_append_str(b, ",\"seconds_behind_master\":null");
    json_kn(b, false, "lag_ms", (double)st.lag_ms);
    json_kv(b, false, "gtid_io_pos", st.gtid_io_pos);
    json_kv(b, false, "last_io_error", st.last_io_error);
    json_kv(b, false, "last_sql_error", st.last_sql_error);
    buf_append_str(b, "}}");
}

/* ---- routing ---- */

static void site_handle(void *arg, const http_request_t *req, http_reply_t *rep)
{
    server_t *srv = arg;
    const char *p = req->path;
    static const char *const pages[] = {"/",           "/variables", "/processlist", "/digests",
                                        "/tablespaces", "/binlogs",   "/replicas",    "/fleet"};
    for (size_t i = 0; i < ARRAY_LEN(pages); i++)
        if (!strcmp(p, pages[i])) {
            rep->content_type = "text/html; charset=utf-8";
            buf_append(&rep->body, site_index_html, site_index_html_len);
            return;
        }
    if (!strcmp(p, "/metrics")) {
        rep->content_type = "text/plain; version=0.0.4; charset=utf-8";
        metrics_render(srv, g_site.cfg.engine, &rep->body);
        return;
    }
    if (!strcmp(p, "/static/app.js")) {
        rep->content_type = "text/javascript; charset=utf-8";
        buf_append(&rep->body, site_app_js, site_app_js_len);
        return;
    }
    if (!strcmp(p, "/static/style.css")) {
        rep->content_type = "text/css; charset=utf-8";
        buf_append(&rep->body, site_style_css, site_style_css_len);
        return;
    }
    if (!strncmp(p, "/chart/", 7)) {
        const char *name = p + 7;
        size_t n = strlen(name);
        const site_chart_t *c = n > 4 && !strcmp(name + n - 4, ".svg") ? site_chart_find(name, n - 4) : NULL;
        if (c) {
            site_chart_reply(req, c, rep);
            return;
        }
    }
    rep->content_type = "application/json";
    buf_t *b = &rep->body;
    if (!strcmp(p, "/api/overview"))
        api_overview(srv, b);
    else if (!strcmp(p, "/api/status"))
        api_status(srv, b);
    else if (!strcmp(p, "/api/variables"))
        api_variables(srv, b);
    else if (!strcmp(p, "/api/processlist"))
        api_processlist(srv, b);
    else if (!strcmp(p, "/api/digests"))
        api_digests(req, b);
    else if (!strcmp(p, "/api/tablespaces"))
        api_tablespaces(g_site.cfg.engine, b);
    else if (!strcmp(p, "/api/binlogs"))
        api_binlogs(srv, b);
    else if (!strcmp(p, "/api/charts"))
        api_charts(b);
    else if (!strcmp(p, "/api/fleet"))
        api_fleet(b);
    else if (!strcmp(p, "/api/replicas"))
        api_replicas(srv, b);
    else {
        rep->status = 404;
        rep->content_type = "text/plain; charset=utf-8";
        buf_append_str(b, "not found\n");
    }
}

/* ---- start and stop ---- */

static void site_free(void)
{
    if (g_site.key_pem) /* the private key does not linger in freed memory */
        memset(g_site.key_pem, 0, strlen(g_site.key_pem));
    mem_free(g_site.key_pem);
    mem_free(g_site.cert_pem);
    mem_free(g_site.ring);
    g_site.key_pem = g_site.cert_pem = NULL;
    g_site.ring = NULL;
}

int monitor_http_start(const monitor_http_cfg_t *cfg)
{
    server_t *srv = cfg->srv;
    uint16_t port = (uint16_t)sysvar_global_int(&srv->vars, SYSVAR_MONITOR_HTTP_PORT);
    if (!port)
        return 0;
    g_site.cfg = *cfg;
    char addr[256];
    if (sysvar_global_str(&srv->vars, SYSVAR_MONITOR_HTTP_ADDRESS, addr, sizeof addr) < 0 || !addr[0])
        snprintf(addr, sizeof addr, "127.0.0.1");
    bool tls = sysvar_global_int(&srv->vars, SYSVAR_MONITOR_HTTP_TLS) != 0;
    if (tls) {
        size_t n;
        if (!cfg->cert_path || !cfg->key_path || fio_read_file(FIO_TLS, cfg->cert_path, &g_site.cert_pem, &n) != 0 ||
            fio_read_file(FIO_TLS, cfg->key_path, &g_site.key_pem, &n) != 0) {
            log_error("monitor_http_tls=ON, but the server's certificate and key (ssl_cert, ssl_key) can't be read");
            site_free();
            return STRATA_EIO;
        }
    }
    http_options_t o = {.address = addr, .port = port, .cert_pem = g_site.cert_pem, .key_pem = g_site.key_pem,
                        .threads = 2, .realm = "strata monitor"};
    http_ops_t ops = {.auth = site_auth, .handle = site_handle, .arg = srv};
    g_site.ring = mem_calloc(SITE_RING_ROWS, sizeof *g_site.ring);
    g_site.head = g_site.count = 0;
    g_site.stop = false;
    if (pthread_create(&g_site.sampler, NULL, site_sampler, NULL) != 0) {
        log_error("monitor http: cannot start the sampler thread");
        site_free();
        return STRATA_EIO;
    }
    g_site.sampler_running = true;
    int rc = http_start(&o, &ops, &g_site.http);
    if (rc != 0) {
        monitor_http_stop();
        return rc;
    }
    log_note("monitor: dashboard and /metrics on %s://%s:%u/", tls ? "https" : "http", addr, (unsigned)port);
    return 0;
}

void monitor_http_stop(void)
{
    http_stop(g_site.http);
    g_site.http = NULL;
    if (g_site.sampler_running) {
        pthread_mutex_lock(&g_site.mu);
        g_site.stop = true;
        pthread_cond_signal(&g_site.cv);
        pthread_mutex_unlock(&g_site.mu);
        pthread_join(g_site.sampler, NULL);
        g_site.sampler_running = false;
    }
    site_free();
}
