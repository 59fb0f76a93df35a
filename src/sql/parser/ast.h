/*
 * The SQL abstract syntax tree.  Everything is allocated from the statement arena by sql_parse(); nothing is
 * freed individually.  Identifiers are NUL-terminated arena copies (backticks removed); `src`/`src_len` spans
 * point into the caller's query text, which must outlive the tree.
 *
 * Shape: a statement (sql_stmt_t) has a kind and a union of per-kind structs; expressions (sql_expr_t) are one
 * tagged node type.  Lists are arena arrays with a count.  The SELECT struct already carries FROM/GROUP/ORDER
 * fields (NULL/0 until the parser fills them) so later statements slot in without reshaping.
 */
#ifndef STRATA_SQL_AST_H
#define STRATA_SQL_AST_H

#include "sql/value/types.h"
#include "sql/value/value.h"

typedef struct sql_expr sql_expr_t;
typedef struct sql_select sql_select_t;
typedef struct sql_order_item sql_order_item_t;

/* ---------------------------------------------------------------- expressions */

typedef enum sql_expr_kind {
    SQL_E_LITERAL,   /* lit */
    SQL_E_COLUMN,    /* col: [db.][table.]name; slot >= 0 once bound by the executor */
    SQL_E_STAR,      /* col.table (may be NULL): `*` or `t.*` */
    SQL_E_SYSVAR,    /* var: @@[global.|session.|local.]name */
    SQL_E_USERVAR,   /* var: @name */
    SQL_E_ASSIGN,    /* var + arg[0]: @name := expr */
    SQL_E_PARAM,     /* param_index: `?` (0-based, in text order) */
    SQL_E_UNARY,     /* op + arg[0] */
    SQL_E_BINARY,    /* op + arg[0], arg[1] */
    SQL_E_IS,        /* arg[0] IS [NOT] NULL/TRUE/FALSE/UNKNOWN: is_what, negated */
    SQL_E_LIKE,      /* arg[0] [NOT] LIKE arg[1] [ESCAPE arg[2]]  (nargs 2 or 3), negated */
    SQL_E_REGEXP,    /* arg[0] [NOT] REGEXP arg[1], negated */
    SQL_E_IN,        /* arg[0] [NOT] IN (arg[1..nargs-1]) or IN (subquery: sub), negated */
    SQL_E_BETWEEN,   /* arg[0] [NOT] BETWEEN arg[1] AND arg[2], negated */
    SQL_E_CASE,      /* arg[0] = operand or NULL; then pairs (when, then) from arg[1]; else_expr may be NULL */
    SQL_E_FUNC,      /* func: name (upper-case), args; distinct / star for aggregates; fn resolved id */
    SQL_E_CAST,      /* arg[0] + cast: CAST(x AS type) / CONVERT(x, type) */
    SQL_E_CONVERT_USING, /* arg[0] + cast.coll: CONVERT(x USING cs) */
    SQL_E_COLLATE,   /* arg[0] COLLATE cast.coll */
    SQL_E_ROW,       /* (a, b, ...) or ROW(a, b) */
    SQL_E_SUBQUERY,  /* sub: (SELECT ...) scalar subquery */
    SQL_E_EXISTS,    /* sub */
    SQL_E_DEFAULT,   /* DEFAULT (in SET / INSERT values); DEFAULT(col): nargs 1, args[0] the column */
    SQL_E_INTERVAL,  /* arg[0] + interval unit (DATE_ADD(x, INTERVAL n unit), x + INTERVAL n unit) */
    SQL_E_QUANTIFIED,/* arg[0] op ANY|SOME|ALL (sub): op a comparison, quant_all true for ALL */
} sql_expr_kind_t;

typedef enum sql_op {
    SQL_OP_NONE,
    /* binary */
    SQL_OP_OR, SQL_OP_XOR, SQL_OP_AND,
    SQL_OP_EQ, SQL_OP_NSEQ /* <=> */, SQL_OP_NE, SQL_OP_LT, SQL_OP_LE, SQL_OP_GT, SQL_OP_GE,
    SQL_OP_BITOR, SQL_OP_BITAND, SQL_OP_SHL, SQL_OP_SHR, SQL_OP_BITXOR,
    SQL_OP_ADD, SQL_OP_SUB, SQL_OP_MUL, SQL_OP_DIV /* / */, SQL_OP_IDIV /* DIV */, SQL_OP_MOD,
    /* unary */
    SQL_OP_NEG, SQL_OP_NOT /* NOT and ! */, SQL_OP_BITNOT, SQL_OP_PLUS, SQL_OP_BINARY /* BINARY x */,
} sql_op_t;

typedef enum sql_is_what { SQL_IS_NULL, SQL_IS_TRUE, SQL_IS_FALSE, SQL_IS_UNKNOWN } sql_is_what_t;

typedef enum sql_var_scope {
    SQL_SCOPE_DEFAULT = 0, /* @@x / SET x: session for most variables */
    SQL_SCOPE_SESSION,     /* @@session.x, @@local.x, SET SESSION/LOCAL x */
    SQL_SCOPE_GLOBAL,      /* @@global.x, SET GLOBAL x */
} sql_var_scope_t;

/* CAST target types. */
typedef enum sql_cast_type {
    SQL_CAST_SIGNED, SQL_CAST_UNSIGNED, SQL_CAST_CHAR, SQL_CAST_BINARY, SQL_CAST_DECIMAL, SQL_CAST_DOUBLE,
    SQL_CAST_FLOAT, SQL_CAST_DATE, SQL_CAST_DATETIME, SQL_CAST_TIME,
} sql_cast_type_t;

typedef struct sql_cast {
    sql_cast_type_t type;
    int32_t len;    /* CHAR(n)/BINARY(n)/DECIMAL(M): -1 when not given */
    int32_t scale;  /* DECIMAL(M,D) / DATETIME(fsp): -1 when not given */
    int32_t coll;   /* CHAR ... CHARACTER SET x / COLLATE / USING: -1 when not given */
} sql_cast_t;

/* Functions the evaluator knows (functions.def), resolved by name at parse time (SQL_FN_UNKNOWN otherwise). */
typedef enum sql_fn {
#define FN(id, ...) SQL_FN_##id,
#include "sql/parser/functions.def"
#undef FN
    SQL_FN__COUNT
} sql_fn_t;

typedef struct sql_ident3 { /* [db.][table.]name */
    const char *db, *table, *name;
} sql_ident3_t;

struct sql_expr {
    sql_expr_kind_t kind;
    sql_op_t op;
    bool negated;      /* NOT LIKE / NOT IN / NOT BETWEEN / IS NOT */
    sql_is_what_t is_what;
    const char *src;   /* source text of the whole expression */
    uint32_t src_len;
    uint32_t nargs;
    sql_expr_t **args;
    union {
        value_t lit;                 /* SQL_E_LITERAL; lit_text below keeps the literal's spelling */
        sql_ident3_t col;            /* SQL_E_COLUMN / SQL_E_STAR */
        struct {                     /* SQL_E_SYSVAR / SQL_E_USERVAR / SQL_E_ASSIGN */
            const char *name;        /* as written (user variable names are case-insensitive) */
            const char *component;   /* @@a.b: "a" when b is the name and a not global/session/local */
            sql_var_scope_t scope;
        } var;
        uint32_t param_index;        /* SQL_E_PARAM */
        struct {                     /* SQL_E_FUNC */
            const char *name;        /* upper-cased */
            sql_fn_t fn;
            bool distinct, star;     /* COUNT(DISTINCT ..), COUNT(*) */
            const char *separator;   /* GROUP_CONCAT */
            uint16_t using_coll;     /* CHAR(... USING cs): cs's default collation (0: binary) */
        } func;
        sql_cast_t cast;             /* SQL_E_CAST / SQL_E_CONVERT_USING / SQL_E_COLLATE */
        sql_select_t *sub;           /* SQL_E_SUBQUERY / SQL_E_EXISTS / SQL_E_IN with subquery */
        const char *interval_unit;   /* SQL_E_INTERVAL: "DAY", "HOUR_MINUTE", ... upper-cased */
    };
    sql_expr_t *else_expr;           /* SQL_E_CASE */
    int32_t slot;                    /* SQL_E_COLUMN: executor's bound row slot, -1 unbound */
    const char *lit_text;            /* SQL_E_LITERAL string: name MySQL gives the column */
    uint32_t lit_text_len;

