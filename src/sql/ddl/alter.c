/*
 * ALTER TABLE: in-place changes (rename, add/drop secondary index, defaults, comments) and rebuilds into new
 * trees when columns or the primary key change; ALGORITHM= and LOCK= honoured or refused with MariaDB's errors.
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
#include "sql/ddl/constraint.h"
#include "sql/exec/gencol.h"

/* ---- ALTER TABLE that changes columns or the primary key: a rebuild into new trees ---- */


static void alter_insert_col(alter_run_t *A, uint32_t pos, const cat_column_t *c, int src)
{
    cat_table_t *t = A->nt;
    if (t->ncols + 1 > A->cap) {
        A->cap = (t->ncols + 1) * 2;
        cat_column_t *nc = arena_calloc(A->x->arena, sizeof(cat_column_t) * A->cap);
        int *ns = arena_alloc(A->x->arena, sizeof(int) * A->cap);
        memcpy(nc, t->cols, sizeof(cat_column_t) * t->ncols);
        memcpy(ns, A->src, sizeof(int) * t->ncols);
        t->cols = nc;
        A->src = ns;
    }
    memmove(&t->cols[pos + 1], &t->cols[pos], sizeof(cat_column_t) * (t->ncols - pos));
    memmove(&A->src[pos + 1], &A->src[pos], sizeof(int) * (t->ncols - pos));
    t->cols[pos] = *c;
    A->src[pos] = src;
    t->ncols++;
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col != UINT32_MAX && t->idx[i].cols[k].col >= pos)
                t->idx[i].cols[k].col++;
}

static void alter_remove_col(alter_run_t *A, uint32_t pos)
{
    cat_table_t *t = A->nt;
    memmove(&t->cols[pos], &t->cols[pos + 1], sizeof(cat_column_t) * (t->ncols - pos - 1));
    memmove(&A->src[pos], &A->src[pos + 1], sizeof(int) * (t->ncols - pos - 1));
    t->ncols--;
    for (uint32_t i = 0; i < t->nidx; i++) {
        cat_index_t *ix = &t->idx[i];
        uint32_t w = 0;
        for (uint32_t k = 0; k < ix->ncols; k++) {
            if (ix->cols[k].col == pos)
                continue;
            ix->cols[w] = ix->cols[k];
            if (ix->cols[w].col > pos)
                ix->cols[w].col--;
            w++;
        }
        ix->ncols = w;
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < t->nidx; i++)
        if (t->idx[i].ncols)
            t->idx[w++] = t->idx[i];
    t->nidx = w;
}

/* MariaDB resolves the column a CHANGE / MODIFY / RENAME COLUMN / DROP COLUMN names in the table as it was before
 * the ALTER, and each of its columns is changed by one such clause at most: a second clause on it, or one naming
 * a column the ALTER adds or renames to, finds nothing (so RENAME COLUMN a TO b, RENAME COLUMN b TO a swaps).
 * Returns the column's position in the new definition, -1 when the old table has no such column, -2 when a
 * clause took it already. */
static int alter_orig_col(const alter_run_t *A, const cat_table_t *old, bool *taken, const char *name)
{
    int o = cat_table_col(old, name);
    if (o < 0)
        return -1;
    if (taken[o])
        return -2;
    for (uint32_t j = 0; j < A->nt->ncols; j++)
        if (A->src[j] == o) {
            taken[o] = true;
            return (int)j;
        }
    return -1;
}

/* Moves column `from` to the position FIRST / AFTER name asks for. */
static int alter_position(alter_run_t *A, uint32_t from, const sql_column_def_t *cd)
{
    if (!cd->first && !cd->after)
        return (int)from;
    cat_table_t *t = A->nt;
    cat_column_t c = t->cols[from];
    int src = A->src[from];
    /* remember index references to this column by a marker, then reinsert */
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == from)
                t->idx[i].cols[k].col = UINT32_MAX;
    memmove(&t->cols[from], &t->cols[from + 1], sizeof(cat_column_t) * (t->ncols - from - 1));
    memmove(&A->src[from], &A->src[from + 1], sizeof(int) * (t->ncols - from - 1));
    t->ncols--;
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col != UINT32_MAX && t->idx[i].cols[k].col > from)
                t->idx[i].cols[k].col--;
    uint32_t pos = 0;
    if (cd->after) {
        int a = cat_table_col(t, cd->after);
        if (a < 0)
            return diag_error(A->x->diag, ER_BAD_FIELD_ERROR, cd->after, t->name);
        pos = (uint32_t)a + 1;
    }
    alter_insert_col(A, pos, &c, src);
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == UINT32_MAX)
                t->idx[i].cols[k].col = pos;
    return (int)pos;
}

