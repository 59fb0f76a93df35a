/*
 * Row images in the binlog's row format: the TABLE_MAP metadata of each column type and the bytes of each value.
 * The SQL layer describes a table once (binlog_table_t) and hands typed values (binlog_value_t); this file turns
 * them into what MariaDB's WRITE/UPDATE/DELETE_ROWS events carry, so mariadb-binlog --verbose prints them.
 *
 * Per type: TABLE_MAP type byte | metadata bytes | value bytes in a row image
 *   TINY 1 / SHORT 2 / INT24 9 / LONG 3 / LONGLONG 8 |  -  | 1/2/3/4/8 bytes LE two's complement
 *   FLOAT 4 / DOUBLE 5          | 1: 4 / 8          | IEEE-754 LE
 *   YEAR 13                     |  -                | 1 byte: year - 1900 (0 for 0000)
 *   DATE 10                     |  -                | 3 bytes LE: day | month << 5 | year << 9
 *   NEWDECIMAL 246              | 2: precision, scale | decimal2bin: groups of 9 digits in 4 bytes BE, partial
 *                               |                   |   groups in 1..4 bytes, negative = all bits inverted,
 *                               |                   |   then the first byte's top bit flipped
 *   VARCHAR 15                  | 2: max bytes LE   | length (1 byte if max < 256, else 2 LE) + bytes
 *   CHAR   -> STRING 254        | 2: 0xfe ^ ((max & 0x300) >> 4), max & 0xff | like VARCHAR (prefix by max)
 *   ENUM   -> STRING 254        | 2: 0xf7, storage bytes (1/2) | index, 1 or 2 bytes LE
 *   SET    -> STRING 254        | 2: 0xf8, storage bytes (1..8) | bit mask LE
 *   BLOB/TEXT 252               | 1: length bytes (1..4) | length LE in that many bytes + bytes
 *   BIT 16                      | 2: bits % 8, bits / 8 | (bits+7)/8 bytes BE
 *   DATETIME2 18                | 1: fsp            | 5 bytes BE: 0x8000000000 + (((year*13+month)<<5|day)<<17
 *                               |                   |   | hour<<12 | minute<<6 | second), then frac
 *   TIMESTAMP2 17               | 1: fsp            | 4 bytes BE epoch seconds, then frac
 *   TIME2 19                    | 1: fsp            | fsp 0-4: 3 bytes BE 0x800000 + int part (hour<<12 |
 *                               |                   |   minute<<6 | second, negative = packed >> 24), then frac;
 *                               |                   |   fsp 5-6: 6 bytes BE 0x800000000000 + packed
 *   frac by fsp: 1-2: 1 byte usec/10000; 3-4: 2 bytes BE usec/100; 5-6: 3 bytes BE usec (TIME2: signed)
 */
#include <string.h>

#include "binlog/binlog_int.h"

binlog_col_t binlog_col(enum binlog_mysql_type type, uint16_t length, uint8_t scale, bool nullable)
{
    binlog_col_t c = {.type = (uint8_t)type, .nullable = nullable, .length = length, .scale = scale};
    return c;
}

int binlog_col_map(const binlog_col_t *c, uint8_t *type, uint8_t meta[2])
{
    *type = c->type;
    switch (c->type) {
    case BINLOG_T_FLOAT:
        meta[0] = 4;
        return 1;
    case BINLOG_T_DOUBLE:
        meta[0] = 8;
        return 1;
    case BINLOG_T_NEWDECIMAL:
        meta[0] = (uint8_t)c->length;
        meta[1] = c->scale;
        return 2;
    case BINLOG_T_VARCHAR:
    case BINLOG_T_VAR_STRING:
        *type = BINLOG_T_VARCHAR;
        meta[0] = (uint8_t)c->length;
        meta[1] = (uint8_t)(c->length >> 8);
        return 2;
    case BINLOG_T_STRING:
        meta[0] = (uint8_t)(BINLOG_T_STRING ^ ((c->length & 0x300) >> 4));
        meta[1] = (uint8_t)c->length;
        return 2;
    case BINLOG_T_ENUM:
    case BINLOG_T_SET:
        *type = BINLOG_T_STRING;
        meta[0] = c->type;
        meta[1] = (uint8_t)c->length;
        return 2;
    case BINLOG_T_BLOB:
    case BINLOG_T_TINY_BLOB:
    case BINLOG_T_MEDIUM_BLOB:
    case BINLOG_T_LONG_BLOB:
    case BINLOG_T_GEOMETRY:
        if (c->type != BINLOG_T_GEOMETRY)
            *type = BINLOG_T_BLOB;
        meta[0] = (uint8_t)c->length;
        return 1;
    case BINLOG_T_BIT:
        meta[0] = (uint8_t)(c->length % 8);
        meta[1] = (uint8_t)(c->length / 8);
        return 2;
    case BINLOG_T_DATETIME2:
    case BINLOG_T_TIMESTAMP2:
    case BINLOG_T_TIME2:
        meta[0] = c->scale;
        return 1;
    default:
        return 0;
    }
}