    bool quant_all;                  /* SQL_E_QUANTIFIED: ALL (else ANY/SOME) */
    bool lit_conn;                   /* SQL_E_LITERAL: a '...' string without introducer: it is in
                                        collation_connection when evaluated (sql_eval_ctx_t.conn_coll) */
    struct sql_order_item *agg_order;/* GROUP_CONCAT(... ORDER BY ...) */
    uint32_t nagg_order;
    struct sql_window *over;         /* SQL_E_FUNC: a window function call's OVER (...), NULL otherwise */
    const char *bound_db, *bound_tab; /* SQL_E_COLUMN: where the executor bound it (for MariaDB's printed form) */
    uint32_t bound_len;              /* SQL_E_COLUMN: an integer column's display length once bound (0: unknown) */
    bool bound_json;                 /* SQL_E_COLUMN: bound to a JSON column (JSON functions embed it as JSON) */
};

/* ---------------------------------------------------------------- window specifications */

typedef enum sql_frame_unit { SQL_FRAME_DEFAULT, SQL_FRAME_ROWS, SQL_FRAME_RANGE } sql_frame_unit_t;
typedef enum sql_frame_bound_kind {
    SQL_FB_UNBOUNDED_PRECEDING,
    SQL_FB_PRECEDING,          /* offset PRECEDING */
    SQL_FB_CURRENT_ROW,
    SQL_FB_FOLLOWING,          /* offset FOLLOWING */
    SQL_FB_UNBOUNDED_FOLLOWING,
} sql_frame_bound_kind_t;
typedef struct sql_frame_bound {
    sql_frame_bound_kind_t kind;
    sql_expr_t *offset;
} sql_frame_bound_t;
/* OVER (...) or WINDOW name AS (...): a named window reference to start from, then what this one adds */
typedef struct sql_window {
    const char *ref;           /* OVER w / OVER (w ORDER BY ...): the WINDOW clause's w, NULL when none */
    sql_expr_t **partition;
    uint32_t npartition;
    struct sql_order_item *order;
    uint32_t norder;
    sql_frame_unit_t unit;     /* SQL_FRAME_DEFAULT: none written */
    sql_frame_bound_t start, end;
} sql_window_t;
typedef struct sql_named_window {
    const char *name;
    sql_window_t spec;
} sql_named_window_t;

/* ---------------------------------------------------------------- shared pieces */

typedef struct sql_name { /* [db.]name */
    const char *db;
    const char *name;
} sql_name_t;

typedef struct sql_user { /* 'user'@'host'; CURRENT_USER gives current=true */
    const char *user;
    const char *host; /* "%" when omitted */
    bool current;
} sql_user_t;

typedef struct sql_limit {
    sql_expr_t *count;  /* NULL: no LIMIT */
    sql_expr_t *offset; /* NULL: no OFFSET */
} sql_limit_t;

typedef struct sql_select_item {
    sql_expr_t *expr;
    const char *alias;    /* NULL if none */
} sql_select_item_t;

struct sql_order_item {
    sql_expr_t *expr;
    bool desc;
};

/* FROM clause: a tree of table references. */
typedef enum sql_from_kind { SQL_FROM_TABLE, SQL_FROM_JOIN, SQL_FROM_DERIVED, SQL_FROM_JSON_TABLE } sql_from_kind_t;
typedef enum sql_join_kind { SQL_JOIN_INNER, SQL_JOIN_LEFT, SQL_JOIN_RIGHT, SQL_JOIN_CROSS, SQL_JOIN_STRAIGHT } sql_join_kind_t;
typedef struct sql_from sql_from_t;
struct sql_from {
    sql_from_kind_t kind;
    sql_name_t table;         /* SQL_FROM_TABLE */
    const char *alias;
    sql_select_t *derived;    /* SQL_FROM_DERIVED */
    sql_join_kind_t join;     /* SQL_FROM_JOIN */
    sql_from_t *left, *right;
    sql_expr_t *on;
    const char **using_cols;
    uint32_t nusing;
    bool natural;             /* NATURAL [LEFT|RIGHT] JOIN */
    bool parens;              /* SQL_FROM_JOIN written in parentheses */
    struct sql_index_hint *hints; /* SQL_FROM_TABLE: USE/FORCE/IGNORE INDEX, in order written */
    uint32_t nhints;
    const struct sql_cte *cte;  /* SQL_FROM_TABLE naming a WITH element in scope (resolved by the parser) */
    struct sql_json_table *jt;  /* SQL_FROM_JSON_TABLE (alias is its name) */
};

typedef enum sql_hint_kind { SQL_HINT_USE, SQL_HINT_FORCE, SQL_HINT_IGNORE } sql_hint_kind_t;
typedef enum sql_hint_for { SQL_HINT_FOR_ALL, SQL_HINT_FOR_JOIN, SQL_HINT_FOR_ORDER_BY, SQL_HINT_FOR_GROUP_BY } sql_hint_for_t;
typedef struct sql_index_hint {
    sql_hint_kind_t kind;
    sql_hint_for_t for_what;
    const char **names;       /* index names; "PRIMARY" for PRIMARY; n = 0 for USE INDEX () */
    uint32_t n;
} sql_index_hint_t;

typedef enum sql_setop { SQL_SETOP_UNION, SQL_SETOP_INTERSECT, SQL_SETOP_EXCEPT } sql_setop_t;

typedef enum sql_lock_mode { SQL_LOCK_NONE, SQL_LOCK_FOR_UPDATE, SQL_LOCK_FOR_SHARE } sql_lock_mode_t;

/* Bytes of a string literal (may hold NULs). */
typedef struct sql_bytes {
    const char *p;
    size_t len;
} sql_bytes_t;

/* The FIELDS / LINES options of SELECT ... INTO OUTFILE and LOAD DATA, MariaDB's defaults filled in when not
 * written: FIELDS TERMINATED BY '\t' ENCLOSED BY '' ESCAPED BY '\\' LINES STARTING BY '' TERMINATED BY '\n'. */
typedef struct sql_export {
    sql_bytes_t field_term, enclosed, escaped, line_start, line_term;
    bool opt_enclosed;        /* OPTIONALLY ENCLOSED BY */
    const char *charset;      /* CHARACTER SET x (lower-cased), NULL when not written */
} sql_export_t;

typedef enum sql_into_kind { SQL_INTO_NONE = 0, SQL_INTO_VARS, SQL_INTO_OUTFILE, SQL_INTO_DUMPFILE } sql_into_kind_t;

