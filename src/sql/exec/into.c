/*
 * SELECT ... INTO @var, ... | INTO OUTFILE 'file' [CHARACTER SET cs] [FIELDS ...] [LINES ...] | INTO DUMPFILE
 * 'file': the SELECT runs as it would for a client (UNION, ORDER BY, LIMIT, locking all the same), into a result
 * sink of this file's instead of the protocol's; the client gets an OK whose affected rows are the rows written.
 *
 * The sink receives rows as text cells with their column definitions, the same bytes the text protocol would
 * send (no conversion to character_set_results: files get the columns' bytes, or the CHARACTER SET clause's).
 *
 *   @vars      the first row's cells become the variables' values, typed from their column (integers, DECIMAL,
 *              DOUBLE; everything else a string in the column's collation), as MariaDB types them; a second row
 *              is 1172 (the first row's values stay assigned, as in MariaDB); none, warning 1329 and the
 *              variables keep their values; a different number of variables and columns is 1222.
 *   OUTFILE    per row: LINES STARTING BY, the fields joined by FIELDS TERMINATED BY, LINES TERMINATED BY.
 *              A field is enclosed by ENCLOSED BY (OPTIONALLY: all but numeric columns); inside it the escape
 *              character escapes itself, the enclosing character (or, not enclosed, the first byte of the
 *              field terminator), the first byte of the line terminator, and NUL (as \0).  NULL is \N (NULL
 *              without an escape character).  Fixed-width rows (both terminator and enclosure empty) are
 *              refused with 1235.
 *   DUMPFILE   one row, its fields' bytes with nothing between them; more rows: 1172 (at the third, as
 *              MariaDB 10.11 counts them: a second row is appended).
 *
 * Files: relative names are under the data directory (its directory of the current database when there is
 * one); secure_file_priv, when set, must contain the file (1290); an existing file
 * is 1086 and is never overwritten (O_EXCL); files are created 0666 under the server's umask.  The FILE
 * privilege is checked by the SELECT's rule (session/priv_stmt.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sql/exec/query_int.h"
#include "sql/exec/file.h"
#include "sql/value/collation.h"
#include "util/util.h"

typedef struct into_sink {
    res_sink_t base;
    sql_exec_ctx_t *x;
    const sql_into_t *in;
    res_col_t *cols;          /* the columns (copied: the sender's array may not outlive the call) */
    int ncols;
    uint64_t rows;
    bool too_many;            /* @vars / DUMPFILE: a second row came */
    bool wrong_count;         /* @vars: columns != variables */
    int fd;                   /* OUTFILE / DUMPFILE */
    const char *path;
    buf_t out;                /* bytes not yet written */
    int werr;                 /* errno of a failed write (0: none) */
    uint16_t conv_to;         /* OUTFILE ... CHARACTER SET: string cells converted to it (0: as they are) */
} into_sink_t;

static void sink_flush(into_sink_t *k)
{
    size_t off = 0;
    while (off < k->out.len && !k->werr) {
        ssize_t n = write(k->fd, k->out.data + off, k->out.len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            k->werr = errno;
            break;
        }
        off += (size_t)n;
    }
    k->out.len = 0;
}

static void sink_columns(res_sink_t *s, const res_col_t *cols, int n)
{
    into_sink_t *k = (into_sink_t *)s;
    k->cols = arena_alloc(k->x->arena, sizeof(res_col_t) * (size_t)(n + 1));
    memcpy(k->cols, cols, sizeof(res_col_t) * (size_t)n);
    k->ncols = n;
    if (k->in->kind == SQL_INTO_VARS && (uint32_t)n != k->in->nvars)
        k->wrong_count = true;
}

static bool col_is_int(const res_col_t *c)
{
    switch (c->type) {
    case MYSQL_TYPE_TINY: case MYSQL_TYPE_SHORT: case MYSQL_TYPE_LONG: case MYSQL_TYPE_LONGLONG:
    case MYSQL_TYPE_INT24: case MYSQL_TYPE_YEAR:
        return true;
    default:
        return false;
    }
}

