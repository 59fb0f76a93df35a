/*
 * Per-connection executor state: the transaction (begun on demand, committed or rolled back with the commit
 * coordinator), savepoints, TEMPORARY tables, metadata locks taken for the statements of a transaction, and
 * the transaction state the protocol reports (in_transaction, session_track_transaction_info).
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
#include "access/trigger.h"
#include "util/util.h"
#include "sql/exec/query_int.h"

/* ---------------------------------------------------------------- sessions and transactions */

/* ---------------------------------------------------------------- TEMPORARY tables */


bool exec_temp_map(sql_exec_ctx_t *x, const char **db, const char **name)
{
    if (!x->ss || !*db || !*name)
        return false;
    for (temp_table_t *t = x->ss->tmp; t; t = t->next)
        if (strcmp(t->db, *db) == 0 && strcmp(t->name, *name) == 0) {
            *db = EXEC_TEMP_DB;
            *name = t->real;
            return true;
        }
    return false;
}

static void exec_temp_drop_all(sql_exec_session_t *ss)
{
    while (ss->tmp) {
        temp_table_t *t = ss->tmp;
        ss->tmp = t->next;
        if (exec_cat) {
            diag_t d;
            diag_init(&d, 4);
            catalog_table_drop(exec_cat, EXEC_TEMP_DB, t->real, true, &d);
            diag_free(&d);
        }
        mem_free(t->db);
        mem_free(t->name);
        mem_free(t->real);
        mem_free(t);
    }
}

sql_exec_session_t *sql_exec_session_new(void)
{
    sql_exec_session_t *ss = mem_calloc(1, sizeof *ss);
    ss->bl = binrow_log_new();
    return ss;
}

typedef struct sql_exec_savepoint {
    char *name;
    uint64_t engine_sp;      /* the engine savepoint (engine_trx_savepoint; 0 when no engine trx was open) */
    binlog_trx_mark_t bl;    /* the binlog events before it */
} savepoint_t;

static void savepoints_drop_from(sql_exec_session_t *ss, uint32_t i)
{
    for (uint32_t k = i; k < ss->nsp; k++)
        mem_free(ss->sp[k].name);
    if (ss->nsp > i)
        ss->nsp = i;
}

void exec_trx_end(sql_exec_session_t *ss)
{
    ss->trx = NULL;
    ss->state = SQLX_TRX_NONE;
    ss->wrote = false;
    ss->read_only = false;
    ss->did_read = ss->did_write = ss->snapshot = ss->result_set = ss->unsafe = false;
    ss->trk_events++;
    savepoints_drop_from(ss, 0);
    binrow_reset(ss->bl);
    mdl_release_all(&ss->mdl);
}

/* Metadata lock errors as MySQL's: 1205 after lock_wait_timeout, 1317 on KILL QUERY. */
static int mdl_err(sql_exec_ctx_t *x, int rc)
{
    return rc == MDL_KILLED     ? diag_error(x->diag, ER_QUERY_INTERRUPTED)
           : rc == MDL_DEADLOCK ? diag_error(x->diag, ER_LOCK_DEADLOCK)
                                : diag_error(x->diag, ER_LOCK_WAIT_TIMEOUT);
}

static uint64_t mdl_timeout(const sql_exec_ctx_t *x)
{
    return x->lock_wait_timeout_us ? x->lock_wait_timeout_us : 86400ull * 1000000u;
}

int exec_mdl_lock(sql_exec_ctx_t *x, const char *db, const char *name, bool write)
{
    if (!x->ss || !db || !name || db[0] == '#' || catalog_db_is_virtual(db))
        return 0; /* TEMPORARY tables are the session's own; information_schema is computed */
    sql_exec_session_t *ss = x->ss;
    if (!ss->trg_depth && ss->nstmt_tables < ARRAY_LEN(ss->stmt_tables)) /* for 1442 in the functions it calls */
        ss->stmt_tables[ss->nstmt_tables++] = (struct exec_trg_table){arena_strdup(x->arena, db),
                                                                      arena_strdup(x->arena, name)};
    uint64_t t0 = time_mono_us();
    int rc = write ? mdl_shared_write(&x->ss->mdl, db, name, mdl_timeout(x), x->kill_query)
                   : mdl_shared(&x->ss->mdl, db, name, mdl_timeout(x), x->kill_query);
    x->stats.lock_us += time_mono_us() - t0;
    return rc ? mdl_err(x, rc) : 0;
}

int exec_mdl_shared(sql_exec_ctx_t *x, const char *db, const char *name) { return exec_mdl_lock(x, db, name, false); }

