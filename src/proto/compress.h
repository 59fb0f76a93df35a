/*
 * The MySQL compressed protocol (CLIENT_COMPRESS = zlib, CLIENT_ZSTD_COMPRESSION_ALGORITHM = zstd), as a layer
 * between the socket and the packet framing of packet.h.
 *
 * Once the handshake has finished with compression negotiated, everything either side sends is a stream of
 * compressed frames.  Each frame carries a slice of the ordinary packet stream (inner packets with their own
 * 4-byte headers; a frame may hold several packets, or part of one, since the stream is cut at arbitrary bytes):
 *
 *   offset size  field
 *   0      3     payload length: bytes after this 7-byte header, little-endian
 *   3      1     compressed sequence id: its own counter, reset to 0 with each command like the packet id
 *   4      3     uncompressed length of the slice; 0 means "not compressed, the payload is the slice as is"
 *   7      n     payload: a zlib stream (RFC 1950, as compress2() makes) or a single zstd frame, or raw bytes
 *
 *   e.g. a 14-byte COM_QUERY "SHOW WARNINGS" sent raw (under the 50-byte minimum), cseq 0:
 *     12 00 00 | 00 | 00 00 00 | 0e 00 00 00 03 53 48 4f 57 20 57 41 52 4e 49 4e 47 53
 *     frame len  cseq  raw       inner header  COM_QUERY "SHOW WARNINGS"
 *
 * Rules strata follows (MariaDB 10.11 / MySQL 8 net_serv.cc, my_compress.cc):
 *   - slices under PCOMP_MIN_LENGTH (50) bytes are sent raw; so is any slice that does not get smaller;
 *   - a slice is at most 0xffffff bytes (the uncompressed length has 3 bytes);
 *   - the peer's compressed ids must run 0,1,2... within a command (checked); the inner packets' ids are not
 *     checked on a compressed connection (MariaDB does not; read them with packet_read_any_seq);
 *   - a compressed payload must inflate to exactly the announced length, with nothing left over.
 *
 * Cost: a pcomp_t is 112 bytes and holds no compressor until the first frame that needs one (connections that
 * do not negotiate compression pay nothing; a zlib connection exchanging only short answers holds 2 KB).  Short
 * zlib slices (50 B .. PCOMP_FAST_MAX) go through a small fixed-Huffman encoder of strata's own (compress.c),
 * about 8x cheaper than zlib's deflate for a SHOW WARNINGS answer.  The zlib/zstd contexts are created once and
 * reset per frame, and frames are compressed straight into the
 * caller's output buffer and decompressed straight into the caller's input buffer, so steady state allocates
 * nothing per packet.  The memory the contexts hold is reported by pcomp_mem_bytes() (see
 * docs/protocol-compression.md for the measured figures).
 */
#ifndef STRATA_PROTO_COMPRESS_H
#define STRATA_PROTO_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define PCOMP_HEADER_SIZE 7
#define PCOMP_MIN_LENGTH 50        /* MIN_COMPRESS_LENGTH: shorter slices go raw */
/* zstd costs 2-5 us per frame whatever its size (its context reset), ten times zlib's small-frame path, to save a
 * few dozen bytes: zstd connections send slices under this raw (the protocol allows a raw frame of any size). */
#define PCOMP_ZSTD_MIN_LENGTH 512
#define PCOMP_MAX_SLICE 0xffffffu  /* largest uncompressed slice in one frame */
#define PCOMP_FAST_MAX 4096        /* zlib slices up to this size use strata's small fixed-code encoder */

/* Capability bits, for the handshake code. */
#define PCOMP_CLIENT_COMPRESS (1u << 5)
#define PCOMP_CLIENT_ZSTD (1u << 26) /* CLIENT_ZSTD_COMPRESSION_ALGORITHM; zlib wins if both are set */

typedef enum pcomp_algo {
    PCOMP_NONE = 0,
    PCOMP_ZLIB = 1,
    PCOMP_ZSTD = 2,
} pcomp_algo_t;

/* Levels: zlib 1..9 for slices over PCOMP_FAST_MAX (the small-slice encoder has no levels; strata's default 1:
 * large slices compress much faster than at MariaDB's 6 and not much larger);
 * zstd 1..22 as the client asks in its handshake response (default 3), clamped to PCOMP_ZSTD_LEVEL_MAX, above
 * which a client could make the server spend megabytes per connection. */
