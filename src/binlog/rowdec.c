/*
 * Decoding row events: the inverse of rows.c and trx.c (TABLE_MAP + WRITE/UPDATE/DELETE_ROWS with full images)
 * into typed values, one callback per row change.  Crash recovery re-applies binlog transactions the engine lost
 * with it (access/binapply.c), and a replica's applier can use it the same way.  Formats: event.c's header comment
 * (event bodies) and rows.c (values); TABLE_MAP metadata per type is binlog_col_map()'s.
 *
 * Limits: every column must be present in both images (binlog_row_image=FULL, what strata and MariaDB's default
 * write); events carry the CRC32 trailer (strata's files always do).  Strings point into the event (valid during
 * the callback); DECIMAL values are decoded to text in the decoder's scratch.
 */
#include <stdio.h>
#include <string.h>

#include "binlog/binlog_int.h"

enum { ROWDEC_MAX_TABLES = 64, ROWDEC_DEC_TEXT = 96 };

typedef struct rowdec_table {
    binlog_table_t tb;
    binlog_col_t *cols;
    char *db, *name;
} rowdec_table_t;

struct binlog_rowdec {
    rowdec_table_t t[ROWDEC_MAX_TABLES];
    uint32_t n;
    binlog_value_t *vals; /* 2 * ncols */
    char (*dec)[ROWDEC_DEC_TEXT];
    uint32_t cap;
};

binlog_rowdec_t *binlog_rowdec_new(void) { return mem_calloc(1, sizeof(binlog_rowdec_t)); }

void binlog_rowdec_reset(binlog_rowdec_t *d)
{
    for (uint32_t i = 0; i < d->n; i++) {
        mem_free(d->t[i].cols);
        mem_free(d->t[i].db);
        mem_free(d->t[i].name);
    }
    d->n = 0;
}

void binlog_rowdec_free(binlog_rowdec_t *d)
{
    if (!d)
        return;
    binlog_rowdec_reset(d);
    mem_free(d->vals);
    mem_free(d->dec);
    mem_free(d);
}

static bool get_lenenc(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p >= end)
        return false;
    uint8_t c = *p++;
    int n = c < 251 ? 0 : c == 0xfc ? 2 : c == 0xfd ? 3 : c == 0xfe ? 8 : -1;
    if (n < 0 || end - p < n)
        return false;
    uint64_t x = n ? 0 : c;
    for (int i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    *v = x;
    *pp = p + n;
    return true;
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t get_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static int64_t sign_ext(uint64_t v, int bytes)
{
    int sh = 64 - 8 * bytes;
    return sh ? (int64_t)(v << sh) >> sh : (int64_t)v;
}

/* TABLE_MAP type byte + metadata -> binlog column (inverse of binlog_col_map); metadata bytes used in *used. */
static int col_from_map(uint8_t type, const uint8_t *m, size_t mlen, binlog_col_t *c, size_t *used)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    size_t need = 0;
    switch (type) {
    case BINLOG_T_FLOAT: case BINLOG_T_DOUBLE: case BINLOG_T_BLOB: case BINLOG_T_GEOMETRY:
    case BINLOG_T_DATETIME2: case BINLOG_T_TIMESTAMP2: case BINLOG_T_TIME2:
        need = 1;
        break;
    case BINLOG_T_NEWDECIMAL: case BINLOG_T_VARCHAR: case BINLOG_T_VAR_STRING: case BINLOG_T_STRING:
    case BINLOG_T_BIT: case BINLOG_T_ENUM: case BINLOG_T_SET:
        need = 2;
        break;
    case BINLOG_T_TINY: case BINLOG_T_SHORT: case BINLOG_T_INT24: case BINLOG_T_LONG: case BINLOG_T_LONGLONG:
    case BINLOG_T_YEAR: case BINLOG_T_DATE:
        break;
    default:
        return STRATA_EPROTO; /* a type strata does not write (old DATETIME, TIMESTAMP, TIME ...) */
    }
    if (mlen < need)
        return STRATA_ECORRUPT;
    *used = need;
    switch (type) {
    case BINLOG_T_BLOB: case BINLOG_T_GEOMETRY:
        c->length = m[0];
        break;
    case BINLOG_T_DATETIME2: case BINLOG_T_TIMESTAMP2: case BINLOG_T_TIME2:
        c->scale = m[0];
        break;
    case BINLOG_T_NEWDECIMAL:
        c->length = m[0];
        c->scale = m[1];
        break;
    case BINLOG_T_VARCHAR: case BINLOG_T_VAR_STRING:
        c->type = BINLOG_T_VARCHAR;
        c->length = (uint16_t)(m[0] | m[1] << 8);
        break;
    case BINLOG_T_STRING: case BINLOG_T_ENUM: case BINLOG_T_SET:
        if ((m[0] & 0x30) != 0x30) { /* CHAR longer than 255 bytes: length bits 8-9 folded into the type */
            c->type = (uint8_t)(m[0] | 0x30);
            c->length = (uint16_t)(m[1] | (((m[0] & 0x30) ^ 0x30) << 4));
        } else {
            c->type = m[0];
            c->length = m[1];
        }
        if (c->type != BINLOG_T_STRING && c->type != BINLOG_T_ENUM && c->type != BINLOG_T_SET)
            return STRATA_EPROTO;
        break;
    case BINLOG_T_BIT:
        c->length = (uint16_t)(m[1] * 8 + m[0]);
        break;
    default:
        break;
    }
    return 0;
}

