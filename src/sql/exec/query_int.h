/*
 * What the binder, the planner and the executor's files share about one SELECT being run: the row buffers and
 * keys (exec/rowkeys.c), access paths and ranges (plan/path.c), the SELECT pipeline's state (exec/select.c),
 * UNION (exec/union.c).  Internal to the SQL layer: nothing outside src/sql includes it.
 */
#ifndef STRATA_SQL_QUERY_INT_H
#define STRATA_SQL_QUERY_INT_H

#include "sql/exec/exec_int.h"
#include "sql/exec/extsort.h"
#include "sql/expr/typeinf.h"

void row_pack(buf_t *b, const value_t *v, uint32_t n);

const uint8_t *row_unpack(arena_t *a, const uint8_t *p, value_t *v, uint32_t n);

size_t row_packed_size(const value_t *v, uint32_t n);

int64_t keymap_find(const keymap_t *m, const uint8_t *k, size_t n);

int expr_max_src(const query_t *q, const sql_expr_t *e, bool *pure);
/* The sources (bit i: source i, the first 64) e reads; *pure cleared as by expr_max_src. */
uint64_t expr_src_mask(const query_t *q, const sql_expr_t *e, bool *pure);

typedef struct or_range {   /* one disjunct of an OR over a single column: lo <= col <= hi (NULL: open) */
    const sql_expr_t *lo, *hi;
} or_range_t;

typedef struct column_cond {       /* what WHERE says about one column of the source being read */
    const sql_expr_t *eq;    /* col = eq */
    const sql_expr_t *const *in; /* col IN (in[0..nin-1]) */
    uint32_t nin;
    const sql_expr_t *lo, *hi;
    const or_range_t *ors;  /* col BETWEEN a AND b OR col = c OR col > d ...: one range per disjunct */
    uint32_t nors;
} column_cond_t;

typedef struct access_path {
    int index;               /* -1: full scan of the clustered tree */
    uint32_t neq;            /* leading index columns bound to points */
    bool range;              /* and a range on the next */
    bool point;              /* neq covers a unique index: at most one row per point */
    uint64_t est_rows;       /* rows the path is expected to read, from the table's statistics; 0: none */
    column_cond_t *conds;          /* per table column */
    /* a source after the first read by a full scan: read once per statement into a hash table on its columns
     * hcol[0..nhash), each equal to hval[k] (known before it is read), and looked up per row of the sources
     * before it (exec/loop.c); nhash 0: every row kept is tried (a flat join buffer) */
    bool hashed;
    uint32_t nhash;
    uint32_t *hcol;
    const sql_expr_t **hval;
} access_path_t;

int src_col(const query_t *q, uint32_t si, const sql_expr_t *e);

void choose_path(const query_t *q, uint32_t si, const sql_expr_t *where, access_path_t *p, arena_t *a);
/* The join order and every source's access path for where (plan/join.c): q->jorder and the rest set when the
 * FROM is of inner joins only (else FROM order, jorder NULL); paths has nsrc entries, indexed by source. */
void plan_join(query_t *q, const sql_expr_t *where, access_path_t *paths, arena_t *a);
/* Sets q's join order to order (nsrc sources, kept): its inverse, what each source's path may use, and the
 * depth each ON is evaluated at (a prepared plan's order, applied to the statement bound again). */
void plan_join_set(query_t *q, uint32_t *order, arena_t *a);
/* The first depth of the join order where expression e (and the sources in mask also) can be evaluated: the
 * deepest source it names; the last depth for one with a subquery, an assignment or a volatile function. */
uint32_t join_depth(const query_t *q, const sql_expr_t *e, uint64_t also);
/* The source read at depth d. */
static inline uint32_t join_src(const query_t *q, uint32_t d) { return q->jorder ? q->jorder[d] : d; }

typedef struct key_range {
    buf_t lo, hi;
    bool has_lo, has_hi;
} key_range_t;

