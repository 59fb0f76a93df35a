/*
 * Tests for proto/compress: byte-exact raw frames built by hand from the spec, compressed frames decoded by the
 * reference libraries (zlib's uncompress, ZSTD_decompress), frames built the way MySQL builds them (compress2,
 * ZSTD_compress) and a frame captured from a real MariaDB 10.11 server decoded by pcomp_unwrap; round trips of
 * payload sizes 0, 49/50/51, 0xffffff, 2*0xffffff and random ones; sequence errors; the max_slice limit; truncated
 * headers; corrupt compressed data; lazy allocation and no allocation in steady state; for zlib and zstd.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "proto/compress.h"
#include "proto/packet.h"
#include "unit.h"

static const pcomp_algo_t algos[] = {PCOMP_ZLIB, PCOMP_ZSTD};

/* Captured with a logging proxy between `mariadb --compress` and mariadbd 10.11.19: the server's answer to
 * SHOW WARNINGS after an INSERT IGNORE with three out-of-range values.  Compressed id 1, 301 bytes of inner
 * packets (column count, 3 column definitions, EOF, 3 rows, EOF; inner ids 1..9), zlib level 6. */
static const uint8_t mariadb_show_warnings_frame[] = {
    0xa6, 0x00, 0x00, 0x01, 0x2d, 0x01, 0x00, 0x78, 0x9c, 0x9d, 0x8e, 0xbd, 0x0a, 0xc2, 0x40, 0x10, 0x84, 0x27, 0xb9,
    0xc4, 0x28, 0xd8, 0x5a, 0x29, 0xb2, 0x56, 0x01, 0xbb, 0x44, 0x11, 0x3b, 0x0b, 0x5b, 0xc5, 0xd2, 0xfa, 0x48, 0x36,
    0x41, 0x88, 0x77, 0x70, 0xf9, 0xf1, 0x79, 0x7c, 0x50, 0xc5, 0x25, 0xc4, 0x17, 0x08, 0x2c, 0x0b, 0x3b, 0xc3, 0x37,
    0x3b, 0x3e, 0xe0, 0x29, 0x6f, 0x05, 0xf8, 0x2a, 0xe7, 0x02, 0x40, 0x78, 0xe1, 0x8e, 0x2b, 0x60, 0xbe, 0xc1, 0x42,
    0xce, 0x8f, 0x87, 0x18, 0x58, 0x02, 0x6a, 0xf0, 0x83, 0xb3, 0xcd, 0x59, 0xec, 0x13, 0x02, 0xb9, 0xd4, 0x5b, 0x16,
    0xd6, 0x22, 0x0f, 0x76, 0x74, 0xe5, 0xba, 0xd6, 0x25, 0xf7, 0x01, 0x98, 0xfc, 0x03, 0x42, 0x99, 0xaf, 0x3c, 0xc1,
    0x51, 0xc4, 0xe8, 0xae, 0x9d, 0x79, 0x98, 0x32, 0x48, 0xd2, 0xc3, 0x7e, 0x7b, 0x6b, 0x1b, 0xb2, 0x05, 0x39, 0x6d,
    0x4a, 0xa6, 0x4e, 0x57, 0x2d, 0x53, 0x61, 0x1d, 0x65, 0xb6, 0x6a, 0x9f, 0x86, 0x62, 0x1d, 0x93, 0x6e, 0xc8, 0xd9,
    0x17, 0x25, 0xc2, 0x46, 0x23, 0xd9, 0x54, 0xd8, 0xe9, 0x48, 0x76, 0x27, 0xe5, 0x67, 0x7d, 0xf9, 0x1f, 0x3e, 0x6a,
    0x47, 0x01};

/* Test data: compressible = a text line repeated with a random byte now and then (like rows of a result set);
 * else noise. */
static uint8_t *fill(size_t n, unsigned seed, int compressible)
{
    uint8_t *p = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 7;
    static const char words[] = "Warning 1264 Out of range value for column 'a' at row ";
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = compressible && (x >> 24) > 8 ? (uint8_t)words[i % (sizeof words - 1)] : (uint8_t)(x >> 16);
    }
    return p;
}

static uint32_t u24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }

