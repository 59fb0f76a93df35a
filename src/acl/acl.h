/*
 * The account store: who may log in, from where, and how they prove it.  Durable in one file of the data
 * directory (format drawn at the top of acl.c), loaded at start, rewritten atomically on every change.
 *
 * An account is (user, host pattern) with an auth plugin and the plugin's stored form of the password, a locked
 * flag, REQUIRE SSL, MAX_USER_CONNECTIONS, its global privileges and default role.  Database, table and column
 * grants and role edges are kept beside the accounts in the same file (see "grants" below).
 *
 * Identity: user names compare case-sensitively, host patterns case-insensitively (hosts are stored lowercased,
 * as MariaDB does).  Logins match in MySQL's order: accounts sorted by host specificity (no wildcard first, then
 * patterns by the length of their literal prefix, '%' and '' last), then named users before the anonymous user
 * ''; the first account whose host pattern and user match wins.
 *
 * Errors: functions that implement a statement take a diag_t and return 0 or -ER_* after pushing MySQL's error
 * (and notes for IF [NOT] EXISTS), so the SQL layer returns them as they are.
 *
 * Thread safety: an rwlock guards the published table; lookups take it shared and copy out (callers never hold
 * pointers into the store).  Changes are serialised by a writer mutex, build a new table and write the file
 * while readers go on using the old one, and take the rwlock exclusively only to swap the table in.
 * Lock order: writer mutex, then rwlock.  The per-account connection counts have their own mutex, never held with
 * the others.  Nothing else is called with any of them held.
 */
#ifndef STRATA_SESSION_ACL_H
#define STRATA_SESSION_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/password.h"
#include "util/buf.h"
#include "util/diag.h"

#define ACL_USER_CHARS 128  /* MariaDB 10.11: user names up to 128 characters */
#define ACL_HOST_CHARS 255  /* host names up to 255 characters */
#define ACL_USER_BYTES (ACL_USER_CHARS * 4)
#define ACL_HOST_BYTES ACL_HOST_CHARS
#define ACL_FILE_NAME "accounts.dat"

/* Error codes raised here that util/errors.def does not carry yet (message formats in acl.c). */
#define ACL_ER_PASSWD_LENGTH 1372        /* Password hash should be a 41-digit hexadecimal number */
#define ACL_ER_PLUGIN_IS_NOT_LOADED 1524 /* Plugin '%s' is not loaded */
#define ACL_ER_PASSWORD_FORMAT 1827      /* The password hash doesn't have the expected format. */
#define ACL_ER_USER_CREATE_EXISTS 1973   /* Note: Can't create user '%s'@'%s'; it already exists */
#define ACL_ER_USER_DROP_EXISTS 1974     /* Note: Can't drop user '%s'@'%s'; it doesn't exist */
#define ACL_ER_ROLE_CREATE_EXISTS 1975   /* Note: Can't create role '%s'; it already exists */
#define ACL_ER_ROLE_DROP_EXISTS 1976     /* Note: Can't drop role '%s'; it doesn't exist */
#define ACL_ER_CANNOT_REVOKE_ROLE 1962   /* Cannot revoke role '%s' from: %s */

enum acl_flag {
    ACL_FLAG_LOCKED = 1u << 0,      /* ACCOUNT LOCK: login refused with 4151 */
    ACL_FLAG_REQUIRE_SSL = 1u << 1, /* REQUIRE SSL: login without TLS refused with 1045 */
    ACL_FLAG_ROLE = 1u << 2,        /* a role (CREATE ROLE): host '', cannot log in */
};

/* A copy of one account, owned by the caller. */
typedef struct acl_account {
    char user[ACL_USER_BYTES + 1];
    char host[ACL_HOST_BYTES + 1];
    enum password_plugin plugin;
    char auth[PASSWORD_STORED_MAX];   /* the plugin's stored form; "" = no password */
    uint32_t flags;               /* ACL_FLAG_* */
    uint32_t max_user_connections; /* 0 = no per-account limit */
    uint64_t global_privs;        /* PRIV_* bits granted ON *.* (priv.h) */
    char default_role[ACL_USER_BYTES + 1]; /* SET DEFAULT ROLE; "" = none */
} acl_account_t;

