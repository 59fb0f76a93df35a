/* Diagnostics area (see diag.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/diag.h"
#include "util/util.h"

void diag_init(diag_t *d, uint32_t max)
{
    memset(d, 0, sizeof *d);
    d->max = max;
}

void diag_clear(diag_t *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        mem_free(d->conds[i].msg);
    mem_free(d->error_slot.msg);
    d->error_slot.msg = NULL;
    d->n = 0;
    d->warn_count = 0;
    d->error_count = 0;
    d->error_code = 0;
    d->error = NULL;
    d->stale = false;
}

void diag_begin_statement(diag_t *d, uint32_t max, bool notes_off)
{
    d->stale = true;
    d->max = max;
    d->notes_off = notes_off;
}

uint32_t diag_statement_warnings(const diag_t *d) { return d->stale ? 0 : d->warn_count; }

void diag_free(diag_t *d)
{
    diag_clear(d);
    mem_free(d->conds);
    d->conds = NULL;
    d->cap = 0;
}

void diag_error_supersede(diag_t *d)
{
    if (!d->error_code)
        return;
    mem_free((void *)d->error_slot.msg);
    d->error_slot.msg = NULL;
    d->error = NULL;
    d->error_code = 0;
}

void diag_error_replace(diag_t *d)
{
    if (!d->error_code)
        return;
    int code = d->error_code;
    diag_error_supersede(d);
    if (d->n && d->conds[d->n - 1].level == DIAG_ERROR && d->conds[d->n - 1].code == code) {
        mem_free(d->conds[--d->n].msg);
        d->warn_count--;
        d->error_count--;
    }
}

int diag_push_msg(diag_t *d, enum diag_level level, int code, const char *msg)
{
    if (level == DIAG_NOTE && d->notes_off)
        return 0;
    if (d->stale)
        diag_clear(d);
    d->warn_count++;
    if (level == DIAG_ERROR) {
        d->error_count++;
        if (!d->error_code) {
            d->error_code = code;
            d->error_slot.level = level;
            d->error_slot.code = (uint16_t)code;
            snprintf(d->error_slot.sqlstate, sizeof d->error_slot.sqlstate, "%s", errors_sqlstate(code));
            d->error_slot.msg = mem_strdup(msg);
            d->error = &d->error_slot;
        }
    }
    if (d->n < d->max) {
        if (d->n == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 4;
            d->conds = mem_realloc(d->conds, d->cap * sizeof *d->conds);
        }
        diag_cond_t *c = &d->conds[d->n++];
        c->level = level;
        c->code = (uint16_t)code;
        snprintf(c->sqlstate, sizeof c->sqlstate, "%s", errors_sqlstate(code));
        c->msg = mem_strdup(msg);
    }
    return level == DIAG_ERROR ? -code : 0;
}

void diag_push_condition(diag_t *d, enum diag_level level, int code, const char *msg)
{
    bool had_error = d->error_code != 0 && !d->stale;
    diag_push_msg(d, level, code, msg);
    if (level == DIAG_ERROR && !had_error) {
        mem_free(d->error_slot.msg);
        d->error_slot.msg = NULL;
        d->error_code = 0;
        d->error = NULL;
    }
}

int diag_push(diag_t *d, enum diag_level level, int code, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, code);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    vsnprintf(msg, sizeof msg, errors_format(code), ap);
#pragma GCC diagnostic pop
    va_end(ap);
    return diag_push_msg(d, level, code, msg);
}
