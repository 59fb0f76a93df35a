/*
 * One MySQL connection: reading and writing its socket, the handshake and the command loop.
 *
 * Reads are non-blocking: a worker reads what the socket has, runs every whole command in it, and returns
 * NET_REARM when the socket is drained, so an idle connection holds no thread.  Writes go out when a command's
 * answer is complete (or every 64 KiB of a large result); if the socket buffer is full the worker waits for it
 * (poll, net_write_timeout).
 *
 * HandshakeV10 (server -> client, sequence 0):
 *   u8 10 | version NUL | u32 connection id | scramble[0..8] | u8 0 | u16 caps low | u8 charset |
 *   u16 status | u16 caps high | u8 21 (scramble length + 1) | 10 reserved bytes | scramble[8..20] NUL |
 *   auth plugin name NUL
 * HandshakeResponse41 (client -> server):
 *   u32 caps | u32 max packet | u8 charset | 23 filler | user NUL | auth response (lenenc, or u8 length, or
 *   NUL-terminated) | [db NUL] | [plugin NUL] | [lenenc attrs length, attrs] | [u8 zstd level]
 * SSLRequest: the first 32 bytes of HandshakeResponse41 with CLIENT_SSL; TLS starts right after it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/proto_int.h"
#include "acl/acl.h"
#include "acl/priv.h"

/* Largest packet accepted before authentication (a handshake response with connection attributes). */
#define CONN_PREAUTH_MAX_PACKET (64u * 1024)

#define SERVER_CAPS                                                                                          \
    (CLIENT_FOUND_ROWS | CLIENT_LONG_FLAG | CLIENT_CONNECT_WITH_DB | CLIENT_NO_SCHEMA | \
     CLIENT_LOCAL_FILES | \
     CLIENT_ODBC | CLIENT_IGNORE_SPACE | CLIENT_PROTOCOL_41 | CLIENT_INTERACTIVE | CLIENT_IGNORE_SIGPIPE |   \
     CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION | CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS |       \
     CLIENT_PS_MULTI_RESULTS | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS |                                   \
     CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS | CLIENT_SESSION_TRACK |     \
     CLIENT_DEPRECATE_EOF | CLIENT_COMPRESS | CLIENT_ZSTD_COMPRESSION_ALGORITHM)

const char *proto_command_name(int cmd)
{
    switch (cmd) {
#define COM(name, code) \
    case code:          \
        return #name;
#include "proto/commands.def"
#undef COM
    default:
        return "COM_UNKNOWN";
    }
}

/* The host cache (max_connect_errors) leaves out the Unix socket and loopback addresses, as MySQL does. */
static bool conn_host_cached(const conn_t *c)
{
    return !c->peer.is_unix && strncmp(c->peer.addr, "127.", 4) != 0 && strcmp(c->peer.addr, "::1") != 0;
}

/* ---- socket I/O ---- */

static int conn_write_all(conn_t *c, const uint8_t *p, size_t n)
{
    int timeout_ms = (c->cfg->net_write_timeout > 0 ? c->cfg->net_write_timeout : 60) * 1000;
    while (n > 0 && c->tls) {
        ssize_t w = tls_write(c->tls, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            status_add(&c->sess->stat, STATUS_BYTES_SENT, (uint64_t)w);
            continue;
        }
        if (w != TLS_WANT_WRITE && w != TLS_WANT_READ)
            return -1;
        struct pollfd pfd = {.fd = c->fd, .events = w == TLS_WANT_WRITE ? POLLOUT : POLLIN};
        if (poll(&pfd, 1, timeout_ms) <= 0)
            return -1;
    }
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            status_add(&c->sess->stat, STATUS_BYTES_SENT, (uint64_t)w);
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
            int r = poll(&pfd, 1, timeout_ms);
            if (r <= 0)
                return -1;
            continue;
        }
        return -1;
    }
    return 0;
}

int conn_flush(conn_t *c)
{
    if (!c->obuf.len)
        return 0;
    int rc;
    if (c->compressed) {
        buf_reset(&c->zbuf);
        pcomp_wrap(&c->pc, c->obuf.data, c->obuf.len, &c->cseq, &c->zbuf);
        rc = conn_write_all(c, c->zbuf.data, c->zbuf.len);
        buf_reset(&c->zbuf);
    } else {
        rc = conn_write_all(c, c->obuf.data, c->obuf.len);
    }
    buf_reset(&c->obuf);
    if (rc)
        c->phase = PH_CLOSING;
    return rc;
}

