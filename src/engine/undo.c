/*
 * engine/undo: logfile groups, their undo files, and the undo spill (formats and the protocol in undo.h).
 *
 * One mutex (undo_sys.mu) covers everything here; the checkpointer holds it only while appending or syncing,
 * never while waiting on anything else of the engine.
 */
#include "engine/undo.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/page.h"
#include "util/fio.h"
#include "util/util.h"

#define CTL_NAME "strata_undo.ctl"
#define UNDO_MAGIC "STRATAUNDO\0\0"
#define REC_HDR 9
#define REC_UNDO 1
#define REC_MANIFEST 2
#define WBUF_FLUSH (1u << 20)
#define GROW_MIN (8ull << 20)

struct undo_sys {
    char *datadir;
    uint64_t max_bytes;
    pthread_mutex_t mu;
    bool have;             /* a logfile group exists */
    uint32_t lfg_id, next_id;
    char name[64];
    uint64_t undo_buffer;
    char *path, *full;     /* its undo file */
    int fd;
    uint64_t initial, size;
    bool autoextend;
    uint64_t append;       /* next spill byte */
    uint64_t live_end;     /* end of the spill the last durable checkpoint names (0: none) */
    bool reset_ok;         /* the last durable checkpoint names no spill: the next spill may start over */
    buf_t wbuf;            /* spill bytes not yet written, starting at wbuf_off */
    uint64_t wbuf_off;
};

static char *resolve(const undo_sys_t *u, const char *path)
{
    if (path[0] == '/')
        return mem_strdup(path);
    size_t n = strlen(u->datadir) + strlen(path) + 2;
    char *s = mem_alloc(n);
    snprintf(s, n, "%s/%s", u->datadir, path);
    return s;
}

static int pwrite_all(int fd, const void *p, size_t n, off_t off) { return fio_pwrite(FIO_UNDO, fd, p, n, off); }

/* A read past the end of the file is corruption: every byte read was written and synced before. */
static int pread_all(int fd, void *p, size_t n, off_t off)
{
    size_t got = 0;
    int rc = fio_pread(FIO_UNDO, fd, p, n, off, &got);
    return rc ? rc : got < n ? STRATA_ECORRUPT : 0;
}

/* ---------------------------------------------------------------- control file */

static int ctl_write(undo_sys_t *u)
{
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "strata-undo 1\n");
    if (u->have) {
        buf_printf(&b, "lfg %u %llu %s\n", u->lfg_id, (unsigned long long)u->undo_buffer, u->name);
        buf_printf(&b, "ufile %u %llu %d %s\n", u->lfg_id, (unsigned long long)u->initial, u->autoextend ? 1 : 0,
                   u->path);
    }
    buf_printf(&b, "crc %08x\n", crc32c(0, b.data, b.len));
    char *path = resolve(u, CTL_NAME);
    int rc = fio_replace_file(FIO_UNDO, u->datadir, path, b.data, b.len, 0640);
    if (rc)
        log_error("engine: cannot write '%s': %s", path, strerror(-rc));
    mem_free(path);
    buf_free(&b);
    return rc;
}

static int ctl_read(undo_sys_t *u, const char *path)
{
    FILE *fp = fio_fopen_read(FIO_UNDO, path);
    if (!fp) {
        log_error("engine: cannot read '%s': %s", path, strerror(errno));
        return -errno;
    }
    char line[1200], rest[1100];
    uint32_t crc = 0;
    bool sealed = false;
    int rc = 0;
    while (fgets(line, sizeof line, fp)) {
        unsigned a, c, ae;
        unsigned long long x;
        size_t len = strlen(line);
        if (sscanf(line, "crc %x", &a) == 1) {
            sealed = a == crc;
            break;
        }
        crc = crc32c(crc, line, len);
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        if (sscanf(line, "lfg %u %llu %63[^\n]", &a, &x, rest) == 3) {
            u->have = true;
            u->lfg_id = a;
            u->undo_buffer = x;
            snprintf(u->name, sizeof u->name, "%.63s", rest);
        } else if (sscanf(line, "ufile %u %llu %u %1099[^\n]", &a, &x, &ae, rest) == 4) {
            if (!u->have || a != u->lfg_id) {
                rc = CORRUPT("engine: '%s': undo file of an unknown logfile group", path);
                break;
            }
            u->initial = x;
            u->autoextend = ae != 0;
            u->path = mem_strdup(rest);
            u->full = resolve(u, rest);
        } else if (strncmp(line, "strata-undo 1", 13) != 0) {
            rc = CORRUPT("engine: '%s': cannot parse '%s'", path, line);
            break;
        }
        (void)c;
    }
    fclose(fp);
    if (!rc && !sealed)
        rc = CORRUPT("engine: '%s' is truncated or its checksum is wrong", path);
    if (!rc && u->have && !u->path)
        rc = CORRUPT("engine: '%s': logfile group '%s' has no undo file", path, u->name);
    return rc;
}

