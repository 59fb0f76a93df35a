/*
 * The account store (see acl.h for the API, the matching order and the locking).
 *
 * File: <datadir>/accounts.dat, little-endian, rewritten whole on every change: written to accounts.dat.tmp,
 * fsynced, renamed over accounts.dat, and the directory fsynced.  A crash leaves either the old or the new file;
 * a stale .tmp is removed at open.
 *
 *   Header (32 bytes)
 *   offset size field
 *    0      8   magic "STRACCT\0"
 *    8      4   format version (ACL_FORMAT_VERSION = 2); a newer version is refused, never guessed at.
 *               Version 1 (accounts only, global privileges not interpreted) is read and migrated: every
 *               account named root gets ALL PRIVILEGES WITH GRANT OPTION (what version 1 servers let root do),
 *               and the file is rewritten as version 2 at once.
 *   12      4   number of records
 *   16      8   generation: 1 for the first file, +1 per rewrite
 *   24      4   body length in bytes
 *   28      4   CRC-32 (zlib) of header bytes 0..27 followed by the body
 *
 *   Body: records back to back
 *    0      1   record type: 1 account, 2 database grant, 3 table grant, 4 column grant, 5 role edge;
 *               a type this version does not know is corruption.
 *    1      4   payload length n
 *    5      n   payload: fields back to back, each  tag u8 | length u16 | value
 *
 *   Account fields (tag: value)
 *    1 user (bytes)    2 host (bytes, lowercase)    3 plugin name    4 auth string (stored form)
 *    5 flags u32 (ACL_FLAG_*)    6 max_user_connections u32    7 global privileges u64 (PRIV_* of priv.h)
 *    13 default role (bytes; absent = none)
 *   User, host and plugin are required; unknown tags are skipped (fields may be added without a version bump
 *   when old readers can ignore them).
 *
 *   Grant fields (types 2, 3, 4): 1 user, 2 host (grantee; a role has host ""), 8 db (a pattern at type 2),
 *   9 table (3, 4), 10 column (4), 7 privileges u64.  All required.
 *   Role edge (type 5): 1 user, 2 host (grantee), 11 role, 12 admin option u8 (0/1).  All but 12 required.
 *   Grantees and roles of grant and edge records must exist as account records (else corruption); records
 *   are written accounts first.  Database, table and column names compare case-sensitively (as MySQL with
 *   lower_case_table_names=0), column names case-insensitively.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "acl/acl.h"
#include "acl/priv.h"
#include "util/diag.h"
#include "util/fio.h"
#include "util/util.h"
#include "util/hash.h"

#define ACL_MAGIC "STRACCT\0"
#define ACL_FORMAT_VERSION 2
#define ACL_HEADER_SIZE 32
#define ACL_REC_ACCOUNT 1
#define ACL_REC_DB 2
#define ACL_REC_TABLE 3
#define ACL_REC_COLUMN 4
#define ACL_REC_EDGE 5

enum {
    F_USER = 1,
    F_HOST = 2,
    F_PLUGIN = 3,
    F_AUTH = 4,
    F_FLAGS = 5,
    F_MAX_CONN = 6,
    F_PRIVS = 7,
    F_DB = 8,
    F_TABLE = 9,
    F_COLUMN = 10,
    F_ROLE = 11,
    F_ADMIN = 12,
    F_DEFAULT_ROLE = 13,
};

/* Formats for the codes errors.def does not have yet (see acl.h). */
#define MSG_PASSWD_LENGTH "Password hash should be a 41-digit hexadecimal number"
#define MSG_PLUGIN_NOT_LOADED "Plugin '%s' is not loaded"
#define MSG_PASSWORD_FORMAT "The password hash doesn't have the expected format."
#define MSG_USER_CREATE_EXISTS "Can't create user '%s'@'%s'; it already exists"
#define MSG_USER_DROP_EXISTS "Can't drop user '%s'@'%s'; it doesn't exist"
#define MSG_ROLE_CREATE_EXISTS "Can't create role '%s'; it already exists"
#define MSG_ROLE_DROP_EXISTS "Can't drop role '%s'; it doesn't exist"
#define MSG_INVALID_ROLE "Invalid role specification %s"
#define MSG_ROLE_NOT_GRANTED "User %s has not been granted role %s"
#define MSG_CANNOT_REVOKE_ROLE "Cannot revoke role '%s' from: %s"

typedef struct acct {
    char *user, *host, *auth;
    char *default_role; /* NULL = none */
    enum password_plugin plugin;
    uint32_t flags, max_conn;
    uint64_t privs;
    uint32_t sort; /* match-order weight, higher first */
} acct_t;

/* A database (table, column NULL), table (column NULL) or column grant. */
typedef struct grant {
    char *user, *host, *db, *table, *column;
    uint64_t privs;
} grant_t;

/* Role `role` granted to user@host. */
typedef struct edge {
    char *user, *host, *role;
    bool admin;
} edge_t;

typedef struct table {
    acct_t *a;
    size_t n, cap;
    grant_t *g; /* in the order they were first granted (SHOW GRANTS prints them so) */
    size_t ng, gcap;
    edge_t *e;
    size_t ne, ecap;
} table_t;

#define CONN_BUCKETS 256

typedef struct conn_count {
    struct conn_count *next;
    char *key; /* acl_account_key() */
    uint32_t n;
} conn_count_t;

struct acl {
    char *dir, *path, *tmp_path;
    pthread_mutex_t cmu;   /* guards conns */
    conn_count_t *conns[CONN_BUCKETS];
    pthread_rwlock_t lock; /* guards `t` (the pointer and the published table) */
    pthread_mutex_t wmu;   /* serialises writers */
    table_t *t;
    uint64_t generation;   /* of the file on disk */
    uint64_t version;      /* bumped per change; read under `lock` */
};

/* --- names and patterns ------------------------------------------------------------------------------ */

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((uint8_t)*s & 0xC0) != 0x80)
            n++;
    return n;
}

static void lower_copy(char *dst, const char *src, size_t cap)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

/* MySQL's get_sort() weight of one string: 128 for a non-empty literal, 0 for empty, otherwise a value from the
 * position of the first wildcard (a longer literal prefix sorts first; a lone '%' is 1). */
static uint32_t sort_weight(const char *s)
{
    uint32_t chars = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
        } else if (*p == '%' || *p == '_') {
            uint32_t pos = (uint32_t)(p - s) + 1;
            if (!(pos == 1 && *p == '%' && p[1] == '\0'))
                pos++;
            return MIN(pos, 127u);
        }
        chars = 128;
    }
    return chars;
}

static uint32_t acct_sort_key(const char *user, const char *host)
{
    return sort_weight(host) << 8 | sort_weight(user);
}

/* One pattern token at p: sets *lit to the literal character, or *any for an unescaped '_'.  Returns its length. */
static int wild_token(const char *p, char *lit, bool *any)
{
    *any = false;
    if (*p == '\\' && p[1]) {
        *lit = p[1];
        return 2;
    }
    if (*p == '_')
        *any = true;
    *lit = *p;
    return 1;
}

/* LIKE-style match: '%' any run, '_' one character, '\' escapes; case-insensitive for host names (ci), exact for
 * database patterns.  Iterative, with backtracking only to the last '%', so the cost is O(pattern x string)
 * whatever the pattern. */
static bool like_match(const char *p, const char *s, bool ci)
{
    const char *star_p = NULL, *star_s = NULL;
    while (*s) {
        if (*p == '%') {
            while (*p == '%')
                p++;
            if (!*p)
                return true;
            star_p = p;
            star_s = s;
            continue;
        }
        if (*p) {
            char lit;
            bool any;
            int n = wild_token(p, &lit, &any);
            if (any || (ci ? tolower((unsigned char)lit) == tolower((unsigned char)*s) : lit == *s)) {
                p += n;
                s++;
                continue;
            }
        }
        if (!star_p)
            return false;
        p = star_p;
        s = ++star_s;
    }
    while (*p == '%')
        p++;
    return !*p;
}

static bool wild_match(const char *p, const char *s) { return like_match(p, s, true); }

static bool parse_ipv4(const char *s, uint32_t *out)
{
    struct in_addr a;
    if (!strncasecmp(s, "::ffff:", 7))
        s += 7;
    if (inet_pton(AF_INET, s, &a) != 1)
        return false;
    *out = ntohl(a.s_addr);
    return true;
}

/* 'a.b.c.d/m.m.m.m' (MariaDB) or 'a.b.c.d/n' against the client's IPv4 address. */
static bool ip_mask_matches(const char *pattern, const char *client_ip)
{
    const char *slash = strchr(pattern, '/');
    char base_s[64];
    size_t bl = (size_t)(slash - pattern);
    if (!client_ip || bl >= sizeof base_s)
        return false;
    memcpy(base_s, pattern, bl);
    base_s[bl] = '\0';
    uint32_t base, mask, ip;
    if (!parse_ipv4(base_s, &base) || !parse_ipv4(client_ip, &ip))
        return false;
    const char *m = slash + 1;
    if (strchr(m, '.')) {
        if (!parse_ipv4(m, &mask))
            return false;
    } else {
        char *end;
        long bits = strtol(m, &end, 10);
        if (*end || bits < 0 || bits > 32 || end == m)
            return false;
        mask = bits == 0 ? 0 : 0xffffffffu << (32 - bits);
    }
    return (ip & mask) == base;
}

bool acl_host_matches(const char *pattern, const char *client_host, const char *client_ip, bool is_localhost)
{
    if (!pattern[0])
        return true; /* '' is '%' */
    if (strchr(pattern, '/'))
        return ip_mask_matches(pattern, client_ip);
    if (is_localhost) {
        if (!strcasecmp(pattern, "localhost"))
            return true;
        if (!client_host || !client_host[0])
            client_host = "localhost";
    }
    if (client_host && client_host[0] && wild_match(pattern, client_host))
        return true;
    if (client_ip && client_ip[0] && wild_match(pattern, client_ip))
        return true;
    return false;
}

void acl_account_key(const char *user, const char *host, char *out, size_t n)
{
    /* Length-prefixed so that no user name containing '@' can collide with another account. */
    snprintf(out, n, "%zu:%s@%s", strlen(user), user, host);
}

/* --- tables -------------------------------------------------------------------------------------------- */

static void acct_free(acct_t *a)
{
    mem_free(a->user);
    mem_free(a->host);
    mem_free(a->default_role);
    if (a->auth) {
        memset(a->auth, 0, strlen(a->auth));
        mem_free(a->auth);
    }
}

