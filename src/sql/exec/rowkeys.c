/*
 * Row buffers and keys: values copied out of a row's scratch memory, rows packed into bytes for sorts and
 * spills (row_pack / row_unpack), memcomparable keys of any value (key_append_value) for sort, group and distinct
 * keys, and the arena-backed byte-string hash map GROUP BY and DISTINCT keep their keys in (seeded hash, util/hash.h).
 */
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sql/exec/exec_int.h"
#include "access/stats.h"
#include "sql/exec/extsort.h"
#include "sql/expr/typeinf.h"
#include "sql/value/tz.h"
#include "util/util.h"
#include "util/hash.h"
#include "sql/exec/query_int.h"

/* ---------------------------------------------------------------- values and keys */

value_t value_copy_into(arena_t *a, const value_t *v)
{
    value_t r = *v;
    if ((v->type == VAL_STRING || v->type == VAL_DECIMAL) && v->s.len) {
        /* NUL-terminated like value_decimal's text: value_to_double reads a DECIMAL with strtod */
        char *p = arena_alloc(a, v->s.len + 1);
        memcpy(p, v->s.ptr, v->s.len);
        p[v->s.len] = 0;
        r.s.ptr = p;
    }
    return r;
}

/* Values as bytes for a sort's payload (a temporary file of this process, so host byte order):
 *   u8 type, u16 coll, u8 dec, then  INT/UINT/DOUBLE: 8 bytes;  STRING/DECIMAL: u32 length + bytes;
 *   DATE/DATETIME/TIMESTAMP/TIME: 7 x u32 (year month day hour minute second usec) + u8 neg;  NULL: nothing. */
void row_pack(buf_t *b, const value_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t h[4] = {(uint8_t)v[i].type, (uint8_t)(v[i].coll & 0xff), (uint8_t)(v[i].coll >> 8), v[i].dec};
        buf_append(b, h, 4);
        switch (v[i].type) {
        case VAL_NULL:
            break;
        case VAL_INT: case VAL_UINT: case VAL_DOUBLE:
            buf_append(b, &v[i].u, 8);
            break;
        case VAL_STRING: case VAL_DECIMAL: {
            uint32_t l = (uint32_t)v[i].s.len;
            buf_append(b, &l, 4);
            if (l)
                buf_append(b, v[i].s.ptr, l);
            break;
        }
        default: {
            const sql_time_t *t = &v[i].t;
            uint32_t f[7] = {t->year, t->month, t->day, t->hour, t->minute, t->second, t->usec};
            buf_append(b, f, sizeof f);
            buf_append_byte(b, t->neg);
            break;
        }
        }
    }
}

/* The reverse of row_pack; strings are copied into a.  Returns the position after the values. */
const uint8_t *row_unpack(arena_t *a, const uint8_t *p, value_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].type = (value_type_t)p[0];
        v[i].coll = (uint16_t)(p[1] | p[2] << 8);
        v[i].dec = p[3];
        p += 4;
        switch (v[i].type) {
        case VAL_NULL:
            break;
        case VAL_INT: case VAL_UINT: case VAL_DOUBLE:
            memcpy(&v[i].u, p, 8);
            p += 8;
            break;
        case VAL_STRING: case VAL_DECIMAL: {
            uint32_t l;
            memcpy(&l, p, 4);
            p += 4;
            char *c = arena_alloc(a, l + 1);
            if (l)
                memcpy(c, p, l);
            c[l] = 0;
            v[i].s.ptr = c;
            v[i].s.len = l;
            p += l;
            break;
        }
        default: {
            uint32_t f[7];
            memcpy(f, p, sizeof f);
            p += sizeof f;
            sql_time_t *t = &v[i].t;
            t->year = f[0], t->month = f[1], t->day = f[2], t->hour = f[3], t->minute = f[4], t->second = f[5];
            t->usec = f[6];
            t->neg = *p++ != 0;
            break;
        }
        }
    }
    return p;
}

/* Bytes a kept copy of n values takes (the in-memory budgets of GROUP BY and DISTINCT count these). */
size_t row_packed_size(const value_t *v, uint32_t n)
{
    size_t z = sizeof(value_t) * n;
    for (uint32_t i = 0; i < n; i++)
        if (v[i].type == VAL_STRING || v[i].type == VAL_DECIMAL)
            z += v[i].s.len;
    return z;
}

