/*
 * TLS through OpenSSL (see tls.h): certificate and key files in the data directory, the server SSL_CTX, and a
 * non-blocking connection wrapper.
 *
 * Files written here (PEM; keys PKCS#8 "PRIVATE KEY", mode 0600; certificates and public key mode 0644; each
 * written to a temporary name, fsynced and renamed, then the directory fsynced, so a crash never leaves half a
 * file under the real name):
 *
 *   file              content                         subject CN                                   issuer
 *   ca.pem            X.509 v3, CA:TRUE, 10 years     strata_Auto_Generated_CA_Certificate         itself
 *   ca-key.pem        EC P-256 private key
 *   server-cert.pem   X.509 v3, CA:FALSE, 10 years,   strata_Auto_Generated_Server_Certificate     the CA
 *                     subjectAltName localhost, 127.0.0.1, ::1
 *   server-key.pem    EC P-256 private key
 *   client-cert.pem   X.509 v3, CA:FALSE, 10 years    strata_Auto_Generated_Client_Certificate     the CA
 *   client-key.pem    EC P-256 private key
 *   private_key.pem   RSA 2048 private key            (caching_sha2_password key exchange)
 *   public_key.pem    its public key ("PUBLIC KEY", SubjectPublicKeyInfo, what clients receive)
 *
 * The connection wrapper reads through a small BIO of our own: it first serves the bytes the net layer had
 * already read past the SSLRequest packet, then reads the socket; writes go straight to the socket with
 * MSG_NOSIGNAL.  EAGAIN becomes OpenSSL's retry, which becomes TLS_WANT_READ / TLS_WANT_WRITE.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "proto/tls.h"
#include "util/fio.h"
#include "util/util.h"

#define TLS_KEY_BITS 2048
#define TLS_CERT_DAYS 3650
#define TLS_CN_PREFIX "strata_Auto_Generated_"

static void log_ssl_errors(const char *what)
{
    unsigned long e;
    char msg[256];
    bool any = false;
    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, msg, sizeof msg);
        log_error("TLS: %s: %s", what, msg);
        any = true;
    }
    if (!any)
        log_error("TLS: %s", what);
}

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = mem_alloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static bool file_exists(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    bool ok = access(p, F_OK) == 0;
    mem_free(p);
    return ok;
}

static int fsync_dir(const char *dir) { return fio_fsync_dir(FIO_TLS, dir); }

enum pem_kind { PEM_PRIVATE, PEM_PUBLIC, PEM_CERT };

/* Writes one PEM object to dir/name atomically with the given mode. */
static int pem_write_file(const char *dir, const char *name, enum pem_kind kind, void *obj, mode_t mode)
{
    int rc = STRATA_EIO;
    char *path = path_join(dir, name);
    size_t tn = strlen(path) + 8;
    char *tmp = mem_alloc(tn);
    snprintf(tmp, tn, "%s.tmp", path);
    FILE *f = NULL;
    int fd = fio_open(FIO_TLS, tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) {
        log_error("TLS: cannot create %s: %s", tmp, strerror(-fd));
        goto fail;
    }
    fchmod(fd, mode); /* the umask must not widen or narrow what we mean */
    f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        goto fail;
    }
    int ok;
    if (kind == PEM_PRIVATE)
        ok = PEM_write_PrivateKey(f, obj, NULL, NULL, 0, NULL, NULL);
    else if (kind == PEM_PUBLIC)
        ok = PEM_write_PUBKEY(f, obj);
    else
        ok = PEM_write_X509(f, obj);
    if (!ok || fflush(f) != 0 || fio_fsync(FIO_TLS, fileno(f)) != 0) {
        log_ssl_errors("writing a PEM file");
        goto fail;
    }
    if (fclose(f) != 0) {
        f = NULL;
        goto fail;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        log_error("TLS: cannot rename %s: %s", tmp, strerror(errno));
        goto fail;
    }
    fsync_dir(dir);
    rc = 0;
