/*
 * The epoll loop, the listeners and the worker pool (see net.h for the scheduling rule).
 *
 * Threads:  N workers, each waiting in epoll_wait on the one shared set and running what it gets (accepts on a
 *           listener, a ready connection, or queued work announced on the wake eventfd).
 * Lock order: net.lock only; ops callbacks are called without it.
 * Connection handle states:
 *     ARMED --readable--> QUEUED --worker pops--> RUNNING --REARM--> ARMED
 *                                                   |--AGAIN--> QUEUED
 *                                                   |--PARK---> PARKED --net_resume--> QUEUED
 *                                                   '--CLOSE--> (freed)
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "net/net.h"
#include "util/blocking.h"
#include "util/util.h"

enum net_conn_state { NC_ARMED, NC_QUEUED, NC_RUNNING, NC_PARKED };

struct net_conn {
    int fd;
    enum net_conn_state state;
    bool resume_pending; /* net_resume() came while the context was still running */
    void *ctx;
    net_conn_t *next_q;             /* run queue link */
    net_conn_t *prev_all, *next_all; /* all-connections list */
};

#define NET_MAX_LISTENERS 4

struct net {
    net_cfg_t cfg;
    net_ops_t ops;
    void *arg;
    int epfd;
    int wakefd;
    int lfd[NET_MAX_LISTENERS];
    bool lunix[NET_MAX_LISTENERS];
    int nl;
    char *socket_path;
    int nbase;                /* configured workers: the pool never runs fewer */
    int nmax;                 /* ceiling, blocked ones included */
    _Atomic int nthreads;     /* worker threads alive */
    _Atomic int nblocked;     /* of them, waiting for another session (blocking_begin) */
    pthread_cond_t exit_cv;   /* net_stop waits on it for nthreads to reach 0 */
    pthread_mutex_t lock;
    net_conn_t *q_head, *q_tail;
    net_conn_t *all;
    int nconns;
    atomic_bool stop;
    _Atomic uint64_t last_scan_us;
};

static void net_enqueue_locked(net_t *n, net_conn_t *nc)
{
    nc->state = NC_QUEUED;
    nc->next_q = NULL;
    if (n->q_tail)
        n->q_tail->next_q = nc;
    else
        n->q_head = nc;
    n->q_tail = nc;
    uint64_t one = 1;
    ssize_t r = write(n->wakefd, &one, sizeof one); /* one waiter wakes, never a broadcast */
    (void)r;
}

static void net_close_conn(net_t *n, net_conn_t *nc)
{
    epoll_ctl(n->epfd, EPOLL_CTL_DEL, nc->fd, NULL);
    close(nc->fd);
    pthread_mutex_lock(&n->lock);
    if (nc->prev_all)
        nc->prev_all->next_all = nc->next_all;
    else
        n->all = nc->next_all;
    if (nc->next_all)
        nc->next_all->prev_all = nc->prev_all;
    n->nconns--;
    pthread_mutex_unlock(&n->lock);
    n->ops.closed(nc->ctx);
    mem_free(nc);
}

static void net_arm(net_t *n, net_conn_t *nc)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.ptr = nc};
    pthread_mutex_lock(&n->lock);
    nc->state = NC_ARMED;
    pthread_mutex_unlock(&n->lock);
    if (epoll_ctl(n->epfd, EPOLL_CTL_MOD, nc->fd, &ev) != 0)
        log_warn("epoll_ctl(MOD) failed: %s", strerror(errno));
}

static void net_accept_all(net_t *n, int lfd, bool is_unix);

/* Runs one connection's turn and files it according to the answer. */
static void net_run(net_t *n, net_conn_t *nc)
{
    switch (n->ops.ready(nc->ctx)) {
    case NET_REARM:
        net_arm(n, nc);
        break;
    case NET_CLOSE:
        net_close_conn(n, nc);
        break;
    case NET_PARK:
        pthread_mutex_lock(&n->lock);
        if (nc->resume_pending) { /* its waker was faster than its parking */
            nc->resume_pending = false;
            net_enqueue_locked(n, nc);
        } else {
            nc->state = NC_PARKED;
        }
        pthread_mutex_unlock(&n->lock);
        break;
    case NET_AGAIN:
        pthread_mutex_lock(&n->lock);
        net_enqueue_locked(n, nc);
        pthread_mutex_unlock(&n->lock);
        break;
    }
}

static void *net_worker_main(void *p);

