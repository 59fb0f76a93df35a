/*
 * Privilege checks for the statements the SQL executor runs (tables, databases), made by the session before
 * the executor sees the statement -- and again at every EXECUTE of a prepared statement, since both paths go
 * through here.  Each statement kind has a rule, named by its row in sql/parser/statements.def (NONE, OWN or RULE:
 * rule_<ID> below), so there is no default that lets a statement through.  The rules and messages are
 * MariaDB 10.11's (docs/accounts.md has the table):
 *
 *   SELECT                 SELECT on every table read (FROM, joins, derived tables, subqueries in every position);
 *                          with column grants only: SELECT on every column read, `*` denied (1142)
 *   INSERT / REPLACE       INSERT (REPLACE: and DELETE; ON DUPLICATE KEY UPDATE: and UPDATE) on the table, named
 *                          together when missing; column grants: the columns written; SELECT on the columns read
 *   UPDATE                 UPDATE on the columns set; SELECT on every other table; SELECT on every column read
 *   DELETE                 DELETE on the targets; several tables: SELECT on every table; SELECT on columns read
 *   DDL                    CREATE (+INSERT for ... SELECT, SELECT on LIKE's source), DROP, ALTER (+ RENAME: DROP
 *                          on the old, INSERT and CREATE on the new, as RENAME TABLE), INDEX
 *   SHOW COLUMNS / INDEX / CREATE TABLE, CREATE/DROP/ALTER DATABASE, tablespaces, table maintenance, views
 *   a view named     its privilege as above, then its definition (check_view) as its definer (SQL SECURITY
 *                    DEFINER) or the invoker: SELECT on what it reads, the write's privilege on its base table
 *                    (1356 when missing; 1449 / 1045 for a definer without an account)
 * information_schema is readable by everyone (the executor filters its rows by priv_db_visible/table_visible).
 *
 * Unqualified column names in statements with several tables are attributed to the table that has the column
 * (through the catalog); names that match no table are left for the executor's 1054.  Nothing here has a fixed
 * capacity: scopes grow and join trees are walked recursively, so no statement is too large to be checked.
 */
#include <string.h>

#include "acl/acl.h"
#include "acl/priv.h"
#include "session/session.h"
#include "sql/parser/ast.h"
#include "access/catalog.h"
#include "access/trigger.h"
#include "access/view.h"
#include "sql/parser/parser.h"
#include "sql/exec/exec.h"
#include "util/util.h"

typedef struct tref {
    const char *db, *name, *alias;
    bool columns_only; /* the table-level SELECT is missing but some columns are granted */
    bool target;       /* UPDATE: some SET column is in it */
} tref_t;

/* The tables of one query block.  It grows as needed: no number of tables skips a check. */
typedef struct scope {
    tref_t *t;
    int n, cap;
    const sql_cte_t *ctes; /* visible CTE names (not tables) */
    uint32_t nctes;
} scope_t;

typedef struct walk {
    session_t *s;
    const char *cur_db;
    uint64_t view_write;   /* a view's base table is written: add_table checks these privileges on it */
    bool view_defer;       /* the next table add_table meets is a write's target: its caller checks its view */
    uint32_t view_depth;
} walk_t;

static int check_select(walk_t *w, const sql_select_t *sel, const sql_cte_t *ctes, uint32_t nctes);
static int check_table_bits(walk_t *w, const char *db, const char *table, uint64_t need, uint64_t table_only);

static bool is_info_schema(const char *db) { return db && !strcasecmp(db, "information_schema"); }

static int no_db(walk_t *w) { return diag_error(&w->s->diag, ER_NO_DB_ERROR); }

static void scope_push(scope_t *sc, tref_t t)
{
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 8;
        sc->t = mem_realloc(sc->t, (size_t)sc->cap * sizeof *sc->t);
    }
    sc->t[sc->n++] = t;
}

static void scope_free(scope_t *sc) { mem_free(sc->t); }

/* Marks the tables whose reads need column privileges: those without a table-level SELECT. */
static void scope_mark_column_reads(walk_t *w, scope_t *sc)
{
    for (int i = 0; i < sc->n; i++)
        sc->t[i].columns_only = !is_info_schema(sc->t[i].db) &&
                                (priv_table(w->s, sc->t[i].db, sc->t[i].name, NULL) & PRIV_SELECT) == 0;
}

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

/* A view the statement reads or writes through: what its SELECT reads needs SELECT, and the base table it writes
 * to (`write`: INSERT / UPDATE / DELETE bits) those privileges, of the view's definer (SQL SECURITY DEFINER) or
 * of the invoker (INVOKER).  A failure there is 1356, as MariaDB says it; a definer without an account is 1449
 * to an account with SUPER or SET USER, 1045 to others (MariaDB).  Views under it are checked the same way, each
 * with its own SQL SECURITY. */
