/*
 * Statement execution for what the session itself answers: SELECT without tables, SET, SHOW, USE, account
 * statements, KILL, SHUTDOWN, FLUSH, transaction control, PREPARE/EXECUTE/DEALLOCATE and DO.  Statements that
 * need tables go to the SQL executor once it exists; until then they answer ER_NOT_SUPPORTED_YET (1235).
 *
 * The diagnostics area follows MySQL's rule: every statement clears it before it runs, except the diagnostic
 * statements (SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) ...), which read the previous statement's conditions.
 * @@warning_count and @@error_count read the counts the previous statement left (prev_warn_count).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "binlog/binlog.h"
#include "util/blocking.h"
#include "session/event_sched.h"
#include "session/exec_repl.h"
#include "session/monitor.h"
#include "acl/acl.h"
#include "session/exec_grant.h" /* privilege statements */
#include "acl/priv.h"
#include "session/session.h"
#include "session/status.h"
#include "session/sysvar.h"
#include "session/ulock.h"
#include "session/sp_int.h"
#include "commit/commit.h"
#include "sql/exec/exec.h"
#include "sql/sql.h"
#include "sql/value/collation.h"
#include "sql/value/store.h"
#include "sql/value/tz.h"

/* ------------------------------------------------------------------ evaluation callbacks */

typedef struct exec_ctx {
    session_t *s;
    const value_t *params; /* prepared statement parameters, NULL if none */
    uint32_t nparams;
    const uint16_t *param_types; /* their wire types (COM_STMT_EXECUTE), NULL for SQL EXECUTE */
    sql_plan_t *plan;      /* the prepared statement's plan cache, NULL if none */
    /* SHOW ... WHERE: the current row's columns by name */
    const char *const *row_names;
    const char *const *row_vals;
    int row_n;
    /* a statement of a stored routine: where a CALL's OUT value for a `?` argument goes */
    sp_param_set_fn param_set;
    void *param_set_arg;
} exec_ctx_t;

/* Session variables a QUERY event carries (MariaDB's SESSION_VARIABLE_IN_BINLOG): reading one keeps a statement
 * safe for statement-based replication; reading any other variable makes it unsafe. */
static bool sysvar_in_binlog(const sysvar_def_t *def, sysvar_scope_t sc)
{
    static const char *const logged[] = {"auto_increment_increment", "auto_increment_offset", "character_set_client",
                                         "collation_connection", "collation_server", "collation_database",
                                         "foreign_key_checks", "unique_checks", "sql_auto_is_null", "sql_mode",
                                         "time_zone", "lc_time_names", "pseudo_thread_id", "timestamp",
                                         "insert_id", "last_insert_id", "rand_seed1", "rand_seed2"};
    if (sc == SYSVAR_GLOBAL)
        return false;
    for (size_t i = 0; i < ARRAY_LEN(logged); i++)
        if (strcasecmp(sysvar_real(def)->name, logged[i]) == 0)
            return true;
    return false;
}

static int cb_sysvar_get(void *user, sql_var_scope_t scope, const char *component, const char *name, value_t *out,
                         diag_t *d)
{
    exec_ctx_t *x = user;
    session_t *s = x->s;
    const sysvar_def_t *def = sysvar_find(name);
    if (!def || component) {
        char full[256];
        snprintf(full, sizeof full, "%s%s%s", component ? component : "", component ? "." : "", name);
        return diag_error(d, ER_UNKNOWN_SYSTEM_VARIABLE, full);
    }
    sysvar_scope_t sc = scope == SQL_SCOPE_GLOBAL ? SYSVAR_GLOBAL : scope == SQL_SCOPE_SESSION ? SYSVAR_SESSION : SYSVAR_NONE;
    if (s->sqlx && !sysvar_in_binlog(def, sc)) /* the statement is unsafe for statement-based replication */
        sql_exec_note(s->sqlx, SQLX_NOTE_UNSAFE);
    if (def->target == SYSVAR_WARNING_COUNT || def->target == SYSVAR_ERROR_COUNT) {
        *out = value_uint(def->target == SYSVAR_WARNING_COUNT ? s->prev_warn_count : s->prev_error_count);
        return 0;
    }
    sysvar_value_t v;
    int rc = sysvar_get(&s->srv->vars, &s->vars, def, sc, &s->arena, &v, d);
    if (rc)
        return rc;
    switch (v.kind) {
    case SYSVAR_V_NULL: *out = value_null(); break;
    case SYSVAR_V_INT: *out = value_int(v.i); break;
    case SYSVAR_V_UINT: *out = value_uint(v.u); break;
    case SYSVAR_V_DOUBLE: *out = value_double(v.d); break;
    case SYSVAR_V_STR: *out = value_str(v.s, v.len, COLL_UTF8MB3_GENERAL_CI); break;
    }
    return 0;
}

static uservar_t *uservar_find(session_t *s, const char *name)
{
    for (uservar_t *u = s->uservars; u; u = u->next)
        if (strcasecmp(u->name, name) == 0)
            return u;
    return NULL;
}

const value_t *session_uservar(session_t *s, const char *name)
{
    uservar_t *u = uservar_find(s, name);
    return u ? &u->v : NULL;
}

static int cb_uservar_get(void *user, const char *name, value_t *out)
{
    exec_ctx_t *x = user;
    uservar_t *u = uservar_find(x->s, name);
    *out = u ? u->v : value_null();
    /* a copy: the statement may assign the variable while this value is still in use (SELECT @a, @a := 'x') */
    if (u && (out->type == VAL_STRING || out->type == VAL_DECIMAL))
        out->s.ptr = arena_strndup(&x->s->arena, out->s.ptr, out->s.len);
    return 0;
}

static void uservar_store(session_t *s, const char *name, const value_t *v)
{
    uservar_t *u = uservar_find(s, name);
    if (!u) {
        u = mem_calloc(1, sizeof *u);
        u->name = mem_strdup(name);
        for (char *p = u->name; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        u->next = s->uservars;
        s->uservars = u;
    }
    char *old = u->data; /* freed last: v may point into it (SET @a = @a) */
    u->data = NULL;
    u->v = *v;
    if (v->type == VAL_STRING || v->type == VAL_DECIMAL) {
        u->data = mem_alloc(v->s.len + 1);
        memcpy(u->data, v->s.ptr, v->s.len);
        u->data[v->s.len] = 0;
        u->v.s.ptr = u->data;
    }
    mem_free(old);
}

static int cb_uservar_set(void *user, const char *name, const value_t *v)
{
    exec_ctx_t *x = user;
    uservar_store(x->s, name, v);
    return 0;
}

static int cb_session_fn(void *user, sql_session_fn_t fn, value_t *out)
{
    exec_ctx_t *x = user;
    session_t *s = x->s;
    switch (fn) {
    case SQL_SFN_DATABASE:
        *out = s->db ? value_str(s->db, strlen(s->db), COLL_UTF8MB3_GENERAL_CI) : value_null();
        break;
    case SQL_SFN_USER: {
        char *t = arena_printf(&s->arena, "%s@%s", s->user, s->host);
        *out = value_str(t, strlen(t), COLL_UTF8MB3_GENERAL_CI);
        break;
    }
    case SQL_SFN_CURRENT_USER: {
        char *t = arena_printf(&s->arena, "%s@%s", s->priv_user, s->priv_host);
        *out = value_str(t, strlen(t), COLL_UTF8MB3_GENERAL_CI);
        break;
    }
    case SQL_SFN_CURRENT_ROLE:
        *out = s->role[0] ? value_str(s->role, strlen(s->role), COLL_UTF8MB3_GENERAL_CI) : value_null();
        break;
    case SQL_SFN_CONNECTION_ID: *out = value_uint(s->id); break;
    case SQL_SFN_LAST_INSERT_ID: *out = value_uint(s->last_insert_id); break;
    case SQL_SFN_FOUND_ROWS: *out = value_uint(s->found_rows); break;
    case SQL_SFN_ROW_COUNT: *out = value_int(s->row_count); break;
    case SQL_SFN_VERSION:
        *out = value_str(s->srv->version, strlen(s->srv->version), COLL_UTF8MB3_GENERAL_CI);
        break;
    }
    return 0;
}

static int cb_set_last_insert_id(void *user, uint64_t id)
{
    exec_ctx_t *x = user;
    x->s->last_insert_id = id;
    return 0;
}

static int cb_param_get(void *user, uint32_t index, value_t *out)
{
    exec_ctx_t *x = user;
    *out = x->params && index < x->nparams ? x->params[index] : value_null();
    return 0;
}

static int cb_column_get(void *user, const sql_expr_t *col, value_t *out, diag_t *d)
{
    exec_ctx_t *x = user;
    for (int i = 0; i < x->row_n; i++) {
        if (strcasecmp(x->row_names[i], col->col.name) == 0) {
            *out = value_str(x->row_vals[i], strlen(x->row_vals[i]), COLL_UTF8MB3_GENERAL_CI);
            return 0;
        }
    }
    return diag_error(d, ER_BAD_FIELD_ERROR, col->col.name, x->row_n ? "WHERE" : "SELECT");
}

/* SLEEP(n): waits in short slices so KILL QUERY / KILL interrupt it (1 = interrupted).  It holds its worker
 * while it waits; parking it as state is for later. */
static int cb_sleep(void *user, double seconds)
{
    exec_ctx_t *x = user;
    session_t *s = x->s;
    uint64_t end = time_mono_us() + (uint64_t)(seconds * 1e6);
    blocking_begin();
    const char *was = blocking_set_state("User sleep"); /* PROCESSLIST's State meanwhile, as MariaDB's */
    for (;;) {
        if (atomic_load(&s->kill_query) || atomic_load(&s->killed)) {
            atomic_store(&s->kill_query, false);
            blocking_set_state(was);
            blocking_end();
            return 1;
        }
        uint64_t now = time_mono_us();
        if (now >= end) {
            blocking_set_state(was);
            blocking_end();
            return 0;
        }
        uint64_t step = MIN(end - now, 20000);
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)step * 1000};
        nanosleep(&ts, NULL);
    }
}

/* GET_LOCK / RELEASE_LOCK / RELEASE_ALL_LOCKS / IS_FREE_LOCK / IS_USED_LOCK (session/ulock.h).  A wait blocks
 * this worker (the pool may grow meanwhile); PROCESSLIST shows it as "User lock". */
static int cb_user_lock(void *user, sql_fn_t fn, const char *name, size_t len, double timeout, value_t *out, diag_t *d)
{
    exec_ctx_t *x = user;
    session_t *s = x->s;
    switch (fn) {
    case SQL_FN_GET_LOCK: {
        uint64_t us = timeout >= 1.8e13 ? UINT64_MAX : (uint64_t)(timeout * 1e6 + 0.5);
        const char *was = blocking_set_state("User lock");
        int rc = ulock_get(&s->ulock, s->id, name, len, us, &s->kill_query, &s->killed, s->fd);
        blocking_set_state(was);
        if (rc == ULOCK_DEADLOCK)
            return diag_error(d, ER_LOCK_DEADLOCK);
        *out = rc == ULOCK_KILLED ? value_null() : value_int(rc == ULOCK_GOT);
        return 0;
    }
    case SQL_FN_RELEASE_LOCK: {
        int rc = ulock_release(s->ulock, name, len);
        *out = rc < 0 ? value_null() : value_int(rc);
        return 0;
    }
    case SQL_FN_RELEASE_ALL_LOCKS:
        *out = value_uint(ulock_release_all(s->ulock));
        return 0;
    case SQL_FN_IS_FREE_LOCK:
        *out = value_int(ulock_holder(name, len) == 0);
        return 0;
    case SQL_FN_IS_USED_LOCK: {
        uint32_t id = ulock_holder(name, len);
        *out = id ? value_uint(id) : value_null();
        return 0;
    }
    default:
        return diag_error(d, ER_NOT_SUPPORTED_YET, "this user-level lock function");
    }
}

static int cb_binlog_gtid_pos(void *user, const char *file, size_t len, uint64_t pos, value_t *out)
{
    exec_ctx_t *x = user;
    session_t *s = x->s;
    *out = value_null();
    if (!s->srv->binlog || pos == UINT64_MAX)
        return 0;
    char *name = arena_strndup(&s->arena, file, len);
    binlog_gtid_set_t set = {0};
    if (binlog_gtid_pos(s->srv->binlog, name, pos, &set) == 0) {
        buf_t b;
        buf_init(&b);
        binlog_gtid_set_format(&set, true, &b);
        char *t = arena_strndup(&s->arena, b.len ? (const char *)b.data : "", b.len);
        *out = value_str(t, b.len, COLL_UTF8MB3_GENERAL_CI);
        buf_free(&b);
    }
    binlog_gtid_set_free(&set);
    return 0;
}

static int cb_stored_fn(void *user, const sql_expr_t *call, const value_t *args, uint32_t nargs, arena_t *a,
                        bool nested, value_t *out, diag_t *d)
{
    (void)d;
    exec_ctx_t *x = user;
    return sp_function_call(x->s, call, args, nargs, a, nested, out);
}

static int cb_trigger(void *user, const struct cat_trigger *tr, sql_trg_row_t *row)
{
    exec_ctx_t *x = user;
    return sp_trigger_fire(x->s, tr, row);
}

static const sql_eval_cb_t exec_cb = {
    .stored_fn = cb_stored_fn,
    .trigger = cb_trigger,
    .binlog_gtid_pos = cb_binlog_gtid_pos,
    .sleep = cb_sleep,
    .user_lock = cb_user_lock,
    .sysvar_get = cb_sysvar_get,
    .uservar_get = cb_uservar_get,
    .uservar_set = cb_uservar_set,
    .session_fn = cb_session_fn,
    .set_last_insert_id = cb_set_last_insert_id,
    .param_get = cb_param_get,
    .column_get = cb_column_get,
};

/* The collation a character-set variable (character_set_client / _results: its default collation) or a
 * collation variable (collation_connection) names; 0 when NULL or unknown. */
static uint16_t sess_coll(session_t *s, sysvar_id_t id, bool is_collation)
{
    const char *n = sysvar_session_str(&s->vars, id);
    if (!n || !*n)
        return 0;
    int c = is_collation ? value_coll_by_name(n, strlen(n)) : value_charset_default_coll(n, strlen(n));
    return c > 0 ? (uint16_t)c : 0;
}

/* Statement text arrives in character_set_client; the parser reads utf8mb4.  Single-byte client charsets
 * (latin1) are converted (into arena); UTF-8 and binary clients' text is used as it is. */
static const char *client_text(session_t *s, arena_t *a, const char *sql, size_t *len)
{
    uint16_t cc = sess_coll(s, SYSVAR_CHARACTER_SET_CLIENT, false);
    if (!cc || cc == COLL_BINARY || value_coll_mbmaxlen(cc) > 1)
        return sql;
    size_t n, bad;
    const char *t = sql_str_convert(a, sql, *len, cc, COLL_UTF8MB4_GENERAL_CI, &n, &bad);
    *len = n;
    return t;
}

/* A result string in character_set_results (NULL / binary: as it is). */
static const char *result_text(session_t *s, const value_t *v, uint16_t rcoll, size_t *len)
{
    if (v->type == VAL_STRING && rcoll && rcoll != COLL_BINARY && v->coll != COLL_BINARY && v->coll != rcoll) {
        size_t bad;
        return sql_str_convert(&s->arena, v->s.ptr, v->s.len, v->coll, rcoll, len, &bad);
    }
    return value_to_text(&s->arena, v, len);
}

/* ERROR_FOR_DIVISION_BY_ZERO (bit 26 of sql_mode) is not set: x/0 is NULL without warning 1365. */
static bool session_div_zero_off(session_t *s)
{
    return (sysvar_session_int(&s->vars, SYSVAR_SQL_MODE) & (1ll << 26)) == 0;
}

static void exec_eval_init(exec_ctx_t *x, sql_eval_ctx_t *ev)
{
    session_t *s = x->s;
    sql_tz_set(sysvar_session_str(&s->vars, SYSVAR_TIME_ZONE)); /* NOW() in @@time_zone (sql/value/tz.h) */
    sql_eval_ctx_init(ev, &s->arena, &s->diag, &exec_cb, x);
    ev->max_allowed_packet = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MAX_ALLOWED_PACKET);
    ev->div_precision_increment = (uint32_t)sysvar_session_int(&s->vars, SYSVAR_DIV_PRECISION_INCREMENT);
    ev->div_zero_off = session_div_zero_off(s); /* SELECT 1/0 without a table: 1365 only with the mode */
    ev->conn_coll = sess_coll(s, SYSVAR_COLLATION_CONNECTION, true);
    ev->regex_flags = (uint32_t)sysvar_session_int(&s->vars, SYSVAR_DEFAULT_REGEX_FLAGS);
    if (s->sp_into) /* SELECT ... INTO a routine's variables: a data change for x/0 (MariaDB) */
        ev->div_zero_error = (sysvar_session_int(&s->vars, SYSVAR_SQL_MODE) & (3ll << 21)) != 0 && !ev->div_zero_off;
}

/* ------------------------------------------------------------------ result helpers */

/* A result of text columns (SHOW ...): VARCHAR columns in utf8mb3 as MariaDB declares them. */
typedef struct text_rs {
    session_t *s;
    res_sink_t *sink;
    res_col_t cols[16];
    int n;
    bool started;
} text_rs_t;

static void trs_col(text_rs_t *r, const char *name, uint32_t chars, uint8_t type)
{
    res_col_t *c = &r->cols[r->n++];
    memset(c, 0, sizeof *c);
    c->name = c->org_name = name;
    c->schema = c->table = c->org_table = "";
    c->type = type;
    if (type == MYSQL_TYPE_VAR_STRING || type == MYSQL_TYPE_STRING) {
        c->charset = 33; /* utf8mb3_general_ci */
        c->length = chars * 3;
    } else {
        c->charset = CHARSET_BINARY;
        c->length = chars;
        c->flags = COLF_NUM | COLF_NOT_NULL;
        if (type == MYSQL_TYPE_LONGLONG || type == MYSQL_TYPE_LONG)
            c->flags |= COLF_UNSIGNED;
    }
}

static void trs_start(text_rs_t *r)
{
    if (!r->started) {
        r->sink->columns(r->sink, r->cols, r->n);
        r->started = true;
    }
}

static void trs_row(text_rs_t *r, const char *const *vals)
{
    trs_start(r);
    res_cell_t cells[16];
    for (int i = 0; i < r->n; i++) {
        cells[i].null = vals[i] == NULL;
        cells[i].p = vals[i] ? vals[i] : "";
        cells[i].len = vals[i] ? strlen(vals[i]) : 0;
    }
    r->sink->row(r->sink, cells);
}

