/*
 * MariaDB 10.11 built-ins beyond the common ones (the rows of functions.def that name sql_eval_extra_fn or
 * sql_eval_extra_lazy_fn): INTERVAL(), MAKE_SET, EXPORT_SET, FORMAT(x, d, locale), CHR, LENGTHB, NVL, NVL2,
 * DECODE_ORACLE, SYS_GUID, TO_SECONDS, PERIOD_ADD, PERIOD_DIFF, ADD_MONTHS, GET_FORMAT, MASTER_POS_WAIT,
 * COMPRESS / UNCOMPRESS / UNCOMPRESSED_LENGTH, INET6_ATON / INET6_NTOA / IS_IPV4* / IS_IPV6, RANDOM_BYTES,
 * AES_ENCRYPT / AES_DECRYPT (aes-128-ecb, MariaDB's key folding), OLD_PASSWORD, CRC32C, ENCODE / DECODE (the
 * default sql_mode's DECODE: MariaDB's SQL_CRYPT; DECODE_ORACLE is the Oracle one).
 *
 * Several are MariaDB's rewrites of others and are evaluated through them: NVL is IFNULL, LENGTHB is LENGTH,
 * CHR(n) is CHAR(n USING collation_connection), ADD_MONTHS(d, n) is DATE_ADD(d, INTERVAL n MONTH), NVL2 and
 * DECODE_ORACLE are CASE expressions (DECODE_ORACLE compares with <=>: NULL matches NULL, as in Oracle).
 * Results, warnings and types follow MariaDB 10.11, checked by tests/sql/functions_extra.sql.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "sql/expr/expr_int.h"
#include "sql/value/collation.h"

static value_t x_text(sql_eval_ctx_t *ctx, const value_t *v)
{
    if (v->type == VAL_STRING)
        return *v;
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    return value_str(s, n, COLL_DEFAULT);
}

static value_t x_str(sql_eval_ctx_t *ctx, const void *p, size_t n, uint16_t coll)
{
    return value_str(arena_strndup(ctx->arena, p ? (const char *)p : "", n), n, coll);
}

/* A copy of call e as function fn (a MariaDB rewrite evaluated by the other function's evaluator). */
static sql_expr_t *as_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, sql_fn_t fn)
{
    sql_expr_t *c = arena_alloc(ctx->arena, sizeof *c);
    *c = *e;
    c->func.fn = fn;
    c->func.name = sql_fn_defs[fn].name;
    return c;
}

/* ---------------------------------------------------------------- the CASE rewrites (NVL2, DECODE_ORACLE) */

static sql_expr_t *new_node(arena_t *a, sql_expr_kind_t kind, const sql_expr_t *like, uint32_t nargs)
{
    sql_expr_t *n = arena_alloc(a, sizeof *n);
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->src = like->src;
    n->src_len = like->src_len;
    n->slot = -1;
    n->nargs = nargs;
    n->args = nargs ? arena_alloc(a, nargs * sizeof *n->args) : NULL;
    if (nargs)
        memset(n->args, 0, nargs * sizeof *n->args);
    return n;
}

/*
 * NVL2(a, b, c): CASE WHEN a IS NOT NULL THEN b ELSE c END.  DECODE_ORACLE(x, s1, r1, ..., [d]): with
 * `typed` the CASE x WHEN s1 THEN r1 ... ELSE d END whose type MariaDB gives, else the searched CASE
 * WHEN x <=> s1 THEN r1 ... that it evaluates.
 */
sql_expr_t *sql_fnextra_case(arena_t *a, const sql_expr_t *e, bool typed)
{
    if (e->func.fn == SQL_FN_NVL2) {
        sql_expr_t *c = new_node(a, SQL_E_CASE, e, 3);
        sql_expr_t *is = new_node(a, SQL_E_IS, e, 1);
        is->is_what = SQL_IS_NULL;
        is->negated = true;
        is->args[0] = e->args[0];
        c->args[1] = is;
        c->args[2] = e->args[1];
        c->else_expr = e->args[2];
        return c;
    }
    uint32_t pairs = (e->nargs - 1) / 2;
    sql_expr_t *c = new_node(a, SQL_E_CASE, e, 1 + 2 * pairs);
    if (typed)
        c->args[0] = e->args[0];
    for (uint32_t i = 0; i < pairs; i++) {
        if (typed) {
            c->args[1 + 2 * i] = e->args[1 + 2 * i];
        } else {
            sql_expr_t *eq = new_node(a, SQL_E_BINARY, e, 2);
            eq->op = SQL_OP_NSEQ;
            eq->args[0] = e->args[0];
            eq->args[1] = e->args[1 + 2 * i];
            c->args[1 + 2 * i] = eq;
        }
        c->args[2 + 2 * i] = e->args[2 + 2 * i];
    }
    c->else_expr = (e->nargs - 1) % 2 ? e->args[e->nargs - 1] : NULL;
    return c;
}

