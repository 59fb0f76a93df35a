/*
 * INSERT / REPLACE / INSERT ... SELECT / ON DUPLICATE KEY UPDATE: rows built from VALUES or a SELECT with
 * column defaults, strict-mode conversion, AUTO_INCREMENT, duplicate handling (error, IGNORE, REPLACE's
 * delete-then-insert, or the ON DUPLICATE KEY UPDATE assignments evaluated against the existing row).
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

/* ---------------------------------------------------------------- INSERT / REPLACE */

typedef struct insert_run {
    sql_exec_ctx_t *x;
    cat_table_t *t;
    const char *db;
    const sql_insert_t *ins;
    bool replace, ignore;
    int *colmap;             /* value position -> column */
    uint32_t nvals;
    query_t q;              /* the table alone, for ON DUPLICATE KEY UPDATE */
    row_eval_t xe;
    engine_trx_t *trx;
    uint64_t records, dups, affected, rowno;
    bool first_id_set;
    uint64_t first_id;
    bool row_id_generated;    /* the current row's AUTO_INCREMENT value was generated (not given) */
    uint64_t row_id;
    /* AUTO_INCREMENT values are taken from the table counter in intervals, as InnoDB's consecutive lock mode
     * (MariaDB's default) does: a VALUES list reserves one value per row at its first generated value, INSERT
     * ... SELECT 1, 2, 4, ... values at a time.  A row skipped as a duplicate (IGNORE, ON DUPLICATE KEY UPDATE)
     * gives its value back to the interval; what is left of the interval at the end of the statement is lost,
     * so the ids (and their gaps) are the ones MariaDB hands out. */
    uint64_t resv_next, resv_end, resv_batch, resv_step;
    bool ai_touched;          /* a row was written: ai_last is its AUTO_INCREMENT value (OK packet's insert id) */
    uint64_t ai_last;
    table_dup_t dup;
    buf_t store;
    /* INSERT ... SELECT ... ON DUPLICATE KEY UPDATE naming the SELECT's columns: q also holds the SELECT's
     * sources (slots from the table's width on), the SELECT gives their values as nextra hidden items after its
     * own, and extra_slot[j] is where the j-th goes in the row the assignments read */
    query_t sq;             /* the SELECT's FROM, for names only */
    bool have_sq;
    uint32_t nextra;
    int32_t *extra_slot;
    const value_t *extra_vals; /* the current SELECT row's hidden items */
    const sql_row_t *row;     /* LOAD DATA: the VALUES row being built (its 1261 / 1262 notes) */
    exec_trg_t trg;           /* the table's triggers (trigfire.c) */
    arena_t *ra;              /* where a row is built: the statement's arena, or when streamed (no RETURNING) an
                                 arena emptied before each row, so the statement's memory does not grow with them */
} insert_run_t;

int col_default_value(sql_exec_ctx_t *x, const cat_column_t *c, value_t *out, arena_t *a, bool strict);

/* LOAD DATA's notes on a line, at the place MariaDB gives them among its row's conversions: 1261 for a field
 * the line lacked, 1262 after its fields when it had more; errors under strict mode. */
static int ins_load_note(insert_run_t *I, int code)
{
    if (I->x->strict && !I->ignore)
        return diag_error(I->x->diag, code, (unsigned long)I->rowno);
    diag_warn(I->x->diag, code, (unsigned long)I->rowno);
    return 0;
}

