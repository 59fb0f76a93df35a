/*
 * Sessions and the server-wide registry.  The registry (server.sessions, under sessions_lock) is what
 * SHOW PROCESSLIST and KILL read; a session is in it from the end of authentication until its connection closes.
 * KILL never frees another thread's session: it sets a flag and shuts the socket down, and the owner's worker
 * sees the end of file and closes it.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "binlog/binlog.h"
#include "session/event_sched.h"
#include "session/exec_repl.h"
#include "acl/acl.h"
#include "acl/priv.h"
#include "repl/semisync.h"
#include "monitor/digest.h"
#include "commit/commit.h"
#include "session/session.h"
#include "session/sp_int.h"
#include "engine/engine.h"
#include "access/catalog.h"
#include "sql/exec/exec.h"
#include "monitor/history.h"
#include "util/fio.h"

/* Innodb_* status variables from the storage engine's counters (MariaDB's names; the engine is InnoDB-like). */
static bool engine_status(status_func_t which, uint64_t *num)
{
    catalog_t *cat = sql_exec_catalog();
    engine_t *e = cat ? catalog_engine(cat) : NULL;
    engine_stats_t es;
    memset(&es, 0, sizeof es);
    if (e)
        engine_stats(e, &es);
    const uint64_t page = 16384;
    switch (which) {
    case STATUS_INNODB_BUFFER_POOL_PAGES_DATA: *num = es.pool_pages - es.pool_free; return true;
    case STATUS_INNODB_BUFFER_POOL_BYTES_DATA: *num = (es.pool_pages - es.pool_free) * page; return true;
    case STATUS_INNODB_BUFFER_POOL_PAGES_DIRTY: *num = es.pool_dirty; return true;
    case STATUS_INNODB_BUFFER_POOL_BYTES_DIRTY: *num = es.pool_dirty * page; return true;
    case STATUS_INNODB_BUFFER_POOL_PAGES_FREE: *num = es.pool_free; return true;
    case STATUS_INNODB_BUFFER_POOL_PAGES_TOTAL: *num = es.pool_pages; return true;
    case STATUS_INNODB_BUFFER_POOL_READ_REQUESTS: *num = es.pool_hits + es.pool_misses; return true;
    case STATUS_INNODB_BUFFER_POOL_READS: *num = es.pool_misses; return true;
    case STATUS_INNODB_BUFFER_POOL_PAGES_FLUSHED: *num = es.pool_writes; return true;
    case STATUS_INNODB_PAGES_READ: *num = es.pool_reads; return true;
    case STATUS_INNODB_PAGES_WRITTEN: *num = es.pool_writes; return true;
    case STATUS_INNODB_CHECKPOINT_AGE: *num = es.log_lsn - es.log_checkpoint_lsn; return true;
    case STATUS_INNODB_CHECKPOINT_MAX_AGE: *num = es.log_capacity; return true;
    case STATUS_INNODB_DATA_FSYNCS: *num = es.log_syncs; return true; /* redo fsyncs (data files: at checkpoints) */
    case STATUS_INNODB_DEADLOCKS: *num = es.lock_deadlocks; return true;
    case STATUS_INNODB_HISTORY_LIST_LENGTH: *num = es.mvcc_versions; return true;
    case STATUS_INNODB_LOG_WAITS: *num = es.log_waits; return true;
    case STATUS_INNODB_LOG_WRITES: *num = es.log_groups; return true;
    case STATUS_INNODB_LSN_CURRENT: *num = es.log_lsn; return true;
    case STATUS_INNODB_LSN_FLUSHED: *num = es.log_flushed_lsn; return true;
    case STATUS_INNODB_LSN_LAST_CHECKPOINT: *num = es.log_checkpoint_lsn; return true;
    case STATUS_INNODB_ROW_LOCK_WAITS: *num = es.lock_waits; return true;
    case STATUS_INNODB_ROW_LOCK_CURRENT_WAITS: *num = es.lock_waiting; return true;
    /* milliseconds, as InnoDB counts them */
    case STATUS_INNODB_ROW_LOCK_TIME: *num = es.lock_wait_us / 1000; return true;
    case STATUS_INNODB_ROW_LOCK_TIME_AVG: *num = es.lock_waits ? es.lock_wait_us / 1000 / es.lock_waits : 0; return true;
    case STATUS_INNODB_ROW_LOCK_TIME_MAX: *num = es.lock_wait_max_us / 1000; return true;
    case STATUS_STRATA_ROLLBACKS_PENDING: *num = es.rollbacks_pending; return true;
    default: return false;
    }
}

