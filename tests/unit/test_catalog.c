/* Catalog: databases and tables created, listed, checked, dropped, renamed and replaced over a real engine in a
 * temporary datadir; everything survives close and reopen; MySQL's error codes for bad definitions. */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "access/catalog.h"
#include "unit.h"
#include "util/util.h"

static engine_t *open_engine(const char *dir)
{
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 4u << 20;
    o.log_bytes = 16u << 20;
    o.log_sparse = true;
    o.sys_initial_bytes = 4u << 20;
    o.flush_mode = ENGINE_FLUSH_LAZY;
    engine_t *e = NULL;
    if (engine_open(&o, &e))
        return NULL;
    return e;
}

/* sbtest-like: id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120), pad CHAR(60), KEY k_1(k) */
static cat_table_t *sbtest_def(arena_t *a, const char *db, const char *name)
{
    cat_table_t *t = arena_calloc(a, sizeof *t);
    t->db = db;
    t->name = name;
    t->ncols = 4;
    t->cols = arena_calloc(a, sizeof(cat_column_t) * 4);
    t->cols[0] = (cat_column_t){.name = "id", .rc = {.type = SQLT_INT}, .auto_increment = true, .comment = ""};
    t->cols[1] = (cat_column_t){.name = "k", .rc = {.type = SQLT_INT}, .def = CAT_DEF_VALUE, .default_text = "0", .comment = ""};
    t->cols[2] = (cat_column_t){.name = "c", .rc = {.type = SQLT_CHAR, .len = 120, .coll = COLL_DEFAULT}, .comment = ""};
    t->cols[3] = (cat_column_t){.name = "pad", .rc = {.type = SQLT_CHAR, .len = 60, .coll = COLL_DEFAULT}, .comment = "pad it"};
    t->nidx = 2;
    t->idx = arena_calloc(a, sizeof(cat_index_t) * 2);
    t->has_pk = true;
    t->idx[0] = (cat_index_t){.name = "PRIMARY", .kind = CAT_IDX_PRIMARY, .ncols = 1, .comment = ""};
    t->idx[0].cols = arena_calloc(a, sizeof(cat_index_col_t));
    t->idx[1] = (cat_index_t){.name = "k_1", .kind = CAT_IDX_KEY, .ncols = 1, .comment = ""};
    t->idx[1].cols = arena_calloc(a, sizeof(cat_index_col_t));
    t->idx[1].cols[0].col = 1;
    t->coll = COLL_DEFAULT;
    t->auto_inc_start = 1;
    return t;
}

