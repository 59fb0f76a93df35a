/*
 * The executor's entry points (exec.h): process-wide catalog, per-connection transaction state, statement
 * dispatch, DDL (databases, tables, indexes, tablespaces) and DML (INSERT / REPLACE / UPDATE / DELETE).
 * SELECT lives in exec_select.c, SHOW and information_schema in exec_show.c.
 *
 * Statement life: the statement's work runs in the session's engine transaction (begun on demand, xtrx); its
 * OK is held back (pend_ok) until an autocommit statement has committed, so a failed commit is reported as the
 * statement's error rather than after an OK.  On error the statement's changes are undone (statement undo log)
 * or the whole implicit transaction rolled back.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/binrow.h"
#include "sql/collation.h"
#include "sql/commit.h"
#include "sql/exec_int.h"
#include "sql/stats.h"
#include "util/util.h"

static catalog_t *g_cat;
static engine_t *g_eng;

static int sql_exec_keys_upgrade(void);

int sql_exec_global_init(engine_t *e, const char *datadir)
{
    int rc = catalog_open(e, datadir, &g_cat);
    if (rc == 0) {
        g_eng = e;
        table_set_engine(e);
        /* temporary tables of connections that were open at a crash or shutdown */
        if (catalog_db_exists(g_cat, XTMP_DB)) {
            diag_t d;
            diag_init(&d, 4);
            catalog_db_drop(g_cat, XTMP_DB, true, &d, NULL);
            diag_free(&d);
        }
        /* indexes written by an older strata (rowcodec.h RC_KEY_VERSION) */
        rc = sql_exec_keys_upgrade();
        if (rc) {
            catalog_close(g_cat);
            g_cat = NULL;
            g_eng = NULL;
            table_set_engine(NULL);
            return rc;
        }
    }
    return rc;
}

void sql_exec_global_shutdown(void)
{
    stats_shutdown();
    catalog_close(g_cat);
    g_cat = NULL;
    g_eng = NULL;
    table_set_engine(NULL);
}

catalog_t *sql_exec_catalog(void) { return g_cat; }

bool sql_exec_db_exists(const char *db)
{
    if (catalog_db_is_virtual(db))
        return true;
    return g_cat && catalog_db_exists(g_cat, db);
}

/* ---------------------------------------------------------------- sessions and transactions */

/* ---------------------------------------------------------------- TEMPORARY tables */

typedef struct sql_exec_tmp {
    struct sql_exec_tmp *next;
    char *db, *name;          /* as the connection names it */
    char *real;               /* its table in XTMP_DB */
} xtmp_t;

bool xtmp_map(sql_exec_ctx_t *x, const char **db, const char **name)
{
    if (!x->ss || !*db || !*name)
        return false;
    for (xtmp_t *t = x->ss->tmp; t; t = t->next)
        if (strcmp(t->db, *db) == 0 && strcmp(t->name, *name) == 0) {
            *db = XTMP_DB;
            *name = t->real;
            return true;
        }
    return false;
}

static void xtmp_drop_all(sql_exec_session_t *ss)
{
    while (ss->tmp) {
        xtmp_t *t = ss->tmp;
        ss->tmp = t->next;
        if (g_cat) {
            diag_t d;
            diag_init(&d, 4);
            catalog_table_drop(g_cat, XTMP_DB, t->real, true, &d);
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
    table_undo_init(&ss->undo);
    ss->bl = binrow_log_new();
    return ss;
}

typedef struct sql_exec_savepoint {
    char *name;
    uint32_t undo_n;         /* trx_undo records before it */
    binlog_trx_mark_t bl;    /* the binlog events before it */
} xsavepoint_t;

static void savepoints_drop_from(sql_exec_session_t *ss, uint32_t i)
{
    for (uint32_t k = i; k < ss->nsp; k++)
        mem_free(ss->sp[k].name);
    if (ss->nsp > i)
        ss->nsp = i;
}

static void trx_end(sql_exec_session_t *ss)
{
    ss->trx = NULL;
    ss->state = SQLX_TRX_NONE;
    ss->wrote = false;
    ss->read_only = false;
    ss->did_read = ss->did_write = ss->snapshot = ss->result_set = ss->unsafe = false;
    ss->trk_events++;
    table_undo_clear(&ss->undo);
    table_undo_clear(&ss->trx_undo);
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

static int xmdl_lock(sql_exec_ctx_t *x, const char *db, const char *name, bool write)
{
    if (!x->ss || !db || !name || db[0] == '#' || catalog_db_is_virtual(db))
        return 0; /* TEMPORARY tables are the session's own; information_schema is computed */
    uint64_t t0 = time_mono_us();
    int rc = write ? mdl_shared_write(&x->ss->mdl, db, name, mdl_timeout(x), x->kill_query)
                   : mdl_shared(&x->ss->mdl, db, name, mdl_timeout(x), x->kill_query);
    x->stats.lock_us += time_mono_us() - t0;
    return rc ? mdl_err(x, rc) : 0;
}

int xmdl_shared(sql_exec_ctx_t *x, const char *db, const char *name) { return xmdl_lock(x, db, name, false); }

/* An index build's NO_WRITE becomes EXCLUSIVE to publish the new definition (readers leave first). */
int xmdl_upgrade(sql_exec_ctx_t *x)
{
    if (!x->ss)
        return 0;
    int rc = mdl_upgrade(&x->ss->mdl, mdl_timeout(x), x->kill_query);
    return rc ? mdl_err(x, rc) : 0;
}

/* DDL on existing tables: exclusive locks on every name, all at once, for the statement. */
static int ddl_mdl(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const char *dbs[64], *names[64];
    uint32_t n = 0;
#define ADD(d, nm)                                                                  \
    do {                                                                            \
        const char *_d = xdb(x, (d)), *_n = (nm);                                   \
        if (_d && _n && n < 64 && !xtmp_map(x, &_d, &_n) && !catalog_db_is_virtual(_d)) { \
            dbs[n] = _d;                                                            \
            names[n++] = _n;                                                        \
        }                                                                           \
    } while (0)
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
    default:
        break;
    }
#undef ADD
    if (!n)
        return 0;
    bool exclusive = st->kind == SQL_STMT_CREATE_INDEX ? st->index.lock == SQL_ALTER_LOCK_EXCLUSIVE
                   : st->kind == SQL_STMT_ALTER_TABLE && st->alter_table->lock == SQL_ALTER_LOCK_EXCLUSIVE;
    if ((st->kind == SQL_STMT_CREATE_INDEX || st->kind == SQL_STMT_ALTER_TABLE) && n == 1 && !exclusive) {
        /* index builds and table copies let readers in; they upgrade to EXCLUSIVE to publish (xmdl_upgrade).
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
    trx_end(ss);
    xtmp_drop_all(ss);
    table_undo_free(&ss->undo);
    table_undo_free(&ss->trx_undo);
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
    if (ss)
        ss->db_dropped = ss->no_index_used = false;
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
int xtable_used(sql_exec_ctx_t *x, bool write)
{
    sql_exec_session_t *ss = x->ss;
    if (!ss || x->no_trx || (x->autocommit && !ss->explicit_begin))
        return 0; /* DDL runs in a transaction of its own, committed before it returns; PREPARE in none */
    engine_trx_t *trx;
    int rc = xtrx(x, &trx);
    if (rc)
        return rc;
    if (write)
        ss->did_write = true;
    else
        ss->did_read = true;
    ss->trk_events++;
    return 0;
}

int xtrx(sql_exec_ctx_t *x, engine_trx_t **out)
{
    sql_exec_session_t *ss = x->ss;
    if (!ss->trx) {
        int rc = engine_trx_begin(g_eng, &ss->trx);
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
    *out = ss->trx;
    return 0;
}

static int commit_open(sql_exec_ctx_t *x)
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
    trx_end(ss);
    return rc;
}

int sql_exec_begin(sql_exec_ctx_t *x, bool read_only)
{
    int rc = commit_open(x); /* BEGIN commits what is open, as MySQL does */
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
    if (rc == 0 && (rc = xtrx(x, &trx)) == 0) {
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
    ss->sp[ss->nsp++] = (xsavepoint_t){mem_strdup(name), ss->trx_undo.n, binrow_savepoint(ss->bl)};
    return 0;
}

int sql_exec_rollback_to(sql_exec_ctx_t *x, const char *name)
{
    sql_exec_session_t *ss = x->ss;
    int i = savepoint_find(ss, name);
    if (i < 0)
        return diag_error(x->diag, ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name);
    xsavepoint_t *p = &ss->sp[i];
    int rc = ss->trx ? table_undo_apply_from(ss->trx, &ss->trx_undo, p->undo_n) : 0;
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
    int rc = commit_open(x);
    x->ss->explicit_begin = false;
    return rc;
}

int sql_exec_rollback(sql_exec_ctx_t *x)
{
    sql_exec_session_t *ss = x->ss;
    int rc = 0;
    if (ss->trx)
        rc = engine_trx_rollback(ss->trx);
    trx_end(ss);
    ss->explicit_begin = false;
    return rc ? table_engine_err(x->diag, NULL, rc) : 0;
}

/* DDL runs outside the user's transaction: what is open commits first. */
static int ddl_begin(sql_exec_ctx_t *x)
{
    int rc = commit_open(x);
    x->ss->explicit_begin = false;
    return rc;
}

/* ---------------------------------------------------------------- helpers */

const char *xdb(sql_exec_ctx_t *x, const char *db)
{
    if (db)
        return db;
    if (x->db)
        return x->db;
    diag_error(x->diag, ER_NO_DB_ERROR);
    return NULL;
}

static void pend_ok(sql_exec_ctx_t *x, uint64_t affected, const char *info)
{
    x->pend_ok = true;
    x->pend_affected = affected;
    x->pend_info = info;
}

static uint32_t int_width_default(sqlt_t t, bool uns)
{
    switch (t) {
    case SQLT_TINYINT: return uns ? 3 : 4;
    case SQLT_SMALLINT: return uns ? 5 : 6;
    case SQLT_MEDIUMINT: return uns ? 8 : 9;
    case SQLT_INT: return uns ? 10 : 11;
    default: return 20;
    }
}

static bool col_in_index(const cat_table_t *t, uint32_t col, int kind, bool first_only)
{
    for (uint32_t i = 0; i < t->nidx; i++) {
        if (kind >= 0 && (int)t->idx[i].kind != kind)
            continue;
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == col && (!first_only || k == 0))
                return true;
    }
    return false;
}

void xcol_meta(res_col_t *c, const cat_table_t *t, uint32_t col, const char *db, const char *table_alias,
               const char *name)
{
    const cat_column_t *cc = &t->cols[col];
    sqlt_t ty = (sqlt_t)cc->rc.type;
    memset(c, 0, sizeof *c);
    c->schema = db;
    c->table = table_alias;
    c->org_table = t->name;
    c->name = name ? name : cc->name;
    c->org_name = cc->name;
    uint16_t f = 0;
    if (!cc->rc.nullable)
        f |= COLF_NOT_NULL;
    if (col_in_index(t, col, CAT_IDX_PRIMARY, false))
        f |= COLF_PRI_KEY;
    if (col_in_index(t, col, CAT_IDX_UNIQUE, false))
        f |= COLF_UNIQUE_KEY;
    if (col_in_index(t, col, CAT_IDX_KEY, true))
        f |= COLF_MULTIPLE_KEY;
    if (cc->rc.is_unsigned)
        f |= COLF_UNSIGNED;
    if (cc->zerofill)
        f |= COLF_ZEROFILL;
    if (cc->auto_increment)
        f |= COLF_AUTO_INCREMENT;
    if (cc->def == CAT_DEF_NONE && !cc->rc.nullable && !cc->auto_increment)
        f |= COLF_NO_DEFAULT;
    uint32_t mb = value_coll_mbmaxlen(cc->rc.coll);
    c->charset = CHARSET_BINARY;
    if (sqlt_is_int(ty) || ty == SQLT_YEAR || ty == SQLT_DECIMAL || ty == SQLT_FLOAT || ty == SQLT_DOUBLE) {
        f |= COLF_NUM;
    }
    switch (ty) {
    case SQLT_TINYINT: c->type = MYSQL_TYPE_TINY; break;
    case SQLT_SMALLINT: c->type = MYSQL_TYPE_SHORT; break;
    case SQLT_MEDIUMINT: c->type = MYSQL_TYPE_INT24; break;
    case SQLT_INT: c->type = MYSQL_TYPE_LONG; break;
    case SQLT_BIGINT: c->type = MYSQL_TYPE_LONGLONG; break;
    case SQLT_DECIMAL:
        c->type = MYSQL_TYPE_NEWDECIMAL;
        c->length = cc->rc.len + (cc->rc.scale ? 1 : 0) + (cc->rc.is_unsigned ? 0 : 1);
        c->decimals = cc->rc.scale;
        break;
    case SQLT_FLOAT: c->type = MYSQL_TYPE_FLOAT; c->length = 12; c->decimals = 31; break;
    case SQLT_DOUBLE: c->type = MYSQL_TYPE_DOUBLE; c->length = 22; c->decimals = 31; break;
    case SQLT_BIT: c->type = MYSQL_TYPE_BIT; c->length = cc->rc.len; f |= COLF_UNSIGNED; break;
    case SQLT_DATE: c->type = MYSQL_TYPE_DATE; c->length = 10; f |= COLF_BINARY; break;
    case SQLT_DATETIME:
        c->type = MYSQL_TYPE_DATETIME;
        c->length = 19 + (cc->rc.scale ? cc->rc.scale + 1u : 0);
        c->decimals = cc->rc.scale;
        f |= COLF_BINARY;
        break;
    case SQLT_TIMESTAMP:
        c->type = MYSQL_TYPE_TIMESTAMP;
        c->length = 19 + (cc->rc.scale ? cc->rc.scale + 1u : 0);
        c->decimals = cc->rc.scale;
        f |= COLF_BINARY | COLF_TIMESTAMP;
        break;
    case SQLT_TIME:
        c->type = MYSQL_TYPE_TIME;
        c->length = 10 + (cc->rc.scale ? cc->rc.scale + 1u : 0);
        c->decimals = cc->rc.scale;
        f |= COLF_BINARY;
        break;
    case SQLT_YEAR: c->type = MYSQL_TYPE_YEAR; c->length = 4; f |= COLF_UNSIGNED | COLF_ZEROFILL; break;
    case SQLT_CHAR: case SQLT_BINARY:
        c->type = MYSQL_TYPE_STRING;
        c->charset = cc->rc.coll;
        c->length = cc->rc.len * (cc->rc.coll == COLL_BINARY ? 1 : mb);
        break;
    case SQLT_VARCHAR: case SQLT_VARBINARY:
        c->type = MYSQL_TYPE_VAR_STRING;
        c->charset = cc->rc.coll;
        c->length = cc->rc.len * (cc->rc.coll == COLL_BINARY ? 1 : mb);
        break;
    case SQLT_ENUM: case SQLT_SET: {
        c->type = MYSQL_TYPE_STRING;
        c->charset = cc->rc.coll;
        uint32_t mx = 0;
        for (uint32_t i = 0; i < cc->nelems; i++) {
            uint32_t l = (uint32_t)strlen(cc->elems[i]);
            mx = ty == SQLT_ENUM ? MAX(mx, l) : mx + l + (i ? 1 : 0);
        }
        c->length = mx * mb;
        f |= ty == SQLT_ENUM ? COLF_ENUM : COLF_SET;
        break;
    }
    default: { /* TEXT / BLOB */
        c->type = MYSQL_TYPE_BLOB;
        c->charset = cc->rc.coll;
        uint64_t bytes = ty == SQLT_TINYTEXT || ty == SQLT_TINYBLOB ? 255
                       : ty == SQLT_TEXT || ty == SQLT_BLOB ? 65535
                       : ty == SQLT_MEDIUMTEXT || ty == SQLT_MEDIUMBLOB ? 16777215 : 4294967295ull;
        uint64_t l = bytes * (cc->rc.coll == COLL_BINARY ? 1 : mb);
        c->length = (uint32_t)MIN(l, 4294967295ull);
        f |= COLF_BLOB;
        break;
    }
    }
    if (sqlt_is_int(ty))
        c->length = cc->display_width ? cc->display_width : int_width_default(ty, cc->rc.is_unsigned);
    if ((sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET) &&
        (cc->rc.coll == COLL_BINARY || !value_coll_is_ci(cc->rc.coll)))
        f |= COLF_BINARY; /* binary strings and _bin collations */
    if (ty == SQLT_TIMESTAMP) {
        /* MariaDB: UNSIGNED BINARY, TIMESTAMP only for auto-set ones */
        f = (uint16_t)((f & ~COLF_TIMESTAMP) | COLF_UNSIGNED | COLF_BINARY);
        if (cc->def == CAT_DEF_NOW || cc->on_update_now)
            f |= COLF_TIMESTAMP;
    }
    for (uint32_t i = 0; i < t->nidx; i++)
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            if (t->idx[i].cols[k].col == col)
                f |= 16384; /* PART_KEY_FLAG */
    c->flags = f;
}

void xcol_meta_results(sql_exec_ctx_t *x, res_col_t *c, const cat_table_t *t, uint32_t col, const char *db,
                       const char *table_alias, const char *name)
{
    xcol_meta(c, t, col, db, table_alias, name);
    const cat_column_t *cc = &t->cols[col];
    sqlt_t ty = (sqlt_t)cc->rc.type;
    bool text = (sqlt_is_string(ty) || ty == SQLT_ENUM || ty == SQLT_SET) && cc->rc.coll != COLL_BINARY;
    if (text && x->result_coll == COLL_BINARY)
        c->charset = CHARSET_BINARY; /* SET NAMES binary: strings go out as they are, declared binary */
    if (!text || !x->result_coll || x->result_coll == COLL_BINARY)
        return;
    uint32_t from = value_coll_mbmaxlen(cc->rc.coll), to = value_coll_mbmaxlen(x->result_coll);
    uint64_t chars = from ? c->length / from : c->length;
    uint64_t l = chars * to;
    c->length = (uint32_t)MIN(l, 4294967295ull);
    c->charset = x->result_coll;
}

static const cat_table_t *single_def(xquery_t *q, sql_exec_ctx_t *x, cat_table_t *t, const char *db)
{
    memset(q, 0, sizeof *q);
    q->x = x;
    q->src = arena_calloc(x->arena, sizeof(xsrc_t));
    q->src[0].db = db;
    q->src[0].name = t->name;
    q->src[0].alias = t->name;
    q->src[0].t = t;
    q->src[0].is_virtual = true; /* not released by xquery_release: the caller owns the reference */
    q->nsrc = 1;
    q->width = t->ncols;
    return t;
}

/* Opens a table for writing: 1146 when missing, 1044 for the virtual schemas. */
static cat_table_t *open_write(sql_exec_ctx_t *x, const sql_name_t *n, const char **dbout)
{
    const char *db = xdb(x, n->db);
    if (!db)
        return NULL;
    if (sql_exec_in_trans(x->ss) ? x->ss->read_only : x->tx_read_only) {
        const char *rdb = db, *rname = n->name;
        if (!xtmp_map(x, &rdb, &rname)) { /* TEMPORARY tables stay writable, as in MySQL */
            diag_error(x->diag, ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION);
            return NULL;
        }
    }
    if (catalog_db_is_virtual(db)) {
        diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
        return NULL;
    }
    const char *rdb = db, *rname = n->name;
    xtmp_map(x, &rdb, &rname);
    *dbout = db;
    if (xmdl_lock(x, rdb, rname, true) != 0)
        return NULL;
    cat_table_t *t = catalog_table_get(g_cat, rdb, rname);
    if (!t)
        diag_error(x->diag, ER_NO_SUCH_TABLE, db, n->name);
    else if (xtable_used(x, true) != 0) {
        catalog_table_release(t);
        return NULL;
    }
    return t;
}

static bool same_stored(const value_t *a, const value_t *b)
{
    if (a->type == VAL_NULL || b->type == VAL_NULL)
        return a->type == b->type;
    if ((a->type == VAL_STRING || a->type == VAL_DECIMAL) && a->type == b->type)
        return a->s.len == b->s.len && memcmp(a->s.ptr, b->s.ptr, a->s.len) == 0;
    return a->type == b->type && value_compare(a, b, NULL) == 0;
}

/* ---------------------------------------------------------------- INSERT / REPLACE */

typedef struct xins {
    sql_exec_ctx_t *x;
    cat_table_t *t;
    const char *db;
    const sql_insert_t *ins;
    bool replace, ignore;
    int *colmap;             /* value position -> column */
    uint32_t nvals;
    xquery_t q;              /* the table alone, for ON DUPLICATE KEY UPDATE */
    xeval_t xe;
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
    xquery_t sq;             /* the SELECT's FROM, for names only */
    bool have_sq;
    uint32_t nextra;
    int32_t *extra_slot;
    const value_t *extra_vals; /* the current SELECT row's hidden items */
} xins_t;

static int col_default_value(sql_exec_ctx_t *x, const cat_column_t *c, value_t *out, arena_t *a, bool strict);

/* Builds the stored row for the values of one input row (vals[i] for colmap[i], NULL = DEFAULT). */
static int ins_build(xins_t *I, const value_t *vals, const bool *is_default, value_t *row)
{
    sql_exec_ctx_t *x = I->x;
    const cat_table_t *t = I->t;
    bool strict = x->strict && !I->ignore;
    bool *given = arena_calloc(x->arena, t->ncols + 1);
    int rc;
    for (uint32_t i = 0; i < I->nvals; i++) {
        int c = I->colmap[i];
        if (is_default && is_default[i])
            continue;
        given[c] = true;
        const cat_column_t *col = &t->cols[c];
        if (vals[i].type == VAL_NULL && col->auto_increment) {
            row[c] = value_null();
            continue;
        }
        if (vals[i].type == VAL_NULL && !col->rc.nullable && (strict || (I->ins->nrows <= 1 && !I->ignore && !I->ins->select))) {
            char msg[160];
            snprintf(msg, sizeof msg, "Column '%s' cannot be null", col->name);
            return diag_push_msg(x->diag, DIAG_ERROR, ER_BAD_NULL_ERROR, msg);
        }
        if ((rc = table_value_store(t, (uint32_t)c, &vals[i], &row[c], x->arena, x->diag, strict, I->rowno)) != 0)
            return rc;
    }
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (given[c])
            continue;
        value_t dv;
        if ((rc = col_default_value(x, &t->cols[c], &dv, x->arena, strict)) != 0)
            return rc;
        if (dv.type == VAL_NULL) {
            row[c] = dv;
            continue;
        }
        if ((rc = table_value_store(t, c, &dv, &row[c], x->arena, x->diag, false, I->rowno)) != 0)
            return rc;
    }
    int ai = cat_table_autoinc_col(t);
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
            if ((rc = table_value_store(t, (uint32_t)ai, &iv, v, x->arena, x->diag, true, I->rowno)) != 0)
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
    return 0;
}

/* ON DUPLICATE KEY UPDATE on the row whose key is I->dup.pk. */
static int ins_on_dup(xins_t *I, const value_t *newrow)
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
        oldc[c] = xvalue_copy(x->arena, &old[c]);
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
        if (as->value->kind == SQL_E_DEFAULT)
            rc = col_default_value(x, &t->cols[c], &v, x->arena, x->strict);
        else
            rc = xeval(&I->xe, as->value, ev, &v);
        if (rc)
            return rc;
        if ((rc = table_value_store(t, (uint32_t)c, &v, &nw[c], x->arena, x->diag, x->strict && !I->ignore, I->rowno)) != 0)
            return rc;
        ev[c] = table_value_out(&t->cols[c], &nw[c], x->arena);
    }
    I->xe.values_row = NULL;
    bool changed = false;
    for (uint32_t c = 0; c < t->ncols; c++)
        changed |= !same_stored(&oldc[c], &nw[c]);
    if (!changed)
        return 0;
    buf_t pk;
    buf_init(&pk);
    buf_append(&pk, I->dup.pk.data, I->dup.pk.len);
    rc = table_update(I->trx, t, &pk, oldc, nw, &x->ss->undo, x->diag, NULL);
    buf_free(&pk);
    if (rc)
        return rc;
    int ai = cat_table_autoinc_col(t);
    if (ai >= 0 && nw[ai].type != VAL_NULL) {
        table_autoinc_seen(t, nw[ai].type == VAL_UINT ? nw[ai].u : (uint64_t)MAX(nw[ai].i, 0));
        I->ai_touched = true;
        I->ai_last = nw[ai].type == VAL_UINT ? nw[ai].u : (uint64_t)MAX(nw[ai].i, 0);
    }
    I->affected += 2;
    I->dups++;
    return 0;
}

