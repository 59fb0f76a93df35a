/*
 * net: sockets and scheduling, nothing of MySQL.  One epoll set holds every socket; a pool of worker threads
 * waits on it and runs whatever a ready socket needs (DESIGN.md decision 1: connections are not threads).
 *
 * A connection's socket is registered EPOLLIN|EPOLLONESHOT: when it becomes readable exactly one worker gets it and
 * runs its context (ops->ready); when that returns NET_REARM the socket is armed again.  A context is thus
 * never run by two workers at once, without a per-connection lock.  A context that must wait for something
 * else (a group-commit fsync, a semi-sync ACK) returns NET_PARK and is later put back on the run queue by
 * whoever completes its wait (net_resume), so a waiting session holds no thread.
 */
#ifndef STRATA_NET_H
#define STRATA_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct net net_t;
typedef struct net_conn net_conn_t; /* net's handle for one connection's socket */

enum net_ready_result {
    NET_REARM = 0, /* done for now: wait for the socket to be readable again */
    NET_CLOSE = 1, /* close the socket and release the context (ops->closed) */
    NET_PARK = 2,  /* waiting on something else; net_resume() will run it again */
    NET_AGAIN = 3, /* more work is ready: run again (goes to the back of the queue, for fairness) */
};

typedef struct net_peer {
    bool is_unix;
    char addr[64]; /* textual IP, or "localhost" for the Unix socket */
    uint16_t port;
} net_peer_t;

typedef struct net_ops {
    /* On the worker that accepted it, for each accepted socket.  Returns the connection's context, or NULL to close it.
     * Must not block: it may send a short greeting with a non-blocking write. */
    void *(*accepted)(void *arg, net_conn_t *nc, int fd, const net_peer_t *peer);
    /* On a worker, when the socket is readable (or the context was resumed). */
    enum net_ready_result (*ready)(void *ctx);
    /* On a worker (or in net_stop): the socket is closed; free the context. */
    void (*closed)(void *ctx);
    /* About once a second, for each connection waiting for input (ARMED): true if it has been idle too long
     * (connect_timeout, wait_timeout).  net then shuts its socket down; its worker sees the end of file.
     * Called under net's lock: read only the context's own clock. */
    bool (*expired)(void *ctx, uint64_t now_us);
} net_ops_t;

typedef struct net_cfg {
    const char *bind_address; /* NULL or "" = no TCP; "*" / "0.0.0.0" / "::" = all */
    uint16_t port;
    const char *socket_path; /* NULL or "" = no Unix socket */
    int workers;             /* worker threads */
    int backlog;
} net_cfg_t;

/* Binds the listeners (errors are reported in the log and returned as -errno) and starts the threads. */
int net_start(net_t **out, const net_cfg_t *cfg, const net_ops_t *ops, void *arg);
/* Puts a parked connection back on the run queue (any thread). */
void net_resume(net_t *n, net_conn_t *nc);
/* Connections currently open. */
int net_conn_count(net_t *n);
/* Stops accepting, wakes every worker, joins the threads, and closes every remaining connection. */
void net_stop(net_t *n);
/* Workers run until net_request_stop() (async-signal-safe) or net_stop(). */
void net_request_stop(net_t *n);
bool net_stop_requested(net_t *n);

#endif
