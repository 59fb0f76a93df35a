/*
 * Statement digests: the text of a statement with its literals taken out, so that statements that differ only
 * in their values are counted together (performance_schema.events_statements_summary_by_digest).  The text is
 * the one MariaDB 10.11 prints, token by token:
 *
 *   - the statement is read by strata's lexer (lex.c): comments and whitespace disappear, executable comments
 *     are entered as the parser enters them;
 *   - a keyword (keywords.def, MariaDB's list) prints uppercased under its token's name; any other word and
 *     every quoted identifier prints backquoted as `name`; a word after '.' is always an identifier;
 *   - numbers, strings, ? and a NULL literal print as ?; a sign directly before a number, where an expression
 *     starts (after '(', ',', SELECT, WHERE's AND, an arithmetic operator, ...), is part of it;
 *   - ? , ? becomes "?, ..."; ( ? ) becomes "(?)", ( ?, ... ) "(...)"; a list of such rows ("VALUES (1),(2)",
 *     "IN ((1,2),(3,4))") becomes "(?) /" "* , ... *" "/" or "(...) /" "* , ... *" "/";
 *   - every token is followed by one space, except '@' (so @@version prints "@@`version`", @x "@?").
 *
 * The reductions look back at most two tokens and never across an identifier (MariaDB's rule: "a - 1" must stay
 * binary).  Tokens are kept in a small array with the byte cost MariaDB's token array gives them (2 per token,
 * 4 + length per identifier), so performance_schema_max_digest_length cuts a long statement where MariaDB's
 * does.  The DIGEST hash itself is strata's (MD5 of this text), not MariaDB's MD5 of its token array.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sql/parser/parser_int.h"

typedef enum { KW_WORD, KW_FUNCTION } kw_kind_t;

typedef struct keyword {
    const char *word, *printed;
    kw_kind_t kind;
} keyword_t;

static const keyword_t keywords[] = {
#define KEYWORD(w, p, k) {#w, #p, KW_##k},
#include "sql/parser/keywords.def"
#undef KEYWORD
};

/* Kinds of digest tokens: a character (< 256) or one of these. */
enum {
    DT_WORD = 256,  /* keyword or operator: printed as text */
    DT_IDENT,       /* `text` */
    DT_VALUE,       /* ? */
    DT_VALUE_LIST,  /* ?, ... */
    DT_ROW1,        /* (?) */
    DT_ROW1_LIST,   /* (?) , ... */
    DT_ROWN,        /* (...) */
    DT_ROWN_LIST,   /* (...) , ... */
};

typedef struct dtok {
    int kind;
    const char *s; /* DT_WORD's text, DT_IDENT's name */
    size_t n;
    bool start_expr; /* an expression may start after it: a sign after it is unary */
} dtok_t;

typedef struct digest {
    dtok_t *tok;
    uint32_t n, cap;
    uint32_t barrier;  /* tokens before it (up to the last identifier) are out of the reductions' reach */
    size_t bytes, max; /* MariaDB's token-array bytes used, and the limit */
    bool full;
    arena_t *a;
} digest_t;

static int kw_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const keyword_t *)elem)->word);
}

static const keyword_t *kw_find(const char *s, size_t n)
{
    char up[64];
    if (n == 0 || n >= sizeof up)
        return NULL;
    for (size_t i = 0; i < n; i++)
        up[i] = (char)toupper((unsigned char)s[i]);
    up[n] = 0;
    return bsearch(up, keywords, ARRAY_LEN(keywords), sizeof keywords[0], kw_cmp);
}

/* The keywords after which an expression starts (MariaDB's gen_lex_token list), by printed name; looked up
 * once per keyword of the table, on first use. */
static bool kw_start_flags[ARRAY_LEN(keywords)];
static pthread_once_t kw_once = PTHREAD_ONCE_INIT;

static void kw_flags_init(void)
{
    static const char *const list[] = {"AND", "AT", "BETWEEN", "CASE", "DEFAULT", "DIV", "ELSEIF", "ENDS", "EVERY",
                                       "IF", "INTERVAL", "LIKE", "MOD", "NOT", "OR", "RETURN", "RLIKE", "SELECT",
                                       "STARTS", "UNTIL", "WHEN", "WHILE", "XOR"};
    for (size_t k = 0; k < ARRAY_LEN(keywords); k++)
        for (size_t i = 0; i < ARRAY_LEN(list); i++)
            if (strcmp(keywords[k].printed, list[i]) == 0)
                kw_start_flags[k] = true;
}

static bool kw_starts_expr(const keyword_t *k)
{
    pthread_once(&kw_once, kw_flags_init);
    return kw_start_flags[k - keywords];
}

static const dtok_t *last(const digest_t *d, uint32_t k)
{
    return d->n >= d->barrier + k ? &d->tok[d->n - k] : NULL;
}