/* One CREATE USER / ALTER USER item.  Leave a field at its "unchanged" value to keep it (ALTER) or default it
 * (CREATE: no password, mysql_native_password, unlocked, no SSL requirement, no limit). */
typedef struct acl_user_spec {
    const char *user;
    const char *host;          /* NULL means '%' */
    const char *plugin;        /* IDENTIFIED WITH/VIA <plugin>; NULL = unchanged (ALTER) / default (CREATE) */
    const char *password;      /* IDENTIFIED BY 'cleartext' (hashed here with the account's plugin), or NULL */
    size_t password_len;
    const char *auth_string;   /* IDENTIFIED BY PASSWORD '<hash>' / IDENTIFIED WITH p AS '<hash>', or NULL */
    int lock;                  /* -1 unchanged, 0 ACCOUNT UNLOCK, 1 ACCOUNT LOCK */
    int require_ssl;           /* -1 unchanged, 0 REQUIRE NONE, 1 REQUIRE SSL */
    int64_t max_user_connections; /* -1 unchanged, else WITH MAX_USER_CONNECTIONS n */
} acl_user_spec_t;

/* Initialises a spec with every field "unchanged". */
void acl_user_spec_init(acl_user_spec_t *s, const char *user, const char *host);

typedef struct acl_user_name {
    const char *user;
    const char *host; /* NULL means '%' */
} acl_user_name_t;

typedef struct acl acl_t;

/* Loads datadir/accounts.dat, or creates it with root@localhost (no password, mysql_native_password) when the
 * file does not exist.  Returns 0 and *out, or a negative STRATA_E* after logging (STRATA_ECORRUPT for a file that
 * fails its checks: the server must not start on a damaged account store). */
int acl_open(const char *datadir, acl_t **out);
void acl_close(acl_t *acl);
/* The generation of the file on disk (its header field): +1 per change written. */
uint64_t acl_generation(acl_t *acl);

/* CREATE USER [IF NOT EXISTS] u1 [, u2 ...].  Items that already exist fail the statement with 1396 naming all
 * of them ("Operation CREATE USER failed for 'a'@'%','b'@'%'"); the others are created anyway, as in MariaDB.  With
 * if_not_exists they are notes 1973 instead.  Bad input (too long a name: 1470, unknown plugin: 1524, malformed
 * hash: 1372/1827) fails the whole statement before anything changes. */
int acl_create_user(acl_t *acl, diag_t *d, const acl_user_spec_t *specs, size_t n, bool if_not_exists);
/* ALTER USER [IF EXISTS]: missing accounts give 1396 (notes 1396 with if_exists).  IDENTIFIED BY without a
 * plugin keeps the account's plugin; IDENTIFIED WITH a plugin and no password sets no password. */
int acl_alter_user(acl_t *acl, diag_t *d, const acl_user_spec_t *specs, size_t n, bool if_exists);
/* DROP USER [IF EXISTS]: missing accounts give 1396 (notes 1974 with if_exists); existing ones are dropped. */
int acl_drop_user(acl_t *acl, diag_t *d, const acl_user_name_t *names, size_t n, bool if_exists);
/* RENAME USER from[i] TO to[i], applied in order; a missing source or an existing target gives 1396 naming
 * the source. */
int acl_rename_user(acl_t *acl, diag_t *d, const acl_user_name_t *from, const acl_user_name_t *to, size_t n);
/* SET PASSWORD FOR user@host = ...: a cleartext password (hashed with the account's plugin) or, when
 * auth_string is not NULL, a stored form (1372 if malformed).  A missing account gives 1133. */
int acl_set_password(acl_t *acl, diag_t *d, const char *user, const char *host, const char *password,
                     size_t password_len, const char *auth_string);

