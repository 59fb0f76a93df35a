/*
 * FOREIGN KEY and CHECK constraints in table definitions: CREATE TABLE and ALTER TABLE build them into the catalog
 * definition (cat_fk_t, cat_check_t) with MariaDB/InnoDB's rules and errors; SHOW CREATE TABLE prints them back.
 *
 * Foreign keys: the child columns must exist (1072), as many as the referenced ones (1239); the parent must exist
 * with an index whose leading columns are the referenced ones, of matching types (InnoDB: same integer type and
 * signedness, strings of one character set, ...), and SET NULL needs nullable columns; otherwise 1005 with errno 150
 * "Foreign key constraint is incorrectly formed".  With foreign_key_checks=0 a missing parent is accepted (dumps
 * create children first).  Unnamed keys are called <table>_ibfk_<n>; names are unique per database (errno 121).
 * The child gets an index on its key columns when none leads with them, named after the constraint (or, without
 * one, its first column), as InnoDB does.
 *
 * CHECK constraints: a column's is named after the column, an unnamed table-level one CONSTRAINT_<n>; the
 * condition is kept as MariaDB prints it (check_expr_print), which is also the text evaluated for each row
 * (sql/exec/constraints.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "sql/ddl/constraint.h"
#include "util/util.h"

/* ---------------------------------------------------------------- CHECK condition text, as MariaDB prints it */

enum { P_LOWEST = 0, P_OR, P_XOR, P_AND, P_NOT, P_BETWEEN, P_CMP, P_BITOR, P_BITAND, P_SHIFT, P_ADD, P_MUL,
       P_BITXOR, P_NEG, P_HIGHEST };

static int op_prec(sql_op_t op)
{
    switch (op) {
    case SQL_OP_OR: return P_OR;
    case SQL_OP_XOR: return P_XOR;
    case SQL_OP_AND: return P_AND;
    case SQL_OP_EQ: case SQL_OP_NSEQ: case SQL_OP_NE: case SQL_OP_LT: case SQL_OP_LE: case SQL_OP_GT: case SQL_OP_GE:
        return P_CMP;
    case SQL_OP_BITOR: return P_BITOR;
    case SQL_OP_BITAND: return P_BITAND;
    case SQL_OP_SHL: case SQL_OP_SHR: return P_SHIFT;
    case SQL_OP_ADD: case SQL_OP_SUB: return P_ADD;
    case SQL_OP_MUL: case SQL_OP_DIV: case SQL_OP_IDIV: case SQL_OP_MOD: return P_MUL;
    case SQL_OP_BITXOR: return P_BITXOR;
    default: return P_LOWEST;
    }
}

static const char *op_text(sql_op_t op)
{
    switch (op) {
    case SQL_OP_OR: return "or";
    case SQL_OP_XOR: return "xor";
    case SQL_OP_AND: return "and";
    case SQL_OP_EQ: return "=";
    case SQL_OP_NSEQ: return "<=>";
    case SQL_OP_NE: return "<>";
    case SQL_OP_LT: return "<";
    case SQL_OP_LE: return "<=";
    case SQL_OP_GT: return ">";
    case SQL_OP_GE: return ">=";
    case SQL_OP_BITOR: return "|";
    case SQL_OP_BITAND: return "&";
    case SQL_OP_SHL: return "<<";
    case SQL_OP_SHR: return ">>";
    case SQL_OP_ADD: return "+";
    case SQL_OP_SUB: return "-";
    case SQL_OP_MUL: return "*";
    case SQL_OP_DIV: return "/";
    case SQL_OP_IDIV: return "DIV";
    case SQL_OP_MOD: return "MOD";
    case SQL_OP_BITXOR: return "^";
    default: return NULL;
    }
}

static int expr_prec(const sql_expr_t *e)
{
    switch (e->kind) {
    case SQL_E_BINARY: return op_prec(e->op);
    case SQL_E_UNARY: return P_NEG; /* NOT is printed as "!x" (bool_norm leaves it only where MariaDB does) */
    case SQL_E_IS: case SQL_E_LIKE: case SQL_E_REGEXP: case SQL_E_IN: return P_CMP;
    case SQL_E_BETWEEN: return P_BETWEEN;
    default: return P_HIGHEST;
    }
}

static void print_at(buf_t *b, const sql_expr_t *e, int parent);

static void print_raw(buf_t *b, const sql_expr_t *e)
{
    buf_printf(b, "(%.*s)", (int)e->src_len, e->src ? e->src : "");
}

static void print_lit(buf_t *b, const sql_expr_t *e)
{
    if (e->lit.type == VAL_NULL) {
        buf_append_str(b, "NULL");
    } else if (e->lit.type == VAL_STRING && e->src && e->src_len && (e->src[0] == '\'' || e->src[0] == '"')) {
        buf_append_byte(b, '\'');
        for (size_t i = 0; i < e->lit.s.len; i++) {
            char ch = e->lit.s.ptr[i];
            if (ch == '\'' || ch == '\\')
                buf_append_byte(b, '\\');
            buf_append_byte(b, (uint8_t)ch);
        }
        buf_append_byte(b, '\'');
    } else if (e->src && e->src_len == 4 && strncasecmp(e->src, "true", 4) == 0) {
        buf_append_str(b, "1");
    } else if (e->src && e->src_len == 5 && strncasecmp(e->src, "false", 5) == 0) {
        buf_append_str(b, "0");
    } else {
        buf_append(b, e->src, e->src_len);
    }
}

static void print_func(buf_t *b, const sql_expr_t *e)
{
    static const char *const canon[][2] = {{"UPPER", "ucase"}, {"LOWER", "lcase"}, {"LENGTH", "octet_length"},
                                           {"NOW", "current_timestamp"}, {"CURRENT_DATE", "curdate"},
                                           {"SUBSTRING", "substr"}, {"CHARACTER_LENGTH", "char_length"}};
    const char *nm = NULL;
    for (size_t k = 0; k < ARRAY_LEN(canon); k++)
        if (strcmp(e->func.name, canon[k][0]) == 0)
            nm = canon[k][1];
    if (nm)
        buf_append_str(b, nm);
    else
        for (const char *c = e->func.name; *c; c++)
            buf_append_byte(b, (uint8_t)tolower((unsigned char)*c));
    buf_append_byte(b, '(');
    for (uint32_t i = 0; i < e->nargs; i++) {
        if (i)
            buf_append_byte(b, ',');
        print_at(b, e->args[i], P_LOWEST);
    }
    buf_append_byte(b, ')');
}

