/*
 * Prometheus' text exposition format (version 0.0.4) for /metrics, under the names Prometheus' mysqld_exporter
 * gives its default collectors, so dashboards built for it work unchanged:
 *   mysql_up                                      gauge, 1
 *   mysql_global_status_<lowercased name>         untyped, every numeric SHOW GLOBAL STATUS value, except
 *     Com_*                  -> mysql_global_status_commands_total{command="select"}          counter
 *     Handler_*              -> mysql_global_status_handlers_total{handler="read_key"}        counter
 *     Connection_errors_*    -> mysql_global_status_connection_errors_total{error="accept"}   counter
 *     Innodb_buffer_pool_pages_{data,dirty,free,misc} -> mysql_global_status_buffer_pool_pages{state} gauge
 *     Innodb_buffer_pool_pages_<other> -> mysql_global_status_buffer_pool_page_changes_total{operation} counter
 *     Innodb_rows_*          -> mysql_global_status_innodb_row_ops_total{operation}           counter
 *     Performance_schema_*   -> mysql_global_status_performance_schema_lost_total{instrumentation} counter
 *   mysql_global_variables_<name>                 gauge, every numeric SHOW GLOBAL VARIABLES value
 *   mysql_version_info{version,version_comment,innodb_version} gauge, 1
 *   mysql_slave_status_<lowercased column>        untyped, when the server is a replica
 *   strata_*                                      strata's own gauges (docs/monitoring.md lists them)
 * "ON"/"YES" count as 1 and "OFF"/"NO"/"DISABLED"/"Connecting" as 0, as mysqld_exporter parses them; other text
 * is left out.
 *
 * A render reads counters in memory only: the status store's sums, the variable store, the engine's statistics
 * and file counters, the binlog index.  It walks no catalog, enters no session, takes no lock a statement waits
 * for (status_t.lock and the variable store's lock are leaves held for copies), and appears in neither the
 * process list nor the query logs.
 */
#ifndef STRATA_MONITOR_METRICS_H
#define STRATA_MONITOR_METRICS_H

#include <stdbool.h>

#include "util/buf.h"

struct server;
struct engine;

/* The whole exposition, appended to out. */
void metrics_render(struct server *srv, struct engine *eng, buf_t *out);

/* mysqld_exporter's parseStatus: the numeric value of a status or variable text, false if it has none. */
bool metrics_parse_value(const char *text, double *out);

/* Where a status variable goes: its family name (without "mysql_global_status_") and label value, copied into
 * family/label (lowercased); *type is "counter", "gauge" or "untyped" and *label_name NULL for untyped ones. */
void metrics_status_family(const char *name, char *family, size_t fcap, char *label, size_t lcap,
                           const char **label_name, const char **type);

#endif
