/*
 * The replica's applier (replica_apply_ops_t, src/repl/replica.h) and its position store.
 *
 * A group of row events (GTID, TABLE_MAP, WRITE/UPDATE/DELETE_ROWS v1/v2, XID or COMMIT) is applied in one
 * engine transaction through access/binapply.c, the re-apply code crash recovery uses; the group's GTID (catalog
 * record 'R' per domain, MariaDB's mysql.gtid_slave_pos) and source position ('Q') are written in that same
 * transaction, so a crash keeps both or neither: nothing applied twice, nothing lost.
 *
 * A group of QUERY events (DDL, or statements a MIXED/STATEMENT source logged) runs through this layer's own
 * statement path (session_query) in the SQL thread's session, under the event's database, sql_mode and
 * character set; that session is a system thread (every privilege, read_only does not apply, sql_log_bin=0).
 * Those statements commit on their own (a DDL's catalog change, a DML statement's rows), so while they run the
 * catalog's commit hook writes the group's position inside each of those commits (pos_hook): a crash keeps
 * the statement's effect and its position together here too.  A group that mixes statement events with row
 * events is refused (1105), not half applied.
 *
 * Parallel apply (slave_parallel_threads > 0, src/repl/replica.c has the scheduling): each worker applies row
 * groups with its own binapply_t (worker_new) in its own engine transaction, and between the rows and the
 * position it waits for its turn in the source's commit order (replica_worker_wait_turn).  The engine's lock
 * wait hook (lock_wait_hook) tells the replica when an earlier group waits for a row lock a later one holds:
 * the later one is killed, rolls back and is applied again.
 *
 * log_slave_updates: the applied transaction goes to this server's binlog under the source's GTID and timestamp
 * (sql_commit_gtid_override), so replicas of this one follow the same GTIDs: a row group's own TABLE_MAP,
 * ANNOTATE_ROWS and rows events are logged as received, in the commit of the rows; statement groups run with
 * sql_log_bin on.  Recovery's re-apply of such a transaction writes its position too (commit/commit.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "session/exec_repl.h"
#include "access/binapply.h"
#include "commit/commit.h"
#include "sql/exec/exec.h"
#include "access/rowcodec.h"
#include "util/fio.h"
#include "util/util.h"

typedef struct applier {
    server_t *srv;
    bool log_updates; /* log_slave_updates (start-up only) */
    _Atomic uint64_t unsynced_lsn; /* the last engine commit apply_rows made without waiting for the redo sync */
    session_t *s;     /* the SQL thread's session (created at its first statement) */
    binapply_t *ap;
} applier_t;

static applier_t g_applier;
static replica_t *g_replica;

replica_t *session_replica(void) { return g_replica; }

/* ---------------------------------------------------------------- position records */

static int pos_write(catalog_t *cat, engine_trx_t *trx, const replica_group_t *g)
{
    int rc = 0;
    buf_t v;
    buf_init(&v);
    if (g->has_gtid)
        rc = catalog_repl_gtid_put(cat, trx, g->gtid.domain, g->gtid.server, g->gtid.seq);
    if (rc == 0 && g->log_file[0]) {
        buf_append_byte(&v, 1);
        rc_put_varint(&v, strlen(g->log_file));
        buf_append_str(&v, g->log_file);
        rc_put_varint(&v, g->end_pos);
        rc = catalog_aux_put_trx(cat, trx, CAT_AUX_REPL_FILE, 0, v.data, v.len);
    }
    buf_free(&v);
    return rc;
}

typedef struct load_arg {
    binlog_gtid_set_t *set;
    uint64_t *ids;
    uint32_t n;
} load_arg_t;

static void load_gtid(void *arg, uint64_t id, const void *val, size_t len)
{
    load_arg_t *l = arg;
    const uint8_t *p = val, *end = p + len;
    uint64_t server, seq;
    if (len < 1 || p[0] != 1)
        return;
    p++;
    if (rc_get_varint(&p, end, &server) != 0 || rc_get_varint(&p, end, &seq) != 0)
        return;
    if (l->set)
        binlog_gtid_set_update(l->set, (binlog_gtid_t){.domain = (uint32_t)id, .server = (uint32_t)server, .seq = seq});
    if (l->ids && l->n < 1024)
        l->ids[l->n++] = id;
}

