/*
 * Internals shared by the executor's files (exec.c: context, transactions, DDL, DML; exec_select.c: FROM,
 * access paths, joins, grouping, sorting; exec_agg.c: the aggregate accumulators GROUP BY drives;
 * exec_show.c: SHOW and information_schema).  Nothing outside
 * src/sql/exec*.c includes this.
 */
#ifndef STRATA_SQL_EXEC_INT_H
#define STRATA_SQL_EXEC_INT_H

#include "sql/exec/exec.h"

/* ---- a byte-string hash map (exec_select.c): keys copied into an arena, their index returned ---- */
typedef struct keymap {
    uint32_t *slots;          /* index+1 into keys, 0 empty */
    uint32_t cap, n;
    const uint8_t **kp;
    size_t *kl;
    uint32_t kcap;
    arena_t *a;
} keymap_t;

void keymap_init(keymap_t *m, arena_t *a);
void keymap_free(keymap_t *m);
/* The key's index; *added when it was not there yet. */
uint32_t keymap_put(keymap_t *m, const uint8_t *k, size_t n, bool *added);

/*
 * ---- aggregate accumulators (exec_agg.c): one sql_agg_t per aggregate call per group ----
 *
 *   sql_agg_init(&g);                            // zeroed memory is not enough: it owns a buffer
 *   for each row of the group: sql_agg_add(&g, call, &src);   // src evaluates call's arguments in that row
 *   v = sql_agg_result(&g, call, arena, div_precision_increment, diag);   // may be called more than once
 *   sql_agg_free(&g);
 *
 * NULL arguments are skipped (COUNT(a, b) and GROUP_CONCAT skip a row when any argument is NULL); DISTINCT
 * keeps the keys seen.  What outlives a row (MIN/MAX's value, DISTINCT keys) is copied into src->arena, the
 * group's memory; GROUP_CONCAT's text is malloc'd (sql_agg_free).
 *
 * Result types (MariaDB's):
 *   COUNT(*) / COUNT(x) / COUNT(DISTINCT x, ...)   VAL_INT, 0 for no rows
 *   SUM(x)   integers and DECIMALs only: DECIMAL at the largest scale seen;  otherwise DOUBLE;   no rows: NULL
 *   AVG(x)   integers and DECIMALs only: DECIMAL, scale + div_precision_increment (at most 30);  otherwise
 *            DOUBLE;  no rows: NULL
 *   MIN / MAX            the argument's own value (value_compare: collation-aware);  no rows: NULL
 *   GROUP_CONCAT         VAL_STRING cut at @@group_concat_max_len bytes (src->concat_max; at a character
 *                        boundary) with warning 1260 naming the value cut, once per group; unsorted values
 *                        stop being kept once cut (memory bounded); ORDER BY keys sorted when the result is
 *                        read (ties in arrival order);  no rows: NULL
 *   BIT_AND / BIT_OR / BIT_XOR   VAL_UINT (BIT_AND of no rows = 18446744073709551615, the others 0)
 *   STD / STDDEV / STDDEV_POP / VARIANCE / VAR_POP / STDDEV_SAMP / VAR_SAMP   VAL_DOUBLE by Welford's method,
 *            shown with the argument's decimals + 4 for exact arguments;  NULL: no rows, or one row for _SAMP
 */
typedef struct sql_agg {
    uint64_t count;
    bool any;                 /* a non-NULL value was seen */
    bool exact;               /* SUM/AVG over integers/decimals only */
    __int128 isum;            /* exact sum, scaled by 10^scale */
    int scale;
    double dsum;
    value_t best;             /* MIN / MAX */
    uint64_t bits;
    buf_t concat;             /* GROUP_CONCAT: the text, or with ORDER BY (u32 key length, key, u32 length, text)s */
    uint64_t concat_max;      /* GROUP_CONCAT: @@group_concat_max_len when the group began */
    uint32_t items;           /* GROUP_CONCAT: values joined so far (unsorted) */
    uint32_t cut_item;        /* GROUP_CONCAT: the value the result was cut in (1-based), 0: not cut */
    bool cut_warned;          /* its warning 1260 was pushed */
    keymap_t distinct;
    bool distinct_init;
    double wmean, wm2;        /* STD / VARIANCE: Welford's running mean and sum of squared deviations */
    int vdec;                 /* their result's decimals: the argument's + 4, -1 once a DOUBLE was seen */
} sql_agg_t;

