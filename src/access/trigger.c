/*
 * Trigger records: version 1, then the strings of cat_trigger_t in field order, each a u32 length and its
 * bytes.  See trigger.h.
 *
 *   offset  size  field
 *   0       1     version (1)
 *   1       ...   16 strings: u32 little-endian length, bytes (db, name, table, event, timing, order,
 *                 definer_user, definer_host, create_text, body, sql_mode, created, client_cs, conn_coll,
 *                 db_coll, body_line)
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>
#include "access/trigger.h"
#include "util/buf.h"
#include "util/util.h"

#define TRIGGER_VERSION 1
#define TRIGGER_NFIELDS 16

/* how many triggers exist; -1: not known (counted by a scan at the next catalog_trigger_any) */
static _Atomic int64_t trigger_count = -1;

static uint64_t trigger_id(const char *db, const char *name)
{
    buf_t k;
    buf_init(&k);
    buf_append(&k, "T", 1);
    buf_append(&k, db, strlen(db) + 1);
    buf_append(&k, name, strlen(name));
    uint64_t id = XXH3_64bits(k.data, k.len);
    buf_free(&k);
    return id;
}

static void fields(cat_trigger_t *t, const char **f[TRIGGER_NFIELDS])
{
    const char **all[TRIGGER_NFIELDS] = {&t->db, &t->name, &t->table, &t->event, &t->timing, &t->order,
                                         &t->definer_user, &t->definer_host, &t->create_text, &t->body,
                                         &t->sql_mode, &t->created, &t->client_cs, &t->conn_coll, &t->db_coll,
                                         &t->body_line};
    memcpy(f, all, sizeof all);
}

int catalog_trigger_decode(arena_t *a, const void *data, size_t len, cat_trigger_t *t)
{
    const uint8_t *p = data, *end = p + len;
    memset(t, 0, sizeof *t);
    if (len < 1 || p[0] != TRIGGER_VERSION)
        return -1;
    p++;
    const char **f[TRIGGER_NFIELDS];
    fields(t, f);
    return catalog_strings_get(a, &p, end, f, TRIGGER_NFIELDS) == 0 && p == end ? 0 : -1;
}

static bool same(const cat_trigger_t *t, const char *db, const char *name)
{
    return strcmp(t->db, db) == 0 && strcmp(t->name, name) == 0;
}

int catalog_trigger_get(catalog_t *c, arena_t *a, const char *db, const char *name, cat_trigger_t *out)
{
    buf_t val;
    buf_init(&val);
    int rc = catalog_aux_get(c, CAT_AUX_TRIGGER, trigger_id(db, name), &val);
    if (rc == STRATA_ENOTFOUND) {
        buf_free(&val);
        return 0;
    }
    if (rc == 0)
        rc = catalog_trigger_decode(a, val.data, val.len, out) == 0 && same(out, db, name) ? 1 : 0;
    buf_free(&val);
    return rc;
}

int catalog_trigger_put(catalog_t *c, const cat_trigger_t *t)
{
    uint64_t id = trigger_id(t->db, t->name);
    buf_t old;
    buf_init(&old);
    if (catalog_aux_get(c, CAT_AUX_TRIGGER, id, &old) == 0) {
        arena_t a;
        arena_init(&a, 1024);
        cat_trigger_t o;
        bool other = catalog_trigger_decode(&a, old.data, old.len, &o) == 0 && !same(&o, t->db, t->name);
        arena_destroy(&a);
        if (other) {
            buf_free(&old);
            return STRATA_EEXIST;
        }
    }
    buf_free(&old);
    buf_t b;
    buf_init(&b);
    buf_append_byte(&b, TRIGGER_VERSION);
    cat_trigger_t copy = *t;
    const char **f[TRIGGER_NFIELDS];
    fields(&copy, f);
    catalog_strings_put(&b, f, TRIGGER_NFIELDS);
    int rc = catalog_aux_put(c, CAT_AUX_TRIGGER, id, b.data, b.len);
    buf_free(&b);
    atomic_store(&trigger_count, -1);
    return rc;
}

int catalog_trigger_delete(catalog_t *c, const char *db, const char *name)
{
    arena_t a;
    arena_init(&a, 1024);
    cat_trigger_t t;
    int rc = catalog_trigger_get(c, &a, db, name, &t);
    arena_destroy(&a);
    if (rc <= 0)
        return rc < 0 ? rc : STRATA_ENOTFOUND;
    rc = catalog_aux_delete(c, CAT_AUX_TRIGGER, trigger_id(db, name));
    atomic_store(&trigger_count, -1);
    return rc;
}

typedef struct list_ctx {
    arena_t *a;
    const char *db, *table;
    cat_trigger_t *v;
    uint32_t n, cap;
} list_ctx_t;

static void list_one(void *arg, uint64_t id, const void *val, size_t len)
{
    (void)id;
    list_ctx_t *l = arg;
    cat_trigger_t t;
    if (catalog_trigger_decode(l->a, val, len, &t) || (l->db && strcmp(t.db, l->db) != 0) ||
        (l->table && strcmp(t.table, l->table) != 0))
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        cat_trigger_t *nv = arena_alloc(l->a, sizeof *nv * l->cap);
        if (l->n)
            memcpy(nv, l->v, sizeof *nv * l->n);
        l->v = nv;
    }
    l->v[l->n++] = t;
}

static int event_rank(const char *e) { return e[0] == 'I' ? 0 : e[0] == 'U' ? 1 : 2; }

static int cmp_trigger(const void *a, const void *b)
{
    const cat_trigger_t *x = a, *y = b;
    int r = strcmp(x->db, y->db);
    if (!r)
        r = strcmp(x->table, y->table);
    if (!r)
        r = event_rank(x->event) - event_rank(y->event);
    if (!r)
        r = (x->timing[0] == 'A') - (y->timing[0] == 'A');
    if (!r)
        r = atoi(x->order) - atoi(y->order);
    return r ? r : strcmp(x->name, y->name);
}

int catalog_trigger_list(catalog_t *c, arena_t *a, const char *db, const char *table, cat_trigger_t **out, uint32_t *n)
{
    list_ctx_t l = {a, db, table, NULL, 0, 0};
    int rc = catalog_aux_scan(c, CAT_AUX_TRIGGER, list_one, &l);
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, cmp_trigger);
    *out = l.v;
    *n = l.n;
    return rc;
}

static void count_one(void *arg, uint64_t id, const void *val, size_t len)
{
    (void)id, (void)val, (void)len;
    (*(int64_t *)arg)++;
}

bool catalog_trigger_any(catalog_t *c)
{
    int64_t n = atomic_load(&trigger_count);
    if (n < 0) {
        n = 0;
        if (catalog_aux_scan(c, CAT_AUX_TRIGGER, count_one, &n) != 0)
            return true; /* not known: look */
        atomic_store(&trigger_count, n);
    }
    return n > 0;
}
