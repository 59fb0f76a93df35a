/*
 * Unit tests for proto/auth: the password plugins' stored forms and responses against vectors computed outside
 * strata (MariaDB's PASSWORD(), Python hashlib, glibc crypt(3), MySQL's own sha2_password test vectors), and the
 * login state machine through every path (native, sha2 fast/full/RSA, auth switch, unknown account).
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "proto/auth.h"
#include "unit.h"
#include "util/util.h"

void password_sha256_crypt_for_test(const char *pw, const char *salt, unsigned rounds, char out[44]);

static const uint8_t SCR[20] = "ABCDEFGHIJKLMNOPQRST";

static void hex(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

TEST(test_scramble)
{
    for (int k = 0; k < 200; k++) {
        uint8_t s[AUTH_SCRAMBLE_LEN];
        auth_scramble_generate(s);
        for (int i = 0; i < AUTH_SCRAMBLE_LEN; i++) {
            CHECK(s[i] >= 0x21 && s[i] <= 0x7e);
            CHECK(s[i] != '$');
        }
    }
    uint8_t a[20], b[20];
    CHECK(auth_scramble_generate(a) == 0);
    CHECK(auth_scramble_generate(b) == 0);
    CHECK(memcmp(a, b, 20) != 0);
}

static int rng_broken(uint8_t *out, int n)
{
    memset(out, 'A', (size_t)n);
    return -1;
}

static int rng_counter_state;
static int rng_counter(uint8_t *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (uint8_t)rng_counter_state++;
    return 0;
}

TEST(test_scramble_rng_failure)
{
    /* The RNG failing fails the scramble: there is no fallback to a weaker source. */
    password_rng_fn old = password_set_rng(rng_broken);
    uint8_t s[AUTH_SCRAMBLE_LEN];
    CHECK(auth_scramble_generate(s) == -1);
    /* Rejection sampling: fed each byte value in turn, ten full cycles give each of the 93 characters exactly
     * 20 times (a `% 93` of every byte would favour the first 70). */
    password_set_rng(rng_counter);
    uint8_t big[186 * 10];
    CHECK(password_random_chars(big, sizeof big, PASSWORD_SCRAMBLE_CHARS) == 0);
    unsigned counts[256] = {0};
    for (size_t i = 0; i < sizeof big; i++)
        counts[big[i]]++;
    unsigned lo = ~0u, hi = 0;
    for (int c = 0x21; c <= 0x7e; c++) {
        if (c == '$')
            continue;
        lo = counts[c] < lo ? counts[c] : lo;
        hi = counts[c] > hi ? counts[c] : hi;
    }
    CHECK(counts['$'] == 0);
    CHECK(lo == 20 && hi == 20);
    password_set_rng(old);
    CHECK(auth_scramble_generate(s) == 0);
}