/* Where an accumulator's arguments come from: eval gives an expression's value in the current row. */
typedef struct sql_agg_src {
    int (*eval)(void *arg, const sql_expr_t *e, value_t *out);
    void *arg;
    arena_t *arena;           /* the group's memory */
    diag_t *diag;             /* conversion warnings */
    uint64_t concat_max;      /* GROUP_CONCAT's @@group_concat_max_len (0: MariaDB's default, 1 MiB) */
} sql_agg_src_t;

void sql_agg_init(sql_agg_t *g);
int sql_agg_add(sql_agg_t *g, const sql_expr_t *call, const sql_agg_src_t *src);
value_t sql_agg_result(sql_agg_t *g, const sql_expr_t *call, arena_t *a, uint32_t div_precision_increment,
                       diag_t *d);
void sql_agg_free(sql_agg_t *g);

/* ---- evaluation: the session's callbacks wrapped with the executor's (columns, aggregates, VALUES()) ---- */
typedef struct query query_t;
typedef struct group group_t;

typedef struct row_eval {
    sql_exec_ctx_t *x;
    sql_eval_ctx_t ev;
    query_t *q;              /* aggregates: the query whose current group is read */
    group_t *group;
    const value_t *values_row;/* VALUES(col) in ON DUPLICATE KEY UPDATE: the row that failed to insert */
    const cat_table_t *values_t;
    const struct win_run *win;/* window functions: the values of the calls for the current row (exec/window.c) */
} row_eval_t;

void row_eval_init(row_eval_t *xe, sql_exec_ctx_t *x);
/* A window call's value for the row being output (exec/window.c); -ER_* when there is none. */
int win_value(const struct win_run *w, const query_t *q, const sql_expr_t *e, value_t *out);
int row_eval(row_eval_t *xe, const sql_expr_t *e, const value_t *row, value_t *out);
/* WHERE-style truth: 1 true, 0 false/NULL, < 0 error. */
int row_eval_bool(row_eval_t *xe, const sql_expr_t *e, const value_t *row);

/* ---- a FROM source ---- */
typedef struct query_source {
    const char *db, *name, *alias;
    cat_table_t *t;           /* catalog reference (released at the end) or a virtual table's definition */
    bool is_virtual;
    value_t **vrows;          /* virtual tables: materialised rows */
    uint64_t nvrows;
    uint32_t base;            /* first slot of this source in the combined row */
    sql_join_kind_t join;     /* how it joins the sources before it (the first: INNER) */
    const sql_expr_t *on;
    /* A LEFT JOIN whose right side is itself a join (a LEFT JOIN (b JOIN c ON x) ON y): the group's first source
     * holds the index of its last (0: no group), every member is in_group; the group's ON is on its last source
     * when that one is inner-joined and no inner group ends there, else in the head's group_on, evaluated once a
     * row got through the last source; the whole group is NULL-extended together when no row gets through it
     * (exec/loop.c) */
    uint32_t group_last;
    bool in_group;
    const sql_expr_t *group_on;
    /* JSON_TABLE: its rows are made again from jt_doc (bound like an ON) each time the loop reaches it
     * (exec/jsontable.c) */
    struct jt_plan *jt;
    sql_expr_t *jt_doc;
    /* USING / NATURAL: an unqualified * shows a common column once, first (lead, on the earlier source) and
     * not again (hidden, on the later one); NULL when the source has none */
    bool *lead, *hidden;
    /* a derived table MariaDB merges into the outer query (no GROUP BY, aggregates, DISTINCT, LIMIT, UNION):
     * its select items' column definitions, which its columns keep; NULL otherwise */
    const res_col_t *dcols;
    const bool *need;         /* per table column: read by the query (index-only reads); NULL: all of them */
} query_source_t;

