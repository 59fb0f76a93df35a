/*
 * The monitoring site on the HTTP server (http.h): login against the account store, the Prometheus endpoint
 * (metrics.h), the dashboard pages and the JSON they read, the SVG charts, and the in-memory ring of recent
 * samples the charts draw.
 *
 *   GET /metrics                 Prometheus text format
 *   GET / /variables /processlist /digests /tablespaces /binlogs     the dashboard (one page, www/index.html)
 *   GET /static/app.js /static/style.css                             its assets, built into the binary
 *   GET /api/overview /api/status /api/variables /api/processlist /api/digests /api/tablespaces /api/binlogs
 *       /api/charts              JSON
 *   GET /chart/<name>.svg[?window=seconds]                           a server-rendered line chart: up to an
 *       hour from the ring, longer windows (1 day, 7 days) from strata_monitor.status_history
 *
 * Login: HTTP basic auth with a strata account, matched by user and client host as a SQL login is, its password
 * checked with the account's plugin (mysql_native_password or caching_sha2_password), refused if the account
 * is locked, requires TLS on a plain connection, or holds neither PROCESS nor SUPER globally (directly or
 * through its default role).
 */
#ifndef STRATA_MONITOR_HTTP_SITE_H
#define STRATA_MONITOR_HTTP_SITE_H

struct server;
struct engine;

#include "monitor/history.h"

typedef struct monitor_http_cfg {
    struct server *srv;
    struct engine *engine;
    /* Reads strata_monitor's history (session_monitor_read): windows past the ring's hour, days-to-full, the
     * fleet.  0, or a MySQL error number with the message in err. */
    int (*history_read)(const char *sql, size_t len, history_row_fn fn, void *arg, char *err, size_t cap);
    const char *cert_path; /* the server's certificate and key (TLS with monitor_http_tls=ON) */
    const char *key_path;
} monitor_http_cfg_t;

/* Starts the site if monitor_http_port is set (0 when it is not, or when it started; a negative value after
 * logging why it could not). */
int monitor_http_start(const monitor_http_cfg_t *cfg);
/* Stops the HTTP threads and the sampler (before the session registry and the engine go). */
void monitor_http_stop(void);

#endif
