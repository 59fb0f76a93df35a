/*
 * SVG line charts (chart.h).  Layout in viewBox units: the plot area is X0..X1 by Y0..Y1; the value axis
 * starts at 0 (rates and gauges here are never negative) and ends at a "nice" top (1, 2 or 5 times a power of
 * ten) at or above the largest value, so grid lines fall on round numbers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "monitor/chart.h"

#define CHART_W 640
#define CHART_H 200
#define X0 56.0
#define X1 (CHART_W - 12.0)
#define Y0 28.0
#define Y1 (CHART_H - 28.0)

void chart_si(double v, char *buf, size_t n)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P"};
    size_t i = 0;
    double a = fabs(v);
    while (a >= 1000.0 && i + 1 < sizeof pre / sizeof pre[0]) {
        a /= 1000.0;
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.3g%s", v, pre[i]);
}

static double nice_top(double max)
{
    if (!(max > 0))
        return 1.0;
    double p = pow(10.0, floor(log10(max)));
    double steps[] = {1, 2, 5, 10};
    for (size_t i = 0; i < 4; i++)
        if (steps[i] * p >= max)
            return steps[i] * p;
    return 10 * p;
}

/* Text with the five XML escapes. */
static void put_text(buf_t *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_append_str(out, "&lt;"); break;
        case '>': buf_append_str(out, "&gt;"); break;
        case '&': buf_append_str(out, "&amp;"); break;
        case '"': buf_append_str(out, "&quot;"); break;
        case '\'': buf_append_str(out, "&apos;"); break;
        default: buf_append_byte(out, (uint8_t)*s);
        }
    }
}

void chart_svg(buf_t *out, const char *title, const char *unit, const chart_point_t *p, size_t n, double now,
               double window)
{
    double max = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].t >= now - window && p[i].v > max)
            max = p[i].v;
    double top = nice_top(max);
    buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 %d %d\" "
                    "width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">",
               CHART_W, CHART_H, CHART_W, CHART_H);
    buf_append_str(out, "<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"bold\">");
    put_text(out, title);
    if (unit && *unit) {
        buf_append_str(out, " (");
        put_text(out, unit);
        buf_append_str(out, ")");
    }
    buf_append_str(out, "</text>");
    for (int g = 0; g <= 4; g++) {
        double y = Y1 - (Y1 - Y0) * g / 4.0;
        char lab[32];
        chart_si(top * g / 4.0, lab, sizeof lab);
        buf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", X0, y, X1, y);
        buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s</text>", X0 - 4, y + 4, lab);
    }
    for (int g = 0; g <= 4; g++) {
        double x = X0 + (X1 - X0) * g / 4.0;
        double ago = window * (4 - g) / 4.0;
        buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">", x, Y1 + 16);
        if (g == 4)
            buf_append_str(out, "now");
        else if (ago >= 2 * 86400)
            buf_printf(out, "-%.3g d", ago / 86400);
        else if (ago >= 3 * 3600)
            buf_printf(out, "-%.3g h", ago / 3600);
        else if (ago >= 120)
            buf_printf(out, "-%.3g min", ago / 60);
        else
            buf_printf(out, "-%.0f s", ago);
        buf_append_str(out, "</text>");
    }
    size_t shown = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].t >= now - window)
            shown++;
    if (shown < 2) {
        buf_printf(out, "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">"
                        "collecting samples</text></svg>", (X0 + X1) / 2, (Y0 + Y1) / 2);
        return;
    }
    buf_append_str(out, "<polyline class=\"series\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\" points=\"");
    for (size_t i = 0; i < n; i++) {
        if (p[i].t < now - window)
            continue;
        double x = X0 + (X1 - X0) * (1.0 - (now - p[i].t) / window);
        double y = Y1 - (Y1 - Y0) * (p[i].v / top);
        buf_printf(out, "%.1f,%.1f ", x, y);
    }
    buf_append_str(out, "\"/></svg>");
}