/* Copies every row of old into the new trees of nt, converting columns; batches of rows per transaction. */
static int alter_copy(sql_exec_ctx_t *x, const cat_table_t *old, alter_run_t *A, bool ignore, uint64_t *nrows)
{
    cat_table_t *nt = A->nt;
    cat_counters_t tmpctr;
    memset(&tmpctr, 0, sizeof tmpctr);
    atomic_store(&tmpctr.row_id, 1);
    atomic_store(&tmpctr.auto_inc, 1);
    nt->ctr = &tmpctr;
    int ai_new = cat_table_autoinc_col(nt);
    int ai_src = ai_new >= 0 ? A->src[ai_new] : -1;
    engine_trx_t *trx = NULL;
    table_scan_t sc;
    memset(&sc, 0, sizeof sc);
    int rc = engine_trx_begin(exec_engine, &trx);
    if (rc)
        return table_engine_err(x->diag, old, rc);
    /* the scan reads through its own transaction so batches can commit */
    engine_trx_t *rtrx;
    if ((rc = engine_trx_begin(exec_engine, &rtrx)) != 0) {
        engine_trx_rollback(trx);
        return table_engine_err(x->diag, old, rc);
    }
    rc = table_scan_open(&sc, rtrx, old, -1, NULL, NULL, false, x->arena);
    uint64_t n = 0, batch = 0;
    value_t *row = arena_alloc(x->arena, sizeof(value_t) * (nt->ncols + 1));
    arena_t rowa;
    arena_init(&rowa, 4096);
    while (rc == 0 && (rc = table_scan_next(&sc)) == 0) {
        n++;
        arena_reset(&rowa);
        for (uint32_t j = 0; j < nt->ncols && !rc; j++) {
            int o = A->src[j];
            value_t v;
            if (nt->cols[j].gen_expr) { /* computed again from the new row (gencol_compute below) */
                row[j] = value_null();
                continue;
            }
            if (o >= 0) {
                v = table_value_out(&old->cols[o], &sc.row[o], &rowa);
                if (v.type == VAL_NULL && !nt->cols[j].rc.nullable && !nt->cols[j].auto_increment) {
                    /* NOT NULL added to a column holding NULLs: 1265 in strict mode, else the type's zero */
                    if (x->strict && !ignore) {
                        rc = diag_push_msg(x->diag, DIAG_ERROR, WARN_DATA_TRUNCATED,
                                           arena_printf(x->arena, "Data truncated for column '%s' at row %llu", nt->cols[j].name, (unsigned long long)n));
                        break;
                    }
                    rc = table_value_default(&(cat_column_t){.name = nt->cols[j].name, .rc = nt->cols[j].rc}, &v, &rowa, x->diag, false);
                }
            } else {
                rc = col_default_value(x, &nt->cols[j], &v, &rowa, x->strict && !ignore);
            }
            if (rc)
                break;
            if (nt->cols[j].auto_increment && (v.type == VAL_NULL || (o < 0 && ai_src < 0))) {
                row[j] = value_uint(atomic_fetch_add(&tmpctr.auto_inc, 1));
                continue;
            }
            if (v.type == VAL_NULL) {
                row[j] = v;
                continue;
            }
            if (x->strict && !ignore && sqlt_is_string((sqlt_t)nt->cols[j].rc.type)) {
                /* MariaDB's copy reports a string cut short as 1265, not 1406 */
                diag_t tmp;
                diag_init(&tmp, 8);
                rc = table_value_store(nt, j, &v, &row[j], &rowa, &tmp, true, n);
                for (uint32_t k = 0; k < tmp.n; k++) {
                    const diag_cond_t *dc = &tmp.conds[k];
                    if (dc->code == ER_DATA_TOO_LONG)
                        diag_push_msg(x->diag, dc->level, WARN_DATA_TRUNCATED,
                                      arena_printf(x->arena, "Data truncated for column '%s' at row %llu",
                                                   nt->cols[j].name, (unsigned long long)n));
                    else
                        diag_push_msg(x->diag, dc->level, dc->code, dc->msg);
                }
                diag_free(&tmp);
                if (rc == -ER_DATA_TOO_LONG)
                    rc = -WARN_DATA_TRUNCATED;
            } else {
                rc = table_value_store(nt, j, &v, &row[j], &rowa, x->diag, x->strict && !ignore, n);
            }
            if (!rc && nt->cols[j].auto_increment)
                table_autoinc_seen(nt, row[j].type == VAL_UINT ? row[j].u : (uint64_t)MAX(row[j].i, 0));
        }
        if (!rc)
            rc = gencol_compute(x, nt, row, &rowa, x->strict && !ignore, n);
        if (!rc && A->check_rows)
            rc = constraints_check_row(x, nt, row, false);
        if (!rc && A->fk_rows)
            rc = fk_check_child_row(trx, exec_cat, nt, row, x->diag);
        /* the copied JSON columns' values must be JSON (MariaDB's copy checks them; a column added now takes its
         * default unchecked, as MariaDB's instant ADD COLUMN does) */
        for (uint32_t j = 0; j < nt->ncols && !rc; j++)
            if (nt->cols[j].is_json && A->src[j] >= 0)
                rc = exec_json_check_col(x, nt, j, &row[j]);
        if (rc)
            break;
        rc = table_insert(trx, nt, row, NULL, x->diag, NULL);
        if (rc)
            break;
        if (++batch == 256) {
            if ((rc = engine_trx_commit(trx)) != 0 || (rc = engine_trx_begin(exec_engine, &trx)) != 0) {
                trx = NULL;
                rc = table_engine_err(x->diag, old, rc);
                break;
            }
            batch = 0;
        }
    }
    table_scan_close(&sc);
    arena_destroy(&rowa);
    engine_trx_rollback(rtrx);
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    else if (rc < -10000)
        rc = table_engine_err(x->diag, old, rc);
    if (trx) {
        if (rc)
            engine_trx_rollback(trx);
        else if ((rc = engine_trx_commit(trx)) != 0)
            rc = table_engine_err(x->diag, old, rc);
    }
    *nrows = n;
    nt->ctr = NULL;
    A->nt->auto_inc_start = MAX(A->nt->auto_inc_start, atomic_load(&tmpctr.auto_inc));
    return rc;
}

