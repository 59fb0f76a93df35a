/*
 * The event scheduler (see event_sched.h).
 *
 * One thread while event_scheduler is ON.  Each pass reads the events from the catalog (access/event.h), runs
 * the due ones and computes the earliest next run (sql/ddl/event.h event_next_run); then it sleeps on E.cv until
 * that instant, or without a deadline when nothing is scheduled, or until event_sched_kick() (the event DDL,
 * DROP DATABASE) or a stop wakes it.  Nothing polls.
 *
 * Running an event: the scheduler first writes the record's LAST_EXECUTED (and, for an AT event or an EVERY
 * event whose last run this is, DISABLED -- or deletes it when ON COMPLETION NOT PRESERVE), then starts a
 * detached thread that runs the body in a new session: registered (SHOW PROCESSLIST shows it as its definer,
 * Command 'Connect', Info the body), with the definer's privileges (it needs EVENT on the event's database),
 * the event's database, sql_mode and time zone.  So a run is made at most once, even across a crash; a body's
 * error goes to the error log as MariaDB writes it ("Event Scheduler: [user@host][db.name] message").
 *
 *   state:  OFF --SET GLOBAL ON / start-up ON--> ON --SET GLOBAL OFF / shutdown--> OFF
 *           DISABLED (start-up only) never changes.
 *
 * Lock order: E.mu is never held while a catalog call or a body runs; the events' lock (catalog_event_lock) is
 * held from re-reading a due event's record to writing it back, as the event DDL holds it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "access/event.h"
#include "acl/priv.h"
#include "session/event_sched.h"
#include "session/sp_int.h"
#include "session/sysvar.h"
#include "sql/ddl/event.h"
#include "sql/exec/exec.h"
#include "util/blocking.h"
#include "util/util.h"

enum { SCHED_OFF = 0, SCHED_ON = 1, SCHED_DISABLED = 2, SCHED_ORIGINAL = 3 }; /* event_scheduler's values */

static struct {
    server_t *srv;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* the scheduler's sleep: kicks, stops */
    pthread_cond_t idle_cv;  /* a run ended (shutdown waits for them) */
    pthread_t thread;
    bool ready;              /* event_sched_init ran: SET GLOBAL is checked and acted on */
    bool running;            /* the thread exists (joined by stop) */
    atomic_bool on;          /* = running, read without E.mu by every statement's context (event_sched_on) */
    bool stop;
    bool kicked;
    int startup;             /* the value at start-up (ORIGINAL) */
    int runs;                /* event bodies running */
} E = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .idle_cv = PTHREAD_COND_INITIALIZER};

static int64_t now_epoch(void) { return (int64_t)(time_wall_us() / 1000000); }

/* ---------------------------------------------------------------- one run */

typedef struct job {
    char *db, *name, *body, *user, *host, *sql_mode, *time_zone;
} job_t;

static void job_free(job_t *j)
{
    mem_free(j->db);
    mem_free(j->name);
    mem_free(j->body);
    mem_free(j->user);
    mem_free(j->host);
    mem_free(j->sql_mode);
    mem_free(j->time_zone);
    mem_free(j);
}

static void null_columns(res_sink_t *k, const res_col_t *c, int n) { (void)k, (void)c, (void)n; }
static void null_row(res_sink_t *k, const res_cell_t *c) { (void)k, (void)c; }
static void null_rows_end(res_sink_t *k, bool m) { (void)k, (void)m; }
static void null_ok(res_sink_t *k, uint64_t a, uint64_t l, const char *i, bool m) { (void)k, (void)a, (void)l, (void)i, (void)m; }
static void null_error(res_sink_t *k) { (void)k; }
static void null_raw(res_sink_t *k, const char *p, size_t n) { (void)k, (void)p, (void)n; }

