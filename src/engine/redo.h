/*
 * engine/redo: the write-ahead redo log.  One preallocated file holds two checkpoint slots and a circular data
 * area addressed by LSN (a byte position that only grows).  Mini-transactions append one checksummed group each;
 * commits make the log durable up to their group's end with redo_flush(), which implements group commit: one
 * thread (the leader) writes and fdatasyncs everything buffered so far, then wakes exactly the waiters whose LSN
 * the sync covered, each through its own condition variable (DESIGN.md decision 2), and hands leadership to the
 * first waiter still not covered.  The file format is drawn at the top of redo.c.
 */
#ifndef STRATA_ENGINE_REDO_H
#define STRATA_ENGINE_REDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REDO_GROUP_HDR 24
#define REDO_USER_WORDS 4

typedef struct redo redo_t;

typedef struct {
    uint64_t ckpt_lsn;                /* page redo starts here */
    uint64_t tail_lsn;                /* <= ckpt_lsn: the log is kept (and scanned) from here, for the undo
                                         records of transactions that were active at the checkpoint */
    uint32_t run_id;                  /* groups of other runs are ignored */
    uint64_t user[REDO_USER_WORDS];   /* engine state saved with the checkpoint (next trx id, ...) */
} redo_ckpt_t;

typedef struct {
    uint64_t groups, bytes, flushes, syncs, waits, checkpoints;
} redo_stats_t;

/* Opens path, creating a file of `capacity` data bytes when missing (fully written unless sparse).  The log is
 * not writable until redo_start().  dsync: the file is opened with O_DSYNC (innodb_flush_method=O_DSYNC), every
 * write is durable as it returns and no fdatasync is issued for a commit. */
int redo_open(const char *path, uint64_t capacity, uint32_t page_size, bool sparse, bool dsync, redo_t **out);
void redo_close(redo_t *r);
/* The newest valid checkpoint. */
const redo_ckpt_t *redo_last_ckpt(const redo_t *r);
uint64_t redo_capacity(const redo_t *r);

/* Recovery: calls cb for every valid group from the checkpoint's tail on, in order; stops at the first torn, stale or
 * foreign group.  *end_lsn receives the LSN just past the last valid group. */
typedef int (*redo_scan_cb)(void *ctx, uint64_t start_lsn, uint64_t end_lsn, const uint8_t *body, size_t len);
int redo_scan(redo_t *r, redo_scan_cb cb, void *ctx, uint64_t *end_lsn);

/* Makes the log writable from end_lsn on with a new run id, and writes a checkpoint at end_lsn (tail end_lsn too).
 * The caller has flushed every page changed by the groups before end_lsn. */
int redo_start(redo_t *r, uint64_t end_lsn, const uint64_t user[REDO_USER_WORDS]);
/* The same without the checkpoint: the old run's slot (and its tail, which the new run must not overwrite) stays
 * the one recovery reads until the first redo_ckpt_end of the new run.  A crash before that recovers exactly as
 * the last time: the new run's groups, at the old end, are of another run and end the scan.  For a recovery
 * that must carry state forward (interrupted transactions' undo) before the old log may be given up. */
int redo_start_deferred(redo_t *r, uint64_t end_lsn, const uint64_t user[REDO_USER_WORDS]);

/* Appends one group; returns its end LSN, which the caller stamps on the pages it changed.  When fpi_horizon is
 * not the current horizon (a checkpoint began), nothing is appended and 0 is returned: the caller rebuilds. */
uint64_t redo_append(redo_t *r, const uint8_t *body, size_t len, uint64_t fpi_horizon);
uint64_t redo_fpi_horizon(redo_t *r);
uint64_t redo_current_lsn(redo_t *r);
uint64_t redo_flushed_lsn(redo_t *r);
/* Bytes of log between the last checkpoint's tail and the end: what a new checkpoint could not free. */
uint64_t redo_used(redo_t *r);

/* Group commit: returns once the log up to lsn is written (sync=false) or durable (sync=true). */
int redo_flush(redo_t *r, uint64_t lsn, bool sync);

/* Checkpoint protocol: begin() returns the checkpoint LSN and moves the full-page-image horizon to it; the caller
 * then flushes every dirty page and syncs the data files; end() writes the checkpoint slot. */
uint64_t redo_ckpt_begin(redo_t *r);
int redo_ckpt_end(redo_t *r, uint64_t ckpt_lsn, uint64_t tail_lsn, const uint64_t user[REDO_USER_WORDS]);

void redo_stats(redo_t *r, redo_stats_t *st);

#endif
