/* Unit tests for session/status: per-session counters and their global sums, server-wide counters, computed
 * variables, SHOW STATUS with LIKE, FLUSH STATUS as MariaDB 10.11 does it, and concurrent increments. */
#include <pthread.h>

#include "unit.h"
#include "session/status.h"

static status_t st;

static char shown[8192];
static int nshown;
static int show_cb(void *arg, const status_def_t *def, const char *value, size_t len)
{
    nshown++;
    if (strlen(shown) + strlen(def->name) + len + 3 < sizeof shown) {
        strcat(shown, def->name);
        strcat(shown, "=");
        strcat(shown, value);
        strcat(shown, ";");
    }
    return 0;
}

static const char *show(status_session_t *s, bool global, const char *like)
{
    shown[0] = 0;
    nshown = 0;
    status_show(&st, s, global, like, show_cb, NULL);
    return shown;
}

TEST(test_table)
{
    CHECK(status_ndefs > 300);
    CHECK(status_find("Com_select") != NULL);
    CHECK(status_find("com_SELECT") == status_find("Com_select"));
    CHECK(status_find("Com_selectx") == NULL);
    CHECK_EQ_INT(status_find("Com_select")->kind, STATUS_K_SESS);
    CHECK_EQ_INT(status_find("Com_select")->slot, STATUS_COM_SELECT);
    CHECK_EQ_INT(status_find("Connections")->kind, STATUS_K_GLOBAL);
    CHECK_EQ_INT(status_find("Uptime")->kind, STATUS_K_FUNC);
    CHECK_EQ_INT(status_find("Ssl_cipher")->kind, STATUS_K_TEXT);
    for (unsigned i = 0; i < status_ndefs; i++)
        CHECK(status_find(status_defs[i].name) == &status_defs[i]);
    /* the names clients and exporters look for */
    const char *must[] = {"Aborted_clients", "Aborted_connects", "Bytes_received", "Bytes_sent", "Com_insert",
                          "Com_update", "Com_delete", "Com_set_option", "Com_show_variables", "Com_show_status",
                          "Com_show_warnings", "Com_begin", "Com_commit", "Com_rollback", "Com_create_user",
                          "Com_drop_user", "Com_alter_user", "Com_stmt_prepare", "Com_stmt_execute",
                          "Com_stmt_close", "Com_stmt_reset", "Com_stmt_send_long_data", "Com_change_db",
                          "Com_kill", "Com_shutdown", "Com_flush", "Com_create_table", "Max_used_connections",
                          "Questions", "Queries", "Threads_connected", "Threads_running", "Threads_created",
                          "Threads_cached", "Uptime_since_flush_status", "Open_tables", "Opened_tables",
                          "Slow_queries", "Ssl_accepts", "Ssl_finished_accepts", "Ssl_version", "Memory_used",
                          "Handler_read_rnd_next", "Innodb_buffer_pool_pages_total", "Binlog_commits",
                          "Rpl_semi_sync_master_yes_tx", "Created_tmp_tables", "Select_scan", "Sort_rows",
                          "Table_locks_immediate", "Compression"};
    for (size_t i = 0; i < ARRAY_LEN(must); i++)
        if (!status_find(must[i])) {
            fprintf(stderr, "missing %s\n", must[i]);
            CHECK(0);
        }
}