int binlog_table_map_decode(const binlog_event_t *ev, binlog_table_t *t, binlog_col_t *cols, uint32_t maxcols,
                            char *db, char *name)
{
    if (ev->type != BINLOG_EV_TABLE_MAP || ev->size < BINLOG_HEADER_LEN + BINLOG_CRC_LEN + 10)
        return STRATA_ECORRUPT;
    const uint8_t *b = ev->data + BINLOG_HEADER_LEN, *end = ev->data + ev->size - BINLOG_CRC_LEN, *p = b + 8;
    memset(t, 0, sizeof *t);
    t->id = rd48(b);
    size_t dl = *p++;
    if ((size_t)(end - p) < dl + 2)
        return STRATA_ECORRUPT;
    memcpy(db, p, dl);
    db[dl] = 0;
    p += dl + 1;
    size_t tl = *p++;
    if ((size_t)(end - p) < tl + 1)
        return STRATA_ECORRUPT;
    memcpy(name, p, tl);
    name[tl] = 0;
    p += tl + 1;
    uint64_t ncols, mlen;
    if (!get_lenenc(&p, end, &ncols) || ncols == 0 || ncols > maxcols || (uint64_t)(end - p) < ncols)
        return STRATA_ECORRUPT;
    const uint8_t *types = p;
    p += ncols;
    if (!get_lenenc(&p, end, &mlen) || (uint64_t)(end - p) < mlen)
        return STRATA_ECORRUPT;
    const uint8_t *m = p, *mend = p + mlen;
    p += mlen;
    size_t nb = (size_t)(ncols + 7) / 8;
    if ((size_t)(end - p) < nb)
        return STRATA_ECORRUPT;
    for (uint32_t i = 0; i < ncols; i++) {
        size_t used = 0;
        int rc = col_from_map(types[i], m, (size_t)(mend - m), &cols[i], &used);
        if (rc)
            return rc;
        m += used;
        cols[i].nullable = (p[i / 8] >> (i % 8)) & 1;
    }
    t->db = db;
    t->name = name;
    t->ncols = (uint32_t)ncols;
    t->cols = cols;
    return 0;
}

static const int dig2bytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