static int ins_row(xins_t *I, const value_t *vals, const bool *is_default)
{
    sql_exec_ctx_t *x = I->x;
    const cat_table_t *t = I->t;
    I->rowno++;
    I->records++;
    value_t *row = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    uint32_t warn_before = x->diag->warn_count;
    I->row_id_generated = false;
    int rc = ins_build(I, vals, is_default, row);
    if (rc)
        return rc;
    (void)warn_before;
    bool want_dup = I->replace || I->ignore || I->ins->non_dup;
    for (int tries = 0; tries < 64; tries++) {
        rc = table_insert(I->trx, t, row, &x->ss->undo, x->diag, want_dup ? &I->dup : NULL);
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
        buf_t pk;
        buf_init(&pk);
        buf_append(&pk, I->dup.pk.data, I->dup.pk.len);
        value_t *oldc = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        for (uint32_t c = 0; c < t->ncols; c++)
            oldc[c] = xvalue_copy(x->arena, &old[c]);
        rc = table_delete(I->trx, t, &pk, oldc, &x->ss->undo, x->diag);
        buf_free(&pk);
        if (rc)
            return rc;
        I->affected++;
        I->dups++;
    }
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
    return 0;
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
static int odku_bind(xquery_t *tq, xquery_t *q, sql_expr_t *e, const char *clause)
{
    if (!e)
        return 0;
    if (!has_values_fn(e))
        return xbind(q, e, clause, false);
    if (e->kind == SQL_E_FUNC && e->func.fn == SQL_FN_VALUES)
        return xbind(tq, e, clause, false);
    int rc = 0;
    for (uint32_t i = 0; i < e->nargs && !rc; i++)
        rc = odku_bind(tq, q, e->args[i], clause);
    if (!rc && e->kind == SQL_E_CASE)
        rc = odku_bind(tq, q, e->else_expr, clause);
    return rc;
}

/* The SELECT's column references an assignment reads (slot past the table's columns): one hidden item each. */
static void odku_extras(xins_t *I, const sql_expr_t *e, sql_select_item_t *items, uint32_t base)
{
    if (!e)
        return;
    if (e->kind == SQL_E_COLUMN && e->slot >= (int32_t)I->t->ncols) {
        for (uint32_t j = 0; j < I->nextra; j++)
            if (I->extra_slot[j] == e->slot)
                return;
        for (uint32_t i = 1; i < I->q.nsrc; i++) {
            const xsrc_t *src = &I->q.src[i];
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
static int odku_prepare(xins_t *I, const sql_select_t **selp)
{
    sql_exec_ctx_t *x = I->x;
    const sql_insert_t *ins = I->ins;
    const sql_select_t *sel = ins->select;
    int rc = 0;
    for (uint32_t i = 0; i < ins->non_dup && !rc; i++)
        rc = xbind(&I->q, ins->on_dup[i].col, "UPDATE", false);
    if (rc)
        return rc;
    bool grouped = sel && (sel->ngroup_by || sel->having);
    for (uint32_t i = 0; sel && i < sel->nitems && !grouped; i++)
        grouped = has_aggregate(sel->items[i].expr);
    xquery_t tq = I->q;
    if (sel && ins->non_dup && sel->from && !grouped) {
        if ((rc = xquery_from(&I->sq, x, sel->from)) != 0)
            return rc;
        I->have_sq = true;
        xsrc_t *src = arena_calloc(x->arena, sizeof(xsrc_t) * (I->sq.nsrc + 1));
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

static int exec_insert(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_insert_t *ins = st->insert;
    xins_t I;
    memset(&I, 0, sizeof I);
    I.x = x;
    I.ins = ins;
    I.replace = st->kind == SQL_STMT_REPLACE;
    I.ignore = ins->ignore;
    buf_init(&I.dup.pk);
    buf_init(&I.store);
    int rc = 0;
    I.t = open_write(x, &ins->table, &I.db);
    if (!I.t)
        return -x->diag->error_code;
    cat_table_t *t = I.t;
    xeval_init(&I.xe, x);
    I.xe.ev.div_zero_error = x->strict && !ins->ignore && !x->div_zero_off;
    x->div_zero_error = I.xe.ev.div_zero_error; /* and in its SELECT and subqueries (xeval_init), as MariaDB */
    single_def(&I.q, x, t, I.db);
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
    /* INSERT ... SELECT reads everything first (the same table may be both) */
    value_t **srows = NULL;
    uint64_t nsrows = 0;
    uint32_t sncols = 0;
    if (ins->select) {
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
    if ((rc = xtrx(x, &I.trx)) != 0)
        goto out;
    if (ins->select) {
        for (uint64_t r = 0; r < nsrows && !rc; r++) {
            I.extra_vals = srows[r] + sncols;
            rc = ins_row(&I, srows[r], NULL);
        }
    } else if (ins->nset) {
        value_t *vals = arena_alloc(x->arena, sizeof(value_t) * (ins->nset + 1));
        bool *defs = arena_calloc(x->arena, ins->nset + 1);
        for (uint32_t i = 0; i < ins->nset && !rc; i++) {
            if (ins->set[i].value->kind == SQL_E_DEFAULT)
                defs[i] = true;
            else
                rc = xeval(&I.xe, ins->set[i].value, NULL, &vals[i]);
        }
        if (!rc)
            rc = ins_row(&I, vals, defs);
    } else {
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
            for (uint32_t i = 0; i < row->n && !rc; i++) {
                if (row->vals[i]->kind == SQL_E_DEFAULT)
                    defs[i] = true;
                else
                    rc = xeval(&I.xe, row->vals[i], NULL, &vals[i]);
            }
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
    pend_ok(x, I.affected, info);
out:
    x->div_zero_error = false;
    if (I.have_sq)
        xquery_release(&I.sq);
    buf_free(&I.dup.pk);
    buf_free(&I.store);
    catalog_table_release(t);
    return rc;
}

/* ---------------------------------------------------------------- UPDATE / DELETE */

typedef struct xmatch {
    uint8_t *pk;
    size_t pklen;
    value_t *stored;          /* copies */
    value_t *out;
    uint8_t *key;             /* ORDER BY key */
    size_t klen;
    uint64_t rowno;           /* its position in the scan (warnings say "at row N" with it, as MariaDB) */
} xmatch_t;

typedef struct xdml {
    sql_exec_ctx_t *x;
    cat_table_t *t;
    xmatch_t *m;
    uint64_t n, cap;
    const sql_order_item_t *order;
    uint32_t norder;
    xeval_t xe;
    uint64_t limit;           /* stop collecting early when no ORDER BY */
    const xquery_t *q;
} xdml_t;

static int dml_collect(void *arg, const buf_t *pk, const value_t *stored, const value_t *out)
{
    xdml_t *D = arg;
    sql_exec_ctx_t *x = D->x;
    const cat_table_t *t = D->t;
    if (D->n == D->cap) {
        D->cap = D->cap ? D->cap * 2 : 16;
        D->m = mem_realloc(D->m, sizeof(xmatch_t) * D->cap);
    }
    xmatch_t *m = &D->m[D->n++];
    memset(m, 0, sizeof *m);
    m->rowno = D->q ? D->q->rows_read : D->n;
    m->pk = arena_alloc(x->arena, pk->len + 1);
    memcpy(m->pk, pk->data, pk->len);
    m->pklen = pk->len;
    m->stored = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    m->out = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
    for (uint32_t c = 0; c < t->ncols; c++) {
        m->stored[c] = xvalue_copy(x->arena, &stored[c]);
        m->out[c] = xvalue_copy(x->arena, &out[c]);
    }
    if (D->norder) {
        buf_t k;
        buf_init(&k);
        for (uint32_t i = 0; i < D->norder; i++) {
            value_t v;
            int rc = xeval(&D->xe, D->order[i].expr, m->out, &v);
            if (rc) {
                buf_free(&k);
                return rc;
            }
            xkey_append(&k, &v, D->order[i].desc);
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
    const xmatch_t *x = a, *y = b;
    size_t n = MIN(x->klen, y->klen);
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->klen < y->klen ? -1 : x->klen > y->klen);
}

/* Binds and collects the rows a single-table UPDATE / DELETE touches, in ORDER BY order, LIMIT applied. */
/* The FROM of a single-table UPDATE / DELETE: the target opened to be scanned and bound, which is the write's
 * own access and not a read of the transaction tracker's. */
static int xquery_from_target(xquery_t *q, sql_exec_ctx_t *x, const sql_from_t *from)
{
    bool did_read = x->ss->did_read;
    int rc = xquery_from(q, x, from);
    x->ss->did_read = did_read;
    return rc;
}

static int dml_prepare(sql_exec_ctx_t *x, const sql_stmt_t *st, xdml_t *D, xquery_t *q, const sql_from_t *from,
                       sql_expr_t *where, const sql_order_item_t *order, uint32_t norder, const sql_limit_t *limit)
{
    memset(D, 0, sizeof *D);
    D->x = x;
    D->limit = UINT64_MAX;
    int rc;
    if (from->kind != SQL_FROM_TABLE)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "multi-table UPDATE/DELETE");
    const char *db;
    cat_table_t *t = open_write(x, &from->table, &db);
    if (!t)
        return -x->diag->error_code;
    catalog_table_release(t);
    if ((rc = xquery_from_target(q, x, from)) != 0)
        return rc;
    q->locking = true;
    D->t = q->src[0].t;
    if (!xplan_reuse(x, st, q)) { /* a prepared statement's plan holds the binding and the access path */
        bool plan = xplan_begin(x, st, q);
        if ((rc = xbind(q, where, "WHERE", false)) != 0)
            return rc;
        for (uint32_t i = 0; i < norder; i++)
            if ((rc = xbind(q, order[i].expr, "ORDER BY", false)) != 0)
                return rc;
        if (plan)
            xplan_end(x, q, where);
    }
    D->order = order;
    D->norder = norder;
    xeval_init(&D->xe, x);
    if (limit->count) {
        value_t v;
        if ((rc = xeval(&D->xe, limit->count, NULL, &v)) != 0)
            return rc;
        D->limit = v.type == VAL_NULL ? 0 : value_to_uint(&v, NULL);
    }
    if (D->limit == 0)
        return 0;
    D->q = q;
    if ((rc = xquery_scan_dml(q, where, dml_collect, D, -1, false)) != 0)
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

typedef struct xmrow {
    int src;
    uint8_t *pk;
    size_t pklen;
    value_t *combined;        /* the joined row it matched (UPDATE evaluates its SET list on it) */
} xmrow_t;

typedef struct xmulti {
    sql_exec_ctx_t *x;
    xquery_t *q;
    bool *is_target;
    xmrow_t *rows;
    uint64_t n, cap;
} xmulti_t;

static int multi_collect(void *arg, const value_t *row)
{
    xmulti_t *M = arg;
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
            M->rows = mem_realloc(M->rows, sizeof(xmrow_t) * M->cap);
        }
        xmrow_t *r = &M->rows[M->n++];
        r->src = (int)si;
        r->pklen = M->q->cur_pk[si].len;
        r->pk = arena_alloc(x->arena, r->pklen);
        memcpy(r->pk, M->q->cur_pk[si].data, r->pklen);
        r->combined = arena_alloc(x->arena, sizeof(value_t) * (M->q->width + 1));
        for (uint32_t c = 0; c < M->q->width; c++)
            r->combined[c] = xvalue_copy(x->arena, &row[c]);
    }
    return 0;
}

static int exec_multi_dml(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    bool upd = st->kind == SQL_STMT_UPDATE;
    const sql_from_t *from = upd ? st->update->tables : st->del->from;
    sql_expr_t *where = upd ? st->update->where : st->del->where;
    xquery_t q;
    xmulti_t M = {.x = x, .q = &q};
    /* a strict UPDATE fails on x/0 anywhere in it (WHERE, SET, subqueries); MariaDB's DELETE only warns */
    x->div_zero_error = upd && x->strict && !st->update->ignore && !x->div_zero_off;
    int rc = xquery_from(&q, x, from);
    if (rc)
        goto out;
    q.cur_pk = arena_calloc(x->arena, sizeof(buf_t) * q.nsrc);
    for (uint32_t i = 0; i < q.nsrc; i++)
        buf_init(&q.cur_pk[i]);
    M.is_target = arena_calloc(x->arena, q.nsrc + 1);
    for (uint32_t k = 0; k < q.nsrc; k++)
        if (q.src[k].on && (rc = xbind(&q, (sql_expr_t *)q.src[k].on, "ON", false)) != 0)
            goto out;
    if ((rc = xbind(&q, where, "WHERE", false)) != 0)
        goto out;
    if (upd) {
        for (uint32_t i = 0; i < st->update->nset && !rc; i++) {
            if ((rc = xbind(&q, st->update->set[i].col, "SET", false)) == 0)
                rc = xbind(&q, st->update->set[i].value, "SET", false);
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
    if ((rc = xquery_run(&q, where, multi_collect, &M, -1, false)) != 0)
        goto out;
    engine_trx_t *trx;
    if ((rc = xtrx(x, &trx)) != 0)
        goto out;
    xeval_t xe;
    xeval_init(&xe, x);
    xe.ev.div_zero_error = x->div_zero_error;
    uint64_t matched = 0, changed = 0;
    buf_t store;
    buf_init(&store);
    for (uint64_t i = 0; i < M.n && !rc; i++) {
        xmrow_t *r = &M.rows[i];
        const xsrc_t *src = &q.src[r->src];
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
            old[c] = xvalue_copy(x->arena, &cur[c]);
        buf_t pk = {r->pk, r->pklen, r->pklen};
        matched++;
        if (!upd) {
            rc = table_delete(trx, t, &pk, old, &x->ss->undo, x->diag);
            x->ss->wrote = true;
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
            if (st->update->set[a].value->kind == SQL_E_DEFAULT)
                rc = col_default_value(x, &t->cols[c], &v, x->arena, x->strict && !st->update->ignore);
            else
                rc = xeval(&xe, st->update->set[a].value, r->combined, &v);
            if (!rc)
                rc = table_value_store(t, c, &v, &nw[c], x->arena, x->diag, x->strict && !st->update->ignore, matched);
            if (!rc)
                r->combined[slot] = table_value_out(&t->cols[c], &nw[c], x->arena);
        }
        if (rc)
            break;
        bool ch = false;
        for (uint32_t c = 0; c < t->ncols; c++)
            ch |= !same_stored(&old[c], &nw[c]);
        if (!ch)
            continue;
        rc = table_update(trx, t, &pk, old, nw, &x->ss->undo, x->diag, NULL);
        x->ss->wrote = true;
        changed++;
    }
    buf_free(&store);
    if (rc)
        goto out;
    x->row_count = (int64_t)changed;
    if (upd)
        pend_ok(x, changed, arena_printf(x->arena, "Rows matched: %llu  Changed: %llu  Warnings: %u",
                                         (unsigned long long)matched, (unsigned long long)changed, x->diag->warn_count));
    else
        pend_ok(x, changed, NULL);
out:
    x->div_zero_error = false;
    if (q.cur_pk)
        for (uint32_t i = 0; i < q.nsrc; i++)
            buf_free(&q.cur_pk[i]);
    mem_free(M.rows);
    xquery_release(&q);
    return rc;
}

static int exec_update(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_update_t *up = st->update;
    if (up->multi)
        return exec_multi_dml(x, st);
    xdml_t D;
    xquery_t q;
    memset(&q, 0, sizeof q);
    int rc;
    /* bind the SET list against the table first (1054 before anything runs) */
    if ((rc = xquery_from_target(&q, x, up->tables)) != 0)
        goto out0;
    for (uint32_t i = 0; i < up->nset && !xplan_valid(x, st, &q); i++) {
        if ((rc = xbind(&q, up->set[i].col, "SET", false)) != 0 ||
            (rc = xbind(&q, up->set[i].value, "SET", false)) != 0)
            goto out0;
    }
    xquery_release(&q);
    bool strict = x->strict && !up->ignore;
    x->div_zero_error = strict && !x->div_zero_off; /* in WHERE, SET and their subqueries (xeval_init) */
    if ((rc = dml_prepare(x, st, &D, &q, up->tables, up->where, up->order_by, up->norder_by, &up->limit)) != 0)
        goto out;
    cat_table_t *t = D.t;
    engine_trx_t *trx;
    if ((rc = xtrx(x, &trx)) != 0)
        goto out;
    D.xe.ev.div_zero_error = x->div_zero_error;
    uint64_t changed = 0;
    int ai = cat_table_autoinc_col(t);
    bool *assigned = arena_calloc(x->arena, t->ncols + 1);
    for (uint32_t i = 0; i < up->nset; i++)
        assigned[up->set[i].col->slot] = true;
    for (uint64_t r = 0; r < D.n && !rc; r++) {
        xmatch_t *m = &D.m[r];
        value_t *nw = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        value_t *ev = arena_alloc(x->arena, sizeof(value_t) * (t->ncols + 1));
        memcpy(nw, m->stored, sizeof(value_t) * t->ncols);
        memcpy(ev, m->out, sizeof(value_t) * t->ncols);
        for (uint32_t i = 0; i < up->nset && !rc; i++) {
            int c = up->set[i].col->slot;
            value_t v;
            if (up->set[i].value->kind == SQL_E_DEFAULT)
                rc = col_default_value(x, &t->cols[c], &v, x->arena, strict);
            else
                rc = xeval(&D.xe, up->set[i].value, ev, &v);
            if (rc)
                break;
            if (v.type == VAL_NULL && !t->cols[c].rc.nullable && !strict) {
                rc = table_value_store(t, (uint32_t)c, &v, &nw[c], x->arena, x->diag, false, m->rowno);
            } else {
                rc = table_value_store(t, (uint32_t)c, &v, &nw[c], x->arena, x->diag, strict, m->rowno);
            }
            if (rc)
                break;
            ev[c] = table_value_out(&t->cols[c], &nw[c], x->arena);
        }
        if (rc)
            break;
        bool ch = false;
        for (uint32_t c = 0; c < t->ncols; c++)
            ch |= !same_stored(&m->stored[c], &nw[c]);
        if (!ch)
            continue;
        for (uint32_t c = 0; c < t->ncols; c++)
            if (t->cols[c].on_update_now && !assigned[c]) {
                value_t now;
                table_value_default(&(cat_column_t){.def = CAT_DEF_NOW, .default_text = arena_printf(x->arena, "%u",
                                    t->cols[c].rc.scale)}, &now, x->arena, x->diag, false);
                table_value_store(t, c, &now, &nw[c], x->arena, x->diag, false, r + 1);
            }
        buf_t pk = {m->pk, m->pklen, m->pklen};
        /* UPDATE IGNORE: a row whose new key is a duplicate stays as it is (MariaDB adds no warning) */
        table_dup_t dup;
        buf_init(&dup.pk);
        rc = table_update(trx, t, &pk, m->stored, nw, &x->ss->undo, x->diag, up->ignore ? &dup : NULL);
        buf_free(&dup.pk);
        x->ss->wrote = true;
        if (rc == TABLE_DUP) {
            rc = 0;
            continue;
        }
        if (rc)
            break;
        if (ai >= 0 && assigned[ai] && nw[ai].type != VAL_NULL)
            table_autoinc_seen(t, nw[ai].type == VAL_UINT ? nw[ai].u : (uint64_t)MAX(nw[ai].i, 0));
        changed++;
    }
    if (rc)
        goto out;
    x->row_count = (int64_t)changed;
    pend_ok(x, changed, arena_printf(x->arena, "Rows matched: %llu  Changed: %llu  Warnings: %u", (unsigned long long)D.n,
                                     (unsigned long long)changed, x->diag->warn_count));
out:
    x->div_zero_error = false;
    mem_free(D.m);
out0:
    xquery_release(&q);
    return rc;
}

static int exec_delete(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_delete_t *del = st->del;
    if (del->multi)
        return exec_multi_dml(x, st);
    xdml_t D;
    xquery_t q;
    memset(&q, 0, sizeof q);
    int rc = dml_prepare(x, st, &D, &q, del->from, del->where, del->order_by, del->norder_by, &del->limit);
    if (rc)
        goto out;
    engine_trx_t *trx;
    if ((rc = xtrx(x, &trx)) != 0)
        goto out;
    for (uint64_t r = 0; r < D.n && !rc; r++) {
        buf_t pk = {D.m[r].pk, D.m[r].pklen, D.m[r].pklen};
        rc = table_delete(trx, D.t, &pk, D.m[r].stored, &x->ss->undo, x->diag);
        x->ss->wrote = true;
    }
    if (rc)
        goto out;
    x->row_count = (int64_t)D.n;
    pend_ok(x, D.n, NULL);
out:
    mem_free(D.m);
    xquery_release(&q);
    return rc;
}

/* ---------------------------------------------------------------- CREATE TABLE */

static const char *engine_name(sql_exec_ctx_t *x, const char *name, const char *table, int *rc)
{
    *rc = 0;
    if (!name || strcasecmp(name, "innodb") == 0)
        return "InnoDB";
    static const char *const mapped[] = {"ndb", "ndbcluster", "myisam", "aria", "memory", "heap", "csv", "archive"};
    for (size_t i = 0; i < ARRAY_LEN(mapped); i++)
        if (strcasecmp(name, mapped[i]) == 0) {
            diag_note(x->diag, ER_WARN_USING_OTHER_HANDLER, "InnoDB", table);
            return "InnoDB";
        }
    *rc = diag_error(x->diag, ER_UNKNOWN_STORAGE_ENGINE, name);
    return NULL;
}

/* ---- DEFAULT (expr) (CAT_DEF_EXPR): kept as text, evaluated for each row, as MariaDB does;
 * folding it once at CREATE TABLE gave every row the same uuid() / the creation day's curdate(). */

static int arith_prec(sql_op_t op)
{
    switch (op) {
    case SQL_OP_ADD: case SQL_OP_SUB: return 1;
    case SQL_OP_MUL: case SQL_OP_DIV: case SQL_OP_IDIV: case SQL_OP_MOD: return 2;
    default: return 0;
    }
}

/* 1: calls a function or computes (+ - * / DIV MOD) and reads nothing but constants (no column, variable,
 * parameter or subquery); 0: a literal (folded at CREATE as before); -1: something else (left to the folding
 * path, which reports it) */
static int default_expr_kind(const sql_expr_t *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case SQL_E_COLUMN: case SQL_E_STAR: case SQL_E_SYSVAR: case SQL_E_USERVAR: case SQL_E_ASSIGN: case SQL_E_PARAM:
    case SQL_E_SUBQUERY: case SQL_E_EXISTS: case SQL_E_DEFAULT: case SQL_E_QUANTIFIED:
        return -1;
    default:
        break;
    }
    if (e->kind == SQL_E_IN && e->sub)
        return -1;
    int k = (e->kind == SQL_E_FUNC && !e->func.distinct && !e->func.star && !e->agg_order) ||
            (e->kind == SQL_E_BINARY && arith_prec(e->op)) ? 1 : 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        int a = default_expr_kind(e->args[i]);
        if (a < 0)
            return -1;
        k |= a;
    }
    if (e->kind == SQL_E_CASE && e->else_expr) {
        int a = default_expr_kind(e->else_expr);
        if (a < 0)
            return -1;
        k |= a;
    }
    return k;
}

/* MariaDB's printed form of a DEFAULT expression (Item::print): functions in lower case under their canonical
 * names, arithmetic with spaces and only the parentheses precedence needs, the whole in parentheses unless it is a
 * function call or a literal.  What it does not know (comparisons, CASE, CAST ...) is kept as written, in
 * parentheses. */
static bool default_expr_printable(const sql_expr_t *e)
{
    switch (e->kind) {
    case SQL_E_LITERAL:
        return e->lit.type != VAL_NULL;
    case SQL_E_UNARY:
        return e->op == SQL_OP_NEG && default_expr_printable(e->args[0]);
    case SQL_E_BINARY:
        return arith_prec(e->op) && default_expr_printable(e->args[0]) && default_expr_printable(e->args[1]);
    case SQL_E_FUNC:
        for (uint32_t i = 0; i < e->nargs; i++)
            if (!default_expr_printable(e->args[i]))
                return false;
        return e->func.name != NULL;
    default:
        return false;
    }
}

static void default_expr_print(buf_t *b, const sql_expr_t *e, int parent, bool right)
{
    switch (e->kind) {
    case SQL_E_LITERAL:
        if (e->lit.type == VAL_STRING) {
            buf_append_byte(b, '\'');
            for (size_t i = 0; i < e->lit.s.len; i++) {
                char ch = e->lit.s.ptr[i];
                if (ch == '\'' || ch == '\\')
                    buf_append_byte(b, '\\');
                buf_append_byte(b, (uint8_t)ch);
            }
            buf_append_byte(b, '\'');
        } else {
            buf_append(b, e->src, e->src_len);
        }
        return;
    case SQL_E_UNARY:
        buf_append_byte(b, '-');
        default_expr_print(b, e->args[0], 3, false);
        return;
    case SQL_E_BINARY: {
        static const char *const names[] = {[SQL_OP_ADD] = "+", [SQL_OP_SUB] = "-", [SQL_OP_MUL] = "*",
                                            [SQL_OP_DIV] = "/", [SQL_OP_IDIV] = "DIV", [SQL_OP_MOD] = "MOD"};
        int pr = arith_prec(e->op);
        bool paren = pr < parent || (pr == parent && right);
        if (paren)
            buf_append_byte(b, '(');
        default_expr_print(b, e->args[0], pr, false);
        buf_printf(b, " %s ", names[e->op]);
        default_expr_print(b, e->args[1], pr, true);
        if (paren)
            buf_append_byte(b, ')');
        return;
    }
    case SQL_E_FUNC: {
        static const char *const canon[][2] = {{"NOW", "current_timestamp"}, {"LOCALTIME", "current_timestamp"},
                                               {"LOCALTIMESTAMP", "current_timestamp"}, {"CURRENT_DATE", "curdate"},
                                               {"CURRENT_TIME", "curtime"}, {"UPPER", "ucase"}, {"LOWER", "lcase"}};
        const char *nm = NULL;
        for (size_t k = 0; k < ARRAY_LEN(canon); k++)
            if (strcmp(e->func.name, canon[k][0]) == 0)
                nm = canon[k][1];
        if (nm)
            buf_printf(b, "%s", nm);
        else
            for (const char *c = e->func.name; *c; c++)
                buf_append_byte(b, (uint8_t)tolower((unsigned char)*c));
        buf_append_byte(b, '(');
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (i)
                buf_append_byte(b, ',');
            default_expr_print(b, e->args[i], 0, false);
        }
        buf_append_byte(b, ')');
        return;
    }
    default:
        buf_printf(b, "(%.*s)", (int)e->src_len, e->src ? e->src : "");
        return;
    }
}

static void default_expr_text(buf_t *b, const sql_expr_t *e)
{
    if (!default_expr_printable(e)) {
        buf_printf(b, "(%.*s)", (int)e->src_len, e->src ? e->src : "");
        return;
    }
    bool bare = e->kind == SQL_E_FUNC || e->kind == SQL_E_LITERAL;
    if (!bare)
        buf_append_byte(b, '(');
    default_expr_print(b, e, 0, false);
    if (!bare)
        buf_append_byte(b, ')');
}

/* The default of column c as a value (then stored as any given value is), for the row being written */
static int col_default_value(sql_exec_ctx_t *x, const cat_column_t *c, value_t *out, arena_t *a, bool strict)
{
    if (c->def != CAT_DEF_EXPR)
        return table_value_default(c, out, a, x->diag, strict);
    sql_expr_t *e;
    int rc = sql_parse_expr(a, c->default_text, strlen(c->default_text), &e, x->diag);
    if (rc)
        return rc;
    sql_exec_ctx_t x2 = *x;
    x2.arena = a;
    xeval_t xe;
    xeval_init(&xe, &x2);
    return xeval(&xe, e, NULL, out);
}

static int default_text(sql_exec_ctx_t *x, const sql_expr_t *e, cat_column_t *c)
{
    if (default_expr_kind(e) == 1) {
        /* NOW() and its synonyms, alone: DEFAULT CURRENT_TIMESTAMP (MariaDB shows current_timestamp()) */
        if (e->kind == SQL_E_FUNC && (sql_fn_flags(e->func.fn) & SQL_FNF_NOW) &&
            (sqlt_t)c->rc.type != SQLT_DATE && sqlt_is_temporal((sqlt_t)c->rc.type) &&
            (sqlt_t)c->rc.type != SQLT_TIME &&
            (e->nargs == 0 || (e->args[0]->kind == SQL_E_LITERAL && value_is_numeric(&e->args[0]->lit)))) {
            int64_t fsp = e->nargs ? value_to_int(&e->args[0]->lit, NULL) : c->rc.scale;
            c->def = CAT_DEF_NOW;
            c->default_text = arena_printf(x->arena, "%d", (int)(fsp < 0 ? 0 : fsp > 6 ? 6 : fsp));
            return 0;
        }
        buf_t b;
        buf_init(&b);
        default_expr_text(&b, e);
        c->def = CAT_DEF_EXPR;
        c->default_text = arena_strndup(x->arena, (const char *)b.data, b.len);
        buf_free(&b);
        return 0;
    }
    xeval_t xe;
    xeval_init(&xe, x);
    value_t v;
    int rc = xeval(&xe, e, NULL, &v);
    if (rc)
        return rc;
    if (v.type == VAL_NULL) {
        if (!c->rc.nullable)
            return diag_error(x->diag, ER_INVALID_DEFAULT, c->name);
        c->def = CAT_DEF_NULL;
        return 0;
    }
    size_t n;
    const char *s = value_to_text(x->arena, &v, &n);
    c->def = CAT_DEF_VALUE;
    c->default_text = arena_strndup(x->arena, s, n);
    /* validate against the column's type */
    cat_table_t tmp = {.db = "", .name = "", .cols = c, .ncols = 1};
    value_t out;
    diag_t scratch;
    diag_init(&scratch, 4);
    rc = table_value_store(&tmp, 0, &v, &out, x->arena, &scratch, true, 1);
    diag_free(&scratch);
    if (rc) {
        /* MariaDB shows the conversion's warning ("... at row 0") before the 1067 */
        table_value_store(&tmp, 0, &v, &out, x->arena, x->diag, false, 0);
        return diag_error(x->diag, ER_INVALID_DEFAULT, c->name);
    }
    if (!sqlt_is_string((sqlt_t)c->rc.type) && c->rc.type != SQLT_ENUM && c->rc.type != SQLT_SET) {
        const char *t2 = value_to_text(x->arena, &(value_t){0}, &n);
        (void)t2;
        value_t shown = table_value_out(c, &out, x->arena);
        s = value_to_text(x->arena, &shown, &n);
        c->default_text = arena_strndup(x->arena, s, n);
    }
    return 0;
}

static int add_index(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_index_def_t *d, const char *forced_name)
{
    if (d->kind == SQL_INDEX_FOREIGN)
        return 0; /* foreign keys are parsed and not enforced */
    if (d->kind == SQL_INDEX_FULLTEXT || d->kind == SQL_INDEX_SPATIAL)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, d->kind == SQL_INDEX_FULLTEXT ? "FULLTEXT indexes" : "SPATIAL indexes");
    if (t->nidx == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        cat_index_t *n = arena_calloc(x->arena, sizeof(cat_index_t) * *cap);
        if (t->nidx)
            memcpy(n, t->idx, sizeof(cat_index_t) * t->nidx);
        t->idx = n;
    }
    cat_index_t *ix = &t->idx[t->nidx];
    memset(ix, 0, sizeof *ix);
    ix->kind = d->kind == SQL_INDEX_PRIMARY ? CAT_IDX_PRIMARY : d->kind == SQL_INDEX_UNIQUE ? CAT_IDX_UNIQUE : CAT_IDX_KEY;
    ix->comment = d->comment ? d->comment : "";
    ix->ncols = d->ncols;
    ix->cols = arena_calloc(x->arena, sizeof(cat_index_col_t) * (d->ncols + 1));
    uint32_t keybytes = 0;
    for (uint32_t k = 0; k < d->ncols; k++) {
        int c = cat_table_col(t, d->cols[k].name);
        if (c < 0)
            return diag_error(x->diag, ER_KEY_COLUMN_DOES_NOT_EXIST, d->cols[k].name);
        cat_column_t *col = &t->cols[c];
        sqlt_t ty = (sqlt_t)col->rc.type;
        ix->cols[k].col = (uint32_t)c;
        ix->cols[k].desc = d->cols[k].desc;
        if (d->cols[k].prefix_len > 0) {
            if (!sqlt_is_string(ty))
                return diag_error(x->diag, ER_WRONG_SUB_KEY);
            ix->cols[k].prefix = (uint32_t)d->cols[k].prefix_len;
        } else if (ty >= SQLT_TINYTEXT && ty <= SQLT_LONGBLOB) {
            return diag_error(x->diag, ER_BLOB_KEY_WITHOUT_LENGTH, col->name);
        }
        uint32_t chars = ix->cols[k].prefix ? ix->cols[k].prefix : col->rc.len;
        keybytes += sqlt_is_string(ty) ? chars * (col->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(col->rc.coll)) : 8;
        if (ix->kind == CAT_IDX_PRIMARY) {
            col->rc.nullable = false;
            if (col->def == CAT_DEF_NULL)
                col->def = CAT_DEF_NONE;
        }
    }
    if (keybytes > ENGINE_MAX_KEY)
        return diag_error(x->diag, ER_TOO_LONG_KEY, ENGINE_MAX_KEY);
    if (ix->kind == CAT_IDX_PRIMARY) {
        ix->name = "PRIMARY";
    } else if (forced_name || d->name) {
        ix->name = forced_name ? forced_name : d->name;
    } else {
        /* MySQL names it after its first column, adding _2, _3 ... when taken */
        const char *base = t->cols[ix->cols[0].col].name;
        const char *name = base;
        for (int i = 2; cat_table_index(t, name) >= 0; i++)
            name = arena_printf(x->arena, "%s_%d", base, i);
        ix->name = name;
    }
    if (ix->kind == CAT_IDX_PRIMARY && strcasecmp(ix->name, "PRIMARY") != 0)
        ix->name = "PRIMARY";
    else if (ix->kind != CAT_IDX_PRIMARY && strcasecmp(ix->name, "PRIMARY") == 0)
        return diag_error(x->diag, ER_WRONG_NAME_FOR_INDEX, ix->name);
    if (cat_table_index(t, ix->name) >= 0)
        return ix->kind == CAT_IDX_PRIMARY ? diag_error(x->diag, ER_MULTIPLE_PRI_KEY)
                                           : diag_error(x->diag, ER_DUP_KEYNAME, ix->name);
    t->nidx++;
    return 0;
}

/* A column definition from its SQL (the default is filled in separately: col_default). */
/* 1091 in MariaDB 10.11's words ("Can't DROP INDEX `x`; check that it exists"); errors.def still has the older
 * MySQL text, so the message is formatted here (TODO(lead): update ER_CANT_DROP_FIELD_OR_KEY's text). */
static int cant_drop(sql_exec_ctx_t *x, bool note, const char *what, const char *name)
{
    const char *msg = arena_printf(x->arena, "Can't DROP %s `%s`; check that it exists", what, name);
    return diag_push_msg(x->diag, note ? DIAG_NOTE : DIAG_ERROR, ER_CANT_DROP_FIELD_OR_KEY, msg);
}

static int col_from_def(sql_exec_ctx_t *x, const cat_table_t *t, const sql_column_def_t *cd, cat_column_t *c)
{
    const sql_type_t *ty = &cd->type;
    memset(c, 0, sizeof *c);
    c->name = cd->name;
    c->rc.type = (uint8_t)(ty->kind + 1); /* sql_type_kind_t and sqlt_t list the types in the same order */
    c->rc.is_unsigned = ty->is_unsigned || ty->is_serial;
    c->zerofill = ty->zerofill;
    c->invisible = cd->invisible;
    if (ty->zerofill)
        c->rc.is_unsigned = true;
    sqlt_t st = (sqlt_t)c->rc.type;
    if (sqlt_is_int(st))
        c->display_width = ty->len > 0 ? (uint32_t)ty->len : 0;
    else
        c->rc.len = ty->len > 0 ? (uint32_t)ty->len : 0;
    if (st == SQLT_DECIMAL && !c->rc.len)
        c->rc.len = 10;
    if ((st == SQLT_CHAR || st == SQLT_BINARY) && !c->rc.len && ty->len < 0)
        c->rc.len = 1;
    c->rc.scale = ty->scale > 0 ? (uint8_t)ty->scale : 0;
    if (sqlt_is_string(st) || st == SQLT_ENUM || st == SQLT_SET) {
        c->rc.coll = ty->coll >= 0 ? (uint16_t)ty->coll : t->coll;
        c->explicit_coll = ty->coll >= 0;
    } else {
        c->rc.coll = COLL_BINARY;
    }
    if (st == SQLT_VARCHAR || st == SQLT_VARBINARY) {
        /* a row holds at most 65535 bytes, of which MariaDB leaves a VARCHAR 65532 (length bytes and NULL bit):
         * longer is 1074 in strict mode, else a TEXT / BLOB with note 1246 */
        uint32_t mb = st == SQLT_VARBINARY ? 1 : value_coll_mbmaxlen(c->rc.coll);
        uint64_t bytes = (uint64_t)c->rc.len * (mb ? mb : 1);
        if (bytes > 65532) {
            if (x->strict)
                return diag_error(x->diag, ER_TOO_BIG_FIELDLENGTH, c->name, (unsigned long)(65532 / (mb ? mb : 1)));
            bool bin = st == SQLT_VARBINARY;
            diag_note(x->diag, ER_AUTO_CONVERT, c->name, bin ? "VARBINARY" : "VARCHAR", bin ? "BLOB" : "TEXT");
            st = bytes <= 65535      ? (bin ? SQLT_BLOB : SQLT_TEXT)
                 : bytes <= 16777215 ? (bin ? SQLT_MEDIUMBLOB : SQLT_MEDIUMTEXT)
                                     : (bin ? SQLT_LONGBLOB : SQLT_LONGTEXT); /* the smallest that holds it */
            c->rc.type = (uint8_t)st;
            c->rc.len = 0;
        }
    }
    c->rc.nullable = cd->nullable != SQL_NULL_NOT_NULL && !ty->is_serial;
    c->auto_increment = cd->auto_increment || ty->is_serial;
    c->on_update_now = cd->on_update_now;
    c->comment = cd->comment ? cd->comment : "";
    c->nelems = ty->nelems;
    c->elems = (const char **)ty->elems;
    if (c->auto_increment && !sqlt_is_int(st) && st != SQLT_FLOAT && st != SQLT_DOUBLE)
        return diag_push_msg(x->diag, DIAG_ERROR, 1063, arena_printf(x->arena, "Incorrect column specifier for column '%s'", c->name));
    if (cd->primary_key)
        c->rc.nullable = false;
    return 0;
}

static int col_default(sql_exec_ctx_t *x, const sql_column_def_t *cd, cat_column_t *c)
{
    /* MariaDB: ON UPDATE CURRENT_TIMESTAMP(n) is at the column's precision; an n below it is an error */
    if (cd->on_update_now && cd->on_update_fsp >= 0 && cd->on_update_fsp < c->rc.scale)
        return diag_push_msg(x->diag, DIAG_ERROR, 1294,
                             arena_printf(x->arena, "Invalid ON UPDATE clause for '%s' column", c->name));
    if (cd->default_now) {
        c->def = CAT_DEF_NOW;
        /* the precision of NOW(n) (n, else the column's; over 6 is 6, as MariaDB takes it in a DEFAULT) rides in
         * default_text as one digit */
        int fsp = cd->default_now_fsp < 0 ? c->rc.scale : cd->default_now_fsp > 6 ? 6 : cd->default_now_fsp;
        c->default_text = arena_printf(x->arena, "%d", fsp);
    } else if (cd->default_expr)
        return default_text(x, cd->default_expr, c);
    else if (c->rc.nullable)
        c->def = CAT_DEF_NULL;
    return 0;
}

static int build_table_def(sql_exec_ctx_t *x, const sql_create_table_t *ct, const char *db, cat_table_t **out)
{
    cat_table_t *t = arena_calloc(x->arena, sizeof *t);
    t->db = db;
    t->name = ct->table.name;
    int rc = 0;
    const char *eng = engine_name(x, ct->opts.engine, ct->table.name, &rc);
    if (rc)
        return rc;
    t->engine = eng;
    t->coll = ct->opts.coll >= 0 ? (uint16_t)ct->opts.coll : catalog_db_coll(g_cat, db);
    t->comment = ct->opts.comment ? ct->opts.comment : "";
    t->auto_inc_start = (ct->opts.set & SQL_TOPT_AUTO_INCREMENT) && ct->opts.auto_increment ? ct->opts.auto_increment : 1;
    if (ct->opts.tablespace) {
        uint32_t sid;
        if (engine_tablespace_lookup(g_eng, ct->opts.tablespace, &sid) != 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "Tablespace '%s' doesn't exist", ct->opts.tablespace);
            return diag_push_msg(x->diag, DIAG_ERROR, ER_TABLESPACE_MISSING, msg);
        }
        t->space_id = sid;
        t->tablespace = ct->opts.tablespace;
    }
    t->ncols = ct->ncols;
    t->cols = arena_calloc(x->arena, sizeof(cat_column_t) * (ct->ncols + 1));
    for (uint32_t i = 0; i < ct->ncols; i++)
        if ((rc = col_from_def(x, t, &ct->cols[i], &t->cols[i])) != 0)
            return rc;
    /* defaults once nullability is final (PRIMARY KEY makes columns NOT NULL) */
    for (uint32_t i = 0; i < ct->ncols; i++) {
        const sql_column_def_t *cd = &ct->cols[i];
        cat_column_t *c = &t->cols[i];
        for (uint32_t k = 0; k < ct->nindexes; k++)
            if (ct->indexes[k].kind == SQL_INDEX_PRIMARY)
                for (uint32_t j = 0; j < ct->indexes[k].ncols; j++)
                    if (strcasecmp(ct->indexes[k].cols[j].name, c->name) == 0)
                        c->rc.nullable = false;
        if ((rc = col_default(x, cd, c)) != 0)
            return rc;
    }
    uint32_t cap = 0;
    /* the primary key first: column-level, then table-level */
    for (uint32_t i = 0; i < ct->ncols; i++) {
        if (!ct->cols[i].primary_key)
            continue;
        sql_index_col_t ic = {.name = ct->cols[i].name, .prefix_len = -1};
        sql_index_def_t d = {.kind = SQL_INDEX_PRIMARY, .cols = &ic, .ncols = 1};
        if ((rc = add_index(x, t, &cap, &d, NULL)) != 0)
            return rc;
    }
    for (uint32_t k = 0; k < ct->nindexes; k++)
        if (ct->indexes[k].kind == SQL_INDEX_PRIMARY && (rc = add_index(x, t, &cap, &ct->indexes[k], NULL)) != 0)
            return rc;
    for (uint32_t i = 0; i < ct->ncols; i++) {
        if (!ct->cols[i].unique_key && !ct->cols[i].type.is_serial)
            continue;
        sql_index_col_t ic = {.name = ct->cols[i].name, .prefix_len = -1};
        sql_index_def_t d = {.kind = SQL_INDEX_UNIQUE, .cols = &ic, .ncols = 1};
        if ((rc = add_index(x, t, &cap, &d, NULL)) != 0)
            return rc;
    }
    for (uint32_t k = 0; k < ct->nindexes; k++)
        if (ct->indexes[k].kind != SQL_INDEX_PRIMARY && (rc = add_index(x, t, &cap, &ct->indexes[k], NULL)) != 0)
            return rc;
    t->has_pk = t->nidx && t->idx[0].kind == CAT_IDX_PRIMARY;
    *out = t;
    return 0;
}

/* CREATE TABLE ... SELECT of a plain column keeps that column's DEFAULT and COMMENT, as MariaDB does; an
 * AUTO_INCREMENT source column becomes NOT NULL DEFAULT 0. */
static void ctas_source_default(sql_exec_ctx_t *x, const res_col_t *r, cat_column_t *c)
{
    if (!r->org_name || !r->org_name[0] || !r->org_table || !r->org_table[0] || !r->schema || !r->schema[0])
        return;
    cat_table_t *src = catalog_table_get(g_cat, r->schema, r->org_table);
    if (!src)
        return;
    int k = cat_table_col(src, r->org_name);
    if (k >= 0) {
        const cat_column_t *sc = &src->cols[k];
        /* the source column's type as declared (CHAR, ENUM, SET, BIT, TEXT sizes, display widths) */
        bool nullable = c->rc.nullable;
        c->rc = sc->rc;
        c->rc.nullable = nullable;
        c->display_width = sc->display_width;
        c->zerofill = sc->zerofill;
        c->explicit_coll = sc->explicit_coll;
        if (sc->nelems) {
            c->nelems = sc->nelems;
            c->elems = arena_alloc(x->arena, sizeof(char *) * sc->nelems);
            for (uint32_t e = 0; e < sc->nelems; e++)
                c->elems[e] = arena_strdup(x->arena, sc->elems[e]);
        }
        c->comment = arena_strdup(x->arena, sc->comment ? sc->comment : "");
        if (sc->auto_increment) {
            c->def = CAT_DEF_VALUE;
            c->default_text = "0";
        } else if (sc->def == CAT_DEF_VALUE || sc->def == CAT_DEF_NOW || sc->def == CAT_DEF_EXPR) {
            c->def = sc->def;
            c->default_text = sc->default_text ? arena_strdup(x->arena, sc->default_text) : NULL;
        }
    }
    catalog_table_release(src);
}

static int exec_create_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_create_table_t *ct = st->create_table;
    const char *db = xdb(x, ct->table.db);
    if (!db)
        return -ER_NO_DB_ERROR;
    if (catalog_db_is_virtual(db))
        return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", db);
    const char *user_db = db;
    char *real = NULL;
    if (ct->temporary) {
        const char *mdb = db, *mname = ct->table.name;
        if (xtmp_map(x, &mdb, &mname)) {
            if (ct->if_not_exists) {
                diag_note(x->diag, ER_TABLE_EXISTS_ERROR, ct->table.name);
                pend_ok(x, 0, NULL);
                return 0;
            }
            return diag_error(x->diag, ER_TABLE_EXISTS_ERROR, ct->table.name);
        }
        if (!catalog_db_exists(g_cat, XTMP_DB)) {
            diag_t d;
            diag_init(&d, 4);
            catalog_db_create(g_cat, XTMP_DB, COLL_DEFAULT, true, &d);
            diag_free(&d);
        }
        static _Atomic uint64_t tmp_seq;
        real = arena_printf(x->arena, "t%llu_%s", (unsigned long long)atomic_fetch_add(&tmp_seq, 1), ct->table.name);
        db = XTMP_DB;
    }
    int rc = ddl_begin(x);
    if (rc)
        return rc;
    cat_table_t *def = NULL;
    if (ct->like.name) {
        const char *ldb = xdb(x, ct->like.db);
        if (!ldb)
            return -ER_NO_DB_ERROR;
        const char *sdb = ldb, *sname = ct->like.name;
        xtmp_map(x, &sdb, &sname);
        cat_table_t *src = catalog_table_get(g_cat, sdb, sname);
        if (!src)
            return diag_error(x->diag, ER_NO_SUCH_TABLE, ldb, ct->like.name);
        def = cat_table_copy(x->arena, src);
        catalog_table_release(src);
        def->db = db;
        def->name = ct->table.name;
        def->tablespace = NULL;
        def->space_id = src->space_id;
        def->create_time = 0;
        def->auto_inc_start = 1;
    } else {
        sql_create_table_t c2 = *ct;
        if (ct->as_select)
            c2.nindexes = 0; /* the keys name columns of the SELECT: added below */
        if ((rc = build_table_def(x, &c2, db, &def)) != 0)
            return rc;
    }
    if (ct->as_select) {
        /* the SELECT's result columns become the table's */
        res_col_t *cols;
        uint32_t *widths;
        int n;
        uint16_t rcoll = x->result_coll;
        x->result_coll = 0; /* the columns' own character sets, not the client's */
        rc = exec_select_describe_widths(x, ct->as_select, &cols, &widths, &n);
        x->result_coll = rcoll;
        if (rc != 0)
            return rc;
        /* CREATE TABLE t (columns) SELECT: the declared columns first, then the SELECT's other columns; a
         * SELECT column with a declared name fills the declared column */
        uint32_t nd = ct->ncols ? def->ncols : 0;
        cat_column_t *c = arena_calloc(x->arena, sizeof(cat_column_t) * ((uint32_t)n + nd + 1));
        if (nd)
            memcpy(c, def->cols, sizeof(cat_column_t) * nd);
        uint32_t nc = nd;
        for (int i = 0; i < n; i++) {
            bool declared = false;
            for (uint32_t k = 0; k < nd; k++)
                declared |= strcasecmp(c[k].name, cols[i].name) == 0;
            if (declared)
                continue;
            cat_column_t *cc = &c[nc];
            xcol_from_res(cc, &cols[i]);
            if (widths[i] && sqlt_is_int((sqlt_t)cc->rc.type))
                cc->display_width = widths[i];
            if (widths[i] && cc->rc.type == SQLT_DECIMAL && widths[i] >= cc->rc.scale)
                cc->rc.len = widths[i];
            cc->name = arena_strdup(x->arena, cols[i].name);
            if (sqlt_is_string((sqlt_t)cc->rc.type) && cc->rc.coll != COLL_BINARY && cc->rc.len == 0)
                cc->rc.len = 1;
            if ((cc->rc.type == SQLT_VARCHAR || cc->rc.type == SQLT_VARBINARY) && cc->rc.len > 512) {
                /* MariaDB makes a string result over 512 characters a TEXT / BLOB column, by its byte length */
                uint64_t bytes = (uint64_t)cc->rc.len * (cc->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(cc->rc.coll));
                bool bin = cc->rc.coll == COLL_BINARY;
                cc->rc.type = bytes < 65536 ? (bin ? SQLT_BLOB : SQLT_TEXT)
                            : bytes < 16777216 ? (bin ? SQLT_MEDIUMBLOB : SQLT_MEDIUMTEXT) : (bin ? SQLT_LONGBLOB : SQLT_LONGTEXT);
                cc->rc.len = 0;
            }
            if (!cc->rc.nullable)
                cc->def = CAT_DEF_NONE;
            ctas_source_default(x, &cols[i], cc);
            for (uint32_t k = nd; k < nc; k++)
                if (strcasecmp(c[k].name, cc->name) == 0)
                    return diag_error(x->diag, ER_DUP_FIELDNAME, cc->name);
            nc++;
        }
        def->cols = c;
        def->ncols = nc;
        /* table-level keys name columns of the SELECT (the declared columns' own keys are already there) */
        if (!nd) {
            def->nidx = 0;
            def->idx = NULL;
        }
        uint32_t cap = def->nidx;
        for (uint32_t k = 0; k < ct->nindexes; k++)
            if ((rc = add_index(x, def, &cap, &ct->indexes[k], NULL)) != 0)
                return rc;
        def->has_pk = def->nidx && def->idx[0].kind == CAT_IDX_PRIMARY;
    }
    if (ct->or_replace) {
        cat_table_t *old = catalog_table_get(g_cat, db, ct->table.name);
        if (old) {
            catalog_table_release(old);
            if ((rc = catalog_table_drop(g_cat, db, ct->table.name, false, x->diag)) != 0)
                return rc;
        }
    }
    if (real) {
        def->name = real;
        def->coll = def->coll ? def->coll : catalog_db_coll(g_cat, user_db);
    }
    rc = catalog_table_create(g_cat, def, ct->if_not_exists && !real, x->diag);
    if (rc < 0)
        return rc;
    if (real) {
        xtmp_t *t = mem_calloc(1, sizeof *t);
        t->db = mem_strdup(user_db);
        t->name = mem_strdup(ct->table.name);
        t->real = mem_strdup(real);
        t->next = x->ss->tmp;
        x->ss->tmp = t;
    }
    x->row_count = 0;
    if (ct->as_select && rc == 0) {
        /* fill it as INSERT [IGNORE] / REPLACE ... SELECT would, in this statement's transaction */
        sql_insert_t ins = {.table = {.db = user_db, .name = ct->table.name}, .select = ct->as_select,
                            .ignore = ct->dup == SQL_DUP_IGNORE};
        if (ct->ncols) { /* the SELECT's columns by name */
            res_col_t *cols;
            int n;
            if ((rc = exec_select_describe(x, ct->as_select, &cols, &n)) != 0)
                return rc;
            ins.cols = arena_alloc(x->arena, sizeof(char *) * ((uint32_t)n + 1));
            for (int i = 0; i < n; i++)
                ins.cols[i] = cols[i].name;
            ins.ncols = (uint32_t)n;
        }
        sql_stmt_t ist = {.kind = ct->dup == SQL_DUP_REPLACE ? SQL_STMT_REPLACE : SQL_STMT_INSERT, .insert = &ins};
        rc = exec_insert(x, &ist);
        if (rc) {
            /* the statement fails as a whole: the new table goes */
            if (x->ss->trx) {
                engine_trx_rollback(x->ss->trx);
                trx_end(x->ss);
            }
            diag_t scratch;
            diag_init(&scratch, 4);
            catalog_table_drop(g_cat, db, real ? real : ct->table.name, true, &scratch);
            diag_free(&scratch);
        }
        return rc;
    }
    pend_ok(x, 0, NULL);
    return 0;
}

/* ---------------------------------------------------------------- indexes, TRUNCATE, DROP, RENAME */

static int create_index(sql_exec_ctx_t *x, const sql_name_t *tn, const sql_index_def_t *d, bool if_not_exists)
{
    const char *db;
    cat_table_t *t = open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    int rc;
    cat_table_t *nt = cat_table_copy(x->arena, t);
    if (d->name && cat_table_index(nt, d->name) >= 0 && if_not_exists) {
        diag_note(x->diag, ER_DUP_KEYNAME, d->name);
        catalog_table_release(t);
        return 0;
    }
    if (d->kind == SQL_INDEX_PRIMARY && nt->has_pk) {
        catalog_table_release(t);
        return diag_error(x->diag, ER_MULTIPLE_PRI_KEY);
    }
    if (d->kind == SQL_INDEX_PRIMARY) {
        catalog_table_release(t);
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "adding a PRIMARY KEY to an existing table");
    }
    uint32_t cap = nt->nidx;
    if ((rc = add_index(x, nt, &cap, d, NULL)) != 0 || d->kind == SQL_INDEX_FOREIGN) {
        catalog_table_release(t);
        return rc;
    }
    uint32_t ix = nt->nidx - 1;
    nt->idx[ix].key_version = RC_KEY_VERSION;
    /* readers go on while the index is built; writers wait, and the new definition needs the table alone */
    if ((rc = exec_index_build(x, nt, &ix, 1)) == 0 && (rc = xmdl_upgrade(x)) == 0)
        rc = catalog_table_replace(g_cat, nt, x->diag);
    if (rc && nt->idx[ix].tree)
        engine_tree_drop(NULL, g_eng, nt->idx[ix].tree);
    catalog_table_release(t);
    return rc;
}

static int drop_index(sql_exec_ctx_t *x, const sql_name_t *tn, const char *name, bool if_exists)
{
    const char *db;
    cat_table_t *t = open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    int rc = 0;
    int ix = cat_table_index(t, name);
    if (ix < 0) {
        if (if_exists)
            cant_drop(x, true, "INDEX", name);
        else
            rc = cant_drop(x, false, "INDEX", name);
        goto out;
    }
    if (t->idx[ix].kind == CAT_IDX_PRIMARY) {
        rc = diag_error(x->diag, ER_NOT_SUPPORTED_YET, "dropping the PRIMARY KEY");
        goto out;
    }
    int ai = cat_table_autoinc_col(t);
    bool other = false;
    for (uint32_t i = 0; i < t->nidx && ai >= 0; i++)
        if ((int)i != ix && t->idx[i].cols[0].col == (uint32_t)ai)
            other = true;
    if (ai >= 0 && t->idx[ix].cols[0].col == (uint32_t)ai && !other) {
        rc = diag_error(x->diag, ER_WRONG_AUTO_KEY);
        goto out;
    }
    cat_table_t *nt = cat_table_copy(x->arena, t);
    memmove(&nt->idx[ix], &nt->idx[ix + 1], sizeof(cat_index_t) * (nt->nidx - (uint32_t)ix - 1));
    nt->nidx--;
    rc = catalog_table_replace(g_cat, nt, x->diag);
out:
    catalog_table_release(t);
    return rc;
}

static int truncate_table(sql_exec_ctx_t *x, const sql_name_t *tn)
{
    const char *db;
    const char *vdb = xdb(x, tn->db);
    if (vdb && strcasecmp(vdb, "performance_schema") == 0)
        return exec_perfschema_truncate(x, tn->name);
    cat_table_t *t = open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    cat_table_t *nt = cat_table_copy(x->arena, t);
    int rc = engine_tree_create(NULL, g_eng, nt->space_id, &nt->tree);
    for (uint32_t i = 0; i < nt->nidx && !rc; i++) {
        if (nt->idx[i].kind == CAT_IDX_PRIMARY)
            nt->idx[i].tree = nt->tree;
        else
            rc = engine_tree_create(NULL, g_eng, nt->space_id, &nt->idx[i].tree);
    }
    if (!rc)
        rc = catalog_table_replace(g_cat, nt, x->diag);
    else
        rc = table_engine_err(x->diag, t, rc);
    if (!rc) {
        table_autoinc_set(t, nt->auto_inc_start ? nt->auto_inc_start : 1);
        atomic_store(&t->ctr->row_id, 1);
        catalog_autoinc_persist(g_cat, t);
    }
    catalog_table_release(t);
    return rc;
}

static int exec_drop_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_table_list_t *tl = &st->tables;
    int rc = 0;
    buf_t missing;
    buf_init(&missing);
    for (uint32_t i = 0; i < tl->n; i++) {
        const char *db = xdb(x, tl->tables[i].db);
        if (!db) {
            rc = -ER_NO_DB_ERROR;
            break;
        }
        const char *rdb = db, *rname = tl->tables[i].name;
        bool is_tmp = xtmp_map(x, &rdb, &rname);
        if (is_tmp) {
            if ((rc = catalog_table_drop(g_cat, rdb, rname, true, x->diag)) < 0)
                break;
            rc = 0;
            for (xtmp_t **pp = &x->ss->tmp; *pp; pp = &(*pp)->next)
                if (strcmp((*pp)->real, rname) == 0) {
                    xtmp_t *dead = *pp;
                    *pp = dead->next;
                    mem_free(dead->db);
                    mem_free(dead->name);
                    mem_free(dead->real);
                    mem_free(dead);
                    break;
                }
            continue;
        }
        cat_table_t *t = catalog_db_is_virtual(db) || tl->temporary ? NULL : catalog_table_get(g_cat, db, tl->tables[i].name);
        if (!t) {
            if (missing.len)
                buf_append_byte(&missing, ',');
            buf_printf(&missing, "%s.%s", db, tl->tables[i].name);
            continue;
        }
        catalog_table_release(t);
        if ((rc = catalog_table_drop(g_cat, db, tl->tables[i].name, true, x->diag)) < 0)
            break;
        rc = 0;
    }
    if (!rc && missing.len) {
        buf_append_byte(&missing, 0);
        if (tl->if_exists)
            diag_note(x->diag, ER_BAD_TABLE_ERROR, (const char *)missing.data);
        else
            rc = diag_error(x->diag, ER_BAD_TABLE_ERROR, (const char *)missing.data);
    }
    buf_free(&missing);
    if (!rc)
        pend_ok(x, 0, NULL);
    return rc;
}

/* ---- ALTER TABLE that changes columns or the primary key: a rebuild into new trees ---- */

typedef struct xalter {
    sql_exec_ctx_t *x;
    cat_table_t *nt;          /* the new definition (statement arena) */
    int *src;                 /* new column -> old column, -1 for added columns */
    uint32_t cap, idxcap;
} xalter_t;

static void alter_insert_col(xalter_t *A, uint32_t pos, const cat_column_t *c, int src)
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

static void alter_remove_col(xalter_t *A, uint32_t pos)
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

/* Moves column `from` to the position FIRST / AFTER name asks for. */
static int alter_position(xalter_t *A, uint32_t from, const sql_column_def_t *cd)
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
static int alter_copy(sql_exec_ctx_t *x, const cat_table_t *old, xalter_t *A, bool ignore, uint64_t *nrows)
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
    int rc = engine_trx_begin(g_eng, &trx);
    if (rc)
        return table_engine_err(x->diag, old, rc);
    /* the scan reads through its own transaction so batches can commit */
    engine_trx_t *rtrx;
    if ((rc = engine_trx_begin(g_eng, &rtrx)) != 0) {
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
        if (rc)
            break;
        rc = table_insert(trx, nt, row, NULL, x->diag, NULL);
        if (rc)
            break;
        if (++batch == 256) {
            if ((rc = engine_trx_commit(trx)) != 0 || (rc = engine_trx_begin(g_eng, &trx)) != 0) {
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

static void alter_drop_trees(cat_table_t *nt)
{
    if (nt->tree)
        engine_tree_drop(NULL, g_eng, nt->tree);
    for (uint32_t i = 0; i < nt->nidx; i++)
        if (nt->idx[i].tree && nt->idx[i].tree != nt->tree)
            engine_tree_drop(NULL, g_eng, nt->idx[i].tree);
    nt->tree = 0;
    for (uint32_t i = 0; i < nt->nidx; i++)
        nt->idx[i].tree = 0;
}

/* The trees of a rebuilt table: the rows copied into a new clustered tree (the primary key, if any, checked as
 * they go in), then every secondary index built from them by sorting (idxbuild.c), not entry by entry.  On
 * failure no new tree is left. */
static int alter_new_trees(sql_exec_ctx_t *x, const cat_table_t *old, xalter_t *A, bool ignore, uint64_t *nrows)
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
    int rc = engine_tree_create(NULL, g_eng, nt->space_id, &nt->tree);
    if (rc)
        return table_engine_err(x->diag, old, rc);
    if (nt->has_pk)
        nt->idx[0].tree = nt->tree;
    if (ignore && unique) {
        /* ALTER IGNORE keeps the first of duplicate rows: the copy must see each UNIQUE index as it inserts */
        for (uint32_t i = 0; i < nsec && !rc; i++)
            rc = engine_tree_create(NULL, g_eng, nt->space_id, &nt->idx[sec[i]].tree);
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
static bool alter_is_copy(const cat_table_t *old, const xalter_t *A)
{
    const cat_table_t *nt = A->nt;
    for (uint32_t j = 0; j < nt->ncols; j++) {
        int o = A->src[j];
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

static int alter_rebuild(sql_exec_ctx_t *x, const sql_alter_table_t *at)
{
    const char *db;
    cat_table_t *old = open_write(x, &at->table, &db);
    if (!old)
        return -x->diag->error_code;
    int rc = 0;
    xalter_t A = {.x = x};
    A.nt = cat_table_copy(x->arena, old);
    cat_table_t *nt = A.nt;
    A.cap = nt->ncols;
    A.src = arena_alloc(x->arena, sizeof(int) * (nt->ncols + 1));
    for (uint32_t i = 0; i < nt->ncols; i++)
        A.src[i] = (int)i;
    uint32_t idxcap = nt->nidx;
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
            break;
        }
        case SQL_ALTER_DROP_COLUMN: {
            int c = cat_table_col(nt, a->name);
            if (c < 0) {
                if (a->if_exists)
                    cant_drop(x, true, "COLUMN", a->name);
                else
                    rc = cant_drop(x, false, "COLUMN", a->name);
                break;
            }
            if (nt->ncols == 1) {
                rc = diag_error(x->diag, ER_CANT_REMOVE_ALL_FIELDS);
                break;
            }
            alter_remove_col(&A, (uint32_t)c);
            break;
        }
        case SQL_ALTER_MODIFY_COLUMN: case SQL_ALTER_CHANGE_COLUMN: {
            const char *oldname = a->kind == SQL_ALTER_CHANGE_COLUMN ? a->name : a->col.name;
            int c = cat_table_col(nt, oldname);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, oldname, nt->name);
                break;
            }
            int other = cat_table_col(nt, a->col.name);
            if (other >= 0 && other != c) {
                rc = diag_error(x->diag, ER_DUP_FIELDNAME, a->col.name);
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
            nt->cols[c] = nc;
            rc = alter_position(&A, (uint32_t)c, &a->col);
            rc = rc < 0 ? rc : 0;
            break;
        }
        case SQL_ALTER_RENAME_COLUMN: {
            int c = cat_table_col(nt, a->name);
            if (c < 0) {
                rc = diag_error(x->diag, ER_BAD_FIELD_ERROR, a->name, nt->name);
                break;
            }
            if (cat_table_col(nt, a->new_name.name) >= 0) {
                rc = diag_error(x->diag, ER_DUP_FIELDNAME, a->new_name.name);
                break;
            }
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
                    cant_drop(x, true, "INDEX", nm);
                else
                    rc = cant_drop(x, false, "INDEX", nm);
                break;
            }
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
        case SQL_ALTER_RENAME:
            new_db = xdb(x, a->new_name.db);
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
    if (rc)
        goto out;
    if (at->opts.set & SQL_TOPT_COMMENT)
        nt->comment = at->opts.comment;
    if ((at->opts.set & (SQL_TOPT_CHARSET | SQL_TOPT_COLLATE)) && at->opts.coll >= 0)
        nt->coll = (uint16_t)at->opts.coll;
    if (at->opts.set & SQL_TOPT_ENGINE) {
        nt->engine = engine_name(x, at->opts.engine, nt->name, &rc);
        if (rc)
            goto out;
    }
    uint64_t nrows = 0;
    uint64_t ai_before = atomic_load(&old->ctr->auto_inc);
    bool copy = at->algorithm == SQL_ALGORITHM_COPY || alter_is_copy(old, &A); /* rows copied: reported */
    if ((rc = alter_new_trees(x, old, &A, at->ignore, &nrows)) != 0)
        goto out;
    if ((rc = xmdl_upgrade(x)) != 0 || (rc = catalog_table_replace(g_cat, nt, x->diag)) != 0)
        goto drop_new;
    /* counters: hidden row ids continue after the copied rows; AUTO_INCREMENT never goes back */
    if (atomic_load(&old->ctr->row_id) <= nrows)
        atomic_store(&old->ctr->row_id, nrows + 1);
    uint64_t ai = MAX(ai_before, nt->auto_inc_start);
    if (at->opts.set & SQL_TOPT_AUTO_INCREMENT)
        ai = MAX(ai, at->opts.auto_increment);
    table_autoinc_set(old, ai);
    catalog_autoinc_persist(g_cat, old);
    if (new_name && (rc = catalog_table_rename(g_cat, db, nt->name, new_db ? new_db : db, new_name, x->diag)) != 0)
        goto out;
    if (!copy)
        nrows = 0;
    pend_ok(x, nrows, arena_printf(x->arena, "Records: %llu  Duplicates: 0  Warnings: %u", (unsigned long long)nrows,
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
    x->pend_ok = false; /* the statement answers with its own result set */
    return rc;
}

/* ---------------------------------------------------------------- key format step 1 -> 2 at start-up */

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

/* Marks in `cols` (ncols flags) the columns whose version-1 keys are stale; returns 0 (none), 1 (strings whose
 * ASCII keys are still right) or 2 (a rebuild is needed whatever the data: YEAR keys written before 2026-11-30
 * held 1901 for every year, so version-1 YEAR indexes are rebuilt too). */
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
            if (t->cols[c].rc.type == SQLT_YEAR)
                any = 2;
            else if (keys_col_changed(t, c))
                any = any ? any : 1, cols[c] = true;
        }
    }
    return any;
}

/* Whether every row holds ASCII only in the marked columns (1), not (0), or an engine error (< 0). */
static int keys_rows_ascii(sql_exec_ctx_t *x, const cat_table_t *t, const bool *cols)
{
    engine_trx_t *trx;
    int rc = engine_trx_begin(g_eng, &trx);
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
    cat_table_t *old = catalog_table_get(g_cat, db, name);
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
        rc = catalog_table_replace(g_cat, nt, &d);
    } else {
        how = "the table was rebuilt";
        xalter_t A = {.x = &x, .nt = nt};
        A.src = arena_alloc(&mem, sizeof(int) * (nt->ncols + 1));
        for (uint32_t i = 0; i < nt->ncols; i++)
            A.src[i] = (int)i;
        uint64_t nrows = 0;
        if ((rc = alter_new_trees(&x, old, &A, false, &nrows)) == 0 && (rc = catalog_table_replace(g_cat, nt, &d)) != 0)
            alter_drop_trees(nt);
    }
    catalog_table_release(old);
    if (rc) {
        log_error("key format step 1->2 (utf8mb4/utf8mb3_general_ci and latin1_swedish_ci keys become collation "
                  "weights; YEAR keys rebuilt): table `%s`.`%s` could not be brought over: %s.  Start the previous strata, make the "
                  "values distinct under the new collation rules (or drop the UNIQUE index), then start again",
                  db, name, d.n ? d.conds[d.n - 1].msg : "engine error");
        rc = rc < 0 ? rc : STRATA_EIO;
    } else {
        log_note("key format step 1->2: table `%s`.`%s`: %s", db, name, how);
    }
    diag_free(&d);
    arena_destroy(&mem);
    return rc;
done:
    diag_free(&d);
    arena_destroy(&mem);
    return 0;
}

static int sql_exec_keys_upgrade(void)
{
    arena_t a;
    arena_init(&a, 1024);
    const char **dbs = NULL, **tabs = NULL;
    uint32_t ndb = 0, ntab = 0;
    int rc = catalog_db_list(g_cat, &a, &dbs, &ndb);
    for (uint32_t i = 0; i < ndb && !rc; i++) {
        if (catalog_table_list(g_cat, dbs[i], &a, &tabs, &ntab) != 0)
            continue;
        for (uint32_t k = 0; k < ntab && !rc; k++)
            rc = keys_upgrade_table(dbs[i], tabs[k]);
    }
    arena_destroy(&a);
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
            if (a->index.kind == SQL_INDEX_PRIMARY)
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

static int exec_alter_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
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
    if (!only_add && (rc = xmdl_upgrade(x)) != 0)
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
            const char *db = xdb(x, at->table.db);
            const char *ndb = xdb(x, a->new_name.db);
            if (!db || !ndb)
                return -ER_NO_DB_ERROR;
            rc = catalog_table_rename(g_cat, db, at->table.name, ndb, a->new_name.name, x->diag);
            break;
        }
        default:
            break;
        }
    }
    if (!rc && (at->opts.set & SQL_TOPT_AUTO_INCREMENT)) {
        const char *db;
        cat_table_t *t = open_write(x, &at->table, &db);
        if (!t)
            return -x->diag->error_code;
        uint64_t cur = atomic_load(&t->ctr->auto_inc);
        if (at->opts.auto_increment > cur)
            table_autoinc_set(t, at->opts.auto_increment);
        catalog_autoinc_persist(g_cat, t);
        catalog_table_release(t);
    }
    bool rename_only = at->nactions > 0 && !at->opts.set;
    for (uint32_t i = 0; i < at->nactions; i++)
        rename_only &= at->actions[i].kind == SQL_ALTER_RENAME;
    if (!rc)
        pend_ok(x, 0, rename_only ? NULL : arena_printf(x->arena, "Records: 0  Duplicates: 0  Warnings: %u", x->diag->warn_count));
    return rc;
}

