/* Unit tests for session/sysvar: lookups, defaults, SET's checks with MariaDB 10.11's exact errors and warnings
 * (each expectation below was read off a live MariaDB 10.11), session/global interplay, SHOW and LIKE. */
#include <pthread.h>

#include "unit.h"
#include "session/status.h"
#include "session/sysvar.h"
#include "util/diag.h"

static sysvar_store_t st;
static sysvar_session_t ss;
static diag_t d;
static arena_t a;

static void setup(void)
{
    sysvar_store_init(&st);
    sysvar_session_init(&ss, &st, NULL);
    diag_init(&d, 64);
    arena_init(&a, 1024);
}

static void teardown(void)
{
    sysvar_session_destroy(&ss);
    sysvar_store_destroy(&st);
    diag_free(&d);
    arena_destroy(&a);
}

/* Text of a variable as SHOW VARIABLES prints it (static buffer). */
static const char *txt(const char *name, sysvar_scope_t scope)
{
    static char out[4096];
    buf_t b;
    buf_init(&b);
    const sysvar_def_t *def = sysvar_find(name);
    if (!def)
        return "(unknown)";
    sysvar_get_text(&st, &ss, def, scope, &b);
    snprintf(out, sizeof out, "%.*s", (int)b.len, b.len ? (const char *)b.data : "");
    buf_free(&b);
    return out;
}

static const char *last_msg(void) { return d.n ? d.conds[d.n - 1].msg : "(none)"; }

TEST(test_find)
{
    CHECK(sysvar_find("autocommit") != NULL);
    CHECK(sysvar_find("AutoCommit") == sysvar_find("autocommit"));
    CHECK(sysvar_find("max-connections") == sysvar_find("max_connections"));
    CHECK(sysvar_find("nonesuch") == NULL);
    CHECK(sysvar_find("max_connection") == NULL);
    CHECK(sysvar_find("max_connectionsx") == NULL);
    CHECK(sysvar_findn("portXYZ", 4) == sysvar_find("port"));
    /* every row is findable, and the table is sorted */
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        CHECK(sysvar_find(sysvar_defs[i].name) == &sysvar_defs[i]);
        if (i)
            CHECK(strcmp(sysvar_defs[i - 1].name, sysvar_defs[i].name) < 0);
    }
    CHECK_EQ_INT(sysvar_find("tx_isolation")->id, SYSVAR_TX_ISOLATION);
    CHECK_EQ_INT(sysvar_find("transaction_isolation")->target, SYSVAR_TX_ISOLATION);
}

TEST(test_defaults)
{
    setup();
    CHECK_EQ_STR(txt("autocommit", SYSVAR_SESSION), "ON");
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION),
                 "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");
    CHECK_EQ_STR(txt("max_allowed_packet", SYSVAR_GLOBAL), "16777216");
    CHECK_EQ_STR(txt("sql_select_limit", SYSVAR_SESSION), "18446744073709551615");
    CHECK_EQ_STR(txt("long_query_time", SYSVAR_SESSION), "10.000000");
    CHECK_EQ_STR(txt("tx_isolation", SYSVAR_SESSION), "REPEATABLE-READ");
    CHECK_EQ_STR(txt("transaction_isolation", SYSVAR_SESSION), "REPEATABLE-READ");
    CHECK_EQ_STR(txt("wait_timeout", SYSVAR_SESSION), "28800");
    CHECK_EQ_STR(txt("character_set_client", SYSVAR_SESSION), "utf8mb4");
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "utf8mb4_general_ci");
    CHECK_EQ_STR(txt("version", SYSVAR_GLOBAL), STRATA_VERSION_STRING);
    CHECK_EQ_STR(txt("time_zone", SYSVAR_SESSION), "SYSTEM");
    CHECK_EQ_STR(txt("performance_schema", SYSVAR_GLOBAL), "ON"); /* strata records digests by default */
    CHECK_EQ_STR(txt("max_user_connections", SYSVAR_GLOBAL), "0");
    CHECK_EQ_STR(txt("tls_version", SYSVAR_GLOBAL), "TLSv1.2,TLSv1.3");
    CHECK_EQ_STR(txt("binlog_checksum", SYSVAR_GLOBAL), "CRC32");
    CHECK_EQ_STR(txt("default_storage_engine", SYSVAR_SESSION), "InnoDB");
    CHECK_EQ_STR(txt("default_tmp_storage_engine", SYSVAR_SESSION), "");
    CHECK(strncmp(txt("optimizer_switch", SYSVAR_SESSION), "index_merge=on,index_merge_union=on,", 36) == 0);
    CHECK(atoi(txt("thread_pool_size", SYSVAR_GLOBAL)) >= 1);
    CHECK(strlen(txt("hostname", SYSVAR_GLOBAL)) > 0);
    CHECK_EQ_INT(sysvar_session_int(&ss, SYSVAR_AUTOCOMMIT), 1);
    CHECK_EQ_INT(sysvar_global_int(&st, SYSVAR_MAX_CONNECTIONS), 4096);
    /* every default parses back: DEFAULT on each settable variable succeeds */
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        const sysvar_def_t *def = &sysvar_defs[i];
        bool sess_only = sysvar_defs[def->target].scope == SV_SCOPE_SESSION_ONLY;
        if (sess_only && (sysvar_defs[def->target].flags & SV_RO))
            continue;
        sysvar_scope_t sc = sess_only ? SYSVAR_SESSION : SYSVAR_STARTUP;
        CHECK_EQ_INT(sysvar_set_default(&st, &ss, def, sc, &d), 0);
    }
    CHECK_EQ_INT(d.error_count, 0);
    teardown();
}