static void grant_free(grant_t *g)
{
    mem_free(g->user);
    mem_free(g->host);
    mem_free(g->db);
    mem_free(g->table);
    mem_free(g->column);
}

static void edge_free(edge_t *e)
{
    mem_free(e->user);
    mem_free(e->host);
    mem_free(e->role);
}

static char *strdup_or_null(const char *s) { return s ? mem_strdup(s) : NULL; }

static grant_t *grant_add(table_t *t, const char *user, const char *host, const char *db, const char *table,
                          const char *column, uint64_t privs)
{
    if (t->ng == t->gcap) {
        t->gcap = t->gcap ? t->gcap * 2 : 8;
        t->g = mem_realloc(t->g, t->gcap * sizeof *t->g);
    }
    grant_t *g = &t->g[t->ng++];
    g->user = mem_strdup(user);
    char h[ACL_HOST_BYTES + 1];
    lower_copy(h, host, sizeof h);
    g->host = mem_strdup(h);
    g->db = mem_strdup(db);
    g->table = strdup_or_null(table);
    g->column = strdup_or_null(column);
    g->privs = privs;
    return g;
}

static edge_t *edge_add(table_t *t, const char *user, const char *host, const char *role, bool admin)
{
    if (t->ne == t->ecap) {
        t->ecap = t->ecap ? t->ecap * 2 : 8;
        t->e = mem_realloc(t->e, t->ecap * sizeof *t->e);
    }
    edge_t *e = &t->e[t->ne++];
    e->user = mem_strdup(user);
    char h[ACL_HOST_BYTES + 1];
    lower_copy(h, host, sizeof h);
    e->host = mem_strdup(h);
    e->role = mem_strdup(role);
    e->admin = admin;
    return e;
}

static void table_free(table_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        acct_free(&t->a[i]);
    mem_free(t->a);
    for (size_t i = 0; i < t->ng; i++)
        grant_free(&t->g[i]);
    mem_free(t->g);
    for (size_t i = 0; i < t->ne; i++)
        edge_free(&t->e[i]);
    mem_free(t->e);
    mem_free(t);
}

static acct_t *table_add(table_t *t, const char *user, const char *host)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->a = mem_realloc(t->a, t->cap * sizeof *t->a);
    }
    acct_t *a = &t->a[t->n++];
    memset(a, 0, sizeof *a);
    a->user = mem_strdup(user);
    char h[ACL_HOST_BYTES + 1];
    lower_copy(h, host, sizeof h);
    a->host = mem_strdup(h);
    a->auth = mem_strdup("");
    a->plugin = PASSWORD_PLUGIN_NATIVE;
    a->sort = acct_sort_key(a->user, a->host);
    return a;
}

static table_t *table_copy(const table_t *src)
{
    table_t *t = mem_calloc(1, sizeof *t);
    for (size_t i = 0; i < src->n; i++) {
        const acct_t *s = &src->a[i];
        acct_t *a = table_add(t, s->user, s->host);
        mem_free(a->auth);
        a->auth = mem_strdup(s->auth);
        a->plugin = s->plugin;
        a->flags = s->flags;
        a->max_conn = s->max_conn;
        a->privs = s->privs;
        a->default_role = strdup_or_null(s->default_role);
    }
    for (size_t i = 0; i < src->ng; i++) {
        const grant_t *g = &src->g[i];
        grant_add(t, g->user, g->host, g->db, g->table, g->column, g->privs);
    }
    for (size_t i = 0; i < src->ne; i++)
        edge_add(t, src->e[i].user, src->e[i].host, src->e[i].role, src->e[i].admin);
    return t;
}

static void table_remove(table_t *t, size_t i)
{
    acct_free(&t->a[i]);
    memmove(&t->a[i], &t->a[i + 1], (t->n - i - 1) * sizeof *t->a);
    t->n--;
}

/* Among hosts without wildcards: an IP address first, then IP/netmask by the width of the mask, then names
 * (MariaDB matches 'bob'@'127.0.0.1' before 'bob'@'127.0.0.0/255.255.255.0'). */
static int host_rank(const char *host)
{
    uint32_t ip;
    const char *slash = strchr(host, '/');
    if (!slash)
        return parse_ipv4(host, &ip) ? 100 : 0;
    const char *m = slash + 1;
    if (strchr(m, '.'))
        return parse_ipv4(m, &ip) ? 50 + __builtin_popcount(ip) : 1;
    return 50 + atoi(m);
}

static int acct_cmp(const void *x, const void *y)
{
    const acct_t *a = x, *b = y;
    if (a->sort != b->sort)
        return a->sort > b->sort ? -1 : 1;
    int ra = host_rank(a->host), rb = host_rank(b->host);
    if (ra != rb)
        return ra > rb ? -1 : 1;
    int c = strcmp(a->host, b->host);
    return c ? c : strcmp(a->user, b->user);
}

static void table_sort(table_t *t) { qsort(t->a, t->n, sizeof *t->a, acct_cmp); }

/* Exact identity lookup: user case-sensitive, host case-insensitive.  Index or -1. */
static long table_find(const table_t *t, const char *user, const char *host)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->a[i].user, user) && !strcasecmp(t->a[i].host, host))
            return (long)i;
    return -1;
}

static void acct_export(const acct_t *a, acl_account_t *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->user, sizeof out->user, "%s", a->user);
    snprintf(out->host, sizeof out->host, "%s", a->host);
    out->plugin = a->plugin;
    snprintf(out->auth, sizeof out->auth, "%s", a->auth);
    out->flags = a->flags;
    out->max_user_connections = a->max_conn;
    out->global_privs = a->privs;
    snprintf(out->default_role, sizeof out->default_role, "%s", a->default_role ? a->default_role : "");
}

/* --- the file ------------------------------------------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) { return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

static void field_put(buf_t *b, uint8_t tag, const void *v, size_t n)
{
    ASSERT(n <= 0xffff);
    buf_put_u8(b, tag);
    buf_put_u16(b, (uint16_t)n);
    buf_append(b, v, n);
}

static void field_put_str(buf_t *b, uint8_t tag, const char *s) { field_put(b, tag, s, strlen(s)); }

static void table_serialize(const table_t *t, uint64_t generation, buf_t *out)
{
    buf_t body, rec;
    buf_init(&body);
    buf_init(&rec);
    for (size_t i = 0; i < t->n; i++) {
        const acct_t *a = &t->a[i];
        buf_reset(&rec);
        field_put_str(&rec, F_USER, a->user);
        field_put_str(&rec, F_HOST, a->host);
        field_put_str(&rec, F_PLUGIN, password_plugin_name(a->plugin));
        field_put_str(&rec, F_AUTH, a->auth);
        uint8_t v[8];
        put_u32(v, a->flags);
        field_put(&rec, F_FLAGS, v, 4);
        put_u32(v, a->max_conn);
        field_put(&rec, F_MAX_CONN, v, 4);
        put_u32(v, (uint32_t)a->privs);
        put_u32(v + 4, (uint32_t)(a->privs >> 32));
        field_put(&rec, F_PRIVS, v, 8);
        if (a->default_role)
            field_put_str(&rec, F_DEFAULT_ROLE, a->default_role);
        buf_put_u8(&body, ACL_REC_ACCOUNT);
        buf_put_u32(&body, (uint32_t)rec.len);
        buf_append(&body, rec.data, rec.len);
    }
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        buf_reset(&rec);
        field_put_str(&rec, F_USER, g->user);
        field_put_str(&rec, F_HOST, g->host);
        field_put_str(&rec, F_DB, g->db);
        if (g->table)
            field_put_str(&rec, F_TABLE, g->table);
        if (g->column)
            field_put_str(&rec, F_COLUMN, g->column);
        uint8_t v[8];
        put_u32(v, (uint32_t)g->privs);
        put_u32(v + 4, (uint32_t)(g->privs >> 32));
        field_put(&rec, F_PRIVS, v, 8);
        buf_put_u8(&body, g->column ? ACL_REC_COLUMN : g->table ? ACL_REC_TABLE : ACL_REC_DB);
        buf_put_u32(&body, (uint32_t)rec.len);
        buf_append(&body, rec.data, rec.len);
    }
    for (size_t i = 0; i < t->ne; i++) {
        const edge_t *e = &t->e[i];
        buf_reset(&rec);
        field_put_str(&rec, F_USER, e->user);
        field_put_str(&rec, F_HOST, e->host);
        field_put_str(&rec, F_ROLE, e->role);
        uint8_t adm = e->admin ? 1 : 0;
        field_put(&rec, F_ADMIN, &adm, 1);
        buf_put_u8(&body, ACL_REC_EDGE);
        buf_put_u32(&body, (uint32_t)rec.len);
        buf_append(&body, rec.data, rec.len);
    }
    buf_reset(out);
    buf_append(out, ACL_MAGIC, 8);
    buf_put_u32(out, ACL_FORMAT_VERSION);
    buf_put_u32(out, (uint32_t)(t->n + t->ng + t->ne));
    buf_put_u64(out, generation);
    buf_put_u32(out, (uint32_t)body.len);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, out->data, 28);
    if (body.len)
        crc = crc32(crc, body.data, (uInt)body.len);
    buf_put_u32(out, (uint32_t)crc);
    buf_append(out, body.data, body.len);
    buf_free(&body);
    if (rec.data)
        memset(rec.data, 0, rec.cap);
    buf_free(&rec);
}

/* The fields of one record (any type), as read. */
typedef struct rec_fields {
    char user[ACL_USER_BYTES + 1], host[ACL_HOST_BYTES + 1], plugin[64], auth[PASSWORD_STORED_MAX];
    char db[ACL_NAME_BYTES + 1], table[ACL_NAME_BYTES + 1], column[ACL_NAME_BYTES + 1];
    char role[ACL_USER_BYTES + 1], default_role[ACL_USER_BYTES + 1];
    bool have_user, have_host, have_plugin, have_db, have_table, have_column, have_role, have_privs,
        have_default_role;
    uint32_t flags, max_conn;
    uint64_t privs;
    uint8_t admin;
} rec_fields_t;

