/*
 * UPDATE and DELETE, single- and multi-table: the matching rows are collected through the access path the
 * planner chose (locking them), then changed; a multi-table statement reads its join first and changes each
 * target row once.  ORDER BY and LIMIT apply to the single-table forms.  A single-table statement whose changes
 * cannot move a row within the scan or change what the scan reads (dml_may_stream) changes each row as the scan
 * reaches it instead, in an arena emptied for the next row, as MariaDB does: its memory does not grow with the
 * rows it changes.
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
#include "access/stats.h"
#include "util/util.h"
#include "sql/exec/query_int.h"
#include "sql/exec/constraints.h"
#include "sql/exec/gencol.h"

/* ---------------------------------------------------------------- UPDATE / DELETE */

typedef struct dml_match {
    uint8_t *pk;
    size_t pklen;
    value_t *stored;          /* copies */
    value_t *out;
    uint8_t *key;             /* ORDER BY key */
    size_t klen;
    uint64_t rowno;           /* its position in the scan (warnings say "at row N" with it, as MariaDB) */
} dml_match_t;

typedef struct dml_run {
    sql_exec_ctx_t *x;
    cat_table_t *t;
    dml_match_t *m;
    uint64_t n, cap;
    const sql_order_item_t *order;
    uint32_t norder;
    row_eval_t xe;
    uint64_t limit;           /* stop collecting early when no ORDER BY */
    const query_t *q;
    /* streaming (set by the prepare hook): each row goes to row() as the scan reaches it, copied into ra */
    int (*row)(void *arg, dml_match_t *m);
    void *row_arg;
    arena_t *ra;
    int err;                  /* row()'s error, which stopped the scan */
} dml_run_t;

static int dml_collect(void *arg, const buf_t *pk, const value_t *stored, const value_t *out)
{
    dml_run_t *D = arg;
    sql_exec_ctx_t *x = D->x;
    const cat_table_t *t = D->t;
    if (D->row) {
        arena_reset(D->ra);
        dml_match_t m = {.rowno = D->q->rows_read, .pklen = pk->len};
        m.pk = arena_alloc(D->ra, pk->len + 1);
        memcpy(m.pk, pk->data, pk->len);
        m.stored = arena_alloc(D->ra, sizeof(value_t) * (t->ncols + 1));
        m.out = arena_alloc(D->ra, sizeof(value_t) * (t->ncols + 1));
        for (uint32_t c = 0; c < t->ncols; c++) {
            m.stored[c] = value_copy_into(D->ra, &stored[c]);
            m.out[c] = value_copy_into(D->ra, &out[c]);
        }
        D->n++;
        int rc = D->row(D->row_arg, &m);
        if (rc) {
            D->err = rc;
            return 1;
        }
        return D->n >= D->limit;
    }
    if (D->n == D->cap) {
        D->cap = D->cap ? D->cap * 2 : 16;
        D->m = mem_realloc(D->m, sizeof(dml_match_t) * D->cap);
    }
    dml_match_t *m = &D->m[D->n++];
    memset(m, 0, sizeof *m);
    m->rowno = D->q ? D->q->rows_read : D->n;
    m->pk = arena_alloc(x->arena, pk->len + 1);
    memcpy(m->pk, pk->data, pk->len);
    m->pklen = pk->len;
    m->stored = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    m->out = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++) {
        m->stored[c] = value_copy_into(x->arena, &stored[c]);
        m->out[c] = value_copy_into(x->arena, &out[c]);
    }
    if (D->norder) {
        buf_t k;
        buf_init(&k);
        for (uint32_t i = 0; i < D->norder; i++) {
            value_t v;
            int rc = row_eval(&D->xe, D->order[i].expr, m->out, &v);
            if (rc) {
                buf_free(&k);
                return rc;
            }
            key_append_value(&k, &v, D->order[i].desc);
        }
        m->key = arena_alloc(x->arena, k.len + 1);
        if (k.len)
            memcpy(m->key, k.data, k.len);
        m->klen = k.len;
        buf_free(&k);
    } else if (D->n >= D->limit) {
        return 1;
    }
    return 0;
}

