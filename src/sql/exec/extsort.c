/*
 * External sort (extsort.h): in-memory runs sorted by a stable merge sort, spilled to an unlinked temporary
 * file when the budget is reached, merged with a binary heap of run readers ordered by (key, run number) so
 * that equal keys keep the order in which they were added.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql/exec/extsort.h"
#include "util/fio.h"
#include "util/util.h"

#define REC_HDR 8
#define CHUNK_SIZE 65536
#define WRITE_BUF 65536
#define REC_OVERHEAD (sizeof(uint8_t *) * 2) /* the pointer + the merge sort's scratch pointer */

struct extsort_chunk {
    extsort_chunk_t *next;
    size_t used, cap;
    uint8_t data[];
};

struct extsort_rd {
    int fd;
    uint64_t pos, end;        /* file range still to read */
    uint8_t *buf;
    size_t cap, have, at;     /* buffered bytes [at, have) */
    const uint8_t *rec;       /* current record (in buf), NULL at the end */
};

typedef struct wr {
    int fd;
    uint64_t off;
    uint8_t *buf;
    size_t len;
} wr_t;

static inline uint32_t rd_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline size_t rec_size(const uint8_t *r)
{
    return REC_HDR + (size_t)rd_u32(r) + rd_u32(r + 4);
}

static inline int rec_cmp(const uint8_t *a, const uint8_t *b)
{
    uint32_t la = rd_u32(a), lb = rd_u32(b);
    int c = memcmp(a + REC_HDR, b + REC_HDR, MIN(la, lb));
    return c ? c : (la < lb ? -1 : la > lb);
}

static int fail(extsort_t *s, int err)
{
    if (s->state != EXTSORT_FAILED) {
        s->state = EXTSORT_FAILED;
        s->err = err;
    }
    return s->err;
}

void extsort_init(extsort_t *s, size_t budget, const char *tmpdir)
{
    memset(s, 0, sizeof *s);
    s->budget = MAX(budget, (size_t)EXTSORT_MIN_BUDGET);
    s->tmpdir = mem_strdup(tmpdir && *tmpdir ? tmpdir : "/tmp");
    s->fd = -1;
    s->cur = -1;
}

/* ---------------------------------------------------------------- memory: records and a stable sort */

static void mem_release(extsort_t *s)
{
    for (extsort_chunk_t *c = s->chunks, *n; c; c = n) {
        n = c->next;
        mem_free(c);
    }
    s->chunks = NULL;
    s->nrec = 0;
    s->mem = 0;
}

