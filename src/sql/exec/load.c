/*
 * LOAD DATA [LOCAL] INFILE: the file's lines (loadfmt.c cuts them into fields) become rows of an INSERT (or
 * REPLACE / INSERT IGNORE) that insert.c runs, a batch of lines at a time, inside the one statement: strict
 * mode, defaults, AUTO_INCREMENT, duplicates, triggers of the row path and the binary log's row events are
 * exactly INSERT's.  Each batch is built and run in its own arena, so a file of any size needs the memory of
 * one batch.
 *
 * Per line, as MariaDB: the fields go to the column list's targets in order (@var targets set the user
 * variable); a line with fewer fields leaves the other columns at their defaults with warning 1261, one with
 * more is cut with 1262 (both errors under strict mode); SET col = expr is evaluated after the line's targets
 * (its expressions read the user variables just set, and the line's columns by name).  Fields are strings in
 * the CHARACTER SET clause's character set, else the database's.  The OK says "Records: n  Deleted: n
 * Skipped: n  Warnings: n" (Deleted: rows REPLACE removed; Skipped: duplicates IGNORE dropped).
 *
 * The file: a server file (exec/file.c: secure_file_priv, FILE privilege in the statement's rule), or with
 * LOCAL the client's, through the protocol's infile callbacks (the sink asks the client with 0xFB and hands
 * over the packets it streams; refused with 4166, as MariaDB 10.11, when local_infile is OFF or the client did not offer it).
 * A failed LOCAL load still reads the client's file to its end, so the connection stays in step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "sql/exec/file.h"
#include "sql/exec/loadfmt.h"
#include "sql/exec/query_int.h"
#include "util/util.h"

#define LOAD_BATCH_ROWS 1000

typedef struct load_src {
    sql_exec_ctx_t *x;
    int fd;                   /* a server file, or -1 for the client's */
    bool local_open;          /* the client was asked and has not sent its last packet yet */
    bool failed;
    int err;
    const char *path;
} load_src_t;

static int src_fill(void *arg, buf_t *b)
{
    load_src_t *s = arg;
    buf_reserve(b, 65536);
    if (s->fd >= 0) {
        for (;;) {
            ssize_t n = read(s->fd, b->data + b->len, b->cap - b->len);
            if (n > 0) {
                b->len += (size_t)n;
                return 1;
            }
            if (n == 0)
                return 0;
            if (errno == EINTR)
                continue;
            s->err = errno;
            s->failed = true;
            return -1;
        }
    }
    if (!s->local_open)
        return 0;
    res_sink_t *k = s->x->sink;
    long n = k->infile_read(k, (char *)b->data + b->len, b->cap - b->len);
    if (n > 0) {
        b->len += (size_t)n;
        return 1;
    }
    s->local_open = false;
    if (n < 0) {
        s->failed = true;
        return -1;
    }
    return 0;
}

/* The rest of the client's file, read and dropped (after an error), so its packets do not become commands. */
static void src_drain(load_src_t *s)
{
    char tmp[16384];
    while (s->local_open) {
        long n = s->x->sink->infile_read(s->x->sink, tmp, sizeof tmp);
        if (n <= 0)
            s->local_open = false;
    }
}

static const char *sysvar_str(sql_exec_ctx_t *x, sql_var_scope_t scope, const char *name)
{
    value_t v;
    if (!x->cb || !x->cb->sysvar_get)
        return NULL;
    diag_t scratch;
    diag_init(&scratch, 2);
    int rc = x->cb->sysvar_get(x->cb_user, scope, NULL, name, &v, &scratch);
    diag_free(&scratch);
    if (rc || v.type == VAL_NULL)
        return NULL;
    size_t n;
    const char *t = value_to_text(x->arena, &v, &n);
    return arena_strndup(x->arena, t, n);
}