/* Reads what the socket has into rbuf.  >0 bytes read, 0 would block, -1 closed or failed. */
int conn_read_some(conn_t *c)
{
    buf_reserve(&c->rbuf, 16384);
    if (c->tls) {
        ssize_t r = tls_read(c->tls, c->rbuf.data + c->rbuf.len, c->rbuf.cap - c->rbuf.len);
        if (r > 0) {
            c->rbuf.len += (size_t)r;
            status_add(&c->sess->stat, STATUS_BYTES_RECEIVED, (uint64_t)r);
            return (int)r;
        }
        if (r == TLS_WANT_READ)
            return 0;
        if (r == TLS_WANT_WRITE) {
            struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
            return poll(&pfd, 1, 1000) > 0 ? conn_read_some(c) : -1;
        }
        return -1;
    }
    for (;;) {
        ssize_t r = recv(c->fd, c->rbuf.data + c->rbuf.len, c->rbuf.cap - c->rbuf.len, 0);
        if (r > 0) {
            c->rbuf.len += (size_t)r;
            status_add(&c->sess->stat, STATUS_BYTES_RECEIVED, (uint64_t)r);
            return (int)r;
        }
        if (r == 0)
            return -1;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -1;
    }
}

/* Moves one whole compressed frame from rbuf into ibuf.  STRATA_EAGAIN when rbuf has no whole frame. */
int conn_unwrap_frame(conn_t *c)
{
    if (c->rbuf.len < PCOMP_HEADER_SIZE)
        return STRATA_EAGAIN;
    size_t flen = PCOMP_HEADER_SIZE + (c->rbuf.data[0] | (size_t)c->rbuf.data[1] << 8 | (size_t)c->rbuf.data[2] << 16);
    if (c->rbuf.len < flen)
        return STRATA_EAGAIN;
    if (c->ibuf.len == 0 && c->phase == PH_COMMAND && !c->infile_active)
        c->cseq = 0;
    size_t consumed = 0;
    int rc = pcomp_unwrap(&c->pc, c->rbuf.data, flen, &consumed, &c->cseq, &c->ibuf);
    buf_consume(&c->rbuf, consumed);
    return rc;
}

/* ---- authentication ---- */