static int cmp_match(const void *a, const void *b)
{
    const dml_match_t *x = a, *y = b;
    size_t n = MIN(x->klen, y->klen);
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->klen < y->klen ? -1 : x->klen > y->klen);
}

/* Binds and collects the rows a single-table UPDATE / DELETE touches, in ORDER BY order, LIMIT applied. */
/* The FROM of a single-table UPDATE / DELETE: the target opened to be scanned and bound, which is the write's
 * own access and not a read of the transaction tracker's. */
static int bind_from_target(query_t *q, sql_exec_ctx_t *x, const sql_from_t *from)
{
    bool did_read = x->ss->did_read;
    int rc = bind_from(q, x, from);
    x->ss->did_read = did_read;
    return rc;
}

/* Whether a single-table UPDATE (assigned: the columns it sets) or DELETE (NULL) of t may change each row as its
 * scan reaches it.  Not when the change could move the row within any index the scan might walk (a set column,
 * an ON UPDATE column or a generated column in a key), when a trigger, a subquery or a stored function could read
 * the rows already changed, when ORDER BY needs every row first, or when a foreign key cascades into t itself. */
static bool dml_may_stream(sql_exec_ctx_t *x, const cat_table_t *t, const bool *assigned, const exec_trg_t *trg,
                           int event, const sql_expr_t *where, uint32_t norder)
{
    if (norder || exec_trg_has(trg, event, EXEC_TRG_BEFORE) || exec_trg_has(trg, event, EXEC_TRG_AFTER) ||
        !exec_expr_streams(where))
        return false;
    if (assigned)
        for (uint32_t i = 0; i < t->nidx; i++)
            for (uint32_t k = 0; k < t->idx[i].ncols; k++) {
                const cat_column_t *c = &t->cols[t->idx[i].cols[k].col];
                if (assigned[t->idx[i].cols[k].col] || c->on_update_now || c->gen_expr)
                    return false;
            }
    cat_table_t **kids;
    uint32_t nk = 0;
    bool self = false;
    if (catalog_fk_any(exec_cat)) {
        catalog_fk_children(exec_cat, t->db, t->name, x->arena, &kids, &nk);
        for (uint32_t k = 0; k < nk; k++) {
            self |= strcmp(kids[k]->db, t->db) == 0 && strcmp(kids[k]->name, t->name) == 0;
            catalog_table_release(kids[k]);
        }
    }
    return !self;
}

/* hook: called once the target is bound, before the scan; it may set D->row to stream (nonzero: an error) */
typedef int (*dml_hook_fn)(dml_run_t *D, void *arg);

static int dml_prepare(sql_exec_ctx_t *x, const sql_stmt_t *st, dml_run_t *D, query_t *q, const sql_from_t *from,
                       sql_expr_t *where, const sql_order_item_t *order, uint32_t norder, const sql_limit_t *limit,
                       dml_hook_fn hook, void *hook_arg)
{
    memset(D, 0, sizeof *D);
    D->x = x;
    D->limit = UINT64_MAX;
    int rc;
    if (from->kind != SQL_FROM_TABLE)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "multi-table UPDATE/DELETE");
    const char *db;
    cat_table_t *t = exec_open_write(x, &from->table, &db);
    if (!t)
        return -x->diag->error_code;
    catalog_table_release(t);
    if ((rc = bind_from_target(q, x, from)) != 0)
        return rc;
    q->locking = true;
    D->t = q->src[0].t;
    if (!plan_cache_reuse(x, st, q)) { /* a prepared statement's plan holds the binding and the access path */
        bool plan = plan_cache_begin(x, st, q);
        if ((rc = bind_expr(q, where, "WHERE", false)) != 0)
            return rc;
        for (uint32_t i = 0; i < norder; i++)
            if ((rc = bind_expr(q, order[i].expr, "ORDER BY", false)) != 0)
                return rc;
        if (plan)
            plan_cache_end(x, q, where);
    }
    D->order = order;
    D->norder = norder;
    row_eval_init(&D->xe, x);
    if (limit->count) {
        value_t v;
        if ((rc = row_eval(&D->xe, limit->count, NULL, &v)) != 0)
            return rc;
        D->limit = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    if (D->limit == 0)
        return 0;
    D->q = q;
    if (hook && (rc = hook(D, hook_arg)) != 0)
        return rc;
    rc = query_scan_dml(q, where, dml_collect, D, -1, false);
    if (D->err)
        return D->err;
    if (rc)
        return rc;
    if (norder) {
        if (D->n > 1) /* qsort must not see a NULL base (UBSan) */
            qsort(D->m, D->n, sizeof *D->m, cmp_match);
        if (D->n > D->limit)
            D->n = D->limit;
    }
    return 0;
}

