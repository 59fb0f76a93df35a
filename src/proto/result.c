/*
 * Result encoding: OK, ERR, EOF, column definitions and rows (text and binary protocol), written straight into
 * the connection's output buffer with no per-packet allocation.
 *
 *   OK   0x00 | lenenc affected_rows | lenenc last_insert_id | u16 status | u16 warnings | info (lenenc string,
 *        omitted when empty; MariaDB and libmysqlclient's read_ok_ex length-prefix it with or without
 *        CLIENT_SESSION_TRACK, so mysql_info() of a string<EOF> would lose its first byte)
 *        (0xFE instead of 0x00 when it ends a result set under CLIENT_DEPRECATE_EOF)
 *   ERR  0xFF | u16 code | '#' | sqlstate[5] | message (string<EOF>)
 *   EOF  0xFE | u16 warnings | u16 status                     (only without CLIENT_DEPRECATE_EOF)
 *   ColumnDefinition41: lenenc "def" | schema | table | org_table | name | org_name | lenenc 0x0c |
 *        u16 charset | u32 length | u8 type | u16 flags | u8 decimals | u16 0
 *   Text row: per column lenenc string, 0xFB for NULL
 *   Binary row: 0x00 | NULL bitmap ((ncols + 9) / 8 bytes, bit offset 2) | values in column type's encoding
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto_int.h"

void conn_pk_begin(conn_t *c) { c->pk_start = packet_begin(&c->obuf); }

void conn_pk_end(conn_t *c)
{
    if (c->sess) /* the statement meter's Bytes_sent (header included) */
        c->sess->bytes_out += c->obuf.len - c->pk_start;
    packet_end(&c->obuf, c->pk_start, &c->seq);
}

static uint16_t conn_warnings(conn_t *c)
{
    uint32_t w = c->sess ? diag_statement_warnings(&c->sess->diag) : 0;
    return (uint16_t)(w > 65535 ? 65535 : w);
}

/* With CLIENT_SESSION_TRACK, the state changes the session recorded since the last OK follow the info string:
 * lenenc length of all entries, each entry u8 type | lenenc data (session/session.c draws them).  header is
 * 0x00, or 0xFE for the OK that ends a result set under CLIENT_DEPRECATE_EOF. */
static void send_ok(conn_t *c, uint8_t header, uint64_t affected, uint64_t last_id, uint16_t status,
                    uint16_t warnings, const char *info)
{
    if (c->sess) {
        session_track_pending(c->sess);
        if (!(c->caps & CLIENT_SESSION_TRACK))
            buf_reset(&c->sess->track); /* a client that did not ask is told nothing, and nothing piles up */
    }
    buf_t *track = c->sess && (c->caps & CLIENT_SESSION_TRACK) ? &c->sess->track : NULL;
    if (track && track->len)
        status |= SERVER_SESSION_STATE_CHANGED;
    conn_pk_begin(c);
    buf_put_u8(&c->obuf, header);
    buf_put_lenenc_int(&c->obuf, affected);
    buf_put_lenenc_int(&c->obuf, last_id);
    buf_put_u16(&c->obuf, status);
    buf_put_u16(&c->obuf, warnings);
    if (c->caps & CLIENT_SESSION_TRACK) {
        if ((info && *info) || (track && track->len))
            buf_put_lenenc_str(&c->obuf, info ? info : "", info ? strlen(info) : 0);
        if (track && track->len) {
            buf_put_lenenc_str(&c->obuf, track->data, track->len);
            buf_reset(track);
        }
    } else if (info && *info) {
        buf_put_lenenc_str(&c->obuf, info, strlen(info));
    }
    conn_pk_end(c);
}

void conn_send_ok(conn_t *c, uint64_t affected, uint64_t last_id, uint16_t status, uint16_t warnings, const char *info)
{
    send_ok(c, 0x00, affected, last_id, status, warnings, info);
}

void conn_send_eof(conn_t *c, uint16_t status, uint16_t warnings)
{
    conn_pk_begin(c);
    buf_put_u8(&c->obuf, 0xfe);
    buf_put_u16(&c->obuf, warnings);
    buf_put_u16(&c->obuf, status);
    conn_pk_end(c);
}

