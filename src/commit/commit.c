/*
 * The commit path: two-phase commit between the engine and the binary log, recovery of the engine from the
 * binlog, and the checkpointer that reports engine durability to the binlog (commit.h has the protocol).
 *
 * Checkpoint safety.  binlog_engine_checkpoint(P) promises that every transaction ending at or before P has a
 * durable engine COMMIT.  Committers between binlog write and the end of their engine commit are counted in one
 * of two epochs.  The checkpointer reads P = binlog_durable_pos(), flips the epoch, waits until the old epoch's
 * count is zero, syncs the redo log to its end and only then reports P: a transaction whose binlog events end at
 * or before P had entered before P was read, hence before the flip, so it was counted in the old epoch and has
 * finished.
 *
 * Nobody polls.  Committers waiting for the group fsync are woken by the group's leader (binlog.c), each with its
 * own signal; committers waiting for their turn by their predecessor (the turnstile).  The two drains that wait
 * for committers to leave (the checkpointer's epoch flip, sql_commit_snapshot's gate) sleep on drain_cv, which
 * leave() signals only when the count such a drain waits for reaches zero; RESET MASTER's wait for the turnstile
 * sleeps on turn_cv, signalled when the turnstile passes the order it waits for.
 *
 * Commit order.  Every transaction written to the binlog commits in the engine in binlog order (the turnstile
 * below, keyed by binlog_commit_result_t.order), tagged with its binlog end position (engine_trx_commit_tagged).
 * The redo log being a prefix after a crash, the engine's commit tag S then says exactly which binlog
 * transactions survived in the engine: those ending at or before S.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repl/semisync.h"
#include "access/binapply.h"
#include "access/rowcodec.h"
#include "commit/commit.h"
#include "access/catalog.h"
#include "util/fio.h"
#include "util/util.h"

static struct {
    engine_t *e;
    binlog_t *bl;
    catalog_t *cat;           /* the definitions binlog re-apply and the redo-sync rule read */
    pthread_mutex_t mu;
    pthread_cond_t cond;
    uint64_t inflight[2];
    int epoch;
    int gate;               /* sql_commit_snapshot in progress: new commits wait on gate_cond */
    pthread_cond_t gate_cond;
    int drains;             /* threads in drain_wait: leave() signals drain_cv when a count reaches zero */
    pthread_cond_t drain_cv;
    bool stop, running;
    pthread_t thread;
    binlog_pos_t reported;
    /* the turnstile: engine commits in binlog order (commit_ordered below) */
    pthread_mutex_t turn_mu;
    uint64_t turn_done;          /* order of the last transaction whose engine commit is done */
    struct turn_waiter *pending; /* early arrivals, sorted by order */
    uint64_t drain_order;        /* turn_drain waits for turn_done >= this (0: nobody waits) */
    pthread_cond_t turn_cv;
    uint64_t synced_catalog; /* catalog_version() the redo was last synced for (atomic) */
} commit_state = {.mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .gate_cond = PTHREAD_COND_INITIALIZER,
         .drain_cv = PTHREAD_COND_INITIALIZER, .turn_mu = PTHREAD_MUTEX_INITIALIZER, .turn_cv = PTHREAD_COND_INITIALIZER};

binlog_t *sql_commit_binlog(void) { return commit_state.bl; }

/* The engine's commit tag of a binlog position: file sequence in the high 24 bits, offset in the low 40. */
static uint64_t pos_tag(binlog_pos_t p) { return (uint64_t)p.file << 40 | (p.offset & ((1ull << 40) - 1)); }

/*
 * The turnstile.  A committer whose predecessor in binlog order is not done queues itself (sorted by order) and
 * sleeps on its own condition variable.  The one whose turn it is commits, then commits every queued successor
 * that continues the sequence on their behalf (their threads are parked; a trx belongs to one thread at a time)
 * and wakes each with one signal.  So a group's engine commits run back to back in one thread instead of as a
 * chain of wake-ups, and nobody is woken who cannot proceed.  trx NULL: a DDL's place in the order (nothing to
 * commit in the engine).
 */
typedef struct turn_waiter {
    uint64_t order, tag;
    engine_trx_t *trx;
    int rc;
    bool done;
    pthread_cond_t cv;
    struct turn_waiter *next;
} turn_waiter_t;

