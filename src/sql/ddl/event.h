/*
 * Events: what the DDL (ddl/event.c) and the scheduler (session/event_sched.c) share -- the time arithmetic of a
 * schedule.  An event's instants are UTC epoch seconds; its wall-clock times (what SHOW prints, what an interval
 * of months steps through) are in the time zone it was created in ("SYSTEM" or "+hh:mm").
 */
#ifndef STRATA_SQL_DDL_EVENT_H
#define STRATA_SQL_DDL_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "access/event.h"
#include "util/arena.h"

/* 'YYYY-MM-DD hh:mm:ss' of epoch in time zone tz. */
const char *event_time_text(arena_t *a, const char *tz, int64_t epoch);
/*
 * The instant e is due at: 1 and *at, or 0 when it will not run again (an AT event that ran, an EVERY event whose
 * next slot is past ENDS).  An EVERY event's slots are STARTS + k * interval (k >= 0); this is the first after its
 * LAST_EXECUTED.  The scheduler runs a due event once and sets LAST_EXECUTED to that moment, so the slots missed
 * while the server was down or the scheduler off make one run, not many.  Status is not looked at.
 */
int event_next_run(const cat_event_t *e, int64_t *at);

#endif
