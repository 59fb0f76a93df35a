/*
 * Sampling another server over the MySQL protocol (fleet.h), through MariaDB Connector/C.
 * The connection is short-lived and bounded by timeouts (connect 3 s, read and write 5 s), so the sampler
 * thread never waits longer than that on a server that stopped answering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mysql.h>

#include "monitor/fleet.h"

/* A status value as a number: plain numbers, ON/OFF and YES/NO; false for text (Ssl_cipher, ...). */
static bool status_number(const char *v, double *out)
{
    if (!v || !*v)
        return false;
    if (!strcasecmp(v, "ON") || !strcasecmp(v, "YES")) {
        *out = 1;
        return true;
    }
    if (!strcasecmp(v, "OFF") || !strcasecmp(v, "NO")) {
        *out = 0;
        return true;
    }
    char *end;
    *out = strtod(v, &end);
    return *end == 0;
}

static int query_pairs(MYSQL *m, const char *sql, history_num_fn num, history_text_fn text, void *arg)
{
    if (mysql_query(m, sql) != 0)
        return -1;
    MYSQL_RES *res = mysql_store_result(m);
    if (!res)
        return -1;
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(res)) != NULL) {
        if (mysql_num_fields(res) < 2 || !row[0])
            continue;
        double d;
        if (num && status_number(row[1], &d))
            num(arg, row[0], d);
        if (text)
            text(arg, row[0], row[1] ? row[1] : "");
    }
    mysql_free_result(res);
    return 0;
}

/* Seconds_Behind_Master of SHOW SLAVE STATUS, when the server replicates and the column is not NULL. */
static void replica_lag(MYSQL *m, history_num_fn num, void *arg)
{
    if (mysql_query(m, "SHOW SLAVE STATUS") != 0)
        return;
    MYSQL_RES *res = mysql_store_result(m);
    if (!res)
        return;
    MYSQL_ROW row = mysql_fetch_row(res);
    unsigned n = mysql_num_fields(res);
    MYSQL_FIELD *f = mysql_fetch_fields(res);
    for (unsigned i = 0; row && i < n; i++)
        if (!strcmp(f[i].name, "Seconds_Behind_Master") && row[i])
            num(arg, "Strata_replica_lag_seconds", strtod(row[i], NULL));
    mysql_free_result(res);
}

void fleet_library_init(void) { mysql_library_init(0, NULL, NULL); }
void fleet_thread_begin(void) { mysql_thread_init(); }
void fleet_thread_end(void) { mysql_thread_end(); }

int fleet_sample(const fleet_server_t *s, history_num_fn status, history_text_fn vars, void *arg, char *err,
                 size_t cap)
{
    int rc = -1;
    MYSQL *m = mysql_init(NULL);
    if (!m) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    unsigned connect_timeout = 3, io_timeout = 5;
    mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
    mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &io_timeout);
    mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout);
    if (!mysql_real_connect(m, s->host, s->user, s->password, NULL, s->port, NULL, 0))
        goto fail;
    if (query_pairs(m, "SHOW GLOBAL STATUS", status, NULL, arg) != 0 ||
        query_pairs(m, "SHOW GLOBAL VARIABLES", NULL, vars, arg) != 0)
        goto fail;
    replica_lag(m, status, arg);
    status(arg, "Strata_up", 1);
    rc = 0;
fail:
    if (rc)
        snprintf(err, cap, "%u: %s", mysql_errno(m), mysql_error(m));
    mysql_close(m);
    return rc;
}
