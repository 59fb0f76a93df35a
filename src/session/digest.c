/*
 * Statement digests, the session's side: what a finished statement hands to the digest summary
 * (monitor/digest.h) and the performance_schema.events_statements_summary_by_digest rows read back from it.
 *
 * Every statement that parsed is recorded after it ran (session_meter_end), statements that failed included
 * (SUM_ERRORS); a text that does not parse is not, as in MariaDB, whose digest comes from its parser.  The
 * facts are the statement meter's (session.h stmt_meter_t: time, lock wait, rows examined, scans, sorts,
 * temporary tables), the rows the protocol sent, the affected rows and the diagnostics area's counts: nothing
 * is measured twice.
 *
 * Normalizing a text costs one pass of the lexer; the session keeps the digest texts of its last DIGEST_CACHE
 * statements keyed by their text and sql_mode flags, so a prepared statement executed again, or a client that
 * repeats a statement, pays a memcmp.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "monitor/digest.h"
#include "session/session.h"
#include "sql/sql.h"
#include "sql/value/tz.h"
#include "util/util.h"

#define DIGEST_CACHE 4
#define DIGEST_DEFAULT_SIZE 5000 /* performance_schema_digests_size=-1 (MariaDB: autosized; 5000 on its defaults) */

typedef struct digest_cache_slot {
    char *src;       /* the statement text, mem_alloc'd */
    size_t src_len;
    unsigned mode;
    char *text;      /* its digest text */
    size_t text_len;
} digest_cache_slot_t;

struct digest_cache {
    digest_cache_slot_t slot[DIGEST_CACHE];
    unsigned next;  /* the slot replaced next */
};

static bool digests_on;
static size_t max_digest_length = 1024;

void session_digest_init(server_t *srv)
{
    if (!sysvar_global_int(&srv->vars, SYSVAR_PERFORMANCE_SCHEMA))
        return;
    int64_t size = sysvar_global_int(&srv->vars, SYSVAR_PERFORMANCE_SCHEMA_DIGESTS_SIZE);
    max_digest_length = (size_t)sysvar_global_int(&srv->vars, SYSVAR_PERFORMANCE_SCHEMA_MAX_DIGEST_LENGTH);
    digest_init(size < 0 ? DIGEST_DEFAULT_SIZE : (size_t)size);
    digests_on = true;
}

void session_digest_free(session_t *s)
{
    struct digest_cache *c = s->digest_cache;
    if (!c)
        return;
    for (int i = 0; i < DIGEST_CACHE; i++) {
        mem_free(c->slot[i].src);
        mem_free(c->slot[i].text);
    }
    mem_free(c);
    s->digest_cache = NULL;
}

/* The digest text of st, from the cache or normalized now (and cached). */
static const digest_cache_slot_t *digest_text_of(session_t *s, const sql_stmt_t *st)
{
    unsigned mode = session_parse_mode(s);
    struct digest_cache *c = s->digest_cache;
    if (!c)
        c = s->digest_cache = mem_calloc(1, sizeof *c);
    for (int i = 0; i < DIGEST_CACHE; i++) {
        digest_cache_slot_t *e = &c->slot[i];
        if (e->src && e->src_len == st->src_len && e->mode == mode && memcmp(e->src, st->src, st->src_len) == 0)
            return e;
    }
    digest_cache_slot_t *e = &c->slot[c->next];
    c->next = (c->next + 1) % DIGEST_CACHE;
    mem_free(e->src);
    mem_free(e->text);
    size_t n;
    char *text = sql_digest_text(&s->arena, st->src, st->src_len, mode, max_digest_length, &n);
    e->src = mem_strndup(st->src, st->src_len);
    e->src_len = st->src_len;
    e->mode = mode;
    e->text = mem_strndup(text, n);
    e->text_len = n;
    return e;
}