/* ---------------------------------------------------------------- tablespaces */

static int exec_tablespace(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_tablespace_stmt_t *ts = &st->tablespace;
    int rc = 0;
    if (ts->engine) {
        int erc;
        engine_name(x, ts->engine, ts->name, &erc);
        if (erc)
            return erc;
    }
    switch (st->kind) {
    case SQL_STMT_CREATE_TABLESPACE: {
        uint32_t sid;
        uint64_t init = (ts->set & SQL_TS_INITIAL_SIZE) ? ts->initial_size : 128ull << 20;
        uint64_t ext = (ts->set & SQL_TS_EXTENT_SIZE) ? ts->extent_size : 1ull << 20;
        rc = engine_tablespace_create(g_eng, ts->name, ts->file, init, ext, &sid);
        break;
    }
    case SQL_STMT_ALTER_TABLESPACE:
        if (!ts->add)
            return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "ALTER TABLESPACE ... DROP DATAFILE");
        rc = engine_tablespace_add_datafile(g_eng, ts->name, ts->file,
                                            (ts->set & SQL_TS_INITIAL_SIZE) ? ts->initial_size : 128ull << 20);
        break;
    case SQL_STMT_DROP_TABLESPACE:
        rc = engine_tablespace_drop(g_eng, ts->name);
        if (rc == ENGINE_ENOTEMPTY || rc == STRATA_ENOTFOUND)
            return diag_error(x->diag, ER_DROP_FILEGROUP_FAILED, "TABLESPACE");
        break;
    case SQL_STMT_CREATE_LOGFILE_GROUP:
        /* One group with one undo file, created at INITIAL_SIZE (MySQL's defaults: 128M, buffer 8M); large
         * transactions' undo goes there (engine.h). */
        rc = engine_logfile_group_create(g_eng, ts->name, ts->file,
                                         (ts->set & SQL_TS_INITIAL_SIZE) ? ts->initial_size : 128ull << 20,
                                         (ts->set & SQL_TS_UNDO_BUFFER_SIZE) ? ts->undo_buffer_size : 8ull << 20);
        if (rc == STRATA_EEXIST)
            return diag_error(x->diag, ER_CREATE_FILEGROUP_FAILED, "LOGFILE GROUP");
        break;
    case SQL_STMT_DROP_LOGFILE_GROUP:
        rc = engine_logfile_group_drop(g_eng, ts->name);
        if (rc == ENGINE_ENOTEMPTY || rc == STRATA_ENOTFOUND)
            return diag_error(x->diag, ER_DROP_FILEGROUP_FAILED, "LOGFILE GROUP");
        break;
    default:
        break;
    }
    if (rc == STRATA_EEXIST)
        return diag_push_msg(x->diag, DIAG_ERROR, 1528, arena_printf(x->arena, "Failed to create %s", "TABLESPACE"));
    if (rc) {
        char msg[160];
        bool lfg = st->kind == SQL_STMT_CREATE_LOGFILE_GROUP || st->kind == SQL_STMT_DROP_LOGFILE_GROUP;
        bool create = st->kind == SQL_STMT_CREATE_TABLESPACE || st->kind == SQL_STMT_CREATE_LOGFILE_GROUP;
        snprintf(msg, sizeof msg, "Failed to %s %s %s (engine error %d)",
                 create ? "create" : st->kind == SQL_STMT_DROP_LOGFILE_GROUP ? "drop" : "alter",
                 lfg ? "LOGFILE GROUP" : "TABLESPACE", ts->name, rc);
        return diag_push_msg(x->diag, DIAG_ERROR, create ? 1528 : st->kind == SQL_STMT_DROP_LOGFILE_GROUP ? 1529 : 1533,
                             msg);
    }
    pend_ok(x, 0, NULL);
    return 0;
}

