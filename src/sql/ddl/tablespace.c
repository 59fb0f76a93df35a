/*
 * CREATE / ALTER / DROP TABLESPACE and LOGFILE GROUP: the engine's tablespaces of data files and extents.
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
#include "util/util.h"
#include "sql/exec/query_int.h"

/* ---------------------------------------------------------------- tablespaces */

int exec_tablespace(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_tablespace_stmt_t *ts = &st->tablespace;
    int rc = 0;
    if (ts->engine) {
        int erc;
        ddl_engine_name(x, ts->engine, ts->name, &erc);
        if (erc)
            return erc;
    }
    switch (st->kind) {
    case SQL_STMT_CREATE_TABLESPACE: {
        uint32_t sid;
        uint64_t init = (ts->set & SQL_TS_INITIAL_SIZE) ? ts->initial_size : 128ull << 20;
        uint64_t ext = (ts->set & SQL_TS_EXTENT_SIZE) ? ts->extent_size : 1ull << 20;
        rc = engine_tablespace_create(exec_engine, ts->name, ts->file, init, ext, &sid);
        break;
    }
    case SQL_STMT_ALTER_TABLESPACE:
        if (!ts->add)
            return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "ALTER TABLESPACE ... DROP DATAFILE");
        rc = engine_tablespace_add_datafile(exec_engine, ts->name, ts->file,
                                            (ts->set & SQL_TS_INITIAL_SIZE) ? ts->initial_size : 128ull << 20);
        break;
    case SQL_STMT_DROP_TABLESPACE:
        rc = engine_tablespace_drop(exec_engine, ts->name);
        if (rc == ENGINE_ENOTEMPTY || rc == STRATA_ENOTFOUND)
            return diag_error(x->diag, ER_DROP_FILEGROUP_FAILED, "TABLESPACE");
        break;
    case SQL_STMT_CREATE_LOGFILE_GROUP:
        /* One group with one undo file, created at INITIAL_SIZE (MySQL's defaults: 128M, buffer 8M); large
         * transactions' undo goes there (engine.h). */
        rc = engine_logfile_group_create(exec_engine, ts->name, ts->file,
                                         (ts->set & SQL_TS_INITIAL_SIZE) ? ts->initial_size : 128ull << 20,
                                         (ts->set & SQL_TS_UNDO_BUFFER_SIZE) ? ts->undo_buffer_size : 8ull << 20);
        if (rc == STRATA_EEXIST)
            return diag_error(x->diag, ER_CREATE_FILEGROUP_FAILED, "LOGFILE GROUP");
        break;
    case SQL_STMT_DROP_LOGFILE_GROUP:
        rc = engine_logfile_group_drop(exec_engine, ts->name);
        if (rc == ENGINE_ENOTEMPTY || rc == STRATA_ENOTFOUND)
            return diag_error(x->diag, ER_DROP_FILEGROUP_FAILED, "LOGFILE GROUP");
        break;
    default:
        break;
    }
    if (rc == STRATA_EEXIST)
        return diag_push_msg(x->diag, DIAG_ERROR, 1528, arena_printf(x->arena, "Failed to create %s", "TABLESPACE"));
    if (rc) {
        char msg[160];
        bool lfg = st->kind == SQL_STMT_CREATE_LOGFILE_GROUP || st->kind == SQL_STMT_DROP_LOGFILE_GROUP;
        bool create = st->kind == SQL_STMT_CREATE_TABLESPACE || st->kind == SQL_STMT_CREATE_LOGFILE_GROUP;
        snprintf(msg, sizeof msg, "Failed to %s %s %s (engine error %d)",
                 create ? "create" : st->kind == SQL_STMT_DROP_LOGFILE_GROUP ? "drop" : "alter",
                 lfg ? "LOGFILE GROUP" : "TABLESPACE", ts->name, rc);
        return diag_push_msg(x->diag, DIAG_ERROR, create ? 1528 : st->kind == SQL_STMT_DROP_LOGFILE_GROUP ? 1529 : 1533,
                             msg);
    }
    exec_pend_ok(x, 0, NULL);
    return 0;
}