/* The connection's collation while check_expr_text_conn prints (0: utf8mb4's default); the identifier quote
 * while check_expr_requote prints (0: a backtick). */
static _Thread_local uint16_t tl_conn_coll;
static _Thread_local char tl_quote;

/* cast(x as type) as MariaDB prints it: a character type names its character set (the connection's when none is
 * written) */
static void print_cast(buf_t *b, const sql_expr_t *e)
{
    const sql_cast_t *c = &e->cast;
    buf_append_str(b, "cast(");
    print_at(b, e->args[0], P_LOWEST);
    buf_append_str(b, " as ");
    switch (c->type) {
    case SQL_CAST_SIGNED: buf_append_str(b, "signed"); break;
    case SQL_CAST_UNSIGNED: buf_append_str(b, "unsigned"); break;
    case SQL_CAST_CHAR: case SQL_CAST_BINARY:
        buf_append_str(b, "char");
        if (c->len >= 0)
            buf_printf(b, "(%d)", c->len);
        buf_printf(b, " charset %s", c->type == SQL_CAST_BINARY ? "binary"
                                     : value_coll_charset(c->coll >= 0 ? (uint16_t)c->coll
                                                          : tl_conn_coll ? tl_conn_coll : COLL_DEFAULT));
        break;
    case SQL_CAST_DECIMAL:
        buf_printf(b, "decimal(%d,%d)", c->len >= 0 ? c->len : 10, c->scale >= 0 ? c->scale : 0);
        break;
    case SQL_CAST_DOUBLE: buf_append_str(b, "double"); break;
    case SQL_CAST_FLOAT: buf_append_str(b, "float"); break;
    case SQL_CAST_DATE: buf_append_str(b, "date"); break;
    case SQL_CAST_DATETIME: case SQL_CAST_TIME:
        buf_append_str(b, c->type == SQL_CAST_TIME ? "time" : "datetime");
        if (c->scale > 0)
            buf_printf(b, "(%d)", c->scale);
        break;
    }
    buf_append_byte(b, ')');
}

