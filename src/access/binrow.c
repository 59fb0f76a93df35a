/*
 * binrow: catalog tables and stored row values as binlog row events (binrow.h has the mapping and the life cycle).
 *
 * The binlog description of a table (binlog_table_t with its columns) is built once per table definition and
 * kept in the session's small cache, keyed by the catalog's table id and definition version: a definition never
 * changes under a version, and the binlog table id is derived from both so that a replica re-reads the TABLE_MAP
 * after ALTER TABLE.
 */
#include <string.h>
#include <time.h>

#include "access/binrow.h"
#include "util/util.h"

enum { BINROW_CACHE = 8 };

typedef struct binrow_tdesc {
    uint64_t cat_id, version;
    binlog_table_t tb;
    binlog_col_t *cols;
} binrow_tdesc_t;

struct binrow_log {
    binlog_trx_t trx;
    const char *query;
    size_t query_len;
    bool in_stmt;        /* the current statement has written an event */
    binlog_trx_mark_t mark;
    binrow_tdesc_t cache[BINROW_CACHE];
    uint32_t next_victim;
    binlog_value_t *vals; /* scratch for one image */
    uint32_t capvals;
};

binrow_log_t *binrow_log_new(void)
{
    binrow_log_t *l = mem_calloc(1, sizeof *l);
    binlog_trx_init(&l->trx, BINLOG_TRX_ROWS);
    return l;
}

void binrow_log_free(binrow_log_t *l)
{
    if (!l)
        return;
    binlog_trx_free(&l->trx);
    for (uint32_t i = 0; i < BINROW_CACHE; i++) {
        mem_free(l->cache[i].cols);
        mem_free((char *)l->cache[i].tb.db);
        mem_free((char *)l->cache[i].tb.name);
    }
    mem_free(l->vals);
    mem_free(l);
}

binlog_trx_t *binrow_trx(binrow_log_t *l) { return &l->trx; }

void binrow_reset(binrow_log_t *l)
{
    binlog_trx_reset(&l->trx, BINLOG_TRX_ROWS);
    l->in_stmt = false;
    l->query = NULL;
    l->query_len = 0;
}

bool binrow_empty(const binrow_log_t *l) { return binlog_trx_empty(&l->trx); }

void binrow_stmt_start(binrow_log_t *l, const char *query, size_t len)
{
    l->query = query;
    l->query_len = len;
    l->in_stmt = false;
}

void binrow_stmt_end(binrow_log_t *l)
{
    if (l->in_stmt)
        binlog_trx_stmt_end(&l->trx);
    l->in_stmt = false;
    l->query = NULL;
}

void binrow_stmt_undo(binrow_log_t *l)
{
    if (l->in_stmt)
        binlog_trx_rollback_to(&l->trx, l->mark);
    l->in_stmt = false;
    l->query = NULL;
}

void binrow_stmt_no_fk_checks(binrow_log_t *l, bool off) { l->trx.rows_flags = off ? BINLOG_ROWS_NO_FK_CHECKS : 0; }

int binrow_cache_errno(const binrow_log_t *l) { return binlog_trx_cache_errno(&l->trx); }

binlog_trx_mark_t binrow_savepoint(binrow_log_t *l) { return binlog_trx_mark(&l->trx); }

void binrow_rollback_to(binrow_log_t *l, binlog_trx_mark_t m)
{
    binlog_trx_rollback_to(&l->trx, m);
    l->in_stmt = false;
}

/* ---- columns ---- */

