/*
 * The SQL parser: hand-written recursive descent over the lexer's tokens, one token of lookahead (two where
 * MySQL's grammar needs it).  Expressions follow MariaDB's grammar levels (sql_yacc.yy: expr, bool_pri,
 * predicate, bit_expr, simple_expr) so precedence and associativity match:
 *
 *   :=  <  OR ||  <  XOR  <  AND &&  <  NOT  <  IS / comparison  <  IN BETWEEN LIKE REGEXP  <  |  <  &
 *   <  << >>  <  + -  <  * / DIV % MOD  <  ^  <  unary - ~  <  !  <  COLLATE / BINARY
 *
 * Errors: the first unexpected token stops the parse; the message quotes the query from that token to the end
 * (cut to 80 characters) and its line, as MariaDB's bison parser does.  A ',' as the unexpected token is quoted
 * from just after it (MariaDB's lexer starts the next token's text there).
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/parser/parser_int.h"
#include "sql/parser/sp.h"

typedef struct parser {
    arena_t *a;
    diag_t *d;
    sql_lexer_t lx;
    sql_tok_t tok, ahead;     /* current token and one token of lookahead */
    bool have_ahead;
    const char *prev_end;     /* end of the last consumed token (for source spans) */
    jmp_buf fail;             /* syntax errors unwind here */
    sql_expr_t **params;      /* `?` nodes of the current statement */
    uint32_t nparams, capparams;
    const char *stmt_start;
    int depth;
    bool len_over_u32;        /* the last paren_len() read a length beyond 4294967295 (1439 for strings) */
    int into_depth;           /* the statement's own SELECT is parsed at this depth: INTO is allowed there */
    sql_into_t *into;         /* the INTO clause read (one per statement) */
} parser_t;

#define MAX_DEPTH 200

/* ---------------------------------------------------------------- tokens */

static void next(parser_t *p)
{
    p->prev_end = p->tok.start + p->tok.len;
    if (p->have_ahead) {
        p->tok = p->ahead;
        p->have_ahead = false;
    } else {
        sql_lex_next(&p->lx, &p->tok);
    }
}

static const sql_tok_t *peek2(parser_t *p)
{
    if (!p->have_ahead) {
        sql_lex_next(&p->lx, &p->ahead);
        p->have_ahead = true;
    }
    return &p->ahead;
}

static __attribute__((noreturn)) void syntax_error(parser_t *p)
{
    const sql_tok_t *t = &p->tok;
    const char *near = t->start;
    if (t->type == TK_PUNCT && t->op == ',')
        near = t->start + 1;
    if (t->type == TK_EOF || (t->type == TK_PUNCT && t->op == ';' && false))
        near = p->lx.end;
    /* cut to 80 characters (UTF-8 aware) */
    const char *e = near;
    int chars = 0;
    while (e < p->lx.end && chars < 80) {
        unsigned char c = (unsigned char)*e;
        size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        if (e + n > p->lx.end)
            n = (size_t)(p->lx.end - e);
        e += n;
        chars++;
    }
    char *nt = arena_strndup(p->a, near, (size_t)(e - near));
    diag_error(p->d, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), nt, (int)t->line);
    longjmp(p->fail, 1);
}

static bool is_punct(parser_t *p, int op) { return p->tok.type == TK_PUNCT && p->tok.op == op; }

static bool accept_punct(parser_t *p, int op)
{
    if (is_punct(p, op)) {
        next(p);
        return true;
    }
    return false;
}

static void expect_punct(parser_t *p, int op)
{
    if (!accept_punct(p, op))
        syntax_error(p);
}

static bool tok_is_word(const sql_tok_t *t, const char *w)
{
    return t->type == TK_WORD && t->text_len == strlen(w) && strcasecmp(t->text, w) == 0;
}

static bool is_word(parser_t *p, const char *w) { return tok_is_word(&p->tok, w); }

static bool accept_word(parser_t *p, const char *w)
{
    if (is_word(p, w)) {
        next(p);
        return true;
    }
    return false;
}

static void expect_word(parser_t *p, const char *w)
{
    if (!accept_word(p, w))
        syntax_error(p);
}

static bool at_end(parser_t *p) { return p->tok.type == TK_EOF || is_punct(p, ';'); }

static void *alloc(parser_t *p, size_t n) { return arena_calloc(p->a, n); }

/* Growable arena arrays: push into a vector that is copied on growth (old copies stay in the arena). */
typedef struct vec {
    void *items;
    uint32_t n, cap;
} vec_t;

static void *vec_push(parser_t *p, vec_t *v, size_t elem)
{
    if (v->n == v->cap) {
        uint32_t ncap = v->cap ? v->cap * 2 : 4;
        void *ni = arena_alloc(p->a, ncap * elem);
        if (v->n)
            memcpy(ni, v->items, v->n * elem);
        v->items = ni;
        v->cap = ncap;
    }
    void *slot = (char *)v->items + v->n * elem;
    memset(slot, 0, elem);
    v->n++;
    return slot;
}

static char *upper_dup(parser_t *p, const char *s, size_t n)
{
    char *o = arena_strndup(p->a, s, n);
    for (size_t i = 0; i < n; i++)
        o[i] = (char)toupper((unsigned char)o[i]);
    return o;
}

static char *lower_dup(parser_t *p, const char *s, size_t n)
{
    char *o = arena_strndup(p->a, s, n);
    for (size_t i = 0; i < n; i++)
        o[i] = (char)tolower((unsigned char)o[i]);
    return o;
}

/* An identifier: a quoted one, or a word that is not reserved. */
static bool is_ident(parser_t *p)
{
    return p->tok.type == TK_QIDENT || (p->tok.type == TK_WORD && !p->tok.reserved);
}

static const char *ident(parser_t *p)
{
    if (!is_ident(p))
        syntax_error(p);
    const char *s = p->tok.text;
    next(p);
    return s;
}

/* ident or 'string' (user names, savepoint names, charset names...) */
static const char *ident_or_text(parser_t *p)
{
    if (p->tok.type == TK_STRING) {
        const char *s = p->tok.text;
        next(p);
        return s;
    }
    return ident(p);
}

/* charset_name: ident, 'string' or BINARY */
static const char *charset_name(parser_t *p)
{
    if (is_word(p, "BINARY")) {
        next(p);
        return "binary";
    }
    return ident_or_text(p);
}

static const char *string_lit(parser_t *p, size_t *len)
{
    if (p->tok.type != TK_STRING && p->tok.type != TK_NSTRING)
        syntax_error(p);
    /* adjacent literals concatenate */
    buf_t b;
    buf_init(&b);
    while (p->tok.type == TK_STRING || p->tok.type == TK_NSTRING) {
        buf_append(&b, p->tok.text, p->tok.text_len);
        next(p);
    }
    char *s = arena_strndup(p->a, (const char *)b.data ? (const char *)b.data : "", b.len);
    if (len)
        *len = b.len;
    buf_free(&b);
    return s;
}

/* [db.]name */
static sql_name_t table_name(parser_t *p)
{
    sql_name_t n = {0};
    n.name = ident(p);
    if (is_punct(p, '.')) {
        next(p);
        n.db = n.name;
        n.name = ident(p);
    }
    return n;
}

/* ---------------------------------------------------------------- expressions */

static sql_expr_t *expr(parser_t *p);
static sql_expr_t *bit_expr(parser_t *p);
static sql_expr_t *simple_expr(parser_t *p);
static sql_select_t *select_body(parser_t *p);
static const char *role_name(parser_t *p);
static sql_order_item_t *order_list(parser_t *p, uint32_t *n);
static struct sql_from *table_refs(parser_t *p);

static sql_expr_t *new_expr(parser_t *p, sql_expr_kind_t k, const char *start)
{
    sql_expr_t *e = alloc(p, sizeof *e);
    e->kind = k;
    e->slot = -1;
    e->src = start;
    return e;
}

static void finish(parser_t *p, sql_expr_t *e)
{
    e->src_len = (uint32_t)(p->prev_end - e->src);
}

static sql_expr_t *mk_binary(parser_t *p, sql_op_t op, sql_expr_t *l, sql_expr_t *r)
{
    sql_expr_t *e = new_expr(p, SQL_E_BINARY, l->src);
    e->op = op;
    e->nargs = 2;
    e->args = alloc(p, 2 * sizeof *e->args);
    e->args[0] = l;
    e->args[1] = r;
    finish(p, e);
    return e;
}

static sql_expr_t *mk_unary(parser_t *p, sql_op_t op, sql_expr_t *a, const char *start)
{
    sql_expr_t *e = new_expr(p, SQL_E_UNARY, start);
    e->op = op;
    e->nargs = 1;
    e->args = alloc(p, sizeof *e->args);
    e->args[0] = a;
    finish(p, e);
    return e;
}

static void set_args(parser_t *p, sql_expr_t *e, vec_t *v)
{
    e->args = v->items;
    e->nargs = v->n;
}

static void push_arg(parser_t *p, vec_t *v, sql_expr_t *a)
{
    *(sql_expr_t **)vec_push(p, v, sizeof(sql_expr_t *)) = a;
}

static void depth_in(parser_t *p)
{
    if (++p->depth > MAX_DEPTH) /* MariaDB: "memory exhausted near ..." is also 1064-ish; we use a syntax error */
        syntax_error(p);
}

static bool is_select_start(parser_t *p) { return is_word(p, "SELECT") || is_word(p, "WITH") || is_word(p, "VALUES"); }

/* Literals and their column names. */
static sql_expr_t *literal_value(parser_t *p, value_t v, const char *start, const char *name, size_t name_len)
{
    sql_expr_t *e = new_expr(p, SQL_E_LITERAL, start);
    e->lit = v;
    finish(p, e);
    e->lit_text = name;
    e->lit_text_len = (uint32_t)name_len;
    return e;
}

static sql_expr_t *number_literal(parser_t *p)
{
    const char *start = p->tok.start;
    const char *txt = p->tok.text;
    size_t n = p->tok.text_len;
    value_t v;
    if (p->tok.type == TK_INT) {
        /* digits: int64, uint64, else DECIMAL */
        const char *q = txt;
        while (*q == '0' && q[1])
            q++;
        size_t nd = strlen(q);
        if (nd < 19 || (nd == 19 && strcmp(q, "9223372036854775807") <= 0)) {
            v = value_int(strtoll(q, NULL, 10));
        } else if (nd < 20 || (nd == 20 && strcmp(q, "18446744073709551615") <= 0)) {
            v = value_uint(strtoull(q, NULL, 10));
        } else {
            v = value_decimal(p->a, q, nd);
        }
    } else if (p->tok.type == TK_DECIMAL) {
        /* canonical: leading "0" if it started with '.', no trailing '.' */
        char *c = arena_alloc(p->a, n + 3);
        size_t ci = 0;
        if (txt[0] == '.')
            c[ci++] = '0';
        memcpy(c + ci, txt, n);
        ci += n;
        if (c[ci - 1] == '.')
            ci--;
        c[ci] = 0;
        v = value_decimal(p->a, c, ci);
    } else {
        v = value_double(strtod(txt, NULL));
    }
    next(p);
    return literal_value(p, v, start, start, (size_t)(p->prev_end - start));
}

static int charset_coll_from_introducer(const char *word)
{
    if (word[0] != '_')
        return -1;
    return value_charset_default_coll(word + 1, strlen(word + 1));
}

static int charset_name_coll(parser_t *p, const char *name)
{
    int c = value_charset_default_coll(name, strlen(name));
    if (c < 0) {
        /* MariaDB: ER_UNKNOWN_CHARACTER_SET 1115; report as a parse-time error */
        diag_error(p->d, ER_UNKNOWN_CHARACTER_SET, name);
        longjmp(p->fail, 1);
    }
    return c;
}

static int collation_coll(parser_t *p, const char *name)
{
    /* MySQL 8's default collations (in dumps from MySQL): MariaDB 10.11 maps them to its own */
    if (strncasecmp(name, "utf8mb4_0900_", 13) == 0)
        return strcasecmp(name, "utf8mb4_0900_bin") == 0 ? COLL_UTF8MB4_BIN : COLL_UTF8MB4_UCA1400_AI_CI;
    int c = value_coll_by_name(name, strlen(name));
    if (c < 0) {
        diag_error(p->d, ER_UNKNOWN_COLLATION, name);
        longjmp(p->fail, 1);
    }
    return c;
}

/* CAST target type */
static sql_cast_t cast_type(parser_t *p)
{
    sql_cast_t c = {.len = -1, .scale = -1, .coll = -1};
    if (accept_word(p, "SIGNED")) {
        c.type = SQL_CAST_SIGNED;
        if (!accept_word(p, "INTEGER"))
            accept_word(p, "INT");
    } else if (accept_word(p, "UNSIGNED")) {
        c.type = SQL_CAST_UNSIGNED;
        if (!accept_word(p, "INTEGER"))
            accept_word(p, "INT");
    } else if (accept_word(p, "INT") || accept_word(p, "INTEGER")) {
        c.type = SQL_CAST_SIGNED;
    } else if (accept_word(p, "CHAR") || accept_word(p, "VARCHAR") || accept_word(p, "NCHAR")) {
        c.type = SQL_CAST_CHAR;
        if (accept_punct(p, '(')) {
            if (p->tok.type != TK_INT)
                syntax_error(p);
            c.len = atoi(p->tok.text);
            next(p);
            expect_punct(p, ')');
        }
        if (accept_word(p, "CHARACTER") || accept_word(p, "CHARSET")) {
            accept_word(p, "SET");
            c.coll = charset_name_coll(p, charset_name(p));
        } else if (accept_word(p, "ASCII")) {
            c.coll = COLL_LATIN1_SWEDISH_CI;
        } else if (accept_word(p, "UNICODE")) {
            c.coll = COLL_UTF8MB4_GENERAL_CI;
        }
        if (is_word(p, "BINARY")) {
            next(p);
            c.coll = COLL_UTF8MB4_BIN;
        }
        if (accept_word(p, "COLLATE"))
            c.coll = collation_coll(p, ident_or_text(p));
    } else if (accept_word(p, "BINARY")) {
        c.type = SQL_CAST_BINARY;
        c.coll = COLL_BINARY;
        if (accept_punct(p, '(')) {
            if (p->tok.type != TK_INT)
                syntax_error(p);
            c.len = atoi(p->tok.text);
            next(p);
            expect_punct(p, ')');
        }
    } else if (accept_word(p, "DECIMAL") || accept_word(p, "DEC") || accept_word(p, "NUMERIC") ||
               accept_word(p, "FIXED")) {
        c.type = SQL_CAST_DECIMAL;
        if (accept_punct(p, '(')) {
            if (p->tok.type != TK_INT)
                syntax_error(p);
            c.len = atoi(p->tok.text);
            next(p);
            if (accept_punct(p, ',')) {
                if (p->tok.type != TK_INT)
                    syntax_error(p);
                c.scale = atoi(p->tok.text);
                next(p);
            }
            expect_punct(p, ')');
        }
    } else if (accept_word(p, "DOUBLE")) {
        accept_word(p, "PRECISION");
        c.type = SQL_CAST_DOUBLE;
    } else if (accept_word(p, "REAL")) {
        c.type = SQL_CAST_DOUBLE;
    } else if (accept_word(p, "FLOAT")) {
        c.type = SQL_CAST_FLOAT;
    } else if (accept_word(p, "DATE")) {
        c.type = SQL_CAST_DATE;
    } else if (is_word(p, "DATETIME") || is_word(p, "TIME")) {
        c.type = is_word(p, "TIME") ? SQL_CAST_TIME : SQL_CAST_DATETIME;
        next(p);
        if (accept_punct(p, '(')) {
            if (p->tok.type != TK_INT)
                syntax_error(p);
            c.scale = atoi(p->tok.text);
            next(p);
            expect_punct(p, ')');
        }
    } else {
        syntax_error(p);
    }
    return c;
}

static void frame_bound(parser_t *p, sql_frame_bound_t *b)
{
    if (accept_word(p, "UNBOUNDED")) {
        if (accept_word(p, "PRECEDING"))
            b->kind = SQL_FB_UNBOUNDED_PRECEDING;
        else {
            expect_word(p, "FOLLOWING");
            b->kind = SQL_FB_UNBOUNDED_FOLLOWING;
        }
        return;
    }
    if (accept_word(p, "CURRENT")) {
        expect_word(p, "ROW");
        b->kind = SQL_FB_CURRENT_ROW;
        return;
    }
    if (p->tok.type == TK_PARAM)
        syntax_error(p); /* MariaDB: a frame's offset is a literal */
    b->offset = bit_expr(p);
    if (accept_word(p, "PRECEDING"))
        b->kind = SQL_FB_PRECEDING;
    else {
        expect_word(p, "FOLLOWING");
        b->kind = SQL_FB_FOLLOWING;
    }
}

/* [name] [PARTITION BY e, ...] [ORDER BY ...] [ROWS | RANGE frame], inside the parentheses */
static void window_spec(parser_t *p, sql_window_t *w)
{
    if (p->tok.type == TK_WORD && !is_word(p, "PARTITION") && !is_word(p, "ORDER") && !is_word(p, "ROWS") &&
        !is_word(p, "RANGE"))
        w->ref = ident(p);
    if (accept_word(p, "PARTITION")) {
        expect_word(p, "BY");
        vec_t v = {0};
        do *(sql_expr_t **)vec_push(p, &v, sizeof(sql_expr_t *)) = expr(p); while (accept_punct(p, ','));
        w->partition = v.items;
        w->npartition = v.n;
    }
    if (accept_word(p, "ORDER")) {
        expect_word(p, "BY");
        w->order = order_list(p, &w->norder);
    }
    if (is_word(p, "ROWS") || is_word(p, "RANGE")) {
        w->unit = is_word(p, "ROWS") ? SQL_FRAME_ROWS : SQL_FRAME_RANGE;
        next(p);
        if (accept_word(p, "BETWEEN")) {
            frame_bound(p, &w->start);
            expect_word(p, "AND");
            frame_bound(p, &w->end);
        } else {
            frame_bound(p, &w->start);
            w->end.kind = SQL_FB_CURRENT_ROW;
        }
    }
}

static int32_t paren_len(parser_t *p);

static sql_expr_t *func_call(parser_t *p, const char *name, size_t name_len, const char *start)
{
    /* current token is '(' */
    sql_expr_t *e = new_expr(p, SQL_E_FUNC, start);
    e->func.name = upper_dup(p, name, name_len);
    e->func.fn = sql_fn_lookup(e->func.name);
    next(p);
    vec_t args = {0};
    bool aggregate = (sql_fn_flags(e->func.fn) & SQL_FNF_AGGREGATE) != 0;
    bool grammar = (sql_fn_flags(e->func.fn) & SQL_FNF_GRAMMAR) != 0;
    int gmin, gmax;
    sql_fn_arg_counts(e->func.fn, &gmin, &gmax);
    /* MariaDB's grammar: DISTINCT only in COUNT, SUM, AVG, MIN, MAX and GROUP_CONCAT, ALL only in aggregates */
    bool distinct_ok = e->func.fn == SQL_FN_COUNT || e->func.fn == SQL_FN_SUM || e->func.fn == SQL_FN_AVG ||
                       e->func.fn == SQL_FN_MIN || e->func.fn == SQL_FN_MAX || e->func.fn == SQL_FN_GROUP_CONCAT ||
                       e->func.fn == SQL_FN_JSON_ARRAYAGG;
    if ((is_word(p, "DISTINCT") && !distinct_ok) || (is_word(p, "ALL") && !aggregate))
        syntax_error(p);
    if (accept_word(p, "DISTINCT"))
        e->func.distinct = true;
    else
        accept_word(p, "ALL");
    /* aggregates take one argument but COUNT(DISTINCT x, ...) and GROUP_CONCAT(x, ...): a second one is 1064 */
    bool one_arg = aggregate && e->func.fn != SQL_FN_GROUP_CONCAT && e->func.fn != SQL_FN_JSON_OBJECTAGG &&
                   e->func.fn != SQL_FN_JSON_ARRAYAGG &&
                   !(e->func.fn == SQL_FN_COUNT && e->func.distinct);
    if (is_punct(p, '*') && (e->func.fn == SQL_FN_COUNT)) {
        next(p);
        e->func.star = true;
    } else if (e->func.fn == SQL_FN_TRIM && (is_word(p, "BOTH") || is_word(p, "LEADING") || is_word(p, "TRAILING"))) {
        /* TRIM([BOTH|LEADING|TRAILING] [remstr] FROM str): args = str, remstr; name encodes the side */
        const char *side = is_word(p, "LEADING") ? "LTRIM_FROM" : is_word(p, "TRAILING") ? "RTRIM_FROM" : "TRIM_FROM";
        next(p);
        sql_expr_t *rem = NULL;
        if (!is_word(p, "FROM"))
            rem = expr(p);
        expect_word(p, "FROM");
        push_arg(p, &args, expr(p));
        if (rem)
            push_arg(p, &args, rem);
        e->func.separator = side;
    } else if (e->func.fn == SQL_FN_EXTRACT && p->tok.type == TK_WORD) {
        /* EXTRACT(unit FROM expr): args = the unit as a string, expr */
        sql_expr_t *u = new_expr(p, SQL_E_LITERAL, p->tok.start);
        const char *unit = upper_dup(p, p->tok.text, p->tok.text_len);
        u->lit = value_str(unit, strlen(unit), COLL_DEFAULT);
        next(p);
        finish(p, u);
        push_arg(p, &args, u);
        expect_word(p, "FROM");
        push_arg(p, &args, expr(p));
    } else if (e->func.fn == SQL_FN_WEIGHT_STRING && !is_punct(p, ')')) {
        /* WEIGHT_STRING(expr [AS CHAR(n) | AS BINARY(n)]): args = expr [, n, 'CHAR' | 'BINARY'] */
        push_arg(p, &args, expr(p));
        if (accept_word(p, "AS")) {
            bool bin = is_word(p, "BINARY");
            if (!bin && !is_word(p, "CHAR"))
                syntax_error(p);
            next(p);
            if (is_punct(p, '(') && peek2(p)->type == TK_INT && strtoll(peek2(p)->text, NULL, 10) == 0) {
                next(p);
                syntax_error(p); /* CHAR(0): near the 0 */
            }
            const char *at = p->tok.start;
            int32_t n = paren_len(p);
            sql_expr_t *ne = new_expr(p, SQL_E_LITERAL, at);
            ne->lit = value_int(n);
            finish(p, ne);
            push_arg(p, &args, ne);
            sql_expr_t *ke = new_expr(p, SQL_E_LITERAL, at);
            ke->lit = value_str(bin ? "BINARY" : "CHAR", bin ? 6 : 4, COLL_DEFAULT);
            finish(p, ke);
            push_arg(p, &args, ke);
        }
        if (is_word(p, "LEVEL")) { /* LEVEL 1 is what is built (the primary weights); other levels are refused */
            next(p);
            if (p->tok.type != TK_INT)
                syntax_error(p);
            if (strcmp(p->tok.text, "1") != 0 || peek2(p)->type != TK_PUNCT || peek2(p)->op != ')') {
                diag_error(p->d, ER_NOT_SUPPORTED_YET, "WEIGHT_STRING levels other than LEVEL 1");
                longjmp(p->fail, 1);
            }
            next(p);
        }
        if (!is_punct(p, ')'))
            syntax_error(p);
    } else if (e->func.fn == SQL_FN_GET_FORMAT) {
        /* GET_FORMAT(DATE | TIME | DATETIME | TIMESTAMP, expr): args = the kind as a string, expr */
        if (!is_word(p, "DATE") && !is_word(p, "TIME") && !is_word(p, "DATETIME") && !is_word(p, "TIMESTAMP"))
            syntax_error(p);
        sql_expr_t *u = new_expr(p, SQL_E_LITERAL, p->tok.start);
        const char *kind = upper_dup(p, p->tok.text, p->tok.text_len);
        u->lit = value_str(kind, strlen(kind), COLL_DEFAULT);
        next(p);
        finish(p, u);
        push_arg(p, &args, u);
        expect_punct(p, ',');
        push_arg(p, &args, expr(p));
    } else if (strcmp(e->func.name, "POSITION") == 0) {
        /* POSITION(bit_expr IN expr) */
        push_arg(p, &args, bit_expr(p));
        expect_word(p, "IN");
        push_arg(p, &args, expr(p));
        e->func.name = "LOCATE";
        e->func.fn = SQL_FN_LOCATE;
    } else if (!is_punct(p, ')')) {
        if (grammar && gmax == 0)
            syntax_error(p); /* CURRENT_USER(1): near the argument */
        push_arg(p, &args, expr(p));
        if (e->func.fn == SQL_FN_TRIM && accept_word(p, "FROM")) {
            sql_expr_t *rem = ((sql_expr_t **)args.items)[0];
            ((sql_expr_t **)args.items)[0] = expr(p);
            push_arg(p, &args, rem);
            e->func.separator = "TRIM_FROM";
        } else if ((e->func.fn == SQL_FN_SUBSTRING || e->func.fn == SQL_FN_SUBSTR) && accept_word(p, "FROM")) {
            push_arg(p, &args, expr(p));
            if (accept_word(p, "FOR"))
                push_arg(p, &args, expr(p));
        } else if (strcmp(e->func.name, "POSITION") == 0 && accept_word(p, "IN")) {
            push_arg(p, &args, expr(p));
            e->func.name = "LOCATE";
            e->func.fn = SQL_FN_LOCATE;
        } else {
            while (is_punct(p, ',')) {
                if (one_arg || (grammar && gmax >= 0 && (int)args.n >= gmax))
                    syntax_error(p); /* NOW(1, 2): near what follows the comma */
                next(p);
                push_arg(p, &args, expr(p));
            }
        }
        if (e->func.fn == SQL_FN_GROUP_CONCAT || e->func.fn == SQL_FN_JSON_ARRAYAGG) {
            if (accept_word(p, "ORDER")) {
                expect_word(p, "BY");
                vec_t ov = {0};
                do {
                    sql_order_item_t *o = vec_push(p, &ov, sizeof *o);
                    o->expr = expr(p);
                    if (accept_word(p, "DESC"))
                        o->desc = true;
                    else
                        accept_word(p, "ASC");
                } while (accept_punct(p, ','));
                e->agg_order = ov.items;
                e->nagg_order = ov.n;
            }
            if (e->func.fn == SQL_FN_GROUP_CONCAT && accept_word(p, "SEPARATOR"))
                e->func.separator = string_lit(p, NULL);
        }
        if (e->func.fn == SQL_FN_CHAR && accept_word(p, "USING"))
            e->func.using_coll = (uint16_t)charset_name_coll(p, ident_or_text(p));
    }
    if (e->func.fn == SQL_FN_IF && args.n != 3)
        syntax_error(p); /* IF(a, b, c) is grammar in MariaDB, not a function call: 1064, not 1582 */
    if (grammar && (int)args.n < gmin && is_punct(p, ')'))
        syntax_error(p); /* LEFT('a'): near the ')' */
    /* aggregates and SUBSTRING are grammar too: no argument is 1064 */
    if (aggregate && !e->func.star && args.n == 0)
        syntax_error(p);
    if ((e->func.fn == SQL_FN_SUBSTRING || e->func.fn == SQL_FN_SUBSTR) && args.n < 2)
        syntax_error(p);
    expect_punct(p, ')');
    set_args(p, e, &args);
    /* a native function called with a count outside its row's: 1582 when parsed, as MariaDB (so before any
     * table is opened, and also in a branch that never runs) */
    if (!sql_fn_args_ok(e->func.fn, e->nargs)) {
        sql_error_paramcount(p->d, arena_strndup(p->a, name, name_len)); /* as written, as MariaDB */
        longjmp(p->fail, 1);
    }
    /* window functions need OVER; aggregates may have it */
    bool window_only = (sql_fn_flags(e->func.fn) & SQL_FNF_WINDOW) != 0;
    if ((aggregate || window_only) && accept_word(p, "OVER")) {
        sql_window_t *w = alloc(p, sizeof *w);
        if (accept_punct(p, '(')) {
            window_spec(p, w);
            expect_punct(p, ')');
        } else {
            w->ref = ident(p);
        }
        e->over = w;
    } else if (window_only) {
        syntax_error(p);
    }
    finish(p, e);
    return e;
}

