/*
 * libFuzzer target for LOAD DATA's field and line reader (sql/exec/loadfmt.c).  The first input bytes choose the
 * FIELDS / LINES options (terminators of one to three bytes, an enclosing and an escape character or none, a
 * line prefix), the rest is the file, handed to the reader in pieces of varying sizes as the client's packets
 * would be.  Every line is read to the end; each field must lie inside the line's data, and the reader must
 * finish: every call either consumes input or reports the end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec/loadfmt.h"
#include "util/util.h"

typedef struct feed {
    const uint8_t *p;
    size_t n, off;
    uint8_t step;
} feed_t;

static int fill(void *arg, buf_t *b)
{
    feed_t *f = arg;
    if (f->off >= f->n)
        return 0;
    size_t k = 1 + (f->step++ % 7) * 37; /* pieces of 1 to 223 bytes */
    if (k > f->n - f->off)
        k = f->n - f->off;
    buf_append(b, f->p + f->off, k);
    f->off += k;
    return 1;
}

static sql_bytes_t take(const uint8_t **p, size_t *n, size_t maxlen, const char *dflt)
{
    if (!*n)
        return (sql_bytes_t){dflt, strlen(dflt)};
    size_t len = (size_t)(**p % (maxlen + 1));
    (*p)++;
    (*n)--;
    if (len > *n)
        len = *n;
    sql_bytes_t b = {(const char *)*p, len};
    *p += len;
    *n -= len;
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data;
    size_t n = size;
    sql_export_t ex;
    memset(&ex, 0, sizeof ex);
    ex.field_term = take(&p, &n, 3, "\t");
    ex.enclosed = take(&p, &n, 1, "");
    ex.escaped = take(&p, &n, 1, "\\");
    ex.line_start = take(&p, &n, 2, "");
    ex.line_term = take(&p, &n, 3, "\n");
    if (!ex.field_term.len && !ex.enclosed.len)
        ex.field_term = (sql_bytes_t){"\t", 1};
    feed_t f = {.p = p, .n = n};
    loadfmt_t r;
    loadfmt_init(&r, &ex, fill, &f);
    if (n && (p[0] & 1))
        loadfmt_skip_line(&r);
    uint64_t rows = 0;
    while (loadfmt_row(&r) == 1) {
        for (uint32_t i = 0; i < r.nf; i++)
            if (r.f[i].off + r.f[i].len > r.data.len)
                abort();
        if (++rows > size + 1) /* a line needs at least one byte of input */
            abort();
    }
    loadfmt_free(&r);
    return 0;
}
