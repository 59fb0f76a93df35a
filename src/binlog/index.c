/*
 * The binlog's durable index: <basename>.state, an append-only log of checksummed records that says, per file,
 * everything rotation, purge, SHOW BINARY LOGS and GTID lookups need, so none of them opens an old binlog file.
 * A torn or corrupt tail (crash during an append) is cut at the last good record.  When the log holds many dead
 * records it is rewritten (write <name>.tmp, fsync, rename, fsync dir).  MySQL's plain <basename>.index (one file
 * name per line) is kept beside it for tools; strata never reads it except to notice that it is missing.
 *
 * File header (16 bytes):  0 8 magic "STRBLIX1" | 8 4 version (1) | 12 4 CRC32 of bytes 0..11
 * Record:                  0 4 payload length n | 4 1 type | 5 n payload | 5+n 4 CRC32 of bytes 0..5+n-1
 * Types and payloads (little-endian):
 *   1 FILE   0 4 seq | 4 4 flags (1 closed, 2 compressed, 4 unreadable, 8 reported) | 8 8 plain size |
 *            16 8 disk size | 24 8 first event time | 32 8 last event time | 40 4 last GTID domain |
 *            44 4 last GTID server | 48 8 last GTID seq (0 = none) | 56 4 k | 60 16*k GTID state at file
 *            start (domain u32, server u32, seq u64) | then u16 length + on-disk name if it differs ("" if
 *            not) | then u16 length + reason text (unreadable files) | then first GTID (domain u32,
 *            server u32, seq u64; seq 0 = none)
 *            The last FILE record for a seq is its current state.
 *   2 PURGE  0 4 first seq kept (every file before it is gone)
 *   3 RESET  0 4 first seq of the new sequence (all files and the GTID state before it are gone)
 *   4 CKPT   0 4 file seq | 4 8 offset: the engine's checkpoint (recovery scans from that file)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binlog/binlog_priv.h"
#include "util/fio.h"

static const char STATE_MAGIC[8] = {'S', 'T', 'R', 'B', 'L', 'I', 'X', '1'};

static int fsync_dir(const char *dir) { return fio_fsync_dir(FIO_BINLOG, dir); }

static void put_gtid(buf_t *b, binlog_gtid_t g)
{
    buf_put_u32(b, g.domain);
    buf_put_u32(b, g.server);
    buf_put_u64(b, g.seq);
}

static void rec_begin(buf_t *b, int type)
{
    buf_put_u32(b, 0);
    buf_put_u8(b, (uint8_t)type);
}

static void rec_end(buf_t *b, size_t at)
{
    wr32(b->data + at, (uint32_t)(b->len - at - 5));
    buf_put_u32(b, binlog_crc32(b->data + at, b->len - at));
}

static void rec_file(buf_t *b, const bl_file_t *f)
{
    size_t at = b->len;
    rec_begin(b, BL_REC_FILE);
    buf_put_u32(b, f->seq);
    buf_put_u32(b, f->flags & ~(uint32_t)BL_F_NOCOMPRESS);
    buf_put_u64(b, f->size);
    buf_put_u64(b, f->disk_size);
    buf_put_u64(b, f->first_time);
    buf_put_u64(b, f->last_time);
    put_gtid(b, f->last_gtid);
    buf_put_u32(b, f->start.n);
    for (uint32_t i = 0; i < f->start.n; i++)
        put_gtid(b, f->start.v[i]);
    size_t al = f->alt_name ? strlen(f->alt_name) : 0, rl = f->reason ? strlen(f->reason) : 0;
    buf_put_u16(b, (uint16_t)al);
    buf_append(b, f->alt_name ? f->alt_name : "", al);
    buf_put_u16(b, (uint16_t)rl);
    buf_append(b, f->reason ? f->reason : "", rl);
    put_gtid(b, f->first_gtid);
    rec_end(b, at);
}

static void rec_u32(buf_t *b, int type, uint32_t v)
{
    size_t at = b->len;
    rec_begin(b, type);
    buf_put_u32(b, v);
    rec_end(b, at);
}

static void rec_ckpt(buf_t *b, binlog_pos_t p)
{
    size_t at = b->len;
    rec_begin(b, BL_REC_CKPT);
    buf_put_u32(b, p.file);
    buf_put_u64(b, p.offset);
    rec_end(b, at);
}

/* Appends the records in b to the state log and makes them durable. Caller holds state_mu. */
static int state_append(binlog_t *bl, const buf_t *b)
{
    if (bl->state_fd < 0)
        return STRATA_EIO;
    int rc = fio_pwrite(FIO_BINLOG, bl->state_fd, b->data, b->len, (int64_t)bl->state_size);
    if (rc) {
        log_error("binlog: cannot append to %s: %s", bl->state_path, strerror(-rc));
        return STRATA_EIO;
    }
    /* sync_binlog=0 promises no durability, here neither */
    if (bl->opt.sync && (rc = fio_fdatasync(FIO_BINLOG, bl->state_fd))) {
        log_error("binlog: fsync %s: %s", bl->state_path, strerror(-rc));
        return STRATA_EIO;
    }
    bl->state_size += b->len;
    bl->state_records++;
    __atomic_add_fetch(&bl->n_index_writes, 1, __ATOMIC_RELAXED);
    return 0;
}

