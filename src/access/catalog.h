/*
 * The catalog: which databases and tables exist and what they look like (columns, indexes, options, and the
 * engine trees holding their rows).  It lives IN the engine, in one system tree, so a DDL commits with the
 * engine's redo and the catalog and the data never disagree after kill -9; it is loaded whole at start and
 * cached in memory.
 *
 * Table definitions are immutable once published: a reader takes a reference (catalog_table_get) and may use it
 * for a whole statement while DDL publishes a new version beside it; the last release frees the old one.  Only
 * the auto-increment and hidden-row-id counters change in place (atomics, shared by versions of one table).
 *
 * Names: database and table names are case-sensitive (lower_case_table_names=0, as MariaDB on Linux); column
 * and index names are not.  information_schema, performance_schema and mysql are reserved: they exist (as
 * virtual schemas served by the executor) and cannot be created or dropped.
 */
#ifndef STRATA_SQL_CATALOG_H
#define STRATA_SQL_CATALOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "access/rowcodec.h"
#include "util/arena.h"
#include "util/diag.h"

#define CAT_NAME_MAX 64

/* Column default kinds. */
typedef enum cat_default {
    CAT_DEF_NONE = 0,   /* no DEFAULT clause (NOT NULL column: "no default"; nullable: NULL) */
    CAT_DEF_NULL,       /* DEFAULT NULL */
    CAT_DEF_VALUE,      /* DEFAULT 'text' (default_text, as the literal's text) */
    CAT_DEF_NOW,        /* DEFAULT CURRENT_TIMESTAMP[(fsp)] */
    CAT_DEF_EXPR,       /* DEFAULT (expr) calling a function or computing (uuid(), curdate(), (1 + 1)): default_text
                           is the expression as MariaDB shows it, evaluated for each row that takes the default */
} cat_default_t;

typedef struct cat_column {
    const char *name;
    rc_col_t rc;            /* type, unsigned, nullable, collation, length, scale (prefix unused) */
    uint32_t display_width; /* INT(11): 0 when not given */
    bool zerofill;
    bool auto_increment;
    bool on_update_now;     /* ON UPDATE CURRENT_TIMESTAMP */
    bool explicit_coll;     /* CHARACTER SET / COLLATE written on the column */
    bool invisible;         /* INVISIBLE: left out of SELECT * and of an INSERT without a column list */
    bool is_json;           /* written JSON: LONGTEXT with MariaDB's CHECK (json_valid(col)) (sql/exec/jsoncheck.c) */
    cat_default_t def;
    const char *default_text;
    const char *comment;    /* "" when none */
    const char **elems;     /* ENUM / SET members, in order */
    uint32_t nelems;
    /* [GENERATED ALWAYS] AS (expr) VIRTUAL | STORED: gen_expr is the expression as MariaDB prints it (NULL for an
     * ordinary column), computed for every row written (sql/exec/gencol.c).  strata stores a VIRTUAL column's
     * value too (so it can be indexed and logged like any other); gen_stored says what the user wrote. */
    const char *gen_expr;
    bool gen_stored;
    bool gen_on_read;       /* a VIRTUAL one whose value is not fixed by the row (RAND(), NOW(), a variable ...): also
                               computed again for every read, as MariaDB computes it; never indexed */
} cat_column_t;

typedef enum cat_index_kind { CAT_IDX_PRIMARY = 0, CAT_IDX_UNIQUE, CAT_IDX_KEY } cat_index_kind_t;

typedef struct cat_index_col {
    uint32_t col;       /* index into the table's columns */
    uint32_t prefix;    /* prefix length in characters, 0 = whole column */
    bool desc;
} cat_index_col_t;

typedef struct cat_index {
    const char *name;       /* "PRIMARY" for the primary key */
    cat_index_kind_t kind;
    cat_index_col_t *cols;
    uint32_t ncols;
    engine_tree_id_t tree;  /* secondary indexes: their own tree; PRIMARY: the table's clustered tree */
    uint8_t key_version;    /* RC_KEY_VERSION at creation */
    const char *comment;
} cat_index_t;

/* Referential actions of a foreign key (ON DELETE / ON UPDATE), as InnoDB has them.  The values are the parser's
 * (sql_fk_action_t); SET DEFAULT is stored as RESTRICT, which is what InnoDB does with it. */