/* The columns an unqualified `*` lists, in MariaDB's order: FROM as written (a RIGHT JOIN ... ON lists its left
 * side first, though it reads it second), and for USING / NATURAL the common columns first, once, then the rest
 * of each side (a RIGHT JOIN ... USING lists its right side first, as MariaDB's swap does). */
typedef struct star_list {
    uint32_t *src, *col; /* source index, its column */
    uint32_t n;
} star_list_t;

typedef struct query {
    sql_exec_ctx_t *x;
    query_source_t *src;
    uint32_t nsrc;
    uint32_t width;           /* slots in the combined row */
    const char *clause;       /* for 1054 messages: "SELECT", "WHERE", "ORDER BY" ... (MariaDB 10.11 names) */
    /* aggregates */
    const sql_expr_t **aggs;
    uint32_t nagg, capagg;
    /* window function calls (OVER), in the select list and ORDER BY */
    const sql_expr_t **wins;
    uint32_t nwin, capwin;
    bool bind_error;
    /* a SELECT's WHERE, whose conjuncts over one view's columns that view's rows are read with (bind/view.c);
     * view_where_only: the view is the whole FROM, so unqualified names are its columns */
    const sql_expr_t *view_where;
    bool view_where_only;
    /* HAVING may name select-item aliases: they bind to slots width + i of an extended row */
    const char **alias_names;
    uint32_t nalias;
    uint64_t rows_read;       /* rows of the first source read so far (MariaDB's "at row N" in warnings) */
    bool locking;             /* UPDATE / DELETE / FOR UPDATE: rows of every table source are X-locked, re-read */
    bool lock_shared;         /* FOR SHARE / LOCK IN SHARE MODE: S locks instead */
    buf_t *cur_pk;            /* when set (nsrc entries): each source's current clustered key (multi-table DML) */
    const struct access_path *paths;/* a prepared plan's access paths (nsrc entries); NULL: chosen at every run */
    bool aggs_shared;         /* aggs belongs to a prepared plan (query_release leaves it) */
    /* ANALYZE: per source (nsrc entries), the times it was read from the start (scans), the rows read and the
     * rows that went on (its ON and, for the last source, WHERE held); NULL otherwise */
    uint64_t *an_scans, *an_read, *an_passed;
    /* The join order (plan/join.c), for a FROM of inner joins only: the sources are read in the order jorder
     * gives (jorder[d]: the source at depth d; jpos its inverse), each source's access path may use any source
     * read before it (jbefore[s]: their bit mask), and every ON is evaluated at the depth where all it names is
     * read (jon[d], jnon[d]).  NULL jorder: FROM order, each ON at its own source. */
    bool no_reorder;          /* SELECT STRAIGHT_JOIN, or a STRAIGHT_JOIN in FROM: FROM order */
    star_list_t star;         /* what an unqualified `*` lists (bind_from); n == 0: every source's columns */
    bool jinner;              /* only inner joins: every ON is a condition on the whole row (as WHERE) */
    uint32_t *jorder, *jpos;
    uint64_t *jbefore;
    const sql_expr_t ***jon;
    uint32_t *jnon;
    const sql_expr_t *jwhere;        /* the WHERE jorder and jpaths were chosen for (a re-run reuses them) */
    struct access_path *jpaths;
} query_t;

/* Prepared statements' plans (x->plan, exec_select.c), keyed by the statement part they were bound for:
 * plan_cache_valid: is the plan bound for key over q's sources as they are now (same table definitions, database)?
 * plan_cache_reuse: that, and then q reads through the plan's access paths (the statement's tree is still bound).
 * plan_cache_begin: before binding q for key (false: no plan, or q can't have one: bind as usual); plan_cache_end after
 * binding succeeded: chooses and keeps the access paths for where. */
bool plan_cache_valid(const sql_exec_ctx_t *x, const void *key, const query_t *q);
bool plan_cache_reuse(sql_exec_ctx_t *x, const void *key, query_t *q);
bool plan_cache_begin(sql_exec_ctx_t *x, const void *key, query_t *q);
void plan_cache_end(sql_exec_ctx_t *x, query_t *q, const sql_expr_t *where);