int build_ranges(row_eval_t *xe, const query_t *q, uint32_t si, const access_path_t *p, const value_t *row,
                        key_range_t **out, uint32_t *nr);

void free_ranges(key_range_t *r, uint32_t n);

/* One GROUP BY group. */
struct group {
    value_t *rep;             /* the group's first row (combined, copied) */
    sql_agg_t *aggs;            /* one accumulator per aggregate call (exec_agg.c) */
    buf_t key;
};

typedef struct select_col {
    sql_expr_t *expr;
    const char *name;
    const char *alias;        /* AS name, NULL if none */
    int src_col;              /* slot of a plain column reference, else -1 */
} select_col_t;

typedef struct order_term {
    int item;                 /* ORDER BY / GROUP BY an item (alias or position), else -1 */
    sql_expr_t *expr;
    bool desc;
} order_term_t;

typedef struct out_row {         /* one output row waiting for sort / distinct / limit */
    value_t *vals;
    uint8_t *key;
    size_t klen;
} out_row_t;

typedef struct select_run {
    sql_exec_ctx_t *x;
    const sql_select_t *sel;
    query_t q;
    select_col_t *items;
    uint32_t nitems;
    order_term_t *order;
    uint32_t norder;
    order_term_t *group;
    uint32_t ngroup;
    bool aggregate;           /* GROUP BY or aggregate functions */
    bool need_sort;
    uint64_t limit, offset;
    /* collected rows */
    out_row_t *outs;
    uint64_t nout, capout;
    keymap_t distinct;
    /* groups */
    group_t **groups;
    uint64_t ngroups, capgroups;
    keymap_t gmap;
    row_eval_t xe;
    uint64_t sent, skipped, total;
    bool streaming;
    res_col_t *cols;
    bool cols_sent;
    bool collect_only;        /* INSERT ... SELECT: keep rows, send nothing */
    bool discard;             /* ANALYZE: run the whole query, send no row */
    /* INSERT ... SELECT streaming (exec_select_push): each output row goes to push as it is made; an error it
     * returns (negative) stops the query */
    int (*push)(void *arg, const value_t *vals);
    void *push_arg;
    arena_t *ga;              /* group / output storage */
    /* memory of large results (extsort.h) */
    arena_t rowa;             /* per-row (per-group) scratch: evaluation results (xe's arena), result cells */
    bool rowa_ok;
    extsort_t *osort;         /* ORDER BY: key = order key, payload = the items' values (row_pack) */
    bool osorted;             /* osort is finished and the rows are read from it, not from outs */
    /* ORDER BY ... LIMIT n: only the first OFFSET + n rows are kept, in a max-heap (MariaDB's priority queue) */
    struct topn_entry *top;         /* NULL: no LIMIT, or the heap outgrew sort_buffer_size (rows went to osort) */
    uint64_t topk, topn, topcap, topseq;
    size_t topmem;
    extsort_t *gsort;         /* GROUP BY rows whose group is not in memory: key = group key, payload = u32
                                 rollup level + the combined row */
    size_t gmem;              /* bytes the in-memory groups hold */
    extsort_t *dsort;         /* DISTINCT rows with a key first seen once the key set was full: key = the
                                 distinct key, payload = u32 order key length + order key + the values */
    size_t dmem;              /* bytes the DISTINCT key set holds */
    uint64_t ngroups_out;     /* groups produced (in memory + read back) */
    bool *need;               /* slots the query reads (select_run_need); NULL: all */
    bool plan_oix_set;        /* a prepared plan settled the ORDER BY index: */
    int plan_oix;             /* its number (-1: none) */
    bool plan_odesc;          /* read backwards */
    struct win_run *win;      /* window functions: their rows or groups and values (exec/window.c) */
} select_run_t;

