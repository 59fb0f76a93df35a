/*
 * Building a transaction's events in memory before commit (binlog_trx_t).  A rows transaction is, as MariaDB
 * 10.11 writes it (no BEGIN query: the GTID event without FL_STANDALONE starts the group):
 *     GTID | per statement: [ANNOTATE_ROWS] TABLE_MAP... ROWS... (last with STMT_END_F) | XID
 * and a DDL transaction is GTID(FL_STANDALONE|FL_DDL) QUERY.  The GTID and XID events are added by
 * binlog_commit(); positions and CRCs are filled when the leader knows where the group lands in the file.
 * Rows events are cut at BINLOG_ROWS_EVENT_MAX bytes (MariaDB's binlog_row_event_max_size default).
 * Past binlog_cache_size bytes in memory the front of the events goes to a temporary file (spill()), as MariaDB's
 * binlog cache does, so a transaction's memory does not grow with its rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binlog/binlog_int.h"
#include "util/fio.h"

enum { BINLOG_ROWS_EVENT_MAX = 8192 };

/* ---- the binlog cache: limits, counters, the temporary file -------------------------------------------------- */

static _Atomic uint64_t g_cache_size = 32768;
static _Atomic uint64_t g_max_cache_size = 18446744073709547520ull;
static _Atomic uint64_t g_cache_use, g_cache_disk_use;
static char g_tmpdir[1024] = "/tmp";

void binlog_trx_set_cache(uint64_t cache_size, uint64_t max_cache_size)
{
    atomic_store_explicit(&g_cache_size, cache_size < 4096 ? 4096 : cache_size, memory_order_relaxed);
    atomic_store_explicit(&g_max_cache_size, max_cache_size < 4096 ? 4096 : max_cache_size, memory_order_relaxed);
}

void binlog_trx_set_tmpdir(const char *dir)
{
    if (dir && *dir && strlen(dir) < sizeof g_tmpdir)
        strcpy(g_tmpdir, dir);
}

const char *binlog_trx_tmpdir(void) { return g_tmpdir; }

void binlog_trx_cache_stats(uint64_t *use, uint64_t *disk_use)
{
    *use = atomic_load_explicit(&g_cache_use, memory_order_relaxed);
    *disk_use = atomic_load_explicit(&g_cache_disk_use, memory_order_relaxed);
}

int binlog_trx_cache_errno(const binlog_trx_t *t) { return t->spill_errno; }

uint64_t binlog_trx_size(const binlog_trx_t *t) { return t->spilled + t->ev.len; }

/* A transaction ends (committed, rolled back or dropped): the counters, and its file goes. */
static void cache_end(binlog_trx_t *t)
{
    if (t->kind == BINLOG_TRX_ROWS && (t->ev.len || t->spilled)) {
        atomic_fetch_add_explicit(&g_cache_use, 1, memory_order_relaxed);
        if (t->used_file)
            atomic_fetch_add_explicit(&g_cache_disk_use, 1, memory_order_relaxed);
    }
    if (t->spill_fd >= 0)
        close(t->spill_fd);
    t->spill_fd = -1;
    t->spilled = 0;
    t->used_file = false;
    t->maps_spilled = false;
}

static int spill_open(binlog_trx_t *t)
{
    char path[sizeof g_tmpdir + 32];
    snprintf(path, sizeof path, "%s/strata-binlog-XXXXXX", g_tmpdir);
    int rc = fault_check(FIO_TEMP, FIO_OPEN);
    int fd = rc ? -1 : mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        t->spill_errno = rc ? -rc : errno;
        log_error("binlog cache: cannot create a temporary file in %s: %s", g_tmpdir, strerror(t->spill_errno));
        return BINLOG_ECACHEWRITE;
    }
    unlink(path); /* gone with the transaction or the process, whatever happens */
    t->spill_fd = fd;
    t->used_file = true;
    return 0;
}

/* The front of ev that no later change moves or patches: everything before the last closed rows event of the
 * statement (its STMT_END_F is set at statement end) and the open one (its length is set when it closes).  The
 * statement's TABLE_MAP insertion point may go with it: a table first touched later then starts a new group of
 * maps (map_add). */
