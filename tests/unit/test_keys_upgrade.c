/*
 * Key format step 1 -> 2 at start-up (exec.c, sql_exec_keys_upgrade): tables whose indexes were written in key
 * format 1 over utf8mb4_general_ci / latin1_swedish_ci strings are brought to format 2 when the server opens the
 * datadir.  A format-1 datadir is made here by rewriting catalog records of tables made by this build: the
 * index's key version set back to 1 (and, for the rebuild case, its tree swapped for an empty one, which only a
 * rebuild fills again).
 */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "access/catalog.h"
#include "sql/exec/exec.h"
#include "access/rowcodec.h"
#include "sql/sql.h"
#include "unit.h"
#include "util/util.h"

#include "sql_exec_harness.h"

/* Rewrites db.name's record as an older strata (key format `version`) would have left it. */
static void make_format(const char *name, int version, bool empty_secondary, int coll)
{
    catalog_t *c = sql_exec_catalog();
    cat_table_t *t = catalog_table_get(c, "db", name);
    REQUIRE(t);
    arena_t a;
    arena_init(&a, 4096);
    cat_table_t *nt = cat_table_copy(&a, t);
    for (uint32_t i = 0; i < nt->nidx; i++) {
        nt->idx[i].key_version = (uint8_t)version;
        if (empty_secondary && nt->idx[i].kind != CAT_IDX_PRIMARY)
            CHECK_EQ_INT(engine_tree_create(NULL, eng, nt->space_id, &nt->idx[i].tree), 0);
    }
    if (coll >= 0)
        for (uint32_t i = 0; i < nt->ncols; i++)
            if (sqlt_is_string((sqlt_t)nt->cols[i].rc.type))
                nt->cols[i].rc.coll = (uint16_t)coll;
    diag_t d;
    diag_init(&d, 4);
    CHECK_EQ_INT(catalog_table_replace(c, nt, &d), 0);
    diag_free(&d);
    arena_destroy(&a);
    catalog_table_release(t);
}

static void make_format1(const char *name, bool empty_secondary, int coll)
{
    make_format(name, 1, empty_secondary, coll);
}

static int key_version(const char *name, engine_tree_id_t *tree)
{
    cat_table_t *t = catalog_table_get(sql_exec_catalog(), "db", name);
    if (!t)
        return -1;
    int v = t->idx[t->nidx - 1].key_version;
    *tree = t->idx[t->nidx - 1].tree;
    catalog_table_release(t);
    return v;
}