/* Reserved words that are also function names when followed by '(' */
static bool reserved_function(const sql_tok_t *t)
{
    static const char *const names[] = {"LEFT", "RIGHT", "REPLACE", "IF", "MOD", "DATABASE", "SCHEMA",
                                        "INSERT", "REPEAT", "CHAR", "CURRENT_USER", "CURRENT_DATE",
                                        "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
                                        "UTC_TIMESTAMP", "UTC_DATE", "UTC_TIME", "VALUES", "TRUNCATE",
                                        "POSITION", "CURRENT_ROLE", "ROW_NUMBER"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        if (tok_is_word(t, names[i]))
            return true;
    return false;
}

static sql_expr_t *column_ref(parser_t *p, const char *start)
{
    /* ident [. ident [. ident]] or ident.* */
    sql_expr_t *e = new_expr(p, SQL_E_COLUMN, start);
    const char *parts[3];
    int n = 0;
    parts[n++] = ident(p);
    while (is_punct(p, '.')) {
        if (n == 3)
            syntax_error(p);
        next(p);
        if (is_punct(p, '*')) {
            next(p);
            e->kind = SQL_E_STAR;
            if (n == 2) {
                e->col.db = parts[0];
                e->col.table = parts[1];
            } else {
                e->col.table = parts[0];
            }
            finish(p, e);
            return e;
        }
        /* after a dot any word (even reserved) is an identifier */
        if (p->tok.type == TK_WORD || p->tok.type == TK_QIDENT) {
            parts[n++] = p->tok.text;
            next(p);
        } else {
            syntax_error(p);
        }
    }
    if (n == 1) {
        e->col.name = parts[0];
    } else if (n == 2) {
        e->col.table = parts[0];
        e->col.name = parts[1];
    } else {
        e->col.db = parts[0];
        e->col.table = parts[1];
        e->col.name = parts[2];
    }
    finish(p, e);
    return e;
}

static sql_expr_t *sysvar(parser_t *p, const char *start)
{
    /* after @@ */
    sql_expr_t *e = new_expr(p, SQL_E_SYSVAR, start);
    if (p->tok.type != TK_WORD && p->tok.type != TK_QIDENT)
        syntax_error(p);
    const char *first = p->tok.text;
    next(p);
    if (is_punct(p, '.')) {
        next(p);
        if (p->tok.type != TK_WORD && p->tok.type != TK_QIDENT)
            syntax_error(p);
        const char *second = p->tok.text;
        next(p);
        if (strcasecmp(first, "global") == 0)
            e->var.scope = SQL_SCOPE_GLOBAL;
        else if (strcasecmp(first, "session") == 0 || strcasecmp(first, "local") == 0)
            e->var.scope = SQL_SCOPE_SESSION;
        else
            e->var.component = first;
        e->var.name = second;
        if (e->var.scope != SQL_SCOPE_DEFAULT && is_punct(p, '.')) { /* @@global.component.name */
            next(p);
            if (p->tok.type != TK_WORD && p->tok.type != TK_QIDENT)
                syntax_error(p);
            e->var.component = second;
            e->var.name = p->tok.text;
            next(p);
        }
    } else {
        e->var.name = first;
    }
    finish(p, e);
    return e;
}

/* INTERVAL's unit (MariaDB's names), upper-cased; anything else is a syntax error. */
static const char *interval_unit(parser_t *p)
{
    static const char *const units[] = {
        "MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "SECOND_MICROSECOND",
        "MINUTE_MICROSECOND", "MINUTE_SECOND", "HOUR_MICROSECOND", "HOUR_SECOND", "HOUR_MINUTE", "DAY_MICROSECOND",
        "DAY_SECOND", "DAY_MINUTE", "DAY_HOUR", "YEAR_MONTH"};
    bool known = false;
    for (size_t i = 0; i < ARRAY_LEN(units); i++)
        if (is_word(p, units[i]))
            known = true;
    if (!known)
        syntax_error(p);
    const char *u = upper_dup(p, p->tok.text, p->tok.text_len);
    next(p);
    return u;
}

static sql_expr_t *interval_expr(parser_t *p, const char *start)
{
    /* after INTERVAL: expr unit */
    sql_expr_t *e = new_expr(p, SQL_E_INTERVAL, start);
    e->nargs = 1;
    e->args = alloc(p, sizeof *e->args);
    e->args[0] = expr(p);
    e->interval_unit = interval_unit(p);
    finish(p, e);
    return e;
}

/* At INTERVAL: is it INTERVAL(N, N1, ...), the function (a ',' inside the parentheses), not INTERVAL (n) unit?
 * Looks ahead on a copy of the lexer. */
static bool interval_is_function(parser_t *p)
{
    const sql_tok_t *t = peek2(p);
    if (t->type != TK_PUNCT || t->op != '(')
        return false;
    sql_lexer_t lx = p->lx;
    sql_tok_t k;
    for (int depth = 1;;) {
        sql_lex_next(&lx, &k);
        if (k.type == TK_EOF)
            return false;
        if (k.type != TK_PUNCT)
            continue;
        if (k.op == '(')
            depth++;
        else if (k.op == ')' && --depth == 0)
            return false;
        else if (k.op == ',' && depth == 1)
            return true;
    }
}

static sql_expr_t *simple_expr(parser_t *p)
{
    const char *start = p->tok.start;
    sql_tok_t *t = &p->tok;
    sql_expr_t *e = NULL;
    depth_in(p);
    switch (t->type) {
    case TK_INT:
    case TK_DECIMAL:
    case TK_FLOAT:
        e = number_literal(p);
        break;
    case TK_STRING:
    case TK_NSTRING: {
        const char *first_text = t->text;
        size_t first_len = t->text_len;
        bool plain = t->type == TK_STRING; /* N'..' is utf8 whatever the connection */
        size_t n;
        const char *s = string_lit(p, &n);
        e = literal_value(p, value_str(s, n, COLL_DEFAULT), start, first_text, first_len);
        e->lit_conn = plain;
        break;
    }
    case TK_HEX:
    case TK_BIT: {
        const char *s = t->text;
        size_t n = t->text_len;
        next(p);
        e = literal_value(p, value_str(s, n, COLL_BINARY), start, NULL, 0);
        break;
    }
    case TK_PARAM: {
        next(p);
        e = new_expr(p, SQL_E_PARAM, start);
        e->param_index = p->nparams;
        if (p->nparams == p->capparams) {
            p->capparams = p->capparams ? p->capparams * 2 : 8;
            sql_expr_t **np = arena_alloc(p->a, p->capparams * sizeof *np);
            if (p->nparams)
                memcpy(np, p->params, p->nparams * sizeof *np);
            p->params = np;
        }
        p->params[p->nparams++] = e;
        finish(p, e);
        break;
    }
    case TK_AT2:
        next(p);
        e = sysvar(p, start);
        break;
    case TK_USERVAR: {
        const char *name = t->text;
        next(p);
        if (is_punct(p, P_ASSIGN)) {
            next(p);
            e = new_expr(p, SQL_E_ASSIGN, start);
            e->var.name = name;
            e->nargs = 1;
            e->args = alloc(p, sizeof *e->args);
            e->args[0] = expr(p);
        } else {
            e = new_expr(p, SQL_E_USERVAR, start);
            e->var.name = name;
        }
        finish(p, e);
        break;
    }
    case TK_PUNCT:
        if (t->op == '(') {
            next(p);
            if (is_select_start(p)) {
                e = new_expr(p, SQL_E_SUBQUERY, start);
                e->sub = select_body(p);
                expect_punct(p, ')');
                finish(p, e);
                break;
            }
            sql_expr_t *first = expr(p);
            if (is_punct(p, ',')) {
                vec_t v = {0};
                push_arg(p, &v, first);
                while (accept_punct(p, ','))
                    push_arg(p, &v, expr(p));
                expect_punct(p, ')');
                e = new_expr(p, SQL_E_ROW, start);
                set_args(p, e, &v);
                finish(p, e);
            } else {
                expect_punct(p, ')');
                /* keep the parenthesised span as the name source */
                e = first;
                e->src = start;
                finish(p, e);
            }
        } else if (t->op == '-') {
            next(p);
            sql_expr_t *a = simple_expr(p);
            /* fold -literal so -9223372036854775808 stays a BIGINT, as MySQL does */
            if (a->kind == SQL_E_LITERAL && a->lit.type == VAL_UINT && a->lit.u == 9223372036854775808ULL) {
                a->lit = value_int(INT64_MIN);
                a->src = start;
                finish(p, a);
                a->lit_text = a->src;
                a->lit_text_len = a->src_len;
                e = a;
            } else {
                e = mk_unary(p, SQL_OP_NEG, a, start);
            }
        } else if (t->op == '+') {
            next(p);
            e = simple_expr(p);
            e->src = start;
            finish(p, e);
        } else if (t->op == '~') {
            next(p);
            e = mk_unary(p, SQL_OP_BITNOT, simple_expr(p), start);
        } else if (t->op == '!') {
            next(p);
            e = mk_unary(p, SQL_OP_NOT, simple_expr(p), start);
        } else if (t->op == '{') {
            /* ODBC escape { d 'x' } / { ts 'x' }: ident then expr */
            next(p);
            ident(p);
            e = expr(p);
            expect_punct(p, '}');
        } else {
            syntax_error(p);
        }
        break;
    case TK_WORD:
    case TK_QIDENT: {
        if (t->type == TK_WORD) {
            if (is_word(p, "NULL")) {
                next(p);
                e = literal_value(p, value_null(), start, NULL, 0);
                break;
            }
            if (is_word(p, "TRUE") || is_word(p, "FALSE")) {
                bool v = is_word(p, "TRUE");
                next(p);
                e = literal_value(p, value_int(v), start, NULL, 0);
                break;
            }
            if (is_word(p, "DEFAULT") && peek2(p)->type != TK_PUNCT) {
                next(p);
                e = new_expr(p, SQL_E_DEFAULT, start);
                finish(p, e);
                break;
            }
            if (is_word(p, "DEFAULT") && !(peek2(p)->op == '(')) {
                next(p);
                e = new_expr(p, SQL_E_DEFAULT, start);
                finish(p, e);
                break;
            }
            /* charset introducer _utf8mb4'x' */
            if (t->text[0] == '_' && (peek2(p)->type == TK_STRING || peek2(p)->type == TK_HEX ||
                                      peek2(p)->type == TK_BIT)) {
                int coll = charset_coll_from_introducer(t->text);
                if (coll >= 0) {
                    next(p);
                    const char *first_text = p->tok.text;
                    size_t first_len = p->tok.text_len;
                    size_t n;
                    const char *s;
                    if (p->tok.type == TK_STRING) {
                        s = string_lit(p, &n);
                    } else {
                        s = p->tok.text;
                        n = p->tok.text_len;
                        first_text = NULL;
                        next(p);
                    }
                    /* a COLLATE after it is the postfix one below: EXPLICIT, checked against the charset */
                    e = literal_value(p, value_str(s, n, (uint16_t)coll), start, first_text, first_len);
                    break;
                }
            }
            if (is_word(p, "CASE")) {
                next(p);
                e = new_expr(p, SQL_E_CASE, start);
                vec_t v = {0};
                sql_expr_t *operand = NULL;
                if (!is_word(p, "WHEN"))
                    operand = expr(p);
                push_arg(p, &v, operand);
                if (!is_word(p, "WHEN"))
                    syntax_error(p);
                while (accept_word(p, "WHEN")) {
                    push_arg(p, &v, expr(p));
                    expect_word(p, "THEN");
                    push_arg(p, &v, expr(p));
                }
                if (accept_word(p, "ELSE"))
                    e->else_expr = expr(p);
                expect_word(p, "END");
                set_args(p, e, &v);
                finish(p, e);
                break;
            }
            if ((is_word(p, "CAST") || is_word(p, "CONVERT")) && peek2(p)->type == TK_PUNCT && peek2(p)->op == '(') {
                bool is_cast = is_word(p, "CAST");
                next(p);
                next(p);
                e = new_expr(p, SQL_E_CAST, start);
                e->nargs = 1;
                e->args = alloc(p, sizeof *e->args);
                e->args[0] = expr(p);
                if (is_cast) {
                    expect_word(p, "AS");
                    e->cast = cast_type(p);
                } else if (accept_word(p, "USING")) {
                    e->kind = SQL_E_CONVERT_USING;
                    e->cast.type = SQL_CAST_CHAR;
                    e->cast.len = -1;
                    e->cast.scale = -1;
                    e->cast.coll = charset_name_coll(p, charset_name(p));
                } else {
                    expect_punct(p, ',');
                    e->cast = cast_type(p);
                }
                expect_punct(p, ')');
                finish(p, e);
                break;
            }
            if (is_word(p, "EXISTS")) {
                next(p);
                expect_punct(p, '(');
                e = new_expr(p, SQL_E_EXISTS, start);
                e->sub = select_body(p);
                expect_punct(p, ')');
                finish(p, e);
                break;
            }
            if (is_word(p, "NOT") && (p->lx.mode & SQL_PARSE_HIGH_NOT_PRECEDENCE)) {
                /* HIGH_NOT_PRECEDENCE: NOT is '!' (MariaDB's NOT2_SYM) */
                next(p);
                e = mk_unary(p, SQL_OP_NOT, simple_expr(p), start);
                break;
            }
            if (is_word(p, "BINARY")) {
                next(p);
                e = mk_unary(p, SQL_OP_BINARY, simple_expr(p), start);
                break;
            }
            if (is_word(p, "INTERVAL")) {
                if (interval_is_function(p)) { /* INTERVAL(N, N1, ...): a function with 2+ arguments */
                    next(p);
                    e = func_call(p, "INTERVAL", 8, start);
                    break;
                }
                next(p);
                e = interval_expr(p, start);
                break;
            }
            if (is_word(p, "ROW") && peek2(p)->type == TK_PUNCT && peek2(p)->op == '(') {
                next(p);
                next(p);
                vec_t v = {0};
                push_arg(p, &v, expr(p));
                while (accept_punct(p, ','))
                    push_arg(p, &v, expr(p));
                expect_punct(p, ')');
                e = new_expr(p, SQL_E_ROW, start);
                set_args(p, e, &v);
                finish(p, e);
                break;
            }
            /* DATE 'x' / TIME 'x' / TIMESTAMP 'x' typed literals */
            if ((is_word(p, "DATE") || is_word(p, "TIME") || is_word(p, "TIMESTAMP")) && peek2(p)->type == TK_STRING) {
                char kind = (char)toupper((unsigned char)t->text[1]); /* dAte / tIme / tImestamp */
                bool ts = is_word(p, "TIMESTAMP");
                next(p);
                const char *s = p->tok.text;
                size_t n = p->tok.text_len;
                next(p);
                value_t v;
                bool ok = (kind == 'I' && !ts) ? value_parse_time(s, n, &v) : value_parse_datetime(s, n, &v);
                if (!ok || (kind == 'A' && v.type != VAL_DATE && (v.t.hour || v.t.minute || v.t.second || v.t.usec))) {
                    sql_error_wrong_value(p->d, kind == 'A' ? "DATE" : ts ? "DATETIME" : "TIME", s);
                    longjmp(p->fail, 1);
                }
                if (kind == 'A')
                    v.type = VAL_DATE;
                else if (ts)
                    v.type = VAL_DATETIME;
                e = literal_value(p, v, start, NULL, 0);
                break;
            }
            /* niladic functions without parentheses */
            static const char *const niladic[] = {"CURRENT_USER", "CURRENT_DATE", "CURRENT_TIME",
                                                  "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
                                                  "UTC_TIMESTAMP", "UTC_DATE", "UTC_TIME", "CURRENT_ROLE"};
            bool nil = false;
            for (size_t i = 0; i < ARRAY_LEN(niladic); i++)
                if (is_word(p, niladic[i]))
                    nil = true;
            if (nil && !(peek2(p)->type == TK_PUNCT && peek2(p)->op == '(')) {
                e = new_expr(p, SQL_E_FUNC, start);
                e->func.name = upper_dup(p, t->text, t->text_len);
                e->func.fn = sql_fn_lookup(e->func.name);
                next(p);
                finish(p, e);
                break;
            }
        }
        /* DEFAULT(col) */
        if (is_word(p, "DEFAULT") && peek2(p)->type == TK_PUNCT && peek2(p)->op == '(') {
            next(p);
            next(p);
            e = new_expr(p, SQL_E_DEFAULT, start);
            e->nargs = 1;
            e->args = alloc(p, sizeof *e->args);
            e->args[0] = column_ref(p, p->tok.start);
            expect_punct(p, ')');
            finish(p, e);
            break;
        }
        /* function call: name '(' */
        if (peek2(p)->type == TK_PUNCT && peek2(p)->op == '(' &&
            (t->type == TK_QIDENT || !t->reserved || reserved_function(t))) {
            const char *name = t->text;
            size_t nlen = t->text_len;
            next(p);
            e = func_call(p, name, nlen, start);
            break;
        }
        e = column_ref(p, start);
        break;
    }
    default:
        syntax_error(p);
    }
    /* postfix COLLATE */
    while (is_word(p, "COLLATE")) {
        next(p);
        sql_expr_t *c = new_expr(p, SQL_E_COLLATE, start);
        c->nargs = 1;
        c->args = alloc(p, sizeof *c->args);
        c->args[0] = e;
        c->cast.type = SQL_CAST_CHAR;
        c->cast.len = c->cast.scale = -1;
        c->cast.coll = collation_coll(p, ident_or_text(p));
        finish(p, c);
        e = c;
    }
    p->depth--;
    return e;
}

/* a || b || c under PIPES_AS_CONCAT: one CONCAT(a, b, c), binding tighter than ^ and looser than unary minus */
static sql_expr_t *concat_expr(parser_t *p)
{
    sql_expr_t *l = simple_expr(p);
    if (!(p->lx.mode & SQL_PARSE_PIPES_AS_CONCAT) || !is_punct(p, P_OR2))
        return l;
    sql_expr_t *e = new_expr(p, SQL_E_FUNC, l->src);
    e->func.name = "CONCAT";
    e->func.fn = SQL_FN_CONCAT;
    vec_t v = {0};
    push_arg(p, &v, l);
    while (accept_punct(p, P_OR2))
        push_arg(p, &v, simple_expr(p));
    set_args(p, e, &v);
    finish(p, e);
    return e;
}

/* ^ */
static sql_expr_t *xor_expr(parser_t *p)
{
    sql_expr_t *l = concat_expr(p);
    while (is_punct(p, '^')) {
        next(p);
        l = mk_binary(p, SQL_OP_BITXOR, l, concat_expr(p));
    }
    return l;
}

static sql_expr_t *mul_expr(parser_t *p)
{
    sql_expr_t *l = xor_expr(p);
    for (;;) {
        sql_op_t op;
        if (is_punct(p, '*')) op = SQL_OP_MUL;
        else if (is_punct(p, '/')) op = SQL_OP_DIV;
        else if (is_punct(p, '%') || is_word(p, "MOD")) op = SQL_OP_MOD;
        else if (is_word(p, "DIV")) op = SQL_OP_IDIV;
        else return l;
        next(p);
        l = mk_binary(p, op, l, xor_expr(p));
    }
}

static sql_expr_t *add_expr(parser_t *p)
{
    sql_expr_t *l = mul_expr(p);
    for (;;) {
        sql_op_t op;
        if (is_punct(p, '+')) op = SQL_OP_ADD;
        else if (is_punct(p, '-')) op = SQL_OP_SUB;
        else return l;
        next(p);
        l = mk_binary(p, op, l, mul_expr(p));
    }
}

static sql_expr_t *shift_expr(parser_t *p)
{
    sql_expr_t *l = add_expr(p);
    for (;;) {
        sql_op_t op;
        if (is_punct(p, P_SHL)) op = SQL_OP_SHL;
        else if (is_punct(p, P_SHR)) op = SQL_OP_SHR;
        else return l;
        next(p);
        l = mk_binary(p, op, l, add_expr(p));
    }
}

static sql_expr_t *bitand_expr(parser_t *p)
{
    sql_expr_t *l = shift_expr(p);
    while (is_punct(p, '&')) {
        next(p);
        l = mk_binary(p, SQL_OP_BITAND, l, shift_expr(p));
    }
    return l;
}

static sql_expr_t *bit_expr(parser_t *p)
{
    sql_expr_t *l = bitand_expr(p);
    while (is_punct(p, '|')) {
        next(p);
        l = mk_binary(p, SQL_OP_BITOR, l, bitand_expr(p));
    }
    return l;
}

/* predicate: bit_expr [NOT] IN/BETWEEN/LIKE/REGEXP ... */
static sql_expr_t *predicate(parser_t *p)
{
    sql_expr_t *l = bit_expr(p);
    for (;;) {
        bool neg = false;
        if (is_word(p, "NOT")) {
            const sql_tok_t *n2 = peek2(p);
            if (!(tok_is_word(n2, "IN") || tok_is_word(n2, "BETWEEN") || tok_is_word(n2, "LIKE") ||
                  tok_is_word(n2, "REGEXP") || tok_is_word(n2, "RLIKE")))
                return l;
            next(p);
            neg = true;
        }
        if (accept_word(p, "IN")) {
            expect_punct(p, '(');
            sql_expr_t *e = new_expr(p, SQL_E_IN, l->src);
            e->negated = neg;
            vec_t v = {0};
            push_arg(p, &v, l);
            if (is_select_start(p)) {
                e->sub = select_body(p);
            } else {
                push_arg(p, &v, expr(p));
                while (accept_punct(p, ','))
                    push_arg(p, &v, expr(p));
            }
            expect_punct(p, ')');
            set_args(p, e, &v);
            finish(p, e);
            l = e;
        } else if (accept_word(p, "BETWEEN")) {
            sql_expr_t *e = new_expr(p, SQL_E_BETWEEN, l->src);
            e->negated = neg;
            e->nargs = 3;
            e->args = alloc(p, 3 * sizeof *e->args);
            e->args[0] = l;
            e->args[1] = bit_expr(p);
            expect_word(p, "AND");
            e->args[2] = predicate(p);
            finish(p, e);
            l = e;
        } else if (accept_word(p, "LIKE")) {
            sql_expr_t *e = new_expr(p, SQL_E_LIKE, l->src);
            e->negated = neg;
            e->nargs = 2;
            e->args = alloc(p, 3 * sizeof *e->args);
            e->args[0] = l;
            e->args[1] = bit_expr(p);
            if (accept_word(p, "ESCAPE")) {
                e->args[2] = simple_expr(p);
                e->nargs = 3;
            }
            finish(p, e);
            l = e;
        } else if (accept_word(p, "REGEXP") || accept_word(p, "RLIKE")) {
            sql_expr_t *e = new_expr(p, SQL_E_REGEXP, l->src);
            e->negated = neg;
            e->nargs = 2;
            e->args = alloc(p, 2 * sizeof *e->args);
            e->args[0] = l;
            e->args[1] = bit_expr(p);
            finish(p, e);
            l = e;
        } else if (!neg && is_word(p, "SOUNDS")) {
            syntax_error(p);
        } else {
            if (neg)
                syntax_error(p);
            return l;
        }
    }
}

static bool comp_op(parser_t *p, sql_op_t *op)
{
    if (p->tok.type != TK_PUNCT)
        return false;
    switch (p->tok.op) {
    case '=': *op = SQL_OP_EQ; return true;
    case P_NSEQ: *op = SQL_OP_NSEQ; return true;
    case P_NE: *op = SQL_OP_NE; return true;
    case '<': *op = SQL_OP_LT; return true;
    case P_LE: *op = SQL_OP_LE; return true;
    case '>': *op = SQL_OP_GT; return true;
    case P_GE: *op = SQL_OP_GE; return true;
    default: return false;
    }
}

/* bool_pri: predicate, then comparisons / IS [NOT] NULL, left-associative */
static sql_expr_t *bool_pri(parser_t *p)
{
    sql_expr_t *l = predicate(p);
    for (;;) {
        sql_op_t op;
        if (comp_op(p, &op)) {
            next(p);
            if ((is_word(p, "ANY") || is_word(p, "SOME") || is_word(p, "ALL")) && peek2(p)->type == TK_PUNCT &&
                peek2(p)->op == '(') {
                sql_expr_t *e = new_expr(p, SQL_E_QUANTIFIED, l->src);
                e->op = op;
                e->quant_all = is_word(p, "ALL");
                next(p);
                next(p);
                if (!is_select_start(p))
                    syntax_error(p);
                e->sub = select_body(p);
                expect_punct(p, ')');
                e->nargs = 1;
                e->args = alloc(p, sizeof *e->args);
                e->args[0] = l;
                finish(p, e);
                l = e;
                continue;
            }
            l = mk_binary(p, op, l, predicate(p));
        } else if (is_word(p, "IS")) {
            next(p);
            sql_expr_t *e = new_expr(p, SQL_E_IS, l->src);
            e->negated = accept_word(p, "NOT");
            if (accept_word(p, "NULL")) e->is_what = SQL_IS_NULL;
            else if (accept_word(p, "TRUE")) e->is_what = SQL_IS_TRUE;
            else if (accept_word(p, "FALSE")) e->is_what = SQL_IS_FALSE;
            else if (accept_word(p, "UNKNOWN")) e->is_what = SQL_IS_UNKNOWN;
            else syntax_error(p);
            e->nargs = 1;
            e->args = alloc(p, sizeof *e->args);
            e->args[0] = l;
            finish(p, e);
            l = e;
        } else {
            return l;
        }
    }
}

static sql_expr_t *not_expr(parser_t *p)
{
    if (is_word(p, "NOT") && !(p->lx.mode & SQL_PARSE_HIGH_NOT_PRECEDENCE)) {
        const char *start = p->tok.start;
        next(p);
        depth_in(p);
        sql_expr_t *e = mk_unary(p, SQL_OP_NOT, not_expr(p), start);
        p->depth--;
        return e;
    }
    return bool_pri(p);
}

static sql_expr_t *and_expr(parser_t *p)
{
    sql_expr_t *l = not_expr(p);
    while (is_word(p, "AND") || is_punct(p, P_AND2)) {
        next(p);
        l = mk_binary(p, SQL_OP_AND, l, not_expr(p));
    }
    return l;
}

static sql_expr_t *xor_bool(parser_t *p)
{
    sql_expr_t *l = and_expr(p);
    while (is_word(p, "XOR")) {
        next(p);
        l = mk_binary(p, SQL_OP_XOR, l, and_expr(p));
    }
    return l;
}

static sql_expr_t *expr(parser_t *p)
{
    depth_in(p);
    sql_expr_t *l = xor_bool(p);
    while (is_word(p, "OR") || (is_punct(p, P_OR2) && !(p->lx.mode & SQL_PARSE_PIPES_AS_CONCAT))) {
        next(p);
        l = mk_binary(p, SQL_OP_OR, l, xor_bool(p));
    }
    p->depth--;
    return l;
}

/* ---------------------------------------------------------------- SELECT */

static sql_expr_t *limit_value(parser_t *p)
{
    const char *start = p->tok.start;
    if (p->tok.type == TK_INT)
        return number_literal(p);
    if (p->tok.type == TK_PARAM)
        return simple_expr(p);
    if (p->tok.type == TK_USERVAR) /* only inside stored programs in MariaDB; accept the variable */
        return simple_expr(p);
    if (is_ident(p)) {
        /* MariaDB: ER_SP_UNDECLARED_VAR (1327) */
        sql_error_undeclared_var(p->d, p->tok.text);
        longjmp(p->fail, 1);
    }
    (void)start;
    syntax_error(p);
}

static void limit_clause(parser_t *p, sql_limit_t *l)
{
    if (!accept_word(p, "LIMIT"))
        return;
    sql_expr_t *a = limit_value(p);
    if (accept_punct(p, ',')) {
        l->offset = a;
        l->count = limit_value(p);
    } else {
        l->count = a;
        if (accept_word(p, "OFFSET"))
            l->offset = limit_value(p);
    }
}

static const char *alias_name(parser_t *p, bool after_as)
{
    if (p->tok.type == TK_STRING || p->tok.type == TK_QIDENT) {
        const char *s = p->tok.text;
        next(p);
        return s;
    }
    if (p->tok.type == TK_WORD && !p->tok.reserved)
        return ident(p);
    if (after_as)
        syntax_error(p);
    return NULL;
}

static sql_from_t *table_ref(parser_t *p);

static void data_type(parser_t *p, sql_type_t *t);

/* JSON_TABLE's ... ON EMPTY / ... ON ERROR: NULL, ERROR or DEFAULT 'literal', either order. */
static void jt_responses(parser_t *p, sql_jt_col_t *c)
{
    for (int i = 0; i < 2; i++) {
        sql_jt_resp_t r;
        const char *d = NULL;
        size_t dl = 0;
        if (accept_word(p, "NULL")) {
            r = SQL_JT_RESP_NULL;
        } else if (accept_word(p, "ERROR")) {
            r = SQL_JT_RESP_ERROR;
        } else if (accept_word(p, "DEFAULT")) {
            r = SQL_JT_RESP_DEFAULT;
            if (p->tok.type == TK_INT || p->tok.type == TK_DECIMAL || p->tok.type == TK_FLOAT) {
                d = p->tok.text;
                dl = p->tok.text_len;
                next(p);
            } else {
                d = string_lit(p, &dl);
            }
        } else {
            return;
        }
        expect_word(p, "ON");
        if (accept_word(p, "EMPTY")) {
            c->on_empty = r;
            c->empty_default = d;
            c->empty_len = dl;
        } else {
            expect_word(p, "ERROR");
            c->on_error = r;
            c->error_default = d;
            c->error_len = dl;
        }
    }
}

/* COLUMNS (name FOR ORDINALITY | name type [EXISTS] PATH 'p' [responses] | NESTED [PATH] 'p' COLUMNS (...), ...) */
static void jt_columns(parser_t *p, sql_jt_cols_t *out)
{
    expect_word(p, "COLUMNS");
    expect_punct(p, '(');
    vec_t v = {0};
    do {
        sql_jt_col_t *c = vec_push(p, &v, sizeof *c);
        memset(c, 0, sizeof *c);
        if (accept_word(p, "NESTED")) {
            c->kind = SQL_JT_NESTED;
            accept_word(p, "PATH");
            c->path = string_lit(p, &c->path_len);
            c->nested = alloc(p, sizeof *c->nested);
            jt_columns(p, c->nested);
            continue;
        }
        c->def = alloc(p, sizeof *c->def);
        c->def->name = ident(p);
        if (accept_word(p, "FOR")) {
            expect_word(p, "ORDINALITY");
            c->kind = SQL_JT_ORDINALITY;
            c->def->type.kind = SQL_T_INT;
            c->def->type.len = -1;
            c->def->type.scale = -1;
            c->def->type.coll = -1;
            continue;
        }
        data_type(p, &c->def->type);
        c->kind = accept_word(p, "EXISTS") ? SQL_JT_EXISTS : SQL_JT_PATH;
        expect_word(p, "PATH");
        c->path = string_lit(p, &c->path_len);
        if (c->kind == SQL_JT_PATH)
            jt_responses(p, c);
    } while (accept_punct(p, ','));
    expect_punct(p, ')');
    out->cols = v.items;
    out->n = v.n;
}

static sql_from_t *table_factor(parser_t *p)
{
    sql_from_t *f = alloc(p, sizeof *f);
    if (accept_punct(p, '(')) {
        if (is_select_start(p)) {
            f->kind = SQL_FROM_DERIVED;
            f->derived = select_body(p);
            expect_punct(p, ')');
            accept_word(p, "AS");
            f->alias = ident(p);
            return f;
        }
        sql_from_t *inner = table_refs(p);
        expect_punct(p, ')');
        inner->parens = true;
        return inner;
    }
    if (is_word(p, "JSON_TABLE") && peek2(p)->type == TK_PUNCT && peek2(p)->op == '(') {
        next(p);
        expect_punct(p, '(');
        sql_json_table_t *jt = alloc(p, sizeof *jt);
        jt->doc = expr(p);
        expect_punct(p, ',');
        jt->path = string_lit(p, &jt->path_len);
        jt_columns(p, &jt->cols);
        expect_punct(p, ')');
        f->kind = SQL_FROM_JSON_TABLE;
        f->jt = jt;
        if (accept_word(p, "AS") || is_ident(p))
            f->alias = ident(p);
        else { /* MariaDB's 4177 */
            diag_error(p->d, ER_JSON_TABLE_ALIAS_REQUIRED);
            longjmp(p->fail, 1);
        }
        return f;
    }
    f->kind = SQL_FROM_TABLE;
    f->table = table_name(p);
    if (accept_word(p, "AS"))
        f->alias = ident(p);
    else if (is_ident(p) && !(is_word(p, "WINDOW") && peek2(p)->type == TK_WORD)) /* WINDOW w AS (...) */
        f->alias = ident(p);
    /* index hints: USE/FORCE/IGNORE INDEX|KEY [FOR JOIN|ORDER BY|GROUP BY] (...) */
    vec_t hv = {0};
    while (is_word(p, "USE") || is_word(p, "FORCE") || is_word(p, "IGNORE")) {
        sql_index_hint_t *h = vec_push(p, &hv, sizeof *h);
        h->kind = is_word(p, "USE") ? SQL_HINT_USE : is_word(p, "FORCE") ? SQL_HINT_FORCE : SQL_HINT_IGNORE;
        next(p);
        if (!accept_word(p, "INDEX"))
            expect_word(p, "KEY");
        if (accept_word(p, "FOR")) {
            if (accept_word(p, "JOIN")) {
                h->for_what = SQL_HINT_FOR_JOIN;
            } else if (accept_word(p, "ORDER")) {
                expect_word(p, "BY");
                h->for_what = SQL_HINT_FOR_ORDER_BY;
            } else if (accept_word(p, "GROUP")) {
                expect_word(p, "BY");
                h->for_what = SQL_HINT_FOR_GROUP_BY;
            } else {
                syntax_error(p);
            }
        }
        expect_punct(p, '(');
        vec_t nv = {0};
        if (!is_punct(p, ')')) {
            do {
                *(const char **)vec_push(p, &nv, sizeof(char *)) = accept_word(p, "PRIMARY") ? "PRIMARY" : ident(p);
            } while (accept_punct(p, ','));
        }
        expect_punct(p, ')');
        h->names = nv.items;
        h->n = nv.n;
    }
    f->hints = hv.items;
    f->nhints = hv.n;
    return f;
}

/* The join keyword at p, consumed: its kind and whether NATURAL; false (nothing consumed) when none is. */
static bool join_keyword(parser_t *p, sql_join_kind_t *jk, bool *natural)
{
    *natural = accept_word(p, "NATURAL");
    if (accept_word(p, "JOIN") || (accept_word(p, "INNER") && (expect_word(p, "JOIN"), true))) {
        *jk = SQL_JOIN_INNER;
    } else if (accept_word(p, "CROSS")) {
        expect_word(p, "JOIN");
        *jk = SQL_JOIN_CROSS;
    } else if (accept_word(p, "STRAIGHT_JOIN")) {
        *jk = SQL_JOIN_STRAIGHT;
    } else if (accept_word(p, "LEFT") || (is_word(p, "RIGHT"))) {
        *jk = SQL_JOIN_LEFT;
        if (accept_word(p, "RIGHT"))
            *jk = SQL_JOIN_RIGHT;
        accept_word(p, "OUTER");
        expect_word(p, "JOIN");
    } else {
        if (*natural)
            syntax_error(p);
        return false;
    }
    return true;
}

static bool at_join_keyword(parser_t *p)
{
    static const char *const words[] = {"JOIN", "INNER", "CROSS", "STRAIGHT_JOIN", "LEFT", "RIGHT", "NATURAL"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (is_word(p, words[i]))
            return true;
    return false;
}

/* `l JOIN r` written without a condition, r a join of its own: MariaDB joins l to r's leftmost table instead,
 * so `a JOIN b LEFT JOIN c ON x` is (a JOIN b) LEFT JOIN c ON x and x may name a. */
static sql_from_t *join_leftmost(sql_from_t *j, sql_from_t *r)
{
    if (r->kind != SQL_FROM_JOIN || r->parens)
        return j->right = r, j;
    r->left = join_leftmost(j, r->left);
    return r;
}

/* Joins after l: `l JOIN r ON c` left-deep, and a join written before the condition of the one that holds it
 * nested to the right, as MariaDB's grammar does: `a JOIN b JOIN c ON x ON y` is a JOIN (b JOIN c ON x) ON y. */
static sql_from_t *join_chain(parser_t *p, sql_from_t *l)
{
    for (;;) {
        sql_join_kind_t jk;
        bool natural;
        if (!join_keyword(p, &jk, &natural))
            return l;
        sql_from_t *j = alloc(p, sizeof *j);
        j->kind = SQL_FROM_JOIN;
        j->join = jk;
        j->natural = natural;
        j->left = l;
        sql_from_t *r = table_factor(p);
        if (natural) {
            j->right = r;
            l = j;
            continue;
        }
        bool nested = at_join_keyword(p);
        if (nested)
            r = join_chain(p, r);
        j->right = r;
        if (accept_word(p, "ON")) {
            j->on = expr(p);
        } else if (accept_word(p, "USING")) {
            expect_punct(p, '(');
            vec_t v = {0};
            do {
                *(const char **)vec_push(p, &v, sizeof(char *)) = ident(p);
            } while (accept_punct(p, ','));
            expect_punct(p, ')');
            j->using_cols = v.items;
            j->nusing = v.n;
        } else if (jk == SQL_JOIN_LEFT || jk == SQL_JOIN_RIGHT) {
            syntax_error(p); /* does not return */
        } else if (nested) {
            l = join_leftmost(j, r);
            continue;
        }
        l = j;
    }
}

static sql_from_t *table_ref(parser_t *p) { return join_chain(p, table_factor(p)); }

/* ---------------------------------------------------------------- INTO, FIELDS / LINES (into.c, load.c) */

static sql_bytes_t bytes_lit(parser_t *p)
{
    size_t n;
    const char *s = string_lit(p, &n);
    return (sql_bytes_t){s, n};
}

/* [CHARACTER SET cs] [{FIELDS | COLUMNS} opt...] [LINES opt...]: MariaDB's defaults where not written */
static void export_options(parser_t *p, sql_export_t *ex, bool charset)
{
    ex->field_term = (sql_bytes_t){"\t", 1};
    ex->enclosed = (sql_bytes_t){"", 0};
    ex->escaped = (sql_bytes_t){"\\", 1};
    ex->line_start = (sql_bytes_t){"", 0};
    ex->line_term = (sql_bytes_t){"\n", 1};
    if (charset && (is_word(p, "CHARACTER") || is_word(p, "CHARSET"))) {
        if (accept_word(p, "CHARACTER"))
            expect_word(p, "SET");
        else
            next(p);
        ex->charset = charset_name(p);
    }
    if (accept_word(p, "FIELDS") || accept_word(p, "COLUMNS")) {
        bool any = false;
        for (;; any = true) {
            if (accept_word(p, "TERMINATED")) {
                expect_word(p, "BY");
                ex->field_term = bytes_lit(p);
            } else if (accept_word(p, "OPTIONALLY")) {
                expect_word(p, "ENCLOSED");
                expect_word(p, "BY");
                ex->enclosed = bytes_lit(p);
                ex->opt_enclosed = true;
            } else if (accept_word(p, "ENCLOSED")) {
                expect_word(p, "BY");
                ex->enclosed = bytes_lit(p);
                ex->opt_enclosed = false;
            } else if (accept_word(p, "ESCAPED")) {
                expect_word(p, "BY");
                ex->escaped = bytes_lit(p);
            } else {
                break;
            }
        }
        if (!any)
            syntax_error(p);
    }
    if (accept_word(p, "LINES")) {
        bool any = false;
        for (;; any = true) {
            if (accept_word(p, "STARTING")) {
                expect_word(p, "BY");
                ex->line_start = bytes_lit(p);
            } else if (accept_word(p, "TERMINATED")) {
                expect_word(p, "BY");
                ex->line_term = bytes_lit(p);
            } else {
                break;
            }
        }
        if (!any)
            syntax_error(p);
    }
}

/* INTO @a, @b | INTO OUTFILE 'f' [CHARACTER SET cs] [FIELDS ...] [LINES ...] | INTO DUMPFILE 'f' (after INTO) */
static sql_into_t *into_clause(parser_t *p, bool at_end)
{
    if (p->into)
        syntax_error(p); /* one INTO per statement */
    sql_into_t *in = alloc(p, sizeof *in);
    in->at_end = at_end;
    if (accept_word(p, "OUTFILE")) {
        in->kind = SQL_INTO_OUTFILE;
        in->file = string_lit(p, NULL);
        export_options(p, &in->ex, true);
    } else if (accept_word(p, "DUMPFILE")) {
        in->kind = SQL_INTO_DUMPFILE;
        in->file = string_lit(p, NULL);
    } else {
        in->kind = SQL_INTO_VARS;
        vec_t v = {0};
        do {
            if (p->tok.type == TK_WORD && is_ident(p)) { /* a local variable: only inside stored programs */
                sql_error_undeclared_var(p->d, p->tok.text);
                longjmp(p->fail, 1);
            }
            if (p->tok.type == TK_USERVAR && !p->tok.text[0])
                next(p); /* a lone '@': MariaDB's error is near what follows it */
            if (p->tok.type != TK_USERVAR || !p->tok.text[0])
                syntax_error(p);
            *(const char **)vec_push(p, &v, sizeof(char *)) = p->tok.text;
            next(p);
        } while (accept_punct(p, ','));
        in->vars = v.items;
        in->nvars = v.n;
    }
    p->into = in;
    return in;
}

static sql_select_t *select_one(parser_t *p)
{
    sql_select_t *s = alloc(p, sizeof *s);
    expect_word(p, "SELECT");
    for (;;) {
        if (accept_word(p, "DISTINCT") || accept_word(p, "DISTINCTROW")) s->distinct = true;
        else if (accept_word(p, "ALL")) ;
        else if (accept_word(p, "SQL_CALC_FOUND_ROWS")) s->calc_found_rows = true;
        else if (accept_word(p, "SQL_NO_CACHE")) s->sql_no_cache = true;
        else if (accept_word(p, "SQL_CACHE")) ;
        else if (accept_word(p, "HIGH_PRIORITY")) s->high_priority = true;
        else if (accept_word(p, "STRAIGHT_JOIN")) s->straight_join = true;
        else if (accept_word(p, "SQL_SMALL_RESULT")) s->sql_small_result = true;
        else if (accept_word(p, "SQL_BIG_RESULT")) s->sql_big_result = true;
        else if (accept_word(p, "SQL_BUFFER_RESULT")) s->sql_buffer_result = true;
        else break;
    }
    vec_t items = {0};
    do {
        sql_select_item_t *it = vec_push(p, &items, sizeof *it);
        if (is_punct(p, '*')) {
            it->expr = new_expr(p, SQL_E_STAR, p->tok.start);
            next(p);
            finish(p, it->expr);
            continue;
        }
        it->expr = expr(p);
        if (accept_word(p, "AS"))
            it->alias = alias_name(p, true);
        else
            it->alias = alias_name(p, false);
    } while (accept_punct(p, ','));
    s->items = items.items;
    s->nitems = items.n;
    if (p->into_depth && p->depth == p->into_depth && accept_word(p, "INTO")) {
        s->into = into_clause(p, false);
        if (!is_word(p, "FROM") && !at_end(p) && !is_word(p, "FOR") && !is_word(p, "LOCK") && !is_punct(p, ';'))
            syntax_error(p); /* INTO before FROM: nothing but FROM ... or the lock clause may follow */
    }
    if (accept_word(p, "FROM")) {
        if (accept_word(p, "DUAL")) {
            s->from_dual = true;
        } else {
            s->from = table_ref(p);
            while (accept_punct(p, ',')) {
                sql_from_t *j = alloc(p, sizeof *j);
                j->kind = SQL_FROM_JOIN;
                j->join = SQL_JOIN_CROSS;
                j->left = s->from;
                j->right = table_ref(p);
                s->from = j;
            }
        }
    }
    if (accept_word(p, "WHERE"))
        s->where = expr(p);
    if (accept_word(p, "GROUP")) {
        expect_word(p, "BY");
        vec_t v = {0}, dv = {0};
        bool any_desc = false;
        do {
            push_arg(p, &v, expr(p));
            bool desc = false;
            if (accept_word(p, "DESC"))
                desc = any_desc = true;
            else
                accept_word(p, "ASC");
            *(bool *)vec_push(p, &dv, sizeof(bool)) = desc;
        } while (accept_punct(p, ','));
        s->group_by = v.items;
        s->ngroup_by = v.n;
        if (any_desc)
            s->group_desc = dv.items;
        if (accept_word(p, "WITH")) {
            expect_word(p, "ROLLUP");
            s->with_rollup = true;
        }
    }
    if (accept_word(p, "HAVING"))
        s->having = expr(p);
    if (accept_word(p, "WINDOW")) {
        vec_t v = {0};
        do {
            sql_named_window_t *w = vec_push(p, &v, sizeof *w);
            w->name = ident(p);
            for (uint32_t i = 0; i + 1 < v.n; i++)
                if (strcasecmp(((sql_named_window_t *)v.items)[i].name, w->name) == 0) {
                    diag_error(p->d, ER_DUP_WINDOW_NAME, w->name);
                    longjmp(p->fail, 1);
                }
            expect_word(p, "AS");
            expect_punct(p, '(');
            window_spec(p, &w->spec);
            expect_punct(p, ')');
        } while (accept_punct(p, ','));
        s->windows = v.items;
        s->nwindows = v.n;
    }
    return s;
}

static void lock_clause(parser_t *p, sql_select_t *s)
{
    if (accept_word(p, "FOR")) {
        if (accept_word(p, "SHARE")) {
            s->lock = SQL_LOCK_FOR_SHARE;
        } else {
            expect_word(p, "UPDATE");
            s->lock = SQL_LOCK_FOR_UPDATE;
        }
        if (accept_word(p, "OF")) { /* FOR UPDATE OF t1, t2 (MySQL 8) */
            do ident(p); while (accept_punct(p, ','));
        }
        if (accept_word(p, "NOWAIT")) s->lock_nowait = true;
        else if (accept_word(p, "SKIP")) { expect_word(p, "LOCKED"); s->lock_skip_locked = true; }
        else if (accept_word(p, "WAIT")) limit_value(p);
    } else if (accept_word(p, "LOCK")) {
        expect_word(p, "IN");
        expect_word(p, "SHARE");
        expect_word(p, "MODE");
        s->lock = SQL_LOCK_FOR_SHARE;
    }
}

static void order_limit(parser_t *p, sql_order_item_t **order, uint32_t *norder, sql_limit_t *limit)
{
    if (accept_word(p, "ORDER")) {
        expect_word(p, "BY");
        *order = order_list(p, norder);
    }
    limit_clause(p, limit);
}

/* A union member: SELECT ... [ORDER BY] [LIMIT] [lock] or ( select_body ) */
static sql_select_t *select_member(parser_t *p, bool in_union)
{
    sql_select_t *s;
    if (accept_punct(p, '(')) {
        s = select_body(p);
        expect_punct(p, ')');
        s->parenthesized = true;
        return s;
    }
    s = select_one(p);
    if (!in_union) {
        order_limit(p, &s->order_by, &s->norder_by, &s->limit);
        lock_clause(p, s);
    }
    return s;
}

/*
 * select_body: one SELECT, or a UNION chain.  Without UNION the ORDER BY / LIMIT / locking clause belong to
 * the SELECT; with UNION, unparenthesized members cannot have them (MySQL), and the trailing ones apply to
 * the whole union (first->union_order_by / union_limit).
 */
static sql_select_t *select_body_nowith(parser_t *p);

/* [WITH [RECURSIVE] cte, ...] select_body */
static sql_select_t *select_body(parser_t *p)
{
    if (!is_word(p, "WITH"))
        return select_body_nowith(p);
    depth_in(p);
    next(p);
    int into_depth = p->into_depth;
    p->into_depth = 0; /* not in the WITH elements */
    bool rec = accept_word(p, "RECURSIVE");
    vec_t v = {0};
    do {
        sql_cte_t *c = vec_push(p, &v, sizeof *c);
        c->name = ident(p);
        if (accept_punct(p, '(')) {
            vec_t cv = {0};
            do *(const char **)vec_push(p, &cv, sizeof(char *)) = ident(p); while (accept_punct(p, ','));
            expect_punct(p, ')');
            c->cols = cv.items;
            c->ncols = cv.n;
        }
        expect_word(p, "AS");
        expect_punct(p, '(');
        c->select = select_body(p);
        expect_punct(p, ')');
    } while (accept_punct(p, ','));
    if (!is_word(p, "SELECT") && !is_punct(p, '('))
        syntax_error(p);
    p->into_depth = into_depth;
    sql_select_t *s = select_body_nowith(p);
    s->ctes = v.items;
    s->nctes = v.n;
    s->with_recursive = rec;
    if (sql_resolve_ctes(s, p->d))
        longjmp(p->fail, 1);
    p->depth--;
    return s;
}

static bool is_set_op(parser_t *p)
{
    return is_word(p, "UNION") || is_word(p, "INTERSECT") || is_word(p, "EXCEPT");
}

static sql_select_t *select_body_nowith(parser_t *p)
{
    depth_in(p);
    sql_select_t *first;
    bool paren = is_punct(p, '(');
    if (paren) {
        next(p);
        first = select_body(p);
        expect_punct(p, ')');
        first->parenthesized = true;
    } else {
        first = select_one(p);
    }
    if (first->into && is_set_op(p))
        syntax_error(p); /* INTO before FROM in a UNION's first member */
    if (!is_set_op(p)) {
        /* single SELECT (possibly parenthesized): trailing clauses are its own unless it already has them */
        sql_order_item_t *ob = NULL;
        uint32_t nob = 0;
        sql_limit_t lim = {0};
        order_limit(p, &ob, &nob, &lim);
        if (paren && (ob || lim.count) && (first->norder_by || first->limit.count || first->union_next)) {
            if (first->union_next) {
                first->union_order_by = ob;
                first->nunion_order_by = nob;
                first->union_limit = lim;
            } else {
                syntax_error(p); /* (SELECT .. LIMIT 1) LIMIT 2: MariaDB accepts; keep it simple */
            }
        } else {
            if (ob) {
                first->order_by = ob;
                first->norder_by = nob;
            }
            if (lim.count)
                first->limit = lim;
        }
        lock_clause(p, first);
        p->depth--;
        return first;
    }
    sql_select_t *last = first;
    while (last->union_next)
        last = last->union_next;
    /* a parenthesized member that is itself a chain is linked into this one: right for UNIONs, not once an
     * INTERSECT or EXCEPT is in either (their grouping would be lost) */
    bool nested = paren && first->union_next, other_op = false;
    for (const sql_select_t *m = first; m->union_next; m = m->union_next)
        other_op |= m->set_op != SQL_SETOP_UNION;
    while (is_set_op(p)) {
        sql_setop_t op = is_word(p, "INTERSECT") ? SQL_SETOP_INTERSECT
                       : is_word(p, "EXCEPT")    ? SQL_SETOP_EXCEPT
                                                 : SQL_SETOP_UNION;
        next(p);
        bool all = accept_word(p, "ALL");
        if (!all)
            accept_word(p, "DISTINCT");
        int into_depth = p->into_depth;
        p->into_depth = 0; /* a later member's INTO is the statement's, after it (into_clause at the end) */
        sql_select_t *n = select_member(p, true);
        p->into_depth = into_depth;
        last->union_all = all;
        last->set_op = op;
        other_op |= op != SQL_SETOP_UNION;
        nested |= n->parenthesized && n->union_next;
        for (const sql_select_t *m = n; m->union_next; m = m->union_next)
            other_op |= m->set_op != SQL_SETOP_UNION;
        last->union_next = n;
        while (last->union_next)
            last = last->union_next;
    }
    if (nested && other_op) {
        diag_error(p->d, ER_NOT_SUPPORTED_YET, "a parenthesized UNION, INTERSECT or EXCEPT inside one with INTERSECT or EXCEPT");
        longjmp(p->fail, 1);
    }
    order_limit(p, &first->union_order_by, &first->nunion_order_by, &first->union_limit);
    lock_clause(p, first);
    p->depth--;
    return first;
}

/* ---------------------------------------------------------------- users */

static void user_name(parser_t *p, sql_user_t *u)
{
    memset(u, 0, sizeof *u);
    if (is_word(p, "CURRENT_USER")) {
        next(p);
        if (accept_punct(p, '(')) {
            expect_punct(p, ')');
        }
        u->current = true;
        return;
    }
    if (p->tok.type == TK_STRING || p->tok.type == TK_QIDENT || (p->tok.type == TK_WORD)) {
        if (p->tok.type == TK_WORD && p->tok.reserved)
            syntax_error(p);
        u->user = p->tok.text;
        next(p);
    } else {
        syntax_error(p);
    }
    u->host = "%";
    if (p->tok.type == TK_USERVAR) { /* 'u'@'h' lexes the @'h' as a user variable token */
        u->host = p->tok.text;
        next(p);
    } else if (is_punct(p, '@')) {
        next(p);
        if (p->tok.type == TK_STRING || p->tok.type == TK_QIDENT || p->tok.type == TK_WORD) {
            u->host = p->tok.text;
            next(p);
        } else {
            syntax_error(p);
        }
    }
}

static void auth_option(parser_t *p, sql_user_spec_t *s)
{
    if (!accept_word(p, "IDENTIFIED"))
        return;
    s->has_auth = true;
    if (accept_word(p, "BY")) {
        if (accept_word(p, "PASSWORD"))
            s->auth_string = string_lit(p, NULL);
        else
            s->password = string_lit(p, NULL);
        return;
    }
    if (accept_word(p, "WITH") || accept_word(p, "VIA")) {
        s->plugin = lower_dup(p, p->tok.text ? p->tok.text : "", p->tok.text ? p->tok.text_len : 0);
        if (p->tok.type != TK_WORD && p->tok.type != TK_STRING && p->tok.type != TK_QIDENT)
            syntax_error(p);
        next(p);
        if (accept_word(p, "BY")) {
            if (accept_word(p, "PASSWORD")) {
                expect_punct(p, '(');
                s->password = string_lit(p, NULL);
                expect_punct(p, ')');
            } else {
                s->password = string_lit(p, NULL);
            }
        } else if (accept_word(p, "AS") || accept_word(p, "USING")) {
            if (accept_word(p, "PASSWORD")) {
                expect_punct(p, '(');
                s->password = string_lit(p, NULL);
                expect_punct(p, ')');
            } else {
                s->auth_string = string_lit(p, NULL);
            }
        }
        return;
    }
    syntax_error(p);
}

static uint64_t uint_value(parser_t *p);

/* Tail options of CREATE/ALTER USER: REQUIRE, WITH limits, PASSWORD EXPIRE, ACCOUNT.  Those the account store
 * keeps (ACCOUNT LOCK/UNLOCK, REQUIRE NONE/SSL, MAX_USER_CONNECTIONS) go into *o; the rest is
 * accepted and ignored. */
static void user_tail_options(parser_t *p, sql_account_opts_t *o)
{
    for (;;) {
        if (accept_word(p, "REQUIRE")) {
            if (accept_word(p, "NONE")) { o->require = 1; continue; }
            if (accept_word(p, "SSL")) { o->require = 2; continue; }
            o->require = 3;
            if (accept_word(p, "X509"))
                continue;
            do {
                if (accept_word(p, "CIPHER") || accept_word(p, "ISSUER") || accept_word(p, "SUBJECT"))
                    string_lit(p, NULL);
                else
                    syntax_error(p);
                accept_word(p, "AND");
            } while (p->tok.type == TK_WORD && !at_end(p) && (is_word(p, "CIPHER") || is_word(p, "ISSUER") || is_word(p, "SUBJECT")));
        } else if (accept_word(p, "WITH")) {
            do {
                if (p->tok.type != TK_WORD)
                    syntax_error(p);
                bool muc = is_word(p, "MAX_USER_CONNECTIONS");
                next(p);
                if (p->tok.type != TK_INT && p->tok.type != TK_DECIMAL)
                    syntax_error(p);
                if (muc && p->tok.type == TK_INT) {
                    o->has_max_user_connections = true;
                    o->max_user_connections = strtoull(p->tok.text, NULL, 10);
                }
                next(p);
            } while (is_word(p, "MAX_QUERIES_PER_HOUR") || is_word(p, "MAX_UPDATES_PER_HOUR") ||
                     is_word(p, "MAX_CONNECTIONS_PER_HOUR") || is_word(p, "MAX_USER_CONNECTIONS") ||
                     is_word(p, "MAX_STATEMENT_TIME"));
        } else if (accept_word(p, "PASSWORD")) {
            expect_word(p, "EXPIRE");
            if (accept_word(p, "NEVER") || accept_word(p, "DEFAULT")) ;
            else if (accept_word(p, "INTERVAL")) { limit_value(p); expect_word(p, "DAY"); }
        } else if (accept_word(p, "ACCOUNT")) {
            if (accept_word(p, "LOCK"))
                o->lock = 1;
            else {
                expect_word(p, "UNLOCK");
                o->lock = 2;
            }
        } else {
            return;
        }
    }
}

static void user_list_stmt(parser_t *p, sql_stmt_t *st, bool with_auth)
{
    vec_t v = {0};
    do {
        sql_user_spec_t *s = vec_push(p, &v, sizeof *s);
        user_name(p, &s->user);
        if (with_auth)
            auth_option(p, s);
    } while (accept_punct(p, ','));
    st->user.users = v.items;
    st->user.nusers = v.n;
    if (with_auth)
        user_tail_options(p, &st->user.opts);
}

/* ---------------------------------------------------------------- SET */

static bool is_scope_word(parser_t *p, sql_var_scope_t *scope)
{
    if (is_word(p, "GLOBAL")) { *scope = SQL_SCOPE_GLOBAL; return true; }
    if (is_word(p, "SESSION") || is_word(p, "LOCAL")) { *scope = SQL_SCOPE_SESSION; return true; }
    return false;
}

static void txn_characteristics(parser_t *p, sql_txn_t *t)
{
    do {
        if (accept_word(p, "ISOLATION")) {
            expect_word(p, "LEVEL");
            if (accept_word(p, "READ")) {
                if (accept_word(p, "UNCOMMITTED")) t->isolation = SQL_ISO_READ_UNCOMMITTED;
                else { expect_word(p, "COMMITTED"); t->isolation = SQL_ISO_READ_COMMITTED; }
            } else if (accept_word(p, "REPEATABLE")) {
                expect_word(p, "READ");
                t->isolation = SQL_ISO_REPEATABLE_READ;
            } else {
                expect_word(p, "SERIALIZABLE");
                t->isolation = SQL_ISO_SERIALIZABLE;
            }
        } else if (accept_word(p, "READ")) {
            if (accept_word(p, "ONLY")) t->access = SQL_ACCESS_READ_ONLY;
            else { expect_word(p, "WRITE"); t->access = SQL_ACCESS_READ_WRITE; }
        } else {
            syntax_error(p);
        }
    } while (accept_punct(p, ','));
}

/* SET value: expr, with ON/OFF/etc. words kept as column-reference identifiers; DEFAULT as SQL_E_DEFAULT. */
static sql_expr_t *set_value(parser_t *p)
{
    const char *start = p->tok.start;
    if (is_word(p, "DEFAULT")) {
        next(p);
        sql_expr_t *e = new_expr(p, SQL_E_DEFAULT, start);
        finish(p, e);
        return e;
    }
    /* reserved words usable as values: ON, ALL, BINARY... (SET sql_mode=..., SET x=ON) */
    if (p->tok.type == TK_WORD && p->tok.reserved &&
        (is_word(p, "ON") || is_word(p, "ALL") || is_word(p, "BINARY") || is_word(p, "ROW") || is_word(p, "DELETE")) &&
        (peek2(p)->type == TK_EOF || (peek2(p)->type == TK_PUNCT && (peek2(p)->op == ',' || peek2(p)->op == ';')))) {
        sql_expr_t *e = new_expr(p, SQL_E_COLUMN, start);
        e->col.name = p->tok.text;
        next(p);
        finish(p, e);
        return e;
    }
    return expr(p);
}

static void set_stmt(parser_t *p, sql_stmt_t *st)
{
    /* after SET */
    sql_var_scope_t scope = SQL_SCOPE_DEFAULT;
    /* SET [GLOBAL|SESSION] TRANSACTION ... */
    if (is_scope_word(p, &scope) && tok_is_word(peek2(p), "TRANSACTION"))
        next(p);
    else
        scope = SQL_SCOPE_DEFAULT;
    if (is_word(p, "ROLE") && !(peek2(p)->type == TK_PUNCT && (peek2(p)->op == '=' || peek2(p)->op == P_ASSIGN))) {
        next(p);
        st->kind = SQL_STMT_SET_ROLE;
        st->role.role = accept_word(p, "NONE") ? NULL : role_name(p);
        return;
    }
    if (is_word(p, "DEFAULT") && tok_is_word(peek2(p), "ROLE")) {
        next(p);
        next(p);
        st->kind = SQL_STMT_SET_DEFAULT_ROLE;
        st->role.is_default_role = true;
        st->role.role = accept_word(p, "NONE") ? NULL : role_name(p);
        if (accept_word(p, "FOR")) {
            st->role.has_user = true;
            user_name(p, &st->role.user);
        }
        return;
    }
    if (accept_word(p, "TRANSACTION")) {
        st->kind = SQL_STMT_SET_TRANSACTION;
        st->txn.scope = scope;
        txn_characteristics(p, &st->txn);
        return;
    }
    if (is_word(p, "PASSWORD") && peek2(p)->type == TK_PUNCT && peek2(p)->op == '=') {
        next(p);
        st->kind = SQL_STMT_SET_PASSWORD;
        expect_punct(p, '=');
        st->set_password.value = expr(p);
        return;
    }
    if (is_word(p, "PASSWORD") && tok_is_word(peek2(p), "FOR")) {
        next(p);
        next(p);
        st->kind = SQL_STMT_SET_PASSWORD;
        st->set_password.has_user = true;
        user_name(p, &st->set_password.user);
        expect_punct(p, '=');
        st->set_password.value = expr(p);
        return;
    }
    st->kind = SQL_STMT_SET;
    vec_t v = {0};
    sql_var_scope_t sc = SQL_SCOPE_DEFAULT; /* a scope keyword carries over to the following items (MariaDB) */
    do {
        sql_set_item_t *it = vec_push(p, &v, sizeof *it);
        sql_var_scope_t w;
        if (is_scope_word(p, &w) && !(peek2(p)->type == TK_PUNCT && (peek2(p)->op == '=' || peek2(p)->op == P_ASSIGN))) {
            next(p);
            sc = w;
        }
        if (is_word(p, "NAMES")) {
            next(p);
            it->kind = SQL_SET_NAMES;
            if (accept_word(p, "DEFAULT")) {
                it->charset = NULL;
            } else {
                it->charset = charset_name(p);
                if (value_charset_default_coll(it->charset, strlen(it->charset)) < 0) {
                    diag_error(p->d, ER_UNKNOWN_CHARACTER_SET, it->charset);
                    longjmp(p->fail, 1);
                }
                if (accept_word(p, "COLLATE")) {
                    if (accept_word(p, "DEFAULT"))
                        it->collation = NULL;
                    else
                        it->collation = ident_or_text(p);
                }
            }
            continue;
        }
        if ((is_word(p, "CHARACTER") && tok_is_word(peek2(p), "SET")) || is_word(p, "CHARSET")) {
            if (accept_word(p, "CHARACTER"))
                next(p);
            else
                next(p);
            it->kind = SQL_SET_CHARSET;
            if (accept_word(p, "DEFAULT"))
                it->charset = NULL;
            else
                it->charset = charset_name(p);
            continue;
        }
        if (p->tok.type == TK_USERVAR) {
            it->kind = SQL_SET_USERVAR;
            it->name = p->tok.text;
            next(p);
        } else {
            it->kind = SQL_SET_SYSVAR;
            it->scope = sc;
            if (p->tok.type == TK_AT2) {
                next(p);
                sql_expr_t *sv = sysvar(p, p->tok.start);
                it->scope = sv->var.scope;
                it->name = sv->var.name;
                it->component = sv->var.component;
            } else {
                if (p->tok.type != TK_WORD && p->tok.type != TK_QIDENT)
                    syntax_error(p);
                it->name = p->tok.text;
                next(p);
                if (accept_punct(p, '.')) {
                    if (p->tok.type != TK_WORD && p->tok.type != TK_QIDENT)
                        syntax_error(p);
                    it->component = it->name;
                    it->name = p->tok.text;
                    next(p);
                }
            }
            it->name = lower_dup(p, it->name, strlen(it->name));
        }
        if (!accept_punct(p, '=') && !accept_punct(p, P_ASSIGN))
            syntax_error(p);
        it->value = set_value(p);
    } while (accept_punct(p, ','));
    st->set.items = v.items;
    st->set.nitems = v.n;
}

/* ---------------------------------------------------------------- SHOW */

static void show_like_where(parser_t *p, sql_show_t *s)
{
    if (accept_word(p, "LIKE"))
        s->like = string_lit(p, NULL);
    else if (accept_word(p, "WHERE"))
        s->where = expr(p);
}

static void show_from_db(parser_t *p, sql_show_t *s)
{
    if (accept_word(p, "FROM") || accept_word(p, "IN"))
        s->db = ident(p);
}

static void show_stmt(parser_t *p, sql_stmt_t *st)
{
    sql_show_t *s = &st->show;
    st->kind = SQL_STMT_SHOW;
    if (accept_word(p, "GLOBAL")) s->scope = SQL_SCOPE_GLOBAL;
    else if (accept_word(p, "SESSION") || accept_word(p, "LOCAL")) s->scope = SQL_SCOPE_SESSION;
    if (s->scope != SQL_SCOPE_DEFAULT) {
        if (accept_word(p, "VARIABLES")) s->what = SQL_SHOW_VARIABLES;
        else { expect_word(p, "STATUS"); s->what = SQL_SHOW_STATUS; }
        show_like_where(p, s);
        return;
    }
    if (accept_word(p, "ALL")) { /* SHOW ALL SLAVES | REPLICAS STATUS (MariaDB) */
        if (!accept_word(p, "SLAVES"))
            expect_word(p, "REPLICAS");
        expect_word(p, "STATUS");
        s->what = SQL_SHOW_SLAVE_STATUS;
        s->full = true;
        return;
    }
    if (accept_word(p, "FULL"))
        s->full = true;
    if (s->full) {
        if (accept_word(p, "PROCESSLIST")) { s->what = SQL_SHOW_PROCESSLIST; return; }
        if (accept_word(p, "TABLES")) { s->what = SQL_SHOW_TABLES; show_from_db(p, s); show_like_where(p, s); return; }
        if (accept_word(p, "COLUMNS") || accept_word(p, "FIELDS")) goto columns;
        syntax_error(p);
    }
    if (accept_word(p, "VARIABLES")) { s->what = SQL_SHOW_VARIABLES; show_like_where(p, s); return; }
    if (accept_word(p, "STATUS")) { s->what = SQL_SHOW_STATUS; show_like_where(p, s); return; }
    if (is_word(p, "WARNINGS") || is_word(p, "ERRORS")) {
        s->what = is_word(p, "WARNINGS") ? SQL_SHOW_WARNINGS : SQL_SHOW_ERRORS;
        next(p);
        limit_clause(p, &s->limit);
        return;
    }
    if (is_word(p, "COUNT") && peek2(p)->type == TK_PUNCT && peek2(p)->op == '(') {
        next(p);
        next(p);
        expect_punct(p, '*');
        expect_punct(p, ')');
        s->count_only = true;
        if (accept_word(p, "WARNINGS")) s->what = SQL_SHOW_WARNINGS;
        else { expect_word(p, "ERRORS"); s->what = SQL_SHOW_ERRORS; }
        return;
    }
    if (accept_word(p, "DATABASES") || accept_word(p, "SCHEMAS")) { s->what = SQL_SHOW_DATABASES; show_like_where(p, s); return; }
    if (accept_word(p, "PROCESSLIST")) { s->what = SQL_SHOW_PROCESSLIST; return; }
    if (accept_word(p, "STORAGE")) { expect_word(p, "ENGINES"); s->what = SQL_SHOW_ENGINES; return; }
    if (accept_word(p, "ENGINES")) { s->what = SQL_SHOW_ENGINES; return; }
    if (accept_word(p, "ENGINE")) {
        s->engine = ident(p);
        if (!accept_word(p, "STATUS")) { expect_word(p, "MUTEX"); s->engine_mutex = true; }
        s->what = SQL_SHOW_ENGINE_STATUS;
        return;
    }
    if (accept_word(p, "PLUGINS")) { s->what = SQL_SHOW_PLUGINS; return; } /* no LIKE or WHERE (MariaDB) */
    if (accept_word(p, "PRIVILEGES")) { s->what = SQL_SHOW_PRIVILEGES; return; }
    if ((is_word(p, "CHARACTER") && tok_is_word(peek2(p), "SET")) || is_word(p, "CHARSET")) {
        if (accept_word(p, "CHARACTER")) next(p); else next(p);
        s->what = SQL_SHOW_CHARSET;
        show_like_where(p, s);
        return;
    }
    if (accept_word(p, "COLLATION")) { s->what = SQL_SHOW_COLLATION; show_like_where(p, s); return; }
    if (accept_word(p, "GRANTS")) {
        s->what = SQL_SHOW_GRANTS;
        if (accept_word(p, "FOR")) {
            s->has_user = true;
            user_name(p, &s->user);
        }
        return;
    }
    if (accept_word(p, "CREATE")) {
        if (accept_word(p, "DATABASE") || accept_word(p, "SCHEMA")) {
            s->what = SQL_SHOW_CREATE_DATABASE;
            if (accept_word(p, "IF")) { expect_word(p, "NOT"); expect_word(p, "EXISTS"); s->if_not_exists = true; }
            s->db = ident(p);
            return;
        }
        if (accept_word(p, "TABLE")) { s->what = SQL_SHOW_CREATE_TABLE; s->table = table_name(p); return; }
        if (accept_word(p, "VIEW")) { s->what = SQL_SHOW_CREATE_VIEW; s->table = table_name(p); return; }
        if (accept_word(p, "PROCEDURE")) { s->what = SQL_SHOW_CREATE_PROCEDURE; s->table = table_name(p); return; }
        if (accept_word(p, "FUNCTION")) { s->what = SQL_SHOW_CREATE_FUNCTION; s->table = table_name(p); return; }
        if (accept_word(p, "TRIGGER")) { s->what = SQL_SHOW_CREATE_TRIGGER; s->table = table_name(p); return; }
        if (accept_word(p, "EVENT")) { s->what = SQL_SHOW_CREATE_EVENT; s->table = table_name(p); return; }
        if (accept_word(p, "USER")) { s->what = SQL_SHOW_CREATE_USER; s->has_user = true; user_name(p, &s->user); return; }
        syntax_error(p);
    }
    if (accept_word(p, "TABLES")) { s->what = SQL_SHOW_TABLES; show_from_db(p, s); show_like_where(p, s); return; }
    if (accept_word(p, "OPEN")) { expect_word(p, "TABLES"); s->what = SQL_SHOW_OPEN_TABLES; show_from_db(p, s); show_like_where(p, s); return; }
    if (accept_word(p, "TRIGGERS")) { s->what = SQL_SHOW_TRIGGERS; show_from_db(p, s); show_like_where(p, s); return; }
    if (accept_word(p, "EVENTS")) { s->what = SQL_SHOW_EVENTS; show_from_db(p, s); show_like_where(p, s); return; }
    /* PACKAGE [BODY] STATUS (MariaDB's Oracle-mode packages; mariadb-dump --routines asks): no packages, the
     * routines' columns */
    if (is_word(p, "PROCEDURE") || is_word(p, "FUNCTION") || is_word(p, "PACKAGE")) {
        s->what = is_word(p, "FUNCTION") ? SQL_SHOW_FUNCTION_STATUS : SQL_SHOW_PROCEDURE_STATUS;
        if (accept_word(p, "PACKAGE")) {
            s->package = true;
            accept_word(p, "BODY");
        }
        else
            next(p);
        expect_word(p, "STATUS");
        show_like_where(p, s);
        return;
    }
    if (accept_word(p, "TABLE")) { expect_word(p, "STATUS"); s->what = SQL_SHOW_TABLE_STATUS; show_from_db(p, s); show_like_where(p, s); return; }
    if (accept_word(p, "COLUMNS") || accept_word(p, "FIELDS")) {
    columns:
        s->what = SQL_SHOW_COLUMNS;
        if (!accept_word(p, "FROM")) expect_word(p, "IN");
        s->table = table_name(p);
        if (accept_word(p, "FROM") || accept_word(p, "IN")) s->table.db = ident(p);
        show_like_where(p, s);
        return;
    }
    if (accept_word(p, "INDEX") || accept_word(p, "INDEXES") || accept_word(p, "KEYS")) {
        s->what = SQL_SHOW_INDEX;
        if (!accept_word(p, "FROM")) expect_word(p, "IN");
        s->table = table_name(p);
        if (accept_word(p, "FROM") || accept_word(p, "IN")) s->table.db = ident(p);
        if (accept_word(p, "WHERE")) s->where = expr(p);
        return;
    }
    if (accept_word(p, "BINARY") || accept_word(p, "MASTER")) {
        if (accept_word(p, "LOGS")) { s->what = SQL_SHOW_BINARY_LOGS; return; }
        accept_word(p, "LOG"); /* SHOW BINARY LOG STATUS (MySQL 8.2) */
        expect_word(p, "STATUS");
        s->what = SQL_SHOW_MASTER_STATUS;
        return;
    }
    if (accept_word(p, "SLAVE") || accept_word(p, "REPLICA")) {
        if (accept_word(p, "HOSTS")) { s->what = SQL_SHOW_SLAVE_STATUS; return; }
        expect_word(p, "STATUS");
        s->what = SQL_SHOW_SLAVE_STATUS;
        return;
    }
    if (is_word(p, "BINLOG") && tok_is_word(peek2(p), "STATUS")) { /* MariaDB 10.5+ */
        next(p);
        next(p);
        s->what = SQL_SHOW_MASTER_STATUS;
        return;
    }
    if (accept_word(p, "BINLOG")) {
        expect_word(p, "EVENTS");
        s->what = SQL_SHOW_BINLOG_EVENTS;
        if (accept_word(p, "IN")) s->log_name = string_lit(p, NULL);
        if (accept_word(p, "FROM")) s->from_pos = limit_value(p);
        limit_clause(p, &s->limit);
        return;
    }
    if (accept_word(p, "STRATA")) { expect_word(p, "ADVICE"); s->what = SQL_SHOW_STRATA_ADVICE; return; }
    syntax_error(p);
}


static uint64_t uint_value(parser_t *p)
{
    if (p->tok.type != TK_INT)
        syntax_error(p);
    uint64_t v = strtoull(p->tok.text, NULL, 10);
    next(p);
    return v;
}

static int32_t paren_len(parser_t *p)
{
    expect_punct(p, '(');
    if (p->tok.type != TK_INT)
        syntax_error(p);
    int64_t v = strtoll(p->tok.text, NULL, 10);
    p->len_over_u32 = v > (int64_t)UINT32_MAX;
    if (v > INT32_MAX)
        v = INT32_MAX;
    next(p);
    expect_punct(p, ')');
    return (int32_t)v;
}

/* Sizes: 1024, 16M, 1G, 128K (a number with a K/M/G suffix lexes as one word) or '16M'. */
static uint64_t size_value(parser_t *p)
{
    const char *s = p->tok.text;
    if (p->tok.type != TK_INT && p->tok.type != TK_WORD && p->tok.type != TK_STRING)
        syntax_error(p);
    if (!s || !isdigit((unsigned char)s[0]))
        syntax_error(p);
    char *end;
    uint64_t v = strtoull(s, &end, 10);
    if (*end) {
        int c = toupper((unsigned char)*end);
        if (end[1])
            syntax_error(p);
        if (c == 'K') v <<= 10;
        else if (c == 'M') v <<= 20;
        else if (c == 'G') v <<= 30;
        else if (c == 'T') v <<= 40;
        else syntax_error(p);
    }
    next(p);
    return v;
}

static void if_exists(parser_t *p, bool *flag)
{
    if (is_word(p, "IF") && tok_is_word(peek2(p), "EXISTS")) {
        next(p);
        next(p);
        *flag = true;
    }
}

static void if_not_exists(parser_t *p, bool *flag)
{
    if (is_word(p, "IF")) {
        next(p);
        expect_word(p, "NOT");
        expect_word(p, "EXISTS");
        *flag = true;
    }
}

/* IF NOT EXISTS of a CREATE: it contradicts OR REPLACE (MariaDB: 1221 for every object kind). */
static void create_if_not_exists(parser_t *p, bool or_replace, bool *flag)
{
    if_not_exists(p, flag);
    if (or_replace && *flag) {
        diag_error(p->d, ER_WRONG_USAGE, "OR REPLACE", "IF NOT EXISTS");
        longjmp(p->fail, 1);
    }
}

static const char *opt_eq_ident_or_text(parser_t *p)
{
    accept_punct(p, '=');
    return ident_or_text(p);
}

/* an option value that may be a word even if reserved (ENGINE=MEMORY, ROW_FORMAT=DEFAULT) */
static const char *opt_word(parser_t *p)
{
    if (p->tok.type == TK_WORD || p->tok.type == TK_QIDENT || p->tok.type == TK_STRING) {
        const char *s = p->tok.text;
        next(p);
        return s;
    }
    syntax_error(p);
}

/* ALGORITHM [=] DEFAULT|COPY|INPLACE|NOCOPY|INSTANT or LOCK [=] DEFAULT|NONE|SHARED|EXCLUSIVE, after the keyword
 * (is_lock says which); an unknown word is MariaDB's 1800 / 1801. */
static void alter_algorithm_or_lock(parser_t *p, bool is_lock, sql_alter_algorithm_t *alg, sql_alter_lock_t *lock)
{
    static const char *const algs[] = {"DEFAULT", "COPY", "INPLACE", "NOCOPY", "INSTANT"};
    static const char *const locks[] = {"DEFAULT", "NONE", "SHARED", "EXCLUSIVE"};
    accept_punct(p, '=');
    const char *w = opt_word(p);
    const char *const *names = is_lock ? locks : algs;
    int n = is_lock ? 4 : 5;
    for (int i = 0; i < n; i++)
        if (strcasecmp(w, names[i]) == 0) {
            if (is_lock)
                *lock = (sql_alter_lock_t)i;
            else
                *alg = (sql_alter_algorithm_t)i;
            return;
        }
    diag_error(p->d, is_lock ? ER_UNKNOWN_ALTER_LOCK : ER_UNKNOWN_ALTER_ALGORITHM, w);
    longjmp(p->fail, 1);
}

static sql_order_item_t *order_list(parser_t *p, uint32_t *n)
{
    vec_t v = {0};
    do {
        sql_order_item_t *o = vec_push(p, &v, sizeof *o);
        o->expr = expr(p);
        if (accept_word(p, "DESC"))
            o->desc = true;
        else
            accept_word(p, "ASC");
    } while (accept_punct(p, ','));
    *n = v.n;
    return v.items;
}

/* ---------------------------------------------------------------- data types */

static int32_t default_int_width(sql_type_kind_t k, bool uns)
{
    switch (k) {
    case SQL_T_TINYINT: return uns ? 3 : 4;
    case SQL_T_SMALLINT: return uns ? 5 : 6;
    case SQL_T_MEDIUMINT: return uns ? 8 : 9;
    case SQL_T_INT: return uns ? 10 : 11;
    default: return 20;
    }
}

static void type_charset_opts(parser_t *p, sql_type_t *t)
{
    for (;;) {
        if ((is_word(p, "CHARACTER") && tok_is_word(peek2(p), "SET")) || is_word(p, "CHARSET")) {
            if (accept_word(p, "CHARACTER")) next(p); else next(p);
            const char *cs = charset_name(p);
            t->charset = lower_dup(p, cs, strlen(cs));
        } else if (accept_word(p, "BINARY")) {
            t->collation = "binary_flag"; /* CHAR(n) BINARY: the charset's _bin collation */
        } else if (accept_word(p, "ASCII")) {
            t->charset = "latin1";
        } else if (accept_word(p, "UNICODE")) {
            t->charset = "ucs2";
        } else if (accept_word(p, "BYTE")) {
            t->coll = COLL_BINARY;
        } else {
            return;
        }
    }
}

/* CHARACTER SET binary (or BYTE) on a character type makes the binary type, as MariaDB does: CHAR(n) is then
 * BINARY(n) (padded with 0x00), VARCHAR VARBINARY, TEXT BLOB; SHOW CREATE TABLE and dumps show the binary type. */
static void type_binary_kind(sql_type_t *t)
{
    if (t->coll != COLL_BINARY)
        return;
    switch (t->kind) {
    case SQL_T_CHAR: t->kind = SQL_T_BINARY; break;
    case SQL_T_VARCHAR: t->kind = SQL_T_VARBINARY; break;
    case SQL_T_TINYTEXT: t->kind = SQL_T_TINYBLOB; break;
    case SQL_T_TEXT: t->kind = SQL_T_BLOB; break;
    case SQL_T_MEDIUMTEXT: t->kind = SQL_T_MEDIUMBLOB; break;
    case SQL_T_LONGTEXT: t->kind = SQL_T_LONGBLOB; break;
    default: break;
    }
}

static void type_resolve_coll(parser_t *p, sql_type_t *t)
{
    if (t->coll == COLL_BINARY) {
        type_binary_kind(t);
        return;
    }
    if (t->collation && strcmp(t->collation, "binary_flag") != 0) {
        t->coll = collation_coll(p, t->collation);
    } else if (t->charset) {
        int c = charset_name_coll(p, t->charset);
        if (t->collation && c != COLL_BINARY) {
            /* CHARSET x BINARY: x's _bin collation */
            char nm[64];
            snprintf(nm, sizeof nm, "%s_bin", t->charset);
            int b = value_coll_by_name(nm, strlen(nm));
            if (b >= 0)
                c = b;
        }
        t->coll = c;
    } else if (t->collation) {
        t->coll = COLL_UTF8MB4_BIN; /* BINARY attribute alone: the table charset's _bin (utf8mb4 assumed) */
    }
    type_binary_kind(t);
}

/* A precision or scale in a type: an integer, saturated at INT32_MAX (DECIMAL(4294967296) is 1426, not 0). */
static int32_t type_size_value(parser_t *p)
{
    uint64_t v = uint_value(p);
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static void data_type(parser_t *p, sql_type_t *t)
{
    memset(t, 0, sizeof *t);
    p->len_over_u32 = false;
    t->len = -1;
    t->scale = -1;
    t->coll = -1;
    bool is_int = false, is_str = false;
    const char *w = p->tok.text;
    if (p->tok.type != TK_WORD)
        syntax_error(p);
    static const struct { const char *name; sql_type_kind_t k; } ints[] = {
        {"TINYINT", SQL_T_TINYINT}, {"INT1", SQL_T_TINYINT}, {"SMALLINT", SQL_T_SMALLINT}, {"INT2", SQL_T_SMALLINT},
        {"MEDIUMINT", SQL_T_MEDIUMINT}, {"MIDDLEINT", SQL_T_MEDIUMINT}, {"INT3", SQL_T_MEDIUMINT},
        {"INT", SQL_T_INT}, {"INTEGER", SQL_T_INT}, {"INT4", SQL_T_INT}, {"BIGINT", SQL_T_BIGINT},
        {"INT8", SQL_T_BIGINT},
    };
    for (size_t i = 0; i < ARRAY_LEN(ints); i++)
        if (strcasecmp(w, ints[i].name) == 0) {
            t->kind = ints[i].k;
            is_int = true;
        }
    if (is_int) {
        next(p);
        if (is_punct(p, '('))
            t->len = paren_len(p);
    } else if (accept_word(p, "BOOL") || accept_word(p, "BOOLEAN")) {
        t->kind = SQL_T_TINYINT;
        t->len = 1;
        t->is_bool = true;
    } else if (accept_word(p, "SERIAL")) {
        t->kind = SQL_T_BIGINT;
        t->is_unsigned = true;
        t->is_serial = true;
        t->len = 20;
    } else if (accept_word(p, "DECIMAL") || accept_word(p, "DEC") || accept_word(p, "NUMERIC") ||
               accept_word(p, "FIXED")) {
        t->kind = SQL_T_DECIMAL;
        t->len = 10;
        t->scale = 0;
        if (accept_punct(p, '(')) {
            t->len = type_size_value(p);
            if (accept_punct(p, ','))
                t->scale = type_size_value(p);
            expect_punct(p, ')');
        }
    } else if (accept_word(p, "FLOAT") || accept_word(p, "FLOAT4")) {
        t->kind = SQL_T_FLOAT;
        if (accept_punct(p, '(')) {
            int32_t m = type_size_value(p);
            if (accept_punct(p, ',')) {
                t->len = m;
                t->scale = type_size_value(p);
            } else if (m > 24) {
                t->kind = SQL_T_DOUBLE; /* FLOAT(p): precision in bits, at most 53 (column_def: 1063) */
                if (m > 53)
                    t->len = m;
            }
            expect_punct(p, ')');
        }
    } else if (accept_word(p, "DOUBLE") || accept_word(p, "REAL") || accept_word(p, "FLOAT8")) {
        t->kind = SQL_T_DOUBLE;
        accept_word(p, "PRECISION");
        if (accept_punct(p, '(')) {
            t->len = type_size_value(p);
            expect_punct(p, ',');
            t->scale = type_size_value(p);
            expect_punct(p, ')');
        }
    } else if (accept_word(p, "BIT")) {
        t->kind = SQL_T_BIT;
        t->len = is_punct(p, '(') ? paren_len(p) : 1;
    } else if (is_word(p, "CHAR") || is_word(p, "CHARACTER") || is_word(p, "NCHAR") || is_word(p, "NATIONAL")) {
        bool national = accept_word(p, "NATIONAL") || is_word(p, "NCHAR");
        next(p);
        t->kind = SQL_T_CHAR;
        if (accept_word(p, "VARYING"))
            t->kind = SQL_T_VARCHAR;
        if (t->kind == SQL_T_VARCHAR || is_punct(p, '('))
            t->len = paren_len(p);
        else
            t->len = 1;
        if (national)
            t->charset = "utf8mb3";
        is_str = true;
    } else if (accept_word(p, "VARCHAR") || accept_word(p, "NVARCHAR") || accept_word(p, "VARCHAR2") ||
               accept_word(p, "VARCHARACTER")) {
        t->kind = SQL_T_VARCHAR;
        t->len = paren_len(p);
        is_str = true;
    } else if (accept_word(p, "BINARY")) {
        t->kind = SQL_T_BINARY;
        t->len = is_punct(p, '(') ? paren_len(p) : 1;
        t->coll = COLL_BINARY;
    } else if (accept_word(p, "VARBINARY")) {
        t->kind = SQL_T_VARBINARY;
        t->len = paren_len(p);
        t->coll = COLL_BINARY;
    } else if (accept_word(p, "TINYTEXT")) { t->kind = SQL_T_TINYTEXT; is_str = true; }
    else if (accept_word(p, "TEXT")) {
        t->kind = SQL_T_TEXT;
        if (is_punct(p, '(')) {
            t->len = paren_len(p);
            /* the smallest type that holds len characters (utf8mb4: 4 bytes each) */
            int64_t bytes = (int64_t)t->len * 4;
            t->kind = bytes < 256 ? SQL_T_TINYTEXT : bytes < 65536 ? SQL_T_TEXT : bytes < (1 << 24) ? SQL_T_MEDIUMTEXT : SQL_T_LONGTEXT;
        }
        is_str = true;
    } else if (accept_word(p, "MEDIUMTEXT")) { t->kind = SQL_T_MEDIUMTEXT; is_str = true; }
    else if (accept_word(p, "LONGTEXT")) { t->kind = SQL_T_LONGTEXT; is_str = true; }
    else if (accept_word(p, "JSON")) { t->kind = SQL_T_LONGTEXT; t->is_json = true; t->coll = COLL_UTF8MB4_BIN; }
    else if (accept_word(p, "LONG")) {
        if (accept_word(p, "VARBINARY")) { t->kind = SQL_T_MEDIUMBLOB; t->coll = COLL_BINARY; }
        else { accept_word(p, "VARCHAR"); t->kind = SQL_T_MEDIUMTEXT; is_str = true; }
    }
    else if (accept_word(p, "TINYBLOB")) { t->kind = SQL_T_TINYBLOB; t->coll = COLL_BINARY; }
    else if (accept_word(p, "BLOB")) {
        t->kind = SQL_T_BLOB;
        t->coll = COLL_BINARY;
        if (is_punct(p, '(')) {
            t->len = paren_len(p);
            t->kind = t->len < 256 ? SQL_T_TINYBLOB : t->len < 65536 ? SQL_T_BLOB : t->len < (1 << 24) ? SQL_T_MEDIUMBLOB : SQL_T_LONGBLOB;
        }
    }
    else if (accept_word(p, "MEDIUMBLOB")) { t->kind = SQL_T_MEDIUMBLOB; t->coll = COLL_BINARY; }
    else if (accept_word(p, "LONGBLOB")) { t->kind = SQL_T_LONGBLOB; t->coll = COLL_BINARY; }
    else if (accept_word(p, "DATE")) { t->kind = SQL_T_DATE; }
    else if (accept_word(p, "DATETIME") || accept_word(p, "TIMESTAMP") || accept_word(p, "TIME")) {
        char c = (char)toupper((unsigned char)w[4]); /* dateTime / timEstamp: w[4]='T' DATETIME, 'S' TIMESTAMP */
        t->kind = c == 'T' ? SQL_T_DATETIME : c == 'S' ? SQL_T_TIMESTAMP : SQL_T_TIME;
        t->scale = 0;
        if (is_punct(p, '('))
            t->scale = paren_len(p);
    } else if (accept_word(p, "YEAR")) {
        t->kind = SQL_T_YEAR;
        t->len = 4;
        if (is_punct(p, '('))
            t->len = paren_len(p);
    } else if (is_word(p, "ENUM") || is_word(p, "SET")) {
        t->kind = is_word(p, "ENUM") ? SQL_T_ENUM : SQL_T_SET;
        next(p);
        expect_punct(p, '(');
        vec_t v = {0}, l = {0};
        do {
            size_t n;
            *(const char **)vec_push(p, &v, sizeof(char *)) = string_lit(p, &n);
            *(uint32_t *)vec_push(p, &l, sizeof(uint32_t)) = (uint32_t)n;
        } while (accept_punct(p, ','));
        expect_punct(p, ')');
        t->elems = v.items;
        t->elem_lens = l.items;
        t->nelems = v.n;
        is_str = true;
    } else {
        syntax_error(p);
    }
    if (is_int || t->kind == SQL_T_DECIMAL || t->kind == SQL_T_FLOAT || t->kind == SQL_T_DOUBLE) {
        for (;;) {
            if (accept_word(p, "UNSIGNED")) t->is_unsigned = true;
            else if (accept_word(p, "SIGNED")) ;
            else if (accept_word(p, "ZEROFILL")) { t->zerofill = true; t->is_unsigned = true; }
            else break;
        }
        if (is_int && t->len < 0)
            t->len = default_int_width(t->kind, t->is_unsigned && !t->zerofill ? true : t->is_unsigned);
    }
    if (is_str)
        type_charset_opts(p, t);
    if (is_str && is_word(p, "COLLATE")) {
        next(p);
        const char *cl = ident_or_text(p);
        t->collation = lower_dup(p, cl, strlen(cl));
    }
    type_resolve_coll(p, t);
}

/* ---------------------------------------------------------------- column and index definitions */

static bool is_now_word(parser_t *p)
{
    return is_word(p, "CURRENT_TIMESTAMP") || is_word(p, "NOW") || is_word(p, "LOCALTIME") ||
           is_word(p, "LOCALTIMESTAMP");
}

/* CURRENT_TIMESTAMP [( [n] )] / NOW([n]): n, or -1 when not written (the column's precision, as MariaDB). */
static int now_value(parser_t *p)
{
    bool must_paren = is_word(p, "NOW");
    int fsp = -1;
    next(p);
    if (accept_punct(p, '(')) {
        if (p->tok.type == TK_INT) {
            unsigned long n = strtoul(p->tok.text, NULL, 10);
            fsp = n > 6 ? 7 : (int)n;
            next(p);
        }
        expect_punct(p, ')');
    } else if (must_paren) {
        syntax_error(p);
    }
    return fsp;
}

static sql_expr_t *default_value(parser_t *p)
{
    const char *start = p->tok.start;
    if (accept_punct(p, '(')) {
        sql_expr_t *e = expr(p);
        expect_punct(p, ')');
        return e;
    }
    if (p->tok.type == TK_STRING || p->tok.type == TK_NSTRING) {
        const char *first_text = p->tok.text;
        size_t first_len = p->tok.text_len, n;
        const char *s = string_lit(p, &n);
        return literal_value(p, value_str(s, n, COLL_DEFAULT), start, first_text, first_len);
    }
    if ((is_punct(p, '-') || is_punct(p, '+')) &&
        (peek2(p)->type == TK_INT || peek2(p)->type == TK_DECIMAL || peek2(p)->type == TK_FLOAT)) {
        bool neg = is_punct(p, '-');
        next(p);
        sql_expr_t *n = number_literal(p);
        return neg ? mk_unary(p, SQL_OP_NEG, n, start) : n;
    }
    return simple_expr(p);
}

/* The options after a column's type.  Stops at ',' or ')' (or the end, for ALTER TABLE). */
static void fk_references(parser_t *p, sql_index_def_t *ix);

static void column_options(parser_t *p, sql_column_def_t *c)
{
    /* MariaDB's grammar takes either attributes or a generation clause after the type, not both: after AS (expr)
     * only UNIQUE [KEY], COMMENT, INVISIBLE and CHECK follow; an attribute before AS is a syntax error there */
    bool attrs = false;
    for (;;) {
        if (c->generated && !is_word(p, "UNIQUE") && !is_word(p, "COMMENT") && !is_word(p, "INVISIBLE") &&
            !is_word(p, "CHECK"))
            return;
        bool charset = is_word(p, "CHARACTER") || is_word(p, "CHARSET") || is_word(p, "COLLATE");
        if (!charset && !is_word(p, "GENERATED") && !is_word(p, "AS"))
            attrs = true;
        if (accept_word(p, "NOT")) {
            expect_word(p, "NULL");
            c->nullable = SQL_NULL_NOT_NULL;
        } else if (accept_word(p, "NULL")) {
            c->nullable = SQL_NULL_NULL;
        } else if (accept_word(p, "DEFAULT")) {
            c->default_now = false;
            c->default_expr = NULL;
            if (is_now_word(p)) {
                c->default_now = true;
                c->default_now_fsp = (int8_t)now_value(p);
            } else {
                c->default_expr = default_value(p);
            }
        } else if (accept_word(p, "ON")) {
            expect_word(p, "UPDATE");
            if (!is_now_word(p))
                syntax_error(p);
            c->on_update_fsp = (int8_t)now_value(p);
            c->on_update_now = true;
        } else if (accept_word(p, "AUTO_INCREMENT")) {
            c->auto_increment = true;
        } else if (accept_word(p, "PRIMARY")) {
            expect_word(p, "KEY");
            c->primary_key = true;
        } else if (accept_word(p, "KEY")) {
            c->primary_key = true;
        } else if (accept_word(p, "UNIQUE")) {
            accept_word(p, "KEY");
            c->unique_key = true;
        } else if (accept_word(p, "COMMENT")) {
            c->comment = string_lit(p, NULL);
        } else if ((is_word(p, "CHARACTER") && tok_is_word(peek2(p), "SET")) || is_word(p, "CHARSET")) {
            if (accept_word(p, "CHARACTER")) next(p); else next(p);
            const char *cs = charset_name(p);
            c->type.charset = lower_dup(p, cs, strlen(cs));
            c->type.coll = -1;
            type_resolve_coll(p, &c->type);
        } else if (accept_word(p, "COLLATE")) {
            const char *cl = ident_or_text(p);
            c->type.collation = lower_dup(p, cl, strlen(cl));
            c->type.coll = -1;
            type_resolve_coll(p, &c->type);
        } else if (is_word(p, "GENERATED") || is_word(p, "AS")) {
            if (attrs)
                syntax_error(p);
            if (accept_word(p, "GENERATED"))
                expect_word(p, "ALWAYS");
            expect_word(p, "AS");
            expect_punct(p, '(');
            c->generated = expr(p);
            expect_punct(p, ')');
            if (accept_word(p, "STORED") || accept_word(p, "PERSISTENT"))
                c->generated_stored = true;
            else
                accept_word(p, "VIRTUAL");
        } else if (accept_word(p, "INVISIBLE")) {
            c->invisible = true;
        } else if (accept_word(p, "SERIAL")) {
            expect_word(p, "DEFAULT");
            expect_word(p, "VALUE");
            c->auto_increment = true;
            c->nullable = SQL_NULL_NOT_NULL;
            c->unique_key = true;
        } else if (accept_word(p, "COLUMN_FORMAT")) {
            opt_word(p);
        } else if (accept_word(p, "STORAGE")) {
            if (!accept_word(p, "DISK") && !accept_word(p, "MEMORY"))
                expect_word(p, "DEFAULT");
        } else if (accept_word(p, "CHECK")) {
            expect_punct(p, '(');
            sql_expr_t *ck = expr(p);
            expect_punct(p, ')');
            /* LONGTEXT ... CHECK (json_valid(`c`)) on its own column is MariaDB's JSON type as SHOW CREATE TABLE
             * and mariadb-dump write it: it is the JSON type again, not a second check */
            if (c->type.kind == SQL_T_LONGTEXT && ck->kind == SQL_E_FUNC && ck->func.fn == SQL_FN_JSON_VALID &&
                ck->nargs == 1 && ck->args[0]->kind == SQL_E_COLUMN && !ck->args[0]->col.table &&
                c->name && strcasecmp(ck->args[0]->col.name, c->name) == 0)
                c->type.is_json = true;
            else
                c->check = ck;
        } else if (is_word(p, "REFERENCES")) {
            /* column-level REFERENCES: a foreign key on this column (MariaDB 10.5+) */
            sql_index_def_t *ix = alloc(p, sizeof *ix);
            ix->kind = SQL_INDEX_FOREIGN;
            ix->cols = alloc(p, sizeof *ix->cols);
            ix->cols[0].name = c->name;
            ix->cols[0].prefix_len = -1;
            ix->ncols = 1;
            fk_references(p, ix);
            c->references = ix;
        } else {
            return;
        }
    }
}

static void column_def(parser_t *p, sql_column_def_t *c)
{
    memset(c, 0, sizeof *c);
    c->name = ident(p);
    data_type(p, &c->type);
    sql_type_t *t = &c->type;
    char msg[256];
    if ((t->kind == SQL_T_DATETIME || t->kind == SQL_T_TIMESTAMP || t->kind == SQL_T_TIME) && t->scale > 6) {
        /* MariaDB's text has no number (errors.def carries MySQL's) */
        snprintf(msg, sizeof msg, "Too big precision specified for '%s'. Maximum is 6", c->name);
        diag_push_msg(p->d, DIAG_ERROR, ER_TOO_BIG_PRECISION, msg);
        longjmp(p->fail, 1);
    }
    if (t->kind == SQL_T_DECIMAL) {
        if (t->len > 65) {
            snprintf(msg, sizeof msg, "Too big precision specified for '%s'. Maximum is 65", c->name);
            diag_push_msg(p->d, DIAG_ERROR, ER_TOO_BIG_PRECISION, msg);
            longjmp(p->fail, 1);
        }
        if (t->scale > 38) {
            snprintf(msg, sizeof msg, "Too big scale specified for '%s'. Maximum is 38", c->name);
            diag_push_msg(p->d, DIAG_ERROR, ER_TOO_BIG_SCALE, msg);
            longjmp(p->fail, 1);
        }
        if (t->len == 0)
            t->len = 10; /* DECIMAL(0) is DECIMAL(10) in MariaDB */
    }
    if ((t->kind == SQL_T_DECIMAL || t->kind == SQL_T_FLOAT || t->kind == SQL_T_DOUBLE) && t->scale > t->len &&
        t->len >= 0) {
        diag_error(p->d, ER_M_BIGGER_THAN_D, c->name);
        longjmp(p->fail, 1);
    }
    if ((t->kind == SQL_T_FLOAT || t->kind == SQL_T_DOUBLE) && t->scale > 30) {
        snprintf(msg, sizeof msg, "Too big scale specified for '%s'. Maximum is 30", c->name);
        diag_push_msg(p->d, DIAG_ERROR, ER_TOO_BIG_SCALE, msg);
        longjmp(p->fail, 1);
    }
    if (t->kind == SQL_T_DOUBLE && t->scale < 0 && t->len > 53) { /* FLOAT(54) */
        diag_error(p->d, ER_WRONG_FIELD_SPEC, c->name);
        longjmp(p->fail, 1);
    }
    if (p->len_over_u32 && (t->kind == SQL_T_VARCHAR || t->kind == SQL_T_VARBINARY || sql_type_blob_max(t->kind))) {
        diag_error(p->d, ER_TOO_BIG_DISPLAYWIDTH, c->name, 4294967295ul);
        longjmp(p->fail, 1);
    }
    if ((t->kind >= SQL_T_TINYINT && t->kind <= SQL_T_BIGINT) || t->kind == SQL_T_FLOAT || t->kind == SQL_T_DOUBLE) {
        if (t->len > 255) {
            diag_error(p->d, ER_TOO_BIG_DISPLAYWIDTH, c->name, 255ul);
            longjmp(p->fail, 1);
        }
    }
    if (t->kind == SQL_T_BIT && t->len > 64) {
        diag_error(p->d, ER_TOO_BIG_DISPLAYWIDTH, c->name, 64ul);
        longjmp(p->fail, 1);
    }
    if ((t->kind == SQL_T_CHAR || t->kind == SQL_T_BINARY) && t->len > 255) {
        diag_error(p->d, ER_TOO_BIG_FIELDLENGTH, c->name, 255ul);
        longjmp(p->fail, 1);
    }
    if (c->type.is_serial) {
        c->auto_increment = true;
        c->nullable = SQL_NULL_NOT_NULL;
        c->unique_key = true;
    }
    column_options(p, c);
}

static void column_position(parser_t *p, sql_column_def_t *c)
{
    if (accept_word(p, "FIRST"))
        c->first = true;
    else if (accept_word(p, "AFTER"))
        c->after = ident(p);
}

static void index_type_opt(parser_t *p, sql_index_def_t *ix)
{
    if (accept_word(p, "USING") || accept_word(p, "TYPE")) {
        const char *w = opt_word(p);
        ix->using_type = upper_dup(p, w, strlen(w));
    }
}

static void index_col_list(parser_t *p, sql_index_def_t *ix)
{
    expect_punct(p, '(');
    vec_t v = {0};
    do {
        sql_index_col_t *c = vec_push(p, &v, sizeof *c);
        c->name = ident(p);
        c->prefix_len = -1;
        if (is_punct(p, '('))
            c->prefix_len = paren_len(p);
        if (accept_word(p, "DESC"))
            c->desc = true;
        else
            accept_word(p, "ASC");
    } while (accept_punct(p, ','));
    expect_punct(p, ')');
    ix->cols = v.items;
    ix->ncols = v.n;
}

static void index_options(parser_t *p, sql_index_def_t *ix)
{
    for (;;) {
        if (is_word(p, "USING") || is_word(p, "TYPE")) index_type_opt(p, ix);
        else if (accept_word(p, "COMMENT")) ix->comment = string_lit(p, NULL);
        else if (accept_word(p, "KEY_BLOCK_SIZE")) { accept_punct(p, '='); uint_value(p); }
        else if (accept_word(p, "VISIBLE") || accept_word(p, "INVISIBLE") || accept_word(p, "CLUSTERING")) {
            if (is_punct(p, '=')) { next(p); opt_word(p); }
        }
        else if (accept_word(p, "WITH")) { expect_word(p, "PARSER"); ident(p); }
        else return;
    }
}

/* An optional index name: an identifier that is not USING / '(' */
static const char *opt_index_name(parser_t *p)
{
    if (is_ident(p) && !is_word(p, "USING") && !is_word(p, "TYPE"))
        return ident(p);
    return NULL;
}

static sql_fk_action_t fk_action(parser_t *p)
{
    if (accept_word(p, "SET")) {
        if (accept_word(p, "NULL"))
            return SQL_FK_SET_NULL;
        expect_word(p, "DEFAULT");
        return SQL_FK_SET_DEFAULT;
    }
    if (accept_word(p, "NO")) {
        expect_word(p, "ACTION");
        return SQL_FK_NO_ACTION;
    }
    if (accept_word(p, "RESTRICT"))
        return SQL_FK_RESTRICT;
    expect_word(p, "CASCADE");
    return SQL_FK_CASCADE;
}

static void fk_references(parser_t *p, sql_index_def_t *ix)
{
    expect_word(p, "REFERENCES");
    ix->ref_table = table_name(p);
    if (accept_punct(p, '(')) {
        vec_t v = {0};
        do *(const char **)vec_push(p, &v, sizeof(char *)) = ident(p); while (accept_punct(p, ','));
        expect_punct(p, ')');
        ix->ref_cols = v.items;
        ix->nref_cols = v.n;
    }
    if (accept_word(p, "MATCH")) {
        if (!accept_word(p, "FULL") && !accept_word(p, "PARTIAL"))
            expect_word(p, "SIMPLE");
    }
    while (accept_word(p, "ON")) {
        if (accept_word(p, "DELETE")) {
            ix->on_delete = fk_action(p);
        } else {
            expect_word(p, "UPDATE");
            ix->on_update = fk_action(p);
        }
    }
}

/*
 * A table-level constraint or index, if the current token starts one: PRIMARY KEY, UNIQUE, KEY/INDEX, FULLTEXT,
 * SPATIAL, FOREIGN KEY, CONSTRAINT [name] ..., CHECK (...) (kind SQL_INDEX_CHECK).  Returns false when it is not
 * one (a column).  *skip is never set now (kept for the callers' shape).
 */
static bool index_def(parser_t *p, sql_index_def_t *ix, bool *skip)
{
    memset(ix, 0, sizeof *ix);
    *skip = false;
    if (accept_word(p, "CONSTRAINT")) {
        if (!is_word(p, "PRIMARY") && !is_word(p, "UNIQUE") && !is_word(p, "FOREIGN") && !is_word(p, "CHECK"))
            ix->constraint = ident(p);
        else
            ix->constraint = "";
        if (!is_word(p, "PRIMARY") && !is_word(p, "UNIQUE") && !is_word(p, "FOREIGN") && !is_word(p, "CHECK"))
            syntax_error(p);
    }
    if (accept_word(p, "PRIMARY")) {
        expect_word(p, "KEY");
        ix->kind = SQL_INDEX_PRIMARY;
        ix->name = "PRIMARY";
        index_type_opt(p, ix);
    } else if (accept_word(p, "UNIQUE")) {
        ix->kind = SQL_INDEX_UNIQUE;
        if (!accept_word(p, "KEY"))
            accept_word(p, "INDEX");
        ix->name = opt_index_name(p);
        if (!ix->name && ix->constraint && ix->constraint[0])
            ix->name = ix->constraint;
        index_type_opt(p, ix);
    } else if (accept_word(p, "KEY") || accept_word(p, "INDEX")) {
        ix->kind = SQL_INDEX_KEY;
        if (is_word(p, "IF")) if_not_exists(p, &ix->if_not_exists);
        ix->name = opt_index_name(p);
        index_type_opt(p, ix);
    } else if (is_word(p, "FULLTEXT") || is_word(p, "SPATIAL")) {
        ix->kind = is_word(p, "FULLTEXT") ? SQL_INDEX_FULLTEXT : SQL_INDEX_SPATIAL;
        next(p);
        if (!accept_word(p, "KEY"))
            accept_word(p, "INDEX");
        ix->name = opt_index_name(p);
    } else if (accept_word(p, "FOREIGN")) {
        expect_word(p, "KEY");
        ix->kind = SQL_INDEX_FOREIGN;
        if (is_word(p, "IF")) if_not_exists(p, &ix->if_not_exists);
        ix->name = opt_index_name(p);
        if (!ix->name && ix->constraint && ix->constraint[0])
            ix->name = ix->constraint;
        index_col_list(p, ix);
        fk_references(p, ix);
        return true;
    } else if (accept_word(p, "CHECK")) {
        ix->kind = SQL_INDEX_CHECK;
        ix->name = ix->constraint && ix->constraint[0] ? ix->constraint : NULL;
        expect_punct(p, '(');
        ix->check = expr(p);
        expect_punct(p, ')');
        return true;
    } else {
        if (ix->constraint)
            syntax_error(p);
        return false;
    }
    index_col_list(p, ix);
    index_options(p, ix);
    return true;
}

/* ---------------------------------------------------------------- table options */

static bool table_option(parser_t *p, sql_table_options_t *o)
{
    if (accept_word(p, "ENGINE") || accept_word(p, "TYPE")) {
        accept_punct(p, '=');
        o->engine = opt_word(p);
        o->set |= SQL_TOPT_ENGINE;
        return true;
    }
    if (is_word(p, "DEFAULT") && (tok_is_word(peek2(p), "CHARSET") || tok_is_word(peek2(p), "CHARACTER") ||
                                  tok_is_word(peek2(p), "COLLATE")))
        next(p);
    if ((is_word(p, "CHARACTER") && tok_is_word(peek2(p), "SET")) || is_word(p, "CHARSET")) {
        if (accept_word(p, "CHARACTER")) next(p); else next(p);
        accept_punct(p, '=');
        const char *cs = is_word(p, "DEFAULT") ? (next(p), "default") : charset_name(p);
        o->charset = lower_dup(p, cs, strlen(cs));
        if (strcmp(o->charset, "default") != 0) {
            int c = charset_name_coll(p, o->charset);
            if (!(o->set & SQL_TOPT_COLLATE))
                o->coll = c;
        }
        o->set |= SQL_TOPT_CHARSET;
        return true;
    }
    if (accept_word(p, "COLLATE")) {
        accept_punct(p, '=');
        const char *cl = is_word(p, "DEFAULT") ? (next(p), "default") : ident_or_text(p);
        o->collation = lower_dup(p, cl, strlen(cl));
        if (strcmp(o->collation, "default") != 0)
            o->coll = collation_coll(p, o->collation);
        o->set |= SQL_TOPT_COLLATE;
        return true;
    }
    if (accept_word(p, "AUTO_INCREMENT")) {
        accept_punct(p, '=');
        o->auto_increment = uint_value(p);
        o->set |= SQL_TOPT_AUTO_INCREMENT;
        return true;
    }
    if (accept_word(p, "COMMENT")) {
        accept_punct(p, '=');
        o->comment = string_lit(p, NULL);
        o->set |= SQL_TOPT_COMMENT;
        return true;
    }
    if (accept_word(p, "ROW_FORMAT")) {
        accept_punct(p, '=');
        const char *w = opt_word(p);
        o->row_format = upper_dup(p, w, strlen(w));
        o->set |= SQL_TOPT_ROW_FORMAT;
        return true;
    }
    if (accept_word(p, "TABLESPACE")) {
        accept_punct(p, '=');
        o->tablespace = ident(p);
        o->set |= SQL_TOPT_TABLESPACE;
        if (is_word(p, "STORAGE"))
            goto storage;
        return true;
    }
    if (is_word(p, "STORAGE")) {
    storage:
        next(p);
        if (accept_word(p, "DISK")) o->storage = SQL_STORAGE_DISK;
        else if (accept_word(p, "MEMORY")) o->storage = SQL_STORAGE_MEMORY;
        else expect_word(p, "DEFAULT");
        o->set |= SQL_TOPT_STORAGE;
        return true;
    }
    static const char *const others[] = {
        "AVG_ROW_LENGTH", "CHECKSUM", "TABLE_CHECKSUM", "DELAY_KEY_WRITE", "KEY_BLOCK_SIZE", "MAX_ROWS",
        "MIN_ROWS", "PACK_KEYS", "STATS_AUTO_RECALC", "STATS_PERSISTENT", "STATS_SAMPLE_PAGES", "PAGE_CHECKSUM",
        "TRANSACTIONAL", "INSERT_METHOD", "ENCRYPTED", "ENCRYPTION_KEY_ID", "PAGE_COMPRESSED",
        "PAGE_COMPRESSION_LEVEL", "SEQUENCE", "PASSWORD", "CONNECTION", "IETF_QUOTES", "COMPRESSION",
        "ENCRYPTION", "MAX_ROWS",
    };
    for (size_t i = 0; i < ARRAY_LEN(others); i++)
        if (accept_word(p, others[i])) {
            accept_punct(p, '=');
            if (p->tok.type == TK_INT || p->tok.type == TK_STRING || p->tok.type == TK_WORD || p->tok.type == TK_QIDENT)
                next(p);
            else
                syntax_error(p);
            o->set |= SQL_TOPT_OTHER;
            return true;
        }
    if ((is_word(p, "DATA") || is_word(p, "INDEX")) && tok_is_word(peek2(p), "DIRECTORY")) {
        next(p);
        next(p);
        accept_punct(p, '=');
        string_lit(p, NULL);
        o->set |= SQL_TOPT_OTHER;
        return true;
    }
    if (accept_word(p, "UNION")) {
        accept_punct(p, '=');
        expect_punct(p, '(');
        do table_name(p); while (accept_punct(p, ','));
        expect_punct(p, ')');
        o->set |= SQL_TOPT_OTHER;
        return true;
    }
    return false;
}

static void table_options(parser_t *p, sql_table_options_t *o)
{
    if (!table_option(p, o))
        return;
    for (;;) {
        if (is_punct(p, ',')) {
            next(p);
            if (!table_option(p, o))
                syntax_error(p);
        } else if (!table_option(p, o)) {
            return;
        }
    }
}

/* PARTITION BY ...: not supported; a clear error rather than a silent ignore */
static void no_partitions(parser_t *p)
{
    if (is_word(p, "PARTITION")) {
        diag_error(p->d, ER_NOT_SUPPORTED_YET, "PARTITION BY");
        longjmp(p->fail, 1);
    }
}

/* ---------------------------------------------------------------- DDL statements */

/* CREATE [OR REPLACE] [TEMPORARY] TABLE (after TABLE) */
static void create_table_stmt(parser_t *p, sql_stmt_t *st, bool or_replace, bool temporary)
{
    sql_create_table_t *ct = alloc(p, sizeof *ct);
    st->kind = SQL_STMT_CREATE_TABLE;
    st->create_table = ct;
    ct->or_replace = or_replace;
    ct->temporary = temporary;
    ct->opts.coll = -1;
    create_if_not_exists(p, or_replace, &ct->if_not_exists);
    ct->table = table_name(p);
    if (accept_word(p, "LIKE")) {
        ct->like = table_name(p);
        return;
    }
    if (is_punct(p, '(') && tok_is_word(peek2(p), "LIKE")) {
        next(p);
        next(p);
        ct->like = table_name(p);
        expect_punct(p, ')');
        return;
    }
    if (is_punct(p, '(') && !(peek2(p)->type == TK_WORD && (tok_is_word(peek2(p), "SELECT")))) {
        next(p);
        vec_t cols = {0}, idx = {0};
        do {
            sql_index_def_t ix;
            bool skip;
            if (index_def(p, &ix, &skip)) {
                if (!skip)
                    *(sql_index_def_t *)vec_push(p, &idx, sizeof ix) = ix;
            } else {
                column_def(p, vec_push(p, &cols, sizeof(sql_column_def_t)));
            }
        } while (accept_punct(p, ','));
        expect_punct(p, ')');
        ct->cols = cols.items;
        ct->ncols = cols.n;
        ct->indexes = idx.items;
        ct->nindexes = idx.n;
    }
    table_options(p, &ct->opts);
    no_partitions(p);
    if (accept_word(p, "IGNORE")) ct->dup = SQL_DUP_IGNORE;
    else if (accept_word(p, "REPLACE")) ct->dup = SQL_DUP_REPLACE;
    bool as = accept_word(p, "AS");
    if (is_word(p, "SELECT") || is_punct(p, '(')) {
        ct->as_select = select_body(p);
    } else if (as || ct->dup != SQL_DUP_ERROR) {
        syntax_error(p);
    }
    if (ct->ncols == 0 && !ct->as_select) {
        /* MariaDB: a table must have some visible column */
        diag_error(p->d, ER_TABLE_MUST_HAVE_COLUMNS);
        longjmp(p->fail, 1);
    }
}

static void database_options(parser_t *p, sql_database_stmt_t *db)
{
    for (;;) {
        accept_word(p, "DEFAULT");
        if ((is_word(p, "CHARACTER") && tok_is_word(peek2(p), "SET")) || is_word(p, "CHARSET")) {
            if (accept_word(p, "CHARACTER")) next(p); else next(p);
            accept_punct(p, '=');
            const char *cs = charset_name(p);
            db->charset = lower_dup(p, cs, strlen(cs));
            int c = charset_name_coll(p, db->charset);
            if (!db->collation)
                db->coll = c;
        } else if (accept_word(p, "COLLATE")) {
            accept_punct(p, '=');
            const char *cl = ident_or_text(p);
            db->collation = lower_dup(p, cl, strlen(cl));
            db->coll = collation_coll(p, db->collation);
        } else if (accept_word(p, "COMMENT")) {
            accept_punct(p, '=');
            db->comment = string_lit(p, NULL);
        } else {
            return;
        }
    }
}

static void tablespace_opts(parser_t *p, sql_tablespace_stmt_t *ts)
{
    for (;;) {
        if (accept_word(p, "INITIAL_SIZE")) { accept_punct(p, '='); ts->initial_size = size_value(p); ts->set |= SQL_TS_INITIAL_SIZE; }
        else if (accept_word(p, "UNDO_BUFFER_SIZE")) { accept_punct(p, '='); ts->undo_buffer_size = size_value(p); ts->set |= SQL_TS_UNDO_BUFFER_SIZE; }
        else if (accept_word(p, "REDO_BUFFER_SIZE")) { accept_punct(p, '='); ts->redo_buffer_size = size_value(p); ts->set |= SQL_TS_REDO_BUFFER_SIZE; }
        else if (accept_word(p, "EXTENT_SIZE")) { accept_punct(p, '='); ts->extent_size = size_value(p); ts->set |= SQL_TS_EXTENT_SIZE; }
        else if (accept_word(p, "AUTOEXTEND_SIZE")) { accept_punct(p, '='); ts->autoextend_size = size_value(p); ts->set |= SQL_TS_AUTOEXTEND_SIZE; }
        else if (accept_word(p, "MAX_SIZE")) { accept_punct(p, '='); ts->max_size = size_value(p); ts->set |= SQL_TS_MAX_SIZE; }
        else if (accept_word(p, "FILE_BLOCK_SIZE")) { accept_punct(p, '='); ts->file_block_size = size_value(p); ts->set |= SQL_TS_FILE_BLOCK_SIZE; }
        else if (accept_word(p, "NODEGROUP")) { accept_punct(p, '='); ts->nodegroup = (int64_t)uint_value(p); ts->set |= SQL_TS_NODEGROUP; }
        else if (accept_word(p, "WAIT") || accept_word(p, "NO_WAIT")) ts->set |= SQL_TS_WAIT;
        else if (accept_word(p, "COMMENT")) { accept_punct(p, '='); ts->comment = string_lit(p, NULL); ts->set |= SQL_TS_COMMENT; }
        else if (is_word(p, "STORAGE") && tok_is_word(peek2(p), "ENGINE")) { next(p); next(p); ts->engine = opt_eq_ident_or_text(p); }
        else if (accept_word(p, "ENGINE")) ts->engine = opt_eq_ident_or_text(p);
        else return;
        accept_punct(p, ',');
    }
}

/* CREATE LOGFILE GROUP lg ADD UNDOFILE 'f' ... (after GROUP) */
static void logfile_group_stmt(parser_t *p, sql_stmt_t *st, bool create)
{
    sql_tablespace_stmt_t *ts = &st->tablespace;
    st->kind = create ? SQL_STMT_CREATE_LOGFILE_GROUP : SQL_STMT_DROP_LOGFILE_GROUP;
    ts->name = ident(p);
    if (create) {
        expect_word(p, "ADD");
        if (!accept_word(p, "UNDOFILE"))
            expect_word(p, "REDOFILE");
        ts->add = true;
        ts->undo = true;
        ts->file = string_lit(p, NULL);
    }
    tablespace_opts(p, ts);
}

/* CREATE|ALTER|DROP TABLESPACE (after TABLESPACE) */
static void tablespace_stmt(parser_t *p, sql_stmt_t *st, sql_stmt_kind_t kind)
{
    sql_tablespace_stmt_t *ts = &st->tablespace;
    st->kind = kind;
    ts->name = ident(p);
    if (kind == SQL_STMT_CREATE_TABLESPACE) {
        if (accept_word(p, "ADD")) {
            expect_word(p, "DATAFILE");
            ts->add = true;
            ts->file = string_lit(p, NULL);
        }
        if (accept_word(p, "USE")) {
            expect_word(p, "LOGFILE");
            expect_word(p, "GROUP");
            ts->logfile_group = ident(p);
        }
    } else if (kind == SQL_STMT_ALTER_TABLESPACE) {
        if (accept_word(p, "ADD")) ts->add = true;
        else expect_word(p, "DROP");
        expect_word(p, "DATAFILE");
        ts->file = string_lit(p, NULL);
    }
    tablespace_opts(p, ts);
}

static void index_stmt_create(parser_t *p, sql_stmt_t *st, bool or_replace, sql_index_kind_t kind)
{
    /* after INDEX */
    sql_index_stmt_t *is = &st->index;
    st->kind = SQL_STMT_CREATE_INDEX;
    is->or_replace = or_replace;
    is->index.kind = kind;
    create_if_not_exists(p, or_replace, &is->index.if_not_exists);
    is->index.name = ident(p);
    index_type_opt(p, &is->index);
    expect_word(p, "ON");
    is->table = table_name(p);
    index_col_list(p, &is->index);
    index_options(p, &is->index);
    for (;;) {
        if (accept_word(p, "ALGORITHM"))
            alter_algorithm_or_lock(p, false, &is->algorithm, &is->lock);
        else if (accept_word(p, "LOCK"))
            alter_algorithm_or_lock(p, true, &is->algorithm, &is->lock);
        else
            break;
    }
}

static sql_alter_action_t *push_action(parser_t *p, vec_t *v, sql_alter_kind_t k)
{
    sql_alter_action_t *a = vec_push(p, v, sizeof *a);
    a->kind = k;
    return a;
}

/* ALTER [ONLINE] [IGNORE] TABLE t action, action ... (after TABLE) */
static void alter_table_stmt(parser_t *p, sql_stmt_t *st, bool ignore)
{
    sql_alter_table_t *at = alloc(p, sizeof *at);
    st->kind = SQL_STMT_ALTER_TABLE;
    st->alter_table = at;
    at->ignore = ignore;
    at->opts.coll = -1;
    at->table = table_name(p);
    vec_t v = {0};
    if (at_end(p))
        goto done;
    do {
        sql_index_def_t ix;
        bool skip;
        if (accept_word(p, "ADD")) {
            if (index_def(p, &ix, &skip)) {
                if (!skip) {
                    sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_ADD_INDEX);
                    a->index = ix;
                }
                continue;
            }
            accept_word(p, "COLUMN");
            bool ine = false;
            if (is_word(p, "IF"))
                if_not_exists(p, &ine);
            if (accept_punct(p, '(')) {
                do {
                    if (index_def(p, &ix, &skip)) {
                        if (!skip) push_action(p, &v, SQL_ALTER_ADD_INDEX)->index = ix;
                        continue;
                    }
                    sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_ADD_COLUMN);
                    column_def(p, &a->col);
                    a->if_not_exists = ine;
                } while (accept_punct(p, ','));
                expect_punct(p, ')');
            } else {
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_ADD_COLUMN);
                column_def(p, &a->col);
                column_position(p, &a->col);
                a->if_not_exists = ine;
            }
        } else if (accept_word(p, "DROP")) {
            if (accept_word(p, "PRIMARY")) {
                expect_word(p, "KEY");
                push_action(p, &v, SQL_ALTER_DROP_PRIMARY_KEY);
            } else if (accept_word(p, "INDEX") || accept_word(p, "KEY")) {
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_DROP_INDEX);
                if_exists(p, &a->if_exists);
                a->name = ident(p);
            } else if (accept_word(p, "FOREIGN")) {
                expect_word(p, "KEY");
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_DROP_FOREIGN_KEY);
                if_exists(p, &a->if_exists);
                a->name = ident(p);
            } else if (accept_word(p, "CONSTRAINT")) {
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_DROP_CONSTRAINT);
                if_exists(p, &a->if_exists);
                a->name = ident(p);
            } else {
                accept_word(p, "COLUMN");
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_DROP_COLUMN);
                if_exists(p, &a->if_exists);
                a->name = ident(p);
                if (!accept_word(p, "RESTRICT"))
                    accept_word(p, "CASCADE");
            }
        } else if (accept_word(p, "MODIFY")) {
            accept_word(p, "COLUMN");
            sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_MODIFY_COLUMN);
            if_exists(p, &a->if_exists);
            column_def(p, &a->col);
            column_position(p, &a->col);
            a->name = a->col.name;
        } else if (accept_word(p, "CHANGE")) {
            accept_word(p, "COLUMN");
            sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_CHANGE_COLUMN);
            if_exists(p, &a->if_exists);
            a->name = ident(p);
            column_def(p, &a->col);
            column_position(p, &a->col);
        } else if (accept_word(p, "ALTER")) {
            accept_word(p, "COLUMN");
            sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_ALTER_DEFAULT);
            a->name = ident(p);
            if (accept_word(p, "SET")) {
                expect_word(p, "DEFAULT");
                a->default_expr = default_value(p);
            } else {
                expect_word(p, "DROP");
                expect_word(p, "DEFAULT");
            }
        } else if (accept_word(p, "RENAME")) {
            if (accept_word(p, "COLUMN")) {
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_RENAME_COLUMN);
                a->name = ident(p);
                expect_word(p, "TO");
                a->new_name.name = ident(p);
            } else if (accept_word(p, "INDEX") || accept_word(p, "KEY")) {
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_RENAME_INDEX);
                a->name = ident(p);
                expect_word(p, "TO");
                a->new_name.name = ident(p);
            } else {
                if (!accept_word(p, "TO"))
                    accept_word(p, "AS");
                sql_alter_action_t *a = push_action(p, &v, SQL_ALTER_RENAME);
                a->new_name = table_name(p);
            }
        } else if (accept_word(p, "DISABLE")) {
            expect_word(p, "KEYS");
            push_action(p, &v, SQL_ALTER_DISABLE_KEYS);
        } else if (accept_word(p, "ENABLE")) {
            expect_word(p, "KEYS");
            push_action(p, &v, SQL_ALTER_ENABLE_KEYS);
        } else if (accept_word(p, "CONVERT")) {
            expect_word(p, "TO");
            if (!accept_word(p, "CHARSET")) {
                expect_word(p, "CHARACTER");
                expect_word(p, "SET");
            }
            const char *cs = charset_name(p);
            at->opts.charset = lower_dup(p, cs, strlen(cs));
            at->opts.coll = charset_name_coll(p, at->opts.charset);
            at->opts.set |= SQL_TOPT_CHARSET;
            if (accept_word(p, "COLLATE")) {
                const char *cl = ident_or_text(p);
                at->opts.collation = lower_dup(p, cl, strlen(cl));
                at->opts.coll = collation_coll(p, at->opts.collation);
                at->opts.set |= SQL_TOPT_COLLATE;
            }
            push_action(p, &v, SQL_ALTER_CONVERT_CHARSET);
        } else if (accept_word(p, "FORCE")) {
            push_action(p, &v, SQL_ALTER_FORCE);
        } else if (accept_word(p, "ORDER")) {
            expect_word(p, "BY");
            uint32_t n;
            order_list(p, &n);
            push_action(p, &v, SQL_ALTER_ORDER_BY);
        } else if (accept_word(p, "ALGORITHM")) {
            alter_algorithm_or_lock(p, false, &at->algorithm, &at->lock);
        } else if (accept_word(p, "LOCK")) {
            alter_algorithm_or_lock(p, true, &at->algorithm, &at->lock);
        } else if (table_option(p, &at->opts)) {
            while (table_option(p, &at->opts))
                ;
            push_action(p, &v, SQL_ALTER_OPTIONS);
        } else {
            syntax_error(p);
        }
    } while (accept_punct(p, ','));
    no_partitions(p);
