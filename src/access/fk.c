/*
 * Foreign-key checks and referential actions (fk.h has the rules).  Keys are compared by their index encodings
 * (rowcodec): a parent key and a child key match when the child's values, encoded as the parent index's
 * columns, equal the parent row's encoding, so collations decide as they do for the indexes themselves.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "access/fk.h"
#include "util/util.h"

/* ---------------------------------------------------------------- text */

static fk_row_derive_fn row_derive;

void fk_row_derive_set(fk_row_derive_fn fn) { row_derive = fn; }

static void name_list(buf_t *b, const char *const *names, uint32_t n)
{
    buf_append_byte(b, '(');
    for (uint32_t i = 0; i < n; i++)
        buf_printf(b, "%s`%s`", i ? ", " : "", names[i]);
    buf_append_byte(b, ')');
}

static const char *action_name(uint8_t a)
{
    switch (a) {
    case CAT_FK_CASCADE: return "CASCADE";
    case CAT_FK_SET_NULL: return "SET NULL";
    case CAT_FK_NO_ACTION: return "NO ACTION";
    default: return NULL; /* RESTRICT: InnoDB's default, not printed */
    }
}

void fk_clause_print(buf_t *b, const cat_table_t *t, const cat_fk_t *f)
{
    buf_printf(b, "CONSTRAINT `%s` FOREIGN KEY ", f->name);
    name_list(b, f->cols, f->ncols);
    if (strcmp(f->ref_db, t->db) != 0)
        buf_printf(b, " REFERENCES `%s`.`%s` ", f->ref_db, f->ref_table);
    else
        buf_printf(b, " REFERENCES `%s` ", f->ref_table);
    name_list(b, f->ref_cols, f->ncols);
    if (action_name(f->on_delete))
        buf_printf(b, " ON DELETE %s", action_name(f->on_delete));
    if (action_name(f->on_update))
        buf_printf(b, " ON UPDATE %s", action_name(f->on_update));
}

/* 1451 / 1452 with the child's constraint: "(`db`.`child`, CONSTRAINT ...)".  Under IGNORE (table_fk_t.ignore)
 * a warning or nothing, and TABLE_FK_IGNORED: the caller takes the row back. */
static int fk_error(const table_fk_t *fk, diag_t *d, int code, const cat_table_t *child, const cat_fk_t *f)
{
    if (fk && fk->ignore == FK_IGNORE_SILENT)
        return TABLE_FK_IGNORED;
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "`%s`.`%s`, ", child->db, child->name);
    fk_clause_print(&b, child, f);
    buf_append_byte(&b, 0);
    int rc;
    if (fk && fk->ignore == FK_IGNORE_WARN) {
        diag_push(d, DIAG_WARNING, code, (const char *)b.data);
        rc = TABLE_FK_IGNORED;
    } else {
        rc = diag_error(d, code, (const char *)b.data);
    }
    buf_free(&b);
    return rc;
}

/* Past the depth bound: InnoDB's 152 (a warning for a delete, the error for an update), then its error 193 naming
 * the key it stopped at, as MariaDB reports them. */
static int depth_error(diag_t *d, bool is_delete, const cat_table_t *child, const cat_fk_t *f)
{
    int rc = diag_push(d, is_delete ? DIAG_WARNING : DIAG_ERROR, ER_FK_DEPTH_EXCEEDED_INNODB, FK_MAX_DEPTH);
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "`%s`.`%s`, ", child->db, child->name);
    fk_clause_print(&b, child, f);
    buf_append_byte(&b, 0);
    int rc2 = diag_error(d, ER_GET_ERRMSG, 193, (const char *)b.data, "InnoDB");
    buf_free(&b);
    return rc ? rc : rc2;
}

/* ---------------------------------------------------------------- keys */