static int apply_load_pos(void *arg, binlog_gtid_set_t *gtid, char *file, size_t cap, uint64_t *pos)
{
    (void)arg;
    catalog_t *cat = sql_exec_catalog();
    load_arg_t l = {.set = gtid};
    int rc = catalog_aux_scan(cat, CAT_AUX_REPL_GTID, load_gtid, &l);
    buf_t v;
    buf_init(&v);
    file[0] = 0;
    *pos = 0;
    if (rc == 0 && catalog_aux_get(cat, CAT_AUX_REPL_FILE, 0, &v) == 0 && v.len > 1 && v.data[0] == 1) {
        const uint8_t *p = v.data + 1, *end = v.data + v.len;
        uint64_t n;
        if (rc_get_varint(&p, end, &n) == 0 && n < cap && (size_t)(end - p) >= n) {
            memcpy(file, p, n);
            file[n] = 0;
            p += n;
            rc_get_varint(&p, end, pos);
        }
    }
    buf_free(&v);
    return rc;
}

static int apply_save_pos(void *arg, const binlog_gtid_set_t *gtid, const char *file, uint64_t pos)
{
    (void)arg;
    catalog_t *cat = sql_exec_catalog();
    uint64_t ids[1024];
    load_arg_t l = {.ids = ids};
    int rc = catalog_aux_scan(cat, CAT_AUX_REPL_GTID, load_gtid, &l);
    engine_trx_t *trx = NULL;
    if (rc == 0)
        rc = engine_trx_begin(catalog_engine(cat), &trx);
    for (uint32_t i = 0; rc == 0 && i < l.n; i++)
        rc = catalog_aux_put_trx(cat, trx, CAT_AUX_REPL_GTID, ids[i], NULL, 0);
    for (uint32_t i = 0; rc == 0 && i < gtid->n; i++) {
        replica_group_t g = {.gtid = gtid->v[i], .has_gtid = true};
        rc = pos_write(cat, trx, &g);
    }
    if (rc == 0) {
        replica_group_t g = {.end_pos = pos};
        snprintf(g.log_file, sizeof g.log_file, "%s", file);
        rc = file[0] ? pos_write(cat, trx, &g) : catalog_aux_put_trx(cat, trx, CAT_AUX_REPL_FILE, 0, NULL, 0);
    }
    if (trx)
        rc = rc ? (engine_trx_rollback(trx), rc) : engine_trx_commit(trx);
    return rc;
}

static void apply_binlog_pos(void *arg, binlog_gtid_set_t *out)
{
    applier_t *a = arg;
    if (a->srv->binlog)
        binlog_gtid_state(a->srv->binlog, out);
}

/* ---------------------------------------------------------------- applying */

/* Collects the statement's outcome; rows of a result set are dropped. */
typedef struct capture_sink {
    res_sink_t sink;
    bool failed;
} capture_sink_t;

static void cap_columns(res_sink_t *s, const res_col_t *c, int n) { (void)s; (void)c; (void)n; }
static void cap_row(res_sink_t *s, const res_cell_t *c) { (void)s; (void)c; }
static void cap_rows_end(res_sink_t *s, bool more) { (void)s; (void)more; }
static void cap_ok(res_sink_t *s, uint64_t a, uint64_t l, const char *i, bool m) { (void)s; (void)a; (void)l; (void)i; (void)m; }
static void cap_error(res_sink_t *s) { ((capture_sink_t *)s)->failed = true; }
static void cap_raw(res_sink_t *s, const char *p, size_t n) { (void)s; (void)p; (void)n; }

static session_t *applier_session(applier_t *a)
{
    if (!a->s) {
        session_t *s = session_new(a->srv);
        s->system_thread = true; /* every privilege; read_only does not apply (MariaDB's replication thread) */
        snprintf(s->user, sizeof s->user, "system user");
        snprintf(s->priv_user, sizeof s->priv_user, "system user");
        sysvar_session_set_int(&s->vars, SYSVAR_SQL_LOG_BIN, a->log_updates); /* log_slave_updates */
        a->s = s;
    }
    return a->s;
}

