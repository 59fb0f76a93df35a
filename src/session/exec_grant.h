/*
 * Session-internal: the privilege statements (exec_grant.c), dispatched from exec.c.  Each answers through
 * the sink (OK or a result set) and returns 0, or returns -ER_x with the error in the session's diagnostics
 * area (exec.c sends it).
 */
#ifndef STRATA_SESSION_EXEC_GRANT_H
#define STRATA_SESSION_EXEC_GRANT_H

#include <stdbool.h>

#include "acl/acl.h"
#include "session/session.h"
#include "sql/sql.h"

/* GRANT / REVOKE (privileges at every level, roles), CREATE ROLE, DROP ROLE, SET ROLE, SET DEFAULT ROLE. */
int exec_grant_stmt(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more);
/* SHOW GRANTS [FOR user | FOR CURRENT_USER()]. */
int exec_grant_show(session_t *s, const sql_show_t *sh, res_sink_t *sink, bool more);
/* Whether the session may read/change accounts other than its own: `need` (SELECT to read, UPDATE to change)
 * on the `mysql` database, as MariaDB asks.  Pushes 1044 for database 'mysql' when not. */
int exec_grant_check_mysql_db(session_t *s, uint64_t need);

/* Copies ACCOUNT LOCK/UNLOCK, REQUIRE NONE/SSL and MAX_USER_CONNECTIONS into an account spec; 1235 for
 * REQUIRE X509/ISSUER/SUBJECT/CIPHER (no client certificates yet). */
int exec_grant_account_opts(session_t *s, const sql_account_opts_t *o, acl_user_spec_t *spec);

#endif