/* ---------------------------------------------------------------- files */

static int file_grow(int fd, uint64_t from, uint64_t to) { return fio_allocate(FIO_UNDO, fd, from, to - from); }

static int file_create(undo_sys_t *u)
{
    int rc = 0;
    u->fd = fio_open(FIO_UNDO, u->full, O_RDWR | O_CREAT | O_EXCL, 0640);
    if (u->fd < 0) {
        rc = u->fd;
        u->fd = -1;
        if (rc == -EEXIST)
            log_error("engine: undo file '%s' already exists; remove it or choose another name", u->full);
        else
            log_error("engine: cannot create undo file '%s': %s", u->full, strerror(-rc));
        return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
    }
    uint64_t t0 = time_mono_us();
    uint8_t hdr[UNDO_FILE_HDR];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr, UNDO_MAGIC, 12);
    wr32(hdr + 12, 1);
    wr32(hdr + 16, u->lfg_id);
    wr64(hdr + 24, u->initial);
    wr64(hdr + 32, time_wall_us());
    wr32(hdr + 40, crc32c(0, hdr, 40));
    if ((rc = file_grow(u->fd, 0, u->size)) || (rc = pwrite_all(u->fd, hdr, sizeof hdr, 0)))
        goto fail;
    if ((rc = fio_fsync(FIO_UNDO, u->fd)) || (rc = fio_fsync_dir(FIO_UNDO, u->datadir)))
        goto fail;
    log_note("engine: created undo file '%s' (%llu bytes) in %llu ms", u->full, (unsigned long long)u->size,
             (unsigned long long)(time_mono_us() - t0) / 1000);
    return 0;
fail:
    log_error("engine: cannot create undo file '%s': %s", u->full, strerror(-rc));
    close(u->fd);
    u->fd = -1;
    unlink(u->full);
    return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
}

static int file_open(undo_sys_t *u)
{
    u->fd = fio_open(FIO_UNDO, u->full, O_RDWR, 0);
    if (u->fd < 0) {
        int rc = u->fd;
        u->fd = -1;
        log_error("engine: undo file '%s' of logfile group '%s' cannot be opened: %s", u->full, u->name,
                  strerror(-rc));
        return rc;
    }
    uint8_t hdr[44];
    struct stat st;
    if (pread_all(u->fd, hdr, sizeof hdr, 0) || memcmp(hdr, UNDO_MAGIC, 12) || rd32(hdr + 40) != crc32c(0, hdr, 40) ||
        rd32(hdr + 16) != u->lfg_id || fstat(u->fd, &st))
        return CORRUPT("engine: '%s' is not the undo file of logfile group '%s'", u->full, u->name);
    u->size = (uint64_t)st.st_size;
    return 0;
}

int undo_sys_open(const char *datadir, uint64_t max_bytes, undo_sys_t **out)
{
    undo_sys_t *u = mem_calloc(1, sizeof *u);
    u->datadir = mem_strdup(datadir);
    u->max_bytes = max_bytes;
    u->fd = -1;
    u->append = UNDO_FILE_HDR;
    u->next_id = 1;
    pthread_mutex_init(&u->mu, NULL);
    buf_init(&u->wbuf);
    int rc = 0;
    char *ctl = resolve(u, CTL_NAME);
    if (access(ctl, F_OK) == 0 && !(rc = ctl_read(u, ctl)) && u->have)
        rc = file_open(u);
    mem_free(ctl);
    if (rc) {
        undo_sys_close(u);
        *out = NULL;
        return rc;
    }
    u->next_id = u->lfg_id + 1;
    *out = u;
    return 0;
}