typedef enum cat_fk_action { CAT_FK_RESTRICT = 0, CAT_FK_CASCADE, CAT_FK_SET_NULL, CAT_FK_NO_ACTION } cat_fk_action_t;

/* A FOREIGN KEY of the (child) table: its columns reference ref_db.ref_table's columns, by name (the names survive
 * ALTERs that renumber columns; a column a key names cannot be dropped). */
typedef struct cat_fk {
    const char *name;        /* the constraint's name, unique in its database */
    const char **cols;       /* ncols child columns */
    const char **ref_cols;   /* ncols referenced columns */
    uint32_t ncols;
    const char *ref_db, *ref_table;
    uint8_t on_delete, on_update; /* cat_fk_action_t */
} cat_fk_t;

/* A CHECK constraint: expr is its condition as MariaDB prints it (parsed again where it is evaluated). */
typedef struct cat_check {
    const char *name;        /* column-level: the column's name */
    const char *expr;
    bool column;             /* written on a column (SHOW CREATE TABLE prints it there) */
} cat_check_t;

/* Counters shared by every version of one table (DDL replaces the definition, not these). */
typedef struct cat_counters {
    _Atomic uint64_t auto_inc; /* next AUTO_INCREMENT value */
    _Atomic uint64_t row_id;   /* next hidden row id (tables without a primary key) */
    _Atomic int refs;
} cat_counters_t;

typedef struct cat_table {
    const char *db, *name;
    uint64_t id;
    cat_column_t *cols;
    uint32_t ncols;
    cat_index_t *idx;       /* idx[0] is the PRIMARY KEY when has_pk */
    uint32_t nidx;
    bool has_pk;            /* else rows are keyed by a hidden 8-byte big-endian row id */
    engine_tree_id_t tree;  /* the clustered tree (rows) */
    const char *engine;     /* as the user named it ("InnoDB" by default) */
    uint16_t coll;          /* table default collation */
    const char *comment;
    const char *tablespace; /* NULL: the default tablespace */
    uint32_t space_id;
    uint64_t auto_inc_start;/* AUTO_INCREMENT=n table option (1 when not given) */
    int64_t create_time;    /* unix seconds */
    uint64_t version;       /* catalog version that published this definition */
    cat_fk_t *fks;          /* FOREIGN KEYs of this table (as the child) */
    uint32_t nfks;
    cat_check_t *checks;    /* CHECK constraints, column-level ones first in column order, then table-level */
    uint32_t nchecks;
    bool gen_on_read;       /* some column is gen_on_read (derived when the record is read) */
    /* private */
    _Atomic int refs;
    cat_counters_t *ctr;
    arena_t mem;
} cat_table_t;

typedef struct catalog catalog_t;

/* Opens (creating on a fresh datadir) and loads the catalog.  datadir holds the file naming the system tree. */
int catalog_open(engine_t *e, const char *datadir, catalog_t **out);
/* innodb_force_recovery >= 1, before catalog_open: a damaged record or page of the system tree is skipped and
 * named in the error log (the tables it described are not served) instead of failing the open. */
void catalog_set_skip_damaged(bool on);
void catalog_close(catalog_t *c);
engine_t *catalog_engine(catalog_t *c);
/* Increases with every DDL; a plan or cached metadata made at version v is stale when this differs. */
uint64_t catalog_version(catalog_t *c);
/* Moves it on for a change outside the tables' definitions (a routine's record: sessions' parsed routines). */
void catalog_version_bump(catalog_t *c);

/* ---- databases ---- */
bool catalog_db_is_virtual(const char *db);            /* information_schema, performance_schema, mysql */
bool catalog_db_exists(catalog_t *c, const char *db);  /* virtual schemas included */
/* Default collation of a database (COLL_DEFAULT if unknown). */
uint16_t catalog_db_coll(catalog_t *c, const char *db);
int catalog_db_create(catalog_t *c, const char *db, uint16_t coll, bool if_not_exists, diag_t *d);
/* Drops the database and every table in it; *ntables (may be NULL) receives how many were dropped. */
int catalog_db_drop(catalog_t *c, const char *db, bool if_exists, diag_t *d, uint32_t *ntables);
/* Sorted names of every database (virtual ones included) into a; n receives the count. */
int catalog_db_list(catalog_t *c, arena_t *a, const char ***names, uint32_t *n);

