/*
 * util: what every box of strata shares.  Include this one header; it pulls in the small pieces:
 *   log.h     error log with timestamps (MariaDB's "YYYY-MM-DD HH:MM:SS 0 [Note] ..." layout)
 *   mem.h     counted allocation (feeds the Memory_used status variable), never returns NULL
 *   buf.h     growable byte buffer
 *   arena.h   bump allocator freed in one reset (per connection / per statement lifetimes)
 *   errors.h  the one table of MySQL error codes, SQLSTATEs and messages (errors.def)
 *   check.h   ASSERT / DEBUG_ASSERT / ALWAYS / NEVER and the CORRUPT report
 * Status convention: 0 is success, strata's own failures are negative STRATA_E* values below -10000,
 * so they never collide with -errno.
 */
#ifndef STRATA_UTIL_H
#define STRATA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/errors.h"
#include "util/log.h"
#include "util/mem.h"

enum {
    STRATA_OK = 0,
    STRATA_ENOMEM = -10001,
    STRATA_EPROTO = -10002,   /* malformed input from a peer */
    STRATA_EAGAIN = -10003,   /* not enough input yet; call again with more */
    STRATA_ECORRUPT = -10004, /* on-disk structure failed a check */
    STRATA_ETOOBIG = -10005,  /* over a configured limit */
    STRATA_EIO = -10006,
    STRATA_ECLOSED = -10007,  /* peer closed the connection */
    STRATA_ENOTFOUND = -10008,
    STRATA_EEXIST = -10009,
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Monotonic and wall clocks. */
uint64_t time_mono_us(void);
uint64_t time_wall_us(void);

#endif
