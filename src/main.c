/*
 * stratad: options, data directory, start-up and shutdown.
 *
 * Start-up order: options -> error log -> data directory (created on first start) -> pid file -> listeners
 * -> "ready for connections".  Shutdown (SIGTERM, SIGINT, or the SHUTDOWN statement): stop accepting, close
 * connections, remove the pid file and socket, log "Shutdown complete".
 * Signals are blocked in every thread and taken synchronously by the main thread with sigwait(), so no
 * handler runs in the middle of anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/digest.h"
#include "monitor/http_site.h"
#include "monitor/qlog.h"
#include "net/net.h"
#include "proto/proto.h"
#include "proto/auth.h"
#include "proto/tls.h"
#include "binlog/binlog.h"
#include "session/exec_repl.h"
#include "session/event_sched.h"
#include "session/monitor.h"
#include "acl/acl.h"
#include "session/session.h"
#include "engine/engine.h"
#include "access/stats.h"
#include "commit/commit.h"
#include "sql/exec/exec.h"
#include "access/catalog.h"
#include "util/config.h"
#include "util/fio.h"
#include "util/util.h"

static server_t g_srv;
static engine_t *g_engine;

static const char *const cfg_groups[] = {"mysqld", "server", "stratad", "mariadb", "mariadbd", NULL};
/* strata's own files only: reading Debian's /etc/mysql/my.cnf would pick up MariaDB's datadir and socket. */
static const char *const cfg_files[] = {"/etc/strata/my.cnf", "~/.stratad.cnf", NULL};

/* The string value of a global variable, copied into buf ("" for NULL). */
static const char *gstr(sysvar_id_t id, char *buf, size_t n)
{
    if (sysvar_global_str(&g_srv.vars, id, buf, n) < 0)
        buf[0] = 0;
    return buf;
}

static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* innodb_stats_auto_recalc, read by the statistics thread before each recalculation. */
static bool stats_auto_recalc_on(void)
{
    return sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_STATS_AUTO_RECALC) != 0;
}

/* innodb_flush_method (docs/variables.md): which files are opened how.  strata's default is fsync (MariaDB's is
 * O_DIRECT): it has no read-ahead of its own yet, so a scan larger than the buffer pool leans on the kernel's. */
static void flush_method_opts(engine_opts_t *o)
{
    char m[32];
    if (sysvar_value_name(sysvar_def(SYSVAR_INNODB_FLUSH_METHOD),
                          (unsigned)sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_FLUSH_METHOD), m, sizeof m) < 0)
        m[0] = 0;
    o->data_direct = !strcmp(m, "O_DIRECT") || !strcmp(m, "O_DIRECT_NO_FSYNC");
    o->log_dsync = !strcmp(m, "O_DSYNC");
    if (!strcmp(m, "O_DIRECT_NO_FSYNC"))
        log_note("innodb_flush_method=O_DIRECT_NO_FSYNC: data files are opened with O_DIRECT and still synced at "
                 "each checkpoint (a first write into an allocated extent changes file metadata that only a sync "
                 "makes durable), as O_DIRECT");
    else if (!strcmp(m, "littlesync") || !strcmp(m, "nosync"))
        log_note("innodb_flush_method=%s: MariaDB's testing-only value; strata syncs as with fsync", m);
}

static void request_shutdown(server_t *srv)
{
    (void)srv;
    kill(getpid(), SIGTERM);
}

