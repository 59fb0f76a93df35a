/*
 * Micro-benchmark of the compressed protocol on the answers of seed 000's flood (SHOW WARNINGS from 30 threads
 * over a compressed connection).  It prints the cost per answer of: framing alone (what an uncompressed
 * connection pays), pcomp_wrap and pcomp_unwrap with zlib and zstd, and, for comparison, the MySQL 5.6 way
 * (malloc'd copy + compress2() per packet, which sets up and frees a whole deflate state each time) and what a
 * libmariadb client pays per frame (uncompress()).  It asserts only correctness (round trips, and no allocation
 * by the contexts in steady state); timings are printed, not checked, since the machine is shared.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/compress.h"
#include "proto/packet.h"
#include "unit.h"

#define BENCH_US 150000 /* per case */

/* The inner packets of one answer. */
typedef struct {
    const char *name;
    buf_t inner;
} answer_t;

static void put_coldef(buf_t *p, const char *name, uint8_t type)
{
    buf_put_lenenc_str(p, "def", 3);
    buf_put_lenenc_str(p, "", 0);
    buf_put_lenenc_str(p, "", 0);
    buf_put_lenenc_str(p, "", 0);
    buf_put_lenenc_str(p, name, strlen(name));
    buf_put_lenenc_str(p, "", 0);
    buf_put_u8(p, 0x0c);
    buf_put_u16(p, 33);
    buf_put_u32(p, 21);
    buf_put_u8(p, type);
    buf_put_u16(p, 1);
    buf_put_u8(p, 0);
    buf_put_u16(p, 0);
}

/* SHOW WARNINGS: column count, Level/Code/Message definitions, EOF, `rows` warning rows, EOF. */
static void make_answer(answer_t *a, const char *name, int rows)
{
    buf_t p;
    buf_init(&p);
    buf_init(&a->inner);
    a->name = name;
    uint8_t seq = 1;
    buf_put_u8(&p, 3);
    packet_write(&a->inner, p.data, p.len, &seq);
    const char *cols[] = {"Level", "Code", "Message"};
    for (int i = 0; i < 3; i++) {
        buf_reset(&p);
        put_coldef(&p, cols[i], i == 1 ? 3 : 253);
        packet_write(&a->inner, p.data, p.len, &seq);
    }
    static const uint8_t eof[] = {0xfe, 0, 0, 2, 0};
    packet_write(&a->inner, eof, sizeof eof, &seq);
    for (int r = 0; r < rows; r++) {
        buf_reset(&p);
        buf_put_lenenc_str(&p, "Warning", 7);
        buf_put_lenenc_str(&p, "1264", 4);
        char msg[80];
        int n = snprintf(msg, sizeof msg, "Out of range value for column 'a' at row %d", r + 1);
        buf_put_lenenc_str(&p, msg, (size_t)n);
        packet_write(&a->inner, p.data, p.len, &seq);
    }
    packet_write(&a->inner, eof, sizeof eof, &seq);
    buf_free(&p);
}

static uint64_t now_us(void) { return time_mono_us(); }

/* Runs fn until BENCH_US have passed; returns ns per call. */
#define BENCH(ns_out, body)                                                                                        \
    do {                                                                                                           \
        uint64_t _t0 = now_us(), _n = 0, _t;                                                                       \
        do {                                                                                                       \
            for (int _k = 0; _k < 64; _k++) {                                                                      \
                body;                                                                                              \
            }                                                                                                      \
            _n += 64;                                                                                              \
            _t = now_us();                                                                                         \
        } while (_t - _t0 < BENCH_US);                                                                             \
        ns_out = (double)(_t - _t0) * 1000.0 / (double)_n;                                                         \
    } while (0)

/* MySQL 5.6's net_real_write + my_compress for one frame. */
static size_t mysql56_frame(const uint8_t *in, size_t n, uint8_t *dst)
{
    uint8_t *b = malloc(n + 7 + 1); /* net_real_write's copy */
    memcpy(b + 7, in, n);
    uLongf cl = compressBound(n);
    uint8_t *c = malloc(cl); /* my_compress_alloc's buffer; compress2 sets up and frees a deflate state */
    size_t out = n;
    if (n >= PCOMP_MIN_LENGTH && compress2(c, &cl, b + 7, n, 6) == Z_OK && cl < n)
        memcpy(dst, c, cl), out = cl;
    free(c);
    free(b);
    return out;
}