static void trs_end(text_rs_t *r, bool more)
{
    trs_start(r);
    r->sink->rows_end(r->sink, more);
}

/* ------------------------------------------------------------------ the SQL executor (tables) */


/* The SQL_PARSE_* flags of the session's sql_mode (a SET: bit i = the i-th name of its list in sysvar.def:
 * 1 PIPES_AS_CONCAT, 2 ANSI_QUOTES, 20 NO_BACKSLASH_ESCAPES, 29 HIGH_NOT_PRECEDENCE). */
unsigned session_parse_mode(session_t *s)
{
    int64_t m = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    return ((m & (1ll << 1)) ? SQL_PARSE_PIPES_AS_CONCAT : 0u) | ((m & (1ll << 2)) ? SQL_PARSE_ANSI_QUOTES : 0u) |
           ((m & (1ll << 20)) ? SQL_PARSE_NO_BACKSLASH_ESCAPES : 0u) |
           ((m & (1ll << 29)) ? SQL_PARSE_HIGH_NOT_PRECEDENCE : 0u);
}

/* A statement context for the executor (sql/exec/exec.h) from the session's state. */
/* The executor's row filter for SHOW DATABASES / SHOW TABLES / information_schema. */
static bool sqlx_visible(void *user, const char *db, const char *table)
{
    return table ? priv_table_visible(user, db, table) : priv_db_visible(user, db);
}

static unsigned sqlx_column_privs(void *user, const char *db, const char *table, const char *column)
{
    if (!strcasecmp(db, "information_schema"))
        return SQL_COLPRIV_SELECT;
    uint64_t p = priv_column(user, db, table, column);
    return (p & PRIV_SELECT ? SQL_COLPRIV_SELECT : 0) | (p & PRIV_INSERT ? SQL_COLPRIV_INSERT : 0) |
           (p & PRIV_UPDATE ? SQL_COLPRIV_UPDATE : 0) | (p & PRIV_REFERENCES ? SQL_COLPRIV_REFERENCES : 0);
}

static bool sqlx_trigger_visible(void *user, const char *db, const char *table)
{
    return (priv_table(user, db, table, NULL) & PRIV_TRIGGER) != 0;
}

static bool sqlx_event_visible(void *user, const char *db)
{
    return (priv_db(user, db) & PRIV_EVENT) != 0;
}

static bool sqlx_account_exists(void *user, const char *name, const char *host)
{
    session_t *s = user;
    acl_account_t acc;
    return !s->srv->acl || acl_get(s->srv->acl, name, host, &acc) == 0;
}

static const char *charset_description(const char *cs);

/* MariaDB 10.11 lists the uca1400 collations once, by their name without a character set (uca1400_ai_ci), in
 * SHOW COLLATION and COLLATIONS; NULL for the others. */
static const char *coll_charsetless_name(unsigned id)
{
    return id == COLL_UTF8MB4_UCA1400_AI_CI || id == COLL_UTF8MB3_UCA1400_AI_CI ? "uca1400_ai_ci" : NULL;
}

/* SHOW COLLATION's Sortlen: 8 for the UCA collations, as MariaDB says */
static const char *coll_sortlen(unsigned id)
{
    return coll_kind_of((uint16_t)id) == COLL_KIND_UCA ? "8" : "1";
}


typedef struct is_nv {
    void (*row)(void *arg, const char *const *vals);
    void *arg;
} is_nv_t;

/* information_schema.*_VARIABLES / *_STATUS: names upper-cased, as MariaDB lists them */
static void is_nv_row(is_nv_t *nv, const char *name, const char *value, size_t len)
{
    char up[128], val[4096];
    size_t n = strlen(name);
    for (size_t i = 0; i < n && i < sizeof up - 1; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    up[MIN(n, sizeof up - 1)] = 0;
    snprintf(val, sizeof val, "%.*s", (int)MIN(len, sizeof val - 1), value ? value : "");
    const char *v[2] = {up, val};
    nv->row(nv->arg, v);
}

static int is_var_row(void *arg, const sysvar_def_t *def, const char *value, size_t len)
{
    is_nv_row(arg, def->name, value, len);
    return 0;
}

static int is_status_row(void *arg, const status_def_t *def, const char *value, size_t len)
{
    is_nv_row(arg, def->name, value, len);
    return 0;
}

/* What strata has that MariaDB lists as plugins (SHOW PLUGINS, information_schema.PLUGINS): compiled in, always
 * active; semi-synchronous replication is no plugin in MariaDB 10.11 either. */
static const struct strata_plugin {
    const char *name, *version, *type, *type_version, *author, *description, *load, *auth_version;
} strata_plugins[] = {
    {"binlog", "1.0", "STORAGE ENGINE", "101106.0", "strata", "This is a pseudo storage engine to represent the binlog in a transaction", "FORCE", "1.0"},
    {"mysql_native_password", "1.0", "AUTHENTICATION", "2.2", "strata", "Native MySQL authentication", "FORCE", "1.0"},
    {"caching_sha2_password", "1.0", "AUTHENTICATION", "2.2", "strata", "MySQL 8's SHA-256 authentication with a cache of verified accounts", "FORCE", "1.0"},
    {"InnoDB", "10.11", "STORAGE ENGINE", "101106.0", "strata", "strata's transactional engine (InnoDB and NDB map to it)", "ON", "10.11.6"},
};

/* information_schema.SYSTEM_VARIABLES (MariaDB's): every variable with its values, origin and metadata. */
static void is_system_variables(session_t *s, void (*row)(void *arg, const char *const *vals), void *arg)
{
    buf_t sv, gv;
    buf_init(&sv);
    buf_init(&gv);
    for (int i = 0; i < SYSVAR__COUNT; i++) {
        const sysvar_def_t *def = &sysvar_defs[i], *real = sysvar_real(def);
        char up[128], mn[32], mx[32], bl[32];
        size_t n = strlen(def->name);
        for (size_t k = 0; k <= n && k < sizeof up; k++)
            up[k] = (char)toupper((unsigned char)def->name[k]);
        up[sizeof up - 1] = 0;
        bool has_sess = real->scope != SV_SCOPE_GLOBAL, has_glob = real->scope != SV_SCOPE_SESSION_ONLY;
        buf_reset(&sv);
        buf_reset(&gv);
        if (has_sess)
            sysvar_get_text(&s->srv->vars, &s->vars, def, SYSVAR_SESSION, &sv);
        if (has_glob)
            sysvar_get_text(&s->srv->vars, &s->vars, def, SYSVAR_GLOBAL, &gv);
        buf_append_byte(&sv, 0);
        buf_append_byte(&gv, 0);
        bool numeric = real->type == SV_T_UINT || real->type == SV_T_INT || real->type == SV_T_DOUBLE;
        const char *type = "VARCHAR";
        switch (real->type) {
        case SV_T_BOOL: type = "BOOLEAN"; break;
        case SV_T_UINT: type = "BIGINT UNSIGNED"; break;
        case SV_T_INT: type = "BIGINT"; break;
        case SV_T_DOUBLE: type = "DOUBLE"; break;
        case SV_T_ENUM: case SV_T_CHARSET: case SV_T_COLLATION: case SV_T_LOCALE: type = "ENUM"; break;
        case SV_T_SET: type = "SET"; break;
        case SV_T_FLAGSET: type = "FLAGSET"; break;
        default: break;
        }
        if (numeric) {
            if (real->type == SV_T_DOUBLE) {
                snprintf(mn, sizeof mn, "%lld", (long long)real->min);
                snprintf(mx, sizeof mx, "%llu", (unsigned long long)real->max);
            } else {
                snprintf(mn, sizeof mn, real->type == SV_T_UINT ? "%llu" : "%lld", (long long)real->min);
                snprintf(mx, sizeof mx, "%llu", (unsigned long long)real->max);
            }
            snprintf(bl, sizeof bl, "%llu", (unsigned long long)(real->block ? real->block : 1));
        }
        const char *enums = real->type == SV_T_BOOL ? "OFF,ON" : real->values;
        bool computed = (real->flags & SV_COMPUTED) != 0;
        const char *v[15] = {
            up,
            has_sess ? (const char *)sv.data : NULL,
            has_glob ? (const char *)gv.data : NULL,
            sysvar_origin(&s->srv->vars, def),
            computed || (real->flags & SV_NOOPT) ? NULL : real->dflt,
            real->scope == SV_SCOPE_BOTH ? "SESSION" : real->scope == SV_SCOPE_GLOBAL ? "GLOBAL" : "SESSION ONLY",
            type,
            real->desc ? real->desc : "",
            numeric ? mn : NULL,
            numeric ? mx : NULL,
            numeric && real->type != SV_T_DOUBLE ? bl : NULL,
            enums,
            (real->flags & SV_RO) ? "YES" : "NO",
            (real->flags & SV_NOOPT) ? NULL : real->type == SV_T_BOOL ? "OPTIONAL" : "REQUIRED",
            NULL,
        };
        row(arg, v);
    }
    buf_free(&sv);
    buf_free(&gv);
}

/* TRUNCATE of the performance_schema tables the session keeps (sql/exec/exec.h session_table_truncate). */
static void sqlx_session_table_truncate(void *user, const char *table)
{
    (void)user;
    if (strcmp(table, "events_statements_summary_by_digest") == 0)
        session_digest_truncate();
}

/* The rows of the information_schema tables the session knows (sql/exec/exec.h session_table). */
static void sqlx_session_table(void *user, const char *table, void (*row)(void *arg, const char *const *vals), void *arg)
{
    session_t *s = user;
    is_nv_t nv = {row, arg};
    if (strcmp(table, "SESSION_VARIABLES") == 0 || strcmp(table, "GLOBAL_VARIABLES") == 0) {
        sysvar_show(&s->srv->vars, &s->vars, table[0] == 'G' ? SYSVAR_GLOBAL : SYSVAR_SESSION, NULL, is_var_row, &nv);
    } else if (strcmp(table, "PLUGINS") == 0) {
        for (size_t i = 0; i < ARRAY_LEN(strata_plugins); i++) {
            const struct strata_plugin *pl = &strata_plugins[i];
            const char *v[13] = {pl->name, pl->version, "ACTIVE", pl->type, pl->type_version, NULL, NULL,
                                 pl->author, pl->description, "GPL", pl->load, "Stable", pl->auth_version};
            row(arg, v);
        }
    } else if (strcmp(table, "SYSTEM_VARIABLES") == 0) {
        is_system_variables(s, row, arg);
    } else if (strcmp(table, "SESSION_STATUS") == 0 || strcmp(table, "GLOBAL_STATUS") == 0) {
        status_show(&s->srv->status, &s->stat, table[0] == 'G', NULL, is_status_row, &nv);
    } else if (strcmp(table, "events_statements_summary_by_digest") == 0) {
        session_digest_rows(row, arg);
    } else if (strcmp(table, "ENGINES") == 0) {
        const char *v[6] = {"InnoDB", "DEFAULT", "strata's transactional engine (InnoDB and NDB map to it)", "YES",
                            "YES", "YES"};
        row(arg, v);
    } else if (strcmp(table, "CHARACTER_SETS") == 0 || strcmp(table, "COLLATIONS") == 0 ||
               strcmp(table, "COLLATION_CHARACTER_SET_APPLICABILITY") == 0) {
        bool cs = table[1] == 'H', appl = table[9] == '_';
        for (unsigned id = 1; id < 4096; id++) {
            const sysvar_collation_t *c = sysvar_collation_by_id(id);
            if (!c || (cs && !c->is_default))
                continue;
            char idt[12], maxlen[4];
            snprintf(idt, sizeof idt, "%u", c->id);
            snprintf(maxlen, sizeof maxlen, "%u", value_coll_mbmaxlen(c->id));
            const char *uca = coll_charsetless_name(c->id);
            if (cs) {
                const char *v[4] = {c->charset, c->name, charset_description(c->charset), maxlen};
                row(arg, v);
            } else if (appl) {
                const char *v[5] = {uca ? uca : c->name, c->charset, c->name, idt, c->is_default ? "Yes" : ""};
                row(arg, v);
            } else if (uca) { /* one row for the charset-less name, as MariaDB lists uca1400_ai_ci */
                if (c->id != COLL_UTF8MB4_UCA1400_AI_CI)
                    continue;
                const char *v[6] = {uca, NULL, NULL, NULL, "Yes", coll_sortlen(c->id)};
                row(arg, v);
            } else {
                const char *v[6] = {c->name, c->charset, idt, c->is_default ? "Yes" : "", "Yes",
                                    coll_sortlen(c->id)};
                row(arg, v);
            }
        }
    } else if (strcmp(table, "PROCESSLIST") == 0) {
        server_t *srv = s->srv;
        uint64_t now = time_wall_us();
        bool all = priv_has_global(s, PRIV_PROCESS); /* without PROCESS, only one's own threads */
        pthread_mutex_lock(&srv->sessions_lock);
        for (session_t *t = srv->sessions; t; t = t->next) {
            if (!all && t != s && strcmp(t->user, s->user) != 0)
                continue;
            char id[24], tm[24], tms[40], host[300];
            uint64_t us = now - (t->state_since_us ? t->state_since_us : t->connect_us);
            snprintf(id, sizeof id, "%u", t->id);
            snprintf(tm, sizeof tm, "%llu", (unsigned long long)(us / 1000000));
            snprintf(tms, sizeof tms, "%llu.%03llu", (unsigned long long)(us / 1000), (unsigned long long)(us % 1000));
            if (t->port)
                snprintf(host, sizeof host, "%s:%u", t->host, t->port);
            else
                snprintf(host, sizeof host, "%s", t->host);
            pthread_mutex_lock(&t->info_lock);
            char *info = t->info ? arena_strdup(&s->arena, t->info) : NULL;
            pthread_mutex_unlock(&t->info_lock);
            bool busy = t == s || t->state == SESS_QUERY;
            const char *v[18] = {id, t->user, host, t->db, t->command ? t->command : busy ? "Query" : "Sleep", tm, busy ? "Filling schema table" : "",
                                 busy ? info : NULL, tms, "0", "0", "0.000", "0", "0", "0", "0", busy ? info : NULL, id};
            const char *ps = atomic_load(&t->proc_state);
            if (t != s)
                v[6] = busy ? (ps ? ps : "starting") : "";
            row(arg, v);
        }
        pthread_mutex_unlock(&srv->sessions_lock);
    }
}

/* @@tmpdir is read-only (set at start-up): read once, then shared without a lock by every statement. */
static const char *sqlx_tmpdir(session_t *s)
{
    static char dir[512];
    static atomic_bool ready;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (!atomic_load_explicit(&ready, memory_order_acquire)) {
        pthread_mutex_lock(&lock);
        if (!atomic_load_explicit(&ready, memory_order_relaxed)) {
            int n = sysvar_global_str(&s->srv->vars, SYSVAR_TMPDIR, dir, sizeof dir);
            if (n <= 0 || (size_t)n >= sizeof dir)
                strcpy(dir, "/tmp");
            atomic_store_explicit(&ready, true, memory_order_release);
        }
        pthread_mutex_unlock(&lock);
    }
    return dir;
}

/* Is flag name of the session's optimizer_switch on? */
static bool optimizer_flag(const session_t *s, const char *name)
{
    const sysvar_def_t *def = sysvar_def(SYSVAR_OPTIMIZER_SWITCH);
    int64_t bits = sysvar_session_int(&s->vars, SYSVAR_OPTIMIZER_SWITCH);
    char buf[64];
    for (unsigned i = 0; i < sysvar_value_count(def) && i < 64; i++)
        if (sysvar_value_name(def, i, buf, sizeof buf) >= 0 && strcmp(buf, name) == 0)
            return (bits >> i) & 1;
    return true;
}

static void sqlx_ctx(exec_ctx_t *x, sql_exec_ctx_t *c, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    if (!s->sqlx)
        s->sqlx = sql_exec_session_new();
    memset(c, 0, sizeof *c);
    c->arena = &s->arena;
    c->diag = &s->diag;
    c->cb = &exec_cb;
    c->cb_user = x;
    c->div_precision_increment = (uint32_t)sysvar_session_int(&s->vars, SYSVAR_DIV_PRECISION_INCREMENT);
    c->group_concat_max_len = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_GROUP_CONCAT_MAX_LEN);
    c->max_allowed_packet = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MAX_ALLOWED_PACKET);
    c->max_recursive_iterations = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MAX_RECURSIVE_ITERATIONS);
    c->db = x->plan ? sql_plan_db(x->plan, s->db) : s->db;
    c->plan = x->plan;
    c->user = s->priv_user;
    c->host = s->priv_host;
    /* sql_mode is a SET: bit i = the i-th name of its list in sysvar.def (21 STRICT_TRANS_TABLES, 22 STRICT_ALL_TABLES) */
    int64_t mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    c->strict = (mode & (3ll << 21)) != 0;
    if (s->sp_into) /* SELECT ... INTO a routine's variables: a data change for x/0 (MariaDB) */
        c->div_zero_error = c->strict && !session_div_zero_off(s);
    c->limit_selects = true;
    c->select_limit = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_SQL_SELECT_LIMIT);
    c->div_zero_off = session_div_zero_off(s);
    /* 2 ANSI_QUOTES, 13 NO_KEY_OPTIONS, 14 NO_TABLE_OPTIONS, 15 NO_FIELD_OPTIONS; 8..12 POSTGRESQL..MAXDB and
     * 18 ANSI drop table and key options as well (MariaDB's foreign_db_mode), NO_FIELD_OPTIONS key options */
    c->sql_mode = (uint64_t)mode;
    bool foreign = (mode & ((31ll << 8) | (1ll << 18))) != 0;
    c->show_create = ((mode & (1ll << 2)) ? SQL_SHOW_CREATE_ANSI_QUOTES : 0u) |
                     ((foreign || (mode & (1ll << 14))) ? SQL_SHOW_CREATE_NO_TABLE_OPTIONS : 0u) |
                     ((foreign || (mode & (5ll << 13))) ? SQL_SHOW_CREATE_NO_KEY_OPTIONS : 0u) |
                     ((mode & (1ll << 15)) ? SQL_SHOW_CREATE_NO_FIELD_OPTIONS : 0u);
    c->autoinc_increment = (uint32_t)sysvar_session_int(&s->vars, SYSVAR_AUTO_INCREMENT_INCREMENT);
    c->autoinc_offset = (uint32_t)sysvar_session_int(&s->vars, SYSVAR_AUTO_INCREMENT_OFFSET);
    c->no_auto_value_on_zero = (mode & (1ll << 19)) != 0; /* NO_AUTO_VALUE_ON_ZERO */
    sql_store_set_mode(((mode & (1ll << 24)) ? SQL_STORE_NO_ZERO_DATE : 0) | /* 23 NO_ZERO_IN_DATE, 24 NO_ZERO_DATE */
                       ((mode & (1ll << 23)) ? SQL_STORE_NO_ZERO_IN_DATE : 0));
    sql_tz_set(sysvar_session_str(&s->vars, SYSVAR_TIME_ZONE)); /* TIMESTAMPs and NOW() in @@time_zone (sql/value/tz.h) */
    c->autocommit = sysvar_session_int(&s->vars, SYSVAR_AUTOCOMMIT) != 0;
    c->log_bin = sysvar_session_int(&s->vars, SYSVAR_SQL_LOG_BIN) != 0;
    c->fk_checks_off = sysvar_session_int(&s->vars, SYSVAR_FOREIGN_KEY_CHECKS) == 0;
    c->check_constraints_off = sysvar_session_int(&s->vars, SYSVAR_CHECK_CONSTRAINT_CHECKS) == 0;
    c->thread_id = s->id;
    c->lock_wait_timeout_us = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_LOCK_WAIT_TIMEOUT) * 1000000u;
    session_next_trx_expire(s);
    /* enum index: RU, RC, RR, SER; SET TRANSACTION's one-shot values first */
    c->isolation = s->next_iso >= 0 ? s->next_iso : (int)sysvar_session_int(&s->vars, SYSVAR_TX_ISOLATION);
    c->tx_read_only = s->next_access ? s->next_access == SQL_ACCESS_READ_ONLY
                                     : sysvar_session_int(&s->vars, SYSVAR_TX_READ_ONLY) != 0;
    int64_t lwt = sysvar_session_int(&s->vars, SYSVAR_INNODB_LOCK_WAIT_TIMEOUT); /* 0: do not wait (MariaDB) */
    c->lock_wait_us = lwt > 0 ? (uint64_t)lwt * 1000000 : 1;
    const char *rcs = sysvar_session_str(&s->vars, SYSVAR_CHARACTER_SET_RESULTS);
    int rcoll = rcs && *rcs ? value_charset_default_coll(rcs, strlen(rcs)) : -1;
    c->result_coll = rcoll > 0 ? (uint16_t)rcoll : 0;
    c->conn_coll = sess_coll(s, SYSVAR_COLLATION_CONNECTION, true);
    c->regex_flags = (uint32_t)sysvar_session_int(&s->vars, SYSVAR_DEFAULT_REGEX_FLAGS);
    c->ss = s->sqlx;
    c->kill_query = &s->kill_query;
    c->visible = sqlx_visible;
    c->column_privs = sqlx_column_privs;
    c->trigger_visible = sqlx_trigger_visible;
    c->event_visible = sqlx_event_visible;
    c->account_exists = sqlx_account_exists;
    c->session_table = sqlx_session_table;
    c->session_table_truncate = sqlx_session_table_truncate;
    c->visible_user = s;
    c->sink = sink;
    c->more = more;
    /* sorts and temporary results: MariaDB's budgets (an in-memory temporary table is bounded by both sizes) */
    c->sort_buffer_size = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_SORT_BUFFER_SIZE);
    uint64_t tts = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_TMP_TABLE_SIZE);
    uint64_t mhs = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MAX_HEAP_TABLE_SIZE);
    c->tmp_table_size = MIN(tts, mhs);
    c->join_buffer_size = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_JOIN_BUFFER_SIZE);
    c->join_cache_off = sysvar_session_int(&s->vars, SYSVAR_JOIN_CACHE_LEVEL) == 0;
    c->hash_join_off = !optimizer_flag(s, "join_cache_hashed");
    c->tmpdir = sqlx_tmpdir(s);
    if (!s->sql_mode_text || mode != s->sql_mode_val) { /* its names formatted once per value, not per statement */
        buf_t sm;
        buf_init(&sm);
        sysvar_get_text(&s->srv->vars, &s->vars, sysvar_def(SYSVAR_SQL_MODE), SYSVAR_SESSION, &sm);
        mem_free(s->sql_mode_text);
        s->sql_mode_text = mem_strndup(sm.len ? (const char *)sm.data : "", sm.len);
        s->sql_mode_val = mode;
        buf_free(&sm);
    }
    c->sql_mode_text = arena_strdup(&s->arena, s->sql_mode_text);
    c->time_zone = sysvar_session_str(&s->vars, SYSVAR_TIME_ZONE);
    c->replicated = s->replica_origin != 0;
    c->server_id = c->replicated ? s->replica_origin : (uint32_t)sysvar_global_int(&s->srv->vars, SYSVAR_SERVER_ID);
    c->events_off = !event_sched_on();
}

