/* Error log: one line per event, timestamped like MariaDB's error log so operators' parsers keep working. */
#ifndef STRATA_LOG_H
#define STRATA_LOG_H

#include <stdio.h>

enum log_level { LOG_LEVEL_ERROR = 0, LOG_LEVEL_WARN = 1, LOG_LEVEL_NOTE = 2, LOG_LEVEL_DEBUG = 3 };

/* Opens (appends to) path; NULL keeps stderr.  Returns 0 or -errno. */
int log_open(const char *path);
void log_set_level(enum log_level lvl);
void log_close(void);
void log_write(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_write(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) log_write(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_note(...) log_write(LOG_LEVEL_NOTE, __VA_ARGS__)
#define log_debug(...) log_write(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