static int spill(binlog_trx_t *t)
{
    size_t cut = t->ev.len;
    if (t->last_rows_at < cut)
        cut = t->last_rows_at;
    if (t->rows_at < cut)
        cut = t->rows_at;
    if (cut == 0)
        return 0;
    if (t->spill_fd < 0) {
        int rc = spill_open(t);
        if (rc)
            return rc;
    }
    int rc = fio_pwrite(FIO_TEMP, t->spill_fd, t->ev.data, cut, (int64_t)t->spilled);
    if (rc) {
        t->spill_errno = -rc;
        log_error("binlog cache: writing a temporary file in %s: %s", g_tmpdir, strerror(-rc));
        return BINLOG_ECACHEWRITE; /* nothing moved: the events in memory are as they were */
    }
    t->spilled += cut;
    buf_consume(&t->ev, cut);
    if (t->rows_at != SIZE_MAX)
        t->rows_at -= cut;
    if (t->last_rows_at != SIZE_MAX)
        t->last_rows_at -= cut;
    if (t->maps_at != SIZE_MAX) {
        if (t->maps_at < cut) {
            t->maps_at = SIZE_MAX;
            t->maps_spilled = true;
        } else {
            t->maps_at -= cut;
        }
    }
    return 0;
}

/* Before n more bytes go in: the max_binlog_cache_size bound, then room in memory. */
static int cache_room(binlog_trx_t *t, size_t n)
{
    if (t->spilled + t->ev.len + n > atomic_load_explicit(&g_max_cache_size, memory_order_relaxed))
        return BINLOG_ECACHEFULL;
    if (t->ev.len + n > atomic_load_explicit(&g_cache_size, memory_order_relaxed))
        return spill(t);
    return 0;
}

void binlog_trx_init(binlog_trx_t *t, binlog_trx_kind_t kind)
{
    memset(t, 0, sizeof *t);
    buf_init(&t->ev);
    t->spill_fd = -1;
    t->kind = kind;
    t->rows_at = SIZE_MAX;
    t->last_rows_at = SIZE_MAX;
    t->maps_at = SIZE_MAX;
    binlog_query_ctx_default(&t->qctx);
}

void binlog_trx_free(binlog_trx_t *t)
{
    cache_end(t);
    buf_free(&t->ev);
    mem_free(t->mapped);
    memset(t, 0, sizeof *t);
}

/* What a session's event buffer keeps between transactions: one large transaction must not pin its size on an
 * idle connection (3,000 connections x one big LOAD DATA each). */
#define TRX_EV_KEEP (256u << 10)

void binlog_trx_reset(binlog_trx_t *t, binlog_trx_kind_t kind)
{
    cache_end(t);
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
    return t->ev.len == 0 && t->spilled == 0;
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
    t->maps_spilled = false;
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
    if (t->maps_spilled) {
        /* The statement's maps and rows before this point are in the file: they become a statement of their own
         * (STMT_END_F on the last rows event, still in memory) and this map starts the next group, into which
         * the statement's other tables are mapped again as they are touched.  A replica applies the same rows. */
        binlog_trx_stmt_end(t);
    }
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

int binlog_trx_add_row_raw(binlog_trx_t *t, const binlog_table_t *tb, int type, const void *img, size_t len)
{
    /* a rows event header and a table map are at most a few hundred bytes past the image (counted in the bound
     * once they are in) */
    int rc = cache_room(t, len);
    if (rc)
        return rc;
    t->kind = BINLOG_TRX_ROWS;
    rows_prepare(t, tb, type, len);
    buf_append(&t->ev, img, len);
    return 0;
}

int binlog_trx_add_event(binlog_trx_t *t, const void *ev, size_t len)
{
    int rc = cache_room(t, len);
    if (rc)
        return rc;
    t->kind = BINLOG_TRX_ROWS;
    buf_append(&t->ev, ev, len);
    t->nevents++;
    return 0;
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
        rc = binlog_trx_add_row_raw(t, tb, type, row.data, row.len);
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
    return (binlog_trx_mark_t){.len = t->spilled + t->ev.len, .nevents = t->nevents};
}

void binlog_trx_rollback_to(binlog_trx_t *t, binlog_trx_mark_t m)
{
    if (m.len > t->spilled + t->ev.len)
        return;
    if (m.len >= t->spilled) {
        t->ev.len = m.len - t->spilled;
    } else { /* the mark is in the file: what follows it there goes (a cut is never refused) */
        (void)fio_ftruncate(FIO_TEMP, t->spill_fd, m.len);
        t->spilled = m.len;
        t->ev.len = 0;
    }
    t->nevents = m.nevents;
    t->rows_at = SIZE_MAX;
    t->last_rows_at = SIZE_MAX;
    t->maps_at = SIZE_MAX;
    t->maps_spilled = false;
    t->nmapped = 0;
}
