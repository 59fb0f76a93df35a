/*
 * libFuzzer target for the collations (collation.h): the input is a collation selector byte and two strings
 * (split at the first 0xFE byte after it, any bytes, invalid UTF-8 included).  The index key of each string
 * (rc_key_string) must order and tie exactly as value_collate_cmp says, rc_key_skip must find the key's end,
 * and LIKE must run on them without crashing.  Aborts on the first disagreement.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "access/rowcodec.h"
#include "sql/sql.h"

static int sgn(int x) { return x < 0 ? -1 : x > 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint16_t colls[] = {COLL_UTF8MB4_GENERAL_CI, COLL_UTF8MB3_GENERAL_CI, COLL_LATIN1_SWEDISH_CI,
                                     COLL_UTF8MB4_BIN, COLL_LATIN1_BIN, COLL_UTF8MB4_UNICODE_CI, COLL_BINARY};
    if (size < 1)
        return 0;
    uint16_t coll = colls[data[0] % (sizeof colls / sizeof colls[0])];
    const char *a = (const char *)data + 1;
    const uint8_t *sep = memchr(data + 1, 0xFE, size - 1);
    size_t an = sep ? (size_t)(sep - data - 1) : size - 1;
    const char *b = sep ? (const char *)sep + 1 : "";
    size_t bn = sep ? size - (size_t)(sep - data) - 1 : 0;
    buf_t ka, kb;
    buf_init(&ka);
    buf_init(&kb);
    rc_key_string(&ka, coll, a, an);
    rc_key_string(&kb, coll, b, bn);
    int want = sgn(value_collate_cmp(coll, a, an, b, bn));
    size_t m = ka.len < kb.len ? ka.len : kb.len;
    int got = sgn(memcmp(ka.data, kb.data, m));
    if (!got)
        got = ka.len < kb.len ? -1 : ka.len > kb.len;
    if (want != got || sgn(value_collate_cmp(coll, b, bn, a, an)) != -want)
        abort();
    rc_col_t c = {.type = coll == COLL_BINARY ? SQLT_VARBINARY : SQLT_VARCHAR, .coll = coll, .len = 100};
    if (rc_key_skip(&c, ka.data, ka.len) != (int)ka.len)
        abort();
    (void)sql_like_match(coll, a, an, b, bn, '\\');
    buf_free(&ka);
    buf_free(&kb);
    return 0;
}
