/*
 * The history sampler's side in the session layer (monitor/history.h): its session and what it reads.
 */
#ifndef STRATA_SESSION_MONITOR_H
#define STRATA_SESSION_MONITOR_H

#include "monitor/history.h"
#include "session/session.h"

/* Starts the sampler after start-up (the catalog, binlog and replica are open).  0 or -1. */
int session_monitor_start(server_t *srv);
/* Stops it and frees its session; before the connections and the catalog go. */
void session_monitor_stop(void);
/* Runs one read of the history (the dashboard's charts and tables) in a reader session of its own, like the
 * sampler's (unlisted, unmetered, never logged), one caller at a time.  0, or the MySQL error number with its
 * message in err. */
int session_monitor_read(const char *sql, size_t len, history_row_fn fn, void *arg, char *err, size_t cap);
/* SHOW STRATA ADVICE: the rules firing at the sampler's last pass. */
int session_monitor_show_advice(session_t *s, res_sink_t *sink, bool more);

#endif
