/*
 * The SQL lexer: bytes -> tokens, MySQL's way.  Comments (--, #, C-style) are skipped; executable comments
 * (slash-star-bang NNNNN ... and slash-star-M-bang NNNNN ...) are entered when NNNNN <= SQL_VERSION_ID (their body is lexed as
 * ordinary text and their closing star-slash dropped) and skipped otherwise.  Keywords are not tokens of their
 * own: a word is TK_WORD and the parser matches it case-insensitively; `reserved` says whether it may serve as
 * an identifier.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/parser/parser_int.h"

static const char *const reserved_words[] = {
#define RW(w) #w,
#include "sql/parser/reserved.def"
#undef RW
};

static int cmp_word(const void *key, const void *elem)
{
    return strcasecmp((const char *)key, *(const char *const *)elem);
}

bool sql_word_is_reserved(const char *s, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    return bsearch(buf, reserved_words, ARRAY_LEN(reserved_words), sizeof reserved_words[0], cmp_word) != NULL;
}

void sql_lex_init(sql_lexer_t *lx, arena_t *a, const char *text, size_t len, unsigned mode)
{
    lx->mode = mode;
    lx->arena = a;
    lx->text = lx->pos = text;
    lx->end = text + len;
    lx->line = 1;
    lx->in_exec_comment = 0;
}

static bool is_ident_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

static int peek(const sql_lexer_t *lx, size_t k)
{
    return lx->pos + k < lx->end ? (unsigned char)lx->pos[k] : -1;
}

static void advance(sql_lexer_t *lx, size_t k)
{
    for (size_t i = 0; i < k && lx->pos < lx->end; i++, lx->pos++)
        if (*lx->pos == '\n')
            lx->line++;
}

/* Skips whitespace and comments; enters/leaves executable comments.  */
static void skip_space(sql_lexer_t *lx)
{
    for (;;) {
        int c = peek(lx, 0);
        if (c < 0)
            return;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            advance(lx, 1);
        } else if (c == '#' || (c == '-' && peek(lx, 1) == '-' &&
                                (peek(lx, 2) < 0 || peek(lx, 2) <= ' '))) {
            while (lx->pos < lx->end && *lx->pos != '\n')
                lx->pos++;
        } else if (c == '*' && peek(lx, 1) == '/' && lx->in_exec_comment) {
            lx->in_exec_comment = 0;
            advance(lx, 2);
        } else if (c == '/' && peek(lx, 1) == '*') {
            size_t k = 2;
            bool exec = false;
            if (peek(lx, 2) == '!') {
                exec = true;
                k = 3;
            } else if (peek(lx, 2) == 'M' && peek(lx, 3) == '!') {
                exec = true;
                k = 4;
            }
            if (exec && !lx->in_exec_comment) {
                size_t nd = 0;
                long ver = 0;
                while (nd < 6 && peek(lx, k + nd) >= '0' && peek(lx, k + nd) <= '9') {
                    ver = ver * 10 + (peek(lx, k + nd) - '0');
                    nd++;
                }
                if (nd == 5 || nd == 6 || nd == 0) {
                    /* MariaDB runs /x*!NNNNN x/ up to its own version, except MySQL 5.7+'s 50700..99999
                     * (not for /x*M!NNNNN x/) */
                    bool mysql57 = k == 3 && ver >= 50700 && ver <= 99999;
                    if (nd == 0 || (ver <= SQL_VERSION_ID && !mysql57)) {
                        advance(lx, k + nd);
                        lx->in_exec_comment = 1;
                        continue;
                    }
                } else {
                    nd = 0; /* not a version: body executes from after the '!' */
                    advance(lx, k);
                    lx->in_exec_comment = 1;
                    continue;
                }
            }
            /* plain (or non-executed) comment: skip to its end; unterminated runs to the end */
            advance(lx, 2);
            while (lx->pos < lx->end && !(*lx->pos == '*' && lx->pos + 1 < lx->end && lx->pos[1] == '/'))
                advance(lx, 1);
            advance(lx, 2);
        } else {
            return;
        }
    }
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes hex digits (odd count: leading 0 nibble) into t->text. */
static bool decode_hex(sql_lexer_t *lx, sql_tok_t *t, const char *s, size_t n)
{
    char *o = arena_alloc(lx->arena, n / 2 + 2);
    size_t oi = 0, i = 0;
    if (n % 2) {
        int v = hexval((unsigned char)s[0]);
        if (v < 0)
            return false;
        o[oi++] = (char)v;
        i = 1;
    }
    for (; i < n; i += 2) {
        int hi = hexval((unsigned char)s[i]), lo = hexval((unsigned char)s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        o[oi++] = (char)(hi * 16 + lo);
    }
    o[oi] = 0;
    t->text = o;
    t->text_len = oi;
    return true;
}

static bool decode_bits(sql_lexer_t *lx, sql_tok_t *t, const char *s, size_t n)
{
    size_t nbytes = (n + 7) / 8;
    char *o = arena_calloc(lx->arena, nbytes + 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '0' && s[i] != '1')
            return false;
        size_t bit = n - 1 - i; /* from the right */
        if (s[i] == '1')
            o[nbytes - 1 - bit / 8] |= (char)(1 << (bit % 8));
    }
    t->text = o;
    t->text_len = nbytes;
    return true;
}

