/*
 * Password authentication plugins: mysql_native_password and caching_sha2_password.
 *
 * Two halves:
 *   - pure functions: the 20-byte scramble, the stored forms of a password (what CREATE USER keeps and SHOW
 *     CREATE USER prints) and the client-side responses (used by tests, and by anything in strata acting as a
 *     client, e.g. a replica);
 *   - auth_session_t, a small state machine the handshake drives.  The handshake creates one per login attempt,
 *     feeds it the client's auth response from HandshakeResponse41 and then every further packet the client sends
 *     during authentication, and is told after each what to do:
 *
 *       AUTH_OK          send `out` first if it is not empty (caching_sha2's fast_auth_success, 0x01 0x03),
 *                        then OK; the client is authenticated
 *       AUTH_FAIL        send ERR 1045 (auth_session_used_password() says "YES" or "NO")
 *       AUTH_SEND_MORE   send `out` (an AuthMoreData packet, first byte 0x01) and wait for the client's next packet
 *       AUTH_NEED_SWITCH send `out` (an AuthSwitchRequest, first byte 0xFE) and wait for the client's next packet
 *
 * The wire payloads (without the 4-byte packet header; the caller frames them and keeps the sequence id):
 *
 *   AuthSwitchRequest   0xFE | plugin name | 0x00 | scramble (20 bytes) | 0x00
 *   AuthMoreData        0x01 | data
 *       caching_sha2: data = 0x03 fast_auth_success (the server sends OK right after it)
 *                     data = 0x04 perform_full_authentication (client then sends the cleartext password + NUL
 *                            over a secure transport, 0x02 to ask for the RSA public key, or 256 bytes of
 *                            RSA-OAEP(password + NUL XOR scramble) if it already has the key)
 *                     data = PEM text of the RSA public key (answer to 0x02)
 *
 * caching_sha2_password state diagram (native is one step: response -> OK/FAIL):
 *
 *   START --resp matches cache--> OK (out = 0x01 0x03, sent before the OK packet)
 *   START --no cache entry, or the response does not match it--> FULL (sends 0x01 0x04)
 *   FULL  --cleartext, secure---> OK/FAIL (cache filled on OK)
 *   FULL  --0x02, have RSA key--> RSA (sends 0x01 PEM)
 *   FULL/RSA --256 bytes--------> OK/FAIL (RSA-OAEP decrypt, XOR scramble)
 *   FULL  --cleartext, insecure, or 0x02 without key--> FAIL
 *
 * Thread safety: the pure functions are reentrant; auth_cache_t has its own mutex; an auth_session_t belongs to
 * one connection.
 */
#ifndef STRATA_PROTO_AUTH_H
#define STRATA_PROTO_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/password.h"

#define AUTH_SCRAMBLE_LEN 20

/* --- client responses and their checks (stored forms: util/password.h) ----------------------------------- */

/* 20 random bytes in 0x21..0x7e (printable ASCII) except '$', from OpenSSL's RNG.  Never contains NUL, so
 * clients that treat the scramble as a C string (libmysql does) read all 20 bytes.  The one generator of login
 * scrambles (greeting, auth switch).  0, or -1 when the RNG fails: the connection must then be refused. */
int auth_scramble_generate(uint8_t out[AUTH_SCRAMBLE_LEN]);

/* Client side.  mysql_native_password: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))); 0 bytes for "".
 * caching_sha2_password: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble); 0 bytes for "".
 * Return the number of bytes written (0, 20 or 32). */
size_t auth_native_response(const char *pw, size_t pw_len, const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                            uint8_t out[20]);
size_t auth_sha2_response(const char *pw, size_t pw_len, const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                          uint8_t out[32]);

/* Server side: a mysql_native_password response against the stored form ("" accepts only an empty response). */
bool auth_native_verify(const char *stored, const uint8_t scramble[AUTH_SCRAMBLE_LEN], const uint8_t *resp,
                        size_t resp_len);

/* --- caching_sha2_password's cache -------------------------------------------------------------------- */

