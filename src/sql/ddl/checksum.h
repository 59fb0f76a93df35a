/*
 * sql/checksum: CHECKSUM TABLE's value, computed exactly as MariaDB 10.11 computes it for an InnoDB table
 * (handler::calculate_checksum), so that the same rows give the same number on strata and on MariaDB and a
 * primary can be compared with a replica of the other kind.
 *
 * The table's checksum is the sum, modulo 2^32, of one CRC-32 (zlib's) per row.  A row's CRC runs over MariaDB's
 * in-memory record of the row (record[0]):
 *   1. the null bitmap, when the record has one: one bit per nullable column in column order, set for NULL,
 *      starting at bit 1 of byte 0 for a fixed-length record (bit 0 is MyISAM's "deleted" bit and is set) and at
 *      bit 0 for a packed one (any VARCHAR, VARBINARY, TEXT or BLOB column makes the record packed); the unused
 *      high bits of the last byte are set.  A fixed-length record always has at least that one byte.
 *   2. each non-NULL column in order:
 *        VARCHAR / VARBINARY / TEXT / BLOB   the value's bytes (no length prefix)
 *        BIT(n)                              the value big-endian in (n + 7) / 8 bytes
 *        CHAR(n) / BINARY(n)                 n x mbmaxlen bytes, padded with spaces (BINARY: zero bytes)
 *        everything else                     its record bytes, the row format of the binlog (binlog_value_encode:
 *                                            little-endian integers, IEEE FLOAT/DOUBLE, binary DECIMAL, DATE in 3
 *                                            bytes, DATETIME2 / TIMESTAMP2 / TIME2 with their fractional bytes,
 *                                            YEAR - 1900, ENUM index in 1-2 bytes), except SET, whose record
 *                                            field is 1, 2, 3, 4 or 8 bytes
 */
#ifndef STRATA_SQL_CHECKSUM_H
#define STRATA_SQL_CHECKSUM_H

#include <stdint.h>

#include "access/catalog.h"
#include "sql/value/value.h"
#include "util/buf.h"

/* The CRC of one row (t->ncols stored values, as a table scan gives them); scratch is reused between calls. */
uint32_t checksum_row(const cat_table_t *t, const value_t *row, buf_t *scratch);

#endif
