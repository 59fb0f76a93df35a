/*
 * The catalog, stored in one engine tree (the "system tree") and cached in memory (see catalog.h).
 *
 * ---- Where the system tree is ------------------------------------------------------------------------------
 * The engine has no reserved tree id, so the catalog creates its tree on a fresh datadir and records the id in
 * <datadir>/strata_catalog.id, one line written once (tmp file, fsync, rename, fsync of the directory):
 *     "strata-catalog 1 <tree id>\n"
 * ---- Records in the system tree (all values start with a version byte, 1) ----------------------------------
 *   key                       value
 *   'N'                       [1][varint next table id]
 *   'A' id(8, big-endian)     [1][varint AUTO_INCREMENT counter] written at a clean shutdown and by
 *                             catalog_autoinc_persist (ALTER TABLE ... AUTO_INCREMENT=, TRUNCATE); at load the
 *                             counter is the larger of this and the largest value in the data + 1
 *   'D' db                    [1][varint default collation]
 *   'R' domain(8, big-endian) [1][varint server_id][varint seq_no]: the replica's last applied GTID in that
 *                             domain (gtid_slave_pos), written in the transaction that applied it
 *   'Q' 0(8)                  [1][str source file][varint position]: the source position it applied up to
 *   'S' id(8, big-endian)     the table's optimizer statistics, written by ANALYZE TABLE; the value is
 *                             access/stats.c's (catalog_aux_put/get), deleted with the table
 *   'V' hash(8, big-endian)   a view: access/view.c's record (XXH3 of "db\0name", unseeded so it is the same
 *                             in every run; the record names its view, so two names of one hash are refused)
 *   'G' hash(8, big-endian)   a trigger: access/trigger.c's record (XXH3 of "T" db 0x00 name)
 *   'E' hash(8, big-endian)   an event: access/event.c's record (XXH3 of "event" db 0x00 lower-cased name)
 *   'L' seq(8, big-endian)    a DDL or account statement whose change may be durable while its binlog QUERY event
 *                             is not (value: commit/commit.c draws it); put by every catalog commit of a DDL
 *                             statement (catalog_ddl_pending_set) in the same engine transaction, deleted by the
 *                             engine commit made in the event's binlog order, settled at recovery
 *   'T' db 0x00 table         table record:
 *      [1] varint id, str db, str name, varint clustered tree, u8 has_pk, str engine, varint coll, str comment,
 *      str tablespace ("" = default), varint space id, varint auto_inc_start, varint create_time,
 *      varint ncols, per column: str name, u8 type, u8 flags (1 unsigned, 2 nullable, 4 zerofill,
 *        8 auto_increment, 16 on_update_now, 32 explicit_coll, 64 invisible, 128 json), varint coll, varint len, u8 scale,
 *        varint display_width, u8 default kind (0 none, 1 NULL, 2 value, 3 CURRENT_TIMESTAMP, 4 expression:
 *        default_text is its SQL, evaluated per row; older binaries read 4 as no default), str default_text,
 *        str comment, varint nelems, str elem...
 *      varint nidx, per index: str name, u8 kind, varint tree, u8 key_version, str comment, varint ncols,
 *        per column: varint col, varint prefix, u8 desc
 *      and then, when the record goes on (older records end here: no constraints):
 *      varint nfks, per foreign key: str name, str ref_db, str ref_table, u8 on_delete, u8 on_update (cat_fk_action_t),
 *        varint ncols, per column: str column, str referenced column
 *      varint nchecks, per CHECK constraint: str name, str expression (MariaDB's printed form), u8 column-level
 *      and then, when the record goes on (older records end here: no generated columns):
 *      varint ngenerated, per generated column: varint column, u8 flags (1 STORED / PERSISTENT, else VIRTUAL;
 *        2 computed again on read: a VIRTUAL one of a non-deterministic expression), str expression (MariaDB's
 *        printed form)
 *   (str = varint length + bytes; varints are LEB128, rowcodec.h)
 *
 * ---- Crash safety ------------------------------------------------------------------------------------------
 * engine_tree_create/drop are durable at return and outside any trx.  A CREATE makes its trees first and then
 * commits the record; a DROP commits the record's removal and then drops the trees.  A crash between the two
 * steps leaves a tree no record names (leaked space, never a record naming a missing tree).
 *
 * ---- Locks -------------------------------------------------------------------------------------------------
 * c->ddl (mutex) serialises DDL; c->lock (rwlock) guards the in-memory lists; order: ddl, then lock.  No engine
 * call is made while holding c->lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "access/catalog.h"
#include "util/fio.h"
#include "util/util.h"

#define CAT_REC_VERSION 1
#define CAT_ID_FILE "strata_catalog.id"

typedef struct cat_db {
    char *name;
    uint16_t coll;
} cat_db_t;

struct catalog {
    engine_t *e;
    engine_tree_id_t sys;
    pthread_mutex_t ddl;
    pthread_rwlock_t lock;
    _Atomic uint64_t version;
    _Atomic uint64_t fk_any;    /* catalog_fk_any's last answer: (version + 1) << 1 | any (0: none yet) */
    cat_db_t *dbs;
    uint32_t ndbs, capdbs;
    cat_table_t **tabs;
    uint32_t ntabs, captabs;
    uint64_t next_id;
};

typedef struct sys_op {
    buf_t key;
    buf_t val;
    bool del;
} sys_op_t;

static int sys_commit(catalog_t *c, sys_op_t *ops, int n);

static const char *const virtual_dbs[] = {"information_schema", "mysql", "performance_schema"};

/* ---------------------------------------------------------------- type names */

static const char *const type_names[SQLT__COUNT] = {
    [SQLT_TINYINT] = "tinyint", [SQLT_SMALLINT] = "smallint", [SQLT_MEDIUMINT] = "mediumint", [SQLT_INT] = "int",
    [SQLT_BIGINT] = "bigint", [SQLT_DECIMAL] = "decimal", [SQLT_FLOAT] = "float", [SQLT_DOUBLE] = "double",
    [SQLT_BIT] = "bit", [SQLT_CHAR] = "char", [SQLT_VARCHAR] = "varchar", [SQLT_BINARY] = "binary",
    [SQLT_VARBINARY] = "varbinary", [SQLT_TINYTEXT] = "tinytext", [SQLT_TEXT] = "text",
    [SQLT_MEDIUMTEXT] = "mediumtext", [SQLT_LONGTEXT] = "longtext", [SQLT_TINYBLOB] = "tinyblob",
    [SQLT_BLOB] = "blob", [SQLT_MEDIUMBLOB] = "mediumblob", [SQLT_LONGBLOB] = "longblob", [SQLT_DATE] = "date",
    [SQLT_DATETIME] = "datetime", [SQLT_TIMESTAMP] = "timestamp", [SQLT_TIME] = "time", [SQLT_YEAR] = "year",
    [SQLT_ENUM] = "enum", [SQLT_SET] = "set",
};

const char *sqlt_name(sqlt_t t) { return t > SQLT_NONE && t < SQLT__COUNT ? type_names[t] : "?"; }

sqlt_t sqlt_by_name(const char *name)
{
    for (int t = 1; t < SQLT__COUNT; t++)
        if (strcasecmp(type_names[t], name) == 0)
            return (sqlt_t)t;
    if (strcasecmp(name, "integer") == 0)
        return SQLT_INT;
    if (strcasecmp(name, "bool") == 0 || strcasecmp(name, "boolean") == 0)
        return SQLT_TINYINT;
    if (strcasecmp(name, "numeric") == 0 || strcasecmp(name, "dec") == 0 || strcasecmp(name, "fixed") == 0)
        return SQLT_DECIMAL;
    if (strcasecmp(name, "real") == 0)
        return SQLT_DOUBLE;
    return SQLT_NONE;
}

/* ---------------------------------------------------------------- record writer/reader */

static void put_str(buf_t *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    rc_put_varint(b, n);
    buf_append(b, s ? s : "", n);
}

typedef struct rd {
    const uint8_t *p, *end;
    arena_t *a;
    bool bad;
} rd_t;

static uint64_t get_v(rd_t *r)
{
    uint64_t v = 0;
    if (!r->bad && rc_get_varint(&r->p, r->end, &v) < 0)
        r->bad = true;
    return r->bad ? 0 : v;
}

static uint8_t get_u8(rd_t *r)
{
    if (r->bad || r->p >= r->end) {
        r->bad = true;
        return 0;
    }
    return *r->p++;
}

static const char *get_str(rd_t *r)
{
    uint64_t n = get_v(r);
    if (r->bad || n > (uint64_t)(r->end - r->p)) {
        r->bad = true;
        return "";
    }
    const char *s = arena_strndup(r->a, (const char *)r->p, (size_t)n);
    r->p += n;
    return s;
}