TEST(test_int_clamp)
{
    setup();
    const sysvar_def_t *mc = sysvar_find("max_connections");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, mc, SYSVAR_GLOBAL, 0, false, &d), 0);
    CHECK_EQ_INT(d.n, 1);
    CHECK_EQ_INT(d.conds[0].code, 1292);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect max_connections value: '0'");
    CHECK_EQ_STR(txt("max_connections", SYSVAR_GLOBAL), "10");
    diag_clear(&d);
    sysvar_set_int(&st, &ss, mc, SYSVAR_GLOBAL, -5, false, &d);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect max_connections value: '-5'");
    CHECK_EQ_STR(txt("max_connections", SYSVAR_GLOBAL), "10");
    diag_clear(&d);
    sysvar_set_int(&st, &ss, mc, SYSVAR_GLOBAL, 999999999, false, &d);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect max_connections value: '999999999'");
    CHECK_EQ_STR(txt("max_connections", SYSVAR_GLOBAL), "100000");
    diag_clear(&d);
    /* block size: rounded down with a warning */
    sysvar_set_int(&st, &ss, sysvar_find("max_allowed_packet"), SYSVAR_GLOBAL, 2047, false, &d);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect max_allowed_packet value: '2047'");
    CHECK_EQ_STR(txt("max_allowed_packet", SYSVAR_GLOBAL), "1024");
    diag_clear(&d);
    sysvar_set_int(&st, &ss, sysvar_find("sort_buffer_size"), SYSVAR_SESSION, 1, false, &d);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect sort_buffer_size value: '1'");
    CHECK_EQ_STR(txt("sort_buffer_size", SYSVAR_SESSION), "1024");
    diag_clear(&d);
    /* exact value: no warning */
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_NONE, 100, false, &d), 0);
    CHECK_EQ_INT(d.n, 0);
    CHECK_EQ_STR(txt("wait_timeout", SYSVAR_SESSION), "100");
    CHECK_EQ_STR(txt("wait_timeout", SYSVAR_GLOBAL), "28800");
    /* unsigned 64-bit max */
    sysvar_set_int(&st, &ss, sysvar_find("sql_select_limit"), SYSVAR_NONE, -1, false, &d);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect sql_select_limit value: '-1'");
    CHECK_EQ_STR(txt("sql_select_limit", SYSVAR_SESSION), "0");
    diag_clear(&d);
    sysvar_set_int(&st, &ss, sysvar_find("sql_select_limit"), SYSVAR_NONE, (int64_t)UINT64_MAX, true, &d);
    CHECK_EQ_INT(d.n, 0);
    CHECK_EQ_STR(txt("sql_select_limit", SYSVAR_SESSION), "18446744073709551615");
    /* signed with -1 minimum */
    sysvar_set_int(&st, &ss, sysvar_find("max_user_connections"), SYSVAR_GLOBAL, -7, false, &d);
    CHECK_EQ_STR(txt("max_user_connections", SYSVAR_GLOBAL), "-1");
    CHECK_EQ_STR(last_msg(), "Truncated incorrect max_user_connections value: '-7'");
    diag_clear(&d);
    /* wrong types: 1232 */
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_NONE, "100", &d), -1232);
    CHECK_EQ_STR(last_msg(), "Incorrect argument type to variable 'wait_timeout'");
    CHECK_EQ_INT(sysvar_set_double(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_NONE, 100.7, &d), -1232);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_NONE, NULL, &d), -1232);
    CHECK_EQ_STR(txt("wait_timeout", SYSVAR_SESSION), "100");
    teardown();
}

