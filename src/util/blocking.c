/* Wait hooks (see blocking.h). */
#include <stdatomic.h>
#include <stddef.h>

#include "util/blocking.h"

static void (*hook_begin)(void *);
static void (*hook_end)(void *);
static void *hook_arg;
static _Thread_local _Atomic(const char *) *state_slot;
static _Thread_local _Atomic(unsigned) *progress_slot;

void blocking_set_hooks(void (*begin)(void *arg), void (*end)(void *arg), void *arg)
{
    hook_begin = begin;
    hook_end = end;
    hook_arg = arg;
}

void blocking_begin(void)
{
    if (hook_begin)
        hook_begin(hook_arg);
}

void blocking_end(void)
{
    if (hook_end)
        hook_end(hook_arg);
}

void blocking_bind_state(_Atomic(const char *) *slot)
{
    state_slot = slot;
}

const char *blocking_set_state(const char *state)
{
    if (!state_slot)
        return NULL;
    return atomic_exchange(state_slot, state);
}

void blocking_bind_progress(_Atomic(unsigned) *slot)
{
    progress_slot = slot;
}

void blocking_set_progress(unsigned milli_pct)
{
    if (progress_slot)
        atomic_store(progress_slot, milli_pct);
}
