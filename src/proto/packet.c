/*
 * MySQL packet framing (see packet.h for the wire format) and the payload cursor.
 *
 * packet_read() looks at headers first and copies last: it walks the chain of piece headers, checking sequence
 * ids and the running total against max_allowed as each header arrives, and only when the final (short) piece is
 * complete does it copy the pieces into the caller's buffer.  So a peer announcing a huge payload is refused on
 * its header, and a partial payload costs nothing but a rescan of a few headers on the next call.
 */
#include <string.h>

#include "proto/packet.h"

static inline uint32_t rd_u24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }

static inline void wr_header(uint8_t *p, uint32_t n, uint8_t seq)
{
    p[0] = (uint8_t)n;
    p[1] = (uint8_t)(n >> 8);
    p[2] = (uint8_t)(n >> 16);
    p[3] = seq;
}

static int packet_read_impl(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq, bool any_seq,
                            buf_t *payload_out, size_t *consumed)
{
    size_t pos = 0, total = 0;
    uint8_t seq = *expect_seq;
    bool first = true;

    *consumed = 0;
    for (;;) {
        if (len - pos < PACKET_HEADER_SIZE)
            return STRATA_EAGAIN;
        uint32_t n = rd_u24(in + pos);
        uint8_t s = in[pos + 3];
        if (first && any_seq)
            seq = s;
        else if (s != seq)
            return STRATA_EPROTO;
        first = false;
        if (n > max_allowed - total) /* total <= max_allowed holds here */
            return STRATA_ETOOBIG;
        total += n;
        if (len - pos - PACKET_HEADER_SIZE < n)
            return STRATA_EAGAIN;
        pos += PACKET_HEADER_SIZE + n;
        seq++;
        if (n < PACKET_MAX_PIECE)
            break;
    }

    /* Complete: join the pieces. */
    buf_reset(payload_out);
    buf_reserve(payload_out, total);
    for (size_t p = 0; p < pos;) {
        uint32_t n = rd_u24(in + p);
        if (n) {
            memcpy(payload_out->data + payload_out->len, in + p + PACKET_HEADER_SIZE, n);
            payload_out->len += n;
        }
        p += PACKET_HEADER_SIZE + n;
    }
    *expect_seq = seq;
    *consumed = pos;
    return 0;
}

int packet_read(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq, buf_t *payload_out,
                size_t *consumed)
{
    return packet_read_impl(in, len, max_allowed, expect_seq, false, payload_out, consumed);
}

int packet_read_any_seq(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq,
                        buf_t *payload_out, size_t *consumed)
{
    return packet_read_impl(in, len, max_allowed, expect_seq, true, payload_out, consumed);
}

int packet_peek_header(const uint8_t *in, size_t len, uint32_t *piece_len, uint8_t *seq)
{
    if (len < PACKET_HEADER_SIZE)
        return STRATA_EAGAIN;
    *piece_len = rd_u24(in);
    *seq = in[3];
    return 0;
}

void packet_write(buf_t *out, const uint8_t *payload, size_t len, uint8_t *seq)
{
    size_t pieces = len / PACKET_MAX_PIECE + 1;
    buf_reserve(out, len + pieces * PACKET_HEADER_SIZE);
    for (;;) {
        uint32_t n = len >= PACKET_MAX_PIECE ? PACKET_MAX_PIECE : (uint32_t)len;
        wr_header(out->data + out->len, n, (*seq)++);
        if (n) {
            memcpy(out->data + out->len + PACKET_HEADER_SIZE, payload, n);
            payload += n;
        }
        out->len += PACKET_HEADER_SIZE + n;
        len -= n;
        if (n < PACKET_MAX_PIECE)
            break;
    }
}

size_t packet_begin(buf_t *out)
{
    size_t start = out->len;
    buf_reserve(out, PACKET_HEADER_SIZE);
    memset(out->data + start, 0, PACKET_HEADER_SIZE);
    out->len += PACKET_HEADER_SIZE;
    return start;
}

