/*
 * Assertions in three tiers (SQLite's habit):
 *   ASSERT(x)        always on; logs file, line and a stack trace, then aborts.
 *   DEBUG_ASSERT(x)  expensive invariant checks, compiled only with -DSTRATA_DEBUG.
 *   ALWAYS(x)/NEVER(x) mark defensive branches: in debug builds they assert, in release they just return x.
 * CORRUPT(fmt, ...) reports on-disk corruption once, with file and line, and evaluates to STRATA_ECORRUPT
 * so the caller refuses to go on with that object: `return CORRUPT("page %u bad checksum", pgno);`
 */
#ifndef STRATA_CHECK_H
#define STRATA_CHECK_H

void check_fail(const char *expr, const char *file, int line) __attribute__((noreturn));
int check_corrupt(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define ASSERT(x) ((x) ? (void)0 : check_fail(#x, __FILE__, __LINE__))
#ifdef STRATA_DEBUG
#define DEBUG_ASSERT(x) ASSERT(x)
#define ALWAYS(x) ((x) ? 1 : (check_fail(#x, __FILE__, __LINE__), 0))
#define NEVER(x) ((x) ? (check_fail("!(" #x ")", __FILE__, __LINE__), 1) : 0)
#else
#define DEBUG_ASSERT(x) ((void)0)
#define ALWAYS(x) (x)
#define NEVER(x) (x)
#endif
#define CORRUPT(...) check_corrupt(__FILE__, __LINE__, __VA_ARGS__)

#endif