/* The engine commit of `order` is done; wakes a turn_drain that waited for it.  Under turn_mu. */
static void turn_advance(uint64_t order)
{
    commit_state.turn_done = order;
    if (commit_state.drain_order && order >= commit_state.drain_order)
        pthread_cond_signal(&commit_state.turn_cv);
}

static int commit_ordered(uint64_t order, engine_trx_t *trx, uint64_t tag)
{
    if (order == 0) /* nothing was written to the binlog: no place in its order */
        return trx ? engine_trx_commit(trx) : 0;
    turn_waiter_t w = {.order = order, .tag = tag, .trx = trx};
    pthread_mutex_lock(&commit_state.turn_mu);
    if (commit_state.turn_done + 1 < order) {
        pthread_cond_init(&w.cv, NULL);
        turn_waiter_t **pp = &commit_state.pending;
        while (*pp && (*pp)->order < order)
            pp = &(*pp)->next;
        w.next = *pp;
        *pp = &w;
        while (!w.done)
            pthread_cond_wait(&w.cv, &commit_state.turn_mu);
        pthread_mutex_unlock(&commit_state.turn_mu);
        pthread_cond_destroy(&w.cv);
        return w.rc;
    }
    pthread_mutex_unlock(&commit_state.turn_mu);
    int rc = trx ? engine_trx_commit_tagged(trx, tag, NULL) : 0;
    pthread_mutex_lock(&commit_state.turn_mu);
    turn_advance(order);
    while (commit_state.pending && commit_state.pending->order == commit_state.turn_done + 1) {
        turn_waiter_t *h = commit_state.pending;
        commit_state.pending = h->next;
        pthread_mutex_unlock(&commit_state.turn_mu);
        int hrc = h->trx ? engine_trx_commit_tagged(h->trx, h->tag, NULL) : 0;
        pthread_mutex_lock(&commit_state.turn_mu);
        turn_advance(h->order);
        h->rc = hrc;
        h->done = true;
        pthread_cond_signal(&h->cv);
    }
    pthread_mutex_unlock(&commit_state.turn_mu);
    return rc;
}

/* Waits until every transaction up to `order` has done its engine commit (RESET MASTER, which holds the binlog's
 * writer role: one drain at a time). */
static void turn_drain(uint64_t order)
{
    pthread_mutex_lock(&commit_state.turn_mu);
    ASSERT(commit_state.drain_order == 0);
    commit_state.drain_order = order;
    while (commit_state.turn_done < order)
        pthread_cond_wait(&commit_state.turn_cv, &commit_state.turn_mu);
    commit_state.drain_order = 0;
    pthread_mutex_unlock(&commit_state.turn_mu);
}

/* The one-fsync commit: the binlog's fsync is the only one at commit when the binlog is synced per group. */
static bool lazy_redo(void) { return commit_state.bl && binlog_sync_setting(commit_state.bl) == 1; }

/* sql_commit_gtid_override: the GTID and timestamp the calling thread's next commits are logged under. */
static _Thread_local struct {
    bool on;
    binlog_gtid_t gtid;
    uint32_t when;
} tl_override;

void sql_commit_gtid_override(const binlog_gtid_t *g, uint32_t when)
{
    tl_override.on = g != NULL;
    if (g)
        tl_override.gtid = *g;
    tl_override.when = when;
}

/* sql_commit_identity: the session's gtid_domain_id and server_id, for what the calling thread commits next. */
static _Thread_local struct {
    bool set;
    uint32_t domain, server;
} tl_identity;

void sql_commit_identity(bool set, uint32_t domain, uint32_t server_id)
{
    tl_identity.set = set;
    tl_identity.domain = domain;
    tl_identity.server = server_id;
}

static void override_apply(binlog_trx_t *t)
{
    t->domain = tl_identity.set ? tl_identity.domain : 0;
    t->domain_set = tl_identity.set;
    t->server_id = tl_identity.set ? tl_identity.server : 0;
    if (!tl_override.on)
        return;
    t->domain_set = true;
    t->domain = tl_override.gtid.domain;
    t->server_id = tl_override.gtid.server;
    t->gtid_seq = tl_override.gtid.seq;
    t->when = tl_override.when;
}

static int enter(void)
{
    pthread_mutex_lock(&commit_state.mu);
    while (commit_state.gate)
        pthread_cond_wait(&commit_state.gate_cond, &commit_state.mu);
    int ep = commit_state.epoch;
    commit_state.inflight[ep]++;
    pthread_mutex_unlock(&commit_state.mu);
    return ep;
}