/* ADD_MONTHS(d, n) as DATE_ADD(d, INTERVAL n MONTH). */
sql_expr_t *sql_fnextra_add_months(arena_t *a, const sql_expr_t *e)
{
    sql_expr_t *iv = new_node(a, SQL_E_INTERVAL, e, 1);
    iv->args[0] = e->args[1];
    iv->interval_unit = "MONTH";
    sql_expr_t *c = new_node(a, SQL_E_FUNC, e, 2);
    c->func.fn = SQL_FN_DATE_ADD;
    c->func.name = "DATE_ADD";
    c->args[0] = e->args[0];
    c->args[1] = iv;
    return c;
}

int sql_eval_extra_lazy_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *args, bool any_null,
                           value_t *out)
{
    (void)args;
    (void)any_null;
    switch (e->func.fn) {
    case SQL_FN_NVL:
        return sql_eval_control_fn(ctx, as_fn(ctx, e, SQL_FN_IFNULL), NULL, false, out);
    case SQL_FN_NVL2: case SQL_FN_DECODE_ORACLE:
        return sql_expr_eval(ctx, sql_fnextra_case(ctx->arena, e, false), out);
    case SQL_FN_ADD_MONTHS:
        return sql_expr_eval(ctx, sql_fnextra_add_months(ctx->arena, e), out);
    default:
        return sql_fn_unrouted(ctx, e);
    }
}

/* ---------------------------------------------------------------- FORMAT's locales */

typedef struct fmt_locale {
    const char *name;
    char point;
    int sep;        /* thousands separator, -1 none */
    int group;      /* 3, or 32 for the Indian 3-then-2 grouping */
} fmt_locale_t;

/* MariaDB's my_locale table (decimal point, thousands separator, grouping), the common locales. */
static const fmt_locale_t LOCALES[] = {
    {"en_US", '.', ',', 3}, {"en_GB", '.', ',', 3}, {"en_AU", '.', ',', 3}, {"en_CA", '.', ',', 3},
    {"en_IN", '.', ',', 32}, {"en_NZ", '.', ',', 3}, {"en_ZA", '.', ',', 3}, {"de_DE", ',', '.', 3},
    {"de_AT", ',', -1, 3}, {"de_CH", '.', '\'', 3}, {"de_BE", ',', '.', 3}, {"de_LU", ',', '.', 3},
    {"fr_FR", ',', -1, 3}, {"fr_BE", ',', -1, 3}, {"fr_CA", ',', -1, 3}, {"fr_CH", ',', -1, 3},
    {"fr_LU", ',', -1, 3}, {"it_IT", ',', -1, 3}, {"it_CH", ',', '\'', 3}, {"es_ES", ',', '.', 3},
    {"es_MX", '.', ',', 3}, {"es_AR", ',', '.', 3}, {"es_US", '.', ',', 3}, {"pt_PT", ',', -1, 3},
    {"pt_BR", ',', -1, 3}, {"nl_NL", ',', -1, 3}, {"nl_BE", ',', -1, 3}, {"sv_SE", ',', ' ', 3},
    {"sv_FI", ',', ' ', 3}, {"da_DK", ',', '.', 3}, {"nb_NO", ',', '.', 3}, {"no_NO", ',', '.', 3},
    {"fi_FI", ',', ' ', 3}, {"pl_PL", ',', -1, 3}, {"cs_CZ", ',', ' ', 3}, {"sk_SK", ',', ' ', 3},
    {"hu_HU", ',', '.', 3}, {"ro_RO", ',', '.', 3}, {"ru_RU", ',', ' ', 3}, {"uk_UA", ',', '.', 3},
    {"bg_BG", ',', 0, 3}, {"hr_HR", ',', -1, 3}, {"sl_SI", ',', -1, 3}, {"sr_RS", '.', -1, 3},
    {"el_GR", ',', -1, 3}, {"tr_TR", ',', '.', 3}, {"ja_JP", '.', ',', 3}, {"zh_CN", '.', ',', 3},
    {"zh_TW", '.', ',', 3}, {"zh_HK", '.', ',', 3}, {"ko_KR", '.', ',', 3}, {"ar_SA", '.', -1, 3},
    {"ar_AE", '.', ',', 3}, {"he_IL", '.', ',', 3}, {"th_TH", '.', ',', 3}, {"vi_VN", ',', '.', 3},
    {"id_ID", ',', '.', 3}, {"hi_IN", '.', ',', 3}, {"et_EE", ',', ' ', 3}, {"lv_LV", ',', ' ', 3},
    {"lt_LT", ',', '.', 3}, {"is_IS", ',', '.', 3}, {"ca_ES", ',', -1, 3}, {"eu_ES", ',', -1, 3},
    {"gl_ES", ',', -1, 3}, {"ms_MY", '.', ',', 3}, {"ta_IN", '.', ',', 32}, {"te_IN", '.', ',', 32},
    {"ur_PK", '.', ',', 3}, {"mn_MN", ',', '.', 3}, {"mk_MK", ',', ' ', 3}, {"sq_AL", ',', '.', 3},
    {"be_BY", ',', '.', 3}, {"fo_FO", ',', '.', 3}, {"rm_CH", ',', '\'', 3},
};

