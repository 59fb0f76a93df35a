/*
 * engine/space: tablespaces, data files, extents and segments (DESIGN.md decision 6).
 *
 * A tablespace is a list of data files; each file is cut into extents of extent_pages pages.  An extent is free,
 * owned by exactly one segment (one B+tree: segment id == tree id) or holds file metadata.  A segment takes a whole
 * extent when it has no free page left in its own extents, and an extent goes back to the tablespace the moment
 * its last page is freed.  New extents are taken round-robin over the files of the space.  Descriptors live on
 * XDES pages inside the files and change only through mini-transactions (so they are redo-logged); the counters
 * that information_schema.FILES shows are an in-memory mirror kept under the space mutex.
 *
 * Table-full protocol: before an operation that may allocate, the B+tree reserves the number of pages it could
 * need (seg_reserve); a reservation either succeeds, so every allocation inside the mtr succeeds, or fails with
 * ENGINE_EFULL before anything is changed.  Autoextend files grow during reservation.
 *
 * Formats are drawn at the top of space.c; the control file that lists spaces and files is drawn there too.
 */
#ifndef STRATA_ENGINE_SPACE_H
#define STRATA_ENGINE_SPACE_H

#include <pthread.h>

#include "engine/bpool.h"
#include "engine/mtr.h"
#include "engine/page.h"

#define SPACE_SYSTEM 0
#define SPACE_SYSTEM_NAME "strata_system"
#define SPACE_DIR_ROOT_PGNO 2 /* the tree directory's root: page 2 of file 0 of the system space */
#define XDES_OWNER_META 0xffffffffffffffffull
#define SPACE_EXTENT_PAGES_MIN 4
#define SPACE_EXTENT_PAGES_MAX 256

typedef struct fsys fsys_t;

/* One row of information_schema.FILES. */
typedef struct {
    char space_name[64];
    char path[512];
    uint32_t space_id, file_no;
    uint64_t extent_size;   /* bytes */
    uint64_t total_extents, free_extents;
    uint64_t initial_size, maximum_size; /* bytes; maximum 0 = unlimited (autoextend) */
    uint64_t size;          /* current bytes */
    bool autoextend;
    const char *status;     /* "NORMAL" */
} space_file_info_t;

/* Opens (or, with create, initialises) the control file and every data file of datadir.  Page I/O goes through
 * fsys_page_read/write, which the buffer pool uses as its io callbacks.  direct: data files are opened with
 * O_DIRECT (innodb_flush_method=O_DIRECT), so their pages are cached in the buffer pool only; a file system that
 * refuses O_DIRECT gets them through the page cache, said once in the error log. */
int fsys_open(const char *datadir, uint32_t page_size, bool create, uint64_t sys_initial, uint32_t sys_extent_pages,
              bool direct, fsys_t **out);
void fsys_close(fsys_t *fs);
void fsys_attach(fsys_t *fs, bpool_t *bp, redo_t *redo);
uint32_t fsys_page_size(const fsys_t *fs);
int fsys_page_read(void *fs, page_id_t id, uint8_t *buf);
int fsys_page_write(void *fs, page_id_t id, const uint8_t *buf);
int fsys_sync_all(fsys_t *fs);
/* Builds the in-memory extent mirror and segment lists from the XDES pages (after recovery). */
int fsys_load(fsys_t *fs);
/* True when fsys_open created a brand-new data directory. */
bool fsys_created(const fsys_t *fs);
void fsys_set_read_only(fsys_t *fs, bool on);
/* The tree directory's root page, kept in the system space's file header (PAGE_ID_NONE before it exists). */
int fsys_dir_root(fsys_t *fs, page_id_t *root);
int fsys_set_dir_root(fsys_t *fs, mtr_t *m, page_id_t root);

int fsys_space_create(fsys_t *fs, const char *name, const char *path, uint64_t initial, uint64_t extent_bytes,
                      uint64_t max_size, bool autoextend, uint32_t *space_id);
int fsys_space_add_file(fsys_t *fs, uint32_t space_id, const char *path, uint64_t initial);
int fsys_space_drop(fsys_t *fs, uint32_t space_id);
int fsys_space_find(fsys_t *fs, const char *name, uint32_t *space_id);
/* Snapshot of every file's counters; caller frees *out with mem_free. */
int fsys_files(fsys_t *fs, space_file_info_t **out, size_t *n);

/* Segments. */
int seg_create(fsys_t *fs, mtr_t *m, uint32_t space_id, uint64_t seg_id, page_id_t *first);
/* m may be NULL; when m already holds the space mutex it is not taken again. */
int seg_reserve(fsys_t *fs, mtr_t *m, uint64_t seg_id, uint32_t pages);
void seg_unreserve(fsys_t *fs, mtr_t *m, uint64_t seg_id, uint32_t pages);
int seg_alloc_page(fsys_t *fs, mtr_t *m, uint64_t seg_id, page_id_t *out);
int seg_free_page(fsys_t *fs, mtr_t *m, uint64_t seg_id, page_id_t id);
/* Allocates a page of the segment in data file file_no of its space (rebalance): in an extent of the segment
 * there, else in a free extent of that file that no reservation was promised.  Does not consume the segment's
 * reservation.  ENGINE_EFULL when the file has no room. */
int seg_alloc_page_in_file(fsys_t *fs, mtr_t *m, uint64_t seg_id, uint32_t file_no, page_id_t *out);
/* Returns every extent of the segment to its space and forgets the segment. */
int seg_drop(fsys_t *fs, mtr_t *m, uint64_t seg_id);
/* Pages currently owned (allocated) by the segment and extents it holds; -1 when unknown. */
int64_t seg_used_pages(fsys_t *fs, uint64_t seg_id, uint32_t *extents);
/* The space a segment lives in, or -1. */
int64_t seg_space(fsys_t *fs, uint64_t seg_id);

/* For strata-check: descriptor of extent `ext` of (space, file): owner and used-page bitmap. */
int fsys_xdes_read(fsys_t *fs, uint32_t space_id, uint32_t file_no, uint32_t ext, uint64_t *owner,
                   uint16_t *used, uint8_t bitmap[32]);
uint32_t fsys_extent_pages(fsys_t *fs, uint32_t space_id);
uint32_t fsys_file_extents(fsys_t *fs, uint32_t space_id, uint32_t file_no);
/* Lists space ids and file counts, for walking every page. */
int fsys_space_ids(fsys_t *fs, uint32_t *ids, uint32_t max, uint32_t *n);
uint32_t fsys_space_nfiles(fsys_t *fs, uint32_t space_id);

/* Rebalance: one extent to move from an over-loaded data file to the most under-loaded one of the same space.
 * Only segments with id >= min_seg, never an extent listed in skip.  *pending: extents above their files' fair
 * share over every space (the work left).  0 with *out filled, or STRATA_ENOTFOUND when nothing should move. */
typedef struct {
    uint32_t space_id, src_file, dst_file, ext;
    uint64_t seg_id;
    uint16_t used;
} fsys_move_t;
int fsys_rebalance_pick(fsys_t *fs, uint64_t min_seg, const fsys_move_t *skip, size_t nskip, fsys_move_t *out,
                        uint64_t *pending);

#endif