/* Builds the stored row for the values of one input row (vals[i] for colmap[i], NULL = DEFAULT). */
static int ins_build(insert_run_t *I, const value_t *vals, const bool *is_default, value_t *row, bool *nodef)
{
    sql_exec_ctx_t *x = I->x;
    const cat_table_t *t = I->t;
    bool strict = x->strict && !I->ignore;
    bool *given = arena_calloc(I->ra, t->ncols + 1);
    int rc;
    const sql_row_t *lr = I->row;
    for (uint32_t i = 0; i < I->nvals; i++) {
        int c = I->colmap[i];
        if (lr && i == lr->load_targets && lr->load_truncated && (rc = ins_load_note(I, ER_WARN_TOO_MANY_RECORDS)) != 0)
            return rc;
        if (lr && i >= lr->load_given && i < lr->load_targets && (rc = ins_load_note(I, ER_WARN_TOO_FEW_RECORDS)) != 0)
            return rc;
        if (is_default && is_default[i])
            continue;
        const cat_column_t *col = &t->cols[c];
        if (col->gen_expr) { /* computed below; a value written for it is 1906 (LOAD DATA: ignored silently) */
            if (!I->ins->bulk && (rc = gencol_value_given(x, t, (uint32_t)c, strict)) != 0)
                return rc;
            continue;
        }
        given[c] = true;
        if (vals[i].type == VAL_NULL && col->auto_increment) {
            row[c] = value_null();
            continue;
        }
        if (vals[i].type == VAL_NULL && !col->rc.nullable && I->ins->bulk) {
            /* LOAD DATA: 1263 (an error when strict), the column's implicit default stored, as MariaDB */
            if (strict)
                return diag_error(x->diag, ER_WARN_NULL_TO_NOTNULL, col->name, (unsigned long)I->rowno);
            diag_warn(x->diag, ER_WARN_NULL_TO_NOTNULL, col->name, (unsigned long)I->rowno);
            diag_t quiet; /* the store's own 1048 is what 1263 replaces */
            diag_init(&quiet, 4);
            rc = table_value_store(t, (uint32_t)c, &vals[i], &row[c], I->ra, &quiet, false, I->rowno);
            diag_free(&quiet);
            if (rc)
                return diag_error(x->diag, ER_BAD_NULL_ERROR, col->name);
            continue;
        }
        if (vals[i].type == VAL_NULL && !col->rc.nullable && exec_trg_has(&I->trg, EXEC_TRG_INSERT, EXEC_TRG_BEFORE)) {
            row[c] = value_null(); /* a BEFORE trigger may give it a value: checked after it (ins_null_after_trg) */
            continue;
        }
        if (vals[i].type == VAL_NULL && !col->rc.nullable &&
            (strict || (I->ins->nrows <= 1 && !I->ignore && !I->ins->select && !I->ins->bulk))) {
            char msg[160];
            snprintf(msg, sizeof msg, "Column '%s' cannot be null", col->name);
            return diag_push_msg(x->diag, DIAG_ERROR, ER_BAD_NULL_ERROR, msg);
        }
        if ((rc = table_value_store(t, (uint32_t)c, &vals[i], &row[c], I->ra, x->diag, strict, I->rowno)) != 0)
            return rc;
    }
    if (lr && lr->load_targets >= I->nvals && lr->load_truncated && (rc = ins_load_note(I, ER_WARN_TOO_MANY_RECORDS)) != 0)
        return rc;
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (given[c])
            continue;
        if (t->cols[c].gen_expr) {
            row[c] = value_null();
            continue;
        }
        const cat_column_t *cc = &t->cols[c];
        if (cc->def == CAT_DEF_NONE && !cc->rc.nullable && !cc->auto_increment &&
            exec_trg_has(&I->trg, EXEC_TRG_INSERT, EXEC_TRG_BEFORE)) {
            row[c] = value_null(); /* no default: a BEFORE trigger may give it one (1364 after it otherwise) */
            nodef[c] = true;
            continue;
        }
        value_t dv;
        if ((rc = col_default_value(x, &t->cols[c], &dv, I->ra, strict)) != 0)
            return rc;
        if (dv.type == VAL_NULL) {
            row[c] = dv;
            continue;
        }
        if ((rc = table_value_store(t, c, &dv, &row[c], I->ra, x->diag, false, I->rowno)) != 0)
            return rc;
    }
    int ai = cat_table_autoinc_col(t);
    /* innodb_force_recovery: refused before a value is taken, as MariaDB's write_row is (no counter moves) */
    if (ai >= 0 && engine_read_only(catalog_engine(exec_cat)))
        return table_engine_err(x->diag, t, ENGINE_EREADONLY);
    if (ai >= 0) {
        value_t *v = &row[ai];
        bool zero = !x->no_auto_value_on_zero && v->type != VAL_NULL &&
                    ((v->type == VAL_INT && v->i == 0) || (v->type == VAL_UINT && v->u == 0));
        if (v->type == VAL_NULL || zero) {
            if (I->resv_next >= I->resv_end) {
                uint64_t n;
                if (I->ins->select) {
                    n = I->resv_batch ? I->resv_batch : 1;
                    I->resv_batch = MIN(n * 2, 65536);
                } else {
                    n = I->ins->nrows > 1 ? I->ins->nrows : 1;
                }
                uint64_t inc = x->autoinc_increment > 1 ? x->autoinc_increment : 1;
                if (inc == 1) {
                    I->resv_next = atomic_fetch_add(&t->ctr->auto_inc, n);
                    I->resv_end = I->resv_next + n;
                } else {
                    /* @@auto_increment_increment: values offset + k * increment above the counter (MySQL's
                     * compute_next_insert_id); the interval holds n of them */
                    uint64_t off = x->autoinc_offset ? x->autoinc_offset : 1, cur, first;
                    if (off > inc)
                        off = 1;
                    do {
                        cur = atomic_load(&t->ctr->auto_inc);
                        first = cur <= off ? off : off + (cur - off + inc - 1) / inc * inc;
                    } while (!atomic_compare_exchange_weak(&t->ctr->auto_inc, &cur, first + n * inc));
                    I->resv_next = first;
                    I->resv_end = first + n * inc; /* InnoDB moves its counter past the whole interval */
                }
                I->resv_step = inc;
            }
            uint64_t id = I->resv_next;
            I->resv_next += I->resv_step ? I->resv_step : 1;
            value_t iv = value_uint(id);
            if ((rc = table_value_store(t, (uint32_t)ai, &iv, v, I->ra, x->diag, true, I->rowno)) != 0)
                return rc;
            I->row_id_generated = true;
            I->row_id = id;
        } else {
            int64_t iv = v->type == VAL_INT ? v->i : (int64_t)v->u;
            if (v->type == VAL_UINT || iv > 0) {
                uint64_t uv = v->type == VAL_UINT ? v->u : (uint64_t)iv;
                table_autoinc_seen(t, uv);
                if (uv >= I->resv_next && uv < I->resv_end && (I->resv_step ? I->resv_step : 1) == 1)
                    I->resv_next = uv + 1;
            }
        }
    }
    return gencol_compute(x, t, row, I->ra, strict, I->rowno);
}

