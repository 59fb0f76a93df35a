/*
 * Stored password forms of the two authentication plugins (see password.h); the layout is drawn there.
 *
 * The SHA256-crypt here is written from Drepper's specification (people.redhat.com/drepper/SHA-crypt.txt); with
 * salts of 16 bytes or less it equals glibc's crypt("$5$rounds=N$salt"), which the unit test checks.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "util/password.h"
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


/* Constant-time comparison, so response checks do not leak how many bytes matched. */
bool password_memeq(const void *a_, const void *b_, size_t n)
{
    const uint8_t *a = a_, *b = b_;
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/* --- plugin names ------------------------------------------------------------------------------------ */

const char *password_plugin_name(enum password_plugin p)
{
    switch (p) {
    case PASSWORD_PLUGIN_NATIVE:
        return PASSWORD_PLUGIN_NATIVE_NAME;
    case PASSWORD_PLUGIN_SHA2:
        return PASSWORD_PLUGIN_SHA2_NAME;
    default:
        return "";
    }
}

enum password_plugin password_plugin_from_name(const char *name)
{
    if (!name)
        return PASSWORD_PLUGIN_NONE;
    if (!strcasecmp(name, PASSWORD_PLUGIN_NATIVE_NAME))
        return PASSWORD_PLUGIN_NATIVE;
    if (!strcasecmp(name, PASSWORD_PLUGIN_SHA2_NAME))
        return PASSWORD_PLUGIN_SHA2;
    return PASSWORD_PLUGIN_NONE;
}

/* --- random strings ---------------------------------------------------------------------------------- */

static int rng_openssl(uint8_t *out, int n) { return RAND_bytes(out, n) == 1 ? 0 : -1; }

static password_rng_fn rng = rng_openssl;

password_rng_fn password_set_rng(password_rng_fn fn)
{
    password_rng_fn old = rng;
    rng = fn ? fn : rng_openssl;
    return old;
}

/* n random bytes from `alphabet`, by rejection sampling so every character is equally likely.  There is no
 * weaker fallback: without the RNG there is no value fit for a scramble or a salt. */
int password_random_chars(uint8_t *out, size_t n, const char *alphabet)
{
    size_t alen = strlen(alphabet);
    unsigned limit = 256 - 256 % alen;
    size_t i = 0;
    while (i < n) {
        uint8_t r[64];
        if (rng(r, sizeof r) != 0)
            return -1;
        for (size_t j = 0; j < sizeof r && i < n; j++)
            if (r[j] < limit)
                out[i++] = (uint8_t)alphabet[r[j] % alen];
    }
    return 0;
}

/* Printable ASCII 0x21..0x7e without '$'. */
const char PASSWORD_SCRAMBLE_CHARS[] = "!\"#%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
                                        "abcdefghijklmnopqrstuvwxyz{|}~";
/* Salts also avoid quotes and backslash, so stored forms print cleanly in SHOW CREATE USER. */
static const char salt_alphabet[] = "!#%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_"
                                    "abcdefghijklmnopqrstuvwxyz{|}~";

/* --- mysql_native_password ---------------------------------------------------------------------------- */

static const char hex_upper[] = "0123456789ABCDEF";

void password_native_hash(const char *pw, size_t pw_len, char out[PASSWORD_NATIVE_HASH_LEN + 1])
{
    uint8_t s1[20], s2[20];
    sha1(pw, pw_len, s1);
    sha1(s1, 20, s2);
    out[0] = '*';
    for (int i = 0; i < 20; i++) {
        out[1 + 2 * i] = hex_upper[s2[i] >> 4];
        out[2 + 2 * i] = hex_upper[s2[i] & 15];
    }
    out[PASSWORD_NATIVE_HASH_LEN] = '\0';
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
bool password_native_stage2(const char *stored, uint8_t out[20])
{
    if (strlen(stored) != PASSWORD_NATIVE_HASH_LEN || stored[0] != '*')
        return false;
    for (int i = 0; i < 20; i++) {
        int hi = hexval(stored[1 + 2 * i]), lo = hexval(stored[2 + 2 * i]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
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
                         char out[PASSWORD_SHA2_DIGEST_B64_LEN])
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
    ASSERT(p - out == PASSWORD_SHA2_DIGEST_B64_LEN);

    OPENSSL_cleanse(P, pl);
    mem_free(P);
    OPENSSL_cleanse(A, sizeof A);
    OPENSSL_cleanse(DP, sizeof DP);
    md_free(&a);
    md_free(&b);
}

/* Exposed for the unit test's comparison with glibc crypt(3); not in password.h. */
void password_sha256_crypt_for_test(const char *pw, const char *salt, unsigned rounds, char out[44]);
void password_sha256_crypt_for_test(const char *pw, const char *salt, unsigned rounds, char out[44])
{
    sha256_crypt((const uint8_t *)pw, strlen(pw), (const uint8_t *)salt, strlen(salt), rounds, out);
    out[43] = '\0';
}

void password_sha2_hash(const char *pw, size_t pw_len, const uint8_t *salt, unsigned rounds,
                    char out[PASSWORD_SHA2_HASH_LEN + 1])
{
    uint8_t s[PASSWORD_SHA2_SALT_LEN];
    if (salt)
        memcpy(s, salt, sizeof s);
    else
        ASSERT(password_random_chars(s, sizeof s, salt_alphabet) == 0); /* no salt: no safe stored form */
    if (rounds < 1000 || rounds % 1000 || rounds > 0xfff * 1000)
        rounds = PASSWORD_SHA2_ROUNDS;
    snprintf(out, 8, "$A$%03X$", rounds / 1000);
    memcpy(out + 7, s, PASSWORD_SHA2_SALT_LEN);
    sha256_crypt((const uint8_t *)pw, pw_len, s, sizeof s, rounds, out + 7 + PASSWORD_SHA2_SALT_LEN);
    out[PASSWORD_SHA2_HASH_LEN] = '\0';
}

/* Parses "$A$RRR$" + salt + digest; returns rounds, or 0 if malformed. */
static unsigned sha2_parse(const char *s, size_t len)
{
    if (len != PASSWORD_SHA2_HASH_LEN || memcmp(s, "$A$", 3) != 0 || s[6] != '$')
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
    for (int i = 7; i < 7 + PASSWORD_SHA2_SALT_LEN; i++)
        if (s[i] == '\0' || s[i] == '$' || (uint8_t)s[i] > 0x7f)
            return 0;
    for (int i = 7 + PASSWORD_SHA2_SALT_LEN; i < PASSWORD_SHA2_HASH_LEN; i++)
        if (!strchr(crypt_b64, s[i]) || !s[i])
            return 0;
    return r * 1000;
}

bool password_sha2_verify(const char *stored, const char *pw, size_t pw_len)
{
    if (!stored || !stored[0])
        return pw_len == 0;
    unsigned rounds = sha2_parse(stored, strlen(stored));
    if (!rounds || pw_len == 0 || pw_len > PASSWORD_SHA2_MAX)
        return false;
    char dig[PASSWORD_SHA2_DIGEST_B64_LEN];
    sha256_crypt((const uint8_t *)pw, pw_len, (const uint8_t *)stored + 7, PASSWORD_SHA2_SALT_LEN, rounds, dig);
    return password_memeq((const uint8_t *)dig, (const uint8_t *)stored + 7 + PASSWORD_SHA2_SALT_LEN,
                        PASSWORD_SHA2_DIGEST_B64_LEN);
}

bool password_stored_valid(enum password_plugin p, const char *s, size_t len)
{
    if (len == 0)
        return true;
    if (memchr(s, '\0', len))
        return false;
    if (p == PASSWORD_PLUGIN_NATIVE) {
        uint8_t tmp[20];
        return len == PASSWORD_NATIVE_HASH_LEN && password_native_stage2(s, tmp);
    }
    if (p == PASSWORD_PLUGIN_SHA2)
        return sha2_parse(s, len) != 0;
    return false;
}

size_t password_stored_from(enum password_plugin p, const char *pw, size_t pw_len, char out[PASSWORD_STORED_MAX])
{
    out[0] = '\0';
    if (pw_len == 0)
        return 0;
    if (p == PASSWORD_PLUGIN_NATIVE)
        password_native_hash(pw, pw_len, out);
    else if (p == PASSWORD_PLUGIN_SHA2)
        password_sha2_hash(pw, MIN(pw_len, (size_t)PASSWORD_SHA2_MAX), NULL, PASSWORD_SHA2_ROUNDS, out);
    return strlen(out);
}

/* Fast-path scramble: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble). */
