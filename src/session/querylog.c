/*
 * What goes to the general and slow query logs (monitor/qlog.h writes them): the session knows the variables
 * that decide it and the facts a record carries.
 *
 * General log: every command as it arrives, before it runs (so a statement that crashes the server or never
 * ends is in it), named as MariaDB names them; skipped for a session with sql_log_off.  Open while
 * general_log is ON and log_output has FILE.
 *
 * Slow log: every statement after it ran, measured by the statement meter (session.h, stmt_meter): wall time,
 * metadata-lock wait, rows sent, rows examined (rows the executor read from tables), rows affected, bytes the
 * answer took.  Logged when the global and the session's slow_query_log are ON, log_output has FILE, and the
 * statement took longer than long_query_time or (log_queries_not_using_indexes) scanned a table without an
 * index, and examined at least min_examined_row_limit rows; administrative statements only with
 * log_slow_admin_statements.  Slow_queries counts the statements that qualify (time or index, and the examined
 * rows) whether or not a log is open or the session's slow_query_log is on, as MariaDB counts them.
 *
 * log_output=TABLE (MariaDB's mysql.general_log / mysql.slow_log tables) is refused: strata has no log tables,
 * and accepting the value while writing nothing would lose the log silently.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/qlog.h"
#include "session/session.h"
#include "session/status.h"
#include "session/sysvar.h"
#include "sql/sql.h"
#include "util/util.h"

enum { LOG_OUTPUT_NONE = 1, LOG_OUTPUT_FILE = 2, LOG_OUTPUT_TABLE = 4 }; /* SET bits, sysvar.def order */

/* The file a log variable names, or the default MariaDB gives it: <hostname>.log / <hostname>-slow.log in the
 * data directory.  Written into out. */
static void log_path(server_t *srv, sysvar_id_t var, const char *suffix, char *out, size_t cap)
{
    char v[1024] = "";
    sysvar_global_str(&srv->vars, var, v, sizeof v);
    if (v[0] && v[0] == '/') {
        snprintf(out, cap, "%s", v);
        return;
    }
    char host[256] = "strata";
    if (!v[0]) {
        if (gethostname(host, sizeof host) != 0 || !host[0])
            snprintf(host, sizeof host, "strata");
        host[sizeof host - 1] = 0;
    }
    const char *dd = srv->datadir ? srv->datadir : ".";
    size_t n = strlen(dd);
    const char *sep = n && dd[n - 1] == '/' ? "" : "/";
    if (v[0])
        snprintf(out, cap, "%s%s%s", dd, sep, v);
    else
        snprintf(out, cap, "%s%s%s%s", dd, sep, host, suffix);
}

/* Opens or closes one log to match its variables; a file that cannot be opened turns the variable OFF, as
 * MariaDB does, and is reported in the error log.  Returns 0 or -errno. */
static int configure_one(server_t *srv, qlog_kind_t kind, sysvar_id_t on_var, sysvar_id_t file_var,
                         const char *suffix)
{
    bool to_file = (sysvar_global_int(&srv->vars, SYSVAR_LOG_OUTPUT) & LOG_OUTPUT_FILE) != 0;
    bool on = sysvar_global_int(&srv->vars, on_var) != 0;
    char path[1400];
    log_path(srv, file_var, suffix, path, sizeof path);
    int rc = qlog_open(kind, on && to_file ? path : NULL);
    if (rc) {
        log_error("Could not use %s for logging (error %d: %s). Turning logging off for the whole duration of the "
                  "server process. To turn it on again: fix the cause, then SET GLOBAL %s=ON",
                  path, -rc, strerror(-rc), sysvar_defs[on_var].name);
        sysvar_global_set_int(&srv->vars, on_var, 0);
    }
    return rc;
}

int session_qlog_configure(server_t *srv)
{
    char sock[512] = "";
    sysvar_global_str(&srv->vars, SYSVAR_SOCKET, sock, sizeof sock);
    qlog_set_identity(srv->version, (unsigned)sysvar_global_int(&srv->vars, SYSVAR_PORT), sock);
    int a = configure_one(srv, QLOG_GENERAL, SYSVAR_GENERAL_LOG, SYSVAR_GENERAL_LOG_FILE, ".log");
    int b = configure_one(srv, QLOG_SLOW, SYSVAR_SLOW_QUERY_LOG, SYSVAR_SLOW_QUERY_LOG_FILE, "-slow.log");
    return a ? a : b;
}

bool session_qlog_var(sysvar_id_t id)
{
    return id == SYSVAR_GENERAL_LOG || id == SYSVAR_GENERAL_LOG_FILE || id == SYSVAR_SLOW_QUERY_LOG ||
           id == SYSVAR_SLOW_QUERY_LOG_FILE || id == SYSVAR_LOG_OUTPUT;
}

int session_qlog_check_path(server_t *srv, const char *path)
{
    if (!path[0])
        return -1;
    char full[1400];
    if (path[0] == '/')
        snprintf(full, sizeof full, "%s", path);
    else
        snprintf(full, sizeof full, "%s/%s", srv->datadir ? srv->datadir : ".", path);
    struct stat st;
    if (stat(full, &st) == 0)
        return S_ISREG(st.st_mode) && access(full, W_OK) == 0 ? 0 : -1;
    char *slash = strrchr(full, '/');
    if (slash == full)
        return access("/", W_OK) == 0 ? 0 : -1;
    *slash = 0;
    return stat(full, &st) == 0 && S_ISDIR(st.st_mode) && access(full, W_OK | X_OK) == 0 ? 0 : -1;
}

