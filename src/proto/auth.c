/*
 * Password authentication plugins (see auth.h for the wire payloads and the state diagram).
 *
 * Stored forms (what the account store keeps, and SHOW CREATE USER prints):
 *
 *   mysql_native_password   "*" + 40 uppercase hex digits of SHA1(SHA1(password)); "" = no password
 *
 *   caching_sha2_password   offset size
 *                            0      3   "$A$"            digest type A = SHA256-crypt
 *                            3      3   "%03X"           rounds / 1000, hexadecimal ("005" = 5000 rounds)
 *                            6      1   "$"
 *                            7     20   salt             bytes 0x01..0x7f except '$' (ours: printable, no quotes)
 *                           27     43   digest           SHA256-crypt (Drepper's SHA-crypt, as crypt(3) "$5$"
 *                                                        but with a 20-byte salt) in crypt's base64 alphabet
 *                           "" = no password
 *
 * The SHA256-crypt here is written from Drepper's specification (people.redhat.com/drepper/SHA-crypt.txt); with
 * salts of 16 bytes or less it equals glibc's crypt("$5$rounds=N$salt"), which the unit test checks.
 */
#include <pthread.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "proto/auth.h"
#include "util/util.h"

/* --- digests ----------------------------------------------------------------------------------------- */

typedef struct {
    EVP_MD_CTX *ctx;
} md_t;

static void md_init(md_t *m, const EVP_MD *type)
{
    m->ctx = EVP_MD_CTX_new();
    ASSERT(m->ctx && EVP_DigestInit_ex(m->ctx, type, NULL) == 1);
}

static void md_reset(md_t *m, const EVP_MD *type) { ASSERT(EVP_DigestInit_ex(m->ctx, type, NULL) == 1); }

static void md_update(md_t *m, const void *p, size_t n)
{
    if (n)
        ASSERT(EVP_DigestUpdate(m->ctx, p, n) == 1);
}

static void md_final(md_t *m, uint8_t *out) { ASSERT(EVP_DigestFinal_ex(m->ctx, out, NULL) == 1); }

static void md_free(md_t *m)
{
    EVP_MD_CTX_free(m->ctx);
    m->ctx = NULL;
}

static void sha1(const void *p, size_t n, uint8_t out[20])
{
    ASSERT(EVP_Digest(p, n, out, NULL, EVP_sha1(), NULL) == 1);
}

static void sha256(const void *p, size_t n, uint8_t out[32])
{
    ASSERT(EVP_Digest(p, n, out, NULL, EVP_sha256(), NULL) == 1);
}

