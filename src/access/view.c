/*
 * View records: version 1, then the strings of cat_view_t in field order and the column names, each a u32
 * length and its bytes.  See view.h.
 */
#include <stdlib.h>
#include <string.h>
#include "access/view.h"
#include "util/buf.h"
#include <xxhash.h>
#include "util/util.h"

#define VIEW_VERSION 1

/* The record's id: a hash that stays the same across runs (util/hash.h's is seeded per process).  Two names
 * with one hash cannot both be views: CREATE VIEW of the second fails (catalog_view_put: STRATA_EEXIST). */
static uint64_t view_id(const char *db, const char *name)
{
    buf_t k;
    buf_init(&k);
    buf_append(&k, db, strlen(db) + 1);
    buf_append(&k, name, strlen(name));
    uint64_t id = XXH3_64bits(k.data, k.len);
    buf_free(&k);
    return id;
}

int catalog_view_decode(arena_t *a, const void *data, size_t len, cat_view_t *v)
{
    const uint8_t *p = data, *end = p + len;
    memset(v, 0, sizeof *v);
    if (len < 1 || p[0] != VIEW_VERSION)
        return -1;
    p++;
    const char **f[] = {&v->db, &v->name, &v->definer_user, &v->definer_host, &v->security, &v->algorithm,
                        &v->check_option, &v->text, &v->client_cs, &v->conn_coll};
    if (catalog_strings_get(a, &p, end, f, ARRAY_LEN(f)))
        return -1;
    uint32_t n;
    if (end - p < 4)
        return -1;
    memcpy(&n, p, 4);
    p += 4;
    if (n > (size_t)(end - p) / 4)
        return -1;
    v->cols = arena_alloc(a, sizeof(char *) * (n + 1));
    for (uint32_t i = 0; i < n; i++)
        if (catalog_strings_get(a, &p, end, (const char **[]){&v->cols[i]}, 1))
            return -1;
    v->ncols = n;
    return p == end ? 0 : -1;
}

int catalog_view_get(catalog_t *c, arena_t *a, const char *db, const char *name, cat_view_t *out)
{
    buf_t val;
    buf_init(&val);
    int rc = catalog_aux_get(c, CAT_AUX_VIEW, view_id(db, name), &val);
    if (rc == STRATA_ENOTFOUND) {
        buf_free(&val);
        return 0;
    }
    if (rc == 0)
        rc = catalog_view_decode(a, val.data, val.len, out) == 0 && strcmp(out->db, db) == 0 &&
                     strcmp(out->name, name) == 0
                 ? 1
                 : 0;
    buf_free(&val);
    return rc;
}

int catalog_view_put(catalog_t *c, const cat_view_t *v)
{
    buf_t old;
    buf_init(&old);
    if (catalog_aux_get(c, CAT_AUX_VIEW, view_id(v->db, v->name), &old) == 0) {
        arena_t a;
        arena_init(&a, 1024);
        cat_view_t o;
        bool other = catalog_view_decode(&a, old.data, old.len, &o) == 0 &&
                     (strcmp(o.db, v->db) != 0 || strcmp(o.name, v->name) != 0);
        arena_destroy(&a);
        if (other) {
            buf_free(&old);
            return STRATA_EEXIST;
        }
    }
    buf_free(&old);
    buf_t b;
    buf_init(&b);
    buf_append_byte(&b, VIEW_VERSION);
    cat_view_t copy = *v;
    const char **f[] = {&copy.db, &copy.name, &copy.definer_user, &copy.definer_host, &copy.security,
                        &copy.algorithm, &copy.check_option, &copy.text, &copy.client_cs, &copy.conn_coll};
    catalog_strings_put(&b, f, ARRAY_LEN(f));
    buf_append(&b, &v->ncols, 4);
    for (uint32_t i = 0; i < v->ncols; i++)
        catalog_strings_put(&b, (const char **[]){&v->cols[i]}, 1);
    int rc = catalog_aux_put(c, CAT_AUX_VIEW, view_id(v->db, v->name), b.data, b.len);
    buf_free(&b);
    return rc;
}

int catalog_view_delete(catalog_t *c, const char *db, const char *name)
{
    arena_t a;
    arena_init(&a, 1024);
    cat_view_t v;
    int rc = catalog_view_get(c, &a, db, name, &v);
    arena_destroy(&a);
    if (rc <= 0)
        return rc < 0 ? rc : STRATA_ENOTFOUND;
    return catalog_aux_delete(c, CAT_AUX_VIEW, view_id(db, name));
}

typedef struct list_ctx {
    arena_t *a;
    const char *db;
    cat_view_t *v;
    uint32_t n, cap;
} list_ctx_t;

static void list_one(void *arg, uint64_t id, const void *val, size_t len)
{
    (void)id;
    list_ctx_t *l = arg;
    cat_view_t v;
    if (catalog_view_decode(l->a, val, len, &v) || (l->db && strcmp(v.db, l->db) != 0))
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        cat_view_t *nv = arena_alloc(l->a, sizeof *nv * l->cap);
        if (l->n)
            memcpy(nv, l->v, sizeof *nv * l->n);
        l->v = nv;
    }
    l->v[l->n++] = v;
}

static int cmp_view(const void *a, const void *b)
{
    const cat_view_t *x = a, *y = b;
    int r = strcmp(x->db, y->db);
    return r ? r : strcmp(x->name, y->name);
}

int catalog_view_list(catalog_t *c, arena_t *a, const char *db, cat_view_t **out, uint32_t *n)
{
    list_ctx_t l = {a, db, NULL, 0, 0};
    int rc = catalog_aux_scan(c, CAT_AUX_VIEW, list_one, &l);
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, cmp_view);
    *out = l.v;
    *n = l.n;
    return rc;
}
