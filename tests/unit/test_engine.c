/* Unit tests for the engine API (engine.h): rows and cursors through transactions, rollback, reopen, the seed-002
 * tablespace scenario (table full, extents returned, a second table grows), row locks (wait timeout, deadlock),
 * and crash recovery: a child process commits under load and is killed with SIGKILL; the parent reopens and
 * checks that every acknowledged commit is there and no unacknowledged transaction is half-applied; a torn page
 * is repaired from its full-page image. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/page.h"
#include "unit.h"
#include "util/util.h"

static uint64_t test_log_bytes = 16u << 20;

static engine_t *open_engine(const char *dir, uint64_t pool)
{
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = pool;
    o.log_bytes = test_log_bytes;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    engine_t *e = NULL;
    int rc = engine_open(&o, &e);
    if (rc)
        fprintf(stderr, "engine_open: %d\n", rc);
    return e;
}

static size_t k_of(char *k, const char *prefix, int i) { return (size_t)sprintf(k, "%s%08d", prefix, i); }

TEST(test_engine_rows_cursors_reopen)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, ENGINE_DEFAULT_TABLESPACE, &t) == 0);
    engine_trx_t *x;
    REQUIRE(engine_trx_begin(e, &x) == 0);
    char k[32], v[64];
    for (int i = 0; i < 2000; i++) {
        int vl = sprintf(v, "value-%d", i);
        CHECK_EQ_INT(engine_insert(x, t, k, k_of(k, "r", i * 2), v, (size_t)vl), 0);
    }
    CHECK_EQ_INT(engine_insert(x, t, k, k_of(k, "r", 10), "dup", 3), ENGINE_EDUPKEY);
    CHECK_EQ_INT(engine_update(x, t, k, k_of(k, "r", 11), "nope", 4), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_update(x, t, k, k_of(k, "r", 10), "ten", 3), 0);
    CHECK_EQ_INT(engine_delete(x, t, k, k_of(k, "r", 12)), 0);
    CHECK_EQ_INT(engine_delete(x, t, k, k_of(k, "r", 12)), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_put(x, t, k, k_of(k, "r", 13), "thirteen", 8), 0);
    REQUIRE(engine_trx_commit(x) == 0);

    buf_t b;
    buf_init(&b);
    CHECK_EQ_INT(engine_get(NULL, t, k, k_of(k, "r", 10), &b), ENGINE_EINVAL); /* needs a trx or engine_get_e */
    CHECK_EQ_INT(engine_get_e(e, t, k, k_of(k, "r", 10), &b), 0);
    CHECK(b.len == 3 && memcmp(b.data, "ten", 3) == 0);
    /* Cursor: seek in four directions around a missing key (r...11 is absent, 10 and 13 present). */
    REQUIRE(engine_trx_begin(e, &x) == 0);
    engine_cursor_t *c;
    REQUIRE(engine_cursor_open(x, t, &c) == 0);
    size_t kl;
    const char *ck;
    REQUIRE(engine_cursor_seek(c, k, k_of(k, "r", 11), ENGINE_SEEK_GE) == 0);
    ck = engine_cursor_key(c, &kl);
    CHECK(kl == 9 && memcmp(ck, "r00000013", 9) == 0);
    REQUIRE(engine_cursor_seek(c, k, k_of(k, "r", 11), ENGINE_SEEK_LE) == 0);
    ck = engine_cursor_key(c, &kl);
    CHECK(kl == 9 && memcmp(ck, "r00000010", 9) == 0);
    REQUIRE(engine_cursor_seek(c, k, k_of(k, "r", 10), ENGINE_SEEK_GT) == 0);
    ck = engine_cursor_key(c, &kl);
    CHECK(kl == 9 && memcmp(ck, "r00000013", 9) == 0);
    REQUIRE(engine_cursor_seek(c, k, k_of(k, "r", 10), ENGINE_SEEK_LT) == 0);
    ck = engine_cursor_key(c, &kl);
    CHECK(kl == 9 && memcmp(ck, "r00000008", 9) == 0);
    CHECK_EQ_INT(engine_cursor_seek(c, "a", 1, ENGINE_SEEK_LT), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_cursor_seek(c, "s", 1, ENGINE_SEEK_GE), STRATA_ENOTFOUND);
    /* Full scan forward, deleting every other row through the same trx while iterating. */
    int n = 0;
    for (int rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c)) {
        ck = engine_cursor_key(c, &kl);
        if (n % 2 == 0)
            CHECK_EQ_INT(engine_delete(x, t, ck, kl), 0);
        n++;
    }
    CHECK_EQ_INT(n, 2000); /* 2000 - 1 deleted + 1 put */
    int back = 0;
    for (int rc = engine_cursor_last(c); rc == 0; rc = engine_cursor_prev(c))
        back++;
    CHECK_EQ_INT(back, 1000);
    engine_cursor_close(c);
    REQUIRE(engine_trx_commit(x) == 0);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    engine_close(e);

    /* Reopen: everything is there. */
    e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    REQUIRE(engine_trx_begin(e, &x) == 0);
    REQUIRE(engine_cursor_open(x, t, &c) == 0);
    n = 0;
    for (int rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c))
        n++;
    CHECK_EQ_INT(n, 1000);
    engine_cursor_close(c);
    engine_trx_commit(x);
    /* Drop: the tree's extent goes back. */
    engine_file_info_t *f;
    size_t nf;
    REQUIRE(engine_files(e, &f, &nf) == 0);
    uint64_t free_before = f[0].free_extents;
    engine_files_free(f);
    CHECK_EQ_INT(engine_tree_drop(NULL, e, t), 0);
    REQUIRE(engine_files(e, &f, &nf) == 0);
    CHECK(f[0].free_extents > free_before);
    engine_files_free(f);
    CHECK_EQ_INT(engine_get_e(e, t, "x", 1, &b), STRATA_ENOTFOUND);
    buf_free(&b);
    engine_close(e);
    unit_rmdatadir(dir);
}

TEST(test_engine_rollback)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_trx_t *x;
    char k[32];
    char *big = malloc(100000);
    memset(big, 'B', 100000);
    REQUIRE(engine_trx_begin(e, &x) == 0);
    for (int i = 0; i < 500; i++)
        REQUIRE(engine_insert(x, t, k, k_of(k, "k", i), "orig", 4) == 0);
    REQUIRE(engine_insert(x, t, "big", 3, big, 100000) == 0);
    REQUIRE(engine_trx_commit(x) == 0);
    REQUIRE(engine_trx_begin(e, &x) == 0);
    for (int i = 0; i < 500; i += 3)
        REQUIRE(engine_update(x, t, k, k_of(k, "k", i), "changed", 7) == 0);
    for (int i = 1; i < 500; i += 3)
        REQUIRE(engine_delete(x, t, k, k_of(k, "k", i)) == 0);
    for (int i = 500; i < 900; i++)
        REQUIRE(engine_insert(x, t, k, k_of(k, "k", i), "new", 3) == 0);
    REQUIRE(engine_put(x, t, "big", 3, "small", 5) == 0);
    REQUIRE(engine_trx_rollback(x) == 0);
    buf_t b;
    buf_init(&b);
    int bad = 0;
    for (int i = 0; i < 900; i++) {
        int rc = engine_get_e(e, t, k, k_of(k, "k", i), &b);
        if (i < 500)
            bad += rc != 0 || b.len != 4 || memcmp(b.data, "orig", 4);
        else
            bad += rc != STRATA_ENOTFOUND;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(engine_get_e(e, t, "big", 3, &b), 0);
    CHECK(b.len == 100000 && b.data[99999] == 'B');
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&b);
    free(big);
    engine_close(e);
    unit_rmdatadir(dir);
}

static uint64_t free_extents(engine_t *e, const char *ts)
{
    engine_file_info_t *f;
    size_t n;
    uint64_t r = 0;
    engine_files(e, &f, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].tablespace_name, ts) == 0)
            r += f[i].free_extents;
    engine_files_free(f);
    return r;
}

