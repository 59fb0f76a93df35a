/*
 * strata as a replica: configuration, the IO thread (the connection to the source, through MariaDB Connector/C),
 * the queue of received event groups and the SQL thread that hands them to the applier.  replica.h has the
 * model and the thread state diagrams; docs/replication.md the operator's view.
 *
 * ---- <datadir>/replica.info (text, one "key=value" per line, written whole: tmp, fsync, rename, dir fsync) ----
 *   line 1      "strata-replica 1"                       magic and format version
 *   host port user password use_gtid (0 no, 1 slave_pos, 2 current_pos) log_file log_pos connect_retry
 *   heartbeat_ms ssl ssl_verify ssl_ca ssl_capath ssl_cert ssl_key ssl_cipher ssl_crl ssl_crlpath
 *   delay ignore_server_ids do_domain_ids ignore_domain_ids (lists: decimal ids separated by ',')
 *   Values escape '\' as "\\" and a newline as "\n".  Unknown keys are ignored (a newer file read by an older
 *   binary); a missing file means "not configured".
 *
 * ---- The stream (COM_BINLOG_DUMP answer) -------------------------------------------------------------------
 *   packet: 0x00, then one v4 event (header, body, CRC32: we ask for CRC32 with @master_binlog_checksum)
 *           0xfe (short): the source ended the stream;  0xff: an error packet (1236 ...), Connector/C decodes it
 *   The stream opens with a fake ROTATE (timestamp 0) naming the file, the file's FORMAT_DESCRIPTION, and in GTID
 *   mode a GTID_LIST; HEARTBEAT events come when the source is idle for MASTER_HEARTBEAT_PERIOD.
 *   Semi-sync (we set @rpl_semi_sync_slave=1): every event packet is 0x00, 0xef, flag, event; flag 0x01 asks for
 *   an ACK.  The ACK is a packet of our own, sequence number 0, as MariaDB's replica sends it:
 *     u8 0xef | u64 position just past the acknowledged event | the source's file name (rest of the packet)
 *   We send it once the group is applied and committed here (there is no relay log), from the IO thread (the
 *   connection is the IO thread's alone); the SQL thread wakes the IO thread through a pipe.
 *
 * ---- Locks ---------------------------------------------------------------------------------------------------
 * admin (mutex): START/STOP/RESET/CHANGE and SET gtid_slave_pos, one at a time; held while threads are joined.
 * mu (mutex): everything else in replica_t; the threads never hold it across network reads or applying.
 * Order: admin -> mu.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mysql.h>

#include "repl/replica.h"
#include "util/fio.h"
#include "util/util.h"

#define INFO_FILE "replica.info"
#define INFO_MAGIC "strata-replica 1"
enum { QUEUE_MAX_BYTES = 64 << 20, DEFAULT_CONNECT_RETRY = 60, DEFAULT_HEARTBEAT_MS = 30000, SYNC_EVERY = 64 };

struct replica {
    char *datadir;
    uint32_t server_id;
    replica_apply_ops_t ops;
    pthread_mutex_t admin, mu;
    pthread_cond_t io_cond;   /* the IO thread waits here: queue space, retry delay */
    pthread_cond_t sql_cond;  /* the SQL thread waits here: a group queued */
    bool configured;
    replica_config_t cfg;

    replica_io_state_t io_state;
    bool io_stop, io_joinable;
    pthread_t io_tid;
    MYSQL *conn;              /* the IO thread's connection while it has one (STOP shuts its socket down) */
    const char *io_step;      /* Slave_IO_State */
    uint32_t last_io_errno;
    char last_io_error[512];
    uint32_t master_server_id;
    int64_t clock_diff;       /* our clock minus the source's, seconds */
    uint64_t last_heard_us;   /* wall time of the last event or heartbeat from the source */
    char io_file[256];        /* the source position the IO thread has received up to */
    uint64_t io_pos;
    binlog_gtid_set_t io_gtid; /* one GTID per domain: gtid_slave_pos plus what is queued (Gtid_IO_Pos) */

    replica_sql_state_t sql_state;
    bool sql_stop, sql_joinable, sql_busy;
    pthread_t sql_tid;
    uint32_t last_sql_errno;
    char last_sql_error[512];
    uint32_t busy_when;       /* timestamp of the group being applied */
    replica_group_t *head, *tail;
    uint64_t queued_bytes;
    binlog_gtid_set_t slave_pos; /* gtid_slave_pos, one GTID per domain */
    char exec_file[256];      /* the source position the SQL thread applied up to */
    uint64_t exec_pos;
    uint64_t ddl_groups, nontrans_groups, trans_groups;
    replica_until_t until;    /* START SLAVE UNTIL (kind NONE: none) */
    uint64_t delay_until_us;  /* wall time the group at the head waits for (MASTER_DELAY), 0 when not waiting */

    /* semi-sync, replica side */
    bool semi;                /* the IO thread's connection runs with semi-sync */
    uint32_t ack_pending;     /* groups that asked for an ACK, queued or applied and not yet synced */
    uint32_t ack_unsynced;    /* of those, applied: their ACK goes at the next sync */
    uint32_t unsynced;        /* groups applied since the last sync (ops.sync) */
    uint64_t ack_ready, ack_sent; /* ACK generations: the SQL thread bumps ready, the IO thread sends up to it */
    char ack_file[256];       /* the last synced group that asked for an ACK: its source position */
    uint64_t ack_pos;
    char ack_cand_file[256];  /* the last applied group that asked for one (ack_file once synced) */
    uint64_t ack_cand_pos;
    uint64_t acks_sent;       /* Rpl_semi_sync_slave_send_ack */
    uint64_t heartbeats;      /* Slave_received_heartbeats */
    int wake[2];              /* pipe: the SQL thread wakes the IO thread waiting to send an ACK */

    /* parallel apply (slave_parallel_threads > 0): the SQL thread is the coordinator, handing whole groups to
     * workers; a group leaves the queue when it commits, and groups commit in queue order (seq) */
    bool par;                 /* the worker pool runs */
    _Atomic bool par_any;     /* the same, read without mu: the lock wait hook of every session checks it */
    replica_par_mode_t par_mode;
    replica_worker_t *workers;
    uint32_t nworkers;
    bool coord_waiting;       /* the coordinator waits on sql_cond: a worker that finishes wakes it */
    replica_group_t *disp_next; /* the first queued group not yet handed out (NULL: all of them) */
    uint64_t seq_next;        /* the seq of the last group handed out */
    uint64_t seq_done;        /* every group up to this seq committed */
    uint64_t fail_seq;        /* a group that failed for good: later ones roll back (UINT64_MAX: none) */
    uint32_t inflight;        /* groups handed to workers and not finished */
    uint64_t batch_cid;       /* conservative: the commit_id of the groups in flight */
    uint64_t retried;         /* Slave_retried_transactions */
    uint64_t executed;        /* Executed_log_entries */
};

/* A parallel apply worker.  Its fields are under the replica's mu; killed is also read without it. */
struct replica_worker {
    replica_t *r;
    pthread_t tid;
    bool started;
    replica_group_t *g;       /* the group it applies (NULL: idle) */
    uint64_t seq;             /* g's place in commit order */
    bool wait_first;          /* apply only once every earlier group committed */
    _Atomic bool killed;      /* a lock an earlier group waits for is ours: roll back, apply again */
    uint64_t trx_id;          /* its engine transaction now (0: none) */
    bool stop;
    pthread_cond_t cond;      /* it waits here, alone: a job, its turn to commit, killed, stop */
};

/* Under mu: wakes the worker whose group is next to commit (each waits on its own condition variable, so that a
 * commit wakes one thread, not all of them). */
static void wake_next(replica_t *r)
{
    for (uint32_t i = 0; i < r->nworkers; i++)
        if (r->workers[i].g && r->workers[i].seq == r->seq_done + 1)
            pthread_cond_signal(&r->workers[i].cond);
}

/* Under mu: wakes every worker (an earlier group failed: those after it give up). */
static void wake_all(replica_t *r)
{
    for (uint32_t i = 0; i < r->nworkers; i++)
        pthread_cond_signal(&r->workers[i].cond);
}

static void replica_check_state(const replica_t *r)
{
    /* a thread that is not stopped has a joinable pthread; no connection without a running IO thread */
    if ((r->io_state != REPLICA_IO_STOPPED && !r->io_joinable) ||
        (r->sql_state != REPLICA_SQL_STOPPED && !r->sql_joinable) || (r->conn && r->io_state == REPLICA_IO_STOPPED))
        log_error("replica: inconsistent thread state (io %d, sql %d)", (int)r->io_state, (int)r->sql_state);
}

/* ---------------------------------------------------------------- GTID positions (one per domain) */

static void pos_update(binlog_gtid_set_t *s, binlog_gtid_t g)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].domain == g.domain) {
            s->v[i] = g;
            return;
        }
    binlog_gtid_set_update(s, g);
}

static void pos_format(const binlog_gtid_set_t *s, char *out, size_t cap)
{
    buf_t b;
    buf_init(&b);
    binlog_gtid_set_format(s, true, &b);
    snprintf(out, cap, "%.*s", (int)b.len, b.len ? (const char *)b.data : "");
    buf_free(&b);
}

/* ---------------------------------------------------------------- id lists */

bool replica_id_list_has(const replica_id_list_t *l, uint32_t id)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] == id)
            return true;
    return false;
}

