/*
 * engine/undo: logfile groups (MySQL Cluster's CREATE LOGFILE GROUP lg ADD UNDOFILE 'u.log' INITIAL_SIZE n
 * UNDO_BUFFER_SIZE n) and the undo spill that lives in their undo files.
 *
 * A transaction's undo records are logged in the redo log with the change they undo (engine.c) and kept in
 * memory for rollback.  The redo log is circular: a transaction that stays open pins the log's tail at its first
 * undo record.  Small transactions have their undo copied forward in the redo log by the checkpointer; a large
 * one (more than 1/16 of the log) has it *spilled* instead: appended to the undo file of the logfile group and
 * synced before the checkpoint that no longer keeps it in the redo log.  Each such checkpoint also appends a
 * manifest (the spilled transactions still open, with their prepared state) and records the manifest's place in
 * the checkpoint (redo user words), so recovery reads exactly the spill that belongs to the checkpoint it starts
 * from.  A transaction's undo is then bounded by the undo file, not by 1/8 of the redo log.  Once a spill is
 * durable its records leave the transaction's memory (engine.c spill_settle: each spill of one transaction is one
 * range of the file, a "batch"), and a rollback reads them back with undo_spill_load, so a transaction's memory
 * does not grow with its undo either.  The append point cannot go back to the start under such a transaction:
 * every checkpoint names it until it ends.
 *
 * Without a CREATE LOGFILE GROUP the engine creates the group DEFAULT_LG (MySQL's default logfile group name)
 * with the file undo_default.log the first time it spills; that file grows on demand up to undo_max_bytes.  A
 * file created by CREATE LOGFILE GROUP is allocated at INITIAL_SIZE and never grows (as in MySQL Cluster).
 *
 * Control file DATADIR/strata_undo.ctl (text, rewritten whole through a temporary file + rename):
 *   strata-undo 1
 *   lfg <id> <undo buffer bytes> <name>
 *   ufile <lfg id> <initial bytes> <autoextend 0|1> <path, relative to DATADIR unless absolute>
 *   crc <crc32c in hex of every byte before this line>
 *
 * Undo file layout (little-endian):
 *   0     4096  header: "STRATAUNDO\0\0" (12) | u32 version 1 | u32 lfg id | u32 reserved | u64 initial bytes |
 *               u64 created (µs) | u32 CRC32C of bytes [0, 40)
 *   4096  ..    spill records, appended; the append point goes back to 4096 once a checkpoint names no spill
 *   record:     u32 total length (header included) | u32 CRC32C of bytes [8, total) | u8 kind | payload
 *     kind 1 UNDO      u32 n | n bytes: one undo record exactly as in the redo log's UNDO record (engine.c)
 *     kind 2 MANIFEST  u32 count | count x (u64 trx id | u8 prepared | u16 xid length | xid)
 * A checkpoint with a spill records (manifest offset, offset just past it) in redo user words 1 and 2;
 * recovery takes the UNDO records before the manifest whose trx id the manifest lists.
 */
#ifndef STRATA_ENGINE_UNDO_H
#define STRATA_ENGINE_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define UNDO_FILE_HDR 4096u
#define UNDO_DEFAULT_LFG "DEFAULT_LG"
#define UNDO_DEFAULT_FILE "undo_default.log"
#define UNDO_SPILL_REC_OVERHEAD 13u     /* bytes a spilled undo record costs beyond its own */
#define UNDO_SPILL_SLACK (64u << 10)    /* room kept for manifests */

typedef struct undo_sys undo_sys_t;

typedef struct {
    char lfg_name[64];
    char file_name[512];
    uint32_t lfg_id;
    uint64_t undo_buffer;
    uint64_t initial, size;   /* bytes: as created, now */
    uint64_t used;            /* bytes of live spill (records of open transactions and their manifest) */
    bool autoextend;
} undo_file_info_t;

