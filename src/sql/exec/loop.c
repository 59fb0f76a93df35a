/*
 * Nested loops over a query's sources: each source read through its access path (clustered or secondary
 * index points and ranges, or a full scan), inner sources looked up per outer row, LEFT/RIGHT joins' NULL rows,
 * WHERE evaluated on every combined row.  Index ranges are inclusive supersets (rowcodec.h explains why), so
 * the whole WHERE is evaluated again on every row and a path only decides how many rows are read.
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
#include "sql/exec/gencol.h"

/* ---------------------------------------------------------------- nested loops */

typedef struct join_loop {
    query_t *q;
    row_eval_t xe;
    const sql_expr_t *where;
    access_path_t *paths;
    value_t *row;             /* the combined row (output domain) */
    query_row_fn fn;
    void *fn_arg;
    query_dml_fn dml;              /* single-table DML: stored values and key */
    int order_index;
    bool order_desc;
    engine_trx_t *trx;
    uint64_t emitted;
    bool fresh;               /* the row given to loop_emit was read locked by the engine (clustered locking scan) */
    bool rejected;            /* loop_emit: the WHERE rejected that row */
    bool *group_found;        /* per group head (query_source_t.group_last): a row got through the whole group */
} join_loop_t;

/* A row got through source si (its ON held, or it was NULL-extended): the groups with a head before `below`
 * that end at si, innermost first, check their group_on; 1 when the row got through all of them (they are
 * found), 0 when one refused it (it goes no further), < 0 on an error. */
static int groups_through(join_loop_t *L, uint32_t si, uint32_t below)
{
    if (!L->group_found)
        return 1;
    for (uint32_t h = MIN(si, below); h-- > 0;) {
        const query_source_t *g = &L->q->src[h];
        if (g->group_last != si)
            continue;
        if (g->group_on) {
            int rc = row_eval_bool(&L->xe, g->group_on, L->row);
            if (rc <= 0)
                return rc;
        }
        L->group_found[h] = true;
    }
    return 1;
}

/* Copies a source's row into the combined row, in the output domain (ENUM/SET names, FLOAT digits). */
static void fill_row(join_loop_t *L, uint32_t si, const value_t *stored)
{
    const query_source_t *s = &L->q->src[si];
    if ((L->q->jpos ? L->q->jpos[si] : si) == 0)
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

static void null_row(join_loop_t *L, uint32_t si)
{
    const query_source_t *s = &L->q->src[si];
    for (uint32_t c = 0; c < s->t->ncols; c++)
        L->row[s->base + c] = value_null();
}

static int loop_level(join_loop_t *L, uint32_t d);

/* One candidate row of source si: ON check, then the next level or the consumer. 1 = stop. */
static int loop_emit(join_loop_t *L, uint32_t si, const buf_t *pk, const value_t *stored, bool *matched)
{
    const query_source_t *s = &L->q->src[si];
    uint32_t d = L->q->jpos ? L->q->jpos[si] : si; /* its depth in the join order */
    int rc;
    if ((++L->emitted & 1023) == 0 && L->q->x->kill_query && atomic_exchange(L->q->x->kill_query, false))
        return diag_error(L->q->x->diag, ER_QUERY_INTERRUPTED);
    if (L->q->an_read)
        L->q->an_read[si]++;
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
            copy[c] = value_copy_into(L->q->x->arena, &fresh[c]);
        buf_free(store);
        stored = copy;
    }
    fill_row(L, si, stored);
    /* a VIRTUAL column of RAND(), NOW() ...: computed as it is read (MariaDB's), not the value stored at the write */
    if (!s->is_virtual && s->t->gen_on_read && (rc = gencol_read(L->q->x, s->t, &L->row[s->base])) != 0)
        return rc;
    if (L->q->jorder) { /* inner joins: the ONs whose sources are all read by now */
        for (uint32_t k = 0; k < L->q->jnon[d]; k++)
            if ((rc = row_eval_bool(&L->xe, L->q->jon[d][k], L->row)) <= 0)
                return rc;
    } else if (s->on) {
        rc = row_eval_bool(&L->xe, s->on, L->row);
        if (rc <= 0)
            return rc;
    }
    *matched = true;
    if ((rc = groups_through(L, si, si)) <= 0)
        return rc;
    if (d + 1 < L->q->nsrc) {
        if (L->q->an_passed)
            L->q->an_passed[si]++;
        return loop_level(L, d + 1);
    }
    if (L->where) {
        rc = row_eval_bool(&L->xe, L->where, L->row);
        L->rejected = rc == 0;
        if (rc <= 0)
            return rc;
    }
    if (L->q->an_passed)
        L->q->an_passed[si]++;
    if (L->dml)
        return L->dml(L->fn_arg, pk, stored, L->row);
    return L->fn(L->fn_arg, L->row);
}

