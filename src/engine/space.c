/*
 * engine/space: tablespaces, data files, extents, segments (see space.h for the model).
 *
 * Control file DATADIR/strata.ctl (text, rewritten whole through a temporary file + rename + directory fsync):
 *   strata-control 1
 *   page_size <bytes>
 *   next_space <id>
 *   space <id> <extent_pages> <name>
 *   file <space id> <file no> <initial bytes> <max bytes> <autoextend 0|1> <path, relative to DATADIR if not absolute>
 *   crc <crc32c in hex of every byte before this line>
 *
 * Data file: pages of page_size.  Extent e covers pages [e*EP, (e+1)*EP) where EP = extent pages.  Extents come
 * in groups of DPP = (page_size - 40) / 48; the first extent of each group is the group's metadata extent, whose
 * page 1 is the group's XDES page (the rest of it is unused, except in group 0: page 0 is the file header and,
 * in file 0 of the system space, page 2 is the tree directory's root).
 *
 * File header page (page 0, type FILE_HDR), body:
 *   32 4 space id      36 4 file no        40 4 extent pages     44 4 size in pages (grows by mtr)
 *   48 8 max bytes     56 4 flags (1 = autoextend)               60 8 initial bytes
 *   68 64 space name, NUL-padded
 *   132 8 root page of the tree directory (system space, file 0 only; 0 before it exists)
 * XDES page (type XDES), body:
 *   32 4 first extent of the group       36 4 descriptors used in this page
 *   40 48*DPP descriptors:  0 8 owner (segment id; 0 free; all-ones = metadata)  8 2 used pages
 *                           10 6 reserved   16 32 bitmap of used pages (bit i = page i of the extent)
 */
#include "engine/space.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "util/fio.h"
#include "util/util.h"

#define CTL_NAME "strata.ctl"
#define SYS_FILE_NAME "strata_sys.dat"
#define XDES_BODY 40
#define XDES_SIZE 48
#define FH_SPACE 32
#define FH_FILE 36
#define FH_EP 40
#define FH_SIZE 44
#define FH_MAX 48
#define FH_FLAGS 56
#define FH_INITIAL 60
#define FH_NAME 68
#define FH_DIR_ROOT 132
#define GROW_MIN_BYTES (8u << 20)

enum { EXT_FREE = 0, EXT_OWNED = 1, EXT_META = 2 };

typedef struct {
    uint32_t file_no;
    char *path; /* as given */
    char *full; /* resolved */
    int fd;
    uint32_t size_pages, n_ext, free_ext, hint;
    uint64_t initial, max;
    bool autoextend;
    uint8_t *ext_state;
} dfile_t;

typedef struct {
    uint32_t file, ext;
    uint16_t used;
} segext_t;

typedef struct seg {
    uint64_t id;
    struct space *sp;
    segext_t *exts;
    uint32_t n, cap;
    uint32_t free_pages; /* unallocated pages in the segment's extents */
    uint32_t reserved;   /* pages promised to callers */
    uint32_t ext_need;   /* extents of the space promised to this segment */
    struct seg *hnext;
} seg_t;

typedef struct space {
    uint32_t id;
    char *name;
    uint32_t ep;
    dfile_t **files;
    uint32_t nfiles, rr, ext_reserved;
    pthread_mutex_t mu; /* extent mirror, segments of this space, XDES changes */
} space_t;

#define SEG_BUCKETS 1024
struct fsys {
    char *datadir;
    uint32_t ps, dpp;
    bpool_t *bp;
    redo_t *redo;
    pthread_mutex_t ddl;     /* serialises space create/add/drop and control-file writes */
    pthread_rwlock_t tbl;    /* the spaces table and each space's files array */
    space_t **spaces;
    uint32_t nspaces, next_space;
    pthread_mutex_t segmu;   /* the segment hash (not segment contents) */
    seg_t *segh[SEG_BUCKETS];
    bool created;
    bool read_only;          /* opened by a read-only engine: a truncated file is not given its length back */
    bool direct;             /* innodb_flush_method=O_DIRECT: data files opened with O_DIRECT where the file
                                system takes it (data_open) */
    _Atomic bool direct_refused; /* a file system refused O_DIRECT once: said in the error log once */
    _Atomic int sync_err;    /* the first failed fdatasync of a data file: sticky (fsys_sync_all) */
};

/* ---------------------------------------------------------------- helpers */

static char *resolve(const fsys_t *fs, const char *path)
{
    if (path[0] == '/')
        return mem_strdup(path);
    size_t n = strlen(fs->datadir) + strlen(path) + 2;
    char *s = mem_alloc(n);
    snprintf(s, n, "%s/%s", fs->datadir, path);
    return s;
}

static space_t *space_get(fsys_t *fs, uint32_t id)
{
    pthread_rwlock_rdlock(&fs->tbl);
    space_t *sp = id < fs->nspaces ? fs->spaces[id] : NULL;
    pthread_rwlock_unlock(&fs->tbl);
    return sp;
}

static dfile_t *file_get(fsys_t *fs, uint32_t space, uint32_t file)
{
    dfile_t *f = NULL;
    pthread_rwlock_rdlock(&fs->tbl);
    space_t *sp = space < fs->nspaces ? fs->spaces[space] : NULL;
    if (sp && file < sp->nfiles)
        f = sp->files[file];
    pthread_rwlock_unlock(&fs->tbl);
    return f;
}

static seg_t *seg_find(fsys_t *fs, uint64_t id)
{
    pthread_mutex_lock(&fs->segmu);
    seg_t *s = fs->segh[id % SEG_BUCKETS];
    while (s && s->id != id)
        s = s->hnext;
    pthread_mutex_unlock(&fs->segmu);
    return s;
}

static seg_t *seg_new(fsys_t *fs, space_t *sp, uint64_t id)
{
    seg_t *s = mem_calloc(1, sizeof *s);
    s->id = id;
    s->sp = sp;
    pthread_mutex_lock(&fs->segmu);
    s->hnext = fs->segh[id % SEG_BUCKETS];
    fs->segh[id % SEG_BUCKETS] = s;
    pthread_mutex_unlock(&fs->segmu);
    return s;
}

static void seg_forget(fsys_t *fs, seg_t *s)
{
    pthread_mutex_lock(&fs->segmu);
    seg_t **pp = &fs->segh[s->id % SEG_BUCKETS];
    while (*pp != s)
        pp = &(*pp)->hnext;
    *pp = s->hnext;
    pthread_mutex_unlock(&fs->segmu);
    mem_free(s->exts);
    mem_free(s);
}

static uint32_t xdes_pgno(const fsys_t *fs, const space_t *sp, uint32_t ext)
{
    return (ext / fs->dpp) * fs->dpp * sp->ep + 1;
}

static uint8_t *xdes_at(const fsys_t *fs, uint8_t *page, uint32_t ext)
{
    return page + XDES_BODY + (size_t)(ext % fs->dpp) * XDES_SIZE;
}