typedef struct load_run {
    sql_exec_ctx_t *x;
    const sql_load_t *ld;
    sql_dup_mode_t dup;       /* the statement's, but LOCAL without REPLACE is IGNORE (the client's stream
                                 cannot be stopped half-way: MariaDB's rule) */
    cat_table_t *t;
    const char *db;
    uint16_t coll;            /* the fields' collation */
    int *target_col;          /* per target: the column, or -1 for a user variable */
    uint32_t ntargets;
    const char **cols;        /* the INSERT's column list: the targets' columns, then SET's */
    uint32_t ncols;
    int *set_pos;             /* per SET item: its position in cols */
    query_t q;                /* the table, for SET's expressions */
    row_eval_t xe;
    uint64_t records, affected, warnings_before;
    uint64_t line_no;         /* rows read (MariaDB's row number in warnings) */
} load_run_t;

static sql_expr_t *lit(arena_t *a, value_t v)
{
    sql_expr_t *e = arena_calloc(a, sizeof *e);
    e->kind = SQL_E_LITERAL;
    e->lit = v;
    e->slot = -1;
    return e;
}

/* Binds the target list and SET to the table: the INSERT's column list. */
static int load_prepare(load_run_t *L)
{
    sql_exec_ctx_t *x = L->x;
    const sql_load_t *ld = L->ld;
    cat_table_t *t = L->t;
    uint32_t nt = ld->has_targets ? ld->ntargets : 0;
    if (!ld->has_targets)
        for (uint32_t c = 0; c < t->ncols; c++)
            nt += !t->cols[c].invisible;
    L->ntargets = nt;
    L->target_col = arena_alloc(x->arena, sizeof(int) * (nt + 1));
    L->cols = arena_alloc(x->arena, sizeof(char *) * (nt + ld->nset + 1));
    L->set_pos = arena_alloc(x->arena, sizeof(int) * (ld->nset + 1));
    if (!ld->has_targets) {
        uint32_t k = 0;
        for (uint32_t c = 0; c < t->ncols; c++)
            if (!t->cols[c].invisible) {
                L->target_col[k++] = (int)c;
                L->cols[L->ncols++] = t->cols[c].name;
            }
    } else {
        for (uint32_t i = 0; i < nt; i++) {
            const sql_expr_t *e = ld->targets[i];
            if (e->kind == SQL_E_USERVAR) {
                L->target_col[i] = -1;
                continue;
            }
            int c = cat_table_col(t, e->col.name);
            if (c < 0)
                return diag_error(x->diag, ER_BAD_FIELD_ERROR, e->col.name, "SELECT");
            L->target_col[i] = c;
            L->cols[L->ncols++] = t->cols[c].name;
        }
    }
    exec_single_def(&L->q, x, t, L->db);
    for (uint32_t i = 0; i < ld->nset; i++) {
        int rc;
        if ((rc = bind_expr(&L->q, ld->set[i].col, "field list", false)) != 0)
            return rc;
        if (ld->set[i].value->kind != SQL_E_DEFAULT && (rc = bind_expr(&L->q, ld->set[i].value, "field list", false)) != 0)
            return rc;
        L->set_pos[i] = (int)L->ncols;
        L->cols[L->ncols++] = t->cols[ld->set[i].col->slot].name;
    }
    row_eval_init(&L->xe, x);
    return 0;
}