void key_append_value(buf_t *b, const value_t *v, bool desc)
{
    size_t start = b->len;
    rc_col_t c = {.nullable = true};
    value_t x = *v;
    if (v->type == VAL_NULL) {
        buf_append_byte(b, 0);
    } else {
        buf_append_byte(b, 1);
        switch (v->type) {
        case VAL_INT: case VAL_UINT: case VAL_DECIMAL: case VAL_DOUBLE:
            buf_append_byte(b, 1);
            if (v->type == VAL_DOUBLE) {
                c.type = SQLT_DOUBLE;
            } else {
                /* every exact number in one layout, so 1 and 1.0 (and INT next to DECIMAL) compare and group right */
                c.type = SQLT_DECIMAL;
                c.len = 65;
                c.scale = 30;
            }
            rc_key_append(b, &c, &x);
            /* the type marker 1 was followed by the nullable marker of c: fine, constant */
            break;
        case VAL_STRING:
            if (v->dec == VAL_DEC_ENUM) { /* an ENUM / SET column sorts by index / mask */
                buf_append_byte(b, 1);
                c.type = SQLT_DECIMAL;
                c.len = 65;
                c.scale = 30;
                x = value_uint(v->s.num);
                rc_key_append(b, &c, &x);
                break;
            }
            buf_append_byte(b, 3);
            c.type = SQLT_VARCHAR;
            c.coll = v->coll;
            rc_key_append(b, &c, &x);
            break;
        case VAL_TIME:
            buf_append_byte(b, 2);
            c.type = SQLT_TIME;
            rc_key_append(b, &c, &x);
            break;
        default:
            buf_append_byte(b, 2);
            c.type = SQLT_DATETIME;
            rc_key_append(b, &c, &x);
            break;
        }
    }
    if (desc)
        for (size_t i = start; i < b->len; i++)
            b->data[i] ^= 0xFF;
}

/* Mixing integer and double keys in one column would compare DECIMAL vs DOUBLE encodings: a numeric value is
 * encoded as DECIMAL when it is an integer or decimal; doubles are rare in sort keys next to integers. */

/* ---------------------------------------------------------------- a tiny byte-string hash map */

void keymap_init(keymap_t *m, arena_t *a)
{
    memset(m, 0, sizeof *m);
    m->a = a;
}

void keymap_free(keymap_t *m)
{
    mem_free(m->slots);
    mem_free(m->kp);
    mem_free(m->kl);
    keymap_init(m, m->a); /* freed twice is harmless */
}

/* The key's index, or -1 when absent. */
int64_t keymap_find(const keymap_t *m, const uint8_t *k, size_t n)
{
    if (!m->cap)
        return -1;
    uint32_t j = (uint32_t)(hash_bytes(k, n) & (m->cap - 1));
    while (m->slots[j]) {
        uint32_t idx = m->slots[j] - 1;
        if (m->kl[idx] == n && (n == 0 || memcmp(m->kp[idx], k, n) == 0))
            return idx;
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

/* Returns the key's index; *added when new. */
uint32_t keymap_put(keymap_t *m, const uint8_t *k, size_t n, bool *added)
{
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        uint32_t *ns = mem_calloc(nc, sizeof *ns);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->slots[i])
                continue;
            uint32_t idx = m->slots[i] - 1;
            uint64_t h = hash_bytes(m->kp[idx], m->kl[idx]);
            uint32_t j = (uint32_t)(h & (nc - 1));
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = idx + 1;
        }
        mem_free(m->slots);
        m->slots = ns;
        m->cap = nc;
    }
    uint64_t h = hash_bytes(k, n);
    uint32_t j = (uint32_t)(h & (m->cap - 1));
    while (m->slots[j]) {
        uint32_t idx = m->slots[j] - 1;
        if (m->kl[idx] == n && (n == 0 || memcmp(m->kp[idx], k, n) == 0)) {
            *added = false;
            return idx;
        }
        j = (j + 1) & (m->cap - 1);
    }
    if (m->n == m->kcap) {
        m->kcap = m->kcap ? m->kcap * 2 : 64;
        m->kp = mem_realloc(m->kp, sizeof(*m->kp) * m->kcap);
        m->kl = mem_realloc(m->kl, sizeof(*m->kl) * m->kcap);
    }
    uint8_t *copy = arena_alloc(m->a, n ? n : 1);
    if (n)
        memcpy(copy, k, n);
    m->kp[m->n] = copy;
    m->kl[m->n] = n;
    m->slots[j] = m->n + 1;
    *added = true;
    return m->n++;
}