/* Starts one more (detached) worker; the caller has counted it in nthreads. */
static void net_spawn_worker(net_t *n)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    if (pthread_create(&t, &attr, net_worker_main, n) != 0) {
        atomic_fetch_sub(&n->nthreads, 1);
        log_warn("could not start a worker thread");
    }
    pthread_attr_destroy(&attr);
}

/*
 * The oversubscription rule (MariaDB's thread pool has the same): when a worker is about to wait for another
 * session and fewer than nbase workers would remain runnable, one more worker starts.  Extra workers retire
 * after a second with nothing to do.  So a crowd waiting on row locks never starves the holder's COMMIT.
 */
static void net_blocking_begin(void *arg)
{
    net_t *n = arg;
    int blocked = atomic_fetch_add(&n->nblocked, 1) + 1;
    int threads = atomic_load(&n->nthreads);
    while (threads - blocked < n->nbase && threads < n->nmax && !atomic_load(&n->stop)) {
        if (atomic_compare_exchange_weak(&n->nthreads, &threads, threads + 1)) {
            net_spawn_worker(n);
            break;
        }
    }
}

static void net_blocking_end(void *arg)
{
    net_t *n = arg;
    atomic_fetch_sub(&n->nblocked, 1);
}

/* An idle extra worker leaves if the pool has more runnable workers than it needs.  True: this thread exits. */
static bool net_worker_retire(net_t *n)
{
    int threads = atomic_load(&n->nthreads);
    while (threads - atomic_load(&n->nblocked) > n->nbase) {
        if (atomic_compare_exchange_weak(&n->nthreads, &threads, threads - 1))
            return true;
    }
    return false;
}

/* About once a second one worker walks the connections waiting for input and shuts down the ones the
 * protocol says have idled too long.  O(connections) per second, from whichever worker gets there first. */
static void net_scan_idle(net_t *n)
{
    uint64_t now = time_mono_us(), last = atomic_load(&n->last_scan_us);
    if (now - last < 1000000 || !n->ops.expired ||
        !atomic_compare_exchange_strong(&n->last_scan_us, &last, now))
        return;
    pthread_mutex_lock(&n->lock);
    for (net_conn_t *nc = n->all; nc; nc = nc->next_all)
        if (nc->state == NC_ARMED && n->ops.expired(nc->ctx, now))
            shutdown(nc->fd, SHUT_RDWR);
    pthread_mutex_unlock(&n->lock);
}

/*
 * Every worker waits in epoll_wait on the shared set and runs what it gets itself: no hand-off between a loop
 * thread and a worker, so a command costs one wake-up, as with a thread per connection, while an idle
 * connection still holds no thread.  The kernel wakes one waiter per event; one-shot arming makes each
 * readiness go to exactly one worker.  Work queued by net_resume() or NET_AGAIN is taken before waiting.
 */
static bool net_worker_loop(net_t *n);

static void *net_worker_main(void *p)
{
    net_t *n = p;
    bool retired = net_worker_loop(n);
    pthread_mutex_lock(&n->lock);
    if (!retired)
        atomic_fetch_sub(&n->nthreads, 1);
    pthread_cond_broadcast(&n->exit_cv); /* net_stop waits for the last one */
    pthread_mutex_unlock(&n->lock);
    return NULL;
}

/* Returns true when the worker retired (already uncounted from nthreads), false on stop. */
static bool net_worker_loop(net_t *n)
{
    while (!atomic_load(&n->stop)) {
        net_scan_idle(n);
        net_conn_t *nc = NULL;
        pthread_mutex_lock(&n->lock);
        if (n->q_head) {
            nc = n->q_head;
            n->q_head = nc->next_q;
            if (!n->q_head)
                n->q_tail = NULL;
            nc->state = NC_RUNNING;
        }
        pthread_mutex_unlock(&n->lock);
        if (!nc) {
            struct epoll_event ev;
            int k = epoll_wait(n->epfd, &ev, 1, 1000);
            if (k == 0 && net_worker_retire(n))
                return true;
            if (k <= 0)
                continue;
            uintptr_t tag = (uintptr_t)ev.data.ptr;
            if (tag < NET_MAX_LISTENERS) {
                net_accept_all(n, n->lfd[tag], n->lunix[tag]);
                struct epoll_event lev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = ev.data.ptr};
                epoll_ctl(n->epfd, EPOLL_CTL_MOD, n->lfd[tag], &lev);
                continue;
            }
            if (tag == NET_MAX_LISTENERS) {
                /* Queued work (or a stop).  On stop the counter is left set, so every worker wakes and exits. */
                if (!atomic_load(&n->stop)) {
                    uint64_t v;
                    ssize_t r = read(n->wakefd, &v, sizeof v);
                    (void)r;
                }
                continue;
            }
            nc = ev.data.ptr;
            pthread_mutex_lock(&n->lock);
            bool mine = nc->state == NC_ARMED;
            if (mine)
                nc->state = NC_RUNNING;
            pthread_mutex_unlock(&n->lock);
            if (!mine)
                continue;
        }
        net_run(n, nc);
    }
    return false;
}

