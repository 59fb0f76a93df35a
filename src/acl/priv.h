/*
 * Privileges: the names and bits (from privileges.def) and the checks every statement makes before it touches
 * anything.  The grants themselves are stored by the account store (acl.h); this header is what the session and
 * the SQL executor call.
 *
 * A session resolves its effective privileges once (its account's grants, plus those of its active role and
 * the roles granted to that role) into a private cache, and re-resolves them when acl_version() moves; so a
 * check costs a few comparisons, and a REVOKE reaches open connections at their next check.
 *
 * Every priv_check_* returns 0 when allowed, or pushes MariaDB's error into the session's diagnostics area and
 * returns -ER_x (the caller returns that as the statement's result).
 *
 * Hooks for the table executor (call before touching data; prepared statements call them at EXECUTE):
 *   SELECT/INSERT/UPDATE/DELETE on db.t   priv_check_table(s, db, t, PRIV_SELECT ...)
 *        -> 0: the table-level privilege is held; PRIV_COLUMNS: only some columns are granted, so call
 *           priv_check_column(s, db, t, col, PRIV_x) for every column the statement reads (SELECT), writes
 *           (INSERT/UPDATE) -- 1143 names the first denied column; <0: 1142 pushed.
 *   CREATE TABLE db.t                      priv_check_table(s, db, t, PRIV_CREATE)        (1142)
 *   DROP / TRUNCATE TABLE                  priv_check_table(s, db, t, PRIV_DROP)
 *   ALTER TABLE                            priv_check_table(s, db, t, PRIV_ALTER) (+ INSERT|CREATE on RENAME)
 *   CREATE/DROP INDEX                      priv_check_table(s, db, t, PRIV_INDEX)
 *   CREATE/DROP DATABASE                   priv_check_db(s, db, PRIV_CREATE / PRIV_DROP)  (1044)
 *   USE db / COM_INIT_DB                   priv_check_db_access(s, db)                    (1044)
 *   LOCK TABLES                            priv_check_db(s, db, PRIV_LOCK_TABLES) and SELECT on each table
 *   CREATE/ALTER/DROP TABLESPACE           priv_check_global(s, PRIV_CREATE_TABLESPACE)   (1227)
 *   SHOW DATABASES, information_schema     priv_db_visible(s, db), priv_table_visible(s, db, t)
 */
#ifndef STRATA_SESSION_PRIV_H
#define STRATA_SESSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct session session_t;

/* Where a privilege may be granted. */
enum priv_level_bits { PL_G = 1, PL_D = 2, PL_T = 4, PL_C = 8 };

#define PRIV(id, bit, name, levels) PRIV_##id = 1ull << (bit),
enum priv_bits {
#include "acl/privileges.def"
};
#undef PRIV

typedef struct priv_def {
    const char *name;
    uint64_t bit;
    unsigned levels; /* PL_* */
} priv_def_t;

/* The table in bit order (the order SHOW GRANTS prints them) and its length. */
extern const priv_def_t priv_defs[];
extern const size_t priv_ndefs;

/* Every privilege that can be granted at a level (PL_G, PL_D, PL_T, PL_C), GRANT OPTION excluded: what
 * ALL [PRIVILEGES] means there. */
uint64_t priv_all_at(unsigned level);
/* A name as GRANT takes it ("SELECT", "REPLICATION CLIENT", "GRANT OPTION"; upper-case, words joined by one
 * space) to its bit; 0 if unknown. */
uint64_t priv_from_name(const char *name);
/* Names of the bits in `bits`, in table order, joined by ", " (appended to out). */
void priv_names(uint64_t bits, buf_t *out);

/* Returned by priv_check_table when only column-level grants allow the operation (see above). */
#define PRIV_COLUMNS 1

/* The session's effective privileges, refreshed if the account store changed since they were resolved. */
uint64_t priv_global(session_t *s);
bool priv_has_global(session_t *s, uint64_t any_of);
/* 1227 "Access denied; you need (at least one of) the X, Y privilege(s) for this operation" unless the
 * session holds one of `any_of` globally. */
int priv_check_global(session_t *s, uint64_t any_of);
/* Privileges on database db (global | database level).  priv_check_db: all of `need`, else 1044. */
uint64_t priv_db(session_t *s, const char *db);
int priv_check_db(session_t *s, const char *db, uint64_t need);
/* USE db: allowed with any privilege on the database or on anything in it (1044 otherwise). */
int priv_check_db_access(session_t *s, const char *db);
/* Privileges on db.table (global | database | table level); *columns (may be NULL) gets the bits granted
 * on at least one column of it. */
uint64_t priv_table(session_t *s, const char *db, const char *table, uint64_t *columns);
/* All of `need` on the table: 0; PRIV_COLUMNS when what is missing is granted on some columns; else 1142
 * "<CMD> command denied to user 'u'@'h' for table `db`.`t`" naming every missing privilege. */
int priv_check_table(session_t *s, const char *db, const char *table, uint64_t need);
/* Pushes 1142 naming every privilege of `missing` on db.table, in privileges.def order. */
int priv_deny_table(session_t *s, const char *db, const char *table, uint64_t missing);
/* The same with the statement named as MariaDB does for it ("SHOW", "DROP, ALTER"). */
int priv_deny_table_cmd(session_t *s, const char *command, const char *db, const char *table);
/* The table statements the SQL executor runs (priv_stmt.c): every table, database and column privilege the
 * statement needs, checked before it runs (and at each EXECUTE of a prepared statement).  0 or -ER_x. */
struct sql_stmt;
int priv_check_stmt(session_t *s, const struct sql_stmt *st);
/* Whether statement kind `kind` (sql_stmt_kind_t) has a privilege rule (statements.def); a unit test walks it. */
bool priv_stmt_has_rule(int kind);
/* The privileges held on one column: the table's (global | database | table level) and the column's grants. */
uint64_t priv_column(session_t *s, const char *db, const char *table, const char *column);
/* All of `need` on one column (table-level grants count): 0, else 1143. */
int priv_check_column(session_t *s, const char *db, const char *table, const char *column, uint64_t need);
/* SHOW DATABASES / information_schema filtering: any privilege on the database or on something in it (or
 * the global SHOW DATABASES privilege).  information_schema is always visible. */
bool priv_db_visible(session_t *s, const char *db);
bool priv_table_visible(session_t *s, const char *db, const char *table);
/* Drops the session's cache (after SET ROLE). */
void priv_session_reset(session_t *s);
/* After a login or COM_CHANGE_USER (priv_user/priv_host set): drops the cache and activates the account's
 * default role if it is still granted. */
void priv_session_login(session_t *s, const char *default_role);

#endif
