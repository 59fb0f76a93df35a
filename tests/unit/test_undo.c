/* Unit tests for logfile groups and the undo spill (engine/undo.h): transactions whose undo is several times the
 * redo log survive a crash (rolled back from the spill and the log; committed ones stay; a prepared one stays
 * prepared), a CREATE LOGFILE GROUP file bounds a transaction's undo, and engine_files reports the undo file
 * from live counters. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/undo.h"
#include "unit.h"
#include "util/util.h"

#define ROWS 2000
#define VLEN 3000

static engine_t *open_engine(const char *dir, uint64_t undo_max)
{
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 2u << 20;
    o.log_bytes = 16u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    o.undo_max_bytes = undo_max;
    engine_t *e = NULL;
    int rc = engine_open(&o, &e);
    if (rc)
        fprintf(stderr, "engine_open: %d\n", rc);
    return e;
}

static size_t key_of(char *k, int i) { return (size_t)sprintf(k, "r%08d", i); }

static int load(engine_t *e, engine_tree_id_t *t)
{
    static char v[VLEN];
    memset(v, 'o', sizeof v);
    char k[32];
    int rc = engine_tree_create(NULL, e, 0, t);
    engine_trx_t *x;
    engine_trx_begin(e, &x);
    for (int i = 0; i < ROWS && !rc; i++)
        rc = engine_insert(x, *t, k, key_of(k, i), v, sizeof v);
    return rc ? rc : engine_trx_commit(x);
}

/* rounds x ROWS updates to `c` in trx x (60 MB of undo for 10 rounds). */
static int big_update(engine_trx_t *x, engine_tree_id_t t, char c, int rounds)
{
    static char v[VLEN];
    memset(v, c, sizeof v);
    char k[32];
    int rc = 0;
    for (int r = 0; r < rounds && !rc; r++)
        for (int i = 0; i < ROWS && !rc; i++)
            rc = engine_update(x, t, k, key_of(k, i), v, sizeof v);
    return rc;
}

/* Rows whose value is not all `c`. */
static int rows_not(engine_t *e, engine_tree_id_t t, char c)
{
    char k[32];
    buf_t b;
    buf_init(&b);
    int bad = 0;
    for (int i = 0; i < ROWS; i++) {
        if (engine_get_e(e, t, k, key_of(k, i), &b) || b.len != VLEN) {
            bad++;
            continue;
        }
        for (size_t j = 0; j < b.len; j++)
            if (b.data[j] != c) {
                bad++;
                break;
            }
    }
    buf_free(&b);
    return bad;
}

static bool undo_row(engine_t *e, engine_file_info_t *out)
{
    engine_file_info_t *f;
    size_t n;
    bool found = false;
    if (engine_files(e, &f, &n))
        return false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].file_type, "UNDO LOG") == 0) {
            *out = f[i];
            found = true;
        }
    engine_files_free(f);
    return found;
}

typedef enum { END_NONE = 0, END_COMMIT, END_PREPARE } crash_end_t;

static void xa_cb(void *ctx, uint64_t trx_id, const void *xid, size_t len) { *(uint64_t *)ctx = trx_id; }

/* A child loads, runs a 60 MB transaction on a 16 MiB log, ends it as told, makes the log durable and dies. */
static void crash_case(crash_end_t how)
{
    char dir[64];
    unit_mkdatadir(dir);
    pid_t pid = fork();
    if (pid == 0) {
        engine_t *e = open_engine(dir, 0);
        engine_tree_id_t t;
        if (!e || load(e, &t))
            _exit(2);
        engine_trx_t *x;
        engine_trx_begin(e, &x);
        if (big_update(x, t, 'n', 10))
            _exit(3);
        engine_file_info_t u;
        if (!undo_row(e, &u) || u.free_extents * 4 + 4096 >= u.size)
            _exit(4); /* the spill must be in use */
        uint64_t lsn;
        if (how == END_COMMIT && engine_trx_commit(x))
            _exit(5);
        if (how == END_PREPARE && (engine_trx_prepare(x, "big", 3, &lsn) || engine_log_sync(e, lsn)))
            _exit(6);
        engine_stats_t st;
        engine_stats(e, &st);
        if (engine_log_sync(e, st.log_lsn))
            _exit(7);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st));
    CHECK_EQ_INT(WEXITSTATUS(st), 0);
    engine_t *e = open_engine(dir, 0);
    REQUIRE(e);
    engine_tree_id_t t = 16;
    if (how == END_COMMIT) {
        CHECK_EQ_INT(rows_not(e, t, 'n'), 0);
    } else if (how == END_PREPARE) {
        uint64_t id = 0;
        CHECK_EQ_INT(engine_xa_recover(e, xa_cb, &id), 1);
        CHECK(id != 0);
        /* still invisible to others: the latest version is the prepared one, locked */
        CHECK_EQ_INT(engine_xa_rollback(e, id), 0);
        CHECK_EQ_INT(rows_not(e, t, 'o'), 0);
    } else {
        CHECK_EQ_INT(rows_not(e, t, 'o'), 0);
    }
    CHECK_EQ_INT(engine_verify(e, NULL, NULL), 0);
    engine_close(e);
    /* And once more: the spill of the first restart is not needed any more. */
    e = open_engine(dir, 0);
    REQUIRE(e);
    CHECK_EQ_INT(rows_not(e, t, how == END_COMMIT ? 'n' : 'o'), 0);
    engine_file_info_t u;
    CHECK(undo_row(e, &u));
    CHECK_EQ_STR(u.logfile_group_name, "DEFAULT_LG");
    CHECK_EQ_INT(u.free_extents * 4 + 4096, u.size); /* nothing live */
    engine_close(e);
    unit_rmdatadir(dir);
}

