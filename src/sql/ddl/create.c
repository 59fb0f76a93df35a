/*
 * CREATE TABLE (and ... LIKE, ... SELECT): column definitions to catalog columns (types, defaults kept as
 * values or as expression text MariaDB prints back, AUTO_INCREMENT, collations), indexes, the table's trees.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "access/binrow.h"
#include "sql/value/collation.h"
#include "commit/commit.h"
#include "sql/exec/exec_int.h"
#include "access/view.h"
#include "access/stats.h"
#include "util/util.h"
#include "sql/exec/query_int.h"
#include "sql/ddl/constraint.h"
#include "sql/exec/gencol.h"

/* ---------------------------------------------------------------- CREATE TABLE */

const char *ddl_engine_name(sql_exec_ctx_t *x, const char *name, const char *table, int *rc)
{
    *rc = 0;
    if (!name || strcasecmp(name, "innodb") == 0)
        return "InnoDB";
    static const char *const mapped[] = {"ndb", "ndbcluster", "myisam", "aria", "memory", "heap", "csv", "archive"};
    for (size_t i = 0; i < ARRAY_LEN(mapped); i++)
        if (strcasecmp(name, mapped[i]) == 0) {
            diag_note(x->diag, ER_WARN_USING_OTHER_HANDLER, "InnoDB", table);
            return "InnoDB";
        }
    *rc = diag_error(x->diag, ER_UNKNOWN_STORAGE_ENGINE, name);
    return NULL;
}

/* ---- DEFAULT (expr) (CAT_DEF_EXPR): kept as text, evaluated for each row, as MariaDB does;
 * folding it once at CREATE TABLE gave every row the same uuid() / the creation day's curdate(). */

static int arith_prec(sql_op_t op)
{
    switch (op) {
    case SQL_OP_ADD: case SQL_OP_SUB: return 1;
    case SQL_OP_MUL: case SQL_OP_DIV: case SQL_OP_IDIV: case SQL_OP_MOD: return 2;
    default: return 0;
    }
}

/* 1: calls a function or computes (+ - * / DIV MOD) and reads nothing but constants (no column, variable,
 * parameter or subquery); 0: a literal (folded at CREATE as before); -1: something else (left to the folding
 * path, which reports it) */
static int default_expr_kind(const sql_expr_t *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case SQL_E_COLUMN: case SQL_E_STAR: case SQL_E_SYSVAR: case SQL_E_USERVAR: case SQL_E_ASSIGN: case SQL_E_PARAM:
    case SQL_E_SUBQUERY: case SQL_E_EXISTS: case SQL_E_DEFAULT: case SQL_E_QUANTIFIED:
        return -1;
    default:
        break;
    }
    if (e->kind == SQL_E_IN && e->sub)
        return -1;
    int k = (e->kind == SQL_E_FUNC && !e->func.distinct && !e->func.star && !e->agg_order) ||
            (e->kind == SQL_E_BINARY && arith_prec(e->op)) ? 1 : 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        int a = default_expr_kind(e->args[i]);
        if (a < 0)
            return -1;
        k |= a;
    }
    if (e->kind == SQL_E_CASE && e->else_expr) {
        int a = default_expr_kind(e->else_expr);
        if (a < 0)
            return -1;
        k |= a;
    }
    return k;
}

/* MariaDB's printed form of a DEFAULT expression (Item::print): functions in lower case under their canonical
 * names, arithmetic with spaces and only the parentheses precedence needs, the whole in parentheses unless it is a
 * function call or a literal.  What it does not know (comparisons, CASE, CAST ...) is kept as written, in
 * parentheses. */
static bool default_expr_printable(const sql_expr_t *e)
{
    switch (e->kind) {
    case SQL_E_LITERAL:
        return e->lit.type != VAL_NULL;
    case SQL_E_UNARY:
        return e->op == SQL_OP_NEG && default_expr_printable(e->args[0]);
    case SQL_E_BINARY:
        return arith_prec(e->op) && default_expr_printable(e->args[0]) && default_expr_printable(e->args[1]);
    case SQL_E_FUNC:
        for (uint32_t i = 0; i < e->nargs; i++)
            if (!default_expr_printable(e->args[i]))
                return false;
        return e->func.name != NULL;
    default:
        return false;
    }
}

