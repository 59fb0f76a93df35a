/*
 * The replica's statements: CHANGE MASTER TO (and MySQL 8's CHANGE REPLICATION SOURCE TO), START / STOP SLAVE
 * [IO_THREAD | SQL_THREAD], RESET SLAVE [ALL], SHOW SLAVE STATUS, and gtid_slave_pos / gtid_current_pos.  The
 * work is src/repl/replica.c's; this file checks privileges (REPLICATION SLAVE ADMIN or SUPER; SLAVE MONITOR
 * for SHOW) and option values and turns results into MariaDB's errors and result columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "session/exec_repl.h"
#include "acl/priv.h"
#include "util/util.h"

static int no_replica(session_t *s) { return diag_error(&s->diag, ER_MASTER_INFO); }

static int opt_uint(session_t *s, const sql_repl_opt_t *o, uint64_t max, uint64_t *out)
{
    if (!o->num || strchr(o->num, '.')) /* MariaDB: a string or fraction for an integer option is a syntax error */
        return diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
    *out = strtoull(o->num, NULL, 10);
    if (*out > max)
        return diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
    return 0;
}

static int opt_str(session_t *s, const sql_repl_opt_t *o, char *dst, size_t cap)
{
    if (!o->str || strlen(o->str) >= cap)
        return diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
    snprintf(dst, cap, "%s", o->str);
    return 0;
}

/* IGNORE_SERVER_IDS = (1, 2) and the domain lists (the parser keeps "1,2"); () empties the list. */
static int opt_ids(session_t *s, const sql_repl_opt_t *o, replica_id_list_t *l)
{
    if (!o->str || o->num)
        return diag_error(&s->diag, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), o->num ? o->num : "", 1);
    l->n = 0;
    for (const char *p = o->str; *p;) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || v > UINT32_MAX)
            return diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
        if (!replica_id_list_add(l, (uint32_t)v)) /* sorted, without duplicates, as MariaDB shows them */
            return diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* The list options: name, field and bit. */
#define REPL_ID_OPTS(X)                                                                                         \
    X("IGNORE_SERVER_IDS", ignore_server_ids, REPLICA_SET_IGNORE_SERVER_IDS)                                  \
    X("DO_DOMAIN_IDS", do_domain_ids, REPLICA_SET_DO_DOMAIN_IDS)                                               \
    X("IGNORE_DOMAIN_IDS", ignore_domain_ids, REPLICA_SET_IGNORE_DOMAIN_IDS)

/* The string options: name, field and its REPLICA_SET_* bit. */
#define REPL_STR_OPTS(X)                                                                                        \
    X("MASTER_HOST", host, REPLICA_SET_HOST) X("MASTER_USER", user, REPLICA_SET_USER)                          \
    X("MASTER_PASSWORD", password, REPLICA_SET_PASSWORD) X("MASTER_LOG_FILE", log_file, REPLICA_SET_LOG_FILE) \
    X("MASTER_SSL_CA", ssl_ca, REPLICA_SET_SSL_CA) X("MASTER_SSL_CAPATH", ssl_capath, REPLICA_SET_SSL_CAPATH) \
    X("MASTER_SSL_CERT", ssl_cert, REPLICA_SET_SSL_CERT) X("MASTER_SSL_KEY", ssl_key, REPLICA_SET_SSL_KEY)    \
    X("MASTER_SSL_CIPHER", ssl_cipher, REPLICA_SET_SSL_CIPHER) X("MASTER_SSL_CRL", ssl_crl, REPLICA_SET_SSL_CRL) \
    X("MASTER_SSL_CRLPATH", ssl_crlpath, REPLICA_SET_SSL_CRLPATH)

