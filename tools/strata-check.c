/*
 * strata-check DATADIR: offline checker of an engine data directory.  Exits 0 when clean, 1 on any fault,
 * 2 when the directory cannot be opened.
 *
 *   1. recovery: opens the engine (replaying the redo log as the server would) and closes it cleanly, so the
 *      files are in their checkpointed state (skipped with --no-recover: then the files are checked as they are)
 *   2. pages: reads every page of every data file directly and verifies checksum, magic, version, page id and
 *      type (all-zero pages, never written, are fine)
 *   3. trees: for every tree of the directory, key order within and across pages, separator bounds, levels,
 *      leaf links both ways, overflow chains; every page a tree reaches allocated in its own segment's extents
 *      (engine/verify.c, shared with CHECK TABLE)
 *   4. extents: every descriptor's used count equals its bitmap; every page a tree uses is allocated, in an
 *      extent owned by that tree; extents owned by no tree are faults; allocated pages no tree reaches are
 *      reported as leaked (a crash between writing a large value's overflow pages and its row leaves some)
 *      but are not faults
 *
 * Debugging dumps (read-only, nothing is recovered or written):
 *   strata-check --dump-page SPACE:FILE:PAGE DATADIR   header and cells of one page
 *   strata-check --dump-redo DATADIR                   checkpoint slots and every valid group from the tail on
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/page.h"
#include "engine/redo.h"
#include "util/util.h"

typedef struct {
    page_id_t id;
    uint64_t owner;
    bool seen;
} alloc_t;

typedef struct {
    alloc_t *a;
    size_t n, cap;
    uint64_t tree;
    uint64_t faults;
    bool verbose;
} ctx_t;

static int cmp_alloc(const void *x, const void *y)
{
    page_id_t a = ((const alloc_t *)x)->id, b = ((const alloc_t *)y)->id;
    return a < b ? -1 : a > b;
}

static alloc_t *find_alloc(ctx_t *c, page_id_t id)
{
    alloc_t key = {.id = id};
    return bsearch(&key, c->a, c->n, sizeof(alloc_t), cmp_alloc);
}

static void fault(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fault(ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "FAULT: ");
    vfprintf(stdout, fmt, ap);
    fprintf(stdout, "\n");
    va_end(ap);
    c->faults++;
}

static int check_pages(ctx_t *c, const char *datadir, fsys_t *fs, uint64_t *npages)
{
    space_file_info_t *f;
    size_t n;
    if (fsys_files(fs, &f, &n))
        return -1;
    uint8_t *pg = NULL;
    uint32_t ps = fsys_page_size(fs);
    if (posix_memalign((void **)&pg, 4096, ps))
        return -1;
    for (size_t i = 0; i < n; i++) {
        char path[1100];
        if (f[i].path[0] == '/')
            snprintf(path, sizeof path, "%s", f[i].path);
        else
            snprintf(path, sizeof path, "%s/%s", datadir, f[i].path);
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st)) {
            fault(c, "cannot open data file %s", path);
            if (fd >= 0)
                close(fd);
            continue;
        }
        uint64_t pages = (uint64_t)st.st_size / ps, bad = 0, types[PAGE_TYPE_MAX_] = {0};
        for (uint64_t p = 0; p < pages; p++) {
            if (pread(fd, pg, ps, (off_t)(p * ps)) != (ssize_t)ps) {
                fault(c, "%s: short read at page %llu", path, (unsigned long long)p);
                break;
            }
            page_id_t id = page_id_make(f[i].space_id, f[i].file_no, (uint32_t)p);
            if (page_verify(pg, ps, id, true)) {
                fault(c, "%s: page %llu fails its checksum/header check", path, (unsigned long long)p);
                bad++;
                continue;
            }
            types[page_is_zero(pg, ps) ? PAGE_TYPE_FREE : page_type(pg)]++;
        }
        close(fd);
        *npages += pages;
        printf("file %s (tablespace %s): %llu pages, %llu bad; file-hdr %llu xdes %llu btree %llu overflow %llu "
               "unwritten %llu\n",
               path, f[i].space_name, (unsigned long long)pages, (unsigned long long)bad,
               (unsigned long long)types[PAGE_TYPE_FILE_HDR], (unsigned long long)types[PAGE_TYPE_XDES],
               (unsigned long long)types[PAGE_TYPE_BTREE], (unsigned long long)types[PAGE_TYPE_OVERFLOW],
               (unsigned long long)types[PAGE_TYPE_FREE]);
    }
    free(pg);
    mem_free(f);
    return 0;
}

static void collect_allocations(ctx_t *c, engine_t *e)
{
    fsys_t *fs = engine_fsys(e);
    uint32_t ids[1024], nids;
    fsys_space_ids(fs, ids, 1024, &nids);
    for (uint32_t s = 0; s < nids; s++) {
        uint32_t ep = fsys_extent_pages(fs, ids[s]);
        for (uint32_t fno = 0; fno < fsys_space_nfiles(fs, ids[s]); fno++) {
            uint32_t next = fsys_file_extents(fs, ids[s], fno);
            for (uint32_t x = 0; x < next; x++) {
                uint64_t owner;
                uint16_t used;
                uint8_t bm[32];
                if (fsys_xdes_read(fs, ids[s], fno, x, &owner, &used, bm)) {
                    fault(c, "space %u file %u: descriptor of extent %u unreadable", ids[s], fno, x);
                    continue;
                }
                uint32_t bits = 0;
                for (uint32_t b = 0; b < ep; b++)
                    bits += (bm[b / 8] >> (b % 8)) & 1;
                if (bits != used)
                    fault(c, "space %u file %u extent %u: used count %u, bitmap has %u", ids[s], fno, x, used, bits);
                if (owner == 0 && used)
                    fault(c, "space %u file %u extent %u: free but %u pages marked used", ids[s], fno, x, used);
                if (owner == 0 || owner == XDES_OWNER_META)
                    continue;
                for (uint32_t b = 0; b < ep; b++)
                    if ((bm[b / 8] >> (b % 8)) & 1) {
                        if (c->n == c->cap) {
                            c->cap = c->cap ? c->cap * 2 : 4096;
                            c->a = realloc(c->a, c->cap * sizeof(alloc_t));
                        }
                        c->a[c->n++] = (alloc_t){.id = page_id_make(ids[s], fno, x * ep + b), .owner = owner};
                    }
            }
        }
    }
    qsort(c->a, c->n, sizeof(alloc_t), cmp_alloc);
}

/* engine_tree_check's callbacks: faults printed; every page reached marked, so that what is left unmarked
 * is allocated but unreachable (leaked). */