binlog_col_t binrow_col(const cat_column_t *c)
{
    const rc_col_t *r = &c->rc;
    uint32_t mb = r->coll == COLL_BINARY ? 1 : value_coll_mbmaxlen(r->coll);
    binlog_col_t b;
    switch ((sqlt_t)r->type) {
    case SQLT_TINYINT: b = binlog_col(BINLOG_T_TINY, 0, 0, r->nullable); break;
    case SQLT_SMALLINT: b = binlog_col(BINLOG_T_SHORT, 0, 0, r->nullable); break;
    case SQLT_MEDIUMINT: b = binlog_col(BINLOG_T_INT24, 0, 0, r->nullable); break;
    case SQLT_INT: b = binlog_col(BINLOG_T_LONG, 0, 0, r->nullable); break;
    case SQLT_BIGINT: b = binlog_col(BINLOG_T_LONGLONG, 0, 0, r->nullable); break;
    case SQLT_DECIMAL: b = binlog_col(BINLOG_T_NEWDECIMAL, (uint16_t)r->len, r->scale, r->nullable); break;
    case SQLT_FLOAT: b = binlog_col(BINLOG_T_FLOAT, 0, 0, r->nullable); break;
    case SQLT_DOUBLE: b = binlog_col(BINLOG_T_DOUBLE, 0, 0, r->nullable); break;
    case SQLT_BIT: b = binlog_col(BINLOG_T_BIT, (uint16_t)(r->len ? r->len : 1), 0, r->nullable); break;
    case SQLT_CHAR: case SQLT_BINARY:
        b = binlog_col(BINLOG_T_STRING, (uint16_t)MIN(r->len * mb, 1020u), 0, r->nullable);
        break;
    case SQLT_VARCHAR: case SQLT_VARBINARY:
        b = binlog_col(BINLOG_T_VARCHAR, (uint16_t)MIN((uint64_t)r->len * mb, 65535u), 0, r->nullable);
        break;
    case SQLT_TINYTEXT: case SQLT_TINYBLOB: b = binlog_col(BINLOG_T_BLOB, 1, 0, r->nullable); break;
    case SQLT_TEXT: case SQLT_BLOB: b = binlog_col(BINLOG_T_BLOB, 2, 0, r->nullable); break;
    case SQLT_MEDIUMTEXT: case SQLT_MEDIUMBLOB: b = binlog_col(BINLOG_T_BLOB, 3, 0, r->nullable); break;
    case SQLT_LONGTEXT: case SQLT_LONGBLOB: b = binlog_col(BINLOG_T_BLOB, 4, 0, r->nullable); break;
    case SQLT_DATE: b = binlog_col(BINLOG_T_DATE, 0, 0, r->nullable); break;
    case SQLT_DATETIME: b = binlog_col(BINLOG_T_DATETIME2, 0, r->scale, r->nullable); break;
    case SQLT_TIMESTAMP: b = binlog_col(BINLOG_T_TIMESTAMP2, 0, r->scale, r->nullable); break;
    case SQLT_TIME: b = binlog_col(BINLOG_T_TIME2, 0, r->scale, r->nullable); break;
    case SQLT_YEAR: b = binlog_col(BINLOG_T_YEAR, 0, 0, r->nullable); break;
    case SQLT_ENUM: b = binlog_col(BINLOG_T_ENUM, c->nelems > 255 ? 2 : 1, 0, r->nullable); break;
    case SQLT_SET: b = binlog_col(BINLOG_T_SET, (uint16_t)(c->nelems ? (c->nelems + 7) / 8 : 1), 0, r->nullable); break;
    default: b = binlog_col(BINLOG_T_BLOB, 4, 0, r->nullable); break;
    }
    b.is_unsigned = r->is_unsigned;
    return b;
}

static const binrow_tdesc_t *tdesc(binrow_log_t *l, const cat_table_t *t)
{
    for (uint32_t i = 0; i < BINROW_CACHE; i++)
        if (l->cache[i].cols && l->cache[i].cat_id == t->id && l->cache[i].version == t->version)
            return &l->cache[i];
    binrow_tdesc_t *d = &l->cache[l->next_victim++ % BINROW_CACHE];
    mem_free(d->cols);
    mem_free((char *)d->tb.db);
    mem_free((char *)d->tb.name);
    d->cat_id = t->id;
    d->version = t->version;
    d->cols = mem_calloc(t->ncols ? t->ncols : 1, sizeof *d->cols);
    for (uint32_t i = 0; i < t->ncols; i++)
        d->cols[i] = binrow_col(&t->cols[i]);
    d->tb.id = ((t->id & 0xffffffull) << 24 | (t->version & 0xffffffull)) & 0xffffffffffffull;
    d->tb.db = mem_strdup(t->db);
    d->tb.name = mem_strdup(t->name);
    d->tb.ncols = t->ncols;
    d->tb.cols = d->cols;
    return d;
}

/* ---- values ---- */