/* Appends a frame as MySQL's net_real_write makes it: compress2 at level 6 (zlib) or ZSTD_compress (zstd). */
static void mysql_style_frame(buf_t *out, pcomp_algo_t algo, const uint8_t *in, size_t n, uint8_t cseq)
{
    size_t cap = algo == PCOMP_ZLIB ? compressBound(n) : ZSTD_compressBound(n);
    uint8_t *c = malloc(cap);
    size_t clen = cap;
    if (algo == PCOMP_ZLIB) {
        uLongf l = cap;
        ASSERT(compress2(c, &l, in, n, 6) == Z_OK);
        clen = l;
    } else {
        clen = ZSTD_compress(c, cap, in, n, 3);
        ASSERT(!ZSTD_isError(clen));
    }
    buf_put_u24(out, (uint32_t)clen);
    buf_put_u8(out, cseq);
    buf_put_u24(out, (uint32_t)n);
    buf_append(out, c, clen);
    free(c);
}

TEST(test_raw_frame_exact)
{
    /* COM_QUERY "SHOW WARNINGS": 14-byte payload, 18 bytes framed, under 50: one raw frame. */
    static const uint8_t want[] = {0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x03,
                                   'S',  'H',  'O',  'W',  ' ',  'W',  'A',  'R',  'N',  'I',  'N',  'G',  'S'};
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        pcomp_t pc;
        pcomp_init(&pc, algos[a], 0);
        buf_t inner, out;
        buf_init(&inner);
        buf_init(&out);
        uint8_t seq = 0, cseq = 0;
        packet_write(&inner, (const uint8_t *)"\x03SHOW WARNINGS", 14, &seq);
        CHECK_EQ_INT(pcomp_wrap(&pc, inner.data, inner.len, &cseq, &out), 0);
        REQUIRE(out.len == sizeof want);
        CHECK(memcmp(out.data, want, sizeof want) == 0);
        CHECK_EQ_INT(cseq, 1);
        CHECK_EQ_INT(pcomp_mem_bytes(&pc), 0); /* nothing compressed, nothing allocated */
        CHECK(pc.enc == NULL && pc.dec == NULL);
        /* 49 bytes: raw; 50 bytes of incompressible data: raw too (would grow). */
        uint8_t *r = fill(50, 1, 0);
        buf_reset(&out);
        pcomp_wrap(&pc, r, 49, &cseq, &out);
        CHECK_EQ_INT(out.len, 7 + 49);
        CHECK(memcmp(out.data, "\x31\x00\x00\x01\x00\x00\x00", 7) == 0);
        CHECK(memcmp(out.data + 7, r, 49) == 0);
        buf_reset(&out);
        pcomp_wrap(&pc, r, 50, &cseq, &out);
        CHECK_EQ_INT(out.len, 7 + 50);
        CHECK(memcmp(out.data, "\x32\x00\x00\x02\x00\x00\x00", 7) == 0);
        CHECK(memcmp(out.data + 7, r, 50) == 0);
        free(r);
        /* Empty input: no frame. */
        buf_reset(&out);
        pcomp_wrap(&pc, NULL, 0, &cseq, &out);
        CHECK_EQ_INT(out.len, 0);
        CHECK_EQ_INT(cseq, 3);
        buf_free(&inner);
        buf_free(&out);
        pcomp_free(&pc);
    }
}