static void table_serialize(buf_t *b, const cat_table_t *t)
{
    buf_append_byte(b, CAT_REC_VERSION);
    rc_put_varint(b, t->id);
    put_str(b, t->db);
    put_str(b, t->name);
    rc_put_varint(b, t->tree);
    buf_append_byte(b, t->has_pk);
    put_str(b, t->engine);
    rc_put_varint(b, t->coll);
    put_str(b, t->comment);
    put_str(b, t->tablespace);
    rc_put_varint(b, t->space_id);
    rc_put_varint(b, t->auto_inc_start);
    rc_put_varint(b, (uint64_t)t->create_time);
    rc_put_varint(b, t->ncols);
    for (uint32_t i = 0; i < t->ncols; i++) {
        const cat_column_t *c = &t->cols[i];
        put_str(b, c->name);
        buf_append_byte(b, c->rc.type);
        buf_append_byte(b, (uint8_t)(c->rc.is_unsigned | c->rc.nullable << 1 | c->zerofill << 2 | c->auto_increment << 3 |
                                     c->on_update_now << 4 | c->explicit_coll << 5 | c->invisible << 6 |
                                     c->is_json << 7));
        rc_put_varint(b, c->rc.coll);
        rc_put_varint(b, c->rc.len);
        buf_append_byte(b, c->rc.scale);
        rc_put_varint(b, c->display_width);
        buf_append_byte(b, (uint8_t)c->def);
        put_str(b, c->default_text);
        put_str(b, c->comment);
        rc_put_varint(b, c->nelems);
        for (uint32_t k = 0; k < c->nelems; k++)
            put_str(b, c->elems[k]);
    }
    rc_put_varint(b, t->nidx);
    for (uint32_t i = 0; i < t->nidx; i++) {
        const cat_index_t *x = &t->idx[i];
        put_str(b, x->name);
        buf_append_byte(b, (uint8_t)x->kind);
        rc_put_varint(b, x->tree);
        buf_append_byte(b, x->key_version);
        put_str(b, x->comment);
        rc_put_varint(b, x->ncols);
        for (uint32_t k = 0; k < x->ncols; k++) {
            rc_put_varint(b, x->cols[k].col);
            rc_put_varint(b, x->cols[k].prefix);
            buf_append_byte(b, x->cols[k].desc);
        }
    }
    rc_put_varint(b, t->nfks);
    for (uint32_t i = 0; i < t->nfks; i++) {
        const cat_fk_t *f = &t->fks[i];
        put_str(b, f->name);
        put_str(b, f->ref_db);
        put_str(b, f->ref_table);
        buf_append_byte(b, f->on_delete);
        buf_append_byte(b, f->on_update);
        rc_put_varint(b, f->ncols);
        for (uint32_t k = 0; k < f->ncols; k++) {
            put_str(b, f->cols[k]);
            put_str(b, f->ref_cols[k]);
        }
    }
    rc_put_varint(b, t->nchecks);
    for (uint32_t i = 0; i < t->nchecks; i++) {
        put_str(b, t->checks[i].name);
        put_str(b, t->checks[i].expr);
        buf_append_byte(b, t->checks[i].column);
    }
    uint32_t ngen = 0;
    for (uint32_t i = 0; i < t->ncols; i++)
        ngen += t->cols[i].gen_expr != NULL;
    if (!ngen)
        return; /* the record as before generated columns */
    rc_put_varint(b, ngen);
    for (uint32_t i = 0; i < t->ncols; i++)
        if (t->cols[i].gen_expr) {
            rc_put_varint(b, i);
            buf_append_byte(b, (uint8_t)(t->cols[i].gen_stored | t->cols[i].gen_on_read << 1));
            put_str(b, t->cols[i].gen_expr);
        }
}

/* Reads a table record into t (strings and arrays in a).  0 or STRATA_ECORRUPT. */
static int table_deserialize(const void *p, size_t n, arena_t *a, cat_table_t *t)
{
    rd_t r = {p, (const uint8_t *)p + n, a, false};
    memset(t, 0, sizeof *t);
    if (get_u8(&r) != CAT_REC_VERSION)
        return STRATA_ECORRUPT;
    t->id = get_v(&r);
    t->db = get_str(&r);
    t->name = get_str(&r);
    t->tree = get_v(&r);
    t->has_pk = get_u8(&r);
    t->engine = get_str(&r);
    t->coll = (uint16_t)get_v(&r);
    t->comment = get_str(&r);
    t->tablespace = get_str(&r);
    if (!t->tablespace[0])
        t->tablespace = NULL;
    t->space_id = (uint32_t)get_v(&r);
    t->auto_inc_start = get_v(&r);
    t->create_time = (int64_t)get_v(&r);
    t->ncols = (uint32_t)get_v(&r);
    if (r.bad || t->ncols > 4096)
        return STRATA_ECORRUPT;
    t->cols = arena_calloc(a, sizeof(cat_column_t) * (t->ncols + 1));
    for (uint32_t i = 0; i < t->ncols && !r.bad; i++) {
        cat_column_t *c = &t->cols[i];
        c->name = get_str(&r);
        c->rc.type = get_u8(&r);
        uint8_t f = get_u8(&r);
        c->rc.is_unsigned = f & 1;
        c->rc.nullable = f & 2;
        c->zerofill = f & 4;
        c->auto_increment = f & 8;
        c->on_update_now = f & 16;
        c->explicit_coll = f & 32;
        c->invisible = f & 64;
        c->is_json = f & 128;
        c->rc.coll = (uint16_t)get_v(&r);
        c->rc.len = (uint32_t)get_v(&r);
        c->rc.scale = get_u8(&r);
        c->display_width = (uint32_t)get_v(&r);
        c->def = (cat_default_t)get_u8(&r);
        c->default_text = get_str(&r);
        c->comment = get_str(&r);
        c->nelems = (uint32_t)get_v(&r);
        if (r.bad || c->nelems > 65535)
            return STRATA_ECORRUPT;
        c->elems = arena_calloc(a, sizeof(char *) * (c->nelems + 1));
        for (uint32_t k = 0; k < c->nelems; k++)
            c->elems[k] = get_str(&r);
    }
    t->nidx = (uint32_t)get_v(&r);
    if (r.bad || t->nidx > 1024)
        return STRATA_ECORRUPT;
    t->idx = arena_calloc(a, sizeof(cat_index_t) * (t->nidx + 1));
    for (uint32_t i = 0; i < t->nidx && !r.bad; i++) {
        cat_index_t *x = &t->idx[i];
        x->name = get_str(&r);
        x->kind = (cat_index_kind_t)get_u8(&r);
        x->tree = get_v(&r);
        x->key_version = get_u8(&r);
        x->comment = get_str(&r);
        x->ncols = (uint32_t)get_v(&r);
        if (r.bad || x->ncols > 64)
            return STRATA_ECORRUPT;
        x->cols = arena_calloc(a, sizeof(cat_index_col_t) * (x->ncols + 1));
        for (uint32_t k = 0; k < x->ncols; k++) {
            x->cols[k].col = (uint32_t)get_v(&r);
            x->cols[k].prefix = (uint32_t)get_v(&r);
            x->cols[k].desc = get_u8(&r);
            if (x->cols[k].col >= t->ncols)
                r.bad = true;
        }
    }
    if (r.bad || r.p >= r.end)
        return r.bad ? STRATA_ECORRUPT : 0; /* a record from before constraints */
    t->nfks = (uint32_t)get_v(&r);
    if (r.bad || t->nfks > 1024)
        return STRATA_ECORRUPT;
    t->fks = arena_calloc(a, sizeof(cat_fk_t) * (t->nfks + 1));
    for (uint32_t i = 0; i < t->nfks && !r.bad; i++) {
        cat_fk_t *f = &t->fks[i];
        f->name = get_str(&r);
        f->ref_db = get_str(&r);
        f->ref_table = get_str(&r);
        f->on_delete = get_u8(&r);
        f->on_update = get_u8(&r);
        f->ncols = (uint32_t)get_v(&r);
        if (r.bad || f->ncols == 0 || f->ncols > 64 || f->on_delete > CAT_FK_NO_ACTION || f->on_update > CAT_FK_NO_ACTION)
            return STRATA_ECORRUPT;
        f->cols = arena_calloc(a, sizeof(char *) * f->ncols);
        f->ref_cols = arena_calloc(a, sizeof(char *) * f->ncols);
        for (uint32_t k = 0; k < f->ncols; k++) {
            f->cols[k] = get_str(&r);
            f->ref_cols[k] = get_str(&r);
        }
    }
    t->nchecks = (uint32_t)get_v(&r);
    if (r.bad || t->nchecks > 4096)
        return STRATA_ECORRUPT;
    t->checks = arena_calloc(a, sizeof(cat_check_t) * (t->nchecks + 1));
    for (uint32_t i = 0; i < t->nchecks && !r.bad; i++) {
        t->checks[i].name = get_str(&r);
        t->checks[i].expr = get_str(&r);
        t->checks[i].column = get_u8(&r) != 0;
    }
    if (r.bad || r.p >= r.end)
        return r.bad ? STRATA_ECORRUPT : 0; /* no generated columns */
    uint32_t ngen = (uint32_t)get_v(&r);
    if (r.bad || ngen > t->ncols)
        return STRATA_ECORRUPT;
    for (uint32_t i = 0; i < ngen && !r.bad; i++) {
        uint64_t c = get_v(&r);
        uint8_t f = get_u8(&r);
        const char *e = get_str(&r);
        if (r.bad || c >= t->ncols || !e[0] || f > 3)
            return STRATA_ECORRUPT;
        t->cols[c].gen_expr = e;
        t->cols[c].gen_stored = f & 1;
        t->cols[c].gen_on_read = (f & 2) != 0;
        t->gen_on_read |= t->cols[c].gen_on_read;
    }
    return r.bad ? STRATA_ECORRUPT : 0;
}

