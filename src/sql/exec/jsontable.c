/*
 * JSON_TABLE(doc, path COLUMNS (...)) AS alias, as MariaDB 10.11 has it: a source in FROM whose rows are made
 * from a JSON document, for each row of the sources before it (the document may name their columns), so
 * `FROM t, JSON_TABLE(t.doc, ...) j` reads j again for every row of t.
 *
 * Rows: each value the table's path finds in the document is a row; its PATH columns are what their paths find
 * from it (ON EMPTY when nothing, ON ERROR when an array or object meets a scalar column or a path finds several
 * values; NULL unless written), EXISTS PATH columns 1 or 0, FOR ORDINALITY columns count the rows of their level
 * from 1.  A NESTED PATH level gives, for each row of its parent, one row per value its path finds; sibling
 * NESTED levels give their rows one after the other (the others' columns NULL), and a parent whose nested
 * levels find nothing gives one row with their columns NULL.  Values are stored into the columns' types with
 * MariaDB's non-strict conversions and warnings ("column `*any*`.`json_table`.`a`").
 */
#include <string.h>
#include <strings.h>

#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "sql/expr/jsondoc.h"
#include "access/catalog.h"
#include "access/table.h"

typedef struct jt_col {
    const sql_jt_col_t *c;
    uint32_t idx; /* the column in the table */
    json_path_t path;
} jt_col_t;

typedef struct jt_level jt_level_t;
struct jt_level {
    json_path_t path; /* this level's rows: the table's path, or the NESTED path from the parent's row */
    jt_col_t *cols;   /* this level's own columns */
    uint32_t ncols;
    jt_level_t *kids; /* NESTED levels */
    uint32_t nkids;
    uint32_t first, end; /* the table's columns of this level and those below it */
};

struct jt_plan {
    const sql_json_table_t *jt;
    const char *alias;
    jt_level_t root;
};

typedef struct jt_run {
    sql_exec_ctx_t *x;
    const cat_table_t *t;
    const struct jt_plan *plan;
    value_t *row; /* the row being built (stored domain) */
    value_t **rows;
    uint64_t n, cap;
} jt_run_t;

static int path_error(sql_exec_ctx_t *x, const json_error_t *err)
{
    char msg[256];
    json_error_message(msg, sizeof msg, err, 2, "JSON_TABLE");
    return diag_push_msg(x->diag, DIAG_ERROR, err->code, msg);
}

static int compile_path(sql_exec_ctx_t *x, const char *text, size_t len, json_path_t *out)
{
    json_error_t err;
    return json_path_parse(text, len, out, &err) ? path_error(x, &err) : 0;
}

static uint32_t count_cols(const sql_jt_cols_t *cs)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < cs->n; i++)
        n += cs->cols[i].kind == SQL_JT_NESTED ? count_cols(cs->cols[i].nested) : 1;
    return n;
}

/* One COLUMNS (...) level: its columns appended to t, its NESTED levels compiled below it. */
static int compile_level(sql_exec_ctx_t *x, cat_table_t *t, const sql_jt_cols_t *cs, jt_level_t *lv)
{
    lv->first = t->ncols;
    lv->cols = arena_calloc(x->arena, sizeof(jt_col_t) * (cs->n + 1));
    lv->kids = arena_calloc(x->arena, sizeof(jt_level_t) * (cs->n + 1));
    int rc = 0;
    for (uint32_t i = 0; i < cs->n && !rc; i++) {
        const sql_jt_col_t *c = &cs->cols[i];
        if (c->kind == SQL_JT_NESTED) {
            jt_level_t *k = &lv->kids[lv->nkids++];
            if ((rc = compile_path(x, c->path, c->path_len, &k->path)) == 0)
                rc = compile_level(x, t, c->nested, k);
            continue;
        }
        for (uint32_t k = 0; k < t->ncols; k++)
            if (strcasecmp(t->cols[k].name, c->def->name) == 0)
                return diag_error(x->diag, ER_DUP_FIELDNAME, c->def->name);
        cat_column_t *col = &t->cols[t->ncols];
        if ((rc = col_from_def(x, t, c->def, col)) != 0)
            break;
        col->rc.nullable = true;
        jt_col_t *jc = &lv->cols[lv->ncols++];
        jc->c = c;
        jc->idx = t->ncols++;
        if (c->kind != SQL_JT_ORDINALITY)
            rc = compile_path(x, c->path, c->path_len, &jc->path);
    }
    lv->end = t->ncols;
    return rc;
}

