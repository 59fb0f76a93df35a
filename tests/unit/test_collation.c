/*
 * Collation weights (collation.h): single weights read from MariaDB 10.11 (WEIGHT_STRING), comparisons and LIKE
 * with MariaDB's answers, and index keys (rc_key_string) that order and tie exactly as value_collate_cmp does on
 * random strings of an alphabet chosen for its traps (accents, spaces, controls, non-BMP, invalid bytes).
 */
#include <string.h>

#include "sql/value/collation.h"
#include "access/rowcodec.h"
#include "sql/sql.h"
#include "unit.h"

static uint32_t w_utf8(const char *s)
{
    size_t i = 0;
    coll_kind_t k = COLL_KIND_UTF8_GENERAL;
    return coll_weight_next(k, coll_byte_weights(k), (const unsigned char *)s, strlen(s), &i);
}

TEST(test_weights)
{
    /* SELECT HEX(WEIGHT_STRING(_utf8mb4'x' COLLATE utf8mb4_general_ci)) on MariaDB 10.11 */
    CHECK_EQ_INT(w_utf8("a"), 0x41);
    CHECK_EQ_INT(w_utf8("~"), 0x7E);
    CHECK_EQ_INT(w_utf8("\xC3\xA9"), 0x45);         /* é */
    CHECK_EQ_INT(w_utf8("\xC3\x89"), 0x45);         /* É */
    CHECK_EQ_INT(w_utf8("\xC3\x9F"), 0x53);         /* ß */
    CHECK_EQ_INT(w_utf8("\xC3\xBF"), 0x59);         /* ÿ */
    CHECK_EQ_INT(w_utf8("\xC3\xB8"), 0xD8);         /* ø keeps its letter: Ø */
    CHECK_EQ_INT(w_utf8("\xD0\xB9"), 0x419);        /* й -> Й, not И */
    CHECK_EQ_INT(w_utf8("\xD1\x91"), 0x415);        /* ё -> Е */
    CHECK_EQ_INT(w_utf8("\xCF\x82"), 0x3A3);        /* ς -> Σ */
    CHECK_EQ_INT(w_utf8("\xC7\x85"), 0x1C4);        /* ǅ -> Ǆ */
    CHECK_EQ_INT(w_utf8("\xEF\xBD\x81"), 0xFF21);   /* fullwidth a */
    CHECK_EQ_INT(w_utf8("\xE1\xBA\x9E"), 0x1E9E);   /* ẞ (Unicode 5.1): itself */
    CHECK_EQ_INT(w_utf8("\xF0\x9F\x98\x80"), 0xFFFD); /* beyond the BMP */
    CHECK_EQ_INT(w_utf8("\xFF"), COLL_WEIGHT_INVALID + 0xFF);
    CHECK_EQ_INT(w_utf8("\xC3"), COLL_WEIGHT_INVALID + 0xC3); /* cut short */
    CHECK_EQ_INT(w_utf8("\xED\xA0\x80"), COLL_WEIGHT_INVALID + 0xED); /* a surrogate is no character */
    /* latin1_swedish_ci */
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xE4], 0x5C); /* ä after z, with Æ */
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xC6], 0x5C);
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xE5], 0x5B); /* å */
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xF6], 0x5D); /* ö */
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xFC], 0x59); /* ü = Y */
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xE9], 0x45); /* é = E */
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xF8], 0xD8);
    CHECK_EQ_INT(coll_latin1_swedish_ci[0xFF], 0xFF);
    CHECK_EQ_INT(coll_latin1_swedish_ci[0x9A], 0x9A); /* cp1252 š: itself */
    CHECK_EQ_INT(coll_latin1_swedish_ci['q'], 'Q');
    CHECK_EQ_INT(coll_kind_of(COLL_UTF8MB3_GENERAL_CI), COLL_KIND_UTF8_GENERAL);
    CHECK_EQ_INT(coll_kind_of(COLL_UTF8MB4_BIN), COLL_KIND_BYTES);
}

static int sgn(int x) { return x < 0 ? -1 : x > 0; }
#define CMP(coll, a, b) sgn(value_collate_cmp(coll, a, sizeof a - 1, b, sizeof b - 1))

