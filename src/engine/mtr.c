/*
 * engine/mtr: mini-transactions (see mtr.h for the record format).  Diffs are found by comparing the page with its
 * before-image 8 bytes at a time and merging ranges closer than 16 bytes, so a typical row insert logs a few
 * hundred bytes; the first change after a checkpoint logs the whole page instead.
 */
#include "engine/mtr.h"

void mtr_start(mtr_t *m, bpool_t *bp, redo_t *redo)
{
    memset(m, 0, sizeof *m);
    m->state = MTR_ACTIVE;
    m->bp = bp;
    m->redo = redo;
    buf_init(&m->extra);
    buf_init(&m->body);
}

static mtr_slot_t *find(const mtr_t *m, page_id_t id)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->slots[i].f && m->slots[i].f->id == id)
            return &m->slots[i];
    return NULL;
}

bool mtr_holds(const mtr_t *m, page_id_t id) { return find(m, id) != NULL; }

static void push(mtr_t *m, bframe_t *f, latch_mode_t mode)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->slots = mem_realloc(m->slots, m->cap * sizeof(mtr_slot_t));
    }
    m->slots[m->n++] = (mtr_slot_t){.f = f, .mode = mode};
}

int mtr_fix(mtr_t *m, page_id_t id, latch_mode_t mode, bframe_t **out)
{
    mtr_slot_t *s = find(m, id);
    if (s) {
        ASSERT(!(mode == LATCH_X && s->mode != LATCH_X));
        *out = s->f;
        return 0;
    }
    int rc = bpool_fix(m->bp, id, mode, out);
    if (rc == 0)
        push(m, *out, mode);
    return rc;
}

int mtr_fix_new(mtr_t *m, page_id_t id, bframe_t **out)
{
    mtr_slot_t *s = find(m, id);
    if (s) {
        ASSERT(s->mode == LATCH_X);
        mtr_modify(m, s->f);
        memset(s->f->data, 0, bpool_page_size(m->bp));
        *out = s->f;
        return 0;
    }
    int rc = bpool_fix_new(m->bp, id, out);
    if (rc == 0) {
        push(m, *out, LATCH_X);
        mtr_modify(m, *out);
    }
    return rc;
}

void mtr_modify(mtr_t *m, bframe_t *f)
{
    mtr_slot_t *s = find(m, f->id);
    ASSERT(s && s->mode == LATCH_X);
    if (s->before)
        return;
    uint32_t ps = bpool_page_size(m->bp);
    s->before = mem_alloc(ps);
    memcpy(s->before, f->data, ps);
}

void mtr_release(mtr_t *m, bframe_t *f)
{
    for (uint32_t i = m->n; i-- > 0;) {
        mtr_slot_t *s = &m->slots[i];
        if (s->f == f) {
            ASSERT(!s->before);
            bpool_unfix(m->bp, f, s->mode);
            s->f = NULL;
            return;
        }
    }
    ASSERT(!"mtr_release of a page the mtr does not hold");
}

bool mtr_holds_lock(const mtr_t *m, const pthread_mutex_t *mu)
{
    for (uint32_t i = 0; m && i < m->nlocks; i++)
        if (m->locks[i] == mu)
            return true;
    return false;
}

void mtr_lock(mtr_t *m, pthread_mutex_t *mu)
{
    for (uint32_t i = 0; i < m->nlocks; i++)
        if (m->locks[i] == mu)
            return;
    ASSERT(m->nlocks < ARRAY_LEN(m->locks));
    pthread_mutex_lock(mu);
    m->locks[m->nlocks++] = mu;
}

void mtr_log_commit(mtr_t *m, uint64_t trx_id)
{
    buf_put_u8(&m->extra, REDO_REC_COMMIT);
    buf_put_u64(&m->extra, trx_id);
}

void mtr_log_note(mtr_t *m, const void *p, uint16_t len)
{
    buf_put_u8(&m->extra, REDO_REC_NOTE);
    buf_put_u16(&m->extra, len);
    buf_append(&m->extra, p, len);
}

void mtr_log_undo(mtr_t *m, const void *p, uint32_t len)
{
    buf_put_u8(&m->extra, REDO_REC_UNDO);
    buf_put_u32(&m->extra, len);
    buf_append(&m->extra, p, len);
}

void mtr_log_rollback(mtr_t *m, uint64_t trx_id)
{
    buf_put_u8(&m->extra, REDO_REC_ROLLBACK);
    buf_put_u64(&m->extra, trx_id);
}