/* Seed 002: a table fills the tablespace (1114), DELETE gives the extents back, another table grows. */
TEST(test_engine_seed002_tablespace)
{
    char dir[64];
    unit_mkdatadir(dir);
    /* The DELETE of the whole table is one transaction with ~3 MB of undo: it must fit in a quarter of the log
     * (README, known limits). */
    test_log_bytes = 64u << 20;
    engine_t *e = open_engine(dir, 2u << 20);
    test_log_bytes = 16u << 20;
    REQUIRE(e);
    uint32_t ts;
    REQUIRE(engine_tablespace_create(e, "ts1", "ts1.dat", 6u << 20, 1u << 20, &ts) == 0);
    CHECK_EQ_INT(engine_tablespace_create(e, "ts1", "other.dat", 6u << 20, 1u << 20, &ts), STRATA_EEXIST);
    engine_tree_id_t t1, t2;
    REQUIRE(engine_tree_create(NULL, e, ts, &t1) == 0);
    CHECK_EQ_INT(free_extents(e, "ts1"), 4);
    char k[32], v[2000];
    memset(v, 'v', sizeof v);
    engine_trx_t *x;
    int n = 0, rc = 0;
    while (rc == 0) {
        REQUIRE(engine_trx_begin(e, &x) == 0);
        for (int j = 0; j < 5 && rc == 0; j++, n++)
            rc = engine_insert(x, t1, k, k_of(k, "id", n), v, sizeof v);
        if (rc == 0)
            engine_trx_commit(x);
        else
            engine_trx_rollback(x);
    }
    CHECK_EQ_INT(rc, ENGINE_EFULL);
    CHECK_EQ_INT(free_extents(e, "ts1"), 0);
    CHECK_EQ_INT(engine_tree_create(NULL, e, ts, &t2), ENGINE_EFULL);
    CHECK_EQ_INT(engine_tablespace_drop(e, "ts1"), ENGINE_ENOTEMPTY);
    /* DELETE everything: FREE_EXTENTS rises again. */
    REQUIRE(engine_trx_begin(e, &x) == 0);
    engine_cursor_t *c;
    REQUIRE(engine_cursor_open(x, t1, &c) == 0);
    int deleted = 0;
    for (rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c)) {
        size_t kl;
        const void *ck = engine_cursor_key(c, &kl);
        REQUIRE(engine_delete(x, t1, ck, kl) == 0);
        deleted++;
    }
    engine_cursor_close(c);
    REQUIRE(engine_trx_commit(x) == 0);
    CHECK(deleted > 1000);
    CHECK_EQ_INT(free_extents(e, "ts1"), 4); /* t1 keeps the extent of its root page */
    REQUIRE(engine_tree_create(NULL, e, ts, &t2) == 0);
    REQUIRE(engine_trx_begin(e, &x) == 0);
    int n2 = 0;
    while ((rc = engine_insert(x, t2, k, k_of(k, "id", n2), v, sizeof v)) == 0)
        n2++;
    CHECK_EQ_INT(rc, ENGINE_EFULL);
    engine_trx_commit(x);
    CHECK(n2 > 700);
    /* ALTER TABLESPACE ADD DATAFILE: more room, extents round-robin onto the new file. */
    REQUIRE(engine_tablespace_add_datafile(e, "ts1", "ts1b.dat", 4u << 20) == 0);
    CHECK_EQ_INT(free_extents(e, "ts1"), 3);
    REQUIRE(engine_trx_begin(e, &x) == 0);
    for (int i = 0; i < 100; i++)
        REQUIRE(engine_insert(x, t2, k, k_of(k, "more", i), v, sizeof v) == 0);
    engine_trx_commit(x);
    CHECK(free_extents(e, "ts1") < 3);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    REQUIRE(engine_tree_drop(NULL, e, t1) == 0);
    REQUIRE(engine_tree_drop(NULL, e, t2) == 0);
    CHECK_EQ_INT(engine_tablespace_drop(e, "ts1"), 0);
    uint32_t id;
    CHECK_EQ_INT(engine_tablespace_lookup(e, "ts1", &id), STRATA_ENOTFOUND);
    engine_close(e);
    e = open_engine(dir, 2u << 20);
    REQUIRE(e);
    CHECK_EQ_INT(engine_tablespace_lookup(e, "ts1", &id), STRATA_ENOTFOUND);
    engine_close(e);
    unit_rmdatadir(dir);
}

typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    engine_trx_t *x;
    const char *key;
    int rc;
} lk_t;

static void *lock_thread(void *arg)
{
    lk_t *l = arg;
    l->rc = engine_put(l->x, l->t, l->key, strlen(l->key), "2", 1);
    return NULL;
}

TEST(test_engine_locks)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_set_lock_wait_timeout(e, 200000);
    engine_trx_t *a, *b;
    engine_trx_begin(e, &a);
    engine_trx_begin(e, &b);
    REQUIRE(engine_put(a, t, "A", 1, "a", 1) == 0);
    CHECK_EQ_INT(engine_put(b, t, "A", 1, "b", 1), ENGINE_ELOCKWAIT);
    REQUIRE(engine_put(b, t, "B", 1, "b", 1) == 0);
    /* a waits for B in a thread; b asking for A closes the cycle. */
    engine_set_lock_wait_timeout(e, 5000000);
    lk_t l = {.e = e, .t = t, .x = a, .key = "B"};
    pthread_t th;
    pthread_create(&th, NULL, lock_thread, &l);
    usleep(100000);
    CHECK_EQ_INT(engine_put(b, t, "A", 1, "b", 1), ENGINE_EDEADLOCK);
    engine_trx_rollback(b); /* the victim rolls back; a gets B */
    pthread_join(th, NULL);
    CHECK_EQ_INT(l.rc, 0);
    engine_trx_commit(a);
    buf_t v;
    buf_init(&v);
    CHECK_EQ_INT(engine_get_e(e, t, "B", 1, &v), 0);
    CHECK(v.len == 1 && v.data[0] == '2');
    engine_stats_t st;
    engine_stats(e, &st);
    CHECK(st.lock_deadlocks == 1 && st.lock_waits >= 2);
    /* Shared locks: two sharers, a writer waits; both sharers upgrading is a deadlock. */
    engine_set_lock_wait_timeout(e, 200000);
    engine_trx_t *c;
    engine_trx_begin(e, &a);
    engine_trx_begin(e, &b);
    engine_trx_begin(e, &c);
    CHECK_EQ_INT(engine_lock_row_shared(a, t, "S", 1), 0);
    CHECK_EQ_INT(engine_lock_row_shared(b, t, "S", 1), 0);
    CHECK_EQ_INT(engine_lock_row_shared(a, t, "S", 1), 0); /* again: already held */
    CHECK_EQ_INT(engine_put(c, t, "S", 1, "c", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_lock_row_shared(c, t, "S", 1), 0); /* sharing is fine */
    engine_trx_rollback(c);
    engine_set_lock_wait_timeout(e, 5000000);
    lk_t l2 = {.e = e, .t = t, .x = a, .key = "S"};
    pthread_create(&th, NULL, lock_thread, &l2); /* a upgrades: waits for b */
    usleep(100000);
    CHECK_EQ_INT(engine_put(b, t, "S", 1, "b", 1), ENGINE_EDEADLOCK); /* b upgrading too closes the cycle */
    engine_trx_rollback(b);
    pthread_join(th, NULL);
    CHECK_EQ_INT(l2.rc, 0);
    engine_trx_commit(a);
    CHECK_EQ_INT(engine_get_e(e, t, "S", 1, &v), 0);
    CHECK(v.len == 1 && v.data[0] == '2');
    buf_free(&v);
    engine_close(e);
    unit_rmdatadir(dir);
}

/* A large transaction's undo leaves memory once a checkpoint has spilled it to the undo file: 48 MB of undo with a
 * 16 MiB log keeps a few MiB in memory.  Rolling back to a savepoint inside the spilled part reads it back from the
 * file, the transaction goes on and commits; a full rollback of another reads all of it back; and a crash with
 * one open recovers and rolls it back. */