/* ---- multi-table UPDATE / DELETE: the join is read first, then each target row is changed once ---- */

typedef struct multi_row {
    int src;
    uint8_t *pk;
    size_t pklen;
    value_t *combined;        /* the joined row it matched (UPDATE evaluates its SET list on it) */
} multi_row_t;

typedef struct multi_dml {
    sql_exec_ctx_t *x;
    query_t *q;
    bool *is_target;
    multi_row_t *rows;
    uint64_t n, cap;
} multi_dml_t;

static int multi_collect(void *arg, const value_t *row)
{
    multi_dml_t *M = arg;
    sql_exec_ctx_t *x = M->x;
    for (uint32_t si = 0; si < M->q->nsrc; si++) {
        if (!M->is_target[si] || !M->q->cur_pk[si].len)
            continue;
        /* once per target row (the join may meet it several times) */
        bool seen = false;
        for (uint64_t i = 0; i < M->n && !seen; i++)
            seen = M->rows[i].src == (int)si && M->rows[i].pklen == M->q->cur_pk[si].len &&
                   memcmp(M->rows[i].pk, M->q->cur_pk[si].data, M->rows[i].pklen) == 0;
        if (seen)
            continue;
        if (M->n == M->cap) {
            M->cap = M->cap ? M->cap * 2 : 16;
            M->rows = mem_realloc(M->rows, sizeof(multi_row_t) * M->cap);
        }
        multi_row_t *r = &M->rows[M->n++];
        r->src = (int)si;
        r->pklen = M->q->cur_pk[si].len;
        r->pk = arena_alloc(x->arena, r->pklen);
        memcpy(r->pk, M->q->cur_pk[si].data, r->pklen);
        r->combined = arena_alloc(x->arena, sizeof(value_t) * (M->q->width + 1));
        for (uint32_t c = 0; c < M->q->width; c++)
            r->combined[c] = value_copy_into(x->arena, &row[c]);
    }
    return 0;
}

