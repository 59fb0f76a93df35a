/*
 * Binlog events: encoders for every event strata writes and the checked decoder every reader uses.  The layouts
 * are MariaDB 10.11's (checked byte by byte against files written by mariadbd 10.11.19 with binlog_checksum=CRC32
 * and decoded by mariadb-binlog).  All integers are little-endian unless said otherwise.
 *
 * File:  offset 0: magic fe 62 69 6e (0xfe 'b' 'i' 'n'), then events back to back from offset 4.
 *
 * v4 event header (19 bytes)                          every event ends with a 4-byte CRC32 (zlib crc32 of all
 *   0  4  timestamp (unix seconds)                    bytes of the event before it, header included; for
 *   4  1  type code (events.def)                      FORMAT_DESCRIPTION computed with the IN_USE flag clear,
 *   5  4  server_id                                   so closing a file can clear the flag without recomputing)
 *   9  4  event size (header + body + CRC)
 *  13  4  next position (file offset just past this event)
 *  17  2  flags (0x0001 IN_USE on FDE of an open file, 0x0008 SUPPRESS_USE on GTID and QUERY)
 *
 * FORMAT_DESCRIPTION (15), body:                      GTID_LIST (163), body:
 *   0  2  binlog version = 4                            0  4  count (low 28 bits) | flags << 28
 *   2 50  server version, NUL padded                    4 16*count  domain u32, server u32, seq u64
 *                                                         (count 0: 2 zero bytes follow, as MariaDB pads)
 *  52  4  create timestamp (0 unless at startup)      BINLOG_CHECKPOINT (161), body:
 *  56  1  header length = 19                            0  4  name length n;  4  n  file name (no NUL)
 *  57 171 post-header length per type 1..171          GTID (162), body (19 bytes, post-header only):
 * 228  1  checksum algorithm (1 = CRC32)                0  8  seq_no;  8  4  domain id;  12  1  flags2
 *                                                      13  8  commit_id if flags2 & FL_GROUP_COMMIT_ID, else
 * QUERY (2), body:                                            6 zero bytes
 *   0  4  thread id;  4  4  exec time;  8  1  db length d;  9  2  error code;  11  2  status vars length s
 *  13  s  status vars: 00 flags2 u32 | 01 sql_mode u64 | 06 catalog len+"std" | 04 charset client u16,
 *         collation_connection u16, collation_server u16
 *  13+s   db (d bytes) and a NUL, then the statement text to the CRC (no NUL)
 *
 * ANNOTATE_ROWS (160): the statement text.           XID (16): 8-byte xid.    STOP (3): empty body.
 * ROTATE (4): 0 8 position of the first event in the next file (4); 8 name of the next file (no NUL).
 *
 * TABLE_MAP (19):  0 6 table id; 6 2 flags (1);  db: len u8, bytes, NUL;  table: len u8, bytes, NUL;
 *   column count (lenenc);  column types [count];  metadata length (lenenc) + metadata (rows.c: per type);
 *   null bitmap ((count+7)/8, bit i set = column i nullable)
 * WRITE/UPDATE/DELETE_ROWS v1 (23/24/25; what MariaDB 10.11 writes):  0 6 table id; 6 2 flags (STMT_END 1);
 *   column count (lenenc); columns-present bitmap; (UPDATE: a second bitmap for the after image); then rows:
 *   null bitmap of present columns (unused high bits set) + values (rows.c), UPDATE as before image, after image.
 */
#include <string.h>
#include <zlib.h>

#include "binlog/binlog_int.h"

/* Post-header lengths for types 1..171 as MariaDB 10.11 writes them in FORMAT_DESCRIPTION. */
static const uint8_t fde_post_header[171] = {
    56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 228, 0, 4, 26, 8, 0, 0, 0, 8, 8,
    8, 2, 0, 0, 0, 10, 10, 10, 0, 0, 0, 0, 0, 0, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 19, 4, 0, 13, 8, 8, 8,
    10, 10, 10,
};

const char *binlog_event_type_name(int type)
{
    switch (type) {
#define EVT(sym, code, name) \
    case code:               \
        return name;
#include "binlog/events.def"
#undef EVT
    default:
        return "Unknown";
    }
}