static void leave(int ep)
{
    pthread_mutex_lock(&commit_state.mu);
    if (--commit_state.inflight[ep] == 0 && commit_state.drains)
        pthread_cond_broadcast(&commit_state.drain_cv); /* only the drains (at most two threads) wait on it */
    pthread_mutex_unlock(&commit_state.mu);
}

/* Waits under commit_state.mu until no committer counted in epoch `ep` (-1: in either) is inside; with or_stop, also ends
 * when the server stops (the checkpointer then reports nothing). */
static void drain_wait(int ep, bool or_stop)
{
    commit_state.drains++;
    while (!(or_stop && commit_state.stop) && (ep < 0 ? commit_state.inflight[0] + commit_state.inflight[1] : commit_state.inflight[ep]))
        pthread_cond_wait(&commit_state.drain_cv, &commit_state.mu);
    commit_state.drains--;
}

int sql_commit_trx(engine_trx_t *trx, binlog_trx_t *blt, binlog_commit_result_t *res)
{
    int hrc = catalog_commit_hook_run(trx); /* a replicated statement's position commits with its rows */
    if (hrc) {
        engine_trx_rollback(trx);
        return hrc;
    }
    if (!commit_state.bl || !blt || binlog_trx_empty(blt))
        return engine_trx_commit(trx);
    uint64_t xid = engine_trx_id(trx), plsn = 0;
    uint8_t xb[8];
    for (int i = 0; i < 8; i++)
        xb[i] = (uint8_t)(xid >> (8 * i));
    int ep = enter();
    int rc = 0;
    /* sync_binlog=1: the binlog is the durable record (recovery re-applies from it what the redo lost), so the
     * transaction goes to the binlog without PREPARE nor redo sync.  Otherwise the binlog cannot be trusted to
     * survive, and the engine's side must be durable (prepared) before the binlog write, as before. */
    if (lazy_redo()) {
        /* A definition this transaction may have been logged against must be durable before its events are: the
         * first commit after a catalog change syncs the redo (which holds the catalog) once.  DDL itself syncs
         * before its QUERY event (sql_commit_ddl); this covers a transaction that reaches the binlog between the
         * DDL's catalog change and its QUERY event (exec.c releases the metadata lock in between). */
        catalog_t *cat = commit_state.cat;
        uint64_t v = cat ? catalog_version(cat) : 0;
        if (v != __atomic_load_n(&commit_state.synced_catalog, __ATOMIC_ACQUIRE)) {
            rc = engine_log_sync(commit_state.e, engine_log_lsn(commit_state.e));
            if (rc) {
                engine_trx_rollback(trx);
                leave(ep);
                return rc;
            }
            __atomic_store_n(&commit_state.synced_catalog, v, __ATOMIC_RELEASE);
        }
    } else {
        rc = engine_trx_prepare(trx, xb, sizeof xb, &plsn);
        if (rc == 0)
            rc = engine_log_sync(commit_state.e, plsn);
        if (rc) {
            engine_trx_rollback(trx);
            leave(ep);
            return rc;
        }
    }
    blt->xid = xid;
    override_apply(blt);
    binlog_commit_result_t r, *rr = res ? res : &r;
    rc = binlog_commit(commit_state.bl, blt, rr);
    if (rc) {
        /* not in the binlog: the trx must not commit */
        engine_trx_rollback(trx);
        leave(ep);
        return rc;
    }
    /* semi-sync (repl/semisync.h): AFTER_SYNC waits for the replica before the commit is visible here,
     * AFTER_COMMIT (MariaDB's default) after; either way before the client hears of it */
    bool semi = repl_semisync_active(), after_sync = semi && repl_semisync_after_sync();
    if (after_sync)
        repl_semisync_wait(rr->end);
    rc = commit_ordered(rr->order, trx, pos_tag(rr->end));
    leave(ep);
    if (semi && !after_sync)
        repl_semisync_wait(rr->end);
    return rc;
}

void sql_commit_snapshot(engine_trx_t *trx, char *file, size_t cap, uint64_t *pos)
{
    /* Every transaction in the binlog is committed in the engine once it has left (leave), and none that has
     * not entered is in the binlog: with the gate closed and nobody inside, view and position agree. */
    pthread_mutex_lock(&commit_state.mu);
    commit_state.gate++;
    drain_wait(-1, false);
    pthread_mutex_unlock(&commit_state.mu);
    engine_trx_open_view(trx);
    file[0] = 0;
    *pos = 0;
    if (commit_state.bl)
        binlog_master_status(commit_state.bl, file, cap, pos);
    pthread_mutex_lock(&commit_state.mu);
    if (--commit_state.gate == 0)
        pthread_cond_broadcast(&commit_state.gate_cond);
    pthread_mutex_unlock(&commit_state.mu);
}