/* Sends what the plugin exchange asked for, or finishes the login.  0 to go on, -1 to close. */
static int conn_auth_step(conn_t *c, enum auth_action act, buf_t *out)
{
    session_t *s = c->sess;
    if (act == AUTH_SEND_MORE || act == AUTH_NEED_SWITCH) {
        conn_pk_begin(c);
        buf_append(&c->obuf, out->data, out->len);
        conn_pk_end(c);
        c->phase = PH_AUTH;
        return 0;
    }
    acl_account_t acc;
    /* The password was checked against the account as found when the exchange began; the account must still
     * exist now (not dropped or renamed meanwhile), since its options below (REQUIRE SSL, ACCOUNT LOCK,
     * MAX_USER_CONNECTIONS) and its grants are read from it.  Gone: the same 1045 as a wrong password. */
    if (act != AUTH_OK || acl_get(c->srv->acl, s->priv_user, s->priv_host, &acc) != 0) {
        log_warn("Access denied for user '%s'@'%s' (using password: %s)", s->user, s->host,
                 auth_session_used_password(c->auth));
        session_qlog_connect(s, NULL, NULL, true, auth_session_used_password(c->auth));
        status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
        status_inc(&s->stat, STATUS_ACCESS_DENIED_ERRORS);
        conn_send_err_code(c, ER_ACCESS_DENIED_ERROR, s->user, s->host, auth_session_used_password(c->auth));
        return -1;
    }
    if (out->len) { /* caching_sha2's fast_auth_success goes before the OK */
        conn_pk_begin(c);
        buf_append(&c->obuf, out->data, out->len);
        conn_pk_end(c);
    }
    mem_free(c->auth);
    c->auth = NULL;
    /* REQUIRE SSL before ACCOUNT LOCK: MariaDB answers 1045 for a locked REQUIRE SSL account without TLS. */
    if ((acc.flags & ACL_FLAG_REQUIRE_SSL) && !c->tls) {
        status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
        conn_send_err_code(c, ER_ACCESS_DENIED_ERROR, s->user, s->host, "YES");
        return -1;
    }
    if (acc.flags & ACL_FLAG_LOCKED) {
        status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
        conn_send_err_code(c, ER_ACCOUNT_HAS_BEEN_LOCKED);
        return -1;
    }
    if (c->acct) { /* COM_CHANGE_USER: the old account's connection ends */
        acl_connection_leave(c->srv->acl, c->acct);
        mem_free(c->acct);
        c->acct = NULL;
    }
    uint32_t limit = 0;
    uint32_t global = (uint32_t)sysvar_global_int(&c->srv->vars, SYSVAR_MAX_USER_CONNECTIONS);
    if (acl_connection_enter(c->srv->acl, &acc, global, &limit) != 0) {
        status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
        if (acc.max_user_connections)
            conn_send_err_code(c, ER_USER_LIMIT_REACHED, s->user, "max_user_connections", (long)limit);
        else
            conn_send_err_code(c, ER_TOO_MANY_USER_CONNECTIONS, s->user);
        return -1;
    }
    c->acct = mem_alloc(sizeof acc);
    memcpy(c->acct, &acc, sizeof acc);
    priv_session_login(s, acc.default_role); /* privileges of the new account */
    int max_conn = (int)sysvar_global_int(&c->srv->vars, SYSVAR_MAX_CONNECTIONS);
    if (!c->change_user && max_conn > 0 && !priv_has_global(s, PRIV_SUPER | PRIV_CONNECTION_ADMIN) &&
        c->srv->nsessions >= max_conn) {
        status_global_inc(&c->srv->status, STATUS_CONNECTION_ERRORS_MAX_CONNECTIONS);
        conn_send_err_code(c, ER_CON_COUNT_ERROR);
        return -1;
    }
    c->handshake_done = true;
    c->phase = PH_COMMAND;
    if (conn_host_cached(c))
        server_host_ok(c->srv, c->peer.addr);
    if (c->login_db) {
        int r = session_set_db(s, c->login_db, strlen(c->login_db));
        mem_free(c->login_db);
        c->login_db = NULL;
        if (r) {
            const diag_cond_t *e = s->diag.error;
            conn_send_err(c, e->code, e->sqlstate, e->msg);
            return -1;
        }
    }
    conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL);
    const char *via = c->tls ? "SSL/TLS" : c->peer.is_unix ? "Socket" : "TCP/IP";
    if (c->change_user) {
        c->change_user = false;
        char line[1400];
        int n = snprintf(line, sizeof line, "%s@%s on %s using %s", s->user, s->host, s->db ? s->db : "", via);
        session_qlog_general(s, "Change user", line, n < 0 ? 0 : MIN((size_t)n, sizeof line - 1));
        return 0;
    }
    session_qlog_connect(s, s->db, via, false, NULL);
    if (c->comp_algo != PCOMP_NONE) {
        /* The login OK goes out plain; everything after it is compressed. */
        if (conn_flush(c) != 0)
            return -1;
        pcomp_init(&c->pc, c->comp_algo, c->comp_level);
        pcomp_set_max_slice(&c->pc, c->max_packet + 4);
        c->compressed = true;
        s->compressed = true;
    }
    /* Interactive clients get interactive_timeout as their wait_timeout, as in MySQL. */
    if (c->caps & CLIENT_INTERACTIVE)
        sysvar_session_set_int(&s->vars, SYSVAR_WAIT_TIMEOUT, sysvar_session_int(&s->vars, SYSVAR_INTERACTIVE_TIMEOUT));
    c->idle_limit_us = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_WAIT_TIMEOUT) * 1000000u;
    session_register(s);
    s->state = SESS_SLEEP;
    return 0;
}

/* Finds the account and starts its plugin's exchange with the client's first response. */
static int conn_auth_begin(conn_t *c, const char *user, size_t ulen, const char *client_plugin, const uint8_t *resp,
                           size_t rlen, const char *db, size_t dblen)
{
    session_t *s = c->sess;
    snprintf(s->user, sizeof s->user, "%.*s", (int)ulen, user);
    bool is_local = c->peer.is_unix || !strcmp(c->peer.addr, "127.0.0.1") || !strcmp(c->peer.addr, "::1");
    /* Loopback resolves to 'localhost', as MariaDB's name resolution gives it. */
    snprintf(s->host, sizeof s->host, "%s", is_local ? "localhost" : c->peer.addr);
    acl_account_t acc;
    bool found = acl_find_for_login(c->srv->acl, s->user, is_local ? "localhost" : NULL,
                                    c->peer.is_unix ? NULL : c->peer.addr, is_local, &acc) == 0;
    char key[512] = "";
    if (found) {
        snprintf(s->priv_user, sizeof s->priv_user, "%s", acc.user);
        snprintf(s->priv_host, sizeof s->priv_host, "%s", acc.host);
        acl_account_key(acc.user, acc.host, key, sizeof key);
    }
    mem_free(c->login_db);
    c->login_db = db && dblen ? mem_strndup(db, dblen) : NULL;
    if (!c->auth)
        c->auth = mem_alloc(sizeof *c->auth);
    auth_session_init(c->auth, c->cfg->auth, c->scramble, found ? password_plugin_name(acc.plugin) : NULL,
                      found ? acc.auth : "", key, c->tls != NULL || c->peer.is_unix);
    buf_t out;
    buf_init(&out);
    enum auth_action act = auth_session_start(c->auth, client_plugin, resp, rlen, &out);
    int rc = conn_auth_step(c, act, &out);
    buf_free(&out);
    return rc;
}

