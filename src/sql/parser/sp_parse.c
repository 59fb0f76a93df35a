/*
 * The routine-body parser: MariaDB's compound-statement grammar (sql_yacc.yy's sp_proc_stmt and friends) over
 * the lexer's tokens, building the tree of sp.h.  What is not a compound statement -- any other statement, and
 * every expression -- is cut out of the text as it was written, its variable references replaced by `?`
 * (rewrite()), and parsed by the ordinary parser (sql_parse / sql_parse_expr) to check it now, as MariaDB
 * reports a body's syntax errors at CREATE.
 *
 * Where a piece of text ends is found by scanning tokens: an expression ends at one of the words that may follow
 * it (THEN, DO, ...) at parenthesis depth 0 and outside any CASE ... END of its own; a statement at the ';' that
 * ends it.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/parser/parser_int.h"
#include "sql/parser/sp.h"
#include "util/buf.h"

typedef struct scope_ent {
    const char *name;
    uint32_t idx;
} scope_ent_t;

typedef struct named_cond {
    const char *name;
    sp_cond_t cond;
    uint32_t depth;
} named_cond_t;

typedef struct label_ent {
    const char *name;
    sp_node_t *node;
    bool is_loop;
} label_ent_t;

typedef struct spp {
    arena_t *a;
    diag_t *d;
    sql_lexer_t lx;
    sql_tok_t tok, ahead;
    bool have_ahead;
    const char *prev_end, *text, *end;
    unsigned mode;
    jmp_buf fail;
    /* the variables visible now (innermost last) and every variable of the frame */
    scope_ent_t *scope;
    uint32_t nscope, capscope;
    sp_var_info_t *vars;
    uint32_t nvars, capvars;
    named_cond_t *conds;
    uint32_t nconds, capconds;
    scope_ent_t *cursors;
    uint32_t ncursors, capcursors, ncursor_slots;
    const char **cursor_names;
    label_ent_t labels[64];
    uint32_t nlabels;
    uint32_t depth;
    bool is_function, has_return, has_sql;
    bool in_cursor; /* parsing a cursor's SELECT */
    sp_node_t *cursor_nodes[256];
    /* a trigger's body: its event and timing, and the NEW.x / OLD.x met so far */
    const sp_trigger_info_t *trig;
    sp_trig_ref_t *trefs;
    uint32_t ntrefs, captrefs;
} spp_t;

static void grow(spp_t *p, void **items, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *ni = arena_alloc(p->a, elem * nc);
    if (n)
        memcpy(ni, *items, elem * n);
    *items = ni;
    *cap = nc;
}

/* ---------------------------------------------------------------- tokens and errors */

static void next(spp_t *p)
{
    p->prev_end = p->tok.start + p->tok.len;
    if (p->have_ahead) {
        p->tok = p->ahead;
        p->have_ahead = false;
    } else {
        sql_lex_next(&p->lx, &p->tok);
    }
}

static const sql_tok_t *peek2(spp_t *p)
{
    if (!p->have_ahead) {
        sql_lex_next(&p->lx, &p->ahead);
        p->have_ahead = true;
    }
    return &p->ahead;
}

static __attribute__((noreturn)) void fail_at(spp_t *p, const sql_tok_t *t)
{
    const char *near = t->type == TK_EOF ? p->end : t->start;
    const char *e = near;
    int chars = 0;
    while (e < p->end && chars < 80) {
        unsigned char c = (unsigned char)*e;
        size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        if (e + n > p->end)
            n = (size_t)(p->end - e);
        e += n;
        chars++;
    }
    char *nt = arena_strndup(p->a, near, (size_t)(e - near));
    diag_error(p->d, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), nt, (int)t->line);
    longjmp(p->fail, 1);
}

static __attribute__((noreturn)) void syntax_error(spp_t *p) { fail_at(p, &p->tok); }

/* an error of the routine's own (already pushed) */
static __attribute__((noreturn)) void fail(spp_t *p) { longjmp(p->fail, 1); }

static bool tok_is_word(const sql_tok_t *t, const char *w)
{
    return t->type == TK_WORD && t->len == strlen(w) && strncasecmp(t->start, w, t->len) == 0;
}
static bool is_word(spp_t *p, const char *w) { return tok_is_word(&p->tok, w); }
static bool accept_word(spp_t *p, const char *w)
{
    if (!is_word(p, w))
        return false;
    next(p);
    return true;
}
static void expect_word(spp_t *p, const char *w)
{
    if (!accept_word(p, w))
        syntax_error(p);
}
static bool is_punct(spp_t *p, int op) { return p->tok.type == TK_PUNCT && p->tok.op == op; }
static bool accept_punct(spp_t *p, int op)
{
    if (!is_punct(p, op))
        return false;
    next(p);
    return true;
}
static void expect_punct(spp_t *p, int op)
{
    if (!accept_punct(p, op))
        syntax_error(p);
}

static bool tok_is_ident(const sql_tok_t *t) { return (t->type == TK_WORD && !t->reserved) || t->type == TK_QIDENT; }

static const char *ident(spp_t *p)
{
    if (!tok_is_ident(&p->tok))
        syntax_error(p);
    const char *s = p->tok.type == TK_QIDENT ? p->tok.text : arena_strndup(p->a, p->tok.start, p->tok.len);
    next(p);
    return s;
}

/* ---------------------------------------------------------------- names */

static int32_t var_find(spp_t *p, const char *name, size_t len)
{
    for (uint32_t i = p->nscope; i-- > 0;)
        if (strlen(p->scope[i].name) == len && strncasecmp(p->scope[i].name, name, len) == 0)
            return (int32_t)p->scope[i].idx;
    return -1;
}

static int32_t tok_var(spp_t *p, const sql_tok_t *t)
{
    if (t->type == TK_QIDENT)
        return var_find(p, t->text, strlen(t->text));
    if (t->type == TK_WORD && !t->reserved)
        return var_find(p, t->start, t->len);
    return -1;
}

static uint32_t var_add(spp_t *p, const char *name, const sql_type_t *type, bool is_param)
{
    grow(p, (void **)&p->vars, p->nvars, &p->capvars, sizeof *p->vars);
    p->vars[p->nvars] = (sp_var_info_t){name, *type, is_param, false};
    grow(p, (void **)&p->scope, p->nscope, &p->capscope, sizeof *p->scope);
    p->scope[p->nscope++] = (scope_ent_t){name, p->nvars};
    return p->nvars++;
}

static bool tok_is_row(const spp_t *p, const sql_tok_t *t)
{
    return p->trig && t->type == TK_WORD && (tok_is_word(t, "NEW") || tok_is_word(t, "OLD"));
}

/* The frame variable of a trigger's NEW.col / OLD.col (row: the NEW / OLD token, col: the column's); assign:
 * the target of a SET.  MariaDB's checks at CREATE: the row must exist for the event (1363), only NEW of a
 * BEFORE trigger may be assigned (1362). */