done:
    at->actions = v.items;
    at->nactions = v.n;
}

/* ---------------------------------------------------------------- DML statements */

static sql_expr_t *column_name_expr(parser_t *p)
{
    return column_ref(p, p->tok.start);
}

static sql_assign_t *assign_list(parser_t *p, uint32_t *n)
{
    vec_t v = {0};
    do {
        sql_assign_t *a = vec_push(p, &v, sizeof *a);
        a->col = column_name_expr(p);
        if (!accept_punct(p, '='))
            expect_punct(p, P_ASSIGN);
        if (is_word(p, "DEFAULT") && !(peek2(p)->type == TK_PUNCT && peek2(p)->op == '(')) {
            a->value = new_expr(p, SQL_E_DEFAULT, p->tok.start);
            next(p);
            finish(p, a->value);
        } else {
            a->value = expr(p);
        }
    } while (accept_punct(p, ','));
    *n = v.n;
    return v.items;
}

static sql_expr_t *value_or_default(parser_t *p)
{
    if (is_word(p, "DEFAULT") && !(peek2(p)->type == TK_PUNCT && peek2(p)->op == '(')) {
        sql_expr_t *e = new_expr(p, SQL_E_DEFAULT, p->tok.start);
        next(p);
        finish(p, e);
        return e;
    }
    return expr(p);
}