TEST(test_bool_enum_double)
{
    setup();
    const sysvar_def_t *ac = sysvar_find("autocommit");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, ac, SYSVAR_NONE, 2, false, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'autocommit' can't be set to the value of '2'");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, ac, SYSVAR_NONE, -1, false, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'autocommit' can't be set to the value of '-1'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, ac, SYSVAR_NONE, "yes", &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'autocommit' can't be set to the value of 'yes'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, ac, SYSVAR_NONE, NULL, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'autocommit' can't be set to the value of 'NULL'");
    CHECK_EQ_INT(sysvar_set_double(&st, &ss, ac, SYSVAR_NONE, 1.0, &d), -1232);
    CHECK_EQ_STR(last_msg(), "Incorrect argument type to variable 'autocommit'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, ac, SYSVAR_NONE, "off", &d), 0);
    CHECK_EQ_INT(sysvar_session_int(&ss, SYSVAR_AUTOCOMMIT), 0);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, ac, SYSVAR_NONE, "true", &d), 0);
    CHECK_EQ_INT(sysvar_session_int(&ss, SYSVAR_AUTOCOMMIT), 1);
    sysvar_value_t v;
    CHECK_EQ_INT(sysvar_get(&st, &ss, ac, SYSVAR_NONE, &a, &v, &d), 0);
    CHECK_EQ_INT(v.kind, SYSVAR_V_INT);
    CHECK_EQ_INT(v.i, 1);

    const sysvar_def_t *tx = sysvar_find("tx_isolation");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, tx, SYSVAR_NONE, "read-committed", &d), 0);
    CHECK_EQ_STR(txt("tx_isolation", SYSVAR_SESSION), "READ-COMMITTED");
    CHECK_EQ_STR(txt("transaction_isolation", SYSVAR_SESSION), "READ-COMMITTED");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, tx, SYSVAR_NONE, 0, false, &d), 0);
    CHECK_EQ_STR(txt("tx_isolation", SYSVAR_SESSION), "READ-UNCOMMITTED");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, tx, SYSVAR_NONE, 7, false, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'tx_isolation' can't be set to the value of '7'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, tx, SYSVAR_NONE, "foo", &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'tx_isolation' can't be set to the value of 'foo'");
    CHECK_EQ_INT(sysvar_set_double(&st, &ss, tx, SYSVAR_NONE, 1.0, &d), -1232);
    CHECK_EQ_INT(sysvar_get(&st, &ss, tx, SYSVAR_NONE, &a, &v, &d), 0);
    CHECK_EQ_INT(v.kind, SYSVAR_V_STR);
    CHECK_EQ_STR(v.s, "READ-UNCOMMITTED");

    const sysvar_def_t *lq = sysvar_find("long_query_time");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, lq, SYSVAR_NONE, 5, false, &d), 0);
    CHECK_EQ_STR(txt("long_query_time", SYSVAR_SESSION), "5.000000");
    diag_clear(&d);
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, lq, SYSVAR_NONE, -1, false, &d), 0);
    CHECK_EQ_STR(last_msg(), "Truncated incorrect long_query_time value: '-1'");
    CHECK_EQ_STR(txt("long_query_time", SYSVAR_SESSION), "0.000000");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, lq, SYSVAR_NONE, "5", &d), -1232);
    CHECK_EQ_INT(sysvar_set_double(&st, &ss, sysvar_find("expire_logs_days"), SYSVAR_GLOBAL, 1.5, &d), 0);
    CHECK_EQ_STR(txt("expire_logs_days", SYSVAR_GLOBAL), "1.500000");
    CHECK_EQ_STR(txt("binlog_expire_logs_seconds", SYSVAR_GLOBAL), "129600");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("binlog_expire_logs_seconds"), SYSVAR_GLOBAL, 100000, false, &d), 0);
    CHECK_EQ_STR(txt("expire_logs_days", SYSVAR_GLOBAL), "1.157407");
    CHECK_EQ_INT(sysvar_get(&st, &ss, sysvar_find("timestamp"), SYSVAR_NONE, &a, &v, &d), 0);
    CHECK(v.kind == SYSVAR_V_DOUBLE && v.d > 1.6e9);
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("timestamp"), SYSVAR_NONE, 1000, false, &d), 0);
    CHECK_EQ_STR(txt("timestamp", SYSVAR_SESSION), "1000.000000");
    teardown();
}

