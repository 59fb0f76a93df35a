/*
 * In-process executor harness shared by the unit tests that drive SQL end to end (test_exec.c,
 * test_keys_upgrade.c): a real engine in a temporary datadir, the statements parsed and run through
 * sql_exec_stmt, results captured from the sink as text ("a|b\n" rows, "OK n" / "ERR code" otherwise).
 * setup() / reopen() (a restart over the same datadir) / teardown(); run(sql) returns the captured text.
 */
#ifndef STRATA_TEST_SQL_EXEC_HARNESS_H
#define STRATA_TEST_SQL_EXEC_HARNESS_H

#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "sql/exec/exec.h"
#include "sql/sql.h"
#include "unit.h"
#include "util/util.h"

static char dir[64];
static engine_t *eng;
static buf_t out;
static res_col_t last_cols[64];
static int last_ncols;

static inline void cap_columns(res_sink_t *s, const res_col_t *cols, int n)
{
    last_ncols = n;
    for (int i = 0; i < n && i < 64; i++)
        last_cols[i] = cols[i];
}
static inline void cap_row(res_sink_t *s, const res_cell_t *cells)
{
    for (int i = 0; i < last_ncols; i++) {
        if (i)
            buf_append_byte(&out, '|');
        if (cells[i].null)
            buf_append_str(&out, "NULL");
        else
            buf_append(&out, cells[i].p, cells[i].len);
    }
    buf_append_byte(&out, '\n');
}
static inline void cap_end(res_sink_t *s, bool more) {}
static inline void cap_ok(res_sink_t *s, uint64_t affected, uint64_t id, const char *info, bool more)
{
    buf_printf(&out, "OK %llu", (unsigned long long)affected);
    if (id)
        buf_printf(&out, " id=%llu", (unsigned long long)id);
    if (info)
        buf_printf(&out, " (%s)", info);
}
static inline void cap_error(res_sink_t *s) {}

static res_sink_t sink = {.columns = cap_columns, .row = cap_row, .rows_end = cap_end, .ok = cap_ok, .error = cap_error};
static sql_exec_session_t *ss;
static diag_t diag;
static arena_t arena;
static bool autocommit = true;

static inline void setup(void)
{
    strcpy(dir, "/tmp/strata_exec_XXXXXX");
    if (!mkdtemp(dir))
        abort();
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 8u << 20;
    o.log_bytes = 32u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 8u << 20;
    o.flush_mode = ENGINE_FLUSH_LAZY;
    if (engine_open(&o, &eng) || sql_exec_global_init(eng, dir))
        abort();
    ss = sql_exec_session_new();
    diag_init(&diag, 64);
    arena_init(&arena, 8192);
    buf_init(&out);
}

static inline void reopen(void)
{
    sql_exec_session_free(ss);
    sql_exec_global_shutdown();
    engine_close(eng);
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 8u << 20;
    if (engine_open(&o, &eng) || sql_exec_global_init(eng, dir))
        abort();
    ss = sql_exec_session_new();
}

static inline void teardown(void)
{
    sql_exec_session_free(ss);
    sql_exec_global_shutdown();
    engine_close(eng);
    diag_free(&diag);
    arena_destroy(&arena);
    buf_free(&out);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

/* Runs one statement; returns what the client would see, as text. */
static inline const char *run(const char *sql)
{
    buf_reset(&out);
    diag_clear(&diag);
    arena_reset(&arena);
    sql_stmt_list_t list;
    if (sql_parse(&arena, sql, strlen(sql), &list, &diag) != 0) {
        buf_printf(&out, "PARSE %d %s", diag.error_code, diag.error ? diag.error->msg : "");
        buf_append_byte(&out, 0);
        return (const char *)out.data;
    }
    sql_stmt_t *st = list.stmts[0];
    const char *txt;
    if (st->kind == SQL_STMT_BEGIN || st->kind == SQL_STMT_COMMIT || st->kind == SQL_STMT_ROLLBACK) {
        sql_exec_ctx_t x = {.arena = &arena, .diag = &diag, .ss = ss, .sink = &sink, .autocommit = autocommit, .db = "db"};
        int rc = st->kind == SQL_STMT_BEGIN ? sql_exec_begin(&x, false) : st->kind == SQL_STMT_COMMIT ? sql_exec_commit(&x) : sql_exec_rollback(&x);
        buf_printf(&out, rc ? "ERR" : "OK");
        buf_append_byte(&out, 0);
        return (const char *)out.data;
    }
    sql_exec_ctx_t x = {.arena = &arena, .diag = &diag, .db = "db", .user = "root", .host = "localhost",
                        .strict = true, .autocommit = autocommit, .isolation = 2, .ss = ss, .sink = &sink};
    int rc = sql_exec_stmt(&x, st);
    if (rc)
        buf_printf(&out, "ERR %d %s", diag.error_code, diag.error ? diag.error->msg : "");
    buf_append_byte(&out, 0);
    out.len--;
    txt = (const char *)out.data;
    return txt;
}

#define CHECK_SQL(sql, want) CHECK_EQ_STR(run(sql), want)

#endif