static void default_expr_print(buf_t *b, const sql_expr_t *e, int parent, bool right)
{
    switch (e->kind) {
    case SQL_E_LITERAL:
        if (e->lit.type == VAL_STRING) {
            buf_append_byte(b, '\'');
            for (size_t i = 0; i < e->lit.s.len; i++) {
                char ch = e->lit.s.ptr[i];
                if (ch == '\'' || ch == '\\')
                    buf_append_byte(b, '\\');
                buf_append_byte(b, (uint8_t)ch);
            }
            buf_append_byte(b, '\'');
        } else {
            buf_append(b, e->src, e->src_len);
        }
        return;
    case SQL_E_UNARY:
        buf_append_byte(b, '-');
        default_expr_print(b, e->args[0], 3, false);
        return;
    case SQL_E_BINARY: {
        static const char *const names[] = {[SQL_OP_ADD] = "+", [SQL_OP_SUB] = "-", [SQL_OP_MUL] = "*",
                                            [SQL_OP_DIV] = "/", [SQL_OP_IDIV] = "DIV", [SQL_OP_MOD] = "MOD"};
        int pr = arith_prec(e->op);
        bool paren = pr < parent || (pr == parent && right);
        if (paren)
            buf_append_byte(b, '(');
        default_expr_print(b, e->args[0], pr, false);
        buf_printf(b, " %s ", names[e->op]);
        default_expr_print(b, e->args[1], pr, true);
        if (paren)
            buf_append_byte(b, ')');
        return;
    }
    case SQL_E_FUNC: {
        static const char *const canon[][2] = {{"NOW", "current_timestamp"}, {"LOCALTIME", "current_timestamp"},
                                               {"LOCALTIMESTAMP", "current_timestamp"}, {"CURRENT_DATE", "curdate"},
                                               {"CURRENT_TIME", "curtime"}, {"UPPER", "ucase"}, {"LOWER", "lcase"}};
        const char *nm = NULL;
        for (size_t k = 0; k < ARRAY_LEN(canon); k++)
            if (strcmp(e->func.name, canon[k][0]) == 0)
                nm = canon[k][1];
        if (nm)
            buf_printf(b, "%s", nm);
        else
            for (const char *c = e->func.name; *c; c++)
                buf_append_byte(b, (uint8_t)tolower((unsigned char)*c));
        buf_append_byte(b, '(');
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (i)
                buf_append_byte(b, ',');
            default_expr_print(b, e->args[i], 0, false);
        }
        buf_append_byte(b, ')');
        return;
    }
    default:
        buf_printf(b, "(%.*s)", (int)e->src_len, e->src ? e->src : "");
        return;
    }
}

static void default_expr_text(buf_t *b, const sql_expr_t *e)
{
    if (!default_expr_printable(e)) {
        buf_printf(b, "(%.*s)", (int)e->src_len, e->src ? e->src : "");
        return;
    }
    bool bare = e->kind == SQL_E_FUNC || e->kind == SQL_E_LITERAL;
    if (!bare)
        buf_append_byte(b, '(');
    default_expr_print(b, e, 0, false);
    if (!bare)
        buf_append_byte(b, ')');
}

/* The default of column c as a value (then stored as any given value is), for the row being written */
int col_default_value(sql_exec_ctx_t *x, const cat_column_t *c, value_t *out, arena_t *a, bool strict)
{
    if (c->def != CAT_DEF_EXPR)
        return table_value_default(c, out, a, x->diag, strict);
    sql_expr_t *e;
    int rc = sql_parse_expr(a, c->default_text, strlen(c->default_text), &e, x->diag);
    if (rc)
        return rc;
    sql_exec_ctx_t x2 = *x;
    x2.arena = a;
    row_eval_t xe;
    row_eval_init(&xe, &x2);
    return row_eval(&xe, e, NULL, out);
}