TEST(test_upgrade_ascii_and_rebuild)
{
    setup();
    CHECK_SQL("CREATE DATABASE db", "OK 1");
    CHECK_SQL("CREATE TABLE a (id INT PRIMARY KEY, s VARCHAR(10), KEY ks (s))", "OK 0");
    CHECK_SQL("INSERT INTO a VALUES (1, 'abc'), (2, 'ABC '), (3, 'x')", "OK 3 (Records: 3  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("CREATE TABLE b (id INT PRIMARY KEY, s VARCHAR(10), KEY ks (s))", "OK 0");
    CHECK_SQL("INSERT INTO b VALUES (1, '\xC3\xA9'), (2, 'e'), (3, 'Z'), (4, '\xC3\x89t\xC3\xA9')",
              "OK 4 (Records: 4  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("CREATE TABLE n (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_bin, KEY ks (s))", "OK 0");
    CHECK_SQL("INSERT INTO n VALUES (1, '\xC3\xA9')", "OK 1");
    CHECK_SQL("CREATE TABLE y (id INT PRIMARY KEY, v YEAR, KEY kv (v))", "OK 0");
    CHECK_SQL("INSERT INTO y VALUES (1, 1999), (2, 2020)", "OK 2 (Records: 2  Duplicates: 0  Warnings: 0)");
    make_format1("y", true, -1); /* YEAR: rebuilt whatever the data */
    make_format1("a", true, -1);
    make_format1("b", true, -1);
    make_format1("n", false, -1);
    engine_tree_id_t ta, tb, tn, ta2, tb2, tn2;
    CHECK_EQ_INT(key_version("a", &ta), 1);
    CHECK_EQ_INT(key_version("b", &tb), 1);
    CHECK_EQ_INT(key_version("n", &tn), 1);
    /* the emptied index of b finds nothing before the step */
    CHECK_SQL("SELECT id FROM b FORCE INDEX (ks) WHERE s = 'e' ORDER BY id", "");
    reopen();
    CHECK_EQ_INT(key_version("a", &ta2), RC_KEY_VERSION);
    CHECK_EQ_INT(key_version("b", &tb2), RC_KEY_VERSION);
    CHECK_EQ_INT(key_version("n", &tn2), 1); /* utf8mb4_bin keys did not change: left alone */
    CHECK(ta2 == ta); /* ASCII only: the record changed, the (emptied) tree stayed */
    CHECK(tb2 != tb); /* rebuilt */
    CHECK(tn2 == tn);
    CHECK_SQL("SELECT id FROM a FORCE INDEX (ks) WHERE s = 'abc' ORDER BY id", "");
    CHECK_SQL("SELECT id FROM b FORCE INDEX (ks) WHERE s = 'E' ORDER BY id", "1\n2\n");
    CHECK_SQL("SELECT id FROM b FORCE INDEX (ks) WHERE s > 'D' ORDER BY s, id", "1\n2\n4\n3\n");
    CHECK_SQL("SELECT id, s FROM b WHERE id = 4", "4|\xC3\x89t\xC3\xA9\n");
    engine_tree_id_t ty;
    CHECK_EQ_INT(key_version("y", &ty), RC_KEY_VERSION);
    CHECK_SQL("SELECT id FROM y FORCE INDEX (kv) WHERE v = 2020", "2\n");
    /* a second start finds nothing to do */
    reopen();
    CHECK_EQ_INT(key_version("b", &ta2), RC_KEY_VERSION);
    CHECK(ta2 == tb2);
    teardown();
}

/* Key format 3: utf8mb4_unicode_ci keys were ASCII case folding before; they are UCA weights now, so even an
 * ASCII-only table is rebuilt. */
TEST(test_upgrade_unicode_ci_rebuilt)
{
    setup();
    CHECK_SQL("CREATE DATABASE db", "OK 1");
    CHECK_SQL("CREATE TABLE w (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_unicode_ci, KEY ks (s))", "OK 0");
    CHECK_SQL("INSERT INTO w VALUES (1, 'ss'), (2, 'b'), (3, 'SS'), (4, 'stra\xC3\x9F' 'e')",
              "OK 4 (Records: 4  Duplicates: 0  Warnings: 0)");
    CHECK_SQL("CREATE TABLE g (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci, KEY ks (s))", "OK 0");
    CHECK_SQL("INSERT INTO g VALUES (1, 'e')", "OK 1");
    make_format("w", 2, true, -1);
    make_format("g", 2, true, -1);
    engine_tree_id_t tw, tg, tw2, tg2;
    CHECK_EQ_INT(key_version("w", &tw), 2);
    CHECK_EQ_INT(key_version("g", &tg), 2);
    CHECK_SQL("SELECT id FROM w FORCE INDEX (ks) WHERE s = 'ss' ORDER BY id", "");
    reopen();
    CHECK_EQ_INT(key_version("w", &tw2), RC_KEY_VERSION);
    CHECK(tw2 != tw); /* rebuilt, ASCII or not */
    CHECK_EQ_INT(key_version("g", &tg2), 2); /* general_ci keys did not change in format 3: left alone */
    CHECK(tg2 == tg);
    CHECK_SQL("SELECT id FROM w FORCE INDEX (ks) WHERE s = '\xC3\x9F' ORDER BY id", "1\n3\n");
    CHECK_SQL("SELECT id FROM w FORCE INDEX (ks) WHERE s > 'b' ORDER BY s, id", "1\n3\n4\n");
    teardown();
}

TEST(test_upgrade_refuses_new_duplicate)
{
    setup();
    CHECK_SQL("CREATE DATABASE db", "OK 1");
    CHECK_SQL("CREATE TABLE u (s VARCHAR(10) COLLATE utf8mb4_bin, UNIQUE KEY us (s))", "OK 0");
    CHECK_SQL("INSERT INTO u VALUES ('e'), ('\xC3\xA9')", "OK 2 (Records: 2  Duplicates: 0  Warnings: 0)");
    /* as if the column had been utf8mb4_general_ci under key format 1, where 'e' and 'é' were distinct */
    make_format1("u", false, COLL_UTF8MB4_GENERAL_CI);
    sql_exec_session_free(ss);
    sql_exec_global_shutdown();
    engine_close(eng);
    engine_opts_t o;
    engine_opts_default(&o);
    o.datadir = dir;
    o.pool_bytes = 8u << 20;
    REQUIRE(engine_open(&o, &eng) == 0);
    CHECK(sql_exec_global_init(eng, dir) != 0); /* refused, with the step and the duplicate in the log */
    ss = NULL;
    diag_free(&diag);
    arena_destroy(&arena);
    buf_free(&out);
    engine_close(eng);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

UNIT_MAIN(test_upgrade_ascii_and_rebuild, test_upgrade_unicode_ci_rebuilt, test_upgrade_refuses_new_duplicate)
