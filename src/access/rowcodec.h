/*
 * Row codec: how SQL values become the engine's bytes.  Two formats (both drawn at the top of rowcodec.c):
 *
 *   keys  - memcomparable: memcmp order of two encoded keys equals the SQL order of the values (collation,
 *           signedness, NULL first), so the engine's B+trees, which compare with memcmp, keep index order.
 *           Equal under the collation means equal bytes ('a' and 'A ' under a _ci collation), which is what
 *           makes a unique index unique the SQL way.  Keys are not decodable in general (weights).
 *   rows  - compact values: version, column count, null bitmap, fixed-width part, variable part.
 *
 * The codec knows column types (rc_col_t) but nothing of tables or the catalog.  ENUM and SET travel as their
 * index / bit mask (VAL_UINT); BIT and YEAR as integers; the table layer maps ENUM/SET names.
 */
#ifndef STRATA_SQL_ROWCODEC_H
#define STRATA_SQL_ROWCODEC_H

#include <stdbool.h>
#include <stdint.h>

#include "sql/value/value.h"
#include "util/buf.h"

/* Column types as declared in CREATE TABLE (the catalog's; the wire type is derived from them). */
typedef enum sqlt {
    SQLT_NONE = 0,
    SQLT_TINYINT, SQLT_SMALLINT, SQLT_MEDIUMINT, SQLT_INT, SQLT_BIGINT,
    SQLT_DECIMAL, SQLT_FLOAT, SQLT_DOUBLE, SQLT_BIT,
    SQLT_CHAR, SQLT_VARCHAR, SQLT_BINARY, SQLT_VARBINARY,
    SQLT_TINYTEXT, SQLT_TEXT, SQLT_MEDIUMTEXT, SQLT_LONGTEXT,
    SQLT_TINYBLOB, SQLT_BLOB, SQLT_MEDIUMBLOB, SQLT_LONGBLOB,
    SQLT_DATE, SQLT_DATETIME, SQLT_TIMESTAMP, SQLT_TIME, SQLT_YEAR,
    SQLT_ENUM, SQLT_SET,
    SQLT__COUNT
} sqlt_t;

/* What the codec needs to know about one column. */
typedef struct rc_col {
    uint8_t type;        /* sqlt_t */
    bool is_unsigned;
    bool nullable;       /* keys: a NULL marker byte precedes the value */
    uint16_t coll;       /* strings: collation id (COLL_BINARY for BINARY/VARBINARY/BLOB) */
    uint32_t len;        /* CHAR/VARCHAR/BINARY length (chars), DECIMAL precision M, BIT width */
    uint8_t scale;       /* DECIMAL scale D; DATETIME/TIMESTAMP/TIME fractional digits */
    uint32_t prefix;     /* keys only: index prefix length in characters (0 = whole value) */
} rc_col_t;

/* 3: unicode_ci keys are UCA weights; 2: _ci string keys are collation weights (collation.h); 1 folded ASCII
 * letters only (upgrade.c brings older tables over at start-up) */
#define RC_KEY_VERSION 3
#define RC_ROW_VERSION 1

bool sqlt_is_int(sqlt_t t);        /* TINYINT..BIGINT */
bool sqlt_is_string(sqlt_t t);     /* CHAR..LONGBLOB */
bool sqlt_is_temporal(sqlt_t t);   /* DATE..TIME (YEAR is numeric) */
bool sqlt_is_fixed(sqlt_t t);      /* stored in the row's fixed part */

/*
 * Appends the memcomparable key form of v for column c.  v need not be of the column's type: search values are
 * converted (numbers rounded to the column's grid and clamped to its range, strings truncated to the prefix),
 * which makes a search key the nearest point of the column's domain.  Callers searching ranges therefore use
 * inclusive bounds and re-check the predicate on each row.  NULL needs c->nullable (else -1).  Returns 0, or
 * -1 when v cannot be placed in the column's order (a string that is no date for a DATE column, ...).
 */
int rc_key_append(buf_t *b, const rc_col_t *c, const value_t *v);
/* The key form of a string under a collation (no index prefix): what rc_key_append writes for a string column
 * without its NULL marker.  Equal bytes exactly when value_collate_cmp says equal. */
void rc_key_string(buf_t *b, uint16_t coll, const char *s, size_t n);
/* Length of the encoded key column at p (n bytes available), or -1 when malformed. */
int rc_key_skip(const rc_col_t *c, const uint8_t *p, size_t n);
/* Can column c be read back from its key (index-only reads)?  Integers, YEAR, BIT, ENUM, SET and the temporal
 * types: their keys hold the row's number.  Not FLOAT/DOUBLE (-0), DECIMAL (truncated digits) or strings (folded,
 * trailing spaces dropped). */
bool rc_key_decodable(const rc_col_t *c);
/* Reads the key column at p (n bytes) into *v, exactly as rc_row_decode gives the stored value.  Returns the
 * bytes used, or -1 when malformed or c is not decodable. */
int rc_key_decode(const rc_col_t *c, const uint8_t *p, size_t n, value_t *v);

/*
 * Row values.  vals[i] must already be of column i's domain (stored by sql_value_store or equal): VAL_INT or
 * VAL_UINT for integers/YEAR/BIT/ENUM/SET, VAL_DOUBLE, VAL_DECIMAL, VAL_STRING, the temporal types.
 */
int rc_row_encode(buf_t *b, const rc_col_t *cols, uint32_t ncols, const value_t *vals);
/* Decodes into out[0..ncols-1].  Strings and decimals point into p (the caller keeps p alive).  Columns the
 * row does not hold (added after it was written) come back as VAL_NULL with *nstored telling how many it had.
 * Returns 0, or STRATA_ECORRUPT. */
int rc_row_decode(const void *p, size_t n, const rc_col_t *cols, uint32_t ncols, value_t *out, uint32_t *nstored);

/* Varint helpers shared with the catalog's record format (LEB128, unsigned). */
void rc_put_varint(buf_t *b, uint64_t v);
int rc_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

#endif