/* ---- tables ---- */
/* A reference to the current definition, or NULL (no error pushed).  Release it when done. */
cat_table_t *catalog_table_get(catalog_t *c, const char *db, const char *name);
void catalog_table_release(cat_table_t *t);
/* Sorted table names of db into a. */
int catalog_table_list(catalog_t *c, const char *db, arena_t *a, const char ***names, uint32_t *n);
/*
 * Creates a table from def (built by the caller anywhere, e.g. in a statement arena; the catalog keeps its own
 * copy).  Creates the clustered tree and a tree per secondary index in def->space_id, then commits the
 * definition.  Checks: database exists (1049), name free (1050, or a note with if_not_exists and returns 1),
 * at least one column (1113), duplicate column (1060) and key names (1061), key columns exist (1072), one
 * auto-increment column that leads a key (1075), one primary key (1068).
 */
int catalog_table_create(catalog_t *c, const cat_table_t *def, bool if_not_exists, diag_t *d);
/* References (release each) to every table with a FOREIGN KEY naming db.name as its parent (db.name itself
 * when it references itself), into a; *n receives the count. */
int catalog_fk_children(catalog_t *c, const char *db, const char *name, arena_t *a, cat_table_t ***out, uint32_t *n);
/* Does any table have a FOREIGN KEY?  One atomic read while the catalog does not change (the row path's test). */
bool catalog_fk_any(catalog_t *c);
/* Does any table of db other than except have a foreign key called name?  (InnoDB's names are per database.) */
bool catalog_fk_name_taken(catalog_t *c, const char *db, const char *name, const char *except);
/* Drops a table and its trees (1051 unless if_exists). */
int catalog_table_drop(catalog_t *c, const char *db, const char *name, bool if_exists, diag_t *d);
/*
 * Publishes a changed definition of an existing table (same db/name/id): CREATE/DROP INDEX, TRUNCATE (new
 * trees), ALTER.  Trees named in the new definition that the old one lacks must already exist (the caller built
 * them); trees the old one had and the new one lacks are dropped after the commit.
 */
int catalog_table_replace(catalog_t *c, const cat_table_t *def, diag_t *d);
/* The same, when ALTER TABLE renames columns from[i] to to[i]: other tables' FOREIGN KEYs referencing those
 * columns are renamed in the same catalog commit (the table's own keys are the caller's, in def). */
/* A key's referenced columns from[i] renamed to to[i], all at once (a swap stays a swap). */
void cat_fk_rename_ref_cols(cat_fk_t *f, const char *const *from, const char *const *to, uint32_t n);
int catalog_table_replace_renaming(catalog_t *c, const cat_table_t *def, const char *const *from,
                                   const char *const *to, uint32_t nren, diag_t *d);
int catalog_table_rename(catalog_t *c, const char *db, const char *name, const char *new_db, const char *new_name,
                         diag_t *d);
/* Saves a table's AUTO_INCREMENT counter now (ALTER TABLE ... AUTO_INCREMENT=, TRUNCATE); catalog_close saves
 * all of them.  After a crash a counter is the largest value in the data + 1 (or the last saved, if larger). */
int catalog_autoinc_persist(catalog_t *c, const cat_table_t *t);

/* Records other modules keep per table in the catalog's tree (durable at return, deleted with the table):
 * CAT_AUX_STATS is access/stats.c's.  get: 0, STRATA_ENOTFOUND or an engine error. */
#define CAT_AUX_STATS 'S'
int catalog_aux_put(catalog_t *c, uint8_t kind, uint64_t table_id, const void *val, size_t len);
int catalog_aux_get(catalog_t *c, uint8_t kind, uint64_t table_id, buf_t *out);
/* The string fields of the records routines, triggers and events keep (access/routine.c, trigger.c, event.c):
 * each a 4-byte length (host order) and its bytes.  put appends *f[0..n) (NULL as ""); get reads n of them from
 * *p (advanced past them) into *f[i], NUL-terminated copies in a: 0, or -1 when they run past end. */
void catalog_strings_put(buf_t *b, const char **f[], size_t n);
int catalog_strings_get(arena_t *a, const uint8_t **p, const uint8_t *end, const char **f[], size_t n);
/* Deletes one record (durable at return); 0, STRATA_ENOTFOUND or an engine error. */
int catalog_aux_delete(catalog_t *c, uint8_t kind, uint64_t id);
/* Views (sql/ddl/view.c): id = a hash of the view's database and name, the value its definition. */
#define CAT_AUX_VIEW 'V'
/* Stored procedures and functions (access/routine.h): id = a hash of kind, database and name. */
#define CAT_AUX_ROUTINE 'P'
/* Triggers (access/trigger.h): id = a hash of database and name. */
#define CAT_AUX_TRIGGER 'G'
/* Events (access/event.h): id = a hash of database and name. */
#define CAT_AUX_EVENT 'E'
/* The same records written inside the caller's transaction trx (val NULL: delete), so that they commit or roll
 * back with its rows: the replica's applied position (CAT_AUX_REPL_GTID per domain, CAT_AUX_REPL_FILE id 0). */