int jsontable_bind(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    const sql_json_table_t *jt = f->jt;
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = "*any*"; /* as MariaDB's messages name its columns: `*any*`.`json_table`.`a` */
    t->name = "json_table";
    t->engine = "";
    t->coll = x->db ? catalog_db_coll(sql_exec_catalog(), x->db) : COLL_DEFAULT; /* string columns' default */
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (count_cols(&jt->cols) + 1));
    struct jt_plan *plan = arena_calloc(x->arena, sizeof *plan);
    plan->jt = jt;
    plan->alias = f->alias;
    int rc = compile_path(x, jt->path, jt->path_len, &plan->root.path);
    if (rc || (rc = compile_level(x, t, &jt->cols, &plan->root)) != 0)
        return rc;
    for (uint32_t i = 0; i < q->nsrc; i++)
        if (strcmp(q->src[i].alias, f->alias) == 0)
            return diag_error(x->diag, ER_NONUNIQ_TABLE, f->alias);
    /* its rows depend on the sources before it: it is read where it is written */
    q->no_reorder = true;
    query_source_t s = {.db = "", .name = f->alias, .alias = f->alias, .t = t, .is_virtual = true, .join = join,
                        .on = on, .jt = plan, .jt_doc = jt->doc};
    bind_push_source(q, &s);
    return 0;
}

static int put_row(jt_run_t *R)
{
    if (R->n == R->cap) {
        R->cap = R->cap ? R->cap * 2 : 16;
        value_t **nr = arena_alloc(R->x->arena, sizeof(value_t *) * R->cap);
        if (R->n)
            memcpy(nr, R->rows, sizeof(value_t *) * R->n);
        R->rows = nr;
    }
    value_t *r = arena_alloc(R->x->arena, sizeof(value_t) * (R->t->ncols + 1));
    for (uint32_t c = 0; c < R->t->ncols; c++)
        r[c] = table_value_out(&R->t->cols[c], &R->row[c], R->x->arena);
    R->rows[R->n++] = r;
    return 0;
}

static int store(jt_run_t *R, uint32_t col, const value_t *v)
{
    return table_value_store(R->t, col, v, &R->row[col], R->x->arena, R->x->diag, false, (unsigned long)R->n + 1);
}

/* ON EMPTY / ON ERROR: NULL, the DEFAULT, or the error. */
static int respond(jt_run_t *R, const jt_col_t *jc, sql_jt_resp_t r, const char *def, size_t deflen, int err)
{
    if (r == SQL_JT_RESP_ERROR)
        return diag_error(R->x->diag, err, R->t->cols[jc->idx].name, R->plan->alias);
    if (r == SQL_JT_RESP_NULL) {
        R->row[jc->idx] = value_null();
        return 0;
    }
    value_t v = value_str(def, deflen, COLL_DEFAULT);
    return store(R, jc->idx, &v);
}

/* A value's JSON text, compact. */
static value_t compact_text(sql_exec_ctx_t *x, const json_node_t *n)
{
    buf_t b;
    buf_init(&b);
    json_print(&b, n, JSON_STYLE_COMPACT);
    value_t v = value_str(arena_strndup(x->arena, (const char *)b.data, b.len), b.len, COLL_DEFAULT);
    buf_free(&b);
    return v;
}