/* Status variables only the session knows (Ssl_version, Ssl_cipher, Compression). */
static bool session_status_compute(void *arg, status_func_t which, const status_session_t *ss, uint64_t *num,
                                   buf_t *out)
{
    const session_t *s = ss ? ss->owner : NULL;
    server_t *srv = arg;
    if (which == STATUS_BINLOG_BYTES_WRITTEN || which == STATUS_BINLOG_COMMITS ||
        which == STATUS_BINLOG_COMPRESSED_FILES || which == STATUS_BINLOG_FILES_OPENED ||
        which == STATUS_BINLOG_FSYNCS || which == STATUS_BINLOG_GROUP_COMMITS || which == STATUS_BINLOG_PURGED_FILES ||
        which == STATUS_BINLOG_ROTATIONS || which == STATUS_BINLOG_UNREADABLE_FILES) {
        binlog_stats_t bs;
        memset(&bs, 0, sizeof bs);
        if (srv->binlog)
            binlog_get_stats(srv->binlog, &bs);
        *num = which == STATUS_BINLOG_BYTES_WRITTEN      ? bs.bytes_written
               : which == STATUS_BINLOG_COMMITS          ? bs.commits
               : which == STATUS_BINLOG_COMPRESSED_FILES ? bs.compressed_files
               : which == STATUS_BINLOG_FILES_OPENED     ? bs.files_opened
               : which == STATUS_BINLOG_FSYNCS           ? bs.fsyncs
               : which == STATUS_BINLOG_GROUP_COMMITS    ? bs.group_commits
               : which == STATUS_BINLOG_PURGED_FILES     ? bs.purged_files
               : which == STATUS_BINLOG_ROTATIONS        ? bs.rotations
                                                         : bs.unreadable_reported;
        return true;
    }
    if (which == STATUS_BINLOG_CACHE_USE || which == STATUS_BINLOG_CACHE_DISK_USE) {
        uint64_t use, disk;
        binlog_trx_cache_stats(&use, &disk);
        *num = which == STATUS_BINLOG_CACHE_USE ? use : disk;
        return true;
    }
    if (which == STATUS_BINLOG_SNAPSHOT_FILE || which == STATUS_BINLOG_SNAPSHOT_POSITION) {
        /* MariaDB: the binlog position of the session's consistent snapshot (START TRANSACTION WITH CONSISTENT
         * SNAPSHOT, taken with no commit in between: sql_commit_snapshot), and outside one the current position.
         * mariadb-dump --master-data --single-transaction relies on them (and crashes on an empty file name). */
        char name[256] = "";
        uint64_t pos = 0;
        if (s && s->snap_valid && session_in_trans(s)) {
            snprintf(name, sizeof name, "%s", s->snap_file);
            pos = s->snap_pos;
        } else if (srv->binlog) {
            binlog_master_status(srv->binlog, name, sizeof name, &pos);
        }
        if (which == STATUS_BINLOG_SNAPSHOT_FILE)
            buf_append_str(out, name);
        else
            *num = pos;
        return true;
    }
    if (which == STATUS_PERFORMANCE_SCHEMA_DIGEST_LOST) {
        *num = digest_lost();
        return true;
    }
    if (engine_status(which, num))
        return true;
    if (exec_repl_status((int)which, num, out))
        return true;
    if (which >= STATUS_RPL_SEMI_SYNC_MASTER_CLIENTS && which <= STATUS_RPL_SEMI_SYNC_MASTER_YES_TX) {
        repl_semisync_stats_t rs;
        repl_semisync_get_stats(&rs);
        switch (which) {
        case STATUS_RPL_SEMI_SYNC_MASTER_CLIENTS: *num = rs.clients; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_GET_ACK: *num = rs.get_ack; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_NO_TIMES: *num = rs.no_times; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_NO_TX: *num = rs.no_tx; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_REQUEST_ACK: *num = rs.request_ack; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_STATUS: buf_append_str(out, rs.status ? "ON" : "OFF"); return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_TX_AVG_WAIT_TIME: *num = rs.tx_waits ? rs.tx_wait_us / rs.tx_waits : 0; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_TX_WAIT_TIME: *num = rs.tx_wait_us; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_TX_WAITS: *num = rs.tx_waits; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_WAIT_SESSIONS: *num = rs.wait_sessions; return true;
        case STATUS_RPL_SEMI_SYNC_MASTER_YES_TX: *num = rs.yes_tx; return true;
        default: break;
        }
    }
    if (which == STATUS_STRATA_ADMISSION_HOLDING || which == STATUS_STRATA_ADMISSION_WAITING ||
        which == STATUS_STRATA_ADMISSION_WAITS || which == STATUS_STRATA_ADMISSION_WAIT_TIME ||
        which == STATUS_STRATA_ADMISSION_OVER_LIMIT) {
        admit_stats_t as;
        admit_get_stats(&as);
        *num = which == STATUS_STRATA_ADMISSION_HOLDING   ? as.holding
               : which == STATUS_STRATA_ADMISSION_WAITING ? as.waiting
               : which == STATUS_STRATA_ADMISSION_WAITS   ? as.waits
               : which == STATUS_STRATA_ADMISSION_WAIT_TIME ? as.wait_us / 1000
                                                          : as.over_limit;
        return true;
    }
    if (which == STATUS_STRATA_REBALANCE_EXTENTS_MOVED || which == STATUS_STRATA_REBALANCE_EXTENTS_PENDING ||
        which == STATUS_STRATA_REBALANCE_PAGES_MOVED) {
        catalog_t *cat = sql_exec_catalog();
        engine_t *eng = cat ? catalog_engine(cat) : NULL;
        engine_rebalance_t rs;
        memset(&rs, 0, sizeof rs);
        if (eng)
            engine_rebalance_status(eng, &rs);
        *num = which == STATUS_STRATA_REBALANCE_EXTENTS_MOVED     ? rs.extents_moved
               : which == STATUS_STRATA_REBALANCE_EXTENTS_PENDING ? rs.extents_pending
                                                                  : rs.pages_moved;
        return true;
    }
    switch (which) {
    case STATUS_SSL_VERSION:
        buf_append_str(out, s ? s->tls_version : "");
        return true;
    case STATUS_SSL_CIPHER:
        buf_append_str(out, s ? s->tls_cipher : "");
        return true;
    case STATUS_COMPRESSION:
        buf_append_str(out, s && s->compressed ? "ON" : "OFF");
        return true;
    default:
        return false;
    }
}