fail:
    if (f)
        fclose(f);
    if (rc)
        unlink(tmp);
    mem_free(tmp);
    mem_free(path);
    return rc;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX v3;
    X509V3_set_ctx(&v3, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
    if (!ext)
        return -1;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* A certificate for `key` named `cn`, signed by issuer/issuer_key (self-signed when issuer is NULL). */
static X509 *cert_make(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, bool ca,
                       const char *san)
{
    X509 *x = X509_new();
    BIGNUM *bn = BN_new();
    if (!x || !bn || !X509_set_version(x, 2) || !BN_rand(bn, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) ||
        !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) || !X509_gmtime_adj(X509_getm_notBefore(x), 0) ||
        !X509_gmtime_adj(X509_getm_notAfter(x), (long)TLS_CERT_DAYS * 24 * 3600) || !X509_set_pubkey(x, key))
        goto fail;
    X509_NAME *name = X509_get_subject_name(x);
    if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0))
        goto fail;
    if (!X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name))
        goto fail;
    X509 *iss = issuer ? issuer : x;
    if (add_ext(x, iss, NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE") ||
        add_ext(x, iss, NID_subject_key_identifier, "hash") ||
        (ca && add_ext(x, iss, NID_key_usage, "critical,keyCertSign,cRLSign")) ||
        (san && add_ext(x, iss, NID_subject_alt_name, san)))
        goto fail;
    if (!X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()))
        goto fail;
    BN_free(bn);
    return x;
fail:
    log_ssl_errors("making a certificate");
    BN_free(bn);
    X509_free(x);
    return NULL;
}

static int gen_cert_set(const char *datadir)
{
    int rc = STRATA_EIO;
    EVP_PKEY *ca_key = NULL, *srv_key = NULL, *cli_key = NULL;
    X509 *ca = NULL, *srv = NULL, *cli = NULL;
    log_note("TLS: generating a CA, server and client certificate in %s", datadir);
    /* ECDSA P-256 keys: as strong as RSA 3072 and generated in a millisecond instead of a second each, so a
     * first start (and every test's fresh data directory) is not held up. */
    if (!(ca_key = EVP_EC_gen("P-256")) || !(srv_key = EVP_EC_gen("P-256")) || !(cli_key = EVP_EC_gen("P-256"))) {
        log_ssl_errors("generating EC keys");
        goto fail;
    }
    /* The server certificate also names localhost and the loopback addresses, so clients that verify the host
     * (PyMySQL with a CA, --ssl-verify-server-cert) accept local connections; MySQL's own carry no names. */
    if (!(ca = cert_make(ca_key, TLS_CN_PREFIX "CA_Certificate", NULL, NULL, true, NULL)) ||
        !(srv = cert_make(srv_key, TLS_CN_PREFIX "Server_Certificate", ca, ca_key, false,
                          "DNS:localhost,IP:127.0.0.1,IP:::1")) ||
        !(cli = cert_make(cli_key, TLS_CN_PREFIX "Client_Certificate", ca, ca_key, false, NULL)))
        goto fail;
    /* Keys first, certificates last: ca.pem/server-cert.pem present means the set is complete. */
    if (pem_write_file(datadir, "ca-key.pem", PEM_PRIVATE, ca_key, 0600) ||
        pem_write_file(datadir, "server-key.pem", PEM_PRIVATE, srv_key, 0600) ||
        pem_write_file(datadir, "client-key.pem", PEM_PRIVATE, cli_key, 0600) ||
        pem_write_file(datadir, "client-cert.pem", PEM_CERT, cli, 0644) ||
        pem_write_file(datadir, "server-cert.pem", PEM_CERT, srv, 0644) ||
        pem_write_file(datadir, "ca.pem", PEM_CERT, ca, 0644))
        goto fail;
    rc = 0;
fail:
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(srv_key);
    EVP_PKEY_free(cli_key);
    X509_free(ca);
    X509_free(srv);
    X509_free(cli);
    return rc;
}

static int gen_rsa_pair(const char *datadir)
{
    log_note("TLS: generating the RSA key pair for caching_sha2_password in %s", datadir);
    EVP_PKEY *k = EVP_RSA_gen(TLS_KEY_BITS);
    if (!k) {
        log_ssl_errors("generating an RSA key");
        return STRATA_EIO;
    }
    int rc = pem_write_file(datadir, "private_key.pem", PEM_PRIVATE, k, 0600);
    if (!rc)
        rc = pem_write_file(datadir, "public_key.pem", PEM_PUBLIC, k, 0644);
    EVP_PKEY_free(k);
    return rc;
}

