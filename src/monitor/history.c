/*
 * The history sampler (history.h): one thread, one pass every monitor_interval seconds.
 *
 * A pass, for this server and for every server of strata_monitor.servers:
 *   1. read every numeric status variable and gauge into a sample sorted by name, add the per-interval
 *      gauges (buffer pool hit rate, fsyncs per commit) from the previous sample, and INSERT it into
 *      status_history, a few hundred rows per statement;
 *   2. INSERT into variables_history the variables whose value differs from the last one recorded (all of
 *      them the first time a server is seen);
 *   3. evaluate the advice rules over the history (advice.h), replace the server's rows of strata_monitor.advice,
 *      and notify (error log, webhook) the rules that started or stopped firing.
 * This server only, once a minute: a digest snapshot (the digests whose COUNT_STAR moved since the last one);
 * and every sixth pass (once a minute at the default interval) the maintenance: rows older than 7 days become 5-minute averages in status_history_5min, digest
 * snapshots older than 24 h go, and while the schema is over monitor_history_max_size the oldest rows go
 * (5-minute rows first, a day at a time; then full-resolution rows, an hour at a time).
 *
 * Every statement runs through ops->exec in the sampler's own session, one autocommit statement at a time:
 * the row locks it takes are on strata_monitor's rows only, held for one INSERT or DELETE, so no user
 * statement waits on the sampler unless it writes those very rows.  The state below is the thread's own;
 * only the advice shown by SHOW STRATA ADVICE is shared, under advice_lock (a leaf: nothing is called under it
 * but copying).
 */
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "monitor/advice.h"
#include "monitor/digest.h"
#include "monitor/fleet.h"
#include "monitor/history.h"
#include "util/util.h"

#define KEEP_FULL_SECONDS (7 * 86400)
#define KEEP_DIGEST_SECONDS 86400
#define DIGEST_EVERY 60
#define MAINT_EVERY 6 /* passes: once a minute at the default interval */
#define INSERT_BATCH 32768 /* bytes of VALUES per INSERT */

/* ---------------------------------------------------------------- samples and per-server state */

typedef struct point {
    char *name;
    double v;
} point_t;

typedef struct sample {
    point_t *p;
    size_t n, cap;
    int64_t ts;
} sample_t;

typedef struct var_state {
    char *name, *value;
    int64_t changed; /* ts of the sample that recorded this value */
} var_state_t;

typedef struct firing {
    char rule[64];
    bool on;
} firing_t;

typedef struct server_state {
    char key[300];          /* "local" or "host:port" */
    fleet_server_t addr;    /* fleet servers */
    sample_t cur, prev;
    var_state_t *vars;
    size_t nvars, capvars;
    bool loaded;            /* variables_history read back */
    bool in_list;           /* still in strata_monitor.servers at the last read */
    firing_t fire[64];      /* the rules firing at the last evaluation */
    unsigned nfire;
    char last_error[256];
} server_state_t;

/* A digest's count as of a snapshot. */
typedef struct digest_count {
    char *key;              /* schema '\1' digest */
    char *text;
    uint64_t count;
    uint64_t sum_ps, rows_examined, rows_sent, errors, no_index_used;
} digest_count_t;

typedef struct digest_set {
    digest_count_t *d;
    size_t n, cap;
} digest_set_t;

typedef struct advice_copy {
    char *rule, *severity, *window, *evidence, *current, *suggested;
} advice_copy_t;

static struct {
    history_ops_t ops;
    pthread_t thread;
    bool running;
    pthread_mutex_t lock; /* stop, kick */
    pthread_cond_t cond;
    bool stop, kick;
    server_state_t local;
    server_state_t **fleet;
    size_t nfleet;
    bool schema_ready;
    int64_t last_digest;
    uint64_t maint_due; /* passes until the next maintenance */
    digest_set_t snap;        /* counts at the last digest snapshot */
    digest_set_t cur_digests; /* counts now */
    digest_set_t win_digests; /* counts at the snapshot a dominating-statement window starts from */
    int64_t win_digests_ts;
    unsigned errors_logged;
    pthread_mutex_t advice_lock;
    advice_copy_t *advice;
    size_t nadvice;
    _Atomic uint64_t passes;
    double last_pass_ms; /* the previous pass's duration, sampled as Strata_monitor_pass_ms */
    char **alerts;       /* JSON bodies waiting for the pass's commit */
    size_t nalerts;
} H = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
       .advice_lock = PTHREAD_MUTEX_INITIALIZER};

static int point_cmp(const void *a, const void *b)
{
    return strcmp(((const point_t *)a)->name, ((const point_t *)b)->name);
}

static void sample_clear(sample_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        mem_free(s->p[i].name);
    s->n = 0;
}

static void sample_free(sample_t *s)
{
    sample_clear(s);
    mem_free(s->p);
    memset(s, 0, sizeof *s);
}

static void sample_add(void *arg, const char *name, double v)
{
    sample_t *s = arg;
    if (!isfinite(v))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 512;
        s->p = mem_realloc(s->p, s->cap * sizeof *s->p);
    }
    s->p[s->n++] = (point_t){mem_strdup(name), v};
}

static void sample_sort(sample_t *s)
{
    if (s->n > 1) /* qsort must not see a NULL base (UBSan) */
        qsort(s->p, s->n, sizeof *s->p, point_cmp);
    /* a name twice (a fleet server's status listed twice): keep the first */
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (w && !strcmp(s->p[w - 1].name, s->p[i].name)) {
            mem_free(s->p[i].name);
            continue;
        }
        s->p[w++] = s->p[i];
    }
    s->n = w;
}

static const point_t *sample_find(const sample_t *s, const char *name)
{
    point_t key = {.name = (char *)name};
    return s->n ? bsearch(&key, s->p, s->n, sizeof *s->p, point_cmp) : NULL;
}

static bool sample_get(const sample_t *s, const char *name, double *v)
{
    const point_t *p = sample_find(s, name);
    if (p)
        *v = p->v;
    return p != NULL;
}

static var_state_t *var_find(server_state_t *st, const char *name)
{
    for (size_t i = 0; i < st->nvars; i++)
        if (!strcasecmp(st->vars[i].name, name))
            return &st->vars[i];
    return NULL;
}

