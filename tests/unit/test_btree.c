/* Unit tests for engine/btree: randomised inserts, updates, puts, deletes, gets and cursor moves checked against
 * a reference model (a sorted array), with overflow values and a buffer pool much smaller than the data; page
 * reuse after deleting everything; concurrent readers and writers on one tree. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/btree.h"
#include "engine/engine.h"
#include "unit.h"
#include "util/util.h"

#define PS 16384u

typedef struct {
    char dir[64];
    fsys_t *fs;
    bpool_t *bp;
    redo_t *redo;
} env_t;

static void wal(void *ctx, uint64_t lsn) { redo_flush(ctx, lsn, true); }

static int env_open(env_t *v, uint32_t frames)
{
    strcpy(v->dir, "/tmp/strata_bt_XXXXXX");
    if (!mkdtemp(v->dir))
        return -1;
    int rc = fsys_open(v->dir, PS, true, 4u << 20, 64, false, &v->fs);
    if (rc)
        return rc;
    char path[128];
    snprintf(path, sizeof path, "%s/redo.log", v->dir);
    if ((rc = redo_open(path, 64u << 20, PS, true, false, &v->redo)))
        return rc;
    uint64_t user[REDO_USER_WORDS] = {0};
    if ((rc = redo_start(v->redo, redo_last_ckpt(v->redo)->ckpt_lsn, user)))
        return rc;
    bpool_io_t io = {.read = fsys_page_read, .write = fsys_page_write, .wal = wal, .ctx = v->fs, .wal_ctx = v->redo};
    v->bp = bpool_create(frames, PS, &io);
    fsys_attach(v->fs, v->bp, v->redo);
    return fsys_load(v->fs);
}

static void env_ckpt(env_t *v)
{
    if (redo_used(v->redo) < (16u << 20))
        return;
    uint64_t lsn = redo_ckpt_begin(v->redo);
    bpool_flush_all(v->bp);
    fsys_sync_all(v->fs);
    uint64_t user[REDO_USER_WORDS] = {0};
    redo_ckpt_end(v->redo, lsn, lsn, user);
}

static void env_close(env_t *v)
{
    bpool_destroy(v->bp);
    redo_close(v->redo);
    fsys_close(v->fs);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", v->dir);
    if (system(cmd)) {
    }
}

static btree_t *make_tree(env_t *v, uint32_t space, uint64_t id)
{
    mtr_t m;
    page_id_t root;
    mtr_start(&m, v->bp, v->redo);
    int rc = btree_create(v->fs, &m, space, id, &root);
    mtr_commit(&m);
    return rc ? NULL : btree_handle(v->fs, v->bp, v->redo, id, root);
}

/* ---- reference model: sorted array of (key, value) ---- */
typedef struct {
    char *k;
    size_t kl;
    uint8_t *v;
    size_t vl;
} kv_t;
typedef struct {
    kv_t *a;
    size_t n, cap;
} model_t;

static int kcmp(const void *a, size_t al, const void *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (al < bl ? -1 : al > bl);
}

static size_t m_lb(model_t *m, const char *k, size_t kl, bool *exact)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (kcmp(m->a[mid].k, m->a[mid].kl, k, kl) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *exact = lo < m->n && kcmp(m->a[lo].k, m->a[lo].kl, k, kl) == 0;
    return lo;
}

static void m_put(model_t *m, const char *k, size_t kl, const uint8_t *v, size_t vl)
{
    bool ex;
    size_t i = m_lb(m, k, kl, &ex);
    if (ex) {
        free(m->a[i].v);
    } else {
        if (m->n == m->cap) {
            m->cap = m->cap ? m->cap * 2 : 64;
            m->a = realloc(m->a, m->cap * sizeof(kv_t));
        }
        memmove(&m->a[i + 1], &m->a[i], (m->n - i) * sizeof(kv_t));
        m->n++;
        m->a[i].k = malloc(kl);
        memcpy(m->a[i].k, k, kl);
        m->a[i].kl = kl;
    }
    m->a[i].v = malloc(vl ? vl : 1);
    memcpy(m->a[i].v, v, vl);
    m->a[i].vl = vl;
}