#define PCOMP_ZLIB_LEVEL_DEFAULT 1
#define PCOMP_ZSTD_LEVEL_DEFAULT 3
#define PCOMP_ZSTD_LEVEL_MAX 9

/*
 * States (each direction allocates its context on first use; pcomp_free returns to OFF):
 *   OFF --pcomp_init--> ON --first compressing wrap / first compressed unwrap--> ON with enc and/or dec
 */
typedef struct pcomp {
    pcomp_algo_t algo; /* PCOMP_NONE when off */
    int level;
    size_t max_slice;  /* largest uncompressed slice accepted from the peer (<= PCOMP_MAX_SLICE) */
    void *enc;         /* z_stream* or ZSTD_CCtx*, created on the first slice worth compressing */
    void *dec;         /* z_stream* or ZSTD_DCtx*, created on the first compressed frame received */
    void *fast;        /* hash heads of the small-slice zlib encoder (2 KB), created on first use */
    size_t ctx_bytes;  /* bytes held by enc and dec (their allocations go through pcomp's counter) */
    uint64_t ctx_allocs; /* allocation calls made by enc and dec so far: flat in steady state */
    /* Counters, for status variables and the benchmark. */
    uint64_t frames_out, frames_out_raw, bytes_out_plain, bytes_out_wire;
    uint64_t frames_in, bytes_in_plain, bytes_in_wire;
} pcomp_t;

/* The algorithm a handshake settles on: zlib when both sides have CLIENT_COMPRESS (even if both also have
 * ZSTD, as MySQL does), else zstd when both have CLIENT_ZSTD_COMPRESSION_ALGORITHM, else none.  With zstd the
 * handshake response carries one more byte after the connect attributes: the client's zstd level. */
pcomp_algo_t pcomp_negotiate(uint32_t server_caps, uint32_t client_caps);

/* Turns compression on for a connection (level <= 0: the algorithm's default).  Allocates nothing. */
void pcomp_init(pcomp_t *pc, pcomp_algo_t algo, int level);
/* Releases the contexts; pc is OFF afterwards (and may be pcomp_init'ed again).  Safe on a zeroed pcomp_t. */
void pcomp_free(pcomp_t *pc);
/* Sets the largest slice accepted from the peer: max_allowed_packet + 4 is the natural value (a frame larger
 * than that cannot be part of an acceptable payload).  Clamped to PCOMP_MAX_SLICE. */
void pcomp_set_max_slice(pcomp_t *pc, size_t max_slice);
/* Bytes held by the contexts (sizeof(pcomp_t) not included). */
size_t pcomp_mem_bytes(const pcomp_t *pc);

/*
 * Appends to out the frames carrying in[0..len), a run of already-framed inner packets (what packet_write put
 * in the connection's plain output buffer), cut into slices of at most PCOMP_MAX_SLICE bytes, each frame taking
 * the id *cseq and incrementing it.  Call it on the whole pending output when flushing, so that a result set
 * becomes one frame, not one per row.  len == 0 appends nothing.  Returns 0.
 */
int pcomp_wrap(pcomp_t *pc, const uint8_t *in, size_t len, uint8_t *cseq, buf_t *out);

/*
 * Takes as many complete frames as in[0..len) holds from its front and appends their slices (the inner packet
 * stream) to out; *consumed is the number of input bytes used, *cseq is checked against each frame's id and
 * advanced.  It stops early, leaving frames in the input, once out holds max_slice bytes or more, so a burst of
 * highly compressed frames cannot inflate without bound; call again after consuming the inner packets.
 *   0              at least one frame was taken
 *   STRATA_EAGAIN  no complete frame yet (*consumed is 0)
 *   STRATA_EPROTO  a frame with the wrong id, a compressed payload that does not decompress, or decompresses
 *                  to other than the announced length (ER_NET_UNCOMPRESS_ERROR / packets out of order; close)
 *   STRATA_ETOOBIG a frame announcing a slice over max_slice (answer ER_NET_PACKET_TOO_LARGE, close)
 * On an error *consumed covers the good frames before the bad one, whose slices are in out.
 */
int pcomp_unwrap(pcomp_t *pc, const uint8_t *in, size_t len, size_t *consumed, uint8_t *cseq, buf_t *out);

#endif