/* Variables computed from the binary log (gtid_binlog_pos, gtid_binlog_state, gtid_current_pos) and from the
 * session's transaction (in_transaction). */
static bool server_sysvar_compute(void *arg, const sysvar_def_t *def, const sysvar_session_t *sess, arena_t *a,
                                  sysvar_value_t *out)
{
    server_t *srv = arg;
    sysvar_id_t id = def->target;
    if (id == SYSVAR_IN_TRANSACTION) { /* the executor's transaction, as SERVER_STATUS_IN_TRANS */
        const session_t *s = sess ? sess->owner : NULL;
        out->kind = SYSVAR_V_UINT;
        out->u = s && session_in_trans(s);
        out->i = (int64_t)out->u;
        out->d = (double)out->u;
        return true;
    }
    if (id != SYSVAR_GTID_BINLOG_POS && id != SYSVAR_GTID_BINLOG_STATE && id != SYSVAR_GTID_CURRENT_POS &&
        id != SYSVAR_GTID_SLAVE_POS)
        return false;
    buf_t b;
    buf_init(&b);
    if (id == SYSVAR_GTID_SLAVE_POS || id == SYSVAR_GTID_CURRENT_POS) {
        exec_repl_gtid_pos(srv, id == SYSVAR_GTID_CURRENT_POS, &b);
    } else if (srv->binlog) {
        binlog_gtid_set_t set;
        memset(&set, 0, sizeof set);
        binlog_gtid_state(srv->binlog, &set);
        binlog_gtid_set_format(&set, id != SYSVAR_GTID_BINLOG_STATE, &b);
        binlog_gtid_set_free(&set);
    }
    out->kind = SYSVAR_V_STR;
    out->s = arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
    out->len = b.len;
    buf_free(&b);
    return true;
}

/* SET GLOBAL gtid_slave_pos replaces the replica's stored position (refused while it replicates). */

/* SET GLOBAL of variables the engine acts on at run time (start-up values are passed in engine_opts_t). */
static void server_sysvar_hook(void *arg, const sysvar_def_t *def)
{
    server_t *srv = arg;
    catalog_t *cat = sql_exec_catalog();
    engine_t *eng = cat ? catalog_engine(cat) : NULL;
    if (eng && def->id == SYSVAR_STRATA_REBALANCE)
        engine_rebalance_enable(eng, sysvar_global_int(&srv->vars, SYSVAR_STRATA_REBALANCE) != 0);
    if (def->id == SYSVAR_MONITOR_INTERVAL)
        history_kick(); /* the sampler waits for the new interval, not the old one */
    if (def->id == SYSVAR_EVENT_SCHEDULER)
        event_sched_changed(); /* ON starts the scheduler now, OFF stops it */
}

/* SET checks the server owns: gtid_slave_pos (only while the replica is stopped, and a valid GTID list),
 * slave_parallel_threads and slave_parallel_mode (only while it is stopped) and, in
 * test builds, debug_fault (the fault-injection rules; text that does not parse is refused). */
static int server_sysvar_check(void *arg, const sysvar_def_t *def, sysvar_scope_t scope, sysvar_session_t *sess,
                               const sysvar_value_t *v, diag_t *d)
{
    (void)arg;
    (void)sess;
    if (def->id == SYSVAR_EVENT_SCHEDULER)
        return event_sched_check(v->i, d);
    if (def->id == SYSVAR_GTID_SLAVE_POS && scope == SYSVAR_GLOBAL)
        return exec_repl_set_gtid_slave_pos(v->kind == SYSVAR_V_STR ? v->s : "", v->kind == SYSVAR_V_STR ? v->len : 0, d);
    if ((def->target == SYSVAR_SLAVE_PARALLEL_THREADS || def->target == SYSVAR_SLAVE_PARALLEL_MODE) && session_replica() &&
        replica_running(session_replica())) /* the SQL thread reads them when it starts, as MariaDB */
        return diag_error(d, ER_SLAVE_MUST_STOP);
#ifdef STRATA_FAULTS
    if (def->id == SYSVAR_DEBUG_FAULT) {
        char err[256];
        if (fault_set(v->kind == SYSVAR_V_STR ? v->s : "", err, sizeof err) == 0)
            return 0;
        log_warn("debug_fault: %s", err);
        return diag_error(d, ER_WRONG_VALUE_FOR_VAR, def->name, v->kind == SYSVAR_V_STR ? v->s : "NULL");
    }
#endif
    return 0;
}

