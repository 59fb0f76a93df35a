/*
 * Building a transaction's events in memory before commit (binlog_trx_t).  A rows transaction is, as MariaDB
 * 10.11 writes it (no BEGIN query: the GTID event without FL_STANDALONE starts the group):
 *     GTID | per statement: [ANNOTATE_ROWS] TABLE_MAP... ROWS... (last with STMT_END_F) | XID
 * and a DDL transaction is GTID(FL_STANDALONE|FL_DDL) QUERY.  The GTID and XID events are added by
 * binlog_commit(); positions and CRCs are filled when the leader knows where the group lands in the file.
 * Rows events are cut at BINLOG_ROWS_EVENT_MAX bytes (MariaDB's binlog_row_event_max_size default).
 */
#include <string.h>

#include "binlog/binlog_int.h"

enum { BINLOG_ROWS_EVENT_MAX = 8192 };

void binlog_trx_init(binlog_trx_t *t, binlog_trx_kind_t kind)
{
    memset(t, 0, sizeof *t);
    buf_init(&t->ev);
    t->kind = kind;
    t->rows_at = SIZE_MAX;
    t->last_rows_at = SIZE_MAX;
    t->maps_at = SIZE_MAX;
    binlog_query_ctx_default(&t->qctx);
}

void binlog_trx_free(binlog_trx_t *t)
{
    buf_free(&t->ev);
    mem_free(t->mapped);
    memset(t, 0, sizeof *t);
}

/* What a session's event buffer keeps between transactions: one large transaction must not pin its size on an
 * idle connection (3,000 connections x one big LOAD DATA each). */
#define TRX_EV_KEEP (256u << 10)

void binlog_trx_reset(binlog_trx_t *t, binlog_trx_kind_t kind)
{
    t->ev.len = 0;
    buf_shrink(&t->ev, TRX_EV_KEEP);
    t->kind = kind;
    t->xid = 0;
    t->gtid_seq = 0;
    t->when = 0;
    t->nmapped = 0;
    t->nevents = 0;
    t->rows_at = SIZE_MAX;
    t->last_rows_at = SIZE_MAX;
    t->maps_at = SIZE_MAX;
}

bool binlog_trx_empty(const binlog_trx_t *t)
{
    return t->ev.len == 0;
}

void binlog_trx_query(binlog_trx_t *t, const char *db, const char *query, size_t len)
{
    t->kind = BINLOG_TRX_DDL;
    binlog_ev_query(&t->ev, 0, 0, t->thread_id, db, query, len, &t->qctx);
    t->nevents++;
}

static void rows_close(binlog_trx_t *t)
{
    if (t->rows_at == SIZE_MAX)
        return;
    binlog_ev_end(&t->ev, t->rows_at);
    t->last_rows_at = t->rows_at;
    t->rows_at = SIZE_MAX;
    t->nevents++;
}

void binlog_trx_stmt_begin(binlog_trx_t *t, const char *query, size_t len)
{
    binlog_trx_stmt_end(t);
    if (query && len) {
        binlog_ev_annotate(&t->ev, 0, 0, query, len);
        t->nevents++;
    }
}

void binlog_trx_stmt_end(binlog_trx_t *t)
{
    rows_close(t);
    if (t->last_rows_at != SIZE_MAX) {
        uint8_t *f = t->ev.data + t->last_rows_at + BINLOG_HEADER_LEN + 6;
        wr16(f, (uint16_t)(rd16(f) | BINLOG_ROWS_STMT_END));
    }
    t->last_rows_at = SIZE_MAX;
    t->maps_at = SIZE_MAX;
    t->nmapped = 0;
}

static bool is_mapped(binlog_trx_t *t, uint64_t id)
{
    for (uint32_t i = 0; i < t->nmapped; i++)
        if (t->mapped[i] == id)
            return true;
    return false;
}

/* Appends tb's TABLE_MAP to the statement's maps: at the end when the statement has no rows event yet, else
 * moved in front of its first rows event (events are not sealed before commit, so they may move). */