TEST(test_compressed_frame_decodes_with_reference)
{
    size_t sizes[] = {50, 51, 300, 4096, 100000};
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
            size_t n = sizes[i];
            uint8_t *p = fill(n, (unsigned)n, 1);
            for (size_t k = 0; k < 64 && k < n; k++) /* so that even 50 bytes shrink */
                p[k] = (uint8_t)"abcd"[k % 4];
            pcomp_t pc;
            pcomp_init(&pc, algos[a], 0);
            buf_t out;
            buf_init(&out);
            uint8_t cseq = 5;
            pcomp_wrap(&pc, p, n, &cseq, &out);
            REQUIRE(out.len > 7);
            uint32_t clen = u24(out.data), ulen = u24(out.data + 4);
            if (algos[a] == PCOMP_ZSTD && n < PCOMP_ZSTD_MIN_LENGTH) { /* not worth zstd's per-frame cost */
                CHECK_EQ_INT(ulen, 0);
                CHECK_EQ_INT(clen, n);
                CHECK(memcmp(out.data + 7, p, n) == 0);
                pcomp_free(&pc);
                buf_free(&out);
                free(p);
                continue;
            }
            CHECK_EQ_INT(clen, out.len - 7);
            CHECK_EQ_INT(out.data[3], 5);
            CHECK_EQ_INT(ulen, n); /* compressible: really compressed */
            CHECK(clen < n);
            uint8_t *back = malloc(n);
            if (algos[a] == PCOMP_ZLIB) {
                uLongf bl = n;
                CHECK_EQ_INT(uncompress(back, &bl, out.data + 7, clen), Z_OK);
                CHECK_EQ_INT(bl, n);
            } else {
                CHECK_EQ_INT(ZSTD_getFrameContentSize(out.data + 7, clen), n);
                CHECK_EQ_INT(ZSTD_decompress(back, n, out.data + 7, clen), n);
            }
            CHECK(memcmp(back, p, n) == 0);
            free(back);
            free(p);
            buf_free(&out);
            pcomp_free(&pc);
        }
    }
}

TEST(test_mysql_style_frames_unwrap)
{
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        buf_t wire, out;
        buf_init(&wire);
        buf_init(&out);
        uint8_t *p = fill(5000, 3, 1);
        mysql_style_frame(&wire, algos[a], p, 5000, 0);
        mysql_style_frame(&wire, algos[a], p, 60, 1);
        /* and a raw one */
        buf_put_u24(&wire, 10);
        buf_put_u8(&wire, 2);
        buf_put_u24(&wire, 0);
        buf_append(&wire, "0123456789", 10);
        pcomp_t pc;
        pcomp_init(&pc, algos[a], 0);
        uint8_t cseq = 0;
        size_t used;
        CHECK_EQ_INT(pcomp_unwrap(&pc, wire.data, wire.len, &used, &cseq, &out), 0);
        CHECK_EQ_INT(used, wire.len);
        CHECK_EQ_INT(cseq, 3);
        REQUIRE(out.len == 5070);
        CHECK(memcmp(out.data, p, 5000) == 0);
        CHECK(memcmp(out.data + 5000, p, 60) == 0);
        CHECK(memcmp(out.data + 5060, "0123456789", 10) == 0);
        free(p);
        buf_free(&wire);
        buf_free(&out);
        pcomp_free(&pc);
    }
}

TEST(test_real_mariadb_frame)
{
    pcomp_t pc;
    pcomp_init(&pc, PCOMP_ZLIB, 0);
    buf_t out, pl;
    buf_init(&out);
    buf_init(&pl);
    uint8_t cseq = 1;
    size_t used;
    REQUIRE(pcomp_unwrap(&pc, mariadb_show_warnings_frame, sizeof mariadb_show_warnings_frame, &used, &cseq, &out) ==
            0);
    CHECK_EQ_INT(used, sizeof mariadb_show_warnings_frame);
    CHECK_EQ_INT(out.len, 301);
    CHECK_EQ_INT(cseq, 2);
    /* The inner stream: 9 packets with ids 1..9; column count 3; the rows carry "Warning", "1264". */
    uint8_t seq = 1;
    size_t off = 0;
    int packets = 0;
    while (off < out.len) {
        REQUIRE(packet_read(out.data + off, out.len - off, 1 << 20, &seq, &pl, &used) == 0);
        if (packets == 0)
            CHECK(pl.len >= 1 && pl.data[0] == 3); /* MariaDB adds a metadata-follows byte */
        if (packets == 5) {
            pcur_t c;
            pcur_init(&c, pl.data, pl.len);
            size_t n;
            const uint8_t *s = pcur_get_lenenc_str(&c, &n);
            CHECK(n == 7 && memcmp(s, "Warning", 7) == 0);
            s = pcur_get_lenenc_str(&c, &n);
            CHECK(n == 4 && memcmp(s, "1264", 4) == 0);
            s = pcur_get_lenenc_str(&c, &n);
            CHECK(n > 10 && memcmp(s, "Out of range", 12) == 0);
            CHECK(pcur_ok(&c) && pcur_left(&c) == 0);
        }
        off += used;
        packets++;
    }
    CHECK_EQ_INT(packets, 9);
    CHECK_EQ_INT(seq, 10);
    /* Our own frame for the same 301 bytes decodes with zlib's uncompress, and is not bigger than MariaDB's. */
    buf_t re;
    buf_init(&re);
    uint8_t cs = 1;
    pcomp_wrap(&pc, out.data, out.len, &cs, &re);
    CHECK_EQ_INT(u24(re.data + 4), 301);
    printf("SHOW WARNINGS answer (301 B): MariaDB zlib-6 frame %zu B, strata zlib-%d frame %zu B\n",
           sizeof mariadb_show_warnings_frame, pc.level, re.len);
    uint8_t back[301];
    uLongf bl = sizeof back;
    CHECK_EQ_INT(uncompress(back, &bl, re.data + 7, re.len - 7), Z_OK);
    CHECK(bl == 301 && memcmp(back, out.data, 301) == 0);
    buf_free(&re);
    buf_free(&out);
    buf_free(&pl);
    pcomp_free(&pc);
}