/* ON DUPLICATE KEY UPDATE on the row whose key is I->dup.pk. */
static int ins_on_dup(insert_run_t *I, const value_t *newrow)
{
    sql_exec_ctx_t *x = I->x;
    const cat_table_t *t = I->t;
    value_t *old = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    int rc = engine_lock_row(I->trx, t->tree, I->dup.pk.data, I->dup.pk.len);
    if (rc)
        return table_engine_err(x->diag, t, rc);
    rc = table_get_latest(I->trx, t, I->dup.pk.data, I->dup.pk.len, &I->store, old);
    if (rc)
        return rc == STRATA_ENOTFOUND ? diag_error(x->diag, ER_UNKNOWN_ERROR) : table_engine_err(x->diag, t, rc);
    value_t *oldc = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    value_t *ev = arena_alloc(x->arena, sizeof(value_t) * (I->q.width + 1)); /* the row, then the SELECT's */
    value_t *nw = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++) {
        oldc[c] = value_copy_into(x->arena, &old[c]);
        nw[c] = oldc[c];
        ev[c] = table_value_out(&t->cols[c], &oldc[c], x->arena);
    }
    for (uint32_t c = t->ncols; c < I->q.width; c++)
        ev[c] = value_null();
    for (uint32_t j = 0; j < I->nextra && I->extra_vals; j++)
        ev[I->extra_slot[j]] = I->extra_vals[j];
    I->xe.values_row = newrow;
    I->xe.values_t = t;
    for (uint32_t i = 0; i < I->ins->non_dup; i++) {
        const sql_assign_t *as = &I->ins->on_dup[i];
        int c = as->col->slot;
        value_t v;
        if (t->cols[c].gen_expr) { /* computed below */
            if (!gencol_assign_allowed(as->value, NULL) &&
                (rc = gencol_value_given(x, t, (uint32_t)c, x->strict && !I->ignore)) != 0)
                return rc;
            continue;
        }
        if (as->value->kind == SQL_E_DEFAULT)
            rc = col_default_value(x, &t->cols[c], &v, x->arena, x->strict);
        else
            rc = row_eval(&I->xe, as->value, ev, &v);
        if (rc)
            return rc;
        if (v.type == VAL_NULL && !t->cols[c].rc.nullable && exec_trg_has(&I->trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE))
            nw[c] = v; /* NOT NULL is checked after the BEFORE trigger (exec_trg_null_check) */
        else if ((rc = table_value_store(t, (uint32_t)c, &v, &nw[c], x->arena, x->diag, x->strict && !I->ignore, I->rowno)) != 0)
            return rc;
        ev[c] = table_value_out(&t->cols[c], &nw[c], x->arena);
    }
    I->xe.values_row = NULL;
    /* generated columns before the BEFORE UPDATE triggers (NEW shows them) and again after (a trigger may have
     * set a base column), as MariaDB's fill_record_n_invoke_before_triggers; the duplicate row's UPDATE
     * triggers fire whether or not the assignments change it (MariaDB) */
    if ((rc = gencol_compute(x, t, nw, x->arena, x->strict && !I->ignore, I->rowno)) != 0 ||
        (rc = exec_trg_fire(x, &I->trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE, oldc, nw, I->rowno)) != 0 ||
        (exec_trg_has(&I->trg, EXEC_TRG_UPDATE, EXEC_TRG_BEFORE) &&
         ((rc = exec_trg_null_check(x, t, nw, x->strict && !I->ignore, I->rowno)) != 0 ||
          (rc = gencol_compute(x, t, nw, x->arena, x->strict && !I->ignore, I->rowno)) != 0)))
        return rc;
    bool changed = false;
    for (uint32_t c = 0; c < t->ncols; c++)
        changed |= !t->cols[c].gen_on_read && !exec_same_stored(&oldc[c], &nw[c]);
    if (!changed)
        return exec_trg_fire(x, &I->trg, EXEC_TRG_UPDATE, EXEC_TRG_AFTER, oldc, nw, I->rowno);
    buf_t pk;
    buf_init(&pk);
    buf_append(&pk, I->dup.pk.data, I->dup.pk.len);
    rc = constraints_check_row(x, t, nw, false);
    if (rc == 0)
        rc = exec_json_check(x, t, nw);
    if (rc == 0)
        rc = table_update(I->trx, t, &pk, oldc, nw, &x->ss->stmt, x->diag, NULL);
    buf_free(&pk);
    if (rc == TABLE_FK_IGNORED)
        return 0; /* INSERT IGNORE ... ON DUPLICATE KEY UPDATE: the row stays, the 1451 / 1452 a warning */
    if (rc)
        return rc;
    if ((rc = exec_trg_fire(x, &I->trg, EXEC_TRG_UPDATE, EXEC_TRG_AFTER, oldc, nw, I->rowno)) != 0)
        return rc;
    int ai = cat_table_autoinc_col(t);
    if (ai >= 0 && nw[ai].type != VAL_NULL) {
        table_autoinc_seen(t, nw[ai].type == VAL_UINT ? nw[ai].u : (uint64_t)MAX(nw[ai].i, 0));
        I->ai_touched = true;
        I->ai_last = nw[ai].type == VAL_UINT ? nw[ai].u : (uint64_t)MAX(nw[ai].i, 0);
    }
    I->affected += 2;
    I->dups++;
    return x->returning ? returning_row(x, t, nw) : 0;
}

/* Is index ix the table's last unique index (no later index is UNIQUE or PRIMARY)? */
static bool ins_last_unique(const cat_table_t *t, int ix)
{
    for (uint32_t k = (uint32_t)(ix < 0 ? 0 : ix + 1); k < t->nidx; k++)
        if (t->idx[k].kind == CAT_IDX_PRIMARY || t->idx[k].kind == CAT_IDX_UNIQUE)
            return false;
    return true;
}

