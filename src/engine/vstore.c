/*
 * engine/vstore: version chains for MVCC (see vstore.h).  One mutex guards the hash of keys, the chains and the
 * history queue; it is a leaf lock (taken under page latches by the undo hook, never held while waiting).
 */
#include "engine/vstore.h"

#include "engine/page.h"
#include "util/util.h"

#define VS_BUCKETS 8192

typedef struct vs_key {
    uint64_t tree;
    uint32_t hash;
    size_t klen;
    uint8_t *key;
    vs_node_t *newest;
    struct vs_key *next;
} vs_key_t;

struct vs_node {
    uint64_t replacer;     /* the trx that made the change */
    uint64_t commit_no;    /* 0 until it commits */
    bt_before_t before;    /* the version it replaced */
    uint64_t before_trx;
    uint8_t *val;
    size_t vlen;
    bool deleted;          /* the change was a delete mark */
    vs_key_t *k;
    vs_node_t *older;      /* chain */
    vs_node_t *newer;      /* the other way: purge unlinks the oldest node of a long chain in O(1) */
    vs_node_t *trx_next;   /* the trx's list, then the history queue */
};

struct vstore {
    pthread_mutex_t mu;
    vs_key_t *b[VS_BUCKETS];
    vs_node_t *hist_head, *hist_tail; /* committed nodes in commit order */
    size_t nodes;
};

bool read_view_sees(const read_view_t *v, uint64_t trx)
{
    if (trx == v->creator || trx == 0)
        return true;
    if (trx >= v->low_limit)
        return false;
    size_t lo = 0, hi = v->nactive;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v->active[mid] < trx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return !(lo < v->nactive && v->active[lo] == trx);
}

vstore_t *vstore_create(void)
{
    vstore_t *vs = mem_calloc(1, sizeof *vs);
    pthread_mutex_init(&vs->mu, NULL);
    return vs;
}

static void node_free(vs_node_t *n)
{
    mem_free(n->val);
    mem_free(n);
}

void vstore_destroy(vstore_t *vs)
{
    if (!vs)
        return;
    for (int i = 0; i < VS_BUCKETS; i++)
        while (vs->b[i]) {
            vs_key_t *k = vs->b[i];
            vs->b[i] = k->next;
            while (k->newest) {
                vs_node_t *n = k->newest;
                k->newest = n->older;
                node_free(n);
            }
            mem_free(k->key);
            mem_free(k);
        }
    pthread_mutex_destroy(&vs->mu);
    mem_free(vs);
}

static uint32_t khash(uint64_t tree, const void *key, size_t klen)
{
    return crc32c((uint32_t)(tree * 0x9e3779b1u), key, klen);
}

static vs_key_t *kfind(vstore_t *vs, uint64_t tree, const void *key, size_t klen, uint32_t h)
{
    for (vs_key_t *k = vs->b[h % VS_BUCKETS]; k; k = k->next)
        if (k->hash == h && k->tree == tree && k->klen == klen && (!klen || !memcmp(k->key, key, klen)))
            return k;
    return NULL;
}

/* Drops a key entry whose chain became empty. */
static void kdrop_if_empty(vstore_t *vs, vs_key_t *k)
{
    if (k->newest)
        return;
    vs_key_t **pp = &vs->b[k->hash % VS_BUCKETS];
    while (*pp != k)
        pp = &(*pp)->next;
    *pp = k->next;
    mem_free(k->key);
    mem_free(k);
}

/* Unlinks n from its key's chain (and frees the key entry if that empties it).  O(1): a row updated by every
 * transaction (a replica's position record) has a chain as long as purge is behind, and purge unlinks from its
 * old end. */
static void chain_unlink(vstore_t *vs, vs_node_t *n)
{
    vs_key_t *k = n->k;
    if (n->newer)
        n->newer->older = n->older;
    else if (k->newest == n)
        k->newest = n->older;
    if (n->older)
        n->older->newer = n->newer;
    n->older = n->newer = NULL;
    kdrop_if_empty(vs, k);
    vs->nodes--;
}