/* An index build's NO_WRITE becomes EXCLUSIVE to publish the new definition (readers leave first). */
int exec_mdl_upgrade(sql_exec_ctx_t *x)
{
    if (!x->ss)
        return 0;
    int rc = mdl_upgrade(&x->ss->mdl, mdl_timeout(x), x->kill_query);
    return rc ? mdl_err(x, rc) : 0;
}

/* DDL on existing tables: exclusive locks on every name, all at once, for the statement. */
int ddl_mdl(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const char *dbs[64], *names[64];
    uint32_t n = 0;
#define ADD(d, nm)                                                                  \
    do {                                                                            \
        const char *_d = exec_db_name(x, (d)), *_n = (nm);                                   \
        if (_d && _n && n < 64 && !exec_temp_map(x, &_d, &_n) && !catalog_db_is_virtual(_d)) { \
            dbs[n] = _d;                                                            \
            names[n++] = _n;                                                        \
        }                                                                           \
    } while (0)
    if ((st->kind == SQL_STMT_DROP_DATABASE || (st->kind == SQL_STMT_CREATE_DATABASE && st->database.or_replace)) &&
        st->database.name && !catalog_db_is_virtual(st->database.name)) {
        /* every table of the database, exclusively: a reader or the statistics thread (which holds a shared
         * lock while it walks a table's trees) finishes before the trees go */
        const char **tabs = NULL;
        uint32_t nt = 0;
        if (catalog_table_list(exec_cat, st->database.name, x->arena, &tabs, &nt) != 0 || !nt)
            return 0;
        const char **ddbs = arena_alloc(x->arena, sizeof *ddbs * nt);
        for (uint32_t i = 0; i < nt; i++)
            ddbs[i] = st->database.name;
        int rc = mdl_exclusive(&x->ss->mdl, ddbs, tabs, nt, mdl_timeout(x), x->kill_query);
        return rc ? mdl_err(x, rc) : 0;
    }
    switch (st->kind) {
    case SQL_STMT_DROP_TABLE: case SQL_STMT_TRUNCATE: case SQL_STMT_DROP_VIEW: case SQL_STMT_OPTIMIZE_TABLE:
        for (uint32_t i = 0; i < st->tables.n; i++)
            ADD(st->tables.tables[i].db, st->tables.tables[i].name);
        break;
    case SQL_STMT_RENAME_TABLE:
        for (uint32_t i = 0; i < st->rename_table.n; i++) {
            ADD(st->rename_table.from[i].db, st->rename_table.from[i].name);
            ADD(st->rename_table.to[i].db, st->rename_table.to[i].name);
        }
        break;
    case SQL_STMT_CREATE_INDEX: case SQL_STMT_DROP_INDEX:
        ADD(st->index.table.db, st->index.table.name);
        break;
    case SQL_STMT_ALTER_TABLE:
        ADD(st->alter_table->table.db, st->alter_table->table.name);
        break;
    case SQL_STMT_CREATE_TABLE:
        if (!st->create_table->temporary)
            ADD(st->create_table->table.db, st->create_table->table.name);
        break;
    case SQL_STMT_CREATE_TRIGGER: /* the table, as MariaDB: statements using it finish first */
        ADD(st->trigger->table.db ? st->trigger->table.db : st->trigger->name.db, st->trigger->table.name);
        break;
    case SQL_STMT_DROP_TRIGGER: {
        const char *tdb = exec_db_name(x, st->trigger->name.db);
        cat_trigger_t tr;
        if (tdb && catalog_trigger_get(exec_cat, x->arena, tdb, st->trigger->name.name, &tr) > 0)
            ADD(tr.db, tr.table);
        break;
    }
    default:
        break;
    }
#undef ADD
    if (!n)
        return 0;
    bool exclusive = st->kind == SQL_STMT_CREATE_INDEX ? st->index.lock == SQL_ALTER_LOCK_EXCLUSIVE
                   : st->kind == SQL_STMT_ALTER_TABLE && st->alter_table->lock == SQL_ALTER_LOCK_EXCLUSIVE;
    if ((st->kind == SQL_STMT_CREATE_INDEX || st->kind == SQL_STMT_ALTER_TABLE) && n == 1 && !exclusive) {
        /* index builds and table copies let readers in; they upgrade to EXCLUSIVE to publish (exec_mdl_upgrade).
         * LOCK=EXCLUSIVE keeps readers out too: the plain exclusive lock below */
        int rc = mdl_no_write(&x->ss->mdl, dbs[0], names[0], mdl_timeout(x), x->kill_query);
        return rc ? mdl_err(x, rc) : 0;
    }
    int rc = mdl_exclusive(&x->ss->mdl, dbs, names, n, mdl_timeout(x), x->kill_query);
    return rc ? mdl_err(x, rc) : 0;
}

