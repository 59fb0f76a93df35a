/*
 * Optimizer statistics (see stats.h): computed by ANALYZE TABLE, stored in the catalog's tree, cached here.
 *
 * ---- The stored record (catalog_aux_put, kind CAT_AUX_STATS, keyed by table id) ----------------------------
 *   [1] version
 *   varint rows            rows of the clustered tree in the read view of the ANALYZE
 *   varint analyzed_at     unix seconds
 *   varint nidx, per index: str name, varint ncols, ncols x varint n_diff (distinct values of prefix 1..ncols)
 *   (str = varint length + bytes; varints are LEB128, rowcodec.h)
 * A record of another version is ignored (the table then has no statistics until the next ANALYZE).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "access/mdl.h"
#include "access/rowcodec.h"
#include "access/stats.h"
#include "access/table.h"
#include "util/util.h"

#define STATS_REC_VERSION 1

typedef struct stats_index {
    char *name;
    uint32_t ncols;
    uint64_t *n_diff;
} stats_index_t;

typedef struct stats_entry {
    uint64_t table_id;
    bool present;           /* false: looked up, the table has none */
    uint64_t rows;
    uint32_t nidx;
    stats_index_t *idx;
} stats_entry_t;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static stats_entry_t *g_ents;
static uint32_t g_n, g_cap;

static void entry_clear(stats_entry_t *e)
{
    for (uint32_t i = 0; i < e->nidx; i++) {
        mem_free(e->idx[i].name);
        mem_free(e->idx[i].n_diff);
    }
    mem_free(e->idx);
    e->idx = NULL;
    e->nidx = 0;
}

/* Replaces (or adds) the cached entry of e->table_id with e, taking ownership.  Caller holds g_lock. */
static void cache_put(stats_entry_t *e)
{
    for (uint32_t i = 0; i < g_n; i++)
        if (g_ents[i].table_id == e->table_id) {
            entry_clear(&g_ents[i]);
            g_ents[i] = *e;
            return;
        }
    if (g_n == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 32;
        g_ents = mem_realloc(g_ents, sizeof *g_ents * g_cap);
    }
    g_ents[g_n++] = *e;
}

static stats_entry_t *cache_find(uint64_t id)
{
    for (uint32_t i = 0; i < g_n; i++)
        if (g_ents[i].table_id == id)
            return &g_ents[i];
    return NULL;
}

static void put_str(buf_t *b, const char *s)
{
    size_t n = strlen(s);
    rc_put_varint(b, n);
    buf_append(b, s, n);
}

static void encode(buf_t *b, const stats_entry_t *e)
{
    buf_append_byte(b, STATS_REC_VERSION);
    rc_put_varint(b, e->rows);
    rc_put_varint(b, (uint64_t)time(NULL));
    rc_put_varint(b, e->nidx);
    for (uint32_t i = 0; i < e->nidx; i++) {
        put_str(b, e->idx[i].name);
        rc_put_varint(b, e->idx[i].ncols);
        for (uint32_t k = 0; k < e->idx[i].ncols; k++)
            rc_put_varint(b, e->idx[i].n_diff[k]);
    }
}

/* Decodes a stored record into e (e->table_id set by the caller); false when malformed or of another version. */
static bool decode(const uint8_t *p, size_t len, stats_entry_t *e)
{
    const uint8_t *end = p + len;
    uint64_t rows, when, nidx;
    if (len < 1 || *p++ != STATS_REC_VERSION || rc_get_varint(&p, end, &rows) || rc_get_varint(&p, end, &when) ||
        rc_get_varint(&p, end, &nidx) || nidx > 4096)
        return false;
    e->rows = rows;
    e->idx = mem_calloc(nidx ? nidx : 1, sizeof *e->idx);
    for (uint64_t i = 0; i < nidx; i++, e->nidx++) {
        uint64_t nl, nc;
        if (rc_get_varint(&p, end, &nl) || nl > (uint64_t)(end - p))
            return false;
        stats_index_t *x = &e->idx[i];
        x->name = mem_alloc(nl + 1);
        memcpy(x->name, p, nl);
        x->name[nl] = 0;
        p += nl;
        if (rc_get_varint(&p, end, &nc) || nc > 64)
            return false;
        x->ncols = (uint32_t)nc;
        x->n_diff = mem_calloc(nc ? nc : 1, sizeof(uint64_t));
        for (uint64_t k = 0; k < nc; k++)
            if (rc_get_varint(&p, end, &x->n_diff[k]))
                return false;
    }
    e->present = true;
    return true;
}

