/*
 * Privilege checks for the statements the SQL executor runs (tables, databases), made by the session before
 * the executor sees the statement -- and again at every EXECUTE of a prepared statement, since both paths go
 * through here.  The rules and messages are MariaDB 10.11's:
 *
 *   SELECT                 SELECT on every table read (FROM, joins, derived tables, subqueries, INSERT ... SELECT)
 *                          with column grants only: SELECT on every column named, `*` denied (1142)
 *   INSERT / REPLACE       INSERT (REPLACE: also DELETE) on the table; column grants: the columns listed
 *   UPDATE                 UPDATE on the columns set (table or column grant); SELECT on columns read (WHERE, values)
 *   DELETE                 DELETE on the target tables; SELECT on columns read
 *   CREATE / DROP TABLE    CREATE / DROP on the table; TRUNCATE: DROP; ALTER: ALTER; CREATE/DROP INDEX: INDEX
 *   RENAME TABLE           ALTER and DROP on the old name ("DROP, ALTER command denied"), CREATE and INSERT on the new
 *   CREATE/DROP/ALTER DATABASE   CREATE / DROP / ALTER on the database (1044)
 *   tablespaces, logfile groups  CREATE TABLESPACE (1227)
 *   SHOW TABLES / TABLE STATUS / CREATE DATABASE   access to the database (1044)
 *   SHOW COLUMNS / INDEX   some privilege on the table (1142 "SELECT command denied")
 *   SHOW CREATE TABLE      some privilege on the table (1142 "SHOW command denied")
 *   EXPLAIN                as the statement explained
 *   ANALYZE / OPTIMIZE / REPAIR TABLE   SELECT and INSERT on each table (1142 names the missing ones: "SELECT, INSERT")
 *   CHECK TABLE            some privilege on each table (1142 "CHECK TABLE command denied")
 *   CHECKSUM TABLE         SELECT on each table
 * information_schema is readable by everyone (the executor filters its rows by priv_db_visible/table_visible).
 *
 * Unqualified column names in statements with several tables are attributed to the table that has the column
 * (through the catalog); names that match no table are left for the executor's 1054.
 */
#include <string.h>

#include "session/priv.h"
#include "session/session.h"
#include "sql/ast.h"
#include "sql/catalog.h"
#include "sql/exec.h"
#include "util/util.h"

typedef struct tref {
    const char *db, *name, *alias;
    bool columns_only; /* the table-level SELECT is missing but some columns are granted */
} tref_t;

typedef struct scope {
    tref_t t[32];
    int n;
    const sql_cte_t *ctes; /* visible CTE names (not tables) */
    uint32_t nctes;
} scope_t;

typedef struct walk {
    session_t *s;
    const char *cur_db;
} walk_t;

static int check_select(walk_t *w, const sql_select_t *sel, const sql_cte_t *ctes, uint32_t nctes);

static bool is_info_schema(const char *db) { return db && !strcasecmp(db, "information_schema"); }

static int no_db(walk_t *w) { return diag_error(&w->s->diag, ER_NO_DB_ERROR); }

static bool table_has_column(const char *db, const char *table, const char *col)
{
    catalog_t *cat = sql_exec_catalog();
    if (!cat)
        return false;
    cat_table_t *t = catalog_table_get(cat, db, table);
    if (!t)
        return false;
    bool found = false;
    for (uint32_t i = 0; i < t->ncols && !found; i++)
        found = !strcasecmp(t->cols[i].name, col);
    catalog_table_release(t);
    return found;
}

/* The table a column reference belongs to, or NULL (an outer reference, or unknown: the executor decides). */
static tref_t *resolve(scope_t *sc, const sql_ident3_t *c)
{
    if (c->table) {
        for (int i = 0; i < sc->n; i++) {
            tref_t *t = &sc->t[i];
            if (c->db && t->db && strcmp(c->db, t->db))
                continue;
            if ((t->alias && !strcmp(t->alias, c->table)) || (!t->alias && !strcmp(t->name, c->table)))
                return t;
        }
        return NULL;
    }
    if (sc->n == 1)
        return &sc->t[0];
    for (int i = 0; i < sc->n; i++)
        if (table_has_column(sc->t[i].db, sc->t[i].name, c->name))
            return &sc->t[i];
    return NULL;
}