static int change_master(session_t *s, const sql_repl_stmt_t *r)
{
    replica_config_t c;
    memset(&c, 0, sizeof c);
    uint32_t set = 0;
    for (uint32_t i = 0; i < r->nopts; i++) {
        const sql_repl_opt_t *o = &r->opts[i];
        uint64_t n = 0;
        int rc = 0;
        uint32_t bit = 0;
#define STR_OPT(nm, f, b) if (!strcmp(o->name, nm)) { rc = opt_str(s, o, c.f, sizeof c.f); bit = b; } else
        REPL_STR_OPTS(STR_OPT)
#undef STR_OPT
#define ID_OPT(nm, f, b) if (!strcmp(o->name, nm)) { rc = opt_ids(s, o, &c.f); bit = b; } else
        REPL_ID_OPTS(ID_OPT)
#undef ID_OPT
        if (!strcmp(o->name, "MASTER_PORT")) {
            rc = opt_uint(s, o, 65535, &n);
            c.port = (uint32_t)n;
            bit = REPLICA_SET_PORT;
        } else if (!strcmp(o->name, "MASTER_LOG_POS")) {
            rc = opt_uint(s, o, UINT32_MAX, &n);
            c.log_pos = n < 4 ? 4 : n; /* MariaDB takes 0..3 as 4 */
            bit = REPLICA_SET_LOG_POS;
        } else if (!strcmp(o->name, "MASTER_CONNECT_RETRY")) {
            rc = opt_uint(s, o, UINT32_MAX, &n);
            c.connect_retry = n ? (uint32_t)n : 1;
            bit = REPLICA_SET_CONNECT_RETRY;
        } else if (!strcmp(o->name, "MASTER_DELAY")) {
            if (!o->num || strchr(o->num, '.'))
                return diag_error(&s->diag, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), o->str ? o->str : "", 1);
            n = strtoull(o->num, NULL, 10);
            if (n > REPLICA_MAX_DELAY)
                return diag_error(&s->diag, ER_MASTER_DELAY_VALUE_OUT_OF_RANGE, (unsigned long long)n,
                                  (unsigned)REPLICA_MAX_DELAY);
            c.delay = (uint32_t)n;
            bit = REPLICA_SET_DELAY;
        } else if (!strcmp(o->name, "MASTER_HEARTBEAT_PERIOD")) {
            double d = o->num ? strtod(o->num, NULL) : -1;
            if (d < 0 || d > 4294967.0)
                rc = diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
            c.heartbeat_ms = (uint32_t)(d * 1000 + 0.5);
            bit = REPLICA_SET_HEARTBEAT;
        } else if (!strcmp(o->name, "MASTER_SSL") || !strcmp(o->name, "MASTER_SSL_VERIFY_SERVER_CERT")) {
            rc = opt_uint(s, o, 1, &n);
            bool ssl = !strcmp(o->name, "MASTER_SSL");
            if (ssl)
                c.ssl = n != 0;
            else
                c.ssl_verify = n != 0;
            bit = ssl ? REPLICA_SET_SSL : REPLICA_SET_SSL_VERIFY;
        } else if (!strcmp(o->name, "MASTER_USE_GTID")) {
            const char *v = o->str ? o->str : "";
            c.use_gtid = !strcmp(v, "slave_pos") ? REPLICA_GTID_SLAVE_POS
                         : !strcmp(v, "current_pos") ? REPLICA_GTID_CURRENT_POS
                         : !strcmp(v, "no") ? REPLICA_GTID_NO : (replica_gtid_mode_t)-1;
            if ((int)c.use_gtid < 0)
                rc = diag_error(&s->diag, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), v, 1);
            bit = REPLICA_SET_USE_GTID;
        } else if (!bit && !rc) {
            /* options strata does not have (MASTER_SSL_CRL ... are above): refused, never accepted and ignored */
            rc = diag_error(&s->diag, ER_NOT_SUPPORTED_YET, o->name);
        }
        if (rc)
            return rc;
        if (strchr(c.host, '\n') || strchr(c.user, '\n'))
            return diag_error(&s->diag, ER_WRONG_ARGUMENTS, o->name);
        set |= bit;
    }
    if ((set & REPLICA_SET_USE_GTID) && c.use_gtid != REPLICA_GTID_NO &&
        (set & (REPLICA_SET_LOG_FILE | REPLICA_SET_LOG_POS)))
        return diag_error(&s->diag, ER_WRONG_ARGUMENTS, "MASTER_LOG_FILE/MASTER_LOG_POS with MASTER_USE_GTID");
    int no = replica_change(session_replica(), &c, set);
    return no ? diag_error(&s->diag, no) : 0;
}

/* START SLAVE UNTIL master_gtid_pos = '...' | MASTER_LOG_FILE = 'f', MASTER_LOG_POS = n (MariaDB's forms; the
 * relay log forms are 1277 here, there being no relay log). */