/* FORMAT(x, d, locale): the en_US text of FORMAT(x, d) regrouped for the locale (unknown: 1649, en_US). */
static int format_locale(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, value_t *out)
{
    if (a[0].type == VAL_NULL || a[1].type == VAL_NULL) {
        *out = value_null();
        return 0;
    }
    const fmt_locale_t *loc = &LOCALES[0];
    if (a[2].type == VAL_NULL) {
        diag_warn(ctx->diag, ER_UNKNOWN_LOCALE, "NULL");
    } else {
        value_t l = x_text(ctx, &a[2]);
        const fmt_locale_t *f = NULL;
        for (size_t i = 0; i < ARRAY_LEN(LOCALES) && !f; i++)
            if (strlen(LOCALES[i].name) == l.s.len && strncasecmp(LOCALES[i].name, l.s.ptr, l.s.len) == 0)
                f = &LOCALES[i];
        if (f) {
            loc = f;
        } else {
            char *nm = arena_strndup(ctx->arena, l.s.ptr, l.s.len);
            diag_warn(ctx->diag, ER_UNKNOWN_LOCALE, nm);
        }
    }
    sql_expr_t *two = as_fn(ctx, e, SQL_FN_FORMAT);
    two->nargs = 2;
    value_t en;
    int rc = sql_eval_more_fn(ctx, two, a, false, &en);
    if (rc || en.type != VAL_STRING || loc == &LOCALES[0]) {
        *out = en;
        return rc;
    }
    /* digits of the integer part, the fraction */
    const char *s = en.s.ptr;
    size_t n = en.s.len, i = 0;
    buf_t b;
    buf_init(&b);
    if (i < n && s[i] == '-')
        buf_append_byte(&b, (uint8_t)s[i++]);
    char digits[512];
    size_t nd = 0;
    for (; i < n && s[i] != '.' && nd < sizeof digits; i++)
        if (s[i] != ',')
            digits[nd++] = s[i];
    for (size_t k = 0; k < nd; k++) {
        size_t left = nd - k; /* digits from here to the point */
        bool cut;
        if (loc->group == 32)
            cut = k && (left == 3 || (left > 3 && (left - 3) % 2 == 0));
        else
            cut = k && left % 3 == 0;
        if (cut && loc->sep >= 0)
            buf_append_byte(&b, (uint8_t)loc->sep);
        buf_append_byte(&b, (uint8_t)digits[k]);
    }
    if (i < n) {
        buf_append_byte(&b, (uint8_t)loc->point);
        buf_append(&b, s + i + 1, n - i - 1);
    }
    *out = x_str(ctx, b.data, b.len, en.coll);
    buf_free(&b);
    return 0;
}

/* ---------------------------------------------------------------- PERIOD_ADD / PERIOD_DIFF (MariaDB's) */

static uint64_t period_to_month(uint64_t period)
{
    if (period == 0 || period > 999912)
        return 0;
    uint64_t y = period / 100;
    if (y < 70)
        y += 2000;
    else if (y < 100)
        y += 1900;
    return y * 12 + period % 100 - 1;
}

static uint64_t month_to_period(uint64_t month)
{
    if (month == 0)
        return 0;
    uint64_t y = month / 12;
    if (y < 100)
        y += y < 70 ? 2000 : 1900;
    return y * 100 + month % 12 + 1;
}

/* ---------------------------------------------------------------- GET_FORMAT */

static const char *get_format(const value_t *kind, const value_t *std)
{
    static const char *const names[] = {"USA", "JIS", "ISO", "EUR", "INTERNAL"};
    static const char *const date[] = {"%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"};
    static const char *const dt[] = {"%Y-%m-%d %H.%i.%s", "%Y-%m-%d %H:%i:%s", "%Y-%m-%d %H:%i:%s",
                                     "%Y-%m-%d %H.%i.%s", "%Y%m%d%H%i%s"};
    static const char *const tm[] = {"%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H.%i.%s", "%H%i%s"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        if (strlen(names[i]) != std->s.len || strncasecmp(names[i], std->s.ptr, std->s.len))
            continue;
        char k = kind->s.len > 4 ? 'X' : kind->s.len ? (char)toupper((unsigned char)kind->s.ptr[1]) : 0;
        return k == 'A' ? date[i] : k == 'I' ? tm[i] : dt[i]; /* dAte, tIme, datetime / timestamp */
    }
    return NULL;
}

/* ---------------------------------------------------------------- INET6 */