/* ---- DDL and account statements: their change and the binlog agree ----
 * The note such a statement leaves in the catalog (record 'L', access/catalog.c) while its QUERY event is owed:
 *     [1 version][varint thread id][varint sql_mode][varint accounts generation][varint db length][db]
 *     [varint statement length][statement]
 * accounts generation: 0 for DDL (the note commits with the catalog change, so the change is there); for an
 * account statement, the account file's generation before it (the note commits first: the change happened
 * exactly when the file's generation is past it; account statements that log are serialised).
 */
static void ddl_note_encode(buf_t *b, const char *db, const char *query, size_t len, uint32_t thread_id,
                            uint64_t sql_mode, uint64_t acct_gen)
{
    size_t dl = db ? strlen(db) : 0;
    buf_append_byte(b, 1);
    rc_put_varint(b, thread_id);
    rc_put_varint(b, sql_mode);
    rc_put_varint(b, acct_gen);
    rc_put_varint(b, dl);
    buf_append(b, db ? db : "", dl);
    rc_put_varint(b, len);
    buf_append(b, query, len);
}

typedef struct {
    uint64_t seq, thread_id, sql_mode, acct_gen;
    char *db;
    char *text;
    size_t len;
} ddl_note_t;

static int ddl_note_decode(const uint8_t *p, size_t n, ddl_note_t *out)
{
    const uint8_t *e = p + n;
    uint64_t dl, ql;
    memset(out, 0, sizeof *out);
    if (n < 1 || *p++ != 1 || rc_get_varint(&p, e, &out->thread_id) < 0 || rc_get_varint(&p, e, &out->sql_mode) < 0 ||
        rc_get_varint(&p, e, &out->acct_gen) < 0 || rc_get_varint(&p, e, &dl) < 0 || dl > (uint64_t)(e - p))
        return STRATA_ECORRUPT;
    out->db = mem_alloc(dl + 1);
    memcpy(out->db, p, dl);
    out->db[dl] = 0;
    p += dl;
    if (rc_get_varint(&p, e, &ql) < 0 || ql != (uint64_t)(e - p)) {
        mem_free(out->db);
        return STRATA_ECORRUPT;
    }
    out->text = mem_alloc(ql + 1);
    memcpy(out->text, p, ql);
    out->text[ql] = 0;
    out->len = ql;
    return 0;
}

int sql_commit_ddl_note_check(const void *p, size_t n)
{
    ddl_note_t x;
    int rc = ddl_note_decode(p, n, &x);
    if (rc == 0) {
        mem_free(x.db);
        mem_free(x.text);
    }
    return rc;
}

static uint64_t g_ddl_seq; /* atomic: the notes' keys (none survives a start, so they may start over) */
static uint64_t (*g_acct_gen)(void *arg);
static void *g_acct_arg;

static void note_set(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode,
                     uint64_t acct_gen)
{
    buf_t b;
    buf_init(&b);
    ddl_note_encode(&b, db, query, len, thread_id, sql_mode, acct_gen);
    catalog_ddl_pending_set(__atomic_add_fetch(&g_ddl_seq, 1, __ATOMIC_RELAXED), b.data, b.len);
    buf_free(&b);
}

static _Thread_local bool tl_ddl_no_fk_checks;

void sql_commit_ddl_fk_checks(bool off) { tl_ddl_no_fk_checks = off; }

void sql_commit_ddl_begin(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode)
{
    if (commit_state.bl)
        note_set(db, query, len, thread_id, sql_mode, 0);
}

void sql_commit_set_accounts(uint64_t (*generation)(void *arg), void *arg)
{
    g_acct_gen = generation;
    g_acct_arg = arg;
}

int sql_commit_account_begin(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode)
{
    catalog_t *cat = commit_state.cat;
    if (!commit_state.bl || !g_acct_gen || !cat)
        return 0;
    note_set(db, query, len, thread_id, sql_mode, g_acct_gen(g_acct_arg));
    int rc = catalog_ddl_pending_commit(cat);
    if (rc)
        catalog_ddl_pending_clear();
    return rc;
}

