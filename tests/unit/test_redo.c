/* Unit tests for engine/redo: group commit under concurrent committers (fewer syncs than commits, every waiter
 * covered), the recovery scan returning exactly what was appended, a torn tail ending the log, the circular area
 * wrapping many times under checkpoints, and checkpoint-slot fallback when the newest slot is torn. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/page.h"
#include "engine/redo.h"
#include "unit.h"
#include "util/util.h"

static void tmpfile_path(char *p)
{
    strcpy(p, "/tmp/strata_redo_XXXXXX");
    int fd = mkstemp(p);
    close(fd);
    unlink(p);
}

static redo_t *open_started(const char *path, uint64_t cap)
{
    redo_t *r;
    if (redo_open(path, cap, 16384, true, false, &r))
        return NULL;
    uint64_t user[REDO_USER_WORDS] = {0}, end;
    /* an empty scan, as recovery would do */
    redo_scan(r, NULL, NULL, &end);
    if (redo_start(r, end, user)) {
        redo_close(r);
        return NULL;
    }
    return r;
}

static void body_of(uint8_t *b, size_t len, uint32_t seq)
{
    for (size_t i = 0; i < len; i++)
        b[i] = (uint8_t)(seq * 31 + i);
}

typedef struct {
    redo_t *r;
    int n, errors;
    unsigned seed;
} gc_t;

static void *committer(void *arg)
{
    gc_t *g = arg;
    uint8_t body[300];
    for (int i = 0; i < g->n; i++) {
        size_t len = 20 + (size_t)rand_r(&g->seed) % 280;
        body_of(body, len, (uint32_t)i);
        uint64_t lsn = redo_append(g->r, body, len, redo_fpi_horizon(g->r));
        if (!lsn || redo_flush(g->r, lsn, true) || redo_flushed_lsn(g->r) < lsn)
            g->errors++;
    }
    return NULL;
}

TEST(test_redo_group_commit)
{
    char path[64];
    tmpfile_path(path);
    redo_t *r = open_started(path, 8u << 20);
    REQUIRE(r);
    enum { T = 8, N = 300 };
    pthread_t th[T];
    gc_t g[T];
    for (int i = 0; i < T; i++) {
        g[i] = (gc_t){.r = r, .n = N, .seed = (unsigned)i + 1};
        pthread_create(&th[i], NULL, committer, &g[i]);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(g[i].errors, 0);
    }
    redo_stats_t st;
    redo_stats(r, &st);
    printf("group commit: %d commits, %llu fdatasyncs, %llu waits\n", T * N, (unsigned long long)st.syncs,
           (unsigned long long)st.waits);
    CHECK_EQ_INT(st.groups, T * N);
    CHECK(st.syncs < (uint64_t)T * N); /* commits shared syncs */
    CHECK(st.syncs > 0);
    CHECK_EQ_INT(redo_flushed_lsn(r), redo_current_lsn(r));
    redo_close(r);
    unlink(path);
}

typedef struct {
    uint32_t n;
    int bad;
    uint64_t last_end;
} scan_t;

static int scan_cb(void *ctx, uint64_t start, uint64_t end, const uint8_t *body, size_t len)
{
    scan_t *s = ctx;
    uint8_t want[2000];
    size_t wl = 10 + (s->n * 37) % 1500;
    body_of(want, wl, s->n);
    if (len != wl || memcmp(body, want, len) || (s->last_end && start != s->last_end))
        s->bad++;
    s->last_end = end;
    s->n++;
    return 0;
}

static uint64_t append_seq(redo_t *r, uint32_t from, uint32_t count)
{
    uint8_t b[2000];
    uint64_t lsn = 0;
    for (uint32_t i = from; i < from + count; i++) {
        size_t len = 10 + (i * 37) % 1500;
        body_of(b, len, i);
        lsn = redo_append(r, b, len, redo_fpi_horizon(r));
    }
    return lsn;
}