/* text -> 4 or 16 bytes (0 when not an address) */
static int inet6_parse(const value_t *s, unsigned char *out)
{
    char buf[64];
    if (s->s.len == 0 || s->s.len >= sizeof buf || memchr(s->s.ptr, 0, s->s.len))
        return 0;
    memcpy(buf, s->s.ptr, s->s.len);
    buf[s->s.len] = 0;
    /* MariaDB accepts only dotted quads with 4 parts for IPv4 (inet_pton: the same) */
    if (!strchr(buf, ':'))
        return inet_pton(AF_INET, buf, out) == 1 ? 4 : 0;
    return inet_pton(AF_INET6, buf, out) == 1 ? 16 : 0;
}

static size_t inet6_format(const unsigned char *b, char *out)
{
    uint16_t w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]);
    int gpos = -1, glen = 0;
    for (int i = 0; i < 8;) {
        if (w[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && !w[j])
            j++;
        if (j - i > glen) {
            gpos = i;
            glen = j - i;
        }
        i = j;
    }
    char *p = out;
    if (gpos == 0 && (glen == 6 || (glen == 5 && w[5] == 0xffff))) {
        p += sprintf(p, glen == 6 ? "::%u.%u.%u.%u" : "::ffff:%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
        return (size_t)(p - out);
    }
    for (int i = 0; i < 8; i++) {
        if (i == gpos) {
            if (i == 0)
                *p++ = ':';
            *p++ = ':';
            i += glen - 1;
            continue;
        }
        p += sprintf(p, "%x", w[i]);
        if (i < 7)
            *p++ = ':';
    }
    *p = 0;
    return (size_t)(p - out);
}

/* ---------------------------------------------------------------- CRC32C (Castagnoli, reflected) */

static uint32_t crc32c(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    static bool ready;
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            table[i] = c;
        }
        __atomic_store_n(&ready, true, __ATOMIC_RELEASE);
    }
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ---------------------------------------------------------------- AES (aes-128-ecb, MariaDB's key folding) */

static int aes(sql_eval_ctx_t *ctx, bool enc, const value_t *data, const value_t *key, value_t *out)
{
    unsigned char rkey[16] = {0};
    for (size_t i = 0; i < key->s.len; i++)
        rkey[i % 16] ^= (unsigned char)key->s.ptr[i];
    if (!enc && (data->s.len == 0 || data->s.len % 16)) {
        *out = value_null();
        return 0;
    }
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (!c)
        return diag_error(ctx->diag, ER_OUT_OF_RESOURCES);
    unsigned char *o = arena_alloc(ctx->arena, data->s.len + 32);
    int l1 = 0, l2 = 0;
    bool ok = EVP_CipherInit_ex(c, EVP_aes_128_ecb(), NULL, rkey, NULL, enc) == 1 &&
              EVP_CipherUpdate(c, o, &l1, (const unsigned char *)data->s.ptr, (int)data->s.len) == 1 &&
              EVP_CipherFinal_ex(c, o + l1, &l2) == 1;
    EVP_CIPHER_CTX_free(c);
    *out = ok ? value_str((const char *)o, (size_t)(l1 + l2), COLL_BINARY) : value_null();
    return 0;
}

/* ---------------------------------------------------------------- ENCODE / DECODE (MariaDB's SQL_CRYPT) */

/* The 323 password hash (OLD_PASSWORD's two words, 31 bits each). */
static void hash323(const char *s, size_t n, uint32_t r[2])
{
    uint32_t nr = 1345345333u, add = 7, nr2 = 0x12345671u;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t')
            continue;
        nr ^= (((nr & 63) + add) * c) + (nr << 8);
        nr2 += (nr2 << 8) ^ nr;
        add += c;
    }
    r[0] = nr & 0x7fffffffu;
    r[1] = nr2 & 0x7fffffffu;
}

typedef struct my_rnd {
    uint64_t s1, s2;
} my_rnd_t;

static double my_rnd(my_rnd_t *r)
{
    r->s1 = (r->s1 * 3 + r->s2) % 0x3FFFFFFFu;
    r->s2 = (r->s1 + r->s2 + 33) % 0x3FFFFFFFu;
    return (double)r->s1 / (double)0x3FFFFFFFu;
}

/* ENCODE(str, key) / DECODE(crypt, key): a byte substitution keyed by the key's 323 hash, chained by a shift. */
static value_t sql_crypt(sql_eval_ctx_t *ctx, bool enc, const value_t *data, const value_t *key)
{
    uint32_t h[2];
    hash323(key->s.ptr, key->s.len, h);
    my_rnd_t r = {h[0] % 0x3FFFFFFFu, h[1] % 0x3FFFFFFFu};
    unsigned char dec[256], encb[256];
    for (int i = 0; i < 256; i++)
        dec[i] = (unsigned char)i;
    for (int i = 0; i < 256; i++) {
        int idx = (int)(unsigned)(my_rnd(&r) * 255.0);
        unsigned char t = dec[idx];
        dec[idx] = dec[i];
        dec[i] = t;
    }
    for (int i = 0; i < 256; i++)
        encb[dec[i]] = (unsigned char)i;
    unsigned char *o = arena_alloc(ctx->arena, data->s.len + 1);
    unsigned shift = 0;
    for (size_t i = 0; i < data->s.len; i++) {
        shift ^= (unsigned)(my_rnd(&r) * 255.0);
        unsigned c = (unsigned char)data->s.ptr[i];
        if (enc) {
            o[i] = (unsigned char)(encb[c] ^ shift);
            shift ^= c;
        } else {
            o[i] = dec[(c ^ shift) & 0xff];
            shift ^= o[i];
        }
    }
    return value_str((const char *)o, data->s.len, COLL_BINARY);
}