static int fields_parse(const char *path, const uint8_t *p, size_t n, rec_fields_t *f)
{
    memset(f, 0, sizeof *f);
    size_t off = 0;
    while (off < n) {
        if (n - off < 3)
            return CORRUPT("%s: truncated field header", path);
        uint8_t tag = p[off];
        size_t len = (size_t)p[off + 1] | (size_t)p[off + 2] << 8;
        off += 3;
        if (len > n - off)
            return CORRUPT("%s: field %u runs past its record", path, tag);
        const uint8_t *v = p + off;
        char *dst = NULL;
        size_t cap = 0;
        switch (tag) {
        case F_USER: dst = f->user, cap = sizeof f->user, f->have_user = true; break;
        case F_HOST: dst = f->host, cap = sizeof f->host, f->have_host = true; break;
        case F_PLUGIN: dst = f->plugin, cap = sizeof f->plugin, f->have_plugin = true; break;
        case F_AUTH: dst = f->auth, cap = sizeof f->auth; break;
        case F_DB: dst = f->db, cap = sizeof f->db, f->have_db = true; break;
        case F_TABLE: dst = f->table, cap = sizeof f->table, f->have_table = true; break;
        case F_COLUMN: dst = f->column, cap = sizeof f->column, f->have_column = true; break;
        case F_ROLE: dst = f->role, cap = sizeof f->role, f->have_role = true; break;
        case F_DEFAULT_ROLE:
            dst = f->default_role, cap = sizeof f->default_role, f->have_default_role = true;
            break;
        case F_FLAGS:
            if (len != 4)
                return CORRUPT("%s: bad flags field", path);
            f->flags = get_u32(v);
            break;
        case F_MAX_CONN:
            if (len != 4)
                return CORRUPT("%s: bad max_user_connections field", path);
            f->max_conn = get_u32(v);
            break;
        case F_PRIVS:
            if (len != 8)
                return CORRUPT("%s: bad privileges field", path);
            f->privs = get_u64(v);
            f->have_privs = true;
            break;
        case F_ADMIN:
            if (len != 1)
                return CORRUPT("%s: bad admin option field", path);
            f->admin = v[0];
            break;
        default:
            break; /* a field added later: skip */
        }
        if (dst) {
            if (len >= cap || memchr(v, '\0', len))
                return CORRUPT("%s: string field %u too long or with NUL", path, tag);
            memcpy(dst, v, len);
            dst[len] = '\0';
        }
        off += len;
    }
    return 0;
}

/* Parses one record of any type into t.  0 or STRATA_ECORRUPT. */
static int record_parse(const char *path, table_t *t, uint8_t type, const uint8_t *p, size_t n)
{
    rec_fields_t *f = mem_alloc(sizeof *f);
    int rc = fields_parse(path, p, n, f);
    if (rc)
        goto out;
    if (type == ACL_REC_ACCOUNT) {
        if (!f->have_user || !f->have_host || !f->have_plugin) {
            rc = CORRUPT("%s: account record without user, host or plugin", path);
            goto out;
        }
        enum password_plugin pl = password_plugin_from_name(f->plugin);
        if (pl == PASSWORD_PLUGIN_NONE) {
            rc = CORRUPT("%s: account '%s'@'%s' has unknown plugin '%s'", path, f->user, f->host, f->plugin);
            goto out;
        }
        if (table_find(t, f->user, f->host) >= 0) {
            rc = CORRUPT("%s: account '%s'@'%s' appears twice", path, f->user, f->host);
            goto out;
        }
        acct_t *a = table_add(t, f->user, f->host);
        mem_free(a->auth);
        a->auth = mem_strdup(f->auth);
        a->plugin = pl;
        a->flags = f->flags;
        a->max_conn = f->max_conn;
        a->privs = f->privs;
        if (f->have_default_role && f->default_role[0])
            a->default_role = mem_strdup(f->default_role);
    } else if (type == ACL_REC_DB || type == ACL_REC_TABLE || type == ACL_REC_COLUMN) {
        if (!f->have_user || !f->have_host || !f->have_db || !f->have_privs ||
            (type != ACL_REC_DB && !f->have_table) || (type == ACL_REC_COLUMN && !f->have_column)) {
            rc = CORRUPT("%s: grant record (type %u) with missing fields", path, type);
            goto out;
        }
        if (table_find(t, f->user, f->host) < 0) {
            rc = CORRUPT("%s: grant for '%s'@'%s', which is not an account", path, f->user, f->host);
            goto out;
        }
        grant_add(t, f->user, f->host, f->db, type != ACL_REC_DB ? f->table : NULL,
                  type == ACL_REC_COLUMN ? f->column : NULL, f->privs);
    } else if (type == ACL_REC_EDGE) {
        if (!f->have_user || !f->have_host || !f->have_role) {
            rc = CORRUPT("%s: role edge with missing fields", path);
            goto out;
        }
        long r = table_find(t, f->role, "");
        if (table_find(t, f->user, f->host) < 0 || r < 0 || !(t->a[r].flags & ACL_FLAG_ROLE)) {
            rc = CORRUPT("%s: role edge '%s' to '%s'@'%s' names a missing account or role", path, f->role,
                         f->user, f->host);
            goto out;
        }
        edge_add(t, f->user, f->host, f->role, f->admin != 0);
    } else {
        rc = CORRUPT("%s: unknown record type %u", path, type);
    }
out:
    memset(f, 0, sizeof *f);
    mem_free(f);
    return rc;
}

static int table_parse(const char *path, const uint8_t *p, size_t n, table_t **out, uint64_t *generation,
                       uint32_t *version_out)
{
    if (n < ACL_HEADER_SIZE || memcmp(p, ACL_MAGIC, 8) != 0)
        return CORRUPT("%s: not an account file (bad magic or too short)", path);
    uint32_t version = get_u32(p + 8), count = get_u32(p + 12), body_len = get_u32(p + 24);
    if (version > ACL_FORMAT_VERSION || version == 0)
        return CORRUPT("%s: format version %u, this server reads up to %u", path, version, ACL_FORMAT_VERSION);
    if ((size_t)body_len != n - ACL_HEADER_SIZE)
        return CORRUPT("%s: body length %u but file has %zu bytes after the header", path, body_len,
                       n - ACL_HEADER_SIZE);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, p, 28);
    if (body_len)
        crc = crc32(crc, p + ACL_HEADER_SIZE, body_len);
    if ((uint32_t)crc != get_u32(p + 28))
        return CORRUPT("%s: checksum mismatch", path);
    *generation = get_u64(p + 16);
    *version_out = version;
    table_t *t = mem_calloc(1, sizeof *t);
    const uint8_t *b = p + ACL_HEADER_SIZE;
    size_t off = 0;
    uint32_t seen = 0;
    int rc = 0;
    while (off < body_len) {
        if (body_len - off < 5) {
            rc = CORRUPT("%s: truncated record header", path);
            goto fail;
        }
        uint8_t type = b[off];
        size_t len = get_u32(b + off + 1);
        off += 5;
        if (len > body_len - off) {
            rc = CORRUPT("%s: record runs past the end", path);
            goto fail;
        }
        if (version < 2 && type != ACL_REC_ACCOUNT) {
            rc = CORRUPT("%s: unknown record type %u", path, type);
            goto fail;
        }
        if ((rc = record_parse(path, t, type, b + off, len)) != 0)
            goto fail;
        off += len;
        seen++;
    }
    if (seen != count) {
        rc = CORRUPT("%s: header says %u records, found %u", path, count, seen);
        goto fail;
    }
    table_sort(t);
    *out = t;
    return 0;
fail:
    table_free(t);
    return rc;
}

static int fsync_dir(const char *dir) { return fio_fsync_dir(FIO_ACCOUNTS, dir); }

/* Writes the table as the new file (temp, fsync, rename, fsync dir).  0 or -errno. */
static int table_persist(acl_t *acl, const table_t *t, uint64_t generation)
{
    buf_t b;
    buf_init(&b);
    table_serialize(t, generation, &b);
    int rc = 0;
    int fd = fio_open(FIO_ACCOUNTS, acl->tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        rc = fd;
        log_error("accounts: cannot write %s: %s", acl->tmp_path, strerror(-rc));
        goto out;
    }
    rc = fio_pwrite(FIO_ACCOUNTS, fd, b.data, b.len, 0);
    if (!rc)
        rc = fio_fsync(FIO_ACCOUNTS, fd);
    if (close(fd) < 0 && !rc)
        rc = -errno;
    if (!rc && rename(acl->tmp_path, acl->path) < 0)
        rc = -errno;
    if (!rc) {
        /* The new file is in place and is what a restart reads, so the change stands; only its durability
         * across a power cut is in doubt, which is worth a line in the log but not undoing memory for. */
        int e = fsync_dir(acl->dir);
        if (e)
            log_error("accounts: cannot fsync directory %s: %s", acl->dir, strerror(-e));
        goto out;
    }
    if (rc) {
        log_error("accounts: cannot write %s: %s", acl->path, strerror(-rc));
        unlink(acl->tmp_path);
    }
out:
    memset(b.data, 0, b.cap);
    buf_free(&b);
    return rc;
}