static int conn_auth_continue(conn_t *c)
{
    buf_t out;
    buf_init(&out);
    enum auth_action act = auth_session_continue(c->auth, c->pkt.data, c->pkt.len, &out);
    int rc = conn_auth_step(c, act, &out);
    buf_free(&out);
    return rc;
}

/* COM_CHANGE_USER: user NUL | auth (u8 length + bytes) | db NUL | u16 charset | plugin NUL | [attrs] */
static int conn_change_user(conn_t *c, const uint8_t *arg, size_t alen)
{
    hs_response_t r;
    if (proto_change_user_parse(arg, alen, c->caps, &r) != 0) {
        session_begin_statement(c->sess);
        diag_error(&c->sess->diag, ER_MALFORMED_PACKET);
        c->sink.error(&c->sink);
        return 0;
    }
    session_t *s = c->sess;
    status_inc(&s->stat, STATUS_COM_ADMIN_COMMANDS);
    session_reset(s);
    mem_free(s->db);
    s->db = NULL;
    c->change_user = true;
    session_set_client_collation(s, r.collation);
    return conn_auth_begin(c, r.user, r.user_len, r.plugin, r.auth, r.auth_len, r.db, r.db_len);
}

/* ---- handshake ---- */

static void conn_send_greeting(conn_t *c)
{
    buf_t *b = &c->obuf;
    uint32_t caps = SERVER_CAPS | (c->cfg->tls ? CLIENT_SSL : 0);
    c->seq = 0;
    conn_pk_begin(c);
    buf_put_u8(b, 10);
    buf_append_str(b, "5.5.5-"); /* as MariaDB does, so old replicas and clients parse the version */
    buf_append(b, c->srv->version, strlen(c->srv->version) + 1);
    buf_put_u32(b, c->id);
    buf_append(b, c->scramble, 8);
    buf_put_u8(b, 0);
    buf_put_u16(b, (uint16_t)caps);
    buf_put_u8(b, CHARSET_UTF8MB4_GENERAL_CI);
    buf_put_u16(b, SERVER_STATUS_AUTOCOMMIT);
    buf_put_u16(b, (uint16_t)(caps >> 16));
    buf_put_u8(b, 21);
    /* 6 reserved bytes, then MariaDB's extended capabilities (CLIENT_MYSQL is clear, as a MariaDB server's) */
    for (int i = 0; i < 6; i++)
        buf_put_u8(b, 0);
    buf_put_u32(b, MARIADB_CLIENT_EXTENDED_METADATA);
    buf_append(b, c->scramble + 8, 12);
    buf_put_u8(b, 0);
    buf_append(b, "mysql_native_password", sizeof "mysql_native_password");
    conn_pk_end(c);
}

static void conn_log_bad_handshake(conn_t *c, const char *why)
{
    if (conn_host_cached(c))
        server_host_error(c->srv, c->peer.addr);
    status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
    log_warn("Aborted connection %u to db: 'unconnected' user: 'unauthenticated' host: '%s' (%s)", c->id,
             c->peer.addr, why);
}

static int conn_handshake_response(conn_t *c)
{
    hs_response_t r;
    int rc = proto_handshake_parse(c->pkt.data, c->pkt.len, c->tls != NULL, &r);
    if (rc) {
        conn_send_err_code(c, -rc);
        conn_log_bad_handshake(c, rc == -ER_NOT_SUPPORTED_AUTH_MODE ? "client does not speak protocol 4.1" : "Bad handshake");
        return -1;
    }
    if (r.ssl_request) {
        /* SSLRequest: TLS starts now; the full response follows over it. */
        if (!c->cfg->tls) {
            conn_send_err_code(c, ER_HANDSHAKE_ERROR);
            conn_log_bad_handshake(c, "SSLRequest without TLS configured");
            return -1;
        }
        c->tls = tls_conn_new(c->cfg->tls->ctx, c->fd, c->rbuf.data, c->rbuf.len);
        buf_reset(&c->rbuf);
        c->sess->tls = true;
        c->phase = PH_TLS_ACCEPT;
        status_global_inc(&c->srv->status, STATUS_SSL_ACCEPTS);
        return 0;
    }
    if (!c->tls && !c->peer.is_unix && sysvar_global_int(&c->srv->vars, SYSVAR_REQUIRE_SECURE_TRANSPORT)) {
        conn_send_err_code(c, ER_SECURE_TRANSPORT_REQUIRED);
        conn_log_bad_handshake(c, "insecure transport refused");
        return -1;
    }
    c->ext_metadata = (r.mariadb_caps & MARIADB_CLIENT_EXTENDED_METADATA) != 0;
    c->caps = r.caps & (SERVER_CAPS | CLIENT_SSL | CLIENT_COMPRESS | CLIENT_ZSTD_COMPRESSION_ALGORITHM);
    /* Compression: zlib wins when both are offered, as in MySQL; zstd carries its level last. */
    if (r.caps & CLIENT_COMPRESS) {
        c->comp_algo = PCOMP_ZLIB;
    } else if (r.caps & CLIENT_ZSTD_COMPRESSION_ALGORITHM) {
        c->comp_algo = PCOMP_ZSTD;
        c->comp_level = r.zstd_level;
    }
    c->sess->multi_statements = (r.caps & CLIENT_MULTI_STATEMENTS) != 0;
    c->sess->multi_results = (r.caps & (CLIENT_MULTI_RESULTS | CLIENT_MULTI_STATEMENTS)) != 0;
    session_set_client_collation(c->sess, r.collation);
    return conn_auth_begin(c, r.user, r.user_len, r.plugin, r.auth, r.auth_len, r.db, r.db_len);
}