/* RETURNING select_expr [[AS] alias], ... (INSERT / REPLACE / DELETE): `*` only as the first item, as MariaDB */
static sql_select_item_t *returning_list(parser_t *p, uint32_t *n)
{
    vec_t items = {0};
    do {
        sql_select_item_t *it = vec_push(p, &items, sizeof *it);
        if (is_punct(p, '*')) {
            if (items.n > 1)
                syntax_error(p);
            it->expr = new_expr(p, SQL_E_STAR, p->tok.start);
            next(p);
            finish(p, it->expr);
            continue;
        }
        it->expr = expr(p);
        if (accept_word(p, "AS"))
            it->alias = alias_name(p, true);
        else
            it->alias = alias_name(p, false);
    } while (accept_punct(p, ','));
    *n = items.n;
    return items.items;
}

/* LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t
 * [CHARACTER SET cs] [FIELDS ...] [LINES ...] [IGNORE n {LINES | ROWS}] [(col_or_@var, ...)] [SET col = expr, ...]
 * (after LOAD DATA) */
static void load_stmt(parser_t *p, sql_stmt_t *st)
{
    sql_load_t *ld = alloc(p, sizeof *ld);
    st->kind = SQL_STMT_LOAD_DATA;
    st->load = ld;
    if (!accept_word(p, "LOW_PRIORITY"))
        accept_word(p, "CONCURRENT");
    ld->local = accept_word(p, "LOCAL");
    expect_word(p, "INFILE");
    ld->file = string_lit(p, NULL);
    if (accept_word(p, "REPLACE"))
        ld->dup = SQL_DUP_REPLACE;
    else if (accept_word(p, "IGNORE"))
        ld->dup = SQL_DUP_IGNORE;
    expect_word(p, "INTO");
    expect_word(p, "TABLE");
    ld->table = table_name(p);
    if (accept_word(p, "PARTITION")) {
        diag_error(p->d, ER_NOT_SUPPORTED_YET, "PARTITION");
        longjmp(p->fail, 1);
    }
    export_options(p, &ld->ex, true);
    if (accept_word(p, "IGNORE")) {
        ld->ignore_lines = uint_value(p);
        if (!accept_word(p, "LINES"))
            expect_word(p, "ROWS");
    }
    if (accept_punct(p, '(')) {
        ld->has_targets = true;
        vec_t v = {0};
        if (!is_punct(p, ')')) {
            do {
                sql_expr_t *e;
                if (p->tok.type == TK_USERVAR) {
                    e = new_expr(p, SQL_E_USERVAR, p->tok.start);
                    e->var.name = p->tok.text;
                    next(p);
                    finish(p, e);
                } else {
                    e = column_name_expr(p);
                    if (e->kind != SQL_E_COLUMN)
                        syntax_error(p);
                }
                push_arg(p, &v, e);
            } while (accept_punct(p, ','));
        }
        expect_punct(p, ')');
        ld->targets = v.items;
        ld->ntargets = v.n;
    }
    if (accept_word(p, "SET"))
        ld->set = assign_list(p, &ld->nset);
}

