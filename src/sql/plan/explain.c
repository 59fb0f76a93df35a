/*
 * EXPLAIN: the access path chosen for each source, in MariaDB's columns (id, select_type, table, type,
 * possible_keys, key, key_len, ref, rows, Extra).
 */
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "sql/exec/extsort.h"
#include "sql/expr/typeinf.h"
#include "sql/value/tz.h"
#include "util/util.h"
#include "util/hash.h"
#include "sql/exec/query_int.h"

/* ---------------------------------------------------------------- EXPLAIN */

/* The bytes of column c in a key (MariaDB's key_len), prefix characters of it when not 0. */
static uint32_t col_key_len(const cat_column_t *c, uint32_t prefix)
{
    sqlt_t ty = (sqlt_t)c->rc.type;
    uint32_t l;
    switch (ty) {
    case SQLT_TINYINT: case SQLT_YEAR: l = 1; break;
    case SQLT_SMALLINT: case SQLT_ENUM: l = 2; break;
    case SQLT_MEDIUMINT: case SQLT_DATE: l = 3; break;
    case SQLT_INT: case SQLT_FLOAT: case SQLT_TIMESTAMP: l = 4; break;
    case SQLT_BIGINT: case SQLT_DOUBLE: case SQLT_SET: case SQLT_BIT: l = 8; break;
    case SQLT_DATETIME: l = 5; break;
    case SQLT_TIME: l = 3; break;
    case SQLT_DECIMAL: l = (c->rc.len + 1) / 2 + 1; break;
    default: {
        uint32_t chars = prefix ? prefix : c->rc.len;
        l = chars * (c->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(c->rc.coll));
        if (ty != SQLT_CHAR && ty != SQLT_BINARY)
            l += 2;
    }
    }
    return l + (c->rc.nullable ? 1 : 0);
}

static uint32_t key_len_of(const cat_table_t *t, uint32_t ix, uint32_t ncols)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < ncols && k < t->idx[ix].ncols; k++)
        n += col_key_len(&t->cols[t->idx[ix].cols[k].col], t->idx[ix].cols[k].prefix);
    return n;
}

/* A hashed source's key columns (MariaDB's #hash#$hj key): their key_len in kl, and ref: each value as
 * db.table.column when it is a column of another source, else func. */
static const char *hash_ref(const query_t *q, const access_path_t *p, const cat_table_t *t, char *kl, size_t klsize,
                            arena_t *a)
{
    uint32_t n = 0;
    buf_t ref;
    buf_init(&ref);
    for (uint32_t k = 0; k < p->nhash; k++) {
        n += col_key_len(&t->cols[p->hcol[k]], 0);
        const sql_expr_t *v = p->hval[k];
        const char *item = "func";
        for (uint32_t i = 0; i < q->nsrc && v->kind == SQL_E_COLUMN && v->slot >= 0; i++) {
            const query_source_t *o = &q->src[i];
            if ((uint32_t)v->slot >= o->base && (uint32_t)v->slot < o->base + o->t->ncols)
                item = arena_printf(a, "%s.%s.%s", o->t->db ? o->t->db : "", o->alias,
                                    o->t->cols[(uint32_t)v->slot - o->base].name);
        }
        if (ref.len)
            buf_append_byte(&ref, ',');
        buf_append_str(&ref, item);
    }
    snprintf(kl, klsize, "%u", n);
    const char *r = arena_strndup(a, (const char *)ref.data, ref.len);
    buf_free(&ref);
    return r;
}

/* Appends s as a JSON string. */
static void json_str(buf_t *b, const char *s, size_t n)
{
    buf_append_byte(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf_append_byte(b, '\\');
            buf_append_byte(b, (char)c);
        } else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            buf_append_str(b, e);
        } else {
            buf_append_byte(b, (char)c);
        }
    }
    buf_append_byte(b, '"');
}

static void json_indent(buf_t *b, int depth)
{
    buf_append_byte(b, '\n');
    for (int i = 0; i < depth; i++)
        buf_append_str(b, "  ");
}

