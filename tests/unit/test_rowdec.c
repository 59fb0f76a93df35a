/*
 * Unit tests of binlog/rowdec.c, the row event decoder: events built by the encoder (binlog_trx_* as binrow.c
 * calls it, and binrow.c itself from catalog rows) are decoded back, value by value, for every column type the
 * encoder writes; TABLE_MAP columns come back as they went in; malformed and partial events are refused.
 */
#include <math.h>

#include "binlog/binlog.h"
#include "access/binrow.h"
#include "unit.h"

typedef struct got {
    int n;
    binlog_row_op_t op[16];
    binlog_value_t before[16][24], after[16][24];
    char text[16][24][2][128]; /* copies of strings (valid only during the callback) */
    uint64_t table_id;
    char db[32], name[32];
} got_t;

static void keep(got_t *g, int row, int img, const binlog_table_t *t, const binlog_value_t *v, binlog_value_t *dst)
{
    for (uint32_t i = 0; i < t->ncols; i++) {
        dst[i] = v[i];
        if (v[i].s) {
            size_t n = v[i].len < 127 ? v[i].len : 127;
            memcpy(g->text[row][i][img], v[i].s, n);
            g->text[row][i][img][n] = 0;
            dst[i].s = g->text[row][i][img];
        }
    }
}

static int on_row(void *arg, const binlog_table_t *t, binlog_row_op_t op, const binlog_value_t *before,
                  const binlog_value_t *after)
{
    got_t *g = arg;
    if (g->n == 16)
        return -1;
    g->op[g->n] = op;
    g->table_id = t->id;
    snprintf(g->db, sizeof g->db, "%s", t->db);
    snprintf(g->name, sizeof g->name, "%s", t->name);
    if (before)
        keep(g, g->n, 0, t, before, g->before[g->n]);
    if (after)
        keep(g, g->n, 1, t, after, g->after[g->n]);
    g->n++;
    return 0;
}

/* Feeds every event of the trx buffer (positions unset, CRC slots present) to the decoder. */
static int feed(binlog_trx_t *t, binlog_rowdec_t *d, got_t *g)
{
    size_t off = 0;
    int rc = 0;
    while (rc == 0 && off + BINLOG_HEADER_LEN <= t->ev.len) {
        const uint8_t *p = t->ev.data + off;
        binlog_event_t ev = {0};
        ev.type = p[4];
        ev.size = (uint32_t)p[9] | (uint32_t)p[10] << 8 | (uint32_t)p[11] << 16 | (uint32_t)p[12] << 24;
        ev.data = p;
        ev.pos = off;
        if (ev.size < BINLOG_HEADER_LEN || off + ev.size > t->ev.len)
            return -2;
        rc = binlog_rowdec_event(d, &ev, on_row, g);
        off += ev.size;
    }
    return rc;
}

static binlog_value_t vi(int64_t i) { binlog_value_t v = {0}; v.i = i; return v; }
static binlog_value_t vu(uint64_t u) { binlog_value_t v = {0}; v.u = u; return v; }
static binlog_value_t vd(double d) { binlog_value_t v = {0}; v.d = d; return v; }
static binlog_value_t vs(const char *s) { binlog_value_t v = {0}; v.s = s; v.len = strlen(s); return v; }
static binlog_value_t vnull(void) { binlog_value_t v = {0}; v.is_null = true; return v; }
static binlog_value_t vtm(int y, int mo, int d, int h, int mi, int s, int us, bool neg)
{
    binlog_value_t v = {0};
    v.tm = (binlog_tm_t){y, mo, d, h, mi, s, us, neg};
    return v;
}

enum { NC = 20 };

static void cols_all(binlog_col_t *c)
{
    int k = 0;
    c[k++] = binlog_col(BINLOG_T_TINY, 0, 0, false);
    c[k++] = binlog_col(BINLOG_T_SHORT, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_INT24, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_LONG, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_LONGLONG, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_FLOAT, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_DOUBLE, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_NEWDECIMAL, 20, 6, true);
    c[k++] = binlog_col(BINLOG_T_STRING, 40, 0, true);
    c[k++] = binlog_col(BINLOG_T_VARCHAR, 400, 0, true);
    c[k++] = binlog_col(BINLOG_T_BLOB, 2, 0, true);
    c[k++] = binlog_col(BINLOG_T_DATE, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_DATETIME2, 0, 3, true);
    c[k++] = binlog_col(BINLOG_T_TIMESTAMP2, 0, 6, true);
    c[k++] = binlog_col(BINLOG_T_TIME2, 0, 2, true);
    c[k++] = binlog_col(BINLOG_T_YEAR, 0, 0, true);
    c[k++] = binlog_col(BINLOG_T_ENUM, 1, 0, true);
    c[k++] = binlog_col(BINLOG_T_SET, 2, 0, true);
    c[k++] = binlog_col(BINLOG_T_BIT, 10, 0, true);
    c[k++] = binlog_col(BINLOG_T_STRING, 600, 0, true); /* CHAR(150) utf8mb4: length bits folded into the type */
}