/* INSERT / REPLACE (after the keyword) */
static void insert_stmt(parser_t *p, sql_stmt_t *st, bool replace)
{
    sql_insert_t *in = alloc(p, sizeof *in);
    st->kind = replace ? SQL_STMT_REPLACE : SQL_STMT_INSERT;
    st->insert = in;
    for (;;) {
        if (accept_word(p, "LOW_PRIORITY")) in->priority = SQL_PRIO_LOW;
        else if (accept_word(p, "DELAYED")) in->priority = SQL_PRIO_DELAYED;
        else if (accept_word(p, "HIGH_PRIORITY")) in->priority = SQL_PRIO_HIGH;
        else if (!replace && accept_word(p, "IGNORE")) in->ignore = true;
        else break;
    }
    accept_word(p, "INTO");
    in->table = table_name(p);
    if (accept_word(p, "PARTITION")) {
        diag_error(p->d, ER_NOT_SUPPORTED_YET, "PARTITION");
        longjmp(p->fail, 1);
    }
    if (is_punct(p, '(') && !(peek2(p)->type == TK_WORD && tok_is_word(peek2(p), "SELECT")) &&
        !(peek2(p)->type == TK_PUNCT && peek2(p)->op == '(')) {
        next(p);
        vec_t v = {0};
        if (!is_punct(p, ')')) {
            do {
                /* t.c and db.t.c are accepted: keep the column name */
                sql_expr_t *c = column_name_expr(p);
                if (c->kind != SQL_E_COLUMN)
                    syntax_error(p);
                *(const char **)vec_push(p, &v, sizeof(char *)) = c->col.name;
            } while (accept_punct(p, ','));
        }
        expect_punct(p, ')');
        in->cols = v.items ? v.items : alloc(p, sizeof(char *));
        in->ncols = v.n;
    }
    if (accept_word(p, "VALUES") || accept_word(p, "VALUE")) {
        vec_t rows = {0};
        do {
            sql_row_t *r = vec_push(p, &rows, sizeof *r);
            expect_punct(p, '(');
            vec_t v = {0};
            if (!is_punct(p, ')')) {
                do push_arg(p, &v, value_or_default(p)); while (accept_punct(p, ','));
            }
            expect_punct(p, ')');
            r->vals = v.items;
            r->n = v.n;
        } while (accept_punct(p, ','));
        in->rows = rows.items;
        in->nrows = rows.n;
    } else if (accept_word(p, "SET")) {
        if (in->cols)
            syntax_error(p);
        in->set = assign_list(p, &in->nset);
    } else if (is_word(p, "SELECT") || is_punct(p, '(') || is_word(p, "WITH")) {
        in->select = select_body(p);
    } else if (accept_word(p, "TABLE")) {
        sql_select_t *s = alloc(p, sizeof *s);
        s->items = alloc(p, sizeof *s->items);
        s->items[0].expr = new_expr(p, SQL_E_STAR, p->tok.start);
        s->nitems = 1;
        s->from = alloc(p, sizeof *s->from);
        s->from->kind = SQL_FROM_TABLE;
        s->from->table = table_name(p);
        in->select = s;
    } else {
        syntax_error(p);
    }
    if (accept_word(p, "AS"))
        in->alias = ident(p);
    if (accept_word(p, "ON")) {
        expect_word(p, "DUPLICATE");
        expect_word(p, "KEY");
        expect_word(p, "UPDATE");
        in->on_dup = assign_list(p, &in->non_dup);
    }
    if (accept_word(p, "RETURNING"))
        in->returning = returning_list(p, &in->nreturning);
}

