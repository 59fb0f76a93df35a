/*
 * Table access over the engine: inserts with unique checks, updates that move index entries, deletes, point
 * reads, range scans, AUTO_INCREMENT, and storing SQL values into typed columns.
 * Layouts of the trees are in table.h; the key and row formats in rowcodec.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "sql/value/store.h"
#include "access/stats.h"
#include "access/table.h"
#include "access/binrow.h"
#include "access/fk.h"
#include "sql/value/tz.h"
#include "util/util.h"

static engine_t *g_engine;

void table_set_engine(engine_t *e) { g_engine = e; }

/* The latest version of a row (writes act on it, under the row's lock), not the read view's. */
static int get_latest(engine_trx_t *x, engine_tree_id_t tree, const void *key, size_t klen, buf_t *out)
{
    if (g_engine) {
        buf_reset(out);
        return engine_get_e(g_engine, tree, key, klen, out);
    }
    return engine_get(x, tree, key, klen, out);
}

/* ---------------------------------------------------------------- errors */

int table_engine_err(diag_t *d, const cat_table_t *t, int rc)
{
    switch (rc) {
    case ENGINE_EFULL: return diag_error(d, ER_RECORD_FILE_FULL, t ? t->name : "?");
    case STRATA_ECORRUPT:
        /* A page of the table failed its checks (the engine's line before this one names it): this table errors,
         * every other one is served, as MariaDB does with a corrupted InnoDB page. */
        log_error("table '%s.%s' is damaged on disk; its reads and writes fail with 1877 until it is dropped or "
                  "restored (strata-check lists every damaged page; docs/faults.md)",
                  t ? t->db : "?", t ? t->name : "?");
        return diag_error(d, ER_TABLE_CORRUPT, t ? t->db : "?", t ? t->name : "?");
    case ENGINE_ELOCKWAIT: return diag_error(d, ER_LOCK_WAIT_TIMEOUT);
    /* innodb_force_recovery / innodb_read_only: MariaDB's answer for a change to an InnoDB table then */
    case ENGINE_EREADONLY: return diag_error(d, ER_OPEN_AS_READONLY, t ? t->name : "?");
    case ENGINE_EDEADLOCK: return diag_error(d, ER_LOCK_DEADLOCK);
    case ENGINE_EINTR: return diag_error(d, ER_QUERY_INTERRUPTED);
    /* A data or undo file that cannot grow for a full disk: MariaDB's InnoDB says the table is full (1114). */
    case ENGINE_ENOSPC: return diag_error(d, ER_RECORD_FILE_FULL, t ? t->name : "?");
    case ENGINE_ELOGFULL:
        /* As MySQL Cluster reports running out of undo space (its temporary error 1501 through 1297). */
        return diag_push_msg(d, DIAG_ERROR, 1297,
                             "Got temporary error 1501 'Out of undo space: the transaction's undo exceeds its logfile "
                             "group's undo file (or strata's bound for the default one); commit in smaller "
                             "transactions or CREATE LOGFILE GROUP with a larger UNDOFILE' from InnoDB");
    default: {
        /* An operating-system error (EIO, ENOSPC of a file that does not grow...): MariaDB's 1030 with the errno. */
        if (rc == -ENOSPC || rc == -EDQUOT)
            return diag_error(d, ER_DISK_FULL, t ? t->name : "?", -rc, strerror(-rc));
        if (rc < 0 && rc > -4096)
            return diag_error(d, ER_GET_ERRNO, -rc, strerror(-rc), "InnoDB");
        char msg[128];
        snprintf(msg, sizeof msg, "Got error %d from storage engine", rc);
        return diag_push_msg(d, DIAG_ERROR, ER_UNKNOWN_ERROR, msg);
    }
    }
}

/* ---------------------------------------------------------------- keys */

rc_col_t table_index_rc(const cat_table_t *t, uint32_t ix, uint32_t i)
{
    const cat_index_col_t *ic = &t->idx[ix].cols[i];
    rc_col_t rc = t->cols[ic->col].rc;
    rc.prefix = ic->prefix;
    if (t->idx[ix].kind == CAT_IDX_PRIMARY)
        rc.nullable = false;
    return rc;
}

int table_pk_key(const cat_table_t *t, const value_t *row, uint64_t rowid, buf_t *key)
{
    buf_reset(key);
    if (!t->has_pk) {
        for (int i = 7; i >= 0; i--)
            buf_append_byte(key, (uint8_t)(rowid >> (8 * i)));
        return 0;
    }
    for (uint32_t i = 0; i < t->idx[0].ncols; i++) {
        rc_col_t rc = table_index_rc(t, 0, i);
        if (rc_key_append(key, &rc, &row[t->idx[0].cols[i].col]) < 0)
            return -1;
    }
    return 0;
}

/* Index columns only (the unique prefix); *has_null when one of them is NULL. */
static int index_prefix(const cat_table_t *t, uint32_t ix, const value_t *row, buf_t *key, bool *has_null)
{
    buf_reset(key);
    *has_null = false;
    for (uint32_t i = 0; i < t->idx[ix].ncols; i++) {
        const value_t *v = &row[t->idx[ix].cols[i].col];
        if (v->type == VAL_NULL)
            *has_null = true;
        rc_col_t rc = table_index_rc(t, ix, i);
        if (rc_key_append(key, &rc, v) < 0)
            return -1;
    }
    return 0;
}

