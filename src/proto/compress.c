/*
 * The MySQL compressed protocol (frame format drawn in compress.h).
 *
 * Why this is cheap where MySQL 5.6 was not (seed 000, "SHOW WARNINGS can stall your MySQL server if compressed
 * protocol is used"): MySQL called compress2() per frame, which sets up and tears down a whole deflate state
 * (about 270 KB at level 6: window, hash chains, pending buffer) for every answer, plus a malloc'd copy of the
 * packet; with 30 threads flooding short answers that was mostly mmap/munmap and page faults in the kernel.  Here:
 *   - one deflate / inflate (or ZSTD_CCtx / ZSTD_DCtx) per connection and direction, made on first need and
 *     reset per frame (deflateReset clears the hash heads only; zstd sizes its tables to the slice);
 *   - deflate is set up with a small window and hash (PCOMP_ZLIB_WBITS, PCOMP_ZLIB_MEMLEVEL), so the state is
 *     ~ 1/4 of zlib's default and the per-frame reset clears 8 KB, not 64 KB;
 *   - compression writes straight into the caller's output buffer and gives up as soon as the output would not be
 *     smaller than the input (then the slice goes raw); decompression writes straight into the caller's buffer;
 *   - every allocation the libraries make goes through pcomp_alloc, which counts bytes and calls, so the footprint
 *     is measured, not guessed, and a test can check that steady state allocates nothing.
 */
#include <string.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, ZSTD_create?Ctx_advanced */
#include <zlib.h>
#include <zstd.h>

#include "proto/compress.h"

/* zlib deflate shape.  The receiver's inflate handles any window up to 32 KB, so a smaller one is compatible:
 * 4 KB (wbits 12) and 4 KB of hash heads (memlevel 5) keep the state near 40 KB.  Result sets with repetitions
 * further apart than 4 KB compress a little less; the frames this protocol carries are mostly far smaller. */
#define PCOMP_ZLIB_WBITS 12
#define PCOMP_ZLIB_MEMLEVEL 5
/* zstd: cap the window (and so the tables derived from it) for large slices; small slices shrink it anyway. */
#define PCOMP_ZSTD_WINDOW_LOG 17

/* ---- counted allocation for the compressors ---- */

#define PCOMP_ALLOC_HDR 16

static void *pcomp_alloc(void *opaque, size_t n)
{
    pcomp_t *pc = opaque;
    uint8_t *p = mem_alloc(n + PCOMP_ALLOC_HDR);
    memcpy(p, &n, sizeof n);
    pc->ctx_bytes += n;
    pc->ctx_allocs++;
    return p + PCOMP_ALLOC_HDR;
}

static void pcomp_dealloc(void *opaque, void *addr)
{
    pcomp_t *pc = opaque;
    if (!addr)
        return;
    uint8_t *p = (uint8_t *)addr - PCOMP_ALLOC_HDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    pc->ctx_bytes -= n;
    mem_free(p);
}

static voidpf pcomp_zalloc(voidpf opaque, uInt items, uInt size)
{
    return pcomp_alloc(opaque, (size_t)items * size);
}

static void pcomp_zfree(voidpf opaque, voidpf addr) { pcomp_dealloc(opaque, addr); }

static ZSTD_customMem pcomp_zstd_mem(pcomp_t *pc)
{
    ZSTD_customMem m = {pcomp_alloc, pcomp_dealloc, pc};
    return m;
}

/* ---- life cycle ---- */

void pcomp_init(pcomp_t *pc, pcomp_algo_t algo, int level)
{
    memset(pc, 0, sizeof *pc);
    pc->algo = algo;
    pc->max_slice = PCOMP_MAX_SLICE;
    if (algo == PCOMP_ZLIB) {
        pc->level = level <= 0 ? PCOMP_ZLIB_LEVEL_DEFAULT : MIN(level, 9);
    } else if (algo == PCOMP_ZSTD) {
        pc->level = level <= 0 ? PCOMP_ZSTD_LEVEL_DEFAULT : MIN(level, PCOMP_ZSTD_LEVEL_MAX);
    }
}

