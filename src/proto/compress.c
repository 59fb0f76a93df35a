/*
 * The MySQL compressed protocol (frame format drawn in compress.h).
 *
 * Why this is cheap where MySQL 5.6 was not (the "SHOW WARNINGS can stall your MySQL server if compressed
 * protocol is used"): MySQL called compress2() per frame, which sets up and tears down a whole deflate state
 * (about 270 KB at level 6: window, hash chains, pending buffer) for every answer, plus a malloc'd copy of the
 * packet; with 30 threads flooding short answers that was mostly mmap/munmap and page faults in the kernel.  Here:
 *   - one deflate / inflate (or ZSTD_CCtx / ZSTD_DCtx) per connection and direction, made on first need and
 *     reset per frame (deflateReset clears the hash heads only; zstd sizes its tables to the slice);
 *   - deflate is set up with a small window and hash (PCOMP_ZLIB_WBITS, PCOMP_ZLIB_MEMLEVEL), so the state is
 *     ~ 1/4 of zlib's default and the per-frame reset clears 8 KB, not 64 KB;
 *   - compression writes straight into the caller's output buffer and gives up as soon as the output would not be
 *     smaller than the input (then the slice goes raw); decompression writes straight into the caller's buffer;
 *   - zlib slices up to PCOMP_FAST_MAX bytes (every short answer: OK packets, SHOW WARNINGS, small result sets)
 *     are not given to zlib at all but to a small encoder of our own below: greedy LZ77 over a 1K-entry hash and
 *     deflate's fixed Huffman codes, in a standard zlib stream that any inflate reads.  For a few hundred bytes
 *     zlib spends most of its time building and weighing dynamic Huffman trees that it then throws away (a
 *     small block is cheaper with the fixed codes, which is what it picks); the small encoder produces about the
 *     same size in a fraction of the time (figures in docs/protocol-compression.md);
 *   - every allocation the libraries make goes through pcomp_alloc, which counts bytes and calls, so the footprint
 *     is measured, not guessed, and a test can check that steady state allocates nothing.
 */
#include <pthread.h>
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
/* zstd: cap the window (64 KB, which also caps the block size and its buffers) and the hash and chain tables
 * (16K entries each) for large slices, so a client asking for a high level cannot make a connection hold
 * megabytes; small slices shrink all of these anyway (zstd sizes them to the input). */
#define PCOMP_ZSTD_WINDOW_LOG 16
#define PCOMP_ZSTD_TABLE_LOG 14
#define PCOMP_ZSTD_SMALL (16u * 1024) /* slices up to this use parameters sized to the slice */


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

pcomp_algo_t pcomp_negotiate(uint32_t server_caps, uint32_t client_caps)
{
    uint32_t both = server_caps & client_caps;
    if (both & PCOMP_CLIENT_COMPRESS)
        return PCOMP_ZLIB;
    if (both & PCOMP_CLIENT_ZSTD)
        return PCOMP_ZSTD;
    return PCOMP_NONE;
}

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
    pcomp_dealloc(pc, pc->fast);
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
        ZSTD_compressionParameters cp = ZSTD_getCParams(pc->level, 0, 0);
        ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, MIN((int)cp.windowLog, PCOMP_ZSTD_WINDOW_LOG));
        ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, MIN((int)cp.hashLog, PCOMP_ZSTD_TABLE_LOG));
        ZSTD_CCtx_setParameter(c, ZSTD_c_chainLog, MIN((int)cp.chainLog, PCOMP_ZSTD_TABLE_LOG));
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

/* ---- the small-slice deflate encoder (zlib format, one fixed-Huffman block) ----
 *
 *   zlib stream:  78 01 | deflate block: BFINAL=1, BTYPE=01 (fixed codes), symbols..., 256 (end) | pad to byte |
 *                 Adler-32 of the slice, big-endian (RFC 1950, RFC 1951 section 3.2.6)
 * Greedy matching: at each position the last position with the same 3-byte hash is the only candidate; the
 * positions inside a match are hashed too, so repeated rows find each other.  Slices are at most
 * PCOMP_FAST_MAX bytes, so positions fit in 16 bits and distances stay far below deflate's 32 KB. */

#define PCOMP_FAST_HASH_BITS 10

typedef struct {
    uint16_t lit_code[288]; /* fixed literal/length codes, bit-reversed for the LSB-first stream */
    uint8_t lit_bits[288];
    uint8_t dist_code[30];
    uint8_t len_sym[259];   /* match length 3..258 -> symbol index 0..28 */
    uint8_t dist_sym[PCOMP_FAST_MAX + 1];
} pcomp_fixed_t;

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static pcomp_fixed_t pcomp_fixed;
static pthread_once_t pcomp_fixed_once = PTHREAD_ONCE_INIT;

static uint32_t bit_reverse(uint32_t v, unsigned n)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < n; i++, v >>= 1)
        r = r << 1 | (v & 1);
    return r;
}

