/*
 * The monitoring HTTP server over libmicrohttpd (see http.h for the request life).
 *
 * libmicrohttpd runs its own polling thread pool (MHD_USE_INTERNAL_POLLING_THREAD with a pool of `threads`),
 * parses HTTP and, with a certificate, speaks TLS itself.  This file only checks the method and the basic-auth
 * credentials and turns the owner's http_reply_t into a response.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "monitor/http.h"
#include "util/util.h"

struct http_server {
    struct MHD_Daemon *d;
    http_ops_t ops;
    char *realm;
    bool tls;
};

const char *http_request_arg(const http_request_t *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result http_send(struct MHD_Connection *c, unsigned status, const char *type, const void *p,
                                 size_t n, const char *realm)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)p, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    /* Pages and figures are live: a browser must not show a stale copy. */
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result rc = realm ? MHD_queue_basic_auth_fail_response(c, realm, r) : MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static void http_peer_text(struct MHD_Connection *c, char *out, size_t n)
{
    snprintf(out, n, "%s", "");
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)n);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out, (socklen_t)n);
}

static enum MHD_Result http_access(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                   const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    http_server_t *s = cls;
    (void)version, (void)upload;
    if (!*con_cls) { /* first call: headers only; answer on the second, once any body has been read */
        *con_cls = s;
        return MHD_YES;
    }
    if (*upload_size) { /* a body to a monitoring endpoint is ignored */
        *upload_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        static const char msg[] = "method not allowed\n";
        return http_send(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", msg, sizeof msg - 1, NULL);
    }
    char *password = NULL;
    char *user = MHD_basic_auth_get_username_password(c, &password);
    char ip[64];
    http_peer_text(c, ip, sizeof ip);
    bool ok = user && s->ops.auth(s->ops.arg, user, password ? password : "", ip, s->tls) == 0;
    if (password) {
        memset(password, 0, strlen(password));
        MHD_free(password);
    }
    if (!ok) {
        if (user)
            MHD_free(user);
        static const char msg[] = "login required: a strata account with the PROCESS or SUPER privilege\n";
        return http_send(c, MHD_HTTP_UNAUTHORIZED, "text/plain; charset=utf-8", msg, sizeof msg - 1, s->realm);
    }
    http_request_t req = {.path = url, .user = user, .conn = c};
    http_reply_t rep = {.status = MHD_HTTP_OK, .content_type = "text/plain; charset=utf-8"};
    buf_init(&rep.body);
    s->ops.handle(s->ops.arg, &req, &rep);
    MHD_free(user);
    enum MHD_Result rc = http_send(c, (unsigned)rep.status, rep.content_type, rep.body.data, rep.body.len, NULL);
    buf_free(&rep.body);
    return rc;
}

/* libmicrohttpd's own complaints (bind failures, TLS errors) go to the error log. */
static void http_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = 0;
    log_warn("monitor http: %s", msg);
}

int http_start(const http_options_t *o, const http_ops_t *ops, http_server_t **out)
{
    *out = NULL;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    /* epoll, not select(): with thousands of SQL connections open, an HTTP socket's descriptor is above
     * FD_SETSIZE, which select() cannot watch */
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, o->address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(o->port);
    } else if (inet_pton(AF_INET6, o->address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(o->port);
        flags |= MHD_USE_IPv6;
    } else {
        log_error("monitor_http_address '%s' is not an IPv4 or IPv6 address", o->address);
        return STRATA_EIO;
    }
    bool tls = o->cert_pem && o->key_pem;
    if (tls) {
        if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
            log_error("monitor_http_tls=ON, but this libmicrohttpd was built without TLS");
            return STRATA_EIO;
        }
        flags |= MHD_USE_TLS;
    }
    http_server_t *s = mem_calloc(1, sizeof *s);
    s->ops = *ops;
    s->realm = mem_strdup(o->realm);
    s->tls = tls;
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_SOCK_ADDR, 0, &ss},
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)(o->threads ? o->threads : 2), NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, 30, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, 256, NULL},
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)o->cert_pem},
        {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)o->key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    s->d = MHD_start_daemon(flags, o->port, NULL, NULL, http_access, s, MHD_OPTION_EXTERNAL_LOGGER, http_log,
                            NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (!s->d) {
        log_error("monitor http: cannot listen on %s port %u (see above)", o->address, (unsigned)o->port);
        mem_free(s->realm);
        mem_free(s);
        return STRATA_EIO;
    }
    *out = s;
    return 0;
}

void http_stop(http_server_t *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    mem_free(s->realm);
    mem_free(s);
}
