/* Growable byte buffer.  `len` bytes of `data` are valid; `cap` is allocated.  Append helpers never fail. */
#ifndef STRATA_BUF_H
#define STRATA_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} buf_t;

void buf_init(buf_t *b);
void buf_free(buf_t *b);
void buf_reserve(buf_t *b, size_t extra); /* ensure cap >= len + extra */
void buf_append(buf_t *b, const void *p, size_t n);
void buf_append_byte(buf_t *b, uint8_t c);
void buf_append_str(buf_t *b, const char *s);
void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_consume(buf_t *b, size_t n); /* drop n bytes from the front */
/* Drops storage above `keep` bytes when empty, so one large result does not pin memory on an idle connection. */
void buf_shrink(buf_t *b, size_t keep);
static inline void buf_reset(buf_t *b) { b->len = 0; }

/* Little-endian integers and MySQL length-encoded values. */
void buf_put_u8(buf_t *b, uint8_t v);
void buf_put_u16(buf_t *b, uint16_t v);
void buf_put_u24(buf_t *b, uint32_t v);
void buf_put_u32(buf_t *b, uint32_t v);
void buf_put_u48(buf_t *b, uint64_t v);
void buf_put_u64(buf_t *b, uint64_t v);
void buf_put_lenenc_int(buf_t *b, uint64_t v);
void buf_put_lenenc_str(buf_t *b, const void *p, size_t n);

#endif