static void pcomp_fixed_build(void)
{
    pcomp_fixed_t *f = &pcomp_fixed;
    for (unsigned v = 0; v < 288; v++) {
        uint32_t code;
        unsigned bits;
        if (v < 144)
            code = 0x30 + v, bits = 8;
        else if (v < 256)
            code = 0x190 + (v - 144), bits = 9;
        else if (v < 280)
            code = v - 256, bits = 7;
        else
            code = 0xc0 + (v - 280), bits = 8;
        f->lit_code[v] = (uint16_t)bit_reverse(code, bits);
        f->lit_bits[v] = (uint8_t)bits;
    }
    for (unsigned d = 0; d < 30; d++)
        f->dist_code[d] = (uint8_t)bit_reverse(d, 5);
    for (unsigned s = 0, l = 3; l <= 258; l++) {
        while (s < 28 && l >= len_base[s + 1])
            s++;
        f->len_sym[l] = (uint8_t)s;
    }
    for (unsigned s = 0, d = 1; d <= PCOMP_FAST_MAX; d++) {
        while (s < 29 && d >= dist_base[s + 1])
            s++;
        f->dist_sym[d] = (uint8_t)s;
    }
}

typedef struct {
    uint8_t *p, *end;
    uint64_t bits;
    unsigned nbits;
    bool full;
} bitw_t;

static inline void bitw_put(bitw_t *w, uint32_t v, unsigned n)
{
    w->bits |= (uint64_t)v << w->nbits;
    w->nbits += n;
    while (w->nbits >= 8) {
        if (w->p == w->end) {
            w->full = true;
            w->nbits = 0;
            return;
        }
        *w->p++ = (uint8_t)w->bits;
        w->bits >>= 8;
        w->nbits -= 8;
    }
}

static inline uint32_t hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return (v * 2654435761u) >> (32 - PCOMP_FAST_HASH_BITS);
}

/* Compresses n <= PCOMP_FAST_MAX bytes into at most cap bytes; returns the size, or 0 if it does not fit. */
static size_t pcomp_deflate_small(uint16_t *head, uint8_t *dst, size_t cap, const uint8_t *src, size_t n)
{
    const pcomp_fixed_t *f = &pcomp_fixed;
    if (cap < 2 + 1 + 4)
        return 0;
    dst[0] = 0x78; /* CM 8 (deflate), CINFO 7; FLG 0x01 makes the pair a multiple of 31, no dictionary */
    dst[1] = 0x01;
    bitw_t w = {dst + 2, dst + cap - 4, 0, 0, false};
    bitw_put(&w, 1 | 1 << 1, 3); /* BFINAL, BTYPE = 01 */
    memset(head, 0, sizeof(uint16_t) << PCOMP_FAST_HASH_BITS);
    size_t i = 0;
    while (i < n && !w.full) {
        size_t len = 0, dist = 0;
        if (n - i >= 3) {
            uint32_t h = hash3(src + i);
            size_t cand = head[h];
            head[h] = (uint16_t)(i + 1);
            if (cand--) {
                const uint8_t *a = src + cand, *b = src + i;
                size_t max = MIN((size_t)258, n - i), l = 0;
                while (l < max && a[l] == b[l])
                    l++;
                if (l >= 3)
                    len = l, dist = i - cand;
            }
        }
        if (!len) {
            bitw_put(&w, f->lit_code[src[i]], f->lit_bits[src[i]]);
            i++;
            continue;
        }
        unsigned ls = f->len_sym[len], ds = f->dist_sym[dist];
        bitw_put(&w, f->lit_code[257 + ls], f->lit_bits[257 + ls]);
        if (len_extra[ls])
            bitw_put(&w, (uint32_t)(len - len_base[ls]), len_extra[ls]);
        bitw_put(&w, f->dist_code[ds], 5);
        if (dist_extra[ds])
            bitw_put(&w, (uint32_t)(dist - dist_base[ds]), dist_extra[ds]);
        for (size_t j = i + 1; j < i + len && n - j >= 3; j++)
            head[hash3(src + j)] = (uint16_t)(j + 1);
        i += len;
    }
    bitw_put(&w, f->lit_code[256], f->lit_bits[256]);
    if (w.nbits)
        bitw_put(&w, 0, 8 - w.nbits); /* pad the last byte */
    if (w.full)
        return 0;
    uint32_t a = (uint32_t)adler32(1, src, (uInt)n);
    w.p[0] = (uint8_t)(a >> 24), w.p[1] = (uint8_t)(a >> 16), w.p[2] = (uint8_t)(a >> 8), w.p[3] = (uint8_t)a;
    return (size_t)(w.p + 4 - dst);
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
    if (pc->algo == PCOMP_ZLIB && n <= PCOMP_FAST_MAX) {
        if (!pc->fast) {
            pthread_once(&pcomp_fixed_once, pcomp_fixed_build);
            pc->fast = pcomp_alloc(pc, sizeof(uint16_t) << PCOMP_FAST_HASH_BITS);
        }
        return pcomp_deflate_small(pc->fast, dst, n - 1, src, n);
    }
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
    /* Small answers (a SHOW WARNINGS result is a few hundred bytes): the one-shot API sizes the match tables to
     * the input, so the per-frame reset touches a few KiB instead of the capped tables the sticky parameters
     * give (128 KiB cleared per frame measured 2x slower than no compression).  It uses its own parameter set,
     * leaving the sticky ones for large slices. */
    size_t r = n <= PCOMP_ZSTD_SMALL ? ZSTD_compressCCtx(pc->enc, dst, cap, src, n, pc->level)
                                     : ZSTD_compress2(pc->enc, dst, cap, src, n);
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
        if (n >= (pc->algo == PCOMP_ZSTD ? PCOMP_ZSTD_MIN_LENGTH : PCOMP_MIN_LENGTH) && pc->algo != PCOMP_NONE)
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
