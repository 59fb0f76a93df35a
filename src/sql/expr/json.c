/*
 * The JSON functions of MariaDB 10.11 (the rows of functions.def that name sql_eval_json_fn): JSON is text, so
 * every function parses its document argument (jsondoc.c), works on the tree and prints the answer again in
 * MariaDB's layout.  Broken JSON text or paths are warnings (4036 .. 4043, naming the argument and the
 * function) and make the result NULL, as in MariaDB; JSON_VALID reports them as notes.
 *
 * A value argument (JSON_OBJECT's values, JSON_SET's new values ...) is JSON when it comes from a JSON function
 * (JSON_OBJECT('a', JSON_ARRAY(1)) nests an array), TRUE / FALSE when it is a boolean literal, a number when it
 * is a number and otherwise a string, quoted and escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/expr/expr_int.h"
#include "sql/expr/jsondoc.h"
#include "sql/expr/typeinf.h"
#include "util/buf.h"

/* ---------------------------------------------------------------- helpers */

static const char *fn_lower(arena_t *a, const sql_expr_t *e)
{
    /* JSON_MERGE is JSON_MERGE_PRESERVE in MariaDB's messages */
    const char *n = e->func.fn == SQL_FN_JSON_MERGE ? "json_merge_preserve" : sql_fn_name(e->func.fn);
    size_t l = strlen(n);
    char *o = arena_alloc(a, l + 1);
    for (size_t i = 0; i <= l; i++)
        o[i] = (char)((n[i] >= 'A' && n[i] <= 'Z') ? n[i] + 32 : n[i]);
    return o;
}

static void jwarn(sql_eval_ctx_t *ctx, const sql_expr_t *e, int level, const json_error_t *err, int argno)
{
    char msg[256];
    json_error_message(msg, sizeof msg, err, argno, fn_lower(ctx->arena, e));
    diag_push_msg(ctx->diag, level, err->code, msg);
}

static value_t text_of(sql_eval_ctx_t *ctx, const value_t *v)
{
    if (v->type == VAL_STRING)
        return *v;
    size_t n;
    const char *s = value_to_text(ctx->arena, v, &n);
    return value_str(s, n, COLL_DEFAULT);
}

/* The document in argument i (0-based): its tree, or NULL after a warning. */
static json_node_t *doc_arg(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, int i)
{
    value_t t = text_of(ctx, &a[i]);
    json_node_t *root;
    json_error_t err;
    if (json_parse(ctx->arena, t.s.ptr ? t.s.ptr : "", t.s.len, &root, &err)) {
        jwarn(ctx, e, DIAG_WARNING, &err, i + 1);
        return NULL;
    }
    /* text after the value: MariaDB's functions read to the end of the document, except JSON_KEYS, JSON_LENGTH
     * of a scalar and JSON_CONTAINS' scalar value, which stop once they have their answer */
    bool scalar = root->kind != JSON_ARRAY && root->kind != JSON_OBJECT;
    if (err.trailing && e->func.fn != SQL_FN_JSON_KEYS && !(e->func.fn == SQL_FN_JSON_LENGTH && scalar) &&
        !(e->func.fn == SQL_FN_JSON_CONTAINS && i == 1 && scalar)) {
        jwarn(ctx, e, DIAG_WARNING, &err, i + 1);
        return NULL;
    }
    return root;
}

static bool path_arg(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, int i, json_path_t *p)
{
    value_t t = text_of(ctx, &a[i]);
    json_error_t err;
    if (json_path_parse(t.s.ptr ? t.s.ptr : "", t.s.len, p, &err)) {
        jwarn(ctx, e, DIAG_WARNING, &err, i + 1);
        return false;
    }
    return true;
}

static bool path_no_wild(sql_eval_ctx_t *ctx, const sql_expr_t *e, const json_path_t *p, int i)
{
    if (!p->wild)
        return true;
    json_error_t err = {.code = 4044};
    jwarn(ctx, e, DIAG_WARNING, &err, i + 1);
    return false;
}

static value_t json_result(sql_eval_ctx_t *ctx, const json_node_t *n, json_style_t st)
{
    buf_t b;
    buf_init(&b);
    json_print(&b, n, st);
    char *p = arena_strndup(ctx->arena, b.data ? (const char *)b.data : "", b.len);
    value_t v = value_str(p, b.len, COLL_UTF8MB4_BIN);
    buf_free(&b);
    return v;
}

/* Does expression x produce JSON (a JSON function's result)?  (A JSON column is JSON as a value argument, not in
 * comparisons: expr_is_json_value.) */
static bool expr_is_json(const sql_expr_t *x)
{
    return x && x->kind == SQL_E_FUNC && (sql_fn_flags(x->func.fn) & SQL_FNF_JSON);
}

/* 1 / 0 when x is boolean in MariaDB (TRUE, FALSE, a comparison, NOT, AND, LIKE, IS ...) and v its value; -1
 * when it is not boolean. */
static bool expr_is_json_value(const sql_expr_t *x)
{
    return expr_is_json(x) || (x && x->kind == SQL_E_COLUMN && x->bound_json);
}

