/*
 * The general and slow query logs (qlog.h has the formats).  Two logs, each a file descriptor opened O_APPEND
 * and a mutex; a record is built in a stack or heap buffer and appended with one write(2).  Times are local
 * time, as MariaDB prints them; "the previous record's second" is per log, as in MariaDB (its last_time).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/qlog.h"
#include "util/fio.h"
#include "util/util.h"

typedef struct qlog_file {
    pthread_mutex_t mu;
    int fd;                /* -1 when closed */
    atomic_bool open;      /* fd >= 0, for the lock-free test of callers */
    char *path;
    time_t last_sec;       /* the second of the previous record (0: none yet) */
} qlog_file_t;

static qlog_file_t g_logs[2] = {
    {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1},
    {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1},
};

static struct {
    pthread_mutex_t mu;
    char version[128];
    unsigned port;
    char socket[256];
} g_ident = {.mu = PTHREAD_MUTEX_INITIALIZER, .version = "", .port = 0, .socket = ""};

void qlog_set_identity(const char *version, unsigned port, const char *socket)
{
    pthread_mutex_lock(&g_ident.mu);
    snprintf(g_ident.version, sizeof g_ident.version, "%s", version ? version : "");
    g_ident.port = port;
    snprintf(g_ident.socket, sizeof g_ident.socket, "%s", socket ? socket : "");
    pthread_mutex_unlock(&g_ident.mu);
}

/* 0, or -1 with errno set (the callers report errno). */
static int write_all(int fd, const char *p, size_t n)
{
    int rc = fio_pwrite(FIO_QLOG, fd, p, n, -1);
    if (rc)
        errno = -rc;
    return rc ? -1 : 0;
}

/* Opens path and writes the header (f->mu held).  0 or -errno. */
static int file_open_locked(qlog_file_t *f, const char *path)
{
    int fd = fio_open(FIO_QLOG, path, O_WRONLY | O_CREAT | O_APPEND, 0660);
    if (fd < 0)
        return fd;
    buf_t h;
    buf_init(&h);
    pthread_mutex_lock(&g_ident.mu);
    buf_printf(&h, "stratad, Version: %s (strata). started with:\nTcp port: %u  Unix socket: %s\n", g_ident.version,
               g_ident.port, g_ident.socket);
    pthread_mutex_unlock(&g_ident.mu);
    buf_append_str(&h, "Time\t\t    Id Command\tArgument\n");
    int rc = write_all(fd, (const char *)h.data, h.len) ? -errno : 0;
    buf_free(&h);
    if (rc) {
        close(fd);
        return rc ? rc : -EIO;
    }
    f->fd = fd;
    f->last_sec = 0;
    atomic_store(&f->open, true);
    return 0;
}

static void file_close_locked(qlog_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    atomic_store(&f->open, false);
}