TEST(test_sets)
{
    setup();
    const sysvar_def_t *sm = sysvar_find("sql_mode");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, "foo", &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'sql_mode' can't be set to the value of 'foo'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, "ansi,foo", &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'sql_mode' can't be set to the value of 'foo'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, " strict_trans_tables , ansi_quotes", &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'sql_mode' can't be set to the value of ' strict_trans_tables '");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, NULL, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'sql_mode' can't be set to the value of 'NULL'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, "ANSI", &d), 0);
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION), "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, "traditional", &d), 0);
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION),
                 "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
                 "TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sm, SYSVAR_NONE, 3, false, &d), 0);
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION), "REAL_AS_FLOAT,PIPES_AS_CONCAT");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sm, SYSVAR_NONE, (int64_t)1 << 40, false, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'sql_mode' can't be set to the value of '1099511627776'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, "strict_trans_tables,,", &d), 0);
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION), "STRICT_TRANS_TABLES");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sm, SYSVAR_NONE, "", &d), 0);
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION), "");
    CHECK_EQ_INT(sysvar_set_default(&st, &ss, sm, SYSVAR_NONE, &d), 0);
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_SESSION),
                 "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");

    const sysvar_def_t *os = sysvar_find("optimizer_switch");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, os, SYSVAR_NONE, "index_merge=off", &d), 0);
    CHECK(strncmp(txt("optimizer_switch", SYSVAR_SESSION), "index_merge=off,index_merge_union=on,", 37) == 0);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, os, SYSVAR_NONE, "index_merge=maybe", &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'optimizer_switch' can't be set to the value of 'index_merge=maybe'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, os, SYSVAR_NONE, "default", &d), 0);
    CHECK(strncmp(txt("optimizer_switch", SYSVAR_SESSION), "index_merge=on,", 15) == 0);
    char name[64];
    CHECK_EQ_INT(sysvar_value_name(sm, 2, name, sizeof name), 11);
    CHECK_EQ_STR(name, "ANSI_QUOTES");
    CHECK_EQ_INT(sysvar_value_name(sysvar_find("autocommit"), 1, name, sizeof name), 2);
    teardown();
}

TEST(test_scope_errors)
{
    setup();
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("version"), SYSVAR_GLOBAL, "x", &d), -1238);
    CHECK_EQ_STR(last_msg(), "Variable 'version' is a read only variable");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("version"), SYSVAR_NONE, "x", &d), -1238);
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("warning_count"), SYSVAR_GLOBAL, 1, false, &d), -1238);
    CHECK_EQ_STR(last_msg(), "Variable 'warning_count' is a read only variable");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("max_connections"), SYSVAR_NONE, 10, false, &d), -1229);
    CHECK_EQ_STR(last_msg(), "Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("max_connections"), SYSVAR_SESSION, 10, false, &d), -1229);
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("timestamp"), SYSVAR_GLOBAL, 10, false, &d), -1228);
    CHECK_EQ_STR(last_msg(), "Variable 'timestamp' is a SESSION variable and can't be used with SET GLOBAL");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("max_allowed_packet"), SYSVAR_SESSION, 1025, false, &d),
                 -1621);
    CHECK_EQ_STR(last_msg(), "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value");
    CHECK_EQ_INT(sysvar_set_by_name(&st, &ss, "foo_bar", SYSVAR_NONE, "1", &d), -1193);
    CHECK_EQ_STR(last_msg(), "Unknown system variable 'foo_bar'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("tls_version"), SYSVAR_GLOBAL, "x", &d), -1238);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("init_connect"), SYSVAR_NONE, "x", &d), -1229);
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("init_connect"), SYSVAR_GLOBAL, 5, false, &d), -1232);
    /* reads */
    sysvar_value_t v;
    CHECK_EQ_INT(sysvar_get(&st, &ss, sysvar_find("max_connections"), SYSVAR_SESSION, &a, &v, &d), -1238);
    CHECK_EQ_STR(last_msg(), "Variable 'max_connections' is a GLOBAL variable");
    CHECK_EQ_INT(sysvar_get(&st, &ss, sysvar_find("timestamp"), SYSVAR_GLOBAL, &a, &v, &d), -1238);
    CHECK_EQ_STR(last_msg(), "Variable 'timestamp' is a SESSION variable");
    CHECK_EQ_INT(sysvar_get(&st, &ss, sysvar_find("max_connections"), SYSVAR_NONE, &a, &v, &d), 0);
    CHECK_EQ_INT(v.kind, SYSVAR_V_UINT);
    CHECK_EQ_INT(v.u, 4096);
    /* start-up options may set read-only variables and use suffixes */
    CHECK_EQ_INT(sysvar_set_text(&st, NULL, sysvar_find("port"), SYSVAR_STARTUP, "3307", &d), 0);
    CHECK_EQ_STR(txt("port", SYSVAR_GLOBAL), "3307");
    CHECK_EQ_INT(sysvar_set_text(&st, NULL, sysvar_find("max_allowed_packet"), SYSVAR_STARTUP, "64M", &d), 0);
    CHECK_EQ_INT(sysvar_global_int(&st, SYSVAR_MAX_ALLOWED_PACKET), 64 << 20);
    CHECK_EQ_INT(sysvar_set_text(&st, NULL, sysvar_find("innodb_buffer_pool_size"), SYSVAR_STARTUP, "1g", &d), 0);
    CHECK_EQ_INT(sysvar_global_int(&st, SYSVAR_INNODB_BUFFER_POOL_SIZE), 1 << 30);
    CHECK_EQ_INT(sysvar_set_text(&st, NULL, sysvar_find("port"), SYSVAR_STARTUP, "12x", &d), -1232);
    teardown();
}