int default_text(sql_exec_ctx_t *x, const sql_expr_t *e, cat_column_t *c)
{
    if (default_expr_kind(e) == 1) {
        /* NOW() and its synonyms, alone: DEFAULT CURRENT_TIMESTAMP (MariaDB shows current_timestamp()) */
        if (e->kind == SQL_E_FUNC && (sql_fn_flags(e->func.fn) & SQL_FNF_NOW) &&
            (sqlt_t)c->rc.type != SQLT_DATE && sqlt_is_temporal((sqlt_t)c->rc.type) &&
            (sqlt_t)c->rc.type != SQLT_TIME &&
            (e->nargs == 0 || (e->args[0]->kind == SQL_E_LITERAL && value_is_numeric(&e->args[0]->lit)))) {
            int64_t fsp = e->nargs ? value_to_int(&e->args[0]->lit, NULL) : c->rc.scale;
            c->def = CAT_DEF_NOW;
            c->default_text = arena_printf(x->arena, "%d", (int)(fsp < 0 ? 0 : fsp > 6 ? 6 : fsp));
            return 0;
        }
        buf_t b;
        buf_init(&b);
        default_expr_text(&b, e);
        c->def = CAT_DEF_EXPR;
        c->default_text = arena_strndup(x->arena, (const char *)b.data, b.len);
        buf_free(&b);
        return 0;
    }
    row_eval_t xe;
    row_eval_init(&xe, x);
    value_t v;
    int rc = row_eval(&xe, e, NULL, &v);
    if (rc)
        return rc;
    if (v.type == VAL_NULL) {
        if (!c->rc.nullable)
            return diag_error(x->diag, ER_INVALID_DEFAULT, c->name);
        c->def = CAT_DEF_NULL;
        return 0;
    }
    size_t n;
    const char *s = value_to_text(x->arena, &v, &n);
    c->def = CAT_DEF_VALUE;
    c->default_text = arena_strndup(x->arena, s, n);
    /* validate against the column's type */
    cat_table_t tmp = {.db = "", .name = "", .cols = c, .ncols = 1};
    value_t out;
    diag_t scratch;
    diag_init(&scratch, 4);
    rc = table_value_store(&tmp, 0, &v, &out, x->arena, &scratch, true, 1);
    diag_free(&scratch);
    if (rc) {
        /* MariaDB shows the conversion's warning ("... at row 0") before the 1067 */
        table_value_store(&tmp, 0, &v, &out, x->arena, x->diag, false, 0);
        return diag_error(x->diag, ER_INVALID_DEFAULT, c->name);
    }
    if (!sqlt_is_string((sqlt_t)c->rc.type) && c->rc.type != SQLT_ENUM && c->rc.type != SQLT_SET) {
        const char *t2 = value_to_text(x->arena, &(value_t){0}, &n);
        (void)t2;
        value_t shown = table_value_out(c, &out, x->arena);
        s = value_to_text(x->arena, &shown, &n);
        c->default_text = arena_strndup(x->arena, s, n);
    }
    return 0;
}

int add_index(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_index_def_t *d, const char *forced_name)
{
    if (d->kind == SQL_INDEX_FOREIGN || d->kind == SQL_INDEX_CHECK)
        return 0; /* constraints: sql/ddl/constraint.c, once the columns and keys are there */
    if (d->kind == SQL_INDEX_FULLTEXT || d->kind == SQL_INDEX_SPATIAL)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, d->kind == SQL_INDEX_FULLTEXT ? "FULLTEXT indexes" : "SPATIAL indexes");
    if (t->nidx == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        cat_index_t *n = arena_calloc(x->arena, sizeof(cat_index_t) * *cap);
        if (t->nidx)
            memcpy(n, t->idx, sizeof(cat_index_t) * t->nidx);
        t->idx = n;
    }
    cat_index_t *ix = &t->idx[t->nidx];
    memset(ix, 0, sizeof *ix);
    ix->kind = d->kind == SQL_INDEX_PRIMARY ? CAT_IDX_PRIMARY : d->kind == SQL_INDEX_UNIQUE ? CAT_IDX_UNIQUE : CAT_IDX_KEY;
    ix->comment = d->comment ? d->comment : "";
    ix->ncols = d->ncols;
    ix->cols = arena_calloc(x->arena, sizeof(cat_index_col_t) * (d->ncols + 1));
    uint32_t keybytes = 0;
    for (uint32_t k = 0; k < d->ncols; k++) {
        int c = cat_table_col(t, d->cols[k].name);
        if (c < 0)
            return diag_error(x->diag, ER_KEY_COLUMN_DOES_NOT_EXIST, d->cols[k].name);
        cat_column_t *col = &t->cols[c];
        sqlt_t ty = (sqlt_t)col->rc.type;
        ix->cols[k].col = (uint32_t)c;
        ix->cols[k].desc = d->cols[k].desc;
        if (d->cols[k].prefix_len > 0) {
            if (!sqlt_is_string(ty))
                return diag_error(x->diag, ER_WRONG_SUB_KEY);
            ix->cols[k].prefix = (uint32_t)d->cols[k].prefix_len;
        } else if (ty >= SQLT_TINYTEXT && ty <= SQLT_LONGBLOB) {
            return diag_error(x->diag, ER_BLOB_KEY_WITHOUT_LENGTH, col->name);
        }
        uint32_t chars = ix->cols[k].prefix ? ix->cols[k].prefix : col->rc.len;
        keybytes += sqlt_is_string(ty) ? chars * (col->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(col->rc.coll)) : 8;
        if (ix->kind == CAT_IDX_PRIMARY) {
            col->rc.nullable = false;
            if (col->def == CAT_DEF_NULL)
                col->def = CAT_DEF_NONE;
        }
    }
    if (keybytes > ENGINE_MAX_KEY)
        return diag_error(x->diag, ER_TOO_LONG_KEY, ENGINE_MAX_KEY);
    if (ix->kind == CAT_IDX_PRIMARY) {
        ix->name = "PRIMARY";
    } else if (forced_name || d->name) {
        ix->name = forced_name ? forced_name : d->name;
    } else {
        /* MySQL names it after its first column, adding _2, _3 ... when taken */
        const char *base = t->cols[ix->cols[0].col].name;
        const char *name = base;
        for (int i = 2; cat_table_index(t, name) >= 0; i++)
            name = arena_printf(x->arena, "%s_%d", base, i);
        ix->name = name;
    }
    if (ix->kind == CAT_IDX_PRIMARY && strcasecmp(ix->name, "PRIMARY") != 0)
        ix->name = "PRIMARY";
    else if (ix->kind != CAT_IDX_PRIMARY && strcasecmp(ix->name, "PRIMARY") == 0)
        return diag_error(x->diag, ER_WRONG_NAME_FOR_INDEX, ix->name);
    if (cat_table_index(t, ix->name) >= 0)
        return ix->kind == CAT_IDX_PRIMARY ? diag_error(x->diag, ER_MULTIPLE_PRI_KEY)
                                           : diag_error(x->diag, ER_DUP_KEYNAME, ix->name);
    t->nidx++;
    return 0;
}