static void row_a(binlog_value_t *v)
{
    v[0] = vi(-128);
    v[1] = vi(-32768);
    v[2] = vi(-8388608);
    v[3] = vi(-2147483647 - 1);
    v[4] = vi(INT64_MIN);
    v[5] = vd(-1.5);
    v[6] = vd(3.141592653589793);
    v[7] = vs("-12345678901234.123456");
    v[8] = vs("char");
    v[9] = vs("a varchar longer than nothing");
    v[10] = vs("blob\001\002");
    v[11] = vtm(2024, 2, 29, 0, 0, 0, 0, false);
    v[12] = vtm(1999, 12, 31, 23, 59, 58, 123000, false);
    v[13] = vi(1700000000);
    v[13].tm.usec = 654321;
    v[14] = vtm(0, 0, 0, 838, 59, 59, 990000, true);
    v[15] = vi(2155);
    v[16] = vu(3);
    v[17] = vu(0x1ff);
    v[18] = vu(1023);
    v[19] = vs("wide");
}

static void row_b(binlog_value_t *v)
{
    v[0] = vi(127);
    v[1] = vnull();
    v[2] = vi(8388607);
    v[3] = vi(0);
    v[4] = vi(INT64_MAX);
    v[5] = vd(0.25);
    v[6] = vnull();
    v[7] = vs("0.000001");
    v[8] = vs("");
    v[9] = vnull();
    v[10] = vs("");
    v[11] = vtm(0, 0, 0, 0, 0, 0, 0, false);
    v[12] = vtm(1000, 1, 1, 0, 0, 0, 0, false);
    v[13] = vi(0);
    v[14] = vtm(0, 0, 0, 0, 0, 1, 500000, true);
    v[15] = vi(0);
    v[16] = vu(1);
    v[17] = vu(0);
    v[18] = vu(0);
    v[19] = vnull();
}

static void check_same(const binlog_col_t *c, const binlog_value_t *want, const binlog_value_t *got)
{
    for (int i = 0; i < NC; i++) {
        CHECK_EQ_INT(got[i].is_null, want[i].is_null);
        if (want[i].is_null)
            continue;
        switch (c[i].type) {
        case BINLOG_T_TINY: case BINLOG_T_SHORT: case BINLOG_T_INT24: case BINLOG_T_LONG: case BINLOG_T_LONGLONG:
        case BINLOG_T_YEAR: case BINLOG_T_TIMESTAMP2:
            CHECK(got[i].i == want[i].i);
            if (c[i].type == BINLOG_T_TIMESTAMP2)
                CHECK_EQ_INT(got[i].tm.usec, want[i].tm.usec);
            break;
        case BINLOG_T_ENUM: case BINLOG_T_SET: case BINLOG_T_BIT:
            CHECK(got[i].u == want[i].u);
            break;
        case BINLOG_T_FLOAT:
            CHECK(fabs(got[i].d - want[i].d) < 1e-6);
            break;
        case BINLOG_T_DOUBLE:
            CHECK(got[i].d == want[i].d);
            break;
        case BINLOG_T_DATE: case BINLOG_T_DATETIME2: case BINLOG_T_TIME2:
            CHECK_EQ_INT(got[i].tm.year, want[i].tm.year);
            CHECK_EQ_INT(got[i].tm.month, want[i].tm.month);
            CHECK_EQ_INT(got[i].tm.day, want[i].tm.day);
            CHECK_EQ_INT(got[i].tm.hour, want[i].tm.hour);
            CHECK_EQ_INT(got[i].tm.minute, want[i].tm.minute);
            CHECK_EQ_INT(got[i].tm.second, want[i].tm.second);
            CHECK_EQ_INT(got[i].tm.usec, want[i].tm.usec);
            CHECK_EQ_INT(got[i].tm.neg, want[i].tm.neg);
            break;
        default:
            REQUIRE(got[i].s != NULL);
            CHECK_EQ_INT((int)got[i].len, (int)want[i].len);
            CHECK(memcmp(got[i].s, want[i].s, want[i].len) == 0);
            break;
        }
    }
}

