/*
 * LOAD DATA's field and line reader (loadfmt.h has the format).  The input is kept in one buffer that the fill
 * callback appends to; bytes before pos are dropped once enough of them accumulate, so memory stays at about one
 * line plus one fill.
 */
#include <string.h>
#include "sql/exec/loadfmt.h"
#include "util/util.h"

#define LOADFMT_EOF (-1)

void loadfmt_init(loadfmt_t *r, const sql_export_t *ex, loadfmt_fill_fn fill, void *arg)
{
    memset(r, 0, sizeof *r);
    r->fterm = (const uint8_t *)ex->field_term.p;
    r->fterm_len = ex->field_term.len;
    r->lterm = (const uint8_t *)ex->line_term.p;
    r->lterm_len = ex->line_term.len;
    r->lstart = (const uint8_t *)ex->line_start.p;
    r->lstart_len = ex->line_start.len;
    r->encl = ex->enclosed.len ? (uint8_t)ex->enclosed.p[0] : -1;
    r->esc = ex->escaped.len ? (uint8_t)ex->escaped.p[0] : -1;
    r->fill = fill;
    r->arg = arg;
    buf_init(&r->in);
    buf_init(&r->data);
}

void loadfmt_free(loadfmt_t *r)
{
    buf_free(&r->in);
    buf_free(&r->data);
    mem_free(r->f);
    r->f = NULL;
}

/* Makes n bytes from pos available if the input has them: true when it does. */
static bool have(loadfmt_t *r, size_t n)
{
    while (r->in.len - r->pos < n) {
        if (r->in_eof)
            return false;
        if (r->pos >= 65536 && r->pos * 2 >= r->in.len) {
            memmove(r->in.data, r->in.data + r->pos, r->in.len - r->pos);
            r->in.len -= r->pos;
            r->pos = 0;
        }
        int rc = r->fill(r->arg, &r->in);
        if (rc <= 0) {
            r->in_eof = true;
            if (rc < 0)
                r->err = rc;
        }
    }
    return true;
}

static int get(loadfmt_t *r)
{
    if (!have(r, 1))
        return LOADFMT_EOF;
    return r->in.data[r->pos++];
}

/* Does the input at pos continue with the rest of term (its first byte was just read)?  Consumes it if so. */
static bool rest_is(loadfmt_t *r, const uint8_t *term, size_t len)
{
    if (len <= 1)
        return true;
    if (!have(r, len - 1))
        return false;
    if (memcmp(r->in.data + r->pos, term + 1, len - 1) != 0)
        return false;
    r->pos += len - 1;
    return true;
}

static int unescape(int ch, bool *null)
{
    switch (ch) {
    case '0': return 0;
    case 'b': return '\b';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'Z': return 26;
    case 'N': *null = true; return 'N';
    default: return ch;
    }
}

static loadfmt_field_t *new_field(loadfmt_t *r)
{
    if (r->nf == r->capf) {
        r->capf = r->capf ? r->capf * 2 : 16;
        r->f = mem_realloc(r->f, sizeof *r->f * r->capf);
    }
    loadfmt_field_t *f = &r->f[r->nf++];
    memset(f, 0, sizeof *f);
    f->off = r->data.len;
    return f;
}

static void put(loadfmt_t *r, int ch) { buf_put_u8(&r->data, (uint8_t)ch); }

/* One field: 0 more fields follow on the line, 1 the line ended (terminator or end of input). */
static int read_field(loadfmt_t *r)
{
    loadfmt_field_t *f = new_field(r);
    bool esc_null = false;
    int enc = -1;
    size_t fi = r->nf - 1;
    if (r->encl >= 0 && have(r, 1) && r->in.data[r->pos] == (uint8_t)r->encl) {
        r->pos++;
        enc = r->encl;
        f->enclosed = true;
    }
    int ended = 1;
    for (;;) {
        int ch = get(r);
        if (ch == LOADFMT_EOF) {
            r->f[fi].enclosed = false; /* an enclosure the input ended in: its text, as MariaDB */
            break;
        }
        if (r->esc >= 0 && ch == r->esc) {
            int n = get(r);
            if (n == LOADFMT_EOF) {
                put(r, r->esc);
                break;
            }
            /* an escape that is also the enclosing character works as SQL's doubled quote */
            if (r->esc != r->encl || n == r->esc) {
                put(r, unescape(n, &esc_null));
                continue;
            }
            r->pos--; /* n is read again below */
        }
        if (enc < 0 && r->lterm_len && ch == r->lterm[0] && rest_is(r, r->lterm, r->lterm_len))
            break;
        if (enc >= 0 && ch == enc) {
            int n = get(r);
            if (n == enc) {
                put(r, enc);
                continue;
            }
            if (n == LOADFMT_EOF)
                break;
            if (r->lterm_len && n == r->lterm[0] && rest_is(r, r->lterm, r->lterm_len))
                break;
            if (r->fterm_len && n == r->fterm[0] && rest_is(r, r->fterm, r->fterm_len)) {
                ended = 0;
                break;
            }
            r->pos--; /* a lone enclosing character: data */
            put(r, enc);
            continue;
        }
        if (enc < 0 && r->fterm_len && ch == r->fterm[0] && rest_is(r, r->fterm, r->fterm_len)) {
            ended = 0;
            break;
        }
        put(r, ch);
    }
    f = &r->f[fi];
    f->len = r->data.len - f->off;
    if (!f->enclosed && ((f->len == 1 && esc_null) ||
                         (r->encl >= 0 && f->len == 4 && memcmp(r->data.data + f->off, "NULL", 4) == 0)))
        f->null = true;
    return ended;
}

/* Skips to just after LINES STARTING BY: true when found, false at the end of the input. */
static bool find_line_start(loadfmt_t *r)
{
    for (;;) {
        int ch = get(r);
        if (ch == LOADFMT_EOF)
            return false;
        if (ch == r->lstart[0] && rest_is(r, r->lstart, r->lstart_len))
            return true;
    }
}

int loadfmt_row(loadfmt_t *r)
{
    r->nf = 0;
    r->data.len = 0;
    if (!have(r, 1))
        return r->err ? r->err : 0;
    if (r->lstart_len && !find_line_start(r))
        return r->err ? r->err : 0;
    while (read_field(r) == 0)
        ;
    r->lines++;
    return r->err ? r->err : 1;
}

int loadfmt_skip_line(loadfmt_t *r)
{
    if (!have(r, 1))
        return r->err ? r->err : 0;
    for (;;) {
        int ch = get(r);
        if (ch == LOADFMT_EOF)
            break;
        if (r->esc >= 0 && ch == r->esc) {
            if (get(r) == LOADFMT_EOF)
                break;
            continue;
        }
        if (r->lterm_len && ch == r->lterm[0] && rest_is(r, r->lterm, r->lterm_len))
            break;
    }
    r->lines++;
    return r->err ? r->err : 1;
}