/* A column definition from its SQL (the default is filled in separately: col_default). */
/* 1091 in MariaDB 10.11's words ("Can't DROP INDEX `x`; check that it exists"); errors.def still has the older
 * MySQL text, so the message is formatted here (TODO(lead): update ER_CANT_DROP_FIELD_OR_KEY's text). */
int ddl_cant_drop(sql_exec_ctx_t *x, bool note, const char *what, const char *name)
{
    const char *msg = arena_printf(x->arena, "Can't DROP %s `%s`; check that it exists", what, name);
    return diag_push_msg(x->diag, note ? DIAG_NOTE : DIAG_ERROR, ER_CANT_DROP_FIELD_OR_KEY, msg);
}

int col_from_def(sql_exec_ctx_t *x, const cat_table_t *t, const sql_column_def_t *cd, cat_column_t *c)
{
    const sql_type_t *ty = &cd->type;
    memset(c, 0, sizeof *c);
    c->name = cd->name;
    if (cd->generated) { /* kept as MariaDB prints it; checked with the whole table (gencol_check_table) */
        c->gen_expr = check_expr_text_conn(x->arena, cd->generated, x->conn_coll);
        c->gen_stored = cd->generated_stored;
    }
    c->rc.type = (uint8_t)(ty->kind + 1); /* sql_type_kind_t and sqlt_t list the types in the same order */
    c->rc.is_unsigned = ty->is_unsigned || ty->is_serial;
    c->zerofill = ty->zerofill;
    c->invisible = cd->invisible;
    c->is_json = ty->is_json;
    if (ty->zerofill)
        c->rc.is_unsigned = true;
    sqlt_t st = (sqlt_t)c->rc.type;
    if (sqlt_is_int(st))
        c->display_width = ty->len > 0 ? (uint32_t)ty->len : 0;
    else
        c->rc.len = ty->len > 0 ? (uint32_t)ty->len : 0;
    if (st == SQLT_DECIMAL && !c->rc.len)
        c->rc.len = 10;
    if ((st == SQLT_CHAR || st == SQLT_BINARY) && !c->rc.len && ty->len < 0)
        c->rc.len = 1;
    c->rc.scale = ty->scale > 0 ? (uint8_t)ty->scale : 0;
    if (sqlt_is_string(st) || st == SQLT_ENUM || st == SQLT_SET) {
        c->rc.coll = ty->coll >= 0 ? (uint16_t)ty->coll : t->coll;
        c->explicit_coll = ty->coll >= 0;
    } else {
        c->rc.coll = COLL_BINARY;
    }
    if (st == SQLT_VARCHAR || st == SQLT_VARBINARY) {
        /* a row holds at most 65535 bytes, of which MariaDB leaves a VARCHAR 65532 (length bytes and NULL bit):
         * longer is 1074 in strict mode, else a TEXT / BLOB with note 1246 */
        uint32_t mb = st == SQLT_VARBINARY ? 1 : value_coll_mbmaxlen(c->rc.coll);
        uint64_t bytes = (uint64_t)c->rc.len * (mb ? mb : 1);
        if (bytes > 65532) {
            if (x->strict)
                return diag_error(x->diag, ER_TOO_BIG_FIELDLENGTH, c->name, (unsigned long)(65532 / (mb ? mb : 1)));
            bool bin = st == SQLT_VARBINARY;
            diag_note(x->diag, ER_AUTO_CONVERT, c->name, bin ? "VARBINARY" : "VARCHAR", bin ? "BLOB" : "TEXT");
            st = bytes <= 65535      ? (bin ? SQLT_BLOB : SQLT_TEXT)
                 : bytes <= 16777215 ? (bin ? SQLT_MEDIUMBLOB : SQLT_MEDIUMTEXT)
                                     : (bin ? SQLT_LONGBLOB : SQLT_LONGTEXT); /* the smallest that holds it */
            c->rc.type = (uint8_t)st;
            c->rc.len = 0;
        }
    }
    c->rc.nullable = cd->nullable != SQL_NULL_NOT_NULL && !ty->is_serial;
    c->auto_increment = cd->auto_increment || ty->is_serial;
    c->on_update_now = cd->on_update_now;
    c->comment = cd->comment ? cd->comment : "";
    c->nelems = ty->nelems;
    c->elems = (const char **)ty->elems;
    if (c->auto_increment && !sqlt_is_int(st) && st != SQLT_FLOAT && st != SQLT_DOUBLE)
        return diag_push_msg(x->diag, DIAG_ERROR, 1063, arena_printf(x->arena, "Incorrect column specifier for column '%s'", c->name));
    if (cd->primary_key)
        c->rc.nullable = false;
    return 0;
}

