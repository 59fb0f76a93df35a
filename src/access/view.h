/*
 * Views in the catalog: one record per view (CAT_AUX_VIEW, keyed by a hash of its database and name), holding
 * its definition as CREATE VIEW gave it: the SELECT's text, resolved again at every use in the view's own
 * database, the column names fixed when it was created, and the clauses SHOW CREATE VIEW prints.  Records are
 * durable when a call returns (one catalog commit each, with a DDL statement's binlog note).
 */
#ifndef STRATA_ACCESS_VIEW_H
#define STRATA_ACCESS_VIEW_H

#include "access/catalog.h"
#include "util/arena.h"

typedef struct cat_view {
    const char *db, *name;
    const char *definer_user, *definer_host;
    const char *security;       /* "DEFINER" / "INVOKER" */
    const char *algorithm;      /* "UNDEFINED" / "MERGE" / "TEMPTABLE" */
    const char *check_option;   /* "NONE" / "CASCADED" / "LOCAL" */
    const char *text;           /* the SELECT */
    const char *client_cs, *conn_coll; /* character_set_client, collation_connection when created */
    const char **cols;
    uint32_t ncols;
} cat_view_t;

/* 1 and *out (strings in a) when db.name is a view, 0 when it is not, < 0 an engine error. */
int catalog_view_get(catalog_t *c, arena_t *a, const char *db, const char *name, cat_view_t *out);
/* Creates or replaces the view's record. */
int catalog_view_put(catalog_t *c, const cat_view_t *v);
/* Deletes it: 0, or STRATA_ENOTFOUND. */
int catalog_view_delete(catalog_t *c, const char *db, const char *name);
/* Every view of db (NULL: of every database), sorted by database and name. */
int catalog_view_list(catalog_t *c, arena_t *a, const char *db, cat_view_t **out, uint32_t *n);
/* A record decoded on its own (the fuzz target): 0, or -1 when it does not parse. */
int catalog_view_decode(arena_t *a, const void *p, size_t n, cat_view_t *out);

#endif