/* bin2decimal into text "[-]int[.frac]" with exactly scale fraction digits. */
static int get_decimal(const uint8_t *p, size_t avail, int prec, int scale, char *out, size_t *used)
{
    if (prec < 1 || prec > 65 || scale < 0 || scale > 30 || scale > prec)
        return STRATA_EPROTO;
    int intg = prec - scale, intg0 = intg / 9, intg0x = intg % 9, frac0 = scale / 9, frac0x = scale % 9;
    size_t size = (size_t)(dig2bytes[intg0x] + intg0 * 4 + frac0 * 4 + dig2bytes[frac0x]);
    if (avail < size || size > 40)
        return STRATA_ECORRUPT;
    uint8_t b[40];
    memcpy(b, p, size);
    bool neg = !(b[0] & 0x80);
    b[0] ^= 0x80;
    if (neg)
        for (size_t k = 0; k < size; k++)
            b[k] = (uint8_t)~b[k];
    char idig[80], fdig[40];
    int ni = 0, nf = 0;
    size_t at = 0;
    if (intg0x) {
        ni += snprintf(idig + ni, sizeof idig - (size_t)ni, "%0*llu", intg0x,
                       (unsigned long long)get_be(b + at, dig2bytes[intg0x]));
        at += (size_t)dig2bytes[intg0x];
    }
    for (int g = 0; g < intg0; g++, at += 4)
        ni += snprintf(idig + ni, sizeof idig - (size_t)ni, "%09llu", (unsigned long long)get_be(b + at, 4));
    for (int g = 0; g < frac0; g++, at += 4)
        nf += snprintf(fdig + nf, sizeof fdig - (size_t)nf, "%09llu", (unsigned long long)get_be(b + at, 4));
    if (frac0x) {
        nf += snprintf(fdig + nf, sizeof fdig - (size_t)nf, "%0*llu", frac0x,
                       (unsigned long long)get_be(b + at, dig2bytes[frac0x]));
        at += (size_t)dig2bytes[frac0x];
    }
    if (ni > intg || nf > scale)
        return STRATA_ECORRUPT; /* a group held more digits than it may */
    int skip = 0;
    while (skip < ni - 1 && idig[skip] == '0')
        skip++;
    bool zero = true;
    for (int k = 0; k < ni; k++)
        zero &= idig[k] == '0';
    for (int k = 0; k < nf; k++)
        zero &= fdig[k] == '0';
    snprintf(out, ROWDEC_DEC_TEXT, "%s%.*s%s%.*s", neg && !zero ? "-" : "", ni ? ni - skip : 1,
             ni ? idig + skip : "0", nf ? "." : "", nf, fdig);
    *used = size;
    return 0;
}

static int get_frac(const uint8_t *p, size_t avail, int fsp, int *usec, size_t *used)
{
    int n = fsp <= 0 ? 0 : fsp <= 2 ? 1 : fsp <= 4 ? 2 : 3;
    if (avail < (size_t)n)
        return STRATA_ECORRUPT;
    uint64_t v = get_be(p, n);
    *usec = n == 1 ? (int)v * 10000 : n == 2 ? (int)v * 100 : (int)v;
    *used = (size_t)n;
    return 0;
}

