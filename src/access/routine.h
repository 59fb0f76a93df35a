/*
 * Stored procedures and functions in the catalog: one record per routine (CAT_AUX_ROUTINE, keyed by a hash of
 * its kind, database and lower-cased name: routine names are case-insensitive), holding its definition as
 * CREATE gave it -- the parameter list's and the body's text, parsed by each session that calls it (again after
 * any change: put and delete move catalog_version on) -- and what SHOW
 * CREATE, SHOW ... STATUS and information_schema.ROUTINES print.  A record is durable when a call returns (one
 * catalog commit, with a DDL statement's binlog note), so a routine survives a restart and a crash as a table
 * definition does.
 */
#ifndef STRATA_ACCESS_ROUTINE_H
#define STRATA_ACCESS_ROUTINE_H

#include "access/catalog.h"
#include "util/arena.h"

typedef struct cat_routine {
    const char *db, *name;
    const char *type;            /* "PROCEDURE" / "FUNCTION" */
    const char *definer_user, *definer_host;
    const char *params;          /* the text between the parentheses, as written */
    const char *returns;         /* FUNCTION: the type as SHOW CREATE prints it ("int(11)"); "" for a procedure */
    const char *body;            /* as written */
    const char *deterministic;   /* "YES" / "NO" */
    const char *data_access;     /* "CONTAINS SQL", "NO SQL", "READS SQL DATA", "MODIFIES SQL DATA" */
    const char *security;        /* "DEFINER" / "INVOKER" */
    const char *comment;
    const char *sql_mode;        /* @@sql_mode when created, as its names */
    const char *created, *modified; /* 'YYYY-MM-DD hh:mm:ss' */
    const char *client_cs, *conn_coll, *db_coll;
    const char *body_line;       /* the body's first line within the CREATE statement ("1"...): error notes' lines */
} cat_routine_t;

/* 1 and *out (strings in a) when the routine exists, 0 when not, < 0 an engine error.  type: "PROCEDURE" or
 * "FUNCTION". */
int catalog_routine_get(catalog_t *c, arena_t *a, const char *type, const char *db, const char *name, cat_routine_t *out);
/* Creates or replaces the record; STRATA_EEXIST when another routine has the same key hash. */
int catalog_routine_put(catalog_t *c, const cat_routine_t *r);
/* Deletes it: 0, or STRATA_ENOTFOUND. */
int catalog_routine_delete(catalog_t *c, const char *type, const char *db, const char *name);
/* Every routine of db (NULL: of every database), sorted by database, name and type. */
int catalog_routine_list(catalog_t *c, arena_t *a, const char *db, cat_routine_t **out, uint32_t *n);
/* A record decoded on its own (the fuzz target): 0, or -1 when it does not parse. */
int catalog_routine_decode(arena_t *a, const void *p, size_t n, cat_routine_t *out);

#endif