/* Initialises group g's XDES page image in buf (its metadata extent marked used). */
static void xdes_format(const fsys_t *fs, uint8_t *buf, uint32_t space, uint32_t file, uint32_t ep, uint32_t g,
                        uint32_t n_ext)
{
    uint32_t first = g * fs->dpp;
    page_init(buf, fs->ps, page_id_make(space, file, first * ep + 1), PAGE_TYPE_XDES, 0);
    wr32(buf + 32, first);
    wr32(buf + 36, MIN(fs->dpp, n_ext - first));
    uint8_t *d = buf + XDES_BODY;
    wr64(d, XDES_OWNER_META);
    wr16(d + 8, (uint16_t)ep);
    for (uint32_t i = 0; i < ep; i++)
        d[16 + i / 8] |= (uint8_t)(1u << (i % 8));
}

static void fh_format(const fsys_t *fs, uint8_t *buf, const space_t *sp, const dfile_t *f)
{
    page_init(buf, fs->ps, page_id_make(sp->id, f->file_no, 0), PAGE_TYPE_FILE_HDR, 0);
    wr32(buf + FH_SPACE, sp->id);
    wr32(buf + FH_FILE, f->file_no);
    wr32(buf + FH_EP, sp->ep);
    wr32(buf + FH_SIZE, f->size_pages);
    wr64(buf + FH_MAX, f->max);
    wr32(buf + FH_FLAGS, f->autoextend ? 1 : 0);
    wr64(buf + FH_INITIAL, f->initial);
    snprintf((char *)buf + FH_NAME, 64, "%s", sp->name);
}

/* Opens a data file, with O_DIRECT when innodb_flush_method asks for it.  A file system that refuses O_DIRECT
 * (EINVAL: some FUSE and network file systems) gets the file opened through the page cache, said once in the
 * error log.  Linux creates the file before it refuses the flag, so a create (O_EXCL: the file did not exist)
 * removes what it made before trying again. */
static int data_open(fsys_t *fs, const char *path, int flags, mode_t mode)
{
    if (!fs->direct)
        return fio_open(FIO_DATA, path, flags, mode);
    int fd = fio_open(FIO_DATA, path, flags | O_DIRECT, mode);
    if (fd != -EINVAL)
        return fd;
    if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
        unlink(path);
    if (!atomic_exchange(&fs->direct_refused, true))
        log_warn("engine: innodb_flush_method=O_DIRECT: the file system of '%s' refuses O_DIRECT; its data files "
                 "are read and written through the page cache", path);
    return fio_open(FIO_DATA, path, flags, mode);
}

/* O_DIRECT transfers need a buffer aligned to the device's logical block (at most 4 KiB; offsets and lengths are
 * whole pages, at least 4 KiB).  The buffer pool's frames and write buffers are; a caller's other buffer goes
 * through an aligned copy. */
static int pwrite_full(int fd, const void *p, size_t n, off_t off)
{
    if (!((uintptr_t)p % FIO_DIRECT_ALIGN))
        return fio_pwrite(FIO_DATA, fd, p, n, off);
    void *b = fio_direct_buf(n);
    if (!b)
        return -ENOMEM;
    memcpy(b, p, n);
    int rc = fio_pwrite(FIO_DATA, fd, b, n, off);
    free(b);
    return rc;
}

static int pread_full(int fd, void *p, size_t n, off_t off, size_t *got)
{
    if (!((uintptr_t)p % FIO_DIRECT_ALIGN))
        return fio_pread(FIO_DATA, fd, p, n, off, got);
    void *b = fio_direct_buf(n);
    if (!b)
        return -ENOMEM;
    int rc = fio_pread(FIO_DATA, fd, b, n, off, got);
    if (!rc)
        memcpy(p, b, *got);
    free(b);
    return rc;
}

/* Extends fd to `bytes` (fallocate, or zero writes where the file system has none). */
static int file_extend(int fd, uint64_t from, uint64_t bytes) { return fio_allocate(FIO_DATA, fd, from, bytes - from); }

/* Creates a data file: allocated in one go, header and XDES pages written, synced. */
static int dfile_create(fsys_t *fs, space_t *sp, dfile_t *f)
{
    int rc = 0;
    uint8_t *pg = NULL;
    f->fd = data_open(fs, f->full, O_RDWR | O_CREAT | O_EXCL, 0640);
    if (f->fd < 0) {
        rc = f->fd;
        f->fd = -1;
        if (rc == -EEXIST)
            log_error("engine: data file '%s' already exists; remove it or choose another name", f->full);
        else
            log_error("engine: cannot create data file '%s': %s", f->full, strerror(-rc));
        return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
    }
    uint64_t t0 = time_mono_us();
    if ((rc = file_extend(f->fd, 0, (uint64_t)f->size_pages * fs->ps))) {
        log_error("engine: cannot allocate %llu bytes for '%s': %s",
                  (unsigned long long)f->size_pages * fs->ps, f->full, strerror(-rc));
        goto fail;
    }
    pg = mem_alloc(fs->ps);
    fh_format(fs, pg, sp, f);
    page_seal(pg, fs->ps);
    if ((rc = pwrite_full(f->fd, pg, fs->ps, 0)))
        goto fail;
    for (uint32_t g = 0; g * fs->dpp < f->n_ext; g++) {
        xdes_format(fs, pg, sp->id, f->file_no, sp->ep, g, f->n_ext);
        page_seal(pg, fs->ps);
        if ((rc = pwrite_full(f->fd, pg, fs->ps, (off_t)(g * fs->dpp * sp->ep + 1) * fs->ps)))
            goto fail;
    }
    if ((rc = fio_fsync(FIO_DATA, f->fd)))
        goto fail;
    log_note("engine: created data file '%s' (%llu bytes) in %llu ms", f->full,
             (unsigned long long)f->size_pages * fs->ps, (unsigned long long)(time_mono_us() - t0) / 1000);
    mem_free(pg);
    return 0;
fail:
    mem_free(pg);
    close(f->fd);
    f->fd = -1;
    unlink(f->full);
    return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
}

static dfile_t *dfile_new(fsys_t *fs, space_t *sp, uint32_t file_no, const char *path, uint64_t initial, uint64_t max,
                          bool autoextend)
{
    dfile_t *f = mem_calloc(1, sizeof *f);
    f->file_no = file_no;
    f->path = mem_strdup(path);
    f->full = resolve(fs, path);
    f->fd = -1;
    f->initial = initial;
    f->max = max;
    f->autoextend = autoextend;
    uint64_t ext_bytes = (uint64_t)sp->ep * fs->ps;
    uint64_t n_ext = initial / ext_bytes;
    if (n_ext < 2)
        n_ext = 2;
    f->n_ext = (uint32_t)n_ext;
    f->size_pages = f->n_ext * sp->ep;
    return f;
}

static void dfile_free(dfile_t *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    mem_free(f->path);
    mem_free(f->full);
    mem_free(f->ext_state);
    mem_free(f);
}

static space_t *space_new(uint32_t id, const char *name, uint32_t ep)
{
    space_t *sp = mem_calloc(1, sizeof *sp);
    sp->id = id;
    sp->name = mem_strdup(name);
    sp->ep = ep;
    pthread_mutex_init(&sp->mu, NULL);
    return sp;
}

static void space_free(space_t *sp)
{
    for (uint32_t i = 0; i < sp->nfiles; i++)
        dfile_free(sp->files[i]);
    mem_free(sp->files);
    mem_free(sp->name);
    pthread_mutex_destroy(&sp->mu);
    mem_free(sp);
}

