/*
 * engine/page: the fixed-size page every engine file is cut into, its common header and its checksum.
 *
 * Every page (16 KiB by default; 4..32 KiB chosen when the data directory is created) starts with this header.
 * Integers are little-endian.
 *
 *   offset size  field
 *   0      4     checksum   CRC32C of bytes [4, page_size); an all-zero page (never written) is valid and empty
 *   4      2     magic      0x5453 ("ST")
 *   6      1     version    PAGE_VERSION (1)
 *   7      1     type       page_type_t below
 *   8      8     page id    space(16) | file(16) | page-in-file(32): catches misdirected reads and writes
 *   16     8     page LSN   redo position of the last change applied to this page
 *   24     8     owner      tree id of the segment that owns the page (0 for file-level pages)
 *   32     ...   body, laid out by the page type's owner: space.c (FILE_HDR, XDES), btree.c (BTREE, OVERFLOW)
 *
 * The checksum is computed only when a page is written out (bpool.c) and verified when it is read in.
 */
#ifndef STRATA_ENGINE_PAGE_H
#define STRATA_ENGINE_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PAGE_MAGIC 0x5453u
#define PAGE_VERSION 1
#define PAGE_HDR_SIZE 32
#define PAGE_SIZE_DEFAULT 16384u
#define PAGE_SIZE_MIN 4096u
#define PAGE_SIZE_MAX 32768u

#define PAGE_OFF_CHECKSUM 0
#define PAGE_OFF_MAGIC 4
#define PAGE_OFF_VERSION 6
#define PAGE_OFF_TYPE 7
#define PAGE_OFF_ID 8
#define PAGE_OFF_LSN 16
#define PAGE_OFF_OWNER 24

typedef enum {
    PAGE_TYPE_FREE = 0,     /* all-zero or never formatted */
    PAGE_TYPE_FILE_HDR = 1, /* page 0 of each data file */
    PAGE_TYPE_XDES = 2,     /* extent descriptors of one group of extents */
    PAGE_TYPE_BTREE = 3,    /* B+tree node (leaf or internal) */
    PAGE_TYPE_OVERFLOW = 4, /* part of a value too large to stay in its leaf */
    PAGE_TYPE_MAX_
} page_type_t;

/* A page id names a page in a tablespace: which space, which data file of it, which page of that file. */
typedef uint64_t page_id_t;
#define PAGE_ID_NONE 0xffffffffffffffffull
static inline page_id_t page_id_make(uint32_t space, uint32_t file, uint32_t pgno)
{
    return ((uint64_t)(space & 0xffff) << 48) | ((uint64_t)(file & 0xffff) << 32) | pgno;
}
static inline uint32_t page_id_space(page_id_t id) { return (uint32_t)(id >> 48); }
static inline uint32_t page_id_file(page_id_t id) { return (uint32_t)(id >> 32) & 0xffff; }
static inline uint32_t page_id_pgno(page_id_t id) { return (uint32_t)id; }

/* Little-endian accessors on unaligned bytes. */
static inline uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static inline page_type_t page_type(const uint8_t *pg) { return (page_type_t)pg[PAGE_OFF_TYPE]; }
static inline uint64_t page_lsn(const uint8_t *pg) { return rd64(pg + PAGE_OFF_LSN); }
static inline void page_set_lsn(uint8_t *pg, uint64_t lsn) { wr64(pg + PAGE_OFF_LSN, lsn); }
static inline uint64_t page_owner(const uint8_t *pg) { return rd64(pg + PAGE_OFF_OWNER); }
static inline page_id_t page_get_id(const uint8_t *pg) { return rd64(pg + PAGE_OFF_ID); }

/* CRC32C (Castagnoli), hardware-accelerated when the CPU has SSE4.2. */
uint32_t crc32c(uint32_t crc, const void *data, size_t n);

/* Clears the page and writes a fresh header (LSN 0; the mini-transaction stamps the real one). */
void page_init(uint8_t *pg, uint32_t page_size, page_id_t id, page_type_t type, uint64_t owner);
/* Stores the checksum; called just before the page goes to disk. */
void page_seal(uint8_t *pg, uint32_t page_size);
/* True for an all-zero page: allocated on disk but never written. */
bool page_is_zero(const uint8_t *pg, uint32_t page_size);
/* 0 if the page is all-zero or carries a good checksum, magic, version and the expected id;
 * STRATA_ECORRUPT (after a CORRUPT report unless quiet) otherwise. */
int page_verify(const uint8_t *pg, uint32_t page_size, page_id_t expect, bool quiet);

#endif