void undo_sys_close(undo_sys_t *u)
{
    if (!u)
        return;
    if (u->fd >= 0)
        close(u->fd);
    buf_free(&u->wbuf);
    mem_free(u->path);
    mem_free(u->full);
    mem_free(u->datadir);
    pthread_mutex_destroy(&u->mu);
    mem_free(u);
}

static int lfg_create_locked(undo_sys_t *u, const char *name, const char *path, uint64_t initial,
                             uint64_t undo_buffer, bool autoextend)
{
    if (u->have)
        return STRATA_EEXIST;
    if (strlen(name) >= sizeof u->name || strchr(name, '\n') || strchr(path, '\n') || !*path)
        return ENGINE_EINVAL;
    if (initial < 2 * UNDO_FILE_HDR)
        initial = 2 * UNDO_FILE_HDR;
    u->lfg_id = u->next_id++;
    snprintf(u->name, sizeof u->name, "%s", name);
    u->undo_buffer = undo_buffer;
    u->initial = u->size = initial;
    u->autoextend = autoextend;
    u->path = mem_strdup(path);
    u->full = resolve(u, path);
    int rc = file_create(u);
    if (!rc) {
        u->have = true;
        if ((rc = ctl_write(u))) {
            u->have = false;
            close(u->fd);
            u->fd = -1;
            unlink(u->full);
        }
    }
    if (rc) {
        mem_free(u->path);
        mem_free(u->full);
        u->path = u->full = NULL;
    }
    u->append = UNDO_FILE_HDR;
    u->live_end = 0;
    u->reset_ok = true;
    return rc;
}

int undo_lfg_create(undo_sys_t *u, const char *name, const char *path, uint64_t initial, uint64_t undo_buffer)
{
    /* DEFAULT_LG is the name of the group the engine makes by itself (autoextending up to max_bytes); a CREATE
     * of that name (a dump of a server that had it, restored) makes the same kind again, so that the restored
     * server does not bound a transaction's undo by the size the file had grown to. */
    bool dflt = strcasecmp(name, UNDO_DEFAULT_LFG) == 0;
    pthread_mutex_lock(&u->mu);
    int rc = lfg_create_locked(u, dflt ? UNDO_DEFAULT_LFG : name, path, dflt ? MIN(initial, u->max_bytes) : initial,
                               undo_buffer, dflt);
    pthread_mutex_unlock(&u->mu);
    return rc;
}

int undo_lfg_drop(undo_sys_t *u, const char *name)
{
    int rc = 0;
    pthread_mutex_lock(&u->mu);
    if (!u->have || strcasecmp(u->name, name) != 0) {
        rc = STRATA_ENOTFOUND;
    } else if (u->live_end || u->append > UNDO_FILE_HDR) {
        rc = ENGINE_ENOTEMPTY;
    } else {
        u->have = false;
        if ((rc = ctl_write(u))) {
            u->have = true;
        } else {
            close(u->fd);
            u->fd = -1;
            unlink(u->full);
            mem_free(u->path);
            mem_free(u->full);
            u->path = u->full = NULL;
        }
    }
    pthread_mutex_unlock(&u->mu);
    return rc;
}

int undo_files(undo_sys_t *u, undo_file_info_t **out, size_t *n)
{
    undo_file_info_t *v = mem_calloc(1, sizeof *v);
    *n = 0;
    pthread_mutex_lock(&u->mu);
    if (u->have) {
        snprintf(v->lfg_name, sizeof v->lfg_name, "%s", u->name);
        snprintf(v->file_name, sizeof v->file_name, "%s", u->path);
        v->lfg_id = u->lfg_id;
        v->undo_buffer = u->undo_buffer;
        v->initial = u->initial;
        v->size = u->size;
        v->used = u->append - UNDO_FILE_HDR;
        v->autoextend = u->autoextend;
        *n = 1;
    }
    pthread_mutex_unlock(&u->mu);
    *out = v;
    return 0;
}

/* ---------------------------------------------------------------- spill */

uint64_t undo_spill_capacity(undo_sys_t *u)
{
    pthread_mutex_lock(&u->mu);
    uint64_t cap = !u->have || u->autoextend ? u->max_bytes : u->size - UNDO_FILE_HDR;
    pthread_mutex_unlock(&u->mu);
    return cap;
}