static void m_del(model_t *m, size_t i)
{
    free(m->a[i].k);
    free(m->a[i].v);
    memmove(&m->a[i], &m->a[i + 1], (m->n - i - 1) * sizeof(kv_t));
    m->n--;
}

static void m_free(model_t *m)
{
    while (m->n)
        m_del(m, m->n - 1);
    free(m->a);
}

static size_t gen_key(char *k, unsigned x)
{
    /* Variable-length keys that share prefixes. */
    return (size_t)sprintf(k, "key%0*u", (int)(x % 7) + 1, x);
}

static size_t gen_val(uint8_t *v, unsigned seed, size_t maxlen)
{
    size_t len = seed % 10 == 0 ? 5000 + seed % 40000 : seed % 300;
    if (len > maxlen)
        len = maxlen;
    for (size_t i = 0; i < len; i++)
        v[i] = (uint8_t)(seed * 131 + i * 7);
    return len;
}

static int full_scan_matches(btree_t *t, model_t *m)
{
    btree_cur_t c;
    btree_cur_init(&c, t);
    size_t i = 0;
    int bad = 0;
    int rc = btree_cur_seek(&c, NULL, 0, BT_FIRST);
    while (rc == 0) {
        if (i >= m->n || kcmp(c.key.data, c.key.len, m->a[i].k, m->a[i].kl) ||
            c.val.len != m->a[i].vl || memcmp(c.val.data, m->a[i].v, c.val.len)) {
            bad++;
            break;
        }
        i++;
        rc = btree_cur_next(&c);
    }
    if (rc != STRATA_ENOTFOUND || i != m->n)
        bad++;
    /* Backwards too. */
    i = m->n;
    rc = btree_cur_seek(&c, NULL, 0, BT_LAST);
    while (rc == 0) {
        if (i == 0 || kcmp(c.key.data, c.key.len, m->a[i - 1].k, m->a[i - 1].kl)) {
            bad++;
            break;
        }
        i--;
        rc = btree_cur_prev(&c);
    }
    if (i != 0)
        bad++;
    btree_cur_free(&c);
    return bad;
}

