/*
 * Collation weights (collation.h): the single-byte weight tables, the UTF-8 decoder of utf8 general_ci and the
 * PAD SPACE comparison every string comparison under a collation goes through.
 */
#include <string.h>

#include "sql/collation.h"
#include "sql/value.h"

#define ROW16(b) b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13, \
                 b + 14, b + 15
#define ID64(b) ROW16(b), ROW16(b + 16), ROW16(b + 32), ROW16(b + 48)

const uint8_t coll_bytes_weights[256] = {ID64(0), ID64(64), ID64(128), ID64(192)};

const uint8_t coll_ascii_ci_weights[256] = {
    ID64(0), ROW16(0x40), ROW16(0x50),
    0x60, ROW16(0x41), 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, /* ` a..z */
    0x7B, 0x7C, 0x7D, 0x7E, 0x7F,
    ID64(128), ID64(192),
};

coll_kind_t coll_kind_of(uint16_t coll)
{
    switch (coll) {
    case COLL_UTF8MB4_GENERAL_CI: case COLL_UTF8MB3_GENERAL_CI:
        return COLL_KIND_UTF8_GENERAL;
    case COLL_LATIN1_SWEDISH_CI:
        return COLL_KIND_LATIN1_CI;
    case COLL_UTF8MB4_UNICODE_CI: case COLL_ASCII_GENERAL_CI:
        return COLL_KIND_ASCII_CI;
    default:
        return COLL_KIND_BYTES;
    }
}

uint32_t coll_utf8_weight_slow(const unsigned char *s, size_t n, size_t *i)
{
    size_t p = *i;
    unsigned char c = s[p];
    size_t l;
    uint32_t v;
    if (c >= 0xC2 && c < 0xE0) { l = 2; v = c & 0x1F; }
    else if (c >= 0xE0 && c < 0xF0) { l = 3; v = c & 0x0F; }
    else if (c >= 0xF0 && c < 0xF5) { l = 4; v = c & 0x07; }
    else goto bad;
    if (l > n - p)
        goto bad;
    for (size_t k = 1; k < l; k++) {
        if ((s[p + k] & 0xC0) != 0x80)
            goto bad;
        v = (v << 6) | (s[p + k] & 0x3F);
    }
    if ((l == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (l == 4 && (v < 0x10000 || v > 0x10FFFF)))
        goto bad;
    *i = p + l;
    return coll_general_ci_weight(v);
bad:
    *i = p + 1;
    return COLL_WEIGHT_INVALID + c;
}

/* The rest of the longer string, from i, against the spaces the shorter one is padded with: its first weight
 * other than a space's decides (there is one: trailing spaces were dropped). */
static int pad_rest(coll_kind_t k, const uint8_t *bw, const unsigned char *s, size_t n, size_t i)
{
    while (i < n) {
        uint32_t w = coll_weight_next(k, bw, s, n, &i);
        if (w != COLL_WEIGHT_SPACE)
            return w < COLL_WEIGHT_SPACE ? -1 : 1;
    }
    return 0;
}

int coll_cmp(coll_kind_t k, const char *a, size_t an, const char *b, size_t bn)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    /* ' ' is one byte and the only character that weighs as a space in every collation here */
    while (an && x[an - 1] == ' ')
        an--;
    while (bn && y[bn - 1] == ' ')
        bn--;
    size_t i = 0, j = 0;
    if (k == COLL_KIND_BYTES) {
        size_t m = an < bn ? an : bn;
        int r = m ? memcmp(x, y, m) : 0;
        if (r)
            return r < 0 ? -1 : 1;
        i = j = m;
    } else {
        /* equal bytes weigh alike: skip them, 8 at a time, then back to the start of the character they end in
         * (a UTF-8 character may differ only in its last byte) */
        size_t m = an < bn ? an : bn, p = 0;
        while (p + 8 <= m) {
            uint64_t u, v;
            memcpy(&u, x + p, 8);
            memcpy(&v, y + p, 8);
            if (u != v)
                break;
            p += 8;
        }
        while (p < m && x[p] == y[p])
            p++;
        if (k == COLL_KIND_UTF8_GENERAL)
            while (p > 0 && ((p < an && (x[p] & 0xC0) == 0x80) || (p < bn && (y[p] & 0xC0) == 0x80)))
                p--;
        i = j = p;
        const uint8_t *bw = coll_byte_weights(k);
        while (i < an && j < bn) {
            uint32_t wx, wy;
            if (((x[i] | y[j]) & 0x80) == 0 || k != COLL_KIND_UTF8_GENERAL) {
                wx = bw[x[i++]];
                wy = bw[y[j++]];
            } else {
                wx = coll_weight_next(k, bw, x, an, &i);
                wy = coll_weight_next(k, bw, y, bn, &j);
            }
            if (wx != wy)
                return wx < wy ? -1 : 1;
        }
    }
    if (i < an)
        return pad_rest(k, coll_byte_weights(k), x, an, i);
    if (j < bn)
        return -pad_rest(k, coll_byte_weights(k), y, bn, j);
    return 0;
}