static int32_t trig_var(spp_t *p, const sql_tok_t *row, const sql_tok_t *col, bool assign)
{
    bool is_new = tok_is_word(row, "NEW");
    if (assign && (!is_new || strcmp(p->trig->timing, "AFTER") == 0)) {
        diag_error(p->d, ER_TRG_CANT_CHANGE_ROW, is_new ? "NEW" : "OLD", is_new ? "after " : "");
        fail(p);
    }
    if (is_new && strcmp(p->trig->event, "DELETE") == 0) {
        diag_error(p->d, ER_TRG_NO_SUCH_ROW_IN_TRG, "NEW", "DELETE");
        fail(p);
    }
    if (!is_new && strcmp(p->trig->event, "INSERT") == 0) {
        diag_error(p->d, ER_TRG_NO_SUCH_ROW_IN_TRG, "OLD", "INSERT");
        fail(p);
    }
    const char *name = col->type == TK_QIDENT ? col->text : arena_strndup(p->a, col->start, col->len);
    for (uint32_t i = 0; i < p->ntrefs; i++)
        if (p->trefs[i].is_new == is_new && strcasecmp(p->trefs[i].column, name) == 0) {
            p->trefs[i].assigned |= assign;
            return (int32_t)p->trefs[i].var;
        }
    grow(p, (void **)&p->vars, p->nvars, &p->capvars, sizeof *p->vars);
    p->vars[p->nvars] = (sp_var_info_t){arena_printf(p->a, "%s.%s", is_new ? "NEW" : "OLD", name), {0}, false, true};
    grow(p, (void **)&p->trefs, p->ntrefs, &p->captrefs, sizeof *p->trefs);
    p->trefs[p->ntrefs++] = (sp_trig_ref_t){p->nvars, is_new, name, assign};
    return (int32_t)p->nvars++;
}

static const named_cond_t *cond_find(spp_t *p, const char *name)
{
    for (uint32_t i = p->nconds; i-- > 0;)
        if (strcasecmp(p->conds[i].name, name) == 0)
            return &p->conds[i];
    return NULL;
}

static int32_t cursor_find(spp_t *p, const char *name)
{
    for (uint32_t i = p->ncursors; i-- > 0;)
        if (strcasecmp(p->cursors[i].name, name) == 0)
            return (int32_t)p->cursors[i].idx;
    return -1;
}

/* ---------------------------------------------------------------- text pieces */

/*
 * The text from..to with every reference to a visible variable replaced by `?`: a word or quoted identifier
 * that names one, not qualified (x.y, y.x), not a function's name (x(...)), not a system variable (@@x), not
 * an alias (AS x), and not where MariaDB reads a name of a table or column rather than an expression: a table
 * after FROM / JOIN / INTO / UPDATE / TABLE, the column list of INSERT / REPLACE (`INSERT INTO t (v) VALUES
 * (v)`: the column, then the variable) and the column assigned by UPDATE's or ON DUPLICATE KEY UPDATE's SET.
 */
static bool tok_is_punct(const sql_tok_t *t, int op) { return t->type == TK_PUNCT && t->op == op; }

static bool tok_names_table_next(const sql_tok_t *prev, const sql_tok_t *pprev)
{
    return tok_is_word(prev, "FROM") || tok_is_word(prev, "JOIN") || tok_is_word(prev, "INTO") ||
           tok_is_word(prev, "TABLE") || (tok_is_word(prev, "UPDATE") && !tok_is_word(pprev, "KEY"));
}

static sp_text_t *rewrite(spp_t *p, const char *from, const char *to, uint32_t line)
{
    sp_text_t *t = arena_calloc(p->a, sizeof *t);
    t->line = line;
    buf_t b;
    buf_init(&b);
    sql_lexer_t lx;
    sql_lex_init(&lx, p->a, from, (size_t)(to - from), p->mode);
    sql_tok_t prev = {0}, pprev = {0}, cur, nx;
    sql_lex_next(&lx, &cur);
    const char *copied = from;
    uint32_t *vars = NULL, nv = 0, cap = 0;
    bool inserting = tok_is_word(&cur, "INSERT") || tok_is_word(&cur, "REPLACE");
    bool updating = tok_is_word(&cur, "UPDATE");
    int depth = 0, skip_depth = -1; /* skip_depth: inside INSERT's column list, at that depth */
    bool subq[64] = {true};         /* the parenthesis at each depth opens a query (FROM there names a table) */
    bool want_cols = false;         /* INSERT's table named: a '(' now opens its column list */
    bool in_set = false;            /* UPDATE's SET list or ON DUPLICATE KEY UPDATE's, at depth 0 */
    while (cur.type != TK_EOF) {
        sql_lex_next(&lx, &nx);
        if (tok_is_punct(&cur, '(')) {
            depth++;
            if (depth > 0 && depth < 64) /* a stray ')' earlier may have taken it below 0 */
                subq[depth] = tok_is_word(&nx, "SELECT") || tok_is_word(&nx, "WITH");
            if (want_cols && inserting && skip_depth < 0)
                skip_depth = depth;
        } else if (tok_is_punct(&cur, ')')) {
            if (depth == skip_depth)
                skip_depth = -1;
            depth--;
        }
        if (depth == 0) {
            if ((updating && tok_is_word(&cur, "SET")) || (tok_is_word(&cur, "UPDATE") && tok_is_word(&prev, "KEY")))
                in_set = true;
            else if (tok_is_word(&cur, "WHERE") || tok_is_word(&cur, "ORDER") || tok_is_word(&cur, "LIMIT"))
                in_set = false;
        }
        bool table_pos = (cur.type == TK_WORD || cur.type == TK_QIDENT) && tok_names_table_next(&prev, &pprev) &&
                         (depth <= 0 || depth >= 64 || subq[depth] || !tok_is_word(&prev, "FROM"));
        if (table_pos && inserting && tok_is_word(&prev, "INTO"))
            want_cols = true;
        else if (want_cols && !tok_is_punct(&cur, '.') && !(tok_is_punct(&prev, '.') && !tok_is_punct(&cur, '(')) &&
                 !tok_is_punct(&cur, '('))
            want_cols = false;
        bool set_target = in_set && depth == 0 && (tok_is_word(&prev, "SET") || tok_is_punct(&prev, ',') ||
                                                   tok_is_word(&prev, "UPDATE")) &&
                          tok_is_punct(&nx, '=');
        bool name_pos = table_pos || set_target || (skip_depth >= 0 && depth >= skip_depth);
        if (tok_is_row(p, &cur) && nx.type == TK_PUNCT && nx.op == '.' && !(prev.type == TK_PUNCT && prev.op == '.')) {
            sql_tok_t col;
            sql_lex_next(&lx, &col);
            if (col.type == TK_WORD || col.type == TK_QIDENT) {
                int32_t tv = trig_var(p, &cur, &col, false);
                buf_append(&b, copied, (size_t)(cur.start - copied));
                buf_append_byte(&b, '?');
                copied = col.start + col.len;
                if (nv == cap) {
                    cap = cap ? cap * 2 : 8;
                    uint32_t *n2 = arena_alloc(p->a, sizeof(uint32_t) * cap);
                    if (nv)
                        memcpy(n2, vars, sizeof(uint32_t) * nv);
                    vars = n2;
                }
                vars[nv++] = (uint32_t)tv;
                pprev = nx;
                prev = col;
                sql_lex_next(&lx, &cur);
                continue;
            }
            pprev = cur;
            prev = nx;
            cur = col;
            continue;
        }
        int32_t v = tok_var(p, &cur);
        if (cur.type == TK_PARAM)
            t->nparams_own++;
        if (tok_is_word(&cur, "SELECT"))
            t->has_query = true;
        if (v >= 0 && !name_pos && !(prev.type == TK_PUNCT && prev.op == '.') &&
            !(nx.type == TK_PUNCT && (nx.op == '.' || nx.op == '(')) && prev.type != TK_AT2 && !tok_is_word(&prev, "AS")) {
            buf_append(&b, copied, (size_t)(cur.start - copied));
            buf_append_byte(&b, '?');
            copied = cur.start + cur.len;
            if (nv == cap) {
                cap = cap ? cap * 2 : 8;
                uint32_t *n2 = arena_alloc(p->a, sizeof(uint32_t) * cap);
                if (nv)
                    memcpy(n2, vars, sizeof(uint32_t) * nv);
                vars = n2;
            }
            vars[nv++] = (uint32_t)v;
        }
        pprev = prev;
        prev = cur;
        cur = nx;
    }
    buf_append(&b, copied, (size_t)(to - copied));
    t->text = arena_strndup(p->a, (const char *)b.data, b.len);
    t->len = b.len;
    buf_free(&b);
    t->vars = vars;
    t->nvars = nv;
    return t;
}

