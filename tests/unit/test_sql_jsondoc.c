/*
 * JSON text and paths (sql/expr/jsondoc.c), the code every JSON function and the JSON column's check run: error
 * codes and positions as MariaDB 10.11 reports them (each case below was run through JSON_VALID / JSON_EXTRACT
 * there), scalars kept as written, the three layouts, and what paths reach.
 */
#include <string.h>

#include "sql/expr/jsondoc.h"
#include "unit.h"

static arena_t A;

static int parse_err(const char *text, size_t *pos)
{
    json_node_t *root;
    json_error_t err;
    int r = json_parse(&A, text, strlen(text), &root, &err);
    *pos = err.pos;
    return r == 0 && !err.trailing ? 0 : err.code;
}

static const char *printed(const char *text, json_style_t st)
{
    json_node_t *root;
    json_error_t err;
    if (json_parse(&A, text, strlen(text), &root, &err) || err.trailing)
        return "(error)";
    buf_t b;
    buf_init(&b);
    json_print(&b, root, st);
    char *s = arena_strndup(&A, b.data ? (const char *)b.data : "", b.len);
    buf_free(&b);
    return s;
}

static const char *extract(const char *text, const char *path)
{
    json_node_t *root;
    json_error_t err;
    json_path_t p;
    if (json_parse(&A, text, strlen(text), &root, &err) || json_path_parse(path, strlen(path), &p, &err))
        return "(error)";
    json_matches_t m = {0};
    json_path_find(&A, root, &p, &m);
    json_node_t *arr = json_new(&A, JSON_ARRAY, NULL, 0);
    for (uint32_t i = 0; i < m.n; i++)
        json_append(&A, arr, NULL, 0, m.m[i].node);
    buf_t b;
    buf_init(&b);
    json_print(&b, arr, JSON_STYLE_LOOSE);
    char *s = arena_strndup(&A, (const char *)b.data, b.len);
    buf_free(&b);
    return s;
}

TEST(test_json_errors)
{
    arena_init(&A, 4096);
    static const struct { const char *text; int code; size_t pos; } cases[] = {
        {"[1,]", 4038, 4}, {"[1 2]", 4038, 4}, {"x", 4038, 1}, {"{\"a\":1 x", 4038, 8}, {"[01]", 4038, 3},
        {"\"ab", 4037, 0}, {"{1:2}", 4038, 2}, {"tru", 4037, 0}, {"trux", 4038, 3}, {"[1]]", 4038, 4},
        {"  [1] x", 4038, 7}, {"\"a\tb\"", 4036, 3}, {"{\"a\":1,}", 4038, 8}, {"1 2", 4038, 3},
        {"{\"a\" 1}", 4038, 5}, {"", 4037, 0}, {"1e", 4038, 2},
        {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 4040, 32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t pos = 0;
        int code = parse_err(cases[i].text, &pos);
        CHECK_EQ_INT(code, cases[i].code);
        if (cases[i].code != 4037)
            CHECK_EQ_INT((int)pos, (int)cases[i].pos);
    }
    /* MariaDB's laxness inside containers */
    size_t pos;
    CHECK_EQ_INT(parse_err("[-]", &pos), 0);
    CHECK_EQ_INT(parse_err("[1.]", &pos), 0);
    CHECK_EQ_INT(parse_err("[1e]", &pos), 0);
    CHECK_EQ_INT(parse_err("\"\\x\"", &pos), 0);
    CHECK_EQ_INT(parse_err("\"\\ud83d\\ude00\"", &pos), 0);
    CHECK_EQ_INT(parse_err("\"\\ud83d\"", &pos), 4038);
    arena_destroy(&A);
}

TEST(test_json_layouts)
{
    arena_init(&A, 4096);
    CHECK_EQ_STR(printed("{ \"a\" : [ 1.0e2 , \"\\u00e9\" ], \"b\":{}}", JSON_STYLE_LOOSE), "{\"a\": [1.0e2, \"\\u00e9\"], \"b\": {}}");
    CHECK_EQ_STR(printed("{ \"a\" : [ 1 , 2 ] }", JSON_STYLE_COMPACT), "{\"a\":[1,2]}");
    CHECK_EQ_STR(printed("{\"a\":[1,2],\"b\":{}}", JSON_STYLE_DETAILED),
                 "{\n    \"a\": \n    [\n        1,\n        2\n    ],\n    \"b\": \n    {\n    }\n}");
    CHECK_EQ_STR(printed("[1]", JSON_STYLE_DETAILED), "[1]");
    CHECK_EQ_STR(printed("[]", JSON_STYLE_DETAILED), "[]");
    arena_destroy(&A);
}

TEST(test_json_paths)
{
    arena_init(&A, 4096);
    CHECK_EQ_STR(extract("{\"a\":[1,2,3]}", "$.a[last]"), "[3]");
    CHECK_EQ_STR(extract("[1,2,3,4]", "$[1 to 2]"), "[2, 3]");
    CHECK_EQ_STR(extract("[1,2,3]", "$[-1]"), "[3]");
    CHECK_EQ_STR(extract("{\"a\":{\"x\":1},\"b\":[{\"x\":2}]}", "$**.x"), "[1, 2]");
    CHECK_EQ_STR(extract("{\"a b\":1}", "$.a b"), "[1]");
    CHECK_EQ_STR(extract("{\"a\":1}", "$[0].a"), "[1]");
    json_path_t p;
    json_error_t err;
    CHECK_EQ_INT(json_path_parse("$.a.", 4, &p, &err), -1);
    CHECK_EQ_INT(err.code, 4041);
    CHECK_EQ_INT(json_path_parse("x", 1, &p, &err), -1);
    CHECK_EQ_INT(err.code, 4042);
    CHECK_EQ_INT((int)err.pos, 1);
    CHECK_EQ_INT(json_path_parse("$***", 4, &p, &err), -1);
    CHECK_EQ_INT((int)err.pos, 5);
    arena_destroy(&A);
}

UNIT_MAIN(test_json_errors, test_json_layouts, test_json_paths)