static void space_add_file_locked(fsys_t *fs, space_t *sp, dfile_t *f)
{
    sp->files = mem_realloc(sp->files, (sp->nfiles + 1) * sizeof(dfile_t *));
    sp->files[sp->nfiles++] = f;
}

static void table_put(fsys_t *fs, space_t *sp)
{
    if (sp->id >= fs->nspaces) {
        fs->spaces = mem_realloc(fs->spaces, (sp->id + 1) * sizeof(space_t *));
        for (uint32_t i = fs->nspaces; i <= sp->id; i++)
            fs->spaces[i] = NULL;
        fs->nspaces = sp->id + 1;
    }
    fs->spaces[sp->id] = sp;
}

/* ---------------------------------------------------------------- control file */

static int ctl_write(fsys_t *fs)
{
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "strata-control 1\npage_size %u\nnext_space %u\n", fs->ps, fs->next_space);
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t i = 0; i < fs->nspaces; i++) {
        space_t *sp = fs->spaces[i];
        if (!sp)
            continue;
        buf_printf(&b, "space %u %u %s\n", sp->id, sp->ep, sp->name);
        for (uint32_t j = 0; j < sp->nfiles; j++) {
            dfile_t *f = sp->files[j];
            buf_printf(&b, "file %u %u %llu %llu %d %s\n", sp->id, f->file_no, (unsigned long long)f->initial,
                       (unsigned long long)f->max, f->autoextend ? 1 : 0, f->path);
        }
    }
    pthread_rwlock_unlock(&fs->tbl);
    buf_printf(&b, "crc %08x\n", crc32c(0, b.data, b.len));
    char *path = resolve(fs, CTL_NAME);
    int rc = fio_replace_file(FIO_DATA, fs->datadir, path, b.data, b.len, 0640);
    if (rc)
        log_error("engine: cannot write control file '%s': %s", path, strerror(-rc));
    mem_free(path);
    buf_free(&b);
    return rc;
}

static int ctl_read(fsys_t *fs, const char *path)
{
    int rc = 0;
    FILE *fp = fio_fopen_read(FIO_DATA, path);
    if (!fp) {
        log_error("engine: cannot read control file '%s': %s", path, strerror(errno));
        return -errno;
    }
    char line[1200];
    uint32_t crc = 0;
    bool sealed = false;
    while (fgets(line, sizeof line, fp)) {
        size_t len = strlen(line);
        unsigned a, b2, c, ae;
        unsigned long long x, y;
        char rest[1100];
        if (sscanf(line, "crc %x", &a) == 1) {
            sealed = a == crc;
            break;
        }
        crc = crc32c(crc, line, len);
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        if (sscanf(line, "page_size %u", &a) == 1) {
            fs->ps = a;
        } else if (sscanf(line, "next_space %u", &a) == 1) {
            fs->next_space = a;
        } else if (sscanf(line, "space %u %u %1099[^\n]", &a, &b2, rest) == 3) {
            table_put(fs, space_new(a, rest, b2));
        } else if (sscanf(line, "file %u %u %llu %llu %u %1099[^\n]", &a, &b2, &x, &y, &ae, rest) == 6) {
            space_t *sp = a < fs->nspaces ? fs->spaces[a] : NULL;
            if (!sp || b2 != sp->nfiles) {
                rc = CORRUPT("engine: control file '%s': file line for unknown space %u", path, a);
                break;
            }
            dfile_t *f = dfile_new(fs, sp, b2, rest, x, y, ae != 0);
            space_add_file_locked(fs, sp, f);
        } else if (strncmp(line, "strata-control 1", 16) != 0) {
            rc = CORRUPT("engine: control file '%s': cannot parse '%s'", path, line);
            break;
        }
        (void)c;
    }
    fclose(fp);
    if (!rc && !sealed)
        rc = CORRUPT("engine: control file '%s' is truncated or its checksum is wrong", path);
    return rc;
}

/* ---------------------------------------------------------------- open / close / io */

int fsys_open(const char *datadir, uint32_t page_size, bool create, uint64_t sys_initial, uint32_t sys_extent_pages,
              bool direct, fsys_t **out)
{
    int rc = 0;
    fsys_t *fs = mem_calloc(1, sizeof *fs);
    fs->direct = direct;
    fs->datadir = mem_strdup(datadir);
    pthread_mutex_init(&fs->ddl, NULL);
    pthread_mutex_init(&fs->segmu, NULL);
    pthread_rwlock_init(&fs->tbl, NULL);
    char *ctl = resolve(fs, CTL_NAME);
    *out = NULL;
    if (access(ctl, F_OK) == 0) {
        if ((rc = ctl_read(fs, ctl)))
            goto fail;
        fs->dpp = (fs->ps - XDES_BODY) / XDES_SIZE;
        if (!fs->nspaces || !fs->spaces[0] || !fs->spaces[0]->nfiles) {
            rc = CORRUPT("engine: control file '%s' has no system tablespace", ctl);
            goto fail;
        }
        for (uint32_t i = 0; i < fs->nspaces; i++) {
            space_t *sp = fs->spaces[i];
            for (uint32_t j = 0; sp && j < sp->nfiles; j++) {
                dfile_t *f = sp->files[j];
                f->fd = data_open(fs, f->full, O_RDWR, 0);
                if (f->fd < 0) {
                    rc = f->fd;
                    f->fd = -1;
                    log_error("engine: data file '%s' of tablespace '%s' cannot be opened: %s", f->full, sp->name,
                              strerror(-rc));
                    goto fail;
                }
            }
        }
    } else {
        if (!create) {
            rc = STRATA_ENOTFOUND;
            goto fail;
        }
        char *sys = resolve(fs, SYS_FILE_NAME);
        bool leftover = access(sys, F_OK) == 0;
        if (leftover)
            log_error("engine: '%s' exists but the control file '%s' does not; restore %s or remove the leftover "
                      "file", sys, ctl, CTL_NAME);
        mem_free(sys);
        if (leftover) {
            rc = STRATA_EEXIST;
            goto fail;
        }
        fs->ps = page_size;
        fs->dpp = (fs->ps - XDES_BODY) / XDES_SIZE;
        space_t *sp = space_new(SPACE_SYSTEM, SPACE_SYSTEM_NAME, sys_extent_pages);
        dfile_t *f = dfile_new(fs, sp, 0, SYS_FILE_NAME, sys_initial, 0, true);
        if ((rc = dfile_create(fs, sp, f))) {
            dfile_free(f);
            space_free(sp);
            goto fail;
        }
        space_add_file_locked(fs, sp, f);
        table_put(fs, sp);
        fs->next_space = 1;
        if ((rc = ctl_write(fs)))
            goto fail;
        fs->created = true;
    }
    mem_free(ctl);
    *out = fs;
    return 0;
fail:
    mem_free(ctl);
    fsys_close(fs);
    return rc;
}