static int last_kind(const digest_t *d, uint32_t k)
{
    const dtok_t *t = last(d, k);
    return t ? t->kind : -1;
}

static void pop(digest_t *d, uint32_t k)
{
    while (k--) {
        dtok_t *t = &d->tok[--d->n];
        d->bytes -= t->kind == DT_IDENT ? 4 + t->n : 2;
    }
}

static void push(digest_t *d, dtok_t t)
{
    size_t cost = t.kind == DT_IDENT ? 4 + t.n : 2;
    if (d->full || d->bytes + cost > d->max) {
        d->full = true;
        return;
    }
    if (d->n == d->cap) {
        uint32_t nc = d->cap ? d->cap * 2 : 64;
        dtok_t *nt = arena_alloc(d->a, sizeof *nt * nc);
        if (d->n)
            memcpy(nt, d->tok, sizeof *nt * d->n);
        d->tok = nt;
        d->cap = nc;
    }
    d->tok[d->n++] = t;
    d->bytes += cost;
    if (t.kind == DT_IDENT)
        d->barrier = d->n;
}

static void push_char(digest_t *d, int c)
{
    bool start = c == '(' || c == ',' || c == '|' || c == '&' || c == '+' || c == '-' || c == '*' || c == '/' ||
                 c == '%' || c == '^';
    push(d, (dtok_t){.kind = c, .start_expr = start});
}

static void push_word(digest_t *d, const char *s, bool start_expr)
{
    push(d, (dtok_t){.kind = DT_WORD, .s = s, .n = strlen(s), .start_expr = start_expr});
}

static bool is_value(int k) { return k == DT_VALUE || k == DT_VALUE_LIST; }

/* A literal: a sign before a number where an expression starts joins it; "? , ?" becomes a list. */
static void add_value(digest_t *d, bool number)
{
    if (number)
        while ((last_kind(d, 1) == '-' || last_kind(d, 1) == '+') && last(d, 2) && last(d, 2)->start_expr)
            pop(d, 1);
    if (last_kind(d, 1) == ',' && is_value(last_kind(d, 2))) {
        pop(d, 2);
        push(d, (dtok_t){.kind = DT_VALUE_LIST});
    } else {
        push(d, (dtok_t){.kind = DT_VALUE});
    }
}

/* ')' closes "( ? )" or "( ?, ... )" into a row, and a row after "row ," into a list of rows. */
static void add_close(digest_t *d)
{
    int row = 0, list = 0;
    if (last_kind(d, 1) == DT_VALUE && last_kind(d, 2) == '(')
        row = DT_ROW1, list = DT_ROW1_LIST;
    else if (last_kind(d, 1) == DT_VALUE_LIST && last_kind(d, 2) == '(')
        row = DT_ROWN, list = DT_ROWN_LIST;
    if (!row) {
        push_char(d, ')');
        return;
    }
    pop(d, 2);
    int k2 = last_kind(d, 2);
    if (last_kind(d, 1) == ',' && (k2 == row || k2 == list)) {
        pop(d, 2);
        row = list;
    }
    push(d, (dtok_t){.kind = row});
}

/* NULL is a literal (?) where a value goes, a keyword in IS NULL, NOT NULL and column attributes. */
static bool null_is_value(const digest_t *d)
{
    if (d->n == 0)
        return false;
    const dtok_t *t = &d->tok[d->n - 1];
    if (t->kind == DT_WORD)
        return t->start_expr ? strcmp(t->s, "NOT") != 0
                             : strcmp(t->s, "THEN") == 0 || strcmp(t->s, "ELSE") == 0 || strcmp(t->s, "!=") == 0 ||
                                   strcmp(t->s, "<=") == 0 || strcmp(t->s, ">=") == 0 || strcmp(t->s, "<=>") == 0 ||
                                   strcmp(t->s, ":=") == 0;
    return t->start_expr || t->kind == '=' || t->kind == '<' || t->kind == '>';
}

static const char *punct_text(int op)
{
    switch (op) {
    case P_ASSIGN: return ":=";
    case P_NSEQ: return "<=>";
    case P_NE: return "!=";
    case P_LE: return "<=";
    case P_GE: return ">=";
    case P_SHL: return "<<";
    case P_SHR: return ">>";
    case P_AND2: return "&&";
    case P_OR2: return "||";
    case P_ARROW: return "->";
    default: return NULL;
    }
}

