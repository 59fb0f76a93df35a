/*
 * Status variables (SHOW [GLOBAL|SESSION] STATUS, FLUSH STATUS): counters generated from status.def.
 *
 * Cost model, the reason for the three kinds of storage:
 *   - per-session counters (Com_*, Questions, Bytes_sent, Handler_*) are bumped on every statement or packet;
 *     status_inc/status_add touch only the session's own array (a relaxed load and store of an _Atomic uint64_t,
 *     which compiles to a plain add: no lock prefix, no shared cache line).  They are atomics only so that a
 *     SHOW GLOBAL STATUS running on another thread may read them without a data race.
 *   - SHOW GLOBAL STATUS sums: totals of finished sessions + every live session's counters.  Live sessions are
 *     on a list under status_t.lock; a session that ends adds its counters into the totals and leaves the list
 *     under the same lock, so a sum never counts it twice or loses it.  Reading is O(sessions); it is rare.
 *   - server-wide counters and gauges (Connections, Threads_connected, Innodb_*) are relaxed atomics in status_t.
 *   - FUNC/TEXT variables are computed at read time (Uptime here; Memory_used from mem_used(); the rest through
 *     the owner's callback).
 * Lock order: status_t.lock is a leaf; the compute callback is called without it.
 */
#ifndef STRATA_SESSION_STATUS_H
#define STRATA_SESSION_STATUS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

#define ST_KIND_SESS_SESS(id) STATUS_##id,
#define ST_KIND_SESS_GLOBAL(id)
#define ST_KIND_SESS_FUNC(id)
#define ST_KIND_SESS_TEXT(id)
#define ST_KIND_GLOB_SESS(id)
#define ST_KIND_GLOB_GLOBAL(id) STATUS_##id,
#define ST_KIND_GLOB_FUNC(id)
#define ST_KIND_GLOB_TEXT(id)
#define ST_KIND_FUNC_SESS(id)
#define ST_KIND_FUNC_GLOBAL(id)
#define ST_KIND_FUNC_FUNC(id) STATUS_##id,
#define ST_KIND_FUNC_TEXT(id) STATUS_##id,

/* Per-session counters: status_inc(sess, STATUS_COM_SELECT). */
typedef enum status_sess {
#define STATUS(id, name, kind) ST_KIND_SESS_##kind(id)
#include "session/status.def"
#undef STATUS
    STATUS__NSESS
} status_sess_t;

/* Server-wide counters and gauges: status_global_inc(st, STATUS_CONNECTIONS). */
typedef enum status_glob {
#define STATUS(id, name, kind) ST_KIND_GLOB_##kind(id)
#include "session/status.def"
#undef STATUS
    STATUS__NGLOB
} status_glob_t;

/* Computed at read time (FUNC and TEXT): the callback's `which`. */
typedef enum status_func {
#define STATUS(id, name, kind) ST_KIND_FUNC_##kind(id)
#include "session/status.def"
#undef STATUS
    STATUS__NFUNC
} status_func_t;

typedef enum status_kind { STATUS_K_SESS, STATUS_K_GLOBAL, STATUS_K_FUNC, STATUS_K_TEXT } status_kind_t;

typedef struct status_def {
    const char *name;
    status_kind_t kind;
    int slot; /* index in its kind's enum */
} status_def_t;

extern const status_def_t status_defs[];
extern const unsigned status_ndefs;

typedef struct status_session status_session_t;
typedef struct status status_t;

/* Computes a FUNC (*num) or TEXT (append to *out) variable; sess is NULL for SHOW GLOBAL STATUS.  Return true
 * if handled; false falls back to status.c's own (Uptime, Uptime_since_flush_status, Memory_used) or 0/''. */
typedef bool (*status_compute_fn)(void *arg, status_func_t which, const status_session_t *sess, uint64_t *num,
                                  buf_t *out);

struct status_session {
    _Atomic uint64_t c[STATUS__NSESS];
    status_t *st;
    status_session_t *prev, *next; /* live list, under st->lock */
    void *owner;                   /* the session, for the callback */
};

struct status {
    pthread_mutex_t lock;           /* live list and totals */
    status_session_t *live;
    uint64_t done[STATUS__NSESS];   /* counters of finished sessions (and of FLUSHed ones) */
    _Atomic uint64_t g[STATUS__NGLOB];
    uint64_t start_us, flush_us;    /* time_mono_us at start and at the last FLUSH STATUS */
    status_compute_fn compute;
    void *compute_arg;
};

void status_init(status_t *st);
void status_destroy(status_t *st);
void status_set_compute(status_t *st, status_compute_fn fn, void *arg);

/* A session's counters: zeroed and put on the live list at connect; folded into the totals at the end. */
void status_session_init(status_session_t *s, status_t *st, void *owner);
void status_session_end(status_session_t *s);

static inline void status_add(status_session_t *s, status_sess_t id, uint64_t n)
{
    /* single writer: load + store, not an atomic read-modify-write */
    atomic_store_explicit(&s->c[id], atomic_load_explicit(&s->c[id], memory_order_relaxed) + n,
                          memory_order_relaxed);
}
static inline void status_inc(status_session_t *s, status_sess_t id) { status_add(s, id, 1); }
static inline uint64_t status_session_get(const status_session_t *s, status_sess_t id)
{
    return atomic_load_explicit(&s->c[id], memory_order_relaxed);
}

static inline void status_global_add(status_t *st, status_glob_t id, int64_t n)
{
    atomic_fetch_add_explicit(&st->g[id], (uint64_t)n, memory_order_relaxed);
}
static inline void status_global_inc(status_t *st, status_glob_t id) { status_global_add(st, id, 1); }
static inline void status_global_set(status_t *st, status_glob_t id, uint64_t v)
{
    atomic_store_explicit(&st->g[id], v, memory_order_relaxed);
}
static inline uint64_t status_global_get(status_t *st, status_glob_t id)
{
    return atomic_load_explicit(&st->g[id], memory_order_relaxed);
}
/* Raises a high-water mark (Max_used_connections) to v if v is higher. */
void status_global_max(status_t *st, status_glob_t id, uint64_t v);

/* Connection bookkeeping in one call each: Connections++, Threads_connected++, Max_used_connections; and
 * Threads_connected-- on close. */
void status_conn_opened(status_t *st);
void status_conn_closed(status_t *st);

/* Sum of a per-session counter over the server (finished + live sessions). */
uint64_t status_sess_total(status_t *st, status_sess_t id);

/* Case-insensitive lookup, NULL if unknown. */
const status_def_t *status_find(const char *name);

/* SHOW [GLOBAL|SESSION] STATUS [LIKE pattern]: fn for each matching variable in name order, with its value as
 * text.  sess NULL (or global true) gives the server-wide values.  Stops at fn's first non-zero return. */
typedef int (*status_show_fn)(void *arg, const status_def_t *def, const char *value, size_t len);
int status_show(status_t *st, status_session_t *sess, bool global, const char *like, status_show_fn fn, void *arg);
/* The value of one variable as text (appended to out). */
void status_get_text(status_t *st, status_session_t *sess, bool global, const status_def_t *def, buf_t *out);

/* FLUSH STATUS from session sess (may be NULL): its counters go into the totals and restart at 0,
 * Max_used_connections drops to Threads_connected, Uptime_since_flush_status restarts (MariaDB's behaviour:
 * global sums and server-wide counters such as Connections are not reset). */
void status_flush(status_t *st, status_session_t *sess);

#endif
