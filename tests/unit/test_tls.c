/*
 * Unit tests for proto/tls: certificate generation into a data directory (files, modes, chain, validity, reuse,
 * partial sets), ssl_cert/ssl_key options, and a real TLS handshake and data exchange over a socketpair between
 * the non-blocking server wrapper and an OpenSSL client in a thread, including bytes already read before the
 * switch (the ClientHello that arrives with the SSLRequest packet).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "proto/tls.h"
#include "unit.h"
#include "util/util.h"

static char datadir[64];

static const char *dd(void)
{
    if (!datadir[0]) {
        snprintf(datadir, sizeof datadir, "/tmp/strata-tls-XXXXXX");
        ASSERT(mkdtemp(datadir));
    }
    return datadir;
}

static char *pathf(const char *dir, const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static X509 *load_cert(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    return x;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *b = calloc(1, 65536);
    size_t n = fread(b, 1, 65535, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static void rm_rf(const char *dir)
{
    static const char *names[] = {"ca.pem", "ca-key.pem", "server-cert.pem", "server-key.pem", "client-cert.pem",
                                  "client-key.pem", "private_key.pem", "public_key.pem"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        unlink(pathf(dir, names[i]));
    rmdir(dir);
}

TEST(test_generate)
{
    tls_options_t opt = {.datadir = dd()};
    tls_server_t *s = NULL;
    REQUIRE(tls_server_open(&opt, &s) == 0);
    REQUIRE(s && s->ctx);
    CHECK(s->rsa_key != NULL);
    CHECK(s->rsa_public_pem && strstr(s->rsa_public_pem, "-----BEGIN PUBLIC KEY-----"));
    CHECK(strstr(s->not_after, "GMT") != NULL);

    const char *keys[] = {"ca-key.pem", "server-key.pem", "client-key.pem", "private_key.pem"};
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        struct stat st;
        CHECK(stat(pathf(dd(), keys[i]), &st) == 0);
        CHECK_EQ_INT(st.st_mode & 0777, 0600);
    }
    const char *certs[] = {"ca.pem", "server-cert.pem", "client-cert.pem", "public_key.pem"};
    for (size_t i = 0; i < ARRAY_LEN(certs); i++) {
        struct stat st;
        CHECK(stat(pathf(dd(), certs[i]), &st) == 0);
        CHECK_EQ_INT(st.st_mode & 0777, 0644);
    }

    /* Chain: server and client certificates verify against ca.pem; the CA is self-signed and a CA. */
    X509 *ca = load_cert(pathf(dd(), "ca.pem")), *srv = load_cert(pathf(dd(), "server-cert.pem")),
         *cli = load_cert(pathf(dd(), "client-cert.pem"));
    REQUIRE(ca && srv && cli);
    EVP_PKEY *capub = X509_get0_pubkey(ca);
    CHECK(X509_verify(srv, capub) == 1);
    CHECK(X509_verify(cli, capub) == 1);
    CHECK(X509_verify(ca, capub) == 1);
    CHECK(X509_check_ca(ca) >= 1);
    CHECK(X509_check_ca(srv) == 0);
    CHECK_EQ_INT(EVP_PKEY_get_base_id(X509_get0_pubkey(srv)), EVP_PKEY_EC); /* ECDSA P-256 */
    CHECK_EQ_INT(EVP_PKEY_get_bits(X509_get0_pubkey(srv)), 256);
    char cn[128];
    X509_NAME_get_text_by_NID(X509_get_subject_name(srv), NID_commonName, cn, sizeof cn);
    CHECK_EQ_STR(cn, "strata_Auto_Generated_Server_Certificate");
    /* Validity: about ten years from now. */
    int days = 0, secs = 0;
    CHECK(ASN1_TIME_diff(&days, &secs, NULL, X509_get0_notAfter(srv)) == 1);
    CHECK(days >= 3649 && days <= 3650);
    /* The context really holds that certificate. */
    CHECK(X509_cmp(SSL_CTX_get0_certificate(s->ctx), srv) == 0);
    X509_free(ca);
    X509_free(srv);
    X509_free(cli);

    /* Reopen: files reused, not regenerated. */
    char *before = slurp(pathf(dd(), "server-cert.pem")), *pk_before = slurp(pathf(dd(), "public_key.pem"));
    tls_server_close(s);
    REQUIRE(tls_server_open(&opt, &s) == 0);
    char *after = slurp(pathf(dd(), "server-cert.pem"));
    CHECK(before && after && !strcmp(before, after));
    CHECK(pk_before && s->rsa_public_pem && !strcmp(pk_before, s->rsa_public_pem));
    free(before);
    free(after);
    free(pk_before);
    tls_server_close(s);
}