static int exec_multi_dml(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    bool upd = st->kind == SQL_STMT_UPDATE;
    const sql_from_t *from = upd ? st->update->tables : st->del->from;
    sql_expr_t *where = upd ? st->update->where : st->del->where;
    query_t q;
    multi_dml_t M = {.x = x, .q = &q};
    /* a strict UPDATE fails on x/0 anywhere in it (WHERE, SET, subqueries); MariaDB's DELETE only warns */
    x->div_zero_error = upd && x->strict && !st->update->ignore && !x->div_zero_off;
    int rc = bind_from(&q, x, from);
    if (rc)
        goto out;
    q.cur_pk = arena_calloc(x->arena, sizeof(buf_t) * q.nsrc);
    for (uint32_t i = 0; i < q.nsrc; i++)
        buf_init(&q.cur_pk[i]);
    M.is_target = arena_calloc(x->arena, q.nsrc + 1);
    for (uint32_t k = 0; k < q.nsrc; k++)
        if ((rc = bind_expr(&q, q.src[k].jt_doc, "JSON_TABLE", false)) != 0 ||
            (rc = bind_expr(&q, (sql_expr_t *)q.src[k].on, "ON", false)) != 0 ||
            (rc = bind_expr(&q, (sql_expr_t *)q.src[k].group_on, "ON", false)) != 0)
            goto out;
    if ((rc = bind_expr(&q, where, "WHERE", false)) != 0)
        goto out;
    if (upd) {
        for (uint32_t i = 0; i < st->update->nset && !rc; i++) {
            if ((rc = bind_expr(&q, st->update->set[i].col, "SET", false)) == 0)
                rc = bind_expr(&q, st->update->set[i].value, "SET", false);
            for (uint32_t k = 0; k < q.nsrc && !rc; k++) {
                int slot = st->update->set[i].col->slot;
                if ((uint32_t)slot >= q.src[k].base && (uint32_t)slot < q.src[k].base + q.src[k].t->ncols)
                    M.is_target[k] = true;
            }
        }
    } else {
        for (uint32_t i = 0; i < st->del->ntargets && !rc; i++) {
            bool found = false;
            for (uint32_t k = 0; k < q.nsrc; k++)
                if (strcmp(q.src[k].alias, st->del->targets[i].name) == 0) {
                    M.is_target[k] = true;
                    found = true;
                }
            if (!found)
                rc = diag_error(x->diag, ER_UNKNOWN_TABLE, st->del->targets[i].name, "MULTI DELETE");
        }
    }
    if (rc)
        goto out;
    for (uint32_t k = 0; k < q.nsrc; k++)
        if (M.is_target[k] && (q.src[k].is_virtual || catalog_db_is_virtual(q.src[k].db))) {
            rc = diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", q.src[k].db);
            goto out;
        }
    if ((rc = query_run(&q, where, multi_collect, &M, -1, false)) != 0)
        goto out;
    exec_trg_t *trgs = arena_calloc(x->arena, sizeof(exec_trg_t) * (q.nsrc + 1)); /* each target's triggers */
    for (uint32_t k = 0; k < q.nsrc && !rc; k++)
        if (M.is_target[k])
            rc = exec_trg_load(x, q.src[k].t, &trgs[k]);
    if (rc)
        goto out;
    engine_trx_t *trx;
    if ((rc = exec_trx(x, &trx)) != 0)
        goto out;
    row_eval_t xe;
    row_eval_init(&xe, x);
    xe.ev.div_zero_error = x->div_zero_error;
    xe.q = &q; /* a subquery in SET reads the joined row (r->combined is laid out as q's sources) */
    uint64_t matched = 0, changed = 0;
    buf_t store;
    buf_init(&store);
    for (uint64_t i = 0; i < M.n && !rc; i++) {
        multi_row_t *r = &M.rows[i];
        const query_source_t *src = &q.src[r->src];
        cat_table_t *t = src->t;
        if ((rc = engine_lock_row(trx, t->tree, r->pk, r->pklen)) != 0) {
            rc = table_engine_err(x->diag, t, rc);
            break;
        }
        value_t *cur = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        rc = table_get_latest(trx, t, r->pk, r->pklen, &store, cur);
        if (rc == STRATA_ENOTFOUND) {
            rc = 0;
            continue;
        }
        if (rc) {
            rc = table_engine_err(x->diag, t, rc);
            break;
        }
        value_t *old = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        for (uint32_t c = 0; c < t->ncols; c++)
            old[c] = value_copy_into(x->arena, &cur[c]);
        buf_t pk = {r->pk, r->pklen, r->pklen};
        matched++;
        exec_trg_t *trg = &trgs[r->src];
        if (!upd) {
            if ((rc = exec_trg_fire(x, trg, EXEC_TRG_DELETE, EXEC_TRG_BEFORE, old, NULL, matched)) != 0)
                break;
            rc = table_delete(trx, t, &pk, old, &x->ss->stmt, x->diag);
            x->ss->wrote = true;
            if (rc == TABLE_FK_IGNORED) { /* DELETE IGNORE: a row a child restricts stays */
                rc = 0;
                continue;
            }
            if (rc == 0)
                rc = exec_trg_fire(x, trg, EXEC_TRG_DELETE, EXEC_TRG_AFTER, old, NULL, matched);
            changed++;
            continue;
        }
        value_t *nw = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        memcpy(nw, old, sizeof(value_t) * t->ncols);
        for (uint32_t a = 0; a < st->update->nset && !rc; a++) {
            int slot = st->update->set[a].col->slot;
            if ((uint32_t)slot < src->base || (uint32_t)slot >= src->base + t->ncols)
                continue;
            uint32_t c = (uint32_t)slot - src->base;
            value_t v;
            if (t->cols[c].gen_expr) { /* computed below; a value written for it is 1906 */
                if (!gencol_assign_allowed(st->update->set[a].value, NULL))
                    rc = gencol_value_given(x, t, c, x->strict && !st->update->ignore);
                continue;
            }
            if (st->update->set[a].value->kind == SQL_E_DEFAULT)
                rc = col_default_value(x, &t->cols[c], &v, x->arena, x->strict && !st->update->ignore);
            else
                rc = row_eval(&xe, st->update->set[a].value, r->combined, &v);
            if (!rc && v.type == VAL_NULL && !t->cols[c].rc.nullable && exec_trg_has(trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE))
                nw[c] = v; /* NOT NULL is checked after the BEFORE trigger (exec_trg_null_check) */
            else if (!rc)
                rc = table_value_store(t, c, &v, &nw[c], x->arena, x->diag, x->strict && !st->update->ignore, matched);
            if (!rc)
                r->combined[slot] = table_value_out(&t->cols[c], &nw[c], x->arena);
        }
        if (!rc)
            rc = gencol_compute(x, t, nw, x->arena, x->strict && !st->update->ignore, matched);
        if (rc)
            break;
        if ((rc = exec_trg_fire(x, trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE, old, nw, matched)) != 0)
            break;
        /* a BEFORE trigger may have set a base column: computed again, as MariaDB */
        if (exec_trg_has(trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE) &&
            ((rc = exec_trg_null_check(x, t, nw, x->strict && !st->update->ignore, matched)) != 0 ||
             (rc = gencol_compute(x, t, nw, x->arena, x->strict && !st->update->ignore, matched)) != 0))
            break;
        bool ch = false;
        for (uint32_t c = 0; c < t->ncols; c++)
            ch |= !t->cols[c].gen_on_read && !exec_same_stored(&old[c], &nw[c]);
        if (!ch) {
            rc = exec_trg_fire(x, trg, EXEC_TRG_UPDATE, EXEC_TRG_AFTER, old, nw, matched);
            continue;
        }
        if ((rc = constraints_check_row(x, t, nw, false)) == 0)
            rc = exec_json_check(x, t, nw);
        if (rc == 0)
            rc = table_update(trx, t, &pk, old, nw, &x->ss->stmt, x->diag, NULL);
        x->ss->wrote = true;
        if (rc == TABLE_FK_IGNORED) { /* UPDATE IGNORE: a row a foreign key refuses stays as it was */
            rc = 0;
            continue;
        }
        if (rc == 0)
            rc = exec_trg_fire(x, trg, EXEC_TRG_UPDATE, EXEC_TRG_AFTER, old, nw, matched);
        changed++;
    }
    buf_free(&store);
    if (rc)
        goto out;
    x->row_count = (int64_t)changed;
    if (upd)
        exec_pend_ok(x, changed, arena_printf(x->arena, "Rows matched: %llu  Changed: %llu  Warnings: %u",
                                         (unsigned long long)matched, (unsigned long long)changed, x->diag->warn_count));
    else
        exec_pend_ok(x, changed, NULL);
out:
    x->div_zero_error = false;
    if (q.cur_pk)
        for (uint32_t i = 0; i < q.nsrc; i++)
            buf_free(&q.cur_pk[i]);
    mem_free(M.rows);
    query_release(&q);
    return rc;
}