TEST(test_session_and_global)
{
    status_init(&st);
    status_session_t a, b;
    status_session_init(&a, &st, NULL);
    status_session_init(&b, &st, NULL);
    status_inc(&a, STATUS_COM_SELECT);
    status_inc(&a, STATUS_COM_SELECT);
    status_inc(&b, STATUS_COM_SELECT);
    status_add(&b, STATUS_BYTES_SENT, 1000);
    CHECK_EQ_STR(show(&a, false, "Com_select"), "Com_select=2;");
    CHECK_EQ_STR(show(&b, false, "Com_select"), "Com_select=1;");
    CHECK_EQ_STR(show(&a, true, "Com_select"), "Com_select=3;");
    CHECK_EQ_STR(show(NULL, false, "bytes%"), "Bytes_received=0;Bytes_sent=1000;");
    /* a session that ends keeps counting in the global */
    status_session_end(&b);
    CHECK_EQ_STR(show(&a, true, "Com_select"), "Com_select=3;");
    CHECK_EQ_INT(status_sess_total(&st, STATUS_BYTES_SENT), 1000);
    /* server-wide counters look the same from a session */
    status_conn_opened(&st);
    status_conn_opened(&st);
    status_conn_closed(&st);
    CHECK_EQ_STR(show(&a, false, "Connections"), "Connections=2;");
    CHECK_EQ_STR(show(&a, false, "Threads_connected"), "Threads_connected=1;");
    CHECK_EQ_STR(show(&a, true, "Max_used_connections"), "Max_used_connections=2;");
    status_global_inc(&st, STATUS_ABORTED_CONNECTS);
    CHECK_EQ_STR(show(&a, true, "Aborted_connects"), "Aborted_connects=1;");
    /* FLUSH STATUS: the session restarts at 0, the global sum does not drop, Max_used_connections drops to
     * the current count, Connections is kept */
    status_flush(&st, &a);
    CHECK_EQ_STR(show(&a, false, "Com_select"), "Com_select=0;");
    CHECK_EQ_STR(show(&a, true, "Com_select"), "Com_select=3;");
    CHECK_EQ_STR(show(&a, true, "Max_used_connections"), "Max_used_connections=1;");
    CHECK_EQ_STR(show(&a, true, "Connections"), "Connections=2;");
    CHECK_EQ_STR(show(&a, true, "Uptime_since_flush_status"), "Uptime_since_flush_status=0;");
    status_session_end(&a);
    status_destroy(&st);
}

static bool compute(void *arg, status_func_t which, const status_session_t *s, uint64_t *num, buf_t *out)
{
    if (which == STATUS_SSL_CIPHER) {
        buf_append_str(out, s ? "TLS_AES_256_GCM_SHA384" : "");
        return true;
    }
    if (which == STATUS_COMPRESSION) {
        buf_append_str(out, "OFF");
        return true;
    }
    return false;
}

TEST(test_computed)
{
    status_init(&st);
    status_session_t a;
    status_session_init(&a, &st, NULL);
    CHECK_EQ_STR(show(&a, false, "Ssl_cipher"), "Ssl_cipher=;");
    status_set_compute(&st, compute, NULL);
    CHECK_EQ_STR(show(&a, false, "Ssl_cipher"), "Ssl_cipher=TLS_AES_256_GCM_SHA384;");
    CHECK_EQ_STR(show(&a, true, "Ssl_cipher"), "Ssl_cipher=;");
    CHECK_EQ_STR(show(&a, false, "Compression"), "Compression=OFF;");
    CHECK_EQ_STR(show(&a, false, "Uptime"), "Uptime=0;");
    void *p = mem_alloc(12345);
    buf_t b;
    buf_init(&b);
    status_get_text(&st, &a, true, status_find("Memory_used"), &b);
    buf_append_byte(&b, 0);
    CHECK(atoll((char *)b.data) >= 12345);
    buf_free(&b);
    mem_free(p);
    show(&a, false, NULL);
    CHECK_EQ_INT(nshown, (int)status_ndefs);
    show(&a, true, "Com\\_stmt\\_%");
    CHECK_EQ_INT(nshown, 7); /* close execute fetch prepare reprepare reset send_long_data */
    status_session_end(&a);
    status_destroy(&st);
}

#define NTHREADS 4
#define NINC 100000
static void *worker(void *arg)
{
    status_session_t s;
    status_session_init(&s, &st, NULL);
    for (int i = 0; i < NINC; i++) {
        status_inc(&s, STATUS_QUESTIONS);
        status_global_inc(&st, STATUS_THREADS_CREATED);
        if (i % 1000 == 0)
            (void)status_sess_total(&st, STATUS_QUESTIONS);
    }
    status_session_end(&s);
    return NULL;
}

TEST(test_concurrent)
{
    status_init(&st);
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ_INT(status_sess_total(&st, STATUS_QUESTIONS), NTHREADS * NINC);
    CHECK_EQ_INT(status_global_get(&st, STATUS_THREADS_CREATED), NTHREADS * NINC);
    CHECK(st.live == NULL);
    status_destroy(&st);
}

UNIT_MAIN(test_table, test_session_and_global, test_computed, test_concurrent)
