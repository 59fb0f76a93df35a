/*
 * The body of a stored routine as a tree of its own (sp_parse.c builds it, session/sp_exec.c interprets it).
 *
 * The compound statements (BEGIN ... END, IF, CASE, the loops, DECLARE, handlers, cursors, SIGNAL) are nodes;
 * every other statement and every expression stays text.  A local variable or parameter named in that text is
 * replaced by a `?` placeholder when the body is parsed, and the node records which variable each placeholder
 * reads (sp_text_t.vars), so that the statement executor sees a local variable exactly as a prepared statement's
 * parameter, with its value and type, and nothing bound is ever kept: a statement is parsed and bound again at
 * every execution, an expression (the interpreter's own: conditions, SET, RETURN) is parsed once per call and
 * evaluated with its placeholders read from the frame.
 *
 * Variables are numbered per routine: the parameters 0..nparams-1, then every DECLAREd variable in the order
 * of its declaration; names are resolved lexically when the body is parsed (an inner DECLARE shadows an outer
 * one), so the interpreter only indexes its frame.  A trigger's body can reuse this shape: NEW.x / OLD.x are
 * more variables of the same kind.
 */
#ifndef STRATA_SQL_SP_H
#define STRATA_SQL_SP_H

#include "sql/parser/ast.h"

typedef struct sp_node sp_node_t;

/* A statement or expression with the frame variables it reads, in placeholder order. */
typedef struct sp_text {
    const char *text;      /* rewritten: each variable reference is `?` */
    size_t len;
    uint32_t *vars;        /* frame index of placeholder i */
    uint32_t nvars;
    uint32_t nparams_own;  /* `?` written by the user (a routine may not have them: 1064 at CREATE) */
    sql_expr_t *expr;      /* expressions: the parsed tree (in the body's arena) */
    bool has_query;        /* a SELECT in it: the interpreter runs it as a statement */
    uint32_t line;         /* line within the CREATE text */
} sp_text_t;

typedef struct sp_list {
    sp_node_t **items;
    uint32_t n;
} sp_list_t;

typedef enum sp_kind {
    SP_BLOCK,          /* [label:] BEGIN [NOT ATOMIC] decls stmts END [label] */
    SP_DECLARE_VAR,    /* DECLARE a, b type [DEFAULT expr] */
    SP_DECLARE_COND,   /* DECLARE c CONDITION FOR ... (nothing to run) */
    SP_DECLARE_CURSOR, /* DECLARE cur CURSOR FOR select */
    SP_DECLARE_HANDLER,/* DECLARE CONTINUE | EXIT HANDLER FOR ... stmt */
    SP_SET,            /* SET v = expr (a local variable) */
    SP_SQL,            /* any other statement (SELECT ... INTO: into[] set) */
    SP_IF,             /* IF c THEN .. ELSEIF c THEN .. ELSE .. END IF */
    SP_CASE,           /* CASE [expr] WHEN .. THEN .. ELSE .. END CASE */
    SP_WHILE, SP_REPEAT, SP_LOOP,
    SP_LEAVE, SP_ITERATE,
    SP_RETURN,
    SP_OPEN, SP_FETCH, SP_CLOSE,
    SP_SIGNAL, SP_RESIGNAL,
    SP_GET_DIAG,       /* GET [CURRENT] DIAGNOSTICS ... */
} sp_kind_t;

/* A handler's condition: SQLSTATE 'xxxxx', an error number, SQLWARNING, NOT FOUND, SQLEXCEPTION. */
typedef enum sp_cond_kind { SP_COND_STATE, SP_COND_ERRNO, SP_COND_WARNING, SP_COND_NOT_FOUND, SP_COND_EXCEPTION } sp_cond_kind_t;
typedef struct sp_cond {
    sp_cond_kind_t kind;
    char state[6];
    uint32_t err;
} sp_cond_t;

/* SIGNAL / RESIGNAL items and GET DIAGNOSTICS targets name these */
typedef enum sp_diag_item {
    SP_DI_CLASS_ORIGIN, SP_DI_SUBCLASS_ORIGIN, SP_DI_CONSTRAINT_CATALOG, SP_DI_CONSTRAINT_SCHEMA,
    SP_DI_CONSTRAINT_NAME, SP_DI_CATALOG_NAME, SP_DI_SCHEMA_NAME, SP_DI_TABLE_NAME, SP_DI_COLUMN_NAME,
    SP_DI_CURSOR_NAME, SP_DI_MESSAGE_TEXT, SP_DI_MYSQL_ERRNO, SP_DI_RETURNED_SQLSTATE,
    SP_DI_NUMBER, SP_DI_ROW_COUNT,
} sp_diag_item_t;

typedef struct sp_target {  /* a SELECT ... INTO / FETCH ... INTO / GET DIAGNOSTICS target */
    int32_t var;            /* frame index, or -1: the user variable `uservar` */
    const char *uservar;
    sp_diag_item_t item;    /* GET DIAGNOSTICS */
} sp_target_t;