/* ---------------------------------------------------------------- dispatch */

bool sql_expr_has_subquery(const sql_expr_t *e)
{
    if (!e)
        return false;
    if (e->kind == SQL_E_SUBQUERY || e->kind == SQL_E_EXISTS || e->kind == SQL_E_QUANTIFIED || (e->kind == SQL_E_IN && e->sub))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (sql_expr_has_subquery(e->args[i]))
            return true;
    return e->kind == SQL_E_CASE && sql_expr_has_subquery(e->else_expr);
}

bool sql_exec_select_handles(const sql_select_t *sel)
{
    if (!g_cat)
        return false;
    if (sel->from || sel->union_next || sel->having)
        return true;
    if (sql_expr_has_subquery(sel->where) || sql_expr_has_subquery(sel->having))
        return true;
    for (uint32_t i = 0; i < sel->nitems; i++)
        if (sql_expr_has_subquery(sel->items[i].expr))
            return true;
    return false;
}

bool sql_exec_handles(const sql_stmt_t *st)
{
    if (!g_cat)
        return false;
    switch (st->kind) {
    case SQL_STMT_SELECT:
        return sql_exec_select_handles(st->select);
    case SQL_STMT_INSERT: case SQL_STMT_REPLACE: case SQL_STMT_UPDATE: case SQL_STMT_DELETE:
    case SQL_STMT_CREATE_TABLE: case SQL_STMT_DROP_TABLE: case SQL_STMT_TRUNCATE: case SQL_STMT_RENAME_TABLE:
    case SQL_STMT_CREATE_INDEX: case SQL_STMT_DROP_INDEX: case SQL_STMT_ALTER_TABLE: case SQL_STMT_CREATE_DATABASE:
    case SQL_STMT_DROP_DATABASE: case SQL_STMT_ALTER_DATABASE: case SQL_STMT_CREATE_TABLESPACE:
    case SQL_STMT_ALTER_TABLESPACE: case SQL_STMT_DROP_TABLESPACE: case SQL_STMT_CREATE_LOGFILE_GROUP:
    case SQL_STMT_DROP_LOGFILE_GROUP: case SQL_STMT_ANALYZE_TABLE: case SQL_STMT_CHECK_TABLE:
    case SQL_STMT_OPTIMIZE_TABLE: case SQL_STMT_REPAIR_TABLE: case SQL_STMT_CHECKSUM_TABLE:
        return true;
    case SQL_STMT_SHOW:
        return exec_show_handles(&st->show);
    case SQL_STMT_EXPLAIN:
        return st->explain.stmt && (st->explain.stmt->kind == SQL_STMT_SELECT || st->explain.stmt->kind == SQL_STMT_UPDATE ||
                                    st->explain.stmt->kind == SQL_STMT_DELETE) && !st->explain.format;
    default:
        return false;
    }
}