/* ---- commands ---- */

static int conn_command(conn_t *c)
{
    session_t *s = c->sess;
    if (c->pkt.len == 0) { /* an empty command packet is an unknown command, as in MySQL */
        conn_send_err_code(c, ER_UNKNOWN_COM_ERROR);
        return 0;
    }
    uint8_t cmd = c->pkt.data[0];
    const char *arg = (const char *)c->pkt.data + 1;
    size_t alen = c->pkt.len - 1;
    status_global_add(&c->srv->status, STATUS_THREADS_RUNNING, 1);
    int rc = 0;
    switch (cmd) {
    case COM_QUIT:
        session_qlog_general(s, "Quit", "", 0);
        rc = -1;
        break;
    case COM_PING:
        status_inc(&s->stat, STATUS_COM_ADMIN_COMMANDS);
        conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL);
        break;
    case COM_QUERY:
        session_query(s, arg, alen, &c->sink);
        break;
    case COM_INIT_DB:
        session_qlog_general(s, "Init DB", arg, alen);
        session_init_db(s, arg, alen, &c->sink);
        break;
    case COM_STATISTICS:
        session_statistics(s, &c->sink);
        break;
    case COM_PROCESS_KILL: {
        pcur_t cur;
        pcur_init(&cur, (const uint8_t *)arg, alen);
        uint32_t id = pcur_get_u32(&cur);
        if (cur.err) {
            rc = -1;
            break;
        }
        session_kill(s, id, false, &c->sink);
        break;
    }
    case COM_SET_OPTION: {
        pcur_t cur;
        pcur_init(&cur, (const uint8_t *)arg, alen);
        uint16_t opt = pcur_get_u16(&cur);
        if (cur.err || opt > 1) {
            conn_send_err_code(c, ER_UNKNOWN_COM_ERROR);
            break;
        }
        s->multi_statements = opt == 0;
        if (s->multi_statements)
            c->caps |= CLIENT_MULTI_STATEMENTS;
        else
            c->caps &= ~CLIENT_MULTI_STATEMENTS;
        conn_send_eof(c, session_status_flags(s), 0);
        break;
    }
    case COM_CHANGE_USER:
        rc = conn_change_user(c, (const uint8_t *)arg, alen);
        break;
    case COM_RESET_CONNECTION:
        session_reset(s);
        conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL);
        break;
    case COM_FIELD_LIST: {
        /* table NUL [wildcard]: a column definition per column, each followed by its default (lenenc, 0xfb:
         * none), then EOF (or an OK marked 0xfe with CLIENT_DEPRECATE_EOF) */
        size_t tlen = strnlen(arg, alen);
        const char *wild = tlen < alen ? arg + tlen + 1 : "";
        size_t wlen = tlen < alen ? alen - tlen - 1 : 0;
        session_qlog_general(s, "Field List", arg, tlen);
        res_col_t *cols = NULL;
        res_cell_t *defs = NULL;
        int n = 0;
        if (session_field_list(s, arg, tlen, wild, wlen, &cols, &defs, &n) != 0) {
            const diag_cond_t *e = s->diag.error;
            conn_send_err(c, e->code, e->sqlstate, e->msg);
            break;
        }
        conn_send_field_list(c, cols, defs, n);
        if (c->caps & CLIENT_DEPRECATE_EOF)
            conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL), c->obuf.data[c->pk_start + 4] = 0xfe;
        else
            conn_send_eof(c, session_status_flags(s), 0);
        break;
    }
    case COM_PROCESS_INFO:
        session_query(s, "SHOW PROCESSLIST", 16, &c->sink);
        break;
    case COM_SHUTDOWN:
        session_query(s, "SHUTDOWN", 8, &c->sink);
        break;
    case COM_STMT_PREPARE:
    case COM_STMT_EXECUTE:
    case COM_STMT_SEND_LONG_DATA:
    case COM_STMT_CLOSE:
    case COM_STMT_RESET:
    case COM_STMT_FETCH:
        rc = conn_stmt_command(c, cmd, (const uint8_t *)arg, alen);
        break;
    case COM_DEBUG:
        conn_send_eof(c, session_status_flags(s), 0);
        break;
    case COM_REFRESH: {
        /* mysql_refresh() (mariadb-dump --flush-logs, mariadb-admin refresh): one byte of REFRESH_* bits, run
         * as the FLUSH statement that names them (GRANT 1, LOG 2, TABLES 4, HOSTS 8, STATUS 16; THREADS 32 has
         * nothing to flush here; SLAVE 64 and MASTER 128, which reset replication, are refused). */
        static const struct { uint8_t bit; const char *what; } rf[] = {
            {1, "PRIVILEGES"}, {2, "LOGS"}, {8, "HOSTS"}, {16, "STATUS"}, {4, "TABLES"}};
        uint8_t opt = alen ? (uint8_t)arg[0] : 0;
        if (opt & (64 | 128)) {
            conn_send_err_code(c, ER_UNKNOWN_COM_ERROR);
            break;
        }
        char q[64] = "FLUSH ";
        for (size_t i = 0; i < ARRAY_LEN(rf); i++)
            if (opt & rf[i].bit) {
                if (q[6])
                    strcat(q, ", ");
                strcat(q, rf[i].what);
            }
        if (!q[6]) {
            status_inc(&s->stat, STATUS_COM_ADMIN_COMMANDS);
            conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL);
            break;
        }
        session_query(s, q, strlen(q), &c->sink);
        break;
    }
    case COM_REGISTER_SLAVE:
        rc = conn_register_slave(c, (const uint8_t *)arg, alen);
        break;
    case COM_BINLOG_DUMP:
        rc = conn_binlog_dump(c, (const uint8_t *)arg, alen);
        break;
    default:
        conn_send_err_code(c, ER_UNKNOWN_COM_ERROR);
        break;
    }
    status_global_add(&c->srv->status, STATUS_THREADS_RUNNING, -1);
    session_admission_after(s);
    c->idle_limit_us = (uint64_t)sysvar_session_int(&s->vars, SYSVAR_WAIT_TIMEOUT) * 1000000u;
    arena_reset(&s->arena);
    return rc;
}