static int path_column(jt_run_t *R, const jt_col_t *jc, json_node_t *ctx)
{
    sql_exec_ctx_t *x = R->x;
    const cat_column_t *col = &R->t->cols[jc->idx];
    json_matches_t m = {0};
    json_path_find(x->arena, ctx, &jc->path, &m);
    if (m.n == 0)
        return respond(R, jc, jc->c->on_empty, jc->c->empty_default, jc->c->empty_len, ER_JSON_TABLE_ERROR_ON_FIELD);
    const json_node_t *n = m.m[0].node;
    bool is_json = col->is_json;
    if (m.n > 1 || ((n->kind == JSON_ARRAY || n->kind == JSON_OBJECT) && !is_json))
        return respond(R, jc, jc->c->on_error, jc->c->error_default, jc->c->error_len,
                       ER_JSON_TABLE_SCALAR_EXPECTED);
    value_t v;
    sqlt_t ty = (sqlt_t)col->rc.type;
    switch (n->kind) {
    case JSON_NULL:
        R->row[jc->idx] = value_null();
        return 0;
    case JSON_TRUE: case JSON_FALSE:
        v = sqlt_is_string(ty) || is_json ? value_str(n->kind == JSON_TRUE ? "true" : "false",
                                                      n->kind == JSON_TRUE ? 4 : 5, COLL_DEFAULT)
                                          : value_int(n->kind == JSON_TRUE);
        break;
    case JSON_STRING: {
        if (is_json) {
            v = compact_text(x, n);
            break;
        }
        const char *s;
        size_t len;
        if (!json_unescape(x->arena, n->raw, n->len, &s, &len))
            return respond(R, jc, jc->c->on_error, jc->c->error_default, jc->c->error_len,
                           ER_JSON_TABLE_SCALAR_EXPECTED);
        v = value_str(s, len, COLL_DEFAULT);
        break;
    }
    case JSON_NUMBER:
        v = value_str(n->raw, n->len, COLL_DEFAULT);
        break;
    default: { /* an array or object into a JSON column: its text as written */
        if (n->raw) {
            v = value_str(n->raw, n->len, COLL_DEFAULT);
        } else {
            v = compact_text(x, n);
        }
        break;
    }
    }
    return store(R, jc->idx, &v);
}

static void clear(jt_run_t *R, uint32_t from, uint32_t end)
{
    for (uint32_t c = from; c < end; c++)
        R->row[c] = value_null();
}

/* The rows of level lv from ctx: one per value its path finds there (with the rows of its NESTED levels). */
static int level_rows(jt_run_t *R, const jt_level_t *lv, json_node_t *ctx)
{
    json_matches_t m = {0};
    json_path_find(R->x->arena, ctx, &lv->path, &m);
    int rc = 0;
    for (uint32_t i = 0; i < m.n && !rc; i++) {
        json_node_t *n = m.m[i].node;
        for (uint32_t k = 0; k < lv->ncols && !rc; k++) {
            const jt_col_t *jc = &lv->cols[k];
            if (jc->c->kind == SQL_JT_ORDINALITY) {
                R->row[jc->idx] = value_int((int64_t)i + 1);
            } else if (jc->c->kind == SQL_JT_EXISTS) {
                json_matches_t e = {0};
                json_path_find(R->x->arena, n, &jc->path, &e);
                value_t v = value_int(e.n > 0);
                rc = store(R, jc->idx, &v);
            } else {
                rc = path_column(R, jc, n);
            }
        }
        uint64_t before = R->n;
        for (uint32_t k = 0; k < lv->nkids && !rc; k++) {
            clear(R, lv->kids[k].first, lv->kids[k].end);
            rc = level_rows(R, &lv->kids[k], n);
            clear(R, lv->kids[k].first, lv->kids[k].end);
        }
        if (!rc && R->n == before)
            rc = put_row(R);
    }
    return rc;
}

int jsontable_rows(row_eval_t *xe, query_source_t *s, const value_t *row)
{
    sql_exec_ctx_t *x = xe->x;
    const struct jt_plan *plan = s->jt;
    s->vrows = NULL;
    s->nvrows = 0;
    value_t d;
    int rc = row_eval(xe, plan->jt->doc, row, &d);
    if (rc || d.type == VAL_NULL)
        return rc;
    size_t len;
    const char *text = d.type == VAL_STRING ? d.s.ptr : value_to_text(x->arena, &d, &len);
    if (d.type == VAL_STRING)
        len = d.s.len;
    json_node_t *root;
    json_error_t err;
    if (json_parse(x->arena, text ? text : "", len, &root, &err) != 0 || !root) {
        char msg[256];
        json_error_message(msg, sizeof msg, &err, 1, "JSON_TABLE");
        return diag_push_msg(x->diag, DIAG_ERROR, err.code, msg);
    }
    jt_run_t R = {.x = x, .t = s->t, .plan = plan};
    R.row = arena_alloc(x->arena, sizeof(value_t) * (s->t->ncols + 1));
    clear(&R, 0, s->t->ncols);
    if ((rc = level_rows(&R, &plan->root, root)) != 0)
        return rc;
    s->vrows = R.rows;
    s->nvrows = R.n;
    return 0;
}