static int scan_range(join_loop_t *L, uint32_t si, int index, const buf_t *lo, const buf_t *hi, bool desc, bool point,
                      bool *matched)
{
    query_t *q = L->q;
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

/* The source at depth d of the join order (with groups or outer joins, FROM order: d is the source). */
static int loop_level(join_loop_t *L, uint32_t d)
{
    query_t *q = L->q;
    uint32_t si = join_src(q, d);
    query_source_t *s = &q->src[si];
    bool matched = false;
    int rc = 0;
    bool saved_found = false;
    if (s->group_last) {
        saved_found = L->group_found[si];
        L->group_found[si] = false;
    }
    if (q->an_scans)
        q->an_scans[si]++;
    if (s->is_virtual) {
        if (s->jt && (rc = jsontable_rows(&L->xe, s, L->row)) != 0)
            return rc;
        for (uint64_t i = 0; i < s->nvrows && !rc; i++)
            rc = loop_emit(L, si, NULL, s->vrows[i], &matched);
        goto end;
    }
    access_path_t *p = &L->paths[si];
    if (p->index >= 0) {
        key_range_t *r;
        uint32_t nr;
        rc = build_ranges(&L->xe, q, si, p, L->row, &r, &nr);
        if (rc == 0) {
            bool desc = d == 0 && L->order_index == p->index && L->order_desc;
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
        if (d == 0 && L->order_index >= 0) {
            ix = L->order_index;
            desc = L->order_desc;
        }
        /* once per statement, however often a nested loop or a subquery comes back here; information_schema
         * and other computed tables are not scans of stored data */
        if (!s->is_virtual && d == 0)
            q->x->stats.full_scans = 1;
        else if (!s->is_virtual)
            q->x->stats.full_joins = 1;
        rc = scan_range(L, si, ix, NULL, NULL, desc, false, &matched);
    }
end:
    if (s->group_last) { /* a group's head: NULL-extended when no row got through the whole group */
        bool found = L->group_found[si];
        L->group_found[si] = saved_found;
        if (rc || found)
            return rc;
        for (uint32_t k = si; k <= s->group_last; k++)
            null_row(L, k);
        if ((rc = groups_through(L, s->group_last, si)) <= 0)
            return rc;
        if (s->group_last + 1 < q->nsrc)
            return loop_level(L, s->group_last + 1);
        if (L->where) {
            rc = row_eval_bool(&L->xe, L->where, L->row);
            if (rc <= 0)
                return rc;
        }
        if (L->dml)
            return 0;
        return L->fn(L->fn_arg, L->row);
    }
    if (rc == 0 && !matched && s->join == SQL_JOIN_LEFT && si > 0) { /* (FROM order: d == si) */
        null_row(L, si);
        if ((rc = groups_through(L, si, si)) <= 0)
            return rc;
        if (si + 1 < q->nsrc)
            return loop_level(L, si + 1);
        if (L->where) {
            rc = row_eval_bool(&L->xe, L->where, L->row);
            if (rc <= 0)
                return rc;
        }
        if (L->dml)
            return 0;
        return L->fn(L->fn_arg, L->row);
    }
    return rc;
}

static int loop_run(query_t *q, const sql_expr_t *where, query_row_fn fn, query_dml_fn dml, void *arg, int order_index,
                    bool order_desc)
{
    join_loop_t L = {.q = q, .where = where, .fn = fn, .dml = dml, .fn_arg = arg, .order_index = order_index,
                 .order_desc = order_desc};
    sql_exec_ctx_t *x = q->x;
    row_eval_init(&L.xe, x);
    L.xe.q = q;
    L.row = arena_calloc(x->arena, sizeof(value_t) * (q->width + 1));
    for (uint32_t i = 0; i < q->nsrc; i++)
        if (q->src[i].group_last && !L.group_found)
            L.group_found = arena_calloc(x->arena, sizeof(bool) * (q->nsrc + 1));
    if (q->paths) {
        L.paths = (access_path_t *)q->paths; /* a prepared plan's (loop_level does not write them) */
    } else if (q->jpaths && q->jwhere == where) {
        L.paths = q->jpaths; /* chosen at this statement's first run of q (a subquery's next outer row) */
    } else {
        L.paths = arena_calloc(x->arena, sizeof(access_path_t) * (q->nsrc + 1));
        plan_join(q, where, L.paths, x->arena);
        q->jpaths = L.paths;
        q->jwhere = where;
    }
    /* an ORDER BY index is used only when the outer access path is that index or a full scan */
    uint32_t s0 = q->nsrc ? join_src(q, 0) : 0; /* the source read first */
    if (order_index >= 0 && L.paths[s0].index >= 0 && L.paths[s0].index != order_index)
        L.order_index = -1;
    /* a table read by a full scan, not in an index's order: SERVER_QUERY_NO_INDEX_USED, as MariaDB's JT_ALL */
    for (uint32_t i = 0; i < q->nsrc && x->ss; i++)
        if (L.paths[i].index < 0 && !(i == s0 && L.order_index >= 0))
            x->ss->no_index_used = true;
    if (q->nsrc == 0) {
        /* SELECT without FROM (in a UNION or a subquery): one row when WHERE holds */
        int rc = where ? row_eval_bool(&L.xe, where, L.row) : 1;
        if (rc <= 0)
            return rc;
        rc = fn ? fn(arg, L.row) : 0;
        return rc > 0 ? 0 : rc;
    }
    int rc = exec_trx(x, &L.trx);
    if (rc)
        return rc;
    rc = loop_level(&L, 0);
    return rc > 0 ? 0 : rc;
}

int query_run(query_t *q, const sql_expr_t *where, query_row_fn fn, void *arg, int order_index, bool order_desc)
{
    return loop_run(q, where, fn, NULL, arg, order_index, order_desc);
}

int query_scan_dml(query_t *q, const sql_expr_t *where, query_dml_fn fn, void *arg, int order_index, bool order_desc)
{
    return loop_run(q, where, NULL, fn, arg, order_index, order_desc);
}
