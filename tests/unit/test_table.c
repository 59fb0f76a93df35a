/* Table access over a real engine: inserts with primary/unique checks (1062 messages), case-insensitive unique
 * keys, updates moving index entries, deletes, range scans both ways over PK and secondary indexes, hidden row
 * ids, AUTO_INCREMENT, statement undo, table full (1114), and storing values with strict/non-strict rules. */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "access/catalog.h"
#include "access/table.h"
#include "unit.h"
#include "util/util.h"

static char dir[64];
static engine_t *eng;
static catalog_t *cat;

static void setup(void)
{
    strcpy(dir, "/tmp/strata_tab_XXXXXX");
    if (!mkdtemp(dir))
        abort();
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 8u << 20;
    o.log_bytes = 32u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    o.flush_mode = ENGINE_FLUSH_LAZY;
    if (engine_open(&o, &eng) || catalog_open(eng, dir, &cat))
        abort();
    diag_t d;
    diag_init(&d, 8);
    catalog_db_create(cat, "db", COLL_DEFAULT, false, &d);
    diag_free(&d);
}

static void teardown(void)
{
    catalog_close(cat);
    engine_close(eng);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

/* t(id INT PK AUTO_INCREMENT, k INT, name VARCHAR(20) utf8mb4_general_ci, UNIQUE KEY u_name(name), KEY k(k)) */
static cat_table_t *mk_table(arena_t *a, const char *name, bool with_pk)
{
    cat_table_t *t = arena_calloc(a, sizeof *t);
    t->db = "db";
    t->name = name;
    t->ncols = 3;
    t->cols = arena_calloc(a, sizeof(cat_column_t) * 3);
    t->cols[0] = (cat_column_t){.name = "id", .rc = {.type = SQLT_INT}, .auto_increment = with_pk, .comment = ""};
    t->cols[1] = (cat_column_t){.name = "k", .rc = {.type = SQLT_INT, .nullable = true}, .comment = ""};
    t->cols[2] = (cat_column_t){.name = "name", .rc = {.type = SQLT_VARCHAR, .len = 20, .coll = COLL_DEFAULT, .nullable = true}, .comment = ""};
    t->idx = arena_calloc(a, sizeof(cat_index_t) * 3);
    uint32_t n = 0;
    if (with_pk) {
        t->has_pk = true;
        t->idx[n] = (cat_index_t){.name = "PRIMARY", .kind = CAT_IDX_PRIMARY, .ncols = 1, .comment = ""};
        t->idx[n].cols = arena_calloc(a, sizeof(cat_index_col_t));
        n++;
    }
    t->idx[n] = (cat_index_t){.name = "u_name", .kind = CAT_IDX_UNIQUE, .ncols = 1, .comment = ""};
    t->idx[n].cols = arena_calloc(a, sizeof(cat_index_col_t));
    t->idx[n].cols[0].col = 2;
    n++;
    t->idx[n] = (cat_index_t){.name = "k", .kind = CAT_IDX_KEY, .ncols = 1, .comment = ""};
    t->idx[n].cols = arena_calloc(a, sizeof(cat_index_col_t));
    t->idx[n].cols[0].col = 1;
    n++;
    t->nidx = n;
    t->coll = COLL_DEFAULT;
    t->auto_inc_start = 1;
    return t;
}

static void row3(value_t *r, int64_t id, int64_t k, const char *name)
{
    r[0] = value_int(id);
    r[1] = value_int(k);
    r[2] = name ? value_str(name, strlen(name), COLL_DEFAULT) : value_null();
}

/* Scans index ix (-1 clustered) between optional int bounds on its first column; returns ids in order. */
static int scan_ids(engine_trx_t *x, cat_table_t *t, int ix, const int64_t *lo, const int64_t *hi, bool desc, int64_t *ids)
{
    arena_t a;
    arena_init(&a, 1024);
    buf_t bl, bh;
    buf_init(&bl);
    buf_init(&bh);
    int use = ix < 0 ? 0 : ix;
    rc_col_t rc = table_index_rc(t, (uint32_t)use, 0);
    if (lo) {
        value_t v = value_int(*lo);
        rc_key_append(&bl, &rc, &v);
    }
    if (hi) {
        value_t v = value_int(*hi);
        rc_key_append(&bh, &rc, &v);
    }
    table_scan_t s;
    int n = 0;
    if (table_scan_open(&s, x, t, ix, lo ? &bl : NULL, hi ? &bh : NULL, desc, &a) == 0) {
        while (table_scan_next(&s) == 0)
            ids[n++] = s.row[0].i;
    }
    table_scan_close(&s);
    buf_free(&bl);
    buf_free(&bh);
    arena_destroy(&a);
    return n;
}

TEST(test_table_rows)
{
    setup();
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 16);
    REQUIRE(catalog_table_create(cat, mk_table(&a, "t", true), false, &d) == 0);
    cat_table_t *t = catalog_table_get(cat, "db", "t");
    REQUIRE(t);
    engine_trx_t *x;
    REQUIRE(engine_trx_begin(eng, &x) == 0);
    value_t r[3];
    for (int i = 1; i <= 20; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "n%02d", i);
        row3(r, i, 100 - i, nm);
        CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), 0);
    }
    /* duplicates: primary, then the case-insensitive unique name */
    row3(r, 5, 1, "zz");
    CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), -ER_DUP_ENTRY);
    CHECK(d.error && strcmp(d.error->msg, "Duplicate entry '5' for key 'PRIMARY'") == 0);
    diag_clear(&d);
    row3(r, 50, 1, "N07");
    CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), -ER_DUP_ENTRY);
    CHECK(d.error && strcmp(d.error->msg, "Duplicate entry 'N07' for key 'u_name'") == 0);
    diag_clear(&d);
    row3(r, 51, 1, "n07   "); /* PAD SPACE: equal */
    table_dup_t dup = {.index = -1};
    buf_init(&dup.pk);
    CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, &dup), TABLE_DUP);
    CHECK_EQ_INT(dup.index, 1);
    CHECK_EQ_INT(d.n, 0);
    value_t got[3];
    buf_t store;
    buf_init(&store);
    CHECK_EQ_INT(table_get(x, t, dup.pk.data, dup.pk.len, &store, got), 0);
    CHECK_EQ_INT(got[0].i, 7);
    /* NULLs never conflict in a unique index */
    row3(r, 60, 1, NULL);
    CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), 0);
    row3(r, 61, 1, NULL);
    CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), 0);

    int64_t ids[64];
    int64_t lo = 5, hi = 9;
    int n = scan_ids(x, t, -1, &lo, &hi, false, ids);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_INT(ids[0], 5);
    CHECK_EQ_INT(ids[4], 9);
    n = scan_ids(x, t, -1, &lo, &hi, true, ids);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_INT(ids[0], 9);
    CHECK_EQ_INT(ids[4], 5);
    /* secondary k = 100 - id: k in [85, 90] -> ids 15..10 in k order */
    lo = 85, hi = 90;
    n = scan_ids(x, t, 2, &lo, &hi, false, ids);
    CHECK_EQ_INT(n, 6);
    CHECK_EQ_INT(ids[0], 15);
    CHECK_EQ_INT(ids[5], 10);
    n = scan_ids(x, t, 2, NULL, NULL, false, ids);
    CHECK_EQ_INT(n, 22);
    n = scan_ids(x, t, -1, NULL, NULL, true, ids);
    CHECK_EQ_INT(n, 22);
    CHECK_EQ_INT(ids[0], 61);

    /* update: k moves in its index; name change checked against the unique index */
    buf_t pk;
    buf_init(&pk);
    value_t old[3], nw[3];
    row3(old, 3, 97, "n03");
    table_pk_key(t, old, 0, &pk);
    row3(nw, 3, 1000, "n03");
    CHECK_EQ_INT(table_update(x, t, &pk, old, nw, NULL, &d, NULL), 0);
    lo = 1000, hi = 1000;
    n = scan_ids(x, t, 2, &lo, &hi, false, ids);
    CHECK_EQ_INT(n, 1);
    lo = 97, hi = 97;
    CHECK_EQ_INT(scan_ids(x, t, 2, &lo, &hi, false, ids), 0);
    row3(old, 3, 1000, "n03");
    row3(nw, 3, 1000, "N04");
    CHECK_EQ_INT(table_update(x, t, &pk, old, nw, NULL, &d, NULL), -ER_DUP_ENTRY);
    diag_clear(&d);
    row3(nw, 3, 1000, "N03"); /* same under the collation: no conflict with itself */
    CHECK_EQ_INT(table_update(x, t, &pk, old, nw, NULL, &d, NULL), 0);
    /* PK change */
    row3(old, 3, 1000, "N03");
    row3(nw, 300, 1000, "N03");
    CHECK_EQ_INT(table_update(x, t, &pk, old, nw, NULL, &d, NULL), 0);
    CHECK_EQ_INT(table_get(x, t, pk.data, pk.len, &store, got), STRATA_ENOTFOUND);
    lo = 1000, hi = 1000;
    n = scan_ids(x, t, 2, &lo, &hi, false, ids);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(ids[0], 300);
    /* delete */
    table_pk_key(t, nw, 0, &pk);
    CHECK_EQ_INT(table_delete(x, t, &pk, nw, NULL, &d), 0);
    CHECK_EQ_INT(scan_ids(x, t, 2, &lo, &hi, false, ids), 0);
    row3(r, 77, 1, "n03"); /* the name is free again */
    CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), 0);

    /* a statement's changes taken back through the engine savepoint it began at: two inserts and an update */
    table_stmt_t u = {0};
    uint64_t sp = engine_trx_savepoint(x);
    row3(r, 200, 5, "u1");
    CHECK_EQ_INT(table_insert(x, t, r, &u, &d, NULL), 0);
    row3(r, 201, 5, "u2");
    CHECK_EQ_INT(table_insert(x, t, r, &u, &d, NULL), 0);
    row3(old, 1, 99, "n01");
    row3(nw, 1, 7, "n01x");
    table_pk_key(t, old, 0, &pk);
    CHECK_EQ_INT(table_update(x, t, &pk, old, nw, &u, &d, NULL), 0);
    CHECK_EQ_INT(engine_trx_rollback_to(x, sp), 0);
    lo = 200, hi = 201;
    CHECK_EQ_INT(scan_ids(x, t, -1, &lo, &hi, false, ids), 0);
    lo = 5, hi = 7;
    CHECK_EQ_INT(scan_ids(x, t, 2, &lo, &hi, false, ids), 0);
    CHECK_EQ_INT(table_get(x, t, pk.data, pk.len, &store, got), 0);
    CHECK_EQ_INT(got[1].i, 99);
    CHECK_EQ_INT(engine_trx_commit(x), 0);

    /* AUTO_INCREMENT */
    table_autoinc_seen(t, 61);
    CHECK_EQ_INT(table_autoinc_next(t), 62);
    CHECK_EQ_INT(table_autoinc_next(t), 63);
    table_autoinc_seen(t, 10);
    CHECK_EQ_INT(table_autoinc_next(t), 64);

    buf_free(&pk);
    buf_free(&store);
    buf_free(&dup.pk);
    catalog_table_release(t);
    diag_free(&d);
    arena_destroy(&a);
    teardown();
}