/* Reads a quoted string starting at lx->pos (the quote); decodes escapes.  False if unterminated. */
static bool read_quoted(sql_lexer_t *lx, sql_tok_t *t, bool escapes)
{
    char q = *lx->pos;
    const char *p = lx->pos + 1;
    /* The decoded text is never longer than the quoted span: find its end first, so that a statement with many
     * literals (a multi-row INSERT) allocates the size of each, not of the rest of the statement for each. */
    const char *e = p;
    while (e < lx->end) {
        if (*e == '\\' && escapes && e + 1 < lx->end)
            e += 2;
        else if (*e == q && !(e + 1 < lx->end && e[1] == q))
            break;
        else
            e += *e == q ? 2 : 1;
    }
    char *o = arena_alloc(lx->arena, (size_t)(e - p) + 1);
    size_t oi = 0;
    while (p < lx->end) {
        char c = *p;
        if (c == q) {
            if (p + 1 < lx->end && p[1] == q) {
                o[oi++] = q;
                p += 2;
                continue;
            }
            o[oi] = 0;
            t->text = o;
            t->text_len = oi;
            advance(lx, (size_t)(p + 1 - lx->pos));
            return true;
        }
        if (c == '\\' && escapes && p + 1 < lx->end) {
            char e = p[1];
            switch (e) {
            case '0': o[oi++] = 0; break;
            case 'b': o[oi++] = '\b'; break;
            case 'n': o[oi++] = '\n'; break;
            case 'r': o[oi++] = '\r'; break;
            case 't': o[oi++] = '\t'; break;
            case 'Z': o[oi++] = 0x1a; break;
            case '%': case '_': o[oi++] = '\\'; o[oi++] = e; break;
            default: o[oi++] = e; break;
            }
            p += 2;
            continue;
        }
        o[oi++] = c;
        p++;
    }
    return false;
}