TEST(test_partial_set_and_options)
{
    /* A directory with only ca.pem: refuse to generate, do not overwrite. */
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/strata-tls2-XXXXXX");
    REQUIRE(mkdtemp(dir));
    FILE *f = fopen(pathf(dir, "ca.pem"), "w");
    REQUIRE(f);
    fputs("operator's file\n", f);
    fclose(f);
    tls_options_t opt = {.datadir = dir};
    tls_server_t *s = NULL;
    CHECK(tls_server_open(&opt, &s) != 0);
    CHECK(s == NULL);
    char *c = slurp(pathf(dir, "ca.pem"));
    CHECK(c && !strcmp(c, "operator's file\n"));
    free(c);
    CHECK(access(pathf(dir, "server-cert.pem"), F_OK) != 0);

    /* ssl_cert/ssl_key given: used instead of the data directory's (here: the generated client pair). */
    tls_options_t o2 = {.datadir = dir,
                        .ssl_cert = pathf(dd(), "client-cert.pem"),
                        .ssl_key = pathf(dd(), "client-key.pem"),
                        .ssl_ca = pathf(dd(), "ca.pem")};
    REQUIRE(tls_server_open(&o2, &s) == 0);
    char cn[128];
    X509_NAME_get_text_by_NID(X509_get_subject_name(SSL_CTX_get0_certificate(s->ctx)), NID_commonName, cn,
                              sizeof cn);
    CHECK_EQ_STR(cn, "strata_Auto_Generated_Client_Certificate");
    tls_server_close(s);

    /* Mismatched key: refused. */
    tls_options_t o3 = {.ssl_cert = pathf(dd(), "server-cert.pem"), .ssl_key = pathf(dd(), "client-key.pem")};
    CHECK(tls_server_open(&o3, &s) != 0);
    rm_rf(dir);
}

/* --- handshake over a socketpair ---------------------------------------------------------------------- */

#define BIG (1 << 20)

typedef struct {
    int fd;
    int max_version;
    int ok;
    uint8_t *got;
    size_t got_len;
    char version[32];
} client_arg_t;

static void *client_main(void *p)
{
    client_arg_t *a = p;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (a->max_version) {
        SSL_CTX_set_security_level(ctx, 0);
        SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
        SSL_CTX_set_max_proto_version(ctx, a->max_version);
    } else {
        SSL_CTX_load_verify_locations(ctx, pathf(dd(), "ca.pem"), NULL);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    }
    SSL *ssl = SSL_new(ctx);
    SSL_set_fd(ssl, a->fd);
    if (SSL_connect(ssl) != 1) {
        a->ok = 0;
        goto out;
    }
    snprintf(a->version, sizeof a->version, "%s", SSL_get_version(ssl));
    /* Send "hello", then read BIG bytes, then send them back. */
    if (SSL_write(ssl, "hello", 5) != 5)
        goto out;
    a->got = malloc(BIG);
    while (a->got_len < BIG) {
        int r = SSL_read(ssl, a->got + a->got_len, (int)(BIG - a->got_len));
        if (r <= 0)
            goto out;
        a->got_len += (size_t)r;
    }
    size_t off = 0;
    while (off < BIG) {
        int r = SSL_write(ssl, a->got + off, (int)(BIG - off));
        if (r <= 0)
            goto out;
        off += (size_t)r;
    }
    a->ok = 1;
    SSL_shutdown(ssl);
out:
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    shutdown(a->fd, SHUT_WR);
    return NULL;
}

static void wait_for(int fd, int rc)
{
    struct pollfd p = {.fd = fd, .events = rc == TLS_WANT_WRITE ? POLLOUT : POLLIN};
    poll(&p, 1, 5000);
}

