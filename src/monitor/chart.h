/*
 * Server-rendered SVG line charts for the dashboard: one series of (time, value) points drawn into a fixed
 * viewBox with a value axis (four grid lines, labelled with SI-prefixed numbers) and a time axis in seconds, minutes,
 * hours or days before now.  Pure formatting over util/: the caller passes the numbers.
 */
#ifndef STRATA_MONITOR_CHART_H
#define STRATA_MONITOR_CHART_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct chart_point {
    double t; /* seconds, increasing */
    double v;
} chart_point_t;

/* Appends a complete <svg> document.  now is the time the right edge stands for, window the seconds shown. */
void chart_svg(buf_t *out, const char *title, const char *unit, const chart_point_t *p, size_t n, double now,
               double window);

/* v with an SI prefix and up to three significant digits ("1.23k", "950", "0.5"), into buf. */
void chart_si(double v, char *buf, size_t n);

#endif