/* Window functions (exec/window.c).  A SELECT with OVER (...) calls runs twice over its rows (or, with GROUP
 * BY, its groups): win_begin, then each row / group goes to win_collect instead of the output; win_finish
 * computes every call over its windows and sends each row / group through the output again, with
 * window_get answering the calls. */
int win_begin(select_run_t *s);
bool win_collecting(const select_run_t *s);
int win_collect(select_run_t *s, const value_t *row, group_t *g);
int win_finish(select_run_t *s, int (*emit_row)(void *arg, const value_t *row), int (*emit_group)(select_run_t *s, group_t *g));
void win_free(select_run_t *s);

void send_columns(select_run_t *s);

void send_row(select_run_t *s, const value_t *vals);

int cmp_out(const void *a, const void *b);

bool select_run_infer(const select_run_t *s, const sql_expr_t *e, sql_rtype_t *rt);

void item_col(select_run_t *s, uint32_t i, const value_t *first, res_col_t *c);

int select_run_prepare(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, bool member);

int select_run_prepare_over(select_run_t *s, sql_exec_ctx_t *x, const sql_select_t *sel, const query_t *q);

int order_index(select_run_t *s, bool *desc);

void select_run_free(select_run_t *s);

int select_run_run(select_run_t *s);

int union_rows(sql_exec_ctx_t *x, const sql_select_t *first, uint64_t dflt_limit, value_t ***rows_out, uint64_t *n_out,
                      uint32_t *ncols_out, res_col_t **cols_out);

int union_send(sql_exec_ctx_t *x, const sql_select_t *sel);

/*
 * A prepared statement keeps the bound form of its SELECT: the items with * expanded, GROUP BY / ORDER BY
 * resolved, the aggregates, each source's access path and the ORDER BY index.  Binding writes column slots into
 * the statement's own tree, which lives as long as the statement; the plan holds in its arena what binding built
 * beside the tree.  Every execution still opens its tables (metadata locks, catalog references) and reuses the
 * plan when each source is the same definition (table id and catalog version) as at binding, under the same
 * current database; else it binds again (Com_stmt_reprepare) and the plan is replaced.  Cached: a single SELECT
 * over base tables (no UNION, derived or information_schema tables, USING / NATURAL joins); subqueries are bound
 * when they run, as without a plan.
 */
struct sql_plan {
    arena_t mem;
    bool valid;
    const void *key;           /* the SELECT (sql_select_t) or DML statement (sql_stmt_t) it was bound for */
    char *db;                  /* the current database when bound (NULL: none) */
    char *cur_db;              /* sql_plan_db()'s copy: the executions' current database */
    uint32_t nsrc;
    uint64_t *src_id, *src_version;
    access_path_t *paths;
    uint32_t *jorder;          /* the join order (plan/join.c; NULL: FROM order), in mem */
    const sql_expr_t *where;   /* the WHERE the paths were chosen for (the statement's tree, kept with it) */
    uint64_t stats_gen;        /* stats_generation() when they were chosen */
    /* SELECT */
    bool *need;                /* select_run_t.need */
    select_col_t *items;
    uint32_t nitems;
    order_term_t *order, *group;
    uint32_t norder, ngroup;
    const sql_expr_t **aggs;
    uint32_t nagg;
    const sql_expr_t **wins;  /* window function calls (query_t.wins) */
    uint32_t nwin;
    bool aggregate;
    int oix;
    bool odesc;
};

/* ---- statements: what exec/ (transactions, DML, dispatch) and ddl/ share ---- */

extern catalog_t *exec_cat;

extern engine_t *exec_engine;

typedef struct sql_exec_tmp {
    struct sql_exec_tmp *next;
    char *db, *name;          /* as the connection names it */
    char *real;               /* its table in EXEC_TEMP_DB */
} temp_table_t;

void exec_trx_end(sql_exec_session_t *ss);

int exec_mdl_lock(sql_exec_ctx_t *x, const char *db, const char *name, bool write);

int ddl_mdl(sql_exec_ctx_t *x, const sql_stmt_t *st);

