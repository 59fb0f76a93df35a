/*
 * The history sampler: a thread of its own that every monitor_interval seconds writes the server's status
 * counters and gauges, its changed variables and (each minute) its statement digests into tables of the
 * server's own engine in the schema strata_monitor, samples the other servers registered in
 * strata_monitor.servers the same way (fleet.h), keeps the tables within their retention and size bound, and
 * evaluates the advice rules (advice.h) over the history, raising alerts (error log, webhook).
 *
 * This box knows nothing of sessions or SQL execution: the caller (src/session/monitor.c) hands it a
 * history_ops_t that runs one SQL statement in the sampler's own session (a system session: not in the
 * process list, not in the slow log or the digests, never written to the binary log, its counters kept apart
 * from the server's) and reads the live counters, variables and digests.
 *
 * The tables (created at start-up if missing; docs/monitoring.md):
 *   status_history(server, ts, name, value)        every sample, kept 7 days; PRIMARY KEY (server, ts, name),
 *                                                  KEY (server, name, ts) for one series over a window
 *   status_history_5min(server, ts, name, value)   5-minute averages of what is older than 7 days
 *   variables_history(server, ts, name, value)     a row when a variable's value changed (first sample: all)
 *   digest_history(server, ts, schema_name, digest, digest_text, count_star, ...)
 *                                                  each minute, the digests whose count changed; kept 24 h
 *   advice(server, ts, rule, severity, window, evidence, current_value, suggested_value)
 *                                                  the rules firing at the last evaluation
 *   servers(host, port, user, password)            the fleet: INSERT to monitor a server, DELETE to stop
 * ts is unix seconds (FROM_UNIXTIME(ts) reads it); server is 'local' for this server, 'host:port' for others.
 */
#ifndef STRATA_MONITOR_HISTORY_H
#define STRATA_MONITOR_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HISTORY_SCHEMA "strata_monitor"
#define HISTORY_LOCAL "local"

typedef void (*history_num_fn)(void *arg, const char *name, double value);
typedef void (*history_text_fn)(void *arg, const char *name, const char *value);
/* One result row: n cells, NULL for SQL NULL. */
typedef void (*history_row_fn)(void *arg, int n, const char *const *cells);

typedef struct history_digest {
    const char *schema, *digest, *text;
    uint64_t count, sum_timer_wait, sum_rows_examined, sum_rows_sent, sum_errors, sum_no_index_used;
} history_digest_t;

typedef struct history_config {
    uint64_t interval;      /* seconds; 0: not sampling */
    uint64_t max_size;      /* bytes the strata_monitor tables may take */
    char webhook[1024];     /* monitor_alert_webhook; "" for none */
} history_config_t;

typedef struct history_ops {
    void *arg;
    /* Runs one statement in the sampler's session; rows (if any) to fn.  0, or the MySQL error number with its
     * message in err. */
    int (*exec)(void *arg, const char *sql, size_t len, history_row_fn fn, void *fnarg, char *err, size_t cap);
    /* Every numeric global status variable and the gauges (Strata_*), as SHOW GLOBAL STATUS would read them. */
    void (*status)(void *arg, history_num_fn fn, void *fnarg);
    /* Every global variable as text. */
    void (*variables)(void *arg, history_text_fn fn, void *fnarg);
    void (*digests)(void *arg, void (*fn)(void *fnarg, const history_digest_t *d), void *fnarg);
    void (*config)(void *arg, history_config_t *out);
} history_ops_t;

/* Starts the sampler thread (it creates the schema at its first pass).  0 or -1. */
int history_start(const history_ops_t *ops);
/* Stops and joins it; its session is the caller's to free afterwards. */
void history_stop(void);
/* Wakes the sampler now (monitor_interval changed). */
void history_kick(void);

/* The last evaluation of the advice rules for this server (SHOW STRATA ADVICE): fn once per firing rule. */
typedef struct history_advice_row {
    const char *rule, *severity, *window, *evidence, *current, *suggested;
} history_advice_row_t;
void history_advice_scan(void (*fn)(void *arg, const history_advice_row_t *r), void *arg);

/* Passes done since start (tests and status). */
uint64_t history_passes(void);

#endif
