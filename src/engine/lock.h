/*
 * engine/lock: row locks.  A transaction takes an exclusive lock on every (tree, key) it writes or reads FOR
 * UPDATE and holds it to commit or rollback (strict two-phase locking), so undo can always restore a key: no
 * other transaction changed it meanwhile.  A request that conflicts waits, up to a timeout (ENGINE_ELOCKWAIT);
 * before waiting it follows the wait-for chain (each waiter waits for one owner) and refuses with
 * ENGINE_EDEADLOCK if the chain comes back to it.  One mutex guards the table; each transaction waits on its own
 * condition variable and a release wakes only the waiters of that lock.
 * Not yet: shared locks, gap/next-key locks (phantom protection at REPEATABLE READ).
 */
#ifndef STRATA_ENGINE_LOCK_H
#define STRATA_ENGINE_LOCK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lock_sys lock_sys_t;
typedef struct lock_entry lock_entry_t;

typedef struct lock_owner {
    uint64_t trx_id;
    lock_entry_t *held;          /* locks held, linked through lock_entry.next_held */
    lock_entry_t *waiting_for;   /* under the lock_sys mutex */
    pthread_cond_t cond;
    uint32_t nheld;
} lock_owner_t;

lock_sys_t *lock_sys_create(void);
void lock_sys_destroy(lock_sys_t *ls);
void lock_owner_init(lock_owner_t *o, uint64_t trx_id);
void lock_owner_destroy(lock_owner_t *o);
/* 0 (granted or already held), ENGINE_ELOCKWAIT or ENGINE_EDEADLOCK. */
int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, uint64_t timeout_us);
void lock_release_all(lock_sys_t *ls, lock_owner_t *o);
uint64_t lock_waits(lock_sys_t *ls);
uint64_t lock_deadlocks(lock_sys_t *ls);

#endif