/* One UPDATE's run over its matched rows (collected, or streamed as the scan reaches them). */
typedef struct upd_run {
    sql_exec_ctx_t *x;
    const sql_update_t *up;
    dml_run_t *D;
    query_t *q;
    engine_trx_t *trx;
    exec_trg_t trg;
    bool loaded, strict;
    bool *assigned;
    int ai;
    uint64_t changed, unmatched;
    arena_t *ra;              /* per-row values: the statement's arena, or the streamed row's */
    arena_t *rowarena;        /* the streamed row's, emptied for each row */
} upd_run_t;

/* The trx and the triggers; then, when dml_may_stream says so, rows change as the scan reaches them. */
static int update_one(upd_run_t *U, dml_match_t *m);
static int update_row(void *arg, dml_match_t *m) { return update_one(arg, m); }

static int update_setup(dml_run_t *D, void *arg)
{
    upd_run_t *U = arg;
    sql_exec_ctx_t *x = U->x;
    int rc;
    if ((rc = exec_trg_load(x, D->t, &U->trg)) != 0 || (rc = exec_trx(x, &U->trx)) != 0)
        return rc;
    U->loaded = true;
    D->xe.ev.div_zero_error = x->div_zero_error;
    D->xe.q = U->q; /* a subquery in SET reads the row being updated (SET c = (SELECT ... WHERE b.x = t.x)) */
    U->assigned = arena_calloc(x->arena, D->t->ncols + 1);
    for (uint32_t i = 0; i < U->up->nset; i++)
        U->assigned[U->up->set[i].col->slot] = true;
    U->ai = cat_table_autoinc_col(D->t);
    bool stream = dml_may_stream(x, D->t, U->assigned, &U->trg, EXEC_TRG_UPDATE, U->up->where, D->norder);
    for (uint32_t i = 0; i < U->up->nset && stream; i++)
        stream = exec_expr_streams(U->up->set[i].value);
    if (stream) {
        D->row = update_row;
        D->row_arg = U;
        D->ra = U->ra = U->rowarena;
    }
    return 0;
}
static int update_one(upd_run_t *U, dml_match_t *m)
{
    sql_exec_ctx_t *x = U->x;
    cat_table_t *t = U->D->t;
    arena_t *ra = U->ra;
    int rc = 0;
    value_t *nw = arena_alloc(ra, sizeof(value_t) * (t->ncols + 1));
    value_t *ev = arena_alloc(ra, sizeof(value_t) * (t->ncols + 1));
    memcpy(nw, m->stored, sizeof(value_t) * t->ncols);
    memcpy(ev, m->out, sizeof(value_t) * t->ncols);
    for (uint32_t i = 0; i < U->up->nset && !rc; i++) {
        int c = U->up->set[i].col->slot;
        value_t v;
        if (t->cols[c].gen_expr) { /* computed below; a value written for it is 1906 */
            if (!gencol_assign_allowed(U->up->set[i].value, NULL))
                rc = gencol_value_given(x, t, (uint32_t)c, U->strict);
            continue;
        }
        if (U->up->set[i].value->kind == SQL_E_DEFAULT)
            rc = col_default_value(x, &t->cols[c], &v, ra, U->strict);
        else
            rc = row_eval(&U->D->xe, U->up->set[i].value, ev, &v);
        if (rc)
            break;
        if (v.type == VAL_NULL && !t->cols[c].rc.nullable && exec_trg_has(&U->trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE)) {
            nw[c] = v; /* NOT NULL is checked after the BEFORE trigger (exec_trg_null_check) */
        } else if (v.type == VAL_NULL && !t->cols[c].rc.nullable && !U->strict) {
            rc = table_value_store(t, (uint32_t)c, &v, &nw[c], ra, x->diag, false, m->rowno);
        } else {
            rc = table_value_store(t, (uint32_t)c, &v, &nw[c], ra, x->diag, U->strict, m->rowno);
        }
        if (rc)
            break;
        ev[c] = table_value_out(&t->cols[c], &nw[c], ra);
    }
    if (!rc)
        rc = gencol_compute(x, t, nw, ra, U->strict, m->rowno);
    if (rc)
        return rc;
    /* the UPDATE triggers fire for every row matched, changed or not (MariaDB) */
    if ((rc = exec_trg_fire(x, &U->trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE, m->stored, nw, m->rowno)) != 0)
        return rc;
    if (exec_trg_has(&U->trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE) &&
        ((rc = exec_trg_null_check(x, t, nw, U->strict, m->rowno)) != 0 ||
         (rc = gencol_compute(x, t, nw, ra, U->strict, m->rowno)) != 0))
        return rc;
    bool ch = false;
    for (uint32_t c = 0; c < t->ncols; c++)
        ch |= !t->cols[c].gen_on_read && !exec_same_stored(&m->stored[c], &nw[c]);
    if (!ch) {
        rc = exec_trg_fire(x, &U->trg, EXEC_TRG_UPDATE, EXEC_TRG_AFTER, m->stored, nw, m->rowno);
        return rc;
    }
    bool stamped = false;
    for (uint32_t c = 0; c < t->ncols; c++)
        if (t->cols[c].on_update_now && !U->assigned[c]) {
            value_t now;
            table_value_default(&(cat_column_t){.def = CAT_DEF_NOW, .default_text = arena_printf(ra, "%u",
                                t->cols[c].rc.scale)}, &now, ra, x->diag, false);
            table_value_store(t, c, &now, &nw[c], ra, x->diag, false, m->rowno);
            stamped = true;
        }
    if (stamped && (rc = gencol_compute(x, t, nw, ra, U->strict, m->rowno)) != 0)
        return rc; /* a generated column may read the ON UPDATE column */
    buf_t pk = {m->pk, m->pklen, m->pklen};
    /* UPDATE IGNORE: a row whose new key is a duplicate stays as it is (MariaDB adds no warning) */
    table_dup_t dup;
    buf_init(&dup.pk);
    rc = constraints_check_row(x, t, nw, U->up->ignore);
    if (rc == 0)
        rc = exec_json_check(x, t, nw);
    if (rc == 0)
        rc = table_update(U->trx, t, &pk, m->stored, nw, &x->ss->stmt, x->diag, U->up->ignore ? &dup : NULL);
    else if (rc > 0) {
        U->unmatched += rc == CONSTRAINTS_SKIP_VIEW; /* a row the view would not show: MariaDB does not count it */
        rc = TABLE_DUP; /* UPDATE IGNORE: the row stays, with the warning */
    }
    buf_free(&dup.pk);
    x->ss->wrote = true;
    if (rc == TABLE_DUP || rc == TABLE_FK_IGNORED) {
        rc = 0;
        return rc;
    }
    if (rc)
        return rc;
    if (U->ai >= 0 && U->assigned[U->ai] && nw[U->ai].type != VAL_NULL)
        table_autoinc_seen(t, nw[U->ai].type == VAL_UINT ? nw[U->ai].u : (uint64_t)MAX(nw[U->ai].i, 0));
    U->changed++;
    rc = exec_trg_fire(x, &U->trg, EXEC_TRG_UPDATE, EXEC_TRG_AFTER, m->stored, nw, m->rowno);
    return rc;
}