static int read_file(const char *path, uint8_t **data, size_t *len)
{
    int fd = fio_open(FIO_ACCOUNTS, path, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    buf_t b;
    buf_init(&b);
    int rc = 0;
    for (;;) {
        buf_reserve(&b, 65536);
        size_t got = 0;
        if ((rc = fio_pread(FIO_ACCOUNTS, fd, b.data + b.len, b.cap - b.len, -1, &got)) || !got)
            break;
        b.len += got;
    }
    close(fd);
    if (rc) {
        buf_free(&b);
        return rc;
    }
    *data = b.data;
    *len = b.len;
    return 0;
}

/* --- open / close ---------------------------------------------------------------------------------------- */

int acl_open(const char *datadir, acl_t **out)
{
    *out = NULL;
    acl_t *acl = mem_calloc(1, sizeof *acl);
    acl->dir = mem_strdup(datadir);
    size_t n = strlen(datadir) + sizeof ACL_FILE_NAME + 8;
    acl->path = mem_alloc(n);
    snprintf(acl->path, n, "%s/%s", datadir, ACL_FILE_NAME);
    acl->tmp_path = mem_alloc(n);
    snprintf(acl->tmp_path, n, "%s/%s.tmp", datadir, ACL_FILE_NAME);
    /* Writers hold the lock only to swap a pointer; preferring them keeps a stream of logins from starving a
     * CREATE USER (glibc's default prefers readers). */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&acl->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    pthread_mutex_init(&acl->wmu, NULL);
    pthread_mutex_init(&acl->cmu, NULL);
    bool read_only = fio_read_only(FIO_ACCOUNTS); /* innodb_force_recovery: nothing in the datadir changes */
    if (!read_only)
        unlink(acl->tmp_path); /* a write that never reached its rename */

    int rc;
    uint8_t *data = NULL;
    size_t len = 0;
    rc = read_file(acl->path, &data, &len);
    if (rc == -ENOENT) {
        /* First start: root@localhost without a password. */
        table_t *t = mem_calloc(1, sizeof *t);
        acct_t *root = table_add(t, "root", "localhost");
        root->privs = priv_all_at(PL_G) | PRIV_GRANT_OPTION;
        table_sort(t);
        acl->generation = 1;
        if (read_only) {
            log_warn("accounts: %s does not exist: this read-only start has root@localhost alone (no password), in "
                     "memory only", acl->path);
        } else if ((rc = table_persist(acl, t, acl->generation)) != 0) {
            table_free(t);
            rc = STRATA_EIO;
            goto fail;
        }
        if (!read_only)
            log_note("accounts: created %s with root@localhost (no password)", acl->path);
        acl->t = t;
    } else if (rc) {
        log_error("accounts: cannot read %s: %s", acl->path, strerror(-rc));
        rc = STRATA_EIO;
        goto fail;
    } else {
        uint32_t version = 0;
        rc = table_parse(acl->path, data, len, &acl->t, &acl->generation, &version);
        mem_free(data);
        if (rc)
            goto fail;
        if (version < 2) {
            /* Version 1 never interpreted privileges: the server let every account named root do everything
             * and the others nothing beyond their own session.  Keep that, then write version 2. */
            for (size_t i = 0; i < acl->t->n; i++)
                if (!strcmp(acl->t->a[i].user, "root") && !(acl->t->a[i].flags & ACL_FLAG_ROLE))
                    acl->t->a[i].privs = priv_all_at(PL_G) | PRIV_GRANT_OPTION;
            if (!read_only && (rc = table_persist(acl, acl->t, acl->generation + 1)) != 0) {
                rc = STRATA_EIO;
                goto fail;
            }
            acl->generation++;
            log_note("accounts: %s upgraded from format version %u to %u (root keeps all privileges)",
                     acl->path, version, ACL_FORMAT_VERSION);
        }
    }
    acl->version = 1;
    *out = acl;
    return 0;
fail:
    acl_close(acl);
    return rc;
}

void acl_close(acl_t *acl)
{
    if (!acl)
        return;
    table_free(acl->t);
    for (int i = 0; i < CONN_BUCKETS; i++) {
        conn_count_t *c = acl->conns[i];
        while (c) {
            conn_count_t *n = c->next;
            mem_free(c->key);
            mem_free(c);
            c = n;
        }
    }
    pthread_mutex_destroy(&acl->cmu);
    pthread_rwlock_destroy(&acl->lock);
    pthread_mutex_destroy(&acl->wmu);
    mem_free(acl->dir);
    mem_free(acl->path);
    mem_free(acl->tmp_path);
    mem_free(acl);
}

static void grantee_purge(table_t *t, const char *user, const char *host, bool is_role);
static void grantee_rename(table_t *t, const char *fu, const char *fh, const char *tu, const char *th);

uint64_t acl_generation(acl_t *acl)
{
    pthread_rwlock_rdlock(&acl->lock);
    uint64_t g = acl->generation;
    pthread_rwlock_unlock(&acl->lock);
    return g;
}

/* --- writers ----------------------------------------------------------------------------------------------- */

/* Begins a change: takes the writer mutex and returns a private copy of the table to modify. */
static table_t *change_begin(acl_t *acl)
{
    pthread_mutex_lock(&acl->wmu);
    return table_copy(acl->t); /* acl->t only changes under wmu, so reading it here is safe */
}

/* Ends a change: persists and publishes `t` when `changed`, else drops it.  0, or -ER_ERROR_ON_WRITE. */
static int change_end(acl_t *acl, diag_t *d, table_t *t, bool changed)
{
    int rc = 0;
    if (changed) {
        table_sort(t);
        int e = table_persist(acl, t, acl->generation + 1);
        if (e) {
            table_free(t);
            rc = diag_error(d, ER_ERROR_ON_WRITE, acl->path, -e, strerror(-e));
        } else {
            pthread_rwlock_wrlock(&acl->lock);
            table_t *old = acl->t;
            acl->t = t;
            acl->generation++;
            acl->version++;
            pthread_rwlock_unlock(&acl->lock);
            table_free(old);
        }
    } else {
        table_free(t);
    }
    pthread_mutex_unlock(&acl->wmu);
    return rc;
}

/* ER_WRONG_STRING_LENGTH's rendering of a long name: 67 characters and "...". */
static int name_too_long(diag_t *d, const char *s, const char *what, int max)
{
    char shown[300];
    size_t i = 0, chars = 0;
    while (s[i] && chars < 67 && i < sizeof shown - 8) {
        i++;
        while (((uint8_t)s[i] & 0xC0) == 0x80)
            i++;
        chars++;
    }
    snprintf(shown, sizeof shown, "%.*s...", (int)i, s);
    return diag_error(d, ER_WRONG_STRING_LENGTH, shown, what, max);
}

static int check_name(diag_t *d, const char *user, const char *host)
{
    if (strlen(user) > ACL_USER_BYTES || utf8_chars(user) > ACL_USER_CHARS)
        return name_too_long(d, user, "user name", ACL_USER_CHARS);
    if (strlen(host) > ACL_HOST_BYTES || utf8_chars(host) > ACL_HOST_CHARS)
        return name_too_long(d, host, "host name", ACL_HOST_CHARS);
    return 0;
}

static int push_code(diag_t *d, enum diag_level lvl, int code, const char *fmt, const char *a, const char *b)
{
    char msg[2048];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(msg, sizeof msg, fmt, a, b);
#pragma GCC diagnostic pop
    return diag_push_msg(d, lvl, code, msg);
}

static bool password_fits(enum password_plugin p, const char *pw, size_t len)
{
    return !pw || p != PASSWORD_PLUGIN_SHA2 || len <= PASSWORD_SHA2_MAX;
}

static int password_too_long(diag_t *d)
{
    return diag_error(d, ER_WRONG_STRING_LENGTH, "(password)", "password", PASSWORD_SHA2_MAX);
}

/* Checks the auth part of a spec; resolves its plugin (PASSWORD_PLUGIN_NONE if not given).  A hash given without
 * a plugin is checked here for CREATE (it is for the default plugin) and at apply time for ALTER (it is for the
 * account's current plugin). */
static int check_auth(diag_t *d, const acl_user_spec_t *s, bool create, enum password_plugin *plugin)
{
    *plugin = PASSWORD_PLUGIN_NONE;
    if (s->plugin) {
        *plugin = password_plugin_from_name(s->plugin);
        if (*plugin == PASSWORD_PLUGIN_NONE)
            return push_code(d, DIAG_ERROR, ACL_ER_PLUGIN_IS_NOT_LOADED, MSG_PLUGIN_NOT_LOADED, s->plugin, NULL);
    }
    /* Only caching_sha2 limits the length; when no plugin is named, ALTER/SET PASSWORD check the account's. */
    if (*plugin == PASSWORD_PLUGIN_SHA2 && !password_fits(PASSWORD_PLUGIN_SHA2, s->password, s->password_len))
        return password_too_long(d);
    if (s->auth_string && (create || *plugin != PASSWORD_PLUGIN_NONE)) {
        enum password_plugin p = *plugin != PASSWORD_PLUGIN_NONE ? *plugin : PASSWORD_PLUGIN_NATIVE;
        if (strlen(s->auth_string) >= PASSWORD_STORED_MAX || !password_stored_valid(p, s->auth_string, strlen(s->auth_string))) {
            if (p == PASSWORD_PLUGIN_SHA2)
                return diag_push_msg(d, DIAG_ERROR, ACL_ER_PASSWORD_FORMAT, MSG_PASSWORD_FORMAT);
            return diag_push_msg(d, DIAG_ERROR, ACL_ER_PASSWD_LENGTH, MSG_PASSWD_LENGTH);
        }
    }
    return 0;
}

/* Applies the auth part of a spec to an account (plugin resolved by check_auth). */
static void apply_auth(acct_t *a, const acl_user_spec_t *s, enum password_plugin plugin, bool create)
{
    if (plugin != PASSWORD_PLUGIN_NONE)
        a->plugin = plugin;
    char stored[PASSWORD_STORED_MAX];
    if (s->auth_string) {
        snprintf(stored, sizeof stored, "%s", s->auth_string);
    } else if (s->password) {
        password_stored_from(a->plugin, s->password, s->password_len, stored);
    } else if (plugin != PASSWORD_PLUGIN_NONE || create) {
        stored[0] = '\0'; /* IDENTIFIED WITH plugin, no password */
    } else {
        return;
    }
    memset(a->auth, 0, strlen(a->auth));
    mem_free(a->auth);
    a->auth = mem_strdup(stored);
    memset(stored, 0, sizeof stored);
}

static void apply_options(acct_t *a, const acl_user_spec_t *s)
{
    if (s->lock == 0)
        a->flags &= ~(uint32_t)ACL_FLAG_LOCKED;
    else if (s->lock > 0)
        a->flags |= ACL_FLAG_LOCKED;
    if (s->require_ssl == 0)
        a->flags &= ~(uint32_t)ACL_FLAG_REQUIRE_SSL;
    else if (s->require_ssl > 0)
        a->flags |= ACL_FLAG_REQUIRE_SSL;
    if (s->max_user_connections >= 0)
        a->max_conn = (uint32_t)MIN(s->max_user_connections, (int64_t)UINT32_MAX);
}

/* Failed accounts for 1396: 'u'@'h','u2'@'h2' */
static void failed_add(buf_t *b, const char *user, const char *host)
{
    if (b->len)
        buf_append_byte(b, ',');
    buf_printf(b, "'%s'@'%s'", user, host);
}

static int failed_raise(diag_t *d, buf_t *b, const char *op)
{
    int rc = 0;
    if (b->len) {
        buf_append_byte(b, 0);
        rc = diag_error(d, ER_CANNOT_USER, op, (const char *)b->data);
    }
    buf_free(b);
    return rc;
}

static const char *host_or_any(const char *h) { return h ? h : "%"; }

void acl_user_spec_init(acl_user_spec_t *s, const char *user, const char *host)
{
    memset(s, 0, sizeof *s);
    s->user = user;
    s->host = host;
    s->lock = -1;
    s->require_ssl = -1;
    s->max_user_connections = -1;
}

/* Checks every item's name and authentication before anything changes (the statement is all or nothing) and
 * returns the plugin each will use, mem_alloc'd; NULL with the error pushed (*rc set) on the first bad item. */
static enum password_plugin *specs_check(diag_t *d, const acl_user_spec_t *specs, size_t n, bool creating, int *rc)
{
    enum password_plugin *plugins = mem_calloc(n ? n : 1, sizeof *plugins);
    for (size_t i = 0; i < n; i++) {
        if ((*rc = check_name(d, specs[i].user, host_or_any(specs[i].host))) != 0 ||
            (*rc = check_auth(d, &specs[i], creating, &plugins[i])) != 0) {
            mem_free(plugins);
            return NULL;
        }
    }
    return plugins;
}

int acl_create_user(acl_t *acl, diag_t *d, const acl_user_spec_t *specs, size_t n, bool if_not_exists)
{
    int rc = 0;
    enum password_plugin *plugins = specs_check(d, specs, n, true, &rc);
    if (!plugins)
        return rc;
    buf_t failed;
    buf_init(&failed);
    bool changed = false;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n; i++) {
        const acl_user_spec_t *s = &specs[i];
        const char *host = host_or_any(s->host);
        char lh[ACL_HOST_BYTES + 1];
        lower_copy(lh, host, sizeof lh);
        if (table_find(t, s->user, lh) >= 0) {
            if (if_not_exists)
                push_code(d, DIAG_NOTE, ACL_ER_USER_CREATE_EXISTS, MSG_USER_CREATE_EXISTS, s->user, lh);
            else
                failed_add(&failed, s->user, lh);
            continue;
        }
        acct_t *a = table_add(t, s->user, lh);
        apply_auth(a, s, plugins[i], true);
        apply_options(a, s);
        changed = true;
    }
    rc = change_end(acl, d, t, changed);
    mem_free(plugins);
    if (rc) {
        buf_free(&failed);
        return rc;
    }
    return failed_raise(d, &failed, "CREATE USER");
}

