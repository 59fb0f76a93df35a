/*
 * The commit path: two-phase commit between the engine and the binary log, recovery of prepared transactions,
 * and the checkpointer that reports engine durability to the binlog (commit.h has the protocol).
 *
 * Checkpoint safety.  binlog_engine_checkpoint(P) promises that every transaction ending at or before P has a
 * durable engine COMMIT.  Committers between prepare and the end of their engine commit are counted in one of two
 * epochs.  The checkpointer reads P = binlog_durable_pos(), flips the epoch, waits until the old epoch's count is
 * zero, syncs the redo log to its end and only then reports P: a transaction whose binlog events end at or before
 * P had entered before P was read, hence before the flip, so it was counted in the old epoch and has finished.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "repl/semisync.h"
#include "sql/commit.h"
#include "util/util.h"

static struct {
    engine_t *e;
    binlog_t *bl;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    uint64_t inflight[2];
    int epoch;
    int gate;               /* sql_commit_snapshot in progress: new commits wait on gate_cond */
    pthread_cond_t gate_cond;
    bool stop, running;
    pthread_t thread;
    binlog_pos_t reported;
} g_c = {.mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .gate_cond = PTHREAD_COND_INITIALIZER};

binlog_t *sql_commit_binlog(void) { return g_c.bl; }

static int enter(void)
{
    pthread_mutex_lock(&g_c.mu);
    while (g_c.gate)
        pthread_cond_wait(&g_c.gate_cond, &g_c.mu);
    int ep = g_c.epoch;
    g_c.inflight[ep]++;
    pthread_mutex_unlock(&g_c.mu);
    return ep;
}

static void leave(int ep)
{
    pthread_mutex_lock(&g_c.mu);
    g_c.inflight[ep]--;
    pthread_mutex_unlock(&g_c.mu);
}

int sql_commit_trx(engine_trx_t *trx, binlog_trx_t *blt, binlog_commit_result_t *res)
{
    if (!g_c.bl || !blt || binlog_trx_empty(blt))
        return engine_trx_commit(trx);
    uint64_t xid = engine_trx_id(trx), plsn = 0, clsn = 0;
    uint8_t xb[8];
    for (int i = 0; i < 8; i++)
        xb[i] = (uint8_t)(xid >> (8 * i));
    int ep = enter();
    int rc = engine_trx_prepare(trx, xb, sizeof xb, &plsn);
    if (rc == 0)
        rc = engine_log_sync(g_c.e, plsn);
    if (rc) {
        engine_trx_rollback(trx);
        leave(ep);
        return rc;
    }
    blt->xid = xid;
    binlog_commit_result_t r, *rr = res ? res : &r;
    rc = binlog_commit(g_c.bl, blt, rr);
    if (rc) {
        /* not in the binlog: the prepared trx must not commit */
        engine_trx_rollback(trx);
        leave(ep);
        return rc;
    }
    /* semi-sync (repl/semisync.h): AFTER_SYNC waits for the replica before the commit is visible here,
     * AFTER_COMMIT (MariaDB's default) after; either way before the client hears of it */
    bool semi = repl_semisync_active(), after_sync = semi && repl_semisync_after_sync();
    if (after_sync)
        repl_semisync_wait(rr->end);
    rc = engine_trx_commit_nosync(trx, &clsn);
    leave(ep);
    if (semi && !after_sync)
        repl_semisync_wait(rr->end);
    return rc;
}

void sql_commit_snapshot(engine_trx_t *trx, char *file, size_t cap, uint64_t *pos)
{
    /* Every transaction in the binlog is committed in the engine once it has left (leave), and none that has
     * not entered is in the binlog: with the gate closed and nobody inside, view and position agree. */
    pthread_mutex_lock(&g_c.mu);
    g_c.gate++;
    while (g_c.inflight[0] + g_c.inflight[1]) {
        pthread_mutex_unlock(&g_c.mu);
        usleep(200);
        pthread_mutex_lock(&g_c.mu);
    }
    pthread_mutex_unlock(&g_c.mu);
    engine_trx_open_view(trx);
    file[0] = 0;
    *pos = 0;
    if (g_c.bl)
        binlog_master_status(g_c.bl, file, cap, pos);
    pthread_mutex_lock(&g_c.mu);
    if (--g_c.gate == 0)
        pthread_cond_broadcast(&g_c.gate_cond);
    pthread_mutex_unlock(&g_c.mu);
}

int sql_commit_ddl(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode)
{
    if (!g_c.bl)
        return 0;
    binlog_trx_t t;
    binlog_trx_init(&t, BINLOG_TRX_DDL);
    t.thread_id = thread_id;
    t.qctx.sql_mode = sql_mode;
    binlog_trx_query(&t, db, query, len);
    binlog_commit_result_t r;
    int rc = binlog_commit(g_c.bl, &t, &r);
    binlog_trx_free(&t);
    if (rc == 0 && repl_semisync_active())
        repl_semisync_wait(r.end);
    return rc;
}