int exec_commit_open(sql_exec_ctx_t *x);

int ddl_begin(sql_exec_ctx_t *x);

void exec_pend_ok(sql_exec_ctx_t *x, uint64_t affected, const char *info);

const cat_table_t *exec_single_def(query_t *q, sql_exec_ctx_t *x, cat_table_t *t, const char *db);

cat_table_t *exec_open_write(sql_exec_ctx_t *x, const sql_name_t *n, const char **dbout);

bool exec_same_stored(const value_t *a, const value_t *b);

int exec_insert(sql_exec_ctx_t *x, const sql_stmt_t *st);

int exec_update(sql_exec_ctx_t *x, const sql_stmt_t *st);

int exec_delete(sql_exec_ctx_t *x, const sql_stmt_t *st);

/* LOAD DATA [LOCAL] INFILE (exec/load.c). */
int exec_load_data(sql_exec_ctx_t *x, const sql_stmt_t *st);

/* ---- INSERT / REPLACE / DELETE ... RETURNING (exec/returning.c) ---- */
typedef struct returning returning_t;
/* Binds the RETURNING items over t (as db.alias; alias NULL: its name) and sets x->returning; verb, when not
 * NULL, refuses a subquery reading t with 1093 naming it.  0 or -ER_* pushed (x->returning is set either way: returning_end frees it). */
int returning_begin(sql_exec_ctx_t *x, const sql_select_item_t *items, uint32_t n, cat_table_t *t, const char *db,
                    const char *alias, const char *verb);
/* One row written (stored values of t's columns): the items' values kept for the result set. */
int returning_row(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *stored);
/* At the handler's end, while t is still open: the result set's column metadata. */
void returning_finish(sql_exec_ctx_t *x);
/* exec_run, once the statement is settled: sends the result set (send) and frees x->returning. */
void returning_end(sql_exec_ctx_t *x, bool send);
/* COM_STMT_PREPARE of INSERT / REPLACE / DELETE ... RETURNING: the result columns (*ncols 0 without). */
int returning_describe(sql_exec_ctx_t *x, const sql_stmt_t *st, res_col_t **cols, int *ncols);

const char *ddl_engine_name(sql_exec_ctx_t *x, const char *name, const char *table, int *rc);

int col_default_value(sql_exec_ctx_t *x, const cat_column_t *c, value_t *out, arena_t *a, bool strict);

int default_text(sql_exec_ctx_t *x, const sql_expr_t *e, cat_column_t *c);

int add_index(sql_exec_ctx_t *x, cat_table_t *t, uint32_t *cap, const sql_index_def_t *d, const char *forced_name);

int ddl_cant_drop(sql_exec_ctx_t *x, bool note, const char *what, const char *name);

int col_from_def(sql_exec_ctx_t *x, const cat_table_t *t, const sql_column_def_t *cd, cat_column_t *c);

int col_default(sql_exec_ctx_t *x, const sql_column_def_t *cd, cat_column_t *c);

int exec_create_table(sql_exec_ctx_t *x, const sql_stmt_t *st);

int create_index(sql_exec_ctx_t *x, const sql_name_t *tn, const sql_index_def_t *d, bool if_not_exists);

int drop_index(sql_exec_ctx_t *x, const sql_name_t *tn, const char *name, bool if_exists);

int truncate_table(sql_exec_ctx_t *x, const sql_name_t *tn);

int exec_drop_table(sql_exec_ctx_t *x, const sql_stmt_t *st);