TEST(test_every_type_round_trip)
{
    binlog_col_t c[NC];
    cols_all(c);
    binlog_table_t tb = {.id = 77, .db = "db1", .name = "tab", .ncols = NC, .cols = c};
    binlog_value_t a[NC], b[NC];
    row_a(a);
    row_b(b);
    binlog_trx_t t;
    binlog_trx_init(&t, BINLOG_TRX_ROWS);
    binlog_trx_stmt_begin(&t, "insert", 6);
    REQUIRE(binlog_trx_write_row(&t, &tb, a) == 0);
    REQUIRE(binlog_trx_write_row(&t, &tb, b) == 0);
    binlog_trx_stmt_begin(&t, "update", 6);
    REQUIRE(binlog_trx_update_row(&t, &tb, a, b) == 0);
    binlog_trx_stmt_begin(&t, "delete", 6);
    REQUIRE(binlog_trx_delete_row(&t, &tb, b) == 0);
    binlog_trx_stmt_end(&t);
    binlog_rowdec_t *d = binlog_rowdec_new();
    static got_t g;
    memset(&g, 0, sizeof g);
    CHECK_EQ_INT(feed(&t, d, &g), 0);
    REQUIRE(g.n == 4);
    CHECK(g.table_id == 77);
    CHECK_EQ_STR(g.db, "db1");
    CHECK_EQ_STR(g.name, "tab");
    CHECK_EQ_INT(g.op[0], BINLOG_ROW_INSERT);
    CHECK_EQ_INT(g.op[1], BINLOG_ROW_INSERT);
    CHECK_EQ_INT(g.op[2], BINLOG_ROW_UPDATE);
    CHECK_EQ_INT(g.op[3], BINLOG_ROW_DELETE);
    check_same(c, a, g.after[0]);
    check_same(c, b, g.after[1]);
    check_same(c, a, g.before[2]);
    check_same(c, b, g.after[2]);
    check_same(c, b, g.before[3]);
    binlog_rowdec_free(d);
    binlog_trx_free(&t);
}

TEST(test_table_map_columns)
{
    binlog_col_t c[NC], back[NC];
    cols_all(c);
    binlog_table_t tb = {.id = 5, .db = "d", .name = "t", .ncols = NC, .cols = c}, out;
    binlog_trx_t t;
    binlog_trx_init(&t, BINLOG_TRX_ROWS);
    binlog_value_t a[NC];
    row_a(a);
    REQUIRE(binlog_trx_write_row(&t, &tb, a) == 0);
    binlog_trx_stmt_end(&t);
    const uint8_t *p = t.ev.data;
    REQUIRE(p[4] == BINLOG_EV_TABLE_MAP);
    binlog_event_t ev = {.type = p[4], .data = p};
    ev.size = (uint32_t)p[9] | (uint32_t)p[10] << 8 | (uint32_t)p[11] << 16 | (uint32_t)p[12] << 24;
    char db[256], name[256];
    REQUIRE(binlog_table_map_decode(&ev, &out, back, NC, db, name) == 0);
    CHECK_EQ_INT(out.ncols, NC);
    for (int i = 0; i < NC; i++) {
        CHECK_EQ_INT(back[i].type, c[i].type);
        CHECK_EQ_INT(back[i].length, c[i].length);
        CHECK_EQ_INT(back[i].scale, c[i].scale);
        CHECK_EQ_INT(back[i].nullable, c[i].nullable);
    }
    /* fewer columns than the map has room for: refused */
    CHECK(binlog_table_map_decode(&ev, &out, back, 3, db, name) != 0);
    binlog_trx_free(&t);
}

TEST(test_decimals)
{
    const char *in[] = {"0.00", "1.50", "-1.50", "123456789012.34", "-0.01", "99999999999999999.99"};
    const char *want[] = {"0.00", "1.50", "-1.50", "123456789012.34", "-0.01", "99999999999999999.99"};
    binlog_col_t c = binlog_col(BINLOG_T_NEWDECIMAL, 19, 2, false);
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        buf_t b;
        buf_init(&b);
        binlog_value_t v = vs(in[i]), out;
        REQUIRE(binlog_value_encode(&b, &c, &v) == 0);
        char text[96];
        size_t used = 0;
        REQUIRE(binlog_value_decode(b.data, b.len, &c, &out, text, &used) == 0);
        CHECK_EQ_INT((int)used, (int)b.len);
        CHECK_EQ_STR(out.s, want[i]);
        /* one byte short: refused, not read past the end */
        CHECK(binlog_value_decode(b.data, b.len - 1, &c, &out, text, &used) == STRATA_ECORRUPT);
        buf_free(&b);
    }
}