/* ---- the session time zone (sql/value/tz.h): rows are kept with TIMESTAMPs in the system zone; the SQL layer sees
 * them in @@time_zone.  table_decode converts after decoding; the public writers convert a copy before encoding. */
static bool has_timestamp(const cat_table_t *t)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (t->cols[i].rc.type == SQLT_TIMESTAMP)
            return true;
    return false;
}

/* row in the system zone: row itself, or *tmp (allocated; the caller frees it) */
static const value_t *row_sys(const cat_table_t *t, const value_t *row, value_t **tmp)
{
    *tmp = NULL;
    if (!row || !sql_tz_active() || !has_timestamp(t))
        return row;
    *tmp = mem_alloc(sizeof **tmp * t->ncols);
    memcpy(*tmp, row, sizeof **tmp * t->ncols);
    for (uint32_t i = 0; i < t->ncols; i++)
        if (t->cols[i].rc.type == SQLT_TIMESTAMP && row[i].type != VAL_NULL)
            sql_tz_to_system(&(*tmp)[i].t);
    return *tmp;
}

/* a decoded row (or an index entry's columns) from the system zone to @@time_zone, in place */
static void row_from_sys(const cat_table_t *t, value_t *row)
{
    if (!sql_tz_active())
        return;
    for (uint32_t i = 0; i < t->ncols; i++)
        if (t->cols[i].rc.type == SQLT_TIMESTAMP && row[i].type != VAL_NULL)
            sql_tz_from_system(&row[i].t);
}

static int index_key_raw(const cat_table_t *t, uint32_t ix, const value_t *row, const buf_t *pk, buf_t *key)
{
    bool hn;
    if (index_prefix(t, ix, row, key, &hn) < 0)
        return -1;
    buf_append(key, pk->data, pk->len);
    return 0;
}

int table_index_key(const cat_table_t *t, uint32_t ix, const value_t *row, const buf_t *pk, buf_t *key)
{
    value_t *tmp;
    int rc = index_key_raw(t, ix, row_sys(t, row, &tmp), pk, key);
    mem_free(tmp);
    return rc;
}

/* Length of the index-column part of a secondary entry. */
static int index_prefix_len(const cat_table_t *t, uint32_t ix, const uint8_t *k, size_t n)
{
    size_t off = 0;
    for (uint32_t i = 0; i < t->idx[ix].ncols; i++) {
        rc_col_t rc = table_index_rc(t, ix, i);
        int l = rc_key_skip(&rc, k + off, n - off);
        if (l < 0)
            return -1;
        off += (size_t)l;
    }
    return (int)off;
}

/* "Duplicate entry '1-abc' for key 'k'" */
static int dup_error(diag_t *d, const cat_table_t *t, uint32_t ix, const value_t *row)
{
    buf_t b;
    buf_init(&b);
    for (uint32_t i = 0; i < t->idx[ix].ncols; i++) {
        const cat_index_col_t *ic = &t->idx[ix].cols[i];
        if (i)
            buf_append_byte(&b, '-');
        value_t v = row[ic->col];
        if (v.type == VAL_NULL) {
            buf_append_str(&b, "NULL");
            continue;
        }
        const cat_column_t *c = &t->cols[ic->col];
        if (c->rc.type == SQLT_ENUM || c->rc.type == SQLT_SET) {
            arena_t a;
            arena_init(&a, 256);
            value_t o = table_value_out(c, &v, &a);
            value_append_text(&b, &o);
            arena_destroy(&a);
        } else if (v.type == VAL_STRING && v.coll != COLL_BINARY && value_coll_mbmaxlen(v.coll) == 1) {
            /* the message is UTF-8: a latin1 value is converted ('æ', not its byte E6) */
            arena_t a;
            arena_init(&a, 256);
            size_t n, bad;
            const char *u = sql_str_convert(&a, v.s.ptr, v.s.len, v.coll, COLL_UTF8MB4_GENERAL_CI, &n, &bad);
            buf_append(&b, u, n);
            arena_destroy(&a);
        } else {
            value_append_text(&b, &v);
        }
    }
    if (b.len > 64)
        b.len = 64;
    buf_append_byte(&b, 0);
    int rc = diag_error(d, ER_DUP_ENTRY, (const char *)b.data, t->idx[ix].name);
    buf_free(&b);
    return rc;
}