TEST(test_catalog_persist)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    catalog_t *c;
    REQUIRE(catalog_open(e, dir, &c) == 0);
    diag_t d;
    diag_init(&d, 64);
    arena_t a;
    arena_init(&a, 4096);

    CHECK(catalog_db_exists(c, "information_schema"));
    CHECK(!catalog_db_exists(c, "sbtest"));
    CHECK_EQ_INT(catalog_db_create(c, "sbtest", COLL_DEFAULT, false, &d), 0);
    CHECK_EQ_INT(catalog_db_create(c, "sbtest", COLL_DEFAULT, false, &d), -ER_DB_CREATE_EXISTS);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_db_create(c, "sbtest", COLL_DEFAULT, true, &d), 1);
    CHECK_EQ_INT(d.error_code, 0);
    CHECK_EQ_INT(d.n, 1); /* the note */
    diag_clear(&d);
    CHECK_EQ_INT(catalog_db_create(c, "mysql", COLL_DEFAULT, false, &d), -ER_DB_CREATE_EXISTS);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_db_create(c, "other", COLL_LATIN1_SWEDISH_CI, false, &d), 0);

    uint64_t v0 = catalog_version(c);
    CHECK_EQ_INT(catalog_table_create(c, sbtest_def(&a, "sbtest", "sbtest1"), false, &d), 0);
    CHECK(catalog_version(c) > v0);
    CHECK_EQ_INT(catalog_table_create(c, sbtest_def(&a, "sbtest", "sbtest1"), false, &d), -ER_TABLE_EXISTS_ERROR);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_table_create(c, sbtest_def(&a, "nodb", "t"), false, &d), -ER_BAD_DB_ERROR);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_table_create(c, sbtest_def(&a, "sbtest", "sbtest2"), false, &d), 0);

    cat_table_t *t = catalog_table_get(c, "sbtest", "sbtest1");
    REQUIRE(t);
    CHECK(t->tree != 0);
    CHECK(t->idx[1].tree != 0 && t->idx[1].tree != t->tree);
    CHECK_EQ_INT(t->idx[0].tree, t->tree);
    CHECK_EQ_STR(t->engine, "InnoDB");
    CHECK_EQ_INT(cat_table_col(t, "PAD"), 3);
    CHECK_EQ_INT(cat_table_index(t, "K_1"), 1);
    CHECK_EQ_INT(cat_table_autoinc_col(t), 0);
    engine_tree_id_t tree1 = t->tree;
    uint64_t id1 = t->id;
    catalog_table_release(t);
    CHECK(catalog_table_get(c, "sbtest", "SBTEST1") == NULL); /* table names are case-sensitive */

    /* rows in the clustered tree recover the AUTO_INCREMENT counter at reopen */
    engine_trx_t *x;
    REQUIRE(engine_trx_begin(e, &x) == 0);
    uint8_t key[4] = {0x80, 0, 0, 41}; /* INT 41, sign bit flipped */
    CHECK_EQ_INT(engine_insert(x, tree1, key, 4, "r", 1), 0);
    CHECK_EQ_INT(engine_trx_commit(x), 0);

    const char **names;
    uint32_t n;
    catalog_table_list(c, "sbtest", &a, &names, &n);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(names[0], "sbtest1");
        CHECK_EQ_STR(names[1], "sbtest2");
    }
    catalog_db_list(c, &a, &names, &n);
    CHECK_EQ_INT(n, 4); /* information_schema, performance_schema and two created; `mysql` is not listed */
    if (n == 4) {
        CHECK_EQ_STR(names[0], "information_schema");
        CHECK_EQ_STR(names[3], "sbtest");
    }
    catalog_close(c);
    engine_close(e);

    /* reopen: everything is back */
    e = open_engine(dir);
    REQUIRE(e);
    REQUIRE(catalog_open(e, dir, &c) == 0);
    CHECK(catalog_db_exists(c, "sbtest"));
    CHECK_EQ_INT(catalog_db_coll(c, "other"), COLL_LATIN1_SWEDISH_CI);
    t = catalog_table_get(c, "sbtest", "sbtest1");
    REQUIRE(t);
    CHECK_EQ_INT(t->id, id1);
    CHECK_EQ_INT(t->tree, tree1);
    CHECK_EQ_INT(t->ncols, 4);
    CHECK_EQ_STR(t->cols[3].comment, "pad it");
    CHECK_EQ_INT(t->cols[2].rc.len, 120);
    CHECK_EQ_STR(t->cols[1].default_text, "0");
    CHECK_EQ_INT(t->nidx, 2);
    CHECK_EQ_STR(t->idx[1].name, "k_1");
    CHECK_EQ_INT(atomic_load(&t->ctr->auto_inc), 42);

    /* replace (CREATE INDEX-like): a new version, the old reference stays valid */
    cat_table_t *nt = cat_table_copy(&a, t);
    nt->idx = arena_calloc(&a, sizeof(cat_index_t) * 3);
    memcpy(nt->idx, t->idx, sizeof(cat_index_t) * 2);
    nt->idx[2] = (cat_index_t){.name = "c_1", .kind = CAT_IDX_UNIQUE, .ncols = 1, .comment = ""};
    nt->idx[2].cols = arena_calloc(&a, sizeof(cat_index_col_t));
    nt->idx[2].cols[0] = (cat_index_col_t){.col = 2, .prefix = 10};
    REQUIRE(engine_tree_create(NULL, e, 0, &nt->idx[2].tree) == 0);
    nt->nidx = 3;
    CHECK_EQ_INT(catalog_table_replace(c, nt, &d), 0);
    cat_table_t *t2 = catalog_table_get(c, "sbtest", "sbtest1");
    REQUIRE(t2);
    CHECK_EQ_INT(t2->nidx, 3);
    CHECK_EQ_INT(t->nidx, 2);
    CHECK_EQ_INT(t2->idx[2].cols[0].prefix, 10);
    CHECK(t2->ctr == t->ctr);
    catalog_table_release(t);
    catalog_table_release(t2);

    /* rename, then drop */
    CHECK_EQ_INT(catalog_table_rename(c, "sbtest", "sbtest2", "other", "moved", &d), 0);
    CHECK(catalog_table_get(c, "sbtest", "sbtest2") == NULL);
    t = catalog_table_get(c, "other", "moved");
    CHECK(t != NULL);
    catalog_table_release(t);
    CHECK_EQ_INT(catalog_table_drop(c, "sbtest", "nosuch", false, &d), -ER_BAD_TABLE_ERROR);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_table_drop(c, "sbtest", "nosuch", true, &d), 1);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_table_drop(c, "sbtest", "sbtest1", false, &d), 0);
    CHECK(catalog_table_get(c, "sbtest", "sbtest1") == NULL);
    uint32_t dropped = 0;
    CHECK_EQ_INT(catalog_db_drop(c, "other", false, &d, &dropped), 0);
    CHECK_EQ_INT(dropped, 1);
    CHECK_EQ_INT(catalog_db_drop(c, "other", false, &d, NULL), -ER_DB_DROP_EXISTS);
    diag_clear(&d);
    CHECK_EQ_INT(catalog_db_drop(c, "information_schema", false, &d, NULL), -ER_DBACCESS_DENIED_ERROR);
    diag_clear(&d);
    catalog_close(c);
    engine_close(e);

    e = open_engine(dir);
    REQUIRE(e);
    REQUIRE(catalog_open(e, dir, &c) == 0);
    CHECK(catalog_db_exists(c, "sbtest"));
    CHECK(!catalog_db_exists(c, "other"));
    CHECK(catalog_table_get(c, "sbtest", "sbtest1") == NULL);
    catalog_table_list(c, "sbtest", &a, &names, &n);
    CHECK_EQ_INT(n, 0);
    catalog_close(c);
    engine_close(e);
    diag_free(&d);
    arena_destroy(&a);
    unit_rmdatadir(dir);
}

