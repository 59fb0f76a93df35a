/*
 * System variables (@@autocommit, @@sql_mode, max_connections, ...): their table, the global store and the
 * per-session values.  sysvar.def is the one source of truth (names, types, scope, limits, defaults, --help text);
 * everything here is generated from it.
 *
 * Two kinds of object:
 *   sysvar_store_t    the GLOBAL values, one per server, shared by every worker thread;
 *   sysvar_session_t  the SESSION values of one connection, copied from the store at connect and owned by the
 *                     thread that runs that session's statement (no lock).
 * Lookups by name (sysvar_find) are a binary search over the alphabetically sorted table, case-insensitive.
 *
 * Thread safety of the store (read per statement by many threads, written rarely):
 *   - numeric values (BOOL, INT, UINT, DOUBLE, ENUM, SET, FLAGSET) live in _Atomic int64_t cells: readers do a
 *     relaxed atomic load, no lock;
 *   - string values are immutable, reference-counted objects; the pointer is swapped under store->lock and a
 *     reader takes a reference under the same lock (a few instructions), so it never sees a freed string;
 *   - writers (SET GLOBAL, start-up options, sysvar_global_set_*) serialise on store->lock; the change hook runs
 *     after the lock is released.
 * Session values are plain cells: only the thread running the session touches them.  Sessions share the
 * global's string objects (one reference each), so connecting allocates nothing per string variable.
 *
 * Errors are MySQL's, pushed into the caller's diag_t (see sysvar_set_*): 1193, 1228, 1229, 1231, 1232, 1238,
 * 1621, 1115, 1273, 1298, 1286, 1649, and warning 1292 when an integer is clamped to its range or block size.
 */
#ifndef STRATA_SESSION_SYSVAR_H
#define STRATA_SESSION_SYSVAR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/config.h"
#include "util/diag.h"
#include "util/util.h"

/* The version strings: MariaDB compatibility level first, then strata (DESIGN.md decision 9). */
#define STRATA_VERSION_NUMBER "10.11.6"
#define STRATA_VERSION_STRING STRATA_VERSION_NUMBER "-MariaDB-strata-0.1.0"
#if defined(__x86_64__)
#define STRATA_MACHINE "x86_64"
#elif defined(__aarch64__)
#define STRATA_MACHINE "aarch64"
#else
#define STRATA_MACHINE "unknown"
#endif

typedef enum sysvar_id {
#define SYSVAR(id, name, type, scope, flags, min, max, block, dflt, values, desc) SYSVAR_##id,
#define SYSVAR_ALIAS(id, name, target) SYSVAR_##id,
#include "session/sysvar.def"
#undef SYSVAR
#undef SYSVAR_ALIAS
    SYSVAR__COUNT
} sysvar_id_t;

/* Slots of the per-session value array: one per SESSION or BOTH variable (aliases share their target's). */
#define SV_SLOT_G(id)
#define SV_SLOT_S(id) SYSVAR_SLOT_##id,
#define SV_SLOT_B(id) SYSVAR_SLOT_##id,
enum sysvar_slot {
#define SYSVAR(id, name, type, scope, flags, min, max, block, dflt, values, desc) SV_SLOT_##scope(id)
#define SYSVAR_ALIAS(id, name, target)
#include "session/sysvar.def"
#undef SYSVAR
#undef SYSVAR_ALIAS
    SYSVAR__NSLOTS
};

typedef enum sysvar_type {
    SV_T_BOOL, SV_T_UINT, SV_T_INT, SV_T_DOUBLE, SV_T_STR, SV_T_ENUM, SV_T_SET, SV_T_FLAGSET,
    SV_T_CHARSET, SV_T_COLLATION, SV_T_TIMEZONE, SV_T_LOCALE, SV_T_ENGINE
} sysvar_type_t;

typedef enum sysvar_scope_kind { SV_SCOPE_GLOBAL = 1, SV_SCOPE_SESSION_ONLY = 2, SV_SCOPE_BOTH = 3 } sysvar_scope_kind_t;

enum {
    SV_RO = 1 << 0,
    SV_SESS_RO = 1 << 1,
    SV_NOOPT = 1 << 2,
    SV_COMPUTED = 1 << 3,
    SV_NULLABLE = 1 << 4,
};