/* SELECT ... INTO @a, @b | OUTFILE 'file' [options] | DUMPFILE 'file' (the statement's SELECT only) */
typedef struct sql_into {
    sql_into_kind_t kind;
    const char **vars;        /* user variable names (VARS) */
    uint32_t nvars;
    const char *file;         /* OUTFILE / DUMPFILE */
    sql_export_t ex;          /* OUTFILE */
    bool at_end;              /* written after FROM ... (MariaDB's warning 1287) */
} sql_into_t;

struct sql_select {
    bool distinct;
    bool calc_found_rows;
    sql_select_item_t *items;
    uint32_t nitems;
    bool from_dual;           /* FROM DUAL was written */
    sql_from_t *from;         /* NULL: no FROM */
    sql_expr_t *where;
    sql_expr_t **group_by;
    uint32_t ngroup_by;
    sql_expr_t *having;
    sql_order_item_t *order_by;
    uint32_t norder_by;
    sql_limit_t limit;
    sql_lock_mode_t lock;
    sql_select_t *union_next; /* UNION / INTERSECT / EXCEPT chain: this member, then union_next ... */
    bool union_all;           /* the operation between this member and union_next is ALL */
    sql_setop_t set_op;       /* which operation that is (INTERSECT binds tighter than UNION and EXCEPT) */

    bool with_rollup;         /* GROUP BY ... WITH ROLLUP */
    bool *group_desc;         /* GROUP BY x DESC (per group_by item; NULL when none written) */
    bool lock_nowait, lock_skip_locked;
    /* On the first member of a UNION (union_next != NULL): the ORDER BY / LIMIT written after the last member,
     * applying to the whole union.  A member's own ORDER BY / LIMIT (parenthesized) stay in its fields. */
    sql_order_item_t *union_order_by;
    uint32_t nunion_order_by;
    sql_limit_t union_limit;
    bool parenthesized;       /* this member was written in parentheses */
    bool sql_no_cache, sql_buffer_result, high_priority, straight_join, sql_small_result, sql_big_result;
    sql_named_window_t *windows; /* WINDOW name AS (...), ... */
    uint32_t nwindows;
    /* WITH [RECURSIVE] name [(cols)] AS (select), ...: on the select that follows the WITH clause */
    struct sql_cte *ctes;
    uint32_t nctes;
    bool with_recursive;
    sql_into_t *into;         /* SELECT ... INTO: on the statement's (first) select only; NULL otherwise */
};

typedef struct sql_cte {
    const char *name;
    const char **cols;
    uint32_t ncols;
    sql_select_t *select;
    bool recursive;           /* WITH RECURSIVE and its select names it (set by the parser) */
} sql_cte_t;

/* ---------------------------------------------------------------- SET */

typedef enum sql_set_kind {
    SQL_SET_SYSVAR,   /* scope + name = value */
    SQL_SET_USERVAR,  /* @name = value */
    SQL_SET_NAMES,    /* SET NAMES cs [COLLATE c] / SET NAMES DEFAULT: charset (NULL for DEFAULT), collation */
    SQL_SET_CHARSET,  /* SET CHARACTER SET cs | DEFAULT */
} sql_set_kind_t;

typedef struct sql_set_item {
    sql_set_kind_t kind;
    sql_var_scope_t scope;
    const char *name;       /* variable name (lower-cased for system variables); component in `component` */
    const char *component;  /* SET @@a.b: "a" */
    sql_expr_t *value;      /* SQL_E_DEFAULT for DEFAULT; ON/OFF etc. arrive as SQL_E_COLUMN idents */
    const char *charset;    /* NAMES / CHARSET */
    const char *collation;  /* NAMES ... COLLATE */
} sql_set_item_t;

typedef enum sql_isolation {
    SQL_ISO_NONE = 0, SQL_ISO_READ_UNCOMMITTED, SQL_ISO_READ_COMMITTED, SQL_ISO_REPEATABLE_READ,
    SQL_ISO_SERIALIZABLE,
} sql_isolation_t;

typedef enum sql_access { SQL_ACCESS_NONE = 0, SQL_ACCESS_READ_ONLY, SQL_ACCESS_READ_WRITE } sql_access_t;

/* ---------------------------------------------------------------- SHOW */

typedef enum sql_show_kind {
    SQL_SHOW_VARIABLES, SQL_SHOW_STATUS, SQL_SHOW_WARNINGS, SQL_SHOW_ERRORS, SQL_SHOW_DATABASES,
    SQL_SHOW_PROCESSLIST, SQL_SHOW_ENGINES, SQL_SHOW_CHARSET, SQL_SHOW_COLLATION, SQL_SHOW_GRANTS,
    SQL_SHOW_CREATE_DATABASE, SQL_SHOW_CREATE_TABLE, SQL_SHOW_TABLES, SQL_SHOW_COLUMNS, SQL_SHOW_INDEX,
    SQL_SHOW_TABLE_STATUS, SQL_SHOW_BINARY_LOGS, SQL_SHOW_MASTER_STATUS, SQL_SHOW_BINLOG_EVENTS,
    SQL_SHOW_CREATE_USER, SQL_SHOW_ENGINE_STATUS, SQL_SHOW_PLUGINS, SQL_SHOW_SLAVE_STATUS,
    SQL_SHOW_OPEN_TABLES, SQL_SHOW_TRIGGERS, SQL_SHOW_CREATE_VIEW, SQL_SHOW_PRIVILEGES, SQL_SHOW_CREATE_PROCEDURE, SQL_SHOW_CREATE_FUNCTION,
    SQL_SHOW_CREATE_TRIGGER, SQL_SHOW_CREATE_EVENT,
    SQL_SHOW_EVENTS, SQL_SHOW_PROCEDURE_STATUS, SQL_SHOW_FUNCTION_STATUS,
    SQL_SHOW_STRATA_ADVICE, /* strata's own: the advice rules firing (monitor/history.h) */
} sql_show_kind_t;

typedef struct sql_show {
    sql_show_kind_t what;
    sql_var_scope_t scope;   /* VARIABLES / STATUS */
    bool full;               /* FULL PROCESSLIST / TABLES / COLUMNS; ALL SLAVES STATUS */
    bool count_only;         /* SHOW COUNT(*) WARNINGS|ERRORS */
    bool if_not_exists;      /* SHOW CREATE DATABASE IF NOT EXISTS */
    bool package;            /* SHOW PACKAGE [BODY] STATUS (PROCEDURE_STATUS's columns, no rows: no packages) */
    const char *like;        /* LIKE 'pattern' (NULL if none) */
    sql_expr_t *where;       /* WHERE expr (NULL if none) */
    sql_name_t table;        /* COLUMNS / INDEX / CREATE TABLE: table (db may be set by FROM db) */
    const char *db;          /* TABLES / TABLE STATUS / CREATE DATABASE / FROM db */
    const char *log_name;    /* BINLOG EVENTS IN 'name' */
    sql_expr_t *from_pos;    /* BINLOG EVENTS FROM pos */
    const char *engine;      /* SHOW ENGINE x STATUS */
    bool engine_mutex;       /* SHOW ENGINE x MUTEX */
    sql_user_t user;         /* GRANTS FOR / CREATE USER */
    bool has_user;
    sql_limit_t limit;       /* WARNINGS / ERRORS / BINLOG EVENTS */
    bool describe;           /* DESCRIBE/DESC/EXPLAIN t [col]: SQL_SHOW_COLUMNS with `like` = col pattern */
} sql_show_t;

/* ---------------------------------------------------------------- account statements */