/* Records name=value; true if it is new or differs from the value held. */
static bool var_set(server_state_t *st, const char *name, const char *value, int64_t ts)
{
    var_state_t *v = var_find(st, name);
    if (v && !strcmp(v->value, value))
        return false;
    if (!v) {
        if (st->nvars == st->capvars) {
            st->capvars = st->capvars ? st->capvars * 2 : 512;
            st->vars = mem_realloc(st->vars, st->capvars * sizeof *st->vars);
        }
        v = &st->vars[st->nvars++];
        v->name = mem_strdup(name);
        v->value = NULL;
    }
    mem_free(v->value);
    v->value = mem_strdup(value);
    v->changed = ts;
    return true;
}

static void server_free(server_state_t *st)
{
    sample_free(&st->cur);
    sample_free(&st->prev);
    for (size_t i = 0; i < st->nvars; i++) {
        mem_free(st->vars[i].name);
        mem_free(st->vars[i].value);
    }
    mem_free(st->vars);
    memset(st, 0, sizeof *st);
}

static void digest_set_clear(digest_set_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        mem_free(s->d[i].key);
        mem_free(s->d[i].text);
    }
    s->n = 0;
}

static void digest_set_free(digest_set_t *s)
{
    digest_set_clear(s);
    mem_free(s->d);
    memset(s, 0, sizeof *s);
}

/* Appends a copy of d under the key schema '\1' digest (d->key is ignored when schema is given). */
static digest_count_t *digest_set_add(digest_set_t *s, const char *schema, const char *digest, const char *text,
                                      uint64_t count)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->d = mem_realloc(s->d, s->cap * sizeof *s->d);
    }
    size_t kl = strlen(schema) + strlen(digest) + 2;
    char *key = mem_alloc(kl);
    snprintf(key, kl, "%s\1%s", schema, digest);
    digest_count_t *d = &s->d[s->n++];
    *d = (digest_count_t){.key = key, .text = text ? mem_strdup(text) : NULL, .count = count};
    return d;
}

static int digest_cmp(const void *a, const void *b)
{
    return strcmp(((const digest_count_t *)a)->key, ((const digest_count_t *)b)->key);
}

static void digest_set_sort(digest_set_t *s)
{
    if (s->n > 1) /* qsort must not see a NULL base (UBSan) */
        qsort(s->d, s->n, sizeof *s->d, digest_cmp);
}

static const digest_count_t *digest_set_find(const digest_set_t *s, const char *key)
{
    digest_count_t k = {.key = (char *)key};
    return s->n ? bsearch(&k, s->d, s->n, sizeof *s->d, digest_cmp) : NULL;
}

/* ---------------------------------------------------------------- SQL through the sampler's session */

static int sql_exec(const char *sql, size_t len, history_row_fn fn, void *arg)
{
    char err[512] = "";
    int rc = H.ops.exec(H.ops.arg, sql, len, fn, arg, err, sizeof err);
    if (rc && H.errors_logged < 50) { /* bounded: a broken table must not fill the error log */
        H.errors_logged++;
        /* sql is a buffer of len bytes, not a C string: "%.200s" would read past its end */
        log_warn("monitor: history statement failed (%d: %s): %.*s", rc, err, (int)(len < 200 ? len : 200), sql);
    }
    return rc;
}

static int sql_run(buf_t *b) { return sql_exec((const char *)b->data, b->len, NULL, NULL); }

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

static void sql_number(buf_t *b, double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        buf_printf(b, "%.0f", v);
    else
        buf_printf(b, "%.17g", v);
}

/* Collects the first column of the first row as a number. */
static void row_number(void *arg, int n, const char *const *cells)
{
    double *out = arg;
    if (n > 0 && cells[0] && isnan(*out))
        *out = strtod(cells[0], NULL);
}

static double sql_scalar(buf_t *b)
{
    double v = NAN;
    sql_exec((const char *)b->data, b->len, row_number, &v);
    return v;
}

static const char *const schema_ddl[] = {
    "CREATE DATABASE IF NOT EXISTS " HISTORY_SCHEMA,
    "CREATE TABLE IF NOT EXISTS " HISTORY_SCHEMA ".status_history (server VARCHAR(255) NOT NULL, ts BIGINT NOT "
    "NULL, name VARCHAR(255) NOT NULL, value DOUBLE, PRIMARY KEY (server, ts, name), KEY series (server, name, ts))",
    "CREATE TABLE IF NOT EXISTS " HISTORY_SCHEMA ".status_history_5min (server VARCHAR(255) NOT NULL, ts BIGINT "
    "NOT NULL, name VARCHAR(255) NOT NULL, value DOUBLE, PRIMARY KEY (server, ts, name), KEY series (server, name, "
    "ts))",
    "CREATE TABLE IF NOT EXISTS " HISTORY_SCHEMA ".variables_history (server VARCHAR(255) NOT NULL, ts BIGINT NOT "
    "NULL, name VARCHAR(255) NOT NULL, value TEXT, PRIMARY KEY (server, ts, name))",
    "CREATE TABLE IF NOT EXISTS " HISTORY_SCHEMA ".digest_history (server VARCHAR(255) NOT NULL, ts BIGINT NOT "
    "NULL, schema_name VARCHAR(64) NOT NULL, digest VARCHAR(32) NOT NULL, digest_text TEXT, count_star BIGINT "
    "UNSIGNED NOT NULL, sum_timer_wait BIGINT UNSIGNED NOT NULL, sum_rows_examined BIGINT UNSIGNED NOT NULL, "
    "sum_rows_sent BIGINT UNSIGNED NOT NULL, sum_errors BIGINT UNSIGNED NOT NULL, sum_no_index_used BIGINT "
    "UNSIGNED NOT NULL, PRIMARY KEY (server, ts, schema_name, digest))",
    "CREATE TABLE IF NOT EXISTS " HISTORY_SCHEMA ".advice (server VARCHAR(255) NOT NULL, ts BIGINT NOT NULL, rule "
    "VARCHAR(64) NOT NULL, severity VARCHAR(16) NOT NULL, period VARCHAR(64) NOT NULL, evidence TEXT, "
    "current_value VARCHAR(255), suggested_value VARCHAR(255), PRIMARY KEY (server, rule))",
    "CREATE TABLE IF NOT EXISTS " HISTORY_SCHEMA ".servers (host VARCHAR(255) NOT NULL, port INT UNSIGNED NOT NULL "
    "DEFAULT 3306, user VARCHAR(128) NOT NULL DEFAULT 'root', password VARCHAR(128) NOT NULL DEFAULT '', PRIMARY "
    "KEY (host, port))",
};