int server_init(server_t *srv)
{
    memset(srv, 0, sizeof *srv);
    srv->start_us = time_wall_us();

    srv->version = STRATA_VERSION_STRING;
    sysvar_store_init(&srv->vars);
    status_init(&srv->status);
    status_set_compute(&srv->status, session_status_compute, srv);
    sysvar_store_set_compute(&srv->vars, server_sysvar_compute, srv);
    sysvar_store_set_hook(&srv->vars, server_sysvar_hook, srv);
    sysvar_store_set_check(&srv->vars, server_sysvar_check, srv);
    atomic_init(&srv->next_id, 1);
    pthread_mutex_init(&srv->sessions_lock, NULL);
    pthread_mutex_init(&srv->hosts_lock, NULL);
    return 0;
}

void server_free(server_t *srv)
{
    mem_free(srv->datadir);
    status_destroy(&srv->status);
    sysvar_store_destroy(&srv->vars);
    server_hosts_flush(srv);
    pthread_mutex_destroy(&srv->hosts_lock);
    pthread_mutex_destroy(&srv->sessions_lock);
}

session_t *session_new(server_t *srv)
{
    session_t *s = mem_calloc(1, sizeof *s);
    s->srv = srv;
    s->id = atomic_fetch_add(&srv->next_id, 1);
    s->connect_us = time_wall_us();
    s->state = SESS_CONNECT;
    s->fd = -1;
    s->next_iso = -1;
    sysvar_session_init(&s->vars, &srv->vars, s);
    status_session_init(&s->stat, &srv->status, s);
    diag_init(&s->diag, (uint32_t)sysvar_session_int(&s->vars, SYSVAR_MAX_ERROR_COUNT));
    arena_init(&s->arena, 8192);
    pthread_mutex_init(&s->info_lock, NULL);
    return s;
}

/*
 * Session state tracking entries, appended to s->track and sent by the next OK:
 *   SESSION_TRACK_SYSTEM_VARIABLES (0): u8 0 | lenenc (lenenc name | lenenc value)
 *   SESSION_TRACK_SCHEMA (1):           u8 1 | lenenc (lenenc schema)
 */
void session_track_schema(session_t *s)
{
    if (!sysvar_session_int(&s->vars, SYSVAR_SESSION_TRACK_SCHEMA))
        return;
    const char *db = s->db ? s->db : "";
    buf_t e;
    buf_init(&e);
    buf_put_lenenc_str(&e, db, strlen(db));
    buf_put_u8(&s->track, 1);
    buf_put_lenenc_str(&s->track, e.data, e.len);
    buf_free(&e);
}

void session_track_var(session_t *s, const char *name)
{
    const char *list = sysvar_session_str(&s->vars, SYSVAR_SESSION_TRACK_SYSTEM_VARIABLES);
    if (!list || !*list)
        return;
    size_t n = strlen(name);
    bool listed = strcmp(list, "*") == 0;
    for (const char *p = list; !listed && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, name, n) == 0)
            listed = true;
        p += len + (e ? 1 : 0);
    }
    const sysvar_def_t *def = listed ? sysvar_find(name) : NULL;
    if (!def)
        return;
    buf_t val, e;
    buf_init(&val);
    buf_init(&e);
    sysvar_get_text(&s->srv->vars, &s->vars, def, SYSVAR_SESSION, &val);
    buf_put_lenenc_str(&e, def->name, strlen(def->name));
    buf_put_lenenc_str(&e, val.data, val.len);
    buf_put_u8(&s->track, 0);
    buf_put_lenenc_str(&s->track, e.data, e.len);
    buf_free(&val);
    buf_free(&e);
}

void session_free(session_t *s)
{
    buf_free(&s->track);
    sql_exec_session_free(s->sqlx); /* rolls back a transaction left open */
    session_clear_state(s);
    acl_privs_free(s->privs);
    status_session_end(&s->stat);
    sysvar_session_destroy(&s->vars);
    diag_free(&s->diag);
    arena_destroy(&s->arena);
    mem_free(s->db);
    mem_free(s->info);
    mem_free(s->slow_log_db);
    mem_free(s->sql_mode_text);
    sp_cache_free(s);
    for (uint32_t i = 0; i < SP_MODE_CACHE; i++)
        mem_free(s->sp_modes[i].text);
    session_digest_free(s);
    pthread_mutex_destroy(&s->info_lock);
    mem_free(s);
}

void session_register(session_t *s)
{
    server_t *srv = s->srv;
    pthread_mutex_lock(&srv->sessions_lock);
    s->prev = NULL;
    s->next = srv->sessions;
    if (srv->sessions)
        srv->sessions->prev = s;
    srv->sessions = s;
    srv->nsessions++;
    /* a connection that comes in while the server stops is killed as the ones before it were */
    if (atomic_load(&srv->shutdown_requested))
        atomic_store(&s->killed, true);
    pthread_mutex_unlock(&srv->sessions_lock);
    status_conn_opened(&srv->status);
}

void session_unregister(session_t *s)
{
    server_t *srv = s->srv;
    pthread_mutex_lock(&srv->sessions_lock);
    bool in = s->prev || s->next || srv->sessions == s;
    if (in) {
        if (s->prev)
            s->prev->next = s->next;
        else
            srv->sessions = s->next;
        if (s->next)
            s->next->prev = s->prev;
        srv->nsessions--;
    }
    s->prev = s->next = NULL;
    pthread_mutex_unlock(&srv->sessions_lock);
    if (in)
        status_conn_closed(&srv->status);
}

