/*
 * Collation weights (collation.h): the single-byte weight tables, the UTF-8 decoder of utf8 general_ci and the
 * PAD SPACE comparison every string comparison under a collation goes through.
 */
#include <string.h>

#include "sql/value/collation.h"
#include "sql/value/value.h"

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
    case COLL_ASCII_GENERAL_CI:
        return COLL_KIND_ASCII_CI;
    case COLL_UTF8MB4_UNICODE_CI: case COLL_UTF8MB3_UNICODE_CI: case COLL_UTF8MB4_UNICODE_520_CI:
    case COLL_UTF8MB3_UNICODE_520_CI: case COLL_UTF8MB4_UCA1400_AI_CI: case COLL_UTF8MB3_UCA1400_AI_CI:
        return COLL_KIND_UCA;
    default:
        return COLL_KIND_BYTES;
    }
}

bool coll_utf8_decode(const unsigned char *s, size_t n, size_t *i, uint32_t *cp)
{
    size_t p = *i;
    unsigned char c = s[p];
    size_t l;
    uint32_t v;
    if (c < 0x80) { *cp = c; *i = p + 1; return true; }
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
    *cp = v;
    return true;
bad:
    *i = p + 1;
    return false;
}

uint32_t coll_utf8_weight_slow(const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    uint32_t cp;
    return coll_utf8_decode(s, n, i, &cp) ? coll_general_ci_weight(cp) : COLL_WEIGHT_INVALID + c;
}

/* ---------------------------------------------------------------- UCA */

const coll_uca_t *coll_uca_of(uint16_t coll)
{
    switch (coll) {
    case COLL_UTF8MB4_UNICODE_CI: case COLL_UTF8MB3_UNICODE_CI:
        return &coll_uca400;
    case COLL_UTF8MB4_UNICODE_520_CI: case COLL_UTF8MB3_UNICODE_520_CI:
        return &coll_uca520;
    case COLL_UTF8MB4_UCA1400_AI_CI: case COLL_UTF8MB3_UCA1400_AI_CI:
        return &coll_uca1400;
    default:
        return NULL;
    }
}

/* A code point's weights: their number, *w pointing at them (tmp holds a single or implicit weight pair);
 * *starter: the code point may begin a contraction. */
static uint32_t uca_lookup(const coll_uca_t *u, uint32_t cp, uint16_t tmp[2], const uint16_t **w, bool *starter)
{
    const uint32_t *page = u->pages[cp >> 8];
    if (page) {
        uint32_t e = page[cp & 0xFF];
        uint32_t n = (e >> 24) & 0x7F;
        *starter = (e >> 31) != 0;
        if (n == 1) {
            tmp[0] = (uint16_t)e;
            *w = tmp;
        } else {
            *w = u->pool + (e & 0xFFFFFF);
        }
        return n;
    }
    *starter = false;
    uint16_t base = u->bases[cp >> 8];
    *w = tmp;
    if (!base) {
        tmp[0] = 0xFFFD;
        return 1;
    }
    tmp[0] = (uint16_t)(base + (cp >> 15));
    tmp[1] = (uint16_t)((cp & 0x7FFF) | 0x8000);
    return 2;
}

/* The longest contraction that starts with cp at s[*i..n) (*i just past cp): advances *i past it. */
static const coll_uca_contr_t *uca_contraction(const coll_uca_t *u, uint32_t cp, const unsigned char *s,
                                               size_t n, size_t *i)
{
    uint32_t next[2] = {0, 0};
    size_t at[2], j = *i;
    int got = 0;
    while (got < 2 && j < n && coll_utf8_decode(s, n, &j, &next[got]))
        at[got++] = j;
    if (!got)
        return NULL;
    size_t lo = 0, hi = u->ncontr; /* the first entry with cp[0] >= cp */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u->contr[mid].cp[0] < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    const coll_uca_contr_t *best = NULL;
    for (size_t k = lo; k < u->ncontr && u->contr[k].cp[0] == cp; k++) {
        const coll_uca_contr_t *c = &u->contr[k];
        if (c->cp[1] != next[0])
            continue;
        if (!c->cp[2] && !best)
            best = c;
        else if (c->cp[2] && got == 2 && c->cp[2] == next[1]) {
            *i = at[1];
            return c;
        }
    }
    if (best)
        *i = at[0];
    return best;
}

