/*
 * The text format of LOAD DATA INFILE (and what SELECT ... INTO OUTFILE writes): lines cut into fields by the
 * FIELDS / LINES options, as MariaDB's READ_INFO reads them.  A pure decoder over bytes handed in by a fill
 * callback (a server file, or the client's packets for LOCAL), so it can be fuzzed on its own
 * (tests/fuzz/fuzz_loadfmt.c).
 *
 *   line    := [anything up to and including LINES STARTING BY] field (FIELDS TERMINATED BY field)* LINES
 *              TERMINATED BY | the end of the input
 *   field   := ENCLOSED BY char ... ENCLOSED BY char | bytes
 *   inside a field the ESCAPED BY character takes the next byte literally, except \0 (NUL), \b, \n, \r, \t,
 *   \Z (Ctrl-Z) and \N, which as the whole field is NULL; an enclosing character inside an enclosed field is
 *   doubled, or stands alone when no terminator follows it; the word NULL, not enclosed, is NULL when ENCLOSED
 *   BY is not empty.  A terminator is recognised only where a field could end (not escaped, not inside an
 *   enclosed field).
 */
#ifndef STRATA_SQL_EXEC_LOADFMT_H
#define STRATA_SQL_EXEC_LOADFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sql/parser/ast.h"
#include "util/buf.h"

/* Appends more input to b: 1 when some was added, 0 at the end of the input, < 0 on a read error. */
typedef int (*loadfmt_fill_fn)(void *arg, buf_t *b);

typedef struct loadfmt_field {
    size_t off, len;          /* in loadfmt_t.data */
    bool null;
    bool enclosed;
} loadfmt_field_t;

typedef struct loadfmt {
    const uint8_t *fterm, *lterm, *lstart;
    size_t fterm_len, lterm_len, lstart_len;
    int encl, esc;            /* the enclosing and escape bytes, -1 when none */
    loadfmt_fill_fn fill;
    void *arg;
    buf_t in;                 /* input not yet consumed from pos on */
    size_t pos;
    bool in_eof;
    int err;                  /* the fill callback's error, once it failed */
    buf_t data;               /* the current line's field bytes */
    loadfmt_field_t *f;       /* the current line's fields */
    uint32_t nf, capf;
    uint64_t lines;           /* lines read so far (skipped ones included) */
} loadfmt_t;

void loadfmt_init(loadfmt_t *r, const sql_export_t *ex, loadfmt_fill_fn fill, void *arg);
void loadfmt_free(loadfmt_t *r);
/* Reads the next line's fields into r->f[0..nf): 1 a line was read, 0 the input ended, < 0 the fill's error. */
int loadfmt_row(loadfmt_t *r);
/* IGNORE n LINES: skips up to the next line terminator (escaped bytes do not end a line): 1, 0 at the end, < 0. */
int loadfmt_skip_line(loadfmt_t *r);

#endif
