/*
 * The function table (parser/functions.def): each row at its id's index, with the evaluator, type rule and
 * collation rule it names; and the result-column naming and typing of select items (what MariaDB puts in
 * column-definition packets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/expr/expr_int.h"
#include "sql/expr/typeinf.h"

/* The function table: each row at its id's index (designated initializers), so a row's place in the file
 * cannot change what it does. */
#define COLL_NONE {SQL_FN_COLL_NONE, NULL, 0, 0, 0}
#define COLL_SAME {SQL_FN_COLL_SAME, NULL, 0, 1, 1}
#define COLL_SYSCONST {SQL_FN_COLL_SYSCONST, NULL, 0, 0, 0}
#define COLL_RESULT(op, first, step, max) {SQL_FN_COLL_RESULT, op, first, step, max}
#define COLL_STRICT(op, first, step, max) {SQL_FN_COLL_STRICT, op, first, step, max}
#define COLL_STRINGS(op, first, step, max) {SQL_FN_COLL_STRINGS, op, first, step, max}
#define COLL_CMP(op, first, step, max) {SQL_FN_COLL_CMP, op, first, step, max}
const sql_fn_def_t sql_fn_defs[SQL_FN__COUNT] = {
#define FN(id, name, mn, mx, eval, type, coll, flags) [SQL_FN_##id] = {name, mn, mx, eval, type, coll, flags},
#include "sql/parser/functions.def"
#undef FN
};
#undef COLL_NONE
#undef COLL_SAME
#undef COLL_SYSCONST
#undef COLL_RESULT
#undef COLL_STRICT
#undef COLL_STRINGS
#undef COLL_CMP

int sql_fn_unrouted(sql_eval_ctx_t *ctx, const sql_expr_t *e)
{
    char msg[160];
    snprintf(msg, sizeof msg, "Function %s is not implemented by the evaluator its row names",
             sql_fn_name(e->func.fn));
    return diag_push_msg(ctx->diag, DIAG_ERROR, ER_UNKNOWN_ERROR, msg);
}


/* ---------------------------------------------------------------- names */

const char *sql_item_name(arena_t *a, const sql_select_item_t *it)
{
    if (it->alias)
        return it->alias;
    const sql_expr_t *e = it->expr;
    if (e->kind == SQL_E_LITERAL) {
        /* _utf8mb4 0x41 (an introducer on a hex literal) keeps its spelling; _utf8mb4'x' is named x */
        bool hex_intro = e->src && e->src_len && e->src[0] == '_' && !memchr(e->src, '\'', e->src_len) &&
                         !memchr(e->src, '"', e->src_len);
        if (e->lit.type == VAL_STRING && e->lit.coll != COLL_BINARY && !hex_intro) {
            /* MariaDB's set_name(): leading spaces and control characters are not part of a name */
            size_t i = 0;
            while (i < e->lit.s.len && (unsigned char)e->lit.s.ptr[i] <= ' ')
                i++;
            return arena_strndup(a, e->lit.s.ptr + i, e->lit.s.len - i);
        }
        if (e->lit.type == VAL_NULL)
            return "NULL";
        if (e->src && (e->src_len == 4 || e->src_len == 5) &&
            (strncasecmp(e->src, "TRUE", e->src_len) == 0 || strncasecmp(e->src, "FALSE", e->src_len) == 0))
            return e->src_len == 4 ? "TRUE" : "FALSE";
        if (e->lit_text && !hex_intro)
            return arena_strndup(a, e->lit_text, e->lit_text_len);
    }
    size_t n = e->src_len;
    while (n && (e->src[n - 1] == ' ' || e->src[n - 1] == '\t' || e->src[n - 1] == '\n' || e->src[n - 1] == '\r'))
        n--;
    if (!memmem(e->src, n, "/*", 2) && !memmem(e->src, n, "*/", 2))
        return arena_strndup(a, e->src, n);
    /* an executable comment inside the expression: MariaDB's name drops its markers ("1 /x*!50000 + 1 *x/" is
     * "1  + 1") */
    char *r = arena_alloc(a, n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (i + 2 < n && e->src[i] == '/' && e->src[i + 1] == '*' && (e->src[i + 2] == '!' || e->src[i + 2] == 'M')) {
            i += e->src[i + 2] == 'M' ? 4 : 3;
            while (i < n && e->src[i] >= '0' && e->src[i] <= '9')
                i++;
        } else if (i + 1 < n && e->src[i] == '*' && e->src[i + 1] == '/') {
            i += 2;
        } else {
            r[o++] = e->src[i++];
        }
    }
    while (o && (r[o - 1] == ' ' || r[o - 1] == '\t' || r[o - 1] == '\n' || r[o - 1] == '\r'))
        o--;
    r[o] = 0;
    return r;
}

