/*
 * strata-binlog: an operator's dumper for binlog files, plain or compressed by strata (seekable zstd).
 *   strata-binlog FILE...                 one line per event, as SHOW BINLOG EVENTS prints them
 *   strata-binlog --gtids FILE...         the GTID list at the head and every GTID with its position
 *   strata-binlog --start-position=N FILE
 *   strata-binlog --decompress=OUT FILE   writes the plain binlog (for mariadb-binlog --verbose OUT)
 * Every event's CRC is checked; a corrupt event stops the dump with an error naming file and position (exit 2).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binlog/binlog.h"
#include "util/util.h"

static int dump(const char *path, uint64_t start, bool gtids_only)
{
    binlog_reader_t *r;
    int rc = binlog_reader_open_path(path, start, &r);
    if (rc) {
        fprintf(stderr, "strata-binlog: %s\n", binlog_reader_error(r));
        binlog_reader_close(r);
        return 2;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    buf_t info;
    buf_init(&info);
    binlog_event_t ev;
    int k;
    if (!gtids_only)
        printf("Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo\n");
    while ((k = binlog_reader_next(r, &ev)) > 0) {
        info.len = 0;
        binlog_event_info(&ev, &info);
        buf_append_byte(&info, 0);
        if (gtids_only) {
            if (ev.type == BINLOG_EV_GTID_LIST)
                printf("%s\t%llu\tGtid_list\t%s\n", name, (unsigned long long)ev.pos, (char *)info.data);
            else if (ev.type == BINLOG_EV_GTID)
                printf("%s\t%llu\t%s\n", name, (unsigned long long)ev.pos, (char *)info.data);
            continue;
        }
        printf("%s\t%llu\t%s\t%u\t%u\t%s\n", name, (unsigned long long)ev.pos, binlog_event_type_name(ev.type),
               ev.server_id, ev.next_pos, (char *)info.data);
    }
    buf_free(&info);
    if (k < 0)
        fprintf(stderr, "strata-binlog: %s\n", binlog_reader_error(r));
    binlog_reader_close(r);
    return k < 0 ? 2 : 0;
}

/* Plain bytes of a (possibly compressed) binlog, through the reader's event stream. */
static int decompress(const char *path, const char *out)
{
    binlog_reader_t *r;
    if (binlog_reader_open_path(path, 4, &r)) {
        fprintf(stderr, "strata-binlog: %s\n", binlog_reader_error(r));
        binlog_reader_close(r);
        return 2;
    }
    FILE *fo = fopen(out, "wb");
    if (!fo) {
        perror(out);
        binlog_reader_close(r);
        return 2;
    }
    static const uint8_t magic[4] = {0xfe, 'b', 'i', 'n'};
    fwrite(magic, 1, 4, fo);
    binlog_event_t ev;
    int k;
    while ((k = binlog_reader_next(r, &ev)) > 0)
        fwrite(ev.data, 1, ev.size, fo);
    if (k < 0)
        fprintf(stderr, "strata-binlog: %s\n", binlog_reader_error(r));
    fclose(fo);
    binlog_reader_close(r);
    return k < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
    bool gtids = false;
    uint64_t start = 4;
    const char *out = NULL;
    int i = 1, rc = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--gtids"))
            gtids = true;
        else if (!strncmp(argv[i], "--start-position=", 17))
            start = strtoull(argv[i] + 17, NULL, 10);
        else if (!strncmp(argv[i], "--decompress=", 13))
            out = argv[i] + 13;
        else {
            fprintf(stderr, "usage: strata-binlog [--gtids] [--start-position=N] [--decompress=OUT] FILE...\n");
            return 1;
        }
    }
    if (i == argc) {
        fprintf(stderr, "usage: strata-binlog [--gtids] [--start-position=N] [--decompress=OUT] FILE...\n");
        return 1;
    }
    for (; i < argc; i++) {
        int r = out ? decompress(argv[i], out) : dump(argv[i], start, gtids);
        if (r)
            rc = r;
    }
    return rc;
}