/* The end of a result set: EOF, or an OK with the 0xFE header under CLIENT_DEPRECATE_EOF. */
static void conn_send_end(conn_t *c, uint16_t status, uint16_t warnings)
{
    if (!(c->caps & CLIENT_DEPRECATE_EOF))
        conn_send_eof(c, status, warnings);
    else
        send_ok(c, 0xfe, 0, 0, status, warnings, NULL);
}

void conn_send_err(conn_t *c, int code, const char *sqlstate, const char *msg)
{
    conn_pk_begin(c);
    buf_put_u8(&c->obuf, 0xff);
    buf_put_u16(&c->obuf, (uint16_t)code);
    if (c->caps & CLIENT_PROTOCOL_41 || !c->handshake_done) {
        buf_put_u8(&c->obuf, '#');
        buf_append(&c->obuf, sqlstate, 5);
    }
    buf_append(&c->obuf, msg, strnlen(msg, 512));
    conn_pk_end(c);
}

void conn_send_err_code(conn_t *c, int code, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, code);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    vsnprintf(msg, sizeof msg, errors_format(code), ap);
#pragma GCC diagnostic pop
    va_end(ap);
    conn_send_err(c, code, errors_sqlstate(code), msg);
}

static void put_lenenc_cstr(buf_t *b, const char *s)
{
    buf_put_lenenc_str(b, s ? s : "", s ? strlen(s) : 0);
}

/* The body of a column definition packet (the caller frames it). */
static void conn_put_coldef(conn_t *c, const res_col_t *col)
{
    buf_t *b = &c->obuf;
    buf_put_lenenc_str(b, "def", 3);
    put_lenenc_cstr(b, col->schema);
    put_lenenc_cstr(b, col->table);
    put_lenenc_cstr(b, col->org_table);
    put_lenenc_cstr(b, col->name);
    put_lenenc_cstr(b, col->org_name);
    if (c->ext_metadata) { /* MariaDB's extended metadata: (u8 kind, lenenc value)...; kind 1 = format */
        if (col->json) {
            buf_put_u8(b, 6);
            buf_put_u8(b, 1);
            buf_put_lenenc_str(b, "json", 4);
        } else {
            buf_put_u8(b, 0);
        }
    }
    buf_put_u8(b, 0x0c);
    buf_put_u16(b, col->charset);
    buf_put_u32(b, col->length);
    buf_put_u8(b, col->type);
    buf_put_u16(b, col->flags & ~0x8000); /* NUM_FLAG stays inside the server, as in MariaDB */
    buf_put_u8(b, col->decimals);
    buf_put_u16(b, 0);
}

static void conn_send_coldef(conn_t *c, const res_col_t *col)
{
    conn_pk_begin(c);
    conn_put_coldef(c, col);
    conn_pk_end(c);
}

/* COM_FIELD_LIST's answer: each column definition with the column's default after it (lenenc text, 0xfb for
 * none), as mysql_list_fields() reads it; the caller sends the end. */
void conn_send_field_list(conn_t *c, const res_col_t *cols, const res_cell_t *defaults, int n)
{
    for (int i = 0; i < n; i++) {
        conn_pk_begin(c);
        conn_put_coldef(c, &cols[i]);
        if (!defaults[i].null)
            buf_put_lenenc_str(&c->obuf, defaults[i].p, defaults[i].len);
        else
            buf_put_u8(&c->obuf, 0xfb);
        conn_pk_end(c);
    }
}

/* Column definitions of a result set or a prepared statement's parameters/columns, with the EOF after them
 * unless CLIENT_DEPRECATE_EOF. */
void conn_send_coldefs(conn_t *c, const res_col_t *cols, int n)
{
    for (int i = 0; i < n; i++)
        conn_send_coldef(c, &cols[i]);
    if (!(c->caps & CLIENT_DEPRECATE_EOF))
        conn_send_eof(c, session_status_flags(c->sess), conn_warnings(c));
}

