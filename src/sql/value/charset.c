/*
 * Character set conversion between the character sets strata knows: utf8mb4 / utf8mb3 (UTF-8), latin1 (MySQL's
 * latin1 is Windows-1252: 0x80..0x9F are €, ‚, ƒ ...), ascii, and binary (bytes, never converted).
 * Used when storing a string into a column of another character set (sql_value_store) and for sending
 * latin1 data to a utf8mb4 client.
 */
#include <string.h>

#include "sql/value/value.h"
#include "sql/value/store.h"
#include "util/diag.h"

/* cp1252 0x80..0x9F -> Unicode (MySQL maps the 5 undefined bytes to the C1 controls) */
static const uint16_t cp1252_hi[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
    0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
    0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

typedef enum { CS_BINARY, CS_UTF8, CS_LATIN1, CS_ASCII } cs_kind_t;

static cs_kind_t cs_of(uint16_t coll, uint32_t *mbmax)
{
    *mbmax = value_coll_mbmaxlen(coll);
    if (coll == COLL_BINARY)
        return CS_BINARY;
    const char *n = value_coll_name(coll);
    if (n && strncmp(n, "latin1", 6) == 0)
        return CS_LATIN1;
    if (n && strncmp(n, "ascii", 5) == 0)
        return CS_ASCII;
    return CS_UTF8;
}

/* Decodes one UTF-8 character; returns its length, 0 if invalid. */
static size_t utf8_dec(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (!n)
        return 0;
    unsigned char c = s[0];
    size_t l;
    uint32_t v;
    if (c < 0x80) { *cp = c; return 1; }
    else if (c >= 0xC2 && c < 0xE0) { l = 2; v = c & 0x1F; }
    else if (c >= 0xE0 && c < 0xF0) { l = 3; v = c & 0x0F; }
    else if (c >= 0xF0 && c < 0xF5) { l = 4; v = c & 0x07; }
    else return 0;
    if (l > n)
        return 0;
    for (size_t i = 1; i < l; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((l == 3 && v < 0x800) || (l == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return l;
}

static size_t utf8_enc(uint32_t cp, char *o)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static int latin1_of(uint32_t cp)
{
    if (cp < 0x80 || (cp >= 0xA0 && cp <= 0xFF))
        return (int)cp;
    for (int i = 0; i < 32; i++)
        if (cp1252_hi[i] == cp)
            return 0x80 + i;
    return -1;
}

const char *sql_str_convert(arena_t *a, const char *s, size_t n, uint16_t from, uint16_t to, size_t *out_len,
                            size_t *bad_at)
{
    uint32_t mf, mt;
    cs_kind_t f = cs_of(from, &mf), t = cs_of(to, &mt);
    *bad_at = SIZE_MAX;
    const unsigned char *u = (const unsigned char *)s;
    if (t == CS_BINARY || (f == t && (f != CS_UTF8 || mt >= mf)) || (f == CS_ASCII && t != CS_ASCII) ||
        (f == CS_BINARY && t != CS_UTF8)) {
        *out_len = n;
        return s;
    }
    char *o = arena_alloc(a, n * 4 + 1);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t l;
        if (f == CS_LATIN1) {
            cp = u[i] >= 0x80 && u[i] < 0xA0 ? cp1252_hi[u[i] - 0x80] : u[i];
            l = 1;
        } else if (f == CS_ASCII) {
            cp = u[i];
            l = 1;
        } else { /* UTF-8 or binary bytes read as UTF-8 */
            l = utf8_dec(u + i, n - i, &cp);
            if (!l) {
                if (*bad_at == SIZE_MAX)
                    *bad_at = i;
                o[k++] = '?';
                i++;
                continue;
            }
        }
        bool ok = true;
        if (t == CS_UTF8) {
            if (mt == 3 && cp > 0xFFFF)
                ok = false;
            else
                k += utf8_enc(cp, o + k);
        } else if (t == CS_LATIN1) {
            int b = latin1_of(cp);
            if (b < 0)
                ok = false;
            else
                o[k++] = (char)b;
        } else { /* ascii */
            if (cp >= 0x80)
                ok = false;
            else
                o[k++] = (char)cp;
        }
        if (!ok) {
            if (*bad_at == SIZE_MAX)
                *bad_at = i;
            o[k++] = '?';
        }
        i += l;
    }
    o[k] = 0;
    *out_len = k;
    return o;
}

/* ---------------------------------------------------------------- UPPER / LOWER beyond ASCII */

/* Case pairs MariaDB's utf8mb4_general_ci knows in the 2-byte UTF-8 range: Latin-1, Latin Extended-A, Greek and
 * Cyrillic.  Both cases have the same UTF-8 length there, so a conversion never changes a string's size. */
static uint32_t cp_upper(uint32_t c)
{
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 0x20;
    if (c == 0xFF) return 0x178;
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c & 1 ? c - 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return c & 1 ? c : c - 1;
    if ((c >= 0x3B1 && c <= 0x3C1) || (c >= 0x3C3 && c <= 0x3CB)) return c - 0x20;
    if (c == 0x3C2) return 0x3A3;
    if (c == 0x3AC) return 0x386;
    if (c >= 0x3AD && c <= 0x3AF) return c - 0x25;
    if (c == 0x3CC) return 0x38C;
    if (c == 0x3CD || c == 0x3CE) return c - 0x3F;
    if (c >= 0x430 && c <= 0x44F) return c - 0x20;
    if (c >= 0x450 && c <= 0x45F) return c - 0x50;
    return c;
}

static uint32_t cp_lower(uint32_t c)
{
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
    if (c == 0x178) return 0xFF;
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c & 1 ? c : c + 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return c & 1 ? c + 1 : c;
    if ((c >= 0x391 && c <= 0x3A1) || (c >= 0x3A3 && c <= 0x3AB)) return c + 0x20;
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 0x25;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 0x3F;
    if (c >= 0x410 && c <= 0x42F) return c + 0x20;
    if (c >= 0x400 && c <= 0x40F) return c + 0x50;
    return c;
}

void sql_str_case(char *s, size_t n, uint16_t coll, bool upper)
{
    uint32_t mbmax;
    cs_kind_t cs = cs_of(coll, &mbmax);
    if (cs == CS_BINARY)
        return;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            s[i] = (char)(upper ? (c >= 'a' && c <= 'z' ? c - 32 : c) : (c >= 'A' && c <= 'Z' ? c + 32 : c));
        } else if (cs == CS_LATIN1) {
            /* the Latin-1 letters; cp1252's Š/š Œ/œ Ž/ž Ÿ/ÿ keep their case, as MariaDB's latin1 does */
            if (upper && c >= 0xE0 && c <= 0xFE && c != 0xF7) s[i] = (char)(c - 0x20);
            else if (!upper && c >= 0xC0 && c <= 0xDE && c != 0xD7) s[i] = (char)(c + 0x20);
        } else if (cs == CS_UTF8 && c >= 0xC2 && c < 0xE0 && i + 1 < n && ((unsigned char)s[i + 1] & 0xC0) == 0x80) {
            uint32_t cp = (uint32_t)(c & 0x1F) << 6 | ((unsigned char)s[i + 1] & 0x3F);
            uint32_t m = upper ? cp_upper(cp) : cp_lower(cp);
            if (m != cp && m >= 0x80 && m < 0x800) {
                s[i] = (char)(0xC0 | (m >> 6));
                s[i + 1] = (char)(0x80 | (m & 0x3F));
            }
            i++;
        }
    }
}