TEST(test_table_hidden_rowid)
{
    setup();
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 16);
    REQUIRE(catalog_table_create(cat, mk_table(&a, "h", false), false, &d) == 0);
    cat_table_t *t = catalog_table_get(cat, "db", "h");
    REQUIRE(t);
    engine_trx_t *x;
    REQUIRE(engine_trx_begin(eng, &x) == 0);
    value_t r[3];
    for (int i = 0; i < 5; i++) {
        row3(r, 1, i, NULL); /* same id everywhere: no PK, no conflict */
        CHECK_EQ_INT(table_insert(x, t, r, NULL, &d, NULL), 0);
    }
    int64_t ids[16];
    CHECK_EQ_INT(scan_ids(x, t, -1, NULL, NULL, false, ids), 5);
    CHECK_EQ_INT(engine_trx_commit(x), 0);
    catalog_table_release(t);
    /* row ids continue after a restart */
    catalog_close(cat);
    engine_close(eng);
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 8u << 20;
    REQUIRE(engine_open(&o, &eng) == 0);
    REQUIRE(catalog_open(eng, dir, &cat) == 0);
    t = catalog_table_get(cat, "db", "h");
    REQUIRE(t);
    CHECK_EQ_INT(atomic_load(&t->ctr->row_id), 6);
    catalog_table_release(t);
    diag_free(&d);
    arena_destroy(&a);
    teardown();
}