/* ---------------------------------------------------------------- WEIGHT_STRING */

static void put_be(buf_t *b, uint32_t w, int bytes)
{
    for (int k = bytes - 1; k >= 0; k--)
        buf_append_byte(b, (uint8_t)(w >> (8 * k)));
}

/* The sort weights of s in its collation (MariaDB's strnxfrm, level 1): nweights characters when > 0 (cut, or
 * padded with the space's weight), every character when 0. */
static value_t weight_string(sql_eval_ctx_t *ctx, const value_t *s, int64_t nweights)
{
    buf_t b;
    buf_init(&b);
    uint16_t coll = s->coll;
    const unsigned char *p = (const unsigned char *)s->s.ptr;
    size_t n = s->s.len, i = 0;
    int64_t chars = 0;
    bool cap = nweights > 0;
    coll_kind_t k = coll_kind_of(coll);
    uint32_t mbmax = coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(coll);
    if (k == COLL_KIND_UCA) {
        const coll_uca_t *u = coll_uca_of(coll);
        while (i < n && (!cap || chars < nweights)) {
            uint32_t w[8];
            uint32_t nw = coll_uca_char(u, p, n, &i, w);
            for (uint32_t j = 0; j < nw; j++)
                if (w[j])
                    put_be(&b, w[j] & 0xffff, 2);
            chars++;
        }
        for (; cap && chars < nweights; chars++)
            put_be(&b, u->space, 2);
    } else if (k == COLL_KIND_UTF8_GENERAL) {
        const uint8_t *bw = coll_byte_weights(k);
        while (i < n && (!cap || chars < nweights)) {
            put_be(&b, coll_weight_next(k, bw, p, n, &i) & 0xffff, 2);
            chars++;
        }
        for (; cap && chars < nweights; chars++)
            put_be(&b, 0x20, 2);
    } else if (k == COLL_KIND_BYTES && mbmax > 1) {
        /* the _bin collations of the UTF-8 sets: the code point (3 bytes for utf8mb4, 2 for utf8mb3) */
        int wb = mbmax == 4 ? 3 : 2;
        while (i < n && (!cap || chars < nweights)) {
            unsigned char c = p[i];
            size_t l = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
            if (i + l > n)
                l = n - i;
            uint32_t cp = l == 1 ? c : l == 2 ? (c & 0x1fu) : l == 3 ? (c & 0x0fu) : (c & 0x07u);
            for (size_t j = 1; j < l; j++)
                cp = cp << 6 | (p[i + j] & 0x3fu);
            i += l;
            put_be(&b, cp, wb);
            chars++;
        }
        for (; cap && chars < nweights; chars++)
            put_be(&b, 0x20, wb);
    } else {
        const uint8_t *bw = coll_byte_weights(k);
        for (; i < n && (!cap || chars < nweights); i++, chars++)
            buf_append_byte(&b, coll == COLL_BINARY ? p[i] : bw[p[i]]);
        for (; cap && chars < nweights; chars++)
            buf_append_byte(&b, coll == COLL_BINARY ? 0 : bw[' ']);
    }
    value_t r = x_str(ctx, b.data, b.len, COLL_BINARY);
    buf_free(&b);
    return r;
}

/* ---------------------------------------------------------------- the evaluator */

int sql_fnextra_format(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, value_t *out)
{
    return format_locale(ctx, e, a, out);
}