void mtr_log_prepare(mtr_t *m, uint64_t trx_id, const void *xid, uint16_t len)
{
    buf_put_u8(&m->extra, REDO_REC_PREPARE);
    buf_put_u64(&m->extra, trx_id);
    buf_put_u16(&m->extra, len);
    buf_append(&m->extra, xid, len);
}

/* Appends a PAGE_DIFF of f against before, or nothing when the page is unchanged. */
static void log_diff(buf_t *b, page_id_t id, const uint8_t *before, const uint8_t *after, uint32_t ps)
{
    size_t hdr = b->len;
    buf_put_u8(b, REDO_REC_PAGE_DIFF);
    buf_put_u64(b, id);
    buf_put_u16(b, 0);
    uint16_t n = 0;
    uint32_t off = 0;
    while (off < ps) {
        /* Between changed ranges: whole equal blocks skipped with memcmp (vectorised), then word by word. */
        while (off + 2048 <= ps && memcmp(before + off, after + off, 2048) == 0)
            off += 2048;
        while (off + 256 <= ps && memcmp(before + off, after + off, 256) == 0)
            off += 256;
        if (off >= ps)
            break;
        if (rd64(before + off) == rd64(after + off)) {
            off += 8;
            continue;
        }
        uint32_t start = off, end = off + 8, gap = 0;
        for (off += 8; off < ps; off += 8) {
            if (rd64(before + off) != rd64(after + off)) {
                end = off + 8;
                gap = 0;
            } else if ((gap += 8) >= 16) {
                break;
            }
        }
        buf_put_u16(b, (uint16_t)start);
        buf_put_u16(b, (uint16_t)(end - start));
        buf_append(b, after + start, end - start);
        n++;
        off = end;
    }
    if (n == 0)
        b->len = hdr;
    else
        wr16(b->data + hdr + 9, n);
}

uint64_t mtr_commit(mtr_t *m)
{
    ASSERT(m->state == MTR_ACTIVE);
    uint32_t ps = bpool_page_size(m->bp);
    bool any = m->extra.len > 0;
    for (uint32_t i = 0; i < m->n; i++)
        if (m->slots[i].f && m->slots[i].before) {
            any = true;
            /* Dirty before the LSN is taken: a checkpoint that starts after our append must see us dirty. */
            bpool_set_dirty(m->bp, m->slots[i].f);
        }
    uint64_t end = 0;
    if (m->redo && any) {
        for (;;) {
            uint64_t horizon = redo_fpi_horizon(m->redo);
            buf_reset(&m->body);
            for (uint32_t i = 0; i < m->n; i++) {
                mtr_slot_t *s = &m->slots[i];
                if (!s->f || !s->before)
                    continue;
                if (page_lsn(s->f->data) <= horizon) {
                    buf_put_u8(&m->body, REDO_REC_PAGE_IMAGE);
                    buf_put_u64(&m->body, s->f->id);
                    buf_append(&m->body, s->f->data, ps);
                } else {
                    log_diff(&m->body, s->f->id, s->before, s->f->data, ps);
                }
            }
            buf_append(&m->body, m->extra.data, m->extra.len);
            if (m->body.len == 0)
                break;
            end = redo_append(m->redo, m->body.data, m->body.len, horizon);
            if (end)
                break;
        }
    }
    for (uint32_t i = m->n; i-- > 0;) {
        mtr_slot_t *s = &m->slots[i];
        if (!s->f)
            continue;
        if (s->before && end)
            page_set_lsn(s->f->data, end);
        bpool_unfix(m->bp, s->f, s->mode);
        mem_free(s->before);
    }
    for (uint32_t i = m->nlocks; i-- > 0;)
        pthread_mutex_unlock(m->locks[i]);
    m->nlocks = 0;
    mem_free(m->slots);
    buf_free(&m->extra);
    buf_free(&m->body);
    m->slots = NULL;
    m->n = m->cap = 0;
    m->state = MTR_COMMITTED;
    m->end_lsn = end;
    return end;
}

