/*
 * Decoders for what a client sends to log in: HandshakeResponse41 (and its 32-byte SSLRequest prefix) and
 * COM_CHANGE_USER.  Pure functions over a payload, so the fuzz target drives them directly; every pointer in
 * the result points into the payload.
 *
 * HandshakeResponse41:
 *   u32 capability flags | u32 max packet size | u8 collation | 19 filler | u32 MariaDB extended caps (filler
 *   when the client sets CLIENT_MYSQL)
 *   user NUL
 *   auth response: lenenc (PLUGIN_AUTH_LENENC_CLIENT_DATA) | u8 length + bytes (SECURE_CONNECTION) | NUL-terminated
 *   [database NUL]                  if CONNECT_WITH_DB
 *   [auth plugin name NUL]          if PLUGIN_AUTH
 *   [lenenc length, key/value pairs] if CONNECT_ATTRS
 *   [u8 zstd level]                 if ZSTD_COMPRESSION_ALGORITHM
 * SSLRequest: exactly the first 32 bytes, with CLIENT_SSL set.
 * COM_CHANGE_USER (after the command byte):
 *   user NUL | auth (u8 length + bytes with SECURE_CONNECTION, else NUL-terminated) | database NUL |
 *   [u16 collation | [plugin NUL] | [lenenc attrs]]
 */
#include <string.h>

#include "proto/proto_int.h"

int proto_handshake_parse(const uint8_t *p, size_t n, bool tls_active, hs_response_t *out)
{
    memset(out, 0, sizeof *out);
    pcur_t cur;
    pcur_init(&cur, p, n);
    out->caps = pcur_get_u32(&cur);
    if (!pcur_ok(&cur) || !(out->caps & CLIENT_PROTOCOL_41))
        return -ER_NOT_SUPPORTED_AUTH_MODE;
    out->max_packet = pcur_get_u32(&cur);
    out->collation = pcur_get_u8(&cur);
    pcur_get_bytes(&cur, 19);
    out->mariadb_caps = pcur_get_u32(&cur);
    if (out->caps & CLIENT_LONG_PASSWORD)
        out->mariadb_caps = 0; /* a MySQL client: the bytes are filler */
    if (!pcur_ok(&cur))
        return -ER_HANDSHAKE_ERROR;
    if ((out->caps & CLIENT_SSL) && !tls_active && pcur_left(&cur) == 0) {
        out->ssl_request = true;
        return 0;
    }
    out->user = pcur_get_cstr(&cur, &out->user_len);
    if (out->caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
        out->auth = pcur_get_lenenc_str(&cur, &out->auth_len);
    } else if (out->caps & CLIENT_SECURE_CONNECTION) {
        out->auth_len = pcur_get_u8(&cur);
        out->auth = pcur_get_bytes(&cur, out->auth_len);
    } else {
        out->auth = (const uint8_t *)pcur_get_cstr(&cur, &out->auth_len);
    }
    if ((out->caps & CLIENT_CONNECT_WITH_DB) && pcur_left(&cur))
        out->db = pcur_get_cstr(&cur, &out->db_len);
    if ((out->caps & CLIENT_PLUGIN_AUTH) && pcur_left(&cur)) {
        size_t plen;
        out->plugin = pcur_get_cstr(&cur, &plen);
    }
    if ((out->caps & CLIENT_CONNECT_ATTRS) && pcur_left(&cur))
        out->attrs = pcur_get_lenenc_str(&cur, &out->attrs_len);
    if ((out->caps & CLIENT_ZSTD_COMPRESSION_ALGORITHM) && pcur_left(&cur)) {
        out->zstd_level = pcur_get_u8(&cur);
        out->has_zstd_level = true;
    }
    return pcur_ok(&cur) ? 0 : -ER_HANDSHAKE_ERROR;
}

int proto_change_user_parse(const uint8_t *p, size_t n, uint32_t caps, hs_response_t *out)
{
    memset(out, 0, sizeof *out);
    out->caps = caps;
    pcur_t cur;
    pcur_init(&cur, p, n);
    out->user = pcur_get_cstr(&cur, &out->user_len);
    if (caps & CLIENT_SECURE_CONNECTION) {
        out->auth_len = pcur_get_u8(&cur);
        out->auth = pcur_get_bytes(&cur, out->auth_len);
    } else {
        out->auth = (const uint8_t *)pcur_get_cstr(&cur, &out->auth_len);
    }
    out->db = pcur_get_cstr(&cur, &out->db_len);
    if (pcur_left(&cur) >= 2) {
        out->collation = (uint8_t)pcur_get_u16(&cur);
        if ((caps & CLIENT_PLUGIN_AUTH) && pcur_left(&cur)) {
            size_t plen;
            out->plugin = pcur_get_cstr(&cur, &plen);
        }
        if ((caps & CLIENT_CONNECT_ATTRS) && pcur_left(&cur))
            out->attrs = pcur_get_lenenc_str(&cur, &out->attrs_len);
    }
    return pcur_ok(&cur) ? 0 : -ER_HANDSHAKE_ERROR;
}