/* Resolves the FROM clause (catalog references, virtual tables) into q; errors 1146, 1046 ... */
int bind_from(query_t *q, sql_exec_ctx_t *x, const sql_from_t *from);
/* bind_from for a SELECT with this WHERE: a mergeable view in FROM reads its rows with WHERE's conditions on it. */
int bind_from_where(query_t *q, sql_exec_ctx_t *x, const sql_from_t *from, const sql_expr_t *where);
void query_release(query_t *q);
/* A source of computed rows (derived tables, WITH elements): a virtual table `alias` of result columns cols
 * (renamed by names when given); sel, when not NULL, lets mergeable columns pass their metadata through. */
int bind_push_rows(query_t *q, const char *alias, const sql_select_t *sel, const res_col_t *cols, int ncols,
                   value_t **rows, uint64_t n, uint32_t nc, const char *const *names, sql_join_kind_t join,
                   const sql_expr_t *on);
/* A view's columns as a table definition in statement memory (SHOW COLUMNS, SHOW CREATE VIEW,
 * information_schema); NULL when db.name is not a view, or when it no longer binds (1356 pushed then: test
 * x->diag->error_code).  *v receives the definition when not NULL.  catalog_table_release may be called on it. */
struct cat_view;
cat_table_t *bind_view_table(sql_exec_ctx_t *x, const char *db, const char *name, struct cat_view *v);
/* Whether e calls an aggregate function (outside subqueries). */
bool expr_has_aggregate(const sql_expr_t *e);
/* A table reference naming a WITH element (f->cte): its rows, computed here (bind/cte.c). */
int bind_cte(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on);
/* Binds the expressions of sel's WINDOW clause (bind/from.c). */
int bind_windows(query_t *q, const sql_select_t *sel, bool allow_agg);
/* Binds every column reference in e to a slot (1054 / 1052 on failure); collects aggregates when allowed. */
int bind_expr(query_t *q, sql_expr_t *e, const char *clause, bool allow_agg);
/* Appends a source to q (its first slot after the others'). */
void bind_push_source(query_t *q, query_source_t *s);
/* JSON_TABLE in FROM (exec/jsontable.c): its columns and paths checked, a source pushed; its rows for the row of
 * the sources before it (row: the combined row) into s->vrows. */
int jsontable_bind(query_t *q, const sql_from_t *f, sql_join_kind_t join, const sql_expr_t *on);
int jsontable_rows(row_eval_t *xe, query_source_t *s, const value_t *row);


/* Row callback of a scan: 0 go on, 1 stop (LIMIT reached), < 0 error. */
typedef int (*query_row_fn)(void *arg, const value_t *row);
/* Runs the nested loops over q's sources with WHERE, calling fn for each combined row (output-domain values).
 * order_src_index: when >= 0 the outer source is read in this index's order (desc: backwards). */
int query_run(query_t *q, const sql_expr_t *where, query_row_fn fn, void *arg, int order_index, bool order_desc);

/* The access path chosen for a single table (UPDATE / DELETE reuse it): scans matching rows, giving the stored
 * values, the output values and the clustered key. */
typedef int (*query_dml_fn)(void *arg, const buf_t *pk, const value_t *stored, const value_t *out);
int query_scan_dml(query_t *q, const sql_expr_t *where, query_dml_fn fn, void *arg, int order_index, bool order_desc);
/* Whether an expression can be evaluated row by row while the rows it reads are being written: no subquery, no
 * stored function, no window (insert.c; used by INSERT ... SELECT and by UPDATE / DELETE streaming). */
bool exec_expr_streams(const sql_expr_t *e);

/* ---- helpers ---- */
value_t value_copy_into(arena_t *a, const value_t *v);
/* Appends a memcomparable encoding of any value (sort / group / distinct keys). */
void key_append_value(buf_t *b, const value_t *v, bool desc);
/* Result column metadata of a table column. */
void column_meta(res_col_t *c, const cat_table_t *t, uint32_t col, const char *db, const char *table_alias,
               const char *name);
