/*
 * tests/powerloss: an LD_PRELOAD shim that simulates a power cut under a running server (tests only).
 *
 * The idea (SQLite's crash-test VFS, done below the process instead of inside it): every write the process
 * makes to a regular file under POWERLOSS_DIR is journaled with the bytes it overwrote, per file, until an
 * fsync or fdatasync of that file covers it.  At the simulated power loss the shim takes the journal lock (so
 * no write or sync is half done), writes every journaled pre-image back in reverse order and cuts each file to
 * the size it had at its last sync: the files are then exactly what a disk that lost its volatile cache would
 * hold.  Optionally the last write to a file whose path contains POWERLOSS_TEAR is then torn: the front of it
 * (all but the second half of its last page) is written again with the new bytes, so the page on disk is half
 * new, half old, as a sector-atomic disk can leave it.  Then the process _exit()s with status 86.
 *
 * Environment:
 *   POWERLOSS_DIR    the directory whose files are journaled (the data directory); unset: the shim does nothing
 *   POWERLOSS_CTL    a control file, read at start and polled every 2 ms; its content is taken, and the file
 *                    removed:  "now"  the power goes now;  "N"  at the Nth journaled write (of a file matching
 *                    POWERLOSS_TEAR, when set) from now, which is then the one torn
 *   POWERLOSS_TEAR   a path substring (e.g. ".dat"): tear the last unsynced write to such a file
 *   POWERLOSS_PAGE   page size for the tear (default 16384)
 * A line "powerloss: ..." on stderr says what was thrown away and what was torn.
 *
 * What is modelled: data and file sizes (pwrite, write, ftruncate, posix_fallocate, open with O_TRUNC); a write
 * through a descriptor opened with O_DSYNC or O_SYNC is durable when it returns.  Not
 * modelled: directory entries (create, rename, unlink are taken as durable at once: the server syncs the
 * directory after each of those it relies on) and writes through mmap or stdio (the server makes none to its
 * data directory).  Under the journal lock all journaled writes are serialised, which is slow but exact.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct jent {
    int64_t off;      /* where the pre-image goes back */
    size_t len;
    uint8_t *old;     /* len bytes that the write replaced */
    uint64_t seq;     /* global write order */
    struct jent *next;
} jent_t;

typedef struct pfile {
    dev_t dev;
    ino_t ino;
    int fd;                /* our own descriptor: keeps the inode alive (no reuse) and is where we restore */
    bool tracked;          /* under POWERLOSS_DIR */
    bool tearable;         /* path matches POWERLOSS_TEAR */
    char path[512];
    int64_t synced_size;   /* size at the last sync that covered every journaled write */
    uint64_t synced_seq;   /* writes numbered up to this are durable */
    jent_t *head;          /* newest first */
    struct pfile *next;
} pfile_t;

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_posix_fallocate)(int, off_t, off_t);
static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pfile_t *files;
static char dir[512];
static size_t dirlen;
static const char *tear_pat;
static char ctl[512];
static size_t page_size = 16384;
static uint64_t seq;
static long countdown = -1; /* writes left before the power goes (-1: not armed) */

/* The tear candidate: a copy of the newest write to a tearable file. */
static struct {
    pfile_t *f;
    uint64_t seq;
    int64_t off;
    size_t len;
    uint8_t *data;
} last;

static void resolve(void)
{
    if (real_pwrite)
        return;
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_write = dlsym(RTLD_NEXT, "write");
    real_pread = dlsym(RTLD_NEXT, "pread");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    real_posix_fallocate = dlsym(RTLD_NEXT, "posix_fallocate");
    real_open = dlsym(RTLD_NEXT, "open");
    real_openat = dlsym(RTLD_NEXT, "openat");
}

