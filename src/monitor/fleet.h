/*
 * The rest of the fleet: another MySQL-protocol server (MariaDB, MySQL, strata) sampled over the network with
 * MariaDB Connector/C, the client library the replica uses (src/repl/replica.c).  One call connects, reads
 * SHOW GLOBAL STATUS and SHOW GLOBAL VARIABLES, and disconnects: a sample every monitor_interval seconds
 * does not need a connection held open on the other server, and a server that went away costs one connect
 * timeout, nothing more.
 */
#ifndef STRATA_MONITOR_FLEET_H
#define STRATA_MONITOR_FLEET_H

#include "monitor/history.h"

typedef struct fleet_server {
    char host[256];
    unsigned port;
    char user[128];
    char password[128];
} fleet_server_t;

/* status gets every numeric status variable (ON/OFF as 1/0), vars every variable as text, then gauges
 * Strata_up (1) and Strata_replica_lag_seconds when the server is a replica.  0, or -1 with the client's
 * message in err (the server is then recorded as Strata_up 0 by the caller). */
/* Connector/C's process set-up (before any thread uses it; idempotent) and the sampler thread's own. */
void fleet_library_init(void);
void fleet_thread_begin(void);
void fleet_thread_end(void);

int fleet_sample(const fleet_server_t *s, history_num_fn status, history_text_fn vars, void *arg, char *err,
                 size_t cap);

#endif