/* Does a unique index hold another row with this prefix?  0 no, 1 yes (its PK in dup_pk), < 0 error. */
static int unique_probe(engine_trx_t *x, const cat_table_t *t, uint32_t ix, const buf_t *prefix, const buf_t *self_pk,
                        buf_t *dup_pk)
{
    /* under the prefix lock the latest entries decide, not this trx's read view: a READ UNCOMMITTED probe */
    engine_trx_t *probe = NULL;
    if (g_engine && engine_trx_begin(g_engine, &probe) == 0)
        engine_trx_set_isolation(probe, ENGINE_ISO_READ_UNCOMMITTED);
    else
        probe = NULL;
    engine_cursor_t *cur;
    int rc = engine_cursor_open(probe ? probe : x, t->idx[ix].tree, &cur);
    if (rc) {
        if (probe)
            engine_trx_rollback(probe);
        return rc;
    }
    int found = 0;
    rc = engine_cursor_seek(cur, prefix->data, prefix->len, ENGINE_SEEK_GE);
    while (rc == 0) {
        size_t kl;
        const uint8_t *k = engine_cursor_key(cur, &kl);
        if (kl < prefix->len || memcmp(k, prefix->data, prefix->len) != 0)
            break;
        size_t pl = kl - prefix->len;
        if (self_pk && pl == self_pk->len && memcmp(k + prefix->len, self_pk->data, pl) == 0) {
            rc = engine_cursor_next(cur);
            continue;
        }
        if (dup_pk) {
            buf_reset(dup_pk);
            buf_append(dup_pk, k + prefix->len, pl);
        }
        found = 1;
        break;
    }
    engine_cursor_close(cur);
    if (probe)
        engine_trx_rollback(probe);
    if (rc && rc != STRATA_ENOTFOUND)
        return rc;
    return found;
}

static int report_dup(diag_t *d, const cat_table_t *t, uint32_t ix, const value_t *row, table_dup_t *dup,
                      const buf_t *pk)
{
    if (dup) {
        dup->index = (int)ix;
        if (pk && pk != &dup->pk) {
            buf_reset(&dup->pk);
            buf_append(&dup->pk, pk->data, pk->len);
        }
        return TABLE_DUP;
    }
    return dup_error(d, t, ix, row);
}

/* ---------------------------------------------------------------- rows */

static int encode_row(const cat_table_t *t, const value_t *row, buf_t *out)
{
    rc_col_t cols[t->ncols ? t->ncols : 1];
    for (uint32_t i = 0; i < t->ncols; i++)
        cols[i] = t->cols[i].rc;
    buf_reset(out);
    return rc_row_encode(out, cols, t->ncols, row);
}

int table_decode(const cat_table_t *t, const void *p, size_t n, value_t *row)
{
    rc_col_t cols[t->ncols ? t->ncols : 1];
    for (uint32_t i = 0; i < t->ncols; i++)
        cols[i] = t->cols[i].rc;
    uint32_t ns;
    int rc = rc_row_decode(p, n, cols, t->ncols, row, &ns);
    if (rc)
        CORRUPT("table %s.%s: undecodable row", t->db, t->name);
    else
        row_from_sys(t, row);
    return rc;
}

/*
 * The change is made: its row images go to the binlog row log.  The row encoder refuses only values that
 * sql_value_store() never produces (a NULL in a NOT NULL column, DECIMAL text out of its precision, a string
 * longer than its column), so a refusal is a bug in the SQL layer: a defensive branch, logged, and the
 * statement fails instead of committing a row the binlog does not have.
 */
static int log_row(table_stmt_t *u, diag_t *d, int kind, const cat_table_t *t, const value_t *a, const value_t *b)
{
    if (!u || !u->bl)
        return 0;
    int rc = kind == 0 ? binrow_insert(u->bl, t, a) : kind == 1 ? binrow_update(u->bl, t, a, b) : binrow_delete(u->bl, t, a);
    if (rc == 0)
        return 0;
    if (rc == BINLOG_ECACHEFULL) /* max_binlog_cache_size: the statement fails, the transaction goes on */
        return diag_error(d, ER_TRANS_CACHE_FULL);
    if (rc == BINLOG_ECACHEWRITE) {
        int e = binrow_cache_errno(u->bl);
        return diag_error(d, ER_ERROR_ON_WRITE, binlog_trx_tmpdir(), e, strerror(e));
    }
    if (!NEVER(rc != 0))
        return 0;
    log_error("executor: the row encoder refused a row of %s.%s (%d)", t->db, t->name, rc);
    char msg[200];
    snprintf(msg, sizeof msg, "a row of %s.%s cannot be written in the row format", t->db, t->name);
    return diag_error(d, ER_BINLOG_LOGGING_IMPOSSIBLE, msg);
}