int tls_files_setup(const char *datadir)
{
    static const char *const set[] = {"ca.pem", "server-cert.pem", "server-key.pem"};
    int have = 0, rc;
    for (size_t i = 0; i < ARRAY_LEN(set); i++)
        have += file_exists(datadir, set[i]);
    if (have == 0) {
        if ((rc = gen_cert_set(datadir)) != 0)
            return rc;
    } else if (have < (int)ARRAY_LEN(set)) {
        log_error("TLS: %s has only some of ca.pem, server-cert.pem, server-key.pem; not generating (remove them "
                  "to have new ones made, or give --ssl-cert/--ssl-key)", datadir);
        return STRATA_EEXIST;
    }
    bool priv = file_exists(datadir, "private_key.pem"), pub = file_exists(datadir, "public_key.pem");
    if (!priv && !pub)
        return gen_rsa_pair(datadir);
    if (priv != pub)
        log_warn("TLS: only one of private_key.pem / public_key.pem in %s; caching_sha2_password RSA key "
                 "exchange is disabled", datadir);
    return 0;
}

static char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    buf_t b;
    buf_init(&b);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_append(&b, tmp, n);
    fclose(f);
    buf_append_byte(&b, 0);
    return (char *)b.data;
}

static void load_rsa_pair(tls_server_t *s, const char *datadir)
{
    char *priv = path_join(datadir, "private_key.pem"), *pub = path_join(datadir, "public_key.pem");
    FILE *f = fopen(priv, "r");
    if (f) {
        s->rsa_key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
        fclose(f);
        if (s->rsa_key)
            s->rsa_public_pem = read_text_file(pub);
        if (!s->rsa_key || !s->rsa_public_pem) {
            log_warn("TLS: cannot load %s / %s; caching_sha2_password RSA key exchange is disabled", priv, pub);
            EVP_PKEY_free(s->rsa_key);
            s->rsa_key = NULL;
            mem_free(s->rsa_public_pem);
            s->rsa_public_pem = NULL;
            ERR_clear_error();
        }
    }
    mem_free(priv);
    mem_free(pub);
}