int acl_alter_user(acl_t *acl, diag_t *d, const acl_user_spec_t *specs, size_t n, bool if_exists)
{
    int rc = 0;
    enum password_plugin *plugins = specs_check(d, specs, n, false, &rc);
    if (!plugins)
        return rc;
    buf_t failed;
    buf_init(&failed);
    bool changed = false;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n; i++) {
        const acl_user_spec_t *s = &specs[i];
        const char *host = host_or_any(s->host);
        long k = table_find(t, s->user, host);
        if (k < 0) {
            char one[ACL_USER_BYTES + ACL_HOST_BYTES + 8];
            snprintf(one, sizeof one, "'%s'@'%s'", s->user, host);
            if (if_exists)
                diag_note(d, ER_CANNOT_USER, "ALTER USER", one);
            else
                failed_add(&failed, s->user, host);
            continue;
        }
        acct_t *a = &t->a[k];
        /* A password hash given without a plugin is for the account's current plugin. */
        enum password_plugin p = plugins[i];
        if (s->auth_string && p == PASSWORD_PLUGIN_NONE && !password_stored_valid(a->plugin, s->auth_string,
                                                                          strlen(s->auth_string))) {
            rc = a->plugin == PASSWORD_PLUGIN_SHA2
                     ? diag_push_msg(d, DIAG_ERROR, ACL_ER_PASSWORD_FORMAT, MSG_PASSWORD_FORMAT)
                     : diag_push_msg(d, DIAG_ERROR, ACL_ER_PASSWD_LENGTH, MSG_PASSWD_LENGTH);
            changed = false;
            break;
        }
        if (!password_fits(p != PASSWORD_PLUGIN_NONE ? p : a->plugin, s->password, s->password_len)) {
            rc = password_too_long(d);
            changed = false;
            break;
        }
        apply_auth(a, s, p, false);
        apply_options(a, s);
        changed = true;
    }
    int rc2 = change_end(acl, d, t, changed && rc == 0);
    mem_free(plugins);
    if (rc || rc2) {
        buf_free(&failed);
        return rc ? rc : rc2;
    }
    return failed_raise(d, &failed, "ALTER USER");
}

int acl_drop_user(acl_t *acl, diag_t *d, const acl_user_name_t *names, size_t n, bool if_exists)
{
    buf_t failed;
    buf_init(&failed);
    bool changed = false;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n; i++) {
        const char *host = host_or_any(names[i].host);
        long k = table_find(t, names[i].user, host);
        if (k < 0) {
            if (if_exists)
                push_code(d, DIAG_NOTE, ACL_ER_USER_DROP_EXISTS, MSG_USER_DROP_EXISTS, names[i].user, host);
            else
                failed_add(&failed, names[i].user, host);
            continue;
        }
        grantee_purge(t, t->a[k].user, t->a[k].host, (t->a[k].flags & ACL_FLAG_ROLE) != 0);
        table_remove(t, (size_t)k);
        changed = true;
    }
    int rc = change_end(acl, d, t, changed);
    if (rc) {
        buf_free(&failed);
        return rc;
    }
    return failed_raise(d, &failed, "DROP USER");
}

int acl_rename_user(acl_t *acl, diag_t *d, const acl_user_name_t *from, const acl_user_name_t *to, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = check_name(d, to[i].user, host_or_any(to[i].host));
        if (rc)
            return rc;
    }
    buf_t failed;
    buf_init(&failed);
    bool changed = false;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n; i++) {
        const char *fh = host_or_any(from[i].host), *th = host_or_any(to[i].host);
        long k = table_find(t, from[i].user, fh);
        if (k < 0 || table_find(t, to[i].user, th) >= 0) {
            failed_add(&failed, from[i].user, fh);
            continue;
        }
        acct_t *a = &t->a[k];
        grantee_rename(t, a->user, a->host, to[i].user, th);
        mem_free(a->user);
        mem_free(a->host);
        a->user = mem_strdup(to[i].user);
        char lh[ACL_HOST_BYTES + 1];
        lower_copy(lh, th, sizeof lh);
        a->host = mem_strdup(lh);
        a->sort = acct_sort_key(a->user, a->host);
        changed = true;
    }
    int rc = change_end(acl, d, t, changed);
    if (rc) {
        buf_free(&failed);
        return rc;
    }
    return failed_raise(d, &failed, "RENAME USER");
}

int acl_set_password(acl_t *acl, diag_t *d, const char *user, const char *host, const char *password,
                     size_t password_len, const char *auth_string)
{
    host = host_or_any(host);
    table_t *t = change_begin(acl);
    long k = table_find(t, user, host);
    if (k < 0) {
        change_end(acl, d, t, false);
        return diag_error(d, ER_PASSWORD_NO_MATCH);
    }
    acct_t *a = &t->a[k];
    if (auth_string && !password_stored_valid(a->plugin, auth_string, strlen(auth_string))) {
        enum password_plugin p = a->plugin;
        change_end(acl, d, t, false); /* frees t, and a with it */
        if (p == PASSWORD_PLUGIN_SHA2)
            return diag_push_msg(d, DIAG_ERROR, ACL_ER_PASSWORD_FORMAT, MSG_PASSWORD_FORMAT);
        return diag_push_msg(d, DIAG_ERROR, ACL_ER_PASSWD_LENGTH, MSG_PASSWD_LENGTH);
    }
    if (!password_fits(a->plugin, password, password_len)) {
        change_end(acl, d, t, false);
        return password_too_long(d);
    }
    acl_user_spec_t s;
    acl_user_spec_init(&s, user, host);
    s.password = password ? password : "";
    s.password_len = password ? password_len : 0;
    s.auth_string = auth_string;
    apply_auth(a, &s, PASSWORD_PLUGIN_NONE, false);
    return change_end(acl, d, t, true);
}

/* --- grants and roles ---------------------------------------------------------------------------------------- */

/* Removes every grant and role edge held by user@host (and, for a role, every edge granting it). */
static void grantee_purge(table_t *t, const char *user, const char *host, bool is_role)
{
    size_t j = 0;
    for (size_t i = 0; i < t->ng; i++) {
        if (!strcmp(t->g[i].user, user) && !strcasecmp(t->g[i].host, host))
            grant_free(&t->g[i]);
        else
            t->g[j++] = t->g[i];
    }
    t->ng = j;
    j = 0;
    for (size_t i = 0; i < t->ne; i++) {
        edge_t *e = &t->e[i];
        if ((!strcmp(e->user, user) && !strcasecmp(e->host, host)) || (is_role && !strcmp(e->role, user)))
            edge_free(e);
        else
            t->e[j++] = *e;
    }
    t->ne = j;
    if (is_role) {
        for (size_t i = 0; i < t->n; i++) {
            if (t->a[i].default_role && !strcmp(t->a[i].default_role, user)) {
                mem_free(t->a[i].default_role);
                t->a[i].default_role = NULL;
            }
        }
    }
}

static void grantee_rename(table_t *t, const char *fu, const char *fh, const char *tu, const char *th)
{
    char lh[ACL_HOST_BYTES + 1];
    lower_copy(lh, th, sizeof lh);
    for (size_t i = 0; i < t->ng; i++) {
        grant_t *g = &t->g[i];
        if (!strcmp(g->user, fu) && !strcasecmp(g->host, fh)) {
            mem_free(g->user);
            mem_free(g->host);
            g->user = mem_strdup(tu);
            g->host = mem_strdup(lh);
        }
    }
    for (size_t i = 0; i < t->ne; i++) {
        edge_t *e = &t->e[i];
        if (!strcmp(e->user, fu) && !strcasecmp(e->host, fh)) {
            mem_free(e->user);
            mem_free(e->host);
            e->user = mem_strdup(tu);
            e->host = mem_strdup(lh);
        }
    }
}

/* The grantee of a GRANT/REVOKE: user@host, or the role `user` when host was not given and no such account
 * exists.  Index or -1. */
static long grantee_find(const table_t *t, const char *user, const char *host)
{
    long k = table_find(t, user, host_or_any(host));
    if (k < 0 && (!host || !strcmp(host, "%"))) {
        k = table_find(t, user, "");
        if (k >= 0 && !(t->a[k].flags & ACL_FLAG_ROLE))
            k = -1;
    }
    return k;
}

static long role_find(const table_t *t, const char *role)
{
    long k = table_find(t, role, "");
    return k >= 0 && (t->a[k].flags & ACL_FLAG_ROLE) ? k : -1;
}

static long grant_find(const table_t *t, const char *user, const char *host, const char *db, const char *table,
                       const char *column)
{
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        if (strcmp(g->user, user) || strcasecmp(g->host, host) || strcmp(g->db, db))
            continue;
        if (!table != !g->table || (table && strcmp(table, g->table)))
            continue;
        if (!column != !g->column || (column && strcasecmp(column, g->column)))
            continue;
        return (long)i;
    }
    return -1;
}

