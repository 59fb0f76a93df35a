/*
 * Firing a table's triggers from the row paths (insert.c, modify.c): a statement loads the table's triggers
 * once (exec_trg_load), then fires those of an event and timing around each row it writes (exec_trg_fire),
 * in ACTION_ORDER.  The body runs in the session (the evaluator's trigger callback, session/sp_exec.c) with the
 * row's columns as NEW / OLD; a BEFORE trigger's assignments to NEW come back and are stored as the column's
 * type before the row's constraints are checked.  MariaDB's order per row:
 *
 *   INSERT    BEFORE INSERT, checks, write, AFTER INSERT
 *   UPDATE    BEFORE UPDATE (every matched row, changed or not), checks, write, AFTER UPDATE
 *   DELETE    BEFORE DELETE, delete, AFTER DELETE
 *   INSERT ... ON DUPLICATE KEY UPDATE: BEFORE INSERT; on the duplicate BEFORE UPDATE, update, AFTER UPDATE
 *   REPLACE   BEFORE INSERT; per conflicting row BEFORE DELETE, delete, AFTER DELETE; write, AFTER INSERT
 *
 * Rows a foreign key cascades to fire nothing (MariaDB's InnoDB cascades below the triggers).  The statements
 * of a body run nested in the firing statement (ss->trg_depth > 0: exec.c's exec_run neither begins nor ends
 * a statement then), so their rows join its undo and its binlog row images: a failure anywhere undoes them
 * all, and with binlog_format=ROW a replica receives the trigger's rows and runs no trigger.  A body may not
 * change a table a firing statement is changing (1442): the tables of the statements firing now are kept in
 * ss->trg_tables.
 */
#include <string.h>
#include <strings.h>
#include "access/trigger.h"
#include "sql/exec/exec_int.h"
#include "sql/exec/query_int.h"
#include "util/util.h"

static unsigned trg_bit(const char *event, const char *timing)
{
    int e = event[0] == 'I' ? EXEC_TRG_INSERT : event[0] == 'U' ? EXEC_TRG_UPDATE : EXEC_TRG_DELETE;
    return 1u << (e * 2 + (timing[0] == 'A'));
}

int exec_trg_load(sql_exec_ctx_t *x, const cat_table_t *t, exec_trg_t *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->t = t;
    sql_exec_session_t *ss = x->ss;
    for (uint32_t i = 0; ss && i < ss->ntrg_tables; i++)
        if (strcmp(ss->trg_tables[i].db, t->db) == 0 && strcmp(ss->trg_tables[i].name, t->name) == 0)
            return diag_error(x->diag, ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, t->name);
    for (uint32_t i = 0; ss && ss->fn_depth && i < ss->nstmt_tables; i++) /* a function's write (evalctx.c) */
        if (strcmp(ss->stmt_tables[i].db, t->db) == 0 && strcmp(ss->stmt_tables[i].name, t->name) == 0)
            return diag_error(x->diag, ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, t->name);
    if (!x->cb || !x->cb->trigger || !catalog_trigger_any(exec_cat))
        return 0;
    cat_trigger_t *v;
    uint32_t n = 0;
    if (catalog_trigger_list(exec_cat, x->arena, t->db, t->name, &v, &n) != 0)
        return diag_error(x->diag, ER_UNKNOWN_ERROR);
    tr->v = v;
    tr->n = n;
    for (uint32_t i = 0; i < n; i++)
        tr->mask |= trg_bit(v[i].event, v[i].timing);
    if (n) {
        const char **names = arena_alloc(x->arena, sizeof(char *) * (t->ncols + 1));
        for (uint32_t c = 0; c < t->ncols; c++)
            names[c] = t->cols[c].name;
        tr->cols = names;
        tr->cache = arena_calloc(x->arena, sizeof(void *) * n);
    }
    return 0;
}

bool exec_trg_has(const exec_trg_t *tr, int event, int timing)
{
    return (tr->mask & (1u << (event * 2 + timing))) != 0;
}

typedef struct store_ctx {
    sql_exec_ctx_t *x;
    const cat_table_t *t;
} store_ctx_t;

/* SET NEW.col = v inside the body: the column's type now, as strict as MariaDB's field store there (a value
 * that does not fit is an error whatever sql_mode says, "at row 0"; truncation notes are not raised). */
