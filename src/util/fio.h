/*
 * util/fio: the server's file I/O helpers, and the fault-injection seam that sits under them.
 *
 * Every open, write, read, fsync and file creation the server does on a data, undo, redo, binlog, temporary,
 * account, catalog or TLS file goes through these functions, each call naming the class of file it touches.
 * They retry EINTR and short transfers, and return 0 or -errno (a write that makes no progress is -ENOSPC).
 *
 * Test builds (make SAN=1, or FAULTS=1: -DSTRATA_FAULTS) can make any of them fail on purpose: a rule
 *
 *     CLASS:OP:N:ACTION          e.g.  redo:sync:3:EIO      binlog:write:1+:ENOSPC     undo:open:*:ENOSPC
 *     point:NAME:N:ACTION        e.g.  point:binlog.before_fsync:2:KILL
 *
 * fails the Nth matching call counted from when the rule was set (N+: the Nth and every later one; *: all) with
 * ACTION = ENOSPC or EIO, or stops the process there (EXIT: _exit(99); KILL: SIGKILL to itself), or for a named
 * point, ON (the point reports that it was hit and its caller takes its test-only branch).  CLASS is one of
 * data undo redo binlog temp accounts catalog tls qlog other or `any`; OP is open write read sync or `any`.
 * Rules are separated by commas; the environment variable STRATA_FAULT sets them at start-up and, in test
 * builds only, SET GLOBAL debug_fault = '...' replaces them at run time ('' clears them).
 *
 * The release build has none of it: fault_check() is the constant 0, FAULT_POINT() is 0 and no rule text,
 * point name or variable name is compiled in (tests/integration/test_faults.py checks the binary).
 */
#ifndef STRATA_UTIL_FIO_H
#define STRATA_UTIL_FIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef enum fio_class {
    FIO_DATA,     /* tablespace data files and strata.ctl */
    FIO_UNDO,     /* undo files and strata_undo.ctl */
    FIO_REDO,     /* redo.log */
    FIO_BINLOG,   /* binlog files, their index and state files */
    FIO_TEMP,     /* sort runs and other temporary files */
    FIO_ACCOUNTS, /* the account store */
    FIO_CATALOG,  /* the catalog id file */
    FIO_TLS,      /* generated certificates and keys */
    FIO_QLOG,     /* the general and slow query logs */
    FIO_OTHER,    /* pid file and the like */
    FIO__CLASSES
} fio_class_t;

typedef enum fio_op { FIO_OPEN, FIO_WRITE, FIO_READ, FIO_SYNC, FIO__OPS } fio_op_t;

/* Read-only mode (innodb_force_recovery, innodb_read_only): from this call on, the files of the data directory
 * (classes data, undo, redo, binlog, accounts, catalog, tls: no certificate is generated) are never changed by these helpers: an open asking for
 * O_CREAT or O_TRUNC, a write, an allocation and a growing ftruncate fail with -EROFS, a replace too, and an
 * O_RDWR open is made O_RDONLY, so the kernel refuses any write that came some other way.  A backstop: the
 * read-only start itself takes no path that writes (docs/faults.md, "Forced recovery"). */
void fio_set_read_only(bool on);
bool fio_read_only(fio_class_t c);

/* open(2) with O_CLOEXEC added: the descriptor, or -errno.  O_CREAT counts as a creation (OP open). */
int fio_open(fio_class_t c, const char *path, int flags, mode_t mode);
/* A buffer that O_DIRECT transfers take: FIO_DIRECT_ALIGN-aligned (offsets and lengths of such transfers must be
 * multiples of it too).  free() it; NULL when out of memory.  Not counted in Memory_used: it lives for one
 * transfer or one flush loop. */
#define FIO_DIRECT_ALIGN 4096
void *fio_direct_buf(size_t n);
/* Writes all n bytes at off (pwrite), or at the file position when off < 0. */
int fio_pwrite(fio_class_t c, int fd, const void *p, size_t n, int64_t off);
/* Reads up to n bytes at off; *got (may be NULL) receives how many, fewer only at end of file. */
int fio_pread(fio_class_t c, int fd, void *p, size_t n, int64_t off, size_t *got);
int fio_fsync(fio_class_t c, int fd);
int fio_fdatasync(fio_class_t c, int fd);
/* fsync of a directory (after a create, rename or unlink in it). */
int fio_fsync_dir(fio_class_t c, const char *dir);
/* Allocates [off, off+len) on disk: posix_fallocate, or zero writes where the file system has no fallocate. */
int fio_allocate(fio_class_t c, int fd, uint64_t off, uint64_t len);
/* ftruncate; a cut (len not above the size) is never failed by the seam, only growth. */
int fio_ftruncate(fio_class_t c, int fd, uint64_t len);
/* Replaces path with data, atomically: path.tmp written and synced, renamed over path, directory synced. */
int fio_replace_file(fio_class_t c, const char *dir, const char *path, const void *data, size_t len, mode_t mode);
/* fopen(path, "r") for the line-oriented control files; the whole read counts as one open and one read. */
FILE *fio_fopen_read(fio_class_t c, const char *path);
/* Reads a whole (small) file into a mem_alloc'ed, NUL-terminated buffer. */
int fio_read_file(fio_class_t c, const char *path, char **data, size_t *len);

#ifdef STRATA_FAULTS
int fault_check(fio_class_t c, fio_op_t op);
int fault_point(const char *name);
/* Replaces the armed rules; -1 with a message in err when spec does not parse (the old rules stay). */
int fault_set(const char *spec, char *err, size_t errlen);
#define FAULT_POINT(name) fault_point(name)
#else
#define fault_check(c, op) 0
#define FAULT_POINT(name) 0
#endif

#endif