static int insert_sys(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d,
                      table_dup_t *dup)
{
    uint64_t mark = engine_trx_savepoint(x);
    buf_t pk, key, val, other;
    buf_init(&pk);
    buf_init(&key);
    buf_init(&val);
    buf_init(&other);
    int rc = 0;
    uint64_t rowid = t->has_pk ? 0 : atomic_fetch_add(&t->ctr->row_id, 1);
    if (table_pk_key(t, row, rowid, &pk) < 0) {
        rc = diag_error(d, ER_UNKNOWN_ERROR);
        goto out;
    }
    /* unique secondary indexes first: nothing is written when one conflicts */
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        if (t->idx[ix].kind != CAT_IDX_UNIQUE)
            continue;
        bool hn;
        if (index_prefix(t, ix, row, &key, &hn) < 0) {
            rc = diag_error(d, ER_UNKNOWN_ERROR);
            goto out;
        }
        if (hn)
            continue;
        /* the value's lock serialises concurrent inserts of it (the probe alone would let both in) */
        if ((rc = engine_lock_row(x, t->idx[ix].tree, key.data, key.len)) != 0) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        rc = unique_probe(x, t, ix, &key, NULL, dup ? &dup->pk : NULL);
        if (rc < 0) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        if (rc == 1) {
            rc = report_dup(d, t, ix, row, dup, NULL);
            goto out;
        }
    }
    encode_row(t, row, &val);
    rc = engine_insert(x, t->tree, pk.data, pk.len, val.data, val.len);
    if (rc == ENGINE_EDUPKEY) {
        rc = report_dup(d, t, 0, row, dup, &pk);
        goto out;
    }
    if (rc) {
        rc = table_engine_err(d, t, rc);
        goto out;
    }
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        index_key_raw(t, ix, row, &pk, &key);
        rc = engine_insert(x, t->idx[ix].tree, key.data, key.len, "", 0);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
    }
    /* the row's parents, before its image is logged: a row without one is taken out again (INSERT IGNORE goes on) */
    if (u && u->fk && (rc = fk_after_insert(x, t, row, u, d)) != 0) {
        engine_trx_rollback_to(x, mark);
        goto out;
    }
    rc = log_row(u, d, 0, t, row, NULL);
out:
    buf_free(&pk);
    buf_free(&key);
    buf_free(&val);
    buf_free(&other);
    return rc;
}

static bool same_value(const value_t *a, const value_t *b)
{
    if (a->type == VAL_NULL || b->type == VAL_NULL)
        return a->type == b->type;
    if (a->type == VAL_STRING && b->type == VAL_STRING)
        return a->s.len == b->s.len && memcmp(a->s.ptr, b->s.ptr, a->s.len) == 0;
    return value_compare(a, b, NULL) == 0 && a->type == b->type;
}

/* update_sys / delete_sys make the change and set *wrote; the caller logs the row images once the change's
 * foreign keys are settled (a row that IGNORE takes back is never logged). */
static int update_sys(engine_trx_t *x, const cat_table_t *t, const buf_t *oldpk, const value_t *old,
                      const value_t *nw, table_stmt_t *u, diag_t *d, table_dup_t *dup, bool *wrote)
{
    buf_t pk, okey, nkey, val, oldval;
    buf_init(&pk);
    buf_init(&okey);
    buf_init(&nkey);
    buf_init(&val);
    buf_init(&oldval);
    int rc = 0;
    uint64_t rowid = 0;
    bool changed[t->nidx ? t->nidx : 1];
    if (!t->has_pk) {
        buf_append(&pk, oldpk->data, oldpk->len);
    } else if (table_pk_key(t, nw, rowid, &pk) < 0) {
        rc = diag_error(d, ER_UNKNOWN_ERROR);
        goto out;
    }
    bool pk_moved = pk.len != oldpk->len || memcmp(pk.data, oldpk->data, pk.len) != 0;
    for (uint32_t ix = 0; ix < t->nidx; ix++) {
        changed[ix] = pk_moved;
        for (uint32_t i = 0; i < t->idx[ix].ncols && !changed[ix]; i++)
            changed[ix] = !same_value(&old[t->idx[ix].cols[i].col], &nw[t->idx[ix].cols[i].col]);
    }
    /* unique checks before any write */
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        if (t->idx[ix].kind != CAT_IDX_UNIQUE || !changed[ix])
            continue;
        bool hn;
        index_prefix(t, ix, nw, &nkey, &hn);
        if (hn)
            continue;
        int r = engine_lock_row(x, t->idx[ix].tree, nkey.data, nkey.len);
        if (r == 0)
            r = unique_probe(x, t, ix, &nkey, oldpk, dup ? &dup->pk : NULL);
        if (r < 0) {
            rc = table_engine_err(d, t, r);
            goto out;
        }
        if (r == 1) {
            rc = report_dup(d, t, ix, nw, dup, NULL);
            goto out;
        }
    }
    rc = get_latest(x, t->tree, oldpk->data, oldpk->len, &oldval);
    if (rc) {
        rc = rc == STRATA_ENOTFOUND ? 0 : table_engine_err(d, t, rc);
        goto out;
    }
    encode_row(t, nw, &val);
    if (pk_moved) {
        rc = engine_insert(x, t->tree, pk.data, pk.len, val.data, val.len);
        if (rc == ENGINE_EDUPKEY) {
            rc = report_dup(d, t, 0, nw, dup, &pk);
            goto out;
        }
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        rc = engine_delete(x, t->tree, oldpk->data, oldpk->len);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
    } else {
        rc = engine_update(x, t->tree, pk.data, pk.len, val.data, val.len);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
    }
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        if (!changed[ix])
            continue;
        index_key_raw(t, ix, old, oldpk, &okey);
        index_key_raw(t, ix, nw, &pk, &nkey);
        if (okey.len == nkey.len && memcmp(okey.data, nkey.data, okey.len) == 0)
            continue; /* equal under the collation: the entry stays */
        rc = engine_delete(x, t->idx[ix].tree, okey.data, okey.len);
        if (rc && rc != STRATA_ENOTFOUND) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        if (rc == 0)
        rc = engine_insert(x, t->idx[ix].tree, nkey.data, nkey.len, "", 0);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
    }
    *wrote = true;