typedef struct sysvar_def {
    const char *name;
    sysvar_id_t id;
    sysvar_id_t target;         /* == id unless an alias */
    sysvar_type_t type;
    sysvar_scope_kind_t scope;
    uint32_t flags;
    int64_t min;
    uint64_t max;
    uint64_t block;
    const char *dflt;           /* default as option text */
    const char *values;         /* ENUM/SET/FLAGSET names, comma separated; NULL otherwise */
    const char *desc;           /* one line, for --help */
    int slot;                   /* index into sysvar_session_t.cell, -1 for GLOBAL-only */
} sysvar_def_t;

/* Which value a statement names: SET x / @@x (NONE), SET SESSION x / @@session.x / @@local.x, SET GLOBAL x /
 * @@global.x, and STARTUP for options from the command line and config files (read-only variables may be set,
 * numbers may carry K/M/G suffixes, values are applied to the global). */
typedef enum sysvar_scope { SYSVAR_NONE = 0, SYSVAR_SESSION, SYSVAR_GLOBAL, SYSVAR_STARTUP } sysvar_scope_t;

/* A typed value, as SELECT @@x returns it: BOOL as INT 0/1, UINT as UINT, ENUM/SET/strings as STR. */
typedef enum sysvar_vkind { SYSVAR_V_NULL, SYSVAR_V_INT, SYSVAR_V_UINT, SYSVAR_V_DOUBLE, SYSVAR_V_STR } sysvar_vkind_t;
typedef struct sysvar_value {
    sysvar_vkind_t kind;
    int64_t i;
    uint64_t u;
    double d;
    const char *s; /* NUL-terminated, in the arena passed to sysvar_get */
    size_t len;
} sysvar_value_t;

/* An immutable reference-counted string value (internal representation, shared between store and sessions). */
typedef struct sysvar_str sysvar_str_t;

/* One value cell.  Numeric kinds in .i (DOUBLE as its bit pattern in .i; use sysvar_*_double), strings in .s. */
typedef union sysvar_cell {
    int64_t i;
    sysvar_str_t *s;
} sysvar_cell_t;

typedef struct sysvar_store sysvar_store_t;
typedef struct sysvar_session sysvar_session_t;

/* Called after a GLOBAL value changed (SET GLOBAL, DEFAULT, start-up option), outside the store lock. */
typedef void (*sysvar_hook_fn)(void *arg, const sysvar_def_t *def);
/* Computes an SV_COMPUTED variable (warning_count, gtid_binlog_pos, ...) for a read; sess may be NULL for a
 * GLOBAL read.  Fill *out (strings in arena a) and return true, or return false to use the stored value. */
typedef bool (*sysvar_compute_fn)(void *arg, const sysvar_def_t *def, const sysvar_session_t *sess, arena_t *a,
                                  sysvar_value_t *out);

/* Called before a SET stores a value that passed the type checks (not for DEFAULT or internal updates): the
 * owner may refuse it by pushing an error into d and returning its -code.  Global sets call it with the store
 * lock held, so it must not call back into the store. */
typedef int (*sysvar_check_fn)(void *arg, const sysvar_def_t *def, sysvar_scope_t scope, sysvar_session_t *sess,
                               const sysvar_value_t *newval, diag_t *d);

struct sysvar_store {
    pthread_mutex_t lock;          /* writers, and readers taking a string reference */
    _Atomic int64_t num[SYSVAR__COUNT];
    sysvar_str_t *str[SYSVAR__COUNT];
    sysvar_hook_fn hook;
    void *hook_arg;
    sysvar_compute_fn compute;
    void *compute_arg;
    sysvar_check_fn check;
    void *check_arg;
    /* where each global value came from (information_schema.SYSTEM_VARIABLES.GLOBAL_VALUE_ORIGIN), under lock */
    uint8_t origin[SYSVAR__COUNT];
    uint8_t startup_origin; /* what a SYSVAR_STARTUP set records (sysvar_apply_config: the option's source) */
};

/* GLOBAL_VALUE_ORIGIN's words: COMPILE-TIME, COMMAND-LINE, CONFIG, SQL, AUTO (set by the server at start-up). */
enum { SV_ORIGIN_COMPILE, SV_ORIGIN_COMMAND_LINE, SV_ORIGIN_CONFIG, SV_ORIGIN_SQL, SV_ORIGIN_AUTO };
const char *sysvar_origin(sysvar_store_t *st, const sysvar_def_t *def);

struct sysvar_session {
    sysvar_store_t *store;
    void *owner;                   /* the session, for the compute callback */
    sysvar_cell_t cell[SYSVAR__NSLOTS];
};