/* After an executor call: the session's outputs and transaction flag. */
static void sqlx_done(exec_ctx_t *x, sql_exec_ctx_t *c, int rc)
{
    session_t *s = x->s;
    if (rc == 0) {
        if (c->last_insert_id_set)
            s->last_insert_id = c->last_insert_id;
        s->row_count = c->row_count;
        if (c->row_count < 0)
            s->found_rows = c->found_rows;
        if (c->db_dropped)
            session_db_gone(s);
    }
    if (c->events_changed)
        event_sched_kick(); /* the scheduler reads the events again */
    const sql_exec_stats_t *st = &c->stats;
    if (st->sort_merge_passes)
        status_add(&s->stat, STATUS_SORT_MERGE_PASSES, st->sort_merge_passes);
    if (st->sort_rows)
        status_add(&s->stat, STATUS_SORT_ROWS, st->sort_rows);
    if (st->sort_priority_queue_sorts)
        status_add(&s->stat, STATUS_SORT_PRIORITY_QUEUE_SORTS, st->sort_priority_queue_sorts);
    if (st->sort_range)
        status_add(&s->stat, STATUS_SORT_RANGE, st->sort_range);
    if (st->sort_scan)
        status_add(&s->stat, STATUS_SORT_SCAN, st->sort_scan);
    if (st->tmp_tables)
        status_add(&s->stat, STATUS_CREATED_TMP_TABLES, st->tmp_tables);
    if (st->tmp_disk_tables)
        status_add(&s->stat, STATUS_CREATED_TMP_DISK_TABLES, st->tmp_disk_tables);
    if (st->tmp_files)
        status_global_add(&s->srv->status, STATUS_CREATED_TMP_FILES, (int64_t)st->tmp_files);
    if (st->plan_rebinds)
        status_add(&s->stat, STATUS_COM_STMT_REPREPARE, st->plan_rebinds);
    if (st->plan_hits)
        status_add(&s->stat, STATUS_STRATA_PREPARED_PLAN_HITS, st->plan_hits);
    stmt_meter_t *m = &s->meter; /* the slow log's and the digest's facts of this statement */
    m->rows_examined += st->rows_examined;
    m->lock_us += st->lock_us;
    m->merge_passes += st->sort_merge_passes;
    m->full_scans += st->full_scans;
    m->full_joins += st->full_joins;
    m->tmp_tables += st->tmp_tables;
    m->tmp_disk_tables += st->tmp_disk_tables;
    m->sort_rows += st->sort_rows;
    m->sort_range += st->sort_range;
    m->sort_scan += st->sort_scan;
    m->priority_queue_sorts += st->sort_priority_queue_sorts;
    if (st->full_scans)
        status_add(&s->stat, STATUS_SELECT_SCAN, st->full_scans);
    if (st->full_joins)
        status_add(&s->stat, STATUS_SELECT_FULL_JOIN, st->full_joins);
    static const struct {
        size_t off;
        status_sess_t id;
    } reads[] = {
        {offsetof(sql_exec_stats_t, read_rnd_next), STATUS_HANDLER_READ_RND_NEXT},
        {offsetof(sql_exec_stats_t, read_key), STATUS_HANDLER_READ_KEY},
        {offsetof(sql_exec_stats_t, read_next), STATUS_HANDLER_READ_NEXT},
        {offsetof(sql_exec_stats_t, read_prev), STATUS_HANDLER_READ_PREV},
        {offsetof(sql_exec_stats_t, read_first), STATUS_HANDLER_READ_FIRST},
        {offsetof(sql_exec_stats_t, read_last), STATUS_HANDLER_READ_LAST},
    };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++) {
        uint64_t n = *(const uint64_t *)((const char *)st + reads[k].off);
        if (n)
            status_add(&s->stat, reads[k].id, n);
    }
}

/* read_only: statements that change tables or databases are refused (1290) unless the account has READ_ONLY
 * ADMIN (MariaDB 10.11) or the session is the replica's SQL thread.  CREATE TEMPORARY TABLE is allowed. */
static int read_only_check(session_t *s, const sql_stmt_t *st)
{
    if (!sysvar_global_int(&s->srv->vars, SYSVAR_READ_ONLY) || s->system_thread)
        return 0;
    switch (st->kind) {
    case SQL_STMT_CREATE_TABLE:
        if (st->create_table->temporary)
            return 0;
        /* fall through */
    case SQL_STMT_INSERT: case SQL_STMT_REPLACE: case SQL_STMT_UPDATE: case SQL_STMT_DELETE:
    case SQL_STMT_DROP_TABLE: case SQL_STMT_TRUNCATE: case SQL_STMT_RENAME_TABLE: case SQL_STMT_CREATE_INDEX:
    case SQL_STMT_DROP_INDEX: case SQL_STMT_ALTER_TABLE: case SQL_STMT_CREATE_DATABASE: case SQL_STMT_DROP_DATABASE:
    case SQL_STMT_ALTER_DATABASE: case SQL_STMT_CREATE_VIEW: case SQL_STMT_DROP_VIEW:
        break;
    default:
        return 0;
    }
    if (priv_has_global(s, PRIV_READ_ONLY_ADMIN))
        return 0;
    return diag_error(&s->diag, ER_OPTION_PREVENTS_STATEMENT, "--read-only");
}

static int sqlx_run(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    int prc = priv_check_stmt(x->s, st); /* privileges first, at every execution */
    if (prc)
        return prc < 0 ? prc : -x->s->diag.error_code;
    if ((prc = read_only_check(x->s, st)) != 0)
        return prc;
    sql_exec_ctx_t c;
    sqlx_ctx(x, &c, sink, more);
    int rc = sql_exec_stmt(&c, st);
    sqlx_done(x, &c, rc);
    return rc;
}

int session_field_list(session_t *s, const char *table, size_t tlen, const char *wild, size_t wlen,
                       res_col_t **cols, res_cell_t **defaults, int *n)
{
    session_begin_statement(s);
    status_inc(&s->stat, STATUS_COM_SHOW_FIELDS);
    *n = 0;
    if (!s->db)
        return diag_error(&s->diag, ER_NO_DB_ERROR);
    char *t = arena_strndup(&s->arena, table, tlen);
    char *w = arena_strndup(&s->arena, wild ? wild : "", wild ? wlen : 0);
    uint64_t colgrants = 0;
    /* some privilege on the table or one of its columns, as SHOW COLUMNS (MariaDB: "SELECT command denied") */
    if (!priv_table(s, s->db, t, &colgrants) && !colgrants)
        return priv_deny_table_cmd(s, "SELECT", s->db, t);
    exec_ctx_t x = {.s = s};
    sql_exec_ctx_t c;
    sqlx_ctx(&x, &c, NULL, false);
    int rc = sql_exec_field_list(&c, t, w, cols, defaults, n);
    sqlx_done(&x, &c, rc);
    return rc < 0 ? rc : 0;
}

/* BEGIN / COMMIT / ROLLBACK through the executor's transaction (when it runs). */
/* A transaction begins with this access clause; the characteristics tracker reports it whatever it said before
 * (MariaDB sends the item at every START TRANSACTION). */
static void sqlx_begin_noted(session_t *s, sql_access_t access)
{
    s->begin_access = (int8_t)access;
    mem_free(s->trk_chars);
    s->trk_chars = NULL;
}

static int sqlx_txn_ro(exec_ctx_t *x, sql_stmt_kind_t k, sql_access_t access)
{
    x->s->snap_valid = false;
    sql_exec_ctx_t c;
    sqlx_ctx(x, &c, NULL, false);
    if (k != SQL_STMT_BEGIN)
        return k == SQL_STMT_COMMIT ? sql_exec_commit(&c) : sql_exec_rollback(&c);
    /* READ ONLY / READ WRITE as written, else tx_read_only (or SET TRANSACTION's) */
    sqlx_begin_noted(x->s, access);
    return sql_exec_begin(&c, access ? access == SQL_ACCESS_READ_ONLY : c.tx_read_only);
}

/* START TRANSACTION WITH CONSISTENT SNAPSHOT: the view and its binlog position (Binlog_snapshot_file/_position). */
static int sqlx_begin_snapshot(exec_ctx_t *x, sql_access_t access)
{
    session_t *s = x->s;
    s->snap_valid = false;
    if (!sql_exec_catalog())
        return sqlx_txn_ro(x, SQL_STMT_BEGIN, access);
    sql_exec_ctx_t c;
    sqlx_ctx(x, &c, NULL, false);
    sqlx_begin_noted(s, access);
    int rc = sql_exec_begin_snapshot(&c, access ? access == SQL_ACCESS_READ_ONLY : c.tx_read_only, s->snap_file,
                                     sizeof s->snap_file, &s->snap_pos);
    s->snap_valid = rc == 0 && s->snap_file[0];
    return rc;
}

static int sqlx_txn(exec_ctx_t *x, sql_stmt_kind_t k) { return sqlx_txn_ro(x, k, SQL_ACCESS_NONE); }

/* SAVEPOINT / ROLLBACK TO / RELEASE SAVEPOINT (the executor keeps the undo marks). */
static int sqlx_savepoint(exec_ctx_t *x, const sql_stmt_t *st)
{
    if (!sql_exec_catalog())
        return st->kind == SQL_STMT_SAVEPOINT ? 0 : diag_error(&x->s->diag, ER_SP_DOES_NOT_EXIST, "SAVEPOINT",
                                                                st->txn.savepoint);
    sql_exec_ctx_t c;
    sqlx_ctx(x, &c, NULL, false);
    return st->kind == SQL_STMT_SAVEPOINT           ? sql_exec_savepoint(&c, st->txn.savepoint)
           : st->kind == SQL_STMT_RELEASE_SAVEPOINT ? sql_exec_release_savepoint(&c, st->txn.savepoint)
                                                    : sql_exec_rollback_to(&c, st->txn.savepoint);
}

/* ------------------------------------------------------------------ SELECT without tables */

static void col_from_meta(res_col_t *c, const sql_col_meta_t *m, const char *name)
{
    memset(c, 0, sizeof *c);
    c->schema = c->table = c->org_table = c->org_name = "";
    c->name = name;
    c->type = m->type;
    c->charset = m->coll;
    c->length = m->length;
    c->decimals = m->decimals;
    c->flags = m->flags;
}

/* A bare `?` select item takes its column type from the type the client bound, as MariaDB declares it. */
static void param_meta(uint16_t wire, const value_t *v, sql_col_meta_t *m)
{
    static const uint32_t int_len[] = {[MYSQL_TYPE_TINY] = 4, [MYSQL_TYPE_SHORT] = 6, [MYSQL_TYPE_LONG] = 11,
                                       [MYSQL_TYPE_INT24] = 9, [MYSQL_TYPE_LONGLONG] = 20};
    uint8_t t = (uint8_t)(wire & 0xff);
    if (value_is_null(v) && t != MYSQL_TYPE_NULL)
        return;
    switch (t) {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONGLONG:
        m->type = t;
        m->length = int_len[t];
        m->flags |= (wire & 0x8000) ? COLF_UNSIGNED : 0;
        break;
    case MYSQL_TYPE_FLOAT:
        m->type = t;
        m->length = 12;
        break;
    case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB:
    case MYSQL_TYPE_LONG_BLOB:
    case MYSQL_TYPE_BLOB:
        m->type = MYSQL_TYPE_BLOB;
        m->flags |= COLF_BLOB | COLF_BINARY;
        break;
    default:
        break;
    }
}

static int exec_limit_value(exec_ctx_t *x, sql_eval_ctx_t *ev, const sql_expr_t *e, uint64_t *out)
{
    value_t v;
    int rc = sql_expr_eval(ev, e, &v);
    if (rc)
        return rc;
    *out = value_is_null(&v) ? 0 : value_to_uint(&v, NULL);
    return 0;
}

static int exec_select(exec_ctx_t *x, const sql_select_t *sel, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    if (sql_exec_select_handles(sel)) {
        sql_stmt_t st = {.kind = SQL_STMT_SELECT, .select = (sql_select_t *)sel};
        return sqlx_run(x, &st, sink, more);
    }
    if (sel->from || sel->union_next || sel->ngroup_by || sel->having)
        return diag_error(&s->diag, ER_NOT_SUPPORTED_YET, "tables (the SQL engine is not built yet)");
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    int n = (int)sel->nitems;
    value_t *vals = arena_calloc(&s->arena, sizeof(value_t) * (size_t)(n ? n : 1));
    bool emit = true;
    uint64_t count = UINT64_MAX, offset = 0;
    int rc = 0;
    if (!sel->limit.count)
        count = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_SQL_SELECT_LIMIT); /* a top-level SELECT */
    else if ((rc = exec_limit_value(x, &ev, sel->limit.count, &count)) != 0)
        return rc;
    if (sel->limit.offset && (rc = exec_limit_value(x, &ev, sel->limit.offset, &offset)) != 0)
        return rc;
    if (sel->where) {
        value_t w;
        if ((rc = sql_expr_eval(&ev, sel->where, &w)) != 0)
            return rc;
        emit = !value_is_null(&w) && value_to_bool(&w, &s->diag);
    }
    for (int i = 0; i < n; i++) {
        const sql_expr_t *e = sel->items[i].expr;
        if (e->kind == SQL_E_STAR)
            return diag_error(&s->diag, ER_NO_TABLES_USED);
        if ((rc = sql_expr_eval(&ev, e, &vals[i])) != 0)
            return rc;
    }
    if (count == 0 || offset > 0)
        emit = false;
    res_col_t *cols = arena_calloc(&s->arena, sizeof(res_col_t) * (size_t)(n ? n : 1));
    uint16_t rcoll = sess_coll(s, SYSVAR_CHARACTER_SET_RESULTS, false);
    for (int i = 0; i < n; i++) {
        sql_col_meta_t m;
        const sql_expr_t *e = sel->items[i].expr;
        sql_item_meta(e, &vals[i], &m);
        if (e->kind == SQL_E_PARAM && x->param_types && e->param_index < x->nparams)
            param_meta(x->param_types[e->param_index], &vals[i], &m);
        col_from_meta(&cols[i], &m, sql_item_name(&s->arena, &sel->items[i]));
        if (rcoll && rcoll != COLL_BINARY && cols[i].charset != CHARSET_BINARY && cols[i].charset != rcoll) {
            /* declared in character_set_results, as MariaDB does (length in its bytes) */
            uint32_t from = value_coll_mbmaxlen(cols[i].charset), to = value_coll_mbmaxlen(rcoll);
            cols[i].length = (uint32_t)MIN((uint64_t)(from ? cols[i].length / from : cols[i].length) * to,
                                           4294967295ull);
            cols[i].charset = rcoll;
        }
        if (rcoll && rcoll != COLL_BINARY && value_coll_mbmaxlen(rcoll) == 1) {
            /* the name comes from the (utf8mb4) statement text: a latin1 client reads it in latin1 */
            size_t nl, bad;
            cols[i].name = sql_str_convert(&s->arena, cols[i].name, strlen(cols[i].name), COLL_UTF8MB4_GENERAL_CI,
                                           rcoll, &nl, &bad);
        }
    }
    sink->columns(sink, cols, n);
    if (emit) {
        res_cell_t *cells = arena_calloc(&s->arena, sizeof(res_cell_t) * (size_t)(n ? n : 1));
        for (int i = 0; i < n; i++) {
            cells[i].null = value_is_null(&vals[i]);
            if (!cells[i].null) {
                value_t fv = sql_rtype_format(&s->arena, cols[i].type, cols[i].decimals, &vals[i]);
                cells[i].p = result_text(s, &fv, rcoll, &cells[i].len);
            }
        }
        sink->row(sink, cells);
        s->found_rows = 1;
    } else {
        s->found_rows = 0;
    }
    s->row_count = -1;
    sink->rows_end(sink, more);
    return 0;
}

