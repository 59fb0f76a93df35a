/*
 * Storing a value into a column: MySQL's conversion of any value_t to a column type (sql_type_t, ast.h), with
 * its strict / non-strict rules.  The executor calls sql_value_store() for every INSERT / UPDATE / LOAD value.
 *
 *   strict (STRICT_TRANS_TABLES / STRICT_ALL_TABLES and not IGNORE): a bad value is an error
 *      1366 incorrect integer/decimal/double value   1265 data truncated (trailing garbage, bad ENUM/SET)
 *      1264 out of range                              1406 data too long (strings, BIT)
 *      1292 incorrect date/datetime/time value       1048 column cannot be null
 *   non-strict: the same as warnings (1292 becomes 1265 or 1264 as MariaDB does), and the clipped / zero value
 *   is stored.  Notes (1265) for dropped decimal digits and trailing spaces come in both modes.
 *
 * What `out` holds, per column type (the executor's row format stores these):
 *   TINYINT..BIGINT    VAL_INT (signed) or VAL_UINT (UNSIGNED)
 *   DECIMAL(p,s)       VAL_DECIMAL with exactly s fraction digits (canonical text)
 *   FLOAT / DOUBLE     VAL_DOUBLE (FLOAT rounded to single precision; (M,D) rounded to D places, dec = D)
 *   BIT(n)             VAL_UINT
 *   CHAR               VAL_STRING, trailing spaces removed (CHAR semantics); coll = column collation
 *   VARCHAR/TEXT       VAL_STRING; BINARY(n) zero-padded to n bytes; VARBINARY/BLOB as is (COLL_BINARY)
 *   DATE / DATETIME / TIMESTAMP / TIME   VAL_DATE / VAL_DATETIME / VAL_TIMESTAMP / VAL_TIME, dec = fsp
 *                      (fraction beyond fsp truncated, as MariaDB does by default)
 *   YEAR               VAL_UINT (0 or 1901..2155)
 *   ENUM / SET         VAL_STRING: the canonical member text (ENUM) / members in definition order joined by ','
 *                      (SET); sql_enum_index() / sql_set_mask() give the numeric forms.
 * Character sets: a string is converted from its own collation's character set to the column's (utf8mb4 ->
 * latin1 etc., sql_str_convert); an unconvertible character is 1366 "Incorrect string value" (strict: error,
 * else warning and '?').  Lengths are counted in characters for CHAR/VARCHAR, in bytes for binary types and
 * TEXT/BLOB.
 */
#ifndef STRATA_SQL_STORE_H
#define STRATA_SQL_STORE_H

#include "sql/value/types.h"
#include "sql/value/value.h"

/* sql_mode bits the store checks (NO_ZERO_DATE, NO_ZERO_IN_DATE), per worker thread: the session sets them
 * before each statement (sql_store_set_mode), the executor's calls of sql_value_store see them. */
enum { SQL_STORE_NO_ZERO_DATE = 1, SQL_STORE_NO_ZERO_IN_DATE = 2 };
void sql_store_set_mode(unsigned bits);

typedef struct sql_store_col {
    const sql_type_t *type;   /* from the column definition */
    bool not_null;
    uint16_t coll;            /* effective collation (type->coll, or the table default when -1) */
    const char *name;         /* column name, for messages */
    const char *db, *table;   /* for 1366/1292's `db`.`table`.`col` */
    int32_t tz_offset_sec;    /* session time zone (TIMESTAMP range check in UTC) */
} sql_store_col_t;

/*
 * Converts `in` for storing in `col`.  Returns 0 (out set; warnings/notes pushed to d) or a negative -ER_*
 * error already pushed (strict mode).  `row` is the 1-based row number for messages.
 * NULL into a NOT NULL column: error 1048 when strict; else warning 1048 and the type's implicit default
 * (0, '', zero date, first ENUM member...).  Note that MySQL makes an explicit NULL in a single-row INSERT
 * VALUES an error even when not strict: the executor passes strict = true for that case.
 * Strings in `out` are allocated in `a` (or point into `in`).
 */
int sql_value_store(arena_t *a, const sql_store_col_t *col, const value_t *in, bool strict, uint64_t row,
                    diag_t *d, value_t *out);

/* The implicit default of a type (what MySQL stores for a NOT NULL column without DEFAULT in non-strict mode). */
value_t sql_type_implicit_default(const sql_type_t *t, uint16_t coll);

/* ENUM: 1-based index of a stored (canonical) value, 0 for ''.  SET: bit mask of a stored value. */
uint32_t sql_enum_index(const sql_type_t *t, const char *s, size_t n);
uint64_t sql_set_mask(const sql_type_t *t, const char *s, size_t n);

/*
 * Converts string bytes from one collation's character set to another's (UTF-8 <-> latin1/cp1252 <-> ascii;
 * binary is never converted; a binary source into a text charset is validated as UTF-8).  Unconvertible
 * characters become '?', and *bad_at is the byte offset of the first one in `s` (SIZE_MAX if none).  Returns `s`
 * itself when no conversion is needed.
 */
const char *sql_str_convert(arena_t *a, const char *s, size_t n, uint16_t from, uint16_t to, size_t *out_len,
                            size_t *bad_at);
/* UPPER / LOWER in place under a collation's character set (ASCII, Latin-1/cp1252, and UTF-8's 2-byte letters:
 * Latin, Greek, Cyrillic); binary strings are left alone.  The length never changes. */
void sql_str_case(char *s, size_t n, uint16_t coll, bool upper);

/*
 * A stored column value as the text protocol sends it (MariaDB's formatting per column type): ZEROFILL padding
 * to the display width, YEAR as 4 digits, BIT(n) as (n+7)/8 big-endian bytes, FLOAT with 6 digits, DECIMAL /
 * DATETIME(fsp) / TIME(fsp) with their scale.  NULL for SQL NULL.  Strings are returned as stored (the caller
 * converts to character_set_results with sql_str_convert).
 */
const char *sql_column_text(arena_t *a, const value_t *v, const sql_type_t *t, size_t *len);

/* Maximum length in bytes of a TEXT/BLOB type (255, 65535, 16777215, 4294967295); 0 for other types. */
uint64_t sql_type_blob_max(sql_type_kind_t k);

/* The bytes of the first `chars` characters of UTF-8 text s[0..n) (all of it when shorter); *counted: the
 * characters counted. */
size_t sql_utf8_prefix_bytes(const char *s, size_t n, uint64_t chars, uint64_t *counted);

#endif