bool replica_id_list_add(replica_id_list_t *l, uint32_t id)
{
    if (replica_id_list_has(l, id))
        return true;
    if (l->n == REPLICA_MAX_IDS)
        return false;
    uint32_t i = l->n++;
    for (; i > 0 && l->v[i - 1] > id; i--)
        l->v[i] = l->v[i - 1];
    l->v[i] = id;
    return true;
}

static void id_list_format(const replica_id_list_t *l, const char *sep, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < l->n && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%u", i ? sep : "", l->v[i]);
}

/* "1,2,3" (as replica.info keeps it) into l, sorted and without duplicates. */
static void id_list_parse(const char *s, replica_id_list_t *l)
{
    l->n = 0;
    while (*s) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s)
            break;
        replica_id_list_add(l, (uint32_t)v);
        s = *end == ',' ? end + 1 : end;
    }
}

/* ---------------------------------------------------------------- replica.info */

static void info_put(buf_t *b, const char *key, const char *v)
{
    buf_printf(b, "%s=", key);
    for (; *v; v++) {
        if (*v == '\\')
            buf_append_str(b, "\\\\");
        else if (*v == '\n')
            buf_append_str(b, "\\n");
        else
            buf_append_byte(b, (uint8_t)*v);
    }
    buf_append_byte(b, '\n');
}

static void info_put_u(buf_t *b, const char *key, uint64_t v) { buf_printf(b, "%s=%llu\n", key, (unsigned long long)v); }

/* The string fields of replica_config_t, by their key in replica.info. */
#define INFO_STRINGS(X)                                                                                         \
    X(host) X(user) X(password) X(log_file) X(ssl_ca) X(ssl_capath) X(ssl_cert) X(ssl_key) X(ssl_cipher)       \
    X(ssl_crl) X(ssl_crlpath)

static int info_save(replica_t *r)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", r->datadir, INFO_FILE);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!r->configured) {
        if (unlink(path) != 0 && errno != ENOENT)
            return -1;
        return 0;
    }
    const replica_config_t *c = &r->cfg;
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "%s\n", INFO_MAGIC);
#define PUT_STR(f) info_put(&b, #f, c->f);
    INFO_STRINGS(PUT_STR)
#undef PUT_STR
    info_put_u(&b, "port", c->port);
    info_put_u(&b, "use_gtid", (uint64_t)c->use_gtid);
    info_put_u(&b, "log_pos", c->log_pos);
    info_put_u(&b, "connect_retry", c->connect_retry);
    info_put_u(&b, "heartbeat_ms", c->heartbeat_ms);
    info_put_u(&b, "ssl", c->ssl);
    info_put_u(&b, "ssl_verify", c->ssl_verify);
    info_put_u(&b, "delay", c->delay);
    char ids[REPLICA_MAX_IDS * 11 + 1];
#define PUT_IDS(f) id_list_format(&c->f, ",", ids, sizeof ids); info_put(&b, #f, ids);
    PUT_IDS(ignore_server_ids) PUT_IDS(do_domain_ids) PUT_IDS(ignore_domain_ids)
#undef PUT_IDS
    int rc = -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600); /* it holds the password */
    if (fd >= 0) {
        rc = write(fd, b.data, b.len) == (ssize_t)b.len && fsync(fd) == 0 ? 0 : -1;
        close(fd);
    }
    if (rc == 0)
        rc = rename(tmp, path);
    if (rc == 0) {
        int dfd = open(r->datadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            rc = fsync(dfd);
            close(dfd);
        }
    }
    if (rc)
        log_error("replica: cannot write %s: %s", path, strerror(errno));
    buf_free(&b);
    return rc;
}

static void info_unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

static int info_load(replica_t *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->datadir, INFO_FILE);
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? 0 : (log_error("replica: cannot read %s: %s", path, strerror(errno)), -1);
    char line[4096];
    int rc = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, INFO_MAGIC, strlen(INFO_MAGIC)) != 0) {
        log_error("replica: %s is not a replica configuration file (first line)", path);
        rc = -1;
    }
    replica_config_t *c = &r->cfg;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = 0;
        char *v = eq + 1;
        info_unescape(v);
        uint64_t n = strtoull(v, NULL, 10);
#define GET_STR(fl) if (!strcmp(line, #fl)) snprintf(c->fl, sizeof c->fl, "%s", v); else
        INFO_STRINGS(GET_STR)
#undef GET_STR
        if (!strcmp(line, "port")) c->port = (uint32_t)n;
        else if (!strcmp(line, "use_gtid")) c->use_gtid = n <= 2 ? (replica_gtid_mode_t)n : REPLICA_GTID_SLAVE_POS;
        else if (!strcmp(line, "log_pos")) c->log_pos = n;
        else if (!strcmp(line, "connect_retry")) c->connect_retry = (uint32_t)n;
        else if (!strcmp(line, "heartbeat_ms")) c->heartbeat_ms = (uint32_t)n;
        else if (!strcmp(line, "ssl")) c->ssl = n != 0;
        else if (!strcmp(line, "ssl_verify")) c->ssl_verify = n != 0;
        else if (!strcmp(line, "delay")) c->delay = (uint32_t)MIN(n, (uint64_t)REPLICA_MAX_DELAY);
        else if (!strcmp(line, "ignore_server_ids")) id_list_parse(v, &c->ignore_server_ids);
        else if (!strcmp(line, "do_domain_ids")) id_list_parse(v, &c->do_domain_ids);
        else if (!strcmp(line, "ignore_domain_ids")) id_list_parse(v, &c->ignore_domain_ids);
    }
    fclose(f);
    if (rc == 0)
        r->configured = c->host[0] != 0;
    return rc;
}

static void config_default(replica_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->port = 3306;
    c->use_gtid = REPLICA_GTID_SLAVE_POS; /* MariaDB 10.10+'s default */
    c->log_pos = 4;
    c->connect_retry = DEFAULT_CONNECT_RETRY;
    c->heartbeat_ms = DEFAULT_HEARTBEAT_MS;
}

/* ---------------------------------------------------------------- groups */

int replica_group_next(const replica_group_t *g, size_t *off, binlog_event_t *ev)
{
    if (*off >= g->ev.len)
        return 0;
    const char *why;
    if (binlog_event_parse(g->ev.data + *off, g->ev.len - *off, ev, &why) != 0)
        return 0; /* checked when it was queued */
    ev->pos = *off;
    *off += ev->size;
    return 1;
}

static void group_free(replica_group_t *g)
{
    if (!g)
        return;
    buf_free(&g->ev);
    mem_free(g);
}

static void queue_clear(replica_t *r)
{
    while (r->head) {
        replica_group_t *g = r->head;
        r->head = g->next;
        if (g->need_ack)
            r->ack_pending--;
        group_free(g);
    }
    r->tail = NULL;
    r->queued_bytes = 0;
}

/* ---------------------------------------------------------------- the IO thread */

static void io_set_error(replica_t *r, uint32_t no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void io_set_error(replica_t *r, uint32_t no, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&r->mu);
    r->last_io_errno = no;
    snprintf(r->last_io_error, sizeof r->last_io_error, "%s", msg);
    pthread_mutex_unlock(&r->mu);
    log_error("replica IO thread: error %u: %s", no, msg);
}

static bool io_stopping(replica_t *r)
{
    pthread_mutex_lock(&r->mu);
    bool s = r->io_stop;
    pthread_mutex_unlock(&r->mu);
    return s;
}

/* The first column of the first row of q into out ("" for NULL); 0 or the client error. */
static int io_query(MYSQL *m, const char *q, char *out, size_t cap)
{
    if (mysql_real_query(m, q, strlen(q)) != 0)
        return (int)mysql_errno(m);
    MYSQL_RES *res = mysql_store_result(m);
    if (out && cap)
        out[0] = 0;
    if (res) {
        MYSQL_ROW row = mysql_fetch_row(res);
        if (row && out && row[0])
            snprintf(out, cap, "%s", row[0]);
        mysql_free_result(res);
    } else if (mysql_field_count(m) != 0) {
        return (int)mysql_errno(m);
    }
    return 0;
}

static void put_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put_u32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* Connects, sets what a MariaDB replica sets, registers and asks for the stream.  0, a client/server error
 * number (retry), or -number for a fatal one (the IO thread stops). */
