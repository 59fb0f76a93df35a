/*
 * JSON text and paths (jsondoc.h): the parser, the printer, the tree helpers and the path language.
 *
 * The parser is a recursive descent over the bytes with MariaDB json_lib's rules of what is accepted and of
 * where an error is reported: a character that breaks the syntax is reported one past itself (the position
 * MariaDB's scanner has reached once it has read it), a keyword that stops matching and a key not followed by
 * ':' at the character itself.  Why not a library: docs/dependencies.md.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sql/expr/jsondoc.h"

/* ---------------------------------------------------------------- tree */

json_node_t *json_new(arena_t *a, json_kind_t kind, const char *raw, size_t len)
{
    json_node_t *n = arena_alloc(a, sizeof *n);
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->raw = raw;
    n->len = (uint32_t)len;
    return n;
}

json_node_t *json_new_string(arena_t *a, const char *s, size_t len)
{
    buf_t b;
    buf_init(&b);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': buf_append(&b, "\\\"", 2); break;
        case '\\': buf_append(&b, "\\\\", 2); break;
        case '\n': buf_append(&b, "\\n", 2); break;
        case '\r': buf_append(&b, "\\r", 2); break;
        case '\t': buf_append(&b, "\\t", 2); break;
        case '\b': buf_append(&b, "\\b", 2); break;
        case '\f': buf_append(&b, "\\f", 2); break;
        default:
            if (c < 0x20)
                buf_printf(&b, "\\u%04X", c);
            else
                buf_append_byte(&b, c);
        }
    }
    char *p = arena_strndup(a, b.data ? (const char *)b.data : "", b.len);
    json_node_t *n = json_new(a, JSON_STRING, p, b.len);
    buf_free(&b);
    return n;
}

static void json_grow(arena_t *a, json_node_t *c)
{
    if (c->n < c->cap)
        return;
    uint32_t cap = c->cap ? c->cap * 2 : 4;
    json_node_t **kids = arena_alloc(a, cap * sizeof *kids);
    if (c->n)
        memcpy(kids, c->kids, c->n * sizeof *kids);
    c->kids = kids;
    if (c->kind == JSON_OBJECT) {
        const char **keys = arena_alloc(a, cap * sizeof *keys);
        uint32_t *kl = arena_alloc(a, cap * sizeof *kl);
        if (c->n) {
            memcpy(keys, c->keys, c->n * sizeof *keys);
            memcpy(kl, c->klens, c->n * sizeof *kl);
        }
        c->keys = keys;
        c->klens = kl;
    }
    c->cap = cap;
}

void json_append(arena_t *a, json_node_t *c, const char *key, size_t klen, json_node_t *v)
{
    json_grow(a, c);
    c->kids[c->n] = v;
    if (c->kind == JSON_OBJECT) {
        c->keys[c->n] = key;
        c->klens[c->n] = (uint32_t)klen;
    }
    c->n++;
}

void json_insert_at(arena_t *a, json_node_t *arr, uint32_t i, json_node_t *v)
{
    json_grow(a, arr);
    if (i > arr->n)
        i = arr->n;
    memmove(arr->kids + i + 1, arr->kids + i, (arr->n - i) * sizeof *arr->kids);
    arr->kids[i] = v;
    arr->n++;
}

