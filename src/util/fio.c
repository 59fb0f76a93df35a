/*
 * util/fio: file I/O helpers with EINTR and short-transfer handling, and (test builds) the fault seam (fio.h).
 *
 * The seam is a short list of rules, each with its own counter, under one mutex: the I/O paths that reach it
 * are not hot enough in a test build for that to matter, and a release build compiles none of it.
 */
#include "util/fio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#ifdef STRATA_FAULTS
static int check(fio_class_t c, fio_op_t op) { return fault_check(c, op); }
#else
static int check(fio_class_t c, fio_op_t op) { return 0; }
#endif

static _Atomic bool read_only;

void fio_set_read_only(bool on) { atomic_store(&read_only, on); }

bool fio_read_only(fio_class_t c)
{
    return atomic_load(&read_only) && (c == FIO_DATA || c == FIO_UNDO || c == FIO_REDO || c == FIO_BINLOG ||
                                       c == FIO_ACCOUNTS || c == FIO_CATALOG || c == FIO_TLS);
}

int fio_open(fio_class_t c, const char *path, int flags, mode_t mode)
{
    int rc = check(c, FIO_OPEN);
    if (rc)
        return rc;
    if (fio_read_only(c)) {
        if (flags & (O_CREAT | O_TRUNC))
            return -EROFS;
        if ((flags & O_ACCMODE) != O_RDONLY)
            flags = (flags & ~O_ACCMODE) | O_RDONLY;
    }
    int fd;
    do
        fd = open(path, flags | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

void *fio_direct_buf(size_t n)
{
    void *b = NULL;
    return posix_memalign(&b, FIO_DIRECT_ALIGN, n) ? NULL : b;
}

int fio_pwrite(fio_class_t c, int fd, const void *p, size_t n, int64_t off)
{
    int rc = check(c, FIO_WRITE);
    if (rc)
        return rc;
    if (fio_read_only(c))
        return -EROFS;
    const uint8_t *b = p;
    while (n) {
        ssize_t w = off < 0 ? write(fd, b, n) : pwrite(fd, b, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (w == 0)
            return -ENOSPC;
        b += w;
        n -= (size_t)w;
        if (off >= 0)
            off += w;
    }
    return 0;
}

int fio_pread(fio_class_t c, int fd, void *p, size_t n, int64_t off, size_t *got)
{
    int rc = check(c, FIO_READ);
    if (rc)
        return rc;
    uint8_t *b = p;
    size_t done = 0;
    while (done < n) {
        ssize_t r = off < 0 ? read(fd, b + done, n - done) : pread(fd, b + done, n - done, (off_t)off + (off_t)done);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            break;
        done += (size_t)r;
    }
    if (got)
        *got = done;
    return 0;
}

int fio_fsync(fio_class_t c, int fd)
{
    int rc = check(c, FIO_SYNC);
    return rc ? rc : fsync(fd) ? -errno : 0;
}

int fio_fdatasync(fio_class_t c, int fd)
{
    int rc = check(c, FIO_SYNC);
    return rc ? rc : fdatasync(fd) ? -errno : 0;
}

int fio_fsync_dir(fio_class_t c, const char *dir)
{
    int rc = check(c, FIO_SYNC);
    if (rc)
        return rc;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    rc = fsync(fd) ? -errno : 0;
    close(fd);
    return rc;
}

int fio_allocate(fio_class_t c, int fd, uint64_t off, uint64_t len)
{
    int rc = check(c, FIO_WRITE);
    if (rc)
        return rc;
    if (fio_read_only(c))
        return -EROFS;
    if (!len)
        return 0;
    rc = posix_fallocate(fd, (off_t)off, (off_t)len);
    if (rc != EOPNOTSUPP && rc != EINVAL)
        return -rc;
    /* No fallocate here (tmpfs of old kernels, some FUSE): zeros, 1 MiB at a time, from a page-aligned buffer
     * (the file may be open with O_DIRECT). */
    void *z = fio_direct_buf(1 << 20);
    if (!z)
        return -ENOMEM;
    memset(z, 0, 1 << 20);
    rc = 0;
    for (uint64_t at = off; at < off + len && !rc; at += 1 << 20)
        rc = fio_pwrite(c, fd, z, (size_t)MIN((uint64_t)1 << 20, off + len - at), (int64_t)at);
    free(z);
    return rc;
}

int fio_ftruncate(fio_class_t c, int fd, uint64_t len)
{
    /* Cutting a file needs no space (it is how a torn write is taken back on a full disk): only growth counts
     * as a write for the seam. */
    struct stat st;
    int rc = fstat(fd, &st) == 0 && (uint64_t)st.st_size >= len ? 0 : check(c, FIO_WRITE);
    if (!rc && fio_read_only(c))
        rc = -EROFS;
    return rc ? rc : ftruncate(fd, (off_t)len) ? -errno : 0;
}

int fio_replace_file(fio_class_t c, const char *dir, const char *path, const void *data, size_t len, mode_t mode)
{
    if (fio_read_only(c))
        return -EROFS;
    size_t n = strlen(path) + 5;
    char *tmp = mem_alloc(n);
    snprintf(tmp, n, "%s.tmp", path);
    int rc = 0, fd = fio_open(c, tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) {
        rc = fd;
        goto out;
    }
    rc = fio_pwrite(c, fd, data, len, 0);
    if (!rc)
        rc = fio_fsync(c, fd);
    close(fd);
    if (!rc && rename(tmp, path))
        rc = -errno;
    if (!rc)
        rc = fio_fsync_dir(c, dir);
    else
        unlink(tmp);
out:
    mem_free(tmp);
    return rc;
}

FILE *fio_fopen_read(fio_class_t c, const char *path)
{
    int rc = check(c, FIO_OPEN);
    if (!rc)
        rc = check(c, FIO_READ);
    if (rc) {
        errno = -rc;
        return NULL;
    }
    return fopen(path, "re");
}

int fio_read_file(fio_class_t c, const char *path, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    int fd = fio_open(c, path, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    struct stat st;
    int rc = fstat(fd, &st) ? -errno : 0;
    if (!rc) {
        size_t cap = (size_t)st.st_size;
        char *b = mem_alloc(cap + 1);
        if (!(rc = fio_pread(c, fd, b, cap, 0, len))) {
            b[*len] = 0;
            *data = b;
        } else {
            mem_free(b);
        }
    }
    close(fd);
    return rc;
}

/* ---------------------------------------------------------------- the fault seam (test builds) */
#ifdef STRATA_FAULTS

#define FAULT_RULES 16

typedef enum { ACT_ERR, ACT_EXIT, ACT_KILL, ACT_ON } fault_act_t;

typedef struct {
    int cls;           /* fio_class_t, -1 any, -2 a named point */
    int op;            /* fio_op_t, -1 any */
    char point[64];
    uint64_t n, seen;
    bool from;         /* N+: the Nth and all later */
    fault_act_t act;
    int err;           /* -ENOSPC / -EIO for ACT_ERR */
} fault_rule_t;

static const char *const class_names[FIO__CLASSES] = {"data", "undo", "redo", "binlog", "temp",
                                                       "accounts", "catalog", "tls", "qlog", "other"};
static const char *const op_names[FIO__OPS] = {"open", "write", "read", "sync"};

static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER;
static fault_rule_t rules[FAULT_RULES];
static int nrules;
static _Atomic int armed; /* nrules, read without the mutex on the fast path */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static int lookup(const char *s, size_t len, const char *const *names, int n)
{
    if (len == 3 && !memcmp(s, "any", 3))
        return -1;
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && !memcmp(s, names[i], len))
            return i;
    return -3;
}

static int parse_rule(const char *s, size_t len, fault_rule_t *r, char *err, size_t errlen)
{
    const char *f[4];
    size_t fl[4];
    int nf = 0;
    const char *p = s, *end = s + len;
    while (nf < 4) {
        const char *c = nf < 3 ? memchr(p, ':', (size_t)(end - p)) : NULL;
        f[nf] = p;
        fl[nf] = (size_t)((c ? c : end) - p);
        nf++;
        if (!c)
            break;
        p = c + 1;
    }
    if (nf != 4) {
        snprintf(err, errlen, "'%.*s': a rule is CLASS:OP:N:ACTION or point:NAME:N:ACTION", (int)len, s);
        return -1;
    }
    memset(r, 0, sizeof *r);
    if (fl[0] == 5 && !memcmp(f[0], "point", 5)) {
        r->cls = -2;
        if (!fl[1] || fl[1] >= sizeof r->point) {
            snprintf(err, errlen, "'%.*s': bad point name", (int)len, s);
            return -1;
        }
        memcpy(r->point, f[1], fl[1]);
    } else if ((r->cls = lookup(f[0], fl[0], class_names, FIO__CLASSES)) == -3 ||
               (r->op = lookup(f[1], fl[1], op_names, FIO__OPS)) == -3) {
        snprintf(err, errlen, "'%.*s': unknown file class or operation", (int)len, s);
        return -1;
    }
    if (fl[2] == 1 && f[2][0] == '*') {
        r->n = 1;
        r->from = true;
    } else {
        char num[24] = {0};
        size_t k = fl[2];
        if (k && f[2][k - 1] == '+') {
            r->from = true;
            k--;
        }
        char *e;
        if (!k || k >= sizeof num || (memcpy(num, f[2], k), r->n = strtoull(num, &e, 10), *e) || !r->n) {
            snprintf(err, errlen, "'%.*s': N is a count from 1, N+ or *", (int)len, s);
            return -1;
        }
    }
    struct { const char *name; fault_act_t act; int err; } acts[] = {
        {"ENOSPC", ACT_ERR, -ENOSPC}, {"EIO", ACT_ERR, -EIO}, {"EXIT", ACT_EXIT, 0}, {"KILL", ACT_KILL, 0},
        {"ON", ACT_ON, 0}};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (strlen(acts[i].name) == fl[3] && !memcmp(f[3], acts[i].name, fl[3])) {
            r->act = acts[i].act;
            r->err = acts[i].err;
            return 0;
        }
    snprintf(err, errlen, "'%.*s': the action is ENOSPC, EIO, EXIT, KILL or ON", (int)len, s);
    return -1;
}

int fault_set(const char *spec, char *err, size_t errlen)
{
    fault_rule_t nr[FAULT_RULES];
    int n = 0;
    const char *p = spec ? spec : "";
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len) {
            if (n == FAULT_RULES) {
                snprintf(err, errlen, "at most %d rules", FAULT_RULES);
                return -1;
            }
            if (parse_rule(p, len, &nr[n], err, errlen))
                return -1;
            n++;
        }
        p += len + (c != NULL);
    }
    pthread_mutex_lock(&fault_mu);
    memcpy(rules, nr, sizeof nr[0] * (size_t)n);
    nrules = n;
    armed = n;
    pthread_mutex_unlock(&fault_mu);
    return 0;
}

static void env_load(void)
{
    const char *s = getenv("STRATA_FAULT");
    char err[256];
    if (s && *s && fault_set(s, err, sizeof err))
        log_error("fault: STRATA_FAULT ignored: %s", err);
    else if (s && *s)
        log_warn("fault: STRATA_FAULT='%s' is armed (test build)", s);
}

/* Counts the call against the first rule it matches; acts when that rule's count is reached. */
static int fire(int cls, int op, const char *point)
{
    pthread_once(&env_once, env_load);
    if (!armed)
        return 0;
    int rc = 0;
    fault_act_t act = ACT_ERR;
    char what[96] = {0};
    pthread_mutex_lock(&fault_mu);
    for (int i = 0; i < nrules; i++) {
        fault_rule_t *r = &rules[i];
        bool match = point ? r->cls == -2 && !strcmp(r->point, point)
                           : r->cls != -2 && (r->cls == -1 || r->cls == cls) && (r->op == -1 || r->op == op);
        if (!match)
            continue;
        r->seen++;
        if (r->seen == r->n || (r->from && r->seen > r->n)) {
            act = r->act;
            rc = r->act == ACT_ERR ? r->err : 1;
            if (point)
                snprintf(what, sizeof what, "point %s", point);
            else
                snprintf(what, sizeof what, "%s %s", class_names[cls], op_names[op]);
        }
        break;
    }
    pthread_mutex_unlock(&fault_mu);
    if (!rc)
        return 0;
    if (act == ACT_EXIT || act == ACT_KILL) {
        log_error("fault: %s: stopping the process (%s)", what, act == ACT_EXIT ? "_exit" : "SIGKILL");
        if (act == ACT_KILL)
            kill(getpid(), SIGKILL);
        _exit(99);
    }
    return rc;
}

int fault_check(fio_class_t c, fio_op_t op) { return fire((int)c, (int)op, NULL); }
int fault_point(const char *name) { return fire(-2, -1, name); }

#endif
