/* binlog internals shared by the files of src/binlog only (no other box includes this). */
#ifndef STRATA_BINLOG_INT_H
#define STRATA_BINLOG_INT_H

#include <pthread.h>

#include "binlog/binlog.h"
#include "util/util.h"

/* Event header flags (MySQL LOG_EVENT_*_F). */
enum {
    BINLOG_EVF_IN_USE = 0x0001,       /* FORMAT_DESCRIPTION of a file not closed cleanly */
    BINLOG_EVF_SUPPRESS_USE = 0x0008, /* QUERY: do not print "use db" */
    BINLOG_EVF_ARTIFICIAL = 0x0020,   /* made up by the sender (fake ROTATE, HEARTBEAT), not in any file */
    BINLOG_ROWS_STMT_END = 0x0001,    /* rows event flags: last rows event of the statement */
    BINLOG_CHECKSUM_CRC32 = 1,
    BINLOG_FDE_FLAGS_OFFSET = 4 + 17, /* file offset of the FDE's header flags (in-use bit) */
};

/* ---- event.c: encoders.  Each appends one complete event (header, body, CRC slot) to b; the header's
 * next_pos and CRC are filled by binlog_event_seal() once the event's file position is known. ---- */
void binlog_ev_fde(buf_t *b, uint32_t when, uint32_t server_id, const char *version, uint32_t created,
                   uint16_t flags);
void binlog_ev_gtid_list(buf_t *b, uint32_t when, uint32_t server_id, const binlog_gtid_set_t *s);
void binlog_ev_checkpoint(buf_t *b, uint32_t when, uint32_t server_id, const char *name);
void binlog_ev_gtid(buf_t *b, uint32_t when, uint32_t server_id, binlog_gtid_t g, uint8_t flags2,
                    uint64_t commit_id);
void binlog_ev_query(buf_t *b, uint32_t when, uint32_t server_id, uint32_t thread_id, const char *db,
                     const char *q, size_t qlen, const binlog_query_ctx_t *ctx);
void binlog_query_ctx_default(binlog_query_ctx_t *c);
void binlog_ev_annotate(buf_t *b, uint32_t when, uint32_t server_id, const char *q, size_t qlen);
void binlog_ev_table_map(buf_t *b, uint32_t when, uint32_t server_id, const binlog_table_t *t);
void binlog_ev_xid(buf_t *b, uint32_t when, uint32_t server_id, uint64_t xid);
void binlog_ev_rotate(buf_t *b, uint32_t when, uint32_t server_id, const char *next, uint64_t pos);
void binlog_ev_stop(buf_t *b, uint32_t when, uint32_t server_id);
/* Starts an event: writes the header with size/next_pos unset; returns its offset in b. */
size_t binlog_ev_begin(buf_t *b, int type, uint32_t when, uint32_t server_id, uint16_t flags);
/* Ends the event started at `at`: appends the CRC slot and sets the size field. */
void binlog_ev_end(buf_t *b, size_t at);
/* Sets timestamp (when != 0), server id (sid != 0) and next_pos = pos + size, then the CRC. */
void binlog_event_seal(uint8_t *ev, uint64_t pos, uint32_t when, uint32_t sid);
/* Seals every event of a chain of events laid out from file position pos; returns the end position. */
uint64_t binlog_events_seal(uint8_t *p, size_t len, uint64_t pos, uint32_t when, uint32_t sid);
uint32_t binlog_crc32(const uint8_t *p, size_t n);

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }
static inline uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static inline uint64_t rd48(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd16(p + 4) << 32; }
static inline uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static inline void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void wr32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline void wr64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* ---- zfile.c: the seekable compressed layout ---- */
/* Compresses plain file `src` into `dst` (written and fsynced; caller renames).  0 or negative. */
int binlog_zfile_compress(const char *src, const char *dst, uint64_t *out_size, uint64_t *opened);
typedef struct binlog_zfile binlog_zfile_t;
int binlog_zfile_open(int fd, binlog_zfile_t **out); /* takes fd */
/* Reads up to n plain bytes at plain offset off; returns bytes read (0 at end) or negative. */
ssize_t binlog_zfile_pread(binlog_zfile_t *z, void *dst, size_t n, uint64_t off);
uint64_t binlog_zfile_size(binlog_zfile_t *z);
void binlog_zfile_close(binlog_zfile_t *z);
bool binlog_zfile_is(const uint8_t *head, size_t n); /* starts with a zstd frame magic */

uint64_t binlog_reader_tell(binlog_reader_t *r); /* position of the next event to read */

/* Shared counter of binlog file opens (reader, writer, compressor). */
void binlog_count_open(binlog_t *bl);
/* reader.c: the reader reports an unreadable file to the binlog (once). */
void binlog_mark_unreadable(binlog_t *bl, const char *name, const char *why);
/* The path of a file by logical name and whether it is compressed (index only); 0 or STRATA_ENOTFOUND. */
int binlog_file_path(binlog_t *bl, const char *name, char *path, size_t cap, bool *compressed);

#endif