static bool in_words(const sql_tok_t *t, const char *const *stops)
{
    for (; stops && *stops; stops++)
        if (tok_is_word(t, *stops))
            return true;
    return false;
}

/* The extent of an expression up to one of `stops` (or ';' / ',' when comma): [*from, returned end). */
static const char *scan_expr(spp_t *p, const char *const *stops, bool comma, const char **fromp)
{
    const char *from = p->tok.start;
    *fromp = from;
    int depth = 0, cases = 0;
    const char *last = from;
    for (;;) {
        const sql_tok_t *t = &p->tok;
        if (t->type == TK_EOF || t->type == TK_ERROR)
            break;
        if (depth == 0 && cases == 0 && (in_words(t, stops) || (t->type == TK_PUNCT && (t->op == ';' || (comma && t->op == ',')))))
            break;
        if (t->type == TK_PUNCT && t->op == '(')
            depth++;
        else if (t->type == TK_PUNCT && t->op == ')') {
            if (depth == 0)
                break;
            depth--;
        } else if (tok_is_word(t, "CASE"))
            cases++;
        else if (tok_is_word(t, "END") && cases > 0)
            cases--;
        last = t->start + t->len;
        next(p);
    }
    return last;
}

/* An expression up to one of `stops` (or ';' / ',' when comma), parsed now: the tree is kept. */
static sp_text_t *expr_until(spp_t *p, const char *const *stops, bool comma)
{
    const char *from = p->tok.start;
    uint32_t line = p->tok.line;
    int depth = 0, cases = 0;
    const char *last = from;
    for (;;) {
        const sql_tok_t *t = &p->tok;
        if (t->type == TK_EOF || t->type == TK_ERROR)
            break;
        if (depth == 0 && cases == 0 && (in_words(t, stops) || (t->type == TK_PUNCT && (t->op == ';' || (comma && t->op == ',')))))
            break;
        if (t->type == TK_PUNCT && t->op == '(')
            depth++;
        else if (t->type == TK_PUNCT && t->op == ')') {
            if (depth == 0)
                break;
            depth--;
        } else if (tok_is_word(t, "CASE"))
            cases++;
        else if (tok_is_word(t, "END") && cases > 0)
            cases--;
        last = t->start + t->len;
        next(p);
    }
    if (last == from)
        syntax_error(p);
    sp_text_t *x = rewrite(p, from, last, line);
    if (x->nparams_own) {
        sql_tok_t at = {.type = TK_WORD, .start = from, .line = line};
        fail_at(p, &at);
    }
    if (sql_parse_expr(p->a, x->text, x->len, &x->expr, p->d) != 0)
        fail(p);
    return x;
}

/* ---------------------------------------------------------------- statements */

static sp_node_t *statement(spp_t *p);

static sp_node_t *new_node(spp_t *p, sp_kind_t k)
{
    sp_node_t *n = arena_calloc(p->a, sizeof *n);
    n->kind = k;
    n->line = p->tok.line;
    return n;
}

static void list_push(spp_t *p, sp_list_t *l, uint32_t *cap, sp_node_t *n)
{
    grow(p, (void **)&l->items, l->n, cap, sizeof(sp_node_t *));
    l->items[l->n++] = n;
}

/* statements each ended by ';' until one of the words `stops` */
static sp_list_t stmt_list(spp_t *p, const char *const *stops)
{
    sp_list_t l = {0};
    uint32_t cap = 0;
    while (!in_words(&p->tok, stops)) {
        if (p->tok.type == TK_EOF)
            syntax_error(p);
        list_push(p, &l, &cap, statement(p));
        expect_punct(p, ';');
    }
    return l;
}

static void label_push(spp_t *p, const char *name, sp_node_t *n, bool is_loop)
{
    for (uint32_t i = 0; i < p->nlabels; i++)
        if (strcasecmp(p->labels[i].name, name) == 0) {
            diag_error(p->d, ER_SP_LABEL_REDEFINE, name);
            fail(p);
        }
    if (p->nlabels == ARRAY_LEN(p->labels))
        syntax_error(p);
    p->labels[p->nlabels++] = (label_ent_t){name, n, is_loop};
}

static void end_label(spp_t *p, const char *label)
{
    if (tok_is_ident(&p->tok) && !is_punct(p, ';')) {
        const sql_tok_t t = p->tok;
        const char *e = ident(p);
        if (!label || strcasecmp(e, label) != 0) {
            (void)t;
            diag_error(p->d, ER_SP_LABEL_MISMATCH, e);
            fail(p);
        }
    }
}

static void cond_value(spp_t *p, sp_cond_t *c, bool for_handler)
{
    memset(c, 0, sizeof *c);
    if (accept_word(p, "SQLSTATE")) {
        accept_word(p, "VALUE");
        if (p->tok.type != TK_STRING)
            syntax_error(p);
        const char *s = p->tok.text;
        bool ok = strlen(s) == 5 && strncmp(s, "00", 2) != 0;
        for (int i = 0; ok && i < 5; i++)
            ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z');
        if (!ok) {
            diag_error(p->d, ER_SP_BAD_SQLSTATE, s);
            fail(p);
        }
        c->kind = SP_COND_STATE;
        memcpy(c->state, s, 6);
        next(p);
        return;
    }
    if (p->tok.type == TK_INT) {
        c->kind = SP_COND_ERRNO;
        c->err = (uint32_t)strtoul(p->tok.text, NULL, 10);
        if (c->err == 0)
            syntax_error(p);
        next(p);
        return;
    }
    if (!for_handler)
        syntax_error(p);
    if (accept_word(p, "SQLWARNING")) { c->kind = SP_COND_WARNING; return; }
    if (accept_word(p, "SQLEXCEPTION")) { c->kind = SP_COND_EXCEPTION; return; }
    if (is_word(p, "NOT") && tok_is_word(peek2(p), "FOUND")) {
        next(p);
        next(p);
        c->kind = SP_COND_NOT_FOUND;
        return;
    }
    const char *name = ident(p);
    const named_cond_t *nc = cond_find(p, name);
    if (!nc) {
        diag_error(p->d, ER_SP_COND_MISMATCH, name);
        fail(p);
    }
    *c = nc->cond;
}