cat_table_t *cat_table_copy(arena_t *a, const cat_table_t *t)
{
    buf_t b;
    buf_init(&b);
    table_serialize(&b, t);
    cat_table_t *out = arena_calloc(a, sizeof *out);
    int rc = table_deserialize(b.data, b.len, a, out);
    buf_free(&b);
    if (rc)
        return NULL;
    out->version = t->version;
    return out;
}

/* ---------------------------------------------------------------- helpers */

const cat_index_t *cat_table_pk(const cat_table_t *t) { return t->has_pk ? &t->idx[0] : NULL; }

int cat_table_col(const cat_table_t *t, const char *name)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (strcasecmp(t->cols[i].name, name) == 0)
            return (int)i;
    return -1;
}

int cat_table_index(const cat_table_t *t, const char *name)
{
    for (uint32_t i = 0; i < t->nidx; i++)
        if (strcasecmp(t->idx[i].name, name) == 0)
            return (int)i;
    return -1;
}

int cat_table_autoinc_col(const cat_table_t *t)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (t->cols[i].auto_increment)
            return (int)i;
    return -1;
}

bool catalog_db_is_virtual(const char *db)
{
    for (size_t i = 0; i < ARRAY_LEN(virtual_dbs); i++)
        if (strcasecmp(db, virtual_dbs[i]) == 0)
            return true;
    return false;
}

static void key_table(buf_t *k, const char *db, const char *name)
{
    buf_reset(k);
    buf_append_byte(k, 'T');
    buf_append(k, db, strlen(db));
    buf_append_byte(k, 0);
    buf_append(k, name, strlen(name));
}

static void key_db(buf_t *k, const char *db)
{
    buf_reset(k);
    buf_append_byte(k, 'D');
    buf_append(k, db, strlen(db));
}

/* ---------------------------------------------------------------- in-memory lists (c->lock held) */

static int find_db(catalog_t *c, const char *db)
{
    for (uint32_t i = 0; i < c->ndbs; i++)
        if (strcmp(c->dbs[i].name, db) == 0)
            return (int)i;
    return -1;
}

static int find_table(catalog_t *c, const char *db, const char *name)
{
    for (uint32_t i = 0; i < c->ntabs; i++)
        if (strcmp(c->tabs[i]->db, db) == 0 && strcmp(c->tabs[i]->name, name) == 0)
            return (int)i;
    return -1;
}

static void add_db(catalog_t *c, const char *db, uint16_t coll)
{
    if (c->ndbs == c->capdbs) {
        c->capdbs = c->capdbs ? c->capdbs * 2 : 16;
        c->dbs = mem_realloc(c->dbs, sizeof(cat_db_t) * c->capdbs);
    }
    c->dbs[c->ndbs].name = mem_strdup(db);
    c->dbs[c->ndbs].coll = coll;
    c->ndbs++;
}

static void add_table(catalog_t *c, cat_table_t *t)
{
    if (c->ntabs == c->captabs) {
        c->captabs = c->captabs ? c->captabs * 2 : 16;
        c->tabs = mem_realloc(c->tabs, sizeof(cat_table_t *) * c->captabs);
    }
    c->tabs[c->ntabs++] = t;
}

static void counters_release(cat_counters_t *k)
{
    if (atomic_fetch_sub(&k->refs, 1) == 1)
        mem_free(k);
}

void catalog_table_release(cat_table_t *t)
{
    if (!t)
        return;
    if (atomic_fetch_sub(&t->refs, 1) == 1) {
        counters_release(t->ctr);
        arena_destroy(&t->mem);
        mem_free(t);
    }
}

/* A registered table object from a serialized record; counters are shared with `prev` when given. */
static cat_table_t *table_from_record(const void *p, size_t n, cat_counters_t *prev)
{
    cat_table_t *t = mem_calloc(1, sizeof *t);
    arena_t mem;
    arena_init(&mem, 1024);
    cat_table_t tmp;
    if (table_deserialize(p, n, &mem, &tmp) != 0) {
        arena_destroy(&mem);
        mem_free(t);
        return NULL;
    }
    *t = tmp;
    t->mem = mem; /* the arena's chunks move with the struct (the arena holds only pointers) */
    atomic_store(&t->refs, 1);
    if (prev) {
        t->ctr = prev;
        atomic_fetch_add(&prev->refs, 1);
    } else {
        t->ctr = mem_calloc(1, sizeof *t->ctr);
        atomic_store(&t->ctr->refs, 1);
        atomic_store(&t->ctr->auto_inc, t->auto_inc_start ? t->auto_inc_start : 1);
        atomic_store(&t->ctr->row_id, 1);
    }
    return t;
}

/* Reads the counters' starting points from the data: hidden row id after the last row, AUTO_INCREMENT after
 * the largest value of its column (found as the last entry of an index that the column leads). */
static void counters_recover(engine_trx_t *trx, cat_table_t *t)
{
    engine_cursor_t *cur = NULL;
    if (!t->has_pk) {
        if (engine_cursor_open(trx, t->tree, &cur) == 0) {
            size_t kl;
            if (engine_cursor_last(cur) == 0) {
                const uint8_t *k = engine_cursor_key(cur, &kl);
                if (kl == 8) {
                    uint64_t id = 0;
                    for (int i = 0; i < 8; i++)
                        id = id << 8 | k[i];
                    atomic_store(&t->ctr->row_id, id + 1);
                }
            }
            engine_cursor_close(cur);
        }
    }
    int ai = cat_table_autoinc_col(t);
    if (ai < 0)
        return;
    for (uint32_t i = 0; i < t->nidx; i++) {
        const cat_index_t *x = &t->idx[i];
        if (x->cols[0].col != (uint32_t)ai)
            continue;
        if (engine_cursor_open(trx, x->tree, &cur) != 0)
            return;
        if (engine_cursor_last(cur) == 0) {
            size_t kl;
            const uint8_t *k = engine_cursor_key(cur, &kl);
            rc_col_t rc = t->cols[ai].rc;
            uint64_t v = 0;
            size_t off = 0;
            if (rc.nullable) {
                if (kl < 1 || k[0] == 0)
                    kl = 0;
                off = 1;
            }
            int w = rc.type == SQLT_TINYINT ? 1 : rc.type == SQLT_SMALLINT ? 2 : rc.type == SQLT_MEDIUMINT ? 3
                  : rc.type == SQLT_INT ? 4 : 8;
            if (sqlt_is_int((sqlt_t)rc.type) && kl >= off + (size_t)w) {
                for (int b = 0; b < w; b++)
                    v = v << 8 | k[off + (size_t)b];
                if (!rc.is_unsigned) {
                    v ^= 1ull << (8 * w - 1);
                    int sh = 64 - 8 * w;
                    int64_t sv = (int64_t)(v << sh) >> sh;
                    v = sv < 0 ? 0 : (uint64_t)sv;
                }
                if (v + 1 > atomic_load(&t->ctr->auto_inc))
                    atomic_store(&t->ctr->auto_inc, v + 1);
            }
        }
        engine_cursor_close(cur);
        return;
    }
}

/* ---------------------------------------------------------------- open / load */

static int id_file_read(const char *datadir, engine_tree_id_t *id)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", datadir, CAT_ID_FILE);
    FILE *f = fio_fopen_read(FIO_CATALOG, path);
    if (!f)
        return errno == ENOENT ? STRATA_ENOTFOUND : STRATA_EIO;
    unsigned long long v;
    int ver;
    int n = fscanf(f, "strata-catalog %d %llu", &ver, &v);
    fclose(f);
    if (n != 2 || ver != 1) {
        log_error("catalog: %s is not a catalog id file", path);
        return STRATA_ECORRUPT;
    }
    *id = v;
    return 0;
}

static int id_file_write(const char *datadir, engine_tree_id_t id)
{
    char path[4096], line[64];
    snprintf(path, sizeof path, "%s/%s", datadir, CAT_ID_FILE);
    int n = snprintf(line, sizeof line, "strata-catalog 1 %llu\n", (unsigned long long)id);
    int rc = fio_replace_file(FIO_CATALOG, datadir, path, line, (size_t)n, 0640);
    if (rc)
        log_error("catalog: cannot write %s: %s", path, strerror(-rc));
    return rc ? STRATA_EIO : 0;
}

static bool skip_damaged;

void catalog_set_skip_damaged(bool on) { skip_damaged = on; }

/* What a damaged record's key says it was, for the error log. */
static void record_name(const uint8_t *k, size_t kl, char *out, size_t n)
{
    if (kl > 1 && k[0] == 'T') {
        const uint8_t *z = memchr(k + 1, 0, kl - 1);
        if (z)
            snprintf(out, n, "table '%.*s.%.*s'", (int)(z - k - 1), (const char *)k + 1, (int)(kl - (size_t)(z - k) - 1),
                     (const char *)z + 1);
        else
            snprintf(out, n, "a table record");
    } else if (kl > 1 && k[0] == 'D') {
        snprintf(out, n, "database '%.*s'", (int)(kl - 1), (const char *)k + 1);
    } else {
        snprintf(out, n, "a record of kind '%c'", kl && k[0] >= 0x20 && k[0] < 0x7f ? k[0] : '?');
    }
}

/* What catalog_load gathers besides the lists: the saved AUTO_INCREMENT counters, applied after the scan. */
typedef struct {
    catalog_t *c;
    uint64_t *ai_ids, *ai_vals;
    uint32_t nai, capai;
    int rc;
} load_t;