static bool printable(const sql_expr_t *e)
{
    switch (e->kind) {
    case SQL_E_LITERAL: case SQL_E_COLUMN: case SQL_E_IS: case SQL_E_LIKE: case SQL_E_REGEXP: case SQL_E_BETWEEN:
    case SQL_E_CASE: case SQL_E_CAST: case SQL_E_COLLATE: case SQL_E_CONVERT_USING: case SQL_E_USERVAR:
        break;
    case SQL_E_INTERVAL:
        if (!e->interval_unit)
            return false;
        break;
    case SQL_E_BINARY:
        if (!op_text(e->op))
            return false;
        break;
    case SQL_E_UNARY:
        if (e->op != SQL_OP_NEG && e->op != SQL_OP_BITNOT && e->op != SQL_OP_NOT)
            return false;
        break;
    case SQL_E_IN:
        if (e->sub)
            return false;
        break;
    case SQL_E_FUNC:
        if (!e->func.name || e->func.star || e->func.distinct || e->over || e->agg_order)
            return false;
        break;
    default:
        return false;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (e->args[i] && !printable(e->args[i]))
            return false;
    return !e->else_expr || printable(e->else_expr);
}

static void print_at(buf_t *b, const sql_expr_t *e, int parent)
{
    int pr = expr_prec(e);
    bool paren = pr < parent;
    if (paren)
        buf_append_byte(b, '(');
    switch (e->kind) {
    case SQL_E_LITERAL:
        print_lit(b, e);
        break;
    case SQL_E_COLUMN:
        buf_printf(b, "%c%s%c", tl_quote ? tl_quote : '`', e->col.name, tl_quote ? tl_quote : '`');
        break;
    case SQL_E_BINARY:
        print_at(b, e->args[0], pr);
        buf_printf(b, " %s ", op_text(e->op));
        print_at(b, e->args[1], pr + 1);
        break;
    case SQL_E_UNARY:
        if (e->op == SQL_OP_NOT) {
            buf_append_byte(b, '!');
            print_at(b, e->args[0], P_HIGHEST);
            break;
        }
        buf_append_byte(b, e->op == SQL_OP_NEG ? '-' : '~');
        print_at(b, e->args[0], P_NEG);
        break;
    case SQL_E_IS: {
        static const char *const w[] = {"null", "true", "false", "unknown"};
        print_at(b, e->args[0], P_CMP);
        buf_printf(b, " is %s%s", e->negated ? "not " : "", w[e->is_what]);
        break;
    }
    case SQL_E_LIKE:
        print_at(b, e->args[0], P_CMP);
        buf_append_str(b, e->negated ? "  not like " : " like "); /* MariaDB prints two spaces there */
        print_at(b, e->args[1], P_CMP + 1);
        if (e->nargs > 2) {
            buf_append_str(b, " escape ");
            print_at(b, e->args[2], P_CMP + 1);
        }
        break;
    case SQL_E_REGEXP:
        print_at(b, e->args[0], P_CMP);
        buf_append_str(b, e->negated ? " not regexp " : " regexp ");
        print_at(b, e->args[1], P_CMP + 1);
        break;
    case SQL_E_IN:
        print_at(b, e->args[0], P_CMP);
        buf_append_str(b, e->negated ? " not in (" : " in (");
        for (uint32_t i = 1; i < e->nargs; i++) {
            if (i > 1)
                buf_append_byte(b, ',');
            print_at(b, e->args[i], P_LOWEST);
        }
        buf_append_byte(b, ')');
        break;
    case SQL_E_BETWEEN:
        print_at(b, e->args[0], P_BETWEEN);
        buf_append_str(b, e->negated ? " not between " : " between ");
        print_at(b, e->args[1], P_BETWEEN + 1);
        buf_append_str(b, " and ");
        print_at(b, e->args[2], P_BETWEEN + 1);
        break;
    case SQL_E_CASE:
        buf_append_str(b, "case ");
        if (e->args[0]) {
            print_at(b, e->args[0], P_LOWEST);
            buf_append_byte(b, ' ');
        }
        for (uint32_t i = 1; i + 1 < e->nargs; i += 2) {
            buf_append_str(b, "when ");
            print_at(b, e->args[i], P_LOWEST);
            buf_append_str(b, " then ");
            print_at(b, e->args[i + 1], P_LOWEST);
            buf_append_byte(b, ' ');
        }
        if (e->else_expr) {
            buf_append_str(b, "else ");
            print_at(b, e->else_expr, P_LOWEST);
            buf_append_byte(b, ' ');
        }
        buf_append_str(b, "end");
        break;
    case SQL_E_FUNC:
        print_func(b, e);
        break;
    case SQL_E_INTERVAL:
        buf_append_str(b, "interval ");
        print_at(b, e->args[0], P_HIGHEST);
        buf_append_byte(b, ' ');
        for (const char *c = e->interval_unit; *c; c++)
            buf_append_byte(b, (uint8_t)tolower((unsigned char)*c));
        break;
    case SQL_E_COLLATE:
        print_at(b, e->args[0], P_HIGHEST);
        buf_printf(b, " collate %s", value_coll_name((uint16_t)e->cast.coll));
        break;
    case SQL_E_CONVERT_USING:
        buf_append_str(b, "convert(");
        print_at(b, e->args[0], P_LOWEST);
        buf_printf(b, " using %s)", value_coll_charset((uint16_t)e->cast.coll));
        break;
    case SQL_E_CAST:
        print_cast(b, e);
        break;
    case SQL_E_USERVAR:
        buf_printf(b, "@`%s`", e->var.name);
        break;
    default:
        print_raw(b, e);
        break;
    }
    if (paren)
        buf_append_byte(b, ')');
}

const char *check_expr_requote(arena_t *a, const char *text, char q)
{
    if (q == '`')
        return text;
    sql_expr_t *e;
    diag_t scratch;
    diag_init(&scratch, 2);
    int rc = sql_parse_expr(a, text, strlen(text), &e, &scratch);
    diag_free(&scratch);
    if (rc)
        return text;
    tl_quote = q;
    const char *s = check_expr_text(a, e);
    tl_quote = 0;
    return s;
}

const char *check_expr_text_conn(arena_t *a, const sql_expr_t *e, uint16_t conn_coll)
{
    tl_conn_coll = conn_coll;
    const char *s = check_expr_text(a, e);
    tl_conn_coll = 0;
    return s;
}

/* ---- MariaDB's rewrites of conditions before it prints them: a column as an operand of AND / OR is `c` <> 0,
 * NOT is pushed down (NOT c: `c` = 0; NOT a > 1: `a` <= 1; NOT (x AND y): NOT x OR NOT y; NOT x IS NULL: x is not
 * null; NOT LIKE / IN / BETWEEN / REGEXP), and left as !(x) over anything else.  The trees are copies. */

static sql_expr_t *norm_copy(arena_t *a, const sql_expr_t *e)
{
    sql_expr_t *c = arena_alloc(a, sizeof *c);
    *c = *e;
    if (e->nargs) {
        c->args = arena_alloc(a, sizeof(sql_expr_t *) * e->nargs);
        memcpy(c->args, e->args, sizeof(sql_expr_t *) * e->nargs);
    }
    return c;
}

static sql_expr_t *norm_binary(arena_t *a, sql_op_t op, sql_expr_t *l, sql_expr_t *r)
{
    sql_expr_t *e = arena_calloc(a, sizeof *e);
    e->kind = SQL_E_BINARY;
    e->op = op;
    e->nargs = 2;
    e->args = arena_alloc(a, sizeof(sql_expr_t *) * 2);
    e->args[0] = l;
    e->args[1] = r;
    e->slot = -1;
    return e;
}

static sql_expr_t *norm_zero(arena_t *a)
{
    sql_expr_t *e = arena_calloc(a, sizeof *e);
    e->kind = SQL_E_LITERAL;
    e->lit = value_int(0);
    e->src = "0";
    e->src_len = 1;
    e->slot = -1;
    return e;
}

static sql_expr_t *bool_norm(arena_t *a, const sql_expr_t *e);

static sql_expr_t *bool_cond(arena_t *a, const sql_expr_t *e)
{
    sql_expr_t *n = bool_norm(a, e);
    return n->kind == SQL_E_COLUMN ? norm_binary(a, SQL_OP_NE, n, norm_zero(a)) : n;
}

static sql_expr_t *bool_negate(arena_t *a, const sql_expr_t *e)
{
    static const struct { sql_op_t op, neg; } cmp[] = {
        {SQL_OP_EQ, SQL_OP_NE}, {SQL_OP_NE, SQL_OP_EQ}, {SQL_OP_LT, SQL_OP_GE},
        {SQL_OP_LE, SQL_OP_GT}, {SQL_OP_GT, SQL_OP_LE}, {SQL_OP_GE, SQL_OP_LT}};
    switch (e->kind) {
    case SQL_E_COLUMN:
        return norm_binary(a, SQL_OP_EQ, bool_norm(a, e), norm_zero(a));
    case SQL_E_BINARY:
        if (e->op == SQL_OP_AND || e->op == SQL_OP_OR)
            return norm_binary(a, e->op == SQL_OP_AND ? SQL_OP_OR : SQL_OP_AND, bool_negate(a, e->args[0]),
                               bool_negate(a, e->args[1]));
        for (size_t i = 0; i < ARRAY_LEN(cmp); i++)
            if (cmp[i].op == e->op) {
                sql_expr_t *n = bool_norm(a, e);
                n->op = cmp[i].neg;
                return n;
            }
        break;
    case SQL_E_IS: case SQL_E_LIKE: case SQL_E_REGEXP: case SQL_E_IN: case SQL_E_BETWEEN:
        if (e->kind != SQL_E_IN || !e->sub) {
            sql_expr_t *n = bool_norm(a, e);
            n->negated = !n->negated;
            return n;
        }
        break;
    case SQL_E_UNARY:
        if (e->op == SQL_OP_NOT)
            return bool_cond(a, e->args[0]);
        break;
    default:
        break;
    }
    sql_expr_t *n = norm_binary(a, SQL_OP_NOT, bool_norm(a, e), NULL);
    n->kind = SQL_E_UNARY;
    n->nargs = 1;
    return n;
}

static sql_expr_t *norm_func(arena_t *a, const char *name, sql_fn_t fn, sql_expr_t *arg)
{
    sql_expr_t *e = norm_binary(a, SQL_OP_ADD, arg, NULL);
    e->kind = SQL_E_FUNC;
    e->nargs = 1;
    e->func.name = name;
    e->func.fn = fn;
    return e;
}

static sql_expr_t *bool_norm(arena_t *a, const sql_expr_t *e)
{
    if (!e)
        return NULL;
    if (e->kind == SQL_E_UNARY && e->op == SQL_OP_NOT)
        return bool_negate(a, e->args[0]);
    /* functions MariaDB's parser turns into other items: DATE(x) and TIMESTAMP(x) are casts, DATEDIFF a
     * difference of TO_DAYS */
    if (e->kind == SQL_E_FUNC && !e->over && (e->func.fn == SQL_FN_DATE || e->func.fn == SQL_FN_TIMESTAMP) &&
        e->nargs == 1) {
        sql_expr_t *c = norm_func(a, "", SQL_FN_UNKNOWN, bool_norm(a, e->args[0]));
        c->kind = SQL_E_CAST;
        c->cast = (sql_cast_t){.type = e->func.fn == SQL_FN_DATE ? SQL_CAST_DATE : SQL_CAST_DATETIME,
                               .len = -1, .scale = -1, .coll = -1};
        return c;
    }
    if (e->kind == SQL_E_FUNC && !e->over && e->func.fn == SQL_FN_DATEDIFF && e->nargs == 2)
        return norm_binary(a, SQL_OP_SUB, norm_func(a, "TO_DAYS", SQL_FN_TO_DAYS, bool_norm(a, e->args[0])),
                           norm_func(a, "TO_DAYS", SQL_FN_TO_DAYS, bool_norm(a, e->args[1])));
    sql_expr_t *c = norm_copy(a, e);
    bool logic = e->kind == SQL_E_BINARY && (e->op == SQL_OP_AND || e->op == SQL_OP_OR);
    for (uint32_t i = 0; i < e->nargs; i++)
        if (e->args[i])
            c->args[i] = logic ? bool_cond(a, e->args[i]) : bool_norm(a, e->args[i]);
    c->else_expr = bool_norm(a, e->else_expr);
    return c;
}

const char *check_expr_text(arena_t *a, const sql_expr_t *e)
{
    buf_t b;
    buf_init(&b);
    if (printable(e))
        e = bool_norm(a, e);
    if (printable(e))
        print_at(&b, e, P_LOWEST);
    else
        buf_append(&b, e->src, e->src_len); /* as written: it parses again as it did */
    const char *s = arena_strndup(a, (const char *)b.data, b.len);
    buf_free(&b);
    return s;
}

/* ---------------------------------------------------------------- building definitions */

static void *grow(arena_t *a, void *old, uint32_t n, size_t elem)
{
    void *p = arena_calloc(a, elem * (n + 1));
    if (n)
        memcpy(p, old, elem * n);
    return p;
}

static int check_add(sql_exec_ctx_t *x, cat_table_t *t, const char *name, const sql_expr_t *e, bool column)
{
    for (uint32_t i = 0; i < t->nchecks; i++)
        if (strcasecmp(t->checks[i].name, name) == 0)
            return diag_error(x->diag, ER_DUP_CONSTRAINT_NAME, "CHECK", name);
    /* the columns it names must be the table's (1054 ... in 'CHECK') */
    const char *text = check_expr_text(x->arena, e);
    sql_expr_t *pe;
    int rc = sql_parse_expr(x->arena, text, strlen(text), &pe, x->diag);
    if (rc)
        return rc;
    if ((rc = check_bind(x, t, pe)) != 0) {
        diag_push_msg(x->diag, DIAG_ERROR, 4027, arena_printf(x->arena, "Got an error evaluating stored expression %s", text));
        return rc;
    }
    t->checks = grow(x->arena, t->checks, t->nchecks, sizeof(cat_check_t));
    t->checks[t->nchecks++] = (cat_check_t){.name = arena_strdup(x->arena, name), .expr = text, .column = column};
    return 0;
}

/* The next CONSTRAINT_<n> not taken. */
static const char *check_auto_name(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t *n)
{
    for (;;) {
        const char *nm = arena_printf(x->arena, "CONSTRAINT_%u", ++*n);
        bool taken = false;
        for (uint32_t i = 0; i < t->nchecks; i++)
            taken |= strcasecmp(t->checks[i].name, nm) == 0;
        if (!taken)
            return nm;
    }
}

/* InnoDB's refusal: its warning 150 saying why, the error 1005, then the server's warning 1215.  why is NULL for
 * a cause InnoDB does not explain. */
static int errno150(sql_exec_ctx_t *x, const cat_table_t *t, const cat_fk_t *f, bool with, const char *why)
{
    const char *full = arena_printf(x->arena, "`%s`.`%s`", t->db, t->name);
    if (why && f) {
        buf_t b;
        buf_init(&b);
        buf_printf(&b, "Create  table %s %sforeign key (", full, with ? "with " : "");
        for (uint32_t i = 0; i < f->ncols; i++)
            buf_printf(&b, "%s%s", i ? ", " : "", f->cols[i]);
        buf_printf(&b, ") constraint failed. %s", why);
        buf_append_byte(&b, 0);
        diag_push_msg(x->diag, DIAG_WARNING, 150, (const char *)b.data);
        buf_free(&b);
    }
    int rc = diag_error(x->diag, ER_CANT_CREATE_TABLE, full, 150, "Foreign key constraint is incorrectly formed");
    diag_push_msg(x->diag, DIAG_WARNING, 1215, arena_printf(x->arena, "Cannot add foreign key constraint for `%s`", t->name));
    return rc;
}

/* InnoDB's rule for a referencing column c and the referenced column pc. */
static bool types_match(const cat_column_t *c, const cat_column_t *pc)
{
    sqlt_t a = (sqlt_t)c->rc.type, b = (sqlt_t)pc->rc.type;
    bool sa = a == SQLT_CHAR || a == SQLT_VARCHAR, sb = b == SQLT_CHAR || b == SQLT_VARCHAR;
    bool ba = a == SQLT_BINARY || a == SQLT_VARBINARY, bb = b == SQLT_BINARY || b == SQLT_VARBINARY;
    if (sa || sb)
        return sa && sb && c->rc.coll == pc->rc.coll;
    if (ba || bb)
        return ba && bb;
    if (a != b)
        return false;
    if (sqlt_is_int(a))
        return c->rc.is_unsigned == pc->rc.is_unsigned;
    if (a == SQLT_DECIMAL)
        return c->rc.len == pc->rc.len && c->rc.scale == pc->rc.scale && c->rc.is_unsigned == pc->rc.is_unsigned;
    if (a >= SQLT_TINYTEXT && a <= SQLT_LONGBLOB)
        return false;
    return true;
}

/* The highest n of <table>_ibfk_<n> among t's keys. */
static uint32_t ibfk_max(const cat_table_t *t)
{
    uint32_t m = 0;
    size_t tl = strlen(t->name);
    for (uint32_t i = 0; i < t->nfks; i++) {
        const char *n = t->fks[i].name;
        if (strncmp(n, t->name, tl) == 0 && strncmp(n + tl, "_ibfk_", 6) == 0) {
            unsigned long v = strtoul(n + tl + 6, NULL, 10);
            if (v > m)
                m = (uint32_t)v;
        }
    }
    return m;
}

int fk_add(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_index_def_t *d)
{
    const char *cname = d->constraint && d->constraint[0] ? d->constraint : NULL;
    if (strcmp(t->db, EXEC_TEMP_DB) == 0) { /* InnoDB's temporary tables have no foreign keys */
        const char *udb = x->db ? x->db : "";
        const char *full = arena_printf(x->arena, "`%s`.`%s`", udb, t->name);
        diag_push_msg(x->diag, DIAG_WARNING, 150, arena_printf(x->arena, "Create  table %s with foreign key "
                      "constraint failed. Temporary tables can't have foreign key constraints.", full));
        int rc = diag_error(x->diag, ER_CANT_CREATE_TABLE, full, 150, "Foreign key constraint is incorrectly formed");
        diag_push_msg(x->diag, DIAG_WARNING, 1215, arena_printf(x->arena, "Cannot add foreign key constraint for `%s`", t->name));
        return rc;
    }
    for (uint32_t i = 0; i < d->ncols; i++)
        if (cat_table_col(t, d->cols[i].name) < 0)
            return diag_error(x->diag, ER_KEY_COLUMN_DOES_NOT_EXIST, d->cols[i].name);
    if (d->nref_cols != d->ncols)
        return diag_error(x->diag, ER_WRONG_FK_DEF, cname ? cname : "foreign key without name",
                          "Key reference and table reference don't match");
    cat_fk_t f = {0};
    f.ncols = d->ncols;
    f.cols = arena_calloc(x->arena, sizeof(char *) * f.ncols);
    f.ref_cols = arena_calloc(x->arena, sizeof(char *) * f.ncols);
    for (uint32_t i = 0; i < f.ncols; i++) {
        f.cols[i] = t->cols[cat_table_col(t, d->cols[i].name)].name;
        f.ref_cols[i] = d->ref_cols[i];
    }
    f.ref_db = d->ref_table.db ? d->ref_table.db : t->db;
    f.ref_table = d->ref_table.name;
    f.on_delete = d->on_delete == SQL_FK_SET_DEFAULT ? CAT_FK_RESTRICT : (uint8_t)d->on_delete;
    f.on_update = d->on_update == SQL_FK_SET_DEFAULT ? CAT_FK_RESTRICT : (uint8_t)d->on_update;
    if (f.on_delete == CAT_FK_SET_NULL || f.on_update == CAT_FK_SET_NULL)
        for (uint32_t i = 0; i < f.ncols; i++)
            if (!t->cols[cat_table_col(t, f.cols[i])].rc.nullable)
                return errno150(x, t, &f, true, arena_printf(x->arena, "You have defined a SET NULL condition but "
                                                             "column '%s' is defined as NOT NULL.", f.cols[i]));
    /* the parent: this table itself, or one in the catalog */
    bool self = strcmp(f.ref_db, t->db) == 0 && strcmp(f.ref_table, t->name) == 0;
    cat_table_t *p = self ? t : catalog_table_get(exec_cat, f.ref_db, f.ref_table);
    int rc = 0;
    if (p) {
        for (uint32_t i = 0; i < f.ncols && !rc; i++) {
            int pc = cat_table_col(p, f.ref_cols[i]);
            if (pc < 0)
                rc = errno150(x, t, &f, false, arena_printf(x->arena, "Column %s was not found.", f.ref_cols[i]));
            else if (!types_match(&t->cols[cat_table_col(t, f.cols[i])], &p->cols[pc]))
                rc = errno150(x, t, &f, true, arena_printf(x->arena, "Field type or character set for column '%s' "
                                                           "does not match referenced column '%s'.", f.cols[i],
                                                           p->cols[pc].name));
            else
                f.ref_cols[i] = arena_strdup(x->arena, p->cols[pc].name);
        }
        if (!rc && fk_index_on(p, f.ref_cols, f.ncols) < 0)
            rc = errno150(x, t, &f, true, "There is no index in the referenced table where the referenced columns "
                                          "appear as the first columns.");
        if (!self)
            catalog_table_release(p);
        if (rc)
            return rc;
    } else if (!x->fk_checks_off) {
        return errno150(x, t, &f, true, arena_printf(x->arena, "Referenced table `%s`.`%s` not found in the data "
                                                     "dictionary.", f.ref_db, f.ref_table));
    }
    f.name = cname ? cname : arena_printf(x->arena, "%s_ibfk_%u", t->name, ibfk_max(t) + 1);
    for (uint32_t i = 0; i < t->nfks; i++)
        if (strcasecmp(t->fks[i].name, f.name) == 0)
            return errno150(x, t, NULL, false, NULL);
    if (catalog_fk_name_taken(exec_cat, t->db, f.name, t->name)) {
        const char *full = arena_printf(x->arena, "`%s`.`%s`", t->db, t->name);
        buf_t b;
        buf_init(&b);
        buf_printf(&b, "CREATE or ALTER TABLE %s failed: duplicate name, ", full);
        fk_clause_print(&b, t, &f);
        buf_append_byte(&b, 0);
        diag_push_msg(x->diag, DIAG_WARNING, 121, (const char *)b.data);
        buf_free(&b);
        int rc2 = diag_error(x->diag, ER_CANT_CREATE_TABLE, full, 121, "Duplicate key on write or update");
        diag_push_msg(x->diag, DIAG_WARNING, ER_DUP_KEY, arena_printf(x->arena, "Can't write; duplicate key in table '%s'", t->name));
        return rc2;
    }
    /* the index InnoDB needs on the referencing columns */
    if (fk_index_on(t, f.cols, f.ncols) < 0) {
        sql_index_def_t k = {.kind = SQL_INDEX_KEY, .cols = d->cols, .ncols = d->ncols};
        k.name = d->name ? d->name : cname;
        if (k.name && cat_table_index(t, k.name) >= 0)
            k.name = NULL;
        if ((rc = add_index(x, t, cap, &k, NULL)) != 0)
            return rc;
    }
    t->fks = grow(x->arena, t->fks, t->nfks, sizeof(cat_fk_t));
    t->fks[t->nfks++] = f;
    return 0;
}

int ddl_constraints_create(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_column_def_t *cols,
                           uint32_t ncols, const sql_index_def_t *defs, uint32_t ndefs)
{
    int rc = 0;
    for (uint32_t i = 0; i < ncols && !rc; i++)
        if (cols[i].check)
            rc = check_add(x, t, cols[i].name, cols[i].check, true);
    uint32_t auto_n = 0;
    for (uint32_t i = 0; i < ndefs && !rc; i++)
        if (defs[i].kind == SQL_INDEX_CHECK)
            rc = check_add(x, t, defs[i].name ? defs[i].name : check_auto_name(x, t, &auto_n), defs[i].check, false);
    for (uint32_t i = 0; i < ncols && !rc; i++)
        if (cols[i].references)
            rc = fk_add(x, t, cap, cols[i].references);
    for (uint32_t i = 0; i < ndefs && !rc; i++)
        if (defs[i].kind == SQL_INDEX_FOREIGN)
            rc = fk_add(x, t, cap, &defs[i]);
    return rc;
}

int ddl_check_add(sql_exec_ctx_t *x, cat_table_t *t, const sql_index_def_t *d)
{
    uint32_t n = 0;
    return check_add(x, t, d->name ? d->name : check_auto_name(x, t, &n), d->check, false);
}

int ddl_column_constraints_add(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_column_def_t *cd)
{
    int rc = cd->check ? check_add(x, t, cd->name, cd->check, true) : 0;
    if (!rc && cd->references)
        rc = fk_add(x, t, cap, cd->references);
    return rc;
}

int ddl_constraint_drop(sql_exec_ctx_t *x, cat_table_t *t, const char *name, bool fk_only, bool if_exists)
{
    for (uint32_t i = 0; i < t->nfks; i++)
        if (strcasecmp(t->fks[i].name, name) == 0) {
            memmove(&t->fks[i], &t->fks[i + 1], sizeof(cat_fk_t) * (t->nfks - i - 1));
            t->nfks--;
            return 0;
        }
    for (uint32_t i = 0; i < t->nchecks && !fk_only; i++)
        if (strcasecmp(t->checks[i].name, name) == 0) {
            memmove(&t->checks[i], &t->checks[i + 1], sizeof(cat_check_t) * (t->nchecks - i - 1));
            t->nchecks--;
            return 0;
        }
    int rc = ddl_cant_drop(x, if_exists, fk_only ? "FOREIGN KEY" : "CONSTRAINT", name);
    return rc ? rc : 1;
}

/* ---------------------------------------------------------------- SHOW CREATE TABLE */

void ddl_show_column_check(buf_t *b, const cat_table_t *t, const cat_column_t *c)
{
    for (uint32_t i = 0; i < t->nchecks; i++)
        if (t->checks[i].column && strcasecmp(t->checks[i].name, c->name) == 0)
            buf_printf(b, " CHECK (%s)", t->checks[i].expr);
}

uint32_t ddl_show_constraint_count(const cat_table_t *t)
{
    uint32_t n = t->nfks;
    for (uint32_t i = 0; i < t->nchecks; i++)
        n += !t->checks[i].column;
    return n;
}

void ddl_show_constraints(buf_t *b, const cat_table_t *t)
{
    uint32_t n = ddl_show_constraint_count(t), k = 0;
    for (uint32_t i = 0; i < t->nfks; i++) {
        buf_append_str(b, "  ");
        fk_clause_print(b, t, &t->fks[i]);
        buf_append_str(b, ++k < n ? ",\n" : "\n");
    }
    for (uint32_t i = 0; i < t->nchecks; i++)
        if (!t->checks[i].column) {
            buf_printf(b, "  CONSTRAINT `%s` CHECK (%s)", t->checks[i].name, t->checks[i].expr);
            buf_append_str(b, ++k < n ? ",\n" : "\n");
        }
}

/* ---------------------------------------------------------------- ALTER TABLE and DROP / TRUNCATE guards */

/* Is index ix of t the one a foreign key of t, or of a child naming t, goes through (and no other index could)? */
static bool index_needed(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t ix)
{
    cat_table_t tmp = *t; /* t without that index */
    cat_index_t *rest = arena_alloc(x->arena, sizeof(cat_index_t) * (t->nidx + 1));
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->nidx; i++)
        if (i != ix)
            rest[n++] = t->idx[i];
    tmp.idx = rest;
    tmp.nidx = n;
    for (uint32_t i = 0; i < t->nfks; i++)
        if (fk_index_on(t, t->fks[i].cols, t->fks[i].ncols) >= 0 && fk_index_on(&tmp, t->fks[i].cols, t->fks[i].ncols) < 0)
            return true;
    cat_table_t **kids;
    uint32_t nk;
    catalog_fk_children(exec_cat, t->db, t->name, x->arena, &kids, &nk);
    bool needed = false;
    for (uint32_t k = 0; k < nk; k++) {
        for (uint32_t i = 0; i < kids[k]->nfks && !needed; i++) {
            const cat_fk_t *f = &kids[k]->fks[i];
            if (strcmp(f->ref_db, t->db) == 0 && strcmp(f->ref_table, t->name) == 0 && kids[k]->id != t->id &&
                fk_index_on(t, f->ref_cols, f->ncols) >= 0 && fk_index_on(&tmp, f->ref_cols, f->ncols) < 0)
                needed = true;
        }
        catalog_table_release(kids[k]);
    }
    return needed;
}