/* Checks every column an expression reads (SELECT) and every subquery in it. */
static int check_expr(walk_t *w, scope_t *sc, const sql_expr_t *e, uint64_t need)
{
    if (!e)
        return 0;
    int rc = 0;
    switch (e->kind) {
    case SQL_E_COLUMN: {
        tref_t *t = resolve(sc, &e->col);
        if (t && t->columns_only)
            return priv_check_column(w->s, t->db, t->name, e->col.name, need);
        return 0;
    }
    case SQL_E_STAR:
        for (int i = 0; i < sc->n; i++) {
            tref_t *t = &sc->t[i];
            if (e->col.table && strcmp(e->col.table, t->alias ? t->alias : t->name))
                continue;
            if (t->columns_only)
                return priv_deny_table(w->s, t->db, t->name, need);
        }
        return 0;
    case SQL_E_SUBQUERY:
    case SQL_E_EXISTS:
    case SQL_E_QUANTIFIED:
        if ((rc = check_select(w, e->sub, sc->ctes, sc->nctes)) != 0)
            return rc;
        break;
    case SQL_E_IN:
        if (e->sub && (rc = check_select(w, e->sub, sc->ctes, sc->nctes)) != 0)
            return rc;
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->nargs && !rc; i++)
        rc = check_expr(w, sc, e->args[i], need);
    if (!rc && e->kind == SQL_E_CASE)
        rc = check_expr(w, sc, e->else_expr, need);
    for (uint32_t i = 0; i < e->nagg_order && !rc; i++)
        rc = check_expr(w, sc, e->agg_order[i].expr, need);
    return rc;
}

static bool is_cte(const sql_name_t *n, const sql_cte_t *ctes, uint32_t nctes)
{
    if (n->db)
        return false;
    for (uint32_t i = 0; i < nctes; i++)
        if (!strcmp(ctes[i].name, n->name))
            return true;
    return false;
}

/* Adds a table to the scope after checking `need` on it. */
static int add_table(walk_t *w, scope_t *sc, const sql_name_t *n, const char *alias, uint64_t need)
{
    const char *db = n->db ? n->db : w->cur_db;
    if (!db)
        return no_db(w);
    int rc = 0;
    bool cols = false;
    if (!is_info_schema(db)) {
        rc = priv_check_table(w->s, db, n->name, need);
        if (rc < 0)
            return rc;
        cols = rc == PRIV_COLUMNS;
    }
    if (sc->n < (int)ARRAY_LEN(sc->t))
        sc->t[sc->n++] = (tref_t){.db = db, .name = n->name, .alias = alias, .columns_only = cols};
    else if (cols)
        return priv_deny_table(w->s, db, n->name, need); /* too many tables to track columns: be safe */
    return 0;
}

static int check_from(walk_t *w, scope_t *sc, const sql_from_t *f, uint64_t need)
{
    if (!f)
        return 0;
    switch (f->kind) {
    case SQL_FROM_TABLE:
        if (is_cte(&f->table, sc->ctes, sc->nctes))
            return 0;
        return add_table(w, sc, &f->table, f->alias, need);
    case SQL_FROM_DERIVED:
        return check_select(w, f->derived, sc->ctes, sc->nctes);
    case SQL_FROM_JOIN: {
        int rc = check_from(w, sc, f->left, need);
        if (!rc)
            rc = check_from(w, sc, f->right, need);
        return rc;
    }
    }
    return 0;
}

static int check_select_member(walk_t *w, const sql_select_t *sel, const sql_cte_t *ctes, uint32_t nctes)
{
    scope_t *sc = mem_calloc(1, sizeof *sc);
    sc->ctes = ctes;
    sc->nctes = nctes;
    int rc = check_from(w, sc, sel->from, PRIV_SELECT);
    for (uint32_t i = 0; i < sel->nitems && !rc; i++)
        rc = check_expr(w, sc, sel->items[i].expr, PRIV_SELECT);
    if (!rc)
        rc = check_expr(w, sc, sel->where, PRIV_SELECT);
    for (uint32_t i = 0; i < sel->ngroup_by && !rc; i++)
        rc = check_expr(w, sc, sel->group_by[i], PRIV_SELECT);
    if (!rc)
        rc = check_expr(w, sc, sel->having, PRIV_SELECT);
    for (uint32_t i = 0; i < sel->norder_by && !rc; i++)
        rc = check_expr(w, sc, sel->order_by[i].expr, PRIV_SELECT);
    /* join conditions */
    const sql_from_t *stack[64];
    int sp = 0;
    if (sel->from)
        stack[sp++] = sel->from;
    while (sp && !rc) {
        const sql_from_t *f = stack[--sp];
        if (f->kind != SQL_FROM_JOIN)
            continue;
        rc = check_expr(w, sc, f->on, PRIV_SELECT);
        if (sp + 2 <= (int)ARRAY_LEN(stack)) {
            stack[sp++] = f->left;
            stack[sp++] = f->right;
        }
    }
    mem_free(sc);
    return rc;
}

