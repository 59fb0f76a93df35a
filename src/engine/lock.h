/*
 * engine/lock: row locks, shared (S) and exclusive (X).  A transaction takes X on every (tree, key) it writes or
 * reads FOR UPDATE, S on what it reads FOR SHARE / LOCK IN SHARE MODE, and holds them to commit or rollback
 * (strict two-phase locking), so undo can always restore a key: no other transaction changed it meanwhile.
 * S is compatible with S; X with nothing; a holder of S alone may upgrade to X.  A request that conflicts waits,
 * up to a timeout (ENGINE_ELOCKWAIT); before waiting it searches the wait-for graph (each waiter waits for the
 * holders of one lock) and refuses with ENGINE_EDEADLOCK if some path leads back to it.  One mutex guards the
 * table; each transaction waits on its own condition variable and a release wakes only that lock's waiters.
 * Not yet: gap/next-key locks (phantom protection for locking reads at REPEATABLE READ).
 */
#ifndef STRATA_ENGINE_LOCK_H
#define STRATA_ENGINE_LOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lock_sys lock_sys_t;
typedef struct lock_entry lock_entry_t;

typedef enum { LOCK_S = 1, LOCK_X = 2 } lock_mode_t;

typedef struct lock_owner {
    uint64_t trx_id;
    lock_entry_t **held;         /* locks held (either mode) */
    uint32_t nheld, capheld;
    lock_entry_t *waiting_for;   /* under the lock_sys mutex */
    lock_mode_t waiting_mode;
    pthread_cond_t cond;
} lock_owner_t;

lock_sys_t *lock_sys_create(void);
void lock_sys_destroy(lock_sys_t *ls);
void lock_owner_init(lock_owner_t *o, uint64_t trx_id);
void lock_owner_destroy(lock_owner_t *o);
/* 0 (granted or already held in that mode or stronger), ENGINE_ELOCKWAIT or ENGINE_EDEADLOCK. */
int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                 uint64_t timeout_us);
void lock_release_all(lock_sys_t *ls, lock_owner_t *o);
uint64_t lock_waits(lock_sys_t *ls);
uint64_t lock_deadlocks(lock_sys_t *ls);

#endif