TEST(test_native_hash)
{
    char h[PASSWORD_NATIVE_HASH_LEN + 1];
    /* Values from MariaDB 10.11's PASSWORD() / SHOW CREATE USER. */
    password_native_hash("pw", 2, h);
    CHECK_EQ_STR(h, "*D821809F681A40A6E379B50D0463EFAE20BDD122");
    password_native_hash("x", 1, h);
    CHECK_EQ_STR(h, "*B69027D44F6E5EDC07F1AEAD1477967B16F28227");
    password_native_hash("password", 8, h);
    CHECK_EQ_STR(h, "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
    char st[PASSWORD_STORED_MAX];
    CHECK_EQ_INT(password_stored_from(PASSWORD_PLUGIN_NATIVE, "", 0, st), 0);
    CHECK_EQ_STR(st, "");
    CHECK(password_stored_valid(PASSWORD_PLUGIN_NATIVE, "*D821809F681A40A6E379B50D0463EFAE20BDD122", 41));
    CHECK(password_stored_valid(PASSWORD_PLUGIN_NATIVE, "*d821809f681a40a6e379b50d0463efae20bdd122", 41));
    CHECK(!password_stored_valid(PASSWORD_PLUGIN_NATIVE, "abc", 3));
    CHECK(!password_stored_valid(PASSWORD_PLUGIN_NATIVE, "*D821809F681A40A6E379B50D0463EFAE20BDD12G", 41));
    CHECK(password_stored_valid(PASSWORD_PLUGIN_NATIVE, "", 0));
}

TEST(test_native_response)
{
    uint8_t r[20];
    char hx[41];
    CHECK_EQ_INT(auth_native_response("secret", 6, SCR, r), 20);
    hex(r, 20, hx);
    CHECK_EQ_STR(hx, "28441590674285e7d03cae7af237504797f70e91"); /* Python hashlib */
    char h[42];
    password_native_hash("secret", 6, h);
    CHECK(auth_native_verify(h, SCR, r, 20));
    r[7] ^= 1;
    CHECK(!auth_native_verify(h, SCR, r, 20));
    CHECK(!auth_native_verify(h, SCR, r, 19));
    CHECK(!auth_native_verify(h, SCR, NULL, 0));
    CHECK_EQ_INT(auth_native_response("", 0, SCR, r), 0);
    CHECK(auth_native_verify("", SCR, NULL, 0));
    CHECK(!auth_native_verify("", SCR, r, 20));
}

TEST(test_sha256_crypt)
{
    char out[44];
    /* glibc crypt(3) "$5$rounds=N$salt" (salts up to 16 bytes, where both agree). */
    password_sha256_crypt_for_test("secret", "0123456789abcdef", 5000, out);
    CHECK_EQ_STR(out, "r6nzC5LUC0uVXFw52gWstJ181ms.XFW71j20yui2zG7");
    password_sha256_crypt_for_test("a much longer password that exceeds thirty-two bytes", "short", 1000, out);
    CHECK_EQ_STR(out, "MrLS/.ZassmvZmn74sTLUU4RWfZXUXSnls/rpbGImf7");
    password_sha256_crypt_for_test("Hello world!", "saltstring", 5000, out);
    CHECK_EQ_STR(out, "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"); /* Drepper's spec vector */
    /* MySQL's sha2_password unit-test vectors: 20-byte salts, 5000 rounds. */
    password_sha256_crypt_for_test("HahaH0hO1234#$@#%", "AbCd!@#\tEfgH%^&*01@#", 5000, out);
    CHECK_EQ_STR(out, "dNFegEa4OGDrnEu7M4T.nkmm794xI/QoCR3Z.xpLOW6");
    password_sha256_crypt_for_test(";bCdEF34^i9&*\":({\\56\"", "CVlq))+AC>Q)#4!@# x!", 5000, out);
    CHECK_EQ_STR(out, "SPMN/L8.noKqe8IXVZ2DpCE6w29b106vCQecap9JKpA");
}

TEST(test_sha2_stored)
{
    char h[PASSWORD_SHA2_HASH_LEN + 1];
    password_sha2_hash("HahaH0hO1234#$@#%", 17, (const uint8_t *)"AbCd!@#\tEfgH%^&*01@#", 5000, h);
    CHECK_EQ_STR(h, "$A$005$AbCd!@#\tEfgH%^&*01@#dNFegEa4OGDrnEu7M4T.nkmm794xI/QoCR3Z.xpLOW6");
    CHECK(password_stored_valid(PASSWORD_PLUGIN_SHA2, h, strlen(h)));
    CHECK(password_sha2_verify(h, "HahaH0hO1234#$@#%", 17));
    CHECK(!password_sha2_verify(h, "HahaH0hO1234#$@#", 16));
    CHECK(!password_stored_valid(PASSWORD_PLUGIN_NATIVE, h, strlen(h)));

    char st[PASSWORD_STORED_MAX], st2[PASSWORD_STORED_MAX];
    CHECK_EQ_INT(password_stored_from(PASSWORD_PLUGIN_SHA2, "pw", 2, st), PASSWORD_SHA2_HASH_LEN);
    CHECK(!strncmp(st, "$A$005$", 7));
    for (int i = 7; i < 27; i++)
        CHECK(st[i] != '$' && st[i] != '\'' && st[i] != '\\' && st[i] > 0x20);
    password_stored_from(PASSWORD_PLUGIN_SHA2, "pw", 2, st2);
    CHECK(strcmp(st, st2) != 0); /* fresh salt each time */
    CHECK(password_sha2_verify(st, "pw", 2));
    CHECK(password_sha2_verify(st2, "pw", 2));
    CHECK(!password_sha2_verify(st, "pW", 2));
    CHECK(!password_sha2_verify(st, "", 0));
    CHECK(password_sha2_verify("", "", 0));
    CHECK(!password_sha2_verify("", "x", 1));

    /* Passwords over 256 bytes never verify (and are hashed truncated, so never match by accident either). */
    char longpw[400];
    memset(longpw, 'q', sizeof longpw);
    CHECK_EQ_INT(password_stored_from(PASSWORD_PLUGIN_SHA2, longpw, sizeof longpw, st), PASSWORD_SHA2_HASH_LEN);
    CHECK(!password_sha2_verify(st, longpw, sizeof longpw));
    CHECK(password_sha2_verify(st, longpw, PASSWORD_SHA2_MAX));

    /* 10000 rounds is "00A" (hexadecimal, as MySQL writes it). */
    password_sha2_hash("pw", 2, NULL, 10000, h);
    CHECK(!strncmp(h, "$A$00A$", 7));
    CHECK(password_sha2_verify(h, "pw", 2));

    CHECK(!password_stored_valid(PASSWORD_PLUGIN_SHA2, "$A$005$short", 12));
    char bad[PASSWORD_SHA2_HASH_LEN + 1];
    memcpy(bad, st, sizeof bad);
    bad[1] = 'B';
    CHECK(!password_stored_valid(PASSWORD_PLUGIN_SHA2, bad, strlen(bad)));
}

TEST(test_sha2_response)
{
    uint8_t r[32];
    char hx[65];
    CHECK_EQ_INT(auth_sha2_response("secret", 6, SCR, r), 32);
    hex(r, 32, hx);
    CHECK_EQ_STR(hx, "d721e183c1f036a196c1389201b8d53f38064a16f1d0923683ab886763152d75"); /* hashlib */
    CHECK_EQ_INT(auth_sha2_response("", 0, SCR, r), 0);
}

TEST(test_cache)
{
    auth_cache_t *c = auth_cache_new();
    uint8_t d[32], g[32];
    memset(d, 7, 32);
    auth_cache_put(c, "u@h", "$A$stored1", d);
    CHECK_EQ_INT(auth_cache_count(c), 1);
    CHECK(auth_cache_get(c, "u@h", "$A$stored1", g));
    CHECK(!memcmp(d, g, 32));
    CHECK(!auth_cache_get(c, "u@h", "$A$stored2", g)); /* password changed */
    CHECK(!auth_cache_get(c, "v@h", "$A$stored1", g));
    auth_cache_put(c, "u@h", "$A$stored2", d);
    CHECK_EQ_INT(auth_cache_count(c), 1);
    CHECK(auth_cache_get(c, "u@h", "$A$stored2", g));
    for (int i = 0; i < 1000; i++) {
        char k[32];
        snprintf(k, sizeof k, "user%d@%%", i);
        auth_cache_put(c, k, "s", d);
    }
    CHECK_EQ_INT(auth_cache_count(c), 1001);
    auth_cache_forget(c, "u@h");
    CHECK(!auth_cache_get(c, "u@h", "$A$stored2", g));
    CHECK(auth_cache_get(c, "user999@%", "s", g));
    auth_cache_clear(c);
    CHECK_EQ_INT(auth_cache_count(c), 0);
    auth_cache_free(c);
}

TEST(test_session_native)
{
    char st[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_NATIVE, "secret", 6, st);
    auth_session_t s;
    buf_t out;
    buf_init(&out);
    uint8_t r[20];
    auth_native_response("secret", 6, SCR, r);

    auth_session_init(&s, NULL, SCR, "mysql_native_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "mysql_native_password", r, 20, &out), AUTH_OK);
    CHECK_EQ_INT(out.len, 0);
    CHECK_EQ_INT(s.state, AUTH_STATE_DONE);

    /* No CLIENT_PLUGIN_AUTH: the client used native. */
    auth_session_init(&s, NULL, SCR, "mysql_native_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, NULL, r, 20, &out), AUTH_OK);

    r[0] ^= 1;
    auth_session_init(&s, NULL, SCR, "mysql_native_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "mysql_native_password", r, 20, &out), AUTH_FAIL);
    CHECK_EQ_STR(auth_session_used_password(&s), "YES");

    auth_session_init(&s, NULL, SCR, "mysql_native_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "mysql_native_password", NULL, 0, &out), AUTH_FAIL);
    CHECK_EQ_STR(auth_session_used_password(&s), "NO");

    /* Unknown account. */
    auth_session_init(&s, NULL, SCR, NULL, NULL, "x@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "mysql_native_password", r, 20, &out), AUTH_FAIL);

    /* Empty password account. */
    auth_session_init(&s, NULL, SCR, "mysql_native_password", "", "root@localhost", false);
    CHECK_EQ_INT(auth_session_start(&s, "mysql_native_password", NULL, 0, &out), AUTH_OK);

    /* Input after DONE is refused. */
    CHECK_EQ_INT(auth_session_continue(&s, r, 20, &out), AUTH_FAIL);
    buf_free(&out);
}

TEST(test_session_switch)
{
    char st[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_NATIVE, "secret", 6, st);
    auth_session_t s;
    buf_t out;
    buf_init(&out);
    uint8_t junk[32] = {1, 2, 3};

    /* Client speaks sha2, account is native: switch to native. */
    auth_session_init(&s, NULL, SCR, "mysql_native_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", junk, 32, &out), AUTH_NEED_SWITCH);
    const char *name = "mysql_native_password";
    REQUIRE(out.len == 1 + strlen(name) + 1 + 20 + 1);
    CHECK_EQ_INT(out.data[0], 0xFE);
    CHECK(!memcmp(out.data + 1, name, strlen(name) + 1));
    CHECK(!memcmp(out.data + 2 + strlen(name), SCR, 20));
    CHECK_EQ_INT(out.data[out.len - 1], 0);
    uint8_t r[20];
    auth_native_response("secret", 6, SCR, r);
    CHECK_EQ_INT(auth_session_continue(&s, r, 20, &out), AUTH_OK);

    /* Unknown client plugin (e.g. client_ed25519): switch too, then fail on a wrong answer. */
    auth_session_init(&s, NULL, SCR, "mysql_native_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "client_ed25519", junk, 32, &out), AUTH_NEED_SWITCH);
    CHECK_EQ_INT(auth_session_continue(&s, junk, 20, &out), AUTH_FAIL);

    /* Native client, sha2 account: switch to caching_sha2_password, then full auth. */
    char st2[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_SHA2, "secret", 6, st2);
    auth_session_init(&s, NULL, SCR, "caching_sha2_password", st2, "u@%", true);
    CHECK_EQ_INT(auth_session_start(&s, "mysql_native_password", r, 20, &out), AUTH_NEED_SWITCH);
    CHECK(!memcmp(out.data + 1, "caching_sha2_password", 22));
    uint8_t r2[32];
    auth_sha2_response("secret", 6, SCR, r2);
    CHECK_EQ_INT(auth_session_continue(&s, r2, 32, &out), AUTH_SEND_MORE);
    REQUIRE(out.len == 2);
    CHECK(out.data[0] == 0x01 && out.data[1] == 0x04);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secret", 7, &out), AUTH_OK);
    buf_free(&out);
}

TEST(test_session_sha2)
{
    char st[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_SHA2, "secret", 6, st);
    auth_cache_t *cache = auth_cache_new();
    auth_server_t srv = {.cache = cache};
    auth_session_t s;
    buf_t out;
    buf_init(&out);
    uint8_t r[32];
    auth_sha2_response("secret", 6, SCR, r);

    /* 1. Nothing cached: full authentication over TLS. */
    auth_session_init(&s, &srv, SCR, "caching_sha2_password", st, "u@%", true);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_SEND_MORE);
    REQUIRE(out.len == 2);
    CHECK(out.data[0] == 0x01 && out.data[1] == 0x04);
    CHECK_EQ_INT(s.state, AUTH_STATE_SHA2_FULL);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secret", 7, &out), AUTH_OK);
    CHECK_EQ_INT(auth_cache_count(cache), 1);

    /* 2. Now cached: fast path, AUTH_OK with fast_auth_success to send first. */
    uint8_t scr2[20];
    auth_scramble_generate(scr2);
    auth_sha2_response("secret", 6, scr2, r);
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", st, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_OK);
    REQUIRE(out.len == 2);
    CHECK(out.data[0] == 0x01 && out.data[1] == 0x03);

    /* 3. Wrong password with a cache entry: full authentication is asked for (as MySQL does), then fails. */
    auth_sha2_response("secreT", 6, scr2, r);
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", st, "u@%", true);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_SEND_MORE);
    CHECK(out.len == 2 && out.data[1] == 0x04);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secreT", 7, &out), AUTH_FAIL);
    CHECK_EQ_STR(auth_session_used_password(&s), "YES");
    /* ... and a right password scrambled with a 21-byte nonce (PyMySQL after a switch) gets in the full way. */
    {
        uint8_t d1[32], d2[32], mix[32], nonce_nul[32 + 21];
        EVP_Digest("secret", 6, d1, NULL, EVP_sha256(), NULL);
        EVP_Digest(d1, 32, d2, NULL, EVP_sha256(), NULL);
        memcpy(nonce_nul, d2, 32);
        memcpy(nonce_nul + 32, scr2, 20);
        nonce_nul[52] = 0;
        EVP_Digest(nonce_nul, 53, mix, NULL, EVP_sha256(), NULL);
        for (int i = 0; i < 32; i++)
            r[i] = d1[i] ^ mix[i];
        auth_session_init(&s, &srv, scr2, "caching_sha2_password", st, "u@%", true);
        CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_SEND_MORE);
        CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secret", 7, &out), AUTH_OK);
    }

    /* 4. Password changed (new stored form): the old cache entry does not answer. */
    char st_new[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_SHA2, "secret", 6, st_new);
    auth_sha2_response("secret", 6, scr2, r);
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", st_new, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_SEND_MORE);
    CHECK(out.data[1] == 0x04);
    /* 5. Full auth on an insecure transport without an RSA key: cleartext refused, 0x02 refused. */
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secret", 7, &out), AUTH_FAIL);
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", st_new, "u@%", false);
    auth_session_start(&s, "caching_sha2_password", r, 32, &out);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"\x02", 1, &out), AUTH_FAIL);

    /* 6. Wrong cleartext over TLS. */
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", st_new, "u@%", true);
    auth_session_start(&s, "caching_sha2_password", r, 32, &out);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secreT", 7, &out), AUTH_FAIL);

    /* 7. Empty password accounts: libmysql sends one NUL, PyMySQL nothing. */
    auth_server_t srv2_sha = {.cache = cache, .greeting_plugin = "caching_sha2_password"};
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", "", "e@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", (const uint8_t *)"", 1, &out), AUTH_OK);
    CHECK_EQ_STR(auth_session_used_password(&s), "NO");
    auth_session_init(&s, &srv2_sha, scr2, "caching_sha2_password", "", "e@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", NULL, 0, &out), AUTH_OK);
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", "", "e@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_FAIL);
    /* ... and a password account given no password. */
    auth_session_init(&s, &srv2_sha, scr2, "caching_sha2_password", st_new, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", NULL, 0, &out), AUTH_FAIL);
    CHECK_EQ_STR(auth_session_used_password(&s), "NO");

    /* 8. libmariadb --default-auth=caching_sha2_password against a native greeting: empty response, same
     *    plugin as the account; the server must switch so the client computes a real response. */
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", st_new, "u@%", true);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", NULL, 0, &out), AUTH_NEED_SWITCH);
    CHECK(!memcmp(out.data + 1, "caching_sha2_password", 22));
    auth_sha2_response("secret", 6, scr2, r);
    CHECK_EQ_INT(auth_session_continue(&s, r, 32, &out), AUTH_SEND_MORE); /* new stored form: not cached */
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"secret", 7, &out), AUTH_OK);
    /* ... an empty-password account the same way: switch, then the empty answer is accepted. */
    auth_session_init(&s, &srv, scr2, "caching_sha2_password", "", "e@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", NULL, 0, &out), AUTH_NEED_SWITCH);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"", 1, &out), AUTH_OK);
    /* ... but not when the greeting named caching_sha2_password: then empty means no password. */
    auth_server_t srv2 = {.cache = cache, .greeting_plugin = "caching_sha2_password"};
    auth_session_init(&s, &srv2, scr2, "caching_sha2_password", st_new, "u@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", NULL, 0, &out), AUTH_FAIL);

    buf_free(&out);
    auth_cache_free(cache);
}

