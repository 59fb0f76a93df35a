/* TEMPORARY stand-in for the packet framing module being written on the codec branch (replaced at merge). */
#ifndef STRATA_PACKET_H
#define STRATA_PACKET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/util.h"

#define PACKET_MAX_CHUNK 0xffffffu
int packet_read(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq, buf_t *payload_out, size_t *consumed);
void packet_write(buf_t *out, const uint8_t *payload, size_t len, uint8_t *seq);

typedef struct pcur {
    const uint8_t *p, *end;
    bool err;
} pcur_t;
static inline void pcur_init(pcur_t *c, const uint8_t *p, size_t n) { c->p = p, c->end = p + n, c->err = false; }
static inline size_t pcur_left(const pcur_t *c) { return (size_t)(c->end - c->p); }
uint8_t pcur_u8(pcur_t *c);
uint16_t pcur_u16(pcur_t *c);
uint32_t pcur_u24(pcur_t *c);
uint32_t pcur_u32(pcur_t *c);
uint64_t pcur_u64(pcur_t *c);
uint64_t pcur_lenenc(pcur_t *c, bool *is_null);
const uint8_t *pcur_bytes(pcur_t *c, size_t n);
const uint8_t *pcur_lenenc_str(pcur_t *c, size_t *n);
const char *pcur_cstr(pcur_t *c, size_t *n);
#endif