int binlog_value_decode(const uint8_t *p, size_t avail, const binlog_col_t *c, binlog_value_t *v, char *dec_text,
                        size_t *used)
{
    memset(v, 0, sizeof *v);
    size_t n = 0;
    switch (c->type) {
    case BINLOG_T_TINY: n = 1; goto integer;
    case BINLOG_T_SHORT: n = 2; goto integer;
    case BINLOG_T_INT24: n = 3; goto integer;
    case BINLOG_T_LONG: n = 4; goto integer;
    case BINLOG_T_LONGLONG: n = 8;
    integer:
        if (avail < n)
            return STRATA_ECORRUPT;
        v->i = sign_ext(get_le(p, (int)n), (int)n);
        break;
    case BINLOG_T_FLOAT: {
        if (avail < (n = 4))
            return STRATA_ECORRUPT;
        uint32_t u = (uint32_t)get_le(p, 4);
        float f;
        memcpy(&f, &u, 4);
        v->d = f;
        break;
    }
    case BINLOG_T_DOUBLE: {
        if (avail < (n = 8))
            return STRATA_ECORRUPT;
        uint64_t u = get_le(p, 8);
        memcpy(&v->d, &u, 8);
        break;
    }
    case BINLOG_T_YEAR:
        if (avail < (n = 1))
            return STRATA_ECORRUPT;
        v->i = p[0] ? p[0] + 1900 : 0;
        break;
    case BINLOG_T_DATE: {
        if (avail < (n = 3))
            return STRATA_ECORRUPT;
        uint32_t x = (uint32_t)get_le(p, 3);
        v->tm.day = (int)(x & 31);
        v->tm.month = (int)((x >> 5) & 15);
        v->tm.year = (int)(x >> 9);
        break;
    }
    case BINLOG_T_NEWDECIMAL: {
        int rc = get_decimal(p, avail, c->length, c->scale, dec_text, &n);
        if (rc)
            return rc;
        v->s = dec_text;
        v->len = strlen(dec_text);
        break;
    }
    case BINLOG_T_VARCHAR: case BINLOG_T_VAR_STRING: case BINLOG_T_STRING: case BINLOG_T_BLOB:
    case BINLOG_T_GEOMETRY: {
        int pre = c->type == BINLOG_T_BLOB || c->type == BINLOG_T_GEOMETRY ? c->length : c->length < 256 ? 1 : 2;
        if (pre < 1 || pre > 4 || avail < (size_t)pre)
            return STRATA_ECORRUPT;
        uint64_t len = get_le(p, pre);
        if (avail - (size_t)pre < len)
            return STRATA_ECORRUPT;
        v->s = (const char *)p + pre;
        v->len = (size_t)len;
        n = (size_t)pre + (size_t)len;
        break;
    }
    case BINLOG_T_ENUM: case BINLOG_T_SET:
        if (c->length < 1 || c->length > 8 || avail < (n = c->length))
            return STRATA_ECORRUPT;
        v->u = get_le(p, (int)n);
        break;
    case BINLOG_T_BIT:
        if (c->length < 1 || c->length > 64 || avail < (n = (size_t)(c->length + 7) / 8))
            return STRATA_ECORRUPT;
        v->u = get_be(p, (int)n);
        break;
    case BINLOG_T_DATETIME2: {
        if (avail < 5)
            return STRATA_ECORRUPT;
        uint64_t x = get_be(p, 5) - 0x8000000000ull, ymd = x >> 17, hms = x & 0x1ffff, ym = ymd >> 5;
        v->tm.day = (int)(ymd & 31);
        v->tm.month = (int)(ym % 13);
        v->tm.year = (int)(ym / 13);
        v->tm.hour = (int)(hms >> 12);
        v->tm.minute = (int)((hms >> 6) & 63);
        v->tm.second = (int)(hms & 63);
        size_t f;
        if (get_frac(p + 5, avail - 5, c->scale, &v->tm.usec, &f))
            return STRATA_ECORRUPT;
        n = 5 + f;
        break;
    }
    case BINLOG_T_TIMESTAMP2: {
        if (avail < 4)
            return STRATA_ECORRUPT;
        v->i = (int64_t)get_be(p, 4);
        size_t f;
        if (get_frac(p + 4, avail - 4, c->scale, &v->tm.usec, &f))
            return STRATA_ECORRUPT;
        n = 4 + f;
        break;
    }
    case BINLOG_T_TIME2: {
        int64_t nr;
        if (c->scale >= 5) {
            if (avail < (n = 6))
                return STRATA_ECORRUPT;
            nr = (int64_t)get_be(p, 6) - 0x800000000000LL;
        } else {
            int fb = c->scale >= 3 ? 2 : c->scale >= 1 ? 1 : 0;
            if (avail < (n = (size_t)(3 + fb)))
                return STRATA_ECORRUPT;
            int64_t ip = (int64_t)get_be(p, 3) - 0x800000, fr = fb ? (int64_t)get_be(p + 3, fb) : 0;
            if (ip < 0 && fr) { /* negative values keep the fraction in reverse order (MariaDB's TIME2) */
                ip++;
                fr -= fb == 2 ? 0x10000 : 0x100;
            }
            nr = ip * (1LL << 24) + fr * (fb == 2 ? 100 : 10000);
        }
        v->tm.neg = nr < 0;
        if (nr < 0)
            nr = -nr;
        int64_t hms = nr >> 24;
        v->tm.usec = (int)(nr % (1LL << 24));
        v->tm.hour = (int)(hms >> 12);
        v->tm.minute = (int)((hms >> 6) & 63);
        v->tm.second = (int)(hms & 63);
        break;
    }
    default:
        return STRATA_EPROTO;
    }
    *used = n;
    return 0;
}

static void ensure(binlog_rowdec_t *d, uint32_t ncols)
{
    if (d->cap >= ncols)
        return;
    d->cap = ncols;
    d->vals = mem_realloc(d->vals, 2 * (size_t)ncols * sizeof *d->vals);
    d->dec = mem_realloc(d->dec, 2 * (size_t)ncols * sizeof *d->dec);
}

/* One image: null bitmap then values.  vals/dec have ncols entries. */
static int get_image(const binlog_table_t *t, const uint8_t **pp, const uint8_t *end, binlog_value_t *vals,
                     char (*dec)[ROWDEC_DEC_TEXT])
{
    const uint8_t *p = *pp;
    size_t nb = (t->ncols + 7) / 8;
    if ((size_t)(end - p) < nb)
        return STRATA_ECORRUPT;
    const uint8_t *nulls = p;
    p += nb;
    for (uint32_t i = 0; i < t->ncols; i++) {
        if ((nulls[i / 8] >> (i % 8)) & 1) {
            memset(&vals[i], 0, sizeof vals[i]);
            vals[i].is_null = true;
            continue;
        }
        size_t used;
        int rc = binlog_value_decode(p, (size_t)(end - p), &t->cols[i], &vals[i], dec[i], &used);
        if (rc)
            return rc;
        p += used;
    }
    *pp = p;
    return 0;
}

