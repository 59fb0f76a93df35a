/*
 * Privilege names (from privileges.def) and the checks sessions and the SQL executor make.
 *
 * A session keeps its resolved privileges (acl_privs_t: its account's grants plus its active role's) and the
 * acl_version() they were resolved at; every check first compares that number (one rwlock read) and
 * re-resolves when a GRANT, REVOKE, DROP, SET DEFAULT ROLE ... moved it.  So the per-statement cost is a few
 * comparisons, and a REVOKE reaches connections already open at their next statement.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/priv.h"
#include "session/session.h"

#define PRIV(id, bit, name, levels) {name, 1ull << (bit), levels},
const priv_def_t priv_defs[] = {
#include "acl/privileges.def"
};
#undef PRIV
const size_t priv_ndefs = ARRAY_LEN(priv_defs);

static const struct {
    const char *name;
    uint64_t bit;
} priv_aliases[] = {
#define PRIV(id, bit, name, levels)
#define PRIV_ALIAS(name, id) {name, PRIV_##id},
#include "acl/privileges.def"
#undef PRIV
};

uint64_t priv_all_at(unsigned level)
{
    uint64_t m = 0;
    for (size_t i = 0; i < priv_ndefs; i++)
        if ((priv_defs[i].levels & level) && priv_defs[i].bit != PRIV_GRANT_OPTION)
            m |= priv_defs[i].bit;
    return m;
}

uint64_t priv_from_name(const char *name)
{
    for (size_t i = 0; i < priv_ndefs; i++)
        if (!strcmp(priv_defs[i].name, name))
            return priv_defs[i].bit;
    for (size_t i = 0; i < ARRAY_LEN(priv_aliases); i++)
        if (!strcmp(priv_aliases[i].name, name))
            return priv_aliases[i].bit;
    return 0;
}

void priv_names(uint64_t bits, buf_t *out)
{
    bool first = true;
    for (size_t i = 0; i < priv_ndefs; i++) {
        if (!(bits & priv_defs[i].bit))
            continue;
        if (!first)
            buf_append_str(out, ", ");
        first = false;
        buf_append_str(out, priv_defs[i].name);
    }
}

/* ------------------------------------------------------------------ the session's cache */

static const acl_privs_t *privs_get(session_t *s)
{
    acl_t *acl = s->srv->acl;
    if (!acl) /* a server without an account store (unit tests of other modules): nothing is granted */
        return NULL;
    uint64_t v = acl_version(acl);
    if (!s->privs || s->privs_version != v) {
        acl_privs_free(s->privs);
        s->privs = acl_privs_resolve(acl, s->priv_user, s->priv_host, s->role[0] ? s->role : NULL);
        s->privs_version = v;
    }
    return s->privs;
}

void priv_session_reset(session_t *s)
{
    acl_privs_free(s->privs);
    s->privs = NULL;
    s->privs_version = 0;
}

void priv_session_login(session_t *s, const char *default_role)
{
    priv_session_reset(s);
    s->role[0] = '\0';
    /* The default role applies only while it is still granted (a REVOKE leaves the setting in place). */
    if (default_role && default_role[0] && s->srv->acl &&
        acl_role_granted(s->srv->acl, s->priv_user, s->priv_host, default_role, NULL))
        snprintf(s->role, sizeof s->role, "%s", default_role);
}

uint64_t priv_global(session_t *s)
{
    if (s->system_thread)
        return ~0ull;
    const acl_privs_t *p = privs_get(s);
    return p ? acl_privs_global(p) : 0;
}

bool priv_has_global(session_t *s, uint64_t any_of) { return (priv_global(s) & any_of) != 0; }

int priv_check_global(session_t *s, uint64_t any_of)
{
    if (priv_has_global(s, any_of))
        return 0;
    buf_t b;
    buf_init(&b);
    priv_names(any_of, &b);
    buf_append_byte(&b, 0);
    int rc = diag_error(&s->diag, ER_SPECIFIC_ACCESS_DENIED_ERROR, (const char *)b.data);
    buf_free(&b);
    return rc;
}

uint64_t priv_db(session_t *s, const char *db)
{
    if (s->system_thread)
        return ~0ull;
    const acl_privs_t *p = privs_get(s);
    return p ? acl_privs_global(p) | acl_privs_db(p, db) : 0;
}

static int deny_db(session_t *s, const char *db)
{
    return diag_error(&s->diag, ER_DBACCESS_DENIED_ERROR, s->priv_user, s->priv_host, db);
}

int priv_check_db(session_t *s, const char *db, uint64_t need)
{
    if ((priv_db(s, db) & need) == need)
        return 0;
    return deny_db(s, db);
}