static void tm_from(binlog_tm_t *tm, const sql_time_t *t)
{
    tm->year = (int)t->year;
    tm->month = (int)t->month;
    tm->day = (int)t->day;
    tm->hour = (int)t->hour;
    tm->minute = (int)t->minute;
    tm->second = (int)t->second;
    tm->usec = (int)t->usec;
    tm->neg = t->neg;
}

binlog_value_t binrow_value(const cat_column_t *c, const value_t *v)
{
    binlog_value_t b;
    memset(&b, 0, sizeof b);
    if (v->type == VAL_NULL) {
        b.is_null = true;
        return b;
    }
    switch ((sqlt_t)c->rc.type) {
    case SQLT_TINYINT: case SQLT_SMALLINT: case SQLT_MEDIUMINT: case SQLT_INT: case SQLT_BIGINT:
    case SQLT_BIT: case SQLT_ENUM: case SQLT_SET: case SQLT_YEAR:
        if (v->type == VAL_INT || v->type == VAL_UINT)
            b.u = v->u; /* same bits either way */
        else
            b.i = value_to_int(v, NULL);
        break;
    case SQLT_FLOAT: case SQLT_DOUBLE:
        b.d = v->type == VAL_DOUBLE ? v->d : value_to_double(v, NULL);
        break;
    case SQLT_DATE: case SQLT_DATETIME: case SQLT_TIME:
        tm_from(&b.tm, &v->t);
        break;
    case SQLT_TIMESTAMP: {
        /* stored as the server's wall time (time_zone=SYSTEM); the row format wants epoch seconds */
        tm_from(&b.tm, &v->t);
        if (v->t.year == 0) {
            b.i = 0;
            break;
        }
        struct tm tm = {.tm_year = (int)v->t.year - 1900, .tm_mon = (int)v->t.month - 1, .tm_mday = (int)v->t.day,
                        .tm_hour = (int)v->t.hour, .tm_min = (int)v->t.minute, .tm_sec = (int)v->t.second,
                        .tm_isdst = -1};
        time_t s = mktime(&tm);
        b.i = s < 0 ? 0 : (int64_t)s;
        break;
    }
    default: /* strings and DECIMAL text */
        if (v->type == VAL_STRING || v->type == VAL_DECIMAL) {
            b.s = v->s.ptr;
            b.len = v->s.len;
        }
        break;
    }
    return b;
}

static const binlog_value_t *image(binrow_log_t *l, const cat_table_t *t, const value_t *row, uint32_t off)
{
    if (l->capvals < 2 * t->ncols) {
        l->capvals = 2 * t->ncols;
        l->vals = mem_realloc(l->vals, l->capvals * sizeof *l->vals);
    }
    for (uint32_t i = 0; i < t->ncols; i++)
        l->vals[off + i] = binrow_value(&t->cols[i], &row[i]);
    return l->vals + off;
}

/* NULL when the table is not logged (TEMPORARY tables live in the hidden '#' databases). */
static const binrow_tdesc_t *begin_row(binrow_log_t *l, const cat_table_t *t)
{
    if (t->db && t->db[0] == '#')
        return NULL;
    if (!l->in_stmt) {
        l->mark = binlog_trx_mark(&l->trx);
        binlog_trx_stmt_begin(&l->trx, l->query, l->query ? l->query_len : 0);
        l->in_stmt = true;
    }
    return tdesc(l, t);
}

int binrow_insert(binrow_log_t *l, const cat_table_t *t, const value_t *row)
{
    const binrow_tdesc_t *d = begin_row(l, t);
    return d ? binlog_trx_write_row(&l->trx, &d->tb, image(l, t, row, 0)) : 0;
}

int binrow_update(binrow_log_t *l, const cat_table_t *t, const value_t *before, const value_t *after)
{
    const binrow_tdesc_t *d = begin_row(l, t);
    if (!d)
        return 0;
    const binlog_value_t *a = image(l, t, before, 0);
    const binlog_value_t *b = image(l, t, after, t->ncols);
    return binlog_trx_update_row(&l->trx, &d->tb, a, b);
}

int binrow_delete(binrow_log_t *l, const cat_table_t *t, const value_t *row)
{
    const binrow_tdesc_t *d = begin_row(l, t);
    return d ? binlog_trx_delete_row(&l->trx, &d->tb, image(l, t, row, 0)) : 0;
}
