/*
 * libFuzzer target for JSON text and paths (sql/expr/jsondoc.h): the input is a document and a path, split at
 * the first 0xFE byte (any bytes, invalid UTF-8 included).  A document that parses must print, in each layout,
 * as text that parses again and prints the same (MariaDB's lax numbers included); an error must lie inside the text; a path that parses is run
 * over the document, and every string the document holds must unescape without overrunning.  Aborts on the
 * first disagreement.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/expr/jsondoc.h"

static void walk(arena_t *a, const json_node_t *n)
{
    const char *u;
    size_t ul;
    if (n->kind == JSON_STRING && json_unescape(a, n->raw, n->len, &u, &ul) && ul > 4u * n->len + 4)
        abort();
    for (uint32_t i = 0; (n->kind == JSON_ARRAY || n->kind == JSON_OBJECT) && i < n->n; i++) {
        if (n->kind == JSON_OBJECT)
            (void)json_unescape(a, n->keys[i], n->klens[i], &u, &ul);
        walk(a, n->kids[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 0xFE, size);
    size_t dn = sep ? (size_t)(sep - data) : size;
    const char *path = sep ? (const char *)sep + 1 : "$";
    size_t pn = sep ? size - dn - 1 : 1;
    arena_t a;
    arena_init(&a, 4096);
    json_node_t *root;
    json_error_t err;
    if (json_parse(&a, (const char *)data, dn, &root, &err) != 0 || err.trailing) {
        if (err.pos > dn || err.code < 4035 || err.code > 4040)
            abort();
    }
    if (root) {
        walk(&a, root);
        /* MariaDB's lax numbers ("-", "2e+-+") end at any character that cannot continue them but not at the
         * end of the text: printed alone they do not parse again, inside a container they do */
        bool container = root->kind == JSON_ARRAY || root->kind == JSON_OBJECT;
        for (int st = JSON_STYLE_LOOSE; st <= JSON_STYLE_DETAILED && !err.trailing && container; st++) {
            buf_t b1, b2;
            buf_init(&b1);
            buf_init(&b2);
            json_print(&b1, root, (json_style_t)st);
            json_node_t *again;
            json_error_t e2;
            if (json_parse(&a, b1.data ? (const char *)b1.data : "", b1.len, &again, &e2) != 0 || e2.trailing)
                abort();
            json_print(&b2, again, (json_style_t)st);
            if (b1.len != b2.len || (b1.len && memcmp(b1.data, b2.data, b1.len) != 0))
                abort();
            if (!json_equal(&a, root, again))
                abort();
            buf_free(&b1);
            buf_free(&b2);
        }
        json_path_t p;
        json_error_t pe;
        if (json_path_parse(path, pn, &p, &pe) == 0) {
            json_matches_t m = {0};
            json_path_find(&a, root, &p, &m);
            for (uint32_t i = 0; i < m.n; i++)
                if (m.m[i].parent && m.m[i].index != UINT32_MAX && m.m[i].parent->kids[m.m[i].index] != m.m[i].node)
                    abort();
        } else if (pe.pos > pn + 1) {
            abort();
        }
    }
    arena_destroy(&a);
    return 0;
}