/* An engine transaction deleting note seq, for the caller to commit (NULL if it cannot begin). */
static engine_trx_t *ddl_note_delete_trx(uint64_t seq)
{
    engine_trx_t *trx = NULL;
    catalog_t *cat = commit_state.cat;
    if (!cat || engine_trx_begin(commit_state.e, &trx))
        return NULL;
    if (catalog_aux_put_trx(cat, trx, CAT_AUX_DDL_LOG, seq, NULL, 0)) {
        engine_trx_rollback(trx);
        return NULL;
    }
    return trx;
}

void sql_commit_ddl_abandon(void)
{
    uint64_t seq;
    if (catalog_ddl_pending_written(&seq)) {
        /* Failed after a catalog change: the statement reports its error and the binlog does not get it (as
         * when the binlog write itself fails). */
        engine_trx_t *trx = ddl_note_delete_trx(seq);
        if (trx)
            engine_trx_commit(trx);
    }
    catalog_ddl_pending_clear();
}

int sql_commit_ddl(const char *db, const char *query, size_t len, uint32_t thread_id, uint64_t sql_mode)
{
    if (!commit_state.bl)
        return 0;
    uint64_t note;
    bool noted = catalog_ddl_pending_written(&note);
    catalog_ddl_pending_clear();
    (void)FAULT_POINT("commit.ddl_before_binlog"); /* test builds: a crash between the catalog and the event */
    /* The statement's catalog change, and with it every engine commit before it, is durable before its QUERY
     * event: recovery never re-applies a transaction against a definition older than the one it was logged
     * with (docs/binlog.md). */
    int rc = engine_log_sync(commit_state.e, engine_log_lsn(commit_state.e));
    if (rc)
        return rc;
    binlog_trx_t t;
    binlog_trx_init(&t, BINLOG_TRX_DDL);
    t.thread_id = thread_id;
    t.qctx.sql_mode = sql_mode;
    if (tl_ddl_no_fk_checks)
        t.qctx.flags2 |= 0x4000000; /* OPTION_NO_FOREIGN_KEY_CHECKS */
    binlog_trx_query(&t, db, query, len);
    override_apply(&t);
    binlog_commit_result_t r;
    rc = binlog_commit(commit_state.bl, &t, &r);
    binlog_trx_free(&t);
    /* Its turn in the commit order: the note's deletion, tagged with the event's end, so that while the note
     * survives a crash the engine's tag is below the event and recovery looks for it in the binlog. */
    engine_trx_t *del = noted ? ddl_note_delete_trx(note) : NULL;
    if (rc == 0) {
        (void)FAULT_POINT("commit.ddl_after_binlog"); /* test builds: a crash between the event and the note */
        commit_ordered(r.order, del, pos_tag(r.end));
    } else if (del) {
        engine_trx_commit(del);
    }
    if (rc == 0 && repl_semisync_active())
        repl_semisync_wait(r.end);
    return rc;
}

/* RESET MASTER: positions start over, so the engine's tag must too (else new positions would compare below it):
 * 1 is below every position's tag (file >= 1) and, unlike 0, still says "tagged".
 * Every transaction written before the reset finishes its engine commit first. */
static void on_binlog_reset(void *arg, uint64_t last_order)
{
    (void)arg;
    turn_drain(last_order);
    if (engine_commit_tag_set(commit_state.e, 1) != 0)
        log_error("commit: RESET MASTER could not reset the engine's commit tag");
}

/* ---- checkpointer ---- */

static pthread_mutex_t g_ckpt_run = PTHREAD_MUTEX_INITIALIZER; /* one checkpoint_once at a time */

static void checkpoint_once_locked(void);

/* The checkpointer's round, also run on demand (PURGE BINARY LOGS, binlog_set_checkpoint_hook). */
static void checkpoint_once(void)
{
    pthread_mutex_lock(&g_ckpt_run);
    checkpoint_once_locked();
    pthread_mutex_unlock(&g_ckpt_run);
}

static void on_purge(void *arg)
{
    (void)arg;
    checkpoint_once();
}

