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

#include "sql/value.h"

typedef struct sql_expr sql_expr_t;
typedef struct sql_select sql_select_t;

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
    SQL_E_SUBQUERY,  /* sub: (SELECT ...) scalar subquery (milestone B) */
    SQL_E_EXISTS,    /* sub */
    SQL_E_DEFAULT,   /* DEFAULT (in SET / INSERT values) */
    SQL_E_INTERVAL,  /* arg[0] + interval unit (DATE_ADD(x, INTERVAL n unit), x + INTERVAL n unit) */
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

/* Functions the evaluator knows, resolved by name at parse time (SQL_FN_UNKNOWN otherwise). */
typedef enum sql_fn {
#define FN(id, name, minargs, maxargs) SQL_FN_##id,
#include "sql/functions.def"
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
        } func;
        sql_cast_t cast;             /* SQL_E_CAST / SQL_E_CONVERT_USING / SQL_E_COLLATE */
        sql_select_t *sub;           /* SQL_E_SUBQUERY / SQL_E_EXISTS / SQL_E_IN with subquery */
        const char *interval_unit;   /* SQL_E_INTERVAL: "DAY", "HOUR_MINUTE", ... upper-cased */
    };
    sql_expr_t *else_expr;           /* SQL_E_CASE */
    int32_t slot;                    /* SQL_E_COLUMN: executor's bound row slot, -1 unbound */
    const char *lit_text;            /* SQL_E_LITERAL string: name MySQL gives the column */
    uint32_t lit_text_len;
};

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

typedef struct sql_order_item {
    sql_expr_t *expr;
    bool desc;
} sql_order_item_t;

/* FROM clause (milestone B): a tree of table references. */
typedef enum sql_from_kind { SQL_FROM_TABLE, SQL_FROM_JOIN, SQL_FROM_DERIVED } sql_from_kind_t;
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
};

typedef enum sql_lock_mode { SQL_LOCK_NONE, SQL_LOCK_FOR_UPDATE, SQL_LOCK_FOR_SHARE } sql_lock_mode_t;

struct sql_select {
    bool distinct;
    bool calc_found_rows;
    sql_select_item_t *items;
    uint32_t nitems;
    bool from_dual;           /* FROM DUAL was written */
    sql_from_t *from;         /* NULL: no FROM (milestone A always) */
    sql_expr_t *where;
    sql_expr_t **group_by;
    uint32_t ngroup_by;
    sql_expr_t *having;
    sql_order_item_t *order_by;
    uint32_t norder_by;
    sql_limit_t limit;
    sql_lock_mode_t lock;
    sql_select_t *union_next; /* UNION chain (milestone B) */
    bool union_all;
};

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
    SQL_SHOW_OPEN_TABLES, SQL_SHOW_TRIGGERS, SQL_SHOW_CREATE_VIEW, SQL_SHOW_PRIVILEGES,
} sql_show_kind_t;

typedef struct sql_show {
    sql_show_kind_t what;
    sql_var_scope_t scope;   /* VARIABLES / STATUS */
    bool full;               /* FULL PROCESSLIST / TABLES / COLUMNS */
    bool count_only;         /* SHOW COUNT(*) WARNINGS|ERRORS */
    bool if_not_exists;      /* SHOW CREATE DATABASE IF NOT EXISTS */
    const char *like;        /* LIKE 'pattern' (NULL if none) */
    sql_expr_t *where;       /* WHERE expr (NULL if none) */
    sql_name_t table;        /* COLUMNS / INDEX / CREATE TABLE: table (db may be set by FROM db) */
    const char *db;          /* TABLES / TABLE STATUS / CREATE DATABASE / FROM db */
    const char *log_name;    /* BINLOG EVENTS IN 'name' */
    sql_expr_t *from_pos;    /* BINLOG EVENTS FROM pos */
    const char *engine;      /* SHOW ENGINE x STATUS */
    sql_user_t user;         /* GRANTS FOR / CREATE USER */
    bool has_user;
    sql_limit_t limit;       /* WARNINGS / ERRORS / BINLOG EVENTS */
} sql_show_t;

/* ---------------------------------------------------------------- account statements */

typedef struct sql_user_spec {
    sql_user_t user;
    const char *plugin;      /* IDENTIFIED WITH plugin; NULL if not given */
    const char *password;    /* IDENTIFIED BY 'pw' (plain) */
    const char *auth_string; /* IDENTIFIED ... AS 'hash' / IDENTIFIED BY PASSWORD 'hash' */
    bool has_auth;
} sql_user_spec_t;

typedef struct sql_user_stmt {           /* CREATE / ALTER / DROP USER */
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

/* ---------------------------------------------------------------- statements */

typedef enum sql_stmt_kind {
#define STMT(id) SQL_STMT_##id,
#include "sql/statements.def"
#undef STMT
    SQL_STMT__COUNT
} sql_stmt_kind_t;

typedef struct sql_stmt {
    sql_stmt_kind_t kind;
    const char *src;        /* this statement's text (within the parsed buffer), without the ';' */
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
    };
    sql_expr_t **do_list;
    uint32_t ndo;
} sql_stmt_t;

typedef struct sql_stmt_list {
    sql_stmt_t **stmts;
    uint32_t n;
} sql_stmt_list_t;

const char *sql_stmt_kind_name(sql_stmt_kind_t k);
const char *sql_fn_name(sql_fn_t fn);

#endif