void fsys_close(fsys_t *fs)
{
    if (!fs)
        return;
    for (uint32_t i = 0; i < SEG_BUCKETS; i++)
        while (fs->segh[i]) {
            seg_t *s = fs->segh[i];
            fs->segh[i] = s->hnext;
            mem_free(s->exts);
            mem_free(s);
        }
    for (uint32_t i = 0; i < fs->nspaces; i++)
        if (fs->spaces[i])
            space_free(fs->spaces[i]);
    mem_free(fs->spaces);
    mem_free(fs->datadir);
    pthread_mutex_destroy(&fs->ddl);
    pthread_mutex_destroy(&fs->segmu);
    pthread_rwlock_destroy(&fs->tbl);
    mem_free(fs);
}

void fsys_attach(fsys_t *fs, bpool_t *bp, redo_t *redo)
{
    fs->bp = bp;
    fs->redo = redo;
}

uint32_t fsys_page_size(const fsys_t *fs) { return fs->ps; }
bool fsys_created(const fsys_t *fs) { return fs->created; }
void fsys_set_read_only(fsys_t *fs, bool on) { fs->read_only = on; }

int fsys_page_read(void *ctx, page_id_t id, uint8_t *buf)
{
    fsys_t *fs = ctx;
    dfile_t *f = file_get(fs, page_id_space(id), page_id_file(id));
    if (!f)
        return STRATA_ENOTFOUND;
    size_t got = 0;
    off_t off = (off_t)page_id_pgno(id) * fs->ps;
    int rc = pread_full(f->fd, buf, fs->ps, off, &got);
    if (rc) {
        log_error("engine: read of '%s' at %lld failed: %s", f->full, (long long)off, strerror(-rc));
        return rc;
    }
    memset(buf + got, 0, fs->ps - got); /* beyond the end: a page never written */
    return 0;
}

int fsys_page_write(void *ctx, page_id_t id, const uint8_t *buf)
{
    fsys_t *fs = ctx;
    dfile_t *f = file_get(fs, page_id_space(id), page_id_file(id));
    if (!f)
        return 0; /* the space was dropped: nothing to keep */
    int rc = pwrite_full(f->fd, buf, fs->ps, (off_t)page_id_pgno(id) * fs->ps);
    if (rc)
        log_error("engine: write to '%s' failed: %s", f->full, strerror(-rc));
    return rc;
}

/* A failed fdatasync is never retried into a success: the kernel may have dropped the dirty pages it could not
 * write and report the next fsync clean, and a checkpoint would then name pages that are not on disk.  So the
 * first failure sticks: every later checkpoint fails, the log keeps everything since the last good one, the
 * engine refuses changes once the log is full, and the next start recovers from that checkpoint. */
int fsys_sync_all(fsys_t *fs)
{
    int rc = fs->sync_err;
    if (rc)
        return rc;
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t i = 0; i < fs->nspaces; i++) {
        space_t *sp = fs->spaces[i];
        for (uint32_t j = 0; sp && j < sp->nfiles; j++) {
            int src = fio_fdatasync(FIO_DATA, sp->files[j]->fd);
            if (src && !rc) {
                rc = src;
                fs->sync_err = src;
                log_error("engine: fsync of '%s' failed: %s", sp->files[j]->full, strerror(-src));
            }
        }
    }
    pthread_rwlock_unlock(&fs->tbl);
    return rc;
}

int fsys_dir_root(fsys_t *fs, page_id_t *root)
{
    bframe_t *f;
    int rc = bpool_fix(fs->bp, page_id_make(SPACE_SYSTEM, 0, 0), LATCH_S, &f);
    if (rc)
        return rc;
    uint64_t v = rd64(f->data + FH_DIR_ROOT);
    bpool_unfix(fs->bp, f, LATCH_S);
    *root = v ? v : PAGE_ID_NONE;
    return 0;
}

int fsys_set_dir_root(fsys_t *fs, mtr_t *m, page_id_t root)
{
    bframe_t *f;
    int rc = mtr_fix(m, page_id_make(SPACE_SYSTEM, 0, 0), LATCH_X, &f);
    if (rc)
        return rc;
    mtr_modify(m, f);
    wr64(f->data + FH_DIR_ROOT, root);
    return 0;
}

/* ---------------------------------------------------------------- loading the mirror */

static int load_file(fsys_t *fs, space_t *sp, dfile_t *f)
{
    bframe_t *fr;
    int rc = bpool_fix(fs->bp, page_id_make(sp->id, f->file_no, 0), LATCH_S, &fr);
    if (rc)
        return rc;
    if (page_type(fr->data) != PAGE_TYPE_FILE_HDR || rd32(fr->data + FH_SPACE) != sp->id ||
        rd32(fr->data + FH_EP) != sp->ep) {
        bpool_unfix(fs->bp, fr, LATCH_S);
        return CORRUPT("engine: '%s' is not file %u of tablespace '%s'", f->full, f->file_no, sp->name);
    }
    f->size_pages = rd32(fr->data + FH_SIZE);
    bpool_unfix(fs->bp, fr, LATCH_S);
    struct stat st;
    uint64_t want = (uint64_t)f->size_pages * fs->ps;
    if (fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < want) {
        /* Cut short behind the server's back (a copy that stopped, a full disk during a restore).  The pages past
         * the end read as never written: the trees that had pages there fail their checks (1877 for their tables)
         * and everything else is served.  The file gets its length back so that its free extents stay usable. */
        log_error("engine: data file '%s' is %llu bytes but its header says %llu: it was truncated; the tables "
                  "with pages past its end fail with error 1877 (strata-check names them)", f->full,
                  (unsigned long long)st.st_size, (unsigned long long)want);
        if (!fs->read_only && (rc = file_extend(f->fd, (uint64_t)st.st_size, want)))
            return rc;
    }
    f->n_ext = f->size_pages / sp->ep;
    mem_free(f->ext_state);
    f->ext_state = mem_calloc(f->n_ext ? f->n_ext : 1, 1);
    f->free_ext = 0;
    for (uint32_t e = 0; e < f->n_ext; e++) {
        if (e % fs->dpp == 0) {
            if (e)
                bpool_unfix(fs->bp, fr, LATCH_S);
            if ((rc = bpool_fix(fs->bp, page_id_make(sp->id, f->file_no, xdes_pgno(fs, sp, e)), LATCH_S, &fr)))
                return rc;
            if (page_type(fr->data) != PAGE_TYPE_XDES) {
                bpool_unfix(fs->bp, fr, LATCH_S);
                return CORRUPT("engine: '%s' extent group %u has no descriptor page", f->full, e / fs->dpp);
            }
        }
        uint8_t *d = xdes_at(fs, fr->data, e);
        uint64_t owner = rd64(d);
        if (owner == 0) {
            f->ext_state[e] = EXT_FREE;
            f->free_ext++;
        } else if (owner == XDES_OWNER_META) {
            f->ext_state[e] = EXT_META;
        } else {
            f->ext_state[e] = EXT_OWNED;
            seg_t *s = seg_find(fs, owner);
            if (!s)
                s = seg_new(fs, sp, owner);
            if (s->n == s->cap) {
                s->cap = s->cap ? s->cap * 2 : 8;
                s->exts = mem_realloc(s->exts, s->cap * sizeof(segext_t));
            }
            uint16_t used = rd16(d + 8);
            s->exts[s->n++] = (segext_t){.file = f->file_no, .ext = e, .used = used};
            s->free_pages += sp->ep - used;
        }
    }
    if (f->n_ext)
        bpool_unfix(fs->bp, fr, LATCH_S);
    return 0;
}