TEST(test_table_full)
{
    setup();
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 16);
    uint32_t sid;
    REQUIRE(engine_tablespace_create(eng, "ts1", "ts1.dat", 2u << 20, 1u << 20, &sid) == 0);
    cat_table_t *def = mk_table(&a, "f", true);
    def->space_id = sid;
    def->tablespace = "ts1";
    def->nidx = 1; /* PK only */
    REQUIRE(catalog_table_create(cat, def, false, &d) == 0);
    cat_table_t *t = catalog_table_get(cat, "db", "f");
    REQUIRE(t);
    CHECK_EQ_STR(t->tablespace, "ts1");
    char big[4000];
    memset(big, 'x', sizeof big);
    t->cols[2].rc.len = 20; /* the codec stores what it is given */
    int rc = 0, i;
    for (i = 1; i < 5000 && rc == 0; i++) {
        engine_trx_t *x;
        REQUIRE(engine_trx_begin(eng, &x) == 0);
        value_t r[3] = {value_int(i), value_int(i), value_str(big, sizeof big, COLL_DEFAULT)};
        rc = table_insert(x, t, r, NULL, &d, NULL);
        if (rc)
            engine_trx_rollback(x);
        else
            engine_trx_commit(x);
    }
    CHECK_EQ_INT(rc, -ER_RECORD_FILE_FULL);
    CHECK(d.error && strcmp(d.error->msg, "The table 'f' is full") == 0);
    CHECK(i > 10);
    catalog_table_release(t);
    diag_free(&d);
    arena_destroy(&a);
    teardown();
}