bool into_col_is_string(const res_col_t *c)
{
    /* MariaDB's STRING_RESULT: everything but numbers (temporal values are enclosed too) */
    switch (c->type) {
    case MYSQL_TYPE_DECIMAL: case MYSQL_TYPE_NEWDECIMAL: case MYSQL_TYPE_FLOAT: case MYSQL_TYPE_DOUBLE:
    case MYSQL_TYPE_BIT: case MYSQL_TYPE_NULL:
        return false;
    default:
        return !col_is_int(c);
    }
}

/* A cell as the value a user variable takes from it. */
static value_t cell_value(sql_exec_ctx_t *x, const res_col_t *c, const res_cell_t *cell)
{
    if (cell->null)
        return value_null();
    char *t = arena_strndup(x->arena, cell->p, cell->len);
    if (col_is_int(c)) {
        if (c->flags & COLF_UNSIGNED)
            return value_uint(strtoull(t, NULL, 10));
        return value_int(strtoll(t, NULL, 10));
    }
    if (c->type == MYSQL_TYPE_NEWDECIMAL || c->type == MYSQL_TYPE_DECIMAL)
        return value_decimal(x->arena, t, cell->len);
    if (c->type == MYSQL_TYPE_DOUBLE || c->type == MYSQL_TYPE_FLOAT)
        return value_double(strtod(t, NULL));
    return value_str(t, cell->len, c->charset ? c->charset : COLL_UTF8MB4_GENERAL_CI);
}

/* One OUTFILE field (export.h's rules, shared with LOAD DATA's reader in load.c). */
static void put_field(into_sink_t *k, const res_col_t *c, const res_cell_t *cell)
{
    const sql_export_t *ex = &k->in->ex;
    buf_t *b = &k->out;
    int esc = ex->escaped.len ? (unsigned char)ex->escaped.p[0] : -1;
    if (cell->null) {
        if (esc >= 0) {
            buf_put_u8(b, (uint8_t)(char)esc);
            buf_put_u8(b, (uint8_t)'N');
        } else {
            buf_append(b, "NULL", 4);
        }
        return;
    }
    const char *p = cell->p;
    size_t len = cell->len;
    if (k->conv_to && into_col_is_string(c) && c->charset != CHARSET_BINARY && c->charset != k->conv_to) {
        size_t bad;
        p = sql_str_convert(k->x->arena, p, len, c->charset, k->conv_to, &len, &bad);
    }
    bool enclose = ex->enclosed.len && (!ex->opt_enclosed || into_col_is_string(c));
    int encl = ex->enclosed.len ? (unsigned char)ex->enclosed.p[0] : -1;
    int fterm = ex->field_term.len ? (unsigned char)ex->field_term.p[0] : -1;
    int lterm = ex->line_term.len ? (unsigned char)ex->line_term.p[0] : -1;
    /* the byte that ends a field: the enclosing character when there is one, else the terminator's first */
    int fsep = encl >= 0 ? encl : fterm;
    if (enclose)
        buf_append(b, ex->enclosed.p, 1);
    if (esc < 0) {
        buf_append(b, p, len);
    } else {
        for (size_t i = 0; i < len; i++) {
            int ch = (unsigned char)p[i];
            if (ch == esc || ch == fsep || (ch == fterm && !enclose) || ch == lterm || ch == 0) {
                buf_put_u8(b, (uint8_t)(char)esc);
                buf_put_u8(b, (uint8_t)ch == 0 ? '0' : (char)ch);
            } else {
                buf_put_u8(b, (uint8_t)(char)ch);
            }
        }
    }
    if (enclose)
        buf_append(b, ex->enclosed.p, 1);
}

static void sink_row(res_sink_t *s, const res_cell_t *cells)
{
    into_sink_t *k = (into_sink_t *)s;
    sql_exec_ctx_t *x = k->x;
    const sql_into_t *in = k->in;
    k->rows++;
    if (k->wrong_count || k->too_many || k->werr)
        return;
    switch (in->kind) {
    case SQL_INTO_VARS:
        if (k->rows > 1) {
            k->too_many = true;
            return;
        }
        for (uint32_t i = 0; i < in->nvars; i++) {
            value_t v = cell_value(x, &k->cols[i], &cells[i]);
            if (x->cb && x->cb->uservar_set)
                x->cb->uservar_set(x->cb_user, in->vars[i], &v);
        }
        return;
    case SQL_INTO_DUMPFILE:
        if (k->rows > 2) { /* MariaDB's select_dump lets a second row through (row_count++ > 1) */
            k->too_many = true;
            return;
        }
        for (int i = 0; i < k->ncols; i++)
            if (!cells[i].null)
                buf_append(&k->out, cells[i].p, cells[i].len);
        sink_flush(k);
        return;
    case SQL_INTO_OUTFILE:
        buf_append(&k->out, in->ex.line_start.p, in->ex.line_start.len);
        for (int i = 0; i < k->ncols; i++) {
            if (i)
                buf_append(&k->out, in->ex.field_term.p, in->ex.field_term.len);
            put_field(k, &k->cols[i], &cells[i]);
        }
        buf_append(&k->out, in->ex.line_term.p, in->ex.line_term.len);
        if (k->out.len >= 65536)
            sink_flush(k);
        return;
    case SQL_INTO_NONE:
        return;
    }
}

