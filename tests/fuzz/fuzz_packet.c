/*
 * libFuzzer target for proto/packet: arbitrary bytes through packet_read / packet_read_any_seq (the first input
 * byte picks max_allowed and the sequence mode), every payload found walked with the cursor by a program taken
 * from the payload itself, and packet_write / packet_begin+end checked to round-trip.  The input is the heap
 * buffer libFuzzer gives, exactly sized, so ASan catches any read past it.
 */
#include <stdint.h>
#include <string.h>

#include "proto/packet.h"

static void walk_cursor(const uint8_t *p, size_t n)
{
    pcur_t c;
    pcur_init(&c, p, n);
    size_t steps = 0;
    while (pcur_ok(&c) && pcur_left(&c) > 0 && steps++ < 64) {
        size_t len;
        bool is_null;
        const uint8_t *s;
        switch (pcur_get_u8(&c) % 12) {
        case 0: (void)pcur_get_u16(&c); break;
        case 1: (void)pcur_get_u24(&c); break;
        case 2: (void)pcur_get_u32(&c); break;
        case 3: (void)pcur_get_u48(&c); break;
        case 4: (void)pcur_get_u64(&c); break;
        case 5: (void)pcur_get_lenenc(&c); break;
        case 6: (void)pcur_get_lenenc_null(&c, &is_null); break;
        case 7:
            s = pcur_get_lenenc_str(&c, &len);
            if (len && s[len - 1] == 0xa5) /* touch the last byte: ASan checks the span */
                steps++;
            break;
        case 8: {
            const char *z = pcur_get_cstr(&c, &len);
            if (z[len] != 0)
                __builtin_trap();
            break;
        }
        case 9: s = pcur_get_bytes(&c, pcur_get_u8(&c)); (void)s; break;
        case 10: pcur_skip(&c, pcur_get_u8(&c) % 8); break;
        default:
            s = pcur_get_rest(&c, &len);
            if (len && s[0] == s[len - 1])
                steps++;
            break;
        }
    }
    if (!pcur_ok(&c) && pcur_left(&c) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    size_t max_allowed = (size_t)(mode & 0x7f) * 97;
    data++, size--;

    buf_t pl, w;
    buf_init(&pl);
    buf_init(&w);
    uint8_t seq = 0;
    size_t off = 0;
    for (int i = 0; i < 64 && off < size; i++) {
        size_t used = 0;
        int rc = (mode & 0x80) ? packet_read_any_seq(data + off, size - off, max_allowed, &seq, &pl, &used)
                               : packet_read(data + off, size - off, max_allowed, &seq, &pl, &used);
        if (rc != 0) {
            if (used != 0)
                __builtin_trap();
            if (rc == STRATA_EPROTO && !(mode & 0x80))
                seq = data[off + 3]; /* resynchronise, keep going */
            else
                break;
            continue;
        }
        if (used == 0 || used > size - off || pl.len > max_allowed)
            __builtin_trap();
        walk_cursor(pl.data, pl.len);
        /* Writing it again gives the bytes just read (same ids). */
        buf_reset(&w);
        uint8_t ws = data[off + 3];
        packet_write(&w, pl.data, pl.len, &ws);
        if (w.len != used || memcmp(w.data, data + off, used) != 0 || ws != seq)
            __builtin_trap();
        size_t start = packet_begin(&w);
        buf_append(&w, pl.data, pl.len);
        ws = data[off + 3];
        packet_end(&w, start, &ws);
        if (w.len != 2 * used || memcmp(w.data + used, data + off, used) != 0)
            __builtin_trap();
        off += used;
    }
    walk_cursor(data, size);
    buf_free(&pl);
    buf_free(&w);
    return 0;
}
