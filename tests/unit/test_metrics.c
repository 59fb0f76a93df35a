/* The Prometheus side of src/monitor: mysqld_exporter's value parsing and name grouping, and the SVG chart. */
#include <string.h>

#include "monitor/chart.h"
#include "monitor/metrics.h"
#include "unit.h"

TEST(test_parse_value)
{
    double v = -1;
    CHECK(metrics_parse_value("42", &v) && v == 42);
    CHECK(metrics_parse_value("0.25", &v) && v == 0.25);
    CHECK(metrics_parse_value("ON", &v) && v == 1);
    CHECK(metrics_parse_value("Yes", &v) && v == 1);
    CHECK(metrics_parse_value("off", &v) && v == 0);
    CHECK(metrics_parse_value("DISABLED", &v) && v == 0);
    CHECK(metrics_parse_value("Connecting", &v) && v == 0);
    CHECK(!metrics_parse_value("", &v));
    CHECK(!metrics_parse_value("CRC32", &v));
    CHECK(!metrics_parse_value("12abc", &v));
    CHECK(!metrics_parse_value(" 12", &v));
    CHECK(!metrics_parse_value("/var/lib/x", &v));
}

static void family(const char *name, const char *want_fam, const char *want_label, const char *want_lname,
                   const char *want_type)
{
    char fam[128], label[128];
    const char *lname, *type;
    metrics_status_family(name, fam, sizeof fam, label, sizeof label, &lname, &type);
    CHECK_EQ_STR(fam, want_fam);
    CHECK_EQ_STR(label, want_label);
    CHECK_EQ_STR(type, want_type);
    if (want_lname)
        CHECK(lname && strcmp(lname, want_lname) == 0);
    else
        CHECK(lname == NULL);
}

TEST(test_status_families)
{
    family("Com_select", "commands_total", "select", "command", "counter");
    family("Handler_read_key", "handlers_total", "read_key", "handler", "counter");
    family("Connection_errors_max_connections", "connection_errors_total", "max_connections", "error", "counter");
    family("Innodb_buffer_pool_pages_dirty", "buffer_pool_pages", "dirty", "state", "gauge");
    family("Innodb_buffer_pool_pages_data", "buffer_pool_pages", "data", "state", "gauge");
    family("Innodb_buffer_pool_pages_flushed", "buffer_pool_page_changes_total", "flushed", "operation", "counter");
    family("Innodb_rows_read", "innodb_row_ops_total", "read", "operation", "counter");
    family("Performance_schema_digest_lost", "performance_schema_lost_total", "digest_lost", "instrumentation",
           "counter");
    family("Queries", "queries", "", NULL, "untyped");
    family("Threads_connected", "threads_connected", "", NULL, "untyped");
    family("Innodb_buffer_pool_read_requests", "innodb_buffer_pool_read_requests", "", NULL, "untyped");
    family("Compression", "compression", "", NULL, "untyped"); /* "Com" alone is not the Com_ group */
}

TEST(test_chart_svg)
{
    buf_t b;
    buf_init(&b);
    chart_point_t p[] = {{100, 0}, {110, 5}, {120, 10}};
    chart_svg(&b, "Q<&>", "per second", p, 3, 120, 60);
    buf_append_byte(&b, 0);
    const char *s = (const char *)b.data;
    CHECK(strncmp(s, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    CHECK(strstr(s, "Q&lt;&amp;&gt; (per second)") != NULL);
    CHECK(strstr(s, "<polyline class=\"series\"") != NULL);
    CHECK(strstr(s, ">10</text>") != NULL); /* nice top of the axis: 10 */
    CHECK(strstr(s, "628.0,28.0") != NULL);  /* the newest point at the right edge and the top */
    CHECK(strstr(s, "</svg>") != NULL);
    buf_reset(&b);
    chart_svg(&b, "empty", "", p, 1, 120, 60); /* one point is no line */
    buf_append_byte(&b, 0);
    CHECK(strstr((const char *)b.data, "collecting samples") != NULL);
    CHECK(strstr((const char *)b.data, "polyline") == NULL);
    buf_free(&b);
    char si[32];
    chart_si(1234, si, sizeof si);
    CHECK_EQ_STR(si, "1.23k");
    chart_si(950, si, sizeof si);
    CHECK_EQ_STR(si, "950");
    chart_si(2.5e9, si, sizeof si);
    CHECK_EQ_STR(si, "2.5G");
}

UNIT_MAIN(test_parse_value, test_status_families, test_chart_svg)