int fk_index_on(const cat_table_t *t, const char *const *cols, uint32_t n)
{
    for (uint32_t i = 0; i < t->nidx; i++) {
        const cat_index_t *ix = &t->idx[i];
        if (ix->ncols < n)
            continue;
        bool ok = true;
        for (uint32_t k = 0; k < n && ok; k++)
            ok = ix->cols[k].prefix == 0 && strcasecmp(t->cols[ix->cols[k].col].name, cols[k]) == 0;
        if (ok)
            return (int)i;
    }
    return -1;
}

/* The values of columns names[0..n) of row (a row of t) into v; false when one is NULL (or not a column). */
static bool key_values(const cat_table_t *t, const value_t *row, const char *const *names, uint32_t n, value_t *v)
{
    for (uint32_t i = 0; i < n; i++) {
        int c = cat_table_col(t, names[i]);
        if (c < 0 || value_is_null(&row[c]))
            return false;
        v[i] = row[c];
    }
    return true;
}

/* v[0..n) encoded as the first n columns of index ix of t. */
static int key_encode(const cat_table_t *t, int ix, const value_t *v, uint32_t n, buf_t *k)
{
    buf_reset(k);
    for (uint32_t i = 0; i < n; i++) {
        rc_col_t rc = table_index_rc(t, (uint32_t)ix, i);
        int rc2 = rc_key_append(k, &rc, &v[i]);
        if (rc2)
            return rc2;
    }
    return 0;
}

/* Do the rows' values of the named columns encode alike (under t's index ix)?  Both NULL-free or not. */
static bool keys_equal(const cat_table_t *t, int ix, const value_t *a, const value_t *b, uint32_t n)
{
    buf_t ka, kb;
    buf_init(&ka);
    buf_init(&kb);
    bool eq = key_encode(t, ix, a, n, &ka) == 0 && key_encode(t, ix, b, n, &kb) == 0 && ka.len == kb.len &&
              memcmp(ka.data, kb.data, ka.len) == 0;
    buf_free(&ka);
    buf_free(&kb);
    return eq;
}

/* ---------------------------------------------------------------- child side */

/* Is there a parent row for child values v (the fk's columns, none NULL)?  1 yes, 0 no, < 0 error.  The parent
 * row found is share-locked (index entry and clustered row) until the transaction ends. */
static int parent_exists(engine_trx_t *x, const cat_table_t *p, const cat_fk_t *f, const value_t *v, diag_t *d)
{
    int ix = fk_index_on(p, f->ref_cols, f->ncols);
    if (ix < 0)
        return 0;
    buf_t key, store;
    buf_init(&key);
    buf_init(&store);
    arena_t a;
    arena_init(&a, 1024);
    int rc = key_encode(p, ix, v, f->ncols, &key);
    int found = 0;
    table_scan_t s;
    if (rc == 0 && (rc = table_scan_open(&s, x, p, ix, &key, &key, false, &a)) == 0) {
        bool unique = p->idx[ix].kind != CAT_IDX_KEY && p->idx[ix].ncols == f->ncols;
        rc = table_scan_lock(&s, ENGINE_LOCK_SHARED, unique);
        value_t *pv = arena_calloc(&a, sizeof(value_t) * (f->ncols + 1));
        while (rc == 0 && !found && (rc = table_scan_next(&s)) == 0) {
            if (!key_values(p, s.row, f->ref_cols, f->ncols, pv) || !keys_equal(p, ix, pv, v, f->ncols))
                continue; /* ranges are inclusive supersets (rowcodec.h) */
            if (s.index >= 0) {
                /* the clustered row too: a parent delete holds it exclusively */
                rc = engine_lock_row_shared(x, p->tree, s.pk.data, s.pk.len);
                if (rc)
                    break;
                value_t *row = arena_calloc(&a, sizeof(value_t) * (p->ncols + 1));
                int g = table_get_latest(x, p, s.pk.data, s.pk.len, &store, row);
                if (g == STRATA_ENOTFOUND)
                    continue;
                if (g) {
                    rc = g;
                    break;
                }
                if (!key_values(p, row, f->ref_cols, f->ncols, pv) || !keys_equal(p, ix, pv, v, f->ncols))
                    continue;
            }
            found = 1;
        }
        if (rc == STRATA_ENOTFOUND)
            rc = 0;
        table_scan_close(&s);
    }
    buf_free(&key);
    buf_free(&store);
    arena_destroy(&a);
    if (rc)
        return table_engine_err(d, p, rc);
    return found;
}