static int expr_bool_literal(const sql_expr_t *x, const value_t *v)
{
    if (!x)
        return -1;
    bool boolean = false;
    switch (x->kind) {
    case SQL_E_IS: case SQL_E_LIKE: case SQL_E_REGEXP: case SQL_E_IN: case SQL_E_BETWEEN: case SQL_E_EXISTS:
    case SQL_E_QUANTIFIED:
        boolean = true;
        break;
    case SQL_E_BINARY:
        boolean = x->op == SQL_OP_EQ || x->op == SQL_OP_NSEQ || x->op == SQL_OP_NE || x->op == SQL_OP_LT ||
                  x->op == SQL_OP_LE || x->op == SQL_OP_GT || x->op == SQL_OP_GE || x->op == SQL_OP_AND ||
                  x->op == SQL_OP_OR || x->op == SQL_OP_XOR;
        break;
    case SQL_E_UNARY:
        boolean = x->op == SQL_OP_NOT;
        break;
    default:
        break;
    }
    if (boolean)
        return v->type == VAL_NULL ? -1 : value_to_bool(v, NULL) ? 1 : 0;
    if (x->kind != SQL_E_LITERAL || !x->src)
        return -1;
    if (x->src_len == 4 && strncasecmp(x->src, "TRUE", 4) == 0)
        return 1;
    if (x->src_len == 5 && strncasecmp(x->src, "FALSE", 5) == 0)
        return 0;
    return -1;
}

/* Argument i as a JSON value. */
static json_node_t *value_node(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, uint32_t i)
{
    const value_t *v = &a[i];
    const sql_expr_t *x = i < e->nargs ? e->args[i] : NULL;
    if (v->type == VAL_NULL)
        return json_new(ctx->arena, JSON_NULL, NULL, 0);
    int b = expr_bool_literal(x, v);
    if (b >= 0)
        return json_new(ctx->arena, b ? JSON_TRUE : JSON_FALSE, NULL, 0);
    if (v->type == VAL_STRING && expr_is_json_value(x)) {
        json_node_t *root;
        json_error_t err;
        if (json_parse(ctx->arena, v->s.ptr ? v->s.ptr : "", v->s.len, &root, &err) == 0 && root)
            return root;
    }
    if (value_is_numeric(v)) {
        size_t n;
        const char *s = value_to_text(ctx->arena, v, &n);
        return json_new(ctx->arena, JSON_NUMBER, s, n);
    }
    value_t t = text_of(ctx, v);
    return json_new_string(ctx->arena, t.s.ptr ? t.s.ptr : "", t.s.len);
}

static int depth_of(const json_node_t *n)
{
    if (n->kind != JSON_ARRAY && n->kind != JSON_OBJECT)
        return 1;
    int d = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        int k = depth_of(n->kids[i]);
        if (k > d)
            d = k;
    }
    return d + 1;
}

static const char *type_name(const json_node_t *n)
{
    switch (n->kind) {
    case JSON_NULL: return "NULL";
    case JSON_TRUE: case JSON_FALSE: return "BOOLEAN";
    case JSON_STRING: return "STRING";
    case JSON_ARRAY: return "ARRAY";
    case JSON_OBJECT: return "OBJECT";
    case JSON_NUMBER:
        return memchr(n->raw, '.', n->len) ? "DOUBLE" : "INTEGER";
    }
    return "NULL";
}

/* MariaDB's JSON_CONTAINS: does `doc` contain `val`? */
static bool contains(arena_t *a, const json_node_t *doc, const json_node_t *val)
{
    if (doc->kind == JSON_OBJECT) {
        if (val->kind != JSON_OBJECT)
            return false;
        for (uint32_t i = 0; i < val->n; i++) {
            int k = -1;
            for (uint32_t j = 0; j < doc->n; j++)
                if (doc->klens[j] == val->klens[i] && memcmp(doc->keys[j], val->keys[i], doc->klens[j]) == 0) {
                    k = (int)j;
                    break;
                }
            if (k < 0 || !contains(a, doc->kids[k], val->kids[i]))
                return false;
        }
        return true;
    }
    if (doc->kind == JSON_ARRAY) {
        if (val->kind == JSON_ARRAY) {
            for (uint32_t i = 0; i < val->n; i++) {
                bool found = false;
                for (uint32_t j = 0; j < doc->n && !found; j++)
                    found = val->kids[i]->kind == JSON_ARRAY ? json_equal(a, doc->kids[j], val->kids[i])
                                                             : contains(a, doc->kids[j], val->kids[i]);
                if (!found)
                    return false;
            }
            return true;
        }
        for (uint32_t j = 0; j < doc->n; j++)
            if (contains(a, doc->kids[j], val))
                return true;
        return false;
    }
    return json_equal(a, doc, val);
}

static bool overlaps(arena_t *a, const json_node_t *x, const json_node_t *y)
{
    if (x->kind == JSON_ARRAY) {
        for (uint32_t i = 0; i < x->n; i++) {
            if (y->kind == JSON_ARRAY) {
                for (uint32_t j = 0; j < y->n; j++)
                    if (json_equal(a, x->kids[i], y->kids[j]))
                        return true;
            } else if (json_equal(a, x->kids[i], y)) {
                return true;
            }
        }
        return false;
    }
    if (y->kind == JSON_ARRAY)
        return overlaps(a, y, x);
    if (x->kind == JSON_OBJECT && y->kind == JSON_OBJECT) {
        for (uint32_t i = 0; i < x->n; i++)
            for (uint32_t j = 0; j < y->n; j++)
                if (x->klens[i] == y->klens[j] && memcmp(x->keys[i], y->keys[j], x->klens[i]) == 0 &&
                    json_equal(a, x->kids[i], y->kids[j]))
                    return true;
        return false;
    }
    return json_equal(a, x, y);
}

