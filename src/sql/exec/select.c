/*
 * SELECT: FROM sources, binding, access paths (primary key / secondary index points and ranges from =, IN,
 * BETWEEN, <, <=, >, >=; full scan otherwise), nested-loop joins with index lookups on inner tables, WHERE,
 * GROUP BY with aggregates and HAVING, DISTINCT, ORDER BY (index order when it matches, else a sort on
 * memcomparable keys), LIMIT/OFFSET, and the result columns' metadata.
 *
 * Correctness rule of the access paths: index ranges are always inclusive supersets (rowcodec.h explains why)
 * and the whole WHERE is evaluated again on every row, so a path only decides how many rows are read.
 *
 * Memory of large results (extsort.h): an ORDER BY sort keeps sort_buffer_size bytes of rows in memory and
 * spills sorted runs beyond that.  GROUP BY keeps groups in a hash map up to tmp_table_size; once over it,
 * rows of groups not already in memory go to an external sort on the group key, and the output merges the
 * (sorted) in-memory groups with the groups read back one at a time.  DISTINCT does the same with its set of
 * keys: rows whose key is new once the set is full are sorted by key and de-duplicated when read back.
 * Per-row evaluation uses a scratch arena (select_run_t.rowa) reset for every row, so only what is kept grows.
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

/* ---------------------------------------------------------------- values and keys */

value_t xvalue_copy(arena_t *a, const value_t *v)
{
    value_t r = *v;
    if ((v->type == VAL_STRING || v->type == VAL_DECIMAL) && v->s.len) {
        /* NUL-terminated like value_decimal's text: value_to_double reads a DECIMAL with strtod */
        char *p = arena_alloc(a, v->s.len + 1);
        memcpy(p, v->s.ptr, v->s.len);
        p[v->s.len] = 0;
        r.s.ptr = p;
    }
    return r;
}

/* Values as bytes for a sort's payload (a temporary file of this process, so host byte order):
 *   u8 type, u16 coll, u8 dec, then  INT/UINT/DOUBLE: 8 bytes;  STRING/DECIMAL: u32 length + bytes;
 *   DATE/DATETIME/TIMESTAMP/TIME: 7 x u32 (year month day hour minute second usec) + u8 neg;  NULL: nothing. */
static void xrow_pack(buf_t *b, const value_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t h[4] = {(uint8_t)v[i].type, (uint8_t)(v[i].coll & 0xff), (uint8_t)(v[i].coll >> 8), v[i].dec};
        buf_append(b, h, 4);
        switch (v[i].type) {
        case VAL_NULL:
            break;
        case VAL_INT: case VAL_UINT: case VAL_DOUBLE:
            buf_append(b, &v[i].u, 8);
            break;
        case VAL_STRING: case VAL_DECIMAL: {
            uint32_t l = (uint32_t)v[i].s.len;
            buf_append(b, &l, 4);
            if (l)
                buf_append(b, v[i].s.ptr, l);
            break;
        }
        default: {
            const sql_time_t *t = &v[i].t;
            uint32_t f[7] = {t->year, t->month, t->day, t->hour, t->minute, t->second, t->usec};
            buf_append(b, f, sizeof f);
            buf_append_byte(b, t->neg);
            break;
        }
        }
    }
}

/* The reverse of xrow_pack; strings are copied into a.  Returns the position after the values. */
static const uint8_t *xrow_unpack(arena_t *a, const uint8_t *p, value_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].type = (value_type_t)p[0];
        v[i].coll = (uint16_t)(p[1] | p[2] << 8);
        v[i].dec = p[3];
        p += 4;
        switch (v[i].type) {
        case VAL_NULL:
            break;
        case VAL_INT: case VAL_UINT: case VAL_DOUBLE:
            memcpy(&v[i].u, p, 8);
            p += 8;
            break;
        case VAL_STRING: case VAL_DECIMAL: {
            uint32_t l;
            memcpy(&l, p, 4);
            p += 4;
            char *c = arena_alloc(a, l + 1);
            if (l)
                memcpy(c, p, l);
            c[l] = 0;
            v[i].s.ptr = c;
            v[i].s.len = l;
            p += l;
            break;
        }
        default: {
            uint32_t f[7];
            memcpy(f, p, sizeof f);
            p += sizeof f;
            sql_time_t *t = &v[i].t;
            t->year = f[0], t->month = f[1], t->day = f[2], t->hour = f[3], t->minute = f[4], t->second = f[5];
            t->usec = f[6];
            t->neg = *p++ != 0;
            break;
        }
        }
    }
    return p;
}

/* Bytes a kept copy of n values takes (the in-memory budgets of GROUP BY and DISTINCT count these). */
static size_t xrow_size(const value_t *v, uint32_t n)
{
    size_t z = sizeof(value_t) * n;
    for (uint32_t i = 0; i < n; i++)
        if (v[i].type == VAL_STRING || v[i].type == VAL_DECIMAL)
            z += v[i].s.len;
    return z;
}

void xkey_append(buf_t *b, const value_t *v, bool desc)
{
    size_t start = b->len;
    rc_col_t c = {.nullable = true};
    value_t x = *v;
    if (v->type == VAL_NULL) {
        buf_append_byte(b, 0);
    } else {
        buf_append_byte(b, 1);
        switch (v->type) {
        case VAL_INT: case VAL_UINT: case VAL_DECIMAL: case VAL_DOUBLE:
            buf_append_byte(b, 1);
            if (v->type == VAL_DOUBLE) {
                c.type = SQLT_DOUBLE;
            } else {
                /* every exact number in one layout, so 1 and 1.0 (and INT next to DECIMAL) compare and group right */
                c.type = SQLT_DECIMAL;
                c.len = 65;
                c.scale = 30;
            }
            rc_key_append(b, &c, &x);
            /* the type marker 1 was followed by the nullable marker of c: fine, constant */
            break;
        case VAL_STRING:
            if (v->dec == VAL_DEC_ENUM) { /* an ENUM / SET column sorts by index / mask */
                buf_append_byte(b, 1);
                c.type = SQLT_DECIMAL;
                c.len = 65;
                c.scale = 30;
                x = value_uint(v->s.num);
                rc_key_append(b, &c, &x);
                break;
            }
            buf_append_byte(b, 3);
            c.type = SQLT_VARCHAR;
            c.coll = v->coll;
            rc_key_append(b, &c, &x);
            break;
        case VAL_TIME:
            buf_append_byte(b, 2);
            c.type = SQLT_TIME;
            rc_key_append(b, &c, &x);
            break;
        default:
            buf_append_byte(b, 2);
            c.type = SQLT_DATETIME;
            rc_key_append(b, &c, &x);
            break;
        }
    }
    if (desc)
        for (size_t i = start; i < b->len; i++)
            b->data[i] ^= 0xFF;
}

/* Mixing integer and double keys in one column would compare DECIMAL vs DOUBLE encodings: a numeric value is
 * encoded as DECIMAL when it is an integer or decimal; doubles are rare in sort keys next to integers. */

/* ---------------------------------------------------------------- a tiny byte-string hash map */

void xmap_init(xmap_t *m, arena_t *a)
{
    memset(m, 0, sizeof *m);
    m->a = a;
}

void xmap_free(xmap_t *m)
{
    mem_free(m->slots);
    mem_free(m->kp);
    mem_free(m->kl);
}

/* The key's index, or -1 when absent. */
static int64_t xmap_find(const xmap_t *m, const uint8_t *k, size_t n)
{
    if (!m->cap)
        return -1;
    uint32_t j = (uint32_t)(hash_bytes(k, n) & (m->cap - 1));
    while (m->slots[j]) {
        uint32_t idx = m->slots[j] - 1;
        if (m->kl[idx] == n && (n == 0 || memcmp(m->kp[idx], k, n) == 0))
            return idx;
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

/* Returns the key's index; *added when new. */
uint32_t xmap_put(xmap_t *m, const uint8_t *k, size_t n, bool *added)
{
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        uint32_t *ns = mem_calloc(nc, sizeof *ns);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->slots[i])
                continue;
            uint32_t idx = m->slots[i] - 1;
            uint64_t h = hash_bytes(m->kp[idx], m->kl[idx]);
            uint32_t j = (uint32_t)(h & (nc - 1));
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = idx + 1;
        }
        mem_free(m->slots);
        m->slots = ns;
        m->cap = nc;
    }
    uint64_t h = hash_bytes(k, n);
    uint32_t j = (uint32_t)(h & (m->cap - 1));
    while (m->slots[j]) {
        uint32_t idx = m->slots[j] - 1;
        if (m->kl[idx] == n && (n == 0 || memcmp(m->kp[idx], k, n) == 0)) {
            *added = false;
            return idx;
        }
        j = (j + 1) & (m->cap - 1);
    }
    if (m->n == m->kcap) {
        m->kcap = m->kcap ? m->kcap * 2 : 64;
        m->kp = mem_realloc(m->kp, sizeof(*m->kp) * m->kcap);
        m->kl = mem_realloc(m->kl, sizeof(*m->kl) * m->kcap);
    }
    uint8_t *copy = arena_alloc(m->a, n ? n : 1);
    if (n)
        memcpy(copy, k, n);
    m->kp[m->n] = copy;
    m->kl[m->n] = n;
    m->slots[j] = m->n + 1;
    *added = true;
    return m->n++;
}

/* ---------------------------------------------------------------- FROM and binding */

static void push_source(xquery_t *q, xsrc_t *s)
{
    xsrc_t *ns = arena_alloc(q->x->arena, sizeof(xsrc_t) * (q->nsrc + 1));
    if (q->nsrc)
        memcpy(ns, q->src, sizeof(xsrc_t) * q->nsrc);
    s->base = q->width;
    ns[q->nsrc] = *s;
    q->src = ns;
    q->nsrc++;
    q->width += s->t->ncols;
}

/* A column definition that describes a result column (derived tables: names and metadata). */
void xcol_from_res(cat_column_t *c, const res_col_t *r)
{
    memset(c, 0, sizeof *c);
    c->name = r->name;
    c->comment = "";
    c->rc.nullable = !(r->flags & COLF_NOT_NULL);
    c->rc.is_unsigned = (r->flags & COLF_UNSIGNED) != 0;
    c->rc.coll = r->charset;
    c->def = CAT_DEF_NULL;
    uint32_t mb = value_coll_mbmaxlen(r->charset);
    switch (r->type) {
    case MYSQL_TYPE_TINY: c->rc.type = SQLT_TINYINT; break;
    case MYSQL_TYPE_SHORT: c->rc.type = SQLT_SMALLINT; break;
    case MYSQL_TYPE_INT24: c->rc.type = SQLT_MEDIUMINT; break;
    case MYSQL_TYPE_LONG: c->rc.type = SQLT_INT; break;
    case MYSQL_TYPE_LONGLONG: c->rc.type = SQLT_BIGINT; break;
    case MYSQL_TYPE_NEWDECIMAL: case MYSQL_TYPE_DECIMAL: {
        /* length = precision + point + sign */
        uint32_t extra = (r->decimals ? 1u : 0u) + (c->rc.is_unsigned ? 0u : 1u);
        c->rc.type = SQLT_DECIMAL;
        c->rc.scale = r->decimals;
        c->rc.len = r->length > extra && r->length - extra >= r->decimals ? r->length - extra : 10;
        break;
    }
    case MYSQL_TYPE_FLOAT: c->rc.type = SQLT_FLOAT; break;
    case MYSQL_TYPE_DOUBLE:
        c->rc.type = SQLT_DOUBLE;
        if (r->decimals < VAL_DEC_NOT_FIXED && r->length > r->decimals) { /* ROUND(x, 1), PI(): double(M,D) */
            c->rc.len = r->length;
            c->rc.scale = r->decimals;
        }
        break;
    case MYSQL_TYPE_NULL: c->rc.type = SQLT_BINARY; c->rc.coll = COLL_BINARY; c->rc.len = 0; break;
    case MYSQL_TYPE_DATE: c->rc.type = SQLT_DATE; break;
    case MYSQL_TYPE_DATETIME: c->rc.type = SQLT_DATETIME; c->rc.scale = r->decimals <= 6 ? r->decimals : 0; break;
    case MYSQL_TYPE_TIMESTAMP: c->rc.type = SQLT_TIMESTAMP; c->rc.scale = r->decimals <= 6 ? r->decimals : 0; break;
    case MYSQL_TYPE_TIME: c->rc.type = SQLT_TIME; c->rc.scale = r->decimals <= 6 ? r->decimals : 0; break;
    case MYSQL_TYPE_YEAR: c->rc.type = SQLT_YEAR; break;
    case MYSQL_TYPE_BLOB: case MYSQL_TYPE_TINY_BLOB: case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB: {
        /* the smallest TEXT / BLOB holding the length (in characters of the collation) */
        uint64_t chars = mb ? r->length / mb : r->length;
        bool bin = r->charset == COLL_BINARY;
        if (r->type == MYSQL_TYPE_LONG_BLOB)
            chars = 0;
        else if (r->type == MYSQL_TYPE_MEDIUM_BLOB && chars <= 65535)
            chars = 65536;
        c->rc.type = chars == 0 || chars > 16777215 ? (bin ? SQLT_LONGBLOB : SQLT_LONGTEXT)
                   : chars > 65535                  ? (bin ? SQLT_MEDIUMBLOB : SQLT_MEDIUMTEXT)
                   : chars > 255                    ? (bin ? SQLT_BLOB : SQLT_TEXT)
                                                    : (bin ? SQLT_TINYBLOB : SQLT_TINYTEXT);
        break;
    }
    default:
        c->rc.type = r->charset == COLL_BINARY ? SQLT_VARBINARY : SQLT_VARCHAR;
        if (r->type == MYSQL_TYPE_STRING && !(r->flags & (COLF_ENUM | COLF_SET)))
            c->rc.type = r->charset == COLL_BINARY ? SQLT_BINARY : SQLT_CHAR;
        c->rc.len = mb ? r->length / mb : r->length;
        break;
    }
    if (sqlt_is_int((sqlt_t)c->rc.type) && r->length)
        c->display_width = r->length; /* an expression's length is the column's display width: bigint(12) */
}

/* Whether e calls an aggregate function (outside subqueries). */
static bool expr_has_aggregate(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_FUNC && sql_expr_is_aggregate(e))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (expr_has_aggregate(e->args[i]))
            return true;
    return expr_has_aggregate(e->else_expr);
}

static int add_derived(xquery_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    if (!f->alias)
        return diag_error(x->diag, ER_DERIVED_MUST_HAVE_ALIAS);
    res_col_t *cols;
    int ncols;
    value_t **rows;
    uint64_t n;
    uint32_t nc;
    int rc = exec_select_describe(x, f->derived, &cols, &ncols);
    if (!rc)
        rc = exec_select_rows(x, f->derived, &rows, &n, &nc);
    if (rc)
        return rc;
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = "";
    t->name = f->alias;
    t->engine = "";
    t->ncols = nc;
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (nc + 1));
    for (uint32_t i = 0; i < nc; i++) {
        xcol_from_res(&t->cols[i], &cols[i < (uint32_t)ncols ? i : 0]);
        for (uint32_t k = 0; k < i; k++)
            if (strcasecmp(t->cols[k].name, t->cols[i].name) == 0)
                return diag_error(x->diag, ER_DUP_FIELDNAME, t->cols[i].name);
    }
    bool mergeable = !f->derived->union_next && !f->derived->ngroup_by && !f->derived->having &&
                     !f->derived->distinct && !f->derived->limit.count && (uint32_t)ncols == nc;
    for (uint32_t i = 0; mergeable && i < f->derived->nitems; i++)
        mergeable = !expr_has_aggregate(f->derived->items[i].expr);
    xsrc_t s = {.db = "", .name = f->alias, .alias = f->alias, .t = t, .is_virtual = true, .vrows = rows, .nvrows = n,
                .join = join, .on = on, .dcols = mergeable ? cols : NULL};
    push_source(q, &s);
    return 0;
}

