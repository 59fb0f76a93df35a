/*
 * engine/lock: row locks, shared (S) and exclusive (X), and gap locks (InnoDB's next-key protection).
 *
 * Record locks.  A transaction takes X on every (tree, key) it writes or reads FOR UPDATE, S on what it reads
 * FOR SHARE / LOCK IN SHARE MODE, and holds them to commit or rollback (strict two-phase locking), so undo can
 * always restore a key: no other transaction changed it meanwhile.  S is compatible with S; X with nothing; a
 * holder of S alone may upgrade to X.
 *
 * Gap locks.  A locking scan at REPEATABLE READ also locks the key space it walked over: an open interval
 * (lo, hi) of one tree's keys, lo/hi being keys the scan saw (or minus/plus infinity).  Gap locks never wait and
 * never conflict with each other, whatever their mode (as in InnoDB): they only stop *inserts*.  An insert's
 * intention check (lock_insert_begin) waits, holding nothing, while another transaction's gap covers its key,
 * then it takes the key's X record lock; insert intentions do not conflict with each other.  A scan extends one
 * gap as it moves (record k locked, then the gap after it: one interval (lo, next) that also covers k), so a scan
 * of n rows holds n record locks but one gap.
 *
 * The race a B+tree scan has with an insert (the scan read the keys around a gap before the insert landed, but
 * locks the gap after the insert passed its check) is closed without holding page latches across lock calls:
 *   - an insert is "in flight" from its passed intention check and record lock (lock_insert_begin) to
 *     lock_insert_end, after the key is in the tree; a gap request that covers an in-flight key of another trx is refused with LOCK_GAP_INFLIGHT
 *     and the key, and the scanner waits for that key's record lock (held by the inserter to its end);
 *   - each tree (by hash bucket) has an epoch counting finished inserts; the scanner reads it before reading the
 *     tree, and a gap granted after the epoch moved comes back LOCK_GAP_STALE: granted, but read again.
 *
 * Waits and deadlocks.  A request that conflicts waits, up to a timeout (ENGINE_ELOCKWAIT); before waiting it
 * searches the wait-for graph (a record waiter waits for the conflicting holders of one lock, an insert waiter for
 * the owners of the gaps covering its key) and refuses with ENGINE_EDEADLOCK if some path leads back to it.  A
 * waiter whose owner has a kill flag (the session's kill_query) ends with ENGINE_EINTR when the flag is set:
 * KILL sets it, then lock_kick wakes the sleepers of that flag (a list under its own leaf mutex, smu), and the
 * waiter, listed before it first reads the flag, sees it.
 *
 * Partitions.  The lock table is cut into LOCK_PARTS partitions, each with its own mutex: a record entry lives in
 * the partition of its (tree, key) hash; a tree's gaps, its waiting inserts and its in-flight inserts live in the
 * partition of the tree id.  An operation holds one partition mutex at a time; only the deadlock search, before a
 * request sleeps, takes every partition (in index order, holding none before) to read a consistent wait-for
 * graph.  A waiter sleeps on its own mutex and condition variable, holding no partition; a release wakes, with one
 * signal each, only the waiters that can go now (the first compatible ones of that record; the inserts whose key
 * no gap of another owner covers any more), and a waiter that gives up passes the wake-up on.
 */
#ifndef STRATA_ENGINE_LOCK_H
#define STRATA_ENGINE_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct lock_sys lock_sys_t;
typedef struct lock_entry lock_entry_t;
typedef struct lock_gap lock_gap_t;
typedef struct lock_tree lock_tree_t;

typedef enum { LOCK_S = 1, LOCK_X = 2 } lock_mode_t;

/* What an owner waits for (under the lock_sys mutex). */
typedef enum { LOCK_WAIT_NONE = 0, LOCK_WAIT_RECORD, LOCK_WAIT_INSERT } lock_wait_t;