static void checkpoint_once_locked(void)
{
    binlog_pos_t p = binlog_durable_pos(commit_state.bl);
    pthread_mutex_lock(&commit_state.mu);
    if (binlog_pos_cmp(p, commit_state.reported) <= 0) {
        pthread_mutex_unlock(&commit_state.mu);
        return;
    }
    int old = commit_state.epoch;
    commit_state.epoch = 1 - old;
    drain_wait(old, true);
    bool stop = commit_state.stop && commit_state.inflight[old];
    pthread_mutex_unlock(&commit_state.mu);
    if (FAULT_POINT("commit.skip_redo_sync")) /* test builds: leave the commits to the re-apply */
        return;
    if (stop || engine_log_sync(commit_state.e, engine_log_lsn(commit_state.e)) != 0)
        return;
    binlog_engine_checkpoint(commit_state.bl, p);
    pthread_mutex_lock(&commit_state.mu);
    commit_state.reported = p;
    pthread_mutex_unlock(&commit_state.mu);
}

static void *checkpointer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&commit_state.mu);
    while (!commit_state.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&commit_state.cond, &commit_state.mu, &ts);
        if (commit_state.stop)
            break;
        pthread_mutex_unlock(&commit_state.mu);
        checkpoint_once();
        pthread_mutex_lock(&commit_state.mu);
    }
    pthread_mutex_unlock(&commit_state.mu);
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