TEST(test_compare)
{
    const uint16_t g = COLL_UTF8MB4_GENERAL_CI, l = COLL_LATIN1_SWEDISH_CI;
    /* answers of MariaDB 10.11 */
    CHECK_EQ_INT(CMP(g, "\xC3\x80" "B", "\xC3\xA0" "b"), 0); /* 'ÀB' = 'àb' */
    CHECK_EQ_INT(CMP(g, "\xC3\xA9", "\xC3\x89"), 0);         /* 'é' = 'É' */
    CHECK_EQ_INT(CMP(g, "\xC3\xA9", "e"), 0);                /* 'é' = 'e' */
    CHECK_EQ_INT(CMP(g, "\xC3\x84" "pfel", "apple"), -1);    /* 'Äpfel' < 'apple' */
    CHECK_EQ_INT(CMP(g, "stra\xC3\x9F" "e", "STRASE"), 0);   /* ß = s (one weight, not 'ss') */
    CHECK_EQ_INT(CMP(g, "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x81"), 0); /* every non-BMP character alike */
    CHECK_EQ_INT(CMP(g, "\xF0\x9F\x98\x80", "\xEF\xBF\xBD"), 0);
    CHECK_EQ_INT(CMP(g, "z", "\xC3\xA9"), 1);
    CHECK_EQ_INT(CMP(g, "a ", "A"), 0);                      /* PAD SPACE */
    CHECK_EQ_INT(CMP(g, "a\t", "a"), -1);                    /* as if 'a' were 'a ' */
    CHECK_EQ_INT(CMP(g, "a", "ab"), -1);
    CHECK_EQ_INT(CMP(COLL_UTF8MB4_BIN, "a\t", "a "), -1);
    CHECK_EQ_INT(CMP(COLL_UTF8MB4_BIN, "\xC3\xA9", "e"), 1);
    CHECK_EQ_INT(CMP(COLL_BINARY, "a ", "a"), 1);             /* binary: no padding */
    /* latin1_swedish_ci: Ä sorts after Z; é = e */
    CHECK_EQ_INT(CMP(l, "\xC4" "pfel", "apple"), 1);
    CHECK_EQ_INT(CMP(l, "\xC4", "z"), 1);
    CHECK_EQ_INT(CMP(l, "\xE9", "E"), 0);
    CHECK_EQ_INT(CMP(l, "\xFC", "y"), 0);
    CHECK_EQ_INT(CMP(l, "\xE4", "\xC4"), 0);
}

TEST(test_like)
{
    const uint16_t g = COLL_UTF8MB4_GENERAL_CI;
#define LIKE(coll, s, p) sql_like_match(coll, s, sizeof s - 1, p, sizeof p - 1, '\\')
    CHECK(LIKE(g, "\xC3\x80" "B", "\xC3\xA0" "b"));   /* 'ÀB' LIKE 'àb' */
    CHECK(LIKE(g, "caf\xC3\xA9", "CAFE"));
    CHECK(LIKE(g, "cafe", "caf\xC3\x89"));
    CHECK(LIKE(g, "\xC3\xA9t\xC3\xA9", "E%"));
    CHECK(LIKE(g, "\xC3\xA9t\xC3\xA9", "_T_"));
    CHECK(!LIKE(g, "\xC3\xA9t\xC3\xA9", "_T"));
    CHECK(!LIKE(COLL_UTF8MB4_BIN, "caf\xC3\xA9", "cafe"));
    CHECK(LIKE(COLL_LATIN1_SWEDISH_CI, "\xE9t\xE9", "ET%"));
    CHECK(!LIKE(COLL_LATIN1_SWEDISH_CI, "\xE4", "a"));
}

/* Random strings from a small alphabet of traps; keys must order and tie as value_collate_cmp does. */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const utf8_alpha[] = {
    "a", "A", "b", "e", "E", "s", "S", "z", " ", " ", " ", "\t", "\x01", "~", "\x7F",
    "\xC3\xA9", "\xC3\x89", "\xC3\xA8", "\xC3\x9F", "\xC3\x84", "\xC3\xA4", "\xC3\xB8", "\xC3\x98", "\xC2\xA0",
    "\xD0\xB9", "\xD0\x99", "\xD0\x98", "\xC7\x85", "\xDF\xBF", "\xE0\xA0\x80", "\xEF\xBF\xBD", "\xEF\xBF\xBF",
    "\xEF\xBD\x81", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xFF", "\xC3", "\x80",
};

static size_t gen_utf8(char *s)
{
    size_t n = 0, k = rnd() % 6;
    for (size_t i = 0; i < k; i++) {
        const char *c = utf8_alpha[rnd() % ARRAY_LEN(utf8_alpha)];
        memcpy(s + n, c, strlen(c));
        n += strlen(c);
    }
    return n;
}

static size_t gen_latin1(char *s)
{
    static const unsigned char alpha[] = {'a', 'A', 'e', 'y', 'z', 'Z', '[', '\\', ']', ' ', ' ', '\t', 0x01,
                                          0xC4, 0xE4, 0xC5, 0xD6, 0xC6, 0xE9, 0xC9, 0xFC, 0xD8, 0xF8, 0xFF, 0x9A, 0x80};
    size_t k = rnd() % 6;
    for (size_t i = 0; i < k; i++)
        s[i] = (char)alpha[rnd() % sizeof alpha];
    return k;
}

