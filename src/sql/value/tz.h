/*
 * sql/tz: the session time zone (@@time_zone) against the server's (SYSTEM, the process time zone).
 *
 * TIMESTAMP values are kept in the tables as the server's wall-clock time (time_zone=SYSTEM; the binlog turns them
 * into epoch seconds with mktime).  A session whose @@time_zone is a fixed offset ('+03:00') sees and writes them
 * in its own zone: access/table.c converts a row's TIMESTAMP values from the system zone when it decodes a row and
 * back when it encodes one (row, keys, binlog image); NOW() and friends evaluate in the session zone; an index
 * range on a TIMESTAMP column is not used then (a full scan: the bounds would need converting).  With
 * time_zone=SYSTEM (the default), or '+00:00' on a UTC server, nothing is converted.
 *
 * The zone is per thread, set by the session before each statement (as sql_store_set_mode).
 */
#ifndef STRATA_SQL_TZ_H
#define STRATA_SQL_TZ_H

#include <stdbool.h>
#include <stdint.h>

#include "sql/value/value.h"

/* name: "SYSTEM" or "+hh:mm" / "-hh:mm" (as the time_zone variable stores it). */
void sql_tz_set(const char *name);
/* true when TIMESTAMP values must be converted between the session zone and the system zone */
bool sql_tz_active(void);
/* the session zone's offset from UTC now, in seconds (the system zone's when time_zone=SYSTEM) */
int32_t sql_tz_offset_now(void);
/* the session zone's offset from UTC at the instant epoch, and at the session wall-clock time t (the system
 * zone's daylight saving time applies when time_zone=SYSTEM): FROM_UNIXTIME() and UNIX_TIMESTAMP() */
int32_t sql_tz_offset_at(int64_t epoch);
int32_t sql_tz_offset_wall(const sql_time_t *t);
/* TIMESTAMP value (VAL_TIMESTAMP / VAL_DATETIME fields) from the session zone to the system zone, and back.
 * The zero date is left as it is.  No-ops unless sql_tz_active(). */
void sql_tz_to_system(sql_time_t *t);
void sql_tz_from_system(sql_time_t *t);

#endif