int undo_spill_reserve(undo_sys_t *u, uint64_t bytes)
{
    int rc = 0;
    pthread_mutex_lock(&u->mu);
    if (!u->have)
        rc = lfg_create_locked(u, UNDO_DEFAULT_LFG, UNDO_DEFAULT_FILE, MIN(GROW_MIN, u->max_bytes), 0, true);
    uint64_t end = (u->reset_ok ? UNDO_FILE_HDR : u->append) + bytes + UNDO_SPILL_SLACK;
    if (!rc && end > u->size) {
        if (!u->autoextend || end > u->max_bytes + UNDO_FILE_HDR) {
            rc = ENGINE_ELOGFULL;
        } else {
            /* Ahead by a step where the disk allows it, else just what is needed. */
            uint64_t want = MIN(MAX(end, u->size + GROW_MIN), u->max_bytes + UNDO_FILE_HDR);
            if ((rc = file_grow(u->fd, u->size, want)) == -ENOSPC && want > end)
                rc = file_grow(u->fd, u->size, want = end);
            if (rc) {
                static uint64_t last_us; /* under mu; once per 10 s: every change of a big trx lands here */
                uint64_t now = time_mono_us();
                if (now - last_us > 10000000) {
                    last_us = now;
                    log_error("engine: cannot extend undo file '%s' to %llu bytes: %s", u->full,
                              (unsigned long long)want, strerror(-rc));
                }
                rc = rc == -ENOSPC || rc == -EDQUOT ? ENGINE_ENOSPC : rc;
            } else {
                u->size = want;
            }
        }
    }
    pthread_mutex_unlock(&u->mu);
    return rc;
}

int undo_spill_begin(undo_sys_t *u, bool *restarted)
{
    int rc = 0;
    pthread_mutex_lock(&u->mu);
    if (!u->have)
        rc = lfg_create_locked(u, UNDO_DEFAULT_LFG, UNDO_DEFAULT_FILE, MIN(GROW_MIN, u->max_bytes), 0, true);
    *restarted = !rc && u->reset_ok;
    if (*restarted)
        u->append = UNDO_FILE_HDR;
    buf_reset(&u->wbuf);
    u->wbuf_off = u->append;
    pthread_mutex_unlock(&u->mu);
    return rc;
}

static int wbuf_flush_locked(undo_sys_t *u)
{
    if (!u->wbuf.len)
        return 0;
    if (u->wbuf_off < UNDO_FILE_HDR) /* a spill appended without undo_spill_begin: never write over the header */
        return CORRUPT("engine: undo spill of '%s' would be written at offset %llu, inside the file header",
                       u->full, (unsigned long long)u->wbuf_off);
    int rc = pwrite_all(u->fd, u->wbuf.data, u->wbuf.len, (off_t)u->wbuf_off);
    if (rc) {
        log_error("engine: write to undo file '%s' failed: %s", u->full, strerror(-rc));
        return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
    }
    u->wbuf_off += u->wbuf.len;
    buf_reset(&u->wbuf);
    return 0;
}

static int rec_append_locked(undo_sys_t *u, uint8_t kind, const uint8_t *pre, size_t npre, const uint8_t *p,
                             size_t n)
{
    uint64_t total = REC_HDR + npre + n;
    if (u->append + total > u->size) {
        uint64_t want = MAX(u->append + total, MIN(u->size * 2, u->size + (256ull << 20)));
        if (!u->autoextend || u->append + total > u->max_bytes + UNDO_FILE_HDR)
            return ENGINE_ELOGFULL;
        want = MIN(want, u->max_bytes + UNDO_FILE_HDR);
        int rc = file_grow(u->fd, u->size, want);
        if (rc) {
            log_error("engine: cannot extend undo file '%s': %s", u->full, strerror(-rc));
            return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
        }
        u->size = want;
    }
    uint8_t h[REC_HDR];
    wr32(h, (uint32_t)total);
    h[8] = kind;
    uint32_t crc = crc32c(0, h + 8, 1);
    crc = crc32c(crc, pre, npre);
    crc = crc32c(crc, p, n);
    wr32(h + 4, crc);
    buf_append(&u->wbuf, h, REC_HDR);
    buf_append(&u->wbuf, pre, npre);
    buf_append(&u->wbuf, p, n);
    u->append += total;
    return u->wbuf.len >= WBUF_FLUSH ? wbuf_flush_locked(u) : 0;
}

