/*
 * engine/page: page header helpers and CRC32C.  The format is drawn in page.h.
 * CRC32C uses the SSE4.2 crc32 instruction when present (checked once at run time) and a slice-by-8 table
 * otherwise, so page checksums cost well under a microsecond per 16 KiB page on current hardware.
 */
#include "engine/page.h"

#include <pthread.h>

#include "util/util.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static bool crc_hw;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_hw = __builtin_cpu_supports("sse4.2");
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t n)
{
    uint64_t c = crc;
    while (n && ((uintptr_t)p & 7)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        n--;
    }
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        n -= 8;
    }
    while (n--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return (uint32_t)c;
}
#endif

uint32_t crc32c(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    pthread_once(&crc_once, crc_init);
    crc = ~crc;
#if defined(__x86_64__)
    if (crc_hw)
        return ~crc32c_hw(crc, p, n);
#endif
    while (n >= 8) {
        uint32_t lo = rd32(p) ^ crc, hi = rd32(p + 4);
        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
              crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
    return ~crc;
}

void page_init(uint8_t *pg, uint32_t page_size, page_id_t id, page_type_t type, uint64_t owner)
{
    memset(pg, 0, page_size);
    wr16(pg + PAGE_OFF_MAGIC, PAGE_MAGIC);
    pg[PAGE_OFF_VERSION] = PAGE_VERSION;
    pg[PAGE_OFF_TYPE] = (uint8_t)type;
    wr64(pg + PAGE_OFF_ID, id);
    wr64(pg + PAGE_OFF_OWNER, owner);
}

void page_seal(uint8_t *pg, uint32_t page_size)
{
    wr32(pg + PAGE_OFF_CHECKSUM, crc32c(0, pg + 4, page_size - 4));
}

bool page_is_zero(const uint8_t *pg, uint32_t page_size)
{
    static const uint8_t zero[256];
    for (uint32_t off = 0; off < page_size; off += sizeof zero)
        if (memcmp(pg + off, zero, sizeof zero))
            return false;
    return true;
}

int page_verify(const uint8_t *pg, uint32_t page_size, page_id_t expect, bool quiet)
{
    if (rd32(pg) == 0 && page_is_zero(pg, page_size))
        return 0;
    uint32_t want = crc32c(0, pg + 4, page_size - 4);
    if (rd32(pg) != want)
        return quiet ? STRATA_ECORRUPT
                     : CORRUPT("page %u:%u:%u checksum %08x, computed %08x", page_id_space(expect),
                               page_id_file(expect), page_id_pgno(expect), rd32(pg), want);
    if (rd16(pg + PAGE_OFF_MAGIC) != PAGE_MAGIC || pg[PAGE_OFF_VERSION] != PAGE_VERSION ||
        pg[PAGE_OFF_TYPE] >= PAGE_TYPE_MAX_)
        return quiet ? STRATA_ECORRUPT
                     : CORRUPT("page %u:%u:%u bad magic/version/type", page_id_space(expect), page_id_file(expect),
                               page_id_pgno(expect));
    if (expect != PAGE_ID_NONE && page_get_id(pg) != expect)
        return quiet ? STRATA_ECORRUPT
                     : CORRUPT("page %u:%u:%u holds page id %llx (misdirected write)", page_id_space(expect),
                               page_id_file(expect), page_id_pgno(expect), (unsigned long long)page_get_id(pg));
    return 0;
}