typedef struct lock_owner {
    uint64_t trx_id;
    lock_entry_t **held;         /* record locks held (either mode) */
    uint32_t nheld, capheld;
    lock_gap_t *gaps;            /* gap locks held */
    /* wait state, under the lock_sys mutex */
    lock_wait_t wait;
    lock_entry_t *waiting_for;   /* LOCK_WAIT_RECORD */
    lock_mode_t waiting_mode;
    lock_tree_t *wait_tree;      /* LOCK_WAIT_INSERT: the key is the caller's (valid while it waits) */
    const uint8_t *wait_key;
    size_t wait_klen;
    /* record locks other owners made explicit for this one (lock_convert), under the lock table's cmu */
    lock_entry_t **conv;
    uint32_t nconv, capconv;
    /* an insert between lock_insert_begin and lock_insert_end */
    bool inserting;
    lock_entry_t *ins_entry;     /* the record lock that insert took itself (NULL: it held the key before) */
    uint64_t ins_tree;
    const uint8_t *ins_key;
    size_t ins_klen;
    /* sleeping: wmu guards woken, cond is signalled by whoever wakes this owner (under no partition mutex of
     * the waiter's; taken inside the waker's partition mutex, a leaf) */
    pthread_mutex_t wmu;
    bool woken;
    _Atomic bool *kill;          /* set by the owner's thread (NULL: none); a wait that sees it true ends: EINTR */
    struct lock_owner *snext, *sprev; /* the sleepers list (lock_kick), under the lock table's smu */
    uint64_t visit;              /* the last deadlock search that reached this owner (under every partition) */
    _Atomic bool aborted;        /* the wait hook chose it: its lock waits end with ENGINE_EDEADLOCK (cleared by
                                  * lock_release_all) */
    pthread_cond_t cond;
} lock_owner_t;

/* One end of a gap: a key (the gap excludes it) or infinity (minus for lo, plus for hi). */
typedef struct {
    const void *key;
    size_t len;
    bool inf;
} lock_bound_t;

enum { LOCK_GAP_INFLIGHT = 1, LOCK_GAP_STALE = 2 };

lock_sys_t *lock_sys_create(void);
void lock_sys_destroy(lock_sys_t *ls);
void lock_owner_init(lock_owner_t *o, uint64_t trx_id);
void lock_owner_destroy(lock_owner_t *o);
/* Wakes the waits of the owners whose kill flag is kill (just set by KILL): they end with ENGINE_EINTR. */
void lock_kick(lock_sys_t *ls, _Atomic bool *kill);

/* Record lock.  0 (granted or already held in that mode or stronger), ENGINE_ELOCKWAIT or ENGINE_EDEADLOCK. */
int lock_acquire(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                 uint64_t timeout_us);
/* The same; *fresh says whether o held the key in neither mode before (a lock this call took). */
int lock_acquire_ex(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                    uint64_t timeout_us, bool *fresh);

/* Finished inserts into tree (a counter shared by a hash bucket of trees): read it before reading the keys that
 * bound a gap, and pass it to lock_gap. */
uint64_t lock_insert_epoch(lock_sys_t *ls, uint64_t tree);
/*
 * Gap lock on the open interval (lo, hi) of tree's keys.  Never waits.  *hint is the gap the caller's scan holds
 * (NULL at first; set on return): a request touching or overlapping it extends it in place, otherwise a new gap
 * is made.  Returns
 *   0                  granted, and no insert into the tree finished since epoch: what the caller read holds;
 *   LOCK_GAP_STALE     granted, but an insert finished since epoch: read the keys again (the gap stays);
 *   LOCK_GAP_INFLIGHT  not granted: another trx is inserting a key inside the interval; the key is copied into
 *                      *inflight; take its record lock (which waits for that insert's trx) and read again.
 */
int lock_gap(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, lock_bound_t lo, lock_bound_t hi, lock_mode_t mode,
             uint64_t epoch, lock_gap_t **hint, buf_t *inflight);
/* An insert (or put) of key: the insert-intention check (waits while a gap of another owner covers key; the
 * waiting insert holds no lock), then its X record lock (as lock_acquire); then marks the insert in flight until
 * lock_insert_end (which the caller must call after its tree change, whether it succeeded or not).  key must stay
 * valid until then.  0, ENGINE_ELOCKWAIT or ENGINE_EDEADLOCK; a failed insert leaves no lock of its own behind. */
int lock_insert_begin(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                      uint64_t timeout_us);
void lock_insert_end(lock_sys_t *ls, lock_owner_t *o);
/* lock_insert_begin that, with stop_at_shared, returns LOCK_INSERT_SHARED (taking nothing) instead of waiting
 * when other owners hold key's record lock in S mode only: such a key exists (or existed), and an insert of a
 * key that exists reports the duplicate under its own S lock rather than waiting for the readers (InnoDB). */