static bool schema_create(void)
{
    for (size_t i = 0; i < sizeof schema_ddl / sizeof schema_ddl[0]; i++)
        if (sql_exec(schema_ddl[i], strlen(schema_ddl[i]), NULL, NULL) != 0)
            return false;
    return true;
}

/* A server's writes of one pass are one transaction: one commit (one redo sync) per pass rather than one per
 * statement, and its row locks, on strata_monitor rows only, last the few milliseconds of the pass.  Nothing
 * waits on the network inside it. */
static void trx_begin(void) { sql_exec("BEGIN", 5, NULL, NULL); }
static void trx_commit(void) { sql_exec("COMMIT", 6, NULL, NULL); }

/* ---------------------------------------------------------------- writing a sample */

/* Multi-row INSERTs of (server, ts, name, value), flushed every INSERT_BATCH bytes. */
typedef struct inserter {
    buf_t b;
    const char *head;
    size_t rows;
} inserter_t;

static void ins_begin(inserter_t *in, const char *head)
{
    buf_init(&in->b);
    in->head = head;
    in->rows = 0;
}

static void ins_flush(inserter_t *in)
{
    if (in->rows)
        sql_run(&in->b);
    buf_reset(&in->b);
    in->rows = 0;
}

/* Starts a row: "(" after the statement head or a comma; the caller appends the values and ")". */
static buf_t *ins_row(inserter_t *in)
{
    if (in->b.len > INSERT_BATCH)
        ins_flush(in);
    if (in->rows++ == 0)
        buf_append_str(&in->b, in->head);
    else
        buf_append_byte(&in->b, ',');
    buf_append_byte(&in->b, '(');
    return &in->b;
}

static void ins_end(inserter_t *in)
{
    ins_flush(in);
    buf_free(&in->b);
}

static void ins_point(inserter_t *in, const char *server, int64_t ts, const char *name, double v)
{
    buf_t *b = ins_row(in);
    sql_quote(b, server);
    buf_printf(b, ",%lld,", (long long)ts);
    sql_quote(b, name);
    buf_append_byte(b, ',');
    sql_number(b, v);
    buf_append_byte(b, ')');
}

/* Gauges over the last interval, from two consecutive samples. */
static void add_interval_gauges(server_state_t *st)
{
    const sample_t *a = &st->prev, *b = &st->cur;
    double r0, r1, m0, m1;
    if (!a->n)
        return;
    if (sample_get(a, "Innodb_buffer_pool_read_requests", &r0) && sample_get(b, "Innodb_buffer_pool_read_requests", &r1) &&
        sample_get(a, "Innodb_buffer_pool_reads", &m0) && sample_get(b, "Innodb_buffer_pool_reads", &m1) && r1 > r0)
        sample_add(&st->cur, "Strata_buffer_pool_hit_rate", 1.0 - (m1 - m0) / (r1 - r0));
    double c0, c1;
    const char *commits = sample_find(b, "Strata_transactions_committed") ? "Strata_transactions_committed"
                                                                          : "Handler_commit";
    if (sample_get(a, commits, &c0) && sample_get(b, commits, &c1) && c1 > c0) {
        double f0, f1;
        if (sample_get(a, "Innodb_data_fsyncs", &f0) && sample_get(b, "Innodb_data_fsyncs", &f1))
            sample_add(&st->cur, "Strata_redo_fsyncs_per_commit", (f1 - f0) / (c1 - c0));
        if (sample_get(a, "Binlog_fsyncs", &f0) && sample_get(b, "Binlog_fsyncs", &f1))
            sample_add(&st->cur, "Strata_binlog_fsyncs_per_commit", (f1 - f0) / (c1 - c0));
    }
}

static void write_sample(server_state_t *st)
{
    inserter_t in;
    ins_begin(&in, "INSERT IGNORE INTO " HISTORY_SCHEMA ".status_history (server, ts, name, value) VALUES ");
    for (size_t i = 0; i < st->cur.n; i++)
        ins_point(&in, st->key, st->cur.ts, st->cur.p[i].name, st->cur.p[i].v);
    ins_end(&in);
}

/* ---------------------------------------------------------------- variables */

static void load_var_row(void *arg, int n, const char *const *cells)
{
    server_state_t *st = arg;
    if (n >= 3 && cells[0] && cells[2])
        var_set(st, cells[0], cells[1] ? cells[1] : "", strtoll(cells[2], NULL, 10));
}

static void vars_load(server_state_t *st)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "SELECT name, value, ts FROM " HISTORY_SCHEMA ".variables_history WHERE server = ");
    sql_quote(&b, st->key);
    buf_append_str(&b, " ORDER BY ts");
    if (sql_exec((const char *)b.data, b.len, load_var_row, st) == 0)
        st->loaded = true;
    buf_free(&b);
}

typedef struct var_pass {
    server_state_t *st;
    inserter_t in;
} var_pass_t;

static void var_seen(void *arg, const char *name, const char *value)
{
    var_pass_t *vp = arg;
    if (!var_set(vp->st, name, value, vp->st->cur.ts))
        return;
    buf_t *b = ins_row(&vp->in);
    sql_quote(b, vp->st->key);
    buf_printf(b, ",%lld,", (long long)vp->st->cur.ts);
    sql_quote(b, name);
    buf_append_byte(b, ',');
    sql_quote(b, value);
    buf_append_byte(b, ')');
}

static void vars_begin(var_pass_t *vp, server_state_t *st)
{
    vp->st = st;
    ins_begin(&vp->in, "INSERT IGNORE INTO " HISTORY_SCHEMA ".variables_history (server, ts, name, value) VALUES ");
}

/* ---------------------------------------------------------------- digests */

