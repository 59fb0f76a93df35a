/* Triggers: catalog records (access/trigger.c) put, read back (names case-sensitive, as MariaDB's on Linux),
 * listed in SHOW TRIGGERS' order (table, event, timing, ACTION_ORDER), deleted, counted by catalog_trigger_any,
 * and surviving close and reopen; the trigger body parser (sql/parser/sp_parse.c) turns NEW.col / OLD.col into
 * frame variables and reports MariaDB's CREATE-time errors (1362, 1363). */
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "access/trigger.h"
#include "sql/sql.h"
#include "sql/parser/sp.h"
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

static cat_trigger_t rec(const char *name, const char *table, const char *event, const char *timing, const char *order)
{
    cat_trigger_t t = {.db = "d", .name = name, .table = table, .event = event, .timing = timing, .order = order,
                       .definer_user = "root", .definer_host = "localhost",
                       .create_text = "TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET @a = 1", .body = "SET @a = 1",
                       .sql_mode = "", .created = "2026-01-01 00:00:00.00", .client_cs = "utf8mb4",
                       .conn_coll = "utf8mb4_general_ci", .db_coll = "utf8mb4_general_ci", .body_line = "1"};
    return t;
}

TEST(test_trigger_records)
{
    char dir[64];
    strcpy(dir, "/tmp/strata_tg_XXXXXX");
    REQUIRE(mkdtemp(dir));
    engine_t *e = open_engine(dir);
    REQUIRE(e);
    catalog_t *c;
    REQUIRE(catalog_open(e, dir, &c) == 0);
    arena_t a;
    arena_init(&a, 4096);
    CHECK(!catalog_trigger_any(c));
    cat_trigger_t r[] = {rec("t_ad", "t", "DELETE", "AFTER", "1"), rec("t_bi2", "t", "INSERT", "BEFORE", "2"),
                         rec("t_bi1", "t", "INSERT", "BEFORE", "1"), rec("a_bi", "a", "INSERT", "BEFORE", "1"),
                         rec("t_ai", "t", "INSERT", "AFTER", "1"), rec("T_AI", "t", "UPDATE", "BEFORE", "1")};
    for (size_t i = 0; i < ARRAY_LEN(r); i++)
        CHECK_EQ_INT(catalog_trigger_put(c, &r[i]), 0);
    CHECK(catalog_trigger_any(c));
    cat_trigger_t o;
    CHECK_EQ_INT(catalog_trigger_get(c, &a, "d", "t_ai", &o), 1);
    CHECK_EQ_STR(o.event, "INSERT");
    CHECK_EQ_INT(catalog_trigger_get(c, &a, "d", "T_AI", &o), 1);
    CHECK_EQ_STR(o.event, "UPDATE");
    CHECK_EQ_INT(catalog_trigger_get(c, &a, "d", "t_Ai", &o), 0);
    CHECK_EQ_INT(catalog_trigger_get(c, &a, "e", "t_ai", &o), 0);
    cat_trigger_t *all;
    uint32_t n;
    CHECK_EQ_INT(catalog_trigger_list(c, &a, "d", "t", &all, &n), 0);
    static const char *const want[] = {"t_bi1", "t_bi2", "t_ai", "T_AI", "t_ad"};
    CHECK_EQ_INT(n, 5);
    for (uint32_t i = 0; i < n && i < 5; i++)
        CHECK_EQ_STR(all[i].name, want[i]);
    CHECK_EQ_INT(catalog_trigger_list(c, &a, NULL, NULL, &all, &n), 0);
    CHECK_EQ_INT(n, 6);
    if (n)
        CHECK_EQ_STR(all[0].name, "a_bi");
    catalog_close(c);
    engine_close(e);
    e = open_engine(dir);
    REQUIRE(e);
    REQUIRE(catalog_open(e, dir, &c) == 0);
    CHECK_EQ_INT(catalog_trigger_get(c, &a, "d", "t_bi2", &o), 1);
    CHECK_EQ_STR(o.order, "2");
    for (size_t i = 0; i < ARRAY_LEN(r); i++)
        CHECK_EQ_INT(catalog_trigger_delete(c, "d", r[i].name), 0);
    CHECK_EQ_INT(catalog_trigger_delete(c, "d", "t_ai"), STRATA_ENOTFOUND);
    CHECK(!catalog_trigger_any(c));
    CHECK_EQ_INT(catalog_trigger_decode(&a, "\x01\x05", 2, &o), -1);
    catalog_close(c);
    engine_close(e);
    arena_destroy(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

static int parse_err(const char *sql)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 8);
    sql_stmt_list_t l;
    int rc = sql_parse(&a, sql, strlen(sql), &l, &d);
    int code = rc ? d.error_code : 0;
    diag_free(&d);
    arena_destroy(&a);
    return code;
}

TEST(test_trigger_body_parse)
{
    arena_t a;
    diag_t d;
    arena_init(&a, 4096);
    diag_init(&d, 8);
    sql_stmt_list_t l;
    const char *sql = "CREATE TRIGGER tr BEFORE UPDATE ON t FOR EACH ROW FOLLOWS other BEGIN "
                      "SET NEW.b = OLD.b + new.B; INSERT INTO log VALUES (OLD.a, x.new, NEW.`b`); END";
    REQUIRE(sql_parse(&a, sql, strlen(sql), &l, &d) == 0);
    REQUIRE(l.n == 1 && l.stmts[0]->kind == SQL_STMT_CREATE_TRIGGER);
    const sql_trigger_stmt_t *t = l.stmts[0]->trigger;
    CHECK_EQ_STR(t->timing, "BEFORE");
    CHECK_EQ_STR(t->event, "UPDATE");
    CHECK_EQ_STR(t->table.name, "t");
    CHECK_EQ_STR(t->order_kind, "FOLLOWS");
    CHECK_EQ_STR(t->order_other, "other");
    const sp_body_t *b = t->body;
    /* NEW.b (assigned; new.B and NEW.`b` are the same), OLD.b, OLD.a: three references, three variables */
    CHECK_EQ_INT(b->ntrig_refs, 3);
    CHECK_EQ_INT(b->nvars, 3);
    CHECK(b->trig_refs[0].is_new && b->trig_refs[0].assigned);
    CHECK(!b->trig_refs[1].is_new && !b->trig_refs[1].assigned);
    const sp_node_t *ins = b->root->body.items[1];
    REQUIRE(ins->kind == SP_SQL);
    CHECK_EQ_STR(ins->stmt->text, "INSERT INTO log VALUES (?, x.new, ?)"); /* x.new is a column, not the row */
    diag_free(&d);
    arena_destroy(&a);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW SET NEW.a = 1"), 1362);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x BEFORE UPDATE ON t FOR EACH ROW SET OLD.a = 1"), 1362);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW SET @v = NEW.a"), 1363);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET @v = OLD.a"), 1363);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW RETURN 1"), 1313);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x BEFORE INSERT ON t EACH ROW SET @v = 1"), 1064);
    CHECK_EQ_INT(parse_err("CREATE TRIGGER x ON t FOR EACH ROW SET @v = 1"), 1064);
    CHECK_EQ_INT(parse_err("DROP TRIGGER IF EXISTS d.x"), 0);
}

UNIT_MAIN(test_trigger_records, test_trigger_body_parse)