TEST(test_engine_undo_leaves_memory)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 2u << 20); /* 16 MiB log */
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    char k[32];
    static char v[3000];
    memset(v, 'o', sizeof v);
    engine_trx_t *x;
    engine_trx_begin(e, &x);
    for (int i = 0; i < 2000; i++)
        REQUIRE(engine_insert(x, t, k, k_of(k, "r", i), v, sizeof v) == 0);
    REQUIRE(engine_trx_commit(x) == 0);
    buf_t b;
    buf_init(&b);
    for (int pass = 0; pass < 2; pass++) {
        engine_trx_begin(e, &x);
        uint64_t mem = 0, total = 0, max_mem = 0, sp = 0;
        for (int round = 0; round < 8; round++) {
            v[0] = (char)('a' + round);
            for (int i = 0; i < 2000; i++)
                REQUIRE(engine_update(x, t, k, k_of(k, "r", i), v, sizeof v) == 0);
            engine_trx_undo_bytes(x, &mem, &total);
            max_mem = MAX(max_mem, mem);
            if (round == 3)
                sp = engine_trx_savepoint(x); /* every row 'd' */
        }
        CHECK(total > (40u << 20));
        printf("undo: %llu bytes in all, at most %llu in memory\n", (unsigned long long)total, (unsigned long long)max_mem);
        CHECK(max_mem < (12u << 20));
        if (pass == 0) {
            CHECK_EQ_INT(engine_trx_rollback_to(x, sp), 0);
            int bad = 0;
            for (int i = 0; i < 2000; i++)
                bad += engine_get(x, t, k, k_of(k, "r", i), &b) != 0 || b.len != sizeof v || b.data[0] != 'd';
            CHECK_EQ_INT(bad, 0);
            v[0] = 'z';
            for (int i = 0; i < 2000; i += 2)
                REQUIRE(engine_update(x, t, k, k_of(k, "r", i), v, sizeof v) == 0);
            REQUIRE(engine_trx_commit(x) == 0);
            for (int i = 0; i < 2000; i++)
                bad += engine_get_e(e, t, k, k_of(k, "r", i), &b) != 0 || b.data[0] != (i % 2 ? 'd' : 'z');
            CHECK_EQ_INT(bad, 0);
        } else {
            CHECK_EQ_INT(engine_trx_rollback(x), 0);
            int bad = 0;
            for (int i = 0; i < 2000; i++)
                bad += engine_get_e(e, t, k, k_of(k, "r", i), &b) != 0 || b.data[0] != (i % 2 ? 'd' : 'z');
            CHECK_EQ_INT(bad, 0);
        }
    }
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    engine_close(e);
    pid_t pid = fork();
    if (pid == 0) {
        engine_t *c = open_engine(dir, 2u << 20);
        if (!c)
            _exit(2);
        engine_trx_t *w;
        engine_trx_begin(c, &w);
        memset(v, 'c', sizeof v);
        for (int round = 0; round < 6; round++)
            for (int i = 0; i < 2000; i++)
                if (engine_update(w, t, k, k_of(k, "r", i), v, sizeof v))
                    _exit(3);
        uint64_t mem, total;
        engine_trx_undo_bytes(w, &mem, &total);
        if (mem >= total / 2 || engine_log_sync(c, engine_log_lsn(c)))
            _exit(4); /* most of it spilled and dropped */
        _exit(0); /* crash with w open */
    }
    int st;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    e = open_engine(dir, 2u << 20);
    REQUIRE(e);
    int bad = 0;
    for (int i = 0; i < 2000; i++)
        bad += engine_get_e(e, t, k, k_of(k, "r", i), &b) != 0 || b.data[0] != (i % 2 ? 'd' : 'z');
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&b);
    engine_close(e);
    unit_rmdatadir(dir);
}


/* A transaction whose undo is several times the redo log works (its undo is spilled to the undo file by the
 * checkpoints) and rolls back completely; over the configured bound (undo_max_bytes) it gets ENGINE_ELOGFULL,
 * still rolls back, and the engine goes on. */
TEST(test_engine_trx_too_large)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 2u << 20); /* 16 MiB log */
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    char k[32];
    static char v[3000];
    memset(v, 'o', sizeof v);
    engine_trx_t *x;
    engine_trx_begin(e, &x);
    for (int i = 0; i < 2000; i++)
        REQUIRE(engine_insert(x, t, k, k_of(k, "r", i), v, sizeof v) == 0);
    REQUIRE(engine_trx_commit(x) == 0);
    memset(v, 'n', sizeof v);
    /* 10 rounds of 2000 updates of 3000 bytes: 60 MB of undo for a 16 MiB log. */
    engine_trx_begin(e, &x);
    int rc = 0, n = 0;
    for (int round = 0; rc == 0 && round < 10; round++)
        for (int i = 0; i < 2000 && rc == 0; i++, n++)
            rc = engine_update(x, t, k, k_of(k, "r", i), v, sizeof v);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(n, 20000);
    CHECK_EQ_INT(engine_trx_rollback(x), 0);
    buf_t b;
    buf_init(&b);
    int bad = 0;
    for (int i = 0; i < 2000; i++)
        bad += engine_get_e(e, t, k, k_of(k, "r", i), &b) != 0 || b.len != sizeof v || b.data[0] != 'o';
    CHECK_EQ_INT(bad, 0);
    engine_close(e);
    /* Now with a bound of 8 MiB of undo per transaction. */
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 2u << 20;
    o.undo_max_bytes = 8u << 20;
    REQUIRE(engine_open(&o, &e) == 0);
    engine_trx_begin(e, &x);
    rc = 0;
    n = 0;
    for (int round = 0; rc == 0 && round < 10; round++)
        for (int i = 0; i < 2000 && rc == 0; i++, n++)
            rc = engine_update(x, t, k, k_of(k, "r", i), v, sizeof v);
    CHECK_EQ_INT(rc, ENGINE_ELOGFULL);
    CHECK(n > 2000 && n < 4000);
    CHECK_EQ_INT(engine_trx_rollback(x), 0);
    bad = 0;
    for (int i = 0; i < 2000; i++)
        bad += engine_get_e(e, t, k, k_of(k, "r", i), &b) != 0 || b.len != sizeof v || b.data[0] != 'o';
    CHECK_EQ_INT(bad, 0);
    engine_trx_begin(e, &x);
    CHECK_EQ_INT(engine_update(x, t, k, k_of(k, "r", 7), "ok", 2), 0);
    CHECK_EQ_INT(engine_trx_commit(x), 0);
    printf("too-large trx: 20000 updates (60 MB of undo, 16 MiB log) rolled back; with an 8 MiB bound refused "
           "after %d updates, rolled back\n", n);
    buf_free(&b);
    engine_close(e);
    unit_rmdatadir(dir);
}

static int get_str(engine_trx_t *x, engine_tree_id_t t, const char *k, char *out)
{
    buf_t v;
    buf_init(&v);
    int rc = engine_get(x, t, k, strlen(k), &v);
    if (!rc) {
        memcpy(out, v.data, v.len);
        out[v.len] = 0;
    } else {
        strcpy(out, "-");
    }
    buf_free(&v);
    return rc;
}

static int scan_str(engine_trx_t *x, engine_tree_id_t t, char *out)
{
    engine_cursor_t *c;
    out[0] = 0;
    if (engine_cursor_open(x, t, &c))
        return -1;
    int n = 0;
    for (int rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c), n++) {
        size_t kl, vl;
        const char *k = engine_cursor_key(c, &kl), *v = engine_cursor_value(c, &vl);
        sprintf(out + strlen(out), "%.*s=%.*s ", (int)kl, k, (int)vl, v);
    }
    engine_cursor_close(c);
    return n;
}

/* Consistent reads: a REPEATABLE READ view keeps seeing its snapshot through updates, deletes, inserts, commits
 * and rollbacks of others; READ COMMITTED sees each statement's committed state; purge cleans up after. */
