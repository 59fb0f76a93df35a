/*
 * Status variables: the table generated from status.def, per-session counters on a live list, server-wide
 * atomics, SHOW STATUS and FLUSH STATUS.  See status.h for the cost model and locking.
 */
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "session/status.h"
#include "session/sysvar.h"

const status_def_t status_defs[] = {
#define ST_DEF_SESS(id) STATUS_K_SESS, STATUS_##id
#define ST_DEF_GLOBAL(id) STATUS_K_GLOBAL, STATUS_##id
#define ST_DEF_FUNC(id) STATUS_K_FUNC, STATUS_##id
#define ST_DEF_TEXT(id) STATUS_K_TEXT, STATUS_##id
#define STATUS(id, name, kind) {name, ST_DEF_##kind(id)},
#include "session/status.def"
#undef STATUS
};
const unsigned status_ndefs = ARRAY_LEN(status_defs);

void status_init(status_t *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_init(&st->lock, NULL);
    st->start_us = st->flush_us = time_mono_us();
    for (unsigned i = 1; i < status_ndefs; i++)
        ASSERT(strcasecmp(status_defs[i - 1].name, status_defs[i].name) < 0);
}

void status_destroy(status_t *st) { pthread_mutex_destroy(&st->lock); }

void status_set_compute(status_t *st, status_compute_fn fn, void *arg)
{
    st->compute = fn;
    st->compute_arg = arg;
}

void status_session_init(status_session_t *s, status_t *st, void *owner)
{
    memset(s, 0, sizeof *s);
    s->st = st;
    s->owner = owner;
    pthread_mutex_lock(&st->lock);
    s->next = st->live;
    if (st->live)
        st->live->prev = s;
    st->live = s;
    pthread_mutex_unlock(&st->lock);
}

static void st_fold_locked(status_t *st, status_session_t *s)
{
    for (int i = 0; i < STATUS__NSESS; i++) {
        st->done[i] += atomic_load_explicit(&s->c[i], memory_order_relaxed);
        atomic_store_explicit(&s->c[i], 0, memory_order_relaxed);
    }
}

void status_session_end(status_session_t *s)
{
    status_t *st = s->st;
    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    st_fold_locked(st, s);
    if (s->prev)
        s->prev->next = s->next;
    else
        st->live = s->next;
    if (s->next)
        s->next->prev = s->prev;
    pthread_mutex_unlock(&st->lock);
    s->st = NULL;
    s->prev = s->next = NULL;
}

void status_global_max(status_t *st, status_glob_t id, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(&st->g[id], memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(&st->g[id], &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

void status_conn_opened(status_t *st)
{
    status_global_inc(st, STATUS_CONNECTIONS);
    uint64_t n = atomic_fetch_add_explicit(&st->g[STATUS_THREADS_CONNECTED], 1, memory_order_relaxed) + 1;
    status_global_max(st, STATUS_MAX_USED_CONNECTIONS, n);
}

void status_conn_closed(status_t *st) { status_global_add(st, STATUS_THREADS_CONNECTED, -1); }

/* Sums every per-session counter at once into sum[] (one pass over the live list). */
static void st_sum_all(status_t *st, uint64_t *sum)
{
    pthread_mutex_lock(&st->lock);
    memcpy(sum, st->done, sizeof st->done);
    for (status_session_t *s = st->live; s; s = s->next)
        for (int i = 0; i < STATUS__NSESS; i++)
            sum[i] += atomic_load_explicit(&s->c[i], memory_order_relaxed);
    pthread_mutex_unlock(&st->lock);
}

uint64_t status_sess_total(status_t *st, status_sess_t id)
{
    pthread_mutex_lock(&st->lock);
    uint64_t v = st->done[id];
    for (status_session_t *s = st->live; s; s = s->next)
        v += atomic_load_explicit(&s->c[id], memory_order_relaxed);
    pthread_mutex_unlock(&st->lock);
    return v;
}

const status_def_t *status_find(const char *name)
{
    size_t lo = 0, hi = status_ndefs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcasecmp(name, status_defs[mid].name);
        if (c == 0)
            return &status_defs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* Value of one variable; sum is the precomputed global sums for SESS kinds (NULL: compute this one). */
static void st_text(status_t *st, status_session_t *sess, bool global, const status_def_t *def,
                    const uint64_t *sum, buf_t *out)
{
    uint64_t v = 0;
    switch (def->kind) {
    case STATUS_K_SESS:
        if (!global && sess)
            v = status_session_get(sess, (status_sess_t)def->slot);
        else
            v = sum ? sum[def->slot] : status_sess_total(st, (status_sess_t)def->slot);
        break;
    case STATUS_K_GLOBAL:
        v = status_global_get(st, (status_glob_t)def->slot);
        break;
    case STATUS_K_FUNC:
        if (st->compute && st->compute(st->compute_arg, (status_func_t)def->slot, global ? NULL : sess, &v, out))
            break;
        switch ((status_func_t)def->slot) {
        case STATUS_UPTIME: v = (time_mono_us() - st->start_us) / 1000000; break;
        case STATUS_UPTIME_SINCE_FLUSH_STATUS: v = (time_mono_us() - st->flush_us) / 1000000; break;
        case STATUS_MEMORY_USED: v = (uint64_t)mem_used(); break;
        default: v = 0; break;
        }
        break;
    case STATUS_K_TEXT:
        if (st->compute)
            st->compute(st->compute_arg, (status_func_t)def->slot, global ? NULL : sess, &v, out);
        return;
    }
    buf_printf(out, "%" PRIu64, v);
}

void status_get_text(status_t *st, status_session_t *sess, bool global, const status_def_t *def, buf_t *out)
{
    st_text(st, sess, global, def, NULL, out);
}

int status_show(status_t *st, status_session_t *sess, bool global, const char *like, status_show_fn fn, void *arg)
{
    if (!sess)
        global = true;
    uint64_t *sum = NULL;
    if (global) {
        sum = mem_alloc(sizeof(uint64_t) * STATUS__NSESS);
        st_sum_all(st, sum);
    }
    buf_t b;
    buf_init(&b);
    int rc = 0;
    for (unsigned i = 0; i < status_ndefs && rc == 0; i++) {
        const status_def_t *def = &status_defs[i];
        if (like && !sysvar_like(like, def->name))
            continue;
        buf_reset(&b);
        st_text(st, sess, global, def, sum, &b);
        buf_append_byte(&b, 0);
        rc = fn(arg, def, (const char *)b.data, b.len - 1);
    }
    buf_free(&b);
    mem_free(sum);
    return rc;
}

void status_flush(status_t *st, status_session_t *sess)
{
    pthread_mutex_lock(&st->lock);
    if (sess)
        st_fold_locked(st, sess);
    st->flush_us = time_mono_us();
    pthread_mutex_unlock(&st->lock);
    status_global_set(st, STATUS_MAX_USED_CONNECTIONS, status_global_get(st, STATUS_THREADS_CONNECTED));
}