TEST(test_undo_spill_crash_uncommitted) { crash_case(END_NONE); }
TEST(test_undo_spill_crash_committed) { crash_case(END_COMMIT); }
TEST(test_undo_spill_crash_prepared) { crash_case(END_PREPARE); }

/* CREATE LOGFILE GROUP: a fixed undo file bounds a transaction; FILES reports it; DROP when idle. */
TEST(test_undo_logfile_group)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir, 0);
    REQUIRE(e);
    engine_file_info_t u;
    CHECK(!undo_row(e, &u));
    REQUIRE(engine_logfile_group_create(e, "lg", "u.log", 8u << 20, 1u << 20) == 0);
    CHECK_EQ_INT(engine_logfile_group_create(e, "lg2", "u2.log", 8u << 20, 0), STRATA_EEXIST);
    REQUIRE(undo_row(e, &u));
    CHECK_EQ_STR(u.logfile_group_name, "lg");
    CHECK_EQ_STR(u.file_name, "u.log");
    CHECK_EQ_INT(u.extent_size, 4);
    CHECK_EQ_INT(u.total_extents, (8u << 20) / 4);
    CHECK_EQ_INT(u.free_extents, ((8u << 20) - 4096) / 4);
    CHECK_EQ_INT(u.initial_size, 8u << 20);
    CHECK_EQ_INT(u.maximum_size, 8u << 20);
    CHECK_EQ_INT(u.undo_buffer_size, 1u << 20);
    engine_tree_id_t t;
    REQUIRE(load(e, &t) == 0);
    engine_trx_t *x;
    engine_trx_begin(e, &x);
    int rc = big_update(x, t, 'n', 10);
    CHECK_EQ_INT(rc, ENGINE_ELOGFULL);
    REQUIRE(undo_row(e, &u));
    printf("undo file while the big trx is open: %llu of %llu words free\n", (unsigned long long)u.free_extents,
           (unsigned long long)u.total_extents);
    CHECK(u.free_extents < u.total_extents - 1024);
    CHECK_EQ_INT(engine_logfile_group_drop(e, "lg"), ENGINE_ENOTEMPTY);
    CHECK_EQ_INT(engine_trx_rollback(x), 0);
    CHECK_EQ_INT(rows_not(e, t, 'o'), 0);
    /* a transaction that fits */
    engine_trx_begin(e, &x);
    CHECK_EQ_INT(big_update(x, t, 'm', 1), 0);
    CHECK_EQ_INT(engine_trx_commit(x), 0);
    CHECK_EQ_INT(rows_not(e, t, 'm'), 0);
    engine_close(e);
    e = open_engine(dir, 0);
    REQUIRE(e);
    REQUIRE(undo_row(e, &u));
    CHECK_EQ_STR(u.logfile_group_name, "lg");
    CHECK_EQ_INT(u.free_extents, ((8u << 20) - 4096) / 4);
    CHECK_EQ_INT(engine_logfile_group_drop(e, "nope"), STRATA_ENOTFOUND);
    CHECK_EQ_INT(engine_logfile_group_drop(e, "lg"), 0);
    CHECK(!undo_row(e, &u));
    char p[128];
    snprintf(p, sizeof p, "%s/u.log", dir);
    CHECK(access(p, F_OK) != 0);
    engine_close(e);
    unit_rmdatadir(dir);
}

/* A spill appended without undo_spill_begin (the checkpointer found a transaction to spill only after its scan)
 * must never be written over the undo file's header: the append fails and the file still opens. */
TEST(test_undo_spill_never_over_header)
{
    char dir[64];
    unit_mkdatadir(dir);
    undo_sys_t *u;
    REQUIRE(undo_sys_open(dir, 64u << 20, &u) == 0);
    REQUIRE(undo_lfg_create(u, "lg", "u.log", 8u << 20, 1u << 20) == 0);
    uint8_t rec[100];
    memset(rec, 'r', sizeof rec);
    memset(rec, 0, 8); /* the record's trx id */
    CHECK_EQ_INT(undo_spill_append(u, rec, sizeof rec), 0);
    undo_manifest_ent_t ent = {.trx_id = 0};
    uint64_t man, end;
    CHECK(undo_spill_manifest(u, &ent, 1, &man, &end) != 0);
    undo_spill_abort(u);
    undo_sys_close(u);
    REQUIRE(undo_sys_open(dir, 64u << 20, &u) == 0); /* the header is intact */
    undo_sys_close(u);
    /* with undo_spill_begin first, the same spill is written after the header */
    REQUIRE(undo_sys_open(dir, 64u << 20, &u) == 0);
    bool restarted;
    REQUIRE(undo_spill_begin(u, &restarted) == 0);
    CHECK_EQ_INT(undo_spill_append(u, rec, sizeof rec), 0);
    CHECK_EQ_INT(undo_spill_manifest(u, &ent, 1, &man, &end), 0);
    CHECK(man >= UNDO_FILE_HDR);
    undo_sys_close(u);
    REQUIRE(undo_sys_open(dir, 64u << 20, &u) == 0);
    undo_sys_close(u);
    unit_rmdatadir(dir);
}

UNIT_MAIN(test_undo_spill_crash_uncommitted, test_undo_spill_crash_committed, test_undo_spill_crash_prepared,
          test_undo_logfile_group, test_undo_spill_never_over_header)