static int ins_row(insert_run_t *I, const value_t *vals, const bool *is_default)
{
    sql_exec_ctx_t *x = I->x;
    const cat_table_t *t = I->t;
    I->rowno++;
    I->records++;
    value_t *row = arena_alloc(I->ra, sizeof(value_t) * (t->ncols + 1));
    uint32_t warn_before = x->diag->warn_count;
    I->row_id_generated = false;
    bool *nodef = arena_calloc(I->ra, t->ncols + 1);
    int rc = ins_build(I, vals, is_default, row, nodef);
    if (rc)
        return rc;
    if (exec_trg_has(&I->trg, EXEC_TRG_INSERT, EXEC_TRG_BEFORE)) {
        /* a BEFORE INSERT trigger sees a generated AUTO_INCREMENT value as 0 (MariaDB generates it at the write);
         * a value the trigger gives the column is the row's */
        int ai = I->row_id_generated ? cat_table_autoinc_col(t) : -1;
        value_t gen = ai >= 0 ? row[ai] : value_null(), zero = value_null();
        if (ai >= 0 && (rc = table_value_store(t, (uint32_t)ai, &(value_t){.type = VAL_INT, .i = 0}, &zero, I->ra,
                                               x->diag, false, I->rowno)) != 0)
            return rc;
        if (ai >= 0)
            row[ai] = zero;
        I->trg.assigned = arena_calloc(I->ra, t->ncols + 1);
        rc = exec_trg_fire(x, &I->trg, EXEC_TRG_INSERT, EXEC_TRG_BEFORE, NULL, row, I->rowno);
        bool *assigned = I->trg.assigned;
        I->trg.assigned = NULL;
        if (rc)
            return rc;
        /* a column without a default that no trigger assigned: 1364 now, as without the trigger (MDEV-11698) */
        for (uint32_t c = 0; c < t->ncols; c++) {
            value_t dv;
            if (!nodef[c] || assigned[c])
                continue;
            if ((rc = col_default_value(x, &t->cols[c], &dv, I->ra, x->strict && !I->ignore)) != 0)
                return rc;
            if (dv.type != VAL_NULL &&
                (rc = table_value_store(t, c, &dv, &row[c], I->ra, x->diag, false, I->rowno)) != 0)
                return rc;
        }
        if (ai >= 0 && exec_same_stored(&row[ai], &zero)) {
            row[ai] = gen;
        } else if (ai >= 0 && row[ai].type != VAL_NULL) {
            I->row_id_generated = false;
            table_autoinc_seen(t, row[ai].type == VAL_UINT ? row[ai].u : (uint64_t)MAX(row[ai].i, 0));
        }
        /* a NOT NULL column still NULL (given NULL, the trigger gave it nothing) is 1048 as it would have been
         * without the trigger: an error, or under IGNORE / not strict in a multi-row statement a warning and the
         * implicit default (MariaDB checks NOT NULL after BEFORE triggers, MDEV-8605) */
        bool err = (x->strict && !I->ignore) || (I->ins->nrows <= 1 && !I->ignore && !I->ins->select && !I->ins->bulk);
        if ((rc = exec_trg_null_check(x, t, row, err, I->rowno)) != 0)
            return rc;
        /* a trigger may have set a base column: the generated columns are computed again, as MariaDB */
        if ((rc = gencol_compute(x, t, row, I->ra, x->strict && !I->ignore, I->rowno)) != 0)
            return rc;
    }
    if ((rc = constraints_check_row(x, t, row, I->ignore)) != 0) {
        I->records -= rc > 0; /* IGNORE: the row was skipped, with the warning */
        return rc > 0 ? 0 : rc;
    }
    (void)warn_before;
    if ((rc = exec_json_check(x, t, row)))
        return rc;
    bool want_dup = I->replace || I->ignore || I->ins->non_dup;
    for (int tries = 0; tries < 64; tries++) {
        rc = table_insert(I->trx, t, row, &x->ss->stmt, x->diag, want_dup ? &I->dup : NULL);
        x->ss->wrote = true;
        if (rc != TABLE_DUP)
            break;
        if (I->ins->non_dup || (I->ignore && !I->replace)) {
            /* the row was not inserted: its generated value goes back to the interval (restore_auto_increment) */
            if (I->row_id_generated && I->row_id + (I->resv_step ? I->resv_step : 1) == I->resv_next)
                I->resv_next = I->row_id;
            I->row_id_generated = false;
        }
        if (I->ins->non_dup)
            return ins_on_dup(I, row);
        if (I->ignore && !I->replace) {
            /* the message MySQL would give, as a warning */
            diag_t *d = x->diag;
            diag_t tmp;
            diag_init(&tmp, 4);
            table_insert(I->trx, t, row, NULL, &tmp, NULL); /* formats the 1062 text, writes nothing */
            if (tmp.error)
                diag_push_msg(d, DIAG_WARNING, ER_DUP_ENTRY, tmp.error->msg);
            diag_free(&tmp);
            I->dups++;
            return 0;
        }
        /* REPLACE: delete the conflicting row, then try again */
        value_t *old = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        rc = engine_lock_row(I->trx, t->tree, I->dup.pk.data, I->dup.pk.len);
        if (rc == 0)
            rc = table_get_latest(I->trx, t, I->dup.pk.data, I->dup.pk.len, &I->store, old);
        if (rc)
            return table_engine_err(x->diag, t, rc);
        value_t *oldc = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        bool same = true;
        for (uint32_t c = 0; c < t->ncols; c++) {
            oldc[c] = value_copy_into(x->arena, &old[c]);
            same &= t->cols[c].gen_on_read || exec_same_stored(&oldc[c], &row[c]);
        }
        if (same && ins_last_unique(t, I->dup.index) && !exec_trg_has(&I->trg, EXEC_TRG_DELETE, EXEC_TRG_BEFORE) &&
            !exec_trg_has(&I->trg, EXEC_TRG_DELETE, EXEC_TRG_AFTER)) {
            /* MariaDB replaces a row in place when the duplicate is in the last unique index: the same row is
             * left as it is, one affected row, no duplicate counted */
            I->affected++;
            return x->returning ? returning_row(x, t, row) : 0;
        }
        buf_t pk;
        buf_init(&pk);
        buf_append(&pk, I->dup.pk.data, I->dup.pk.len);
        rc = exec_trg_fire(x, &I->trg, EXEC_TRG_DELETE, EXEC_TRG_BEFORE, oldc, NULL, I->rowno);
        if (rc == 0)
            rc = table_delete(I->trx, t, &pk, oldc, &x->ss->stmt, x->diag);
        buf_free(&pk);
        if (rc == 0)
            rc = exec_trg_fire(x, &I->trg, EXEC_TRG_DELETE, EXEC_TRG_AFTER, oldc, NULL, I->rowno);
        if (rc)
            return rc;
        I->affected++;
        I->dups++;
    }
    if (rc == TABLE_FK_IGNORED) /* INSERT IGNORE of an orphan: skipped with a 1452 warning, counted as MariaDB */
        return (int)(I->dups++ & 0);
    if (rc)
        return rc;
    I->affected++;
    int ai = cat_table_autoinc_col(t);
    if (ai >= 0 && row[ai].type != VAL_NULL) {
        I->ai_touched = true;
        I->ai_last = row[ai].type == VAL_UINT ? row[ai].u : (uint64_t)MAX(row[ai].i, 0);
    }
    /* LAST_INSERT_ID(): the first value generated for a row that was inserted */
    if (I->row_id_generated && !I->first_id_set) {
        I->first_id_set = true;
        I->first_id = I->row_id;
    }
    if ((rc = exec_trg_fire(x, &I->trg, EXEC_TRG_INSERT, EXEC_TRG_AFTER, NULL, row, I->rowno)) != 0)
        return rc;
    return x->returning ? returning_row(x, t, row) : 0;
}

