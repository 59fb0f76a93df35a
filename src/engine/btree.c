/*
 * engine/btree: B+tree pages, search, insert with splits, delete with merges, overflow chains, cursors (see
 * btree.h for the concurrency scheme).
 *
 * B+tree page (type BTREE), after the 32-byte common header (page.h):
 *   32 2 level (0 = leaf)          34 2 number of slots     36 2 heap top (cells occupy [heap top, page end))
 *   38 2 garbage bytes in the heap  40 8 previous page at this level (leaves only; all-ones = none)
 *   48 8 next page at this level    56 8 reserved
 *   64 .. slot array: u16 offset of each cell, in key order; grows up toward the heap, which grows down
 * Leaf cell:      0 2 key length  2 1 flags (1 = value in overflow pages, 2 = delete-marked: deleted by the trx
 *                 in the trx id field, kept until purge for older read views)  3 1 reserved  4 4 value length
 *                 8 8 trx id of the last writer (for MVCC/undo)  16 key bytes, then the value inline or, with
 *                 flag 1, the u64 id of the first overflow page
 * Internal cell:  0 2 key length  2 8 child page id  10 key bytes.  The key of slot 0 is ignored (minus infinity):
 *                 child i holds the keys k with key(i) <= k < key(i+1).
 * Overflow page (type OVERFLOW): 32 8 next page id (all-ones = last)  40 4 bytes used here  44 .. value bytes.
 *
 * Invariants: keys strictly increase along each level; every key of child i lies in [key(i), key(i+1)) of its
 * parent; all leaves are at level 0 and linked in key order; the root page id never changes (a full root moves
 * its contents into a new child, a root with one child absorbs it).
 */
#include "engine/btree.h"

#include "engine/engine.h"
#include "util/util.h"

#define BT_LEVEL 32
#define BT_NSLOTS 34
#define BT_HEAP 36
#define BT_GARBAGE 38
#define BT_PREV 40
#define BT_NEXT 48
#define BT_SLOTS 64
#define LEAF_HDR 16
#define NODE_HDR 10
#define OVF_NEXT 32
#define OVF_LEN 40
#define OVF_DATA 44
#define CELL_OVF 1
#define CELL_DELMARK 2
#define MAX_DEPTH 24

/* ---------------------------------------------------------------- page helpers */

static inline uint16_t lvl(const uint8_t *p) { return rd16(p + BT_LEVEL); }
static inline uint32_t nsl(const uint8_t *p) { return rd16(p + BT_NSLOTS); }
static inline uint8_t *cellp(uint8_t *p, uint32_t i) { return p + rd16(p + BT_SLOTS + 2 * i); }
static inline const uint8_t *ckey(const uint8_t *c, bool leaf, uint32_t *klen)
{
    *klen = rd16(c);
    return c + (leaf ? LEAF_HDR : NODE_HDR);
}
static inline uint32_t csize(const uint8_t *c, bool leaf)
{
    if (!leaf)
        return NODE_HDR + rd16(c);
    return LEAF_HDR + rd16(c) + ((c[2] & CELL_OVF) ? 8 : rd32(c + 4));
}
static inline page_id_t cchild(const uint8_t *c) { return rd64(c + 2); }
static inline uint32_t free_contig(const uint8_t *p) { return rd16(p + BT_HEAP) - (BT_SLOTS + 2 * nsl(p)); }
static inline uint32_t free_total(const uint8_t *p) { return free_contig(p) + rd16(p + BT_GARBAGE); }
static inline uint32_t capacity(uint32_t ps) { return ps - BT_SLOTS; }
static inline uint32_t used(const uint8_t *p, uint32_t ps) { return capacity(ps) - free_total(p); }

/* The heap top is stored in 16 bits; a 32 KiB page stores 0 for "page end". */
static inline uint32_t heap_top(const uint8_t *p, uint32_t ps)
{
    uint32_t h = rd16(p + BT_HEAP);
    return h ? h : ps;
}

static int kcmp(const void *a, size_t al, const void *b, size_t bl)
{
    size_t n = MIN(al, bl);
    int r = n ? memcmp(a, b, n) : 0;
    if (r)
        return r;
    return al < bl ? -1 : al > bl;
}

static void node_init(uint8_t *p, uint32_t ps, page_id_t id, uint64_t owner, uint16_t level)
{
    page_init(p, ps, id, PAGE_TYPE_BTREE, owner);
    wr16(p + BT_LEVEL, level);
    wr16(p + BT_NSLOTS, 0);
    wr16(p + BT_HEAP, (uint16_t)ps);
    wr16(p + BT_GARBAGE, 0);
    wr64(p + BT_PREV, PAGE_ID_NONE);
    wr64(p + BT_NEXT, PAGE_ID_NONE);
}

static void node_compact(uint8_t *p, uint32_t ps)
{
    uint8_t *tmp = mem_alloc(ps);
    memcpy(tmp, p, ps);
    bool leaf = lvl(p) == 0;
    uint32_t heap = ps, n = nsl(p);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *c = cellp(tmp, i);
        uint32_t sz = csize(c, leaf);
        heap -= sz;
        memcpy(p + heap, c, sz);
        wr16(p + BT_SLOTS + 2 * i, (uint16_t)heap);
    }
    wr16(p + BT_HEAP, (uint16_t)heap);
    wr16(p + BT_GARBAGE, 0);
    mem_free(tmp);
}

static bool node_fits(const uint8_t *p, uint32_t len) { return free_total(p) >= len + 2; }

static void node_insert_at(uint8_t *p, uint32_t ps, uint32_t slot, const uint8_t *cell, uint32_t len)
{
    ASSERT(node_fits(p, len));
    if (free_contig(p) < len + 2)
        node_compact(p, ps);
    uint32_t n = nsl(p);
    uint8_t *s = p + BT_SLOTS + 2 * slot;
    memmove(s + 2, s, 2 * (n - slot));
    uint32_t heap = rd16(p + BT_HEAP) - len;
    memcpy(p + heap, cell, len);
    wr16(s, (uint16_t)heap);
    wr16(p + BT_HEAP, (uint16_t)heap);
    wr16(p + BT_NSLOTS, (uint16_t)(n + 1));
}

static void node_remove_at(uint8_t *p, uint32_t ps, uint32_t slot)
{
    uint32_t n = nsl(p);
    uint8_t *c = cellp(p, slot);
    uint32_t sz = csize(c, lvl(p) == 0);
    uint8_t *s = p + BT_SLOTS + 2 * slot;
    memmove(s, s + 2, 2 * (n - slot - 1));
    wr16(p + BT_NSLOTS, (uint16_t)(n - 1));
    if (n == 1) {
        wr16(p + BT_HEAP, (uint16_t)ps);
        wr16(p + BT_GARBAGE, 0);
    } else if (c == p + rd16(p + BT_HEAP)) {
        wr16(p + BT_HEAP, (uint16_t)(rd16(p + BT_HEAP) + sz));
    } else {
        wr16(p + BT_GARBAGE, (uint16_t)(rd16(p + BT_GARBAGE) + sz));
    }
}

/* First slot whose key is >= key; *exact when equal. */
static uint32_t lower_bound(uint8_t *p, const void *key, size_t klen, bool *exact)
{
    bool leaf = lvl(p) == 0;
    uint32_t lo = leaf ? 0 : 1, hi = nsl(p);
    *exact = false;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2, kl;
        const uint8_t *k = ckey(cellp(p, mid), leaf, &kl);
        int r = kcmp(k, kl, key, klen);
        if (r < 0) {
            lo = mid + 1;
        } else {
            if (r == 0)
                *exact = true;
            hi = mid;
        }
    }
    return lo;
}

/* Child slot of an internal page that covers key. */
static uint32_t child_slot(uint8_t *p, const void *key, size_t klen)
{
    bool exact;
    uint32_t s = lower_bound(p, key, klen, &exact);
    return exact ? s : s - 1;
}

static int check_node(btree_t *t, bframe_t *f)
{
    const uint8_t *p = f->data;
    if (page_type(p) != PAGE_TYPE_BTREE || page_owner(p) != t->id)
        return CORRUPT("btree %llu: page %u:%u:%u is not one of its nodes (type %u owner %llu)",
                       (unsigned long long)t->id, page_id_space(f->id), page_id_file(f->id), page_id_pgno(f->id),
                       page_type(p), (unsigned long long)page_owner(p));
    if (BT_SLOTS + 2 * nsl(p) > heap_top(p, t->ps))
        return CORRUPT("btree %llu: page %u slot array overlaps heap", (unsigned long long)t->id, page_id_pgno(f->id));
    return 0;
}

/* Structure of one page from its bytes alone (B+tree node or overflow page): every slot inside the page, every
 * cell's header and body inside the heap, heap accounting exact, level sane.  The verifier and the page fuzz
 * target use it; nothing reads a cell of a page that failed it.  0 or STRATA_ECORRUPT (not reported). */
int btree_page_check(const uint8_t *p, uint32_t ps)
{
    if (ps < PAGE_SIZE_MIN || ps > PAGE_SIZE_MAX)
        return STRATA_ECORRUPT;
    if (page_type(p) == PAGE_TYPE_OVERFLOW)
        return rd32(p + OVF_LEN) <= ps - OVF_DATA ? 0 : STRATA_ECORRUPT;
    if (page_type(p) != PAGE_TYPE_BTREE)
        return STRATA_ECORRUPT;
    uint32_t n = nsl(p), top = heap_top(p, ps);
    bool leaf = lvl(p) == 0;
    if (lvl(p) > MAX_DEPTH || top > ps || BT_SLOTS + 2 * n > top)
        return STRATA_ECORRUPT;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = rd16(p + BT_SLOTS + 2 * i);
        if (off < top || off + (uint32_t)(leaf ? LEAF_HDR : NODE_HDR) > ps)
            return STRATA_ECORRUPT;
        const uint8_t *c = p + off;
        uint64_t sz = leaf ? (uint64_t)LEAF_HDR + rd16(c) + ((c[2] & CELL_OVF) ? 8u : rd32(c + 4)) : (uint64_t)NODE_HDR + rd16(c);
        if (off + sz > ps)
            return STRATA_ECORRUPT;
        sum += sz;
    }
    if (sum + rd16(p + BT_GARBAGE) != ps - top)
        return STRATA_ECORRUPT;
    return 0;
}