int mtr_apply_group(bpool_t *bp, bool pages, uint64_t end_lsn, const uint8_t *p, size_t len,
                    void (*on_logical)(void *ctx, const uint8_t *rec, size_t len), void *ctx)
{
    uint32_t ps = bpool_page_size(bp);
    const uint8_t *e = p + len;
    while (p < e) {
        const uint8_t *rec = p;
        uint8_t type = *p++;
        if (type == REDO_REC_PAGE_IMAGE || type == REDO_REC_PAGE_DIFF) {
            if (e - p < 8)
                return CORRUPT("redo: truncated page record");
            page_id_t id = rd64(p);
            p += 8;
            if (!pages) {
                if (type == REDO_REC_PAGE_IMAGE) {
                    if ((size_t)(e - p) < ps)
                        return CORRUPT("redo: truncated page image");
                    p += ps;
                } else {
                    if (e - p < 2)
                        return CORRUPT("redo: truncated diff");
                    uint16_t n = rd16(p);
                    p += 2;
                    for (uint16_t i = 0; i < n; i++) {
                        if (e - p < 4 || e - p - 4 < rd16(p + 2))
                            return CORRUPT("redo: bad diff range");
                        p += 4 + rd16(p + 2);
                    }
                }
                continue;
            }
            bframe_t *f;
            int rc = bpool_fix(bp, id, LATCH_X, &f);
            if (rc == STRATA_ENOTFOUND) {
                /* A page of a tablespace dropped since: skip the record. */
                if (type == REDO_REC_PAGE_IMAGE)
                    p += ps;
                else {
                    uint16_t n = e - p >= 2 ? rd16(p) : 0;
                    p += 2;
                    for (uint16_t i = 0; i < n && e - p >= 4; i++)
                        p += 4 + rd16(p + 2);
                }
                if (p > e)
                    return CORRUPT("redo: truncated record");
                continue;
            }
            if (rc)
                return rc;
            bool apply = page_lsn(f->data) < end_lsn;
            if (type == REDO_REC_PAGE_IMAGE) {
                if (e - p < ps) {
                    bpool_unfix(bp, f, LATCH_X);
                    return CORRUPT("redo: truncated page image");
                }
                if (apply && f->was_bad)
                    log_note("engine: page %u:%u:%u failed its checksum (a torn or damaged write) and was "
                             "restored from its full-page image in the redo log",
                             page_id_space(id), page_id_file(id), page_id_pgno(id));
                if (apply)
                    memcpy(f->data, p, ps);
                p += ps;
            } else {
                if (apply && f->was_bad) {
                    bpool_unfix(bp, f, LATCH_X);
                    return CORRUPT("redo: page %u:%u:%u is torn and the log holds no image of it",
                                   page_id_space(id), page_id_file(id), page_id_pgno(id));
                }
                if (e - p < 2) {
                    bpool_unfix(bp, f, LATCH_X);
                    return CORRUPT("redo: truncated diff");
                }
                uint16_t n = rd16(p);
                p += 2;
                for (uint16_t i = 0; i < n; i++) {
                    if (e - p < 4 || e - p - 4 < rd16(p + 2) || (uint32_t)rd16(p) + rd16(p + 2) > ps) {
                        bpool_unfix(bp, f, LATCH_X);
                        return CORRUPT("redo: bad diff range");
                    }
                    uint16_t off = rd16(p), l = rd16(p + 2);
                    if (apply)
                        memcpy(f->data + off, p + 4, l);
                    p += 4 + l;
                }
            }
            if (apply) {
                page_set_lsn(f->data, end_lsn);
                bpool_set_dirty(bp, f);
            }
            bpool_unfix(bp, f, LATCH_X);
        } else if (type == REDO_REC_COMMIT || type == REDO_REC_ROLLBACK) {
            if (e - p < 8)
                return CORRUPT("redo: truncated commit record");
            p += 8;
            if (on_logical)
                on_logical(ctx, rec, (size_t)(p - rec));
        } else if (type == REDO_REC_NOTE) {
            if (e - p < 2 || e - p - 2 < rd16(p))
                return CORRUPT("redo: truncated note");
            p += 2 + rd16(p);
            if (on_logical)
                on_logical(ctx, rec, (size_t)(p - rec));
        } else if (type == REDO_REC_PREPARE) {
            if (e - p < 10 || e - p - 10 < rd16(p + 8))
                return CORRUPT("redo: truncated prepare record");
            p += 10 + rd16(p + 8);
            if (on_logical)
                on_logical(ctx, rec, (size_t)(p - rec));
        } else if (type == REDO_REC_UNDO) {
            if (e - p < 4 || (size_t)(e - p - 4) < rd32(p))
                return CORRUPT("redo: truncated undo record");
            p += 4 + rd32(p);
            if (on_logical)
                on_logical(ctx, rec, (size_t)(p - rec));
        } else {
            return CORRUPT("redo: unknown record type %u", type);
        }
    }
    return 0;
}
