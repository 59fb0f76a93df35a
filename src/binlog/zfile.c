/*
 * Compressed binlog files: zstd's seekable format, so a reader positioned anywhere decompresses one frame, not
 * the file from its start, and `zstd -d` restores the plain binlog (mariadb-binlog then reads it).
 *
 *   frame 0 .. frame n-1   independent zstd frames (content checksum on), each of BINLOG_ZFRAME plain bytes
 *                          (the last may be shorter)
 *   seek table             a zstd skippable frame:
 *     0  4  magic 0x184D2A5E (LE)
 *     4  4  size of what follows = 8*n + 9
 *     8  8*n per frame: compressed size u32, plain size u32
 *     .. 4  n (number of frames)
 *     .. 1  descriptor (0: no per-frame checksums in the table; each frame carries zstd's own)
 *     .. 4  seekable magic 0x8F92EAB1
 * The file is written as <name>.zst.tmp, fsynced, renamed; the index then marks the file compressed and the
 * plain file is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "binlog/binlog_int.h"
#include "util/fio.h"

enum { BINLOG_ZFRAME = 64 * 1024, ZLEVEL = 3 };
#define SKIPPABLE_MAGIC 0x184D2A5Eu
#define SEEKABLE_MAGIC 0x8F92EAB1u
#define ZSTD_FRAME_MAGIC 0xFD2FB528u

struct binlog_zfile {
    int fd;
    uint32_t n;
    uint64_t *coff; /* compressed offset of frame i (n+1 entries) */
    uint64_t *poff; /* plain offset of frame i (n+1 entries) */
    ZSTD_DCtx *dctx;
    uint8_t *cbuf, *pbuf;
    size_t ccap, pcap;
    int64_t cached; /* frame held in pbuf, -1 none */
};

bool binlog_zfile_is(const uint8_t *h, size_t n)
{
    return n >= 4 && rd32(h) == ZSTD_FRAME_MAGIC;
}

static int write_all(int fd, const void *p, size_t n) { return fio_pwrite(FIO_BINLOG, fd, p, n, -1); }

/* pread of exactly n bytes: true when they were all read. */
static bool pread_exact(int fd, void *p, size_t n, off_t off)
{
    size_t got = 0;
    return fio_pread(FIO_BINLOG, fd, p, n, off, &got) == 0 && got == n;
}

int binlog_zfile_compress(const char *src, const char *dst, uint64_t *out_size, uint64_t *opened)
{
    int rc = STRATA_EIO, in = -1, out = -1;
    uint8_t *pb = mem_alloc(BINLOG_ZFRAME);
    size_t cb_cap = ZSTD_compressBound(BINLOG_ZFRAME);
    uint8_t *cb = mem_alloc(cb_cap);
    buf_t table;
    buf_init(&table);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZLEVEL);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    in = fio_open(FIO_BINLOG, src, O_RDONLY, 0);
    if (in < 0) {
        rc = in;
        goto out;
    }
    if (opened)
        (*opened)++;
    out = fio_open(FIO_BINLOG, dst, O_WRONLY | O_CREAT | O_TRUNC, 0640);
    if (out < 0) {
        rc = out;
        goto out;
    }
    uint64_t total = 0;
    uint32_t nframes = 0;
    for (;;) {
        size_t got = 0;
        if ((rc = fio_pread(FIO_BINLOG, in, pb, BINLOG_ZFRAME, -1, &got)))
            goto out;
        rc = STRATA_EIO;
        if (got == 0)
            break;
        size_t c = ZSTD_compress2(cctx, cb, cb_cap, pb, got);
        if (ZSTD_isError(c))
            goto out;
        if ((rc = write_all(out, cb, c)))
            goto out;
        rc = STRATA_EIO;
        buf_put_u32(&table, (uint32_t)c);
        buf_put_u32(&table, (uint32_t)got);
        total += c;
        nframes++;
        if (got < BINLOG_ZFRAME)
            break;
    }
    buf_t tail;
    buf_init(&tail);
    buf_put_u32(&tail, SKIPPABLE_MAGIC);
    buf_put_u32(&tail, (uint32_t)(table.len + 9));
    buf_append(&tail, table.data, table.len);
    buf_put_u32(&tail, nframes);
    buf_put_u8(&tail, 0);
    buf_put_u32(&tail, SEEKABLE_MAGIC);
    int w = write_all(out, tail.data, tail.len);
    total += tail.len;
    buf_free(&tail);
    if (w || (rc = fio_fsync(FIO_BINLOG, out)))
        goto out;
    *out_size = total;
    rc = 0;
