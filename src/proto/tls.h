/*
 * TLS for client connections, through OpenSSL.
 *
 * Server side: tls_server_open() prepares everything once at start-up.  Unless ssl_cert/ssl_key are given, it uses
 * the certificates in the data directory and generates them on first start, as MySQL's auto_generate_certs and
 * mysql_ssl_rsa_setup do (RSA 2048, 10 years, keys mode 0600):
 *
 *   ca.pem  ca-key.pem                  self-signed CA
 *   server-cert.pem  server-key.pem     signed by the CA; what the server presents
 *   client-cert.pem  client-key.pem     signed by the CA; for clients that want one
 *   private_key.pem  public_key.pem     RSA pair for caching_sha2_password's key exchange without TLS
 *
 * Existing files are reused; if only some of ca.pem / server-cert.pem / server-key.pem exist, nothing is generated
 * or overwritten and opening fails (an operator's partial set is never clobbered).  Likewise the RSA pair.
 *
 * Per connection: a tls_conn_t over a non-blocking socket.  After the client's SSLRequest packet the connection
 * switches to TLS; bytes the net layer already read beyond that packet (clients send the ClientHello right away)
 * are handed to tls_conn_new() as `pending` and consumed before the socket.  Every call returns at once:
 *
 *   tls_handshake_step()   TLS_DONE, or TLS_WANT_READ / TLS_WANT_WRITE (wait for that readiness, call again),
 *                          or TLS_ERROR
 *   tls_read()/tls_write() > 0 bytes moved, or TLS_WANT_READ / TLS_WANT_WRITE / TLS_CLOSED / TLS_ERROR.
 *                          Note a read can want write (and the reverse) during renegotiation-like events; wait for
 *                          what was asked.  After a read, tls_pending() > 0 means more decrypted bytes are
 *                          buffered inside OpenSSL and will not raise a readiness event: read them now.
 *
 *   conn state:  HANDSHAKE --step()=DONE--> OPEN --close_notify/EOF--> CLOSED
 *                    \---------------any error---------------------> FAILED
 *
 * Thread safety: a tls_server_t is read-only after open and shared by all workers; a tls_conn_t belongs to one
 * connection (one thread at a time).  OpenSSL's error queue is per thread; each call here clears it first.
 */
#ifndef STRATA_PROTO_TLS_H
#define STRATA_PROTO_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct ssl_ctx_st SSL_CTX;

struct tls_server;
typedef struct tls_options {
    const char *datadir;  /* where generated files live (required unless cert and key are both given) */
    const char *ssl_cert; /* --ssl-cert; relative paths are taken as given (the caller resolves them) */
    const char *ssl_key;  /* --ssl-key */
    const char *ssl_ca;   /* --ssl-ca (used to verify client certificates if they send one) */
    bool no_generate;     /* --skip-auto-generate-certs: do not create missing files */
} tls_options_t;

typedef struct tls_server {
    SSL_CTX *ctx;
    void *rsa_key;         /* EVP_PKEY * of private_key.pem (caching_sha2 RSA exchange), NULL if unavailable */
    char *rsa_public_pem;  /* public_key.pem text, NULL if unavailable */
    char *cert_path, *key_path, *ca_path;
    char not_after[32];    /* server certificate's end date, "YYYY-MM-DD HH:MM:SS" (Ssl_server_not_after) */
} tls_server_t;

/* Generates the missing certificate set and RSA pair into datadir (see above).  0, or a negative value after
 * logging the reason. */
int tls_files_setup(const char *datadir);
/* Opens the server side: files (generated if allowed), SSL_CTX (TLS 1.2 and later), RSA pair.  0 and *out on
 * success; a negative STRATA_E* after logging otherwise (the caller decides whether to run without TLS). */
int tls_server_open(const tls_options_t *opt, tls_server_t **out);
void tls_server_close(tls_server_t *srv);

enum tls_result {
    TLS_DONE = 0,
    TLS_WANT_READ = -1,
    TLS_WANT_WRITE = -2,
    TLS_CLOSED = -3, /* orderly close (close_notify or EOF at a record boundary) */
    TLS_ERROR = -4,
};

enum tls_state { TLS_STATE_HANDSHAKE = 0, TLS_STATE_OPEN, TLS_STATE_CLOSED, TLS_STATE_FAILED };

typedef struct tls_conn tls_conn_t;

/* Server side of a connection on `fd` (not owned: tls_free does not close it).  `pending`: bytes already read
 * from fd after the SSLRequest packet; copied. */
tls_conn_t *tls_conn_new(SSL_CTX *ctx, int fd, const void *pending, size_t pending_len);
/* Client side (tests, and anything in strata that connects out, e.g. a replica). */
tls_conn_t *tls_conn_new_client(SSL_CTX *ctx, int fd);
int tls_handshake_step(tls_conn_t *c);
ssize_t tls_read(tls_conn_t *c, void *buf, size_t n);
ssize_t tls_write(tls_conn_t *c, const void *buf, size_t n);
size_t tls_pending(tls_conn_t *c);
/* Sends close_notify, best effort (does not wait for the peer's). */
void tls_shutdown(tls_conn_t *c);
void tls_free(tls_conn_t *c);
enum tls_state tls_conn_state(const tls_conn_t *c);
/* Negotiated protocol ("TLSv1.3") and cipher ("TLS_AES_256_GCM_SHA384") for Ssl_version / Ssl_cipher; "" before
 * the handshake is done. */
const char *tls_version(const tls_conn_t *c);
const char *tls_cipher(const tls_conn_t *c);
/* Text of the last OpenSSL error on this connection (for the error log), "" if none. */
const char *tls_last_error(const tls_conn_t *c);

#endif
