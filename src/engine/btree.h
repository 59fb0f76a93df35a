/*
 * engine/btree: B+trees of (key -> value) byte strings over buffer-pool pages, the structure behind every table
 * and index.  Keys compare with memcmp, shorter first on a common prefix.  Values too large to keep a leaf at
 * four cells go whole to a chain of overflow pages.  Pages split when full, merge with a sibling when a delete
 * leaves them under a quarter full, and go back to the tree's segment when emptied; the root page never moves.
 *
 * Concurrency ("latch coupling or an equivalent", InnoDB's index-lock scheme): each tree has a tree latch.
 * Readers and optimistic writers (the change fits in one leaf) hold it shared and descend latching one page at a
 * time (S on internal pages, X on the target leaf); under a shared tree latch the shape of the tree cannot change,
 * so releasing a parent before latching its child is safe.  A change that must split or merge retries holding the
 * tree latch exclusively.  Leaves are linked both ways; cursors keep no latch between calls and resume from the
 * leaf they were on when its LSN is unchanged, otherwise by re-seeking their saved key.
 * The page layout is drawn at the top of btree.c.
 */
#ifndef STRATA_ENGINE_BTREE_H
#define STRATA_ENGINE_BTREE_H

#include "engine/mtr.h"
#include "engine/space.h"

typedef struct btree {
    uint64_t id;          /* also the id of its segment */
    page_id_t root;
    pthread_rwlock_t lock;
    fsys_t *fs;
    bpool_t *bp;
    redo_t *redo;
    uint32_t ps;
    uint32_t max_key;     /* longest key accepted */
    uint32_t max_inline;  /* longest leaf cell kept inline; bigger values go to overflow pages */
} btree_t;

typedef enum { BT_INSERT = 0, BT_UPDATE = 1, BT_PUT = 2 } bt_mode_t;

/* The state of a key before a change: no cell, a live cell, or a delete-marked cell (deleted by a transaction,
 * kept until purge because older read views may still see it). */
typedef enum { BT_BEFORE_ABSENT = 0, BT_BEFORE_PRESENT = 1, BT_BEFORE_DELMARKED = 2 } bt_before_t;

/* Called inside the mtr of a successful write or delete, just before it commits, with the key's previous state
 * (state, value, trx id of its writer): the engine logs its undo record here so that the change and its undo are
 * atomic. */
typedef struct {
    void (*fn)(void *ctx, mtr_t *m, bt_before_t before, const buf_t *old, uint64_t old_trx);
    void *ctx;
} bt_hook_t;

/* How btree_delete removes a key: physically; by setting the delete mark (stamped with trx); or, for purge,
 * physically but only if the cell is delete-marked by exactly trx. */
typedef enum { BT_DEL_PHYSICAL = 0, BT_DEL_MARK = 1, BT_DEL_PURGE = 2 } bt_del_t;

btree_t *btree_handle(fsys_t *fs, bpool_t *bp, redo_t *redo, uint64_t id, page_id_t root);
void btree_handle_free(btree_t *t);
/* Creates the tree's segment and its empty root leaf in mtr m. */
int btree_create(fsys_t *fs, mtr_t *m, uint32_t space, uint64_t id, page_id_t *root);
/* Returns every extent of the tree to its tablespace (in m). */
int btree_destroy(btree_t *t, mtr_t *m);

/* Insert / update / put.  outer: an mtr to work in (NULL: the tree commits its own).  When old is not NULL it
 * receives the previous value and *existed says whether there was a live one.  A delete-marked cell counts as
 * absent: insert replaces it.  Errors: ENGINE_EDUPKEY (insert of an existing key), STRATA_ENOTFOUND (update of a
 * missing key), ENGINE_EFULL, ENGINE_EINVAL (key too long). */
int btree_write(btree_t *t, mtr_t *outer, bt_mode_t mode, const void *key, size_t klen, const void *val, size_t vlen,
                uint64_t trx_id, buf_t *old, bool *existed, const bt_hook_t *hook);
/* STRATA_ENOTFOUND when there is no live cell (PHYSICAL also removes a marked one; PURGE needs the mark). */
int btree_delete(btree_t *t, mtr_t *outer, const void *key, size_t klen, buf_t *old, const bt_hook_t *hook,
                 bt_del_t how, uint64_t trx_id);
/* Takes back a delete mark set by trx_id (the rollback of a DELETE, which kept the value): the cell is live again
 * with prev_trx as its writer, changed in place, so it needs no page.  STRATA_ENOTFOUND when the key's cell is
 * not marked by trx_id. */
int btree_unmark(btree_t *t, const void *key, size_t klen, uint64_t trx_id, uint64_t prev_trx);
/* The live value (delete-marked cells are absent). */
int btree_get(btree_t *t, const void *key, size_t klen, buf_t *val);
/* The raw cell: its value (val NULL: not read), writer and state (ABSENT gives STRATA_ENOTFOUND). */
int btree_get_ex(btree_t *t, const void *key, size_t klen, buf_t *val, uint64_t *trx, bt_before_t *state);

typedef enum { BT_GE = 0, BT_GT, BT_LE, BT_LT, BT_FIRST, BT_LAST } bt_seek_t;
typedef enum { BTCUR_UNPOSITIONED = 0, BTCUR_ON_ROW } btcur_state_t;
typedef struct {
    btree_t *t;
    btcur_state_t state;
    bool raw;          /* set after init: also stop on delete-marked cells (MVCC readers resolve them) */
    uint64_t trx;      /* writer of the current cell */
    bool delmarked;    /* the current cell is delete-marked (raw cursors only) */
    buf_t key, val;
    page_id_t leaf;
    uint64_t leaf_lsn;
    uint32_t slot;
} btree_cur_t;