/* SELECT ... INTO targets: cut out of the statement's text [from, to); 1327 for a name that is no variable */
static void into_targets(spp_t *p, sp_node_t *n, const sql_tok_t *names, uint32_t count)
{
    n->into = arena_calloc(p->a, sizeof(sp_target_t) * (count + 1));
    n->ninto = count;
    for (uint32_t i = 0; i < count; i++) {
        const sql_tok_t *t = &names[i];
        if (t->type == TK_USERVAR) {
            n->into[i].var = -1;
            n->into[i].uservar = t->text;
            continue;
        }
        int32_t v = tok_var(p, t);
        if (v < 0) {
            diag_error(p->d, ER_SP_UNDECLARED_VAR, t->type == TK_QIDENT ? t->text : arena_strndup(p->a, t->start, t->len));
            fail(p);
        }
        n->into[i].var = v;
    }
}

/* Any other statement: its text to the ';', SELECT's INTO taken out of it. */
/* SET autocommit in a function or trigger: refused when it is created (1445), as MariaDB. */
static void set_autocommit_check(spp_t *p, const sql_stmt_t *st)
{
    for (uint32_t i = 0; (p->is_function || p->trig) && i < st->set.nitems; i++) {
        const sql_set_item_t *it = &st->set.items[i];
        if (it->kind == SQL_SET_SYSVAR && it->name && strcasecmp(it->name, "autocommit") == 0) {
            diag_error(p->d, ER_SP_CANT_SET_AUTOCOMMIT);
            fail(p);
        }
    }
}

static sp_node_t *sql_stmt(spp_t *p)
{
    sp_node_t *n = new_node(p, SP_SQL);
    p->has_sql = true;
    const char *from = p->tok.start;
    uint32_t line = p->tok.line;
    /* scan, noting a top-level INTO var, ... of a SELECT */
    bool is_select = is_word(p, "SELECT") || is_word(p, "WITH") || is_punct(p, '(');
    const char *into_from = NULL, *into_to = NULL;
    sql_tok_t names[64];
    uint32_t nnames = 0;
    const char *last = from;
    int depth = 0;
    while (p->tok.type != TK_EOF) {
        if (p->tok.type == TK_ERROR)
            syntax_error(p);
        if (depth == 0 && is_punct(p, ';'))
            break;
        if (is_punct(p, '('))
            depth++;
        else if (is_punct(p, ')'))
            depth--;
        else if (is_select && depth <= 1 && !into_from && is_word(p, "INTO") &&
                 !tok_is_word(peek2(p), "OUTFILE") && !tok_is_word(peek2(p), "DUMPFILE")) {
            into_from = p->tok.start;
            next(p);
            for (;;) {
                if (!tok_is_ident(&p->tok) && p->tok.type != TK_USERVAR)
                    syntax_error(p);
                if (nnames == ARRAY_LEN(names))
                    syntax_error(p);
                names[nnames++] = p->tok;
                into_to = p->tok.start + p->tok.len;
                next(p);
                if (!accept_punct(p, ','))
                    break;
            }
            last = into_to;
            continue;
        }
        last = p->tok.start + p->tok.len;
        next(p);
    }
    if (into_from) {
        buf_t b;
        buf_init(&b);
        buf_append(&b, from, (size_t)(into_from - from));
        buf_append(&b, into_to, (size_t)(last - into_to));
        const char *t = arena_strndup(p->a, (const char *)b.data, b.len);
        size_t len = b.len;
        buf_free(&b);
        into_targets(p, n, names, nnames);
        /* the variables must be replaced in the text without INTO, which has moved: rewrite that */
        n->stmt = rewrite(p, t, t + len, line);
    } else {
        n->stmt = rewrite(p, from, last, line);
    }
    if (n->stmt->nparams_own) {
        sql_tok_t at = {.type = TK_WORD, .start = from, .line = line};
        fail_at(p, &at);
    }
    sql_stmt_list_t l;
    if (sql_parse_mode(p->a, n->stmt->text, n->stmt->len, p->mode, &l, p->d) != 0)
        fail(p);
    if (l.n != 1) {
        sql_tok_t at = {.type = TK_WORD, .start = from, .line = line};
        fail_at(p, &at);
    }
    n->stmt_kind = l.stmts[0]->kind;
    switch (n->stmt_kind) {
    case SQL_STMT_CREATE_PROCEDURE: case SQL_STMT_CREATE_FUNCTION:
        diag_error(p->d, ER_SP_NO_RECURSIVE_CREATE, n->stmt_kind == SQL_STMT_CREATE_FUNCTION ? "FUNCTION" : "PROCEDURE");
        fail(p);
    case SQL_STMT_DROP_PROCEDURE: case SQL_STMT_DROP_FUNCTION: case SQL_STMT_ALTER_PROCEDURE:
    case SQL_STMT_ALTER_FUNCTION:
        diag_error(p->d, ER_SP_NO_DROP_SP, n->stmt_kind == SQL_STMT_DROP_FUNCTION || n->stmt_kind == SQL_STMT_ALTER_FUNCTION
                                               ? "FUNCTION" : "PROCEDURE");
        fail(p);
    case SQL_STMT_SET:
        set_autocommit_check(p, l.stmts[0]);
        break;
    case SQL_STMT_LOCK_TABLES: case SQL_STMT_UNLOCK_TABLES:
        diag_error(p->d, ER_SP_BADSTATEMENT, n->stmt_kind == SQL_STMT_LOCK_TABLES ? "LOCK" : "UNLOCK");
        fail(p);
    case SQL_STMT_ANALYZE_TABLE: case SQL_STMT_OPTIMIZE_TABLE: case SQL_STMT_CHECK_TABLE: case SQL_STMT_REPAIR_TABLE:
    case SQL_STMT_CHECKSUM_TABLE:
        if (p->is_function) { /* their result set first (MariaDB) */
            diag_error(p->d, ER_SP_NO_RETSET);
            fail(p);
        }
        break;
    case SQL_STMT_ROLLBACK:
        if (l.stmts[0]->txn.savepoint) /* ROLLBACK TO SAVEPOINT is allowed */
            break;
        /* fall through */
    case SQL_STMT_BEGIN: case SQL_STMT_COMMIT:
        if (p->is_function) { /* MariaDB refuses such a function when it is created (a trigger: ddl/trigger.c) */
            diag_error(p->d, ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG);
            fail(p);
        }
        break;
    case SQL_STMT_SELECT: case SQL_STMT_SHOW: case SQL_STMT_EXPLAIN:
        if (p->is_function && !n->ninto && !p->in_cursor) {
            diag_error(p->d, ER_SP_NO_RETSET);
            fail(p);
        }
        break;
    default:
        if (p->is_function && (sql_stmt_flags(n->stmt_kind) & STMT_F_IMPLICIT_COMMIT)) {
            diag_error(p->d, ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG);
            fail(p);
        }
        break;
    }
    return n;
}

