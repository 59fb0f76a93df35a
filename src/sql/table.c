/*
 * Table access over the engine: inserts with unique checks, updates that move index entries, deletes, point
 * reads, range scans, AUTO_INCREMENT, the statement undo log, and storing SQL values into typed columns.
 * Layouts of the trees are in table.h; the key and row formats in rowcodec.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/table.h"
#include "util/util.h"

/* ---------------------------------------------------------------- statement undo */

typedef enum { UNDO_INSERTED, UNDO_DELETED, UNDO_UPDATED } undo_kind_t;

struct table_undo_rec {
    undo_kind_t kind;
    engine_tree_id_t tree;
    uint8_t *key, *val;
    size_t klen, vlen;
};

void table_undo_init(table_undo_t *u) { memset(u, 0, sizeof *u); }

static void undo_add(table_undo_t *u, undo_kind_t kind, engine_tree_id_t tree, const void *k, size_t kl,
                     const void *v, size_t vl)
{
    if (!u)
        return;
    if (u->n == u->cap) {
        u->cap = u->cap ? u->cap * 2 : 16;
        u->recs = mem_realloc(u->recs, sizeof(table_undo_rec_t) * u->cap);
    }
    table_undo_rec_t *r = &u->recs[u->n++];
    r->kind = kind;
    r->tree = tree;
    r->key = mem_alloc(kl + vl + 1);
    memcpy(r->key, k, kl);
    r->klen = kl;
    r->val = r->key + kl;
    if (vl)
        memcpy(r->val, v, vl);
    r->vlen = vl;
}

void table_undo_clear(table_undo_t *u)
{
    for (uint32_t i = 0; i < u->n; i++)
        mem_free(u->recs[i].key);
    u->n = 0;
}

void table_undo_free(table_undo_t *u)
{
    table_undo_clear(u);
    mem_free(u->recs);
    memset(u, 0, sizeof *u);
}

int table_undo_apply(engine_trx_t *x, table_undo_t *u)
{
    int rc = 0;
    for (uint32_t i = u->n; i-- > 0;) {
        table_undo_rec_t *r = &u->recs[i];
        int e;
        switch (r->kind) {
        case UNDO_INSERTED: e = engine_delete(x, r->tree, r->key, r->klen); break;
        case UNDO_DELETED: e = engine_put(x, r->tree, r->key, r->klen, r->val, r->vlen); break;
        default: e = engine_put(x, r->tree, r->key, r->klen, r->val, r->vlen); break;
        }
        if (e && e != STRATA_ENOTFOUND && !rc)
            rc = e;
    }
    table_undo_clear(u);
    return rc;
}

/* ---------------------------------------------------------------- errors */

