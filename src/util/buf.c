/* Growable byte buffer (see buf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

void buf_init(buf_t *b) { b->data = NULL, b->len = 0, b->cap = 0; }

void buf_free(buf_t *b)
{
    mem_free(b->data);
    buf_init(b);
}

void buf_reserve(buf_t *b, size_t extra)
{
    if (b->len + extra <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra)
        cap *= 2;
    b->data = mem_realloc(b->data, cap);
    b->cap = cap;
}

void buf_append(buf_t *b, const void *p, size_t n)
{
    if (!n)
        return;
    buf_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void buf_append_byte(buf_t *b, uint8_t c)
{
    buf_reserve(b, 1);
    b->data[b->len++] = c;
}

void buf_append_str(buf_t *b, const char *s) { buf_append(b, s, strlen(s)); }

void buf_printf(buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        buf_append(b, tmp, (size_t)n);
        return;
    }
    buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_consume(buf_t *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void buf_shrink(buf_t *b, size_t keep)
{
    if (b->len == 0 && b->cap > keep) {
        mem_free(b->data);
        b->data = keep ? mem_alloc(keep) : NULL;
        b->cap = keep;
    }
}

void buf_put_u8(buf_t *b, uint8_t v) { buf_append_byte(b, v); }

static void buf_put_le(buf_t *b, uint64_t v, int n)
{
    buf_reserve(b, (size_t)n);
    for (int i = 0; i < n; i++)
        b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

void buf_put_u16(buf_t *b, uint16_t v) { buf_put_le(b, v, 2); }
void buf_put_u24(buf_t *b, uint32_t v) { buf_put_le(b, v, 3); }
void buf_put_u32(buf_t *b, uint32_t v) { buf_put_le(b, v, 4); }
void buf_put_u48(buf_t *b, uint64_t v) { buf_put_le(b, v, 6); }
void buf_put_u64(buf_t *b, uint64_t v) { buf_put_le(b, v, 8); }

void buf_put_lenenc_int(buf_t *b, uint64_t v)
{
    if (v < 251) {
        buf_put_u8(b, (uint8_t)v);
    } else if (v < (1u << 16)) {
        buf_put_u8(b, 0xfc);
        buf_put_u16(b, (uint16_t)v);
    } else if (v < (1u << 24)) {
        buf_put_u8(b, 0xfd);
        buf_put_u24(b, (uint32_t)v);
    } else {
        buf_put_u8(b, 0xfe);
        buf_put_u64(b, v);
    }
}

void buf_put_lenenc_str(buf_t *b, const void *p, size_t n)
{
    buf_put_lenenc_int(b, n);
    buf_append(b, p, n);
}