static bool has_values_fn(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_VALUES)
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (has_values_fn(e->args[i]))
            return true;
    return e->kind == SQL_E_CASE && has_values_fn(e->else_expr);
}

/* Binds an ON DUPLICATE KEY UPDATE value in q (the table and the SELECT's sources); VALUES(col) names a column
 * of the table alone (tq). */
static int odku_bind(query_t *tq, query_t *q, sql_expr_t *e, const char *clause)
{
    if (!e)
        return 0;
    if (!has_values_fn(e))
        return bind_expr(q, e, clause, false);
    if (e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_VALUES)
        return bind_expr(tq, e, clause, false);
    int rc = 0;
    for (uint32_t i = 0; i < e->nargs && !rc; i++)
        rc = odku_bind(tq, q, e->args[i], clause);
    if (!rc && e->kind == SQL_E_CASE)
        rc = odku_bind(tq, q, e->else_expr, clause);
    return rc;
}

/* The SELECT's column references an assignment reads (slot past the table's columns): one hidden item each. */
static void odku_extras(insert_run_t *I, const sql_expr_t *e, sql_select_item_t *items, uint32_t base)
{
    if (!e)
        return;
    if (e->kind == SQL_E_COLUMN && e->slot >= (int32_t)I->t->ncols) {
        for (uint32_t j = 0; j < I->nextra; j++)
            if (I->extra_slot[j] == e->slot)
                return;
        for (uint32_t i = 1; i < I->q.nsrc; i++) {
            const query_source_t *src = &I->q.src[i];
            if ((uint32_t)e->slot < src->base || (uint32_t)e->slot >= src->base + src->t->ncols)
                continue;
            /* the same column, named by its source's alias (unique in a FROM) */
            sql_expr_t *c = arena_calloc(I->x->arena, sizeof *c);
            c->kind = SQL_E_COLUMN;
            c->col.table = src->alias;
            c->col.name = src->t->cols[(uint32_t)e->slot - src->base].name;
            c->src = c->col.name;
            c->src_len = (uint32_t)strlen(c->col.name);
            c->slot = -1;
            items[base + I->nextra].expr = c;
            I->extra_slot[I->nextra++] = e->slot;
            return;
        }
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        odku_extras(I, e->args[i], items, base);
    if (e->kind == SQL_E_CASE)
        odku_extras(I, e->else_expr, items, base);
}

static bool has_aggregate(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_FUNC && sql_expr_is_aggregate(e))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (has_aggregate(e->args[i]))
            return true;
    return e->kind == SQL_E_CASE && has_aggregate(e->else_expr);
}

static uint32_t count_columns(const sql_expr_t *e)
{
    if (!e)
        return 0;
    uint32_t n = e->kind == SQL_E_COLUMN;
    for (uint32_t i = 0; i < e->nargs; i++)
        n += count_columns(e->args[i]);
    return n + (e->kind == SQL_E_CASE ? count_columns(e->else_expr) : 0);
}

/*
 * INSERT ... SELECT ... ON DUPLICATE KEY UPDATE: as in MariaDB the assignments' values may name the columns of
 * the SELECT's tables as well as the table's (both: 1052), unless the SELECT groups; the columns assigned are
 * the table's.  Binds the assignments and returns the SELECT to run: the statement's own, or a copy with one
 * hidden item per SELECT column the assignments read.  A UNION's first member names the columns, which read as
 * NULL (what MariaDB gives).
 */