static const char *store_text(cat_table_t *t, uint32_t col, value_t v, bool strict, int *rc, diag_t *d, arena_t *a)
{
    value_t out;
    *rc = table_value_store(t, col, &v, &out, a, d, strict, 1);
    if (*rc)
        return "ERR";
    value_t o = table_value_out(&t->cols[col], &out, a);
    if (o.type == VAL_NULL)
        return "NULL";
    size_t n;
    const char *s = value_to_text(a, &o, &n);
    return arena_strndup(a, s, n);
}

TEST(test_value_store)
{
    arena_t a;
    arena_init(&a, 4096);
    diag_t d;
    diag_init(&d, 16);
    cat_table_t t = {.db = "db", .name = "t", .ncols = 6};
    static const char *colors[] = {"red", "green", "blue"};
    cat_column_t cols[6] = {
        {.name = "ti", .rc = {.type = SQLT_TINYINT}},
        {.name = "dc", .rc = {.type = SQLT_DECIMAL, .len = 5, .scale = 2}},
        {.name = "vc", .rc = {.type = SQLT_VARCHAR, .len = 3, .coll = COLL_DEFAULT}},
        {.name = "dt", .rc = {.type = SQLT_DATETIME}},
        {.name = "en", .rc = {.type = SQLT_ENUM, .coll = COLL_DEFAULT}, .elems = colors, .nelems = 3},
        {.name = "st", .rc = {.type = SQLT_SET, .coll = COLL_DEFAULT}, .elems = colors, .nelems = 3},
    };
    t.cols = cols;
    int rc;
    CHECK_EQ_STR(store_text(&t, 0, value_int(100), true, &rc, &d, &a), "100");
    CHECK_EQ_STR(store_text(&t, 0, value_int(300), true, &rc, &d, &a), "ERR");
    CHECK_EQ_INT(rc, -ER_WARN_DATA_OUT_OF_RANGE);
    CHECK(d.error && strcmp(d.error->msg, "Out of range value for column 'ti' at row 1") == 0);
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 0, value_int(300), false, &rc, &d, &a), "127");
    CHECK_EQ_INT(d.n, 1);
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 0, value_str("abc", 3, COLL_DEFAULT), true, &rc, &d, &a), "ERR");
    CHECK_EQ_INT(rc, -ER_TRUNCATED_WRONG_VALUE_FOR_FIELD);
    CHECK(d.error && strcmp(d.error->msg, "Incorrect integer value: 'abc' for column `db`.`t`.`ti` at row 1") == 0);
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 0, value_str(" 12 ", 4, COLL_DEFAULT), true, &rc, &d, &a), "12");
    CHECK_EQ_STR(store_text(&t, 0, value_double(-2.5), true, &rc, &d, &a), "-3");
    CHECK_EQ_STR(store_text(&t, 1, value_str("1.005", 5, COLL_DEFAULT), true, &rc, &d, &a), "1.01");
    CHECK_EQ_STR(store_text(&t, 1, value_int(7), true, &rc, &d, &a), "7.00");
    CHECK_EQ_STR(store_text(&t, 1, value_double(-0.001), true, &rc, &d, &a), "0.00");
    CHECK_EQ_STR(store_text(&t, 1, value_int(1000), true, &rc, &d, &a), "ERR");
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 1, value_int(-1000), false, &rc, &d, &a), "-999.99");
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 2, value_str("abcd", 4, COLL_DEFAULT), true, &rc, &d, &a), "ERR");
    CHECK_EQ_INT(rc, -ER_DATA_TOO_LONG);
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 2, value_str("ab   ", 5, COLL_DEFAULT), true, &rc, &d, &a), "ab ");
    CHECK_EQ_STR(store_text(&t, 2, value_str("\xc3\xa9\xc3\xa9\xc3\xa9", 6, COLL_DEFAULT), true, &rc, &d, &a), "\xc3\xa9\xc3\xa9\xc3\xa9");
    CHECK_EQ_STR(store_text(&t, 2, value_int(12345), false, &rc, &d, &a), "123");
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 3, value_str("2024-01-02 03:04:05", 19, COLL_DEFAULT), true, &rc, &d, &a), "2024-01-02 03:04:05");
    CHECK_EQ_STR(store_text(&t, 3, value_str("2024-01-02", 10, COLL_DEFAULT), true, &rc, &d, &a), "2024-01-02 00:00:00");
    CHECK_EQ_STR(store_text(&t, 3, value_str("junk", 4, COLL_DEFAULT), true, &rc, &d, &a), "ERR");
    CHECK_EQ_INT(rc, -ER_TRUNCATED_WRONG_VALUE);
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 4, value_str("GREEN", 5, COLL_DEFAULT), true, &rc, &d, &a), "green");
    CHECK_EQ_STR(store_text(&t, 4, value_int(3), true, &rc, &d, &a), "blue");
    CHECK_EQ_STR(store_text(&t, 4, value_str("pink", 4, COLL_DEFAULT), true, &rc, &d, &a), "ERR");
    diag_clear(&d);
    CHECK_EQ_STR(store_text(&t, 5, value_str("blue,red", 8, COLL_DEFAULT), true, &rc, &d, &a), "red,blue");
    CHECK_EQ_STR(store_text(&t, 0, value_null(), true, &rc, &d, &a), "ERR");
    CHECK_EQ_INT(rc, -ER_BAD_NULL_ERROR);
    diag_clear(&d);
    value_t dv;
    CHECK_EQ_INT(table_value_default(&cols[0], &dv, &a, &d, true), -1364);
    diag_free(&d);
    arena_destroy(&a);
}

UNIT_MAIN(test_table_rows, test_table_hidden_rowid, test_table_full, test_value_store)