/* One table of EXPLAIN FORMAT=JSON's nested_loop, with MariaDB's keys. */
static void json_table(buf_t *b, int d, const char *const *v, const query_source_t *src, const access_path_t *p,
                       const char *cond, size_t cond_len)
{
    const cat_table_t *t = src->t;
    buf_append_str(b, "\"table\": {");
    json_indent(b, d + 1);
    buf_append_str(b, "\"table_name\": ");
    json_str(b, v[2], strlen(v[2]));
    buf_append_str(b, ",");
    json_indent(b, d + 1);
    buf_append_str(b, "\"access_type\": ");
    json_str(b, v[3], strlen(v[3]));
    if (v[4]) { /* possible_keys: the comma-separated list as an array */
        buf_append_str(b, ",");
        json_indent(b, d + 1);
        buf_append_str(b, "\"possible_keys\": [");
        const char *k = v[4];
        while (*k) {
            const char *e = strchr(k, ',');
            size_t n = e ? (size_t)(e - k) : strlen(k);
            json_str(b, k, n);
            k += n;
            if (*k == ',') {
                buf_append_str(b, ", ");
                k++;
            }
        }
        buf_append_str(b, "]");
    }
    if (v[5]) {
        buf_append_str(b, ",");
        json_indent(b, d + 1);
        buf_append_str(b, "\"key\": ");
        json_str(b, v[5], strlen(v[5]));
        buf_append_str(b, ",");
        json_indent(b, d + 1);
        buf_append_str(b, "\"key_length\": ");
        json_str(b, v[6], strlen(v[6]));
        int ix = p->index >= 0 ? p->index : -1;
        uint32_t parts = p->index >= 0 ? p->neq + (p->range ? 1 : 0) : 0;
        if (ix < 0) { /* an index read in its order: every part */
            for (uint32_t i = 0; i < t->nidx; i++)
                if (strcmp(t->idx[i].name, v[5]) == 0) {
                    ix = (int)i;
                    parts = t->idx[i].ncols;
                }
        }
        if (p->hashed && p->nhash) {
            buf_append_str(b, ",");
            json_indent(b, d + 1);
            buf_append_str(b, "\"used_key_parts\": [");
            for (uint32_t k = 0; k < p->nhash; k++) {
                const char *cn = t->cols[p->hcol[k]].name;
                if (k)
                    buf_append_str(b, ", ");
                json_str(b, cn, strlen(cn));
            }
            buf_append_str(b, "],");
            json_indent(b, d + 1);
            buf_append_str(b, "\"ref\": [");
            for (const char *r = v[7]; *r;) { /* hash_ref's comma-separated items */
                const char *e = strchr(r, ',');
                size_t n = e ? (size_t)(e - r) : strlen(r);
                if (r != v[7])
                    buf_append_str(b, ", ");
                json_str(b, r, n);
                r += n + (e ? 1 : 0);
            }
            buf_append_str(b, "]");
        } else if (ix >= 0 && parts) {
            buf_append_str(b, ",");
            json_indent(b, d + 1);
            buf_append_str(b, "\"used_key_parts\": [");
            for (uint32_t k = 0; k < parts && k < t->idx[ix].ncols; k++) {
                const char *cn = t->cols[t->idx[ix].cols[k].col].name;
                if (k)
                    buf_append_str(b, ", ");
                json_str(b, cn, strlen(cn));
            }
            buf_append_str(b, "]");
        }
        if (v[7] && !(p->hashed && p->nhash)) {
            buf_append_str(b, ",");
            json_indent(b, d + 1);
            buf_append_str(b, "\"ref\": [");
            for (uint32_t k = 0; k < p->neq; k++) {
                if (k)
                    buf_append_str(b, ", ");
                json_str(b, v[7], strlen(v[7]));
            }
            buf_append_str(b, "]");
        }
    }
    buf_append_str(b, ",");
    json_indent(b, d + 1);
    buf_append_str(b, "\"rows\": ");
    buf_append_str(b, v[8]);
    buf_append_str(b, ",");
    json_indent(b, d + 1);
    buf_append_str(b, "\"filtered\": 100");
    if (cond) {
        buf_append_str(b, ",");
        json_indent(b, d + 1);
        buf_append_str(b, "\"attached_condition\": ");
        json_str(b, cond, cond_len);
    }
    json_indent(b, d);
    buf_append_str(b, "}");
}

/*
 * EXPLAIN SELECT / UPDATE / DELETE in MariaDB's tabular form: one row per table, rows the access path's estimate
 * from the table's statistics.  ANALYZE SELECT runs the query (its rows are not sent) and adds MariaDB's
 * measured columns: r_rows (rows read per scan of the table), filtered (the planner's estimate of the share
 * passing its conditions: strata estimates no selectivity, 100.00) and r_filtered (the share of rows read that
 * went on: the join's ON at inner tables, WHERE at the last one, where strata evaluates it).
 */