static int odku_prepare(insert_run_t *I, const sql_select_t **selp)
{
    sql_exec_ctx_t *x = I->x;
    const sql_insert_t *ins = I->ins;
    const sql_select_t *sel = ins->select;
    int rc = 0;
    for (uint32_t i = 0; i < ins->non_dup && !rc; i++)
        rc = bind_expr(&I->q, ins->on_dup[i].col, "UPDATE", false);
    if (rc)
        return rc;
    bool grouped = sel && (sel->ngroup_by || sel->having);
    for (uint32_t i = 0; sel && i < sel->nitems && !grouped; i++)
        grouped = has_aggregate(sel->items[i].expr);
    query_t tq = I->q;
    if (sel && ins->non_dup && sel->from && !grouped) {
        if ((rc = bind_from(&I->sq, x, sel->from)) != 0)
            return rc;
        I->have_sq = true;
        query_source_t *src = arena_calloc(x->arena, sizeof(query_source_t) * (I->sq.nsrc + 1));
        src[0] = I->q.src[0];
        for (uint32_t i = 0; i < I->sq.nsrc; i++) {
            src[i + 1] = I->sq.src[i];
            src[i + 1].base += I->t->ncols;
            src[i + 1].is_virtual = true; /* released with sq */
        }
        I->q.src = src;
        I->q.nsrc = I->sq.nsrc + 1;
        I->q.width = I->t->ncols + I->sq.width;
    }
    for (uint32_t i = 0; i < ins->non_dup && !rc; i++) /* MariaDB's 1054 says 'SELECT' after VALUES */
        rc = odku_bind(&tq, &I->q, ins->on_dup[i].value, sel ? "UPDATE" : "SELECT");
    if (rc || !I->have_sq || sel->union_next)
        return rc;
    uint32_t maxn = 0;
    for (uint32_t i = 0; i < ins->non_dup; i++)
        maxn += count_columns(ins->on_dup[i].value);
    sql_select_item_t *items = arena_calloc(x->arena, sizeof *items * (sel->nitems + maxn + 1));
    memcpy(items, sel->items, sizeof *items * sel->nitems);
    I->extra_slot = arena_calloc(x->arena, sizeof(int32_t) * (maxn + 1));
    for (uint32_t i = 0; i < ins->non_dup; i++)
        odku_extras(I, ins->on_dup[i].value, items, sel->nitems);
    if (I->nextra) {
        sql_select_t *copy = arena_alloc(x->arena, sizeof *copy);
        *copy = *sel;
        copy->items = items;
        copy->nitems = sel->nitems + I->nextra;
        *selp = copy;
    }
    return 0;
}

/* Whether a VALUES / SET value names a column of the row (subqueries are bound when they run). */
static bool names_column(const sql_expr_t *e)
{
    if (!e || e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED)
        return false;
    if (e->kind == SQL_E_COLUMN)
        return true;
    if (e->kind == SQL_E_IN && e->sub)
        return names_column(e->args ? e->args[0] : NULL);
    for (uint32_t i = 0; i < e->nargs; i++)
        if (names_column(e->args[i]))
            return true;
    return names_column(e->else_expr);
}

/* A column named in VALUES / SET reads the row being built, as MariaDB's record: the columns' defaults at first,
 * then each value as it is assigned, left to right, stored in its column's type.  cur is NULL until a value
 * names a column; a row of values that names none costs nothing. */
static void cur_row_start(insert_run_t *I, value_t **cur)
{
    const cat_table_t *t = I->t;
    if (!*cur)
        *cur = arena_alloc(I->x->arena, sizeof(value_t) * (t->ncols + 1));
    diag_t quiet;
    diag_init(&quiet, 2);
    sql_exec_ctx_t x2 = *I->x;
    x2.diag = &quiet;
    for (uint32_t c = 0; c < t->ncols; c++)
        if (t->cols[c].auto_increment)
            (*cur)[c] = value_int(0); /* no value before it is generated */
        else if (t->cols[c].gen_expr || col_default_value(&x2, &t->cols[c], &(*cur)[c], I->x->arena, false) != 0)
            (*cur)[c] = value_null();
    diag_free(&quiet);
}

static void cur_row_set(insert_run_t *I, value_t *cur, uint32_t i, const value_t *v, bool is_default)
{
    int c = I->colmap[i];
    if (!cur || c < 0 || is_default || I->t->cols[c].gen_expr)
        return;
    diag_t quiet;
    diag_init(&quiet, 2);
    if (table_value_store(I->t, (uint32_t)c, v, &cur[c], I->x->arena, &quiet, false, I->rowno) != 0)
        cur[c] = *v;
    diag_free(&quiet);
}

/* A value of VALUES / SET: bound to the table when it names a column (1054 in 'VALUES' for an unknown one),
 * evaluated over the row being built (cur, NULL when no value of the row names a column). */
static int ins_value(insert_run_t *I, sql_expr_t *e, const value_t *cur, value_t *out)
{
    int rc = cur && names_column(e) ? bind_expr(&I->q, e, "VALUES", false) : 0;
    return rc ? rc : row_eval(&I->xe, e, cur, out);
}

/* ---- INSERT ... SELECT streaming ----
 * The rows go into the table as the SELECT makes them, as MariaDB does when the SELECT does not read the table
 * it inserts into (no temporary table), so the statement's memory does not grow with the rows it copies.  Only
 * when nothing the SELECT reads can see the insert: a plain INSERT [IGNORE] (REPLACE may delete rows a cascade
 * reaches; ON DUPLICATE KEY UPDATE reads the SELECT's columns through its own sources), no INSERT triggers on the
 * table, and a SELECT of base tables only (no view, derived table, CTE, JSON_TABLE, UNION, subquery, stored
 * function or window function), none of them the table.  Otherwise every row is read first. */
bool exec_expr_streams(const sql_expr_t *e)
{
    if (!e)
        return true;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED ||
        (e->kind == SQL_E_IN && e->sub))
        return false;
    if (e->kind == SQL_E_FUNC && (e->func.fn == SQL_FN_UNKNOWN || e->over))
        return false;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!exec_expr_streams(e->args[i]))
            return false;
    for (uint32_t i = 0; i < e->nagg_order; i++)
        if (!exec_expr_streams(e->agg_order[i].expr))
            return false;
    return e->kind != SQL_E_CASE || exec_expr_streams(e->else_expr);
}

static bool from_streams(const sql_from_t *f)
{
    if (f->kind == SQL_FROM_TABLE)
        return !f->cte;
    return f->kind == SQL_FROM_JOIN && from_streams(f->left) && from_streams(f->right) && exec_expr_streams(f->on);
}