static void say(const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n > 0)
        real_write(2, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* The file record for the inode of fd (st: its fstat, a regular file), made on first sight (mu held). */
static pfile_t *lookup(int fd, struct stat *st)
{
    for (pfile_t *f = files; f; f = f->next)
        if (f->dev == st->st_dev && f->ino == st->st_ino)
            return f;
    pfile_t *f = calloc(1, sizeof *f);
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    f->fd = -1;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, f->path, sizeof f->path - 1);
    if (n > 0) {
        f->path[n] = 0;
        f->tracked = strncmp(f->path, dir, dirlen) == 0 && (f->path[dirlen] == '/' || f->path[dirlen] == 0);
        f->tearable = f->tracked && tear_pat && strstr(f->path, tear_pat);
    }
    if (f->tracked) {
        /* A description of our own, read-write and without O_APPEND (a pwrite on an O_APPEND descriptor
         * appends), so pre-images can be read from write-only files and put back where they were. */
        f->fd = real_open(link, O_RDWR | O_CLOEXEC);
        if (f->fd < 0)
            f->tracked = false;
    }
    f->synced_size = st->st_size;
    f->next = files;
    files = f;
    return f;
}

/* Journals the bytes [off, off+len) of f that exist now (mu held). */
static void journal(pfile_t *f, int64_t size, int64_t off, size_t len)
{
    seq++;
    if (off >= size || !len)
        return;
    size_t n = (size_t)(off + (int64_t)len > size ? size - off : (int64_t)len);
    jent_t *j = malloc(sizeof *j);
    j->off = off;
    j->len = n;
    j->old = malloc(n);
    j->seq = seq;
    ssize_t got = real_pread(f->fd, j->old, n, off);
    if (got < (ssize_t)n)
        memset(j->old + (got > 0 ? got : 0), 0, n - (size_t)(got > 0 ? got : 0));
    j->next = f->head;
    f->head = j;
}

static void remember(pfile_t *f, const void *p, size_t n, int64_t off)
{
    if (!f->tearable || n < 2)
        return;
    free(last.data);
    last.data = malloc(n);
    memcpy(last.data, p, n);
    last.f = f;
    last.seq = seq;
    last.off = off;
    last.len = n;
}


/* The power goes (mu held): every file back to its synced state, the tear, _exit. */
static void power_loss(const char *why)
{
    int nfiles = 0;
    size_t bytes = 0, cut = 0;
    for (pfile_t *f = files; f; f = f->next) {
        if (!f->tracked || f->fd < 0)
            continue;
        struct stat st;
        bool touched = f->head != NULL || (fstat(f->fd, &st) == 0 && st.st_size != f->synced_size);
        for (jent_t *j = f->head; j; j = j->next) {
            real_pwrite(f->fd, j->old, j->len, j->off);
            bytes += j->len;
        }
        if (touched) {
            if (fstat(f->fd, &st) == 0 && st.st_size > f->synced_size)
                cut += (size_t)(st.st_size - f->synced_size);
            real_ftruncate(f->fd, f->synced_size);
            nfiles++;
        }
    }
    char torn[700] = "none";
    if (last.f && last.seq > last.f->synced_seq) {
        size_t keep = last.len >= page_size ? last.len - page_size / 2 : last.len / 2;
        real_pwrite(last.f->fd, last.data, keep, last.off);
        snprintf(torn, sizeof torn, "%s at %lld (%zu of %zu bytes new)", last.f->path, (long long)last.off, keep,
                 last.len);
    }
    say("powerloss: %s: %d file(s) back to their last sync, %zu byte(s) of unsynced overwrites taken back, %zu "
        "byte(s) of unsynced growth cut, torn: %s\n", why, nfiles, bytes, cut, torn);
    _exit(86);
}

/* Reads the control file (mu held): arms the countdown (a number), disarms it ("off") or cuts the power ("now"). */
static void read_ctl(void)
{
    if (!ctl[0])
        return;
    int fd = real_open(ctl, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char b[64] = {0};
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    if (n <= 0)
        return; /* not written yet */
    unlink(ctl);
    if (strncmp(b, "now", 3) == 0)
        power_loss("power cut on request");
    if (strncmp(b, "off", 3) == 0) { /* disarm: the process outlived the countdown it was given */
        countdown = -1;
        return;
    }
    long v = strtol(b, NULL, 10);
    if (v > 0)
        countdown = v;
}

static void *poller(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        if (access(ctl, F_OK) == 0) {
            pthread_mutex_lock(&mu);
            read_ctl();
            pthread_mutex_unlock(&mu);
        }
    }
    return NULL;
}