void json_remove_at(json_node_t *c, uint32_t i)
{
    if (i >= c->n)
        return;
    memmove(c->kids + i, c->kids + i + 1, (c->n - i - 1) * sizeof *c->kids);
    if (c->kind == JSON_OBJECT) {
        memmove(c->keys + i, c->keys + i + 1, (c->n - i - 1) * sizeof *c->keys);
        memmove(c->klens + i, c->klens + i + 1, (c->n - i - 1) * sizeof *c->klens);
    }
    c->n--;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static size_t utf8_put(char *o, uint32_t cp)
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

static int hex4(const char *p, size_t avail)
{
    if (avail < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

bool json_unescape(arena_t *a, const char *raw, size_t len, const char **out, size_t *outlen)
{
    if (!memchr(raw, '\\', len)) {
        *out = raw;
        *outlen = len;
        return true;
    }
    char *o = arena_alloc(a, len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (raw[i] != '\\' || i + 1 == len) {
            o[k++] = raw[i];
            continue;
        }
        char c = raw[++i];
        switch (c) {
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 't': o[k++] = '\t'; break;
        case 'u': {
            int v = hex4(raw + i + 1, len - i - 1);
            if (v < 0)
                return false;
            i += 4;
            uint32_t cp = (uint32_t)v;
            if (cp >= 0xD800 && cp < 0xDC00) {
                int lo = (i + 2 < len && raw[i + 1] == '\\' && raw[i + 2] == 'u') ? hex4(raw + i + 3, len - i - 3) : -1;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return false;
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return false;
            }
            k += utf8_put(o + k, cp);
            break;
        }
        default: o[k++] = c; break;
        }
    }
    o[k] = 0;
    *out = o;
    *outlen = k;
    return true;
}

int json_find_key(const json_node_t *obj, const char *key, size_t klen)
{
    for (uint32_t i = 0; i < obj->n; i++) {
        if (obj->klens[i] == klen && memcmp(obj->keys[i], key, klen) == 0)
            return (int)i;
    }
    return -1;
}

double json_number(const json_node_t *n)
{
    char buf[64];
    size_t l = n->len < sizeof buf - 1 ? n->len : sizeof buf - 1;
    memcpy(buf, n->raw, l);
    buf[l] = 0;
    return strtod(buf, NULL);
}

static bool json_key_equal(arena_t *a, const char *k1, size_t l1, const char *k2, size_t l2)
{
    const char *u1, *u2;
    size_t n1, n2;
    if (!json_unescape(a, k1, l1, &u1, &n1) || !json_unescape(a, k2, l2, &u2, &n2))
        return l1 == l2 && memcmp(k1, k2, l1) == 0;
    return n1 == n2 && memcmp(u1, u2, n1) == 0;
}

bool json_equal(arena_t *a, const json_node_t *x, const json_node_t *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case JSON_NULL: case JSON_TRUE: case JSON_FALSE: return true;
    case JSON_NUMBER: return json_number(x) == json_number(y);
    case JSON_STRING: return x->len == y->len && memcmp(x->raw, y->raw, x->len) == 0; /* as written, as MariaDB */
    case JSON_ARRAY:
        if (x->n != y->n)
            return false;
        for (uint32_t i = 0; i < x->n; i++)
            if (!json_equal(a, x->kids[i], y->kids[i]))
                return false;
        return true;
    case JSON_OBJECT:
        if (x->n != y->n)
            return false;
        /* members by key, in any order; a key given twice is matched occurrence by occurrence */
        for (uint32_t i = 0; i < x->n; i++) {
            uint32_t occ = 0, j;
            for (uint32_t k = 0; k < i; k++)
                occ += json_key_equal(a, x->keys[k], x->klens[k], x->keys[i], x->klens[i]);
            for (j = 0; j < y->n; j++)
                if (json_key_equal(a, x->keys[i], x->klens[i], y->keys[j], y->klens[j]) && occ-- == 0)
                    break;
            if (j == y->n || !json_equal(a, x->kids[i], y->kids[j]))
                return false;
        }
        return true;
    }
    return false;
}

/* ---------------------------------------------------------------- parser */

typedef struct jp {
    arena_t *a;
    const char *s;
    size_t len, i;
    int depth;
    json_error_t *err;
} jp_t;

enum { JE_BAD_CHR = 4035, JE_NOT_JSON_CHR = 4036, JE_EOS = 4037, JE_SYN = 4038, JE_ESCAPING = 4039, JE_DEPTH = 4040 };

static int jp_fail(jp_t *p, int code, size_t pos)
{
    p->err->code = code;
    p->err->pos = pos;
    return -1;
}

static bool jp_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void jp_skip(jp_t *p)
{
    while (p->i < p->len && jp_space((unsigned char)p->s[p->i]))
        p->i++;
}

/* The error for an unexpected byte at p->i (read: reported one past it). */
static int jp_unexpected(jp_t *p)
{
    if (p->i >= p->len)
        return jp_fail(p, JE_EOS, p->len);
    unsigned char c = (unsigned char)p->s[p->i];
    if (c < 0x20 || c == 0x7F)
        return jp_fail(p, c == 0x7F ? JE_SYN : JE_NOT_JSON_CHR, p->i + 1);
    return jp_fail(p, JE_SYN, p->i + 1);
}

/* A string's body from after its opening quote; *end is the closing quote's index. */
static int jp_string(jp_t *p, size_t *end)
{
    while (p->i < p->len) {
        unsigned char c = (unsigned char)p->s[p->i++];
        if (c == '"') {
            *end = p->i - 1;
            return 0;
        }
        if (c < 0x20)
            return jp_fail(p, JE_NOT_JSON_CHR, p->i);
        if (c == '\\') {
            if (p->i >= p->len)
                return jp_fail(p, JE_EOS, p->len);
            unsigned char e = (unsigned char)p->s[p->i];
            if (e < 0x20)
                return jp_fail(p, JE_ESCAPING, p->i);
            p->i++;
            if (e == 'u') {
                int v = 0;
                for (int k = 0; k < 4; k++, p->i++) {
                    if (p->i >= p->len)
                        return jp_fail(p, JE_EOS, p->len);
                    int h = hexval((unsigned char)p->s[p->i]);
                    if (h < 0)
                        return jp_fail(p, JE_SYN, p->i);
                    v = v * 16 + h;
                }
                if (v >= 0xDC00 && v < 0xE000)
                    return jp_fail(p, JE_BAD_CHR, p->i);
                if (v >= 0xD800 && v < 0xDC00) {
                    /* a high surrogate: its low half must follow as \uDC00 .. \uDFFF */
                    for (int k = 0; k < 2; k++, p->i++) {
                        if (p->i >= p->len)
                            return jp_fail(p, JE_EOS, p->len);
                        if (p->s[p->i] != "\\u"[k])
                            return jp_fail(p, JE_SYN, p->i);
                    }
                    int lo = 0;
                    for (int k = 0; k < 4; k++, p->i++) {
                        if (p->i >= p->len)
                            return jp_fail(p, JE_EOS, p->len);
                        int h = hexval((unsigned char)p->s[p->i]);
                        if (h < 0)
                            return jp_fail(p, JE_SYN, p->i);
                        lo = lo * 16 + h;
                    }
                    if (lo < 0xDC00 || lo >= 0xE000)
                        return jp_fail(p, JE_BAD_CHR, p->i);
                }
            }
        }
    }
    return jp_fail(p, JE_EOS, p->len);
}

/* MariaDB's number scanner: states of its table; a character that cannot continue the number ends it (the
 * container then judges it), the end of the text must find the number complete. */
enum { NS_GO1 = 1, NS_Z, NS_INT, NS_FRAC, NS_EX, NS_EX1 };

static int jp_number(jp_t *p, size_t start)
{
    int st = p->s[start] == '-' ? NS_GO1 : p->s[start] == '0' ? NS_Z : NS_INT;
    p->i = start + 1;
    for (;;) {
        if (p->i >= p->len) {
            if (st == NS_GO1 || st == NS_EX)
                return jp_fail(p, JE_SYN, p->len);
            return 0;
        }
        unsigned char c = (unsigned char)p->s[p->i];
        int nx = -1;
        bool digit = c >= '0' && c <= '9';
        switch (st) {
        case NS_GO1: nx = c == '0' ? NS_Z : digit ? NS_INT : -1; break;
        case NS_Z: nx = c == '.' ? NS_FRAC : -1; break;
        case NS_INT: nx = digit ? NS_INT : c == '.' ? NS_FRAC : (c == 'e' || c == 'E') ? NS_EX : -1; break;
        case NS_FRAC: nx = digit ? NS_FRAC : (c == 'e' || c == 'E') ? NS_EX : -1; break;
        case NS_EX: nx = (c == '-' || c == '+') ? NS_EX : digit ? NS_EX1 : -1; break;
        case NS_EX1: nx = digit ? NS_EX1 : -1; break;
        }
        if (c >= 0x80)
            return jp_fail(p, JE_BAD_CHR, p->i);
        if (nx < 0)
            return 0;
        st = nx;
        p->i++;
    }
}

static int jp_value(jp_t *p, json_node_t **out);

static int jp_word(jp_t *p, const char *w, json_kind_t kind, json_node_t **out)
{
    size_t start = p->i - 1;
    for (const char *q = w + 1; *q; q++, p->i++) {
        if (p->i >= p->len)
            return jp_fail(p, JE_EOS, p->len);
        if (p->s[p->i] != *q)
            return jp_fail(p, JE_SYN, p->i);
    }
    *out = json_new(p->a, kind, p->s + start, p->i - start);
    return 0;
}

static int jp_container(jp_t *p, bool obj, json_node_t **out)
{
    if (++p->depth >= JSON_DEPTH_LIMIT)
        return jp_fail(p, JE_DEPTH, p->i);
    size_t start = p->i - 1;
    json_node_t *c = json_new(p->a, obj ? JSON_OBJECT : JSON_ARRAY, p->s + start, 0);
    *out = c;
    jp_skip(p);
    if (p->i < p->len && p->s[p->i] == (obj ? '}' : ']')) {
        p->i++;
        p->depth--;
        c->len = (uint32_t)(p->i - start);
        return 0;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen = 0;
        if (obj) {
            if (p->i >= p->len || p->s[p->i] != '"')
                return jp_unexpected(p);
            size_t ks = ++p->i, ke;
            if (jp_string(p, &ke))
                return -1;
            key = p->s + ks;
            klen = ke - ks;
            jp_skip(p);
            if (p->i >= p->len)
                return jp_fail(p, JE_EOS, p->len);
            if (p->s[p->i] != ':')
                return jp_fail(p, JE_SYN, p->i);
            p->i++;
        }
        json_node_t *v;
        jp_skip(p);
        if (jp_value(p, &v))
            return -1;
        json_append(p->a, c, key, klen, v);
        jp_skip(p);
        if (p->i < p->len && p->s[p->i] == ',') {
            p->i++;
            jp_skip(p);
            continue;
        }
        if (p->i < p->len && p->s[p->i] == (obj ? '}' : ']')) {
            p->i++;
            p->depth--;
            c->len = (uint32_t)(p->i - start);
            return 0;
        }
        return jp_unexpected(p);
    }
}

/* A value at p->i (spaces skipped). */
static int jp_value(jp_t *p, json_node_t **out)
{
    if (p->i >= p->len)
        return jp_fail(p, JE_EOS, p->len);
    size_t start = p->i;
    unsigned char c = (unsigned char)p->s[p->i++];
    switch (c) {
    case '{': return jp_container(p, true, out);
    case '[': return jp_container(p, false, out);
    case '"': {
        size_t end;
        if (jp_string(p, &end))
            return -1;
        *out = json_new(p->a, JSON_STRING, p->s + start + 1, end - start - 1);
        return 0;
    }
    case 't': return jp_word(p, "true", JSON_TRUE, out);
    case 'f': return jp_word(p, "false", JSON_FALSE, out);
    case 'n': return jp_word(p, "null", JSON_NULL, out);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            if (jp_number(p, start))
                return -1;
            *out = json_new(p->a, JSON_NUMBER, p->s + start, p->i - start);
            return 0;
        }
        p->i = start;
        return jp_unexpected(p);
    }
}

int json_parse(arena_t *a, const char *text, size_t len, json_node_t **root, json_error_t *err)
{
    jp_t p = {.a = a, .s = text, .len = len, .err = err};
    err->code = 0;
    err->trailing = false;
    *root = NULL;
    jp_skip(&p);
    json_node_t *v;
    if (jp_value(&p, &v))
        return -1;
    *root = v;
    jp_skip(&p);
    if (p.i < p.len) {
        jp_unexpected(&p);
        err->trailing = true;
    }
    return 0;
}

/* ---------------------------------------------------------------- printer */

static void indent(buf_t *b, int d, int width)
{
    for (int i = 0; i < d * width; i++)
        buf_append_byte(b, ' ');
}

static void print_node(buf_t *b, const json_node_t *n, json_style_t st, int d, int w)
{
    switch (n->kind) {
    case JSON_NULL: buf_append(b, "null", 4); return;
    case JSON_TRUE: buf_append(b, "true", 4); return;
    case JSON_FALSE: buf_append(b, "false", 5); return;
    case JSON_NUMBER: buf_append(b, n->raw, n->len); return;
    case JSON_STRING:
        buf_append_byte(b, '"');
        buf_append(b, n->raw, n->len);
        buf_append_byte(b, '"');
        return;
    case JSON_ARRAY:
    case JSON_OBJECT:
        break;
    }
    bool obj = n->kind == JSON_OBJECT;
    if (st == JSON_STYLE_DETAILED && !obj && n->n == 1 && n->kids[0]->kind != JSON_ARRAY &&
        n->kids[0]->kind != JSON_OBJECT) {
        /* MariaDB's detailed layout keeps an array of one scalar on one line */
        buf_append_byte(b, '[');
        print_node(b, n->kids[0], st, d + 1, w);
        buf_append_byte(b, ']');
        return;
    }
    buf_append_byte(b, obj ? '{' : '[');
    if (st == JSON_STYLE_DETAILED && (n->n || obj))
        buf_append_byte(b, '\n');
    for (uint32_t i = 0; i < n->n; i++) {
        if (i)
            buf_append_str(b, st == JSON_STYLE_LOOSE ? ", " : st == JSON_STYLE_COMPACT ? "," : ",\n");
        if (st == JSON_STYLE_DETAILED)
            indent(b, d + 1, w);
        const json_node_t *v = n->kids[i];
        if (obj) {
            buf_append_byte(b, '"');
            buf_append(b, n->keys[i], n->klens[i]);
            buf_append_str(b, st == JSON_STYLE_COMPACT ? "\":" : "\": ");
            if (st == JSON_STYLE_DETAILED && (v->kind == JSON_ARRAY || v->kind == JSON_OBJECT)) {
                buf_append_byte(b, '\n');
                indent(b, d + 1, w);
            }
        }
        print_node(b, v, st, d + 1, w);
    }
    if (st == JSON_STYLE_DETAILED && (n->n || obj)) {
        if (n->n)
            buf_append_byte(b, '\n');
        indent(b, d, w);
    }
    buf_append_byte(b, obj ? '}' : ']');
}

void json_print(buf_t *b, const json_node_t *n, json_style_t style) { print_node(b, n, style, 0, 4); }

void json_print_detailed(buf_t *b, const json_node_t *n, int width) { print_node(b, n, JSON_STYLE_DETAILED, 0, width); }

/* ---------------------------------------------------------------- paths */

enum { JPE_EOS = 4041, JPE_SYN = 4042, JPE_DEPTH = 4043 };

typedef struct pp {
    const char *s;
    size_t len, i;
    json_error_t *err;
} pp_t;

static int pp_fail(pp_t *p, int code)
{
    p->err->code = code;
    p->err->pos = p->i + 1;
    return -1;
}

static int pp_bad(pp_t *p) { return pp_fail(p, p->i >= p->len ? JPE_EOS : JPE_SYN); }

static void pp_space(pp_t *p)
{
    while (p->i < p->len && jp_space((unsigned char)p->s[p->i]))
        p->i++;
}

static bool pp_word(pp_t *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->i >= n && memcmp(p->s + p->i, w, n) == 0) {
        p->i += n;
        return true;
    }
    return false;
}