static int check_child_row(engine_trx_t *x, const cat_table_t *t, const value_t *row, const value_t *old,
                           table_stmt_t *u, diag_t *d)
{
    table_fk_t *fk = u->fk;
    for (uint32_t i = 0; i < t->nfks; i++) {
        const cat_fk_t *f = &t->fks[i];
        value_t v[64], ov[64];
        if (f->ncols > 64 || !key_values(t, row, f->cols, f->ncols, v))
            continue; /* a NULL in the key: no parent needed (MATCH SIMPLE) */
        int cix = fk_index_on(t, f->cols, f->ncols);
        if (old && cix >= 0 && key_values(t, old, f->cols, f->ncols, ov) && keys_equal(t, cix, v, ov, f->ncols))
            continue; /* the key did not change */
        bool self = strcmp(f->ref_db, t->db) == 0 && strcmp(f->ref_table, t->name) == 0;
        cat_table_t *p = self ? (cat_table_t *)t : catalog_table_get(fk->cat, f->ref_db, f->ref_table);
        if (!p)
            return fk_error(fk, d, ER_NO_REFERENCED_ROW_2, t, f);
        int r = parent_exists(x, p, f, v, d);
        if (!self)
            catalog_table_release(p);
        if (r < 0)
            return r;
        if (r == 0)
            return fk_error(fk, d, ER_NO_REFERENCED_ROW_2, t, f);
    }
    return 0;
}

int fk_check_child_row(engine_trx_t *x, catalog_t *cat, const cat_table_t *t, const value_t *row, diag_t *d)
{
    cat_table_t only = *t;
    table_fk_t fk = {.cat = cat, .checks = true};
    table_stmt_t u = {.fk = &fk};
    for (uint32_t i = 0; i < t->nfks; i++) {
        const cat_fk_t *f = &t->fks[i];
        if (strcmp(f->ref_db, t->db) == 0 && strcmp(f->ref_table, t->name) == 0)
            continue;
        only.fks = (cat_fk_t *)f;
        only.nfks = 1;
        int rc = check_child_row(x, &only, row, NULL, &u, d);
        if (rc)
            return rc;
    }
    return 0;
}

int fk_after_insert(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d)
{
    if (!u || !u->fk || !u->fk->checks || !t->nfks)
        return 0;
    return check_child_row(x, t, row, NULL, u, d);
}

/* ---------------------------------------------------------------- parent side */

typedef struct child_row {
    uint8_t *pk;
    size_t pklen;
    uint8_t *bytes;
    size_t len;
} child_row_t;