bool session_is_admin(session_t *s) { return priv_has_global(s, PRIV_SUPER); }

void session_begin_statement(session_t *s)
{
    diag_begin_statement(&s->diag, (uint32_t)sysvar_session_int(&s->vars, SYSVAR_MAX_ERROR_COUNT),
                         sysvar_session_int(&s->vars, SYSVAR_SQL_NOTES) == 0);
    sql_exec_session_t *ss = s->sqlx;
    sql_exec_stmt_begin(ss);
    /* what this statement commits is logged under the session's gtid_domain_id and server_id */
    sql_commit_identity(true, (uint32_t)sysvar_session_int(&s->vars, SYSVAR_GTID_DOMAIN_ID),
                        (uint32_t)sysvar_session_int(&s->vars, SYSVAR_SERVER_ID));
    s->trk_seen = ss ? ss->trk_events : 0;
    s->trk_touched = false;
}

static void session_track_transaction(session_t *s);

void session_db_gone(session_t *s)
{
    if (!s->db)
        return;
    mem_free(s->db);
    s->db = NULL;
    session_track_schema(s);
}

void session_track_pending(session_t *s)
{
    const sql_exec_session_t *ss = s->sqlx;
    if (ss && ss->db_dropped && s->db && !sql_exec_db_exists(s->db))
        session_db_gone(s);
    session_track_transaction(s);
}

bool session_in_trans(const session_t *s) { return sql_exec_in_trans(s->sqlx); }

uint16_t session_status_flags(session_t *s)
{
    if (!s)
        return SERVER_STATUS_AUTOCOMMIT;
    const sql_exec_session_t *ss = s->sqlx;
    uint16_t st = 0;
    if (sysvar_session_int(&s->vars, SYSVAR_AUTOCOMMIT))
        st |= SERVER_STATUS_AUTOCOMMIT;
    /* clients escape strings by it (libmariadb, pymysql double quotes instead of backslashing them) */
    if (sysvar_session_int(&s->vars, SYSVAR_SQL_MODE) & (1ll << 20)) /* NO_BACKSLASH_ESCAPES (bit of sysvar.def) */
        st |= SERVER_STATUS_NO_BACKSLASH_ESCAPES;
    if (sql_exec_in_trans(ss))
        st |= SERVER_STATUS_IN_TRANS;
    if (sql_exec_in_trans_read_only(ss))
        st |= SERVER_STATUS_IN_TRANS_READONLY;
    if (ss && ss->db_dropped)
        st |= SERVER_STATUS_DB_DROPPED;
    if (ss && ss->no_index_used)
        st |= SERVER_STATUS_NO_INDEX_USED;
    if (s->more_results) /* in every packet of a statement that is not the last, column EOF included */
        st |= SERVER_MORE_RESULTS_EXISTS;
    /* a statement running for longer than long_query_time says so in its end packet, slow log on or off */
    if (s->meter.start_mono_us &&
        (double)(time_mono_us() - s->meter.start_mono_us) / 1e6 > sysvar_session_double(&s->vars, SYSVAR_LONG_QUERY_TIME))
        st |= SERVER_QUERY_WAS_SLOW;
    return st;
}

void session_result_set_sent(session_t *s)
{
    if (s && s->sqlx)
        sql_exec_note(s->sqlx, SQLX_NOTE_RESULT_SET);
}

/* One-shot characteristics (SET TRANSACTION without scope) last until a transaction begun after them ends. */
void session_next_trx_expire(session_t *s)
{
    const sql_exec_session_t *ss = s->sqlx;
    if ((s->next_iso >= 0 || s->next_access) && ss && ss->trx_seq != s->next_seq && !sql_exec_in_trans(ss)) {
        s->next_iso = -1;
        s->next_access = SQL_ACCESS_NONE;
    }
}

/* The characteristics tracker's text: the statements that would give the next (or the open) transaction its
 * characteristics, as MariaDB writes them ("" when they are the session's defaults). */
static void trk_chars_text(session_t *s, buf_t *b)
{
    static const char *const iso[] = {"READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"};
    const sql_exec_session_t *ss = s->sqlx;
    if (s->next_iso >= 0)
        buf_printf(b, "SET TRANSACTION ISOLATION LEVEL %s;", iso[s->next_iso & 3]);
    if (ss && ss->explicit_begin) {
        int acc = s->begin_access ? s->begin_access : s->next_access;
        buf_printf(b, "%sSTART TRANSACTION%s", b->len ? " " : "", ss->snapshot ? " WITH CONSISTENT SNAPSHOT" : "");
        if (acc)
            buf_printf(b, "%s%s", ss->snapshot ? ", " : " ", acc == SQL_ACCESS_READ_ONLY ? "READ ONLY" : "READ WRITE");
        buf_append_str(b, ";");
    } else if (s->next_access) {
        buf_printf(b, "%sSET TRANSACTION %s;", b->len ? " " : "",
                   s->next_access == SQL_ACCESS_READ_ONLY ? "READ ONLY" : "READ WRITE");
    }
}

