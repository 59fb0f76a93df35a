/*
 * Static type inference (sql/expr/typeinf.h) against MariaDB 10.11: every case of sql_typeinf_cases.h is an
 * expression over the table below whose column-definition MariaDB sent (type, length, decimals, UNSIGNED,
 * NOT NULL); the inference must give the same.  Plus what is deliberately unknown, the column-definition
 * fields (sql_rtype_meta) and the DECIMAL formatting of values (sql_rtype_format).
 */
#include <string.h>
#include <strings.h>

#include "sql/sql.h"
#include "sql/expr/typeinf.h"
#include "unit.h"
#include "sql_typeinf_cases.h"

/*
 * The table: CREATE TABLE src (i INT NOT NULL, ni INT, ti TINYINT, si SMALLINT, bi BIGINT, ui INT UNSIGNED,
 * d DECIMAL(10,2), dn DECIMAL(10,2) NOT NULL, d0 DECIMAL(5,0), f FLOAT, db DOUBLE, v VARCHAR(20), c CHAR(5),
 * vb VARBINARY(10), dt DATE, dtm DATETIME, dtm3 DATETIME(3), tm TIME, y YEAR) in utf8mb4_general_ci: each
 * column as the executor's callback describes it.
 */
static const struct {
    const char *name;
    sql_rtype_t t;
} cols[] = {
    {"i", {.type = SQL_TYPE_LONG, .len = 11, .prec = 10, .coll = COLL_BINARY}},
    {"ni", {.type = SQL_TYPE_LONG, .len = 11, .prec = 10, .nullable = true, .coll = COLL_BINARY}},
    {"ti", {.type = SQL_TYPE_TINY, .len = 4, .prec = 3, .nullable = true, .coll = COLL_BINARY}},
    {"si", {.type = SQL_TYPE_SHORT, .len = 6, .prec = 5, .nullable = true, .coll = COLL_BINARY}},
    {"bi", {.type = SQL_TYPE_LONGLONG, .len = 20, .prec = 19, .nullable = true, .coll = COLL_BINARY}},
    {"ui", {.type = SQL_TYPE_LONG, .len = 10, .prec = 10, .unsig = true, .nullable = true, .coll = COLL_BINARY}},
    {"d", {.type = SQL_TYPE_NEWDECIMAL, .len = 12, .prec = 10, .dec = 2, .nullable = true, .coll = COLL_BINARY}},
    {"dn", {.type = SQL_TYPE_NEWDECIMAL, .len = 12, .prec = 10, .dec = 2, .coll = COLL_BINARY}},
    {"d0", {.type = SQL_TYPE_NEWDECIMAL, .len = 6, .prec = 5, .nullable = true, .coll = COLL_BINARY}},
    {"f", {.type = SQL_TYPE_FLOAT, .len = 12, .dec = 31, .nullable = true, .coll = COLL_BINARY}},
    {"db", {.type = SQL_TYPE_DOUBLE, .len = 22, .dec = 31, .nullable = true, .coll = COLL_BINARY}},
    {"v", {.type = SQL_TYPE_VAR_STRING, .len = 20, .nullable = true, .coll = COLL_UTF8MB4_GENERAL_CI}},
    {"c", {.type = SQL_TYPE_STRING, .len = 5, .nullable = true, .coll = COLL_UTF8MB4_GENERAL_CI}},
    {"vb", {.type = SQL_TYPE_VAR_STRING, .len = 10, .nullable = true, .coll = COLL_BINARY}},
    {"dt", {.type = SQL_TYPE_DATE, .len = 10, .nullable = true, .coll = COLL_BINARY}},
    {"dtm", {.type = SQL_TYPE_DATETIME, .len = 19, .nullable = true, .coll = COLL_BINARY}},
    {"dtm3", {.type = SQL_TYPE_DATETIME, .len = 23, .dec = 3, .nullable = true, .coll = COLL_BINARY}},
    {"tm", {.type = SQL_TYPE_TIME, .len = 10, .nullable = true, .coll = COLL_BINARY}},
    {"y", {.type = SQL_TYPE_YEAR, .len = 4, .unsig = true, .nullable = true, .coll = COLL_BINARY}},
};

static int col_type(void *u, const sql_expr_t *col, sql_rtype_t *out)
{
    *out = cols[col->slot].t;
    return 0;
}

/* Binds column references to the table (slot = index), as the executor does before asking for types. */
static bool bind(sql_expr_t *e)
{
    if (!e)
        return true;
    if (e->kind == SQL_E_COLUMN) {
        for (size_t i = 0; i < ARRAY_LEN(cols); i++)
            if (strcasecmp(cols[i].name, e->col.name) == 0) {
                e->slot = (int32_t)i;
                return true;
            }
        return false;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!bind(e->args[i]))
            return false;
    return bind(e->else_expr);
}