void alter_drop_trees(cat_table_t *nt)
{
    if (nt->tree)
        engine_tree_drop(NULL, exec_engine, nt->tree);
    for (uint32_t i = 0; i < nt->nidx; i++)
        if (nt->idx[i].tree && nt->idx[i].tree != nt->tree)
            engine_tree_drop(NULL, exec_engine, nt->idx[i].tree);
    nt->tree = 0;
    for (uint32_t i = 0; i < nt->nidx; i++)
        nt->idx[i].tree = 0;
}

/* The trees of a rebuilt table: the rows copied into a new clustered tree (the primary key, if any, checked as
 * they go in), then every secondary index built from them by sorting (idxbuild.c), not entry by entry.  On
 * failure no new tree is left. */
int alter_new_trees(sql_exec_ctx_t *x, const cat_table_t *old, alter_run_t *A, bool ignore, uint64_t *nrows)
{
    cat_table_t *nt = A->nt;
    nt->tree = 0;
    uint32_t nsec = 0, *sec = arena_alloc(x->arena, sizeof(uint32_t) * (nt->nidx + 1));
    bool unique = false;
    for (uint32_t i = 0; i < nt->nidx; i++) {
        nt->idx[i].tree = 0;
        nt->idx[i].key_version = RC_KEY_VERSION;
        if (nt->idx[i].kind != CAT_IDX_PRIMARY)
            sec[nsec++] = i;
        unique |= nt->idx[i].kind == CAT_IDX_UNIQUE;
    }
    int rc = engine_tree_create(NULL, exec_engine, nt->space_id, &nt->tree);
    if (rc)
        return table_engine_err(x->diag, old, rc);
    if (nt->has_pk)
        nt->idx[0].tree = nt->tree;
    if (ignore && unique) {
        /* ALTER IGNORE keeps the first of duplicate rows: the copy must see each UNIQUE index as it inserts */
        for (uint32_t i = 0; i < nsec && !rc; i++)
            rc = engine_tree_create(NULL, exec_engine, nt->space_id, &nt->idx[sec[i]].tree);
        if (rc || (rc = alter_copy(x, old, A, ignore, nrows)) != 0)
            alter_drop_trees(nt);
        return rc < -10000 ? table_engine_err(x->diag, old, rc) : rc;
    }
    /* the copy writes the clustered tree only: the definition it inserts through has no secondary index */
    uint32_t nidx = nt->nidx;
    nt->nidx = nt->has_pk ? 1 : 0;
    rc = alter_copy(x, old, A, ignore, nrows);
    nt->nidx = nidx;
    if (!rc && nsec)
        rc = exec_index_build(x, nt, sec, nsec);
    if (rc)
        alter_drop_trees(nt);
    return rc;
}

/*
 * Whether MariaDB 10.11 (InnoDB) would do this ALTER with ALGORITHM=COPY, the only one whose OK reports the
 * rows copied ("Records: n"): a column whose stored type changes, or a new column whose DEFAULT is not
 * deterministic.  Adding, dropping, moving columns, NULL / NOT
 * NULL, defaults, comments, indexes, table options and widening a VARCHAR within its length-byte class are
 * INSTANT or INPLACE there, and report 0.
 */
static bool col_indexed(const cat_table_t *t, uint32_t c)
{
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == c)
                return true;
    return false;
}