void net_resume(net_t *n, net_conn_t *nc)
{
    pthread_mutex_lock(&n->lock);
    if (nc->state == NC_PARKED)
        net_enqueue_locked(n, nc);
    else if (nc->state == NC_RUNNING)
        nc->resume_pending = true; /* its worker enqueues it when it returns NET_PARK */
    pthread_mutex_unlock(&n->lock);
}

int net_conn_count(net_t *n)
{
    pthread_mutex_lock(&n->lock);
    int c = n->nconns;
    pthread_mutex_unlock(&n->lock);
    return c;
}

static void net_accept_all(net_t *n, int lfd, bool is_unix)
{
    static uint64_t last_emfile_log;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EMFILE || errno == ENFILE) {
                uint64_t now = time_mono_us();
                if (now - last_emfile_log > 10000000) {
                    log_warn("accept: %s (raise open_files_limit / ulimit -n)", strerror(errno));
                    last_emfile_log = now;
                }
            }
            return;
        }
        net_peer_t peer = {.is_unix = is_unix};
        if (is_unix) {
            snprintf(peer.addr, sizeof peer.addr, "localhost");
        } else {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (ss.ss_family == AF_INET) {
                struct sockaddr_in *a = (struct sockaddr_in *)&ss;
                inet_ntop(AF_INET, &a->sin_addr, peer.addr, sizeof peer.addr);
                peer.port = ntohs(a->sin_port);
            } else if (ss.ss_family == AF_INET6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
                inet_ntop(AF_INET6, &a->sin6_addr, peer.addr, sizeof peer.addr);
                if (strncmp(peer.addr, "::ffff:", 7) == 0)
                    memmove(peer.addr, peer.addr + 7, strlen(peer.addr + 7) + 1);
                peer.port = ntohs(a->sin6_port);
            }
        }
        net_conn_t *nc = mem_calloc(1, sizeof *nc);
        nc->fd = fd;
        nc->state = NC_RUNNING; /* not armed until accepted() returns */
        pthread_mutex_lock(&n->lock);
        nc->next_all = n->all;
        if (n->all)
            n->all->prev_all = nc;
        n->all = nc;
        n->nconns++;
        pthread_mutex_unlock(&n->lock);
        nc->ctx = n->ops.accepted(n->arg, nc, fd, &peer);
        if (!nc->ctx) {
            pthread_mutex_lock(&n->lock);
            if (nc->prev_all)
                nc->prev_all->next_all = nc->next_all;
            else
                n->all = nc->next_all;
            if (nc->next_all)
                nc->next_all->prev_all = nc->prev_all;
            n->nconns--;
            pthread_mutex_unlock(&n->lock);
            close(fd);
            mem_free(nc);
            continue;
        }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.ptr = nc};
        nc->state = NC_ARMED;
        if (epoll_ctl(n->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            log_warn("epoll_ctl(ADD) failed: %s", strerror(errno));
            net_close_conn(n, nc);
        }
    }
}

static int net_listen_tcp(net_t *n, const char *addr, uint16_t port, int backlog)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char portstr[8];
    snprintf(portstr, sizeof portstr, "%u", port);
    const char *host = addr;
    if (!strcmp(addr, "*") || !strcmp(addr, "::"))
        host = NULL, hints.ai_family = AF_INET6;
    else if (!strcmp(addr, "0.0.0.0"))
        host = NULL, hints.ai_family = AF_INET;
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0) {
        log_error("Can't resolve bind-address '%s': %s", addr, gai_strerror(rc));
        return -EINVAL;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = -errno;
        goto fail;
    }
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (res->ai_family == AF_INET6 && !host)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
        rc = -errno;
        log_error("Can't start server: Bind on TCP/IP port %u: %s", port, strerror(errno));
        log_error("Do you already have another server running on port: %u ?", port);
        close(fd);
        goto fail;
    }
    n->lunix[n->nl] = false;
    n->lfd[n->nl++] = fd;
    rc = 0;