int fsys_load(fsys_t *fs)
{
    int rc = 0;
    for (uint32_t i = 0; i < fs->nspaces && !rc; i++) {
        space_t *sp = fs->spaces[i];
        for (uint32_t j = 0; sp && j < sp->nfiles && !rc; j++)
            rc = load_file(fs, sp, sp->files[j]);
    }
    return rc;
}

/* ---------------------------------------------------------------- spaces */

int fsys_space_find(fsys_t *fs, const char *name, uint32_t *space_id)
{
    int rc = STRATA_ENOTFOUND;
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t i = 0; i < fs->nspaces; i++)
        if (fs->spaces[i] && strcasecmp(fs->spaces[i]->name, name) == 0) {
            *space_id = i;
            rc = 0;
            break;
        }
    pthread_rwlock_unlock(&fs->tbl);
    return rc;
}

static void mirror_new_file(fsys_t *fs, space_t *sp, dfile_t *f)
{
    f->ext_state = mem_calloc(f->n_ext, 1);
    f->free_ext = 0;
    for (uint32_t e = 0; e < f->n_ext; e++) {
        f->ext_state[e] = e % fs->dpp == 0 ? EXT_META : EXT_FREE;
        f->free_ext += f->ext_state[e] == EXT_FREE;
    }
}

int fsys_space_create(fsys_t *fs, const char *name, const char *path, uint64_t initial, uint64_t extent_bytes,
                      uint64_t max_size, bool autoextend, uint32_t *space_id)
{
    int rc = 0;
    uint32_t dummy;
    if (!extent_bytes)
        extent_bytes = 1 << 20;
    uint64_t ep = extent_bytes / fs->ps;
    if (ep < SPACE_EXTENT_PAGES_MIN || ep > SPACE_EXTENT_PAGES_MAX || extent_bytes % fs->ps)
        return ENGINE_EINVAL;
    if (strlen(name) >= 64 || strchr(name, '\n') || strchr(path, '\n'))
        return ENGINE_EINVAL;
    pthread_mutex_lock(&fs->ddl);
    if (fsys_space_find(fs, name, &dummy) == 0) {
        rc = STRATA_EEXIST;
        goto out;
    }
    space_t *sp = space_new(fs->next_space, name, (uint32_t)ep);
    dfile_t *f = dfile_new(fs, sp, 0, path, initial, max_size, autoextend);
    if ((rc = dfile_create(fs, sp, f))) {
        dfile_free(f);
        space_free(sp);
        goto out;
    }
    mirror_new_file(fs, sp, f);
    space_add_file_locked(fs, sp, f);
    pthread_rwlock_wrlock(&fs->tbl);
    table_put(fs, sp);
    fs->next_space++;
    pthread_rwlock_unlock(&fs->tbl);
    if ((rc = ctl_write(fs))) {
        pthread_rwlock_wrlock(&fs->tbl);
        fs->spaces[sp->id] = NULL;
        pthread_rwlock_unlock(&fs->tbl);
        unlink(f->full);
        space_free(sp);
        goto out;
    }
    *space_id = sp->id;
out:
    pthread_mutex_unlock(&fs->ddl);
    return rc;
}

int fsys_space_add_file(fsys_t *fs, uint32_t space_id, const char *path, uint64_t initial)
{
    int rc = 0;
    pthread_mutex_lock(&fs->ddl);
    space_t *sp = space_get(fs, space_id);
    if (!sp) {
        rc = STRATA_ENOTFOUND;
        goto out;
    }
    char *full = resolve(fs, path);
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t i = 0; i < fs->nspaces; i++)
        for (uint32_t j = 0; fs->spaces[i] && j < fs->spaces[i]->nfiles; j++)
            if (strcmp(fs->spaces[i]->files[j]->full, full) == 0)
                rc = STRATA_EEXIST;
    pthread_rwlock_unlock(&fs->tbl);
    mem_free(full);
    if (rc)
        goto out;
    dfile_t *f = dfile_new(fs, sp, sp->nfiles, path, initial, 0, false);
    if ((rc = dfile_create(fs, sp, f))) {
        dfile_free(f);
        goto out;
    }
    mirror_new_file(fs, sp, f);
    pthread_mutex_lock(&sp->mu);
    pthread_rwlock_wrlock(&fs->tbl);
    space_add_file_locked(fs, sp, f);
    pthread_rwlock_unlock(&fs->tbl);
    pthread_mutex_unlock(&sp->mu);
    rc = ctl_write(fs);
out:
    pthread_mutex_unlock(&fs->ddl);
    return rc;
}

int fsys_space_drop(fsys_t *fs, uint32_t space_id)
{
    int rc = 0;
    if (space_id == SPACE_SYSTEM)
        return ENGINE_EINVAL;
    pthread_mutex_lock(&fs->ddl);
    space_t *sp = space_get(fs, space_id);
    if (!sp) {
        rc = STRATA_ENOTFOUND;
        goto out;
    }
    pthread_mutex_lock(&fs->segmu);
    for (uint32_t i = 0; i < SEG_BUCKETS && !rc; i++)
        for (seg_t *s = fs->segh[i]; s; s = s->hnext)
            if (s->sp == sp)
                rc = ENGINE_ENOTEMPTY;
    pthread_mutex_unlock(&fs->segmu);
    if (rc)
        goto out;
    pthread_rwlock_wrlock(&fs->tbl);
    fs->spaces[space_id] = NULL;
    pthread_rwlock_unlock(&fs->tbl);
    if ((rc = ctl_write(fs))) {
        pthread_rwlock_wrlock(&fs->tbl);
        fs->spaces[space_id] = sp;
        pthread_rwlock_unlock(&fs->tbl);
        goto out;
    }
    if (fs->bp)
        bpool_discard_space(fs->bp, space_id);
    for (uint32_t j = 0; j < sp->nfiles; j++)
        unlink(sp->files[j]->full);
    space_free(sp);
out:
    pthread_mutex_unlock(&fs->ddl);
    return rc;
}

int fsys_files(fsys_t *fs, space_file_info_t **out, size_t *n)
{
    size_t cnt = 0, cap = 8;
    space_file_info_t *v = mem_calloc(cap, sizeof *v);
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t i = 0; i < fs->nspaces; i++) {
        space_t *sp = fs->spaces[i];
        if (!sp)
            continue;
        pthread_mutex_lock(&sp->mu);
        for (uint32_t j = 0; j < sp->nfiles; j++) {
            dfile_t *f = sp->files[j];
            if (cnt == cap) {
                cap *= 2;
                v = mem_realloc(v, cap * sizeof *v);
            }
            space_file_info_t *x = &v[cnt++];
            memset(x, 0, sizeof *x);
            snprintf(x->space_name, sizeof x->space_name, "%s", sp->name);
            snprintf(x->path, sizeof x->path, "%s", f->path);
            x->space_id = sp->id;
            x->file_no = f->file_no;
            x->extent_size = (uint64_t)sp->ep * fs->ps;
            x->total_extents = f->n_ext;
            x->free_extents = f->free_ext;
            x->initial_size = f->initial;
            x->maximum_size = f->autoextend ? f->max : (uint64_t)f->size_pages * fs->ps;
            x->size = (uint64_t)f->size_pages * fs->ps;
            x->autoextend = f->autoextend;
            x->status = "NORMAL";
        }
        pthread_mutex_unlock(&sp->mu);
    }
    pthread_rwlock_unlock(&fs->tbl);
    *out = v;
    *n = cnt;
    return 0;
}

