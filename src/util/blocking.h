/*
 * A thread about to wait for another session (a row lock, a group-commit fsync, SLEEP) says so, so that the
 * worker pool can keep enough threads runnable: MariaDB's thd_wait_begin/thd_wait_end.  Without it, once
 * every worker waits for a lock, the holder's COMMIT finds no worker and everybody times out.
 * The hooks are set once at start-up (net sets them); with none set these are no-ops.
 */
#ifndef STRATA_BLOCKING_H
#define STRATA_BLOCKING_H

void blocking_set_hooks(void (*begin)(void *arg), void (*end)(void *arg), void *arg);
void blocking_begin(void);
void blocking_end(void);

/* SHOW PROCESSLIST's State (MariaDB's thd_proc_info): while a statement runs, its session binds a slot to the
 * thread running it (NULL unbinds; the binding never outlives the call that made it), and a wait names itself
 * there for its duration.  blocking_set_state returns the previous state to put back (NULL without a slot). */
void blocking_bind_state(_Atomic(const char *) *slot);
const char *blocking_set_state(const char *state);
/* SHOW PROCESSLIST's Progress beside it (MariaDB's thd_progress_report): thousandths of a percent done of a long
 * statement (0..100000), in a slot bound the same way; 0 when the statement reports none. */
void blocking_bind_progress(_Atomic(unsigned) *slot);
void blocking_set_progress(unsigned milli_pct);

#endif