TEST(test_strings_charsets)
{
    setup();
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("character_set_client"), SYSVAR_NONE, "nonesuch", &d), -1115);
    CHECK_EQ_STR(last_msg(), "Unknown character set: 'nonesuch'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("character_set_client"), SYSVAR_NONE, NULL, &d), -1231);
    CHECK_EQ_STR(last_msg(), "Variable 'character_set_client' can't be set to the value of 'NULL'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("collation_connection"), SYSVAR_NONE, "nonesuch", &d), -1273);
    CHECK_EQ_STR(last_msg(), "Unknown collation: 'nonesuch'");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("character_set_client"), SYSVAR_NONE, 33, false, &d), 0);
    CHECK_EQ_STR(txt("character_set_client", SYSVAR_SESSION), "utf8mb3");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("character_set_client"), SYSVAR_NONE, "utf8", &d), 0);
    CHECK_EQ_STR(txt("character_set_client", SYSVAR_SESSION), "utf8mb3");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("collation_connection"), SYSVAR_NONE, 8, false, &d), 0);
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "latin1_swedish_ci");
    CHECK_EQ_STR(txt("character_set_connection", SYSVAR_SESSION), "latin1");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("character_set_connection"), SYSVAR_NONE, "utf8mb4", &d), 0);
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "utf8mb4_general_ci");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("character_set_results"), SYSVAR_NONE, NULL, &d), 0);
    CHECK_EQ_STR(txt("character_set_results", SYSVAR_SESSION), "");
    sysvar_value_t v;
    CHECK_EQ_INT(sysvar_get(&st, &ss, sysvar_find("character_set_results"), SYSVAR_NONE, &a, &v, &d), 0);
    CHECK_EQ_INT(v.kind, SYSVAR_V_NULL);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("time_zone"), SYSVAR_NONE, "nonesuch", &d), -1298);
    CHECK_EQ_STR(last_msg(), "Unknown or incorrect time zone: 'nonesuch'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("time_zone"), SYSVAR_NONE, "+14:00", &d), -1298);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("time_zone"), SYSVAR_NONE, "-13:00", &d), -1298);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("time_zone"), SYSVAR_NONE, "+5:30", &d), 0);
    CHECK_EQ_STR(txt("time_zone", SYSVAR_SESSION), "+05:30");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("lc_time_names"), SYSVAR_NONE, "xx", &d), -1649);
    CHECK_EQ_STR(last_msg(), "Unknown locale: 'xx'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("default_storage_engine"), SYSVAR_NONE, "foo", &d), -1286);
    CHECK_EQ_STR(last_msg(), "Unknown storage engine 'foo'");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("storage_engine"), SYSVAR_NONE, "myisam", &d), 0);
    CHECK_EQ_STR(txt("default_storage_engine", SYSVAR_SESSION), "MyISAM");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("init_connect"), SYSVAR_GLOBAL, NULL, &d), 0);
    CHECK_EQ_STR(txt("init_connect", SYSVAR_GLOBAL), "");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("init_connect"), SYSVAR_GLOBAL, "SET @a=1", &d), 0);
    char buf[64];
    CHECK_EQ_INT(sysvar_global_str(&st, SYSVAR_INIT_CONNECT, buf, sizeof buf), 8);
    CHECK_EQ_STR(buf, "SET @a=1");
    CHECK_EQ_STR(sysvar_session_str(&ss, SYSVAR_TIME_ZONE), "+05:30");
    teardown();
}

static int hook_calls;
static sysvar_id_t hook_last;
static void hook(void *arg, const sysvar_def_t *def)
{
    hook_calls++;
    hook_last = def->id;
}

TEST(test_session_global)
{
    setup();
    sysvar_store_set_hook(&st, hook, NULL);
    /* a new session starts from the current global */
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_GLOBAL, 50, false, &d), 0);
    CHECK_EQ_INT(hook_calls, 1);
    CHECK_EQ_INT(hook_last, SYSVAR_WAIT_TIMEOUT);
    CHECK_EQ_STR(txt("wait_timeout", SYSVAR_SESSION), "28800");
    sysvar_session_t s2;
    sysvar_session_init(&s2, &st, NULL);
    CHECK_EQ_INT(sysvar_session_int(&s2, SYSVAR_WAIT_TIMEOUT), 50);
    /* SET SESSION x = DEFAULT takes the global; SET GLOBAL x = DEFAULT the compiled default */
    CHECK_EQ_INT(sysvar_set_default(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_SESSION, &d), 0);
    CHECK_EQ_INT(sysvar_session_int(&ss, SYSVAR_WAIT_TIMEOUT), 50);
    CHECK_EQ_INT(sysvar_set_default(&st, &ss, sysvar_find("wait_timeout"), SYSVAR_GLOBAL, &d), 0);
    CHECK_EQ_INT(sysvar_global_int(&st, SYSVAR_WAIT_TIMEOUT), 28800);
    CHECK_EQ_INT(hook_calls, 2);
    /* strings are shared, then diverge */
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("time_zone"), SYSVAR_GLOBAL, "+01:00", &d), 0);
    CHECK_EQ_STR(sysvar_session_str(&s2, SYSVAR_TIME_ZONE), "SYSTEM");
    sysvar_session_reset(&s2);
    CHECK_EQ_STR(sysvar_session_str(&s2, SYSVAR_TIME_ZONE), "+01:00");
    sysvar_session_destroy(&s2);
    /* internal updates */
    sysvar_session_set_int(&ss, SYSVAR_LAST_INSERT_ID, 42);
    CHECK_EQ_STR(txt("identity", SYSVAR_SESSION), "42");
    sysvar_global_set_str(&st, SYSVAR_HAVE_SSL, "DISABLED");
    CHECK_EQ_STR(txt("have_ssl", SYSVAR_GLOBAL), "DISABLED");
    teardown();
}