uint32_t binlog_crc32(const uint8_t *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

static uint32_t event_crc(const uint8_t *ev, uint32_t size)
{
    if (ev[4] == BINLOG_EV_FORMAT_DESCRIPTION && (ev[17] & BINLOG_EVF_IN_USE)) {
        uLong c = crc32(0L, Z_NULL, 0);
        uint8_t f = (uint8_t)(ev[17] & ~BINLOG_EVF_IN_USE);
        c = crc32(c, ev, 17);
        c = crc32(c, &f, 1);
        c = crc32(c, ev + 18, size - 4 - 18);
        return (uint32_t)c;
    }
    return binlog_crc32(ev, size - 4);
}

size_t binlog_ev_begin(buf_t *b, int type, uint32_t when, uint32_t server_id, uint16_t flags)
{
    size_t at = b->len;
    buf_put_u32(b, when);
    buf_put_u8(b, (uint8_t)type);
    buf_put_u32(b, server_id);
    buf_put_u32(b, 0); /* size */
    buf_put_u32(b, 0); /* next position */
    buf_put_u16(b, flags);
    return at;
}

void binlog_ev_end(buf_t *b, size_t at)
{
    buf_put_u32(b, 0); /* CRC slot */
    wr32(b->data + at + 9, (uint32_t)(b->len - at));
}

void binlog_event_seal(uint8_t *ev, uint64_t pos, uint32_t when, uint32_t sid)
{
    uint32_t size = rd32(ev + 9);
    if (when)
        wr32(ev, when);
    if (sid)
        wr32(ev + 5, sid);
    wr32(ev + 13, (uint32_t)(pos + size));
    wr32(ev + size - 4, event_crc(ev, size));
}

uint64_t binlog_events_seal(uint8_t *p, size_t len, uint64_t pos, uint32_t when, uint32_t sid)
{
    size_t off = 0;
    while (off + BINLOG_HEADER_LEN <= len) {
        uint32_t size = rd32(p + off + 9);
        ASSERT(size >= BINLOG_HEADER_LEN + BINLOG_CRC_LEN && off + size <= len);
        binlog_event_seal(p + off, pos, when, sid);
        pos += size;
        off += size;
    }
    ASSERT(off == len);
    return pos;
}

void binlog_ev_fde(buf_t *b, uint32_t when, uint32_t server_id, const char *version, uint32_t created,
                   uint16_t flags)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_FORMAT_DESCRIPTION, when, server_id, flags);
    char ver[50] = {0};
    strncpy(ver, version ? version : "10.11.6-MariaDB-strata", sizeof ver - 1);
    buf_put_u16(b, 4);
    buf_append(b, ver, sizeof ver);
    buf_put_u32(b, created);
    buf_put_u8(b, BINLOG_HEADER_LEN);
    buf_append(b, fde_post_header, sizeof fde_post_header);
    buf_put_u8(b, BINLOG_CHECKSUM_CRC32);
    binlog_ev_end(b, at);
}

void binlog_ev_gtid_list(buf_t *b, uint32_t when, uint32_t server_id, const binlog_gtid_set_t *s)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_GTID_LIST, when, server_id, 0);
    buf_put_u32(b, s ? s->n : 0);
    for (uint32_t i = 0; s && i < s->n; i++) {
        buf_put_u32(b, s->v[i].domain);
        buf_put_u32(b, s->v[i].server);
        buf_put_u64(b, s->v[i].seq);
    }
    if (!s || s->n == 0)
        buf_put_u16(b, 0); /* MariaDB pads an empty list to 29 bytes; mariadb-binlog rejects it shorter */
    binlog_ev_end(b, at);
}

void binlog_ev_checkpoint(buf_t *b, uint32_t when, uint32_t server_id, const char *name)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_BINLOG_CHECKPOINT, when, server_id, 0);
    buf_put_u32(b, (uint32_t)strlen(name));
    buf_append_str(b, name);
    binlog_ev_end(b, at);
}