/* One QUERY event through the session.  0, or the error number with MariaDB's Last_SQL_Error text in err. */
static int run_query(applier_t *a, const binlog_event_t *ev, char *err, size_t cap)
{
    binlog_query_t q;
    if (binlog_event_query(ev, &q) != 0) {
        snprintf(err, cap, "Relay log read failure: a malformed Query event");
        return 1594;
    }
    session_t *s = applier_session(a);
    s->replica_origin = ev->server_id ? ev->server_id : 1;
    mem_free(s->db);
    s->db = q.db_len ? mem_strndup(q.db, q.db_len) : NULL; /* as logged, even if it is gone: names then fail */
    if (q.has_sql_mode)
        sysvar_session_set_int(&s->vars, SYSVAR_SQL_MODE, (int64_t)q.sql_mode);
    if (q.has_charset)
        session_set_client_collation(s, q.charset_client);
    /* the source's foreign_key_checks (OPTION_NO_FOREIGN_KEY_CHECKS): a dump's tables refer to later ones */
    sysvar_session_set_int(&s->vars, SYSVAR_FOREIGN_KEY_CHECKS, !(q.has_flags2 && (q.flags2 & 0x4000000)));
    capture_sink_t cs = {.sink = {.columns = cap_columns, .row = cap_row, .rows_end = cap_rows_end, .ok = cap_ok,
                                  .error = cap_error, .raw = cap_raw}};
    session_begin_statement(s);
    session_query(s, q.text, q.len, &cs.sink);
    arena_reset(&s->arena);
    if (!cs.failed)
        return 0;
    int no = s->diag.error ? s->diag.error->code : ER_UNKNOWN_ERROR;
    snprintf(err, cap, "Error '%s' on query. Default database: '%.*s'. Query: '%.*s'",
             s->diag.error ? s->diag.error->msg : "unknown error", (int)q.db_len, q.db, (int)MIN(q.len, 200), q.text);
    return no;
}

static bool is_rows_event(int type)
{
    return type == BINLOG_EV_TABLE_MAP || (type >= BINLOG_EV_WRITE_ROWS_V1 && type <= BINLOG_EV_DELETE_ROWS_V1) ||
           (type >= BINLOG_EV_WRITE_ROWS_V2 && type <= BINLOG_EV_DELETE_ROWS_V2);
}

static bool is_txn_query(const binlog_event_t *ev)
{
    binlog_query_t q;
    if (binlog_event_query(ev, &q) != 0)
        return false;
    return (q.len == 5 && !strncasecmp(q.text, "BEGIN", 5)) || (q.len == 6 && !strncasecmp(q.text, "COMMIT", 6));
}

static int strict_check(applier_t *a, const replica_group_t *g, char *err, size_t cap);

/* MariaDB's Last_SQL_Error for a rows event that failed. */
static int rows_error(int rc, const diag_t *d, const binlog_event_t *ev, const char *table, const replica_group_t *g,
                      char *err, size_t cap)
{
    int no = rc == STRATA_ENOTFOUND ? ER_KEY_NOT_FOUND : rc == ENGINE_EDEADLOCK ? ER_LOCK_DEADLOCK
             : rc == ENGINE_ELOCKWAIT ? ER_LOCK_WAIT_TIMEOUT : d->error ? d->error->code
             : rc < 0 && rc > -10000 ? -rc : ER_UNKNOWN_ERROR;
    if (no == ER_NO_SUCH_TABLE) {
        snprintf(err, cap, "Error executing row event: '%s'", d->error ? d->error->msg : "no such table");
        return no;
    }
    char msg[600];
    if (no == ER_KEY_NOT_FOUND)
        snprintf(msg, sizeof msg, "Can't find record in '%s'", strchr(table, '.') ? strchr(table, '.') + 1 : table);
    else
        snprintf(msg, sizeof msg, "%s", d->error ? d->error->msg : "the row event cannot be applied");
    snprintf(err, cap, "Could not execute %s event on table %s; %s, Error_code: %d; the event's master log %s, "
             "end_log_pos %u", binlog_event_type_name(ev->type), table, msg, no, g->log_file, ev->next_pos);
    return no;
}

/* Applies a row group with ap in one engine transaction.  w: a parallel worker's (NULL for the SQL thread): the
 * transaction is made known to the replica, killed is checked between events, and the commit waits for the
 * group's turn. */