static int check_view(walk_t *w, const char *db, const char *name, uint64_t write)
{
    session_t *s = w->s;
    if (!s->srv->acl || s->system_thread || w->view_depth >= 32)
        return 0;
    cat_table_t *t = catalog_table_get(sql_exec_catalog(), db, name);
    if (t) { /* a table (the common case: no view record is read) */
        catalog_table_release(t);
        return 0;
    }
    arena_t a;
    arena_init(&a, 4096);
    cat_view_t v;
    sql_stmt_list_t l;
    int rc = 0;
    if (catalog_view_get(sql_exec_catalog(), &a, db, name, &v) <= 0)
        goto out;
    diag_t scratch;
    diag_init(&scratch, 4);
    int prc = sql_parse(&a, v.text, strlen(v.text), &l, &scratch);
    diag_free(&scratch);
    if (prc || l.n != 1 || l.stmts[0]->kind != SQL_STMT_SELECT)
        goto out; /* the executor's 1356 */
    bool definer = strcmp(v.security, "INVOKER") != 0;
    acl_account_t acc;
    if (definer && acl_get(s->srv->acl, v.definer_user, v.definer_host, &acc) != 0) {
        if (priv_has_global(s, PRIV_SUPER | PRIV_SET_USER)) {
            rc = diag_error(&s->diag, ER_NO_SUCH_USER, v.definer_user, v.definer_host);
        } else {
            bool pw = acl_get(s->srv->acl, s->priv_user, s->priv_host, &acc) == 0 && acc.auth[0];
            rc = diag_error(&s->diag, ER_ACCESS_DENIED_ERROR, s->priv_user, s->priv_host, pw ? "YES" : "NO");
        }
        memset(&acc, 0, sizeof acc);
        goto out;
    }
    memset(&acc, 0, sizeof acc);
    char saved_user[sizeof s->priv_user], saved_host[sizeof s->priv_host], saved_role[sizeof s->role];
    struct acl_privs *saved_privs = s->privs;
    uint64_t saved_version = s->privs_version;
    if (definer) { /* the definer's privileges meanwhile, as a trigger's body has them (sp_exec.c) */
        memcpy(saved_user, s->priv_user, sizeof saved_user);
        memcpy(saved_host, s->priv_host, sizeof saved_host);
        memcpy(saved_role, s->role, sizeof saved_role);
        snprintf(s->priv_user, sizeof s->priv_user, "%s", v.definer_user);
        snprintf(s->priv_host, sizeof s->priv_host, "%s", v.definer_host);
        s->role[0] = 0;
        s->privs = NULL;
        s->privs_version = 0;
    }
    walk_t in = {.s = s, .cur_db = v.db, .view_depth = w->view_depth + 1};
    const sql_select_t *sel = l.stmts[0]->select;
    rc = check_select(&in, sel, NULL, 0);
    /* the write reaches the base table of a one-table view (a view under it: its own check does the rest) */
    if (!rc && write && sel->from && sel->from->kind == SQL_FROM_TABLE && !sel->from->cte) {
        const char *bdb = sel->from->table.db ? sel->from->table.db : v.db;
        in.view_write = write;
        if ((rc = check_table_bits(&in, bdb, sel->from->table.name, write, 0)) > 0)
            rc = 0; /* column grants: the columns written are the executor's to tell */
        if (!rc) /* a view under it: its own definition in turn */
            rc = check_view(&in, bdb, sel->from->table.name, write);
    }
    if (definer) {
        priv_session_reset(s);
        memcpy(s->priv_user, saved_user, sizeof saved_user);
        memcpy(s->priv_host, saved_host, sizeof saved_host);
        memcpy(s->role, saved_role, sizeof saved_role);
        s->privs = saved_privs;
        s->privs_version = saved_version;
    }
    if (rc && s->diag.error_code != ER_NO_SUCH_USER && s->diag.error_code != ER_ACCESS_DENIED_ERROR &&
        s->diag.error_code != ER_VIEW_INVALID) {
        diag_error_replace(&s->diag);
        rc = diag_error(&s->diag, ER_VIEW_INVALID, db, name);
    }
out:
    arena_destroy(&a);
    return rc;
}

/* Adds a table to the scope after checking `need` on it (0: no check, the caller checks). */
static int add_table(walk_t *w, scope_t *sc, const sql_name_t *n, const char *alias, uint64_t need)
{
    const char *db = n->db ? n->db : w->cur_db;
    if (!db)
        return no_db(w);
    bool cols = false;
    if (need && !is_info_schema(db)) {
        int rc = priv_check_table(w->s, db, n->name, need);
        if (rc < 0)
            return rc;
        cols = rc == PRIV_COLUMNS;
    }
    scope_push(sc, (tref_t){.db = db, .name = n->name, .alias = alias, .columns_only = cols});
    uint64_t write = w->view_write;
    bool defer = w->view_defer;
    w->view_write = 0;
    w->view_defer = false;
    return is_info_schema(db) || defer ? 0 : check_view(w, db, n->name, write);
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
    case SQL_FROM_JSON_TABLE: /* its document reads the tables before it (and any a subquery names) */
        return check_expr(w, sc, f->jt->doc, PRIV_SELECT);
    case SQL_FROM_JOIN: {
        int rc = check_from(w, sc, f->left, need);
        if (!rc)
            rc = check_from(w, sc, f->right, need);
        return rc;
    }
    }
    return 0;
}