typedef struct sql_user_spec {
    sql_user_t user;
    const char *plugin;      /* IDENTIFIED WITH plugin; NULL if not given */
    const char *password;    /* IDENTIFIED BY 'pw' (plain) */
    const char *auth_string; /* IDENTIFIED ... AS 'hash' / IDENTIFIED BY PASSWORD 'hash' */
    bool has_auth;
} sql_user_spec_t;

/* Account options after the user list of CREATE/ALTER USER and GRANT; zero = not given. */
typedef struct sql_account_opts {
    uint8_t lock;                        /* 1 ACCOUNT LOCK, 2 ACCOUNT UNLOCK */
    uint8_t require;                     /* 1 REQUIRE NONE, 2 REQUIRE SSL, 3 X509/CIPHER/ISSUER/SUBJECT */
    bool has_max_user_connections;       /* WITH MAX_USER_CONNECTIONS n */
    uint64_t max_user_connections;
} sql_account_opts_t;

typedef struct sql_user_stmt {           /* CREATE / ALTER / DROP USER */
    sql_account_opts_t opts;             /* CREATE / ALTER */
    bool if_exists;                      /* DROP / ALTER IF EXISTS */
    bool if_not_exists;                  /* CREATE IF NOT EXISTS */
    bool or_replace;                     /* CREATE OR REPLACE USER */
    sql_user_spec_t *users;
    uint32_t nusers;
} sql_user_stmt_t;

typedef struct sql_rename_user {
    sql_user_t *from, *to;
    uint32_t n;
} sql_rename_user_t;

typedef struct sql_set_password {
    sql_user_t user;
    bool has_user;               /* FOR user given */
    sql_expr_t *value;           /* = 'string' or PASSWORD('x') (a SQL_E_FUNC) or OLD_PASSWORD */
} sql_set_password_t;

/* ---------------------------------------------------------------- misc statements */

typedef enum sql_flush_what {
    SQL_FLUSH_PRIVILEGES = 1 << 0, SQL_FLUSH_TABLES = 1 << 1, SQL_FLUSH_LOGS = 1 << 2,
    SQL_FLUSH_BINARY_LOGS = 1 << 3, SQL_FLUSH_STATUS = 1 << 4, SQL_FLUSH_HOSTS = 1 << 5,
    SQL_FLUSH_ENGINE_LOGS = 1 << 6, SQL_FLUSH_ERROR_LOGS = 1 << 7, SQL_FLUSH_RELAY_LOGS = 1 << 8,
    SQL_FLUSH_TABLES_READ_LOCK = 1 << 9, SQL_FLUSH_QUERY_CACHE = 1 << 10, SQL_FLUSH_USER_RESOURCES = 1 << 11,
    SQL_FLUSH_GENERAL_LOGS = 1 << 12, SQL_FLUSH_SLOW_LOGS = 1 << 13,
} sql_flush_what_t;

typedef struct sql_flush {
    bool local;          /* LOCAL / NO_WRITE_TO_BINLOG */
    uint32_t what;       /* sql_flush_what_t bits */
    sql_name_t *tables;  /* FLUSH TABLES t1, t2 */
    uint32_t ntables;
} sql_flush_t;

typedef struct sql_txn {         /* BEGIN / START TRANSACTION / SET TRANSACTION / COMMIT / ROLLBACK */
    sql_access_t access;
    bool consistent_snapshot;
    sql_isolation_t isolation;   /* SET TRANSACTION */
    sql_var_scope_t scope;       /* SET [GLOBAL|SESSION] TRANSACTION */
    bool chain, no_chain, release, no_release;
    const char *savepoint;       /* ROLLBACK TO s / SAVEPOINT s / RELEASE SAVEPOINT s */
} sql_txn_t;

typedef struct sql_prepare {
    const char *name;
    const char *text;      /* PREPARE s FROM 'text' (len in text_len) */
    size_t text_len;
    const char *from_var;  /* PREPARE s FROM @var */
    sql_expr_t **using;    /* EXECUTE s USING @a, @b (expressions in MariaDB) */
    uint32_t nusing;
} sql_prepare_t;

typedef struct sql_kill {
    bool query;            /* KILL QUERY; else CONNECTION */
    sql_expr_t *id;
} sql_kill_t;

typedef enum sql_lock_type { SQL_TLOCK_READ, SQL_TLOCK_READ_LOCAL, SQL_TLOCK_WRITE, SQL_TLOCK_LOW_PRIORITY_WRITE } sql_lock_type_t;
typedef struct sql_lock_table {
    sql_name_t table;
    const char *alias;
    sql_lock_type_t type;
} sql_lock_table_t;

typedef struct sql_lock_tables {
    sql_lock_table_t *tables;
    uint32_t n;
} sql_lock_tables_t;

typedef enum sql_nullability { SQL_NULL_UNSPECIFIED = 0, SQL_NULL_NOT_NULL, SQL_NULL_NULL } sql_nullability_t;

/* JSON_TABLE(doc, path COLUMNS (...)) as MariaDB 10.11 has it (exec/jsontable.c). */
typedef enum sql_jt_col_kind { SQL_JT_ORDINALITY, SQL_JT_PATH, SQL_JT_EXISTS, SQL_JT_NESTED } sql_jt_col_kind_t;
/* What a PATH column takes when its path finds nothing (ON EMPTY) or a value it cannot hold (ON ERROR). */
typedef enum sql_jt_resp { SQL_JT_RESP_NULL, SQL_JT_RESP_ERROR, SQL_JT_RESP_DEFAULT } sql_jt_resp_t;
typedef struct sql_jt_cols sql_jt_cols_t;
typedef struct sql_jt_col {
    sql_jt_col_kind_t kind;
    struct sql_column_def *def;     /* ORDINALITY / PATH / EXISTS: name and type */
    const char *path;               /* PATH / EXISTS / NESTED: the path as written */
    size_t path_len;
    sql_jt_resp_t on_empty, on_error;
    const char *empty_default, *error_default; /* SQL_JT_RESP_DEFAULT: the literal's text */
    size_t empty_len, error_len;
    sql_jt_cols_t *nested;          /* NESTED */
} sql_jt_col_t;
struct sql_jt_cols {
    sql_jt_col_t *cols;
    uint32_t n;
};
typedef struct sql_json_table {
    sql_expr_t *doc;
    const char *path;
    size_t path_len;
    sql_jt_cols_t cols;
} sql_json_table_t;

typedef struct sql_column_def {
    const char *name;
    sql_type_t type;
    sql_nullability_t nullable;
    sql_expr_t *default_expr;  /* DEFAULT literal / (expr); NULL if none.  DEFAULT NULL is a NULL literal */
    bool default_now;          /* DEFAULT CURRENT_TIMESTAMP[(fsp)] / NOW() / LOCALTIMESTAMP ... */
    bool on_update_now;        /* ON UPDATE CURRENT_TIMESTAMP */
    int8_t default_now_fsp;    /* DEFAULT CURRENT_TIMESTAMP(n): n; -1 when not written; 7 when over 6 */
    int8_t on_update_fsp;      /* ON UPDATE CURRENT_TIMESTAMP(n): the same */
    bool auto_increment;
    bool primary_key;          /* column-level PRIMARY KEY (or KEY alone: MySQL treats `KEY` as PRIMARY KEY) */
    bool unique_key;           /* column-level UNIQUE [KEY] */
    const char *comment;
    bool invisible;
    /* ALTER TABLE ADD/MODIFY/CHANGE position */
    bool first;
    const char *after;
    /* [GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED | PERSISTENT]: parsed; the executor may refuse it */
    sql_expr_t *generated;
    bool generated_stored;
    /* column-level CHECK (expr) and REFERENCES t (cols) [ON ...] (a foreign key, as MariaDB 10.5+ makes it) */
    sql_expr_t *check;
    struct sql_index_def *references;
} sql_column_def_t;

