/*
 * The event scheduler (MariaDB's): while the global event_scheduler is ON, one thread of its own sleeps until
 * the next event is due -- on a condition variable with that deadline, woken early by CREATE / ALTER / DROP
 * EVENT and DROP DATABASE -- and runs each due event's body in a session of its own, as the event's definer.
 */
#ifndef STRATA_SESSION_EVENT_SCHED_H
#define STRATA_SESSION_EVENT_SCHED_H

#include <stdbool.h>

#include "session/session.h"

/* At start-up, once the catalog and the binlog are open: the scheduler follows event_scheduler from now on
 * (ON starts it; DISABLED keeps it off for good, as MariaDB's --event-scheduler=DISABLED).  0, or -1 when the
 * thread cannot start. */
int event_sched_init(server_t *srv);
/* At shutdown: the scheduler stops (begin: before the sessions are killed), then the events running are waited
 * for (their sessions were killed). */
void event_sched_shutdown_begin(void);
void event_sched_shutdown(void);
/* The definitions changed: the scheduler reads them again now. */
void event_sched_kick(void);
/* SET GLOBAL event_scheduler: its checks (1231 for DISABLED, 1290 when started DISABLED) and its effect. */
int event_sched_check(int64_t value, diag_t *d);
/* The same, first, with SET's value as written (1231 names it so: '2', 'DISABLED'). */
int event_sched_check_text(const char *text, diag_t *d);
void event_sched_changed(void);
/* Is the scheduler ON (CREATE / ALTER EVENT warn when it is not)? */
bool event_sched_on(void);

#endif
