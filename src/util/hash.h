/*
 * hash: the one hash function of strata's in-memory tables (GROUP BY and DISTINCT keys, metadata locks, user
 * locks, accounts' connection counts, the authentication cache).  Their keys are user data -- column values,
 * table and lock names -- so the hash is seeded with a random value per process (XXH3 from Debian's libxxhash,
 * see docs/dependencies.md): nobody can choose keys that all land in one bucket.  Values differ between runs;
 * nothing may store them or depend on their order.
 */
#ifndef STRATA_UTIL_HASH_H
#define STRATA_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The seeded 64-bit hash of n bytes. */
uint64_t hash_bytes(const void *p, size_t n);

/* The same of a NUL-terminated string (its bytes, without the NUL). */
uint64_t hash_str(const char *s);

#endif