int sql_eval_extra_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    diag_t *dg = ctx->diag;
    sql_fn_t fn = e->func.fn;
    /* the functions that see NULL arguments */
    switch (fn) {
    case SQL_FN_INTERVAL: {
        if (a[0].type == VAL_NULL) {
            *out = value_int(-1);
            return 0;
        }
        double x = value_to_double(&a[0], dg);
        uint32_t i = 1;
        for (; i < e->nargs; i++) {
            if (a[i].type == VAL_NULL)
                continue;
            if (x < value_to_double(&a[i], dg))
                break;
        }
        *out = value_int((int64_t)i - 1);
        return 0;
    }
    case SQL_FN_MAKE_SET: {
        if (a[0].type == VAL_NULL) {
            *out = value_null();
            return 0;
        }
        uint64_t bits = value_to_uint(&a[0], dg);
        uint16_t coll = COLL_DEFAULT;
        buf_t b;
        buf_init(&b);
        bool first = true;
        for (uint32_t i = 1; i < e->nargs; i++) {
            if (a[i].type == VAL_STRING)
                coll = a[i].coll;
            if (i > 64 || !(bits >> (i - 1) & 1) || a[i].type == VAL_NULL)
                continue;
            value_t s = x_text(ctx, &a[i]);
            if (!first)
                buf_append_byte(&b, ',');
            buf_append(&b, s.s.ptr, s.s.len);
            first = false;
        }
        *out = x_str(ctx, b.data, b.len, coll);
        buf_free(&b);
        return 0;
    }
    case SQL_FN_FORMAT:
        return format_locale(ctx, e, a, out);
    case SQL_FN_CHR: {
        if (a[0].type == VAL_NULL) {
            *out = value_null();
            return 0;
        }
        sql_expr_t *c = as_fn(ctx, e, SQL_FN_CHAR);
        c->func.using_coll = ctx->conn_coll ? ctx->conn_coll : COLL_DEFAULT;
        return sql_eval_more_fn(ctx, c, a, false, out);
    }
    case SQL_FN_LENGTHB:
        return sql_eval_string_fn(ctx, as_fn(ctx, e, SQL_FN_LENGTH), a, any_null, out);
    case SQL_FN_SYS_GUID: {
        value_t u;
        int rc = sql_eval_more_fn(ctx, as_fn(ctx, e, SQL_FN_UUID), a, false, &u);
        if (rc)
            return rc;
        char *g = arena_alloc(ctx->arena, 33);
        size_t k = 0;
        for (size_t i = 0; i < u.s.len && k < 32; i++)
            if (u.s.ptr[i] != '-')
                g[k++] = u.s.ptr[i];
        g[k] = 0;
        *out = value_str(g, k, COLL_LATIN1_SWEDISH_CI);
        return 0;
    }
    case SQL_FN_MASTER_POS_WAIT:
        if (e->nargs == 4 && a[3].type != VAL_NULL) {
            value_t c = x_text(ctx, &a[3]);
            if (c.s.len)
                diag_warn(dg, ER_MASTER_CONNECTION_NOT_FOUND, arena_strndup(ctx->arena, c.s.ptr, c.s.len));
        }
        *out = value_null(); /* not a replica (MariaDB: NULL when the replica SQL thread is not running) */
        return 0;
    case SQL_FN_IS_IPV4: case SQL_FN_IS_IPV6: {
        if (a[0].type == VAL_NULL) {
            *out = value_int(0);
            return 0;
        }
        value_t s = x_text(ctx, &a[0]);
        unsigned char bin[16];
        int k = inet6_parse(&s, bin);
        *out = value_int(k == (fn == SQL_FN_IS_IPV4 ? 4 : 16));
        return 0;
    }
    case SQL_FN_IS_IPV4_MAPPED: case SQL_FN_IS_IPV4_COMPAT: {
        if (a[0].type == VAL_NULL) {
            *out = value_int(0);
            return 0;
        }
        /* the argument as INET6: 16 binary bytes, or IPv6 text; anything else is 1292 and 0 */
        value_t s = a[0];
        unsigned char tb[16];
        if (!(s.type == VAL_STRING && s.coll == COLL_BINARY && s.s.len == 16)) {
            value_t t = x_text(ctx, &s);
            if (t.coll != COLL_BINARY && memchr(t.s.ptr, ':', t.s.len) && inet6_parse(&t, tb) == 16) {
                s = value_str((const char *)tb, 16, COLL_BINARY);
            } else {
                buf_t m;
                buf_init(&m);
                buf_append(&m, "Incorrect inet6 value: '", 24);
                for (size_t i = 0; i < t.s.len && m.len < 200; i++) {
                    unsigned char ch = (unsigned char)t.s.ptr[i];
                    char hx[5];
                    if (t.coll == COLL_BINARY && (ch < 0x20 || ch >= 0x7f)) {
                        snprintf(hx, sizeof hx, "\\x%02X", ch);
                        buf_append(&m, hx, 4);
                    } else {
                        buf_append_byte(&m, ch);
                    }
                }
                buf_append(&m, "'", 1);
                buf_append_byte(&m, 0);
                diag_push_msg(dg, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, (const char *)m.data);
                buf_free(&m);
                *out = value_int(0);
                return 0;
            }
        }
        const unsigned char *b = (const unsigned char *)s.s.ptr;
        bool r = false;
        if (s.s.len == 16) {
            static const unsigned char zero[12];
            if (fn == SQL_FN_IS_IPV4_MAPPED) {
                r = memcmp(b, zero, 10) == 0 && b[10] == 0xff && b[11] == 0xff;
            } else {
                uint32_t v4 = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
                r = memcmp(b, zero, 12) == 0 && v4 > 1;
            }
        }
        *out = value_int(r);
        return 0;
    }
    default:
        break;
    }
    if (any_null) {
        *out = value_null();
        return 0;
    }
    switch (fn) {
    case SQL_FN_EXPORT_SET: {
        uint64_t bits = value_to_uint(&a[0], dg);
        value_t on = x_text(ctx, &a[1]), off = x_text(ctx, &a[2]);
        value_t sep = e->nargs > 3 ? x_text(ctx, &a[3]) : value_str(",", 1, on.coll);
        uint64_t cnt = 64;
        if (e->nargs > 4) {
            cnt = (uint32_t)value_to_int(&a[4], dg);
            if (cnt > 64)
                cnt = 64;
        }
        buf_t b;
        buf_init(&b);
        for (uint64_t i = 0; i < cnt; i++) {
            if (i)
                buf_append(&b, sep.s.ptr, sep.s.len);
            const value_t *w = bits >> i & 1 ? &on : &off;
            buf_append(&b, w->s.ptr, w->s.len);
        }
        *out = x_str(ctx, b.data, b.len, on.coll);
        buf_free(&b);
        return 0;
    }
    case SQL_FN_TO_SECONDS: {
        value_t days;
        int rc = sql_eval_date_fn(ctx, as_fn(ctx, e, SQL_FN_TO_DAYS), a, false, &days);
        if (rc || days.type == VAL_NULL) {
            *out = days;
            return rc;
        }
        value_t t = a[0];
        if (t.type == VAL_INT || t.type == VAL_UINT || t.type == VAL_DECIMAL || t.type == VAL_DOUBLE) {
            /* a number: YYYYMMDD or YYYYMMDDhhmmss (its integer part) */
            uint64_t v = value_to_uint(&t, dg);
            int64_t hms = v > 99999999 ? (int64_t)(v % 1000000) : 0;
            *out = value_int(days.i * 86400 + hms / 10000 * 3600 + hms / 100 % 100 * 60 + hms % 100);
            return 0;
        }
        if (!value_is_temporal(&t)) {
            value_t s = x_text(ctx, &a[0]);
            if (!value_parse_datetime(s.s.ptr, s.s.len, &t))
                t.type = VAL_DATE, t.t.hour = t.t.minute = t.t.second = 0;
        }
        int64_t secs = t.type == VAL_DATE ? 0 : (int64_t)t.t.hour * 3600 + t.t.minute * 60 + t.t.second;
        *out = value_int(days.i * 86400 + secs);
        return 0;
    }
    case SQL_FN_PERIOD_ADD: {
        uint64_t period = value_to_uint(&a[0], dg);
        int months = (int)value_to_int(&a[1], dg);
        if (!period) {
            *out = value_int(0);
            return 0;
        }
        *out = value_int((int64_t)month_to_period((uint32_t)((int)period_to_month(period) + months)));
        return 0;
    }
    case SQL_FN_PERIOD_DIFF: {
        uint64_t p1 = value_to_uint(&a[0], dg), p2 = value_to_uint(&a[1], dg);
        *out = value_int((int64_t)(long)period_to_month(p1) - (int64_t)(long)period_to_month(p2));
        return 0;
    }
    case SQL_FN_GET_FORMAT: {
        value_t k = x_text(ctx, &a[0]), s = x_text(ctx, &a[1]);
        const char *f = get_format(&k, &s);
        uint16_t coll = ctx->conn_coll ? ctx->conn_coll : COLL_DEFAULT;
        *out = f ? value_str(f, strlen(f), coll) : value_null();
        return 0;
    }
    case SQL_FN_COMPRESS: {
        value_t s = x_text(ctx, &a[0]);
        if (!s.s.len) {
            *out = value_str("", 0, COLL_BINARY);
            return 0;
        }
        uLongf n = compressBound((uLong)s.s.len);
        unsigned char *o = arena_alloc(ctx->arena, n + 5);
        if (compress(o + 4, &n, (const Bytef *)s.s.ptr, (uLong)s.s.len) != Z_OK) {
            diag_warn(dg, ER_ZLIB_Z_MEM_ERROR);
            *out = value_null();
            return 0;
        }
        uint32_t l = (uint32_t)s.s.len & 0x3FFFFFFF;
        o[0] = (unsigned char)l, o[1] = (unsigned char)(l >> 8), o[2] = (unsigned char)(l >> 16);
        o[3] = (unsigned char)(l >> 24);
        n += 4;
        if (o[n - 1] == ' ') /* MariaDB: so that a CHAR column's trailing-space trim does not cut it */
            o[n++] = '.';
        *out = value_str((const char *)o, n, COLL_BINARY);
        return 0;
    }
    case SQL_FN_UNCOMPRESS: case SQL_FN_UNCOMPRESSED_LENGTH: {
        value_t s = x_text(ctx, &a[0]);
        if (!s.s.len) {
            *out = fn == SQL_FN_UNCOMPRESS ? value_str("", 0, COLL_BINARY) : value_int(0);
            return 0;
        }
        if (s.s.len <= 4) {
            diag_warn(dg, ER_ZLIB_Z_DATA_ERROR);
            *out = value_null();
            return 0;
        }
        const unsigned char *p = (const unsigned char *)s.s.ptr;
        uint32_t want = ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24) &
                        0x3FFFFFFF;
        if (fn == SQL_FN_UNCOMPRESSED_LENGTH) {
            *out = value_int(want);
            return 0;
        }
        uint64_t maxp = ctx->max_allowed_packet ? ctx->max_allowed_packet : 16777216;
        if (want > maxp) {
            diag_warn(dg, ER_TOO_BIG_FOR_UNCOMPRESS, (int)maxp);
            *out = value_null();
            return 0;
        }
        unsigned char *o = arena_alloc(ctx->arena, (size_t)want + 1);
        uLongf n = want;
        int zr = uncompress(o, &n, p + 4, (uLong)(s.s.len - 4));
        if (zr != Z_OK) {
            diag_warn(dg, zr == Z_BUF_ERROR ? ER_ZLIB_Z_BUF_ERROR : zr == Z_MEM_ERROR ? ER_ZLIB_Z_MEM_ERROR
                                                                                    : ER_ZLIB_Z_DATA_ERROR);
            *out = value_null();
            return 0;
        }
        *out = value_str((const char *)o, n, COLL_BINARY);
        return 0;
    }
    case SQL_FN_INET6_ATON: {
        value_t s = x_text(ctx, &a[0]);
        unsigned char bin[16];
        int k = inet6_parse(&s, bin);
        *out = k ? x_str(ctx, bin, (size_t)k, COLL_BINARY) : value_null();
        return 0;
    }
    case SQL_FN_INET6_NTOA: {
        value_t s = a[0];
        if (s.type != VAL_STRING || s.coll != COLL_BINARY || (s.s.len != 4 && s.s.len != 16)) {
            *out = value_null();
            return 0;
        }
        char buf[64];
        size_t n;
        const unsigned char *b = (const unsigned char *)s.s.ptr;
        if (s.s.len == 4)
            n = (size_t)sprintf(buf, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
        else
            n = inet6_format(b, buf);
        *out = x_str(ctx, buf, n, ctx->conn_coll ? ctx->conn_coll : COLL_DEFAULT);
        return 0;
    }
    case SQL_FN_RANDOM_BYTES: {
        int64_t n = value_to_int(&a[0], dg);
        if (n < 0 || n > 1024) {
            *out = value_null();
            return 0;
        }
        unsigned char *o = arena_alloc(ctx->arena, (size_t)n + 1);
        if (n && RAND_bytes(o, (int)n) != 1) {
            *out = value_null();
            return 0;
        }
        *out = value_str((const char *)o, (size_t)n, COLL_BINARY);
        return 0;
    }
    case SQL_FN_AES_ENCRYPT: case SQL_FN_AES_DECRYPT: {
        value_t d = x_text(ctx, &a[0]), k = x_text(ctx, &a[1]);
        return aes(ctx, fn == SQL_FN_AES_ENCRYPT, &d, &k, out);
    }
    case SQL_FN_WEIGHT_STRING: {
        value_t s = x_text(ctx, &a[0]);
        int64_t nw = 0;
        if (e->nargs == 3) {
            nw = value_to_int(&a[1], dg);
            if (a[2].s.len && a[2].s.ptr[0] == 'B') { /* AS BINARY(n): the bytes, cut (1292) or 0-padded to n */
                s.coll = COLL_BINARY;
                if ((int64_t)s.s.len > nw) {
                    size_t tn;
                    const char *t = value_to_text(ctx->arena, &a[0], &tn);
                    char *m = arena_printf(ctx->arena, "Truncated incorrect BINARY(%lld) value: '%.*s'", (long long)nw,
                                           (int)MIN(tn, 128), t ? t : "");
                    diag_push_msg(dg, DIAG_WARNING, ER_TRUNCATED_WRONG_VALUE, m);
                }
            }
        }
        *out = weight_string(ctx, &s, nw);
        return 0;
    }
    case SQL_FN_ENCODE: case SQL_FN_DECODE: {
        value_t d = x_text(ctx, &a[0]), k = x_text(ctx, &a[1]);
        *out = sql_crypt(ctx, fn == SQL_FN_ENCODE, &d, &k);
        return 0;
    }
    case SQL_FN_OLD_PASSWORD: {
        value_t s = x_text(ctx, &a[0]);
        if (!s.s.len) {
            *out = value_str("", 0, COLL_DEFAULT);
            return 0;
        }
        uint32_t h[2];
        hash323(s.s.ptr, s.s.len, h);
        char buf[17];
        snprintf(buf, sizeof buf, "%08x%08x", h[0], h[1]);
        *out = x_str(ctx, buf, 16, ctx->conn_coll ? ctx->conn_coll : COLL_DEFAULT);
        return 0;
    }
    case SQL_FN_CRC32C: {
        uint32_t crc = 0;
        const value_t *v = &a[0];
        if (e->nargs == 2) {
            crc = (uint32_t)value_to_uint(&a[0], dg);
            v = &a[1];
        }
        value_t s = x_text(ctx, v);
        *out = value_int(crc32c(crc, (const unsigned char *)s.s.ptr, s.s.len));
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}