out:
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    if (rc && out >= 0)
        unlink(dst);
    ZSTD_freeCCtx(cctx);
    buf_free(&table);
    mem_free(pb);
    mem_free(cb);
    return rc;
}

int binlog_zfile_open(int fd, binlog_zfile_t **out)
{
    *out = NULL;
    uint8_t foot[9];
    off_t sz = lseek(fd, 0, SEEK_END);
    if (sz < 17 || !pread_exact(fd, foot, 9, sz - 9) || rd32(foot + 5) != SEEKABLE_MAGIC || (foot[4] & 0x7c)) {
        close(fd);
        return STRATA_ECORRUPT;
    }
    uint32_t n = rd32(foot);
    size_t esz = (foot[4] & 0x80) ? 12 : 8;
    uint64_t tsz = (uint64_t)n * esz + 9 + 8;
    if (n > (1u << 26) || tsz > (uint64_t)sz) {
        close(fd);
        return STRATA_ECORRUPT;
    }
    uint8_t *t = mem_alloc((size_t)tsz);
    binlog_zfile_t *z = mem_calloc(1, sizeof *z);
    z->fd = fd;
    z->n = n;
    z->cached = -1;
    z->coff = mem_alloc((n + 1) * sizeof(uint64_t));
    z->poff = mem_alloc((n + 1) * sizeof(uint64_t));
    if (!pread_exact(fd, t, (size_t)tsz, sz - (off_t)tsz) || rd32(t) != SKIPPABLE_MAGIC ||
        rd32(t + 4) != tsz - 8)
        goto bad;
    z->coff[0] = z->poff[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        z->coff[i + 1] = z->coff[i] + rd32(t + 8 + esz * i);
        z->poff[i + 1] = z->poff[i] + rd32(t + 12 + esz * i);
        if (rd32(t + 12 + esz * i) > BINLOG_ZFRAME * 16u)
            goto bad;
    }
    if (z->coff[n] != (uint64_t)sz - tsz)
        goto bad;
    mem_free(t);
    z->dctx = ZSTD_createDCtx();
    *out = z;
    return 0;
bad:
    mem_free(t);
    binlog_zfile_close(z);
    return STRATA_ECORRUPT;
}

uint64_t binlog_zfile_size(binlog_zfile_t *z)
{
    return z->poff[z->n];
}

static int load_frame(binlog_zfile_t *z, uint32_t i)
{
    if (z->cached == (int64_t)i)
        return 0;
    size_t c = (size_t)(z->coff[i + 1] - z->coff[i]), p = (size_t)(z->poff[i + 1] - z->poff[i]);
    if (z->ccap < c) {
        z->ccap = c;
        z->cbuf = mem_realloc(z->cbuf, c);
    }
    if (z->pcap < p) {
        z->pcap = p;
        z->pbuf = mem_realloc(z->pbuf, p);
    }
    if (!pread_exact(z->fd, z->cbuf, c, (off_t)z->coff[i]))
        return STRATA_EIO;
    size_t d = ZSTD_decompressDCtx(z->dctx, z->pbuf, p, z->cbuf, c);
    if (ZSTD_isError(d) || d != p) {
        z->cached = -1;
        return STRATA_ECORRUPT;
    }
    z->cached = i;
    return 0;
}

ssize_t binlog_zfile_pread(binlog_zfile_t *z, void *dst, size_t n, uint64_t off)
{
    size_t done = 0;
    uint8_t *d = dst;
    while (done < n && off < z->poff[z->n]) {
        uint32_t lo = 0, hi = z->n; /* frame i with poff[i] <= off < poff[i+1] */
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (z->poff[mid] <= off)
                lo = mid;
            else
                hi = mid;
        }
        int rc = load_frame(z, lo);
        if (rc)
            return rc;
        size_t in = (size_t)(off - z->poff[lo]);
        size_t k = MIN(n - done, (size_t)(z->poff[lo + 1] - off));
        memcpy(d + done, z->pbuf + in, k);
        done += k;
        off += k;
    }
    return (ssize_t)done;
}

void binlog_zfile_close(binlog_zfile_t *z)
{
    if (!z)
        return;
    if (z->fd >= 0)
        close(z->fd);
    if (z->dctx)
        ZSTD_freeDCtx(z->dctx);
    mem_free(z->coff);
    mem_free(z->poff);
    mem_free(z->cbuf);
    mem_free(z->pbuf);
    mem_free(z);
}
