/*
 * Advice: rules over variables and over what the history says happened in a window (the last hour, day or
 * week), never over counters accumulated since start-up.
 *
 * A rule is a pure function of an advice_ctx_t: the increase of a counter over its window (`delta`), a gauge's
 * latest value and its highest value in the window (`gauge`, `gauge_max`), a variable's current text (`var`)
 * and the statement class that ran most in the window (`top_digest`).  It never reads the server itself, so a
 * unit test drives it with fixed numbers (tests/unit/test_advice.c), and the sampler (history.c) drives it
 * with the history of any server it samples.
 *
 * The window a rule sees is its nominal length cut at three places: the oldest sample kept, the last restart
 * of the server (counters start again from 0), and the last change of a variable the rule lists in `reads`.
 * The last cut is what makes advice converge: once the suggested value is set, the rule judges only the load
 * that ran under it.
 */
#ifndef STRATA_MONITOR_ADVICE_H
#define STRATA_MONITOR_ADVICE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum advice_severity { ADVICE_NOTE, ADVICE_WARNING, ADVICE_CRITICAL } advice_severity_t;
typedef enum advice_window { ADVICE_HOUR, ADVICE_DAY, ADVICE_WEEK } advice_window_t;

typedef struct advice_ctx {
    void *arg;
    /* How much a counter grew over the window; false if the history has no such counter in it. */
    bool (*delta)(void *arg, const char *name, double *out);
    /* A gauge's latest sample / its highest sample in the window; false if unknown. */
    bool (*gauge)(void *arg, const char *name, double *out);
    bool (*gauge_max)(void *arg, const char *name, double *out);
    /* A global variable's current value as text; NULL if the server has no such variable. */
    const char *(*var)(void *arg, const char *name);
    /* The digest that ran most often in the window: its text, its count and the count of all statements. */
    bool (*top_digest)(void *arg, char *text, size_t cap, double *count, double *total);
    double window_seconds; /* the span the deltas cover */
} advice_ctx_t;

typedef struct advice_result {
    advice_severity_t severity;
    char evidence[512];
    char current[160];
    char suggested[160];
} advice_result_t;

typedef struct advice_rule {
    const char *name;
    advice_window_t window;
    const char *reads; /* variables whose change restarts the window, comma separated ("" for none) */
    bool (*eval)(const advice_ctx_t *c, advice_result_t *r);
    const char *doc;   /* one sentence: what it reads and when it fires */
} advice_rule_t;

extern const advice_rule_t advice_rules[];
extern const unsigned advice_nrules;

const advice_rule_t *advice_rule_find(const char *name);
/* Runs one rule; true if it fires (r filled). */
bool advice_eval(const advice_rule_t *rule, const advice_ctx_t *c, advice_result_t *r);
/* "1h", "1d", "7d"; seconds of that window. */
const char *advice_window_name(advice_window_t w);
double advice_window_seconds(advice_window_t w);
const char *advice_severity_name(advice_severity_t s);

#endif