static sp_node_t *set_stmt(spp_t *p)
{
    /* SET v = expr [, ...] where the first name is a local variable; any other SET is a statement */
    const sql_tok_t *t1 = peek2(p);
    int32_t v = tok_var(p, t1);
    if (v < 0 && t1->type != TK_USERVAR && t1->type != TK_AT2 && !tok_is_row(p, t1))
        return sql_stmt(p); /* SET NAMES, SET TRANSACTION, SET x (a system variable) ...: as it is */
    next(p); /* SET */
    sp_node_t *blk = NULL;
    sp_node_t *first = NULL;
    uint32_t cap = 0;
    for (;;) {
        sp_node_t *n = new_node(p, SP_SET);
        int32_t vi;
        if (tok_is_row(p, &p->tok) && peek2(p)->type == TK_PUNCT && peek2(p)->op == '.') {
            sql_tok_t row = p->tok; /* SET NEW.col = ...: the column's variable, then the column's token as the name */
            next(p);
            next(p);
            if (p->tok.type != TK_WORD && p->tok.type != TK_QIDENT)
                syntax_error(p);
            vi = trig_var(p, &row, &p->tok, true);
        } else {
            vi = tok_var(p, &p->tok);
        }
        if (vi < 0) {
            /* a later item that is not a local variable (@u = .., @@x = .., GLOBAL x = ..): a SET of its own */
            const char *from;
            uint32_t line = p->tok.line;
            static const char *const none[] = {NULL};
            const char *to = scan_expr(p, none, true, &from);
            if (to == from)
                syntax_error(p);
            char *t = arena_printf(p->a, "SET %.*s", (int)(to - from), from);
            n->kind = SP_SQL;
            n->stmt = rewrite(p, t, t + strlen(t), line);
            sql_stmt_list_t l;
            if (sql_parse_mode(p->a, n->stmt->text, n->stmt->len, p->mode, &l, p->d) != 0)
                fail(p);
            n->stmt_kind = l.stmts[0]->kind;
            if (n->stmt_kind == SQL_STMT_SET)
                set_autocommit_check(p, l.stmts[0]);
            p->has_sql = true;
        } else {
        next(p);
        if (!accept_punct(p, '='))
            expect_punct(p, P_ASSIGN);
        n->var = (uint32_t)vi;
        static const char *const none[] = {NULL};
        n->expr = expr_until(p, none, true);
        }
        if (!first) {
            first = n;
        } else {
            if (!blk) {
                blk = new_node(p, SP_BLOCK);
                list_push(p, &blk->body, &cap, first);
            }
            list_push(p, &blk->body, &cap, n);
        }
        if (!accept_punct(p, ','))
            break;
    }
    return blk ? blk : first;
}

static const char *const w_end[] = {"END", NULL};

static sp_node_t *block(spp_t *p, const char *label)
{
    sp_node_t *n = new_node(p, SP_BLOCK);
    n->label = label;
    expect_word(p, "BEGIN");
    if (is_word(p, "NOT") && tok_is_word(peek2(p), "ATOMIC")) {
        next(p);
        next(p);
    }
    if (label)
        label_push(p, label, n, false);
    uint32_t scope0 = p->nscope, conds0 = p->nconds, curs0 = p->ncursors;
    p->depth++;
    uint32_t cap = 0;
    /* 0: variables and conditions, 1: cursors seen, 2: handlers seen */
    int phase = 0;
    while (is_word(p, "DECLARE")) {
        uint32_t line = p->tok.line;
        next(p);
        const sql_tok_t *t2 = peek2(p);
        if (is_word(p, "CONTINUE") || is_word(p, "EXIT") || is_word(p, "UNDO")) {
            sp_node_t *h = new_node(p, SP_DECLARE_HANDLER);
            h->line = line;
            if (is_word(p, "UNDO"))
                syntax_error(p);
            h->exit_handler = is_word(p, "EXIT");
            next(p);
            expect_word(p, "HANDLER");
            expect_word(p, "FOR");
            sp_cond_t cl[32];
            uint32_t nc = 0;
            do {
                if (nc == ARRAY_LEN(cl))
                    syntax_error(p);
                cond_value(p, &cl[nc], true);
                for (uint32_t k = 0; k < nc; k++)
                    if (cl[k].kind == cl[nc].kind && cl[k].err == cl[nc].err && strcmp(cl[k].state, cl[nc].state) == 0) {
                        diag_error(p->d, ER_SP_DUP_HANDLER);
                        fail(p);
                    }
                nc++;
            } while (accept_punct(p, ','));
            h->cond_list = arena_alloc(p->a, sizeof(sp_cond_t) * nc);
            memcpy(h->cond_list, cl, sizeof(sp_cond_t) * nc);
            h->ncond = nc;
            /* the handler's statement sees the block's variables, not its own labels */
            uint32_t labels0 = p->nlabels;
            uint32_t hcap = 0;
            list_push(p, &h->body, &hcap, statement(p));
            p->nlabels = labels0;
            phase = 2;
            list_push(p, &n->body, &cap, h);
        } else if (tok_is_word(t2, "CURSOR")) {
            if (phase == 2) {
                diag_error(p->d, ER_SP_CURSOR_AFTER_HANDLER);
                fail(p);
            }
            sp_node_t *c = new_node(p, SP_DECLARE_CURSOR);
            c->line = line;
            const char *name = ident(p);
            for (uint32_t k = curs0; k < p->ncursors; k++)
                if (strcasecmp(p->cursors[k].name, name) == 0) {
                    diag_error(p->d, ER_SP_DUP_CURS, name);
                    fail(p);
                }
            next(p); /* CURSOR */
            expect_word(p, "FOR");
            if (!is_word(p, "SELECT") && !is_word(p, "WITH") && !is_punct(p, '(')) {
                diag_error(p->d, ER_SP_BAD_CURSOR_QUERY);
                fail(p);
            }
            p->in_cursor = true; /* a cursor's SELECT is no result set of a function (1415) */
            sp_node_t *q = sql_stmt(p);
            p->in_cursor = false;
            if (q->ninto) {
                diag_error(p->d, ER_SP_BAD_CURSOR_SELECT);
                fail(p);
            }
            c->stmt = q->stmt;
            if (p->ncursor_slots == ARRAY_LEN(p->cursor_nodes))
                syntax_error(p);
            c->cursor = p->ncursor_slots++;
            p->cursor_nodes[c->cursor] = c;
            {
                const char **nn = arena_alloc(p->a, sizeof(char *) * p->ncursor_slots);
                if (c->cursor)
                    memcpy(nn, p->cursor_names, sizeof(char *) * c->cursor);
                nn[c->cursor] = name;
                p->cursor_names = nn;
            }
            grow(p, (void **)&p->cursors, p->ncursors, &p->capcursors, sizeof *p->cursors);
            p->cursors[p->ncursors++] = (scope_ent_t){name, c->cursor};
            phase = phase < 1 ? 1 : phase;
            list_push(p, &n->body, &cap, c);
        } else if (tok_is_word(t2, "CONDITION")) {
            if (phase) {
                diag_error(p->d, ER_SP_VARCOND_AFTER_CURSHNDLR);
                fail(p);
            }
            const char *name = ident(p);
            for (uint32_t k = conds0; k < p->nconds; k++)
                if (strcasecmp(p->conds[k].name, name) == 0) {
                    diag_error(p->d, ER_SP_DUP_COND, name);
                    fail(p);
                }
            next(p);
            expect_word(p, "FOR");
            named_cond_t nc = {name, {0}, p->depth};
            cond_value(p, &nc.cond, false);
            grow(p, (void **)&p->conds, p->nconds, &p->capconds, sizeof *p->conds);
            p->conds[p->nconds++] = nc;
        } else {
            if (phase) {
                diag_error(p->d, ER_SP_VARCOND_AFTER_CURSHNDLR);
                fail(p);
            }
            sp_node_t *dv = new_node(p, SP_DECLARE_VAR);
            dv->line = line;
            const char *names[64];
            uint32_t nn = 0;
            do {
                if (nn == ARRAY_LEN(names))
                    syntax_error(p);
                names[nn] = ident(p);
                for (uint32_t k = scope0; k < p->nscope; k++)
                    if (strcasecmp(p->scope[k].name, names[nn]) == 0) {
                        diag_error(p->d, ER_SP_DUP_VAR, names[nn]);
                        fail(p);
                    }
                for (uint32_t k = 0; k < nn; k++)
                    if (strcasecmp(names[k], names[nn]) == 0) {
                        diag_error(p->d, ER_SP_DUP_VAR, names[nn]);
                        fail(p);
                    }
                nn++;
            } while (accept_punct(p, ','));
            const char *stop;
            if (p->tok.type == TK_EOF)
                syntax_error(p);
            if (sql_parse_type(p->a, p->d, p->text, p->tok.start, p->end, p->mode, p->tok.line, &dv->type, &stop) != 0)
                fail(p);
            /* go on after the type (inside the same executable comment, if any) */
            p->have_ahead = false;
            p->lx.pos = stop;
            p->prev_end = stop;
            sql_lex_next(&p->lx, &p->tok);
            if (accept_word(p, "DEFAULT")) {
                static const char *const none[] = {NULL};
                dv->expr = expr_until(p, none, false); /* the default sees the variables before these */
            }
            dv->first = p->nvars;
            dv->nvars = nn;
            for (uint32_t k = 0; k < nn; k++)
                var_add(p, names[k], &dv->type, false);
            list_push(p, &n->body, &cap, dv);
        }
        expect_punct(p, ';');
    }
    while (!is_word(p, "END")) {
        if (p->tok.type == TK_EOF || is_word(p, "DECLARE"))
            syntax_error(p);
        list_push(p, &n->body, &cap, statement(p));
        expect_punct(p, ';');
    }
    next(p); /* END */
    end_label(p, label);
    p->nscope = scope0;
    p->nconds = conds0;
    p->ncursors = curs0;
    p->depth--;
    if (label)
        p->nlabels--;
    return n;
}

