/*
 * Tests for proto/packet: framing round trips at the 0xffffff boundaries, sequence checks, max_allowed refusal
 * before the payload arrives, truncated input at every length, byte-exact headers, and the payload cursor.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/packet.h"
#include "unit.h"

static uint8_t *pattern(size_t n, unsigned seed)
{
    uint8_t *p = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
    return p;
}

/* Writes a payload, checks the framing, reads it back (also fed in two parts at every piece boundary). */
static void roundtrip(size_t n, uint8_t seq0)
{
    uint8_t *p = pattern(n, (unsigned)n);
    buf_t w, r;
    buf_init(&w);
    buf_init(&r);
    uint8_t seq = seq0;
    packet_write(&w, p, n, &seq);
    size_t pieces = n / PACKET_MAX_PIECE + 1;
    CHECK_EQ_INT(w.len, n + 4 * pieces);
    CHECK_EQ_INT(seq, (uint8_t)(seq0 + pieces));

    uint8_t rs = seq0;
    size_t used = 0;
    int rc = packet_read(w.data, w.len, n, &rs, &r, &used); /* exactly max_allowed is allowed */
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(used, w.len);
    CHECK_EQ_INT(r.len, n);
    CHECK(n == 0 || memcmp(r.data, p, n) == 0);
    CHECK_EQ_INT(rs, seq);

    /* Any strict prefix is "need more", with nothing changed. */
    size_t cuts[] = {0, 1, 3, 4, 5, w.len / 2, w.len - 1};
    for (size_t i = 0; i < ARRAY_LEN(cuts); i++) {
        if (cuts[i] >= w.len)
            continue;
        rs = seq0;
        rc = packet_read(w.data, cuts[i], n + 10, &rs, &r, &used);
        CHECK_EQ_INT(rc, STRATA_EAGAIN);
        CHECK_EQ_INT(rs, seq0);
        CHECK_EQ_INT(used, 0);
    }
    /* One byte less allowed: refused, and on the first header already when the payload has pieces. */
    if (n > 0) {
        rs = seq0;
        rc = packet_read(w.data, n >= PACKET_MAX_PIECE ? 4 : w.len, n - 1, &rs, &r, &used);
        if (n >= PACKET_MAX_PIECE && n - 1 >= PACKET_MAX_PIECE)
            CHECK_EQ_INT(rc, STRATA_EAGAIN); /* the first piece alone still fits; needs the next header */
        else
            CHECK_EQ_INT(rc, STRATA_ETOOBIG);
        rc = packet_read(w.data, w.len, n - 1, &rs, &r, &used);
        CHECK_EQ_INT(rc, STRATA_ETOOBIG);
        CHECK_EQ_INT(rs, seq0);
    }
    /* packet_begin/packet_end produce the same bytes. */
    buf_t b;
    buf_init(&b);
    buf_append(&b, "xy", 2);
    size_t start = packet_begin(&b);
    buf_append(&b, p, n);
    uint8_t s2 = seq0;
    packet_end(&b, start, &s2);
    CHECK_EQ_INT(b.len, 2 + w.len);
    CHECK(memcmp(b.data + 2, w.data, w.len) == 0);
    CHECK_EQ_INT(s2, seq);
    buf_free(&b);
    buf_free(&w);
    buf_free(&r);
    free(p);
}

TEST(test_roundtrip_small)
{
    size_t sizes[] = {0, 1, 2, 49, 50, 51, 250, 251, 252, 1000, 65535, 65536, 100000};
    for (size_t i = 0; i < ARRAY_LEN(sizes); i++)
        roundtrip(sizes[i], (uint8_t)(i * 37));
}

TEST(test_roundtrip_random)
{
    srand(12345);
    for (int i = 0; i < 50; i++)
        roundtrip((size_t)rand() % 300000, (uint8_t)rand());
}

TEST(test_roundtrip_big)
{
    roundtrip(PACKET_MAX_PIECE - 1, 0);
    roundtrip(PACKET_MAX_PIECE, 255); /* two pieces: full + empty, ids wrap 255 -> 0 */
    roundtrip(PACKET_MAX_PIECE + 1, 3);
    roundtrip(2 * (size_t)PACKET_MAX_PIECE, 0); /* three pieces, the last empty */
    roundtrip(2 * (size_t)PACKET_MAX_PIECE + 100, 9);
}

