/*
 * binapply: binlog row events -> table.c operations (binapply.h has the rules).  Values come from the decoder
 * (binlog/rowdec.c) as binlog_value_t and go back to the column's domain through table_value_store(), as an
 * INSERT's values would, so the stored bytes are those binrow.c's images were taken from.
 */
#include <string.h>
#include <time.h>

#include "access/binapply.h"
#include "access/binrow.h"
#include "access/fk.h"
#include "access/table.h"
#include "util/util.h"

enum { BINAPPLY_TABLES = 64 };

typedef struct ba_table {
    uint64_t map_id;
    cat_table_t *t;
} ba_table_t;

struct binapply {
    catalog_t *cat;
    binlog_rowdec_t *dec;
    ba_table_t tabs[BINAPPLY_TABLES];
    uint32_t ntabs;
    engine_trx_t *x;
    diag_t *d;
    arena_t a;
    uint64_t ins, upd, del;
    bool no_fk;              /* the current rows event has NO_FOREIGN_KEY_CHECKS */
};

binapply_t *binapply_new(catalog_t *cat)
{
    binapply_t *a = mem_calloc(1, sizeof *a);
    a->cat = cat;
    a->dec = binlog_rowdec_new();
    arena_init(&a->a, 16384);
    return a;
}

static void tabs_release(binapply_t *a)
{
    for (uint32_t i = 0; i < a->ntabs; i++)
        catalog_table_release(a->tabs[i].t);
    a->ntabs = 0;
}

void binapply_free(binapply_t *a)
{
    if (!a)
        return;
    tabs_release(a);
    binlog_rowdec_free(a->dec);
    arena_destroy(&a->a);
    mem_free(a);
}

void binapply_counts(const binapply_t *a, uint64_t *ins, uint64_t *upd, uint64_t *del)
{
    *ins = a->ins;
    *upd = a->upd;
    *del = a->del;
}

/* The catalog table a TABLE_MAP names, checked column by column against the map. */
static int table_for(binapply_t *a, const binlog_table_t *m, cat_table_t **out)
{
    for (uint32_t i = 0; i < a->ntabs; i++)
        if (a->tabs[i].map_id == m->id) {
            *out = a->tabs[i].t;
            return 0;
        }
    cat_table_t *t = catalog_table_get(a->cat, m->db, m->name);
    if (!t)
        return diag_error(a->d, ER_NO_SUCH_TABLE, m->db, m->name);
    bool same = t->ncols == m->ncols;
    for (uint32_t i = 0; same && i < t->ncols; i++) {
        binlog_col_t c = binrow_col(&t->cols[i]);
        uint8_t ty, tym, meta[2], metam[2];
        int n = binlog_col_map(&c, &ty, meta), nm = binlog_col_map(&m->cols[i], &tym, metam);
        same = ty == tym && n == nm && memcmp(meta, metam, (size_t)n) == 0;
    }
    if (!same) {
        catalog_table_release(t);
        log_error("binapply: the row events of `%s`.`%s` were logged against another definition of the table",
                  m->db, m->name);
        return STRATA_EPROTO;
    }
    if (a->ntabs == BINAPPLY_TABLES) {
        catalog_table_release(t);
        return STRATA_EPROTO;
    }
    a->tabs[a->ntabs++] = (ba_table_t){.map_id = m->id, .t = t};
    *out = t;
    return 0;
}

static void tm_to(sql_time_t *t, const binlog_tm_t *tm)
{
    t->year = (uint32_t)tm->year;
    t->month = (uint32_t)tm->month;
    t->day = (uint32_t)tm->day;
    t->hour = (uint32_t)tm->hour;
    t->minute = (uint32_t)tm->minute;
    t->second = (uint32_t)tm->second;
    t->usec = (uint32_t)tm->usec;
    t->neg = tm->neg;
}

