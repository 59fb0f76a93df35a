/*
 * The seeded hash (hash.h): XXH3-64 with a secret-derived seed drawn from the kernel's random source once, before
 * main() runs, so every table sees the same seed for the life of the process.
 */
#include <sys/random.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "util/hash.h"

static uint64_t hash_seed;

__attribute__((constructor)) static void hash_seed_init(void)
{
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
        /* No entropy this early (a container without a seeded pool): the clock still makes the seed differ
         * between processes, which is what the seed is for; it is not a secret for cryptography. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec;
    }
    hash_seed = s;
}

uint64_t hash_bytes(const void *p, size_t n)
{
    return XXH3_64bits_withSeed(p, n, hash_seed);
}

uint64_t hash_str(const char *s)
{
    return XXH3_64bits_withSeed(s, strlen(s), hash_seed);
}