#define CAT_AUX_REPL_GTID 'R'
#define CAT_AUX_REPL_FILE 'Q'
int catalog_aux_put_trx(catalog_t *c, engine_trx_t *trx, uint8_t kind, uint64_t id, const void *val, size_t len);
/* A function run inside every catalog commit the calling thread makes while it is set (fn NULL: none), with that
 * commit's transaction, before it commits: what fn writes commits with the definition change or not at all.
 * The replica's applier sets it around a replicated statement to write its position there, so that a DDL and
 * the position it moves to survive a crash together.  sql_commit_trx runs it too (catalog_commit_hook_run) for
 * the transaction of a replicated DML statement.  A non-zero return rolls the commit back.
 * A DDL made of several catalog commits holds the hook (hold true ... false, nested) around the commits that
 * are not its last: DROP DATABASE around its tables' drops (the hook runs with the database's own record),
 * DROP TABLE and RENAME TABLE of several tables around all but the last table, CREATE OR REPLACE around its drop.  A crash in between leaves the
 * position before the statement (it then runs again: DROP DATABASE drops what is left, the others fail
 * visibly), never past a statement half done. */
typedef int (*catalog_commit_hook_fn)(void *arg, engine_trx_t *trx);
void catalog_commit_hook_set(catalog_commit_hook_fn fn, void *arg);
void catalog_commit_hook_hold(bool hold);
int catalog_commit_hook_run(engine_trx_t *trx);
/* The replica's applied GTID of a domain (the 'R' record) in trx: the applier, and recovery re-applying a
 * transaction a replica logged (log_slave_updates). */
int catalog_repl_gtid_put(catalog_t *c, engine_trx_t *trx, uint32_t domain, uint32_t server, uint64_t seq);
/* A DDL statement owes its binlog QUERY event from its first catalog commit on: while set (per thread), every
 * catalog commit also puts rec as record CAT_AUX_DDL_LOG seq in its own transaction, so after a crash the
 * record is there exactly when some catalog change of the statement is (commit/commit.c writes and settles it).
 * written: some commit included it (*seq receives it). */
#define CAT_AUX_DDL_LOG 'L'
void catalog_ddl_pending_set(uint64_t seq, const void *rec, size_t len);
bool catalog_ddl_pending_written(uint64_t *seq);
void catalog_ddl_pending_clear(void);
/* Commits the note alone, now (a statement whose change is not in the catalog: accounts). */
int catalog_ddl_pending_commit(catalog_t *c);
/* A table record's value decoded on its own (tools and the fuzz target): NULL when it does not parse, else a
 * table to give back with catalog_table_release. */
cat_table_t *catalog_table_from_record(const void *p, size_t n);
/* Calls fn for every record of a kind, in id order; 0 or an engine error. */
int catalog_aux_scan(catalog_t *c, uint8_t kind, void (*fn)(void *arg, uint64_t id, const void *val, size_t len),
                     void *arg);

/* ---- helpers for building definitions (into any arena) ---- */
const cat_index_t *cat_table_pk(const cat_table_t *t);       /* NULL without a primary key */
int cat_table_col(const cat_table_t *t, const char *name);  /* column index or -1 (case-insensitive) */
int cat_table_index(const cat_table_t *t, const char *name); /* index number or -1 (case-insensitive) */
/* The column an AUTO_INCREMENT applies to, or -1. */
int cat_table_autoinc_col(const cat_table_t *t);
/* Deep copy of t into arena a (the result is a plain definition, not registered). */
cat_table_t *cat_table_copy(arena_t *a, const cat_table_t *t);

/* Column type names and wire types (catalog.c owns the table). */
const char *sqlt_name(sqlt_t t);            /* "int", "varchar", ... as SHOW CREATE TABLE writes them */
sqlt_t sqlt_by_name(const char *name);      /* SQLT_NONE when unknown */

#endif