TEST(test_engine_mvcc)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_trx_t *w, *r, *rc2;
    char got[256], scan[512];
    engine_trx_begin(e, &w);
    engine_insert(w, t, "k1", 2, "v1", 2);
    engine_insert(w, t, "k2", 2, "v2", 2);
    engine_insert(w, t, "k3", 2, "v3", 2);
    REQUIRE(engine_trx_commit(w) == 0);

    engine_trx_begin(e, &r); /* REPEATABLE READ */
    get_str(r, t, "k1", got);
    CHECK_EQ_STR(got, "v1");
    engine_trx_begin(e, &w);
    REQUIRE(engine_update(w, t, "k1", 2, "v1b", 3) == 0);
    REQUIRE(engine_delete(w, t, "k2", 2) == 0);
    REQUIRE(engine_insert(w, t, "k4", 2, "v4", 2) == 0);
    /* The writer sees its own changes; the reader does not. */
    get_str(w, t, "k1", got);
    CHECK_EQ_STR(got, "v1b");
    CHECK_EQ_INT(get_str(w, t, "k2", got), STRATA_ENOTFOUND);
    CHECK_EQ_INT(scan_str(w, t, scan), 3);
    CHECK_EQ_STR(scan, "k1=v1b k3=v3 k4=v4 ");
    get_str(r, t, "k1", got);
    CHECK_EQ_STR(got, "v1");
    get_str(r, t, "k2", got);
    CHECK_EQ_STR(got, "v2");
    CHECK_EQ_INT(get_str(r, t, "k4", got), STRATA_ENOTFOUND);
    CHECK_EQ_INT(scan_str(r, t, scan), 3);
    CHECK_EQ_STR(scan, "k1=v1 k2=v2 k3=v3 ");
    /* Latest-version reads see the uncommitted state. */
    buf_t v;
    buf_init(&v);
    CHECK_EQ_INT(engine_get_e(e, t, "k2", 2, &v), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_get_e(e, t, "k4", 2, &v), 0);
    REQUIRE(engine_trx_commit(w) == 0);
    /* Still the snapshot after the commit. */
    CHECK_EQ_INT(scan_str(r, t, scan), 3);
    CHECK_EQ_STR(scan, "k1=v1 k2=v2 k3=v3 ");
    /* A new transaction sees the commit. */
    engine_trx_begin(e, &rc2);
    engine_trx_set_isolation(rc2, ENGINE_ISO_READ_COMMITTED);
    CHECK_EQ_INT(scan_str(rc2, t, scan), 3);
    CHECK_EQ_STR(scan, "k1=v1b k3=v3 k4=v4 ");
    /* READ COMMITTED: a commit between statements shows up at the next statement only. */
    engine_trx_begin(e, &w);
    REQUIRE(engine_update(w, t, "k3", 2, "v3c", 3) == 0);
    REQUIRE(engine_trx_commit(w) == 0);
    get_str(rc2, t, "k3", got);
    CHECK_EQ_STR(got, "v3");
    engine_trx_statement_start(rc2);
    get_str(rc2, t, "k3", got);
    CHECK_EQ_STR(got, "v3c");
    engine_trx_commit(rc2);
    /* A rolled-back change is seen by nobody, before or after. */
    engine_trx_begin(e, &w);
    REQUIRE(engine_update(w, t, "k3", 2, "XX", 2) == 0);
    REQUIRE(engine_delete(w, t, "k4", 2) == 0);
    REQUIRE(engine_insert(w, t, "k2", 2, "again", 5) == 0); /* over k2's delete mark */
    get_str(r, t, "k2", got);
    CHECK_EQ_STR(got, "v2");
    REQUIRE(engine_trx_rollback(w) == 0);
    get_str(r, t, "k3", got);
    CHECK_EQ_STR(got, "v3");
    CHECK_EQ_INT(engine_get_e(e, t, "k3", 2, &v), 0);
    CHECK(v.len == 3 && memcmp(v.data, "v3c", 3) == 0);
    CHECK_EQ_INT(engine_get_e(e, t, "k2", 2, &v), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_get_e(e, t, "k4", 2, &v), 0);
    CHECK_EQ_INT(scan_str(r, t, scan), 3);
    CHECK_EQ_STR(scan, "k1=v1 k2=v2 k3=v3 ");
    /* Delete and re-insert in one trx, committed. */
    engine_trx_begin(e, &w);
    REQUIRE(engine_delete(w, t, "k4", 2) == 0);
    REQUIRE(engine_insert(w, t, "k4", 2, "v4new", 5) == 0);
    REQUIRE(engine_trx_commit(w) == 0);
    CHECK_EQ_INT(get_str(r, t, "k4", got), STRATA_ENOTFOUND);
    /* Purge: versions stay while the old view is open, go when it ends. */
    engine_stats_t st;
    engine_purge_now(e);
    engine_stats(e, &st);
    CHECK(st.mvcc_versions > 0);
    engine_trx_commit(r);
    engine_purge_now(e);
    engine_stats(e, &st);
    CHECK_EQ_INT(st.mvcc_versions, 0);
    CHECK(st.purged_rows >= 1); /* k2's delete mark is gone */
    engine_trx_begin(e, &r);
    CHECK_EQ_INT(scan_str(r, t, scan), 3);
    CHECK_EQ_STR(scan, "k1=v1b k3=v3c k4=v4new ");
    engine_trx_commit(r);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&v);
    engine_close(e);
    unit_rmdatadir(dir);
}

typedef struct {
    int n;
    uint64_t id;
    char xid[32];
} xa_seen_t;

static void xa_cb(void *ctx, uint64_t trx_id, const void *xid, size_t len)
{
    xa_seen_t *x = ctx;
    x->n++;
    x->id = trx_id;
    snprintf(x->xid, sizeof x->xid, "%.*s", (int)len, (const char *)xid);
}

/* Commit tags (the binlog position of a one-fsync commit): the tag survives exactly when its commit does, through
 * the log and through checkpoints; engine_commit_tag_set is durable at return. */
TEST(test_engine_commit_tag)
{
    for (int mode = 0; mode < 3; mode++) {
        char dir[64];
        unit_mkdatadir(dir);
        pid_t pid = fork();
        if (pid == 0) {
            engine_t *e = open_engine(dir, 1u << 20);
            engine_tree_id_t t;
            if (!e || engine_tree_create(NULL, e, 0, &t) || engine_commit_tag(e) != 0)
                _exit(2);
            engine_trx_t *x;
            char k[16];
            for (int i = 1; i <= 3; i++) {
                engine_trx_begin(e, &x);
                engine_insert(x, t, k, k_of(k, "r", i), "v", 1);
                if (engine_trx_commit_tagged(x, (uint64_t)i * 10, NULL) || engine_commit_tag(e) != (uint64_t)i * 10)
                    _exit(3);
                if (i == 2 && mode == 0 && engine_log_sync(e, engine_log_lsn(e)))
                    _exit(4); /* 10 and 20 durable, 30 only in memory */
                if (i == 2 && mode == 1 && engine_checkpoint(e))
                    _exit(5); /* the checkpoint keeps 20; 30 only in memory */
            }
            if (mode == 2 && engine_commit_tag_set(e, 1))
                _exit(6); /* RESET MASTER: 1, durable (with everything before it) */
            _exit(0); /* crash */
        }
        int st;
        waitpid(pid, &st, 0);
        REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        for (int reopen = 0; reopen < 2; reopen++) { /* the second open reads what the first one's checkpoint kept */
            engine_t *e = open_engine(dir, 1u << 20);
            REQUIRE(e);
            CHECK(engine_commit_tag(e) == (mode == 2 ? 1u : 20u));
            engine_trx_t *r;
            engine_trx_begin(e, &r);
            char scan[256];
            CHECK_EQ_INT(scan_str(r, 16, scan), mode == 2 ? 3 : 2); /* the row of tag 30 went with its tag */
            engine_trx_commit(r);
            engine_close(e);
        }
        unit_rmdatadir(dir);
    }
}

static uint64_t lock_entries_now(engine_t *e)
{
    engine_stats_t st;
    engine_stats(e, &st);
    return st.lock_entries;
}

typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    engine_trx_t *x;
    char key[32];
    int op; /* 0 put, 1 insert, 2 lock_row, 3 locking cursor from key */
    int rc;
} ilk_t;

static void *ilk_thread(void *arg)
{
    ilk_t *l = arg;
    size_t kl = strlen(l->key);
    if (l->op == 0) {
        l->rc = engine_put(l->x, l->t, l->key, kl, "o", 1);
    } else if (l->op == 1) {
        l->rc = engine_insert(l->x, l->t, l->key, kl, "o", 1);
    } else if (l->op == 2) {
        l->rc = engine_lock_row(l->x, l->t, l->key, kl);
    } else {
        engine_cursor_t *c;
        l->rc = engine_cursor_open(l->x, l->t, &c);
        if (!l->rc && !(l->rc = engine_cursor_lock(c, ENGINE_LOCK_EXCLUSIVE, NULL, 0, NULL, 0, false)))
            l->rc = engine_cursor_seek(c, l->key, kl, ENGINE_SEEK_GE);
        if (c)
            engine_cursor_close(c);
    }
    return NULL;
}

/* Implicit insert locks: a trx inserting many keys keeps about ELIDE_AFTER (1024) lock entries, not one per key,
 * and every other request for one of its keys still waits for it: a write, an insert of the same key, a row lock,
 * a locking cursor; the waiter goes on when the inserter commits; a cycle through an implicit lock is a deadlock;
 * keys it rolled back to a savepoint stay locked to its end. */