int ddl_alter_drop_index_check(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t ix)
{
    if (index_needed(x, t, ix))
        return diag_error(x->diag, ER_DROP_INDEX_FK, t->idx[ix].name);
    return 0;
}

/* 1: e reads column col and no other; 0: it reads another one (or none); -1 cannot tell */
static int expr_uses_only(const sql_expr_t *e, const char *col)
{
    if (!e)
        return 0;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || (e->kind == SQL_E_IN && e->sub))
        return -1;
    if (e->kind == SQL_E_COLUMN)
        return strcasecmp(e->col.name, col) == 0 ? 1 : -1;
    int r = 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        int a = expr_uses_only(e->args[i], col);
        if (a < 0)
            return -1;
        r |= a;
    }
    int a = expr_uses_only(e->else_expr, col);
    return a < 0 ? -1 : (r | a);
}

int ddl_alter_drop_column(sql_exec_ctx_t *x, cat_table_t *t, const char *col)
{
    for (uint32_t i = 0; i < t->nfks; i++)
        for (uint32_t k = 0; k < t->fks[i].ncols; k++)
            if (strcasecmp(t->fks[i].cols[k], col) == 0) {
                int ix = fk_index_on(t, t->fks[i].cols, t->fks[i].ncols);
                return diag_error(x->diag, ER_DROP_INDEX_FK, ix >= 0 ? t->idx[ix].name : col);
            }
    cat_table_t **kids;
    uint32_t nk;
    catalog_fk_children(exec_cat, t->db, t->name, x->arena, &kids, &nk);
    int rc = 0;
    for (uint32_t k = 0; k < nk; k++) {
        for (uint32_t i = 0; i < kids[k]->nfks && !rc; i++) {
            const cat_fk_t *f = &kids[k]->fks[i];
            if (strcmp(f->ref_db, t->db) != 0 || strcmp(f->ref_table, t->name) != 0)
                continue;
            for (uint32_t c = 0; c < f->ncols && !rc; c++)
                if (strcasecmp(f->ref_cols[c], col) == 0)
                    rc = diag_error(x->diag, ER_FK_COLUMN_CANNOT_DROP_CHILD, col, f->name,
                                    arena_printf(x->arena, "`%s`.`%s`", kids[k]->db, kids[k]->name));
        }
        catalog_table_release(kids[k]);
    }
    if (rc)
        return rc;
    /* a CHECK that reads no other column goes with it (MariaDB); one that reads others then fails to bind */
    for (uint32_t i = 0; i < t->nchecks;) {
        sql_expr_t *e;
        diag_t scratch;
        diag_init(&scratch, 2);
        int pr = sql_parse_expr(x->arena, t->checks[i].expr, strlen(t->checks[i].expr), &e, &scratch);
        diag_free(&scratch);
        int uses = pr ? -1 : expr_uses_only(e, col);
        if ((t->checks[i].column && strcasecmp(t->checks[i].name, col) == 0) || uses == 1) {
            memmove(&t->checks[i], &t->checks[i + 1], sizeof(cat_check_t) * (t->nchecks - i - 1));
            t->nchecks--;
        } else {
            i++;
        }
    }
    return 0;
}