static void sink_columns(res_sink_t *s, const res_col_t *cols, int n)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    c->ncols = n;
    c->cols = cols;
    c->in_result = true;
    conn_pk_begin(c);
    buf_put_lenenc_int(&c->obuf, (uint64_t)n);
    conn_pk_end(c);
    conn_send_coldefs(c, cols, n);
}

static int64_t cell_int(const res_cell_t *cell)
{
    char tmp[32];
    size_t n = cell->len < sizeof tmp - 1 ? cell->len : sizeof tmp - 1;
    memcpy(tmp, cell->p, n);
    tmp[n] = 0;
    return strtoll(tmp, NULL, 10);
}

static uint64_t cell_uint(const res_cell_t *cell)
{
    char tmp[32];
    size_t n = cell->len < sizeof tmp - 1 ? cell->len : sizeof tmp - 1;
    memcpy(tmp, cell->p, n);
    tmp[n] = 0;
    return strtoull(tmp, NULL, 10);
}

static double cell_double(const res_cell_t *cell)
{
    char tmp[64];
    size_t n = cell->len < sizeof tmp - 1 ? cell->len : sizeof tmp - 1;
    memcpy(tmp, cell->p, n);
    tmp[n] = 0;
    return strtod(tmp, NULL);
}

/* Binary DATE/DATETIME/TIMESTAMP from "YYYY-MM-DD[ hh:mm:ss[.ffffff]]", TIME from "[-][h]hh:mm:ss[.ffffff]". */
static void put_binary_temporal(buf_t *b, uint8_t type, const res_cell_t *cell)
{
    char tmp[40];
    size_t n = cell->len < sizeof tmp - 1 ? cell->len : sizeof tmp - 1;
    memcpy(tmp, cell->p, n);
    tmp[n] = 0;
    if (type == MYSQL_TYPE_TIME) {
        int neg = tmp[0] == '-';
        unsigned h = 0, m = 0, sec = 0;
        unsigned long us = 0;
        char frac[8] = "";
        sscanf(tmp + neg, "%u:%u:%u.%6[0-9]", &h, &m, &sec, frac);
        if (*frac) {
            size_t fl = strlen(frac);
            us = strtoul(frac, NULL, 10);
            while (fl++ < 6)
                us *= 10;
        }
        if (!h && !m && !sec && !us) {
            buf_put_u8(b, 0);
            return;
        }
        buf_put_u8(b, us ? 12 : 8);
        buf_put_u8(b, (uint8_t)neg);
        buf_put_u32(b, h / 24);
        buf_put_u8(b, (uint8_t)(h % 24));
        buf_put_u8(b, (uint8_t)m);
        buf_put_u8(b, (uint8_t)sec);
        if (us)
            buf_put_u32(b, (uint32_t)us);
        return;
    }
    unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    unsigned long us = 0;
    char frac[8] = "";
    sscanf(tmp, "%u-%u-%u %u:%u:%u.%6[0-9]", &y, &mo, &d, &h, &mi, &s, frac);
    if (*frac) {
        size_t fl = strlen(frac);
        us = strtoul(frac, NULL, 10);
        while (fl++ < 6)
            us *= 10;
    }
    uint8_t len = us ? 11 : (h || mi || s) ? 7 : (y || mo || d) ? 4 : 0;
    buf_put_u8(b, len);
    if (len >= 4) {
        buf_put_u16(b, (uint16_t)y);
        buf_put_u8(b, (uint8_t)mo);
        buf_put_u8(b, (uint8_t)d);
    }
    if (len >= 7) {
        buf_put_u8(b, (uint8_t)h);
        buf_put_u8(b, (uint8_t)mi);
        buf_put_u8(b, (uint8_t)s);
    }
    if (len == 11)
        buf_put_u32(b, (uint32_t)us);
}