static bool insert_may_stream(const insert_run_t *I, const sql_select_t *sel)
{
    if (I->replace || I->ins->non_dup || I->nextra || I->ins->bulk || exec_trg_has(&I->trg, EXEC_TRG_INSERT, EXEC_TRG_BEFORE) ||
        exec_trg_has(&I->trg, EXEC_TRG_INSERT, EXEC_TRG_AFTER))
        return false;
    if (!sel->from || sel->union_next || sel->nctes || sel->sql_buffer_result || sel->nwindows || sel->into ||
        !from_streams(sel->from) || !exec_expr_streams(sel->where) || !exec_expr_streams(sel->having))
        return false;
    for (uint32_t i = 0; i < sel->nitems; i++)
        if (!exec_expr_streams(sel->items[i].expr))
            return false;
    for (uint32_t i = 0; i < sel->ngroup_by; i++)
        if (!exec_expr_streams(sel->group_by[i]))
            return false;
    for (uint32_t i = 0; i < sel->norder_by; i++)
        if (!exec_expr_streams(sel->order_by[i].expr))
            return false;
    return true;
}

typedef struct ins_stream {
    insert_run_t *I;
    const bool *sdefs;
    arena_t *ra;              /* emptied before each row (NULL: rows are built in the statement's arena) */
} ins_stream_t;

/* The prepared SELECT: every source a base table other than the one written, and as many items as values. */
static bool stream_accept(void *arg, const query_t *q, uint32_t nitems)
{
    const insert_run_t *I = ((ins_stream_t *)arg)->I;
    if (nitems != I->nvals)
        return false; /* 1136 from the ordinary path */
    for (uint32_t k = 0; k < q->nsrc; k++) {
        const query_source_t *src = &q->src[k];
        if (src->is_virtual || src->dcols || src->jt || !src->t || src->t == I->t ||
            (strcmp(src->t->db, I->t->db) == 0 && strcmp(src->t->name, I->t->name) == 0))
            return false;
    }
    return true;
}

static int stream_row(void *arg, const value_t *vals)
{
    ins_stream_t *S = arg;
    if (S->ra)
        arena_reset(S->ra);
    S->I->extra_vals = vals + S->I->nvals;
    return ins_row(S->I, vals, S->sdefs);
}

