/*
 * Internals shared by the files of src/sql (lexer, parser, evaluator).  No other box includes this.
 */
#ifndef STRATA_SQL_INT_H
#define STRATA_SQL_INT_H

#include "sql/sql.h"

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

/* Function table lookup (functions.def). */
sql_fn_t sql_fn_lookup(const char *upper_name);
int sql_fn_minargs(sql_fn_t fn);
int sql_fn_maxargs(sql_fn_t fn);

/*
 * Errors that util/errors.def does not carry yet (pushed with their MariaDB text and SQLSTATE by hand).
 * TODO(lead): move into errors.def: 1327 ER_SP_UNDECLARED_VAR 42000, 1525 ER_WRONG_VALUE HY000,
 * 1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT 42000, 1630 ER_FUNC_INEXISTENT_NAME_COLLISION 42000.
 */
int sql_error_undeclared_var(diag_t *d, const char *name);
int sql_error_wrong_value(diag_t *d, const char *type, const char *val);
int sql_error_paramcount(diag_t *d, const char *fname);
int sql_error_no_function(diag_t *d, const char *fname);
/* 4079 ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION HY000: "Illegal parameter data type int for operation 'get_lock'" */
int sql_error_param_type(diag_t *d, const char *type, const char *op);

/* datefn.c: date functions.  Return 1 when `e` is not theirs. */
int sql_eval_date_lazy(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);
int sql_eval_date_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, value_t *out);
/* The TIME_FORMAT .. CONVERT_TZ block of functions.def (arguments evaluated); 1 = not ours. */
int sql_eval_date_more(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out);
/* fnmore.c: the functions from MID on in functions.def (arguments evaluated); 1 = not ours. */
int sql_eval_more_fn(sql_eval_ctx_t *ctx, const sql_expr_t *e, const value_t *a, bool any_null, value_t *out);
/* Two values about to be compared, brought to one collation by MySQL's coercibility rules when both are
 * strings (eval.c); 1267 for operation `op` when they have none. */
int sql_eval_coll_cmp(sql_eval_ctx_t *ctx, const char *op, value_t *a, value_t *b);
/* x + INTERVAL .. / INTERVAL .. + x / x - INTERVAL .. */
int sql_eval_date_interval(sql_eval_ctx_t *ctx, const sql_expr_t *e, value_t *out);

#endif