/* ------------------------------------------------------------------ SET */

/* A SET value.  One holding a subquery (SET @x = (SELECT ...)) is evaluated by the executor as the one item of
 * `SELECT value` would be (tables opened and locked, the privilege checks of that SELECT first); any other by
 * the session's evaluator. */
static int set_value_eval(exec_ctx_t *x, const sql_stmt_t *st, sql_eval_ctx_t *ev, const sql_expr_t *e, value_t *v,
                          res_sink_t *sink)
{
    if (!sql_expr_has_subquery(e))
        return sql_expr_eval(ev, e, v);
    session_t *s = x->s;
    sql_select_item_t item = {.expr = (sql_expr_t *)e};
    sql_select_t sel = {.items = &item, .nitems = 1};
    sql_stmt_t q = {.kind = SQL_STMT_SELECT, .select = &sel, .src = st->src, .src_len = st->src_len};
    int prc = priv_check_stmt(s, &q);
    if (prc)
        return prc < 0 ? prc : -s->diag.error_code;
    int64_t row_count = s->row_count;
    uint64_t found_rows = s->found_rows;
    sql_exec_ctx_t c;
    sqlx_ctx(x, &c, sink, false);
    int rc = sql_exec_eval(&c, st, e, v);
    sqlx_done(x, &c, rc);
    s->row_count = row_count; /* a SET leaves ROW_COUNT() and FOUND_ROWS() as they were */
    s->found_rows = found_rows;
    return rc;
}

/* The text of a SET value: identifiers (ON, OFF, utf8mb4, ...) by their name, everything else evaluated. */
static int set_value_text(exec_ctx_t *x, const sql_stmt_t *st, sql_eval_ctx_t *ev, const sql_expr_t *e, value_t *v,
                          const char **text, res_sink_t *sink)
{
    if (e->kind == SQL_E_COLUMN && !e->col.table) {
        *text = e->col.name;
        *v = value_str(e->col.name, strlen(e->col.name), COLL_UTF8MB3_GENERAL_CI);
        return 0;
    }
    int rc = set_value_eval(x, st, ev, e, v, sink);
    if (rc)
        return rc;
    if (value_is_null(v)) {
        *text = NULL;
        return 0;
    }
    size_t len;
    *text = value_to_text(&x->s->arena, v, &len);
    return 0;
}

/* SET GLOBAL needs SUPER, or for some variables one of MariaDB 10.11's narrower privileges. */
static uint64_t set_global_privs(const char *name)
{
    static const char *const conn[] = {"max_connections", "max_user_connections", "max_connect_errors",
                                       "connect_timeout", "wait_timeout", "interactive_timeout",
                                       "disconnect_on_expired_password", "extra_max_connections",
                                       "extra_port", "init_connect", "max_password_errors",
                                       "proxy_protocol_networks", "secure_auth", "slow_launch_time",
                                       "thread_pool_idle_timeout", "thread_pool_max_threads"};
    for (size_t i = 0; i < ARRAY_LEN(conn); i++)
        if (!strcasecmp(name, conn[i]))
            return PRIV_SUPER | PRIV_CONNECTION_ADMIN;
    if (!strcasecmp(name, "read_only"))
        return PRIV_READ_ONLY_ADMIN;
    if (!strncasecmp(name, "binlog_", 7) || !strcasecmp(name, "sync_binlog") || !strcasecmp(name, "max_binlog_size") ||
        !strncasecmp(name, "expire_logs", 11) || !strcasecmp(name, "log_bin_compress"))
        return PRIV_SUPER | PRIV_BINLOG_ADMIN;
    return PRIV_SUPER;
}

/* SET's first step for a system variable: it exists, and SET GLOBAL is allowed. */
static int set_sysvar_check(exec_ctx_t *x, const sql_set_item_t *it)
{
    session_t *s = x->s;
    const sysvar_def_t *def = sysvar_find(it->name);
    if (!def || it->component) {
        char full[256];
        snprintf(full, sizeof full, "%s%s%s", it->component ? it->component : "", it->component ? "." : "", it->name);
        return diag_error(&s->diag, ER_UNKNOWN_SYSTEM_VARIABLE, full);
    }
    if (it->scope == SQL_SCOPE_GLOBAL) /* the privilege MariaDB asks for this variable */
        return priv_check_global(s, set_global_privs(def->name));
    return 0;
}

/* SET's second step for a system variable: assigns the value evaluated in the first (v and its text). */
static int exec_set_sysvar(exec_ctx_t *x, const sql_set_item_t *it, const value_t *vp, const char *text)
{
    session_t *s = x->s;
    const sysvar_def_t *def = sysvar_find(it->name);
    sysvar_scope_t sc = it->scope == SQL_SCOPE_GLOBAL ? SYSVAR_GLOBAL : it->scope == SQL_SCOPE_SESSION ? SYSVAR_SESSION : SYSVAR_NONE;
    bool autocommit_was = sysvar_session_int(&s->vars, SYSVAR_AUTOCOMMIT) != 0;
    int rc;
    int64_t old_output = sysvar_global_int(&s->srv->vars, SYSVAR_LOG_OUTPUT);
    if ((def->target == SYSVAR_GENERAL_LOG_FILE || def->target == SYSVAR_SLOW_QUERY_LOG_FILE) && text &&
        it->value->kind != SQL_E_DEFAULT && session_qlog_check_path(s->srv, text) != 0)
        return diag_error(&s->diag, ER_WRONG_VALUE_FOR_VAR, def->name, text);
    if (def->target == SYSVAR_EVENT_SCHEDULER && it->value->kind != SQL_E_DEFAULT && text &&
        (rc = event_sched_check_text(text, &s->diag)) != 0) /* 1231 names the value as written ('2') */
        return rc;
    if (it->value->kind == SQL_E_DEFAULT) {
        rc = sysvar_set_default(&s->srv->vars, &s->vars, def, sc, &s->diag);
    } else {
        value_t v = *vp;
        if (v.type == VAL_INT || v.type == VAL_UINT)
            rc = sysvar_set_int(&s->srv->vars, &s->vars, def, sc, v.type == VAL_INT ? v.i : (int64_t)v.u, v.type == VAL_UINT, &s->diag);
        else if (v.type == VAL_DOUBLE)
            rc = sysvar_set_double(&s->srv->vars, &s->vars, def, sc, v.d, &s->diag);
        else if (v.type == VAL_DECIMAL && sysvar_real(def)->type == SV_T_DOUBLE) /* long_query_time = 0.5 */
            rc = sysvar_set_double(&s->srv->vars, &s->vars, def, sc, value_to_double(&v, NULL), &s->diag);
        else
            rc = sysvar_set_text(&s->srv->vars, &s->vars, def, sc, text, &s->diag);
    }
    if (rc == 0 && def->target == SYSVAR_LOG_OUTPUT &&
        session_qlog_check_output(sysvar_global_int(&s->srv->vars, SYSVAR_LOG_OUTPUT)) != 0) {
        /* TABLE: no log tables to write (see session/querylog.c); the old value stays */
        sysvar_global_set_int(&s->srv->vars, SYSVAR_LOG_OUTPUT, old_output);
        return diag_error(&s->diag, ER_WRONG_VALUE_FOR_VAR, def->name, text ? text : "TABLE");
    }
    if (rc == 0 && sc != SYSVAR_GLOBAL)
        session_track_var(s, sysvar_real(def)->name);
    if (rc == 0 && sc == SYSVAR_GLOBAL)
        server_apply_global(s->srv, def);
    if (rc == 0 && def->target == SYSVAR_AUTOCOMMIT && sc != SYSVAR_GLOBAL) {
        s->trk_touched = true; /* the transaction tracker reports its state after any SET autocommit */
        /* autocommit going from 0 to 1 commits the open transaction (BEGIN's too), as in MariaDB */
        if (!autocommit_was && sysvar_session_int(&s->vars, SYSVAR_AUTOCOMMIT) && session_in_trans(s))
            rc = sqlx_txn(x, SQL_STMT_COMMIT);
    }
    return rc;
}

static int exec_set_names(exec_ctx_t *x, const sql_set_item_t *it)
{
    session_t *s = x->s;
    const char *cs = it->charset ? it->charset : "utf8mb4";
    const sysvar_collation_t *coll = it->collation ? sysvar_collation_find(it->collation) : sysvar_charset_find(cs);
    if (!sysvar_charset_find(cs))
        return diag_error(&s->diag, ER_UNKNOWN_CHARACTER_SET, cs);
    if (!coll)
        return diag_error(&s->diag, ER_UNKNOWN_COLLATION, it->collation);
    if (it->collation && strcasecmp(coll->charset, sysvar_charset_find(cs)->charset) != 0)
        return diag_error(&s->diag, ER_COLLATION_CHARSET_MISMATCH, it->collation, cs);
    int rc = 0;
    sysvar_store_t *st = &s->srv->vars;
    if (it->kind == SQL_SET_NAMES) {
        rc = sysvar_set_by_name(st, &s->vars, "character_set_client", SYSVAR_SESSION, coll->charset, &s->diag);
        if (!rc)
            rc = sysvar_set_by_name(st, &s->vars, "character_set_results", SYSVAR_SESSION, coll->charset, &s->diag);
        if (!rc)
            rc = sysvar_set_by_name(st, &s->vars, "collation_connection", SYSVAR_SESSION, coll->name, &s->diag);
    } else {
        rc = sysvar_set_by_name(st, &s->vars, "character_set_client", SYSVAR_SESSION, coll->charset, &s->diag);
        if (!rc)
            rc = sysvar_set_by_name(st, &s->vars, "character_set_results", SYSVAR_SESSION, coll->charset, &s->diag);
        if (!rc) {
            const char *dbcoll = sysvar_session_str(&s->vars, SYSVAR_COLLATION_DATABASE);
            rc = sysvar_set_by_name(st, &s->vars, "collation_connection", SYSVAR_SESSION, dbcoll ? dbcoll : "utf8mb4_general_ci", &s->diag);
        }
    }
    return rc;
}

/*
 * SET a = x, b = y, ...: as in MariaDB, every value is evaluated first (SET @a = 1, @b = @a gives @b the old
 * @a), then the variables are assigned in order, the system variables first: a value a system variable refuses
 * leaves the user variables as they were.  Unknown variables and SET GLOBAL privileges fail before any value is
 * evaluated.  (MariaDB checks every system variable's value before it assigns any; here the ones before a
 * refused value keep their new values.)
 */
