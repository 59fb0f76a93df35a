/*
 * The digest summary table (digest.h): shards of chained hash tables keyed by (schema, digest text), rows of
 * relaxed atomics, a latency histogram per row for the p95/p99 columns.
 *
 * Row life: created by the first statement of its digest (shard lock exclusive, a slot taken from `used`
 * first, so the table never holds more than `capacity` rows), updated by every later one (shard lock shared,
 * atomics), freed by TRUNCATE or shutdown (every shard lock exclusive, so no recorder still holds a pointer).
 * When no slot is left the statement goes to the lost row (static, atomics only) and `lost` counts it.
 *
 * Histogram: 4 buckets per power of two of microseconds (each about 19% wide), from 1 us to 2^40 us (12 days);
 * a quantile is the upper edge of the bucket where the cumulative count reaches it, capped by MAX_TIMER_WAIT.
 * With 160 uint32 buckets a row is about 1 KiB plus its text (at most what performance_schema_max_digest_length
 * lets the text grow to).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "monitor/digest.h"
#include "util/hash.h"
#include "util/util.h"

#define DIGEST_SHARDS 64
#define DIGEST_OCTAVES 40
#define DIGEST_BUCKETS (DIGEST_OCTAVES * 4)

const char *const digest_sum_names[DIGEST_NSUMS] = {
#define DIGEST_SUM_NAME(name) #name,
    DIGEST_SUMS(DIGEST_SUM_NAME)
#undef DIGEST_SUM_NAME
};

typedef struct row {
    _Atomic uint64_t count, sum_ps, min_ps, max_ps, first_us, last_us;
    _Atomic uint64_t sums[DIGEST_NSUMS];
    _Atomic uint32_t hist[DIGEST_BUCKETS];
} row_t;

typedef struct entry {
    struct entry *next;
    uint64_t hash;
    char *schema; /* NULL: none */
    char *text;
    size_t text_len;
    char digest[33];
    row_t row;
} entry_t;

typedef struct shard {
    pthread_rwlock_t lock;
    entry_t **slots;
    size_t nslots; /* a power of two */
} shard_t;

static shard_t shards[DIGEST_SHARDS];
static size_t capacity;
static atomic_size_t used;
static _Atomic uint64_t lost;
static row_t lost_row;
static bool ready;

/* Field by field: the lost row is reset by TRUNCATE while recorders may be adding to it. */
static void row_reset(row_t *r)
{
    atomic_store_explicit(&r->count, 0, memory_order_relaxed);
    atomic_store_explicit(&r->sum_ps, 0, memory_order_relaxed);
    atomic_store_explicit(&r->min_ps, UINT64_MAX, memory_order_relaxed);
    atomic_store_explicit(&r->max_ps, 0, memory_order_relaxed);
    atomic_store_explicit(&r->first_us, 0, memory_order_relaxed);
    atomic_store_explicit(&r->last_us, 0, memory_order_relaxed);
    for (int i = 0; i < DIGEST_NSUMS; i++)
        atomic_store_explicit(&r->sums[i], 0, memory_order_relaxed);
    for (int i = 0; i < DIGEST_BUCKETS; i++)
        atomic_store_explicit(&r->hist[i], 0, memory_order_relaxed);
}

void digest_init(size_t cap)
{
    capacity = cap;
    size_t per = cap / DIGEST_SHARDS * 2;
    size_t n = 16;
    while (n < per)
        n *= 2;
    for (int i = 0; i < DIGEST_SHARDS; i++) {
        pthread_rwlock_init(&shards[i].lock, NULL);
        shards[i].slots = mem_calloc(n, sizeof(entry_t *));
        shards[i].nslots = n;
    }
    row_reset(&lost_row);
    ready = true;
}

static void free_rows(void)
{
    for (int i = 0; i < DIGEST_SHARDS; i++) {
        shard_t *sh = &shards[i];
        for (size_t k = 0; k < sh->nslots; k++) {
            entry_t *e = sh->slots[k];
            while (e) {
                entry_t *next = e->next;
                mem_free(e->schema);
                mem_free(e->text);
                mem_free(e);
                e = next;
            }
            sh->slots[k] = NULL;
        }
    }
    atomic_store(&used, 0);
    row_reset(&lost_row);
}

