/*
 * Views merged into what names them (view.c): a view taken apart into its base tables, its WHERE and one
 * expression per column, and the writes through a view rewritten onto its base table.  Internal to the SQL
 * layer.
 */
#ifndef STRATA_SQL_BIND_VIEW_H
#define STRATA_SQL_BIND_VIEW_H

#include "sql/exec/exec_int.h"
#include "access/view.h"

/* A view with the views under it merged: only base tables remain in `from`. */
typedef struct view_merge {
    cat_view_t v;
    bool updatable;          /* MariaDB's IS_UPDATABLE: mergeable all the way down, a column that is a column */
    bool writable;           /* and a write through it is allowed (no derived table, no subquery on its tables) */
    bool checkable;          /* WITH CHECK OPTION is allowed on it (else CREATE VIEW's 1368) */
    bool outer_join;         /* its FROM has an outer join (only UPDATE writes through it) */
    sql_from_t *from;        /* the base tables, each leaf's database written out */
    sql_expr_t *where;       /* every level's WHERE, ANDed (NULL: none) */
    const char **names;      /* the view's column names */
    sql_expr_t **exprs;      /* what column i is, over from's tables (references qualified) */
    uint32_t ncols;
    sql_expr_t **conds;      /* every level's WHERE, one by one: a CASCADED CHECK OPTION checks them all */
    uint32_t nconds;
    sql_expr_t *own_where;   /* this view's own WHERE (LOCAL CHECK OPTION) */
    uint32_t nbase;          /* base tables in from */
} view_merge_t;

/* The CHECK OPTION of a write through a view: the rows written to the base table tdb.tname must satisfy every
 * condition (constraints.c evaluates them with the table's CHECKs), else 1369 naming db.name. */
typedef struct view_check {
    const char *db, *name;
    const char *tdb, *tname;
    sql_expr_t **conds;      /* over the base table's columns, unqualified */
    uint32_t n;
    const void *bound_to;    /* the cat_table_t the conditions were bound for */
} view_check_t;

/* db.name merged into *out: 0; 1 when it is no view; < 0 an error (1356 when it no longer binds). */
int view_merge(sql_exec_ctx_t *x, const char *db, const char *name, view_merge_t *out);

/* The same for a definition not (yet) in the catalog (CREATE VIEW). */
int view_merge_def(sql_exec_ctx_t *x, const cat_view_t *v, view_merge_t *out);

/* information_schema.VIEWS.IS_UPDATABLE of v (an error reading it: NO). */
bool view_is_updatable(sql_exec_ctx_t *x, const cat_view_t *v);

/* Whether a view's SELECT could be merged (MariaDB's rules, without looking at the views under it): CREATE VIEW's
 * 1354 for ALGORITHM=MERGE. */
bool view_select_mergeable(const sql_select_t *sel);

/* A read of view v (named `alias` in FROM) under a WHERE: when v merges and some conjuncts of `where` name only
 * its columns (qualified by alias, or unqualified when `only`: v is the whole FROM), *out is v as one SELECT over
 * its base tables with those conditions added to its WHERE, so the base tables' indexes serve them.  1: read v as
 * written (nothing to gain, or it does not merge). */
int view_read_select(sql_exec_ctx_t *x, const cat_view_t *v, const char *alias, const sql_expr_t *where, bool only,
                     sql_select_t **out);

/* st (INSERT / REPLACE / UPDATE / DELETE / LOAD DATA) writes through a view: *out is st rewritten onto the
 * view's base table and *chk (NULL: none) the CHECK OPTION to apply.  1: st's target is no view.  < 0: the
 * error (1288, 1348, 1393, 1394, 1395, 1471, 1054 ...). */
int view_dml_rewrite(sql_exec_ctx_t *x, const sql_stmt_t *st, const sql_stmt_t **out, view_check_t **chk);

#endif