static int io_connect(replica_t *r, const replica_config_t *c, MYSQL **out)
{
    MYSQL *m = mysql_init(NULL);
    if (!m)
        return 2008; /* CR_OUT_OF_MEMORY */
    /* a read that waits slave_net_timeout seconds gives up and reconnects: with heartbeats (MariaDB's default
     * period is half of it) only a source that went silent gets there */
    unsigned timeout = 60, read_timeout = r->ops.net_timeout ? r->ops.net_timeout(r->ops.arg) : 60;
    unsigned long max_packet = 1ul << 30;
    mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
    mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
    mysql_options(m, MYSQL_OPT_MAX_ALLOWED_PACKET, &max_packet);
    if (c->ssl) {
        mysql_ssl_set(m, c->ssl_key[0] ? c->ssl_key : NULL, c->ssl_cert[0] ? c->ssl_cert : NULL,
                      c->ssl_ca[0] ? c->ssl_ca : NULL, c->ssl_capath[0] ? c->ssl_capath : NULL,
                      c->ssl_cipher[0] ? c->ssl_cipher : NULL);
        my_bool enforce = 1, verify = c->ssl_verify;
        mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &enforce);
        mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
        if (c->ssl_crl[0])
            mysql_options(m, MYSQL_OPT_SSL_CRL, c->ssl_crl);
        if (c->ssl_crlpath[0])
            mysql_options(m, MYSQL_OPT_SSL_CRLPATH, c->ssl_crlpath);
    }
    if (!mysql_real_connect(m, c->host, c->user, c->password, NULL, c->port, NULL, 0)) {
        int no = (int)mysql_errno(m);
        io_set_error(r, (uint32_t)no, "error connecting to master '%s@%s:%u' - retry-time: %u  maximum-retries: "
                     "100000  message: %s", c->user, c->host, c->port, c->connect_retry, mysql_error(m));
        mysql_close(m);
        return no ? no : 2003;
    }
    pthread_mutex_lock(&r->mu);
    r->conn = m;
    r->io_step = "Checking master version";
    pthread_mutex_unlock(&r->mu);
    char v[256];
    int no = io_query(m, "SELECT UNIX_TIMESTAMP()", v, sizeof v);
    int64_t diff = no ? 0 : (int64_t)(time_wall_us() / 1000000) - strtoll(v, NULL, 10);
    if (!no)
        no = io_query(m, "SELECT @@GLOBAL.SERVER_ID", v, sizeof v);
    uint32_t msid = no ? 0 : (uint32_t)strtoul(v, NULL, 10);
    if (!no && msid == r->server_id) {
        io_set_error(r, 1593, "Fatal error: The slave I/O thread stops because master and slave have equal MariaDB "
                     "server ids; these ids must be different for replication to work (or the "
                     "--replicate-same-server-id option must be used on slave but this does not always make sense; "
                     "please check the manual before using it).");
        return -1593;
    }
    char q[1200];
    if (!no && c->heartbeat_ms) {
        snprintf(q, sizeof q, "SET @master_heartbeat_period= %llu", (unsigned long long)c->heartbeat_ms * 1000000ull);
        no = io_query(m, q, NULL, 0);
    }
    if (!no)
        no = io_query(m, "SET @master_binlog_checksum= @@global.binlog_checksum", NULL, 0);
    if (!no && (no = io_query(m, "SELECT @master_binlog_checksum", v, sizeof v)) == 0 && strcasecmp(v, "CRC32") != 0) {
        io_set_error(r, 1236, "The source's binlog_checksum is %s; this replica needs CRC32", v[0] ? v : "NONE");
        return -1236;
    }
    if (!no)
        no = io_query(m, "SET @mariadb_slave_capability=4", NULL, 0); /* MARIA_SLAVE_CAPABILITY_GTID */
    bool semi = !no && r->ops.semi_sync_enabled && r->ops.semi_sync_enabled(r->ops.arg);
    if (semi) { /* a source without semi-sync does not know the variable: replicate asynchronously (MariaDB) */
        int e = io_query(m, "SELECT @@global.rpl_semi_sync_master_enabled", v, sizeof v);
        if (e == 1193) {
            log_warn("replica: the source does not support semi-synchronous replication; continuing asynchronously");
            semi = false;
        } else if (e) {
            no = e;
        } else {
            no = io_query(m, "SET @rpl_semi_sync_slave= 1", NULL, 0);
        }
    }
    if (!no && c->use_gtid != REPLICA_GTID_NO) {
        pthread_mutex_lock(&r->mu);
        char state[512];
        pos_format(&r->io_gtid, state, sizeof state);
        pthread_mutex_unlock(&r->mu);
        snprintf(q, sizeof q, "SET @slave_connect_state='%s'", state);
        no = io_query(m, q, NULL, 0);
        if (!no)
            no = io_query(m, r->ops.gtid_strict && r->ops.gtid_strict(r->ops.arg) ? "SET @slave_gtid_strict_mode=1"
                                                                                 : "SET @slave_gtid_strict_mode=0",
                          NULL, 0);
        if (!no)
            no = io_query(m, "SET @slave_gtid_ignore_duplicates=0", NULL, 0);
    }
    if (no) {
        io_set_error(r, (uint32_t)no, "%s", mysql_error(m));
        return no;
    }
    /* COM_REGISTER_SLAVE: server_id, host, user, password (each length-prefixed), port, rank, master id */
    uint8_t reg[32];
    put_u32(reg, r->server_id);
    reg[4] = reg[5] = reg[6] = 0;
    put_u16(reg + 7, 0);
    put_u32(reg + 9, 0);
    put_u32(reg + 13, 0);
    if (m->methods->db_command(m, COM_REGISTER_SLAVE, (const char *)reg, 17, 0, NULL) != 0) {
        no = (int)mysql_errno(m);
        io_set_error(r, (uint32_t)no, "Master command COM_REGISTER_SLAVE failed: %s", mysql_error(m));
        return no == 1227 || no == 1045 ? no : (no ? no : 2013);
    }
    /* COM_BINLOG_DUMP: pos u32, flags u16 (2 = send ANNOTATE_ROWS), server_id u32, file name */
    uint8_t dump[16 + 256];
    pthread_mutex_lock(&r->mu);
    const char *file = c->use_gtid != REPLICA_GTID_NO ? "" : r->io_file;
    uint64_t pos = c->use_gtid != REPLICA_GTID_NO ? 4 : r->io_pos;
    size_t fl = strlen(file);
    memcpy(dump + 10, file, fl);
    r->clock_diff = diff;
    r->master_server_id = msid;
    pthread_mutex_unlock(&r->mu);
    put_u32(dump, (uint32_t)pos);
    put_u16(dump + 4, 2);
    put_u32(dump + 6, r->server_id);
    if (m->methods->db_command(m, COM_BINLOG_DUMP, (const char *)dump, 10 + fl, 1, NULL) != 0) {
        no = (int)mysql_errno(m);
        io_set_error(r, (uint32_t)no, "%s", mysql_error(m));
        return no ? no : 2013;
    }
    pthread_mutex_lock(&r->mu);
    r->semi = semi;
    pthread_mutex_unlock(&r->mu);
    *out = m;
    return 0;
}

/* Whether a QUERY event's text is s (COMMIT, ROLLBACK, BEGIN), ignoring case and trailing blanks. */
static bool query_is(const binlog_event_t *ev, const char *s)
{
    binlog_query_t q;
    if (binlog_event_query(ev, &q) != 0)
        return false;
    size_t n = q.len;
    while (n && (q.text[n - 1] == ' ' || q.text[n - 1] == ';'))
        n--;
    return n == strlen(s) && strncasecmp(q.text, s, n) == 0;
}

