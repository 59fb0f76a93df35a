/*
 * Prepared statements' plans: the bound form of a prepared SELECT or DML kept between executions and reused
 * while its tables keep the definitions it was bound for (and the statistics it was chosen with).
 */
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "sql/exec/extsort.h"
#include "sql/expr/typeinf.h"
#include "sql/value/tz.h"
#include "util/util.h"
#include "util/hash.h"
#include "sql/exec/query_int.h"

/* ---------------------------------------------------------------- prepared plans */


sql_plan_t *sql_plan_new(void)
{
    sql_plan_t *p = mem_calloc(1, sizeof *p);
    arena_init(&p->mem, 2048);
    return p;
}

void sql_plan_free(sql_plan_t *p)
{
    if (!p)
        return;
    mem_free(p->cur_db);
    arena_destroy(&p->mem);
    mem_free(p);
}

const char *sql_plan_db(sql_plan_t *p, const char *db)
{
    if (!db)
        return NULL;
    if (!p->cur_db || strcmp(p->cur_db, db) != 0) {
        /* a different database invalidates the plan (plan_cache_valid), so nothing bound points at the old copy */
        mem_free(p->cur_db);
        p->cur_db = mem_strdup(db);
    }
    return p->cur_db;
}

/* Can q's sources be planned once?  Base tables only: virtual ones are rebuilt (and USING / NATURAL rewritten)
 * at every opening. */
static bool plan_cacheable(const query_t *q)
{
    if (q->x->outer_q || !q->nsrc)
        return false;
    for (uint32_t i = 0; i < q->nsrc; i++) {
        const query_source_t *src = &q->src[i];
        if (src->is_virtual || src->hidden || src->lead)
            return false;
    }
    return true;
}

bool plan_cache_valid(const sql_exec_ctx_t *x, const void *key, const query_t *q)
{
    const sql_plan_t *p = x->plan;
    const char *db = x->db;
    if (!p || !p->valid || p->key != key || p->nsrc != q->nsrc || (!p->db) != (!db) || (db && strcmp(p->db, db) != 0))
        return false;
    for (uint32_t i = 0; i < p->nsrc; i++)
        if (q->src[i].t->id != p->src_id[i] || q->src[i].t->version != p->src_version[i])
            return false;
    return true;
}

bool plan_cache_reuse(sql_exec_ctx_t *x, const void *key, query_t *q)
{
    if (!plan_cache_valid(x, key, q))
        return false;
    sql_plan_t *p = x->plan;
    if (p->stats_gen != stats_generation()) {
        /* ANALYZE published new statistics: the binding stands, the access paths are chosen again */
        p->stats_gen = stats_generation();
        plan_join(q, p->where, p->paths, &p->mem);
        p->jorder = q->jorder;
    }
    if (p->jorder) { /* the plan's join order, on the statement bound again */
        plan_join_set(q, p->jorder, x->arena);
    } else {
        q->jinner = false;
        q->jorder = q->jpos = NULL;
        q->jbefore = NULL;
        q->jon = NULL;
        q->jnon = NULL;
    }
    q->paths = p->paths;
    x->stats.plan_hits++;
    return true;
}

bool plan_cache_begin(sql_exec_ctx_t *x, const void *key, query_t *q)
{
    sql_plan_t *p = x->plan;
    if (!p)
        return false;
    if (!plan_cacheable(q)) {
        p->valid = false;
        return false;
    }
    if (p->key)
        x->stats.plan_rebinds++;
    arena_reset(&p->mem);
    p->valid = false;
    p->key = key;
    p->db = x->db ? arena_strdup(&p->mem, x->db) : NULL;
    return true;
}

void plan_cache_end(sql_exec_ctx_t *x, query_t *q, const sql_expr_t *where)
{
    sql_plan_t *p = x->plan;
    p->nsrc = q->nsrc;
    p->src_id = arena_alloc(&p->mem, sizeof(uint64_t) * (p->nsrc + 1));
    p->src_version = arena_alloc(&p->mem, sizeof(uint64_t) * (p->nsrc + 1));
    p->paths = arena_calloc(&p->mem, sizeof(access_path_t) * (p->nsrc + 1));
    p->where = where;
    p->stats_gen = stats_generation();
    for (uint32_t i = 0; i < p->nsrc; i++) {
        p->src_id[i] = q->src[i].t->id;
        p->src_version[i] = q->src[i].t->version;
    }
    plan_join(q, where, p->paths, &p->mem);
    p->jorder = q->jorder;
    q->paths = p->paths;
    p->valid = true;
}