/* The column references of a parsed expression, renamed all at once (a swap stays a swap). */
static void rename_refs(sql_expr_t *e, const char *const *from, const char *const *to, uint32_t n)
{
    if (!e)
        return;
    if (e->kind == SQL_E_COLUMN)
        for (uint32_t i = 0; i < n; i++)
            if (strcasecmp(e->col.name, from[i]) == 0) {
                e->col.name = to[i];
                break;
            }
    for (uint32_t i = 0; i < e->nargs; i++)
        rename_refs(e->args[i], from, to, n);
    rename_refs(e->else_expr, from, to, n);
}

void ddl_alter_rename_refs(sql_exec_ctx_t *x, const cat_table_t *old, cat_table_t *t, const int *src,
                           const char *const *from, const char *const *to, uint32_t n)
{
    /* generation expressions the ALTER kept (a new one is written with the new names), as MariaDB does; an
     * expression the parser cannot read keeps the old names and then fails to bind: 1054 */
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (!t->cols[c].gen_expr || src[c] < 0 || !old->cols[src[c]].gen_expr ||
            strcmp(t->cols[c].gen_expr, old->cols[src[c]].gen_expr) != 0)
            continue;
        sql_expr_t *e;
        diag_t scratch;
        diag_init(&scratch, 2);
        int rc = sql_parse_expr(x->arena, t->cols[c].gen_expr, strlen(t->cols[c].gen_expr), &e, &scratch);
        diag_free(&scratch);
        if (rc)
            continue;
        rename_refs(e, from, to, n);
        t->cols[c].gen_expr = check_expr_text(x->arena, e);
    }
    /* the keys the table had: their columns, and the referenced ones of a key on the table itself */
    for (uint32_t i = 0; i < t->nfks; i++) {
        bool had = false;
        for (uint32_t k = 0; k < old->nfks && !had; k++)
            had = strcmp(old->fks[k].name, t->fks[i].name) == 0;
        if (!had)
            continue;
        for (uint32_t k = 0; k < t->fks[i].ncols; k++)
            for (uint32_t r = 0; r < n; r++)
                if (strcasecmp(t->fks[i].cols[k], from[r]) == 0) {
                    t->fks[i].cols[k] = to[r];
                    break;
                }
        if (strcmp(t->fks[i].ref_db, t->db) == 0 && strcmp(t->fks[i].ref_table, t->name) == 0)
            cat_fk_rename_ref_cols(&t->fks[i], from, to, n);
    }
    /* the CHECKs the table had (a new one is written with the new names): their expressions, and a column's own
     * CHECK carries its column's name */
    for (uint32_t i = 0; i < t->nchecks; i++) {
        cat_check_t *ck = &t->checks[i];
        bool had = false;
        for (uint32_t k = 0; k < old->nchecks && !had; k++)
            had = old->checks[k].column == ck->column && strcmp(old->checks[k].name, ck->name) == 0 &&
                  strcmp(old->checks[k].expr, ck->expr) == 0;
        if (!had)
            continue;
        for (uint32_t r = 0; r < n && ck->column; r++)
            if (strcasecmp(ck->name, from[r]) == 0) {
                ck->name = to[r];
                break;
            }
        sql_expr_t *e;
        diag_t scratch;
        diag_init(&scratch, 2);
        int rc = sql_parse_expr(x->arena, ck->expr, strlen(ck->expr), &e, &scratch);
        diag_free(&scratch);
        if (rc)
            continue;
        rename_refs(e, from, to, n);
        ck->expr = check_expr_text(x->arena, e);
    }
}

