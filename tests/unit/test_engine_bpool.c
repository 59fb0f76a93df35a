/* Unit tests for engine/page (format, CRC32C, verification) and engine/bpool (eviction, write-back, scan
 * resistance, concurrency) over a scratch file, with a pool much smaller than the data. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/bpool.h"
#include "engine/page.h"
#include "unit.h"
#include "util/util.h"

#define PS 16384u

typedef struct {
    int fd;
    uint64_t reads, writes;
} tio_t;

static int t_read(void *ctx, page_id_t id, uint8_t *buf)
{
    tio_t *t = ctx;
    __atomic_add_fetch(&t->reads, 1, __ATOMIC_RELAXED);
    ssize_t n = pread(t->fd, buf, PS, (off_t)page_id_pgno(id) * PS);
    if (n < 0)
        return -1;
    if (n < (ssize_t)PS)
        memset(buf + n, 0, PS - n);
    return 0;
}

static int t_write(void *ctx, page_id_t id, const uint8_t *buf)
{
    tio_t *t = ctx;
    __atomic_add_fetch(&t->writes, 1, __ATOMIC_RELAXED);
    return pwrite(t->fd, buf, PS, (off_t)page_id_pgno(id) * PS) == (ssize_t)PS ? 0 : -1;
}

static int scratch_fd(void)
{
    char path[] = "/tmp/strata_bpool_XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    return fd;
}

TEST(test_crc32c_known)
{
    /* RFC 3720 test vector: CRC32C("123456789") = 0xe3069283. */
    CHECK_EQ_INT(crc32c(0, "123456789", 9), 0xe3069283u);
    uint8_t z[32] = {0};
    CHECK_EQ_INT(crc32c(0, z, 32), 0x8a9136aau);
    /* Incremental == one shot. */
    CHECK_EQ_INT(crc32c(crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

TEST(test_page_verify)
{
    uint8_t *pg = mem_alloc(PS);
    memset(pg, 0, PS);
    CHECK_EQ_INT(page_verify(pg, PS, page_id_make(0, 0, 5), true), 0); /* zero page is valid */
    page_init(pg, PS, page_id_make(1, 2, 5), PAGE_TYPE_BTREE, 77);
    memcpy(pg + 100, "hello", 5);
    page_set_lsn(pg, 12345);
    page_seal(pg, PS);
    CHECK_EQ_INT(page_verify(pg, PS, page_id_make(1, 2, 5), true), 0);
    CHECK_EQ_INT(page_verify(pg, PS, page_id_make(1, 2, 6), true), STRATA_ECORRUPT); /* misdirected */
    pg[9000] ^= 1;
    CHECK_EQ_INT(page_verify(pg, PS, page_id_make(1, 2, 5), true), STRATA_ECORRUPT); /* bit flip */
    pg[9000] ^= 1;
    CHECK_EQ_INT(page_lsn(pg), 12345);
    CHECK_EQ_INT(page_owner(pg), 77);
    CHECK_EQ_INT(page_type(pg), PAGE_TYPE_BTREE);
    mem_free(pg);
}

/* Writes 8x more pages than the pool holds, then reads them all back. */
TEST(test_bpool_larger_than_pool)
{
    tio_t t = {.fd = scratch_fd()};
    bpool_io_t io = {.read = t_read, .write = t_write, .ctx = &t};
    bpool_t *bp = bpool_create(32, PS, &io);
    const uint32_t N = 256;
    for (uint32_t i = 0; i < N; i++) {
        bframe_t *f;
        REQUIRE(bpool_fix_new(bp, page_id_make(0, 0, i), &f) == 0);
        page_init(f->data, PS, page_id_make(0, 0, i), PAGE_TYPE_BTREE, 1);
        wr32(f->data + 64, i * 7919);
        bpool_set_dirty(bp, f);
        bpool_unfix(bp, f, LATCH_X);
    }
    bpool_stats_t st;
    bpool_stats(bp, &st);
    CHECK(st.evictions >= N - 32);
    CHECK(t.writes >= N - 32);
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t i = 0; i < N; i++) {
            bframe_t *f;
            REQUIRE(bpool_fix(bp, page_id_make(0, 0, i), LATCH_S, &f) == 0);
            CHECK_EQ_INT(rd32(f->data + 64), i * 7919);
            bpool_unfix(bp, f, LATCH_S);
        }
    CHECK_EQ_INT(bpool_flush_all(bp), 0);
    bpool_stats(bp, &st);
    CHECK_EQ_INT(st.dirty, 0);
    /* A corrupted page on disk is refused. */
    bpool_destroy(bp);
    uint8_t b = 0x55;
    REQUIRE(pwrite(t.fd, &b, 1, 3 * PS + 5000) == 1);
    bp = bpool_create(32, PS, &io);
    bframe_t *f;
    CHECK_EQ_INT(bpool_fix(bp, page_id_make(0, 0, 3), LATCH_S, &f), STRATA_ECORRUPT);
    CHECK_EQ_INT(bpool_fix(bp, page_id_make(0, 0, 4), LATCH_S, &f), 0);
    bpool_unfix(bp, f, LATCH_S);
    /* In recovery mode the torn page comes back zeroed and flagged. */
    bpool_set_recovery(bp, true);
    REQUIRE(bpool_fix(bp, page_id_make(0, 0, 3), LATCH_X, &f) == 0);
    CHECK(f->was_bad);
    CHECK(page_is_zero(f->data, PS));
    bpool_unfix(bp, f, LATCH_X);
    bpool_destroy(bp);
    close(t.fd);
}

/* A hot set touched twice (with the old-time window passed) survives a scan of 10x the pool. */
TEST(test_bpool_scan_resistance)
{
    tio_t t = {.fd = scratch_fd()};
    bpool_io_t io = {.read = t_read, .write = t_write, .ctx = &t};
    bpool_t *bp = bpool_create(64, PS, &io);
    bpool_set_old_time(bp, 2000);
    const uint32_t HOT = 16;
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < HOT; i++) {
            bframe_t *f;
            REQUIRE(bpool_fix(bp, page_id_make(0, 0, i), LATCH_S, &f) == 0);
            bpool_unfix(bp, f, LATCH_S);
        }
        usleep(5000);
    }
    for (uint32_t i = 1000; i < 1640; i++) {
        bframe_t *f;
        REQUIRE(bpool_fix(bp, page_id_make(0, 0, i), LATCH_S, &f) == 0);
        bpool_unfix(bp, f, LATCH_S);
    }
    uint32_t resident = 0;
    for (uint32_t i = 0; i < HOT; i++)
        resident += bpool_contains(bp, page_id_make(0, 0, i));
    CHECK_EQ_INT(resident, HOT);
    bpool_destroy(bp);
    close(t.fd);
}