/* Frames a payload, wraps the packet stream, unwraps it (fed in two parts) and reads the payload back. */
static void roundtrip(pcomp_algo_t algo, size_t n, int compressible)
{
    uint8_t *p = fill(n, (unsigned)n + 11, compressible);
    buf_t inner, wire, back, pl;
    buf_init(&inner);
    buf_init(&wire);
    buf_init(&back);
    buf_init(&pl);
    uint8_t seq = 0, cseq = 0;
    packet_write(&inner, p, n, &seq);
    pcomp_t pc, pr;
    pcomp_init(&pc, algo, 0);
    pcomp_init(&pr, algo, 0);
    pcomp_wrap(&pc, inner.data, inner.len, &cseq, &wire);
    size_t frames = (inner.len + PCOMP_MAX_SLICE - 1) / PCOMP_MAX_SLICE;
    CHECK_EQ_INT(cseq, frames);
    CHECK_EQ_INT(pc.frames_out, frames);

    uint8_t rseq = 0;
    size_t used, split = wire.len / 2, total = 0;
    int rc = pcomp_unwrap(&pr, wire.data, split, &used, &rseq, &back);
    CHECK(rc == 0 || rc == STRATA_EAGAIN);
    total = used;
    while (total < wire.len) {
        rc = pcomp_unwrap(&pr, wire.data + total, wire.len - total, &used, &rseq, &back);
        REQUIRE(rc == 0);
        total += used;
    }
    CHECK_EQ_INT(rseq, frames);
    CHECK_EQ_INT(back.len, inner.len);
    CHECK(memcmp(back.data, inner.data, inner.len) == 0);
    uint8_t s = 0;
    REQUIRE(packet_read_any_seq(back.data, back.len, SIZE_MAX, &s, &pl, &used) == 0);
    CHECK_EQ_INT(pl.len, n);
    CHECK(n == 0 || memcmp(pl.data, p, n) == 0);
    if (compressible && n >= 1000)
        CHECK(wire.len < inner.len / 2);
    if (!compressible)
        CHECK(wire.len <= inner.len + 7 * frames);
    free(p);
    buf_free(&inner);
    buf_free(&wire);
    buf_free(&back);
    buf_free(&pl);
    pcomp_free(&pc);
    pcomp_free(&pr);
}

TEST(test_roundtrip_sizes)
{
    size_t sizes[] = {0, 1, 45, 46, 47, 49, 50, 51, 300, 16384, 65536, 1000000};
    for (size_t a = 0; a < ARRAY_LEN(algos); a++)
        for (size_t i = 0; i < ARRAY_LEN(sizes); i++)
            for (int c = 0; c < 2; c++)
                roundtrip(algos[a], sizes[i], c);
}

TEST(test_roundtrip_random)
{
    srand(4242);
    for (size_t a = 0; a < ARRAY_LEN(algos); a++)
        for (int i = 0; i < 30; i++)
            roundtrip(algos[a], (size_t)rand() % 200000, rand() & 1);
}

