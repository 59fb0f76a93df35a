/*
 * Metadata locks (MySQL's MDL, reduced to what strata needs): a statement that reads or writes a table takes a
 * SHARED lock on its name, kept until the transaction ends; DDL on an existing table (ALTER, DROP, TRUNCATE,
 * RENAME, CREATE/DROP INDEX) takes EXCLUSIVE locks on every name it touches, all at once, for the statement.
 *
 * So DDL waits for the transactions that used the table to end (no committed write can land in a tree ALTER
 * TABLE already copied and dropped), and statements wait while DDL runs.  A waiting DDL blocks new SHARED
 * requests (no starvation under a continuous load); a session that already holds a name never waits for it
 * again.  Waits end with ER_LOCK_WAIT_TIMEOUT after lock_wait_timeout, or ER_QUERY_INTERRUPTED on KILL QUERY.
 * DDL acquires all its names together and never holds one while waiting for another, so two DDLs cannot
 * deadlock each other by themselves; with the transactions whose locks they wait for they can (two open
 * transactions each reading a table the other's waiting DDL blocks).  Before a request sleeps it searches the
 * wait-for graph (a waiter waits for the holders of a conflicting mode on its names and, if it asks for a shared
 * mode, for the DDL already waiting there): a cycle fails one request of it with MDL_DEADLOCK (ER_LOCK_DEADLOCK,
 * the victim's transaction is rolled back), as MariaDB's MDL deadlock detector does.  The victim is a shared
 * (DML) request of the cycle, the requester's own if it is one; DDL only when the cycle holds nothing else.
 * Row-lock waits are the engine's graph (engine/lock.h): a cycle through both ends at innodb_lock_wait_timeout,
 * as in MariaDB.
 *
 * Readers and writers are told apart (MariaDB's MDL_SHARED_READ / MDL_SHARED_WRITE): an index build or table
 * copy takes NO_WRITE (MDL_SHARED_NO_WRITE) for its long part, which lets readers in and keeps writers out, and
 * upgrades it to EXCLUSIVE only to publish the new definition (mdl_upgrade).  A waiting NO_WRITE holds back new
 * writers, a waiting EXCLUSIVE everybody.  A session that holds a name for reading and asks to write it while
 * another session holds it NO_WRITE can never get it (that DDL must upgrade past this reader): it gets
 * MDL_DEADLOCK at once (ER_LOCK_DEADLOCK; MariaDB's deadlock detector makes the DML the victim too).
 *
 * Compatibility (held across, requested down; + = granted):
 *                 READ  WRITE  NO_WRITE  EXCLUSIVE
 *    READ          +     +       +          -
 *    WRITE         +     +       -          -
 *    NO_WRITE      +     -       -          -
 *    EXCLUSIVE     -     -       -          -
 *
 * Thread-safety: one mutex for the table of names; a session's mdl_set_t is its own.  A waiting request sleeps
 * until a change of a name it waits on, its deadline, or mdl_kick of its kill flag wakes it: nobody polls.
 */
#ifndef STRATA_SQL_MDL_H
#define STRATA_SQL_MDL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct mdl_lock mdl_lock_t;

typedef enum mdl_mode { MDL_READ = 0, MDL_WRITE = 1, MDL_NO_WRITE = 2, MDL_EXCLUSIVE = 3 } mdl_mode_t;

typedef struct mdl_set {
    mdl_lock_t **held;
    uint8_t *mode;       /* mdl_mode_t of each held name */
    uint32_t *hpos;      /* where each entry is in its name's list of holders */
    uint32_t n, cap;
    /* the deadlock search's, under the table's mutex */
    struct mdl_waiter *wait;  /* the request this session sleeps in, or NULL */
    struct mdl_set *via;      /* the session the search reached this one from */
    uint64_t visit;           /* the last search that reached this session */
} mdl_set_t;

enum { MDL_TIMEOUT = 1, MDL_KILLED = 2, MDL_DEADLOCK = 3 };
/* 0, MDL_TIMEOUT (after timeout_us) or MDL_KILLED (*kill became true; it is cleared). */
int mdl_shared(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill);
/* A shared lock for a statement that changes the table (a READ held already is raised); MDL_DEADLOCK above. */
int mdl_shared_write(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill);
/* NO_WRITE on one name: waits for the writers holding it to finish. */
int mdl_no_write(mdl_set_t *s, const char *db, const char *name, uint64_t timeout_us, _Atomic bool *kill);
/* Every NO_WRITE of s becomes EXCLUSIVE, once the readers are gone. */
int mdl_upgrade(mdl_set_t *s, uint64_t timeout_us, _Atomic bool *kill);
int mdl_exclusive(mdl_set_t *s, const char *const *dbs, const char *const *names, uint32_t n, uint64_t timeout_us,
                  _Atomic bool *kill);
void mdl_release_all(mdl_set_t *s);
void mdl_set_free(mdl_set_t *s);

/* Names currently locked (tests, monitoring). */
uint32_t mdl_count(void);
/* After setting a session's kill flag: wakes that session's waiting request, if any, to see it. */
void mdl_kick(_Atomic bool *kill);
/* Signals sent to waiting requests so far (tests: a change wakes only the requests waiting on that name). */
uint64_t mdl_wakeups(void);
/* Sessions waiting for a metadata lock now (a relaxed read; the monitor's Strata_mdl_waiting). */
uint32_t mdl_waiting(void);
/* Requests failed with MDL_DEADLOCK by the wait-for search so far. */
uint64_t mdl_deadlocks(void);

#endif
