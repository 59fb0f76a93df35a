/* Row codec: key order equals value_compare order on random values of every type; rows round-trip. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "access/rowcodec.h"
#include "unit.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int key_cmp(const buf_t *a, const buf_t *b)
{
    size_t n = MIN(a->len, b->len);
    int r = memcmp(a->data, b->data, n);
    if (r)
        return r < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int sgn(int x) { return x < 0 ? -1 : x > 0; }

typedef value_t (*gen_fn)(arena_t *a, const rc_col_t *c);

/* Checks every pair of n random values: sign(memcmp(key)) == sign(value_compare) (NULL first). */
static int check_order(const rc_col_t *c, gen_fn gen, int n)
{
    arena_t a;
    arena_init(&a, 4096);
    value_t *v = arena_alloc(&a, sizeof(value_t) * (size_t)n);
    buf_t *k = arena_calloc(&a, sizeof(buf_t) * (size_t)n);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        v[i] = gen(&a, c);
        buf_init(&k[i]);
        if (rc_key_append(&k[i], c, &v[i]) != 0)
            bad++;
    }
    for (int i = 0; i < n && bad < 5; i++)
        for (int j = 0; j < n && bad < 5; j++) {
            int want;
            if (v[i].type == VAL_NULL || v[j].type == VAL_NULL)
                want = (v[j].type == VAL_NULL) - (v[i].type == VAL_NULL);
            else
                want = sgn(value_compare(&v[i], &v[j], NULL));
            int got = key_cmp(&k[i], &k[j]);
            if (want != got) {
                size_t la, lb;
                fprintf(stderr, "type %d: '%s' vs '%s': value_compare %d, key %d\n", c->type,
                        value_to_text(&a, &v[i], &la), value_to_text(&a, &v[j], &lb), want, got);
                bad++;
            }
            /* every key skips to its own end */
            if (j == 0 && rc_key_skip(c, k[i].data, k[i].len) != (int)k[i].len) {
                fprintf(stderr, "type %d: skip %d != %zu\n", c->type, rc_key_skip(c, k[i].data, k[i].len), k[i].len);
                bad++;
            }
        }
    for (int i = 0; i < n; i++)
        buf_free(&k[i]);
    arena_destroy(&a);
    return bad;
}

static value_t gen_int(arena_t *a, const rc_col_t *c)
{
    int w = c->type == SQLT_TINYINT ? 1 : c->type == SQLT_SMALLINT ? 2 : c->type == SQLT_MEDIUMINT ? 3
          : c->type == SQLT_INT ? 4 : 8;
    if (c->nullable && rnd() % 10 == 0)
        return value_null();
    uint64_t r = rnd();
    if (rnd() % 4 == 0)
        r %= 5; /* small values and ties */
    if (c->is_unsigned) {
        uint64_t max = w == 8 ? UINT64_MAX : (1ull << (8 * w)) - 1;
        return value_uint(r & max);
    }
    int64_t lo = w == 8 ? INT64_MIN : -(1ll << (8 * w - 1));
    uint64_t span = w == 8 ? 0 : (1ull << (8 * w));
    int64_t x = w == 8 ? (int64_t)r : lo + (int64_t)(r % span);
    return value_int(x);
}

static value_t gen_double(arena_t *a, const rc_col_t *c)
{
    switch (rnd() % 6) {
    case 0: return value_double(0.0);
    case 1: return value_double(-0.0);
    case 2: return value_double((double)((int64_t)(rnd() % 2001) - 1000));
    default: {
        double m = (double)(rnd() % 1000000) / 997.0;
        int e = (int)(rnd() % 80) - 40;
        double d = ldexp(m, e) * (rnd() % 2 ? -1 : 1);
        if (c->type == SQLT_FLOAT)
            d = (float)d;
        return value_double(d);
    }
    }
}

static value_t gen_decimal(arena_t *a, const rc_col_t *c)
{
    char t[64];
    int ip = (int)(rnd() % 100000), fp = (int)(rnd() % 100);
    if (rnd() % 5 == 0)
        ip = 0;
    bool neg = rnd() % 2;
    if (ip == 0 && fp == 0)
        neg = false;
    snprintf(t, sizeof t, "%s%d.%02d", neg ? "-" : "", ip, fp);
    return value_decimal(a, t, strlen(t));
}

