/*
 * CREATE / DROP INDEX, TRUNCATE TABLE and DROP TABLE (RENAME TABLE is dispatched in exec/exec.c to the catalog).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "access/binrow.h"
#include "sql/value/collation.h"
#include "commit/commit.h"
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "access/view.h"
#include "util/util.h"
#include "sql/exec/query_int.h"
#include "sql/exec/gencol.h"
#include "sql/ddl/constraint.h"

/* ---------------------------------------------------------------- indexes, TRUNCATE, DROP, RENAME */

int create_index(sql_exec_ctx_t *x, const sql_name_t *tn, const sql_index_def_t *d, bool if_not_exists)
{
    const char *db;
    cat_table_t *t = exec_open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    int rc;
    cat_table_t *nt = cat_table_copy(x->arena, t);
    if (d->name && cat_table_index(nt, d->name) >= 0 && if_not_exists) {
        diag_note(x->diag, ER_DUP_KEYNAME, d->name);
        catalog_table_release(t);
        return 0;
    }
    if (d->kind == SQL_INDEX_PRIMARY && nt->has_pk) {
        catalog_table_release(t);
        return diag_error(x->diag, ER_MULTIPLE_PRI_KEY);
    }
    if (d->kind == SQL_INDEX_PRIMARY) {
        catalog_table_release(t);
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "adding a PRIMARY KEY to an existing table");
    }
    uint32_t cap = nt->nidx;
    if ((rc = add_index(x, nt, &cap, d, NULL)) != 0 || d->kind == SQL_INDEX_FOREIGN ||
        (rc = gencol_check_table(x, nt)) != 0) { /* no index on a VIRTUAL column of RAND(), NOW() ... (1901) */
        catalog_table_release(t);
        return rc;
    }
    uint32_t ix = nt->nidx - 1;
    nt->idx[ix].key_version = RC_KEY_VERSION;
    /* readers go on while the index is built; writers wait, and the new definition needs the table alone */
    if ((rc = exec_index_build(x, nt, &ix, 1)) == 0 && (rc = exec_mdl_upgrade(x)) == 0)
        rc = catalog_table_replace(exec_cat, nt, x->diag);
    if (rc && nt->idx[ix].tree)
        engine_tree_drop(NULL, exec_engine, nt->idx[ix].tree);
    catalog_table_release(t);
    return rc;
}

int drop_index(sql_exec_ctx_t *x, const sql_name_t *tn, const char *name, bool if_exists)
{
    const char *db;
    cat_table_t *t = exec_open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    int rc = 0;
    int ix = cat_table_index(t, name);
    if (ix < 0) {
        if (if_exists)
            ddl_cant_drop(x, true, "INDEX", name);
        else
            rc = ddl_cant_drop(x, false, "INDEX", name);
        goto out;
    }
    if (t->idx[ix].kind == CAT_IDX_PRIMARY) {
        rc = diag_error(x->diag, ER_NOT_SUPPORTED_YET, "dropping the PRIMARY KEY");
        goto out;
    }
    int ai = cat_table_autoinc_col(t);
    bool other = false;
    for (uint32_t i = 0; i < t->nidx && ai >= 0; i++)
        if ((int)i != ix && t->idx[i].cols[0].col == (uint32_t)ai)
            other = true;
    if (ai >= 0 && t->idx[ix].cols[0].col == (uint32_t)ai && !other) {
        rc = diag_error(x->diag, ER_WRONG_AUTO_KEY);
        goto out;
    }
    cat_table_t *nt = cat_table_copy(x->arena, t);
    memmove(&nt->idx[ix], &nt->idx[ix + 1], sizeof(cat_index_t) * (nt->nidx - (uint32_t)ix - 1));
    nt->nidx--;
    rc = catalog_table_replace(exec_cat, nt, x->diag);
out:
    catalog_table_release(t);
    return rc;
}

int truncate_table(sql_exec_ctx_t *x, const sql_name_t *tn)
{
    const char *db;
    const char *vdb = exec_db_name(x, tn->db);
    if (vdb && strcasecmp(vdb, "performance_schema") == 0)
        return exec_perfschema_truncate(x, tn->name);
    cat_table_t *t = exec_open_write(x, tn, &db);
    if (!t)
        return -x->diag->error_code;
    int grc = ddl_fk_drop_guard(x, t, true);
    if (grc) {
        catalog_table_release(t);
        return grc;
    }
    cat_table_t *nt = cat_table_copy(x->arena, t);
    int rc = engine_tree_create(NULL, exec_engine, nt->space_id, &nt->tree);
    for (uint32_t i = 0; i < nt->nidx && !rc; i++) {
        if (nt->idx[i].kind == CAT_IDX_PRIMARY)
            nt->idx[i].tree = nt->tree;
        else
            rc = engine_tree_create(NULL, exec_engine, nt->space_id, &nt->idx[i].tree);
    }
    if (!rc)
        rc = catalog_table_replace(exec_cat, nt, x->diag);
    else
        rc = table_engine_err(x->diag, t, rc);
    if (!rc) {
        table_autoinc_set(t, nt->auto_inc_start ? nt->auto_inc_start : 1);
        atomic_store(&t->ctr->row_id, 1);
        catalog_autoinc_persist(exec_cat, t);
    }
    catalog_table_release(t);
    return rc;
}

