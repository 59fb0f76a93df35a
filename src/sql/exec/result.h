/*
 * The result interface between whoever produces rows (the session's own statements, the SQL executor) and the
 * protocol layer that encodes them: column definitions, rows of cells, and the end of each answer.  Defined
 * here, in the lowest box that produces results, so that sql, session and proto all share one definition
 * without any box including a higher one.
 */
#ifndef STRATA_SQL_RESULT_H
#define STRATA_SQL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Column types on the wire (MySQL's enum_field_types). */
enum mysql_type {
    MYSQL_TYPE_DECIMAL = 0, MYSQL_TYPE_TINY = 1, MYSQL_TYPE_SHORT = 2, MYSQL_TYPE_LONG = 3,
    MYSQL_TYPE_FLOAT = 4, MYSQL_TYPE_DOUBLE = 5, MYSQL_TYPE_NULL = 6, MYSQL_TYPE_TIMESTAMP = 7,
    MYSQL_TYPE_LONGLONG = 8, MYSQL_TYPE_INT24 = 9, MYSQL_TYPE_DATE = 10, MYSQL_TYPE_TIME = 11,
    MYSQL_TYPE_DATETIME = 12, MYSQL_TYPE_YEAR = 13, MYSQL_TYPE_NEWDATE = 14, MYSQL_TYPE_VARCHAR = 15,
    MYSQL_TYPE_BIT = 16, MYSQL_TYPE_NEWDECIMAL = 246, MYSQL_TYPE_ENUM = 247, MYSQL_TYPE_SET = 248,
    MYSQL_TYPE_TINY_BLOB = 249, MYSQL_TYPE_MEDIUM_BLOB = 250, MYSQL_TYPE_LONG_BLOB = 251,
    MYSQL_TYPE_BLOB = 252, MYSQL_TYPE_VAR_STRING = 253, MYSQL_TYPE_STRING = 254, MYSQL_TYPE_GEOMETRY = 255,
};

/* Column flags (MySQL's *_FLAG). */
enum {
    COLF_NOT_NULL = 1, COLF_PRI_KEY = 2, COLF_UNIQUE_KEY = 4, COLF_MULTIPLE_KEY = 8, COLF_BLOB = 16,
    COLF_UNSIGNED = 32, COLF_ZEROFILL = 64, COLF_BINARY = 128, COLF_ENUM = 256, COLF_AUTO_INCREMENT = 512,
    COLF_TIMESTAMP = 1024, COLF_SET = 2048, COLF_NO_DEFAULT = 4096, COLF_NUM = 32768,
};

#define CHARSET_UTF8MB4_GENERAL_CI 45
#define CHARSET_BINARY 63
#define CHARSET_LATIN1_SWEDISH_CI 8

typedef struct res_col {
    const char *schema, *table, *org_table, *name, *org_name;
    uint16_t charset;
    uint32_t length;
    uint8_t type;
    uint16_t flags;
    uint8_t decimals;
    bool json; /* a JSON column or a JSON document from a JSON function: format=json for MariaDB's clients */
} res_col_t;

/* One cell of a result row as the session hands it to the protocol layer: text for the text protocol, and
 * enough type to encode the binary protocol (the column's type says how). */
typedef struct res_cell {
    bool null;
    const char *p;
    size_t len;
} res_cell_t;

typedef struct res_sink res_sink_t;
struct res_sink {
    void (*columns)(res_sink_t *s, const res_col_t *cols, int n);
    void (*row)(res_sink_t *s, const res_cell_t *cells);
    /* End of a result set (after rows), with more=true when another result follows. */
    void (*rows_end)(res_sink_t *s, bool more);
    /* An OK for a statement without a result set. */
    void (*ok)(res_sink_t *s, uint64_t affected, uint64_t last_id, const char *info, bool more);
    /* The statement's error is in the session's diag; more is never true after an error. */
    void (*error)(res_sink_t *s);
    /* Raw string reply (COM_STATISTICS). */
    void (*raw)(res_sink_t *s, const char *p, size_t n);
    /* Send what is buffered now (NULL: nothing is buffered).  SHUTDOWN's OK must reach the client before the
     * server closes every connection. */
    int (*flush)(res_sink_t *s);
    /* COM_STMT_PREPARE's answer. */
    void (*prepared)(res_sink_t *s, uint32_t id, const res_col_t *cols, int ncols, uint32_t nparams);
    /* LOAD DATA LOCAL INFILE: infile_request asks the client for its file `name` (the 0xFB packet): 0, 1 when
     * the client did not offer CLIENT_LOCAL_FILES (nothing sent), or -1 when the connection failed.  infile_read then gives the file's bytes as the client streams them: > 0
     * bytes copied to p, 0 at the end (the client's empty packet), < 0 when the connection failed.  NULL when
     * the sink cannot (internal sinks): LOCAL is refused. */
    int (*infile_request)(res_sink_t *s, const char *name);
    long (*infile_read)(res_sink_t *s, char *p, size_t cap);
    /* Binary protocol rows for what follows (COM_STMT_EXECUTE) or text rows. */
    bool binary;
};

#endif