static int check_select(walk_t *w, const sql_select_t *sel, const sql_cte_t *ctes, uint32_t nctes)
{
    if (!sel)
        return 0;
    if (sel->nctes) {
        for (uint32_t i = 0; i < sel->nctes; i++) {
            int rc = check_select(w, sel->ctes[i].select, sel->ctes, sel->nctes);
            if (rc)
                return rc;
        }
        ctes = sel->ctes;
        nctes = sel->nctes;
    }
    for (const sql_select_t *m = sel; m; m = m->union_next) {
        int rc = check_select_member(w, m, ctes, nctes);
        if (rc)
            return rc;
    }
    return 0;
}

/* Column writes: `need` on each column (table-level grants cover them). */
static int check_write_cols(walk_t *w, const char *db, const char *table, const char *const *cols, uint32_t n,
                            uint64_t need)
{
    int rc = priv_check_table(w->s, db, table, need);
    if (rc != PRIV_COLUMNS)
        return rc;
    if (!cols) /* all columns, implicitly: a column grant is not enough */
        return priv_deny_table(w->s, db, table, need);
    for (uint32_t i = 0; i < n; i++)
        if ((rc = priv_check_column(w->s, db, table, cols[i], need)) != 0)
            return rc;
    return 0;
}

static int check_insert(walk_t *w, const sql_stmt_t *st)
{
    const sql_insert_t *ins = st->insert;
    const char *db = ins->table.db ? ins->table.db : w->cur_db;
    if (!db)
        return no_db(w);
    int rc;
    const char **cols = (const char **)ins->cols;
    uint32_t n = ins->ncols;
    const char *setcols[64];
    if (ins->nset) {
        n = MIN(ins->nset, (uint32_t)ARRAY_LEN(setcols));
        for (uint32_t i = 0; i < n; i++)
            setcols[i] = ins->set[i].col->col.name;
        cols = setcols;
    }
    if ((rc = check_write_cols(w, db, ins->table.name, cols, n, PRIV_INSERT)) != 0)
        return rc;
    if (st->kind == SQL_STMT_REPLACE && (rc = priv_check_table(w->s, db, ins->table.name, PRIV_DELETE)) != 0)
        return rc < 0 ? rc : priv_deny_table(w->s, db, ins->table.name, PRIV_DELETE);
    if (ins->non_dup) {
        const char *dup[64];
        uint32_t nd = MIN(ins->non_dup, (uint32_t)ARRAY_LEN(dup));
        for (uint32_t i = 0; i < nd; i++)
            dup[i] = ins->on_dup[i].col->col.name;
        if ((rc = check_write_cols(w, db, ins->table.name, dup, nd, PRIV_UPDATE)) != 0)
            return rc;
    }
    return check_select(w, ins->select, NULL, 0);
}