int col_default(sql_exec_ctx_t *x, const sql_column_def_t *cd, cat_column_t *c)
{
    if (c->gen_expr) { /* a generated column has no default (MariaDB's grammar takes none) */
        c->def = CAT_DEF_NONE;
        return 0;
    }
    /* MariaDB: ON UPDATE CURRENT_TIMESTAMP(n) is at the column's precision; an n below it is an error */
    if (cd->on_update_now && cd->on_update_fsp >= 0 && cd->on_update_fsp < c->rc.scale)
        return diag_push_msg(x->diag, DIAG_ERROR, 1294,
                             arena_printf(x->arena, "Invalid ON UPDATE clause for '%s' column", c->name));
    if (cd->default_now) {
        c->def = CAT_DEF_NOW;
        /* the precision of NOW(n) (n, else the column's; over 6 is 6, as MariaDB takes it in a DEFAULT) rides in
         * default_text as one digit */
        int fsp = cd->default_now_fsp < 0 ? c->rc.scale : cd->default_now_fsp > 6 ? 6 : cd->default_now_fsp;
        c->default_text = arena_printf(x->arena, "%d", fsp);
    } else if (cd->default_expr)
        return default_text(x, cd->default_expr, c);
    else if (c->rc.nullable)
        c->def = CAT_DEF_NULL;
    return 0;
}

static int build_table_def(sql_exec_ctx_t *x, const sql_create_table_t *ct, const char *db, cat_table_t **out)
{
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = db;
    t->name = ct->table.name;
    int rc = 0;
    const char *eng = ddl_engine_name(x, ct->opts.engine, ct->table.name, &rc);
    if (rc)
        return rc;
    t->engine = eng;
    t->coll = ct->opts.coll >= 0 ? (uint16_t)ct->opts.coll : catalog_db_coll(exec_cat, db);
    t->comment = ct->opts.comment ? ct->opts.comment : "";
    t->auto_inc_start = (ct->opts.set & SQL_TOPT_AUTO_INCREMENT) && ct->opts.auto_increment ? ct->opts.auto_increment : 1;
    if (ct->opts.tablespace) {
        uint32_t sid;
        if (engine_tablespace_lookup(exec_engine, ct->opts.tablespace, &sid) != 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "Tablespace '%s' doesn't exist", ct->opts.tablespace);
            return diag_push_msg(x->diag, DIAG_ERROR, ER_TABLESPACE_MISSING, msg);
        }
        t->space_id = sid;
        t->tablespace = ct->opts.tablespace;
    }
    t->ncols = ct->ncols;
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (ct->ncols + 1));
    for (uint32_t i = 0; i < ct->ncols; i++)
        if ((rc = col_from_def(x, t, &ct->cols[i], &t->cols[i])) != 0)
            return rc;
    /* defaults once nullability is final (PRIMARY KEY makes columns NOT NULL) */
    for (uint32_t i = 0; i < ct->ncols; i++) {
        const sql_column_def_t *cd = &ct->cols[i];
        cat_column_t *c = &t->cols[i];
        for (uint32_t k = 0; k < ct->nindexes; k++)
            if (ct->indexes[k].kind == SQL_INDEX_PRIMARY)
                for (uint32_t j = 0; j < ct->indexes[k].ncols; j++)
                    if (strcasecmp(ct->indexes[k].cols[j].name, c->name) == 0)
                        c->rc.nullable = false;
        if ((rc = col_default(x, cd, c)) != 0)
            return rc;
    }
    uint32_t cap = 0;
    /* the primary key first: column-level, then table-level */
    for (uint32_t i = 0; i < ct->ncols; i++) {
        if (!ct->cols[i].primary_key)
            continue;
        sql_index_col_t ic = {.name = ct->cols[i].name, .prefix_len = -1};
        sql_index_def_t d = {.kind = SQL_INDEX_PRIMARY, .cols = &ic, .ncols = 1};
        if ((rc = add_index(x, t, &cap, &d, NULL)) != 0)
            return rc;
    }
    for (uint32_t k = 0; k < ct->nindexes; k++)
        if (ct->indexes[k].kind == SQL_INDEX_PRIMARY && (rc = add_index(x, t, &cap, &ct->indexes[k], NULL)) != 0)
            return rc;
    for (uint32_t i = 0; i < ct->ncols; i++) {
        if (!ct->cols[i].unique_key && !ct->cols[i].type.is_serial)
            continue;
        sql_index_col_t ic = {.name = ct->cols[i].name, .prefix_len = -1};
        sql_index_def_t d = {.kind = SQL_INDEX_UNIQUE, .cols = &ic, .ncols = 1};
        if ((rc = add_index(x, t, &cap, &d, NULL)) != 0)
            return rc;
    }
    for (uint32_t k = 0; k < ct->nindexes; k++)
        if (ct->indexes[k].kind != SQL_INDEX_PRIMARY && (rc = add_index(x, t, &cap, &ct->indexes[k], NULL)) != 0)
            return rc;
    if ((rc = ddl_constraints_create(x, t, &cap, ct->cols, ct->ncols, ct->indexes, ct->nindexes)) != 0)
        return rc;
    t->has_pk = t->nidx && t->idx[0].kind == CAT_IDX_PRIMARY;
    if ((rc = gencol_check_table(x, t)) != 0)
        return rc;
    *out = t;
    return 0;
}