/* One tracker entry: u8 type | lenenc (lenenc text), as the schema entry. */
static void track_put_text(session_t *s, uint8_t type, const void *p, size_t n)
{
    buf_t e;
    buf_init(&e);
    buf_put_lenenc_str(&e, p, n);
    buf_put_u8(&s->track, type);
    buf_put_lenenc_str(&s->track, e.data, e.len);
    buf_free(&e);
}

/*
 * As MariaDB's tracker, an OK reports the transaction state (and characteristics) only when the statement did
 * something the tracker follows (began or ended a transaction, used a table or sent a result set in one, SET
 * TRANSACTION, LOCK TABLES, turned the tracker on) and the result differs from what the last OK reported.  A
 * result set's EOF reports nothing, so a change it ended on may never be reported.
 */
static void session_track_transaction(session_t *s)
{
    session_next_trx_expire(s);
    const sql_exec_session_t *ss = s->sqlx;
    int mode = (int)sysvar_session_int(&s->vars, SYSVAR_SESSION_TRACK_TRANSACTION_INFO);
    if (mode == s->trk_mode && !s->trk_touched && (ss ? ss->trk_events : 0) == s->trk_seen)
        return;
    if (mode != s->trk_mode) { /* what the client was last told no longer holds for a tracker turned off */
        if (mode < 1)
            s->trk_state[0] = 0;
        if (mode < 2) {
            mem_free(s->trk_chars);
            s->trk_chars = NULL;
        }
        if (s->trk_mode == 0 && sql_exec_in_trans(ss)) { /* it did not see this transaction begin (MariaDB) */
            s->trk_blind = true;
            s->trk_blind_seq = ss->trx_seq;
        }
        s->trk_mode = (int8_t)mode;
    }
    if (mode < 1)
        return;
    char st[9];
    if (s->trk_blind && !(sql_exec_in_trans(ss) && ss->trx_seq == s->trk_blind_seq))
        s->trk_blind = false;
    if (s->trk_blind)
        memcpy(st, "________", sizeof st);
    else
        sql_exec_trx_state_string(s->sqlx, st);
    if (s->locked_tables)
        st[7] = 'L';
    if (strcmp(st, s->trk_state) != 0) {
        track_put_text(s, SESSION_TRACK_TRANSACTION_STATE, st, 8);
        memcpy(s->trk_state, st, sizeof st);
    }
    if (mode < 2)
        return;
    buf_t b;
    buf_init(&b);
    trk_chars_text(s, &b);
    if (!s->trk_chars || strlen(s->trk_chars) != b.len || (b.len && memcmp(s->trk_chars, b.data, b.len) != 0)) {
        track_put_text(s, SESSION_TRACK_TRANSACTION_CHARACTERISTICS, b.data, b.len);
        mem_free(s->trk_chars);
        s->trk_chars = mem_strndup(b.len ? (const char *)b.data : "", b.len);
    }
    buf_free(&b);
}

void session_reset(session_t *s)
{
    diag_clear(&s->diag);
    s->last_insert_id = 0;
    s->found_rows = 0;
    s->row_count = 0;
    sql_exec_session_free(s->sqlx); /* COM_RESET_CONNECTION rolls back, as MySQL */
    s->sqlx = NULL;
    session_clear_state(s);
    sysvar_session_reset(&s->vars);
}

void session_set_client_collation(session_t *s, unsigned coll_id)
{
    const sysvar_collation_t *k = coll_id ? sysvar_collation_by_id(coll_id) : NULL;
    if (!k)
        return;
    diag_t scratch;
    diag_init(&scratch, 4);
    sysvar_set_names(&s->srv->vars, &s->vars, k->charset, k->name, &scratch);
    diag_free(&scratch);
}

int session_set_db(session_t *s, const char *db, size_t len)
{
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)len, db);
    int rc = priv_check_db_access(s, name); /* 1044 before 1049, as MariaDB */
    if (rc)
        return rc;
    /* The executor's catalog knows the databases (information_schema and the other virtual ones included). */
    if (sql_exec_db_exists(name) || (len == 18 && strncasecmp(db, "information_schema", 18) == 0)) {
        mem_free(s->db);
        s->db = mem_strndup(db, len);
        session_track_schema(s);
        return 0;
    }
    return diag_error(&s->diag, ER_BAD_DB_ERROR, name);
}

void session_init_db(session_t *s, const char *db, size_t len, res_sink_t *sink)
{
    session_begin_statement(s);
    status_inc(&s->stat, STATUS_COM_CHANGE_DB);
    if (session_set_db(s, db, len) != 0)
        sink->error(sink);
    else
        sink->ok(sink, 0, 0, NULL, false);
}

void session_statistics(session_t *s, res_sink_t *sink)
{
    server_t *srv = s->srv;
    status_inc(&s->stat, STATUS_COM_ADMIN_COMMANDS);
    session_qlog_general(s, "Statistics", "", 0);
    uint64_t up = (time_wall_us() - srv->start_us) / 1000000;
    char line[256];
    uint64_t q = status_sess_total(&srv->status, STATUS_QUESTIONS);
    int n = snprintf(line, sizeof line,
                     "Uptime: %llu  Threads: %d  Questions: %llu  Slow queries: 0  Opens: 0  Open tables: 0  "
                     "Queries per second avg: %.3f",
                     (unsigned long long)up, srv->nsessions, (unsigned long long)q, up ? (double)q / (double)up : 0.0);
    sink->raw(sink, line, (size_t)n);
}