/* One record of the system tree into the in-memory catalog.  A record that does not decode fails the load, or,
 * under innodb_force_recovery, is named in the error log and skipped. */
static int load_record(load_t *L, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    catalog_t *c = L->c;
    char what[300];
    if (kl < 1 || vl < 1 || v[0] != CAT_REC_VERSION) {
        CORRUPT("catalog: bad record");
        goto damaged;
    }
    if (k[0] == 'N') {
        const uint8_t *p = v + 1;
        if (rc_get_varint(&p, v + vl, &c->next_id) < 0) {
            CORRUPT("catalog: bad next-id record");
            goto damaged;
        }
    } else if (k[0] == 'D') {
        const uint8_t *p = v + 1;
        uint64_t coll = COLL_DEFAULT;
        rc_get_varint(&p, v + vl, &coll);
        char *name = strndup((const char *)k + 1, kl - 1);
        add_db(c, name, (uint16_t)coll);
        free(name);
    } else if (k[0] == 'T') {
        cat_table_t *t = table_from_record(v, vl, NULL);
        if (!t) {
            CORRUPT("catalog: bad table record");
            goto damaged;
        }
        add_table(c, t);
    } else if (k[0] == 'A' && kl == 9) {
        uint64_t id = 0, val = 0;
        for (int i = 1; i < 9; i++)
            id = id << 8 | k[i];
        const uint8_t *p = v + 1;
        if (rc_get_varint(&p, v + vl, &val) == 0) {
            if (L->nai == L->capai) {
                L->capai = L->capai ? L->capai * 2 : 16;
                L->ai_ids = mem_realloc(L->ai_ids, sizeof(uint64_t) * L->capai);
                L->ai_vals = mem_realloc(L->ai_vals, sizeof(uint64_t) * L->capai);
            }
            L->ai_ids[L->nai] = id;
            L->ai_vals[L->nai++] = val;
        }
    }
    return 0;
damaged:
    if (!skip_damaged)
        return STRATA_ECORRUPT;
    record_name(k, kl, what, sizeof what);
    log_error("catalog: innodb_force_recovery: the record of %s is damaged and was skipped%s", what,
              kl && k[0] == 'T' ? ": the table is not served" : "");
    return 0;
}

static void salvage_entry(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    load_t *L = ctx;
    if (!L->rc)
        L->rc = load_record(L, k, kl, v, vl);
}

static void salvage_lost(void *ctx, const char *page, const uint8_t *lo, size_t lol, const uint8_t *hi, size_t hil)
{
    (void)ctx;
    char a[300], b[300];
    if (!page) {
        record_name(lo, lol, a, sizeof a);
        log_error("catalog: innodb_force_recovery: the record of %s is damaged and was skipped", a);
        return;
    }
    if (lo)
        record_name(lo, lol, a, sizeof a);
    if (hi)
        record_name(hi, hil, b, sizeof b);
    log_error("catalog: innodb_force_recovery: page %s of the catalog is damaged; the records on it (from %s%s%s) were "
              "skipped: the tables and databases they described are not served", page, lo ? a : "the first record",
              hi ? " up to, not including, " : " to the last", hi ? b : "");
}

/* Empties the in-memory lists (the salvage pass starts over). */
static void lists_clear(catalog_t *c)
{
    for (uint32_t i = 0; i < c->ndbs; i++)
        mem_free(c->dbs[i].name);
    c->ndbs = 0;
    for (uint32_t i = 0; i < c->ntabs; i++)
        catalog_table_release(c->tabs[i]);
    c->ntabs = 0;
}

static int catalog_load(catalog_t *c)
{
    engine_cursor_t *cur;
    engine_trx_t *trx;
    load_t L = {.c = c};
    int rc = engine_trx_begin(c->e, &trx);
    if (rc)
        return rc;
    rc = engine_cursor_open(trx, c->sys, &cur);
    if (rc) {
        engine_trx_rollback(trx);
        return rc;
    }
    for (rc = engine_cursor_first(cur); rc == 0; rc = engine_cursor_next(cur)) {
        size_t kl, vl;
        const uint8_t *k = engine_cursor_key(cur, &kl);
        const uint8_t *v = engine_cursor_value(cur, &vl);
        if ((rc = load_record(&L, k, kl, v, vl)))
            break;
    }
    engine_cursor_close(cur);
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    if (rc == STRATA_ECORRUPT && skip_damaged) {
        /* A page of the system tree cannot be read (the line before names it): start over with the salvage walk,
         * which goes round every page it cannot read and names what was on it. */
        log_error("catalog: innodb_force_recovery: the catalog's tree is damaged; reading what is left of it");
        lists_clear(c);
        L.nai = 0;
        c->next_id = 1;
        rc = engine_tree_salvage(c->e, c->sys, salvage_entry, salvage_lost, &L);
        if (!rc)
            rc = L.rc;
        for (uint32_t i = 0; i < c->ntabs && !rc; i++) /* a table whose database record was lost keeps its db */
            if (find_db(c, c->tabs[i]->db) < 0) {
                log_error("catalog: innodb_force_recovery: database '%s' has no record left; served with the "
                          "default collation for its tables", c->tabs[i]->db);
                add_db(c, c->tabs[i]->db, COLL_DEFAULT);
            }
        log_error("catalog: innodb_force_recovery: %u database(s) and %u table(s) read from the damaged catalog",
                  c->ndbs, c->ntabs);
    }
    if (!rc)
        for (uint32_t i = 0; i < c->ntabs; i++) {
            counters_recover(trx, c->tabs[i]);
            for (uint32_t k = 0; k < L.nai; k++)
                if (L.ai_ids[k] == c->tabs[i]->id && L.ai_vals[k] > atomic_load(&c->tabs[i]->ctr->auto_inc))
                    atomic_store(&c->tabs[i]->ctr->auto_inc, L.ai_vals[k]);
        }
    engine_trx_rollback(trx);
    mem_free(L.ai_ids);
    mem_free(L.ai_vals);
    return rc;
}

