/*
 * SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT.
 *
 * The engine has no savepoints; the executor already keeps, per statement, the log of what the statement changed
 * (table_undo_t) to take a failed statement back.  While a transaction has savepoints, the logs of its successful
 * statements are not forgotten but appended to ss->txundo; a savepoint is a position in that log.  ROLLBACK TO
 * applies the log backwards down to the savepoint's position (as a failed statement is undone) and keeps the
 * savepoint; later savepoints go (MariaDB's rule).  RELEASE forgets the savepoint and the later ones; COMMIT and
 * ROLLBACK forget them all (trx_end).  With no savepoint the log is not kept, so transactions that do not use
 * them pay nothing.
 *
 * Locks taken by the undone changes stay until the transaction ends, as in InnoDB.
 */
#include <string.h>
#include <strings.h>

#include "sql/exec_int.h"

typedef struct sql_exec_savepoint {
    char *name;
    uint32_t pos; /* txundo records before it */
} xsp_t;

void xsp_keep_undo(sql_exec_session_t *ss)
{
    if (ss->nsp)
        table_undo_move(&ss->txundo, &ss->undo, 0);
    else
        table_undo_clear(&ss->undo);
}

static void xsp_drop_from(sql_exec_session_t *ss, uint32_t i)
{
    for (uint32_t k = i; k < ss->nsp; k++)
        mem_free(ss->sp[k].name);
    ss->nsp = i;
}

void xsp_clear(sql_exec_session_t *ss)
{
    xsp_drop_from(ss, 0);
    table_undo_clear(&ss->txundo);
}

static int xsp_find(const sql_exec_session_t *ss, const char *name)
{
    for (uint32_t i = 0; i < ss->nsp; i++)
        if (strcasecmp(ss->sp[i].name, name) == 0)
            return (int)i;
    return -1;
}

int sql_exec_savepoint(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    /* outside a transaction (autocommit, no BEGIN) a savepoint ends with its own statement: nothing to keep */
    if (!sql_exec_in_trans(ss) && !ss->trx)
        return 0;
    int old = xsp_find(ss, name);
    if (old >= 0) { /* the same name again moves it here */
        mem_free(ss->sp[old].name);
        memmove(&ss->sp[old], &ss->sp[old + 1], sizeof(xsp_t) * (ss->nsp - (uint32_t)old - 1));
        ss->nsp--;
    }
    if (ss->nsp == ss->capsp) {
        ss->capsp = ss->capsp ? ss->capsp * 2 : 4;
        ss->sp = mem_realloc(ss->sp, sizeof(xsp_t) * ss->capsp);
    }
    ss->sp[ss->nsp].name = mem_strdup(name);
    ss->sp[ss->nsp].pos = ss->txundo.n;
    ss->nsp++;
    return 0;
}

int sql_exec_rollback_to(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    int i = xsp_find(ss, name);
    if (i < 0)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name);
    uint32_t pos = ss->sp[i].pos;
    xsp_drop_from(ss, (uint32_t)i + 1);
    if (!ss->trx || ss->txundo.n <= pos)
        return 0;
    table_undo_t tail;
    table_undo_init(&tail);
    table_undo_move(&tail, &ss->txundo, pos);
    int rc = table_undo_apply(ss->trx, &tail);
    table_undo_free(&tail);
    if (rc) {
        log_error("executor: ROLLBACK TO SAVEPOINT failed (%d); rolling back the transaction", rc);
        return sql_exec_rollback(x) ?: table_engine_err(x->diag, NULL, rc);
    }
    return 0;
}

int sql_exec_release_savepoint(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    int i = xsp_find(ss, name);
    if (i < 0)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name);
    xsp_drop_from(ss, (uint32_t)i);
    if (!ss->nsp)
        table_undo_clear(&ss->txundo);
    return 0;
}
