/*
 * System variables: the table generated from sysvar.def, the global store, session values, and SET's checks.
 * See sysvar.h for the API and the locking scheme.  Value rules follow MariaDB 10.11 (checked against a live
 * server): integers are clamped to [min, max] and rounded down to the block size with warning 1292; strings for
 * numeric variables are error 1232 (except at start-up, where "16M" is fine); bad names for enums, sets and
 * booleans are error 1231 naming the offending value.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "session/sysvar.h"

struct sysvar_str {
    _Atomic uint32_t ref;
    uint32_t len;
    char s[];
};

/* ------------------------------------------------------------------------------------------------------------ */
/* The table */

#define SV_SCOPE_OF_G SV_SCOPE_GLOBAL
#define SV_SCOPE_OF_S SV_SCOPE_SESSION_ONLY
#define SV_SCOPE_OF_B SV_SCOPE_BOTH
#define SV_SLOTNUM_G(id) -1
#define SV_SLOTNUM_S(id) SYSVAR_SLOT_##id
#define SV_SLOTNUM_B(id) SYSVAR_SLOT_##id

/* Alias rows carry only name, id and target (slot -1); every rule is read from sysvar_real(def). */
const sysvar_def_t sysvar_defs[SYSVAR__COUNT] = {
#define SYSVAR(id_, name_, type_, scope_, flags_, min_, max_, block_, dflt_, values_, desc_)                 \
    [SYSVAR_##id_] = {.name = name_, .id = SYSVAR_##id_, .target = SYSVAR_##id_, .type = SV_T_##type_,     \
                      .scope = SV_SCOPE_OF_##scope_, .flags = (flags_), .min = (min_), .max = (max_),      \
                      .block = (block_), .dflt = dflt_, .values = values_, .desc = desc_,                  \
                      .slot = SV_SLOTNUM_##scope_(id_)},
#define SYSVAR_ALIAS(id_, name_, target_)                                                                    \
    [SYSVAR_##id_] = {.name = name_, .id = SYSVAR_##id_, .target = SYSVAR_##target_, .slot = -1},
#include "session/sysvar.def"
#undef SYSVAR
#undef SYSVAR_ALIAS
};

/* The definition that holds the storage and the rules: the target for an alias. */
static inline const sysvar_def_t *sv_real(const sysvar_def_t *def) { return sysvar_real(def); }

static int sv_namecmp(const char *a, size_t alen, const char *b)
{
    for (size_t i = 0; i < alen; i++) {
        int ca = tolower((unsigned char)a[i]);
        if (ca == '-')
            ca = '_';
        int cb = (unsigned char)b[i];
        if (ca != cb)
            return ca - cb;
        if (!cb)
            return 1;
    }
    return b[alen] ? -1 : 0;
}

const sysvar_def_t *sysvar_findn(const char *name, size_t len)
{
    size_t lo = 0, hi = SYSVAR__COUNT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = sv_namecmp(name, len, sysvar_defs[mid].name);
        if (c == 0)
            return &sysvar_defs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const sysvar_def_t *sysvar_find(const char *name) { return sysvar_findn(name, strlen(name)); }

/* ------------------------------------------------------------------------------------------------------------ */
/* Names of ENUM / SET / FLAGSET values: the comma-separated list is short, so it is walked, not indexed. */

static bool sv_list_item(const char *list, unsigned i, const char **p, size_t *n)
{
    if (!list)
        return false;
    const char *s = list;
    for (unsigned k = 0; k < i; k++) {
        s = strchr(s, ',');
        if (!s)
            return false;
        s++;
    }
    const char *e = strchr(s, ',');
    *p = s;
    *n = e ? (size_t)(e - s) : strlen(s);
    return true;
}

unsigned sysvar_value_count(const sysvar_def_t *def)
{
    def = sv_real(def);
    if (def->type == SV_T_BOOL)
        return 2;
    if (!def->values)
        return 0;
    unsigned n = 1;
    for (const char *s = def->values; *s; s++)
        n += *s == ',';
    return n;
}

int sysvar_value_name(const sysvar_def_t *def, unsigned i, char *buf, size_t bufsize)
{
    def = sv_real(def);
    const char *p;
    size_t n;
    if (def->type == SV_T_BOOL) {
        if (i > 1)
            return -1;
        p = i ? "ON" : "OFF";
        n = strlen(p);
    } else if (!sv_list_item(def->values, i, &p, &n)) {
        return -1;
    }
    snprintf(buf, bufsize, "%.*s", (int)n, p);
    return (int)n;
}

/* Index of name (len n, case-insensitive) in the list, or -1. */
static int sv_list_find(const char *list, const char *name, size_t n)
{
    const char *p;
    size_t len;
    for (unsigned i = 0; sv_list_item(list, i, &p, &len); i++)
        if (len == n && strncasecmp(p, name, n) == 0)
            return (int)i;
    return -1;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Reference-counted strings */

static sysvar_str_t *sv_str_new(const char *s, size_t n)
{
    sysvar_str_t *x = mem_alloc(sizeof *x + n + 1);
    atomic_init(&x->ref, 1);
    x->len = (uint32_t)n;
    memcpy(x->s, s, n);
    x->s[n] = 0;
    return x;
}

static sysvar_str_t *sv_str_ref(sysvar_str_t *x)
{
    if (x)
        atomic_fetch_add_explicit(&x->ref, 1, memory_order_relaxed);
    return x;
}

static void sv_str_unref(sysvar_str_t *x)
{
    if (x && atomic_fetch_sub_explicit(&x->ref, 1, memory_order_acq_rel) == 1)
        mem_free(x);
}

static bool sv_is_str_type(sysvar_type_t t)
{
    return t == SV_T_STR || t == SV_T_CHARSET || t == SV_T_COLLATION || t == SV_T_TIMEZONE ||
           t == SV_T_LOCALE || t == SV_T_ENGINE;
}

static int64_t sv_dbl_bits(double d)
{
    int64_t i;
    memcpy(&i, &d, sizeof i);
    return i;
}

static double sv_bits_dbl(int64_t i)
{
    double d;
    memcpy(&d, &i, sizeof d);
    return d;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Character sets, collations, locales, engines, time zones */

static const sysvar_collation_t sv_collations[] = {
    {"big5_chinese_ci", "big5", 1, true},
    {"latin2_general_ci", "latin2", 9, true},
    {"latin1_swedish_ci", "latin1", 8, true},
    {"ascii_general_ci", "ascii", 11, true},
    {"ujis_japanese_ci", "ujis", 12, true},
    {"sjis_japanese_ci", "sjis", 13, true},
    {"hebrew_general_ci", "hebrew", 16, true},
    {"euckr_korean_ci", "euckr", 19, true},
    {"gb2312_chinese_ci", "gb2312", 24, true},
    {"greek_general_ci", "greek", 25, true},
    {"cp1250_general_ci", "cp1250", 26, true},
    {"gbk_chinese_ci", "gbk", 28, true},
    {"latin5_turkish_ci", "latin5", 30, true},
    {"utf8mb3_general_ci", "utf8mb3", 33, true},
    {"ucs2_general_ci", "ucs2", 35, true},
    {"cp866_general_ci", "cp866", 36, true},
    {"utf8mb4_general_ci", "utf8mb4", 45, true},
    {"utf8mb4_bin", "utf8mb4", 46, false},
    {"latin1_bin", "latin1", 47, false},
    {"latin1_general_ci", "latin1", 48, false},
    {"latin1_general_cs", "latin1", 49, false},
    {"cp1251_general_ci", "cp1251", 51, true},
    {"utf16_general_ci", "utf16", 54, true},
    {"utf16_bin", "utf16", 55, false},
    {"utf16le_general_ci", "utf16le", 56, true},
    {"cp1256_general_ci", "cp1256", 57, true},
    {"cp1257_general_ci", "cp1257", 59, true},
    {"utf32_general_ci", "utf32", 60, true},
    {"utf32_bin", "utf32", 61, false},
    {"binary", "binary", 63, true},
    {"ascii_bin", "ascii", 65, false},
    {"utf8mb3_bin", "utf8mb3", 83, false},
    {"ucs2_bin", "ucs2", 90, false},
    {"utf8mb3_unicode_ci", "utf8mb3", 192, false},
    {"utf8mb3_unicode_520_ci", "utf8mb3", 214, false},
    {"utf8mb4_unicode_ci", "utf8mb4", 224, false},
    {"utf8mb4_unicode_520_ci", "utf8mb4", 246, false},
    {"utf8mb3_uca1400_ai_ci", "utf8mb3", 2048, false},
    {"utf8mb4_uca1400_ai_ci", "utf8mb4", 2304, false},
};

const sysvar_collation_t *sysvar_collation_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(sv_collations); i++)
        if (strcasecmp(sv_collations[i].name, name) == 0)
            return &sv_collations[i];
    /* utf8_* names mean utf8mb3_* */
    if (strncasecmp(name, "utf8_", 5) == 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "utf8mb3_%s", name + 5);
        return sysvar_collation_find(buf);
    }
    return NULL;
}

const sysvar_collation_t *sysvar_collation_by_id(unsigned id)
{
    for (size_t i = 0; i < ARRAY_LEN(sv_collations); i++)
        if (sv_collations[i].id == id)
            return &sv_collations[i];
    return NULL;
}

const sysvar_collation_t *sysvar_charset_find(const char *cs)
{
    if (strcasecmp(cs, "utf8") == 0)
        cs = "utf8mb3";
    for (size_t i = 0; i < ARRAY_LEN(sv_collations); i++)
        if (sv_collations[i].is_default && strcasecmp(sv_collations[i].charset, cs) == 0)
            return &sv_collations[i];
    return NULL;
}

static const char *const sv_locales[] = {
    "en_US", "en_GB", "en_AU", "en_CA", "en_IN", "en_NZ", "en_ZA", "de_DE", "de_AT", "de_CH", "fr_FR",
    "fr_CA", "fr_BE", "fr_CH", "es_ES", "es_MX", "it_IT", "pt_PT", "pt_BR", "nl_NL", "sv_SE", "nb_NO", "da_DK",
    "fi_FI", "pl_PL", "cs_CZ", "ru_RU", "uk_UA", "ja_JP", "ko_KR", "zh_CN", "zh_TW", "tr_TR", "el_GR", "hu_HU",
    "ro_RO", "ar_SA", "he_IL", "hi_IN", "th_TH", "vi_VN", "id_ID",
};

/* Engines the SQL layer accepts by name; every one of them is strata's engine underneath. */
static const char *const sv_engines[] = {"InnoDB", "MyISAM", "Aria", "MEMORY"};

/* SYSTEM, or [+-]H[H]:MM within -12:59 .. +13:00 as MariaDB accepts; canonical form written to out. */
static bool sv_timezone_ok(const char *s, char *out, size_t n)
{
    if (strcasecmp(s, "SYSTEM") == 0) {
        snprintf(out, n, "SYSTEM");
        return true;
    }
    int sign = 0, h = 0, m = 0;
    if (*s == '+')
        sign = 1;
    else if (*s == '-')
        sign = -1;
    else
        return false;
    s++;
    if (!isdigit((unsigned char)*s))
        return false;
    while (isdigit((unsigned char)*s) && h < 100)
        h = h * 10 + (*s++ - '0');
    if (*s++ != ':' || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) || s[2])
        return false;
    m = (s[0] - '0') * 10 + (s[1] - '0');
    if (m > 59)
        return false;
    int mins = sign * (h * 60 + m);
    if (mins < -(12 * 60 + 59) || mins > 13 * 60)
        return false;
    snprintf(out, n, "%c%02d:%02d", sign < 0 ? '-' : '+', h, m);
    return true;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* sql_mode combination modes: setting one sets the modes it stands for as well (MariaDB's expand_sql_mode). */

static int64_t sv_bit(const sysvar_def_t *def, const char *name)
{
    int i = sv_list_find(def->values, name, strlen(name));
    ASSERT(i >= 0);
    return (int64_t)1 << i;
}

static int64_t sv_sql_mode_expand(int64_t m)
{
    const sysvar_def_t *d = &sysvar_defs[SYSVAR_SQL_MODE];
#define B(n) sv_bit(d, n)
    int64_t common = B("PIPES_AS_CONCAT") | B("ANSI_QUOTES") | B("IGNORE_SPACE") | B("NO_KEY_OPTIONS") |
                     B("NO_TABLE_OPTIONS") | B("NO_FIELD_OPTIONS");
    if (m & B("ANSI"))
        m |= B("REAL_AS_FLOAT") | B("PIPES_AS_CONCAT") | B("ANSI_QUOTES") | B("IGNORE_SPACE");
    if (m & (B("POSTGRESQL") | B("MSSQL") | B("DB2")))
        m |= common;
    if (m & B("ORACLE"))
        m |= common | B("NO_AUTO_CREATE_USER") | B("SIMULTANEOUS_ASSIGNMENT");
    if (m & B("MAXDB"))
        m |= common | B("NO_AUTO_CREATE_USER");
    if (m & (B("MYSQL323") | B("MYSQL40")))
        m |= B("HIGH_NOT_PRECEDENCE");
    if (m & B("TRADITIONAL"))
        m |= B("STRICT_TRANS_TABLES") | B("STRICT_ALL_TABLES") | B("NO_ZERO_IN_DATE") | B("NO_ZERO_DATE") |
             B("ERROR_FOR_DIVISION_BY_ZERO") | B("NO_AUTO_CREATE_USER") | B("NO_ENGINE_SUBSTITUTION");
#undef B
    return m;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Parsing values.  A parsed value is either a number (.i, or .d for DOUBLE) or a string object (.s). */

typedef struct sv_parsed {
    int64_t i;
    sysvar_str_t *s; /* owned until stored */
    bool is_null;    /* string NULL (SV_NULLABLE) */
} sv_parsed_t;

typedef enum { SV_IN_TEXT, SV_IN_INT, SV_IN_DOUBLE } sv_in_kind_t;
typedef struct sv_input {
    sv_in_kind_t kind;
    const char *text; /* NULL = SQL NULL */
    int64_t i;
    bool is_unsigned;
    double d;
} sv_input_t;

static void sv_input_text(const sv_input_t *in, char *buf, size_t n)
{
    switch (in->kind) {
    case SV_IN_TEXT:
        snprintf(buf, n, "%s", in->text ? in->text : "NULL");
        break;
    case SV_IN_INT:
        if (in->is_unsigned)
            snprintf(buf, n, "%" PRIu64, (uint64_t)in->i);
        else
            snprintf(buf, n, "%" PRId64, in->i);
        break;
    case SV_IN_DOUBLE:
        snprintf(buf, n, "%g", in->d);
        break;
    }
}

static int sv_err_value(const sysvar_def_t *def, const sv_input_t *in, diag_t *d)
{
    char b[256];
    sv_input_text(in, b, sizeof b);
    return diag_error(d, ER_WRONG_VALUE_FOR_VAR, def->name, b);
}

static int sv_err_value_str(const sysvar_def_t *def, const char *s, size_t n, diag_t *d)
{
    char b[256];
    snprintf(b, sizeof b, "%.*s", (int)MIN(n, sizeof b - 1), s);
    return diag_error(d, ER_WRONG_VALUE_FOR_VAR, def->name, b);
}

/* A start-up number: decimal (or 0x hex) with an optional K/M/G/T/P/E suffix (powers of 1024), as my_getopt. */
static int sv_parse_number(const char *s, bool *neg, uint64_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    *neg = false;
    if (*s == '-') {
        *neg = true;
        s++;
    } else if (*s == '+')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    uint64_t v = strtoull(s, &end, 0);
    if (errno == ERANGE)
        v = UINT64_MAX;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    case 'P': shift = 50; break;
    case 'E': shift = 60; break;
    default: break;
    }
    if (shift) {
        end++;
        v = v > (UINT64_MAX >> shift) ? UINT64_MAX : v << shift;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* Clamp an integer to the variable's range and block size; warn 1292 when it changed. */
static int64_t sv_clamp_int(const sysvar_def_t *def, const sysvar_def_t *real, bool neg, uint64_t mag,
                            const sv_input_t *in, diag_t *d)
{
    bool adjusted = false;
    int64_t result;
    if (real->type == SV_T_UINT) {
        uint64_t v;
        if (neg && mag) {
            v = (uint64_t)real->min;
            adjusted = true;
        } else {
            v = mag;
            if (v > real->max) {
                v = real->max;
                adjusted = true;
            }
            uint64_t blk = real->block ? real->block : 1;
            uint64_t r = v / blk * blk;
            if (r != v)
                adjusted = true;
            v = r;
            if (v < (uint64_t)real->min) {
                v = (uint64_t)real->min;
                adjusted = true;
            }
        }
        result = (int64_t)v;
    } else { /* INT */
        int64_t max = real->max > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)real->max;
        int64_t v;
        if (neg)
            v = mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;
        else
            v = mag > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)mag;
        if (v > max) {
            v = max;
            adjusted = true;
        }
        if (v < real->min) {
            v = real->min;
            adjusted = true;
        }
        result = v;
    }
    if (adjusted) {
        char b[256];
        sv_input_text(in, b, sizeof b);
        diag_warn(d, ER_TRUNCATED_WRONG_VALUE, def->name, b);
    }
    return result;
}

/* One SET element list ("a,b,,c") into a bitmask; empty elements are skipped, others must match exactly. */
static int sv_parse_set(const sysvar_def_t *def, const sysvar_def_t *real, const char *s, int64_t *out, diag_t *d)
{
    int64_t m = 0;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n) {
            int i = sv_list_find(real->values, s, n);
            if (i < 0)
                return sv_err_value_str(def, s, n, d);
            m |= (int64_t)1 << i;
        }
        s += n + (e ? 1 : 0);
    }
    *out = m;
    return 0;
}

/* optimizer_switch style: "name=on|off|default" elements, or "default", applied on top of base. */
static int sv_parse_flagset(const sysvar_def_t *def, const sysvar_def_t *real, const char *s, int64_t base,
                            int64_t dflt, int64_t *out, diag_t *d)
{
    int64_t m = base;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n) {
            const char *eq = memchr(s, '=', n);
            if (!eq) {
                if (n == 7 && strncasecmp(s, "default", 7) == 0)
                    m = dflt;
                else
                    return sv_err_value_str(def, s, n, d);
            } else {
                int i = sv_list_find(real->values, s, (size_t)(eq - s));
                size_t vn = n - (size_t)(eq - s) - 1;
                const char *v = eq + 1;
                if (i < 0)
                    return sv_err_value_str(def, s, n, d);
                int64_t bit = (int64_t)1 << i;
                if (vn == 2 && strncasecmp(v, "on", 2) == 0)
                    m |= bit;
                else if (vn == 3 && strncasecmp(v, "off", 3) == 0)
                    m &= ~bit;
                else if (vn == 7 && strncasecmp(v, "default", 7) == 0)
                    m = (m & ~bit) | (dflt & bit);
                else
                    return sv_err_value_str(def, s, n, d);
            }
        }
        s += n + (e ? 1 : 0);
    }
    *out = m;
    return 0;
}

