/*
 * engine/mtr: mini-transactions, the unit of atomic page change.  An mtr fixes pages (pin + latch) through the
 * buffer pool, declares the ones it changes with mtr_modify() (which keeps a before-image), and at commit turns the
 * changes into one redo group: a full page image for a page changed for the first time since the last checkpoint
 * (this is the torn-page protection: recovery rewrites such a page whole) and byte-range diffs otherwise.  Pages
 * are stamped with the group's end LSN and released only after the group is in the log buffer, so a page's LSN
 * order equals its redo order.  With no redo log (unit tests of lower layers) commit only marks pages dirty.
 *
 * Redo records inside a group body (little-endian):
 *   PAGE_IMAGE  u8 type=1, u64 page id, page_size bytes (LSN field as stored; recovery stamps the group end)
 *   PAGE_DIFF   u8 type=2, u64 page id, u16 n, then n x (u16 offset, u16 length, bytes)
 *   COMMIT      u8 type=3, u64 trx id                    (a transaction's commit point)
 *   NOTE        u8 type=4, u16 length, bytes             (free-form: engine events such as tree create/drop)
 *   UNDO        u8 type=5, u32 length, bytes             (logical undo of one row change, engine.c draws it)
 *   ROLLBACK    u8 type=6, u64 trx id                    (a transaction's rollback is complete)
 *   PREPARE     u8 type=7, u64 trx id, u16 length, bytes (two-phase commit: prepared, with the coordinator's
 *                                                         xid; recovery keeps such a trx for the coordinator)
 */
#ifndef STRATA_ENGINE_MTR_H
#define STRATA_ENGINE_MTR_H

#include "engine/bpool.h"
#include "engine/redo.h"
#include "util/util.h"

enum {
    REDO_REC_PAGE_IMAGE = 1,
    REDO_REC_PAGE_DIFF = 2,
    REDO_REC_COMMIT = 3,
    REDO_REC_NOTE = 4,
    REDO_REC_UNDO = 5,
    REDO_REC_ROLLBACK = 6,
    REDO_REC_PREPARE = 7,
};

typedef struct {
    bframe_t *f;
    latch_mode_t mode;
    uint8_t *before; /* before-image when modified, else NULL */
} mtr_slot_t;

typedef enum { MTR_ACTIVE = 1, MTR_COMMITTED = 2 } mtr_state_t;

typedef struct mtr {
    mtr_state_t state;
    bpool_t *bp;
    redo_t *redo;
    mtr_slot_t *slots;
    uint32_t n, cap;
    pthread_mutex_t *locks[4]; /* allocation mutexes held until commit (space.c) */
    uint32_t nlocks;
    buf_t extra;   /* logical records (COMMIT, NOTE) to log with the page changes */
    buf_t body;    /* scratch for the redo body */
    uint64_t end_lsn;
} mtr_t;

void mtr_start(mtr_t *m, bpool_t *bp, redo_t *redo);
/* Fixes a page; if this mtr already holds it, returns the same frame (an X holder may ask for S). */
int mtr_fix(mtr_t *m, page_id_t id, latch_mode_t mode, bframe_t **out);
/* Fixes a newly allocated page, X-latched and zeroed, and marks it modified. */
int mtr_fix_new(mtr_t *m, page_id_t id, bframe_t **out);
/* Declares that the caller (holding X) is about to change the page. */
void mtr_modify(mtr_t *m, bframe_t *f);
/* Releases an unmodified page early (latch coupling). */
void mtr_release(mtr_t *m, bframe_t *f);
bool mtr_holds(const mtr_t *m, page_id_t id);
/* Takes mu until commit (once per mtr; a second call for the same mutex is a no-op). */
void mtr_lock(mtr_t *m, pthread_mutex_t *mu);
bool mtr_holds_lock(const mtr_t *m, const pthread_mutex_t *mu);
void mtr_log_commit(mtr_t *m, uint64_t trx_id);
void mtr_log_note(mtr_t *m, const void *p, uint16_t len);
void mtr_log_undo(mtr_t *m, const void *p, uint32_t len);
void mtr_log_rollback(mtr_t *m, uint64_t trx_id);
void mtr_log_prepare(mtr_t *m, uint64_t trx_id, const void *xid, uint16_t len);
/* Applies page records of one group; logical records go to on_logical.  With pages=false only logical records
 * are reported (groups before the checkpoint, read for their undo). */
/* Logs, stamps and releases everything.  Returns the group's end LSN (0 when nothing was logged). */
uint64_t mtr_commit(mtr_t *m);
int mtr_apply_group(bpool_t *bp, bool pages, uint64_t end_lsn, const uint8_t *body, size_t len,
                    void (*on_logical)(void *ctx, const uint8_t *rec, size_t len), void *ctx);

#endif