/* UPDATE / DELETE: the target tables get `need`; every table is read (SELECT on the columns named). */
static int check_update_delete(walk_t *w, const sql_stmt_t *st)
{
    scope_t *sc = mem_calloc(1, sizeof *sc);
    int rc = 0;
    if (st->kind == SQL_STMT_UPDATE) {
        const sql_update_t *u = st->update;
        /* Tables are scoped with no requirement first; SET columns then need UPDATE on their table. */
        rc = check_from(w, sc, u->tables, 0);
        for (uint32_t i = 0; i < u->nset && !rc; i++) {
            tref_t *t = resolve(sc, &u->set[i].col->col);
            if (!t && sc->n)
                t = &sc->t[0];
            if (t) {
                const char *c = u->set[i].col->col.name;
                rc = check_write_cols(w, t->db, t->name, &c, 1, PRIV_UPDATE);
            }
            if (!rc)
                rc = check_expr(w, sc, u->set[i].value, PRIV_SELECT);
        }
        for (int i = 0; i < sc->n; i++) /* reads below need SELECT where only column grants exist */
            sc->t[i].columns_only = (priv_table(w->s, sc->t[i].db, sc->t[i].name, NULL) & PRIV_SELECT) == 0;
        if (!rc)
            rc = check_expr(w, sc, u->where, PRIV_SELECT);
        for (uint32_t i = 0; i < u->norder_by && !rc; i++)
            rc = check_expr(w, sc, u->order_by[i].expr, PRIV_SELECT);
    } else {
        const sql_delete_t *d = st->del;
        if (!d->multi) {
            rc = check_from(w, sc, d->from, PRIV_DELETE);
        } else {
            rc = check_from(w, sc, d->from, 0);
            for (uint32_t i = 0; i < d->ntargets && !rc; i++) {
                sql_ident3_t id = {.db = d->targets[i].db, .table = d->targets[i].name, .name = ""};
                tref_t *t = resolve(sc, &id);
                if (t) {
                    rc = priv_check_table(w->s, t->db, t->name, PRIV_DELETE);
                    if (rc == PRIV_COLUMNS)
                        rc = priv_deny_table(w->s, t->db, t->name, PRIV_DELETE);
                }
            }
        }
        for (int i = 0; i < sc->n; i++)
            sc->t[i].columns_only = (priv_table(w->s, sc->t[i].db, sc->t[i].name, NULL) & PRIV_SELECT) == 0;
        if (!rc)
            rc = check_expr(w, sc, d->where, PRIV_SELECT);
        for (uint32_t i = 0; i < d->norder_by && !rc; i++)
            rc = check_expr(w, sc, d->order_by[i].expr, PRIV_SELECT);
    }
    mem_free(sc);
    return rc;
}

static int check_table(walk_t *w, const sql_name_t *n, uint64_t need)
{
    const char *db = n->db ? n->db : w->cur_db;
    if (!db)
        return no_db(w);
    int rc = priv_check_table(w->s, db, n->name, need);
    return rc == PRIV_COLUMNS ? priv_deny_table(w->s, db, n->name, need) : rc;
}

/* SHOW COLUMNS / INDEX / CREATE TABLE: any privilege on the table. */
static int check_table_any(walk_t *w, const sql_name_t *n, const char *db_given, const char *cmd)
{
    const char *db = n->db ? n->db : db_given ? db_given : w->cur_db;
    if (!db)
        return no_db(w);
    if (is_info_schema(db) || priv_table_visible(w->s, db, n->name))
        return 0;
    return priv_deny_table_cmd(w->s, cmd, db, n->name);
}

/* ANALYZE / OPTIMIZE / REPAIR TABLE: SELECT and INSERT, the message naming every one missing. */
static int check_select_insert(walk_t *w, const sql_name_t *n)
{
    const char *db = n->db ? n->db : w->cur_db;
    if (!db)
        return no_db(w);
    uint64_t have = priv_table(w->s, db, n->name, NULL);
    bool sel = have & PRIV_SELECT, ins = have & PRIV_INSERT;
    if (sel && ins)
        return 0;
    return priv_deny_table_cmd(w->s, !sel && !ins ? "SELECT, INSERT" : !sel ? "SELECT" : "INSERT", db, n->name);
}