static int64_t sv_flagset_default(const sysvar_def_t *real)
{
    int64_t m = 0;
    if (real->type != SV_T_FLAGSET)
        return 0;
    diag_t d;
    diag_init(&d, 1);
    sv_parse_flagset(real, real, real->dflt, 0, 0, &m, &d);
    diag_free(&d);
    return m;
}

/* Converts an input into the stored form for real's type, with MySQL's errors.  base is the current value
 * (FLAGSET edits it).  startup allows numeric text with suffixes. */
static int sv_convert(const sysvar_def_t *def, const sv_input_t *in, bool startup, int64_t base, sv_parsed_t *p,
                      diag_t *d)
{
    const sysvar_def_t *real = sv_real(def);
    memset(p, 0, sizeof *p);
    const char *t = in->kind == SV_IN_TEXT ? in->text : NULL;
    bool is_null = in->kind == SV_IN_TEXT && !in->text;

    switch (real->type) {
    case SV_T_BOOL:
        if (in->kind == SV_IN_DOUBLE)
            return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        if (in->kind == SV_IN_INT) {
            if (in->i != 0 && in->i != 1)
                return sv_err_value(def, in, d);
            p->i = in->i;
            return 0;
        }
        if (is_null)
            return sv_err_value(def, in, d);
        if (!strcasecmp(t, "ON") || !strcasecmp(t, "TRUE") || !strcmp(t, "1"))
            p->i = 1;
        else if (!strcasecmp(t, "OFF") || !strcasecmp(t, "FALSE") || !strcmp(t, "0"))
            p->i = 0;
        else
            return sv_err_value(def, in, d);
        return 0;

    case SV_T_UINT:
    case SV_T_INT: {
        bool neg;
        uint64_t mag;
        if (in->kind == SV_IN_INT) {
            neg = !in->is_unsigned && in->i < 0;
            mag = neg ? (uint64_t)0 - (uint64_t)in->i : (uint64_t)in->i;
        } else if (in->kind == SV_IN_TEXT && startup && t && sv_parse_number(t, &neg, &mag) == 0) {
            /* ok */
        } else {
            return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        }
        p->i = sv_clamp_int(def, real, neg, mag, in, d);
        return 0;
    }

    case SV_T_DOUBLE: {
        double v;
        if (in->kind == SV_IN_DOUBLE)
            v = in->d;
        else if (in->kind == SV_IN_INT)
            v = in->is_unsigned ? (double)(uint64_t)in->i : (double)in->i;
        else if (startup && t) {
            char *end;
            v = strtod(t, &end);
            if (end == t || *end)
                return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        } else
            return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        if (isnan(v))
            return sv_err_value(def, in, d);
        double lo = (double)real->min, hi = (double)real->max;
        if (v < lo || v > hi) {
            char b[256];
            sv_input_text(in, b, sizeof b);
            diag_warn(d, ER_TRUNCATED_WRONG_VALUE, def->name, b);
            v = v < lo ? lo : hi;
        }
        p->i = sv_dbl_bits(v);
        return 0;
    }

    case SV_T_ENUM:
        if (in->kind == SV_IN_DOUBLE)
            return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        if (in->kind == SV_IN_INT) {
            if (in->is_unsigned ? (uint64_t)in->i >= sysvar_value_count(real)
                                : (in->i < 0 || in->i >= (int64_t)sysvar_value_count(real)))
                return sv_err_value(def, in, d);
            p->i = in->i;
            return 0;
        }
        if (is_null)
            return sv_err_value(def, in, d);
        {
            int i = sv_list_find(real->values, t, strlen(t));
            if (i < 0 && startup && isdigit((unsigned char)t[0])) {
                char *end;
                unsigned long k = strtoul(t, &end, 10);
                if (!*end && k < sysvar_value_count(real))
                    i = (int)k;
            }
            if (i < 0)
                return sv_err_value(def, in, d);
            p->i = i;
        }
        return 0;

    case SV_T_SET: {
        if (in->kind == SV_IN_DOUBLE)
            return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        unsigned n = sysvar_value_count(real);
        if (in->kind == SV_IN_INT) {
            uint64_t v = (uint64_t)in->i;
            if ((!in->is_unsigned && in->i < 0) || (n < 64 && (v >> n) != 0))
                return sv_err_value(def, in, d);
            p->i = (int64_t)v;
        } else if (is_null) {
            return sv_err_value(def, in, d);
        } else {
            int rc = sv_parse_set(def, real, t, &p->i, d);
            if (rc)
                return rc;
        }
        if (real->id == SYSVAR_SQL_MODE)
            p->i = sv_sql_mode_expand(p->i);
        return 0;
    }

    case SV_T_FLAGSET:
        if (in->kind != SV_IN_TEXT)
            return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
        if (is_null)
            return sv_err_value(def, in, d);
        return sv_parse_flagset(def, real, t, base, sv_flagset_default(real), &p->i, d);

    default:
        break;
    }

    /* String kinds */
    if (in->kind == SV_IN_DOUBLE)
        return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
    if (in->kind == SV_IN_INT && real->type != SV_T_CHARSET && real->type != SV_T_COLLATION)
        return diag_error(d, ER_WRONG_TYPE_FOR_VAR, def->name);
    if (is_null) {
        if (real->flags & SV_NULLABLE) {
            p->is_null = true;
            return 0;
        }
        if (real->type != SV_T_STR)
            return sv_err_value(def, in, d);
        t = "";
    }
    const char *store = t;
    char tmp[64];
    switch (real->type) {
    case SV_T_CHARSET: {
        const sysvar_collation_t *c;
        if (in->kind == SV_IN_INT) {
            c = sysvar_collation_by_id((unsigned)in->i);
            if (!c) {
                char b[32];
                sv_input_text(in, b, sizeof b);
                return diag_error(d, ER_UNKNOWN_CHARACTER_SET, b);
            }
        } else {
            c = sysvar_charset_find(t);
            if (!c)
                return diag_error(d, ER_UNKNOWN_CHARACTER_SET, t);
        }
        store = c->charset;
        break;
    }
    case SV_T_COLLATION: {
        const sysvar_collation_t *c;
        if (in->kind == SV_IN_INT) {
            c = sysvar_collation_by_id((unsigned)in->i);
            if (!c) {
                char b[32];
                sv_input_text(in, b, sizeof b);
                return diag_error(d, ER_UNKNOWN_COLLATION, b);
            }
        } else {
            c = sysvar_collation_find(t);
            if (!c)
                return diag_error(d, ER_UNKNOWN_COLLATION, t);
        }
        store = c->name;
        break;
    }
    case SV_T_TIMEZONE:
        if (!sv_timezone_ok(t, tmp, sizeof tmp))
            return diag_error(d, ER_UNKNOWN_TIME_ZONE, t);
        store = tmp;
        break;
    case SV_T_LOCALE: {
        size_t i;
        for (i = 0; i < ARRAY_LEN(sv_locales); i++)
            if (strcasecmp(sv_locales[i], t) == 0)
                break;
        if (i == ARRAY_LEN(sv_locales)) {
            char msg[300];
            snprintf(msg, sizeof msg, "Unknown locale: '%.200s'", t);
            return diag_push_msg(d, DIAG_ERROR, 1649, msg); /* ER_UNKNOWN_LOCALE, not in errors.def yet */
        }
        store = sv_locales[i];
        break;
    }
    case SV_T_ENGINE: {
        size_t i;
        for (i = 0; i < ARRAY_LEN(sv_engines); i++)
            if (strcasecmp(sv_engines[i], t) == 0)
                break;
        if (i == ARRAY_LEN(sv_engines))
            return diag_error(d, ER_UNKNOWN_STORAGE_ENGINE, t);
        store = sv_engines[i];
        break;
    }
    default:
        break;
    }
    p->s = sv_str_new(store, strlen(store));
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Store */

/* Writes a parsed value into the global cell of real (lock held). */
static void sv_global_put(sysvar_store_t *st, const sysvar_def_t *real, sv_parsed_t *p)
{
    if (sv_is_str_type(real->type)) {
        sysvar_str_t *old = st->str[real->id];
        st->str[real->id] = p->s;
        p->s = NULL;
        sv_str_unref(old);
    } else {
        atomic_store_explicit(&st->num[real->id], p->i, memory_order_relaxed);
    }
}

static void sv_session_put(sysvar_session_t *ss, const sysvar_def_t *real, sv_parsed_t *p)
{
    if (sv_is_str_type(real->type)) {
        sysvar_str_t *old = ss->cell[real->slot].s;
        ss->cell[real->slot].s = p->s;
        p->s = NULL;
        sv_str_unref(old);
    } else {
        ss->cell[real->slot].i = p->i;
    }
}

/* The compiled default as a parsed value; an empty default of a nullable string is NULL. */
static int sv_convert_default(const sysvar_def_t *real, sv_parsed_t *p, diag_t *d)
{
    if ((real->flags & SV_NULLABLE) && !real->dflt[0]) {
        memset(p, 0, sizeof *p);
        p->is_null = true;
        return 0;
    }
    sv_input_t in = {.kind = SV_IN_TEXT, .text = real->dflt};
    return sv_convert(real, &in, true, sv_flagset_default(real), p, d);
}

static int sv_set_default_global_locked(sysvar_store_t *st, const sysvar_def_t *real)
{
    sv_parsed_t p;
    diag_t d;
    diag_init(&d, 4);
    int rc = sv_convert_default(real, &p, &d);
    if (rc == 0)
        sv_global_put(st, real, &p);
    diag_free(&d);
    return rc;
}

static void sv_set_computed_defaults(sysvar_store_t *st)
{
    char host[256] = "localhost";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "localhost");
    sysvar_global_set_str(st, SYSVAR_HOSTNAME, host);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    sysvar_global_set_int(st, SYSVAR_THREAD_POOL_SIZE, ncpu > 0 ? ncpu : 1);
    tzset();
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    sysvar_global_set_str(st, SYSVAR_SYSTEM_TIME_ZONE, tm.tm_zone ? tm.tm_zone : "UTC");
}