int exec_update(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_update_t *up = st->update;
    if (up->multi)
        return exec_multi_dml(x, st);
    dml_run_t D;
    query_t q;
    memset(&q, 0, sizeof q);
    int rc;
    /* bind the SET list against the table first (1054 before anything runs) */
    if ((rc = bind_from_target(&q, x, up->tables)) != 0)
        goto out0;
    for (uint32_t i = 0; i < up->nset && !plan_cache_valid(x, st, &q); i++) {
        if ((rc = bind_expr(&q, up->set[i].col, "SET", false)) != 0 ||
            (rc = bind_expr(&q, up->set[i].value, "SET", false)) != 0)
            goto out0;
    }
    query_release(&q);
    bool strict = x->strict && !up->ignore;
    x->div_zero_error = strict && !x->div_zero_off; /* in WHERE, SET and their subqueries (row_eval_init) */
    arena_t ra;
    arena_init(&ra, 16384);
    upd_run_t U = {.x = x, .up = up, .D = &D, .q = &q, .strict = strict, .ra = x->arena, .rowarena = &ra};
    rc = dml_prepare(x, st, &D, &q, up->tables, up->where, up->order_by, up->norder_by, &up->limit, update_setup, &U);
    if (!rc && !U.loaded)
        rc = update_setup(&D, &U); /* LIMIT 0: nothing scanned */
    for (uint64_t r = 0; r < D.n && !rc && !D.row; r++)
        rc = update_one(&U, &D.m[r]);
    if (rc)
        goto out;
    x->row_count = (int64_t)U.changed;
    exec_pend_ok(x, U.changed, arena_printf(x->arena, "Rows matched: %llu  Changed: %llu  Warnings: %u", (unsigned long long)(D.n - U.unmatched),
                                     (unsigned long long)U.changed, x->diag->warn_count));
out:
    x->div_zero_error = false;
    mem_free(D.m);
    arena_destroy(&ra);
out0:
    query_release(&q);
    return rc;
}

