/*
 * libFuzzer target for the account file (acl/acl.c draws the format): the input is written as accounts.dat
 * of a scratch data directory and opened the way the server opens it at start-up (acl_open: header, CRC,
 * records, fields, grantees that must exist, the version-1 migration).  A file that opens is then asked what the
 * server asks it at a login.  The first input byte, when 1, repairs the header's length and CRC first, so that
 * the record decoder sees more than checksum failures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "acl/acl.h"
#include "util/util.h"

static char dir[64], path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    log_open("/dev/null");
    snprintf(dir, sizeof dir, "/tmp/fuzz_accounts.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/accounts.dat", dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t *f = malloc(size);
    memcpy(f, data + 1, size - 1);
    size_t n = size - 1;
    if (data[0] == 1 && n >= 32) {
        /* header: body length at 24, CRC-32 at 28 over bytes 0..27 and the body */
        uint32_t body = (uint32_t)(n - 32);
        memcpy(f + 24, &body, 4);
        uLong crc = crc32(0, f, 28);
        crc = crc32(crc, f + 32, body);
        uint32_t c = (uint32_t)crc;
        memcpy(f + 28, &c, 4);
    }
    FILE *o = fopen(path, "wb");
    if (o) {
        fwrite(f, 1, n, o);
        fclose(o);
    }
    free(f);
    acl_t *acl = NULL;
    if (acl_open(dir, &acl) == 0) {
        (void)acl_generation(acl);
        (void)acl_root_has_empty_password(acl);
        acl_close(acl);
    }
    unlink(path);
    return 0;
}