/* One line as an INSERT row (in arena a): 0, or -ER_* (strict 1261 / 1262, SET's errors). */
static int load_line(load_run_t *L, const loadfmt_t *r, arena_t *a, sql_row_t *row)
{
    sql_exec_ctx_t *x = L->x;
    const sql_load_t *ld = L->ld;
    L->line_no++;
    row->vals = arena_alloc(a, sizeof(sql_expr_t *) * (L->ncols + 1));
    row->n = L->ncols;
    row->load_given = 0;
    value_t *ev = arena_alloc(a, sizeof(value_t) * (L->t->ncols + 1));
    for (uint32_t c = 0; c < L->t->ncols; c++)
        ev[c] = value_null();
    /* the line's notes (1261 per field it lacks, 1262 when it has more) are given by insert.c among the row's
     * conversions, where MariaDB gives them (sql_row_t.load_*) */
    uint32_t k = 0;
    for (uint32_t i = 0; i < L->ntargets; i++) {
        value_t v;
        if (i >= r->nf) { /* a short line: the column keeps its default */
            if (L->target_col[i] >= 0) {
                sql_expr_t *d = arena_calloc(a, sizeof *d);
                d->kind = SQL_E_DEFAULT;
                row->vals[k++] = d;
            } else if (x->cb && x->cb->uservar_set) {
                v = value_null();
                x->cb->uservar_set(x->cb_user, ld->targets[i]->var.name, &v);
            }
            continue;
        }
        const loadfmt_field_t *f = &r->f[i];
        if (f->null) {
            v = value_null();
        } else {
            char *p = arena_alloc(a, f->len + 1);
            memcpy(p, r->data.data + f->off, f->len);
            p[f->len] = 0;
            v = value_str(p, f->len, L->coll);
        }
        if (L->target_col[i] < 0) {
            if (x->cb && x->cb->uservar_set)
                x->cb->uservar_set(x->cb_user, ld->targets[i]->var.name, &v);
            continue;
        }
        ev[L->target_col[i]] = v;
        row->vals[k++] = lit(a, v);
        row->load_given = k;
    }
    row->load_targets = k;
    row->load_truncated = r->nf > L->ntargets;
    for (uint32_t i = 0; i < ld->nset; i++) {
        const sql_assign_t *as = &ld->set[i];
        if (as->value->kind == SQL_E_DEFAULT) {
            row->vals[L->set_pos[i]] = as->value;
            continue;
        }
        value_t v;
        int rc = row_eval(&L->xe, as->value, ev, &v);
        if (rc)
            return rc;
        v = value_copy_into(a, &v);
        ev[as->col->slot] = v;
        row->vals[L->set_pos[i]] = lit(a, v);
    }
    return 0;
}

/* Runs the INSERT of a batch of rows. */
static int load_batch(load_run_t *L, sql_row_t *rows, uint32_t n, arena_t *a)
{
    sql_exec_ctx_t *x = L->x;
    const sql_load_t *ld = L->ld;
    sql_insert_t ins;
    memset(&ins, 0, sizeof ins);
    ins.table = ld->table;
    ins.ignore = L->dup == SQL_DUP_IGNORE;
    ins.cols = L->cols;
    ins.ncols = L->ncols;
    ins.rows = rows;
    ins.nrows = n;
    ins.bulk = true;
    sql_stmt_t st;
    memset(&st, 0, sizeof st);
    st.kind = L->dup == SQL_DUP_REPLACE ? SQL_STMT_REPLACE : SQL_STMT_INSERT;
    st.insert = &ins;
    arena_t *keep = x->arena;
    x->arena = a;
    x->insert_rowno_base = L->records;
    int rc = exec_insert(x, &st);
    x->insert_rowno_base = 0;
    x->arena = keep;
    x->exec_pend_ok = false;
    x->pend_info = NULL;
    if (rc == 0) {
        L->affected += x->pend_affected;
        L->records += n;
    }
    return rc;
}

