/* Unit tests for the engine's bottom-up load (engine_bulk_*, btree.c's btree_bulk_*): a load many times the
 * buffer pool gives a tree that verifies, reads back every entry in order (inline and overflow values), takes
 * ordinary inserts and deletes afterwards and survives a reopen; keys out of order are refused; an aborted load
 * and a load killed with SIGKILL leave no tree after the next start. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "unit.h"
#include "util/util.h"

static engine_t *open_engine(const char *dir)
{
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 1u << 20; /* 64 pages: every load below is larger */
    o.log_bytes = 8u << 20;  /* smaller than the loads: checkpoints must keep up between pages */
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    engine_t *e = NULL;
    int rc = engine_open(&o, &e);
    if (rc)
        fprintf(stderr, "engine_open: %d\n", rc);
    return e;
}

static size_t key_of(char *k, int i) { return (size_t)sprintf(k, "k%09d", i); }

/* Value of entry i: mostly short, every 997th one large enough for an overflow chain. */
static size_t val_of(uint8_t *v, int i)
{
    size_t n = i % 997 == 0 ? 40000 : (size_t)(i % 23);
    for (size_t j = 0; j < n; j++)
        v[j] = (uint8_t)(i + j);
    return n;
}

typedef struct {
    int trees;
    int faults;
} census_t;

static void on_tree(void *ctx, uint64_t tree, uint32_t space, int rc, uint64_t pages, uint64_t rows, int64_t owned)
{
    (void)tree, (void)space, (void)pages, (void)rows, (void)owned;
    census_t *c = ctx;
    c->trees++;
    c->faults += rc != 0;
}

TEST(test_bulk_load_large)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    enum { N = 150000 };
    engine_bulk_t *b;
    REQUIRE(engine_bulk_begin(e, ENGINE_DEFAULT_TABLESPACE, &b) == 0);
    engine_tree_id_t t = engine_bulk_tree(b);
    char k[32];
    static uint8_t v[40000];
    int rc = 0;
    for (int i = 0; i < N && !rc; i++)
        rc = engine_bulk_add(b, k, key_of(k, i * 2), v, val_of(v, i * 2));
    CHECK_EQ_INT(rc, 0);
    REQUIRE(engine_bulk_finish(b) == 0);
    uint64_t rows = 0;
    CHECK_EQ_INT(engine_tree_check(e, t, NULL, &rows), 0);
    CHECK_EQ_INT((int)rows, N);

    /* every entry, in order, through a read view */
    engine_trx_t *x;
    REQUIRE(engine_trx_begin(e, &x) == 0);
    engine_cursor_t *c;
    REQUIRE(engine_cursor_open(x, t, &c) == 0);
    int n = 0, bad = 0;
    for (rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c), n++) {
        size_t kl, vl;
        const void *kp = engine_cursor_key(c, &kl), *vp = engine_cursor_value(c, &vl);
        size_t ekl = key_of(k, n * 2), evl = val_of(v, n * 2);
        bad += kl != ekl || memcmp(kp, k, kl) != 0 || vl != evl || memcmp(vp, v, vl) != 0;
    }
    engine_cursor_close(c);
    CHECK_EQ_INT(rc, STRATA_ENOTFOUND);
    CHECK_EQ_INT(n, N);
    CHECK_EQ_INT(bad, 0);

    /* the loaded tree takes ordinary changes: inserts between the loaded keys split the full leaves */
    for (int i = 0; i < 3000; i++)
        CHECK_EQ_INT(engine_insert(x, t, k, key_of(k, (i * 97) % N * 2 + 1), "new", 3), 0);
    CHECK_EQ_INT(engine_insert(x, t, k, key_of(k, 4), "dup", 3), ENGINE_EDUPKEY);
    for (int i = 0; i < 2000; i++)
        CHECK_EQ_INT(engine_delete(x, t, k, key_of(k, i * 2)), 0);
    REQUIRE(engine_trx_commit(x) == 0);
    engine_close(e);

    e = open_engine(dir);
    REQUIRE(e);
    CHECK_EQ_INT(engine_tree_check(e, t, NULL, &rows), 0);
    buf_t got;
    buf_init(&got);
    CHECK_EQ_INT(engine_get_e(e, t, k, key_of(k, 997 * 2 * 3), &got), 0);
    CHECK_EQ_INT((int)got.len, (int)val_of(v, 997 * 2 * 3));
    CHECK(got.len == val_of(v, 997 * 6) && memcmp(got.data, v, got.len) == 0);
    CHECK_EQ_INT(engine_get_e(e, t, k, key_of(k, 2 * (N - 1)), &got), 0);
    CHECK_EQ_INT(engine_get_e(e, t, k, key_of(k, 97 * 2 + 1), &got), 0); /* inserted after the load */
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&got);
    engine_close(e);
    unit_rmdatadir(dir);
}

