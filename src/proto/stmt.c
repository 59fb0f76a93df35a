/*
 * The binary protocol's prepared statements: COM_STMT_PREPARE, EXECUTE, SEND_LONG_DATA, RESET, CLOSE, FETCH.
 * The statements themselves live in the session (one implementation with SQL PREPARE/EXECUTE); this file is
 * only the wire format.
 *
 *   COM_STMT_PREPARE_OK: 0x00 | u32 statement id | u16 columns | u16 params | 0x00 | u16 warnings,
 *       then params column definitions (+EOF), then result column definitions (+EOF); EOFs omitted under
 *       CLIENT_DEPRECATE_EOF.
 *   COM_STMT_EXECUTE: u32 id | u8 cursor flags | u32 iteration count (1) | if params:
 *       NULL bitmap ((n + 7) / 8) | u8 new_params_bound | [u16 type (0x8000 = unsigned) x n] | values
 *   Values: TINY 1, SHORT/YEAR 2, LONG/INT24 4, LONGLONG 8, FLOAT 4, DOUBLE 8 (little-endian); DATE/DATETIME/
 *       TIMESTAMP u8 len (0, 4, 7, 11) | u16 year | u8 month | u8 day | u8 h | u8 m | u8 s | u32 usec;
 *       TIME u8 len (0, 8, 12) | u8 neg | u32 days | u8 h | u8 m | u8 s | u32 usec; everything else lenenc bytes.
 *   COM_STMT_SEND_LONG_DATA: u32 id | u16 param | bytes (no answer)
 */
#include <string.h>

#include "proto/proto_int.h"
#include "sql/value/value.h"

static void sink_prepared(res_sink_t *s, uint32_t id, const res_col_t *cols, int ncols, uint32_t nparams)
{
    conn_t *c = (conn_t *)((char *)s - offsetof(conn_t, sink));
    conn_pk_begin(c);
    buf_put_u8(&c->obuf, 0x00);
    buf_put_u32(&c->obuf, id);
    buf_put_u16(&c->obuf, (uint16_t)ncols);
    buf_put_u16(&c->obuf, (uint16_t)nparams);
    buf_put_u8(&c->obuf, 0x00);
    buf_put_u16(&c->obuf, (uint16_t)MIN(c->sess->diag.warn_count, 65535u));
    conn_pk_end(c);
    if (nparams) {
        res_col_t *p = arena_alloc(&c->sess->arena, sizeof *p * nparams);
        for (uint32_t i = 0; i < nparams; i++)
            p[i] = (res_col_t){.schema = "", .table = "", .org_table = "", .name = "?", .org_name = "",
                               .charset = CHARSET_BINARY, .type = MYSQL_TYPE_VAR_STRING, .flags = COLF_BINARY};
        conn_send_coldefs(c, p, (int)nparams);
    }
    if (ncols)
        conn_send_coldefs(c, cols, ncols);
}

void conn_stmt_sink_init(conn_t *c) { c->sink.prepared = sink_prepared; }

