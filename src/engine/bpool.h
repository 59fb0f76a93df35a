/*
 * engine/bpool: the buffer pool.  A fixed set of page frames caches pages of every data file; callers fix a page
 * (pin + latch), read or change it, and unfix it.  Eviction is a midpoint-insertion LRU (InnoDB's scheme): a page
 * read in joins the head of the "old" sublist and moves to the "young" sublist only when it is touched again at
 * least old_time_us after it came in, so one large scan cycles through the old sublist and never pushes the
 * working set out.  Dirty frames are written back by the evictor or by bpool_flush_all(); before a page goes to
 * disk the redo log is made durable up to the page's LSN (the write-ahead rule), through the io callbacks.
 *
 * The pool is cut into partitions (InnoDB's buffer pool instances): a page belongs to the partition its id
 * hashes to, and each partition has its own mutex, hash table, LRU sublists and free list, so two threads fixing
 * different pages rarely meet on one mutex and a victim search walks one partition's lists only.  A partition whose
 * every frame is pinned takes a free or clean unpinned frame from another one (the frame moves over), so the pool
 * runs out only when every frame of every partition is pinned, as a single list would.
 *
 * Frame states:  FREE --claim--> LOADING --read ok--> READY --evict--> FREE
 *                                        \--read bad--> ERROR --last unfix--> FREE
 */
#ifndef STRATA_ENGINE_BPOOL_H
#define STRATA_ENGINE_BPOOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/page.h"

typedef enum { LATCH_NONE = 0, LATCH_S = 1, LATCH_X = 2 } latch_mode_t;
typedef enum { FRAME_FREE = 0, FRAME_LOADING, FRAME_READY, FRAME_ERROR } frame_state_t;

typedef struct bframe {
    page_id_t id;
    uint8_t *data;
    pthread_rwlock_t latch;   /* the page latch: S to read, X to change */
    uint32_t part;            /* owning partition: changes only while the frame is FREE and unhashed (atomic) */
    /* Below: protected by the owning partition's mutex. */
    frame_state_t state;
    int pin;
    bool dirty;
    bool old;        /* in the old sublist (else young, or free) */
    bool was_bad;    /* recovery only: the on-disk copy failed its checksum; contents zeroed */
    uint64_t in_us;  /* when it entered the pool (for the old->young rule) */
    struct bframe *prev, *next; /* LRU sublist or free list */
    struct bframe *hnext;       /* hash chain */
} bframe_t;

typedef struct {
    /* Reads page `id` into buf; a page beyond the end of its file reads as zeros.  0 or negative error. */
    int (*read)(void *ctx, page_id_t id, uint8_t *buf);
    /* Writes a sealed page.  0 or negative error. */
    int (*write)(void *ctx, page_id_t id, const uint8_t *buf);
    /* Makes the redo log durable up to lsn (may be NULL in tests without a log). */
    void (*wal)(void *wal_ctx, uint64_t lsn);
    void *ctx;     /* for read and write */
    void *wal_ctx; /* for wal */
} bpool_io_t;

typedef struct {
    uint64_t hits, misses, reads, writes, evictions, young_moves;
    uint64_t steals; /* frames a full partition took from another one */
    uint32_t frames, free_frames, dirty, young, old;
    uint32_t partitions;
} bpool_stats_t;

typedef struct bpool bpool_t;

bpool_t *bpool_create(uint32_t nframes, uint32_t page_size, const bpool_io_t *io);
void bpool_destroy(bpool_t *bp);
uint32_t bpool_page_size(const bpool_t *bp);
/* Minimum time between a page's arrival and the touch that makes it young (InnoDB's innodb_old_blocks_time). */
void bpool_set_old_time(bpool_t *bp, uint64_t us);
/* Recovery mode: a page that fails verification is handed out zeroed with was_bad set instead of failing. */
void bpool_set_recovery(bpool_t *bp, bool on);
/* Read-only engine: no frame is ever written; a dirty frame is never a victim (a full pool is STRATA_ENOMEM). */
void bpool_set_read_only(bpool_t *bp, bool on);

/* Pins page id and latches it in `mode`, reading it if needed.  0, STRATA_ECORRUPT or an io error. */
int bpool_fix(bpool_t *bp, page_id_t id, latch_mode_t mode, bframe_t **out);
/* Pins and X-latches a page that was just allocated: no read, the contents are zeroed. */
int bpool_fix_new(bpool_t *bp, page_id_t id, bframe_t **out);
void bpool_unfix(bpool_t *bp, bframe_t *f, latch_mode_t mode);
/* The caller holds the X latch and has changed the page. */
void bpool_set_dirty(bpool_t *bp, bframe_t *f);

/* Writes every dirty frame.  0 or the first write error. */
int bpool_flush_all(bpool_t *bp);
/* Forgets every page of a space (dropped tablespace); no frame of it may be fixed. */
void bpool_discard_space(bpool_t *bp, uint32_t space);
bool bpool_contains(bpool_t *bp, page_id_t id);
void bpool_stats(bpool_t *bp, bpool_stats_t *st);

#endif