void binlog_ev_gtid(buf_t *b, uint32_t when, uint32_t server_id, binlog_gtid_t g, uint8_t flags2,
                    uint64_t commit_id)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_GTID, when, server_id, BINLOG_EVF_SUPPRESS_USE);
    if (commit_id)
        flags2 |= BINLOG_GTID_FL_GROUP_COMMIT_ID;
    else
        flags2 &= (uint8_t)~BINLOG_GTID_FL_GROUP_COMMIT_ID;
    buf_put_u64(b, g.seq);
    buf_put_u32(b, g.domain);
    buf_put_u8(b, flags2);
    if (commit_id) {
        buf_put_u64(b, commit_id);
    } else {
        static const uint8_t zero[6];
        buf_append(b, zero, sizeof zero);
    }
    binlog_ev_end(b, at);
}

void binlog_query_ctx_default(binlog_query_ctx_t *c)
{
    c->flags2 = 0x01000000; /* explicit_defaults_for_timestamp=1, MariaDB 10.11's default */
    c->sql_mode = 0x54200000ull;
    c->charset_client = c->collation_connection = c->collation_server = 45; /* utf8mb4_general_ci */
}

void binlog_ev_query(buf_t *b, uint32_t when, uint32_t server_id, uint32_t thread_id, const char *db,
                     const char *q, size_t qlen, const binlog_query_ctx_t *ctx)
{
    binlog_query_ctx_t def;
    if (!ctx) {
        binlog_query_ctx_default(&def);
        ctx = &def;
    }
    size_t dlen = db ? strlen(db) : 0;
    if (dlen > 255)
        dlen = 255;
    size_t at = binlog_ev_begin(b, BINLOG_EV_QUERY, when, server_id, dlen ? 0 : BINLOG_EVF_SUPPRESS_USE);
    buf_put_u32(b, thread_id);
    buf_put_u32(b, 0); /* exec time */
    buf_put_u8(b, (uint8_t)dlen);
    buf_put_u16(b, 0); /* error code */
    buf_put_u16(b, 26);
    /* status variables: flags2, sql_mode, catalog "std", charsets */
    buf_put_u8(b, 0);
    buf_put_u32(b, ctx->flags2);
    buf_put_u8(b, 1);
    buf_put_u64(b, ctx->sql_mode);
    buf_put_u8(b, 6);
    buf_put_u8(b, 3);
    buf_append(b, "std", 3);
    buf_put_u8(b, 4);
    buf_put_u16(b, ctx->charset_client);
    buf_put_u16(b, ctx->collation_connection);
    buf_put_u16(b, ctx->collation_server);
    buf_append(b, db ? db : "", dlen);
    buf_put_u8(b, 0);
    buf_append(b, q, qlen);
    binlog_ev_end(b, at);
}

void binlog_ev_annotate(buf_t *b, uint32_t when, uint32_t server_id, const char *q, size_t qlen)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_ANNOTATE_ROWS, when, server_id, 0);
    buf_append(b, q, qlen);
    binlog_ev_end(b, at);
}

void binlog_ev_table_map(buf_t *b, uint32_t when, uint32_t server_id, const binlog_table_t *t)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_TABLE_MAP, when, server_id, 0);
    size_t dl = MIN(strlen(t->db), 255), tl = MIN(strlen(t->name), 255);
    buf_put_u48(b, t->id);
    buf_put_u16(b, 1);
    buf_put_u8(b, (uint8_t)dl);
    buf_append(b, t->db, dl);
    buf_put_u8(b, 0);
    buf_put_u8(b, (uint8_t)tl);
    buf_append(b, t->name, tl);
    buf_put_u8(b, 0);
    buf_put_lenenc_int(b, t->ncols);
    uint8_t meta[2];
    buf_t md;
    buf_init(&md);
    for (uint32_t i = 0; i < t->ncols; i++) {
        uint8_t ty;
        int n = binlog_col_map(&t->cols[i], &ty, meta);
        buf_put_u8(b, ty);
        buf_append(&md, meta, (size_t)n);
    }
    buf_put_lenenc_int(b, md.len);
    buf_append(b, md.data, md.len);
    buf_free(&md);
    size_t nb = (t->ncols + 7) / 8, base = b->len;
    buf_reserve(b, nb);
    memset(b->data + base, 0, nb);
    b->len += nb;
    for (uint32_t i = 0; i < t->ncols; i++)
        if (t->cols[i].nullable)
            b->data[base + i / 8] |= (uint8_t)(1u << (i % 8));
    binlog_ev_end(b, at);
}

