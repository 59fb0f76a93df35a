/* TEMPORARY stand-in for the packet framing module being written on the codec branch (replaced at merge). */
#include <string.h>
#include "proto/packet.h"

int packet_read(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq, buf_t *payload_out, size_t *consumed)
{
    size_t off = 0, total = 0;
    uint8_t seq = *expect_seq;
    for (;;) {
        if (len - off < 4)
            return STRATA_EAGAIN;
        size_t n = in[off] | (size_t)in[off + 1] << 8 | (size_t)in[off + 2] << 16;
        if (in[off + 3] != seq)
            return STRATA_EPROTO;
        if (total + n > max_allowed)
            return STRATA_ETOOBIG;
        if (len - off - 4 < n)
            return STRATA_EAGAIN;
        total += n;
        off += 4 + n;
        seq++;
        if (n < PACKET_MAX_CHUNK)
            break;
    }
    buf_reset(payload_out);
    size_t o = 0;
    for (;;) {
        size_t n = in[o] | (size_t)in[o + 1] << 8 | (size_t)in[o + 2] << 16;
        buf_append(payload_out, in + o + 4, n);
        o += 4 + n;
        if (n < PACKET_MAX_CHUNK)
            break;
    }
    *expect_seq = seq;
    *consumed = off;
    return 0;
}

void packet_write(buf_t *out, const uint8_t *payload, size_t len, uint8_t *seq)
{
    for (;;) {
        size_t n = len > PACKET_MAX_CHUNK ? PACKET_MAX_CHUNK : len;
        buf_put_u24(out, (uint32_t)n);
        buf_put_u8(out, (*seq)++);
        buf_append(out, payload, n);
        payload += n;
        len -= n;
        if (n < PACKET_MAX_CHUNK)
            break;
    }
}

static bool need(pcur_t *c, size_t n)
{
    if (c->err || pcur_left(c) < n) {
        c->err = true;
        return false;
    }
    return true;
}
static uint64_t le(pcur_t *c, int n)
{
    if (!need(c, (size_t)n))
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}
uint8_t pcur_u8(pcur_t *c) { return (uint8_t)le(c, 1); }
uint16_t pcur_u16(pcur_t *c) { return (uint16_t)le(c, 2); }
uint32_t pcur_u24(pcur_t *c) { return (uint32_t)le(c, 3); }
uint32_t pcur_u32(pcur_t *c) { return (uint32_t)le(c, 4); }
uint64_t pcur_u64(pcur_t *c) { return le(c, 8); }
uint64_t pcur_lenenc(pcur_t *c, bool *is_null)
{
    if (is_null)
        *is_null = false;
    uint8_t b = pcur_u8(c);
    if (b < 0xfb)
        return b;
    if (b == 0xfb) {
        if (is_null)
            *is_null = true;
        return 0;
    }
    if (b == 0xfc)
        return le(c, 2);
    if (b == 0xfd)
        return le(c, 3);
    if (b == 0xfe)
        return le(c, 8);
    c->err = true;
    return 0;
}
const uint8_t *pcur_bytes(pcur_t *c, size_t n)
{
    if (!need(c, n))
        return NULL;
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}
const uint8_t *pcur_lenenc_str(pcur_t *c, size_t *n)
{
    uint64_t l = pcur_lenenc(c, NULL);
    if (c->err || l > pcur_left(c)) {
        c->err = true;
        *n = 0;
        return NULL;
    }
    *n = (size_t)l;
    return pcur_bytes(c, (size_t)l);
}
const char *pcur_cstr(pcur_t *c, size_t *n)
{
    if (c->err)
        return NULL;
    const uint8_t *z = memchr(c->p, 0, pcur_left(c));
    if (!z) {
        c->err = true;
        return NULL;
    }
    const char *s = (const char *)c->p;
    if (n)
        *n = (size_t)(z - c->p);
    c->p = z + 1;
    return s;
}
