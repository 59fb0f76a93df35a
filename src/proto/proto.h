/*
 * proto: the MySQL client/server protocol on one connection: handshake v10, capability negotiation, TLS,
 * authentication, compression, command dispatch and result encoding.  It plugs into net as a set of net_ops
 * and calls the session for everything that is not wire format.
 */
#ifndef STRATA_PROTO_H
#define STRATA_PROTO_H

#include "net/net.h"
#include "session/session.h"

/* Client capability flags. */
#define CLIENT_LONG_PASSWORD (1u << 0) /* CLIENT_MYSQL: a MySQL peer; MariaDB servers leave it clear */
#define CLIENT_FOUND_ROWS (1u << 1)
#define CLIENT_LONG_FLAG (1u << 2)
#define CLIENT_CONNECT_WITH_DB (1u << 3)
#define CLIENT_NO_SCHEMA (1u << 4)
#define CLIENT_COMPRESS (1u << 5)
#define CLIENT_ODBC (1u << 6)
#define CLIENT_LOCAL_FILES (1u << 7)
#define CLIENT_IGNORE_SPACE (1u << 8)
#define CLIENT_PROTOCOL_41 (1u << 9)
#define CLIENT_INTERACTIVE (1u << 10)
#define CLIENT_SSL (1u << 11)
#define CLIENT_IGNORE_SIGPIPE (1u << 12)
#define CLIENT_TRANSACTIONS (1u << 13)
#define CLIENT_RESERVED (1u << 14)
#define CLIENT_SECURE_CONNECTION (1u << 15)
#define CLIENT_MULTI_STATEMENTS (1u << 16)
#define CLIENT_MULTI_RESULTS (1u << 17)
#define CLIENT_PS_MULTI_RESULTS (1u << 18)
#define CLIENT_PLUGIN_AUTH (1u << 19)
#define CLIENT_CONNECT_ATTRS (1u << 20)
#define CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA (1u << 21)
#define CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS (1u << 22)
#define CLIENT_SESSION_TRACK (1u << 23)
#define CLIENT_DEPRECATE_EOF (1u << 24)
#define CLIENT_ZSTD_COMPRESSION_ALGORITHM (1u << 26)

/* Commands (the first byte of a command packet). */
enum mysql_command {
#define COM(name, code) name = code,
#include "proto/commands.def"
#undef COM
};

typedef struct proto_cfg {
    server_t *srv;
    int net_write_timeout; /* seconds */
    struct tls_server *tls; /* NULL when TLS is unavailable */
    const struct auth_server *auth; /* caching_sha2 cache and RSA key */
    struct net *net;                /* set by main once net_start returned: parked connections resume on it */
} proto_cfg_t;

/* A decoded HandshakeResponse41 / SSLRequest / COM_CHANGE_USER (handshake.c); pointers into the payload. */
typedef struct hs_response {
    uint32_t caps;
    uint32_t max_packet;
    uint8_t collation;
    bool ssl_request;        /* only the SSLRequest prefix: TLS starts next */
    const char *user;
    size_t user_len;
    const uint8_t *auth;
    size_t auth_len;
    const char *db;          /* NULL when not given */
    size_t db_len;
    const char *plugin;      /* NULL when not given */
    const uint8_t *attrs;    /* connection attributes, raw */
    size_t attrs_len;
    uint8_t zstd_level;
    bool has_zstd_level;
    uint32_t mariadb_caps;   /* the filler's last 4 bytes: MariaDB's extended capabilities (0 from a MySQL
                              * client, which sets CLIENT_MYSQL) */
} hs_response_t;

/* MariaDB's extended capabilities (bits 32.. of the capability word, in the 4 filler bytes of the greeting and
 * of the handshake response when CLIENT_MYSQL is clear) */
#define MARIADB_CLIENT_EXTENDED_METADATA (1u << 3) /* column definitions carry type name / format ("json") */

/* 0, or -ER_NOT_SUPPORTED_AUTH_MODE (not protocol 4.1) / -ER_HANDSHAKE_ERROR (malformed). */
int proto_handshake_parse(const uint8_t *p, size_t n, bool tls_active, hs_response_t *out);
int proto_change_user_parse(const uint8_t *p, size_t n, uint32_t caps, hs_response_t *out);

/* The net_ops that run the protocol; arg must point to a proto_cfg_t that outlives the server. */
extern const net_ops_t proto_net_ops;
const char *proto_command_name(int cmd);

#endif
