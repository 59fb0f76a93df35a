/*
 * digest: the statement digest summary behind performance_schema.events_statements_summary_by_digest.  One row
 * per (schema, digest text): how often it ran, its time (sum, min, max and a latency histogram for p95/p99), and
 * sums of what its executions cost.  The session normalizes the text (sql/sql.h sql_digest_text) and hands the
 * facts of each statement to digest_record().
 *
 * Bounded: at most `capacity` rows (performance_schema_digests_size) counting the row of lost digests, so
 * capacity - 1 digests, allocated as they appear (MariaDB's sizing: its lost row is slot 0 of the array).  When
 * the table is full a new digest is counted in the row whose SCHEMA_NAME and DIGEST are NULL, as MySQL and
 * MariaDB do, and in digest_lost() (Performance_schema_digest_lost): nothing is dropped silently.  A capacity
 * of 0 turns recording off, as performance_schema_digests_size=0 does in MariaDB.
 *
 * Concurrency: rows live in DIGEST_SHARDS shards picked by the hash of (schema, text), each behind its own
 * rwlock.  Recording takes the shard's lock shared and adds into the row with relaxed atomics, so sessions
 * running the same statement never wait for one another; the lock is taken exclusive only to add a row (once
 * per digest) and by TRUNCATE.
 */
#ifndef STRATA_MONITOR_DIGEST_H
#define STRATA_MONITOR_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The SUM_ columns after SUM_TIMER_WAIT .. MAX_TIMER_WAIT, in MariaDB 10.11's order. */
#define DIGEST_SUMS(X)                                                                                            \
    X(LOCK_TIME) X(ERRORS) X(WARNINGS) X(ROWS_AFFECTED) X(ROWS_SENT) X(ROWS_EXAMINED) X(CREATED_TMP_DISK_TABLES) \
    X(CREATED_TMP_TABLES) X(SELECT_FULL_JOIN) X(SELECT_FULL_RANGE_JOIN) X(SELECT_RANGE) X(SELECT_RANGE_CHECK)     \
    X(SELECT_SCAN) X(SORT_MERGE_PASSES) X(SORT_RANGE) X(SORT_ROWS) X(SORT_SCAN) X(NO_INDEX_USED)                  \
    X(NO_GOOD_INDEX_USED)

typedef enum digest_sum {
#define DIGEST_SUM_ENUM(name) DIGEST_SUM_##name,
    DIGEST_SUMS(DIGEST_SUM_ENUM)
#undef DIGEST_SUM_ENUM
    DIGEST_NSUMS
} digest_sum_t;

/* The names of the sums ("LOCK_TIME", ...), in digest_sum_t order. */
extern const char *const digest_sum_names[DIGEST_NSUMS];

/* One statement's facts. */
typedef struct digest_stmt {
    const char *schema;     /* current database, NULL when none */
    const char *text;       /* the digest text */
    size_t text_len;
    uint64_t timer_ps;      /* its time, picoseconds (the TIMER_WAIT unit) */
    uint64_t sums[DIGEST_NSUMS]; /* LOCK_TIME in picoseconds too */
    uint64_t now_us;        /* wall clock, microseconds since the epoch (FIRST_SEEN / LAST_SEEN) */
} digest_stmt_t;

/* One row as read. */
typedef struct digest_row {
    const char *schema;     /* NULL: none (or the row of lost digests) */
    const char *digest;     /* 32 hex digits; NULL for the row of lost digests */
    const char *text;       /* NULL for the row of lost digests */
    uint64_t count, sum_ps, min_ps, max_ps, p95_ps, p99_ps;
    uint64_t sums[DIGEST_NSUMS];
    uint64_t first_seen_us, last_seen_us;
} digest_row_t;

/* Sets the number of rows the table may hold, the lost row included (start-up: performance_schema_digests_size). */
void digest_init(size_t capacity);
/* Frees every row (shutdown). */
void digest_shutdown(void);
void digest_record(const digest_stmt_t *s);
/* TRUNCATE: every row goes, the lost-digest row included; digest_lost() keeps counting from where it was. */
void digest_truncate(void);
/* Calls fn once per row (the lost-digest row last, when it counted anything).  fn runs under a shard's lock
 * held shared: it must not record a statement or take other locks. */
void digest_scan(void (*fn)(void *arg, const digest_row_t *r), void *arg);
/* Statements whose digest found the table full (Performance_schema_digest_lost). */
uint64_t digest_lost(void);
/* Rows in use (for tests and the docs' memory figure). */
size_t digest_used(void);

#endif