/* ---------------------------------------------------------------- segments */

static uint32_t space_free_ext(const space_t *sp)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < sp->nfiles; i++)
        n += sp->files[i]->free_ext;
    return n;
}

/* Re-derives how many new extents the segment's reservation still needs.  Space mutex held. */
static void seg_recalc(seg_t *s)
{
    uint32_t ep = s->sp->ep;
    uint32_t need = s->reserved > s->free_pages ? (s->reserved - s->free_pages + ep - 1) / ep : 0;
    s->sp->ext_reserved = s->sp->ext_reserved - s->ext_need + need;
    s->ext_need = need;
}

/* Grows the first autoextend file of the space that may grow, by at least `extents` extents.  Space mutex held;
 * the change of size and the new XDES pages are logged in mtr m (or in a private mtr). */
static int space_grow(fsys_t *fs, mtr_t *outer, space_t *sp, uint32_t extents)
{
    dfile_t *f = NULL;
    for (uint32_t i = 0; i < sp->nfiles && !f; i++)
        if (sp->files[i]->autoextend &&
            (!sp->files[i]->max || (uint64_t)sp->files[i]->size_pages * fs->ps < sp->files[i]->max))
            f = sp->files[i];
    if (!f || !fs->bp)
        return ENGINE_EFULL;
    uint64_t ext_bytes = (uint64_t)sp->ep * fs->ps;
    uint64_t add = MAX((uint64_t)extents, MAX(GROW_MIN_BYTES / ext_bytes, (uint64_t)f->n_ext / 8));
    add += (add + f->n_ext) / fs->dpp + 1; /* room for metadata extents of new groups */
    uint64_t new_ext = f->n_ext + add;
    if (f->max && new_ext * ext_bytes > f->max)
        new_ext = f->max / ext_bytes;
    if (new_ext > 0xffffffffull / sp->ep)
        new_ext = 0xffffffffull / sp->ep;
    if (new_ext <= f->n_ext)
        return ENGINE_EFULL;
    int rc = file_extend(f->fd, (uint64_t)f->size_pages * fs->ps, new_ext * ext_bytes);
    if (!rc)
        rc = fio_fdatasync(FIO_DATA, f->fd);
    if (rc) {
        log_error("engine: cannot extend '%s': %s", f->full, strerror(-rc));
        return rc == -ENOSPC ? ENGINE_ENOSPC : rc;
    }
    mtr_t own, *m = outer;
    if (!m) {
        m = &own;
        mtr_start(m, fs->bp, fs->redo);
    }
    bframe_t *fr;
    uint32_t old_ext = f->n_ext;
    if ((rc = mtr_fix(m, page_id_make(sp->id, f->file_no, 0), LATCH_X, &fr)))
        goto done;
    mtr_modify(m, fr);
    wr32(fr->data + FH_SIZE, (uint32_t)(new_ext * sp->ep));
    /* Descriptor counts of the last old group and any new groups. */
    for (uint32_t g = (old_ext - 1) / fs->dpp; g * fs->dpp < new_ext; g++) {
        page_id_t xid = page_id_make(sp->id, f->file_no, g * fs->dpp * sp->ep + 1);
        if (g * fs->dpp >= old_ext) {
            if ((rc = mtr_fix_new(m, xid, &fr)))
                goto done;
            xdes_format(fs, fr->data, sp->id, f->file_no, sp->ep, g, (uint32_t)new_ext);
        } else {
            if ((rc = mtr_fix(m, xid, LATCH_X, &fr)))
                goto done;
            mtr_modify(m, fr);
            wr32(fr->data + 36, MIN(fs->dpp, (uint32_t)new_ext - g * fs->dpp));
        }
    }
    f->ext_state = mem_realloc(f->ext_state, new_ext);
    for (uint32_t e = old_ext; e < new_ext; e++) {
        f->ext_state[e] = e % fs->dpp == 0 ? EXT_META : EXT_FREE;
        f->free_ext += f->ext_state[e] == EXT_FREE;
    }
    f->n_ext = (uint32_t)new_ext;
    f->size_pages = (uint32_t)(new_ext * sp->ep);
done:
    if (m == &own)
        mtr_commit(m);
    return rc;
}

int seg_create(fsys_t *fs, mtr_t *m, uint32_t space_id, uint64_t seg_id, page_id_t *first)
{
    space_t *sp = space_get(fs, space_id);
    if (!sp)
        return STRATA_ENOTFOUND;
    if (seg_find(fs, seg_id))
        return STRATA_EEXIST;
    seg_t *s = seg_new(fs, sp, seg_id);
    int rc = seg_reserve(fs, m, seg_id, 1);
    if (rc) {
        seg_forget(fs, s);
        return rc;
    }
    return seg_alloc_page(fs, m, seg_id, first);
}

int seg_reserve(fsys_t *fs, mtr_t *m, uint64_t seg_id, uint32_t pages)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return STRATA_ENOTFOUND;
    space_t *sp = s->sp;
    bool held = mtr_holds_lock(m, &sp->mu);
    if (!held)
        pthread_mutex_lock(&sp->mu);
    int rc = 0;
    s->reserved += pages;
    seg_recalc(s);
    while (sp->ext_reserved > space_free_ext(sp)) {
        if ((rc = space_grow(fs, held ? m : NULL, sp, sp->ext_reserved - space_free_ext(sp)))) {
            s->reserved -= pages;
            seg_recalc(s);
            if (rc != ENGINE_ENOSPC)
                rc = ENGINE_EFULL;
            break;
        }
    }
    if (!held)
        pthread_mutex_unlock(&sp->mu);
    return rc;
}

void seg_unreserve(fsys_t *fs, mtr_t *m, uint64_t seg_id, uint32_t pages)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return;
    bool held = mtr_holds_lock(m, &s->sp->mu);
    if (!held)
        pthread_mutex_lock(&s->sp->mu);
    s->reserved = s->reserved > pages ? s->reserved - pages : 0;
    seg_recalc(s);
    if (!held)
        pthread_mutex_unlock(&s->sp->mu);
}

