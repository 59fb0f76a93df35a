/* monitor/digest: rows per (schema, text), sums, min/max, quantiles, the capacity and its lost row, TRUNCATE,
 * and concurrent recorders of the same and of different digests. */
#include <pthread.h>

#include "monitor/digest.h"
#include "unit.h"

typedef struct found {
    int n;
    digest_row_t rows[64];
    char texts[64][64];
} found_t;

static void collect(void *arg, const digest_row_t *r)
{
    found_t *f = arg;
    if (f->n < 64) {
        f->rows[f->n] = *r;
        snprintf(f->texts[f->n], sizeof f->texts[0], "%s", r->text ? r->text : "(lost)");
        f->n++;
    }
}

static const digest_row_t *row_of(found_t *f, const char *text)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->texts[i], text) == 0)
            return &f->rows[i];
    return NULL;
}

static void rec(const char *schema, const char *text, uint64_t us, uint64_t errors);

static void ensure_init(void)
{
    static bool done;
    if (!done)
        digest_init(5); /* 5 rows: 4 digests and the lost row */
    done = true;
}

static void rec(const char *schema, const char *text, uint64_t us, uint64_t errors)
{
    digest_stmt_t s = {.schema = schema, .text = text, .text_len = strlen(text), .timer_ps = us * 1000000,
                       .now_us = 1000 + us};
    s.sums[DIGEST_SUM_ERRORS] = errors;
    s.sums[DIGEST_SUM_ROWS_SENT] = 1;
    digest_record(&s);
}

TEST(test_rows_and_sums)
{
    ensure_init();
    digest_truncate();
    for (int i = 1; i <= 100; i++)
        rec("d1", "SELECT ? ", (uint64_t)i, i == 7);
    rec("d2", "SELECT ? ", 5, 0);
    rec(NULL, "SELECT ? ", 5, 0);
    found_t f = {0};
    digest_scan(collect, &f);
    CHECK_EQ_INT(f.n, 3);
    const digest_row_t *r = NULL;
    for (int i = 0; i < f.n; i++)
        if (f.rows[i].schema && strcmp(f.rows[i].schema, "d1") == 0)
            r = &f.rows[i];
    REQUIRE(r);
    CHECK_EQ_INT(r->count, 100);
    CHECK_EQ_INT(r->sum_ps, 5050ull * 1000000);
    CHECK_EQ_INT(r->min_ps, 1000000);
    CHECK_EQ_INT(r->max_ps, 100000000);
    CHECK_EQ_INT(r->sums[DIGEST_SUM_ERRORS], 1);
    CHECK_EQ_INT(r->sums[DIGEST_SUM_ROWS_SENT], 100);
    /* p95 of 1..100 us is 95 us: its bucket [88, 104) ends at 104, within 19% */
    CHECK(r->p95_ps >= 95000000 && r->p95_ps <= 95000000 * 12 / 10);
    CHECK(r->p99_ps >= 99000000 && r->p99_ps <= 100000000);
    CHECK_EQ_INT(r->first_seen_us, 1001);
    CHECK_EQ_INT(r->last_seen_us, 1100);
    CHECK_EQ_INT(strlen(r->digest), 32);
}

TEST(test_capacity_and_lost)
{
    ensure_init();
    digest_truncate();
    uint64_t lost0 = digest_lost();
    char text[32];
    for (int i = 0; i < 10; i++) { /* 4 fit */
        snprintf(text, sizeof text, "SELECT %d ", i);
        rec("d", text, 10, 0);
    }
    rec("d", "SELECT 0 ", 10, 0); /* an existing row still counts */
    CHECK_EQ_INT(digest_used(), 4);
    CHECK_EQ_INT(digest_lost() - lost0, 6);
    found_t f = {0};
    digest_scan(collect, &f);
    CHECK_EQ_INT(f.n, 5);
    const digest_row_t *l = row_of(&f, "(lost)");
    REQUIRE(l);
    CHECK(l->schema == NULL && l->digest == NULL);
    CHECK_EQ_INT(l->count, 6);
    CHECK_EQ_INT(row_of(&f, "SELECT 0 ")->count, 2);
    digest_truncate();
    f.n = 0;
    digest_scan(collect, &f);
    CHECK_EQ_INT(f.n, 0);
    CHECK_EQ_INT(digest_used(), 0);
    CHECK_EQ_INT(digest_lost() - lost0, 6); /* a status counter: TRUNCATE does not reset it */
}

static void *worker(void *arg)
{
    const char *text = arg;
    for (int i = 0; i < 20000; i++)
        rec("d", text, 3, 0);
    return NULL;
}

TEST(test_concurrent)
{
    ensure_init();
    digest_truncate();
    pthread_t th[4];
    const char *texts[4] = {"A ", "A ", "B ", "C "};
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, (void *)texts[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    found_t f = {0};
    digest_scan(collect, &f);
    CHECK_EQ_INT(f.n, 3);
    CHECK_EQ_INT(row_of(&f, "A ")->count, 40000);
    CHECK_EQ_INT(row_of(&f, "B ")->count, 20000);
    CHECK_EQ_INT(row_of(&f, "A ")->sums[DIGEST_SUM_ROWS_SENT], 40000);
}

TEST(test_shutdown)
{
    digest_shutdown();
    rec("d", "A ", 1, 0); /* after shutdown: ignored, not a crash */
    CHECK_EQ_INT(digest_used(), 0);
}

UNIT_MAIN(test_rows_and_sums, test_capacity_and_lost, test_concurrent, test_shutdown)
