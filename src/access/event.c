/*
 * Event records: version 1, then the integers and strings of cat_event_t.  See event.h.
 *
 *   offset  size  field
 *   0       1     version (1)
 *   1       1     flags: bit 0 recurring, bit 1 preserve
 *   2       8*9   i64 little-endian: execute_at, interval_months, interval_seconds, starts, ends, created,
 *                 last_altered, last_executed, originator
 *   74      ...   14 strings: u32 little-endian length, bytes (db, name, definer_user, definer_host, time_zone,
 *                 body, interval_value, interval_field, status, comment, sql_mode, client_cs, conn_coll,
 *                 db_coll)
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>
#include "access/event.h"
#include "util/buf.h"
#include "util/util.h"

#define EVENT_VERSION 1
#define EVENT_NSTRINGS 14
#define EVENT_NINTS 9

static pthread_mutex_t event_mu = PTHREAD_MUTEX_INITIALIZER;

void catalog_event_lock(void) { pthread_mutex_lock(&event_mu); }
void catalog_event_unlock(void) { pthread_mutex_unlock(&event_mu); }

static uint64_t event_id(const char *db, const char *name)
{
    buf_t k;
    buf_init(&k);
    buf_append_str(&k, "event");
    buf_append(&k, db, strlen(db) + 1);
    for (const char *p = name; *p; p++)
        buf_append_byte(&k, (uint8_t)tolower((unsigned char)*p));
    uint64_t id = XXH3_64bits(k.data, k.len);
    buf_free(&k);
    return id;
}

static void strings(cat_event_t *e, const char **f[EVENT_NSTRINGS])
{
    const char **all[EVENT_NSTRINGS] = {&e->db, &e->name, &e->definer_user, &e->definer_host, &e->time_zone,
                                        &e->body, &e->interval_value, &e->interval_field, &e->status, &e->comment,
                                        &e->sql_mode, &e->client_cs, &e->conn_coll, &e->db_coll};
    memcpy(f, all, sizeof all);
}

static void ints(cat_event_t *e, int64_t *v[EVENT_NINTS], int64_t *orig)
{
    int64_t *all[EVENT_NINTS] = {&e->execute_at, &e->interval_months, &e->interval_seconds, &e->starts, &e->ends,
                                 &e->created, &e->last_altered, &e->last_executed, orig};
    memcpy(v, all, sizeof all);
}

int catalog_event_decode(arena_t *a, const void *data, size_t len, cat_event_t *e)
{
    const uint8_t *p = data, *end = p + len;
    memset(e, 0, sizeof *e);
    if (len < 2 + 8 * EVENT_NINTS || p[0] != EVENT_VERSION)
        return -1;
    e->recurring = (p[1] & 1) != 0;
    e->preserve = (p[1] & 2) != 0;
    p += 2;
    int64_t *iv[EVENT_NINTS], orig = 0;
    ints(e, iv, &orig);
    for (size_t i = 0; i < EVENT_NINTS; i++, p += 8)
        memcpy(iv[i], p, 8);
    e->originator = (uint32_t)orig;
    const char **f[EVENT_NSTRINGS];
    strings(e, f);
    return catalog_strings_get(a, &p, end, f, EVENT_NSTRINGS) == 0 && p == end ? 0 : -1;
}

static bool same(const cat_event_t *e, const char *db, const char *name)
{
    return strcmp(e->db, db) == 0 && strcasecmp(e->name, name) == 0;
}

int catalog_event_get(catalog_t *c, arena_t *a, const char *db, const char *name, cat_event_t *out)
{
    buf_t val;
    buf_init(&val);
    int rc = catalog_aux_get(c, CAT_AUX_EVENT, event_id(db, name), &val);
    if (rc == STRATA_ENOTFOUND) {
        buf_free(&val);
        return 0;
    }
    if (rc == 0)
        rc = catalog_event_decode(a, val.data, val.len, out) == 0 && same(out, db, name) ? 1 : 0;
    buf_free(&val);
    return rc;
}

int catalog_event_put(catalog_t *c, const cat_event_t *e)
{
    uint64_t id = event_id(e->db, e->name);
    buf_t old;
    buf_init(&old);
    if (catalog_aux_get(c, CAT_AUX_EVENT, id, &old) == 0) {
        arena_t a;
        arena_init(&a, 1024);
        cat_event_t o;
        bool other = catalog_event_decode(&a, old.data, old.len, &o) == 0 && !same(&o, e->db, e->name);
        arena_destroy(&a);
        if (other) {
            buf_free(&old);
            return STRATA_EEXIST;
        }
    }
    buf_free(&old);
    buf_t b;
    buf_init(&b);
    buf_append_byte(&b, EVENT_VERSION);
    buf_append_byte(&b, (uint8_t)((e->recurring ? 1 : 0) | (e->preserve ? 2 : 0)));
    cat_event_t copy = *e;
    int64_t *iv[EVENT_NINTS], orig = e->originator;
    ints(&copy, iv, &orig);
    for (size_t i = 0; i < EVENT_NINTS; i++)
        buf_append(&b, iv[i], 8);
    const char **f[EVENT_NSTRINGS];
    strings(&copy, f);
    catalog_strings_put(&b, f, EVENT_NSTRINGS);
    int rc = catalog_aux_put(c, CAT_AUX_EVENT, id, b.data, b.len);
    buf_free(&b);
    return rc;
}

int catalog_event_delete(catalog_t *c, const char *db, const char *name)
{
    arena_t a;
    arena_init(&a, 1024);
    cat_event_t e;
    int rc = catalog_event_get(c, &a, db, name, &e);
    arena_destroy(&a);
    if (rc <= 0)
        return rc < 0 ? rc : STRATA_ENOTFOUND;
    return catalog_aux_delete(c, CAT_AUX_EVENT, event_id(db, name));
}

typedef struct list_ctx {
    arena_t *a;
    const char *db;
    cat_event_t *v;
    uint32_t n, cap;
} list_ctx_t;

static void list_one(void *arg, uint64_t id, const void *val, size_t len)
{
    (void)id;
    list_ctx_t *l = arg;
    cat_event_t e;
    if (catalog_event_decode(l->a, val, len, &e) || (l->db && strcmp(e.db, l->db) != 0))
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        cat_event_t *nv = arena_alloc(l->a, sizeof *nv * l->cap);
        if (l->n)
            memcpy(nv, l->v, sizeof *nv * l->n);
        l->v = nv;
    }
    l->v[l->n++] = e;
}

static int cmp_event(const void *a, const void *b)
{
    const cat_event_t *x = a, *y = b;
    int r = strcmp(x->db, y->db);
    return r ? r : strcasecmp(x->name, y->name);
}

int catalog_event_list(catalog_t *c, arena_t *a, const char *db, cat_event_t **out, uint32_t *n)
{
    list_ctx_t l = {a, db, NULL, 0, 0};
    int rc = catalog_aux_scan(c, CAT_AUX_EVENT, list_one, &l);
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, cmp_event);
    *out = l.v;
    *n = l.n;
    return rc;
}
