/*
 * Reading binlog files event by event, plain or compressed (zfile.c), with every event checked (length bounds,
 * CRC32, next position) before it is handed out.  A bad event stops the reader with an error that names the file
 * and the position; nothing after it is served.  Reading the active file stops at the durable position, so a
 * reader never sees a group that is not yet synced.  Also: SHOW BINLOG EVENTS rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binlog/binlog_priv.h"
#include "util/fio.h"

enum { READER_CHUNK = 64 * 1024 };

struct binlog_reader {
    binlog_t *bl;
    char name[BL_NAME_MAX];
    uint32_t seq;
    int fd;
    binlog_zfile_t *z;
    uint8_t *buf;
    size_t cap, len, at; /* buf holds file bytes [base, base+len); next event at base+at */
    uint64_t base;
    bool failed;
    char err[600];
};

static const uint8_t BINLOG_MAGIC[4] = {0xfe, 'b', 'i', 'n'};

static int rfail(binlog_reader_t *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rfail(binlog_reader_t *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    r->failed = true;
    return rc;
}

/* What a file that is not a binlog looks like, for the one report. */
static const char *magic_reason(const uint8_t *h, ssize_t n)
{
    if (n < 4)
        return "too short to be a binlog";
    if (h[0] == 0x1f && h[1] == 0x8b)
        return "gzip-compressed data, not a binlog (bad magic number)";
    if (binlog_zfile_is(h, (size_t)n))
        return "zstd-compressed data without strata's frame index (bad magic number)";
    if (h[0] == 0xfd && h[1] == '7' && h[2] == 'z' && h[3] == 'X')
        return "xz-compressed data, not a binlog (bad magic number)";
    if (h[0] == 'B' && h[1] == 'Z' && h[2] == 'h')
        return "bzip2-compressed data, not a binlog (bad magic number)";
    return "bad magic number, not a binlog";
}

static int reader_setup(binlog_reader_t *r, const char *path, uint64_t pos, bool compressed_hint)
{
    uint8_t h[4];
    r->fd = fio_open(FIO_BINLOG, path, O_RDONLY, 0);
    if (r->fd < 0) {
        int rc = r->fd;
        r->fd = -1;
        return rfail(r, rc, "cannot open binlog file '%s': %s", r->name, strerror(-rc));
    }
    if (r->bl)
        binlog_count_open(r->bl);
    size_t got = 0;
    ssize_t n = fio_pread(FIO_BINLOG, r->fd, h, 4, 0, &got) ? -1 : (ssize_t)got;
    if (n == 4 && binlog_zfile_is(h, 4)) {
        int rc = binlog_zfile_open(r->fd, &r->z);
        r->fd = -1;
        if (rc) {
            if (r->bl && !compressed_hint)
                binlog_mark_unreadable(r->bl, r->name, magic_reason(h, n));
            return rfail(r, STRATA_ECORRUPT, "binlog file '%s': %s", r->name,
                         compressed_hint ? "corrupt compressed layout" : magic_reason(h, n));
        }
        n = binlog_zfile_pread(r->z, h, 4, 0);
    }
    if (n != 4 || memcmp(h, BINLOG_MAGIC, 4)) {
        const char *why = magic_reason(h, n);
        if (r->bl)
            binlog_mark_unreadable(r->bl, r->name, why);
        return rfail(r, STRATA_ECORRUPT, "binlog file '%s': %s", r->name, why);
    }
    r->base = pos < 4 ? 4 : pos;
    return 0;
}

int binlog_reader_open_path(const char *path, uint64_t pos, binlog_reader_t **out)
{
    binlog_reader_t *r = mem_calloc(1, sizeof *r);
    r->fd = -1;
    const char *slash = strrchr(path, '/');
    snprintf(r->name, sizeof r->name, "%s", slash ? slash + 1 : path);
    int rc = reader_setup(r, path, pos, false);
    *out = r;
    return rc;
}

int binlog_reader_open(binlog_t *bl, const char *name, uint64_t pos, binlog_reader_t **out)
{
    binlog_reader_t *r = mem_calloc(1, sizeof *r);
    r->fd = -1;
    r->bl = bl;
    snprintf(r->name, sizeof r->name, "%s", name);
    *out = r;
    char path[BL_PATH_MAX + 64];
    bool compressed;
    int rc = binlog_file_seq(bl, name, &r->seq);
    if (rc == 0)
        rc = binlog_file_path(bl, name, path, sizeof path, &compressed);
    if (rc)
        return rfail(r, rc, "could not find binlog file '%s' in the index", name);
    for (int attempt = 0; attempt < 2; attempt++) {
        r->failed = false;
        rc = reader_setup(r, path, pos, compressed);
        if (rc != -ENOENT)
            break;
        /* compressed (and the plain file removed) between the index lookup and the open: look again */
        if (binlog_file_path(bl, name, path, sizeof path, &compressed))
            break;
    }
    return rc;
}

const char *binlog_reader_error(binlog_reader_t *r)
{
    return r->err[0] ? r->err : "no error";
}

uint64_t binlog_reader_tell(binlog_reader_t *r)
{
    return r->base + r->at;
}

void binlog_reader_close(binlog_reader_t *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    if (r->z)
        binlog_zfile_close(r->z);
    mem_free(r->buf);
    mem_free(r);
}

/* The readable end of the file right now. */
static uint64_t reader_limit(binlog_reader_t *r)
{
    if (r->bl) {
        pthread_mutex_lock(&r->bl->mu);
        bool active = r->seq == r->bl->active_seq && r->bl->fd >= 0;
        uint64_t d = r->bl->durable.offset;
        pthread_mutex_unlock(&r->bl->mu);
        if (active)
            return d;
    }
    if (r->z)
        return binlog_zfile_size(r->z);
    struct stat st;
    if (fstat(r->fd, &st))
        return 0;
    return (uint64_t)st.st_size;
}

/* Makes buf hold at least `need` bytes from the next event's position (fewer at end of file). */
static int reader_fill(binlog_reader_t *r, size_t need, uint64_t limit)
{
    if (r->at > 0) {
        memmove(r->buf, r->buf + r->at, r->len - r->at);
        r->base += r->at;
        r->len -= r->at;
        r->at = 0;
    }
    if (r->len >= need)
        return 0;
    size_t want = MAX(need, (size_t)READER_CHUNK);
    if (r->cap < want) {
        r->cap = want;
        r->buf = mem_realloc(r->buf, r->cap);
    }
    while (r->len < need) {
        uint64_t off = r->base + r->len;
        if (off >= limit)
            return 0;
        size_t n = (size_t)MIN((uint64_t)(r->cap - r->len), limit - off);
        size_t pgot = 0;
        int prc = r->z ? 0 : fio_pread(FIO_BINLOG, r->fd, r->buf + r->len, n, (int64_t)off, &pgot);
        ssize_t got = r->z ? binlog_zfile_pread(r->z, r->buf + r->len, n, off) : prc ? -1 : (ssize_t)pgot;
        if (got < 0)
            return rfail(r, STRATA_EIO, "binlog file '%s' at position %llu: read error (%s)", r->name,
                         (unsigned long long)off, r->z ? "decompression failed" : strerror(-prc));
        if (got == 0)
            return 0;
        r->len += (size_t)got;
    }
    return 0;
}

int binlog_reader_next(binlog_reader_t *r, binlog_event_t *ev)
{
    if (r->failed)
        return STRATA_ECORRUPT;
    uint64_t limit = reader_limit(r);
    uint64_t pos = r->base + r->at;
    if (pos >= limit)
        return 0;
    if (r->len - r->at < BINLOG_HEADER_LEN && reader_fill(r, BINLOG_HEADER_LEN, limit))
        return STRATA_EIO;
    const char *why = NULL;
    int rc = binlog_event_parse(r->buf + r->at, r->len - r->at, ev, &why);
    if (rc == STRATA_EAGAIN && ev->size == 0)
        return rfail(r, STRATA_ECORRUPT, "binlog file '%s' at position %llu: truncated event header", r->name,
                     (unsigned long long)pos);
    if (rc == STRATA_EAGAIN) {
        if (pos + ev->size > limit)
            return rfail(r, STRATA_ECORRUPT,
                         "binlog file '%s' at position %llu: event of %u bytes runs past the end of the file (%llu)",
                         r->name, (unsigned long long)pos, ev->size, (unsigned long long)limit);
        if (reader_fill(r, ev->size, limit))
            return STRATA_EIO;
        rc = binlog_event_parse(r->buf + r->at, r->len - r->at, ev, &why);
        if (rc == STRATA_EAGAIN)
            return rfail(r, STRATA_ECORRUPT, "binlog file '%s' at position %llu: truncated event", r->name,
                         (unsigned long long)pos);
    }
    if (rc)
        return rfail(r, STRATA_ECORRUPT, "binlog file '%s' at position %llu: %s", r->name, (unsigned long long)pos,
                     why ? why : "corrupt event");
    if (ev->next_pos != 0 && ev->next_pos != (uint32_t)(pos + ev->size))
        return rfail(r, STRATA_ECORRUPT, "binlog file '%s' at position %llu: next position %u does not match size %u",
                     r->name, (unsigned long long)pos, ev->next_pos, ev->size);
    ev->pos = pos;
    r->at += ev->size;
    return 1;
}

int binlog_show_events(binlog_t *bl, const char *name, uint64_t pos, int64_t skip, int64_t limit,
                       int (*fn)(void *arg, const binlog_show_row_t *row), void *arg, char *err, size_t errcap)
{
    char first[BL_NAME_MAX];
    if (!name) {
        pthread_mutex_lock(&bl->mu);
        uint32_t seq = bl->nfiles ? bl->files[bl->head].seq : bl->active_seq;
        pthread_mutex_unlock(&bl->mu);
        binlog_file_name(bl, seq, first, sizeof first);
        name = first;
    }
    binlog_reader_t *r;
    int rc = binlog_reader_open(bl, name, pos, &r);
    buf_t info;
    buf_init(&info);
    binlog_event_t ev;
    while (rc == 0 && limit != 0) {
        int k = binlog_reader_next(r, &ev);
        if (k <= 0) {
            rc = k;
            break;
        }
        if (skip > 0) {
            skip--;
            continue;
        }
        info.len = 0;
        if (binlog_event_info(&ev, &info)) {
            rc = rfail(r, STRATA_ECORRUPT, "binlog file '%s' at position %llu: malformed %s event", name,
                       (unsigned long long)ev.pos, binlog_event_type_name(ev.type));
            break;
        }
        buf_append_byte(&info, 0);
        binlog_show_row_t row = {name, ev.pos, binlog_event_type_name(ev.type), ev.server_id, ev.next_pos,
                                 (const char *)info.data};
        if (fn(arg, &row))
            break;
        if (limit > 0)
            limit--;
    }
    if (rc && err)
        snprintf(err, errcap, "%s", binlog_reader_error(r));
    buf_free(&info);
    binlog_reader_close(r);
    return rc;
}