static sql_from_t *table_refs(parser_t *p)
{
    sql_from_t *f = table_ref(p);
    while (accept_punct(p, ',')) {
        sql_from_t *j = alloc(p, sizeof *j);
        j->kind = SQL_FROM_JOIN;
        j->join = SQL_JOIN_CROSS;
        j->left = f;
        j->right = table_ref(p);
        f = j;
    }
    return f;
}

static void update_stmt(parser_t *p, sql_stmt_t *st)
{
    sql_update_t *u = alloc(p, sizeof *u);
    st->kind = SQL_STMT_UPDATE;
    st->update = u;
    for (;;) {
        if (accept_word(p, "LOW_PRIORITY")) u->low_priority = true;
        else if (accept_word(p, "IGNORE")) u->ignore = true;
        else break;
    }
    u->tables = table_refs(p);
    u->multi = u->tables->kind != SQL_FROM_TABLE;
    expect_word(p, "SET");
    u->set = assign_list(p, &u->nset);
    if (accept_word(p, "WHERE"))
        u->where = expr(p);
    if (!u->multi) {
        if (accept_word(p, "ORDER")) {
            expect_word(p, "BY");
            u->order_by = order_list(p, &u->norder_by);
        }
        limit_clause(p, &u->limit);
    }
}

/* tbl[.*] list of multi-table DELETE targets */
static void delete_targets(parser_t *p, sql_delete_t *dl)
{
    vec_t v = {0};
    do {
        sql_name_t *n = vec_push(p, &v, sizeof *n);
        n->name = ident(p);
        if (accept_punct(p, '.')) {
            if (accept_punct(p, '*')) continue;
            n->db = n->name;
            n->name = ident(p);
            if (accept_punct(p, '.'))
                expect_punct(p, '*');
        }
    } while (accept_punct(p, ','));
    dl->targets = v.items;
    dl->ntargets = v.n;
}

static void delete_stmt(parser_t *p, sql_stmt_t *st)
{
    sql_delete_t *dl = alloc(p, sizeof *dl);
    st->kind = SQL_STMT_DELETE;
    st->del = dl;
    for (;;) {
        if (accept_word(p, "LOW_PRIORITY")) dl->low_priority = true;
        else if (accept_word(p, "QUICK")) dl->quick = true;
        else if (accept_word(p, "IGNORE")) dl->ignore = true;
        else break;
    }
    if (accept_word(p, "FROM")) {
        /* DELETE FROM t [[AS] a] ... | DELETE FROM t1[.*], t2 USING refs */
        const char *save_tok_start = p->tok.start;
        (void)save_tok_start;
        sql_name_t first = table_name(p);
        if (is_punct(p, ',') || is_punct(p, '.') || is_word(p, "USING")) {
            vec_t v = {0};
            *(sql_name_t *)vec_push(p, &v, sizeof first) = first;
            if (accept_punct(p, '.'))
                expect_punct(p, '*');
            while (accept_punct(p, ',')) {
                sql_name_t *n = vec_push(p, &v, sizeof *n);
                *n = table_name(p);
                if (accept_punct(p, '.'))
                    expect_punct(p, '*');
            }
            dl->targets = v.items;
            dl->ntargets = v.n;
            expect_word(p, "USING");
            dl->from = table_refs(p);
            dl->multi = true;
        } else {
            dl->from = alloc(p, sizeof *dl->from);
            dl->from->kind = SQL_FROM_TABLE;
            dl->from->table = first;
            if (accept_word(p, "AS"))
                dl->from->alias = ident(p);
            else if (is_ident(p))
                dl->from->alias = ident(p);
        }
    } else {
        delete_targets(p, dl);
        expect_word(p, "FROM");
        dl->from = table_refs(p);
        dl->multi = true;
    }
    if (accept_word(p, "WHERE"))
        dl->where = expr(p);
    if (!dl->multi) {
        if (accept_word(p, "ORDER")) {
            expect_word(p, "BY");
            dl->order_by = order_list(p, &dl->norder_by);
        }
        limit_clause(p, &dl->limit);
        if (accept_word(p, "RETURNING"))
            dl->returning = returning_list(p, &dl->nreturning);
    }
}

/* ---------------------------------------------------------------- GRANT / REVOKE / roles */

static bool is_priv_stop(parser_t *p)
{
    return is_word(p, "ON") || is_word(p, "TO") || is_word(p, "FROM") || is_punct(p, ',') || is_punct(p, '(') ||
           at_end(p);
}

static void priv_list(parser_t *p, sql_grant_t *g)
{
    vec_t v = {0};
    do {
        sql_priv_t *pr = vec_push(p, &v, sizeof *pr);
        if (p->tok.type == TK_STRING || p->tok.type == TK_QIDENT) { /* a quoted role name */
            pr->name = pr->as_written = p->tok.text;
            next(p);
            continue;
        }
        if (p->tok.type != TK_WORD)
            syntax_error(p);
        pr->as_written = p->tok.text;
        /* the words up to ON/TO/FROM/','/'(', upper-cased and joined by one space (arena only: errors longjmp) */
        char *name = NULL;
        size_t len = 0;
        do {
            if (p->tok.type != TK_WORD)
                syntax_error(p);
            char *nn = arena_alloc(p->a, len + p->tok.text_len + 2);
            if (len)
                memcpy(nn, name, len), nn[len++] = ' ';
            for (size_t i = 0; i < p->tok.text_len; i++)
                nn[len++] = (char)toupper((unsigned char)p->tok.text[i]);
            nn[len] = 0;
            name = nn;
            next(p);
        } while (!is_priv_stop(p));
        pr->name = name;
        if (strcmp(pr->name, "ALL PRIVILEGES") == 0)
            pr->name = "ALL";
        if (accept_punct(p, '(')) {
            vec_t c = {0};
            do *(const char **)vec_push(p, &c, sizeof(char *)) = ident(p); while (accept_punct(p, ','));
            expect_punct(p, ')');
            pr->cols = c.items;
            pr->ncols = c.n;
        }
    } while (accept_punct(p, ','));
    g->privs = v.items;
    g->nprivs = v.n;
}