/* The child rows of fk f (of table c) whose key is v: locked, latest versions, into *rows (arena a). */
static int child_rows(engine_trx_t *x, const cat_table_t *c, const cat_fk_t *f, const value_t *v, bool exclusive,
                      arena_t *a, child_row_t **rows, uint32_t *n, diag_t *d)
{
    *rows = NULL;
    *n = 0;
    int ix = fk_index_on(c, f->cols, f->ncols);
    if (ix < 0)
        return 0; /* made with foreign_key_checks=0 and its index dropped: nothing to find it by */
    buf_t key;
    buf_init(&key);
    uint32_t cap = 0;
    table_scan_t s;
    int rc = key_encode(c, ix, v, f->ncols, &key);
    if (rc == 0 && (rc = table_scan_open(&s, x, c, ix, &key, &key, false, a)) == 0) {
        rc = table_scan_lock(&s, exclusive ? ENGINE_LOCK_EXCLUSIVE : ENGINE_LOCK_SHARED, false);
        value_t *cv = arena_calloc(a, sizeof(value_t) * (f->ncols + 1));
        while (rc == 0 && (rc = table_scan_next(&s)) == 0) {
            if (!key_values(c, s.row, f->cols, f->ncols, cv) || !keys_equal(c, ix, cv, v, f->ncols))
                continue;
            if (s.index >= 0) {
                if ((rc = exclusive ? engine_lock_row(x, c->tree, s.pk.data, s.pk.len)
                                    : engine_lock_row_shared(x, c->tree, s.pk.data, s.pk.len)) != 0)
                    break;
            }
            buf_t store;
            buf_init(&store);
            value_t *row = arena_calloc(a, sizeof(value_t) * (c->ncols + 1));
            int g = table_get_latest(x, c, s.pk.data, s.pk.len, &store, row);
            if (g == 0 && (!key_values(c, row, f->cols, f->ncols, cv) || !keys_equal(c, ix, cv, v, f->ncols)))
                g = STRATA_ENOTFOUND;
            if (g == 0) {
                if (*n == cap) {
                    cap = cap ? cap * 2 : 8;
                    child_row_t *nr = arena_alloc(a, sizeof(child_row_t) * cap);
                    if (*n)
                        memcpy(nr, *rows, sizeof(child_row_t) * *n);
                    *rows = nr;
                }
                child_row_t *r = &(*rows)[(*n)++];
                r->pklen = s.pk.len;
                r->pk = arena_alloc(a, s.pk.len + 1);
                memcpy(r->pk, s.pk.data, s.pk.len);
                r->len = store.len;
                r->bytes = arena_alloc(a, store.len + 1);
                memcpy(r->bytes, store.data, store.len);
            }
            buf_free(&store);
            if (g && g != STRATA_ENOTFOUND) {
                rc = g;
                break;
            }
        }
        if (rc == STRATA_ENOTFOUND)
            rc = 0;
        table_scan_close(&s);
    }
    buf_free(&key);
    return rc ? table_engine_err(d, c, rc) : 0;
}

