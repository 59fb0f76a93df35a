/*
 * LOAD DATA's field / line reader (sql/exec/loadfmt.c) on MariaDB's rules: escapes, \N, the word NULL, doubled
 * and lone enclosing characters, multi-byte terminators, LINES STARTING BY, IGNORE n LINES, input handed over in
 * one-byte pieces (as a client's packets may cut it anywhere).
 */
#include <string.h>

#include "sql/exec/loadfmt.h"
#include "unit.h"
#include "util/util.h"

typedef struct feed {
    const char *p;
    size_t n, off, piece;
} feed_t;

static int fill(void *arg, buf_t *b)
{
    feed_t *f = arg;
    if (f->off >= f->n)
        return 0;
    size_t k = f->piece ? f->piece : f->n;
    if (k > f->n - f->off)
        k = f->n - f->off;
    buf_append(b, f->p + f->off, k);
    f->off += k;
    return 1;
}

static sql_export_t opts(const char *ft, const char *enc, const char *esc, const char *ls, const char *lt)
{
    sql_export_t ex;
    memset(&ex, 0, sizeof ex);
    ex.field_term = (sql_bytes_t){ft, strlen(ft)};
    ex.enclosed = (sql_bytes_t){enc, strlen(enc)};
    ex.escaped = (sql_bytes_t){esc, strlen(esc)};
    ex.line_start = (sql_bytes_t){ls, strlen(ls)};
    ex.line_term = (sql_bytes_t){lt, strlen(lt)};
    return ex;
}

/* The lines of input as "f1|f2|...;" with NULL as ~ (and the field's bytes otherwise), for every piece size. */
static int lines(const sql_export_t *ex, const char *input, size_t len, int skip, char *out, size_t cap)
{
    char first[512] = "";
    for (size_t piece = 0; piece <= 3; piece++) {
        feed_t f = {input, len, 0, piece};
        loadfmt_t r;
        loadfmt_init(&r, ex, fill, &f);
        for (int i = 0; i < skip; i++)
            loadfmt_skip_line(&r);
        size_t o = 0;
        out[0] = 0;
        while (loadfmt_row(&r) == 1) {
            for (uint32_t i = 0; i < r.nf; i++) {
                if (i)
                    o += (size_t)snprintf(out + o, cap - o, "|");
                if (r.f[i].null)
                    o += (size_t)snprintf(out + o, cap - o, "~");
                else
                    for (size_t k = 0; k < r.f[i].len; k++) {
                        char ch = (char)r.data.data[r.f[i].off + k];
                        o += (size_t)snprintf(out + o, cap - o, ch == 0 ? "<0>" : ch == '\n' ? "<n>" : ch == '\t' ? "<t>" : "%c", ch);
                    }
            }
            o += (size_t)snprintf(out + o, cap - o, ";");
        }
        loadfmt_free(&r);
        if (piece == 0)
            snprintf(first, sizeof first, "%s", out);
        else if (strcmp(first, out) != 0)
            return -1; /* the piece size changed the result */
    }
    return 0;
}

#define LINES(ex, in, skip, want)                                          \
    do {                                                                   \
        char got[512];                                                     \
        CHECK(lines(&(ex), in, sizeof(in) - 1, skip, got, sizeof got) == 0); \
        if (strcmp(got, want) != 0) {                                      \
            fprintf(stderr, "got  %s\nwant %s\n", got, want);              \
            CHECK(strcmp(got, want) == 0);                                 \
        }                                                                  \
    } while (0)

TEST(test_default_format)
{
    sql_export_t ex = opts("\t", "", "\\", "", "\n");
    LINES(ex, "1\tabc\n2\t\\N\t\\0x\n3\tx\\ty\\nz\n\n5\tlast", 0, "1|abc;2|~|<0>x;3|x<t>y<n>z;;5|last;");
    /* \N is NULL only as the whole field; the word NULL is text without ENCLOSED BY */
    LINES(ex, "\\Nx\tNULL\t\\\\N\n", 0, "Nx|NULL|\\N;");
    LINES(ex, "a\\\tb\tc\\\nd\n", 0, "a<t>b|c<n>d;");
    LINES(ex, "head\nline1\nline2\n", 1, "line1;line2;");
}

TEST(test_enclosed)
{
    sql_export_t ex = opts(",", "\"", "\\", "", "\n");
    LINES(ex, "\"a,b\",\"q\"\"uote\",NULL,\"NULL\",\\N\n", 0, "a,b|q\"uote|~|NULL|~;");
    /* a lone enclosing character not followed by a terminator is data; an enclosure the input ends in is text */
    LINES(ex, "\"x\"y\",z\n\"open", 0, "x\"y|z;open;");
    LINES(ex, "\"multi\nline\",2\n", 0, "multi<n>line|2;");
}

TEST(test_terminators_and_starting_by)
{
    sql_export_t ex = opts("||", "'", "\\", "S:", "<eol>\n");
    LINES(ex, "junkS:1||'a|b'||x<eol>\nS:2||y<eol>\nnoprefix<eol>\n", 0, "1|a|b|x;2|y;"); /* a line without the prefix is skipped */
    sql_export_t ex2 = opts(",", "", "", "", "\r\n");
    LINES(ex2, "a,\\N,b\r\nc\rd,e\r\n", 0, "a|\\N|b;c\rd|e;");
}

UNIT_MAIN(test_default_format, test_enclosed, test_terminators_and_starting_by)