static bool read_param(pcur_t *cur, uint16_t type, arena_t *a, value_t *v)
{
    bool uns = (type & 0x8000) != 0;
    switch (type & 0xff) {
    case MYSQL_TYPE_NULL:
        *v = value_null();
        break;
    case MYSQL_TYPE_TINY: {
        uint8_t x = pcur_get_u8(cur);
        *v = uns ? value_uint(x) : value_int((int8_t)x);
        break;
    }
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_YEAR: {
        uint16_t x = pcur_get_u16(cur);
        *v = uns ? value_uint(x) : value_int((int16_t)x);
        break;
    }
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24: {
        uint32_t x = pcur_get_u32(cur);
        *v = uns ? value_uint(x) : value_int((int32_t)x);
        break;
    }
    case MYSQL_TYPE_LONGLONG: {
        uint64_t x = pcur_get_u64(cur);
        *v = uns ? value_uint(x) : value_int((int64_t)x);
        break;
    }
    case MYSQL_TYPE_FLOAT: {
        uint32_t x = pcur_get_u32(cur);
        float f;
        memcpy(&f, &x, 4);
        *v = value_double(f);
        break;
    }
    case MYSQL_TYPE_DOUBLE: {
        uint64_t x = pcur_get_u64(cur);
        double d;
        memcpy(&d, &x, 8);
        *v = value_double(d);
        break;
    }
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP: {
        uint8_t len = pcur_get_u8(cur);
        value_t t = {.type = (type & 0xff) == MYSQL_TYPE_DATE ? VAL_DATE : VAL_DATETIME};
        if (len != 0 && len != 4 && len != 7 && len != 11)
            return false;
        if (len >= 4) {
            t.t.year = pcur_get_u16(cur);
            t.t.month = pcur_get_u8(cur);
            t.t.day = pcur_get_u8(cur);
        }
        if (len >= 7) {
            t.t.hour = pcur_get_u8(cur);
            t.t.minute = pcur_get_u8(cur);
            t.t.second = pcur_get_u8(cur);
        }
        if (len == 11) {
            t.t.usec = pcur_get_u32(cur);
            t.dec = 6;
        }
        *v = t;
        break;
    }
    case MYSQL_TYPE_TIME: {
        uint8_t len = pcur_get_u8(cur);
        value_t t = {.type = VAL_TIME};
        if (len != 0 && len != 8 && len != 12)
            return false;
        if (len >= 8) {
            t.t.neg = pcur_get_u8(cur) != 0;
            uint32_t days = pcur_get_u32(cur);
            t.t.hour = days * 24 + pcur_get_u8(cur);
            t.t.minute = pcur_get_u8(cur);
            t.t.second = pcur_get_u8(cur);
        }
        if (len == 12) {
            t.t.usec = pcur_get_u32(cur);
            t.dec = 6;
        }
        *v = t;
        break;
    }
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL: {
        size_t n = 0;
        const uint8_t *p = pcur_get_lenenc_str(cur, &n);
        if (!pcur_ok(cur))
            return false;
        *v = value_str(arena_strndup(a, (const char *)p, n), n, COLL_UTF8MB4_GENERAL_CI);
        break;
    }
    default: {
        size_t n = 0;
        const uint8_t *p = pcur_get_lenenc_str(cur, &n);
        if (!pcur_ok(cur))
            return false;
        bool bin = (type & 0xff) == MYSQL_TYPE_BLOB || (type & 0xff) == MYSQL_TYPE_TINY_BLOB ||
                   (type & 0xff) == MYSQL_TYPE_MEDIUM_BLOB || (type & 0xff) == MYSQL_TYPE_LONG_BLOB;
        *v = value_str((const char *)p, n, bin ? COLL_BINARY : COLL_UTF8MB4_GENERAL_CI);
        break;
    }
    }
    return pcur_ok(cur);
}

/* A COM_STMT_* payload that does not decode: MySQL answers ER_MALFORMED_PACKET and keeps the connection. */
static int stmt_malformed(conn_t *c)
{
    session_begin_statement(c->sess);
    diag_error(&c->sess->diag, ER_MALFORMED_PACKET);
    c->sink.error(&c->sink);
    return 0;
}