void sql_lex_next(sql_lexer_t *lx, sql_tok_t *t)
{
    skip_space(lx);
    memset(t, 0, sizeof *t);
    t->start = lx->pos;
    t->line = lx->line;
    int c = peek(lx, 0);
    if (c < 0) {
        t->type = TK_EOF;
        return;
    }
    const char *s = lx->pos;
    /* X'..' B'..' N'..' */
    if ((c == 'x' || c == 'X' || c == 'b' || c == 'B') && peek(lx, 1) == '\'') {
        const char *p = s + 2;
        while (p < lx->end && *p != '\'')
            p++;
        if (p >= lx->end) {
            t->type = TK_ERROR;
            lx->pos = lx->end;
            goto done;
        }
        bool ok = (c == 'x' || c == 'X') ? ((p - s - 2) % 2 == 0 && decode_hex(lx, t, s + 2, (size_t)(p - s - 2)))
                                         : decode_bits(lx, t, s + 2, (size_t)(p - s - 2));
        t->type = ok ? ((c == 'x' || c == 'X') ? TK_HEX : TK_BIT) : TK_ERROR;
        advance(lx, (size_t)(p + 1 - s));
        goto done;
    }
    if ((c == 'n' || c == 'N') && peek(lx, 1) == '\'') {
        advance(lx, 1);
        t->type = read_quoted(lx, t, !(lx->mode & SQL_PARSE_NO_BACKSLASH_ESCAPES)) ? TK_NSTRING : TK_ERROR;
        if (t->type == TK_ERROR)
            lx->pos = lx->end;
        goto done;
    }
    if (isdigit(c) || (c == '.' && peek(lx, 1) >= '0' && peek(lx, 1) <= '9')) {
        /* 0x.. / 0b.. */
        if (c == '0' && (peek(lx, 1) == 'x' || peek(lx, 1) == 'b')) {
            bool hex = peek(lx, 1) == 'x';
            const char *p = s + 2;
            while (p < lx->end && (hex ? isxdigit((unsigned char)*p) : (*p == '0' || *p == '1')))
                p++;
            if (p > s + 2 && (p >= lx->end || !is_ident_char((unsigned char)*p))) {
                bool ok = hex ? decode_hex(lx, t, s + 2, (size_t)(p - s - 2)) : decode_bits(lx, t, s + 2, (size_t)(p - s - 2));
                t->type = ok ? (hex ? TK_HEX : TK_BIT) : TK_ERROR;
                advance(lx, (size_t)(p - s));
                goto done;
            }
        }
        const char *p = s;
        sql_tok_type_t ty = TK_INT;
        while (p < lx->end && isdigit((unsigned char)*p))
            p++;
        if (p < lx->end && *p == '.') {
            ty = TK_DECIMAL;
            p++;
            while (p < lx->end && isdigit((unsigned char)*p))
                p++;
        }
        if (p < lx->end && (*p == 'e' || *p == 'E')) {
            const char *q = p + 1;
            if (q < lx->end && (*q == '+' || *q == '-'))
                q++;
            if (q < lx->end && isdigit((unsigned char)*q)) {
                while (q < lx->end && isdigit((unsigned char)*q))
                    q++;
                ty = TK_FLOAT;
                p = q;
            }
        }
        if (ty == TK_INT && p < lx->end && is_ident_char((unsigned char)*p)) {
            /* identifier starting with digits (1abc) */
            while (p < lx->end && is_ident_char((unsigned char)*p))
                p++;
            t->type = TK_WORD;
        } else {
            t->type = ty;
        }
        t->text = arena_strndup(lx->arena, s, (size_t)(p - s));
        t->text_len = (size_t)(p - s);
        advance(lx, (size_t)(p - s));
        goto done;
    }
    if (c == '\\' && peek(lx, 1) == 'N' && !(peek(lx, 2) >= 0 && is_ident_char((unsigned char)peek(lx, 2)))) {
        /* \N is NULL (MySQL's LOAD DATA spelling, accepted in statements too) */
        t->type = TK_WORD;
        t->text = arena_strndup(lx->arena, "NULL", 4);
        t->text_len = 4;
        t->reserved = true;
        advance(lx, 2);
        goto done;
    }
    if (is_ident_char((unsigned char)c)) {
        const char *p = s;
        while (p < lx->end && is_ident_char((unsigned char)*p))
            p++;
        t->type = TK_WORD;
        t->text = arena_strndup(lx->arena, s, (size_t)(p - s));
        t->text_len = (size_t)(p - s);
        t->reserved = sql_word_is_reserved(s, (size_t)(p - s));
        advance(lx, (size_t)(p - s));
        goto done;
    }
    if (c == '`' || (c == '"' && (lx->mode & SQL_PARSE_ANSI_QUOTES))) {
        t->type = read_quoted(lx, t, false) ? TK_QIDENT : TK_ERROR;
        if (t->type == TK_ERROR)
            lx->pos = lx->end;
        goto done;
    }
    if (c == '\'' || c == '"') {
        t->type = read_quoted(lx, t, !(lx->mode & SQL_PARSE_NO_BACKSLASH_ESCAPES)) ? TK_STRING : TK_ERROR;
        if (t->type == TK_ERROR)
            lx->pos = lx->end;
        goto done;
    }
    if (c == '@') {
        if (peek(lx, 1) == '@') {
            t->type = TK_AT2;
            advance(lx, 2);
            goto done;
        }
        advance(lx, 1);
        int c1 = peek(lx, 0);
        if (c1 == '\'' || c1 == '"' || c1 == '`') {
            t->type = read_quoted(lx, t, c1 != '`' && !(lx->mode & SQL_PARSE_NO_BACKSLASH_ESCAPES)) ? TK_USERVAR
                                                                                                     : TK_ERROR;
            if (t->type == TK_ERROR)
                lx->pos = lx->end;
            goto done;
        }
        const char *p = lx->pos;
        while (p < lx->end && (is_ident_char((unsigned char)*p) || *p == '.'))
            p++;
        t->type = TK_USERVAR;
        t->text = arena_strndup(lx->arena, lx->pos, (size_t)(p - lx->pos));
        t->text_len = (size_t)(p - lx->pos);
        advance(lx, (size_t)(p - lx->pos));
        goto done;
    }
    if (c == '?') {
        t->type = TK_PARAM;
        advance(lx, 1);
        goto done;
    }
    t->type = TK_PUNCT;
    int c1 = peek(lx, 1), c2 = peek(lx, 2);
    int op = c;
    size_t n = 1;
    if (c == ':' && c1 == '=') op = P_ASSIGN, n = 2;
    else if (c == '<' && c1 == '=' && c2 == '>') op = P_NSEQ, n = 3;
    else if (c == '<' && c1 == '>') op = P_NE, n = 2;
    else if (c == '!' && c1 == '=') op = P_NE, n = 2;
    else if (c == '<' && c1 == '=') op = P_LE, n = 2;
    else if (c == '>' && c1 == '=') op = P_GE, n = 2;
    else if (c == '<' && c1 == '<') op = P_SHL, n = 2;
    else if (c == '>' && c1 == '>') op = P_SHR, n = 2;
    else if (c == '&' && c1 == '&') op = P_AND2, n = 2;
    else if (c == '|' && c1 == '|') op = P_OR2, n = 2;
    /* no `->`: MariaDB 10.11 has no JSON arrow operators, c->'$.a' is `c -` then a syntax error at `>` */
    t->op = op;
    advance(lx, n);
done:
    t->len = (size_t)(lx->pos - t->start);
}