/* Commits the prepared transactions the binlog has (their XIDs, sorted, into *settled) and rolls back the others. */
static uint32_t settle_prepared(engine_t *e, const binlog_recovery_t *rec, bool have_binlog, uint64_t **settled,
                                uint32_t *nsettled)
{
    prepared_t p = {0};
    *settled = NULL;
    *nsettled = 0;
    engine_xa_recover(e, collect, &p);
    if (p.n == 0)
        return 0;
    uint32_t nx = rec ? rec->n : 0;
    uint64_t *in_binlog = mem_calloc(nx ? nx : 1, sizeof *in_binlog);
    for (uint32_t i = 0; i < nx; i++)
        in_binlog[i] = rec->trx[i].xid;
    qsort(in_binlog, nx, sizeof *in_binlog, cmp_u64);
    *settled = mem_calloc(p.n, sizeof **settled);
    uint32_t committed = 0, rolled = 0;
    for (uint32_t i = 0; i < p.n; i++) {
        bool found = p.xids[i] && nx && bsearch(&p.xids[i], in_binlog, nx, sizeof *in_binlog, cmp_u64);
        int rc = found ? engine_xa_commit(e, p.ids[i]) : engine_xa_rollback(e, p.ids[i]);
        if (rc)
            log_error("recovery: could not %s prepared transaction %llu (%d)", found ? "commit" : "roll back",
                      (unsigned long long)p.ids[i], rc);
        if (found)
            (*settled)[committed++] = p.xids[i];
        else
            rolled++;
    }
    qsort(*settled, committed, sizeof **settled, cmp_u64);
    *nsettled = committed;
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

/* Re-applies one binlog transaction [t->start, t->end) from its row events, committed with its tag. */
static int reapply_one(engine_t *e, binlog_t *bl, binapply_t *ap, const binlog_recovered_trx_t *t)
{
    char name[256];
    binlog_file_name(bl, t->end.file, name, sizeof name);
    binlog_reader_t *r = NULL;
    engine_trx_t *trx = NULL;
    diag_t d;
    diag_init(&d, 8);
    int rc = binlog_reader_open(bl, name, t->start.offset, &r);
    if (rc == 0)
        rc = engine_trx_begin(e, &trx);
    binlog_event_t ev;
    while (rc == 0) {
        int n = binlog_reader_next(r, &ev);
        if (n <= 0) {
            rc = n < 0 ? n : STRATA_ECORRUPT; /* the file ends inside a transaction binlog_open listed whole */
            break;
        }
        if (ev.pos >= t->end.offset)
            break;
        rc = binapply_event(ap, trx, &ev, &d);
        if (ev.pos + ev.size >= t->end.offset)
            break;
    }
    /* A transaction of another server is one a replica applied and logged (log_slave_updates): the applier wrote
     * its GTID as the replica's position in the same engine transaction, and so does its re-apply, or the replica
     * would fetch it again and apply it twice. */
    if (rc == 0 && t->gtid.server != binlog_server_id(bl) && commit_state.cat)
        rc = catalog_repl_gtid_put(commit_state.cat, trx, t->gtid.domain, t->gtid.server, t->gtid.seq);
    if (rc == 0)
        rc = engine_trx_commit_tagged(trx, pos_tag(t->end), NULL);
    else if (trx)
        engine_trx_rollback(trx);
    if (rc)
        log_error("recovery: binlog transaction %u-%u-%llu (%s, %llu..%llu) cannot be re-applied (%d%s%s)",
                  t->gtid.domain, t->gtid.server, (unsigned long long)t->gtid.seq, name,
                  (unsigned long long)t->start.offset, (unsigned long long)t->end.offset, rc,
                  d.error ? ": " : "", d.error ? d.error->msg : "");
    if (r)
        binlog_reader_close(r);
    diag_free(&d);
    return rc;
}

/*
 * The binlog transactions since the engine checkpoint that the engine lost (their redo was not synced at commit):
 * those ending after the engine's commit tag that were not settled as prepared.  Re-applied in binlog order, each
 * committed with its own tag (so a crash in the middle resumes after the last one that survived), then the redo
 * is synced and the binlog told that the engine holds everything it has.
 */
static int reapply_lost(engine_t *e, binlog_t *bl, const binlog_recovery_t *rec, const uint64_t *settled,
                        uint32_t nsettled)
{
    uint64_t tag = engine_commit_tag(e);
    uint32_t n = 0;
    int rc = 0;
    if (tag == 0) {
        /* never tagged: a new data directory, or one of a server that synced the redo before every binlog write */
        log_note("recovery: the engine has no commit tag yet (new, or written before one-fsync commits): nothing to "
                 "re-apply");
    } else if (rec) {
        binapply_t *ap = NULL;
        uint64_t t0 = time_mono_us();
        for (uint32_t i = 0; i < rec->n && rc == 0; i++) {
            const binlog_recovered_trx_t *t = &rec->trx[i];
            if (!t->xid || pos_tag(t->end) <= tag ||
                (nsettled && bsearch(&t->xid, settled, nsettled, sizeof *settled, cmp_u64)))
                continue;
            if (!ap && !(ap = binapply_new(commit_state.cat))) {
                rc = STRATA_ENOMEM;
                break;
            }
            rc = reapply_one(e, bl, ap, t);
            n += rc == 0;
            (void)FAULT_POINT("recovery.reapplied"); /* test builds: a crash between two re-applied transactions */
        }
        if (ap) {
            uint64_t ins, upd, del;
            binapply_counts(ap, &ins, &upd, &del);
            log_note("recovery: re-applied %u transaction(s) from the binary log that the engine had lost (%llu "
                     "rows inserted, %llu updated, %llu deleted) in %llu ms", n, (unsigned long long)ins,
                     (unsigned long long)upd, (unsigned long long)del,
                     (unsigned long long)(time_mono_us() - t0) / 1000);
            binapply_free(ap);
        }
    }
    if (rc)
        return rc;
    /* From now on "tagged": 1 is below every position's tag, so a crash before the first tagged commit is durable
     * re-applies everything after the binlog's engine checkpoint. */
    if (tag == 0 && (rc = engine_commit_tag_set(e, 1)))
        return rc;
    if ((rc = engine_log_sync(e, engine_log_lsn(e))))
        return rc;
    binlog_engine_checkpoint(bl, binlog_durable_pos(bl));
    return 0;
}

static void collect_note(void *arg, uint64_t seq, const void *val, size_t len)
{
    buf_t *notes = arg;
    ddl_note_t n;
    if (ddl_note_decode(val, len, &n)) {
        CORRUPT("catalog: DDL note %llu does not parse", (unsigned long long)seq);
        return;
    }
    n.seq = seq;
    buf_append(notes, &n, sizeof n);
}

/* Does the binlog hold, past the engine's tag, a DDL event for note n that no earlier note was matched with? */
static bool ddl_in_binlog(binlog_t *bl, const binlog_recovery_t *rec, uint64_t tag, const ddl_note_t *n,
                          bool *used)
{
    for (uint32_t i = 0; rec && i < rec->n; i++) {
        const binlog_recovered_trx_t *t = &rec->trx[i];
        if (t->xid || used[i] || pos_tag(t->end) <= tag)
            continue;
        char name[256];
        binlog_file_name(bl, t->end.file, name, sizeof name);
        binlog_reader_t *r = NULL;
        if (binlog_reader_open(bl, name, t->start.offset, &r))
            continue;
        binlog_event_t ev;
        bool same = false;
        while (!same && binlog_reader_next(r, &ev) > 0 && ev.pos < t->end.offset) {
            binlog_query_t q;
            if (ev.type == BINLOG_EV_QUERY && binlog_event_query(&ev, &q) == 0)
                same = q.len == n->len && memcmp(q.text, n->text, n->len) == 0 && q.db_len == strlen(n->db) &&
                       memcmp(q.db, n->db, q.db_len) == 0;
        }
        binlog_reader_close(r);
        if (same) {
            used[i] = true;
            return true;
        }
    }
    return false;
}

/* DDL statements whose catalog change survived the crash and whose QUERY event may not have: each one's note
 * is looked for among the binlog's DDL events past the engine's tag at the crash (the note's deletion was
 * tagged with its event: a note that survives means the tag is below its event, if the event exists); found,
 * the note goes; not found, the event is written now, then the note goes.  Catalog and binlog then agree. */
static int settle_ddl(engine_t *e, binlog_t *bl, const binlog_recovery_t *rec, uint64_t tag)
{
    catalog_t *cat = commit_state.cat;
    if (!cat)
        return 0;
    buf_t notes;
    buf_init(&notes);
    int rc = catalog_aux_scan(cat, CAT_AUX_DDL_LOG, collect_note, &notes);
    size_t n = notes.len / sizeof(ddl_note_t);
    ddl_note_t *v = (ddl_note_t *)notes.data;
    bool *used = mem_calloc(rec && rec->n ? rec->n : 1, sizeof *used);
    uint32_t logged = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (v[i].acct_gen && (!g_acct_gen || g_acct_gen(g_acct_arg) <= v[i].acct_gen)) {
            /* an account statement that never reached the account file: neither has it */
        } else if (bl && !ddl_in_binlog(bl, rec, tag, &v[i], used)) {
            if ((rc = sql_commit_ddl(v[i].db[0] ? v[i].db : NULL, v[i].text, v[i].len, (uint32_t)v[i].thread_id,
                                     v[i].sql_mode)))
                break;
            log_note("recovery: DDL statement in the catalog but not in the binary log, written to it now: %.200s",
                     v[i].text);
            logged++;
        }
        engine_trx_t *del = ddl_note_delete_trx(v[i].seq);
        rc = del ? engine_trx_commit(del) : STRATA_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        mem_free(v[i].db);
        mem_free(v[i].text);
    }
    if (n && rc == 0)
        log_note("recovery: %zu DDL statement(s) interrupted by the crash settled, %u written to the binary log", n,
                 logged);
    mem_free(used);
    buf_free(&notes);
    (void)e;
    return rc;
}