static void on_fault(void *ctx, const char *msg) { fault(ctx, "%s", msg); }

static void on_page(void *ctx, uint64_t id)
{
    alloc_t *a = find_alloc(ctx, id);
    if (a)
        a->seen = true;
}

typedef struct {
    uint64_t *ids;
    size_t n, cap;
} idlist_t;

static void on_tree(void *ctx, uint64_t tree, uint32_t space, int rc, uint64_t pages, uint64_t rows,
                    int64_t owned)
{
    idlist_t *l = ctx;
    printf("tree %llu (tablespace %u): %s, %llu rows, %llu pages used, %lld allocated\n", (unsigned long long)tree,
           space, rc ? "FAULT" : "ok", (unsigned long long)rows, (unsigned long long)pages, (long long)owned);
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->ids = realloc(l->ids, l->cap * sizeof(uint64_t));
    }
    l->ids[l->n++] = tree;
}

/* ---------------------------------------------------------------- dumps */

static void dump_page(const uint8_t *pg, uint32_t ps)
{
    static const char *types[] = {"free", "file-header", "xdes", "btree", "overflow"};
    printf("checksum %08x (%s) magic %04x version %u type %u (%s) id %u:%u:%u lsn %llu owner %llu\n", rd32(pg),
           rd32(pg) == crc32c(0, pg + 4, ps - 4) ? "ok" : "BAD", rd16(pg + 4), pg[6], pg[7],
           pg[7] < PAGE_TYPE_MAX_ ? types[pg[7]] : "?", page_id_space(page_get_id(pg)), page_id_file(page_get_id(pg)),
           page_id_pgno(page_get_id(pg)), (unsigned long long)page_lsn(pg), (unsigned long long)page_owner(pg));
    if (page_type(pg) == PAGE_TYPE_BTREE) {
        uint16_t level = rd16(pg + 32), n = rd16(pg + 34);
        printf("level %u slots %u heap %u garbage %u prev %llx next %llx\n", level, n, rd16(pg + 36), rd16(pg + 38),
               (unsigned long long)rd64(pg + 40), (unsigned long long)rd64(pg + 48));
        for (uint16_t i = 0; i < n; i++) {
            const uint8_t *c = pg + rd16(pg + 64 + 2 * i);
            uint16_t kl = rd16(c);
            const uint8_t *k = c + (level ? 10 : 16);
            printf("  [%u] key ", i);
            for (uint16_t j = 0; j < kl && j < 48; j++)
                printf(k[j] >= 32 && k[j] < 127 ? "%c" : "\\x%02x", k[j]);
            if (level)
                printf(" -> child %llx\n", (unsigned long long)rd64(c + 2));
            else
                printf(" value %u bytes%s trx %llu\n", rd32(c + 4), (c[2] & 1) ? " (overflow)" : "",
                       (unsigned long long)rd64(c + 8));
        }
    } else if (page_type(pg) == PAGE_TYPE_XDES) {
        uint32_t first = rd32(pg + 32), cnt = rd32(pg + 36);
        for (uint32_t i = 0; i < cnt; i++) {
            const uint8_t *d = pg + 40 + 48 * i;
            if (rd64(d))
                printf("  extent %u owner %lld used %u\n", first + i, (long long)rd64(d), rd16(d + 8));
        }
    } else if (page_type(pg) == PAGE_TYPE_OVERFLOW) {
        printf("next %llx bytes %u\n", (unsigned long long)rd64(pg + 32), rd32(pg + 40));
    }
}

