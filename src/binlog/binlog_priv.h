/* The binlog object and its index (binlog.c, index.c, reader.c only).  Locks: see README.md. */
#ifndef STRATA_BINLOG_PRIV_H
#define STRATA_BINLOG_PRIV_H

#include <limits.h>
#include <pthread.h>

#include "binlog/binlog_int.h"

/* Size limits: binlog_open refuses a longer directory or basename. */
enum { BL_DIR_MAX = 1024, BL_BASE_MAX = 64, BL_NAME_MAX = 96, BL_PATH_MAX = 1300 };

enum { BL_REC_FILE = 1, BL_REC_PURGE = 2, BL_REC_RESET = 3, BL_REC_CKPT = 4 };

/* Per-file flags (persisted in FILE records). */
enum { BL_F_CLOSED = 1, BL_F_COMPRESSED = 2, BL_F_UNREADABLE = 4, BL_F_REPORTED = 8,
       BL_F_NOCOMPRESS = 0x100 /* in memory only: compression failed, not retried until restart */ };

/* One binlog file as the index knows it.  State: ACTIVE (!CLOSED) -> CLOSED -> [COMPRESSED] -> purged;
 * UNREADABLE is set when a closed file turns out not to be a binlog (reported once, kept until purged). */
typedef struct bl_file {
    uint32_t seq;
    uint32_t flags;
    uint64_t size;      /* plain size */
    uint64_t disk_size; /* bytes on disk */
    uint64_t first_time, last_time;
    binlog_gtid_t first_gtid, last_gtid;
    binlog_gtid_set_t start; /* GTID state at file start (its GTID_LIST) */
    char *alt_name;          /* on-disk name when it is not <name> or <name>.zst (operator's .gz) */
    char *reason;            /* why it is unreadable */
} bl_file_t;

/* A commit waiting in the group-commit queue (on the committer's stack). */
enum bl_waiter_state { BL_W_QUEUED = 0, BL_W_LEADER = 1, BL_W_DONE = 2 };
typedef struct bl_waiter {
    pthread_cond_t cv;
    binlog_trx_t *trx;
    binlog_commit_result_t *res;
    int rc;
    enum bl_waiter_state state;
    struct bl_waiter *next;
    binlog_commit_cb cb; /* asynchronous commit (heap-allocated waiter, no thread waits on cv) */
    void *cb_arg;
    binlog_commit_result_t own_res;
} bl_waiter_t;

/* A durable-position waiter (binlog_wait_durable / binlog_on_durable), kept in a min-heap by position. */
typedef struct bl_pwait {
    binlog_pos_t pos;
    pthread_cond_t *cv; /* blocking waiter */
    bool *done;
    void (*fn)(void *arg); /* callback waiter */
    void *arg;
} bl_pwait_t;

struct binlog {
    binlog_options_t opt;
    char dir[BL_DIR_MAX];
    char base[BL_BASE_MAX];
    char state_path[BL_PATH_MAX];
    char index_path[BL_PATH_MAX];

    /* mu protects everything below except where noted */
    pthread_mutex_t mu;
    bl_file_t *files; /* files[head .. head+nfiles) in seq order, consecutive seqs */
    uint32_t head, nfiles, cap;
    uint32_t next_seq;
    binlog_gtid_set_t state; /* gtid_binlog_state after the last committed transaction */
    binlog_gtid_set_t durable_state; /* the state at `durable` (state runs ahead while a group is written) */
    bool durable_state_ok;   /* durable_state was set since open */
    binlog_pos_t durable;
    binlog_pos_t ckpt;
    bool has_ckpt;
    binlog_stats_t stats;          /* under mu, except the two atomics below */
    uint64_t n_opened, n_fsyncs, n_index_writes; /* atomics (bumped without mu) */
    bool broken; /* a write failed: no further commits */
    uint64_t order;  /* under mu: commit order of the last transaction written (binlog_commit_result_t.order) */
    void (*reset_hook)(void *arg, uint64_t last_order);
    void *reset_hook_arg;
    void (*ckpt_hook)(void *arg); /* asks the engine for a checkpoint report now (before a purge) */
    void *ckpt_hook_arg;

    /* group commit */
    bl_waiter_t *qhead, *qtail;
    bool writer_busy;        /* someone holds the writer role (leader, rotate, reset, close) */
    int admin_waiting;
    pthread_cond_t writer_cv;
    bl_pwait_t *pw;
    uint32_t npw, cappw;

    /* the active file: used only by the holder of the writer role */
    int fd;
    uint32_t active_seq;
    uint64_t wpos;
    uint32_t groups_unsynced; /* sync_binlog=N */
    uint32_t zfrom;           /* compressor: files below this seq need no look (under mu) */
    buf_t wbuf;
    bool defer_close_record; /* the closed file's FILE record waits for the next file's (one append) */
    binlog_group_hook_fn before_sync, after_sync;
    void *hook_arg;

    /* state log (state_mu) and text index (text_mu): taken while holding mu, which is then released for the I/O */
    pthread_mutex_t state_mu, text_mu;
    int state_fd;
    uint64_t state_size, state_records;

    /* admin_mu serializes purge, reset and the compressor's index updates (taken before mu) */
    pthread_mutex_t admin_mu;
    pthread_t bg;
    bool bg_running, bg_stop, bg_kick;
    pthread_cond_t bg_cv;
};

/* index.c.  The put/append/rewrite functions are called with mu held; they release it during the I/O and hold it
 * again on return (pointers into files[] are stale afterwards). */
int bl_state_load(binlog_t *bl, bool *existed);
int bl_state_create(binlog_t *bl);
int bl_state_rewrite(binlog_t *bl);
int bl_state_put_file(binlog_t *bl, const bl_file_t *f);
int bl_state_put_files(binlog_t *bl, const bl_file_t *a, const bl_file_t *b);
int bl_state_put_u32(binlog_t *bl, int type, uint32_t v);
int bl_state_put_ckpt(binlog_t *bl, binlog_pos_t p);
bl_file_t *bl_file_by_seq(binlog_t *bl, uint32_t seq);
bl_file_t *bl_file_append(binlog_t *bl, uint32_t seq);
void bl_files_drop_front(binlog_t *bl, uint32_t n);
void bl_files_free(binlog_t *bl);
int bl_text_index_append(binlog_t *bl, uint32_t seq);
int bl_text_index_rewrite(binlog_t *bl);

/* binlog.c */
void bl_file_path(binlog_t *bl, const bl_file_t *f, char *path, size_t cap);

#endif