/* ---- net_ops ---- */

static void *proto_accepted(void *arg, net_conn_t *nc, int fd, const net_peer_t *peer)
{
    const proto_cfg_t *cfg = arg;
    server_t *srv = cfg->srv;
    conn_t *c = mem_calloc(1, sizeof *c);
    c->nc = nc;
    c->fd = fd;
    c->cfg = cfg;
    c->srv = srv;
    c->peer = *peer;
    c->phase = PH_GREETING;
    conn_sink_init(c);
    conn_stmt_sink_init(c);
    conn_infile_sink_init(c);
    c->sess = session_new(srv);
    c->sess->proto_conn = c;
    c->sess->fd = fd;
    c->id = c->sess->id;
    snprintf(c->sess->host, sizeof c->sess->host, "%s", peer->addr);
    snprintf(c->sess->ip, sizeof c->sess->ip, "%s", peer->is_unix ? "" : peer->addr);
    c->sess->port = peer->is_unix ? 0 : peer->port;
    if (auth_scramble_generate(c->scramble) != 0) {
        /* No random scramble, no login: a predictable one would let a recorded response be replayed. */
        log_error("Refused a connection from %s: the random number generator failed", peer->addr);
        status_global_inc(&srv->status, STATUS_ABORTED_CONNECTS);
        session_free(c->sess);
        mem_free(c);
        return NULL;
    }
    if (conn_host_cached(c) && server_host_blocked(srv, peer->addr)) {
        /* max_connect_errors: blocked until FLUSH HOSTS, answered in place of the greeting as MariaDB does. */
        c->seq = 0;
        conn_send_err_code(c, ER_HOST_IS_BLOCKED, peer->addr);
        conn_flush(c);
        status_global_inc(&srv->status, STATUS_ABORTED_CONNECTS);
        session_free(c->sess);
        buf_free(&c->obuf);
        mem_free(c);
        return NULL;
    }
    c->max_packet = (size_t)sysvar_global_int(&srv->vars, SYSVAR_MAX_ALLOWED_PACKET);
    c->idle_limit_us = (uint64_t)sysvar_global_int(&srv->vars, SYSVAR_CONNECT_TIMEOUT) * 1000000u;
    atomic_store(&c->last_read_us, time_mono_us());
    /* max_connections ordinary sessions plus one for an administrator; past that, 1040 instead of a greeting. */
    int max_conn = (int)sysvar_global_int(&srv->vars, SYSVAR_MAX_CONNECTIONS);
    if (max_conn > 0 && srv->nsessions >= max_conn + 1) {
        c->seq = 0;
        conn_send_err_code(c, ER_CON_COUNT_ERROR);
        conn_flush(c);
        status_global_inc(&srv->status, STATUS_ABORTED_CONNECTS);
        status_global_inc(&srv->status, STATUS_CONNECTION_ERRORS_MAX_CONNECTIONS);
        session_free(c->sess);
        buf_free(&c->obuf);
        mem_free(c);
        return NULL;
    }
    conn_send_greeting(c);
    if (conn_flush(c) != 0) {
        session_free(c->sess);
        buf_free(&c->obuf);
        mem_free(c);
        return NULL;
    }
    buf_shrink(&c->obuf, 0);
    return c;
}