void coll_uca_iter_init(coll_uca_iter_t *it, const coll_uca_t *u, const char *s, size_t n)
{
    it->u = u;
    it->s = (const unsigned char *)s;
    it->n = n;
    it->i = 0;
    it->w = NULL;
    it->nw = 0;
}

uint32_t coll_uca_next(coll_uca_iter_t *it)
{
    while (!it->nw) {
        if (it->i >= it->n)
            return COLL_UCA_END;
        unsigned char c = it->s[it->i];
        uint32_t cp;
        if (!coll_utf8_decode(it->s, it->n, &it->i, &cp))
            return COLL_WEIGHT_INVALID + c;
        bool starter;
        it->nw = uca_lookup(it->u, cp, it->tmp, &it->w, &starter);
        if (starter) {
            const coll_uca_contr_t *k = uca_contraction(it->u, cp, it->s, it->n, &it->i);
            if (k) {
                it->w = it->u->pool + k->off;
                it->nw = k->n;
            }
        }
    }
    it->nw--;
    return *it->w++;
}

uint32_t coll_uca_char(const coll_uca_t *u, const unsigned char *s, size_t n, size_t *i, uint32_t w[8])
{
    unsigned char c = s[*i];
    uint32_t cp;
    if (!coll_utf8_decode(s, n, i, &cp)) {
        w[0] = COLL_WEIGHT_INVALID + c;
        return 1;
    }
    uint16_t tmp[2];
    const uint16_t *ws;
    bool starter;
    uint32_t k = uca_lookup(u, cp, tmp, &ws, &starter);
    for (uint32_t j = 0; j < k; j++)
        w[j] = ws[j];
    return k;
}

/* The rest of the longer string's weights against the spaces the shorter one is padded with: the first that
 * is not a space's decides. */
static int uca_pad_rest(coll_uca_iter_t *it, uint32_t w)
{
    for (; w != COLL_UCA_END; w = coll_uca_next(it))
        if (w != it->u->space)
            return w < it->u->space ? -1 : 1;
    return 0;
}

/* Back from p to the start of the UTF-8 character it is in, in either string (their bytes before p agree). */
static size_t char_start(const unsigned char *x, size_t an, const unsigned char *y, size_t bn, size_t p)
{
    while (p > 0 && ((p < an && (x[p] & 0xC0) == 0x80) || (p < bn && (y[p] & 0xC0) == 0x80)))
        p--;
    return p;
}

int coll_uca_cmp(const coll_uca_t *u, const char *a, size_t an, const char *b, size_t bn)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    while (an && x[an - 1] == ' ')
        an--;
    while (bn && y[bn - 1] == ' ')
        bn--;
    /* equal bytes weigh alike: skip them, then back to the start of the character they end in, and in a
     * collation with contractions two characters further (a contraction is at most three) */
    size_t m = an < bn ? an : bn, p = 0;
    while (p < m && x[p] == y[p])
        p++;
    p = char_start(x, an, y, bn, p);
    for (int k = 0; u->ncontr && k < 2 && p > 0; k++)
        p = char_start(x, an, y, bn, p - 1);
    coll_uca_iter_t ix, iy;
    coll_uca_iter_init(&ix, u, a + p, an - p);
    coll_uca_iter_init(&iy, u, b + p, bn - p);
    for (;;) {
        uint32_t wx = coll_uca_next(&ix), wy = coll_uca_next(&iy);
        if (wx == COLL_UCA_END)
            return wy == COLL_UCA_END ? 0 : -uca_pad_rest(&iy, wy);
        if (wy == COLL_UCA_END)
            return uca_pad_rest(&ix, wx);
        if (wx != wy)
            return wx < wy ? -1 : 1;
    }
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

/* ---------------------------------------------------------------- coercibility */

const char *coll_deriv_name(coll_deriv_t d)
{
    static const char *const names[] = {"EXPLICIT", "NONE", "IMPLICIT", "SYSCONST", "COERCIBLE", "NUMERIC",
                                        "IGNORABLE"};
    return (unsigned)d < sizeof names / sizeof names[0] ? names[d] : "NONE";
}

