/*
 * MySQL packet framing and a bounds-checked payload cursor.
 *
 * Every message of the client/server protocol (after compression is undone, see compress.h) travels as one or
 * more packets:
 *
 *   offset size  field
 *   0      3     payload length, little-endian, 0 .. 0xffffff
 *   3      1     sequence id (wraps at 256)
 *   4      n     payload
 *
 * A logical payload of 0xffffff bytes or more is cut into pieces of exactly 0xffffff bytes followed by one shorter
 * piece (possibly empty), each with its own header and consecutive sequence ids:
 *
 *   [ff ff ff s  ][16 MiB - 1 of payload][ff ff ff s+1][16 MiB - 1 ...][nn nn nn s+2][nn bytes, nn < 0xffffff]
 *
 * packet_read() joins the pieces back into one payload; packet_write() cuts them.  The sequence id starts at 0
 * with each command the client sends and goes up by one with every packet either side sends; the caller keeps
 * the counter and passes it in and out, so the rule is visible at the call site.
 *
 * This file knows nothing of sockets: it works on bytes the caller has already read, and appends to buffers the
 * caller will write.
 */
#ifndef STRATA_PROTO_PACKET_H
#define STRATA_PROTO_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define PACKET_HEADER_SIZE 4
#define PACKET_MAX_PIECE 0xffffffu /* a piece of exactly this size is followed by another */

/*
 * Extracts one whole logical payload from the front of in[0..len).
 *   0              a payload is ready: payload_out is reset and holds it (pieces joined), *consumed is the
 *                  number of input bytes it took (headers included), *expect_seq is one past the last piece's id.
 *   STRATA_EAGAIN  the input holds only part of the payload; nothing is changed, call again with more input.
 *   STRATA_EPROTO  a piece's sequence id is not the expected one (ER_NET_PACKETS_OUT_OF_ORDER, 1156).
 *   STRATA_ETOOBIG the payload is longer than max_allowed (answer ER_NET_PACKET_TOO_LARGE, 1153, and close).
 * On any error *consumed is 0 and *expect_seq and payload_out are unchanged.
 * The size check is made on the headers alone: the answer is known before the caller has buffered more than
 * max_allowed + one header of input (a header announcing too much is refused at once, before its bytes arrive).
 * Headers are checked in order, so a bad sequence id in a later piece is reported as soon as that header is in.
 * MariaDB 10.11 refuses a payload of max_allowed_packet bytes or more (seen with max_allowed_packet = 1024: a
 * 1023-byte COM_QUERY runs, a 1024-byte one gets 1153), sends the 1153 error, closes the connection and logs
 * "Aborted connection ... (Got a packet bigger than 'max_allowed_packet' bytes)": to match it exactly, pass
 * max_allowed_packet - 1 here.
 */
int packet_read(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq, buf_t *payload_out,
                size_t *consumed);

/*
 * The same, but the first piece may carry any sequence id; *expect_seq is set from it (the pieces of one payload
 * must still be consecutive).  MariaDB checks only the compressed frame's id on a compressed connection and never
 * the inner packets' ids, so a compressed connection reads its inner packets with this one.
 */
int packet_read_any_seq(const uint8_t *in, size_t len, size_t max_allowed, uint8_t *expect_seq,
                        buf_t *payload_out, size_t *consumed);

/*
 * Peeks at the first header only: returns STRATA_EAGAIN with fewer than 4 bytes, else 0 with the piece's
 * length and sequence id.  For logging and for deciding to refuse early.
 */
int packet_peek_header(const uint8_t *in, size_t len, uint32_t *piece_len, uint8_t *seq);

/* Appends the payload framed as packets (cut at 0xffffff, ending with a shorter, possibly empty piece); each
 * piece takes the id *seq and increments it. */
void packet_write(buf_t *out, const uint8_t *payload, size_t len, uint8_t *seq);

/*
 * Building a packet in place, to avoid a copy: start = packet_begin(out) reserves a header; append the payload
 * to out with the buf_put_* helpers; packet_end(out, start, &seq) fills the header in (and, rarely, when the
 * payload reached 0xffffff bytes, inserts the extra headers the split needs).
 */
size_t packet_begin(buf_t *out);
void packet_end(buf_t *out, size_t start, uint8_t *seq);

/*
 * A read cursor over one payload.  Every getter checks the bounds: on truncation (or a malformed length-encoded
 * value) it sets err, returns 0 / an empty span, and every later getter does the same, so a decoder reads all its
 * fields and tests pcur_ok() once at the end.  It never reads outside [p, end).
 */
typedef struct pcur {
    const uint8_t *p;
    const uint8_t *end;
    bool err;
} pcur_t;

void pcur_init(pcur_t *c, const uint8_t *data, size_t len);
static inline bool pcur_ok(const pcur_t *c) { return !c->err; }
static inline size_t pcur_left(const pcur_t *c) { return c->err ? 0 : (size_t)(c->end - c->p); }
/* Marks the cursor failed (a decoder found a value it cannot accept). */
static inline void pcur_fail(pcur_t *c) { c->err = true; }

uint8_t pcur_get_u8(pcur_t *c);
uint16_t pcur_get_u16(pcur_t *c);
uint32_t pcur_get_u24(pcur_t *c);
uint32_t pcur_get_u32(pcur_t *c);
uint64_t pcur_get_u48(pcur_t *c);
uint64_t pcur_get_u64(pcur_t *c);
/*
 * Length-encoded integer: < 0xfb one byte; 0xfc + 2 bytes; 0xfd + 3 bytes; 0xfe + 8 bytes.  0xfb (NULL in a row)
 * and 0xff (error packet marker) are not integers: pcur_get_lenenc sets err on them; pcur_get_lenenc_null
 * accepts 0xfb, reports it in *is_null and returns 0.
 */
uint64_t pcur_get_lenenc(pcur_t *c);
uint64_t pcur_get_lenenc_null(pcur_t *c, bool *is_null);
/* Length-encoded string: a lenenc length then that many bytes.  Returns a pointer into the payload. */
const uint8_t *pcur_get_lenenc_str(pcur_t *c, size_t *len);
/* NUL-terminated string: returns it (pointing into the payload, NUL included there), *len without the NUL;
 * a missing NUL is an error. */
const char *pcur_get_cstr(pcur_t *c, size_t *len);
/* Exactly n bytes. */
const uint8_t *pcur_get_bytes(pcur_t *c, size_t n);
void pcur_skip(pcur_t *c, size_t n);
/* Everything left (possibly nothing); never an error by itself. */
const uint8_t *pcur_get_rest(pcur_t *c, size_t *len);

#endif
