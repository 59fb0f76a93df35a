/*
 * The JSON column type's check: MariaDB's JSON is LONGTEXT with CHECK (json_valid(col)), so a row whose JSON
 * column holds text that is not JSON is refused with 4025 naming the constraint `table.column`, as MariaDB
 * names a column's check.  Called by INSERT, INSERT ... ON DUPLICATE KEY UPDATE, REPLACE and UPDATE on the row
 * about to be written, and by ALTER TABLE's copy for the JSON columns it copies (an added JSON column's default
 * is not checked, as MariaDB's instant ADD COLUMN does not).  (When CHECK constraints in general are enforced,
 * this is the check of those columns.)
 */
#include <stdio.h>

#include "sql/exec/exec_int.h"
#include "sql/expr/jsondoc.h"

int exec_json_check_col(sql_exec_ctx_t *x, const cat_table_t *t, uint32_t c, const value_t *v)
{
    if (!t->cols[c].is_json || v->type == VAL_NULL)
        return 0;
    size_t n = v->s.len;
    const char *s = v->type == VAL_STRING ? v->s.ptr : value_to_text(x->arena, v, &n);
    json_node_t *root;
    json_error_t err;
    if (json_parse(x->arena, s ? s : "", n, &root, &err) == 0 && !err.trailing)
        return 0;
    /* the check is json_valid(col): its note comes first, as in MariaDB */
    char msg[512];
    if (err.code == 4037)
        snprintf(msg, sizeof msg, "Unexpected end of JSON text in argument 1 to function 'json_valid'");
    else
        snprintf(msg, sizeof msg, "%s in argument 1 to function 'json_valid' at position %zu",
                 err.code == 4035 ? "Broken JSON string" : err.code == 4036 ? "Character disallowed in JSON"
                 : err.code == 4039 ? "Incorrect escaping in JSON text"
                 : err.code == 4040 ? "Limit of 32 on JSON nested structures depth is reached"
                 : "Syntax error in JSON text", err.pos);
    diag_push_msg(x->diag, DIAG_NOTE, err.code, msg);
    snprintf(msg, sizeof msg, "CONSTRAINT `%s.%s` failed for `%s`.`%s`", t->name, t->cols[c].name, t->db, t->name);
    return diag_push_msg(x->diag, DIAG_ERROR, ER_CONSTRAINT_FAILED, msg);
}

int exec_json_check(sql_exec_ctx_t *x, const cat_table_t *t, const value_t *row)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        int rc = exec_json_check_col(x, t, c, &row[c]);
        if (rc)
            return rc;
    }
    return 0;
}