/* One DELETE's run (collected rows, or streamed as the scan reaches them). */
typedef struct del_run {
    sql_exec_ctx_t *x;
    const sql_delete_t *del;
    query_t *q;
    engine_trx_t *trx;
    exec_trg_t trg;
    cat_table_t *t;
    bool loaded;
    uint64_t deleted;
    arena_t *rowarena;
} del_run_t;

static int delete_one(del_run_t *R, dml_match_t *m)
{
    sql_exec_ctx_t *x = R->x;
    cat_table_t *t = R->t;
    buf_t pk = {m->pk, m->pklen, m->pklen};
    int rc;
    if (x->returning && (rc = returning_row(x, t, m->stored)) != 0)
        return rc; /* evaluated before the row goes, as MariaDB (a subquery still sees it) */
    if ((rc = exec_trg_fire(x, &R->trg, EXEC_TRG_DELETE, EXEC_TRG_BEFORE, m->stored, NULL, m->rowno)) != 0)
        return rc;
    rc = table_delete(R->trx, t, &pk, m->stored, &x->ss->stmt, x->diag);
    x->ss->wrote = true;
    if (rc == TABLE_FK_IGNORED) /* DELETE IGNORE: a row a child restricts stays, with the 1451 as a warning */
        return 0;
    if (rc == 0) {
        R->deleted++;
        rc = exec_trg_fire(x, &R->trg, EXEC_TRG_DELETE, EXEC_TRG_AFTER, m->stored, NULL, m->rowno);
    }
    return rc;
}