/* Statements that end the open transaction first (MariaDB's implicit commit; CHECKSUM TABLE does not). */
static bool is_ddl(sql_stmt_kind_t k)
{
    return k != SQL_STMT_SELECT && k != SQL_STMT_INSERT && k != SQL_STMT_REPLACE && k != SQL_STMT_UPDATE &&
           k != SQL_STMT_DELETE && k != SQL_STMT_SHOW && k != SQL_STMT_EXPLAIN && k != SQL_STMT_CHECKSUM_TABLE;
}

static int dispatch(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    int rc;
    x->no_trx = is_ddl(st->kind);
    if ((rc = sql_exec_alter_clauses(x, st)) != 0) /* before the implicit commit, as MariaDB refuses them */
        return rc;
    if (x->no_trx && ((rc = ddl_begin(x)) != 0 || (rc = ddl_mdl(x, st)) != 0))
        return rc;
    switch (st->kind) {
    case SQL_STMT_SELECT:
        return exec_select_stmt(x, st->select);
    case SQL_STMT_INSERT: case SQL_STMT_REPLACE:
        return exec_insert(x, st);
    case SQL_STMT_UPDATE:
        return exec_update(x, st);
    case SQL_STMT_DELETE:
        return exec_delete(x, st);
    case SQL_STMT_CREATE_TABLE:
        return exec_create_table(x, st);
    case SQL_STMT_DROP_TABLE:
        return exec_drop_table(x, st);
    case SQL_STMT_TRUNCATE:
        if ((rc = truncate_table(x, &st->tables.tables[0])) == 0)
            pend_ok(x, 0, NULL);
        return rc;
    case SQL_STMT_RENAME_TABLE:
        for (uint32_t i = 0; i < st->rename_table.n; i++) {
            const char *db = xdb(x, st->rename_table.from[i].db), *ndb = xdb(x, st->rename_table.to[i].db);
            if (!db || !ndb)
                return -ER_NO_DB_ERROR;
            if ((rc = catalog_table_rename(g_cat, db, st->rename_table.from[i].name, ndb, st->rename_table.to[i].name, x->diag)) != 0)
                return rc;
        }
        pend_ok(x, 0, NULL);
        return 0;
    case SQL_STMT_CREATE_INDEX:
        if (st->index.algorithm == SQL_ALGORITHM_COPY) {
            /* the table copy it asks for: ALTER TABLE t ADD INDEX ..., ALGORITHM=COPY */
            sql_alter_action_t add = {.kind = SQL_ALTER_ADD_INDEX, .index = st->index.index,
                                      .if_not_exists = st->index.index.if_not_exists};
            sql_alter_table_t at = {.table = st->index.table, .algorithm = SQL_ALGORITHM_COPY,
                                    .lock = st->index.lock, .actions = &add, .nactions = 1};
            return alter_rebuild(x, &at);
        }
        if ((rc = create_index(x, &st->index.table, &st->index.index, st->index.index.if_not_exists)) == 0)
            pend_ok(x, 0, arena_printf(x->arena, "Records: 0  Duplicates: 0  Warnings: %u", x->diag->warn_count));
        return rc;
    case SQL_STMT_DROP_INDEX:
        if ((rc = drop_index(x, &st->index.table, st->index.index.name, st->index.if_exists)) == 0)
            pend_ok(x, 0, arena_printf(x->arena, "Records: 0  Duplicates: 0  Warnings: %u", x->diag->warn_count));
        return rc;
    case SQL_STMT_ALTER_TABLE:
        return exec_alter_table(x, st);
    case SQL_STMT_CREATE_DATABASE: {
        const sql_database_stmt_t *d = &st->database;
        if (d->or_replace) {
            uint32_t n;
            if (catalog_db_exists(g_cat, d->name) && (rc = catalog_db_drop(g_cat, d->name, false, x->diag, &n)) < 0)
                return rc;
        }
        rc = catalog_db_create(g_cat, d->name, d->coll >= 0 ? (uint16_t)d->coll : COLL_DEFAULT, d->if_not_exists, x->diag);
        if (rc < 0)
            return rc;
        pend_ok(x, rc == 1 ? 0 : 1, NULL);
        return 0;
    }
    case SQL_STMT_DROP_DATABASE: {
        const sql_database_stmt_t *d = &st->database;
        if (catalog_db_is_virtual(d->name))
            return diag_error(x->diag, ER_DBACCESS_DENIED_ERROR, x->user ? x->user : "root", x->host ? x->host : "localhost", d->name);
        uint32_t n = 0;
        rc = catalog_db_drop(g_cat, d->name, d->if_exists, x->diag, &n);
        if (rc < 0)
            return rc;
        if (x->db && strcmp(x->db, d->name) == 0)
            x->db_dropped = true;
        x->ss->db_dropped = true; /* MariaDB flags every DROP DATABASE, of the current database or not */
        pend_ok(x, n, NULL);
        return 0;
    }
    case SQL_STMT_ALTER_DATABASE:
        pend_ok(x, 1, NULL);
        return 0;
    case SQL_STMT_CREATE_TABLESPACE: case SQL_STMT_ALTER_TABLESPACE: case SQL_STMT_DROP_TABLESPACE:
    case SQL_STMT_CREATE_LOGFILE_GROUP: case SQL_STMT_DROP_LOGFILE_GROUP:
        return exec_tablespace(x, st);
    case SQL_STMT_SHOW:
        return exec_show_stmt(x, &st->show);
    case SQL_STMT_EXPLAIN:
        return exec_explain(x, st->explain.stmt);
    case SQL_STMT_ANALYZE_TABLE: case SQL_STMT_CHECK_TABLE: case SQL_STMT_OPTIMIZE_TABLE: case SQL_STMT_REPAIR_TABLE:
    case SQL_STMT_CHECKSUM_TABLE:
        return exec_maint(x, st);
    default:
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, sql_stmt_kind_name(st->kind));
    }
}

