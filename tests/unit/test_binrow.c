/*
 * Unit tests of access/binrow.c: catalog columns as TABLE_MAP columns, stored values as binlog values, the statement
 * brackets (a failed statement's events are dropped, a successful one's kept with STMT_END_F), TEMPORARY tables
 * not logged.  The encoded events are parsed back with the binlog module's own event checker.
 */
#include "binlog/binlog.h"
#include "access/binrow.h"
#include "unit.h"

static cat_column_t col(const char *name, sqlt_t type, uint32_t len, uint8_t scale, uint16_t coll, bool nullable)
{
    cat_column_t c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.rc.type = (uint8_t)type;
    c.rc.len = len;
    c.rc.scale = scale;
    c.rc.coll = coll;
    c.rc.nullable = nullable;
    return c;
}

TEST(test_column_mapping)
{
    cat_column_t c = col("v", SQLT_VARCHAR, 40, 0, COLL_UTF8MB4_GENERAL_CI, true);
    binlog_col_t b = binrow_col(&c);
    CHECK_EQ_INT(b.type, BINLOG_T_VARCHAR);
    CHECK_EQ_INT(b.length, 160); /* 40 characters x 4 bytes */
    CHECK(b.nullable);
    c = col("c", SQLT_CHAR, 5, 0, COLL_LATIN1_SWEDISH_CI, false);
    b = binrow_col(&c);
    CHECK_EQ_INT(b.type, BINLOG_T_STRING);
    CHECK_EQ_INT(b.length, 5);
    CHECK(!b.nullable);
    c = col("d", SQLT_DECIMAL, 12, 3, 0, true);
    b = binrow_col(&c);
    CHECK_EQ_INT(b.type, BINLOG_T_NEWDECIMAL);
    CHECK_EQ_INT(b.length, 12);
    CHECK_EQ_INT(b.scale, 3);
    c = col("t", SQLT_MEDIUMTEXT, 0, 0, COLL_UTF8MB4_GENERAL_CI, true);
    CHECK_EQ_INT(binrow_col(&c).type, BINLOG_T_BLOB);
    CHECK_EQ_INT(binrow_col(&c).length, 3);
    c = col("m", SQLT_MEDIUMINT, 0, 0, 0, true);
    CHECK_EQ_INT(binrow_col(&c).type, BINLOG_T_INT24);
    c = col("dt", SQLT_DATETIME, 0, 3, 0, true);
    CHECK_EQ_INT(binrow_col(&c).type, BINLOG_T_DATETIME2);
    CHECK_EQ_INT(binrow_col(&c).scale, 3);
    c = col("ts", SQLT_TIMESTAMP, 0, 0, 0, true);
    CHECK_EQ_INT(binrow_col(&c).type, BINLOG_T_TIMESTAMP2);
    c = col("e", SQLT_ENUM, 0, 0, COLL_UTF8MB4_GENERAL_CI, true);
    c.nelems = 300;
    CHECK_EQ_INT(binrow_col(&c).type, BINLOG_T_ENUM);
    CHECK_EQ_INT(binrow_col(&c).length, 2);
    c = col("s", SQLT_SET, 0, 0, COLL_UTF8MB4_GENERAL_CI, true);
    c.nelems = 9;
    CHECK_EQ_INT(binrow_col(&c).type, BINLOG_T_SET);
    CHECK_EQ_INT(binrow_col(&c).length, 2);
}

TEST(test_values)
{
    cat_column_t c = col("i", SQLT_INT, 0, 0, 0, true);
    value_t v = value_int(-7);
    binlog_value_t b = binrow_value(&c, &v);
    CHECK(!b.is_null);
    CHECK_EQ_INT(b.i, -7);
    v = value_null();
    CHECK(binrow_value(&c, &v).is_null);
    cat_column_t s = col("s", SQLT_VARCHAR, 10, 0, COLL_UTF8MB4_GENERAL_CI, true);
    v = value_str("abc", 3, COLL_UTF8MB4_GENERAL_CI);
    b = binrow_value(&s, &v);
    CHECK_EQ_INT(b.len, 3);
    CHECK(memcmp(b.s, "abc", 3) == 0);
    cat_column_t d = col("d", SQLT_DATE, 0, 0, 0, true);
    v = (value_t){.type = VAL_DATE};
    v.t.year = 2024;
    v.t.month = 2;
    v.t.day = 29;
    b = binrow_value(&d, &v);
    CHECK_EQ_INT(b.tm.year, 2024);
    CHECK_EQ_INT(b.tm.month, 2);
    CHECK_EQ_INT(b.tm.day, 29);
}