static int load_options(int argc, char **argv, config_t *cfg)
{
    static config_opt_t opts[SYSVAR__COUNT + 16];
    size_t n = sysvar_config_opts(opts, SYSVAR__COUNT);
    opts[n++] = (config_opt_t){"help", CONFIG_ARG_NONE, '?', "Display this help and exit", NULL, NULL};
    opts[n++] = (config_opt_t){"version", CONFIG_ARG_NONE, 'V', "Print the version and exit", NULL, NULL};
    opts[n++] = (config_opt_t){"verbose", CONFIG_ARG_NONE, 'v', "With --help, list every option", NULL, NULL};
    opts[n++] = (config_opt_t){"user", CONFIG_ARG_REQUIRED, 'u', "Run as this user (accepted; stratad does not switch users)", NULL, NULL};
    opts[n++] = (config_opt_t){"console", CONFIG_ARG_NONE, 0, "Write the error log to stderr", NULL, NULL};
    opts[n++] = (config_opt_t){"log_bin", CONFIG_ARG_OPTIONAL, 0,
                               "Enable the binary log, with an optional base name (--skip-log-bin disables it)", NULL, NULL};
    opts[n++] = (config_opt_t){"log_basename", CONFIG_ARG_REQUIRED, 0, "Base name for log files", NULL, NULL};
    int rc = config_load(cfg, argc, argv, opts, n, cfg_groups, cfg_files);
    if (rc != 0) {
        fprintf(stderr, "stratad: %s\n", cfg->errmsg);
        fprintf(stderr, "stratad: Aborting; use --help to list the options\n");
        return 1;
    }
    if (cfg->print_defaults) {
        config_print_defaults(cfg, "stratad", stdout);
        config_free(cfg);
        exit(0);
    }
    if (config_get(cfg, "version")) {
        printf("stratad  Ver %s for Linux on %s (strata, MariaDB 10.11 compatible)\n", STRATA_VERSION_STRING, STRATA_MACHINE);
        config_free(cfg);
        exit(0);
    }
    if (config_get(cfg, "help")) {
        buf_t b;
        buf_init(&b);
        printf("stratad  Ver %s for Linux on %s\nA MySQL/MariaDB-compatible database server.\n\n"
               "Usage: stratad [OPTIONS]\n\nDefault options are read from the following files in the given order:\n"
               "/etc/strata/my.cnf ~/.stratad.cnf\nThe following groups are read: mysqld server stratad mariadb mariadbd\n"
               "The following options may be given as the first argument:\n"
               "--print-defaults        Print the program argument list and exit.\n"
               "--no-defaults           Don't read default options from any option file.\n"
               "--defaults-file=#       Only read default options from the given file #.\n"
               "--defaults-extra-file=# Read this file after the global files are read.\n\n",
               STRATA_VERSION_STRING, STRATA_MACHINE);
        config_help(opts, n, &b);
        fwrite(b.data, 1, b.len, stdout);
        buf_free(&b);
        config_free(cfg);
        exit(0);
    }
    char err[512];
    if (sysvar_apply_config(&g_srv.vars, cfg, err, sizeof err) != 0) {
        fprintf(stderr, "stratad: %s\n", err);
        return 1;
    }
    return 0;
}

/* Whether an address given to bind-address is loopback only. */
static bool bind_is_loopback(const char *addr)
{
    if (!addr || !*addr)
        return true;
    char *list = mem_strdup(addr), *save = NULL;
    bool lo = true;
    for (char *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        while (*a == ' ')
            a++;
        if (strncmp(a, "127.", 4) != 0 && strcmp(a, "::1") != 0 && strcasecmp(a, "localhost") != 0)
            lo = false;
    }
    mem_free(list);
    return lo;
}

/*
 * The binary log is on unless --skip-log-bin (on by default).  --log-bin=NAME names the files
 * (NAME.000001 ...; a relative NAME is in the data directory); without a name they are strata-bin.NNNNNN.
 */
static uint64_t account_generation(void *acl) { return acl_generation(acl); }