fail:
    freeaddrinfo(res);
    return rc;
}

static int net_listen_unix(net_t *n, const char *path, int backlog)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        log_error("socket path too long: %s", path);
        return -ENAMETOOLONG;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    /* A socket file left by a crashed server is removed; one a live server answers on is not. */
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
        close(probe);
        close(fd);
        log_error("Another process is using socket %s", path);
        return -EADDRINUSE;
    }
    if (probe >= 0)
        close(probe);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, backlog) != 0) {
        int e = errno;
        log_error("Can't start server: Bind on unix socket %s: %s", path, strerror(e));
        close(fd);
        return -e;
    }
    chmod(path, 0777);
    n->lunix[n->nl] = true;
    n->lfd[n->nl++] = fd;
    n->socket_path = mem_strdup(path);
    return 0;
}

int net_start(net_t **out, const net_cfg_t *cfg, const net_ops_t *ops, void *arg)
{
    net_t *n = mem_calloc(1, sizeof *n);
    int rc = 0;
    n->cfg = *cfg;
    n->ops = *ops;
    n->arg = arg;
    n->epfd = epoll_create1(EPOLL_CLOEXEC);
    n->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&n->lock, NULL);
    int backlog = cfg->backlog > 0 ? cfg->backlog : 4096;
    if (cfg->bind_address && *cfg->bind_address && cfg->port) {
        /* A comma-separated list, as MariaDB 10.11 accepts. */
        char *list = mem_strdup(cfg->bind_address), *save = NULL;
        for (char *a = strtok_r(list, ",", &save); a && rc == 0; a = strtok_r(NULL, ",", &save)) {
            while (*a == ' ')
                a++;
            if (n->nl >= NET_MAX_LISTENERS - 1)
                break;
            rc = net_listen_tcp(n, a, cfg->port, backlog);
        }
        mem_free(list);
        if (rc)
            goto fail;
    }
    if (cfg->socket_path && *cfg->socket_path && (rc = net_listen_unix(n, cfg->socket_path, backlog)) != 0)
        goto fail;
    for (int i = 0; i < n->nl; i++) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = (void *)(uintptr_t)i};
        epoll_ctl(n->epfd, EPOLL_CTL_ADD, n->lfd[i], &ev);
    }
    struct epoll_event wev = {.events = EPOLLIN, .data.ptr = (void *)(uintptr_t)NET_MAX_LISTENERS};
    epoll_ctl(n->epfd, EPOLL_CTL_ADD, n->wakefd, &wev);
    n->nbase = cfg->workers > 0 ? cfg->workers : 8;
    n->nmax = n->nbase + 4096;
    pthread_cond_init(&n->exit_cv, NULL);
    blocking_set_hooks(net_blocking_begin, net_blocking_end, n);
    for (int i = 0; i < n->nbase; i++) {
        atomic_fetch_add(&n->nthreads, 1);
        net_spawn_worker(n);
    }
    *out = n;
    return 0;
fail:
    for (int i = 0; i < n->nl; i++)
        close(n->lfd[i]);
    close(n->epfd);
    close(n->wakefd);
    mem_free(n->socket_path);
    mem_free(n);
    return rc;
}

void net_request_stop(net_t *n)
{
    atomic_store(&n->stop, true);
    uint64_t one = 1;
    ssize_t r = write(n->wakefd, &one, sizeof one); /* async-signal-safe */
    (void)r;
}

bool net_stop_requested(net_t *n) { return atomic_load(&n->stop); }

void net_stop(net_t *n)
{
    net_request_stop(n);
    blocking_set_hooks(NULL, NULL, NULL);
    pthread_mutex_lock(&n->lock);
    while (atomic_load(&n->nthreads) > 0)
        pthread_cond_wait(&n->exit_cv, &n->lock);
    pthread_mutex_unlock(&n->lock);
    for (int i = 0; i < n->nl; i++)
        close(n->lfd[i]);
    if (n->socket_path)
        unlink(n->socket_path);
    while (n->all)
        net_close_conn(n, n->all);
    close(n->epfd);
    close(n->wakefd);
    mem_free(n->socket_path);
    pthread_cond_destroy(&n->exit_cv);
    pthread_mutex_destroy(&n->lock);
    mem_free(n);
}