/* CREATE TABLE ... SELECT of a plain column keeps that column's DEFAULT and COMMENT, as MariaDB does; an
 * AUTO_INCREMENT source column becomes NOT NULL DEFAULT 0. */
static void ctas_source_default(sql_exec_ctx_t *x, const res_col_t *r, cat_column_t *c)
{
    if (!r->org_name || !r->org_name[0] || !r->org_table || !r->org_table[0] || !r->schema || !r->schema[0])
        return;
    cat_table_t *src = catalog_table_get(exec_cat, r->schema, r->org_table);
    if (!src)
        return;
    int k = cat_table_col(src, r->org_name);
    if (k >= 0) {
        const cat_column_t *sc = &src->cols[k];
        /* the source column's type as declared (CHAR, ENUM, SET, BIT, TEXT sizes, display widths) */
        bool nullable = c->rc.nullable;
        c->rc = sc->rc;
        c->rc.nullable = nullable;
        c->display_width = sc->display_width;
        c->zerofill = sc->zerofill;
        c->explicit_coll = sc->explicit_coll;
        if (sc->nelems) {
            c->nelems = sc->nelems;
            c->elems = arena_alloc(x->arena, sizeof(char *) * sc->nelems);
            for (uint32_t e = 0; e < sc->nelems; e++)
                c->elems[e] = arena_strdup(x->arena, sc->elems[e]);
        }
        c->comment = arena_strdup(x->arena, sc->comment ? sc->comment : "");
        if (sc->auto_increment) {
            c->def = CAT_DEF_VALUE;
            c->default_text = "0";
        } else if (sc->def == CAT_DEF_VALUE || sc->def == CAT_DEF_NOW || sc->def == CAT_DEF_EXPR) {
            c->def = sc->def;
            c->default_text = sc->default_text ? arena_strdup(x->arena, sc->default_text) : NULL;
        }
    }
    catalog_table_release(src);
}