static int apply_rows(applier_t *a, binapply_t *ap, replica_worker_t *w, const replica_group_t *g, char *err,
                      size_t cap)
{
    catalog_t *cat = sql_exec_catalog();
    engine_trx_t *trx = NULL;
    int rc = engine_trx_begin(catalog_engine(cat), &trx);
    if (rc == 0 && w)
        replica_worker_set_trx(w, engine_trx_id(trx));
    diag_t d;
    diag_init(&d, 8);
    char table[520] = "";
    size_t off = 0;
    binlog_event_t ev;
    binlog_trx_t blt;
    binlog_trx_init(&blt, BINLOG_TRX_ROWS);
    while (rc == 0 && replica_group_next(g, &off, &ev)) {
        if (a->log_updates && a->srv->binlog && (is_rows_event(ev.type) || ev.type == BINLOG_EV_ANNOTATE_ROWS)) {
            /* the binlog seals positions, server id, time and CRC */
            if ((rc = binlog_trx_add_event(&blt, ev.data, ev.size)) != 0) {
                if (rc == BINLOG_ECACHEFULL)
                    snprintf(err, cap, "Multi-statement transaction required more than 'max_binlog_cache_size' "
                             "bytes of storage; increase this mariadbd variable and try again"), rc = ER_TRANS_CACHE_FULL;
                else
                    snprintf(err, cap, "Error writing file '%s' (errno: %d \"%s\")", binlog_trx_tmpdir(),
                             binlog_trx_cache_errno(&blt), strerror(binlog_trx_cache_errno(&blt))), rc = ER_ERROR_ON_WRITE;
                break;
            }
        }
        if (ev.type == BINLOG_EV_TABLE_MAP) {
            binlog_table_t t;
            static _Thread_local binlog_col_t cols[4096];
            char db[256] = "", name[256] = "";
            if (binlog_table_map_decode(&ev, &t, cols, 4096, db, name) == 0)
                snprintf(table, sizeof table, "%s.%s", db, name);
        }
        if (w && replica_worker_killed(w)) {
            rc = REPLICA_RETRY;
            break;
        }
        if (ev.type == BINLOG_EV_GTID || is_rows_event(ev.type)) {
            rc = binapply_event(ap, trx, &ev, &d);
            if (rc) {
                rc = rows_error(rc, &d, &ev, table, g, err, cap);
                break;
            }
        }
    }
    if (rc == 0 && w && replica_worker_wait_turn(w) != 0)
        rc = REPLICA_RETRY; /* killed while waiting, or an earlier group failed */
    if (rc == 0 && w)
        rc = strict_check(a, g, err, cap); /* now that every earlier group is in the binlog */
    if (rc == 0 && (rc = pos_write(cat, trx, g)) != 0)
        snprintf(err, cap, "the replica position could not be written (engine error %d)", rc);
    if (rc == 0 && FAULT_POINT("replica.rows_before_commit")) /* test builds: KILL inside the transaction */
        snprintf(err, cap, "replica.rows_before_commit"), rc = ER_UNKNOWN_ERROR;
    if (rc == 0) {
        if (binlog_trx_empty(&blt)) { /* engine only: durable at the SQL thread's next sync (apply_sync) */
            uint64_t lsn = 0;
            rc = engine_trx_commit_nosync(trx, &lsn);
            uint64_t cur = atomic_load(&a->unsynced_lsn);
            while (lsn > cur && !atomic_compare_exchange_weak(&a->unsynced_lsn, &cur, lsn))
                ;
        } else { /* log_slave_updates: the binlog's group commit makes it durable */
            if (g->has_gtid)
                sql_commit_gtid_override(&g->gtid, g->when);
            rc = sql_commit_trx(trx, &blt, NULL);
            sql_commit_gtid_override(NULL, 0);
        }
        trx = NULL;
        if (rc)
            snprintf(err, cap, "Error during COMMIT (engine error %d)", rc), rc = ER_ERROR_DURING_COMMIT;
        else
            (void)FAULT_POINT("replica.rows_after_commit"); /* test builds: KILL between commit and next event */
    }
    if (trx)
        engine_trx_rollback(trx);
    if (w)
        replica_worker_set_trx(w, 0);
    binlog_trx_free(&blt);
    diag_free(&d);
    return rc;
}