void sql_exec_session_free(sql_exec_session_t *ss)
{
    if (!ss)
        return;
    if (ss->trx)
        engine_trx_rollback(ss->trx);
    exec_trx_end(ss);
    exec_temp_drop_all(ss);
    mem_free(ss->sp);
    binrow_log_free(ss->bl);
    mdl_set_free(&ss->mdl);
    mem_free(ss);
}

bool sql_exec_in_trans(const sql_exec_session_t *ss)
{
    return ss && (ss->explicit_begin || (ss->trx && ss->state == SQLX_TRX_EXPLICIT));
}

void sql_exec_stmt_begin(sql_exec_session_t *ss)
{
    if (ss) {
        ss->db_dropped = ss->no_index_used = false;
        ss->nstmt_tables = 0;
    }
}

bool sql_exec_in_trans_read_only(const sql_exec_session_t *ss) { return sql_exec_in_trans(ss) && ss->read_only; }

void sql_exec_note(sql_exec_session_t *ss, sql_exec_note_t what)
{
    if (!sql_exec_in_trans(ss))
        return;
    if (what == SQLX_NOTE_RESULT_SET)
        ss->result_set = true;
    else
        ss->unsafe = true;
    ss->trk_events++;
}

void sql_exec_trx_state_string(const sql_exec_session_t *ss, char out[9])
{
    memcpy(out, "________", 9);
    if (!sql_exec_in_trans(ss))
        return;
    out[0] = ss->explicit_begin ? 'T' : 'I';
    if (ss->did_read || ss->snapshot)
        out[2] = 'R';
    if (ss->did_write)
        out[4] = 'W';
    if (ss->unsafe)
        out[5] = 's';
    if (ss->result_set)
        out[6] = 'S';
}

/* A statement opened table t of a real database (after its metadata lock).  With autocommit off or after BEGIN
 * this registers the transaction, as MariaDB's engine does when it locks a table: from here on the session is
 * in a transaction, even if the statement then fails; the access is recorded for the tracker's state. */
int exec_table_used(sql_exec_ctx_t *x, bool write)
{
    sql_exec_session_t *ss = x->ss;
    if (!ss || x->no_trx || (x->autocommit && !ss->explicit_begin))
        return 0; /* DDL runs in a transaction of its own, committed before it returns; PREPARE in none */
    engine_trx_t *trx;
    int rc = exec_trx(x, &trx);
    if (rc)
        return rc;
    if (write)
        ss->did_write = true;
    else
        ss->did_read = true;
    ss->trk_events++;
    return 0;
}

int exec_trx(sql_exec_ctx_t *x, engine_trx_t **out)
{
    sql_exec_session_t *ss = x->ss;
    if (!ss->trx) {
        int rc = engine_trx_begin(exec_engine, &ss->trx);
        if (rc) {
            ss->trx = NULL;
            return table_engine_err(x->diag, NULL, rc);
        }
        ss->state = x->autocommit && !ss->explicit_begin ? SQLX_TRX_STMT : SQLX_TRX_EXPLICIT;
        ss->wrote = false;
        if (!ss->explicit_begin) { /* BEGIN took its access and counted itself */
            ss->read_only = x->tx_read_only;
            ss->trx_seq++;
        }
        static const engine_isolation_t iso[] = {ENGINE_ISO_READ_UNCOMMITTED, ENGINE_ISO_READ_COMMITTED,
                                                 ENGINE_ISO_REPEATABLE_READ, ENGINE_ISO_SERIALIZABLE};
        engine_trx_set_isolation(ss->trx, iso[x->isolation & 3]);
    }
    engine_trx_set_lock_wait_timeout(ss->trx, x->lock_wait_us); /* the session's current value, per statement */
    engine_trx_set_kill(ss->trx, x->kill_query); /* KILL QUERY ends a row-lock wait (1317), as in MariaDB */
    *out = ss->trx;
    return 0;
}

