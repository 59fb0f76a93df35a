/*
 * JSON documents and paths as MariaDB 10.11 reads them: a parser of JSON text into a tree that keeps every
 * scalar's spelling (numbers as written, strings with their escapes), a printer in MariaDB's three layouts
 * (the "loose" one most functions answer in, compact, detailed), and the path language of the JSON functions
 * ($, .key, ."key", .*, [n], [*], [last], [last-n], [n to m], **).
 *
 * MariaDB's JSON functions work on text and print their results again from what they read, keeping the scalars'
 * spelling: JSON_EXTRACT('[1.0e2,  "\u00e9"]', '$') is `[1.0e2, "\u00e9"]`.  So a scalar here is its source
 * bytes, and containers are rebuilt by the printer.  The parser follows MariaDB's json_lib where it is laxer than
 * RFC 8259 (a number may stop after `-`, `1.` or `1e` inside a container; any character may follow a backslash)
 * and reports errors with its codes and positions (4036 .. 4040), so warnings match byte for byte.
 *
 * Everything lives in the caller's arena; nothing here keeps state.
 */
#ifndef STRATA_SQL_JSONDOC_H
#define STRATA_SQL_JSONDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"

typedef enum json_kind {
    JSON_NULL, JSON_TRUE, JSON_FALSE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT,
} json_kind_t;

typedef struct json_node json_node_t;
struct json_node {
    json_kind_t kind;
    const char *raw;      /* NUMBER: its text; STRING: the bytes between the quotes, escapes kept; ARRAY /
                             OBJECT read from text: their source text (NULL for a built one) */
    uint32_t len;
    uint32_t n, cap;      /* ARRAY / OBJECT: members */
    json_node_t **kids;   /* the members' values */
    const char **keys;    /* OBJECT: each member's key, escapes kept */
    uint32_t *klens;
};

/* MariaDB's nesting limit of JSON text (4040). */
#define JSON_DEPTH_LIMIT 32

/* A parse error: the MySQL error code (4035 .. 4040) and MariaDB's position, and whether it came after the
 * document's value was complete (trailing text, which only JSON_VALID reads). */
typedef struct json_error {
    int code;
    size_t pos;
    bool trailing;
} json_error_t;

/* MariaDB's message for a document or path error in argument argno (1-based) of function fn. */
void json_error_message(char *msg, size_t size, const json_error_t *err, int argno, const char *fn);

/* Parses text[0..len).  0 with *root set (NULL when only trailing text failed: see err), or -1 with *err. */
int json_parse(arena_t *a, const char *text, size_t len, json_node_t **root, json_error_t *err);

/* Layouts of json_print. */
typedef enum json_style { JSON_STYLE_LOOSE, JSON_STYLE_COMPACT, JSON_STYLE_DETAILED } json_style_t;
void json_print(buf_t *b, const json_node_t *n, json_style_t style);
/* The detailed layout with `width` spaces per level (JSON_DETAILED's second argument; 4 by default). */
void json_print_detailed(buf_t *b, const json_node_t *n, int width);

/* Nodes built by the functions. */
json_node_t *json_new(arena_t *a, json_kind_t kind, const char *raw, size_t len);
/* A STRING node from unescaped bytes (escaped here as MariaDB escapes: \" \\ \n \r \t \b \f, \u00XX for the
 * other control characters). */
json_node_t *json_new_string(arena_t *a, const char *s, size_t len);
void json_append(arena_t *a, json_node_t *container, const char *key, size_t klen, json_node_t *v);
void json_remove_at(json_node_t *container, uint32_t i);
void json_insert_at(arena_t *a, json_node_t *arr, uint32_t i, json_node_t *v);
/* The index of key (escaped form, compared after unescaping) in an object, or -1. */
int json_find_key(const json_node_t *obj, const char *key, size_t klen);

/* A string's value: escapes decoded to UTF-8.  False on an escape MariaDB cannot decode. */
bool json_unescape(arena_t *a, const char *raw, size_t len, const char **out, size_t *outlen);

/* Deep equality with MariaDB's rules (numbers by value, objects regardless of member order). */
bool json_equal(arena_t *a, const json_node_t *x, const json_node_t *y);
/* A number's value. */
double json_number(const json_node_t *n);

/* ---------------------------------------------------------------- paths */

typedef enum json_step_kind {
    JSON_STEP_KEY,        /* .key / ."key" */
    JSON_STEP_KEY_WILD,   /* .* */
    JSON_STEP_INDEX,      /* [n], [last], [last - n] */
    JSON_STEP_INDEX_WILD, /* [*] */
    JSON_STEP_RANGE,      /* [n to m] */
    JSON_STEP_DOUBLE_WILD,/* ** (always followed by another step) */
} json_step_kind_t;

typedef struct json_step {
    json_step_kind_t kind;
    const char *key;        /* KEY: the name as written (escapes kept; matched against keys as written) */
    size_t klen;
    int64_t from, to;       /* INDEX: from; RANGE: from .. to */
    bool from_last, to_last;/* the index counts back from [last] */
} json_step_t;

#define JSON_PATH_MAX_STEPS 32

typedef struct json_path {
    json_step_t steps[JSON_PATH_MAX_STEPS];
    int nsteps;
    bool wild;              /* a wildcard, ** or range appears */
    bool strict;            /* "strict" mode keyword (parsed; lax and strict behave alike here, as in MariaDB) */
} json_path_t;

/* Parses a path: 0, or -1 with err->code 4041 (unexpected end) / 4042 (syntax, at pos) / 4043 (too deep). */
int json_path_parse(const char *text, size_t len, json_path_t *p, json_error_t *err);

/* A value a path reaches, with where it sits (for the functions that change documents). */
typedef struct json_match {
    json_node_t *node;
    json_node_t *parent;    /* NULL for the root */
    uint32_t index;         /* the member's position in parent */
} json_match_t;

typedef struct json_matches {
    json_match_t *m;
    uint32_t n, cap;
} json_matches_t;

/* Every value `p` reaches in `root` (document order), appended to *out. */
void json_path_find(arena_t *a, json_node_t *root, const json_path_t *p, json_matches_t *out);
/* Resolves an index step against an array of n members: the position, or -1 when outside. */
int64_t json_step_index(const json_step_t *s, uint32_t n, bool to);

#endif
