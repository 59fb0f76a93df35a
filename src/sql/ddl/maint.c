/*
 * Table maintenance statements: ANALYZE, CHECK, OPTIMIZE, REPAIR and CHECKSUM TABLE, answered as MariaDB 10.11
 * answers them for InnoDB tables.
 *
 * Every statement takes a list of tables and answers with one result set.  ANALYZE / CHECK / OPTIMIZE / REPAIR
 * send rows (Table, Op, Msg_type, Msg_text), Table being `db.name` as written (the current database filled in):
 *   ANALYZE    statistics recomputed (access/stats.h)                     status OK
 *              PERSISTENT FOR ...: first "Engine-independent statistics collected"
 *   CHECK      every tree of the table checked against itself and the extents (engine_tree_check, the check
 *              tools/strata-check makes offline), then each secondary index against the rows: as many entries
 *              as rows, and every row's entry present (skipped with QUICK)  status OK, or Warning rows with
 *              what is wrong and "error Corrupt"
 *   OPTIMIZE   "note Table does not support optimize, doing recreate + analyze instead": the table copied into
 *              new trees (the old trees' extents go back to the tablespace), then analyzed    status OK
 *   REPAIR     "note The storage engine for the table doesn't support repair" (no status row)
 * A table that does not exist gives "Error Table 'db.t' doesn't exist" and "status Operation failed".
 * CHECKSUM TABLE sends (Table, Checksum): MariaDB's checksum of the rows (sql/ddl/checksum.h), NULL with QUICK (InnoDB
 * keeps no live checksum) and, for a missing table, NULL with an Error-level condition 1146 in the warnings.
 *
 * Locks: CHECK, ANALYZE and CHECKSUM take the table's SHARED metadata lock, so concurrent reads and writes go on
 * and the checks read one consistent read view; OPTIMIZE takes the EXCLUSIVE one (exec.c ddl_mdl) for the copy.
 * What reaches the binary log (exec.c ddl_logged): ANALYZE, OPTIMIZE and REPAIR as QUERY events unless LOCAL /
 * NO_WRITE_TO_BINLOG; CHECK and CHECKSUM never.  Privileges are checked before (session/priv_stmt.c).
 */
#include <stdio.h>
#include <string.h>

#include "sql/ddl/checksum.h"
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "access/table.h"
#include "util/util.h"

/* The admin result set being built: its rows are sent when the statement ends. */
typedef struct maint_out {
    sql_exec_ctx_t *x;
    const char *op;      /* "analyze", "check", ... */
    const char *table;   /* current table's `db.name` */
    res_cell_t **rows;
    uint32_t ncols;
    uint64_t n, cap;
} maint_out_t;

static res_cell_t cell(const char *s)
{
    return s ? (res_cell_t){.p = s, .len = strlen(s)} : (res_cell_t){.null = true, .p = ""};
}

static res_cell_t *out_row(maint_out_t *o)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 16;
        res_cell_t **nr = arena_alloc(o->x->arena, sizeof *nr * o->cap);
        if (o->n)
            memcpy(nr, o->rows, sizeof *nr * o->n);
        o->rows = nr;
    }
    return o->rows[o->n++] = arena_calloc(o->x->arena, sizeof(res_cell_t) * o->ncols);
}

static void msg(maint_out_t *o, const char *type, const char *text)
{
    res_cell_t *r = out_row(o);
    r[0] = cell(o->table);
    r[1] = cell(o->op);
    r[2] = cell(type);
    r[3] = cell(arena_strdup(o->x->arena, text));
}

static res_col_t col(const char *name, uint8_t type, uint32_t len, uint8_t decimals)
{
    return (res_col_t){.schema = "", .table = "", .org_table = "", .name = name, .org_name = "",
                       .charset = type == MYSQL_TYPE_LONGLONG ? CHARSET_BINARY : COLL_UTF8MB3_GENERAL_CI,
                       .length = len, .type = type, .decimals = decimals,
                       .flags = type == MYSQL_TYPE_LONGLONG ? COLF_NUM : 0};
}

static void out_send(maint_out_t *o, bool checksum)
{
    sql_exec_ctx_t *x = o->x;
    res_col_t admin[4] = {col("Table", MYSQL_TYPE_VAR_STRING, 512, 39), col("Op", MYSQL_TYPE_VAR_STRING, 40, 39),
                          col("Msg_type", MYSQL_TYPE_VAR_STRING, 40, 39),
                          col("Msg_text", MYSQL_TYPE_MEDIUM_BLOB, 1572864, 39)};
    res_col_t sum[2] = {col("Table", MYSQL_TYPE_VAR_STRING, 1536, 39), col("Checksum", MYSQL_TYPE_LONGLONG, 21, 0)};
    x->sink->columns(x->sink, checksum ? sum : admin, checksum ? 2 : 4);
    for (uint64_t i = 0; i < o->n; i++)
        x->sink->row(x->sink, o->rows[i]);
    x->sink->rows_end(x->sink, x->more);
}

/* ---------------------------------------------------------------- CHECK TABLE */