static void map_add(binlog_trx_t *t, const binlog_table_t *tb)
{
    size_t at = t->ev.len;
    if (t->maps_at == SIZE_MAX)
        t->maps_at = at;
    binlog_ev_table_map(&t->ev, 0, 0, tb);
    t->nevents++;
    size_t m = t->ev.len - at;
    if (t->maps_at < at) {
        uint8_t *map = mem_alloc(m);
        memcpy(map, t->ev.data + at, m);
        memmove(t->ev.data + t->maps_at + m, t->ev.data + t->maps_at, at - t->maps_at);
        memcpy(t->ev.data + t->maps_at, map, m);
        mem_free(map);
        if (t->last_rows_at != SIZE_MAX && t->last_rows_at >= t->maps_at)
            t->last_rows_at += m;
    }
    t->maps_at += m;
}

/* Makes sure an open rows event of `type` for table tb can take `need` more bytes. */
static void rows_prepare(binlog_trx_t *t, const binlog_table_t *tb, int type, size_t need)
{
    if (t->rows_at != SIZE_MAX &&
        (t->rows_table != tb->id || t->rows_type != type || t->ev.len - t->rows_at + need > BINLOG_ROWS_EVENT_MAX))
        rows_close(t);
    if (!is_mapped(t, tb->id)) {
        rows_close(t);
        map_add(t, tb);
        if (t->nmapped == t->capmapped) {
            t->capmapped = t->capmapped ? 2 * t->capmapped : 4;
            t->mapped = mem_realloc(t->mapped, t->capmapped * sizeof *t->mapped);
        }
        t->mapped[t->nmapped++] = tb->id;
    }
    if (t->rows_at != SIZE_MAX)
        return;
    t->rows_at = binlog_ev_begin(&t->ev, type, 0, 0, 0);
    t->rows_table = tb->id;
    t->rows_type = type;
    buf_put_u48(&t->ev, tb->id);
    buf_put_u16(&t->ev, t->rows_flags);
    buf_put_lenenc_int(&t->ev, tb->ncols);
    size_t nb = (tb->ncols + 7) / 8;
    for (int img = 0; img < (type == BINLOG_EV_UPDATE_ROWS_V1 ? 2 : 1); img++)
        for (size_t i = 0; i < nb; i++) {
            uint32_t rest = tb->ncols - (uint32_t)(8 * i);
            buf_put_u8(&t->ev, rest >= 8 ? 0xff : (uint8_t)((1u << rest) - 1));
        }
}

void binlog_trx_add_row_raw(binlog_trx_t *t, const binlog_table_t *tb, int type, const void *img, size_t len)
{
    t->kind = BINLOG_TRX_ROWS;
    rows_prepare(t, tb, type, len);
    buf_append(&t->ev, img, len);
}

static int add_images(binlog_trx_t *t, const binlog_table_t *tb, int type, const binlog_value_t *a,
                      const binlog_value_t *b)
{
    buf_t row;
    buf_init(&row);
    int rc = binlog_row_encode(&row, tb, a);
    if (rc == 0 && b)
        rc = binlog_row_encode(&row, tb, b);
    if (rc == 0)
        binlog_trx_add_row_raw(t, tb, type, row.data, row.len);
    buf_free(&row);
    return rc;
}

int binlog_trx_write_row(binlog_trx_t *t, const binlog_table_t *tb, const binlog_value_t *after)
{
    return add_images(t, tb, BINLOG_EV_WRITE_ROWS_V1, after, NULL);
}

int binlog_trx_update_row(binlog_trx_t *t, const binlog_table_t *tb, const binlog_value_t *before,
                          const binlog_value_t *after)
{
    return add_images(t, tb, BINLOG_EV_UPDATE_ROWS_V1, before, after);
}

int binlog_trx_delete_row(binlog_trx_t *t, const binlog_table_t *tb, const binlog_value_t *before)
{
    return add_images(t, tb, BINLOG_EV_DELETE_ROWS_V1, before, NULL);
}

binlog_trx_mark_t binlog_trx_mark(binlog_trx_t *t)
{
    binlog_trx_stmt_end(t);
    return (binlog_trx_mark_t){.len = t->ev.len, .nevents = t->nevents};
}

void binlog_trx_rollback_to(binlog_trx_t *t, binlog_trx_mark_t m)
{
    if (m.len > t->ev.len)
        return;
    t->ev.len = m.len;
    t->nevents = m.nevents;
    t->rows_at = SIZE_MAX;
    t->last_rows_at = SIZE_MAX;
    t->maps_at = SIZE_MAX;
    t->nmapped = 0;
}
