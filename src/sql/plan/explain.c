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

static uint32_t key_len_of(const cat_table_t *t, uint32_t ix, uint32_t ncols)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < ncols && k < t->idx[ix].ncols; k++) {
        const cat_column_t *c = &t->cols[t->idx[ix].cols[k].col];
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
            uint32_t chars = t->idx[ix].cols[k].prefix ? t->idx[ix].cols[k].prefix : c->rc.len;
            l = chars * (c->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(c->rc.coll));
            if (ty != SQLT_CHAR && ty != SQLT_BINARY)
                l += 2;
        }
        }
        n += l + (c->rc.nullable ? 1 : 0);
    }
    return n;
}

/* EXPLAIN SELECT / UPDATE / DELETE in MariaDB's tabular form (one row per table; no statistics: rows are
 * estimates of the access path, not of the data). */
int exec_explain(sql_exec_ctx_t *x, const sql_stmt_t *inner)
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
    if (!sel->from) {
        /* MariaDB: "No tables used" */
    }
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, true);
    if (rc) {
        select_run_free(&s);
        return rc;
    }
    static const char *const names[] = {"id", "select_type", "table", "type", "possible_keys", "key", "key_len",
                                        "ref", "rows", "Extra"};
    res_col_t cols[10];
    for (int i = 0; i < 10; i++) {
        memset(&cols[i], 0, sizeof cols[i]);
        cols[i].schema = cols[i].table = cols[i].org_table = cols[i].org_name = "";
        cols[i].name = names[i];
        cols[i].type = (i == 0 || i == 8) ? MYSQL_TYPE_LONGLONG : MYSQL_TYPE_VAR_STRING;
        cols[i].charset = (i == 0 || i == 8) ? CHARSET_BINARY : 33;
        cols[i].length = (i == 0 || i == 8) ? 10 : 192;
        cols[i].flags = (i == 0 || i == 8) ? COLF_NUM : 0;
    }
    x->sink->columns(x->sink, cols, 10);
    bool desc;
    int oix = order_index(&s, &desc);
    for (uint32_t i = 0; i < s.q.nsrc || (i == 0 && s.q.nsrc == 0); i++) {
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
            access_path_t p;
            choose_path(&s.q, i, sel->where, &p, x->arena);
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
            if (src->is_virtual) {
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
                v[3] = p.range || multi ? "range" : p.point ? (consts && i == 0 ? "const" : "eq_ref") : "ref";
                v[5] = ix->name;
                snprintf(kl, sizeof kl, "%u", key_len_of(t, (uint32_t)p.index, p.neq + (p.range ? 1 : 0)));
                v[6] = kl;
                if (!p.range && !multi)
                    v[7] = consts ? "const" : "func";
                est = p.est_rows ? p.est_rows : p.point && !multi ? 1 : 10;
            } else if (i == 0 && oix >= 0) {
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
            if (sel->where)
                buf_append_str(&ex, "Using where");
            int scan_ix = src->is_virtual ? -1 : p.index >= 0 ? p.index : i == 0 ? oix : -1;
            if (scan_ix >= 0 && !s.q.locking && table_index_covers(t, (uint32_t)scan_ix, src->need))
                buf_append_str(&ex, ex.len ? "; Using index" : "Using index");
            if (i == 0 && (s.aggregate && s.ngroup))
                buf_append_str(&ex, ex.len ? "; Using temporary" : "Using temporary");
            if (i == 0 && s.norder && oix < 0)
                buf_append_str(&ex, ex.len ? "; Using filesort" : "Using filesort");
            if (ex.len)
                v[9] = arena_strndup(x->arena, (const char *)ex.data, ex.len);
            buf_free(&ex);
        }
        res_cell_t cells[10];
        for (int k = 0; k < 10; k++) {
            cells[k].null = v[k] == NULL;
            cells[k].p = v[k] ? v[k] : "";
            cells[k].len = v[k] ? strlen(v[k]) : 0;
        }
        x->sink->row(x->sink, cells);
        if (s.q.nsrc == 0)
            break;
    }
    x->sink->rows_end(x->sink, x->more);
    select_run_free(&s);
    x->row_count = -1;
    return 0;
}