void btree_cur_init(btree_cur_t *c, btree_t *t);
void btree_cur_free(btree_cur_t *c);
int btree_cur_seek(btree_cur_t *c, const void *key, size_t klen, bt_seek_t how);
int btree_cur_next(btree_cur_t *c);
/* Is the leaf the current cell was read from unchanged since (its LSN)?  Then key, value, writer and mark are
 * still the latest (every change to a leaf moves its LSN; invariant 2).  A locking reader uses it after waiting
 * for the row's lock instead of reading the row again. */
bool btree_cur_unchanged(btree_cur_t *c);
int btree_cur_prev(btree_cur_t *c);

/* Online rebalance: moves the used pages of extent `ext` of data file `file` (the tree's space) into data file
 * dst_file, one mini-transaction per page (see btree.c), at most max_pages of them.  between(ctx), if given, runs
 * before each page's mtr with no page latched (the engine's log-space check); an error from it stops the move.
 * *moved: pages moved; *emptied: every page moved (the extent went back to the tablespace).  ENGINE_EBUSY, nothing
 * moved: the extent holds the root or a page of a change in flight.  STRATA_ENOTFOUND: not this tree's extent.
 * ENGINE_EFULL: no room left in dst_file. */
int btree_move_extent(btree_t *t, uint32_t file, uint32_t ext, uint32_t dst_file, uint32_t max_pages,
                      int (*between)(void *ctx), void *ctx, uint32_t *moved, bool *emptied);

/* Bottom-up load of an empty tree from keys in strictly increasing order (index builds: the keys come out of a
 * sort).  Each level has one page being filled in private memory; a full page is written whole, in its own mtr
 * (so it is logged as a full page image), its first key pushed as a separator into the level above, and a leaf
 * linked to the next leaf by the page id allocated for that one.  btree_bulk_finish writes the partial pages of
 * every level and copies the top one into the root, whose id never changes: until then the tree as readers see
 * it is still the empty root, so a crash or btree_bulk_abort leaves allocated pages nothing reaches (the caller
 * drops the tree).  No tree latch is taken: nobody may use the tree before finish returns.  Leaves are filled to
 * fill_pct percent of the page (the rest for later inserts), internal pages full.  Cells carry trx id 0. */
#define BTREE_BULK_MAX_LEVELS 24
typedef struct {
    uint8_t *page;           /* the page being filled (mem_alloc'd), NULL before the first cell */
    buf_t first;             /* its first key: the separator its parent gets */
    page_id_t id;            /* id allocated for it, PAGE_ID_NONE until needed */
    page_id_t prev;          /* the page written before it on this level (leaves link to it) */
    uint64_t written;        /* pages written on this level */
} btree_bulk_level_t;

typedef struct {
    btree_t *t;
    btree_bulk_level_t lv[BTREE_BULK_MAX_LEVELS];
    int nlv;
    uint32_t leaf_fill;      /* bytes of a leaf's capacity filled before starting the next */
    buf_t last;              /* the previous key (order check) */
    bool any;
    uint64_t rows, pages;
    int (*between)(void *ctx); /* before each page write, no latch held (the engine's log-space check) */
    void *ctx;
} btree_bulk_t;

void btree_bulk_init(btree_bulk_t *b, btree_t *t, uint32_t fill_pct, int (*between)(void *ctx), void *ctx);
/* ENGINE_EINVAL: key not above the previous one, or too long; ENGINE_EFULL / ENGINE_ENOSPC from allocation. */
int btree_bulk_add(btree_bulk_t *b, const void *key, size_t klen, const void *val, size_t vlen);
/* Writes what is left and publishes the levels under the root. */
int btree_bulk_finish(btree_bulk_t *b);
/* Frees the builder's memory (after finish, or instead of it: the written pages are left to the tree's drop). */
void btree_bulk_free(btree_bulk_t *b);

/* One page's structure from its bytes alone (node or overflow page); 0 or STRATA_ECORRUPT, nothing reported. */
int btree_page_check(const uint8_t *p, uint32_t ps);
/* Structural check for strata-check and tests: ordering within and across pages, separator bounds, levels, leaf
 * links, page ownership.  Counts pages (tree + overflow) and rows.  0 or STRATA_ECORRUPT (reported). */
int btree_verify(btree_t *t, uint64_t *pages, uint64_t *rows);
/* Every live cell the tree's readable pages hold, in key order, going on past damage: bad() gets each page that
 * cannot be read with the key interval [lo, hi) it held (NULL, 0: open end; page PAGE_ID_NONE, hi NULL: the one
 * key lo, whose overflow value is damaged).  For innodb_force_recovery; no MVCC, delete-marked cells skipped. */
typedef void (*btree_salvage_cb)(void *ctx, const uint8_t *key, uint32_t klen, const uint8_t *val, size_t vlen);
typedef void (*btree_salvage_bad_cb)(void *ctx, page_id_t page, const uint8_t *lo, uint32_t lol, const uint8_t *hi,
                                     uint32_t hil);
void btree_salvage(btree_t *t, btree_salvage_cb entry, btree_salvage_bad_cb bad, void *ctx);
/* Calls cb for every page the tree uses (nodes and overflow pages), for extent accounting in strata-check. */
int btree_walk(btree_t *t, void (*cb)(void *ctx, page_id_t id, page_type_t type), void *ctx);
/* Height of the tree (1 = root is a leaf). */
int btree_height(btree_t *t);

#endif