TEST(test_roundtrip_big)
{
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        roundtrip(algos[a], PCOMP_MAX_SLICE - 4, 1); /* framed: exactly one full slice */
        roundtrip(algos[a], PACKET_MAX_PIECE, 1);
        roundtrip(algos[a], 2 * (size_t)PACKET_MAX_PIECE, 1);
    }
    roundtrip(PCOMP_ZLIB, PACKET_MAX_PIECE, 0);
}

TEST(test_truncated_and_sequence)
{
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        pcomp_t pc;
        pcomp_init(&pc, algos[a], 0);
        buf_t wire, out;
        buf_init(&wire);
        buf_init(&out);
        uint8_t *p = fill(1000, 9, 1);
        uint8_t cseq = 0;
        pcomp_wrap(&pc, p, 1000, &cseq, &wire);
        pcomp_wrap(&pc, p, 20, &cseq, &wire);
        size_t first = 7 + u24(wire.data);
        /* Every strict prefix of the first frame: need more, nothing consumed, id untouched. */
        for (size_t cut = 0; cut < first; cut += (cut < 10 ? 1 : 37)) {
            uint8_t rs = 0;
            size_t used = 99;
            buf_reset(&out);
            CHECK_EQ_INT(pcomp_unwrap(&pc, wire.data, cut, &used, &rs, &out), STRATA_EAGAIN);
            CHECK_EQ_INT(used, 0);
            CHECK_EQ_INT(rs, 0);
            CHECK_EQ_INT(out.len, 0);
        }
        /* The first frame plus part of the second: takes one frame. */
        uint8_t rs = 0;
        size_t used;
        buf_reset(&out);
        CHECK_EQ_INT(pcomp_unwrap(&pc, wire.data, first + 3, &used, &rs, &out), 0);
        CHECK_EQ_INT(used, first);
        CHECK_EQ_INT(rs, 1);
        CHECK_EQ_INT(out.len, 1000);
        /* Wrong compressed id: refused on the header. */
        rs = 1;
        CHECK_EQ_INT(pcomp_unwrap(&pc, wire.data, 7, &used, &rs, &out), STRATA_EPROTO);
        CHECK_EQ_INT(used, 0);
        /* Second frame out of order after a good first: the first is delivered, the error reported. */
        wire.data[first + 3] = 7;
        rs = 0;
        buf_reset(&out);
        CHECK_EQ_INT(pcomp_unwrap(&pc, wire.data, wire.len, &used, &rs, &out), STRATA_EPROTO);
        CHECK_EQ_INT(used, first);
        CHECK_EQ_INT(out.len, 1000);
        free(p);
        buf_free(&wire);
        buf_free(&out);
        pcomp_free(&pc);
    }
}

TEST(test_max_slice)
{
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        pcomp_t pc, pr;
        pcomp_init(&pc, algos[a], 0);
        pcomp_init(&pr, algos[a], 0);
        pcomp_set_max_slice(&pr, 1000);
        buf_t wire, out;
        buf_init(&wire);
        buf_init(&out);
        uint8_t *p = fill(4000, 5, 1);
        uint8_t cseq = 0, rs = 0;
        size_t used;
        pcomp_wrap(&pc, p, 1001, &cseq, &wire); /* compressed, announces 1001 */
        CHECK_EQ_INT(pcomp_unwrap(&pr, wire.data, 7, &used, &rs, &out), STRATA_ETOOBIG); /* header is enough */
        buf_reset(&wire);
        cseq = 0;
        buf_put_u24(&wire, 1001); /* a raw frame of 1001 bytes */
        buf_put_u8(&wire, 0);
        buf_put_u24(&wire, 0);
        CHECK_EQ_INT(pcomp_unwrap(&pr, wire.data, wire.len, &used, &rs, &out), STRATA_ETOOBIG);
        /* Exactly 1000 is fine. */
        buf_reset(&wire);
        cseq = 0;
        pcomp_wrap(&pc, p, 1000, &cseq, &wire);
        CHECK_EQ_INT(pcomp_unwrap(&pr, wire.data, wire.len, &used, &rs, &out), 0);
        /* A burst of frames stops once out holds max_slice bytes; the rest stays for the next call. */
        buf_reset(&wire);
        buf_reset(&out);
        cseq = 0;
        for (int i = 0; i < 8; i++)
            pcomp_wrap(&pc, p, 400, &cseq, &wire);
        rs = 0;
        CHECK_EQ_INT(pcomp_unwrap(&pr, wire.data, wire.len, &used, &rs, &out), 0);
        CHECK_EQ_INT(out.len, 1200);
        CHECK_EQ_INT(rs, 3);
        size_t total = used;
        buf_reset(&out);
        CHECK_EQ_INT(pcomp_unwrap(&pr, wire.data + total, wire.len - total, &used, &rs, &out), 0);
        CHECK_EQ_INT(out.len, 1200);
        free(p);
        buf_free(&wire);
        buf_free(&out);
        pcomp_free(&pc);
        pcomp_free(&pr);
    }
}