static void grant_remove(table_t *t, size_t i)
{
    grant_free(&t->g[i]);
    memmove(&t->g[i], &t->g[i + 1], (t->ng - i - 1) * sizeof *t->g);
    t->ng--;
}

/* Whether user@host has any table or column grant on db.table. */
static bool table_grant_exists(const table_t *t, const char *user, const char *host, const char *db,
                               const char *table)
{
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        if (g->table && !strcmp(g->user, user) && !strcasecmp(g->host, host) && !strcmp(g->db, db) &&
            !strcmp(g->table, table))
            return true;
    }
    return false;
}

int acl_privs_change(acl_t *acl, diag_t *d, const acl_priv_change_t *items, size_t n, bool revoke)
{
    int rc = 0;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n && !rc; i++) {
        const acl_priv_change_t *it = &items[i];
        long k = grantee_find(t, it->user, it->host);
        if (k < 0) {
            rc = revoke ? diag_error(d, ER_NONEXISTING_GRANT, it->user, host_or_any(it->host))
                        : diag_error(d, ER_PASSWORD_NO_MATCH);
            break;
        }
        acct_t *a = &t->a[k];
        if (it->level == ACL_LEVEL_GLOBAL) {
            if (revoke)
                a->privs &= ~it->privs;
            else
                a->privs |= it->privs;
            continue;
        }
        const char *table = it->level >= ACL_LEVEL_TABLE ? it->table : NULL;
        const char *column = it->level == ACL_LEVEL_COLUMN ? it->column : NULL;
        long g = grant_find(t, a->user, a->host, it->db, table, column);
        if (!revoke) {
            if (g >= 0)
                t->g[g].privs |= it->privs;
            else
                grant_add(t, a->user, a->host, it->db, table, column, it->privs);
            continue;
        }
        if (it->level == ACL_LEVEL_TABLE) {
            if (!table_grant_exists(t, a->user, a->host, it->db, table)) {
                char *q = mem_alloc(strlen(table) + 3);
                sprintf(q, "'%s'", table);
                rc = diag_error(d, ER_NONEXISTING_TABLE_GRANT, a->user, a->host, q);
                mem_free(q);
                break;
            }
            /* Revoking a privilege on the table takes it from its columns too. */
            for (size_t j = t->ng; j-- > 0;) {
                grant_t *cg = &t->g[j];
                if (cg->table && !strcmp(cg->user, a->user) && !strcasecmp(cg->host, a->host) &&
                    !strcmp(cg->db, it->db) && !strcmp(cg->table, table)) {
                    cg->privs &= ~it->privs;
                    if (!cg->privs)
                        grant_remove(t, j);
                }
            }
            continue;
        }
        if (g < 0) {
            if (it->level == ACL_LEVEL_DB) {
                rc = diag_error(d, ER_NONEXISTING_GRANT, a->user, a->host);
            } else {
                char *q = mem_alloc(strlen(table) + 3);
                sprintf(q, "'%s'", table);
                rc = diag_error(d, ER_NONEXISTING_TABLE_GRANT, a->user, a->host, q);
                mem_free(q);
            }
            break;
        }
        t->g[g].privs &= ~it->privs;
        if (!t->g[g].privs)
            grant_remove(t, (size_t)g);
    }
    int rc2 = change_end(acl, d, t, rc == 0 && n > 0);
    return rc ? rc : rc2;
}

int acl_revoke_all(acl_t *acl, diag_t *d, const acl_user_name_t *names, size_t n)
{
    int rc = 0;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n; i++) {
        long k = grantee_find(t, names[i].user, names[i].host);
        if (k < 0) {
            rc = diag_error(d, ER_REVOKE_GRANTS);
            continue;
        }
        acct_t *a = &t->a[k];
        a->privs = 0;
        char *u = mem_strdup(a->user), *h = mem_strdup(a->host);
        size_t j = 0;
        for (size_t x = 0; x < t->ng; x++) {
            if (!strcmp(t->g[x].user, u) && !strcasecmp(t->g[x].host, h))
                grant_free(&t->g[x]);
            else
                t->g[j++] = t->g[x];
        }
        t->ng = j;
        j = 0;
        for (size_t x = 0; x < t->ne; x++) {
            if (!strcmp(t->e[x].user, u) && !strcasecmp(t->e[x].host, h))
                edge_free(&t->e[x]);
            else
                t->e[j++] = t->e[x];
        }
        t->ne = j;
        mem_free(u);
        mem_free(h);
    }
    /* As MariaDB: the accounts that exist lose their grants even when another one is missing. */
    int rc2 = change_end(acl, d, t, true);
    return rc ? rc : rc2;
}

static bool role_name_reserved(const char *r)
{
    return !strcasecmp(r, "NONE") || !strcasecmp(r, "PUBLIC") || !strcasecmp(r, "CURRENT_ROLE") || !r[0];
}

static int invalid_role(diag_t *d, const char *role)
{
    char msg[ACL_USER_BYTES + 64];
    snprintf(msg, sizeof msg, MSG_INVALID_ROLE, "");
    size_t l = strlen(msg);
    snprintf(msg + l, sizeof msg - l, "`%s`", role);
    return diag_push_msg(d, DIAG_ERROR, ER_INVALID_ROLE, msg);
}

int acl_create_role(acl_t *acl, diag_t *d, const char *role, bool if_not_exists, bool or_replace,
                    const char *admin_user, const char *admin_host)
{
    int rc = check_name(d, role, "");
    if (rc)
        return rc;
    if (role_name_reserved(role))
        return invalid_role(d, role);
    table_t *t = change_begin(acl);
    long k = table_find(t, role, "");
    if (k >= 0 && or_replace && (t->a[k].flags & ACL_FLAG_ROLE)) {
        grantee_purge(t, role, "", true);
        table_remove(t, (size_t)k);
        k = -1;
    }
    if (k >= 0) {
        change_end(acl, d, t, false);
        if (if_not_exists)
            return push_code(d, DIAG_NOTE, ACL_ER_ROLE_CREATE_EXISTS, MSG_ROLE_CREATE_EXISTS, role, NULL), 0;
        char one[ACL_USER_BYTES + 4];
        snprintf(one, sizeof one, "'%s'", role);
        return diag_error(d, ER_CANNOT_USER, "CREATE ROLE", one);
    }
    acct_t *a = table_add(t, role, "");
    a->flags = ACL_FLAG_ROLE;
    if (admin_user && table_find(t, admin_user, host_or_any(admin_host)) >= 0)
        edge_add(t, admin_user, host_or_any(admin_host), role, true);
    return change_end(acl, d, t, true);
}

int acl_drop_role(acl_t *acl, diag_t *d, const char *const *roles, size_t n, bool if_exists)
{
    buf_t failed;
    buf_init(&failed);
    bool changed = false;
    table_t *t = change_begin(acl);
    for (size_t i = 0; i < n; i++) {
        long k = role_find(t, roles[i]);
        if (k < 0) {
            if (if_exists) {
                push_code(d, DIAG_NOTE, ACL_ER_ROLE_DROP_EXISTS, MSG_ROLE_DROP_EXISTS, roles[i], NULL);
            } else {
                if (failed.len)
                    buf_append_byte(&failed, ',');
                buf_printf(&failed, "'%s'", roles[i]);
            }
            continue;
        }
        grantee_purge(t, roles[i], "", true);
        table_remove(t, (size_t)k);
        changed = true;
    }
    int rc = change_end(acl, d, t, changed);
    if (rc) {
        buf_free(&failed);
        return rc;
    }
    return failed_raise(d, &failed, "DROP ROLE");
}

int acl_role_grant(acl_t *acl, diag_t *d, const char *role, const char *user, const char *host, bool admin,
                   bool revoke)
{
    table_t *t = change_begin(acl);
    int rc = 0;
    bool changed = false;
    long r = role_find(t, role);
    long k = grantee_find(t, user, host);
    if (r < 0) {
        rc = invalid_role(d, role);
        goto out;
    }
    if (k < 0) {
        rc = diag_error(d, ER_PASSWORD_NO_MATCH);
        goto out;
    }
    const acct_t *a = &t->a[k];
    long e = -1;
    for (size_t i = 0; i < t->ne; i++)
        if (!strcmp(t->e[i].user, a->user) && !strcasecmp(t->e[i].host, a->host) && !strcmp(t->e[i].role, role))
            e = (long)i;
    if (!revoke) {
        if (!strcmp(a->user, role) && !a->host[0]) {
            rc = invalid_role(d, role); /* a role granted to itself */
            goto out;
        }
        if (e >= 0)
            t->e[e].admin = t->e[e].admin || admin;
        else
            edge_add(t, a->user, a->host, role, admin);
        changed = true;
        goto out;
    }
    if (e < 0) {
        char who[ACL_USER_BYTES + ACL_HOST_BYTES + 8];
        if (a->host[0] || !(a->flags & ACL_FLAG_ROLE))
            snprintf(who, sizeof who, "'%s'@'%s'", a->user, a->host);
        else
            snprintf(who, sizeof who, "'%s'", a->user);
        rc = push_code(d, DIAG_ERROR, ACL_ER_CANNOT_REVOKE_ROLE, MSG_CANNOT_REVOKE_ROLE, role, who);
        goto out;
    }
    if (admin) {
        t->e[e].admin = false;
    } else {
        edge_free(&t->e[e]);
        memmove(&t->e[e], &t->e[e + 1], (t->ne - (size_t)e - 1) * sizeof *t->e);
        t->ne--;
    }
    changed = true;
out:;
    int rc2 = change_end(acl, d, t, changed && rc == 0);
    return rc ? rc : rc2;
}

int acl_set_default_role(acl_t *acl, diag_t *d, const char *user, const char *host, const char *role)
{
    table_t *t = change_begin(acl);
    int rc = 0;
    long k = table_find(t, user, host_or_any(host));
    if (k < 0) {
        change_end(acl, d, t, false);
        return diag_error(d, ER_PASSWORD_NO_MATCH);
    }
    acct_t *a = &t->a[k];
    if (role) {
        bool granted = false;
        for (size_t i = 0; i < t->ne; i++)
            if (!strcmp(t->e[i].user, a->user) && !strcasecmp(t->e[i].host, a->host) && !strcmp(t->e[i].role, role))
                granted = true;
        if (!granted || role_find(t, role) < 0) {
            char who[ACL_USER_BYTES + ACL_HOST_BYTES + 8], r[ACL_USER_BYTES + 4], msg[2048];
            snprintf(who, sizeof who, "`%s`@`%s`", a->user, a->host);
            snprintf(r, sizeof r, "`%s`", role);
            snprintf(msg, sizeof msg, MSG_ROLE_NOT_GRANTED, who, r);
            change_end(acl, d, t, false);
            return diag_push_msg(d, DIAG_ERROR, ER_INVALID_ROLE, msg);
        }
    }
    mem_free(a->default_role);
    a->default_role = strdup_or_null(role);
    rc = change_end(acl, d, t, true);
    return rc;
}