static void gen_map_names(sql_expr_t *e, const cat_table_t *old, const alter_run_t *A)
{
    if (!e)
        return;
    if (e->kind == SQL_E_COLUMN) {
        int oi = cat_table_col(old, e->col.name);
        for (uint32_t k = 0; oi >= 0 && k < A->nt->ncols; k++)
            if (A->src[k] == oi)
                e->col.name = A->nt->cols[k].name;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        gen_map_names(e->args[i], old, A);
    gen_map_names(e->else_expr, old, A);
}

/* Is new column j's generation expression old column o's, once the columns this ALTER renames are renamed? */
static bool gen_expr_same(const cat_table_t *old, const alter_run_t *A, uint32_t j, int o)
{
    const char *oe = old->cols[o].gen_expr;
    sql_expr_t *e;
    diag_t scratch;
    diag_init(&scratch, 2);
    int rc = sql_parse_expr(A->x->arena, oe, strlen(oe), &e, &scratch);
    diag_free(&scratch);
    if (rc)
        return false;
    gen_map_names(e, old, A);
    return strcmp(check_expr_text(A->x->arena, e), A->nt->cols[j].gen_expr) == 0;
}

static bool alter_is_copy(const cat_table_t *old, const alter_run_t *A)
{
    const cat_table_t *nt = A->nt;
    /* an indexed VIRTUAL column dropped: InnoDB copies */
    for (uint32_t o = 0; o < old->ncols; o++) {
        if (!old->cols[o].gen_expr || old->cols[o].gen_stored || !col_indexed(old, o))
            continue;
        bool kept = false;
        for (uint32_t j = 0; j < nt->ncols; j++)
            kept |= A->src[j] == (int)o;
        if (!kept)
            return true;
    }
    for (uint32_t j = 0; j < nt->ncols; j++) {
        int o = A->src[j];
        const cat_column_t *gc = &nt->cols[j];
        bool before_old = false, before_virtual = false; /* a column of the old table comes after it */
        for (uint32_t k = j + 1; k < nt->ncols; k++) {
            before_old |= A->src[k] >= 0;
            before_virtual |= A->src[k] >= 0 && nt->cols[k].gen_expr && !nt->cols[k].gen_stored;
        }
        if (o < 0 && gc->gen_expr) {
            if (gc->gen_stored || before_old)
                return true; /* InnoDB adds only a VIRTUAL column at the end without a copy */
            for (uint32_t k = 0; k < nt->ncols; k++)
                if (A->src[k] >= 0 && strcmp(old->cols[A->src[k]].name, nt->cols[k].name) != 0)
                    return true; /* ... and not while it renames a column */
            continue;
        }
        if (o < 0 && before_virtual)
            return true;
        if (o >= 0 && !old->cols[o].gen_expr != !gc->gen_expr)
            return true;
        if (o >= 0 && gc->gen_expr && (gc->gen_stored || col_indexed(nt, j)) && !gen_expr_same(old, A, j, o))
            return true; /* a STORED or indexed one's values are computed again into a copy */
        if (o < 0) {
            /* a new column whose DEFAULT (expr) is not deterministic (uuid(), rand()): each row gets its own */
            const char *d = nt->cols[j].def == CAT_DEF_EXPR ? nt->cols[j].default_text : NULL;
            if (d && (strstr(d, "uuid(") || strstr(d, "uuid_short(") || strstr(d, "rand(") || strstr(d, "sysdate(")))
                return true;
            continue;
        }
        const rc_col_t *a = &old->cols[o].rc, *b = &nt->cols[j].rc;
        if (a->type != b->type || a->is_unsigned != b->is_unsigned || a->coll != b->coll || a->scale != b->scale)
            return true;
        /* ENUM / SET: members added at the end keep every stored index (INSTANT in MariaDB) */
        const cat_column_t *oc = &old->cols[o], *ncol = &nt->cols[j];
        if (oc->nelems > ncol->nelems)
            return true;
        for (uint32_t k = 0; k < oc->nelems; k++)
            if (strcmp(oc->elems[k], ncol->elems[k]) != 0)
                return true;
        if (a->len != b->len) {
            bool var = a->type == SQLT_VARCHAR || a->type == SQLT_VARBINARY;
            uint32_t mb = value_coll_mbmaxlen(a->coll ? a->coll : COLL_DEFAULT);
            if (!var || b->len < a->len || (a->len * mb < 256) != (b->len * mb < 256))
                return true;
        }
    }
    return false;
}

int alter_rebuild(sql_exec_ctx_t *x, const sql_alter_table_t *at)
{
    const char *db;
    cat_table_t *old = exec_open_write(x, &at->table, &db);
    if (!old)
        return -x->diag->error_code;
    int rc = 0;
    alter_run_t A = {.x = x};
    A.nt = cat_table_copy(x->arena, old);
    cat_table_t *nt = A.nt;
    A.cap = nt->ncols;
    A.src = arena_alloc(x->arena, sizeof(int) * (nt->ncols + 1));
    for (uint32_t i = 0; i < nt->ncols; i++)
        A.src[i] = (int)i;
    uint32_t idxcap = nt->nidx;
    bool *taken = arena_calloc(x->arena, sizeof(bool) * (old->ncols + 1));
    const char *new_db = NULL, *new_name = NULL;
    for (uint32_t i = 0; i < at->nactions && !rc; i++) {
        const sql_alter_action_t *a = &at->actions[i];
        switch (a->kind) {
        case SQL_ALTER_ADD_COLUMN: {
            if (cat_table_col(nt, a->col.name) >= 0) {
                if (a->if_not_exists) {
                    diag_note(x->diag, ER_DUP_FIELDNAME, a->col.name);
                    break;
                }
                rc = diag_error(x->diag, ER_DUP_FIELDNAME, a->col.name);
                break;
            }
            cat_column_t c;
            if ((rc = col_from_def(x, nt, &a->col, &c)) != 0 || (rc = col_default(x, &a->col, &c)) != 0)
                break;
            uint32_t pos = a->col.first ? 0 : nt->ncols;
            if (a->col.after) {
                int p = cat_table_col(nt, a->col.after);
                if (p < 0) {
                    rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, a->col.after, nt->name);
                    break;
                }
                pos = (uint32_t)p + 1;
            }
            alter_insert_col(&A, pos, &c, -1);
            if (a->col.primary_key || a->col.unique_key) {
                sql_index_col_t ic = {.name = a->col.name, .prefix_len = -1};
                sql_index_def_t d = {.kind = a->col.primary_key ? SQL_INDEX_PRIMARY : SQL_INDEX_UNIQUE, .cols = &ic, .ncols = 1};
                rc = add_index(x, nt, &idxcap, &d, NULL);
            }
            if (!rc && (rc = ddl_column_constraints_add(x, nt, &idxcap, &a->col)) == 0) {
                A.fk_rows |= a->col.references && !x->fk_checks_off;
            }
            break;
        }
        case SQL_ALTER_DROP_COLUMN: {
            int c = alter_orig_col(&A, old, taken, a->name);
            if (c == -2) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, a->name, nt->name);
                break;
            }
            if (c < 0) {
                if (a->if_exists)
                    ddl_cant_drop(x, true, "COLUMN", a->name);
                else
                    rc = ddl_cant_drop(x, false, "COLUMN", a->name);
                break;
            }
            if (nt->ncols == 1) {
                rc = diag_error(x->diag, ER_CANT_REMOVE_ALL_FIELDS);
                break;
            }
            if ((rc = ddl_alter_drop_column(x, nt, a->name)) != 0)
                break;
            alter_remove_col(&A, (uint32_t)c);
            break;
        }
        case SQL_ALTER_MODIFY_COLUMN: case SQL_ALTER_CHANGE_COLUMN: {
            const char *oldname = a->kind == SQL_ALTER_CHANGE_COLUMN ? a->name : a->col.name;
            int c = alter_orig_col(&A, old, taken, oldname);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, oldname, nt->name);
                break;
            }
            cat_column_t nc;
            if ((rc = col_from_def(x, nt, &a->col, &nc)) != 0 || (rc = col_default(x, &a->col, &nc)) != 0)
                break;
            bool in_pk = nt->has_pk;
            if (in_pk) {
                in_pk = false;
                for (uint32_t k = 0; k < nt->idx[0].ncols; k++)
                    in_pk |= nt->idx[0].cols[k].col == (uint32_t)c;
            }
            if (in_pk) {
                nc.rc.nullable = false;
                if (nc.def == CAT_DEF_NULL)
                    nc.def = CAT_DEF_NONE;
            }
            if ((nt->cols[c].gen_expr && !nt->cols[c].gen_stored) != (nc.gen_expr && !nc.gen_stored) && nc.gen_expr) {
                /* MariaDB checks the new expression before it refuses the change of kind (1901 before 1907) */
                cat_table_t tmp = *nt;
                tmp.cols = arena_alloc(x->arena, sizeof(cat_column_t) * (nt->ncols + 1));
                memcpy(tmp.cols, nt->cols, sizeof(cat_column_t) * nt->ncols);
                tmp.cols[c] = nc;
                if ((rc = gencol_check_table(x, &tmp)) != 0)
                    break;
            }
            if ((rc = ddl_alter_change_column(x, nt, &nt->cols[c], &nc)) != 0)
                break;
            ddl_column_check_drop(nt, nt->cols[c].name);
            nt->cols[c] = nc;
            rc = alter_position(&A, (uint32_t)c, &a->col);
            rc = rc < 0 ? rc : 0;
            if (!rc && (rc = ddl_column_constraints_add(x, nt, &idxcap, &a->col)) == 0) {
                A.fk_rows |= a->col.references && !x->fk_checks_off;
            }
            break;
        }
        case SQL_ALTER_RENAME_COLUMN: {
            int c = alter_orig_col(&A, old, taken, a->name);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, a->name, nt->name);
                break;
            }
            cat_column_t renamed = nt->cols[c];
            renamed.name = a->new_name.name;
            if ((rc = ddl_alter_change_column(x, nt, &nt->cols[c], &renamed)) != 0)
                break;
            nt->cols[c].name = a->new_name.name;
            break;
        }
        case SQL_ALTER_ALTER_DEFAULT: {
            int c = cat_table_col(nt, a->name);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, a->name, nt->name);
                break;
            }
            if (a->default_expr)
                rc = default_text(x, a->default_expr, &nt->cols[c]);
            else
                nt->cols[c].def = CAT_DEF_NONE;
            break;
        }
        case SQL_ALTER_ADD_INDEX:
            if (a->index.kind == SQL_INDEX_FOREIGN || a->index.kind == SQL_INDEX_CHECK) {
                rc = a->index.kind == SQL_INDEX_CHECK ? ddl_check_add(x, nt, &a->index) : fk_add(x, nt, &idxcap, &a->index);
                A.fk_rows |= a->index.kind == SQL_INDEX_FOREIGN && !x->fk_checks_off;
                A.check_rows |= a->index.kind == SQL_INDEX_CHECK;
                break;
            }
            if (a->index.name && cat_table_index(nt, a->index.name) >= 0 && a->index.if_not_exists) {
                diag_note(x->diag, ER_DUP_KEYNAME, a->index.name);
                break;
            }
            if (a->index.kind == SQL_INDEX_PRIMARY && nt->has_pk) {
                rc = diag_error(x->diag, ER_MULTIPLE_PRI_KEY);
                break;
            }
            if ((rc = add_index(x, nt, &idxcap, &a->index, NULL)) != 0)
                break;
            if (a->index.kind == SQL_INDEX_PRIMARY) {
                /* the primary key goes first */
                cat_index_t pk = nt->idx[nt->nidx - 1];
                memmove(&nt->idx[1], &nt->idx[0], sizeof(cat_index_t) * (nt->nidx - 1));
                nt->idx[0] = pk;
                nt->has_pk = true;
            }
            break;
        case SQL_ALTER_DROP_INDEX: case SQL_ALTER_DROP_PRIMARY_KEY: {
            const char *nm = a->kind == SQL_ALTER_DROP_PRIMARY_KEY ? "PRIMARY" : a->name;
            int ix = cat_table_index(nt, nm);
            if (ix < 0) {
                if (a->if_exists)
                    ddl_cant_drop(x, true, "INDEX", nm);
                else
                    rc = ddl_cant_drop(x, false, "INDEX", nm);
                break;
            }
            if ((rc = ddl_alter_drop_index_check(x, nt, (uint32_t)ix)) != 0)
                break;
            if (nt->idx[ix].kind == CAT_IDX_PRIMARY)
                nt->has_pk = false;
            memmove(&nt->idx[ix], &nt->idx[ix + 1], sizeof(cat_index_t) * (nt->nidx - (uint32_t)ix - 1));
            nt->nidx--;
            break;
        }
        case SQL_ALTER_RENAME_INDEX: {
            int ix = cat_table_index(nt, a->name);
            if (ix < 0) {
                rc = diag_error(x->diag, ER_KEY_DOES_NOT_EXISTS, a->name, nt->name);
                break;
            }
            nt->idx[ix].name = a->new_name.name;
            break;
        }
        case SQL_ALTER_DROP_FOREIGN_KEY: case SQL_ALTER_DROP_CONSTRAINT:
            rc = ddl_constraint_drop(x, nt, a->name, a->kind == SQL_ALTER_DROP_FOREIGN_KEY, a->if_exists);
            rc = rc > 0 ? 0 : rc;
            break;
        case SQL_ALTER_RENAME:
            new_db = exec_db_name(x, a->new_name.db);
            new_name = a->new_name.name;
            break;
        case SQL_ALTER_CONVERT_CHARSET: {
            int coll = at->opts.coll;
            if (coll < 0)
                break;
            nt->coll = (uint16_t)coll;
            for (uint32_t c = 0; c < nt->ncols; c++) {
                sqlt_t ty = (sqlt_t)nt->cols[c].rc.type;
                if ((sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET) && nt->cols[c].rc.coll != COLL_BINARY)
                    nt->cols[c].rc.coll = (uint16_t)coll;
            }
            break;
        }
        default:
            break;
        }
    }
    /* names are unique once every clause has run (a swap passes through a duplicate) */
    for (uint32_t j = 1; j < nt->ncols && !rc; j++)
        for (uint32_t k = 0; k < j && !rc; k++)
            if (strcasecmp(nt->cols[j].name, nt->cols[k].name) == 0)
                rc = diag_error(x->diag, ER_DUP_FIELDNAME, nt->cols[j].name);
    /* renamed columns: every reference by name follows, all at once; other tables' keys when published */
    const char **ren_from = arena_alloc(x->arena, sizeof(char *) * (nt->ncols + 1));
    const char **ren_to = arena_alloc(x->arena, sizeof(char *) * (nt->ncols + 1));
    uint32_t nren = 0;
    for (uint32_t j = 0; j < nt->ncols && !rc; j++)
        if (A.src[j] >= 0 && strcmp(old->cols[A.src[j]].name, nt->cols[j].name) != 0) {
            ren_from[nren] = old->cols[A.src[j]].name;
            ren_to[nren++] = nt->cols[j].name;
        }
    if (nren)
        ddl_alter_rename_refs(x, old, nt, A.src, ren_from, ren_to, nren);
    if (rc || (rc = gencol_check_table(x, nt)) != 0 || (rc = ddl_alter_recheck(x, nt)) != 0)
        goto out;
    /* InnoDB's copying ALTERs (and ADD CHECK) check every row against every CHECK; the in-place ones do not */
    A.check_rows = nt->nchecks > 0 && (A.check_rows || at->algorithm == SQL_ALGORITHM_COPY || alter_is_copy(old, &A));
    if (at->opts.set & SQL_TOPT_COMMENT)
        nt->comment = at->opts.comment;
    if ((at->opts.set & (SQL_TOPT_CHARSET | SQL_TOPT_COLLATE)) && at->opts.coll >= 0)
        nt->coll = (uint16_t)at->opts.coll;
    if (at->opts.set & SQL_TOPT_ENGINE) {
        nt->engine = ddl_engine_name(x, at->opts.engine, nt->name, &rc);
        if (rc)
            goto out;
    }
    uint64_t nrows = 0;
    uint64_t ai_before = atomic_load(&old->ctr->auto_inc);
    /* rows copied: reported (InnoDB adds a checked FOREIGN KEY by copying) */
    bool copy = at->algorithm == SQL_ALGORITHM_COPY || alter_is_copy(old, &A) || A.fk_rows;
    if ((rc = alter_new_trees(x, old, &A, at->ignore, &nrows)) != 0)
        goto out;
    if ((rc = exec_mdl_upgrade(x)) != 0 ||
        (rc = catalog_table_replace_renaming(exec_cat, nt, ren_from, ren_to, nren, x->diag)) != 0)
        goto drop_new;
    /* counters: hidden row ids continue after the copied rows; AUTO_INCREMENT never goes back */
    if (atomic_load(&old->ctr->row_id) <= nrows)
        atomic_store(&old->ctr->row_id, nrows + 1);
    uint64_t ai = MAX(ai_before, nt->auto_inc_start);
    if (at->opts.set & SQL_TOPT_AUTO_INCREMENT)
        ai = MAX(ai, at->opts.auto_increment);
    table_autoinc_set(old, ai);
    catalog_autoinc_persist(exec_cat, old);
    if (new_name && (!new_db || strcmp(new_db, db) == 0) && strcmp(new_name, nt->name) == 0)
        new_name = NULL; /* RENAME TO its own name */
    if (new_name && (rc = trigger_rename_check(x, db, nt->name, new_db ? new_db : db)) != 0)
        goto out;
    if (new_name && (rc = catalog_table_rename(exec_cat, db, nt->name, new_db ? new_db : db, new_name, x->diag)) != 0)
        goto out;
    if (new_name && (!new_db || strcmp(new_db, db) == 0))
        trigger_rename_table(x, db, nt->name, new_name);
    if (!copy)
        nrows = 0;
    exec_pend_ok(x, nrows, arena_printf(x->arena, "Records: %llu  Duplicates: 0  Warnings: %u", (unsigned long long)nrows,
                                   x->diag->warn_count));
    goto out;