int exec_insert(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_insert_t *ins = st->insert;
    insert_run_t I;
    memset(&I, 0, sizeof I);
    I.x = x;
    I.ins = ins;
    I.replace = st->kind == SQL_STMT_REPLACE;
    I.ignore = ins->ignore;
    I.rowno = x->insert_rowno_base;
    I.ra = x->arena;
    buf_init(&I.dup.pk);
    buf_init(&I.store);
    int rc = 0;
    I.t = exec_open_write(x, &ins->table, &I.db);
    if (!I.t)
        return -x->diag->error_code;
    cat_table_t *t = I.t;
    if ((rc = exec_trg_load(x, t, &I.trg)) != 0) {
        catalog_table_release(t);
        return rc;
    }
    row_eval_init(&I.xe, x);
    I.xe.ev.div_zero_error = x->strict && !ins->ignore && !x->div_zero_off;
    x->div_zero_error = I.xe.ev.div_zero_error; /* and in its SELECT and subqueries (row_eval_init), as MariaDB */
    exec_single_def(&I.q, x, t, I.db);
    /* the column list */
    if (ins->nset) {
        I.nvals = ins->nset;
        I.colmap = arena_alloc(x->arena, sizeof(int) * (ins->nset + 1));
        for (uint32_t i = 0; i < ins->nset; i++) {
            const sql_expr_t *ce = ins->set[i].col;
            int c = cat_table_col(t, ce->col.name);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, ce->col.name, "INSERT INTO");
                goto out;
            }
            I.colmap[i] = c;
        }
    } else if (ins->cols) {
        I.nvals = ins->ncols;
        I.colmap = arena_alloc(x->arena, sizeof(int) * (ins->ncols + 1));
        for (uint32_t i = 0; i < ins->ncols; i++) {
            int c = cat_table_col(t, ins->cols[i]);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, ins->cols[i], "INSERT INTO");
                goto out;
            }
            I.colmap[i] = c;
        }
    } else {
        /* no column list: the visible columns (INVISIBLE ones take their defaults) */
        I.nvals = 0;
        I.colmap = arena_alloc(x->arena, sizeof(int) * (t->ncols + 1));
        for (uint32_t i = 0; i < t->ncols; i++)
            if (!t->cols[i].invisible)
                I.colmap[I.nvals++] = (int)i;
    }
    for (uint32_t i = 0; i < I.nvals; i++)
        for (uint32_t k = 0; k < i; k++)
            if (I.colmap[i] == I.colmap[k]) {
                rc = diag_error(x->diag, ER_FIELD_SPECIFIED_TWICE, t->cols[I.colmap[i]].name);
                goto out;
            }
    const sql_select_t *sel = ins->select;
    if ((rc = odku_prepare(&I, &sel)) != 0)
        goto out;
    if (ins->nreturning &&
        (rc = returning_begin(x, ins->returning, ins->nreturning, t, I.db, NULL, ins->select ? NULL : "INSERT")) != 0)
        goto out;
    /* a SELECT item that is the NULL literal, for a generated column: as DEFAULT (MariaDB) */
    bool *sdefs = NULL;
    if (ins->select && !ins->select->union_next && ins->select->nitems == I.nvals)
        for (uint32_t i = 0; i < I.nvals; i++)
            if (I.colmap[i] >= 0 && t->cols[I.colmap[i]].gen_expr && ins->select->items[i].expr &&
                gencol_assign_allowed(ins->select->items[i].expr, NULL)) {
                if (!sdefs)
                    sdefs = arena_calloc(x->arena, I.nvals + 1);
                sdefs[i] = true;
            }
    /* INSERT ... SELECT: streamed when it can be (insert_may_stream), else everything is read first (the same
     * table may be both) */
    value_t **srows = NULL;
    uint64_t nsrows = 0;
    uint32_t sncols = 0;
    bool streamed = false;
    if (ins->select && sel == ins->select && insert_may_stream(&I, sel)) {
        if ((rc = exec_trx(x, &I.trx)) != 0)
            goto out;
        arena_t ra;
        arena_init(&ra, 16384);
        ins_stream_t S = {&I, sdefs, ins->nreturning ? NULL : &ra}; /* RETURNING keeps what it read of the rows */
        if (S.ra)
            I.ra = S.ra;
        x->insert_select = true;
        rc = exec_select_push(x, sel, stream_accept, stream_row, &S, &sncols, &streamed);
        x->insert_select = false;
        I.ra = x->arena;
        arena_destroy(&ra);
        if (rc != 0)
            goto out;
    }
    if (ins->select && !streamed) {
        x->insert_select = true;
        rc = exec_select_rows(x, sel, &srows, &nsrows, &sncols);
        x->insert_select = false;
        if (rc != 0)
            goto out;
        sncols -= I.nextra;
        if (sncols != I.nvals) {
            rc = diag_error(x->diag, ER_WRONG_VALUE_COUNT_ON_ROW, 1ul);
            goto out;
        }
    }
    if ((rc = exec_trx(x, &I.trx)) != 0)
        goto out;
    if (ins->select) {
        for (uint64_t r = 0; r < nsrows && !rc; r++) {
            I.extra_vals = srows[r] + sncols;
            rc = ins_row(&I, srows[r], sdefs);
        }
    } else if (ins->nset) {
        value_t *vals = arena_alloc(x->arena, sizeof(value_t) * (ins->nset + 1));
        bool *defs = arena_calloc(x->arena, ins->nset + 1);
        value_t *cur = NULL;
        bool started = false;
        for (uint32_t i = 0; i < ins->nset && !started; i++)
            started = names_column(ins->set[i].value);
        if (started)
            cur_row_start(&I, &cur);
        for (uint32_t i = 0; i < ins->nset && !rc; i++) {
            if (ins->set[i].value->kind == SQL_E_DEFAULT)
                defs[i] = true;
            else
                rc = ins_value(&I, ins->set[i].value, cur, &vals[i]);
            if (!rc && I.colmap[i] >= 0 && I.t->cols[I.colmap[i]].gen_expr &&
                gencol_assign_allowed(ins->set[i].value, &vals[i]))
                defs[i] = true; /* NULL into a generated column: as DEFAULT */
            if (!rc && started)
                cur_row_set(&I, cur, i, &vals[i], defs[i]);
        }
        if (!rc)
            rc = ins_row(&I, vals, defs);
    } else {
        value_t *cur = NULL;
        for (uint32_t r = 0; r < ins->nrows && !rc; r++) {
            const sql_row_t *row = &ins->rows[r];
            if (row->n != I.nvals && !(row->n == 0 && ins->cols == NULL)) {
                rc = diag_error(x->diag, ER_WRONG_VALUE_COUNT_ON_ROW, (unsigned long)(r + 1));
                break;
            }
            value_t *vals = arena_alloc(x->arena, sizeof(value_t) * (I.nvals + 1));
            bool *defs = arena_calloc(x->arena, I.nvals + 1);
            if (row->n == 0)
                for (uint32_t i = 0; i < I.nvals; i++)
                    defs[i] = true;
            bool started = false; /* each row starts again from the defaults */
            for (uint32_t i = 0; i < row->n && !started && !ins->bulk; i++)
                started = names_column(row->vals[i]);
            if (started)
                cur_row_start(&I, &cur);
            for (uint32_t i = 0; i < row->n && !rc; i++) {
                if (row->vals[i]->kind == SQL_E_DEFAULT)
                    defs[i] = true;
                else
                    rc = ins_value(&I, row->vals[i], started ? cur : NULL, &vals[i]);
                if (!rc && I.colmap[i] >= 0 && I.t->cols[I.colmap[i]].gen_expr &&
                    gencol_assign_allowed(row->vals[i], &vals[i]))
                    defs[i] = true; /* NULL into a generated column: as DEFAULT */
                if (!rc && started)
                    cur_row_set(&I, cur, i, &vals[i], defs[i]);
            }
            I.row = ins->bulk ? row : NULL;
            if (!rc)
                rc = ins_row(&I, vals, defs);
        }
    }
    if (rc)
        goto out;
    if (I.first_id_set) {
        x->last_insert_id_set = true;
        x->last_insert_id = I.first_id;
    }
    x->row_count = (int64_t)I.affected;
    /* the OK packet's insert id without a generated value: the AUTO_INCREMENT value of the last row written
     * (an explicit id, or the row ON DUPLICATE KEY UPDATE changed), as MariaDB sends it */
    /* INSERT ... SELECT too, but not INSERT ... SELECT ... ON DUPLICATE KEY UPDATE (MariaDB sends 0 there) */
    x->pend_insert_id = I.ai_touched && !(ins->select && ins->non_dup) ? I.ai_last : 0;
    const char *info = NULL;
    if (ins->nrows > 1 || ins->select)
        info = arena_printf(x->arena, "Records: %llu  Duplicates: %llu  Warnings: %u", (unsigned long long)I.records,
                            (unsigned long long)I.dups, x->diag->warn_count);
    exec_pend_ok(x, I.affected, info);
    returning_finish(x);
out:
    x->div_zero_error = false;
    if (I.have_sq)
        query_release(&I.sq);
    buf_free(&I.dup.pk);
    buf_free(&I.store);
    catalog_table_release(t);
    return rc;
}