/* ---------------------------------------------------------------- handles */

btree_t *btree_handle(fsys_t *fs, bpool_t *bp, redo_t *redo, uint64_t id, page_id_t root)
{
    btree_t *t = mem_calloc(1, sizeof *t);
    t->id = id;
    t->root = root;
    t->fs = fs;
    t->bp = bp;
    t->redo = redo;
    t->ps = bpool_page_size(bp);
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&t->lock, &a);
    pthread_rwlockattr_destroy(&a);
    t->max_inline = capacity(t->ps) / 4 - 2;
    t->max_key = MIN(ENGINE_MAX_KEY, t->max_inline - LEAF_HDR - 8);
    return t;
}

void btree_handle_free(btree_t *t)
{
    if (!t)
        return;
    pthread_rwlock_destroy(&t->lock);
    mem_free(t);
}

int btree_create(fsys_t *fs, mtr_t *m, uint32_t space, uint64_t id, page_id_t *root)
{
    int rc = seg_create(fs, m, space, id, root);
    if (rc)
        return rc;
    bframe_t *f;
    if ((rc = mtr_fix_new(m, *root, &f)))
        return rc;
    node_init(f->data, fsys_page_size(fs), *root, id, 0);
    return 0;
}

int btree_destroy(btree_t *t, mtr_t *m)
{
    pthread_rwlock_wrlock(&t->lock);
    int rc = seg_drop(t->fs, m, t->id);
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

/* ---------------------------------------------------------------- overflow chains */

typedef struct {
    btree_t *t;
    mtr_t *m;
    uint32_t allocated;
} op_t;

static uint32_t ovf_cap(const btree_t *t) { return t->ps - OVF_DATA; }
static uint32_t ovf_pages(const btree_t *t, size_t vlen) { return (uint32_t)((vlen + ovf_cap(t) - 1) / ovf_cap(t)); }

static int alloc_page(op_t *op, page_id_t *id, bframe_t **f)
{
    int rc = seg_alloc_page(op->t->fs, op->m, op->t->id, id);
    if (rc)
        return rc;
    op->allocated++;
    return mtr_fix_new(op->m, *id, f);
}

static int ovf_free(op_t *op, page_id_t id);

static int ovf_write(op_t *op, const uint8_t *val, size_t vlen, page_id_t *first)
{
    btree_t *t = op->t;
    uint32_t n = ovf_pages(t, vlen), cap = ovf_cap(t);
    bframe_t *prev = NULL;
    for (uint32_t i = 0; i < n; i++) {
        page_id_t id;
        bframe_t *f;
        int rc = alloc_page(op, &id, &f);
        if (rc)
            return rc;
        page_init(f->data, t->ps, id, PAGE_TYPE_OVERFLOW, t->id);
        uint32_t len = (uint32_t)MIN((size_t)cap, vlen - (size_t)i * cap);
        wr64(f->data + OVF_NEXT, PAGE_ID_NONE);
        wr32(f->data + OVF_LEN, len);
        memcpy(f->data + OVF_DATA, val + (size_t)i * cap, len);
        if (prev)
            wr64(prev->data + OVF_NEXT, id);
        else
            *first = id;
        prev = f;
    }
    return 0;
}

/* Writes a value's overflow chain before the leaf is touched, in mtrs of at most 16 pages so that a value of any
 * size never pins more than 16 frames.  The chain is built back to front so each page can name its successor.
 * The pages are unreachable until the leaf cell that points at them commits; a crash in between leaks them
 * (strata-check reports leaked pages) but corrupts nothing. */
static int ovf_write_chunked(btree_t *t, const uint8_t *val, size_t vlen, page_id_t *first, uint32_t *allocated)
{
    uint32_t n = ovf_pages(t, vlen), cap = ovf_cap(t);
    page_id_t next = PAGE_ID_NONE;
    int rc = 0;
    for (uint32_t done = 0; done < n && !rc;) {
        mtr_t m;
        mtr_start(&m, t->bp, t->redo);
        op_t op = {.t = t, .m = &m};
        for (uint32_t k = 0; k < 16 && done < n; k++, done++) {
            uint32_t i = n - 1 - done;
            page_id_t id;
            bframe_t *f;
            if ((rc = alloc_page(&op, &id, &f)))
                break;
            page_init(f->data, t->ps, id, PAGE_TYPE_OVERFLOW, t->id);
            uint32_t len = (uint32_t)MIN((size_t)cap, vlen - (size_t)i * cap);
            wr64(f->data + OVF_NEXT, next);
            wr32(f->data + OVF_LEN, len);
            memcpy(f->data + OVF_DATA, val + (size_t)i * cap, len);
            next = id;
        }
        *allocated += op.allocated;
        mtr_commit(&m);
    }
    if (rc && next != PAGE_ID_NONE) {
        mtr_t m;
        mtr_start(&m, t->bp, t->redo);
        op_t op = {.t = t, .m = &m};
        ovf_free(&op, next);
        mtr_commit(&m);
        return rc;
    }
    *first = next;
    return rc;
}

static int ovf_read(btree_t *t, page_id_t id, size_t vlen, buf_t *out)
{
    size_t got = 0;
    while (got < vlen) {
        if (id == PAGE_ID_NONE)
            return CORRUPT("btree %llu: overflow chain ends early", (unsigned long long)t->id);
        bframe_t *f;
        int rc = bpool_fix(t->bp, id, LATCH_S, &f);
        if (rc)
            return rc;
        uint32_t len = rd32(f->data + OVF_LEN);
        if (page_type(f->data) != PAGE_TYPE_OVERFLOW || page_owner(f->data) != t->id || len > ovf_cap(t) ||
            len > vlen - got) {
            bpool_unfix(t->bp, f, LATCH_S);
            return CORRUPT("btree %llu: bad overflow page %u", (unsigned long long)t->id, page_id_pgno(id));
        }
        buf_append(out, f->data + OVF_DATA, len);
        got += len;
        id = rd64(f->data + OVF_NEXT);
        bpool_unfix(t->bp, f, LATCH_S);
    }
    return 0;
}

static int ovf_free(op_t *op, page_id_t id)
{
    while (id != PAGE_ID_NONE) {
        bframe_t *f;
        int rc = bpool_fix(op->t->bp, id, LATCH_S, &f);
        if (rc)
            return rc;
        page_id_t next = rd64(f->data + OVF_NEXT);
        bool ok = page_type(f->data) == PAGE_TYPE_OVERFLOW && page_owner(f->data) == op->t->id;
        bpool_unfix(op->t->bp, f, LATCH_S);
        if (!ok)
            return CORRUPT("btree %llu: bad overflow page %u", (unsigned long long)op->t->id, page_id_pgno(id));
        if ((rc = seg_free_page(op->t->fs, op->m, op->t->id, id)))
            return rc;
        id = next;
    }
    return 0;
}

/* Copies the value of leaf cell c into out. */
static int cell_value(btree_t *t, const uint8_t *c, buf_t *out)
{
    uint32_t kl = rd16(c), vl = rd32(c + 4);
    if (c[2] & CELL_OVF)
        return ovf_read(t, rd64(c + LEAF_HDR + kl), vl, out);
    buf_append(out, c + LEAF_HDR + kl, vl);
    return 0;
}

/* ---------------------------------------------------------------- descent */

typedef enum { TO_KEY = 0, TO_LEFT, TO_RIGHT } target_t;

/* Read descent (caller holds the tree latch S): returns the leaf fixed in leaf_mode, without an mtr. */
static int descend_read(btree_t *t, target_t to, const void *key, size_t klen, bframe_t **out)
{
    bframe_t *f;
    int rc = bpool_fix(t->bp, t->root, LATCH_S, &f);
    if (rc)
        return rc;
    for (int depth = 0;; depth++) {
        if ((rc = check_node(t, f)) || depth > MAX_DEPTH) {
            bpool_unfix(t->bp, f, LATCH_S);
            return rc ? rc : CORRUPT("btree %llu: too deep", (unsigned long long)t->id);
        }
        if (lvl(f->data) == 0)
            break;
        uint32_t n = nsl(f->data);
        if (n == 0) {
            bpool_unfix(t->bp, f, LATCH_S);
            return CORRUPT("btree %llu: empty internal page", (unsigned long long)t->id);
        }
        uint32_t s = to == TO_LEFT ? 0 : to == TO_RIGHT ? n - 1 : child_slot(f->data, key, klen);
        bframe_t *c;
        rc = bpool_fix(t->bp, cchild(cellp(f->data, s)), LATCH_S, &c);
        bpool_unfix(t->bp, f, LATCH_S);
        if (rc)
            return rc;
        f = c;
    }
    *out = f;
    return 0;
}

/* Optimistic write descent in mtr m (tree latch S): internal pages S, released on the way; the leaf X. */
static int descend_leaf_x(btree_t *t, mtr_t *m, const void *key, size_t klen, bframe_t **out)
{
    bframe_t *f;
    int rc = mtr_fix(m, t->root, LATCH_S, &f);
    if (rc)
        return rc;
    if ((rc = check_node(t, f)))
        return rc;
    if (lvl(f->data) == 0) {
        /* The root is a leaf, and stays one while we hold the tree latch: re-fix it X. */
        mtr_release(m, f);
        if ((rc = mtr_fix(m, t->root, LATCH_X, &f)))
            return rc;
        *out = f;
        return check_node(t, f);
    }
    for (int depth = 0; lvl(f->data) > 0; depth++) {
        if (nsl(f->data) == 0 || depth > MAX_DEPTH)
            return CORRUPT("btree %llu: bad internal page", (unsigned long long)t->id);
        uint32_t s = child_slot(f->data, key, klen);
        bframe_t *c;
        rc = mtr_fix(m, cchild(cellp(f->data, s)), lvl(f->data) == 1 ? LATCH_X : LATCH_S, &c);
        mtr_release(m, f);
        if (rc)
            return rc;
        f = c;
        if ((rc = check_node(t, f)))
            return rc;
    }
    *out = f;
    return 0;
}

typedef struct {
    bframe_t *f[MAX_DEPTH];
    uint32_t idx[MAX_DEPTH]; /* child slot taken in f[i] */
    int depth;
} path_t;

/* Pessimistic descent (tree latch X): the whole path X-latched and kept. */
static int descend_path(btree_t *t, mtr_t *m, const void *key, size_t klen, path_t *p)
{
    p->depth = 0;
    page_id_t id = t->root;
    for (;;) {
        if (p->depth >= MAX_DEPTH)
            return CORRUPT("btree %llu: too deep", (unsigned long long)t->id);
        bframe_t *f;
        int rc = mtr_fix(m, id, LATCH_X, &f);
        if (rc)
            return rc;
        if ((rc = check_node(t, f)))
            return rc;
        p->f[p->depth++] = f;
        if (lvl(f->data) == 0)
            return 0;
        if (nsl(f->data) == 0)
            return CORRUPT("btree %llu: empty internal page", (unsigned long long)t->id);
        uint32_t s = child_slot(f->data, key, klen);
        p->idx[p->depth - 1] = s;
        id = cchild(cellp(f->data, s));
    }
}

int btree_height(btree_t *t)
{
    bframe_t *f;
    if (bpool_fix(t->bp, t->root, LATCH_S, &f))
        return -1;
    int h = lvl(f->data) + 1;
    bpool_unfix(t->bp, f, LATCH_S);
    return h;
}

/* ---------------------------------------------------------------- insert with split */

/* The full root moves into a new child; the root becomes an internal page above it. */
static int grow_root(op_t *op, path_t *p)
{
    btree_t *t = op->t;
    bframe_t *root = p->f[0], *c;
    page_id_t cid;
    int rc = alloc_page(op, &cid, &c);
    if (rc)
        return rc;
    mtr_modify(op->m, root);
    memcpy(c->data, root->data, t->ps);
    wr64(c->data + PAGE_OFF_ID, cid);
    page_set_lsn(c->data, 0);
    uint16_t level = lvl(root->data);
    uint64_t lsn = page_lsn(root->data);
    node_init(root->data, t->ps, t->root, t->id, (uint16_t)(level + 1));
    page_set_lsn(root->data, lsn);
    uint8_t cell[NODE_HDR];
    wr16(cell, 0);
    wr64(cell + 2, cid);
    node_insert_at(root->data, t->ps, 0, cell, NODE_HDR);
    memmove(&p->f[1], &p->f[0], sizeof(p->f[0]) * (size_t)p->depth);
    memmove(&p->idx[1], &p->idx[0], sizeof(p->idx[0]) * (size_t)p->depth);
    p->f[0] = root;
    p->f[1] = c;
    p->idx[0] = 0;
    p->depth++;
    return 0;
}

static int insert_rec(op_t *op, path_t *p, int i, const uint8_t *cell, uint32_t len, uint32_t slot);

/* Splits p->f[i] while inserting cell at slot; pushes the separator into the parent. */
static int split(op_t *op, path_t *p, int i, const uint8_t *cell, uint32_t len, uint32_t slot)
{
    btree_t *t = op->t;
    uint32_t ps = t->ps;
    bframe_t *P = p->f[i], *R;
    page_id_t rid;
    int rc = alloc_page(op, &rid, &R);
    if (rc)
        return rc;
    mtr_modify(op->m, P);
    bool leaf = lvl(P->data) == 0;
    uint8_t *copy = mem_alloc(ps);
    memcpy(copy, P->data, ps);
    uint32_t n = nsl(copy) + 1;
    const uint8_t **cells = mem_alloc(sizeof(uint8_t *) * n);
    uint32_t *lens = mem_alloc(sizeof(uint32_t) * n), total = 0;
    for (uint32_t j = 0, k = 0; j < n; j++) {
        if (j == slot) {
            cells[j] = cell;
            lens[j] = len;
        } else {
            cells[j] = cellp(copy, k++);
            lens[j] = csize(cells[j], leaf);
        }
        total += lens[j] + 2;
    }
    uint32_t acc = 0, k = 0;
    if (leaf && slot == n - 1 && rd64(copy + BT_NEXT) == PAGE_ID_NONE && n > 1) {
        /* Appending past the last key of the rightmost page (ascending keys, auto-increment ids): leave this
         * page full and start the new one with the new cell, so sequential loads fill pages completely. */
        k = n - 1;
    } else {
        while (k < n - 1 && acc + lens[k] + 2 <= total / 2)
            acc += lens[k++] + 2;
        if (k == 0)
            k = 1;
    }
    page_id_t old_next = rd64(copy + BT_NEXT), prev = rd64(copy + BT_PREV);
    uint64_t lsn = page_lsn(copy);
    node_init(P->data, ps, P->id, t->id, lvl(copy));
    page_set_lsn(P->data, lsn);
    node_init(R->data, ps, rid, t->id, lvl(copy));
    for (uint32_t j = 0; j < k; j++)
        node_insert_at(P->data, ps, j, cells[j], lens[j]);
    for (uint32_t j = k; j < n; j++)
        node_insert_at(R->data, ps, j - k, cells[j], lens[j]);
    if (leaf) {
        wr64(P->data + BT_PREV, prev);
        wr64(P->data + BT_NEXT, rid);
        wr64(R->data + BT_PREV, P->id);
        wr64(R->data + BT_NEXT, old_next);
        if (old_next != PAGE_ID_NONE) {
            bframe_t *nx;
            if ((rc = mtr_fix(op->m, old_next, LATCH_X, &nx)))
                goto out;
            mtr_modify(op->m, nx);
            wr64(nx->data + BT_PREV, rid);
        }
    }
    /* Separator: the first key of the right page. */
    uint32_t sk;
    const uint8_t *skey = ckey(cells[k], leaf, &sk);
    uint8_t *pcell = mem_alloc(NODE_HDR + sk);
    wr16(pcell, (uint16_t)sk);
    wr64(pcell + 2, rid);
    memcpy(pcell + NODE_HDR, skey, sk);
    uint32_t pslot = p->idx[i - 1] + 1;
    rc = insert_rec(op, p, i - 1, pcell, NODE_HDR + sk, pslot);
    mem_free(pcell);
out:
    mem_free(cells);
    mem_free(lens);
    mem_free(copy);
    return rc;
}

static int insert_rec(op_t *op, path_t *p, int i, const uint8_t *cell, uint32_t len, uint32_t slot)
{
    bframe_t *f = p->f[i];
    mtr_modify(op->m, f);
    if (node_fits(f->data, len)) {
        node_insert_at(f->data, op->t->ps, slot, cell, len);
        return 0;
    }
    if (i == 0) {
        int rc = grow_root(op, p);
        if (rc)
            return rc;
        i = 1;
    }
    return split(op, p, i, cell, len, slot);
}

/* ---------------------------------------------------------------- delete with merge */

static int rebalance(op_t *op, path_t *p, int i)
{
    btree_t *t = op->t;
    uint32_t ps = t->ps;
    int rc = 0;
    if (i == 0) {
        /* A root with a single child absorbs it. */
        bframe_t *root = p->f[0];
        while (lvl(root->data) > 0 && nsl(root->data) == 1) {
            page_id_t cid = cchild(cellp(root->data, 0));
            bframe_t *c;
            if ((rc = mtr_fix(op->m, cid, LATCH_X, &c)))
                return rc;
            mtr_modify(op->m, root);
            uint64_t lsn = page_lsn(root->data);
            memcpy(root->data, c->data, ps);
            wr64(root->data + PAGE_OFF_ID, t->root);
            page_set_lsn(root->data, lsn);
            wr64(root->data + BT_PREV, PAGE_ID_NONE);
            wr64(root->data + BT_NEXT, PAGE_ID_NONE);
            if ((rc = seg_free_page(t->fs, op->m, t->id, cid)))
                return rc;
        }
        return 0;
    }
    bframe_t *P = p->f[i], *parent = p->f[i - 1];
    if (used(P->data, ps) >= capacity(ps) / 4 || nsl(parent->data) < 2)
        return 0;
    uint32_t pi = p->idx[i - 1], ri;
    bframe_t *L, *R;
    if (pi > 0) {
        ri = pi;
        R = P;
        if ((rc = mtr_fix(op->m, cchild(cellp(parent->data, pi - 1)), LATCH_X, &L)))
            return rc;
    } else {
        ri = 1;
        L = P;
        if ((rc = mtr_fix(op->m, cchild(cellp(parent->data, 1)), LATCH_X, &R)))
            return rc;
    }
    if ((rc = check_node(t, L)) || (rc = check_node(t, R)))
        return rc;
    bool leaf = lvl(L->data) == 0;
    uint32_t sk;
    const uint8_t *skey = ckey(cellp(parent->data, ri), false, &sk);
    uint32_t need = used(R->data, ps);
    if (!leaf && nsl(R->data) > 0)
        need = need - rd16(cellp(R->data, 0)) + sk;
    if (used(L->data, ps) + need > capacity(ps))
        return 0; /* the sibling is too full to absorb it; leave the page under-full */
    mtr_modify(op->m, L);
    uint32_t n = nsl(R->data), base = nsl(L->data);
    for (uint32_t j = 0; j < n; j++) {
        uint8_t *c = cellp(R->data, j);
        if (!leaf && j == 0) {
            uint8_t *nc = mem_alloc(NODE_HDR + sk);
            wr16(nc, (uint16_t)sk);
            wr64(nc + 2, cchild(c));
            memcpy(nc + NODE_HDR, skey, sk);
            node_insert_at(L->data, ps, base + j, nc, NODE_HDR + sk);
            mem_free(nc);
        } else {
            node_insert_at(L->data, ps, base + j, c, csize(c, leaf));
        }
    }
    if (leaf) {
        page_id_t nx = rd64(R->data + BT_NEXT);
        wr64(L->data + BT_NEXT, nx);
        if (nx != PAGE_ID_NONE) {
            bframe_t *nf;
            if ((rc = mtr_fix(op->m, nx, LATCH_X, &nf)))
                return rc;
            mtr_modify(op->m, nf);
            wr64(nf->data + BT_PREV, L->id);
        }
    }
    if ((rc = seg_free_page(t->fs, op->m, t->id, R->id)))
        return rc;
    mtr_modify(op->m, parent);
    node_remove_at(parent->data, ps, ri);
    p->idx[i - 1] = ri - 1;
    return rebalance(op, p, i - 1);
}

/* ---------------------------------------------------------------- public write paths */

static size_t leaf_cell(uint8_t *out, const void *key, size_t klen, size_t vlen, const void *val, bool ovf,
                        page_id_t first, uint64_t trx)
{
    wr16(out, (uint16_t)klen);
    out[2] = ovf ? CELL_OVF : 0;
    out[3] = 0;
    wr32(out + 4, (uint32_t)vlen);
    wr64(out + 8, trx);
    memcpy(out + LEAF_HDR, key, klen);
    if (ovf) {
        wr64(out + LEAF_HDR + klen, first);
        return LEAF_HDR + klen + 8;
    }
    memcpy(out + LEAF_HDR + klen, val, vlen);
    return LEAF_HDR + klen + vlen;
}

/* Shared leaf step of a write: mode checks, old value, removal of the old cell, the new cell.  *fits=false means
 * the new cell does not fit and nothing was changed. */
static int leaf_write(op_t *op, bframe_t *leaf, bt_mode_t mode, const void *key, size_t klen, const void *val,
                      size_t vlen, uint64_t trx, buf_t *old, bool *existed, bool must_fit, bool *fits,
                      uint32_t *slot_out, uint64_t *old_trx, bt_before_t *before)
{
    btree_t *t = op->t;
    bool exact;
    uint32_t s = lower_bound(leaf->data, key, klen, &exact);
    *before = !exact ? BT_BEFORE_ABSENT
                     : (cellp(leaf->data, s)[2] & CELL_DELMARK) ? BT_BEFORE_DELMARKED : BT_BEFORE_PRESENT;
    if (existed)
        *existed = *before == BT_BEFORE_PRESENT;
    if (mode == BT_INSERT && *before == BT_BEFORE_PRESENT)
        return ENGINE_EDUPKEY;
    if (mode == BT_UPDATE && *before != BT_BEFORE_PRESENT)
        return STRATA_ENOTFOUND;
    bool ovf = LEAF_HDR + klen + vlen > t->max_inline;
    uint32_t len = (uint32_t)(LEAF_HDR + klen + (ovf ? 8 : vlen));
    uint32_t room = free_total(leaf->data) + (exact ? csize(cellp(leaf->data, s), true) + 2 : 0);
    *fits = room >= len + 2;
    *slot_out = s;
    if (!*fits && must_fit)
        return 0;
    int rc = 0;
    if (exact) {
        uint8_t *c = cellp(leaf->data, s);
        *old_trx = rd64(c + 8);
        if (old) {
            buf_reset(old);
            if ((rc = cell_value(t, c, old)))
                return rc;
        }
        mtr_modify(op->m, leaf);
        if ((c[2] & CELL_OVF) && (rc = ovf_free(op, rd64(c + LEAF_HDR + rd16(c)))))
            return rc;
        node_remove_at(leaf->data, t->ps, s);
    }
    return 0;
}

int btree_write(btree_t *t, mtr_t *outer, bt_mode_t mode, const void *key, size_t klen, const void *val, size_t vlen,
                uint64_t trx_id, buf_t *old, bool *existed, const bt_hook_t *hook)
{
    buf_t hold;
    bool hexisted = false;
    buf_init(&hold);
    if (hook && !old)
        old = &hold;
    if (hook && !existed)
        existed = &hexisted;
    if (klen > t->max_key || vlen > ENGINE_MAX_VALUE)
        return ENGINE_EINVAL;
    bool ovf = LEAF_HDR + klen + vlen > t->max_inline;
    uint32_t novf = ovf ? ovf_pages(t, vlen) : 0;
    uint8_t *cell = mem_alloc(LEAF_HDR + klen + (ovf ? 8 : vlen));
    int rc = 0;
    bool fits = false;
    uint32_t slot, reserved = 0, pre_alloc = 0;
    uint64_t old_trx = 0;
    bt_before_t before = BT_BEFORE_ABSENT;
    page_id_t first = PAGE_ID_NONE;
    mtr_t own, *m;
    op_t op = {.t = t};

    if (!outer) {
        if (novf) {
            if ((rc = seg_reserve(t->fs, NULL, t->id, novf)))
                goto done;
            reserved = novf;
            if ((rc = ovf_write_chunked(t, val, vlen, &first, &pre_alloc)))
                goto done;
        }
        /* Optimistic: tree latch S, only the leaf changes. */
        pthread_rwlock_rdlock(&t->lock);
        m = &own;
        mtr_start(m, t->bp, t->redo);
        op.m = m;
        bframe_t *leaf;
        if (!(rc = descend_leaf_x(t, m, key, klen, &leaf)))
            rc = leaf_write(&op, leaf, mode, key, klen, val, vlen, trx_id, old, existed, true, &fits, &slot,
                            &old_trx, &before);
        if (!rc && fits) {
            mtr_modify(m, leaf);
            size_t len = leaf_cell(cell, key, klen, vlen, val, ovf, first, trx_id);
            node_insert_at(leaf->data, t->ps, slot, cell, (uint32_t)len);
            if (hook)
                hook->fn(hook->ctx, m, before, old, old_trx);
        }
        mtr_commit(m);
        pthread_rwlock_unlock(&t->lock);
        if (rc || fits)
            goto done;
    }

    /* Pessimistic: tree latch X, the path kept, splits as needed. */
    pthread_rwlock_wrlock(&t->lock);
    int h = btree_height(t);
    uint32_t need = (uint32_t)(h < 0 ? 1 : h) + 1 + (outer ? novf : 0);
    if ((rc = seg_reserve(t->fs, outer, t->id, need))) {
        pthread_rwlock_unlock(&t->lock);
        goto done;
    }
    reserved += need;
    m = outer ? outer : &own;
    if (!outer)
        mtr_start(m, t->bp, t->redo);
    op.m = m;
    path_t p;
    if (!(rc = descend_path(t, m, key, klen, &p)))
        rc = leaf_write(&op, p.f[p.depth - 1], mode, key, klen, val, vlen, trx_id, old, existed, false, &fits,
                        &slot, &old_trx, &before);
    if (!rc) {
        if (!ovf || first != PAGE_ID_NONE || !(rc = ovf_write(&op, val, vlen, &first))) {
            size_t len = leaf_cell(cell, key, klen, vlen, val, ovf, first, trx_id);
            rc = insert_rec(&op, &p, p.depth - 1, cell, (uint32_t)len, slot);
            if (!rc && hook)
                hook->fn(hook->ctx, m, before, old, old_trx);
        }
    }
    if (!outer)
        mtr_commit(m);
    pthread_rwlock_unlock(&t->lock);
done:
    if (rc && first != PAGE_ID_NONE && !outer) {
        /* The row was refused (duplicate, missing, full): its overflow chain goes back. */
        mtr_t fm;
        mtr_start(&fm, t->bp, t->redo);
        op_t fop = {.t = t, .m = &fm};
        ovf_free(&fop, first);
        mtr_commit(&fm);
    }
    if (reserved > op.allocated + pre_alloc)
        seg_unreserve(t->fs, outer, t->id, reserved - op.allocated - pre_alloc);
    mem_free(cell);
    buf_free(&hold);
    return rc;
}

/* Whether the cell at slot s of leaf may be deleted the requested way; its prior state in *before. */
static bool del_allowed(uint8_t *leaf, uint32_t s, bool exact, bt_del_t how, uint64_t trx, bt_before_t *before)
{
    if (!exact)
        return false;
    uint8_t *c = cellp(leaf, s);
    bool marked = (c[2] & CELL_DELMARK) != 0;
    *before = marked ? BT_BEFORE_DELMARKED : BT_BEFORE_PRESENT;
    if (how == BT_DEL_MARK)
        return !marked;
    if (how == BT_DEL_PURGE)
        return marked && rd64(c + 8) == trx;
    return true;
}

/* Delete-marking changes two header bytes of one cell in place: never a structure change. */
static int mark_cell(btree_t *t, mtr_t *m, bframe_t *leaf, uint32_t s, uint64_t trx, buf_t *old,
                     const bt_hook_t *hook)
{
    uint8_t *c = cellp(leaf->data, s);
    uint64_t old_trx = rd64(c + 8);
    int rc = 0;
    if (old) {
        buf_reset(old);
        if ((rc = cell_value(t, c, old)))
            return rc;
    }
    mtr_modify(m, leaf);
    c[2] |= CELL_DELMARK;
    wr64(c + 8, trx);
    if (hook)
        hook->fn(hook->ctx, m, BT_BEFORE_PRESENT, old, old_trx);
    return 0;
}

int btree_unmark(btree_t *t, const void *key, size_t klen, uint64_t trx_id, uint64_t prev_trx)
{
    pthread_rwlock_rdlock(&t->lock);
    mtr_t m;
    mtr_start(&m, t->bp, t->redo);
    bframe_t *leaf;
    bool exact;
    int rc = descend_leaf_x(t, &m, key, klen, &leaf);
    if (!rc) {
        uint32_t s = lower_bound(leaf->data, key, klen, &exact);
        uint8_t *c = exact ? cellp(leaf->data, s) : NULL;
        if (c && (c[2] & CELL_DELMARK) && rd64(c + 8) == trx_id) {
            mtr_modify(&m, leaf);
            c[2] &= (uint8_t)~CELL_DELMARK;
            wr64(c + 8, prev_trx);
        } else {
            rc = STRATA_ENOTFOUND;
        }
    }
    mtr_commit(&m);
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

int btree_delete(btree_t *t, mtr_t *outer, const void *key, size_t klen, buf_t *old, const bt_hook_t *hook,
                 bt_del_t how, uint64_t trx_id)
{
    int rc = 0;
    buf_t hold;
    buf_init(&hold);
    if (hook && !old)
        old = &hold;
    mtr_t own, *m;
    op_t op = {.t = t};
    bt_before_t before = BT_BEFORE_ABSENT;
    if (!outer || how == BT_DEL_MARK) {
        /* Optimistic: tree latch S, only the leaf changes (always so for a delete mark). */
        pthread_rwlock_rdlock(&t->lock);
        m = outer ? outer : &own;
        if (!outer)
            mtr_start(m, t->bp, t->redo);
        op.m = m;
        bframe_t *leaf;
        bool exact, done = false;
        if (!(rc = descend_leaf_x(t, m, key, klen, &leaf))) {
            uint32_t s = lower_bound(leaf->data, key, klen, &exact);
            if (!del_allowed(leaf->data, s, exact, how, trx_id, &before)) {
                rc = STRATA_ENOTFOUND;
            } else if (how == BT_DEL_MARK) {
                rc = mark_cell(t, m, leaf, s, trx_id, old, hook);
                done = true;
            } else {
                uint8_t *c = cellp(leaf->data, s);
                uint64_t old_trx = rd64(c + 8);
                uint32_t after = used(leaf->data, t->ps) - csize(c, true) - 2;
                if (leaf->id == t->root || after >= capacity(t->ps) / 4) {
                    if (old) {
                        buf_reset(old);
                        rc = cell_value(t, c, old);
                    }
                    if (!rc) {
                        mtr_modify(m, leaf);
                        if (!(c[2] & CELL_OVF) || !(rc = ovf_free(&op, rd64(c + LEAF_HDR + rd16(c))))) {
                            node_remove_at(leaf->data, t->ps, s);
                            if (hook)
                                hook->fn(hook->ctx, m, before, old, old_trx);
                        }
                    }
                    done = true;
                }
            }
        }
        if (!outer)
            mtr_commit(m);
        pthread_rwlock_unlock(&t->lock);
        if (rc || done) {
            buf_free(&hold);
            return rc;
        }
    }
    /* Pessimistic: tree latch X, merges as needed. */
    pthread_rwlock_wrlock(&t->lock);
    m = outer ? outer : &own;
    if (!outer)
        mtr_start(m, t->bp, t->redo);
    op.m = m;
    path_t p;
    if (!(rc = descend_path(t, m, key, klen, &p))) {
        bframe_t *leaf = p.f[p.depth - 1];
        bool exact;
        uint32_t s = lower_bound(leaf->data, key, klen, &exact);
        if (!del_allowed(leaf->data, s, exact, how, trx_id, &before)) {
            rc = STRATA_ENOTFOUND;
        } else {
            uint8_t *c = cellp(leaf->data, s);
            uint64_t old_trx = rd64(c + 8);
            if (old) {
                buf_reset(old);
                rc = cell_value(t, c, old);
            }
            if (!rc) {
                mtr_modify(m, leaf);
                if (!(c[2] & CELL_OVF) || !(rc = ovf_free(&op, rd64(c + LEAF_HDR + rd16(c))))) {
                    node_remove_at(leaf->data, t->ps, s);
                    rc = rebalance(&op, &p, p.depth - 1);
                    if (!rc && hook)
                        hook->fn(hook->ctx, m, before, old, old_trx);
                }
            }
        }
    }
    if (!outer)
        mtr_commit(m);
    pthread_rwlock_unlock(&t->lock);
    buf_free(&hold);
    return rc;
}

int btree_get_ex(btree_t *t, const void *key, size_t klen, buf_t *val, uint64_t *trx, bt_before_t *state)
{
    pthread_rwlock_rdlock(&t->lock);
    bframe_t *leaf;
    *state = BT_BEFORE_ABSENT;
    int rc = descend_read(t, TO_KEY, key, klen, &leaf);
    if (!rc) {
        bool exact;
        uint32_t s = lower_bound(leaf->data, key, klen, &exact);
        if (!exact) {
            rc = STRATA_ENOTFOUND;
        } else {
            uint8_t *c = cellp(leaf->data, s);
            *state = (c[2] & CELL_DELMARK) ? BT_BEFORE_DELMARKED : BT_BEFORE_PRESENT;
            if (trx)
                *trx = rd64(c + 8);
            if (val) {
                buf_reset(val);
                rc = cell_value(t, c, val);
            }
        }
        bpool_unfix(t->bp, leaf, LATCH_S);
    }
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

int btree_get(btree_t *t, const void *key, size_t klen, buf_t *val)
{
    bt_before_t st;
    int rc = btree_get_ex(t, key, klen, val, NULL, &st);
    return rc == 0 && st == BT_BEFORE_DELMARKED ? STRATA_ENOTFOUND : rc;
}

/* ---------------------------------------------------------------- cursors */

void btree_cur_init(btree_cur_t *c, btree_t *t)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    buf_init(&c->key);
    buf_init(&c->val);
    c->leaf = PAGE_ID_NONE;
}

void btree_cur_free(btree_cur_t *c)
{
    buf_free(&c->key);
    buf_free(&c->val);
}

/* From leaf f (S, owned) at signed slot s, walks to the nearest row in direction dir and loads it. */
static int cur_settle(btree_cur_t *c, bframe_t *f, int64_t s, int dir)
{
    btree_t *t = c->t;
    int rc = 0;
    for (;;) {
        if (s >= 0 && s < (int64_t)nsl(f->data)) {
            if (c->raw || !(cellp(f->data, (uint32_t)s)[2] & CELL_DELMARK))
                break;
            s += dir; /* a delete-marked cell is not there for latest-value readers */
            continue;
        }
        page_id_t nx = rd64(f->data + (dir > 0 ? BT_NEXT : BT_PREV));
        bpool_unfix(t->bp, f, LATCH_S);
        if (nx == PAGE_ID_NONE) {
            c->state = BTCUR_UNPOSITIONED;
            return STRATA_ENOTFOUND;
        }
        if ((rc = bpool_fix(t->bp, nx, LATCH_S, &f)))
            return rc;
        if ((rc = check_node(t, f)) || lvl(f->data) != 0) {
            bpool_unfix(t->bp, f, LATCH_S);
            return rc ? rc : CORRUPT("btree %llu: leaf link to a non-leaf", (unsigned long long)t->id);
        }
        s = dir > 0 ? 0 : (int64_t)nsl(f->data) - 1;
    }
    const uint8_t *cell = cellp(f->data, (uint32_t)s);
    uint32_t kl;
    const uint8_t *k = ckey(cell, true, &kl);
    buf_reset(&c->key);
    buf_append(&c->key, k, kl);
    buf_reset(&c->val);
    rc = cell_value(t, cell, &c->val);
    c->leaf = f->id;
    c->leaf_lsn = page_lsn(f->data);
    c->slot = (uint32_t)s;
    c->trx = rd64(cell + 8);
    c->delmarked = (cell[2] & CELL_DELMARK) != 0;
    c->state = rc ? BTCUR_UNPOSITIONED : BTCUR_ON_ROW;
    bpool_unfix(t->bp, f, LATCH_S);
    return rc;
}

static int seek_locked(btree_cur_t *c, const void *key, size_t klen, bt_seek_t how)
{
    btree_t *t = c->t;
    bframe_t *f;
    target_t to = how == BT_FIRST ? TO_LEFT : how == BT_LAST ? TO_RIGHT : TO_KEY;
    int rc = descend_read(t, to, key, klen, &f);
    if (rc)
        return rc;
    int64_t s;
    bool exact = false;
    switch (how) {
    case BT_FIRST:
        return cur_settle(c, f, 0, 1);
    case BT_LAST:
        return cur_settle(c, f, (int64_t)nsl(f->data) - 1, -1);
    case BT_GE:
    case BT_GT:
        s = lower_bound(f->data, key, klen, &exact);
        if (how == BT_GT && exact)
            s++;
        return cur_settle(c, f, s, 1);
    case BT_LE:
    case BT_LT:
    default:
        s = lower_bound(f->data, key, klen, &exact);
        if (!(how == BT_LE && exact))
            s--;
        return cur_settle(c, f, s, -1);
    }
}

int btree_cur_seek(btree_cur_t *c, const void *key, size_t klen, bt_seek_t how)
{
    pthread_rwlock_rdlock(&c->t->lock);
    int rc = seek_locked(c, key, klen, how);
    pthread_rwlock_unlock(&c->t->lock);
    return rc;
}

static int cur_step(btree_cur_t *c, int dir)
{
    btree_t *t = c->t;
    if (c->state != BTCUR_ON_ROW)
        return STRATA_ENOTFOUND;
    pthread_rwlock_rdlock(&t->lock);
    int rc;
    bframe_t *f;
    if (c->leaf_lsn != 0 && bpool_fix(t->bp, c->leaf, LATCH_S, &f) == 0) {
        if (page_type(f->data) == PAGE_TYPE_BTREE && page_owner(f->data) == t->id && lvl(f->data) == 0 &&
            page_lsn(f->data) == c->leaf_lsn) {
            rc = cur_settle(c, f, (int64_t)c->slot + dir, dir);
            pthread_rwlock_unlock(&t->lock);
            return rc;
        }
        bpool_unfix(t->bp, f, LATCH_S);
    }
    /* The leaf changed since we were there: find our place again by key. */
    buf_t k;
    buf_init(&k);
    buf_append(&k, c->key.data, c->key.len);
    rc = seek_locked(c, k.data, k.len, dir > 0 ? BT_GT : BT_LT);
    buf_free(&k);
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

bool btree_cur_unchanged(btree_cur_t *c)
{
    btree_t *t = c->t;
    bframe_t *f;
    bool same = false;
    if (c->state != BTCUR_ON_ROW || c->leaf_lsn == 0)
        return false;
    pthread_rwlock_rdlock(&t->lock);
    if (bpool_fix(t->bp, c->leaf, LATCH_S, &f) == 0) {
        same = page_type(f->data) == PAGE_TYPE_BTREE && page_owner(f->data) == t->id && lvl(f->data) == 0 &&
               page_lsn(f->data) == c->leaf_lsn;
        bpool_unfix(t->bp, f, LATCH_S);
    }
    pthread_rwlock_unlock(&t->lock);
    return same;
}

int btree_cur_next(btree_cur_t *c) { return cur_step(c, 1); }
int btree_cur_prev(btree_cur_t *c) { return cur_step(c, -1); }

/* ---------------------------------------------------------------- verification */

typedef struct {
    btree_t *t;
    uint64_t pages, rows;
    page_id_t last_leaf;
    buf_t last_key;
    bool have_last;
    int leaf_level_seen;
} vctx_t;

static int verify_node(vctx_t *v, page_id_t id, int expect_level, const uint8_t *lo, size_t lol, bool has_lo,
                       const uint8_t *hi, size_t hil, bool has_hi, int depth)
{
    btree_t *t = v->t;
    if (depth > MAX_DEPTH)
        return CORRUPT("btree %llu: too deep", (unsigned long long)t->id);
    bframe_t *f;
    int rc = bpool_fix(t->bp, id, LATCH_S, &f);
    if (rc)
        return rc;
    uint8_t *p = mem_alloc(t->ps);
    memcpy(p, f->data, t->ps);
    bpool_unfix(t->bp, f, LATCH_S);
    v->pages++;
    bframe_t fake = {.id = id, .data = p};
    if ((rc = check_node(t, &fake)))
        goto out;
    int level = lvl(p);
    bool leaf = level == 0;
    if (expect_level >= 0 && level != expect_level) {
        rc = CORRUPT("btree %llu: page %u at level %d, expected %d", (unsigned long long)t->id, page_id_pgno(id),
                     level, expect_level);
        goto out;
    }
    uint32_t n = nsl(p);
    if (!leaf && n == 0) {
        rc = CORRUPT("btree %llu: empty internal page %u", (unsigned long long)t->id, page_id_pgno(id));
        goto out;
    }
    if (btree_page_check(p, t->ps)) {
        rc = CORRUPT("btree %llu: page %u: cells out of bounds or heap accounting off", (unsigned long long)t->id,
                     page_id_pgno(id));
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kl;
        const uint8_t *k = ckey(cellp(p, i), leaf, &kl);
        if (!leaf && i == 0)
            continue;
        if (i > (leaf ? 0u : 1u)) {
            uint32_t pkl;
            const uint8_t *pk = ckey(cellp(p, i - 1), leaf, &pkl);
            if (kcmp(pk, pkl, k, kl) >= 0) {
                rc = CORRUPT("btree %llu: page %u keys out of order at %u", (unsigned long long)t->id,
                             page_id_pgno(id), i);
                goto out;
            }
        }
        if ((has_lo && kcmp(k, kl, lo, lol) < 0) || (has_hi && kcmp(k, kl, hi, hil) >= 0)) {
            rc = CORRUPT("btree %llu: page %u key %u outside its parent's bounds", (unsigned long long)t->id,
                         page_id_pgno(id), i);
            goto out;
        }
    }
    if (leaf) {
        if (rd64(p + BT_PREV) != v->last_leaf) {
            rc = CORRUPT("btree %llu: leaf %u prev link broken", (unsigned long long)t->id, page_id_pgno(id));
            goto out;
        }
        if (v->last_leaf != PAGE_ID_NONE) {
            bframe_t *pf;
            if ((rc = bpool_fix(t->bp, v->last_leaf, LATCH_S, &pf)))
                goto out;
            bool ok = rd64(pf->data + BT_NEXT) == id;
            bpool_unfix(t->bp, pf, LATCH_S);
            if (!ok) {
                rc = CORRUPT("btree %llu: leaf next link broken before %u", (unsigned long long)t->id,
                             page_id_pgno(id));
                goto out;
            }
        }
        v->last_leaf = id;
        for (uint32_t i = 0; i < n; i++) {
            uint8_t *c = cellp(p, i);
            uint32_t kl;
            const uint8_t *k = ckey(c, true, &kl);
            if (v->have_last && kcmp(v->last_key.data, v->last_key.len, k, kl) >= 0) {
                rc = CORRUPT("btree %llu: keys out of order across leaves", (unsigned long long)t->id);
                goto out;
            }
            buf_reset(&v->last_key);
            buf_append(&v->last_key, k, kl);
            v->have_last = true;
            v->rows++;
            if (c[2] & CELL_OVF) {
                buf_t tmp;
                buf_init(&tmp);
                rc = ovf_read(t, rd64(c + LEAF_HDR + kl), rd32(c + 4), &tmp);
                buf_free(&tmp);
                if (rc)
                    goto out;
                v->pages += ovf_pages(t, rd32(c + 4));
            }
        }
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kl = 0, nkl = 0;
        const uint8_t *k = i ? ckey(cellp(p, i), false, &kl) : lo;
        if (!i)
            kl = (uint32_t)lol;
        const uint8_t *nk = i + 1 < n ? ckey(cellp(p, i + 1), false, &nkl) : hi;
        if (i + 1 >= n)
            nkl = (uint32_t)hil;
        rc = verify_node(v, cchild(cellp(p, i)), level - 1, k, kl, i ? true : has_lo, nk, nkl,
                         i + 1 < n ? true : has_hi, depth + 1);
        if (rc)
            goto out;
    }
out:
    mem_free(p);
    return rc;
}

int btree_verify(btree_t *t, uint64_t *pages, uint64_t *rows)
{
    vctx_t v = {.t = t, .last_leaf = PAGE_ID_NONE};
    buf_init(&v.last_key);
    pthread_rwlock_rdlock(&t->lock);
    int rc = verify_node(&v, t->root, -1, NULL, 0, false, NULL, 0, false, 0);
    if (!rc && v.last_leaf != PAGE_ID_NONE) {
        bframe_t *f;
        if (!(rc = bpool_fix(t->bp, v.last_leaf, LATCH_S, &f))) {
            if (rd64(f->data + BT_NEXT) != PAGE_ID_NONE)
                rc = CORRUPT("btree %llu: last leaf has a next link", (unsigned long long)t->id);
            bpool_unfix(t->bp, f, LATCH_S);
        }
    }
    pthread_rwlock_unlock(&t->lock);
    buf_free(&v.last_key);
    if (pages)
        *pages = v.pages;
    if (rows)
        *rows = v.rows;
    return rc;
}

static int walk_node(btree_t *t, page_id_t id, void (*cb)(void *, page_id_t, page_type_t), void *ctx, int depth)
{
    if (depth > MAX_DEPTH)
        return CORRUPT("btree %llu: too deep", (unsigned long long)t->id);
    bframe_t *f;
    int rc = bpool_fix(t->bp, id, LATCH_S, &f);
    if (rc)
        return rc;
    uint8_t *p = mem_alloc(t->ps);
    memcpy(p, f->data, t->ps);
    bpool_unfix(t->bp, f, LATCH_S);
    bframe_t fake = {.id = id, .data = p};
    if ((rc = check_node(t, &fake)))
        goto out;
    cb(ctx, id, PAGE_TYPE_BTREE);
    bool leaf = lvl(p) == 0;
    for (uint32_t i = 0; i < nsl(p) && !rc; i++) {
        uint8_t *c = cellp(p, i);
        if (!leaf) {
            rc = walk_node(t, cchild(c), cb, ctx, depth + 1);
        } else if (c[2] & CELL_OVF) {
            page_id_t o = rd64(c + LEAF_HDR + rd16(c));
            for (uint32_t k = 0; o != PAGE_ID_NONE && k < ovf_pages(t, rd32(c + 4)); k++) {
                cb(ctx, o, PAGE_TYPE_OVERFLOW);
                bframe_t *of;
                if ((rc = bpool_fix(t->bp, o, LATCH_S, &of)))
                    break;
                o = rd64(of->data + OVF_NEXT);
                bpool_unfix(t->bp, of, LATCH_S);
            }
        }
    }
out:
    mem_free(p);
    return rc;
}

int btree_walk(btree_t *t, void (*cb)(void *ctx, page_id_t id, page_type_t type), void *ctx)
{
    pthread_rwlock_rdlock(&t->lock);
    int rc = walk_node(t, t->root, cb, ctx, 0);
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

/* Salvage (innodb_force_recovery): the walk of walk_node that goes on past what it cannot read.  A child that fails
 * its checksum or its checks is reported with the key interval its parent gives it ([lo, hi), NULL for an open
 * end) and skipped; so is a leaf cell whose overflow chain is damaged (its key is known: the interval is the key
 * alone).  Live cells are given in key order, delete-marked ones skipped: the latest state of each key, without
 * MVCC (the caller reads a tree whose writers are done). */
typedef struct {
    btree_t *t;
    btree_salvage_cb entry;
    btree_salvage_bad_cb bad;
    void *ctx;
} salv_t;

static void salvage_node(salv_t *s, page_id_t id, const uint8_t *lo, uint32_t lol, const uint8_t *hi, uint32_t hil,
                         int depth)
{
    btree_t *t = s->t;
    bframe_t *f;
    uint8_t *p = NULL;
    if (depth > MAX_DEPTH || bpool_fix(t->bp, id, LATCH_S, &f) != 0) {
        s->bad(s->ctx, id, lo, lol, hi, hil);
        return;
    }
    p = mem_alloc(t->ps);
    memcpy(p, f->data, t->ps);
    bpool_unfix(t->bp, f, LATCH_S);
    bframe_t fake = {.id = id, .data = p};
    if (check_node(t, &fake) || btree_page_check(p, t->ps)) {
        s->bad(s->ctx, id, lo, lol, hi, hil);
        goto out;
    }
    bool leaf = lvl(p) == 0;
    buf_t v;
    buf_init(&v);
    for (uint32_t i = 0; i < nsl(p); i++) {
        uint8_t *c = cellp(p, i);
        uint32_t kl;
        const uint8_t *k = ckey(c, leaf, &kl);
        if (!leaf) {
            const uint8_t *clo = i ? k : lo, *chi = hi;
            uint32_t clol = i ? kl : lol, chil = hil;
            if (i + 1 < nsl(p))
                chi = ckey(cellp(p, i + 1), false, &chil);
            salvage_node(s, cchild(c), clo, clol, chi, chil, depth + 1);
            continue;
        }
        if (c[2] & CELL_DELMARK)
            continue;
        if (c[2] & CELL_OVF) {
            buf_reset(&v);
            if (ovf_read(t, rd64(c + LEAF_HDR + kl), rd32(c + 4), &v) != 0) {
                s->bad(s->ctx, PAGE_ID_NONE, k, kl, NULL, 0);
                continue;
            }
            s->entry(s->ctx, k, kl, v.data, v.len);
        } else {
            s->entry(s->ctx, k, kl, k + kl, rd32(c + 4));
        }
    }
    buf_free(&v);
out:
    mem_free(p);
}

void btree_salvage(btree_t *t, btree_salvage_cb entry, btree_salvage_bad_cb bad, void *ctx)
{
    salv_t s = {.t = t, .entry = entry, .bad = bad, .ctx = ctx};
    pthread_rwlock_rdlock(&t->lock);
    salvage_node(&s, t->root, NULL, 0, NULL, 0, 0);
    pthread_rwlock_unlock(&t->lock);
}

/* ---------------------------------------------------------------- moving an extent (online rebalance)
 *
 * Pages are addressed physically (space | file | page), so moving a page means rewriting every pointer to it.
 * In this tree the pointers to a page are: its parent's child pointer (nodes), its neighbours' prev/next links
 * (nodes on a linked level: leaves), and, for an overflow page, the leaf cell or the previous overflow page of
 * its chain.  Nothing else holds page ids across calls: cursors keep a leaf id with its LSN and re-seek by key
 * when the LSN differs (a moved-away page is stamped by the move, so it always differs), and undo and the
 * version store are keyed by (tree, key).
 *
 * Under the tree latch held X (no reader or writer of the tree is inside), one walk finds every pointer into
 * the extent; then each page moves in its own mini-transaction: new page in the destination file (a full image
 * in the redo), every pointer to the old page rewritten, the old page marked free and freed.  Each mtr leaves a
 * complete, consistent tree, so a crash between two of them loses nothing: the extent is simply half moved and
 * the next rebalance continues.  The extent goes back to the tablespace with the free of its last page.
 * Refused (ENGINE_EBUSY, nothing changed): an extent holding the root (the root page id never changes) or a page
 * the walk cannot reach (an overflow chain being written before its leaf cell exists). */

typedef struct {
    page_id_t holder; /* page holding the pointer (its id before any move of this run) */
    uint32_t off;     /* byte offset of the u64 pointer in the holder */
    page_id_t target;
} mv_ref_t;

typedef struct {
    btree_t *t;
    uint32_t space, file, ext, ep;
    bool full;        /* walk leaves and overflow chains too */
    mv_ref_t *refs;
    size_t n, cap;
} mv_ctx_t;

static bool mv_in(const mv_ctx_t *v, page_id_t id)
{
    return id != PAGE_ID_NONE && page_id_space(id) == v->space && page_id_file(id) == v->file &&
           page_id_pgno(id) / v->ep == v->ext;
}

static void mv_add(mv_ctx_t *v, page_id_t holder, uint32_t off, page_id_t target)
{
    if (!mv_in(v, target))
        return;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 64;
        v->refs = mem_realloc(v->refs, v->cap * sizeof *v->refs);
    }
    v->refs[v->n++] = (mv_ref_t){.holder = holder, .off = off, .target = target};
}

static int mv_walk(mv_ctx_t *v, page_id_t id, int depth)
{
    btree_t *t = v->t;
    if (depth > MAX_DEPTH)
        return CORRUPT("btree %llu: too deep", (unsigned long long)t->id);
    bframe_t *f;
    int rc = bpool_fix(t->bp, id, LATCH_S, &f);
    if (rc)
        return rc;
    uint8_t *p = mem_alloc(t->ps);
    memcpy(p, f->data, t->ps);
    bpool_unfix(t->bp, f, LATCH_S);
    bframe_t fake = {.id = id, .data = p};
    if ((rc = check_node(t, &fake)))
        goto out;
    bool leaf = lvl(p) == 0;
    if (leaf && !v->full)
        goto out;
    mv_add(v, id, BT_PREV, rd64(p + BT_PREV));
    mv_add(v, id, BT_NEXT, rd64(p + BT_NEXT));
    for (uint32_t i = 0; i < nsl(p) && !rc; i++) {
        uint32_t coff = rd16(p + BT_SLOTS + 2 * i);
        uint8_t *c = p + coff;
        if (!leaf) {
            mv_add(v, id, coff + 2, cchild(c));
            if (v->full || lvl(p) > 1)
                rc = mv_walk(v, cchild(c), depth + 1);
        } else if (c[2] & CELL_OVF) {
            uint32_t off = coff + LEAF_HDR + rd16(c);
            page_id_t o = rd64(p + off);
            mv_add(v, id, off, o);
            for (uint32_t k = 0; o != PAGE_ID_NONE && k < ovf_pages(t, rd32(c + 4)); k++) {
                bframe_t *of;
                if ((rc = bpool_fix(t->bp, o, LATCH_S, &of)))
                    break;
                page_id_t nx = rd64(of->data + OVF_NEXT);
                bpool_unfix(t->bp, of, LATCH_S);
                mv_add(v, o, OVF_NEXT, nx);
                o = nx;
            }
        }
    }
out:
    mem_free(p);
    return rc;
}

/* The current id of a page that may have moved earlier in this run. */
static page_id_t mv_remap(const page_id_t (*moved)[2], uint32_t nmoved, page_id_t id)
{
    for (uint32_t i = 0; i < nmoved; i++)
        if (moved[i][0] == id)
            return moved[i][1];
    return id;
}

int btree_move_extent(btree_t *t, uint32_t file, uint32_t ext, uint32_t dst_file, uint32_t max_pages,
                      int (*between)(void *ctx), void *ctx, uint32_t *moved_out, bool *emptied)
{
    int rc = 0;
    uint32_t space = page_id_space(t->root), ep = fsys_extent_pages(t->fs, space);
    mv_ctx_t v = {.t = t, .space = space, .file = file, .ext = ext, .ep = ep};
    page_id_t (*moved)[2] = NULL, pages[SPACE_EXTENT_PAGES_MAX];
    uint32_t nmoved = 0, npages = 0;
    *moved_out = 0;
    *emptied = false;
    if (!ep)
        return STRATA_ENOTFOUND;
    pthread_rwlock_wrlock(&t->lock);
    uint64_t owner;
    uint16_t used;
    uint8_t bitmap[32];
    if ((rc = fsys_xdes_read(t->fs, space, file, ext, &owner, &used, bitmap)))
        goto out;
    if (owner != t->id) {
        rc = STRATA_ENOTFOUND; /* freed or retaken since it was picked */
        goto out;
    }
    if (mv_in(&v, t->root)) {
        rc = ENGINE_EBUSY;
        goto out;
    }
    /* What the extent holds: B+tree nodes of this tree or overflow pages; anything else is in flight.  Leaves
     * of the extent are pointed at by their neighbours, which a walk of internal pages alone does not see. */
    for (uint32_t i = 0; i < ep; i++) {
        if (!(bitmap[i / 8] & (1u << (i % 8))))
            continue;
        page_id_t id = page_id_make(space, file, ext * ep + i);
        pages[npages++] = id;
        bframe_t *f;
        if ((rc = bpool_fix(t->bp, id, LATCH_S, &f)))
            goto out;
        page_type_t ty = page_type(f->data);
        bool mine = page_owner(f->data) == t->id;
        if (mine && ty == PAGE_TYPE_BTREE && lvl(f->data) == 0) {
            page_id_t pv = rd64(f->data + BT_PREV), nx = rd64(f->data + BT_NEXT);
            if (pv != PAGE_ID_NONE && !mv_in(&v, pv))
                mv_add(&v, pv, BT_NEXT, id);
            if (nx != PAGE_ID_NONE && !mv_in(&v, nx))
                mv_add(&v, nx, BT_PREV, id);
        }
        bpool_unfix(t->bp, f, LATCH_S);
        if (!mine || (ty != PAGE_TYPE_BTREE && ty != PAGE_TYPE_OVERFLOW)) {
            rc = ENGINE_EBUSY;
            goto out;
        }
        if (ty == PAGE_TYPE_OVERFLOW)
            v.full = true;
    }
    if (v.full) {
        v.n = 0; /* the full walk finds every pointer, neighbours included */
        rc = mv_walk(&v, t->root, 0);
    } else {
        /* Internal pages only; pointers between two leaves of the extent come from the leaves themselves. */
        rc = mv_walk(&v, t->root, 0);
        for (uint32_t i = 0; !rc && i < npages; i++) {
            bframe_t *f;
            if ((rc = bpool_fix(t->bp, pages[i], LATCH_S, &f)))
                break;
            if (lvl(f->data) == 0) {
                page_id_t pv = rd64(f->data + BT_PREV), nx = rd64(f->data + BT_NEXT);
                if (mv_in(&v, pv))
                    mv_add(&v, pages[i], BT_PREV, pv);
                if (mv_in(&v, nx))
                    mv_add(&v, pages[i], BT_NEXT, nx);
            }
            bpool_unfix(t->bp, f, LATCH_S);
        }
    }
    if (rc)
        goto out;
    /* Every page must be reachable, or it belongs to a change in flight. */
    for (uint32_t i = 0; i < npages; i++) {
        bool found = false;
        for (size_t k = 0; k < v.n && !found; k++)
            found = v.refs[k].target == pages[i];
        if (!found) {
            rc = ENGINE_EBUSY;
            goto out;
        }
    }
    moved = mem_alloc(npages * sizeof *moved);
    for (uint32_t i = 0; i < npages && nmoved < max_pages; i++) {
        page_id_t old = pages[i], nw;
        if (between && (rc = between(ctx)))
            break;
        mtr_t m;
        mtr_start(&m, t->bp, t->redo);
        bframe_t *fo, *fn, *fh;
        /* Page latches first (lock order), then the space mutex (allocation), then the new page. */
        if ((rc = mtr_fix(&m, old, LATCH_X, &fo)))
            goto abort;
        for (size_t k = 0; k < v.n; k++) {
            if (v.refs[k].target != old)
                continue;
            if ((rc = mtr_fix(&m, mv_remap((const page_id_t(*)[2])moved, nmoved, v.refs[k].holder), LATCH_X, &fh)))
                goto abort;
            if (rd64(fh->data + v.refs[k].off) != old) {
                rc = CORRUPT("btree %llu: pointer to page %u:%u:%u changed during a move", (unsigned long long)t->id,
                             space, file, page_id_pgno(old));
                goto abort;
            }
        }
        if ((rc = seg_alloc_page_in_file(t->fs, &m, t->id, dst_file, &nw)))
            goto abort;
        if ((rc = mtr_fix_new(&m, nw, &fn))) {
            seg_free_page(t->fs, &m, t->id, nw); /* give the page back in the same mtr: nothing leaks */
            goto abort;
        }
        memcpy(fn->data, fo->data, t->ps);
        wr64(fn->data + PAGE_OFF_ID, nw);
        for (size_t k = 0; k < v.n; k++) {
            if (v.refs[k].target != old)
                continue;
            mtr_fix(&m, mv_remap((const page_id_t(*)[2])moved, nmoved, v.refs[k].holder), LATCH_X, &fh);
            mtr_modify(&m, fh);
            wr64(fh->data + v.refs[k].off, nw);
        }
        /* The old page is no node any more: a cursor that remembers it sees the type and the LSN change. */
        mtr_modify(&m, fo);
        fo->data[PAGE_OFF_TYPE] = PAGE_TYPE_FREE;
        if ((rc = seg_free_page(t->fs, &m, t->id, old)))
            goto abort;
        mtr_commit(&m);
        moved[nmoved][0] = old;
        moved[nmoved][1] = nw;
        nmoved++;
        continue;
    abort:
        /* Every failure above comes before the first page change (or undoes its allocation): committing logs
         * nothing that leaves the tree inconsistent. */
        mtr_commit(&m);
        break;
    }
    *moved_out = nmoved;
    *emptied = nmoved == npages;
out:
    pthread_rwlock_unlock(&t->lock);
    mem_free(v.refs);
    mem_free(moved);
    return rc;
}

/* ---------------------------------------------------------------- bottom-up load (btree.h)
 *
 * Keys arrive sorted, so every page is filled once, left to right, and never split: a level's page is written
 * when the next cell would pass its fill mark, and its first key goes up as the separator of the level above
 * (the key of slot 0 of an internal page is ignored and stored empty).  A leaf's next link must name the page
 * that follows it, so that page's id is allocated in the same mtr that writes the leaf.  The root page keeps its
 * id: at the end the top level's single page is copied into it, the one change that makes the loaded levels
 * reachable. */

void btree_bulk_init(btree_bulk_t *b, btree_t *t, uint32_t fill_pct, int (*between)(void *ctx), void *ctx)
{
    memset(b, 0, sizeof *b);
    b->t = t;
    fill_pct = fill_pct < 50 ? 50 : fill_pct > 100 ? 100 : fill_pct;
    b->leaf_fill = (uint32_t)((uint64_t)capacity(t->ps) * fill_pct / 100);
    b->between = between;
    b->ctx = ctx;
    buf_init(&b->last);
    for (int i = 0; i < BTREE_BULK_MAX_LEVELS; i++) {
        buf_init(&b->lv[i].first);
        b->lv[i].id = b->lv[i].prev = PAGE_ID_NONE;
    }
}

void btree_bulk_free(btree_bulk_t *b)
{
    for (int i = 0; i < BTREE_BULK_MAX_LEVELS; i++) {
        mem_free(b->lv[i].page);
        buf_free(&b->lv[i].first);
    }
    buf_free(&b->last);
    memset(b, 0, sizeof *b);
}

static void bulk_key_set(buf_t *b, const void *key, size_t klen)
{
    buf_reset(b);
    buf_append(b, key, klen);
}

static btree_bulk_level_t *bulk_level(btree_bulk_t *b, int L)
{
    btree_bulk_level_t *lv = &b->lv[L];
    if (!lv->page) {
        lv->page = mem_alloc(b->t->ps);
        node_init(lv->page, b->t->ps, PAGE_ID_NONE, b->t->id, (uint16_t)L);
        if (L >= b->nlv)
            b->nlv = L + 1;
    }
    return lv;
}

static int bulk_add_sep(btree_bulk_t *b, int L, const void *key, size_t klen, page_id_t child);

/* Writes level L's page (last: no page follows it on this level) and hands its separator to level L + 1. */
static int bulk_write_page(btree_bulk_t *b, int L, bool last)
{
    btree_t *t = b->t;
    btree_bulk_level_t *lv = &b->lv[L];
    int rc = b->between ? b->between(b->ctx) : 0;
    if (rc)
        return rc;
    uint32_t need = (lv->id == PAGE_ID_NONE) + (L == 0 && !last);
    mtr_t m;
    mtr_start(&m, t->bp, t->redo);
    page_id_t next = PAGE_ID_NONE;
    bframe_t *f;
    if (need && (rc = seg_reserve(t->fs, &m, t->id, need)))
        goto out;
    if (lv->id == PAGE_ID_NONE && (rc = seg_alloc_page(t->fs, &m, t->id, &lv->id)))
        goto out;
    if (L == 0 && !last && (rc = seg_alloc_page(t->fs, &m, t->id, &next)))
        goto out;
    if ((rc = mtr_fix_new(&m, lv->id, &f)))
        goto out;
    if (L == 0) {
        wr64(lv->page + BT_PREV, lv->prev);
        wr64(lv->page + BT_NEXT, next);
    }
    memcpy(f->data, lv->page, t->ps);
    wr64(f->data + PAGE_OFF_ID, lv->id);
out:
    mtr_commit(&m);
    if (rc)
        return rc;
    page_id_t id = lv->id;
    lv->prev = id;
    lv->id = next;
    lv->written++;
    b->pages++;
    node_init(lv->page, t->ps, PAGE_ID_NONE, t->id, (uint16_t)L);
    if (L + 1 >= BTREE_BULK_MAX_LEVELS)
        return CORRUPT("btree %llu: bulk load deeper than %d levels", (unsigned long long)t->id, BTREE_BULK_MAX_LEVELS);
    rc = bulk_add_sep(b, L + 1, lv->first.data, lv->first.len, id);
    buf_reset(&lv->first);
    return rc;
}

/* Makes room for a cell of len bytes on level L: writes the page first when the cell would pass limit. */
static int bulk_room(btree_bulk_t *b, int L, uint32_t len, uint32_t limit)
{
    btree_bulk_level_t *lv = bulk_level(b, L);
    if (nsl(lv->page) > 0 && (used(lv->page, b->t->ps) + len + 2 > limit || !node_fits(lv->page, len)))
        return bulk_write_page(b, L, false);
    return 0;
}

static int bulk_add_sep(btree_bulk_t *b, int L, const void *key, size_t klen, page_id_t child)
{
    int rc = bulk_room(b, L, (uint32_t)(NODE_HDR + klen), capacity(b->t->ps));
    if (rc)
        return rc;
    btree_bulk_level_t *lv = &b->lv[L];
    uint8_t cell[NODE_HDR + ENGINE_MAX_KEY];
    uint32_t n = nsl(lv->page), kl = n ? (uint32_t)klen : 0;
    wr16(cell, (uint16_t)kl);
    wr64(cell + 2, child);
    memcpy(cell + NODE_HDR, key, kl);
    node_insert_at(lv->page, b->t->ps, n, cell, NODE_HDR + kl);
    if (n == 0)
        bulk_key_set(&lv->first, key, klen);
    return 0;
}

int btree_bulk_add(btree_bulk_t *b, const void *key, size_t klen, const void *val, size_t vlen)
{
    btree_t *t = b->t;
    if (klen > t->max_key || vlen > ENGINE_MAX_VALUE)
        return ENGINE_EINVAL;
    if (b->any) {
        int r = kcmp(key, klen, b->last.data, b->last.len);
        if (r <= 0)
            return r == 0 ? ENGINE_EDUPKEY : ENGINE_EINVAL;
    }
    bool ovf = LEAF_HDR + klen + vlen > t->max_inline;
    uint32_t len = (uint32_t)(LEAF_HDR + klen + (ovf ? 8 : vlen));
    page_id_t first = PAGE_ID_NONE;
    uint32_t allocated = 0;
    int rc = 0;
    if (ovf && (rc = ovf_write_chunked(t, val, vlen, &first, &allocated)))
        return rc;
    if ((rc = bulk_room(b, 0, len, b->leaf_fill)))
        return rc;
    btree_bulk_level_t *lv = &b->lv[0];
    uint8_t *cell = mem_alloc(len);
    leaf_cell(cell, key, klen, vlen, val, ovf, first, 0);
    uint32_t n = nsl(lv->page);
    node_insert_at(lv->page, t->ps, n, cell, len);
    mem_free(cell);
    if (n == 0)
        bulk_key_set(&lv->first, key, klen);
    bulk_key_set(&b->last, key, klen);
    b->any = true;
    b->rows++;
    return 0;
}

int btree_bulk_finish(btree_bulk_t *b)
{
    btree_t *t = b->t;
    if (!b->any)
        return 0;
    int rc = 0;
    for (int L = 0; L < b->nlv && !rc; L++) {
        btree_bulk_level_t *lv = &b->lv[L];
        if (L < b->nlv - 1 || lv->written > 0) {
            rc = bulk_write_page(b, L, true);
            continue;
        }
        /* the top level's only page becomes the root */
        if (b->between && (rc = b->between(b->ctx)))
            break;
        mtr_t m;
        mtr_start(&m, t->bp, t->redo);
        bframe_t *f;
        if (!(rc = mtr_fix(&m, t->root, LATCH_X, &f)) && !(rc = check_node(t, f))) {
            if (lvl(f->data) != 0 || nsl(f->data) != 0)
                rc = ENGINE_EINVAL; /* a bulk load goes into an empty tree only */
        }
        if (!rc) {
            mtr_modify(&m, f);
            uint64_t lsn = page_lsn(f->data);
            memcpy(f->data, lv->page, t->ps);
            wr64(f->data + PAGE_OFF_ID, t->root);
            wr64(f->data + BT_PREV, PAGE_ID_NONE);
            wr64(f->data + BT_NEXT, PAGE_ID_NONE);
            page_set_lsn(f->data, lsn);
        }
        mtr_commit(&m);
        break;
    }
    return rc;
}
