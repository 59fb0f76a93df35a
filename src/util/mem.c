/*
 * Counted allocation: a 16-byte header in front of each block holds its size, so mem_free can subtract it.
 * The counter is one relaxed atomic; it is a statistic, not a synchronisation point.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>

#include "util/util.h"

#define MEM_HDR 16

static _Atomic int64_t mem_bytes;

static void *mem_oom(size_t n)
{
    log_error("out of memory allocating %zu bytes", n);
    abort();
}

void *mem_alloc(size_t n)
{
    uint8_t *p = malloc(n + MEM_HDR);
    if (!p)
        return mem_oom(n);
    memcpy(p, &n, sizeof n);
    atomic_fetch_add_explicit(&mem_bytes, (int64_t)n, memory_order_relaxed);
    return p + MEM_HDR;
}

void *mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return mem_oom(SIZE_MAX);
    void *p = mem_alloc(n * size);
    memset(p, 0, n * size);
    return p;
}

void *mem_realloc(void *p, size_t n)
{
    if (!p)
        return mem_alloc(n);
    uint8_t *h = (uint8_t *)p - MEM_HDR;
    size_t old;
    memcpy(&old, h, sizeof old);
    uint8_t *q = realloc(h, n + MEM_HDR);
    if (!q)
        return mem_oom(n);
    memcpy(q, &n, sizeof n);
    atomic_fetch_add_explicit(&mem_bytes, (int64_t)n - (int64_t)old, memory_order_relaxed);
    return q + MEM_HDR;
}

void mem_free(void *p)
{
    if (!p)
        return;
    uint8_t *h = (uint8_t *)p - MEM_HDR;
    size_t n;
    memcpy(&n, h, sizeof n);
    atomic_fetch_sub_explicit(&mem_bytes, (int64_t)n, memory_order_relaxed);
    free(h);
}

char *mem_strndup(const char *s, size_t n)
{
    char *d = mem_alloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *mem_strdup(const char *s) { return mem_strndup(s, strlen(s)); }

int64_t mem_used(void) { return atomic_load_explicit(&mem_bytes, memory_order_relaxed); }

bool mem_give_back(void)
{
    static int64_t high;
    int64_t now = mem_used();
    if (now > high) {
        high = now;
        return false;
    }
    if (high - now < MEM_GIVE_BACK_BYTES)
        return false;
    high = now;
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    return true;
}
