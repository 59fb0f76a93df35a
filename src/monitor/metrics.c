/*
 * /metrics: the Prometheus text exposition (names and typing in metrics.h).
 *
 * The format wants every sample of one metric family in one group under one TYPE line, while status names
 * interleave families (Innodb_buffer_pool_pages_data, _dirty, _flushed ... feed two).  So the status values are
 * first copied into an array with their family, then written family by family.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binlog/binlog.h"
#include "engine/engine.h"
#include "monitor/metrics.h"
#include "repl/replica.h"
#include "session/exec_repl.h"
#include "session/session.h"

bool metrics_parse_value(const char *text, double *out)
{
    static const struct {
        const char *text;
        double v;
    } words[] = {{"yes", 1}, {"on", 1}, {"no", 0}, {"off", 0}, {"disabled", 0}, {"connecting", 0}};
    for (size_t i = 0; i < ARRAY_LEN(words); i++)
        if (strcasecmp(text, words[i].text) == 0) {
            *out = words[i].v;
            return true;
        }
    if (!*text)
        return false;
    char *end;
    double v = strtod(text, &end);
    if (*end || isspace((unsigned char)text[0]))
        return false;
    *out = v;
    return true;
}

/* mysqld_exporter's grouping of SHOW GLOBAL STATUS names (its globalStatusRE). */
static const struct status_family {
    const char *prefix; /* lowercased, with its trailing '_' */
    const char *family;
    const char *label;
    const char *type;
} status_families[] = {
    {"com_", "commands_total", "command", "counter"},
    {"handler_", "handlers_total", "handler", "counter"},
    {"connection_errors_", "connection_errors_total", "error", "counter"},
    {"innodb_buffer_pool_pages_", "buffer_pool_pages", "state", "gauge"},
    {"innodb_buffer_pool_pages_", "buffer_pool_page_changes_total", "operation", "counter"},
    {"innodb_rows_", "innodb_row_ops_total", "operation", "counter"},
    {"performance_schema_", "performance_schema_lost_total", "instrumentation", "counter"},
};
#define METRICS_NFAMILIES ARRAY_LEN(status_families)

static void lower_copy(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = 0;
}

/* The index in status_families, or -1 for an untyped metric of its own. */
static int status_family_index(const char *lname)
{
    for (size_t i = 0; i < METRICS_NFAMILIES; i++) {
        size_t n = strlen(status_families[i].prefix);
        if (strncmp(lname, status_families[i].prefix, n) != 0 || !lname[n])
            continue;
        if (strcmp(status_families[i].family, "buffer_pool_pages") == 0) {
            const char *s = lname + n;
            if (strcmp(s, "data") && strcmp(s, "dirty") && strcmp(s, "free") && strcmp(s, "misc"))
                continue; /* the next row: page changes */
        }
        return (int)i;
    }
    return -1;
}

void metrics_status_family(const char *name, char *family, size_t fcap, char *label, size_t lcap,
                           const char **label_name, const char **type)
{
    char lname[128];
    lower_copy(lname, sizeof lname, name);
    int f = status_family_index(lname);
    if (f < 0) {
        snprintf(family, fcap, "%s", lname);
        label[0] = 0;
        *label_name = NULL;
        *type = "untyped";
        return;
    }
    snprintf(family, fcap, "%s", status_families[f].family);
    snprintf(label, lcap, "%s", lname + strlen(status_families[f].prefix));
    *label_name = status_families[f].label;
    *type = status_families[f].type;
}

/* One numeric status value, copied out of SHOW GLOBAL STATUS. */
typedef struct status_sample {
    char lname[96];
    int family; /* status_families index, -1 untyped */
    double v;
} status_sample_t;

typedef struct status_samples {
    status_sample_t *v;
    size_t n;
} status_samples_t;

static int collect_status(void *arg, const status_def_t *def, const char *value, size_t len)
{
    (void)len;
    status_samples_t *ss = arg;
    double v;
    if (!metrics_parse_value(value, &v))
        return 0;
    status_sample_t *s = &ss->v[ss->n++];
    lower_copy(s->lname, sizeof s->lname, def->name);
    s->family = status_family_index(s->lname);
    s->v = v;
    return 0;
}

/* A sample value as Prometheus reads it: integers without an exponent, others with full precision. */
static void put_value(buf_t *out, double v)
{
    if (v == (double)(int64_t)v && v > -9.0e15 && v < 9.0e15)
        buf_printf(out, "%" PRId64 "\n", (int64_t)v);
    else
        buf_printf(out, "%.17g\n", v);
}

