/*
 * Error log.  Lines look like MariaDB's: "2026-11-30 05:40:05 0 [Note] stratad: ready for connections."
 * A single write(2) per line keeps lines from different threads whole without a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

static int log_fd = 2;
static enum log_level log_level_max = LOG_LEVEL_NOTE;

int log_open(const char *path)
{
    if (!path)
        return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0)
        return -errno;
    if (log_fd > 2)
        close(log_fd);
    log_fd = fd;
    return 0;
}

void log_set_level(enum log_level lvl) { log_level_max = lvl; }

void log_close(void)
{
    if (log_fd > 2)
        close(log_fd);
    log_fd = 2;
}

void log_write(enum log_level lvl, const char *fmt, ...)
{
    static const char *names[] = {"ERROR", "Warning", "Note", "Debug"};
    if (lvl > log_level_max)
        return;
    char line[2048];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    int n = (int)strftime(line, sizeof line, "%Y-%m-%d %H:%M:%S", &tm);
    n += snprintf(line + n, sizeof line - (size_t)n, " 0 [%s] ", names[lvl]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n += m;
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(log_fd, line, (size_t)n);
    (void)w;
}