/* Builds a compressed frame for p[0..n) then lets `mutate` damage it; unwrap must say EPROTO. */
static void expect_eproto(pcomp_algo_t algo, const char *what, void (*mutate)(buf_t *))
{
    pcomp_t pc;
    pcomp_init(&pc, algo, 0);
    buf_t wire, out;
    buf_init(&wire);
    buf_init(&out);
    uint8_t *p = fill(3000, 77, 1);
    mysql_style_frame(&wire, algo, p, 3000, 0);
    mutate(&wire);
    uint8_t rs = 0;
    size_t used;
    int rc = pcomp_unwrap(&pc, wire.data, wire.len, &used, &rs, &out);
    if (rc != STRATA_EPROTO)
        fprintf(stderr, "algo %d, %s: rc %d\n", algo, what, rc);
    CHECK_EQ_INT(rc, STRATA_EPROTO);
    CHECK_EQ_INT(used, 0);
    free(p);
    buf_free(&wire);
    buf_free(&out);
    pcomp_free(&pc);
}

static void m_ulen_plus(buf_t *w) { w->data[4]++; }
static void m_ulen_minus(buf_t *w) { w->data[4]--; }
static void set_u24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16); }
static void m_truncate(buf_t *w)
{
    w->len -= 5;
    set_u24(w->data, u24(w->data) - 5); /* consistent frame length, stream cut short */
}
static void m_garbage(buf_t *w)
{
    for (size_t i = 7; i < w->len; i++)
        w->data[i] = (uint8_t)(i * 131 + 7);
}
static void m_trailing(buf_t *w)
{
    buf_append(w, "junk", 4);
    set_u24(w->data, u24(w->data) + 4);
}
static void m_empty_compressed(buf_t *w)
{
    w->len = 7;
    w->data[0] = w->data[1] = w->data[2] = 0;
}
static void m_magic(buf_t *w) { w->data[7] ^= 0xff; }

TEST(test_corrupt)
{
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        expect_eproto(algos[a], "ulen+1", m_ulen_plus);
        expect_eproto(algos[a], "ulen-1", m_ulen_minus);
        expect_eproto(algos[a], "truncated", m_truncate);
        expect_eproto(algos[a], "garbage", m_garbage);
        expect_eproto(algos[a], "empty compressed", m_empty_compressed);
        expect_eproto(algos[a], "magic", m_magic);
        expect_eproto(algos[a], "trailing", m_trailing); /* zstd: junk is not a further frame either */
    }
    /* A compressed frame on a connection without compression. */
    pcomp_t off;
    memset(&off, 0, sizeof off);
    pcomp_set_max_slice(&off, PCOMP_MAX_SLICE);
    buf_t wire, out;
    buf_init(&wire);
    buf_init(&out);
    uint8_t *p = fill(100, 1, 1);
    mysql_style_frame(&wire, PCOMP_ZLIB, p, 100, 0);
    uint8_t rs = 0;
    size_t used;
    CHECK_EQ_INT(pcomp_unwrap(&off, wire.data, wire.len, &used, &rs, &out), STRATA_EPROTO);
    free(p);
    buf_free(&wire);
    buf_free(&out);
    pcomp_free(&off);
}