static void state_snapshot(binlog_t *bl, buf_t *b)
{
    buf_append(b, STATE_MAGIC, 8);
    buf_put_u32(b, 1);
    buf_put_u32(b, binlog_crc32(b->data, 12));
    if (bl->nfiles == 0)
        rec_u32(b, BL_REC_RESET, bl->next_seq);
    for (uint32_t i = 0; i < bl->nfiles; i++)
        rec_file(b, &bl->files[bl->head + i]);
    if (bl->has_ckpt)
        rec_ckpt(b, bl->ckpt);
}

/* Makes snapshot b the state log: write tmp, fsync, rename, fsync dir.  Caller holds state_mu. */
static int state_replace(binlog_t *bl, const buf_t *b, uint64_t nrec)
{
    char tmp[BL_PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp", bl->state_path);
    int rc = STRATA_EIO;
    int fd = fio_open(FIO_BINLOG, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0640);
    if (fd < 0)
        goto out;
    if (fio_pwrite(FIO_BINLOG, fd, b->data, b->len, 0) || fio_fsync(FIO_BINLOG, fd)) {
        close(fd);
        goto out;
    }
    if (rename(tmp, bl->state_path)) {
        close(fd);
        goto out;
    }
    fsync_dir(bl->dir);
    if (bl->state_fd >= 0)
        close(bl->state_fd);
    bl->state_fd = fd;
    bl->state_size = b->len;
    bl->state_records = nrec;
    __atomic_add_fetch(&bl->n_index_writes, 1, __ATOMIC_RELAXED);
    rc = 0;
out:
    if (rc)
        log_error("binlog: cannot rewrite %s: %s", bl->state_path, strerror(errno));
    return rc;
}

/* Rewrites the state log from memory.  Caller holds mu and state_mu (open, reset). */
int bl_state_rewrite(binlog_t *bl)
{
    buf_t b;
    buf_init(&b);
    state_snapshot(bl, &b);
    int rc = state_replace(bl, &b, bl->nfiles + 1);
    buf_free(&b);
    return rc;
}

/*
 * The one way records reach the state log once the binlog is open.  The caller holds mu and has already made the
 * in-memory change the records describe; mu is released during the I/O and held again on return (pointers into
 * files[] taken before the call are stale after it).  state_mu is taken while mu is still held, so records reach
 * the log in the order of the changes, and a compaction snapshot taken here already contains this change (it
 * then replaces the log instead of the append).  Consumes recs.
 */
static int state_put(binlog_t *bl, buf_t *recs)
{
    pthread_mutex_lock(&bl->state_mu);
    buf_t snap;
    buf_init(&snap);
    bool compact = bl->state_records + 1 > 2 * (uint64_t)bl->nfiles + 1024;
    uint64_t nrec = bl->nfiles + 1;
    if (compact)
        state_snapshot(bl, &snap);
    pthread_mutex_unlock(&bl->mu);
    int rc = compact ? state_replace(bl, &snap, nrec) : state_append(bl, recs);
    pthread_mutex_unlock(&bl->state_mu);
    pthread_mutex_lock(&bl->mu);
    buf_free(&snap);
    buf_free(recs);
    return rc;
}

int bl_state_put_file(binlog_t *bl, const bl_file_t *f)
{
    buf_t b;
    buf_init(&b);
    rec_file(&b, f);
    return state_put(bl, &b);
}

int bl_state_put_files(binlog_t *bl, const bl_file_t *a, const bl_file_t *b2)
{
    buf_t b;
    buf_init(&b);
    rec_file(&b, a);
    rec_file(&b, b2);
    return state_put(bl, &b);
}

int bl_state_put_u32(binlog_t *bl, int type, uint32_t v)
{
    buf_t b;
    buf_init(&b);
    rec_u32(&b, type, v);
    return state_put(bl, &b);
}

int bl_state_put_ckpt(binlog_t *bl, binlog_pos_t p)
{
    buf_t b;
    buf_init(&b);
    rec_ckpt(&b, p);
    return state_put(bl, &b);
}

/* ---- in-memory index ---- */

bl_file_t *bl_file_by_seq(binlog_t *bl, uint32_t seq)
{
    if (bl->nfiles == 0)
        return NULL;
    uint32_t first = bl->files[bl->head].seq;
    if (seq < first || seq - first >= bl->nfiles)
        return NULL;
    bl_file_t *f = &bl->files[bl->head + (seq - first)];
    ASSERT(f->seq == seq);
    return f;
}

static void file_free(bl_file_t *f)
{
    binlog_gtid_set_free(&f->start);
    mem_free(f->alt_name);
    mem_free(f->reason);
    memset(f, 0, sizeof *f);
}

bl_file_t *bl_file_append(binlog_t *bl, uint32_t seq)
{
    if (bl->head > 0 && bl->head >= bl->cap / 2) { /* slide down: purge made room at the front */
        memmove(bl->files, bl->files + bl->head, bl->nfiles * sizeof *bl->files);
        bl->head = 0;
    }
    if (bl->head + bl->nfiles == bl->cap) {
        bl->cap = bl->cap ? 2 * bl->cap : 64;
        bl->files = mem_realloc(bl->files, bl->cap * sizeof *bl->files);
    }
    ASSERT(bl->nfiles == 0 || bl->files[bl->head + bl->nfiles - 1].seq + 1 == seq);
    bl_file_t *f = &bl->files[bl->head + bl->nfiles++];
    memset(f, 0, sizeof *f);
    f->seq = seq;
    return f;
}

void bl_files_drop_front(binlog_t *bl, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        file_free(&bl->files[bl->head + i]);
    bl->head += n;
    bl->nfiles -= n;
    if (bl->nfiles == 0)
        bl->head = 0;
}

void bl_files_free(binlog_t *bl)
{
    bl_files_drop_front(bl, bl->nfiles);
    mem_free(bl->files);
    bl->files = NULL;
    bl->cap = bl->head = bl->nfiles = 0;
}

/* Loads <basename>.state into memory.  Returns 0 (also when the file does not exist: bl->nfiles == 0 and
 * *existed = false), or negative. */
int bl_state_load(binlog_t *bl, bool *existed)
{
    int rc = 0;
    *existed = false;
    int fd = fio_open(FIO_BINLOG, bl->state_path, O_RDWR, 0);
    if (fd < 0)
        return fd == -ENOENT ? 0 : fd;
    *existed = true;
    off_t sz = lseek(fd, 0, SEEK_END);
    uint8_t *p = mem_alloc((size_t)sz + 1);
    size_t got = 0;
    if (fio_pread(FIO_BINLOG, fd, p, (size_t)sz, 0, &got) || got != (size_t)sz) {
        rc = STRATA_EIO;
        goto out;
    }
    if (sz < 16 || memcmp(p, STATE_MAGIC, 8) || rd32(p + 12) != binlog_crc32(p, 12) || rd32(p + 8) != 1) {
        rc = CORRUPT("binlog: %s has a bad header", bl->state_path);
        goto out;
    }
    size_t off = 16;
    uint64_t nrec = 0;
    while (off + 9 <= (size_t)sz) {
        uint32_t n = rd32(p + off);
        if (n > (size_t)sz - off - 9 || rd32(p + off + 5 + n) != binlog_crc32(p + off, 5 + n))
            break;
        const uint8_t *q = p + off + 5;
        switch (p[off + 4]) {
        case BL_REC_FILE: {
            if (n < 60)
                goto bad;
            uint32_t seq = rd32(q);
            bl_file_t *f = bl_file_by_seq(bl, seq);
            if (!f) {
                if (bl->nfiles && seq != bl->files[bl->head + bl->nfiles - 1].seq + 1)
                    goto bad;
                f = bl_file_append(bl, seq);
            } else {
                uint32_t s = f->seq;
                file_free(f);
                f->seq = s;
            }
            f->flags = rd32(q + 4);
            f->size = rd64(q + 8);
            f->disk_size = rd64(q + 16);
            f->first_time = rd64(q + 24);
            f->last_time = rd64(q + 32);
            f->last_gtid = (binlog_gtid_t){rd32(q + 40), rd32(q + 44), rd64(q + 48)};
            uint32_t k = rd32(q + 56);
            if (k > (n - 60) / 16)
                goto bad;
            for (uint32_t i = 0; i < k; i++)
                binlog_gtid_set_update(&f->start, (binlog_gtid_t){rd32(q + 60 + 16 * i), rd32(q + 64 + 16 * i),
                                                                   rd64(q + 68 + 16 * i)});
            size_t o = 60 + 16 * (size_t)k;
            if (o + 2 > n || o + 2 + rd16(q + o) + 2 > n)
                goto bad;
            if (rd16(q + o))
                f->alt_name = mem_strndup((const char *)q + o + 2, rd16(q + o));
            o += 2 + rd16(q + o);
            if (o + 2 + rd16(q + o) > n)
                goto bad;
            if (rd16(q + o))
                f->reason = mem_strndup((const char *)q + o + 2, rd16(q + o));
            o += 2 + rd16(q + o);
            if (o + 16 <= n) /* first GTID (added after the first layout; absent = none) */
                f->first_gtid = (binlog_gtid_t){rd32(q + o), rd32(q + o + 4), rd64(q + o + 8)};
            if (seq >= bl->next_seq)
                bl->next_seq = seq + 1;
            break;
        }
        case BL_REC_PURGE: {
            if (n < 4)
                goto bad;
            uint32_t keep = rd32(q);
            uint32_t drop = 0;
            while (drop < bl->nfiles && bl->files[bl->head + drop].seq < keep)
                drop++;
            bl_files_drop_front(bl, drop);
            break;
        }
        case BL_REC_RESET:
            if (n < 4)
                goto bad;
            bl_files_drop_front(bl, bl->nfiles);
            bl->next_seq = rd32(q);
            bl->has_ckpt = false;
            break;
        case BL_REC_CKPT:
            if (n < 12)
                goto bad;
            bl->ckpt = (binlog_pos_t){rd32(q), rd64(q + 4)};
            bl->has_ckpt = true;
            break;
        default:
            goto bad;
        }
        off += 9 + n;
        nrec++;
        continue;
    bad:
        rc = CORRUPT("binlog: %s: malformed record at offset %zu", bl->state_path, off);
        goto out;
    }
    if (off != (size_t)sz) {
        log_warn("binlog: %s: cutting %lld bytes of an incomplete record at offset %zu", bl->state_path,
                 (long long)(sz - (off_t)off), off);
        if ((rc = fio_ftruncate(FIO_BINLOG, fd, off)) || (rc = fio_fdatasync(FIO_BINLOG, fd)))
            goto out;
    }
    bl->state_fd = fd;
    fd = -1;
    bl->state_size = off;
    bl->state_records = nrec;
out:
    if (fd >= 0)
        close(fd);
    mem_free(p);
    return rc;
}

/* Creates an empty state log (first start, or after it was lost). */
int bl_state_create(binlog_t *bl)
{
    pthread_mutex_lock(&bl->state_mu);
    int rc = bl_state_rewrite(bl);
    pthread_mutex_unlock(&bl->state_mu);
    return rc;
}

/* MySQL's <basename>.index: one name per line.  Rotation appends; purge and reset rewrite.  Like state_put: the
 * caller holds mu (released during the I/O, held again on return) and text_mu orders the writes as the changes. */
int bl_text_index_append(binlog_t *bl, uint32_t seq)
{
    char name[BL_NAME_MAX];
    binlog_file_name(bl, seq, name, sizeof name);
    char line[BL_PATH_MAX + 2];
    int n = snprintf(line, sizeof line, "%s/%s\n", bl->dir, name);
    pthread_mutex_lock(&bl->text_mu);
    pthread_mutex_unlock(&bl->mu);
    int rc = STRATA_EIO;
    int fd = fio_open(FIO_BINLOG, bl->index_path, O_WRONLY | O_APPEND | O_CREAT, 0640);
    if (fd >= 0) {
        rc = !fio_pwrite(FIO_BINLOG, fd, line, (size_t)n, -1) && (!bl->opt.sync || !fio_fdatasync(FIO_BINLOG, fd))
                 ? 0
                 : STRATA_EIO;
        close(fd);
    }
    pthread_mutex_unlock(&bl->text_mu);
    pthread_mutex_lock(&bl->mu);
    return rc;
}

int bl_text_index_rewrite(binlog_t *bl)
{
    char tmp[BL_PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", bl->index_path);
    buf_t b;
    buf_init(&b);
    char name[BL_NAME_MAX];
    for (uint32_t i = 0; i < bl->nfiles; i++) {
        binlog_file_name(bl, bl->files[bl->head + i].seq, name, sizeof name);
        buf_printf(&b, "%s/%s\n", bl->dir, name);
    }
    pthread_mutex_lock(&bl->text_mu);
    pthread_mutex_unlock(&bl->mu);
    int rc = STRATA_EIO;
    int fd = fio_open(FIO_BINLOG, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0640);
    if (fd >= 0) {
        if (!fio_pwrite(FIO_BINLOG, fd, b.data, b.len, 0) && (!bl->opt.sync || !fio_fdatasync(FIO_BINLOG, fd)) &&
            rename(tmp, bl->index_path) == 0)
            rc = 0;
        close(fd);
    }
    pthread_mutex_unlock(&bl->text_mu);
    pthread_mutex_lock(&bl->mu);
    buf_free(&b);
    return rc;
}