void digest_shutdown(void)
{
    if (!ready)
        return;
    free_rows();
    for (int i = 0; i < DIGEST_SHARDS; i++) {
        mem_free(shards[i].slots);
        pthread_rwlock_destroy(&shards[i].lock);
    }
    ready = false;
}

static unsigned bucket_of(uint64_t us)
{
    if (us == 0)
        return 0;
    unsigned o = 63u - (unsigned)__builtin_clzll(us);
    unsigned sub = o >= 2 ? (unsigned)(us >> (o - 2)) & 3u : (unsigned)(us << (2 - o)) & 3u;
    unsigned b = o * 4 + sub;
    return b < DIGEST_BUCKETS ? b : DIGEST_BUCKETS - 1;
}

/* The upper edge of bucket b, in microseconds. */
static uint64_t bucket_top_us(unsigned b)
{
    unsigned o = b / 4, sub = b % 4;
    return ((uint64_t)(5 + sub) << o) / 4;
}

static void atomic_min(_Atomic uint64_t *p, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(p, memory_order_relaxed);
    while (v < cur && !atomic_compare_exchange_weak_explicit(p, &cur, v, memory_order_relaxed, memory_order_relaxed))
        ;
}

static void atomic_max(_Atomic uint64_t *p, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(p, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(p, &cur, v, memory_order_relaxed, memory_order_relaxed))
        ;
}

static void row_add(row_t *r, const digest_stmt_t *s)
{
    atomic_fetch_add_explicit(&r->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->sum_ps, s->timer_ps, memory_order_relaxed);
    atomic_min(&r->min_ps, s->timer_ps);
    atomic_max(&r->max_ps, s->timer_ps);
    for (int i = 0; i < DIGEST_NSUMS; i++)
        if (s->sums[i])
            atomic_fetch_add_explicit(&r->sums[i], s->sums[i], memory_order_relaxed);
    atomic_fetch_add_explicit(&r->hist[bucket_of(s->timer_ps / 1000000)], 1, memory_order_relaxed);
    uint64_t zero = 0;
    atomic_compare_exchange_strong_explicit(&r->first_us, &zero, s->now_us, memory_order_relaxed, memory_order_relaxed);
    atomic_max(&r->last_us, s->now_us);
}

static uint64_t key_hash(const digest_stmt_t *s)
{
    uint64_t h = hash_bytes(s->text, s->text_len);
    return s->schema ? h ^ (hash_str(s->schema) * 0x9E3779B97F4A7C15ull) : h;
}

static bool key_eq(const entry_t *e, uint64_t h, const digest_stmt_t *s)
{
    if (e->hash != h || e->text_len != s->text_len || memcmp(e->text, s->text, s->text_len) != 0)
        return false;
    if (!e->schema || !s->schema)
        return !e->schema && !s->schema;
    return strcmp(e->schema, s->schema) == 0;
}

static entry_t *find(shard_t *sh, uint64_t h, const digest_stmt_t *s)
{
    for (entry_t *e = sh->slots[(h >> 6) & (sh->nslots - 1)]; e; e = e->next)
        if (key_eq(e, h, s))
            return e;
    return NULL;
}

/* DIGEST: MD5 of the digest text, in hex (MariaDB's is MD5 of its token array: the values differ). */
static void digest_hex(const char *text, size_t n, char out[33])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_Digest(text, n, md, &mdlen, EVP_md5(), NULL);
    for (unsigned i = 0; i < 16 && i < mdlen; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    out[32] = 0;
}