/* digest_scan's callback: runs under a shard's lock, so it only copies. */
static void digest_collect(void *arg, const digest_row_t *r)
{
    if (!r->digest) /* the lost row: counted by Performance_schema_digest_lost */
        return;
    digest_count_t *d = digest_set_add(arg, r->schema ? r->schema : "", r->digest, r->text, r->count);
    d->sum_ps = r->sum_ps;
    d->rows_examined = r->sums[DIGEST_SUM_ROWS_EXAMINED];
    d->rows_sent = r->sums[DIGEST_SUM_ROWS_SENT];
    d->errors = r->sums[DIGEST_SUM_ERRORS];
    d->no_index_used = r->sums[DIGEST_SUM_NO_INDEX_USED];
}

/* Writes the digests whose count moved since the last snapshot (H.cur_digests, collected this pass). */
static void digest_snapshot(int64_t now)
{
    inserter_t in;
    ins_begin(&in, "INSERT IGNORE INTO " HISTORY_SCHEMA ".digest_history (server, ts, schema_name, digest, "
                   "digest_text, count_star, sum_timer_wait, sum_rows_examined, sum_rows_sent, sum_errors, "
                   "sum_no_index_used) VALUES ");
    for (size_t i = 0; i < H.cur_digests.n; i++) {
        const digest_count_t *d = &H.cur_digests.d[i];
        const digest_count_t *old = digest_set_find(&H.snap, d->key);
        if (old && old->count == d->count)
            continue;
        const char *sep = strchr(d->key, '\1');
        buf_t *b = ins_row(&in);
        sql_quote(b, HISTORY_LOCAL);
        char schema[256];
        snprintf(schema, sizeof schema, "%.*s", (int)(sep - d->key), d->key);
        buf_printf(b, ",%lld,", (long long)now);
        sql_quote(b, schema);
        buf_append_byte(b, ',');
        sql_quote(b, sep + 1);
        buf_append_byte(b, ',');
        sql_quote(b, d->text ? d->text : "");
        buf_printf(b, ",%llu,%llu,%llu,%llu,%llu,%llu)", (unsigned long long)d->count, (unsigned long long)d->sum_ps,
                   (unsigned long long)d->rows_examined, (unsigned long long)d->rows_sent,
                   (unsigned long long)d->errors, (unsigned long long)d->no_index_used);
    }
    /* the row of all statements (schema and digest ''): written at every snapshot, so a window always finds the
     * snapshot it starts from, even one taken before any statement ran */
    uint64_t all = 0;
    for (size_t i = 0; i < H.cur_digests.n; i++)
        all += H.cur_digests.d[i].count;
    buf_t *b = ins_row(&in);
    sql_quote(b, HISTORY_LOCAL);
    buf_printf(b, ",%lld,'','','(all statements)',%llu,0,0,0,0,0)", (long long)now, (unsigned long long)all);
    ins_end(&in);
    /* what was written is now the reference */
    digest_set_clear(&H.snap);
    for (size_t i = 0; i < H.cur_digests.n; i++) {
        digest_count_t *d = digest_set_add(&H.snap, "", "", NULL, H.cur_digests.d[i].count);
        mem_free(d->key);
        d->key = mem_strdup(H.cur_digests.d[i].key);
    }
    H.last_digest = now;
}

static void load_digest_row(void *arg, int n, const char *const *cells)
{
    if (n >= 4 && cells[0] && cells[1] && cells[3])
        digest_set_add(arg, cells[0], cells[1], cells[2], strtoull(cells[3], NULL, 10));
}

/* The digest counts a window starting at `start` (not before `restart`) is measured from: the latest snapshot at
 * or before start, else the earliest after it.  false if there is no snapshot at all. */
static bool digest_window_start(int64_t start, int64_t restart)
{
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "SELECT MAX(ts) FROM " HISTORY_SCHEMA ".digest_history WHERE server = '" HISTORY_LOCAL
                   "' AND ts <= %lld AND ts >= %lld", (long long)start, (long long)restart);
    double ts = sql_scalar(&b);
    if (isnan(ts)) {
        buf_reset(&b);
        buf_printf(&b, "SELECT MIN(ts) FROM " HISTORY_SCHEMA ".digest_history WHERE server = '" HISTORY_LOCAL
                       "' AND ts >= %lld", (long long)MAX(start, restart));
        ts = sql_scalar(&b);
    }
    bool ok = !isnan(ts);
    if (ok && (int64_t)ts != H.win_digests_ts) {
        digest_set_clear(&H.win_digests);
        buf_reset(&b);
        /* counts only grow within a run, so a digest's count at the snapshot is its largest one up to it */
        buf_printf(&b, "SELECT schema_name, digest, MAX(digest_text), MAX(count_star) FROM " HISTORY_SCHEMA
                       ".digest_history WHERE server = '" HISTORY_LOCAL "' AND ts <= %lld AND ts >= %lld GROUP BY "
                       "schema_name, digest", (long long)ts, (long long)restart);
        ok = sql_exec((const char *)b.data, b.len, load_digest_row, &H.win_digests) == 0;
        digest_set_sort(&H.win_digests);
        H.win_digests_ts = ok ? (int64_t)ts : 0;
    }
    buf_free(&b);
    return ok;
}

/* ---------------------------------------------------------------- advice over the history */

typedef struct eval_ctx {
    server_state_t *st;
    int64_t ts0;       /* first sample of the window */
    int64_t restart;
    sample_t start;    /* the sample at ts0 */
    bool have_start;
} eval_ctx_t;

static bool ctx_delta(void *arg, const char *name, double *out)
{
    eval_ctx_t *e = arg;
    double a, b;
    if (!sample_get(&e->st->cur, name, &b))
        return false;
    if (!e->have_start || !sample_get(&e->start, name, &a)) {
        *out = 0;
        return e->have_start; /* a counter that appeared within the window: nothing to compare with */
    }
    *out = b >= a ? b - a : b; /* went down: restarted (or FLUSH STATUS) inside the window */
    return true;
}

static bool ctx_gauge(void *arg, const char *name, double *out)
{
    eval_ctx_t *e = arg;
    return sample_get(&e->st->cur, name, out);
}

