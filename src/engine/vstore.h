/*
 * engine/vstore: the in-memory version store behind MVCC read views.  Every change to a key by a transaction
 * pushes a node (replacing trx, the version it replaced: state, value, writer) on that key's chain, newest
 * first.  A reader whose view cannot see the writer of the current cell walks the chain to the newest version it
 * can see.  Views never outlive the process, so nothing here is persistent: after a restart every committed
 * version is visible to everyone.
 *
 * Node life:  pushed by the writer's change --commit--> stamped with a commit number, queued in commit order
 *             --no open view older than the commit--> purged (and a delete mark it made is removed physically)
 *             --rollback--> queued the same way once the cells are restored (a reader may hold a copy of a
 *             rolled-back cell and still need the way back)
 * Chains are ordered by commit because row locks serialise the writers of one key.
 */
#ifndef STRATA_ENGINE_VSTORE_H
#define STRATA_ENGINE_VSTORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/btree.h"

typedef struct vs_node vs_node_t;
typedef struct vstore vstore_t;

/* A read view: what a consistent read may see. */
typedef struct {
    uint64_t creator;    /* its own changes are visible */
    uint64_t low_limit;  /* trx ids >= this started after the view */
    uint64_t *active;    /* ids active when the view was made (sorted) */
    size_t nactive;
    uint64_t view_no;    /* commit number when made (purge keeps what it may need) */
} read_view_t;

bool read_view_sees(const read_view_t *v, uint64_t trx);

/* A per-transaction list of its nodes, for commit stamping and rollback. */
typedef struct {
    vs_node_t *head;
    size_t n;
} vs_trx_list_t;

vstore_t *vstore_create(void);
void vstore_destroy(vstore_t *vs);
/* Records that trx replaced (before, old value, old writer) of (tree, key); deleted: the change was a delete mark. */
void vstore_push(vstore_t *vs, vs_trx_list_t *l, uint64_t trx, uint64_t tree, const void *key, size_t klen,
                 bt_before_t before, const void *old, size_t olen, uint64_t old_trx, bool deleted);
void vstore_commit(vstore_t *vs, vs_trx_list_t *l, uint64_t commit_no);
void vstore_rollback(vstore_t *vs, vs_trx_list_t *l);

/* Resolves what view v sees of (tree, key) whose current cell is (state, value, writer).  Returns true with the
 * value in out when a row is visible, false when the view sees no row. */
bool vstore_resolve(vstore_t *vs, const read_view_t *v, uint64_t tree, const void *key, size_t klen,
                    bt_before_t state, const buf_t *cur, uint64_t writer, buf_t *out);

/* Purge: removes nodes committed at or before min_view_no (every open view was made after them) and returns the
 * delete marks they made, for the caller to remove physically: *out is an array of n items to free with
 * vstore_purge_free. */
typedef struct {
    uint64_t tree, trx;
    size_t klen;
    uint8_t *key;
} vs_purge_item_t;
size_t vstore_purge(vstore_t *vs, uint64_t min_view_no, vs_purge_item_t **out);
void vstore_purge_free(vs_purge_item_t *items, size_t n);
size_t vstore_size(vstore_t *vs);

#endif