static bool compute(void *arg, const sysvar_def_t *def, const sysvar_session_t *s, arena_t *ar, sysvar_value_t *out)
{
    if (def->id != SYSVAR_WARNING_COUNT)
        return false;
    out->kind = SYSVAR_V_UINT;
    out->u = 7;
    return true;
}

static int show_count;
static char show_names[4096];
static int show_cb(void *arg, const sysvar_def_t *def, const char *value, size_t len)
{
    show_count++;
    if (strlen(show_names) + strlen(def->name) + len + 3 >= sizeof show_names)
        return 0;
    strcat(show_names, def->name);
    strcat(show_names, "=");
    strcat(show_names, value);
    strcat(show_names, ";");
    return 0;
}

TEST(test_show_like)
{
    CHECK(sysvar_like("max%", "max_connections"));
    CHECK(sysvar_like("MAX%", "max_connections"));
    CHECK(sysvar_like("%connections", "max_connections"));
    CHECK(sysvar_like("max_connections", "maxXconnections")); /* _ is any character */
    CHECK(!sysvar_like("max\\_connections", "maxXconnections"));
    CHECK(sysvar_like("max\\_connections", "max_connections"));
    CHECK(sysvar_like("%", ""));
    CHECK(!sysvar_like("_", ""));
    CHECK(sysvar_like("a%b%c", "aXXbYYc"));
    CHECK(!sysvar_like("a%b%c", "aXXbYY"));
    CHECK(sysvar_like("%\\%%", "100%"));
    CHECK(!sysvar_like("%\\%%", "100"));

    setup();
    sysvar_store_set_compute(&st, compute, NULL);
    show_count = 0;
    show_names[0] = 0;
    sysvar_show(&st, &ss, SYSVAR_SESSION, "character\\_set\\_c%", show_cb, NULL);
    CHECK_EQ_INT(show_count, 2);
    CHECK_EQ_STR(show_names, "character_set_client=utf8mb4;character_set_connection=utf8mb4;");
    show_count = 0;
    show_names[0] = 0;
    sysvar_show(&st, &ss, SYSVAR_SESSION, "warning_count", show_cb, NULL);
    CHECK_EQ_STR(show_names, "warning_count=7;");
    show_count = 0;
    sysvar_show(&st, &ss, SYSVAR_GLOBAL, "warning_count", show_cb, NULL);
    CHECK_EQ_INT(show_count, 0);
    show_count = 0;
    sysvar_show(&st, &ss, SYSVAR_SESSION, NULL, show_cb, NULL);
    CHECK_EQ_INT(show_count, SYSVAR__COUNT);
    sysvar_value_t v;
    CHECK_EQ_INT(sysvar_get(&st, &ss, sysvar_find("warning_count"), SYSVAR_NONE, &a, &v, &d), 0);
    CHECK_EQ_INT(v.u, 7);
    config_opt_t opts[SYSVAR__COUNT];
    size_t nopts = sysvar_config_opts(opts, SYSVAR__COUNT);
    CHECK(nopts > 100 && nopts < SYSVAR__COUNT);
    buf_t help;
    buf_init(&help);
    config_help(opts, nopts, &help);
    buf_append_byte(&help, 0);
    CHECK(strstr((char *)help.data, "  --max-connections=#") != NULL);
    CHECK(strstr((char *)help.data, "  -P, --port=#") != NULL);
    CHECK(strstr((char *)help.data, "--autocommit ") != NULL);
    CHECK(strstr((char *)help.data, "--version=") == NULL);
    CHECK(strstr((char *)help.data, "--timestamp") == NULL);
    buf_free(&help);
    teardown();
}

