/* Fuzz target: the login decoders (HandshakeResponse41 / SSLRequest, COM_CHANGE_USER) over arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_response_t r;
    for (int tls = 0; tls < 2; tls++) {
        if (proto_handshake_parse(data, size, tls, &r) == 0 && !r.ssl_request) {
            /* Every span must lie inside the input. */
            if (r.user && (r.user < (const char *)data || r.user + r.user_len > (const char *)data + size))
                __builtin_trap();
            if (r.auth && (r.auth < data || r.auth + r.auth_len > data + size))
                __builtin_trap();
            if (r.db && strlen(r.db) != r.db_len)
                __builtin_trap();
        }
    }
    uint32_t caps = size >= 4 ? (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24 : 0;
    proto_change_user_parse(data, size, caps, &r);
    return 0;
}