static int trg_store(void *arg, uint32_t col, const value_t *in, value_t *out, arena_t *a, diag_t *d)
{
    store_ctx_t *sc = arg;
    value_t st;
    if (in->type == VAL_NULL && !sc->t->cols[col].rc.nullable) { /* NOT NULL is checked after the trigger */
        *out = *in;
        return 0;
    }
    bool notes_off = d->notes_off;
    d->notes_off = true;
    int rc = table_value_store(sc->t, col, in, &st, a, d, true, 0);
    d->notes_off = notes_off;
    if (rc)
        return rc;
    *out = table_value_out(&sc->t->cols[col], &st, a);
    return 0;
}

int exec_trg_null_check(sql_exec_ctx_t *x, const cat_table_t *t, value_t *row, bool error, uint64_t rowno)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        const cat_column_t *col = &t->cols[c];
        if (row[c].type != VAL_NULL || col->rc.nullable || col->auto_increment || col->gen_expr)
            continue;
        if (error) {
            char msg[160];
            snprintf(msg, sizeof msg, "Column '%s' cannot be null", col->name);
            return diag_push_msg(x->diag, DIAG_ERROR, ER_BAD_NULL_ERROR, msg);
        }
        int rc = table_value_store(t, c, &row[c], &row[c], x->arena, x->diag, false, rowno);
        if (rc)
            return rc;
    }
    return 0;
}

int exec_trg_fire(sql_exec_ctx_t *x, exec_trg_t *tr, int event, int timing, const value_t *old_stored,
                  value_t *new_stored, uint64_t rowno)
{
    if (!exec_trg_has(tr, event, timing))
        return 0;
    const cat_table_t *t = tr->t;
    sql_exec_session_t *ss = x->ss;
    if (ss->ntrg_tables >= EXEC_TRG_MAX_DEPTH)
        return diag_error(x->diag, ER_SP_RECURSION_LIMIT, (int)ss->ntrg_tables, tr->v[0].name);
    value_t *old = NULL, *nw = NULL;
    if (old_stored) {
        old = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        for (uint32_t c = 0; c < t->ncols; c++)
            old[c] = table_value_out(&t->cols[c], &old_stored[c], x->arena);
    }
    if (new_stored) {
        nw = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        for (uint32_t c = 0; c < t->ncols; c++)
            nw[c] = table_value_out(&t->cols[c], &new_stored[c], x->arena);
    }
    unsigned bit = 1u << (event * 2 + timing);
    int rc = 0;
    for (uint32_t i = 0; i < tr->n && !rc; i++) {
        if (trg_bit(tr->v[i].event, tr->v[i].timing) != bit)
            continue;
        bool *set = arena_calloc(x->arena, t->ncols + 1);
        ss->trg_tables[ss->ntrg_tables++] = (exec_trg_table_t){t->db, t->name};
        ss->trg_depth++;
        store_ctx_t sc = {x, t};
        sql_trg_row_t row = {tr->cols, t->ncols, old, nw, set, trg_store, &sc, x->arena, &tr->cache[i]};
        rc = x->cb->trigger(x->cb_user, &tr->v[i], &row);
        ss->trg_depth--;
        ss->ntrg_tables--;
        if (rc) {
            rc = rc < 0 ? rc : -x->diag->error_code;
            break;
        }
        for (uint32_t c = 0; c < t->ncols && new_stored && !rc; c++) {
            if (!set[c])
                continue;
            if (tr->assigned)
                tr->assigned[c] = true;
            if (nw[c].type == VAL_NULL && !t->cols[c].rc.nullable) { /* exec_trg_null_check decides after */
                new_stored[c] = nw[c];
                continue;
            }
            /* MariaDB stores a trigger's NEW.col as a routine's variable: no truncation notes */
            bool notes_off = x->diag->notes_off;
            x->diag->notes_off = true;
            rc = table_value_store(t, c, &nw[c], &new_stored[c], x->arena, x->diag, x->strict, rowno);
            x->diag->notes_off = notes_off;
            if (rc)
                break;
            nw[c] = table_value_out(&t->cols[c], &new_stored[c], x->arena);
        }
    }
    return rc;
}