int exec_explain(sql_exec_ctx_t *x, const sql_stmt_t *inner, bool analyze, bool extended, bool partitions,
                 bool json)
{
    const sql_select_t *sel = NULL;
    sql_select_t tmp;
    if (inner->kind == SQL_STMT_SELECT) {
        sel = inner->select;
    } else if (inner->kind == SQL_STMT_UPDATE || inner->kind == SQL_STMT_DELETE) {
        memset(&tmp, 0, sizeof tmp);
        tmp.from = inner->kind == SQL_STMT_UPDATE ? inner->update->tables : inner->del->from;
        tmp.where = inner->kind == SQL_STMT_UPDATE ? inner->update->where : inner->del->where;
        static sql_select_item_t star_item;
        static sql_expr_t star = {.kind = SQL_E_STAR, .slot = -1};
        star_item.expr = &star;
        tmp.items = &star_item;
        tmp.nitems = 1;
        sel = &tmp;
    } else {
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "EXPLAIN of this statement");
    }
    if (analyze && inner->kind != SQL_STMT_SELECT) /* MariaDB's ANALYZE UPDATE / DELETE changes the rows */
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "ANALYZE UPDATE and ANALYZE DELETE");
    if (!sel->from) {
        /* MariaDB: "No tables used" */
    }
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, true);
    if (rc) {
        select_run_free(&s);
        return rc;
    }
    if (analyze && s.q.nsrc) {
        s.q.an_scans = arena_calloc(x->arena, sizeof(uint64_t) * s.q.nsrc);
        s.q.an_read = arena_calloc(x->arena, sizeof(uint64_t) * s.q.nsrc);
        s.q.an_passed = arena_calloc(x->arena, sizeof(uint64_t) * s.q.nsrc);
        s.discard = true;
        if ((rc = select_run_run(&s)) != 0) {
            select_run_free(&s);
            return rc;
        }
    }
    /* ANALYZE: r_rows, filtered, r_filtered go between rows and Extra */
    static const char *const names[] = {"id", "select_type", "table", "type", "possible_keys", "key", "key_len",
                                        "ref", "rows", "r_rows", "filtered", "r_filtered", "Extra", "partitions"};
    /* the columns shown, in order: EXPLAIN's ten, EXTENDED's filtered, PARTITIONS' partitions (NULL: strata has
     * no partitioning), ANALYZE's three */
    int shown[14], ncols = 0;
    for (int i = 0; i <= 12; i++) {
        if ((i == 9 || i == 11) && !analyze)
            continue;
        if (i == 10 && !analyze && !extended)
            continue;
        shown[ncols++] = i;
        if (i == 2 && partitions)
            shown[ncols++] = 13;
    }
    res_col_t cols[14];
    for (int k = 0; k < ncols; k++) {
        int i = shown[k];
        bool num = i == 0 || i == 8;
        bool dbl = i >= 9 && i <= 11;
        memset(&cols[k], 0, sizeof cols[k]);
        cols[k].schema = cols[k].table = cols[k].org_table = cols[k].org_name = "";
        cols[k].name = names[i];
        cols[k].type = num ? MYSQL_TYPE_LONGLONG : dbl ? MYSQL_TYPE_DOUBLE : MYSQL_TYPE_VAR_STRING;
        cols[k].charset = num || dbl ? CHARSET_BINARY : 33;
        cols[k].length = num ? 10 : dbl ? 4 : 192;
        cols[k].decimals = dbl ? 2 : 0;
        cols[k].flags = num || dbl ? COLF_NUM : 0;
    }
    buf_t js;
    buf_init(&js);
    if (json) {
        res_col_t jc;
        memset(&jc, 0, sizeof jc);
        jc.schema = jc.table = jc.org_table = jc.org_name = "";
        jc.name = "EXPLAIN";
        jc.type = MYSQL_TYPE_VAR_STRING;
        jc.charset = 33;
        jc.length = 234;
        x->sink->columns(x->sink, &jc, 1);
        buf_append_str(&js, "{\n  \"query_block\": {\n    \"select_id\": 1,");
        if (s.q.nsrc == 0)
            buf_append_str(&js, "\n    \"table\": {\n      \"message\": \"No tables used\"\n    }");
        else
            buf_append_str(&js, "\n    \"nested_loop\": [");
    } else {
        x->sink->columns(x->sink, cols, ncols);
    }
    bool desc;
    int oix = order_index(&s, &desc);
    /* the join order and the access paths the statement runs with (ANALYZE: the ones it ran with) */
    access_path_t *paths = NULL;
    if (s.q.paths) {
        paths = (access_path_t *)s.q.paths;
    } else if (s.q.jpaths && s.q.jwhere == sel->where) {
        paths = s.q.jpaths;
    } else if (s.q.nsrc) {
        paths = arena_calloc(x->arena, sizeof(access_path_t) * s.q.nsrc);
        plan_join(&s.q, sel->where, paths, x->arena);
    }
    for (uint32_t d = 0; d < s.q.nsrc || (d == 0 && s.q.nsrc == 0); d++) {
        uint32_t i = s.q.nsrc ? join_src(&s.q, d) : 0; /* the source read at depth d */
        const char *v[10];
        char kl[32], rows[32];
        for (int k = 0; k < 10; k++)
            v[k] = NULL;
        v[0] = "1";
        v[1] = inner->kind == SQL_STMT_SELECT ? "SIMPLE" : "SIMPLE";
        if (s.q.nsrc == 0) {
            v[9] = "No tables used";
        } else {
            const query_source_t *src = &s.q.src[i];
            const cat_table_t *t = src->t;
            v[2] = src->alias;
            access_path_t p = paths[i];
            buf_t pk;
            buf_init(&pk);
            for (uint32_t ix = 0; ix < t->nidx && p.conds; ix++) {
                const column_cond_t *c = &p.conds[t->idx[ix].cols[0].col];
                if (c->eq || c->in || c->lo || c->hi || c->nors) {
                    if (pk.len)
                        buf_append_byte(&pk, ',');
                    buf_append_str(&pk, t->idx[ix].name);
                }
            }
            if (pk.len)
                v[4] = arena_strndup(x->arena, (const char *)pk.data, pk.len);
            buf_free(&pk);
            uint64_t est = 1;
            if (src->jt) {
                v[3] = "ALL";
                est = 40; /* MariaDB's estimate of a table function's rows */
            } else if (src->is_virtual) {
                v[3] = "ALL";
                est = src->nvrows;
            } else if (p.index >= 0) {
                const cat_index_t *ix = &t->idx[p.index];
                bool consts = true;
                for (uint32_t k = 0; k < p.neq; k++) {
                    const column_cond_t *c = &p.conds[ix->cols[k].col];
                    bool pure = true;
                    if (c->eq && expr_max_src(&s.q, c->eq, &pure) >= 0)
                        consts = false;
                }
                bool multi = false;
                for (uint32_t k = 0; k < p.neq; k++)
                    multi |= p.conds[ix->cols[k].col].in != NULL;
                v[3] = p.range || multi ? "range" : p.point ? (consts && d == 0 ? "const" : "eq_ref") : "ref";
                v[5] = ix->name;
                snprintf(kl, sizeof kl, "%u", key_len_of(t, (uint32_t)p.index, p.neq + (p.range ? 1 : 0)));
                v[6] = kl;
                if (!p.range && !multi)
                    v[7] = consts ? "const" : "func";
                est = p.est_rows ? p.est_rows : p.point && !multi ? 1 : 10;
            } else if (p.hashed && p.nhash) {
                v[3] = "hash_ALL";
                v[5] = "#hash#$hj";
                v[7] = hash_ref(&s.q, &p, t, kl, sizeof kl, x->arena);
                v[6] = kl;
                est = p.est_rows ? p.est_rows : 1000;
            } else if (d == 0 && oix >= 0) {
                v[3] = "index";
                v[5] = t->idx[oix].name;
                snprintf(kl, sizeof kl, "%u", key_len_of(t, (uint32_t)oix, t->idx[oix].ncols));
                v[6] = kl;
                est = p.est_rows ? p.est_rows : 1000;
            } else {
                v[3] = "ALL";
                est = p.est_rows ? p.est_rows : 1000;
            }
            snprintf(rows, sizeof rows, "%llu", (unsigned long long)est);
            v[8] = rows;
            buf_t ex;
            buf_init(&ex);
            if (src->jt)
                buf_append_str(&ex, "Table function: json_table");
            if (sel->where || (p.hashed && (p.nhash || src->on)))
                buf_append_str(&ex, ex.len ? "; Using where" : "Using where");
            int scan_ix = src->is_virtual ? -1 : p.index >= 0 ? p.index : d == 0 ? oix : -1;
            if (scan_ix >= 0 && !s.q.locking && table_index_covers(t, (uint32_t)scan_ix, src->need))
                buf_append_str(&ex, ex.len ? "; Using index" : "Using index");
            if (p.hashed)
                buf_append_str(&ex, p.nhash ? (ex.len ? "; Using join buffer (flat, BNLH join)"
                                                      : "Using join buffer (flat, BNLH join)")
                                            : (ex.len ? "; Using join buffer (flat, BNL join)"
                                                      : "Using join buffer (flat, BNL join)"));
            if (d == 0 && (s.aggregate && s.ngroup))
                buf_append_str(&ex, ex.len ? "; Using temporary" : "Using temporary");
            if (d == 0 && s.norder && oix < 0)
                buf_append_str(&ex, ex.len ? "; Using filesort" : "Using filesort");
            v[9] = ex.len ? arena_strndup(x->arena, (const char *)ex.data, ex.len) : ""; /* "": as MariaDB */
            buf_free(&ex);
        }
        if (json) {
            if (s.q.nsrc == 0)
                break;
            access_path_t p = paths[i];
            buf_append_str(&js, d ? ",\n      {\n        " : "\n      {\n        ");
            bool last = d + 1 == s.q.nsrc;
            const char *cond = last && sel->where ? sel->where->src : NULL;
            size_t cond_len = cond ? sel->where->src_len : 0;
            if (d == 0 && s.norder && oix < 0) {
                /* ORDER BY by a sort: MariaDB wraps the first table in the filesort that reads it */
                buf_append_str(&js, "\"read_sorted_file\": {\n          \"filesort\": {\n            \"sort_key\": ");
                buf_t sk;
                buf_init(&sk);
                for (uint32_t k = 0; k < sel->norder_by; k++) {
                    const sql_expr_t *oe = sel->order_by[k].expr;
                    if (k)
                        buf_append_str(&sk, ", ");
                    if (oe->src)
                        buf_append(&sk, oe->src, oe->src_len);
                    if (sel->order_by[k].desc)
                        buf_append_str(&sk, " desc");
                }
                json_str(&js, (const char *)sk.data, sk.len);
                buf_free(&sk);
                buf_append_str(&js, ",\n            ");
                json_table(&js, 6, v, &s.q.src[i], &p, cond, cond_len);
                buf_append_str(&js, "\n          }\n        }");
            } else if (p.hashed) {
                /* read once into a join buffer: MariaDB's block-nl-join, the condition on the buffer */
                buf_append_str(&js, "\"block-nl-join\": {\n          ");
                json_table(&js, 5, v, &s.q.src[i], &p, NULL, 0);
                buf_append_str(&js, ",\n          \"buffer_type\": \"flat\",\n          \"join_type\": ");
                buf_append_str(&js, p.nhash ? "\"BNLH\"" : "\"BNL\"");
                if (cond) {
                    buf_append_str(&js, ",\n          \"attached_condition\": ");
                    json_str(&js, cond, cond_len);
                }
                buf_append_str(&js, "\n        }");
            } else {
                json_table(&js, 4, v, &s.q.src[i], &p, cond, cond_len);
            }
            buf_append_str(&js, "\n      }");
            continue;
        }
        char r_rows[32], r_filtered[32];
        const char *w[14];
        for (int k = 0; k < 9; k++)
            w[k] = v[k];
        w[9] = w[11] = w[13] = NULL;
        w[10] = s.q.nsrc ? "100.00" : NULL;
        w[12] = v[9];
        if (analyze && s.q.nsrc) {
            uint64_t scans = s.q.an_scans[i], read = s.q.an_read[i], passed = s.q.an_passed[i];
            if (scans) {
                snprintf(r_rows, sizeof r_rows, "%.2f", (double)read / (double)scans);
                w[9] = r_rows;
                snprintf(r_filtered, sizeof r_filtered, "%.2f", read ? 100.0 * (double)passed / (double)read : 0.0);
                w[11] = r_filtered;
            }
        }
        res_cell_t cells[14];
        for (int k = 0; k < ncols; k++) {
            const char *c = w[shown[k]];
            cells[k].null = c == NULL;
            cells[k].p = c ? c : "";
            cells[k].len = c ? strlen(c) : 0;
        }
        x->sink->row(x->sink, cells);
        if (s.q.nsrc == 0)
            break;
    }
    if (json) {
        if (s.q.nsrc)
            buf_append_str(&js, "\n    ]");
        buf_append_str(&js, "\n  }\n}");
        res_cell_t cell = {.p = (const char *)js.data, .len = js.len};
        x->sink->row(x->sink, &cell);
    }
    buf_free(&js);
    x->sink->rows_end(x->sink, x->more);
    select_run_free(&s);
    x->row_count = -1;
    return 0;
}