static sp_node_t *loop_stmt(spp_t *p, const char *label)
{
    sp_node_t *n;
    static const char *const w_do[] = {"DO", NULL};
    static const char *const w_until[] = {"UNTIL", NULL};
    if (accept_word(p, "WHILE")) {
        n = new_node(p, SP_WHILE);
        n->label = label;
        n->expr = expr_until(p, w_do, false);
        expect_word(p, "DO");
        if (label)
            label_push(p, label, n, true);
        n->body = stmt_list(p, w_end);
        expect_word(p, "END");
        expect_word(p, "WHILE");
    } else if (accept_word(p, "REPEAT")) {
        n = new_node(p, SP_REPEAT);
        n->label = label;
        if (label)
            label_push(p, label, n, true);
        n->body = stmt_list(p, w_until);
        expect_word(p, "UNTIL");
        static const char *const w_end_only[] = {"END", NULL};
        n->expr = expr_until(p, w_end_only, false);
        expect_word(p, "END");
        expect_word(p, "REPEAT");
    } else {
        expect_word(p, "LOOP");
        n = new_node(p, SP_LOOP);
        n->label = label;
        if (label)
            label_push(p, label, n, true);
        n->body = stmt_list(p, w_end);
        expect_word(p, "END");
        expect_word(p, "LOOP");
    }
    end_label(p, label);
    if (label)
        p->nlabels--;
    return n;
}

static sp_node_t *if_stmt(spp_t *p)
{
    sp_node_t *n = new_node(p, SP_IF);
    static const char *const w_then[] = {"THEN", NULL};
    static const char *const w_branch[] = {"ELSEIF", "ELSE", "END", NULL};
    sp_text_t *conds[256];
    sp_list_t bodies[256];
    uint32_t nb = 0;
    next(p); /* IF */
    for (;;) {
        if (nb == ARRAY_LEN(conds))
            syntax_error(p);
        conds[nb] = expr_until(p, w_then, false);
        expect_word(p, "THEN");
        bodies[nb++] = stmt_list(p, w_branch);
        if (!accept_word(p, "ELSEIF"))
            break;
    }
    if (accept_word(p, "ELSE")) {
        n->has_else = true;
        n->else_body = stmt_list(p, w_end);
    }
    expect_word(p, "END");
    expect_word(p, "IF");
    n->conds = arena_alloc(p->a, sizeof(sp_text_t *) * nb);
    memcpy(n->conds, conds, sizeof(sp_text_t *) * nb);
    n->bodies = arena_alloc(p->a, sizeof(sp_list_t) * nb);
    memcpy(n->bodies, bodies, sizeof(sp_list_t) * nb);
    n->nbranches = nb;
    return n;
}

static sp_node_t *case_stmt(spp_t *p)
{
    sp_node_t *n = new_node(p, SP_CASE);
    static const char *const w_when[] = {"WHEN", NULL};
    static const char *const w_then[] = {"THEN", NULL};
    static const char *const w_branch[] = {"WHEN", "ELSE", "END", NULL};
    next(p); /* CASE */
    if (!is_word(p, "WHEN"))
        n->expr = expr_until(p, w_when, false);
    sp_text_t *conds[256];
    sp_list_t bodies[256];
    uint32_t nb = 0;
    while (accept_word(p, "WHEN")) {
        if (nb == ARRAY_LEN(conds))
            syntax_error(p);
        conds[nb] = expr_until(p, w_then, false);
        expect_word(p, "THEN");
        bodies[nb++] = stmt_list(p, w_branch);
    }
    if (!nb)
        syntax_error(p);
    if (accept_word(p, "ELSE")) {
        n->has_else = true;
        n->else_body = stmt_list(p, w_end);
    }
    expect_word(p, "END");
    expect_word(p, "CASE");
    n->conds = arena_alloc(p->a, sizeof(sp_text_t *) * nb);
    memcpy(n->conds, conds, sizeof(sp_text_t *) * nb);
    n->bodies = arena_alloc(p->a, sizeof(sp_list_t) * nb);
    memcpy(n->bodies, bodies, sizeof(sp_list_t) * nb);
    n->nbranches = nb;
    return n;
}