/* Transaction admission (session/admit.h): resumes a parked connection. */
static void conn_admitted(void *arg)
{
    conn_t *c = arg;
    net_resume(c->cfg->net, c->nc);
}

/* Does the command in c->pkt wait for admission?  true: parked (it runs when resumed). */
static bool conn_must_wait(conn_t *c)
{
    if (c->pkt.len == 0)
        return false;
    session_t *s = c->sess;
    if (!session_admission_needed(s, c->pkt.data[0], (const char *)c->pkt.data + 1, c->pkt.len - 1))
        return false;
    if (admit_enter(&s->admit, conn_admitted, c))
        return false;
    c->parked_cmd = true;
    return true;
}

static enum net_ready_result proto_ready(void *ctx)
{
    conn_t *c = ctx;
    if (c->parked_cmd) {
        if (atomic_load(&c->sess->killed))
            return NET_CLOSE;
        if (c->sess->admit.state != ADMIT_HOLDING) {
            if (!atomic_exchange(&c->sess->kill_query, false))
                return NET_PARK; /* not admitted yet */
            /* KILL QUERY while waiting: the statement ends with 1317, the connection stays */
            c->parked_cmd = false;
            conn_send_err_code(c, ER_QUERY_INTERRUPTED);
            if (conn_flush(c) != 0)
                return NET_CLOSE;
            return proto_ready(c);
        }
        c->parked_cmd = false;
        int r = conn_command(c);
        if (conn_flush(c) != 0 || r != 0)
            return NET_CLOSE;
    }
    for (;;) {
        if (c->phase == PH_CLOSING || atomic_load(&c->sess->killed))
            return NET_CLOSE;
        if (c->phase == PH_TLS_ACCEPT) {
            int r = tls_handshake_step(c->tls);
            if (r == TLS_WANT_READ)
                return NET_REARM;
            if (r == TLS_WANT_WRITE) {
                struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
                if (poll(&pfd, 1, 10000) <= 0)
                    return NET_CLOSE;
                continue;
            }
            if (r != TLS_DONE) {
                log_warn("Aborted connection %u to host: '%s' (TLS handshake failed: %s)", c->id, c->sess->host,
                         tls_last_error(c->tls));
                status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
                return NET_CLOSE;
            }
            c->phase = PH_GREETING;
            status_global_inc(&c->srv->status, STATUS_SSL_FINISHED_ACCEPTS);
            snprintf(c->sess->tls_version, sizeof c->sess->tls_version, "%s", tls_version(c->tls));
            snprintf(c->sess->tls_cipher, sizeof c->sess->tls_cipher, "%s", tls_cipher(c->tls));
            continue;
        }
        /* Every whole packet already read is handled before reading more. */
        size_t consumed = 0;
        uint8_t seq = c->seq;
        if (c->phase == PH_COMMAND)
            seq = 0;
        buf_t *src = c->compressed ? &c->ibuf : &c->rbuf;
        /* Before authentication a client has no business sending more than a handshake response. */
        size_t limit = c->handshake_done ? c->max_packet - 1 : CONN_PREAUTH_MAX_PACKET;
        int rc = c->compressed ? packet_read_any_seq(src->data, src->len, limit, &seq, &c->pkt, &consumed)
                               : packet_read(src->data, src->len, limit, &seq, &c->pkt, &consumed);
        if (rc == STRATA_EAGAIN && c->compressed) {
            /* Unwrap one frame at a time: a new command's frames restart the compressed sequence at 0. */
            rc = conn_unwrap_frame(c);
            if (rc == 0)
                continue;
        }
        if (rc == 0) {
            buf_consume(src, consumed);
            c->seq = seq;
            int r;
            if (c->phase == PH_GREETING)
                r = conn_handshake_response(c);
            else if (c->phase == PH_AUTH)
                r = conn_auth_continue(c);
            else if (conn_must_wait(c))
                return NET_PARK; /* resumed by admission: the command runs then */
            else
                r = conn_command(c);
            if (conn_flush(c) != 0 || r != 0)
                return NET_CLOSE;
            continue;
        }
        if (rc == STRATA_ETOOBIG && !c->handshake_done) {
            log_warn("Aborted connection %u to host: '%s' (handshake packet over %u bytes)", c->id, c->sess->host,
                     (unsigned)CONN_PREAUTH_MAX_PACKET);
            status_global_inc(&c->srv->status, STATUS_ABORTED_CONNECTS);
            return NET_CLOSE;
        }
        if (rc == STRATA_ETOOBIG) {
            /* MySQL answers 1153 and closes the connection. */
            log_warn("Aborted connection %u to db: '%s' user: '%s' host: '%s' (Got a packet bigger than "
                     "'max_allowed_packet' bytes)",
                     c->id, c->sess->db ? c->sess->db : "unconnected", c->sess->user, c->sess->host);
            c->seq = seq + 1;
            conn_send_err_code(c, ER_NET_PACKET_TOO_LARGE);
            conn_flush(c);
            status_global_inc(&c->srv->status, STATUS_ABORTED_CLIENTS);
            return NET_CLOSE;
        }
        if (rc == STRATA_EPROTO) {
            /* MySQL answers 1156 before closing. */
            c->seq = seq + 1;
            conn_send_err_code(c, ER_NET_PACKETS_OUT_OF_ORDER);
            conn_flush(c);
            log_warn("Aborted connection %u to db: '%s' user: '%s' host: '%s' (Got packets out of order)", c->id,
                     c->sess->db ? c->sess->db : "unconnected", c->sess->user, c->sess->host);
            status_global_inc(&c->srv->status, c->handshake_done ? STATUS_ABORTED_CLIENTS : STATUS_ABORTED_CONNECTS);
            return NET_CLOSE;
        }
        /* Need more bytes. */
        int n = conn_read_some(c);
        if (n > 0) {
            atomic_store_explicit(&c->last_read_us, time_mono_us(), memory_order_relaxed);
            continue;
        }
        if (n == 0) {
            /* Keep an idle connection small: drop the buffers a large statement grew. */
            if (c->rbuf.len == 0)
                buf_shrink(&c->rbuf, 0);
            buf_shrink(&c->pkt, 0);
            buf_shrink(&c->obuf, 0);
            if (c->ibuf.len == 0)
                buf_shrink(&c->ibuf, 0);
            buf_shrink(&c->zbuf, 0);
            return NET_REARM;
        }
        if (c->phase == PH_COMMAND && !c->rbuf.len) {
            /* Gone without COM_QUIT: an aborted client, logged as MariaDB does with log_warnings=2. */
            status_global_inc(&c->srv->status, STATUS_ABORTED_CLIENTS);
            log_warn("Aborted connection %u to db: '%s' user: '%s' host: '%s' (Got an error reading communication "
                     "packets)", c->id, c->sess->db ? c->sess->db : "unconnected", c->sess->user, c->sess->host);
        } else {
            status_global_inc(&c->srv->status, c->handshake_done ? STATUS_ABORTED_CLIENTS : STATUS_ABORTED_CONNECTS);
            log_warn("Aborted connection %u to db: '%s' user: '%s' host: '%s' (%s)", c->id,
                     c->sess->db ? c->sess->db : "unconnected", c->sess->user, c->sess->host,
                     c->handshake_done ? "Got an error reading communication packets" : "closed during handshake");
            if (!c->handshake_done && conn_host_cached(c))
                server_host_error(c->srv, c->peer.addr);
        }
        return NET_CLOSE;
    }
}

static void proto_closed(void *ctx)
{
    conn_t *c = ctx;
    if (c->sess) {
        admit_leave(&c->sess->admit);
        session_unregister(c->sess);
        session_free(c->sess);
    }
    if (c->tls)
        tls_free(c->tls);
    mem_free(c->auth);
    mem_free(c->login_db);
    if (c->acct) {
        acl_connection_leave(c->srv->acl, c->acct);
        mem_free(c->acct);
    }
    buf_free(&c->rbuf);
    buf_free(&c->pkt);
    buf_free(&c->obuf);
    buf_free(&c->ibuf);
    buf_free(&c->zbuf);
    buf_free(&c->infile);
    pcomp_free(&c->pc);
    mem_free(c);
}

static bool proto_expired(void *ctx, uint64_t now_us)
{
    conn_t *c = ctx;
    uint64_t last = atomic_load_explicit(&c->last_read_us, memory_order_relaxed);
    return c->idle_limit_us && now_us > last && now_us - last > c->idle_limit_us;
}

const net_ops_t proto_net_ops = {
    .accepted = proto_accepted,
    .ready = proto_ready,
    .closed = proto_closed,
    .expired = proto_expired,
};
