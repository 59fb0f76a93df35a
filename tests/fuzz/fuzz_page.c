/*
 * libFuzzer target for page decoding: page_verify (checksum, magic, version, page id) and btree_page_check (a
 * B+tree node's slots, cells and heap accounting, an overflow page's length) over arbitrary bytes.  The first
 * input byte chooses: bits 0-2 the page size (4 KiB << (b % 4), so 4..32 KiB), bit 3 whether to repair magic,
 * version, id and checksum first (random bytes rarely carry a valid CRC32C, so the body checks would otherwise see
 * few pages), bit 4 the page type forced to B+tree node.  A page that passes btree_page_check is then walked the
 * way the engine reads it (every key, every inline value, every child or overflow pointer) from an exactly
 * page-sized heap copy, so a check that lets a cell reach past the page shows up as an ASan report.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/btree.h"
#include "engine/page.h"
#include "util/util.h"

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
    uint32_t ps = 4096u << (mode % 4);
    data++;
    size--;
    uint8_t *pg = malloc(ps); /* exactly one page: reads past it are caught */
    memset(pg, 0, ps);
    memcpy(pg, data, size < ps ? size : ps);
    page_id_t id = page_get_id(pg);
    if (mode & 8) {
        wr16(pg + PAGE_OFF_MAGIC, PAGE_MAGIC);
        pg[PAGE_OFF_VERSION] = PAGE_VERSION;
        if (mode & 16)
            pg[PAGE_OFF_TYPE] = PAGE_TYPE_BTREE;
        page_seal(pg, ps);
    }
    if (page_verify(pg, ps, id, true) == 0 && !page_is_zero(pg, ps) && btree_page_check(pg, ps) == 0 &&
        page_type(pg) == PAGE_TYPE_BTREE) {
        /* Read every cell as btree.c does (layout at the top of btree.c). */
        bool leaf = rd16(pg + 32) == 0;
        uint32_t n = rd16(pg + 34);
        volatile uint32_t sink = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *c = pg + rd16(pg + 64 + 2 * i);
            uint32_t kl = rd16(c);
            const uint8_t *k = c + (leaf ? 16 : 10);
            for (uint32_t j = 0; j < kl; j++)
                sink += k[j];
            if (!leaf) {
                sink += (uint32_t)rd64(c + 2);
            } else if (c[2] & 1) {
                sink += (uint32_t)rd64(k + kl);
            } else {
                uint32_t vl = rd32(c + 4);
                for (uint32_t j = 0; j < vl; j++)
                    sink += k[kl + j];
            }
        }
        (void)sink;
    }
    free(pg);
    return 0;
}