static json_node_t *merge_preserve(arena_t *a, json_node_t *x, json_node_t *y)
{
    if (x->kind == JSON_OBJECT && y->kind == JSON_OBJECT) {
        json_node_t *r = json_new(a, JSON_OBJECT, NULL, 0);
        for (uint32_t i = 0; i < x->n; i++)
            json_append(a, r, x->keys[i], x->klens[i], x->kids[i]);
        for (uint32_t j = 0; j < y->n; j++) {
            int k = -1;
            for (uint32_t i = 0; i < r->n; i++)
                if (r->klens[i] == y->klens[j] && memcmp(r->keys[i], y->keys[j], r->klens[i]) == 0)
                    k = (int)i;
            if (k < 0)
                json_append(a, r, y->keys[j], y->klens[j], y->kids[j]);
            else
                r->kids[k] = merge_preserve(a, r->kids[k], y->kids[j]);
        }
        return r;
    }
    json_node_t *r = json_new(a, JSON_ARRAY, NULL, 0);
    if (x->kind == JSON_ARRAY)
        for (uint32_t i = 0; i < x->n; i++)
            json_append(a, r, NULL, 0, x->kids[i]);
    else
        json_append(a, r, NULL, 0, x);
    if (y->kind == JSON_ARRAY)
        for (uint32_t i = 0; i < y->n; i++)
            json_append(a, r, NULL, 0, y->kids[i]);
    else
        json_append(a, r, NULL, 0, y);
    return r;
}

static json_node_t *merge_patch(arena_t *a, json_node_t *x, json_node_t *y)
{
    if (y->kind != JSON_OBJECT)
        return y;
    json_node_t *r = json_new(a, JSON_OBJECT, NULL, 0);
    if (x && x->kind == JSON_OBJECT)
        for (uint32_t i = 0; i < x->n; i++)
            json_append(a, r, x->keys[i], x->klens[i], x->kids[i]);
    for (uint32_t j = 0; j < y->n; j++) {
        int k = -1;
        for (uint32_t i = 0; i < r->n; i++)
            if (r->klens[i] == y->klens[j] && memcmp(r->keys[i], y->keys[j], r->klens[i]) == 0)
                k = (int)i;
        if (y->kids[j]->kind == JSON_NULL) {
            if (k >= 0)
                json_remove_at(r, (uint32_t)k);
        } else if (k < 0) {
            json_append(a, r, y->keys[j], y->klens[j], merge_patch(a, NULL, y->kids[j]));
        } else {
            r->kids[k] = merge_patch(a, r->kids[k], y->kids[j]);
        }
    }
    return r;
}

/* Keys sorted, numbers as doubles, no spaces: MariaDB's JSON_NORMALIZE. */
static json_node_t *normalize(arena_t *a, const json_node_t *n)
{
    switch (n->kind) {
    case JSON_NUMBER: {
        char buf[64];
        double d = json_number(n);
        if (d == 0)
            d = 0; /* -0 is 0 */
        snprintf(buf, sizeof buf, "%.15E", d);
        /* 1.000000000000000E+02 -> 1.0E2 */
        char *ep = strchr(buf, 'E');
        char mant[40];
        size_t ml = (size_t)(ep - buf);
        memcpy(mant, buf, ml);
        mant[ml] = 0;
        while (ml > 2 && mant[ml - 1] == '0' && mant[ml - 2] != '.')
            mant[--ml] = 0;
        int ex = atoi(ep + 1);
        char out[64];
        int l = snprintf(out, sizeof out, "%sE%d", mant, ex);
        return json_new(a, JSON_NUMBER, arena_strndup(a, out, (size_t)l), (size_t)l);
    }
    case JSON_ARRAY: {
        json_node_t *r = json_new(a, JSON_ARRAY, NULL, 0);
        for (uint32_t i = 0; i < n->n; i++)
            json_append(a, r, NULL, 0, normalize(a, n->kids[i]));
        return r;
    }
    case JSON_OBJECT: {
        json_node_t *r = json_new(a, JSON_OBJECT, NULL, 0);
        for (uint32_t i = 0; i < n->n; i++) {
            json_node_t *v = normalize(a, n->kids[i]);
            uint32_t at = r->n;
            for (uint32_t j = 0; j < r->n; j++) {
                size_t m = r->klens[j] < n->klens[i] ? r->klens[j] : n->klens[i];
                int c = memcmp(n->keys[i], r->keys[j], m);
                if (c < 0 || (c == 0 && n->klens[i] < r->klens[j])) {
                    at = j;
                    break;
                }
            }
            json_append(a, r, n->keys[i], n->klens[i], v);
            /* move the appended member to its sorted place */
            for (uint32_t j = r->n - 1; j > at; j--) {
                json_node_t *tk = r->kids[j]; r->kids[j] = r->kids[j - 1]; r->kids[j - 1] = tk;
                const char *tkey = r->keys[j]; r->keys[j] = r->keys[j - 1]; r->keys[j - 1] = tkey;
                uint32_t tl = r->klens[j]; r->klens[j] = r->klens[j - 1]; r->klens[j - 1] = tl;
            }
        }
        return r;
    }
    default:
        return (json_node_t *)n;
    }
}

/* JSON_SEARCH: LIKE matching of a string value against the pattern (% _ and the escape character). */
static bool like_match(const char *s, size_t sl, const char *p, size_t pl, char esc)
{
    size_t si = 0, pi = 0, star_p = (size_t)-1, star_s = 0;
    while (si < sl) {
        if (pi < pl && p[pi] == esc && pi + 1 < pl) {
            if (p[pi + 1] == s[si]) {
                pi += 2;
                si++;
                continue;
            }
        } else if (pi < pl && p[pi] == '%') {
            star_p = ++pi;
            star_s = si;
            continue;
        } else if (pi < pl && (p[pi] == '_' || p[pi] == s[si])) {
            pi++;
            si++;
            continue;
        }
        if (star_p != (size_t)-1) {
            pi = star_p;
            si = ++star_s;
            continue;
        }
        return false;
    }
    while (pi < pl && p[pi] == '%')
        pi++;
    return pi == pl;
}

