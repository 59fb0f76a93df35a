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

#include "net/net.h"
#include "proto/proto.h"
#include "proto/tls.h"
#include "session/session.h"
#include "util/util.h"

#define STRATA_VERSION "0.1.0"
#define DEFAULT_DATADIR "/var/lib/strata"
#define DEFAULT_SOCKET "/tmp/strata.sock"

typedef struct options {
    char *datadir;
    char *bind_address;
    char *socket;
    char *log_error;
    char *pid_file;
    int port;
    int max_connections;
    size_t max_allowed_packet;
    int workers;
} options_t;

static server_t g_srv;

static void usage(void)
{
    printf("stratad Ver %s (MariaDB 10.11 compatible) for Linux\n"
           "Usage: stratad [OPTIONS]\n\n"
           "  --datadir=DIR            data directory (default %s)\n"
           "  --port=N, -P N           TCP port (default 3306)\n"
           "  --bind-address=ADDR     address to listen on (default 127.0.0.1)\n"
           "  --socket=PATH            Unix socket (default %s)\n"
           "  --log-error=FILE         error log (default stderr)\n"
           "  --pid-file=FILE          pid file (default DATADIR/stratad.pid)\n"
           "  --max-connections=N      (default 151)\n"
           "  --max-allowed-packet=N   (default 16M)\n"
           "  --help, --version\n",
           STRATA_VERSION, DEFAULT_DATADIR, DEFAULT_SOCKET);
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'k': case 'K': v <<= 10; break;
    case 'm': case 'M': v <<= 20; break;
    case 'g': case 'G': v <<= 30; break;
    default: break;
    }
    return (size_t)v;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    enum { O_DATADIR = 1000, O_BIND, O_SOCKET, O_LOGERR, O_PID, O_MAXCONN, O_MAXPKT, O_WORKERS };
    static const struct option longopts[] = {
        {"datadir", required_argument, 0, O_DATADIR},
        {"port", required_argument, 0, 'P'},
        {"bind-address", required_argument, 0, O_BIND},
        {"socket", required_argument, 0, O_SOCKET},
        {"log-error", required_argument, 0, O_LOGERR},
        {"pid-file", required_argument, 0, O_PID},
        {"max-connections", required_argument, 0, O_MAXCONN},
        {"max_connections", required_argument, 0, O_MAXCONN},
        {"max-allowed-packet", required_argument, 0, O_MAXPKT},
        {"max_allowed_packet", required_argument, 0, O_MAXPKT},
        {"strata-workers", required_argument, 0, O_WORKERS},
        {"help", no_argument, 0, '?'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "P:V?", longopts, NULL)) != -1) {
        switch (ch) {
        case O_DATADIR: o->datadir = optarg; break;
        case 'P': o->port = atoi(optarg); break;
        case O_BIND: o->bind_address = optarg; break;
        case O_SOCKET: o->socket = optarg; break;
        case O_LOGERR: o->log_error = optarg; break;
        case O_PID: o->pid_file = optarg; break;
        case O_MAXCONN: o->max_connections = atoi(optarg); break;
        case O_MAXPKT: o->max_allowed_packet = parse_size(optarg); break;
        case O_WORKERS: o->workers = atoi(optarg); break;
        case 'V': printf("stratad  Ver %s (10.11.6-MariaDB-strata-%s) for Linux on x86_64\n", STRATA_VERSION, STRATA_VERSION); exit(0);
        case '?': usage(); exit(optopt ? 1 : 0);
        default: usage(); return -1;
        }
    }
    return 0;
}

static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void request_shutdown(server_t *srv)
{
    (void)srv;
    kill(getpid(), SIGTERM);
}

int main(int argc, char **argv)
{
    options_t o = {
        .datadir = DEFAULT_DATADIR,
        .bind_address = "127.0.0.1",
        .socket = DEFAULT_SOCKET,
        .port = 3306,
        .max_connections = 151,
        .max_allowed_packet = 16u << 20,
    };
    if (parse_options(argc, argv, &o) != 0)
        return 1;
    if (o.log_error && log_open(o.log_error) != 0) {
        fprintf(stderr, "stratad: can't open error log %s: %s\n", o.log_error, strerror(errno));
        return 1;
    }
    if (mkdir(o.datadir, 0750) != 0 && errno != EEXIST) {
        log_error("Can't create data directory '%s': %s", o.datadir, strerror(errno));
        return 1;
    }
    char pidpath[PATH_MAX];
    if (o.pid_file)
        snprintf(pidpath, sizeof pidpath, "%s", o.pid_file);
    else
        snprintf(pidpath, sizeof pidpath, "%s/stratad.pid", o.datadir);
    raise_fd_limit();

    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigaddset(&sigs, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    server_init(&g_srv, o.datadir);
    g_srv.request_shutdown = request_shutdown;
    proto_cfg_t pcfg = {
        .srv = &g_srv,
        .max_allowed_packet = o.max_allowed_packet,
        .max_connections = o.max_connections,
        .net_write_timeout = 60,
    };
    tls_options_t topt = {.datadir = o.datadir};
    tls_server_t *tls = NULL;
    if (tls_server_open(&topt, &tls) != 0)
        log_warn("TLS is unavailable (see the previous lines); connections will not be encrypted");
    pcfg.tls = tls;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    net_cfg_t ncfg = {
        .bind_address = o.bind_address,
        .port = (uint16_t)o.port,
        .socket_path = o.socket,
        .workers = o.workers > 0 ? o.workers : (int)MAX(8, ncpu * 4),
    };
    log_note("stratad (server %s) starting as process %d ...", g_srv.version, (int)getpid());
    net_t *net = NULL;
    if (net_start(&net, &ncfg, &proto_net_ops, &pcfg) != 0) {
        log_error("Aborting");
        return 1;
    }
    FILE *pf = fopen(pidpath, "w");
    if (pf) {
        fprintf(pf, "%d\n", (int)getpid());
        fclose(pf);
    } else {
        log_warn("Can't create pid file '%s': %s", pidpath, strerror(errno));
    }
    log_note("stratad: ready for connections.");
    log_note("Version: '%s'  socket: '%s'  port: %d  strata %s", g_srv.version, o.socket ? o.socket : "", o.port,
             STRATA_VERSION);

    for (;;) {
        int sig = 0;
        if (sigwait(&sigs, &sig) != 0)
            continue;
        if (sig == SIGHUP)
            continue; /* FLUSH-like reopen of logs, later */
        log_note("stratad (initiated by: signal %d): Normal shutdown", sig);
        break;
    }
    net_stop(net);
    if (tls)
        tls_server_close(tls);
    unlink(pidpath);
    log_note("stratad: Shutdown complete");
    server_free(&g_srv);
    log_close();
    return 0;
}