int sysvar_store_init(sysvar_store_t *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_init(&st->lock, NULL);
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        /* the table must stay sorted for the binary search */
        ASSERT(i == 0 || strcmp(sysvar_defs[i - 1].name, sysvar_defs[i].name) < 0);
        const sysvar_def_t *def = &sysvar_defs[i];
        if (def->target != def->id)
            continue;
        int rc = sv_set_default_global_locked(st, def);
        if (rc) {
            log_error("sysvar: bad default '%s' for %s", def->dflt, def->name);
            ASSERT(rc == 0);
        }
    }
    sv_set_computed_defaults(st);
    st->startup_origin = SV_ORIGIN_AUTO;
    return 0;
}

void sysvar_store_destroy(sysvar_store_t *st)
{
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        sv_str_unref(st->str[i]);
        st->str[i] = NULL;
    }
    pthread_mutex_destroy(&st->lock);
}

void sysvar_store_set_hook(sysvar_store_t *st, sysvar_hook_fn fn, void *arg)
{
    st->hook = fn;
    st->hook_arg = arg;
}

void sysvar_store_set_check(sysvar_store_t *st, sysvar_check_fn fn, void *arg)
{
    st->check = fn;
    st->check_arg = arg;
}

void sysvar_store_set_compute(sysvar_store_t *st, sysvar_compute_fn fn, void *arg)
{
    st->compute = fn;
    st->compute_arg = arg;
}