static int add_source(xquery_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on)
{
    sql_exec_ctx_t *x = q->x;
    if (f->kind == SQL_FROM_DERIVED)
        return add_derived(q, f, join, on);
    if (f->kind == SQL_FROM_JOIN) {
        sql_join_kind_t j = f->join == SQL_JOIN_STRAIGHT ? SQL_JOIN_INNER : f->join;
        const sql_from_t *first = f->left, *second = f->right;
        if (j == SQL_JOIN_RIGHT) { /* t1 RIGHT JOIN t2 ON c  ==  t2 LEFT JOIN t1 ON c */
            first = f->right;
            second = f->left;
            j = SQL_JOIN_LEFT;
        }
        int rc = add_source(q, first, join, on);
        if (rc)
            return rc;
        uint32_t before = q->nsrc;
        if ((rc = add_source(q, second, j, f->on)) != 0)
            return rc;
        if (f->nusing || f->natural) {
            /* USING (c, ...) / NATURAL: equalities between the new source and the first earlier one having c */
            xsrc_t *ns = &q->src[before];
            uint32_t n = f->natural ? ns->t->ncols : f->nusing;
            sql_expr_t *cond = (sql_expr_t *)ns->on;
            for (uint32_t i = 0; i < n; i++) {
                const char *c = f->natural ? ns->t->cols[i].name : f->using_cols[i];
                int other = -1;
                for (uint32_t k = 0; k < before && other < 0; k++)
                    if (cat_table_col(q->src[k].t, c) >= 0)
                        other = (int)k;
                if (other < 0) {
                    if (f->natural)
                        continue;
                    return diag_error(x->diag, ER_BAD_FIELD_ERROR, c, "FROM");
                }
                int nc = cat_table_col(ns->t, c), oc = cat_table_col(q->src[other].t, c);
                if (nc < 0)
                    return diag_error(x->diag, ER_BAD_FIELD_ERROR, c, "FROM");
                if (!ns->hidden)
                    ns->hidden = arena_calloc(x->arena, ns->t->ncols + 1);
                if (!q->src[other].lead)
                    q->src[other].lead = arena_calloc(x->arena, q->src[other].t->ncols + 1);
                ns->hidden[nc] = true;
                q->src[other].lead[oc] = true;
                sql_expr_t *eq = arena_calloc(x->arena, sizeof *eq);
                sql_expr_t **args = arena_calloc(x->arena, sizeof(sql_expr_t *) * 2);
                for (int side = 0; side < 2; side++) {
                    sql_expr_t *ce = arena_calloc(x->arena, sizeof *ce);
                    ce->kind = SQL_E_COLUMN;
                    ce->col.table = side ? ns->alias : q->src[other].alias;
                    ce->col.name = c;
                    ce->slot = -1;
                    ce->src = c;
                    ce->src_len = (uint32_t)strlen(c);
                    args[side] = ce;
                }
                eq->kind = SQL_E_BINARY;
                eq->op = SQL_OP_EQ;
                eq->nargs = 2;
                eq->args = args;
                eq->slot = -1;
                eq->src = c;
                eq->src_len = (uint32_t)strlen(c);
                if (!cond) {
                    cond = eq;
                } else {
                    sql_expr_t *and = arena_calloc(x->arena, sizeof *and);
                    sql_expr_t **aa = arena_calloc(x->arena, sizeof(sql_expr_t *) * 2);
                    aa[0] = cond;
                    aa[1] = eq;
                    and->kind = SQL_E_BINARY;
                    and->op = SQL_OP_AND;
                    and->nargs = 2;
                    and->args = aa;
                    and->slot = -1;
                    cond = and;
                }
            }
            ns->on = cond;
        }
        return 0;
    }
    xsrc_t *s = arena_calloc(x->arena, sizeof *s);
    const char *db = xdb(x, f->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    s->db = db;
    s->name = f->table.name;
    s->alias = f->alias ? f->alias : f->table.name;
    s->join = join;
    s->on = on;
    if (strcasecmp(db, "information_schema") == 0 || strcasecmp(db, "performance_schema") == 0) {
        int rc = db[0] == 'i' || db[0] == 'I' ? exec_infoschema(x, f->table.name, s) : exec_perfschema(x, f->table.name, s);
        if (rc)
            return rc;
    } else {
        const char *rdb = db, *rname = f->table.name;
        xtmp_map(x, &rdb, &rname);
        int mrc = xmdl_shared(x, rdb, rname);
        if (mrc)
            return mrc;
        s->t = catalog_table_get(sql_exec_catalog(), rdb, rname);
        if (!s->t)
            return diag_error(x->diag, ER_NO_SUCH_TABLE, db, f->table.name);
        int trc = xtable_used(x, false);
        if (trc) {
            catalog_table_release(s->t);
            return trc;
        }
    }
    for (uint32_t i = 0; i < q->nsrc; i++)
        if (strcmp(q->src[i].alias, s->alias) == 0 && strcmp(q->src[i].db, s->db) == 0) {
            if (!s->is_virtual)
                catalog_table_release(s->t);
            return diag_error(x->diag, ER_NONUNIQ_TABLE, s->alias);
        }
    xsrc_t *ns = arena_alloc(x->arena, sizeof(xsrc_t) * (q->nsrc + 1));
    if (q->nsrc)
        memcpy(ns, q->src, sizeof(xsrc_t) * q->nsrc);
    s->base = q->width;
    ns[q->nsrc] = *s;
    q->src = ns;
    q->nsrc++;
    q->width += s->t->ncols;
    return 0;
}

int xquery_from(xquery_t *q, sql_exec_ctx_t *x, const sql_from_t *from)
{
    memset(q, 0, sizeof *q);
    q->x = x;
    return add_source(q, from, SQL_JOIN_INNER, NULL);
}

void xquery_release(xquery_t *q)
{
    for (uint32_t i = 0; i < q->nsrc; i++)
        if (!q->src[i].is_virtual)
            catalog_table_release(q->src[i].t);
    q->nsrc = 0;
    if (!q->aggs_shared)
        mem_free(q->aggs);
    q->aggs = NULL;
}

int xbind(xquery_t *q, sql_expr_t *e, const char *clause, bool allow_agg)
{
    if (!e)
        return 0;
    sql_exec_ctx_t *x = q->x;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS)
        return 0; /* bound when it runs (subquery_eval) */
    if ((e->kind == SQL_E_IN && e->sub) || e->kind == SQL_E_QUANTIFIED)
        return e->nargs ? xbind(q, e->args[0], clause, allow_agg) : 0;
    if (e->kind == SQL_E_COLUMN) {
        int found = -1;
        for (uint32_t i = 0; i < q->nsrc; i++) {
            const xsrc_t *s = &q->src[i];
            if (e->col.table && strcmp(e->col.table, s->alias) != 0)
                continue;
            if (e->col.db && strcmp(e->col.db, s->db) != 0)
                continue;
            int c = cat_table_col(s->t, e->col.name);
            if (c < 0)
                continue;
            if (!e->col.table && s->hidden && s->hidden[c])
                continue; /* a USING / NATURAL column is the earlier source's (one column, not ambiguous) */
            if (found >= 0) { /* named as written: 't2.v' when qualified (MariaDB) */
                char full[200];
                snprintf(full, sizeof full, "%s%s%s", e->col.table ? e->col.table : "", e->col.table ? "." : "", e->col.name);
                return diag_error(x->diag, ER_NON_UNIQ_ERROR, full, clause);
            }
            e->bound_db = s->db;
            e->bound_tab = s->alias;
            {
                /* MariaDB's max_length of an integer column (result types of integer arithmetic follow it) */
                static const uint32_t sl[] = {4, 6, 9, 11, 20}, ul[] = {3, 5, 8, 10, 20};
                sqlt_t ty = (sqlt_t)s->t->cols[c].rc.type;
                e->bound_len = sqlt_is_int(ty) ? (s->t->cols[c].rc.is_unsigned ? ul : sl)[ty - SQLT_TINYINT] : 0;
            }
            found = (int)(s->base + (uint32_t)c);
        }
        if (found < 0 && !e->col.table && q->alias_names) {
            for (uint32_t i = 0; i < q->nalias; i++)
                if (q->alias_names[i] && strcasecmp(q->alias_names[i], e->col.name) == 0) {
                    e->slot = (int32_t)(q->width + i);
                    return 0;
                }
        }
        if (found < 0 && x->outer_q) {
            /* a correlated reference: left unbound, read from the outer row by name (exec_eval_column_get) */
            const xquery_t *oq = x->outer_q;
            for (uint32_t i = 0; i < oq->nsrc; i++) {
                const xsrc_t *s = &oq->src[i];
                if (e->col.table && strcmp(e->col.table, s->alias) != 0)
                    continue;
                if (cat_table_col(s->t, e->col.name) >= 0) {
                    e->slot = -1;
                    x->saw_outer_ref = true;
                    return 0;
                }
            }
        }
        if (found < 0) {
            char full[200];
            snprintf(full, sizeof full, "%s%s%s", e->col.table ? e->col.table : "", e->col.table ? "." : "", e->col.name);
            return diag_error(x->diag, ER_BAD_FIELD_ERROR, full, clause);
        }
        e->slot = found;
        return 0;
    }
    if (sql_expr_is_aggregate(e)) {
        if (!allow_agg)
            return diag_error(x->diag, ER_INVALID_GROUP_FUNC_USE);
        if (q->nagg == q->capagg) {
            q->capagg = q->capagg ? q->capagg * 2 : 8;
            q->aggs = mem_realloc(q->aggs, sizeof(*q->aggs) * q->capagg);
        }
        bool dup = false;
        for (uint32_t i = 0; i < q->nagg; i++)
            dup |= q->aggs[i] == e;
        if (!dup)
            q->aggs[q->nagg++] = e;
        for (uint32_t i = 0; i < e->nargs; i++) {
            int rc = xbind(q, e->args[i], clause, false);
            if (rc)
                return rc;
        }
        for (uint32_t i = 0; i < e->nagg_order; i++) { /* GROUP_CONCAT(... ORDER BY ...) */
            int rc = xbind(q, e->agg_order[i].expr, clause, false);
            if (rc)
                return rc;
        }
        return 0;
    }
    for (uint32_t i = 0; i < e->nargs; i++) {
        int rc = xbind(q, e->args[i], clause, allow_agg);
        if (rc)
            return rc;
    }
    if (e->kind == SQL_E_CASE && e->else_expr)
        return xbind(q, e->else_expr, clause, allow_agg);
    return 0;
}

/* Highest source index an expression reads (-1 none); *pure false when it can't be evaluated early (variables
 * assigned, aggregates, RAND()...). */
static int expr_max_src(const xquery_t *q, const sql_expr_t *e, bool *pure)
{
    if (!e)
        return -1;
    int m = -1;
    if (e->kind == SQL_E_COLUMN) {
        for (uint32_t i = 0; i < q->nsrc; i++)
            if ((uint32_t)e->slot >= q->src[i].base && (uint32_t)e->slot < q->src[i].base + q->src[i].t->ncols)
                m = (int)i;
        return m;
    }
    if (e->kind == SQL_E_ASSIGN || e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
        (e->kind == SQL_E_IN && e->sub) || (e->kind == SQL_E_COLUMN && e->slot < 0))
        *pure = false;
    if (e->kind == SQL_E_FUNC && (sql_fn_flags(e->func.fn) & (SQL_FNF_AGGREGATE | SQL_FNF_VOLATILE)))
        *pure = false;
    for (uint32_t i = 0; i < e->nargs; i++)
        m = MAX(m, expr_max_src(q, e->args[i], pure));
    if (e->kind == SQL_E_CASE)
        m = MAX(m, expr_max_src(q, e->else_expr, pure));
    return m;
}

/* ---------------------------------------------------------------- access paths */

typedef struct xor_range {   /* one disjunct of an OR over a single column: lo <= col <= hi (NULL: open) */
    const sql_expr_t *lo, *hi;
} xor_range_t;

typedef struct xcond {       /* what WHERE says about one column of the source being read */
    const sql_expr_t *eq;    /* col = eq */
    const sql_expr_t *const *in; /* col IN (in[0..nin-1]) */
    uint32_t nin;
    const sql_expr_t *lo, *hi;
    const xor_range_t *ors;  /* col BETWEEN a AND b OR col = c OR col > d ...: one range per disjunct */
    uint32_t nors;
} xcond_t;

typedef struct xpath {
    int index;               /* -1: full scan of the clustered tree */
    uint32_t neq;            /* leading index columns bound to points */
    bool range;              /* and a range on the next */
    bool point;              /* neq covers a unique index: at most one row per point */
    uint64_t est_rows;       /* rows the path is expected to read, from the table's statistics; 0: none */
    xcond_t *conds;          /* per table column */
} xpath_t;

static void split_and(const sql_expr_t *e, const sql_expr_t ***list, uint32_t *n, arena_t *a)
{
    if (!e)
        return;
    if (e->kind == SQL_E_BINARY && e->op == SQL_OP_AND) {
        split_and(e->args[0], list, n, a);
        split_and(e->args[1], list, n, a);
        return;
    }
    const sql_expr_t **nl = arena_alloc(a, sizeof(*nl) * (*n + 1));
    if (*n)
        memcpy(nl, *list, sizeof(*nl) * *n);
    nl[(*n)++] = e;
    *list = nl;
}

/* The column of source si an expression is, or -1. */
static int src_col(const xquery_t *q, uint32_t si, const sql_expr_t *e)
{
    if (e->kind != SQL_E_COLUMN || e->slot < 0)
        return -1;
    const xsrc_t *s = &q->src[si];
    if ((uint32_t)e->slot < s->base || (uint32_t)e->slot >= s->base + s->t->ncols)
        return -1;
    return (int)((uint32_t)e->slot - s->base);
}

static bool avail(const xquery_t *q, uint32_t si, const sql_expr_t *e)
{
    bool pure = true;
    int m = expr_max_src(q, e, &pure);
    return pure && m < (int)si;
}

/* Is e `column op value` (either way round) with the value known before source si is read?  Gives the column,
 * the operator as seen from the column's side and the value. */
static bool col_cmp(const xquery_t *q, uint32_t si, const sql_expr_t *e, int *col, sql_op_t *op, const sql_expr_t **val)
{
    sql_op_t o = e->op;
    const sql_expr_t *l = e->args[0], *v = e->args[1];
    if (src_col(q, si, l) < 0 && src_col(q, si, v) >= 0) {
        const sql_expr_t *t = l;
        l = v;
        v = t;
        o = o == SQL_OP_LT ? SQL_OP_GT : o == SQL_OP_GT ? SQL_OP_LT : o == SQL_OP_LE ? SQL_OP_GE
          : o == SQL_OP_GE ? SQL_OP_LE : o;
    }
    if ((*col = src_col(q, si, l)) < 0 || !avail(q, si, v))
        return false;
    *op = o;
    *val = v;
    return true;
}

/* Adds the ranges of e, a disjunct of an OR, on column *col of source si (-1: not settled yet).  False when e is
 * not a comparison of one column with values known before si is read, or names another column. */
static bool or_ranges(const xquery_t *q, uint32_t si, const sql_expr_t *e, int *col, xor_range_t **r, uint32_t *n,
                      uint32_t *cap, arena_t *a)
{
    if (e->kind == SQL_E_BINARY && e->op == SQL_OP_OR && e->nargs == 2)
        return or_ranges(q, si, e->args[0], col, r, n, cap, a) && or_ranges(q, si, e->args[1], col, r, n, cap, a);
    const sql_expr_t *lo = NULL, *hi = NULL, *const *pts = NULL;
    uint32_t npts = 0;
    int c = -1;
    if (e->kind == SQL_E_BINARY && e->nargs == 2) {
        sql_op_t op;
        const sql_expr_t *v;
        if (!col_cmp(q, si, e, &c, &op, &v))
            return false;
        switch (op) {
        case SQL_OP_EQ: lo = hi = v; break;
        case SQL_OP_LT: case SQL_OP_LE: hi = v; break;
        case SQL_OP_GT: case SQL_OP_GE: lo = v; break;
        default: return false;
        }
    } else if (e->kind == SQL_E_BETWEEN && !e->negated && e->nargs == 3) {
        if ((c = src_col(q, si, e->args[0])) < 0 || !avail(q, si, e->args[1]) || !avail(q, si, e->args[2]))
            return false;
        lo = e->args[1];
        hi = e->args[2];
    } else if (e->kind == SQL_E_IN && !e->negated && !e->sub && e->nargs >= 2) {
        if ((c = src_col(q, si, e->args[0])) < 0)
            return false;
        for (uint32_t k = 1; k < e->nargs; k++)
            if (!avail(q, si, e->args[k]))
                return false;
        pts = (const sql_expr_t *const *)e->args + 1;
        npts = e->nargs - 1;
    } else {
        return false;
    }
    if (*col >= 0 && c != *col)
        return false;
    *col = c;
    uint32_t add = pts ? npts : 1;
    if (*n + add > *cap) {
        uint32_t nc = MAX(*cap * 2, *n + add + 4);
        xor_range_t *nr = arena_alloc(a, sizeof *nr * nc);
        if (*n)
            memcpy(nr, *r, sizeof *nr * *n);
        *r = nr;
        *cap = nc;
    }
    for (uint32_t k = 0; k < add; k++)
        (*r)[(*n)++] = pts ? (xor_range_t){pts[k], pts[k]} : (xor_range_t){lo, hi};
    return true;
}

static void collect_conds(const xquery_t *q, uint32_t si, const sql_expr_t *where, xcond_t *conds, arena_t *a)
{
    const sql_expr_t **list = NULL;
    uint32_t n = 0;
    split_and(where, &list, &n, a);
    if (q->src[si].on)
        split_and(q->src[si].on, &list, &n, a);
    for (uint32_t i = 0; i < n; i++) {
        const sql_expr_t *e = list[i];
        int c;
        if (e->kind == SQL_E_BINARY && e->op == SQL_OP_OR && e->nargs == 2) {
            /* every disjunct a range of the same column: a union of ranges (MariaDB's range access over OR) */
            xor_range_t *r = NULL;
            uint32_t n = 0, cap = 0;
            c = -1;
            if (or_ranges(q, si, e, &c, &r, &n, &cap, a) && !conds[c].ors) {
                conds[c].ors = r;
                conds[c].nors = n;
            }
            continue;
        }
        if (e->kind == SQL_E_BINARY && e->nargs == 2) {
            sql_op_t op;
            const sql_expr_t *r;
            if (!col_cmp(q, si, e, &c, &op, &r))
                continue;
            switch (op) {
            case SQL_OP_EQ: if (!conds[c].eq) conds[c].eq = r; break;
            case SQL_OP_LT: case SQL_OP_LE: if (!conds[c].hi) conds[c].hi = r; break;
            case SQL_OP_GT: case SQL_OP_GE: if (!conds[c].lo) conds[c].lo = r; break;
            default: break;
            }
        } else if (e->kind == SQL_E_BETWEEN && !e->negated && e->nargs == 3) {
            if ((c = src_col(q, si, e->args[0])) < 0 || !avail(q, si, e->args[1]) || !avail(q, si, e->args[2]))
                continue;
            if (!conds[c].lo)
                conds[c].lo = e->args[1];
            if (!conds[c].hi)
                conds[c].hi = e->args[2];
        } else if (e->kind == SQL_E_IN && !e->negated && !e->sub && e->nargs >= 2) {
            if ((c = src_col(q, si, e->args[0])) < 0)
                continue;
            bool ok = true;
            for (uint32_t k = 1; k < e->nargs; k++)
                ok &= avail(q, si, e->args[k]);
            if (ok && !conds[c].in && !conds[c].eq) {
                conds[c].in = (const sql_expr_t *const *)e->args + 1;
                conds[c].nin = e->nargs - 1;
            }
        }
    }
}

static bool col_indexable(const cat_column_t *c)
{
    sqlt_t t = (sqlt_t)c->rc.type;
    return t != SQLT_ENUM && t != SQLT_SET && t != SQLT_BIT;
}

/*
 * Rows a candidate path is expected to read, from the table's statistics (ANALYZE TABLE, access/stats.h): a unique
 * point 1 per point; neq leading columns bound to points: rows / distinct values of that prefix, per point of an
 * IN list; a range after them (or alone): a third of that (System R's guess for an open range).
 */
static uint64_t path_estimate(const cat_table_t *t, uint32_t ix, uint32_t neq, bool range, bool uniq, uint32_t points,
                              uint64_t rows)
{
    uint64_t est = rows;
    if (uniq)
        est = 1;
    else if (neq && !stats_rows_per_key(sql_exec_catalog(), t, ix, neq, &est))
        est = rows / 10;
    if (!uniq && range)
        est /= 3;
    est *= points ? points : 1;
    return est ? est : 1;
}

/*
 * The access path of source si: among the indexes whose leading columns WHERE binds, the one expected to read
 * the fewest rows when the table has statistics (path_estimate), else by a fixed preference: a unique point,
 * then more bound columns, then a range, then the primary key.
 */
static void choose_path(const xquery_t *q, uint32_t si, const sql_expr_t *where, xpath_t *p, arena_t *a)
{
    const cat_table_t *t = q->src[si].t;
    memset(p, 0, sizeof *p);
    p->index = -1;
    if (q->src[si].is_virtual)
        return;
    p->conds = arena_calloc(a, sizeof(xcond_t) * (t->ncols + 1));
    collect_conds(q, si, where, p->conds, a);
    uint64_t rows = 0;
    bool have_stats = stats_table_rows(sql_exec_catalog(), t, &rows);
    if (have_stats)
        p->est_rows = rows ? rows : 1; /* a full scan */
    int best = 0;
    uint64_t best_est = UINT64_MAX;
    for (uint32_t ix = 0; ix < t->nidx; ix++) {
        const cat_index_t *x = &t->idx[ix];
        uint32_t neq = 0, points = 1;
        bool in_used = false, range = false;
        for (uint32_t k = 0; k < x->ncols; k++) {
            const xcond_t *c = &p->conds[x->cols[k].col];
            if (!col_indexable(&t->cols[x->cols[k].col]))
                break;
            if (c->eq || (c->in && !in_used)) {
                if (c->in && !c->eq)
                    points = c->nin;
                in_used |= c->in && !c->eq;
                neq++;
                continue;
            }
            range = c->lo || c->hi || c->nors;
            break;
        }
        if (!neq && !range)
            continue;
        bool full = neq == x->ncols;
        bool uniq = x->kind != CAT_IDX_KEY && full;
        for (uint32_t k = 0; k < x->ncols && uniq; k++)
            uniq = x->cols[k].prefix == 0;
        int score = uniq ? (x->kind == CAT_IDX_PRIMARY ? 1000 : 900) : (int)neq * 10 + (range ? 5 : 0) + (x->kind == CAT_IDX_PRIMARY ? 2 : 0);
        uint64_t est = have_stats ? path_estimate(t, ix, neq, !full && range, uniq, points, rows) : 0;
        bool better = have_stats ? est < best_est || (est == best_est && score > best) : score > best;
        if (better) {
            best = score;
            best_est = est;
            p->index = (int)ix;
            p->neq = neq;
            p->range = !full && range;
            p->point = uniq;
            p->est_rows = est;
        }
    }
}