/*
 * Distinct values of each key prefix of index ix, by one pass over its tree in key order: the entry's key is
 * the index columns' encodings (then the primary key, for secondary indexes), so neighbours share a prefix of
 * k columns exactly when those bytes are equal.
 */
static int count_index(engine_trx_t *trx, const cat_table_t *t, uint32_t ix, uint64_t *n_diff, uint64_t *nrows)
{
    const cat_index_t *x = &t->idx[ix];
    engine_cursor_t *cur;
    int rc = engine_cursor_open(trx, x->tree, &cur);
    if (rc)
        return rc;
    buf_t prev;
    buf_init(&prev);
    size_t prev_end[64] = {0}, end[64];
    uint32_t nc = MIN(x->ncols, 64u);
    uint64_t n = 0;
    for (rc = engine_cursor_first(cur); rc == 0; rc = engine_cursor_next(cur)) {
        size_t klen;
        const uint8_t *k = engine_cursor_key(cur, &klen);
        size_t off = 0;
        for (uint32_t c = 0; c < nc; c++) {
            rc_col_t rc_c = table_index_rc(t, ix, c);
            int l = off <= klen ? rc_key_skip(&rc_c, k + off, klen - off) : -1;
            off = l < 0 ? klen : off + (size_t)l;
            end[c] = off;
        }
        /* the first column whose prefix differs from the previous entry's: every longer prefix differs too */
        uint32_t c = 0;
        if (n)
            while (c < nc && end[c] == prev_end[c] && memcmp(k, prev.data, end[c]) == 0)
                c++;
        for (; c < nc; c++)
            n_diff[c]++;
        buf_reset(&prev);
        buf_append(&prev, k, end[nc ? nc - 1 : 0]);
        memcpy(prev_end, end, sizeof(size_t) * nc);
        n++;
    }
    engine_cursor_close(cur);
    buf_free(&prev);
    *nrows = n;
    return rc == STRATA_ENOTFOUND ? 0 : rc;
}

static int count_rows(engine_trx_t *trx, const cat_table_t *t, uint64_t *rows)
{
    engine_cursor_t *cur;
    int rc = engine_cursor_open(trx, t->tree, &cur);
    if (rc)
        return rc;
    uint64_t n = 0;
    for (rc = engine_cursor_first(cur); rc == 0; rc = engine_cursor_next(cur))
        n++;
    engine_cursor_close(cur);
    *rows = n;
    return rc == STRATA_ENOTFOUND ? 0 : rc;
}

static _Atomic uint64_t g_generation;
static void auto_counted(uint64_t id, uint64_t rows);

uint64_t stats_generation(void)
{
    return atomic_load_explicit(&g_generation, memory_order_acquire);
}

