/*
 * Events in the catalog: one record per event (CAT_AUX_EVENT, keyed by a hash of its database and lower-cased
 * name: event names are case-insensitive), holding what CREATE EVENT gave -- the schedule as instants (UTC epoch
 * seconds) with the time zone it was written in, the body as written, the characteristics -- and what the
 * scheduler keeps up to date (LAST_EXECUTED, STATUS).  A record is durable when a call returns (one catalog
 * commit), so an event survives a restart and a crash as a routine does.
 */
#ifndef STRATA_ACCESS_EVENT_H
#define STRATA_ACCESS_EVENT_H

#include <stdint.h>

#include "access/catalog.h"
#include "util/arena.h"

typedef struct cat_event {
    const char *db, *name;
    const char *definer_user, *definer_host;
    const char *time_zone;      /* @@time_zone when created: "SYSTEM" or "+hh:mm" */
    const char *body;           /* as written */
    bool recurring;             /* EVERY (else AT) */
    int64_t execute_at;         /* AT: epoch seconds */
    const char *interval_value; /* EVERY: as SHOW EVENTS prints it ("1", "'1:2'") */
    const char *interval_field; /* EVERY: "HOUR", "HOUR_MINUTE", ... */
    int64_t interval_months;    /* EVERY: the interval as months (YEAR, QUARTER, MONTH, YEAR_MONTH) ... */
    int64_t interval_seconds;   /* ... or as seconds (the others) */
    int64_t starts;             /* EVERY: epoch seconds */
    int64_t ends;               /* EVERY: epoch seconds, INT64_MIN for none */
    bool preserve;              /* ON COMPLETION PRESERVE */
    const char *status;         /* "ENABLED", "DISABLED", "SLAVESIDE_DISABLED" */
    const char *comment;
    const char *sql_mode;       /* @@sql_mode when created, as its names */
    int64_t created, last_altered; /* epoch seconds */
    int64_t last_executed;      /* epoch seconds, INT64_MIN for never */
    uint32_t originator;        /* @@server_id of the server that created it */
    const char *client_cs, *conn_coll, *db_coll;
} cat_event_t;

#define CAT_EVENT_NEVER INT64_MIN

/* 1 and *out (strings in a) when the event exists, 0 when not, < 0 an engine error. */
int catalog_event_get(catalog_t *c, arena_t *a, const char *db, const char *name, cat_event_t *out);
/* Creates or replaces the record; STRATA_EEXIST when another event has the same key hash. */
int catalog_event_put(catalog_t *c, const cat_event_t *e);
/* Deletes it: 0, or STRATA_ENOTFOUND. */
int catalog_event_delete(catalog_t *c, const char *db, const char *name);
/* Every event of db (NULL: of every database), sorted by database and name. */
int catalog_event_list(catalog_t *c, arena_t *a, const char *db, cat_event_t **out, uint32_t *n);
/* The events' read-modify-write lock: the event DDL and the scheduler hold it from reading a record to writing
 * it back, so a run's LAST_EXECUTED / STATUS update and an ALTER never overwrite each other.  Taken after any
 * metadata lock, before the catalog's own. */
void catalog_event_lock(void);
void catalog_event_unlock(void);
/* A record decoded on its own (the fuzz target): 0, or -1 when it does not parse. */
int catalog_event_decode(arena_t *a, const void *p, size_t n, cat_event_t *out);

#endif