/* Metadata as the client sees it: strings in character_set_results (charset and length), as MariaDB sends. */
void column_meta_results(sql_exec_ctx_t *x, res_col_t *c, const cat_table_t *t, uint32_t col, const char *db,
                       const char *table_alias, const char *name);
/* A column definition describing a result column (CREATE TABLE ... SELECT, derived tables). */
void column_from_result(cat_column_t *c, const res_col_t *r);
/* The session's engine transaction for a statement (begins one when none is open). */
int exec_trx(sql_exec_ctx_t *x, engine_trx_t **out);
/* The database of a name (its own or the current one); pushes 1046 when neither. */
const char *exec_db_name(sql_exec_ctx_t *x, const char *db);

/* TEMPORARY tables: (db, name) of this connection's temporary table -> the real table; false when none. */
#define EXEC_TEMP_DB "#sql_tmp"
/* A SHARED metadata lock on a table the statement reads or writes, until the transaction ends (access/mdl.h);
 * 0 or -ER_* pushed (1205 lock_wait_timeout, 1317 KILL QUERY). */
int exec_mdl_shared(sql_exec_ctx_t *x, const char *db, const char *name);
/* An index build's NO_WRITE lock becomes EXCLUSIVE to publish the new definition (no-op without one). */
int exec_mdl_upgrade(sql_exec_ctx_t *x);
/* After a table of a real database was opened for reading or writing: registers the multi-statement transaction
 * (autocommit off or after BEGIN) and records the access for the session tracker (exec.c). */
int exec_table_used(sql_exec_ctx_t *x, bool write);
bool exec_temp_map(sql_exec_ctx_t *x, const char **db, const char **name);

int exec_select_stmt(sql_exec_ctx_t *x, const sql_select_t *sel);
int exec_select_rows(sql_exec_ctx_t *x, const sql_select_t *sel, value_t ***rows, uint64_t *nrows, uint32_t *ncols);
int exec_select_push(sql_exec_ctx_t *x, const sql_select_t *sel, bool (*accept)(void *arg, const query_t *q, uint32_t nitems),
                     int (*row)(void *arg, const value_t *vals), void *arg, uint32_t *ncols, bool *pushed);
int exec_select_describe(sql_exec_ctx_t *x, const sql_select_t *sel, res_col_t **cols, int *ncols);
/* As exec_select_describe, plus per column what CREATE TABLE ... SELECT needs beyond the column definition:
 * an integer expression's display width when it is not its length (YEAR(d) is int(5) of length 4), a DECIMAL
 * expression's precision (-d is decimal(10,2) of length 13); 0 otherwise.  Arena array. */
int exec_select_describe_widths(sql_exec_ctx_t *x, const sql_select_t *sel, res_col_t **cols, uint32_t **widths,
                                int *ncols);
int exec_show_stmt(sql_exec_ctx_t *x, const sql_show_t *sh);
/* Appends `s` (q is the quote: '`', or '"' under ANSI_QUOTES), the quote doubled inside. */
void exec_ident_quote(buf_t *b, const char *s, char q);
/* SHOW CREATE TABLE's text of t (mode: SQL_SHOW_CREATE_* flags), in arena a. */
char *exec_show_create_table_text(arena_t *a, const cat_table_t *t, unsigned mode);
/* The same under another name (a TEMPORARY table's own), CREATE TEMPORARY TABLE when temporary. */
char *exec_show_create_table_text_as(arena_t *a, const cat_table_t *t, unsigned mode, const char *name, bool temporary);
int exec_explain(sql_exec_ctx_t *x, const sql_stmt_t *inner, bool analyze, bool extended, bool partitions,
                 bool json);
/* information_schema tables as rows: fills s (definition, rows) or returns 1146. */
int exec_infoschema(sql_exec_ctx_t *x, const char *name, query_source_t *s);
/* performance_schema tables as rows (events_statements_summary_by_digest, from the session): fills s or returns
 * 1146; and their TRUNCATE (0 or 1146). */