static value_t gen_string(arena_t *a, const rc_col_t *c)
{
    static const char alpha[] = "aAbB z~0";
    size_t n = rnd() % 6;
    char *s = arena_alloc(a, n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = c->coll == COLL_BINARY && rnd() % 4 == 0 ? (char)(rnd() % 3) : alpha[rnd() % (sizeof alpha - 1)];
    return value_str(s, n, c->coll);
}

static value_t gen_datetime(arena_t *a, const rc_col_t *c)
{
    value_t v = {.type = c->type == SQLT_DATE ? VAL_DATE : c->type == SQLT_TIMESTAMP ? VAL_TIMESTAMP : VAL_DATETIME};
    v.t.year = 1990 + (uint32_t)(rnd() % 3);
    v.t.month = 1 + (uint32_t)(rnd() % 12);
    v.t.day = 1 + (uint32_t)(rnd() % 28);
    if (c->type != SQLT_DATE) {
        v.t.hour = (uint32_t)(rnd() % 24);
        v.t.minute = (uint32_t)(rnd() % 60);
        v.t.second = (uint32_t)(rnd() % 3);
        v.t.usec = (uint32_t)(rnd() % 3) * 250000;
        v.dec = 6;
    }
    return v;
}

static value_t gen_time(arena_t *a, const rc_col_t *c)
{
    value_t v = {.type = VAL_TIME};
    v.t.hour = (uint32_t)(rnd() % 839);
    v.t.minute = (uint32_t)(rnd() % 60);
    v.t.second = (uint32_t)(rnd() % 60);
    v.t.usec = (uint32_t)(rnd() % 2) * 500000;
    v.t.neg = rnd() % 2 && (v.t.hour || v.t.minute || v.t.second || v.t.usec);
    v.dec = 6;
    return v;
}

TEST(test_int_order)
{
    static const uint8_t types[] = {SQLT_TINYINT, SQLT_SMALLINT, SQLT_MEDIUMINT, SQLT_INT, SQLT_BIGINT};
    for (size_t t = 0; t < sizeof types; t++)
        for (int u = 0; u < 2; u++)
            for (int nl = 0; nl < 2; nl++) {
                rc_col_t c = {.type = types[t], .is_unsigned = u, .nullable = nl};
                CHECK_EQ_INT(check_order(&c, gen_int, 200), 0);
            }
}

TEST(test_float_order)
{
    rc_col_t d = {.type = SQLT_DOUBLE, .nullable = true};
    CHECK_EQ_INT(check_order(&d, gen_double, 300), 0);
    rc_col_t f = {.type = SQLT_FLOAT};
    CHECK_EQ_INT(check_order(&f, gen_double, 300), 0);
}

TEST(test_decimal_order)
{
    rc_col_t c = {.type = SQLT_DECIMAL, .len = 9, .scale = 2};
    CHECK_EQ_INT(check_order(&c, gen_decimal, 300), 0);
    rc_col_t c2 = {.type = SQLT_DECIMAL, .len = 10, .scale = 2, .nullable = true};
    CHECK_EQ_INT(check_order(&c2, gen_decimal, 300), 0);
}

TEST(test_string_order)
{
    static const uint16_t colls[] = {COLL_UTF8MB4_GENERAL_CI, COLL_UTF8MB4_BIN, COLL_LATIN1_SWEDISH_CI, COLL_BINARY};
    for (size_t i = 0; i < ARRAY_LEN(colls); i++) {
        rc_col_t c = {.type = colls[i] == COLL_BINARY ? SQLT_VARBINARY : SQLT_VARCHAR, .coll = colls[i], .len = 10};
        CHECK_EQ_INT(check_order(&c, gen_string, 300), 0);
    }
}

TEST(test_temporal_order)
{
    rc_col_t d = {.type = SQLT_DATE};
    CHECK_EQ_INT(check_order(&d, gen_datetime, 300), 0);
    rc_col_t dt = {.type = SQLT_DATETIME, .scale = 6};
    CHECK_EQ_INT(check_order(&dt, gen_datetime, 300), 0);
    rc_col_t ts = {.type = SQLT_TIMESTAMP, .nullable = true};
    CHECK_EQ_INT(check_order(&ts, gen_datetime, 300), 0);
    rc_col_t tm = {.type = SQLT_TIME, .scale = 6};
    CHECK_EQ_INT(check_order(&tm, gen_time, 300), 0);
}

static int enc_cmp(const rc_col_t *c, value_t a, value_t b)
{
    buf_t x, y;
    buf_init(&x);
    buf_init(&y);
    rc_key_append(&x, c, &a);
    rc_key_append(&y, c, &b);
    int r = key_cmp(&x, &y);
    buf_free(&x);
    buf_free(&y);
    return r;
}

/* MariaDB's PAD SPACE: strings compare as if padded with spaces ('a\t' < 'a' = 'a  ' < 'a  b'); _ci equal. */
TEST(test_pad_space_and_case)
{
    rc_col_t ci = {.type = SQLT_VARCHAR, .coll = COLL_UTF8MB4_GENERAL_CI, .len = 20};
#define S(x) value_str(x, sizeof x - 1, ci.coll)
    CHECK_EQ_INT(enc_cmp(&ci, S("a"), S("A")), 0);
    CHECK_EQ_INT(enc_cmp(&ci, S("a"), S("a   ")), 0);
    CHECK_EQ_INT(enc_cmp(&ci, S("abc "), S("ABC")), 0);
    CHECK_EQ_INT(enc_cmp(&ci, S("a\t"), S("a")), -1);
    CHECK_EQ_INT(enc_cmp(&ci, S("a  \x01"), S("a")), -1);
    CHECK_EQ_INT(enc_cmp(&ci, S("a  \x01"), S("a \x01")), 1);
    CHECK_EQ_INT(enc_cmp(&ci, S("a  b"), S("a")), 1);
    CHECK_EQ_INT(enc_cmp(&ci, S("a  b"), S("a b")), -1);
    CHECK_EQ_INT(enc_cmp(&ci, S(""), S("   ")), 0);
    rc_col_t bin = {.type = SQLT_VARCHAR, .coll = COLL_UTF8MB4_BIN, .len = 20};
    CHECK_EQ_INT(enc_cmp(&bin, S("a"), S("A")), 1);
    CHECK_EQ_INT(enc_cmp(&bin, S("a "), S("a")), 0);
    rc_col_t vb = {.type = SQLT_VARBINARY, .coll = COLL_BINARY, .len = 20};
    CHECK_EQ_INT(enc_cmp(&vb, S("a "), S("a")), 1);
    CHECK_EQ_INT(enc_cmp(&vb, S("a\0"), S("a")), 1);
    /* prefix index: 3 characters of UTF-8 */
    rc_col_t pre = {.type = SQLT_VARCHAR, .coll = COLL_UTF8MB4_GENERAL_CI, .len = 20, .prefix = 3};
    CHECK_EQ_INT(enc_cmp(&pre, S("ab\xc3\xa9xyz"), S("AB\xc3\xa9")), 0);
    CHECK_EQ_INT(enc_cmp(&pre, S("abcd"), S("abce")), 0);
#undef S
}

/* Search values outside the column's domain land on its nearest point. */
TEST(test_search_clamp)
{
    rc_col_t c = {.type = SQLT_TINYINT};
    CHECK_EQ_INT(enc_cmp(&c, value_int(1000), value_int(127)), 0);
    CHECK_EQ_INT(enc_cmp(&c, value_int(-1000), value_int(-128)), 0);
    CHECK_EQ_INT(enc_cmp(&c, value_double(2.6), value_int(3)), 0);
    rc_col_t u = {.type = SQLT_INT, .is_unsigned = true};
    CHECK_EQ_INT(enc_cmp(&u, value_int(-5), value_uint(0)), 0);
    rc_col_t d = {.type = SQLT_DATE};
    CHECK_EQ_INT(enc_cmp(&d, value_str("2020-01-02", 10, COLL_DEFAULT), value_str("2020-01-01", 10, COLL_DEFAULT)), 1);
    buf_t b;
    buf_init(&b);
    value_t junk = value_str("nodate", 6, COLL_DEFAULT);
    CHECK(rc_key_append(&b, &d, &junk) < 0);
    CHECK_EQ_INT(b.len, 0);
    value_t nul = value_null();
    CHECK(rc_key_append(&b, &d, &nul) < 0); /* NOT NULL column */
    buf_free(&b);
}

TEST(test_row_roundtrip)
{
    rc_col_t cols[] = {
        {.type = SQLT_INT},
        {.type = SQLT_BIGINT, .is_unsigned = true},
        {.type = SQLT_TINYINT, .nullable = true},
        {.type = SQLT_VARCHAR, .coll = COLL_UTF8MB4_GENERAL_CI, .len = 10},
        {.type = SQLT_DECIMAL, .len = 10, .scale = 2},
        {.type = SQLT_DOUBLE},
        {.type = SQLT_DATETIME, .scale = 3},
        {.type = SQLT_TIME},
        {.type = SQLT_DATE},
        {.type = SQLT_MEDIUMINT},
        {.type = SQLT_BLOB, .coll = COLL_BINARY},
        {.type = SQLT_YEAR},
    };
    arena_t a;
    arena_init(&a, 1024);
    value_t in[ARRAY_LEN(cols)];
    in[0] = value_int(-123456);
    in[1] = value_uint(UINT64_MAX);
    in[2] = value_null();
    in[3] = value_str("hello", 5, COLL_UTF8MB4_GENERAL_CI);
    in[4] = value_decimal(&a, "-12.50", 6);
    in[5] = value_double(3.25);
    value_parse_datetime("2024-02-29 13:14:15.125", 23, &in[6]);
    value_parse_time("-838:59:59", 10, &in[7]);
    value_parse_datetime("1999-12-31", 10, &in[8]);
    in[9] = value_int(-8388608);
    in[10] = value_str("\0\1\2", 3, COLL_BINARY);
    in[11] = value_uint(2024);
    buf_t b;
    buf_init(&b);
    REQUIRE(rc_row_encode(&b, cols, ARRAY_LEN(cols), in) == 0);
    value_t out[ARRAY_LEN(cols)];
    uint32_t ns = 0;
    REQUIRE(rc_row_decode(b.data, b.len, cols, ARRAY_LEN(cols), out, &ns) == 0);
    CHECK_EQ_INT(ns, ARRAY_LEN(cols));
    for (size_t i = 0; i < ARRAY_LEN(cols); i++) {
        CHECK_EQ_INT(out[i].type == VAL_NULL, in[i].type == VAL_NULL);
        if (in[i].type != VAL_NULL && out[i].type != VAL_NULL)
            CHECK_EQ_INT(value_compare(&in[i], &out[i], NULL), 0);
    }
    size_t l;
    const char *t;
    t = value_to_text(&a, &out[6], &l);
    CHECK_EQ_STR(arena_strndup(&a, t, l), "2024-02-29 13:14:15.125");
    t = value_to_text(&a, &out[7], &l);
    CHECK_EQ_STR(arena_strndup(&a, t, l), "-838:59:59");
    t = value_to_text(&a, &out[4], &l);
    CHECK_EQ_STR(arena_strndup(&a, t, l), "-12.50");
    /* a reader with one more column (ALTER ADD COLUMN) sees NULL there */
    rc_col_t more[ARRAY_LEN(cols) + 1];
    memcpy(more, cols, sizeof cols);
    more[ARRAY_LEN(cols)] = (rc_col_t){.type = SQLT_INT, .nullable = true};
    value_t out2[ARRAY_LEN(cols) + 1];
    REQUIRE(rc_row_decode(b.data, b.len, more, ARRAY_LEN(more), out2, &ns) == 0);
    CHECK_EQ_INT(out2[ARRAY_LEN(cols)].type, VAL_NULL);
    /* truncated rows are reported, never read past */
    for (size_t cut = 0; cut < b.len; cut++)
        CHECK(rc_row_decode(b.data, cut, cols, ARRAY_LEN(cols), out, &ns) != 0);
    buf_free(&b);
    arena_destroy(&a);
}

/* YEAR keys follow the year (0000 first, then 1901..2155); they once all clamped to 1901. */
TEST(test_year_order)
{
    rc_col_t y = {.type = SQLT_YEAR, .is_unsigned = true};
    uint64_t years[] = {0, 1901, 1902, 1999, 2000, 2024, 2154, 2155};
    for (size_t i = 0; i + 1 < ARRAY_LEN(years); i++)
        CHECK_EQ_INT(enc_cmp(&y, value_uint(years[i]), value_uint(years[i + 1])), -1);
    CHECK_EQ_INT(enc_cmp(&y, value_int(2024), value_uint(2024)), 0);
}

/* Index-only reads: a decodable column read back from its key equals what the row gives, NULL included; the
 * others say so. */
TEST(test_key_decode)
{
    rc_col_t cols[] = {
        {.type = SQLT_INT},
        {.type = SQLT_BIGINT, .is_unsigned = true},
        {.type = SQLT_TINYINT, .nullable = true},
        {.type = SQLT_SMALLINT},
        {.type = SQLT_MEDIUMINT},
        {.type = SQLT_BIGINT},
        {.type = SQLT_DATETIME, .scale = 3},
        {.type = SQLT_TIMESTAMP, .scale = 2, .nullable = true},
        {.type = SQLT_TIME, .scale = 1},
        {.type = SQLT_DATE},
        {.type = SQLT_YEAR, .is_unsigned = true},
        {.type = SQLT_ENUM, .is_unsigned = true},
        {.type = SQLT_SET, .is_unsigned = true},
        {.type = SQLT_BIT, .is_unsigned = true},
        {.type = SQLT_TINYINT, .nullable = true},
    };
    arena_t a;
    arena_init(&a, 1024);
    for (int round = 0; round < 200; round++) {
        value_t in[ARRAY_LEN(cols)];
        in[0] = value_int((int32_t)rnd());
        in[1] = value_uint(round == 0 ? UINT64_MAX : rnd());
        in[2] = round % 3 ? value_int((int8_t)rnd()) : value_null();
        in[3] = value_int((int16_t)rnd());
        in[4] = value_int(round == 1 ? -8388608 : (int32_t)(rnd() % 16777216) - 8388608);
        in[5] = value_int(round == 2 ? INT64_MIN : (int64_t)rnd());
        value_parse_datetime(round % 2 ? "1000-01-01 00:00:00.001" : "9999-12-31 23:59:59.999", 23, &in[6]);
        if (round % 4)
            value_parse_datetime("2038-01-19 03:14:07.99", 22, &in[7]);
        else
            in[7] = value_null();
        value_parse_time(round % 2 ? "-838:59:59.0" : "12:00:00.5", round % 2 ? 12 : 10, &in[8]);
        value_parse_datetime("2024-02-29", 10, &in[9]);
        in[10] = value_uint(round % 5 == 0 ? 0 : 1901 + rnd() % 255);
        in[11] = value_uint(rnd() % 65536);
        in[12] = value_uint(rnd());
        in[13] = value_uint(rnd() % 32);
        in[14] = value_int(-1);
        buf_t row;
        buf_init(&row);
        REQUIRE(rc_row_encode(&row, cols, ARRAY_LEN(cols), in) == 0);
        value_t want[ARRAY_LEN(cols)];
        uint32_t ns;
        REQUIRE(rc_row_decode(row.data, row.len, cols, ARRAY_LEN(cols), want, &ns) == 0);
        for (size_t i = 0; i < ARRAY_LEN(cols); i++) {
            CHECK(rc_key_decodable(&cols[i]));
            buf_t k;
            buf_init(&k);
            REQUIRE(rc_key_append(&k, &cols[i], &want[i]) == 0);
            buf_append_byte(&k, 0xAB); /* what follows in a longer key is not read */
            value_t got;
            CHECK_EQ_INT(rc_key_decode(&cols[i], k.data, k.len, &got), (int)k.len - 1);
            CHECK_EQ_INT(got.type, want[i].type);
            size_t l1, l2;
            const char *t1 = value_to_text(&a, &got, &l1), *t2 = value_to_text(&a, &want[i], &l2);
            if (want[i].type != VAL_NULL && (l1 != l2 || memcmp(t1, t2, l1) != 0)) {
                fprintf(stderr, "column %zu: key gives '%.*s', row '%.*s'\n", i, (int)l1, t1, (int)l2, t2);
                CHECK(false);
            }
            CHECK(rc_key_decode(&cols[i], k.data, k.len - 2, &got) < 0 || want[i].type == VAL_NULL);
            buf_free(&k);
        }
        buf_free(&row);
        arena_reset(&a);
    }
    rc_col_t no[] = {{.type = SQLT_DOUBLE}, {.type = SQLT_FLOAT}, {.type = SQLT_DECIMAL, .len = 5, .scale = 2},
                     {.type = SQLT_VARCHAR, .coll = COLL_UTF8MB4_GENERAL_CI, .len = 5},
                     {.type = SQLT_VARBINARY, .coll = COLL_BINARY, .len = 5}};
    for (size_t i = 0; i < ARRAY_LEN(no); i++)
        CHECK(!rc_key_decodable(&no[i]));
    arena_destroy(&a);
}

UNIT_MAIN(test_int_order, test_float_order, test_decimal_order, test_string_order, test_temporal_order,
          test_pad_space_and_case, test_search_clamp, test_row_roundtrip, test_year_order, test_key_decode)