out:
    buf_free(&pk);
    buf_free(&okey);
    buf_free(&nkey);
    buf_free(&val);
    buf_free(&oldval);
    return rc;
}

static int delete_sys(engine_trx_t *x, const cat_table_t *t, const buf_t *pk, const value_t *row, table_stmt_t *u,
                      diag_t *d, bool *wrote)
{
    buf_t key, oldval;
    buf_init(&key);
    buf_init(&oldval);
    int rc = get_latest(x, t->tree, pk->data, pk->len, &oldval);
    if (rc == 0)
        rc = engine_delete(x, t->tree, pk->data, pk->len);
    if (rc) {
        rc = rc == STRATA_ENOTFOUND ? 0 : table_engine_err(d, t, rc);
        goto out;
    }
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        index_key_raw(t, ix, row, pk, &key);
        rc = engine_delete(x, t->idx[ix].tree, key.data, key.len);
        if (rc == STRATA_ENOTFOUND) {
            log_warn("table %s.%s: index %s lacks an entry for a row being deleted", t->db, t->name, t->idx[ix].name);
            rc = 0;
            continue;
        }
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
    }
    *wrote = true;
out:
    buf_free(&key);
    buf_free(&oldval);
    return rc;
}

int table_insert(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d,
                 table_dup_t *dup)
{
    value_t *tmp;
    int rc = insert_sys(x, t, row_sys(t, row, &tmp), u, d, dup);
    mem_free(tmp);
    if (rc == 0)
        stats_note_change(t);
    return rc;
}

/* A change IGNORE refused on a foreign key (fk.h FK_IGNORE_*): the row's changes, cascades included, go back. */
static int fk_settled(engine_trx_t *x, uint64_t mark, int rc)
{
    if (rc == TABLE_FK_IGNORED)
        engine_trx_rollback_to(x, mark);
    return rc;
}

int table_update(engine_trx_t *x, const cat_table_t *t, const buf_t *oldpk, const value_t *old, const value_t *nw,
                 table_stmt_t *u, diag_t *d, table_dup_t *dup)
{
    value_t *t1, *t2;
    uint64_t mark = engine_trx_savepoint(x);
    bool wrote = false;
    const value_t *o = row_sys(t, old, &t1), *n = row_sys(t, nw, &t2);
    int rc = update_sys(x, t, oldpk, o, n, u, d, dup, &wrote);
    if (rc == 0 && u && u->fk)
        rc = fk_settled(x, mark, fk_after_update(x, t, old, nw, u, d));
    if (rc == 0 && wrote) {
        rc = log_row(u, d, 1, t, o, n);
        stats_note_change(t);
    }
    mem_free(t1);
    mem_free(t2);
    return rc;
}

int table_delete(engine_trx_t *x, const cat_table_t *t, const buf_t *pk, const value_t *row, table_stmt_t *u, diag_t *d)
{
    value_t *tmp;
    uint64_t mark = engine_trx_savepoint(x);
    bool wrote = false;
    const value_t *r = row_sys(t, row, &tmp);
    int rc = delete_sys(x, t, pk, r, u, d, &wrote);
    if (rc == 0 && u && u->fk)
        rc = fk_settled(x, mark, fk_after_delete(x, t, row, u, d));
    if (rc == 0 && wrote) {
        rc = log_row(u, d, 2, t, r, NULL);
        stats_note_change(t);
    }
    mem_free(tmp);
    return rc;
}

int table_get_latest(engine_trx_t *x, const cat_table_t *t, const void *pk, size_t pklen, buf_t *store, value_t *row)
{
    int rc = get_latest(x, t->tree, pk, pklen, store);
    if (rc)
        return rc;
    return table_decode(t, store->data, store->len, row);
}

int table_get(engine_trx_t *x, const cat_table_t *t, const void *pk, size_t pklen, buf_t *store, value_t *row)
{
    int rc = engine_get(x, t->tree, pk, pklen, store);
    if (rc)
        return rc;
    return table_decode(t, store->data, store->len, row);
}

/* ---------------------------------------------------------------- scans */

int table_scan_open(table_scan_t *s, engine_trx_t *x, const cat_table_t *t, int index, const buf_t *lo,
                    const buf_t *hi, bool desc, arena_t *a)
{
    memset(s, 0, sizeof *s);
    s->x = x;
    s->t = t;
    s->index = index >= 0 && t->idx[index].kind == CAT_IDX_PRIMARY ? -1 : index;
    s->desc = desc;
    buf_init(&s->lo);
    buf_init(&s->hi);
    buf_init(&s->pk);
    buf_init(&s->rowbuf);
    if (lo) {
        buf_append(&s->lo, lo->data, lo->len);
        s->has_lo = true;
    }
    if (hi) {
        buf_append(&s->hi, hi->data, hi->len);
        s->has_hi = true;
    }
    s->row = arena_calloc(a, sizeof(value_t) * (t->ncols + 1));
    engine_tree_id_t tree = s->index < 0 ? t->tree : t->idx[s->index].tree;
    return engine_cursor_open(x, tree, &s->cur);
}