int stats_analyze(catalog_t *c, const cat_table_t *t)
{
    stats_entry_t e = {.table_id = t->id, .present = true};
    engine_trx_t *trx;
    int rc = engine_trx_begin(catalog_engine(c), &trx);
    if (rc)
        return rc;
    rc = count_rows(trx, t, &e.rows);
    e.idx = mem_calloc(t->nidx ? t->nidx : 1, sizeof *e.idx);
    for (uint32_t i = 0; i < t->nidx && !rc; i++, e.nidx++) {
        stats_index_t *x = &e.idx[i];
        x->name = mem_strdup(t->idx[i].name);
        x->ncols = t->idx[i].ncols;
        x->n_diff = mem_calloc(x->ncols ? x->ncols : 1, sizeof(uint64_t));
        uint64_t n;
        rc = count_index(trx, t, i, x->n_diff, &n);
    }
    engine_trx_rollback(trx);
    buf_t rec;
    buf_init(&rec);
    if (!rc && !engine_read_only(catalog_engine(c))) { /* innodb_force_recovery: kept in memory only */
        encode(&rec, &e);
        rc = catalog_aux_put(c, CAT_AUX_STATS, t->id, rec.data, rec.len);
    }
    buf_free(&rec);
    if (rc) {
        entry_clear(&e);
        return rc;
    }
    uint64_t rows = e.rows;
    pthread_mutex_lock(&g_lock);
    cache_put(&e);
    pthread_mutex_unlock(&g_lock);
    auto_counted(t->id, rows);
    atomic_fetch_add_explicit(&g_generation, 1, memory_order_release);
    return 0;
}

/* The cached entry of t (loaded from the catalog on first use), with g_lock held; NULL (lock released) when
 * the table has no statistics. */
static const stats_entry_t *lookup_locked(catalog_t *c, const cat_table_t *t)
{
    pthread_mutex_lock(&g_lock);
    stats_entry_t *e = cache_find(t->id);
    if (!e) {
        pthread_mutex_unlock(&g_lock);
        stats_entry_t ne = {.table_id = t->id};
        buf_t b;
        buf_init(&b);
        if (catalog_aux_get(c, CAT_AUX_STATS, t->id, &b) == 0 && !decode(b.data, b.len, &ne)) {
            entry_clear(&ne);
            ne.present = false;
        }
        buf_free(&b);
        pthread_mutex_lock(&g_lock);
        if (!(e = cache_find(t->id))) { /* (an ANALYZE may have published meanwhile: it wins) */
            cache_put(&ne);
            e = cache_find(t->id);
        } else {
            entry_clear(&ne);
        }
    }
    if (!e->present) {
        pthread_mutex_unlock(&g_lock);
        return NULL;
    }
    return e;
}

static const stats_index_t *index_of(const stats_entry_t *e, const cat_table_t *t, uint32_t ix)
{
    const cat_index_t *x = &t->idx[ix];
    for (uint32_t i = 0; i < e->nidx; i++)
        if (e->idx[i].ncols == x->ncols && strcasecmp(e->idx[i].name, x->name) == 0)
            return &e->idx[i];
    return NULL;
}

bool stats_table_rows(catalog_t *c, const cat_table_t *t, uint64_t *rows)
{
    const stats_entry_t *e = lookup_locked(c, t);
    if (!e)
        return false;
    *rows = e->rows;
    pthread_mutex_unlock(&g_lock);
    return true;
}

bool stats_index_distinct(catalog_t *c, const cat_table_t *t, uint32_t ix, uint32_t n, uint64_t *distinct)
{
    if (ix >= t->nidx || n == 0 || n > t->idx[ix].ncols)
        return false;
    const stats_entry_t *e = lookup_locked(c, t);
    if (!e)
        return false;
    const stats_index_t *x = index_of(e, t, ix);
    if (x)
        *distinct = x->n_diff[n - 1];
    pthread_mutex_unlock(&g_lock);
    return x != NULL;
}

bool stats_rows_per_key(catalog_t *c, const cat_table_t *t, uint32_t ix, uint32_t n, uint64_t *rows)
{
    uint64_t all, d;
    if (!stats_table_rows(c, t, &all) || !stats_index_distinct(c, t, ix, n, &d))
        return false;
    *rows = d ? (all + d - 1) / d : 1;
    if (*rows == 0)
        *rows = 1;
    return true;
}

