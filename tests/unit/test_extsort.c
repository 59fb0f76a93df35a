/*
 * Unit tests of the external sort (sql/exec/extsort.h): random records against a reference sort, several runs and
 * intermediate merge passes, stability with ties, keys built by the executor's key_append_value (ASC / DESC,
 * NULLs), temporary files unlinked at once, errors from a bad tmpdir.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql/exec/exec_int.h"
#include "sql/exec/extsort.h"
#include "unit.h"
#include "util/util.h"

typedef struct ref {
    uint8_t key[24];
    size_t klen;
    uint64_t seq;
} ref_t;

static int ref_cmp(const void *a, const void *b)
{
    const ref_t *x = a, *y = b;
    int c = memcmp(x->key, y->key, MIN(x->klen, y->klen));
    if (c)
        return c;
    if (x->klen != y->klen)
        return x->klen < y->klen ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq; /* stable: added order */
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static char tmpdir[64];

static void make_tmpdir(void)
{
    if (!tmpdir[0]) {
        strcpy(tmpdir, "/tmp/test-extsort-XXXXXX");
        if (!mkdtemp(tmpdir))
            abort();
    }
}

static int dir_entries(const char *d)
{
    DIR *dir = opendir(d);
    int n = 0;
    if (!dir)
        return -1;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(dir);
    return n;
}

/* Adds n random records (keys from an alphabet of `alpha` byte values, 0..maxk bytes), sorts them with the
 * given budget and compares with qsort by (key, added order).  Returns the sorter's merge passes. */
static uint64_t run_random(uint64_t n, int alpha, int maxk, size_t budget, bool *spilled, uint64_t *runs)
{
    make_tmpdir();
    ref_t *ref = mem_alloc(sizeof *ref * n);
    extsort_t s;
    extsort_init(&s, budget, tmpdir);
    for (uint64_t i = 0; i < n; i++) {
        ref[i].klen = (size_t)(rnd() % (uint64_t)(maxk + 1));
        for (size_t k = 0; k < ref[i].klen; k++)
            ref[i].key[k] = (uint8_t)('a' + rnd() % (uint64_t)alpha);
        ref[i].seq = i;
        /* payload: the sequence number and some filler of varying length */
        uint8_t pay[40];
        memcpy(pay, &i, 8);
        size_t pl = 8 + (size_t)(i % 32);
        memset(pay + 8, (int)(i & 0xff), pl - 8);
        if (extsort_add(&s, ref[i].key, ref[i].klen, pay, pl) != 0) {
            CHECK(!"extsort_add failed");
            break;
        }
    }
    CHECK_EQ_INT(s.rows, n);
    CHECK_EQ_INT(extsort_finish(&s), 0);
    *spilled = extsort_spilled(&s);
    *runs = s.runs_written;
    /* every temporary file is unlinked the moment it is made */
    CHECK_EQ_INT(dir_entries(tmpdir), 0);
    qsort(ref, n, sizeof *ref, ref_cmp);
    uint64_t got = 0;
    const uint8_t *k, *p;
    size_t kl, pl;
    int rc;
    bool ok = true;
    while ((rc = extsort_next(&s, &k, &kl, &p, &pl)) == 1) {
        if (got >= n) {
            ok = false;
            break;
        }
        uint64_t seq;
        memcpy(&seq, p, 8);
        if (kl != ref[got].klen || memcmp(k, ref[got].key, kl) != 0 || seq != ref[got].seq ||
            pl != 8 + (size_t)(seq % 32) || (pl > 8 && p[pl - 1] != (uint8_t)(seq & 0xff))) {
            if (ok)
                fprintf(stderr, "mismatch at %llu: seq %llu want %llu\n", (unsigned long long)got,
                        (unsigned long long)seq, (unsigned long long)ref[got].seq);
            ok = false;
        }
        got++;
    }
    CHECK_EQ_INT(rc, 0);
    CHECK(ok);
    CHECK_EQ_INT(got, n);
    CHECK_EQ_INT(extsort_next(&s, &k, &kl, &p, &pl), 0); /* stays at the end */
    uint64_t passes = s.merge_passes;
    extsort_free(&s);
    mem_free(ref);
    return passes;
}