void packet_end(buf_t *out, size_t start, uint8_t *seq)
{
    ASSERT(out->len >= start + PACKET_HEADER_SIZE);
    size_t len = out->len - start - PACKET_HEADER_SIZE;
    if (len < PACKET_MAX_PIECE) {
        wr_header(out->data + start, (uint32_t)len, (*seq)++);
        return;
    }
    /* Rare: the payload needs pieces.  Open gaps for the extra headers, moving the later pieces first so that
     * no piece is overwritten before it has moved (each moves up by 4 bytes per header before it). */
    size_t extra = len / PACKET_MAX_PIECE; /* headers to insert; pieces = extra + 1 */
    buf_reserve(out, extra * PACKET_HEADER_SIZE);
    uint8_t *base = out->data + start;
    for (size_t i = extra + 1; i-- > 0;) {
        size_t src = PACKET_HEADER_SIZE + i * PACKET_MAX_PIECE;
        size_t n = i < extra ? PACKET_MAX_PIECE : len - extra * PACKET_MAX_PIECE;
        size_t dst = i * (PACKET_HEADER_SIZE + PACKET_MAX_PIECE);
        memmove(base + dst + PACKET_HEADER_SIZE, base + src, n);
    }
    for (size_t i = 0; i <= extra; i++) {
        size_t n = i < extra ? PACKET_MAX_PIECE : len - extra * PACKET_MAX_PIECE;
        wr_header(base + i * (PACKET_HEADER_SIZE + PACKET_MAX_PIECE), (uint32_t)n, (*seq)++);
    }
    out->len += extra * PACKET_HEADER_SIZE;
}

/* ---- payload cursor ---- */

static const uint8_t pcur_empty[1] = {0};

void pcur_init(pcur_t *c, const uint8_t *data, size_t len)
{
    if (!data) /* an empty payload may come as NULL; keep the pointer arithmetic defined */
        data = pcur_empty, len = 0;
    c->p = data;
    c->end = data + len;
    c->err = false;
}

/* Takes n bytes or fails the cursor; returns NULL on failure. */
static const uint8_t *pcur_take(pcur_t *c, size_t n)
{
    if (c->err || (size_t)(c->end - c->p) < n) {
        c->err = true;
        return NULL;
    }
    const uint8_t *q = c->p;
    if (n)
        c->p += n;
    return q ? q : pcur_empty; /* a zero-length take from an empty (NULL) payload */
}

static uint64_t pcur_get_le(pcur_t *c, int n)
{
    const uint8_t *q = pcur_take(c, (size_t)n);
    uint64_t v = 0;
    if (!q)
        return 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)q[i] << (8 * i);
    return v;
}

uint8_t pcur_get_u8(pcur_t *c) { return (uint8_t)pcur_get_le(c, 1); }
uint16_t pcur_get_u16(pcur_t *c) { return (uint16_t)pcur_get_le(c, 2); }
uint32_t pcur_get_u24(pcur_t *c) { return (uint32_t)pcur_get_le(c, 3); }
uint32_t pcur_get_u32(pcur_t *c) { return (uint32_t)pcur_get_le(c, 4); }
uint64_t pcur_get_u48(pcur_t *c) { return pcur_get_le(c, 6); }
uint64_t pcur_get_u64(pcur_t *c) { return pcur_get_le(c, 8); }

uint64_t pcur_get_lenenc_null(pcur_t *c, bool *is_null)
{
    *is_null = false;
    uint8_t b = pcur_get_u8(c);
    if (c->err)
        return 0;
    switch (b) {
    case 0xfb:
        *is_null = true;
        return 0;
    case 0xfc:
        return pcur_get_le(c, 2);
    case 0xfd:
        return pcur_get_le(c, 3);
    case 0xfe:
        return pcur_get_le(c, 8);
    case 0xff:
        c->err = true;
        return 0;
    default:
        return b;
    }
}

uint64_t pcur_get_lenenc(pcur_t *c)
{
    bool is_null;
    uint64_t v = pcur_get_lenenc_null(c, &is_null);
    if (is_null)
        c->err = true;
    return c->err ? 0 : v;
}

const uint8_t *pcur_get_lenenc_str(pcur_t *c, size_t *len)
{
    uint64_t n = pcur_get_lenenc(c);
    const uint8_t *q = NULL;
    if (!c->err && n <= (uint64_t)(c->end - c->p))
        q = pcur_take(c, (size_t)n);
    else
        c->err = true;
    if (!q) {
        *len = 0;
        return pcur_empty;
    }
    *len = (size_t)n;
    return q;
}

const char *pcur_get_cstr(pcur_t *c, size_t *len)
{
    *len = 0;
    if (c->err)
        return (const char *)pcur_empty;
    const uint8_t *nul = c->p == c->end ? NULL : memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!nul) {
        c->err = true;
        return (const char *)pcur_empty;
    }
    const char *s = (const char *)c->p;
    *len = (size_t)(nul - c->p);
    c->p = nul + 1;
    return s;
}

const uint8_t *pcur_get_bytes(pcur_t *c, size_t n)
{
    const uint8_t *q = pcur_take(c, n);
    return q ? q : pcur_empty;
}

void pcur_skip(pcur_t *c, size_t n) { (void)pcur_take(c, n); }

const uint8_t *pcur_get_rest(pcur_t *c, size_t *len)
{
    if (c->err) {
        *len = 0;
        return pcur_empty;
    }
    const uint8_t *q = c->p;
    *len = (size_t)(c->end - c->p);
    c->p = c->end;
    return *len ? q : pcur_empty;
}
