/*
 * libFuzzer target for the routine-body parser (sql/parser/sp_parse.c): the input is parsed as the body of a
 * procedure and of a function with two parameters (and, one input in seven, under sql_mode flags), then as a
 * whole statement text (CREATE PROCEDURE ... arriving in a query); a routine record (access/routine.c) is
 * decoded from the same bytes.  Must not crash or leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "access/routine.h"
#include "sql/sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 16);
    unsigned mode = size && size % 7 == 0 ? data[size / 2] & 15u : 0;
    const char *text = (const char *)data;
    sql_routine_param_t params[2];
    memset(params, 0, sizeof params);
    params[0].name = "a";
    params[0].type.kind = SQL_T_INT;
    params[0].type.coll = -1;
    params[1].name = "b";
    params[1].mode = SQL_PARAM_INOUT;
    params[1].type.kind = SQL_T_VARCHAR;
    params[1].type.len = 10;
    params[1].type.coll = -1;
    for (int fn = 0; fn < 2; fn++) {
        const char *stop = NULL;
        sp_body_t *b = sp_parse_body(&a, &d, text, text, text + size, mode, 0, params, 2, fn == 1, &stop);
        if (b && (stop < text || stop > text + size))
            __builtin_trap();
        diag_clear(&d);
        arena_reset(&a);
    }
    sql_stmt_list_t l;
    static const char pre[] = "CREATE PROCEDURE p(IN a INT, OUT b TEXT) ";
    char *whole = arena_alloc(&a, sizeof pre + size);
    memcpy(whole, pre, sizeof pre - 1);
    memcpy(whole + sizeof pre - 1, data, size);
    sql_parse_mode(&a, whole, sizeof pre - 1 + size, mode, &l, &d);
    diag_clear(&d);
    cat_routine_t r;
    catalog_routine_decode(&a, data, size, &r);
    arena_destroy(&a);
    diag_free(&d);
    return 0;
}
