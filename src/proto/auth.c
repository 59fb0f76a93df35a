/*
 * Password authentication at login (see auth.h for the wire payloads and the state diagram): the scramble, the
 * client responses of both plugins, caching_sha2's fast-path cache and full/RSA paths, and the per-login state
 * machine.  The stored forms of passwords and their checks live in util/password (shared with session/acl).
 */
#include <pthread.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "proto/auth.h"
#include "util/util.h"
#include "util/hash.h"

static void sha1(const void *p, size_t n, uint8_t out[20])
{
    ASSERT(EVP_Digest(p, n, out, NULL, EVP_sha1(), NULL) == 1);
}

static void sha256(const void *p, size_t n, uint8_t out[32])
{
    ASSERT(EVP_Digest(p, n, out, NULL, EVP_sha256(), NULL) == 1);
}

int auth_scramble_generate(uint8_t out[AUTH_SCRAMBLE_LEN])
{
    return password_random_chars(out, AUTH_SCRAMBLE_LEN, PASSWORD_SCRAMBLE_CHARS);
}

size_t auth_native_response(const char *pw, size_t pw_len, const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                            uint8_t out[20])
{
    if (pw_len == 0)
        return 0;
    uint8_t s1[20], s2[20], mix[20];
    sha1(pw, pw_len, s1);
    sha1(s1, 20, s2);
    uint8_t tmp[AUTH_SCRAMBLE_LEN + 20];
    memcpy(tmp, scramble, AUTH_SCRAMBLE_LEN);
    memcpy(tmp + AUTH_SCRAMBLE_LEN, s2, 20);
    sha1(tmp, sizeof tmp, mix);
    for (int i = 0; i < 20; i++)
        out[i] = s1[i] ^ mix[i];
    return 20;
}

bool auth_native_verify(const char *stored, const uint8_t scramble[AUTH_SCRAMBLE_LEN], const uint8_t *resp,
                        size_t resp_len)
{
    if (!stored || !stored[0])
        return resp_len == 0;
    uint8_t s2[20];
    if (resp_len != 20 || !password_native_stage2(stored, s2))
        return false;
    /* The response XOR SHA1(scramble + stage2) gives the client's SHA1(pw); its SHA1 must be stage2. */
    uint8_t tmp[AUTH_SCRAMBLE_LEN + 20], mix[20], s1[20], check[20];
    memcpy(tmp, scramble, AUTH_SCRAMBLE_LEN);
    memcpy(tmp + AUTH_SCRAMBLE_LEN, s2, 20);
    sha1(tmp, sizeof tmp, mix);
    for (int i = 0; i < 20; i++)
        s1[i] = resp[i] ^ mix[i];
    sha1(s1, 20, check);
    return password_memeq(check, s2, 20);
}

size_t auth_sha2_response(const char *pw, size_t pw_len, const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                          uint8_t out[32])
{
    if (pw_len == 0)
        return 0;
    uint8_t d1[32], d2[32], mix[32];
    sha256(pw, pw_len, d1);
    sha256(d1, 32, d2);
    uint8_t tmp[32 + AUTH_SCRAMBLE_LEN];
    memcpy(tmp, d2, 32);
    memcpy(tmp + 32, scramble, AUTH_SCRAMBLE_LEN);
    sha256(tmp, sizeof tmp, mix);
    for (int i = 0; i < 32; i++)
        out[i] = d1[i] ^ mix[i];
    return 32;
}

/* Server side of the fast path, given the cached SHA256(SHA256(pw)). */
static bool sha2_fast_verify(const uint8_t cached[32], const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                             const uint8_t *resp, size_t resp_len)
{
    if (resp_len != 32)
        return false;
    uint8_t tmp[32 + AUTH_SCRAMBLE_LEN], mix[32], d1[32], check[32];
    memcpy(tmp, cached, 32);
    memcpy(tmp + 32, scramble, AUTH_SCRAMBLE_LEN);
    sha256(tmp, sizeof tmp, mix);
    for (int i = 0; i < 32; i++)
        d1[i] = resp[i] ^ mix[i];
    sha256(d1, 32, check);
    return password_memeq(check, cached, 32);
}

/* --- the cache ---------------------------------------------------------------------------------------- */

#define CACHE_BUCKETS 256

typedef struct cache_entry {
    struct cache_entry *next;
    char *key;
    char *stored;
    uint8_t digest[32];
} cache_entry_t;

struct auth_cache {
    pthread_mutex_t mu;
    cache_entry_t *bucket[CACHE_BUCKETS];
    size_t count;
};

static unsigned cache_hash(const char *k)
{
    return (unsigned)(hash_str(k) % CACHE_BUCKETS);
}

auth_cache_t *auth_cache_new(void)
{
    auth_cache_t *c = mem_calloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

static void cache_entry_free(cache_entry_t *e)
{
    OPENSSL_cleanse(e->digest, sizeof e->digest);
    mem_free(e->key);
    mem_free(e->stored);
    mem_free(e);
}

void auth_cache_clear(auth_cache_t *c)
{
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < CACHE_BUCKETS; i++) {
        cache_entry_t *e = c->bucket[i];
        while (e) {
            cache_entry_t *n = e->next;
            cache_entry_free(e);
            e = n;
        }
        c->bucket[i] = NULL;
    }
    c->count = 0;
    pthread_mutex_unlock(&c->mu);
}