/* ---- the table ---- */
extern const sysvar_def_t sysvar_defs[SYSVAR__COUNT];
static inline const sysvar_def_t *sysvar_def(sysvar_id_t id) { return &sysvar_defs[id]; }
/* The row that holds the rules and storage: itself, or an alias's target.  Alias rows (transaction_isolation,
 * identity, storage_engine, transaction_read_only) carry only name, id and target: read type, scope, flags and
 * limits through sysvar_real(def). */
static inline const sysvar_def_t *sysvar_real(const sysvar_def_t *def) { return &sysvar_defs[def->target]; }
/* Case-insensitive lookup by name ('-' is accepted for '_'), NULL if unknown.  Binary search. */
const sysvar_def_t *sysvar_find(const char *name);
const sysvar_def_t *sysvar_findn(const char *name, size_t len);

/* ---- store ---- */
/* Initialises every global to its default (plus start-up computed ones: hostname, thread_pool_size = CPUs,
 * system_time_zone).  Returns 0. */
int sysvar_store_init(sysvar_store_t *st);
void sysvar_store_destroy(sysvar_store_t *st);
void sysvar_store_set_hook(sysvar_store_t *st, sysvar_hook_fn fn, void *arg);
void sysvar_store_set_compute(sysvar_store_t *st, sysvar_compute_fn fn, void *arg);
void sysvar_store_set_check(sysvar_store_t *st, sysvar_check_fn fn, void *arg);

/* ---- session ---- */
/* Copies every SESSION/BOTH variable's global value (at connect, and for COM_RESET_CONNECTION / CHANGE_USER). */
void sysvar_session_init(sysvar_session_t *ss, sysvar_store_t *st, void *owner);
void sysvar_session_reset(sysvar_session_t *ss);
void sysvar_session_destroy(sysvar_session_t *ss);

/* ---- reading ---- */
/* The value as SELECT @@[scope.]name returns it.  Errors: 1238 "Variable 'x' is a SESSION variable" for
 * @@global of a session-only one, "... is a GLOBAL variable" for @@session of a global-only one.
 * ss may be NULL only for SYSVAR_GLOBAL reads. */
int sysvar_get(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
               arena_t *a, sysvar_value_t *out, diag_t *d);
/* The value as SHOW VARIABLES prints it (ON/OFF, numbers, doubles with 6 decimals, enum names, set lists, ''
 * for NULL), appended to out (not NUL-terminated).  scope SYSVAR_GLOBAL prints the global value; SESSION (or
 * NONE) prints the session value and the global one for global-only variables, as SHOW SESSION VARIABLES does. */
int sysvar_get_text(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                    buf_t *out);

/* Fast typed reads for the server's own use (no checks, no computing): the session's value, or the global's. */
int64_t sysvar_session_int(const sysvar_session_t *ss, sysvar_id_t id);  /* BOOL/INT/UINT/ENUM/SET bits */
double sysvar_session_double(const sysvar_session_t *ss, sysvar_id_t id);
const char *sysvar_session_str(const sysvar_session_t *ss, sysvar_id_t id); /* valid while the session keeps it */
int64_t sysvar_global_int(sysvar_store_t *st, sysvar_id_t id);
double sysvar_global_double(sysvar_store_t *st, sysvar_id_t id);
/* Copies the global string into buf (size n, NUL-terminated, truncated); returns its full length, -1 for NULL. */
int sysvar_global_str(sysvar_store_t *st, sysvar_id_t id, char *buf, size_t n);

/* ---- writing, with MySQL's checks ----
 * ss is required for SYSVAR_NONE / SYSVAR_SESSION (it may be NULL for GLOBAL and STARTUP).
 * text == NULL means SQL NULL.  sysvar_set_int's is_unsigned says how to print and range-check v.
 * Returns 0 (possibly with warnings pushed) or -ER_x after pushing the error. */
int sysvar_set_text(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                    const char *text, diag_t *d);
int sysvar_set_int(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                   int64_t v, bool is_unsigned, diag_t *d);
int sysvar_set_double(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                      double v, diag_t *d);
/* SET x = DEFAULT: the session value takes the global one, the global takes the compiled default. */
int sysvar_set_default(sysvar_store_t *st, sysvar_session_t *ss, const sysvar_def_t *def, sysvar_scope_t scope,
                       diag_t *d);