int table_engine_err(diag_t *d, const cat_table_t *t, int rc)
{
    switch (rc) {
    case ENGINE_EFULL: return diag_error(d, ER_RECORD_FILE_FULL, t ? t->name : "?");
    case ENGINE_ELOCKWAIT: return diag_error(d, ER_LOCK_WAIT_TIMEOUT);
    case ENGINE_EDEADLOCK: return diag_error(d, ER_LOCK_DEADLOCK);
    case ENGINE_ENOSPC: return diag_error(d, ER_DISK_FULL, t ? t->name : "?", 28, "No space left on device");
    default: {
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

int table_index_key(const cat_table_t *t, uint32_t ix, const value_t *row, const buf_t *pk, buf_t *key)
{
    bool hn;
    if (index_prefix(t, ix, row, key, &hn) < 0)
        return -1;
    buf_append(key, pk->data, pk->len);
    return 0;
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
    engine_cursor_t *cur;
    int rc = engine_cursor_open(x, t->idx[ix].tree, &cur);
    if (rc)
        return rc;
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
    return rc;
}

int table_insert(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_undo_t *u, diag_t *d,
                 table_dup_t *dup)
{
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
    undo_add(u, UNDO_INSERTED, t->tree, pk.data, pk.len, NULL, 0);
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        table_index_key(t, ix, row, &pk, &key);
        rc = engine_insert(x, t->idx[ix].tree, key.data, key.len, "", 0);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        undo_add(u, UNDO_INSERTED, t->idx[ix].tree, key.data, key.len, NULL, 0);
    }
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

int table_update(engine_trx_t *x, const cat_table_t *t, const buf_t *oldpk, const value_t *old, const value_t *nw,
                 table_undo_t *u, diag_t *d, table_dup_t *dup)
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
    rc = engine_get(x, t->tree, oldpk->data, oldpk->len, &oldval);
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
        undo_add(u, UNDO_INSERTED, t->tree, pk.data, pk.len, NULL, 0);
        rc = engine_delete(x, t->tree, oldpk->data, oldpk->len);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        undo_add(u, UNDO_DELETED, t->tree, oldpk->data, oldpk->len, oldval.data, oldval.len);
    } else {
        rc = engine_update(x, t->tree, pk.data, pk.len, val.data, val.len);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        undo_add(u, UNDO_UPDATED, t->tree, pk.data, pk.len, oldval.data, oldval.len);
    }
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        if (!changed[ix])
            continue;
        table_index_key(t, ix, old, oldpk, &okey);
        table_index_key(t, ix, nw, &pk, &nkey);
        if (okey.len == nkey.len && memcmp(okey.data, nkey.data, okey.len) == 0)
            continue; /* equal under the collation: the entry stays */
        rc = engine_delete(x, t->idx[ix].tree, okey.data, okey.len);
        if (rc && rc != STRATA_ENOTFOUND) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        if (rc == 0)
            undo_add(u, UNDO_DELETED, t->idx[ix].tree, okey.data, okey.len, "", 0);
        rc = engine_insert(x, t->idx[ix].tree, nkey.data, nkey.len, "", 0);
        if (rc) {
            rc = table_engine_err(d, t, rc);
            goto out;
        }
        undo_add(u, UNDO_INSERTED, t->idx[ix].tree, nkey.data, nkey.len, NULL, 0);
    }
out:
    buf_free(&pk);
    buf_free(&okey);
    buf_free(&nkey);
    buf_free(&val);
    buf_free(&oldval);
    return rc;
}

int table_delete(engine_trx_t *x, const cat_table_t *t, const buf_t *pk, const value_t *row, table_undo_t *u, diag_t *d)
{
    buf_t key, oldval;
    buf_init(&key);
    buf_init(&oldval);
    int rc = engine_get(x, t->tree, pk->data, pk->len, &oldval);
    if (rc == 0)
        rc = engine_delete(x, t->tree, pk->data, pk->len);
    if (rc) {
        rc = rc == STRATA_ENOTFOUND ? 0 : table_engine_err(d, t, rc);
        goto out;
    }
    undo_add(u, UNDO_DELETED, t->tree, pk->data, pk->len, oldval.data, oldval.len);
    for (uint32_t ix = t->has_pk ? 1 : 0; ix < t->nidx; ix++) {
        table_index_key(t, ix, row, pk, &key);
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
        undo_add(u, UNDO_DELETED, t->idx[ix].tree, key.data, key.len, "", 0);
    }
out:
    buf_free(&key);
    buf_free(&oldval);
    return rc;
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
        rc = engine_get(s->x, t->tree, s->pk.data, s->pk.len, &s->rowbuf);
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

static const char *type_word(sqlt_t t)
{
    if (sqlt_is_int(t) || t == SQLT_YEAR || t == SQLT_BIT)
        return "integer";
    if (t == SQLT_DECIMAL)
        return "decimal";
    if (t == SQLT_FLOAT || t == SQLT_DOUBLE)
        return "double";
    if (t == SQLT_DATE)
        return "date";
    if (t == SQLT_TIME)
        return "time";
    if (t == SQLT_DATETIME || t == SQLT_TIMESTAMP)
        return "datetime";
    return "string";
}

/* Strict: an error; else a warning (the value is then adjusted by the caller). */
static int store_problem(diag_t *d, bool strict, int code, const char *msg)
{
    if (strict)
        return diag_push_msg(d, DIAG_ERROR, code, msg);
    diag_push_msg(d, DIAG_WARNING, code, msg);
    return 0;
}

static int bad_value(const cat_table_t *t, const cat_column_t *c, diag_t *d, bool strict, uint64_t row, const value_t *v,
                     int code, arena_t *a)
{
    size_t n;
    const char *txt = value_to_text(a, v, &n);
    char msg[512];
    snprintf(msg, sizeof msg, "Incorrect %s value: '%.*s' for column `%s`.`%s`.`%s` at row %llu", type_word((sqlt_t)c->rc.type),
             (int)MIN(n, 200), txt, t->db, t->name, c->name, (unsigned long long)row);
    return store_problem(d, strict, code, msg);
}

static int col_msg(diag_t *d, bool strict, int code, const char *fmt, const char *col, uint64_t row)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, col, (unsigned long long)row);
    return store_problem(d, strict, code, msg);
}