/* Answers one COM_STMT_* command.  Returns 0 (a malformed packet is answered with an error, as MySQL does). */
int conn_stmt_command(conn_t *c, uint8_t cmd, const uint8_t *arg, size_t alen)
{
    session_t *s = c->sess;
    pcur_t cur;
    pcur_init(&cur, arg, alen);
    switch (cmd) {
    case COM_STMT_PREPARE:
        session_stmt_prepare(s, (const char *)arg, alen, &c->sink);
        return 0;
    case COM_STMT_CLOSE: {
        uint32_t id = pcur_get_u32(&cur);
        if (!pcur_ok(&cur))
            return stmt_malformed(c);
        session_stmt_close(s, id); /* no answer */
        return 0;
    }
    case COM_STMT_RESET: {
        uint32_t id = pcur_get_u32(&cur);
        if (!pcur_ok(&cur))
            return stmt_malformed(c);
        sess_stmt_t *st = session_stmt_find(s, id);
        if (!st) {
            session_begin_statement(s);
            diag_error(&s->diag, ER_UNKNOWN_STMT_HANDLER, 10, "<unknown>", "mysqld_stmt_reset");
            c->sink.error(&c->sink);
            return 0;
        }
        session_stmt_reset(s, st);
        conn_send_ok(c, 0, 0, session_status_flags(s), 0, NULL);
        return 0;
    }
    case COM_STMT_SEND_LONG_DATA: {
        uint32_t id = pcur_get_u32(&cur);
        uint16_t param = pcur_get_u16(&cur);
        size_t n = 0;
        const uint8_t *data = pcur_get_rest(&cur, &n);
        if (!pcur_ok(&cur))
            return stmt_malformed(c);
        sess_stmt_t *st = session_stmt_find(s, id);
        if (st) /* no answer, even on error (as MySQL) */
            session_stmt_long_data(s, st, param, data, n);
        return 0;
    }
    case COM_STMT_FETCH:
        session_begin_statement(s);
        diag_error(&s->diag, ER_UNKNOWN_STMT_HANDLER, 6, "cursor", "mysqld_stmt_fetch");
        c->sink.error(&c->sink);
        return 0;
    case COM_STMT_EXECUTE:
        break;
    default:
        return stmt_malformed(c);
    }
    uint32_t id = pcur_get_u32(&cur);
    pcur_get_u8(&cur);  /* cursor flags: results are always sent at once (no server-side cursor) */
    pcur_get_u32(&cur); /* iteration count */
    if (!pcur_ok(&cur))
        return stmt_malformed(c);
    sess_stmt_t *st = session_stmt_find(s, id);
    if (!st) {
        session_begin_statement(s);
        char idtxt[16];
        int n = snprintf(idtxt, sizeof idtxt, "%u", id);
        diag_error(&s->diag, ER_UNKNOWN_STMT_HANDLER, n, idtxt, "mysqld_stmt_execute");
        c->sink.error(&c->sink);
        return 0;
    }
    value_t *params = NULL;
    /* A statement whose long data overflowed fails before its parameters are read (some are not in the packet). */
    if (st->nparams && !st->long_data_too_long) {
        params = arena_calloc(&s->arena, sizeof(value_t) * st->nparams);
        size_t nb = (st->nparams + 7) / 8;
        const uint8_t *nulls = pcur_get_bytes(&cur, nb);
        uint8_t bound = pcur_get_u8(&cur);
        if (!pcur_ok(&cur))
            return stmt_malformed(c);
        if (bound) {
            for (uint32_t i = 0; i < st->nparams; i++)
                st->param_types[i] = pcur_get_u16(&cur);
        }
        for (uint32_t i = 0; i < st->nparams && pcur_ok(&cur); i++) {
            if (nulls[i / 8] & (1u << (i % 8))) {
                params[i] = value_null();
            } else if (st->has_long_data[i]) {
                bool bin = (st->param_types[i] & 0xff) >= MYSQL_TYPE_TINY_BLOB && (st->param_types[i] & 0xff) <= MYSQL_TYPE_BLOB;
                params[i] = value_str((const char *)st->long_data[i].data, st->long_data[i].len,
                                      bin ? COLL_BINARY : COLL_UTF8MB4_GENERAL_CI);
            } else if (!read_param(&cur, st->param_types[i], &s->arena, &params[i])) {
                return stmt_malformed(c);
            }
        }
        if (!pcur_ok(&cur))
            return stmt_malformed(c);
    }
    c->binary_rows = true;
    session_stmt_execute(s, st, params, &c->sink);
    c->binary_rows = false;
    return 0;
}