/* SET NAMES cs [COLLATE coll]: character_set_client/_connection/_results = cs, collation_connection = coll or
 * cs's default.  cs NULL is SET NAMES DEFAULT (the global character_set_server).  Errors 1115, 1273, 1253.
 * Also what the handshake's collation byte maps to: sysvar_collation_by_id(id) then set_names(charset, name). */
int sysvar_set_names(sysvar_store_t *st, sysvar_session_t *ss, const char *cs, const char *coll, diag_t *d);
/* SET CHARACTER SET cs: client and results = cs, connection = character_set_database (and its collation). */
int sysvar_set_character_set(sysvar_store_t *st, sysvar_session_t *ss, const char *cs, diag_t *d);
/* By name: 1193 "Unknown system variable" if not found, then sysvar_set_text. */
int sysvar_set_by_name(sysvar_store_t *st, sysvar_session_t *ss, const char *name, sysvar_scope_t scope,
                       const char *text, diag_t *d);

/* Internal updates by the server itself, bypassing read-only and scope checks (last_insert_id after an INSERT,
 * in_transaction, have_ssl once TLS is set up, log_bin at start-up, ...).  Values are not range-checked. */
void sysvar_session_set_int(sysvar_session_t *ss, sysvar_id_t id, int64_t v);
void sysvar_global_set_int(sysvar_store_t *st, sysvar_id_t id, int64_t v);
void sysvar_global_set_str(sysvar_store_t *st, sysvar_id_t id, const char *s);

/* ---- SHOW VARIABLES ---- */
/* Calls fn for every variable whose name matches the LIKE pattern (NULL = all), in alphabetical order, with its
 * text as sysvar_get_text gives it.  SHOW GLOBAL VARIABLES lists global and both-scope variables; SHOW
 * [SESSION] VARIABLES lists all.  Stops and returns fn's value if it is non-zero. */
typedef int (*sysvar_show_fn)(void *arg, const sysvar_def_t *def, const char *value, size_t len);
int sysvar_show(sysvar_store_t *st, sysvar_session_t *ss, sysvar_scope_t scope, const char *like,
                sysvar_show_fn fn, void *arg);

/* ---- names of values ---- */
/* Copies the name of ENUM index / SET bit / FLAGSET flag i of def into buf; returns its length, -1 if none. */
int sysvar_value_name(const sysvar_def_t *def, unsigned i, char *buf, size_t bufsize);
unsigned sysvar_value_count(const sysvar_def_t *def);

/* ---- character sets and collations known to the server (a small table until a charset module exists) ---- */
typedef struct sysvar_collation {
    const char *name;
    const char *charset;
    uint16_t id;
    bool is_default; /* the charset's default collation */
} sysvar_collation_t;
/* "utf8" means utf8mb3 (MariaDB 10.11 with old_mode UTF8_IS_UTF8MB3). */
const sysvar_collation_t *sysvar_charset_find(const char *charset); /* its default collation */
const sysvar_collation_t *sysvar_collation_find(const char *name);
const sysvar_collation_t *sysvar_collation_by_id(unsigned id);

/* ---- options ---- */
/* Fills out[0..cap) with one config_opt_t per variable that is also a start-up option (not SV_NOOPT, not
 * session-only); opt->user is the sysvar_def_t.  Returns the number written (SYSVAR__COUNT is always enough).
 * main.c adds its own options (--help, --version, --user, --log-bin[=name], ...) and calls config_load, then
 * applies each item with sysvar_set_text(st, NULL, item->opt->user, SYSVAR_STARTUP, item->value, d). */
size_t sysvar_config_opts(config_opt_t *out, size_t cap);
/* Applies every item of a loaded config whose option is a variable (opt->user points into sysvar_defs; the
 * caller's own options are skipped), in order, with SYSVAR_STARTUP.  Clamping warnings are logged with their
 * source ("option 'max_connections' (/etc/strata/my.cnf:3): Truncated incorrect ..."); the first error stops
 * and is written to err ("option 'port' (command line): Incorrect argument type to variable 'port'").
 * --skip-x of a non-boolean variable restores its default; a bare optional one (--log-error) is left to the
 * caller (config_get).  Returns 0 or -1. */
int sysvar_apply_config(sysvar_store_t *st, const config_t *cfg, char *err, size_t errlen);

/* MySQL LIKE, case-insensitive (ASCII): % any run, _ one character, \ escapes the next.  */
bool sysvar_like(const char *pattern, const char *text);

#endif