static int until_cond(session_t *s, const sql_repl_stmt_t *r, unsigned threads, replica_until_t *u)
{
    const sql_repl_opt_t *gtid = NULL, *file = NULL, *pos = NULL;
    for (uint32_t i = 0; i < r->nopts; i++) {
        const sql_repl_opt_t *o = &r->opts[i];
        if (!strcmp(o->name, "MASTER_GTID_POS") && o->str && !gtid)
            gtid = o;
        else if (!strcmp(o->name, "MASTER_LOG_FILE") && o->str && !file)
            file = o;
        else if (!strcmp(o->name, "MASTER_LOG_POS") && o->num && !strchr(o->num, '.') && !pos)
            pos = o;
        else
            return diag_error(&s->diag, ER_BAD_SLAVE_UNTIL_COND);
    }
    if (!(threads & REPLICA_THREAD_SQL) || (gtid && (file || pos)) || (!gtid && !(file && pos)))
        return diag_error(&s->diag, ER_BAD_SLAVE_UNTIL_COND);
    if (gtid) {
        u->kind = REPLICA_UNTIL_GTID;
        if (exec_repl_parse_gtid_list(gtid->str, strlen(gtid->str), &u->gtid) != 0)
            return diag_error(&s->diag, ER_INCORRECT_GTID_STATE);
    } else {
        u->kind = REPLICA_UNTIL_MASTER;
        if (strlen(file->str) >= sizeof u->log_file)
            return diag_error(&s->diag, ER_BAD_SLAVE_UNTIL_COND);
        snprintf(u->log_file, sizeof u->log_file, "%s", file->str);
        u->log_pos = strtoull(pos->num, NULL, 10);
    }
    diag_note(&s->diag, ER_MISSING_SKIP_SLAVE);
    return 0;
}