static void put_be(buf_t *b, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--)
        buf_put_u8(b, (uint8_t)(v >> (8 * i)));
}

static void put_le(buf_t *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        buf_put_u8(b, (uint8_t)(v >> (8 * i)));
}

/* Fractional seconds as DATETIME2/TIMESTAMP2 store them. */
static void put_frac(buf_t *b, int fsp, int usec)
{
    if (fsp <= 0)
        return;
    if (fsp <= 2)
        put_be(b, (uint64_t)(usec / 10000), 1);
    else if (fsp <= 4)
        put_be(b, (uint64_t)(usec / 100), 2);
    else
        put_be(b, (uint64_t)usec, 3);
}

static const int dig2bytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

/* decimal2bin from decimal text ("-123.45", "7", ".5"); extra fraction digits are truncated. */
static int put_decimal(buf_t *b, int prec, int scale, const char *s, size_t len)
{
    if (prec < 1 || prec > 65 || scale < 0 || scale > 30 || scale > prec)
        return STRATA_EPROTO;
    bool neg = false;
    size_t i = 0;
    while (i < len && s[i] == ' ')
        i++;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    char ip[80], fp[40];
    int ni = 0, nf = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (ni == 0 && s[i] == '0') { /* leading zeros */
            i++;
            continue;
        }
        if (ni >= 70)
            return STRATA_EPROTO;
        ip[ni++] = s[i++];
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (nf < scale)
                fp[nf++] = s[i];
            i++;
        }
    }
    if (i != len)
        return STRATA_EPROTO;
    int intg = prec - scale;
    if (ni > intg)
        return STRATA_EPROTO; /* out of range */
    char idig[80], fdig[40];
    memset(idig, '0', (size_t)intg);
    memcpy(idig + intg - ni, ip, (size_t)ni);
    memset(fdig, '0', (size_t)scale);
    memcpy(fdig, fp, (size_t)nf);
    size_t at = b->len;
    int intg0x = intg % 9, pos = 0;
    if (intg0x) {
        uint64_t v = 0;
        for (int k = 0; k < intg0x; k++)
            v = v * 10 + (uint64_t)(idig[pos++] - '0');
        put_be(b, v, dig2bytes[intg0x]);
    }
    while (pos < intg) {
        uint64_t v = 0;
        for (int k = 0; k < 9; k++)
            v = v * 10 + (uint64_t)(idig[pos++] - '0');
        put_be(b, v, 4);
    }
    pos = 0;
    while (scale - pos >= 9) {
        uint64_t v = 0;
        for (int k = 0; k < 9; k++)
            v = v * 10 + (uint64_t)(fdig[pos++] - '0');
        put_be(b, v, 4);
    }
    int frac0x = scale - pos;
    if (frac0x) {
        uint64_t v = 0;
        for (int k = 0; k < frac0x; k++)
            v = v * 10 + (uint64_t)(fdig[pos++] - '0');
        put_be(b, v, dig2bytes[frac0x]);
    }
    bool zero = true;
    for (size_t k = at; k < b->len; k++)
        if (b->data[k])
            zero = false;
    if (neg && !zero)
        for (size_t k = at; k < b->len; k++)
            b->data[k] = (uint8_t)~b->data[k];
    if (b->len > at)
        b->data[at] ^= 0x80;
    return 0;
}

static int put_string(buf_t *b, const binlog_value_t *v, uint32_t max, int prefix)
{
    if (v->len > max || (prefix == 1 && v->len > 255))
        return STRATA_EPROTO;
    put_le(b, v->len, prefix);
    buf_append(b, v->s, v->len);
    return 0;
}

