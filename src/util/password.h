/*
 * Stored password forms of the authentication plugins: what the account store (session/acl) keeps and SHOW CREATE
 * USER prints, and what the login code (proto/auth) checks against.  Shared by both boxes, hence here: pure
 * functions over OpenSSL's libcrypto, no state.
 *
 *   mysql_native_password   "*" + 40 uppercase hex digits of SHA1(SHA1(password)); "" = no password
 *
 *   caching_sha2_password   offset size
 *                            0      3   "$A$"            digest type A = SHA256-crypt
 *                            3      3   "%03X"           rounds / 1000, hexadecimal ("005" = 5000 rounds)
 *                            6      1   "$"
 *                            7     20   salt             bytes 0x01..0x7f except '$' (ours: printable, no quotes
 *                                                        or backslash)
 *                           27     43   digest           SHA256-crypt (Drepper's SHA-crypt, as crypt(3) "$5$"
 *                                                        but with a 20-byte salt) in crypt's base64 alphabet
 *                           "" = no password
 */
#ifndef STRATA_UTIL_PASSWORD_H
#define STRATA_UTIL_PASSWORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PASSWORD_NATIVE_HASH_LEN 41 /* '*' + 40 hex digits */
#define PASSWORD_SHA2_SALT_LEN 20
#define PASSWORD_SHA2_DIGEST_B64_LEN 43
#define PASSWORD_SHA2_HASH_LEN (7 + PASSWORD_SHA2_SALT_LEN + PASSWORD_SHA2_DIGEST_B64_LEN) /* 70 */
#define PASSWORD_STORED_MAX 128     /* room for any stored form, with its NUL */
#define PASSWORD_SHA2_ROUNDS 5000   /* MySQL's default caching_sha2_password_digest_rounds */
/* SHA256-crypt costs O(length^2): MySQL caps caching_sha2 passwords at 256 bytes, so a client cannot make the
 * server hash a 16 MiB "password".  Longer ones never verify and cannot be set. */
#define PASSWORD_SHA2_MAX 256

#define PASSWORD_PLUGIN_NATIVE_NAME "mysql_native_password"
#define PASSWORD_PLUGIN_SHA2_NAME "caching_sha2_password"

enum password_plugin {
    PASSWORD_PLUGIN_NONE = 0, /* unknown name */
    PASSWORD_PLUGIN_NATIVE = 1,
    PASSWORD_PLUGIN_SHA2 = 2,
};

const char *password_plugin_name(enum password_plugin p);
/* PASSWORD_PLUGIN_NONE for an unknown name (the caller raises 1524 "Plugin '%s' is not loaded"). */
enum password_plugin password_plugin_from_name(const char *name);

/* Stored form of `pw` for a plugin, NUL-terminated in `out`.  An empty password is stored as "" by both
 * plugins, as MySQL does.  Returns the length. */
size_t password_stored_from(enum password_plugin p, const char *pw, size_t pw_len, char out[PASSWORD_STORED_MAX]);
/* mysql_native_password: '*' + HEX(SHA1(SHA1(pw))), uppercase. */
void password_native_hash(const char *pw, size_t pw_len, char out[PASSWORD_NATIVE_HASH_LEN + 1]);
/* "*HEX" -> the 20 bytes of SHA1(SHA1(pw)); false if malformed. */
bool password_native_stage2(const char *stored, uint8_t out[20]);
/* caching_sha2_password: "$A$" + "%03X" of rounds/1000 + "$" + salt(20) + digest(43).  `salt` may be NULL for a
 * fresh random one.  `rounds` is a multiple of 1000 (PASSWORD_SHA2_ROUNDS usually). */
void password_sha2_hash(const char *pw, size_t pw_len, const uint8_t *salt, unsigned rounds,
                        char out[PASSWORD_SHA2_HASH_LEN + 1]);
/* The cleartext password against a "$A$..." stored form ("" matches only the empty password). */
bool password_sha2_verify(const char *stored, const char *pw, size_t pw_len);
/* Whether `s` is a well-formed stored form for the plugin ("" is, and means: no password). */
bool password_stored_valid(enum password_plugin p, const char *s, size_t len);

/* n random characters of `alphabet` from OpenSSL's RNG, uniformly (rejection sampling).  0, or -1 when the RNG
 * fails (nothing weaker is substituted). */
int password_random_chars(uint8_t *out, size_t n, const char *alphabet);
/* The byte source behind it (RAND_bytes): 0 when out[0..n) is filled.  Unit tests swap in a failing one;
 * NULL restores OpenSSL's.  Returns the previous source. */
typedef int (*password_rng_fn)(uint8_t *out, int n);
password_rng_fn password_set_rng(password_rng_fn fn);
/* Printable ASCII 0x21..0x7e without '$' (login scrambles). */
extern const char PASSWORD_SCRAMBLE_CHARS[];
/* Constant-time comparison, so checks do not leak how many bytes matched. */
bool password_memeq(const void *a, const void *b, size_t n);

#endif
