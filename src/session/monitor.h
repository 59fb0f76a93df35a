/*
 * The history sampler's side in the session layer (monitor/history.h): its session and what it reads.
 */
#ifndef STRATA_SESSION_MONITOR_H
#define STRATA_SESSION_MONITOR_H

#include "session/session.h"

/* Starts the sampler after start-up (the catalog, binlog and replica are open).  0 or -1. */
int session_monitor_start(server_t *srv);
/* Stops it and frees its session; before the connections and the catalog go. */
void session_monitor_stop(void);
/* SHOW STRATA ADVICE: the rules firing at the sampler's last pass. */
int session_monitor_show_advice(session_t *s, res_sink_t *sink, bool more);

#endif
