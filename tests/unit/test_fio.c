/* Unit tests for util/fio: the I/O helpers, and (test builds) the fault rules: counting, N+, *, classes, points. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"
#include "util/fio.h"
#include "util/util.h"

static char dir[64];

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* A scratch directory, made on first use and removed at exit. */
static void path_in(char *out, size_t n, const char *name)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/strata_fio_XXXXXX");
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
    }
    snprintf(out, n, "%s/%s", dir, name);
}

TEST(test_fio_helpers)
{
    char p[128];
    path_in(p, sizeof p, "a");
    int fd = fio_open(FIO_OTHER, p, O_RDWR | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(fio_open(FIO_OTHER, p, O_RDWR | O_CREAT | O_EXCL, 0600), -EEXIST);
    CHECK_EQ_INT(fio_pwrite(FIO_OTHER, fd, "hello", 5, 10), 0);
    CHECK_EQ_INT(fio_allocate(FIO_OTHER, fd, 0, 4096), 0);
    char b[128];
    size_t got = 99;
    CHECK_EQ_INT(fio_pread(FIO_OTHER, fd, b, sizeof b, 4000, &got), 0);
    CHECK_EQ_INT(got, 96); /* up to the end of the file, no further */
    CHECK_EQ_INT(fio_pread(FIO_OTHER, fd, b, 5, 10, &got), 0);
    CHECK(got == 5 && memcmp(b, "hello", 5) == 0);
    CHECK_EQ_INT(fio_ftruncate(FIO_OTHER, fd, 12), 0);
    CHECK_EQ_INT(fio_fdatasync(FIO_OTHER, fd), 0);
    close(fd);
    CHECK_EQ_INT(fio_replace_file(FIO_OTHER, dir, p, "new\n", 4, 0600), 0);
    char *data;
    size_t len;
    REQUIRE(fio_read_file(FIO_OTHER, p, &data, &len) == 0);
    CHECK(len == 4 && strcmp(data, "new\n") == 0);
    mem_free(data);
    path_in(p, sizeof p, "a.tmp");
    CHECK(access(p, F_OK) != 0);
    CHECK_EQ_INT(fio_fsync_dir(FIO_OTHER, dir), 0);
}

/* Read-only mode (innodb_force_recovery): the data directory's classes cannot be created, written, grown or
 * replaced, an O_RDWR open is read-only underneath, and the other classes are untouched. */
TEST(test_fio_read_only)
{
    char p[128], q[128];
    path_in(p, sizeof p, "ro");
    path_in(q, sizeof q, "ro-other");
    int fd = fio_open(FIO_DATA, p, O_RDWR | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(fio_pwrite(FIO_DATA, fd, "before", 6, 0), 0);
    close(fd);
    fio_set_read_only(true);
    CHECK(fio_read_only(FIO_DATA) && fio_read_only(FIO_REDO) && fio_read_only(FIO_BINLOG));
    CHECK(!fio_read_only(FIO_TEMP) && !fio_read_only(FIO_QLOG) && !fio_read_only(FIO_OTHER));
    CHECK_EQ_INT(fio_open(FIO_REDO, q, O_RDWR | O_CREAT, 0600), -EROFS);
    CHECK(access(q, F_OK) != 0);
    CHECK_EQ_INT(fio_open(FIO_DATA, p, O_RDWR | O_TRUNC, 0), -EROFS);
    fd = fio_open(FIO_DATA, p, O_RDWR, 0);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(fio_pwrite(FIO_DATA, fd, "after!", 6, 0), -EROFS);
    CHECK_EQ_INT(fio_allocate(FIO_DATA, fd, 0, 8192), -EROFS);
    CHECK_EQ_INT(fio_ftruncate(FIO_DATA, fd, 8192), -EROFS);
    CHECK(pwrite(fd, "x", 1, 0) < 0 && errno == EBADF); /* the kernel refuses too: opened O_RDONLY */
    char b[8];
    size_t got;
    CHECK(fio_pread(FIO_DATA, fd, b, 6, 0, &got) == 0 && got == 6 && memcmp(b, "before", 6) == 0);
    close(fd);
    CHECK_EQ_INT(fio_replace_file(FIO_ACCOUNTS, dir, p, "new", 3, 0600), -EROFS);
    fd = fio_open(FIO_TEMP, q, O_RDWR | O_CREAT, 0600); /* sort runs still work */
    CHECK(fd >= 0);
    CHECK_EQ_INT(fio_pwrite(FIO_TEMP, fd, "t", 1, 0), 0);
    close(fd);
    fio_set_read_only(false);
}

#ifdef STRATA_FAULTS
TEST(test_fault_rules)
{
    char err[256];
    CHECK(fault_set("redo:sync:x:EIO", err, sizeof err) != 0);
    CHECK(fault_set("redo:flush:1:EIO", err, sizeof err) != 0);
    CHECK(fault_set("data:write:1", err, sizeof err) != 0);
    CHECK(fault_set("point::1:ON", err, sizeof err) != 0);
    /* the Nth only */
    REQUIRE(fault_set("undo:write:2:ENOSPC", err, sizeof err) == 0);
    CHECK_EQ_INT(fault_check(FIO_UNDO, FIO_WRITE), 0);
    CHECK_EQ_INT(fault_check(FIO_DATA, FIO_WRITE), 0); /* another class does not count */
    CHECK_EQ_INT(fault_check(FIO_UNDO, FIO_SYNC), 0);  /* nor another operation */
    CHECK_EQ_INT(fault_check(FIO_UNDO, FIO_WRITE), -ENOSPC);
    CHECK_EQ_INT(fault_check(FIO_UNDO, FIO_WRITE), 0);
    /* from the Nth on; any class; * */
    REQUIRE(fault_set("binlog:sync:2+:EIO,any:open:*:ENOSPC", err, sizeof err) == 0);
    CHECK_EQ_INT(fault_check(FIO_BINLOG, FIO_SYNC), 0);
    CHECK_EQ_INT(fault_check(FIO_BINLOG, FIO_SYNC), -EIO);
    CHECK_EQ_INT(fault_check(FIO_BINLOG, FIO_SYNC), -EIO);
    CHECK_EQ_INT(fault_check(FIO_TEMP, FIO_OPEN), -ENOSPC);
    CHECK_EQ_INT(fault_check(FIO_REDO, FIO_OPEN), -ENOSPC);
    /* the helpers obey, and fail before touching the file */
    char p[128];
    path_in(p, sizeof p, "never");
    CHECK_EQ_INT(fio_open(FIO_DATA, p, O_RDWR | O_CREAT, 0600), -ENOSPC);
    CHECK(access(p, F_OK) != 0);
    /* named points: ON is a hit; other names do not count */
    REQUIRE(fault_set("point:x.y:1+:ON,point:x.z:1:EIO", err, sizeof err) == 0);
    CHECK_EQ_INT(FAULT_POINT("x.w"), 0);
    CHECK_EQ_INT(FAULT_POINT("x.y"), 1);
    CHECK_EQ_INT(FAULT_POINT("x.y"), 1);
    CHECK_EQ_INT(FAULT_POINT("x.z"), -EIO);
    CHECK_EQ_INT(fault_check(FIO_DATA, FIO_WRITE), 0); /* a point rule is no I/O rule */
    /* a bad spec leaves the armed rules as they were */
    CHECK(fault_set("bogus", err, sizeof err) != 0);
    CHECK_EQ_INT(FAULT_POINT("x.y"), 1);
    REQUIRE(fault_set("", err, sizeof err) == 0);
    CHECK_EQ_INT(FAULT_POINT("x.y"), 0);
}
#else
TEST(test_fault_rules)
{
    /* The release build: the seam is the constant 0 whatever is asked. */
    CHECK_EQ_INT(fault_check(FIO_UNDO, FIO_WRITE), 0);
    CHECK_EQ_INT(FAULT_POINT("binlog.before_fsync"), 0);
}
#endif

UNIT_MAIN(test_fio_helpers, test_fio_read_only, test_fault_rules)