void digest_record(const digest_stmt_t *s)
{
    if (!ready || capacity == 0)
        return;
    uint64_t h = key_hash(s);
    shard_t *sh = &shards[h & (DIGEST_SHARDS - 1)];
    pthread_rwlock_rdlock(&sh->lock);
    entry_t *e = find(sh, h, s);
    if (e) {
        row_add(&e->row, s);
        pthread_rwlock_unlock(&sh->lock);
        return;
    }
    pthread_rwlock_unlock(&sh->lock);
    pthread_rwlock_wrlock(&sh->lock);
    e = find(sh, h, s);
    if (!e) {
        if (atomic_fetch_add(&used, 1) + 1 >= capacity) { /* the lost row takes one of the capacity's slots */
            atomic_fetch_sub(&used, 1);
            pthread_rwlock_unlock(&sh->lock);
            atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
            row_add(&lost_row, s);
            return;
        }
        e = mem_calloc(1, sizeof *e);
        e->hash = h;
        e->schema = s->schema ? mem_strdup(s->schema) : NULL;
        e->text = mem_strndup(s->text, s->text_len);
        e->text_len = s->text_len;
        digest_hex(s->text, s->text_len, e->digest);
        row_reset(&e->row);
        size_t slot = (h >> 6) & (sh->nslots - 1);
        e->next = sh->slots[slot];
        sh->slots[slot] = e;
    }
    row_add(&e->row, s);
    pthread_rwlock_unlock(&sh->lock);
}

void digest_truncate(void)
{
    if (!ready)
        return;
    for (int i = 0; i < DIGEST_SHARDS; i++)
        pthread_rwlock_wrlock(&shards[i].lock);
    free_rows();
    for (int i = DIGEST_SHARDS - 1; i >= 0; i--)
        pthread_rwlock_unlock(&shards[i].lock);
}

static uint64_t quantile_ps(const row_t *r, uint64_t count, uint64_t max_ps, double q)
{
    uint64_t want = (uint64_t)((double)count * q + 0.999999), seen = 0;
    for (unsigned b = 0; b < DIGEST_BUCKETS; b++) {
        seen += atomic_load_explicit(&r->hist[b], memory_order_relaxed);
        if (seen >= want && seen > 0) {
            uint64_t ps = bucket_top_us(b) * 1000000;
            return ps < max_ps ? ps : max_ps;
        }
    }
    return max_ps;
}

static void row_read(const row_t *r, digest_row_t *out)
{
    out->count = atomic_load_explicit(&r->count, memory_order_relaxed);
    out->sum_ps = atomic_load_explicit(&r->sum_ps, memory_order_relaxed);
    out->min_ps = out->count ? atomic_load_explicit(&r->min_ps, memory_order_relaxed) : 0;
    out->max_ps = atomic_load_explicit(&r->max_ps, memory_order_relaxed);
    for (int i = 0; i < DIGEST_NSUMS; i++)
        out->sums[i] = atomic_load_explicit(&r->sums[i], memory_order_relaxed);
    out->p95_ps = quantile_ps(r, out->count, out->max_ps, 0.95);
    out->p99_ps = quantile_ps(r, out->count, out->max_ps, 0.99);
    out->first_seen_us = atomic_load_explicit(&r->first_us, memory_order_relaxed);
    out->last_seen_us = atomic_load_explicit(&r->last_us, memory_order_relaxed);
}

void digest_scan(void (*fn)(void *arg, const digest_row_t *r), void *arg)
{
    if (!ready)
        return;
    for (int i = 0; i < DIGEST_SHARDS; i++) {
        shard_t *sh = &shards[i];
        pthread_rwlock_rdlock(&sh->lock);
        for (size_t k = 0; k < sh->nslots; k++)
            for (entry_t *e = sh->slots[k]; e; e = e->next) {
                digest_row_t r = {.schema = e->schema, .digest = e->digest, .text = e->text};
                row_read(&e->row, &r);
                if (r.count)
                    fn(arg, &r);
            }
        pthread_rwlock_unlock(&sh->lock);
    }
    digest_row_t r = {0};
    row_read(&lost_row, &r);
    if (r.count)
        fn(arg, &r);
}

uint64_t digest_lost(void)
{
    return atomic_load_explicit(&lost, memory_order_relaxed);
}

size_t digest_used(void)
{
    return atomic_load(&used);
}