TEST(test_btree_random_vs_model)
{
    env_t v;
    REQUIRE(env_open(&v, 96) == 0); /* 1.5 MiB pool; the data grows to several times that */
    btree_t *t = make_tree(&v, SPACE_SYSTEM, 100);
    REQUIRE(t);
    model_t m = {0};
    uint8_t *val = malloc(50000);
    buf_t got, old;
    buf_init(&got);
    buf_init(&old);
    unsigned seed = 12345;
    char key[32];
    int mismatches = 0;
    const int OPS = 30000;
    for (int op = 0; op < OPS; op++) {
        unsigned r = (unsigned)rand_r(&seed);
        size_t kl = gen_key(key, r % 4000);
        int kind = (int)((unsigned)rand_r(&seed) % 100);
        /* Grow for the first half, then shrink. */
        if (op > OPS / 2 && kind < 50)
            kind += 50;
        bool ex;
        size_t mi = m_lb(&m, key, kl, &ex);
        if (kind < 35) {
            size_t vl = gen_val(val, (unsigned)rand_r(&seed), 50000);
            int rc = btree_write(t, NULL, BT_INSERT, key, kl, val, vl, 1, NULL, NULL, NULL);
            if (ex)
                mismatches += rc != ENGINE_EDUPKEY;
            else {
                mismatches += rc != 0;
                m_put(&m, key, kl, val, vl);
            }
        } else if (kind < 45) {
            size_t vl = gen_val(val, (unsigned)rand_r(&seed), 50000);
            bool existed;
            int rc = btree_write(t, NULL, BT_PUT, key, kl, val, vl, 2, &old, &existed, NULL);
            mismatches += rc != 0 || existed != ex;
            if (ex)
                mismatches += old.len != m.a[mi].vl || memcmp(old.data, m.a[mi].v, old.len);
            m_put(&m, key, kl, val, vl);
        } else if (kind < 55) {
            size_t vl = gen_val(val, (unsigned)rand_r(&seed), 50000);
            int rc = btree_write(t, NULL, BT_UPDATE, key, kl, val, vl, 3, NULL, NULL, NULL);
            mismatches += rc != (ex ? 0 : STRATA_ENOTFOUND);
            if (ex)
                m_put(&m, key, kl, val, vl);
        } else if (kind < 85) {
            int rc = btree_delete(t, NULL, key, kl, &old, NULL, BT_DEL_PHYSICAL, 0);
            mismatches += rc != (ex ? 0 : STRATA_ENOTFOUND);
            if (ex) {
                mismatches += old.len != m.a[mi].vl || memcmp(old.data, m.a[mi].v, old.len);
                m_del(&m, mi);
            }
        } else if (kind < 95) {
            int rc = btree_get(t, key, kl, &got);
            mismatches += rc != (ex ? 0 : STRATA_ENOTFOUND);
            if (ex && rc == 0)
                mismatches += got.len != m.a[mi].vl || memcmp(got.data, m.a[mi].v, got.len);
        } else {
            /* Seeks in all four directions. */
            btree_cur_t c;
            btree_cur_init(&c, t);
            for (int how = BT_GE; how <= BT_LT; how++) {
                int rc = btree_cur_seek(&c, key, kl, (bt_seek_t)how);
                long want;
                if (how == BT_GE)
                    want = (long)mi;
                else if (how == BT_GT)
                    want = (long)mi + (ex ? 1 : 0);
                else if (how == BT_LE)
                    want = ex ? (long)mi : (long)mi - 1;
                else
                    want = (long)mi - 1;
                if (want < 0 || want >= (long)m.n)
                    mismatches += rc != STRATA_ENOTFOUND;
                else
                    mismatches += rc != 0 || kcmp(c.key.data, c.key.len, m.a[want].k, m.a[want].kl) != 0;
            }
            btree_cur_free(&c);
        }
        if (op % 5000 == 4999) {
            mismatches += full_scan_matches(t, &m);
            uint64_t pages, rows;
            CHECK_EQ_INT(btree_verify(t, &pages, &rows), 0);
            CHECK_EQ_INT(rows, m.n);
            CHECK_EQ_INT((uint64_t)seg_used_pages(v.fs, 100, NULL), pages);
        }
        env_ckpt(&v);
    }
    CHECK_EQ_INT(mismatches, 0);
    bpool_stats_t st;
    bpool_stats(v.bp, &st);
    CHECK(st.evictions > 1000); /* the data really did not fit */

    /* Delete everything: the tree shrinks back to its root page and the extents return. */
    while (m.n) {
        REQUIRE(btree_delete(t, NULL, m.a[m.n - 1].k, m.a[m.n - 1].kl, NULL, NULL, BT_DEL_PHYSICAL, 0) == 0);
        m_del(&m, m.n - 1);
        env_ckpt(&v);
    }
    uint32_t ext;
    CHECK_EQ_INT(seg_used_pages(v.fs, 100, &ext), 1);
    CHECK_EQ_INT(ext, 1);
    CHECK_EQ_INT(btree_height(t), 1);
    CHECK_EQ_INT(btree_verify(t, NULL, NULL), 0);
    btree_handle_free(t);
    m_free(&m);
    free(val);
    buf_free(&got);
    buf_free(&old);
    env_close(&v);
}