int catalog_open(engine_t *e, const char *datadir, catalog_t **out)
{
    catalog_t *c = mem_calloc(1, sizeof *c);
    c->e = e;
    c->next_id = 1;
    pthread_mutex_init(&c->ddl, NULL);
    pthread_rwlock_init(&c->lock, NULL);
    atomic_store(&c->version, 1);
    int rc = id_file_read(datadir, &c->sys);
    if (rc == STRATA_ENOTFOUND) {
        rc = engine_tree_create(NULL, e, ENGINE_DEFAULT_TABLESPACE, &c->sys);
        if (rc == 0)
            rc = id_file_write(datadir, c->sys);
        if (rc == 0)
            log_note("catalog: created the system tree (%llu)", (unsigned long long)c->sys);
    }
    if (rc == 0)
        rc = catalog_load(c);
    if (rc) {
        log_error("catalog: cannot open the catalog in %s (%d)", datadir, rc);
        catalog_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* Key of a per-table record: kind, then the table id big-endian. */
static void key_aux(buf_t *key, uint8_t kind, uint64_t id)
{
    buf_append_byte(key, kind);
    for (int i = 7; i >= 0; i--)
        buf_append_byte(key, (uint8_t)(id >> (8 * i)));
}

static void autoinc_record(sys_op_t *op, const cat_table_t *t)
{
    key_aux(&op->key, 'A', t->id);
    buf_append_byte(&op->val, CAT_REC_VERSION);
    rc_put_varint(&op->val, atomic_load(&t->ctr->auto_inc));
}

int catalog_autoinc_persist(catalog_t *c, const cat_table_t *t)
{
    sys_op_t op = {0};
    buf_init(&op.key);
    buf_init(&op.val);
    autoinc_record(&op, t);
    int rc = sys_commit(c, &op, 1);
    buf_free(&op.key);
    buf_free(&op.val);
    return rc;
}

int catalog_aux_put(catalog_t *c, uint8_t kind, uint64_t table_id, const void *val, size_t len)
{
    sys_op_t op = {0};
    buf_init(&op.key);
    buf_init(&op.val);
    key_aux(&op.key, kind, table_id);
    buf_append(&op.val, val, len);
    int rc = sys_commit(c, &op, 1);
    buf_free(&op.key);
    buf_free(&op.val);
    return rc;
}

int catalog_aux_delete(catalog_t *c, uint8_t kind, uint64_t id)
{
    sys_op_t op = {.del = true};
    buf_init(&op.key);
    buf_init(&op.val);
    key_aux(&op.key, kind, id);
    int rc = sys_commit(c, &op, 1);
    buf_free(&op.key);
    buf_free(&op.val);
    return rc;
}

void catalog_strings_put(buf_t *b, const char **f[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = *f[i];
        uint32_t len = s ? (uint32_t)strlen(s) : 0;
        buf_append(b, &len, 4);
        if (len)
            buf_append(b, s, len);
    }
}

int catalog_strings_get(arena_t *a, const uint8_t **p, const uint8_t *end, const char **f[], size_t n)
{
    const uint8_t *q = *p;
    for (size_t i = 0; i < n; i++) {
        uint32_t len;
        if (end - q < 4)
            return -1;
        memcpy(&len, q, 4);
        q += 4;
        if ((size_t)(end - q) < len)
            return -1;
        char *s = arena_alloc(a, (size_t)len + 1);
        if (len)
            memcpy(s, q, len);
        s[len] = 0;
        q += len;
        *f[i] = s;
    }
    *p = q;
    return 0;
}

int catalog_aux_get(catalog_t *c, uint8_t kind, uint64_t table_id, buf_t *out)
{
    buf_t key;
    buf_init(&key);
    key_aux(&key, kind, table_id);
    engine_trx_t *trx;
    int rc = engine_trx_begin(c->e, &trx);
    if (rc == 0) {
        rc = engine_get(trx, c->sys, key.data, key.len, out);
        engine_trx_rollback(trx);
    }
    buf_free(&key);
    if (rc == STRATA_ECORRUPT && skip_damaged) /* on a damaged page of the catalog (named above): not there */
        rc = STRATA_ENOTFOUND;
    return rc;
}

int catalog_aux_put_trx(catalog_t *c, engine_trx_t *trx, uint8_t kind, uint64_t id, const void *val, size_t len)
{
    buf_t key;
    buf_init(&key);
    key_aux(&key, kind, id);
    int rc = val ? engine_put(trx, c->sys, key.data, key.len, val, len) : engine_delete(trx, c->sys, key.data, key.len);
    if (rc == STRATA_ENOTFOUND && !val)
        rc = 0;
    buf_free(&key);
    return rc;
}

int catalog_repl_gtid_put(catalog_t *c, engine_trx_t *trx, uint32_t domain, uint32_t server, uint64_t seq)
{
    buf_t v;
    buf_init(&v);
    buf_append_byte(&v, 1);
    rc_put_varint(&v, server);
    rc_put_varint(&v, seq);
    int rc = catalog_aux_put_trx(c, trx, CAT_AUX_REPL_GTID, domain, v.data, v.len);
    buf_free(&v);
    return rc;
}

typedef struct {
    uint8_t kind;
    bool any;          /* an entry was given before the damage: give only those after last */
    uint64_t last;
    void (*fn)(void *arg, uint64_t id, const void *val, size_t len);
    void *arg;
} aux_salvage_t;

static void aux_salvage_entry(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    aux_salvage_t *a = ctx;
    if (kl != 9 || k[0] != a->kind)
        return;
    uint64_t id = 0;
    for (int i = 1; i < 9; i++)
        id = id << 8 | k[i];
    if (!a->any || id > a->last)
        a->fn(a->arg, id, v, vl);
}

static void aux_salvage_lost(void *ctx, const char *page, const uint8_t *lo, size_t lol, const uint8_t *hi,
                             size_t hil)
{
    (void)ctx, (void)page, (void)lo, (void)lol, (void)hi, (void)hil; /* catalog_load named them */
}

int catalog_aux_scan(catalog_t *c, uint8_t kind, void (*fn)(void *arg, uint64_t id, const void *val, size_t len),
                     void *arg)
{
    aux_salvage_t salv = {.kind = kind, .fn = fn, .arg = arg};
    engine_trx_t *trx;
    engine_cursor_t *cur = NULL;
    int rc = engine_trx_begin(c->e, &trx);
    if (rc)
        return rc;
    rc = engine_cursor_open(trx, c->sys, &cur);
    if (rc == 0)
        rc = engine_cursor_seek(cur, &kind, 1, ENGINE_SEEK_GE);
    while (rc == 0) {
        size_t kl, vl;
        const uint8_t *k = engine_cursor_key(cur, &kl);
        if (kl != 9 || k[0] != kind)
            break;
        uint64_t id = 0;
        for (int i = 1; i < 9; i++)
            id = id << 8 | k[i];
        const void *v = engine_cursor_value(cur, &vl);
        fn(arg, id, v, vl);
        salv.any = true;
        salv.last = id;
        rc = engine_cursor_next(cur);
    }
    if (rc == STRATA_ENOTFOUND)
        rc = 0;
    if (cur)
        engine_cursor_close(cur);
    engine_trx_rollback(trx);
    /* innodb_force_recovery: the rest of them from the pages that can be read */
    if (rc == STRATA_ECORRUPT && skip_damaged)
        rc = engine_tree_salvage(c->e, c->sys, aux_salvage_entry, aux_salvage_lost, &salv);
    return rc;
}

void catalog_close(catalog_t *c)
{
    if (!c)
        return;
    /* a clean shutdown keeps every AUTO_INCREMENT counter (after a crash they come from the data); a read-only
     * engine (innodb_force_recovery) writes nothing */
    if (c->e && c->ntabs && !engine_read_only(c->e)) {
        sys_op_t *ops = mem_calloc(c->ntabs, sizeof(sys_op_t));
        int n = 0;
        for (uint32_t i = 0; i < c->ntabs; i++) {
            if (cat_table_autoinc_col(c->tabs[i]) < 0)
                continue;
            buf_init(&ops[n].key);
            buf_init(&ops[n].val);
            autoinc_record(&ops[n], c->tabs[i]);
            n++;
        }
        if (n && sys_commit(c, ops, n) != 0)
            log_warn("catalog: AUTO_INCREMENT counters not saved; they will be recomputed from the data");
        for (int i = 0; i < n; i++) {
            buf_free(&ops[i].key);
            buf_free(&ops[i].val);
        }
        mem_free(ops);
    }
    for (uint32_t i = 0; i < c->ndbs; i++)
        mem_free(c->dbs[i].name);
    mem_free(c->dbs);
    for (uint32_t i = 0; i < c->ntabs; i++)
        catalog_table_release(c->tabs[i]);
    mem_free(c->tabs);
    pthread_mutex_destroy(&c->ddl);
    pthread_rwlock_destroy(&c->lock);
    mem_free(c);
}

engine_t *catalog_engine(catalog_t *c) { return c->e; }
uint64_t catalog_version(catalog_t *c) { return atomic_load(&c->version); }

void catalog_version_bump(catalog_t *c) { atomic_fetch_add(&c->version, 1); }

cat_table_t *catalog_table_from_record(const void *p, size_t n) { return table_from_record(p, n, NULL); }

/* ---------------------------------------------------------------- databases */

bool catalog_db_exists(catalog_t *c, const char *db)
{
    if (catalog_db_is_virtual(db))
        return true;
    pthread_rwlock_rdlock(&c->lock);
    bool r = find_db(c, db) >= 0;
    pthread_rwlock_unlock(&c->lock);
    return r;
}

uint16_t catalog_db_coll(catalog_t *c, const char *db)
{
    pthread_rwlock_rdlock(&c->lock);
    int i = find_db(c, db);
    uint16_t coll = i >= 0 ? c->dbs[i].coll : COLL_DEFAULT;
    pthread_rwlock_unlock(&c->lock);
    return coll;
}

/* The calling thread's commit hook (catalog_commit_hook_set); hold > 0 while a DDL makes catalog commits that
 * are not its last (the hook then waits for the last one). */
static _Thread_local struct {
    catalog_commit_hook_fn fn;
    void *arg;
    int hold;
} tl_hook;

void catalog_commit_hook_set(catalog_commit_hook_fn fn, void *arg)
{
    tl_hook.fn = fn;
    tl_hook.arg = arg;
    tl_hook.hold = 0;
}

void catalog_commit_hook_hold(bool hold) { tl_hook.hold += hold ? 1 : -1; }

int catalog_commit_hook_run(engine_trx_t *trx)
{
    return tl_hook.fn && tl_hook.hold == 0 ? tl_hook.fn(tl_hook.arg, trx) : 0;
}

/* One engine transaction: puts and deletes (del) of system-tree records, committed together (with what the
 * thread's commit hook adds). */
/* The DDL statement this thread runs, while its binlog event is owed (catalog_ddl_pending_set). */
static _Thread_local struct {
    bool set, written;
    uint64_t seq;
    uint8_t *rec;
    size_t len;
} tl_ddl;

void catalog_ddl_pending_set(uint64_t seq, const void *rec, size_t len)
{
    catalog_ddl_pending_clear();
    tl_ddl.rec = mem_alloc(len ? len : 1);
    memcpy(tl_ddl.rec, rec, len);
    tl_ddl.len = len;
    tl_ddl.seq = seq;
    tl_ddl.set = true;
}

bool catalog_ddl_pending_written(uint64_t *seq)
{
    *seq = tl_ddl.seq;
    return tl_ddl.set && tl_ddl.written;
}

int catalog_ddl_pending_commit(catalog_t *c) { return tl_ddl.set ? sys_commit(c, NULL, 0) : 0; }

void catalog_ddl_pending_clear(void)
{
    mem_free(tl_ddl.rec);
    memset(&tl_ddl, 0, sizeof tl_ddl);
}

/* One engine transaction: puts and deletes (del) of system-tree records, committed together; with the running
 * DDL statement's 'L' record when one is set. */
static int sys_commit(catalog_t *c, sys_op_t *ops, int n)
{
    engine_trx_t *trx;
    int rc = engine_trx_begin(c->e, &trx);
    if (rc)
        return rc;
    if (tl_ddl.set)
        rc = catalog_aux_put_trx(c, trx, CAT_AUX_DDL_LOG, tl_ddl.seq, tl_ddl.rec, tl_ddl.len);
    for (int i = 0; i < n && !rc; i++) {
        if (ops[i].del) {
            rc = engine_delete(trx, c->sys, ops[i].key.data, ops[i].key.len);
            if (rc == STRATA_ENOTFOUND)
                rc = 0;
        } else {
            rc = engine_put(trx, c->sys, ops[i].key.data, ops[i].key.len, ops[i].val.data, ops[i].val.len);
        }
    }
    if (rc == 0)
        rc = catalog_commit_hook_run(trx);
    if (rc) {
        engine_trx_rollback(trx);
        return rc;
    }
    rc = engine_trx_commit(trx);
    if (rc == 0)
        (void)FAULT_POINT("catalog.after_commit"); /* test builds: KILL between the commits of one DDL */
    if (rc == 0 && tl_ddl.set)
        tl_ddl.written = true;
    return rc;
}

static int engine_err(diag_t *d, int rc, const char *what)
{
    if (rc == ENGINE_EFULL)
        return diag_error(d, ER_RECORD_FILE_FULL, what);
    if (rc == ENGINE_EREADONLY)
        return diag_error(d, ER_OPEN_AS_READONLY, what);
    char msg[160];
    snprintf(msg, sizeof msg, "Storage engine error %d on %s", rc, what);
    return diag_push_msg(d, DIAG_ERROR, ER_UNKNOWN_ERROR, msg);
}

int catalog_db_create(catalog_t *c, const char *db, uint16_t coll, bool if_not_exists, diag_t *d)
{
    if (catalog_db_exists(c, db)) {
        if (if_not_exists) {
            diag_note(d, ER_DB_CREATE_EXISTS, db);
            return 1;
        }
        return diag_error(d, ER_DB_CREATE_EXISTS, db);
    }
    pthread_mutex_lock(&c->ddl);
    int rc;
    if (catalog_db_exists(c, db)) {
        pthread_mutex_unlock(&c->ddl);
        return if_not_exists ? (diag_note(d, ER_DB_CREATE_EXISTS, db), 1) : diag_error(d, ER_DB_CREATE_EXISTS, db);
    }
    sys_op_t op = {0};
    buf_init(&op.key);
    buf_init(&op.val);
    key_db(&op.key, db);
    buf_append_byte(&op.val, CAT_REC_VERSION);
    rc_put_varint(&op.val, coll);
    rc = sys_commit(c, &op, 1);
    buf_free(&op.key);
    buf_free(&op.val);
    if (rc == 0) {
        pthread_rwlock_wrlock(&c->lock);
        add_db(c, db, coll);
        atomic_fetch_add(&c->version, 1);
        pthread_rwlock_unlock(&c->lock);
    } else {
        rc = engine_err(d, rc, "the catalog");
    }
    pthread_mutex_unlock(&c->ddl);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int catalog_db_list(catalog_t *c, arena_t *a, const char ***names, uint32_t *n)
{
    pthread_rwlock_rdlock(&c->lock);
    uint32_t k = 0;
    const char **v = arena_alloc(a, sizeof(char *) * (c->ndbs + ARRAY_LEN(virtual_dbs) + 1));
    /* `mysql` is reserved but not listed until it holds MariaDB's system tables: mariadb-dump --all-databases
     * reads mysql.general_log and friends from any `mysql` it is shown. */
    for (size_t i = 0; i < ARRAY_LEN(virtual_dbs); i++)
        if (strcmp(virtual_dbs[i], "mysql") != 0)
            v[k++] = virtual_dbs[i];
    for (uint32_t i = 0; i < c->ndbs; i++)
        if (c->dbs[i].name[0] != '#') /* internal databases (the executor's #sql_tmp) are not listed */
            v[k++] = arena_strdup(a, c->dbs[i].name);
    pthread_rwlock_unlock(&c->lock);
    if (k > 1) /* qsort must not see a NULL base (UBSan) */
        qsort(v, k, sizeof *v, cmp_str);
    *names = v;
    *n = k;
    return 0;
}

/* ---------------------------------------------------------------- tables */

cat_table_t *catalog_table_get(catalog_t *c, const char *db, const char *name)
{
    pthread_rwlock_rdlock(&c->lock);
    int i = find_table(c, db, name);
    cat_table_t *t = NULL;
    if (i >= 0) {
        t = c->tabs[i];
        atomic_fetch_add(&t->refs, 1);
    }
    pthread_rwlock_unlock(&c->lock);
    return t;
}

int catalog_fk_children(catalog_t *c, const char *db, const char *name, arena_t *a, cat_table_t ***out, uint32_t *n)
{
    pthread_rwlock_rdlock(&c->lock);
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < c->ntabs; i++) {
            cat_table_t *t = c->tabs[i];
            bool refs = false;
            for (uint32_t f = 0; f < t->nfks && !refs; f++)
                refs = strcmp(t->fks[f].ref_db, db) == 0 && strcmp(t->fks[f].ref_table, name) == 0;
            if (!refs)
                continue;
            if (pass == 1) {
                atomic_fetch_add(&t->refs, 1);
                (*out)[k] = t;
            }
            k++;
        }
        if (pass == 0) {
            *out = arena_alloc(a, sizeof(cat_table_t *) * (k + 1));
            k = 0;
        }
    }
    pthread_rwlock_unlock(&c->lock);
    *n = k;
    return 0;
}

bool catalog_fk_any(catalog_t *c)
{
    /* one word, (version + 1) << 1 | answer, so that a reader never pairs one version with another's answer */
    uint64_t v = atomic_load(&c->version);
    uint64_t seen = atomic_load(&c->fk_any);
    if (seen >> 1 == v + 1)
        return seen & 1;
    bool any = false;
    pthread_rwlock_rdlock(&c->lock);
    v = atomic_load(&c->version); /* what the tables below are */
    for (uint32_t i = 0; i < c->ntabs && !any; i++)
        any = c->tabs[i]->nfks > 0;
    pthread_rwlock_unlock(&c->lock);
    atomic_store(&c->fk_any, (v + 1) << 1 | (uint64_t)any);
    return any;
}

bool catalog_fk_name_taken(catalog_t *c, const char *db, const char *name, const char *except)
{
    bool taken = false;
    pthread_rwlock_rdlock(&c->lock);
    for (uint32_t i = 0; i < c->ntabs && !taken; i++) {
        const cat_table_t *t = c->tabs[i];
        if (strcmp(t->db, db) != 0 || (except && strcmp(t->name, except) == 0))
            continue;
        for (uint32_t f = 0; f < t->nfks && !taken; f++)
            taken = strcasecmp(t->fks[f].name, name) == 0;
    }
    pthread_rwlock_unlock(&c->lock);
    return taken;
}

int catalog_table_list(catalog_t *c, const char *db, arena_t *a, const char ***names, uint32_t *n)
{
    pthread_rwlock_rdlock(&c->lock);
    const char **v = arena_alloc(a, sizeof(char *) * (c->ntabs + 1));
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->ntabs; i++)
        if (strcmp(c->tabs[i]->db, db) == 0)
            v[k++] = arena_strdup(a, c->tabs[i]->name);
    pthread_rwlock_unlock(&c->lock);
    if (k > 1) /* qsort must not see a NULL base (UBSan) */
        qsort(v, k, sizeof *v, cmp_str);
    *names = v;
    *n = k;
    return 0;
}