static void sink_rows_end(res_sink_t *s, bool more)
{
    (void)s;
    (void)more;
}

static void sink_ok(res_sink_t *s, uint64_t affected, uint64_t last_id, const char *info, bool more)
{
    (void)s; (void)affected; (void)last_id; (void)info; (void)more;
}

static void sink_error(res_sink_t *s) { (void)s; }

int exec_select_into(sql_exec_ctx_t *x, const sql_select_t *sel)
{
    const sql_into_t *in = sel->into;
    into_sink_t k;
    memset(&k, 0, sizeof k);
    k.base.columns = sink_columns;
    k.base.row = sink_row;
    k.base.rows_end = sink_rows_end;
    k.base.ok = sink_ok;
    k.base.error = sink_error;
    k.x = x;
    k.in = in;
    k.fd = -1;
    buf_init(&k.out);
    int rc = 0;
    if (in->kind == SQL_INTO_OUTFILE) {
        const sql_export_t *ex = &in->ex;
        if (ex->enclosed.len > 1 || ex->escaped.len > 1)
            return diag_error(x->diag, ER_WRONG_FIELD_TERMINATORS);
        if (!ex->field_term.len && !ex->enclosed.len)
            return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "fixed-width rows (FIELDS TERMINATED BY '' ENCLOSED BY '')");
        if (ex->charset) {
            int cs = value_charset_default_coll(ex->charset, strlen(ex->charset));
            if (cs < 0)
                return diag_error(x->diag, ER_UNKNOWN_CHARACTER_SET, ex->charset);
            k.conv_to = (uint16_t)cs;
        }
    }
    if (in->kind == SQL_INTO_OUTFILE || in->kind == SQL_INTO_DUMPFILE) {
        if ((rc = exec_file_create(x, in->file, &k.fd, &k.path)) != 0)
            return rc;
    }
    if (in->at_end) /* MariaDB's parser warns; first, before what running the SELECT adds */
        diag_push(x->diag, DIAG_WARNING, ER_WARN_DEPRECATED_SYNTAX, "<select expression> INTO <destination>;",
                  "'SELECT <select list> INTO <destination> FROM...'");
    res_sink_t *keep = x->sink;
    uint16_t keep_coll = x->result_coll;
    bool keep_limit = x->limit_selects;
    x->sink = &k.base;
    x->result_coll = 0;
    x->limit_selects = false; /* sql_select_limit is for result sets the client reads */
    sql_select_t copy = *sel;
    copy.into = NULL;
    rc = exec_select_stmt(x, &copy);
    x->sink = keep;
    x->result_coll = keep_coll;
    x->limit_selects = keep_limit;
    if (k.fd >= 0) {
        if (rc == 0)
            sink_flush(&k);
        if (close(k.fd) != 0 && !k.werr)
            k.werr = errno;
    }
    buf_free(&k.out);
    if (rc)
        return rc;
    if (k.werr)
        return diag_error(x->diag, ER_ERROR_ON_WRITE, k.path, k.werr, strerror(k.werr));
    if (k.wrong_count)
        return diag_error(x->diag, ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT);
    if (k.too_many)
        return diag_error(x->diag, ER_TOO_MANY_ROWS);
    if (in->kind == SQL_INTO_VARS && k.rows == 0)
        diag_push(x->diag, DIAG_WARNING, ER_SP_FETCH_NO_DATA);
    x->row_count = (int64_t)k.rows;
    exec_pend_ok(x, k.rows, NULL);
    return 0;
}