void auth_cache_free(auth_cache_t *c)
{
    if (!c)
        return;
    auth_cache_clear(c);
    pthread_mutex_destroy(&c->mu);
    mem_free(c);
}

void auth_cache_put(auth_cache_t *c, const char *key, const char *stored, const uint8_t digest[32])
{
    unsigned h = cache_hash(key);
    pthread_mutex_lock(&c->mu);
    cache_entry_t *e = c->bucket[h];
    while (e && strcmp(e->key, key))
        e = e->next;
    if (!e) {
        e = mem_calloc(1, sizeof *e);
        e->key = mem_strdup(key);
        e->next = c->bucket[h];
        c->bucket[h] = e;
        c->count++;
    } else {
        mem_free(e->stored);
    }
    e->stored = mem_strdup(stored);
    memcpy(e->digest, digest, 32);
    pthread_mutex_unlock(&c->mu);
}

bool auth_cache_get(auth_cache_t *c, const char *key, const char *stored, uint8_t digest[32])
{
    bool found = false;
    unsigned h = cache_hash(key);
    pthread_mutex_lock(&c->mu);
    for (cache_entry_t *e = c->bucket[h]; e; e = e->next) {
        if (!strcmp(e->key, key)) {
            if (!strcmp(e->stored, stored)) {
                memcpy(digest, e->digest, 32);
                found = true;
            }
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return found;
}

void auth_cache_forget(auth_cache_t *c, const char *key)
{
    unsigned h = cache_hash(key);
    pthread_mutex_lock(&c->mu);
    for (cache_entry_t **pp = &c->bucket[h]; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->key, key)) {
            cache_entry_t *e = *pp;
            *pp = e->next;
            cache_entry_free(e);
            c->count--;
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
}

size_t auth_cache_count(auth_cache_t *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->count;
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* --- the session state machine ------------------------------------------------------------------------ */

void auth_session_init(auth_session_t *s, const auth_server_t *srv, const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                       const char *account_plugin, const char *stored, const char *key, bool secure)
{
    memset(s, 0, sizeof *s);
    s->state = AUTH_STATE_START;
    s->srv = srv;
    memcpy(s->scramble, scramble, AUTH_SCRAMBLE_LEN);
    s->known = account_plugin != NULL;
    s->plugin = s->known ? password_plugin_from_name(account_plugin) : PASSWORD_PLUGIN_NONE;
    snprintf(s->stored, sizeof s->stored, "%s", stored ? stored : "");
    snprintf(s->key, sizeof s->key, "%s", key ? key : "");
    s->secure = secure;
}

const char *auth_session_used_password(const auth_session_t *s) { return s->used_password ? "YES" : "NO"; }

static enum auth_action finish(auth_session_t *s, bool ok)
{
    s->state = AUTH_STATE_DONE;
    return ok ? AUTH_OK : AUTH_FAIL;
}

static void put_more(buf_t *out, const void *p, size_t n)
{
    buf_reset(out);
    buf_append_byte(out, 0x01);
    buf_append(out, p, n);
}

/* A successful full authentication with the cleartext password: fill the cache for the fast path. */
static void sha2_cache_fill(auth_session_t *s, const char *pw, size_t len)
{
    if (!s->srv || !s->srv->cache || !s->stored[0])
        return;
    uint8_t d1[32], d2[32];
    sha256(pw, len, d1);
    sha256(d1, 32, d2);
    auth_cache_put(s->srv->cache, s->key, s->stored, d2);
    OPENSSL_cleanse(d1, sizeof d1);
}

static enum auth_action sha2_check_plain(auth_session_t *s, const char *pw, size_t len)
{
    while (len && pw[len - 1] == '\0') /* the client sends the password with its NUL */
        len--;
    if (len)
        s->used_password = true;
    bool ok = password_sha2_verify(s->stored, pw, len);
    if (ok)
        sha2_cache_fill(s, pw, len);
    return finish(s, ok);
}

/* Client's answer to perform_full_authentication, or the encrypted password after the key was sent. */
static enum auth_action sha2_full(auth_session_t *s, const uint8_t *pkt, size_t len, buf_t *out)
{
    EVP_PKEY *key = s->srv ? (EVP_PKEY *)s->srv->rsa_key : NULL;
    if (s->state == AUTH_STATE_SHA2_FULL && len == 1 && pkt[0] == 0x02) {
        s->used_password = true;
        if (!key || !s->srv->rsa_public_pem)
            return finish(s, false); /* MySQL: no key pair loaded -> access denied */
        put_more(out, s->srv->rsa_public_pem, strlen(s->srv->rsa_public_pem));
        s->state = AUTH_STATE_SHA2_RSA;
        return AUTH_SEND_MORE;
    }
    if (s->secure && s->state == AUTH_STATE_SHA2_FULL)
        return sha2_check_plain(s, (const char *)pkt, len);
    if (!key || len == 0 || len != (size_t)EVP_PKEY_get_size(key))
        return finish(s, false); /* cleartext over an insecure transport is refused */

    s->used_password = true;
    enum auth_action act = AUTH_FAIL;
    uint8_t *plain = NULL;
    size_t plen = 0;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
    if (!ctx || EVP_PKEY_decrypt_init(ctx) != 1 || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) != 1 ||
        EVP_PKEY_decrypt(ctx, NULL, &plen, pkt, len) != 1)
        goto fail;
    plain = mem_alloc(plen);
    if (EVP_PKEY_decrypt(ctx, plain, &plen, pkt, len) != 1)
        goto fail;
    for (size_t i = 0; i < plen; i++)
        plain[i] ^= s->scramble[i % AUTH_SCRAMBLE_LEN];
    act = sha2_check_plain(s, (const char *)plain, plen);
fail:
    ERR_clear_error();
    if (plain) {
        OPENSSL_cleanse(plain, plen);
        mem_free(plain);
    }
    EVP_PKEY_CTX_free(ctx);
    if (act != AUTH_OK)
        return finish(s, false);
    return act;
}

/* The client's response to our scramble with the account's own plugin. */
static enum auth_action respond(auth_session_t *s, const uint8_t *resp, size_t len, buf_t *out)
{
    if (s->plugin == PASSWORD_PLUGIN_NATIVE) {
        if (len)
            s->used_password = true;
        return finish(s, auth_native_verify(s->stored, s->scramble, resp, len));
    }
    /* caching_sha2_password.  Empty password: libmysql sends one NUL byte, PyMySQL nothing. */
    if (len == 0 || (len == 1 && resp[0] == 0))
        return finish(s, s->stored[0] == '\0');
    s->used_password = true;
    if (!s->stored[0])
        return finish(s, false);
    uint8_t cached[32];
    if (len == 32 && s->srv && s->srv->cache && auth_cache_get(s->srv->cache, s->key, s->stored, cached)) {
        bool ok = sha2_fast_verify(cached, s->scramble, resp, len);
        OPENSSL_cleanse(cached, sizeof cached);
        if (ok) {
            /* fast_auth_success goes out before the OK packet (AUTH_OK with a non-empty `out`). */
            static const uint8_t fast_ok = 0x03;
            put_more(out, &fast_ok, 1);
            return finish(s, true);
        }
        /* A mismatch is not a failure yet: as MySQL does, fall back to full authentication.  This matters:
         * after an auth switch PyMySQL scrambles with the 21 bytes it got (the scramble and its NUL), so its fast
         * path never matches and only the full path lets it in. */
    }
    static const uint8_t full = 0x04;
    put_more(out, &full, 1);
    s->state = AUTH_STATE_SHA2_FULL;
    return AUTH_SEND_MORE;
}

enum auth_action auth_session_start(auth_session_t *s, const char *client_plugin, const uint8_t *resp,
                                    size_t resp_len, buf_t *out)
{
    buf_reset(out);
    if (s->state != AUTH_STATE_START)
        return finish(s, false);
    if (resp_len && !(resp_len == 1 && resp[0] == 0))
        s->used_password = true;
    if (!s->known || s->plugin == PASSWORD_PLUGIN_NONE)
        return finish(s, false);
    enum password_plugin cp = (client_plugin && client_plugin[0]) ? password_plugin_from_name(client_plugin)
                                                              : PASSWORD_PLUGIN_NATIVE;
    /* libmariadb with --default-auth naming another plugin than the greeting's sends an empty response (its data
     * was not made for that scramble) and waits for the server to start that plugin: switch, even though the
     * plugins agree. */
    enum password_plugin gp = s->srv && s->srv->greeting_plugin ? password_plugin_from_name(s->srv->greeting_plugin)
                                                            : PASSWORD_PLUGIN_NATIVE;
    bool unprepared = resp_len == 0 && cp != gp;
    if (cp != s->plugin || unprepared) {
        /* AuthSwitchRequest: 0xFE, plugin name, NUL, scramble, NUL. */
        const char *name = password_plugin_name(s->plugin);
        buf_append_byte(out, 0xFE);
        buf_append(out, name, strlen(name) + 1);
        buf_append(out, s->scramble, AUTH_SCRAMBLE_LEN);
        buf_append_byte(out, 0);
        s->used_password = false;
        s->state = AUTH_STATE_SWITCHED;
        return AUTH_NEED_SWITCH;
    }
    return respond(s, resp, resp_len, out);
}

enum auth_action auth_session_continue(auth_session_t *s, const uint8_t *pkt, size_t len, buf_t *out)
{
    buf_reset(out);
    switch (s->state) {
    case AUTH_STATE_SWITCHED:
        s->state = AUTH_STATE_START;
        return respond(s, pkt, len, out);
    case AUTH_STATE_SHA2_FULL:
    case AUTH_STATE_SHA2_RSA:
        return sha2_full(s, pkt, len, out);
    default:
        return finish(s, false);
    }
}