int binlog_value_encode(buf_t *b, const binlog_col_t *c, const binlog_value_t *v)
{
    switch (c->type) {
    case BINLOG_T_TINY:
        put_le(b, (uint64_t)v->i, 1);
        return 0;
    case BINLOG_T_SHORT:
        put_le(b, (uint64_t)v->i, 2);
        return 0;
    case BINLOG_T_INT24:
        put_le(b, (uint64_t)v->i, 3);
        return 0;
    case BINLOG_T_LONG:
        put_le(b, (uint64_t)v->i, 4);
        return 0;
    case BINLOG_T_LONGLONG:
        put_le(b, (uint64_t)v->i, 8);
        return 0;
    case BINLOG_T_FLOAT: {
        float f = (float)v->d;
        uint32_t u;
        memcpy(&u, &f, 4);
        put_le(b, u, 4);
        return 0;
    }
    case BINLOG_T_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->d, 8);
        put_le(b, u, 8);
        return 0;
    }
    case BINLOG_T_YEAR:
        buf_put_u8(b, (uint8_t)(v->i ? v->i - 1900 : 0));
        return 0;
    case BINLOG_T_DATE:
        put_le(b, (uint64_t)(v->tm.day | v->tm.month << 5 | v->tm.year << 9), 3);
        return 0;
    case BINLOG_T_NEWDECIMAL:
        return put_decimal(b, c->length, c->scale, v->s ? v->s : "0", v->s ? v->len : 1);
    case BINLOG_T_VARCHAR:
    case BINLOG_T_VAR_STRING:
    case BINLOG_T_STRING:
        return put_string(b, v, c->length, c->length < 256 ? 1 : 2);
    case BINLOG_T_ENUM:
    case BINLOG_T_SET:
        if (c->length < 1 || c->length > 8)
            return STRATA_EPROTO;
        put_le(b, v->u, c->length);
        return 0;
    case BINLOG_T_BLOB:
    case BINLOG_T_TINY_BLOB:
    case BINLOG_T_MEDIUM_BLOB:
    case BINLOG_T_LONG_BLOB:
    case BINLOG_T_GEOMETRY: {
        if (c->length < 1 || c->length > 4)
            return STRATA_EPROTO;
        uint64_t max = c->length == 4 ? 0xffffffffull : (1ull << (8 * c->length)) - 1;
        return put_string(b, v, (uint32_t)MIN(max, 0xffffffffull), c->length);
    }
    case BINLOG_T_BIT:
        if (c->length < 1 || c->length > 64)
            return STRATA_EPROTO;
        put_be(b, v->u, (c->length + 7) / 8);
        return 0;
    case BINLOG_T_DATETIME2: {
        uint64_t ymd = ((uint64_t)(v->tm.year * 13 + v->tm.month) << 5) | (uint64_t)v->tm.day;
        uint64_t hms = (uint64_t)(v->tm.hour << 12 | v->tm.minute << 6 | v->tm.second);
        put_be(b, 0x8000000000ull + (ymd << 17 | hms), 5);
        put_frac(b, c->scale, v->tm.usec);
        return 0;
    }
    case BINLOG_T_TIMESTAMP2:
        put_be(b, (uint64_t)v->i, 4);
        put_frac(b, c->scale, v->tm.usec);
        return 0;
    case BINLOG_T_TIME2: {
        int64_t hms = (int64_t)v->tm.hour << 12 | v->tm.minute << 6 | v->tm.second;
        int64_t nr = (hms << 24) + v->tm.usec;
        if (v->tm.neg)
            nr = -nr;
        int64_t ip = nr >> 24, fr = nr % (1LL << 24); /* C remainder: negative with nr, as MariaDB stores */
        if (c->scale >= 5) {
            put_be(b, (uint64_t)(nr + 0x800000000000LL), 6);
            return 0;
        }
        put_be(b, (uint64_t)(ip + 0x800000), 3);
        if (c->scale >= 3)
            put_be(b, (uint64_t)(uint16_t)(int16_t)(fr / 100), 2);
        else if (c->scale >= 1)
            buf_put_u8(b, (uint8_t)(int8_t)(fr / 10000));
        return 0;
    }
    default:
        return STRATA_EPROTO;
    }
}

int binlog_row_encode(buf_t *out, const binlog_table_t *t, const binlog_value_t *vals)
{
    size_t nb = (t->ncols + 7) / 8, base = out->len;
    buf_reserve(out, nb);
    memset(out->data + base, 0, nb);
    out->len += nb;
    for (uint32_t i = t->ncols; i < nb * 8; i++) /* unused bits set, as MariaDB writes them */
        out->data[base + i / 8] |= (uint8_t)(1u << (i % 8));
    for (uint32_t i = 0; i < t->ncols; i++) {
        if (vals[i].is_null) {
            if (!t->cols[i].nullable)
                goto fail;
            out->data[base + i / 8] |= (uint8_t)(1u << (i % 8));
            continue;
        }
        if (binlog_value_encode(out, &t->cols[i], &vals[i]))
            goto fail;
    }
    return 0;
fail:
    out->len = base;
    return STRATA_EPROTO;
}
