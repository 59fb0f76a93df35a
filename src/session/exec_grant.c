/*
 * The privilege statements: GRANT, REVOKE, CREATE/DROP ROLE, SET [DEFAULT] ROLE, SHOW GRANTS.
 *
 * Each statement checks what the grantor holds before anything changes, with MariaDB 10.11's errors:
 *   GRANT ... ON *.*      the privileges and GRANT OPTION globally           else 1045 Access denied (using password)
 *   GRANT ... ON db.*     the privileges and GRANT OPTION on db             else 1044 for db
 *   GRANT ... ON db.t     the privileges and GRANT OPTION on the table      else 1142 naming the first missing
 *   ... IDENTIFIED BY     an existing account: UPDATE on `mysql` (1044 'mysql'); a new one: CREATE USER (1410)
 *   REVOKE ALL ..., GRANT OPTION FROM / CREATE ROLE / DROP ROLE             CREATE USER (1227)
 *   GRANT role / REVOKE role    ADMIN OPTION on the role (or CREATE USER)   else 1698
 *   SHOW GRANTS FOR other, SET DEFAULT ROLE FOR other    SELECT / UPDATE on `mysql` (1044 'mysql')
 * strata has no `mysql` database, but privileges granted on `mysql`.* (or globally) are stored and checked the
 * same way, so `GRANT SELECT ON mysql.* TO monitor` lets an account read others' grants as in MariaDB (CREATE
 * USER alone does not, as in MariaDB).
 *
 * The grants themselves are stored by acl.c, one atomic file write per statement (a GRANT with IDENTIFIED BY
 * that creates or alters an account writes twice: the account first, then the grants).
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "session/exec_grant.h"
#include "access/view.h"
#include "acl/priv.h"
#include "access/catalog.h"
#include "sql/exec/exec.h"
#include "util/util.h"

#define ER_ACCESS_DENIED_NO_PASSWORD 1698 /* "Access denied for user '%s'@'%s'" (not in errors.def yet) */

static int deny_no_password(session_t *s)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "Access denied for user '%s'@'%s'", s->priv_user, s->priv_host);
    return diag_push_msg(&s->diag, DIAG_ERROR, ER_ACCESS_DENIED_NO_PASSWORD, msg);
}

static int deny_global_grant(session_t *s)
{
    acl_account_t a;
    bool pw = acl_get(s->srv->acl, s->priv_user, s->priv_host, &a) == 0 && a.auth[0];
    memset(&a, 0, sizeof a);
    return diag_error(&s->diag, ER_ACCESS_DENIED_ERROR, s->priv_user, s->priv_host, pw ? "YES" : "NO");
}

int exec_grant_check_mysql_db(session_t *s, uint64_t need)
{
    if ((priv_db(s, "mysql") & need) == need)
        return 0;
    return diag_error(&s->diag, ER_DBACCESS_DENIED_ERROR, s->priv_user, s->priv_host, "mysql");
}

static void user_of(session_t *s, const sql_user_t *u, const char **user, const char **host)
{
    if (u->current) {
        *user = s->priv_user;
        *host = s->priv_host;
    } else {
        *user = u->user;
        *host = u->host;
    }
}

/* ------------------------------------------------------------------ GRANT / REVOKE privileges */

static unsigned level_bits(sql_grant_level_t l)
{
    return l == SQL_GRANT_GLOBAL ? PL_G : l == SQL_GRANT_DB ? PL_D : PL_T;
}

static int syntax_error_near(session_t *s, const char *near)
{
    return diag_error(&s->diag, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), near, 1);
}