/* An array index: a number, `last` or `last - n`. */
static int pp_index(pp_t *p, int64_t *v, bool *last)
{
    pp_space(p);
    *last = false;
    *v = 0;
    if (pp_word(p, "last")) {
        *last = true;
        pp_space(p);
        if (p->i < p->len && p->s[p->i] == '-')
            p->i++; /* [last-n]: the number follows the '-' at once */
        else
            return 0;
    } else if (p->i < p->len && p->s[p->i] == '-') {
        /* [-n]: n from the end, [-1] being the last */
        p->i++;
        if (pp_index(p, v, last))
            return -1;
        if (*v == 0)
            return pp_fail(p, JPE_SYN);
        *last = true;
        *v -= 1;
        return 0;
    }
    if (p->i >= p->len || p->s[p->i] < '0' || p->s[p->i] > '9')
        return pp_bad(p);
    while (p->i < p->len && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        if (*v < (int64_t)1 << 40)
            *v = *v * 10 + (p->s[p->i] - '0');
        p->i++;
    }
    return 0;
}

int json_path_parse(const char *text, size_t len, json_path_t *path, json_error_t *err)
{
    pp_t p = {.s = text, .len = len, .err = err};
    memset(path, 0, sizeof *path);
    err->code = 0;
    err->trailing = false;
    pp_space(&p);
    if (p.len - p.i >= 6 && memcmp(p.s + p.i, "strict", 6) == 0) {
        /* MariaDB 10.11 refuses the strict mode it parses */
        p.i = 0;
        return pp_fail(&p, JPE_SYN);
    } else if (pp_word(&p, "lax")) {
        pp_space(&p);
    }
    if (p.i >= p.len || p.s[p.i] != '$')
        return pp_bad(&p);
    p.i++;
    for (;;) {
        if (p.i >= p.len)
            break;
        char c = p.s[p.i];
        if (path->nsteps >= JSON_PATH_MAX_STEPS)
            return pp_fail(&p, JPE_DEPTH);
        json_step_t *st = &path->steps[path->nsteps];
        if (c == '.') {
            p.i++;
            if (p.i >= p.len)
                return pp_bad(&p);
            c = p.s[p.i];
            if (c == '*') {
                p.i++;
                st->kind = JSON_STEP_KEY_WILD;
                path->wild = true;
            } else if (c == '"') {
                size_t ks = ++p.i;
                while (p.i < p.len && p.s[p.i] != '"') {
                    if (p.s[p.i] == '\\' && p.i + 1 < p.len)
                        p.i++;
                    p.i++;
                }
                if (p.i >= p.len)
                    return pp_bad(&p);
                st->kind = JSON_STEP_KEY;
                st->key = p.s + ks;
                st->klen = p.i - ks;
                p.i++;
            } else {
                size_t ks = p.i;
                /* an unquoted name runs to the next '.', '[' or '*' (spaces are part of it, as in MariaDB) */
                while (p.i < p.len && p.s[p.i] != '.' && p.s[p.i] != '[' && p.s[p.i] != '*') {
                    if ((unsigned char)p.s[p.i] < 0x20)
                        return pp_fail(&p, JPE_SYN);
                    p.i++;
                }
                if (p.i == ks)
                    return pp_bad(&p);
                st->kind = JSON_STEP_KEY;
                st->key = p.s + ks;
                st->klen = p.i - ks;
            }
        } else if (c == '[') {
            p.i++;
            pp_space(&p);
            if (p.i < p.len && p.s[p.i] == '*') {
                p.i++;
                st->kind = JSON_STEP_INDEX_WILD;
                path->wild = true;
            } else {
                if (pp_index(&p, &st->from, &st->from_last))
                    return -1;
                st->kind = JSON_STEP_INDEX;
                pp_space(&p);
                if (pp_word(&p, "to")) {
                    st->kind = JSON_STEP_RANGE;
                    path->wild = true;
                    pp_space(&p);
                    if (p.i < p.len && p.s[p.i] == ']') {
                        /* [n to]: MariaDB takes it and it reaches nothing */
                        st->to = -1;
                    } else if (pp_index(&p, &st->to, &st->to_last)) {
                        return -1;
                    }
                }
            }
            pp_space(&p);
            if (p.i >= p.len || p.s[p.i] != ']')
                return pp_bad(&p);
            p.i++;
        } else if (c == '*') {
            p.i++;
            if (p.i >= p.len || p.s[p.i] != '*') /* one '*' must be "**": the error is at what follows it */
                return pp_fail(&p, JPE_SYN);
            p.i++;
            st->kind = JSON_STEP_DOUBLE_WILD;
            path->wild = true;
            if (p.i >= p.len)
                return pp_fail(&p, JPE_SYN);
        } else {
            return pp_fail(&p, JPE_SYN);
        }
        path->nsteps++;
    }
    if (path->nsteps && path->steps[path->nsteps - 1].kind == JSON_STEP_DOUBLE_WILD)
        return pp_fail(&p, JPE_SYN);
    return 0;
}