/* The columns every JOIN ... ON of a join tree reads (all tables of the tree are in the scope by now).
 * USING and NATURAL columns are not checked, as MariaDB does not check them. */
static int check_join_conditions(walk_t *w, scope_t *sc, const sql_from_t *f)
{
    if (!f || f->kind != SQL_FROM_JOIN)
        return 0;
    int rc = check_expr(w, sc, f->on, PRIV_SELECT);
    if (!rc)
        rc = check_join_conditions(w, sc, f->left);
    if (!rc)
        rc = check_join_conditions(w, sc, f->right);
    return rc;
}

static int check_select_member(walk_t *w, const sql_select_t *sel, const sql_cte_t *ctes, uint32_t nctes)
{
    scope_t sc = {.ctes = ctes, .nctes = nctes};
    int rc = check_from(w, &sc, sel->from, PRIV_SELECT);
    for (uint32_t i = 0; i < sel->nitems && !rc; i++)
        rc = check_expr(w, &sc, sel->items[i].expr, PRIV_SELECT);
    if (!rc)
        rc = check_expr(w, &sc, sel->where, PRIV_SELECT);
    for (uint32_t i = 0; i < sel->ngroup_by && !rc; i++)
        rc = check_expr(w, &sc, sel->group_by[i], PRIV_SELECT);
    if (!rc)
        rc = check_expr(w, &sc, sel->having, PRIV_SELECT);
    for (uint32_t i = 0; i < sel->norder_by && !rc; i++)
        rc = check_expr(w, &sc, sel->order_by[i].expr, PRIV_SELECT);
    if (!rc)
        rc = check_join_conditions(w, &sc, sel->from);
    scope_free(&sc);
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

/* Every column an assignment list writes needs `need` (the caller checked the table-level privilege). */
static int check_assign_cols(walk_t *w, const char *db, const char *table, const sql_assign_t *a, uint32_t n,
                             uint64_t need)
{
    for (uint32_t i = 0; i < n; i++) {
        const char *c = a[i].col->col.name;
        int rc = check_write_cols(w, db, table, &c, 1, need);
        if (rc)
            return rc;
    }
    return 0;
}

/* The table-level privileges a statement needs on one table, all at once, so that 1142 names every one that is
 * missing ("INSERT, UPDATE command denied"), as MariaDB does.  PRIV_COLUMNS when column grants may cover what
 * is missing; `table_only` bits must be held at table level. */
static int check_table_bits(walk_t *w, const char *db, const char *table, uint64_t need, uint64_t table_only)
{
    uint64_t cols = 0;
    uint64_t have = priv_table(w->s, db, table, &cols);
    uint64_t missing = need & ~have;
    if (!missing)
        return 0;
    uint64_t uncovered = (missing & ~cols) | (missing & table_only);
    if (uncovered)
        return priv_deny_table(w->s, db, table, uncovered);
    return PRIV_COLUMNS;
}

static int check_insert(walk_t *w, const sql_stmt_t *st)
{
    const sql_insert_t *ins = st->insert;
    const char *db = ins->table.db ? ins->table.db : w->cur_db;
    if (!db)
        return no_db(w);
    const char *t = ins->table.name;
    uint64_t need = PRIV_INSERT | (st->kind == SQL_STMT_REPLACE ? PRIV_DELETE : 0) | (ins->non_dup ? PRIV_UPDATE : 0);
    int rc = check_table_bits(w, db, t, need, PRIV_DELETE);
    if (rc < 0)
        return rc;
    if (rc == PRIV_COLUMNS) { /* each column written needs its column grant */
        uint64_t have = priv_table(w->s, db, t, NULL);
        if (!(have & PRIV_INSERT)) {
            if (ins->nset)
                rc = check_assign_cols(w, db, t, ins->set, ins->nset, PRIV_INSERT);
            else
                rc = check_write_cols(w, db, t, (const char *const *)ins->cols, ins->ncols, PRIV_INSERT);
            if (rc)
                return rc;
        }
        if (!(have & PRIV_UPDATE) && (rc = check_assign_cols(w, db, t, ins->on_dup, ins->non_dup, PRIV_UPDATE)) != 0)
            return rc;
    }
    if ((rc = check_view(w, db, t, need)) != 0)
        return rc;
    /* What the statement reads: the values (their subqueries), ON DUPLICATE KEY UPDATE's right-hand sides
     * (columns of the table, VALUES(col)), the SELECT. */
    scope_t sc = {0};
    scope_push(&sc, (tref_t){.db = db, .name = t, .alias = ins->alias});
    scope_mark_column_reads(w, &sc);
    for (uint32_t r = 0; r < ins->nrows && !rc; r++)
        for (uint32_t i = 0; i < ins->rows[r].n && !rc; i++)
            rc = check_expr(w, &sc, ins->rows[r].vals[i], PRIV_SELECT);
    for (uint32_t i = 0; i < ins->nset && !rc; i++)
        rc = check_expr(w, &sc, ins->set[i].value, PRIV_SELECT);
    for (uint32_t i = 0; i < ins->non_dup && !rc; i++)
        rc = check_expr(w, &sc, ins->on_dup[i].value, PRIV_SELECT);
    for (uint32_t i = 0; i < ins->nreturning && !rc; i++) /* RETURNING reads the row written: SELECT */
        rc = check_expr(w, &sc, ins->returning[i].expr, PRIV_SELECT);
    scope_free(&sc);
    return rc ? rc : check_select(w, ins->select, NULL, 0);
}

/* A table the statement reads without naming a column of it needs SELECT (a column grant will do). */
static int check_read_table(walk_t *w, const tref_t *t)
{
    if (is_info_schema(t->db))
        return 0;
    int rc = priv_check_table(w->s, t->db, t->name, PRIV_SELECT);
    return rc < 0 ? rc : 0;
}

/* UPDATE (one table or several): the tables a SET column is in need UPDATE on those columns; every other table
 * of the statement is read and needs SELECT (a column grant will do); every column read anywhere -- SET
 * right-hand sides, ON, WHERE, ORDER BY, subqueries -- needs SELECT on that column. */
static int check_update(walk_t *w, const sql_stmt_t *st)
{
    const sql_update_t *u = st->update;
    scope_t sc = {0};
    w->view_defer = !u->multi;
    int rc = check_from(w, &sc, u->tables, 0);
    for (uint32_t i = 0; i < u->nset && !rc; i++) {
        tref_t *t = resolve(&sc, &u->set[i].col->col);
        if (!t && sc.n == 1)
            t = &sc.t[0];
        if (!t)
            continue; /* an unknown column: the executor's 1054 */
        t->target = true;
        const char *c = u->set[i].col->col.name;
        rc = check_write_cols(w, t->db, t->name, &c, 1, PRIV_UPDATE);
    }
    for (int i = 0; i < sc.n && !rc; i++)
        if (!sc.t[i].target)
            rc = check_read_table(w, &sc.t[i]);
    if (!rc && !u->multi && sc.n == 1)
        rc = check_view(w, sc.t[0].db, sc.t[0].name, PRIV_UPDATE);
    scope_mark_column_reads(w, &sc);
    for (uint32_t i = 0; i < u->nset && !rc; i++)
        rc = check_expr(w, &sc, u->set[i].value, PRIV_SELECT);
    if (!rc)
        rc = check_join_conditions(w, &sc, u->tables);
    if (!rc)
        rc = check_expr(w, &sc, u->where, PRIV_SELECT);
    for (uint32_t i = 0; i < u->norder_by && !rc; i++)
        rc = check_expr(w, &sc, u->order_by[i].expr, PRIV_SELECT);
    scope_free(&sc);
    return rc;
}

/* DELETE: DELETE on the tables rows are deleted from; in a multi-table DELETE every table named (targets too) is
 * read and needs SELECT, as MariaDB requires; every column read needs SELECT on it. */
static int check_delete(walk_t *w, const sql_stmt_t *st)
{
    const sql_delete_t *d = st->del;
    scope_t sc = {0};
    w->view_defer = !d->multi;
    int rc = check_from(w, &sc, d->from, 0);
    if (!d->multi) {
        if (!rc && sc.n)
            rc = check_table_bits(w, sc.t[0].db, sc.t[0].name, PRIV_DELETE, PRIV_DELETE);
        if (!rc && sc.n)
            rc = check_view(w, sc.t[0].db, sc.t[0].name, PRIV_DELETE);
    } else { /* MariaDB's order: SELECT on every table first, then DELETE on the targets */
        for (int i = 0; i < sc.n && !rc; i++)
            rc = check_read_table(w, &sc.t[i]);
        for (uint32_t i = 0; i < d->ntargets && !rc; i++) {
            sql_ident3_t id = {.db = d->targets[i].db, .table = d->targets[i].name, .name = ""};
            tref_t *t = resolve(&sc, &id);
            if (t)
                rc = check_table_bits(w, t->db, t->name, PRIV_DELETE, PRIV_DELETE);
        }
    }
    scope_mark_column_reads(w, &sc);
    if (!rc)
        rc = check_join_conditions(w, &sc, d->from);
    if (!rc)
        rc = check_expr(w, &sc, d->where, PRIV_SELECT);
    for (uint32_t i = 0; i < d->norder_by && !rc; i++)
        rc = check_expr(w, &sc, d->order_by[i].expr, PRIV_SELECT);
    for (uint32_t i = 0; i < d->nreturning && !rc; i++)
        rc = check_expr(w, &sc, d->returning[i].expr, PRIV_SELECT);
    scope_free(&sc);
    return rc;
}

/* All of `need` on the table at table level (column grants do not count). */
static int check_table(walk_t *w, const sql_name_t *n, uint64_t need)
{
    const char *db = n->db ? n->db : w->cur_db;
    if (!db)
        return no_db(w);
    return check_table_bits(w, db, n->name, need, need);
}

/* Some privilege on the table, column grants included (SHOW COLUMNS / INDEX, CHECK TABLE), or at table level
 * only (SHOW CREATE TABLE).  1142 names `cmd`. */
static int check_table_any(walk_t *w, const sql_name_t *n, const char *db_given, const char *cmd, bool table_level)
{
    const char *db = n->db ? n->db : db_given ? db_given : w->cur_db;
    if (!db)
        return no_db(w);
    if (is_info_schema(db))
        return 0;
    if (table_level ? priv_table(w->s, db, n->name, NULL) != 0 : priv_table_visible(w->s, db, n->name))
        return 0;
    return priv_deny_table_cmd(w->s, cmd, db, n->name);
}

/* RENAME TABLE a TO b, ALTER TABLE a RENAME TO b: ALTER and DROP on the old name, INSERT and CREATE on the new. */
static int check_rename(walk_t *w, const sql_name_t *from, const sql_name_t *to)
{
    int rc = check_table(w, from, PRIV_ALTER | PRIV_DROP);
    if (!rc) {
        sql_name_t dest = *to;
        if (!dest.db) /* ALTER TABLE db1.t RENAME TO t2 stays in db1; RENAME TABLE uses the current database */
            dest.db = from->db ? from->db : w->cur_db;
        rc = check_table(w, &dest, PRIV_INSERT | PRIV_CREATE);
    }
    return rc;
}

/* ------------------------------------------------------------------ the rule of each statement kind
 * statements.def names a rule for every statement: NONE (needs no privilege), OWN (its handler in the session
 * checks what it needs; it never reaches the executor) or RULE (rule_<ID> below).  A RULE statement without its
 * function does not compile; the table is walked by a unit test. */

typedef int (*stmt_rule_fn)(walk_t *w, const sql_stmt_t *st);

static int rule_SELECT(walk_t *w, const sql_stmt_t *st)
{
    const sql_into_t *in = st->select->into;
    if (in && (in->kind == SQL_INTO_OUTFILE || in->kind == SQL_INTO_DUMPFILE)) { /* a file on the server: FILE */
        int rc = priv_check_global(w->s, PRIV_FILE);
        if (rc)
            return rc;
    }
    return check_select(w, st->select, NULL, 0);
}
static int rule_INSERT(walk_t *w, const sql_stmt_t *st) { return check_insert(w, st); }
static int rule_REPLACE(walk_t *w, const sql_stmt_t *st) { return check_insert(w, st); }
static int rule_UPDATE(walk_t *w, const sql_stmt_t *st) { return check_update(w, st); }
static int rule_DELETE(walk_t *w, const sql_stmt_t *st) { return check_delete(w, st); }

/* LOAD DATA: INSERT on the table (and DELETE for REPLACE), FILE unless the file is the client's (LOCAL), as
 * MariaDB; the SET expressions' reads */
static int rule_LOAD_DATA(walk_t *w, const sql_stmt_t *st)
{
    const sql_load_t *ld = st->load;
    const char *db = ld->table.db ? ld->table.db : w->cur_db;
    if (!db)
        return no_db(w);
    int rc;
    if (!ld->local && !priv_has_global(w->s, PRIV_FILE)) { /* MariaDB answers 1045 here, not 1227 */
        session_t *s = w->s;
        acl_account_t a;
        bool pw = acl_get(s->srv->acl, s->priv_user, s->priv_host, &a) == 0 && a.auth[0];
        memset(&a, 0, sizeof a);
        return diag_error(&s->diag, ER_ACCESS_DENIED_ERROR, s->priv_user, s->priv_host, pw ? "YES" : "NO");
    }
    uint64_t need = PRIV_INSERT | (ld->dup == SQL_DUP_REPLACE ? PRIV_DELETE : 0);
    if ((rc = check_table_bits(w, db, ld->table.name, need, need)) < 0)
        return rc;
    if (rc == PRIV_COLUMNS)
        return priv_deny_table(w->s, db, ld->table.name, need);
    if ((rc = check_view(w, db, ld->table.name, need)) != 0)
        return rc;
    scope_t sc = {0};
    scope_push(&sc, (tref_t){.db = db, .name = ld->table.name});
    scope_mark_column_reads(w, &sc);
    rc = 0;
    for (uint32_t i = 0; i < ld->nset && !rc; i++)
        rc = check_expr(w, &sc, ld->set[i].value, PRIV_SELECT);
    scope_free(&sc);
    return rc;
}

static int rule_EXPLAIN(walk_t *w, const sql_stmt_t *st)
{
    return st->explain.stmt ? priv_check_stmt(w->s, st->explain.stmt) : 0;
}

static int rule_CREATE_TABLE(walk_t *w, const sql_stmt_t *st)
{
    const sql_create_table_t *ct = st->create_table;
    /* CREATE ... SELECT writes the rows: CREATE and INSERT, named together when both are missing */
    int rc = check_table(w, &ct->table, PRIV_CREATE | (ct->as_select ? PRIV_INSERT : 0));
    if (rc)
        return rc;
    if (ct->like.name) { /* LIKE reads the definition: SELECT, a column grant will do */
        const char *db = ct->like.db ? ct->like.db : w->cur_db;
        if (!db)
            return no_db(w);
        if (!is_info_schema(db) && (rc = priv_check_table(w->s, db, ct->like.name, PRIV_SELECT)) < 0)
            return rc;
    }
    return check_select(w, ct->as_select, NULL, 0);
}

static int check_table_list(walk_t *w, const sql_stmt_t *st, uint64_t need)
{
    int rc = 0;
    for (uint32_t i = 0; i < st->tables.n && !rc; i++)
        rc = check_table(w, &st->tables.tables[i], need);
    return rc;
}

static int rule_DROP_TABLE(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_DROP); }
static int rule_TRUNCATE(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_DROP); }
static int rule_DROP_VIEW(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_DROP); }
/* ANALYZE, OPTIMIZE, REPAIR: SELECT and INSERT; CHECKSUM: SELECT; CHECK: any privilege on the table. */
static int rule_ANALYZE_TABLE(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_SELECT | PRIV_INSERT); }
static int rule_OPTIMIZE_TABLE(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_SELECT | PRIV_INSERT); }
static int rule_REPAIR_TABLE(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_SELECT | PRIV_INSERT); }
static int rule_CHECKSUM_TABLE(walk_t *w, const sql_stmt_t *st) { return check_table_list(w, st, PRIV_SELECT); }

