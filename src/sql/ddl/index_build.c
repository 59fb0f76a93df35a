/*
 * Secondary index builds (CREATE INDEX, ALTER TABLE ... ADD INDEX, the indexes of a rebuilt table): one scan of
 * the clustered tree through a read view, every new index's entries into its own external sort (extsort.h,
 * bounded memory: runs spill to @@tmpdir), then each sorted stream loaded bottom-up into a fresh tree
 * (engine_bulk_*).  No entry gets undo or a row lock and no page is split: the cost is one sort per index and
 * one write of each page.
 *
 * The caller keeps writers out for the duration (the DDL's SHARED_NO_WRITE metadata lock, mdl.h) and publishes
 * the trees in the catalog only after this returns; a failed or killed build drops them (engine_bulk_abort), and
 * a crash leaves trees the engine drops at its next start.
 *
 * UNIQUE: the sort key is the whole entry (index columns, then the primary key), so equal index values come out
 * next to each other; two neighbours whose column part is equal and holds no NULL are a duplicate (1062).  For
 * those indexes the sort payload carries the column part's length and the values as MariaDB prints them in the
 * message.
 */
#include <stdatomic.h>
#include <string.h>

#include "sql/exec/exec_int.h"
#include "access/catalog.h"
#include "sql/exec/extsort.h"
#include "access/stats.h"
#include "access/table.h"
#include "util/blocking.h"
#include "util/util.h"

/* Memory for all the sorts of one build together (split between the indexes). */
#define IDXBUILD_SORT_BUDGET (64u << 20)

typedef struct {
    uint32_t ix;
    bool unique;
    extsort_t sort;
    engine_bulk_t *bulk;
} idxbuild_one_t;

/* Payload of a UNIQUE index's record: u16 length of the column part, u8 has a NULL, then the message text. */
static void unique_payload(const cat_table_t *t, uint32_t ix, const value_t *row, size_t plen, buf_t *out)
{
    buf_reset(out);
    bool has_null = false;
    for (uint32_t k = 0; k < t->idx[ix].ncols; k++)
        has_null |= row[t->idx[ix].cols[k].col].type == VAL_NULL;
    uint16_t pl = (uint16_t)plen;
    uint8_t hdr[3];
    memcpy(hdr, &pl, 2); /* host order: the sort's records never leave the process */
    hdr[2] = has_null;
    buf_append(out, hdr, 3);
    for (uint32_t c = 0; c < t->idx[ix].ncols; c++) {
        if (c)
            buf_append_byte(out, '-');
        value_append_text(out, &row[t->idx[ix].cols[c].col]);
    }
}

static bool killed(sql_exec_ctx_t *x) { return x->kill_query && atomic_exchange(x->kill_query, false); }

/* Progress in thousandths of a percent: reading is the first half, loading the second. */
static void progress(uint64_t done, uint64_t total, uint32_t base)
{
    uint64_t p = total ? MIN(done, total) * 50000 / total : 0;
    blocking_set_progress(base + (uint32_t)p);
}

static int scan_rows(sql_exec_ctx_t *x, engine_trx_t *trx, const cat_table_t *t, idxbuild_one_t *b, uint32_t n,
                     uint64_t *nrows)
{
    table_scan_t sc;
    buf_t key, pay;
    buf_init(&key);
    buf_init(&pay);
    uint64_t est = 0;
    stats_table_rows(sql_exec_catalog(), t, &est);
    arena_t rowa;
    arena_init(&rowa, 4096);
    int rc = table_scan_open(&sc, trx, t, -1, NULL, NULL, false, &rowa);
    uint64_t rows = 0;
    while (rc == 0 && (rc = table_scan_next(&sc)) == 0) {
        for (uint32_t i = 0; i < n && !rc; i++) {
            table_index_key(t, b[i].ix, sc.row, &sc.pk, &key);
            if (b[i].unique)
                unique_payload(t, b[i].ix, sc.row, key.len - sc.pk.len, &pay);
            rc = extsort_add(&b[i].sort, key.data, key.len, pay.data, b[i].unique ? pay.len : 0);
        }
        if ((++rows & 4095) == 0) {
            progress(rows, est, 0);
            if (killed(x))
                rc = diag_error(x->diag, ER_QUERY_INTERRUPTED);
        }
    }
    table_scan_close(&sc);
    arena_destroy(&rowa);
    buf_free(&key);
    buf_free(&pay);
    *nrows = rows;
    if (rc == STRATA_ENOTFOUND)
        return 0;
    if (rc < -10000)
        return table_engine_err(x->diag, t, rc);
    if (rc < 0 && !diag_failed(x->diag))
        return diag_error(x->diag, ER_OUTOFMEMORY, (int)IDXBUILD_SORT_BUDGET); /* the sort's temporary file */
    return rc;
}