static bool ctx_gauge_max(void *arg, const char *name, double *out)
{
    eval_ctx_t *e = arg;
    if (!sample_get(&e->st->cur, name, out))
        return false;
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "SELECT MAX(value) FROM " HISTORY_SCHEMA ".status_history WHERE server = ");
    sql_quote(&b, e->st->key);
    buf_append_str(&b, " AND name = ");
    sql_quote(&b, name);
    buf_printf(&b, " AND ts >= %lld", (long long)e->ts0);
    double m = sql_scalar(&b);
    buf_free(&b);
    if (!isnan(m) && m > *out)
        *out = m;
    return true;
}

static const char *ctx_var(void *arg, const char *name)
{
    eval_ctx_t *e = arg;
    var_state_t *v = var_find(e->st, name);
    return v ? v->value : NULL;
}

static bool ctx_top_digest(void *arg, char *text, size_t cap, double *count, double *total)
{
    eval_ctx_t *e = arg;
    if (strcmp(e->st->key, HISTORY_LOCAL) != 0 || !digest_window_start(e->ts0, e->restart))
        return false;
    double best = 0, sum = 0;
    const char *best_text = NULL;
    for (size_t i = 0; i < H.cur_digests.n; i++) {
        const digest_count_t *d = &H.cur_digests.d[i];
        const digest_count_t *s = digest_set_find(&H.win_digests, d->key);
        double n = s && s->count <= d->count ? (double)(d->count - s->count) : (double)d->count;
        sum += n;
        if (n > best) {
            best = n;
            best_text = d->text;
        }
    }
    snprintf(text, cap, "%s", best_text ? best_text : "");
    *count = best;
    *total = sum;
    return best_text != NULL;
}

static void row_sample(void *arg, int n, const char *const *cells)
{
    if (n >= 2 && cells[0] && cells[1])
        sample_add(arg, cells[0], strtod(cells[1], NULL));
}

/* The window's first sample at or after `from`; loads it into e->start. */
static void window_start(eval_ctx_t *e, int64_t from)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "SELECT MIN(ts) FROM " HISTORY_SCHEMA ".status_history WHERE server = ");
    sql_quote(&b, e->st->key);
    buf_printf(&b, " AND ts >= %lld", (long long)from);
    double ts = sql_scalar(&b);
    e->ts0 = isnan(ts) ? e->st->cur.ts : (int64_t)ts;
    sample_clear(&e->start);
    e->have_start = false;
    if (!isnan(ts) && e->ts0 < e->st->cur.ts) {
        buf_reset(&b);
        buf_append_str(&b, "SELECT name, value FROM " HISTORY_SCHEMA ".status_history WHERE server = ");
        sql_quote(&b, e->st->key);
        buf_printf(&b, " AND ts = %lld", (long long)e->ts0);
        if (sql_exec((const char *)b.data, b.len, row_sample, &e->start) == 0) {
            sample_sort(&e->start);
            e->have_start = e->start.n > 0;
        }
    }
    if (!e->have_start)
        e->ts0 = e->st->cur.ts;
    buf_free(&b);
}

/* Where a rule's window starts: its nominal length back from now, cut at the last restart and at the last
 * change of a variable it reads. */
static int64_t rule_from(const advice_rule_t *r, server_state_t *st, int64_t restart)
{
    int64_t from = st->cur.ts - (int64_t)advice_window_seconds(r->window);
    from = MAX(from, restart);
    char name[128];
    for (const char *p = r->reads; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        var_state_t *v = var_find(st, name);
        if (v)
            from = MAX(from, v->changed);
        p += n + (e ? 1 : 0);
    }
    return from;
}

static void json_str(buf_t *b, const char *s)
{
    buf_append_byte(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            buf_printf(b, "\\u%04x", c);
        else
            buf_append_byte(b, c);
    }
    buf_append_byte(b, '"');
}

static size_t curl_discard(char *p, size_t size, size_t n, void *arg)
{
    (void)p;
    (void)arg;
    return size * n;
}

/* An alert as JSON, queued: alerts are POSTed after the pass's transaction commits (alerts_send). */
static void alert_queue(const char *state, const char *server, const advice_rule_t *rule, const advice_result_t *r,
                        const char *window, int64_t ts)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "{\"state\":");
    json_str(&b, state);
    buf_append_str(&b, ",\"server\":");
    json_str(&b, server);
    buf_append_str(&b, ",\"rule\":");
    json_str(&b, rule->name);
    buf_append_str(&b, ",\"severity\":");
    json_str(&b, r ? advice_severity_name(r->severity) : "");
    buf_append_str(&b, ",\"window\":");
    json_str(&b, window);
    buf_append_str(&b, ",\"evidence\":");
    json_str(&b, r ? r->evidence : "");
    buf_append_str(&b, ",\"current_value\":");
    json_str(&b, r ? r->current : "");
    buf_append_str(&b, ",\"suggested_value\":");
    json_str(&b, r ? r->suggested : "");
    buf_printf(&b, ",\"ts\":%lld}", (long long)ts);
    buf_append_byte(&b, 0);
    H.alerts = mem_realloc(H.alerts, (H.nalerts + 1) * sizeof *H.alerts);
    H.alerts[H.nalerts++] = (char *)b.data; /* the buffer's bytes are the string; freed by alerts_send */
}

/* POSTs the queued alerts to monitor_alert_webhook (3 s at most each); failures go to the error log. */
static void alerts_send(const char *url)
{
    for (size_t i = 0; i < H.nalerts; i++) {
        CURL *c = url[0] ? curl_easy_init() : NULL;
        if (c) {
            struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
            curl_easy_setopt(c, CURLOPT_URL, url);
            curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
            curl_easy_setopt(c, CURLOPT_POSTFIELDS, H.alerts[i]);
            curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 3000L);
            curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
            curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, curl_discard);
            CURLcode rc = curl_easy_perform(c);
            long status = 0;
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
            if (rc != CURLE_OK || status < 200 || status >= 300)
                log_warn("monitor: alert webhook %s failed: %s (HTTP %ld)", url,
                         rc != CURLE_OK ? curl_easy_strerror(rc) : "refused", status);
            curl_slist_free_all(h);
            curl_easy_cleanup(c);
        }
        mem_free(H.alerts[i]);
    }
    H.nalerts = 0;
}