bool acl_role_granted(acl_t *acl, const char *user, const char *host, const char *role, bool *admin)
{
    bool found = false;
    pthread_rwlock_rdlock(&acl->lock);
    const table_t *t = acl->t;
    for (size_t i = 0; i < t->ne && !found; i++) {
        if (!strcmp(t->e[i].user, user) && !strcasecmp(t->e[i].host, host) && !strcmp(t->e[i].role, role)) {
            found = true;
            if (admin)
                *admin = t->e[i].admin;
        }
    }
    pthread_rwlock_unlock(&acl->lock);
    return found;
}

bool acl_is_role(acl_t *acl, const char *name)
{
    pthread_rwlock_rdlock(&acl->lock);
    bool r = role_find(acl->t, name) >= 0;
    pthread_rwlock_unlock(&acl->lock);
    return r;
}

/* --- SHOW GRANTS ----------------------------------------------------------------------------------------------- */

static void put_ident(buf_t *b, const char *s);
static void put_string(buf_t *b, const char *s);

/* "SELECT, INSERT" / "ALL PRIVILEGES" / "USAGE" for bits at a level (GRANT OPTION not named). */
static void privs_text(buf_t *b, uint64_t bits, unsigned level)
{
    bits &= ~(uint64_t)PRIV_GRANT_OPTION;
    uint64_t all = priv_all_at(level);
    if (bits && (bits & all) == all)
        buf_append_str(b, "ALL PRIVILEGES");
    else if (!bits)
        buf_append_str(b, "USAGE");
    else
        priv_names(bits, b);
}

static void grantee_text(buf_t *b, const acct_t *a)
{
    put_ident(b, a->user);
    if (!(a->flags & ACL_FLAG_ROLE)) {
        buf_append_byte(b, '@');
        put_ident(b, a->host);
    }
}

/* The line for one table: table privileges and each column's, in MariaDB's form
 * "SELECT, INSERT (`a`, `b`), UPDATE (`b`)". */
static void table_line(buf_t *b, const table_t *t, const acct_t *a, const grant_t *tg, const char *db,
                       const char *table)
{
    uint64_t tbits = tg ? tg->privs : 0, colbits = 0;
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        if (g->column && !strcmp(g->user, a->user) && !strcasecmp(g->host, a->host) && !strcmp(g->db, db) &&
            !strcmp(g->table, table))
            colbits |= g->privs;
    }
    uint64_t all = priv_all_at(PL_T);
    bool first = true;
    if (!colbits && (tbits & all) == all) {
        buf_append_str(b, "ALL PRIVILEGES");
        first = false;
    } else {
        for (size_t p = 0; p < priv_ndefs; p++) {
            uint64_t bit = priv_defs[p].bit;
            if (bit == PRIV_GRANT_OPTION || !((tbits | colbits) & bit))
                continue;
            if (tbits & bit) {
                if (!first)
                    buf_append_str(b, ", ");
                first = false;
                buf_append_str(b, priv_defs[p].name);
            }
            if (colbits & bit) { /* MariaDB prints both "SELECT, SELECT (`a`)" when both are held */
                if (!first)
                    buf_append_str(b, ", ");
                first = false;
                buf_append_str(b, priv_defs[p].name);
                buf_append_str(b, " (");
                bool cf = true;
                for (size_t i = 0; i < t->ng; i++) {
                    const grant_t *g = &t->g[i];
                    if (g->column && (g->privs & bit) && !strcmp(g->user, a->user) &&
                        !strcasecmp(g->host, a->host) && !strcmp(g->db, db) && !strcmp(g->table, table)) {
                        if (!cf)
                            buf_append_str(b, ", ");
                        cf = false;
                        put_ident(b, g->column);
                    }
                }
                buf_append_byte(b, ')');
            }
        }
    }
    if (first)
        buf_append_str(b, "USAGE");
}


int acl_show_grants(acl_t *acl, diag_t *d, const char *user, const char *host,
                    void (*fn)(void *arg, const char *line), void *arg)
{
    int rc = 0;
    buf_t b;
    buf_init(&b);
    pthread_rwlock_rdlock(&acl->lock);
    const table_t *t = acl->t;
    long k = table_find(t, user, host_or_any(host));
    if (k < 0 && (!host || !strcmp(host, "%") || !host[0]))
        k = role_find(t, user);
    if (k < 0) {
        pthread_rwlock_unlock(&acl->lock);
        buf_free(&b);
        return diag_error(d, ER_NONEXISTING_GRANT, user, host_or_any(host));
    }
    const acct_t *a = &t->a[k];
#define EMIT()                                                                                                 \
    do {                                                                                                       \
        buf_append_byte(&b, 0);                                                                                \
        fn(arg, (const char *)b.data);                                                                         \
        buf_reset(&b);                                                                                         \
    } while (0)
    for (size_t i = 0; i < t->ne; i++) {
        const edge_t *e = &t->e[i];
        if (strcmp(e->user, a->user) || strcasecmp(e->host, a->host))
            continue;
        buf_append_str(&b, "GRANT ");
        put_ident(&b, e->role);
        buf_append_str(&b, " TO ");
        grantee_text(&b, a);
        if (e->admin)
            buf_append_str(&b, " WITH ADMIN OPTION");
        EMIT();
    }
    buf_append_str(&b, "GRANT ");
    privs_text(&b, a->privs, PL_G);
    buf_append_str(&b, " ON *.* TO ");
    grantee_text(&b, a);
    if (a->auth[0] && !(a->flags & ACL_FLAG_ROLE)) {
        if (a->plugin == PASSWORD_PLUGIN_NATIVE) {
            buf_append_str(&b, " IDENTIFIED BY PASSWORD ");
            put_string(&b, a->auth);
        } else {
            buf_printf(&b, " IDENTIFIED VIA %s USING ", password_plugin_name(a->plugin));
            put_string(&b, a->auth);
        }
    }
    if (a->flags & ACL_FLAG_REQUIRE_SSL)
        buf_append_str(&b, " REQUIRE SSL");
    /* MariaDB: "WITH GRANT OPTION MAX_USER_CONNECTIONS n" (one WITH for both) */
    if (a->privs & PRIV_GRANT_OPTION)
        buf_append_str(&b, " WITH GRANT OPTION");
    if (a->max_conn)
        buf_printf(&b, "%s MAX_USER_CONNECTIONS %u", (a->privs & PRIV_GRANT_OPTION) ? "" : " WITH", a->max_conn);
    EMIT();
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        if (g->table || strcmp(g->user, a->user) || strcasecmp(g->host, a->host))
            continue;
        buf_append_str(&b, "GRANT ");
        privs_text(&b, g->privs, PL_D);
        buf_append_str(&b, " ON ");
        put_ident(&b, g->db); /* as stored: `test\\_%` prints so, as MariaDB */
        buf_append_str(&b, ".* TO ");
        grantee_text(&b, a);
        if (g->privs & PRIV_GRANT_OPTION)
            buf_append_str(&b, " WITH GRANT OPTION");
        EMIT();
    }
    /* Tables: one line each, in the order of their first table or column grant. */
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        if (!g->table || strcmp(g->user, a->user) || strcasecmp(g->host, a->host))
            continue;
        bool seen = false;
        const grant_t *tg = NULL;
        for (size_t j = 0; j < t->ng; j++) {
            const grant_t *h = &t->g[j];
            if (!h->table || strcmp(h->user, a->user) || strcasecmp(h->host, a->host) || strcmp(h->db, g->db) ||
                strcmp(h->table, g->table))
                continue;
            if (j < i)
                seen = true;
            if (!h->column)
                tg = h;
        }
        if (seen)
            continue;
        buf_append_str(&b, "GRANT ");
        table_line(&b, t, a, tg, g->db, g->table);
        buf_append_str(&b, " ON ");
        put_ident(&b, g->db);
        buf_append_byte(&b, '.');
        put_ident(&b, g->table);
        buf_append_str(&b, " TO ");
        grantee_text(&b, a);
        if (tg && (tg->privs & PRIV_GRANT_OPTION))
            buf_append_str(&b, " WITH GRANT OPTION");
        EMIT();
    }
    if (a->default_role) {
        buf_append_str(&b, "SET DEFAULT ROLE ");
        put_ident(&b, a->default_role);
        buf_append_str(&b, " FOR ");
        grantee_text(&b, a);
        EMIT();
    }
#undef EMIT
    pthread_rwlock_unlock(&acl->lock);
    buf_free(&b);
    return rc;
}

/* --- resolved privileges ------------------------------------------------------------------------------------ */

typedef struct rgrant {
    char *db, *table, *column; /* table/column NULL by level */
    uint64_t privs;
    bool pattern;              /* db has unescaped wildcards */
} rgrant_t;

struct acl_privs {
    uint64_t global;
    rgrant_t *g;
    size_t ng, cap;
};

static bool has_wildcards(const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' && s[1])
            s++;
        else if (*s == '%' || *s == '_')
            return true;
    }
    return false;
}

/* Database patterns in grants match case-sensitively. */
static bool db_match(const char *p, const char *s) { return like_match(p, s, false); }

static void privs_collect(const table_t *t, acl_privs_t *p, const char *user, const char *host)
{
    long k = table_find(t, user, host);
    if (k < 0)
        return;
    p->global |= t->a[k].privs;
    for (size_t i = 0; i < t->ng; i++) {
        const grant_t *g = &t->g[i];
        if (strcmp(g->user, user) || strcasecmp(g->host, host))
            continue;
        if (p->ng == p->cap) {
            p->cap = p->cap ? p->cap * 2 : 8;
            p->g = mem_realloc(p->g, p->cap * sizeof *p->g);
        }
        rgrant_t *r = &p->g[p->ng++];
        r->db = mem_strdup(g->db);
        r->table = strdup_or_null(g->table);
        r->column = strdup_or_null(g->column);
        r->privs = g->privs;
        r->pattern = !g->table && has_wildcards(g->db);
    }
}