/* Fill a small fixed tablespace until ENGINE_EFULL, delete all rows, then a second tree can grow there. */
TEST(test_btree_table_full_and_reuse)
{
    env_t v;
    REQUIRE(env_open(&v, 64) == 0);
    uint32_t sp;
    REQUIRE(fsys_space_create(v.fs, "small", "small.dat", 4u << 20, 1u << 20, 0, false, &sp) == 0);
    btree_t *t1 = make_tree(&v, sp, 201);
    REQUIRE(t1);
    uint8_t val[1000];
    memset(val, 'x', sizeof val);
    char key[32];
    int n = 0, rc;
    while ((rc = btree_write(t1, NULL, BT_INSERT, key, gen_key(key, (unsigned)n), val, sizeof val, 1, NULL, NULL, NULL)) == 0)
        n++;
    CHECK_EQ_INT(rc, ENGINE_EFULL);
    CHECK(n > 1400); /* 3 extents of 1 MiB: 192 pages of ~15 rows of 1 KB, split pages half full or more */
    printf("table full after %d rows\n", n);
    CHECK_EQ_INT(btree_verify(t1, NULL, NULL), 0);
    /* The tree is intact after the failure: every row is there. */
    buf_t got;
    buf_init(&got);
    for (int i = 0; i < n; i += 97)
        CHECK_EQ_INT(btree_get(t1, key, gen_key(key, (unsigned)i), &got), 0);
    /* A second tree cannot start. */
    mtr_t m;
    page_id_t root;
    mtr_start(&m, v.bp, v.redo);
    CHECK_EQ_INT(btree_create(v.fs, &m, sp, 202, &root), ENGINE_EFULL);
    mtr_commit(&m);
    for (int i = 0; i < n; i++) {
        REQUIRE(btree_delete(t1, NULL, key, gen_key(key, (unsigned)i), NULL, NULL, BT_DEL_PHYSICAL, 0) == 0);
        env_ckpt(&v);
    }
    uint32_t ext;
    CHECK_EQ_INT(seg_used_pages(v.fs, 201, &ext), 1);
    CHECK_EQ_INT(ext, 1);
    btree_t *t2 = make_tree(&v, sp, 202);
    REQUIRE(t2);
    int n2 = 0;
    while ((rc = btree_write(t2, NULL, BT_INSERT, key, gen_key(key, (unsigned)n2), val, sizeof val, 1, NULL, NULL, NULL)) ==
           0)
        n2++;
    CHECK_EQ_INT(rc, ENGINE_EFULL);
    CHECK(n2 > n / 2); /* t2 got the two extents t1 gave back */
    CHECK_EQ_INT(btree_verify(t2, NULL, NULL), 0);
    buf_free(&got);
    btree_handle_free(t1);
    btree_handle_free(t2);
    env_close(&v);
}

typedef struct {
    btree_t *t;
    int id;
    int errors;
    unsigned seed;
} thr_t;

/* Writers own disjoint key ranges (key % 4 == id) so each knows what it must read back; readers scan. */
static void *writer(void *arg)
{
    thr_t *w = arg;
    char key[32];
    uint8_t val[600];
    buf_t got;
    buf_init(&got);
    for (int i = 0; i < 3000; i++) {
        unsigned x = ((unsigned)rand_r(&w->seed) % 2000) * 4 + (unsigned)w->id;
        size_t kl = gen_key(key, x);
        size_t vl = (size_t)(rand_r(&w->seed) % 600);
        memset(val, (int)(x & 0xff), vl);
        if (rand_r(&w->seed) % 3 == 0) {
            int rc = btree_delete(w->t, NULL, key, kl, NULL, NULL, BT_DEL_PHYSICAL, 0);
            w->errors += rc != 0 && rc != STRATA_ENOTFOUND;
        } else {
            w->errors += btree_write(w->t, NULL, BT_PUT, key, kl, val, vl, 1, NULL, NULL, NULL) != 0;
            int rc = btree_get(w->t, key, kl, &got);
            w->errors += rc != 0 || got.len != vl || (vl && got.data[0] != (uint8_t)(x & 0xff));
        }
    }
    buf_free(&got);
    return NULL;
}

static void *reader(void *arg)
{
    thr_t *w = arg;
    for (int i = 0; i < 30; i++) {
        btree_cur_t c;
        btree_cur_init(&c, w->t);
        buf_t prev;
        buf_init(&prev);
        int rc = btree_cur_seek(&c, NULL, 0, BT_FIRST);
        while (rc == 0) {
            if (prev.len && kcmp(prev.data, prev.len, c.key.data, c.key.len) >= 0)
                w->errors++;
            buf_reset(&prev);
            buf_append(&prev, c.key.data, c.key.len);
            rc = btree_cur_next(&c);
        }
        w->errors += rc != STRATA_ENOTFOUND;
        buf_free(&prev);
        btree_cur_free(&c);
    }
    return NULL;
}