static bool infer_text(arena_t *a, const char *text, sql_rtype_t *t)
{
    diag_t d;
    diag_init(&d, 4);
    sql_expr_t *e = NULL;
    int rc = sql_parse_expr(a, text, strlen(text), &e, &d);
    diag_free(&d);
    if (rc || !bind(e)) {
        fprintf(stderr, "cannot parse/bind %s\n", text);
        return false;
    }
    sql_typeinf_env_t env = {.column = col_type, .conn_coll = COLL_UTF8MB4_GENERAL_CI};
    return sql_type_infer(&env, e, t);
}

TEST(test_mariadb_cases)
{
    arena_t a;
    arena_init(&a, 4096);
    int bad = 0;
    for (size_t i = 0; i < ARRAY_LEN(typeinf_cases); i++) {
        const typeinf_case_t *c = &typeinf_cases[i];
        sql_rtype_t t;
        if (!infer_text(&a, c->expr, &t)) {
            fprintf(stderr, "%s: unknown\n", c->expr);
            bad++;
            continue;
        }
        if (t.type != c->type || t.len != c->len || t.dec != c->dec || t.unsig != c->unsig ||
            t.nullable != c->nullable) {
            fprintf(stderr, "%s: type %u len %u dec %u unsigned %d nullable %d, MariaDB: %u %u %u %d %d\n", c->expr,
                    t.type, t.len, t.dec, t.unsig, t.nullable, c->type, c->len, c->dec, c->unsig, c->nullable);
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    arena_destroy(&a);
}

/* Decimal precision, which only CREATE TABLE ... SELECT shows (decimal(P,S)). */
TEST(test_decimal_precision)
{
    static const struct {
        const char *expr;
        uint32_t prec, scale;
    } cases[] = {
        {"d+1", 11, 2}, {"d*d", 20, 4}, {"d/3", 14, 6}, {"i/2", 14, 4}, {"d+i", 13, 2}, {"SUM(i)", 32, 0},
        {"SUM(d)", 32, 2}, {"AVG(d)", 14, 6}, {"COALESCE(SUM(d), 0)", 32, 2}, {"ROUND(d)", 9, 0},
        {"ROUND(d, 1)", 10, 1}, {"TRUNCATE(d, 1)", 9, 1}, {"IFNULL(d, i)", 12, 2}, {".5", 1, 1}, {"0.5", 2, 1},
        {"COALESCE(ti, ui)", 10, 0},
    };
    arena_t a;
    arena_init(&a, 4096);
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sql_rtype_t t;
        REQUIRE(infer_text(&a, cases[i].expr, &t));
        CHECK_EQ_INT(t.type, SQL_TYPE_NEWDECIMAL);
        if (t.prec != cases[i].prec || t.dec != cases[i].scale)
            fprintf(stderr, "%s: decimal(%u,%u)\n", cases[i].expr, t.prec, t.dec);
        CHECK_EQ_INT(t.prec, cases[i].prec);
        CHECK_EQ_INT(t.dec, cases[i].scale);
    }
    arena_destroy(&a);
}

/* What only execution can tell stays unknown (the caller falls back to the values). */
TEST(test_unknown)
{
    static const char *const cases[] = {"@a", "@@version", "?", "@a + 1", "(SELECT i)", "VERSION()", "UUID()",
                                        "GROUP_CONCAT(v)", "COALESCE(@a, 0)", "FORMAT(d, 2)", "ROUND(db)"};
    arena_t a;
    arena_init(&a, 4096);
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sql_rtype_t t;
        diag_t d;
        diag_init(&d, 4);
        sql_expr_t *e = NULL;
        REQUIRE(sql_parse_expr(&a, cases[i], strlen(cases[i]), &e, &d) == 0);
        diag_free(&d);
        sql_typeinf_env_t env = {.conn_coll = COLL_UTF8MB4_GENERAL_CI};
        if (sql_type_infer(&env, e, &t))
            fprintf(stderr, "%s: inferred type %u\n", cases[i], t.type);
        CHECK(!sql_type_infer(&env, e, &t));
    }
    arena_destroy(&a);
}