static int rule_CHECK_TABLE(walk_t *w, const sql_stmt_t *st)
{
    int rc = 0;
    for (uint32_t i = 0; i < st->tables.n && !rc; i++)
        rc = check_table_any(w, &st->tables.tables[i], NULL, "CHECK TABLE", false);
    return rc;
}

static int rule_RENAME_TABLE(walk_t *w, const sql_stmt_t *st)
{
    int rc = 0;
    for (uint32_t i = 0; i < st->rename_table.n && !rc; i++) {
        sql_name_t to = st->rename_table.to[i];
        if (!to.db && !w->cur_db)
            return no_db(w);
        rc = check_rename(w, &st->rename_table.from[i], &to);
    }
    return rc;
}

static int rule_ALTER_TABLE(walk_t *w, const sql_stmt_t *st)
{
    const sql_alter_table_t *a = st->alter_table;
    const sql_alter_action_t *rename = NULL;
    for (uint32_t i = 0; i < a->nactions; i++)
        if (a->actions[i].kind == SQL_ALTER_RENAME)
            rename = &a->actions[i];
    if (!rename)
        return check_table(w, &a->table, PRIV_ALTER);
    sql_name_t from = a->table;
    if (!from.db)
        from.db = w->cur_db;
    return check_rename(w, &from, &rename->new_name);
}