static void grant_target(parser_t *p, sql_grant_t *g)
{
    /* after ON: [TABLE|FUNCTION|PROCEDURE] *.* | * | db.* | db.t | t */
    if (accept_word(p, "TABLE")) g->object_table = true;
    else if (accept_word(p, "FUNCTION") || accept_word(p, "PROCEDURE") || accept_word(p, "PACKAGE")) g->object_routine = true;
    if (accept_punct(p, '*')) {
        if (accept_punct(p, '.')) {
            expect_punct(p, '*');
            g->level = SQL_GRANT_GLOBAL;
        } else {
            g->level = SQL_GRANT_DB;
        }
        return;
    }
    const char *a = ident(p);
    if (accept_punct(p, '.')) {
        g->db = a;
        if (accept_punct(p, '*')) {
            g->level = SQL_GRANT_DB;
            return;
        }
        if (p->tok.type == TK_WORD || p->tok.type == TK_QIDENT) {
            g->table = p->tok.text;
            next(p);
        } else {
            syntax_error(p);
        }
    } else {
        g->table = a;
    }
    g->level = SQL_GRANT_TABLE;
}

static void grant_users(parser_t *p, sql_grant_t *g, bool with_auth)
{
    vec_t v = {0};
    do {
        sql_user_spec_t *u = vec_push(p, &v, sizeof *u);
        user_name(p, &u->user);
        if (with_auth)
            auth_option(p, u);
    } while (accept_punct(p, ','));
    g->users = v.items;
    g->nusers = v.n;
}

static const char *role_name(parser_t *p)
{
    if (is_word(p, "CURRENT_ROLE") || is_word(p, "PUBLIC") || is_word(p, "NONE")) {
        const char *s = p->tok.text;
        next(p);
        return s;
    }
    return ident_or_text(p);
}

static void grant_stmt(parser_t *p, sql_stmt_t *st, bool revoke)
{
    sql_grant_t *g = alloc(p, sizeof *g);
    st->kind = revoke ? SQL_STMT_REVOKE : SQL_STMT_GRANT;
    st->grant = g;
    if (revoke && accept_word(p, "ADMIN")) {
        expect_word(p, "OPTION");
        expect_word(p, "FOR");
        g->admin_option_for = true;
    }
    if (revoke && is_word(p, "ALL")) {
        /* REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users */
        const sql_tok_t *n2 = peek2(p);
        if (tok_is_word(n2, "PRIVILEGES") || (n2->type == TK_PUNCT && n2->op == ',')) {
            next(p);
            accept_word(p, "PRIVILEGES");
            if (accept_punct(p, ',')) {
                expect_word(p, "GRANT");
                expect_word(p, "OPTION");
                g->revoke_all = true;
                expect_word(p, "FROM");
                grant_users(p, g, false);
                return;
            }
            /* REVOKE ALL PRIVILEGES ON ... */
            g->privs = alloc(p, sizeof *g->privs);
            g->privs[0].name = "ALL";
            g->nprivs = 1;
            goto on;
        }
    }
    priv_list(p, g);
on:
    if (accept_word(p, "ON")) {
        grant_target(p, g);
    } else {
        /* role grant: the "privileges" were role names (kept as written in `roles`) */
        g->level = SQL_GRANT_ROLE;
        g->roles = alloc(p, g->nprivs * sizeof(char *));
        for (uint32_t i = 0; i < g->nprivs; i++) {
            if (g->privs[i].ncols || strchr(g->privs[i].name, ' '))
                syntax_error(p);
            g->roles[i] = g->privs[i].as_written;
        }
        g->nroles = g->nprivs;
        g->privs = NULL;
        g->nprivs = 0;
    }
    if (revoke) expect_word(p, "FROM");
    else expect_word(p, "TO");
    grant_users(p, g, !revoke);
    if (!revoke) {
        while (accept_word(p, "WITH")) {
            if (accept_word(p, "GRANT")) { expect_word(p, "OPTION"); g->with_grant_option = true; }
            else if (accept_word(p, "ADMIN")) { expect_word(p, "OPTION"); g->with_admin_option = true; }
            else {
                /* resource limits: MAX_QUERIES_PER_HOUR n ... (MAX_USER_CONNECTIONS kept) */
                do {
                    if (p->tok.type != TK_WORD) syntax_error(p);
                    bool muc = is_word(p, "MAX_USER_CONNECTIONS");
                    next(p);
                    uint64_t n = uint_value(p);
                    if (muc) {
                        g->opts.has_max_user_connections = true;
                        g->opts.max_user_connections = n;
                    }
                } while (p->tok.type == TK_WORD && !is_word(p, "WITH"));
            }
        }
        if (accept_word(p, "REQUIRE")) {
            if (accept_word(p, "NONE")) g->opts.require = 1;
            else if (accept_word(p, "SSL")) g->opts.require = 2;
            else if (accept_word(p, "X509")) g->opts.require = 3;
            else syntax_error(p);
        }
    }
}

/* ---------------------------------------------------------------- EXPLAIN / DESCRIBE */

static void statement(parser_t *p, sql_stmt_t *st);

static void describe_stmt(parser_t *p, sql_stmt_t *st)
{
    /* after DESCRIBE/DESC/EXPLAIN: a table, or a statement */
    if (is_word(p, "SELECT") || is_punct(p, '(') || is_word(p, "INSERT") || is_word(p, "REPLACE") ||
        is_word(p, "UPDATE") || is_word(p, "DELETE") || is_word(p, "EXTENDED") || is_word(p, "PARTITIONS") ||
        is_word(p, "FORMAT") || is_word(p, "ANALYZE")) {
        st->kind = SQL_STMT_EXPLAIN;
        for (;;) {
            if (accept_word(p, "EXTENDED")) st->explain.extended = true;
            else if (accept_word(p, "PARTITIONS")) st->explain.partitions = true;
            else if (accept_word(p, "ANALYZE")) st->explain.analyze = true;
            else if (accept_word(p, "FORMAT")) {
                expect_punct(p, '=');
                const char *f = opt_word(p);
                st->explain.format = arena_strndup(p->a, f, strlen(f)); /* as written: 1791 names it so */
            } else break;
        }
        if (!(is_word(p, "SELECT") || is_punct(p, '(') || is_word(p, "INSERT") || is_word(p, "REPLACE") ||
              is_word(p, "UPDATE") || is_word(p, "DELETE")))
            syntax_error(p);
        sql_stmt_t *inner = alloc(p, sizeof *inner);
        inner->src = p->tok.start;
        statement(p, inner);
        inner->src_len = (size_t)(p->prev_end - inner->src);
        st->explain.stmt = inner;
        return;
    }
    st->kind = SQL_STMT_SHOW;
    st->show.what = SQL_SHOW_COLUMNS;
    st->show.describe = true;
    st->show.table = table_name(p);
    if (p->tok.type == TK_STRING)
        st->show.like = string_lit(p, NULL);
    else if (is_ident(p))
        st->show.like = ident(p);
}


/* ANALYZE|OPTIMIZE|CHECK|REPAIR|CHECKSUM TABLE t1, t2 [options] (after the TABLE keyword) */
static void table_maint_stmt(parser_t *p, sql_stmt_t *st, sql_stmt_kind_t kind, bool local)
{
    st->kind = kind;
    st->tables.local = local;
    vec_t v = {0};
    do *(sql_name_t *)vec_push(p, &v, sizeof(sql_name_t)) = table_name(p); while (accept_punct(p, ','));
    st->tables.tables = v.items;
    st->tables.n = v.n;
    if (kind == SQL_STMT_ANALYZE_TABLE && accept_word(p, "PERSISTENT")) {
        /* PERSISTENT FOR ALL | FOR [COLUMNS (c, ... | ALL)] [INDEXES (i, ... | ALL)]: MariaDB's
         * engine-independent statistics; strata keeps one kind of statistics, computed for every index */
        expect_word(p, "FOR");
        st->tables.persistent = true;
        if (!accept_word(p, "ALL")) {
            bool any = false;
            for (int k = 0; k < 2; k++) {
                if (!accept_word(p, k ? "INDEXES" : "COLUMNS"))
                    continue;
                any = true;
                expect_punct(p, '(');
                if (!accept_punct(p, ')')) {
                    do
                        if (!accept_word(p, "ALL"))
                            (void)ident(p);
                    while (accept_punct(p, ','));
                    expect_punct(p, ')');
                }
            }
            if (!any)
                syntax_error(p);
        }
        return;
    }
    while (p->tok.type == TK_WORD && !at_end(p)) {
        if (accept_word(p, "FOR")) {
            expect_word(p, "UPGRADE");
            st->tables.options = "FOR UPGRADE";
            continue;
        }
        static const char *const opts[] = {"QUICK", "FAST", "MEDIUM", "EXTENDED", "CHANGED", "USE_FRM"};
        bool found = false;
        for (size_t i = 0; i < ARRAY_LEN(opts) && !found; i++)
            if (accept_word(p, opts[i])) {
                st->tables.options = opts[i];
                found = true;
            }
        if (!found)
            syntax_error(p);
    }
}

/* CREATE ... VIEW (after the optional OR REPLACE / ALGORITHM / DEFINER / SQL SECURITY, at VIEW) */
static void view_stmt(parser_t *p, sql_stmt_t *st, sql_view_stmt_t *v)
{
    st->kind = SQL_STMT_CREATE_VIEW;
    st->view = v;
    expect_word(p, "VIEW");
    create_if_not_exists(p, v->or_replace, &v->if_not_exists);
    v->name = table_name(p);
    if (accept_punct(p, '(')) {
        vec_t c = {0};
        do *(const char **)vec_push(p, &c, sizeof(char *)) = ident(p); while (accept_punct(p, ','));
        expect_punct(p, ')');
        v->cols = c.items;
        v->ncols = c.n;
    }
    expect_word(p, "AS");
    v->select_src = p->tok.start;
    v->select = select_body(p);
    v->select_src_len = (size_t)(p->prev_end - v->select_src);
    if (accept_word(p, "WITH")) {
        if (accept_word(p, "CASCADED")) v->check_option = "CASCADED";
        else if (accept_word(p, "LOCAL")) v->check_option = "LOCAL";
        else v->check_option = "CASCADED";
        expect_word(p, "CHECK");
        expect_word(p, "OPTION");
    }
}

/* CREATE [OR REPLACE] ALGORITHM=.. / DEFINER=.. / SQL SECURITY .. VIEW: true when one of these was seen */
static bool view_prefix(parser_t *p, sql_view_stmt_t *v)
{
    bool any = false;
    for (;;) {
        if (accept_word(p, "ALGORITHM")) {
            expect_punct(p, '=');
            const char *w = opt_word(p);
            v->algorithm = upper_dup(p, w, strlen(w));
        } else if (accept_word(p, "DEFINER")) {
            expect_punct(p, '=');
            user_name(p, &v->definer);
            v->has_definer = true;
        } else if (is_word(p, "SQL") && tok_is_word(peek2(p), "SECURITY")) {
            next(p);
            next(p);
            if (accept_word(p, "DEFINER")) v->security = "DEFINER";
            else { expect_word(p, "INVOKER"); v->security = "INVOKER"; }
        } else {
            return any;
        }
        any = true;
    }
}


/* ---------------------------------------------------------------- stored routines (header; sp_parse.c: body) */

/* A routine's characteristics (ALTER: all but [NOT] DETERMINISTIC). */
static void routine_chars(parser_t *p, sql_routine_stmt_t *r, bool create)
{
    for (;;) {
        if (accept_word(p, "COMMENT")) {
            r->comment = string_lit(p, NULL);
        } else if (accept_word(p, "LANGUAGE")) {
            expect_word(p, "SQL");
        } else if (create && is_word(p, "NOT") && tok_is_word(peek2(p), "DETERMINISTIC")) {
            next(p);
            next(p);
            r->deterministic = false;
        } else if (create && accept_word(p, "DETERMINISTIC")) {
            r->deterministic = true;
        } else if (is_word(p, "CONTAINS") && tok_is_word(peek2(p), "SQL")) {
            next(p);
            next(p);
            r->data_access = "CONTAINS SQL";
            r->data_access_set = true;
        } else if (is_word(p, "NO") && tok_is_word(peek2(p), "SQL")) {
            next(p);
            next(p);
            r->data_access = "NO SQL";
            r->data_access_set = true;
        } else if (is_word(p, "READS") && tok_is_word(peek2(p), "SQL")) {
            next(p);
            next(p);
            expect_word(p, "DATA");
            r->data_access = "READS SQL DATA";
            r->data_access_set = true;
        } else if (is_word(p, "MODIFIES") && tok_is_word(peek2(p), "SQL")) {
            next(p);
            next(p);
            expect_word(p, "DATA");
            r->data_access = "MODIFIES SQL DATA";
            r->data_access_set = true;
        } else if (is_word(p, "SQL") && tok_is_word(peek2(p), "SECURITY")) {
            next(p);
            next(p);
            if (accept_word(p, "DEFINER")) r->security = "DEFINER";
            else { expect_word(p, "INVOKER"); r->security = "INVOKER"; }
        } else {
            break;
        }
    }
}

/* ALTER PROCEDURE | FUNCTION name characteristics, at the word */
static void routine_alter(parser_t *p, sql_stmt_t *st)
{
    sql_routine_stmt_t *r = alloc(p, sizeof *r);
    r->is_function = is_word(p, "FUNCTION");
    next(p);
    st->kind = r->is_function ? SQL_STMT_ALTER_FUNCTION : SQL_STMT_ALTER_PROCEDURE;
    st->routine = r;
    r->name = table_name(p);
    routine_chars(p, r, false);
}

/* CREATE ... PROCEDURE | FUNCTION, at the word; vw holds what view_prefix read (only DEFINER fits a routine). */
static void routine_stmt(parser_t *p, sql_stmt_t *st, const sql_view_stmt_t *vw)
{
    if (vw->algorithm || vw->security)
        syntax_error(p);
    sql_routine_stmt_t *r = alloc(p, sizeof *r);
    r->is_function = is_word(p, "FUNCTION");
    next(p);
    st->kind = r->is_function ? SQL_STMT_CREATE_FUNCTION : SQL_STMT_CREATE_PROCEDURE;
    st->routine = r;
    r->or_replace = vw->or_replace;
    r->definer = vw->definer;
    r->has_definer = vw->has_definer;
    create_if_not_exists(p, r->or_replace, &r->if_not_exists);
    r->name = table_name(p);
    expect_punct(p, '(');
    r->params_src = p->tok.start;
    vec_t v = {0};
    if (!is_punct(p, ')')) {
        do {
            sql_routine_param_t *pa = vec_push(p, &v, sizeof *pa);
            pa->mode = SQL_PARAM_IN;
            if (!r->is_function) {
                if (accept_word(p, "IN")) pa->mode = SQL_PARAM_IN;
                else if (accept_word(p, "OUT")) pa->mode = SQL_PARAM_OUT;
                else if (accept_word(p, "INOUT")) pa->mode = SQL_PARAM_INOUT;
            }
            pa->name = ident(p);
            data_type(p, &pa->type);
        } while (accept_punct(p, ','));
    }
    r->params_len = (size_t)(p->tok.start - r->params_src);
    expect_punct(p, ')');
    r->params = v.items;
    r->nparams = v.n;
    if (r->is_function) {
        expect_word(p, "RETURNS");
        data_type(p, &r->returns);
    }
    r->data_access = "CONTAINS SQL";
    routine_chars(p, r, true);
    if (p->tok.type == TK_EOF)
        syntax_error(p);
    /* the body: sp_parse.c reads it with a lexer of its own, then this parser goes on after it */
    const char *stop = NULL;
    r->body_src = p->tok.start;
    /* (the lexer may have read past the body's first token: its comment state is that token's when one token
     * of lookahead was read, which the body's first token always is) */
    r->body = sp_parse_body(p->a, p->d, p->lx.text, p->tok.start, p->lx.end, p->lx.mode, p->lx.in_exec_comment,
                            r->params, r->nparams, r->is_function, &stop);
    if (!r->body)
        longjmp(p->fail, 1);
    r->body_len = (size_t)(stop - r->body_src);
    p->have_ahead = false;
    p->lx.pos = stop;
    p->lx.line = p->tok.line;
    for (const char *q = r->body_src; q < stop; q++)
        if (*q == '\n')
            p->lx.line++;
    p->prev_end = stop;
    sql_lex_next(&p->lx, &p->tok);
}

/* CREATE ... TRIGGER, at the word; vw holds what view_prefix read (only DEFINER fits a trigger).  The body is a
 * routine body (sp_parse.c) in which NEW.col / OLD.col are variables of the frame. */
static void trigger_stmt(parser_t *p, sql_stmt_t *st, const sql_view_stmt_t *vw)
{
    if (vw->algorithm || vw->security)
        syntax_error(p);
    sql_trigger_stmt_t *r = alloc(p, sizeof *r);
    r->create_src = p->tok.start;
    next(p);
    st->kind = SQL_STMT_CREATE_TRIGGER;
    st->trigger = r;
    r->or_replace = vw->or_replace;
    r->definer = vw->definer;
    r->has_definer = vw->has_definer;
    create_if_not_exists(p, r->or_replace, &r->if_not_exists);
    r->name = table_name(p);
    if (accept_word(p, "BEFORE")) r->timing = "BEFORE";
    else { expect_word(p, "AFTER"); r->timing = "AFTER"; }
    if (accept_word(p, "INSERT")) r->event = "INSERT";
    else if (accept_word(p, "UPDATE")) r->event = "UPDATE";
    else { expect_word(p, "DELETE"); r->event = "DELETE"; }
    expect_word(p, "ON");
    r->table = table_name(p);
    expect_word(p, "FOR");
    expect_word(p, "EACH");
    expect_word(p, "ROW");
    if (is_word(p, "FOLLOWS") || is_word(p, "PRECEDES")) {
        r->order_src = p->tok.start;
        r->order_kind = is_word(p, "FOLLOWS") ? "FOLLOWS" : "PRECEDES";
        next(p);
        r->order_other = ident(p);
    }
    if (p->tok.type == TK_EOF)
        syntax_error(p);
    const char *stop = NULL;
    r->body_src = p->tok.start;
    sp_trigger_info_t ti = {.event = r->event, .timing = r->timing};
    r->body = sp_parse_trigger_body(p->a, p->d, p->lx.text, p->tok.start, p->lx.end, p->lx.mode,
                                    p->lx.in_exec_comment, &ti, &stop);
    if (!r->body)
        longjmp(p->fail, 1);
    r->body_len = (size_t)(stop - r->body_src);
    p->have_ahead = false;
    p->lx.pos = stop;
    p->lx.line = p->tok.line;
    for (const char *q = r->body_src; q < stop; q++)
        if (*q == '\n')
            p->lx.line++;
    p->prev_end = stop;
    sql_lex_next(&p->lx, &p->tok);
}

/* ---------------------------------------------------------------- events */

/* ON SCHEDULE, after the words: AT ts | EVERY n unit [STARTS ts] [ENDS ts] */
static void event_schedule(parser_t *p, sql_event_stmt_t *e)
{
    e->has_schedule = true;
    if (accept_word(p, "AT")) {
        e->at = expr(p);
        return;
    }
    expect_word(p, "EVERY");
    e->every = true;
    e->every_value = expr(p);
    e->every_unit = interval_unit(p);
    if (accept_word(p, "STARTS"))
        e->starts = expr(p);
    if (accept_word(p, "ENDS"))
        e->ends = expr(p);
}

/* Does the text hold CREATE [OR REPLACE] [DEFINER = ..] EVENT (MariaDB refuses it in an event's body: 1576)? */
static bool text_has_event_ddl(parser_t *p, const char *src, size_t len)
{
    sql_lexer_t lx;
    sql_lex_init(&lx, p->a, src, len, p->lx.mode);
    sql_tok_t t;
    int state = 0; /* 1: after CREATE [OR REPLACE]; n > 1: n - 1 tokens into DEFINER = ... */
    for (;;) {
        sql_lex_next(&lx, &t);
        if (t.type == TK_EOF || t.type == TK_ERROR)
            return false;
        bool word = t.type == TK_WORD;
        if (word && tok_is_word(&t, "CREATE"))
            state = 1;
        else if (state && word && tok_is_word(&t, "EVENT"))
            return true;
        else if (state == 1 && word && (tok_is_word(&t, "OR") || tok_is_word(&t, "REPLACE")))
            state = 1;
        else if (state == 1 && word && tok_is_word(&t, "DEFINER"))
            state = 2;
        else if (state >= 2 && state < 8)
            state++;
        else
            state = 0;
    }
}

/* The body after DO: a routine body (sp_parse.c), read with a lexer of its own; this parser goes on after it. */
static void event_body(parser_t *p, sql_event_stmt_t *e)
{
    if (p->tok.type == TK_EOF)
        syntax_error(p);
    const char *stop = NULL;
    e->body_src = p->tok.start;
    e->body = sp_parse_body(p->a, p->d, p->lx.text, p->tok.start, p->lx.end, p->lx.mode, p->lx.in_exec_comment,
                            NULL, 0, false, &stop);
    if (!e->body)
        longjmp(p->fail, 1);
    e->body_len = (size_t)(stop - e->body_src);
    if (text_has_event_ddl(p, e->body_src, e->body_len)) {
        diag_error(p->d, ER_EVENT_RECURSION_FORBIDDEN);
        longjmp(p->fail, 1);
    }
    p->have_ahead = false;
    p->lx.pos = stop;
    p->lx.line = p->tok.line;
    for (const char *q = e->body_src; q < stop; q++)
        if (*q == '\n')
            p->lx.line++;
    p->prev_end = stop;
    sql_lex_next(&p->lx, &p->tok);
}

/* CREATE ... EVENT / ALTER ... EVENT, at the word; vw holds what view_prefix read (only DEFINER fits). The
 * clauses come in MariaDB's order: schedule, completion, (ALTER: RENAME TO), status, comment, body. */
static void event_stmt(parser_t *p, sql_stmt_t *st, const sql_view_stmt_t *vw, bool alter)
{
    if (vw->algorithm || vw->security)
        syntax_error(p);
    sql_event_stmt_t *e = alloc(p, sizeof *e);
    next(p);
    st->kind = alter ? SQL_STMT_ALTER_EVENT : SQL_STMT_CREATE_EVENT;
    st->event = e;
    e->or_replace = vw->or_replace;
    e->definer = vw->definer;
    e->has_definer = vw->has_definer;
    if (!alter)
        create_if_not_exists(p, e->or_replace, &e->if_not_exists);
    e->name_src = p->tok.start;
    e->name = table_name(p);
    if (is_word(p, "ON") && tok_is_word(peek2(p), "SCHEDULE")) {
        next(p);
        next(p);
        event_schedule(p, e);
    } else if (!alter) {
        syntax_error(p);
    }
    if (is_word(p, "ON") && tok_is_word(peek2(p), "COMPLETION")) {
        next(p);
        next(p);
        e->completion = accept_word(p, "NOT") ? 2 : 1;
        expect_word(p, "PRESERVE");
    }
    if (alter && accept_word(p, "RENAME")) {
        expect_word(p, "TO");
        e->has_rename = true;
        e->rename = table_name(p);
    }
    if (accept_word(p, "ENABLE")) {
        e->status = "ENABLED";
    } else if (accept_word(p, "DISABLE")) {
        e->status = "DISABLED";
        if (accept_word(p, "ON")) {
            if (!accept_word(p, "SLAVE"))
                expect_word(p, "REPLICA");
            e->status = "SLAVESIDE_DISABLED";
        }
    }
    if (accept_word(p, "COMMENT"))
        e->comment = string_lit(p, NULL);
    if (accept_word(p, "DO"))
        event_body(p, e);
    else if (!alter)
        syntax_error(p);
    if (alter && !e->has_schedule && !e->completion && !e->has_rename && !e->status && !e->comment && !e->body_src &&
        !e->has_definer)
        syntax_error(p);
}

/* DROP PROCEDURE | FUNCTION [IF EXISTS] name, at the word */
static void routine_drop(parser_t *p, sql_stmt_t *st)
{
    sql_routine_stmt_t *r = alloc(p, sizeof *r);
    r->is_function = is_word(p, "FUNCTION");
    next(p);
    st->kind = r->is_function ? SQL_STMT_DROP_FUNCTION : SQL_STMT_DROP_PROCEDURE;
    st->routine = r;
    if_exists(p, &r->if_exists);
    r->name = table_name(p);
}

/* CALL name [( args )] */
static void call_stmt(parser_t *p, sql_stmt_t *st)
{
    sql_call_stmt_t *c = alloc(p, sizeof *c);
    st->kind = SQL_STMT_CALL;
    st->call = c;
    c->name = table_name(p);
    if (accept_punct(p, '(')) {
        vec_t v = {0};
        if (!is_punct(p, ')'))
            do *(sql_expr_t **)vec_push(p, &v, sizeof(sql_expr_t *)) = expr(p); while (accept_punct(p, ','));
        expect_punct(p, ')');
        c->args = v.items;
        c->nargs = v.n;
    }
}

int sql_parse_type(arena_t *a, diag_t *d, const char *text, const char *start, const char *end, unsigned mode,
                   uint32_t line, sql_type_t *out, const char **stop)
{
    parser_t *p = arena_calloc(a, sizeof *p);
    p->a = a;
    p->d = d;
    sql_lex_init(&p->lx, a, text, (size_t)(end - text), mode);
    p->lx.pos = start;
    p->lx.line = line;
    if (setjmp(p->fail))
        return d->error_code ? -d->error_code : -ER_PARSE_ERROR;
    sql_lex_next(&p->lx, &p->tok);
    p->prev_end = start;
    data_type(p, out);
    *stop = p->prev_end;
    return 0;
}

/* ---------------------------------------------------------------- replication (replica side) */

/* opt = value, ... of CHANGE MASTER TO and START SLAVE UNTIL, SOURCE_* spelled MASTER_*. */
static void repl_opts(parser_t *p, sql_repl_stmt_t *r)
{
    vec_t v = {0};
    do {
        if (p->tok.type != TK_WORD)
            syntax_error(p);
        sql_repl_opt_t *o = vec_push(p, &v, sizeof *o);
        const char *w = p->tok.text;
        size_t wl = p->tok.text_len;
        if (wl > 7 && strncasecmp(w, "SOURCE_", 7) == 0) { /* MySQL 8's spelling of the same option */
            char *n = arena_alloc(p->a, wl + 1);
            memcpy(n, "MASTER_", 7);
            memcpy(n + 7, w + 7, wl - 7);
            n[wl] = 0;
            o->name = upper_dup(p, n, wl);
        } else {
            o->name = upper_dup(p, w, wl);
        }
        next(p);
        expect_punct(p, '=');
        if (p->tok.type == TK_STRING) {
            o->str = string_lit(p, NULL);
        } else if (p->tok.type == TK_INT || p->tok.type == TK_DECIMAL) {
            o->num = arena_strndup(p->a, p->tok.start, p->tok.len);
            next(p);
        } else if (accept_punct(p, '(')) { /* IGNORE_SERVER_IDS = (1, 2): kept as text for the session */
            buf_t b;
            buf_init(&b);
            while (!accept_punct(p, ')')) {
                if (p->tok.type != TK_INT)
                    syntax_error(p);
                buf_printf(&b, "%s%.*s", b.len ? "," : "", (int)p->tok.len, p->tok.start);
                next(p);
                if (!is_punct(p, ')'))
                    expect_punct(p, ',');
            }
            o->str = arena_strndup(p->a, b.len ? (const char *)b.data : "", b.len);
            buf_free(&b);
        } else if (p->tok.type == TK_WORD) {
            o->str = lower_dup(p, p->tok.text, p->tok.text_len);
            next(p);
        } else {
            syntax_error(p);
        }
    } while (accept_punct(p, ','));
    r->opts = v.items;
    r->nopts = v.n;
}

/* CHANGE MASTER ['conn'] TO opt = value, ... | CHANGE REPLICATION SOURCE TO ...; START | STOP SLAVE | REPLICA
 * [IO_THREAD | SQL_THREAD [, ...]] [UNTIL opt = value, ...]; RESET SLAVE | REPLICA [ALL].  false when the statement is none of these. */