static int exec_set(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    uint32_t n = st->set.nitems;
    value_t *vals = arena_calloc(&s->arena, (n + 1) * sizeof *vals);
    const char **texts = arena_calloc(&s->arena, (n + 1) * sizeof *texts);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++)
        if (st->set.items[i].kind == SQL_SET_SYSVAR)
            rc = set_sysvar_check(x, &st->set.items[i]);
    for (uint32_t i = 0; i < n && !rc; i++) {
        const sql_set_item_t *it = &st->set.items[i];
        if (it->kind == SQL_SET_USERVAR)
            rc = set_value_eval(x, st, &ev, it->value, &vals[i], sink); /* @var reads are copies: see cb_uservar_get */
        else if (it->kind == SQL_SET_SYSVAR && it->value->kind != SQL_E_DEFAULT)
            rc = set_value_text(x, st, &ev, it->value, &vals[i], &texts[i], sink);
    }
    for (uint32_t i = 0; i < n && !rc; i++) {
        const sql_set_item_t *it = &st->set.items[i];
        switch (it->kind) {
        case SQL_SET_SYSVAR:
            rc = exec_set_sysvar(x, it, &vals[i], texts[i]);
            break;
        case SQL_SET_USERVAR: /* below, once every system variable took its value */
            break;
        case SQL_SET_NAMES:
        case SQL_SET_CHARSET:
            rc = exec_set_names(x, it);
            if (rc == 0) {
                session_track_var(s, "character_set_client");
                session_track_var(s, "character_set_connection");
                session_track_var(s, "character_set_results");
            }
            break;
        }
    }
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n; i++)
        if (st->set.items[i].kind == SQL_SET_USERVAR)
            uservar_store(s, st->set.items[i].name, &vals[i]);
    s->row_count = 0;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_set_transaction(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    static const char *iso[] = {NULL, "READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"};
    sysvar_scope_t sc = st->txn.scope == SQL_SCOPE_GLOBAL ? SYSVAR_GLOBAL : SYSVAR_SESSION;
    int rc = 0;
    if (st->txn.scope == SQL_SCOPE_DEFAULT && session_in_trans(s))
        return diag_error(&s->diag, ER_CANT_CHANGE_TX_CHARACTERISTICS);
    if (st->txn.scope == SQL_SCOPE_DEFAULT) {
        /* without GLOBAL or SESSION: the next transaction only (session_next_trx_expire ends it) */
        session_next_trx_expire(s);
        if (st->txn.isolation != SQL_ISO_NONE)
            s->next_iso = (int8_t)(st->txn.isolation - SQL_ISO_READ_UNCOMMITTED);
        if (st->txn.access != SQL_ACCESS_NONE)
            s->next_access = (int8_t)st->txn.access;
        s->next_seq = s->sqlx ? ((sql_exec_session_t *)s->sqlx)->trx_seq : 0;
        s->trk_touched = true;
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    }
    if (st->txn.isolation != SQL_ISO_NONE)
        rc = sysvar_set_by_name(&s->srv->vars, &s->vars, "transaction_isolation", sc, iso[st->txn.isolation], &s->diag);
    if (!rc && st->txn.access != SQL_ACCESS_NONE)
        rc = sysvar_set_by_name(&s->srv->vars, &s->vars, "transaction_read_only", sc,
                                st->txn.access == SQL_ACCESS_READ_ONLY ? "ON" : "OFF", &s->diag);
    if (rc)
        return rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

/* The account a statement names (FOR user), or the session's own for none or CURRENT_USER. */
static void stmt_account(const session_t *s, const sql_user_t *u, const char **user, const char **host)
{
    if (u && !u->current) {
        *user = u->user;
        *host = u->host;
    } else {
        *user = s->priv_user;
        *host = s->priv_host;
    }
}

/* ------------------------------------------------------------------ SHOW */

/* Applies SHOW ... WHERE to one row.  1 = keep, 0 = skip, <0 error. */
static int show_where(exec_ctx_t *x, const sql_expr_t *where, const char *const *names, const char *const *vals, int n)
{
    if (!where)
        return 1;
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    x->row_names = names;
    x->row_vals = vals;
    x->row_n = n;
    value_t v;
    int rc = sql_expr_eval(&ev, where, &v);
    x->row_n = 0;
    if (rc)
        return rc;
    return !value_is_null(&v) && value_to_bool(&v, NULL);
}

/* SHOW VARIABLES and SHOW STATUS: two columns, Variable_name and Value, filtered by LIKE (done by the
 * producers) and WHERE (here). */
typedef struct nv_show {
    exec_ctx_t *x;
    text_rs_t rs;
    const sql_expr_t *where;
    int rc;
} nv_show_t;

static const char *const nv_names[] = {"Variable_name", "Value"};

/* Sets up the result; a WHERE that fails on its own (unknown column, ...) fails before any row is sent. */
static int nv_begin(nv_show_t *v, exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink)
{
    memset(v, 0, sizeof *v);
    v->x = x;
    v->rs.s = x->s;
    v->rs.sink = sink;
    v->where = sh->where;
    trs_col(&v->rs, "Variable_name", 64, MYSQL_TYPE_VAR_STRING);
    trs_col(&v->rs, "Value", 2048, MYSQL_TYPE_VAR_STRING);
    if (sh->where) {
        const char *vals[2] = {"", ""};
        int k = show_where(x, sh->where, nv_names, vals, 2);
        if (k < 0)
            return k;
    }
    return 0;
}

static int nv_row(nv_show_t *v, const char *name, const char *value, size_t len)
{
    const char *vals[2] = {name, arena_strndup(&v->x->s->arena, value, len)};
    int k = show_where(v->x, v->where, nv_names, vals, 2);
    if (k < 0)
        return v->rc = k;
    if (k)
        trs_row(&v->rs, vals);
    return 0;
}

static int nv_end(nv_show_t *v, bool more)
{
    if (v->rc)
        return v->rc;
    trs_end(&v->rs, more);
    return 0;
}

static int show_vars_row(void *arg, const sysvar_def_t *def, const char *value, size_t len)
{
    return nv_row(arg, def->name, value, len);
}

static int show_status_row(void *arg, const status_def_t *def, const char *value, size_t len)
{
    return nv_row(arg, def->name, value, len);
}

static int exec_show_variables(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    nv_show_t v;
    int rc = nv_begin(&v, x, sh, sink);
    if (rc)
        return rc;
    sysvar_show(&x->s->srv->vars, &x->s->vars, sh->scope == SQL_SCOPE_GLOBAL ? SYSVAR_GLOBAL : SYSVAR_SESSION,
                sh->like, show_vars_row, &v);
    return nv_end(&v, more);
}

static int exec_show_status(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    nv_show_t v;
    int rc = nv_begin(&v, x, sh, sink);
    if (rc)
        return rc;
    status_show(&x->s->srv->status, &x->s->stat, sh->scope == SQL_SCOPE_GLOBAL, sh->like, show_status_row, &v);
    return nv_end(&v, more);
}

static int exec_show_warnings(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more, bool errors_only)
{
    session_t *s = x->s;
    diag_t *d = &s->diag;
    text_rs_t rs = {.s = s, .sink = sink};
    if (sh->count_only) {
        char *name = errors_only ? "@@session.error_count" : "@@session.warning_count";
        trs_col(&rs, name, 21, MYSQL_TYPE_LONGLONG);
        rs.cols[0].flags = COLF_NOT_NULL | COLF_UNSIGNED | COLF_NUM;
        char num[24];
        snprintf(num, sizeof num, "%u", errors_only ? d->error_count : d->warn_count);
        const char *vals[1] = {num};
        trs_row(&rs, vals);
        trs_end(&rs, more);
        return 0;
    }
    trs_col(&rs, "Level", 7, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Code", 4, MYSQL_TYPE_LONG);
    trs_col(&rs, "Message", 512, MYSQL_TYPE_VAR_STRING);
    uint64_t limit = UINT64_MAX, offset = 0;
    if (sh->limit.count) {
        sql_eval_ctx_t ev;
        exec_eval_init(x, &ev);
        int rc = exec_limit_value(x, &ev, sh->limit.count, &limit);
        if (!rc && sh->limit.offset)
            rc = exec_limit_value(x, &ev, sh->limit.offset, &offset);
        if (rc)
            return rc;
    }
    static const char *levels[] = {"Note", "Warning", "Error"};
    uint64_t seen = 0, sent = 0;
    for (uint32_t i = 0; i < d->n && sent < limit; i++) {
        const diag_cond_t *c = &d->conds[i];
        if (errors_only && c->level != DIAG_ERROR)
            continue;
        if (seen++ < offset)
            continue;
        char code[8];
        snprintf(code, sizeof code, "%u", c->code);
        const char *vals[3] = {levels[c->level], code, c->msg};
        trs_row(&rs, vals);
        sent++;
    }
    trs_end(&rs, more);
    return 0;
}

static int exec_show_processlist(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    server_t *srv = s->srv;
    text_rs_t rs = {.s = s, .sink = sink};
    trs_col(&rs, "Id", 21, MYSQL_TYPE_LONGLONG);
    trs_col(&rs, "User", 128, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Host", 64, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "db", 64, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Command", 16, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Time", 7, MYSQL_TYPE_LONG);
    trs_col(&rs, "State", 30, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Info", sh->full ? 65535 : 100, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Progress", 7, MYSQL_TYPE_VAR_STRING);
    rs.cols[3].flags = rs.cols[7].flags = 0;
    rs.cols[8].type = MYSQL_TYPE_NEWDECIMAL, rs.cols[8].charset = CHARSET_BINARY, rs.cols[8].decimals = 3, rs.cols[8].flags = COLF_NOT_NULL | COLF_NUM;
    uint64_t now = time_wall_us();
    trs_start(&rs);
    bool all = priv_has_global(s, PRIV_PROCESS); /* without PROCESS, only one's own threads */
    pthread_mutex_lock(&srv->sessions_lock);
    for (session_t *t = srv->sessions; t; t = t->next) {
        if (!all && t != s && strcmp(t->user, s->user) != 0)
            continue;
        char id[24], tm[24], host[300];
        snprintf(id, sizeof id, "%u", t->id);
        snprintf(tm, sizeof tm, "%llu", (unsigned long long)((now - (t->state_since_us ? t->state_since_us : t->connect_us)) / 1000000));
        if (t->port)
            snprintf(host, sizeof host, "%s:%u", t->host, t->port);
        else
            snprintf(host, sizeof host, "%s", t->host);
        pthread_mutex_lock(&t->info_lock);
        char *info = t == s ? arena_strndup(&s->arena, "SHOW PROCESSLIST", 16) : t->info ? arena_strndup(&s->arena, t->info, sh->full ? strlen(t->info) : MIN(strlen(t->info), 100)) : NULL;
        pthread_mutex_unlock(&t->info_lock);
        bool busy = t == s || t->state == SESS_QUERY;
        const char *ps = atomic_load(&t->proc_state);
        unsigned pg = busy ? atomic_load(&t->proc_progress) : 0;
        char progress[16];
        snprintf(progress, sizeof progress, "%u.%03u", pg / 1000, pg % 1000);
        const char *vals[9] = {id, t->user, host, t->db, t->command ? t->command : busy ? "Query" : "Sleep", tm, busy ? (ps ? ps : "starting") : "",
                               busy ? info : NULL, progress};
        if (t == s)
            vals[6] = "starting";
        trs_row(&rs, vals);
    }
    pthread_mutex_unlock(&srv->sessions_lock);
    trs_end(&rs, more);
    return 0;
}

static int exec_show_databases(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    text_rs_t rs = {.s = x->s, .sink = sink};
    char *name = sh->like ? arena_printf(&x->s->arena, "Database (%s)", sh->like) : "Database";
    trs_col(&rs, name, 64, MYSQL_TYPE_VAR_STRING);
    static const char *dbs[] = {"information_schema"};
    for (size_t i = 0; i < ARRAY_LEN(dbs); i++) {
        if (sh->like && !sysvar_like(sh->like, dbs[i]))
            continue;
        if (!priv_db_visible(x->s, dbs[i]))
            continue;
        static const char *names[] = {"Database"};
        const char *vals[1] = {dbs[i]};
        int k = show_where(x, sh->where, names, vals, 1);
        if (k < 0)
            return k;
        if (k)
            trs_row(&rs, vals);
    }
    trs_end(&rs, more);
    return 0;
}

static int exec_show_plugins(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    text_rs_t rs = {.s = x->s, .sink = sink};
    trs_col(&rs, "Name", 64, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Status", 10, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Type", 80, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Library", 20, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "License", 80, MYSQL_TYPE_VAR_STRING);
    (void)sh;
    for (size_t i = 0; i < ARRAY_LEN(strata_plugins); i++) {
        const char *vals[5] = {strata_plugins[i].name, "ACTIVE", strata_plugins[i].type, NULL, "GPL"};
        trs_row(&rs, vals);
    }
    trs_end(&rs, more);
    return 0;
}

static int exec_show_engines(exec_ctx_t *x, res_sink_t *sink, bool more)
{
    text_rs_t rs = {.s = x->s, .sink = sink};
    trs_col(&rs, "Engine", 64, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Support", 8, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Comment", 160, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Transactions", 3, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "XA", 3, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Savepoints", 3, MYSQL_TYPE_VAR_STRING);
    const char *row[6] = {"InnoDB", "DEFAULT", "strata's transactional engine (InnoDB and NDB map to it)", "YES", "YES", "YES"};
    trs_row(&rs, row);
    trs_end(&rs, more);
    return 0;
}

/* SHOW CHARACTER SET's Description column, as MariaDB 10.11 words it. */
static const char *charset_description(const char *cs)
{
    static const struct { const char *cs, *desc; } d[] = {
        {"big5", "Big5 Traditional Chinese"}, {"latin1", "cp1252 West European"},
        {"latin2", "ISO 8859-2 Central European"}, {"ascii", "US ASCII"}, {"ujis", "EUC-JP Japanese"},
        {"sjis", "Shift-JIS Japanese"}, {"hebrew", "ISO 8859-8 Hebrew"}, {"euckr", "EUC-KR Korean"},
        {"gb2312", "GB2312 Simplified Chinese"}, {"greek", "ISO 8859-7 Greek"},
        {"cp1250", "Windows Central European"}, {"gbk", "GBK Simplified Chinese"},
        {"latin5", "ISO 8859-9 Turkish"}, {"utf8mb3", "UTF-8 Unicode"}, {"ucs2", "UCS-2 Unicode"},
        {"cp866", "DOS Russian"}, {"utf8mb4", "UTF-8 Unicode"}, {"cp1251", "Windows Cyrillic"},
        {"utf16", "UTF-16 Unicode"}, {"utf16le", "UTF-16LE Unicode"}, {"cp1256", "Windows Arabic"},
        {"cp1257", "Windows Baltic"}, {"utf32", "UTF-32 Unicode"}, {"binary", "Binary pseudo charset"},
    };
    for (size_t i = 0; i < ARRAY_LEN(d); i++)
        if (strcmp(d[i].cs, cs) == 0)
            return d[i].desc;
    return cs;
}

static int exec_show_collation(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more, bool charsets)
{
    text_rs_t rs = {.s = x->s, .sink = sink};
    if (charsets) {
        trs_col(&rs, "Charset", 32, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Description", 60, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Default collation", 64, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Maxlen", 3, MYSQL_TYPE_LONGLONG);
    } else {
        trs_col(&rs, "Collation", 64, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Charset", 32, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Id", 11, MYSQL_TYPE_LONGLONG);
        trs_col(&rs, "Default", 3, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Compiled", 3, MYSQL_TYPE_VAR_STRING);
        trs_col(&rs, "Sortlen", 3, MYSQL_TYPE_LONGLONG);
    }
    bool uca_shown = false; /* the uca1400 variants of every charset are one row */
    for (unsigned id = 1; id < 4096; id++) {
        const sysvar_collation_t *c = sysvar_collation_by_id(id);
        if (!c)
            continue;
        if (charsets && !c->is_default)
            continue;
        const char *uca = charsets ? NULL : coll_charsetless_name(c->id);
        const char *key = charsets ? c->charset : c->name; /* LIKE sees utf8mb4_uca1400_ai_ci, the row says less */
        if (sh->like && !sysvar_like(sh->like, key))
            continue;
        if (uca && uca_shown)
            continue;
        uca_shown |= uca != NULL;
        char idt[12], maxlen[4];
        snprintf(idt, sizeof idt, "%u", c->id);
        snprintf(maxlen, sizeof maxlen, "%u", value_coll_mbmaxlen(c->id));
        static const char *const cs_names[] = {"Charset", "Description", "Default collation", "Maxlen"};
        static const char *const co_names[] = {"Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"};
        int k;
        if (charsets) {
            const char *vals[4] = {c->charset, charset_description(c->charset), c->name, maxlen};
            if ((k = show_where(x, sh->where, cs_names, vals, 4)) < 0)
                return k;
            if (k)
                trs_row(&rs, vals);
        } else {
            const char *vals[6] = {uca ? uca : c->name, uca ? NULL : c->charset, uca ? NULL : idt,
                                   uca ? NULL : c->is_default ? "Yes" : "", "Yes", coll_sortlen(c->id)};
            if ((k = show_where(x, sh->where, co_names, vals, 6)) < 0)
                return k;
            if (k)
                trs_row(&rs, vals);
        }
    }
    trs_end(&rs, more);
    return 0;
}

/* SHOW GRANTS (exec_grant.c). */
static int exec_show_grants(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    return exec_grant_show(x->s, sh, sink, more);
}

static int exec_show_create_user(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    const char *user, *host;
    stmt_account(s, sh->has_user ? &sh->user : NULL, &user, &host);
    if ((strcmp(user, s->priv_user) || strcasecmp(host ? host : "%", s->priv_host)) &&
        exec_grant_check_mysql_db(s, PRIV_SELECT) != 0)
        return -s->diag.error_code;
    buf_t out;
    buf_init(&out);
    int rc = acl_show_create_user(s->srv->acl, &s->diag, user, host, &out);
    if (rc) {
        buf_free(&out);
        return rc;
    }
    text_rs_t rs = {.s = s, .sink = sink};
    trs_col(&rs, arena_printf(&s->arena, "CREATE USER for %s@%s", user, host), 1024, MYSQL_TYPE_VAR_STRING);
    const char *vals[1] = {arena_strndup(&s->arena, (const char *)out.data, out.len)};
    buf_free(&out);
    trs_row(&rs, vals);
    trs_end(&rs, more);
    return 0;
}

/* ---- binary log statements (they read the binlog's index only: no old file is opened) ---- */

typedef struct binlogs_arg {
    text_rs_t *rs;
    arena_t *a;
} binlogs_arg_t;

static int show_binlogs_row(void *arg, const binlog_file_info_t *f)
{
    binlogs_arg_t *b = arg;
    const char *vals[4] = {f->name, arena_printf(b->a, "%llu", (unsigned long long)f->size),
                           f->compressed ? "Yes" : "No", arena_printf(b->a, "%llu", (unsigned long long)f->disk_size)};
    trs_row(b->rs, vals);
    return 0;
}

static int exec_show_binlogs(exec_ctx_t *x, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    if (!s->srv->binlog)
        return diag_error(&s->diag, ER_NO_BINARY_LOGGING);
    text_rs_t rs = {.s = s, .sink = sink};
    trs_col(&rs, "Log_name", 255, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "File_size", 20, MYSQL_TYPE_LONGLONG);
    /* strata's own columns after MariaDB's two: files are compressed when closed. */
    trs_col(&rs, "Compressed", 3, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Disk_size", 20, MYSQL_TYPE_LONGLONG);
    binlogs_arg_t a = {&rs, &s->arena};
    binlog_list_files(s->srv->binlog, show_binlogs_row, &a);
    trs_end(&rs, more);
    return 0;
}

/* SHOW ENGINE INNODB|ALL STATUS|MUTEX (monitoring scripts snapshot the STATUS every few seconds).  strata's
 * one engine answers for InnoDB: one row (Type, Name, Status) whose text has the InnoDB monitor's section
 * headings over the engine's counters; MUTEX has no rows (no instrumented mutexes).  Needs PROCESS, as in
 * MariaDB; any other engine name is 1286, except ALL (every engine: here, the one). */
static int exec_show_engine_status(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    int rc = priv_check_global(s, PRIV_PROCESS);
    if (rc)
        return rc;
    const char *name = sh->engine ? sh->engine : "";
    bool all = strcasecmp(name, "ALL") == 0;
    if (!all && strcasecmp(name, "InnoDB") != 0)
        return diag_error(&s->diag, ER_UNKNOWN_STORAGE_ENGINE, name);
    text_rs_t rs = {.s = s, .sink = sink};
    trs_col(&rs, "Type", 10, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Name", 512, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Status", 10, MYSQL_TYPE_VAR_STRING);
    if (!sh->engine_mutex) {
        catalog_t *cat = sql_exec_catalog();
        engine_t *e = cat ? catalog_engine(cat) : NULL;
        engine_stats_t es;
        memset(&es, 0, sizeof es);
        if (e)
            engine_stats(e, &es);
        time_t now = time(NULL);
        struct tm tm;
        char when[32];
        localtime_r(&now, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        const char *text = arena_printf(&s->arena,
            "\n=====================================\n%s INNODB MONITOR OUTPUT (strata engine)\n"
            "=====================================\n"
            "------------\nTRANSACTIONS\n------------\n"
            "Committed %llu, rolled back %llu\nLock waits %llu, deadlocks %llu\n"
            "Row versions kept for MVCC %llu, purged rows %llu\n"
            "---\nLOG\n---\n"
            "Log sequence number %llu\nLog flushed up to   %llu\nLast checkpoint at  %llu\n"
            "Log capacity %llu\nLog syncs %llu, commit groups %llu, log waits %llu, checkpoints %llu\n"
            "----------------------\nBUFFER POOL AND MEMORY\n----------------------\n"
            "Buffer pool size   %llu\nFree buffers       %llu\nDatabase pages     %llu\n"
            "Modified db pages  %llu\nPages read %llu, written %llu\nPage hits %llu, misses %llu\n"
            "----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n",
            when, (unsigned long long)es.trx_committed, (unsigned long long)es.trx_rolled_back,
            (unsigned long long)es.lock_waits, (unsigned long long)es.lock_deadlocks,
            (unsigned long long)es.mvcc_versions, (unsigned long long)es.purged_rows,
            (unsigned long long)es.log_lsn, (unsigned long long)es.log_flushed_lsn,
            (unsigned long long)es.log_checkpoint_lsn, (unsigned long long)es.log_capacity,
            (unsigned long long)es.log_syncs, (unsigned long long)es.log_groups, (unsigned long long)es.log_waits,
            (unsigned long long)es.checkpoints, (unsigned long long)es.pool_pages, (unsigned long long)es.pool_free,
            (unsigned long long)(es.pool_pages - es.pool_free), (unsigned long long)es.pool_dirty,
            (unsigned long long)es.pool_reads, (unsigned long long)es.pool_writes, (unsigned long long)es.pool_hits,
            (unsigned long long)es.pool_misses);
        const char *row[3] = {"InnoDB", "", text};
        trs_row(&rs, row);
    }
    trs_end(&rs, more);
    return 0;
}

static int exec_show_master_status(exec_ctx_t *x, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    text_rs_t rs = {.s = s, .sink = sink};
    trs_col(&rs, "File", 255, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Position", 20, MYSQL_TYPE_LONGLONG);
    trs_col(&rs, "Binlog_Do_DB", 255, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Binlog_Ignore_DB", 255, MYSQL_TYPE_VAR_STRING);
    if (s->srv->binlog) {
        char name[256];
        uint64_t pos = 0;
        binlog_master_status(s->srv->binlog, name, sizeof name, &pos);
        const char *vals[4] = {name, arena_printf(&s->arena, "%llu", (unsigned long long)pos), "", ""};
        trs_row(&rs, vals);
    }
    trs_end(&rs, more);
    return 0;
}

static int show_events_row(void *arg, const binlog_show_row_t *r)
{
    binlogs_arg_t *b = arg;
    const char *vals[6] = {r->log_name, arena_printf(b->a, "%llu", (unsigned long long)r->pos), r->event_type,
                           arena_printf(b->a, "%u", r->server_id),
                           arena_printf(b->a, "%llu", (unsigned long long)r->end_log_pos), r->info};
    trs_row(b->rs, vals);
    return 0;
}

static int exec_show_binlog_events(exec_ctx_t *x, const sql_show_t *sh, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    if (!s->srv->binlog)
        return 0; /* MariaDB: an empty result without binary logging */
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    uint64_t pos = 4, skip = 0, limit = UINT64_MAX;
    int rc = 0;
    if (sh->from_pos && (rc = exec_limit_value(x, &ev, sh->from_pos, &pos)) != 0)
        return rc;
    if (sh->limit.count && (rc = exec_limit_value(x, &ev, sh->limit.count, &limit)) != 0)
        return rc;
    if (sh->limit.offset && (rc = exec_limit_value(x, &ev, sh->limit.offset, &skip)) != 0)
        return rc;
    if (sh->log_name) {
        uint32_t seq;
        if (binlog_file_seq(s->srv->binlog, sh->log_name, &seq) != 0)
            return diag_error(&s->diag, ER_ERROR_WHEN_EXECUTING_COMMAND, "SHOW BINLOG EVENTS",
                              "Could not find target log");
    }
    text_rs_t rs = {.s = s, .sink = sink};
    trs_col(&rs, "Log_name", 20, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Pos", 20, MYSQL_TYPE_LONGLONG);
    trs_col(&rs, "Event_type", 15, MYSQL_TYPE_VAR_STRING);
    trs_col(&rs, "Server_id", 10, MYSQL_TYPE_LONG);
    trs_col(&rs, "End_log_pos", 20, MYSQL_TYPE_LONGLONG);
    trs_col(&rs, "Info", 4096, MYSQL_TYPE_VAR_STRING);
    binlogs_arg_t a = {&rs, &s->arena};
    char err[512] = "";
    rc = binlog_show_events(s->srv->binlog, sh->log_name, pos, (int64_t)skip,
                            limit == UINT64_MAX ? -1 : (int64_t)limit, show_events_row, &a, err, sizeof err);
    /* An error before any row becomes the statement's error; after rows went out, the result ends there. */
    if (rc && !rs.started)
        return diag_error(&s->diag, ER_ERROR_WHEN_EXECUTING_COMMAND, "SHOW BINLOG EVENTS", err);
    if (rc) /* rows already went out: end the result, the error is logged */
        log_warn("SHOW BINLOG EVENTS: %s", err);
    trs_end(&rs, more);
    return 0;
}

/* PURGE BINARY LOGS TO 'file' | BEFORE datetime, and RESET MASTER [TO n]: the index alone decides. */
static int exec_purge(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    /* PURGE needs SUPER or BINLOG ADMIN, RESET MASTER RELOAD (MariaDB 10.11) */
    int prc = priv_check_global(s, st->kind == SQL_STMT_RESET_MASTER ? PRIV_RELOAD : PRIV_SUPER | PRIV_BINLOG_ADMIN);
    if (prc)
        return prc;
    binlog_t *bl = s->srv->binlog;
    if (!bl)
        return st->kind == SQL_STMT_PURGE_BINARY_LOGS ? diag_error(&s->diag, ER_NO_BINARY_LOGGING) : (sink->ok(sink, 0, 0, NULL, more), 0);
    int rc;
    if (st->kind == SQL_STMT_RESET_MASTER) {
        rc = binlog_reset(bl, st->reset_master_to ? (uint32_t)st->reset_master_to : 1);
    } else if (st->purge.to_log) {
        uint32_t seq;
        if (binlog_file_seq(bl, st->purge.to_log, &seq) != 0)
            return diag_error(&s->diag, ER_UNKNOWN_TARGET_BINLOG);
        rc = binlog_purge_to(bl, st->purge.to_log);
    } else {
        sql_eval_ctx_t ev;
        exec_eval_init(x, &ev);
        value_t v;
        if ((rc = sql_expr_eval(&ev, st->purge.before, &v)) != 0)
            return rc;
        value_t t = v;
        if (v.type == VAL_STRING && !value_parse_datetime(v.s.ptr, v.s.len, &t))
            return diag_error(&s->diag, ER_WRONG_ARGUMENTS, "PURGE LOGS BEFORE");
        if (t.type != VAL_DATETIME && t.type != VAL_TIMESTAMP && t.type != VAL_DATE)
            return diag_error(&s->diag, ER_WRONG_ARGUMENTS, "PURGE LOGS BEFORE");
        struct tm tm = {.tm_year = (int)t.t.year - 1900, .tm_mon = (int)t.t.month - 1, .tm_mday = (int)t.t.day,
                        .tm_hour = (int)t.t.hour, .tm_min = (int)t.t.minute, .tm_sec = (int)t.t.second, .tm_isdst = -1};
        time_t when = mktime(&tm); /* the server's time zone, as MariaDB reads the literal */
        rc = binlog_purge_before(bl, when < 0 ? 0 : (uint64_t)when);
    }
    if (rc < 0)
        return diag_error(&s->diag, ER_LOG_PURGE_UNKNOWN_ERR);
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_show(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    const sql_show_t *sh = &st->show;
    if (sql_exec_handles(st))
        return sqlx_run(x, st, sink, more);
    x->s->row_count = -1; /* a result set: ROW_COUNT() is -1 afterwards, as after SELECT */
    if (sh->what == SQL_SHOW_VARIABLES || sh->what == SQL_SHOW_ENGINES || sh->what == SQL_SHOW_CHARSET ||
        sh->what == SQL_SHOW_COLLATION || sh->what == SQL_SHOW_DATABASES) {
        /* information_schema scans in MariaDB: SERVER_QUERY_NO_INDEX_USED */
        if (!x->s->sqlx)
            x->s->sqlx = sql_exec_session_new();
        ((sql_exec_session_t *)x->s->sqlx)->no_index_used = true;
    }
    switch (sh->what) {
    case SQL_SHOW_VARIABLES: return exec_show_variables(x, sh, sink, more);
    case SQL_SHOW_STATUS: return exec_show_status(x, sh, sink, more);
    case SQL_SHOW_WARNINGS: return exec_show_warnings(x, sh, sink, more, false);
    case SQL_SHOW_ERRORS: return exec_show_warnings(x, sh, sink, more, true);
    case SQL_SHOW_PROCESSLIST: return exec_show_processlist(x, sh, sink, more);
    case SQL_SHOW_DATABASES: return exec_show_databases(x, sh, sink, more);
    case SQL_SHOW_ENGINES: return exec_show_engines(x, sink, more);
    case SQL_SHOW_PLUGINS: return exec_show_plugins(x, sh, sink, more);
    case SQL_SHOW_ENGINE_STATUS: return exec_show_engine_status(x, sh, sink, more);
    case SQL_SHOW_CHARSET: return exec_show_collation(x, sh, sink, more, true);
    case SQL_SHOW_COLLATION: return exec_show_collation(x, sh, sink, more, false);
    case SQL_SHOW_GRANTS: return exec_show_grants(x, sh, sink, more);
    case SQL_SHOW_CREATE_USER: return exec_show_create_user(x, sh, sink, more);
    /* binlog statements need BINLOG MONITOR (REPLICATION CLIENT), or SUPER where MariaDB accepts it */
    case SQL_SHOW_BINARY_LOGS:
        return priv_check_global(x->s, PRIV_SUPER | PRIV_BINLOG_MONITOR) ?: exec_show_binlogs(x, sink, more);
    case SQL_SHOW_MASTER_STATUS:
        return priv_check_global(x->s, PRIV_SUPER | PRIV_BINLOG_MONITOR) ?: exec_show_master_status(x, sink, more);
    case SQL_SHOW_BINLOG_EVENTS:
        return priv_check_global(x->s, PRIV_BINLOG_MONITOR) ?: exec_show_binlog_events(x, sh, sink, more);
    case SQL_SHOW_SLAVE_STATUS:
        return exec_repl_show_status(x->s, sh->full, sink, more);
    case SQL_SHOW_STRATA_ADVICE: /* server state, as SHOW PROCESSLIST of all sessions: PROCESS */
        return priv_check_global(x->s, PRIV_PROCESS) ?: session_monitor_show_advice(x->s, sink, more);
    default:
        return diag_error(&x->s->diag, ER_NOT_SUPPORTED_YET, arena_printf(&x->s->arena, "%.*s", (int)MIN(st->src_len, 60), st->src));
    }
}

/* ------------------------------------------------------------------ accounts */

static int exec_user_stmt(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    const sql_user_stmt_t *u = &st->user;
    size_t n = u->nusers;
    int rc;
    if ((rc = priv_check_global(s, PRIV_CREATE_USER)) != 0) /* ALTER USER of oneself too (MariaDB) */
        return rc;
    if (st->kind == SQL_STMT_DROP_USER) {
        acl_user_name_t *names = arena_calloc(&s->arena, sizeof *names * (n ? n : 1));
        for (size_t i = 0; i < n; i++) {
            const sql_user_t *su = &u->users[i].user;
            names[i].user = su->current ? s->priv_user : su->user;
            names[i].host = su->current ? s->priv_host : su->host;
        }
        rc = acl_drop_user(s->srv->acl, &s->diag, names, n, u->if_exists);
    } else {
        acl_user_spec_t *specs = arena_calloc(&s->arena, sizeof *specs * (n ? n : 1));
        for (size_t i = 0; i < n; i++) {
            const sql_user_spec_t *sp = &u->users[i];
            acl_user_spec_init(&specs[i], sp->user.current ? s->priv_user : sp->user.user,
                               sp->user.current ? s->priv_host : sp->user.host);
            specs[i].plugin = sp->plugin;
            specs[i].password = sp->password;
            specs[i].password_len = sp->password ? strlen(sp->password) : 0;
            specs[i].auth_string = sp->auth_string;
            /* account options (they follow the user list and apply to every account in it) */
            if ((rc = exec_grant_account_opts(s, &u->opts, &specs[i])) != 0)
                return rc;
        }
        if (st->kind == SQL_STMT_CREATE_USER && u->or_replace) {
            acl_user_name_t *names = arena_calloc(&s->arena, sizeof *names * (n ? n : 1));
            for (size_t i = 0; i < n; i++)
                names[i].user = specs[i].user, names[i].host = specs[i].host;
            if ((rc = acl_drop_user(s->srv->acl, &s->diag, names, n, true)) != 0)
                return rc;
            diag_clear(&s->diag); /* the notes of the implicit DROP */
        }
        if (st->kind == SQL_STMT_CREATE_USER)
            rc = acl_create_user(s->srv->acl, &s->diag, specs, n, u->if_not_exists);
        else
            rc = acl_alter_user(s->srv->acl, &s->diag, specs, n, u->if_exists);
    }
    if (rc)
        return rc < 0 && diag_failed(&s->diag) ? -s->diag.error_code : rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_rename_user(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    int prc = priv_check_global(s, PRIV_CREATE_USER);
    if (prc)
        return prc;
    for (uint32_t i = 0; i < st->rename_user.n; i++) {
        acl_user_name_t from = {st->rename_user.from[i].user, st->rename_user.from[i].host};
        acl_user_name_t to = {st->rename_user.to[i].user, st->rename_user.to[i].host};
        int rc = acl_rename_user(s->srv->acl, &s->diag, &from, &to, 1);
        if (rc)
            return rc;
    }
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

static int exec_set_password(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    const sql_set_password_t *sp = &st->set_password;
    const char *user, *host;
    stmt_account(s, sp->has_user ? &sp->user : NULL, &user, &host);
    if ((strcmp(user, s->priv_user) || strcasecmp(host ? host : "%", s->priv_host)) &&
        exec_grant_check_mysql_db(s, PRIV_UPDATE) != 0)
        return -s->diag.error_code;
    const char *password = NULL, *hash = NULL;
    const sql_expr_t *e = sp->value;
    if (e->kind == SQL_E_FUNC && e->nargs == 1 && strcasecmp(e->func.name, "PASSWORD") == 0)
        e = e->args[0], password = "";
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    value_t v;
    int rc = sql_expr_eval(&ev, e, &v);
    if (rc)
        return rc;
    size_t len = 0;
    const char *text = value_is_null(&v) ? "" : value_to_text(&s->arena, &v, &len);
    if (password)
        password = text;
    else
        hash = text;
    rc = acl_set_password(s->srv->acl, &s->diag, user, host, password, password ? strlen(password) : 0, hash);
    if (rc)
        return rc;
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

/* ------------------------------------------------------------------ prepared statements */

static sess_stmt_t *stmt_find_name(session_t *s, const char *name)
{
    for (sess_stmt_t *p = s->stmts; p; p = p->next)
        if (p->name && strcasecmp(p->name, name) == 0)
            return p;
    return NULL;
}

sess_stmt_t *session_stmt_find(session_t *s, uint32_t id)
{
    for (sess_stmt_t *p = s->stmts; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

static void stmt_free(session_t *s, sess_stmt_t *p)
{
    status_global_add(&s->srv->status, STATUS_PREPARED_STMT_COUNT, -1);
    for (uint32_t i = 0; i < p->nparams; i++)
        buf_free(&p->long_data[i]);
    mem_free(p->long_data);
    mem_free(p->has_long_data);
    mem_free(p->param_types);
    mem_free(p->name);
    mem_free(p->db);
    sql_plan_free(p->plan);
    arena_destroy(&p->arena);
    mem_free(p);
}

static void stmt_unlink(session_t *s, sess_stmt_t *st)
{
    for (sess_stmt_t **pp = &s->stmts; *pp; pp = &(*pp)->next) {
        if (*pp == st) {
            *pp = st->next;
            stmt_free(s, st);
            return;
        }
    }
}

/* Parses `sql` into a new prepared statement.  Returns it, or NULL with the error in the diag. */
static sess_stmt_t *stmt_prepare(session_t *s, const char *sql, size_t len)
{
    uint64_t maxp = (uint64_t)sysvar_global_int(&s->srv->vars, SYSVAR_MAX_PREPARED_STMT_COUNT);
    if (status_global_get(&s->srv->status, STATUS_PREPARED_STMT_COUNT) >= maxp) {
        diag_error(&s->diag, ER_MAX_PREPARED_STMT_COUNT_REACHED, (unsigned)maxp);
        return NULL;
    }
    sess_stmt_t *p = mem_calloc(1, sizeof *p);
    arena_init(&p->arena, 4096);
    sql = client_text(s, &p->arena, sql, &len);
    p->text = arena_strndup(&p->arena, sql, len);
    p->text_len = len;
    sql_stmt_list_t list;
    if (sql_parse_mode(&p->arena, p->text, len, session_parse_mode(s), &list, &s->diag) != 0) /* PREPARE's sql_mode */
        goto fail;
    if (list.n != 1) {
        diag_error(&s->diag, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), list.n ? list.stmts[1]->src : "", 1);
        goto fail;
    }
    sql_stmt_t *st = list.stmts[0];
    if (st->kind == SQL_STMT_PREPARE || st->kind == SQL_STMT_EXECUTE || st->kind == SQL_STMT_DEALLOCATE ||
        st->kind == SQL_STMT_LOAD_DATA) {
        diag_error(&s->diag, ER_UNSUPPORTED_PS);
        goto fail;
    }
    p->stmt = st;
    p->db = s->db ? mem_strdup(s->db) : NULL;
    p->nparams = st->nparams;
    if (p->nparams) {
        p->param_types = mem_calloc(p->nparams, sizeof *p->param_types);
        p->long_data = mem_calloc(p->nparams, sizeof *p->long_data);
        p->has_long_data = mem_calloc(p->nparams, sizeof *p->has_long_data);
    }
    if ((st->kind == SQL_STMT_SELECT && st->select->from) || st->kind == SQL_STMT_UPDATE || st->kind == SQL_STMT_DELETE)
        p->plan = sql_plan_new();
    bool returning = ((st->kind == SQL_STMT_INSERT || st->kind == SQL_STMT_REPLACE) && st->insert->nreturning) ||
                     (st->kind == SQL_STMT_DELETE && st->del->nreturning);
    if ((st->kind == SQL_STMT_SELECT && sql_exec_select_handles(st->select)) || returning) {
        exec_ctx_t x = {.s = s};
        sql_exec_ctx_t c;
        sqlx_ctx(&x, &c, NULL, false);
        c.arena = &p->arena;
        res_col_t *cols;
        int n;
        int drc = sql_exec_describe(&c, st, &cols, &n);
        /* as MariaDB, PREPARE checks the tables and columns the statement names */
        if (drc && (returning || s->diag.error_code == ER_NO_SUCH_TABLE || s->diag.error_code == ER_NO_DB_ERROR || s->diag.error_code == ER_BAD_FIELD_ERROR ||
                    s->diag.error_code == ER_NON_UNIQ_ERROR || s->diag.error_code == ER_BAD_DB_ERROR ||
                    s->diag.error_code == ER_UNKNOWN_TABLE))
            goto fail;
        if (!returning) { /* MariaDB checks RETURNING at PREPARE but describes its columns only at EXECUTE */
            p->ncols = n;
            p->cols = cols;
        }
    } else if (st->kind == SQL_STMT_SELECT && !st->select->from) {
        const sql_select_t *sel = st->select;
        p->ncols = (int)sel->nitems;
        p->cols = arena_calloc(&p->arena, sizeof(res_col_t) * (size_t)(p->ncols ? p->ncols : 1));
        for (int i = 0; i < p->ncols; i++) {
            sql_col_meta_t m;
            sql_item_meta(sel->items[i].expr, NULL, &m);
            col_from_meta(&p->cols[i], &m, sql_item_name(&p->arena, &sel->items[i]));
        }
    }
    p->id = ++s->next_stmt_id;
    p->next = s->stmts;
    s->stmts = p;
    status_global_add(&s->srv->status, STATUS_PREPARED_STMT_COUNT, 1);
    return p;
fail:
    mem_free(p->db);
    sql_plan_free(p->plan);
    mem_free(p->param_types);
    mem_free(p->long_data);
    mem_free(p->has_long_data);
    arena_destroy(&p->arena);
    mem_free(p);
    return NULL;
}

static int exec_stmt(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more);

/* Runs a prepared statement in the database that was current when it was prepared (MariaDB: tables and
 * DATABASE() resolve there), then gives the session its own current database back. */
static int stmt_run(exec_ctx_t *x, sess_stmt_t *p, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    if (!p->db || (s->db && strcmp(s->db, p->db) == 0))
        return exec_stmt(x, p->stmt, sink, more);
    char *own = s->db;
    s->db = mem_strdup(p->db);
    int rc = exec_stmt(x, p->stmt, sink, more);
    mem_free(s->db); /* (NULL when the statement dropped it) */
    s->db = own;
    return rc;
}

void session_stmt_prepare(session_t *s, const char *sql, size_t len, res_sink_t *sink)
{
    session_begin_statement(s);
    status_inc(&s->stat, STATUS_COM_STMT_PREPARE);
    session_qlog_general(s, "Prepare", sql, len);
    sess_stmt_t *p = stmt_prepare(s, sql, len);
    if (!p) {
        sink->error(sink);
        return;
    }
    sink->prepared(sink, p->id, p->cols, p->ncols, p->nparams);
}

static bool stmt_uses_tables(const sql_stmt_t *st);
/* The error MariaDB keeps in the statement once a parameter's long data passed max_allowed_packet. */
static const char long_data_too_long_msg[] = "Parameter of prepared statement which is set through "
                                             "mysql_send_long_data() is longer than 'max_allowed_packet' bytes";

void session_stmt_long_data(session_t *s, sess_stmt_t *p, uint32_t param, const uint8_t *data, size_t n)
{
    if (param >= p->nparams || p->long_data_too_long)
        return;
    uint64_t limit = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_MAX_ALLOWED_PACKET);
    buf_t *b = &p->long_data[param];
    if ((uint64_t)b->len + n > limit) {
        /* Nothing more is kept (the client may go on sending); the EXECUTE reports it. */
        p->long_data_too_long = true;
        for (uint32_t i = 0; i < p->nparams; i++) {
            p->has_long_data[i] = false;
            buf_free(&p->long_data[i]);
            buf_init(&p->long_data[i]);
        }
        return;
    }
    p->has_long_data[param] = true;
    buf_append(b, data, n);
}

void session_stmt_execute(session_t *s, sess_stmt_t *p, const value_t *params, res_sink_t *sink)
{
    session_begin_statement(s);
    if (p->stmt && stmt_uses_tables(p->stmt))
        diag_clear(&s->diag); /* the same rule as a statement of COM_QUERY */
    status_inc(&s->stat, STATUS_COM_STMT_EXECUTE);
    status_inc(&s->stat, STATUS_QUESTIONS);
    status_inc(&s->stat, STATUS_QUERIES); /* Questions plus stored programs' statements, which strata has not */
    if (p->long_data_too_long) {
        diag_push_msg(&s->diag, DIAG_ERROR, ER_UNKNOWN_ERROR, long_data_too_long_msg);
        sink->error(sink);
        return;
    }
    exec_ctx_t x = {.s = s, .params = params, .nparams = p->nparams, .param_types = p->param_types, .plan = p->plan};
    /* MariaDB logs the text with the parameters in place; strata logs the prepared text (with its ?) */
    session_qlog_general(s, "Execute", p->text, p->text_len);
    blocking_bind_state(&s->proc_state);
    blocking_bind_progress(&s->proc_progress);
    session_meter_begin(s);
    int rc = stmt_run(&x, p, sink, false);
    session_meter_end(s, p->stmt);
    blocking_bind_state(NULL);
    blocking_bind_progress(NULL);
    if (rc) {
        if (!diag_failed(&s->diag))
            diag_error(&s->diag, ER_UNKNOWN_ERROR);
        sink->error(sink);
    }
    for (uint32_t i = 0; i < p->nparams; i++) {
        p->has_long_data[i] = false;
        buf_reset(&p->long_data[i]);
    }
}

void session_stmt_close(session_t *s, uint32_t id)
{
    status_inc(&s->stat, STATUS_COM_STMT_CLOSE);
    session_qlog_general(s, "Close stmt", "", 0);
    sess_stmt_t *p = session_stmt_find(s, id);
    if (p)
        stmt_unlink(s, p);
}

void session_stmt_reset(session_t *s, sess_stmt_t *p)
{
    status_inc(&s->stat, STATUS_COM_STMT_RESET);
    session_qlog_general(s, "Reset stmt", "", 0);
    p->long_data_too_long = false;
    for (uint32_t i = 0; i < p->nparams; i++) {
        p->has_long_data[i] = false;
        buf_reset(&p->long_data[i]);
    }
}

static int exec_prepare_sql(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    const sql_prepare_t *pr = &st->prepare;
    const char *text = pr->text;
    size_t len = pr->text_len;
    if (pr->from_var) {
        uservar_t *u = uservar_find(s, pr->from_var);
        if (!u || u->v.type == VAL_NULL) {
            text = "NULL";
            len = 4;
        } else {
            value_t v = u->v;
            text = value_to_text(&s->arena, &v, &len);
        }
    }
    sess_stmt_t *old = stmt_find_name(s, pr->name);
    if (old)
        stmt_unlink(s, old);
    sess_stmt_t *p = stmt_prepare(s, text, len);
    if (!p)
        return -s->diag.error_code;
    p->name = mem_strdup(pr->name);
    sink->ok(sink, 0, 0, "Statement prepared", more);
    return 0;
}

static int exec_execute_sql(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    const sql_prepare_t *pr = &st->prepare;
    sess_stmt_t *p = stmt_find_name(s, pr->name);
    if (!p)
        return diag_error(&s->diag, ER_UNKNOWN_STMT_HANDLER, (int)strlen(pr->name), pr->name, "EXECUTE");
    if (pr->nusing != p->nparams)
        return diag_error(&s->diag, ER_WRONG_ARGUMENTS, "EXECUTE");
    if (p->stmt && stmt_uses_tables(p->stmt))
        diag_clear(&s->diag); /* the prepared statement's rule, as COM_STMT_EXECUTE's and COM_QUERY's */
    value_t *params = arena_calloc(&s->arena, sizeof(value_t) * (p->nparams ? p->nparams : 1));
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    for (uint32_t i = 0; i < p->nparams; i++) {
        int rc = sql_expr_eval(&ev, pr->using[i], &params[i]);
        if (rc)
            return rc;
    }
    exec_ctx_t px = {.s = s, .params = params, .nparams = p->nparams, .plan = p->plan};
    return stmt_run(&px, p, sink, more);
}

static int exec_deallocate(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    sess_stmt_t *p = stmt_find_name(s, st->prepare.name);
    if (!p)
        return diag_error(&s->diag, ER_UNKNOWN_STMT_HANDLER, (int)strlen(st->prepare.name), st->prepare.name, "DEALLOCATE PREPARE");
    stmt_unlink(s, p);
    sink->ok(sink, 0, 0, NULL, more);
    return 0;
}

/* ------------------------------------------------------------------ dispatch */

/* The Com_* counter of each statement kind (statements.def's com column; NONE: none, or counted where it is
 * carried out). */
enum { STATUS_COM_NONE = -1 };
static const int stmt_com[SQL_STMT__COUNT] = {
#define STMT(id, privileges, handler, com, flags) [SQL_STMT_##id] = STATUS_COM_##com,
#include "sql/parser/statements.def"
#undef STMT
};

/* The Com_* counter a statement bumps: its kind's, refined by its form where MariaDB counts forms apart. */
static int stmt_com_counter(const sql_stmt_t *st)
{
    switch (st->kind) {
    case SQL_STMT_GRANT:
        return st->grant->level == SQL_GRANT_ROLE ? STATUS_COM_GRANT_ROLE : STATUS_COM_GRANT;
    case SQL_STMT_REVOKE:
        return st->grant->revoke_all                 ? STATUS_COM_REVOKE_ALL
               : st->grant->level == SQL_GRANT_ROLE ? STATUS_COM_REVOKE_ROLE
                                                    : STATUS_COM_REVOKE;
    case SQL_STMT_INSERT: return st->insert->select ? STATUS_COM_INSERT_SELECT : STATUS_COM_INSERT;
    case SQL_STMT_REPLACE: return st->insert->select ? STATUS_COM_REPLACE_SELECT : STATUS_COM_REPLACE;
    case SQL_STMT_UPDATE: return st->update->multi ? STATUS_COM_UPDATE_MULTI : STATUS_COM_UPDATE;
    case SQL_STMT_DELETE: return st->del->multi ? STATUS_COM_DELETE_MULTI : STATUS_COM_DELETE;
    case SQL_STMT_ROLLBACK: return st->txn.savepoint ? STATUS_COM_ROLLBACK_TO_SAVEPOINT : STATUS_COM_ROLLBACK;
    case SQL_STMT_PURGE_BINARY_LOGS: return st->purge.to_log ? STATUS_COM_PURGE : STATUS_COM_PURGE_BEFORE_DATE;
    case SQL_STMT_SHOW:
        switch (st->show.what) {
        case SQL_SHOW_VARIABLES: return STATUS_COM_SHOW_VARIABLES;
        case SQL_SHOW_STATUS: return STATUS_COM_SHOW_STATUS;
        case SQL_SHOW_WARNINGS: return STATUS_COM_SHOW_WARNINGS;
        case SQL_SHOW_ERRORS: return STATUS_COM_SHOW_ERRORS;
        case SQL_SHOW_DATABASES: return STATUS_COM_SHOW_DATABASES;
        case SQL_SHOW_PROCESSLIST: return STATUS_COM_SHOW_PROCESSLIST;
        case SQL_SHOW_ENGINES: return STATUS_COM_SHOW_STORAGE_ENGINES;
        case SQL_SHOW_CHARSET: return STATUS_COM_SHOW_CHARSETS;
        case SQL_SHOW_COLLATION: return STATUS_COM_SHOW_COLLATIONS;
        case SQL_SHOW_GRANTS: return STATUS_COM_SHOW_GRANTS;
        case SQL_SHOW_CREATE_USER: return STATUS_COM_SHOW_CREATE_USER;
        case SQL_SHOW_CREATE_DATABASE: return STATUS_COM_SHOW_CREATE_DB;
        case SQL_SHOW_CREATE_TABLE: return STATUS_COM_SHOW_CREATE_TABLE;
        case SQL_SHOW_CREATE_EVENT: return STATUS_COM_SHOW_CREATE_EVENT;
        case SQL_SHOW_TABLES: return STATUS_COM_SHOW_TABLES;
        case SQL_SHOW_COLUMNS: return STATUS_COM_SHOW_FIELDS;
        case SQL_SHOW_INDEX: return STATUS_COM_SHOW_KEYS;
        case SQL_SHOW_TABLE_STATUS: return STATUS_COM_SHOW_TABLE_STATUS;
        case SQL_SHOW_BINARY_LOGS: return STATUS_COM_SHOW_BINLOGS;
        case SQL_SHOW_MASTER_STATUS: return STATUS_COM_SHOW_BINLOG_STATUS;
        case SQL_SHOW_BINLOG_EVENTS: return STATUS_COM_SHOW_BINLOG_EVENTS;
        case SQL_SHOW_ENGINE_STATUS: return STATUS_COM_SHOW_ENGINE_STATUS;
        case SQL_SHOW_PLUGINS: return STATUS_COM_SHOW_PLUGINS;
        case SQL_SHOW_SLAVE_STATUS: return STATUS_COM_SHOW_SLAVE_STATUS;
        case SQL_SHOW_OPEN_TABLES: return STATUS_COM_SHOW_OPEN_TABLES;
        case SQL_SHOW_TRIGGERS: return STATUS_COM_SHOW_TRIGGERS;
        case SQL_SHOW_EVENTS: return STATUS_COM_SHOW_EVENTS;
        case SQL_SHOW_PROCEDURE_STATUS: return STATUS_COM_SHOW_PROCEDURE_STATUS;
        case SQL_SHOW_FUNCTION_STATUS: return STATUS_COM_SHOW_FUNCTION_STATUS;
        case SQL_SHOW_PRIVILEGES: return STATUS_COM_SHOW_PRIVILEGES;
        default: return -1;
        }
    default:
        return (unsigned)st->kind < SQL_STMT__COUNT ? stmt_com[st->kind] : -1;
    }
}

/*
 * Account statements (CREATE/ALTER/DROP/RENAME USER, GRANT, REVOKE, CREATE/DROP ROLE) go to the binary log as
 * QUERY events, as MariaDB writes them, once they succeeded and before the client's OK: a sink in front of the
 * connection's writes the event when the statement answers OK.  (SET PASSWORD is not logged: MariaDB rewrites it
 * with the hash, strata does not yet.)
 */
typedef struct logged_sink {
    res_sink_t base;
    res_sink_t *real;
    session_t *s;
    const sql_stmt_t *st;
} logged_sink_t;

static void ls_columns(res_sink_t *k, const res_col_t *cols, int n)
{
    logged_sink_t *l = (logged_sink_t *)k;
    l->real->columns(l->real, cols, n);
}
static void ls_row(res_sink_t *k, const res_cell_t *cells)
{
    logged_sink_t *l = (logged_sink_t *)k;
    l->real->row(l->real, cells);
}
static void ls_rows_end(res_sink_t *k, bool more)
{
    logged_sink_t *l = (logged_sink_t *)k;
    l->real->rows_end(l->real, more);
}
static void ls_error(res_sink_t *k)
{
    logged_sink_t *l = (logged_sink_t *)k;
    l->real->error(l->real);
}
static void ls_raw(res_sink_t *k, const char *p, size_t n)
{
    logged_sink_t *l = (logged_sink_t *)k;
    l->real->raw(l->real, p, n);
}
static void ls_prepared(res_sink_t *k, uint32_t id, const res_col_t *cols, int ncols, uint32_t nparams)
{
    logged_sink_t *l = (logged_sink_t *)k;
    l->real->prepared(l->real, id, cols, ncols, nparams);
}
static int ls_flush(res_sink_t *k)
{
    logged_sink_t *l = (logged_sink_t *)k;
    return l->real->flush ? l->real->flush(l->real) : 0;
}
static void ls_ok(res_sink_t *k, uint64_t affected, uint64_t last_id, const char *info, bool more)
{
    logged_sink_t *l = (logged_sink_t *)k;
    session_t *s = l->s;
    if (s->srv->binlog && sysvar_session_int(&s->vars, SYSVAR_SQL_LOG_BIN) && l->st->src && l->st->src_len &&
        sql_commit_ddl(s->db, l->st->src, l->st->src_len, s->id, (uint64_t)sysvar_session_int(&s->vars, SYSVAR_SQL_MODE)) != 0) {
        diag_error(&s->diag, ER_BINLOG_LOGGING_IMPOSSIBLE, "the statement is done but could not be written to the "
                                                           "binary log");
        l->real->error(l->real);
        return;
    }
    l->real->ok(l->real, affected, last_id, info, more);
}

/* Account statements that go to the binlog run one at a time from the note that their QUERY event is owed
 * (sql_commit_account_begin) to the event or the statement's failure: the account file's generation then tells
 * a recovery whether the statement of a surviving note changed it. */
static pthread_mutex_t account_log_mu = PTHREAD_MUTEX_INITIALIZER;

static bool account_log_begin(session_t *s, const sql_stmt_t *st)
{
    if (!s->srv->binlog || !sysvar_session_int(&s->vars, SYSVAR_SQL_LOG_BIN) || !st->src || !st->src_len)
        return false;
    pthread_mutex_lock(&account_log_mu);
    if (sql_commit_account_begin(s->db, st->src, st->src_len, s->id,
                                 (uint64_t)sysvar_session_int(&s->vars, SYSVAR_SQL_MODE)) != 0)
        log_warn("accounts: cannot note the statement for crash recovery; it is logged as before");
    return true;
}

static void account_log_end(bool noted)
{
    if (!noted)
        return;
    sql_commit_ddl_abandon(); /* nothing left to do once the event is written (ls_ok) */
    pthread_mutex_unlock(&account_log_mu);
}

static res_sink_t *logged_sink(logged_sink_t *l, session_t *s, const sql_stmt_t *st, res_sink_t *real)
{
    l->base = *real; /* binary as the real one; every call goes through to it */
    l->base.raw = ls_raw;
    l->base.prepared = ls_prepared;
    l->base.columns = ls_columns;
    l->base.row = ls_row;
    l->base.rows_end = ls_rows_end;
    l->base.ok = ls_ok;
    l->base.error = ls_error;
    l->base.flush = ls_flush;
    l->real = real;
    l->s = s;
    l->st = st;
    return &l->base;
}

/* ------------------------------------------------------------------ stored routines (sp_exec.c runs them) */

int session_sp_stmt(session_t *s, const sql_stmt_t *st, const value_t *params, const uint16_t *param_types, uint32_t n,
                    sp_param_set_fn param_set, void *arg, res_sink_t *sink, bool more)
{
    exec_ctx_t x = {.s = s, .params = params, .nparams = n, .param_types = param_types, .param_set = param_set,
                    .param_set_arg = arg};
    return exec_stmt(&x, st, sink, more);
}

int session_sp_eval(session_t *s, const sql_expr_t *e, const value_t *params, uint32_t n, bool assign, value_t *out)
{
    exec_ctx_t x = {.s = s, .params = params, .nparams = n};
    sql_eval_ctx_t ev;
    exec_eval_init(&x, &ev);
    /* into a routine's variable: x/0 is 1365 under strict mode with ERROR_FOR_DIVISION_BY_ZERO, as into a column */
    int64_t mode = sysvar_session_int(&s->vars, SYSVAR_SQL_MODE);
    ev.div_zero_error = assign && (mode & (3ll << 21)) != 0 && !ev.div_zero_off;
    return sql_expr_eval(&ev, e, out);
}

void session_sp_uservar_set(session_t *s, const char *name, const value_t *v) { uservar_store(s, name, v); }

typedef struct call_out {
    exec_ctx_t *x;
    const sql_call_stmt_t *c;
} call_out_t;

static void call_out(void *arg, uint32_t i, const value_t *v)
{
    call_out_t *o = arg;
    const sql_expr_t *e = o->c->args[i];
    if (e->kind == SQL_E_USERVAR)
        uservar_store(o->x->s, e->var.name, v);
    else if (e->kind == SQL_E_PARAM && o->x->param_set)
        o->x->param_set(o->x->param_set_arg, e->param_index, v);
}

/* CALL: the arguments evaluated here (with a prepared statement's or a routine's `?`), the routine run by
 * sp_exec.c; an OUT / INOUT argument must be a user variable or a routine's variable (1414). */
static int exec_call(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    const sql_call_stmt_t *c = st->call;
    sql_eval_ctx_t ev;
    exec_eval_init(x, &ev);
    value_t *args = arena_calloc(&s->arena, sizeof(value_t) * (c->nargs + 1));
    bool *is_var = arena_calloc(&s->arena, sizeof(bool) * (c->nargs + 1));
    for (uint32_t i = 0; i < c->nargs; i++) {
        const sql_expr_t *e = c->args[i];
        is_var[i] = e->kind == SQL_E_USERVAR || (e->kind == SQL_E_PARAM && x->param_set);
        int rc = sql_expr_eval(&ev, e, &args[i]);
        if (rc)
            return rc;
    }
    call_out_t o = {x, c};
    return sp_call(s, c, args, is_var, call_out, &o, sink, more);
}

/* innodb_force_recovery >= 1 (or innodb_read_only): the data directory is read-only (docs/faults.md).  CREATE
 * TABLE (TEMPORARY too: strata keeps those in the engine) answers as MariaDB's InnoDB does then (1005 with errno
 * 165 and a 1036 warning); a change to a table reaches the engine, which refuses it, and the table layer answers
 * 1036 "Table 't' is read only" as MariaDB does.  Statements MariaDB can still run because they write no InnoDB
 * table there (databases, views, routines, triggers, accounts: directories, .frm files and Aria tables) are
 * catalog or account-file writes in strata: refused up front with 1290. */
static int force_recovery_check(session_t *s, const sql_stmt_t *st)
{
    if (!sysvar_global_int(&s->srv->vars, SYSVAR_INNODB_READ_ONLY))
        return 0;
    const char *opt = sysvar_global_int(&s->srv->vars, SYSVAR_INNODB_FORCE_RECOVERY) ? "--innodb-force-recovery"
                                                                                      : "--innodb-read-only";
    switch (st->kind) {
    case SQL_STMT_CREATE_TABLE: {
        const sql_name_t *n = &st->create_table->table;
        const char *db = n->db ? n->db : s->db ? s->db : "";
        char q[2 * 200 + 8];
        snprintf(q, sizeof q, "`%.200s`.`%.200s`", db, n->name);
        int rc = diag_error(&s->diag, ER_CANT_CREATE_TABLE, q, 165, "Table is read only");
        diag_warn(&s->diag, ER_OPEN_AS_READONLY, n->name);
        return rc;
    }
    case SQL_STMT_CREATE_DATABASE: case SQL_STMT_DROP_DATABASE: case SQL_STMT_ALTER_DATABASE:
    case SQL_STMT_CREATE_VIEW: case SQL_STMT_DROP_VIEW: case SQL_STMT_CREATE_PROCEDURE: case SQL_STMT_CREATE_FUNCTION:
    case SQL_STMT_DROP_PROCEDURE: case SQL_STMT_DROP_FUNCTION: case SQL_STMT_ALTER_PROCEDURE:
    case SQL_STMT_ALTER_FUNCTION: case SQL_STMT_CREATE_TRIGGER: case SQL_STMT_DROP_TRIGGER:
    case SQL_STMT_CREATE_TABLESPACE: case SQL_STMT_ALTER_TABLESPACE: case SQL_STMT_DROP_TABLESPACE:
    case SQL_STMT_CREATE_LOGFILE_GROUP: case SQL_STMT_DROP_LOGFILE_GROUP: case SQL_STMT_CREATE_USER:
    case SQL_STMT_ALTER_USER: case SQL_STMT_DROP_USER: case SQL_STMT_RENAME_USER: case SQL_STMT_GRANT:
    case SQL_STMT_REVOKE: case SQL_STMT_CREATE_ROLE: case SQL_STMT_DROP_ROLE: case SQL_STMT_SET_PASSWORD:
    case SQL_STMT_SET_DEFAULT_ROLE: case SQL_STMT_PURGE_BINARY_LOGS: case SQL_STMT_RESET_MASTER:
    case SQL_STMT_CHANGE_MASTER: case SQL_STMT_START_SLAVE: case SQL_STMT_RESET_SLAVE:
        return diag_error(&s->diag, ER_OPTION_PREVENTS_STATEMENT, opt);
    default:
        return 0;
    }
}

static int exec_stmt(exec_ctx_t *x, const sql_stmt_t *st, res_sink_t *sink, bool more)
{
    session_t *s = x->s;
    int com = stmt_com_counter(st);
    if (com >= 0)
        status_inc(&s->stat, (status_sess_t)com);
    int frc = force_recovery_check(s, st);
    if (frc)
        return frc;
    if (s->sqlx && ((sql_exec_session_t *)s->sqlx)->trg_depth) { /* inside a trigger: the firing statement's transaction stays open */
        switch (st->kind) {
        case SQL_STMT_BEGIN: case SQL_STMT_COMMIT: case SQL_STMT_ROLLBACK: case SQL_STMT_LOCK_TABLES:
        case SQL_STMT_UNLOCK_TABLES: case SQL_STMT_CREATE_USER: case SQL_STMT_ALTER_USER: case SQL_STMT_DROP_USER:
        case SQL_STMT_RENAME_USER: case SQL_STMT_GRANT: case SQL_STMT_REVOKE: case SQL_STMT_CREATE_ROLE:
        case SQL_STMT_DROP_ROLE:
            return diag_error(&s->diag, ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG);
        default:
            break;
        }
    }
    switch (st->kind) {
    case SQL_STMT_EMPTY:
        return diag_error(&s->diag, ER_EMPTY_QUERY);
    case SQL_STMT_SELECT:
        return exec_select(x, st->select, sink, more);
    case SQL_STMT_CALL:
        return exec_call(x, st, sink, more);
    case SQL_STMT_SET:
        return exec_set(x, st, sink, more);
    case SQL_STMT_SET_TRANSACTION:
        return exec_set_transaction(x, st, sink, more);
    case SQL_STMT_SET_PASSWORD:
        return exec_set_password(x, st, sink, more);
    case SQL_STMT_SHOW:
        return exec_show(x, st, sink, more);
    case SQL_STMT_USE: {
        session_init_db(s, st->use_db, strlen(st->use_db), sink);
        return diag_failed(&s->diag) ? 1 : 0; /* the sink already answered */
    }
    case SQL_STMT_CREATE_USER:
    case SQL_STMT_ALTER_USER:
    case SQL_STMT_DROP_USER:
    case SQL_STMT_RENAME_USER:
    case SQL_STMT_GRANT: /* privilege statements: exec_grant.c */
    case SQL_STMT_REVOKE:
    case SQL_STMT_CREATE_ROLE:
    case SQL_STMT_DROP_ROLE: {
        logged_sink_t ls;
        res_sink_t *ks = logged_sink(&ls, s, st, sink);
        bool noted = account_log_begin(s, st);
        int rc;
        if (st->kind == SQL_STMT_RENAME_USER)
            rc = exec_rename_user(x, st, ks, more);
        else if (st->kind == SQL_STMT_CREATE_USER || st->kind == SQL_STMT_ALTER_USER || st->kind == SQL_STMT_DROP_USER)
            rc = exec_user_stmt(x, st, ks, more);
        else
            rc = exec_grant_stmt(s, st, ks, more);
        account_log_end(noted);
        return rc;
    }
    case SQL_STMT_SET_ROLE:
    case SQL_STMT_SET_DEFAULT_ROLE:
        return exec_grant_stmt(s, st, sink, more);
    case SQL_STMT_KILL: {
        sql_eval_ctx_t ev;
        exec_eval_init(x, &ev);
        value_t v;
        int rc = sql_expr_eval(&ev, st->kill.id, &v);
        if (rc)
            return rc;
        session_kill(s, (uint32_t)value_to_uint(&v, NULL), st->kill.query, sink);
        return diag_failed(&s->diag) ? 1 : 0;
    }
    case SQL_STMT_SHUTDOWN: {
        int prc = priv_check_global(s, PRIV_SHUTDOWN);
        if (prc)
            return prc;
    }
        sink->ok(sink, 0, 0, NULL, false);
        if (sink->flush)
            sink->flush(sink); /* the OK before the server closes every connection (CI saw 2013 without it) */
        if (s->srv->request_shutdown)
            s->srv->request_shutdown(s->srv);
        return 0;
    case SQL_STMT_FLUSH: {
        /* every FLUSH needs RELOAD; FLUSH PRIVILEGES has nothing to reload (grants are live). */
        int prc = priv_check_global(s, PRIV_RELOAD);
        if (prc)
            return prc;
    }
        if ((st->flush.what & (SQL_FLUSH_BINARY_LOGS | SQL_FLUSH_LOGS)) && s->srv->binlog &&
            binlog_rotate(s->srv->binlog) != 0)
            return diag_error(&s->diag, ER_ERROR_ON_WRITE, "binary log", 0, "rotation failed (see the error log)");
        if (st->flush.what & (SQL_FLUSH_LOGS | SQL_FLUSH_GENERAL_LOGS | SQL_FLUSH_SLOW_LOGS))
            session_qlog_flush(s->srv, st->flush.what & (SQL_FLUSH_LOGS | SQL_FLUSH_GENERAL_LOGS),
                               st->flush.what & (SQL_FLUSH_LOGS | SQL_FLUSH_SLOW_LOGS));
        if (st->flush.what & SQL_FLUSH_STATUS)
            status_flush(&s->srv->status, &s->stat);
        if (st->flush.what & SQL_FLUSH_HOSTS)
            server_hosts_flush(s->srv);
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    case SQL_STMT_BEGIN: {
        int rc = st->txn.consistent_snapshot ? sqlx_begin_snapshot(x, st->txn.access)
                                             : sqlx_txn_ro(x, st->kind, st->txn.access);
        if (rc)
            return rc;
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    }
    case SQL_STMT_COMMIT:
    case SQL_STMT_ROLLBACK: {
        if (st->kind == SQL_STMT_ROLLBACK && st->txn.savepoint) { /* ROLLBACK TO SAVEPOINT s: the trx stays */
            int rc = sqlx_savepoint(x, st);
            if (rc)
                return rc;
            sink->ok(sink, 0, 0, NULL, more);
            return 0;
        }
        sql_access_t access = (sql_access_t)s->begin_access;
        int rc = sqlx_txn(x, st->kind);
        if (rc == 0 && st->txn.chain) /* AND CHAIN: a new transaction begins at once, with the same access */
            rc = sqlx_txn_ro(x, SQL_STMT_BEGIN, access);
        if (rc)
            return rc;
        sink->ok(sink, 0, 0, NULL, more);
        if (st->txn.release) /* AND RELEASE: the connection ends after the answer */
            atomic_store(&s->killed, true);
        return 0;
    }
    case SQL_STMT_SAVEPOINT:
    case SQL_STMT_RELEASE_SAVEPOINT: {
        int rc = sqlx_savepoint(x, st);
        if (rc)
            return rc;
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    }
    case SQL_STMT_PURGE_BINARY_LOGS:
    case SQL_STMT_RESET_MASTER:
        return exec_purge(x, st, sink, more);
    case SQL_STMT_CHANGE_MASTER:
    case SQL_STMT_START_SLAVE:
    case SQL_STMT_STOP_SLAVE:
    case SQL_STMT_RESET_SLAVE:
        return exec_repl_stmt(x->s, st, sink, more);
    case SQL_STMT_PREPARE:
        return exec_prepare_sql(x, st, sink, more);
    case SQL_STMT_EXECUTE:
        return exec_execute_sql(x, st, sink, more);
    case SQL_STMT_DEALLOCATE:
        return exec_deallocate(x, st, sink, more);
    case SQL_STMT_DO: {
        sql_eval_ctx_t ev;
        exec_eval_init(x, &ev);
        for (uint32_t i = 0; i < st->ndo; i++) {
            value_t v;
            int rc = set_value_eval(x, st, &ev, st->do_list[i], &v, sink); /* DO (SELECT ...) too */
            if (rc)
                return rc;
        }
        x->s->row_count = 0;
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    }
    case SQL_STMT_LOCK_TABLES:
        /* LOCK TABLES on the database and SELECT on each table (MariaDB's order: 1044, then 1142) */
        for (uint32_t i = 0; i < st->lock.n; i++) {
            const sql_name_t *n = &st->lock.tables[i].table;
            const char *db = n->db ? n->db : s->db;
            if (!db)
                return diag_error(&s->diag, ER_NO_DB_ERROR);
            int prc = priv_check_db(s, db, PRIV_LOCK_TABLES);
            if (!prc)
                prc = priv_check_table(s, db, n->name, PRIV_SELECT); /* a column grant will do */
            if (prc < 0)
                return prc;
        }
        {
            /* LOCK TABLES commits the open transaction (MariaDB); the locks themselves are the metadata locks
             * every statement takes, so only the state remains ('L' of the transaction tracker) */
            int rc = session_in_trans(s) ? sqlx_txn(x, SQL_STMT_COMMIT) : 0;
            if (rc)
                return rc;
            s->locked_tables = s->trk_touched = true;
        }
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    case SQL_STMT_UNLOCK_TABLES: {
        /* UNLOCK TABLES commits only when LOCK TABLES was in effect */
        int rc = s->locked_tables && session_in_trans(s) ? sqlx_txn(x, SQL_STMT_COMMIT) : 0;
        if (rc)
            return rc;
        s->trk_touched = s->locked_tables;
        s->locked_tables = false;
        sink->ok(sink, 0, 0, NULL, more);
        return 0;
    }
    default:
        if (sql_exec_handles(st))
            return sqlx_run(x, st, sink, more);
        return diag_error(&s->diag, ER_NOT_SUPPORTED_YET, arena_printf(&s->arena, "%.*s", (int)MIN(st->src_len, 60), st->src));
    }
}

/* Whether MariaDB would open a table for it (SHOW reads information_schema, account statements mysql.user):
 * such statements clear the previous statement's conditions at once, the others only when they raise one. */
static bool stmt_uses_tables(const sql_stmt_t *st)
{
    switch (st->kind) {
    case SQL_STMT_SELECT:
        return st->select->from != NULL;
    case SQL_STMT_EMPTY:
    case SQL_STMT_SET:
    case SQL_STMT_SET_TRANSACTION:
    case SQL_STMT_DO:
    case SQL_STMT_USE:
    case SQL_STMT_BEGIN:
    case SQL_STMT_COMMIT:
    case SQL_STMT_ROLLBACK:
    case SQL_STMT_SAVEPOINT:
    case SQL_STMT_RELEASE_SAVEPOINT:
    case SQL_STMT_PREPARE:
    case SQL_STMT_EXECUTE:
    case SQL_STMT_DEALLOCATE:
    case SQL_STMT_KILL:
    case SQL_STMT_SHUTDOWN:
        return false;
    default:
        return true;
    }
}

static bool stmt_is_diagnostic(const sql_stmt_t *st)
{
    return st->kind == SQL_STMT_SHOW && (st->show.what == SQL_SHOW_WARNINGS || st->show.what == SQL_SHOW_ERRORS);
}

static void session_set_info(session_t *s, const char *sql, size_t len)
{
    pthread_mutex_lock(&s->info_lock);
    mem_free(s->info);
    s->info = sql ? mem_strndup(sql, MIN(len, 4096)) : NULL;
    pthread_mutex_unlock(&s->info_lock);
}

static int line_of(const char *base, const char *p)
{
    int line = 1;
    for (const char *q = base; q < p; q++)
        if (*q == '\n')
            line++;
    return line;
}

void session_query(session_t *s, const char *sql, size_t len, res_sink_t *sink)
{
    status_inc(&s->stat, STATUS_QUESTIONS);
    status_inc(&s->stat, STATUS_QUERIES);
    s->state = SESS_QUERY;
    s->state_since_us = time_wall_us();
    session_set_info(s, sql, len);
    session_qlog_general(s, "Query", sql, len); /* before it runs, as MariaDB logs it */
    exec_ctx_t x = {.s = s};
    s->prev_warn_count = s->diag.warn_count;
    s->prev_error_count = s->diag.error_count;
    diag_t scratch;
    diag_init(&scratch, s->diag.max);
    sql_stmt_list_t list;
    sql = client_text(s, &s->arena, sql, &len);
    unsigned mode = session_parse_mode(s);
    int rc = sql_parse_mode(&s->arena, sql, len, mode, &list, &scratch);
    if (rc) {
        /* A syntax error replaces the previous statement's conditions. */
        session_begin_statement(s);
        diag_push_msg(&s->diag, DIAG_ERROR, scratch.error_code, scratch.error ? scratch.error->msg : "syntax error");
        diag_free(&scratch);
        sink->error(sink);
        goto done;
    }
    diag_free(&scratch);
    if (list.n > 1 && !s->multi_statements) {
        session_begin_statement(s);
        const sql_stmt_t *second = list.stmts[1];
        /* Without CLIENT_MULTI_STATEMENTS the text after the first statement is a syntax error, at the ';'. */
        const char *semi = list.stmts[0]->src + list.stmts[0]->src_len;
        while (semi < sql + len && *semi != ';')
            semi++;
        (void)second;
        char near[81];
        snprintf(near, sizeof near, "%.*s", (int)MIN((size_t)80, (size_t)(sql + len - semi)), semi);
        diag_error(&s->diag, ER_PARSE_ERROR, errors_format(ER_SYNTAX_ERROR), near, line_of(sql, semi));
        sink->error(sink);
        goto done;
    }
    bool reparsed = false;
    for (uint32_t i = 0; i < list.n; i++) {
        const sql_stmt_t *st = list.stmts[i];
        if (!stmt_is_diagnostic(st)) {
            if (i > 0 || reparsed) {
                s->prev_warn_count = s->diag.warn_count;
                s->prev_error_count = s->diag.error_count;
            }
            session_begin_statement(s);
            if (stmt_uses_tables(st))
                diag_clear(&s->diag);
        } else {
            /* SHOW WARNINGS / ERRORS list the conditions but raise none: their EOF says 0 warnings (MariaDB) */
            s->diag.stale = true;
        }
        if (atomic_load(&s->kill_query)) {
            atomic_store(&s->kill_query, false);
            diag_error(&s->diag, ER_QUERY_INTERRUPTED);
            sink->error(sink);
            break;
        }
        session_set_info(s, st->src, st->src_len); /* SHOW PROCESSLIST's Info: this statement's own text */
        blocking_bind_state(&s->proc_state);
        blocking_bind_progress(&s->proc_progress);
        session_meter_begin(s);
        s->more_results = i + 1 < list.n;
        rc = exec_stmt(&x, st, sink, i + 1 < list.n);
        s->more_results = false;
        blocking_bind_state(NULL);
        blocking_bind_progress(NULL);
        if (rc < 0) /* not yet answered */
            sink->error(sink);
        session_meter_end(s, st); /* after the answer, whose bytes it counts */
        if (rc)
            break;
        if (i + 1 < list.n && session_parse_mode(s) != mode) {
            /* a SET changed how text is read: the statements after it are read again under the new sql_mode
             * (MySQL parses a multi-statement text one statement at a time) */
            mode = session_parse_mode(s);
            const char *rest = list.stmts[i + 1]->src;
            sql_stmt_list_t again;
            reparsed = true;
            diag_init(&scratch, s->diag.max);
            if (sql_parse_mode(&s->arena, rest, (size_t)(sql + len - rest), mode, &again, &scratch) != 0) {
                session_begin_statement(s);
                diag_push_msg(&s->diag, DIAG_ERROR, scratch.error_code, scratch.error ? scratch.error->msg : "syntax error");
                diag_free(&scratch);
                sink->error(sink);
                break;
            }
            diag_free(&scratch);
            list = again;
            i = (uint32_t)-1;
        }
    }
done:
    session_set_info(s, NULL, 0);
    s->state = SESS_SLEEP;
    s->state_since_us = time_wall_us();
}

void session_clear_state(session_t *s)
{
    ulock_owner_free(s->ulock); /* user-level locks end with the connection (and COM_RESET_CONNECTION) */
    s->ulock = NULL;
    while (s->stmts) {
        sess_stmt_t *p = s->stmts;
        s->stmts = p->next;
        stmt_free(s, p);
    }
    while (s->uservars) {
        uservar_t *u = s->uservars;
        s->uservars = u->next;
        mem_free(u->name);
        mem_free(u->data);
        mem_free(u);
    }
    s->next_iso = -1; /* what was set for the next transaction, and what the tracker reported */
    s->next_access = SQL_ACCESS_NONE;
    s->begin_access = SQL_ACCESS_NONE;
    s->locked_tables = false;
    s->trk_mode = 0;
    s->trk_state[0] = 0;
    mem_free(s->trk_chars);
    s->trk_chars = NULL;
}