/* Puts a complete group at the tail of the queue, waiting for space while the SQL thread catches up. */
static int io_enqueue(replica_t *r, replica_group_t *g)
{
    pthread_mutex_lock(&r->mu);
    while (r->queued_bytes > QUEUE_MAX_BYTES && r->head && !r->io_stop) {
        r->io_step = "Waiting for the slave SQL thread to free enough relay log space";
        pthread_cond_wait(&r->io_cond, &r->mu);
    }
    if (r->io_stop) {
        pthread_mutex_unlock(&r->mu);
        group_free(g);
        return -1;
    }
    r->io_step = "Waiting for master to send event";
    if (g->has_gtid)
        pos_update(&r->io_gtid, g->gtid);
    if (g->need_ack)
        r->ack_pending++;
    r->queued_bytes += g->ev.len;
    if (r->tail)
        r->tail->next = g;
    else
        r->head = g;
    r->tail = g;
    if (r->par && !r->disp_next)
        r->disp_next = g;
    pthread_cond_signal(&r->sql_cond);
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* Whether a whole group is filtered out, as MariaDB's IO thread filters: this server's own events (no
 * replicate_same_server_id), IGNORE_SERVER_IDS, and by GTID DO_DOMAIN_IDS / IGNORE_DOMAIN_IDS.  A filtered group
 * is still queued, without its events, so that its position is recorded in order (MariaDB's ign_gtids). */
static bool io_filtered(replica_t *r, const replica_config_t *c, const replica_group_t *g)
{
    uint32_t sid = g->gtid.server;
    if (!g->has_gtid) {
        binlog_event_t ev;
        size_t off = 0;
        if (!replica_group_next(g, &off, &ev))
            return false;
        sid = ev.server_id;
    }
    if (sid == r->server_id || replica_id_list_has(&c->ignore_server_ids, sid))
        return true;
    if (!g->has_gtid || c->use_gtid == REPLICA_GTID_NO)
        return false;
    if (c->do_domain_ids.n)
        return !replica_id_list_has(&c->do_domain_ids, g->gtid.domain);
    return replica_id_list_has(&c->ignore_domain_ids, g->gtid.domain);
}

/* The ACK of the last applied group that asked for one.  0, or -1 when the connection failed. */
static int io_send_ack(replica_t *r, MYSQL *m)
{
    pthread_mutex_lock(&r->mu);
    bool have = r->ack_ready != r->ack_sent;
    uint8_t pkt[8 + 256];
    size_t fl = strlen(r->ack_file);
    uint64_t pos = r->ack_pos;
    memcpy(pkt + 8, r->ack_file, fl);
    r->ack_sent = r->ack_ready;
    pthread_mutex_unlock(&r->mu);
    if (!have)
        return 0;
    for (int i = 0; i < 8; i++)
        pkt[i] = (uint8_t)(pos >> (8 * i));
    /* db_command writes one packet, sequence 0: the 0xef "command" byte, then the position and file name */
    if (m->methods->db_command(m, (enum enum_server_command)0xef, (const char *)pkt, 8 + fl, 1, NULL) != 0) {
        io_set_error(r, mysql_errno(m) ? mysql_errno(m) : 2013, "Semi-sync slave net_flush() reply failed: %s",
                     mysql_error(m));
        return -1;
    }
    pthread_mutex_lock(&r->mu);
    r->acks_sent++;
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* Before each read with semi-sync: sends the ACK that is due, and while a queued group still waits for its
 * ACK and nothing new has arrived, waits for the SQL thread (or the socket) instead of blocking in the read, so
 * the ACK leaves as soon as the group is applied.  0, or -1 when the connection failed. */
static int io_ack_wait(replica_t *r, MYSQL *m)
{
    for (;;) {
        if (io_send_ack(r, m) != 0)
            return -1;
        pthread_mutex_lock(&r->mu);
        bool wait = r->ack_pending > 0 && r->ack_ready == r->ack_sent && r->sql_state == REPLICA_SQL_RUNNING &&
                    !r->io_stop;
        pthread_mutex_unlock(&r->mu);
        if (!wait)
            return 0;
        struct pollfd pf[2] = {{.fd = mysql_get_socket(m), .events = POLLIN}, {.fd = r->wake[0], .events = POLLIN}};
        int n = poll(pf, 2, 100);
        if (n > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
            return 0; /* data from the source: read it, the ACK follows when its group is applied */
        if (n > 0 && (pf[1].revents & POLLIN)) {
            char drain[64];
            while (read(r->wake[0], drain, sizeof drain) == (ssize_t)sizeof drain) {
            }
        }
    }
}

/* Reads the stream until an error, the end of the stream or STOP.  Returns 0 (reconnect), or -errno (fatal). */
static int io_read_stream(replica_t *r, MYSQL *m, const replica_config_t *c)
{
    replica_group_t *g = NULL;
    char g_file[256] = ""; /* where g began: a cut group is fetched again from there (file/position mode) */
    uint64_t g_pos = 0;
    int rc = 0;
    pthread_mutex_lock(&r->mu);
    bool semi = r->semi;
    pthread_mutex_unlock(&r->mu);
    for (;;) {
        if (semi && io_ack_wait(r, m) != 0)
            break;
        unsigned long len = mysql_net_read_packet(m);
        if (io_stopping(r))
            break;
        if (len == packet_error || len == 0) {
            unsigned no = mysql_errno(m);
            if (no == 1236) {
                io_set_error(r, 1236, "Got fatal error 1236 from master when reading data from binary log: '%s'",
                             mysql_error(m));
                rc = -1236;
            } else {
                io_set_error(r, no ? no : 2013, "error reading packet from server: %s", mysql_error(m));
            }
            break;
        }
        const uint8_t *p = m->net.read_pos;
        if (p[0] == 0xfe && len < 8)
            break; /* the source ended the stream */
        binlog_event_t ev;
        const char *why = "";
        bool ack = false;
        unsigned long hdr = 1; /* 0x00, or with semi-sync 0x00 0xef flag */
        if (semi && p[0] == 0) {
            if (len < 3 || p[1] != 0xef) {
                io_set_error(r, 1595, "Relay log write failure: could not queue event from master (a semi-sync "
                             "packet without its 0xef header)");
                break;
            }
            ack = (p[2] & 0x01) != 0;
            hdr = 3;
        }
        if (p[0] != 0 || binlog_event_parse(p + hdr, len - hdr, &ev, &why) != 0 || ev.size != len - hdr) {
            io_set_error(r, 1595, "Relay log write failure: could not queue event from master (%s)",
                         p[0] ? "unexpected packet" : why);
            break;
        }
        pthread_mutex_lock(&r->mu);
        r->last_heard_us = time_wall_us();
        if ((!g || ev.type == BINLOG_EV_GTID) && ev.type != BINLOG_EV_ROTATE) {
            snprintf(g_file, sizeof g_file, "%s", r->io_file);
            g_pos = r->io_pos;
        }
        if (ev.next_pos)
            r->io_pos = ev.next_pos;
        pthread_mutex_unlock(&r->mu);
        switch (ev.type) {
        case BINLOG_EV_ROTATE: {
            size_t n = ev.size - BINLOG_HEADER_LEN - BINLOG_CRC_LEN;
            if (n >= 8) {
                const uint8_t *b = ev.data + BINLOG_HEADER_LEN;
                uint64_t pos = 0;
                for (int i = 0; i < 8; i++)
                    pos |= (uint64_t)b[i] << (8 * i);
                pthread_mutex_lock(&r->mu);
                snprintf(r->io_file, sizeof r->io_file, "%.*s", (int)MIN(n - 8, sizeof r->io_file - 1), b + 8);
                r->io_pos = pos;
                pthread_mutex_unlock(&r->mu);
            }
            continue;
        }
        case BINLOG_EV_HEARTBEAT:
            pthread_mutex_lock(&r->mu);
            r->heartbeats++;
            pthread_mutex_unlock(&r->mu);
            continue;
        case BINLOG_EV_FORMAT_DESCRIPTION: case BINLOG_EV_GTID_LIST:
        case BINLOG_EV_BINLOG_CHECKPOINT: case BINLOG_EV_STOP:
            continue; /* stream bookkeeping, nothing to apply */
        case BINLOG_EV_START_ENCRYPTION:
            io_set_error(r, 1236, "The source's binlog is encrypted (START_ENCRYPTION); not supported");
            rc = -1236;
            goto out;
        case BINLOG_EV_GTID: {
            if (g) { /* the previous group never ended: the source restarted it (a crash there) */
                log_warn("replica: an event group without its end was dropped (GTID %u-%u-%llu)", g->gtid.domain,
                         g->gtid.server, (unsigned long long)g->gtid.seq);
                group_free(g);
            }
            g = mem_calloc(1, sizeof *g);
            buf_init(&g->ev);
            uint64_t cid;
            if (binlog_event_gtid(&ev, &g->gtid, &g->flags2, &cid) != 0) {
                io_set_error(r, 1595, "Relay log write failure: malformed GTID event");
                goto out;
            }
            g->gtid.server = ev.server_id;
            g->has_gtid = true;
            g->commit_id = cid;
            g->when = ev.when;
            break;
        }
        default:
            if (!g) { /* a source without GTIDs: BEGIN opens a group, any other event is one by itself */
                g = mem_calloc(1, sizeof *g);
                buf_init(&g->ev);
                g->when = ev.when;
                if (ev.type == BINLOG_EV_QUERY && !query_is(&ev, "BEGIN"))
                    g->flags2 = BINLOG_GTID_FL_STANDALONE;
            }
            break;
        }
        bool crossed = g->ev.len < (1u << 20) && g->ev.len + ev.size >= (1u << 20);
        buf_append(&g->ev, ev.data, ev.size);
        g->nev++;
        if (crossed && FAULT_POINT("replica.io_group_cut")) { /* test builds: the connection lost mid-group */
            io_set_error(r, 2013, "error reading packet from server: Lost connection (replica.io_group_cut)");
            goto out;
        }
        g->need_ack |= ack;
        bool end = ev.type == BINLOG_EV_XID ||
                   (ev.type == BINLOG_EV_QUERY && ((g->flags2 & BINLOG_GTID_FL_STANDALONE) ||
                                                   query_is(&ev, "COMMIT") || query_is(&ev, "ROLLBACK")));
        if (end) {
            pthread_mutex_lock(&r->mu);
            snprintf(g->log_file, sizeof g->log_file, "%s", r->io_file);
            g->end_pos = ev.next_pos ? ev.next_pos : r->io_pos;
            pthread_mutex_unlock(&r->mu);
            if (io_filtered(r, c, g)) {
                g->skip = true;
                buf_reset(&g->ev);
                g->nev = 0;
            }
            if (io_enqueue(r, g) != 0) {
                g = NULL;
                break;
            }
            g = NULL;
        }
    }
out:
    if (g) { /* a group cut by the disconnect is fetched again: by GTID from io_gtid, else from where it began */
        pthread_mutex_lock(&r->mu);
        snprintf(r->io_file, sizeof r->io_file, "%s", g_file);
        r->io_pos = g_pos;
        pthread_mutex_unlock(&r->mu);
        group_free(g);
    }
    return rc;
}

/* Waits up to sec seconds or until STOP; true when stopping. */
static bool io_sleep(replica_t *r, uint32_t sec)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += sec ? sec : 1;
    pthread_mutex_lock(&r->mu);
    while (!r->io_stop && pthread_cond_timedwait(&r->io_cond, &r->mu, &ts) != ETIMEDOUT) {
    }
    bool s = r->io_stop;
    pthread_mutex_unlock(&r->mu);
    return s;
}

static void *io_main(void *arg)
{
    replica_t *r = arg;
    mysql_thread_init();
    for (;;) {
        pthread_mutex_lock(&r->mu);
        replica_config_t c = r->cfg;
        r->io_state = REPLICA_IO_CONNECTING;
        r->io_step = "Connecting to master";
        pthread_mutex_unlock(&r->mu);
        MYSQL *m = NULL;
        int rc = io_connect(r, &c, &m);
        if (rc == 0) {
            pthread_mutex_lock(&r->mu);
            r->io_state = REPLICA_IO_RUNNING;
            r->io_step = "Waiting for master to send event";
            r->last_heard_us = time_wall_us();
            r->last_io_errno = 0;
            r->last_io_error[0] = 0;
            pthread_mutex_unlock(&r->mu);
            log_note("replica: connected to master '%s@%s:%u', replication started", c.user, c.host, c.port);
            rc = io_read_stream(r, m, &c);
        }
        pthread_mutex_lock(&r->mu);
        MYSQL *conn = r->conn;
        r->conn = NULL;
        r->semi = false;
        pthread_mutex_unlock(&r->mu);
        if (conn)
            mysql_close(conn);
        if (rc < 0 || io_stopping(r))
            break;
        pthread_mutex_lock(&r->mu);
        r->io_state = REPLICA_IO_CONNECTING;
        r->io_step = "Waiting to reconnect after a failed master event read";
        pthread_mutex_unlock(&r->mu);
        if (io_sleep(r, c.connect_retry))
            break;
    }
    pthread_mutex_lock(&r->mu);
    r->io_state = REPLICA_IO_STOPPED;
    r->io_step = "";
    pthread_mutex_unlock(&r->mu);
    mysql_thread_end();
    return NULL;
}

/* ---------------------------------------------------------------- the SQL thread */

/* START SLAVE UNTIL, under mu.  Before a group (g != NULL): whether it lies past the condition (GTID: a domain
 * the condition does not name, or past its seq).  After the last applied one (g == NULL): whether the condition
 * is met (GTID: every named domain at its seq; MASTER: the applied position at or past it). */
static bool until_reached(replica_t *r, const replica_group_t *g)
{
    const replica_until_t *u = &r->until;
    if (u->kind == REPLICA_UNTIL_GTID) {
        if (g)
            return g->has_gtid && !g->skip &&
                   (!binlog_gtid_set_has_domain(&u->gtid, g->gtid.domain) ||
                    g->gtid.seq > binlog_gtid_set_domain_seq(&u->gtid, g->gtid.domain));
        for (uint32_t i = 0; i < u->gtid.n; i++)
            if (binlog_gtid_set_domain_seq(&r->slave_pos, u->gtid.v[i].domain) < u->gtid.v[i].seq)
                return false;
        return true;
    }
    if (u->kind == REPLICA_UNTIL_MASTER && !g && r->exec_file[0]) {
        int c = strcmp(r->exec_file, u->log_file); /* same base name: the sequence suffix orders them */
        return c > 0 || (c == 0 && r->exec_pos >= u->log_pos);
    }
    return false;
}

/* The until condition is met: the SQL thread stops (by GTID the IO thread too, as MariaDB's), under mu. */
static void until_stop(replica_t *r)
{
    log_note("replica: the SQL thread stops at the START SLAVE UNTIL condition (%s)",
             r->until.kind == REPLICA_UNTIL_GTID ? "master_gtid_pos" : "master_log_pos");
    if (r->until.kind == REPLICA_UNTIL_GTID && r->io_state != REPLICA_IO_STOPPED) {
        r->io_stop = true;
        if (r->conn)
            shutdown(mysql_get_socket(r->conn), SHUT_RDWR);
        pthread_cond_broadcast(&r->io_cond);
    }
    r->sql_stop = true;
}

/* MASTER_DELAY: waits, under mu, until g is delay seconds older than its commit on the source (by the source's
 * clock).  false when STOP came meanwhile. */
static bool delay_wait(replica_t *r, const replica_group_t *g)
{
    uint32_t delay = r->cfg.delay;
    if (!delay || !g->when || g->skip)
        return !r->sql_stop;
    uint64_t due = ((uint64_t)g->when + (uint64_t)delay) * 1000000u + (uint64_t)(r->clock_diff * 1000000);
    while (!r->sql_stop && time_wall_us() < due) {
        r->delay_until_us = due;
        struct timespec ts = {.tv_sec = (time_t)(due / 1000000u), .tv_nsec = (long)(due % 1000000u) * 1000};
        pthread_cond_timedwait(&r->sql_cond, &r->mu, &ts); /* CLOCK_REALTIME: the same clock as time_wall_us */
    }
    r->delay_until_us = 0;
    return !r->sql_stop;
}

/* Under mu: makes the groups applied since the last call durable (ops.sync, one redo sync for all of them) and
 * hands the ACK of the last one that asked for it to the IO thread.  0, or -1 when the sync failed (the SQL
 * thread stops; what was not synced is fetched again after a restart). */
static int sql_sync(replica_t *r)
{
    if (!r->unsynced)
        return 0;
    /* what is counted now was committed before ops.sync reads the commit LSN: groups that workers commit
     * meanwhile wait for the next sync */
    uint32_t n = r->unsynced, acks = r->ack_unsynced;
    char ack_file[256];
    snprintf(ack_file, sizeof ack_file, "%s", r->ack_cand_file);
    uint64_t ack_pos = r->ack_cand_pos;
    pthread_mutex_unlock(&r->mu);
    int rc = r->ops.sync ? r->ops.sync(r->ops.arg) : 0;
    pthread_mutex_lock(&r->mu);
    r->unsynced -= n;
    if (rc) {
        r->last_sql_errno = 1180; /* ER_ERROR_DURING_COMMIT */
        snprintf(r->last_sql_error, sizeof r->last_sql_error, "Got error %d during COMMIT (the redo log sync)", rc);
        log_error("replica SQL thread: %s; the SQL thread stops", r->last_sql_error);
        return -1;
    }
    if (acks) {
        r->ack_pending -= acks;
        r->ack_unsynced -= acks;
        snprintf(r->ack_file, sizeof r->ack_file, "%s", ack_file);
        r->ack_pos = ack_pos;
        r->ack_ready++;
        if (write(r->wake[1], "", 1) < 0) { /* full: the IO thread has wake-ups pending anyway */
        }
    }
    return 0;
}

/* Under mu: g, the head of the queue, committed: it leaves the queue and the applied position moves past it. */
static void group_applied(replica_t *r, replica_group_t *g)
{
    if (r->head != g)
        log_error("replica: a group committed out of queue order");
    r->head = g->next;
    if (!r->head)
        r->tail = NULL;
    r->queued_bytes -= g->ev.len;
    if (g->has_gtid)
        pos_update(&r->slave_pos, g->gtid);
    if (g->log_file[0]) {
        snprintf(r->exec_file, sizeof r->exec_file, "%s", g->log_file);
        r->exec_pos = g->end_pos;
    }
    if (g->skip)
        ;
    else if (g->flags2 & BINLOG_GTID_FL_DDL)
        r->ddl_groups++;
    else if (g->flags2 & BINLOG_GTID_FL_TRANSACTIONAL)
        r->trans_groups++;
    else
        r->nontrans_groups++;
    r->executed += g->nev;
    r->unsynced++;
    if (g->need_ack) { /* acknowledged once durable, at the next sync */
        r->ack_unsynced++;
        snprintf(r->ack_cand_file, sizeof r->ack_cand_file, "%s", g->log_file);
        r->ack_cand_pos = g->end_pos;
    }
    group_free(g);
    pthread_cond_signal(&r->io_cond);
}

/* A lock wait timeout or deadlock with a local transaction: retried slave_transaction_retries times. */
static bool temporary_error(int no) { return no == 1205 || no == 1213; }

/* Under mu: the SQL thread stops with error no. */
static void sql_set_error(replica_t *r, int no, const char *err)
{
    r->last_sql_errno = (uint32_t)no;
    snprintf(r->last_sql_error, sizeof r->last_sql_error, "%s", err);
    log_error("replica SQL thread: error %d: %s; the SQL thread stops (fix the cause, then START SLAVE)", no, err);
}

/* ---------------------------------------------------------------- parallel apply
 *
 * The SQL thread (coordinator) walks the queue from disp_next and hands each group to an idle worker with the
 * next seq.  A worker applies its group in its own engine transaction, then waits for its turn (seq_done ==
 * seq - 1: every earlier group committed) before it writes the position and commits, so commits, this server's
 * binlog and gtid_slave_pos follow the source's order.  Which groups may be in flight together:
 *   none, minimal   one at a time;
 *   conservative    the members of one source group commit (the same non-zero commit_id, consecutive);
 *   optimistic      any; a group the source saw wait for a row lock (FL_WAITED) starts only after the earlier
 *                   ones committed;
 *   aggressive      any.
 * Statement groups (DDL, statement-logged DML), filtered and non-transactional groups, and every group while
 * START SLAVE UNTIL is in force, run alone in the coordinator once everything before them committed.
 *
 * Conflicts.  A group that runs ahead may need a row an earlier one will change.  If the earlier group waits for
 * a row lock the later one holds, the later one would wait for the earlier one's commit: the engine's lock wait
 * hook (replica_lock_wait) kills the later one, which rolls back.  Any error of a group applied while earlier ones
 * were not yet committed (killed, a deadlock, a missing row an earlier group inserts) rolls it back, and it is
 * applied again once every earlier group committed (counted in Slave_retried_transactions).  A group applied
 * with every earlier one committed retries 1205 and 1213 slave_transaction_retries times; any other error is
 * the SQL thread's error: later groups roll back, and the failed group and every later one stay queued.
 */

void replica_worker_set_trx(replica_worker_t *w, uint64_t trx_id)
{
    pthread_mutex_lock(&w->r->mu);
    w->trx_id = trx_id;
    pthread_mutex_unlock(&w->r->mu);
}

bool replica_worker_killed(replica_worker_t *w) { return atomic_load(&w->killed); }

int replica_worker_wait_turn(replica_worker_t *w)
{
    replica_t *r = w->r;
    pthread_mutex_lock(&r->mu);
    while (!atomic_load(&w->killed) && r->fail_seq > w->seq && r->seq_done + 1 < w->seq)
        pthread_cond_wait(&w->cond, &r->mu);
    int rc = atomic_load(&w->killed) || r->fail_seq < w->seq ? -1 : 0;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

bool replica_lock_wait(replica_t *r, uint64_t waiter_trx, uint64_t holder_trx)
{
    if (!r || !waiter_trx || !holder_trx || !atomic_load_explicit(&r->par_any, memory_order_relaxed))
        return false;
    pthread_mutex_lock(&r->mu);
    replica_worker_t *ww = NULL, *wh = NULL;
    for (uint32_t i = 0; r->par && i < r->nworkers; i++) {
        replica_worker_t *w = &r->workers[i];
        if (w->g && w->trx_id == waiter_trx)
            ww = w;
        else if (w->g && w->trx_id == holder_trx)
            wh = w;
    }
    bool kill = ww && wh && wh->seq > ww->seq;
    if (kill) {
        atomic_store(&wh->killed, true);
        pthread_cond_signal(&wh->cond);
    }
    pthread_mutex_unlock(&r->mu);
    return kill;
}

static void *worker_main(void *arg)
{
    replica_worker_t *w = arg;
    replica_t *r = w->r;
    void *ctx = r->ops.worker_new ? r->ops.worker_new(r->ops.arg) : NULL;
    char err[512];
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!w->g && !w->stop)
            pthread_cond_wait(&w->cond, &r->mu);
        if (!w->g)
            break;
        replica_group_t *g = w->g;
        uint32_t tries = 0;
        int no;
        for (;;) {
            while (w->wait_first && r->fail_seq > w->seq && r->seq_done + 1 < w->seq)
                pthread_cond_wait(&w->cond, &r->mu);
            if (r->fail_seq < w->seq) {
                no = REPLICA_RETRY; /* abandoned: an earlier group failed */
                break;
            }
            bool alone = r->seq_done + 1 == w->seq; /* every earlier group committed: an error is this group's */
            atomic_store(&w->killed, false);
            pthread_mutex_unlock(&r->mu);
            err[0] = 0;
            no = r->ops.apply_worker(r->ops.arg, ctx, w, g, err, sizeof err);
            uint32_t max = no && r->ops.retries ? r->ops.retries(r->ops.arg) : 0;
            pthread_mutex_lock(&r->mu);
            w->trx_id = 0;
            if (no == 0 || r->fail_seq < w->seq)
                break;
            if (alone && !(temporary_error(no) || no == REPLICA_RETRY))
                break; /* the SQL thread's error */
            if (alone && ++tries > max) {
                if (no == REPLICA_RETRY)
                    no = 1213, snprintf(err, sizeof err, "%s", "Deadlock found when trying to get lock; try restarting transaction");
                break;
            }
            r->retried++;
            w->wait_first = true;
        }
        if (no == 0) {
            group_applied(r, g);
            r->seq_done = w->seq;
            wake_next(r);
        } else if (r->fail_seq > w->seq) {
            r->fail_seq = w->seq;
            sql_set_error(r, no, err);
            wake_all(r);
        }
        w->g = NULL;
        r->inflight--;
        r->sql_busy = r->inflight > 0;
        if (r->coord_waiting)
            pthread_cond_signal(&r->sql_cond);
    }
    pthread_mutex_unlock(&r->mu);
    if (r->ops.worker_free)
        r->ops.worker_free(r->ops.arg, ctx);
    return NULL;
}

/* Groups that run alone in the coordinator: statements (not BEGIN / COMMIT), DDL, filtered, non-transactional. */
static bool group_alone(const replica_group_t *g)
{
    if (g->skip || !g->has_gtid || (g->flags2 & BINLOG_GTID_FL_DDL) || !(g->flags2 & BINLOG_GTID_FL_TRANSACTIONAL))
        return true;
    size_t off = 0;
    binlog_event_t ev;
    while (replica_group_next(g, &off, &ev))
        if (ev.type == BINLOG_EV_QUERY && !query_is(&ev, "BEGIN") && !query_is(&ev, "COMMIT"))
            return true;
    return false;
}

/* The coordinator's loop, under mu (the SQL thread with slave_parallel_threads > 0). */
static void sql_run_parallel(replica_t *r, uint32_t nthreads, replica_par_mode_t mode)
{
    char err[512];
    r->workers = mem_calloc(nthreads, sizeof *r->workers);
    r->nworkers = nthreads;
    r->par_mode = mode;
    r->disp_next = r->head;
    r->seq_next = r->seq_done = 0;
    r->fail_seq = UINT64_MAX;
    r->inflight = 0;
    r->batch_cid = 0;
    r->par = true;
    atomic_store(&r->par_any, true);
    for (uint32_t i = 0; i < nthreads; i++) {
        r->workers[i].r = r;
        pthread_cond_init(&r->workers[i].cond, NULL);
        r->workers[i].started = pthread_create(&r->workers[i].tid, NULL, worker_main, &r->workers[i]) == 0;
        if (!r->workers[i].started)
            log_error("replica: an apply worker thread could not be started");
    }
    for (;;) {
        if (r->sql_stop || r->fail_seq != UINT64_MAX)
            break;
        replica_group_t *g = r->disp_next;
        replica_worker_t *w = NULL;
        for (uint32_t i = 0; i < r->nworkers && !w; i++)
            if (r->workers[i].started && !r->workers[i].g)
                w = &r->workers[i];
        bool alone = g && (group_alone(g) || r->until.kind != REPLICA_UNTIL_NONE);
        bool serial = alone || mode <= REPLICA_PAR_MINIMAL ||
                      (g && mode == REPLICA_PAR_CONSERVATIVE && (!g->commit_id || g->commit_id != r->batch_cid));
        if (!g || (serial && r->inflight) || (!alone && !w)) {
            /* one sync for whatever the queue held: when everything is applied, or every SYNC_EVERY groups */
            if (r->unsynced && ((!g && !r->inflight) || r->unsynced >= SYNC_EVERY)) {
                if (sql_sync(r) != 0)
                    break;
                continue; /* mu was let go: look again */
            }
            r->coord_waiting = true;
            pthread_cond_wait(&r->sql_cond, &r->mu);
            r->coord_waiting = false;
            continue;
        }
        if (!r->inflight && until_reached(r, g)) {
            until_stop(r);
            break;
        }
        if (!delay_wait(r, g))
            break;
        if (r->disp_next != g) /* the queue was cleared meanwhile */
            continue;
        r->seq_next++;
        if (!alone) {
            w->g = g;
            w->seq = r->seq_next;
            w->wait_first = mode == REPLICA_PAR_OPTIMISTIC && (g->flags2 & BINLOG_GTID_FL_WAITED);
            r->batch_cid = g->commit_id;
            r->inflight++;
            r->disp_next = g->next;
            r->sql_busy = true;
            r->busy_when = r->head ? r->head->when : g->when;
            pthread_cond_signal(&w->cond);
            continue;
        }
        r->sql_busy = true;
        r->busy_when = g->when;
        r->disp_next = g->next;
        pthread_mutex_unlock(&r->mu);
        err[0] = 0;
        int no = r->ops.apply(r->ops.arg, g, err, sizeof err);
        pthread_mutex_lock(&r->mu);
        r->sql_busy = false;
        if (no) {
            r->disp_next = g;
            sql_set_error(r, no, err);
            break;
        }
        group_applied(r, g);
        r->seq_done = r->seq_next;
        if ((!r->disp_next || r->unsynced >= SYNC_EVERY) && sql_sync(r) != 0)
            break;
        if (until_reached(r, NULL)) {
            until_stop(r);
            break;
        }
    }
    /* the groups in flight finish (a group after a failed one rolls back), then the workers end */
    r->coord_waiting = true;
    while (r->inflight)
        pthread_cond_wait(&r->sql_cond, &r->mu);
    r->coord_waiting = false;
    r->sql_busy = false;
    for (uint32_t i = 0; i < r->nworkers; i++)
        r->workers[i].stop = true;
    wake_all(r);
    pthread_mutex_unlock(&r->mu);
    for (uint32_t i = 0; i < r->nworkers; i++)
        if (r->workers[i].started)
            pthread_join(r->workers[i].tid, NULL);
    pthread_mutex_lock(&r->mu);
    r->par = false;
    atomic_store(&r->par_any, false);
    r->disp_next = NULL;
    for (uint32_t i = 0; i < r->nworkers; i++)
        pthread_cond_destroy(&r->workers[i].cond);
    mem_free(r->workers);
    r->workers = NULL;
    r->nworkers = 0;
}

static void *sql_main(void *arg)
{
    replica_t *r = arg;
    char err[512];
    uint32_t nthreads = 0;
    replica_par_mode_t mode = REPLICA_PAR_NONE;
    if (r->ops.parallel)
        r->ops.parallel(r->ops.arg, &nthreads, &mode);
    pthread_mutex_lock(&r->mu);
    if (until_reached(r, NULL))
        until_stop(r);
    if (nthreads && !r->sql_stop)
        sql_run_parallel(r, nthreads, mode);
    uint32_t tries = 0;
    for (; !nthreads;) {
        while (!r->head && !r->sql_stop)
            pthread_cond_wait(&r->sql_cond, &r->mu);
        if (r->sql_stop)
            break;
        replica_group_t *g = r->head;
        if (until_reached(r, g)) {
            until_stop(r);
            break;
        }
        if (!delay_wait(r, g))
            break;
        r->sql_busy = true;
        r->busy_when = g->when;
        pthread_mutex_unlock(&r->mu);
        err[0] = 0;
        int no = r->ops.apply(r->ops.arg, g, err, sizeof err);
        pthread_mutex_lock(&r->mu);
        r->sql_busy = false;
        if (no && temporary_error(no) && r->ops.retries && tries < r->ops.retries(r->ops.arg)) {
            tries++; /* a lock wait timeout or deadlock with a local transaction: slave_transaction_retries */
            r->retried++;
            continue;
        }
        tries = 0;
        if (no) {
            sql_set_error(r, no, err);
            break;
        }
        group_applied(r, g);
        /* one sync for whatever the queue held: when it runs dry, or every SYNC_EVERY groups */
        if ((!r->head || r->unsynced >= SYNC_EVERY) && sql_sync(r) != 0)
            break;
        if (until_reached(r, NULL)) {
            until_stop(r);
            break;
        }
    }
    sql_sync(r);
    r->sql_state = REPLICA_SQL_STOPPED;
    if (write(r->wake[1], "", 1) < 0) { /* an IO thread waiting to ACK stops waiting for this thread */
    }
    pthread_mutex_unlock(&r->mu);
    if (r->ops.thread_end)
        r->ops.thread_end(r->ops.arg);
    return NULL;
}

/* ---------------------------------------------------------------- control */

static void join_finished(replica_t *r)
{
    /* threads that ended by themselves (fatal IO error, SQL error) are joined before a new start */
    pthread_mutex_lock(&r->mu);
    bool io = r->io_joinable && r->io_state == REPLICA_IO_STOPPED;
    bool sql = r->sql_joinable && r->sql_state == REPLICA_SQL_STOPPED;
    pthread_mutex_unlock(&r->mu);
    if (io) {
        pthread_join(r->io_tid, NULL);
        r->io_joinable = false;
    }
    if (sql) {
        pthread_join(r->sql_tid, NULL);
        r->sql_joinable = false;
    }
}

bool replica_running(replica_t *r)
{
    pthread_mutex_lock(&r->mu);
    bool run = r->io_state != REPLICA_IO_STOPPED || r->sql_state != REPLICA_SQL_STOPPED;
    pthread_mutex_unlock(&r->mu);
    return run;
}

static bool any_running(replica_t *r)
{
    pthread_mutex_lock(&r->mu);
    bool run = r->io_state != REPLICA_IO_STOPPED || r->sql_state != REPLICA_SQL_STOPPED;
    pthread_mutex_unlock(&r->mu);
    return run;
}

int replica_start(replica_t *r, unsigned threads, const replica_until_t *until, int *note)
{
    *note = 0;
    pthread_mutex_lock(&r->admin);
    join_finished(r);
    int rc = 0;
    if (!r->configured) {
        rc = 1200;
        goto out;
    }
    pthread_mutex_lock(&r->mu);
    replica_check_state(r);
    bool start_io = (threads & REPLICA_THREAD_IO) && r->io_state == REPLICA_IO_STOPPED;
    bool start_sql = (threads & REPLICA_THREAD_SQL) && r->sql_state == REPLICA_SQL_STOPPED;
    if (!start_io && !start_sql)
        *note = 1254;
    if (start_io) {
        if (r->sql_state == REPLICA_SQL_STOPPED && !start_sql) {
            /* nothing applies the queue meanwhile, but it is kept for the SQL thread */
        }
        if (!r->head) { /* received up to what was applied: fetch from there */
            binlog_gtid_set_free(&r->io_gtid);
            binlog_gtid_set_copy(&r->io_gtid, &r->slave_pos);
            if (r->cfg.use_gtid == REPLICA_GTID_CURRENT_POS && r->ops.binlog_pos) {
                binlog_gtid_set_t own = {0};
                r->ops.binlog_pos(r->ops.arg, &own);
                for (uint32_t i = 0; i < own.n; i++)
                    if (own.v[i].seq > binlog_gtid_set_domain_seq(&r->io_gtid, own.v[i].domain))
                        pos_update(&r->io_gtid, own.v[i]);
                binlog_gtid_set_free(&own);
            }
            snprintf(r->io_file, sizeof r->io_file, "%s", r->exec_file[0] ? r->exec_file : r->cfg.log_file);
            r->io_pos = r->exec_file[0] ? r->exec_pos : r->cfg.log_pos;
        }
        if (!r->last_heard_us) /* the lag's floor while the source is not reached: since we began to ask */
            r->last_heard_us = time_wall_us();
        r->io_stop = false;
        r->io_state = REPLICA_IO_CONNECTING;
        r->io_step = "Connecting to master";
        r->last_io_errno = 0;
        r->last_io_error[0] = 0;
    }
    if (start_sql) {
        binlog_gtid_set_free(&r->until.gtid);
        memset(&r->until, 0, sizeof r->until);
        if (until) {
            r->until = *until;
            r->until.gtid = (binlog_gtid_set_t){0};
            binlog_gtid_set_copy(&r->until.gtid, &until->gtid);
        }
        r->sql_stop = false;
        r->sql_state = REPLICA_SQL_RUNNING;
        r->last_sql_errno = 0;
        r->last_sql_error[0] = 0;
    }
    pthread_mutex_unlock(&r->mu);
    if (start_sql) {
        if (pthread_create(&r->sql_tid, NULL, sql_main, r) != 0) {
            pthread_mutex_lock(&r->mu);
            r->sql_state = REPLICA_SQL_STOPPED;
            pthread_mutex_unlock(&r->mu);
            rc = 1201;
            goto out;
        }
        r->sql_joinable = true;
    }
    if (start_io) {
        if (pthread_create(&r->io_tid, NULL, io_main, r) != 0) {
            pthread_mutex_lock(&r->mu);
            r->io_state = REPLICA_IO_STOPPED;
            pthread_mutex_unlock(&r->mu);
            rc = 1201;
            goto out;
        }
        r->io_joinable = true;
    }
out:
    pthread_mutex_unlock(&r->admin);
    return rc;
}

static void stop_locked(replica_t *r, unsigned threads, int *note)
{
    pthread_mutex_lock(&r->mu);
    bool io = (threads & REPLICA_THREAD_IO) && r->io_joinable;
    bool sql = (threads & REPLICA_THREAD_SQL) && r->sql_joinable;
    bool was = ((threads & REPLICA_THREAD_IO) && r->io_state != REPLICA_IO_STOPPED) ||
               ((threads & REPLICA_THREAD_SQL) && r->sql_state != REPLICA_SQL_STOPPED);
    if (note)
        *note = was ? 0 : 1255;
    if (io) {
        r->io_stop = true;
        if (r->conn) /* wakes a read in progress; the IO thread closes the connection itself */
            shutdown(mysql_get_socket(r->conn), SHUT_RDWR);
        pthread_cond_broadcast(&r->io_cond);
    }
    if (sql) {
        r->sql_stop = true;
        pthread_cond_broadcast(&r->sql_cond);
    }
    pthread_mutex_unlock(&r->mu);
    if (io) {
        pthread_join(r->io_tid, NULL);
        r->io_joinable = false;
    }
    if (sql) {
        pthread_join(r->sql_tid, NULL);
        r->sql_joinable = false;
    }
}

int replica_stop(replica_t *r, unsigned threads, int *note)
{
    pthread_mutex_lock(&r->admin);
    stop_locked(r, threads, note);
    pthread_mutex_unlock(&r->admin);
    return 0;
}

int replica_change(replica_t *r, const replica_config_t *c, uint32_t set)
{
    pthread_mutex_lock(&r->admin);
    join_finished(r);
    int rc = 0;
    if (any_running(r)) {
        rc = 1198;
        goto out;
    }
    replica_config_t *d = &r->cfg;
    replica_config_t old = *d;
    if (!r->configured)
        config_default(d);
#define TAKE(bit, f) if (set & (bit)) memcpy(&d->f, &c->f, sizeof d->f)
    TAKE(REPLICA_SET_HOST, host); TAKE(REPLICA_SET_PORT, port); TAKE(REPLICA_SET_USER, user);
    TAKE(REPLICA_SET_PASSWORD, password); TAKE(REPLICA_SET_USE_GTID, use_gtid);
    TAKE(REPLICA_SET_LOG_FILE, log_file); TAKE(REPLICA_SET_LOG_POS, log_pos);
    TAKE(REPLICA_SET_CONNECT_RETRY, connect_retry); TAKE(REPLICA_SET_HEARTBEAT, heartbeat_ms);
    TAKE(REPLICA_SET_SSL, ssl); TAKE(REPLICA_SET_SSL_VERIFY, ssl_verify); TAKE(REPLICA_SET_SSL_CA, ssl_ca);
    TAKE(REPLICA_SET_SSL_CAPATH, ssl_capath); TAKE(REPLICA_SET_SSL_CERT, ssl_cert);
    TAKE(REPLICA_SET_SSL_KEY, ssl_key); TAKE(REPLICA_SET_SSL_CIPHER, ssl_cipher);
    TAKE(REPLICA_SET_SSL_CRL, ssl_crl); TAKE(REPLICA_SET_SSL_CRLPATH, ssl_crlpath);
    TAKE(REPLICA_SET_DELAY, delay); TAKE(REPLICA_SET_IGNORE_SERVER_IDS, ignore_server_ids);
    TAKE(REPLICA_SET_DO_DOMAIN_IDS, do_domain_ids); TAKE(REPLICA_SET_IGNORE_DOMAIN_IDS, ignore_domain_ids);
#undef TAKE
    bool new_pos = (set & (REPLICA_SET_LOG_FILE | REPLICA_SET_LOG_POS)) != 0;
    if (new_pos && !(set & REPLICA_SET_USE_GTID))
        d->use_gtid = REPLICA_GTID_NO; /* MASTER_LOG_FILE/POS mean file/position mode, as in MariaDB */
    const char *bad = d->do_domain_ids.n && d->ignore_domain_ids.n
                          ? "Both DO_DOMAIN_IDS & IGNORE_DOMAIN_IDS lists can't be non-empty at the same time"
                      : (d->do_domain_ids.n || d->ignore_domain_ids.n) && d->use_gtid == REPLICA_GTID_NO
                          ? "DO_DOMAIN_IDS or IGNORE_DOMAIN_IDS lists can't be non-empty in non-GTID mode "
                            "(MASTER_USE_GTID=no)"
                          : NULL;
    if (bad) { /* MariaDB's answer: 1201 and the reason in the error log */
        log_error("%s", bad);
        *d = old;
        rc = 1201;
        goto out;
    }
    if ((set & (REPLICA_SET_HOST | REPLICA_SET_PORT)) && !new_pos) {
        d->log_file[0] = 0; /* another source: its files start over */
        d->log_pos = 4;
        new_pos = true;
    }
    if (new_pos) { /* the applied file position restarts at the new one; queued events are of the old */
        pthread_mutex_lock(&r->mu);
        queue_clear(r);
        r->exec_file[0] = 0;
        r->exec_pos = 0;
        pthread_mutex_unlock(&r->mu);
        if (r->ops.save_pos(r->ops.arg, &r->slave_pos, "", 0) != 0)
            rc = 1201;
    }
    r->configured = d->host[0] != 0;
    if (info_save(r) != 0)
        rc = 1201;
out:
    pthread_mutex_unlock(&r->admin);
    return rc;
}

int replica_reset(replica_t *r, bool all)
{
    pthread_mutex_lock(&r->admin);
    join_finished(r);
    int rc = 0;
    if (any_running(r)) {
        rc = 1198;
        goto out;
    }
    pthread_mutex_lock(&r->mu);
    queue_clear(r);
    r->exec_file[0] = 0;
    r->exec_pos = 0;
    r->io_file[0] = 0;
    r->io_pos = 4;
    r->last_io_errno = r->last_sql_errno = 0;
    r->last_io_error[0] = r->last_sql_error[0] = 0;
    r->master_server_id = 0;
    if (r->configured) {
        r->cfg.log_file[0] = 0;
        r->cfg.log_pos = 4;
    }
    pthread_mutex_unlock(&r->mu);
    if (r->ops.save_pos(r->ops.arg, &r->slave_pos, "", 0) != 0)
        rc = 1201;
    if (all) {
        r->configured = false;
        config_default(&r->cfg);
    }
    if (info_save(r) != 0)
        rc = 1201;
out:
    pthread_mutex_unlock(&r->admin);
    return rc;
}

void replica_gtid_slave_pos(replica_t *r, binlog_gtid_set_t *out)
{
    pthread_mutex_lock(&r->mu);
    binlog_gtid_set_copy(out, &r->slave_pos);
    pthread_mutex_unlock(&r->mu);
}

int replica_set_gtid_slave_pos(replica_t *r, const binlog_gtid_set_t *pos)
{
    pthread_mutex_lock(&r->admin);
    join_finished(r);
    int rc = 0;
    if (any_running(r)) {
        rc = 1198;
    } else if (r->ops.save_pos(r->ops.arg, pos, r->exec_file, r->exec_pos) != 0) {
        rc = -1;
    } else {
        pthread_mutex_lock(&r->mu);
        binlog_gtid_set_free(&r->slave_pos);
        binlog_gtid_set_copy(&r->slave_pos, pos);
        queue_clear(r); /* what was received was chosen by the old position */
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_unlock(&r->admin);
    return rc;
}

void replica_status(replica_t *r, replica_status_t *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&r->mu);
    st->configured = r->configured;
    st->cfg = r->cfg;
    st->io_state = r->io_state == REPLICA_IO_STOPPED ? "" : r->io_step;
    st->io_running = r->io_state == REPLICA_IO_RUNNING ? "Yes" : r->io_state == REPLICA_IO_CONNECTING ? "Connecting" : "No";
    st->sql_running = r->sql_state == REPLICA_SQL_RUNNING;
    snprintf(st->master_log_file, sizeof st->master_log_file, "%s", r->io_file);
    st->read_master_log_pos = r->io_pos ? r->io_pos : 4;
    snprintf(st->exec_log_file, sizeof st->exec_log_file, "%s", r->exec_file);
    st->exec_master_log_pos = r->exec_pos ? r->exec_pos : 4;
    st->queued_bytes = r->queued_bytes;
    st->last_io_errno = r->last_io_errno;
    st->last_sql_errno = r->last_sql_errno;
    snprintf(st->last_io_error, sizeof st->last_io_error, "%s", r->last_io_error);
    snprintf(st->last_sql_error, sizeof st->last_sql_error, "%s", r->last_sql_error);
    st->master_server_id = r->master_server_id;
    pos_format(&r->io_gtid, st->gtid_io_pos, sizeof st->gtid_io_pos);
    st->ddl_groups = r->ddl_groups;
    st->nontrans_groups = r->nontrans_groups;
    st->trans_groups = r->trans_groups;
    /* Lag: the source's commit time of the group being applied (or of the oldest queued one).  Caught up with
     * a live source it is 0; caught up with a source that is not answering (disconnected, or connected but
     * silent for two heartbeat periods) it is the time since the source was last heard from (the events it may
     * have meanwhile are unknown, so never 0). */
    uint64_t now_us = time_wall_us();
    uint64_t silent_us = r->last_heard_us ? now_us - MIN(now_us, r->last_heard_us) : 0;
    bool live = r->io_state == REPLICA_IO_RUNNING &&
                (!r->cfg.heartbeat_ms || silent_us <= (uint64_t)r->cfg.heartbeat_ms * 2000u);
    int64_t lag_ms = -1;
    if (st->sql_running) {
        uint32_t when = r->sql_busy && !r->par ? r->busy_when : r->head ? r->head->when : 0; /* par: the oldest */
        if (when)
            lag_ms = (int64_t)(now_us / 1000) - (int64_t)when * 1000 - r->clock_diff * 1000;
        else if (live)
            lag_ms = 0;
        else
            lag_ms = (int64_t)(silent_us / 1000);
        if (lag_ms < 0)
            lag_ms = 0;
    }
    st->seconds_behind = lag_ms < 0 ? -1 : lag_ms / 1000;
    st->lag_ms = lag_ms < 0 ? 0 : (uint64_t)lag_ms;
    st->sql_state = !st->sql_running     ? ""
                    : r->delay_until_us  ? "Waiting until MASTER_DELAY seconds after master executed event"
                    : r->sql_busy        ? "Reading event from the relay log"
                                         : "Slave has read all relay log; waiting for more updates";
    st->remaining_delay = r->delay_until_us && st->sql_running
                              ? (int64_t)((r->delay_until_us - MIN(r->delay_until_us, now_us) + 999999) / 1000000)
                              : -1;
    st->until_condition = r->until.kind == REPLICA_UNTIL_GTID ? "Gtid" : r->until.kind == REPLICA_UNTIL_MASTER ? "Master" : "None";
    snprintf(st->until_log_file, sizeof st->until_log_file, "%s", r->until.log_file);
    st->until_log_pos = r->until.log_pos;
    st->semi_sync = r->semi && r->io_state == REPLICA_IO_RUNNING;
    st->acks_sent = r->acks_sent;
    st->heartbeats = r->heartbeats;
    st->retried = r->retried;
    st->executed = r->executed;
    st->workers = r->par ? r->nworkers : 0;
    pthread_mutex_unlock(&r->mu);
}

/* ---------------------------------------------------------------- open / close */

int replica_open(const char *datadir, uint32_t server_id, const replica_apply_ops_t *ops, bool skip_start,
                 replica_t **out)
{
    replica_t *r = mem_calloc(1, sizeof *r);
    r->datadir = mem_strdup(datadir);
    r->server_id = server_id;
    r->ops = *ops;
    pthread_mutex_init(&r->admin, NULL);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->io_cond, NULL);
    pthread_cond_init(&r->sql_cond, NULL);
    config_default(&r->cfg);
    r->io_pos = 4;
    r->wake[0] = r->wake[1] = -1;
    if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        log_error("replica: pipe: %s", strerror(errno));
        replica_close(r);
        return -1;
    }
    mysql_library_init(0, NULL, NULL);
    int rc = info_load(r);
    if (rc == 0)
        rc = ops->load_pos(ops->arg, &r->slave_pos, r->exec_file, sizeof r->exec_file, &r->exec_pos);
    if (rc) {
        replica_close(r);
        return -1;
    }
    *out = r;
    if (r->configured && !skip_start) {
        int note;
        if (replica_start(r, REPLICA_THREAD_BOTH, NULL, &note) != 0)
            log_error("replica: the replication threads could not be started");
    }
    return 0;
}

void replica_close(replica_t *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->admin);
    stop_locked(r, REPLICA_THREAD_BOTH, NULL);
    join_finished(r);
    pthread_mutex_unlock(&r->admin);
    queue_clear(r);
    binlog_gtid_set_free(&r->io_gtid);
    binlog_gtid_set_free(&r->slave_pos);
    binlog_gtid_set_free(&r->until.gtid);
    for (int i = 0; i < 2; i++)
        if (r->wake[i] >= 0)
            close(r->wake[i]);
    pthread_mutex_destroy(&r->admin);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->io_cond);
    pthread_cond_destroy(&r->sql_cond);
    mem_free(r->datadir);
    mem_free(r);
    mysql_library_end();
}