void pcomp_free(pcomp_t *pc)
{
    if (pc->algo == PCOMP_ZLIB) {
        if (pc->enc) {
            deflateEnd(pc->enc);
            pcomp_dealloc(pc, pc->enc);
        }
        if (pc->dec) {
            inflateEnd(pc->dec);
            pcomp_dealloc(pc, pc->dec);
        }
    } else if (pc->algo == PCOMP_ZSTD) {
        ZSTD_freeCCtx(pc->enc);
        ZSTD_freeDCtx(pc->dec);
    }
    ASSERT(pc->ctx_bytes == 0);
    memset(pc, 0, sizeof *pc);
}

void pcomp_set_max_slice(pcomp_t *pc, size_t max_slice) { pc->max_slice = MIN(max_slice, (size_t)PCOMP_MAX_SLICE); }

size_t pcomp_mem_bytes(const pcomp_t *pc) { return pc->ctx_bytes; }

static z_stream *pcomp_zstream_new(pcomp_t *pc)
{
    z_stream *z = pcomp_alloc(pc, sizeof *z);
    memset(z, 0, sizeof *z);
    z->zalloc = pcomp_zalloc;
    z->zfree = pcomp_zfree;
    z->opaque = pc;
    return z;
}

static int pcomp_enc_open(pcomp_t *pc)
{
    if (pc->algo == PCOMP_ZLIB) {
        z_stream *z = pcomp_zstream_new(pc);
        if (deflateInit2(z, pc->level, Z_DEFLATED, PCOMP_ZLIB_WBITS, PCOMP_ZLIB_MEMLEVEL, Z_DEFAULT_STRATEGY) !=
            Z_OK) {
            pcomp_dealloc(pc, z);
            return STRATA_ENOMEM;
        }
        pc->enc = z;
    } else {
        ZSTD_CCtx *c = ZSTD_createCCtx_advanced(pcomp_zstd_mem(pc));
        if (!c)
            return STRATA_ENOMEM;
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, pc->level);
        ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, PCOMP_ZSTD_WINDOW_LOG);
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
        ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
        pc->enc = c;
    }
    return 0;
}

static int pcomp_dec_open(pcomp_t *pc)
{
    if (pc->algo == PCOMP_ZLIB) {
        z_stream *z = pcomp_zstream_new(pc);
        if (inflateInit(z) != Z_OK) { /* 32 KB window: accepts whatever the peer's deflate used */
            pcomp_dealloc(pc, z);
            return STRATA_ENOMEM;
        }
        pc->dec = z;
    } else {
        ZSTD_DCtx *d = ZSTD_createDCtx_advanced(pcomp_zstd_mem(pc));
        if (!d)
            return STRATA_ENOMEM;
        pc->dec = d;
    }
    return 0;
}

/* ---- compressing ---- */

static inline void wr_u24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
}

static inline uint32_t rd_u24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }

/* Compresses src into dst (capacity cap).  Returns the compressed size if it is smaller than n, else 0
 * (the caller sends the slice raw). */
static size_t pcomp_compress(pcomp_t *pc, uint8_t *dst, size_t cap, const uint8_t *src, size_t n)
{
    if (!pc->enc && pcomp_enc_open(pc) != 0)
        return 0;
    if (pc->algo == PCOMP_ZLIB) {
        z_stream *z = pc->enc;
        deflateReset(z);
        z->next_in = (Bytef *)src;
        z->avail_in = (uInt)n;
        z->next_out = dst;
        z->avail_out = (uInt)(n - 1); /* only a smaller result is worth having */
        int rc = deflate(z, Z_FINISH);
        return rc == Z_STREAM_END ? (size_t)z->total_out : 0;
    }
    size_t r = ZSTD_compress2(pc->enc, dst, cap, src, n);
    if (ZSTD_isError(r) || r >= n)
        return 0;
    return r;
}