static int open_binlog(const config_t *cfg, const char *datadir)
{
    const config_item_t *lb = config_get(cfg, "log_bin");
    if (lb && lb->negated) {
        sysvar_global_set_int(&g_srv.vars, SYSVAR_LOG_BIN, 0);
        return sql_commit_start(g_engine, sql_exec_catalog(), NULL, NULL);
    }
    char path[PATH_MAX];
    const char *name = lb && lb->value && *lb->value ? lb->value : "strata-bin";
    if (name[0] == '/')
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s", datadir, name);
    char *slash = strrchr(path, '/');
    *slash = 0;
    binlog_options_t bo;
    binlog_options_default(&bo);
    bo.dir = path;
    bo.basename = slash + 1;
    bo.server_id = (uint32_t)sysvar_global_int(&g_srv.vars, SYSVAR_SERVER_ID);
    bo.domain_id = (uint32_t)sysvar_global_int(&g_srv.vars, SYSVAR_GTID_DOMAIN_ID);
    bo.max_size = (uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_MAX_BINLOG_SIZE);
    bo.sync = (int)sysvar_global_int(&g_srv.vars, SYSVAR_SYNC_BINLOG);
    bo.expire_seconds = (uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_BINLOG_EXPIRE_LOGS_SECONDS);
    if (sysvar_global_int(&g_srv.vars, SYSVAR_STRATA_BINLOG_COMPRESS)) {
        bo.compress_after_files = (uint32_t)sysvar_global_int(&g_srv.vars, SYSVAR_STRATA_BINLOG_COMPRESS_AFTER_FILES);
        bo.compress_after_seconds = (uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_STRATA_BINLOG_COMPRESS_AFTER_SECONDS);
        bo.compress_in_background = true;
    }
    bo.server_version = STRATA_VERSION_STRING;
    char tmpdir[1024];
    int tn = sysvar_global_str(&g_srv.vars, SYSVAR_TMPDIR, tmpdir, sizeof tmpdir);
    binlog_trx_set_tmpdir(tn > 0 && (size_t)tn < sizeof tmpdir ? tmpdir : "/tmp");
    binlog_trx_set_cache((uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_BINLOG_CACHE_SIZE),
                         (uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_MAX_BINLOG_CACHE_SIZE));
    binlog_recovery_t rec;
    memset(&rec, 0, sizeof rec);
    if (binlog_open(&bo, &g_srv.binlog, &rec) != 0) {
        log_error("Aborting: the binary log in '%s' can't be opened (see above)", path);
        return -1;
    }
    if (rec.crashed)
        log_note("binlog: recovered after a crash (%u transactions in the last file, %llu bytes of incomplete tail "
                 "removed)", rec.n, (unsigned long long)rec.truncated_bytes);
    /* the engine's prepared transactions commit if the binlog has them, else roll back (commit/commit.h) */
    int rrc = sql_commit_start(g_engine, sql_exec_catalog(), g_srv.binlog, &rec);
    binlog_recovery_free(&rec);
    if (rrc != 0)
        return -1;
    char base[PATH_MAX + 16], index[PATH_MAX + 16];
    snprintf(base, sizeof base, "%s/%s", path, bo.basename);
    snprintf(index, sizeof index, "%s/%s.index", path, bo.basename);
    sysvar_global_set_int(&g_srv.vars, SYSVAR_LOG_BIN, 1);
    sysvar_global_set_str(&g_srv.vars, SYSVAR_LOG_BIN_BASENAME, base);
    sysvar_global_set_str(&g_srv.vars, SYSVAR_LOG_BIN_INDEX, index);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 1;
    tls_server_t *tls = NULL;
    net_t *net = NULL;
    auth_server_t auth_srv = {0};
    server_init(&g_srv);
    config_t cfg;
    if (load_options(argc, argv, &cfg) != 0)
        goto out;
    char datadir[PATH_MAX - 64], logerr[PATH_MAX], pidpath[PATH_MAX], sock[PATH_MAX], bind[256];
    gstr(SYSVAR_DATADIR, datadir, sizeof datadir);
    gstr(SYSVAR_LOG_ERROR, logerr, sizeof logerr);
    gstr(SYSVAR_PID_FILE, pidpath, sizeof pidpath);
    gstr(SYSVAR_SOCKET, sock, sizeof sock);
    gstr(SYSVAR_BIND_ADDRESS, bind, sizeof bind);
    int port = (int)sysvar_global_int(&g_srv.vars, SYSVAR_PORT);
    if (*logerr && !config_get(&cfg, "console") && log_open(logerr) != 0) {
        fprintf(stderr, "stratad: can't open error log %s: %s\n", logerr, strerror(errno));
        goto out;
    }
    if (mkdir(datadir, 0750) != 0 && errno != EEXIST) {
        log_error("Can't create data directory '%s': %s", datadir, strerror(errno));
        goto out;
    }
    /* @@datadir is absolute and ends with '/', as MariaDB shows it. */
    char absdir[PATH_MAX];
    if (realpath(datadir, absdir)) {
        size_t n = strlen(absdir);
        if (n + 1 < sizeof absdir && absdir[n - 1] != '/')
            absdir[n] = '/', absdir[n + 1] = 0;
        sysvar_global_set_str(&g_srv.vars, SYSVAR_DATADIR, absdir);
    }
    g_srv.datadir = mem_strdup(datadir);
    if (!*pidpath) {
        snprintf(pidpath, sizeof pidpath, "%s/stratad.pid", datadir);
        sysvar_global_set_str(&g_srv.vars, SYSVAR_PID_FILE, pidpath);
    }
    for (size_t i = 0; i < cfg.nwarnings; i++)
        log_warn("%s", cfg.warnings[i]);

    raise_fd_limit();

    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigaddset(&sigs, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    g_srv.request_shutdown = request_shutdown;
    proto_cfg_t pcfg = {
        .srv = &g_srv,
        .net_write_timeout = (int)sysvar_global_int(&g_srv.vars, SYSVAR_NET_WRITE_TIMEOUT),
    };
    char ssl_cert[PATH_MAX], ssl_key[PATH_MAX], ssl_ca[PATH_MAX];
    gstr(SYSVAR_SSL_CERT, ssl_cert, sizeof ssl_cert);
    gstr(SYSVAR_SSL_KEY, ssl_key, sizeof ssl_key);
    gstr(SYSVAR_SSL_CA, ssl_ca, sizeof ssl_ca);
    log_note("stratad (server %s) starting as process %d ...", g_srv.version, (int)getpid());
    /* innodb_force_recovery >= 1 (or innodb_read_only): the data directory is opened read-only and stays so
     * (docs/faults.md, "Forced recovery"); from here on no helper of util/fio.h changes one of its files. */
    int force = (int)sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_FORCE_RECOVERY);
    bool read_only = force > 0 || sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_READ_ONLY) != 0;
    if (force > 0)
        log_warn("!!! innodb_force_recovery is set to %d !!!  The data directory is opened read-only: tables can "
                 "be read (mariadb-dump saves what is readable), nothing is written%s", force,
                 force >= 6 ? "; the redo log is not applied" : force >= 5 ? "; incomplete transactions count as committed" : "");
    if (read_only) {
        fio_set_read_only(true);
        sysvar_global_set_int(&g_srv.vars, SYSVAR_INNODB_READ_ONLY, 1);
    }
    tls_options_t topt = {.datadir = datadir, .ssl_cert = *ssl_cert ? ssl_cert : NULL,
                          .ssl_key = *ssl_key ? ssl_key : NULL, .ssl_ca = *ssl_ca ? ssl_ca : NULL};
    if (tls_server_open(&topt, &tls) != 0)
        log_warn("TLS is unavailable (see the previous lines); connections will not be encrypted");
    pcfg.tls = tls;
    int arc = acl_open(datadir, &g_srv.acl);
    if (arc != 0) {
        log_error("Aborting: the account store in '%s' can't be used", datadir);
        if (arc == STRATA_ECORRUPT)
            log_error("The way out (docs/faults.md): restore accounts.dat from a backup, or move it away; the server "
                      "then starts with root@localhost alone (no password) and the accounts are created again");
        goto out;
    }
    if (!bind_is_loopback(bind) && !sysvar_global_int(&g_srv.vars, SYSVAR_SKIP_NETWORKING) &&
        acl_root_has_empty_password(g_srv.acl)) {
        log_error("Refusing to listen on bind-address '%s' while root has an empty password: set one with "
                  "ALTER USER root@localhost IDENTIFIED BY '...' (started on 127.0.0.1), or bind to loopback", bind);
        goto out;
    }
    /* The storage engine and the SQL catalog over it (recovery runs here). */
    engine_opts_t eopt;
    engine_opts_default(&eopt);
    eopt.datadir = datadir;
    eopt.pool_bytes = (uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_BUFFER_POOL_SIZE);
    int64_t flush = sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_FLUSH_LOG_AT_TRX_COMMIT);
    eopt.rebalance_off = !sysvar_global_int(&g_srv.vars, SYSVAR_STRATA_REBALANCE);
    eopt.flush_mode = flush == 1 || flush == 3 ? ENGINE_FLUSH_SYNC : flush == 2 ? ENGINE_FLUSH_WRITE : ENGINE_FLUSH_LAZY;
    eopt.read_only = read_only;
    flush_method_opts(&eopt);
    eopt.no_undo = force >= 5;
    eopt.no_redo = force >= 6;
    catalog_set_skip_damaged(force > 0);
    if (engine_open(&eopt, &g_engine) != 0) {
        log_error("Aborting: the storage engine could not open the data directory '%s'", datadir);
        g_engine = NULL;
        goto out;
    }
    engine_set_lock_wait_timeout(g_engine, (uint64_t)sysvar_global_int(&g_srv.vars, SYSVAR_INNODB_LOCK_WAIT_TIMEOUT) * 1000000);
    if (sql_exec_global_init(g_engine, datadir) != 0) {
        log_error("Aborting: the catalog in '%s' can't be used", datadir);
        log_error("The way out (docs/faults.md): if the line above names strata_catalog.id, write it again as the one "
                  "line 'strata-catalog 1 16' (the catalog is the first tree of every data directory strata makes); "
                  "otherwise the catalog's tree is damaged: start with innodb_force_recovery=1 (read-only: the damaged "
                  "records are skipped and named here), save what is readable with mariadb-dump, and restore it into a "
                  "new data directory (or restore the data directory from a backup)");
        goto out;
    }
    sql_commit_set_accounts(account_generation, g_srv.acl); /* recovery settles account statements' events */
    if (read_only) {
        /* No binary log (opening one writes), no settling of prepared transactions or DDL notes against it and
         * no re-apply from it: those are writes; the next normal start does them. */
        sysvar_global_set_int(&g_srv.vars, SYSVAR_LOG_BIN, 0);
        sql_commit_start(g_engine, sql_exec_catalog(), NULL, NULL);
        log_warn("read-only start: the binary log is not opened and start-up recovery against it (prepared "
                 "transactions, DDL statements, transactions to re-apply) waits for the next normal start");
    } else if (open_binlog(&cfg, datadir) != 0) {
        goto out;
    }
    /* after recovery: what recovery re-applied is not a reason to recount (read-only: statistics are not saved) */
    if (!read_only && stats_auto_start(sql_exec_catalog(), stats_auto_recalc_on) != 0)
        log_warn("innodb_stats_auto_recalc: the statistics thread did not start; statistics change only with "
                    "ANALYZE TABLE");
    auth_srv.cache = auth_cache_new();
    if (tls) {
        auth_srv.rsa_key = tls->rsa_key;
        auth_srv.rsa_public_pem = tls->rsa_public_pem;
    }
    g_srv.auth_cache = auth_srv.cache;
    pcfg.auth = &auth_srv;
    sysvar_global_set_str(&g_srv.vars, SYSVAR_HAVE_SSL, tls ? "YES" : "DISABLED");
    sysvar_global_set_str(&g_srv.vars, SYSVAR_HAVE_OPENSSL, tls ? "YES" : "DISABLED");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = (int)sysvar_global_int(&g_srv.vars, SYSVAR_STRATA_WORKER_THREADS);
    net_cfg_t ncfg = {
        .bind_address = sysvar_global_int(&g_srv.vars, SYSVAR_SKIP_NETWORKING) ? NULL : bind,
        .port = (uint16_t)port,
        .socket_path = sock,
        .workers = workers > 0 ? workers : (int)MAX(8, ncpu * 4),
    };
    if (session_qlog_check_output(sysvar_global_int(&g_srv.vars, SYSVAR_LOG_OUTPUT)) != 0) {
        log_error("Aborting: log_output=TABLE is not supported (strata has no mysql.general_log / slow_log tables); "
                  "use FILE");
        goto out;
    }
    session_qlog_configure(&g_srv); /* a log that cannot be opened is turned off and reported */
    session_digest_init(&g_srv);
    g_srv.qlog_ready = true;
    /* after recovery, before the listeners: a client's first CHANGE MASTER / SHOW SLAVE STATUS finds the
     * replica there (it answered 1201 when it came between the two); the SQL thread applies through the same
     * tables clients use */
    if (session_replica_open(&g_srv, read_only || sysvar_global_int(&g_srv.vars, SYSVAR_SKIP_SLAVE_START) != 0) != 0) {
        log_error("Aborting: the replica configuration cannot be read");
        goto out;
    }
    if (net_start(&net, &ncfg, &proto_net_ops, &pcfg) != 0) {
        log_error("Aborting");
        goto out;
    }
    pcfg.net = net;
    server_apply_semisync(&g_srv);
    if (admit_start(&g_srv) != 0) {
        log_error("Aborting: cannot start the transaction admission thread");
        goto out;
    }
    /* event_scheduler=ON: events run from now on (not on a read-only data directory: a run writes its record) */
    if (!read_only && event_sched_init(&g_srv) != 0) {
        log_error("Aborting: cannot start the event scheduler");
        goto out;
    }
    if (!read_only && session_monitor_start(&g_srv) != 0) { /* after the catalog, binlog and replica it reads */
        log_error("Aborting: cannot start the monitor's history sampler");
        goto out;
    }
    /* the dashboard and /metrics, on their own threads, once everything they read exists */
    monitor_http_cfg_t mcfg = {.srv = &g_srv, .engine = g_engine, .history_read = session_monitor_read,
                               .cert_path = tls ? tls->cert_path : NULL, .key_path = tls ? tls->key_path : NULL};
    if (monitor_http_start(&mcfg) != 0) {
        log_error("Aborting: the monitoring HTTP server (monitor_http_port) cannot start");
        goto out;
    }
    FILE *pf = fopen(pidpath, "w");
    if (pf) {
        fprintf(pf, "%d\n", (int)getpid());
        fclose(pf);
    } else {
        log_warn("Can't create pid file '%s': %s", pidpath, strerror(errno));
    }
    log_note("stratad: ready for connections.");
    log_note("Version: '%s'  socket: '%s'  port: %d  strata", g_srv.version, sock, port);

    for (;;) {
        int sig = 0;
        if (sigwait(&sigs, &sig) != 0)
            continue;
        if (sig == SIGHUP) {
            session_qlog_flush(&g_srv, true, true); /* as FLUSH LOGS does for the query logs */
            continue;
        }
        log_note("stratad (initiated by: signal %d): Normal shutdown", sig);
        atomic_store(&g_srv.shutdown_requested, true); /* binlog dumps end their streams now */
        break;
    }
    monitor_http_stop(); /* no request reads the sessions or the engine past here */
    session_monitor_stop(); /* its pass ends before the tables it writes go */
    session_replica_close(&g_srv); /* the SQL thread finishes the transaction it applies */
    event_sched_shutdown_begin();
    server_kill_all(&g_srv);
    event_sched_shutdown(); /* the events running end at their next check */
    admit_stop(); /* parked waiters are admitted and see the kill */
    net_stop(net);
    net = NULL;
    unlink(pidpath);
    log_note("stratad: Shutdown complete");
    rc = 0;
out:
    monitor_http_stop();
    event_sched_shutdown();
    session_monitor_stop();
    session_replica_close(&g_srv);
    if (net)
        net_stop(net);
    /* after the connections: their transactions are rolled back by then */
    sql_commit_stop();
    sql_exec_global_shutdown();
    if (g_engine)
        engine_close(g_engine);
    if (tls)
        tls_server_close(tls);
    if (g_srv.acl)
        acl_close(g_srv.acl);
    if (g_srv.binlog)
        binlog_close(g_srv.binlog);
    if (auth_srv.cache)
        auth_cache_free(auth_srv.cache);
    qlog_close_all();
    digest_shutdown();
    server_free(&g_srv);
    config_free(&cfg);
    log_close();
    return rc;
}
