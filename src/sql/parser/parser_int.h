/*
 * Internals of the parser box: the lexer's tokens, shared by the grammar (parse.c) and the digest normalizer
 * (digest.c).  No other box includes this.
 */
#ifndef STRATA_SQL_PARSER_INT_H
#define STRATA_SQL_PARSER_INT_H

#include "sql/parser/parser.h"

typedef enum sql_tok_type {
    TK_EOF,
    TK_WORD,     /* identifier or keyword (reserved says which) */
    TK_QIDENT,   /* `quoted identifier` (text = unquoted) */
    TK_STRING,   /* 'x' or "x" (text = unescaped) */
    TK_NSTRING,  /* N'x' */
    TK_HEX,      /* X'41' or 0x41 (text = bytes) */
    TK_BIT,      /* B'01' or 0b01 (text = bytes) */
    TK_INT,      /* 123 (text = digits) */
    TK_DECIMAL,  /* 1.5 */
    TK_FLOAT,    /* 1e5 */
    TK_PARAM,    /* ? */
    TK_AT2,      /* @@ */
    TK_USERVAR,  /* @name, @'name', @`name` (text = name) */
    TK_PUNCT,    /* op below */
    TK_ERROR,    /* unterminated string / identifier */
} sql_tok_type_t;

enum {
    P_ASSIGN = 256, /* := */
    P_NSEQ,         /* <=> */
    P_NE,           /* <> != */
    P_LE, P_GE, P_SHL, P_SHR,
    P_AND2,         /* && */
    P_OR2,          /* || (OR, or CONCAT under PIPES_AS_CONCAT: the parser decides) */
    P_ARROW,        /* -> (JSON, parsed as error for now) */
};

typedef struct sql_tok {
    sql_tok_type_t type;
    int op;              /* TK_PUNCT: the character or a P_* code */
    bool reserved;       /* TK_WORD that is a reserved word */
    const char *start;   /* in the query text */
    size_t len;
    uint32_t line;
    char *text;          /* decoded value (arena, NUL-terminated) for strings, idents, numbers */
    size_t text_len;
} sql_tok_t;

typedef struct sql_lexer {
    arena_t *arena;
    const char *text, *pos, *end;
    uint32_t line;
    int in_exec_comment; /* inside an executable comment: its closing star-slash is skipped */
    unsigned mode;       /* SQL_PARSE_* flags (sql.h) */
} sql_lexer_t;

void sql_lex_init(sql_lexer_t *lx, arena_t *a, const char *text, size_t len, unsigned mode);
void sql_lex_next(sql_lexer_t *lx, sql_tok_t *t);
bool sql_word_is_reserved(const char *s, size_t n);


/* The function named `upper_name` (functions.def), SQL_FN_UNKNOWN when none. */
sql_fn_t sql_fn_lookup(const char *upper_name);
/* Does a call of fn with nargs arguments fit its row's argument counts?  (true for an unknown function: that
 * is 1305 when it is called.) */
bool sql_fn_args_ok(sql_fn_t fn, uint32_t nargs);
/* Its row's argument counts (maxargs -1: any number; an unknown function: 0, -1). */
void sql_fn_arg_counts(sql_fn_t fn, int *minargs, int *maxargs);

/* Resolves the table references of a WITH clause's select (s->ctes) and of its elements to those elements
 * (sql_from_t.cte, sql_cte_t.recursive), lexically: called on each select body with a WITH as it is parsed,
 * innermost first, so an inner WITH's names shadow an outer one's.  Returns 0, or -1 with 4004 pushed. */
int sql_resolve_ctes(sql_select_t *s, diag_t *d);

/* A data type read from `start` (in text, which ends at `end`; line: start's line), as a column's is:
 * 0 and *stop after it, or < 0 with 1064 in d.  sp_parse.c's DECLARE. */
int sql_parse_type(arena_t *a, diag_t *d, const char *text, const char *start, const char *end, unsigned mode,
                   uint32_t line, sql_type_t *out, const char **stop);

#endif