/* Takes a free extent of file f for the segment.  Space mutex held.  ENGINE_EFULL when f has none. */
static int seg_take_extent_in(fsys_t *fs, mtr_t *m, seg_t *s, dfile_t *f)
{
    space_t *sp = s->sp;
    for (uint32_t i = 0; f->free_ext && i < f->n_ext; i++) {
        uint32_t e = (f->hint + i) % f->n_ext;
        if (f->ext_state[e] != EXT_FREE)
            continue;
        bframe_t *fr;
        int rc = mtr_fix(m, page_id_make(sp->id, f->file_no, xdes_pgno(fs, sp, e)), LATCH_X, &fr);
        if (rc)
            return rc;
        mtr_modify(m, fr);
        uint8_t *d = xdes_at(fs, fr->data, e);
        if (rd64(d) != 0)
            return CORRUPT("engine: extent %u of '%s' is owned on disk but free in memory", e, f->full);
        memset(d, 0, XDES_SIZE);
        wr64(d, s->id);
        f->ext_state[e] = EXT_OWNED;
        f->free_ext--;
        f->hint = e + 1;
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 8;
            s->exts = mem_realloc(s->exts, s->cap * sizeof(segext_t));
        }
        s->exts[s->n++] = (segext_t){.file = f->file_no, .ext = e, .used = 0};
        s->free_pages += sp->ep;
        return 0;
    }
    return ENGINE_EFULL;
}

/* Takes a free extent for the segment, round-robin over the files.  Space mutex held. */
static int seg_take_extent(fsys_t *fs, mtr_t *m, seg_t *s)
{
    space_t *sp = s->sp;
    for (uint32_t k = 0; k < sp->nfiles; k++) {
        dfile_t *f = sp->files[(sp->rr + k) % sp->nfiles];
        if (!f->free_ext)
            continue;
        int rc = seg_take_extent_in(fs, m, s, f);
        if (rc == ENGINE_EFULL)
            continue;
        if (!rc)
            sp->rr = (sp->rr + k + 1) % sp->nfiles;
        return rc;
    }
    return ENGINE_EFULL;
}

/* Marks the first free page of extent x used on its descriptor.  Space mutex held. */
static int seg_take_page(fsys_t *fs, mtr_t *m, seg_t *s, segext_t *x, page_id_t *out)
{
    space_t *sp = s->sp;
    bframe_t *fr;
    int rc = mtr_fix(m, page_id_make(sp->id, x->file, xdes_pgno(fs, sp, x->ext)), LATCH_X, &fr);
    if (rc)
        return rc;
    mtr_modify(m, fr);
    uint8_t *d = xdes_at(fs, fr->data, x->ext);
    if (rd64(d) != s->id)
        return CORRUPT("engine: extent %u:%u:%u not owned by segment %llu on disk", sp->id, x->file, x->ext,
                       (unsigned long long)s->id);
    uint32_t bit = 0;
    while (bit < sp->ep && (d[16 + bit / 8] & (1u << (bit % 8))))
        bit++;
    if (bit == sp->ep)
        return CORRUPT("engine: extent %u:%u:%u full on disk, not in memory", sp->id, x->file, x->ext);
    d[16 + bit / 8] |= (uint8_t)(1u << (bit % 8));
    wr16(d + 8, rd16(d + 8) + 1);
    x->used++;
    s->free_pages--;
    *out = page_id_make(sp->id, x->file, x->ext * sp->ep + bit);
    return 0;
}

int seg_alloc_page(fsys_t *fs, mtr_t *m, uint64_t seg_id, page_id_t *out)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return STRATA_ENOTFOUND;
    space_t *sp = s->sp;
    mtr_lock(m, &sp->mu);
    int rc = 0;
    segext_t *x = NULL;
    for (uint32_t i = s->n; i-- > 0;)
        if (s->exts[i].used < sp->ep) {
            x = &s->exts[i];
            break;
        }
    if (!x) {
        if ((rc = seg_take_extent(fs, m, s)))
            goto out;
        x = &s->exts[s->n - 1];
    }
    if ((rc = seg_take_page(fs, m, s, x, out)))
        goto out;
    if (s->reserved)
        s->reserved--;
out:
    seg_recalc(s);
    return rc;
}

int seg_alloc_page_in_file(fsys_t *fs, mtr_t *m, uint64_t seg_id, uint32_t file_no, page_id_t *out)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return STRATA_ENOTFOUND;
    space_t *sp = s->sp;
    mtr_lock(m, &sp->mu);
    int rc = 0;
    if (file_no >= sp->nfiles)
        return ENGINE_EINVAL;
    segext_t *x = NULL;
    for (uint32_t i = s->n; i-- > 0 && !x;)
        if (s->exts[i].file == file_no && s->exts[i].used < sp->ep)
            x = &s->exts[i];
    if (!x) {
        /* Only an extent nobody was promised (invariant 8 holds for every other segment). */
        if (space_free_ext(sp) <= sp->ext_reserved)
            return ENGINE_EFULL;
        if ((rc = seg_take_extent_in(fs, m, s, sp->files[file_no])))
            goto out;
        x = &s->exts[s->n - 1];
    }
    rc = seg_take_page(fs, m, s, x, out);
out:
    seg_recalc(s);
    return rc;
}

int seg_free_page(fsys_t *fs, mtr_t *m, uint64_t seg_id, page_id_t id)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return STRATA_ENOTFOUND;
    space_t *sp = s->sp;
    mtr_lock(m, &sp->mu);
    uint32_t file = page_id_file(id), ext = page_id_pgno(id) / sp->ep, bit = page_id_pgno(id) % sp->ep;
    uint32_t i = 0;
    while (i < s->n && !(s->exts[i].file == file && s->exts[i].ext == ext))
        i++;
    if (i == s->n)
        return CORRUPT("engine: freeing page %u:%u:%u not in segment %llu", sp->id, file, page_id_pgno(id),
                       (unsigned long long)seg_id);
    bframe_t *fr;
    int rc = mtr_fix(m, page_id_make(sp->id, file, xdes_pgno(fs, sp, ext)), LATCH_X, &fr);
    if (rc)
        return rc;
    mtr_modify(m, fr);
    uint8_t *d = xdes_at(fs, fr->data, ext);
    if (!(d[16 + bit / 8] & (1u << (bit % 8))))
        return CORRUPT("engine: double free of page %u:%u:%u", sp->id, file, page_id_pgno(id));
    d[16 + bit / 8] &= (uint8_t) ~(1u << (bit % 8));
    wr16(d + 8, rd16(d + 8) - 1);
    s->exts[i].used--;
    s->free_pages++;
    if (s->exts[i].used == 0) {
        /* The extent's last page: it goes back to the tablespace. */
        memset(d, 0, XDES_SIZE);
        dfile_t *f = sp->files[file];
        f->ext_state[ext] = EXT_FREE;
        f->free_ext++;
        s->free_pages -= sp->ep;
        s->exts[i] = s->exts[--s->n];
    }
    seg_recalc(s);
    return 0;
}

int seg_drop(fsys_t *fs, mtr_t *m, uint64_t seg_id)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return STRATA_ENOTFOUND;
    space_t *sp = s->sp;
    mtr_lock(m, &sp->mu);
    for (uint32_t i = 0; i < s->n; i++) {
        bframe_t *fr;
        int rc = mtr_fix(m, page_id_make(sp->id, s->exts[i].file, xdes_pgno(fs, sp, s->exts[i].ext)), LATCH_X, &fr);
        if (rc)
            return rc;
        mtr_modify(m, fr);
        memset(xdes_at(fs, fr->data, s->exts[i].ext), 0, XDES_SIZE);
        dfile_t *f = sp->files[s->exts[i].file];
        f->ext_state[s->exts[i].ext] = EXT_FREE;
        f->free_ext++;
    }
    sp->ext_reserved -= s->ext_need;
    seg_forget(fs, s);
    return 0;
}