int session_qlog_check_output(int64_t bits)
{
    return (bits & LOG_OUTPUT_TABLE) ? -1 : 0;
}

void session_qlog_flush(server_t *srv, bool general, bool slow)
{
    if (general && qlog_reopen(QLOG_GENERAL) != 0)
        configure_one(srv, QLOG_GENERAL, SYSVAR_GENERAL_LOG, SYSVAR_GENERAL_LOG_FILE, ".log");
    if (slow && qlog_reopen(QLOG_SLOW) != 0)
        configure_one(srv, QLOG_SLOW, SYSVAR_SLOW_QUERY_LOG, SYSVAR_SLOW_QUERY_LOG_FILE, "-slow.log");
}

void session_qlog_general(session_t *s, const char *command, const char *arg, size_t len)
{
    if (!qlog_is_open(QLOG_GENERAL) || sysvar_session_int(&s->vars, SYSVAR_SQL_LOG_OFF))
        return;
    qlog_general(s->id, command, arg, len);
}

void session_qlog_connect(session_t *s, const char *db, const char *via, bool denied, const char *used_password)
{
    if (!qlog_is_open(QLOG_GENERAL))
        return;
    char line[1400];
    int n;
    if (denied)
        n = snprintf(line, sizeof line, "Access denied for user '%s'@'%s' (using password: %s)", s->user, s->host,
                     used_password);
    else
        n = snprintf(line, sizeof line, "%s@%s on %s using %s", s->user, s->host, db ? db : "", via);
    qlog_general(s->id, "Connect", line, n < 0 ? 0 : MIN((size_t)n, sizeof line - 1));
}

void session_meter_begin(session_t *s)
{
    stmt_meter_t *m = &s->meter;
    memset(m, 0, sizeof *m);
    m->start_wall_us = time_wall_us();
    m->start_mono_us = time_mono_us();
    m->rows_out0 = s->rows_out;
    m->bytes_out0 = s->bytes_out;
}

/* Statements MariaDB counts as administrative for log_slow_admin_statements. */
static bool stmt_is_admin(const sql_stmt_t *st)
{
    switch (st->kind) {
    case SQL_STMT_ALTER_TABLE:
    case SQL_STMT_CREATE_INDEX:
    case SQL_STMT_DROP_INDEX:
    case SQL_STMT_ANALYZE_TABLE:
    case SQL_STMT_OPTIMIZE_TABLE:
        return true;
    default:
        return false;
    }
}

void session_meter_end(session_t *s, const struct sql_stmt *st)
{
    stmt_meter_t *m = &s->meter;
    if (s->unmetered) {
        m->start_mono_us = 0;
        return;
    }
    uint64_t query_us = time_mono_us() - m->start_mono_us;
    session_digest_record(s, st, query_us);
    m->start_mono_us = 0; /* no statement runs: status words after it carry no SERVER_QUERY_WAS_SLOW */
    double lqt = sysvar_session_double(&s->vars, SYSVAR_LONG_QUERY_TIME);
    bool slow = (double)query_us / 1e6 > lqt;
    bool no_index = m->full_scans && sysvar_session_int(&s->vars, SYSVAR_LOG_QUERIES_NOT_USING_INDEXES);
    if (!slow && !no_index)
        return;
    if (m->rows_examined < (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MIN_EXAMINED_ROW_LIMIT))
        return;
    /* Slow_queries counts what qualifies, whether or not a log takes it (MariaDB's long_query_count) */
    status_inc(&s->stat, STATUS_SLOW_QUERIES);
    if (!qlog_is_open(QLOG_SLOW) || !sysvar_session_int(&s->vars, SYSVAR_SLOW_QUERY_LOG))
        return;
    if (stmt_is_admin(st) && !sysvar_session_int(&s->vars, SYSVAR_LOG_SLOW_ADMIN_STATEMENTS))
        return;
    const char *db = s->db ? s->db : "";
    bool changed = strcmp(db, s->slow_log_db ? s->slow_log_db : "") != 0;
    if (changed) {
        mem_free(s->slow_log_db);
        s->slow_log_db = mem_strdup(db);
    }
    int64_t verbosity = sysvar_session_int(&s->vars, SYSVAR_LOG_SLOW_VERBOSITY);
    qlog_slow_t e = {
        .thread_id = s->id,
        .user = s->user,
        .priv_user = s->priv_user[0] ? s->priv_user : s->user,
        .host = s->host,
        .ip = s->ip,
        .db = db,
        .db_changed = changed,
        .start_us = m->start_wall_us,
        .query_us = query_us,
        .lock_us = m->lock_us,
        .rows_sent = s->rows_out - m->rows_out0,
        .rows_examined = m->rows_examined,
        .rows_affected = s->row_count > 0 ? (uint64_t)s->row_count : 0,
        .bytes_sent = s->bytes_out - m->bytes_out0,
        /* query_plan (bit 1) or full (bit 5) of log_slow_verbosity's SET (innodb,query_plan,explain,engine,
         * warnings,full) */
        .query_plan = (verbosity & (2 | 32)) != 0,
        .full_scan = m->full_scans > 0,
        .full_join = m->full_joins > 0,
        .tmp_table = m->tmp_tables > 0,
        .tmp_table_on_disk = m->tmp_disk_tables > 0,
        .filesort = m->sort_rows > 0,
        .filesort_on_disk = m->merge_passes > 0,
        .priority_queue = m->priority_queue_sorts > 0,
        .merge_passes = m->merge_passes,
        .text = st->src,
        .len = st->src_len,
    };
    qlog_slow(&e);
}