/* Bottom-up merge sort of record pointers: stable, O(n log n), one scratch array. */
static void recs_sort(const uint8_t **a, uint64_t n)
{
    if (n < 2)
        return;
    const uint8_t **tmp = mem_alloc(sizeof(*tmp) * n);
    /* insertion sort of runs of 16 first */
    const uint64_t RUN = 16;
    for (uint64_t lo = 0; lo < n; lo += RUN) {
        uint64_t hi = MIN(lo + RUN, n);
        for (uint64_t i = lo + 1; i < hi; i++) {
            const uint8_t *x = a[i];
            uint64_t j = i;
            while (j > lo && rec_cmp(a[j - 1], x) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
    }
    const uint8_t **src = a, **dst = tmp;
    for (uint64_t w = RUN; w < n; w *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * w) {
            uint64_t mid = MIN(lo + w, n), hi = MIN(lo + 2 * w, n), i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = rec_cmp(src[j], src[i]) < 0 ? src[j++] : src[i++]; /* ties: the left (earlier) one */
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        const uint8_t **t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, sizeof(*a) * n);
    mem_free(tmp);
}

/* ---------------------------------------------------------------- files */

static int tmpfile_open(extsort_t *s, int *fd)
{
    size_t n = strlen(s->tmpdir) + 32;
    char *path = mem_alloc(n);
    snprintf(path, n, "%s/strata-sort-XXXXXX", s->tmpdir);
    int rc = fault_check(FIO_TEMP, FIO_OPEN);
    int f = rc ? -1 : mkostemp(path, O_CLOEXEC);
    if (f < 0) {
        rc = rc ? rc : -errno;
        log_error("extsort: cannot create a temporary file in %s: %s", s->tmpdir, strerror(-rc));
    } else {
        unlink(path); /* gone with the process, whatever happens */
        s->files_created++;
        *fd = f;
    }
    mem_free(path);
    return rc;
}

static int wr_flush(wr_t *w)
{
    int rc = fio_pwrite(FIO_TEMP, w->fd, w->buf, w->len, (int64_t)w->off);
    if (rc) {
        log_error("extsort: writing a temporary file: %s", strerror(-rc));
        return rc;
    }
    w->off += w->len;
    w->len = 0;
    return 0;
}

static int wr_put(wr_t *w, const uint8_t *p, size_t n)
{
    while (n) {
        size_t k = MIN(n, WRITE_BUF - w->len);
        memcpy(w->buf + w->len, p, k);
        w->len += k;
        p += k;
        n -= k;
        if (w->len == WRITE_BUF) {
            int rc = wr_flush(w);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Sorts the records in memory and appends them as one run to s->fd. */
static int spill(extsort_t *s)
{
    int rc = 0;
    if (s->fd < 0 && (rc = tmpfile_open(s, &s->fd)) != 0)
        return fail(s, rc);
    recs_sort(s->recs, s->nrec);
    wr_t w = {.fd = s->fd, .off = s->file_len, .buf = mem_alloc(WRITE_BUF)};
    for (uint64_t i = 0; i < s->nrec && !rc; i++)
        rc = wr_put(&w, s->recs[i], rec_size(s->recs[i]));
    if (!rc)
        rc = wr_flush(&w);
    mem_free(w.buf);
    if (rc)
        return fail(s, rc);
    if (s->nruns == s->capruns) {
        s->capruns = s->capruns ? s->capruns * 2 : 16;
        s->runs = mem_realloc(s->runs, sizeof(*s->runs) * s->capruns);
    }
    s->runs[s->nruns].off = s->file_len;
    s->runs[s->nruns].len = w.off - s->file_len;
    s->nruns++;
    s->file_len = w.off;
    s->runs_written++;
    mem_release(s);
    return 0;
}

int extsort_add(extsort_t *s, const void *key, size_t klen, const void *payload, size_t plen)
{
    if (s->state == EXTSORT_FAILED)
        return s->err;
    ASSERT(s->state == EXTSORT_ADDING);
    ASSERT(klen <= UINT32_MAX && plen <= UINT32_MAX);
    size_t need = REC_HDR + klen + plen;
    if (s->nrec && s->mem + need + REC_OVERHEAD > s->budget) {
        int rc = spill(s);
        if (rc)
            return rc;
    }
    extsort_chunk_t *c = s->chunks;
    if (!c || c->cap - c->used < need) {
        size_t cap = MAX((size_t)CHUNK_SIZE, need);
        c = mem_alloc(sizeof *c + cap);
        c->cap = cap;
        c->used = 0;
        c->next = s->chunks;
        s->chunks = c;
        s->mem += sizeof *c;
    }
    uint8_t *r = c->data + c->used;
    c->used += need;
    uint32_t k32 = (uint32_t)klen, p32 = (uint32_t)plen;
    memcpy(r, &k32, 4);
    memcpy(r + 4, &p32, 4);
    if (klen)
        memcpy(r + REC_HDR, key, klen);
    if (plen)
        memcpy(r + REC_HDR + klen, payload, plen);
    if (s->nrec == s->caprec) {
        s->caprec = s->caprec ? s->caprec * 2 : 256;
        s->recs = mem_realloc(s->recs, sizeof(*s->recs) * s->caprec);
    }
    s->recs[s->nrec++] = r;
    s->mem += need + REC_OVERHEAD;
    s->rows++;
    return 0;
}

/* ---------------------------------------------------------------- reading runs and merging */

static void rd_open(extsort_rd_t *r, int fd, const extsort_run_t *run, size_t bufsize)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->pos = run->off;
    r->end = run->off + run->len;
    r->cap = MAX(bufsize, (size_t)EXTSORT_MIN_READ);
    r->buf = mem_alloc(r->cap);
}

static void rd_close(extsort_rd_t *r)
{
    mem_free(r->buf);
    r->buf = NULL;
}

/* Makes n bytes available at r->buf + r->at; 0, 1 when the run ends first, < 0 on a read error. */
static int rd_fill(extsort_rd_t *r, size_t n)
{
    if (r->have - r->at >= n)
        return 0;
    if (r->at) {
        memmove(r->buf, r->buf + r->at, r->have - r->at);
        r->have -= r->at;
        r->at = 0;
    }
    if (n > r->cap) {
        r->cap = n;
        r->buf = mem_realloc(r->buf, r->cap);
    }
    while (r->have < n) {
        size_t want = (size_t)MIN((uint64_t)(r->cap - r->have), r->end - r->pos);
        if (want == 0)
            return 1;
        size_t k = 0;
        int rc = fio_pread(FIO_TEMP, r->fd, r->buf + r->have, want, (int64_t)r->pos, &k);
        if (rc) {
            log_error("extsort: reading a temporary file: %s", strerror(-rc));
            return rc;
        }
        if (k == 0) {
            log_error("extsort: a temporary file is shorter than written");
            return STRATA_EIO;
        }
        r->have += (size_t)k;
        r->pos += (uint64_t)k;
    }
    return 0;
}

/* Moves to the next record of the run: 0 (r->rec set), 1 at the end (r->rec NULL), < 0 on error. */
static int rd_next(extsort_rd_t *r)
{
    if (r->rec) {
        r->at += rec_size(r->rec);
        r->rec = NULL;
    }
    int rc = rd_fill(r, REC_HDR);
    if (rc == 1 && r->have - r->at > 0)
        rc = STRATA_EIO; /* a torn header */
    if (rc)
        return rc;
    size_t n = rec_size(r->buf + r->at);
    if ((rc = rd_fill(r, n)) != 0)
        return rc == 1 ? STRATA_EIO : rc;
    r->rec = r->buf + r->at;
    return 0;
}

/* Heap of reader indexes: smallest (record, reader index) on top; the index is the run's age, so ties go
 * to the older run and the merge is stable. */
static bool heap_less(const extsort_rd_t *rd, uint32_t a, uint32_t b)
{
    int c = rec_cmp(rd[a].rec, rd[b].rec);
    return c < 0 || (c == 0 && a < b);
}

static void heap_down(const extsort_rd_t *rd, uint32_t *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && heap_less(rd, h[l], h[m]))
            m = l;
        if (r < n && heap_less(rd, h[r], h[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Opens readers over runs[0..n) of fd and builds the heap.  The caller frees rd / heap. */
static int merge_open(extsort_t *s, int fd, const extsort_run_t *runs, uint32_t n, extsort_rd_t **rd_out,
                      uint32_t **heap_out, uint32_t *nheap)
{
    extsort_rd_t *rd = mem_calloc(n ? n : 1, sizeof *rd);
    uint32_t *heap = mem_alloc(sizeof(*heap) * (n ? n : 1));
    size_t per = s->budget / (n + 1);
    uint32_t h = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n; i++)
        rd_open(&rd[i], fd, &runs[i], per);
    for (uint32_t i = 0; i < n && !rc; i++) {
        rc = rd_next(&rd[i]);
        if (rc == 0)
            heap[h++] = i;
        else if (rc == 1)
            rc = 0;
    }
    for (uint32_t i = h / 2; i-- > 0;)
        heap_down(rd, heap, h, i);
    *rd_out = rd;
    *heap_out = heap;
    *nheap = h;
    return rc;
}

static void merge_close(extsort_rd_t *rd, uint32_t n, uint32_t *heap)
{
    for (uint32_t i = 0; i < n; i++)
        rd_close(&rd[i]);
    mem_free(rd);
    mem_free(heap);
}

/* Advances the top reader of the heap and restores the heap. */
static int heap_advance(extsort_rd_t *rd, uint32_t *heap, uint32_t *nheap)
{
    int rc = rd_next(&rd[heap[0]]);
    if (rc < 0)
        return rc;
    if (rc == 1)
        heap[0] = heap[--*nheap];
    if (*nheap)
        heap_down(rd, heap, *nheap, 0);
    return 0;
}

/* Merges runs[0..n) of s->fd into one run appended to w. */
static int merge_into(extsort_t *s, const extsort_run_t *runs, uint32_t n, wr_t *w)
{
    extsort_rd_t *rd;
    uint32_t *heap, nh;
    s->merge_passes++;
    int rc = merge_open(s, s->fd, runs, n, &rd, &heap, &nh);
    while (!rc && nh) {
        const uint8_t *r = rd[heap[0]].rec;
        if ((rc = wr_put(w, r, rec_size(r))) != 0)
            break;
        rc = heap_advance(rd, heap, &nh);
    }
    merge_close(rd, n, heap);
    return rc;
}

/* One intermediate pass: groups of EXTSORT_FANIN runs become one run each, in a new file. */
static int merge_pass(extsort_t *s)
{
    int nfd = -1;
    int rc = tmpfile_open(s, &nfd);
    if (rc)
        return rc;
    wr_t w = {.fd = nfd, .off = 0, .buf = mem_alloc(WRITE_BUF)};
    uint32_t nn = 0;
    extsort_run_t *nr = mem_alloc(sizeof(*nr) * ((s->nruns + EXTSORT_FANIN - 1) / EXTSORT_FANIN + 1));
    for (uint32_t i = 0; i < s->nruns && !rc; i += EXTSORT_FANIN) {
        uint32_t k = MIN((uint32_t)EXTSORT_FANIN, s->nruns - i);
        uint64_t start = w.off + w.len;
        if (k == 1) {
            /* a lone last run is copied as it is (no merge) */
            extsort_rd_t r;
            rd_open(&r, s->fd, &s->runs[i], s->budget / 2);
            while ((rc = rd_next(&r)) == 0)
                if ((rc = wr_put(&w, r.rec, rec_size(r.rec))) != 0)
                    break;
            if (rc == 1)
                rc = 0;
            rd_close(&r);
        } else {
            rc = merge_into(s, &s->runs[i], k, &w);
        }
        nr[nn].off = start;
        nr[nn].len = w.off + w.len - start;
        nn++;
    }
    if (!rc)
        rc = wr_flush(&w);
    mem_free(w.buf);
    if (rc) {
        close(nfd);
        mem_free(nr);
        return rc;
    }
    close(s->fd);
    s->fd = nfd;
    mem_free(s->runs);
    s->runs = nr;
    s->nruns = s->capruns = nn;
    s->file_len = w.off;
    return 0;
}

int extsort_finish(extsort_t *s)
{
    if (s->state == EXTSORT_FAILED)
        return s->err;
    ASSERT(s->state == EXTSORT_ADDING);
    int rc;
    if (s->fd < 0) {
        recs_sort(s->recs, s->nrec);
        s->mem_pos = 0;
        s->state = EXTSORT_READING;
        return 0;
    }
    if (s->nrec && (rc = spill(s)) != 0)
        return rc;
    mem_free(s->recs);
    s->recs = NULL;
    s->caprec = 0;
    while (s->nruns > EXTSORT_MERGE_MAX)
        if ((rc = merge_pass(s)) != 0)
            return fail(s, rc);
    /* the final merge happens as the caller reads */
    s->merge_passes++;
    s->nrd = s->nruns;
    if ((rc = merge_open(s, s->fd, s->runs, s->nruns, &s->rd, &s->heap, &s->nheap)) != 0)
        return fail(s, rc);
    s->cur = -1;
    s->state = EXTSORT_READING;
    return 0;
}

int extsort_next(extsort_t *s, const uint8_t **key, size_t *klen, const uint8_t **payload, size_t *plen)
{
    if (s->state == EXTSORT_FAILED)
        return s->err;
    if (s->state == EXTSORT_DONE)
        return 0;
    ASSERT(s->state == EXTSORT_READING);
    const uint8_t *r;
    if (s->fd < 0) {
        if (s->mem_pos == s->nrec) {
            s->state = EXTSORT_DONE;
            return 0;
        }
        r = s->recs[s->mem_pos++];
    } else {
        if (s->cur >= 0) {
            int rc = heap_advance(s->rd, s->heap, &s->nheap);
            if (rc)
                return fail(s, rc);
        }
        if (s->nheap == 0) {
            s->state = EXTSORT_DONE;
            s->cur = -1;
            return 0;
        }
        s->cur = (int)s->heap[0];
        r = s->rd[s->cur].rec;
    }
    *klen = rd_u32(r);
    *plen = rd_u32(r + 4);
    *key = r + REC_HDR;
    *payload = r + REC_HDR + *klen;
    return 1;
}

void extsort_free(extsort_t *s)
{
    mem_release(s);
    mem_free(s->recs);
    if (s->rd)
        merge_close(s->rd, s->nrd, s->heap);
    if (s->fd >= 0)
        close(s->fd);
    mem_free(s->runs);
    mem_free(s->tmpdir);
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->cur = -1;
}