/* A decoded value as an input value_t for column c (the inverse of binrow_value). */
static value_t input_value(const cat_column_t *c, const binlog_value_t *b)
{
    value_t v;
    memset(&v, 0, sizeof v);
    if (b->is_null)
        return value_null();
    const rc_col_t *r = &c->rc;
    int width = 8;
    switch ((sqlt_t)r->type) {
    case SQLT_TINYINT: width = 1; goto integer;
    case SQLT_SMALLINT: width = 2; goto integer;
    case SQLT_MEDIUMINT: width = 3; goto integer;
    case SQLT_INT: width = 4; goto integer;
    case SQLT_BIGINT:
    integer:
        if (r->is_unsigned)
            return value_uint(width == 8 ? (uint64_t)b->i : (uint64_t)b->i & ((1ull << (8 * width)) - 1));
        return value_int(b->i);
    case SQLT_BIT: case SQLT_ENUM: case SQLT_SET:
        return value_uint(b->u);
    case SQLT_YEAR:
        return value_uint((uint64_t)b->i);
    case SQLT_FLOAT: case SQLT_DOUBLE:
        return value_double(b->d);
    case SQLT_DECIMAL:
        v.type = VAL_DECIMAL;
        v.dec = r->scale;
        v.s.ptr = b->s;
        v.s.len = b->len;
        return v;
    case SQLT_DATE:
        v.type = VAL_DATE;
        tm_to(&v.t, &b->tm);
        return v;
    case SQLT_DATETIME:
        v.type = VAL_DATETIME;
        v.dec = r->scale;
        tm_to(&v.t, &b->tm);
        return v;
    case SQLT_TIME:
        v.type = VAL_TIME;
        v.dec = r->scale;
        tm_to(&v.t, &b->tm);
        return v;
    case SQLT_TIMESTAMP: {
        /* epoch seconds back to the server's wall time (binrow_value's inverse); 0 is the zero timestamp */
        v.type = VAL_TIMESTAMP;
        v.dec = r->scale;
        if (b->i == 0)
            return v;
        time_t s = (time_t)b->i;
        struct tm tm;
        localtime_r(&s, &tm);
        v.t.year = (uint32_t)tm.tm_year + 1900;
        v.t.month = (uint32_t)tm.tm_mon + 1;
        v.t.day = (uint32_t)tm.tm_mday;
        v.t.hour = (uint32_t)tm.tm_hour;
        v.t.minute = (uint32_t)tm.tm_min;
        v.t.second = (uint32_t)tm.tm_sec;
        v.t.usec = (uint32_t)b->tm.usec;
        return v;
    }
    default: /* strings in the column's collation (the images carry the stored bytes) */
        return value_str(b->s ? b->s : "", b->len, r->coll);
    }
}