TEST(test_extsort_in_memory)
{
    bool spilled;
    uint64_t runs;
    uint64_t passes = run_random(5000, 26, 8, 64u << 20, &spilled, &runs);
    CHECK(!spilled);
    CHECK_EQ_INT(passes, 0);
    CHECK_EQ_INT(runs, 0);
}

TEST(test_extsort_few_runs)
{
    /* ~50 bytes a record, 32 KB budget: a few runs, one final merge */
    bool spilled;
    uint64_t runs;
    uint64_t passes = run_random(3000, 26, 12, 32768, &spilled, &runs);
    CHECK(spilled);
    CHECK(runs >= 2 && runs <= EXTSORT_MERGE_MAX);
    CHECK_EQ_INT(passes, 1);
}

TEST(test_extsort_many_runs)
{
    /* hundreds of runs: intermediate passes of EXTSORT_FANIN, then the final merge */
    bool spilled;
    uint64_t runs;
    uint64_t passes = run_random(60000, 26, 16, 16384, &spilled, &runs);
    CHECK(spilled);
    CHECK(runs > 100);
    CHECK(passes > 10);
}

TEST(test_extsort_ties_stable)
{
    /* an alphabet of 2 and keys of 0..2 bytes: 7 distinct keys over 20000 records, spilled */
    bool spilled;
    uint64_t runs;
    run_random(20000, 2, 2, 8192, &spilled, &runs);
    CHECK(spilled);
    CHECK(runs > EXTSORT_MERGE_MAX); /* ties also cross intermediate passes */
}

TEST(test_extsort_empty_and_one)
{
    make_tmpdir();
    extsort_t s;
    const uint8_t *k, *p;
    size_t kl, pl;
    extsort_init(&s, 1 << 20, tmpdir);
    CHECK_EQ_INT(extsort_finish(&s), 0);
    CHECK_EQ_INT(extsort_next(&s, &k, &kl, &p, &pl), 0);
    extsort_free(&s);
    /* a record larger than the whole budget still goes through (alone in its run) */
    extsort_init(&s, EXTSORT_MIN_BUDGET, tmpdir);
    size_t big = 3 * EXTSORT_MIN_BUDGET;
    uint8_t *b = mem_alloc(big);
    memset(b, 'x', big);
    CHECK_EQ_INT(extsort_add(&s, "b", 1, b, big), 0);
    CHECK_EQ_INT(extsort_add(&s, "a", 1, "small", 5), 0);
    CHECK_EQ_INT(extsort_add(&s, "c", 1, b, big), 0);
    CHECK_EQ_INT(extsort_finish(&s), 0);
    CHECK(extsort_spilled(&s));
    CHECK_EQ_INT(extsort_next(&s, &k, &kl, &p, &pl), 1);
    CHECK(kl == 1 && k[0] == 'a' && pl == 5 && memcmp(p, "small", 5) == 0);
    CHECK_EQ_INT(extsort_next(&s, &k, &kl, &p, &pl), 1);
    CHECK(kl == 1 && k[0] == 'b' && pl == big && p[big - 1] == 'x');
    CHECK_EQ_INT(extsort_next(&s, &k, &kl, &p, &pl), 1);
    CHECK(kl == 1 && k[0] == 'c' && pl == big);
    CHECK_EQ_INT(extsort_next(&s, &k, &kl, &p, &pl), 0);
    extsort_free(&s);
    mem_free(b);
}

TEST(test_extsort_bad_tmpdir)
{
    extsort_t s;
    extsort_init(&s, EXTSORT_MIN_BUDGET, "/nonexistent/strata-test-dir");
    char pay[100];
    memset(pay, 'p', sizeof pay);
    int rc = 0;
    for (int i = 0; i < 1000 && rc == 0; i++)
        rc = extsort_add(&s, &i, sizeof i, pay, sizeof pay);
    CHECK(rc < 0);
    CHECK_EQ_INT(s.state, EXTSORT_FAILED);
    CHECK_EQ_INT(extsort_finish(&s), rc); /* the error sticks */
    extsort_free(&s);
}

