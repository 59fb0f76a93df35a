/*
 * libFuzzer target for the redo log: the record parser (mtr_apply_group, which replays page images and diffs
 * into a buffer pool and hands logical records to a callback) over arbitrary group bodies, and the whole file
 * path (redo_open: header and checkpoint slots; redo_scan: groups, lengths, checksums, LSNs, run ids) over
 * arbitrary redo files.  The first input byte chooses:
 *   bit 0 clear: the rest is one group body, applied with pages replayed (bit 1) or logical records only;
 *   bit 0 set:   the rest is a redo file's data area; with bit 1 the header and checkpoint slot are made valid
 *                (magic, capacity = the data area, CRCs; LSNs and run id from the input) and with bit 2 every
 *                group's checksum, LSN and run id are repaired too, so the scan reaches the record parser; with
 *                bit 3 the (checksummed) header takes its capacity and page size from the input (a zero or huge
 *                capacity once meant a division by zero or a huge allocation in the scan).
 * Every logical record handed out must lie within its group.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/bpool.h"
#include "engine/mtr.h"
#include "engine/page.h"
#include "engine/redo.h"
#include "util/util.h"

#define PS 4096u
#define HDR 12288u

static int io_read(void *ctx, page_id_t id, uint8_t *buf)
{
    memset(buf, 0, PS);
    return 0;
}
static int io_write(void *ctx, page_id_t id, const uint8_t *buf) { return 0; }

typedef struct {
    const uint8_t *lo, *hi;
} bounds_t;

static void on_logical(void *ctx, const uint8_t *rec, size_t len)
{
    bounds_t *b = ctx;
    if (rec < b->lo || rec + len > b->hi || len < 1)
        abort();
    volatile uint8_t x = rec[len - 1];
    (void)x;
}

typedef struct {
    bpool_t *bp;
    int groups;
} scan_t;

static int on_group(void *ctx, uint64_t start, uint64_t end, const uint8_t *body, size_t len)
{
    scan_t *s = ctx;
    bounds_t b = {body, body + len};
    s->groups++;
    mtr_apply_group(s->bp, false, end, body, len, on_logical, &b);
    return 0;
}

static bpool_t *pool(void)
{
    static bpool_t *bp;
    if (!bp) {
        bpool_io_t io = {.read = io_read, .write = io_write};
        bp = bpool_create(16, PS, &io);
        bpool_set_recovery(bp, true);
    }
    return bp;
}

static void file_case(uint8_t mode, const uint8_t *data, size_t size)
{
    uint64_t cap = (size + PS - 1) / PS * PS;
    if (cap < PS)
        cap = PS;
    if (cap > (4u << 20))
        return;
    size_t total = HDR + cap;
    uint8_t *f = calloc(1, total);
    if (mode & 2) {
        memcpy(f, "STRATAREDO\0\0", 12);
        wr32(f + 12, 1);
        wr32(f + 16, PS);
        wr64(f + 20, cap);
        if ((mode & 8) && size >= 20) { /* a checksummed header with any capacity and page size */
            wr64(f + 20, rd64(data + 12));
            wr32(f + 16, rd32(data + 8));
        }
        wr32(f + 36, crc32c(0, f, 36));
        uint8_t *c = f + 4096;
        wr32(c, 0x54504b43);
        wr64(c + 8, 1);
        uint64_t tail = size >= 8 ? rd64(data) % cap : 0;
        wr64(c + 16, tail);
        wr32(c + 24, size >= 12 ? rd32(data + 8) : 0);
        wr64(c + 32, tail);
        wr32(c + 4, crc32c(0, c + 8, 72));
    }
    memcpy(f + HDR, data, size);
    if ((mode & 6) == 6) {
        /* Repair the chain of groups from the tail on, the way a clean log would carry them. */
        uint8_t *c = f + 4096;
        uint64_t lsn = rd64(c + 32);
        uint32_t run = rd32(c + 24);
        for (int g = 0; g < 64; g++) {
            uint64_t off = lsn % cap;
            if (off + REDO_GROUP_HDR > cap)
                break;
            uint8_t *h = f + HDR + off;
            uint32_t len = rd32(h);
            if (len < REDO_GROUP_HDR || off + len > cap)
                break;
            wr64(h + 8, lsn);
            wr32(h + 16, run);
            wr32(h + 4, crc32c(0, h + 8, len - 8));
            lsn += len;
        }
    }
    int fd = memfd_create("fuzz-redo", 0);
    if (fd >= 0 && write(fd, f, total) == (ssize_t)total) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        redo_t *r;
        if (redo_open(path, 0, PS, true, false, &r) == 0) {
            scan_t s = {.bp = pool()};
            uint64_t end;
            redo_scan(r, on_group, &s, &end);
            redo_close(r);
        }
    }
    if (fd >= 0)
        close(fd);
    free(f);
}

/* CORRUPT reports are expected by the thousand here: they go nowhere. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    log_open("/dev/null");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    if (mode & 1) {
        file_case(mode, data, size);
        return 0;
    }
    uint8_t *body = malloc(size ? size : 1); /* exactly the body: reads past it are caught */
    memcpy(body, data, size);
    bounds_t b = {body, body + size};
    mtr_apply_group(pool(), (mode & 2) != 0, 1000, body, size, on_logical, &b);
    free(body);
    return 0;
}