static int delete_row(void *arg, dml_match_t *m) { return delete_one(arg, m); }

static int delete_setup(dml_run_t *D, void *arg)
{
    del_run_t *R = arg;
    sql_exec_ctx_t *x = R->x;
    int rc;
    R->t = D->t;
    if (R->del->nreturning &&
        (rc = returning_begin(x, R->del->returning, R->del->nreturning, D->t, R->q->src[0].db, R->q->src[0].alias,
                              NULL)) != 0)
        return rc;
    if ((rc = exec_trg_load(x, D->t, &R->trg)) != 0 || (rc = exec_trx(x, &R->trx)) != 0)
        return rc;
    R->loaded = true;
    /* RETURNING keeps what it reads of the rows: those are read first */
    if (!R->del->nreturning && dml_may_stream(x, D->t, NULL, &R->trg, EXEC_TRG_DELETE, R->del->where, D->norder)) {
        D->row = delete_row;
        D->row_arg = R;
        D->ra = R->rowarena;
    }
    return 0;
}

int exec_delete(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_delete_t *del = st->del;
    if (del->multi)
        return exec_multi_dml(x, st);
    dml_run_t D;
    query_t q;
    memset(&q, 0, sizeof q);
    arena_t ra;
    arena_init(&ra, 16384);
    del_run_t R = {.x = x, .del = del, .q = &q, .rowarena = &ra};
    int rc = dml_prepare(x, st, &D, &q, del->from, del->where, del->order_by, del->norder_by, &del->limit,
                         delete_setup, &R);
    if (!rc && !R.loaded)
        rc = delete_setup(&D, &R); /* LIMIT 0: nothing scanned */
    for (uint64_t r = 0; r < D.n && !rc && !D.row; r++)
        rc = delete_one(&R, &D.m[r]);
    if (rc)
        goto out;
    x->row_count = (int64_t)R.deleted;
    exec_pend_ok(x, R.deleted, NULL);
    returning_finish(x);
out:
    mem_free(D.m);
    arena_destroy(&ra);
    query_release(&q);
    return rc;
}