/* The account a login as `user` from a client matches, in MySQL's order (see above).  client_host is the
 * client's host name if resolved (else NULL or the IP), client_ip its address text ("10.0.0.7", NULL for a Unix
 * socket); is_localhost is true for Unix-socket and loopback connections, which match the host 'localhost'.
 * Roles never match.  0 and *out, or STRATA_ENOTFOUND (the handshake then fails the login with 1045). */
int acl_find_for_login(acl_t *acl, const char *user, const char *client_host, const char *client_ip,
                       bool is_localhost, acl_account_t *out);
/* Exact lookup of user@host (host compared case-insensitively).  0 or STRATA_ENOTFOUND. */
int acl_get(acl_t *acl, const char *user, const char *host, acl_account_t *out);
/* SHOW CREATE USER text, MariaDB's form, into out (appended).  1133 if there is no such account. */
int acl_show_create_user(acl_t *acl, diag_t *d, const char *user, const char *host, buf_t *out);
/* Whether an unlocked account named root has no password (the server refuses to start so on a non-loopback
 * bind-address). */
bool acl_root_has_empty_password(acl_t *acl);
/* Calls fn for every account in match order, under the shared lock (fn must not call back into acl). */
void acl_foreach(acl_t *acl, void (*fn)(const acl_account_t *a, void *arg), void *arg);
size_t acl_count(acl_t *acl);
/* Incremented by every change; sessions compare it to notice that accounts/privileges changed. */
uint64_t acl_version(acl_t *acl);
/* The key of an account for auth_cache_* (unambiguous for any user and host), into out. */
void acl_account_key(const char *user, const char *host, char *out, size_t n);

/* Live connections per account, for MAX_USER_CONNECTIONS.  After a successful login the handshake calls
 * acl_connection_enter(); the account's own limit applies, or `global_limit` (@@max_user_connections) when the
 * account has none; 0 = unlimited.  On refusal it returns STRATA_ETOOBIG and *limit_out holds the limit for
 * ER_USER_LIMIT_REACHED (1226: "User '%s' has exceeded the 'max_user_connections' resource (current value: %ld)").
 * Every successful enter is paired with one acl_connection_leave() when the connection ends (also after
 * COM_CHANGE_USER, for the old account).  Counts are by user@host and independent of later ALTER/RENAME/DROP. */
int acl_connection_enter(acl_t *acl, const acl_account_t *a, uint32_t global_limit, uint32_t *limit_out);
void acl_connection_leave(acl_t *acl, const acl_account_t *a);
/* Current count for an account (tests, SHOW PROCESSLIST helpers). */
uint32_t acl_connection_count(acl_t *acl, const char *user, const char *host);

/* ------------------------------------------------------------------------------------------------ grants
 *
 * Grants are kept beside the accounts in the same store and file: a grantee (an account, or a role: user =
 * role name, host "") holds PRIV_* bits (priv.h) at one level: global (the account's global_privs), a database
 * pattern (`db`.* -- '%' and '_' are wildcards as in MySQL, '\' escapes them), a table, or a column of a table.
 * Roles are granted to accounts and to other roles (edges, with or without ADMIN OPTION).  Every change below
 * is one atomic rewrite of the file, like the account statements. */

#define ACL_NAME_BYTES 256 /* database, table and column names (64 characters of up to 4 bytes) */

typedef enum acl_level { ACL_LEVEL_GLOBAL, ACL_LEVEL_DB, ACL_LEVEL_TABLE, ACL_LEVEL_COLUMN } acl_level_t;

/* One GRANT / REVOKE item: `privs` added to, or removed from, grantee at one object. */
typedef struct acl_priv_change {
    const char *user;
    const char *host;      /* NULL means '%'; "" for a role */
    acl_level_t level;
    const char *db;        /* DB, TABLE, COLUMN */
    const char *table;     /* TABLE, COLUMN */
    const char *column;    /* COLUMN */
    uint64_t privs;        /* PRIV_* (GRANT OPTION included when granted/revoked) */
} acl_priv_change_t;