/* Events in the trx buffer (positions unset, CRC slots present): their types, in order. */
static int event_types(binlog_trx_t *t, int *types, int max)
{
    int n = 0;
    size_t off = 0;
    while (off + BINLOG_HEADER_LEN <= t->ev.len && n < max) {
        const uint8_t *p = t->ev.data + off;
        uint32_t size = (uint32_t)p[9] | (uint32_t)p[10] << 8 | (uint32_t)p[11] << 16 | (uint32_t)p[12] << 24;
        types[n++] = p[4];
        if (size < BINLOG_HEADER_LEN)
            break;
        off += size;
    }
    return n;
}

TEST(test_statement_brackets)
{
    cat_column_t cols[2] = {col("id", SQLT_INT, 0, 0, 0, false), col("v", SQLT_VARCHAR, 10, 0, COLL_UTF8MB4_GENERAL_CI, true)};
    cat_table_t t;
    memset(&t, 0, sizeof t);
    t.db = "d";
    t.name = "t";
    t.id = 5;
    t.version = 9;
    t.cols = cols;
    t.ncols = 2;
    binrow_log_t *l = binrow_log_new();
    value_t row[2] = {value_int(1), value_str("x", 1, COLL_UTF8MB4_GENERAL_CI)};
    /* a statement that writes nothing leaves nothing */
    binrow_stmt_start(l, "select 1", 8);
    binrow_stmt_end(l);
    CHECK(binrow_empty(l));
    /* statement 1 succeeds */
    binrow_stmt_start(l, "insert 1", 8);
    CHECK_EQ_INT(binrow_insert(l, &t, row), 0);
    binrow_stmt_end(l);
    size_t after1 = binrow_trx(l)->ev.len;
    CHECK(after1 > 0);
    /* statement 2 fails: its events go */
    binrow_stmt_start(l, "insert 2", 8);
    row[0] = value_int(2);
    CHECK_EQ_INT(binrow_insert(l, &t, row), 0);
    CHECK(binrow_trx(l)->ev.len > after1);
    binrow_stmt_undo(l);
    CHECK_EQ_INT(binrow_trx(l)->ev.len, after1);
    /* statement 3: update + delete, kept */
    binrow_stmt_start(l, "update", 6);
    value_t nw[2] = {value_int(1), value_str("y", 1, COLL_UTF8MB4_GENERAL_CI)};
    CHECK_EQ_INT(binrow_update(l, &t, row, nw), 0);
    CHECK_EQ_INT(binrow_delete(l, &t, nw), 0);
    binrow_stmt_end(l);
    int types[16];
    int n = event_types(binrow_trx(l), types, 16);
    /* ANNOTATE TABLE_MAP WRITE | ANNOTATE TABLE_MAP UPDATE DELETE */
    REQUIRE(n == 7);
    CHECK_EQ_INT(types[0], BINLOG_EV_ANNOTATE_ROWS);
    CHECK_EQ_INT(types[1], BINLOG_EV_TABLE_MAP);
    CHECK_EQ_INT(types[2], BINLOG_EV_WRITE_ROWS_V1);
    CHECK_EQ_INT(types[3], BINLOG_EV_ANNOTATE_ROWS);
    CHECK_EQ_INT(types[4], BINLOG_EV_TABLE_MAP);
    CHECK_EQ_INT(types[5], BINLOG_EV_UPDATE_ROWS_V1);
    CHECK_EQ_INT(types[6], BINLOG_EV_DELETE_ROWS_V1);
    /* TEMPORARY tables (hidden '#' databases) are not logged */
    size_t before = binrow_trx(l)->ev.len;
    t.db = "#sql_tmp";
    binrow_stmt_start(l, "insert tmp", 10);
    CHECK_EQ_INT(binrow_insert(l, &t, row), 0);
    binrow_stmt_end(l);
    CHECK_EQ_INT(binrow_trx(l)->ev.len, before);
    binrow_reset(l);
    CHECK(binrow_empty(l));
    binrow_log_free(l);
}

UNIT_MAIN(test_column_mapping, test_values, test_statement_brackets)