/* Is value v usable as a search key for column c?  (Else the comparison is not in the index's order.) */
static bool key_compatible(const cat_column_t *c, const value_t *v, bool for_range)
{
    sqlt_t t = (sqlt_t)c->rc.type;
    if (v->type == VAL_NULL)
        return true;
    if (sqlt_is_string(t)) {
        if (v->type != VAL_STRING)
            return false;
        return !for_range || v->coll != COLL_BINARY || c->rc.coll == COLL_BINARY;
    }
    if (t == SQLT_TIMESTAMP && sql_tz_active())
        return false; /* the index holds system-zone values, the bound is in @@time_zone (sql/value/tz.h): full scan */
    if (sqlt_is_temporal(t))
        return value_is_temporal(v) || v->type == VAL_STRING;
    return value_is_numeric(v) || (v->type == VAL_STRING && !for_range);
}

/*
 * A string search value in the index column's character set: the key is made of the column's weights.  The
 * comparison runs in the collation MySQL's coercibility rules give the column against the value
 * (sql_coll_of_cmp); the index serves it when that is the column's collation, or, for equality, a binary-sorting
 * collation of the same character set (the index finds a superset, which the WHERE / ON filters).  Else false
 * and the caller scans.
 */
static bool key_in_coll(xeval_t *xe, const cat_column_t *c, value_t *v, bool for_range)
{
    uint16_t cc = c->rc.coll;
    if (v->type != VAL_STRING || !sqlt_is_string((sqlt_t)c->rc.type))
        return true;
    int cmp = sql_coll_of_cmp(cc, v);
    if (cmp < 0)
        return false; /* no common collation: the evaluation reports 1267 */
    if (cmp != cc && (for_range || value_coll_is_ci((uint16_t)cmp) ||
                      (cmp != COLL_BINARY && strcmp(value_coll_charset((uint16_t)cmp), value_coll_charset(cc)) != 0)))
        return false;
    if (v->coll != COLL_BINARY && cc != COLL_BINARY &&
        strcmp(value_coll_charset(v->coll), value_coll_charset(cc)) != 0) {
        size_t n, bad;
        const char *cv = sql_str_convert(xe->x->arena, v->s.ptr, v->s.len, v->coll, cc, &n, &bad);
        if (bad != SIZE_MAX)
            return false;
        v->s.ptr = cv;
        v->s.len = n;
    }
    v->coll = cc;
    return true;
}

typedef struct xrange {
    buf_t lo, hi;
    bool has_lo, has_hi;
} xrange_t;

static int cmp_range(const void *a, const void *b)
{
    const xrange_t *x = a, *y = b;
    size_t n = MIN(x->lo.len, y->lo.len);
    int r = n ? memcmp(x->lo.data, y->lo.data, n) : 0; /* (an open low end has no buffer at all) */
    return r ? r : (x->lo.len < y->lo.len ? -1 : x->lo.len > y->lo.len);
}

/*
 * Builds the key ranges of a path for the current outer row.  *nr 0 with rc 0 means "no row can match" (col =
 * NULL); rc 1 means "fall back to a full scan" (a value not comparable in index order).
 */