TEST(test_engine_implicit_locks)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 4u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_set_lock_wait_timeout(e, 100000);
    engine_trx_t *w, *o;
    char k[32];
    REQUIRE(engine_trx_begin(e, &w) == 0);
    uint64_t before = lock_entries_now(e);
    for (int i = 0; i < 6000; i++)
        REQUIRE(engine_insert(w, t, k, k_of(k, "k", i), "w", 1) == 0);
    uint64_t held = lock_entries_now(e) - before;
    CHECK(held >= 1000 && held <= 1100);
    REQUIRE(engine_trx_begin(e, &o) == 0);
    const char *keys[] = {"k00005000", "k00004000", "k00003000", "k00002500"};
    for (int op = 0; op < 4; op++) {
        ilk_t l = {.e = e, .t = t, .x = o, .op = op};
        strcpy(l.key, keys[op]);
        ilk_thread(&l);
        CHECK_EQ_INT(l.rc, ENGINE_ELOCKWAIT);
    }
    CHECK_EQ_INT(engine_put(o, t, "zz", 2, "o", 1), 0); /* a key w never wrote is free */
    /* w's own shared lock on a key it holds implicitly: its lock becomes explicit X first, so o's share waits */
    CHECK_EQ_INT(engine_lock_row_shared(w, t, "k00004500", 9), 0);
    CHECK_EQ_INT(engine_lock_row_shared(o, t, "k00004500", 9), ENGINE_ELOCKWAIT);
    /* w asks for o's key while o waits for w's implicit one: one of them is the deadlock's victim */
    engine_set_lock_wait_timeout(e, 5000000);
    ilk_t l = {.e = e, .t = t, .x = o, .op = 0};
    strcpy(l.key, "k00005999");
    pthread_t th;
    pthread_create(&th, NULL, ilk_thread, &l);
    usleep(100000);
    int wrc = engine_put(w, t, "zz", 2, "w", 1);
    if (wrc == ENGINE_EDEADLOCK) {
        engine_trx_rollback(w);
        pthread_join(th, NULL);
        CHECK_EQ_INT(l.rc, 0);
        CHECK_EQ_INT(engine_trx_commit(o), 0);
    } else {
        pthread_join(th, NULL);
        CHECK_EQ_INT(l.rc, ENGINE_EDEADLOCK);
        CHECK_EQ_INT(wrc, 0);
        engine_trx_rollback(o);
        CHECK_EQ_INT(engine_trx_commit(w), 0);
    }
    engine_set_lock_wait_timeout(e, 100000);
    CHECK_EQ_INT(lock_entries_now(e), before);

    /* a waiter goes on when the inserter commits */
    REQUIRE(engine_trx_begin(e, &w) == 0);
    for (int i = 0; i < 3000; i++)
        REQUIRE(engine_insert(w, t, k, k_of(k, "n", i), "w", 1) == 0);
    REQUIRE(engine_trx_begin(e, &o) == 0);
    engine_set_lock_wait_timeout(e, 5000000);
    ilk_t l2 = {.e = e, .t = t, .x = o, .op = 0};
    strcpy(l2.key, "n00002999");
    pthread_create(&th, NULL, ilk_thread, &l2);
    usleep(100000);
    CHECK_EQ_INT(engine_trx_commit(w), 0);
    pthread_join(th, NULL);
    CHECK_EQ_INT(l2.rc, 0);
    CHECK_EQ_INT(engine_trx_commit(o), 0);
    buf_t v;
    buf_init(&v);
    CHECK_EQ_INT(engine_get_e(e, t, "n00002999", 9, &v), 0);
    CHECK(v.len == 1 && v.data[0] == 'o');

    /* rolled back to a savepoint: the implicitly locked keys it took out are free at once (as InnoDB's), with no
     * lock entry made for them; those before the savepoint stay locked */
    engine_set_lock_wait_timeout(e, 100000);
    REQUIRE(engine_trx_begin(e, &w) == 0);
    for (int i = 0; i < 1500; i++)
        REQUIRE(engine_insert(w, t, k, k_of(k, "p", i), "w", 1) == 0);
    uint64_t sp = engine_trx_savepoint(w);
    for (int i = 0; i < 1500; i++)
        REQUIRE(engine_insert(w, t, k, k_of(k, "q", i), "w", 1) == 0);
    uint64_t held_now = lock_entries_now(e);
    CHECK_EQ_INT(engine_trx_rollback_to(w, sp), 0);
    CHECK_EQ_INT(lock_entries_now(e), held_now);
    CHECK_EQ_INT(engine_get_e(e, t, "q00001400", 9, &v), STRATA_ENOTFOUND);
    REQUIRE(engine_trx_begin(e, &o) == 0);
    CHECK_EQ_INT(engine_insert(o, t, "q00001400", 9, "o", 1), 0);
    CHECK_EQ_INT(engine_insert(o, t, "p00001400", 9, "o", 1), ENGINE_ELOCKWAIT);
    CHECK_EQ_INT(engine_trx_commit(o), 0);
    CHECK_EQ_INT(engine_trx_commit(w), 0);
    CHECK_EQ_INT(engine_get_e(e, t, "q00001400", 9, &v), 0);
    CHECK(v.len == 1 && v.data[0] == 'o');
    CHECK_EQ_INT(lock_entries_now(e), before);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    engine_close(e);

    /* The same across a crash: w rolled back to its savepoint, o took one of those keys and committed, then the
     * crash with w open.  Recovery undoes all of w's undo, the records already undone included; the key's cell is
     * o's now, so w's insert of it is not undone again (it would delete o's committed row). */
    pid_t pid = fork();
    if (pid == 0) {
        engine_t *c = open_engine(dir, 8u << 20);
        if (!c || engine_trx_begin(c, &w))
            _exit(2);
        for (int i = 0; i < 1500; i++)
            if (engine_insert(w, t, k, k_of(k, "s", i), "w", 1))
                _exit(3);
        uint64_t sp2 = engine_trx_savepoint(w);
        for (int i = 0; i < 1500; i++)
            if (engine_insert(w, t, k, k_of(k, "u", i), "w", 1))
                _exit(3);
        if (engine_trx_rollback_to(w, sp2) || engine_trx_begin(c, &o) ||
            engine_insert(o, t, "u00001400", 9, "o", 1) || engine_trx_commit(o) ||
            engine_log_sync(c, engine_log_lsn(c)))
            _exit(4);
        _exit(0); /* crash with w open */
    }
    int st;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    e = open_engine(dir, 8u << 20);
    REQUIRE(e);
    CHECK_EQ_INT(engine_get_e(e, t, "u00001400", 9, &v), 0);
    CHECK(v.len == 1 && v.data[0] == 'o');
    CHECK_EQ_INT(engine_get_e(e, t, "s00000000", 9, &v), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_get_e(e, t, "u00000000", 9, &v), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&v);
    engine_close(e);
    unit_rmdatadir(dir);
}

typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    _Atomic bool *stop;
    _Atomic int *cur; /* the key the inserter is at */
    unsigned seed;
    uint8_t *won; /* keys this thread's commits wrote */
    int commits;
} race_t;

static void *race_thread(void *arg)
{
    race_t *r = arg;
    char k[32];
    while (!atomic_load(r->stop)) {
        int i = (atomic_load(r->cur) + (int)(rand_r(&r->seed) % 3)) % 8000; /* where its write and drop happen */
        engine_trx_t *o;
        if (engine_trx_begin(r->e, &o))
            break;
        engine_trx_set_lock_wait_timeout(o, 2000);
        if (engine_put(o, r->t, k, k_of(k, "r", i), "o", 1) == 0 && engine_trx_commit(o) == 0) {
            r->won[i] = 1;
            r->commits++;
        } else {
            engine_trx_rollback(o);
        }
    }
    return NULL;
}

/* The race the drop epoch closes: writers hammer the keys a large trx is inserting (their lock requests land
 * between its tree write and its entry's drop) while it inserts and then rolls back.  A writer let through would
 * change a key the inserter still owns, and the rollback would delete its committed row. */
TEST(test_engine_implicit_lock_race)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 8u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    _Atomic bool stop = false;
    _Atomic int cur = 0;
    race_t r[2];
    pthread_t th[2];
    for (int j = 0; j < 2; j++) {
        r[j] = (race_t){.e = e, .t = t, .stop = &stop, .cur = &cur, .seed = 7u + (unsigned)j, .won = calloc(8000, 1)};
        pthread_create(&th[j], NULL, race_thread, &r[j]);
    }
    char k[32];
    for (int round = 0; round < 4; round++) {
        engine_trx_t *w;
        REQUIRE(engine_trx_begin(e, &w) == 0);
        engine_trx_set_lock_wait_timeout(w, 2000);
        for (int i = 0; i < 8000; i++) {
            atomic_store(&cur, i);
            engine_insert(w, t, k, k_of(k, "r", i), "w", 1); /* a key a writer has committed is a duplicate */
        }
        engine_trx_rollback(w);
    }
    atomic_store(&stop, true);
    int lost = 0, commits = 0;
    for (int j = 0; j < 2; j++)
        pthread_join(th[j], NULL);
    buf_t v;
    buf_init(&v);
    for (int i = 0; i < 8000; i++)
        if (r[0].won[i] || r[1].won[i])
            lost += engine_get_e(e, t, k, k_of(k, "r", i), &v) != 0 || v.len != 1 || v.data[0] != 'o';
    commits = r[0].commits + r[1].commits;
    printf("implicit-lock race: %d writer commits, %d lost\n", commits, lost);
    CHECK(commits > 0);
    CHECK_EQ_INT(lost, 0);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&v);
    free(r[0].won);
    free(r[1].won);
    engine_close(e);
    unit_rmdatadir(dir);
}

/* Savepoints in a trx's own undo (what a failed statement and ROLLBACK TO SAVEPOINT use): the changes after the
 * mark go back, those before stay, the trx goes on and commits; a reader's view never sees the undone changes;
 * nested marks undo in order.  Then across a crash: a trx that rolled back to its start (no undo left) still logs
 * its end, so recovery does not undo its undone insert again over the row another trx committed since; an open
 * trx that rolled back and changed the row again is rolled back whole, leaving the committed value. */