drop_new:
    alter_drop_trees(nt);
out:
    catalog_table_release(old);
    return rc;
}

/* OPTIMIZE TABLE: the table copied into new trees, as a copying ALTER TABLE with no change (the old trees'
 * extents go back to the tablespace when the catalog drops them). */
int exec_table_rebuild(sql_exec_ctx_t *x, const sql_name_t *tn)
{
    sql_alter_table_t at;
    memset(&at, 0, sizeof at);
    at.table = *tn;
    int rc = alter_rebuild(x, &at);
    x->exec_pend_ok = false; /* the statement answers with its own result set */
    return rc;
}


static bool alter_in_place(const sql_alter_table_t *at)
{
    uint32_t nindex = 0;
    for (uint32_t i = 0; i < at->nactions; i++)
        nindex += at->actions[i].kind == SQL_ALTER_ADD_INDEX || at->actions[i].kind == SQL_ALTER_DROP_INDEX;
    if (nindex > 1) /* the rebuild applies them all or none (a second index may fail on duplicates) */
        return false;
    for (uint32_t i = 0; i < at->nactions; i++) {
        const sql_alter_action_t *a = &at->actions[i];
        switch (a->kind) {
        case SQL_ALTER_ADD_INDEX:
            if (a->index.kind == SQL_INDEX_PRIMARY || a->index.kind == SQL_INDEX_FOREIGN || a->index.kind == SQL_INDEX_CHECK)
                return false;
            break;
        case SQL_ALTER_DROP_INDEX:
            if (a->name && strcasecmp(a->name, "PRIMARY") == 0)
                return false;
            break;
        case SQL_ALTER_RENAME: case SQL_ALTER_OPTIONS: case SQL_ALTER_FORCE: case SQL_ALTER_ORDER_BY:
        case SQL_ALTER_DISABLE_KEYS: case SQL_ALTER_ENABLE_KEYS:
            break;
        default:
            return false;
        }
    }
    return !(at->opts.set & (SQL_TOPT_CHARSET | SQL_TOPT_COLLATE | SQL_TOPT_COMMENT | SQL_TOPT_ENGINE));
}

