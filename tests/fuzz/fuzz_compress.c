/*
 * libFuzzer target for proto/compress: arbitrary bytes through pcomp_unwrap as a peer's compressed stream (the
 * first input byte picks zlib or zstd and a max_slice), the inner stream it yields through packet_read_any_seq;
 * then the same bytes wrapped and unwrapped again must come back unchanged.  Contexts are freed every run, so
 * LeakSanitizer sees any leak.
 */
#include <stdint.h>
#include <string.h>

#include "proto/compress.h"
#include "proto/packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++, size--;
    pcomp_algo_t algo = (mode & 1) ? PCOMP_ZSTD : PCOMP_ZLIB;

    pcomp_t pc;
    pcomp_init(&pc, algo, (mode >> 4) & 7);
    if (mode & 2)
        pcomp_set_max_slice(&pc, 1000);
    buf_t inner, pl, wire, back;
    buf_init(&inner);
    buf_init(&pl);
    buf_init(&wire);
    buf_init(&back);

    /* As a received stream. */
    uint8_t cseq = 0, seq = 0;
    size_t off = 0;
    for (int i = 0; i < 64 && off < size; i++) {
        size_t used = 0;
        int rc = pcomp_unwrap(&pc, data + off, size - off, &used, &cseq, &inner);
        if (used > size - off)
            __builtin_trap();
        off += used;
        size_t ioff = 0;
        while (ioff < inner.len) {
            size_t u;
            if (packet_read_any_seq(inner.data + ioff, inner.len - ioff, 1 << 20, &seq, &pl, &u) != 0)
                break;
            ioff += u;
        }
        buf_consume(&inner, ioff);
        if (rc != 0)
            break;
    }

    /* As data to send: wrap, unwrap with a fresh context, compare. */
    pcomp_t pr;
    pcomp_init(&pr, algo, 0);
    uint8_t ws = 0, rs = 0;
    pcomp_wrap(&pc, data, size, &ws, &wire);
    size_t used = 0, total = 0;
    while (total < wire.len) {
        if (pcomp_unwrap(&pr, wire.data + total, wire.len - total, &used, &rs, &back) != 0)
            __builtin_trap();
        total += used;
    }
    if (back.len != size || (size && memcmp(back.data, data, size) != 0) || rs != ws)
        __builtin_trap();

    pcomp_free(&pr);
    pcomp_free(&pc);
    buf_free(&inner);
    buf_free(&pl);
    buf_free(&wire);
    buf_free(&back);
    return 0;
}