/* binrow.c's own images of catalog rows decode back to the values it was given. */
TEST(test_binrow_rows)
{
    cat_column_t cols[3];
    memset(cols, 0, sizeof cols);
    cols[0].name = "id";
    cols[0].rc.type = SQLT_BIGINT;
    cols[1].name = "v";
    cols[1].rc.type = SQLT_VARCHAR;
    cols[1].rc.len = 10;
    cols[1].rc.coll = COLL_UTF8MB4_GENERAL_CI;
    cols[1].rc.nullable = true;
    cols[2].name = "u";
    cols[2].rc.type = SQLT_INT;
    cols[2].rc.is_unsigned = true;
    cat_table_t t;
    memset(&t, 0, sizeof t);
    t.db = "d";
    t.name = "nopk";
    t.id = 3;
    t.version = 4;
    t.cols = cols;
    t.ncols = 3;
    binrow_log_t *l = binrow_log_new();
    value_t r1[3] = {value_int(-5), value_str("abc", 3, COLL_UTF8MB4_GENERAL_CI), value_uint(4000000000u)};
    value_t r2[3] = {value_int(6), value_null(), value_uint(0)};
    binrow_stmt_start(l, "x", 1);
    REQUIRE(binrow_insert(l, &t, r1) == 0);
    REQUIRE(binrow_update(l, &t, r1, r2) == 0);
    binrow_stmt_end(l);
    binlog_rowdec_t *d = binlog_rowdec_new();
    static got_t g;
    memset(&g, 0, sizeof g);
    CHECK_EQ_INT(feed(binrow_trx(l), d, &g), 0);
    REQUIRE(g.n == 2);
    CHECK(g.after[0][0].i == -5);
    CHECK_EQ_STR(g.after[0][1].s, "abc");
    /* UNSIGNED comes sign-extended: the applier masks it to the column's width */
    CHECK((uint32_t)g.after[0][2].i == 4000000000u);
    CHECK(g.before[1][0].i == -5);
    CHECK(g.after[1][0].i == 6);
    CHECK(g.after[1][1].is_null);
    binlog_rowdec_free(d);
    binrow_log_free(l);
}

TEST(test_refusals)
{
    binlog_col_t c[2] = {binlog_col(BINLOG_T_LONG, 0, 0, false), binlog_col(BINLOG_T_VARCHAR, 20, 0, true)};
    binlog_table_t tb = {.id = 9, .db = "d", .name = "t", .ncols = 2, .cols = c};
    binlog_value_t v[2] = {vi(1), vs("hello")};
    binlog_trx_t t;
    binlog_trx_init(&t, BINLOG_TRX_ROWS);
    REQUIRE(binlog_trx_write_row(&t, &tb, v) == 0);
    binlog_trx_stmt_end(&t);
    binlog_rowdec_t *d = binlog_rowdec_new();
    static got_t g;
    /* a rows event without its TABLE_MAP */
    const uint8_t *p = t.ev.data;
    uint32_t msize = (uint32_t)p[9] | (uint32_t)p[10] << 8;
    binlog_event_t ev = {.type = t.ev.data[msize + 4], .data = t.ev.data + msize};
    ev.size = (uint32_t)ev.data[9] | (uint32_t)ev.data[10] << 8;
    memset(&g, 0, sizeof g);
    CHECK_EQ_INT(binlog_rowdec_event(d, &ev, on_row, &g), STRATA_ECORRUPT);
    /* a truncated string value: the row's bytes run out */
    memset(&g, 0, sizeof g);
    binlog_trx_t t2;
    binlog_trx_init(&t2, BINLOG_TRX_ROWS);
    REQUIRE(binlog_trx_write_row(&t2, &tb, v) == 0);
    binlog_trx_stmt_end(&t2);
    uint8_t *q = t2.ev.data + msize;
    /* the rows event ends 3 bytes early: the string value runs past it */
    uint32_t sz = (uint32_t)q[9] | (uint32_t)q[10] << 8;
    sz -= 3;
    q[9] = (uint8_t)sz;
    q[10] = (uint8_t)(sz >> 8);
    CHECK(feed(&t2, d, &g) != 0);
    CHECK_EQ_INT(g.n, 0);
    binlog_rowdec_free(d);
    binlog_trx_free(&t);
    binlog_trx_free(&t2);
}

UNIT_MAIN(test_every_type_round_trip, test_table_map_columns, test_decimals, test_binrow_rows, test_refusals)