__attribute__((constructor)) static void init(void)
{
    resolve();
    const char *d = getenv("POWERLOSS_DIR");
    if (!d || !*d)
        return;
    if (!realpath(d, dir))
        snprintf(dir, sizeof dir, "%s", d);
    dirlen = strlen(dir);
    tear_pat = getenv("POWERLOSS_TEAR");
    if (tear_pat && !*tear_pat)
        tear_pat = NULL;
    const char *p = getenv("POWERLOSS_PAGE");
    if (p && atol(p) >= 512)
        page_size = (size_t)atol(p);
    const char *c = getenv("POWERLOSS_CTL");
    if (c && *c) {
        snprintf(ctl, sizeof ctl, "%s", c);
        pthread_mutex_lock(&mu);
        read_ctl();
        pthread_mutex_unlock(&mu);
        pthread_t t;
        pthread_create(&t, NULL, poller, NULL);
        pthread_detach(t);
    }
}

/* The armed countdown, after a journaled write (mu held). */
static void tick(pfile_t *f)
{
    if (countdown > 0 && (!tear_pat || f->tearable) && --countdown == 0)
        power_loss("power cut at the armed write");
}

/* A write through an O_DSYNC (or O_SYNC) descriptor is durable when it returns: it leaves the journal at once
 * (it was journaled last, so it heads the list), is never torn, and growth it made stays. */
static void dsync_done(pfile_t *f, int64_t at, ssize_t w)
{
    jent_t *j = f->head;
    if (j && j->seq == seq) {
        f->head = j->next;
        free(j->old);
        free(j);
    }
    if (last.f == f && last.seq == seq)
        last.f = NULL;
    if (at + w > f->synced_size)
        f->synced_size = at + w;
}