int exec_perfschema(sql_exec_ctx_t *x, const char *name, query_source_t *s);
int exec_perfschema_truncate(sql_exec_ctx_t *x, const char *name);
bool exec_show_handles(const sql_show_t *sh);
/* ANALYZE / CHECK / OPTIMIZE / REPAIR / CHECKSUM TABLE (exec_maint.c). */
int exec_maint(sql_exec_ctx_t *x, const sql_stmt_t *st);
/* SHOW CREATE PROCEDURE | FUNCTION's text of a routine (ddl/routine.c) */
struct cat_routine;
const char *routine_create_text(arena_t *a, const struct cat_routine *r, char quote);
/* information_schema.ROUTINES / PARAMETERS' columns of a type (-1: NULL), and a routine's header parsed again */
typedef struct routine_type_facts {
    const char *data_type, *dtd, *cs, *coll;
    int64_t char_max, char_octet, num_prec, num_scale, dt_prec;
} routine_type_facts_t;
int routine_type_facts(sql_exec_ctx_t *x, const sql_type_t *ty, uint16_t db_coll, routine_type_facts_t *out);
sql_routine_stmt_t *routine_header(sql_exec_ctx_t *x, const struct cat_routine *r);
/* Copies a table into new trees (OPTIMIZE TABLE; exec.c's ALTER TABLE rebuild with no change). */
int exec_table_rebuild(sql_exec_ctx_t *x, const sql_name_t *tn);

/* ---- index builds (idxbuild.c) ---- */
/* Builds the secondary indexes ixs[0..n) of t from its rows (a read view's), each sorted and loaded bottom-up into
 * a new tree whose id goes into t->idx[ixs[i]].tree; 1062 for a duplicate of a UNIQUE one, 1317 when killed.  The
 * caller keeps writers out and publishes the trees; on failure none is left. */
int exec_index_build(sql_exec_ctx_t *x, cat_table_t *t, const uint32_t *ixs, uint32_t n);

/* The JSON columns' CHECK (json_valid(col)) on a row about to be written: 0, or 4025 (jsoncheck.c). */
int exec_json_check(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *row);

/* ---- triggers (trigfire.c): a table's triggers loaded once per statement, fired around each row ---- */
enum { EXEC_TRG_INSERT, EXEC_TRG_UPDATE, EXEC_TRG_DELETE };
enum { EXEC_TRG_BEFORE, EXEC_TRG_AFTER };
#define EXEC_TRG_MAX_DEPTH 64
typedef struct exec_trg_table exec_trg_table_t;
typedef struct exec_trg {
    const cat_table_t *t;
    struct cat_trigger *v;     /* the table's triggers in firing order */
    uint32_t n;
    unsigned mask;             /* bit event * 2 + timing: some trigger of that event and timing */
    const char *const *cols;   /* the table's column names (NEW.x / OLD.x resolve against them) */
    void **cache;              /* per trigger: its body as the session parsed it, for the statement */
    bool *assigned;            /* non-NULL: exec_trg_fire marks the columns a trigger's SET NEW.col assigned */
} exec_trg_t;
/* The triggers of t (none when the session cannot run them); 1442 when a trigger running now fired from a
 * statement changing t. */
int exec_trg_load(sql_exec_ctx_t *x, const cat_table_t *t, exec_trg_t *tr);
bool exec_trg_has(const exec_trg_t *tr, int event, int timing);
/* Fires the triggers of event and timing for one row (stored values; NULL for the row the event has not); a
 * BEFORE trigger's NEW assignments are stored into new_stored. */
/* After a BEFORE trigger (its SET NEW.col = NULL is kept): a NOT NULL column left NULL is 1048, an error or
 * (error false) a warning and the column's implicit default (MariaDB checks NOT NULL there, MDEV-8605). */
int exec_trg_null_check(sql_exec_ctx_t *x, const cat_table_t *t, value_t *row, bool error, uint64_t rowno);
int exec_trg_fire(sql_exec_ctx_t *x, exec_trg_t *tr, int event, int timing, const value_t *old_stored,
                  value_t *new_stored, uint64_t rowno);
/* The same for column c's value v alone. */
int exec_json_check_col(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t c, const value_t *v);

#endif
