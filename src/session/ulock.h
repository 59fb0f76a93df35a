/*
 * session/ulock: user-level locks, the named locks of GET_LOCK(name, timeout), RELEASE_LOCK(name),
 * RELEASE_ALL_LOCKS(), IS_FREE_LOCK(name) and IS_USED_LOCK(name), with MariaDB 10.11's semantics:
 *
 *   - a lock belongs to a connection, not a transaction (COMMIT / ROLLBACK leave it); a connection may hold
 *     many, and taking one it holds again counts up (RELEASE_LOCK counts down, RELEASE_ALL_LOCKS returns the
 *     sum of the counts it dropped); disconnect and COM_RESET_CONNECTION release everything;
 *   - names compare as bytes (case-sensitive), at most 192 bytes (the SQL layer checks that);
 *   - a request for a lock another connection holds waits up to its timeout, then answers 0; a wait that would
 *     close a cycle of waits (A holds x and waits for y, B holds y and asks for x) is refused at once
 *     (ER_LOCK_DEADLOCK, as MariaDB's metadata-lock deadlock detector does); KILL QUERY ends a wait (NULL), and
 *     so does the client hanging up.
 *
 * Waiting blocks the worker thread (blocking_begin / blocking_end let the pool grow meanwhile, as for row-lock
 * and metadata-lock waits): the waiter sleeps on its lock's condition variable, woken by the release, in slices
 * of at most 100 ms to notice KILL.  One mutex guards the table; each lock has its own condition variable, and
 * a release wakes one waiter of that lock only.
 */
#ifndef STRATA_SESSION_ULOCK_H
#define STRATA_SESSION_ULOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one connection holds and waits for; created by its first GET_LOCK. */
typedef struct ulock_owner ulock_owner_t;

/* Longest lock name, in bytes (MariaDB's NAME_LEN: 64 characters of 3 bytes). */
#define ULOCK_NAME_MAX 192

enum {
    ULOCK_GOT = 1,       /* granted (or counted up: the caller held it already) */
    ULOCK_TIMEOUT = 0,   /* another connection held it for the whole timeout */
    ULOCK_KILLED = -1,   /* KILL QUERY / KILL ended the wait */
    ULOCK_DEADLOCK = -2, /* waiting would close a cycle of waits: refused at once */
};

/*
 * GET_LOCK.  *own is the connection's owner (created here when NULL), `id` its connection id (IS_USED_LOCK).
 * timeout_us: how long to wait (0: do not wait, UINT64_MAX: no limit).  The kill flags are read while waiting
 * (kill_query is cleared when it ends the wait); so is client_fd (-1: none): a client that hung up ends the
 * wait too (ULOCK_KILLED), as in MariaDB.
 */
int ulock_get(ulock_owner_t **own, uint32_t id, const char *name, size_t len, uint64_t timeout_us,
              _Atomic bool *kill_query, _Atomic bool *killed, int client_fd);
/* RELEASE_LOCK: 1 counted down (released at zero), 0 held by another connection, -1 nobody holds it. */
int ulock_release(ulock_owner_t *own, const char *name, size_t len);
/* RELEASE_ALL_LOCKS: releases every lock of the connection; returns the sum of their counts. */
uint64_t ulock_release_all(ulock_owner_t *own);
/* IS_USED_LOCK: the holder's connection id, 0 when free.  IS_FREE_LOCK is ulock_holder() == 0. */
uint32_t ulock_holder(const char *name, size_t len);
/* Disconnect: releases everything and frees the owner (NULL: nothing to do). */
void ulock_owner_free(ulock_owner_t *own);

#endif