static void search(arena_t *a, const json_node_t *n, buf_t *path, const char *pat, size_t pl, char esc, bool one,
                   json_node_t *out)
{
    if (one && out->n)
        return;
    if (n->kind == JSON_STRING || n->kind == JSON_NUMBER) { /* numbers are searched as written */
        const char *s = n->raw;
        size_t sl = n->len;
        if ((n->kind == JSON_NUMBER || json_unescape(a, n->raw, n->len, &s, &sl)) && like_match(s, sl, pat, pl, esc)) {
            /* a place two of the paths reach is listed once */
            for (uint32_t i = 0; i < out->n; i++)
                if (out->kids[i]->len == path->len && memcmp(out->kids[i]->raw, path->data, path->len) == 0)
                    return;
            json_append(a, out, NULL, 0, json_new_string(a, (const char *)path->data, path->len));
        }
        return;
    }
    if (n->kind != JSON_ARRAY && n->kind != JSON_OBJECT)
        return;
    size_t keep = path->len;
    for (uint32_t i = 0; i < n->n; i++) {
        if (n->kind == JSON_ARRAY) {
            buf_printf(path, "[%u]", i);
        } else {
            buf_append_byte(path, '.');
            buf_append(path, n->keys[i], n->klens[i]);
        }
        search(a, n->kids[i], path, pat, pl, esc, one, out);
        path->len = keep;
    }
}

/* JSON_SET / JSON_INSERT / JSON_REPLACE / JSON_ARRAY_APPEND at one path. */
typedef enum { MOD_SET, MOD_INSERT, MOD_REPLACE, MOD_APPEND, MOD_ARRAY_INSERT } mod_t;

static json_node_t *modify(sql_eval_ctx_t *ctx, json_node_t *root, const json_path_t *p, json_node_t *v, mod_t mode,
                           bool *missed)
{
    arena_t *a = ctx->arena;
    if (p->nsteps == 0) {
        if (mode == MOD_SET || mode == MOD_REPLACE)
            return v;
        if (mode == MOD_APPEND) {
            if (root->kind == JSON_ARRAY) {
                json_append(a, root, NULL, 0, v);
                return root;
            }
            json_node_t *arr = json_new(a, JSON_ARRAY, NULL, 0);
            json_append(a, arr, NULL, 0, root);
            json_append(a, arr, NULL, 0, v);
            return arr;
        }
        return root;
    }
    json_path_t parent = *p;
    parent.nsteps--;
    const json_step_t *last = &p->steps[p->nsteps - 1];
    json_matches_t m = {0};
    json_path_find(a, root, &parent, &m);
    if (m.n == 0)
        return root;
    json_node_t *c = m.m[0].node;
    if (mode == MOD_APPEND) {
        json_matches_t t = {0};
        json_path_find(a, root, p, &t);
        if (!t.n) {
            *missed = true; /* JSON_ARRAY_APPEND to a path that is not there: NULL */
            return root;
        }
        json_node_t *target = t.m[0].node;
        if (target->kind == JSON_ARRAY) {
            json_append(a, target, NULL, 0, v);
            return root;
        }
        json_node_t *arr = json_new(a, JSON_ARRAY, NULL, 0);
        json_append(a, arr, NULL, 0, target);
        json_append(a, arr, NULL, 0, v);
        if (!t.m[0].parent)
            return t.m[0].node == root ? arr : root;
        t.m[0].parent->kids[t.m[0].index] = arr;
        return root;
    }
    if (last->kind == JSON_STEP_KEY) {
        if (c->kind != JSON_OBJECT)
            return root;
        int k = -1; /* keys match as written, as in path lookups */
        for (uint32_t i = 0; i < c->n; i++) {
            if (c->klens[i] == last->klen && memcmp(c->keys[i], last->key, last->klen) == 0) {
                k = (int)i;
                break;
            }
        }
        if (k >= 0) {
            if (mode == MOD_SET || mode == MOD_REPLACE)
                c->kids[k] = v;
        } else if (mode == MOD_SET || mode == MOD_INSERT) {
            json_append(a, c, last->key, last->klen, v);
        }
        return root;
    }
    if (last->kind == JSON_STEP_INDEX) {
        if (c->kind != JSON_ARRAY) {
            /* a non-array is its own [0]; [n > 0] wraps it into an array and appends */
            int64_t i = json_step_index(last, 1, false);
            json_node_t *nv = NULL;
            if (i == 0) {
                if (mode == MOD_SET || mode == MOD_REPLACE)
                    nv = v;
            } else if (mode == MOD_SET || mode == MOD_INSERT) {
                nv = json_new(a, JSON_ARRAY, NULL, 0);
                json_append(a, nv, NULL, 0, c);
                json_append(a, nv, NULL, 0, v);
            }
            if (!nv)
                return root;
            if (!m.m[0].parent)
                return nv;
            m.m[0].parent->kids[m.m[0].index] = nv;
            return root;
        }
        int64_t i = json_step_index(last, c->n, false);
        if (mode == MOD_ARRAY_INSERT) {
            if (last->from_last) /* JSON_ARRAY_INSERT's [last] is past the last member */
                i++;
            if (i < 0)
                i = 0;
            json_insert_at(a, c, (uint32_t)(i > c->n ? c->n : i), v);
            return root;
        }
        if (i >= 0 && i < c->n) {
            if (mode == MOD_SET || mode == MOD_REPLACE)
                c->kids[i] = v;
        } else if (i >= c->n && (mode == MOD_SET || mode == MOD_INSERT)) {
            json_append(a, c, NULL, 0, v);
        }
        return root;
    }
    return root;
}