static void add_word(digest_t *d, sql_lexer_t *lx, const sql_tok_t *t)
{
    bool after_dot = d->n && d->tok[d->n - 1].kind == '.';
    if (!after_dot && t->text_len == 4 && strncasecmp(t->text, "NULL", 4) == 0 && null_is_value(d)) {
        add_value(d, false);
        return;
    }
    /* _charset'string' (an introducer) */
    if (t->text[0] == '_' && !after_dot) {
        sql_lexer_t ahead = *lx;
        sql_tok_t nx;
        sql_lex_next(&ahead, &nx);
        if (nx.type == TK_STRING || nx.type == TK_HEX || nx.type == TK_BIT) {
            push_word(d, "(_charset)", false);
            return;
        }
    }
    const keyword_t *k = after_dot ? NULL : kw_find(t->text, t->text_len);
    if (k && k->kind == KW_FUNCTION && !(t->start + t->len < lx->end && t->start[t->len] == '('))
        k = NULL;
    if (k)
        push_word(d, k->printed, kw_starts_expr(k));
    else
        push(d, (dtok_t){.kind = DT_IDENT, .s = t->text, .n = t->text_len});
}

static void add_token(digest_t *d, sql_lexer_t *lx, const sql_tok_t *t)
{
    switch (t->type) {
    case TK_WORD:
        add_word(d, lx, t);
        break;
    case TK_QIDENT:
        push(d, (dtok_t){.kind = DT_IDENT, .s = t->text, .n = t->text_len});
        break;
    case TK_INT:
    case TK_DECIMAL:
    case TK_FLOAT:
    case TK_BIT:
        add_value(d, true);
        break;
    case TK_HEX:
        if (t->start[0] == '0')
            add_value(d, true); /* 0x41 */
        else
            push_word(d, "(unknown)", false); /* X'41': MariaDB's digest has no name for this token */
        break;
    case TK_STRING:
    case TK_NSTRING:
    case TK_PARAM:
        add_value(d, false);
        break;
    case TK_AT2:
        push_char(d, '@');
        push_char(d, '@');
        break;
    case TK_USERVAR: /* @name: the name is a value to MariaDB's digest */
        push_char(d, '@');
        add_value(d, false);
        break;
    case TK_PUNCT:
        if (punct_text(t->op)) {
            bool start = t->op == P_SHL || t->op == P_SHR || t->op == P_AND2 || t->op == P_OR2;
            push_word(d, punct_text(t->op), start);
        } else if (t->op == ')') {
            add_close(d);
        } else {
            push_char(d, t->op);
        }
        break;
    default:
        break;
    }
}

static size_t emit(char *o, size_t at, const char *s, size_t n)
{
    memcpy(o + at, s, n);
    return at + n;
}

char *sql_digest_text(arena_t *a, const char *text, size_t len, unsigned mode, size_t max_bytes, size_t *out_len)
{
    digest_t d = {.a = a, .max = max_bytes};
    sql_lexer_t lx;
    sql_lex_init(&lx, a, text, len, mode);
    for (;;) {
        sql_tok_t t;
        sql_lex_next(&lx, &t);
        if (t.type == TK_EOF || t.type == TK_ERROR || d.full)
            break;
        if (t.type == TK_PUNCT && t.op == ';') {
            sql_lexer_t ahead = lx;
            sql_tok_t nx;
            sql_lex_next(&ahead, &nx);
            if (nx.type == TK_EOF)
                break; /* the statement's own terminator */
        }
        add_token(&d, &lx, &t);
    }
    /* the longest text per token: "(...) / * , ... * / " or an identifier doubled by its backquotes */
    size_t cap = 1;
    for (uint32_t i = 0; i < d.n; i++)
        cap += d.tok[i].kind == DT_IDENT ? 2 * d.tok[i].n + 3 : d.tok[i].kind == DT_WORD ? d.tok[i].n + 1 : 20;
    char *o = arena_alloc(a, cap);
    size_t at = 0;
    for (uint32_t i = 0; i < d.n; i++) {
        const dtok_t *t = &d.tok[i];
        switch (t->kind) {
        case DT_WORD: at = emit(o, at, t->s, t->n); break;
        case DT_VALUE: at = emit(o, at, "?", 1); break;
        case DT_VALUE_LIST: at = emit(o, at, "?, ...", 6); break;
        case DT_ROW1: at = emit(o, at, "(?)", 3); break;
        case DT_ROW1_LIST: at = emit(o, at, "(?) /* , ... */", 15); break;
        case DT_ROWN: at = emit(o, at, "(...)", 5); break;
        case DT_ROWN_LIST: at = emit(o, at, "(...) /* , ... */", 17); break;
        case DT_IDENT:
            o[at++] = '`';
            for (size_t k = 0; k < t->n; k++) {
                if (t->s[k] == '`')
                    o[at++] = '`';
                o[at++] = t->s[k];
            }
            o[at++] = '`';
            break;
        default: o[at++] = (char)t->kind; break;
        }
        if (t->kind != '@')
            o[at++] = ' ';
    }
    o[at] = 0;
    *out_len = at;
    return o;
}
