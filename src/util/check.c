/* Assertion failure and corruption reports (see check.h). */
#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

void check_fail(const char *expr, const char *file, int line)
{
    log_error("assertion failed: %s at %s:%d", expr, file, line);
    void *frames[48];
    int n = backtrace(frames, 48);
    backtrace_symbols_fd(frames, n, 2);
    abort();
}

int check_corrupt(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("corruption detected (%s:%d): %s", file, line, msg);
    return STRATA_ECORRUPT;
}