static sysvar_str_t *sv_global_str_ref(sysvar_store_t *st, sysvar_id_t id)
{
    pthread_mutex_lock(&st->lock);
    sysvar_str_t *s = sv_str_ref(st->str[id]);
    pthread_mutex_unlock(&st->lock);
    return s;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Session */

static void sv_session_copy_global(sysvar_session_t *ss, const sysvar_def_t *real)
{
    sysvar_store_t *st = ss->store;
    if (sv_is_str_type(real->type)) {
        sysvar_str_t *old = ss->cell[real->slot].s;
        ss->cell[real->slot].s = sv_global_str_ref(st, real->id);
        sv_str_unref(old);
    } else {
        ss->cell[real->slot].i = atomic_load_explicit(&st->num[real->id], memory_order_relaxed);
    }
}

void sysvar_session_init(sysvar_session_t *ss, sysvar_store_t *st, void *owner)
{
    memset(ss, 0, sizeof *ss);
    ss->store = st;
    ss->owner = owner;
    /* One lock round for all the strings, rather than one per variable. */
    pthread_mutex_lock(&st->lock);
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        const sysvar_def_t *def = &sysvar_defs[i];
        if (def->target != def->id || def->slot < 0)
            continue;
        if (sv_is_str_type(def->type))
            ss->cell[def->slot].s = sv_str_ref(st->str[i]);
        else
            ss->cell[def->slot].i = atomic_load_explicit(&st->num[i], memory_order_relaxed);
    }
    pthread_mutex_unlock(&st->lock);
}