static bool cs_same(uint16_t a, uint16_t b) { return strcmp(value_coll_charset(a), value_coll_charset(b)) == 0; }
static bool cs_unicode(uint16_t c) { return strncmp(value_coll_charset(c), "utf8", 4) == 0; }
static bool cs_supplement(uint16_t c) { return strcmp(value_coll_charset(c), "utf8mb4") == 0; }
static bool coll_binsort(uint16_t c) { return c == COLL_BINARY || !value_coll_is_ci(c); }

/* May r's strings be converted into l's character set without loss, given their derivations?  Unicode holds
 * everything (utf8mb4 holds utf8mb3), and an ASCII-only operand fits any character set. */
static bool left_is_superset(const coll_dt_t *l, const coll_dt_t *r)
{
    if (cs_unicode(l->coll) &&
        (l->deriv < r->deriv ||
         (l->deriv == r->deriv &&
          (!cs_unicode(r->coll) || (cs_supplement(l->coll) && !cs_supplement(r->coll))))))
        return true;
    return r->ascii && (l->deriv < r->deriv || (l->deriv == r->deriv && !l->ascii));
}

/* acc := aggregate(acc, b); false when they have no common collation (acc is then NONE). */
static bool aggregate2(coll_dt_t *acc, const coll_dt_t *b, unsigned flags)
{
    if (!acc->coll || !b->coll || !cs_same(acc->coll, b->coll)) {
        if (acc->coll == COLL_BINARY) {
            if (b->deriv < acc->deriv)
                *acc = *b;
        } else if (b->coll == COLL_BINARY) {
            if (b->deriv <= acc->deriv)
                *acc = *b;
        } else if ((flags & COLL_AGG_SUPERSET) && acc->coll && b->coll && left_is_superset(acc, b)) {
        } else if ((flags & COLL_AGG_SUPERSET) && acc->coll && b->coll && left_is_superset(b, acc)) {
            *acc = *b;
        } else if ((flags & COLL_AGG_COERCIBLE) && acc->deriv < b->deriv && b->deriv >= COLL_DERIV_SYSCONST) {
        } else if ((flags & COLL_AGG_COERCIBLE) && b->deriv < acc->deriv && acc->deriv >= COLL_DERIV_SYSCONST) {
            *acc = *b;
        } else {
            *acc = (coll_dt_t){.coll = COLL_BINARY, .deriv = COLL_DERIV_NONE, .ascii = acc->ascii && b->ascii};
            return false;
        }
        return true;
    }
    bool ascii = acc->ascii && b->ascii;
    if (b->deriv < acc->deriv) {
        *acc = *b;
    } else if (b->deriv == acc->deriv && b->coll != acc->coll) {
        if (acc->deriv == COLL_DERIV_EXPLICIT) {
            *acc = (coll_dt_t){.coll = 0, .deriv = COLL_DERIV_NONE};
            return false;
        }
        if (coll_binsort(acc->coll) && coll_binsort(b->coll))
            return false;
        if (!coll_binsort(acc->coll)) {
            if (coll_binsort(b->coll)) {
                *acc = *b;
            } else {
                int bin = value_charset_bin_coll(acc->coll); /* two _ci of one charset: its _bin, NONE */
                acc->coll = bin > 0 ? (uint16_t)bin : acc->coll;
                acc->deriv = COLL_DERIV_NONE;
            }
        }
    }
    acc->ascii = ascii;
    return true;
}

bool coll_aggregate(const coll_dt_t *dts, uint32_t n, unsigned flags, uint16_t conn_coll, coll_dt_t *out)
{
    bool unknown_cs = false;
    *out = dts[0];
    for (uint32_t i = 1; i < n; i++) {
        if (!aggregate2(out, &dts[i], flags)) {
            if (out->deriv == COLL_DERIV_NONE && out->coll == COLL_BINARY) {
                unknown_cs = true; /* an EXPLICIT collation further on may still decide */
                continue;
            }
            return false;
        }
    }
    if (unknown_cs && out->deriv != COLL_DERIV_EXPLICIT)
        return false;
    if ((flags & COLL_AGG_DISALLOW_NONE) && out->deriv == COLL_DERIV_NONE)
        return false;
    if ((flags & COLL_AGG_NUMERIC) && out->deriv == COLL_DERIV_NUMERIC)
        *out = (coll_dt_t){.coll = conn_coll ? conn_coll : COLL_DEFAULT, .deriv = COLL_DERIV_COERCIBLE, .ascii = true};
    return true;
}