static int rule_CREATE_INDEX(walk_t *w, const sql_stmt_t *st) { return check_table(w, &st->index.table, PRIV_INDEX); }
static int rule_DROP_INDEX(walk_t *w, const sql_stmt_t *st) { return check_table(w, &st->index.table, PRIV_INDEX); }

static int check_database(walk_t *w, const sql_stmt_t *st, uint64_t need)
{
    const char *db = st->database.name ? st->database.name : w->cur_db;
    return db ? priv_check_db(w->s, db, need) : no_db(w);
}

static int rule_CREATE_DATABASE(walk_t *w, const sql_stmt_t *st) { return check_database(w, st, PRIV_CREATE); }
static int rule_DROP_DATABASE(walk_t *w, const sql_stmt_t *st) { return check_database(w, st, PRIV_DROP); }
static int rule_ALTER_DATABASE(walk_t *w, const sql_stmt_t *st) { return check_database(w, st, PRIV_ALTER); }

static int check_tablespace(walk_t *w, const sql_stmt_t *st)
{
    (void)st;
    return priv_check_global(w->s, PRIV_CREATE_TABLESPACE);
}

static int rule_CREATE_TABLESPACE(walk_t *w, const sql_stmt_t *st) { return check_tablespace(w, st); }
static int rule_ALTER_TABLESPACE(walk_t *w, const sql_stmt_t *st) { return check_tablespace(w, st); }
static int rule_DROP_TABLESPACE(walk_t *w, const sql_stmt_t *st) { return check_tablespace(w, st); }
static int rule_CREATE_LOGFILE_GROUP(walk_t *w, const sql_stmt_t *st) { return check_tablespace(w, st); }
static int rule_DROP_LOGFILE_GROUP(walk_t *w, const sql_stmt_t *st) { return check_tablespace(w, st); }