TEST(test_engine_savepoints)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_trx_t *x, *r;
    char got[256], scan[512];
    REQUIRE(engine_trx_begin(e, &x) == 0);
    REQUIRE(engine_insert(x, t, "a", 1, "1", 1) == 0);
    REQUIRE(engine_insert(x, t, "b", 1, "1", 1) == 0);
    REQUIRE(engine_insert(x, t, "c", 1, "1", 1) == 0);
    REQUIRE(engine_trx_commit(x) == 0);
    REQUIRE(engine_trx_begin(e, &r) == 0);
    CHECK_EQ_INT(scan_str(r, t, scan), 3); /* r's view: a b c as committed */
    REQUIRE(engine_trx_begin(e, &x) == 0);
    CHECK_EQ_INT((int)engine_trx_savepoint(x), 0);
    REQUIRE(engine_insert(x, t, "d", 1, "x", 1) == 0);
    uint64_t sp1 = engine_trx_savepoint(x);
    CHECK(sp1 > 0);
    REQUIRE(engine_update(x, t, "a", 1, "2", 1) == 0);
    REQUIRE(engine_delete(x, t, "b", 1) == 0);
    REQUIRE(engine_insert(x, t, "e", 1, "x", 1) == 0);
    uint64_t sp2 = engine_trx_savepoint(x);
    REQUIRE(engine_update(x, t, "c", 1, "3", 1) == 0);
    REQUIRE(engine_update(x, t, "a", 1, "4", 1) == 0);
    CHECK_EQ_INT(engine_trx_rollback_to(x, sp2), 0);
    get_str(x, t, "a", got);
    CHECK_EQ_STR(got, "2");
    get_str(x, t, "c", got);
    CHECK_EQ_STR(got, "1");
    CHECK_EQ_INT(engine_trx_rollback_to(x, sp1), 0);
    CHECK_EQ_INT(engine_trx_rollback_to(x, sp1), 0); /* twice: nothing more to undo */
    CHECK_EQ_INT(scan_str(x, t, scan), 4);
    CHECK_EQ_STR(scan, "a=1 b=1 c=1 d=x ");
    CHECK(engine_trx_savepoint(x) == sp1);
    REQUIRE(engine_update(x, t, "b", 1, "5", 1) == 0); /* the row it had deleted and restored: still its lock */
    CHECK_EQ_INT(scan_str(r, t, scan), 3);
    CHECK_EQ_STR(scan, "a=1 b=1 c=1 ");
    REQUIRE(engine_trx_commit(x) == 0);
    CHECK_EQ_INT(scan_str(r, t, scan), 3); /* still r's snapshot */
    CHECK_EQ_STR(scan, "a=1 b=1 c=1 ");
    engine_trx_commit(r);
    REQUIRE(engine_trx_begin(e, &r) == 0);
    CHECK_EQ_INT(scan_str(r, t, scan), 4);
    CHECK_EQ_STR(scan, "a=1 b=5 c=1 d=x ");
    engine_trx_commit(r);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    engine_close(e);

    pid_t pid = fork();
    if (pid == 0) {
        engine_t *c = open_engine(dir, 1u << 20);
        if (!c)
            _exit(2);
        engine_trx_t *a, *b, *z;
        engine_trx_begin(c, &a);
        if (engine_insert(a, t, "k", 1, "a", 1) || engine_trx_rollback_to(a, 0) || engine_trx_commit(a))
            _exit(3); /* a: inserted k, took it back, committed with no undo left */
        engine_trx_begin(c, &b);
        if (engine_insert(b, t, "k", 1, "b", 1) || engine_trx_commit(b))
            _exit(4); /* b: k is b's, committed */
        engine_trx_begin(c, &z);
        if (engine_update(z, t, "a", 1, "z", 1) || engine_trx_rollback_to(z, 0) ||
            engine_update(z, t, "a", 1, "y", 1) || engine_insert(z, t, "m", 1, "z", 1))
            _exit(5);
        if (engine_log_sync(c, engine_log_lsn(c)))
            _exit(6);
        _exit(0); /* crash with z open */
    }
    int st;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    REQUIRE(engine_trx_begin(e, &r) == 0);
    CHECK_EQ_INT(scan_str(r, t, scan), 5);
    CHECK_EQ_STR(scan, "a=1 b=5 c=1 d=x k=b ");
    engine_trx_commit(r);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    engine_close(e);
    unit_rmdatadir(dir);
}

/* Two-phase commit: a trx prepared before a crash survives recovery, locked and invisible, until XA COMMIT or
 * XA ROLLBACK; a prepared-then-committed one is simply committed. */
TEST(test_engine_xa_prepare_recovery)
{
    for (int decide = 0; decide < 2; decide++) {
        char dir[64];
        unit_mkdatadir(dir);
        pid_t pid = fork();
        if (pid == 0) {
            engine_t *e = open_engine(dir, 1u << 20);
            engine_tree_id_t t;
            if (!e || engine_tree_create(NULL, e, 0, &t))
                _exit(2);
            engine_trx_t *x, *u;
            engine_trx_begin(e, &x);
            engine_insert(x, t, "k1", 2, "v1", 2);
            engine_insert(x, t, "k3", 2, "v3", 2);
            engine_trx_commit(x);
            engine_trx_begin(e, &u);
            engine_insert(u, t, "u1", 2, "committed", 9);
            uint64_t lsn;
            engine_trx_prepare(u, "xid-u", 5, &lsn);
            engine_trx_commit(u);
            engine_trx_begin(e, &x);
            engine_update(x, t, "k1", 2, "v1-prepared", 11);
            engine_insert(x, t, "k2", 2, "v2-prepared", 11);
            engine_delete(x, t, "k3", 2);
            if (engine_trx_prepare(x, "xid-1", 5, &lsn) || engine_log_sync(e, lsn))
                _exit(3);
            _exit(0); /* crash with x prepared */
        }
        int st;
        waitpid(pid, &st, 0);
        REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        for (int reopen = 0; reopen < 2; reopen++) {
            engine_t *e = open_engine(dir, 1u << 20);
            REQUIRE(e);
            xa_seen_t seen = {0};
            CHECK_EQ_INT(engine_xa_recover(e, xa_cb, &seen), 1);
            CHECK_EQ_STR(seen.xid, "xid-1");
            engine_trx_t *r;
            engine_trx_begin(e, &r);
            char scan[256];
            CHECK_EQ_INT(scan_str(r, 16, scan), 3);
            CHECK_EQ_STR(scan, "k1=v1 k3=v3 u1=committed ");
            engine_trx_commit(r);
            /* its rows are still locked */
            engine_set_lock_wait_timeout(e, 100000);
            engine_trx_begin(e, &r);
            CHECK_EQ_INT(engine_put(r, 16, "k1", 2, "zz", 2), ENGINE_ELOCKWAIT);
            engine_trx_rollback(r);
            if (reopen == 0) {
                engine_close(e); /* the coordinator did not decide: still prepared next time */
                continue;
            }
            if (decide == 0)
                CHECK_EQ_INT(engine_xa_commit(e, seen.id), 0);
            else
                CHECK_EQ_INT(engine_xa_rollback(e, seen.id), 0);
            CHECK_EQ_INT(engine_xa_commit(e, seen.id), STRATA_ENOTFOUND);
            engine_trx_begin(e, &r);
            scan_str(r, 16, scan);
            CHECK_EQ_STR(scan, decide == 0 ? "k1=v1-prepared k2=v2-prepared u1=committed "
                                           : "k1=v1 k3=v3 u1=committed ");
            engine_trx_commit(r);
            engine_close(e);
            e = open_engine(dir, 1u << 20);
            REQUIRE(e);
            CHECK_EQ_INT(engine_xa_recover(e, xa_cb, &seen), 0);
            CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
            engine_close(e);
        }
        unit_rmdatadir(dir);
    }
}

/* Bank transfers between 40 accounts from 4 threads, locking rows in random order (so deadlocks happen),
 * retrying victims, rolling back some on purpose: the total never changes. */
typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    unsigned seed;
    int done, deadlocks, errors;
} bank_t;

static int64_t bal_get(engine_t *e, engine_tree_id_t t, int acct)
{
    char k[16];
    buf_t v;
    buf_init(&v);
    int64_t x = -1;
    if (engine_get_e(e, t, k, k_of(k, "acct", acct), &v) == 0 && v.len == 8)
        memcpy(&x, v.data, 8);
    buf_free(&v);
    return x;
}

static void *bank_thread(void *arg)
{
    bank_t *b = arg;
    while (b->done < 400) {
        int from = rand_r(&b->seed) % 40, to = rand_r(&b->seed) % 40;
        if (from == to)
            continue;
        int64_t amount = rand_r(&b->seed) % 50;
        engine_trx_t *x;
        engine_trx_begin(b->e, &x);
        char k1[16], k2[16];
        size_t l1 = k_of(k1, "acct", from), l2 = k_of(k2, "acct", to);
        int rc = engine_lock_row(x, b->t, k1, l1);
        if (!rc) {
            usleep(50);
            rc = engine_lock_row(x, b->t, k2, l2);
        }
        if (!rc) {
            int64_t a = bal_get(b->e, b->t, from) - amount, c = bal_get(b->e, b->t, to) + amount;
            rc = engine_update(x, b->t, k1, l1, &a, 8);
            if (!rc)
                rc = engine_update(x, b->t, k2, l2, &c, 8);
        }
        if (rc == ENGINE_EDEADLOCK || rc == ENGINE_ELOCKWAIT) {
            b->deadlocks += rc == ENGINE_EDEADLOCK;
            engine_trx_rollback(x);
            continue;
        }
        if (rc) {
            b->errors++;
            engine_trx_rollback(x);
            continue;
        }
        if (rand_r(&b->seed) % 5 == 0)
            engine_trx_rollback(x);
        else
            engine_trx_commit(x);
        b->done++;
    }
    return NULL;
}

typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    volatile int *stop;
    int scans, bad;
} auditor_t;

/* Sums all balances through a REPEATABLE READ snapshot: the total must always be exact. */
static void *auditor(void *arg)
{
    auditor_t *a = arg;
    while (!*a->stop) {
        engine_trx_t *x;
        engine_trx_begin(a->e, &x);
        engine_cursor_t *c;
        engine_cursor_open(x, a->t, &c);
        int64_t sum = 0;
        int n = 0;
        for (int rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c), n++) {
            size_t vl;
            const void *v = engine_cursor_value(c, &vl);
            int64_t b = 0;
            if (vl == 8)
                memcpy(&b, v, 8);
            sum += b;
        }
        engine_cursor_close(c);
        engine_trx_commit(x);
        if (sum != 40 * 1000 || n != 40)
            a->bad++;
        a->scans++;
    }
    return NULL;
}

TEST(test_engine_bank_transfers)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_trx_t *x;
    engine_trx_begin(e, &x);
    char k[16];
    for (int i = 0; i < 40; i++) {
        int64_t v = 1000;
        REQUIRE(engine_insert(x, t, k, k_of(k, "acct", i), &v, 8) == 0);
    }
    engine_trx_commit(x);
    engine_set_lock_wait_timeout(e, 2000000);
    pthread_t th[4], ath;
    bank_t b[4];
    volatile int stop = 0;
    auditor_t au = {.e = e, .t = t, .stop = &stop};
    pthread_create(&ath, NULL, auditor, &au);
    for (int i = 0; i < 4; i++) {
        b[i] = (bank_t){.e = e, .t = t, .seed = (unsigned)i * 13 + 5};
        pthread_create(&th[i], NULL, bank_thread, &b[i]);
    }
    int deadlocks = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(b[i].errors, 0);
        deadlocks += b[i].deadlocks;
    }
    stop = 1;
    pthread_join(ath, NULL);
    CHECK_EQ_INT(au.bad, 0);
    CHECK(au.scans > 3);
    printf("bank: %d consistent audits, %d wrong\n", au.scans, au.bad);
    int64_t sum = 0;
    for (int i = 0; i < 40; i++)
        sum += bal_get(e, t, i);
    CHECK_EQ_INT(sum, 40 * 1000);
    printf("bank: 1600 transfers, %d deadlock victims retried\n", deadlocks);
    engine_close(e);
    /* and after a restart */
    e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    sum = 0;
    for (int i = 0; i < 40; i++)
        sum += bal_get(e, t, i);
    CHECK_EQ_INT(sum, 40 * 1000);
    engine_close(e);
    unit_rmdatadir(dir);
}

/* ---- crash recovery ---- */

typedef struct {
    engine_t *e;
    engine_tree_id_t t;
    int id, fd;
} cw_t;

/* Each transaction writes two rows with the same value (and sometimes a big one); acknowledged by writing its
 * number to the pipe after commit returns. */
static void *crash_writer(void *arg)
{
    cw_t *w = arg;
    char k[32], v[64];
    static char big[30000];
    memset(big, 'z', sizeof big);
    for (int i = 0;; i++) {
        int n = w->id * 1000000 + i;
        engine_trx_t *x;
        engine_trx_begin(w->e, &x);
        int vl = sprintf(v, "v%d", n);
        int rc = engine_insert(x, w->t, k, k_of(k, "a", n), v, (size_t)vl);
        if (!rc)
            rc = engine_insert(x, w->t, k, k_of(k, "b", n), i % 10 == 0 ? big : v, i % 10 == 0 ? sizeof big : (size_t)vl);
        if (!rc && i > 5)
            rc = engine_delete(x, w->t, k, k_of(k, "a", n - 5)) == 0 ? engine_delete(x, w->t, k, k_of(k, "b", n - 5)) : -1;
        if (rc) {
            engine_trx_rollback(x);
            continue;
        }
        if (engine_trx_commit(x) == 0 && write(w->fd, &n, sizeof n) != sizeof n)
            _exit(3);
    }
    return NULL;
}

static void crash_child(const char *dir, int fd, bool first)
{
    engine_t *e = open_engine(dir, 512u << 10); /* 32 pages */
    if (!e)
        _exit(2);
    engine_tree_id_t t = 16;
    if (first && engine_tree_create(NULL, e, 0, &t))
        _exit(2);
    /* An open transaction with many changes that never commits: recovery must roll it back. */
    engine_trx_t *lx;
    engine_trx_begin(e, &lx);
    char k[32];
    for (int i = 0; i < 300; i++)
        engine_put(lx, t, k, k_of(k, "uncommitted", i), "x", 1);
    int sig = -1;
    if (write(fd, &sig, sizeof sig) != sizeof sig)
        _exit(3);
    pthread_t th[3];
    cw_t w[3];
    for (int i = 0; i < 3; i++) {
        w[i] = (cw_t){.e = e, .t = t, .id = i + 1, .fd = fd};
        pthread_create(&th[i], NULL, crash_writer, &w[i]);
    }
    for (;;)
        pause();
}

static int crash_cycle(const char *dir, bool first, int kill_after_ms, int *acked_total)
{
    int p[2];
    if (pipe(p))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        crash_child(dir, p[1], first);
        _exit(0);
    }
    close(p[1]);
    /* Wait for the child to be running, then let it commit for a while and kill it. */
    int n, started = 0;
    if (read(p[0], &n, sizeof n) == sizeof n && n == -1)
        started = 1;
    usleep((useconds_t)kill_after_ms * 1000);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    int *acked = NULL, na = 0, cap = 0;
    while (read(p[0], &n, sizeof n) == sizeof n) {
        if (na == cap) {
            cap = cap ? cap * 2 : 1024;
            acked = realloc(acked, sizeof(int) * (size_t)cap);
        }
        acked[na++] = n;
    }
    close(p[0]);
    if (!started)
        return -2;
    engine_t *e = open_engine(dir, 1u << 20);
    if (!e)
        return -3;
    int bad = 0;
    buf_t v, v2;
    buf_init(&v);
    buf_init(&v2);
    char k[32];
    /* No transaction half-applied: a-rows and b-rows come in pairs. */
    engine_trx_t *x;
    engine_trx_begin(e, &x);
    engine_cursor_t *c;
    engine_cursor_open(x, 16, &c);
    int na_rows = 0, nb_rows = 0, unc = 0, maxid[4] = {0, 0, 0, 0};
    for (int rc = engine_cursor_first(c); rc == 0; rc = engine_cursor_next(c)) {
        size_t kl;
        const char *ck = engine_cursor_key(c, &kl);
        if (ck[0] == 'a') {
            na_rows++;
            int id = atoi(ck + 1);
            if (id / 1000000 >= 1 && id / 1000000 <= 3 && id > maxid[id / 1000000])
                maxid[id / 1000000] = id;
            char kb[32];
            memcpy(kb, ck, kl);
            kb[0] = 'b';
            if (engine_get_e(e, 16, kb, kl, &v) != 0) {
                fprintf(stderr, "half-applied: %.*s without its b row\n", (int)kl, ck);
                bad++;
            }
        } else if (ck[0] == 'b') {
            nb_rows++;
        } else if (ck[0] == 'u') {
            unc++;
        }
    }
    engine_cursor_close(c);
    engine_trx_commit(x);
    /* Every acknowledged commit is present, unless the writer's commit 5 later (which deletes it) committed too:
     * then the writer's newest committed rows, never deleted, are at least 5 further on. */
    for (int i = 0; i < na; i++) {
        int id = acked[i], w = id / 1000000;
        if (engine_get_e(e, 16, k, k_of(k, "a", id), &v) == 0 && engine_get_e(e, 16, k, k_of(k, "b", id), &v2) == 0)
            continue;
        if (w >= 1 && w <= 3 && maxid[w] >= id + 5)
            continue;
        fprintf(stderr, "acknowledged commit %d missing (writer's newest %d)\n", id, maxid[w]);
        bad++;
    }
    if (na_rows != nb_rows) {
        fprintf(stderr, "a rows %d, b rows %d\n", na_rows, nb_rows);
        bad++;
    }
    if (unc) {
        fprintf(stderr, "%d rows of the uncommitted transaction survived\n", unc);
        bad++;
    }
    if (engine_verify(e, NULL, NULL))
        bad++;
    buf_free(&v);
    buf_free(&v2);
    engine_close(e);
    free(acked);
    *acked_total += na;
    return bad;
}