int64_t json_step_index(const json_step_t *s, uint32_t n, bool to)
{
    int64_t v = to ? s->to : s->from;
    bool last = to ? s->to_last : s->from_last;
    if (last)
        v = (int64_t)n - 1 - v;
    return v;
}

static void add_match(arena_t *a, json_matches_t *out, json_node_t *node, json_node_t *parent, uint32_t idx)
{
    for (uint32_t i = 0; i < out->n; i++)
        if (out->m[i].node == node)
            return;
    if (out->n == out->cap) {
        uint32_t cap = out->cap ? out->cap * 2 : 8;
        json_match_t *m = arena_alloc(a, cap * sizeof *m);
        if (out->n)
            memcpy(m, out->m, out->n * sizeof *m);
        out->m = m;
        out->cap = cap;
    }
    out->m[out->n++] = (json_match_t){node, parent, idx};
}

static void find_from(arena_t *a, json_node_t *n, json_node_t *parent, uint32_t idx, const json_path_t *p, int k,
                      json_matches_t *out);

static void step_children(arena_t *a, json_node_t *n, const json_path_t *p, int k, json_matches_t *out)
{
    const json_step_t *s = &p->steps[k];
    switch (s->kind) {
    case JSON_STEP_KEY: {
        /* keys match as written (MariaDB: "\u00e9" in the document is not the path's "é") */
        if (n->kind != JSON_OBJECT)
            return;
        for (uint32_t i = 0; i < n->n; i++)
            if (n->klens[i] == s->klen && memcmp(n->keys[i], s->key, s->klen) == 0) {
                find_from(a, n->kids[i], n, i, p, k + 1, out);
                return;
            }
        return;
    }
    case JSON_STEP_KEY_WILD:
        if (n->kind == JSON_OBJECT)
            for (uint32_t i = 0; i < n->n; i++)
                find_from(a, n->kids[i], n, i, p, k + 1, out);
        return;
    case JSON_STEP_INDEX: {
        if (n->kind != JSON_ARRAY) {
            /* a scalar or object is its own [0] (MariaDB's autowrapping) */
            if (json_step_index(s, 1, false) == 0)
                find_from(a, n, NULL, UINT32_MAX, p, k + 1, out);
            return;
        }
        int64_t i = json_step_index(s, n->n, false);
        if (i >= 0 && i < n->n)
            find_from(a, n->kids[i], n, (uint32_t)i, p, k + 1, out);
        return;
    }
    case JSON_STEP_INDEX_WILD:
        if (n->kind == JSON_ARRAY)
            for (uint32_t i = 0; i < n->n; i++)
                find_from(a, n->kids[i], n, i, p, k + 1, out);
        return;
    case JSON_STEP_RANGE: {
        if (n->kind != JSON_ARRAY)
            return;
        int64_t from = json_step_index(s, n->n, false), to = json_step_index(s, n->n, true);
        for (int64_t i = from < 0 ? 0 : from; i <= to && i < n->n; i++)
            find_from(a, n->kids[i], n, (uint32_t)i, p, k + 1, out);
        return;
    }
    case JSON_STEP_DOUBLE_WILD:
        /* ** then the next step, at any depth below */
        step_children(a, n, p, k + 1, out);
        if (n->kind == JSON_ARRAY || n->kind == JSON_OBJECT)
            for (uint32_t i = 0; i < n->n; i++)
                if (n->kids[i]->kind == JSON_ARRAY || n->kids[i]->kind == JSON_OBJECT)
                    step_children(a, n->kids[i], p, k, out);
        return;
    }
}

