/*
 * libFuzzer target for the account side of logins: the account file decoder (session/acl: accounts.dat as read
 * at start) and the authentication exchange (proto/auth: whatever a client sends during a login, including the
 * RSA-encrypted password path).  First input byte < 128: the rest is an accounts.dat; otherwise the rest is a
 * sequence of client packets, each prefixed by a one-byte length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "proto/auth.h"
#include "acl/acl.h"
#include "util/diag.h"
#include "util/util.h"

static char dir[64];
static auth_server_t srv;
static char stored_sha2[PASSWORD_STORED_MAX], stored_native[PASSWORD_STORED_MAX];

static void show_one(const acl_account_t *a, void *arg)
{
    (void)a;
    (*(int *)arg)++;
}

static void cleanup(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/accounts.dat", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/accounts.dat.tmp", dir);
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(dir, sizeof dir, "/tmp/strata-fuzz-auth-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    atexit(cleanup);
    log_set_level(LOG_LEVEL_ERROR);
    EVP_PKEY *key = EVP_RSA_gen(2048);
    BIO *bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, key);
    char *p;
    long n = BIO_get_mem_data(bio, &p);
    srv.rsa_public_pem = mem_strndup(p, (size_t)n);
    BIO_free(bio);
    srv.rsa_key = key;
    srv.cache = auth_cache_new();
    password_stored_from(PASSWORD_PLUGIN_SHA2, "pw", 2, stored_sha2);
    password_stored_from(PASSWORD_PLUGIN_NATIVE, "pw", 2, stored_native);
    return 0;
}

static void fuzz_file(const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/accounts.dat", dir);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    acl_t *acl = NULL;
    if (acl_open(dir, &acl) == 0) {
        int n = 0;
        acl_foreach(acl, show_one, &n);
        acl_account_t a;
        acl_find_for_login(acl, "root", NULL, "10.0.0.1", true, &a);
        diag_t d;
        diag_init(&d, 4);
        buf_t b;
        buf_init(&b);
        acl_show_create_user(acl, &d, "root", "localhost", &b);
        buf_free(&b);
        diag_free(&d);
        acl_close(acl);
    }
}

static void fuzz_login(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    uint8_t mode = data[0];
    data++, size--;
    static const uint8_t scr[AUTH_SCRAMBLE_LEN] = "abcdefghijklmnopqrst";
    const char *plugin = mode & 1 ? PASSWORD_PLUGIN_SHA2_NAME : PASSWORD_PLUGIN_NATIVE_NAME;
    const char *stored = mode & 1 ? stored_sha2 : stored_native;
    const char *client = (mode & 6) == 0 ? NULL : (mode & 6) == 2 ? PASSWORD_PLUGIN_NATIVE_NAME
                                                 : (mode & 6) == 4 ? PASSWORD_PLUGIN_SHA2_NAME : "client_ed25519";
    auth_session_t s;
    auth_session_init(&s, &srv, scr, plugin, stored, "k", mode & 8);
    buf_t out;
    buf_init(&out);
    enum auth_action act = AUTH_FAIL;
    bool started = false;
    size_t off = 0;
    while (off < size) {
        size_t len = data[off++];
        if (len > size - off)
            len = size - off;
        if (!started) {
            act = auth_session_start(&s, client, data + off, len, &out);
            started = true;
        } else {
            act = auth_session_continue(&s, data + off, len, &out);
        }
        off += len;
        if (act == AUTH_OK || act == AUTH_FAIL)
            break;
    }
    buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] < 128)
        fuzz_file(data + 1, size - 1);
    else
        fuzz_login(data + 1, size - 1);
    return 0;
}
