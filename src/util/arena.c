/* Arena allocator (see arena.h).  Oversized requests get a chunk of their own. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

struct arena_chunk {
    arena_chunk_t *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void arena_init(arena_t *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : 4096;
    a->total = 0;
}

void *arena_alloc(arena_t *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    arena_chunk_t *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > a->chunk_size / 2 ? n : a->chunk_size;
        c = mem_alloc(sizeof *c + size);
        c->size = size;
        c->used = 0;
        if (n > a->chunk_size / 2 && a->head) {
            /* Big block: put it behind the current chunk so that chunk keeps serving small requests. */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
        a->total += size;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void *arena_calloc(arena_t *a, size_t n)
{
    void *p = arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena_t *a, const char *s, size_t n)
{
    char *d = arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *arena_strdup(arena_t *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *d = arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return d;
}

void arena_reset(arena_t *a)
{
    arena_chunk_t *c = a->head;
    if (!c)
        return;
    /* Keep the last (oldest) regular chunk; free the rest. */
    arena_chunk_t *keep = NULL;
    while (c) {
        arena_chunk_t *next = c->next;
        if (!next && c->size == a->chunk_size) {
            keep = c;
        } else {
            a->total -= c->size;
            mem_free(c);
        }
        c = next;
    }
    a->head = keep;
    if (keep) {
        keep->used = 0;
        keep->next = NULL;
    }
}

void arena_destroy(arena_t *a)
{
    arena_chunk_t *c = a->head;
    while (c) {
        arena_chunk_t *next = c->next;
        mem_free(c);
        c = next;
    }
    a->head = NULL;
    a->total = 0;
}