enum { LOCK_INSERT_SHARED = 1 };
int lock_insert_begin_ex(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                         uint64_t timeout_us, bool stop_at_shared);
/*
 * Implicit insert locks (InnoDB's implicit record locks).  A transaction that has inserted many keys need not keep
 * an entry per key: after its tree write, lock_insert_end_implicit drops the X entry the insert took (unless
 * another request waits on it) and the key stays locked implicitly, by the writer's trx id in the tree cell,
 * while that trx is active.  The engine keeps the rule (engine.c, "implicit insert locks"): every request for a
 * record lock first reads the key's cell and, when its writer is another active transaction that drops entries,
 * makes that writer's lock explicit (lock_convert) before asking for its own.  A drop that lands between that
 * read and the request would let the request through, so each drop moves its partition's drop epoch: a request
 * made with the epoch read before the cell (lock_drop_epoch) returns LOCK_RETRY when it moved, and the caller
 * reads the cell again.
 */
enum { LOCK_RETRY = 4 };
uint64_t lock_drop_epoch(lock_sys_t *ls, uint64_t tree, const void *key, size_t klen);
/* lock_acquire_ex that returns LOCK_RETRY (taking nothing) when a drop moved the key's epoch past epoch. */
int lock_acquire_at(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen, lock_mode_t mode,
                    uint64_t timeout_us, bool *fresh, uint64_t epoch);
/* lock_insert_begin_ex with the same epoch rule for its record lock. */
int lock_insert_begin_at(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen,
                         uint64_t timeout_us, bool stop_at_shared, uint64_t epoch);
/* lock_insert_end that also drops the record entry the insert took, when it took one and nobody waits on it;
 * the caller's tree cell must now carry its trx id.  Returns whether it dropped it. */
bool lock_insert_end_implicit(lock_sys_t *ls, lock_owner_t *o);
/* Makes holder's implicit X lock on (tree, key) explicit: an entry with holder as its X holder, listed in
 * holder->conv so that holder's lock_release_all gives it back.  The caller guarantees holder is active and does
 * not end meanwhile (engine.c holds its elide registry).  Nothing when holder already holds it. */
void lock_convert(lock_sys_t *ls, lock_owner_t *holder, uint64_t tree, const void *key, size_t klen);
/* Record entries in the table (tests: what implicit locks saved). */
uint64_t lock_entries(lock_sys_t *ls);

/* Does a gap of an owner other than o (NULL: of anybody) cover key?  (tests, diagnostics) */
bool lock_gap_covers(lock_sys_t *ls, const lock_owner_t *o, uint64_t tree, const void *key, size_t klen);
/* Gaps o holds (tests). */
uint32_t lock_gap_count(lock_sys_t *ls, const lock_owner_t *o);

void lock_release_all(lock_sys_t *ls, lock_owner_t *o);

/* The wait hook (a parallel replica's commit order, MariaDB's thd_rpl_deadlock_check): before an owner sleeps,
 * before the deadlock search (which passes over aborted owners: they give their locks back, so a cycle through
 * one of them makes it the victim), hook(arg, waiter, holder) is called for each owner it waits for, with
 * every partition mutex held; and when a record lock is granted while others still wait for it, for each of them
 * and the new holder, under that record's partition mutex.  The hook must take nothing that is held across a
 * lock call.  When it returns true
 * the holder is aborted: its lock wait now, or its next one, ends with ENGINE_EDEADLOCK, until its locks are
 * released.  NULL: none. */
typedef bool (*lock_wait_hook_fn)(void *arg, uint64_t waiter_trx, uint64_t holder_trx);
void lock_set_wait_hook(lock_sys_t *ls, lock_wait_hook_fn hook, void *arg);
/* Gives back o's record lock on (tree, key), if it holds one (READ COMMITTED's semi-consistent reads: only a
 * lock the caller knows it took for a row it did not change). */
void lock_release(lock_sys_t *ls, lock_owner_t *o, uint64_t tree, const void *key, size_t klen);
uint64_t lock_waits(lock_sys_t *ls);
/* Owners waiting now, microseconds waited in all, the longest wait (Innodb_row_lock_current_waits, _time, _max). */
void lock_wait_stats(lock_sys_t *ls, uint64_t *waiting, uint64_t *wait_us, uint64_t *wait_max_us);
uint64_t lock_deadlocks(lock_sys_t *ls);
/* Signals sent to sleeping waiters so far (tests: a release wakes only who can go). */
uint64_t lock_wakeups(lock_sys_t *ls);

#endif