static bool diag_item_name(spp_t *p, sp_diag_item_t *it, bool statement_info)
{
    static const struct { const char *w; sp_diag_item_t it; } cond[] = {
        {"CLASS_ORIGIN", SP_DI_CLASS_ORIGIN}, {"SUBCLASS_ORIGIN", SP_DI_SUBCLASS_ORIGIN},
        {"CONSTRAINT_CATALOG", SP_DI_CONSTRAINT_CATALOG}, {"CONSTRAINT_SCHEMA", SP_DI_CONSTRAINT_SCHEMA},
        {"CONSTRAINT_NAME", SP_DI_CONSTRAINT_NAME}, {"CATALOG_NAME", SP_DI_CATALOG_NAME},
        {"SCHEMA_NAME", SP_DI_SCHEMA_NAME}, {"TABLE_NAME", SP_DI_TABLE_NAME}, {"COLUMN_NAME", SP_DI_COLUMN_NAME},
        {"CURSOR_NAME", SP_DI_CURSOR_NAME}, {"MESSAGE_TEXT", SP_DI_MESSAGE_TEXT}, {"MYSQL_ERRNO", SP_DI_MYSQL_ERRNO},
        {"RETURNED_SQLSTATE", SP_DI_RETURNED_SQLSTATE},
    };
    if (statement_info) {
        if (accept_word(p, "NUMBER")) { *it = SP_DI_NUMBER; return true; }
        if (accept_word(p, "ROW_COUNT")) { *it = SP_DI_ROW_COUNT; return true; }
        return false;
    }
    for (size_t i = 0; i < ARRAY_LEN(cond); i++)
        if (accept_word(p, cond[i].w)) {
            *it = cond[i].it;
            return true;
        }
    return false;
}

static sp_node_t *signal_stmt(spp_t *p, bool resignal)
{
    sp_node_t *n = new_node(p, resignal ? SP_RESIGNAL : SP_SIGNAL);
    next(p);
    if (is_word(p, "SQLSTATE") || (!resignal && !is_word(p, "SET"))) {
        if (is_word(p, "SQLSTATE")) {
            cond_value(p, &n->sig, false);
        } else {
            const char *name = ident(p);
            const named_cond_t *nc = cond_find(p, name);
            if (!nc) {
                diag_error(p->d, ER_SP_COND_MISMATCH, name);
                fail(p);
            }
            if (nc->cond.kind != SP_COND_STATE) {
                diag_error(p->d, ER_SIGNAL_BAD_CONDITION_TYPE);
                fail(p);
            }
            n->sig = nc->cond;
        }
        n->has_cond = true;
    } else if (resignal && tok_is_ident(&p->tok) && !is_word(p, "SET")) {
        const char *name = ident(p);
        const named_cond_t *nc = cond_find(p, name);
        if (!nc) {
            diag_error(p->d, ER_SP_COND_MISMATCH, name);
            fail(p);
        }
        if (nc->cond.kind != SP_COND_STATE) {
            diag_error(p->d, ER_SIGNAL_BAD_CONDITION_TYPE);
            fail(p);
        }
        n->sig = nc->cond;
        n->has_cond = true;
    }
    if (accept_word(p, "SET")) {
        sp_diag_item_t kinds[16];
        sp_text_t *vals[16];
        uint32_t ni = 0;
        do {
            if (ni == ARRAY_LEN(kinds) || !diag_item_name(p, &kinds[ni], false))
                syntax_error(p);
            for (uint32_t k = 0; k < ni; k++)
                if (kinds[k] == kinds[ni]) {
                    diag_error(p->d, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), p->prev_end, (int)p->tok.line);
                    fail(p);
                }
            expect_punct(p, '=');
            static const char *const none[] = {NULL};
            vals[ni++] = expr_until(p, none, true);
        } while (accept_punct(p, ','));
        n->item_kind = arena_alloc(p->a, sizeof(sp_diag_item_t) * ni);
        memcpy(n->item_kind, kinds, sizeof(sp_diag_item_t) * ni);
        n->item_vals = arena_alloc(p->a, sizeof(sp_text_t *) * ni);
        memcpy(n->item_vals, vals, sizeof(sp_text_t *) * ni);
        n->nitems = ni;
    }
    return n;
}

static sp_target_t target(spp_t *p)
{
    sp_target_t t = {0};
    if (p->tok.type == TK_USERVAR) {
        t.var = -1;
        t.uservar = p->tok.text;
        next(p);
        return t;
    }
    int32_t v = tok_var(p, &p->tok);
    if (v < 0) {
        if (!tok_is_ident(&p->tok))
            syntax_error(p);
        diag_error(p->d, ER_SP_UNDECLARED_VAR, p->tok.type == TK_QIDENT ? p->tok.text : arena_strndup(p->a, p->tok.start, p->tok.len));
        fail(p);
    }
    next(p);
    t.var = v;
    return t;
}

static sp_node_t *get_diag_stmt(spp_t *p)
{
    sp_node_t *n = new_node(p, SP_GET_DIAG);
    next(p); /* GET */
    if (!accept_word(p, "CURRENT"))
        accept_word(p, "STACKED");
    expect_word(p, "DIAGNOSTICS");
    bool cond = false;
    if (accept_word(p, "CONDITION")) {
        cond = true;
        n->diag_condition = true;
        static const char *const none[] = {NULL};
        /* the number: up to the first target (a word followed by =) */
        const char *from = p->tok.start;
        uint32_t line = p->tok.line;
        const char *last = from;
        while (p->tok.type != TK_EOF && !((tok_is_ident(&p->tok) || p->tok.type == TK_USERVAR) &&
                                           peek2(p)->type == TK_PUNCT && peek2(p)->op == '=')) {
            last = p->tok.start + p->tok.len;
            next(p);
        }
        (void)none;
        if (last == from)
            syntax_error(p);
        n->diag_number = rewrite(p, from, last, line);
        if (sql_parse_expr(p->a, n->diag_number->text, n->diag_number->len, &n->diag_number->expr, p->d) != 0)
            fail(p);
    }
    sp_target_t ts[32];
    uint32_t nt = 0;
    do {
        if (nt == ARRAY_LEN(ts))
            syntax_error(p);
        ts[nt] = target(p);
        expect_punct(p, '=');
        if (!diag_item_name(p, &ts[nt].item, !cond))
            syntax_error(p);
        nt++;
    } while (accept_punct(p, ','));
    n->into = arena_alloc(p->a, sizeof(sp_target_t) * nt);
    memcpy(n->into, ts, sizeof(sp_target_t) * nt);
    n->ninto = nt;
    return n;
}