int pcomp_wrap(pcomp_t *pc, const uint8_t *in, size_t len, uint8_t *cseq, buf_t *out)
{
    while (len > 0) {
        size_t n = MIN(len, (size_t)PCOMP_MAX_SLICE);
        size_t cap = n;
        if (pc->algo == PCOMP_ZSTD && n >= PCOMP_MIN_LENGTH)
            cap = ZSTD_compressBound(n); /* zstd's one-pass path wants the bound */
        buf_reserve(out, PCOMP_HEADER_SIZE + cap);
        uint8_t *h = out->data + out->len;
        size_t c = 0;
        if (n >= PCOMP_MIN_LENGTH && pc->algo != PCOMP_NONE)
            c = pcomp_compress(pc, h + PCOMP_HEADER_SIZE, cap, in, n);
        if (c) {
            wr_u24(h, (uint32_t)c);
            wr_u24(h + 4, (uint32_t)n);
        } else {
            memcpy(h + PCOMP_HEADER_SIZE, in, n);
            wr_u24(h, (uint32_t)n);
            wr_u24(h + 4, 0);
            c = n;
            pc->frames_out_raw++;
        }
        h[3] = (*cseq)++;
        out->len += PCOMP_HEADER_SIZE + c;
        pc->frames_out++;
        pc->bytes_out_plain += n;
        pc->bytes_out_wire += PCOMP_HEADER_SIZE + c;
        in += n;
        len -= n;
    }
    return 0;
}

/* ---- decompressing ---- */

/* Decompresses src[0..clen) into dst, which must come out exactly ulen bytes long. */
static int pcomp_decompress(pcomp_t *pc, uint8_t *dst, size_t ulen, const uint8_t *src, size_t clen)
{
    int rc = 0;
    if (!pc->dec && (rc = pcomp_dec_open(pc)) != 0)
        return rc;
    if (pc->algo == PCOMP_ZLIB) {
        z_stream *z = pc->dec;
        inflateReset(z);
        z->next_in = (Bytef *)src;
        z->avail_in = (uInt)clen;
        z->next_out = dst;
        z->avail_out = (uInt)ulen;
        /* One call with Z_FINISH: the whole output fits, so inflate needs no window of its own. */
        int zr = inflate(z, Z_FINISH);
        if (zr != Z_STREAM_END || z->avail_out != 0 || z->avail_in != 0)
            return STRATA_EPROTO;
        return 0;
    }
    size_t r = ZSTD_decompressDCtx(pc->dec, dst, ulen, src, clen);
    if (ZSTD_isError(r) || r != ulen)
        return STRATA_EPROTO;
    return 0;
}

int pcomp_unwrap(pcomp_t *pc, const uint8_t *in, size_t len, size_t *consumed, uint8_t *cseq, buf_t *out)
{
    size_t pos = 0;
    int frames = 0, rc = 0;

    while (len - pos >= PCOMP_HEADER_SIZE) {
        if (frames && out->len >= pc->max_slice)
            break; /* let the caller drain the inner packets first */
        const uint8_t *h = in + pos;
        size_t clen = rd_u24(h), ulen = rd_u24(h + 4);
        if (h[3] != *cseq) {
            rc = STRATA_EPROTO;
            goto done;
        }
        if ((ulen ? ulen : clen) > pc->max_slice) {
            rc = STRATA_ETOOBIG;
            goto done;
        }
        if (len - pos - PCOMP_HEADER_SIZE < clen)
            break;
        if (ulen == 0) {
            buf_append(out, h + PCOMP_HEADER_SIZE, clen);
        } else {
            if (clen == 0 || pc->algo == PCOMP_NONE) {
                rc = STRATA_EPROTO;
                goto done;
            }
            buf_reserve(out, ulen);
            if ((rc = pcomp_decompress(pc, out->data + out->len, ulen, h + PCOMP_HEADER_SIZE, clen)) != 0)
                goto done;
            out->len += ulen;
        }
        pos += PCOMP_HEADER_SIZE + clen;
        (*cseq)++;
        frames++;
        pc->frames_in++;
        pc->bytes_in_plain += ulen ? ulen : clen;
        pc->bytes_in_wire += PCOMP_HEADER_SIZE + clen;
    }
    if (!frames)
        rc = STRATA_EAGAIN;
done:
    *consumed = pos;
    return rc;
}