/* Keys as the executor builds them: (a ASC, b DESC) with NULLs, integers and strings, spilled. */
TEST(test_extsort_sql_keys)
{
    make_tmpdir();
    enum { N = 20000 };
    extsort_t s;
    extsort_init(&s, 8192, tmpdir);
    static int64_t av[N], bv[N];
    static bool an[N], bn[N];
    for (uint32_t i = 0; i < N; i++) {
        an[i] = rnd() % 10 == 0;
        bn[i] = rnd() % 7 == 0;
        av[i] = (int64_t)(rnd() % 50) - 25;
        bv[i] = (int64_t)(rnd() % 1000) - 500;
        value_t a = an[i] ? value_null() : value_int(av[i]);
        value_t b = bn[i] ? value_null() : value_int(bv[i]);
        buf_t k;
        buf_init(&k);
        key_append_value(&k, &a, false);
        key_append_value(&k, &b, true);
        REQUIRE(extsort_add(&s, k.data, k.len, &i, sizeof i) == 0);
        buf_free(&k);
    }
    REQUIRE(extsort_finish(&s) == 0);
    CHECK(extsort_spilled(&s));
    const uint8_t *k, *p;
    size_t kl, pl;
    uint32_t prev = UINT32_MAX, n = 0;
    bool ok = true;
    while (extsort_next(&s, &k, &kl, &p, &pl) == 1) {
        uint32_t i;
        memcpy(&i, p, 4);
        if (prev != UINT32_MAX) {
            /* a ASC, NULL first */
            int ca = an[prev] && an[i] ? 0 : an[prev] ? -1 : an[i] ? 1 : (av[prev] > av[i]) - (av[prev] < av[i]);
            /* b DESC, NULL last */
            int cb = bn[prev] && bn[i] ? 0 : bn[prev] ? 1 : bn[i] ? -1 : (bv[prev] < bv[i]) - (bv[prev] > bv[i]);
            int c = ca ? ca : cb;
            if (c > 0 || (c == 0 && prev > i)) {
                if (ok)
                    fprintf(stderr, "order broken at %u: rows %u then %u\n", n, prev, i);
                ok = false;
            }
        }
        prev = i;
        n++;
    }
    CHECK(ok);
    CHECK_EQ_INT(n, N);
    extsort_free(&s);
}

/* Strings under a case-insensitive collation sort (and tie) case-insensitively; DESC reverses. */
TEST(test_extsort_sql_strings)
{
    make_tmpdir();
    const char *words[] = {"b", "A", "a", "B", "ab", "Ab", "", "c"};
    for (int desc = 0; desc < 2; desc++) {
        extsort_t s;
        extsort_init(&s, 1 << 20, tmpdir);
        for (uint32_t i = 0; i < ARRAY_LEN(words); i++) {
            value_t v = value_str(words[i], strlen(words[i]), COLL_UTF8MB4_GENERAL_CI);
            buf_t k;
            buf_init(&k);
            key_append_value(&k, &v, desc);
            CHECK_EQ_INT(extsort_add(&s, k.data, k.len, words[i], strlen(words[i])), 0);
            buf_free(&k);
        }
        REQUIRE(extsort_finish(&s) == 0);
        char out[64] = "";
        const uint8_t *k, *p;
        size_t kl, pl;
        while (extsort_next(&s, &k, &kl, &p, &pl) == 1) {
            strncat(out, (const char *)p, pl);
            strcat(out, ",");
        }
        CHECK_EQ_STR(out, desc ? "c,b,B,ab,Ab,A,a,," : ",A,a,ab,Ab,b,B,c,");
        extsort_free(&s);
    }
}

static void cleanup(void)
{
    if (tmpdir[0])
        rmdir(tmpdir);
}

static void test_extsort_cleanup(void)
{
    cleanup();
}

UNIT_MAIN(test_extsort_in_memory, test_extsort_few_runs, test_extsort_many_runs, test_extsort_ties_stable,
          test_extsort_empty_and_one, test_extsort_bad_tmpdir, test_extsort_sql_keys, test_extsort_sql_strings,
          test_extsort_cleanup)