static void *run_job(void *arg)
{
    job_t *j = arg;
    session_t *s = session_new(E.srv);
    snprintf(s->user, sizeof s->user, "%s", j->user);
    snprintf(s->host, sizeof s->host, "%s", j->host);
    snprintf(s->priv_user, sizeof s->priv_user, "%s", j->user);
    snprintf(s->priv_host, sizeof s->priv_host, "%s", j->host);
    s->unmetered = true;
    s->multi_results = true; /* a SELECT in the body is allowed; its rows go nowhere */
    s->command = "Connect";
    s->db = mem_strdup(j->db);
    diag_t md;
    diag_init(&md, 2);
    sysvar_set_text(&E.srv->vars, &s->vars, sysvar_def(SYSVAR_SQL_MODE), SYSVAR_SESSION, j->sql_mode, &md);
    sysvar_set_text(&E.srv->vars, &s->vars, sysvar_def(SYSVAR_TIME_ZONE), SYSVAR_SESSION, j->time_zone, &md);
    diag_free(&md);
    pthread_mutex_lock(&s->info_lock);
    s->info = mem_strdup(j->body);
    pthread_mutex_unlock(&s->info_lock);
    s->state = SESS_QUERY;
    s->state_since_us = time_wall_us();
    session_register(s);
    session_begin_statement(s);
    blocking_bind_state(&s->proc_state);
    int rc;
    if (E.srv->acl && (priv_db(s, j->db) & PRIV_EVENT) == 0) /* the definer lost EVENT, or is gone */
        rc = diag_error(&s->diag, ER_DBACCESS_DENIED_ERROR, j->user, j->host, j->db);
    else
        rc = sp_event_run(s, j->db, j->name, j->body);
    blocking_bind_state(NULL);
    if (rc) {
        log_error("Event Scheduler: [%s@%s][%s.%s] %s", j->user, j->host, j->db, j->name,
                  s->diag.error ? s->diag.error->msg : "unknown error");
        for (uint32_t i = 0; i < s->diag.n; i++) /* the notes that say where (1338 "At line n in db.name") */
            if (s->diag.conds[i].level == DIAG_NOTE)
                log_note("Event Scheduler: [%s@%s][%s.%s] %s", j->user, j->host, j->db, j->name, s->diag.conds[i].msg);
    }
    if (session_in_trans(s)) { /* a transaction the body left open ends with it, as a connection's does */
        res_sink_t none = {.columns = null_columns, .row = null_row, .rows_end = null_rows_end, .ok = null_ok,
                           .error = null_error, .raw = null_raw};
        session_begin_statement(s);
        session_query(s, "ROLLBACK", 8, &none);
    }
    session_unregister(s);
    session_free(s);
    job_free(j);
    pthread_mutex_lock(&E.mu);
    E.runs--;
    pthread_cond_broadcast(&E.idle_cv); /* only shutdown waits here */
    pthread_mutex_unlock(&E.mu);
    return NULL;
}

static void start_job(const cat_event_t *e)
{
    job_t *j = mem_calloc(1, sizeof *j);
    j->db = mem_strdup(e->db);
    j->name = mem_strdup(e->name);
    j->body = mem_strdup(e->body);
    j->user = mem_strdup(e->definer_user);
    j->host = mem_strdup(e->definer_host);
    j->sql_mode = mem_strdup(e->sql_mode);
    j->time_zone = mem_strdup(e->time_zone);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    pthread_mutex_lock(&E.mu);
    E.runs++;
    pthread_mutex_unlock(&E.mu);
    if (pthread_create(&t, &at, run_job, j) != 0) {
        log_error("Event Scheduler: [%s@%s][%s.%s] cannot start a thread for the event", j->user, j->host, j->db,
                  j->name);
        job_free(j);
        pthread_mutex_lock(&E.mu);
        E.runs--;
        pthread_mutex_unlock(&E.mu);
    }
    pthread_attr_destroy(&at);
}

/* ---------------------------------------------------------------- the scheduler */