static void sink_row(res_sink_t *s, const res_cell_t *cells)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    buf_t *b = &c->obuf;
    if (c->sess)
        c->sess->rows_out++;
    conn_pk_begin(c);
    if (!c->binary_rows) {
        for (int i = 0; i < c->ncols; i++) {
            if (cells[i].null)
                buf_put_u8(b, 0xfb);
            else
                buf_put_lenenc_str(b, cells[i].p, cells[i].len);
        }
    } else {
        buf_put_u8(b, 0x00);
        size_t nb = ((size_t)c->ncols + 9) / 8;
        size_t bm = b->len;
        buf_reserve(b, nb);
        memset(b->data + bm, 0, nb);
        b->len += nb;
        for (int i = 0; i < c->ncols; i++) {
            const res_cell_t *cell = &cells[i];
            if (cell->null) {
                b->data[bm + (i + 2) / 8] |= (uint8_t)(1u << ((i + 2) % 8));
                continue;
            }
            bool uns = c->cols[i].flags & COLF_UNSIGNED;
            switch (c->cols[i].type) {
            case MYSQL_TYPE_TINY:
                buf_put_u8(b, (uint8_t)(uns ? cell_uint(cell) : (uint64_t)cell_int(cell)));
                break;
            case MYSQL_TYPE_SHORT:
            case MYSQL_TYPE_YEAR:
                buf_put_u16(b, (uint16_t)(uns ? cell_uint(cell) : (uint64_t)cell_int(cell)));
                break;
            case MYSQL_TYPE_LONG:
            case MYSQL_TYPE_INT24:
                buf_put_u32(b, (uint32_t)(uns ? cell_uint(cell) : (uint64_t)cell_int(cell)));
                break;
            case MYSQL_TYPE_LONGLONG:
                buf_put_u64(b, uns ? cell_uint(cell) : (uint64_t)cell_int(cell));
                break;
            case MYSQL_TYPE_FLOAT: {
                float f = (float)cell_double(cell);
                uint32_t u;
                memcpy(&u, &f, 4);
                buf_put_u32(b, u);
                break;
            }
            case MYSQL_TYPE_DOUBLE: {
                double d = cell_double(cell);
                uint64_t u;
                memcpy(&u, &d, 8);
                buf_put_u64(b, u);
                break;
            }
            case MYSQL_TYPE_DATE:
            case MYSQL_TYPE_DATETIME:
            case MYSQL_TYPE_TIMESTAMP:
            case MYSQL_TYPE_TIME:
                put_binary_temporal(b, c->cols[i].type, cell);
                break;
            default:
                buf_put_lenenc_str(b, cell->p, cell->len);
                break;
            }
        }
    }
    conn_pk_end(c);
    if (b->len >= 64 * 1024)
        conn_flush(c); /* stream large results instead of holding them */
}

static void sink_rows_end(res_sink_t *s, bool more)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    session_result_set_sent(c->sess);
    uint16_t st = session_status_flags(c->sess) | (more ? SERVER_MORE_RESULTS_EXISTS : 0);
    conn_send_end(c, st, conn_warnings(c));
    c->in_result = false;
}

static void sink_ok(res_sink_t *s, uint64_t affected, uint64_t last_id, const char *info, bool more)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    uint16_t st = session_status_flags(c->sess) | (more ? SERVER_MORE_RESULTS_EXISTS : 0);
    conn_send_ok(c, affected, last_id, st, conn_warnings(c), info);
}

static void sink_error(res_sink_t *s)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    const diag_cond_t *e = c->sess->diag.error;
    if (!e) {
        conn_send_err_code(c, ER_UNKNOWN_ERROR);
        return;
    }
    conn_send_err(c, e->code, e->sqlstate, e->msg);
}

static void sink_raw(res_sink_t *s, const char *p, size_t n)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    conn_pk_begin(c);
    buf_append(&c->obuf, p, n);
    conn_pk_end(c);
}

static int sink_flush(res_sink_t *s)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    return conn_flush(c);
}

void conn_sink_init(conn_t *c)
{
    c->sink.columns = sink_columns;
    c->sink.row = sink_row;
    c->sink.rows_end = sink_rows_end;
    c->sink.ok = sink_ok;
    c->sink.error = sink_error;
    c->sink.raw = sink_raw;
    c->sink.flush = sink_flush;
}