/* ---------------------------------------------------------------- metadata */

/* Static display length estimate, as MariaDB's max_length (characters). */
static uint32_t est_len(const sql_expr_t *e)
{
    switch (e->kind) {
    case SQL_E_LITERAL:
        switch (e->lit.type) {
        case VAL_NULL: return 0;
        case VAL_STRING: return (uint32_t)e->lit.s.len;
        case VAL_INT: case VAL_UINT: {
            char b[32];
            return (uint32_t)(e->lit.type == VAL_INT ? snprintf(b, sizeof b, "%lld", (long long)e->lit.i)
                                                     : snprintf(b, sizeof b, "%llu", (unsigned long long)e->lit.u));
        }
        case VAL_DECIMAL: {
            uint32_t digits = 0;
            for (size_t i = 0; i < e->lit.s.len; i++)
                if (e->lit.s.ptr[i] >= '0' && e->lit.s.ptr[i] <= '9')
                    digits++;
            return digits + (e->lit.dec ? 1 : 0) + 1;
        }
        default: return e->src_len;
        }
    case SQL_E_BINARY:
        switch (e->op) {
        case SQL_OP_ADD: case SQL_OP_SUB: {
            uint32_t l = est_len(e->args[0]), r = est_len(e->args[1]); /* not inside MAX(): evaluated once */
            return MAX(l, r) + 2;
        }
        case SQL_OP_MUL: return est_len(e->args[0]) + est_len(e->args[1]);
        case SQL_OP_IDIV: return est_len(e->args[0]);
        case SQL_OP_OR: case SQL_OP_AND: case SQL_OP_XOR: case SQL_OP_EQ: case SQL_OP_NSEQ: case SQL_OP_NE:
        case SQL_OP_LT: case SQL_OP_LE: case SQL_OP_GT: case SQL_OP_GE: return 1;
        default: return 21;
        }
    case SQL_E_UNARY:
        return e->op == SQL_OP_NOT ? 1 : est_len(e->args[0]) + 1;
    case SQL_E_IS: case SQL_E_LIKE: case SQL_E_IN: case SQL_E_BETWEEN: case SQL_E_REGEXP: case SQL_E_EXISTS:
        return 1;
    case SQL_E_FUNC:
        switch (e->func.fn) {
        case SQL_FN_LENGTH: case SQL_FN_CHAR_LENGTH: case SQL_FN_OCTET_LENGTH: case SQL_FN_CHARACTER_LENGTH:
        case SQL_FN_INSTR: case SQL_FN_LOCATE: case SQL_FN_CONNECTION_ID:
            return 10;
        case SQL_FN_CONCAT: {
            uint32_t n = 0;
            for (uint32_t i = 0; i < e->nargs; i++)
                n += est_len(e->args[i]);
            return n;
        }
        case SQL_FN_NOW: case SQL_FN_SYSDATE: case SQL_FN_CURRENT_TIMESTAMP: case SQL_FN_LOCALTIME:
        case SQL_FN_LOCALTIMESTAMP: case SQL_FN_UTC_TIMESTAMP:
            return 19;
        case SQL_FN_CURDATE: case SQL_FN_CURRENT_DATE: return 10;
        case SQL_FN_DATABASE: case SQL_FN_SCHEMA: return 64;
        case SQL_FN_USER: case SQL_FN_CURRENT_USER: case SQL_FN_SESSION_USER: case SQL_FN_SYSTEM_USER: return 141;
        case SQL_FN_VERSION: return 60;
        default: {
            uint32_t n = 0;
            for (uint32_t i = 0; i < e->nargs; i++)
            {
                uint32_t l = est_len(e->args[i]);
                n = MAX(n, l);
            }
            return n ? n : 21;
        }
        }
    case SQL_E_CAST:
        if (e->cast.len >= 0)
            return (uint32_t)e->cast.len;
        return est_len(e->args[0]);
    case SQL_E_COLUMN:
        return e->bound_len ? e->bound_len : 21;
    default:
        return 21;
    }
}

