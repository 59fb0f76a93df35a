/*
 * libFuzzer target for the binlog event decoder: binlog_event_parse (header, bounds, CRC) and, for events it
 * accepts, every body decoder (SHOW BINLOG EVENTS info, GTID, XID, GTID_LIST).  Random bytes rarely carry a
 * valid CRC32, so when the first input byte is odd the CRC of each event is recomputed before parsing: the body
 * decoders then see arbitrary bodies behind a valid header.  The rest of the input is a stream of events.
 * When bit 1 of the first byte is set, the (CRC-fixed) stream is also written as a binlog file (magic + events)
 * and read back through the file reader; with bit 2 also set, the rest of the input is instead taken as a
 * compressed (seekable zstd) binlog file and read through the reader, which must fail cleanly or serve only
 * checked events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "binlog/binlog.h"
#include "util/util.h"

/* Reads a whole file through the reader; every event it returns must be within bounds. */
static void read_file(const uint8_t *p, size_t n, uint64_t start)
{
    int fd = memfd_create("fuzz-binlog", 0);
    if (fd < 0)
        return;
    if (write(fd, p, n) != (ssize_t)n) {
        close(fd);
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    binlog_reader_t *r;
    if (binlog_reader_open_path(path, start, &r) == 0) {
        binlog_event_t ev;
        buf_t info;
        buf_init(&info);
        int k, guard = 0;
        while ((k = binlog_reader_next(r, &ev)) > 0 && guard++ < 100000) {
            if (ev.size < 23)
                abort();
            info.len = 0;
            binlog_event_info(&ev, &info);
        }
        buf_free(&info);
    }
    binlog_reader_close(r);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    bool fix = data[0] & 1, as_file = data[0] & 2, compressed = data[0] & 4;
    size--;
    if (as_file && compressed) {
        read_file(data + 1, size, 4 + (data[0] >> 3));
        return 0;
    }
    uint8_t *p = malloc(size ? size : 1);
    memcpy(p, data + 1, size);
    size_t off = 0;
    buf_t info;
    buf_init(&info);
    while (off < size) {
        size_t left = size - off;
        if (fix && left >= 19) {
            uint32_t n = (uint32_t)p[off + 9] | (uint32_t)p[off + 10] << 8 | (uint32_t)p[off + 11] << 16 |
                         (uint32_t)p[off + 12] << 24;
            if (n >= 23 && n <= left) {
                if (p[off + 4] == BINLOG_EV_FORMAT_DESCRIPTION)
                    p[off + 17] &= (uint8_t)~1; /* in-use flag is outside the CRC */
                uint32_t c = (uint32_t)crc32(0L, p + off, n - 4);
                for (int i = 0; i < 4; i++)
                    p[off + n - 4 + i] = (uint8_t)(c >> (8 * i));
            }
        }
        binlog_event_t ev;
        const char *why;
        int rc = binlog_event_parse(p + off, left, &ev, &why);
        if (rc != 0)
            break;
        if (ev.size > left || ev.size < 23)
            abort(); /* the parser must never accept an event larger than its input */
        info.len = 0;
        binlog_event_info(&ev, &info);
        binlog_gtid_t g;
        uint8_t f2;
        uint64_t x;
        binlog_event_gtid(&ev, &g, &f2, &x);
        binlog_event_xid(&ev, &x);
        binlog_gtid_set_t s = {0};
        binlog_event_gtid_list(&ev, &s);
        binlog_gtid_set_free(&s);
        off += ev.size;
    }
    buf_free(&info);
    if (as_file) {
        uint8_t *f = malloc(size + 4);
        memcpy(f, "\xfe" "bin", 4);
        memcpy(f + 4, p, size);
        read_file(f, size + 4, 4);
        free(f);
    }
    free(p);
    return 0;
}