/* GRANT (revoke = false) or REVOKE of every item, in one atomic write.  A grantee that does not exist: 1133
 * (GRANT) or 1141 (REVOKE).  REVOKE of a grant that does not exist: 1141 (global/database level) or 1147
 * (table/column level).  On any error nothing changes. */
int acl_privs_change(acl_t *acl, diag_t *d, const acl_priv_change_t *items, size_t n, bool revoke);
/* REVOKE ALL PRIVILEGES, GRANT OPTION FROM user: every grant and every role granted to it (1269 if the
 * account does not exist, as MariaDB). */
int acl_revoke_all(acl_t *acl, diag_t *d, const acl_user_name_t *names, size_t n);

/* CREATE ROLE [IF NOT EXISTS] r [WITH ADMIN creator]: the role, granted to `admin_user`@`admin_host` WITH
 * ADMIN OPTION (as MariaDB does for the creator).  1396 "Operation CREATE ROLE failed for 'r'" if a role or
 * account r@'' exists (note 1975 with IF NOT EXISTS). */
int acl_create_role(acl_t *acl, diag_t *d, const char *role, bool if_not_exists, bool or_replace,
                    const char *admin_user, const char *admin_host);
/* DROP ROLE [IF EXISTS] r, ...: the roles, their grants, and their edges (1396 naming missing ones). */
int acl_drop_role(acl_t *acl, diag_t *d, const char *const *roles, size_t n, bool if_exists);
/* GRANT role TO grantee [WITH ADMIN OPTION] / REVOKE [ADMIN OPTION FOR] role FROM grantee.  1959 for an
 * unknown role, 1133 for an unknown grantee, 1962 revoking what was not granted. */
int acl_role_grant(acl_t *acl, diag_t *d, const char *role, const char *user, const char *host, bool admin,
                   bool revoke);
/* SET DEFAULT ROLE role|NONE FOR user@host (role NULL = NONE).  1959 "User `u`@`h` has not been granted role
 * `r`" unless the role is granted to the account. */
int acl_set_default_role(acl_t *acl, diag_t *d, const char *user, const char *host, const char *role);
/* Whether `role` is granted (directly) to user@host; *admin gets the ADMIN OPTION (may be NULL). */
bool acl_role_granted(acl_t *acl, const char *user, const char *host, const char *role, bool *admin);
/* Whether user@host names an existing role. */
bool acl_is_role(acl_t *acl, const char *name);

/* SHOW GRANTS FOR user@host (or a role: host ""): calls fn with each line MariaDB prints, in its order (role
 * grants, global, databases, tables with their columns, SET DEFAULT ROLE).  1141 if there is no such account.
 * A role name given with host "%" is looked up as a role when no such account exists. */
int acl_show_grants(acl_t *acl, diag_t *d, const char *user, const char *host,
                    void (*fn)(void *arg, const char *line), void *arg);

/* Resolved privileges of one account plus a role (and the roles granted to it): a private copy a session
 * caches and queries without locks. */
typedef struct acl_privs acl_privs_t;
/* user@host's grants, plus role's if role is not NULL.  Never fails (an unknown account resolves to none). */
acl_privs_t *acl_privs_resolve(acl_t *acl, const char *user, const char *host, const char *role);
void acl_privs_free(acl_privs_t *p);
uint64_t acl_privs_global(const acl_privs_t *p);
/* Database-level bits for db (every matching pattern ORed). */
uint64_t acl_privs_db(const acl_privs_t *p, const char *db);
/* Table-level bits for db.table; *columns the union of its column grants. */
uint64_t acl_privs_table(const acl_privs_t *p, const char *db, const char *table, uint64_t *columns);
uint64_t acl_privs_column(const acl_privs_t *p, const char *db, const char *table, const char *column);
/* Whether any table or column grant exists in db. */
bool acl_privs_db_has_tables(const acl_privs_t *p, const char *db);

/* Whether `pattern` (an account's host) matches a client; exposed for tests. */
bool acl_host_matches(const char *pattern, const char *client_host, const char *client_ip, bool is_localhost);

#endif