TEST(test_memory_lazy_and_steady)
{
    for (size_t a = 0; a < ARRAY_LEN(algos); a++) {
        pcomp_t pc;
        pcomp_init(&pc, algos[a], 0);
        CHECK_EQ_INT(pcomp_mem_bytes(&pc), 0);
        buf_t wire, out;
        buf_init(&wire);
        buf_init(&out);
        /* a small answer, but one each algorithm compresses (zstd only from PCOMP_ZSTD_MIN_LENGTH) */
        size_t small = algos[a] == PCOMP_ZSTD ? 600 : 300;
        uint8_t *p = fill(small, 2, 1);
        uint8_t cs = 0, rs = 0;
        size_t used;
        /* Warm up: both directions, small and a 1 MB slice, so the contexts reach their working size. */
        uint8_t *big = fill(1 << 20, 3, 1);
        pcomp_wrap(&pc, big, 1 << 20, &cs, &wire);
        pcomp_unwrap(&pc, wire.data, wire.len, &used, &rs, &out);
        size_t after_big = pcomp_mem_bytes(&pc);
        for (int i = 0; i < 200; i++) {
            buf_reset(&wire);
            buf_reset(&out);
            pcomp_wrap(&pc, p, small, &cs, &wire);
            pcomp_unwrap(&pc, wire.data, wire.len, &used, &rs, &out);
        }
        uint64_t allocs = pc.ctx_allocs;
        int64_t mem = mem_used();
        for (int i = 0; i < 2000; i++) {
            buf_reset(&wire);
            buf_reset(&out);
            CHECK_EQ_INT(pcomp_wrap(&pc, p, small, &cs, &wire), 0);
            CHECK_EQ_INT(pcomp_unwrap(&pc, wire.data, wire.len, &used, &rs, &out), 0);
            CHECK_EQ_INT(u24(wire.data + 4), small);
        }
        CHECK_EQ_INT(pc.ctx_allocs, allocs); /* no allocation per packet */
        CHECK_EQ_INT(mem_used(), mem);
        printf("%s: context memory (compressor + decompressor) %zu B after a 1 MiB slice each way, %zu B in steady "
               "state of 300 B answers\n", algos[a] == PCOMP_ZLIB ? "zlib" : "zstd", after_big, pcomp_mem_bytes(&pc));
        CHECK(pcomp_mem_bytes(&pc) < (algos[a] == PCOMP_ZLIB ? 64 * 1024 : 512 * 1024));
        pcomp_free(&pc);
        CHECK_EQ_INT(pcomp_mem_bytes(&pc), 0);
        free(p);
        free(big);
        buf_free(&wire);
        buf_free(&out);
    }
}

TEST(test_levels)
{
    CHECK_EQ_INT(pcomp_negotiate(PCOMP_CLIENT_COMPRESS | PCOMP_CLIENT_ZSTD, PCOMP_CLIENT_COMPRESS | PCOMP_CLIENT_ZSTD),
                 PCOMP_ZLIB);
    CHECK_EQ_INT(pcomp_negotiate(PCOMP_CLIENT_COMPRESS | PCOMP_CLIENT_ZSTD, PCOMP_CLIENT_ZSTD), PCOMP_ZSTD);
    CHECK_EQ_INT(pcomp_negotiate(PCOMP_CLIENT_ZSTD, PCOMP_CLIENT_COMPRESS), PCOMP_NONE);
    CHECK_EQ_INT(pcomp_negotiate(0xffffffffu & ~(PCOMP_CLIENT_COMPRESS | PCOMP_CLIENT_ZSTD), 0xffffffffu), PCOMP_NONE);
    pcomp_t pc;
    pcomp_init(&pc, PCOMP_ZSTD, 0);
    CHECK_EQ_INT(pc.level, PCOMP_ZSTD_LEVEL_DEFAULT);
    pcomp_free(&pc);
    pcomp_init(&pc, PCOMP_ZSTD, 22);
    CHECK_EQ_INT(pc.level, PCOMP_ZSTD_LEVEL_MAX);
    pcomp_free(&pc);
    pcomp_init(&pc, PCOMP_ZLIB, 9);
    CHECK_EQ_INT(pc.level, 9);
    /* Any level makes frames the reference decoder reads. */
    uint8_t *p = fill(10000, 4, 1);
    buf_t w;
    buf_init(&w);
    uint8_t cs = 0;
    pcomp_wrap(&pc, p, 10000, &cs, &w);
    uint8_t *back = malloc(10000);
    uLongf bl = 10000;
    CHECK_EQ_INT(uncompress(back, &bl, w.data + 7, w.len - 7), Z_OK);
    CHECK(bl == 10000 && memcmp(back, p, 10000) == 0);
    free(back);
    free(p);
    buf_free(&w);
    pcomp_free(&pc);
}

