/*
 * engine/engine_int.h: what the engine's own tools (tools/strata-check.c) and tests need from inside an open
 * engine.  Nothing outside src/engine, tools/strata-* and tests/unit/test_engine* includes it.
 */
#ifndef STRATA_ENGINE_INT_H
#define STRATA_ENGINE_INT_H

#include "engine/btree.h"
#include "engine/engine.h"
#include "engine/space.h"

fsys_t *engine_fsys(engine_t *e);
bpool_t *engine_bpool(engine_t *e);
/* The handle of a tree of the directory, or of the directory itself (engine_dir_tree_id()). */
int engine_tree_handle(engine_t *e, uint64_t id, btree_t **out);
uint64_t engine_dir_tree_id(void);
/* Runs purge now (tests; the background thread does it every checkpoint_ms). */
void engine_purge_now(engine_t *e);

/* Runs the rebalance in the calling thread (whether enabled or not) until max_pages pages moved or nothing is
 * left to move; returns the pages moved.  Tests stop it half-way through an extent this way. */
uint64_t engine_rebalance_run(engine_t *e, uint64_t max_pages);

#endif