static bool was_firing(const server_state_t *st, const char *rule)
{
    for (unsigned i = 0; i < st->nfire; i++)
        if (!strcmp(st->fire[i].rule, rule))
            return true;
    return false;
}

static void advice_rows_free(advice_copy_t *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mem_free(rows[i].rule);
        mem_free(rows[i].severity);
        mem_free(rows[i].window);
        mem_free(rows[i].evidence);
        mem_free(rows[i].current);
        mem_free(rows[i].suggested);
    }
    mem_free(rows);
}

static void advice_publish(advice_copy_t *rows, size_t n)
{
    pthread_mutex_lock(&H.advice_lock);
    advice_copy_t *old = H.advice;
    size_t nold = H.nadvice;
    H.advice = rows;
    H.nadvice = n;
    pthread_mutex_unlock(&H.advice_lock);
    advice_rows_free(old, nold);
}

static void evaluate(server_state_t *st, const history_config_t *cfg)
{
    eval_ctx_t e = {.st = st};
    double uptime;
    /* a second early: the pass's ts and Uptime are both whole seconds, read at different moments, so ts - Uptime
     * can land one past the first pass of this run and the windows would miss that pass's samples and snapshot */
    e.restart = sample_get(&st->cur, "Uptime", &uptime) ? st->cur.ts - (int64_t)uptime - 1 : 0;
    advice_ctx_t c = {.arg = &e, .delta = ctx_delta, .gauge = ctx_gauge, .gauge_max = ctx_gauge_max,
                      .var = ctx_var, .top_digest = ctx_top_digest};
    firing_t fire[64];
    unsigned nfire = 0;
    bool local = !strcmp(st->key, HISTORY_LOCAL);
    advice_copy_t *rows = local ? mem_calloc(advice_nrules, sizeof *rows) : NULL;
    size_t nrows = 0;
    buf_t del;
    buf_init(&del);
    buf_append_str(&del, "DELETE FROM " HISTORY_SCHEMA ".advice WHERE server = ");
    sql_quote(&del, st->key);
    sql_run(&del);
    buf_free(&del);
    inserter_t in;
    ins_begin(&in, "INSERT IGNORE INTO " HISTORY_SCHEMA ".advice (server, ts, rule, severity, period, evidence, "
                   "current_value, suggested_value) VALUES ");
    int64_t loaded_from = -1;
    for (unsigned i = 0; i < advice_nrules; i++) {
        const advice_rule_t *rule = &advice_rules[i];
        int64_t from = rule_from(rule, st, e.restart);
        if (from != loaded_from) {
            window_start(&e, from);
            loaded_from = from;
        }
        c.window_seconds = (double)(st->cur.ts - e.ts0);
        advice_result_t r;
        bool on = advice_eval(rule, &c, &r);
        char window[64];
        snprintf(window, sizeof window, "%s (%.0f s of history)", advice_window_name(rule->window), c.window_seconds);
        bool before = was_firing(st, rule->name);
        if (on && nfire < 64)
            snprintf(fire[nfire++].rule, sizeof fire[0].rule, "%s", rule->name);
        if (on != before) {
            if (on)
                log_warn("monitor: advice %s (%s) on %s: %s; now %s, suggested %s", rule->name,
                         advice_severity_name(r.severity), st->key, r.evidence, r.current, r.suggested);
            else
                log_note("monitor: advice %s on %s no longer applies", rule->name, st->key);
            if (cfg->webhook[0])
                alert_queue(on ? "firing" : "resolved", st->key, rule, on ? &r : NULL, window, st->cur.ts);
        }
        if (!on)
            continue;
        buf_t *b = ins_row(&in);
        sql_quote(b, st->key);
        buf_printf(b, ",%lld,", (long long)st->cur.ts);
        sql_quote(b, rule->name);
        buf_append_byte(b, ',');
        sql_quote(b, advice_severity_name(r.severity));
        buf_append_byte(b, ',');
        sql_quote(b, window);
        buf_append_byte(b, ',');
        sql_quote(b, r.evidence);
        buf_append_byte(b, ',');
        sql_quote(b, r.current);
        buf_append_byte(b, ',');
        sql_quote(b, r.suggested);
        buf_append_byte(b, ')');
        if (rows)
            rows[nrows++] = (advice_copy_t){mem_strdup(rule->name), mem_strdup(advice_severity_name(r.severity)),
                                            mem_strdup(window), mem_strdup(r.evidence), mem_strdup(r.current),
                                            mem_strdup(r.suggested)};
    }
    ins_end(&in);
    memcpy(st->fire, fire, nfire * sizeof fire[0]);
    st->nfire = nfire;
    sample_free(&e.start);
    if (local)
        advice_publish(rows, nrows);
}

/* ---------------------------------------------------------------- one server's pass */

static void rotate_sample(server_state_t *st, int64_t now)
{
    sample_t t = st->prev;
    st->prev = st->cur;
    st->cur = t;
    sample_clear(&st->cur);
    st->cur.ts = now;
}

static void local_pass(int64_t now, const history_config_t *cfg)
{
    server_state_t *st = &H.local;
    if (!st->key[0])
        snprintf(st->key, sizeof st->key, "%s", HISTORY_LOCAL);
    if (!st->loaded)
        vars_load(st);
    rotate_sample(st, now);
    trx_begin();
    H.ops.status(H.ops.arg, sample_add, &st->cur);
    if (H.last_pass_ms > 0)
        sample_add(&st->cur, "Strata_monitor_pass_ms", H.last_pass_ms);
    sample_sort(&st->cur);
    add_interval_gauges(st);
    sample_sort(&st->cur);
    write_sample(st);
    var_pass_t vp;
    vars_begin(&vp, st);
    H.ops.variables(H.ops.arg, var_seen, &vp);
    ins_end(&vp.in);
    digest_set_clear(&H.cur_digests);
    digest_scan(digest_collect, &H.cur_digests);
    digest_set_sort(&H.cur_digests);
    if (!H.last_digest || now - H.last_digest >= DIGEST_EVERY)
        digest_snapshot(now);
    evaluate(st, cfg);
    trx_commit();
    alerts_send(cfg->webhook);
}