TEST(test_btree_concurrent)
{
    env_t v;
    REQUIRE(env_open(&v, 128) == 0);
    btree_t *t = make_tree(&v, SPACE_SYSTEM, 300);
    REQUIRE(t);
    pthread_t th[6];
    thr_t w[6];
    for (int i = 0; i < 6; i++) {
        w[i] = (thr_t){.t = t, .id = i % 4, .seed = (unsigned)i * 7 + 3};
        pthread_create(&th[i], NULL, i < 4 ? writer : reader, &w[i]);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(w[i].errors, 0);
    }
    uint64_t pages, rows;
    CHECK_EQ_INT(btree_verify(t, &pages, &rows), 0);
    CHECK((uint64_t)seg_used_pages(v.fs, 300, NULL) == pages);
    btree_handle_free(t);
    env_close(&v);
}

TEST(test_btree_limits)
{
    env_t v;
    REQUIRE(env_open(&v, 64) == 0);
    btree_t *t = make_tree(&v, SPACE_SYSTEM, 400);
    REQUIRE(t);
    char big[4000];
    memset(big, 'k', sizeof big);
    CHECK_EQ_INT(btree_write(t, NULL, BT_INSERT, big, 3073, "v", 1, 1, NULL, NULL, NULL), ENGINE_EINVAL);
    CHECK_EQ_INT(btree_write(t, NULL, BT_INSERT, big, 3072, "v", 1, 1, NULL, NULL, NULL), 0);
    /* Many max-length keys force internal splits with big separators. */
    for (int i = 0; i < 300; i++) {
        big[0] = (char)('a' + i % 26);
        big[1] = (char)('a' + i / 26);
        CHECK_EQ_INT(btree_write(t, NULL, BT_PUT, big, 3072, big, 100, 1, NULL, NULL, NULL), 0);
    }
    /* An empty key and empty value. */
    CHECK_EQ_INT(btree_write(t, NULL, BT_INSERT, "", 0, "", 0, 1, NULL, NULL, NULL), 0);
    buf_t got;
    buf_init(&got);
    CHECK_EQ_INT(btree_get(t, "", 0, &got), 0);
    CHECK_EQ_INT(got.len, 0);
    /* A 3 MB value. */
    uint8_t *huge = malloc(3u << 20);
    for (size_t i = 0; i < (3u << 20); i++)
        huge[i] = (uint8_t)(i * 31);
    CHECK_EQ_INT(btree_write(t, NULL, BT_INSERT, "huge", 4, huge, 3u << 20, 1, NULL, NULL, NULL), 0);
    CHECK_EQ_INT(btree_get(t, "huge", 4, &got), 0);
    CHECK(got.len == (3u << 20) && memcmp(got.data, huge, got.len) == 0);
    int64_t before = seg_used_pages(v.fs, 400, NULL);
    CHECK_EQ_INT(btree_delete(t, NULL, "huge", 4, NULL, NULL, BT_DEL_PHYSICAL, 0), 0);
    CHECK(seg_used_pages(v.fs, 400, NULL) < before - 180);
    CHECK_EQ_INT(btree_verify(t, NULL, NULL), 0);
    free(huge);
    buf_free(&got);
    btree_handle_free(t);
    env_close(&v);
}

/* Ascending keys fill leaves completely (the append split), so a sequential load uses few pages. */
TEST(test_btree_sequential_fill)
{
    env_t v;
    REQUIRE(env_open(&v, 64) == 0);
    btree_t *t = make_tree(&v, SPACE_SYSTEM, 500);
    REQUIRE(t);
    uint8_t val[100];
    memset(val, 1, sizeof val);
    char key[32];
    for (int i = 0; i < 20000; i++) {
        REQUIRE(btree_write(t, NULL, BT_INSERT, key, (size_t)sprintf(key, "%08d", i), val, sizeof val, 1, NULL, NULL,
                            NULL) == 0);
        env_ckpt(&v);
    }
    uint64_t pages, rows;
    CHECK_EQ_INT(btree_verify(t, &pages, &rows), 0);
    CHECK_EQ_INT(rows, 20000);
    /* 20000 cells of 126 bytes + slot: 16320 usable bytes hold 127 per leaf -> 158 leaves, plus internal pages. */
    CHECK(pages < 170);
    printf("sequential load: %llu pages for 20000 rows\n", (unsigned long long)pages);
    btree_handle_free(t);
    env_close(&v);
}

UNIT_MAIN(test_btree_random_vs_model, test_btree_sequential_fill, test_btree_table_full_and_reuse, test_btree_concurrent, test_btree_limits)