struct sp_node {
    sp_kind_t kind;
    uint32_t line;
    const char *label;          /* SP_BLOCK and the loops: NULL when unlabelled */
    sp_list_t body;             /* SP_BLOCK, loops, SP_DECLARE_HANDLER (one statement) */
    sp_text_t *expr;            /* SP_SET, SP_RETURN, SP_WHILE / SP_REPEAT's condition, SP_CASE's operand, DEFAULT */
    sp_text_t *stmt;            /* SP_SQL, SP_DECLARE_CURSOR and SP_OPEN (the cursor's SELECT) */
    sql_stmt_kind_t stmt_kind;  /* SP_SQL: what the statement is */
    /* SP_IF / SP_CASE: n branches of (cond, body), then else_body when has_else */
    sp_text_t **conds;
    sp_list_t *bodies;
    uint32_t nbranches;
    sp_list_t else_body;
    bool has_else;
    /* SP_DECLARE_VAR: variables first..first+nvars-1 of type `type` */
    uint32_t first, nvars;
    sql_type_t type;
    /* SP_SET: target variable; SP_LEAVE / SP_ITERATE: the labelled node they leave */
    uint32_t var;
    sp_node_t *target;
    /* SP_SQL SELECT ... INTO, SP_FETCH, SP_GET_DIAG */
    sp_target_t *into;
    uint32_t ninto;
    /* cursors: SP_DECLARE_CURSOR's slot, SP_OPEN / SP_FETCH / SP_CLOSE's */
    uint32_t cursor;
    /* handlers */
    bool exit_handler;
    sp_cond_t *cond_list;
    uint32_t ncond;
    /* SIGNAL / RESIGNAL: the condition (has_cond), then items set: item_kind[i] = item_vals[i] */
    bool has_cond;
    sp_cond_t sig;
    sp_diag_item_t *item_kind;
    sp_text_t **item_vals;
    uint32_t nitems;
    /* GET DIAGNOSTICS CONDITION n */
    bool diag_condition;
    sp_text_t *diag_number;
};

typedef struct sp_var_info {
    const char *name;
    sql_type_t type;
    bool is_param;
    bool is_row;                /* a trigger's NEW.x / OLD.x: holds the column's value as the row has it */
} sp_var_info_t;

/* A trigger's NEW.col / OLD.col: frame variable `var` holds that column of that row while the trigger runs. */
typedef struct sp_trig_ref {
    uint32_t var;
    bool is_new;
    const char *column;         /* as written (columns are case-insensitive) */
    bool assigned;              /* SET NEW.col = ... somewhere in the body */
} sp_trig_ref_t;

/* What the body of a trigger is parsed for: NEW / OLD exist as the event allows, NEW is writable BEFORE. */
typedef struct sp_trigger_info {
    const char *event;          /* "INSERT" / "UPDATE" / "DELETE" */
    const char *timing;         /* "BEFORE" / "AFTER" */
} sp_trigger_info_t;

typedef struct sp_body {
    sp_node_t *root;            /* a block, or the one statement of a body without BEGIN */
    sp_var_info_t *vars;        /* every variable of the frame */
    uint32_t nvars;
    uint32_t ncursors;
    const char **cursor_names;
    bool has_return;            /* some RETURN (a FUNCTION without one: 1320) */
    bool has_sql;               /* some statement or cursor (not only expressions) */
    sp_trig_ref_t *trig_refs;   /* a trigger's NEW.x / OLD.x, one per distinct reference */
    uint32_t ntrig_refs;
} sp_body_t;

/*
 * Parses a routine body from `start` (within the whole statement text `text`, which ends at `end`): one
 * statement, compound or not.  *stop receives where the body ended (its last token's end).  params are the
 * routine's parameters (frame variables 0..nparams-1); exec_comment: the body starts inside an executable
 * comment (an old mariadb-dump's slash-star-bang 50003 PROCEDURE ... END star-slash).  Returns the body (in a), or NULL with 1064 or the
 * routine errors (1308 LEAVE with no matching label, 1327 undeclared variable, 1337 order of declarations,
 * 1313 RETURN in a procedure ...) pushed to d.
 */
sp_body_t *sp_parse_body(arena_t *a, diag_t *d, const char *text, const char *start, const char *end,
                         unsigned mode, int exec_comment, const sql_routine_param_t *params, uint32_t nparams,
                         bool is_function, const char **stop);

/* A trigger's body, as sp_parse_body (no parameters; RETURN is 1313), with NEW.col and OLD.col as variables:
 * 1363 for the row the event has not, 1362 for an assignment to OLD or (AFTER) to NEW. */
sp_body_t *sp_parse_trigger_body(arena_t *a, diag_t *d, const char *text, const char *start, const char *end,
                                 unsigned mode, int exec_comment, const sp_trigger_info_t *trig, const char **stop);

#endif