/* The catalog commit hook while a statement group runs: the group's position rides in every transaction the
 * statements commit (a DDL's catalog change, a DML statement's rows). */
static int pos_hook(void *arg, engine_trx_t *trx) { return pos_write(sql_exec_catalog(), trx, arg); }

/* Statement events: each through the session, with the position written inside what they commit (pos_hook),
 * then once more in its own transaction for statements that commit nothing in the engine. */
static int apply_queries(applier_t *a, const replica_group_t *g, char *err, size_t cap)
{
    size_t off = 0;
    binlog_event_t ev;
    int rc = 0;
    if (a->log_updates && g->has_gtid)
        sql_commit_gtid_override(&g->gtid, g->when);
    catalog_commit_hook_set(pos_hook, (void *)g);
    while (rc == 0 && !g->skip && replica_group_next(g, &off, &ev))
        if (ev.type == BINLOG_EV_QUERY)
            rc = run_query(a, &ev, err, cap);
    catalog_commit_hook_set(NULL, NULL);
    sql_commit_gtid_override(NULL, 0);
    if (rc)
        return rc;
    (void)FAULT_POINT("replica.query_before_pos"); /* test builds: KILL after the statements' own commits */
    catalog_t *cat = sql_exec_catalog();
    engine_trx_t *trx;
    if ((rc = engine_trx_begin(catalog_engine(cat), &trx)) == 0) {
        rc = pos_write(cat, trx, g);
        rc = rc ? (engine_trx_rollback(trx), rc) : engine_trx_commit(trx);
    }
    if (rc)
        snprintf(err, cap, "the replica position could not be written (engine error %d)", rc), rc = ER_UNKNOWN_ERROR;
    return rc;
}

/* gtid_strict_mode with log_slave_updates: a GTID that is not past its domain's last in this server's binlog would
 * log the domain out of order; refused with 1950, as MariaDB does, before anything is applied. */
static int strict_check(applier_t *a, const replica_group_t *g, char *err, size_t cap)
{
    if (!a->log_updates || !a->srv->binlog || !g->has_gtid || g->skip ||
        !sysvar_global_int(&a->srv->vars, SYSVAR_GTID_STRICT_MODE))
        return 0;
    binlog_gtid_set_t st = {0};
    binlog_gtid_state(a->srv->binlog, &st);
    binlog_gtid_t last = {0};
    for (uint32_t i = 0; i < st.n; i++)
        if (st.v[i].domain == g->gtid.domain && st.v[i].seq >= last.seq)
            last = st.v[i];
    binlog_gtid_set_free(&st);
    if (!last.seq || g->gtid.seq > last.seq)
        return 0;
    snprintf(err, cap, errors_format(ER_GTID_STRICT_OUT_OF_ORDER), g->gtid.domain, g->gtid.server,
             (unsigned long long)g->gtid.seq, last.domain, last.server, (unsigned long long)last.seq);
    return ER_GTID_STRICT_OUT_OF_ORDER;
}

static bool apply_gtid_strict(void *arg)
{
    applier_t *a = arg;
    return sysvar_global_int(&a->srv->vars, SYSVAR_GTID_STRICT_MODE) != 0;
}

static int apply_group(void *arg, const replica_group_t *g, char *err, size_t cap)
{
    applier_t *a = arg;
    int src = strict_check(a, g, err, cap);
    if (src)
        return src;
    bool rows = false, stmts = false;
    size_t off = 0;
    binlog_event_t ev;
    while (replica_group_next(g, &off, &ev)) {
        if (is_rows_event(ev.type))
            rows = true;
        else if (ev.type == BINLOG_EV_QUERY && !is_txn_query(&ev))
            stmts = true;
    }
    if (rows && stmts) {
        snprintf(err, cap, "A transaction of both statement and row events (GTID %u-%u-%llu) is not supported by "
                 "this replica", g->gtid.domain, g->gtid.server, (unsigned long long)g->gtid.seq);
        return ER_UNKNOWN_ERROR;
    }
    if (stmts || g->skip)
        return apply_queries(a, g, err, cap);
    if (!a->ap)
        a->ap = binapply_new(sql_exec_catalog());
    return apply_rows(a, a->ap, NULL, g, err, cap);
}

