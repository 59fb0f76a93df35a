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
    if (!rc) {
        encode(&rec, &e);
        rc = catalog_aux_put(c, CAT_AUX_STATS, t->id, rec.data, rec.len);
    }
    buf_free(&rec);
    if (rc) {
        entry_clear(&e);
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    cache_put(&e);
    pthread_mutex_unlock(&g_lock);
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