int sql_commit_start(engine_t *e, catalog_t *cat, binlog_t *bl, const binlog_recovery_t *rec)
{
    commit_state.e = e;
    commit_state.cat = cat;
    commit_state.bl = bl;
    commit_state.stop = false;
    commit_state.turn_done = 0;
    commit_state.pending = NULL;
    if (engine_read_only(e)) /* innodb_force_recovery: no binlog, and settling anything would write */
        return 0;
    uint64_t *settled;
    uint32_t nsettled;
    settle_prepared(e, rec, bl != NULL, &settled, &nsettled);
    uint64_t tag = engine_commit_tag(e); /* before the re-apply moves it */
    int rc = bl ? reapply_lost(e, bl, rec, settled, nsettled) : 0;
    mem_free(settled);
    if (rc == 0)
        rc = settle_ddl(e, bl, rec, tag);
    if (rc) {
        log_error("recovery: the engine cannot be brought up to the binary log; refusing to start");
        return -1;
    }
    if (!bl)
        return 0;
    binlog_set_reset_hook(bl, on_binlog_reset, NULL);
    binlog_set_checkpoint_hook(bl, on_purge, NULL);
    if (pthread_create(&commit_state.thread, NULL, checkpointer, NULL) != 0) {
        log_error("commit: cannot start the binlog checkpointer thread");
        return -1;
    }
    commit_state.running = true;
    return 0;
}

void sql_commit_stop(void)
{
    pthread_mutex_lock(&commit_state.mu);
    commit_state.stop = true;
    pthread_cond_broadcast(&commit_state.cond);
    pthread_cond_broadcast(&commit_state.drain_cv);
    pthread_mutex_unlock(&commit_state.mu);
    if (commit_state.running)
        pthread_join(commit_state.thread, NULL);
    commit_state.running = false;
    if (commit_state.bl) {
        binlog_set_reset_hook(commit_state.bl, NULL, NULL);
        binlog_set_checkpoint_hook(commit_state.bl, NULL, NULL);
    }
    commit_state.bl = NULL;
}