/* ---------------------------------------------------------------- parallel apply */

static void *apply_worker_new(void *arg)
{
    (void)arg;
    return binapply_new(sql_exec_catalog());
}

static void apply_worker_free(void *arg, void *wctx)
{
    (void)arg;
    binapply_free(wctx);
}

/* A row group in a worker (the coordinator gives statement groups to apply_group, alone). */
static int apply_worker(void *arg, void *wctx, replica_worker_t *w, const replica_group_t *g, char *err, size_t cap)
{
    return apply_rows(arg, wctx, w, g, err, cap);
}

static void apply_parallel(void *arg, uint32_t *threads, replica_par_mode_t *mode)
{
    applier_t *a = arg;
    *threads = (uint32_t)sysvar_global_int(&a->srv->vars, SYSVAR_SLAVE_PARALLEL_THREADS);
    *mode = (replica_par_mode_t)sysvar_global_int(&a->srv->vars, SYSVAR_SLAVE_PARALLEL_MODE);
}

static uint32_t apply_retries(void *arg)
{
    applier_t *a = arg;
    return (uint32_t)sysvar_global_int(&a->srv->vars, SYSVAR_SLAVE_TRANSACTION_RETRIES);
}

/* The engine's lock wait hook: a worker's transaction waits for a row lock of a later worker's. */
static bool lock_wait_hook(void *arg, uint64_t waiter_trx, uint64_t holder_trx)
{
    (void)arg;
    return replica_lock_wait(g_replica, waiter_trx, holder_trx);
}

static int apply_sync(void *arg)
{
    applier_t *a = arg;
    uint64_t lsn = atomic_exchange(&a->unsynced_lsn, 0);
    return lsn ? engine_log_sync(catalog_engine(sql_exec_catalog()), lsn) : 0;
}

static uint32_t apply_net_timeout(void *arg)
{
    applier_t *a = arg;
    return (uint32_t)sysvar_global_int(&a->srv->vars, SYSVAR_SLAVE_NET_TIMEOUT);
}

static bool apply_semi_sync_enabled(void *arg)
{
    applier_t *a = arg;
    return sysvar_global_int(&a->srv->vars, SYSVAR_RPL_SEMI_SYNC_SLAVE_ENABLED) != 0;
}

static void apply_thread_end(void *arg)
{
    applier_t *a = arg;
    if (a->s) {
        session_free(a->s);
        a->s = NULL;
    }
    binapply_free(a->ap);
    a->ap = NULL;
}

int session_replica_open(server_t *srv, bool skip_start)
{
    if (!sql_exec_catalog())
        return 0;
    g_applier = (applier_t){.srv = srv,
                            .log_updates = sysvar_global_int(&srv->vars, SYSVAR_LOG_SLAVE_UPDATES) != 0};
    replica_apply_ops_t ops = {.arg = &g_applier, .apply = apply_group, .sync = apply_sync, .save_pos = apply_save_pos,
                               .load_pos = apply_load_pos, .binlog_pos = apply_binlog_pos,
                               .net_timeout = apply_net_timeout, .gtid_strict = apply_gtid_strict,
                               .semi_sync_enabled = apply_semi_sync_enabled, .thread_end = apply_thread_end,
                               .parallel = apply_parallel, .retries = apply_retries, .worker_new = apply_worker_new,
                               .worker_free = apply_worker_free, .apply_worker = apply_worker};
    uint32_t sid = (uint32_t)sysvar_global_int(&srv->vars, SYSVAR_SERVER_ID);
    /* before the threads start: replica_open sets g_replica before it starts them */
    engine_set_lock_wait_hook(catalog_engine(sql_exec_catalog()), lock_wait_hook, NULL);
    return replica_open(srv->datadir, sid, &ops, skip_start, &g_replica);
}

void session_replica_close(server_t *srv)
{
    (void)srv;
    if (sql_exec_catalog())
        engine_set_lock_wait_hook(catalog_engine(sql_exec_catalog()), NULL, NULL);
    replica_close(g_replica);
    g_replica = NULL;
}