typedef enum sql_index_kind {
    SQL_INDEX_KEY, SQL_INDEX_UNIQUE, SQL_INDEX_PRIMARY, SQL_INDEX_FULLTEXT, SQL_INDEX_SPATIAL,
    SQL_INDEX_FOREIGN, /* FOREIGN KEY ... REFERENCES */
    SQL_INDEX_CHECK,   /* [CONSTRAINT name] CHECK (expr): check, name = the constraint's */
} sql_index_kind_t;

/* Referential actions (ON DELETE / ON UPDATE); SET DEFAULT is parsed and, as InnoDB, taken as RESTRICT. */
typedef enum sql_fk_action {
    SQL_FK_RESTRICT = 0, SQL_FK_CASCADE, SQL_FK_SET_NULL, SQL_FK_NO_ACTION, SQL_FK_SET_DEFAULT,
} sql_fk_action_t;

typedef struct sql_index_col {
    const char *name;
    int32_t prefix_len;        /* col(n): n, else -1 */
    bool desc;
} sql_index_col_t;

typedef struct sql_index_def {
    sql_index_kind_t kind;
    const char *name;          /* NULL if not given (the executor names it after its first column) */
    sql_index_col_t *cols;
    uint32_t ncols;
    const char *using_type;    /* USING BTREE|HASH (upper-cased) or NULL */
    const char *comment;
    const char *constraint;    /* CONSTRAINT [symbol] name, or NULL */
    sql_name_t ref_table;      /* FOREIGN KEY ... REFERENCES t (cols) */
    const char **ref_cols;     /* the referenced columns (nref_cols; 0 when not written) */
    uint32_t nref_cols;
    sql_fk_action_t on_delete, on_update;
    sql_expr_t *check;         /* SQL_INDEX_CHECK */
    bool if_not_exists;        /* ALTER TABLE ADD INDEX IF NOT EXISTS */
} sql_index_def_t;

/* Which table options were written (sql_table_options_t.set bits). */
enum {
    SQL_TOPT_ENGINE = 1 << 0, SQL_TOPT_CHARSET = 1 << 1, SQL_TOPT_COLLATE = 1 << 2,
    SQL_TOPT_AUTO_INCREMENT = 1 << 3, SQL_TOPT_COMMENT = 1 << 4, SQL_TOPT_ROW_FORMAT = 1 << 5,
    SQL_TOPT_TABLESPACE = 1 << 6, SQL_TOPT_STORAGE = 1 << 7, SQL_TOPT_OTHER = 1 << 8,
};
typedef enum sql_storage { SQL_STORAGE_DEFAULT = 0, SQL_STORAGE_DISK, SQL_STORAGE_MEMORY } sql_storage_t;

typedef struct sql_table_options {
    uint32_t set;              /* SQL_TOPT_* bits of the options written */
    const char *engine;        /* as written ("InnoDB", "ndb") */
    const char *charset;       /* [DEFAULT] CHARSET / CHARACTER SET (lower-cased) */
    const char *collation;     /* [DEFAULT] COLLATE (lower-cased) */
    int32_t coll;              /* resolved from charset/collation, -1 if neither */
    uint64_t auto_increment;
    const char *comment;
    const char *row_format;    /* upper-cased */
    const char *tablespace;
    sql_storage_t storage;
} sql_table_options_t;

typedef enum sql_dup_mode { SQL_DUP_ERROR = 0, SQL_DUP_IGNORE, SQL_DUP_REPLACE } sql_dup_mode_t;

typedef struct sql_create_table {
    sql_name_t table;
    bool temporary;
    bool if_not_exists;
    bool or_replace;
    sql_column_def_t *cols;
    uint32_t ncols;
    sql_index_def_t *indexes;  /* table-level constraints and indexes, in order (FOREIGN KEY included) */
    uint32_t nindexes;
    sql_table_options_t opts;
    sql_name_t like;           /* CREATE TABLE t LIKE s: like.name != NULL */
    sql_select_t *as_select;   /* CREATE TABLE t [(defs)] [opts] [IGNORE|REPLACE] [AS] SELECT ... */
    sql_dup_mode_t dup;
} sql_create_table_t;

typedef struct sql_table_list {    /* DROP TABLE / TRUNCATE / DROP VIEW / ANALYZE|OPTIMIZE|CHECK|REPAIR|CHECKSUM TABLE */
    bool if_exists;
    bool temporary;
    bool cascade;                  /* RESTRICT / CASCADE: accepted, no effect */
    bool local;                    /* ANALYZE/OPTIMIZE/REPAIR LOCAL | NO_WRITE_TO_BINLOG */
    bool persistent;               /* ANALYZE TABLE ... PERSISTENT FOR ... */
    const char *options;           /* CHECK TABLE ... FOR UPGRADE|QUICK|FAST|MEDIUM|EXTENDED|CHANGED, CHECKSUM
                                    * QUICK|EXTENDED, REPAIR QUICK|EXTENDED|USE_FRM (last word, upper-cased) */
    sql_name_t *tables;
    uint32_t n;
} sql_table_list_t;

typedef struct sql_rename_table {
    sql_name_t *from, *to;
    uint32_t n;
} sql_rename_table_t;

/* ALTER TABLE / CREATE INDEX / DROP INDEX: the ALGORITHM= and LOCK= clauses (DEFAULT when absent) */
typedef enum { SQL_ALGORITHM_DEFAULT = 0, SQL_ALGORITHM_COPY, SQL_ALGORITHM_INPLACE, SQL_ALGORITHM_NOCOPY,
               SQL_ALGORITHM_INSTANT } sql_alter_algorithm_t;
typedef enum { SQL_ALTER_LOCK_DEFAULT = 0, SQL_ALTER_LOCK_NONE, SQL_ALTER_LOCK_SHARED,
               SQL_ALTER_LOCK_EXCLUSIVE } sql_alter_lock_t;

typedef struct sql_index_stmt {    /* CREATE [UNIQUE] INDEX i ON t (...) / DROP INDEX i ON t */
    sql_name_t table;
    sql_index_def_t index;         /* DROP: index.name only ("PRIMARY" for DROP INDEX `PRIMARY`) */
    bool if_exists;                /* DROP INDEX IF EXISTS */
    bool or_replace;
    sql_alter_algorithm_t algorithm;
    sql_alter_lock_t lock;
} sql_index_stmt_t;