/* CREATE VIEW: CREATE VIEW on the view (OR REPLACE: DROP too), and SELECT on what its query reads. */
static int rule_CREATE_VIEW(walk_t *w, const sql_stmt_t *st)
{
    const sql_view_stmt_t *v = st->view;
    int rc = check_table(w, &v->name, PRIV_CREATE_VIEW | (v->or_replace ? PRIV_DROP : 0));
    return rc ? rc : check_select(w, v->select, NULL, 0);
}

/* Stored routines: CREATE ROUTINE on the database (1044), and with OR REPLACE ALTER ROUTINE too; DROP: ALTER
 * ROUTINE (1370, as MariaDB names the routine). */
static int routine_db(walk_t *w, const sql_routine_stmt_t *r, const char **db)
{
    *db = r->name.db ? r->name.db : w->cur_db;
    return *db ? 0 : no_db(w);
}
static int rule_CREATE_PROCEDURE(walk_t *w, const sql_stmt_t *st)
{
    const char *db;
    int rc = routine_db(w, st->routine, &db);
    if (rc)
        return rc;
    rc = priv_check_db(w->s, db, PRIV_CREATE_ROUTINE);
    if (!rc && st->routine->or_replace && (priv_db(w->s, db) & PRIV_ALTER_ROUTINE) == 0)
        rc = priv_check_db(w->s, db, PRIV_ALTER_ROUTINE);
    return rc;
}
static int rule_CREATE_FUNCTION(walk_t *w, const sql_stmt_t *st) { return rule_CREATE_PROCEDURE(w, st); }
static int rule_DROP_PROCEDURE(walk_t *w, const sql_stmt_t *st)
{
    const char *db;
    int rc = routine_db(w, st->routine, &db);
    if (rc)
        return rc;
    if (priv_db(w->s, db) & PRIV_ALTER_ROUTINE)
        return 0;
    return diag_error(&w->s->diag, ER_PROCACCESS_DENIED_ERROR, "alter routine", w->s->priv_user,
                      w->s->priv_host, arena_printf(&w->s->arena, "%s.%s", db, st->routine->name.name));
}
static int rule_DROP_FUNCTION(walk_t *w, const sql_stmt_t *st) { return rule_DROP_PROCEDURE(w, st); }
static int rule_ALTER_PROCEDURE(walk_t *w, const sql_stmt_t *st) { return rule_DROP_PROCEDURE(w, st); }
static int rule_ALTER_FUNCTION(walk_t *w, const sql_stmt_t *st) { return rule_DROP_PROCEDURE(w, st); }