TEST(test_exact_bytes)
{
    /* COM_QUERY "SELECT 1", sequence 0, from the protocol docs. */
    static const uint8_t want[] = {0x09, 0x00, 0x00, 0x00, 0x03, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1'};
    buf_t w;
    buf_init(&w);
    uint8_t seq = 0;
    packet_write(&w, (const uint8_t *)"\x03SELECT 1", 9, &seq);
    REQUIRE(w.len == sizeof want);
    CHECK(memcmp(w.data, want, sizeof want) == 0);
    CHECK_EQ_INT(seq, 1);
    /* An empty payload is a bare header. */
    buf_reset(&w);
    seq = 7;
    packet_write(&w, NULL, 0, &seq);
    REQUIRE(w.len == 4);
    CHECK(memcmp(w.data, "\x00\x00\x00\x07", 4) == 0);
    /* A full piece: header ff ff ff, then an empty piece with the next id. */
    uint8_t *big = pattern(PACKET_MAX_PIECE, 1);
    buf_reset(&w);
    seq = 0;
    packet_write(&w, big, PACKET_MAX_PIECE, &seq);
    REQUIRE(w.len == PACKET_MAX_PIECE + 8);
    CHECK(memcmp(w.data, "\xff\xff\xff\x00", 4) == 0);
    CHECK(memcmp(w.data + 4 + PACKET_MAX_PIECE, "\x00\x00\x00\x01", 4) == 0);
    free(big);
    buf_free(&w);
}

TEST(test_two_packets_in_a_row)
{
    buf_t w, r;
    buf_init(&w);
    buf_init(&r);
    uint8_t seq = 0;
    packet_write(&w, (const uint8_t *)"hello", 5, &seq);
    packet_write(&w, (const uint8_t *)"world!", 6, &seq);
    uint8_t rs = 0;
    size_t used;
    REQUIRE(packet_read(w.data, w.len, 100, &rs, &r, &used) == 0);
    CHECK_EQ_INT(used, 9);
    CHECK(r.len == 5 && memcmp(r.data, "hello", 5) == 0);
    REQUIRE(packet_read(w.data + used, w.len - used, 100, &rs, &r, &used) == 0);
    CHECK(r.len == 6 && memcmp(r.data, "world!", 6) == 0);
    CHECK_EQ_INT(rs, 2);
    buf_free(&w);
    buf_free(&r);
}

TEST(test_sequence_errors)
{
    buf_t w, r;
    buf_init(&w);
    buf_init(&r);
    uint8_t seq = 5;
    packet_write(&w, (const uint8_t *)"abc", 3, &seq);
    uint8_t rs = 4;
    size_t used = 99;
    CHECK_EQ_INT(packet_read(w.data, w.len, 100, &rs, &r, &used), STRATA_EPROTO);
    CHECK_EQ_INT(rs, 4);
    CHECK_EQ_INT(used, 0);
    /* The header alone is enough to see it. */
    CHECK_EQ_INT(packet_read(w.data, 4, 100, &rs, &r, &used), STRATA_EPROTO);
    /* any_seq adopts the first id. */
    rs = 0;
    CHECK_EQ_INT(packet_read_any_seq(w.data, w.len, 100, &rs, &r, &used), 0);
    CHECK_EQ_INT(rs, 6);

    /* A multi-piece payload whose second piece has the wrong id: caught at the second header. */
    uint8_t *big = pattern(PACKET_MAX_PIECE + 10, 2);
    buf_reset(&w);
    seq = 0;
    packet_write(&w, big, PACKET_MAX_PIECE + 10, &seq);
    w.data[4 + PACKET_MAX_PIECE + 3] = 7;
    rs = 0;
    CHECK_EQ_INT(packet_read(w.data, 4 + PACKET_MAX_PIECE + 4, SIZE_MAX, &rs, &r, &used), STRATA_EPROTO);
    rs = 0;
    CHECK_EQ_INT(packet_read_any_seq(w.data, w.len, SIZE_MAX, &rs, &r, &used), STRATA_EPROTO);
    free(big);
    buf_free(&w);
    buf_free(&r);
}

TEST(test_too_big_on_header)
{
    /* A header announcing 1 MB with max_allowed 1000: refused with only the header in hand. */
    uint8_t h[4] = {0x00, 0x00, 0x10, 0x00};
    buf_t r;
    buf_init(&r);
    uint8_t rs = 0;
    size_t used;
    CHECK_EQ_INT(packet_read(h, 4, 1000, &rs, &r, &used), STRATA_ETOOBIG);
    CHECK_EQ_INT(packet_read(h, 3, 1000, &rs, &r, &used), STRATA_EAGAIN);
    uint32_t n;
    uint8_t s;
    CHECK_EQ_INT(packet_peek_header(h, 4, &n, &s), 0);
    CHECK_EQ_INT(n, 0x100000);
    CHECK_EQ_INT(packet_peek_header(h, 2, &n, &s), STRATA_EAGAIN);
    buf_free(&r);
}

TEST(test_cursor_ints)
{
    static const uint8_t d[] = {0x01, 0x34, 0x12, 0x56, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
                                0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
    pcur_t c;
    pcur_init(&c, d, sizeof d);
    CHECK_EQ_INT(pcur_get_u8(&c), 1);
    CHECK_EQ_INT(pcur_get_u16(&c), 0x1234);
    CHECK_EQ_INT(pcur_get_u24(&c), 0x123456);
    CHECK_EQ_INT(pcur_get_u32(&c), 0x12345678);
    CHECK(pcur_get_u64(&c) == 0x0102030405060708ull);
    CHECK(pcur_ok(&c));
    CHECK_EQ_INT(pcur_left(&c), 0);
    CHECK_EQ_INT(pcur_get_u8(&c), 0); /* past the end: 0 and error */
    CHECK(!pcur_ok(&c));
    /* A u32 with only 3 bytes left fails and does not move. */
    pcur_init(&c, d, 3);
    CHECK_EQ_INT(pcur_get_u32(&c), 0);
    CHECK(!pcur_ok(&c));
    CHECK_EQ_INT(pcur_left(&c), 0);
    /* u48 */
    pcur_init(&c, d + 4, 6);
    CHECK(pcur_get_u48(&c) == 0x123456781234ull);
    CHECK(pcur_ok(&c));
}

TEST(test_cursor_lenenc)
{
    buf_t b;
    buf_init(&b);
    uint64_t vals[] = {0, 250, 251, 0xffff, 0x10000, 0xffffff, 0x1000000, 0xfffffffffull, UINT64_MAX};
    for (size_t i = 0; i < ARRAY_LEN(vals); i++)
        buf_put_lenenc_int(&b, vals[i]);
    buf_put_lenenc_str(&b, "hello", 5);
    buf_put_lenenc_str(&b, "", 0);
    buf_append(&b, "abc\0def", 8);
    buf_put_u8(&b, 0xfb);
    buf_append(&b, "tail", 4);
    pcur_t c;
    pcur_init(&c, b.data, b.len);
    for (size_t i = 0; i < ARRAY_LEN(vals); i++)
        CHECK(pcur_get_lenenc(&c) == vals[i]);
    size_t n;
    const uint8_t *s = pcur_get_lenenc_str(&c, &n);
    CHECK(n == 5 && memcmp(s, "hello", 5) == 0);
    s = pcur_get_lenenc_str(&c, &n);
    CHECK_EQ_INT(n, 0);
    const char *z = pcur_get_cstr(&c, &n);
    CHECK(n == 3 && strcmp(z, "abc") == 0);
    z = pcur_get_cstr(&c, &n);
    CHECK(n == 3 && strcmp(z, "def") == 0);
    bool is_null;
    CHECK_EQ_INT(pcur_get_lenenc_null(&c, &is_null), 0);
    CHECK(is_null);
    s = pcur_get_rest(&c, &n);
    CHECK(n == 4 && memcmp(s, "tail", 4) == 0);
    CHECK(pcur_ok(&c));
    CHECK_EQ_INT(pcur_left(&c), 0);
    s = pcur_get_rest(&c, &n);
    CHECK_EQ_INT(n, 0);
    CHECK(pcur_ok(&c));
    buf_free(&b);
}

TEST(test_cursor_malformed)
{
    pcur_t c;
    size_t n;
    /* 0xfb and 0xff are not integers. */
    pcur_init(&c, (const uint8_t *)"\xfb", 1);
    pcur_get_lenenc(&c);
    CHECK(!pcur_ok(&c));
    pcur_init(&c, (const uint8_t *)"\xff", 1);
    pcur_get_lenenc(&c);
    CHECK(!pcur_ok(&c));
    /* Truncated 0xfe: 8 bytes promised, 3 there. */
    pcur_init(&c, (const uint8_t *)"\xfe\x01\x02\x03", 4);
    CHECK(pcur_get_lenenc(&c) == 0 && !pcur_ok(&c));
    /* A string longer than what is left. */
    pcur_init(&c, (const uint8_t *)"\x05" "abc", 4);
    const uint8_t *s = pcur_get_lenenc_str(&c, &n);
    CHECK(!pcur_ok(&c) && n == 0 && s != NULL);
    /* A huge lenenc length must not wrap the pointer. */
    pcur_init(&c, (const uint8_t *)"\xfe\xff\xff\xff\xff\xff\xff\xff\xff" "ab", 11);
    s = pcur_get_lenenc_str(&c, &n);
    CHECK(!pcur_ok(&c) && n == 0);
    /* A string with no NUL. */
    pcur_init(&c, (const uint8_t *)"abc", 3);
    const char *z = pcur_get_cstr(&c, &n);
    CHECK(!pcur_ok(&c) && n == 0 && z[0] == 0);
    /* Once failed, stays failed even where bytes remain. */
    pcur_init(&c, (const uint8_t *)"abcdef", 6);
    pcur_get_bytes(&c, 7);
    CHECK(!pcur_ok(&c));
    CHECK_EQ_INT(pcur_get_u8(&c), 0);
    pcur_skip(&c, 1);
    CHECK(!pcur_ok(&c));
    /* Empty / NULL payload. */
    pcur_init(&c, NULL, 0);
    s = pcur_get_rest(&c, &n);
    CHECK(n == 0 && pcur_ok(&c));
    pcur_get_bytes(&c, 0);
    CHECK(pcur_ok(&c));
    pcur_get_cstr(&c, &n);
    CHECK(!pcur_ok(&c));
}

UNIT_MAIN(test_roundtrip_small, test_roundtrip_random, test_roundtrip_big, test_exact_bytes, test_two_packets_in_a_row,
          test_sequence_errors, test_too_big_on_header, test_cursor_ints, test_cursor_lenenc, test_cursor_malformed)