void stats_shutdown(void)
{
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < g_n; i++)
        entry_clear(&g_ents[i]);
    mem_free(g_ents);
    g_ents = NULL;
    g_n = g_cap = 0;
    pthread_mutex_unlock(&g_lock);
}

/* ---------------------------------------------------------------- automatic recalculation */

/* Changes since the last count, per slot (table id modulo the slots: two tables sharing one only count each
 * other's changes, which makes a recalculation come early, never late); the threshold of each slot is a tenth
 * of the rows last counted for its table (0: never counted). */
enum { AUTO_SLOTS = 4096, AUTO_QUEUE = 256 };
static _Atomic uint64_t g_changes[AUTO_SLOTS];
static _Atomic uint64_t g_threshold[AUTO_SLOTS];

/* A table is counted AUTO_DELAY_US after it was queued, so the statement or transaction whose changes crossed
 * the threshold has usually committed by then (the count reads committed rows). */
enum { AUTO_DELAY_US = 2000000 };

typedef struct auto_req {
    uint64_t id;
    uint64_t due_us;
    char *db, *name;
} auto_req_t;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    _Atomic bool running;
    bool stop;
    catalog_t *cat;
    bool (*enabled)(void);
    auto_req_t q[AUTO_QUEUE];
    uint32_t n;
    _Atomic uint64_t done;
} g_auto = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static uint32_t auto_slot(uint64_t id) { return (uint32_t)(id % AUTO_SLOTS); }