static int prefix_cmp(const uint8_t *k, size_t kl, const buf_t *p)
{
    size_t n = MIN(kl, p->len);
    int r = memcmp(k, p->data, n);
    if (r)
        return r;
    return kl < p->len ? -1 : 0; /* a key longer than the prefix but equal on it counts as equal */
}

static bool index_col_decodable(const cat_table_t *t, uint32_t ix, uint32_t i)
{
    rc_col_t rc = table_index_rc(t, ix, i);
    return !t->idx[ix].cols[i].prefix && rc_key_decodable(&rc);
}

bool table_index_covers(const cat_table_t *t, uint32_t ix, const bool *need)
{
    if (!need || ix >= t->nidx || t->idx[ix].kind == CAT_IDX_PRIMARY)
        return false;
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (!need[c])
            continue;
        bool found = false;
        for (uint32_t i = 0; i < t->idx[ix].ncols && !found; i++)
            found = t->idx[ix].cols[i].col == c && index_col_decodable(t, ix, i);
        for (uint32_t i = 0; t->has_pk && i < t->idx[0].ncols && !found; i++)
            found = t->idx[0].cols[i].col == c && index_col_decodable(t, 0, i);
        if (!found)
            return false;
    }
    return true;
}

bool table_scan_covering(table_scan_t *s, const bool *need)
{
    s->covering = !s->locking && s->index >= 0 && table_index_covers(s->t, (uint32_t)s->index, need);
    return s->covering;
}

/* Decodes the columns of index ix found in key k (n bytes) into row; *used receives the key's length. */
static int index_entry_decode(const cat_table_t *t, uint32_t ix, const uint8_t *k, size_t n, value_t *row,
                              size_t *used)
{
    size_t off = 0;
    for (uint32_t i = 0; i < t->idx[ix].ncols; i++) {
        rc_col_t rc = table_index_rc(t, ix, i);
        int l = index_col_decodable(t, ix, i) ? rc_key_decode(&rc, k + off, n - off, &row[t->idx[ix].cols[i].col])
                                              : rc_key_skip(&rc, k + off, n - off);
        if (l < 0)
            return STRATA_ECORRUPT;
        off += (size_t)l;
    }
    *used = off;
    return 0;
}

int table_scan_lock(table_scan_t *s, engine_lock_mode_t mode, bool unique)
{
    s->locking = true;
    return engine_cursor_lock(s->cur, mode, s->has_lo ? s->lo.data : NULL, s->has_lo ? s->lo.len : 0,
                              s->has_hi ? s->hi.data : NULL, s->has_hi ? s->hi.len : 0, unique);
}

/* Positions on the first row (ascending: first key >= lo; descending: last key whose prefix <= hi). */
static int scan_first(table_scan_t *s)
{
    if (!s->desc)
        return s->has_lo && s->lo.len ? engine_cursor_seek(s->cur, s->lo.data, s->lo.len, ENGINE_SEEK_GE)
                                      : engine_cursor_first(s->cur);
    if (!s->has_hi || !s->hi.len)
        return engine_cursor_last(s->cur);
    /* the successor of the prefix: bump the last byte below 0xFF */
    buf_t succ;
    buf_init(&succ);
    buf_append(&succ, s->hi.data, s->hi.len);
    while (succ.len && succ.data[succ.len - 1] == 0xFF)
        succ.len--;
    int rc;
    if (!succ.len) {
        rc = engine_cursor_last(s->cur);
    } else {
        succ.data[succ.len - 1]++;
        rc = engine_cursor_seek(s->cur, succ.data, succ.len, ENGINE_SEEK_LT);
    }
    buf_free(&succ);
    return rc;
}