acl_privs_t *acl_privs_resolve(acl_t *acl, const char *user, const char *host, const char *role)
{
    acl_privs_t *p = mem_calloc(1, sizeof *p);
    pthread_rwlock_rdlock(&acl->lock);
    const table_t *t = acl->t;
    privs_collect(t, p, user, host);
    /* The active role, then the roles granted to it, breadth first, each once. */
    const char **todo = NULL;
    size_t nt = 0, cap = 0;
    if (role && role_find(t, role) >= 0) {
        cap = 8;
        todo = mem_alloc(cap * sizeof *todo);
        todo[nt++] = role;
    }
    for (size_t i = 0; i < nt; i++) {
        privs_collect(t, p, todo[i], "");
        for (size_t e = 0; e < t->ne; e++) {
            if (strcmp(t->e[e].user, todo[i]) || t->e[e].host[0])
                continue;
            bool dup = false;
            for (size_t j = 0; j < nt; j++)
                dup = dup || !strcmp(todo[j], t->e[e].role);
            if (dup)
                continue;
            if (nt == cap) {
                cap *= 2;
                todo = mem_realloc(todo, cap * sizeof *todo);
            }
            todo[nt++] = t->e[e].role;
        }
    }
    pthread_rwlock_unlock(&acl->lock);
    mem_free(todo);
    return p;
}

void acl_privs_free(acl_privs_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ng; i++) {
        mem_free(p->g[i].db);
        mem_free(p->g[i].table);
        mem_free(p->g[i].column);
    }
    mem_free(p->g);
    mem_free(p);
}

uint64_t acl_privs_global(const acl_privs_t *p) { return p->global; }

uint64_t acl_privs_db(const acl_privs_t *p, const char *db)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < p->ng; i++) {
        const rgrant_t *r = &p->g[i];
        if (r->table)
            continue;
        if (r->pattern ? db_match(r->db, db) : !strcmp(r->db, db))
            bits |= r->privs;
    }
    return bits;
}

uint64_t acl_privs_table(const acl_privs_t *p, const char *db, const char *table, uint64_t *columns)
{
    uint64_t bits = 0, cols = 0;
    for (size_t i = 0; i < p->ng; i++) {
        const rgrant_t *r = &p->g[i];
        if (!r->table || strcmp(r->db, db) || strcmp(r->table, table))
            continue;
        if (r->column)
            cols |= r->privs;
        else
            bits |= r->privs;
    }
    if (columns)
        *columns = cols;
    return bits;
}

uint64_t acl_privs_column(const acl_privs_t *p, const char *db, const char *table, const char *column)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < p->ng; i++) {
        const rgrant_t *r = &p->g[i];
        if (r->column && !strcmp(r->db, db) && !strcmp(r->table, table) && !strcasecmp(r->column, column))
            bits |= r->privs;
    }
    return bits;
}

bool acl_privs_db_has_tables(const acl_privs_t *p, const char *db)
{
    for (size_t i = 0; i < p->ng; i++)
        if (p->g[i].table && !strcmp(p->g[i].db, db) && p->g[i].privs)
            return true;
    return false;
}

/* --- readers ------------------------------------------------------------------------------------------------ */

int acl_find_for_login(acl_t *acl, const char *user, const char *client_host, const char *client_ip,
                       bool is_localhost, acl_account_t *out)
{
    int rc = STRATA_ENOTFOUND;
    pthread_rwlock_rdlock(&acl->lock);
    const table_t *t = acl->t;
    for (size_t i = 0; i < t->n; i++) {
        const acct_t *a = &t->a[i];
        if (a->flags & ACL_FLAG_ROLE)
            continue;
        if (!acl_host_matches(a->host, client_host, client_ip, is_localhost))
            continue;
        if (a->user[0] && strcmp(a->user, user) != 0)
            continue;
        acct_export(a, out);
        rc = 0;
        break;
    }
    pthread_rwlock_unlock(&acl->lock);
    return rc;
}

int acl_get(acl_t *acl, const char *user, const char *host, acl_account_t *out)
{
    pthread_rwlock_rdlock(&acl->lock);
    long k = table_find(acl->t, user, host_or_any(host));
    if (k >= 0)
        acct_export(&acl->t->a[k], out);
    pthread_rwlock_unlock(&acl->lock);
    return k >= 0 ? 0 : STRATA_ENOTFOUND;
}

static void put_ident(buf_t *b, const char *s)
{
    buf_append_byte(b, '`');
    for (; *s; s++) {
        if (*s == '`')
            buf_append_byte(b, '`');
        buf_append_byte(b, (uint8_t)*s);
    }
    buf_append_byte(b, '`');
}

static void put_string(buf_t *b, const char *s)
{
    buf_append_byte(b, '\'');
    for (; *s; s++) {
        switch (*s) {
        case '\'':
            buf_append_str(b, "\\'");
            break;
        case '\\':
            buf_append_str(b, "\\\\");
            break;
        case '\n':
            buf_append_str(b, "\\n");
            break;
        case '\r':
            buf_append_str(b, "\\r");
            break;
        case '\t':
            buf_append_str(b, "\\t");
            break;
        case 0x1a:
            buf_append_str(b, "\\Z");
            break;
        default:
            buf_append_byte(b, (uint8_t)*s);
        }
    }
    buf_append_byte(b, '\'');
}

int acl_show_create_user(acl_t *acl, diag_t *d, const char *user, const char *host, buf_t *out)
{
    acl_account_t a;
    if (acl_get(acl, user, host, &a) != 0)
        return diag_error(d, ER_PASSWORD_NO_MATCH);
    buf_append_str(out, "CREATE USER ");
    put_ident(out, a.user);
    buf_append_byte(out, '@');
    put_ident(out, a.host);
    if (a.plugin == PASSWORD_PLUGIN_NATIVE) {
        if (a.auth[0]) {
            buf_append_str(out, " IDENTIFIED BY PASSWORD ");
            put_string(out, a.auth);
        }
    } else {
        buf_printf(out, " IDENTIFIED VIA %s", password_plugin_name(a.plugin));
        if (a.auth[0]) {
            buf_append_str(out, " USING ");
            put_string(out, a.auth);
        }
    }
    if (a.flags & ACL_FLAG_REQUIRE_SSL)
        buf_append_str(out, " REQUIRE SSL");
    if (a.max_user_connections)
        buf_printf(out, " WITH MAX_USER_CONNECTIONS %u", a.max_user_connections);
    if (a.flags & ACL_FLAG_LOCKED)
        buf_append_str(out, " ACCOUNT LOCK");
    memset(&a, 0, sizeof a);
    return 0;
}

bool acl_root_has_empty_password(acl_t *acl)
{
    bool empty = false;
    pthread_rwlock_rdlock(&acl->lock);
    for (size_t i = 0; i < acl->t->n; i++) {
        const acct_t *a = &acl->t->a[i];
        if (!strcmp(a->user, "root") && !a->auth[0] && !(a->flags & (ACL_FLAG_LOCKED | ACL_FLAG_ROLE)))
            empty = true;
    }
    pthread_rwlock_unlock(&acl->lock);
    return empty;
}

void acl_foreach(acl_t *acl, void (*fn)(const acl_account_t *a, void *arg), void *arg)
{
    acl_account_t *a = mem_alloc(sizeof *a);
    pthread_rwlock_rdlock(&acl->lock);
    for (size_t i = 0; i < acl->t->n; i++) {
        acct_export(&acl->t->a[i], a);
        fn(a, arg);
    }
    pthread_rwlock_unlock(&acl->lock);
    memset(a, 0, sizeof *a);
    mem_free(a);
}

size_t acl_count(acl_t *acl)
{
    pthread_rwlock_rdlock(&acl->lock);
    size_t n = acl->t->n;
    pthread_rwlock_unlock(&acl->lock);
    return n;
}

uint64_t acl_version(acl_t *acl)
{
    pthread_rwlock_rdlock(&acl->lock);
    uint64_t v = acl->version;
    pthread_rwlock_unlock(&acl->lock);
    return v;
}

/* --- live connections per account ------------------------------------------------------------------------ */

static unsigned conn_hash(const char *k)
{
    return (unsigned)(hash_str(k) % CONN_BUCKETS);
}

/* The entry for key, created if `create`; NULL if absent.  Called with cmu held. */
static conn_count_t *conn_find(acl_t *acl, const char *key, bool create)
{
    unsigned h = conn_hash(key);
    for (conn_count_t *c = acl->conns[h]; c; c = c->next)
        if (!strcmp(c->key, key))
            return c;
    if (!create)
        return NULL;
    conn_count_t *c = mem_calloc(1, sizeof *c);
    c->key = mem_strdup(key);
    c->next = acl->conns[h];
    acl->conns[h] = c;
    return c;
}

int acl_connection_enter(acl_t *acl, const acl_account_t *a, uint32_t global_limit, uint32_t *limit_out)
{
    char key[ACL_USER_BYTES + ACL_HOST_BYTES + 32];
    acl_account_key(a->user, a->host, key, sizeof key);
    uint32_t limit = a->max_user_connections ? a->max_user_connections : global_limit;
    int rc = 0;
    pthread_mutex_lock(&acl->cmu);
    conn_count_t *c = conn_find(acl, key, true);
    if (limit && c->n >= limit) {
        rc = STRATA_ETOOBIG;
        if (limit_out)
            *limit_out = limit;
    } else {
        c->n++;
    }
    pthread_mutex_unlock(&acl->cmu);
    return rc;
}

void acl_connection_leave(acl_t *acl, const acl_account_t *a)
{
    char key[ACL_USER_BYTES + ACL_HOST_BYTES + 32];
    acl_account_key(a->user, a->host, key, sizeof key);
    pthread_mutex_lock(&acl->cmu);
    conn_count_t *c = conn_find(acl, key, false);
    if (ALWAYS(c && c->n > 0))
        c->n--;
    pthread_mutex_unlock(&acl->cmu);
}

uint32_t acl_connection_count(acl_t *acl, const char *user, const char *host)
{
    char key[ACL_USER_BYTES + ACL_HOST_BYTES + 32];
    char lh[ACL_HOST_BYTES + 1];
    lower_copy(lh, host_or_any(host), sizeof lh);
    acl_account_key(user, lh, key, sizeof key);
    pthread_mutex_lock(&acl->cmu);
    conn_count_t *c = conn_find(acl, key, false);
    uint32_t n = c ? c->n : 0;
    pthread_mutex_unlock(&acl->cmu);
    return n;
}