void vstore_push(vstore_t *vs, vs_trx_list_t *l, uint64_t trx, uint64_t tree, const void *key, size_t klen,
                 bt_before_t before, const void *old, size_t olen, uint64_t old_trx, bool deleted)
{
    vs_node_t *n = mem_calloc(1, sizeof *n);
    n->replacer = trx;
    n->before = before;
    n->before_trx = old_trx;
    n->deleted = deleted;
    if (before != BT_BEFORE_ABSENT && olen) {
        n->val = mem_alloc(olen);
        memcpy(n->val, old, olen);
        n->vlen = olen;
    }
    uint32_t h = khash(tree, key, klen);
    pthread_mutex_lock(&vs->mu);
    vs_key_t *k = kfind(vs, tree, key, klen, h);
    if (!k) {
        k = mem_calloc(1, sizeof *k);
        k->tree = tree;
        k->hash = h;
        k->klen = klen;
        k->key = mem_alloc(klen ? klen : 1);
        if (klen)
            memcpy(k->key, key, klen);
        k->next = vs->b[h % VS_BUCKETS];
        vs->b[h % VS_BUCKETS] = k;
    }
    n->k = k;
    n->older = k->newest;
    if (k->newest)
        k->newest->newer = n;
    k->newest = n;
    n->trx_next = l->head;
    l->head = n;
    l->n++;
    vs->nodes++;
    pthread_mutex_unlock(&vs->mu);
}

void vstore_commit(vstore_t *vs, vs_trx_list_t *l, uint64_t commit_no)
{
    if (!l->head)
        return;
    pthread_mutex_lock(&vs->mu);
    /* The trx's list is newest first; the history queue wants them in order, any order within one commit. */
    vs_node_t *n = l->head, *last = NULL;
    for (; n; n = n->trx_next) {
        n->commit_no = commit_no;
        last = n;
    }
    if (vs->hist_tail)
        vs->hist_tail->trx_next = l->head;
    else
        vs->hist_head = l->head;
    vs->hist_tail = last;
    pthread_mutex_unlock(&vs->mu);
    l->head = NULL;
    l->n = 0;
}

void vstore_rollback(vstore_t *vs, vs_trx_list_t *l)
{
    pthread_mutex_lock(&vs->mu);
    while (l->head) {
        vs_node_t *n = l->head;
        l->head = n->trx_next;
        chain_unlink(vs, n);
        node_free(n);
    }
    pthread_mutex_unlock(&vs->mu);
    l->n = 0;
}

bool vstore_resolve(vstore_t *vs, const read_view_t *v, uint64_t tree, const void *key, size_t klen,
                    bt_before_t state, const buf_t *cur, uint64_t writer, buf_t *out)
{
    buf_reset(out);
    if (state == BT_BEFORE_ABSENT || read_view_sees(v, writer)) {
        if (state != BT_BEFORE_PRESENT)
            return false;
        buf_append(out, cur->data, cur->len);
        return true;
    }
    /* Walk the chain, newest first: each node whose replacer is the writer of the state we hold takes us one
     * version back. */
    bool found = false;
    uint32_t h = khash(tree, key, klen);
    pthread_mutex_lock(&vs->mu);
    vs_key_t *k = kfind(vs, tree, key, klen, h);
    bt_before_t st = state;
    uint64_t w = writer;
    const uint8_t *val = NULL;
    size_t vlen = 0;
    for (vs_node_t *n = k ? k->newest : NULL; n; n = n->older) {
        if (n->replacer != w)
            continue;
        st = n->before;
        w = n->before_trx;
        val = n->val;
        vlen = n->vlen;
        if (st == BT_BEFORE_ABSENT || read_view_sees(v, w)) {
            found = true;
            break;
        }
    }
    if (found && st == BT_BEFORE_PRESENT) {
        buf_append(out, val, vlen);
        pthread_mutex_unlock(&vs->mu);
        return true;
    }
    pthread_mutex_unlock(&vs->mu);
    return false; /* absent, deleted, or (never expected) purged beyond what the view needs */
}

size_t vstore_purge(vstore_t *vs, uint64_t min_view_no, vs_purge_item_t **out)
{
    size_t n = 0, cap = 0;
    vs_purge_item_t *items = NULL;
    pthread_mutex_lock(&vs->mu);
    while (vs->hist_head && vs->hist_head->commit_no <= min_view_no) {
        vs_node_t *x = vs->hist_head;
        vs->hist_head = x->trx_next;
        if (!vs->hist_head)
            vs->hist_tail = NULL;
        if (x->deleted) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                items = mem_realloc(items, cap * sizeof *items);
            }
            vs_purge_item_t *it = &items[n++];
            it->tree = x->k->tree;
            it->trx = x->replacer;
            it->klen = x->k->klen;
            it->key = mem_alloc(it->klen ? it->klen : 1);
            memcpy(it->key, x->k->key, it->klen);
        }
        chain_unlink(vs, x);
        node_free(x);
    }
    pthread_mutex_unlock(&vs->mu);
    *out = items;
    return n;
}

void vstore_purge_free(vs_purge_item_t *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mem_free(items[i].key);
    mem_free(items);
}

size_t vstore_size(vstore_t *vs)
{
    pthread_mutex_lock(&vs->mu);
    size_t n = vs->nodes;
    pthread_mutex_unlock(&vs->mu);
    return n;
}