/* Events: EVENT on the event's database (1044), and on the new one for ALTER ... RENAME TO; another account as
 * DEFINER needs SUPER or SET USER (1227). */
static int event_db_check(walk_t *w, const char *db)
{
    if (!db)
        return no_db(w);
    return priv_check_db(w->s, db, PRIV_EVENT);
}
static int rule_CREATE_EVENT(walk_t *w, const sql_stmt_t *st)
{
    const sql_event_stmt_t *e = st->event;
    int rc = event_db_check(w, e->name.db ? e->name.db : w->cur_db);
    if (!rc && e->has_rename)
        rc = event_db_check(w, e->rename.db ? e->rename.db : w->cur_db);
    if (!rc && e->has_definer && !e->definer.current &&
        (strcmp(e->definer.user, w->s->priv_user) != 0 || strcmp(e->definer.host, w->s->priv_host) != 0))
        rc = priv_check_global(w->s, PRIV_SUPER | PRIV_SET_USER);
    return rc;
}
static int rule_ALTER_EVENT(walk_t *w, const sql_stmt_t *st) { return rule_CREATE_EVENT(w, st); }
static int rule_DROP_EVENT(walk_t *w, const sql_stmt_t *st) { return rule_CREATE_EVENT(w, st); }

/* Triggers: TRIGGER on the table (1142), for DROP the table the trigger is on (none when it does not exist: the
 * statement's own 1360 then). */