/* The bits of one privilege as written, checked against the level.  0 or the error. */
static int priv_bits_of(session_t *s, const sql_grant_t *g, const sql_priv_t *p, bool revoke, uint64_t *out)
{
    unsigned lv = level_bits(g->level);
    uint64_t b;
    if (!strcmp(p->name, "ALL"))
        b = priv_all_at(lv);
    else if (!strcmp(p->name, "USAGE"))
        b = 0;
    else if (!(b = priv_from_name(p->name)))
        return syntax_error_near(s, p->as_written ? p->as_written : p->name);
    if (p->ncols) {
        unsigned levels = 0;
        for (size_t i = 0; i < priv_ndefs; i++)
            if (priv_defs[i].bit == b)
                levels = priv_defs[i].levels;
        if (g->level != SQL_GRANT_TABLE || !(levels & PL_C) || !strcmp(p->name, "ALL"))
            return diag_error(&s->diag, ER_ILLEGAL_GRANT_FOR_TABLE);
    } else if (b && (b & priv_all_at(lv) & ~(uint64_t)0) != b && b != PRIV_GRANT_OPTION) {
        if (g->level == SQL_GRANT_DB)
            return diag_error(&s->diag, ER_WRONG_USAGE, "DB GRANT", "GLOBAL PRIVILEGES");
        return diag_error(&s->diag, ER_ILLEGAL_GRANT_FOR_TABLE);
    }
    (void)revoke;
    *out = b;
    return 0;
}

/* Whether the grantor may grant (or revoke) `bits` (+ columns) at the statement's object. */
static int grantor_check(session_t *s, const sql_grant_t *g, const char *db, uint64_t bits, uint64_t colbits,
                         const sql_priv_t *privs, uint32_t nprivs)
{
    uint64_t need = bits | PRIV_GRANT_OPTION;
    switch (g->level) {
    case SQL_GRANT_GLOBAL:
        return (priv_global(s) & need) == need ? 0 : deny_global_grant(s);
    case SQL_GRANT_DB:
        return (priv_db(s, db) & need) == need ? 0 : diag_error(&s->diag, ER_DBACCESS_DENIED_ERROR, s->priv_user,
                                                                  s->priv_host, db);
    default: {
        uint64_t cols = 0;
        uint64_t have = priv_table(s, db, g->table, &cols);
        if ((have & need) != need)
            return priv_deny_table(s, db, g->table, need & ~have);
        /* Column privileges: each named column must be covered (table-level grants cover them all). */
        for (uint32_t i = 0; i < nprivs; i++) {
            uint64_t b = priv_from_name(privs[i].name);
            for (uint32_t c = 0; c < privs[i].ncols; c++) {
                int rc = priv_check_column(s, db, g->table, privs[i].cols[c], b);
                if (rc)
                    return rc;
            }
        }
        (void)colbits;
        return 0;
    }
    }
}

int exec_grant_account_opts(session_t *s, const sql_account_opts_t *o, acl_user_spec_t *spec)
{
    if (o->lock)
        spec->lock = o->lock == 1;
    if (o->require == 3)
        return diag_error(&s->diag, ER_NOT_SUPPORTED_YET, "REQUIRE X509, ISSUER, SUBJECT or CIPHER");
    if (o->require)
        spec->require_ssl = o->require == 2;
    if (o->has_max_user_connections)
        spec->max_user_connections = (int64_t)MIN(o->max_user_connections, (uint64_t)UINT32_MAX);
    return 0;
}

/* GRANT ... TO user IDENTIFIED BY ... [REQUIRE ...] [WITH MAX_USER_CONNECTIONS n]: creates or changes the
 * account first. */