static bool repl_stmt(parser_t *p, sql_stmt_t *st)
{
    sql_repl_stmt_t *r = &st->repl;
    if (is_word(p, "CHANGE") && (tok_is_word(peek2(p), "MASTER") || tok_is_word(peek2(p), "REPLICATION"))) {
        next(p);
        if (accept_word(p, "REPLICATION"))
            expect_word(p, "SOURCE");
        else
            expect_word(p, "MASTER");
        if (p->tok.type == TK_STRING && string_lit(p, NULL)[0]) /* a named connection: only the default one */
            syntax_error(p);
        expect_word(p, "TO");
        st->kind = SQL_STMT_CHANGE_MASTER;
        repl_opts(p, r);
        return true;
    }
    bool start = is_word(p, "START"), stop = is_word(p, "STOP"), reset = is_word(p, "RESET");
    if (!(start || stop || reset) || !(tok_is_word(peek2(p), "SLAVE") || tok_is_word(peek2(p), "REPLICA")))
        return false;
    next(p);
    next(p);
    if (reset) {
        st->kind = SQL_STMT_RESET_SLAVE;
        r->all = accept_word(p, "ALL");
        return true;
    }
    st->kind = start ? SQL_STMT_START_SLAVE : SQL_STMT_STOP_SLAVE;
    if (is_word(p, "IO_THREAD") || is_word(p, "SQL_THREAD")) {
        do {
            if (accept_word(p, "IO_THREAD"))
                r->threads |= SQL_REPL_IO_THREAD;
            else {
                expect_word(p, "SQL_THREAD");
                r->threads |= SQL_REPL_SQL_THREAD;
            }
        } while (accept_punct(p, ','));
    }
    if (start && accept_word(p, "UNTIL")) { /* MASTER_GTID_POS = '...' | MASTER_LOG_FILE = 'f', MASTER_LOG_POS = n */
        r->until = true;
        repl_opts(p, r);
    }
    return true;
}

/* ---------------------------------------------------------------- statements */

static void flush_stmt(parser_t *p, sql_stmt_t *st)
{
    st->kind = SQL_STMT_FLUSH;
    if (accept_word(p, "LOCAL") || accept_word(p, "NO_WRITE_TO_BINLOG"))
        st->flush.local = true;
    do {
        if (accept_word(p, "PRIVILEGES")) st->flush.what |= SQL_FLUSH_PRIVILEGES;
        else if (accept_word(p, "LOGS")) st->flush.what |= SQL_FLUSH_LOGS;
        else if (accept_word(p, "BINARY")) { expect_word(p, "LOGS"); st->flush.what |= SQL_FLUSH_BINARY_LOGS; }
        else if (accept_word(p, "ENGINE")) { expect_word(p, "LOGS"); st->flush.what |= SQL_FLUSH_ENGINE_LOGS; }
        else if (accept_word(p, "ERROR")) { expect_word(p, "LOGS"); st->flush.what |= SQL_FLUSH_ERROR_LOGS; }
        else if (accept_word(p, "GENERAL")) { expect_word(p, "LOGS"); st->flush.what |= SQL_FLUSH_GENERAL_LOGS; }
        else if (accept_word(p, "SLOW")) { expect_word(p, "LOGS"); st->flush.what |= SQL_FLUSH_SLOW_LOGS; }
        else if (accept_word(p, "RELAY")) { expect_word(p, "LOGS"); st->flush.what |= SQL_FLUSH_RELAY_LOGS; }
        else if (accept_word(p, "STATUS")) st->flush.what |= SQL_FLUSH_STATUS;
        else if (accept_word(p, "HOSTS")) st->flush.what |= SQL_FLUSH_HOSTS;
        else if (accept_word(p, "USER_RESOURCES")) st->flush.what |= SQL_FLUSH_USER_RESOURCES;
        else if (accept_word(p, "QUERY")) { expect_word(p, "CACHE"); st->flush.what |= SQL_FLUSH_QUERY_CACHE; }
        else if (accept_word(p, "TABLES") || accept_word(p, "TABLE")) {
            st->flush.what |= SQL_FLUSH_TABLES;
            if (is_ident(p)) {
                vec_t v = {0};
                do {
                    *(sql_name_t *)vec_push(p, &v, sizeof(sql_name_t)) = table_name(p);
                } while (accept_punct(p, ','));
                st->flush.tables = v.items;
                st->flush.ntables = v.n;
            }
            if (accept_word(p, "WITH")) {
                expect_word(p, "READ");
                expect_word(p, "LOCK");
                st->flush.what |= SQL_FLUSH_TABLES_READ_LOCK;
            } else if (accept_word(p, "FOR")) {
                expect_word(p, "EXPORT");
            }
            return;
        } else syntax_error(p);
    } while (accept_punct(p, ','));
}

static void commit_tail(parser_t *p, sql_txn_t *t)
{
    accept_word(p, "WORK");
    if (accept_word(p, "AND")) {
        if (accept_word(p, "NO")) t->no_chain = true; else t->chain = true;
        expect_word(p, "CHAIN");
    }
    if (accept_word(p, "NO")) { expect_word(p, "RELEASE"); t->no_release = true; }
    else if (accept_word(p, "RELEASE")) t->release = true;
}

static void statement(parser_t *p, sql_stmt_t *st)
{
    if (accept_word(p, "INSERT")) { insert_stmt(p, st, false); return; }
    if (accept_word(p, "REPLACE")) { insert_stmt(p, st, true); return; }
    if (accept_word(p, "UPDATE")) { update_stmt(p, st); return; }
    if (accept_word(p, "DELETE")) { delete_stmt(p, st); return; }
    if (accept_word(p, "TRUNCATE")) {
        accept_word(p, "TABLE");
        st->kind = SQL_STMT_TRUNCATE;
        st->tables.tables = alloc(p, sizeof(sql_name_t));
        st->tables.tables[0] = table_name(p);
        st->tables.n = 1;
        return;
    }
    if (accept_word(p, "DESCRIBE") || accept_word(p, "DESC") || accept_word(p, "EXPLAIN")) { describe_stmt(p, st); return; }
    if (is_word(p, "ANALYZE") || is_word(p, "OPTIMIZE") || is_word(p, "CHECK") || is_word(p, "REPAIR") ||
        is_word(p, "CHECKSUM")) {
        sql_stmt_kind_t k = is_word(p, "ANALYZE") ? SQL_STMT_ANALYZE_TABLE : is_word(p, "OPTIMIZE") ? SQL_STMT_OPTIMIZE_TABLE
                          : is_word(p, "CHECK") ? SQL_STMT_CHECK_TABLE : is_word(p, "REPAIR") ? SQL_STMT_REPAIR_TABLE
                          : SQL_STMT_CHECKSUM_TABLE;
        next(p);
        if (k == SQL_STMT_ANALYZE_TABLE && (is_word(p, "SELECT") || is_punct(p, '(') || is_word(p, "UPDATE") ||
                                            is_word(p, "DELETE") || is_word(p, "INSERT") || is_word(p, "REPLACE") ||
                                            is_word(p, "FORMAT"))) {
            /* MariaDB's ANALYZE statement: EXPLAIN ANALYZE */
            st->kind = SQL_STMT_EXPLAIN;
            st->explain.analyze = true;
            if (accept_word(p, "FORMAT")) {
                expect_punct(p, '=');
                const char *f = opt_word(p);
                st->explain.format = arena_strndup(p->a, f, strlen(f)); /* as written: 1791 names it so */
            }
            sql_stmt_t *inner = alloc(p, sizeof *inner);
            inner->src = p->tok.start;
            statement(p, inner);
            inner->src_len = (size_t)(p->prev_end - inner->src);
            st->explain.stmt = inner;
            return;
        }
        bool local = accept_word(p, "LOCAL") || accept_word(p, "NO_WRITE_TO_BINLOG");
        if (!accept_word(p, "TABLE"))
            expect_word(p, "TABLES");
        table_maint_stmt(p, st, k, local);
        return;
    }
    if (accept_word(p, "GRANT")) { grant_stmt(p, st, false); return; }
    if (accept_word(p, "REVOKE")) { grant_stmt(p, st, true); return; }
    if (accept_word(p, "PURGE")) {
        if (!accept_word(p, "BINARY"))
            expect_word(p, "MASTER");
        expect_word(p, "LOGS");
        st->kind = SQL_STMT_PURGE_BINARY_LOGS;
        if (accept_word(p, "TO")) st->purge.to_log = string_lit(p, NULL);
        else { expect_word(p, "BEFORE"); st->purge.before = expr(p); }
        return;
    }
    if (repl_stmt(p, st))
        return;
    if (is_word(p, "RESET") && tok_is_word(peek2(p), "MASTER")) {
        next(p);
        next(p);
        st->kind = SQL_STMT_RESET_MASTER;
        if (accept_word(p, "TO"))
            st->reset_master_to = uint_value(p);
        return;
    }
    if (is_select_start(p) || is_punct(p, '(')) {
        if (is_word(p, "VALUES"))
            syntax_error(p); /* the VALUES statement: not yet */
        st->kind = SQL_STMT_SELECT;
        p->into = NULL;
        p->into_depth = p->depth + (is_word(p, "WITH") ? 2 : 1);
        st->select = select_body(p);
        p->into_depth = 0;
        if (accept_word(p, "INTO")) { /* SELECT ... FROM ... INTO dest [lock] (MariaDB warns 1287) */
            into_clause(p, true);
            if (st->select->lock == SQL_LOCK_NONE)
                lock_clause(p, st->select);
        }
        st->select->into = p->into;
        return;
    }
    if (accept_word(p, "SET")) { set_stmt(p, st); return; }
    if (accept_word(p, "SHOW")) { show_stmt(p, st); return; }
    if (accept_word(p, "CALL")) { call_stmt(p, st); return; }
    if (accept_word(p, "USE")) { st->kind = SQL_STMT_USE; st->use_db = ident(p); return; }
    if (accept_word(p, "CREATE")) {
        bool or_replace = false;
        if (accept_word(p, "OR")) { expect_word(p, "REPLACE"); or_replace = true; }
        {
            sql_view_stmt_t *vw = alloc(p, sizeof *vw);
            vw->or_replace = or_replace;
            bool prefix = view_prefix(p, vw);
            if (is_word(p, "PROCEDURE") || is_word(p, "FUNCTION")) {
                routine_stmt(p, st, vw);
                return;
            }
            if (is_word(p, "TRIGGER")) {
                trigger_stmt(p, st, vw);
                return;
            }
            if (is_word(p, "EVENT")) {
                event_stmt(p, st, vw, false);
                return;
            }
            if (prefix || is_word(p, "VIEW")) {
                view_stmt(p, st, vw);
                return;
            }
        }
        if (accept_word(p, "DATABASE") || accept_word(p, "SCHEMA")) {
            st->kind = SQL_STMT_CREATE_DATABASE;
            st->database.or_replace = or_replace;
            st->database.coll = -1;
            create_if_not_exists(p, or_replace, &st->database.if_not_exists);
            st->database.name = ident(p);
            database_options(p, &st->database);
            return;
        }
        bool temporary = accept_word(p, "TEMPORARY");
        if (accept_word(p, "TABLE")) { create_table_stmt(p, st, or_replace, temporary); return; }
        if (temporary)
            syntax_error(p);
        if (accept_word(p, "UNIQUE")) { expect_word(p, "INDEX"); index_stmt_create(p, st, or_replace, SQL_INDEX_UNIQUE); return; }
        if (accept_word(p, "FULLTEXT")) { expect_word(p, "INDEX"); index_stmt_create(p, st, or_replace, SQL_INDEX_FULLTEXT); return; }
        if (accept_word(p, "SPATIAL")) { expect_word(p, "INDEX"); index_stmt_create(p, st, or_replace, SQL_INDEX_SPATIAL); return; }
        if (accept_word(p, "INDEX")) { index_stmt_create(p, st, or_replace, SQL_INDEX_KEY); return; }
        if (accept_word(p, "LOGFILE")) { expect_word(p, "GROUP"); logfile_group_stmt(p, st, true); return; }
        if (accept_word(p, "TABLESPACE")) { tablespace_stmt(p, st, SQL_STMT_CREATE_TABLESPACE); return; }
        if (accept_word(p, "ROLE")) {
            st->kind = SQL_STMT_CREATE_ROLE;
            st->user.or_replace = or_replace;
            create_if_not_exists(p, or_replace, &st->user.if_not_exists);
            st->user.users = alloc(p, sizeof *st->user.users);
            st->user.users[0].user.user = role_name(p);
            st->user.nusers = 1;
            if (accept_word(p, "WITH")) { expect_word(p, "ADMIN"); sql_user_t u; user_name(p, &u); }
            return;
        }
        expect_word(p, "USER");
        st->kind = SQL_STMT_CREATE_USER;
        st->user.or_replace = or_replace;
        create_if_not_exists(p, or_replace, &st->user.if_not_exists);
        user_list_stmt(p, st, true);
        return;
    }
    if (accept_word(p, "ALTER")) {
        if (accept_word(p, "DATABASE") || accept_word(p, "SCHEMA")) {
            st->kind = SQL_STMT_ALTER_DATABASE;
            st->database.coll = -1;
            if (is_ident(p))
                st->database.name = ident(p);
            database_options(p, &st->database);
            if (!st->database.charset && !st->database.collation && !st->database.comment)
                syntax_error(p);
            return;
        }
        bool ignore = false;
        accept_word(p, "ONLINE");
        if (accept_word(p, "IGNORE")) ignore = true;
        if (accept_word(p, "TABLE")) { alter_table_stmt(p, st, ignore); return; }
        if (ignore)
            syntax_error(p);
        if (accept_word(p, "TABLESPACE")) { tablespace_stmt(p, st, SQL_STMT_ALTER_TABLESPACE); return; }
        if (is_word(p, "PROCEDURE") || is_word(p, "FUNCTION")) { routine_alter(p, st); return; }
        if (is_word(p, "EVENT") || is_word(p, "DEFINER")) {
            sql_view_stmt_t *vw = alloc(p, sizeof *vw);
            view_prefix(p, vw);
            if (!is_word(p, "EVENT"))
                syntax_error(p);
            event_stmt(p, st, vw, true);
            return;
        }
        expect_word(p, "USER");
        st->kind = SQL_STMT_ALTER_USER;
        if (accept_word(p, "IF")) { expect_word(p, "EXISTS"); st->user.if_exists = true; }
        user_list_stmt(p, st, true);
        return;
    }
    if (accept_word(p, "DROP")) {
        if (accept_word(p, "PREPARE")) { st->kind = SQL_STMT_DEALLOCATE; st->prepare.name = ident(p); return; }
        if (accept_word(p, "DATABASE") || accept_word(p, "SCHEMA")) {
            st->kind = SQL_STMT_DROP_DATABASE;
            st->database.coll = -1;
            if_exists(p, &st->database.if_exists);
            st->database.name = ident(p);
            return;
        }
        bool temporary = accept_word(p, "TEMPORARY");
        if (accept_word(p, "TABLE") || accept_word(p, "TABLES")) {
            st->kind = SQL_STMT_DROP_TABLE;
            st->tables.temporary = temporary;
            if_exists(p, &st->tables.if_exists);
            vec_t v = {0};
            do *(sql_name_t *)vec_push(p, &v, sizeof(sql_name_t)) = table_name(p); while (accept_punct(p, ','));
            st->tables.tables = v.items;
            st->tables.n = v.n;
            if (accept_word(p, "RESTRICT")) ;
            else if (accept_word(p, "CASCADE")) st->tables.cascade = true;
            return;
        }
        if (temporary)
            syntax_error(p);
        if (accept_word(p, "INDEX")) {
            st->kind = SQL_STMT_DROP_INDEX;
            if_exists(p, &st->index.if_exists);
            if (accept_word(p, "PRIMARY")) st->index.index.name = "PRIMARY";
            else st->index.index.name = ident(p);
            expect_word(p, "ON");
            st->index.table = table_name(p); /* (MariaDB 10.11 takes no ALGORITHM= / LOCK= here: 1064) */
            return;
        }
        if (is_word(p, "PROCEDURE") || is_word(p, "FUNCTION")) { routine_drop(p, st); return; }
        if (accept_word(p, "EVENT")) {
            sql_event_stmt_t *e = alloc(p, sizeof *e);
            st->kind = SQL_STMT_DROP_EVENT;
            st->event = e;
            if_exists(p, &e->if_exists);
            e->name = table_name(p);
            return;
        }
        if (accept_word(p, "TRIGGER")) {
            sql_trigger_stmt_t *r = alloc(p, sizeof *r);
            st->kind = SQL_STMT_DROP_TRIGGER;
            st->trigger = r;
            if_exists(p, &r->if_exists);
            r->name = table_name(p);
            return;
        }
        if (accept_word(p, "VIEW")) {
            st->kind = SQL_STMT_DROP_VIEW;
            if_exists(p, &st->tables.if_exists);
            vec_t v = {0};
            do *(sql_name_t *)vec_push(p, &v, sizeof(sql_name_t)) = table_name(p); while (accept_punct(p, ','));
            st->tables.tables = v.items;
            st->tables.n = v.n;
            if (accept_word(p, "RESTRICT")) ;
            else if (accept_word(p, "CASCADE")) st->tables.cascade = true;
            return;
        }
        if (accept_word(p, "LOGFILE")) { expect_word(p, "GROUP"); logfile_group_stmt(p, st, false); return; }
        if (accept_word(p, "TABLESPACE")) { tablespace_stmt(p, st, SQL_STMT_DROP_TABLESPACE); return; }
        if (accept_word(p, "ROLE")) {
            st->kind = SQL_STMT_DROP_ROLE;
            if_exists(p, &st->user.if_exists);
            vec_t v = {0};
            do {
                sql_user_spec_t *u = vec_push(p, &v, sizeof *u);
                u->user.user = role_name(p);
            } while (accept_punct(p, ','));
            st->user.users = v.items;
            st->user.nusers = v.n;
            return;
        }
        expect_word(p, "USER");
        st->kind = SQL_STMT_DROP_USER;
        if (accept_word(p, "IF")) { expect_word(p, "EXISTS"); st->user.if_exists = true; }
        user_list_stmt(p, st, false);
        return;
    }
    if (accept_word(p, "RENAME")) {
        if (accept_word(p, "TABLE") || accept_word(p, "TABLES")) {
            st->kind = SQL_STMT_RENAME_TABLE;
            vec_t f = {0}, t = {0};
            do {
                *(sql_name_t *)vec_push(p, &f, sizeof(sql_name_t)) = table_name(p);
                expect_word(p, "TO");
                *(sql_name_t *)vec_push(p, &t, sizeof(sql_name_t)) = table_name(p);
            } while (accept_punct(p, ','));
            st->rename_table.from = f.items;
            st->rename_table.to = t.items;
            st->rename_table.n = f.n;
            return;
        }
        expect_word(p, "USER");
        st->kind = SQL_STMT_RENAME_USER;
        vec_t f = {0}, t = {0};
        do {
            user_name(p, vec_push(p, &f, sizeof(sql_user_t)));
            expect_word(p, "TO");
            user_name(p, vec_push(p, &t, sizeof(sql_user_t)));
        } while (accept_punct(p, ','));
        st->rename_user.from = f.items;
        st->rename_user.to = t.items;
        st->rename_user.n = f.n;
        return;
    }
    if (accept_word(p, "KILL")) {
        st->kind = SQL_STMT_KILL;
        if (!accept_word(p, "HARD"))
            accept_word(p, "SOFT");
        if (accept_word(p, "QUERY")) st->kill.query = true;
        else accept_word(p, "CONNECTION");
        st->kill.id = expr(p);
        return;
    }
    if (accept_word(p, "SHUTDOWN")) {
        st->kind = SQL_STMT_SHUTDOWN;
        if (accept_word(p, "WAIT")) { expect_word(p, "FOR"); expect_word(p, "ALL"); expect_word(p, "SLAVES"); }
        return;
    }
    if (accept_word(p, "FLUSH")) { flush_stmt(p, st); return; }
    if (accept_word(p, "BEGIN")) { st->kind = SQL_STMT_BEGIN; accept_word(p, "WORK"); return; }
    if (accept_word(p, "START")) {
        expect_word(p, "TRANSACTION");
        st->kind = SQL_STMT_BEGIN;
        if (!at_end(p)) {
            do {
                if (accept_word(p, "READ")) {
                    if (accept_word(p, "ONLY")) st->txn.access = SQL_ACCESS_READ_ONLY;
                    else { expect_word(p, "WRITE"); st->txn.access = SQL_ACCESS_READ_WRITE; }
                } else {
                    expect_word(p, "WITH");
                    expect_word(p, "CONSISTENT");
                    expect_word(p, "SNAPSHOT");
                    st->txn.consistent_snapshot = true;
                }
            } while (accept_punct(p, ','));
        }
        return;
    }
    if (accept_word(p, "COMMIT")) { st->kind = SQL_STMT_COMMIT; commit_tail(p, &st->txn); return; }
    if (accept_word(p, "ROLLBACK")) {
        st->kind = SQL_STMT_ROLLBACK;
        accept_word(p, "WORK");
        if (accept_word(p, "TO")) {
            accept_word(p, "SAVEPOINT");
            st->txn.savepoint = ident(p);
            return;
        }
        commit_tail(p, &st->txn);
        return;
    }
    if (accept_word(p, "SAVEPOINT")) { st->kind = SQL_STMT_SAVEPOINT; st->txn.savepoint = ident(p); return; }
    if (accept_word(p, "RELEASE")) {
        expect_word(p, "SAVEPOINT");
        st->kind = SQL_STMT_RELEASE_SAVEPOINT;
        st->txn.savepoint = ident(p);
        return;
    }
    if (accept_word(p, "PREPARE")) {
        st->kind = SQL_STMT_PREPARE;
        st->prepare.name = ident(p);
        expect_word(p, "FROM");
        if (p->tok.type == TK_USERVAR) {
            st->prepare.from_var = p->tok.text;
            next(p);
        } else {
            st->prepare.text = string_lit(p, &st->prepare.text_len);
        }
        return;
    }
    if (accept_word(p, "EXECUTE")) {
        st->kind = SQL_STMT_EXECUTE;
        st->prepare.name = ident(p);
        if (accept_word(p, "USING")) {
            vec_t v = {0};
            do {
                push_arg(p, &v, expr(p));
            } while (accept_punct(p, ','));
            st->prepare.using = v.items;
            st->prepare.nusing = v.n;
        }
        return;
    }
    if (accept_word(p, "DEALLOCATE")) {
        expect_word(p, "PREPARE");
        st->kind = SQL_STMT_DEALLOCATE;
        st->prepare.name = ident(p);
        return;
    }
    if (is_word(p, "LOAD") && peek2(p)->type == TK_WORD && tok_is_word(peek2(p), "DATA")) {
        next(p);
        next(p);
        load_stmt(p, st);
        return;
    }
    if (accept_word(p, "DO")) {
        st->kind = SQL_STMT_DO;
        vec_t v = {0};
        do {
            push_arg(p, &v, expr(p));
        } while (accept_punct(p, ','));
        st->do_list = v.items;
        st->ndo = v.n;
        st->do_expr = st->do_list[0];
        return;
    }
    if (accept_word(p, "LOCK")) {
        if (!accept_word(p, "TABLES"))
            expect_word(p, "TABLE");
        st->kind = SQL_STMT_LOCK_TABLES;
        vec_t v = {0};
        do {
            sql_lock_table_t *lt = vec_push(p, &v, sizeof *lt);
            lt->table = table_name(p);
            if (accept_word(p, "AS"))
                lt->alias = ident(p);
            else if (is_ident(p) && !is_word(p, "READ") && !is_word(p, "WRITE") && !is_word(p, "LOW_PRIORITY"))
                lt->alias = ident(p);
            if (accept_word(p, "READ")) {
                lt->type = accept_word(p, "LOCAL") ? SQL_TLOCK_READ_LOCAL : SQL_TLOCK_READ;
            } else if (accept_word(p, "LOW_PRIORITY")) {
                expect_word(p, "WRITE");
                lt->type = SQL_TLOCK_LOW_PRIORITY_WRITE;
            } else {
                expect_word(p, "WRITE");
                lt->type = SQL_TLOCK_WRITE;
                accept_word(p, "CONCURRENT");
            }
        } while (accept_punct(p, ','));
        st->lock.tables = v.items;
        st->lock.n = v.n;
        return;
    }
    if (accept_word(p, "UNLOCK")) {
        if (!accept_word(p, "TABLES"))
            expect_word(p, "TABLE");
        st->kind = SQL_STMT_UNLOCK_TABLES;
        return;
    }
    syntax_error(p);
}

/*
 * A statement's text is what MariaDB keeps as its query (the binlog's QUERY and ANNOTATE_ROWS text, SHOW
 * PROCESSLIST's Info): from the end of the previous ';' (or the start of the text), whitespace skipped, up to
 * the ';' that ends it (spaces before it included), or to the end of the text without trailing whitespace for
 * the last one.  Leading and trailing comments, an executable comment's closing star-slash and the spaces before
 * the ';' all belong to it; the span of its first and last tokens would lose them, and a replica re-parsing a
 * text cut inside a comment fails (1064).
 */
static bool is_space_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static const char *stmt_text_start(const char *from, const char *first_token)
{
    while (from < first_token && is_space_byte(*from))
        from++;
    return from;
}

/* The length of the statement from start to end (its ';' or the end of the text).  The last statement (nothing
 * but ';' and whitespace after end) loses its trailing whitespace, as MariaDB trims the whole text's tail. */
static size_t stmt_text_len(const char *start, const char *end, const char *text_end)
{
    for (const char *q = end; q < text_end; q++)
        if (*q != ';' && !is_space_byte(*q))
            return (size_t)(end - start);
    while (end > start && is_space_byte(end[-1]))
        end--;
    return (size_t)(end - start);
}

int sql_parse(arena_t *a, const char *text, size_t len, sql_stmt_list_t *out, diag_t *d)
{
    return sql_parse_mode(a, text, len, 0, out, d);
}

int sql_parse_mode(arena_t *a, const char *text, size_t len, unsigned mode, sql_stmt_list_t *out, diag_t *d)
{
    parser_t *p = arena_calloc(a, sizeof *p);
    p->a = a;
    p->d = d;
    sql_lex_init(&p->lx, a, text, len, mode);
    memset(out, 0, sizeof *out);
    vec_t stmts = {0};
    if (setjmp(p->fail))
        return d->error_code ? -d->error_code : -ER_PARSE_ERROR;
    sql_lex_next(&p->lx, &p->tok);
    p->prev_end = text;
    for (;;) {
        while (accept_punct(p, ';'))
            ;
        if (p->tok.type == TK_EOF)
            break;
        if (p->tok.type == TK_ERROR)
            syntax_error(p);
        sql_stmt_t *st = alloc(p, sizeof *st);
        p->params = NULL;
        p->nparams = p->capparams = 0;
        p->depth = 0;
        st->src = stmt_text_start(p->prev_end, p->tok.start);
        statement(p, st);
        if (!at_end(p))
            syntax_error(p);
        st->src_len = stmt_text_len(st->src, p->tok.type == TK_EOF ? text + len : p->tok.start, text + len);
        st->nparams = p->nparams;
        st->params = p->params;
        *(sql_stmt_t **)vec_push(p, &stmts, sizeof(sql_stmt_t *)) = st;
        if (p->tok.type == TK_EOF)
            break;
    }
    if (stmts.n == 0) {
        sql_stmt_t *st = alloc(p, sizeof *st);
        st->kind = SQL_STMT_EMPTY;
        st->src = text;
        *(sql_stmt_t **)vec_push(p, &stmts, sizeof(sql_stmt_t *)) = st;
    }
    out->stmts = stmts.items;
    out->n = stmts.n;
    return 0;
}

int sql_parse_expr(arena_t *a, const char *text, size_t len, sql_expr_t **out, diag_t *d)
{
    parser_t *p = arena_calloc(a, sizeof *p);
    p->a = a;
    p->d = d;
    sql_lex_init(&p->lx, a, text, len, 0);
    *out = NULL;
    if (setjmp(p->fail))
        return d->error_code ? -d->error_code : -ER_PARSE_ERROR;
    sql_lex_next(&p->lx, &p->tok);
    p->prev_end = text;
    if (p->tok.type == TK_ERROR)
        syntax_error(p);
    sql_expr_t *e = expr(p);
    if (p->tok.type != TK_EOF)
        syntax_error(p);
    *out = e;
    return 0;
}