/* Definition checks shared by create and replace. */
static int table_check(const cat_table_t *t, diag_t *d)
{
    uint32_t nvisible = 0;
    for (uint32_t i = 0; i < t->ncols; i++)
        nvisible += !t->cols[i].invisible;
    if (nvisible == 0)
        return diag_error(d, ER_TABLE_MUST_HAVE_COLUMNS); /* MariaDB: INVISIBLE ones do not count */
    for (uint32_t i = 0; i < t->ncols; i++) {
        const cat_column_t *c = &t->cols[i];
        if (c->invisible && !c->rc.nullable && c->def == CAT_DEF_NONE && !c->auto_increment) {
            char msg[200];
            snprintf(msg, sizeof msg, "Invisible column `%s` must have a default value", c->name);
            return diag_push_msg(d, DIAG_ERROR, 4108, msg); /* ER_INVISIBLE_NOT_NULL_WITHOUT_DEFAULT */
        }
    }
    for (uint32_t i = 0; i < t->ncols; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcasecmp(t->cols[i].name, t->cols[j].name) == 0)
                return diag_error(d, ER_DUP_FIELDNAME, t->cols[i].name);
    int npk = 0, nai = 0;
    for (uint32_t i = 0; i < t->nidx; i++) {
        const cat_index_t *x = &t->idx[i];
        if (x->kind == CAT_IDX_PRIMARY && ++npk > 1)
            return diag_error(d, ER_MULTIPLE_PRI_KEY);
        for (uint32_t j = 0; j < i; j++)
            if (strcasecmp(x->name, t->idx[j].name) == 0)
                return diag_error(d, ER_DUP_KEYNAME, x->name);
        for (uint32_t k = 0; k < x->ncols; k++)
            if (x->cols[k].col >= t->ncols)
                return diag_error(d, ER_KEY_COLUMN_DOES_NOT_EXIST, "?");
    }
    if (npk && t->idx[0].kind != CAT_IDX_PRIMARY)
        return diag_error(d, ER_UNKNOWN_ERROR);
    for (uint32_t i = 0; i < t->ncols; i++) {
        if (!t->cols[i].auto_increment)
            continue;
        nai++;
        bool leads = false;
        for (uint32_t k = 0; k < t->nidx; k++)
            if (t->idx[k].cols[0].col == i)
                leads = true;
        if (!leads || nai > 1)
            return diag_error(d, ER_WRONG_AUTO_KEY);
    }
    return 0;
}