int table_scan_next(table_scan_t *s)
{
    if (s->state == TSCAN_DONE)
        return STRATA_ENOTFOUND;
    int rc = s->state == TSCAN_NEW ? scan_first(s) : s->desc ? engine_cursor_prev(s->cur) : engine_cursor_next(s->cur);
    s->state = TSCAN_ON_ROW;
    if (rc)
        goto end;
    size_t kl, vl;
    const uint8_t *k = engine_cursor_key(s->cur, &kl);
    if (!s->desc && s->has_hi && s->hi.len && prefix_cmp(k, kl, &s->hi) > 0) {
        rc = STRATA_ENOTFOUND;
        goto end;
    }
    if (s->desc && s->has_lo && s->lo.len && prefix_cmp(k, kl, &s->lo) < 0) {
        rc = STRATA_ENOTFOUND;
        goto end;
    }
    const cat_table_t *t = s->t;
    buf_reset(&s->pk);
    if (s->index < 0) {
        buf_append(&s->pk, k, kl);
        const void *v = engine_cursor_value(s->cur, &vl);
        buf_reset(&s->rowbuf);
        buf_append(&s->rowbuf, v, vl);
    } else {
        int pl = index_prefix_len(t, (uint32_t)s->index, k, kl);
        if (pl < 0) {
            CORRUPT("table %s.%s: bad entry in index %s", t->db, t->name, t->idx[s->index].name);
            rc = STRATA_ECORRUPT;
            goto end;
        }
        buf_append(&s->pk, k + pl, kl - (size_t)pl);
        if (s->covering) {
            /* index-only: the entry's own columns and the primary key's (the bytes are kept in rowbuf) */
            buf_reset(&s->rowbuf);
            buf_append(&s->rowbuf, k, kl);
            for (uint32_t c = 0; c < t->ncols; c++)
                s->row[c] = value_null();
            size_t used;
            rc = index_entry_decode(t, (uint32_t)s->index, s->rowbuf.data, kl, s->row, &used);
            if (rc == 0 && t->has_pk)
                rc = index_entry_decode(t, 0, s->rowbuf.data + pl, kl - (size_t)pl, s->row, &used);
            if (rc) {
                CORRUPT("table %s.%s: bad entry in index %s", t->db, t->name, t->idx[s->index].name);
                goto end;
            }
            row_from_sys(t, s->row); /* TIMESTAMPs in @@time_zone, as table_decode gives them */
            s->fetched++;
            return 0;
        }
        rc = s->locking ? get_latest(s->x, t->tree, s->pk.data, s->pk.len, &s->rowbuf)
                        : engine_get(s->x, t->tree, s->pk.data, s->pk.len, &s->rowbuf);
        if (rc == STRATA_ENOTFOUND) {
            CORRUPT("table %s.%s: index %s names a missing row", t->db, t->name, t->idx[s->index].name);
            rc = STRATA_ECORRUPT;
        }
        if (rc)
            goto end;
    }
    rc = table_decode(t, s->rowbuf.data, s->rowbuf.len, s->row);
    if (rc)
        goto end;
    s->fetched++;
    return 0;
end:
    s->state = TSCAN_DONE;
    return rc;
}

void table_scan_close(table_scan_t *s)
{
    if (s->cur)
        engine_cursor_close(s->cur);
    s->cur = NULL;
    buf_free(&s->lo);
    buf_free(&s->hi);
    buf_free(&s->pk);
    buf_free(&s->rowbuf);
}

/* ---------------------------------------------------------------- AUTO_INCREMENT */

uint64_t table_autoinc_next(const cat_table_t *t) { return atomic_fetch_add(&t->ctr->auto_inc, 1); }

void table_autoinc_seen(const cat_table_t *t, uint64_t v)
{
    uint64_t cur = atomic_load(&t->ctr->auto_inc);
    while (v >= cur && v != UINT64_MAX) {
        if (atomic_compare_exchange_weak(&t->ctr->auto_inc, &cur, v + 1))
            break;
    }
}

void table_autoinc_set(const cat_table_t *t, uint64_t v) { atomic_store(&t->ctr->auto_inc, v); }

/* ---------------------------------------------------------------- storing values */

/* The front end's sql_type_t of a catalog column, for sql_value_store (store.h). */
static void col_sql_type(const cat_column_t *c, sql_type_t *ty, arena_t *a)
{
    sqlt_t st = (sqlt_t)c->rc.type;
    memset(ty, 0, sizeof *ty);
    ty->kind = (sql_type_kind_t)(st - 1); /* the two enums list the types in the same order */
    ty->is_unsigned = c->rc.is_unsigned;
    ty->zerofill = c->zerofill;
    ty->coll = c->rc.coll;
    ty->scale = c->rc.scale;
    if (sqlt_is_int(st))
        ty->len = (int32_t)c->display_width;
    else if (st == SQLT_FLOAT || st == SQLT_DOUBLE) {
        ty->len = c->rc.len ? (int32_t)c->rc.len : -1;
        ty->scale = c->rc.len ? c->rc.scale : -1;
    } else if (st >= SQLT_TINYTEXT && st <= SQLT_LONGBLOB)
        ty->len = -1;
    else
        ty->len = (int32_t)c->rc.len;
    if (st == SQLT_YEAR)
        ty->len = 4;
    if (c->nelems) {
        ty->elems = c->elems;
        ty->nelems = c->nelems;
        uint32_t *l = arena_alloc(a, sizeof(uint32_t) * c->nelems);
        for (uint32_t i = 0; i < c->nelems; i++)
            l[i] = (uint32_t)strlen(c->elems[i]);
        ty->elem_lens = l;
    }
}

int table_value_store(const cat_table_t *t, uint32_t col, const value_t *v, value_t *out, arena_t *a, diag_t *d,
                      bool strict, uint64_t row)
{
    const cat_column_t *c = &t->cols[col];
    sql_type_t ty;
    col_sql_type(c, &ty, a);
    sql_store_col_t sc = {.type = &ty, .not_null = !c->rc.nullable, .coll = c->rc.coll, .name = c->name,
                          .db = t->db, .table = t->name};
    int rc = sql_value_store(a, &sc, v, strict, row, d, out);
    if (rc || out->type == VAL_NULL)
        return rc;
    /* the row format keeps ENUM by index and SET by mask */
    if (c->rc.type == SQLT_ENUM && out->type == VAL_STRING)
        *out = value_uint(sql_enum_index(&ty, out->s.ptr, out->s.len));
    else if (c->rc.type == SQLT_SET && out->type == VAL_STRING)
        *out = value_uint(sql_set_mask(&ty, out->s.ptr, out->s.len));
    return 0;
}