int exec_drop_table(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_table_list_t *tl = &st->tables;
    int rc = 0;
    buf_t missing;
    buf_init(&missing);
    bool held = tl->n > 1; /* one commit per table: a replica's position rides with the last (catalog.h) */
    bool fk_refused = false;
    buf_t dropped; /* what a statement that fails after dropping some tables logs, as MariaDB does */
    buf_init(&dropped);
    uint32_t ndropped_qualified = 0;
    if (held)
        catalog_commit_hook_hold(true);
    for (uint32_t i = 0; i < tl->n; i++) {
        if (held && i == tl->n - 1)
            catalog_commit_hook_hold(held = false);
        const char *db = exec_db_name(x, tl->tables[i].db);
        if (!db) {
            rc = -ER_NO_DB_ERROR;
            break;
        }
        const char *rdb = db, *rname = tl->tables[i].name;
        bool is_tmp = exec_temp_map(x, &rdb, &rname);
        if (is_tmp) {
            if ((rc = catalog_table_drop(exec_cat, rdb, rname, true, x->diag)) < 0)
                break;
            rc = 0;
            for (temp_table_t **pp = &x->ss->tmp; *pp; pp = &(*pp)->next)
                if (strcmp((*pp)->real, rname) == 0) {
                    temp_table_t *dead = *pp;
                    *pp = dead->next;
                    mem_free(dead->db);
                    mem_free(dead->name);
                    mem_free(dead->real);
                    mem_free(dead);
                    break;
                }
            continue;
        }
        cat_table_t *t = catalog_db_is_virtual(db) || tl->temporary ? NULL : catalog_table_get(exec_cat, db, tl->tables[i].name);
        cat_view_t vw;
        if (!t && !tl->temporary && catalog_view_get(exec_cat, x->arena, db, tl->tables[i].name, &vw) > 0) {
            rc = diag_error(x->diag, ER_IT_IS_A_VIEW, arena_printf(x->arena, "%s.%s", db, tl->tables[i].name));
            break;
        }
        if (!t) {
            if (missing.len)
                buf_append_byte(&missing, ',');
            buf_printf(&missing, "%s.%s", db, tl->tables[i].name);
            continue;
        }
        /* a parent still referenced stays (1451 at the end); the others in the list are dropped (MariaDB) */
        int g = fk_refused ? 0 : ddl_fk_drop_guard(x, t, false);
        bool refused = g != 0 || (fk_refused && ddl_fk_drop_guard_quiet(x, t));
        catalog_table_release(t);
        if (refused) {
            fk_refused = true;
            continue;
        }
        if ((rc = catalog_table_drop(exec_cat, db, tl->tables[i].name, true, x->diag)) < 0)
            break;
        rc = 0;
        trigger_drop_table(x, db, tl->tables[i].name); /* its triggers go with it */
        buf_printf(&dropped, "%s`%s`", dropped.len ? "," : "DROP TABLE ", tl->tables[i].name);
        if (tl->tables[i].db)
            ndropped_qualified++;
    }
    if (held)
        catalog_commit_hook_hold(false);
    if (!rc && fk_refused)
        rc = -ER_ROW_IS_REFERENCED_2;
    if ((!rc || fk_refused) && missing.len) { /* after a 1451, MariaDB lists the unknown tables too */
        buf_append_byte(&missing, 0);
        if (tl->if_exists)
            diag_note(x->diag, ER_BAD_TABLE_ERROR, (const char *)missing.data);
        else if (!rc)
            rc = diag_error(x->diag, ER_BAD_TABLE_ERROR, (const char *)missing.data);
        else
            diag_error(x->diag, ER_BAD_TABLE_ERROR, (const char *)missing.data);
    }
    buf_free(&missing);
    if (rc && dropped.len && !ndropped_qualified) {
        buf_append_str(&dropped, " /* generated by server */");
        x->ddl_done_text = arena_strndup(x->arena, (const char *)dropped.data, dropped.len);
    }
    buf_free(&dropped);
    if (!rc)
        exec_pend_ok(x, 0, NULL);
    return rc;
}