TEST(test_bench_show_warnings)
{
    answer_t answers[3];
    make_answer(&answers[0], "empty SHOW WARNINGS", 0);
    make_answer(&answers[1], "SHOW WARNINGS, 3 rows", 3);
    make_answer(&answers[2], "SHOW WARNINGS, 30 rows", 30);

    printf("%-24s %6s | %8s | %-30s | %-30s | %9s %9s\n", "answer", "bytes", "frame", "zlib wrap / unwrap / wire",
           "zstd wrap / unwrap / wire", "5.6-style", "uncompr.");
    for (size_t i = 0; i < ARRAY_LEN(answers); i++) {
        answer_t *a = &answers[i];
        buf_t out, back, plain;
        buf_init(&out);
        buf_init(&back);
        buf_init(&plain);
        double t_plain, t_wrap[2], t_unwrap[2], t_56, t_unc;
        size_t wire[2];

        /* Baseline: an uncompressed connection frames the payloads into its output buffer. */
        BENCH(t_plain, {
            buf_reset(&plain);
            for (size_t o = 0; o < a->inner.len;) { /* re-frame each inner packet */
                uint32_t n = (uint32_t)a->inner.data[o] | (uint32_t)a->inner.data[o + 1] << 8 |
                             (uint32_t)a->inner.data[o + 2] << 16;
                uint8_t s = a->inner.data[o + 3];
                packet_write(&plain, a->inner.data + o + 4, n, &s);
                o += 4 + n;
            }
        });
        REQUIRE(plain.len == a->inner.len && memcmp(plain.data, a->inner.data, plain.len) == 0);

        for (int k = 0; k < 2; k++) {
            pcomp_t pc, pr;
            pcomp_init(&pc, k == 0 ? PCOMP_ZLIB : PCOMP_ZSTD, 0);
            pcomp_init(&pr, k == 0 ? PCOMP_ZLIB : PCOMP_ZSTD, 0);
            uint8_t cs = 0, rs = 0;
            size_t used;
            pcomp_wrap(&pc, a->inner.data, a->inner.len, &cs, &out); /* warm up: contexts made */
            pcomp_unwrap(&pr, out.data, out.len, &used, &rs, &back);
            uint64_t allocs = pc.ctx_allocs + pr.ctx_allocs;
            BENCH(t_wrap[k], {
                buf_reset(&out);
                cs = 0;
                pcomp_wrap(&pc, a->inner.data, a->inner.len, &cs, &out);
            });
            wire[k] = out.len;
            BENCH(t_unwrap[k], {
                buf_reset(&back);
                rs = 0;
                pcomp_unwrap(&pr, out.data, out.len, &used, &rs, &back);
            });
            REQUIRE(back.len == a->inner.len && memcmp(back.data, a->inner.data, back.len) == 0);
            CHECK_EQ_INT(pc.ctx_allocs + pr.ctx_allocs, allocs);
            pcomp_free(&pc);
            pcomp_free(&pr);
        }
        uint8_t *dst = malloc(a->inner.len + 64);
        size_t clen = 0;
        BENCH(t_56, { clen = mysql56_frame(a->inner.data, a->inner.len, dst); });
        uint8_t *unc = malloc(a->inner.len);
        t_unc = 0;
        if (clen < a->inner.len) {
            BENCH(t_unc, {
                uLongf ul = a->inner.len;
                uncompress(unc, &ul, dst, clen);
            });
        }
        printf("%-24s %6zu | %6.0fns | %6.0fns %6.0fns %6zuB | %6.0fns %6.0fns %6zuB | %7.0fns %7.0fns\n", a->name,
               a->inner.len, t_plain, t_wrap[0], t_unwrap[0], wire[0], t_wrap[1], t_unwrap[1], wire[1], t_56, t_unc);
        free(dst);
        free(unc);
        buf_free(&out);
        buf_free(&back);
        buf_free(&plain);
        buf_free(&a->inner);
    }
    printf("(frame: packet framing alone; wrap/unwrap: strata per answer; 5.6-style: malloc copy + compress2 per\n"
           " frame as MySQL 5.6 did; uncompr.: a libmariadb client's uncompress() of that frame)\n");
}

UNIT_MAIN(test_bench_show_warnings)