/* t's kill_query was just set: wake its metadata-lock or row-lock wait, which sleeps until woken, to see it. */
static void kick_waits(session_t *t)
{
    mdl_kick(&t->kill_query);
    catalog_t *cat = sql_exec_catalog();
    engine_kick(cat ? catalog_engine(cat) : NULL, &t->kill_query);
}

void session_kill(session_t *s, uint32_t id, bool query_only, res_sink_t *sink)
{
    server_t *srv = s->srv;
    bool found = false;
    status_inc(&s->stat, STATUS_COM_KILL);
    bool any = priv_has_global(s, PRIV_SUPER | PRIV_CONNECTION_ADMIN); /* before the registry lock */
    pthread_mutex_lock(&srv->sessions_lock);
    for (session_t *t = srv->sessions; t; t = t->next) {
        if (t->id != id)
            continue;
        found = true;
        if (t != s && strcmp(t->priv_user, s->priv_user) != 0 && !any) {
            pthread_mutex_unlock(&srv->sessions_lock);
            diag_error(&s->diag, ER_KILL_DENIED_ERROR, (unsigned long)id);
            sink->error(sink);
            return;
        }
        if (query_only) {
            atomic_store(&t->kill_query, true);
            kick_waits(t); /* a metadata-lock or row-lock wait sleeps until woken: wake it to see the kill */
        } else {
            atomic_store(&t->killed, true);
            if (t != s && t->fd >= 0)
                shutdown(t->fd, SHUT_RDWR); /* its worker sees EOF and closes it */
            if (t != s) { /* a statement waiting for a metadata lock fails first (the worker is asleep in it) */
                atomic_store(&t->kill_query, true);
                kick_waits(t);
            }
        }
        if (t != s)
            admit_cancel(&t->admit); /* parked for admission: resumed now, it sees the kill */
    }
    pthread_mutex_unlock(&srv->sessions_lock);
    if (!found) {
        diag_error(&s->diag, ER_NO_SUCH_THREAD, (unsigned long)id);
        sink->error(sink);
        return;
    }
    if (atomic_load(&s->killed) && !query_only) {
        /* Killing oneself: MySQL answers with ER_CONNECTION_KILLED and closes. */
        diag_error(&s->diag, ER_CONNECTION_KILLED);
        sink->error(sink);
        return;
    }
    sink->ok(sink, 0, 0, NULL, false);
}

void server_kill_all(server_t *srv)
{
    pthread_mutex_lock(&srv->sessions_lock);
    atomic_store(&srv->shutdown_requested, true); /* under the lock: session_register sees one or the other */
    for (session_t *t = srv->sessions; t; t = t->next) {
        atomic_store(&t->killed, true);
        if (t->fd >= 0)
            shutdown(t->fd, SHUT_RDWR);
        atomic_store(&t->kill_query, true); /* a lock wait ends now, not at its timeout */
        kick_waits(t);
    }
    pthread_mutex_unlock(&srv->sessions_lock);
}

/* The host error table: a short list (only hosts that failed recently are in it). */
typedef struct host_errors {
    struct host_errors *next;
    char ip[64];
    uint64_t errors;
} host_errors_t;

static host_errors_t **host_find(server_t *srv, const char *ip)
{
    host_errors_t **pp = &srv->hosts;
    while (*pp && strcmp((*pp)->ip, ip) != 0)
        pp = &(*pp)->next;
    return pp;
}

bool server_host_blocked(server_t *srv, const char *ip)
{
    uint64_t limit = (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_MAX_CONNECT_ERRORS);
    pthread_mutex_lock(&srv->hosts_lock);
    host_errors_t *h = *host_find(srv, ip);
    bool blocked = h && h->errors >= limit;
    pthread_mutex_unlock(&srv->hosts_lock);
    return blocked;
}

void server_host_error(server_t *srv, const char *ip)
{
    pthread_mutex_lock(&srv->hosts_lock);
    host_errors_t **pp = host_find(srv, ip);
    if (!*pp) {
        *pp = mem_calloc(1, sizeof **pp);
        snprintf((*pp)->ip, sizeof (*pp)->ip, "%s", ip);
    }
    (*pp)->errors++;
    pthread_mutex_unlock(&srv->hosts_lock);
}

void server_host_ok(server_t *srv, const char *ip)
{
    pthread_mutex_lock(&srv->hosts_lock);
    host_errors_t **pp = host_find(srv, ip);
    if (*pp) {
        host_errors_t *h = *pp;
        *pp = h->next;
        mem_free(h);
    }
    pthread_mutex_unlock(&srv->hosts_lock);
}

void server_hosts_flush(server_t *srv)
{
    pthread_mutex_lock(&srv->hosts_lock);
    while (srv->hosts) {
        host_errors_t *h = srv->hosts;
        srv->hosts = h->next;
        mem_free(h);
    }
    pthread_mutex_unlock(&srv->hosts_lock);
}

/* ---- transaction admission (admit.h) ---- */

static bool kw(const char *p, size_t n, const char *word)
{
    size_t l = strlen(word);
    return n >= l && strncasecmp(p, word, l) == 0 && (n == l || !(isalnum((unsigned char)p[l]) || p[l] == '_'));
}

