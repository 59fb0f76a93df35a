/*
 * Column types: a type as declared (sql_type_t: what CREATE TABLE wrote, MySQL's defaults filled in), and a
 * result column's metadata as the protocol carries it (sql_col_meta_t: MySQL field type code, collation,
 * length, decimals, flags).  Part of the value box: the parser produces these, storage (store.h) and the
 * catalog keep them, the executor and the protocol read them.
 */
#ifndef STRATA_SQL_VALUE_TYPES_H
#define STRATA_SQL_VALUE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum sql_type_kind {
    SQL_T_TINYINT, SQL_T_SMALLINT, SQL_T_MEDIUMINT, SQL_T_INT, SQL_T_BIGINT,
    SQL_T_DECIMAL, SQL_T_FLOAT, SQL_T_DOUBLE, SQL_T_BIT,
    SQL_T_CHAR, SQL_T_VARCHAR, SQL_T_BINARY, SQL_T_VARBINARY,
    SQL_T_TINYTEXT, SQL_T_TEXT, SQL_T_MEDIUMTEXT, SQL_T_LONGTEXT,
    SQL_T_TINYBLOB, SQL_T_BLOB, SQL_T_MEDIUMBLOB, SQL_T_LONGBLOB,
    SQL_T_DATE, SQL_T_DATETIME, SQL_T_TIMESTAMP, SQL_T_TIME, SQL_T_YEAR,
    SQL_T_ENUM, SQL_T_SET,
} sql_type_kind_t;

/*
 * A column type as written, with MySQL's defaults filled in by the parser:
 *   integers: len = display width (default 4/6/9/11/20, one less when UNSIGNED... as MariaDB shows them)
 *   DECIMAL:  len = precision (default 10), scale (default 0)
 *   FLOAT/DOUBLE: len/scale -1 unless (M,D) given; FLOAT(p) with p > 24 becomes DOUBLE
 *   BIT:      len = bits (default 1)
 *   CHAR/BINARY: len = characters/bytes (default 1); VARCHAR/VARBINARY: len required
 *   TEXT/BLOB(n): len = n as written or -1 (TEXT(n) picks the smallest TEXT type holding n, as MySQL)
 *   DATETIME/TIMESTAMP/TIME: scale = fsp (default 0); YEAR: len 4
 *   ENUM/SET: elems (unquoted, as written)
 * Binary string types and BLOBs have coll = COLL_BINARY; CHAR BINARY / BYTE / ASCII / UNICODE are mapped.
 * coll = -1 means "the table's default collation" (the executor resolves it at CREATE time).
 */
typedef struct sql_type {
    sql_type_kind_t kind;
    int32_t len;
    int32_t scale;
    bool is_unsigned;
    bool zerofill;
    bool is_bool;          /* written BOOL/BOOLEAN (TINYINT(1)) */
    bool is_json;          /* written JSON (LONGTEXT; MariaDB adds a CHECK (json_valid)) */
    bool is_serial;        /* written SERIAL (BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE) */
    const char *charset;   /* CHARACTER SET as written (NULL if not) */
    const char *collation; /* COLLATE as written (NULL if not) */
    int32_t coll;          /* resolved collation id, or -1 */
    const char **elems;    /* ENUM / SET values */
    uint32_t *elem_lens;
    uint32_t nelems;
} sql_type_t;


/* MySQL field types (protocol numbers) and column flags used in column-definition packets. */
enum {
    SQL_TYPE_DECIMAL = 0, SQL_TYPE_TINY = 1, SQL_TYPE_SHORT = 2, SQL_TYPE_LONG = 3, SQL_TYPE_FLOAT = 4,
    SQL_TYPE_DOUBLE = 5, SQL_TYPE_NULL = 6, SQL_TYPE_TIMESTAMP = 7, SQL_TYPE_LONGLONG = 8, SQL_TYPE_INT24 = 9,
    SQL_TYPE_DATE = 10, SQL_TYPE_TIME = 11, SQL_TYPE_DATETIME = 12, SQL_TYPE_YEAR = 13, SQL_TYPE_VARCHAR = 15,
    SQL_TYPE_BIT = 16, SQL_TYPE_NEWDECIMAL = 246, SQL_TYPE_ENUM = 247, SQL_TYPE_SET = 248,
    SQL_TYPE_TINY_BLOB = 249, SQL_TYPE_MEDIUM_BLOB = 250, SQL_TYPE_LONG_BLOB = 251, SQL_TYPE_BLOB = 252,
    SQL_TYPE_VAR_STRING = 253, SQL_TYPE_STRING = 254,
};
enum {
    SQL_FLAG_NOT_NULL = 1, SQL_FLAG_PRI_KEY = 2, SQL_FLAG_UNIQUE_KEY = 4, SQL_FLAG_MULTIPLE_KEY = 8,
    SQL_FLAG_BLOB = 16, SQL_FLAG_UNSIGNED = 32, SQL_FLAG_ZEROFILL = 64, SQL_FLAG_BINARY = 128,
    SQL_FLAG_ENUM = 256, SQL_FLAG_AUTO_INCREMENT = 512, SQL_FLAG_TIMESTAMP = 1024, SQL_FLAG_SET = 2048,
    SQL_FLAG_NO_DEFAULT_VALUE = 4096, SQL_FLAG_ON_UPDATE_NOW = 8192, SQL_FLAG_PART_KEY = 16384,
    SQL_FLAG_NUM = 32768,
};

typedef struct sql_col_meta {
    uint8_t type;        /* SQL_TYPE_* */
    uint16_t coll;       /* collation id: 63 for numbers and temporals */
    uint32_t length;     /* column length in bytes (chars * mbmaxlen for strings) */
    uint8_t decimals;
    uint16_t flags;      /* SQL_FLAG_* */
} sql_col_meta_t;

#endif