typedef struct check_faults {
    maint_out_t *o;
    uint32_t n;
} check_faults_t;

static void check_fault(void *ctx, const char *text)
{
    check_faults_t *f = ctx;
    if (f->n++ < 20) /* one broken page can produce thousands; the first ones say enough */
        msg(f->o, "Warning", text);
}

/* Each secondary index against the clustered rows, in one read view: entry count and every row's entry. */
static int check_indexes(maint_out_t *o, const cat_table_t *t, check_faults_t *f)
{
    sql_exec_ctx_t *x = o->x;
    uint32_t nsec = 0;
    for (uint32_t i = 0; i < t->nidx; i++)
        nsec += t->idx[i].tree != t->tree;
    if (!nsec)
        return 0;
    engine_trx_t *trx;
    int rc = engine_trx_begin(catalog_engine(sql_exec_catalog()), &trx);
    if (rc)
        return table_engine_err(x->diag, t, rc);
    uint64_t *missing = arena_calloc(x->arena, sizeof(uint64_t) * t->nidx);
    uint64_t rows = 0;
    table_scan_t sc;
    memset(&sc, 0, sizeof sc);
    buf_t key, val;
    buf_init(&key);
    buf_init(&val);
    rc = table_scan_open(&sc, trx, t, -1, NULL, NULL, false, x->arena);
    while (rc == 0 && (rc = table_scan_next(&sc)) == 0) {
        rows++;
        for (uint32_t i = 0; i < t->nidx; i++) {
            if (t->idx[i].tree == t->tree)
                continue;
            if (table_index_key(t, i, sc.row, &sc.pk, &key) != 0 ||
                engine_get(trx, t->idx[i].tree, key.data, key.len, &val) != 0)
                missing[i]++;
        }
    }
    table_scan_close(&sc);
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    for (uint32_t i = 0; i < t->nidx && !rc; i++) {
        if (t->idx[i].tree == t->tree)
            continue;
        engine_cursor_t *cur;
        uint64_t entries = 0;
        if ((rc = engine_cursor_open(trx, t->idx[i].tree, &cur)) != 0)
            break;
        for (rc = engine_cursor_first(cur); rc == 0; rc = engine_cursor_next(cur))
            entries++;
        engine_cursor_close(cur);
        if (rc != STRATA_ENOTFOUND)
            break;
        rc = 0;
        char text[256];
        if (entries != rows) {
            snprintf(text, sizeof text, "InnoDB: Index '%s' contains %llu entries, should be %llu.", t->idx[i].name,
                     (unsigned long long)entries, (unsigned long long)rows);
            check_fault(f, text);
        }
        if (missing[i]) {
            snprintf(text, sizeof text, "InnoDB: Index '%s' has no entry for %llu of the table's rows.",
                     t->idx[i].name, (unsigned long long)missing[i]);
            check_fault(f, text);
        }
    }
    engine_trx_rollback(trx);
    buf_free(&key);
    buf_free(&val);
    return rc ? table_engine_err(x->diag, t, rc) : 0;
}

static int check_one(maint_out_t *o, const cat_table_t *t, const char *option)
{
    if (option && strcmp(option, "FOR UPGRADE") == 0) {
        msg(o, "status", "OK"); /* strata's formats are upgraded at start-up (exec.c sql_exec_keys_upgrade) */
        return 0;
    }
    check_faults_t f = {.o = o};
    engine_check_report_t rep = {.fault = check_fault, .ctx = &f};
    engine_t *e = catalog_engine(sql_exec_catalog());
    engine_tree_check(e, t->tree, &rep, NULL);
    for (uint32_t i = 0; i < t->nidx; i++)
        if (t->idx[i].tree != t->tree)
            engine_tree_check(e, t->idx[i].tree, &rep, NULL);
    /* QUICK: the trees only; every other option also compares the secondary indexes with the rows */
    if (!f.n && !(option && strcmp(option, "QUICK") == 0)) {
        int rc = check_indexes(o, t, &f);
        if (rc)
            return rc;
    }
    msg(o, f.n ? "error" : "status", f.n ? "Corrupt" : "OK");
    return 0;
}

/* ---------------------------------------------------------------- CHECKSUM TABLE */

static int checksum_one(sql_exec_ctx_t *x, const cat_table_t *t, uint64_t *sum)
{
    engine_trx_t *trx;
    int rc = exec_trx(x, &trx); /* the statement's read view: inside a transaction, what it sees */
    if (rc)
        return rc;
    table_scan_t sc;
    memset(&sc, 0, sizeof sc);
    buf_t scratch;
    buf_init(&scratch);
    uint32_t total = 0;
    rc = table_scan_open(&sc, trx, t, -1, NULL, NULL, false, x->arena);
    while (rc == 0 && (rc = table_scan_next(&sc)) == 0)
        total += checksum_row(t, sc.row, &scratch); /* modulo 2^32, as MariaDB's ha_checksum */
    table_scan_close(&sc);
    buf_free(&scratch);
    if (rc != STRATA_ENOTFOUND)
        return rc < -10000 ? table_engine_err(x->diag, t, rc) : rc;
    *sum = total;
    return 0;
}