int undo_spill_append(undo_sys_t *u, const uint8_t *rec, uint32_t len)
{
    pthread_mutex_lock(&u->mu);
    uint8_t n[4];
    wr32(n, len);
    int rc = rec_append_locked(u, REC_UNDO, n, 4, rec, len);
    pthread_mutex_unlock(&u->mu);
    return rc;
}

uint64_t undo_spill_pos(undo_sys_t *u)
{
    pthread_mutex_lock(&u->mu);
    uint64_t pos = u->append;
    pthread_mutex_unlock(&u->mu);
    return pos;
}

int undo_spill_load(undo_sys_t *u, uint64_t off, uint64_t end, buf_t *recs, size_t **offs, size_t *n)
{
    *offs = NULL;
    *n = 0;
    buf_reset(recs);
    pthread_mutex_lock(&u->mu);
    bool ok = u->have && u->fd >= 0 && off >= UNDO_FILE_HDR && end >= off && end <= u->size;
    int fd = u->fd;
    pthread_mutex_unlock(&u->mu);
    if (!ok)
        return CORRUPT("engine: a spilled transaction's undo [%llu, %llu) is outside the undo file",
                       (unsigned long long)off, (unsigned long long)end);
    size_t len = (size_t)(end - off), cap = 0;
    uint8_t *data = mem_alloc(len ? len : 1);
    int rc = pread_all(fd, data, len, (off_t)off);
    if (rc)
        rc = CORRUPT("engine: cannot read back a spilled transaction's undo from '%s'", u->full);
    for (size_t p = 0; !rc && p < len;) {
        uint32_t total = p + REC_HDR <= len ? rd32(data + p) : 0;
        if (total < REC_HDR + 4 || p + total > len || rd32(data + p + 4) != crc32c(0, data + p + 8, total - 8) ||
            data[p + 8] != REC_UNDO || rd32(data + p + REC_HDR) != total - REC_HDR - 4) {
            rc = CORRUPT("engine: undo spill record at %llu of '%s' is damaged", (unsigned long long)(off + p),
                         u->full);
            break;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            *offs = mem_realloc(*offs, cap * sizeof **offs);
        }
        (*offs)[(*n)++] = recs->len;
        buf_append(recs, data + p + REC_HDR + 4, total - REC_HDR - 4);
        p += total;
    }
    mem_free(data);
    return rc;
}

int undo_spill_manifest(undo_sys_t *u, const undo_manifest_ent_t *ents, size_t n, uint64_t *man_off,
                        uint64_t *end)
{
    buf_t b;
    buf_init(&b);
    uint8_t tmp[11];
    wr32(tmp, (uint32_t)n);
    buf_append(&b, tmp, 4);
    for (size_t i = 0; i < n; i++) {
        wr64(tmp, ents[i].trx_id);
        tmp[8] = ents[i].prepared;
        wr16(tmp + 9, ents[i].xid_len);
        buf_append(&b, tmp, 11);
        if (ents[i].xid_len)
            buf_append(&b, ents[i].xid, ents[i].xid_len);
    }
    pthread_mutex_lock(&u->mu);
    *man_off = u->append;
    int rc = rec_append_locked(u, REC_MANIFEST, NULL, 0, b.data, b.len);
    if (!rc)
        rc = wbuf_flush_locked(u);
    if (!rc && (rc = fio_fdatasync(FIO_UNDO, u->fd)))
        log_error("engine: fsync of undo file '%s' failed: %s", u->full, strerror(-rc));
    if (!rc) {
        /* Durable now, and a running transaction may drop what it holds from memory (engine.c spill_settle):
         * even if this checkpoint fails later, no spill may start over or write over it. */
        u->live_end = u->append;
        u->reset_ok = false;
    }
    *end = u->append;
    pthread_mutex_unlock(&u->mu);
    buf_free(&b);
    return rc;
}

void undo_spill_abort(undo_sys_t *u)
{
    pthread_mutex_lock(&u->mu);
    buf_reset(&u->wbuf);
    u->append = u->live_end ? u->live_end : UNDO_FILE_HDR;
    pthread_mutex_unlock(&u->mu);
}