/* The sorted entries of one index into its tree. */
static int load_index(sql_exec_ctx_t *x, const cat_table_t *t, idxbuild_one_t *b, uint64_t nrows, uint64_t *loaded)
{
    int rc = extsort_finish(&b->sort);
    if (rc)
        return diag_error(x->diag, ER_OUTOFMEMORY, (int)IDXBUILD_SORT_BUDGET);
    blocking_set_state("Building index: loading tree");
    const uint8_t *k, *p;
    size_t kl, pl;
    buf_t last;
    buf_init(&last);
    bool last_null = true;
    while ((rc = extsort_next(&b->sort, &k, &kl, &p, &pl)) == 1) {
        if (b->unique && pl >= 3) {
            uint16_t plen;
            memcpy(&plen, p, 2);
            bool has_null = p[2] != 0;
            if (!has_null && !last_null && last.len == plen && memcmp(last.data, k, plen) == 0) {
                char *vals = arena_strndup(x->arena, (const char *)p + 3, pl - 3);
                rc = diag_error(x->diag, ER_DUP_ENTRY, vals, t->idx[b->ix].name);
                break;
            }
            buf_reset(&last);
            buf_append(&last, k, plen);
            last_null = has_null;
        }
        if ((rc = engine_bulk_add(b->bulk, k, kl, "", 0)) != 0) {
            rc = table_engine_err(x->diag, t, rc);
            break;
        }
        if ((++*loaded & 4095) == 0) {
            progress(*loaded, nrows, 50000);
            if (killed(x)) {
                rc = diag_error(x->diag, ER_QUERY_INTERRUPTED);
                break;
            }
        }
    }
    buf_free(&last);
    if (rc < 0 && !diag_failed(x->diag))
        rc = diag_error(x->diag, ER_OUTOFMEMORY, (int)IDXBUILD_SORT_BUDGET);
    return rc < 0 ? rc : 0;
}

int exec_index_build(sql_exec_ctx_t *x, cat_table_t *t, const uint32_t *ixs, uint32_t n)
{
    idxbuild_one_t *b = mem_calloc(n ? n : 1, sizeof *b);
    int rc = 0;
    uint32_t started = 0;
    for (uint32_t i = 0; i < n && !rc; i++, started++) {
        b[i].ix = ixs[i];
        b[i].unique = t->idx[ixs[i]].kind == CAT_IDX_UNIQUE;
        extsort_init(&b[i].sort, MAX(IDXBUILD_SORT_BUDGET / n, EXTSORT_MIN_BUDGET), x->tmpdir);
        if ((rc = engine_bulk_begin(catalog_engine(sql_exec_catalog()), t->space_id, &b[i].bulk)) != 0) {
            extsort_free(&b[i].sort);
            rc = table_engine_err(x->diag, t, rc);
            break;
        }
    }
    const char *old_state = blocking_set_state("Building index: reading rows");
    engine_trx_t *trx = NULL;
    uint64_t nrows = 0, loaded = 0;
    if (!rc && (rc = engine_trx_begin(catalog_engine(sql_exec_catalog()), &trx)) != 0)
        rc = table_engine_err(x->diag, t, rc);
    if (!rc)
        rc = scan_rows(x, trx, t, b, n, &nrows);
    if (trx)
        engine_trx_rollback(trx); /* it only read */
    if (!rc)
        blocking_set_state("Building index: sorting");
    for (uint32_t i = 0; i < started; i++) {
        if (!rc)
            rc = load_index(x, t, &b[i], nrows * n, &loaded);
        extsort_free(&b[i].sort);
        if (!rc) {
            t->idx[b[i].ix].tree = engine_bulk_tree(b[i].bulk);
            if ((rc = engine_bulk_finish(b[i].bulk)) != 0) {
                rc = table_engine_err(x->diag, t, rc);
                t->idx[b[i].ix].tree = 0; /* dropped by the failed finish */
            }
            b[i].bulk = NULL;
        }
    }
    for (uint32_t i = 0; i < started; i++) {
        if (b[i].bulk)
            engine_bulk_abort(b[i].bulk);
        else if (rc && t->idx[b[i].ix].tree)
            engine_tree_drop(NULL, catalog_engine(sql_exec_catalog()), t->idx[b[i].ix].tree); /* finished before a later one failed */
        if (rc)
            t->idx[b[i].ix].tree = 0;
    }
    mem_free(b);
    blocking_set_state(old_state);
    blocking_set_progress(0);
    return rc;
}