static void remove_path(sql_eval_ctx_t *ctx, json_node_t *root, const json_path_t *p)
{
    json_matches_t m = {0};
    json_path_find(ctx->arena, root, p, &m);
    if (m.n && m.m[0].parent && m.m[0].index != UINT32_MAX)
        json_remove_at(m.m[0].parent, m.m[0].index);
}

static bool one_or_all(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *v, bool *one)
{
    value_t t = text_of(ctx, v);
    if (t.s.len == 3 && strncasecmp(t.s.ptr, "one", 3) == 0) {
        *one = true;
        return true;
    }
    if (t.s.len == 3 && strncasecmp(t.s.ptr, "all", 3) == 0) {
        *one = false;
        return true;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "Argument 2 to function '%s' must be \"one\" or \"all\".", fn_lower(ctx->arena, e));
    diag_push_msg(ctx->diag, DIAG_WARNING, 4046, msg);
    return false;
}

void sql_json_append_value(arena_t *a, buf_t *b, const sql_expr_t *x, const value_t *v)
{
    sql_eval_ctx_t ctx = {.arena = a};
    sql_expr_t one = {.kind = SQL_E_FUNC, .nargs = x ? 1 : 0, .args = (sql_expr_t **)&x};
    json_print(b, value_node(&ctx, &one, v, 0), JSON_STYLE_LOOSE);
}

/* ---------------------------------------------------------------- comparisons */

static void json_unquote_value(sql_eval_ctx_t *ctx, value_t *v)
{
    if (v->type != VAL_STRING || v->s.len < 2 || v->s.ptr[0] != '"')
        return;
    json_node_t *root;
    json_error_t err;
    if (json_parse(ctx->arena, v->s.ptr, v->s.len, &root, &err) || err.trailing || root->kind != JSON_STRING)
        return;
    const char *u;
    size_t ul;
    if (json_unescape(ctx->arena, root->raw, root->len, &u, &ul)) {
        v->s.ptr = u;
        v->s.len = ul;
    }
}

/* A JSON function's value against a number: MariaDB reads it as one (true 1, false 0, a number as written, a
 * string's content, anything else 0), quietly. */
static void json_numeric_value(sql_eval_ctx_t *ctx, value_t *v)
{
    json_node_t *root;
    json_error_t err;
    if (json_parse(ctx->arena, v->s.ptr ? v->s.ptr : "", v->s.len, &root, &err) || err.trailing) {
        v->dec = VAL_DEC_QUIET;
        return;
    }
    switch (root->kind) {
    case JSON_TRUE: *v = value_int(1); return;
    case JSON_FALSE: case JSON_NULL: case JSON_ARRAY: case JSON_OBJECT: *v = value_int(0); return;
    case JSON_NUMBER: v->dec = VAL_DEC_QUIET; return;
    case JSON_STRING: {
        const char *u;
        size_t ul;
        if (json_unescape(ctx->arena, root->raw, root->len, &u, &ul)) {
            v->s.ptr = u;
            v->s.len = ul;
        }
        v->dec = VAL_DEC_QUIET;
        return;
    }
    }
}

void sql_json_cmp_prepare(sql_eval_ctx_t *ctx, const sql_expr_t *ea, const sql_expr_t *eb, value_t *a, value_t *b)
{
    bool ja = expr_is_json(ea), jb = expr_is_json(eb);
    if (ja == jb)
        return;
    value_t *jv = ja ? a : b, *other = ja ? b : a;
    if (jv->type != VAL_STRING)
        return;
    if (other->type == VAL_STRING)
        json_unquote_value(ctx, jv);
    else if (value_is_numeric(other))
        json_numeric_value(ctx, jv);
}

/* ---------------------------------------------------------------- result types */

/* Static result types, so that CREATE TABLE ... SELECT sizes its columns before a row is read: the integer
 * functions are INT (1 or 10 digits, as MariaDB's), JSON_DETAILED / JSON_PRETTY LONGTEXT (type LONG_BLOB, 64 MiB
 * in bytes), the other string functions a string long enough for any result their arguments can give (text is
 * at most 6 times longer once escaped, plus quotes and separators).  MariaDB's own lengths are tighter; a
 * function over an argument of unknown type is typed by its first value. */
int sql_type_json_fn(const sql_typeinf_env_t *env, const sql_expr_t *e, sql_rtype_t *out)
{
    sql_fn_t fn = e->func.fn;
    uint16_t coll = env && env->conn_coll ? env->conn_coll : COLL_UTF8MB4_GENERAL_CI;
    switch (fn) {
    case SQL_FN_JSON_VALID: case SQL_FN_JSON_CONTAINS: case SQL_FN_JSON_CONTAINS_PATH: case SQL_FN_JSON_EXISTS:
    case SQL_FN_JSON_OVERLAPS: case SQL_FN_JSON_EQUALS: case SQL_FN_JSON_LENGTH: case SQL_FN_JSON_DEPTH: {
        uint32_t len = fn == SQL_FN_JSON_LENGTH || fn == SQL_FN_JSON_DEPTH ? 10 : 1;
        *out = (sql_rtype_t){.type = SQL_TYPE_LONG, .len = len, .prec = len, .nullable = true, .coll = COLL_BINARY};
        return 1;
    }
    case SQL_FN_JSON_DETAILED: case SQL_FN_JSON_PRETTY: {
        uint32_t mb = value_coll_mbmaxlen(coll);
        *out = (sql_rtype_t){.type = SQL_TYPE_LONG_BLOB, .len = 67108864u / (mb ? mb : 1), .nullable = true,
                             .coll = coll};
        return 1;
    }
    case SQL_FN_JSON_TYPE:
        *out = (sql_rtype_t){.type = SQL_TYPE_VAR_STRING, .len = 12, .dec = 39, .nullable = true, .coll = coll};
        return 1;
    default:
        break;
    }
    uint64_t len = 2;
    for (uint32_t i = 0; i < e->nargs; i++) {
        sql_rtype_t a;
        if (!sql_type_infer(env, e->args[i], &a))
            return 0;
        len += (uint64_t)(a.type == SQL_TYPE_NULL ? 4 : a.len) * 6 + 8;
    }
    if (len > 1073741823u)
        len = 1073741823u;
    *out = (sql_rtype_t){.type = SQL_TYPE_VAR_STRING, .len = (uint32_t)len, .dec = 39, .nullable = true, .coll = coll};
    return 1;
}