TEST(test_redo_scan_and_torn_tail)
{
    char path[64];
    tmpfile_path(path);
    redo_t *r = open_started(path, 4u << 20);
    REQUIRE(r);
    uint64_t end = append_seq(r, 0, 1000);
    REQUIRE(redo_flush(r, end, true) == 0);
    redo_close(r);
    REQUIRE(redo_open(path, 0, 16384, true, false, &r) == 0);
    scan_t s = {0};
    uint64_t got_end;
    REQUIRE(redo_scan(r, scan_cb, &s, &got_end) == 0);
    CHECK_EQ_INT(s.n, 1000);
    CHECK_EQ_INT(s.bad, 0);
    CHECK_EQ_INT(got_end, end);
    redo_close(r);
    /* Tear the last group: flip a byte in the middle of it. */
    int fd = open(path, O_RDWR);
    uint64_t last_start = s.last_end - (10 + (999 * 37) % 1500) - REDO_GROUP_HDR;
    off_t off = (off_t)(12288 + (last_start + 40) % (4u << 20));
    uint8_t x;
    REQUIRE(pread(fd, &x, 1, off) == 1);
    x ^= 0xff;
    REQUIRE(pwrite(fd, &x, 1, off) == 1);
    close(fd);
    REQUIRE(redo_open(path, 0, 16384, true, false, &r) == 0);
    s = (scan_t){0};
    REQUIRE(redo_scan(r, scan_cb, &s, &got_end) == 0);
    CHECK_EQ_INT(s.n, 999);
    CHECK_EQ_INT(got_end, last_start);
    redo_close(r);
    unlink(path);
}

static int count_cb(void *ctx, uint64_t start, uint64_t end, const uint8_t *body, size_t len)
{
    (*(uint32_t *)ctx)++;
    return 0;
}

TEST(test_redo_wrap_and_checkpoints)
{
    char path[64];
    tmpfile_path(path);
    redo_t *r = open_started(path, 1u << 20); /* 1 MiB: wraps every ~1300 groups here */
    REQUIRE(r);
    uint64_t user[REDO_USER_WORDS] = {42, 0, 0, 0};
    uint32_t seq = 0;
    for (int round = 0; round < 40; round++) {
        append_seq(r, seq, 200);
        seq += 200;
        uint64_t ck = redo_ckpt_begin(r);
        REQUIRE(redo_ckpt_end(r, ck, ck, user) == 0);
        CHECK(redo_used(r) < (1u << 20) / 2);
    }
    uint64_t end = append_seq(r, seq, 150);
    REQUIRE(redo_flush(r, end, true) == 0);
    CHECK(end > 5u * (1u << 20)); /* wrapped several times */
    redo_close(r);
    REQUIRE(redo_open(path, 0, 16384, true, false, &r) == 0);
    CHECK_EQ_INT(redo_last_ckpt(r)->user[0], 42);
    uint32_t n = 0;
    uint64_t got_end;
    REQUIRE(redo_scan(r, count_cb, &n, &got_end) == 0);
    CHECK_EQ_INT(n, 150); /* exactly the groups after the last checkpoint */
    CHECK_EQ_INT(got_end, end);
    uint64_t newest = redo_last_ckpt(r)->ckpt_lsn;
    redo_close(r);
    /* Tear the newest checkpoint slot: the older one is used, and its scan still works. */
    int fd = open(path, O_RDWR);
    uint8_t blk[80];
    int torn_slot = -1;
    for (int slot = 0; slot < 2; slot++) {
        REQUIRE(pread(fd, blk, sizeof blk, 4096 * (1 + slot)) == (ssize_t)sizeof blk);
        if (rd64(blk + 16) == newest)
            torn_slot = slot;
    }
    REQUIRE(torn_slot >= 0);
    REQUIRE(pread(fd, blk, sizeof blk, 4096 * (1 + torn_slot)) == (ssize_t)sizeof blk);
    blk[20] ^= 1;
    REQUIRE(pwrite(fd, blk, sizeof blk, 4096 * (1 + torn_slot)) == (ssize_t)sizeof blk);
    close(fd);
    REQUIRE(redo_open(path, 0, 16384, true, false, &r) == 0);
    CHECK(redo_last_ckpt(r)->ckpt_lsn < newest);
    n = 0;
    REQUIRE(redo_scan(r, count_cb, &n, &got_end) == 0);
    CHECK_EQ_INT(n, 350);
    CHECK_EQ_INT(got_end, end);
    redo_close(r);
    unlink(path);
}

TEST(test_redo_rejects_garbage)
{
    char path[64];
    tmpfile_path(path);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("not a redo log at all, just text that happens to be here................................", f);
    fclose(f);
    redo_t *r;
    CHECK_EQ_INT(redo_open(path, 0, 16384, true, false, &r), STRATA_ECORRUPT);
    unlink(path);
}

UNIT_MAIN(test_redo_group_commit, test_redo_scan_and_torn_tail, test_redo_wrap_and_checkpoints,
          test_redo_rejects_garbage)