void sysvar_session_destroy(sysvar_session_t *ss)
{
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        const sysvar_def_t *def = &sysvar_defs[i];
        if (def->target != def->id || def->slot < 0 || !sv_is_str_type(def->type))
            continue;
        sv_str_unref(ss->cell[def->slot].s);
        ss->cell[def->slot].s = NULL;
    }
}

void sysvar_session_reset(sysvar_session_t *ss)
{
    sysvar_store_t *st = ss->store;
    void *owner = ss->owner;
    sysvar_session_destroy(ss);
    sysvar_session_init(ss, st, owner);
}

int64_t sysvar_session_int(const sysvar_session_t *ss, sysvar_id_t id)
{
    const sysvar_def_t *real = sv_real(&sysvar_defs[id]);
    if (real->slot < 0)
        return atomic_load_explicit(&ss->store->num[real->id], memory_order_relaxed);
    return ss->cell[real->slot].i;
}

double sysvar_session_double(const sysvar_session_t *ss, sysvar_id_t id) { return sv_bits_dbl(sysvar_session_int(ss, id)); }

const char *sysvar_session_str(const sysvar_session_t *ss, sysvar_id_t id)
{
    const sysvar_def_t *real = sv_real(&sysvar_defs[id]);
    ASSERT(real->slot >= 0 && sv_is_str_type(real->type));
    sysvar_str_t *s = ss->cell[real->slot].s;
    return s ? s->s : NULL;
}

int64_t sysvar_global_int(sysvar_store_t *st, sysvar_id_t id)
{
    return atomic_load_explicit(&st->num[sysvar_defs[id].target], memory_order_relaxed);
}

double sysvar_global_double(sysvar_store_t *st, sysvar_id_t id) { return sv_bits_dbl(sysvar_global_int(st, id)); }

int sysvar_global_str(sysvar_store_t *st, sysvar_id_t id, char *buf, size_t n)
{
    sysvar_str_t *s = sv_global_str_ref(st, sysvar_defs[id].target);
    if (!s) {
        if (n)
            buf[0] = 0;
        return -1;
    }
    snprintf(buf, n, "%s", s->s);
    int len = (int)s->len;
    sv_str_unref(s);
    return len;
}

void sysvar_session_set_int(sysvar_session_t *ss, sysvar_id_t id, int64_t v)
{
    const sysvar_def_t *real = sv_real(&sysvar_defs[id]);
    ASSERT(real->slot >= 0 && !sv_is_str_type(real->type));
    ss->cell[real->slot].i = v;
}

static void sv_notify(sysvar_store_t *st, const sysvar_def_t *real)
{
    if (st->hook)
        st->hook(st->hook_arg, real);
}

void sysvar_global_set_int(sysvar_store_t *st, sysvar_id_t id, int64_t v)
{
    const sysvar_def_t *real = sv_real(&sysvar_defs[id]);
    ASSERT(!sv_is_str_type(real->type));
    pthread_mutex_lock(&st->lock);
    atomic_store_explicit(&st->num[real->id], v, memory_order_relaxed);
    pthread_mutex_unlock(&st->lock);
    sv_notify(st, real);
}

