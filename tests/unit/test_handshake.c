/* Unit tests for the login decoders (proto/handshake.c). */
#include "proto/proto.h"
#include "unit.h"

static size_t build_response(uint8_t *b, uint32_t caps, const char *user, const uint8_t *auth, size_t alen,
                             const char *db, const char *plugin)
{
    size_t n = 0;
    memcpy(b + n, &caps, 4), n += 4;
    uint32_t maxp = 16777216;
    memcpy(b + n, &maxp, 4), n += 4;
    b[n++] = 45;
    memset(b + n, 0, 23), n += 23;
    strcpy((char *)b + n, user), n += strlen(user) + 1;
    b[n++] = (uint8_t)alen; /* lenenc of a short string = its length byte */
    memcpy(b + n, auth, alen), n += alen;
    if (db)
        strcpy((char *)b + n, db), n += strlen(db) + 1;
    if (plugin)
        strcpy((char *)b + n, plugin), n += strlen(plugin) + 1;
    return n;
}

TEST(test_full_response)
{
    uint8_t b[256], auth[20];
    memset(auth, 7, sizeof auth);
    uint32_t caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_WITH_DB |
                    CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
    size_t n = build_response(b, caps, "alice", auth, 20, "db1", "mysql_native_password");
    hs_response_t r;
    REQUIRE(proto_handshake_parse(b, n, false, &r) == 0);
    CHECK(!r.ssl_request);
    CHECK_EQ_INT(r.user_len, 5);
    CHECK(memcmp(r.user, "alice", 5) == 0);
    CHECK_EQ_INT(r.auth_len, 20);
    CHECK(r.auth[19] == 7);
    CHECK_EQ_STR(r.db, "db1");
    CHECK_EQ_STR(r.plugin, "mysql_native_password");
    CHECK_EQ_INT(r.collation, 45);
}

TEST(test_ssl_request_and_truncation)
{
    uint8_t b[256], auth[1] = {0};
    uint32_t caps = CLIENT_PROTOCOL_41 | CLIENT_SSL | CLIENT_SECURE_CONNECTION;
    size_t n = build_response(b, caps, "u", auth, 0, NULL, NULL);
    hs_response_t r;
    CHECK(proto_handshake_parse(b, 32, false, &r) == 0 && r.ssl_request);
    /* Over TLS the same 32 bytes are a truncated response. */
    CHECK_EQ_INT(proto_handshake_parse(b, 32, true, &r), -ER_HANDSHAKE_ERROR);
    CHECK(proto_handshake_parse(b, n, true, &r) == 0 && !r.ssl_request);
    /* Every truncation of a full response is refused, never read past. */
    for (size_t k = 33; k < n; k++)
        CHECK(proto_handshake_parse(b, k, true, &r) != 0);
    /* Not protocol 4.1. */
    uint32_t old = CLIENT_SECURE_CONNECTION;
    memcpy(b, &old, 4);
    CHECK_EQ_INT(proto_handshake_parse(b, n, false, &r), -ER_NOT_SUPPORTED_AUTH_MODE);
}

TEST(test_change_user)
{
    uint8_t b[64];
    size_t n = 0;
    strcpy((char *)b, "bob"), n = 4;
    b[n++] = 3, b[n++] = 'a', b[n++] = 'b', b[n++] = 'c';
    strcpy((char *)b + n, "db2"), n += 4;
    b[n++] = 45, b[n++] = 0;
    strcpy((char *)b + n, "caching_sha2_password"), n += 22;
    hs_response_t r;
    REQUIRE(proto_change_user_parse(b, n, CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH, &r) == 0);
    CHECK_EQ_INT(r.user_len, 3);
    CHECK_EQ_INT(r.auth_len, 3);
    CHECK_EQ_STR(r.db, "db2");
    CHECK_EQ_STR(r.plugin, "caching_sha2_password");
    CHECK(proto_change_user_parse(b, 5, CLIENT_SECURE_CONNECTION, &r) != 0);
}

UNIT_MAIN(test_full_response, test_ssl_request_and_truncation, test_change_user)