/* Is st a DDL statement the binary log records as a QUERY event?  Decided before it runs (a DROP TABLE of a
 * TEMPORARY table is not logged: temporary tables stay on this server in ROW format, as in MariaDB). */
/*
 * DROP TABLE naming TEMPORARY tables (which are not logged) beside others: the QUERY text names only the
 * others, as MariaDB writes it ("DROP TABLE `t1` generated by server"), each with its database since the
 * statement may name several.  NULL when every table is TEMPORARY.
 */
static const char *drop_text_without_temporary(sql_exec_ctx_t *x, const sql_table_list_t *l)
{
    buf_t b;
    buf_init(&b);
    buf_append_str(&b, l->if_exists ? "DROP TABLE IF EXISTS " : "DROP TABLE ");
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const char *db = xdb(x, l->tables[i].db), *name = l->tables[i].name;
        if (!db || xtmp_map(x, &db, &name))
            continue;
        if (n++)
            buf_append_byte(&b, ',');
        exec_ident_quote(&b, db, '`');
        buf_append_byte(&b, '.');
        exec_ident_quote(&b, name, '`');
    }
    buf_append_str(&b, " /* generated by server */");
    const char *text = n ? arena_strndup(x->arena, (const char *)b.data, b.len) : NULL;
    buf_free(&b);
    return text;
}