typedef enum sql_alter_kind {
    SQL_ALTER_ADD_COLUMN,      /* col (with first/after) */
    SQL_ALTER_DROP_COLUMN,     /* name */
    SQL_ALTER_MODIFY_COLUMN,   /* col */
    SQL_ALTER_CHANGE_COLUMN,   /* name = old name, col = new definition */
    SQL_ALTER_ALTER_DEFAULT,   /* ALTER [COLUMN] name SET DEFAULT expr (default_expr) | DROP DEFAULT (NULL) */
    SQL_ALTER_RENAME_COLUMN,   /* RENAME COLUMN name TO new_name.name */
    SQL_ALTER_ADD_INDEX,       /* index (PRIMARY / UNIQUE / KEY / FOREIGN) */
    SQL_ALTER_DROP_INDEX,      /* name */
    SQL_ALTER_DROP_PRIMARY_KEY,
    SQL_ALTER_DROP_FOREIGN_KEY,/* name */
    SQL_ALTER_DROP_CONSTRAINT, /* DROP CONSTRAINT name: a CHECK constraint or a foreign key */
    SQL_ALTER_RENAME_INDEX,    /* RENAME INDEX|KEY name TO new_name.name */
    SQL_ALTER_RENAME,          /* RENAME [TO|AS] new_name */
    SQL_ALTER_OPTIONS,         /* table options (in sql_alter_table_t.opts; one action marks where) */
    SQL_ALTER_DISABLE_KEYS,
    SQL_ALTER_ENABLE_KEYS,
    SQL_ALTER_CONVERT_CHARSET, /* CONVERT TO CHARACTER SET x [COLLATE y]: opts.charset/collation */
    SQL_ALTER_FORCE,           /* FORCE / ENGINE rebuild: nothing to change */
    SQL_ALTER_ORDER_BY,        /* ORDER BY col: accepted, no effect */
} sql_alter_kind_t;

typedef struct sql_alter_action {
    sql_alter_kind_t kind;
    sql_column_def_t col;
    sql_index_def_t index;
    const char *name;
    sql_name_t new_name;
    sql_expr_t *default_expr;
    bool if_exists;            /* DROP COLUMN IF EXISTS ... */
    bool if_not_exists;        /* ADD COLUMN IF NOT EXISTS ... */
} sql_alter_action_t;

typedef struct sql_alter_table {
    sql_name_t table;
    bool ignore;
    sql_alter_algorithm_t algorithm;
    sql_alter_lock_t lock;
    sql_alter_action_t *actions;
    uint32_t nactions;
    sql_table_options_t opts;  /* table options among the actions (ENGINE=, AUTO_INCREMENT=, ...) */
} sql_alter_table_t;

typedef struct sql_database_stmt { /* CREATE / DROP / ALTER DATABASE|SCHEMA */
    const char *name;              /* NULL: ALTER DATABASE without a name (the current database) */
    bool if_exists, if_not_exists, or_replace;
    const char *charset;           /* lower-cased */
    const char *collation;
    int32_t coll;                  /* resolved, -1 if none */
    const char *comment;
} sql_database_stmt_t;

/* CREATE|DROP LOGFILE GROUP, CREATE|ALTER|DROP TABLESPACE (MySQL Cluster disk-data syntax). */
enum {
    SQL_TS_INITIAL_SIZE = 1 << 0, SQL_TS_UNDO_BUFFER_SIZE = 1 << 1, SQL_TS_EXTENT_SIZE = 1 << 2,
    SQL_TS_AUTOEXTEND_SIZE = 1 << 3, SQL_TS_MAX_SIZE = 1 << 4, SQL_TS_REDO_BUFFER_SIZE = 1 << 5,
    SQL_TS_NODEGROUP = 1 << 6, SQL_TS_WAIT = 1 << 7, SQL_TS_COMMENT = 1 << 8, SQL_TS_FILE_BLOCK_SIZE = 1 << 9,
};
typedef struct sql_tablespace_stmt {
    const char *name;              /* the tablespace or logfile group */
    bool add;                      /* ALTER: ADD (else DROP) DATAFILE / ADD UNDOFILE */
    bool undo;                     /* the file is an UNDOFILE (logfile groups) */
    const char *file;              /* 'd.dat' / 'u.log' (NULL for DROP TABLESPACE / DROP LOGFILE GROUP) */
    const char *logfile_group;     /* CREATE TABLESPACE ... USE LOGFILE GROUP lg */
    uint32_t set;                  /* SQL_TS_* bits of the sizes/options given */
    uint64_t initial_size, undo_buffer_size, extent_size, autoextend_size, max_size, redo_buffer_size;
    uint64_t file_block_size;
    int64_t nodegroup;
    const char *comment;
    const char *engine;            /* ENGINE [=] x, NULL if not given */
} sql_tablespace_stmt_t;


/* CREATE [OR REPLACE] [DEFINER=..] PROCEDURE | FUNCTION, DROP PROCEDURE | FUNCTION, CALL (sp.h has the body). */
typedef enum sql_param_mode { SQL_PARAM_IN, SQL_PARAM_OUT, SQL_PARAM_INOUT } sql_param_mode_t;
typedef struct sql_routine_param {
    sql_param_mode_t mode;
    const char *name;
    sql_type_t type;
} sql_routine_param_t;
struct sp_body;
typedef struct sql_routine_stmt {
    sql_name_t name;
    bool is_function;
    bool or_replace, if_not_exists, if_exists;
    sql_user_t definer;
    bool has_definer;
    const char *params_src;        /* the text between the parameter list's parentheses, as written */
    size_t params_len;
    sql_routine_param_t *params;
    uint32_t nparams;
    sql_type_t returns;            /* FUNCTION */
    bool deterministic;
    const char *data_access;       /* "CONTAINS SQL" (default) / "NO SQL" / "READS SQL DATA" / "MODIFIES SQL DATA" */
    bool data_access_set;          /* written (ALTER changes only what is written) */
    const char *security;          /* "DEFINER" / "INVOKER" or NULL */
    const char *comment;           /* NULL: none */
    const char *body_src;          /* the body's text, as written */
    size_t body_len;
    struct sp_body *body;          /* parsed (sp.h) */
} sql_routine_stmt_t;

/* CREATE [OR REPLACE] [DEFINER=..] TRIGGER [IF NOT EXISTS] name BEFORE|AFTER INSERT|UPDATE|DELETE ON tbl
 * FOR EACH ROW [FOLLOWS|PRECEDES other] body; DROP TRIGGER [IF EXISTS] name (only name, if_exists). */
typedef struct sql_trigger_stmt {
    sql_name_t name;
    bool or_replace, if_not_exists, if_exists;
    sql_user_t definer;
    bool has_definer;
    const char *timing;            /* "BEFORE" / "AFTER" */
    const char *event;             /* "INSERT" / "UPDATE" / "DELETE" */
    sql_name_t table;
    const char *order_kind;        /* NULL, "FOLLOWS" or "PRECEDES" */
    const char *order_other;       /* the trigger named there */
    const char *order_src;         /* where FOLLOWS / PRECEDES begins (MariaDB keeps the statement without it) */
    const char *create_src;        /* the text from the word TRIGGER on (SHOW CREATE TRIGGER's statement) */
    const char *body_src;          /* the body's text, as written */
    size_t body_len;
    struct sp_body *body;          /* parsed (sp.h); its NEW / OLD references in body->trig_refs */
} sql_trigger_stmt_t;

/* CREATE [OR REPLACE] [DEFINER=..] EVENT [IF NOT EXISTS] name ON SCHEDULE schedule [ON COMPLETION [NOT] PRESERVE]
 * [ENABLE | DISABLE | DISABLE ON SLAVE] [COMMENT 'text'] DO body; ALTER [DEFINER=..] EVENT name [ON SCHEDULE ..]
 * [ON COMPLETION ..] [RENAME TO name] [ENABLE | ..] [COMMENT ..] [DO body]; DROP EVENT [IF EXISTS] name.
 * The schedule's times and interval are expressions, evaluated by the statement's handler. */