typedef struct {
    bpool_t *bp;
    unsigned seed;
    int errors;
    uint32_t npages, iters;
    uint32_t *increments; /* what the pages must count at the end: catches a page cached twice */
    bool skewed;          /* half the fixes go to the first eighth of the pages */
} worker_t;

static uint32_t increments[200];

/* Each page holds a counter in two places; writers bump both under X, readers check they agree under S. */
static void *worker(void *arg)
{
    worker_t *w = arg;
    for (uint32_t i = 0; i < w->iters; i++) {
        uint32_t range = w->skewed && rand_r(&w->seed) % 2 ? w->npages / 8 : w->npages;
        uint32_t pg = rand_r(&w->seed) % range;
        bool wr = rand_r(&w->seed) % 4 == 0;
        bframe_t *f;
        if (bpool_fix(w->bp, page_id_make(0, 0, pg), wr ? LATCH_X : LATCH_S, &f)) {
            w->errors++;
            continue;
        }
        if (page_is_zero(f->data, PS) && wr)
            page_init(f->data, PS, page_id_make(0, 0, pg), PAGE_TYPE_BTREE, 0);
        if (rd32(f->data + 100) != rd32(f->data + 8000))
            w->errors++;
        if (wr) {
            wr32(f->data + 100, rd32(f->data + 100) + 1);
            wr32(f->data + 8000, rd32(f->data + 8000) + 1);
            __atomic_add_fetch(&w->increments[pg], 1, __ATOMIC_RELAXED);
            bpool_set_dirty(w->bp, f);
        }
        bpool_unfix(w->bp, f, wr ? LATCH_X : LATCH_S);
    }
    return NULL;
}