/* Is st logged as a QUERY event once it succeeds, and with what text (*text, else the statement's own)? */
static bool ddl_logged(sql_exec_ctx_t *x, const sql_stmt_t *st, const char **text)
{
    *text = NULL;
    switch (st->kind) {
    case SQL_STMT_CREATE_TABLE:
        return !st->create_table->temporary;
    case SQL_STMT_DROP_TABLE: case SQL_STMT_TRUNCATE: case SQL_STMT_DROP_VIEW: {
        const sql_table_list_t *l = &st->tables;
        if (l->temporary)
            return false;
        for (uint32_t i = 0; i < l->n; i++) {
            const char *db = xdb(x, l->tables[i].db), *name = l->tables[i].name;
            if (xtmp_map(x, &db, &name)) {
                *text = st->kind == SQL_STMT_DROP_TABLE ? drop_text_without_temporary(x, l) : NULL;
                return *text != NULL;
            }
        }
        return true;
    }
    case SQL_STMT_RENAME_TABLE: case SQL_STMT_CREATE_INDEX: case SQL_STMT_DROP_INDEX: case SQL_STMT_ALTER_TABLE:
    case SQL_STMT_CREATE_DATABASE: case SQL_STMT_DROP_DATABASE: case SQL_STMT_ALTER_DATABASE:
    case SQL_STMT_CREATE_TABLESPACE: case SQL_STMT_ALTER_TABLESPACE: case SQL_STMT_DROP_TABLESPACE:
    case SQL_STMT_CREATE_LOGFILE_GROUP: case SQL_STMT_DROP_LOGFILE_GROUP: case SQL_STMT_CREATE_VIEW:
        return true;
    case SQL_STMT_ANALYZE_TABLE: case SQL_STMT_OPTIMIZE_TABLE: case SQL_STMT_REPAIR_TABLE:
        return !st->tables.local; /* as MariaDB: whatever each table's outcome; CHECK and CHECKSUM never */
    default:
        return false;
    }
}