void binlog_ev_xid(buf_t *b, uint32_t when, uint32_t server_id, uint64_t xid)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_XID, when, server_id, 0);
    buf_put_u64(b, xid);
    binlog_ev_end(b, at);
}

void binlog_ev_rotate(buf_t *b, uint32_t when, uint32_t server_id, const char *next, uint64_t pos)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_ROTATE, when, server_id, 0);
    buf_put_u64(b, pos);
    buf_append_str(b, next);
    binlog_ev_end(b, at);
}

void binlog_ev_stop(buf_t *b, uint32_t when, uint32_t server_id)
{
    size_t at = binlog_ev_begin(b, BINLOG_EV_STOP, when, server_id, 0);
    binlog_ev_end(b, at);
}

/* ---- decoding ---------------------------------------------------------------------------------------------- */

int binlog_event_parse(const uint8_t *p, size_t len, binlog_event_t *ev, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    *why = NULL;
    ev->size = 0;
    if (len < BINLOG_HEADER_LEN)
        return STRATA_EAGAIN;
    ev->when = rd32(p);
    ev->type = p[4];
    ev->server_id = rd32(p + 5);
    ev->size = rd32(p + 9);
    ev->next_pos = rd32(p + 13);
    ev->flags = rd16(p + 17);
    ev->data = p;
    if (ev->size < BINLOG_HEADER_LEN + BINLOG_CRC_LEN || ev->size > BINLOG_MAX_EVENT) {
        *why = "impossible event length";
        return STRATA_ECORRUPT;
    }
    if (len < ev->size)
        return STRATA_EAGAIN;
    if (rd32(p + ev->size - 4) != event_crc(p, ev->size)) {
        *why = "event checksum mismatch";
        return STRATA_ECORRUPT;
    }
    return 0;
}

/* Body bounds of a checked event. */
static inline const uint8_t *body(const binlog_event_t *ev, size_t *n)
{
    *n = ev->size - BINLOG_HEADER_LEN - BINLOG_CRC_LEN;
    return ev->data + BINLOG_HEADER_LEN;
}

int binlog_event_query(const binlog_event_t *ev, binlog_query_t *q)
{
    size_t n;
    const uint8_t *b = body(ev, &n);
    memset(q, 0, sizeof *q);
    if (ev->type != BINLOG_EV_QUERY || n < 13)
        return STRATA_ECORRUPT;
    size_t dl = b[8], sl = rd16(b + 11);
    if (13 + sl + dl + 1 > n)
        return STRATA_ECORRUPT;
    q->thread_id = rd32(b);
    q->error_code = rd16(b + 9);
    /* status variables: code byte, then a value whose size the code fixes (MariaDB's Q_* codes) */
    const uint8_t *p = b + 13, *sv_end = p + sl;
    while (p < sv_end) {
        uint8_t code = *p++;
        size_t left = (size_t)(sv_end - p), need;
        switch (code) {
        case 0: need = 4; if (left >= need) { q->has_flags2 = true; q->flags2 = rd32(p); } break;     /* FLAGS2 */
        case 1: need = 8; if (left >= need) { q->has_sql_mode = true; q->sql_mode = rd64(p); } break; /* SQL_MODE */
        case 2: need = left ? (size_t)p[0] + 2 : 1; break;          /* CATALOG (old): len, bytes, NUL */
        case 3: need = 4; break;                                    /* AUTO_INCREMENT increment, offset */
        case 4: need = 6; if (left >= need) {                       /* CHARSET */
                q->has_charset = true;
                q->charset_client = rd16(p);
                q->collation_connection = rd16(p + 2);
                q->collation_server = rd16(p + 4);
            } break;
        case 5: case 6: need = left ? (size_t)p[0] + 1 : 1; break;  /* TIME_ZONE, CATALOG_NZ: len, bytes */
        case 7: case 8: need = 2; break;                            /* LC_TIME_NAMES, CHARSET_DATABASE */
        case 9: need = 8; break;                                    /* TABLE_MAP_FOR_UPDATE */
        case 10: need = 4; break;                                   /* MASTER_DATA_WRITTEN */
        case 11:                                                    /* INVOKER: user, host */
            need = left ? (size_t)p[0] + 1 : 1;
            if (left > need)
                need += (size_t)p[need] + 1;
            break;
        case 13: need = 3; break;                                   /* MICROSECONDS */
        case 128: need = 3; break;                                  /* HRNOW */
        case 129: need = 8; break;                                  /* XID */
        case 130: need = 1; break;                                  /* GTID_FLAGS3 */
        default: need = SIZE_MAX; break;
        }
        if (need == SIZE_MAX || need > left)
            break;
        p += need;
    }
    q->db = (const char *)b + 13 + sl;
    q->db_len = dl;
    q->text = q->db + dl + 1;
    q->len = n - (13 + sl + dl + 1);
    return 0;
}