TEST(test_set_names)
{
    setup();
    CHECK_EQ_INT(sysvar_set_names(&st, &ss, "nonesuch", NULL, &d), -1115);
    CHECK_EQ_STR(last_msg(), "Unknown character set: 'nonesuch'");
    CHECK_EQ_INT(sysvar_set_names(&st, &ss, "utf8mb4", "latin1_bin", &d), -1253);
    CHECK_EQ_STR(last_msg(), "COLLATION 'latin1_bin' is not valid for CHARACTER SET 'utf8mb4'");
    CHECK_EQ_INT(sysvar_set_names(&st, &ss, "latin1", NULL, &d), 0);
    CHECK_EQ_STR(txt("character_set_client", SYSVAR_SESSION), "latin1");
    CHECK_EQ_STR(txt("character_set_results", SYSVAR_SESSION), "latin1");
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "latin1_swedish_ci");
    CHECK_EQ_INT(sysvar_set_names(&st, &ss, "utf8mb4", "utf8mb4_bin", &d), 0);
    CHECK_EQ_STR(txt("character_set_connection", SYSVAR_SESSION), "utf8mb4");
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "utf8mb4_bin");
    CHECK_EQ_INT(sysvar_set_names(&st, &ss, NULL, NULL, &d), 0);
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "utf8mb4_general_ci");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("character_set_database"), SYSVAR_NONE, "latin1", &d), 0);
    CHECK_EQ_INT(sysvar_set_character_set(&st, &ss, "utf8mb3", &d), 0);
    CHECK_EQ_STR(txt("character_set_client", SYSVAR_SESSION), "utf8mb3");
    CHECK_EQ_STR(txt("character_set_results", SYSVAR_SESSION), "utf8mb3");
    CHECK_EQ_STR(txt("character_set_connection", SYSVAR_SESSION), "latin1");
    CHECK_EQ_STR(txt("collation_connection", SYSVAR_SESSION), "latin1_swedish_ci");
    const sysvar_collation_t *c = sysvar_collation_by_id(45);
    REQUIRE(c != NULL);
    CHECK_EQ_STR(c->name, "utf8mb4_general_ci");
    CHECK(sysvar_collation_by_id(255) == NULL);
    CHECK_EQ_STR(sysvar_collation_find("utf8_general_ci")->name, "utf8mb3_general_ci");
    teardown();
}

/* Readers take string references while a writer keeps replacing the global: under ASan a reader that kept a
 * freed string would be caught. */
static volatile int stop_flag;
static void *reader(void *arg)
{
    char buf[64];
    int n = 0;
    while (!stop_flag || n < 1000) {
        sysvar_session_t s;
        sysvar_session_init(&s, &st, NULL);
        const char *tz = sysvar_session_str(&s, SYSVAR_TIME_ZONE);
        if (!(tz[0] == '+' || tz[0] == 'S'))
            __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
        sysvar_global_str(&st, SYSVAR_TIME_ZONE, buf, sizeof buf);
        (void)sysvar_global_int(&st, SYSVAR_MAX_CONNECTIONS);
        sysvar_session_destroy(&s);
        n++;
    }
    return NULL;
}

TEST(test_concurrent_globals)
{
    setup();
    int bad = 0;
    pthread_t t[3];
    stop_flag = 0;
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, reader, &bad);
    diag_t dd;
    diag_init(&dd, 4);
    for (int i = 0; i < 20000; i++) {
        char tz[16];
        snprintf(tz, sizeof tz, "+%02d:00", i % 13);
        sysvar_set_text(&st, NULL, sysvar_find("time_zone"), SYSVAR_GLOBAL, tz, &dd);
        sysvar_set_int(&st, NULL, sysvar_find("max_connections"), SYSVAR_GLOBAL, 100 + i % 50, false, &dd);
    }
    stop_flag = 1;
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(dd.error_count, 0);
    diag_free(&dd);
    teardown();
}

static int check_calls;
static int check(void *arg, const sysvar_def_t *def, sysvar_scope_t scope, sysvar_session_t *sess,
                 const sysvar_value_t *nv, diag_t *dg)
{
    check_calls++;
    if (def->id == SYSVAR_GTID_SLAVE_POS && nv->kind == SYSVAR_V_STR && strchr(nv->s, 'x'))
        return diag_error(dg, ER_WRONG_VALUE_FOR_VAR, def->name, nv->s);
    if (def->id == SYSVAR_MAX_CONNECTIONS && nv->u == 13)
        return diag_error(dg, ER_WRONG_VALUE_FOR_VAR, def->name, "13");
    return 0;
}

TEST(test_check_hook)
{
    setup();
    sysvar_store_set_check(&st, check, NULL);
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("gtid_slave_pos"), SYSVAR_GLOBAL, "0-1-x", &d), -1231);
    CHECK_EQ_STR(txt("gtid_slave_pos", SYSVAR_GLOBAL), "");
    CHECK_EQ_INT(sysvar_set_text(&st, &ss, sysvar_find("gtid_slave_pos"), SYSVAR_GLOBAL, "0-1-100", &d), 0);
    CHECK_EQ_STR(txt("gtid_slave_pos", SYSVAR_GLOBAL), "0-1-100");
    CHECK_EQ_INT(sysvar_set_int(&st, &ss, sysvar_find("max_connections"), SYSVAR_GLOBAL, 13, false, &d), -1231);
    CHECK_EQ_INT(sysvar_global_int(&st, SYSVAR_MAX_CONNECTIONS), 4096);
    CHECK_EQ_INT(check_calls, 3);
    /* alias rows defer to their target */
    const sysvar_def_t *ti = sysvar_find("transaction_isolation");
    CHECK_EQ_INT(ti->slot, -1);
    CHECK_EQ_INT(sysvar_real(ti)->type, SV_T_ENUM);
    CHECK_EQ_INT(sysvar_real(ti)->scope, SV_SCOPE_BOTH);
    teardown();
}