/* Runs nt workers over the first npages pages of bp, then checks every page's counter: 0 or the first error. */
static int run_workers(bpool_t *bp, int nt, uint32_t npages, uint32_t iters, bool skewed, uint32_t *counts)
{
    pthread_t th[16];
    worker_t w[16];
    int bad = 0;
    for (int i = 0; i < nt; i++) {
        w[i] = (worker_t){.bp = bp, .seed = (unsigned)i * 31 + 1, .npages = npages, .iters = iters,
                          .increments = counts, .skewed = skewed};
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    for (int i = 0; i < nt; i++) {
        pthread_join(th[i], NULL);
        bad += w[i].errors;
    }
    for (uint32_t pg = 0; pg < npages; pg++) {
        bframe_t *f;
        if (bpool_fix(bp, page_id_make(0, 0, pg), LATCH_S, &f))
            return -1;
        bad += rd32(f->data + 100) != counts[pg];
        bpool_unfix(bp, f, LATCH_S);
    }
    return bad;
}

TEST(test_bpool_threads)
{
    tio_t t = {.fd = scratch_fd()};
    bpool_io_t io = {.read = t_read, .write = t_write, .ctx = &t};
    bpool_t *bp = bpool_create(25, PS, &io);
    CHECK_EQ_INT(run_workers(bp, 4, 200, 4000, false, increments), 0);
    bpool_destroy(bp);
    close(t.fd);
}

/* A pool of 1,024 frames is cut into partitions; eight threads fix, change and unfix pages of a set 4x the pool
 * (so every partition evicts all the time, writing dirty victims back) and each page's two counters must agree
 * and add up at the end: no page is ever cached twice, no change lost, across partitions. */
#define PART_PAGES 4096
static uint32_t part_increments[PART_PAGES];

TEST(test_bpool_partitions_threads)
{
    tio_t t = {.fd = scratch_fd()};
    bpool_io_t io = {.read = t_read, .write = t_write, .ctx = &t};
    bpool_t *bp = bpool_create(1024, PS, &io);
    bpool_stats_t st;
    bpool_stats(bp, &st);
    CHECK(st.partitions > 1);
    CHECK_EQ_INT(run_workers(bp, 8, PART_PAGES, 6000, true, part_increments), 0);
    bpool_stats(bp, &st);
    CHECK(st.evictions > 0);
    CHECK_EQ_INT(st.free_frames + st.young + st.old, 1024); /* every frame in exactly one list of one partition */
    CHECK_EQ_INT(bpool_flush_all(bp), 0);
    bpool_stats(bp, &st);
    CHECK_EQ_INT(st.dirty, 0);
    bpool_destroy(bp);
    close(t.fd);
}

/* Pages hash unevenly to partitions, so pinning every frame of the pool at once needs partitions that ran full to
 * take frames from the others: all 256 fixes succeed, the 257th finds no frame, and after unfixing a page of any
 * partition a new page can come in again. */
TEST(test_bpool_partition_steals_when_pinned)
{
    tio_t t = {.fd = scratch_fd()};
    bpool_io_t io = {.read = t_read, .write = t_write, .ctx = &t};
    bpool_t *bp = bpool_create(256, PS, &io);
    bpool_stats_t st;
    bpool_stats(bp, &st);
    REQUIRE(st.partitions == 4);
    bframe_t *held[256];
    for (uint32_t i = 0; i < 256; i++)
        REQUIRE(bpool_fix(bp, page_id_make(0, 0, i), LATCH_S, &held[i]) == 0);
    bpool_stats(bp, &st);
    CHECK(st.steals > 0);
    CHECK_EQ_INT(st.free_frames, 0);
    bframe_t *f;
    CHECK_EQ_INT(bpool_fix(bp, page_id_make(0, 0, 999), LATCH_S, &f), STRATA_ENOMEM);
    bpool_unfix(bp, held[17], LATCH_S);
    REQUIRE(bpool_fix(bp, page_id_make(0, 0, 999), LATCH_S, &f) == 0);
    CHECK(!bpool_contains(bp, page_id_make(0, 0, 17)));
    bpool_unfix(bp, f, LATCH_S);
    for (uint32_t i = 0; i < 256; i++)
        if (i != 17)
            bpool_unfix(bp, held[i], LATCH_S);
    for (uint32_t i = 0; i < 256; i++) { /* each page still cached once: re-fixing finds it or reads it */
        REQUIRE(bpool_fix(bp, page_id_make(0, 0, i), LATCH_S, &f) == 0);
        bpool_unfix(bp, f, LATCH_S);
    }
    bpool_stats(bp, &st);
    CHECK_EQ_INT(st.free_frames + st.young + st.old, 256);
    bpool_destroy(bp);
    close(t.fd);
}

UNIT_MAIN(test_crc32c_known, test_page_verify, test_bpool_larger_than_pool, test_bpool_scan_resistance,
          test_bpool_threads, test_bpool_partitions_threads, test_bpool_partition_steals_when_pinned)