/* Views (ddl/view.c). */
int exec_create_view(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_create_routine(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_drop_routine(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_alter_routine(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_drop_view(sql_exec_ctx_t *x, const sql_stmt_t *st);
/* CREATE VIEW as the binlog carries it (MariaDB's form): ALGORITHM, DEFINER and SQL SECURITY spelled out. */
const char *view_log_text(sql_exec_ctx_t *x, const sql_view_stmt_t *v);
/* RENAME TABLE of db.from when it is a view (within its database: 1450 otherwise; 1050 when `to` exists): 0;
 * 1 when it is no view. */
int exec_view_rename(sql_exec_ctx_t *x, const char *db, const char *from, const char *ndb, const char *to);
/* A column's type as SHOW CREATE TABLE prints it ("int(11)", "varchar(10)"): ddl/show.c */
const char *type_text(arena_t *a, const cat_column_t *c);
/* Stored routines (ddl/routine.c): CREATE's binlog text with its DEFINER, SHOW CREATE's text */
struct cat_routine;
const char *routine_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st);
/* Triggers (ddl/trigger.c): CREATE / DROP, CREATE's binlog text with its DEFINER, SHOW CREATE's text; a table's
 * triggers dropped with it (DROP TABLE, DROP DATABASE) and moved by RENAME TABLE. */
struct cat_trigger;
int exec_create_trigger(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_drop_trigger(sql_exec_ctx_t *x, const sql_stmt_t *st);
const char *trigger_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st);
const char *trigger_create_text(arena_t *a, const struct cat_trigger *t, char q);
int trigger_drop_one(sql_exec_ctx_t *x, const struct cat_trigger *t);
void trigger_drop_table(sql_exec_ctx_t *x, const char *db, const char *table);
void trigger_rename_table(sql_exec_ctx_t *x, const char *db, const char *from, const char *to);
/* Events (ddl/event.c): CREATE / ALTER / DROP, CREATE's binlog text with its DEFINER and resolved times, SHOW
 * CREATE's text, a database's events dropped with it. */
struct cat_event;
int exec_create_event(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_alter_event(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_drop_event(sql_exec_ctx_t *x, const sql_stmt_t *st);
const char *event_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st);
const char *event_alter_log_text(sql_exec_ctx_t *x, const sql_stmt_t *st);
const char *event_create_text(arena_t *a, const struct cat_event *e, char q);
void event_drop_database(sql_exec_ctx_t *x, const char *db);
/* Whether a trigger's table exists.  DROP TABLE / DATABASE delete a table's triggers after the table, so a crash
 * between leaves records of a table that is gone: they are not shown and never fire, and go when a table of
 * that name is created or renamed to, or a trigger of that name created. */
bool trigger_table_exists(const char *db, const char *table);
/* A table with triggers cannot move to another database (1435, MariaDB's). */
int trigger_rename_check(sql_exec_ctx_t *x, const char *db, const char *table, const char *ndb);

typedef struct alter_run {
    sql_exec_ctx_t *x;
    cat_table_t *nt;          /* the new definition (statement arena) */
    int *src;                 /* new column -> old column, -1 for added columns */
    uint32_t cap, idxcap;
    bool check_rows;          /* each copied row must pass the table's CHECK constraints */
    bool fk_rows;             /* ... and find its parents (a FOREIGN KEY added with foreign_key_checks=1) */
} alter_run_t;

void alter_drop_trees(cat_table_t *nt);

int alter_new_trees(sql_exec_ctx_t *x, const cat_table_t *old, alter_run_t *A, bool ignore, uint64_t *nrows);

int alter_rebuild(sql_exec_ctx_t *x, const sql_alter_table_t *at);

int sql_exec_keys_upgrade(void);

int exec_alter_table(sql_exec_ctx_t *x, const sql_stmt_t *st);

int exec_tablespace(sql_exec_ctx_t *x, const sql_stmt_t *st);

/* Handlers named by statements.def (exec/exec.c dispatches through its table). */
int exec_select_handler(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_show_handler(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_explain_handler(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_truncate(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_rename_table(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_create_index(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_drop_index(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_create_database(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_drop_database(sql_exec_ctx_t *x, const sql_stmt_t *st);
int exec_alter_database(sql_exec_ctx_t *x, const sql_stmt_t *st);

#endif