int tls_server_open(const tls_options_t *opt, tls_server_t **out)
{
    int rc = STRATA_EIO;
    *out = NULL;
    tls_server_t *s = mem_calloc(1, sizeof *s);
    bool own_files = !(opt->ssl_cert && opt->ssl_key);
    if (opt->datadir && !opt->no_generate) {
        if (own_files) {
            if ((rc = tls_files_setup(opt->datadir)) != 0)
                goto fail;
        } else if (!file_exists(opt->datadir, "private_key.pem") && !file_exists(opt->datadir, "public_key.pem")) {
            if ((rc = gen_rsa_pair(opt->datadir)) != 0)
                goto fail;
        }
    }
    if (own_files && !opt->datadir) {
        log_error("TLS: no ssl_cert/ssl_key and no data directory");
        rc = STRATA_ENOTFOUND;
        goto fail;
    }
    s->cert_path = own_files ? path_join(opt->datadir, "server-cert.pem") : mem_strdup(opt->ssl_cert);
    s->key_path = own_files ? path_join(opt->datadir, "server-key.pem") : mem_strdup(opt->ssl_key);
    if (opt->ssl_ca)
        s->ca_path = mem_strdup(opt->ssl_ca);
    else if (own_files)
        s->ca_path = path_join(opt->datadir, "ca.pem");

    rc = STRATA_EIO;
    ERR_clear_error();
    s->ctx = SSL_CTX_new(TLS_server_method());
    if (!s->ctx || !SSL_CTX_set_min_proto_version(s->ctx, TLS1_2_VERSION)) {
        log_ssl_errors("creating the SSL context");
        goto fail;
    }
    if (SSL_CTX_use_certificate_chain_file(s->ctx, s->cert_path) != 1) {
        log_ssl_errors(s->cert_path);
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(s->ctx, s->key_path, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(s->ctx) != 1) {
        log_ssl_errors(s->key_path);
        goto fail;
    }
    if (s->ca_path && SSL_CTX_load_verify_locations(s->ctx, s->ca_path, NULL) != 1) {
        log_ssl_errors(s->ca_path);
        goto fail;
    }
    /* Clients often close the socket after COM_QUIT without close_notify: that is a close, not an error. */
    SSL_CTX_set_options(s->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                                    SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* Release read/write buffers while idle: 3,000 idle TLS connections must not pin 2 x 17 KiB each. */
    SSL_CTX_set_mode(s->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                 SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_id_context(s->ctx, (const unsigned char *)"strata", 6);
    SSL_CTX_set_verify(s->ctx, SSL_VERIFY_NONE, NULL);

    X509 *cert = SSL_CTX_get0_certificate(s->ctx);
    if (cert) {
        BIO *b = BIO_new(BIO_s_mem());
        if (b && ASN1_TIME_print(b, X509_get0_notAfter(cert))) {
            int n = BIO_read(b, s->not_after, sizeof s->not_after - 1);
            s->not_after[n > 0 ? n : 0] = '\0';
        }
        BIO_free(b);
    }
    if (opt->datadir)
        load_rsa_pair(s, opt->datadir);
    *out = s;
    return 0;
fail:
    tls_server_close(s);
    return rc;
}

void tls_server_close(tls_server_t *s)
{
    if (!s)
        return;
    SSL_CTX_free(s->ctx);
    EVP_PKEY_free(s->rsa_key);
    mem_free(s->rsa_public_pem);
    mem_free(s->cert_path);
    mem_free(s->key_path);
    mem_free(s->ca_path);
    mem_free(s);
}

/* --- connections ------------------------------------------------------------------------------------- */

struct tls_conn {
    SSL *ssl;
    int fd;
    enum tls_state state;
    uint8_t *pending;
    size_t pending_len, pending_off;
    char err[160];
};

static BIO_METHOD *conn_bio_method;
static pthread_once_t conn_bio_once = PTHREAD_ONCE_INIT;

static int conn_bio_read(BIO *b, char *out, int n)
{
    tls_conn_t *c = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (n <= 0)
        return 0;
    if (c->pending_off < c->pending_len) {
        size_t k = MIN((size_t)n, c->pending_len - c->pending_off);
        memcpy(out, c->pending + c->pending_off, k);
        c->pending_off += k;
        if (c->pending_off == c->pending_len) {
            mem_free(c->pending);
            c->pending = NULL;
            c->pending_len = c->pending_off = 0;
        }
        return (int)k;
    }
    ssize_t r;
    do
        r = recv(c->fd, out, (size_t)n, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        BIO_set_retry_read(b);
        return -1;
    }
    return (int)r; /* 0 = EOF, -1 = error (errno kept) */
}

static int conn_bio_write(BIO *b, const char *in, int n)
{
    tls_conn_t *c = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t r;
    do
        r = send(c->fd, in, (size_t)n, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        BIO_set_retry_write(b);
        return -1;
    }
    return (int)r;
}

static long conn_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b, (void)num, (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int conn_bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static void conn_bio_init_method(void)
{
    conn_bio_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "strata-conn");
    ASSERT(conn_bio_method);
    BIO_meth_set_read(conn_bio_method, conn_bio_read);
    BIO_meth_set_write(conn_bio_method, conn_bio_write);
    BIO_meth_set_ctrl(conn_bio_method, conn_bio_ctrl);
    BIO_meth_set_create(conn_bio_method, conn_bio_create);
}

static tls_conn_t *conn_new(SSL_CTX *ctx, int fd, const void *pending, size_t pending_len, bool server)
{
    pthread_once(&conn_bio_once, conn_bio_init_method);
    ERR_clear_error();
    tls_conn_t *c = mem_calloc(1, sizeof *c);
    c->fd = fd;
    c->state = TLS_STATE_HANDSHAKE;
    c->ssl = SSL_new(ctx);
    BIO *bio = c->ssl ? BIO_new(conn_bio_method) : NULL;
    if (!bio) {
        log_ssl_errors("creating a connection");
        SSL_free(c->ssl);
        mem_free(c);
        return NULL;
    }
    BIO_set_data(bio, c);
    SSL_set_bio(c->ssl, bio, bio);
    if (pending_len) {
        c->pending = mem_alloc(pending_len);
        memcpy(c->pending, pending, pending_len);
        c->pending_len = pending_len;
    }
    if (server)
        SSL_set_accept_state(c->ssl);
    else
        SSL_set_connect_state(c->ssl);
    return c;
}

tls_conn_t *tls_conn_new(SSL_CTX *ctx, int fd, const void *pending, size_t pending_len)
{
    return conn_new(ctx, fd, pending, pending_len, true);
}

tls_conn_t *tls_conn_new_client(SSL_CTX *ctx, int fd) { return conn_new(ctx, fd, NULL, 0, false); }

/* Maps an SSL_* result: want-read/write, orderly close, or an error (recorded in c->err). */
static int conn_result(tls_conn_t *c, int ret)
{
    int e = SSL_get_error(c->ssl, ret);
    switch (e) {
    case SSL_ERROR_WANT_READ:
        return TLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return TLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN:
        c->state = TLS_STATE_CLOSED;
        return TLS_CLOSED;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0 && errno == 0 && c->state == TLS_STATE_OPEN) {
            c->state = TLS_STATE_CLOSED; /* EOF without close_notify: treat as a close */
            return TLS_CLOSED;
        }
        snprintf(c->err, sizeof c->err, "%s", errno ? strerror(errno) : "unexpected EOF");
        break;
    default: {
        unsigned long le = ERR_peek_error();
        if (le)
            ERR_error_string_n(le, c->err, sizeof c->err);
        else
            snprintf(c->err, sizeof c->err, "SSL error %d", e);
        break;
    }
    }
    ERR_clear_error();
    c->state = TLS_STATE_FAILED;
    return TLS_ERROR;
}

int tls_handshake_step(tls_conn_t *c)
{
    if (c->state == TLS_STATE_OPEN)
        return TLS_DONE;
    if (c->state != TLS_STATE_HANDSHAKE)
        return TLS_ERROR;
    ERR_clear_error();
    errno = 0;
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) {
        c->state = TLS_STATE_OPEN;
        return TLS_DONE;
    }
    int rc = conn_result(c, r);
    return rc == TLS_CLOSED ? TLS_ERROR : rc;
}

ssize_t tls_read(tls_conn_t *c, void *buf, size_t n)
{
    if (c->state == TLS_STATE_CLOSED)
        return TLS_CLOSED;
    if (c->state != TLS_STATE_OPEN)
        return TLS_ERROR;
    ERR_clear_error();
    errno = 0;
    size_t got = 0;
    int r = SSL_read_ex(c->ssl, buf, n, &got);
    if (r == 1)
        return (ssize_t)got;
    return conn_result(c, r);
}

ssize_t tls_write(tls_conn_t *c, const void *buf, size_t n)
{
    if (c->state != TLS_STATE_OPEN)
        return TLS_ERROR;
    if (n == 0)
        return 0;
    ERR_clear_error();
    errno = 0;
    size_t put = 0;
    int r = SSL_write_ex(c->ssl, buf, n, &put);
    if (r == 1)
        return (ssize_t)put;
    int rc = conn_result(c, r);
    return rc == TLS_CLOSED ? TLS_ERROR : rc;
}

size_t tls_pending(tls_conn_t *c) { return c->state == TLS_STATE_OPEN ? (size_t)SSL_pending(c->ssl) : 0; }

void tls_shutdown(tls_conn_t *c)
{
    if (c->state == TLS_STATE_OPEN || c->state == TLS_STATE_CLOSED) {
        ERR_clear_error();
        SSL_shutdown(c->ssl);
        ERR_clear_error();
    }
}

void tls_free(tls_conn_t *c)
{
    if (!c)
        return;
    SSL_free(c->ssl);
    mem_free(c->pending);
    mem_free(c);
}

enum tls_state tls_conn_state(const tls_conn_t *c) { return c->state; }

const char *tls_version(const tls_conn_t *c)
{
    return c->state == TLS_STATE_OPEN || c->state == TLS_STATE_CLOSED ? SSL_get_version(c->ssl) : "";
}

const char *tls_cipher(const tls_conn_t *c)
{
    const char *n = c->state == TLS_STATE_OPEN || c->state == TLS_STATE_CLOSED ? SSL_get_cipher_name(c->ssl) : "";
    return n ? n : "";
}

const char *tls_last_error(const tls_conn_t *c) { return c->err; }