int binlog_rowdec_event(binlog_rowdec_t *d, const binlog_event_t *ev, binlog_row_fn fn, void *arg)
{
    if (ev->size < BINLOG_HEADER_LEN + BINLOG_CRC_LEN)
        return STRATA_ECORRUPT;
    if (ev->type == BINLOG_EV_GTID) {
        binlog_rowdec_reset(d); /* table ids are per transaction */
        return 0;
    }
    if (ev->type == BINLOG_EV_TABLE_MAP) {
        char db[256], name[256];
        binlog_col_t *cols = mem_calloc(4096, sizeof *cols);
        binlog_table_t tb;
        int rc = binlog_table_map_decode(ev, &tb, cols, 4096, db, name);
        if (rc) {
            mem_free(cols);
            return rc;
        }
        rowdec_table_t *slot = NULL;
        for (uint32_t i = 0; i < d->n && !slot; i++)
            if (d->t[i].tb.id == tb.id)
                slot = &d->t[i];
        if (!slot) {
            if (d->n == ROWDEC_MAX_TABLES) {
                mem_free(cols);
                return STRATA_EPROTO;
            }
            slot = &d->t[d->n++];
        } else {
            mem_free(slot->cols);
            mem_free(slot->db);
            mem_free(slot->name);
        }
        slot->cols = mem_realloc(cols, tb.ncols * sizeof *cols);
        slot->db = mem_strdup(db);
        slot->name = mem_strdup(name);
        slot->tb = tb;
        slot->tb.cols = slot->cols;
        slot->tb.db = slot->db;
        slot->tb.name = slot->name;
        return 0;
    }
    binlog_row_op_t op;
    bool v2 = false;
    switch (ev->type) {
    case BINLOG_EV_WRITE_ROWS_V2: v2 = true; /* fall through */
    case BINLOG_EV_WRITE_ROWS_V1: op = BINLOG_ROW_INSERT; break;
    case BINLOG_EV_UPDATE_ROWS_V2: v2 = true; /* fall through */
    case BINLOG_EV_UPDATE_ROWS_V1: op = BINLOG_ROW_UPDATE; break;
    case BINLOG_EV_DELETE_ROWS_V2: v2 = true; /* fall through */
    case BINLOG_EV_DELETE_ROWS_V1: op = BINLOG_ROW_DELETE; break;
    default:
        return 0; /* GTID, XID, ANNOTATE_ROWS, QUERY ...: nothing to apply here */
    }
    const uint8_t *b = ev->data + BINLOG_HEADER_LEN, *end = ev->data + ev->size - BINLOG_CRC_LEN, *p = b + 8;
    if (end - b < 8)
        return STRATA_ECORRUPT;
    uint64_t id = rd48(b);
    if (v2) {
        if (end - p < 2 || rd16(p) < 2 || end - p < rd16(p))
            return STRATA_ECORRUPT;
        p += rd16(p);
    }
    const binlog_table_t *t = NULL;
    for (uint32_t i = 0; i < d->n && !t; i++)
        if (d->t[i].tb.id == id)
            t = &d->t[i].tb;
    if (!t)
        return STRATA_ECORRUPT; /* rows without their TABLE_MAP */
    uint64_t ncols;
    if (!get_lenenc(&p, end, &ncols) || ncols != t->ncols)
        return STRATA_ECORRUPT;
    size_t nb = (t->ncols + 7) / 8;
    for (int img = 0; img < (op == BINLOG_ROW_UPDATE ? 2 : 1); img++) {
        if ((size_t)(end - p) < nb)
            return STRATA_ECORRUPT;
        for (uint32_t i = 0; i < t->ncols; i++)
            if (!((p[i / 8] >> (i % 8)) & 1))
                return STRATA_EPROTO; /* a partial image (binlog_row_image=MINIMAL): not supported */
        p += nb;
    }
    ensure(d, t->ncols);
    while (p < end) {
        binlog_value_t *a = d->vals, *bv = d->vals + t->ncols;
        int rc = get_image(t, &p, end, a, d->dec);
        if (rc == 0 && op == BINLOG_ROW_UPDATE)
            rc = get_image(t, &p, end, bv, d->dec + t->ncols);
        if (rc)
            return rc;
        rc = op == BINLOG_ROW_INSERT   ? fn(arg, t, op, NULL, a)
             : op == BINLOG_ROW_DELETE ? fn(arg, t, op, a, NULL)
                                       : fn(arg, t, op, a, bv);
        if (rc)
            return rc;
    }
    return 0;
}