static int grant_accounts(session_t *s, const sql_grant_t *g)
{
    bool opts = g->opts.require || g->opts.has_max_user_connections;
    for (uint32_t i = 0; i < g->nusers; i++) {
        const sql_user_spec_t *u = &g->users[i];
        if ((!u->has_auth && !opts) || u->user.current)
            continue;
        acl_user_spec_t spec;
        acl_user_spec_init(&spec, u->user.user, u->user.host);
        spec.plugin = u->plugin;
        spec.password = u->password;
        spec.password_len = u->password ? strlen(u->password) : 0;
        spec.auth_string = u->auth_string;
        int orc = exec_grant_account_opts(s, &g->opts, &spec);
        if (orc)
            return orc;
        acl_account_t a;
        int rc;
        if (acl_get(s->srv->acl, u->user.user, u->user.host, &a) == 0) {
            memset(&a, 0, sizeof a);
            if ((rc = exec_grant_check_mysql_db(s, PRIV_UPDATE)) != 0)
                return rc;
            rc = acl_alter_user(s->srv->acl, &s->diag, &spec, 1, false);
        } else {
            if (!u->has_auth)
                continue; /* acl_privs_change answers 1133 */
            if (!priv_has_global(s, PRIV_CREATE_USER))
                return diag_error(&s->diag, ER_CANT_CREATE_USER_WITH_GRANT);
            rc = acl_create_user(s->srv->acl, &s->diag, &spec, 1, false);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int exec_grant_privs(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    const sql_grant_t *g = st->grant;
    bool revoke = st->kind == SQL_STMT_REVOKE;
    if (g->object_routine)
        return diag_error(&s->diag, ER_NOT_SUPPORTED_YET, "GRANT/REVOKE on FUNCTION, PROCEDURE or PACKAGE");
    const char *db = g->db;
    if (g->level != SQL_GRANT_GLOBAL && !db) {
        if (!s->db)
            return diag_error(&s->diag, ER_NO_DB_ERROR);
        db = s->db;
    }
    uint64_t bits = 0, colbits = 0;
    size_t ncolitems = 0;
    for (uint32_t i = 0; i < g->nprivs; i++) {
        uint64_t b;
        int rc = priv_bits_of(s, g, &g->privs[i], revoke, &b);
        if (rc)
            return rc;
        if (g->privs[i].ncols) {
            colbits |= b;
            ncolitems += g->privs[i].ncols;
        } else {
            bits |= b;
        }
    }
    if (!revoke && g->with_grant_option)
        bits |= PRIV_GRANT_OPTION;
    int rc = grantor_check(s, g, db, bits & ~(uint64_t)PRIV_GRANT_OPTION, colbits, g->privs, g->nprivs);
    if (rc)
        return rc;
    /* GRANT on a table needs the table (MariaDB: 1146); REVOKE does not. */
    if (!revoke && g->level == SQL_GRANT_TABLE && sql_exec_catalog()) {
        cat_table_t *t = catalog_table_get(sql_exec_catalog(), db, g->table);
        cat_view_t v; /* a view will do */
        if (!t && catalog_view_get(sql_exec_catalog(), &s->arena, db, g->table, &v) <= 0)
            return diag_error(&s->diag, ER_NO_SUCH_TABLE, db, g->table);
        catalog_table_release(t);
    }
    if (!revoke && (rc = grant_accounts(s, g)) != 0)
        return rc;
    /* One item per grantee at the object, plus one per grantee and column. */
    size_t per = 1 + ncolitems, n = 0;
    acl_priv_change_t *items = arena_calloc(&s->arena, sizeof *items * per * (g->nusers ? g->nusers : 1));
    for (uint32_t u = 0; u < g->nusers; u++) {
        const char *user, *host;
        user_of(s, &g->users[u].user, &user, &host);
        /* A host the parser defaulted to '%' may name a role (host ''), resolved by acl. */
        acl_level_t lv = g->level == SQL_GRANT_GLOBAL ? ACL_LEVEL_GLOBAL
                         : g->level == SQL_GRANT_DB   ? ACL_LEVEL_DB
                                                      : ACL_LEVEL_TABLE;
        if (bits || ncolitems == 0) {
            items[n++] = (acl_priv_change_t){.user = user, .host = host, .level = lv, .db = db, .table = g->table,
                                             .privs = bits};
        }
        for (uint32_t i = 0; i < g->nprivs; i++) {
            uint64_t b = priv_from_name(g->privs[i].name);
            for (uint32_t c = 0; c < g->privs[i].ncols; c++)
                items[n++] = (acl_priv_change_t){.user = user, .host = host, .level = ACL_LEVEL_COLUMN, .db = db,
                                                 .table = g->table, .column = g->privs[i].cols[c], .privs = b};
        }
    }
    if ((rc = acl_privs_change(s->srv->acl, &s->diag, items, n, revoke)) != 0)
        return rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

/* ------------------------------------------------------------------ roles */

/* May the session grant or revoke `role`?  ADMIN OPTION on it, or CREATE USER. */
static int role_admin_check(session_t *s, const char *role)
{
    bool admin = false;
    if (priv_has_global(s, PRIV_CREATE_USER))
        return 0;
    if (acl_role_granted(s->srv->acl, s->priv_user, s->priv_host, role, &admin) && admin)
        return 0;
    return deny_no_password(s);
}

static int exec_grant_roles(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    const sql_grant_t *g = st->grant;
    bool revoke = st->kind == SQL_STMT_REVOKE;
    for (uint32_t r = 0; r < g->nroles; r++) {
        const char *role = g->roles[r];
        if (!acl_is_role(s->srv->acl, role)) {
            char msg[600];
            snprintf(msg, sizeof msg, "Invalid role specification `%s`", role);
            return diag_push_msg(&s->diag, DIAG_ERROR, ER_INVALID_ROLE, msg);
        }
        int rc = role_admin_check(s, role);
        if (rc)
            return rc;
        for (uint32_t u = 0; u < g->nusers; u++) {
            const char *user, *host;
            user_of(s, &g->users[u].user, &user, &host);
            rc = acl_role_grant(s->srv->acl, &s->diag, role, user, host,
                                revoke ? g->admin_option_for : g->with_admin_option, revoke);
            if (rc)
                return rc;
        }
    }
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_revoke_all(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    const sql_grant_t *g = st->grant;
    int rc = priv_check_global(s, PRIV_CREATE_USER);
    if (rc)
        return rc;
    acl_user_name_t *names = arena_calloc(&s->arena, sizeof *names * (g->nusers ? g->nusers : 1));
    for (uint32_t i = 0; i < g->nusers; i++)
        user_of(s, &g->users[i].user, &names[i].user, &names[i].host);
    if ((rc = acl_revoke_all(s->srv->acl, &s->diag, names, g->nusers)) != 0)
        return rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_create_role(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    int rc = priv_check_global(s, PRIV_CREATE_USER);
    if (rc)
        return rc;
    const sql_user_stmt_t *u = &st->user;
    for (uint32_t i = 0; i < u->nusers; i++) {
        rc = acl_create_role(s->srv->acl, &s->diag, u->users[i].user.user, u->if_not_exists, u->or_replace,
                             s->priv_user, s->priv_host);
        if (rc)
            return rc;
    }
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_drop_role(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    int rc = priv_check_global(s, PRIV_CREATE_USER);
    if (rc)
        return rc;
    const sql_user_stmt_t *u = &st->user;
    const char **names = arena_calloc(&s->arena, sizeof *names * (u->nusers ? u->nusers : 1));
    for (uint32_t i = 0; i < u->nusers; i++)
        names[i] = u->users[i].user.user;
    if ((rc = acl_drop_role(s->srv->acl, &s->diag, names, u->nusers, u->if_exists)) != 0)
        return rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_set_role(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    const char *role = st->role.role;
    if (role && !strcasecmp(role, "NONE"))
        role = NULL;
    if (role && !acl_role_granted(s->srv->acl, s->priv_user, s->priv_host, role, NULL)) {
        char msg[600];
        snprintf(msg, sizeof msg, "Invalid role specification `%s`", role);
        return diag_push_msg(&s->diag, DIAG_ERROR, ER_INVALID_ROLE, msg);
    }
    snprintf(s->role, sizeof s->role, "%s", role ? role : "");
    priv_session_reset(s);
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_set_default_role(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    const char *user = s->priv_user, *host = s->priv_host;
    if (st->role.has_user && !st->role.user.current) {
        user = st->role.user.user;
        host = st->role.user.host;
        if (strcmp(user, s->priv_user) || strcasecmp(host ? host : "%", s->priv_host)) {
            int rc = exec_grant_check_mysql_db(s, PRIV_UPDATE);
            if (rc)
                return rc;
        }
    }
    const char *role = st->role.role;
    if (role && !strcasecmp(role, "NONE"))
        role = NULL;
    int rc = acl_set_default_role(s->srv->acl, &s->diag, user, host, role);
    if (rc)
        return rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

int exec_grant_stmt(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    switch (st->kind) {
    case SQL_STMT_GRANT:
    case SQL_STMT_REVOKE:
        if (st->grant->revoke_all)
            return exec_revoke_all(s, st, sink, more);
        if (st->grant->level == SQL_GRANT_ROLE)
            return exec_grant_roles(s, st, sink, more);
        return exec_grant_privs(s, st, sink, more);
    case SQL_STMT_CREATE_ROLE:
        return exec_create_role(s, st, sink, more);
    case SQL_STMT_DROP_ROLE:
        return exec_drop_role(s, st, sink, more);
    case SQL_STMT_SET_ROLE:
        return exec_set_role(s, st, sink, more);
    case SQL_STMT_SET_DEFAULT_ROLE:
        return exec_set_default_role(s, st, sink, more);
    default:
        return diag_error(&s->diag, ER_UNKNOWN_ERROR);
    }
}

/* ------------------------------------------------------------------ SHOW GRANTS */

typedef struct lines {
    arena_t *a;
    const char **v;
    size_t n, cap;
} lines_t;

static void line_add(void *arg, const char *line)
{
    lines_t *l = arg;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        const char **v = arena_calloc(l->a, cap * sizeof *v);
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = arena_strndup(l->a, line, strlen(line));
}

int exec_grant_show(session_t *s, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    const char *user = s->priv_user, *host = s->priv_host;
    bool own = !sh->has_user || sh->user.current;
    if (!own) {
        user = sh->user.user;
        host = sh->user.host;
        own = !strcmp(user, s->priv_user) && !strcasecmp(host ? host : "%", s->priv_host);
        if (!own) {
            int rc = exec_grant_check_mysql_db(s, PRIV_SELECT);
            if (rc)
                return rc;
        }
    }
    lines_t l = {.a = &s->arena};
    int rc = acl_show_grants(s->srv->acl, &s->diag, user, host, line_add, &l);
    if (rc)
        return rc;
    /* Plain SHOW GRANTS also lists the active role's grants (MariaDB). */
    if (!sh->has_user && s->role[0])
        acl_show_grants(s->srv->acl, &s->diag, s->role, "", line_add, &l);
    res_col_t col;
    memset(&col, 0, sizeof col);
    acl_account_t acc;
    bool is_role = acl_get(s->srv->acl, user, host, &acc) != 0 && acl_is_role(s->srv->acl, user);
    memset(&acc, 0, sizeof acc);
    const char *hshown = host && host[0] && !is_role ? host : NULL;
    col.name = col.org_name = hshown ? arena_printf(&s->arena, "Grants for %s@%s", user, hshown)
                                     : arena_printf(&s->arena, "Grants for %s", user);
    col.schema = col.table = col.org_table = "";
    col.type = MYSQL_TYPE_VAR_STRING;
    col.charset = 33;
    col.length = 1024 * 3;
    sink->columns(sink, &col, 1);
    for (size_t i = 0; i < l.n; i++) {
        res_cell_t c = {.p = l.v[i], .len = strlen(l.v[i])};
        sink->row(sink, &c);
    }
    sink->rows_end(sink, more);
    return 0;
}