typedef struct fleet_pass {
    server_state_t *st;
    var_pass_t vp;
} fleet_pass_t;

static void fleet_status(void *arg, const char *name, double v) { sample_add(&((fleet_pass_t *)arg)->st->cur, name, v); }
static void fleet_var(void *arg, const char *name, const char *value) { var_seen(&((fleet_pass_t *)arg)->vp, name, value); }

static void fleet_server_pass(server_state_t *st, int64_t now, const history_config_t *cfg)
{
    if (!st->loaded)
        vars_load(st);
    rotate_sample(st, now);
    fleet_pass_t fp = {.st = st};
    vars_begin(&fp.vp, st);
    char err[256];
    int rc = fleet_sample(&st->addr, fleet_status, fleet_var, &fp, err, sizeof err);
    trx_begin(); /* after the network: the variables still buffered are written in it */
    ins_end(&fp.vp.in);
    if (rc != 0) {
        if (strcmp(err, st->last_error) != 0)
            log_warn("monitor: cannot sample %s: %s", st->key, err);
        snprintf(st->last_error, sizeof st->last_error, "%s", err);
        sample_clear(&st->cur);
        sample_add(&st->cur, "Strata_up", 0);
        write_sample(st);
        trx_commit();
        return;
    }
    st->last_error[0] = 0;
    sample_sort(&st->cur);
    add_interval_gauges(st);
    sample_sort(&st->cur);
    write_sample(st);
    evaluate(st, cfg);
    trx_commit();
    alerts_send(cfg->webhook);
}

static void fleet_row(void *arg, int n, const char *const *cells)
{
    (void)arg;
    if (n < 4 || !cells[0] || !cells[1])
        return;
    char key[300];
    unsigned port = (unsigned)strtoul(cells[1], NULL, 10);
    snprintf(key, sizeof key, "%s:%u", cells[0], port);
    server_state_t *st = NULL;
    for (size_t i = 0; i < H.nfleet; i++)
        if (!strcmp(H.fleet[i]->key, key))
            st = H.fleet[i];
    if (!st) {
        st = mem_calloc(1, sizeof *st);
        snprintf(st->key, sizeof st->key, "%s", key);
        H.fleet = mem_realloc(H.fleet, (H.nfleet + 1) * sizeof *H.fleet);
        H.fleet[H.nfleet++] = st;
    }
    snprintf(st->addr.host, sizeof st->addr.host, "%s", cells[0]);
    st->addr.port = port;
    snprintf(st->addr.user, sizeof st->addr.user, "%s", cells[2] ? cells[2] : "");
    snprintf(st->addr.password, sizeof st->addr.password, "%s", cells[3] ? cells[3] : "");
    st->in_list = true;
}

/* Re-reads strata_monitor.servers: new rows are sampled from now on, deleted rows no longer. */
static void fleet_refresh(void)
{
    for (size_t i = 0; i < H.nfleet; i++)
        H.fleet[i]->in_list = false;
    const char *q = "SELECT host, port, user, password FROM " HISTORY_SCHEMA ".servers";
    if (sql_exec(q, strlen(q), fleet_row, NULL) != 0)
        return;
    size_t w = 0;
    for (size_t i = 0; i < H.nfleet; i++) {
        if (H.fleet[i]->in_list) {
            H.fleet[w++] = H.fleet[i];
            continue;
        }
        buf_t b;
        buf_init(&b);
        buf_append_str(&b, "DELETE FROM " HISTORY_SCHEMA ".advice WHERE server = ");
        sql_quote(&b, H.fleet[i]->key);
        sql_run(&b);
        buf_free(&b);
        server_free(H.fleet[i]);
        mem_free(H.fleet[i]);
    }
    H.nfleet = w;
}

/* ---------------------------------------------------------------- retention and the size bound */

static double schema_bytes(void)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
                       HISTORY_SCHEMA "'");
    double v = sql_scalar(&b);
    buf_free(&b);
    return v;
}

static void maintain_server(const char *key, int64_t now)
{
    buf_t b;
    buf_init(&b);
    int64_t cutoff = (now - KEEP_FULL_SECONDS) / 300 * 300; /* whole 5-minute buckets only */
    buf_append_str(&b, "INSERT IGNORE INTO " HISTORY_SCHEMA ".status_history_5min (server, ts, name, value) SELECT "
                       "server, ts - ts % 300, name, AVG(value) FROM " HISTORY_SCHEMA ".status_history WHERE server = ");
    sql_quote(&b, key);
    buf_printf(&b, " AND ts < %lld GROUP BY server, ts - ts %% 300, name", (long long)cutoff);
    if (sql_run(&b) == 0) {
        buf_reset(&b);
        buf_append_str(&b, "DELETE FROM " HISTORY_SCHEMA ".status_history WHERE server = ");
        sql_quote(&b, key);
        buf_printf(&b, " AND ts < %lld", (long long)cutoff);
        sql_run(&b);
    }
    buf_free(&b);
}

/* Deletes the oldest stretch of one server's history: a day of 5-minute rows if it has any, else an hour of
 * full-resolution rows.  false if it has nothing left to delete. */
static bool trim_oldest(const char *key)
{
    static const struct { const char *table; int64_t span; } order[] = {{"status_history_5min", 86400},
                                                                       {"status_history", 3600}};
    bool done = false;
    buf_t b;
    buf_init(&b);
    for (size_t i = 0; i < 2 && !done; i++) {
        buf_reset(&b);
        buf_printf(&b, "SELECT MIN(ts) FROM " HISTORY_SCHEMA ".%s WHERE server = ", order[i].table);
        sql_quote(&b, key);
        double oldest = sql_scalar(&b);
        if (isnan(oldest))
            continue;
        buf_reset(&b);
        buf_printf(&b, "DELETE FROM " HISTORY_SCHEMA ".%s WHERE server = ", order[i].table);
        sql_quote(&b, key);
        buf_printf(&b, " AND ts < %lld", (long long)oldest + order[i].span);
        done = sql_run(&b) == 0;
    }
    buf_free(&b);
    return done;
}