int table_value_default(const cat_column_t *c, value_t *out, arena_t *a, diag_t *d, bool strict)
{
    switch (c->def) {
    case CAT_DEF_VALUE:
        if (c->rc.type == SQLT_BIT) { /* kept as the number's text ("5" for b'101') */
            *out = value_uint(strtoull(c->default_text, NULL, 10));
            return 0;
        }
        *out = value_str(c->default_text, strlen(c->default_text), COLL_DEFAULT);
        return 0;
    case CAT_DEF_NOW: {
        uint64_t us = time_wall_us();
        time_t sec = (time_t)(us / 1000000);
        struct tm tm;
        if (sql_tz_active()) { /* the session's @@time_zone (sql/value/tz.h): the row is converted when written */
            sec += sql_tz_offset_now();
            gmtime_r(&sec, &tm);
        } else {
            localtime_r(&sec, &tm);
        }
        value_t v = {.type = VAL_DATETIME};
        v.t.year = (uint32_t)tm.tm_year + 1900;
        v.t.month = (uint32_t)tm.tm_mon + 1;
        v.t.day = (uint32_t)tm.tm_mday;
        v.t.hour = (uint32_t)tm.tm_hour;
        v.t.minute = (uint32_t)tm.tm_min;
        v.t.second = (uint32_t)tm.tm_sec;
        /* NOW(n): the precision stored with the default (catalog.h), the rest of the second cut off */
        unsigned fsp = c->default_text && c->default_text[0] >= '1' && c->default_text[0] <= '6'
                           ? (unsigned)(c->default_text[0] - '0') : 0;
        uint32_t unit = 1;
        for (unsigned i = fsp; i < 6; i++)
            unit *= 10;
        v.t.usec = (uint32_t)(us % 1000000) / unit * unit;
        v.dec = (uint8_t)fsp;
        *out = v;
        return 0;
    }
    case CAT_DEF_NULL:
        *out = value_null();
        return 0;
    default:
        break;
    }
    if (c->rc.nullable || c->auto_increment) {
        *out = value_null();
        return 0;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "Field '%s' doesn't have a default value", c->name);
    if (strict)
        return diag_push_msg(d, DIAG_ERROR, 1364, msg);
    diag_push_msg(d, DIAG_WARNING, 1364, msg);
    sql_type_t ty;
    col_sql_type(c, &ty, a);
    *out = sql_type_implicit_default(&ty, c->rc.coll);
    (void)a;
    return 0;
}

value_t table_value_out(const cat_column_t *c, const value_t *v, arena_t *a)
{
    if (v->type == VAL_NULL)
        return *v;
    sqlt_t ty = (sqlt_t)c->rc.type;
    if (ty == SQLT_ENUM) {
        uint64_t i = v->type == VAL_UINT ? v->u : (uint64_t)v->i;
        const char *s = i >= 1 && i <= c->nelems ? c->elems[i - 1] : "";
        value_t r = value_str(s, strlen(s), c->rc.coll);
        r.dec = VAL_DEC_ENUM;
        r.s.num = i;
        return r;
    }
    if (ty == SQLT_SET) {
        uint64_t m = v->type == VAL_UINT ? v->u : (uint64_t)v->i;
        buf_t b;
        buf_init(&b);
        for (uint32_t k = 0; k < c->nelems && k < 64; k++)
            if (m & (1ull << k)) {
                if (b.len)
                    buf_append_byte(&b, ',');
                buf_append_str(&b, c->elems[k]);
            }
        char *s = arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
        value_t r = value_str(s, b.len, c->rc.coll);
        r.dec = VAL_DEC_ENUM;
        r.s.num = m;
        buf_free(&b);
        return r;
    }
    if (ty == SQLT_FLOAT && v->type == VAL_DOUBLE) {
        /* the float's exact value (0.1 is 0.10000000149011612 in arithmetic and comparisons, as in MariaDB);
         * a plain FLOAT column still shows 6 significant digits (VAL_DEC_FLOAT) */
        value_t r = value_double((double)(float)v->d);
        r.dec = v->dec && v->dec < VAL_DEC_NOT_FIXED ? v->dec : c->rc.scale ? c->rc.scale : VAL_DEC_FLOAT;
        return r;
    }
    if (ty == SQLT_YEAR) {
        if ((v->type == VAL_UINT || v->type == VAL_INT) && v->i == 0)
            return value_str("0000", 4, COLL_DEFAULT); /* YEAR 0 shows as 0000 */
        return *v;
    }
    if (c->zerofill && sqlt_is_int(ty) && (v->type == VAL_UINT || v->type == VAL_INT)) {
        /* ZEROFILL: padded to the display width (the unsigned type's when not given) */
        static const uint32_t wdef[] = {3, 5, 8, 10, 20};
        uint32_t w = c->display_width ? c->display_width : wdef[ty - SQLT_TINYINT];
        char *s = arena_alloc(a, 32 + w);
        int n = snprintf(s, 32 + w, "%0*llu", (int)w, (unsigned long long)v->u);
        return value_str(s, (size_t)n, COLL_DEFAULT);
    }
    return *v;
}