typedef struct sql_event_stmt {
    sql_name_t name;
    const char *name_src;          /* the statement's text from the name on (ALTER's binlog text) */
    bool or_replace, if_not_exists, if_exists;
    sql_user_t definer;
    bool has_definer;
    bool has_schedule;
    bool every;                    /* EVERY (else AT) */
    sql_expr_t *at;                /* AT ts [+ INTERVAL ...] */
    sql_expr_t *every_value;       /* EVERY n unit */
    const char *every_unit;        /* upper-cased */
    sql_expr_t *starts, *ends;     /* NULL: not written */
    int completion;                /* 0 not written, 1 PRESERVE, 2 NOT PRESERVE */
    const char *status;            /* NULL, "ENABLED", "DISABLED", "SLAVESIDE_DISABLED" */
    const char *comment;           /* NULL: not written */
    bool has_rename;
    sql_name_t rename;             /* RENAME TO */
    const char *body_src;          /* NULL: no DO */
    size_t body_len;
    struct sp_body *body;
} sql_event_stmt_t;

typedef struct sql_call_stmt {
    sql_name_t name;
    sql_expr_t **args;
    uint32_t nargs;
} sql_call_stmt_t;

typedef struct sql_view_stmt {     /* CREATE [OR REPLACE] [ALGORITHM=..] [DEFINER=..] [SQL SECURITY ..] VIEW */
    sql_name_t name;
    bool or_replace;
    bool if_not_exists;
    const char *algorithm;         /* "UNDEFINED" / "MERGE" / "TEMPTABLE" (upper-cased) or NULL */
    sql_user_t definer;
    bool has_definer;
    const char *security;          /* "DEFINER" / "INVOKER" or NULL */
    const char **cols;             /* VIEW v (a, b) */
    uint32_t ncols;
    sql_select_t *select;
    const char *select_src;        /* the SELECT's text (what SHOW CREATE VIEW prints) */
    size_t select_src_len;
    const char *check_option;      /* "CASCADED" / "LOCAL" or NULL */
} sql_view_stmt_t;

/* ---------------------------------------------------------------- DML */

typedef struct sql_assign {        /* col = expr in SET lists and ON DUPLICATE KEY UPDATE */
    sql_expr_t *col;               /* a SQL_E_COLUMN */
    sql_expr_t *value;             /* SQL_E_DEFAULT for DEFAULT */
} sql_assign_t;

typedef struct sql_row {           /* one VALUES (...) row */
    sql_expr_t **vals;             /* SQL_E_DEFAULT for DEFAULT */
    uint32_t n;
    /* LOAD DATA (sql_insert_t.bulk): vals[0..load_targets) are the line's fields, of which the line had the
     * first load_given (the others are DEFAULT, each with 1261); load_truncated: it had more (1262) */
    uint32_t load_targets, load_given;
    bool load_truncated;
} sql_row_t;

typedef enum sql_priority { SQL_PRIO_DEFAULT = 0, SQL_PRIO_LOW, SQL_PRIO_HIGH, SQL_PRIO_DELAYED } sql_priority_t;

typedef struct sql_insert {        /* INSERT and REPLACE (stmt kind says which) */
    sql_name_t table;
    const char *alias;             /* INSERT INTO t AS a ... (MySQL 8 row alias; parsed) */
    bool ignore;
    sql_priority_t priority;
    const char **cols;             /* (c1, c2) or NULL: all columns; ncols 0 with cols != NULL for `()` */
    uint32_t ncols;
    sql_row_t *rows;               /* VALUES / VALUE rows (nrows > 0) */
    uint32_t nrows;
    sql_assign_t *set;             /* INSERT ... SET c = v, ... (nset > 0) */
    uint32_t nset;
    sql_select_t *select;          /* INSERT ... SELECT / TABLE t */
    sql_assign_t *on_dup;          /* ON DUPLICATE KEY UPDATE; values may contain VALUES(col) (SQL_FN_VALUES) */
    uint32_t non_dup;
    sql_select_item_t *returning;  /* RETURNING items (nreturning > 0): a result set instead of the OK */
    uint32_t nreturning;
    bool bulk;                     /* built by LOAD DATA (exec/load.c): a batch of a file's rows */
} sql_insert_t;

typedef struct sql_update {
    sql_from_t *tables;            /* the table (SQL_FROM_TABLE) or, multi-table, a join tree / comma list */
    bool multi;                    /* more than one table reference */
    bool ignore;
    bool low_priority;
    sql_assign_t *set;
    uint32_t nset;
    sql_expr_t *where;
    sql_order_item_t *order_by;    /* single-table only */
    uint32_t norder_by;
    sql_limit_t limit;             /* single-table only */
} sql_update_t;

typedef struct sql_delete {
    sql_from_t *from;              /* single table: SQL_FROM_TABLE; multi: the FROM / USING join tree */
    bool multi;
    sql_name_t *targets;           /* multi-table: tables (or aliases) rows are deleted from (t1.* allowed) */
    uint32_t ntargets;
    bool ignore, quick, low_priority;
    sql_expr_t *where;
    sql_order_item_t *order_by;
    uint32_t norder_by;
    sql_limit_t limit;
    sql_select_item_t *returning;  /* single-table DELETE ... RETURNING items (nreturning > 0) */
    uint32_t nreturning;
} sql_delete_t;

/* LOAD DATA [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t [CHARACTER SET cs] [FIELDS ...] [LINES ...]
 * [IGNORE n LINES] [(col_or_@var, ...)] [SET col = expr, ...] */
typedef struct sql_load {
    const char *file;
    bool local;
    sql_dup_mode_t dup;            /* ERROR / IGNORE / REPLACE */
    sql_name_t table;
    sql_export_t ex;
    uint64_t ignore_lines;
    sql_expr_t **targets;          /* column list: SQL_E_COLUMN or SQL_E_USERVAR; NULL (n 0): every column */
    uint32_t ntargets;
    bool has_targets;              /* a list was written (possibly `()`) */
    sql_assign_t *set;             /* SET col = expr, ... */
    uint32_t nset;
} sql_load_t;

typedef struct sql_stmt sql_stmt_t;

typedef struct sql_explain {       /* EXPLAIN [EXTENDED|PARTITIONS|FORMAT=x] stmt / ANALYZE stmt */
    sql_stmt_t *stmt;              /* SELECT / INSERT / REPLACE / UPDATE / DELETE */
    const char *format;            /* "TRADITIONAL", "JSON" (upper-cased) or NULL */
    bool extended, partitions, analyze;
} sql_explain_t;

/* ---------------------------------------------------------------- privileges */

typedef struct sql_priv {
    const char *name;              /* upper-cased, words joined by one space: "SELECT", "ALL", "GRANT OPTION",
                                    * "CREATE TEMPORARY TABLES", "LOCK TABLES", "REPLICATION SLAVE", ... */
    const char **cols;             /* SELECT (a, b): column list, else NULL */
    uint32_t ncols;
    const char *as_written;        /* the words as written (role names are case-sensitive) */
} sql_priv_t;

typedef enum sql_grant_level {
    SQL_GRANT_GLOBAL,              /* ON *.* */
    SQL_GRANT_DB,                  /* ON db.*  (db NULL: ON * = the current database) */
    SQL_GRANT_TABLE,               /* ON [TABLE] [db.]t */
    SQL_GRANT_ROLE,                /* GRANT role [, role] TO ... / REVOKE role FROM ... (no ON) */
} sql_grant_level_t;