/* Privileges that let an account see (and USE) a database when held globally: MySQL's DB_ACLS. */
static uint64_t db_level_bits(void) { return priv_all_at(PL_D) | PRIV_GRANT_OPTION; }

bool priv_db_visible(session_t *s, const char *db)
{
    if (!strcasecmp(db, "information_schema") || s->system_thread)
        return true;
    const acl_privs_t *p = privs_get(s);
    if (!p)
        return false;
    uint64_t g = acl_privs_global(p);
    if ((g & PRIV_SHOW_DB) || (g & db_level_bits()))
        return true;
    return acl_privs_db(p, db) != 0 || acl_privs_db_has_tables(p, db);
}

int priv_check_db_access(session_t *s, const char *db)
{
    if (!strcasecmp(db, "information_schema") || s->system_thread)
        return 0;
    const acl_privs_t *p = privs_get(s);
    if (p && ((acl_privs_global(p) & db_level_bits()) || acl_privs_db(p, db) || acl_privs_db_has_tables(p, db)))
        return 0;
    return deny_db(s, db);
}

uint64_t priv_table(session_t *s, const char *db, const char *table, uint64_t *columns)
{
    const acl_privs_t *p = s->system_thread ? NULL : privs_get(s);
    if (s->system_thread) {
        if (columns)
            *columns = 0;
        return ~0ull;
    }
    if (!p) {
        if (columns)
            *columns = 0;
        return 0;
    }
    return acl_privs_global(p) | acl_privs_db(p, db) | acl_privs_table(p, db, table, columns);
}

/* The statement name MySQL puts in 1142/1143 for a privilege ("SELECT", "INSERT", ..., "GRANT"). */
static const char *priv_command(uint64_t bit)
{
    if (bit == PRIV_GRANT_OPTION)
        return "GRANT";
    for (size_t i = 0; i < priv_ndefs; i++)
        if (priv_defs[i].bit == bit)
            return priv_defs[i].name;
    return "?";
}

static uint64_t lowest_bit(uint64_t m) { return m & (~m + 1); }

int priv_check_table(session_t *s, const char *db, const char *table, uint64_t need)
{
    uint64_t cols = 0;
    uint64_t have = priv_table(s, db, table, &cols);
    uint64_t missing = need & ~have;
    if (!missing)
        return 0;
    if ((missing & cols) == missing)
        return PRIV_COLUMNS;
    return priv_deny_table(s, db, table, missing & ~cols);
}

int priv_deny_table_cmd(session_t *s, const char *command, const char *db, const char *table)
{
    char msg[1024];
    /* MariaDB 10.11 quotes the table as `db`.`t` (errors.def keeps MySQL's older 'table' form), and names the
     * account's user at the client's host ('localhost' or the IP), not the account's host pattern */
    snprintf(msg, sizeof msg, "%s command denied to user '%s'@'%s' for table `%s`.`%s`", command, s->priv_user,
             s->host, db, table);
    return diag_push_msg(&s->diag, DIAG_ERROR, ER_TABLEACCESS_DENIED_ERROR, msg);
}

int priv_deny_table(session_t *s, const char *db, const char *table, uint64_t missing)
{
    /* Every missing privilege, in table order ("INSERT, DELETE command denied"), as MariaDB names them. */
    buf_t b;
    buf_init(&b);
    for (uint64_t m = missing; m; m &= m - 1) {
        if (b.len)
            buf_append_str(&b, ", ");
        buf_append_str(&b, priv_command(lowest_bit(m)));
    }
    buf_append_byte(&b, 0);
    int rc = priv_deny_table_cmd(s, (const char *)b.data, db, table);
    buf_free(&b);
    return rc;
}

int priv_check_column(session_t *s, const char *db, const char *table, const char *column, uint64_t need)
{
    uint64_t have = priv_table(s, db, table, NULL);
    const acl_privs_t *p = privs_get(s);
    if (p)
        have |= acl_privs_column(p, db, table, column);
    uint64_t missing = need & ~have;
    if (!missing)
        return 0;
    return diag_error(&s->diag, ER_COLUMNACCESS_DENIED_ERROR, priv_command(lowest_bit(missing)), s->priv_user,
                      s->host, column, table);
}

uint64_t priv_column(session_t *s, const char *db, const char *table, const char *column)
{
    uint64_t have = priv_table(s, db, table, NULL);
    const acl_privs_t *p = privs_get(s);
    if (p)
        have |= acl_privs_column(p, db, table, column);
    return have;
}

bool priv_table_visible(session_t *s, const char *db, const char *table)
{
    if (!strcasecmp(db, "information_schema"))
        return true;
    uint64_t cols = 0;
    return priv_table(s, db, table, &cols) != 0 || cols != 0;
}
