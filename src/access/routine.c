/*
 * Routine records: version 1, then the strings of cat_routine_t in field order, each a u32 length and its
 * bytes.  See routine.h.
 *
 *   offset  size  field
 *   0       1     version (1)
 *   1       ...   19 strings: u32 little-endian length, bytes (db, name, type, definer_user, definer_host,
 *                 params, returns, body, deterministic, data_access, security, comment, sql_mode, created,
 *                 modified, client_cs, conn_coll, db_coll, body_line)
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>
#include "access/routine.h"
#include "util/buf.h"
#include "util/util.h"

#define ROUTINE_VERSION 1
#define ROUTINE_NFIELDS 19

static uint64_t routine_id(const char *type, const char *db, const char *name)
{
    buf_t k;
    buf_init(&k);
    buf_append(&k, type, strlen(type) + 1);
    buf_append(&k, db, strlen(db) + 1);
    for (const char *p = name; *p; p++)
        buf_append_byte(&k, (uint8_t)tolower((unsigned char)*p));
    uint64_t id = XXH3_64bits(k.data, k.len);
    buf_free(&k);
    return id;
}

static const char **fields(cat_routine_t *r, const char **f[ROUTINE_NFIELDS])
{
    const char **all[ROUTINE_NFIELDS] = {&r->db, &r->name, &r->type, &r->definer_user, &r->definer_host,
                                         &r->params, &r->returns, &r->body, &r->deterministic, &r->data_access,
                                         &r->security, &r->comment, &r->sql_mode, &r->created, &r->modified,
                                         &r->client_cs, &r->conn_coll, &r->db_coll, &r->body_line};
    memcpy(f, all, sizeof all);
    return NULL;
}

int catalog_routine_decode(arena_t *a, const void *data, size_t len, cat_routine_t *r)
{
    const uint8_t *p = data, *end = p + len;
    memset(r, 0, sizeof *r);
    if (len < 1 || p[0] != ROUTINE_VERSION)
        return -1;
    p++;
    const char **f[ROUTINE_NFIELDS];
    fields(r, f);
    return catalog_strings_get(a, &p, end, f, ROUTINE_NFIELDS) == 0 && p == end ? 0 : -1;
}

static bool same(const cat_routine_t *r, const char *type, const char *db, const char *name)
{
    return strcmp(r->type, type) == 0 && strcmp(r->db, db) == 0 && strcasecmp(r->name, name) == 0;
}

int catalog_routine_get(catalog_t *c, arena_t *a, const char *type, const char *db, const char *name, cat_routine_t *out)
{
    buf_t val;
    buf_init(&val);
    int rc = catalog_aux_get(c, CAT_AUX_ROUTINE, routine_id(type, db, name), &val);
    if (rc == STRATA_ENOTFOUND) {
        buf_free(&val);
        return 0;
    }
    if (rc == 0)
        rc = catalog_routine_decode(a, val.data, val.len, out) == 0 && same(out, type, db, name) ? 1 : 0;
    buf_free(&val);
    return rc;
}

int catalog_routine_put(catalog_t *c, const cat_routine_t *r)
{
    uint64_t id = routine_id(r->type, r->db, r->name);
    buf_t old;
    buf_init(&old);
    if (catalog_aux_get(c, CAT_AUX_ROUTINE, id, &old) == 0) {
        arena_t a;
        arena_init(&a, 1024);
        cat_routine_t o;
        bool other = catalog_routine_decode(&a, old.data, old.len, &o) == 0 && !same(&o, r->type, r->db, r->name);
        arena_destroy(&a);
        if (other) {
            buf_free(&old);
            return STRATA_EEXIST;
        }
    }
    buf_free(&old);
    buf_t b;
    buf_init(&b);
    buf_append_byte(&b, ROUTINE_VERSION);
    cat_routine_t copy = *r;
    const char **f[ROUTINE_NFIELDS];
    fields(&copy, f);
    catalog_strings_put(&b, f, ROUTINE_NFIELDS);
    int rc = catalog_aux_put(c, CAT_AUX_ROUTINE, id, b.data, b.len);
    buf_free(&b);
    catalog_version_bump(c); /* sessions parse it again (session/sp_exec.c's cache) */
    return rc;
}

int catalog_routine_delete(catalog_t *c, const char *type, const char *db, const char *name)
{
    arena_t a;
    arena_init(&a, 1024);
    cat_routine_t r;
    int rc = catalog_routine_get(c, &a, type, db, name, &r);
    arena_destroy(&a);
    if (rc <= 0)
        return rc < 0 ? rc : STRATA_ENOTFOUND;
    rc = catalog_aux_delete(c, CAT_AUX_ROUTINE, routine_id(type, db, name));
    catalog_version_bump(c);
    return rc;
}

typedef struct list_ctx {
    arena_t *a;
    const char *db;
    cat_routine_t *v;
    uint32_t n, cap;
} list_ctx_t;

static void list_one(void *arg, uint64_t id, const void *val, size_t len)
{
    (void)id;
    list_ctx_t *l = arg;
    cat_routine_t r;
    if (catalog_routine_decode(l->a, val, len, &r) || (l->db && strcmp(r.db, l->db) != 0))
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        cat_routine_t *nv = arena_alloc(l->a, sizeof *nv * l->cap);
        if (l->n)
            memcpy(nv, l->v, sizeof *nv * l->n);
        l->v = nv;
    }
    l->v[l->n++] = r;
}

static int cmp_routine(const void *a, const void *b)
{
    const cat_routine_t *x = a, *y = b;
    int r = strcmp(x->db, y->db);
    if (!r)
        r = strcasecmp(x->name, y->name);
    return r ? r : strcmp(x->type, y->type);
}

int catalog_routine_list(catalog_t *c, arena_t *a, const char *db, cat_routine_t **out, uint32_t *n)
{
    list_ctx_t l = {a, db, NULL, 0, 0};
    int rc = catalog_aux_scan(c, CAT_AUX_ROUTINE, list_one, &l);
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, cmp_routine);
    *out = l.v;
    *n = l.n;
    return rc;
}