/* Per account: SHA256(SHA256(password)), filled after a successful full authentication.  An entry remembers the
 * stored form it was made for and only answers while the account still has that stored form, so a changed
 * password, a dropped and re-created account or a renamed one never matches a stale entry (no invalidation
 * calls are needed for correctness; auth_cache_forget/clear just free memory, FLUSH PRIVILEGES calls clear). */
typedef struct auth_cache auth_cache_t;

auth_cache_t *auth_cache_new(void);
void auth_cache_free(auth_cache_t *c);
/* Key: the account's identity, e.g. "user@host" as acl_account_key() builds it. */
void auth_cache_put(auth_cache_t *c, const char *key, const char *stored, const uint8_t digest[32]);
bool auth_cache_get(auth_cache_t *c, const char *key, const char *stored, uint8_t digest[32]);
void auth_cache_forget(auth_cache_t *c, const char *key);
void auth_cache_clear(auth_cache_t *c);
size_t auth_cache_count(auth_cache_t *c);

/* --- the per-login state machine ------------------------------------------------------------------------ */

enum auth_action {
    AUTH_OK = 0,
    AUTH_FAIL = 1,
    AUTH_SEND_MORE = 2,
    AUTH_NEED_SWITCH = 3,
};

enum auth_state {
    AUTH_STATE_START = 0,   /* waiting for the response in HandshakeResponse41 */
    AUTH_STATE_SWITCHED,    /* AuthSwitchRequest sent; waiting for the response to it */
    AUTH_STATE_SHA2_FULL,   /* perform_full_authentication sent */
    AUTH_STATE_SHA2_RSA,    /* public key sent; waiting for the encrypted password */
    AUTH_STATE_DONE,        /* OK or FAIL returned; no more input accepted */
};

/* Server-wide inputs shared by all sessions (owned by the server; all fields optional). */
typedef struct auth_server {
    auth_cache_t *cache;         /* caching_sha2 fast-path cache; NULL disables the fast path */
    void *rsa_key;               /* EVP_PKEY * private key for caching_sha2 RSA exchange, or NULL */
    const char *rsa_public_pem;  /* its public half, PEM text (sent on request 0x02) */
    const char *greeting_plugin; /* plugin named in the server greeting (default_authentication_plugin);
                                    NULL = mysql_native_password */
} auth_server_t;

typedef struct auth_session {
    enum auth_state state;
    enum password_plugin plugin; /* the account's plugin (what we authenticate with) */
    bool known;                  /* an account was found */
    bool secure;                 /* TLS or Unix socket: cleartext full authentication allowed */
    bool used_password;          /* the client sent a non-empty response at some point */
    const auth_server_t *srv;
    uint8_t scramble[AUTH_SCRAMBLE_LEN];
    char stored[PASSWORD_STORED_MAX];
    char key[800];               /* cache key (acl_account_key: fits any user and host) */
} auth_session_t;

/* account_plugin/stored/key describe the account found for the login (acl_find_for_login); pass
 * account_plugin = NULL when no account matched (the first step then returns AUTH_FAIL). */
void auth_session_init(auth_session_t *s, const auth_server_t *srv, const uint8_t scramble[AUTH_SCRAMBLE_LEN],
                       const char *account_plugin, const char *stored, const char *key, bool secure);
/* First step: the plugin the client named in HandshakeResponse41 (NULL or "" when CLIENT_PLUGIN_AUTH is off,
 * meaning mysql_native_password) and its auth response.  `out` receives the payload to send for SEND_MORE and
 * NEED_SWITCH (the buffer is reset first). */
enum auth_action auth_session_start(auth_session_t *s, const char *client_plugin, const uint8_t *resp,
                                    size_t resp_len, buf_t *out);
/* Every later packet the client sends during authentication (its payload). */
enum auth_action auth_session_continue(auth_session_t *s, const uint8_t *pkt, size_t len, buf_t *out);
/* "YES"/"NO" for the 1045 message. */
const char *auth_session_used_password(const auth_session_t *s);

#endif