typedef struct {
    uint64_t trx_id;
    bool prepared;
    const void *xid;
    uint16_t xid_len;
} undo_manifest_ent_t;

/* Reads DATADIR/strata_undo.ctl when present and opens the undo files it names.  max_bytes bounds the default
 * group's autoextending file. */
int undo_sys_open(const char *datadir, uint64_t max_bytes, undo_sys_t **out);
void undo_sys_close(undo_sys_t *u);

/* CREATE LOGFILE GROUP: one group with one undo file (MySQL Cluster allows one group).  STRATA_EEXIST when a
 * group exists (the default one included once it was made); -EEXIST when the file exists.  A group named
 * DEFAULT_LG is made as the engine makes it: its file autoextends up to max_bytes. */
int undo_lfg_create(undo_sys_t *u, const char *name, const char *path, uint64_t initial, uint64_t undo_buffer);
/* DROP LOGFILE GROUP: ENGINE_ENOTEMPTY while its file holds a live spill; STRATA_ENOTFOUND when unknown. */
int undo_lfg_drop(undo_sys_t *u, const char *name);
/* One row per undo file; free *out with mem_free. */
int undo_files(undo_sys_t *u, undo_file_info_t **out, size_t *n);

/* ---- spill (the checkpointer is the only writer; recovery the only reader) ---- */
/* The most a transaction's undo may hold when it can spill (the file's room, or max_bytes). */
uint64_t undo_spill_capacity(undo_sys_t *u);
/* Makes sure the next checkpoint's spill of `bytes` (records and their overhead) has room already allocated in the
 * undo file (creating the default group's file if there is none), so that a checkpoint never needs disk space it
 * cannot get.  ENGINE_ENOSPC when the file system is full, ENGINE_ELOGFULL past the file's limit. */
int undo_spill_reserve(undo_sys_t *u, uint64_t bytes);
/* Starts a checkpoint's spill; creates the default group if there is none.  *restarted: the spill starts over
 * at the beginning of the file (the last checkpoint named none), so everything must be written again. */
int undo_spill_begin(undo_sys_t *u, bool *restarted);
int undo_spill_append(undo_sys_t *u, const uint8_t *rec, uint32_t len);
/* Where the next appended record goes (the checkpointer, between appends: one transaction's records are one
 * range of the file, [pos before, pos after)). */
uint64_t undo_spill_pos(undo_sys_t *u);
/* Reads back the UNDO records of a range a checkpoint appended and made durable (a spilled transaction's batch,
 * engine.c), checking each: the records go to *recs back to back, their starts to *offs (mem_free), *n of them.
 * STRATA_ECORRUPT when a record is damaged or is not an UNDO record. */
int undo_spill_load(undo_sys_t *u, uint64_t off, uint64_t end, buf_t *recs, size_t **offs, size_t *n);
/* Appends the manifest and syncs the file; *man_off / *end go into the checkpoint. */
int undo_spill_manifest(undo_sys_t *u, const undo_manifest_ent_t *ents, size_t n, uint64_t *man_off,
                        uint64_t *end);
/* The checkpoint failed after undo_spill_begin: forget what it appended (no checkpoint names it). */
void undo_spill_abort(undo_sys_t *u);
/* Called after the checkpoint slot is durable: spilled says whether it named a spill.  A checkpoint without one
 * lets the next spill start again at the beginning of the file. */
void undo_spill_checkpointed(undo_sys_t *u, bool spilled);

/* Recovery: calls on_undo for each UNDO record before the manifest at man_off that belongs to a listed trx, and
 * on_trx for each manifest entry.  STRATA_ECORRUPT on a bad checksum. */
int undo_spill_read(undo_sys_t *u, uint64_t man_off, uint64_t end, void (*on_undo)(void *ctx, const uint8_t *rec,
                    uint32_t len), void (*on_trx)(void *ctx, const undo_manifest_ent_t *ent), void *ctx);

#endif