TEST(test_catalog_checks)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    catalog_t *c;
    REQUIRE(catalog_open(e, dir, &c) == 0);
    diag_t d;
    diag_init(&d, 64);
    arena_t a;
    arena_init(&a, 4096);
    REQUIRE(catalog_db_create(c, "db", COLL_DEFAULT, false, &d) == 0);

    cat_table_t *t = sbtest_def(&a, "db", "t");
    t->ncols = 0;
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_TABLE_MUST_HAVE_COLUMNS);
    t = sbtest_def(&a, "db", "t");
    t->cols[1].name = "ID";
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_DUP_FIELDNAME);
    t = sbtest_def(&a, "db", "t");
    t->idx[1].name = "primary";
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_DUP_KEYNAME);
    t = sbtest_def(&a, "db", "t");
    t->idx[1].kind = CAT_IDX_PRIMARY;
    t->idx[1].name = "x";
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_MULTIPLE_PRI_KEY);
    t = sbtest_def(&a, "db", "t");
    t->cols[2].auto_increment = true;
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_WRONG_AUTO_KEY);
    t = sbtest_def(&a, "db", "t");
    t->idx[1].cols[0].col = 9;
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_KEY_COLUMN_DOES_NOT_EXIST);
    t = sbtest_def(&a, "information_schema", "t");
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), -ER_DBACCESS_DENIED_ERROR);
    diag_clear(&d);
    /* nothing of the failed attempts is left */
    const char **names;
    uint32_t n;
    catalog_table_list(c, "db", &a, &names, &n);
    CHECK_EQ_INT(n, 0);
    catalog_close(c);
    engine_close(e);
    diag_free(&d);
    arena_destroy(&a);
    unit_rmdatadir(dir);
}

/* Generated columns ride at the end of the table record: kept through a copy and a reopen, and a record
 * without that part (every table before them, and every table without one) reads back with none. */
TEST(test_catalog_generated_columns)
{
    char dir[64];
    unit_mkdatadir(dir);
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    catalog_t *c;
    REQUIRE(catalog_open(e, dir, &c) == 0);
    diag_t d;
    diag_init(&d, 64);
    arena_t a;
    arena_init(&a, 4096);
    REQUIRE(catalog_db_create(c, "db", COLL_DEFAULT, false, &d) == 0);
    cat_table_t *t = sbtest_def(&a, "db", "g");
    t->cols[1].def = CAT_DEF_NONE;
    t->cols[1].gen_expr = "`id` + 1";
    t->cols[3].gen_expr = "concat(`c`,'x')";
    t->cols[3].gen_stored = true;
    cat_table_t *cp = cat_table_copy(&a, t);
    CHECK_EQ_STR(cp->cols[1].gen_expr, "`id` + 1");
    CHECK(!cp->cols[1].gen_stored);
    CHECK_EQ_STR(cp->cols[3].gen_expr, "concat(`c`,'x')");
    CHECK(cp->cols[3].gen_stored);
    CHECK(cp->cols[0].gen_expr == NULL && cp->cols[2].gen_expr == NULL);
    CHECK(cat_table_copy(&a, sbtest_def(&a, "db", "p"))->cols[1].gen_expr == NULL);
    CHECK_EQ_INT(catalog_table_create(c, t, false, &d), 0);
    catalog_close(c);
    engine_close(e);
    e = open_engine(dir);
    REQUIRE(e);
    REQUIRE(catalog_open(e, dir, &c) == 0);
    cat_table_t *g = catalog_table_get(c, "db", "g");
    REQUIRE(g);
    CHECK_EQ_STR(g->cols[1].gen_expr, "`id` + 1");
    CHECK(!g->cols[1].gen_stored);
    CHECK_EQ_STR(g->cols[3].gen_expr, "concat(`c`,'x')");
    CHECK(g->cols[3].gen_stored);
    CHECK(g->cols[2].gen_expr == NULL);
    catalog_table_release(g);
    catalog_close(c);
    engine_close(e);
    diag_free(&d);
    arena_destroy(&a);
    unit_rmdatadir(dir);
}

UNIT_MAIN(test_catalog_persist, test_catalog_checks, test_catalog_generated_columns)