int priv_check_stmt(session_t *s, const sql_stmt_t *st)
{
    walk_t w = {.s = s, .cur_db = s->db};
    int rc = 0;
    switch (st->kind) {
    case SQL_STMT_SELECT:
        return check_select(&w, st->select, NULL, 0);
    case SQL_STMT_INSERT:
    case SQL_STMT_REPLACE:
        return check_insert(&w, st);
    case SQL_STMT_UPDATE:
    case SQL_STMT_DELETE:
        return check_update_delete(&w, st);
    case SQL_STMT_EXPLAIN:
        return st->explain.stmt ? priv_check_stmt(s, st->explain.stmt) : 0;
    case SQL_STMT_CREATE_TABLE: {
        const sql_create_table_t *ct = st->create_table;
        if ((rc = check_table(&w, &ct->table, PRIV_CREATE)) != 0)
            return rc;
        if (ct->like.name && (rc = check_table(&w, &ct->like, PRIV_SELECT)) != 0)
            return rc;
        if (ct->as_select) {
            const char *db = ct->table.db ? ct->table.db : w.cur_db;
            if ((rc = check_table(&w, &ct->table, PRIV_INSERT)) != 0)
                return rc;
            (void)db;
            return check_select(&w, ct->as_select, NULL, 0);
        }
        return 0;
    }
    case SQL_STMT_DROP_TABLE:
    case SQL_STMT_TRUNCATE:
        for (uint32_t i = 0; i < st->tables.n && !rc; i++)
            rc = check_table(&w, &st->tables.tables[i], PRIV_DROP);
        return rc;
    case SQL_STMT_RENAME_TABLE:
        for (uint32_t i = 0; i < st->rename_table.n && !rc; i++) {
            const sql_name_t *f = &st->rename_table.from[i];
            const char *db = f->db ? f->db : w.cur_db;
            if (!db)
                return no_db(&w);
            if ((priv_table(s, db, f->name, NULL) & (PRIV_DROP | PRIV_ALTER)) != (PRIV_DROP | PRIV_ALTER))
                return priv_deny_table_cmd(s, "DROP, ALTER", db, f->name);
            rc = check_table(&w, &st->rename_table.to[i], PRIV_CREATE | PRIV_INSERT);
        }
        return rc;
    case SQL_STMT_ALTER_TABLE:
        return check_table(&w, &st->alter_table->table, PRIV_ALTER);
    case SQL_STMT_ANALYZE_TABLE:
    case SQL_STMT_OPTIMIZE_TABLE:
    case SQL_STMT_REPAIR_TABLE:
        for (uint32_t i = 0; i < st->tables.n && !rc; i++)
            rc = check_select_insert(&w, &st->tables.tables[i]);
        return rc;
    case SQL_STMT_CHECK_TABLE:
        for (uint32_t i = 0; i < st->tables.n && !rc; i++)
            rc = check_table_any(&w, &st->tables.tables[i], NULL, "CHECK TABLE");
        return rc;
    case SQL_STMT_CHECKSUM_TABLE:
        for (uint32_t i = 0; i < st->tables.n && !rc; i++)
            rc = check_table(&w, &st->tables.tables[i], PRIV_SELECT);
        return rc;
    case SQL_STMT_CREATE_INDEX:
    case SQL_STMT_DROP_INDEX:
        return check_table(&w, &st->index.table, PRIV_INDEX);
    case SQL_STMT_CREATE_DATABASE:
    case SQL_STMT_DROP_DATABASE:
    case SQL_STMT_ALTER_DATABASE: {
        const char *db = st->database.name ? st->database.name : w.cur_db;
        if (!db)
            return no_db(&w);
        uint64_t need = st->kind == SQL_STMT_CREATE_DATABASE ? PRIV_CREATE
                        : st->kind == SQL_STMT_DROP_DATABASE ? PRIV_DROP
                                                             : PRIV_ALTER;
        return priv_check_db(s, db, need);
    }
    case SQL_STMT_CREATE_TABLESPACE:
    case SQL_STMT_ALTER_TABLESPACE:
    case SQL_STMT_DROP_TABLESPACE:
    case SQL_STMT_CREATE_LOGFILE_GROUP:
    case SQL_STMT_DROP_LOGFILE_GROUP:
        return priv_check_global(s, PRIV_CREATE_TABLESPACE);
    case SQL_STMT_SHOW: {
        const sql_show_t *sh = &st->show;
        switch (sh->what) {
        case SQL_SHOW_TABLES:
        case SQL_SHOW_TABLE_STATUS:
        case SQL_SHOW_CREATE_DATABASE: {
            const char *db = sh->db ? sh->db : w.cur_db;
            return db ? priv_check_db_access(s, db) : 0;
        }
        case SQL_SHOW_COLUMNS:
        case SQL_SHOW_INDEX:
            return check_table_any(&w, &sh->table, sh->db, "SELECT");
        case SQL_SHOW_CREATE_TABLE:
            return check_table_any(&w, &sh->table, sh->db, "SHOW");
        default:
            return 0;
        }
    }
    default:
        return 0;
    }
}