/* The small-slice encoder against zlib's own inflate: many sizes up to PCOMP_FAST_MAX (and just above), with
 * data from noise to long repeats, including matches at the maximum length and overlapping ones. */
TEST(test_fast_encoder_random)
{
    srand(99);
    pcomp_t pc;
    pcomp_init(&pc, PCOMP_ZLIB, 0);
    buf_t w;
    buf_init(&w);
    uint8_t *p = malloc(PCOMP_FAST_MAX + 100), *back = malloc(PCOMP_FAST_MAX + 100);
    int compressed = 0;
    for (int it = 0; it < 3000; it++) {
        size_t n = PCOMP_MIN_LENGTH + (size_t)rand() % (PCOMP_FAST_MAX + 60 - PCOMP_MIN_LENGTH);
        int kind = rand() % 5, alpha = 1 + rand() % 40;
        for (size_t i = 0; i < n; i++) {
            switch (kind) {
            case 0: p[i] = (uint8_t)rand(); break;                       /* noise */
            case 1: p[i] = (uint8_t)('a' + rand() % alpha); break;         /* small alphabet */
            case 2: p[i] = i < 7 ? (uint8_t)rand() : p[i - 7]; break;      /* period 7: overlapping matches */
            case 3: p[i] = 'x'; break;                                     /* one long run: 258-byte matches */
            default: p[i] = i >= 300 && rand() % 8 ? p[i - 300 + rand() % 3] : (uint8_t)rand(); break;
            }
        }
        buf_reset(&w);
        uint8_t cs = 0;
        pcomp_wrap(&pc, p, n, &cs, &w);
        uint32_t clen = u24(w.data), ulen = u24(w.data + 4);
        REQUIRE(clen == w.len - 7);
        if (ulen == 0) {
            CHECK(clen == n && memcmp(w.data + 7, p, n) == 0);
            continue;
        }
        compressed++;
        CHECK_EQ_INT(ulen, n);
        CHECK(clen < n);
        uLongf bl = n;
        int zr = uncompress(back, &bl, w.data + 7, clen);
        CHECK_EQ_INT(zr, Z_OK);
        CHECK(bl == n && memcmp(back, p, n) == 0);
        if (zr != Z_OK || bl != n) {
            fprintf(stderr, "fast encoder: kind %d n %zu\n", kind, n);
            break;
        }
    }
    CHECK(compressed > 1500);
    pcomp_free(&pc);
    /* A connection that only ever sends short answers holds just the encoder's 2 KB of hash heads. */
    pcomp_init(&pc, PCOMP_ZLIB, 0);
    for (size_t n = 50; n <= PCOMP_FAST_MAX; n += 50) {
        uint8_t cs = 0;
        memset(p, 'q', n);
        buf_reset(&w);
        pcomp_wrap(&pc, p, n, &cs, &w);
        CHECK_EQ_INT(u24(w.data + 4), n);
    }
    CHECK(pc.enc == NULL);
    CHECK_EQ_INT(pcomp_mem_bytes(&pc), 2048);
    free(p);
    free(back);
    buf_free(&w);
    pcomp_free(&pc);
}

UNIT_MAIN(test_raw_frame_exact, test_fast_encoder_random, test_compressed_frame_decodes_with_reference, test_mysql_style_frames_unwrap,
          test_real_mariadb_frame, test_roundtrip_sizes, test_roundtrip_random, test_roundtrip_big,
          test_truncated_and_sequence, test_max_slice, test_corrupt, test_memory_lazy_and_steady, test_levels)