/* Constant-time comparison, so response checks do not leak how many bytes matched. */
static bool mem_equal_ct(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/* --- plugin names ------------------------------------------------------------------------------------ */

const char *auth_plugin_name(enum auth_plugin p)
{
    switch (p) {
    case AUTH_PLUGIN_NATIVE:
        return AUTH_PLUGIN_NATIVE_NAME;
    case AUTH_PLUGIN_SHA2:
        return AUTH_PLUGIN_SHA2_NAME;
    default:
        return "";
    }
}

enum auth_plugin auth_plugin_from_name(const char *name)
{
    if (!name)
        return AUTH_PLUGIN_NONE;
    if (!strcasecmp(name, AUTH_PLUGIN_NATIVE_NAME))
        return AUTH_PLUGIN_NATIVE;
    if (!strcasecmp(name, AUTH_PLUGIN_SHA2_NAME))
        return AUTH_PLUGIN_SHA2;
    return AUTH_PLUGIN_NONE;
}

/* --- random strings ---------------------------------------------------------------------------------- */

/* n random bytes from `alphabet`, by rejection sampling so every character is equally likely. */
static void random_from(uint8_t *out, size_t n, const char *alphabet)
{
    size_t alen = strlen(alphabet);
    unsigned limit = 256 - 256 % alen;
    size_t i = 0;
    while (i < n) {
        uint8_t r[64];
        ASSERT(RAND_bytes(r, sizeof r) == 1);
        for (size_t j = 0; j < sizeof r && i < n; j++)
            if (r[j] < limit)
                out[i++] = (uint8_t)alphabet[r[j] % alen];
    }
}

/* Printable ASCII 0x21..0x7e without '$'. */
static const char scramble_alphabet[] = "!\"#%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
                                        "abcdefghijklmnopqrstuvwxyz{|}~";
/* Salts also avoid quotes and backslash, so stored forms print cleanly in SHOW CREATE USER. */
static const char salt_alphabet[] = "!#%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_"
                                    "abcdefghijklmnopqrstuvwxyz{|}~";

void auth_scramble_generate(uint8_t out[AUTH_SCRAMBLE_LEN])
{
    random_from(out, AUTH_SCRAMBLE_LEN, scramble_alphabet);
}

/* --- mysql_native_password ---------------------------------------------------------------------------- */

static const char hex_upper[] = "0123456789ABCDEF";

void auth_native_hash(const char *pw, size_t pw_len, char out[AUTH_NATIVE_HASH_LEN + 1])
{
    uint8_t s1[20], s2[20];
    sha1(pw, pw_len, s1);
    sha1(s1, 20, s2);
    out[0] = '*';
    for (int i = 0; i < 20; i++) {
        out[1 + 2 * i] = hex_upper[s2[i] >> 4];
        out[2 + 2 * i] = hex_upper[s2[i] & 15];
    }
    out[AUTH_NATIVE_HASH_LEN] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* "*HEX" -> the 20 bytes of SHA1(SHA1(pw)). */
static bool native_stage2(const char *stored, uint8_t out[20])
{
    if (strlen(stored) != AUTH_NATIVE_HASH_LEN || stored[0] != '*')
        return false;
    for (int i = 0; i < 20; i++) {
        int hi = hexval(stored[1 + 2 * i]), lo = hexval(stored[2 + 2 * i]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
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
    if (resp_len != 20 || !native_stage2(stored, s2))
        return false;
    /* The response XOR SHA1(scramble + stage2) gives the client's SHA1(pw); its SHA1 must be stage2. */
    uint8_t tmp[AUTH_SCRAMBLE_LEN + 20], mix[20], s1[20], check[20];
    memcpy(tmp, scramble, AUTH_SCRAMBLE_LEN);
    memcpy(tmp + AUTH_SCRAMBLE_LEN, s2, 20);
    sha1(tmp, sizeof tmp, mix);
    for (int i = 0; i < 20; i++)
        s1[i] = resp[i] ^ mix[i];
    sha1(s1, 20, check);
    return mem_equal_ct(check, s2, 20);
}

/* --- caching_sha2_password: SHA256-crypt ------------------------------------------------------------- */

static const char crypt_b64[] = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

static char *b64_24(char *p, uint8_t b2, uint8_t b1, uint8_t b0, int n)
{
    uint32_t w = (uint32_t)b2 << 16 | (uint32_t)b1 << 8 | b0;
    while (n-- > 0) {
        *p++ = crypt_b64[w & 63];
        w >>= 6;
    }
    return p;
}

/* Drepper's SHA-crypt with SHA-256: 43 characters into out (no NUL). */
static void sha256_crypt(const uint8_t *pw, size_t pl, const uint8_t *salt, size_t sl, unsigned rounds,
                         char out[AUTH_SHA2_DIGEST_B64_LEN])
{
    const EVP_MD *md = EVP_sha256();
    md_t a, b;
    uint8_t A[32], B[32], DP[32], DS[32], C[32];
    md_init(&a, md);
    md_init(&b, md);

    /* B = H(pw salt pw) */
    md_update(&b, pw, pl);
    md_update(&b, salt, sl);
    md_update(&b, pw, pl);
    md_final(&b, B);

    /* A = H(pw salt B-repeated-to-pl, then for each bit of pl: 1 -> B, 0 -> pw) */
    md_update(&a, pw, pl);
    md_update(&a, salt, sl);
    size_t i;
    for (i = pl; i > 32; i -= 32)
        md_update(&a, B, 32);
    md_update(&a, B, i);
    for (i = pl; i > 0; i >>= 1) {
        if (i & 1)
            md_update(&a, B, 32);
        else
            md_update(&a, pw, pl);
    }
    md_final(&a, A);

    /* DP = H(pw repeated pl times); P = DP repeated to pl bytes */
    md_reset(&b, md);
    for (i = 0; i < pl; i++)
        md_update(&b, pw, pl);
    md_final(&b, DP);
    uint8_t *P = mem_alloc(pl ? pl : 1);
    for (i = 0; i < pl; i++)
        P[i] = DP[i % 32];

    /* DS = H(salt repeated 16 + A[0] times); S = DS repeated to sl bytes */
    md_reset(&b, md);
    for (i = 0; i < 16u + A[0]; i++)
        md_update(&b, salt, sl);
    md_final(&b, DS);
    uint8_t S[64];
    for (i = 0; i < sl; i++)
        S[i] = DS[i % 32];

    /* The rounds. */
    memcpy(C, A, 32);
    for (unsigned r = 0; r < rounds; r++) {
        md_reset(&b, md);
        if (r & 1)
            md_update(&b, P, pl);
        else
            md_update(&b, C, 32);
        if (r % 3)
            md_update(&b, S, sl);
        if (r % 7)
            md_update(&b, P, pl);
        if (r & 1)
            md_update(&b, C, 32);
        else
            md_update(&b, P, pl);
        md_final(&b, C);
    }

    char *p = out;
    p = b64_24(p, C[0], C[10], C[20], 4);
    p = b64_24(p, C[21], C[1], C[11], 4);
    p = b64_24(p, C[12], C[22], C[2], 4);
    p = b64_24(p, C[3], C[13], C[23], 4);
    p = b64_24(p, C[24], C[4], C[14], 4);
    p = b64_24(p, C[15], C[25], C[5], 4);
    p = b64_24(p, C[6], C[16], C[26], 4);
    p = b64_24(p, C[27], C[7], C[17], 4);
    p = b64_24(p, C[18], C[28], C[8], 4);
    p = b64_24(p, C[9], C[19], C[29], 4);
    p = b64_24(p, 0, C[31], C[30], 3);
    ASSERT(p - out == AUTH_SHA2_DIGEST_B64_LEN);

    OPENSSL_cleanse(P, pl);
    mem_free(P);
    OPENSSL_cleanse(A, sizeof A);
    OPENSSL_cleanse(DP, sizeof DP);
    md_free(&a);
    md_free(&b);
}

/* Exposed for the unit test's comparison with glibc crypt(3); not in auth.h. */
void auth_sha256_crypt_for_test(const char *pw, const char *salt, unsigned rounds, char out[44]);
void auth_sha256_crypt_for_test(const char *pw, const char *salt, unsigned rounds, char out[44])
{
    sha256_crypt((const uint8_t *)pw, strlen(pw), (const uint8_t *)salt, strlen(salt), rounds, out);
    out[43] = '\0';
}

void auth_sha2_hash(const char *pw, size_t pw_len, const uint8_t *salt, unsigned rounds,
                    char out[AUTH_SHA2_HASH_LEN + 1])
{
    uint8_t s[AUTH_SHA2_SALT_LEN];
    if (salt)
        memcpy(s, salt, sizeof s);
    else
        random_from(s, sizeof s, salt_alphabet);
    if (rounds < 1000 || rounds % 1000 || rounds > 0xfff * 1000)
        rounds = AUTH_SHA2_ROUNDS;
    snprintf(out, 8, "$A$%03X$", rounds / 1000);
    memcpy(out + 7, s, AUTH_SHA2_SALT_LEN);
    sha256_crypt((const uint8_t *)pw, pw_len, s, sizeof s, rounds, out + 7 + AUTH_SHA2_SALT_LEN);
    out[AUTH_SHA2_HASH_LEN] = '\0';
}

/* Parses "$A$RRR$" + salt + digest; returns rounds, or 0 if malformed. */
static unsigned sha2_parse(const char *s, size_t len)
{
    if (len != AUTH_SHA2_HASH_LEN || memcmp(s, "$A$", 3) != 0 || s[6] != '$')
        return 0;
    unsigned r = 0;
    for (int i = 3; i < 6; i++) {
        int v = hexval(s[i]);
        if (v < 0)
            return 0;
        r = r * 16 + (unsigned)v;
    }
    if (r == 0)
        return 0;
    for (int i = 7; i < 7 + AUTH_SHA2_SALT_LEN; i++)
        if (s[i] == '\0' || s[i] == '$' || (uint8_t)s[i] > 0x7f)
            return 0;
    for (int i = 7 + AUTH_SHA2_SALT_LEN; i < AUTH_SHA2_HASH_LEN; i++)
        if (!strchr(crypt_b64, s[i]) || !s[i])
            return 0;
    return r * 1000;
}

bool auth_sha2_verify_plain(const char *stored, const char *pw, size_t pw_len)
{
    if (!stored || !stored[0])
        return pw_len == 0;
    unsigned rounds = sha2_parse(stored, strlen(stored));
    if (!rounds || pw_len == 0)
        return false;
    char dig[AUTH_SHA2_DIGEST_B64_LEN];
    sha256_crypt((const uint8_t *)pw, pw_len, (const uint8_t *)stored + 7, AUTH_SHA2_SALT_LEN, rounds, dig);
    return mem_equal_ct((const uint8_t *)dig, (const uint8_t *)stored + 7 + AUTH_SHA2_SALT_LEN,
                        AUTH_SHA2_DIGEST_B64_LEN);
}

bool auth_stored_valid(enum auth_plugin p, const char *s, size_t len)
{
    if (len == 0)
        return true;
    if (memchr(s, '\0', len))
        return false;
    if (p == AUTH_PLUGIN_NATIVE) {
        uint8_t tmp[20];
        return len == AUTH_NATIVE_HASH_LEN && native_stage2(s, tmp);
    }
    if (p == AUTH_PLUGIN_SHA2)
        return sha2_parse(s, len) != 0;
    return false;
}

size_t auth_stored_from_password(enum auth_plugin p, const char *pw, size_t pw_len, char out[AUTH_STORED_MAX])
{
    out[0] = '\0';
    if (pw_len == 0)
        return 0;
    if (p == AUTH_PLUGIN_NATIVE)
        auth_native_hash(pw, pw_len, out);
    else if (p == AUTH_PLUGIN_SHA2)
        auth_sha2_hash(pw, pw_len, NULL, AUTH_SHA2_ROUNDS, out);
    return strlen(out);
}

/* Fast-path scramble: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble). */
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
    return mem_equal_ct(check, cached, 32);
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
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *k; k++)
        h = (h ^ (uint8_t)*k) * 16777619u;
    return h % CACHE_BUCKETS;
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
    s->plugin = s->known ? auth_plugin_from_name(account_plugin) : AUTH_PLUGIN_NONE;
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
    bool ok = auth_sha2_verify_plain(s->stored, pw, len);
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
    if (s->plugin == AUTH_PLUGIN_NATIVE) {
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
        if (!ok)
            return finish(s, false);
        /* fast_auth_success goes out before the OK packet (AUTH_OK with a non-empty `out`). */
        static const uint8_t fast_ok = 0x03;
        put_more(out, &fast_ok, 1);
        return finish(s, true);
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
    if (!s->known || s->plugin == AUTH_PLUGIN_NONE)
        return finish(s, false);
    enum auth_plugin cp = (client_plugin && client_plugin[0]) ? auth_plugin_from_name(client_plugin)
                                                              : AUTH_PLUGIN_NATIVE;
    if (cp != s->plugin) {
        /* AuthSwitchRequest: 0xFE, plugin name, NUL, scramble, NUL. */
        const char *name = auth_plugin_name(s->plugin);
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
