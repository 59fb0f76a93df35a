/* proto internals shared by the files of src/proto (never included outside it). */
#ifndef STRATA_PROTO_INT_H
#define STRATA_PROTO_INT_H

#include "proto/auth.h"
#include "proto/compress.h"
#include "proto/packet.h"
#include "proto/tls.h"
#include "proto/proto.h"

/*
 * Connection phases:
 *
 *   GREETING --SSLRequest--> TLS_ACCEPT --done--> GREETING (response now over TLS)
 *      |                                              |
 *      '--HandshakeResponse--> AUTH (switch / more data exchanges) --ok--> COMMAND <--+
 *                                                 |                          |      |
 *                                                 '--fail--> CLOSING   command -----+
 *   any phase --EOF / bad packet / KILL--> CLOSING
 */
enum conn_phase { PH_GREETING, PH_TLS_ACCEPT, PH_AUTH, PH_COMMAND, PH_CLOSING };

typedef struct conn {
    net_conn_t *nc;
    int fd;
    const proto_cfg_t *cfg;
    server_t *srv;
    session_t *sess;
    enum conn_phase phase;
    net_peer_t peer;
    uint32_t id;
    uint32_t caps;         /* negotiated capability flags */
    uint8_t scramble[20];
    buf_t rbuf;            /* bytes read from the socket (after TLS), not yet framed */
    tls_conn_t *tls;       /* NULL until the client's SSLRequest */
    buf_t pkt;             /* the current command's payload */
    buf_t obuf;            /* outgoing packets, framed */
    bool compressed;       /* compressed protocol on (after the login OK) */
    bool ext_metadata;     /* MARIADB_CLIENT_EXTENDED_METADATA: column definitions carry the extended block */
    pcomp_t pc;
    pcomp_algo_t comp_algo; /* negotiated, switched on after the login OK */
    int comp_level;
    uint8_t cseq;          /* compressed frame sequence id */
    buf_t ibuf;            /* compressed connections: the inner packet stream, unwrapped from rbuf */
    buf_t zbuf;            /* compressed connections: frames to send */
    uint8_t seq;           /* packet sequence id */
    size_t pk_start;       /* offset in obuf of the packet being built */
    _Atomic uint64_t last_read_us; /* time_mono_us of the last bytes read (idle timeouts) */
    uint64_t idle_limit_us;        /* connect_timeout before login, wait_timeout after */
    size_t max_packet;     /* @@global.max_allowed_packet when the connection began (it is read-only per session) */
    int ncols;             /* columns of the result set being sent */
    const res_col_t *cols;
    bool binary_rows;      /* result set rows in the binary protocol */
    bool in_result;
    bool handshake_done;
    auth_session_t *auth;  /* plugin exchange in progress (PH_AUTH), NULL otherwise */
    char *login_db;        /* database named in the handshake, applied once authenticated */
    bool change_user;      /* the exchange in progress is a COM_CHANGE_USER */
    struct acl_account *acct; /* the account counted by acl_connection_enter (MAX_USER_CONNECTIONS) */
    res_sink_t sink;
    bool parked_cmd;       /* c->pkt holds a command waiting for transaction admission (session/admit.h) */
    /* LOAD DATA LOCAL INFILE (infile.c): the client's packet being handed out, while its file is streamed */
    buf_t infile;
    size_t infile_off;
    bool infile_active;
} conn_t;

/* Packet building straight into obuf: begin, append payload bytes to c->obuf, end. */
void conn_pk_begin(conn_t *c);
void conn_pk_end(conn_t *c);
/* Writes obuf to the socket (waits for the socket if needed).  0, or -1 when the connection is broken. */
int conn_flush(conn_t *c);
/* Reads what the socket has into rbuf: bytes read, 0 when it would block, -1 when closed or broken. */
int conn_read_some(conn_t *c);

void conn_send_ok(conn_t *c, uint64_t affected, uint64_t last_id, uint16_t status, uint16_t warnings, const char *info);
void conn_send_eof(conn_t *c, uint16_t status, uint16_t warnings);
void conn_send_err(conn_t *c, int code, const char *sqlstate, const char *msg);
void conn_send_err_code(conn_t *c, int code, ...);
void conn_sink_init(conn_t *c);
void conn_send_coldefs(conn_t *c, const res_col_t *cols, int n);
void conn_send_field_list(conn_t *c, const res_col_t *cols, const res_cell_t *defaults, int n);
void conn_stmt_sink_init(conn_t *c);
int conn_stmt_command(conn_t *c, uint8_t cmd, const uint8_t *arg, size_t alen);
/* Replication source (dump.c): 0 to go on, -1 to close the connection. */
int conn_register_slave(conn_t *c, const uint8_t *arg, size_t alen);
int conn_binlog_dump(conn_t *c, const uint8_t *arg, size_t alen);
/* Moves one whole compressed frame from rbuf into ibuf: 0, STRATA_EAGAIN when rbuf has no whole frame, < 0. */
int conn_unwrap_frame(conn_t *c);
/* The sink's LOAD DATA LOCAL INFILE callbacks (infile.c). */
void conn_infile_sink_init(conn_t *c);

#endif