static int cmd_dump_page(const char *dir, const char *spec)
{
    unsigned sp, fno, pgno;
    if (sscanf(spec, "%u:%u:%u", &sp, &fno, &pgno) != 3) {
        fprintf(stderr, "strata-check: page must be SPACE:FILE:PAGE\n");
        return 2;
    }
    fsys_t *fs;
    if (fsys_open(dir, 0, false, 0, 0, false, &fs)) {
        fprintf(stderr, "strata-check: cannot read %s\n", dir);
        return 2;
    }
    uint32_t ps = fsys_page_size(fs);
    uint8_t *pg = mem_alloc(ps);
    int rc = fsys_page_read(fs, page_id_make(sp, fno, pgno), pg);
    if (!rc)
        dump_page(pg, ps);
    else
        fprintf(stderr, "strata-check: cannot read page %u:%u:%u (%d)\n", sp, fno, pgno, rc);
    mem_free(pg);
    fsys_close(fs);
    return rc ? 1 : 0;
}

static int dump_group(void *ctx, uint64_t start, uint64_t end, const uint8_t *b, size_t len)
{
    uint32_t ps = *(uint32_t *)ctx;
    printf("group %llu..%llu (%zu bytes):", (unsigned long long)start, (unsigned long long)end, len);
    const uint8_t *p = b, *e = b + len;
    while (p < e) {
        uint8_t t = *p++;
        if (t == 1 && e - p >= 8 + (long)ps) {
            printf(" IMAGE %u:%u:%u", page_id_space(rd64(p)), page_id_file(rd64(p)), page_id_pgno(rd64(p)));
            p += 8 + ps;
        } else if (t == 2 && e - p >= 10) {
            uint16_t n = rd16(p + 8);
            printf(" DIFF %u:%u:%u/%u", page_id_space(rd64(p)), page_id_file(rd64(p)), page_id_pgno(rd64(p)), n);
            p += 10;
            for (uint16_t i = 0; i < n && e - p >= 4; i++)
                p += 4 + rd16(p + 2);
        } else if ((t == 3 || t == 6) && e - p >= 8) {
            printf(" %s trx %llu", t == 3 ? "COMMIT" : "ROLLBACK", (unsigned long long)rd64(p));
            p += 8;
        } else if (t == 7 && e - p >= 10) {
            printf(" PREPARE trx %llu xid %u bytes", (unsigned long long)rd64(p), rd16(p + 8));
            p += 10 + rd16(p + 8);
        } else if (t == 4 && e - p >= 2) {
            printf(" NOTE %u", rd16(p));
            p += 2 + rd16(p);
        } else if (t == 5 && e - p >= 4) {
            uint32_t l = rd32(p);
            const uint8_t *u = p + 4;
            if (l >= 31)
                printf(" UNDO trx %llu tree %llu prev trx %llu op %u key %u bytes old %u bytes",
                       (unsigned long long)rd64(u), (unsigned long long)rd64(u + 8), (unsigned long long)rd64(u + 16),
                       u[24], rd16(u + 25), rd32(u + 27));
            p += 4 + l;
        } else {
            printf(" ?type %u", t);
            break;
        }
    }
    printf("\n");
    return 0;
}