/* The record after a run at now, or after its schedule ended: DISABLED, or deleted when NOT PRESERVE. */
static void settle(catalog_t *cat, cat_event_t *e, bool ran, bool over, int64_t now)
{
    if (ran)
        e->last_executed = now;
    if (over && !e->preserve) {
        catalog_event_delete(cat, e->db, e->name);
        return;
    }
    if (over)
        e->status = "DISABLED";
    catalog_event_put(cat, e);
}

/* One pass: runs what is due, returns the next instant (INT64_MAX: nothing scheduled); *any: some event is
 * enabled. */
static int64_t pass(bool *any)
{
    catalog_t *cat = sql_exec_catalog();
    *any = false;
    if (!cat)
        return INT64_MAX;
    arena_t a;
    arena_init(&a, 8192);
    cat_event_t *v;
    uint32_t n = 0;
    catalog_event_list(cat, &a, NULL, &v, &n);
    int64_t now = now_epoch(), next = INT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        cat_event_t *e = &v[i];
        if (strcmp(e->status, "ENABLED") != 0)
            continue;
        int64_t at;
        bool has = event_next_run(e, &at) == 1;
        bool expired = !has || (e->recurring && e->ends != CAT_EVENT_NEVER && now > e->ends);
        if (expired) {
            cat_event_t fresh;
            catalog_event_lock();
            if (catalog_event_get(cat, &a, e->db, e->name, &fresh) > 0 && strcmp(fresh.status, "ENABLED") == 0 &&
                fresh.last_executed == e->last_executed && fresh.last_altered == e->last_altered)
                settle(cat, &fresh, false, true, now);
            catalog_event_unlock();
            continue;
        }
        *any = true;
        if (at > now) {
            next = MIN(next, at);
            continue;
        }
        /* due: the record first (at most one run per instant, even across a crash), then the run; read again
         * under the events' lock, so an ALTER or DROP since the list wins */
        cat_event_t fresh;
        catalog_event_lock();
        if (catalog_event_get(cat, &a, e->db, e->name, &fresh) <= 0 || strcmp(fresh.status, "ENABLED") != 0 ||
            event_next_run(&fresh, &at) != 1 || at > now) {
            catalog_event_unlock();
            next = MIN(next, now + 1); /* changed meanwhile: look again */
            continue;
        }
        fresh.last_executed = now;
        int64_t after;
        bool over = !fresh.recurring || event_next_run(&fresh, &after) != 1;
        settle(cat, &fresh, true, over, now);
        catalog_event_unlock();
        start_job(&fresh);
        if (!over)
            next = MIN(next, after);
    }
    arena_destroy(&a);
    return next;
}

static void *sched_main(void *arg)
{
    (void)arg;
    session_t *s = session_new(E.srv); /* what SHOW PROCESSLIST shows of the scheduler */
    snprintf(s->user, sizeof s->user, "event_scheduler");
    snprintf(s->host, sizeof s->host, "localhost");
    snprintf(s->priv_user, sizeof s->priv_user, "event_scheduler");
    s->system_thread = true;
    s->unmetered = true;
    s->command = "Daemon";
    s->state = SESS_QUERY;
    s->state_since_us = time_wall_us();
    atomic_store(&s->proc_state, "Waiting on empty queue");
    session_register(s);
    log_note("Event Scheduler: scheduler thread started with id %u", s->id);
    pthread_mutex_lock(&E.mu);
    while (!E.stop) {
        E.kicked = false;
        pthread_mutex_unlock(&E.mu);
        bool any;
        int64_t next = pass(&any);
        atomic_store(&s->proc_state, any ? "Waiting for next activation" : "Waiting on empty queue");
        pthread_mutex_lock(&E.mu);
        if (E.stop || E.kicked)
            continue;
        if (next == INT64_MAX) {
            pthread_cond_wait(&E.cv, &E.mu);
        } else {
            struct timespec ts = {.tv_sec = (time_t)next, .tv_nsec = 0};
            pthread_cond_timedwait(&E.cv, &E.mu, &ts); /* CLOCK_REALTIME: the events' instants are wall time */
        }
    }
    pthread_mutex_unlock(&E.mu);
    session_unregister(s);
    session_free(s);
    log_note("Event Scheduler: Stopped");
    return NULL;
}