int qlog_open(qlog_kind_t kind, const char *path)
{
    qlog_file_t *f = &g_logs[kind];
    int rc = 0;
    pthread_mutex_lock(&f->mu);
    if (path && f->fd >= 0 && f->path && strcmp(f->path, path) == 0) {
        pthread_mutex_unlock(&f->mu);
        return 0;
    }
    file_close_locked(f);
    mem_free(f->path);
    f->path = NULL;
    if (path) {
        rc = file_open_locked(f, path);
        if (rc == 0)
            f->path = mem_strdup(path);
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

int qlog_reopen(qlog_kind_t kind)
{
    qlog_file_t *f = &g_logs[kind];
    int rc = 0;
    pthread_mutex_lock(&f->mu);
    if (f->path) {
        file_close_locked(f);
        rc = file_open_locked(f, f->path);
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

bool qlog_is_open(qlog_kind_t kind)
{
    return atomic_load_explicit(&g_logs[kind].open, memory_order_relaxed);
}

void qlog_close_all(void)
{
    for (int k = 0; k < 2; k++)
        qlog_open((qlog_kind_t)k, NULL);
}

/* "YYMMDD HH:MM:SS" of t, local time. */
static void fmt_time(time_t t, char out[32])
{
    struct tm tm;
    localtime_r(&t, &tm);
    snprintf(out, 32, "%02d%02d%02d %2d:%02d:%02d", tm.tm_year % 100, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec);
}

/* Appends rec to the log (its mutex taken by the caller, who filled rec under it). */
static void file_append_locked(qlog_file_t *f, const buf_t *rec)
{
    if (f->fd < 0)
        return;
    if (write_all(f->fd, (const char *)rec->data, rec->len) != 0) {
        /* a full or failing disk: the log stops (MariaDB closes it too) and says so once */
        log_error("Could not write to %s: %s; the log is closed (FLUSH LOGS or SET GLOBAL reopens it)",
                  f->path ? f->path : "?", strerror(errno));
        file_close_locked(f);
    }
}

/* Takes the log's mutex and starts a record with its time when the second changed since the previous record:
 * fmt holds the time's place (%s), other is written otherwise.  The caller appends and unlocks. */
static void record_begin(qlog_file_t *f, buf_t *r, const char *fmt, const char *other)
{
    time_t now = time(NULL);
    pthread_mutex_lock(&f->mu);
    if (now != f->last_sec) {
        char ts[32];
        fmt_time(now, ts);
        buf_printf(r, fmt, ts);
        f->last_sec = now;
    } else {
        buf_append_str(r, other);
    }
}

void qlog_general(uint32_t thread_id, const char *command, const char *arg, size_t len)
{
    qlog_file_t *f = &g_logs[QLOG_GENERAL];
    if (!qlog_is_open(QLOG_GENERAL))
        return;
    buf_t r;
    buf_init(&r);
    record_begin(f, &r, "%s\t", "\t\t");
    buf_printf(&r, "%6u %s\t", thread_id, command);
    if (arg && len)
        buf_append(&r, arg, len);
    buf_append_str(&r, "\n");
    file_append_locked(f, &r);
    pthread_mutex_unlock(&f->mu);
    buf_free(&r);
}

static const char *yes_no(bool b) { return b ? "Yes" : "No"; }

void qlog_slow(const qlog_slow_t *e)
{
    qlog_file_t *f = &g_logs[QLOG_SLOW];
    if (!qlog_is_open(QLOG_SLOW))
        return;
    buf_t r;
    buf_init(&r);
    record_begin(f, &r, "# Time: %s\n", "");
    buf_printf(&r, "# User@Host: %s[%s] @ %s [%s]\n", e->priv_user, e->user, e->host, e->ip);
    buf_printf(&r, "# Thread_id: %u  Schema: %s  QC_hit: No\n", e->thread_id, e->db);
    buf_printf(&r, "# Query_time: %.6f  Lock_time: %.6f  Rows_sent: %llu  Rows_examined: %llu\n",
               (double)e->query_us / 1e6, (double)e->lock_us / 1e6, (unsigned long long)e->rows_sent,
               (unsigned long long)e->rows_examined);
    buf_printf(&r, "# Rows_affected: %llu  Bytes_sent: %llu\n", (unsigned long long)e->rows_affected,
               (unsigned long long)e->bytes_sent);
    if (e->query_plan) {
        buf_printf(&r, "# Full_scan: %s  Full_join: %s  Tmp_table: %s  Tmp_table_on_disk: %s\n", yes_no(e->full_scan),
                   yes_no(e->full_join), yes_no(e->tmp_table), yes_no(e->tmp_table_on_disk));
        buf_printf(&r, "# Filesort: %s  Filesort_on_disk: %s  Merge_passes: %llu  Priority_queue: %s\n",
                   yes_no(e->filesort), yes_no(e->filesort_on_disk), (unsigned long long)e->merge_passes,
                   yes_no(e->priority_queue));
    }
    if (e->db_changed && e->db[0])
        buf_printf(&r, "use `%s`;\n", e->db);
    buf_printf(&r, "SET timestamp=%llu;\n", (unsigned long long)(e->start_us / 1000000u));
    buf_append(&r, e->text, e->len);
    buf_append_str(&r, ";\n");
    file_append_locked(f, &r);
    pthread_mutex_unlock(&f->mu);
    buf_free(&r);
}
