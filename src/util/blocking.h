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

#endif