/* A whole image as stored values (row[ncols], in the arena). */
static int stored_row(binapply_t *a, const cat_table_t *t, const binlog_value_t *img, value_t *row)
{
    for (uint32_t i = 0; i < t->ncols; i++) {
        value_t in = input_value(&t->cols[i], &img[i]);
        int rc = table_value_store(t, i, &in, &row[i], &a->a, a->d, true, 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* The row-format bytes of a stored row, to compare a candidate with a before image (tables without a PK). */
static int image_bytes(const cat_table_t *t, const value_t *row, buf_t *out)
{
    binlog_col_t *cols = mem_calloc(t->ncols, sizeof *cols);
    binlog_value_t *vals = mem_calloc(t->ncols, sizeof *vals);
    for (uint32_t i = 0; i < t->ncols; i++) {
        cols[i] = binrow_col(&t->cols[i]);
        vals[i] = binrow_value(&t->cols[i], &row[i]);
    }
    binlog_table_t tb = {.ncols = t->ncols, .cols = cols};
    buf_reset(out);
    int rc = binlog_row_encode(out, &tb, vals);
    mem_free(cols);
    mem_free(vals);
    return rc;
}

/* Finds the row equal to `before`: its clustered key into pk and its stored values into cur. */
static int find_row(binapply_t *a, const cat_table_t *t, const value_t *before, buf_t *pk, buf_t *store,
                    value_t *cur)
{
    int rc;
    if (t->has_pk) {
        buf_reset(pk);
        if ((rc = table_pk_key(t, before, 0, pk)))
            return rc;
        return table_get(a->x, t, pk->data, pk->len, store, cur);
    }
    buf_t want, have;
    buf_init(&want);
    buf_init(&have);
    table_scan_t s;
    if ((rc = image_bytes(t, before, &want)) || (rc = table_scan_open(&s, a->x, t, -1, NULL, NULL, false, &a->a))) {
        buf_free(&want);
        return rc;
    }
    while ((rc = table_scan_next(&s)) == 0) {
        if ((rc = image_bytes(t, s.row, &have)))
            break;
        if (have.len == want.len && memcmp(have.data, want.data, have.len) == 0) {
            buf_reset(pk);
            buf_append(pk, s.pk.data, s.pk.len);
            buf_reset(store);
            buf_append(store, s.rowbuf.data, s.rowbuf.len);
            rc = table_decode(t, store->data, store->len, cur);
            break;
        }
    }
    table_scan_close(&s);
    buf_free(&want);
    buf_free(&have);
    return rc;
}

static int on_row(void *arg, const binlog_table_t *m, binlog_row_op_t op, const binlog_value_t *before,
                  const binlog_value_t *after)
{
    binapply_t *a = arg;
    cat_table_t *t = NULL;
    int rc = table_for(a, m, &t);
    if (rc)
        return rc;
    value_t *b = arena_calloc(&a->a, t->ncols * sizeof *b), *af = arena_calloc(&a->a, t->ncols * sizeof *af);
    value_t *cur = arena_calloc(&a->a, t->ncols * sizeof *cur);
    table_stmt_t u = {0}; /* u.bl stays NULL: nothing is logged again */
    /* the source logged only the rows its statements named: the cascades of its foreign keys happen here */
    table_fk_t fk = {.cat = a->cat, .checks = !a->no_fk};
    u.fk = &fk;
    buf_t pk, store;
    buf_init(&pk);
    buf_init(&store);
    if (before && (rc = stored_row(a, t, before, b)))
        goto out;
    if (after && (rc = stored_row(a, t, after, af)))
        goto out;
    int ai = cat_table_autoinc_col(t);
    if (after && ai >= 0 && (af[ai].type == VAL_INT || af[ai].type == VAL_UINT))
        /* the counter was loaded before these rows came back: it moves past them as an INSERT's would */
        table_autoinc_seen(t, af[ai].type == VAL_UINT ? af[ai].u : (uint64_t)MAX(af[ai].i, 0));
    if (op == BINLOG_ROW_INSERT) {
        rc = table_insert(a->x, t, af, &u, a->d, NULL);
        a->ins += rc == 0;
        goto out;
    }
    if ((rc = find_row(a, t, b, &pk, &store, cur))) {
        if (rc == STRATA_ENOTFOUND)
            log_error("binapply: the row to %s in `%s`.`%s` is not there", op == BINLOG_ROW_UPDATE ? "update" : "delete",
                      m->db, m->name);
        goto out;
    }
    if (op == BINLOG_ROW_UPDATE) {
        rc = table_update(a->x, t, &pk, cur, af, &u, a->d, NULL);
        a->upd += rc == 0;
    } else {
        rc = table_delete(a->x, t, &pk, cur, &u, a->d);
        a->del += rc == 0;
    }
out:
    buf_free(&pk);
    buf_free(&store);
    return rc;
}

int binapply_event(binapply_t *a, engine_trx_t *x, const binlog_event_t *ev, diag_t *d)
{
    if (ev->type == BINLOG_EV_GTID) {
        tabs_release(a); /* table ids are per transaction */
        arena_reset(&a->a);
    }
    a->x = x;
    a->d = d;
    /* rows written with foreign_key_checks=0 are applied without foreign-key processing, as MariaDB's replica */
    bool rows = ev->type == BINLOG_EV_WRITE_ROWS_V1 || ev->type == BINLOG_EV_UPDATE_ROWS_V1 ||
                ev->type == BINLOG_EV_DELETE_ROWS_V1 || ev->type == BINLOG_EV_WRITE_ROWS_V2 ||
                ev->type == BINLOG_EV_UPDATE_ROWS_V2 || ev->type == BINLOG_EV_DELETE_ROWS_V2;
    if (rows && ev->size >= BINLOG_HEADER_LEN + 8)
        a->no_fk = (ev->data[BINLOG_HEADER_LEN + 6] | ev->data[BINLOG_HEADER_LEN + 7] << 8) & BINLOG_ROWS_NO_FK_CHECKS;
    return binlog_rowdec_event(a->dec, ev, on_row, a);
}