int64_t seg_used_pages(fsys_t *fs, uint64_t seg_id, uint32_t *extents)
{
    seg_t *s = seg_find(fs, seg_id);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->sp->mu);
    int64_t used = 0;
    for (uint32_t i = 0; i < s->n; i++)
        used += s->exts[i].used;
    if (extents)
        *extents = s->n;
    pthread_mutex_unlock(&s->sp->mu);
    return used;
}

int64_t seg_space(fsys_t *fs, uint64_t seg_id)
{
    seg_t *s = seg_find(fs, seg_id);
    return s ? (int64_t)s->sp->id : -1;
}

int fsys_xdes_read(fsys_t *fs, uint32_t space_id, uint32_t file_no, uint32_t ext, uint64_t *owner, uint16_t *used,
                   uint8_t bitmap[32])
{
    space_t *sp = space_get(fs, space_id);
    if (!sp)
        return STRATA_ENOTFOUND;
    bframe_t *fr;
    int rc = bpool_fix(fs->bp, page_id_make(space_id, file_no, xdes_pgno(fs, sp, ext)), LATCH_S, &fr);
    if (rc)
        return rc;
    if (page_type(fr->data) != PAGE_TYPE_XDES) {
        bpool_unfix(fs->bp, fr, LATCH_S);
        return CORRUPT("engine: no descriptor page for extent %u of file %u:%u", ext, space_id, file_no);
    }
    uint8_t *d = xdes_at(fs, fr->data, ext);
    *owner = rd64(d);
    *used = rd16(d + 8);
    memcpy(bitmap, d + 16, 32);
    bpool_unfix(fs->bp, fr, LATCH_S);
    return 0;
}

uint32_t fsys_extent_pages(fsys_t *fs, uint32_t space_id)
{
    space_t *sp = space_get(fs, space_id);
    return sp ? sp->ep : 0;
}

uint32_t fsys_file_extents(fsys_t *fs, uint32_t space_id, uint32_t file_no)
{
    dfile_t *f = file_get(fs, space_id, file_no);
    return f ? f->n_ext : 0;
}

int fsys_space_ids(fsys_t *fs, uint32_t *ids, uint32_t max, uint32_t *n)
{
    *n = 0;
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t i = 0; i < fs->nspaces && *n < max; i++)
        if (fs->spaces[i])
            ids[(*n)++] = i;
    pthread_rwlock_unlock(&fs->tbl);
    return 0;
}

uint32_t fsys_space_nfiles(fsys_t *fs, uint32_t space_id)
{
    space_t *sp = space_get(fs, space_id);
    return sp ? sp->nfiles : 0;
}

/* ---------------------------------------------------------------- rebalance (which extent to move) */

/* Per-file load of a space: used = owned extents, usable = extents that are not metadata.  A file's fair share
 * is U * usable_i / C (U, C: sums over the files).  over_i = used_i * C - U * usable_i is its excess, scaled by
 * C.  Moving one extent from a to b changes over_a by -C and over_b by +C; it lowers the sum of squared excesses
 * exactly when over_a - over_b > C, which is the rule below, so the rebalance always ends.  Space mutex held. */
static void space_load(const fsys_t *fs, const space_t *sp, int64_t *over, int64_t *C_out, uint64_t *pending)
{
    int64_t U = 0, C = 0;
    for (uint32_t i = 0; i < sp->nfiles; i++) {
        const dfile_t *f = sp->files[i];
        int64_t usable = (int64_t)f->n_ext - (int64_t)((f->n_ext + fs->dpp - 1) / fs->dpp);
        U += usable - f->free_ext;
        C += usable;
    }
    *C_out = C;
    *pending = 0;
    for (uint32_t i = 0; i < sp->nfiles; i++) {
        const dfile_t *f = sp->files[i];
        int64_t usable = (int64_t)f->n_ext - (int64_t)((f->n_ext + fs->dpp - 1) / fs->dpp);
        over[i] = (usable - (int64_t)f->free_ext) * C - U * usable;
        if (over[i] > 0 && C > 0)
            *pending += (uint64_t)(over[i] / C);
    }
}

static bool move_skipped(const fsys_move_t *skip, size_t nskip, uint32_t space, uint32_t file, uint32_t ext)
{
    for (size_t i = 0; i < nskip; i++)
        if (skip[i].space_id == space && skip[i].src_file == file && skip[i].ext == ext)
            return true;
    return false;
}

int fsys_rebalance_pick(fsys_t *fs, uint64_t min_seg, const fsys_move_t *skip, size_t nskip, fsys_move_t *out,
                        uint64_t *pending)
{
    int rc = STRATA_ENOTFOUND;
    uint64_t total = 0;
    pthread_rwlock_rdlock(&fs->tbl);
    for (uint32_t si = 0; si < fs->nspaces; si++) {
        space_t *sp = fs->spaces[si];
        if (!sp || sp->nfiles < 2)
            continue;
        pthread_mutex_lock(&sp->mu);
        int64_t *over = mem_calloc(sp->nfiles, sizeof *over), C;
        uint64_t pend;
        space_load(fs, sp, over, &C, &pend);
        total += pend;
        /* Destination: the most under-loaded file with a free extent. */
        int64_t dst = -1;
        for (uint32_t i = 0; i < sp->nfiles; i++)
            if (sp->files[i]->free_ext && (dst < 0 || over[i] < over[dst]))
                dst = i;
        /* Sources, most loaded first: the emptiest movable extent of a user segment. */
        for (uint32_t tries = 0; rc && dst >= 0 && tries < sp->nfiles; tries++) {
            int64_t src = -1;
            for (uint32_t i = 0; i < sp->nfiles; i++)
                if ((src < 0 || over[i] > over[src]) && over[i] != INT64_MIN)
                    src = i;
            if (src < 0 || src == dst || over[src] - over[dst] <= C)
                break;
            fsys_move_t best = {0};
            bool found = false;
            pthread_mutex_lock(&fs->segmu);
            for (uint32_t b = 0; b < SEG_BUCKETS; b++)
                for (seg_t *s = fs->segh[b]; s; s = s->hnext) {
                    if (s->sp != sp || s->id < min_seg)
                        continue;
                    for (uint32_t k = 0; k < s->n; k++) {
                        const segext_t *x = &s->exts[k];
                        if (x->file != (uint32_t)src || move_skipped(skip, nskip, sp->id, x->file, x->ext))
                            continue;
                        if (!found || x->used < best.used) {
                            best = (fsys_move_t){.space_id = sp->id, .src_file = x->file, .dst_file = (uint32_t)dst,
                                                 .ext = x->ext, .seg_id = s->id, .used = x->used};
                            found = true;
                        }
                    }
                }
            pthread_mutex_unlock(&fs->segmu);
            if (found) {
                *out = best;
                rc = 0;
            }
            over[src] = INT64_MIN; /* nothing movable there: try the next most loaded */
        }
        mem_free(over);
        pthread_mutex_unlock(&sp->mu);
    }
    pthread_rwlock_unlock(&fs->tbl);
    if (pending)
        *pending = total;
    return rc;
}
