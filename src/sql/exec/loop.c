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

/* A source read once into memory (access_path_t.hashed): its rows kept, chained per key of its hash columns. */
typedef enum hash_state { HASH_NEW = 0, HASH_READY, HASH_OFF } hash_state_t;
typedef struct hash_src {
    hash_state_t state;       /* HASH_OFF: it did not fit and cannot be read in parts: scanned per outer row */
    bool more;                /* read in parts: rows after `resume` (a clustered key) are still to come */
    buf_t resume;
    arena_t arena;            /* the rows and keys of the part in memory */
    keymap_t map;             /* key -> chain; with no hash columns every row is under the empty key */
    uint32_t *head, *tail;    /* per key: its first and last row (index + 1; 0: none) */
    uint32_t nkeys_cap;
    value_t **rows;
    uint32_t *next;           /* per row: the next row of its key (index + 1) */
    uint32_t n, cap;
    uint8_t vtype[8];         /* per hash column: the value type its rows hold (the probe must hold the same) */
    uint16_t vcoll[8];
    bool typed[8];
    const sql_expr_t **filters; /* conjuncts naming this source only, checked as a row is kept */
    uint32_t nfilters;
} hash_src_t;

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
    hash_src_t *hs;           /* per source, when some path is hashed; else NULL */
    int split;                /* the source whose rows are read into memory in parts (-1: none) */
    uint32_t pass;            /* the outer sources' pass, one per part of that source (0: the first) */
    buf_t hkey;               /* a probe's key */
    const sql_expr_t ***jw;   /* inner joins: per depth, the WHERE conjuncts whose sources are all read there */
    uint32_t *jnw;            /* (NULL: the whole WHERE at the last depth) */
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
        /* and the WHERE's conjuncts whose sources are (the last depth's after the loop below) */
        for (uint32_t k = 0; L->jw && d + 1 < L->q->nsrc && k < L->jnw[d]; k++)
            if ((rc = row_eval_bool(&L->xe, L->jw[d][k], L->row)) <= 0)
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
    if (L->jw) {
        for (uint32_t k = 0; k < L->jnw[d]; k++)
            if ((rc = row_eval_bool(&L->xe, L->jw[d][k], L->row)) <= 0)
                return rc;
    } else if (L->where) {
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

/* The Handler_read_* counters of one scan that read nread rows (eof: it read to the end), counted as MariaDB's
 * handler calls are: a table scan is one rnd_next per row and one for the end; an index range or lookup one
 * read_key, then one read_next (read_prev descending) per further row and one for the end, a unique lookup only
 * its read_key; a whole index read in order one read_first (read_last descending), then next/prev. */
static void handler_reads(sql_exec_stats_t *st, int index, bool ranged, bool desc, bool point, uint64_t nread,
                          bool eof)
{
    uint64_t calls = nread + (eof ? 1 : 0);
    if (index < 0 && !ranged) {
        st->read_rnd_next += calls;
        return;
    }
    if (calls == 0)
        return;
    if (ranged)
        st->read_key++;
    else if (desc)
        st->read_last++;
    else
        st->read_first++;
    if (point)
        return;
    if (desc)
        st->read_prev += calls - 1;
    else
        st->read_next += calls - 1;
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
    uint64_t nread = 0;
    while ((rc = table_scan_next(&sc)) == 0) {
        nread++;
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
    handler_reads(&q->x->stats, index, lo || hi, desc, point, nread, rc == STRATA_ENOTFOUND);
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    else if (rc < 0 && rc > -10000)
        ; /* an -ER_* already pushed */
    else if (rc < 0)
        rc = table_engine_err(q->x->diag, q->src[si].t, rc);
    return rc;
}

/* ---------------------------------------------------------------- hash joins */

#define HASH_DEFAULT_BUDGET ((uint64_t)16 << 20)

/* The kind of value a hash key holds: exact numbers are one (key_append_value encodes them alike). */
static uint8_t hash_kind(const value_t *v)
{
    return v->type == VAL_INT || v->type == VAL_UINT ? VAL_DECIMAL : (uint8_t)v->type;
}

static void hash_free(hash_src_t *h)
{
    if (h->state == HASH_NEW && !h->rows)
        return;
    keymap_free(&h->map);
    mem_free(h->head);
    mem_free(h->tail);
    mem_free(h->rows);
    mem_free(h->next);
    arena_destroy(&h->arena);
    h->head = h->tail = NULL;
    h->rows = NULL;
    h->next = NULL;
    h->n = h->cap = h->nkeys_cap = 0;
}

/* Inner joins read in a chosen order: each conjunct of WHERE is checked at the first depth where every source it
 * names has been read (one with a subquery, an assignment or a volatile function at the last), so a row another
 * conjunct refuses is not joined further.  Only the order of evaluation changes: a row reaches the consumer when
 * every conjunct holds, as with the whole WHERE at the end.  Leaves L->jw NULL when all would be at the last. */
/* The conjuncts of e (the operands of its ANDs, left to right) in an arena array; their count. */
static uint32_t conjuncts(arena_t *a, const sql_expr_t *e, const sql_expr_t ***out)
{
    const sql_expr_t **list = NULL;
    uint32_t n = 0, cap = 0;
    const sql_expr_t *stack[64];
    uint32_t sp = 0;
    if (e)
        stack[sp++] = e;
    while (sp) {
        const sql_expr_t *c = stack[--sp];
        if (c->kind == SQL_E_BINARY && c->op == SQL_OP_AND && c->nargs == 2 && sp + 2 <= 64) {
            stack[sp++] = c->args[1];
            stack[sp++] = c->args[0];
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            const sql_expr_t **nl = arena_alloc(a, sizeof(*nl) * cap);
            if (n)
                memcpy(nl, list, sizeof(*nl) * n);
            list = nl;
        }
        list[n++] = c;
    }
    *out = list;
    return n;
}

static void where_by_depth(join_loop_t *L)
{
    const query_t *q = L->q;
    uint32_t n = q->nsrc;
    if (!L->where || !q->jorder || !q->jinner || n < 2)
        return;
    const sql_expr_t **conj;
    uint32_t nconj = conjuncts(q->x->arena, L->where, &conj), early = 0;
    uint32_t *depth = arena_alloc(q->x->arena, sizeof(uint32_t) * (nconj + 1));
    for (uint32_t k = 0; k < nconj; k++)
        if ((depth[k] = join_depth(q, conj[k], 0)) + 1 < n)
            early++;
    if (!early)
        return;
    L->jnw = arena_calloc(q->x->arena, sizeof(uint32_t) * n);
    L->jw = arena_calloc(q->x->arena, sizeof(*L->jw) * n);
    for (uint32_t k = 0; k < nconj; k++)
        L->jnw[depth[k]]++;
    for (uint32_t d = 0; d < n; d++) {
        L->jw[d] = arena_alloc(q->x->arena, sizeof(**L->jw) * (L->jnw[d] + 1));
        L->jnw[d] = 0;
    }
    for (uint32_t k = 0; k < nconj; k++)
        L->jw[depth[k]][L->jnw[depth[k]]++] = conj[k];
}

/* The conjuncts that name source si alone: of WHERE and every ON when the joins are all inner, else of its own
 * ON only (a WHERE conjunct on an outer join's inner table may hold on its NULL-extended row). */
static void hash_filters(join_loop_t *L, uint32_t si, hash_src_t *h)
{
    const query_t *q = L->q;
    const sql_expr_t *roots[2] = {q->src[si].on, q->jinner ? L->where : NULL};
    uint32_t nroots = 2;
    for (uint32_t k = 0; k < q->nsrc + nroots; k++) {
        const sql_expr_t *e = k < nroots ? roots[k] : (q->jinner && k - nroots != si ? q->src[k - nroots].on : NULL);
        const sql_expr_t **conj;
        uint32_t nconj = conjuncts(q->x->arena, e, &conj);
        for (uint32_t j = 0; j < nconj; j++) {
            bool pure = true;
            uint64_t m = expr_src_mask(q, conj[j], &pure);
            if (!pure || m != (uint64_t)1 << si)
                continue;
            const sql_expr_t **nl = arena_alloc(L->q->x->arena, sizeof(*nl) * (h->nfilters + 1));
            if (h->nfilters)
                memcpy(nl, h->filters, sizeof(*nl) * h->nfilters);
            nl[h->nfilters++] = conj[j];
            h->filters = nl;
        }
    }
}

static uint64_t hash_bytes_held(const hash_src_t *h)
{
    return h->arena.total + (uint64_t)h->cap * (sizeof(value_t *) + sizeof(uint32_t)) +
           (uint64_t)h->nkeys_cap * 2 * sizeof(uint32_t) + (uint64_t)h->map.cap * sizeof(uint32_t) +
           (uint64_t)h->map.kcap * (sizeof(uint8_t *) + sizeof(size_t));
}

/* Keeps one row of source si (stored values) under key k. */
static void hash_keep(hash_src_t *h, const query_source_t *s, const value_t *stored, const buf_t *k)
{
    bool added;
    uint32_t ki = keymap_put(&h->map, k->data, k->len, &added);
    if (ki >= h->nkeys_cap) {
        uint32_t nc = h->nkeys_cap ? h->nkeys_cap * 2 : 64;
        while (nc <= ki)
            nc *= 2;
        h->head = mem_realloc(h->head, sizeof(uint32_t) * nc);
        h->tail = mem_realloc(h->tail, sizeof(uint32_t) * nc);
        memset(h->head + h->nkeys_cap, 0, sizeof(uint32_t) * (nc - h->nkeys_cap));
        memset(h->tail + h->nkeys_cap, 0, sizeof(uint32_t) * (nc - h->nkeys_cap));
        h->nkeys_cap = nc;
    }
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 256;
        h->rows = mem_realloc(h->rows, sizeof(value_t *) * h->cap);
        h->next = mem_realloc(h->next, sizeof(uint32_t) * h->cap);
    }
    value_t *r = arena_alloc(&h->arena, sizeof(value_t) * (s->t->ncols + 1));
    for (uint32_t c = 0; c < s->t->ncols; c++)
        r[c] = !s->need || s->need[c] ? value_copy_into(&h->arena, &stored[c]) : value_null();
    h->rows[h->n] = r;
    h->next[h->n] = 0;
    h->n++;
    /* rows of a key stay in scan order: a probe gives them as a scan of the table would */
    if (h->tail[ki])
        h->next[h->tail[ki] - 1] = h->n;
    else
        h->head[ki] = h->n;
    h->tail[ki] = h->n;
}

/* May the rows of si be read into memory in parts, the sources before it read again once per part?  Only when
 * every join is inner (no NULL-extended row depends on all of its rows), nothing relies on the order rows come
 * out in (an ORDER BY served by the first table's index), and no other source is read in parts. */
static bool hash_may_split(const join_loop_t *L, uint32_t si)
{
    return (L->split < 0 || L->split == (int)si) && L->q->jinner && L->order_index < 0 && !L->dml;
}

/*
 * Reads source si into memory (the next part of it when it is read in parts): the rows its filters accept and
 * whose hash columns are not NULL (NULL equals nothing), at most max(join_buffer_size, tmp_table_size) bytes.
 * A table larger than that is read in parts when hash_may_split, else left to the per-row scan (HASH_OFF).
 */
static int hash_load(join_loop_t *L, uint32_t si, const access_path_t *p)
{
    query_t *q = L->q;
    sql_exec_ctx_t *x = q->x;
    const query_source_t *s = &q->src[si];
    hash_src_t *h = &L->hs[si];
    bool resuming = h->more;
    uint64_t budget = MAX(x->join_buffer_size, x->tmp_table_size);
    if (!budget)
        budget = HASH_DEFAULT_BUDGET;
    if (h->state == HASH_NEW && !h->rows) {
        /* chunks small beside the budget, so that a part holds about the budget's worth of rows */
        arena_init(&h->arena, (size_t)MIN(MAX(budget / 16, 1024), 64 * 1024));
        keymap_init(&h->map, &h->arena);
        hash_filters(L, si, h);
    } else {
        keymap_free(&h->map);
        mem_free(h->head);
        mem_free(h->tail);
        h->head = h->tail = NULL;
        h->nkeys_cap = 0;
        h->n = 0;
        arena_reset(&h->arena);
        keymap_init(&h->map, &h->arena);
    }
    if (!q->x->stats.full_scans)
        x->stats.full_joins = 1;
    h->more = false;
    table_scan_t sc;
    int rc = table_scan_open(&sc, L->trx, s->t, -1, resuming ? &h->resume : NULL, NULL, false, x->arena);
    if (rc) {
        table_scan_close(&sc);
        return table_engine_err(x->diag, s->t, rc);
    }
    buf_t k;
    buf_init(&k);
    uint64_t seen = 0;
    while ((rc = table_scan_next(&sc)) == 0) {
        if ((++seen & 1023) == 0 && x->kill_query && atomic_exchange(x->kill_query, false)) {
            rc = diag_error(x->diag, ER_QUERY_INTERRUPTED);
            break;
        }
        if (resuming && seen == 1 && sc.pk.len == h->resume.len && memcmp(sc.pk.data, h->resume.data, sc.pk.len) == 0)
            continue; /* the last row of the part before */
        x->stats.rows_examined++;
        const value_t *stored = sc.row;
        if (h->nfilters) {
            for (uint32_t c = 0; c < s->t->ncols; c++)
                L->row[s->base + c] = stored[c];
            bool keep = true;
            for (uint32_t f = 0; f < h->nfilters && keep; f++) {
                int r = row_eval_bool(&L->xe, h->filters[f], L->row);
                if (r < 0) {
                    rc = r;
                    goto out;
                }
                keep = r > 0;
            }
            if (!keep)
                continue;
        }
        buf_reset(&k);
        bool null_key = false, mixed = false;
        for (uint32_t j = 0; j < p->nhash; j++) {
            const value_t *v = &stored[p->hcol[j]];
            if (v->type == VAL_NULL) {
                null_key = true;
                break;
            }
            uint8_t kind = hash_kind(v);
            if (!h->typed[j]) {
                h->typed[j] = true;
                h->vtype[j] = kind;
                h->vcoll[j] = v->type == VAL_STRING ? v->coll : 0;
            } else if (kind != h->vtype[j] || (kind == VAL_STRING && v->coll != h->vcoll[j])) {
                mixed = true;
            }
            key_append_value(&k, v, false);
        }
        if (mixed && resuming) { /* (a part's rows were given out already: too late to scan instead) */
            diag_push_msg(x->diag, DIAG_ERROR, ER_UNKNOWN_ERROR, "hash join: values of different kinds in one column");
            rc = -ER_UNKNOWN_ERROR;
            break;
        }
        if (mixed) { /* a column whose rows hold values of different kinds: no key serves every probe */
            h->state = HASH_OFF;
            break;
        }
        if (null_key)
            continue;
        hash_keep(h, s, stored, &k);
        if (hash_bytes_held(h) > budget) {
            if (!hash_may_split(L, si)) {
                h->state = HASH_OFF;
                break;
            }
            L->split = (int)si;
            h->more = true;
            buf_reset(&h->resume);
            buf_append(&h->resume, sc.pk.data, sc.pk.len);
            break;
        }
    }
out:
    buf_free(&k);
    table_scan_close(&sc);
    handler_reads(&x->stats, -1, false, false, false, seen, rc == STRATA_ENOTFOUND); /* (a part: a scan on) */
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    else if (rc < 0 && rc > -10000)
        ; /* an -ER_* already pushed */
    else if (rc < 0)
        rc = table_engine_err(x->diag, s->t, rc);
    if (rc)
        return rc;
    if (h->state == HASH_OFF) {
        hash_free(h);
        h->state = HASH_OFF;
        h->more = false;
        if (L->split == (int)si)
            L->split = -1;
        return 0;
    }
    h->state = HASH_READY;
    return 0;
}

/* Is probe value v looked up by key bytes in hash column j?  Only a value of the kind the column's rows hold
 * (any exact number for an exact number, a string of the same collation, the same temporal type): then the
 * comparison's equality is the keys'. */
static bool hash_probe_ok(const hash_src_t *h, uint32_t j, const value_t *v)
{
    if (!h->typed[j])
        return true; /* no row to find */
    if (hash_kind(v) != h->vtype[j])
        return false;
    return v->type != VAL_STRING || (v->dec != VAL_DEC_ENUM && v->coll == h->vcoll[j]);
}

/* The rows of hashed source si for the row in hand, as loop_emit's result; *scan when no key serves a probe value
 * and the caller scans the table for this row instead. */
static int hash_probe(join_loop_t *L, uint32_t si, const access_path_t *p, bool *matched, bool *scan)
{
    hash_src_t *h = &L->hs[si];
    buf_reset(&L->hkey);
    for (uint32_t j = 0; j < p->nhash; j++) {
        value_t v;
        int rc = row_eval(&L->xe, p->hval[j], L->row, &v);
        if (rc)
            return rc;
        if (v.type == VAL_NULL)
            return 0; /* equals nothing */
        if (!hash_probe_ok(h, j, &v)) {
            *scan = L->pass == 0; /* (later passes: the first one scanned the whole table for this row) */
            return 0;
        }
        key_append_value(&L->hkey, &v, false);
    }
    int64_t ki = keymap_find(&h->map, L->hkey.data, L->hkey.len);
    int rc = 0;
    for (uint32_t r = ki < 0 ? 0 : h->head[ki]; r && !rc; r = h->next[r - 1])
        rc = loop_emit(L, si, NULL, h->rows[r - 1], matched);
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
    if (p->hashed && L->hs && L->hs[si].state != HASH_OFF) {
        if (L->hs[si].state == HASH_NEW && (rc = hash_load(L, si, p)) != 0)
            return rc;
        if (L->hs[si].state == HASH_READY) {
            bool scan = false;
            rc = hash_probe(L, si, p, &matched, &scan);
            if (!scan)
                goto end;
        }
    }
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
                 .order_desc = order_desc, .split = -1};
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
    where_by_depth(&L);
    for (uint32_t i = 0; i < q->nsrc && !L.hs; i++)
        if (L.paths[i].hashed)
            L.hs = arena_calloc(x->arena, sizeof(hash_src_t) * q->nsrc);
    rc = loop_level(&L, 0);
    /* a hashed source read in parts: the sources before it read again for each further part */
    while (rc == 0 && L.split >= 0 && L.hs[L.split].more) {
        if ((rc = hash_load(&L, (uint32_t)L.split, &L.paths[L.split])) != 0)
            break;
        L.pass++;
        rc = loop_level(&L, 0);
    }
    if (L.hs) {
        for (uint32_t i = 0; i < q->nsrc; i++) {
            hash_free(&L.hs[i]);
            buf_free(&L.hs[i].resume);
        }
        buf_free(&L.hkey);
    }
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