static int check_keys(uint16_t coll, size_t (*gen)(char *), int n)
{
    char (*s)[32] = calloc((size_t)n, 32);
    size_t *len = calloc((size_t)n, sizeof *len);
    buf_t *k = calloc((size_t)n, sizeof *k);
    rc_col_t col = {.type = SQLT_VARCHAR, .coll = coll, .len = 64};
    int bad = 0, ties = 0;
    for (int i = 0; i < n; i++) {
        len[i] = gen(s[i]);
        buf_init(&k[i]);
        rc_key_string(&k[i], coll, s[i], len[i]);
        if (rc_key_skip(&col, k[i].data, k[i].len) != (int)k[i].len)
            bad++;
    }
    for (int i = 0; i < n && bad < 5; i++)
        for (int j = 0; j < n && bad < 5; j++) {
            int want = sgn(value_collate_cmp(coll, s[i], len[i], s[j], len[j]));
            size_t m = MIN(k[i].len, k[j].len);
            int got = sgn(memcmp(k[i].data, k[j].data, m));
            if (!got)
                got = k[i].len < k[j].len ? -1 : k[i].len > k[j].len;
            ties += want == 0 && i != j && (len[i] != len[j] || memcmp(s[i], s[j], len[i]) != 0);
            if (want != got) {
                fprintf(stderr, "coll %u: '%.*s' vs '%.*s': cmp %d, key %d\n", coll, (int)len[i], s[i], (int)len[j],
                        s[j], want, got);
                bad++;
            }
        }
    for (int i = 0; i < n; i++)
        buf_free(&k[i]);
    free(s);
    free(len);
    free(k);
    CHECK(ties > 0); /* the alphabet makes different strings equal: the test sees ties */
    return bad;
}

TEST(test_key_order)
{
    CHECK_EQ_INT(check_keys(COLL_UTF8MB4_GENERAL_CI, gen_utf8, 700), 0);
    CHECK_EQ_INT(check_keys(COLL_UTF8MB3_GENERAL_CI, gen_utf8, 300), 0);
    CHECK_EQ_INT(check_keys(COLL_UTF8MB4_BIN, gen_utf8, 300), 0);
    CHECK_EQ_INT(check_keys(COLL_UTF8MB4_UNICODE_CI, gen_utf8, 300), 0);
    CHECK_EQ_INT(check_keys(COLL_LATIN1_SWEDISH_CI, gen_latin1, 500), 0);
    CHECK_EQ_INT(check_keys(COLL_LATIN1_BIN, gen_latin1, 300), 0);
}

/* The ASCII part of a key is what key format 1 wrote (exec.c's start-up step relies on it). */
TEST(test_ascii_keys_unchanged)
{
    buf_t b;
    buf_init(&b);
    rc_key_string(&b, COLL_UTF8MB4_GENERAL_CI, "ab  c\t", 6);
    static const uint8_t want[] = {'A', 'B', 0x03, 0xFF, 0xFF, 0xFF, 0xFD, 'C', 0x00, '\t', 0x02};
    CHECK_EQ_INT(b.len, sizeof want);
    CHECK(b.len == sizeof want && memcmp(b.data, want, sizeof want) == 0);
    b.len = 0;
    rc_key_string(&b, COLL_UTF8MB4_GENERAL_CI, "\xC3\xA9", 2);
    CHECK(b.len == 2 && b.data[0] == 'E' && b.data[1] == 0x02);
    b.len = 0;
    rc_key_string(&b, COLL_UTF8MB4_GENERAL_CI, "\xD0\xB9", 2); /* й: weight 0x419 as 0xD0 0x99 */
    CHECK(b.len == 3 && b.data[0] == 0xD0 && b.data[1] == 0x99);
    buf_free(&b);
}

/* Long strings whose keys are several times their length (the encoder writes through a pointer it grows). */
TEST(test_long_keys)
{
    static char s[3000];
    buf_t b;
    buf_init(&b);
    memset(s, 0xFF, 1000); /* an invalid byte weighs 0x10000 + byte: 4 key bytes each */
    rc_key_string(&b, COLL_UTF8MB4_GENERAL_CI, s, 1000);
    CHECK_EQ_INT(b.len, 4001);
    for (int i = 0; i < 3000; i += 2)
        s[i] = 'x', s[i + 1] = ' '; /* a space run token (5 bytes) every two bytes */
    b.len = 0;
    rc_key_string(&b, COLL_UTF8MB4_GENERAL_CI, s, 3000);
    CHECK_EQ_INT(b.len, 1500 + 1499 * 5 + 1);
    memset(s, 0x01, 3000); /* a control character: 0x00 u */
    b.len = 0;
    rc_key_string(&b, COLL_LATIN1_SWEDISH_CI, s, 3000);
    CHECK_EQ_INT(b.len, 6001);
    /* the prefix skip of coll_cmp: equal bytes up to a character that differs only in its last byte */
    memset(s, 'a', 100);
    static char t[200];
    memcpy(t, s, 100);
    memcpy(s + 100, "\xC3\xA9", 2); /* é */
    memcpy(t + 100, "\xC3\xAA", 2); /* ê: also E */
    CHECK_EQ_INT(value_collate_cmp(COLL_UTF8MB4_GENERAL_CI, s, 102, t, 102), 0);
    memcpy(t + 100, "\xC3\xB6", 2); /* ö: O */
    CHECK_EQ_INT(sgn(value_collate_cmp(COLL_UTF8MB4_GENERAL_CI, s, 102, t, 102)), -1);
    buf_free(&b);
}

UNIT_MAIN(test_weights, test_compare, test_like, test_key_order, test_ascii_keys_unchanged, test_long_keys)