TEST(test_apply_config)
{
    setup();
    config_opt_t opts[SYSVAR__COUNT + 1];
    size_t n = sysvar_config_opts(opts, SYSVAR__COUNT);
    opts[n++] = (config_opt_t){"help", CONFIG_ARG_NONE, '?', "Display this help and exit", NULL, NULL};
    config_t cfg;
    char *argv[] = {"stratad", "-P", "3310", "--max-connections=0", "--max_allowed_packet=64M", "--skip-autocommit",
                    "--sql-mode=ANSI", "--help", "--transaction-isolation=READ-COMMITTED", "--log-error",
                    "--bind-address=0.0.0.0", "--skip-bind-address"};
    REQUIRE(config_load(&cfg, ARRAY_LEN(argv), argv, opts, n, NULL, NULL) == 0);
    char err[256] = "";
    CHECK_EQ_INT(sysvar_apply_config(&st, &cfg, err, sizeof err), 0);
    CHECK_EQ_STR(err, "");
    CHECK_EQ_STR(txt("port", SYSVAR_GLOBAL), "3310");
    CHECK_EQ_STR(txt("max_connections", SYSVAR_GLOBAL), "10");
    CHECK_EQ_STR(txt("max_allowed_packet", SYSVAR_GLOBAL), "67108864");
    CHECK_EQ_STR(txt("autocommit", SYSVAR_GLOBAL), "OFF");
    CHECK_EQ_STR(txt("sql_mode", SYSVAR_GLOBAL), "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI");
    CHECK_EQ_STR(txt("tx_isolation", SYSVAR_GLOBAL), "READ-COMMITTED");
    CHECK_EQ_STR(txt("bind_address", SYSVAR_GLOBAL), "127.0.0.1");
    CHECK(config_get(&cfg, "log_error") && config_get(&cfg, "log_error")->value == NULL);
    CHECK(config_get(&cfg, "help") != NULL);
    config_free(&cfg);
    char *bad[] = {"stratad", "--port=12x"};
    REQUIRE(config_load(&cfg, 2, bad, opts, n, NULL, NULL) == 0);
    CHECK_EQ_INT(sysvar_apply_config(&st, &cfg, err, sizeof err), -1);
    CHECK_EQ_STR(err, "option 'port' (command line): Incorrect argument type to variable 'port'");
    config_free(&cfg);
    char *bad2[] = {"stratad", "--tx-isolation=sloppy"};
    REQUIRE(config_load(&cfg, 2, bad2, opts, n, NULL, NULL) == 0);
    CHECK_EQ_INT(sysvar_apply_config(&st, &cfg, err, sizeof err), -1);
    CHECK_EQ_STR(err, "option 'tx_isolation' (command line): Variable 'tx_isolation' can't be set to the value of 'sloppy'");
    config_free(&cfg);
    teardown();
}

/* docs/variables.md lists every system and status variable (the tests run from the repository root). */
TEST(test_docs_list_every_variable)
{
    FILE *f = fopen("docs/variables.md", "r");
    REQUIRE(f != NULL);
    static char doc[256 * 1024];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    doc[n] = 0;
    fclose(f);
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        char want[128];
        snprintf(want, sizeof want, "| %s |", sysvar_defs[i].name);
        if (!strstr(doc, want)) {
            fprintf(stderr, "docs/variables.md lacks %s\n", sysvar_defs[i].name);
            CHECK(0);
        }
    }
    for (unsigned i = 0; i < status_ndefs; i++) {
        const char *name = status_defs[i].name;
        const char *pre[] = {"Com_", "Handler_", "Innodb_"};
        char want[128];
        snprintf(want, sizeof want, "| %s |", name);
        for (size_t k = 0; k < ARRAY_LEN(pre); k++)
            if (strncmp(name, pre[k], strlen(pre[k])) == 0)
                snprintf(want, sizeof want, " %s", name + strlen(pre[k]));
        if (!strstr(doc, want)) {
            fprintf(stderr, "docs/variables.md lacks %s\n", name);
            CHECK(0);
        }
    }
}

UNIT_MAIN(test_find, test_defaults, test_int_clamp, test_bool_enum_double, test_sets, test_scope_errors,
          test_strings_charsets, test_session_global, test_show_like, test_set_names, test_concurrent_globals,
          test_check_hook, test_apply_config, test_docs_list_every_variable)