static void auto_counted(uint64_t id, uint64_t rows)
{
    uint64_t t = rows / 10;
    atomic_store_explicit(&g_threshold[auto_slot(id)], t < STATS_AUTO_MIN_CHANGES ? STATS_AUTO_MIN_CHANGES : t,
                          memory_order_relaxed);
    atomic_store_explicit(&g_changes[auto_slot(id)], 0, memory_order_relaxed);
    /* a count just published (ANALYZE TABLE's, or the thread's) answers the requests queued before it */
    pthread_mutex_lock(&g_auto.mu);
    for (uint32_t i = 0; i < g_auto.n;) {
        if (g_auto.q[i].id == id) {
            mem_free(g_auto.q[i].db);
            mem_free(g_auto.q[i].name);
            memmove(&g_auto.q[i], &g_auto.q[i + 1], sizeof g_auto.q[0] * (g_auto.n - i - 1));
            g_auto.n--;
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&g_auto.mu);
}

/* Changes are added to the shared counters in batches from each thread (one atomic add per AUTO_BATCH rows of a
 * table, not per row: the counters of a hot table are one cache line every writer would share).  A thread's last
 * partial batch is added when it next changes another table. */
enum { AUTO_BATCH = 32 };
static _Thread_local struct {
    uint64_t id;
    uint32_t pending;
} tl_batch;

void stats_note_change(const cat_table_t *t)
{
    if (!atomic_load_explicit(&g_auto.running, memory_order_relaxed) || !t->db || !t->name)
        return;
    if (tl_batch.id != t->id) {
        if (tl_batch.pending) /* counted; queued when that table's next batch passes the threshold */
            atomic_fetch_add_explicit(&g_changes[auto_slot(tl_batch.id)], tl_batch.pending, memory_order_relaxed);
        tl_batch.id = t->id;
        tl_batch.pending = 0;
    }
    if (++tl_batch.pending < AUTO_BATCH)
        return;
    uint32_t s = auto_slot(t->id);
    uint64_t th = atomic_load_explicit(&g_threshold[s], memory_order_relaxed);
    uint64_t n = atomic_fetch_add_explicit(&g_changes[s], tl_batch.pending, memory_order_relaxed) + tl_batch.pending;
    tl_batch.pending = 0;
    if (n < (th ? th : STATS_AUTO_MIN_CHANGES))
        return; /* a batch at or past the threshold queues the table (once: queued tables are skipped) */
    pthread_mutex_lock(&g_auto.mu);
    bool queued = false;
    for (uint32_t i = 0; i < g_auto.n; i++)
        queued |= g_auto.q[i].id == t->id;
    if (!queued && g_auto.n < AUTO_QUEUE && !g_auto.stop) {
        g_auto.q[g_auto.n++] = (auto_req_t){t->id, time_mono_us() + AUTO_DELAY_US, mem_strdup(t->db),
                                            mem_strdup(t->name)};
        pthread_cond_signal(&g_auto.cv);
    }
    pthread_mutex_unlock(&g_auto.mu);
}

static void auto_recalc(const auto_req_t *r)
{
    if (g_auto.enabled && !g_auto.enabled()) {
        atomic_store_explicit(&g_changes[auto_slot(r->id)], 0, memory_order_relaxed); /* counted again later */
        return;
    }
    mdl_set_t locks = {0};
    _Atomic bool kill = false;
    /* a short wait: a table under DDL is counted when its changes cross the threshold again */
    if (mdl_shared(&locks, r->db, r->name, 1000000, &kill) == 0) {
        cat_table_t *t = catalog_table_get(g_auto.cat, r->db, r->name);
        if (t && t->id == r->id && stats_analyze(g_auto.cat, t) == 0)
            atomic_fetch_add_explicit(&g_auto.done, 1, memory_order_relaxed);
        else
            atomic_store_explicit(&g_changes[auto_slot(r->id)], 0, memory_order_relaxed);
        if (t)
            catalog_table_release(t);
    } else {
        atomic_store_explicit(&g_changes[auto_slot(r->id)], 0, memory_order_relaxed);
    }
    mdl_release_all(&locks);
    mdl_set_free(&locks);
}

static void *auto_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_auto.mu);
    for (;;) {
        while (!g_auto.stop && g_auto.n == 0)
            pthread_cond_wait(&g_auto.cv, &g_auto.mu);
        if (g_auto.stop)
            break;
        uint64_t now = time_mono_us();
        if (g_auto.q[0].due_us > now) { /* the queue is in due order: wait for the first */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t ns = (uint64_t)ts.tv_nsec + (g_auto.q[0].due_us - now) * 1000u;
            ts.tv_sec += (time_t)(ns / 1000000000u);
            ts.tv_nsec = (long)(ns % 1000000000u);
            pthread_cond_timedwait(&g_auto.cv, &g_auto.mu, &ts);
            continue;
        }
        auto_req_t r = g_auto.q[0];
        memmove(&g_auto.q[0], &g_auto.q[1], sizeof r * --g_auto.n);
        pthread_mutex_unlock(&g_auto.mu);
        auto_recalc(&r);
        mem_free(r.db);
        mem_free(r.name);
        pthread_mutex_lock(&g_auto.mu);
    }
    pthread_mutex_unlock(&g_auto.mu);
    return NULL;
}

int stats_auto_start(catalog_t *c, bool (*enabled)(void))
{
    g_auto.cat = c;
    g_auto.enabled = enabled;
    g_auto.stop = false;
    int rc = pthread_create(&g_auto.thread, NULL, auto_main, NULL);
    if (rc)
        return -rc;
    atomic_store(&g_auto.running, true);
    return 0;
}

void stats_auto_stop(void)
{
    if (!atomic_load(&g_auto.running))
        return;
    pthread_mutex_lock(&g_auto.mu);
    g_auto.stop = true;
    pthread_cond_signal(&g_auto.cv);
    pthread_mutex_unlock(&g_auto.mu);
    pthread_join(g_auto.thread, NULL);
    atomic_store(&g_auto.running, false);
    for (uint32_t i = 0; i < g_auto.n; i++) {
        mem_free(g_auto.q[i].db);
        mem_free(g_auto.q[i].name);
    }
    g_auto.n = 0;
}

uint64_t stats_auto_count(void) { return atomic_load_explicit(&g_auto.done, memory_order_relaxed); }