static int cmd_dump_redo(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/redo.log", dir);
    redo_t *r;
    if (redo_open(path, 0, 0, true, false, &r)) {
        fprintf(stderr, "strata-check: cannot open %s\n", path);
        return 2;
    }
    const redo_ckpt_t *c = redo_last_ckpt(r);
    printf("redo %s: capacity %llu; checkpoint lsn %llu tail %llu run %u next trx %llu\n", path,
           (unsigned long long)redo_capacity(r), (unsigned long long)c->ckpt_lsn, (unsigned long long)c->tail_lsn,
           c->run_id, (unsigned long long)c->user[0]);
    fsys_t *fs;
    uint32_t ps = 16384;
    if (fsys_open(dir, 0, false, 0, 0, false, &fs) == 0) {
        ps = fsys_page_size(fs);
        fsys_close(fs);
    }
    uint64_t end;
    int rc = redo_scan(r, dump_group, &ps, &end);
    printf("end of log at %llu\n", (unsigned long long)end);
    redo_close(r);
    return rc ? 1 : 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: strata-check [--no-recover] DATADIR\n"
                    "       strata-check --dump-page SPACE:FILE:PAGE DATADIR\n"
                    "       strata-check --dump-redo DATADIR\n");
    return 2;
}

int main(int argc, char **argv)
{
    bool recover = true, dump_redo = false;
    const char *dir = NULL, *page = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-recover") == 0)
            recover = false;
        else if (strcmp(argv[i], "--dump-redo") == 0)
            dump_redo = true;
        else if (strcmp(argv[i], "--dump-page") == 0 && i + 1 < argc)
            page = argv[++i];
        else if (argv[i][0] == '-')
            return usage();
        else
            dir = argv[i];
    }
    if (!dir)
        return usage();
    if (dump_redo)
        return cmd_dump_redo(dir);
    if (page)
        return cmd_dump_page(dir, page);
    char ctl[1024];
    snprintf(ctl, sizeof ctl, "%s/strata.ctl", dir);
    if (access(ctl, R_OK) != 0) {
        fprintf(stderr, "strata-check: %s is not a strata data directory (no strata.ctl)\n", dir);
        return 2;
    }
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 64u << 20;
    o.rebalance_off = true; /* nothing may move pages while they are being checked */
    engine_t *e;
    ctx_t c = {0};
    uint64_t npages = 0;
    if (!recover) {
        /* Read-only: the engine is not opened, nothing is written; only the page pass runs. */
        fsys_t *fs;
        if (fsys_open(dir, 0, false, 0, 0, false, &fs)) {
            fprintf(stderr, "strata-check: cannot read %s\n", dir);
            return 2;
        }
        check_pages(&c, dir, fs, &npages);
        fsys_close(fs);
        printf("strata-check: --no-recover: %llu pages checked, %llu fault(s) (trees and extents not checked)\n",
               (unsigned long long)npages, (unsigned long long)c.faults);
        return c.faults ? 1 : 0;
    }
    if (engine_open(&o, &e)) {
        fprintf(stderr, "strata-check: cannot open %s (see the log above)\n", dir);
        return 2;
    }
    engine_close(e);
    if (engine_open(&o, &e)) {
        fprintf(stderr, "strata-check: cannot open %s\n", dir);
        return 2;
    }
    /* Pages are read straight from the files: after the clean close above they hold every change. */
    check_pages(&c, dir, engine_fsys(e), &npages);
    if (recover) {
        idlist_t trees = {0};
        if (engine_verify(e, on_tree, &trees))
            fault(&c, "B+tree structure check failed (see the log above)");
        collect_allocations(&c, e);
        /* each tree against the extents: the same check CHECK TABLE makes online (engine/verify.c) */
        engine_check_report_t rep = {.fault = on_fault, .page = on_page, .ctx = &c};
        uint64_t dir_id = engine_dir_tree_id();
        engine_tree_check(e, dir_id, &rep, NULL);
        for (size_t i = 0; i < trees.n; i++)
            engine_tree_check(e, trees.ids[i], &rep, NULL);
        uint64_t leaked = 0;
        for (size_t i = 0; i < c.n; i++) {
            if (c.a[i].seen)
                continue;
            bool known = c.a[i].owner == dir_id;
            for (size_t j = 0; j < trees.n && !known; j++)
                known = trees.ids[j] == c.a[i].owner;
            if (!known)
                fault(&c, "page %u:%u:%u allocated to segment %llu, which no tree owns", page_id_space(c.a[i].id),
                      page_id_file(c.a[i].id), page_id_pgno(c.a[i].id), (unsigned long long)c.a[i].owner);
            else
                leaked++;
        }
        printf("extents: %zu pages allocated, %llu leaked (allocated, unreachable)\n", c.n,
               (unsigned long long)leaked);
        free(trees.ids);
    }
    engine_close(e);
    free(c.a);
    printf("strata-check: %llu pages checked, %llu fault(s)\n", (unsigned long long)npages,
           (unsigned long long)c.faults);
    return c.faults ? 1 : 0;
}