void sysvar_global_set_str(sysvar_store_t *st, sysvar_id_t id, const char *s)
{
    const sysvar_def_t *real = sv_real(&sysvar_defs[id]);
    ASSERT(sv_is_str_type(real->type));
    sv_parsed_t p = {.s = s ? sv_str_new(s, strlen(s)) : NULL};
    pthread_mutex_lock(&st->lock);
    sv_global_put(st, real, &p);
    pthread_mutex_unlock(&st->lock);
    sv_notify(st, real);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* SET */

/* Scope rules; returns 0 and whether the global is the target, or pushes the error. */
static int sv_check_scope(const sysvar_def_t *def, sysvar_scope_t scope, bool *global, diag_t *d)
{
    const sysvar_def_t *real = sv_real(def);
    *global = false;
    if (scope == SYSVAR_STARTUP) {
        *global = true;
        return 0;
    }
    if (real->flags & SV_RO)
        return diag_error(d, ER_INCORRECT_GLOBAL_LOCAL_VAR, def->name, "read only");
    if (scope == SYSVAR_GLOBAL) {
        if (real->scope == SV_SCOPE_SESSION_ONLY)
            return diag_error(d, ER_LOCAL_VARIABLE, def->name);
        *global = true;
        return 0;
    }
    if (real->scope == SV_SCOPE_GLOBAL)
        return diag_error(d, ER_GLOBAL_VARIABLE, def->name);
    if (real->flags & SV_SESS_RO) {
        char msg[256];
        snprintf(msg, sizeof msg, "SESSION variable '%s' is read-only. Use SET GLOBAL to assign the value",
                 def->name);
        return diag_push_msg(d, DIAG_ERROR, 1621, msg); /* ER_VARIABLE_IS_READONLY, not in errors.def yet */
    }
    return 0;
}

/* character_set_X and collation_X move together, as in MariaDB. */
static sysvar_id_t sv_partner(sysvar_id_t id)
{
    switch (id) {
    case SYSVAR_CHARACTER_SET_CONNECTION: return SYSVAR_COLLATION_CONNECTION;
    case SYSVAR_CHARACTER_SET_DATABASE: return SYSVAR_COLLATION_DATABASE;
    case SYSVAR_CHARACTER_SET_SERVER: return SYSVAR_COLLATION_SERVER;
    case SYSVAR_COLLATION_CONNECTION: return SYSVAR_CHARACTER_SET_CONNECTION;
    case SYSVAR_COLLATION_DATABASE: return SYSVAR_CHARACTER_SET_DATABASE;
    case SYSVAR_COLLATION_SERVER: return SYSVAR_CHARACTER_SET_SERVER;
    default: return SYSVAR__COUNT;
    }
}

static sysvar_str_t *sv_partner_value(const sysvar_def_t *real, const sysvar_str_t *v)
{
    if (!v)
        return NULL;
    const sysvar_collation_t *c =
        real->type == SV_T_CHARSET ? sysvar_charset_find(v->s) : sysvar_collation_find(v->s);
    if (!c)
        return NULL;
    const char *s = real->type == SV_T_CHARSET ? c->name : c->charset;
    return sv_str_new(s, strlen(s));
}

static int sv_apply(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                    const sv_input_t *in, bool use_default, diag_t *d)
{
    const sysvar_def_t *real = sv_real(def);
    bool global;
    int rc = sv_check_scope(def, scope, &global, d);
    if (rc)
        return rc;
    if (!global && !ss)
        return diag_error(d, ER_UNKNOWN_ERROR);
    sv_parsed_t p;
    if (use_default && !global) {
        /* the session takes the global value */
        sv_session_copy_global(ss, real);
        sysvar_id_t pid = sv_partner(real->id);
        if (pid != SYSVAR__COUNT)
            sv_session_copy_global(ss, &sysvar_defs[pid]);
        return 0;
    }
    if (global)
        pthread_mutex_lock(&st->lock);
    int64_t base = global ? atomic_load_explicit(&st->num[real->id], memory_order_relaxed)
                          : (sv_is_str_type(real->type) ? 0 : ss->cell[real->slot].i);
    if (use_default) {
        rc = sv_convert_default(real, &p, d);
    } else {
        rc = sv_convert(def, in, scope == SYSVAR_STARTUP, base, &p, d);
    }
    if (rc == 0 && st->check && !use_default) {
        /* the owner's veto (gtid_slave_pos syntax, read_only with locks held, ...) */
        sysvar_value_t nv = {.kind = SYSVAR_V_INT, .i = p.i, .u = (uint64_t)p.i};
        if (sv_is_str_type(real->type)) {
            nv.kind = p.s ? SYSVAR_V_STR : SYSVAR_V_NULL;
            nv.s = p.s ? p.s->s : NULL;
            nv.len = p.s ? p.s->len : 0;
        } else if (real->type == SV_T_DOUBLE) {
            nv.kind = SYSVAR_V_DOUBLE;
            nv.d = sv_bits_dbl(p.i);
        } else if (real->type == SV_T_UINT) {
            nv.kind = SYSVAR_V_UINT;
        }
        rc = st->check(st->check_arg, real, global ? SYSVAR_GLOBAL : SYSVAR_SESSION, ss, &nv, d);
        if (rc)
            sv_str_unref(p.s);
    }
    if (rc) {
        if (global)
            pthread_mutex_unlock(&st->lock);
        return rc;
    }
    sysvar_id_t pid = sv_partner(real->id);
    sv_parsed_t pp = {.s = pid != SYSVAR__COUNT ? sv_partner_value(real, p.s) : NULL};
    if (global) {
        sv_global_put(st, real, &p);
        st->origin[real->id] = scope == SYSVAR_STARTUP ? st->startup_origin : SV_ORIGIN_SQL;
        if (pp.s)
            sv_global_put(st, &sysvar_defs[pid], &pp);
        /* expire_logs_days and binlog_expire_logs_seconds are two units of one setting, as in MariaDB */
        if (real->id == SYSVAR_EXPIRE_LOGS_DAYS) {
            pid = SYSVAR_BINLOG_EXPIRE_LOGS_SECONDS;
            atomic_store_explicit(&st->num[pid], (int64_t)(sv_bits_dbl(p.i) * 86400.0 + 0.5), memory_order_relaxed);
        } else if (real->id == SYSVAR_BINLOG_EXPIRE_LOGS_SECONDS) {
            pid = SYSVAR_EXPIRE_LOGS_DAYS;
            atomic_store_explicit(&st->num[pid], sv_dbl_bits((double)p.i / 86400.0), memory_order_relaxed);
        }
        pthread_mutex_unlock(&st->lock);
        sv_notify(st, real);
        if (pid != SYSVAR__COUNT)
            sv_notify(st, &sysvar_defs[pid]);
    } else {
        sv_session_put(ss, real, &p);
        if (pp.s)
            sv_session_put(ss, &sysvar_defs[pid], &pp);
    }
    return 0;
}

int sysvar_set_text(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                    const char *text, diag_t *d)
{
    sv_input_t in = {.kind = SV_IN_TEXT, .text = text};
    return sv_apply(st, ss, def, scope, &in, false, d);
}

int sysvar_set_int(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                   int64_t v, bool is_unsigned, diag_t *d)
{
    sv_input_t in = {.kind = SV_IN_INT, .i = v, .is_unsigned = is_unsigned};
    return sv_apply(st, ss, def, scope, &in, false, d);
}

int sysvar_set_double(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                      double v, diag_t *d)
{
    sv_input_t in = {.kind = SV_IN_DOUBLE, .d = v};
    return sv_apply(st, ss, def, scope, &in, false, d);
}

int sysvar_set_default(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                       diag_t *d)
{
    return sv_apply(st, ss, def, scope, NULL, true, d);
}

int sysvar_set_by_name(sysvar_store_t *st, sysvar_session_t *ss, const char *name, sysvar_scope_t scope,
                       const char *text, diag_t *d)
{
    const sysvar_def_t *def = sysvar_find(name);
    if (!def)
        return diag_error(d, ER_UNKNOWN_SYSTEM_VARIABLE, name);
    return sysvar_set_text(st, ss, def, scope, text, d);
}

/* SET NAMES / SET CHARACTER SET: several session strings at once, validated first so nothing changes on error. */
static void sv_session_put_str(sysvar_session_t *ss, sysvar_id_t id, const char *v)
{
    const sysvar_def_t *real = sv_real(&sysvar_defs[id]);
    sv_parsed_t p = {.s = sv_str_new(v, strlen(v))};
    sv_session_put(ss, real, &p);
}

int sysvar_set_names(sysvar_store_t *st, sysvar_session_t *ss, const char *cs, const char *coll, diag_t *d)
{
    char dflt[64];
    if (!cs) {
        sysvar_global_str(st, SYSVAR_CHARACTER_SET_SERVER, dflt, sizeof dflt);
        cs = dflt;
    }
    const sysvar_collation_t *c = sysvar_charset_find(cs);
    if (!c)
        return diag_error(d, ER_UNKNOWN_CHARACTER_SET, cs);
    if (coll) {
        const sysvar_collation_t *k = sysvar_collation_find(coll);
        if (!k)
            return diag_error(d, ER_UNKNOWN_COLLATION, coll);
        if (strcmp(k->charset, c->charset) != 0)
            return diag_error(d, ER_COLLATION_CHARSET_MISMATCH, coll, c->charset);
        c = k;
    }
    sv_session_put_str(ss, SYSVAR_CHARACTER_SET_CLIENT, c->charset);
    sv_session_put_str(ss, SYSVAR_CHARACTER_SET_CONNECTION, c->charset);
    sv_session_put_str(ss, SYSVAR_CHARACTER_SET_RESULTS, c->charset);
    sv_session_put_str(ss, SYSVAR_COLLATION_CONNECTION, c->name);
    return 0;
}

int sysvar_set_character_set(sysvar_store_t *st, sysvar_session_t *ss, const char *cs, diag_t *d)
{
    char dflt[64];
    if (!cs) {
        sysvar_global_str(st, SYSVAR_CHARACTER_SET_SERVER, dflt, sizeof dflt);
        cs = dflt;
    }
    const sysvar_collation_t *c = sysvar_charset_find(cs);
    if (!c)
        return diag_error(d, ER_UNKNOWN_CHARACTER_SET, cs);
    char db_cs[64], db_coll[64];
    snprintf(db_cs, sizeof db_cs, "%s", sysvar_session_str(ss, SYSVAR_CHARACTER_SET_DATABASE));
    snprintf(db_coll, sizeof db_coll, "%s", sysvar_session_str(ss, SYSVAR_COLLATION_DATABASE));
    sv_session_put_str(ss, SYSVAR_CHARACTER_SET_CLIENT, c->charset);
    sv_session_put_str(ss, SYSVAR_CHARACTER_SET_RESULTS, c->charset);
    sv_session_put_str(ss, SYSVAR_CHARACTER_SET_CONNECTION, db_cs);
    sv_session_put_str(ss, SYSVAR_COLLATION_CONNECTION, db_coll);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Reading */

/* Raw cell for a read: takes a string reference the caller drops. */
static void sv_read_cell(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *real, bool global,
                         int64_t *num, sysvar_str_t **str)
{
    *num = 0;
    *str = NULL;
    if (global || real->slot < 0) {
        if (sv_is_str_type(real->type))
            *str = sv_global_str_ref(st, real->id);
        else
            *num = atomic_load_explicit(&st->num[real->id], memory_order_relaxed);
    } else {
        if (sv_is_str_type(real->type))
            *str = sv_str_ref(ss->cell[real->slot].s);
        else
            *num = ss->cell[real->slot].i;
    }
}

static int sv_read_scope(const sysvar_def_t *def, sysvar_scope_t scope, bool *global, diag_t *d)
{
    const sysvar_def_t *real = sv_real(def);
    if (scope == SYSVAR_GLOBAL || scope == SYSVAR_STARTUP) {
        if (real->scope == SV_SCOPE_SESSION_ONLY)
            return diag_error(d, ER_INCORRECT_GLOBAL_LOCAL_VAR, def->name, "SESSION");
        *global = true;
        return 0;
    }
    if (scope == SYSVAR_SESSION && real->scope == SV_SCOPE_GLOBAL)
        return diag_error(d, ER_INCORRECT_GLOBAL_LOCAL_VAR, def->name, "GLOBAL");
    *global = real->scope == SV_SCOPE_GLOBAL;
    return 0;
}

/* Appends the names of the set bits of m (SET) or name=on/off pairs (FLAGSET). */
static void sv_format_set(const sysvar_def_t *real, int64_t m, buf_t *out)
{
    const char *p;
    size_t n;
    bool first = true;
    for (unsigned i = 0; sv_list_item(real->values, i, &p, &n); i++) {
        bool on = (m >> i) & 1;
        if (real->type == SV_T_SET && !on)
            continue;
        if (!first)
            buf_append_byte(out, ',');
        first = false;
        buf_append(out, p, n);
        if (real->type == SV_T_FLAGSET)
            buf_append_str(out, on ? "=on" : "=off");
    }
}

static void sv_format(const sysvar_def_t *real, int64_t num, const sysvar_str_t *str, buf_t *out)
{
    const char *p;
    size_t n;
    switch (real->type) {
    case SV_T_BOOL:
        buf_append_str(out, num ? "ON" : "OFF");
        break;
    case SV_T_UINT:
        buf_printf(out, "%" PRIu64, (uint64_t)num);
        break;
    case SV_T_INT:
        buf_printf(out, "%" PRId64, num);
        break;
    case SV_T_DOUBLE:
        buf_printf(out, "%.6f", sv_bits_dbl(num));
        break;
    case SV_T_ENUM:
        if (sv_list_item(real->values, (unsigned)num, &p, &n))
            buf_append(out, p, n);
        break;
    case SV_T_SET:
    case SV_T_FLAGSET:
        sv_format_set(real, num, out);
        break;
    default:
        if (str)
            buf_append(out, str->s, str->len);
        break;
    }
}

static double sv_now(void) { return (double)time_wall_us() / 1e6; }

int sysvar_get(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
               arena_t *a, sysvar_value_t *out, diag_t *d)
{
    const sysvar_def_t *real = sv_real(def);
    bool global = false;
    int rc = sv_read_scope(def, scope, &global, d);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    if ((real->flags & SV_COMPUTED) && st->compute &&
        st->compute(st->compute_arg, real, global ? NULL : ss, a, out))
        return 0;
    if (!global && !ss)
        return diag_error(d, ER_UNKNOWN_ERROR);
    int64_t num;
    sysvar_str_t *str;
    sv_read_cell(st, ss, real, global, &num, &str);
    switch (real->type) {
    case SV_T_BOOL:
    case SV_T_INT:
        out->kind = SYSVAR_V_INT;
        out->i = num;
        out->u = (uint64_t)num;
        out->d = (double)num;
        break;
    case SV_T_UINT:
        out->kind = SYSVAR_V_UINT;
        out->u = (uint64_t)num;
        out->i = num;
        out->d = (double)(uint64_t)num;
        break;
    case SV_T_DOUBLE:
        out->kind = SYSVAR_V_DOUBLE;
        out->d = sv_bits_dbl(num);
        if (real->id == SYSVAR_TIMESTAMP && out->d == 0)
            out->d = sv_now();
        break;
    default:
        if (sv_is_str_type(real->type) && !str) {
            out->kind = SYSVAR_V_NULL;
            break;
        }
        {
            buf_t b;
            buf_init(&b);
            sv_format(real, num, str, &b);
            out->kind = SYSVAR_V_STR;
            out->s = arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
            out->len = b.len;
            buf_free(&b);
        }
        break;
    }
    sv_str_unref(str);
    return 0;
}

int sysvar_get_text(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                    buf_t *out)
{
    const sysvar_def_t *real = sv_real(def);
    bool global = scope == SYSVAR_GLOBAL || scope == SYSVAR_STARTUP || !ss || real->slot < 0;
    if ((real->flags & SV_COMPUTED) && st->compute) {
        arena_t a;
        arena_init(&a, 256);
        sysvar_value_t v;
        bool done = st->compute(st->compute_arg, real, global ? NULL : ss, &a, &v);
        if (done) {
            switch (v.kind) {
            case SYSVAR_V_NULL: break;
            case SYSVAR_V_INT: buf_printf(out, "%" PRId64, v.i); break;
            case SYSVAR_V_UINT: buf_printf(out, "%" PRIu64, v.u); break;
            case SYSVAR_V_DOUBLE: buf_printf(out, "%.6f", v.d); break;
            case SYSVAR_V_STR: buf_append(out, v.s, v.len); break;
            }
        }
        arena_destroy(&a);
        if (done)
            return 0;
    }
    int64_t num;
    sysvar_str_t *str;
    sv_read_cell(st, ss, real, global, &num, &str);
    if (real->id == SYSVAR_TIMESTAMP && sv_bits_dbl(num) == 0)
        num = sv_dbl_bits(sv_now());
    sv_format(real, num, str, out);
    sv_str_unref(str);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* SHOW VARIABLES, LIKE, --help */

bool sysvar_like(const char *p, const char *s)
{
    for (;;) {
        switch (*p) {
        case 0:
            return *s == 0;
        case '%':
            while (*p == '%')
                p++;
            if (!*p)
                return true;
            for (; *s; s++)
                if (sysvar_like(p, s))
                    return true;
            return false;
        case '_':
            if (!*s)
                return false;
            p++;
            s++;
            break;
        case '\\':
            if (p[1])
                p++;
            __attribute__((fallthrough)); /* the escaped character matches itself */
        default:
            if (tolower((unsigned char)*p) != tolower((unsigned char)*s))
                return false;
            p++;
            s++;
            break;
        }
    }
}

const char *sysvar_origin(sysvar_store_t *st, const sysvar_def_t *def)
{
    static const char *const words[] = {"COMPILE-TIME", "COMMAND-LINE", "CONFIG", "SQL", "AUTO"};
    pthread_mutex_lock(&st->lock);
    uint8_t o = st->origin[sv_real(def)->id];
    pthread_mutex_unlock(&st->lock);
    return words[o < ARRAY_LEN(words) ? o : 0];
}

int sysvar_show(sysvar_store_t *st, sysvar_session_t *ss, sysvar_scope_t scope, const char *like,
                sysvar_show_fn fn, void *arg)
{
    buf_t b;
    buf_init(&b);
    int rc = 0;
    for (int i = 0; i < SYSVAR__COUNT && rc == 0; i++) {
        const sysvar_def_t *def = &sysvar_defs[i];
        if (scope == SYSVAR_GLOBAL && sv_real(def)->scope == SV_SCOPE_SESSION_ONLY)
            continue;
        if (like && !sysvar_like(like, def->name))
            continue;
        buf_reset(&b);
        sysvar_get_text(st, ss, def, scope, &b);
        buf_append_byte(&b, 0);
        rc = fn(arg, def, (const char *)b.data, b.len - 1);
    }
    buf_free(&b);
    return rc;
}

/* mysqld's short options that map to variables. */
static char sv_short_name(sysvar_id_t id)
{
    switch (id) {
    case SYSVAR_PORT: return 'P';
    case SYSVAR_DATADIR: return 'h';
    case SYSVAR_BASEDIR: return 'b';
    case SYSVAR_CHARACTER_SET_SERVER: return 'C';
    case SYSVAR_TMPDIR: return 't';
    case SYSVAR_LOG_WARNINGS: return 'W';
    default: return 0;
    }
}

size_t sysvar_config_opts(config_opt_t *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        const sysvar_def_t *def = &sysvar_defs[i];
        const sysvar_def_t *real = sv_real(def);
        if (real->flags & SV_NOOPT)
            continue;
        if (real->scope == SV_SCOPE_SESSION_ONLY)
            continue;
        if (n == cap)
            break;
        config_opt_t *o = &out[n++];
        o->name = def->name;
        o->arg = real->type == SV_T_BOOL                                    ? CONFIG_ARG_BOOL
                 : def->id == SYSVAR_LOG_WARNINGS || def->id == SYSVAR_LOG_ERROR ? CONFIG_ARG_OPTIONAL
                                                                                 : CONFIG_ARG_REQUIRED;
        o->short_name = sv_short_name(def->id);
        o->help = def->target == def->id ? real->desc : NULL; /* aliases work but are not listed twice */
        o->dflt = real->dflt;
        o->user = def;
    }
    return n;
}

static bool sv_is_def(const void *p)
{
    return p && (const char *)p >= (const char *)&sysvar_defs[0] &&
           (const char *)p < (const char *)&sysvar_defs[SYSVAR__COUNT];
}

int sysvar_apply_config(sysvar_store_t *st, const config_t *cfg, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; i < cfg->n && rc == 0; i++) {
        const config_item_t *it = &cfg->items[i];
        if (!sv_is_def(it->opt->user))
            continue;
        const sysvar_def_t *def = it->opt->user;
        diag_t d;
        diag_init(&d, 8);
        st->startup_origin = strcmp(it->source, "command line") == 0 ? SV_ORIGIN_COMMAND_LINE : SV_ORIGIN_CONFIG;
        if (it->value)
            rc = sysvar_set_text(st, NULL, def, SYSVAR_STARTUP, it->value, &d);
        else if (it->negated)
            rc = sysvar_set_default(st, NULL, def, SYSVAR_STARTUP, &d);
        st->startup_origin = SV_ORIGIN_AUTO;
        /* an optional-argument option given bare (--log-error) is the caller's to interpret */
        for (uint32_t k = 0; k < d.n; k++) {
            if (d.conds[k].level == DIAG_ERROR)
                snprintf(err, errlen, "option '%s' (%s): %s", def->name, it->source, d.conds[k].msg);
            else
                log_warn("option '%s' (%s): %s", def->name, it->source, d.conds[k].msg);
        }
        if (rc && d.n == 0)
            snprintf(err, errlen, "option '%s' (%s): invalid value", def->name, it->source);
        diag_free(&d);
    }
    return rc ? -1 : 0;
}