/* The packet fields: string lengths in bytes of the collation, NOT_NULL / UNSIGNED / BINARY / NUM flags. */
TEST(test_meta)
{
    arena_t a;
    arena_init(&a, 4096);
    sql_rtype_t t;
    sql_col_meta_t m;
    REQUIRE(infer_text(&a, "CONCAT(v, c)", &t));
    sql_rtype_meta(&t, &m);
    CHECK_EQ_INT(m.type, SQL_TYPE_VAR_STRING);
    CHECK_EQ_INT(m.length, 100); /* 25 characters of utf8mb4 */
    CHECK_EQ_INT(m.coll, COLL_UTF8MB4_GENERAL_CI);
    CHECK_EQ_INT(m.decimals, 39);
    CHECK_EQ_INT(m.flags, 0);
    REQUIRE(infer_text(&a, "i*2", &t));
    sql_rtype_meta(&t, &m);
    CHECK_EQ_INT(m.flags, SQL_FLAG_NOT_NULL | SQL_FLAG_BINARY | SQL_FLAG_NUM);
    CHECK_EQ_INT(m.coll, COLL_BINARY);
    REQUIRE(infer_text(&a, "ui+1", &t));
    sql_rtype_meta(&t, &m);
    CHECK_EQ_INT(m.flags, SQL_FLAG_UNSIGNED | SQL_FLAG_BINARY | SQL_FLAG_NUM);
    REQUIRE(infer_text(&a, "DATE(dtm)", &t));
    sql_rtype_meta(&t, &m);
    CHECK_EQ_INT(m.flags, SQL_FLAG_BINARY);
    REQUIRE(infer_text(&a, "x'41'", &t));
    sql_rtype_meta(&t, &m);
    CHECK_EQ_INT(m.flags, SQL_FLAG_NOT_NULL | SQL_FLAG_UNSIGNED | SQL_FLAG_BINARY);
    arena_destroy(&a);
}

/* UNION columns: MariaDB's answers for `SELECT a ... UNION SELECT b`. */
TEST(test_aggregate)
{
    arena_t a;
    arena_init(&a, 4096);
    static const struct {
        const char *x, *y;
        uint8_t type;
        uint32_t len;
        uint8_t dec;
    } cases[] = {
        {"i", "1.5", SQL_TYPE_NEWDECIMAL, 13, 1}, {"ti", "si", SQL_TYPE_SHORT, 6, 0},
        {"dt", "dtm", SQL_TYPE_DATETIME, 19, 0},  {"d", "i", SQL_TYPE_NEWDECIMAL, 14, 2},
        {"1", "'abc'", SQL_TYPE_VAR_STRING, 3, 39}, {"NULL", "1", SQL_TYPE_LONG, 2, 0},
        {"i*2", "1", SQL_TYPE_LONGLONG, 12, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sql_rtype_t two[2], r;
        REQUIRE(infer_text(&a, cases[i].x, &two[0]));
        REQUIRE(infer_text(&a, cases[i].y, &two[1]));
        REQUIRE(sql_rtype_aggregate(COLL_UTF8MB4_GENERAL_CI, two, 2, &r));
        if (r.type != cases[i].type || r.len != cases[i].len || r.dec != cases[i].dec)
            fprintf(stderr, "%s UNION %s: type %u len %u dec %u\n", cases[i].x, cases[i].y, r.type, r.len, r.dec);
        CHECK_EQ_INT(r.type, cases[i].type);
        CHECK_EQ_INT(r.len, cases[i].len);
        CHECK_EQ_INT(r.dec, cases[i].dec);
    }
    arena_destroy(&a);
}

TEST(test_format)
{
    arena_t a;
    arena_init(&a, 4096);
    size_t n;
    value_t v = value_int(0);
    value_t r = sql_rtype_format(&a, SQL_TYPE_NEWDECIMAL, 2, &v);
    CHECK_EQ_STR(value_to_text(&a, &r, &n), "0.00");
    v = value_int(-12);
    r = sql_rtype_format(&a, SQL_TYPE_NEWDECIMAL, 3, &v);
    CHECK_EQ_STR(value_to_text(&a, &r, &n), "-12.000");
    v = value_decimal(&a, "1.5", 3);
    r = sql_rtype_format(&a, SQL_TYPE_NEWDECIMAL, 4, &v);
    CHECK_EQ_STR(value_to_text(&a, &r, &n), "1.5000");
    v = value_decimal(&a, "1.25", 4);
    r = sql_rtype_format(&a, SQL_TYPE_NEWDECIMAL, 1, &v); /* never shortened */
    CHECK_EQ_STR(value_to_text(&a, &r, &n), "1.25");
    v = value_double(1.5);
    r = sql_rtype_format(&a, SQL_TYPE_NEWDECIMAL, 2, &v); /* doubles are left alone */
    CHECK_EQ_STR(value_to_text(&a, &r, &n), "1.5");
    v = value_int(7);
    r = sql_rtype_format(&a, SQL_TYPE_LONGLONG, 0, &v);
    CHECK_EQ_STR(value_to_text(&a, &r, &n), "7");
    arena_destroy(&a);
}

UNIT_MAIN(test_mariadb_cases, test_decimal_precision, test_unknown, test_meta, test_aggregate, test_format)