static void find_from(arena_t *a, json_node_t *n, json_node_t *parent, uint32_t idx, const json_path_t *p, int k,
                      json_matches_t *out)
{
    if (k == p->nsteps) {
        add_match(a, out, n, parent, idx);
        return;
    }
    step_children(a, n, p, k, out);
}

void json_path_find(arena_t *a, json_node_t *root, const json_path_t *p, json_matches_t *out)
{
    find_from(a, root, NULL, 0, p, 0, out);
}

void json_error_message(char *msg, size_t size, const json_error_t *err, int argno, const char *fn)
{
    switch (err->code) {
    case 4035: snprintf(msg, size, "Broken JSON string in argument %d to function '%s' at position %zu", argno, fn, err->pos); break;
    case 4036: snprintf(msg, size, "Character disallowed in JSON in argument %d to function '%s' at position %zu", argno, fn, err->pos); break;
    case 4037: snprintf(msg, size, "Unexpected end of JSON text in argument %d to function '%s'", argno, fn); break;
    case 4038: snprintf(msg, size, "Syntax error in JSON text in argument %d to function '%s' at position %zu", argno, fn, err->pos); break;
    case 4039: snprintf(msg, size, "Incorrect escaping in JSON text in argument %d to function '%s' at position %zu", argno, fn, err->pos); break;
    case 4040: snprintf(msg, size, "Limit of %d on JSON nested structures depth is reached in argument %d to function '%s' at position %zu", JSON_DEPTH_LIMIT, argno, fn, err->pos); break;
    case 4041: snprintf(msg, size, "Unexpected end of JSON path in argument %d to function '%s'", argno, fn); break;
    case 4042: snprintf(msg, size, "Syntax error in JSON path in argument %d to function '%s' at position %zu", argno, fn, err->pos); break;
    case 4043: snprintf(msg, size, "Limit of %d on JSON path depth is reached in argument %d to function '%s' at position %zu", JSON_PATH_MAX_STEPS, argno, fn, err->pos); break;
    case 4044: snprintf(msg, size, "Wildcards or range in JSON path not allowed in argument %d to function '%s'", argno, fn); break;
    case 4045: snprintf(msg, size, "JSON path should end with an array identifier in argument %d to function '%s'", argno, fn); break;
    default: snprintf(msg, size, "JSON error in argument %d to function '%s'", argno, fn); break;
    }
}