int binlog_event_gtid(const binlog_event_t *ev, binlog_gtid_t *g, uint8_t *flags2, uint64_t *commit_id)
{
    size_t n;
    const uint8_t *b = body(ev, &n);
    if (ev->type != BINLOG_EV_GTID || n < 13)
        return STRATA_ECORRUPT;
    g->seq = rd64(b);
    g->domain = rd32(b + 8);
    g->server = ev->server_id;
    uint8_t f = b[12];
    if (flags2)
        *flags2 = f;
    if (commit_id) {
        *commit_id = 0;
        if (f & BINLOG_GTID_FL_GROUP_COMMIT_ID) {
            if (n < 21)
                return STRATA_ECORRUPT;
            *commit_id = rd64(b + 13);
        }
    }
    return 0;
}

int binlog_event_xid(const binlog_event_t *ev, uint64_t *xid)
{
    size_t n;
    const uint8_t *b = body(ev, &n);
    if (ev->type != BINLOG_EV_XID || n < 8)
        return STRATA_ECORRUPT;
    *xid = rd64(b);
    return 0;
}

int binlog_event_gtid_list(const binlog_event_t *ev, binlog_gtid_set_t *out)
{
    size_t n;
    const uint8_t *b = body(ev, &n);
    if (ev->type != BINLOG_EV_GTID_LIST || n < 4)
        return STRATA_ECORRUPT;
    uint32_t cnt = rd32(b) & 0x0fffffff;
    if ((n - 4) / 16 < cnt)
        return STRATA_ECORRUPT;
    for (uint32_t i = 0; i < cnt; i++) {
        binlog_gtid_t g = {rd32(b + 4 + 16 * i), rd32(b + 8 + 16 * i), rd64(b + 12 + 16 * i)};
        binlog_gtid_set_update(out, g);
    }
    return 0;
}

static void put_name(buf_t *out, const uint8_t *p, size_t n)
{
    buf_append(out, p, n);
}

/* lenenc integer from [*p, end); false if truncated. */
static bool get_lenenc(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    if (*p >= end)
        return false;
    uint8_t c = **p;
    size_t k = c < 251 ? 0 : c == 0xfc ? 2 : c == 0xfd ? 3 : c == 0xfe ? 8 : 99;
    if (k == 99 || (size_t)(end - *p) < 1 + k)
        return false;
    if (k == 0)
        *v = c;
    else if (k == 2)
        *v = rd16(*p + 1);
    else if (k == 3)
        *v = rd24(*p + 1);
    else
        *v = rd64(*p + 1);
    *p += 1 + k;
    return true;
}