static sp_node_t *statement(spp_t *p)
{
    const sql_tok_t *t2 = peek2(p);
    if (tok_is_ident(&p->tok) && t2->type == TK_PUNCT && t2->op == ':') {
        const char *label = ident(p);
        next(p); /* : */
        if (is_word(p, "BEGIN"))
            return block(p, label);
        if (is_word(p, "WHILE") || is_word(p, "REPEAT") || is_word(p, "LOOP"))
            return loop_stmt(p, label);
        syntax_error(p);
    }
    if (is_word(p, "BEGIN") && !tok_is_word(t2, "WORK") && !(t2->type == TK_PUNCT && t2->op == ';'))
        return block(p, NULL);
    if (is_word(p, "WHILE") || is_word(p, "REPEAT") || is_word(p, "LOOP"))
        return loop_stmt(p, NULL);
    if (is_word(p, "IF"))
        return if_stmt(p);
    if (is_word(p, "CASE"))
        return case_stmt(p);
    if (is_word(p, "LEAVE") || is_word(p, "ITERATE")) {
        bool leave = is_word(p, "LEAVE");
        sp_node_t *n = new_node(p, leave ? SP_LEAVE : SP_ITERATE);
        next(p);
        const char *name = ident(p);
        for (uint32_t i = p->nlabels; i-- > 0;)
            if (strcasecmp(p->labels[i].name, name) == 0 && (leave || p->labels[i].is_loop)) {
                n->target = p->labels[i].node;
                break;
            }
        if (!n->target) {
            diag_error(p->d, ER_SP_LILABEL_MISMATCH, leave ? "LEAVE" : "ITERATE", name);
            fail(p);
        }
        return n;
    }
    if (is_word(p, "RETURN")) {
        if (!p->is_function) {
            diag_error(p->d, ER_SP_BADRETURN);
            fail(p);
        }
        sp_node_t *n = new_node(p, SP_RETURN);
        next(p);
        static const char *const none[] = {NULL};
        n->expr = expr_until(p, none, false);
        p->has_return = true;
        return n;
    }
    if (is_word(p, "SET"))
        return set_stmt(p);
    if (is_word(p, "OPEN") || is_word(p, "CLOSE")) {
        sp_node_t *n = new_node(p, is_word(p, "OPEN") ? SP_OPEN : SP_CLOSE);
        next(p);
        const char *name = ident(p);
        int32_t c = cursor_find(p, name);
        if (c < 0) {
            diag_error(p->d, ER_SP_CURSOR_MISMATCH, name);
            fail(p);
        }
        n->cursor = (uint32_t)c;
        n->stmt = p->cursor_nodes[c]->stmt;
        return n;
    }
    if (is_word(p, "FETCH")) {
        sp_node_t *n = new_node(p, SP_FETCH);
        next(p);
        if (accept_word(p, "NEXT"))
            expect_word(p, "FROM");
        else
            accept_word(p, "FROM");
        const char *name = ident(p);
        int32_t c = cursor_find(p, name);
        if (c < 0) {
            diag_error(p->d, ER_SP_CURSOR_MISMATCH, name);
            fail(p);
        }
        n->cursor = (uint32_t)c;
        expect_word(p, "INTO");
        sp_target_t ts[64];
        uint32_t nt = 0;
        do {
            if (nt == ARRAY_LEN(ts))
                syntax_error(p);
            ts[nt] = target(p);
            if (ts[nt].var < 0)
                syntax_error(p);
            nt++;
        } while (accept_punct(p, ','));
        n->into = arena_alloc(p->a, sizeof(sp_target_t) * nt);
        memcpy(n->into, ts, sizeof(sp_target_t) * nt);
        n->ninto = nt;
        return n;
    }
    if (is_word(p, "SIGNAL") || is_word(p, "RESIGNAL"))
        return signal_stmt(p, is_word(p, "RESIGNAL"));
    if (is_word(p, "GET") && (tok_is_word(t2, "DIAGNOSTICS") || tok_is_word(t2, "CURRENT") || tok_is_word(t2, "STACKED")))
        return get_diag_stmt(p);
    if (is_word(p, "DECLARE"))
        syntax_error(p);
    if (is_word(p, "END") || is_punct(p, ';') || p->tok.type == TK_EOF)
        syntax_error(p);
    return sql_stmt(p);
}

static sp_body_t *parse_body(arena_t *a, diag_t *d, const char *text, const char *start, const char *end,
                             unsigned mode, int exec_comment, const sql_routine_param_t *params, uint32_t nparams,
                             bool is_function, const sp_trigger_info_t *trig, const char **stop)
{
    spp_t *p = arena_calloc(a, sizeof *p);
    p->a = a;
    p->d = d;
    p->text = text;
    p->end = end;
    p->mode = mode;
    p->is_function = is_function;
    p->trig = trig;
    sql_lex_init(&p->lx, a, text, (size_t)(end - text), mode);
    p->lx.pos = start;
    p->lx.in_exec_comment = exec_comment;
    for (const char *q = text; q < start; q++)
        if (*q == '\n')
            p->lx.line++;
    if (setjmp(p->fail))
        return NULL;
    sql_lex_next(&p->lx, &p->tok);
    p->prev_end = start;
    for (uint32_t i = 0; i < nparams; i++) {
        for (uint32_t k = 0; k < i; k++)
            if (strcasecmp(params[k].name, params[i].name) == 0) {
                diag_error(d, ER_SP_DUP_PARAM, params[i].name);
                fail(p);
            }
        var_add(p, params[i].name, &params[i].type, true);
    }
    sp_body_t *b = arena_calloc(a, sizeof *b);
    b->root = statement(p);
    if (p->tok.type != TK_EOF && !is_punct(p, ';'))
        syntax_error(p);
    *stop = p->prev_end;
    b->vars = p->vars;
    b->nvars = p->nvars;
    b->ncursors = p->ncursor_slots;
    b->cursor_names = p->cursor_names;
    b->has_return = p->has_return;
    b->has_sql = p->has_sql;
    b->trig_refs = p->trefs;
    b->ntrig_refs = p->ntrefs;
    return b;
}

sp_body_t *sp_parse_body(arena_t *a, diag_t *d, const char *text, const char *start, const char *end,
                         unsigned mode, int exec_comment, const sql_routine_param_t *params, uint32_t nparams,
                         bool is_function, const char **stop)
{
    return parse_body(a, d, text, start, end, mode, exec_comment, params, nparams, is_function, NULL, stop);
}

sp_body_t *sp_parse_trigger_body(arena_t *a, diag_t *d, const char *text, const char *start, const char *end,
                                 unsigned mode, int exec_comment, const sp_trigger_info_t *trig, const char **stop)
{
    return parse_body(a, d, text, start, end, mode, exec_comment, NULL, 0, false, trig, stop);
}