int catalog_table_create(catalog_t *c, const cat_table_t *def, bool if_not_exists, diag_t *d)
{
    int rc = 0;
    arena_t tmp;
    arena_init(&tmp, 1024);
    buf_t rec;
    buf_init(&rec);
    sys_op_t ops[2] = {0};
    for (int i = 0; i < 2; i++) {
        buf_init(&ops[i].key);
        buf_init(&ops[i].val);
    }
    cat_table_t *t = NULL;
    pthread_mutex_lock(&c->ddl);
    if (catalog_db_is_virtual(def->db)) {
        rc = diag_error(d, ER_DBACCESS_DENIED_ERROR, "root", "localhost", def->db);
        goto out;
    }
    if (!catalog_db_exists(c, def->db)) {
        rc = diag_error(d, ER_BAD_DB_ERROR, def->db);
        goto out;
    }
    pthread_rwlock_rdlock(&c->lock);
    bool exists = find_table(c, def->db, def->name) >= 0;
    pthread_rwlock_unlock(&c->lock);
    if (exists) {
        if (if_not_exists) {
            diag_note(d, ER_TABLE_EXISTS_ERROR, def->name);
            rc = 1;
        } else {
            rc = diag_error(d, ER_TABLE_EXISTS_ERROR, def->name);
        }
        goto out;
    }
    if ((rc = table_check(def, d)) != 0)
        goto out;
    t = cat_table_copy(&tmp, def);
    if (!t) {
        rc = diag_error(d, ER_UNKNOWN_ERROR);
        goto out;
    }
    t->id = c->next_id;
    if (!t->create_time)
        t->create_time = (int64_t)(time_wall_us() / 1000000);
    if (!t->engine || !t->engine[0])
        t->engine = "InnoDB";
    t->tree = 0;
    for (uint32_t i = 0; i < t->nidx; i++)
        t->idx[i].tree = 0;
    rc = engine_tree_create(NULL, c->e, t->space_id, &t->tree);
    for (uint32_t i = 0; i < t->nidx && !rc; i++) {
        t->idx[i].key_version = RC_KEY_VERSION;
        if (t->idx[i].kind == CAT_IDX_PRIMARY)
            t->idx[i].tree = t->tree;
        else
            rc = engine_tree_create(NULL, c->e, t->space_id, &t->idx[i].tree);
    }
    if (rc) {
        rc = engine_err(d, rc, def->name);
        goto undo_trees;
    }
    table_serialize(&rec, t);
    key_table(&ops[0].key, t->db, t->name);
    buf_append(&ops[0].val, rec.data, rec.len);
    buf_append_byte(&ops[1].key, 'N');
    buf_append_byte(&ops[1].val, CAT_REC_VERSION);
    rc_put_varint(&ops[1].val, c->next_id + 1);
    rc = sys_commit(c, ops, 2);
    if (rc) {
        rc = engine_err(d, rc, def->name);
        goto undo_trees;
    }
    c->next_id++;
    cat_table_t *reg = table_from_record(rec.data, rec.len, NULL);
    pthread_rwlock_wrlock(&c->lock);
    add_table(c, reg);
    reg->version = atomic_fetch_add(&c->version, 1) + 1;
    pthread_rwlock_unlock(&c->lock);
    goto out;
undo_trees:
    if (t) {
        if (t->tree)
            engine_tree_drop(NULL, c->e, t->tree);
        for (uint32_t i = 0; i < t->nidx; i++)
            if (t->idx[i].tree && t->idx[i].tree != t->tree)
                engine_tree_drop(NULL, c->e, t->idx[i].tree);
    }
out:
    pthread_mutex_unlock(&c->ddl);
    for (int i = 0; i < 2; i++) {
        buf_free(&ops[i].key);
        buf_free(&ops[i].val);
    }
    buf_free(&rec);
    arena_destroy(&tmp);
    return rc;
}

static void drop_trees(catalog_t *c, const cat_table_t *old, const cat_table_t *keep)
{
    engine_tree_id_t ids[1 + 1024];
    uint32_t n = 0;
    ids[n++] = old->tree;
    for (uint32_t i = 0; i < old->nidx && n < ARRAY_LEN(ids); i++)
        if (old->idx[i].tree != old->tree)
            ids[n++] = old->idx[i].tree;
    for (uint32_t i = 0; i < n; i++) {
        bool kept = false;
        if (keep) {
            kept = keep->tree == ids[i];
            for (uint32_t k = 0; k < keep->nidx && !kept; k++)
                kept = keep->idx[k].tree == ids[i];
        }
        if (!kept && ids[i]) {
            int rc = engine_tree_drop(NULL, c->e, ids[i]);
            if (rc)
                log_warn("catalog: dropping tree %llu of %s.%s failed (%d); its space stays allocated",
                         (unsigned long long)ids[i], old->db, old->name, rc);
        }
    }
}

/* Removes a table (c->ddl held).  *found false when it does not exist. */
static int table_drop_locked(catalog_t *c, const char *db, const char *name, bool *found, diag_t *d)
{
    cat_table_t *t = catalog_table_get(c, db, name);
    *found = t != NULL;
    if (!t)
        return 0;
    sys_op_t ops[2] = {{.del = true}, {.del = true}};
    for (int k = 0; k < 2; k++) {
        buf_init(&ops[k].key);
        buf_init(&ops[k].val);
    }
    key_table(&ops[0].key, db, name);
    key_aux(&ops[1].key, CAT_AUX_STATS, t->id);
    int rc = sys_commit(c, ops, 2);
    for (int k = 0; k < 2; k++) {
        buf_free(&ops[k].key);
        buf_free(&ops[k].val);
    }
    if (rc) {
        catalog_table_release(t);
        return engine_err(d, rc, name);
    }
    pthread_rwlock_wrlock(&c->lock);
    int i = find_table(c, db, name);
    if (i >= 0) {
        catalog_table_release(c->tabs[i]);
        c->tabs[i] = c->tabs[--c->ntabs];
    }
    atomic_fetch_add(&c->version, 1);
    pthread_rwlock_unlock(&c->lock);
    drop_trees(c, t, NULL);
    catalog_table_release(t);
    return 0;
}

int catalog_table_drop(catalog_t *c, const char *db, const char *name, bool if_exists, diag_t *d)
{
    pthread_mutex_lock(&c->ddl);
    bool found;
    int rc = table_drop_locked(c, db, name, &found, d);
    pthread_mutex_unlock(&c->ddl);
    if (!rc && !found) {
        char full[2 * CAT_NAME_MAX + 2];
        snprintf(full, sizeof full, "%s.%s", db, name);
        if (if_exists) {
            diag_note(d, ER_BAD_TABLE_ERROR, full);
            return 1;
        }
        return diag_error(d, ER_BAD_TABLE_ERROR, full);
    }
    return rc;
}

int catalog_db_drop(catalog_t *c, const char *db, bool if_exists, diag_t *d, uint32_t *ntables)
{
    if (ntables)
        *ntables = 0;
    if (catalog_db_is_virtual(db))
        return diag_error(d, ER_DBACCESS_DENIED_ERROR, "root", "localhost", db);
    pthread_mutex_lock(&c->ddl);
    int rc = 0;
    arena_t a;
    arena_init(&a, 1024);
    if (!catalog_db_exists(c, db)) {
        if (if_exists) {
            diag_note(d, ER_DB_DROP_EXISTS, db);
            rc = 1;
        } else {
            rc = diag_error(d, ER_DB_DROP_EXISTS, db);
        }
        goto out;
    }
    const char **names;
    uint32_t n;
    catalog_table_list(c, db, &a, &names, &n);
    catalog_commit_hook_hold(true); /* the database's own record is the last commit */
    for (uint32_t i = 0; i < n && !rc; i++) {
        bool found;
        rc = table_drop_locked(c, db, names[i], &found, d);
        if (!rc && found && ntables)
            (*ntables)++;
    }
    catalog_commit_hook_hold(false);
    if (rc)
        goto out;
    sys_op_t op = {.del = true};
    buf_init(&op.key);
    buf_init(&op.val);
    key_db(&op.key, db);
    rc = sys_commit(c, &op, 1);
    buf_free(&op.key);
    buf_free(&op.val);
    if (rc) {
        rc = engine_err(d, rc, "the catalog");
        goto out;
    }
    pthread_rwlock_wrlock(&c->lock);
    int i = find_db(c, db);
    if (i >= 0) {
        mem_free(c->dbs[i].name);
        c->dbs[i] = c->dbs[--c->ndbs];
    }
    atomic_fetch_add(&c->version, 1);
    pthread_rwlock_unlock(&c->lock);
out:
    arena_destroy(&a);
    pthread_mutex_unlock(&c->ddl);
    return rc;
}

/*
 * The other tables whose FOREIGN KEYs reference db.name follow a change of it in the same catalog commit, as
 * InnoDB's do: fk_kids_prepare copies each one (except the table itself, self_id) with edit() applied to every
 * key naming db.name, and puts its new record into ops[]; after the commit fk_kids_load and fk_kids_swap
 * register the copies.
 */
typedef void (*fk_edit_fn)(cat_fk_t *f, const void *arg);

typedef struct fk_kids {
    cat_table_t **kids; /* every table with a key naming db.name (held) */
    uint32_t nkids;
    cat_table_t **was; /* the registrations ops[] replace */
    uint32_t n;
} fk_kids_t;