static int rule_CREATE_TRIGGER(walk_t *w, const sql_stmt_t *st)
{
    const sql_trigger_stmt_t *t = st->trigger;
    sql_name_t tn = {t->table.db ? t->table.db : t->name.db, t->table.name};
    int rc = check_table(w, &tn, PRIV_TRIGGER);
    /* another account as DEFINER: SUPER or SET USER (1227, MariaDB 10.11) */
    if (!rc && t->has_definer && !t->definer.current &&
        (strcmp(t->definer.user, w->s->priv_user) != 0 || strcmp(t->definer.host, w->s->priv_host) != 0))
        rc = priv_check_global(w->s, PRIV_SUPER | PRIV_SET_USER);
    return rc;
}
static int rule_DROP_TRIGGER(walk_t *w, const sql_stmt_t *st)
{
    const sql_name_t *n = &st->trigger->name;
    const char *db = n->db ? n->db : w->cur_db;
    if (!db)
        return no_db(w);
    cat_trigger_t t;
    if (catalog_trigger_get(sql_exec_catalog(), &w->s->arena, db, n->name, &t) <= 0)
        return 0;
    sql_name_t tn = {db, t.table};
    return check_table(w, &tn, PRIV_TRIGGER);
}

static int rule_SHOW(walk_t *w, const sql_stmt_t *st)
{
    const sql_show_t *sh = &st->show;
    switch (sh->what) {
    case SQL_SHOW_TABLES:
    case SQL_SHOW_TABLE_STATUS:
    case SQL_SHOW_CREATE_DATABASE: {
        const char *db = sh->db ? sh->db : w->cur_db;
        return db ? priv_check_db_access(w->s, db) : 0;
    }
    case SQL_SHOW_COLUMNS:
    case SQL_SHOW_INDEX: /* a column grant will do; the rows are those of the columns granted */
        return check_table_any(w, &sh->table, sh->db, "SELECT", false);
    case SQL_SHOW_CREATE_TABLE: /* the whole definition: a table-level privilege */
        return check_table_any(w, &sh->table, sh->db, "SHOW", true);
    case SQL_SHOW_CREATE_TRIGGER: { /* TRIGGER on the trigger's table (1227, MariaDB's) */
        const char *db = sh->table.db ? sh->table.db : w->cur_db;
        cat_trigger_t t;
        if (!db || catalog_trigger_get(sql_exec_catalog(), &w->s->arena, db, sh->table.name, &t) <= 0)
            return 0;
        if (priv_table(w->s, db, t.table, NULL) & PRIV_TRIGGER)
            return 0;
        return diag_error(&w->s->diag, ER_SPECIFIC_ACCESS_DENIED_ERROR, "TRIGGER");
    }
    case SQL_SHOW_EVENTS: /* EVENT on the database (1044) */
        return event_db_check(w, sh->db ? sh->db : w->cur_db);
    case SQL_SHOW_CREATE_EVENT:
        return event_db_check(w, sh->table.db ? sh->table.db : w->cur_db);
    case SQL_SHOW_CREATE_VIEW: /* MariaDB: SHOW VIEW and SELECT on the view */
        return check_table(w, &sh->table, PRIV_SHOW_VIEW | PRIV_SELECT);
    default: /* the SHOWs that list server state check their own (or need none) */
        return 0;
    }
}

static int rule_none(walk_t *w, const sql_stmt_t *st)
{
    (void)w;
    (void)st;
    return 0;
}

/* A statement whose handler checks its own privileges must not be run by the executor unchecked. */
static int rule_own(walk_t *w, const sql_stmt_t *st)
{
    return diag_error(&w->s->diag, ER_NOT_SUPPORTED_YET,
                      arena_printf(&w->s->arena, "%s here (its privileges are checked by its own handler)",
                                   sql_stmt_kind_name(st->kind)));
}

#define PRIV_RULE_NONE(id) rule_none
#define PRIV_RULE_OWN(id) rule_own
#define PRIV_RULE_RULE(id) rule_##id
static const stmt_rule_fn stmt_rules[SQL_STMT__COUNT] = {
#define STMT(id, priv, handler, com, flags) [SQL_STMT_##id] = PRIV_RULE_##priv(id),
#include "sql/parser/statements.def"
#undef STMT
};

bool priv_stmt_has_rule(int kind) { return kind >= 0 && kind < SQL_STMT__COUNT && stmt_rules[kind] != NULL; }

int priv_check_stmt(session_t *s, const sql_stmt_t *st)
{
    walk_t w = {.s = s, .cur_db = s->db};
    /* Deny by default: a kind the table has no rule for (a new statement) is refused, never let through. */
    if (!priv_stmt_has_rule((int)st->kind))
        return diag_error(&s->diag, ER_SPECIFIC_ACCESS_DENIED_ERROR, "SUPER");
    return stmt_rules[st->kind](&w, st);
}