static ssize_t do_write(int fd, const void *p, size_t n, int64_t off)
{
    resolve();
    struct stat st;
    if (!dirlen || fstat(fd, &st) || !S_ISREG(st.st_mode))
        return off < 0 ? real_write(fd, p, n) : real_pwrite(fd, p, n, (off_t)off);
    pthread_mutex_lock(&mu);
    fstat(fd, &st); /* again under the lock: the size another writer may just have changed */
    pfile_t *f = lookup(fd, &st);
    if (!f->tracked) {
        pthread_mutex_unlock(&mu);
        return off < 0 ? real_write(fd, p, n) : real_pwrite(fd, p, n, (off_t)off);
    }
    int64_t at = off;
    if (at < 0)
        at = (fcntl(fd, F_GETFL) & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
    journal(f, st.st_size, at, n);
    remember(f, p, n, at);
    ssize_t w = off < 0 ? real_write(fd, p, n) : real_pwrite(fd, p, n, (off_t)off);
    int e = errno;
    if (w > 0 && (fcntl(fd, F_GETFL) & O_DSYNC))
        dsync_done(f, at, w);
    tick(f);
    pthread_mutex_unlock(&mu);
    errno = e;
    return w;
}

ssize_t pwrite(int fd, const void *p, size_t n, off_t off) { return do_write(fd, p, n, off); }
ssize_t pwrite64(int fd, const void *p, size_t n, off_t off) { return do_write(fd, p, n, off); }
ssize_t write(int fd, const void *p, size_t n) { return do_write(fd, p, n, -1); }

static void free_journal(pfile_t *f, uint64_t upto)
{
    jent_t **pp = &f->head;
    while (*pp) {
        jent_t *j = *pp;
        if (j->seq <= upto) {
            *pp = j->next;
            free(j->old);
            free(j);
        } else {
            pp = &j->next;
        }
    }
}

/* A sync covers every write made before it began: those leave the journal once it returns. */
static int do_sync(int fd, int (*real)(int))
{
    resolve();
    struct stat st;
    if (!dirlen || fstat(fd, &st) || !S_ISREG(st.st_mode))
        return real(fd);
    pthread_mutex_lock(&mu);
    fstat(fd, &st);
    pfile_t *f = lookup(fd, &st);
    uint64_t upto = seq;
    int64_t size = st.st_size;
    pthread_mutex_unlock(&mu);
    int rc = real(fd);
    int e = errno;
    if (rc == 0 && f->tracked) {
        pthread_mutex_lock(&mu);
        free_journal(f, upto);
        f->synced_size = size;
        if (upto > f->synced_seq)
            f->synced_seq = upto;
        pthread_mutex_unlock(&mu);
    }
    errno = e;
    return rc;
}

int fsync(int fd) { return do_sync(fd, real_fsync ? real_fsync : (resolve(), real_fsync)); }
int fdatasync(int fd) { return do_sync(fd, real_fdatasync ? real_fdatasync : (resolve(), real_fdatasync)); }

static int do_truncate(int fd, off_t len)
{
    resolve();
    struct stat st;
    if (!dirlen || fstat(fd, &st) || !S_ISREG(st.st_mode))
        return real_ftruncate(fd, len);
    pthread_mutex_lock(&mu);
    fstat(fd, &st);
    pfile_t *f = lookup(fd, &st);
    if (f->tracked)
        journal(f, st.st_size, len, st.st_size > len ? (size_t)(st.st_size - len) : 0);
    int rc = real_ftruncate(fd, len);
    int e = errno;
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

int ftruncate(int fd, off_t len) { return do_truncate(fd, len); }
int ftruncate64(int fd, off_t len) { return do_truncate(fd, len); }

/* fallocate never changes bytes that exist, it only grows the file: undone by the cut to the synced size.
 * (It still takes the lock, so that it cannot land after a power loss has restored the file.) */
static int do_fallocate(int fd, off_t off, off_t len)
{
    resolve();
    struct stat st;
    if (!dirlen || fstat(fd, &st) || !S_ISREG(st.st_mode))
        return real_posix_fallocate(fd, off, len);
    pthread_mutex_lock(&mu);
    fstat(fd, &st);
    lookup(fd, &st);
    seq++;
    int rc = real_posix_fallocate(fd, off, len);
    pthread_mutex_unlock(&mu);
    return rc;
}

int posix_fallocate(int fd, off_t off, off_t len) { return do_fallocate(fd, off, len); }
int posix_fallocate64(int fd, off_t off, off_t len) { return do_fallocate(fd, off, len); }

/* O_TRUNC of a file with content is a write of its whole length. */
static void before_open(int dfd, const char *path, int flags)
{
    if (!(flags & O_TRUNC) || !dirlen)
        return;
    int fd = real_openat(dfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    pthread_mutex_lock(&mu);
    pfile_t *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? lookup(fd, &st) : NULL;
    if (f && f->tracked && st.st_size > 0)
        journal(f, st.st_size, 0, (size_t)st.st_size);
    pthread_mutex_unlock(&mu);
    close(fd);
}

#define OPEN_MODE(flags, mode)                                                                                   \
    mode_t mode = 0;                                                                                             \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                                                       \
        va_list ap;                                                                                              \
        va_start(ap, flags);                                                                                     \
        mode = (mode_t)va_arg(ap, int);                                                                          \
        va_end(ap);                                                                                              \
    }

int open(const char *path, int flags, ...)
{
    resolve();
    OPEN_MODE(flags, mode);
    before_open(AT_FDCWD, path, flags);
    return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    resolve();
    OPEN_MODE(flags, mode);
    before_open(AT_FDCWD, path, flags);
    return real_open(path, flags, mode);
}

int openat(int dfd, const char *path, int flags, ...)
{
    resolve();
    OPEN_MODE(flags, mode);
    before_open(dfd, path, flags);
    return real_openat(dfd, path, flags, mode);
}
