/*
 * engine/verify: checking one tree against itself and against the tablespace, shared by the offline checker
 * (tools/strata-check, a whole data directory) and CHECK TABLE (one table's trees, online).
 *
 * engine_tree_check() makes three checks:
 *   1. structure (btree_verify): checksums and headers of the tree's pages, key order within and across pages,
 *      separator bounds, levels, leaf links both ways;
 *   2. ownership: every page the tree reaches (nodes and overflow pages) is marked used in its extent's
 *      descriptor, and that extent is owned by this tree's segment; no page is reached twice;
 *   3. accounting: the segment owns at least as many pages as the tree reaches.
 * Each problem is one call of the fault callback with a sentence; the result is 0 or STRATA_ECORRUPT.
 *
 * Online: the walk holds the tree's latch shared (btree_walk), and each page's descriptor is read from inside
 * the walk, so a concurrent split or merge of this tree cannot free or allocate a page between the two reads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine_int.h"
#include "engine/page.h"
#include "util/util.h"

typedef struct vwalk {
    fsys_t *fs;
    uint64_t tree;
    const engine_check_report_t *r;
    page_id_t *seen;
    size_t n, cap;
    uint64_t faults;
} vwalk_t;

static void vfault(vwalk_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vfault(vwalk_t *w, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->faults++;
    if (w->r && w->r->fault)
        w->r->fault(w->r->ctx, msg);
}

static void on_page(void *ctx, page_id_t id, page_type_t type)
{
    (void)type;
    vwalk_t *w = ctx;
    uint32_t sp = page_id_space(id), fno = page_id_file(id), pg = page_id_pgno(id);
    uint32_t ep = fsys_extent_pages(w->fs, sp);
    uint64_t owner = 0;
    uint16_t used = 0;
    uint8_t bm[32] = {0};
    if (!ep || fsys_xdes_read(w->fs, sp, fno, pg / ep, &owner, &used, bm))
        vfault(w, "tree %llu uses page %u:%u:%u, whose extent descriptor cannot be read", (unsigned long long)w->tree,
               sp, fno, pg);
    else if (!((bm[(pg % ep) / 8] >> ((pg % ep) % 8)) & 1))
        vfault(w, "tree %llu uses page %u:%u:%u, which is not allocated", (unsigned long long)w->tree, sp, fno, pg);
    else if (owner != w->tree)
        vfault(w, "tree %llu uses page %u:%u:%u of segment %llu", (unsigned long long)w->tree, sp, fno, pg,
               (unsigned long long)owner);
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 256;
        w->seen = mem_realloc(w->seen, w->cap * sizeof *w->seen);
    }
    w->seen[w->n++] = id;
    if (w->r && w->r->page)
        w->r->page(w->r->ctx, id);
}

static int cmp_id(const void *a, const void *b)
{
    page_id_t x = *(const page_id_t *)a, y = *(const page_id_t *)b;
    return x < y ? -1 : x > y;
}

int engine_tree_check(engine_t *e, uint64_t tree, const engine_check_report_t *r, uint64_t *rows_out)
{
    vwalk_t w = {.fs = engine_fsys(e), .tree = tree, .r = r};
    btree_t *t;
    uint64_t pages = 0, rows = 0;
    if (engine_tree_handle(e, tree, &t)) {
        vfault(&w, "tree %llu is not in the tree directory", (unsigned long long)tree);
        return STRATA_ECORRUPT;
    }
    int rc = btree_verify(t, &pages, &rows);
    if (rc)
        vfault(&w, "tree %llu: B+tree structure is corrupt (error %d; the server log has the page)",
               (unsigned long long)tree, rc);
    if (btree_walk(t, on_page, &w))
        vfault(&w, "tree %llu cannot be walked", (unsigned long long)tree);
    if (w.n)
        qsort(w.seen, w.n, sizeof *w.seen, cmp_id);
    for (size_t i = 1; i < w.n; i++)
        if (w.seen[i] == w.seen[i - 1])
            vfault(&w, "page %u:%u:%u is reached twice in tree %llu", page_id_space(w.seen[i]),
                   page_id_file(w.seen[i]), page_id_pgno(w.seen[i]), (unsigned long long)tree);
    if (tree != engine_dir_tree_id()) {
        int64_t owned = seg_used_pages(w.fs, tree, NULL);
        if (owned < (int64_t)w.n)
            vfault(&w, "tree %llu reaches %zu pages but its segment owns %lld", (unsigned long long)tree, w.n,
                   (long long)owned);
    }
    mem_free(w.seen);
    if (rows_out)
        *rows_out = rows;
    return w.faults ? STRATA_ECORRUPT : 0;
}
