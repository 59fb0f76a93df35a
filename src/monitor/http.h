/*
 * The monitoring HTTP server: a thin layer over libmicrohttpd (Debian's libmicrohttpd-dev), which owns the
 * sockets, the HTTP parsing, TLS (through GnuTLS) and its own threads.  Nothing here runs on the SQL workers and
 * nothing here knows what a session or a variable is: the owner passes two callbacks, one that decides whether an
 * HTTP basic-auth login may in, and one that answers an authenticated GET.
 *
 * Request life: libmicrohttpd calls the access handler on one of its pool threads ->
 *   method not GET/HEAD  -> 405
 *   no or bad credentials (ops.auth != 0) -> 401 with WWW-Authenticate: Basic realm="..."
 *   else ops.handle fills an http_reply_t (status, content type, body) that is queued as one response.
 * Every response is built in memory and copied once into libmicrohttpd's buffer; no handler blocks on a client.
 */
#ifndef STRATA_MONITOR_HTTP_H
#define STRATA_MONITOR_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct http_server http_server_t;

typedef struct http_request {
    const char *path;      /* URL path, without the query string */
    const char *user;      /* the authenticated user name */
    void *conn;            /* libmicrohttpd's connection, for http_request_arg */
} http_request_t;

/* A query-string argument of the request (?window=3600), NULL when absent. */
const char *http_request_arg(const http_request_t *r, const char *name);

typedef struct http_reply {
    int status;               /* 200 unless the handler says otherwise */
    const char *content_type; /* static string */
    buf_t body;
} http_reply_t;

typedef struct http_ops {
    /* 0 lets the login in; anything else answers 401.  client_ip is the peer's address as text; tls says whether
     * the connection is encrypted. */
    int (*auth)(void *arg, const char *user, const char *password, const char *client_ip, bool tls);
    void (*handle)(void *arg, const http_request_t *req, http_reply_t *rep);
    void *arg;
} http_ops_t;

typedef struct http_options {
    const char *address;   /* IPv4 or IPv6 literal to bind */
    uint16_t port;
    const char *cert_pem;  /* with key_pem: serve HTTPS (PEM text, not file names) */
    const char *key_pem;
    unsigned threads;      /* libmicrohttpd's thread pool */
    const char *realm;     /* basic-auth realm */
} http_options_t;

/* Binds and starts the threads.  0, or a negative STRATA_E* after logging why. */
int http_start(const http_options_t *o, const http_ops_t *ops, http_server_t **out);
void http_stop(http_server_t *s);

#endif
