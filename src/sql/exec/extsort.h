/*
 * External sort: records of (key, payload) bytes sorted by memcmp of their keys, stable (records with equal
 * keys come out in the order they were added), in a bounded amount of memory.  This is what ORDER BY without
 * a usable index, GROUP BY and DISTINCT fall back to when their rows do not fit the session's budget
 * (sort_buffer_size, tmp_table_size).
 *
 *   extsort_t s;
 *   extsort_init(&s, budget_bytes, tmpdir);
 *   for each record: extsort_add(&s, key, klen, payload, plen);      // may write a sorted run to disk
 *   extsort_finish(&s);                                              // sorts / merges down to one stream
 *   while ((rc = extsort_next(&s, &key, &klen, &pay, &plen)) == 1) ...   // pointers valid until the next call
 *   extsort_free(&s);
 *
 * Keys are memcomparable (the executor's key_append_value: NULL first, DESC = bytes inverted), so this module knows
 * nothing of SQL values.  Descending order is the caller's business (inverted key bytes) and stays stable.
 *
 * How it bounds memory: records are kept in memory until they (plus a pointer per record) exceed the budget;
 * then they are sorted and written as one run to a temporary file in tmpdir that is unlinked at once (it
 * disappears with the process, whatever happens).  extsort_finish merges runs the way MariaDB's filesort does:
 * while more than EXTSORT_MERGE_MAX runs remain, groups of EXTSORT_FANIN runs are merged into longer runs in a
 * second file; the last <= EXTSORT_MERGE_MAX runs are merged on the fly as extsort_next reads.  Each merge
 * counts one in merge_passes (Sort_merge_passes).  Reading a run goes through a buffer of budget / runs bytes
 * (at least EXTSORT_MIN_READ), so the merge stays within about the budget too.
 *
 * Run file record format (host byte order: the file never outlives the process):
 *
 *   offset  size   field
 *   0       4      klen
 *   4       4      plen
 *   8       klen   key bytes
 *   8+klen  plen   payload bytes
 *
 * A run is a byte range [off, off + len) of one file; runs of a file lie back to back.
 *
 * States:  ADDING --finish--> READING --next returns 0--> DONE;  any --error--> FAILED (every call returns it).
 */
#ifndef STRATA_SQL_EXTSORT_H
#define STRATA_SQL_EXTSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXTSORT_FANIN 7          /* runs merged together by an intermediate pass (MariaDB's MERGEBUFF) */
#define EXTSORT_MERGE_MAX 15     /* at most this many runs go into the final merge (MERGEBUFF2) */
#define EXTSORT_MIN_READ 4096    /* smallest read buffer per run during a merge */
#define EXTSORT_MIN_BUDGET 8192

typedef enum extsort_state {
    EXTSORT_ADDING = 0,
    EXTSORT_READING,
    EXTSORT_DONE,
    EXTSORT_FAILED,
} extsort_state_t;

typedef struct extsort_run {
    uint64_t off, len;
} extsort_run_t;

typedef struct extsort_rd extsort_rd_t;   /* a run being read (extsort.c) */
typedef struct extsort_chunk extsort_chunk_t;

typedef struct extsort {
    extsort_state_t state;
    int err;                  /* FAILED: the first error (negative errno or STRATA_E*) */
    size_t budget;
    char *tmpdir;
    /* records in memory: their bytes in chunks, their addresses in recs (added order) */
    extsort_chunk_t *chunks;
    const uint8_t **recs;
    uint64_t nrec, caprec;
    size_t mem;               /* record bytes + per-record overhead held now */
    uint64_t mem_pos;         /* READING in memory: next record */
    /* runs on disk */
    int fd;                   /* file holding the current runs (-1: none yet) */
    extsort_run_t *runs;
    uint32_t nruns, capruns;
    uint64_t file_len;
    /* the final merge */
    extsort_rd_t *rd;
    uint32_t nrd;
    uint32_t *heap;           /* indexes into rd, ordered by (key, run) */
    uint32_t nheap;
    int cur;                  /* the reader whose record extsort_next handed out last, -1 none */
    /* counters for the caller's status variables */
    uint64_t rows;            /* records added */
    uint64_t merge_passes;
    uint64_t files_created;
    uint64_t runs_written;
} extsort_t;

void extsort_init(extsort_t *s, size_t budget, const char *tmpdir);
/* Copies the record.  0, or a negative error (the temporary file could not be created or written). */
int extsort_add(extsort_t *s, const void *key, size_t klen, const void *payload, size_t plen);
/* No more records: sorts what is in memory, or writes it as the last run and merges down to the final merge. */
int extsort_finish(extsort_t *s);
/* 1 with the next record (valid until the next call), 0 at the end, < 0 on error. */
int extsort_next(extsort_t *s, const uint8_t **key, size_t *klen, const uint8_t **payload, size_t *plen);
/* Did the sort go to disk? */
static inline bool extsort_spilled(const extsort_t *s) { return s->fd >= 0; }
void extsort_free(extsort_t *s);

#endif
