/*
 * libFuzzer target for the catalog's records as they come out of the system tree (access/catalog.c draws the
 * formats): a table record, or the note a DDL or account statement leaves while its binlog event is owed
 * (commit/commit.c), or a view record (access/view.c), or a trigger record (access/trigger.c), or an event
 * record (access/event.c).  The first input byte chooses which.  A table record that decodes is then read the way the
 * executor reads a definition: every column and its enum/set elements, every index and the columns it names
 * (which must exist), the primary key and the AUTO_INCREMENT column, so a decoder that lets an index name a
 * column past the end shows up as an ASan report.
 */
#include <stdint.h>
#include <string.h>

#include "access/catalog.h"
#include "access/event.h"
#include "access/trigger.h"
#include "access/view.h"
#include "commit/commit.h"
#include "util/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    log_open("/dev/null");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1) {
        sql_commit_ddl_note_check(data + 1, size - 1);
        return 0;
    }
    if (data[0] & 8) { /* every string of an event record that decodes is read to its end */
        arena_t a;
        arena_init(&a, 1024);
        cat_event_t e;
        if (catalog_event_decode(&a, data + 1, size - 1, &e) == 0) {
            volatile size_t n = strlen(e.db) + strlen(e.name) + strlen(e.definer_user) + strlen(e.definer_host) +
                                strlen(e.time_zone) + strlen(e.body) + strlen(e.interval_value) +
                                strlen(e.interval_field) + strlen(e.status) + strlen(e.comment) + strlen(e.sql_mode) +
                                strlen(e.client_cs) + strlen(e.conn_coll) + strlen(e.db_coll);
            (void)n;
        }
        arena_destroy(&a);
        return 0;
    }
    if (data[0] & 4) { /* every string of a trigger record that decodes is read to its end */
        arena_t a;
        arena_init(&a, 1024);
        cat_trigger_t t;
        if (catalog_trigger_decode(&a, data + 1, size - 1, &t) == 0) {
            volatile size_t n = strlen(t.db) + strlen(t.name) + strlen(t.table) + strlen(t.event) +
                                strlen(t.timing) + strlen(t.order) + strlen(t.create_text) + strlen(t.body) +
                                strlen(t.body_line);
            (void)n;
        }
        arena_destroy(&a);
        return 0;
    }
    if (data[0] & 2) { /* every string of a view that decodes is read to its end */
        arena_t a;
        arena_init(&a, 1024);
        cat_view_t v;
        if (catalog_view_decode(&a, data + 1, size - 1, &v) == 0) {
            volatile size_t n = strlen(v.db) + strlen(v.name) + strlen(v.text) + strlen(v.definer_user);
            for (uint32_t i = 0; i < v.ncols; i++)
                n += strlen(v.cols[i]);
            (void)n;
        }
        arena_destroy(&a);
        return 0;
    }
    cat_table_t *t = catalog_table_from_record(data + 1, size - 1);
    if (!t)
        return 0;
    volatile size_t sink = strlen(t->db) + strlen(t->name);
    for (uint32_t i = 0; i < t->ncols; i++) {
        sink += strlen(t->cols[i].name);
        (void)cat_table_col(t, t->cols[i].name);
    }
    for (uint32_t i = 0; i < t->nidx; i++) {
        sink += strlen(t->idx[i].name);
        for (uint32_t k = 0; k < t->idx[i].ncols; k++)
            sink += strlen(t->cols[t->idx[i].cols[k].col].name);
    }
    (void)cat_table_pk(t);
    int ai = cat_table_autoinc_col(t);
    if (ai >= 0)
        sink += t->cols[ai].display_width;
    (void)sink;
    catalog_table_release(t);
    return 0;
}