int exec_load_data(sql_exec_ctx_t *x, const sql_stmt_t *st)
{
    const sql_load_t *ld = st->load;
    const sql_export_t *ex = &ld->ex;
    if (ex->enclosed.len > 1 || ex->escaped.len > 1)
        return diag_error(x->diag, ER_WRONG_FIELD_TERMINATORS);
    if (!ex->field_term.len && !ex->enclosed.len)
        return diag_error(x->diag, ER_NOT_SUPPORTED_YET, "fixed-width rows (FIELDS TERMINATED BY '' ENCLOSED BY '')");
    load_run_t L;
    memset(&L, 0, sizeof L);
    L.x = x;
    L.ld = ld;
    L.dup = ld->local && ld->dup == SQL_DUP_ERROR ? SQL_DUP_IGNORE : ld->dup;
    load_src_t src = {.x = x, .fd = -1};
    int rc = 0;
    if (ld->local) {
        const char *li = sysvar_str(x, SQL_SCOPE_GLOBAL, "local_infile");
        bool on = li && (strcmp(li, "1") == 0 || strcasecmp(li, "ON") == 0);
        if (!on || !x->sink->infile_request)
            return diag_error(x->diag, ER_LOAD_INFILE_CAPABILITY_DISABLED);
    }
    L.t = exec_open_write(x, &ld->table, &L.db);
    if (!L.t)
        return -x->diag->error_code;
    /* the fields' character set: the clause's, else the database's */
    int coll = -1;
    if (ex->charset)
        coll = value_charset_default_coll(ex->charset, strlen(ex->charset));
    else {
        const char *dbcoll = sysvar_str(x, SQL_SCOPE_SESSION, "collation_database");
        if (dbcoll)
            coll = value_coll_by_name(dbcoll, strlen(dbcoll));
    }
    if (ex->charset && coll < 0) {
        rc = diag_error(x->diag, ER_UNKNOWN_CHARACTER_SET, ex->charset);
        goto out;
    }
    L.coll = (uint16_t)(coll < 0 ? COLL_UTF8MB4_GENERAL_CI : coll);
    if ((rc = load_prepare(&L)) != 0)
        goto out;
    if (ld->local) {
        int q = x->sink->infile_request(x->sink, ld->file);
        if (q != 0) {
            rc = diag_error(x->diag, q > 0 ? ER_LOAD_INFILE_CAPABILITY_DISABLED : ER_NET_ERROR_ON_WRITE);
            goto out;
        }
        src.local_open = true;
    } else if ((rc = exec_file_open_read(x, ld->file, &src.fd, &src.path)) != 0) {
        goto out;
    }
    loadfmt_t r;
    loadfmt_init(&r, ex, src_fill, &src);
    for (uint64_t i = 0; i < ld->ignore_lines && !rc; i++)
        rc = loadfmt_skip_line(&r) < 0 ? -1 : 0;
    arena_t a;
    arena_init(&a, 65536);
    sql_row_t *rows = NULL;
    uint32_t n = 0;
    while (rc == 0) {
        if (!rows)
            rows = arena_alloc(&a, sizeof(sql_row_t) * LOAD_BATCH_ROWS);
        int got = loadfmt_row(&r);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 1) {
            if ((rc = load_line(&L, &r, &a, &rows[n])) != 0)
                break;
            n++;
        }
        if (n == LOAD_BATCH_ROWS || (got == 0 && n)) {
            rc = load_batch(&L, rows, n, &a);
            arena_reset(&a);
            rows = NULL;
            n = 0;
        }
        if (got == 0)
            break;
        if (x->kill_query && atomic_exchange(x->kill_query, false))
            rc = diag_error(x->diag, ER_QUERY_INTERRUPTED);
    }
    arena_destroy(&a);
    loadfmt_free(&r);
    if (rc == -1 && !x->diag->error) {
        if (ld->local)
            rc = diag_error(x->diag, ER_NET_READ_ERROR);
        else
            rc = diag_error(x->diag, ER_ERROR_ON_READ, src.path, src.err, strerror(src.err));
    }
    if (rc)
        goto out;
    x->row_count = (int64_t)L.affected;
    uint64_t deleted = L.dup == SQL_DUP_REPLACE && L.affected > L.records ? L.affected - L.records : 0;
    uint64_t skipped = L.dup == SQL_DUP_IGNORE && L.records > L.affected ? L.records - L.affected : 0;
    exec_pend_ok(x, L.affected,
                 arena_printf(x->arena, "Records: %llu  Deleted: %llu  Skipped: %llu  Warnings: %u",
                              (unsigned long long)L.records, (unsigned long long)deleted,
                              (unsigned long long)skipped, x->diag->warn_count));
out:
    if (src.fd >= 0)
        close(src.fd);
    src_drain(&src);
    catalog_table_release(L.t);
    return rc;
}