int exec_repl_stmt(session_t *s, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    int rc = priv_check_global(s, PRIV_SUPER | PRIV_REPL_SLAVE_ADMIN);
    if (rc)
        return rc;
    replica_t *r = session_replica();
    if (!r)
        return no_replica(s);
    const sql_repl_stmt_t *rs = &st->repl;
    unsigned threads = rs->threads ? ((rs->threads & SQL_REPL_IO_THREAD ? REPLICA_THREAD_IO : 0) |
                                      (rs->threads & SQL_REPL_SQL_THREAD ? REPLICA_THREAD_SQL : 0))
                                   : REPLICA_THREAD_BOTH;
    int note = 0, no = 0;
    switch (st->kind) {
    case SQL_STMT_CHANGE_MASTER:
        if ((rc = change_master(s, rs)) != 0)
            return rc;
        break;
    case SQL_STMT_START_SLAVE: {
        replica_until_t u = {0};
        if (rs->until && (rc = until_cond(s, rs, threads, &u)) != 0) {
            binlog_gtid_set_free(&u.gtid);
            return rc;
        }
        no = replica_start(r, threads, rs->until ? &u : NULL, &note);
        binlog_gtid_set_free(&u.gtid);
        break;
    }
    case SQL_STMT_STOP_SLAVE:
        no = replica_stop(r, threads, &note);
        break;
    default:
        no = replica_reset(r, rs->all);
        break;
    }
    if (no)
        return diag_error(&s->diag, no);
    if (note)
        diag_note(&s->diag, note);
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

/* ---------------------------------------------------------------- SHOW SLAVE STATUS */

/* MariaDB 10.11's columns, in its order; N = a number (BIGINT UNSIGNED), S = text. */
#define SLAVE_STATUS_COLS(X)                                                                                    \
    X(S, "Slave_IO_State") X(S, "Master_Host") X(S, "Master_User") X(N, "Master_Port") X(N, "Connect_Retry")     \
    X(S, "Master_Log_File") X(N, "Read_Master_Log_Pos") X(S, "Relay_Log_File") X(N, "Relay_Log_Pos")            \
    X(S, "Relay_Master_Log_File") X(S, "Slave_IO_Running") X(S, "Slave_SQL_Running") X(S, "Replicate_Do_DB")    \
    X(S, "Replicate_Ignore_DB") X(S, "Replicate_Do_Table") X(S, "Replicate_Ignore_Table")                      \
    X(S, "Replicate_Wild_Do_Table") X(S, "Replicate_Wild_Ignore_Table") X(N, "Last_Errno") X(S, "Last_Error")   \
    X(N, "Skip_Counter") X(N, "Exec_Master_Log_Pos") X(N, "Relay_Log_Space") X(S, "Until_Condition")           \
    X(S, "Until_Log_File") X(N, "Until_Log_Pos") X(S, "Master_SSL_Allowed") X(S, "Master_SSL_CA_File")          \
    X(S, "Master_SSL_CA_Path") X(S, "Master_SSL_Cert") X(S, "Master_SSL_Cipher") X(S, "Master_SSL_Key")         \
    X(N, "Seconds_Behind_Master") X(S, "Master_SSL_Verify_Server_Cert") X(N, "Last_IO_Errno")                   \
    X(S, "Last_IO_Error") X(N, "Last_SQL_Errno") X(S, "Last_SQL_Error") X(S, "Replicate_Ignore_Server_Ids")      \
    X(N, "Master_Server_Id") X(S, "Master_SSL_Crl") X(S, "Master_SSL_Crlpath") X(S, "Using_Gtid")               \
    X(S, "Gtid_IO_Pos") X(S, "Replicate_Do_Domain_Ids") X(S, "Replicate_Ignore_Domain_Ids") X(S, "Parallel_Mode") \
    X(N, "SQL_Delay") X(N, "SQL_Remaining_Delay") X(S, "Slave_SQL_Running_State") X(N, "Slave_DDL_Groups")      \
    X(N, "Slave_Non_Transactional_Groups") X(N, "Slave_Transactional_Groups") X(S, "Replicate_Rewrite_DB")

/* SHOW ALL SLAVES STATUS: these before, then SLAVE_STATUS_COLS, then ALL_SLAVES_TAIL (D: a DOUBLE, 3 decimals). */
#define ALL_SLAVES_HEAD(X) X(S, "Connection_name") X(S, "Slave_SQL_State")
#define ALL_SLAVES_TAIL(X)                                                                                      \
    X(N, "Retried_transactions") X(N, "Max_relay_log_size") X(N, "Executed_log_entries")                        \
    X(N, "Slave_received_heartbeats") X(D, "Slave_heartbeat_period") X(S, "Gtid_Slave_Pos")

#define COL_COUNT_ONE(k, n) +1
enum {
    SLAVE_STATUS_NCOLS = 0 SLAVE_STATUS_COLS(COL_COUNT_ONE),
    ALL_SLAVES_NCOLS = 0 ALL_SLAVES_HEAD(COL_COUNT_ONE) SLAVE_STATUS_COLS(COL_COUNT_ONE) ALL_SLAVES_TAIL(COL_COUNT_ONE)
};

static const char *const par_mode_names[] = {"none", "minimal", "conservative", "optimistic", "aggressive"};

int exec_repl_show_status(session_t *s, bool all, res_sink_t *sink, bool more)
{
    int rc = priv_check_global(s, PRIV_SUPER | PRIV_SLAVE_MONITOR);
    if (rc)
        return rc;
    res_col_t cols[ALL_SLAVES_NCOLS];
    int n = 0;
#define COL(k, nm)                                                                                              \
    cols[n] = (res_col_t){.name = nm, .org_name = nm, .schema = "", .table = "", .org_table = "",             \
                          .type = #k[0] == 'N' ? MYSQL_TYPE_LONGLONG : #k[0] == 'D' ? MYSQL_TYPE_DOUBLE       \
                                                                                  : MYSQL_TYPE_VAR_STRING,    \
                          .charset = #k[0] == 'S' ? 33 : CHARSET_BINARY, .length = #k[0] == 'S' ? 1536 : 20,    \
                          .decimals = #k[0] == 'D' ? 3 : 0,                                                    \
                          .flags = #k[0] == 'N' ? COLF_NUM | COLF_UNSIGNED : #k[0] == 'D' ? COLF_NUM : 0};      \
    n++;
    if (all) {
        ALL_SLAVES_HEAD(COL)
    }
    SLAVE_STATUS_COLS(COL)
    if (all) {
        ALL_SLAVES_TAIL(COL)
    }
#undef COL
    sink->columns(sink, cols, n);
    replica_t *r = session_replica();
    replica_status_t st;
    if (r)
        replica_status(r, &st);
    if (r && st.configured) {
        arena_t *a = &s->arena;
#define U(v) arena_printf(a, "%llu", (unsigned long long)(v))
        const replica_config_t *c = &st.cfg;
        const replica_id_list_t *lists[3] = {&c->ignore_server_ids, &c->do_domain_ids, &c->ignore_domain_ids};
        char *ids[3];
        for (int i = 0; i < 3; i++) { /* "7, 8", as MariaDB shows a list */
            buf_t b;
            buf_init(&b);
            for (uint32_t j = 0; j < lists[i]->n; j++)
                buf_printf(&b, "%s%u", j ? ", " : "", lists[i]->v[j]);
            ids[i] = arena_printf(a, "%.*s", (int)b.len, b.len ? (const char *)b.data : "");
            buf_free(&b);
        }
        const char *using = c->use_gtid == REPLICA_GTID_SLAVE_POS ? "Slave_Pos"
                            : c->use_gtid == REPLICA_GTID_CURRENT_POS ? "Current_Pos" : "No";
        int64_t mode = sysvar_global_int(&s->srv->vars, SYSVAR_SLAVE_PARALLEL_MODE);
        const char *par_mode = mode >= 0 && mode < 5 ? par_mode_names[mode] : "";
        const char *v[SLAVE_STATUS_NCOLS] = {
            st.io_state, c->host, c->user, U(c->port), U(c->connect_retry), st.master_log_file,
            U(st.read_master_log_pos), "", U(0), st.exec_log_file, st.io_running, st.sql_running ? "Yes" : "No",
            "", "", "", "", "", "", U(st.last_sql_errno), st.last_sql_error, U(0), U(st.exec_master_log_pos),
            U(st.queued_bytes), st.until_condition, st.until_log_file, U(st.until_log_pos), c->ssl ? "Yes" : "No", c->ssl_ca, c->ssl_capath, c->ssl_cert,
            c->ssl_cipher, c->ssl_key, st.seconds_behind < 0 ? NULL : U(st.seconds_behind),
            c->ssl_verify ? "Yes" : "No", U(st.last_io_errno), st.last_io_error, U(st.last_sql_errno),
            st.last_sql_error, ids[0], U(st.master_server_id), c->ssl_crl, c->ssl_crlpath, using, st.gtid_io_pos,
            ids[1], ids[2], par_mode, U(c->delay), st.remaining_delay < 0 ? NULL : U(st.remaining_delay),
            st.sql_state, U(st.ddl_groups), U(st.nontrans_groups),
            U(st.trans_groups), ""};
        res_cell_t cells[ALL_SLAVES_NCOLS];
        int k = 0;
#define CELL(x) (cells[k++] = (res_cell_t){.null = (x) == NULL, .p = (x) ? (x) : "", .len = (x) ? strlen(x) : 0})
        if (all) {
            CELL(""); /* the default connection: named connections are not supported */
            CELL(st.sql_state);
        }
        for (int i = 0; i < SLAVE_STATUS_NCOLS; i++)
            CELL(v[i]);
        if (all) {
            buf_t pos;
            buf_init(&pos);
            exec_repl_gtid_pos(s->srv, false, &pos);
            const char *tail[] = {
                U(st.retried), U(1073741824), U(st.executed), U(st.heartbeats), /* max_relay_log_size's default */
                arena_printf(a, "%u.%03u", c->heartbeat_ms / 1000, c->heartbeat_ms % 1000),
                arena_printf(a, "%.*s", (int)pos.len, pos.len ? (const char *)pos.data : "")};
            buf_free(&pos);
            for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
                CELL(tail[i]);
        }
#undef CELL
#undef U
        sink->row(sink, cells);
    }
    sink->rows_end(sink, more);
    return 0;
}

bool exec_repl_status(int which, uint64_t *num, buf_t *out)
{
    if (which != STATUS_RPL_SEMI_SYNC_SLAVE_STATUS && which != STATUS_RPL_SEMI_SYNC_SLAVE_SEND_ACK &&
        which != STATUS_SLAVE_RUNNING && which != STATUS_STRATA_REPLICA_LAG_MS &&
        which != STATUS_SLAVE_HEARTBEAT_PERIOD && which != STATUS_SLAVE_RECEIVED_HEARTBEATS &&
        which != STATUS_SLAVE_RETRIED_TRANSACTIONS)
        return false;
    replica_status_t st;
    bool have = session_replica() != NULL;
    if (have)
        replica_status(session_replica(), &st);
    else
        memset(&st, 0, sizeof st);
    switch (which) {
    case STATUS_RPL_SEMI_SYNC_SLAVE_STATUS: buf_append_str(out, st.semi_sync ? "ON" : "OFF"); break;
    case STATUS_RPL_SEMI_SYNC_SLAVE_SEND_ACK: *num = st.acks_sent; break;
    case STATUS_SLAVE_HEARTBEAT_PERIOD: /* MariaDB's "%.3f" seconds */
        buf_printf(out, "%u.%03u", st.cfg.heartbeat_ms / 1000, st.cfg.heartbeat_ms % 1000);
        break;
    case STATUS_SLAVE_RECEIVED_HEARTBEATS: *num = st.heartbeats; break;
    case STATUS_SLAVE_RETRIED_TRANSACTIONS: *num = st.retried; break;
    case STATUS_SLAVE_RUNNING:
        buf_append_str(out, have && !strcmp(st.io_running, "Yes") && st.sql_running ? "ON" : "OFF");
        break;
    default: /* the lag of Seconds_Behind_Master in ms; empty while it is NULL (the SQL thread not running) */
        if (have && st.seconds_behind >= 0)
            buf_printf(out, "%llu", (unsigned long long)st.lag_ms);
        break;
    }
    return true;
}

/* ---------------------------------------------------------------- gtid_slave_pos, gtid_current_pos */

void exec_repl_gtid_pos(server_t *srv, bool current, buf_t *out)
{
    binlog_gtid_set_t set = {0};
    if (session_replica())
        replica_gtid_slave_pos(session_replica(), &set);
    if (current && srv->binlog) { /* the newer of the applied and the own binlog's GTID in each domain */
        binlog_gtid_set_t own = {0};
        binlog_gtid_state(srv->binlog, &own);
        for (uint32_t i = 0; i < own.n; i++) {
            bool found = false;
            for (uint32_t j = 0; j < set.n; j++)
                if (set.v[j].domain == own.v[i].domain) {
                    found = true;
                    if (own.v[i].seq > set.v[j].seq)
                        set.v[j] = own.v[i];
                }
            if (!found)
                binlog_gtid_set_update(&set, own.v[i]);
        }
        binlog_gtid_set_free(&own);
    }
    binlog_gtid_set_format(&set, true, out);
    binlog_gtid_set_free(&set);
}

/* "d-s-n, ..." with at most one GTID per domain into set (which the caller frees).  0, or -1 with the text
 * that did not parse in bad[cap] when bad is given. */
static int gtid_list_parse(const char *text, size_t len, binlog_gtid_set_t *set, char *bad, size_t cap)
{
    char *t = mem_strndup(text ? text : "", len);
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(t, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        binlog_gtid_t g;
        if (!*tok)
            continue;
        if (binlog_gtid_parse(tok, &g) != 0 || binlog_gtid_set_has_domain(set, g.domain)) {
            if (bad)
                snprintf(bad, cap, "%s", tok);
            rc = -1;
        } else {
            binlog_gtid_set_update(set, g);
        }
    }
    mem_free(t);
    return rc;
}

int exec_repl_parse_gtid_list(const char *text, size_t len, binlog_gtid_set_t *set)
{
    return gtid_list_parse(text, len, set, NULL, 0);
}

int exec_repl_set_gtid_slave_pos(const char *text, size_t len, diag_t *d)
{
    binlog_gtid_set_t set = {0};
    char bad[256];
    int rc = 0;
    if (gtid_list_parse(text, len, &set, bad, sizeof bad) != 0)
        rc = diag_error(d, ER_WRONG_VALUE_FOR_VAR, "gtid_slave_pos", bad);
    if (!rc) {
        int no = session_replica() ? replica_set_gtid_slave_pos(session_replica(), &set) : ER_MASTER_INFO;
        if (no)
            rc = diag_error(d, no > 0 ? no : ER_MASTER_INFO);
    }
    binlog_gtid_set_free(&set);
    return rc;
}