/* Parses a string as a number the strict way: 1 whole string numeric, 0 a numeric prefix, -1 none. */
static int numeric_text(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t start = i;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t dg = 0;
    while (i < n && isdigit((unsigned char)s[i]))
        i++, dg++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && isdigit((unsigned char)s[i]))
            i++, dg++;
    }
    if (dg && i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && isdigit((unsigned char)s[j])) {
            while (j < n && isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    if (!dg)
        return start == n ? -1 : -1;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    return i == n ? 1 : 0;
}

static size_t char_len(uint16_t coll, const char *s, size_t n)
{
    if (value_coll_mbmaxlen(coll) <= 1)
        return n;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            k++;
    return k;
}

static size_t char_prefix_bytes(uint16_t coll, const char *s, size_t n, size_t chars)
{
    if (value_coll_mbmaxlen(coll) <= 1)
        return MIN(n, chars);
    size_t k = 0, i = 0;
    for (; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && k++ == chars)
            break;
    return i;
}

static uint64_t max_bytes(sqlt_t t)
{
    switch (t) {
    case SQLT_TINYTEXT: case SQLT_TINYBLOB: return 255;
    case SQLT_TEXT: case SQLT_BLOB: return 65535;
    case SQLT_MEDIUMTEXT: case SQLT_MEDIUMBLOB: return 16777215;
    default: return 4294967295ull;
    }
}

/* Rounds canonical decimal text to `scale` places (half away from zero) into a. */
static value_t decimal_round(arena_t *a, const char *s, size_t n, uint32_t scale, bool *rounded)
{
    bool neg = n && s[0] == '-';
    if (neg)
        s++, n--;
    const char *dot = memchr(s, '.', n);
    size_t il = dot ? (size_t)(dot - s) : n, fl = dot ? n - il - 1 : 0;
    char *digits = arena_alloc(a, il + scale + 2);
    memcpy(digits, s, il);
    for (uint32_t i = 0; i < scale; i++)
        digits[il + i] = i < fl ? dot[1 + i] : '0';
    size_t nd = il + scale;
    *rounded = fl > scale;
    bool up = fl > scale && dot[1 + scale] >= '5';
    char *out = arena_alloc(a, nd + 4);
    size_t pos = nd + 3;
    out[pos] = 0;
    int carry = up;
    char *tmp = arena_alloc(a, nd + 2);
    for (size_t i = nd; i-- > 0;) {
        int dgt = digits[i] - '0' + carry;
        carry = dgt / 10;
        tmp[i + 1] = (char)('0' + dgt % 10);
    }
    tmp[0] = (char)('0' + carry);
    /* tmp holds nd+1 digits: integer part il+1 digits, then scale */
    size_t ip = 0, ilen = il + 1;
    while (ip + 1 < ilen && tmp[ip] == '0')
        ip++;
    size_t k = 0;
    bool zero = true;
    for (size_t i = 0; i < nd + 1; i++)
        if (tmp[i] != '0')
            zero = false;
    if (neg && !zero)
        out[k++] = '-';
    memcpy(out + k, tmp + ip, ilen - ip);
    k += ilen - ip;
    if (scale) {
        out[k++] = '.';
        memcpy(out + k, tmp + ilen, scale);
        k += scale;
    }
    return value_decimal(a, out, k);
}

static int store_int(const cat_table_t *t, const cat_column_t *c, const value_t *v, value_t *out, arena_t *a, diag_t *d,
                     bool strict, uint64_t row)
{
    sqlt_t ty = (sqlt_t)c->rc.type;
    int w = ty == SQLT_TINYINT ? 1 : ty == SQLT_SMALLINT ? 2 : ty == SQLT_MEDIUMINT ? 3 : ty == SQLT_INT ? 4 : 8;
    bool uns = c->rc.is_unsigned || ty == SQLT_BIT;
    int64_t lo = uns ? 0 : w == 8 ? INT64_MIN : -(1ll << (8 * w - 1));
    uint64_t hi = uns ? (w == 8 ? UINT64_MAX : (1ull << (8 * w)) - 1) : (w == 8 ? (uint64_t)INT64_MAX : (1ull << (8 * w - 1)) - 1);
    if (ty == SQLT_BIT && c->rc.len && c->rc.len < 64)
        hi = (1ull << c->rc.len) - 1;
    value_t num = *v;
    if (v->type == VAL_STRING) {
        int k = numeric_text(v->s.ptr, v->s.len);
        if (k <= 0) {
            int rc = k < 0 ? bad_value(t, c, d, strict, row, v, ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, a)
                           : col_msg(d, strict, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
            if (rc)
                return rc;
        }
        num = value_to_decimal(a, v, NULL);
        if (num.type != VAL_DECIMAL)
            num = value_int(0);
    }
    bool neg;
    uint64_t mag;
    bool overflow = false;
    if (num.type == VAL_INT) {
        neg = num.i < 0;
        mag = neg ? (uint64_t)(-(num.i + 1)) + 1 : (uint64_t)num.i;
    } else if (num.type == VAL_UINT) {
        neg = false;
        mag = num.u;
    } else if (num.type == VAL_DECIMAL) {
        bool r;
        value_t rd = decimal_round(a, num.s.ptr, num.s.len, 0, &r);
        neg = rd.s.ptr[0] == '-';
        const char *p = rd.s.ptr + neg;
        mag = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (mag > (UINT64_MAX - 9) / 10)
                overflow = true;
            mag = mag * 10 + (uint64_t)(*p - '0');
        }
    } else {
        double x = value_to_double(&num, NULL);
        x = round(x);
        neg = x < 0;
        double m = fabs(x);
        if (m >= 18446744073709551616.0) {
            overflow = true;
            mag = UINT64_MAX;
        } else {
            mag = (uint64_t)m;
        }
    }
    bool out_lo = neg && (uns || mag > (uint64_t)(-(lo + 1)) + 1);
    bool out_hi = !neg && (overflow || mag > hi);
    if (out_lo || out_hi) {
        int rc = col_msg(d, strict, ER_WARN_DATA_OUT_OF_RANGE, "Out of range value for column '%s' at row %llu", c->name, row);
        if (rc)
            return rc;
        *out = uns ? value_uint(out_lo ? 0 : hi) : value_int(out_lo ? lo : (int64_t)hi);
        return 0;
    }
    if (uns)
        *out = value_uint(mag);
    else
        *out = value_int(neg ? (int64_t)(0 - mag) : (int64_t)mag);
    return 0;
}

int table_value_store(const cat_table_t *t, uint32_t col, const value_t *v, value_t *out, arena_t *a, diag_t *d,
                      bool strict, uint64_t row)
{
    const cat_column_t *c = &t->cols[col];
    sqlt_t ty = (sqlt_t)c->rc.type;
    if (v->type == VAL_NULL) {
        if (c->rc.nullable) {
            *out = value_null();
            return 0;
        }
        char msg[160];
        snprintf(msg, sizeof msg, "Column '%s' cannot be null", c->name);
        if (strict)
            return diag_push_msg(d, DIAG_ERROR, ER_BAD_NULL_ERROR, msg);
        diag_push_msg(d, DIAG_WARNING, ER_BAD_NULL_ERROR, msg);
        value_t z = sqlt_is_string(ty) ? value_str("", 0, c->rc.coll) : value_int(0);
        if (sqlt_is_temporal(ty))
            z = value_str("0000-00-00 00:00:00", 19, COLL_DEFAULT);
        return table_value_store(t, col, &z, out, a, d, false, row);
    }
    if (sqlt_is_int(ty) || ty == SQLT_BIT)
        return store_int(t, c, v, out, a, d, strict, row);
    switch (ty) {
    case SQLT_YEAR: {
        value_t n;
        bool two_digit_str = v->type == VAL_STRING && v->s.len <= 2;
        int rc = store_int(t, &(cat_column_t){.name = c->name, .rc = {.type = SQLT_SMALLINT}}, v, &n, a, d, strict, row);
        if (rc)
            return rc;
        int64_t y = n.i;
        if (y == 0 && !two_digit_str) {
            *out = value_uint(0);
            return 0;
        }
        if (y >= 0 && y < 70)
            y += 2000;
        else if (y >= 70 && y <= 99)
            y += 1900;
        if (y < 1901 || y > 2155) {
            rc = col_msg(d, strict, ER_WARN_DATA_OUT_OF_RANGE, "Out of range value for column '%s' at row %llu", c->name, row);
            if (rc)
                return rc;
            y = 0;
        }
        *out = value_uint((uint64_t)y);
        return 0;
    }
    case SQLT_DECIMAL: {
        value_t dv = *v;
        if (v->type == VAL_STRING) {
            int k = numeric_text(v->s.ptr, v->s.len);
            if (k <= 0) {
                int rc = k < 0 ? bad_value(t, c, d, strict, row, v, ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, a)
                               : col_msg(d, strict, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
                if (rc)
                    return rc;
            }
        }
        dv = value_to_decimal(a, v, NULL);
        if (dv.type != VAL_DECIMAL)
            dv = value_decimal(a, "0", 1);
        bool rounded;
        value_t r = decimal_round(a, dv.s.ptr, dv.s.len, c->rc.scale, &rounded);
        uint32_t m = c->rc.len ? c->rc.len : 10;
        const char *p = r.s.ptr + (r.s.ptr[0] == '-');
        size_t il = strcspn(p, ".");
        if (!(il == 1 && p[0] == '0') && il > m - c->rc.scale) {
            int rc = col_msg(d, strict, ER_WARN_DATA_OUT_OF_RANGE, "Out of range value for column '%s' at row %llu", c->name, row);
            if (rc)
                return rc;
            char buf[80];
            size_t k = 0;
            if (r.s.ptr[0] == '-')
                buf[k++] = '-';
            for (uint32_t i = 0; i < m - c->rc.scale; i++)
                buf[k++] = '9';
            if (c->rc.scale) {
                buf[k++] = '.';
                for (uint32_t i = 0; i < c->rc.scale; i++)
                    buf[k++] = '9';
            }
            r = value_decimal(a, buf, k);
        } else if (rounded) {
            char msg[160];
            snprintf(msg, sizeof msg, "Data truncated for column '%s' at row %llu", c->name, (unsigned long long)row);
            diag_push_msg(d, DIAG_NOTE, WARN_DATA_TRUNCATED, msg);
        }
        r.dec = c->rc.scale;
        *out = r;
        return 0;
    }
    case SQLT_FLOAT: case SQLT_DOUBLE: {
        if (v->type == VAL_STRING) {
            int k = numeric_text(v->s.ptr, v->s.len);
            if (k <= 0) {
                int rc = k < 0 ? bad_value(t, c, d, strict, row, v, ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, a)
                               : col_msg(d, strict, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
                if (rc)
                    return rc;
            }
        }
        double x = value_to_double(v, NULL);
        if (ty == SQLT_FLOAT && fabs(x) > 3.402823466e38) {
            int rc = col_msg(d, strict, ER_WARN_DATA_OUT_OF_RANGE, "Out of range value for column '%s' at row %llu", c->name, row);
            if (rc)
                return rc;
            x = x < 0 ? -3.402823466e38 : 3.402823466e38;
        }
        *out = value_double(ty == SQLT_FLOAT ? (double)(float)x : x);
        return 0;
    }
    case SQLT_DATE: case SQLT_DATETIME: case SQLT_TIMESTAMP: case SQLT_TIME: {
        value_t tv = *v;
        bool ok = true;
        if (v->type == VAL_STRING) {
            ok = ty == SQLT_TIME ? (value_parse_time(v->s.ptr, v->s.len, &tv) || value_parse_datetime(v->s.ptr, v->s.len, &tv))
                                 : value_parse_datetime(v->s.ptr, v->s.len, &tv);
        } else if (v->type == VAL_INT || v->type == VAL_UINT || v->type == VAL_DECIMAL || v->type == VAL_DOUBLE) {
            char buf[64];
            size_t n;
            const char *s = value_to_text(a, v, &n);
            snprintf(buf, sizeof buf, "%.*s", (int)MIN(n, 40), s);
            ok = ty == SQLT_TIME ? value_parse_time(buf, strlen(buf), &tv) : value_parse_datetime(buf, strlen(buf), &tv);
        } else if (!value_is_temporal(v)) {
            ok = false;
        }
        if (ok && ty != SQLT_TIME && tv.type == VAL_TIME)
            ok = false;
        if (!ok) {
            size_t n;
            const char *txt = value_to_text(a, v, &n);
            char msg[400];
            snprintf(msg, sizeof msg, "Incorrect %s value: '%.*s' for column `%s`.`%s`.`%s` at row %llu",
                     type_word(ty), (int)MIN(n, 200), txt, t->db, t->name, c->name, (unsigned long long)row);
            if (strict)
                return diag_push_msg(d, DIAG_ERROR, ER_TRUNCATED_WRONG_VALUE, msg);
            col_msg(d, false, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
            memset(&tv, 0, sizeof tv);
        }
        value_t o = tv;
        o.type = ty == SQLT_DATE ? VAL_DATE : ty == SQLT_TIME ? VAL_TIME : ty == SQLT_DATETIME ? VAL_DATETIME : VAL_TIMESTAMP;
        if (ty == SQLT_DATE) {
            o.t.hour = o.t.minute = o.t.second = o.t.usec = 0;
            o.dec = 0;
        } else if (ty == SQLT_TIME && tv.type != VAL_TIME) {
            o.t.year = o.t.month = o.t.day = 0;
            o.t.neg = false;
        }
        if (ty != SQLT_DATE) {
            uint32_t div = 1;
            for (int i = c->rc.scale; i < 6; i++)
                div *= 10;
            o.t.usec = o.t.usec / div * div;
            o.dec = c->rc.scale;
        }
        *out = o;
        return 0;
    }
    case SQLT_ENUM: case SQLT_SET: {
        uint64_t r = 0;
        bool bad = false;
        if (v->type == VAL_STRING) {
            const char *s = v->s.ptr;
            size_t n = v->s.len;
            if (ty == SQLT_ENUM) {
                while (n && s[n - 1] == ' ')
                    n--;
                for (uint32_t i = 0; i < c->nelems && !r; i++)
                    if (value_collate_cmp(c->rc.coll, c->elems[i], strlen(c->elems[i]), s, n) == 0)
                        r = i + 1;
                if (!r) {
                    if (numeric_text(s, n) == 1) {
                        uint64_t k = (uint64_t)value_to_int(v, NULL);
                        if (k >= 1 && k <= c->nelems)
                            r = k;
                        else
                            bad = true;
                    } else {
                        bad = true;
                    }
                }
            } else {
                size_t i = 0;
                while (i <= n && n) {
                    size_t j = i;
                    while (j < n && s[j] != ',')
                        j++;
                    bool hit = false;
                    for (uint32_t k = 0; k < c->nelems && k < 64; k++)
                        if (value_collate_cmp(c->rc.coll, c->elems[k], strlen(c->elems[k]), s + i, j - i) == 0) {
                            r |= 1ull << k;
                            hit = true;
                        }
                    if (!hit)
                        bad = true;
                    i = j + 1;
                    if (j >= n)
                        break;
                }
            }
        } else {
            uint64_t k = (uint64_t)value_to_int(v, NULL);
            if (ty == SQLT_ENUM ? (k > c->nelems) : (c->nelems < 64 && (k >> c->nelems)))
                bad = true;
            else
                r = k;
        }
        if (bad) {
            int rc = col_msg(d, strict, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
            if (rc)
                return rc;
            if (ty == SQLT_ENUM)
                r = 0;
        }
        *out = value_uint(r);
        return 0;
    }
    default:
        break;
    }
    /* strings */
    size_t n;
    const char *s;
    if (v->type == VAL_STRING) {
        s = v->s.ptr;
        n = v->s.len;
    } else {
        s = value_to_text(a, v, &n);
    }
    uint16_t coll = c->rc.coll;
    bool binary = coll == COLL_BINARY;
    if (ty == SQLT_CHAR || ty == SQLT_VARCHAR || ty == SQLT_BINARY || ty == SQLT_VARBINARY) {
        size_t len = binary ? n : char_len(coll, s, n);
        if (len > c->rc.len) {
            size_t keep = binary ? c->rc.len : char_prefix_bytes(coll, s, n, c->rc.len);
            bool only_spaces = true;
            for (size_t i = keep; i < n; i++)
                if (s[i] != ' ')
                    only_spaces = false;
            if (only_spaces && !binary) {
                char msg[160];
                snprintf(msg, sizeof msg, "Data truncated for column '%s' at row %llu", c->name, (unsigned long long)row);
                diag_push_msg(d, DIAG_NOTE, WARN_DATA_TRUNCATED, msg);
            } else {
                int rc = strict ? col_msg(d, true, ER_DATA_TOO_LONG, "Data too long for column '%s' at row %llu", c->name, row)
                                : col_msg(d, false, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
                if (rc)
                    return rc;
            }
            n = keep;
        }
        if (ty == SQLT_CHAR)
            while (n && s[n - 1] == ' ')
                n--;
        if (ty == SQLT_BINARY && n < c->rc.len) {
            char *p = arena_calloc(a, c->rc.len);
            memcpy(p, s, n);
            s = p;
            n = c->rc.len;
        }
    } else if (n > max_bytes(ty)) {
        int rc = strict ? col_msg(d, true, ER_DATA_TOO_LONG, "Data too long for column '%s' at row %llu", c->name, row)
                        : col_msg(d, false, WARN_DATA_TRUNCATED, "Data truncated for column '%s' at row %llu", c->name, row);
        if (rc)
            return rc;
        n = (size_t)max_bytes(ty);
    }
    *out = value_str(s, n, coll);
    return 0;
}

int table_value_default(const cat_column_t *c, value_t *out, arena_t *a, diag_t *d, bool strict)
{
    switch (c->def) {
    case CAT_DEF_VALUE:
        *out = value_str(c->default_text, strlen(c->default_text), COLL_DEFAULT);
        return 0;
    case CAT_DEF_NOW: {
        uint64_t us = time_wall_us();
        time_t sec = (time_t)(us / 1000000);
        struct tm tm;
        localtime_r(&sec, &tm);
        value_t v = {.type = VAL_DATETIME};
        v.t.year = (uint32_t)tm.tm_year + 1900;
        v.t.month = (uint32_t)tm.tm_mon + 1;
        v.t.day = (uint32_t)tm.tm_mday;
        v.t.hour = (uint32_t)tm.tm_hour;
        v.t.minute = (uint32_t)tm.tm_min;
        v.t.second = (uint32_t)tm.tm_sec;
        v.t.usec = (uint32_t)(us % 1000000);
        v.dec = 6;
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
    sqlt_t ty = (sqlt_t)c->rc.type;
    if (sqlt_is_string(ty))
        *out = value_str("", 0, c->rc.coll);
    else if (ty == SQLT_ENUM)
        *out = c->nelems ? value_str(c->elems[0], strlen(c->elems[0]), COLL_DEFAULT) : value_uint(0);
    else if (sqlt_is_temporal(ty))
        *out = value_str(ty == SQLT_TIME ? "00:00:00" : "0000-00-00 00:00:00", ty == SQLT_TIME ? 8 : 19, COLL_DEFAULT);
    else
        *out = value_int(0);
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
        return value_str(s, strlen(s), c->rc.coll);
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
        buf_free(&b);
        return r;
    }
    if (ty == SQLT_FLOAT && v->type == VAL_DOUBLE) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.6g", v->d);
        value_t r = value_double(strtod(buf, NULL));
        r.dec = v->dec;
        return r;
    }
    if (ty == SQLT_YEAR) {
        value_t r = *v;
        return r;
    }
    return *v;
}
