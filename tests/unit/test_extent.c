/* Unit tests for engine/space: the extent allocator.  Fill a tablespace until it is full (ENGINE_EFULL), free
 * everything (extents come back), let a second segment grow, round-robin over data files, autoextend, and the
 * descriptors surviving a reopen. */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/space.h"
#include "unit.h"
#include "util/util.h"

#define PS 16384u

typedef struct {
    char dir[64];
    fsys_t *fs;
    bpool_t *bp;
} env_t;

static int env_open(env_t *v, bool create)
{
    if (create) {
        strcpy(v->dir, "/tmp/strata_ext_XXXXXX");
        if (!mkdtemp(v->dir))
            return -1;
    }
    int rc = fsys_open(v->dir, PS, true, 4u << 20, 64, false, &v->fs);
    if (rc)
        return rc;
    bpool_io_t io = {.read = fsys_page_read, .write = fsys_page_write, .ctx = v->fs};
    v->bp = bpool_create(64, PS, &io);
    fsys_attach(v->fs, v->bp, NULL);
    return fsys_load(v->fs);
}

static void env_close(env_t *v, bool rm)
{
    bpool_flush_all(v->bp);
    fsys_sync_all(v->fs);
    bpool_destroy(v->bp);
    fsys_close(v->fs);
    if (rm) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", v->dir);
        if (system(cmd)) {
        }
    }
}

static space_file_info_t file_info(fsys_t *fs, uint32_t space, uint32_t file)
{
    space_file_info_t *v, r = {0};
    size_t n;
    fsys_files(fs, &v, &n);
    for (size_t i = 0; i < n; i++)
        if (v[i].space_id == space && v[i].file_no == file)
            r = v[i];
    mem_free(v);
    return r;
}

static int alloc_one(fsys_t *fs, bpool_t *bp, uint64_t seg, page_id_t *out)
{
    int rc = seg_reserve(fs, NULL, seg, 1);
    if (rc)
        return rc;
    mtr_t m;
    mtr_start(&m, bp, NULL);
    rc = seg_alloc_page(fs, &m, seg, out);
    mtr_commit(&m);
    return rc;
}

static int free_one(fsys_t *fs, bpool_t *bp, uint64_t seg, page_id_t id)
{
    mtr_t m;
    mtr_start(&m, bp, NULL);
    int rc = seg_free_page(fs, &m, seg, id);
    mtr_commit(&m);
    return rc;
}

TEST(test_extent_fill_free_regrow)
{
    env_t v;
    REQUIRE(env_open(&v, true) == 0);
    uint32_t sp;
    /* 8 extents of 1 MiB: one holds metadata, 7 are free. */
    REQUIRE(fsys_space_create(v.fs, "ts1", "ts1.dat", 8u << 20, 1u << 20, 0, false, &sp) == 0);
    space_file_info_t fi = file_info(v.fs, sp, 0);
    CHECK_EQ_INT(fi.total_extents, 8);
    CHECK_EQ_INT(fi.free_extents, 7);
    CHECK_EQ_INT(fi.extent_size, 1u << 20);

    mtr_t m;
    page_id_t first;
    mtr_start(&m, v.bp, NULL);
    REQUIRE(seg_create(v.fs, &m, sp, 1001, &first) == 0);
    mtr_commit(&m);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 6);

    /* Fill: 7 extents x 64 pages, one page already taken. */
    page_id_t *pages = mem_alloc(sizeof(page_id_t) * 7 * 64);
    pages[0] = first;
    int n = 1, rc;
    while ((rc = alloc_one(v.fs, v.bp, 1001, &pages[n])) == 0)
        n++;
    CHECK_EQ_INT(rc, ENGINE_EFULL);
    CHECK_EQ_INT(n, 7 * 64);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 0);
    /* Every page distinct and outside the metadata extent. */
    for (int i = 0; i < n; i++) {
        CHECK(page_id_pgno(pages[i]) >= 64);
        CHECK(page_id_space(pages[i]) == sp);
    }
    uint32_t ext;
    CHECK_EQ_INT(seg_used_pages(v.fs, 1001, &ext), 7 * 64);
    CHECK_EQ_INT(ext, 7);

    /* A second segment cannot even start. */
    mtr_start(&m, v.bp, NULL);
    CHECK_EQ_INT(seg_create(v.fs, &m, sp, 1002, &first), ENGINE_EFULL);
    mtr_commit(&m);

    /* Free one page: the extent stays (not empty), nothing returns. */
    REQUIRE(free_one(v.fs, v.bp, 1001, pages[n - 1]) == 0);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 0);
    /* Free the rest except the first extent's pages: six extents come back, one by one. */
    for (int i = n - 2; i >= 64; i--)
        REQUIRE(free_one(v.fs, v.bp, 1001, pages[i]) == 0);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 6);
    CHECK_EQ_INT(seg_used_pages(v.fs, 1001, &ext), 64);
    CHECK_EQ_INT(ext, 1);
    /* Double free is refused. */
    CHECK_EQ_INT(free_one(v.fs, v.bp, 1001, pages[100]), STRATA_ECORRUPT);

    /* The second segment now grows into the returned extents until full. */
    mtr_start(&m, v.bp, NULL);
    REQUIRE(seg_create(v.fs, &m, sp, 1002, &first) == 0);
    mtr_commit(&m);
    int n2 = 1;
    page_id_t p;
    while ((rc = alloc_one(v.fs, v.bp, 1002, &p)) == 0)
        n2++;
    CHECK_EQ_INT(rc, ENGINE_EFULL);
    CHECK_EQ_INT(n2, 6 * 64);

    /* Reopen: the mirror is rebuilt from the descriptors. */
    env_close(&v, false);
    REQUIRE(env_open(&v, false) == 0);
    CHECK_EQ_INT(seg_used_pages(v.fs, 1002, &ext), 6 * 64);
    CHECK_EQ_INT(ext, 6);
    CHECK_EQ_INT(seg_used_pages(v.fs, 1001, &ext), 64);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 0);
    /* Drop segment 1002: all six extents return. */
    mtr_start(&m, v.bp, NULL);
    REQUIRE(seg_drop(v.fs, &m, 1002) == 0);
    mtr_commit(&m);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 6);
    CHECK_EQ_INT(fsys_space_drop(v.fs, sp), ENGINE_ENOTEMPTY);
    mtr_start(&m, v.bp, NULL);
    REQUIRE(seg_drop(v.fs, &m, 1001) == 0);
    mtr_commit(&m);
    CHECK_EQ_INT(fsys_space_drop(v.fs, sp), 0);
    uint32_t dummy;
    CHECK_EQ_INT(fsys_space_find(v.fs, "ts1", &dummy), STRATA_ENOTFOUND);
    mem_free(pages);
    env_close(&v, true);
}

