/*
 * Diagnostics area: the warnings, notes and error of the statement that ran last (SHOW WARNINGS reads it).
 * Any box may push conditions into the diag_t it was handed; the session owns one per connection and turns the
 * error, if any, into the ERR packet.  Conditions beyond max_error_count are counted but not kept, as in MySQL.
 *
 * Clearing is lazy, as in MariaDB: diag_begin_statement() only marks the area stale; the previous statement's
 * conditions stay visible (SHOW WARNINGS) until the new statement raises its first condition, which replaces
 * them.  diag_statement_warnings() is what the OK/EOF packet reports: the conditions this statement raised.
 */
#ifndef STRATA_DIAG_H
#define STRATA_DIAG_H

#include <stdbool.h>
#include <stdint.h>

enum diag_level { DIAG_NOTE = 0, DIAG_WARNING = 1, DIAG_ERROR = 2 };

typedef struct diag_cond {
    enum diag_level level;
    uint16_t code;
    char sqlstate[6];
    char *msg; /* mem_alloc'd */
} diag_cond_t;

typedef struct diag {
    diag_cond_t *conds;
    uint32_t n, cap;
    uint32_t max;            /* max_error_count */
    uint32_t warn_count;     /* all conditions raised, including ones not kept (@@warning_count) */
    uint32_t error_count;    /* errors raised (@@error_count) */
    int error_code;          /* first error of the statement, 0 if none */
    const diag_cond_t *error; /* that error's condition (kept even beyond max) */
    diag_cond_t error_slot;
    bool stale;              /* a new statement began and has raised nothing yet */
    bool notes_off;          /* @@sql_notes = 0: notes are dropped, not counted */
} diag_t;

void diag_init(diag_t *d, uint32_t max);
void diag_free(diag_t *d);
void diag_clear(diag_t *d);
/* Makes the next error the statement's (a view's 1356 after what failed inside it), keeping the conditions. */
void diag_error_supersede(diag_t *d);
/* The same, dropping that error's condition: the next error stands for it (1364 through a view is 1423). */
void diag_error_replace(diag_t *d);
/* A statement begins: its first condition will replace the previous statement's.  max = @@max_error_count. */
void diag_begin_statement(diag_t *d, uint32_t max, bool notes_off);
/* Conditions raised by the current statement (the warning count of its OK / EOF packet). */
uint32_t diag_statement_warnings(const diag_t *d);
/* Whether the current statement raised an error (a stale area's old error does not count). */
static inline bool diag_failed(const diag_t *d) { return !d->stale && d->error_code != 0; }
/* Formats errors.def's message for `code` with the arguments.  Returns -code for errors so callers can
 * `return diag_error(d, ER_X, ...)`, and 0 for notes and warnings. */
int diag_push(diag_t *d, enum diag_level level, int code, ...);
/* A condition that does not fail the statement, whatever its level: CHECKSUM TABLE of a missing table lists an
 * Error-level 1146 in SHOW WARNINGS and @@error_count, and still answers with its result set. */
void diag_push_condition(diag_t *d, enum diag_level level, int code, const char *msg);
int diag_push_msg(diag_t *d, enum diag_level level, int code, const char *msg);
#define diag_error(d, code, ...) diag_push((d), DIAG_ERROR, (code), ##__VA_ARGS__)
#define diag_warn(d, code, ...) diag_push((d), DIAG_WARNING, (code), ##__VA_ARGS__)
#define diag_note(d, code, ...) diag_push((d), DIAG_NOTE, (code), ##__VA_ARGS__)

#endif