static const char *const algorithm_names[] = {"DEFAULT", "COPY", "INPLACE", "NOCOPY", "INSTANT"};

/* ALGORITHM= / LOCK= of a DDL against what strata will do for it: an index build sorts and loads the new tree
 * while readers go on (MariaDB's NOCOPY with LOCK=SHARED), DROP INDEX and renames change the definition only, and
 * everything else copies the table with writes held back (COPY, LOCK=SHARED).  A clause that asks for less
 * than that is refused with MariaDB's 1846 naming what would work; none is accepted and then ignored. */
static int alter_clauses_check(sql_exec_ctx_t *x, bool copies, bool adds_index, bool drops_index,
                               sql_alter_algorithm_t alg, sql_alter_lock_t lock)
{
    if (copies && alg != SQL_ALGORITHM_DEFAULT && alg != SQL_ALGORITHM_COPY)
        return diag_error(x->diag, ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
                          arena_printf(x->arena, "ALGORITHM=%s", algorithm_names[alg]),
                          "strata copies the table for this change", "ALGORITHM=COPY");
    if (copies && lock == SQL_ALTER_LOCK_NONE)
        return diag_error(x->diag, ER_ALTER_OPERATION_NOT_SUPPORTED_REASON, "LOCK=NONE",
                          "COPY algorithm requires a lock", "LOCK=SHARED");
    if (!copies && alg == SQL_ALGORITHM_INSTANT && (adds_index || drops_index))
        return diag_error(x->diag, ER_ALTER_OPERATION_NOT_SUPPORTED_REASON, "ALGORITHM=INSTANT",
                          adds_index ? "ADD INDEX" : "DROP INDEX", "ALGORITHM=NOCOPY");
    if (!copies && adds_index && lock == SQL_ALTER_LOCK_NONE)
        return diag_error(x->diag, ER_ALTER_OPERATION_NOT_SUPPORTED_REASON, "LOCK=NONE",
                          "strata builds an index with writes held back while readers go on", "LOCK=SHARED");
    return 0;
}