void session_digest_record(session_t *s, const sql_stmt_t *st, uint64_t query_us)
{
    if (!digests_on || !st || !st->src || !st->src_len)
        return;
    const stmt_meter_t *m = &s->meter;
    const digest_cache_slot_t *d = digest_text_of(s, st);
    digest_stmt_t r = {
        .schema = s->db,
        .text = d->text,
        .text_len = d->text_len,
        .timer_ps = query_us * 1000000,
        .now_us = m->start_wall_us + query_us,
    };
    uint64_t *v = r.sums;
    v[DIGEST_SUM_LOCK_TIME] = m->lock_us * 1000000;
    v[DIGEST_SUM_ERRORS] = diag_failed(&s->diag) ? 1 : 0;
    /* the diagnostics area's warning count includes the error; MariaDB's WARNINGS does not */
    uint32_t conds = s->diag.stale ? 0 : diag_statement_warnings(&s->diag);
    uint32_t errors = s->diag.stale ? 0 : s->diag.error_count;
    v[DIGEST_SUM_WARNINGS] = conds > errors ? conds - errors : 0;
    v[DIGEST_SUM_ROWS_AFFECTED] = s->row_count > 0 ? (uint64_t)s->row_count : 0;
    v[DIGEST_SUM_ROWS_SENT] = s->rows_out - m->rows_out0;
    v[DIGEST_SUM_ROWS_EXAMINED] = m->rows_examined;
    v[DIGEST_SUM_CREATED_TMP_DISK_TABLES] = m->tmp_disk_tables;
    v[DIGEST_SUM_CREATED_TMP_TABLES] = m->tmp_tables;
    v[DIGEST_SUM_SELECT_FULL_JOIN] = m->full_joins;
    v[DIGEST_SUM_SELECT_SCAN] = m->full_scans;
    v[DIGEST_SUM_SORT_MERGE_PASSES] = m->merge_passes;
    v[DIGEST_SUM_SORT_RANGE] = m->sort_range;
    v[DIGEST_SUM_SORT_ROWS] = m->sort_rows;
    v[DIGEST_SUM_SORT_SCAN] = m->sort_scan;
    v[DIGEST_SUM_NO_INDEX_USED] = m->full_scans || m->full_joins ? 1 : 0;
    digest_record(&r);
}

typedef struct rows_ctx {
    void (*row)(void *arg, const char *const *vals);
    void *arg;
} rows_ctx_t;

/* A TIMESTAMP column's text in the session's time zone. */
static void seen_text(uint64_t us, char *out, size_t cap)
{
    time_t t = (time_t)(us / 1000000) + sql_tz_offset_at((int64_t)(us / 1000000));
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

static void digest_row_vals(void *arg, const digest_row_t *r)
{
    rows_ctx_t *c = arg;
    enum { NTIMERS = 5, NCOLS = 3 + NTIMERS + DIGEST_NSUMS + 4 };
    char num[NTIMERS + DIGEST_NSUMS + 2][24], seen[2][32];
    const char *v[NCOLS];
    int k = 0, n = 0;
    v[k++] = r->schema;
    v[k++] = r->digest;
    v[k++] = r->text;
    uint64_t timers[NTIMERS] = {r->count, r->sum_ps, r->min_ps, r->count ? r->sum_ps / r->count : 0, r->max_ps};
    for (int i = 0; i < NTIMERS; i++, n++) {
        snprintf(num[n], sizeof num[n], "%llu", (unsigned long long)timers[i]);
        v[k++] = num[n];
    }
    for (int i = 0; i < DIGEST_NSUMS; i++, n++) {
        snprintf(num[n], sizeof num[n], "%llu", (unsigned long long)r->sums[i]);
        v[k++] = num[n];
    }
    seen_text(r->first_seen_us, seen[0], sizeof seen[0]);
    seen_text(r->last_seen_us, seen[1], sizeof seen[1]);
    v[k++] = seen[0];
    v[k++] = seen[1];
    uint64_t q[2] = {r->p95_ps, r->p99_ps};
    for (int i = 0; i < 2; i++, n++) {
        snprintf(num[n], sizeof num[n], "%llu", (unsigned long long)q[i]);
        v[k++] = num[n];
    }
    c->row(c->arg, v);
}

void session_digest_rows(void (*row)(void *arg, const char *const *vals), void *arg)
{
    rows_ctx_t c = {row, arg};
    digest_scan(digest_row_vals, &c);
}

void session_digest_truncate(void)
{
    digest_truncate();
}
