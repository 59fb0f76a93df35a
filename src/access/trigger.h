/*
 * Triggers in the catalog: one record per trigger (CAT_AUX_TRIGGER, keyed by a hash of its database and name:
 * trigger names are unique in a database and, as MariaDB's on Linux, case-sensitive), holding what CREATE
 * TRIGGER gave -- the table, event, timing, its place among the table's triggers of that event and timing
 * (ACTION_ORDER), the body's text, parsed again when the trigger fires -- and what SHOW TRIGGERS, SHOW CREATE
 * TRIGGER and information_schema.TRIGGERS print.  A record is durable when a call returns (one catalog commit,
 * with a DDL statement's binlog note), so a trigger survives a restart and a crash as a table definition does;
 * DROP TABLE and DROP DATABASE delete a table's triggers, RENAME TABLE moves them.
 */
#ifndef STRATA_ACCESS_TRIGGER_H
#define STRATA_ACCESS_TRIGGER_H

#include <stdbool.h>
#include "access/catalog.h"
#include "util/arena.h"

typedef struct cat_trigger {
    const char *db, *name, *table;
    const char *event;           /* "INSERT" / "UPDATE" / "DELETE" */
    const char *timing;          /* "BEFORE" / "AFTER" */
    const char *order;           /* ACTION_ORDER among the table's triggers of this event and timing, "1"... */
    const char *definer_user, *definer_host;
    const char *create_text;     /* the CREATE statement from the word TRIGGER on, as written */
    const char *body;            /* as written */
    const char *sql_mode;        /* @@sql_mode when created, as its names */
    const char *created;         /* 'YYYY-MM-DD hh:mm:ss.cc' */
    const char *client_cs, *conn_coll, *db_coll;
    const char *body_line;       /* the body's first line within the CREATE statement ("1"...) */
} cat_trigger_t;

/* 1 and *out (strings in a) when the trigger exists, 0 when not, < 0 an engine error. */
int catalog_trigger_get(catalog_t *c, arena_t *a, const char *db, const char *name, cat_trigger_t *out);
/* Creates or replaces the record; STRATA_EEXIST when another trigger has the same key hash. */
int catalog_trigger_put(catalog_t *c, const cat_trigger_t *t);
/* Deletes it: 0, or STRATA_ENOTFOUND. */
int catalog_trigger_delete(catalog_t *c, const char *db, const char *name);
/* The triggers of db (NULL: every database) and, when table is not NULL, of that table only; sorted as SHOW
 * TRIGGERS prints them: by database, table, event (INSERT, UPDATE, DELETE), timing (BEFORE, AFTER), order. */
int catalog_trigger_list(catalog_t *c, arena_t *a, const char *db, const char *table, cat_trigger_t **out, uint32_t *n);
/* Whether any trigger exists (a counter kept beside the records, so that a statement on a table of a server
 * without triggers pays nothing). */
bool catalog_trigger_any(catalog_t *c);
/* A record decoded on its own (the fuzz target): 0, or -1 when it does not parse. */
int catalog_trigger_decode(arena_t *a, const void *p, size_t n, cat_trigger_t *out);

#endif