static int build_ranges(xeval_t *xe, const xquery_t *q, uint32_t si, const xpath_t *p, const value_t *row,
                        xrange_t **out, uint32_t *nr)
{
    const cat_table_t *t = q->src[si].t;
    const cat_index_t *ix = &t->idx[p->index];
    arena_t *a = xe->x->arena;
    xrange_t *r = arena_calloc(a, sizeof *r);
    uint32_t n = 1;
    buf_init(&r[0].lo);
    buf_init(&r[0].hi);
    r[0].has_lo = r[0].has_hi = true;
    int rc = 0;
    for (uint32_t k = 0; k < p->neq; k++) {
        const xcond_t *c = &p->conds[ix->cols[k].col];
        rc_col_t rcol = table_index_rc(t, (uint32_t)p->index, k);
        const cat_column_t *col = &t->cols[ix->cols[k].col];
        if (c->eq) {
            value_t v;
            if ((rc = xeval(xe, c->eq, row, &v)) != 0)
                goto fail;
            if (v.type == VAL_NULL) {
                n = 0;
                goto done;
            }
            if (!key_compatible(col, &v, false) || !key_in_coll(xe, col, &v, false)) {
                rc = 1;
                goto fail;
            }
            for (uint32_t i = 0; i < n; i++) {
                if (rc_key_append(&r[i].lo, &rcol, &v) < 0) {
                    rc = 1;
                    goto fail;
                }
                rc_key_append(&r[i].hi, &rcol, &v);
            }
            continue;
        }
        /* IN: one range per (distinct, non-NULL) value */
        xrange_t *nrg = arena_calloc(a, sizeof *nrg * (n * c->nin + 1));
        uint32_t m = 0;
        for (uint32_t j = 0; j < c->nin; j++) {
            value_t v;
            if ((rc = xeval(xe, c->in[j], row, &v)) != 0)
                goto fail;
            if (v.type == VAL_NULL)
                continue;
            if (!key_compatible(col, &v, false) || !key_in_coll(xe, col, &v, false)) {
                rc = 1;
                for (uint32_t z = 0; z < m; z++) { /* the ranges made for the values before this one */
                    buf_free(&nrg[z].lo);
                    buf_free(&nrg[z].hi);
                }
                goto fail;
            }
            for (uint32_t i = 0; i < n; i++) {
                xrange_t *d = &nrg[m++];
                buf_init(&d->lo);
                buf_init(&d->hi);
                d->has_lo = d->has_hi = true;
                buf_append(&d->lo, r[i].lo.data, r[i].lo.len);
                if (rc_key_append(&d->lo, &rcol, &v) < 0) {
                    rc = 1;
                    for (uint32_t z = 0; z < m; z++) {
                        buf_free(&nrg[z].lo);
                        buf_free(&nrg[z].hi);
                    }
                    goto fail;
                }
                buf_append(&d->hi, d->lo.data, d->lo.len);
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            buf_free(&r[i].lo);
            buf_free(&r[i].hi);
        }
        r = nrg;
        n = m;
        if (!n)
            goto done;
    }
    if (p->range && p->conds[ix->cols[p->neq].col].nors) {
        /* a union of ranges on the next column: each prefix so far times each disjunct */
        uint32_t k = p->neq;
        const xcond_t *c = &p->conds[ix->cols[k].col];
        rc_col_t rcol = table_index_rc(t, (uint32_t)p->index, k);
        const cat_column_t *col = &t->cols[ix->cols[k].col];
        xrange_t *nrg = arena_calloc(a, sizeof *nrg * ((size_t)n * c->nors + 1));
        uint32_t m = 0;
        for (uint32_t j = 0; j < c->nors && rc == 0; j++) {
            value_t lo = value_null(), hi = value_null();
            const xor_range_t *o = &c->ors[j];
            if (o->lo && (rc = xeval(xe, o->lo, row, &lo)) != 0)
                break;
            if (o->hi && (rc = o->hi == o->lo ? (hi = lo, 0) : xeval(xe, o->hi, row, &hi)) != 0)
                break;
            if ((o->lo && lo.type == VAL_NULL) || (o->hi && hi.type == VAL_NULL))
                continue; /* this disjunct is never true */
            bool point = o->lo == o->hi;
            if ((o->lo && !key_compatible(col, &lo, !point)) || (o->hi && !key_compatible(col, &hi, !point))) {
                rc = 1;
                break;
            }
            for (uint32_t i = 0; i < n && rc == 0; i++) {
                xrange_t *d = &nrg[m++];
                buf_init(&d->lo);
                buf_init(&d->hi);
                d->has_lo = d->has_hi = true;
                buf_append(&d->lo, r[i].lo.data, r[i].lo.len);
                buf_append(&d->hi, r[i].hi.data, r[i].hi.len);
                if (o->lo && rc_key_append(&d->lo, &rcol, &lo) < 0)
                    rc = 1;
                else if (!o->lo && rcol.nullable)
                    buf_append_byte(&d->lo, 0x01); /* skip NULLs: col < x is never true for NULL */
                if (rc == 0 && o->hi && rc_key_append(&d->hi, &rcol, &hi) < 0)
                    rc = 1;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            buf_free(&r[i].lo);
            buf_free(&r[i].hi);
        }
        r = nrg;
        n = m;
        if (rc)
            goto fail;
    } else if (p->range) {
        uint32_t k = p->neq;
        const xcond_t *c = &p->conds[ix->cols[k].col];
        rc_col_t rcol = table_index_rc(t, (uint32_t)p->index, k);
        const cat_column_t *col = &t->cols[ix->cols[k].col];
        value_t lo = value_null(), hi = value_null();
        if (c->lo && (rc = xeval(xe, c->lo, row, &lo)) != 0)
            goto fail;
        if (c->hi && (rc = xeval(xe, c->hi, row, &hi)) != 0)
            goto fail;
        if ((c->lo && lo.type == VAL_NULL) || (c->hi && hi.type == VAL_NULL)) {
            n = 0; /* col > NULL is never true */
            goto done;
        }
        if ((c->lo && (!key_compatible(col, &lo, true) || !key_in_coll(xe, col, &lo, true))) ||
            (c->hi && (!key_compatible(col, &hi, true) || !key_in_coll(xe, col, &hi, true)))) {
            rc = 1;
            goto fail;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (c->lo) {
                if (rcol.nullable) {
                    /* the key of a non-NULL value starts with 0x01 (NULLs sort first and never match a range) */
                }
                if (rc_key_append(&r[i].lo, &rcol, &lo) < 0) {
                    rc = 1;
                    goto fail;
                }
            } else if (rcol.nullable) {
                buf_append_byte(&r[i].lo, 0x01); /* skip NULLs: col < x is never true for NULL */
            }
            if (c->hi) {
                if (rc_key_append(&r[i].hi, &rcol, &hi) < 0) {
                    rc = 1;
                    goto fail;
                }
            }
        }
    }
    if (n > 1) {
        /* sorted by their low ends, overlapping ranges merged: a row is read once (bounds are inclusive key
         * prefixes: a high end covers every key it begins, so of two high ends equal on the shorter's length the
         * shorter reaches further) */
        qsort(r, n, sizeof *r, cmp_range);
        uint32_t w = 1;
        for (uint32_t i = 1; i < n; i++) {
            xrange_t *cur = &r[w - 1];
            size_t ml = MIN(r[i].lo.len, cur->hi.len);
            if (ml == 0 || memcmp(r[i].lo.data, cur->hi.data, ml) <= 0) {
                size_t mh = MIN(r[i].hi.len, cur->hi.len);
                int c = mh ? memcmp(r[i].hi.data, cur->hi.data, mh) : 0;
                if (c > 0 || (c == 0 && r[i].hi.len < cur->hi.len)) {
                    buf_t t = cur->hi;
                    cur->hi = r[i].hi;
                    r[i].hi = t;
                }
                buf_free(&r[i].lo);
                buf_free(&r[i].hi);
                continue;
            }
            r[w++] = r[i];
        }
        n = w;
    }
done:
    *out = r;
    *nr = n;
    return 0;
fail:
    for (uint32_t i = 0; i < n; i++) {
        buf_free(&r[i].lo);
        buf_free(&r[i].hi);
    }
    *out = NULL;
    *nr = 0;
    return rc;
}

static void free_ranges(xrange_t *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        buf_free(&r[i].lo);
        buf_free(&r[i].hi);
    }
}

/* ---------------------------------------------------------------- nested loops */

typedef struct xloop {
    xquery_t *q;
    xeval_t xe;
    const sql_expr_t *where;
    xpath_t *paths;
    value_t *row;             /* the combined row (output domain) */
    xrow_fn fn;
    void *fn_arg;
    xdml_fn dml;              /* single-table DML: stored values and key */
    int order_index;
    bool order_desc;
    engine_trx_t *trx;
    uint64_t emitted;
    bool fresh;               /* the row given to loop_emit was read locked by the engine (clustered locking scan) */
    bool rejected;            /* loop_emit: the WHERE rejected that row */
} xloop_t;

/* Copies a source's row into the combined row, in the output domain (ENUM/SET names, FLOAT digits). */
static void fill_row(xloop_t *L, uint32_t si, const value_t *stored)
{
    const xsrc_t *s = &L->q->src[si];
    if (si == 0)
        L->q->rows_read++;
    if (!s->is_virtual)
        L->q->x->stats.rows_examined++;
    for (uint32_t c = 0; c < s->t->ncols; c++) {
        sqlt_t ty = (sqlt_t)s->t->cols[c].rc.type;
        L->row[s->base + c] = (ty == SQLT_ENUM || ty == SQLT_SET || ty == SQLT_FLOAT || ty == SQLT_YEAR ||
                               s->t->cols[c].zerofill) && !s->is_virtual
                                  ? table_value_out(&s->t->cols[c], &stored[c], L->q->x->arena)
                                  : stored[c];
    }
}

static void null_row(xloop_t *L, uint32_t si)
{
    const xsrc_t *s = &L->q->src[si];
    for (uint32_t c = 0; c < s->t->ncols; c++)
        L->row[s->base + c] = value_null();
}

static int loop_level(xloop_t *L, uint32_t si);

/* One candidate row of source si: ON check, then the next level or the consumer. 1 = stop. */
static int loop_emit(xloop_t *L, uint32_t si, const buf_t *pk, const value_t *stored, bool *matched)
{
    const xsrc_t *s = &L->q->src[si];
    int rc;
    if ((++L->emitted & 1023) == 0 && L->q->x->kill_query && atomic_exchange(L->q->x->kill_query, false))
        return diag_error(L->q->x->diag, ER_QUERY_INTERRUPTED);
    if (L->q->cur_pk) {
        buf_reset(&L->q->cur_pk[si]);
        if (pk)
            buf_append(&L->q->cur_pk[si], pk->data, pk->len);
    }
    if (L->q->locking && pk && !s->is_virtual && !L->fresh) {
        /* a locking read: take the row's lock, then read it again (it may have changed while we waited) */
        rc = L->q->lock_shared ? engine_lock_row_shared(L->trx, s->t->tree, pk->data, pk->len)
                               : engine_lock_row(L->trx, s->t->tree, pk->data, pk->len);
        if (rc)
            return table_engine_err(L->q->x->diag, s->t, rc);
        buf_t *store = arena_calloc(L->q->x->arena, sizeof(buf_t));
        buf_init(store);
        value_t *fresh = arena_alloc(L->q->x->arena, sizeof(value_t) * (s->t->ncols + 1));
        rc = table_get_latest(L->trx, s->t, pk->data, pk->len, store, fresh);
        if (rc == STRATA_ENOTFOUND) {
            buf_free(store);
            return 0;
        }
        if (rc) {
            buf_free(store);
            return table_engine_err(L->q->x->diag, s->t, rc);
        }
        /* the values stay valid for the statement: the buffer is kept in the arena-owned list below */
        value_t *copy = arena_alloc(L->q->x->arena, sizeof(value_t) * (s->t->ncols + 1));
        for (uint32_t c = 0; c < s->t->ncols; c++)
            copy[c] = xvalue_copy(L->q->x->arena, &fresh[c]);
        buf_free(store);
        stored = copy;
    }
    fill_row(L, si, stored);
    if (s->on) {
        rc = xeval_bool(&L->xe, s->on, L->row);
        if (rc <= 0)
            return rc;
    }
    *matched = true;
    if (si + 1 < L->q->nsrc)
        return loop_level(L, si + 1);
    if (L->where) {
        rc = xeval_bool(&L->xe, L->where, L->row);
        L->rejected = rc == 0;
        if (rc <= 0)
            return rc;
    }
    if (L->dml)
        return L->dml(L->fn_arg, pk, stored, L->row);
    return L->fn(L->fn_arg, L->row);
}

static int scan_range(xloop_t *L, uint32_t si, int index, const buf_t *lo, const buf_t *hi, bool desc, bool point,
                      bool *matched)
{
    xquery_t *q = L->q;
    table_scan_t sc;
    int rc = table_scan_open(&sc, L->trx, q->src[si].t, index, lo, hi, desc, q->x->arena);
    if (rc == 0 && q->locking)
        /* a locking read: the engine locks each entry the scan stops on and, at REPEATABLE READ, the gaps of the
         * range in the tree scanned (next-key locks), so no phantom can be inserted into it until commit */
        rc = table_scan_lock(&sc, q->lock_shared ? ENGINE_LOCK_SHARED : ENGINE_LOCK_EXCLUSIVE, point);
    else if (rc == 0)
        table_scan_covering(&sc, q->src[si].need); /* an index holding every column read: index-only */
    if (rc) {
        table_scan_close(&sc);
        return table_engine_err(q->x->diag, q->src[si].t, rc);
    }
    while ((rc = table_scan_next(&sc)) == 0) {
        /* a clustered locking scan hands over rows the engine locked and read in their latest version */
        L->fresh = sc.locking && sc.index < 0;
        L->rejected = false;
        rc = loop_emit(L, si, &sc.pk, sc.row, matched);
        if (rc == 0 && L->rejected && L->fresh && q->nsrc == 1)
            /* READ COMMITTED's semi-consistent read: a row the WHERE rejects does not stay locked, unless it was
             * locked before this read (the engine decides; nothing at REPEATABLE READ) */
            engine_cursor_unlock(sc.cur);
        L->fresh = false;
        if (rc)
            break;
        if (point)
            break;
    }
    table_scan_close(&sc);
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    else if (rc < 0 && rc > -10000)
        ; /* an -ER_* already pushed */
    else if (rc < 0)
        rc = table_engine_err(q->x->diag, q->src[si].t, rc);
    return rc;
}

static int loop_level(xloop_t *L, uint32_t si)
{
    xquery_t *q = L->q;
    xsrc_t *s = &q->src[si];
    bool matched = false;
    int rc = 0;
    if (s->is_virtual) {
        for (uint64_t i = 0; i < s->nvrows && !rc; i++)
            rc = loop_emit(L, si, NULL, s->vrows[i], &matched);
        goto end;
    }
    xpath_t *p = &L->paths[si];
    if (p->index >= 0) {
        xrange_t *r;
        uint32_t nr;
        rc = build_ranges(&L->xe, q, si, p, L->row, &r, &nr);
        if (rc == 0) {
            bool desc = si == 0 && L->order_index == p->index && L->order_desc;
            bool pk_point = p->point && !p->range && s->t->idx[p->index].kind == CAT_IDX_PRIMARY;
            for (uint32_t i = 0; i < nr && !rc; i++) {
                uint32_t k = desc ? nr - 1 - i : i;
                if (q->locking && pk_point) {
                    /* a unique lookup: the row's lock when it exists, else (REPEATABLE READ) the gap it would go
                     * into, so a concurrent insert of it waits; then the latest version is read directly
                     * (loop_emit locks again: a no-op, and re-reads) */
                    rc = engine_lock_key(L->trx, s->t->tree, r[k].lo.data, r[k].lo.len,
                                         q->lock_shared ? ENGINE_LOCK_SHARED : ENGINE_LOCK_EXCLUSIVE);
                    if (rc == STRATA_ENOTFOUND) {
                        rc = 0;
                        continue;
                    }
                    if (rc) {
                        rc = table_engine_err(q->x->diag, s->t, rc);
                        break;
                    }
                    buf_t store;
                    buf_init(&store);
                    value_t *row = arena_alloc(q->x->arena, sizeof(value_t) * (s->t->ncols + 1));
                    rc = table_get_latest(L->trx, s->t, r[k].lo.data, r[k].lo.len, &store, row);
                    if (rc == 0) /* (a unique lookup keeps its lock even when the WHERE rejects the row) */
                        rc = loop_emit(L, si, &r[k].lo, row, &matched);
                    else if (rc == STRATA_ENOTFOUND)
                        rc = 0;
                    else
                        rc = table_engine_err(q->x->diag, s->t, rc);
                    buf_free(&store);
                    continue;
                }
                rc = scan_range(L, si, p->index, r[k].has_lo ? &r[k].lo : NULL, r[k].has_hi ? &r[k].hi : NULL, desc,
                                p->point && !p->range, &matched);
            }
            free_ranges(r, nr);
            goto end;
        }
        if (rc < 0)
            return rc;
        rc = 0; /* fall back to a full scan */
    }
    {
        int ix = -1;
        bool desc = false;
        if (si == 0 && L->order_index >= 0) {
            ix = L->order_index;
            desc = L->order_desc;
        }
        /* once per statement, however often a nested loop or a subquery comes back here; information_schema
         * and other computed tables are not scans of stored data */
        if (!s->is_virtual && si == 0)
            q->x->stats.full_scans = 1;
        else if (!s->is_virtual)
            q->x->stats.full_joins = 1;
        rc = scan_range(L, si, ix, NULL, NULL, desc, false, &matched);
    }
end:
    if (rc == 0 && !matched && s->join == SQL_JOIN_LEFT && si > 0) {
        null_row(L, si);
        if (si + 1 < q->nsrc)
            return loop_level(L, si + 1);
        if (L->where) {
            rc = xeval_bool(&L->xe, L->where, L->row);
            if (rc <= 0)
                return rc;
        }
        if (L->dml)
            return 0;
        return L->fn(L->fn_arg, L->row);
    }
    return rc;
}

static int loop_run(xquery_t *q, const sql_expr_t *where, xrow_fn fn, xdml_fn dml, void *arg, int order_index,
                    bool order_desc)
{
    xloop_t L = {.q = q, .where = where, .fn = fn, .dml = dml, .fn_arg = arg, .order_index = order_index,
                 .order_desc = order_desc};
    sql_exec_ctx_t *x = q->x;
    xeval_init(&L.xe, x);
    L.xe.q = q;
    L.row = arena_calloc(x->arena, sizeof(value_t) * (q->width + 1));
    if (q->paths) {
        L.paths = (xpath_t *)q->paths; /* a prepared plan's (loop_level does not write them) */
    } else {
        L.paths = arena_calloc(x->arena, sizeof(xpath_t) * q->nsrc);
        for (uint32_t i = 0; i < q->nsrc; i++)
            choose_path(q, i, where, &L.paths[i], x->arena);
    }
    /* an ORDER BY index is used only when the outer access path is that index or a full scan */
    if (order_index >= 0 && L.paths[0].index >= 0 && L.paths[0].index != order_index)
        L.order_index = -1;
    /* a table read by a full scan, not in an index's order: SERVER_QUERY_NO_INDEX_USED, as MariaDB's JT_ALL */
    for (uint32_t i = 0; i < q->nsrc && x->ss; i++)
        if (L.paths[i].index < 0 && !(i == 0 && L.order_index >= 0))
            x->ss->no_index_used = true;
    if (q->nsrc == 0) {
        /* SELECT without FROM (in a UNION or a subquery): one row when WHERE holds */
        int rc = where ? xeval_bool(&L.xe, where, L.row) : 1;
        if (rc <= 0)
            return rc;
        rc = fn ? fn(arg, L.row) : 0;
        return rc > 0 ? 0 : rc;
    }
    int rc = xtrx(x, &L.trx);
    if (rc)
        return rc;
    rc = loop_level(&L, 0);
    return rc > 0 ? 0 : rc;
}

int xquery_run(xquery_t *q, const sql_expr_t *where, xrow_fn fn, void *arg, int order_index, bool order_desc)
{
    return loop_run(q, where, fn, NULL, arg, order_index, order_desc);
}

int xquery_scan_dml(xquery_t *q, const sql_expr_t *where, xdml_fn fn, void *arg, int order_index, bool order_desc)
{
    return loop_run(q, where, NULL, fn, arg, order_index, order_desc);
}

/* ---------------------------------------------------------------- groups */

struct xgroup {
    value_t *rep;             /* the group's first row (combined, copied) */
    sql_agg_t *aggs;            /* one accumulator per aggregate call (exec_agg.c) */
    buf_t key;
};

/* An accumulator's arguments evaluated in one row of the group (sql_agg_src_t). */
typedef struct agg_row {
    xeval_t *xe;
    const value_t *row;
} agg_row_t;

static int agg_row_eval(void *arg, const sql_expr_t *e, value_t *out)
{
    agg_row_t *r = arg;
    return xeval(r->xe, e, r->row, out);
}

/* ---------------------------------------------------------------- the SELECT pipeline */

typedef struct xitem {
    sql_expr_t *expr;
    const char *name;
    const char *alias;        /* AS name, NULL if none */
    int src_col;              /* slot of a plain column reference, else -1 */
} xitem_t;

typedef struct xorder {
    int item;                 /* ORDER BY / GROUP BY an item (alias or position), else -1 */
    sql_expr_t *expr;
    bool desc;
} xorder_t;

typedef struct xout {         /* one output row waiting for sort / distinct / limit */
    value_t *vals;
    uint8_t *key;
    size_t klen;
} xout_t;

typedef struct select_run {
    sql_exec_ctx_t *x;
    const sql_select_t *sel;
    xquery_t q;
    xitem_t *items;
    uint32_t nitems;
    xorder_t *order;
    uint32_t norder;
    xorder_t *group;
    uint32_t ngroup;
    bool aggregate;           /* GROUP BY or aggregate functions */
    bool need_sort;
    uint64_t limit, offset;
    /* collected rows */
    xout_t *outs;
    uint64_t nout, capout;
    xmap_t distinct;
    /* groups */
    xgroup_t **groups;
    uint64_t ngroups, capgroups;
    xmap_t gmap;
    xeval_t xe;
    uint64_t sent, skipped, total;
    bool streaming;
    res_col_t *cols;
    bool cols_sent;
    bool collect_only;        /* INSERT ... SELECT: keep rows, send nothing */
    arena_t *ga;              /* group / output storage */
    /* memory of large results (extsort.h) */
    arena_t rowa;             /* per-row (per-group) scratch: evaluation results (xe's arena), result cells */
    bool rowa_ok;
    extsort_t *osort;         /* ORDER BY: key = order key, payload = the items' values (xrow_pack) */
    bool osorted;             /* osort is finished and the rows are read from it, not from outs */
    /* ORDER BY ... LIMIT n: only the first OFFSET + n rows are kept, in a max-heap (MariaDB's priority queue) */
    struct xtop *top;         /* NULL: no LIMIT, or the heap outgrew sort_buffer_size (rows went to osort) */
    uint64_t topk, topn, topcap, topseq;
    size_t topmem;
    extsort_t *gsort;         /* GROUP BY rows whose group is not in memory: key = group key, payload = u32
                                 rollup level + the combined row */
    size_t gmem;              /* bytes the in-memory groups hold */
    extsort_t *dsort;         /* DISTINCT rows with a key first seen once the key set was full: key = the
                                 distinct key, payload = u32 order key length + order key + the values */
    size_t dmem;              /* bytes the DISTINCT key set holds */
    uint64_t ngroups_out;     /* groups produced (in memory + read back) */
    bool *need;               /* slots the query reads (select_run_need); NULL: all */
    bool plan_oix_set;        /* a prepared plan settled the ORDER BY index: */
    int plan_oix;             /* its number (-1: none) */
    bool plan_odesc;          /* read backwards */
} select_run_t;

#define XSORT_BUFFER_DEFAULT 2097152u  /* sort_buffer_size's default */
#define XTMP_TABLE_DEFAULT 16777216u   /* tmp_table_size's default */
#define XMAP_ENTRY_OVERHEAD 48u        /* a key's slot, pointers and length in xmap_t */

static size_t sort_budget(const sql_exec_ctx_t *x)
{
    return x->sort_buffer_size ? (size_t)x->sort_buffer_size : XSORT_BUFFER_DEFAULT;
}

static size_t tmp_budget(const sql_exec_ctx_t *x)
{
    return x->tmp_table_size ? (size_t)x->tmp_table_size : XTMP_TABLE_DEFAULT;
}

static extsort_t *xsort_new(select_run_t *s)
{
    extsort_t *e = mem_alloc(sizeof *e);
    extsort_init(e, sort_budget(s->x), s->x->tmpdir);
    return e;
}

/* Frees a sorter, adding what it did to the statement's status counters. */
static void xsort_done(select_run_t *s, extsort_t **e)
{
    if (!*e)
        return;
    s->x->stats.sort_merge_passes += (*e)->merge_passes;
    s->x->stats.tmp_files += (*e)->files_created;
    extsort_free(*e);
    mem_free(*e);
    *e = NULL;
}

/* An extsort failure (negative errno or STRATA_E*) as MySQL reports a temporary file it cannot write: 1026. */
static int xsort_err(select_run_t *s, int rc)
{
    int e = rc < 0 && rc > -10000 ? -rc : EIO;
    return diag_error(s->x->diag, ER_ERROR_ON_WRITE, s->x->tmpdir ? s->x->tmpdir : "/tmp", e, strerror(e));
}

static int item_by_name(select_run_t *s, const sql_expr_t *e)
{
    if (e->kind == SQL_E_LITERAL && (e->lit.type == VAL_INT || e->lit.type == VAL_UINT)) {
        int64_t pos = e->lit.type == VAL_INT ? e->lit.i : (int64_t)e->lit.u;
        if (pos >= 1 && (uint64_t)pos <= s->nitems)
            return (int)(pos - 1);
        return -2;
    }
    if (e->kind == SQL_E_COLUMN && !e->col.table)
        for (uint32_t i = 0; i < s->nitems; i++)
            if (s->items[i].alias && strcasecmp(s->items[i].alias, e->col.name) == 0)
                return (int)i;
    return -1;
}

static int resolve_orders(select_run_t *s, const sql_order_item_t *ob, sql_expr_t **gb, uint32_t n, xorder_t **out,
                          const char *clause)
{
    xorder_t *o = arena_calloc(s->x->arena, sizeof(xorder_t) * (n + 1));
    for (uint32_t i = 0; i < n; i++) {
        sql_expr_t *e = ob ? ob[i].expr : gb[i];
        o[i].desc = ob ? ob[i].desc : false;
        o[i].item = item_by_name(s, e);
        if (o[i].item == -2) {
            char pos[32];
            snprintf(pos, sizeof pos, "%lld", (long long)(e->lit.type == VAL_INT ? e->lit.i : (int64_t)e->lit.u));
            return diag_error(s->x->diag, ER_BAD_FIELD_ERROR, pos, clause);
        }
        if (o[i].item < 0) {
            o[i].expr = e;
            int rc = xbind(&s->q, e, clause, ob != NULL);
            if (rc)
                return rc;
        }
    }
    *out = o;
    return 0;
}

/* Evaluates the select items for a row (or a group). */
static int eval_items(select_run_t *s, const value_t *row, value_t *vals)
{
    for (uint32_t i = 0; i < s->nitems; i++) {
        int rc = xeval(&s->xe, s->items[i].expr, row, &vals[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* ENUM and SET columns sort by their number (index / mask), as MySQL does, though rows carry their names. */
static value_t sort_value(select_run_t *s, const sql_expr_t *e, value_t v)
{
    if (!e || e->kind != SQL_E_COLUMN || e->slot < 0 || v.type != VAL_STRING)
        return v;
    for (uint32_t k = 0; k < s->q.nsrc; k++) {
        const xsrc_t *src = &s->q.src[k];
        if ((uint32_t)e->slot < src->base || (uint32_t)e->slot >= src->base + src->t->ncols || src->is_virtual)
            continue;
        const cat_column_t *c = &src->t->cols[(uint32_t)e->slot - src->base];
        if (c->rc.type == SQLT_ENUM) {
            for (uint32_t i = 0; i < c->nelems; i++)
                if (strlen(c->elems[i]) == v.s.len && memcmp(c->elems[i], v.s.ptr, v.s.len) == 0)
                    return value_uint(i + 1);
            return value_uint(0);
        }
        if (c->rc.type == SQLT_SET) {
            uint64_t m = 0;
            size_t i = 0;
            while (i < v.s.len) {
                size_t j = i;
                while (j < v.s.len && v.s.ptr[j] != ',')
                    j++;
                for (uint32_t q = 0; q < c->nelems && q < 64; q++)
                    if (strlen(c->elems[q]) == j - i && memcmp(c->elems[q], v.s.ptr + i, j - i) == 0)
                        m |= 1ull << q;
                i = j + 1;
            }
            return value_uint(m);
        }
    }
    return v;
}

static int order_key(select_run_t *s, const value_t *row, const value_t *vals, buf_t *k)
{
    for (uint32_t i = 0; i < s->norder; i++) {
        value_t v;
        const sql_expr_t *e;
        if (s->order[i].item >= 0) {
            v = vals[s->order[i].item];
            e = s->items[s->order[i].item].expr;
        } else {
            e = s->order[i].expr;
            int rc = xeval(&s->xe, e, row, &v);
            if (rc)
                return rc;
        }
        v = sort_value(s, e, v);
        xkey_append(k, &v, s->order[i].desc);
    }
    return 0;
}

static void send_columns(select_run_t *s)
{
    if (!s->cols_sent && !s->collect_only) {
        uint16_t rc = s->x->result_coll;
        if (rc && rc != COLL_BINARY && value_coll_mbmaxlen(rc) == 1)
            for (uint32_t i = 0; i < s->nitems; i++) {
                /* names come from the (utf8mb4) statement text: a latin1 client reads them in latin1 */
                size_t n, bad;
                if (s->cols[i].name)
                    s->cols[i].name = sql_str_convert(s->x->arena, s->cols[i].name, strlen(s->cols[i].name),
                                                      COLL_UTF8MB4_GENERAL_CI, rc, &n, &bad);
            }
        s->x->sink->columns(s->x->sink, s->cols, (int)s->nitems);
        s->cols_sent = true;
    }
}

static void item_col(select_run_t *s, uint32_t i, const value_t *first, res_col_t *c);

static void send_row(select_run_t *s, const value_t *vals)
{
    sql_exec_ctx_t *x = s->x;
    arena_t *ra = s->rowa_ok ? &s->rowa : x->arena; /* the sink copies the cells at once */
    if (!s->cols_sent && s->cols && s->sel)
        for (uint32_t i = 0; i < s->nitems; i++)
            if (s->items && s->items[i].src_col < 0)
                item_col(s, i, &vals[i], &s->cols[i]); /* the first row settles an expression's type */
    send_columns(s);
    res_cell_t *cells = arena_alloc(ra, sizeof(res_cell_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++) {
        cells[i].null = vals[i].type == VAL_NULL;
        cells[i].p = "";
        cells[i].len = 0;
        if (cells[i].null)
            continue;
        if (s->cols && s->cols[i].type == MYSQL_TYPE_BIT && (vals[i].type == VAL_UINT || vals[i].type == VAL_INT)) {
            /* BIT(M) goes out as its ceil(M/8) bytes, big-endian, as MySQL sends it */
            uint32_t nb = (s->cols[i].length + 7) / 8;
            nb = nb ? MIN(nb, 8u) : 1;
            char *p = arena_alloc(ra, nb);
            for (uint32_t k = 0; k < nb; k++)
                p[k] = (char)(vals[i].u >> (8 * (nb - 1 - k)));
            cells[i].p = p;
            cells[i].len = nb;
            continue;
        }
        if (vals[i].type == VAL_STRING && x->result_coll && x->result_coll != COLL_BINARY &&
            vals[i].coll != COLL_BINARY && vals[i].coll != x->result_coll) {
            /* strings go out in character_set_results (a latin1 column to a utf8mb4 client, and back) */
            size_t bad;
            cells[i].p = sql_str_convert(ra, vals[i].s.ptr, vals[i].s.len, vals[i].coll, x->result_coll,
                                         &cells[i].len, &bad);
            continue;
        }
        if (s->cols && (s->cols[i].type == MYSQL_TYPE_NEWDECIMAL ||
                        (s->cols[i].type == MYSQL_TYPE_DATETIME && vals[i].type == VAL_DATE))) {
            /* a DECIMAL column shows every value with its scale (COALESCE(SUM(x), 0) over no rows: 0.00), a
             * DATETIME column a DATE at midnight (COALESCE(date, datetime)) */
            value_t v = sql_rtype_format(ra, s->cols[i].type, s->cols[i].decimals, &vals[i]);
            cells[i].p = value_to_text(ra, &v, &cells[i].len);
            continue;
        }
        cells[i].p = value_to_text(ra, &vals[i], &cells[i].len);
    }
    x->sink->row(x->sink, cells);
}

/* One row in the LIMIT heap: key + payload in one allocation, seq = arrival (ties keep the earlier row). */
typedef struct xtop {
    uint8_t *rec;
    size_t klen, plen;
    uint64_t seq;
} xtop_t;

static int top_cmp(const xtop_t *a, const xtop_t *b)
{
    int r = memcmp(a->rec, b->rec, MIN(a->klen, b->klen));
    if (r == 0)
        r = a->klen < b->klen ? -1 : a->klen > b->klen;
    return r ? r : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

static void top_down(xtop_t *h, uint64_t n, uint64_t i)
{
    for (;;) {
        uint64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && top_cmp(&h[l], &h[m]) > 0)
            m = l;
        if (r < n && top_cmp(&h[r], &h[m]) > 0)
            m = r;
        if (m == i)
            return;
        xtop_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int top_cmp_qsort(const void *a, const void *b) { return top_cmp(a, b); }
static int top_seq_qsort(const void *a, const void *b)
{
    const xtop_t *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void top_free(select_run_t *s)
{
    if (!s->top)
        return;
    for (uint64_t i = 0; i < s->topn; i++)
        mem_free(s->top[i].rec);
    mem_free(s->top);
    s->top = NULL;
    s->topn = 0;
}

/* Moves the heap's rows into s->osort: in arrival order (the heap outgrew its budget: the sort goes on there,
 * stable) or in sorted order (the end of a LIMIT sort). */
static int top_flush(select_run_t *s, bool sorted)
{
    if (s->topn > 1)
        qsort(s->top, s->topn, sizeof *s->top, sorted ? top_cmp_qsort : top_seq_qsort);
    if (!s->osort)
        s->osort = xsort_new(s);
    int rc = 0;
    for (uint64_t i = 0; i < s->topn && !rc; i++)
        rc = extsort_add(s->osort, s->top[i].rec, s->top[i].klen, s->top[i].rec + s->top[i].klen, s->top[i].plen);
    top_free(s);
    return rc ? xsort_err(s, rc) : 0;
}

/* Offers a row (order key + payload in k) to the LIMIT heap. */
static int top_add(select_run_t *s, const buf_t *k, size_t kl)
{
    xtop_t t = {.klen = kl, .plen = k->len - kl, .seq = s->topseq++};
    if (s->topn == s->topk) {
        t.rec = (uint8_t *)k->data; /* compared in place: copied only if it goes in */
        if (top_cmp(&t, &s->top[0]) >= 0)
            return 0;
        s->topmem -= s->top[0].klen + s->top[0].plen;
        mem_free(s->top[0].rec);
        t.rec = mem_alloc(k->len ? k->len : 1);
        memcpy(t.rec, k->data, k->len);
        s->top[0] = t;
        top_down(s->top, s->topn, 0);
    } else {
        if (s->topn == s->topcap) {
            s->topcap = MIN(s->topk, s->topcap * 2);
            s->top = mem_realloc(s->top, sizeof(xtop_t) * s->topcap);
        }
        t.rec = mem_alloc(k->len ? k->len : 1);
        memcpy(t.rec, k->data, k->len);
        uint64_t i = s->topn++;
        s->top[i] = t;
        while (i > 0 && top_cmp(&s->top[(i - 1) / 2], &s->top[i]) < 0) {
            xtop_t x = s->top[i];
            s->top[i] = s->top[(i - 1) / 2];
            s->top[(i - 1) / 2] = x;
            i = (i - 1) / 2;
        }
    }
    s->topmem += k->len + sizeof(xtop_t);
    if (s->topmem > sort_budget(s->x))
        return top_flush(s, false); /* too big for a priority queue: an ordinary (external) sort */
    return 0;
}

/* A row past DISTINCT: straight out (streaming), into the ORDER BY sort, or kept.  okey: its order key when
 * already computed (rows read back from the DISTINCT sort have no source row any more).  1 = LIMIT reached. */
static int out_row_unique(select_run_t *s, const value_t *row, const value_t *vals, const uint8_t *okey, size_t oklen)
{
    s->total++;
    if (s->streaming) {
        if (s->skipped < s->offset) {
            s->skipped++;
            return 0;
        }
        if (s->sent >= s->limit)
            return s->sel->calc_found_rows ? 0 : 1;
        send_row(s, vals);
        s->sent++;
        if (s->sent >= s->limit && !s->sel->calc_found_rows)
            return 1;
        return 0;
    }
    if (s->need_sort) {
        buf_t k;
        buf_init(&k);
        int rc = 0;
        if (okey)
            buf_append(&k, okey, oklen);
        else
            rc = order_key(s, row, vals, &k);
        size_t kl = k.len;
        if (rc == 0) {
            xrow_pack(&k, vals, s->nitems);
            if (s->top) {
                rc = top_add(s, &k, kl);
            } else {
                if (!s->osort)
                    s->osort = xsort_new(s);
                if ((rc = extsort_add(s->osort, k.data, kl, k.data + kl, k.len - kl)) != 0)
                    rc = xsort_err(s, rc);
            }
        }
        buf_free(&k);
        if (rc == 0)
            s->nout++;
        return rc;
    }
    if (s->nout == s->capout) {
        s->capout = s->capout ? s->capout * 2 : 64;
        s->outs = mem_realloc(s->outs, sizeof(xout_t) * s->capout);
    }
    xout_t *o = &s->outs[s->nout++];
    o->vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++)
        o->vals[i] = xvalue_copy(s->ga, &vals[i]);
    o->key = NULL;
    o->klen = 0;
    return 0;
}

/* A finished output row: DISTINCT first.  While the key set fits tmp_table_size it decides alone; after that,
 * rows with keys it does not hold go to s->dsort and are de-duplicated when read back (distinct_drain). */
static int out_row(select_run_t *s, const value_t *row, value_t *vals)
{
    if (s->sel->distinct) {
        buf_t k;
        buf_init(&k);
        for (uint32_t i = 0; i < s->nitems; i++)
            xkey_append(&k, &vals[i], false);
        if (!s->dsort) {
            bool added;
            xmap_put(&s->distinct, k.data, k.len, &added);
            if (added) {
                s->dmem += k.len + XMAP_ENTRY_OVERHEAD;
                if (s->dmem > tmp_budget(s->x)) {
                    s->dsort = xsort_new(s);
                    s->x->stats.tmp_disk_tables++;
                }
            }
            buf_free(&k);
            if (!added)
                return 0;
        } else {
            int rc = 0;
            if (xmap_find(&s->distinct, k.data, k.len) < 0) {
                buf_t pay;
                buf_init(&pay);
                uint32_t ol = 0;
                buf_append(&pay, &ol, 4);
                if (s->need_sort && (rc = order_key(s, row, vals, &pay)) == 0) {
                    ol = (uint32_t)(pay.len - 4);
                    memcpy(pay.data, &ol, 4);
                }
                if (rc == 0) {
                    xrow_pack(&pay, vals, s->nitems);
                    if ((rc = extsort_add(s->dsort, k.data, k.len, pay.data, pay.len)) != 0)
                        rc = xsort_err(s, rc);
                }
                buf_free(&pay);
            }
            buf_free(&k);
            return rc;
        }
    }
    return out_row_unique(s, row, vals, NULL, 0);
}

/* The DISTINCT rows that went to disk: sorted by key, the first of each key goes on. */
static int distinct_drain(select_run_t *s)
{
    if (!s->dsort)
        return 0;
    int rc = extsort_finish(s->dsort);
    if (rc)
        return xsort_err(s, rc);
    buf_t last;
    buf_init(&last);
    bool have = false;
    value_t *vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
    const uint8_t *k, *p;
    size_t kl, pl;
    int n;
    while ((n = extsort_next(s->dsort, &k, &kl, &p, &pl)) == 1) {
        if (have && last.len == kl && memcmp(last.data, k, kl) == 0)
            continue;
        buf_reset(&last);
        buf_append(&last, k, kl);
        have = true;
        arena_reset(&s->rowa);
        uint32_t ol;
        memcpy(&ol, p, 4);
        xrow_unpack(&s->rowa, p + 4 + ol, vals, s->nitems);
        rc = out_row_unique(s, NULL, vals, s->need_sort ? p + 4 : NULL, ol);
        if (rc)
            break;
    }
    buf_free(&last);
    if (n < 0)
        return xsort_err(s, n);
    return rc < 0 ? rc : 0;
}

static int on_row(void *arg, const value_t *row)
{
    select_run_t *s = arg;
    arena_reset(&s->rowa);
    if (s->aggregate) {
        buf_t k;
        buf_init(&k);
        size_t *cut = arena_alloc(&s->rowa, sizeof(size_t) * (s->ngroup + 1));
        for (uint32_t i = 0; i < s->ngroup; i++) {
            value_t v;
            cut[i] = k.len;
            const sql_expr_t *ge = s->group[i].item >= 0 ? s->items[s->group[i].item].expr : s->group[i].expr;
            int rc = xeval(&s->xe, ge, row, &v);
            if (rc) {
                buf_free(&k);
                return rc;
            }
            v = sort_value(s, ge, v);
            xkey_append(&k, &v, s->sel->group_desc && s->sel->group_desc[i]); /* GROUP BY x DESC (MariaDB) */
        }
        /* WITH ROLLUP: the row also counts in one super-aggregate group per level; their keys are the prefix
         * of the level's columns and 0xFF, which sorts after every group under that prefix */
        int levels = s->sel->with_rollup ? (int)s->ngroup : 0;
        for (int lv = (int)s->ngroup; lv >= (int)s->ngroup - levels && lv >= 0; lv--) {
            buf_t lk;
            buf_init(&lk);
            if (lv == (int)s->ngroup) {
                buf_append(&lk, k.data, k.len);
            } else {
                buf_append(&lk, k.data, cut[lv]);
                buf_append_byte(&lk, 0xFF);
            }
            bool added = false;
            int64_t gi;
            if (!s->gsort) {
                gi = xmap_put(&s->gmap, lk.data, lk.len, &added);
            } else if ((gi = xmap_find(&s->gmap, lk.data, lk.len)) < 0) {
                /* over tmp_table_size: a row of a group not in memory is sorted aside with its level */
                buf_t pay;
                buf_init(&pay);
                uint32_t l32 = (uint32_t)lv;
                buf_append(&pay, &l32, 4);
                xrow_pack(&pay, row, s->q.width);
                int rc = extsort_add(s->gsort, lk.data, lk.len, pay.data, pay.len);
                buf_free(&pay);
                buf_free(&lk);
                if (rc) {
                    buf_free(&k);
                    return xsort_err(s, rc);
                }
                continue;
            }
            if (added) {
                if (s->ngroups == s->capgroups) {
                    s->capgroups = s->capgroups ? s->capgroups * 2 : 16;
                    s->groups = mem_realloc(s->groups, sizeof(xgroup_t *) * s->capgroups);
                }
                xgroup_t *g = arena_calloc(s->ga, sizeof *g);
                g->rep = arena_calloc(s->ga, sizeof(value_t) * (s->q.width + s->nitems + 1));
                for (uint32_t i = 0; i < s->q.width; i++)
                    g->rep[i] = xvalue_copy(s->ga, &row[i]);
                /* a super-aggregate row shows NULL for the columns rolled up */
                for (uint32_t j = (uint32_t)lv; j < s->ngroup; j++) {
                    const sql_expr_t *ge = s->group[j].item >= 0 ? s->items[s->group[j].item].expr : s->group[j].expr;
                    if (ge->kind == SQL_E_COLUMN && ge->slot >= 0)
                        g->rep[ge->slot] = value_null();
                }
                g->aggs = arena_alloc(s->ga, sizeof(sql_agg_t) * (s->q.nagg + 1));
                for (uint32_t i = 0; i < s->q.nagg; i++)
                    sql_agg_init(&g->aggs[i]);
                buf_init(&g->key);
                buf_append(&g->key, lk.data, lk.len);
                s->groups[s->ngroups++] = g;
                s->gmem += sizeof *g + xrow_size(g->rep, s->q.width) + sizeof(value_t) * (s->nitems + 1) +
                           sizeof(sql_agg_t) * (s->q.nagg + 1) + 2 * lk.len + XMAP_ENTRY_OVERHEAD + sizeof(xgroup_t *);
                if (s->gmem > tmp_budget(s->x)) {
                    s->gsort = xsort_new(s);
                    s->x->stats.tmp_disk_tables++;
                }
            }
            buf_free(&lk);
            xgroup_t *g = s->groups[gi];
            agg_row_t ar = {&s->xe, row};
            sql_agg_src_t src = {agg_row_eval, &ar, s->ga, s->x->diag, s->x->group_concat_max_len};
            for (uint32_t i = 0; i < s->q.nagg; i++) {
                int rc = sql_agg_add(&g->aggs[i], s->q.aggs[i], &src);
                if (rc) {
                    buf_free(&k);
                    return rc;
                }
            }
        }
        buf_free(&k);
        return 0;
    }
    value_t *vals = arena_alloc(&s->rowa, sizeof(value_t) * (s->nitems + 1));
    int rc = eval_items(s, row, vals);
    if (rc)
        return rc;
    if (s->sel->having) {
        value_t *ext = arena_alloc(&s->rowa, sizeof(value_t) * (s->q.width + s->nitems + 1));
        memcpy(ext, row, sizeof(value_t) * s->q.width);
        memcpy(ext + s->q.width, vals, sizeof(value_t) * s->nitems);
        rc = xeval_bool(&s->xe, s->sel->having, ext);
        if (rc <= 0)
            return rc;
    }
    return out_row(s, row, vals);
}

static int cmp_group(const void *a, const void *b)
{
    const xgroup_t *x = *(xgroup_t *const *)a, *y = *(xgroup_t *const *)b;
    size_t n = MIN(x->key.len, y->key.len);
    int r = memcmp(x->key.data, y->key.data, n);
    return r ? r : (x->key.len < y->key.len ? -1 : x->key.len > y->key.len);
}

static int cmp_out(const void *a, const void *b)
{
    const xout_t *x = a, *y = b;
    size_t n = MIN(x->klen, y->klen);
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->klen < y->klen ? -1 : x->klen > y->klen);
}

/* sql_type_infer()'s view of a bound column: its catalog type (nullable under the inner side of a LEFT JOIN). */
static int select_run_col_type(void *u, const sql_expr_t *col, sql_rtype_t *out)
{
    const select_run_t *s = u;
    uint32_t slot = (uint32_t)col->slot;
    for (uint32_t k = 0; k < s->q.nsrc; k++) {
        const xsrc_t *src = &s->q.src[k];
        if (slot < src->base || slot >= src->base + src->t->ncols)
            continue;
        const cat_column_t *cc = &src->t->cols[slot - src->base];
        res_col_t c;
        xcol_meta(&c, src->t, slot - src->base, "", "", "");
        memset(out, 0, sizeof *out);
        out->type = c.type;
        out->coll = c.charset;
        out->dec = c.decimals;
        out->len = c.length;
        out->unsig = (c.flags & COLF_UNSIGNED) != 0;
        out->nullable = !(c.flags & COLF_NOT_NULL) || (src->join == SQL_JOIN_LEFT && k > 0);
        if (c.flags & COLF_ENUM)
            out->flags |= COLF_ENUM;
        if (c.flags & COLF_SET)
            out->flags |= COLF_SET;
        sqlt_t ty = (sqlt_t)cc->rc.type;
        if (sqlt_is_int(ty))
            out->prec = c.length - (out->unsig ? 0 : 1);
        else if (ty == SQLT_DECIMAL)
            out->prec = cc->rc.len;
        else if (c.charset != COLL_BINARY && (sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET)) {
            uint32_t mb = value_coll_mbmaxlen(c.charset);
            out->len = mb ? c.length / mb : c.length;
        }
        return 0;
    }
    return -1;
}

/* Whether e reads a column outside any aggregate call. */
static bool col_outside_agg(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_COLUMN)
        return true;
    if (e->kind == SQL_E_FUNC && sql_expr_is_aggregate(e))
        return false;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (col_outside_agg(e->args[i]))
            return true;
    return col_outside_agg(e->else_expr);
}

/* The static type of a select item (false: only its values will tell). */
static bool select_run_infer(const select_run_t *s, const sql_expr_t *e, sql_rtype_t *rt)
{
    sql_typeinf_env_t env = {.column = select_run_col_type, .user = (void *)s, .conn_coll = s->x->conn_coll,
                             .div_precision_increment = s->x->div_precision_increment};
    if (e->kind == SQL_E_FUNC && (e->func.fn == SQL_FN_MIN || e->func.fn == SQL_FN_MAX) && e->nargs == 1 &&
        e->args[0]->kind == SQL_E_COLUMN) {
        /* MIN/MAX of a string, ENUM, SET or BIT column keep the column's own definition (item_col) */
        sql_rtype_t c;
        if (!sql_type_infer(&env, e->args[0], &c) || c.coll != COLL_BINARY || c.type == MYSQL_TYPE_BIT ||
            c.type == MYSQL_TYPE_STRING || c.type == MYSQL_TYPE_VAR_STRING || c.type == MYSQL_TYPE_BLOB)
            return false;
    }
    if (!sql_type_infer(&env, e, rt))
        return false;
    if (s->aggregate && s->ngroup == 0 && col_outside_agg(e))
        rt->nullable = true; /* aggregates without GROUP BY: over no rows the other items are NULL */
    return true;
}

/* Result column metadata of item i. */
static void item_col(select_run_t *s, uint32_t i, const value_t *first, res_col_t *c)
{
    int slot = s->items[i].src_col;
    if (slot >= 0) {
        for (uint32_t k = 0; k < s->q.nsrc; k++) {
            const xsrc_t *src = &s->q.src[k];
            if ((uint32_t)slot >= src->base && (uint32_t)slot < src->base + src->t->ncols) {
                if (src->dcols) {
                    /* a merged derived table's column is its select item (already in the results' charset) */
                    *c = src->dcols[(uint32_t)slot - src->base];
                    c->name = s->items[i].name;
                    c->table = c->org_table = src->alias;
                    if (src->join == SQL_JOIN_LEFT && k > 0)
                        c->flags &= (uint16_t)~COLF_NOT_NULL;
                    return;
                }
                xcol_meta_results(s->x, c, src->t, (uint32_t)slot - src->base, src->db, src->alias, s->items[i].name);
                if (src->join == SQL_JOIN_LEFT && k > 0)
                    c->flags &= (uint16_t)~COLF_NOT_NULL;
                return;
            }
        }
    }
    const sql_expr_t *e = s->items[i].expr;
    sql_rtype_t rt;
    sql_col_meta_t m;
    bool known = select_run_infer(s, e, &rt);
    if (known) {
        sql_rtype_meta(&rt, &m);
        goto fill;
    }
    /* aggregates over a column: MariaDB derives their type from the column */
    if (e->kind == SQL_E_FUNC && e->nargs == 1 && e->args[0]->kind == SQL_E_COLUMN && e->args[0]->slot >= 0 &&
        !e->func.distinct) {
        int as = e->args[0]->slot;
        for (uint32_t k = 0; k < s->q.nsrc; k++) {
            const xsrc_t *src = &s->q.src[k];
            if ((uint32_t)as < src->base || (uint32_t)as >= src->base + src->t->ncols)
                continue;
            const cat_column_t *cc = &src->t->cols[(uint32_t)as - src->base];
            sqlt_t ty = (sqlt_t)cc->rc.type;
            if (e->func.fn == SQL_FN_MIN || e->func.fn == SQL_FN_MAX) {
                xcol_meta_results(s->x, c, src->t, (uint32_t)as - src->base, "", "", s->items[i].name);
                c->schema = c->table = c->org_table = c->org_name = "";
                c->flags &= (uint16_t)(COLF_UNSIGNED | COLF_BINARY | COLF_NUM | COLF_ZEROFILL | COLF_BLOB);
                if (sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET)
                    c->decimals = 39; /* MariaDB's NOT_FIXED_DEC on string results */
                return;
            }
            if ((e->func.fn == SQL_FN_SUM || e->func.fn == SQL_FN_AVG) && (sqlt_is_int(ty) || ty == SQLT_DECIMAL)) {
                uint32_t prec = ty == SQLT_DECIMAL ? cc->rc.len : (cc->display_width ? cc->display_width : 11);
                uint32_t sc = ty == SQLT_DECIMAL ? cc->rc.scale : 0;
                if (e->func.fn == SQL_FN_AVG)
                    sc += s->x->div_precision_increment ? s->x->div_precision_increment : 4;
                memset(c, 0, sizeof *c);
                c->schema = c->table = c->org_table = c->org_name = "";
                c->name = s->items[i].name;
                c->type = MYSQL_TYPE_NEWDECIMAL;
                c->charset = CHARSET_BINARY;
                c->decimals = (uint8_t)sc;
                c->length = e->func.fn == SQL_FN_SUM ? prec + 22 + (sc ? 1 : 0) + 1 : prec + 4 + (sc ? 1 : 0);
                c->flags = COLF_BINARY | COLF_NUM;
                return;
            }
        }
    }
    sql_item_meta(e, first, &m);
fill:
    memset(c, 0, sizeof *c);
    c->schema = c->table = c->org_table = c->org_name = "";
    c->name = s->items[i].name;
    c->type = m.type;
    c->charset = m.coll;
    c->length = m.length;
    c->decimals = m.decimals;
    c->flags = m.flags;
    if (e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_COUNT)
        c->flags |= COLF_NOT_NULL;
    if (!known && e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_GROUP_CONCAT) {
        /* group_concat_max_len (1M) is over 512: MariaDB makes it a BLOB-typed text column */
        c->type = MYSQL_TYPE_BLOB;
        c->decimals = 0;
        c->flags &= (uint16_t)~COLF_NOT_NULL;
    }
    if (c->charset != CHARSET_BINARY && s->x->result_coll == COLL_BINARY)
        c->charset = CHARSET_BINARY;
    if (c->charset != CHARSET_BINARY && s->x->result_coll && s->x->result_coll != COLL_BINARY &&
        c->charset != s->x->result_coll) {
        uint32_t from = value_coll_mbmaxlen(c->charset), to = value_coll_mbmaxlen(s->x->result_coll);
        c->length = (uint32_t)MIN((uint64_t)(from ? c->length / from : c->length) * to, 4294967295ull);
        c->charset = s->x->result_coll;
    }
}

/* Sets up items (with * expanded), binds everything, decides streaming vs sorting. */
/* First step of preparing a SELECT: its tables opened (metadata locks, catalog references) and how it locks. */
static int select_run_open(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, bool member)
{
    memset(s, 0, sizeof *s);
    s->x = x;
    s->sel = sel;
    s->ga = x->arena;
    arena_init(&s->rowa, 8192);
    s->rowa_ok = true;
    int rc;
    if (sel->union_next && !member)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "UNION here");
    if (!sel->from) {
        memset(&s->q, 0, sizeof s->q);
        s->q.x = x;
    } else if ((rc = xquery_from(&s->q, x, sel->from)) != 0) {
        return rc;
    }
    s->q.locking = sel->lock != SQL_LOCK_NONE;
    s->q.lock_shared = sel->lock == SQL_LOCK_FOR_SHARE;
    if (!s->q.locking && ((x->isolation == 3 && x->ss && (!x->autocommit || x->ss->explicit_begin)) ||
                          (x->insert_select && x->isolation >= 2))) {
        /* SERIALIZABLE inside a transaction: plain reads are LOCK IN SHARE MODE reads (InnoDB's rule; an
         * autocommit SELECT stays a consistent read).  INSERT ... SELECT at REPEATABLE READ or above reads its
         * sources with shared next-key locks (InnoDB's rule, so the statement is replayed identically). */
        s->q.locking = true;
        s->q.lock_shared = true;
    }
    return 0;
}

/* Marks in need[] (slots of the combined row below width) the columns e reads.  False when e reads what binding
 * does not see: a subquery (bound when it runs, maybe correlated) or an outer reference. */
static bool expr_needs(const sql_expr_t *e, bool *need, uint32_t width)
{
    if (!e)
        return true;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED || e->kind == SQL_E_STAR ||
        (e->kind == SQL_E_IN && e->sub))
        return false;
    if (e->kind == SQL_E_COLUMN) {
        if (e->slot < 0)
            return false;
        if ((uint32_t)e->slot < width) /* (above: a HAVING reference to a select item) */
            need[e->slot] = true;
        return true;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!expr_needs(e->args[i], need, width))
            return false;
    for (uint32_t i = 0; i < e->nagg_order; i++)
        if (!expr_needs(e->agg_order[i].expr, need, width))
            return false;
    return expr_needs(e->else_expr, need, width);
}

/* The columns of each source the bound SELECT reads (xsrc_t.need), so an index holding them all can be read
 * alone.  Left NULL (everything) when some expression hides what it reads. */
static void select_run_need(select_run_t *s)
{
    const sql_select_t *sel = s->sel;
    bool *need = arena_calloc(s->x->arena, s->q.width + 1);
    bool ok = expr_needs(sel->where, need, s->q.width) && expr_needs(sel->having, need, s->q.width);
    for (uint32_t i = 0; i < s->nitems && ok; i++)
        ok = expr_needs(s->items[i].expr, need, s->q.width);
    for (uint32_t i = 0; i < s->q.nsrc && ok; i++)
        ok = expr_needs(s->q.src[i].on, need, s->q.width);
    for (uint32_t i = 0; i < s->ngroup && ok; i++)
        ok = s->group[i].item >= 0 || expr_needs(s->group[i].expr, need, s->q.width);
    for (uint32_t i = 0; i < s->norder && ok; i++)
        ok = s->order[i].item >= 0 || expr_needs(s->order[i].expr, need, s->q.width);
    s->need = ok ? need : NULL;
    for (uint32_t i = 0; i < s->q.nsrc; i++)
        s->q.src[i].need = ok ? need + s->q.src[i].base : NULL;
}

/* Second step: the select items (* expanded) and every clause bound to the opened sources. */
static int select_run_bind(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    const sql_select_t *sel = s->sel;
    int rc;
    uint32_t n = 0;
    for (uint32_t i = 0; i < sel->nitems; i++) {
        const sql_expr_t *e = sel->items[i].expr;
        if (e->kind == SQL_E_STAR) {
            for (uint32_t k = 0; k < s->q.nsrc; k++)
                if (!e->col.table || strcmp(e->col.table, s->q.src[k].alias) == 0)
                    n += s->q.src[k].t->ncols;
        } else {
            n++;
        }
    }
    s->items = arena_calloc(x->arena, sizeof(xitem_t) * (n + 1));
    for (uint32_t i = 0; i < sel->nitems; i++) {
        sql_expr_t *e = sel->items[i].expr;
        if (e->kind == SQL_E_STAR) {
            bool any = false;
            for (uint32_t k = 0; k < s->q.nsrc; k++) {
                const xsrc_t *src = &s->q.src[k];
                if (e->col.table && strcmp(e->col.table, src->alias) != 0)
                    continue;
                any = true;
                /* unqualified * over USING / NATURAL joins: common columns first, once */
                bool coalesce = !e->col.table && (src->lead || src->hidden);
                for (uint32_t pass = coalesce ? 0 : 1; pass < 2; pass++)
                for (uint32_t c = 0; c < src->t->ncols; c++) {
                    if (coalesce && ((pass == 0) != (src->lead && src->lead[c])))
                        continue;
                    if (coalesce && src->hidden && src->hidden[c])
                        continue;
                    if (src->t->cols[c].invisible)
                        continue; /* INVISIBLE: only when named */
                    sql_expr_t *ce = arena_calloc(x->arena, sizeof *ce);
                    ce->kind = SQL_E_COLUMN;
                    ce->col.name = src->t->cols[c].name;
                    ce->slot = (int32_t)(src->base + c);
                    ce->src = ce->col.name;
                    ce->src_len = (uint32_t)strlen(ce->col.name);
                    xitem_t *it = &s->items[s->nitems++];
                    it->expr = ce;
                    it->name = src->t->cols[c].name;
                    it->src_col = ce->slot;
                }
            }
            if (!any)
                return diag_error(x->diag, ER_BAD_TABLE_ERROR,
                                  arena_printf(x->arena, "%s.%s", e->col.db ? e->col.db : (x->db ? x->db : ""),
                                               e->col.table ? e->col.table : "*"));
            continue;
        }
        if ((rc = xbind(&s->q, e, "SELECT", true)) != 0)
            return rc;
        xitem_t *it = &s->items[s->nitems++];
        it->expr = e;
        /* a column reference is named by its column (u.name -> name), as MariaDB does */
        it->name = !sel->items[i].alias && e->kind == SQL_E_COLUMN ? e->col.name : sql_item_name(x->arena, &sel->items[i]);
        it->alias = sel->items[i].alias;
        it->src_col = e->kind == SQL_E_COLUMN ? e->slot : -1;
    }
    for (uint32_t k = 0; k < s->q.nsrc; k++)
        if (s->q.src[k].on && (rc = xbind(&s->q, (sql_expr_t *)s->q.src[k].on, "ON", false)) != 0)
            return rc;
    if ((rc = xbind(&s->q, sel->where, "WHERE", false)) != 0)
        return rc;
    if ((rc = resolve_orders(s, NULL, sel->group_by, sel->ngroup_by, &s->group, "GROUP BY")) != 0)
        return rc;
    s->ngroup = sel->ngroup_by;
    if (sel->having) {
        s->q.alias_names = arena_calloc(x->arena, sizeof(char *) * (s->nitems + 1));
        s->q.nalias = s->nitems;
        for (uint32_t i = 0; i < s->nitems; i++)
            s->q.alias_names[i] = s->items[i].alias;
        rc = xbind(&s->q, sel->having, "HAVING", true);
        s->q.alias_names = NULL;
        if (rc)
            return rc;
    }
    if ((rc = resolve_orders(s, sel->order_by, NULL, sel->norder_by, &s->order, "ORDER BY")) != 0)
        return rc;
    s->norder = sel->norder_by;
    s->aggregate = s->ngroup > 0 || s->q.nagg > 0;
    select_run_need(s);
    return 0;
}

/* Last step: the evaluation context, and LIMIT / OFFSET (which may be parameters). */
static int select_run_limits(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    const sql_select_t *sel = s->sel;
    int rc;
    s->limit = UINT64_MAX;
    xeval_init(&s->xe, x);
    s->xe.q = &s->q;
    s->xe.ev.arena = &s->rowa; /* what is kept beyond a row is copied (xvalue_copy, xrow_pack) */
    if (sel->limit.count) {
        value_t v;
        if ((rc = xeval(&s->xe, sel->limit.count, NULL, &v)) != 0)
            return rc;
        s->limit = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    if (sel->limit.offset) {
        value_t v;
        if ((rc = xeval(&s->xe, sel->limit.offset, NULL, &v)) != 0)
            return rc;
        s->offset = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    return 0;
}

static int select_run_prepare(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, bool member)
{
    int rc = select_run_open(s, x, sel, member);
    if (rc == 0)
        rc = select_run_bind(s);
    if (rc == 0)
        rc = select_run_limits(s);
    return rc;
}

/* Does ORDER BY follow an index of the single source (after the columns WHERE fixes)?  Returns its number. */
static int order_index(select_run_t *s, bool *desc)
{
    if (s->q.nsrc != 1 || s->aggregate || !s->norder || s->q.src[0].is_virtual)
        return -1;
    const cat_table_t *t = s->q.src[0].t;
    *desc = s->order[0].desc;
    int cols[64];
    for (uint32_t i = 0; i < s->norder && i < 64; i++) {
        const sql_expr_t *e = s->order[i].item >= 0 ? s->items[s->order[i].item].expr : s->order[i].expr;
        if (e->kind != SQL_E_COLUMN || s->order[i].desc != *desc)
            return -1;
        cols[i] = e->slot;
    }
    if (s->norder > 64)
        return -1;
    /* prefer the index the WHERE picks; ORDER BY must then follow it past the equality-bound columns */
    xpath_t p;
    choose_path(&s->q, 0, s->sel->where, &p, s->x->arena);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t ix = 0; ix < t->nidx; ix++) {
            if (pass == 0 && (int)ix != p.index)
                continue;
            if (pass == 1 && p.index >= 0)
                break;
            const cat_index_t *x = &t->idx[ix];
            uint32_t skip = (int)ix == p.index ? p.neq : 0;
            if (p.index >= 0 && (int)ix == p.index && p.conds) {
                /* IN lists give several ranges: their order is by value, so still ordered */
            }
            bool ok = skip + s->norder <= x->ncols || (x->kind != CAT_IDX_KEY && skip + s->norder >= x->ncols);
            for (uint32_t i = 0; i < s->norder && ok; i++) {
                if (skip + i >= x->ncols) {
                    ok = false;
                    break;
                }
                const cat_index_col_t *ic = &x->cols[skip + i];
                if (ic->prefix || (int)ic->col != cols[i] - (int)s->q.src[0].base)
                    ok = false;
                const cat_column_t *c = &t->cols[ic->col];
                if (c->rc.type == SQLT_ENUM || c->rc.type == SQLT_SET || c->rc.type == SQLT_BIT)
                    ok = false;
            }
            if (ok)
                return (int)ix;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- prepared plans */

/*
 * A prepared statement keeps the bound form of its SELECT: the items with * expanded, GROUP BY / ORDER BY
 * resolved, the aggregates, each source's access path and the ORDER BY index.  Binding writes column slots into
 * the statement's own tree, which lives as long as the statement; the plan holds in its arena what binding built
 * beside the tree.  Every execution still opens its tables (metadata locks, catalog references) and reuses the
 * plan when each source is the same definition (table id and catalog version) as at binding, under the same
 * current database; else it binds again (Com_stmt_reprepare) and the plan is replaced.  Cached: a single SELECT
 * over base tables (no UNION, derived or information_schema tables, USING / NATURAL joins); subqueries are bound
 * when they run, as without a plan.
 */
struct sql_plan {
    arena_t mem;
    bool valid;
    const void *key;           /* the SELECT (sql_select_t) or DML statement (sql_stmt_t) it was bound for */
    char *db;                  /* the current database when bound (NULL: none) */
    char *cur_db;              /* sql_plan_db()'s copy: the executions' current database */
    uint32_t nsrc;
    uint64_t *src_id, *src_version;
    xpath_t *paths;
    const sql_expr_t *where;   /* the WHERE the paths were chosen for (the statement's tree, kept with it) */
    uint64_t stats_gen;        /* stats_generation() when they were chosen */
    /* SELECT */
    bool *need;                /* select_run_t.need */
    xitem_t *items;
    uint32_t nitems;
    xorder_t *order, *group;
    uint32_t norder, ngroup;
    const sql_expr_t **aggs;
    uint32_t nagg;
    bool aggregate;
    int oix;
    bool odesc;
};

sql_plan_t *sql_plan_new(void)
{
    sql_plan_t *p = mem_calloc(1, sizeof *p);
    arena_init(&p->mem, 2048);
    return p;
}

void sql_plan_free(sql_plan_t *p)
{
    if (!p)
        return;
    mem_free(p->cur_db);
    arena_destroy(&p->mem);
    mem_free(p);
}

const char *sql_plan_db(sql_plan_t *p, const char *db)
{
    if (!db)
        return NULL;
    if (!p->cur_db || strcmp(p->cur_db, db) != 0) {
        /* a different database invalidates the plan (xplan_valid), so nothing bound points at the old copy */
        mem_free(p->cur_db);
        p->cur_db = mem_strdup(db);
    }
    return p->cur_db;
}

/* Can q's sources be planned once?  Base tables only: virtual ones are rebuilt (and USING / NATURAL rewritten)
 * at every opening. */
static bool plan_cacheable(const xquery_t *q)
{
    if (q->x->outer_q || !q->nsrc)
        return false;
    for (uint32_t i = 0; i < q->nsrc; i++) {
        const xsrc_t *src = &q->src[i];
        if (src->is_virtual || src->hidden || src->lead)
            return false;
    }
    return true;
}

bool xplan_valid(const sql_exec_ctx_t *x, const void *key, const xquery_t *q)
{
    const sql_plan_t *p = x->plan;
    const char *db = x->db;
    if (!p || !p->valid || p->key != key || p->nsrc != q->nsrc || (!p->db) != (!db) || (db && strcmp(p->db, db) != 0))
        return false;
    for (uint32_t i = 0; i < p->nsrc; i++)
        if (q->src[i].t->id != p->src_id[i] || q->src[i].t->version != p->src_version[i])
            return false;
    return true;
}

bool xplan_reuse(sql_exec_ctx_t *x, const void *key, xquery_t *q)
{
    if (!xplan_valid(x, key, q))
        return false;
    sql_plan_t *p = x->plan;
    if (p->stats_gen != stats_generation()) {
        /* ANALYZE published new statistics: the binding stands, the access paths are chosen again */
        p->stats_gen = stats_generation();
        for (uint32_t i = 0; i < p->nsrc; i++)
            choose_path(q, i, p->where, &p->paths[i], &p->mem);
    }
    q->paths = p->paths;
    x->stats.plan_hits++;
    return true;
}

bool xplan_begin(sql_exec_ctx_t *x, const void *key, xquery_t *q)
{
    sql_plan_t *p = x->plan;
    if (!p)
        return false;
    if (!plan_cacheable(q)) {
        p->valid = false;
        return false;
    }
    if (p->key)
        x->stats.plan_rebinds++;
    arena_reset(&p->mem);
    p->valid = false;
    p->key = key;
    p->db = x->db ? arena_strdup(&p->mem, x->db) : NULL;
    return true;
}

void xplan_end(sql_exec_ctx_t *x, xquery_t *q, const sql_expr_t *where)
{
    sql_plan_t *p = x->plan;
    p->nsrc = q->nsrc;
    p->src_id = arena_alloc(&p->mem, sizeof(uint64_t) * (p->nsrc + 1));
    p->src_version = arena_alloc(&p->mem, sizeof(uint64_t) * (p->nsrc + 1));
    p->paths = arena_calloc(&p->mem, sizeof(xpath_t) * (p->nsrc + 1));
    p->where = where;
    p->stats_gen = stats_generation();
    for (uint32_t i = 0; i < p->nsrc; i++) {
        p->src_id[i] = q->src[i].t->id;
        p->src_version[i] = q->src[i].t->version;
        choose_path(q, i, where, &p->paths[i], &p->mem);
    }
    q->paths = p->paths;
    p->valid = true;
}

/* Binds s (opened) into x's plan: what binding allocates goes to the plan's arena. */
static int plan_bind(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    sql_plan_t *p = x->plan;
    arena_t *stmt_arena = x->arena;
    x->arena = &p->mem;
    int rc = select_run_bind(s);
    if (rc == 0) {
        for (uint32_t i = 0; i < s->nitems; i++) /* names of * items point into the table definition */
            s->items[i].name = arena_strdup(&p->mem, s->items[i].name);
        p->need = s->need;
        p->items = s->items;
        p->nitems = s->nitems;
        p->order = s->order;
        p->norder = s->norder;
        p->group = s->group;
        p->ngroup = s->ngroup;
        p->aggregate = s->aggregate;
        p->nagg = s->q.nagg;
        p->aggs = arena_alloc(&p->mem, sizeof(*p->aggs) * (p->nagg + 1));
        if (p->nagg)
            memcpy(p->aggs, s->q.aggs, sizeof(*p->aggs) * p->nagg);
        xplan_end(x, &s->q, s->sel->where);
        p->odesc = false;
        p->oix = order_index(s, &p->odesc);
    }
    x->arena = stmt_arena;
    return rc;
}

/* select_run_prepare for a prepared statement's top SELECT: the plan reused when it still matches, else rebuilt. */
static int select_run_prepare_planned(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel)
{
    int rc = select_run_open(s, x, sel, false);
    if (rc)
        return rc;
    sql_plan_t *p = x->plan;
    if (!sel->union_next && xplan_reuse(x, sel, &s->q)) {
        s->items = p->items;
        s->nitems = p->nitems;
        s->order = p->order;
        s->norder = p->norder;
        s->group = p->group;
        s->ngroup = p->ngroup;
        s->aggregate = p->aggregate;
        s->q.aggs = p->aggs;
        s->q.nagg = s->q.capagg = p->nagg;
        s->q.aggs_shared = true;
        s->need = p->need;
        for (uint32_t i = 0; i < s->q.nsrc; i++)
            s->q.src[i].need = p->need ? p->need + s->q.src[i].base : NULL;
    } else if (!sel->union_next && xplan_begin(x, sel, &s->q)) {
        rc = plan_bind(s);
    } else {
        rc = select_run_bind(s);
    }
    if (rc == 0 && s->q.paths) {
        s->plan_oix_set = true;
        s->plan_oix = p->oix;
        s->plan_odesc = p->odesc;
    }
    if (rc == 0)
        rc = select_run_limits(s);
    return rc;
}

static void select_run_free(select_run_t *s)
{
    xquery_release(&s->q);
    mem_free(s->outs);
    for (uint64_t i = 0; i < s->ngroups; i++) {
        xgroup_t *g = s->groups[i];
        for (uint32_t k = 0; k < s->q.nagg; k++)
            sql_agg_free(&g->aggs[k]);
        buf_free(&g->key);
    }
    mem_free(s->groups);
    xmap_free(&s->distinct);
    xmap_free(&s->gmap);
    top_free(s);
    xsort_done(s, &s->osort);
    xsort_done(s, &s->gsort);
    xsort_done(s, &s->dsort);
    if (s->rowa_ok)
        arena_destroy(&s->rowa);
    s->rowa_ok = false;
}

/* Sort_range when the rows of the first table come through an index range, else Sort_scan (MariaDB). */
static void sort_stats(select_run_t *s, uint64_t rows)
{
    s->x->stats.sort_rows += rows;
    bool range = false;
    if (s->q.nsrc && !s->q.src[0].is_virtual) {
        xpath_t p;
        if (s->q.paths)
            p = s->q.paths[0];
        else
            choose_path(&s->q, 0, s->sel->where, &p, s->x->arena);
        range = p.index >= 0;
    }
    if (range)
        s->x->stats.sort_range++;
    else
        s->x->stats.sort_scan++;
}

/* One group's output row: the items, HAVING, then out_row.  0, 1 (LIMIT reached) or an error. */
static int group_emit(select_run_t *s, xgroup_t *g)
{
    s->ngroups_out++;
    s->xe.group = g;
    value_t *vals = arena_alloc(&s->rowa, sizeof(value_t) * (s->nitems + 1));
    int rc = eval_items(s, g->rep, vals);
    if (rc == 0 && s->sel->having) {
        memcpy(g->rep + s->q.width, vals, sizeof(value_t) * s->nitems);
        rc = xeval_bool(&s->xe, s->sel->having, g->rep);
        rc = rc < 0 ? rc : rc == 0 ? 2 : 0;
    }
    if (rc == 0)
        rc = out_row(s, g->rep, vals);
    s->xe.group = NULL;
    return rc == 2 ? 0 : rc;
}

static int key_cmp(const uint8_t *a, size_t al, const buf_t *b)
{
    int r = memcmp(a, b->data, MIN(al, b->len));
    return r ? r : (al < b->len ? -1 : al > b->len);
}

/* The groups in key order: the in-memory ones (sorted) merged with those read back from s->gsort, which are
 * built one at a time in their own arena (a spilled group's key is never one of the in-memory groups'). */
static int groups_emit(select_run_t *s)
{
    extsort_t *gs = s->gsort;
    int rc = 0;
    if (gs && (rc = extsort_finish(gs)) != 0)
        return xsort_err(s, rc);
    const uint8_t *k = NULL, *p = NULL;
    size_t kl = 0, pl = 0;
    int have = gs ? extsort_next(gs, &k, &kl, &p, &pl) : 0;
    uint64_t i = 0;
    arena_t ga;
    arena_init(&ga, 8192);
    buf_t key;
    buf_init(&key);
    value_t *row = arena_alloc(s->ga, sizeof(value_t) * (s->q.width + 1));
    while (rc == 0 && have >= 0 && (i < s->ngroups || have == 1)) {
        arena_reset(&s->rowa);
        if (!(have == 1 && (i == s->ngroups || key_cmp(k, kl, &s->groups[i]->key) < 0))) {
            rc = group_emit(s, s->groups[i++]);
            continue;
        }
        arena_reset(&ga);
        xgroup_t g;
        memset(&g, 0, sizeof g);
        uint32_t lv;
        memcpy(&lv, p, 4);
        g.rep = arena_calloc(&ga, sizeof(value_t) * (s->q.width + s->nitems + 1));
        xrow_unpack(&ga, p + 4, g.rep, s->q.width);
        for (uint32_t j = lv; j < s->ngroup; j++) {
            const sql_expr_t *ge = s->group[j].item >= 0 ? s->items[s->group[j].item].expr : s->group[j].expr;
            if (ge->kind == SQL_E_COLUMN && ge->slot >= 0)
                g.rep[ge->slot] = value_null();
        }
        g.aggs = arena_alloc(&ga, sizeof(sql_agg_t) * (s->q.nagg + 1));
        for (uint32_t a = 0; a < s->q.nagg; a++)
            sql_agg_init(&g.aggs[a]);
        buf_reset(&key);
        buf_append(&key, k, kl);
        agg_row_t ar = {&s->xe, row};
        sql_agg_src_t src = {agg_row_eval, &ar, &ga, s->x->diag, s->x->group_concat_max_len};
        do {
            arena_reset(&s->rowa);
            xrow_unpack(&s->rowa, p + 4, row, s->q.width);
            for (uint32_t a = 0; a < s->q.nagg && rc == 0; a++)
                rc = sql_agg_add(&g.aggs[a], s->q.aggs[a], &src);
            if (rc)
                break;
            have = extsort_next(gs, &k, &kl, &p, &pl);
        } while (have == 1 && key_cmp(k, kl, &key) == 0);
        if (rc == 0 && have >= 0) {
            arena_reset(&s->rowa);
            rc = group_emit(s, &g);
        }
        for (uint32_t a = 0; a < s->q.nagg; a++)
            sql_agg_free(&g.aggs[a]);
    }
    arena_destroy(&ga);
    buf_free(&key);
    if (rc == 0 && have < 0)
        rc = xsort_err(s, have);
    return rc < 0 ? rc : 0;
}

/* Reads the sorted rows back into s->outs (INSERT ... SELECT, subqueries and UNION members keep their rows). */
static int sorted_collect(select_run_t *s)
{
    const uint8_t *k, *p;
    size_t kl, pl;
    int n;
    uint64_t cnt = 0;
    s->capout = s->nout + 1;
    s->outs = mem_realloc(s->outs, sizeof(xout_t) * s->capout);
    while ((n = extsort_next(s->osort, &k, &kl, &p, &pl)) == 1 && cnt < s->nout) {
        xout_t *o = &s->outs[cnt++];
        o->vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
        xrow_unpack(s->ga, p, o->vals, s->nitems);
        o->key = NULL;
        o->klen = 0;
    }
    if (n < 0)
        return xsort_err(s, n);
    s->nout = cnt;
    return 0;
}

/* Runs a prepared SELECT: rows go to the sink, or into s->outs when collect_only. */
static int select_run_run(select_run_t *s)
{
    sql_exec_ctx_t *x = s->x;
    xmap_init(&s->distinct, s->ga);
    xmap_init(&s->gmap, s->ga);
    bool desc = s->plan_odesc;
    int oix = s->plan_oix_set ? s->plan_oix : order_index(s, &desc);
    s->need_sort = s->norder > 0 && oix < 0;
    s->streaming = !s->aggregate && !s->need_sort && !s->collect_only;
    if (s->need_sort && s->limit && s->limit != UINT64_MAX && s->offset + s->limit > s->offset) {
        /* LIMIT: keep only the best OFFSET + LIMIT rows (they come out through osort at the end); a heap that
         * outgrows sort_buffer_size turns into an ordinary sort (top_add) */
        s->topk = s->offset + s->limit;
        s->topcap = MIN(s->topk, 64u);
        s->top = mem_alloc(sizeof(xtop_t) * s->topcap);
    }
    int rc = xquery_run(&s->q, s->sel->where, on_row, s, oix, desc);
    if (rc)
        return rc;
    if (s->aggregate) {
        if (s->ngroups == 0 && s->ngroup == 0) {
            /* aggregates over no rows: one row (COUNT 0, SUM NULL) */
            if (s->capgroups == 0) {
                s->capgroups = 1;
                s->groups = mem_realloc(s->groups, sizeof(xgroup_t *));
            }
            xgroup_t *g = arena_calloc(s->ga, sizeof *g);
            g->rep = arena_calloc(s->ga, sizeof(value_t) * (s->q.width + s->nitems + 1));
            g->aggs = arena_alloc(s->ga, sizeof(sql_agg_t) * (s->q.nagg + 1));
            for (uint32_t i = 0; i < s->q.nagg; i++)
                sql_agg_init(&g->aggs[i]);
            buf_init(&g->key);
            s->groups[s->ngroups++] = g;
        }
        if (s->ngroup && s->ngroups > 1) /* qsort must not see a NULL base (UBSan) */
            qsort(s->groups, s->ngroups, sizeof *s->groups, cmp_group);
        s->streaming = !s->need_sort && !s->collect_only;
        if ((rc = groups_emit(s)) != 0)
            return rc;
        if (s->ngroup) {
            /* MariaDB: GROUP BY through a temporary table, whose groups a filesort then orders */
            x->stats.tmp_tables++;
            x->stats.sort_rows += s->ngroups_out;
            x->stats.sort_scan++;
        }
    }
    if (s->sel->distinct)
        x->stats.tmp_tables++;
    if ((rc = distinct_drain(s)) != 0)
        return rc;
    if (!s->streaming) {
        if (s->top) {
            x->stats.sort_priority_queue_sorts++;
            if ((rc = top_flush(s, true)) != 0)
                return rc;
        }
        if (s->osort) {
            if ((rc = extsort_finish(s->osort)) != 0)
                return xsort_err(s, rc);
            /* Sort_rows: the rows the sort returns (MariaDB counts OFFSET + LIMIT at most) */
            sort_stats(s, s->topk ? MIN(s->osort->rows, s->topk) : s->osort->rows);
            if (s->collect_only) {
                if ((rc = sorted_collect(s)) != 0)
                    return rc;
            } else {
                s->osorted = true;
            }
        }
        s->total = s->nout;
    }
    return 0;
}

static int select_run_send(select_run_t *s, const value_t *first)
{
    sql_exec_ctx_t *x = s->x;
    s->cols = arena_calloc(x->arena, sizeof(res_col_t) * (s->nitems + 1));
    for (uint32_t i = 0; i < s->nitems; i++)
        item_col(s, i, first ? &first[i] : NULL, &s->cols[i]);
    return 0;
}

/* ---------------------------------------------------------------- UNION */

static int union_rows(sql_exec_ctx_t *x, const sql_select_t *first, uint64_t dflt_limit, value_t ***rows_out, uint64_t *n_out,
                      uint32_t *ncols_out, res_col_t **cols_out)
{
    /* a UNION DISTINCT removes duplicates among the members up to it (MySQL: it overrides any UNION ALL to its
     * left); the members after the last one are appended as they are */
    int dedupe_upto = -1, idx = 0;
    for (const sql_select_t *m = first; m->union_next; m = m->union_next, idx++)
        if (!m->union_all)
            dedupe_upto = idx + 1;
    int member = 0;
    value_t **rows = NULL;
    uint64_t n = 0, cap = 0;
    uint32_t ncols = 0;
    res_col_t *cols = NULL;
    sql_rtype_t *urt = NULL; /* the union's static column types, while every member's are known */
    bool *uknown = NULL;
    xmap_t seen;
    xmap_init(&seen, x->arena);
    int rc = 0;
    for (const sql_select_t *m = first; m && !rc; m = m->union_next) {
        select_run_t s;
        rc = select_run_prepare(&s, x, m, true);
        if (!rc) {
            s.collect_only = true;
            rc = select_run_run(&s);
        }
        if (!rc) {
            const value_t *fv = s.nout > s.offset ? s.outs[s.offset].vals : NULL;
            if (m == first) {
                ncols = s.nitems;
                cols = arena_calloc(x->arena, sizeof(res_col_t) * (ncols + 1));
                urt = arena_calloc(x->arena, sizeof(sql_rtype_t) * (ncols + 1));
                uknown = arena_calloc(x->arena, sizeof(bool) * (ncols + 1));
                for (uint32_t i = 0; i < ncols; i++) {
                    item_col(&s, i, fv ? &fv[i] : NULL, &cols[i]);
                    uknown[i] = select_run_infer(&s, s.items[i].expr, &urt[i]);
                }
            } else if (s.nitems != ncols) {
                rc = diag_push_msg(x->diag, DIAG_ERROR, 1222, "The used SELECT statements have a different number of columns");
            } else {
                /* the union's column type covers every member's (string > double > decimal > integer) */
                for (uint32_t i = 0; i < ncols; i++) {
                    res_col_t mc;
                    item_col(&s, i, fv ? &fv[i] : NULL, &mc);
                    res_col_t *u = &cols[i];
                    bool us = u->charset != CHARSET_BINARY || u->type == MYSQL_TYPE_BLOB;
                    bool ms = mc.charset != CHARSET_BINARY || mc.type == MYSQL_TYPE_BLOB;
                    if (us || ms) {
                        if (!us) {
                            u->type = mc.type;
                            u->charset = mc.charset;
                            u->decimals = mc.decimals;
                        }
                        u->length = MAX(u->length, mc.length);
                        u->flags &= (uint16_t)~(COLF_NUM | COLF_UNSIGNED);
                    } else if (u->type == MYSQL_TYPE_DOUBLE || mc.type == MYSQL_TYPE_DOUBLE || mc.type == MYSQL_TYPE_FLOAT) {
                        if (u->type != MYSQL_TYPE_DOUBLE) {
                            u->type = MYSQL_TYPE_DOUBLE;
                            u->decimals = 31;
                            u->length = 22;
                        }
                    } else if (u->type == MYSQL_TYPE_NEWDECIMAL || mc.type == MYSQL_TYPE_NEWDECIMAL) {
                        uint8_t d = (uint8_t)MAX(u->type == MYSQL_TYPE_NEWDECIMAL ? u->decimals : 0,
                                                 mc.type == MYSQL_TYPE_NEWDECIMAL ? mc.decimals : 0);
                        u->type = MYSQL_TYPE_NEWDECIMAL;
                        u->decimals = d;
                        u->length = MAX(u->length, mc.length) + d;
                    } else {
                        u->length = MAX(u->length, mc.length);
                    }
                    if (!(mc.flags & COLF_NOT_NULL))
                        u->flags &= (uint16_t)~COLF_NOT_NULL;
                    /* MariaDB types a union column as COALESCE types its arguments */
                    sql_rtype_t mt, two[2];
                    if (uknown[i] && select_run_infer(&s, s.items[i].expr, &mt)) {
                        two[0] = urt[i];
                        two[1] = mt;
                        uknown[i] = sql_rtype_aggregate(x->conn_coll, two, 2, &urt[i]);
                    } else {
                        uknown[i] = false;
                    }
                }
            }
        }
        bool distinct = member++ <= dedupe_upto;
        for (uint64_t i = s.offset; !rc && i < s.nout && i - s.offset < s.limit; i++) {
            if (distinct) {
                buf_t k;
                buf_init(&k);
                for (uint32_t c = 0; c < ncols; c++)
                    xkey_append(&k, &s.outs[i].vals[c], false);
                bool added;
                xmap_put(&seen, k.data, k.len, &added);
                buf_free(&k);
                if (!added)
                    continue;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                value_t **nr = arena_alloc(x->arena, sizeof(value_t *) * cap);
                if (n)
                    memcpy(nr, rows, sizeof(value_t *) * n);
                rows = nr;
            }
            rows[n++] = s.outs[i].vals;
        }
        select_run_free(&s);
    }
    xmap_free(&seen);
    if (rc)
        return rc;
    for (uint32_t c = 0; first->union_next && c < ncols; c++) {
        if (!uknown[c] || urt[c].type == MYSQL_TYPE_NULL)
            continue;
        sql_col_meta_t m;
        sql_rtype_meta(&urt[c], &m);
        res_col_t *u = &cols[c];
        u->type = m.type;
        u->decimals = m.decimals;
        u->length = m.length;
        u->charset = m.coll;
        if (m.coll != COLL_BINARY && x->result_coll == COLL_BINARY)
            u->charset = CHARSET_BINARY;
        else if (m.coll != COLL_BINARY && x->result_coll && m.coll != x->result_coll) {
            uint32_t from = value_coll_mbmaxlen(m.coll), to = value_coll_mbmaxlen(x->result_coll);
            u->length = (uint32_t)MIN((uint64_t)(from ? m.length / from : m.length) * to, 4294967295ull);
            u->charset = x->result_coll;
        }
        /* a union column is a temporary table's column: flagged as a table column of its type is (integers
         * without BINARY, strings without the NOT_FIXED decimals, no key / default / auto-increment flags) */
        u->flags &= (uint16_t)(COLF_NOT_NULL | COLF_UNSIGNED | COLF_ZEROFILL | COLF_BINARY | COLF_NUM);
        if (m.coll != COLL_BINARY) {
            u->flags &= (uint16_t)~(COLF_NUM | COLF_UNSIGNED | COLF_BINARY);
            u->decimals = 0;
        } else if (!urt[c].unsig) {
            u->flags &= (uint16_t)~COLF_UNSIGNED;
        }
        if (m.type == MYSQL_TYPE_TINY || m.type == MYSQL_TYPE_SHORT || m.type == MYSQL_TYPE_INT24 ||
            m.type == MYSQL_TYPE_LONG || m.type == MYSQL_TYPE_LONGLONG)
            u->flags &= (uint16_t)~COLF_BINARY;
        else if (m.type == MYSQL_TYPE_VAR_STRING && m.coll == COLL_BINARY)
            u->decimals = 0;
    }
    for (uint32_t c = 0; c < ncols; c++) {
        if (cols[c].type != MYSQL_TYPE_NEWDECIMAL && cols[c].type != MYSQL_TYPE_DOUBLE)
            continue;
        for (uint64_t r = 0; r < n; r++) {
            value_t *v = &rows[r][c];
            if (v->type == VAL_NULL)
                continue;
            if (cols[c].type == MYSQL_TYPE_DOUBLE) {
                if (v->type != VAL_DOUBLE)
                    *v = value_double(value_to_double(v, NULL));
                continue;
            }
            value_t d = value_to_decimal(x->arena, v, NULL);
            if (d.type == VAL_DECIMAL && d.dec < cols[c].decimals) {
                /* pad the fraction to the union's scale */
                size_t extra = cols[c].decimals - d.dec;
                char *t = arena_alloc(x->arena, d.s.len + extra + 2);
                memcpy(t, d.s.ptr, d.s.len);
                size_t k = d.s.len;
                if (!d.dec)
                    t[k++] = '.';
                for (size_t z = 0; z < extra; z++)
                    t[k++] = '0';
                d = value_decimal(x->arena, t, k);
                d.dec = cols[c].decimals;
            }
            *v = d;
        }
    }
    /* ORDER BY / LIMIT of the whole union: by position or by result column name */
    if (first->nunion_order_by) {
        uint32_t no = first->nunion_order_by;
        int *pos = arena_alloc(x->arena, sizeof(int) * no);
        for (uint32_t i = 0; i < no; i++) {
            const sql_expr_t *e = first->union_order_by[i].expr;
            pos[i] = -1;
            if (e->kind == SQL_E_LITERAL && (e->lit.type == VAL_INT || e->lit.type == VAL_UINT)) {
                int64_t p = e->lit.type == VAL_INT ? e->lit.i : (int64_t)e->lit.u;
                if (p >= 1 && (uint64_t)p <= ncols)
                    pos[i] = (int)p - 1;
            } else if (e->kind == SQL_E_COLUMN) {
                for (uint32_t c = 0; c < ncols && pos[i] < 0; c++)
                    if (strcasecmp(cols[c].name, e->col.name) == 0)
                        pos[i] = (int)c;
            }
            if (pos[i] < 0) {
                char nm[128];
                snprintf(nm, sizeof nm, "%.*s", (int)MIN(e->src_len, 100u), e->src ? e->src : "?");
                return diag_error(x->diag, ER_BAD_FIELD_ERROR, nm, "ORDER BY");
            }
        }
        xout_t *o = mem_alloc(sizeof(xout_t) * (n + 1));
        for (uint64_t r = 0; r < n; r++) {
            buf_t k;
            buf_init(&k);
            for (uint32_t i = 0; i < no; i++)
                xkey_append(&k, &rows[r][pos[i]], first->union_order_by[i].desc);
            o[r].vals = rows[r];
            o[r].key = arena_alloc(x->arena, k.len + 1);
            if (k.len)
                memcpy(o[r].key, k.data, k.len);
            o[r].klen = k.len;
            buf_free(&k);
        }
        qsort(o, n, sizeof *o, cmp_out);
        for (uint64_t r = 0; r < n; r++)
            rows[r] = o[r].vals;
        mem_free(o);
    }
    xeval_t xe;
    xeval_init(&xe, x);
    uint64_t limit = dflt_limit, offset = 0;
    value_t v;
    if (first->union_limit.count) {
        if ((rc = xeval(&xe, first->union_limit.count, NULL, &v)) != 0)
            return rc;
        limit = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    if (first->union_limit.offset) {
        if ((rc = xeval(&xe, first->union_limit.offset, NULL, &v)) != 0)
            return rc;
        offset = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    uint64_t k = n > offset ? MIN(n - offset, limit) : 0;
    *rows_out = rows ? rows + (n > offset ? offset : 0) : NULL;
    *n_out = k;
    *ncols_out = ncols;
    if (cols_out)
        *cols_out = cols;
    return 0;
}

static int union_send(sql_exec_ctx_t *x, const sql_select_t *sel)
{
    value_t **rows;
    uint64_t n;
    uint32_t ncols;
    res_col_t *cols;
    int rc = union_rows(x, sel, x->limit_selects ? x->select_limit : UINT64_MAX, &rows, &n, &ncols, &cols);
    if (rc)
        return rc;
    select_run_t s;
    memset(&s, 0, sizeof s);
    s.x = x;
    s.nitems = ncols;
    s.cols = cols;
    send_columns(&s);
    for (uint64_t i = 0; i < n; i++)
        send_row(&s, rows[i]);
    x->sink->rows_end(x->sink, x->more);
    x->found_rows = n;
    x->row_count = -1;
    return 0;
}

/* Sends the rows of the finished ORDER BY sort, after OFFSET and up to LIMIT, one row in memory at a time. */
static int send_sorted(select_run_t *s)
{
    value_t *vals = arena_alloc(s->ga, sizeof(value_t) * (s->nitems + 1));
    const uint8_t *k, *p;
    size_t kl, pl;
    int n;
    uint64_t i = 0;
    while ((n = extsort_next(s->osort, &k, &kl, &p, &pl)) == 1) {
        arena_reset(&s->rowa);
        xrow_unpack(&s->rowa, p, vals, s->nitems);
        if (i == 0 && !s->cols_sent)
            select_run_send(s, vals);
        if (i >= s->offset) {
            if (i - s->offset >= s->limit)
                break;
            send_row(s, vals);
        }
        i++;
    }
    if (n < 0)
        return xsort_err(s, n);
    if (i == 0 && !s->cols_sent)
        select_run_send(s, NULL);
    return 0;
}

int exec_select_stmt(sql_exec_ctx_t *x, const sql_select_t *sel)
{
    if (sel->union_next)
        return union_send(x, sel);
    select_run_t s;
    int rc = x->plan ? select_run_prepare_planned(&s, x, sel) : select_run_prepare(&s, x, sel, false);
    if (rc)
        goto out;
    if (x->limit_selects && !sel->limit.count && x->select_limit < s.limit)
        s.limit = x->select_limit; /* @@sql_select_limit: the statement's own LIMIT wins */
    /* column metadata needs a first value only for expressions; streaming sends columns before rows */
    s.cols = arena_calloc(x->arena, sizeof(res_col_t) * (s.nitems + 1));
    for (uint32_t i = 0; i < s.nitems; i++)
        item_col(&s, i, NULL, &s.cols[i]);
    rc = select_run_run(&s);
    if (rc)
        goto out;
    if (!s.streaming && s.osorted) {
        if ((rc = send_sorted(&s)) != 0)
            goto out;
    } else if (!s.streaming) {
        if (!s.cols_sent)
            select_run_send(&s, s.nout ? s.outs[0].vals : NULL);
        for (uint64_t i = s.offset; i < s.nout && i - s.offset < s.limit; i++)
            send_row(&s, s.outs[i].vals);
    }
    send_columns(&s);
    x->sink->rows_end(x->sink, x->more);
    x->found_rows = sel->calc_found_rows ? s.total
                                         : (s.streaming ? s.sent : (s.nout > s.offset ? MIN(s.nout - s.offset, s.limit) : 0));
    x->row_count = -1;
out:
    select_run_free(&s);
    return rc;
}

int exec_select_rows(sql_exec_ctx_t *x, const sql_select_t *sel, value_t ***rows, uint64_t *nrows, uint32_t *ncols)
{
    if (sel->union_next)
        return union_rows(x, sel, UINT64_MAX, rows, nrows, ncols, NULL);
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, false);
    if (rc)
        goto out;
    s.collect_only = true;
    if ((rc = select_run_run(&s)) != 0)
        goto out;
    uint64_t n = s.nout > s.offset ? MIN(s.nout - s.offset, s.limit) : 0;
    value_t **r = arena_alloc(x->arena, sizeof(value_t *) * (n + 1));
    for (uint64_t i = 0; i < n; i++)
        r[i] = s.outs[s.offset + i].vals;
    *rows = r;
    *nrows = n;
    *ncols = s.nitems;
out:
    select_run_free(&s);
    return rc;
}

int exec_select_describe_widths(sql_exec_ctx_t *x, const sql_select_t *sel, res_col_t **cols, uint32_t **widths,
                                int *ncols)
{
    select_run_t s;
    int rc = select_run_prepare(&s, x, sel, true);
    if (rc == 0) {
        res_col_t *c = arena_calloc(x->arena, sizeof(res_col_t) * (s.nitems + 1));
        uint32_t *w = widths ? arena_calloc(x->arena, sizeof(uint32_t) * (s.nitems + 1)) : NULL;
        for (uint32_t i = 0; i < s.nitems; i++) {
            item_col(&s, i, NULL, &c[i]);
            sql_rtype_t rt;
            if (w && s.items[i].src_col < 0 && select_run_infer(&s, s.items[i].expr, &rt))
                w[i] = rt.type == MYSQL_TYPE_NEWDECIMAL ? rt.prec : rt.width;
        }
        *cols = c;
        if (widths)
            *widths = w;
        *ncols = (int)s.nitems;
    }
    select_run_free(&s);
    return rc;
}

int exec_select_describe(sql_exec_ctx_t *x, const sql_select_t *sel, res_col_t **cols, int *ncols)
{
    return exec_select_describe_widths(x, sel, cols, NULL, ncols);
}

/* ---------------------------------------------------------------- evaluation callbacks */

static int exec_eval_sysvar_get(void *u, sql_var_scope_t scope, const char *comp, const char *name, value_t *out, diag_t *d)
{
    xeval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->sysvar_get)
        return diag_error(d, ER_NOT_SUPPORTED_YET, "system variables here");
    return cb->sysvar_get(xe->x->cb_user, scope, comp, name, out, d);
}

static int exec_eval_uservar_get(void *u, const char *name, value_t *out)
{
    xeval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->uservar_get) {
        *out = value_null();
        return 0;
    }
    return cb->uservar_get(xe->x->cb_user, name, out);
}

static int exec_eval_uservar_set(void *u, const char *name, const value_t *v)
{
    xeval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    return cb && cb->uservar_set ? cb->uservar_set(xe->x->cb_user, name, v) : 0;
}

static int exec_eval_session_fn(void *u, sql_session_fn_t fn, value_t *out)
{
    xeval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->session_fn) {
        *out = value_null();
        return 0;
    }
    return cb->session_fn(xe->x->cb_user, fn, out);
}

static int exec_eval_set_last_insert_id(void *u, uint64_t id)
{
    xeval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    return cb && cb->set_last_insert_id ? cb->set_last_insert_id(xe->x->cb_user, id) : 0;
}

static int exec_eval_param_get(void *u, uint32_t index, value_t *out)
{
    xeval_t *xe = u;
    const sql_eval_cb_t *cb = xe->x->cb;
    if (!cb || !cb->param_get) {
        *out = value_null();
        return 0;
    }
    return cb->param_get(xe->x->cb_user, index, out);
}

static int exec_eval_column_get(void *u, const sql_expr_t *col, value_t *out, diag_t *d)
{
    xeval_t *xe = u;
    const xquery_t *oq = xe->x->outer_q;
    if (oq && xe->x->outer_row) {
        for (uint32_t i = 0; i < oq->nsrc; i++) {
            const xsrc_t *s = &oq->src[i];
            if (col->col.table && strcmp(col->col.table, s->alias) != 0)
                continue;
            int c = cat_table_col(s->t, col->col.name);
            if (c >= 0) {
                *out = xe->x->outer_row[s->base + (uint32_t)c];
                return 0;
            }
        }
    }
    return diag_error(d, ER_BAD_FIELD_ERROR, col->col.name ? col->col.name : "", "SELECT");
}

/* ---- subqueries: uncorrelated ones run once per statement (cached), correlated ones per outer row ---- */

typedef struct xsubq {
    struct xsubq *next;
    const sql_select_t *sub;
    value_t **rows;
    uint64_t n;
    uint32_t ncols;
} xsubq_t;

static int subq_rows(xeval_t *xe, const sql_select_t *sub, xsubq_t **out)
{
    sql_exec_ctx_t *x = xe->x;
    for (xsubq_t *c = x->subq_cache; c; c = c->next)
        if (c->sub == sub) {
            *out = c;
            return 0;
        }
    const void *save_q = x->outer_q;
    const value_t *save_row = x->outer_row;
    bool save_seen = x->saw_outer_ref;
    x->outer_q = xe->q;
    x->outer_row = xe->ev.row;
    x->saw_outer_ref = false;
    xsubq_t *r = arena_calloc(x->arena, sizeof *r);
    r->sub = sub;
    int rc = exec_select_rows(x, sub, &r->rows, &r->n, &r->ncols);
    bool correlated = x->saw_outer_ref;
    x->outer_q = save_q;
    x->outer_row = save_row;
    x->saw_outer_ref = save_seen || correlated;
    if (rc)
        return rc;
    if (!correlated) {
        r->next = x->subq_cache;
        x->subq_cache = r;
    }
    *out = r;
    return 0;
}

static int exec_eval_subquery_eval(void *u, const sql_expr_t *e, value_t *out, diag_t *d)
{
    xeval_t *xe = u;
    xsubq_t *r;
    int rc = subq_rows(xe, e->sub, &r);
    if (rc)
        return rc;
    if (e->kind == SQL_E_EXISTS) {
        *out = value_int(r->n > 0);
        return 0;
    }
    if (r->ncols != 1)
        return diag_error(d, ER_OPERAND_COLUMNS, 1);
    if (e->kind == SQL_E_SUBQUERY) {
        if (r->n > 1)
            return diag_error(d, ER_SUBQUERY_NO_1_ROW);
        *out = r->n ? r->rows[0][0] : value_null();
        return 0;
    }
    /* IN / ANY / ALL */
    value_t v;
    if ((rc = sql_expr_eval(&xe->ev, e->args[0], &v)) != 0)
        return rc;
    bool all = e->kind == SQL_E_QUANTIFIED && e->quant_all;
    sql_op_t op = e->kind == SQL_E_IN ? SQL_OP_EQ : e->op;
    bool any_true = false, any_null = v.type == VAL_NULL && r->n > 0, all_true = true;
    for (uint64_t i = 0; i < r->n && v.type != VAL_NULL; i++) {
        const value_t *w = &r->rows[i][0];
        if (w->type == VAL_NULL) {
            any_null = true;
            all_true = false;
            continue;
        }
        int c = value_compare(&v, w, d);
        bool t = op == SQL_OP_EQ ? c == 0 : op == SQL_OP_NE ? c != 0 : op == SQL_OP_LT ? c < 0 : op == SQL_OP_LE ? c <= 0
               : op == SQL_OP_GT ? c > 0 : op == SQL_OP_GE ? c >= 0 : false;
        any_true |= t;
        all_true &= t;
    }
    int res; /* 1 true, 0 false, -1 NULL */
    if (all)
        res = r->n == 0 ? 1 : (v.type == VAL_NULL ? -1 : !all_true ? (any_null && all_true ? -1 : 0) : (any_null ? -1 : 1));
    else
        res = any_true ? 1 : any_null ? -1 : 0;
    if (all && v.type != VAL_NULL && r->n) {
        /* ALL: false as soon as one comparison is false; NULL if none false but one NULL */
        bool one_false = false;
        for (uint64_t i = 0; i < r->n; i++) {
            const value_t *w = &r->rows[i][0];
            if (w->type == VAL_NULL)
                continue;
            int c = value_compare(&v, w, d);
            bool t = op == SQL_OP_EQ ? c == 0 : op == SQL_OP_NE ? c != 0 : op == SQL_OP_LT ? c < 0 : op == SQL_OP_LE ? c <= 0
                   : op == SQL_OP_GT ? c > 0 : op == SQL_OP_GE ? c >= 0 : false;
            if (!t)
                one_false = true;
        }
        res = one_false ? 0 : any_null ? -1 : 1;
    }
    if (e->negated && res >= 0)
        res = !res;
    *out = res < 0 ? value_null() : value_int(res);
    return 0;
}

static int exec_eval_aggregate_get(void *u, const sql_expr_t *e, value_t *out, diag_t *d)
{
    xeval_t *xe = u;
    if (!xe->q || !xe->group)
        return diag_error(d, ER_INVALID_GROUP_FUNC_USE);
    for (uint32_t i = 0; i < xe->q->nagg; i++)
        if (xe->q->aggs[i] == e) {
            *out = sql_agg_result(&xe->group->aggs[i], e, xe->ev.arena, xe->x->div_precision_increment, xe->x->diag);
            return 0;
        }
    return diag_error(d, ER_INVALID_GROUP_FUNC_USE);
}

static int exec_eval_values_get(void *u, const sql_expr_t *col, value_t *out, diag_t *d)
{
    xeval_t *xe = u;
    if (!xe->values_row || !xe->values_t) {
        *out = value_null();
        return 0;
    }
    int c = cat_table_col(xe->values_t, col->col.name);
    if (c < 0)
        return diag_error(d, ER_BAD_FIELD_ERROR, col->col.name, "SELECT");
    *out = table_value_out(&xe->values_t->cols[c], &xe->values_row[c], xe->x->arena);
    return 0;
}

static int exec_eval_sleep(void *u, double secs)
{
    xeval_t *xe = u;
    const sql_exec_ctx_t *x = xe->x;
    return x->cb && x->cb->sleep ? x->cb->sleep(x->cb_user, secs) : 0;
}

static int exec_eval_user_lock(void *u, sql_fn_t fn, const char *name, size_t len, double timeout, value_t *out, diag_t *d)
{
    xeval_t *xe = u;
    const sql_exec_ctx_t *x = xe->x;
    if (!x->cb || !x->cb->user_lock)
        return diag_error(d, ER_NOT_SUPPORTED_YET, "user-level locks");
    return x->cb->user_lock(x->cb_user, fn, name, len, timeout, out, d);
}

static const sql_eval_cb_t xcb = {
    .sleep = exec_eval_sleep,
    .user_lock = exec_eval_user_lock,
    .sysvar_get = exec_eval_sysvar_get,
    .uservar_get = exec_eval_uservar_get,
    .uservar_set = exec_eval_uservar_set,
    .session_fn = exec_eval_session_fn,
    .set_last_insert_id = exec_eval_set_last_insert_id,
    .param_get = exec_eval_param_get,
    .column_get = exec_eval_column_get,
    .aggregate_get = exec_eval_aggregate_get,
    .values_get = exec_eval_values_get,
    .subquery_eval = exec_eval_subquery_eval,
};

void xeval_init(xeval_t *xe, sql_exec_ctx_t *x)
{
    memset(xe, 0, sizeof *xe);
    xe->x = x;
    sql_eval_ctx_init(&xe->ev, x->arena, x->diag, &xcb, xe);
    xe->ev.strict = x->strict;
    xe->ev.div_zero_off = x->div_zero_off;
    xe->ev.div_zero_error = x->div_zero_error;
    if (x->div_precision_increment)
        xe->ev.div_precision_increment = x->div_precision_increment;
    if (x->max_allowed_packet)
        xe->ev.max_allowed_packet = x->max_allowed_packet;
    xe->ev.conn_coll = x->conn_coll;
}

int xeval(xeval_t *xe, const sql_expr_t *e, const value_t *row, value_t *out)
{
    xe->ev.row = row;
    return sql_expr_eval(&xe->ev, e, out);
}

int xeval_bool(xeval_t *xe, const sql_expr_t *e, const value_t *row)
{
    value_t v;
    int rc = xeval(xe, e, row, &v);
    if (rc)
        return rc;
    return v.type != VAL_NULL && value_to_bool(&v, xe->x->diag);
}

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
            const xsrc_t *src = &s.q.src[i];
            const cat_table_t *t = src->t;
            v[2] = src->alias;
            xpath_t p;
            choose_path(&s.q, i, sel->where, &p, x->arena);
            buf_t pk;
            buf_init(&pk);
            for (uint32_t ix = 0; ix < t->nidx && p.conds; ix++) {
                const xcond_t *c = &p.conds[t->idx[ix].cols[0].col];
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
                    const xcond_t *c = &p.conds[ix->cols[k].col];
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