/* A label value with the format's escapes (backslash, double quote, newline). */
static void put_label_value(buf_t *out, const char *s)
{
    buf_append_byte(out, '"');
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            buf_append_byte(out, '\\');
        if (*s == '\n') {
            buf_append_str(out, "\\n");
            continue;
        }
        buf_append_byte(out, (uint8_t)*s);
    }
    buf_append_byte(out, '"');
}

static void put_header(buf_t *out, const char *name, const char *type, const char *help)
{
    buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void render_status(server_t *srv, buf_t *out)
{
    status_samples_t ss = {.v = mem_alloc(sizeof(status_sample_t) * status_ndefs)};
    status_show(&srv->status, NULL, true, NULL, collect_status, &ss);
    static const char *const help[METRICS_NFAMILIES] = {
        "Total number of executed MySQL commands.",
        "Total number of executed MySQL handlers.",
        "Total number of MySQL connection errors.",
        "Innodb buffer pool pages by state.",
        "Innodb buffer pool page state changes.",
        "Total number of MySQL InnoDB row operations.",
        "Total number of MySQL instrumentations that could not be loaded or created due to memory constraints.",
    };
    for (size_t f = 0; f < METRICS_NFAMILIES; f++) {
        bool any = false;
        char name[128];
        snprintf(name, sizeof name, "mysql_global_status_%s", status_families[f].family);
        for (size_t i = 0; i < ss.n; i++) {
            if (ss.v[i].family != (int)f)
                continue;
            if (!any)
                put_header(out, name, status_families[f].type, help[f]);
            any = true;
            buf_printf(out, "%s{%s=", name, status_families[f].label);
            put_label_value(out, ss.v[i].lname + strlen(status_families[f].prefix));
            buf_append_str(out, "} ");
            put_value(out, ss.v[i].v);
        }
    }
    for (size_t i = 0; i < ss.n; i++) {
        if (ss.v[i].family >= 0)
            continue;
        char name[128];
        snprintf(name, sizeof name, "mysql_global_status_%s", ss.v[i].lname);
        put_header(out, name, "untyped", "Generic metric from SHOW GLOBAL STATUS.");
        buf_printf(out, "%s ", name);
        put_value(out, ss.v[i].v);
    }
    mem_free(ss.v);
}

static int put_variable(void *arg, const sysvar_def_t *def, const char *value, size_t len)
{
    (void)len;
    buf_t *out = arg;
    double v;
    if (!metrics_parse_value(value, &v)) /* aliases too: SHOW GLOBAL VARIABLES lists them, so does the exporter */
        return 0;
    char name[160];
    snprintf(name, sizeof name, "mysql_global_variables_%s", def->name);
    put_header(out, name, "gauge", "Generic gauge metric from SHOW GLOBAL VARIABLES.");
    buf_printf(out, "%s ", name);
    put_value(out, v);
    return 0;
}

static void render_variables(server_t *srv, buf_t *out)
{
    sysvar_show(&srv->vars, NULL, SYSVAR_GLOBAL, NULL, put_variable, out);
    char comment[256];
    if (sysvar_global_str(&srv->vars, SYSVAR_VERSION_COMMENT, comment, sizeof comment) < 0)
        comment[0] = 0;
    put_header(out, "mysql_version_info", "gauge", "MySQL version and distribution.");
    buf_append_str(out, "mysql_version_info{innodb_version=");
    put_label_value(out, "");
    buf_append_str(out, ",version=");
    put_label_value(out, srv->version);
    buf_append_str(out, ",version_comment=");
    put_label_value(out, comment);
    buf_append_str(out, "} 1\n");
}

/* mysql_slave_status_*: the numeric columns of SHOW SLAVE STATUS, labelled as mysqld_exporter labels them. */
static void render_replica(buf_t *out)
{
    replica_t *r = session_replica();
    if (!r)
        return;
    replica_status_t st;
    memset(&st, 0, sizeof st);
    replica_status(r, &st);
    if (!st.configured)
        return;
    double io = 0;
    metrics_parse_value(st.io_running ? st.io_running : "No", &io);
    const struct {
        const char *col;
        double v;
        bool null;
    } cols[] = {
        {"slave_io_running", io, false},
        {"slave_sql_running", st.sql_running, false},
        {"seconds_behind_master", (double)st.seconds_behind, st.seconds_behind < 0},
        {"read_master_log_pos", (double)st.read_master_log_pos, false},
        {"exec_master_log_pos", (double)st.exec_master_log_pos, false},
        {"relay_log_space", (double)st.queued_bytes, false},
        {"last_io_errno", st.last_io_errno, false},
        {"last_sql_errno", st.last_sql_errno, false},
        {"master_server_id", st.master_server_id, false},
        {"master_port", st.cfg.port, false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cols); i++) {
        if (cols[i].null) /* NULL is not a number: mysqld_exporter leaves it out */
            continue;
        char name[96];
        snprintf(name, sizeof name, "mysql_slave_status_%s", cols[i].col);
        put_header(out, name, "untyped", "Generic metric from SHOW SLAVE STATUS.");
        buf_printf(out, "%s{channel_name=\"\",connection_name=\"\",master_host=", name);
        put_label_value(out, st.cfg.host);
        buf_append_str(out, ",master_uuid=\"\"} ");
        put_value(out, cols[i].v);
    }
}

typedef struct binlog_totals {
    uint64_t files, bytes, disk_bytes, compressed;
} binlog_totals_t;

static int sum_binlog(void *arg, const binlog_file_info_t *f)
{
    binlog_totals_t *t = arg;
    t->files++;
    t->bytes += f->size;
    t->disk_bytes += f->disk_size;
    t->compressed += f->compressed;
    return 0;
}

static void put_gauge(buf_t *out, const char *name, const char *help, double v)
{
    put_header(out, name, "gauge", help);
    buf_printf(out, "%s ", name);
    put_value(out, v);
}

static void render_strata(server_t *srv, engine_t *eng, buf_t *out)
{
    engine_stats_t es;
    memset(&es, 0, sizeof es);
    if (eng)
        engine_stats(eng, &es);
    uint64_t req = es.pool_hits + es.pool_misses;
    put_gauge(out, "strata_buffer_pool_hit_rate",
              "Buffer pool page requests served without a read, since start-up (1 when none yet).",
              req ? (double)es.pool_hits / (double)req : 1.0);
    put_gauge(out, "strata_buffer_pool_dirty_pages", "Buffer pool pages changed and not yet written.",
              (double)es.pool_dirty);
    put_gauge(out, "strata_buffer_pool_pages", "Buffer pool size in pages.", (double)es.pool_pages);
    engine_file_info_t *files = NULL;
    size_t nf = 0;
    if (eng && engine_files(eng, &files, &nf) == 0) {
        static const struct {
            const char *name, *help;
            bool free;
        } fam[] = {{"strata_tablespace_free_extents", "Free extents of a tablespace data file.", true},
                   {"strata_tablespace_total_extents", "Extents of a tablespace data file.", false}};
        for (size_t k = 0; k < ARRAY_LEN(fam); k++) {
            put_header(out, fam[k].name, "gauge", fam[k].help);
            for (size_t i = 0; i < nf; i++) {
                if (strcmp(files[i].file_type, "UNDO LOG") == 0)
                    continue;
                buf_printf(out, "%s{tablespace=", fam[k].name);
                put_label_value(out, files[i].tablespace_name);
                buf_append_str(out, ",file=");
                put_label_value(out, files[i].file_name);
                buf_append_str(out, "} ");
                put_value(out, (double)(fam[k].free ? files[i].free_extents : files[i].total_extents));
            }
        }
        engine_files_free(files);
    }
    binlog_totals_t bt = {0};
    if (srv->binlog)
        binlog_list_files(srv->binlog, sum_binlog, &bt);
    put_gauge(out, "strata_binlog_files", "Binary log files in the index.", (double)bt.files);
    put_gauge(out, "strata_binlog_bytes", "Binary log bytes, uncompressed.", (double)bt.bytes);
    put_gauge(out, "strata_binlog_disk_bytes", "Binary log bytes on disk (compressed files at their compressed size).",
              (double)bt.disk_bytes);
    put_gauge(out, "strata_binlog_compressed_files", "Binary log files compressed with zstd.", (double)bt.compressed);
}

void metrics_render(server_t *srv, engine_t *eng, buf_t *out)
{
    uint64_t t0 = time_mono_us();
    put_gauge(out, "mysql_up", "Whether the MySQL server is up.", 1);
    render_status(srv, out);
    render_variables(srv, out);
    render_replica(out);
    render_strata(srv, eng, out);
    put_gauge(out, "strata_metrics_render_seconds", "Time this exposition took to build, in the server.",
              (double)(time_mono_us() - t0) / 1e6);
}