void sql_item_meta(const sql_expr_t *e, const value_t *v, sql_col_meta_t *m)
{
    /* a type known before evaluation is MariaDB's answer (columns are unknown here: no table is bound) */
    uint16_t conn = v && v->type == VAL_STRING && v->coll != COLL_BINARY ? v->coll : COLL_DEFAULT;
    sql_typeinf_env_t env = {.conn_coll = conn};
    sql_rtype_t rt;
    if (sql_type_infer(&env, e, &rt)) {
        if (rt.type == SQL_TYPE_VAR_STRING && rt.coll != COLL_BINARY && v && v->type == VAL_STRING &&
            v->coll != COLL_BINARY && v->coll != rt.coll) {
            /* the value's collation settles what the rules could not (CONVERT, introducers) */
            rt.coll = v->coll;
        }
        sql_rtype_meta(&rt, m);
        return;
    }
    memset(m, 0, sizeof *m);
    value_t lit = {0};
    if (!v && e->kind == SQL_E_LITERAL) {
        lit = e->lit;
        v = &lit;
    }
    bool maybe_null = !(e->kind == SQL_E_LITERAL && e->lit.type != VAL_NULL);
    if (e->kind == SQL_E_BINARY || e->kind == SQL_E_UNARY || e->kind == SQL_E_CAST) {
        maybe_null = false;
        for (uint32_t i = 0; i < e->nargs; i++)
            if (!(e->args[i]->kind == SQL_E_LITERAL && e->args[i]->lit.type != VAL_NULL))
                maybe_null = true;
        if (e->kind == SQL_E_BINARY && (e->op == SQL_OP_DIV || e->op == SQL_OP_MOD || e->op == SQL_OP_IDIV))
            maybe_null = true;
        if (e->kind == SQL_E_CAST && (e->cast.type == SQL_CAST_CHAR || e->cast.type >= SQL_CAST_DATE))
            maybe_null = true;
    }
    if (e->kind == SQL_E_IS || e->kind == SQL_E_EXISTS)
        maybe_null = false; /* x IS [NOT] NULL / TRUE ..., EXISTS: never NULL */
    if (e->kind == SQL_E_FUNC) {
        switch (e->func.fn) {
        case SQL_FN_NOW: case SQL_FN_CURDATE: case SQL_FN_CURRENT_DATE: case SQL_FN_SYSDATE:
        case SQL_FN_CURRENT_TIMESTAMP: case SQL_FN_RAND: case SQL_FN_CONNECTION_ID: case SQL_FN_USER:
        case SQL_FN_CURRENT_USER: case SQL_FN_VERSION: case SQL_FN_LAST_INSERT_ID: case SQL_FN_FOUND_ROWS:
        case SQL_FN_ROW_COUNT: case SQL_FN_UNIX_TIMESTAMP:
            maybe_null = false;
            break;
        default:
            break;
        }
    }
    if (!maybe_null)
        m->flags |= SQL_FLAG_NOT_NULL;
    m->coll = COLL_BINARY;
    value_type_t t = v ? v->type : VAL_STRING;
    switch (t) {
    case VAL_NULL:
        m->type = SQL_TYPE_NULL;
        m->flags = SQL_FLAG_BINARY | SQL_FLAG_NUM;
        if (e->kind == SQL_E_USERVAR || e->kind == SQL_E_SYSVAR) {
            m->type = SQL_TYPE_LONG_BLOB;
            m->length = 16777216;
            m->decimals = 39;
            m->flags = SQL_FLAG_BINARY;
        }
        return;
    case VAL_INT:
    case VAL_UINT: {
        uint32_t len = e->kind == SQL_E_SYSVAR || e->kind == SQL_E_USERVAR ? 21 : est_len(e);
        if (e->kind == SQL_E_LITERAL && e->lit_text && e->lit.type == VAL_INT && (e->lit_text[0] == 't' || e->lit_text[0] == 'T' || e->lit_text[0] == 'f' || e->lit_text[0] == 'F'))
            len = 1;
        if (e->kind == SQL_E_SYSVAR && t == VAL_INT)
            len = 21;
        m->type = len < 11 && !(e->kind == SQL_E_SYSVAR) ? SQL_TYPE_LONG : SQL_TYPE_LONGLONG;
        if (t == VAL_UINT && len >= 10)
            m->type = SQL_TYPE_LONGLONG;
        m->length = len;
        m->flags |= SQL_FLAG_BINARY | SQL_FLAG_NUM | (t == VAL_UINT ? SQL_FLAG_UNSIGNED : 0);
        return;
    }
    case VAL_DOUBLE:
        m->type = SQL_TYPE_DOUBLE;
        m->length = e->kind == SQL_E_LITERAL ? e->src_len : 23;
        m->decimals = v->dec < VAL_DEC_NOT_FIXED ? v->dec : VAL_DEC_NOT_FIXED;
        m->flags |= SQL_FLAG_BINARY | SQL_FLAG_NUM;
        return;
    case VAL_DECIMAL: {
        m->type = SQL_TYPE_NEWDECIMAL;
        uint32_t digits = 0;
        for (size_t i = 0; i < v->s.len; i++)
            if (v->s.ptr[i] >= '0' && v->s.ptr[i] <= '9')
                digits++;
        m->decimals = v->dec;
        m->length = (e->kind == SQL_E_LITERAL ? est_len(e) : digits + 1 + (v->dec ? 1 : 0));
        if (e->kind == SQL_E_CAST && e->cast.len >= 0)
            m->length = (uint32_t)e->cast.len + 2;
        m->flags |= SQL_FLAG_BINARY | SQL_FLAG_NUM;
        return;
    }
    case VAL_STRING: {
        m->type = SQL_TYPE_VAR_STRING;
        uint16_t coll = v ? v->coll : COLL_DEFAULT;
        m->coll = coll;
        uint32_t chars = est_len(e);
        if (e->kind == SQL_E_SYSVAR || e->kind == SQL_E_USERVAR || e->kind == SQL_E_FUNC)
            chars = MAX(chars, v ? (uint32_t)v->s.len : 0);
        if (e->kind == SQL_E_SYSVAR)
            chars = MAX(chars, 26);
        m->length = chars * value_coll_mbmaxlen(coll);
        m->decimals = e->kind == SQL_E_CAST || coll == COLL_BINARY ? 0 : 39;
        if (coll == COLL_BINARY)
            m->flags |= SQL_FLAG_BINARY | (e->kind == SQL_E_LITERAL ? SQL_FLAG_UNSIGNED : 0);
        if (e->kind == SQL_E_USERVAR) {
            m->type = SQL_TYPE_LONG_BLOB;
            m->length = 16777216;
            m->flags &= (uint16_t)~SQL_FLAG_NOT_NULL;
        }
        return;
    }
    case VAL_DATE:
        m->type = SQL_TYPE_DATE;
        m->length = 10;
        m->flags |= SQL_FLAG_BINARY;
        return;
    case VAL_TIME:
        m->type = SQL_TYPE_TIME;
        m->length = 10 + (v->dec ? 1u + v->dec : 0);
        m->decimals = v->dec;
        m->flags |= SQL_FLAG_BINARY;
        return;
    case VAL_DATETIME:
    case VAL_TIMESTAMP:
        m->type = t == VAL_DATETIME ? SQL_TYPE_DATETIME : SQL_TYPE_TIMESTAMP;
        m->length = 19 + (v->dec ? 1u + v->dec : 0);
        m->decimals = v->dec;
        m->flags |= SQL_FLAG_BINARY;
        return;
    }
}
