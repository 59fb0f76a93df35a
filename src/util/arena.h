/*
 * Arena: bump allocation in chunks, freed all at once by arena_reset (PostgreSQL's memory contexts, reduced to
 * the one operation strata needs).  A statement's parse tree and values live in the statement arena; a reset at
 * the end of the statement frees them without walking them.
 */
#ifndef STRATA_ARENA_H
#define STRATA_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk_t;

typedef struct arena {
    arena_chunk_t *head; /* newest chunk first */
    size_t chunk_size;   /* size of the next regular chunk */
    size_t total;        /* bytes held in chunks */
} arena_t;

void arena_init(arena_t *a, size_t chunk_size);
void *arena_alloc(arena_t *a, size_t n);   /* 16-byte aligned, uninitialised */
void *arena_calloc(arena_t *a, size_t n);  /* zeroed */
char *arena_strndup(arena_t *a, const char *s, size_t n);
char *arena_strdup(arena_t *a, const char *s);
char *arena_printf(arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees everything but the first chunk, which is kept for reuse. */
void arena_reset(arena_t *a);
void arena_destroy(arena_t *a);

#endif