int sql_exec_alter_clauses(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    if (st->kind == SQL_STMT_CREATE_INDEX || st->kind == SQL_STMT_DROP_INDEX)
        return alter_clauses_check(x, st->index.algorithm == SQL_ALGORITHM_COPY, st->kind == SQL_STMT_CREATE_INDEX,
                                   st->kind == SQL_STMT_DROP_INDEX, st->index.algorithm, st->index.lock);
    if (st->kind != SQL_STMT_ALTER_TABLE)
        return 0;
    const sql_alter_table_t *at = st->alter_table;
    bool adds = false, drops = false;
    for (uint32_t i = 0; i < at->nactions; i++) {
        adds |= at->actions[i].kind == SQL_ALTER_ADD_INDEX;
        drops |= at->actions[i].kind == SQL_ALTER_DROP_INDEX;
    }
    bool copies = !alter_in_place(at) || at->algorithm == SQL_ALGORITHM_COPY;
    return alter_clauses_check(x, copies, adds, drops, at->algorithm, at->lock);
}

int exec_alter_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_alter_table_t *at = st->alter_table;
    if (!alter_in_place(at) || at->algorithm == SQL_ALGORITHM_COPY) /* ALGORITHM=COPY: the copy it asks for */
        return alter_rebuild(x, at);
    int rc = 0;
    /* only ADD INDEX works under the NO_WRITE lock (create_index upgrades to publish); the rest needs the table
     * alone from the start */
    bool only_add = !(at->opts.set & SQL_TOPT_AUTO_INCREMENT);
    for (uint32_t i = 0; i < at->nactions; i++)
        only_add &= at->actions[i].kind == SQL_ALTER_ADD_INDEX;
    if (!only_add && (rc = exec_mdl_upgrade(x)) != 0)
        return rc;
    for (uint32_t i = 0; i < at->nactions && !rc; i++) {
        const sql_alter_action_t *a = &at->actions[i];
        switch (a->kind) {
        case SQL_ALTER_ADD_INDEX:
            rc = create_index(x, &at->table, &a->index, a->index.if_not_exists);
            break;
        case SQL_ALTER_DROP_INDEX:
            rc = drop_index(x, &at->table, a->name, a->if_exists);
            break;
        case SQL_ALTER_RENAME: {
            const char *db = exec_db_name(x, at->table.db);
            const char *ndb = exec_db_name(x, a->new_name.db);
            if (!db || !ndb)
                return -ER_NO_DB_ERROR;
            if (strcmp(db, ndb) == 0 && strcmp(at->table.name, a->new_name.name) == 0)
                break; /* RENAME TO its own name: nothing to do (MariaDB; RENAME TABLE t TO t is 1050) */
            rc = trigger_rename_check(x, db, at->table.name, ndb);
            if (rc == 0)
                rc = catalog_table_rename(exec_cat, db, at->table.name, ndb, a->new_name.name, x->diag);
            if (rc == 0 && strcmp(db, ndb) == 0)
                trigger_rename_table(x, db, at->table.name, a->new_name.name);
            break;
        }
        default:
            break;
        }
    }
    if (!rc && (at->opts.set & SQL_TOPT_AUTO_INCREMENT)) {
        const char *db;
        cat_table_t *t = exec_open_write(x, &at->table, &db);
        if (!t)
            return -x->diag->error_code;
        uint64_t cur = atomic_load(&t->ctr->auto_inc);
        if (at->opts.auto_increment > cur)
            table_autoinc_set(t, at->opts.auto_increment);
        catalog_autoinc_persist(exec_cat, t);
        catalog_table_release(t);
    }
    bool rename_only = at->nactions > 0 && !at->opts.set;
    for (uint32_t i = 0; i < at->nactions; i++)
        rename_only &= at->actions[i].kind == SQL_ALTER_RENAME;
    if (!rc)
        exec_pend_ok(x, 0, rename_only ? NULL : arena_printf(x->arena, "Records: 0  Duplicates: 0  Warnings: %u", x->diag->warn_count));
    return rc;
}
