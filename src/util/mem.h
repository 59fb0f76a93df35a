/*
 * Counted allocation.  Every byte strata allocates goes through these so the server can report what it holds
 * (Memory_used); out of memory is fatal here, not an error path threaded through every caller.
 */
#ifndef STRATA_MEM_H
#define STRATA_MEM_H

#include <stddef.h>
#include <stdint.h>

void *mem_alloc(size_t n);
void *mem_calloc(size_t n, size_t size);
void *mem_realloc(void *p, size_t n);
void mem_free(void *p);
char *mem_strdup(const char *s);
char *mem_strndup(const char *s, size_t n);
/* Bytes currently allocated through mem_*. */
int64_t mem_used(void);
/* Called periodically by one thread: when what is allocated fell by MEM_GIVE_BACK_BYTES or more below the highest
 * level it has seen since the last call that gave memory back, returns the allocator's free pages to the system
 * (malloc_trim), so resident memory follows a large statement back down.  Returns true if it trimmed. */
#define MEM_GIVE_BACK_BYTES (64ll << 20)
_Bool mem_give_back(void);

#endif