TEST(test_bulk_small_and_order)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    char k[32];
    /* empty: the root stays an empty leaf */
    engine_bulk_t *b;
    REQUIRE(engine_bulk_begin(e, ENGINE_DEFAULT_TABLESPACE, &b) == 0);
    engine_tree_id_t t0 = engine_bulk_tree(b);
    REQUIRE(engine_bulk_finish(b) == 0);
    uint64_t rows = 1;
    CHECK_EQ_INT(engine_tree_check(e, t0, NULL, &rows), 0);
    CHECK_EQ_INT((int)rows, 0);
    /* one leaf: it is copied into the root */
    REQUIRE(engine_bulk_begin(e, ENGINE_DEFAULT_TABLESPACE, &b) == 0);
    engine_tree_id_t t1 = engine_bulk_tree(b);
    for (int i = 0; i < 10; i++)
        CHECK_EQ_INT(engine_bulk_add(b, k, key_of(k, i), "v", 1), 0);
    /* out of order: equal, then smaller */
    CHECK_EQ_INT(engine_bulk_add(b, k, key_of(k, 9), "v", 1), ENGINE_EDUPKEY);
    CHECK_EQ_INT(engine_bulk_add(b, k, key_of(k, 3), "v", 1), ENGINE_EINVAL);
    REQUIRE(engine_bulk_finish(b) == 0);
    CHECK_EQ_INT(engine_tree_check(e, t1, NULL, &rows), 0);
    CHECK_EQ_INT((int)rows, 10);
    buf_t got;
    buf_init(&got);
    CHECK_EQ_INT(engine_get_e(e, t1, k, key_of(k, 7), &got), 0);
    /* aborted: the tree and its pages are gone */
    REQUIRE(engine_bulk_begin(e, ENGINE_DEFAULT_TABLESPACE, &b) == 0);
    engine_tree_id_t t2 = engine_bulk_tree(b);
    for (int i = 0; i < 20000; i++)
        CHECK_EQ_INT(engine_bulk_add(b, k, key_of(k, i), "value", 5), 0);
    engine_bulk_abort(b);
    uint64_t pages, ext;
    CHECK_EQ_INT(engine_tree_stats(e, t2, &pages, &ext), STRATA_ENOTFOUND);
    census_t cs = {0};
    CHECK_EQ_INT(engine_verify(e, on_tree, &cs), 0);
    CHECK_EQ_INT(cs.faults, 0);
    buf_free(&got);
    engine_close(e);
    unit_rmdatadir(dir);
}

TEST(test_bulk_crash_leaves_no_tree)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    census_t before = {0};
    engine_verify(e, on_tree, &before);
    engine_close(e);
    int pfd[2];
    REQUIRE(pipe(pfd) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        engine_t *ce = open_engine(dir);
        engine_bulk_t *b;
        if (!ce || engine_bulk_begin(ce, ENGINE_DEFAULT_TABLESPACE, &b))
            _exit(2);
        char k[32];
        for (int i = 0; i < 100000; i++)
            if (engine_bulk_add(b, k, key_of(k, i), "0123456789", 10))
                _exit(3);
        engine_checkpoint(ce); /* some of the load's pages are on disk, not only in the log */
        if (write(pfd[1], "x", 1) != 1)
            _exit(4);
        pause();
        _exit(0);
    }
    close(pfd[1]);
    char c;
    CHECK(read(pfd[0], &c, 1) == 1);
    close(pfd[0]);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st));
    e = open_engine(dir);
    REQUIRE(e);
    census_t after = {0};
    CHECK_EQ_INT(engine_verify(e, on_tree, &after), 0);
    CHECK_EQ_INT(after.trees, before.trees);
    CHECK_EQ_INT(after.faults, 0);
    uint64_t pages, ext;
    CHECK_EQ_INT(engine_tree_stats(e, 16, &pages, &ext), STRATA_ENOTFOUND);
    engine_close(e);
    unit_rmdatadir(dir);
}

UNIT_MAIN(test_bulk_load_large, test_bulk_small_and_order, test_bulk_crash_leaves_no_tree)