/* The parent row old of t was deleted (nw NULL) or changed to nw: what each child's key naming it must do. */
static int parent_changed(engine_trx_t *x, const cat_table_t *t, const value_t *old, const value_t *nw,
                          table_stmt_t *u, diag_t *d)
{
    table_fk_t *fk = u->fk;
    if (fk->no_children == t || !catalog_fk_any(fk->cat))
        return 0; /* no table has a key (or none names t): nothing to look for, no allocation, no catalog lock */
    arena_t a;
    arena_init(&a, 4096);
    cat_table_t **kids = NULL;
    uint32_t nkids = 0;
    int rc = catalog_fk_children(fk->cat, t->db, t->name, &a, &kids, &nkids);
    if (rc == 0 && nkids == 0)
        fk->no_children = t; /* t is this statement's definition: a DDL in between would be another one */
    for (uint32_t k = 0; k < nkids && rc == 0; k++) {
        const cat_table_t *c = kids[k];
        bool self = c->id == t->id;
        if (self)
            c = t; /* this statement's definition of the table */
        for (uint32_t i = 0; i < c->nfks && rc == 0; i++) {
            const cat_fk_t *f = &c->fks[i];
            if (strcmp(f->ref_db, t->db) != 0 || strcmp(f->ref_table, t->name) != 0 || f->ncols > 64)
                continue;
            value_t ov[64], nv[64];
            if (!key_values(t, old, f->ref_cols, f->ncols, ov))
                continue;
            int pix = fk_index_on(t, f->ref_cols, f->ncols);
            bool has_new = nw && key_values(t, nw, f->ref_cols, f->ncols, nv);
            if (nw && has_new && pix >= 0 && keys_equal(t, pix, ov, nv, f->ncols))
                continue; /* the referenced columns kept their values */
            uint8_t act = nw ? f->on_update : f->on_delete;
            if (nw && act == CAT_FK_CASCADE && !has_new)
                act = CAT_FK_SET_NULL; /* the key became NULL: so do the children's */
            if (self && nw && (act == CAT_FK_CASCADE || act == CAT_FK_SET_NULL))
                act = CAT_FK_RESTRICT; /* InnoDB refuses a cascading update inside one self-referencing table */
            if (self && !nw && act != CAT_FK_CASCADE && act != CAT_FK_SET_NULL) {
                /* the deleted row may name itself (it is gone from the index already) */
                value_t sv[64];
                if (key_values(t, old, f->cols, f->ncols, sv) && pix >= 0 && keys_equal(t, pix, sv, ov, f->ncols)) {
                    rc = fk_error(fk, d, ER_ROW_IS_REFERENCED_2, c, f);
                    break;
                }
            }
            bool acts = act == CAT_FK_CASCADE || act == CAT_FK_SET_NULL;
            child_row_t *rows;
            uint32_t n;
            if ((rc = child_rows(x, c, f, ov, acts, &a, &rows, &n, d)) != 0)
                break;
            if (n == 0)
                continue;
            if (!acts) {
                rc = fk_error(fk, d, ER_ROW_IS_REFERENCED_2, c, f);
                break;
            }
            if (fk->depth + 1 >= FK_MAX_DEPTH) {
                rc = depth_error(d, nw == NULL, c, f);
                break;
            }
            fk->depth++;
            struct binrow_log *bl = u->bl;
            u->bl = NULL; /* cascaded rows are not logged: the replica's own keys cascade them */
            for (uint32_t r = 0; r < n && rc == 0; r++) {
                value_t *row = arena_calloc(&a, sizeof(value_t) * (c->ncols + 1));
                if ((rc = table_decode(c, rows[r].bytes, rows[r].len, row)) != 0)
                    break;
                buf_t pk;
                buf_init(&pk);
                buf_append(&pk, rows[r].pk, rows[r].pklen);
                if (!nw && act == CAT_FK_CASCADE) {
                    rc = table_delete(x, c, &pk, row, u, d);
                } else {
                    value_t *upd = arena_calloc(&a, sizeof(value_t) * (c->ncols + 1));
                    memcpy(upd, row, sizeof(value_t) * c->ncols);
                    for (uint32_t j = 0; j < f->ncols; j++) {
                        int col = cat_table_col(c, f->cols[j]);
                        if (col >= 0)
                            upd[col] = act == CAT_FK_SET_NULL ? value_null() : nv[j];
                    }
                    if (row_derive)
                        rc = row_derive(c, upd, &a, d);
                    if (rc == 0)
                        rc = table_update(x, c, &pk, row, upd, u, d, NULL);
                }
                buf_free(&pk);
            }
            u->bl = bl;
            fk->depth--;
        }
    }
    for (uint32_t k = 0; k < nkids; k++)
        catalog_table_release(kids[k]);
    arena_destroy(&a);
    return rc;
}

int fk_after_update(engine_trx_t *x, const cat_table_t *t, const value_t *old, const value_t *nw, table_stmt_t *u,
                    diag_t *d)
{
    if (!u || !u->fk || !u->fk->checks)
        return 0;
    int rc = t->nfks ? check_child_row(x, t, nw, old, u, d) : 0;
    if (rc == 0)
        rc = parent_changed(x, t, old, nw, u, d);
    return rc;
}

int fk_after_delete(engine_trx_t *x, const cat_table_t *t, const value_t *row, table_stmt_t *u, diag_t *d)
{
    if (!u || !u->fk || !u->fk->checks)
        return 0;
    return parent_changed(x, t, row, NULL, u, d);
}