int exec_create_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_create_table_t *ct = st->create_table;
    const char *db = exec_db_name(x, ct->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    if (catalog_db_is_virtual(db))
        return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
    const char *user_db = db;
    char *real = NULL;
    cat_view_t vw; /* a view has the name already (MariaDB: 1050, or its note with IF NOT EXISTS) */
    if (!ct->temporary && catalog_view_get(exec_cat, x->arena, db, ct->table.name, &vw) > 0) {
        if (!ct->if_not_exists || ct->or_replace)
            return diag_error(x->diag, ER_TABLE_EXISTS_ERROR, ct->table.name);
        diag_note(x->diag, ER_TABLE_EXISTS_ERROR, ct->table.name);
        exec_pend_ok(x, 0, NULL);
        return 0;
    }
    if (ct->temporary) {
        const char *mdb = db, *mname = ct->table.name;
        if (exec_temp_map(x, &mdb, &mname)) {
            if (ct->if_not_exists) {
                diag_note(x->diag, ER_TABLE_EXISTS_ERROR, ct->table.name);
                exec_pend_ok(x, 0, NULL);
                return 0;
            }
            return diag_error(x->diag, ER_TABLE_EXISTS_ERROR, ct->table.name);
        }
        if (!catalog_db_exists(exec_cat, EXEC_TEMP_DB)) {
            diag_t d;
            diag_init(&d, 4);
            catalog_db_create(exec_cat, EXEC_TEMP_DB, COLL_DEFAULT, true, &d);
            diag_free(&d);
        }
        static _Atomic uint64_t tmp_seq;
        real = arena_printf(x->arena, "t%llu_%s", (unsigned long long)atomic_fetch_add(&tmp_seq, 1), ct->table.name);
        db = EXEC_TEMP_DB;
    }
    int rc = ddl_begin(x);
    if (rc)
        return rc;
    cat_table_t *def = NULL;
    if (ct->like.name) {
        const char *ldb = exec_db_name(x, ct->like.db);
        if (!ldb)
            return -ER_NO_DB_ERROR;
        const char *sdb = ldb, *sname = ct->like.name;
        exec_temp_map(x, &sdb, &sname);
        cat_table_t *src = catalog_table_get(exec_cat, sdb, sname);
        if (!src)
            return diag_error(x->diag, ER_NO_SUCH_TABLE, ldb, ct->like.name);
        def = cat_table_copy(x->arena, src);
        catalog_table_release(src);
        def->db = db;
        def->name = ct->table.name;
        def->tablespace = NULL;
        def->space_id = src->space_id;
        def->create_time = 0;
        def->auto_inc_start = 1;
        def->nfks = 0; /* LIKE copies CHECK constraints, not foreign keys (MariaDB) */
    } else {
        sql_create_table_t c2 = *ct;
        if (ct->as_select)
            c2.nindexes = 0; /* the keys name columns of the SELECT: added below */
        if ((rc = build_table_def(x, &c2, db, &def)) != 0)
            return rc;
    }
    if (ct->as_select) {
        /* the SELECT's result columns become the table's */
        res_col_t *cols;
        uint32_t *widths;
        int n;
        uint16_t rcoll = x->result_coll;
        x->result_coll = 0; /* the columns' own character sets, not the client's */
        rc = exec_select_describe_widths(x, ct->as_select, &cols, &widths, &n);
        x->result_coll = rcoll;
        if (rc != 0)
            return rc;
        /* CREATE TABLE t (columns) SELECT: the declared columns first, then the SELECT's other columns; a
         * SELECT column with a declared name fills the declared column */
        uint32_t nd = ct->ncols ? def->ncols : 0;
        cat_column_t *c = arena_calloc(x->arena, sizeof(cat_column_t) * ((uint32_t)n + nd + 1));
        if (nd)
            memcpy(c, def->cols, sizeof(cat_column_t) * nd);
        uint32_t nc = nd;
        for (int i = 0; i < n; i++) {
            bool declared = false;
            for (uint32_t k = 0; k < nd; k++)
                declared |= strcasecmp(c[k].name, cols[i].name) == 0;
            if (declared)
                continue;
            cat_column_t *cc = &c[nc];
            column_from_result(cc, &cols[i]);
            if (widths[i] && sqlt_is_int((sqlt_t)cc->rc.type))
                cc->display_width = widths[i];
            if (widths[i] && cc->rc.type == SQLT_DECIMAL && widths[i] >= cc->rc.scale)
                cc->rc.len = widths[i];
            cc->name = arena_strdup(x->arena, cols[i].name);
            if (sqlt_is_string((sqlt_t)cc->rc.type) && cc->rc.coll != COLL_BINARY && cc->rc.len == 0)
                cc->rc.len = 1;
            if ((cc->rc.type == SQLT_VARCHAR || cc->rc.type == SQLT_VARBINARY) && cc->rc.len > 512) {
                /* MariaDB makes a string result over 512 characters a TEXT / BLOB column, by its byte length */
                uint64_t bytes = (uint64_t)cc->rc.len * (cc->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(cc->rc.coll));
                bool bin = cc->rc.coll == COLL_BINARY;
                cc->rc.type = bytes < 65536 ? (bin ? SQLT_BLOB : SQLT_TEXT)
                            : bytes < 16777216 ? (bin ? SQLT_MEDIUMBLOB : SQLT_MEDIUMTEXT) : (bin ? SQLT_LONGBLOB : SQLT_LONGTEXT);
                cc->rc.len = 0;
            }
            if (!cc->rc.nullable)
                cc->def = CAT_DEF_NONE;
            ctas_source_default(x, &cols[i], cc);
            for (uint32_t k = nd; k < nc; k++)
                if (strcasecmp(c[k].name, cc->name) == 0)
                    return diag_error(x->diag, ER_DUP_FIELDNAME, cc->name);
            nc++;
        }
        /* MariaDB's order: the declared columns the SELECT does not name, then the SELECT's columns in its order
         * (a declared one where the names match); the declared columns' keys follow their columns */
        if (nd) {
            uint32_t *from = arena_calloc(x->arena, sizeof(uint32_t) * (nc + 1)), *to = arena_calloc(x->arena, sizeof(uint32_t) * (nc + 1));
            uint32_t k = 0, extra = nd;
            for (uint32_t d = 0; d < nd; d++) {
                bool named = false;
                for (int i = 0; i < n && !named; i++)
                    named = strcasecmp(c[d].name, cols[i].name) == 0;
                if (!named)
                    from[k++] = d;
            }
            for (int i = 0; i < n; i++) {
                uint32_t d = 0;
                while (d < nd && strcasecmp(c[d].name, cols[i].name) != 0)
                    d++;
                from[k++] = d < nd ? d : extra++;
            }
            cat_column_t *o = arena_calloc(x->arena, sizeof(cat_column_t) * (nc + 1));
            for (uint32_t j = 0; j < nc; j++) {
                o[j] = c[from[j]];
                to[from[j]] = j;
            }
            for (uint32_t i = 0; i < def->nidx; i++) {
                cat_index_col_t *ic = arena_alloc(x->arena, sizeof *ic * (def->idx[i].ncols + 1));
                for (uint32_t j = 0; j < def->idx[i].ncols; j++) {
                    ic[j] = def->idx[i].cols[j];
                    ic[j].col = to[ic[j].col];
                }
                def->idx[i].cols = ic;
            }
            c = o;
        }
        def->cols = c;
        def->ncols = nc;
        /* table-level keys name columns of the SELECT (the declared columns' own keys are already there) */
        if (!nd) {
            def->nidx = 0;
            def->idx = NULL;
        }
        uint32_t cap = def->nidx;
        for (uint32_t k = 0; k < ct->nindexes; k++)
            if ((rc = add_index(x, def, &cap, &ct->indexes[k], NULL)) != 0)
                return rc;
        /* the table-level CHECKs and FOREIGN KEYs, over the final columns (the columns' own came with them) */
        if ((rc = ddl_constraints_create(x, def, &cap, NULL, 0, ct->indexes, ct->nindexes)) != 0)
            return rc;
        def->has_pk = def->nidx && def->idx[0].kind == CAT_IDX_PRIMARY;
    }
    if (ct->or_replace) {
        cat_table_t *old = catalog_table_get(exec_cat, db, ct->table.name);
        if (old) {
            catalog_table_release(old);
            catalog_commit_hook_hold(true); /* a replica's position rides with the create (catalog.h) */
            rc = catalog_table_drop(exec_cat, db, ct->table.name, false, x->diag);
            catalog_commit_hook_hold(false);
            if (rc != 0)
                return rc;
            trigger_drop_table(x, db, ct->table.name);
        }
    }
    if (real) {
        def->name = real;
        def->coll = def->coll ? def->coll : catalog_db_coll(exec_cat, user_db);
    }
    rc = catalog_table_create(exec_cat, def, ct->if_not_exists && !real, x->diag);
    if (rc < 0)
        return rc;
    if (rc == 0 && !real) /* a new table has no triggers: any left by a DROP cut short by a crash go now */
        trigger_drop_table(x, def->db, def->name);
    if (real) {
        temp_table_t *t = mem_calloc(1, sizeof *t);
        t->db = mem_strdup(user_db);
        t->name = mem_strdup(ct->table.name);
        t->real = mem_strdup(real);
        t->next = x->ss->tmp;
        x->ss->tmp = t;
    }
    x->row_count = 0;
    if (ct->as_select && rc == 0) {
        /* fill it as INSERT [IGNORE] / REPLACE ... SELECT would, in this statement's transaction */
        sql_insert_t ins = {.table = {.db = user_db, .name = ct->table.name}, .select = ct->as_select,
                            .ignore = ct->dup == SQL_DUP_IGNORE};
        if (ct->ncols) { /* the SELECT's columns by name */
            res_col_t *cols;
            int n;
            if ((rc = exec_select_describe(x, ct->as_select, &cols, &n)) != 0)
                return rc;
            ins.cols = arena_alloc(x->arena, sizeof(char *) * ((uint32_t)n + 1));
            for (int i = 0; i < n; i++)
                ins.cols[i] = cols[i].name;
            ins.ncols = (uint32_t)n;
        }
        sql_stmt_t ist = {.kind = ct->dup == SQL_DUP_REPLACE ? SQL_STMT_REPLACE : SQL_STMT_INSERT, .insert = &ins};
        rc = exec_insert(x, &ist);
        if (rc) {
            /* the statement fails as a whole: the new table goes */
            if (x->ss->trx) {
                engine_trx_rollback(x->ss->trx);
                exec_trx_end(x->ss);
            }
            diag_t scratch;
            diag_init(&scratch, 4);
            catalog_table_drop(exec_cat, db, real ? real : ct->table.name, true, &scratch);
            diag_free(&scratch);
        }
        return rc;
    }
    exec_pend_ok(x, 0, NULL);
    return 0;
}
