/* Unit tests for util: buffers, arenas, counted allocation, diagnostics area, error table. */
#include "unit.h"
#include "util/diag.h"
#include "util/util.h"

TEST(test_buf_lenenc)
{
    buf_t b;
    buf_init(&b);
    buf_put_lenenc_int(&b, 250);
    buf_put_lenenc_int(&b, 251);
    buf_put_lenenc_int(&b, 70000);
    buf_put_lenenc_int(&b, 1ull << 40);
    CHECK_EQ_INT(b.len, 1 + 3 + 4 + 9);
    CHECK_EQ_INT(b.data[0], 250);
    CHECK_EQ_INT(b.data[1], 0xfc);
    CHECK_EQ_INT(b.data[4], 0xfd);
    CHECK_EQ_INT(b.data[8], 0xfe);
    buf_consume(&b, 4);
    CHECK_EQ_INT(b.len, 13);
    CHECK_EQ_INT(b.data[0], 0xfd);
    buf_printf(&b, "%s-%d", "x", 7);
    CHECK(memcmp(b.data + 13, "x-7", 3) == 0);
    buf_free(&b);
}

TEST(test_arena)
{
    arena_t a;
    arena_init(&a, 1024);
    int64_t before = mem_used();
    char *s = arena_strdup(&a, "hello");
    CHECK_EQ_STR(s, "hello");
    void *big = arena_alloc(&a, 100000);
    CHECK(((uintptr_t)big & 15) == 0);
    for (int i = 0; i < 1000; i++)
        CHECK(arena_alloc(&a, 24) != NULL);
    arena_reset(&a);
    CHECK(a.total <= 1024);
    CHECK_EQ_STR(arena_printf(&a, "%d", 42), "42");
    arena_destroy(&a);
    CHECK_EQ_INT(mem_used(), before);
}

TEST(test_diag)
{
    diag_t d;
    diag_init(&d, 2);
    CHECK_EQ_INT(diag_warn(&d, WARN_DATA_TRUNCATED, "c", 1ul), 0);
    CHECK_EQ_INT(diag_error(&d, ER_NO_SUCH_TABLE, "db", "t"), -ER_NO_SUCH_TABLE);
    diag_warn(&d, WARN_DATA_TRUNCATED, "c", 2ul);
    CHECK_EQ_INT(d.n, 2);
    CHECK_EQ_INT(d.warn_count, 3);
    CHECK_EQ_INT(d.error_count, 1);
    CHECK_EQ_STR(d.error->msg, "Table 'db.t' doesn't exist");
    CHECK_EQ_STR(d.error->sqlstate, "42S02");
    CHECK_EQ_STR(d.conds[0].msg, "Data truncated for column 'c' at row 1");
    diag_clear(&d);
    CHECK_EQ_INT(d.n, 0);
    CHECK(d.error == NULL);
    diag_free(&d);
}

TEST(test_errors_table)
{
    CHECK_EQ_STR(errors_sqlstate(ER_ACCESS_DENIED_ERROR), "28000");
    CHECK_EQ_STR(errors_sqlstate(99999), "HY000");
    CHECK_EQ_STR(errors_format(ER_CON_COUNT_ERROR), "Too many connections");
}

UNIT_MAIN(test_buf_lenenc, test_arena, test_diag, test_errors_table)