/*
 * CREATE TABLE ... SELECT is logged as MariaDB logs it in row format: the new table's definition as a CREATE
 * TABLE without the SELECT (SHOW CREATE TABLE's text), then the rows it was filled with as row events.  The
 * statement's own text would make a replica run the SELECT again, and logged after the rows (as other DDL is,
 * once done) it would reach the replica after rows for a table it does not have yet.  So the definition goes
 * to the binlog here, before the statement's rows transaction commits.
 */
static int log_ctas_create(sql_exec_ctx_t *x, const sql_create_table_t *ct)
{
    const char *db = xdb(x, ct->table.db);
    cat_table_t *t = db ? catalog_table_get(g_cat, db, ct->table.name) : NULL;
    if (!t)
        return 0; /* nothing was created */
    const char *def = exec_show_create_table_text(x->arena, t, 0) + strlen("CREATE TABLE ");
    catalog_table_release(t);
    const char *text = arena_printf(x->arena, "CREATE %sTABLE %s%s", ct->or_replace ? "OR REPLACE " : "",
                                    ct->if_not_exists ? "IF NOT EXISTS " : "", def);
    int rc = sql_commit_ddl(db, text, strlen(text), x->thread_id, x->sql_mode); /* in the table's database */
    if (rc)
        return diag_error(x->diag, ER_BINLOG_LOGGING_IMPOSSIBLE, "the statement is done but could not be written "
                                                                 "to the binary log");
    return 0;
}

/* SET @x = (SELECT ...): the value is the one item of `SELECT e`, read as a SELECT reads (exec_select_rows) */
static int eval_dispatch(sql_exec_ctx_t *x, const sql_expr_t *e, value_t *out)
{
    sql_select_item_t item = {.expr = (sql_expr_t *)e};
    sql_select_t sel = {.items = &item, .nitems = 1};
    value_t **rows;
    uint64_t n;
    uint32_t nc;
    int rc = exec_select_rows(x, &sel, &rows, &n, &nc);
    if (rc)
        return rc;
    *out = n && nc ? rows[0][0] : value_null();
    return 0;
}

static int exec_run(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *eval, value_t *eval_out);

int sql_exec_stmt(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    return exec_run(x, st, NULL, NULL);
}

int sql_exec_eval(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *e, value_t *out)
{
    return exec_run(x, st, e, out);
}

/* One statement, or (eval != NULL) one expression of statement st, inside the statement's transaction. */
static int exec_run(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_expr_t *eval, value_t *eval_out)
{
    if (!g_cat)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "tables (no storage engine)");
    sql_exec_session_t *ss = x->ss;
    x->pend_ok = false;
    x->pend_insert_id = 0;
    sql_exec_stmt_begin(ss);
    x->row_count = -1;
    table_undo_clear(&ss->undo);
    bool logging = x->log_bin && sql_commit_binlog() != NULL;
    ss->undo.bl = logging ? ss->bl : NULL;
    binrow_stmt_start(ss->bl, st->src, st->src_len);
    const char *ddl_text = NULL;
    bool log_ddl = !eval && logging && ddl_logged(x, st, &ddl_text);
    if (log_ddl && !(st->kind == SQL_STMT_CREATE_TABLE && st->create_table->as_select)) {
        /* its catalog commits carry the note that its QUERY event is owed (sql/commit.h) */
        const char *text = ddl_text ? ddl_text : st->src;
        size_t len = ddl_text ? strlen(ddl_text) : st->src ? st->src_len : 0;
        if (len)
            sql_commit_ddl_begin(x->db, text, len, x->thread_id, x->sql_mode);
    }
    if (ss->trx)
        engine_trx_statement_start(ss->trx); /* READ COMMITTED: a fresh view per statement */
    int rc = eval ? eval_dispatch(x, eval, eval_out) : dispatch(x, st);
    bool ctas = log_ddl && st->kind == SQL_STMT_CREATE_TABLE && st->create_table->as_select;
    if (rc == 0 && ctas)
        rc = log_ctas_create(x, st->create_table);
    if (rc == 0)
        binrow_stmt_end(ss->bl);
    else
        binrow_stmt_undo(ss->bl);
    if (ss->trx) {
        if (rc == 0) {
            if (ss->state == SQLX_TRX_STMT) {
                if (ss->wrote) {
                    rc = commit_open(x);
                } else {
                    engine_trx_rollback(ss->trx);
                    trx_end(ss);
                }
            } else if (ss->nsp) {
                table_undo_append(&ss->trx_undo, &ss->undo); /* ROLLBACK TO SAVEPOINT may need it */
            } else {
                table_undo_clear(&ss->undo);
            }
        } else if (x->diag->error_code == ER_LOCK_DEADLOCK || ss->state == SQLX_TRX_STMT) {
            engine_trx_rollback(ss->trx);
            trx_end(ss);
            if (x->diag->error_code == ER_LOCK_DEADLOCK)
                ss->explicit_begin = false;
        } else {
            int urc = table_undo_apply(ss->trx, &ss->undo);
            if (urc) {
                log_error("executor: undoing a failed statement failed (%d); rolling back the transaction", urc);
                engine_trx_rollback(ss->trx);
                trx_end(ss);
                ss->explicit_begin = false;
            }
        }
    }
    if (!ss->trx)
        mdl_release_all(&ss->mdl); /* no transaction open: the statement's metadata locks end with it */
    if (rc == 0 && log_ddl && !ctas && (ddl_text || (st->src && st->src_len))) {
        int brc = ddl_text ? sql_commit_ddl(x->db, ddl_text, strlen(ddl_text), x->thread_id, x->sql_mode)
                           : sql_commit_ddl(x->db, st->src, st->src_len, x->thread_id, x->sql_mode);
        if (brc) {
            char msg[160];
            snprintf(msg, sizeof msg, "the statement is done but could not be written to the binary log (%d)", brc);
            rc = diag_error(x->diag, ER_BINLOG_LOGGING_IMPOSSIBLE, msg);
        }
    }
    if (log_ddl)
        sql_commit_ddl_abandon(); /* the statement failed: no event owed (nothing once sql_commit_ddl ran) */
    if (rc == 0 && x->pend_ok)
        x->sink->ok(x->sink, x->pend_affected, x->last_insert_id_set ? x->last_insert_id : x->pend_insert_id, x->pend_info,
                    x->more);
    return rc;
}

int sql_exec_describe(sql_exec_ctx_t *x, const sql_stmt_t *st, res_col_t **cols, int *ncols)
{
    *cols = NULL;
    *ncols = 0;
    if (!g_cat)
        return 0;
    x->no_trx = true; /* describing opens the tables, but as MariaDB's PREPARE it begins no transaction */
    if (st->kind == SQL_STMT_SELECT && sql_exec_select_handles(st->select)) {
        diag_t scratch;
        diag_init(&scratch, 4);
        diag_t *keep = x->diag;
        x->diag = &scratch;
        int rc = exec_select_describe(x, st->select, cols, ncols);
        x->diag = keep;
        int code = scratch.error_code;
        if (rc && scratch.error && (code == ER_NO_SUCH_TABLE || code == ER_BAD_FIELD_ERROR || code == ER_NON_UNIQ_ERROR ||
                                    code == ER_BAD_DB_ERROR || code == ER_UNKNOWN_TABLE || code == ER_NO_DB_ERROR)) {
            /* a statement naming what does not exist fails at PREPARE, as in MariaDB */
            int r = diag_push_msg(x->diag, DIAG_ERROR, code, scratch.error->msg);
            diag_free(&scratch);
            *cols = NULL;
            *ncols = 0;
            return r;
        }
        diag_free(&scratch);
        if (rc) {
            *cols = NULL;
            *ncols = 0;
        }
    }
    return 0;
}