TEST(test_engine_crash_recovery)
{
    char dir[64];
    unit_mkdatadir(dir);
    const char *env = getenv("STRATA_CRASH_CYCLES");
    int cycles = env ? atoi(env) : 6, acked = 0;
    unsigned seed = 7;
    for (int i = 0; i < cycles; i++) {
        int bad = crash_cycle(dir, i == 0, 150 + rand_r(&seed) % 400, &acked);
        if (bad)
            fprintf(stderr, "crash cycle %d: %d fault(s); data directory kept: %s\n", i, bad, dir);
        CHECK_EQ_INT(bad, 0);
        if (bad)
            break;
    }
    printf("crash cycles: %d, acknowledged commits checked: %d\n", cycles, acked);
    CHECK(acked > 50);
    if (getenv("STRATA_CRASH_KEEP"))
        printf("data directory kept: %s\n", dir);
    else if (!unit_failed_checks)
        unit_rmdatadir(dir);
}

/* A page whose on-disk copy is torn after the last checkpoint is rebuilt from its full-page image in the log. */
TEST(test_engine_torn_page)
{
    char dir[64];
    unit_mkdatadir(dir);
    pid_t pid = fork();
    if (pid == 0) {
        engine_t *e = open_engine(dir, 1u << 20);
        engine_tree_id_t t;
        if (!e || engine_tree_create(NULL, e, 0, &t))
            _exit(2);
        engine_trx_t *x;
        char k[32];
        engine_trx_begin(e, &x);
        for (int i = 0; i < 50; i++)
            engine_insert(x, t, k, k_of(k, "t", i), "before", 6);
        engine_trx_commit(x);
        engine_checkpoint(e);
        engine_trx_begin(e, &x);
        for (int i = 50; i < 100; i++)
            engine_insert(x, t, k, k_of(k, "t", i), "after", 5);
        if (engine_trx_commit(x))
            _exit(3);
        _exit(0); /* crash: no page written since the checkpoint */
    }
    int st;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* Tear every B+tree page of tree 16 in the data file. */
    char path[128];
    snprintf(path, sizeof path, "%s/strata_sys.dat", dir);
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    uint8_t pg[16384];
    int torn = 0;
    for (off_t off = 0; pread(fd, pg, sizeof pg, off) == (ssize_t)sizeof pg; off += (off_t)sizeof pg) {
        if (page_type(pg) == PAGE_TYPE_BTREE && page_owner(pg) == 16) {
            memset(pg + 8192, 0xee, 4096);
            REQUIRE(pwrite(fd, pg, sizeof pg, off) == (ssize_t)sizeof pg);
            torn++;
        }
    }
    close(fd);
    CHECK(torn >= 1);
    engine_t *e = open_engine(dir, 1u << 20);
    REQUIRE(e);
    buf_t v;
    buf_init(&v);
    char k[32];
    int bad = 0;
    for (int i = 0; i < 100; i++)
        bad += engine_get_e(e, 16, k, k_of(k, "t", i), &v) != 0;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    buf_free(&v);
    engine_close(e);
    unit_rmdatadir(dir);
}

/* A whole file's bytes, for "nothing was written" checks. */
static size_t file_bytes(const char *dir, const char *name, uint8_t **out)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc((size_t)n + 1);
    size_t got = fread(*out, 1, (size_t)n, f);
    fclose(f);
    return got;
}

typedef struct {
    int n, lost;
    char last[32];
    bool ordered;
    char lo[32], hi[32];
} salvage_seen_t;

static void seen_entry(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    salvage_seen_t *s = ctx;
    (void)v;
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)kl, (const char *)k);
    if (s->n && strcmp(key, s->last) <= 0)
        s->ordered = false;
    if (vl != 200)
        s->ordered = false;
    strcpy(s->last, key);
    s->n++;
}

static void seen_lost(void *ctx, const char *page, const uint8_t *lo, size_t lol, const uint8_t *hi, size_t hil)
{
    salvage_seen_t *s = ctx;
    if (page)
        s->lost++;
    snprintf(s->lo, sizeof s->lo, "%.*s", lo ? (int)lol : 0, lo ? (const char *)lo : "");
    snprintf(s->hi, sizeof s->hi, "%.*s", hi ? (int)hil : 0, hi ? (const char *)hi : "");
}

/* innodb_force_recovery's engine: a read-only open refuses every change, writes no byte of any file, and the
 * salvage walk reads every leaf but a damaged one, naming the key interval it held. */
TEST(test_engine_read_only_and_salvage)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 4u << 20);
    REQUIRE(e);
    engine_tree_id_t t;
    REQUIRE(engine_tree_create(NULL, e, 0, &t) == 0);
    engine_trx_t *x;
    char k[32], val[200];
    memset(val, 'v', sizeof val);
    engine_trx_begin(e, &x);
    for (int i = 0; i < 2000; i++)
        REQUIRE(engine_insert(x, t, k, k_of(k, "s", i), val, sizeof val) == 0);
    REQUIRE(engine_trx_commit(x) == 0);
    engine_close(e);
    uint8_t *dat0, *log0, *dat1, *log1;
    size_t ndat = file_bytes(dir, "strata_sys.dat", &dat0), nlog = file_bytes(dir, "redo.log", &log0);
    REQUIRE(ndat && nlog);

    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 4u << 20;
    o.read_only = true;
    REQUIRE(engine_open(&o, &e) == 0);
    CHECK(engine_read_only(e));
    engine_trx_begin(e, &x);
    CHECK_EQ_INT(engine_insert(x, t, "new", 3, "v", 1), ENGINE_EREADONLY);
    CHECK_EQ_INT(engine_delete(x, t, k, k_of(k, "s", 5)), ENGINE_EREADONLY);
    engine_trx_rollback(x);
    engine_tree_id_t t2;
    CHECK_EQ_INT(engine_tree_create(NULL, e, 0, &t2), ENGINE_EREADONLY);
    CHECK_EQ_INT(engine_tree_drop(NULL, e, t), ENGINE_EREADONLY);
    CHECK_EQ_INT(engine_checkpoint(e), 0);
    buf_t v;
    buf_init(&v);
    CHECK_EQ_INT(engine_get_e(e, t, k, k_of(k, "s", 1999), &v), 0);
    CHECK_EQ_INT((int)v.len, 200);
    buf_free(&v);
    engine_close(e);
    CHECK(file_bytes(dir, "strata_sys.dat", &dat1) == ndat && memcmp(dat0, dat1, ndat) == 0);
    CHECK(file_bytes(dir, "redo.log", &log1) == nlog && memcmp(log0, log1, nlog) == 0);
    free(dat1);
    free(log1);

    /* damage one leaf in the middle of the tree */
    int leaves = 0;
    off_t victim = -1;
    for (size_t off = 0; off + 16384 <= ndat; off += 16384) {
        const uint8_t *pg = dat0 + off;
        if (page_type(pg) == PAGE_TYPE_BTREE && page_owner(pg) == t && rd16(pg + 32) == 0 && ++leaves == 5)
            victim = (off_t)off;
    }
    REQUIRE(victim > 0);
    char path[128];
    snprintf(path, sizeof path, "%s/strata_sys.dat", dir);
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    uint8_t b = dat0[victim + 9000] ^ 0xff;
    REQUIRE(pwrite(fd, &b, 1, victim + 9000) == 1);
    close(fd);
    REQUIRE(engine_open(&o, &e) == 0);
    salvage_seen_t seen = {.ordered = true};
    CHECK_EQ_INT(engine_tree_salvage(e, t, seen_entry, seen_lost, &seen), 0);
    CHECK_EQ_INT(seen.lost, 1);
    CHECK(seen.ordered);
    int lo = atoi(seen.lo + 1), hi = atoi(seen.hi + 1);
    CHECK(seen.lo[0] == 's' && seen.hi[0] == 's' && lo > 0 && hi > lo);
    CHECK_EQ_INT(seen.n, 2000 - (hi - lo)); /* exactly the interval the damaged leaf held is missing */
    engine_close(e);
    free(dat0);
    free(log0);
    unit_rmdatadir(dir);
}

UNIT_MAIN(test_engine_rows_cursors_reopen, test_engine_rollback, test_engine_seed002_tablespace, test_engine_locks,
          test_engine_trx_too_large, test_engine_mvcc, test_engine_xa_prepare_recovery, test_engine_savepoints, test_engine_undo_leaves_memory, test_engine_implicit_locks, test_engine_implicit_lock_race, test_engine_commit_tag, test_engine_bank_transfers,
          test_engine_crash_recovery, test_engine_torn_page, test_engine_read_only_and_salvage)