int exec_commit_open(sql_exec_ctx_t *x)
{
    sql_exec_session_t *ss = x->ss;
    int rc = 0;
    if (ss->trx) {
        binlog_trx_t *blt = binrow_trx(ss->bl);
        blt->thread_id = x->thread_id;
        rc = sql_commit_trx(ss->trx, blt, NULL);
        if (rc == BINLOG_EDISKFULL) {
            rc = diag_error(x->diag, ER_DISK_FULL, "binary log", 28, "No space left on device");
        } else if (rc) {
            /* an operating-system error of the engine (a redo write or fsync that failed): its errno */
            bool os = rc < 0 && rc > -4096;
            rc = diag_error(x->diag, ER_ERROR_DURING_COMMIT, os ? -rc : rc,
                            os                  ? strerror(-rc)
                            : rc == STRATA_EIO ? "binary log write failed, see the error log"
                                               : "engine error");
        }
    }
    exec_trx_end(ss);
    return rc;
}

int sql_exec_begin(sql_exec_ctx_t *x, bool read_only)
{
    int rc = exec_commit_open(x); /* BEGIN commits what is open, as MySQL does */
    x->ss->explicit_begin = true;
    x->ss->read_only = read_only;
    x->ss->trx_seq++;
    x->ss->trk_events++;
    return rc;
}

int sql_exec_begin_snapshot(sql_exec_ctx_t *x, bool read_only, char *file, size_t cap, uint64_t *pos)
{
    int rc = sql_exec_begin(x, read_only);
    engine_trx_t *trx;
    if (rc == 0 && (rc = exec_trx(x, &trx)) == 0) {
        sql_commit_snapshot(trx, file, cap, pos);
        x->ss->snapshot = true;
    }
    return rc;
}

static int savepoint_find(const sql_exec_session_t *ss, const char *name)
{
    for (uint32_t i = 0; i < ss->nsp; i++)
        if (strcasecmp(ss->sp[i].name, name) == 0)
            return (int)i;
    return -1;
}

int sql_exec_savepoint(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    if (!sql_exec_in_trans(ss))
        return 0; /* outside a transaction MySQL accepts it and forgets it */
    int i = savepoint_find(ss, name);
    if (i >= 0) { /* the same name again: the old one goes (MySQL) */
        mem_free(ss->sp[i].name);
        memmove(ss->sp + i, ss->sp + i + 1, (ss->nsp - (uint32_t)i - 1) * sizeof *ss->sp);
        ss->nsp--;
    }
    if (ss->nsp == ss->capsp) {
        ss->capsp = ss->capsp ? 2 * ss->capsp : 4;
        ss->sp = mem_realloc(ss->sp, ss->capsp * sizeof *ss->sp);
    }
    ss->sp[ss->nsp++] =
        (savepoint_t){mem_strdup(name), ss->trx ? engine_trx_savepoint(ss->trx) : 0, binrow_savepoint(ss->bl)};
    return 0;
}

int sql_exec_rollback_to(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    int i = savepoint_find(ss, name);
    if (i < 0)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name);
    savepoint_t *p = &ss->sp[i];
    int rc = ss->trx ? engine_trx_rollback_to(ss->trx, p->engine_sp) : 0;
    binrow_rollback_to(ss->bl, p->bl);
    savepoints_drop_from(ss, (uint32_t)i + 1); /* later savepoints go, this one stays */
    return rc ? table_engine_err(x->diag, NULL, rc) : 0;
}

int sql_exec_release_savepoint(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    int i = savepoint_find(ss, name);
    if (i < 0)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name);
    savepoints_drop_from(ss, (uint32_t)i);
    return 0;
}

int sql_exec_commit(sql_exec_ctx_t *x)
{
    int rc = exec_commit_open(x);
    x->ss->explicit_begin = false;
    return rc;
}

int sql_exec_rollback(sql_exec_ctx_t *x)
{
    sql_exec_session_t *ss = x->ss;
    int rc = 0;
    if (ss->trx)
        rc = engine_trx_rollback(ss->trx);
    exec_trx_end(ss);
    ss->explicit_begin = false;
    if (!rc)
        return 0;
    /* Not rolled back yet: the engine keeps the transaction, its locks and its undo, and finishes the rollback
     * in the background (engine.c "stuck rollbacks"); nothing of it becomes visible meanwhile. */
    bool os = rc < 0 && rc > -4096;
    return diag_error(x->diag, ER_ERROR_DURING_ROLLBACK, rc < 0 ? -rc : rc,
                      os ? strerror(-rc) : "the rollback goes on in the background, see the error log");
}

/* DDL runs outside the user's transaction: what is open commits first. */
int ddl_begin(sql_exec_ctx_t *x)
{
    int rc = exec_commit_open(x);
    x->ss->explicit_begin = false;
    return rc;
}