TEST(test_extent_round_robin)
{
    env_t v;
    REQUIRE(env_open(&v, true) == 0);
    uint32_t sp;
    REQUIRE(fsys_space_create(v.fs, "rr", "rr1.dat", 6u << 20, 1u << 20, 0, false, &sp) == 0);
    REQUIRE(fsys_space_add_file(v.fs, sp, "rr2.dat", 6u << 20) == 0);
    CHECK_EQ_INT(fsys_space_add_file(v.fs, sp, "rr2.dat", 6u << 20), STRATA_EEXIST);
    mtr_t m;
    page_id_t p;
    mtr_start(&m, v.bp, NULL);
    REQUIRE(seg_create(v.fs, &m, sp, 7, &p) == 0);
    mtr_commit(&m);
    int per_file[2] = {0, 0};
    per_file[page_id_file(p)]++;
    for (int i = 1; i < 8 * 64; i++) {
        REQUIRE(alloc_one(v.fs, v.bp, 7, &p) == 0);
        if (page_id_pgno(p) % 64 == 0)
            per_file[page_id_file(p)]++;
    }
    /* 8 extents taken alternately over the two files. */
    CHECK_EQ_INT(per_file[0], 4);
    CHECK_EQ_INT(per_file[1], 4);
    CHECK_EQ_INT(file_info(v.fs, sp, 0).free_extents, 1);
    CHECK_EQ_INT(file_info(v.fs, sp, 1).free_extents, 1);
    env_close(&v, true);
}

TEST(test_extent_autoextend)
{
    env_t v;
    REQUIRE(env_open(&v, true) == 0);
    space_file_info_t fi = file_info(v.fs, SPACE_SYSTEM, 0);
    CHECK(fi.autoextend);
    uint64_t before = fi.total_extents;
    mtr_t m;
    page_id_t p;
    mtr_start(&m, v.bp, NULL);
    REQUIRE(seg_create(v.fs, &m, SPACE_SYSTEM, 5, &p) == 0);
    mtr_commit(&m);
    for (int i = 1; i < 20 * 64; i++)
        REQUIRE(alloc_one(v.fs, v.bp, 5, &p) == 0);
    fi = file_info(v.fs, SPACE_SYSTEM, 0);
    CHECK(fi.total_extents > before);
    CHECK(fi.total_extents >= 21);
    env_close(&v, false);
    REQUIRE(env_open(&v, false) == 0);
    CHECK_EQ_INT(file_info(v.fs, SPACE_SYSTEM, 0).total_extents, fi.total_extents);
    CHECK_EQ_INT(seg_used_pages(v.fs, 5, NULL), 20 * 64);
    env_close(&v, true);
}

TEST(test_extent_leftover_refused)
{
    char dir[] = "/tmp/strata_ext2_XXXXXX";
    REQUIRE(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/strata_sys.dat", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fclose(f);
    fsys_t *fs;
    CHECK_EQ_INT(fsys_open(dir, PS, true, 4u << 20, 64, false, &fs), STRATA_EEXIST);
    unlink(path);
    rmdir(dir);
}

UNIT_MAIN(test_extent_fill_free_regrow, test_extent_round_robin, test_extent_autoextend, test_extent_leftover_refused)