/* ---------------------------------------------------------------- the statements */

static const char *op_name(sql_stmt_kind_t k)
{
    switch (k) {
    case SQL_STMT_ANALYZE_TABLE: return "analyze";
    case SQL_STMT_CHECK_TABLE: return "check";
    case SQL_STMT_OPTIMIZE_TABLE: return "optimize";
    case SQL_STMT_REPAIR_TABLE: return "repair";
    default: return "checksum";
    }
}

static int analyze(maint_out_t *o, const cat_table_t *t)
{
    int rc = stats_analyze(sql_exec_catalog(), t);
    if (rc)
        return table_engine_err(o->x->diag, t, rc);
    msg(o, "status", "OK");
    return 0;
}

/* One table of the list.  *t is the table opened (NULL: it does not exist); an error fails the statement. */
static int maint_one(maint_out_t *o, const sql_stmt_t *st, const sql_name_t *n, const char *db, cat_table_t *t)
{
    sql_exec_ctx_t *x = o->x;
    if (st->kind == SQL_STMT_CHECKSUM_TABLE) {
        res_cell_t *r = out_row(o);
        r[0] = cell(o->table);
        r[1] = cell(NULL);
        if (!t) {
            char text[300];
            snprintf(text, sizeof text, "Table '%s.%s' doesn't exist", db, n->name);
            diag_push_condition(x->diag, DIAG_ERROR, ER_NO_SUCH_TABLE, text);
            return 0;
        }
        uint64_t sum = 0;
        const char *opt = st->tables.options;
        if (opt && strcmp(opt, "QUICK") == 0)
            return 0;
        int rc = checksum_one(x, t, &sum);
        if (rc == 0)
            r[1] = cell(arena_printf(x->arena, "%llu", (unsigned long long)sum));
        return rc;
    }
    if (!t) {
        char text[300];
        snprintf(text, sizeof text, "Table '%s.%s' doesn't exist", db, n->name);
        msg(o, "Error", text);
        msg(o, "status", "Operation failed");
        return 0;
    }
    switch (st->kind) {
    case SQL_STMT_ANALYZE_TABLE:
        if (st->tables.persistent)
            msg(o, "status", "Engine-independent statistics collected");
        return analyze(o, t);
    case SQL_STMT_CHECK_TABLE:
        return check_one(o, t, st->tables.options);
    case SQL_STMT_REPAIR_TABLE:
        msg(o, "note", "The storage engine for the table doesn't support repair");
        return 0;
    case SQL_STMT_OPTIMIZE_TABLE: {
        if (engine_read_only(catalog_engine(sql_exec_catalog()))) { /* innodb_force_recovery: as MariaDB's InnoDB */
            char text[300];
            snprintf(text, sizeof text, "Table '%s' is read only", n->name);
            msg(o, "Warning", "Running in read-only mode");
            msg(o, "Warning", "Running in read-only mode");
            msg(o, "Error", text);
            msg(o, "status", "Operation failed");
            return 0;
        }
        msg(o, "note", "Table does not support optimize, doing recreate + analyze instead");
        int rc = exec_table_rebuild(x, n);
        if (rc)
            return rc;
        const char *rdb = db, *rname = n->name;
        exec_temp_map(x, &rdb, &rname);
        cat_table_t *nt = catalog_table_get(sql_exec_catalog(), rdb, rname);
        if (!nt)
            return diag_error(x->diag, ER_NO_SUCH_TABLE, db, n->name);
        rc = analyze(o, nt);
        catalog_table_release(nt);
        return rc;
    }
    default:
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, sql_stmt_kind_name(st->kind));
    }
}

int exec_maint(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    bool checksum = st->kind == SQL_STMT_CHECKSUM_TABLE;
    maint_out_t o = {.x = x, .op = op_name(st->kind), .ncols = checksum ? 2 : 4};
    int rc = 0;
    for (uint32_t i = 0; i < st->tables.n && !rc; i++) {
        const sql_name_t *n = &st->tables.tables[i];
        const char *db = exec_db_name(x, n->db);
        if (!db)
            return -ER_NO_DB_ERROR;
        o.table = arena_printf(x->arena, "%s.%s", db, n->name);
        const char *rdb = db, *rname = n->name;
        exec_temp_map(x, &rdb, &rname);
        /* OPTIMIZE holds the EXCLUSIVE lock already (exec.c ddl_mdl) and copies through its own reference */
        if (st->kind != SQL_STMT_OPTIMIZE_TABLE && !catalog_db_is_virtual(rdb) && (rc = exec_mdl_shared(x, rdb, rname)) != 0)
            return rc;
        cat_table_t *t = catalog_table_get(sql_exec_catalog(), rdb, rname);
        rc = maint_one(&o, st, n, db, t);
        if (t)
            catalog_table_release(t);
    }
    if (rc == 0)
        out_send(&o, checksum);
    return rc;
}
