/* CHECKSUM TABLE's per-row CRC, as MariaDB computes it (the layout is described in checksum.h). */
#include <string.h>
#include <zlib.h>

#include "access/binrow.h"
#include "sql/ddl/checksum.h"
#include "util/util.h"

static bool is_packed_type(sqlt_t t)
{
    return t == SQLT_VARCHAR || t == SQLT_VARBINARY || (t >= SQLT_TINYTEXT && t <= SQLT_LONGBLOB);
}

/* The null bitmap of MariaDB's record: see checksum.h. */
static void null_bitmap(const cat_table_t *t, const value_t *row, buf_t *b)
{
    bool packed = false;
    uint32_t nullable = 0;
    for (uint32_t i = 0; i < t->ncols; i++) {
        packed |= is_packed_type((sqlt_t)t->cols[i].rc.type);
        nullable += t->cols[i].rc.nullable;
    }
    uint32_t bit = packed ? 0 : 1, nbits = nullable + bit, nbytes = (nbits + 7) / 8;
    if (!nbytes)
        return;
    uint8_t bm[(4096 + 8) / 8] = {0};
    nbytes = MIN(nbytes, (uint32_t)sizeof bm);
    for (uint32_t i = 0; i < t->ncols && bit < nbytes * 8; i++) {
        if (!t->cols[i].rc.nullable)
            continue;
        if (row[i].type == VAL_NULL)
            bm[bit / 8] |= (uint8_t)(1u << (bit % 8));
        bit++;
    }
    if (nbits % 8)
        bm[nbytes - 1] |= (uint8_t)(256 - (1u << (nbits % 8)));
    if (!packed)
        bm[0] |= 1;
    buf_append(b, bm, nbytes);
}

/* One column's bytes (non-NULL). */
static void column_bytes(const cat_column_t *c, const value_t *v, buf_t *b)
{
    sqlt_t ty = (sqlt_t)c->rc.type;
    if (is_packed_type(ty)) {
        if (v->type == VAL_STRING)
            buf_append(b, v->s.ptr, v->s.len);
        return;
    }
    if (ty == SQLT_CHAR || ty == SQLT_BINARY) {
        uint32_t mb = c->rc.coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(c->rc.coll);
        size_t width = (size_t)c->rc.len * mb, n = v->type == VAL_STRING ? MIN(v->s.len, width) : 0;
        if (n)
            buf_append(b, v->s.ptr, n);
        for (; n < width; n++)
            buf_append_byte(b, ty == SQLT_BINARY || c->rc.coll == COLL_BINARY ? 0 : ' ');
        return;
    }
    binlog_value_t bv = binrow_value(c, v);
    if (ty == SQLT_SET) {
        uint32_t n = (c->nelems + 7) / 8;
        n = n > 4 ? 8 : n ? n : 1;
        uint64_t m = v->type == VAL_STRING ? v->s.num : bv.u;
        for (uint32_t k = 0; k < n; k++)
            buf_append_byte(b, (uint8_t)(m >> (8 * k)));
        return;
    }
    if (ty == SQLT_ENUM && v->type == VAL_STRING)
        bv.u = v->s.num;
    binlog_col_t bc = binrow_col(c);
    binlog_value_encode(b, &bc, &bv);
}

uint32_t checksum_row(const cat_table_t *t, const value_t *row, buf_t *scratch)
{
    buf_reset(scratch);
    null_bitmap(t, row, scratch);
    for (uint32_t i = 0; i < t->ncols; i++)
        if (row[i].type != VAL_NULL)
            column_bytes(&t->cols[i], &row[i], scratch);
    return (uint32_t)crc32(0L, scratch->len ? scratch->data : (const uint8_t *)"", (uInt)scratch->len);
}