void ddl_column_check_drop(cat_table_t *t, const char *col)
{
    for (uint32_t i = 0; i < t->nchecks;)
        if (t->checks[i].column && strcasecmp(t->checks[i].name, col) == 0) {
            memmove(&t->checks[i], &t->checks[i + 1], sizeof(cat_check_t) * (t->nchecks - i - 1));
            t->nchecks--;
        } else {
            i++;
        }
}

int ddl_alter_change_column(sql_exec_ctx_t *x, cat_table_t *t, const cat_column_t *old, const cat_column_t *nc)
{
    /* a column changes between VIRTUAL and anything else only by dropping and adding it (MariaDB's 1907) */
    if ((old->gen_expr && !old->gen_stored) != (nc->gen_expr && !nc->gen_stored))
        return diag_error(x->diag, ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN);
    for (uint32_t i = 0; i < t->nfks; i++)
        for (uint32_t k = 0; k < t->fks[i].ncols; k++)
            if (strcasecmp(t->fks[i].cols[k], old->name) == 0 && (!types_match(old, nc) || old->rc.len != nc->rc.len))
                return diag_error(x->diag, ER_FK_COLUMN_CANNOT_CHANGE, old->name, t->fks[i].name);
    /* a column other tables' keys reference: its type stays (1833); a new name is carried into their keys when
     * the new definition is published (catalog_table_replace_renaming) */
    cat_table_t **kids;
    uint32_t nk;
    catalog_fk_children(exec_cat, t->db, t->name, x->arena, &kids, &nk);
    int rc = 0;
    for (uint32_t k = 0; k < nk; k++) {
        for (uint32_t i = 0; i < kids[k]->nfks && !rc && kids[k]->id != t->id; i++) {
            const cat_fk_t *f = &kids[k]->fks[i];
            if (strcmp(f->ref_db, t->db) != 0 || strcmp(f->ref_table, t->name) != 0)
                continue;
            for (uint32_t c = 0; c < f->ncols && !rc; c++) {
                if (strcasecmp(f->ref_cols[c], old->name) != 0)
                    continue;
                if (!types_match(nc, old) || old->rc.len != nc->rc.len)
                    rc = diag_error(x->diag, ER_FK_COLUMN_CANNOT_CHANGE_CHILD, old->name, f->name,
                                    arena_printf(x->arena, "%s.%s", kids[k]->db, kids[k]->name));
            }
        }
        catalog_table_release(kids[k]);
    }
    return rc;
}