static void fk_kids_prepare(catalog_t *c, arena_t *a, const char *db, const char *name, uint64_t self_id,
                            fk_edit_fn edit, const void *arg, fk_kids_t *k, sys_op_t *ops)
{
    catalog_fk_children(c, db, name, a, &k->kids, &k->nkids);
    k->was = arena_calloc(a, sizeof(cat_table_t *) * (k->nkids + 1));
    k->n = 0;
    for (uint32_t i = 0; i < k->nkids; i++) {
        if (k->kids[i]->id == self_id)
            continue;
        cat_table_t *kt = cat_table_copy(a, k->kids[i]);
        for (uint32_t f = 0; f < kt->nfks; f++)
            if (strcmp(kt->fks[f].ref_db, db) == 0 && strcmp(kt->fks[f].ref_table, name) == 0)
                edit(&kt->fks[f], arg);
        k->was[k->n] = k->kids[i];
        key_table(&ops[k->n].key, kt->db, kt->name);
        table_serialize(&ops[k->n].val, kt);
        k->n++;
    }
}

/* After the commit: the children's new records, loaded before c->lock is taken ... */
static cat_table_t **fk_kids_load(arena_t *a, const fk_kids_t *k, const sys_op_t *ops)
{
    cat_table_t **reg = arena_calloc(a, sizeof(cat_table_t *) * ((size_t)k->n + 1));
    for (uint32_t i = 0; i < k->n; i++)
        reg[i] = table_from_record(ops[i].val.data, ops[i].val.len, k->was[i]->ctr);
    return reg;
}

/* ... replace their registrations at the parent's version, under the same write lock as the parent's, so no
 * reader sees a parent and a child that disagree. */
static void fk_kids_swap(catalog_t *c, const fk_kids_t *k, cat_table_t **reg, uint64_t version)
{
    for (uint32_t i = 0; i < k->n; i++) {
        int ki = find_table(c, k->was[i]->db, k->was[i]->name);
        if (ki >= 0 && reg[i]) {
            catalog_table_release(c->tabs[ki]);
            c->tabs[ki] = reg[i];
            reg[i]->version = version;
        } else if (reg[i]) {
            catalog_table_release(reg[i]);
        }
    }
}

static void fk_kids_release(fk_kids_t *k)
{
    for (uint32_t i = 0; i < k->nkids; i++)
        catalog_table_release(k->kids[i]);
    k->nkids = 0;
}

void cat_fk_rename_ref_cols(cat_fk_t *f, const char *const *from, const char *const *to, uint32_t n)
{
    for (uint32_t c = 0; c < f->ncols; c++)
        for (uint32_t i = 0; i < n; i++)
            if (strcasecmp(f->ref_cols[c], from[i]) == 0) {
                f->ref_cols[c] = to[i];
                break;
            }
}

typedef struct col_renames {
    const char *const *from, *const *to;
    uint32_t n;
} col_renames_t;

static void fk_edit_ref_cols(cat_fk_t *f, const void *arg)
{
    const col_renames_t *r = arg;
    cat_fk_rename_ref_cols(f, r->from, r->to, r->n);
}

int catalog_table_replace(catalog_t *c, const cat_table_t *def, diag_t *d)
{
    return catalog_table_replace_renaming(c, def, NULL, NULL, 0, d);
}

int catalog_table_replace_renaming(catalog_t *c, const cat_table_t *def, const char *const *from,
                                   const char *const *to, uint32_t nren, diag_t *d)
{
    pthread_mutex_lock(&c->ddl);
    int rc = 0;
    arena_t a;
    arena_init(&a, 1024);
    fk_kids_t k = {0};
    sys_op_t *ops = NULL;
    uint32_t nops = 0;
    cat_table_t *old = catalog_table_get(c, def->db, def->name);
    if (!old) {
        rc = diag_error(d, ER_NO_SUCH_TABLE, def->db, def->name);
        goto out;
    }
    if ((rc = table_check(def, d)) != 0)
        goto out;
    /* ops[0] is the table's record, then one per other table whose keys reference a renamed column */
    uint32_t cap = 1;
    if (nren) {
        catalog_fk_children(c, def->db, def->name, &a, &k.kids, &k.nkids);
        cap += k.nkids;
        fk_kids_release(&k);
    }
    ops = arena_calloc(&a, sizeof(sys_op_t) * cap);
    for (uint32_t i = 0; i < cap; i++) {
        buf_init(&ops[i].key);
        buf_init(&ops[i].val);
    }
    nops = cap;
    key_table(&ops[0].key, def->db, def->name);
    table_serialize(&ops[0].val, def);
    col_renames_t ren = {from, to, nren};
    if (nren)
        fk_kids_prepare(c, &a, def->db, def->name, old->id, fk_edit_ref_cols, &ren, &k, ops + 1);
    rc = sys_commit(c, ops, 1 + (int)k.n);
    if (rc) {
        rc = engine_err(d, rc, def->name);
        goto out;
    }
    cat_table_t *reg = table_from_record(ops[0].val.data, ops[0].val.len, old->ctr);
    cat_table_t **kreg = fk_kids_load(&a, &k, ops + 1);
    pthread_rwlock_wrlock(&c->lock);
    int i = find_table(c, def->db, def->name);
    if (i >= 0) {
        catalog_table_release(c->tabs[i]);
        c->tabs[i] = reg;
    } else {
        add_table(c, reg);
    }
    reg->version = atomic_fetch_add(&c->version, 1) + 1;
    fk_kids_swap(c, &k, kreg, reg->version);
    pthread_rwlock_unlock(&c->lock);
    drop_trees(c, old, reg);
out:
    fk_kids_release(&k);
    catalog_table_release(old);
    for (uint32_t j = 0; j < nops; j++) {
        buf_free(&ops[j].key);
        buf_free(&ops[j].val);
    }
    arena_destroy(&a);
    pthread_mutex_unlock(&c->ddl);
    return rc;
}

typedef struct tab_rename {
    const char *db, *name;
} tab_rename_t;

static void fk_edit_ref_table(cat_fk_t *f, const void *arg)
{
    const tab_rename_t *r = arg;
    f->ref_db = r->db;
    f->ref_table = r->name;
}

int catalog_table_rename(catalog_t *c, const char *db, const char *name, const char *new_db, const char *new_name,
                         diag_t *d)
{
    pthread_mutex_lock(&c->ddl);
    int rc = 0;
    arena_t a;
    arena_init(&a, 1024);
    buf_t rec;
    buf_init(&rec);
    /* ops[0] drops the old name, ops[1] writes the new one, then one per other table whose FOREIGN KEY names the
     * table (their references follow it, in the same commit, as InnoDB's do) */
    fk_kids_t k = {0};
    catalog_fk_children(c, db, name, &a, &k.kids, &k.nkids);
    int nops = 2 + (int)k.nkids;
    fk_kids_release(&k);
    sys_op_t *ops = arena_calloc(&a, sizeof(sys_op_t) * (size_t)nops);
    for (int i = 0; i < nops; i++) {
        buf_init(&ops[i].key);
        buf_init(&ops[i].val);
    }
    cat_table_t *old = catalog_table_get(c, db, name), *nt = NULL;
    if (!old) {
        rc = diag_error(d, ER_NO_SUCH_TABLE, db, name);
        goto out;
    }
    if (!catalog_db_exists(c, new_db) || catalog_db_is_virtual(new_db)) {
        rc = diag_error(d, ER_BAD_DB_ERROR, new_db);
        goto out;
    }
    if ((nt = catalog_table_get(c, new_db, new_name)) != NULL) {
        rc = diag_error(d, ER_TABLE_EXISTS_ERROR, new_name);
        goto out;
    }
    cat_table_t *t = cat_table_copy(&a, old);
    t->db = new_db;
    t->name = new_name;
    for (uint32_t f = 0; f < t->nfks; f++) /* a key naming the table itself */
        if (strcmp(t->fks[f].ref_db, db) == 0 && strcmp(t->fks[f].ref_table, name) == 0) {
            t->fks[f].ref_db = new_db;
            t->fks[f].ref_table = new_name;
        }
    table_serialize(&rec, t);
    ops[0].del = true;
    key_table(&ops[0].key, db, name);
    key_table(&ops[1].key, new_db, new_name);
    buf_append(&ops[1].val, rec.data, rec.len);
    tab_rename_t to = {new_db, new_name};
    fk_kids_prepare(c, &a, db, name, old->id, fk_edit_ref_table, &to, &k, ops + 2);
    rc = sys_commit(c, ops, 2 + (int)k.n);
    if (rc) {
        rc = engine_err(d, rc, name);
        goto out;
    }
    cat_table_t *reg = table_from_record(rec.data, rec.len, old->ctr);
    cat_table_t **kreg = fk_kids_load(&a, &k, ops + 2);
    pthread_rwlock_wrlock(&c->lock);
    int i = find_table(c, db, name);
    if (i >= 0) {
        catalog_table_release(c->tabs[i]);
        c->tabs[i] = reg;
    }
    reg->version = atomic_fetch_add(&c->version, 1) + 1;
    fk_kids_swap(c, &k, kreg, reg->version);
    pthread_rwlock_unlock(&c->lock);
out:
    fk_kids_release(&k);
    catalog_table_release(old);
    catalog_table_release(nt);
    for (int i = 0; i < nops; i++) {
        buf_free(&ops[i].key);
        buf_free(&ops[i].val);
    }
    buf_free(&rec);
    arena_destroy(&a);
    pthread_mutex_unlock(&c->ddl);
    return rc;
}