bool session_admission_needed(session_t *s, uint8_t cmd, const char *arg, size_t len)
{
    if (s->admit.state == ADMIT_HOLDING) {
        admit_set_idle(&s->admit, false);
        return false;
    }
    if (session_in_trans(s))
        return false;
    bool autocommit = sysvar_session_int(&s->vars, SYSVAR_AUTOCOMMIT) != 0;
    if (cmd == 0x17) { /* COM_STMT_EXECUTE: u32 statement id */
        if (len < 4)
            return false;
        uint32_t id = (uint32_t)(uint8_t)arg[0] | (uint32_t)(uint8_t)arg[1] << 8 | (uint32_t)(uint8_t)arg[2] << 16 |
                      (uint32_t)(uint8_t)arg[3] << 24;
        sess_stmt_t *p = session_stmt_find(s, id);
        if (!p || !p->stmt)
            return false;
        switch (((const sql_stmt_t *)p->stmt)->kind) {
        case SQL_STMT_INSERT: case SQL_STMT_REPLACE: case SQL_STMT_UPDATE: case SQL_STMT_DELETE:
            return true;
        case SQL_STMT_SELECT:
            return !autocommit;
        default:
            return false;
        }
    }
    if (cmd != 0x03) /* COM_QUERY */
        return false;
    /* the first keyword, after blanks and comments */
    size_t i = 0;
    for (;;) {
        while (i < len && isspace((unsigned char)arg[i]))
            i++;
        if (i + 1 < len && arg[i] == '/' && arg[i + 1] == '*' && !(i + 2 < len && arg[i + 2] == '!')) {
            const char *e = memmem(arg + i + 2, len - i - 2, "*/", 2);
            if (!e)
                return false;
            i = (size_t)(e - arg) + 2;
            continue;
        }
        break;
    }
    const char *p = arg + i;
    size_t n = len - i;
    if (kw(p, n, "BEGIN") || kw(p, n, "START") || kw(p, n, "INSERT") || kw(p, n, "UPDATE") || kw(p, n, "DELETE") ||
        kw(p, n, "REPLACE"))
        return true;
    return !autocommit && kw(p, n, "SELECT");
}

void session_admission_after(session_t *s)
{
    if (s->admit.state != ADMIT_HOLDING)
        return;
    if (session_in_trans(s))
        admit_set_idle(&s->admit, true);
    else
        admit_leave(&s->admit);
}

void server_apply_semisync(server_t *srv)
{
    repl_semisync_cfg_t c = {
        .enabled = sysvar_global_int(&srv->vars, SYSVAR_RPL_SEMI_SYNC_MASTER_ENABLED) != 0,
        .timeout_ms = (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_RPL_SEMI_SYNC_MASTER_TIMEOUT),
        .wait_no_slave = sysvar_global_int(&srv->vars, SYSVAR_RPL_SEMI_SYNC_MASTER_WAIT_NO_SLAVE) != 0,
        .after_sync = sysvar_global_int(&srv->vars, SYSVAR_RPL_SEMI_SYNC_MASTER_WAIT_POINT) == 0, /* enum index */
    };
    repl_semisync_configure(&c);
}

void server_apply_global(server_t *srv, const sysvar_def_t *def)
{
    if (srv->qlog_ready && session_qlog_var(sysvar_real(def)->id))
        session_qlog_configure(srv);
    switch (sysvar_real(def)->id) {
    case SYSVAR_RPL_SEMI_SYNC_MASTER_ENABLED: case SYSVAR_RPL_SEMI_SYNC_MASTER_TIMEOUT:
    case SYSVAR_RPL_SEMI_SYNC_MASTER_WAIT_NO_SLAVE: case SYSVAR_RPL_SEMI_SYNC_MASTER_WAIT_POINT:
        server_apply_semisync(srv);
        break;
    case SYSVAR_MAX_BINLOG_SIZE: case SYSVAR_SYNC_BINLOG: case SYSVAR_BINLOG_EXPIRE_LOGS_SECONDS:
    case SYSVAR_EXPIRE_LOGS_DAYS:
        if (srv->binlog)
            binlog_set_limits(srv->binlog, (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_MAX_BINLOG_SIZE),
                              (int)sysvar_global_int(&srv->vars, SYSVAR_SYNC_BINLOG),
                              (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_BINLOG_EXPIRE_LOGS_SECONDS));
        break;
    case SYSVAR_BINLOG_CACHE_SIZE: case SYSVAR_MAX_BINLOG_CACHE_SIZE: /* from the next row any transaction logs */
        binlog_trx_set_cache((uint64_t)sysvar_global_int(&srv->vars, SYSVAR_BINLOG_CACHE_SIZE),
                             (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_MAX_BINLOG_CACHE_SIZE));
        break;
    case SYSVAR_INNODB_LOCK_WAIT_TIMEOUT: {
        catalog_t *cat = sql_exec_catalog();
        if (cat)
            engine_set_lock_wait_timeout(catalog_engine(cat),
                                         (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_INNODB_LOCK_WAIT_TIMEOUT) * 1000000u);
        break;
    }
    default:
        break;
    }
}