int ddl_alter_recheck(sql_exec_ctx_t *x, const cat_table_t *t)
{
    for (uint32_t i = 0; i < t->nchecks; i++) {
        sql_expr_t *e;
        int rc = sql_parse_expr(x->arena, t->checks[i].expr, strlen(t->checks[i].expr), &e, x->diag);
        if (rc == 0)
            rc = check_bind(x, t, e);
        if (rc)
            return rc;
    }
    return 0;
}

bool ddl_fk_drop_guard_quiet(sql_exec_ctx_t *x, const cat_table_t *t)
{
    if (x->fk_checks_off)
        return false;
    cat_table_t **kids;
    uint32_t nk;
    catalog_fk_children(exec_cat, t->db, t->name, x->arena, &kids, &nk);
    bool refs = false;
    for (uint32_t k = 0; k < nk; k++) {
        refs |= kids[k]->id != t->id;
        catalog_table_release(kids[k]);
    }
    return refs;
}

int ddl_fk_drop_guard(sql_exec_ctx_t *x, const cat_table_t *t, bool truncate)
{
    if (x->fk_checks_off)
        return 0;
    cat_table_t **kids;
    uint32_t nk;
    catalog_fk_children(exec_cat, t->db, t->name, x->arena, &kids, &nk);
    int rc = 0;
    for (uint32_t k = 0; k < nk && !truncate; k++)
        if (!rc && kids[k]->id != t->id)
            rc = diag_push_msg(x->diag, DIAG_ERROR, ER_ROW_IS_REFERENCED_2,
                               "Cannot delete or update a parent row: a foreign key constraint fails");
    if (truncate) {
        /* InnoDB names the first key by its full name ("db/name"), the referenced table with its database */
        const cat_table_t *bt = NULL;
        const cat_fk_t *best = NULL;
        for (uint32_t k = 0; k < nk; k++)
            for (uint32_t i = 0; i < kids[k]->nfks && kids[k]->id != t->id; i++) {
                const cat_fk_t *f = &kids[k]->fks[i];
                if (strcmp(f->ref_db, t->db) != 0 || strcmp(f->ref_table, t->name) != 0)
                    continue;
                if (!best || strcmp(kids[k]->db, bt->db) < 0 ||
                    (strcmp(kids[k]->db, bt->db) == 0 && strcmp(f->name, best->name) < 0)) {
                    best = f;
                    bt = kids[k];
                }
            }
        if (best) {
            cat_table_t other = {.db = "", .name = bt->name};
            buf_t b;
            buf_init(&b);
            buf_printf(&b, "`%s`.`%s`, ", bt->db, bt->name);
            fk_clause_print(&b, &other, best);
            buf_append_byte(&b, 0);
            rc = diag_error(x->diag, ER_TRUNCATE_ILLEGAL_FK, (const char *)b.data);
            buf_free(&b);
        }
    }
    for (uint32_t k = 0; k < nk; k++)
        catalog_table_release(kids[k]);
    return rc;
}