/* ---- checkpointer ---- */

static void checkpoint_once(void)
{
    binlog_pos_t p = binlog_durable_pos(g_c.bl);
    pthread_mutex_lock(&g_c.mu);
    if (binlog_pos_cmp(p, g_c.reported) <= 0) {
        pthread_mutex_unlock(&g_c.mu);
        return;
    }
    int old = g_c.epoch;
    g_c.epoch = 1 - old;
    while (g_c.inflight[old] && !g_c.stop) {
        pthread_mutex_unlock(&g_c.mu);
        usleep(1000);
        pthread_mutex_lock(&g_c.mu);
    }
    bool stop = g_c.stop && g_c.inflight[old];
    pthread_mutex_unlock(&g_c.mu);
    if (stop || engine_log_sync(g_c.e, engine_log_lsn(g_c.e)) != 0)
        return;
    binlog_engine_checkpoint(g_c.bl, p);
    pthread_mutex_lock(&g_c.mu);
    g_c.reported = p;
    pthread_mutex_unlock(&g_c.mu);
}

static void *checkpointer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_c.mu);
    while (!g_c.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&g_c.cond, &g_c.mu, &ts);
        if (g_c.stop)
            break;
        pthread_mutex_unlock(&g_c.mu);
        checkpoint_once();
        pthread_mutex_lock(&g_c.mu);
    }
    pthread_mutex_unlock(&g_c.mu);
    return NULL;
}

/* ---- recovery ---- */

typedef struct prepared {
    uint64_t *ids;
    uint64_t *xids; /* 0 when the XID is not one of ours */
    uint32_t n, cap;
} prepared_t;

static void collect(void *ctx, uint64_t trx_id, const void *xid, size_t len)
{
    prepared_t *p = ctx;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->ids = mem_realloc(p->ids, p->cap * sizeof *p->ids);
        p->xids = mem_realloc(p->xids, p->cap * sizeof *p->xids);
    }
    uint64_t x = 0;
    if (len == 8)
        for (int i = 0; i < 8; i++)
            x |= (uint64_t)((const uint8_t *)xid)[i] << (8 * i);
    p->ids[p->n] = trx_id;
    p->xids[p->n++] = x;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t settle_prepared(engine_t *e, const binlog_recovery_t *rec, bool have_binlog)
{
    prepared_t p = {0};
    engine_xa_recover(e, collect, &p);
    if (p.n == 0)
        return 0;
    uint32_t nx = rec ? rec->n : 0;
    uint64_t *in_binlog = mem_calloc(nx ? nx : 1, sizeof *in_binlog);
    for (uint32_t i = 0; i < nx; i++)
        in_binlog[i] = rec->trx[i].xid;
    qsort(in_binlog, nx, sizeof *in_binlog, cmp_u64);
    uint32_t committed = 0, rolled = 0;
    for (uint32_t i = 0; i < p.n; i++) {
        bool found = p.xids[i] && nx && bsearch(&p.xids[i], in_binlog, nx, sizeof *in_binlog, cmp_u64);
        int rc = found ? engine_xa_commit(e, p.ids[i]) : engine_xa_rollback(e, p.ids[i]);
        if (rc)
            log_error("recovery: could not %s prepared transaction %llu (%d)", found ? "commit" : "roll back",
                      (unsigned long long)p.ids[i], rc);
        found ? committed++ : rolled++;
    }
    if (!have_binlog && p.n)
        log_warn("recovery: %u prepared transactions found but the binary log is off (--skip-log-bin): rolled back",
                 p.n);
    else
        log_note("recovery: %u prepared transactions: %u committed (in the binary log), %u rolled back (not in it)",
                 p.n, committed, rolled);
    mem_free(in_binlog);
    mem_free(p.ids);
    mem_free(p.xids);
    return p.n;
}

int sql_commit_start(engine_t *e, binlog_t *bl, const binlog_recovery_t *rec)
{
    g_c.e = e;
    g_c.bl = bl;
    g_c.stop = false;
    settle_prepared(e, rec, bl != NULL);
    if (!bl)
        return 0;
    if (pthread_create(&g_c.thread, NULL, checkpointer, NULL) != 0) {
        log_error("commit: cannot start the binlog checkpointer thread");
        return -1;
    }
    g_c.running = true;
    return 0;
}

void sql_commit_stop(void)
{
    pthread_mutex_lock(&g_c.mu);
    g_c.stop = true;
    pthread_cond_broadcast(&g_c.cond);
    pthread_mutex_unlock(&g_c.mu);
    if (g_c.running)
        pthread_join(g_c.thread, NULL);
    g_c.running = false;
    g_c.bl = NULL;
}