/* The client side of the RSA exchange, as libmysql/PyMySQL do it. */
static size_t rsa_client_encrypt(const char *pem, const char *pw, const uint8_t scr[20], uint8_t *out)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *pub = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (!pub)
        return 0;
    size_t n = strlen(pw) + 1;
    uint8_t plain[256];
    memcpy(plain, pw, n);
    for (size_t i = 0; i < n; i++)
        plain[i] ^= scr[i % 20];
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pub, NULL);
    size_t olen = 512;
    int ok = EVP_PKEY_encrypt_init(ctx) == 1 && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1 &&
             EVP_PKEY_encrypt(ctx, out, &olen, plain, n) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pub);
    return ok ? olen : 0;
}

TEST(test_session_sha2_rsa)
{
    EVP_PKEY *key = EVP_RSA_gen(2048);
    REQUIRE(key);
    BIO *bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, key);
    char *p;
    long n = BIO_get_mem_data(bio, &p);
    char *pem = mem_strndup(p, (size_t)n);
    BIO_free(bio);

    char st[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_SHA2, "rsa-pw", 6, st);
    auth_cache_t *cache = auth_cache_new();
    auth_server_t srv = {.cache = cache, .rsa_key = key, .rsa_public_pem = pem};
    auth_session_t s;
    buf_t out;
    buf_init(&out);
    uint8_t r[32], enc[512];
    auth_sha2_response("rsa-pw", 6, SCR, r);

    auth_session_init(&s, &srv, SCR, "caching_sha2_password", st, "r@%", false);
    CHECK_EQ_INT(auth_session_start(&s, "caching_sha2_password", r, 32, &out), AUTH_SEND_MORE);
    CHECK_EQ_INT(auth_session_continue(&s, (const uint8_t *)"\x02", 1, &out), AUTH_SEND_MORE);
    REQUIRE(out.len == 1 + strlen(pem));
    CHECK_EQ_INT(out.data[0], 0x01);
    CHECK(!memcmp(out.data + 1, pem, strlen(pem)));
    size_t elen = rsa_client_encrypt(pem, "rsa-pw", SCR, enc);
    REQUIRE(elen == 256);
    CHECK_EQ_INT(auth_session_continue(&s, enc, elen, &out), AUTH_OK);
    CHECK_EQ_INT(auth_cache_count(cache), 1);

    /* Wrong password, and a client that already had the key (sends the 256 bytes right away). */
    auth_cache_clear(cache);
    auth_session_init(&s, &srv, SCR, "caching_sha2_password", st, "r@%", false);
    auth_session_start(&s, "caching_sha2_password", r, 32, &out);
    elen = rsa_client_encrypt(pem, "rsa-pX", SCR, enc);
    CHECK_EQ_INT(auth_session_continue(&s, enc, elen, &out), AUTH_FAIL);
    auth_session_init(&s, &srv, SCR, "caching_sha2_password", st, "r@%", false);
    auth_session_start(&s, "caching_sha2_password", r, 32, &out);
    elen = rsa_client_encrypt(pem, "rsa-pw", SCR, enc);
    CHECK_EQ_INT(auth_session_continue(&s, enc, elen, &out), AUTH_OK);
    /* Garbage of the right size. */
    auth_session_init(&s, &srv, SCR, "caching_sha2_password", st, "r@%", false);
    auth_session_start(&s, "caching_sha2_password", r, 32, &out);
    memset(enc, 0x55, 256);
    CHECK_EQ_INT(auth_session_continue(&s, enc, 256, &out), AUTH_FAIL);

    buf_free(&out);
    auth_cache_free(cache);
    mem_free(pem);
    EVP_PKEY_free(key);
}

UNIT_MAIN(test_scramble, test_scramble_rng_failure, test_native_hash, test_native_response, test_sha256_crypt, test_sha2_stored,
          test_sha2_response, test_cache, test_session_native, test_session_switch, test_session_sha2,
          test_session_sha2_rsa)