static void maintain(int64_t now, const history_config_t *cfg)
{
    maintain_server(HISTORY_LOCAL, now);
    for (size_t i = 0; i < H.nfleet; i++)
        maintain_server(H.fleet[i]->key, now);
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "DELETE FROM " HISTORY_SCHEMA ".digest_history WHERE server = '" HISTORY_LOCAL "' AND ts < %lld",
               (long long)(now - KEEP_DIGEST_SECONDS));
    sql_run(&b);
    buf_free(&b);
    /* over the bound: trim the server with the most history first (this one when in doubt), a step a pass */
    double bytes = schema_bytes();
    if (!isnan(bytes) && bytes > (double)cfg->max_size) {
        bool trimmed = false;
        for (size_t i = 0; i < H.nfleet && !trimmed; i++)
            trimmed = trim_oldest(H.fleet[i]->key);
        if (!trimmed)
            trim_oldest(HISTORY_LOCAL);
        log_note("monitor: %s takes %.0f bytes, over monitor_history_max_size=%llu: the oldest history was "
                 "deleted", HISTORY_SCHEMA, bytes, (unsigned long long)cfg->max_size);
    }
}

/* ---------------------------------------------------------------- the thread */

static void pass(const history_config_t *cfg)
{
    uint64_t t0 = time_mono_us();
    int64_t now = (int64_t)(time_wall_us() / 1000000);
    if (!H.schema_ready && !(H.schema_ready = schema_create()))
        return;
    local_pass(now, cfg);
    fleet_refresh();
    for (size_t i = 0; i < H.nfleet; i++)
        fleet_server_pass(H.fleet[i], now, cfg);
    if (H.maint_due == 0) {
        maintain(now, cfg);
        H.maint_due = MAINT_EVERY;
    }
    H.maint_due--;
    H.last_pass_ms = (double)(time_mono_us() - t0) / 1000.0;
    atomic_fetch_add(&H.passes, 1);
}

static void *sampler_main(void *arg)
{
    (void)arg;
    uint64_t next_us = 0;
    fleet_thread_begin();
    for (;;) {
        history_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        H.ops.config(H.ops.arg, &cfg);
        pthread_mutex_lock(&H.lock);
        for (;;) {
            if (H.stop)
                break;
            uint64_t now = time_wall_us();
            if (H.kick) {
                H.kick = false;
                H.ops.config(H.ops.arg, &cfg);
                next_us = cfg.interval ? MIN(next_us ? next_us : now, now + cfg.interval * 1000000) : 0;
            }
            if (cfg.interval && (!next_us || now >= next_us))
                break;
            uint64_t until = cfg.interval ? next_us : now + 1000000; /* off: look at the variable each second */
            struct timespec ts = {.tv_sec = (time_t)(until / 1000000), .tv_nsec = (long)(until % 1000000) * 1000};
            pthread_cond_timedwait(&H.cond, &H.lock, &ts);
            if (!cfg.interval)
                H.ops.config(H.ops.arg, &cfg);
        }
        bool stop = H.stop;
        pthread_mutex_unlock(&H.lock);
        if (stop)
            break;
        uint64_t interval = cfg.interval;
        H.ops.config(H.ops.arg, &cfg); /* a webhook or size bound SET while waiting applies to this pass */
        cfg.interval = interval;
        pass(&cfg);
        uint64_t now = time_wall_us();
        next_us = (next_us ? next_us : now) + cfg.interval * 1000000;
        if (next_us <= now) /* a pass longer than the interval: the next starts now, none are queued */
            next_us = now;
    }
    fleet_thread_end();
    return NULL;
}

int history_start(const history_ops_t *ops)
{
    H.ops = *ops;
    H.stop = H.kick = false;
    curl_global_init(CURL_GLOBAL_DEFAULT); /* both before the thread: neither library's set-up is thread-safe */
    fleet_library_init();
    if (pthread_create(&H.thread, NULL, sampler_main, NULL) != 0) {
        curl_global_cleanup();
        return -1;
    }
    H.running = true;
    return 0;
}

void history_stop(void)
{
    if (!H.running)
        return;
    pthread_mutex_lock(&H.lock);
    H.stop = true;
    pthread_cond_signal(&H.cond);
    pthread_mutex_unlock(&H.lock);
    pthread_join(H.thread, NULL);
    H.running = false;
    server_free(&H.local);
    for (size_t i = 0; i < H.nfleet; i++) {
        server_free(H.fleet[i]);
        mem_free(H.fleet[i]);
    }
    mem_free(H.fleet);
    H.fleet = NULL;
    alerts_send("");
    mem_free(H.alerts);
    H.alerts = NULL;
    H.nfleet = 0;
    digest_set_free(&H.snap);
    digest_set_free(&H.cur_digests);
    digest_set_free(&H.win_digests);
    advice_publish(NULL, 0);
    curl_global_cleanup();
}

void history_kick(void)
{
    pthread_mutex_lock(&H.lock);
    H.kick = true;
    pthread_cond_signal(&H.cond);
    pthread_mutex_unlock(&H.lock);
}

void history_advice_scan(void (*fn)(void *arg, const history_advice_row_t *r), void *arg)
{
    /* copied under the lock, handed out after it: fn may write to a client */
    pthread_mutex_lock(&H.advice_lock);
    size_t n = H.nadvice;
    advice_copy_t *copy = mem_calloc(n ? n : 1, sizeof *copy);
    for (size_t i = 0; i < n; i++) {
        const advice_copy_t *a = &H.advice[i];
        copy[i] = (advice_copy_t){mem_strdup(a->rule), mem_strdup(a->severity), mem_strdup(a->window),
                                  mem_strdup(a->evidence), mem_strdup(a->current), mem_strdup(a->suggested)};
    }
    pthread_mutex_unlock(&H.advice_lock);
    for (size_t i = 0; i < n; i++) {
        const advice_copy_t *a = &copy[i];
        history_advice_row_t r = {a->rule, a->severity, a->window, a->evidence, a->current, a->suggested};
        fn(arg, &r);
    }
    advice_rows_free(copy, n);
}

uint64_t history_passes(void) { return atomic_load(&H.passes); }