static int sched_start(void)
{
    pthread_mutex_lock(&E.mu);
    if (E.running) {
        pthread_mutex_unlock(&E.mu);
        return 0;
    }
    E.stop = false;
    E.running = pthread_create(&E.thread, NULL, sched_main, NULL) == 0;
    atomic_store(&E.on, E.running);
    bool ok = E.running;
    pthread_mutex_unlock(&E.mu);
    return ok ? 0 : -1;
}

static void sched_stop(void)
{
    pthread_mutex_lock(&E.mu);
    if (!E.running) {
        pthread_mutex_unlock(&E.mu);
        return;
    }
    E.stop = true;
    pthread_cond_signal(&E.cv);
    pthread_t t = E.thread;
    E.running = false;
    atomic_store(&E.on, false);
    pthread_mutex_unlock(&E.mu);
    pthread_join(t, NULL);
}

int event_sched_init(server_t *srv)
{
    E.srv = srv;
    E.startup = (int)sysvar_global_int(&srv->vars, SYSVAR_EVENT_SCHEDULER);
    if (E.startup == SCHED_ORIGINAL) {
        E.startup = SCHED_OFF;
        sysvar_global_set_int(&srv->vars, SYSVAR_EVENT_SCHEDULER, SCHED_OFF);
    }
    E.ready = true;
    return E.startup == SCHED_ON ? sched_start() : 0;
}

void event_sched_shutdown_begin(void)
{
    pthread_mutex_lock(&E.mu);
    E.ready = false; /* SET GLOBAL event_scheduler no longer starts it */
    pthread_mutex_unlock(&E.mu);
    sched_stop();
}

void event_sched_shutdown(void)
{
    event_sched_shutdown_begin();
    pthread_mutex_lock(&E.mu);
    while (E.runs > 0) /* their sessions were killed: each ends at its next check */
        pthread_cond_wait(&E.idle_cv, &E.mu);
    pthread_mutex_unlock(&E.mu);
}

void event_sched_kick(void)
{
    pthread_mutex_lock(&E.mu);
    E.kicked = true;
    pthread_cond_signal(&E.cv);
    pthread_mutex_unlock(&E.mu);
}

int event_sched_check(int64_t value, diag_t *d)
{
    if (!E.ready)
        return 0; /* start-up options: any value */
    if (E.startup == SCHED_DISABLED)
        return diag_error(d, ER_OPTION_PREVENTS_STATEMENT, "--event-scheduler=DISABLED or --skip-grant-tables");
    if (value == SCHED_DISABLED)
        return diag_error(d, ER_WRONG_VALUE_FOR_VAR, "event_scheduler", "DISABLED");
    return 0;
}

int event_sched_check_text(const char *text, diag_t *d)
{
    if (!E.ready)
        return 0;
    if (E.startup == SCHED_DISABLED)
        return diag_error(d, ER_OPTION_PREVENTS_STATEMENT, "--event-scheduler=DISABLED or --skip-grant-tables");
    if (strcasecmp(text, "DISABLED") == 0 || strcmp(text, "2") == 0)
        return diag_error(d, ER_WRONG_VALUE_FOR_VAR, "event_scheduler", text);
    return 0;
}

void event_sched_changed(void)
{
    if (!E.ready)
        return;
    int64_t v = sysvar_global_int(&E.srv->vars, SYSVAR_EVENT_SCHEDULER);
    if (v == SCHED_ORIGINAL) {
        v = E.startup == SCHED_ON ? SCHED_ON : SCHED_OFF;
        sysvar_global_set_int(&E.srv->vars, SYSVAR_EVENT_SCHEDULER, v);
    }
    if (v == SCHED_ON) {
        if (sched_start() != 0)
            log_error("Event Scheduler: cannot start the scheduler thread");
    } else {
        sched_stop();
    }
}

bool event_sched_on(void) { return atomic_load_explicit(&E.on, memory_order_relaxed); }