typedef struct sql_grant {         /* GRANT / REVOKE (stmt kind says which) */
    sql_grant_level_t level;
    sql_priv_t *privs;             /* empty for roles */
    uint32_t nprivs;
    const char *db;                /* DB / TABLE level (NULL = current database) */
    const char *table;             /* TABLE level */
    bool object_table;             /* `TABLE` keyword written */
    bool object_routine;           /* ON FUNCTION / ON PROCEDURE (parsed, not supported) */
    const char **roles;            /* ROLE level: role names */
    uint32_t nroles;
    sql_user_spec_t *users;        /* TO / FROM users (IDENTIFIED BY in GRANT gives has_auth) */
    uint32_t nusers;
    bool with_grant_option;        /* GRANT ... WITH GRANT OPTION */
    bool with_admin_option;        /* GRANT role TO u WITH ADMIN OPTION */
    bool revoke_all;               /* REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users */
    bool admin_option_for;         /* REVOKE ADMIN OPTION FOR role FROM ... */
    sql_account_opts_t opts;       /* GRANT ... REQUIRE / WITH MAX_USER_CONNECTIONS */
} sql_grant_t;

typedef struct sql_role_stmt {     /* SET ROLE / SET DEFAULT ROLE */
    const char *role;              /* NULL: NONE */
    bool is_default_role;          /* SET DEFAULT ROLE */
    sql_user_t user;               /* SET DEFAULT ROLE r FOR user */
    bool has_user;
} sql_role_stmt_t;

/* ---------------------------------------------------------------- binlog */

/* CHANGE MASTER TO / CHANGE REPLICATION SOURCE TO: the options as written, SOURCE_* spelled MASTER_*; the
 * session checks names and values.  START / STOP SLAVE | REPLICA [IO_THREAD | SQL_THREAD], RESET SLAVE [ALL]. */
typedef struct sql_repl_opt {
    const char *name;      /* upper case: "MASTER_HOST", "MASTER_PORT", "MASTER_USE_GTID", ... */
    const char *str;       /* a string or word value (MASTER_USE_GTID = slave_pos), else NULL */
    const char *num;       /* a number's text, else NULL */
} sql_repl_opt_t;

enum { SQL_REPL_IO_THREAD = 1, SQL_REPL_SQL_THREAD = 2 };

typedef struct sql_repl_stmt {
    sql_repl_opt_t *opts;  /* CHANGE MASTER; START SLAVE UNTIL */
    uint32_t nopts;
    unsigned threads;      /* START / STOP: SQL_REPL_* bits, 0 = both */
    bool all;              /* RESET SLAVE ALL */
    bool until;            /* START SLAVE ... UNTIL (the condition in opts) */
} sql_repl_stmt_t;

typedef struct sql_purge {         /* PURGE BINARY|MASTER LOGS TO 'f' | BEFORE expr */
    const char *to_log;            /* NULL when BEFORE */
    sql_expr_t *before;
} sql_purge_t;

/* ---------------------------------------------------------------- statements */

typedef enum sql_stmt_kind {
#define STMT(id, privileges, handler, com, flags) SQL_STMT_##id,
#include "sql/parser/statements.def"
#undef STMT
    SQL_STMT__COUNT
} sql_stmt_kind_t;

/* statements.def's flags column */
enum {
    STMT_F_IMPLICIT_COMMIT = 1, /* an executor statement that ends the open transaction first (DDL) */
    STMT_F_LOGGED = 2,          /* a QUERY event in the binary log once it succeeded */
};
/* A kind's flags (STMT_F_*). */
unsigned sql_stmt_flags(sql_stmt_kind_t k);

struct sql_stmt {
    sql_stmt_kind_t kind;
    const char *src;        /* this statement's text as MariaDB keeps it (parse.c, stmt_text_start) */
    size_t src_len;
    uint32_t nparams;       /* number of `?` placeholders */
    sql_expr_t **params;    /* the placeholder nodes, by index */
    union {
        sql_select_t *select;         /* SELECT */
        struct {                      /* SET */
            sql_set_item_t *items;
            uint32_t nitems;
        } set;
        sql_show_t show;              /* SHOW */
        const char *use_db;           /* USE */
        sql_user_stmt_t user;         /* CREATE_USER / ALTER_USER / DROP_USER */
        sql_rename_user_t rename_user;/* RENAME_USER */
        sql_set_password_t set_password;
        sql_flush_t flush;
        sql_txn_t txn;                /* BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE_SAVEPOINT / SET_TRANSACTION */
        sql_prepare_t prepare;        /* PREPARE / EXECUTE / DEALLOCATE */
        sql_kill_t kill;
        sql_expr_t *do_expr;          /* DO (first expression; do_list has all) */
        sql_lock_tables_t lock;       /* LOCK_TABLES */

        sql_create_table_t *create_table;   /* CREATE_TABLE */
        sql_table_list_t tables;            /* DROP_TABLE / TRUNCATE (n == 1) */
        sql_rename_table_t rename_table;    /* RENAME_TABLE */
        sql_index_stmt_t index;             /* CREATE_INDEX / DROP_INDEX */
        sql_alter_table_t *alter_table;     /* ALTER_TABLE */
        sql_database_stmt_t database;       /* CREATE_DATABASE / DROP_DATABASE / ALTER_DATABASE */
        sql_tablespace_stmt_t tablespace;   /* CREATE|ALTER|DROP TABLESPACE, CREATE|DROP LOGFILE_GROUP */
        sql_insert_t *insert;               /* INSERT / REPLACE */
        sql_update_t *update;               /* UPDATE */
        sql_delete_t *del;                  /* DELETE */
        sql_load_t *load;                   /* LOAD_DATA */
        sql_explain_t explain;              /* EXPLAIN */
        sql_grant_t *grant;                 /* GRANT / REVOKE */
        sql_role_stmt_t role;               /* SET_ROLE / SET_DEFAULT_ROLE (CREATE/DROP ROLE use `user`) */
        sql_purge_t purge;                  /* PURGE_BINARY_LOGS */
        uint64_t reset_master_to;           /* RESET_MASTER [TO n] (0: not given) */
        sql_repl_stmt_t repl;               /* CHANGE_MASTER / START_SLAVE / STOP_SLAVE / RESET_SLAVE */
        sql_view_stmt_t *view;              /* CREATE_VIEW (DROP_VIEW uses `tables`) */
        sql_routine_stmt_t *routine;        /* CREATE|DROP_PROCEDURE, CREATE|DROP_FUNCTION */
        sql_trigger_stmt_t *trigger;        /* CREATE|DROP_TRIGGER */
        sql_event_stmt_t *event;            /* CREATE|ALTER|DROP_EVENT */
        sql_call_stmt_t *call;              /* CALL */
    };
    sql_expr_t **do_list;
    uint32_t ndo;
};

typedef struct sql_stmt_list {
    sql_stmt_t **stmts;
    uint32_t n;
} sql_stmt_list_t;

const char *sql_stmt_kind_name(sql_stmt_kind_t k);
const char *sql_fn_name(sql_fn_t fn);

/* A function's flags (functions.def's last column explains them). */
enum {
    SQL_FNF_LAZY = 1u << 0,
    SQL_FNF_AGGREGATE = 1u << 1,
    SQL_FNF_VOLATILE = 1u << 2,
    SQL_FNF_SESSION = 1u << 3,
    SQL_FNF_NOW = 1u << 4,
    SQL_FNF_GRAMMAR = 1u << 5,
    SQL_FNF_WINDOW = 1u << 6,
    SQL_FNF_JSON = 1u << 7,
    SQL_FNF_JSON_META = 1u << 8,
};
unsigned sql_fn_flags(sql_fn_t fn);
/* A call of COUNT, SUM, ... (SQL_FNF_AGGREGATE) without OVER, which the executor accumulates per group. */
bool sql_expr_is_aggregate(const sql_expr_t *e);

#endif