int binlog_event_info(const binlog_event_t *ev, buf_t *out)
{
    size_t n;
    const uint8_t *b = body(ev, &n);
    const uint8_t *end = b + n;
    switch (ev->type) {
    case BINLOG_EV_FORMAT_DESCRIPTION: {
        if (n < 57)
            return STRATA_ECORRUPT;
        char ver[51];
        memcpy(ver, b + 2, 50);
        ver[50] = 0;
        buf_printf(out, "Server ver: %s, Binlog ver: %u", ver, rd16(b));
        return 0;
    }
    case BINLOG_EV_GTID_LIST: {
        binlog_gtid_set_t s = {0};
        if (n < 4)
            return STRATA_ECORRUPT;
        uint32_t cnt = rd32(b) & 0x0fffffff;
        if ((n - 4) / 16 < cnt)
            return STRATA_ECORRUPT;
        buf_append_byte(out, '[');
        for (uint32_t i = 0; i < cnt; i++)
            buf_printf(out, "%s%u-%u-%llu", i ? "," : "", rd32(b + 4 + 16 * i), rd32(b + 8 + 16 * i),
                       (unsigned long long)rd64(b + 12 + 16 * i));
        buf_append_byte(out, ']');
        binlog_gtid_set_free(&s);
        return 0;
    }
    case BINLOG_EV_BINLOG_CHECKPOINT: {
        if (n < 4 || rd32(b) > n - 4)
            return STRATA_ECORRUPT;
        put_name(out, b + 4, rd32(b));
        return 0;
    }
    case BINLOG_EV_GTID: {
        binlog_gtid_t g;
        uint8_t f;
        uint64_t cid;
        if (binlog_event_gtid(ev, &g, &f, &cid))
            return STRATA_ECORRUPT;
        buf_printf(out, "%sGTID %u-%u-%llu", (f & BINLOG_GTID_FL_STANDALONE) ? "" : "BEGIN ", g.domain, g.server,
                   (unsigned long long)g.seq);
        if (cid)
            buf_printf(out, " cid=%llu", (unsigned long long)cid);
        return 0;
    }
    case BINLOG_EV_QUERY: {
        if (n < 13)
            return STRATA_ECORRUPT;
        size_t dl = b[8], sl = rd16(b + 11);
        if (13 + sl + dl + 1 > n)
            return STRATA_ECORRUPT;
        const uint8_t *db = b + 13 + sl, *q = db + dl + 1;
        if (dl && !(ev->flags & BINLOG_EVF_SUPPRESS_USE)) {
            buf_append_str(out, "use `");
            put_name(out, db, dl);
            buf_append_str(out, "`; ");
        }
        put_name(out, q, (size_t)(end - q));
        return 0;
    }
    case BINLOG_EV_ANNOTATE_ROWS:
        put_name(out, b, n);
        return 0;
    case BINLOG_EV_TABLE_MAP: {
        if (n < 10)
            return STRATA_ECORRUPT;
        const uint8_t *p = b + 8;
        size_t dl = *p++;
        if ((size_t)(end - p) < dl + 2)
            return STRATA_ECORRUPT;
        const uint8_t *db = p;
        p += dl + 1;
        size_t tl = *p++;
        if ((size_t)(end - p) < tl + 1)
            return STRATA_ECORRUPT;
        buf_printf(out, "table_id: %llu (", (unsigned long long)rd48(b));
        put_name(out, db, dl);
        buf_append_byte(out, '.');
        put_name(out, p, tl);
        buf_append_byte(out, ')');
        return 0;
    }
    case BINLOG_EV_WRITE_ROWS_V1:
    case BINLOG_EV_UPDATE_ROWS_V1:
    case BINLOG_EV_DELETE_ROWS_V1:
    case BINLOG_EV_WRITE_ROWS_V2:
    case BINLOG_EV_UPDATE_ROWS_V2:
    case BINLOG_EV_DELETE_ROWS_V2: {
        if (n < 8)
            return STRATA_ECORRUPT;
        const uint8_t *p = b + 8;
        uint64_t cols;
        if (!get_lenenc(&p, end, &cols) || cols == 0 || cols > 4096)
            return STRATA_ECORRUPT;
        buf_printf(out, "table_id: %llu%s", (unsigned long long)rd48(b),
                   (rd16(b + 6) & BINLOG_ROWS_STMT_END) ? " flags: STMT_END_F" : "");
        return 0;
    }
    case BINLOG_EV_XID: {
        uint64_t x;
        if (binlog_event_xid(ev, &x))
            return STRATA_ECORRUPT;
        buf_printf(out, "COMMIT /* xid=%llu */", (unsigned long long)x);
        return 0;
    }
    case BINLOG_EV_ROTATE: {
        if (n < 8)
            return STRATA_ECORRUPT;
        put_name(out, b + 8, n - 8);
        buf_printf(out, ";pos=%llu", (unsigned long long)rd64(b));
        return 0;
    }
    default:
        return 0;
    }
}