TEST(test_handshake_and_data)
{
    tls_options_t opt = {.datadir = dd()};
    tls_server_t *s = NULL;
    REQUIRE(tls_server_open(&opt, &s) == 0);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    client_arg_t a = {.fd = sv[1]};
    pthread_t th;
    pthread_create(&th, NULL, client_main, &a);

    /* Read the first bytes of the ClientHello ourselves, as the net layer would with the SSLRequest. */
    uint8_t pre[7];
    size_t pre_len = 0;
    while (pre_len < sizeof pre) {
        ssize_t r = read(sv[0], pre + pre_len, sizeof pre - pre_len);
        if (r > 0)
            pre_len += (size_t)r;
        else if (r < 0 && errno == EAGAIN)
            wait_for(sv[0], TLS_WANT_READ);
        else
            break;
    }
    REQUIRE(pre_len == sizeof pre);
    CHECK_EQ_INT(pre[0], 0x16); /* a TLS handshake record */

    tls_conn_t *c = tls_conn_new(s->ctx, sv[0], pre, pre_len);
    REQUIRE(c);
    CHECK_EQ_STR(tls_version(c), "");
    int rc;
    while ((rc = tls_handshake_step(c)) == TLS_WANT_READ || rc == TLS_WANT_WRITE) {
        wait_for(sv[0], rc);
    }
    CHECK_EQ_INT(rc, TLS_DONE);
    CHECK_EQ_INT(tls_conn_state(c), TLS_STATE_OPEN);
    CHECK(!strcmp(tls_version(c), "TLSv1.3") || !strcmp(tls_version(c), "TLSv1.2"));
    CHECK(strlen(tls_cipher(c)) > 0);

    char hello[5];
    size_t got = 0;
    while (got < 5) {
        ssize_t r = tls_read(c, hello + got, 5 - got);
        if (r > 0)
            got += (size_t)r;
        else if (r == TLS_WANT_READ || r == TLS_WANT_WRITE)
            wait_for(sv[0], (int)r);
        else
            break;
    }
    CHECK(got == 5 && !memcmp(hello, "hello", 5));

    /* 1 MiB each way: the socketpair's buffer fills, so writes must report WANT_WRITE and resume. */
    uint8_t *big = malloc(BIG), *back = malloc(BIG);
    for (size_t i = 0; i < BIG; i++)
        big[i] = (uint8_t)(i * 31 + 7);
    size_t off = 0, wants = 0, in = 0;
    while (off < BIG || in < BIG) {
        if (off < BIG) {
            ssize_t r = tls_write(c, big + off, BIG - off);
            if (r > 0)
                off += (size_t)r;
            else if (r == TLS_WANT_WRITE || r == TLS_WANT_READ)
                wants++;
            else
                break;
        }
        ssize_t r = tls_read(c, back + in, BIG - in);
        if (r > 0) {
            in += (size_t)r;
            while (tls_pending(c) && in < BIG) {
                r = tls_read(c, back + in, BIG - in);
                if (r <= 0)
                    break;
                in += (size_t)r;
            }
        } else if (r != TLS_WANT_READ && r != TLS_WANT_WRITE) {
            break;
        } else {
            struct pollfd p = {.fd = sv[0], .events = POLLIN | (off < BIG ? POLLOUT : 0)};
            poll(&p, 1, 5000);
        }
    }
    CHECK_EQ_INT(off, BIG);
    CHECK_EQ_INT(in, BIG);
    CHECK(wants > 0);
    CHECK(!memcmp(big, back, BIG));
    /* Client's close_notify then EOF: an orderly close. */
    char x;
    ssize_t r;
    while ((r = tls_read(c, &x, 1)) == TLS_WANT_READ)
        wait_for(sv[0], TLS_WANT_READ);
    CHECK_EQ_INT(r, TLS_CLOSED);
    pthread_join(th, NULL);
    CHECK(a.ok);
    CHECK(!strcmp(a.version, tls_version(c)));
    CHECK(a.got_len == BIG && !memcmp(a.got, big, BIG));
    tls_shutdown(c);
    tls_free(c);
    free(a.got);
    free(big);
    free(back);
    close(sv[0]);
    close(sv[1]);
    tls_server_close(s);
}

TEST(test_old_protocol_refused)
{
    tls_options_t opt = {.datadir = dd()};
    tls_server_t *s = NULL;
    REQUIRE(tls_server_open(&opt, &s) == 0);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    client_arg_t a = {.fd = sv[1], .max_version = TLS1_1_VERSION};
    pthread_t th;
    pthread_create(&th, NULL, client_main, &a);
    tls_conn_t *c = tls_conn_new(s->ctx, sv[0], NULL, 0);
    int rc;
    while ((rc = tls_handshake_step(c)) == TLS_WANT_READ || rc == TLS_WANT_WRITE)
        wait_for(sv[0], rc);
    CHECK_EQ_INT(rc, TLS_ERROR);
    CHECK(strlen(tls_last_error(c)) > 0);
    CHECK_EQ_INT(tls_conn_state(c), TLS_STATE_FAILED);
    CHECK_EQ_INT(tls_write(c, "x", 1), TLS_ERROR);
    close(sv[0]); /* unblocks the client if it still waits */
    pthread_join(th, NULL);
    CHECK(!a.ok);
    tls_free(c);
    close(sv[1]);
    tls_server_close(s);
}

TEST(test_cleanup) { rm_rf(dd()); }

UNIT_MAIN(test_generate, test_partial_set_and_options, test_handshake_and_data, test_old_protocol_refused,
          test_cleanup)