void undo_spill_checkpointed(undo_sys_t *u, bool spilled)
{
    pthread_mutex_lock(&u->mu);
    u->reset_ok = !spilled;
    u->live_end = spilled ? u->append : 0;
    if (!spilled)
        u->append = UNDO_FILE_HDR; /* nothing live: the next spill starts over (FILES shows it empty) */
    pthread_mutex_unlock(&u->mu);
}

int undo_spill_read(undo_sys_t *u, uint64_t man_off, uint64_t end, void (*on_undo)(void *ctx, const uint8_t *rec,
                    uint32_t len), void (*on_trx)(void *ctx, const undo_manifest_ent_t *ent), void *ctx)
{
    int rc = 0;
    uint8_t *data = NULL;
    if (!u->have || u->fd < 0)
        return CORRUPT("engine: the checkpoint names an undo spill but there is no undo file (strata_undo.ctl)");
    if (man_off < UNDO_FILE_HDR || end <= man_off + REC_HDR || end > u->size || end - UNDO_FILE_HDR > (4ull << 30))
        return CORRUPT("engine: the checkpoint's undo spill [%llu, %llu) is outside '%s'",
                       (unsigned long long)man_off, (unsigned long long)end, u->full);
    size_t n = (size_t)(end - UNDO_FILE_HDR);
    data = mem_alloc(n);
    if ((rc = pread_all(u->fd, data, n, UNDO_FILE_HDR))) {
        rc = CORRUPT("engine: cannot read the undo spill of '%s'", u->full);
        goto out;
    }
    /* Check every record first, then the manifest's trx set, then hand out the records of those trx. */
    uint64_t *ids = NULL;
    size_t nids = 0;
    for (size_t off = 0; off < n;) {
        uint32_t total = off + REC_HDR <= n ? rd32(data + off) : 0;
        if (total < REC_HDR || off + total > n || rd32(data + off + 4) != crc32c(0, data + off + 8, total - 8)) {
            rc = CORRUPT("engine: undo spill record at %llu of '%s' is damaged", (unsigned long long)(off + UNDO_FILE_HDR),
                         u->full);
            goto out;
        }
        if (off + UNDO_FILE_HDR == man_off) {
            const uint8_t *p = data + off + REC_HDR, *e = data + off + total;
            if (data[off + 8] != REC_MANIFEST || e - p < 4) {
                rc = CORRUPT("engine: no undo spill manifest at %llu of '%s'", (unsigned long long)man_off, u->full);
                goto out;
            }
            uint32_t cnt = rd32(p);
            p += 4;
            ids = mem_calloc(cnt ? cnt : 1, sizeof *ids);
            for (uint32_t i = 0; i < cnt; i++) {
                if (e - p < 11 || e - p < 11 + rd16(p + 9)) {
                    mem_free(ids);
                    rc = CORRUPT("engine: undo spill manifest of '%s' is truncated", u->full);
                    goto out;
                }
                undo_manifest_ent_t ent = {.trx_id = rd64(p), .prepared = p[8] != 0, .xid_len = rd16(p + 9),
                                           .xid = p + 11};
                ids[nids++] = ent.trx_id;
                if (on_trx)
                    on_trx(ctx, &ent);
                p += 11 + ent.xid_len;
            }
            break;
        }
        off += total;
    }
    if (!ids) {
        rc = CORRUPT("engine: undo spill manifest at %llu of '%s' not found", (unsigned long long)man_off, u->full);
        goto out;
    }
    for (size_t off = 0; off + UNDO_FILE_HDR < man_off;) {
        uint32_t total = rd32(data + off);
        const uint8_t *p = data + off + REC_HDR;
        if (data[off + 8] == REC_UNDO && total >= REC_HDR + 4 + 8 && rd32(p) == total - REC_HDR - 4) {
            uint64_t id = rd64(p + 4);
            for (size_t i = 0; i < nids; i++)
                if (ids[i] == id) {
                    on_undo(ctx, p + 4, rd32(p));
                    break;
                }
        }
        off += total;
    }
    mem_free(ids);
    /* The next spill goes after this one; it stays live until a checkpoint names another. */
    pthread_mutex_lock(&u->mu);
    u->append = end;
    u->live_end = end;
    u->reset_ok = false;
    pthread_mutex_unlock(&u->mu);
out:
    mem_free(data);
    return rc;
}