/* ---------------------------------------------------------------- the evaluator */

int sql_eval_json_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out)
{
    arena_t *ar = ctx->arena;
    uint32_t n = e->nargs;
    sql_fn_t fn = e->func.fn;
    *out = value_null();
    switch (fn) {
    case SQL_FN_JSON_VALID: {
        if (a[0].type == VAL_NULL)
            return 0;
        value_t t = text_of(ctx, &a[0]);
        json_node_t *root;
        json_error_t err;
        int r = json_parse(ar, t.s.ptr ? t.s.ptr : "", t.s.len, &root, &err);
        if (r || err.trailing)
            jwarn(ctx, e, DIAG_NOTE, &err, 1);
        *out = value_int(r == 0 && !err.trailing);
        return 0;
    }
    case SQL_FN_JSON_QUOTE: {
        if (a[0].type != VAL_STRING)
            return 0;
        json_node_t *s = json_new_string(ar, a[0].s.ptr ? a[0].s.ptr : "", a[0].s.len);
        *out = json_result(ctx, s, JSON_STYLE_LOOSE);
        out->coll = a[0].coll == COLL_BINARY ? COLL_UTF8MB4_BIN : a[0].coll;
        return 0;
    }
    case SQL_FN_JSON_UNQUOTE: {
        if (a[0].type == VAL_NULL)
            return 0;
        value_t t = text_of(ctx, &a[0]);
        const char *p = t.s.ptr ? t.s.ptr : "";
        if (t.s.len < 1 || p[0] != '"') {
            *out = value_str(p, t.s.len, t.coll == COLL_BINARY ? COLL_UTF8MB4_BIN : t.coll);
            return 0;
        }
        json_node_t *root;
        json_error_t err;
        if (json_parse(ar, p, t.s.len, &root, &err) || err.trailing || root->kind != JSON_STRING) {
            if (err.code)
                jwarn(ctx, e, DIAG_WARNING, &err, 1);
            *out = value_str(p, t.s.len, t.coll == COLL_BINARY ? COLL_UTF8MB4_BIN : t.coll);
            return 0;
        }
        const char *u;
        size_t ul;
        if (!json_unescape(ar, root->raw, root->len, &u, &ul)) {
            *out = value_str(p, t.s.len, t.coll);
            return 0;
        }
        *out = value_str(u, ul, COLL_UTF8MB4_BIN);
        return 0;
    }
    case SQL_FN_JSON_OBJECT: {
        if (n % 2) {
            diag_error(ctx->diag, ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, sql_fn_name(fn));
            return -ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT;
        }
        json_node_t *o = json_new(ar, JSON_OBJECT, NULL, 0);
        for (uint32_t i = 0; i < n; i += 2) {
            value_t k = a[i].type == VAL_NULL ? value_str("", 0, COLL_UTF8MB4_BIN) : text_of(ctx, &a[i]);
            json_node_t *ks = json_new_string(ar, k.s.ptr ? k.s.ptr : "", k.s.len);
            json_append(ar, o, ks->raw, ks->len, value_node(ctx, e, a, i + 1));
        }
        *out = json_result(ctx, o, JSON_STYLE_LOOSE);
        return 0;
    }
    case SQL_FN_JSON_ARRAY: {
        json_node_t *o = json_new(ar, JSON_ARRAY, NULL, 0);
        for (uint32_t i = 0; i < n; i++)
            json_append(ar, o, NULL, 0, value_node(ctx, e, a, i));
        *out = json_result(ctx, o, JSON_STYLE_LOOSE);
        return 0;
    }
    default:
        break;
    }

    /* the rest read a document in argument 1 */
    if (a[0].type == VAL_NULL)
        return 0;
    switch (fn) {
    case SQL_FN_JSON_EXTRACT: {
        if (any_null)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        json_matches_t m = {0};
        bool wrap = n > 2;
        for (uint32_t i = 1; i < n; i++) {
            json_path_t p;
            if (!path_arg(ctx, e, a, (int)i, &p))
                return 0;
            wrap |= p.wild;
            json_path_find(ar, root, &p, &m);
        }
        if (!m.n)
            return 0;
        if (!wrap) {
            /* MariaDB reads JSON_EXTRACT's value as a number without warnings ("x", true, [1] are quiet) */
            *out = json_result(ctx, m.m[0].node, JSON_STYLE_LOOSE);
            if (m.m[0].node->kind != JSON_NUMBER)
                out->dec = VAL_DEC_QUIET;
            return 0;
        }
        json_node_t *arr = json_new(ar, JSON_ARRAY, NULL, 0);
        for (uint32_t i = 0; i < m.n; i++)
            json_append(ar, arr, NULL, 0, m.m[i].node);
        *out = json_result(ctx, arr, JSON_STYLE_LOOSE);
        return 0;
    }
    case SQL_FN_JSON_VALUE:
    case SQL_FN_JSON_QUERY:
    case SQL_FN_JSON_EXISTS: {
        if (any_null)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        json_path_t p;
        if (!path_arg(ctx, e, a, 1, &p))
            return 0;
        json_matches_t m = {0};
        json_path_find(ar, root, &p, &m);
        if (fn == SQL_FN_JSON_EXISTS) {
            *out = value_int(m.n > 0);
            return 0;
        }
        for (uint32_t i = 0; i < m.n; i++) {
            json_node_t *v = m.m[i].node;
            bool scalar = v->kind != JSON_ARRAY && v->kind != JSON_OBJECT;
            if (fn == SQL_FN_JSON_VALUE && scalar) {
                if (v->kind == JSON_NULL)
                    return 0;
                if (v->kind == JSON_TRUE || v->kind == JSON_FALSE) {
                    *out = value_str(v->kind == JSON_TRUE ? "1" : "0", 1, COLL_UTF8MB4_BIN);
                    return 0;
                }
                if (v->kind == JSON_STRING) {
                    const char *u;
                    size_t ul;
                    if (json_unescape(ar, v->raw, v->len, &u, &ul))
                        *out = value_str(u, ul, COLL_UTF8MB4_BIN);
                    return 0;
                }
                *out = json_result(ctx, v, JSON_STYLE_LOOSE);
                return 0;
            }
            if (fn == SQL_FN_JSON_QUERY && !scalar) {
                *out = v->raw ? value_str(v->raw, v->len, COLL_UTF8MB4_BIN) : json_result(ctx, v, JSON_STYLE_LOOSE);
                return 0;
            }
        }
        return 0;
    }
    case SQL_FN_JSON_CONTAINS: {
        if (any_null)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        json_node_t *val = doc_arg(ctx, e, a, 1);
        if (!val)
            return 0;
        if (n > 2) {
            json_path_t p;
            if (!path_arg(ctx, e, a, 2, &p) || !path_no_wild(ctx, e, &p, 2))
                return 0;
            json_matches_t m = {0};
            json_path_find(ar, root, &p, &m);
            if (!m.n) {
                *out = value_int(0);
                return 0;
            }
            root = m.m[0].node;
        }
        *out = value_int(contains(ar, root, val));
        return 0;
    }
    case SQL_FN_JSON_CONTAINS_PATH: {
        if (any_null)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        bool one;
        if (!one_or_all(ctx, e, &a[1], &one))
            return 0;
        bool any = false, all = true;
        for (uint32_t i = 2; i < n; i++) {
            json_path_t p;
            if (!path_arg(ctx, e, a, (int)i, &p))
                return 0;
            json_matches_t m = {0};
            json_path_find(ar, root, &p, &m);
            any |= m.n > 0;
            all &= m.n > 0;
        }
        *out = value_int(one ? any : all);
        return 0;
    }
    case SQL_FN_JSON_KEYS:
    case SQL_FN_JSON_LENGTH:
    case SQL_FN_JSON_TYPE:
    case SQL_FN_JSON_DEPTH: {
        if (any_null)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        if (n > 1) {
            json_path_t p;
            if (!path_arg(ctx, e, a, 1, &p) || !path_no_wild(ctx, e, &p, 1))
                return 0;
            json_matches_t m = {0};
            json_path_find(ar, root, &p, &m);
            if (!m.n)
                return 0;
            root = m.m[0].node;
        }
        if (fn == SQL_FN_JSON_TYPE) {
            const char *t = type_name(root);
            *out = value_str(t, strlen(t), COLL_UTF8MB3_GENERAL_CI);
        } else if (fn == SQL_FN_JSON_DEPTH) {
            *out = value_int(depth_of(root));
        } else if (fn == SQL_FN_JSON_LENGTH) {
            *out = value_int(root->kind == JSON_ARRAY || root->kind == JSON_OBJECT ? root->n : 1);
        } else {
            if (root->kind != JSON_OBJECT)
                return 0;
            json_node_t *arr = json_new(ar, JSON_ARRAY, NULL, 0);
            for (uint32_t i = 0; i < root->n; i++) {
                bool dup = false;
                for (uint32_t j = 0; j < i && !dup; j++)
                    dup = root->klens[j] == root->klens[i] && memcmp(root->keys[j], root->keys[i], root->klens[i]) == 0;
                if (!dup)
                    json_append(ar, arr, NULL, 0, json_new(ar, JSON_STRING, root->keys[i], root->klens[i]));
            }
            *out = json_result(ctx, arr, JSON_STYLE_LOOSE);
        }
        return 0;
    }
    case SQL_FN_JSON_SET:
    case SQL_FN_JSON_INSERT:
    case SQL_FN_JSON_REPLACE:
    case SQL_FN_JSON_ARRAY_APPEND:
    case SQL_FN_JSON_ARRAY_INSERT: {
        if (n % 2 == 0) {
            diag_error(ctx->diag, ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, sql_fn_name(fn));
            return -ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT;
        }
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        mod_t mode = fn == SQL_FN_JSON_SET ? MOD_SET : fn == SQL_FN_JSON_INSERT ? MOD_INSERT
                   : fn == SQL_FN_JSON_REPLACE ? MOD_REPLACE : fn == SQL_FN_JSON_ARRAY_APPEND ? MOD_APPEND
                   : MOD_ARRAY_INSERT;
        for (uint32_t i = 1; i < n; i += 2) {
            if (a[i].type == VAL_NULL)
                return 0;
            json_path_t p;
            if (!path_arg(ctx, e, a, (int)i, &p) || !path_no_wild(ctx, e, &p, (int)i))
                return 0;
            if (mode == MOD_ARRAY_INSERT && (p.nsteps == 0 || p.steps[p.nsteps - 1].kind != JSON_STEP_INDEX))
                return 0;
            bool missed = false;
            root = modify(ctx, root, &p, value_node(ctx, e, a, i + 1), mode, &missed);
            if (missed)
                return 0;
        }
        *out = json_result(ctx, root, JSON_STYLE_LOOSE);
        return 0;
    }
    case SQL_FN_JSON_REMOVE: {
        if (any_null)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        for (uint32_t i = 1; i < n; i++) {
            json_path_t p;
            if (!path_arg(ctx, e, a, (int)i, &p) || !path_no_wild(ctx, e, &p, (int)i))
                return 0;
            if (p.nsteps == 0) {
                char msg[160];
                snprintf(msg, sizeof msg, "Path expression '$' is not allowed in argument %u to function '%s'.", i + 1,
                         fn_lower(ar, e));
                diag_push_msg(ctx->diag, DIAG_WARNING, 4051, msg);
                return 0;
            }
            remove_path(ctx, root, &p);
        }
        *out = json_result(ctx, root, JSON_STYLE_LOOSE);
        return 0;
    }
    case SQL_FN_JSON_MERGE:
    case SQL_FN_JSON_MERGE_PRESERVE:
    case SQL_FN_JSON_MERGE_PATCH: {
        json_node_t *acc = NULL;
        bool patch = fn == SQL_FN_JSON_MERGE_PATCH;
        if (any_null)
            return 0;
        for (uint32_t i = 0; i < n; i++) {
            json_node_t *d = doc_arg(ctx, e, a, (int)i);
            if (!d)
                return 0;
            if (i == 0)
                acc = d;
            else if (patch)
                acc = acc ? merge_patch(ar, acc, d) : (d->kind == JSON_OBJECT ? merge_patch(ar, NULL, d) : d);
            else
                acc = merge_preserve(ar, acc, d);
        }
        if (acc)
            *out = json_result(ctx, acc, JSON_STYLE_LOOSE);
        return 0;
    }
    case SQL_FN_JSON_SEARCH: {
        if (a[1].type == VAL_NULL || a[2].type == VAL_NULL)
            return 0;
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        bool one;
        if (!one_or_all(ctx, e, &a[1], &one))
            return 0;
        char esc = '\\';
        if (n > 3 && a[3].type != VAL_NULL) {
            value_t t = text_of(ctx, &a[3]);
            if (t.s.len > 1) {
                diag_error(ctx->diag, ER_WRONG_ARGUMENTS, "ESCAPE");
                return -ER_WRONG_ARGUMENTS;
            }
            if (t.s.len == 1)
                esc = t.s.ptr[0];
        }
        value_t pat = text_of(ctx, &a[2]);
        json_node_t *res = json_new(ar, JSON_ARRAY, NULL, 0);
        buf_t path;
        buf_init(&path);
        if (n > 4) {
            for (uint32_t i = 4; i < n; i++) {
                if (a[i].type == VAL_NULL) {
                    buf_free(&path);
                    return 0;
                }
                json_path_t p;
                if (!path_arg(ctx, e, a, (int)i, &p)) {
                    buf_free(&path);
                    return 0;
                }
                json_matches_t m = {0};
                json_path_find(ar, root, &p, &m);
                for (uint32_t k = 0; k < m.n; k++) {
                    value_t pt = text_of(ctx, &a[i]);
                    path.len = 0;
                    buf_append(&path, pt.s.ptr, pt.s.len);
                    search(ar, m.m[k].node, &path, pat.s.ptr ? pat.s.ptr : "", pat.s.len, esc, one, res);
                }
            }
        } else {
            buf_append_byte(&path, '$');
            search(ar, root, &path, pat.s.ptr ? pat.s.ptr : "", pat.s.len, esc, one, res);
        }
        buf_free(&path);
        if (!res->n)
            return 0;
        *out = json_result(ctx, res->n == 1 ? res->kids[0] : res, JSON_STYLE_LOOSE);
        return 0;
    }
    case SQL_FN_JSON_COMPACT:
    case SQL_FN_JSON_LOOSE:
    case SQL_FN_JSON_DETAILED:
    case SQL_FN_JSON_PRETTY:
    case SQL_FN_JSON_NORMALIZE: {
        json_node_t *root = doc_arg(ctx, e, a, 0);
        if (!root)
            return 0;
        if (fn == SQL_FN_JSON_NORMALIZE) {
            *out = json_result(ctx, normalize(ar, root), JSON_STYLE_COMPACT);
        } else if ((fn == SQL_FN_JSON_DETAILED || fn == SQL_FN_JSON_PRETTY) && n > 1) {
            int64_t w = a[1].type == VAL_NULL ? 4 : value_to_int(&a[1], ctx->diag);
            buf_t b;
            buf_init(&b);
            json_print_detailed(&b, root, (int)(w < 0 ? 0 : w > 32 ? 32 : w));
            *out = value_str(arena_strndup(ar, b.data ? (const char *)b.data : "", b.len), b.len, COLL_UTF8MB4_BIN);
            buf_free(&b);
        }
        else
            *out = json_result(ctx, root, fn == SQL_FN_JSON_COMPACT ? JSON_STYLE_COMPACT
                                         : fn == SQL_FN_JSON_LOOSE ? JSON_STYLE_LOOSE : JSON_STYLE_DETAILED);
        return 0;
    }
    case SQL_FN_JSON_OVERLAPS:
    case SQL_FN_JSON_EQUALS: {
        if (any_null)
            return 0;
        json_node_t *x = doc_arg(ctx, e, a, 0);
        if (!x)
            return 0;
        json_node_t *y = doc_arg(ctx, e, a, 1);
        if (!y)
            return 0;
        *out = value_int(fn == SQL_FN_JSON_EQUALS ? json_equal(ar, x, y) : overlaps(ar, x, y));
        return 0;
    }
    default:
        return sql_fn_unrouted(ctx, e);
    }
}
