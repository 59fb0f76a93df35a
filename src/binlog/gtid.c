/* GTID sets (gtid_binlog_state, GTID_LIST bodies): the last GTID per (domain, server), kept sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binlog/binlog_int.h"

int binlog_pos_cmp(binlog_pos_t a, binlog_pos_t b)
{
    if (a.file != b.file)
        return a.file < b.file ? -1 : 1;
    return a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0;
}

void binlog_gtid_set_free(binlog_gtid_set_t *s)
{
    mem_free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

void binlog_gtid_set_copy(binlog_gtid_set_t *dst, const binlog_gtid_set_t *src)
{
    if (dst == src)
        return;
    dst->n = 0;
    for (uint32_t i = 0; i < src->n; i++)
        binlog_gtid_set_update(dst, src->v[i]);
}

void binlog_gtid_set_update(binlog_gtid_set_t *s, binlog_gtid_t g)
{
    uint32_t i = 0;
    while (i < s->n && (s->v[i].domain < g.domain || (s->v[i].domain == g.domain && s->v[i].server < g.server)))
        i++;
    if (i < s->n && s->v[i].domain == g.domain && s->v[i].server == g.server) {
        s->v[i].seq = g.seq;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->v = mem_realloc(s->v, s->cap * sizeof *s->v);
    }
    memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
    s->v[i] = g;
    s->n++;
}

uint64_t binlog_gtid_set_domain_seq(const binlog_gtid_set_t *s, uint32_t domain)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].domain == domain && s->v[i].seq > m)
            m = s->v[i].seq;
    return m;
}

bool binlog_gtid_set_find(const binlog_gtid_set_t *s, uint32_t domain, uint32_t server, uint64_t *seq)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].domain == domain && s->v[i].server == server) {
            *seq = s->v[i].seq;
            return true;
        }
    return false;
}

bool binlog_gtid_set_has_domain(const binlog_gtid_set_t *s, uint32_t domain)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].domain == domain)
            return true;
    return false;
}

void binlog_gtid_set_format(const binlog_gtid_set_t *s, bool one_per_domain, buf_t *out)
{
    bool first = true;
    for (uint32_t i = 0; i < s->n; i++) {
        const binlog_gtid_t *g = &s->v[i];
        if (one_per_domain) { /* the GTID with the highest seq in its domain */
            if (g->seq != binlog_gtid_set_domain_seq(s, g->domain))
                continue;
            bool dup = false;
            for (uint32_t j = 0; j < i; j++)
                if (s->v[j].domain == g->domain && s->v[j].seq == g->seq)
                    dup = true;
            if (dup)
                continue;
        }
        buf_printf(out, "%s%u-%u-%llu", first ? "" : ",", g->domain, g->server, (unsigned long long)g->seq);
        first = false;
    }
}

int binlog_gtid_parse(const char *s, binlog_gtid_t *g)
{
    char *e;
    unsigned long long d = strtoull(s, &e, 10);
    if (e == s || *e != '-')
        return STRATA_EPROTO;
    s = e + 1;
    unsigned long long sv = strtoull(s, &e, 10);
    if (e == s || *e != '-')
        return STRATA_EPROTO;
    s = e + 1;
    unsigned long long n = strtoull(s, &e, 10);
    if (e == s || *e || d > UINT32_MAX || sv > UINT32_MAX)
        return STRATA_EPROTO;
    *g = (binlog_gtid_t){(uint32_t)d, (uint32_t)sv, n};
    return 0;
}
