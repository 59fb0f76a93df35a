/*
 * Key format upgrade at start-up: tables written with an earlier key format (strings keyed by their bytes, or
 * utf8mb4_unicode_ci keyed by ASCII case folding) have their keys rebuilt with collation weights, once.
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

/* ---------------------------------------------------------------- key format steps at start-up */

/*
 * RC_KEY_VERSION 2 made the keys of latin1_swedish_ci and utf8mb3/utf8mb4_general_ci strings collation weights
 * (é = E); version 1 keys folded ASCII letters only.  A table whose version-1 index keys such a column (itself,
 * or through the PRIMARY KEY that every secondary key ends with) is brought to version 2 when the server starts:
 *   - its rows hold ASCII only in those columns: the version-1 keys are byte for byte the version-2 keys, so
 *     only the catalog record changes (the rows are read once, nothing is written);
 *   - else the table is rebuilt the way a copying ALTER TABLE does (new trees, rows copied, old trees dropped).
 * A rebuild that fails (two values a UNIQUE index told apart are equal now: 'e' and 'é') stops the start-up
 * with an error naming the table, the step and the cause.  A version-1 index over a YEAR column is rebuilt too
 * (see keys_stale_cols).
 */
static bool keys_col_changed(const cat_table_t *t, uint32_t col)
{
    const rc_col_t *rc = &t->cols[col].rc;
    coll_kind_t k = coll_kind_of(rc->coll);
    return sqlt_is_string((sqlt_t)rc->type) && (k == COLL_KIND_LATIN1_CI || k == COLL_KIND_UTF8_GENERAL);
}

/* Key format 3 made utf8mb4_unicode_ci keys UCA weights (version 2 and before folded ASCII letters only): every
 * key of such a column changes, ASCII or not. */
static bool keys_col_uca(const cat_table_t *t, uint32_t col)
{
    const rc_col_t *rc = &t->cols[col].rc;
    return sqlt_is_string((sqlt_t)rc->type) && coll_kind_of(rc->coll) == COLL_KIND_UCA;
}

/* Marks in `cols` (ncols flags) the columns whose version-1 keys are stale; returns 0 (none), 1 (strings whose
 * ASCII keys are still right) or 2 (a rebuild is needed whatever the data: YEAR keys written before 2026-11-30
 * held 1901 for every year, so version-1 YEAR indexes are rebuilt too, and so are the keys of a unicode_ci
 * column before version 3). */
static int keys_stale_cols(const cat_table_t *t, bool *cols)
{
    int any = 0;
    const cat_index_t *pk = cat_table_pk(t);
    for (uint32_t i = 0; i < t->nidx; i++) {
        const cat_index_t *x = &t->idx[i];
        if (x->key_version >= RC_KEY_VERSION)
            continue;
        for (uint32_t k = 0; k < x->ncols + (pk && x != pk ? pk->ncols : 0); k++) {
            uint32_t c = k < x->ncols ? x->cols[k].col : pk->cols[k - x->ncols].col;
            if ((x->key_version < 2 && t->cols[c].rc.type == SQLT_YEAR) || keys_col_uca(t, c))
                any = 2;
            else if (x->key_version < 2 && keys_col_changed(t, c))
                any = any ? any : 1, cols[c] = true;
        }
    }
    return any;
}

/* Whether every row holds ASCII only in the marked columns (1), not (0), or an engine error (< 0). */
static int keys_rows_ascii(sql_exec_ctx_t *x, const cat_table_t *t, const bool *cols)
{
    engine_trx_t *trx;
    int rc = engine_trx_begin(exec_engine, &trx);
    if (rc)
        return rc;
    table_scan_t sc;
    bool ascii = true;
    rc = table_scan_open(&sc, trx, t, -1, NULL, NULL, false, x->arena);
    while (rc == 0 && ascii && (rc = table_scan_next(&sc)) == 0)
        for (uint32_t c = 0; c < t->ncols && ascii; c++) {
            const value_t *v = &sc.row[c];
            if (!cols[c] || v->type != VAL_STRING)
                continue;
            for (size_t i = 0; i < v->s.len && ascii; i++)
                ascii = (unsigned char)v->s.ptr[i] < 0x80;
        }
    table_scan_close(&sc);
    engine_trx_rollback(trx);
    if (rc == STRATA_ENOTFOUND || (rc == 0 && !ascii))
        return ascii;
    return rc < 0 ? rc : -1;
}

static int keys_upgrade_table(const char *db, const char *name)
{
    arena_t mem;
    diag_t d;
    arena_init(&mem, 4096);
    diag_init(&d, 8);
    sql_exec_ctx_t x = {.arena = &mem, .diag = &d, .strict = true};
    cat_table_t *old = catalog_table_get(exec_cat, db, name);
    if (!old)
        goto done;
    bool *cols = arena_calloc(&mem, old->ncols + 1);
    int rc = 0;
    const char *how = "";
    int stale = keys_stale_cols(old, cols);
    if (!stale) {
        catalog_table_release(old);
        goto done;
    }
    cat_table_t *nt = cat_table_copy(&mem, old);
    for (uint32_t i = 0; i < nt->nidx; i++)
        nt->idx[i].key_version = RC_KEY_VERSION;
    int ascii = stale == 2 ? 0 : keys_rows_ascii(&x, old, cols);
    if (ascii < 0) {
        rc = table_engine_err(&d, old, ascii);
    } else if (ascii) {
        how = "its keys hold ASCII only: the record was updated";
        rc = catalog_table_replace(exec_cat, nt, &d);
    } else {
        how = "the table was rebuilt";
        alter_run_t A = {.x = &x, .nt = nt};
        A.src = arena_alloc(&mem, sizeof(int) * (nt->ncols + 1));
        for (uint32_t i = 0; i < nt->ncols; i++)
            A.src[i] = (int)i;
        uint64_t nrows = 0;
        if ((rc = alter_new_trees(&x, old, &A, false, &nrows)) == 0 && (rc = catalog_table_replace(exec_cat, nt, &d)) != 0)
            alter_drop_trees(nt);
    }
    catalog_table_release(old);
    if (rc) {
        log_error("key format upgrade (utf8mb4/utf8mb3_general_ci and latin1_swedish_ci keys become collation "
                  "weights; YEAR keys rebuilt; utf8mb4_unicode_ci keys become UCA weights): table `%s`.`%s` could not be brought over: %s.  Start the previous strata, make the "
                  "values distinct under the new collation rules (or drop the UNIQUE index), then start again",
                  db, name, d.n ? d.conds[d.n - 1].msg : "engine error");
        rc = rc < 0 ? rc : STRATA_EIO;
    } else {
        log_note("key format upgrade to %d: table `%s`.`%s`: %s", RC_KEY_VERSION, db, name, how);
    }
    diag_free(&d);
    arena_destroy(&mem);
    return rc;
done:
    diag_free(&d);
    arena_destroy(&mem);
    return 0;
}

int sql_exec_keys_upgrade(void)
{
    arena_t a;
    arena_init(&a, 1024);
    const char **dbs = NULL, **tabs = NULL;
    uint32_t ndb = 0, ntab = 0;
    int rc = catalog_db_list(exec_cat, &a, &dbs, &ndb);
    for (uint32_t i = 0; i < ndb && !rc; i++) {
        if (catalog_table_list(exec_cat, dbs[i], &a, &tabs, &ntab) != 0)
            continue;
        for (uint32_t k = 0; k < ntab && !rc; k++)
            rc = keys_upgrade_table(dbs[i], tabs[k]);
    }
    arena_destroy(&a);
    return rc;
}
