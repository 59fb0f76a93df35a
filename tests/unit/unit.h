/*
 * A unit-test harness in one header.  Each tests/unit/test_*.c defines tests with TEST(name) { ... } and ends
 * with UNIT_MAIN(test_a, test_b, ...).  CHECK(x) records a failure and goes on; REQUIRE(x) stops that test.
 * SKIP("why") ends a test that cannot run here (a tool not installed); it counts as skipped, never as passed.
 * The binary prints one line per failing check and ends with "N passed, N failed, N skipped"; it exits non-zero
 * on failure.
 */
#ifndef STRATA_UNIT_H
#define STRATA_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failed_checks;
static int unit_skipped_now __attribute__((unused));

#define SKIP(why)                                                                  \
    do {                                                                           \
        printf("SKIP %s: %s\n", __func__, why);                                    \
        unit_skipped_now = 1;                                                      \
        return;                                                                    \
    } while (0)

/* A fresh data directory under /tmp (dir: at least 32 bytes), and its removal with everything in it. */
static inline void unit_mkdatadir(char *dir)
{
    strcpy(dir, "/tmp/strata_unit_XXXXXX");
    if (!mkdtemp(dir))
        abort();
}

static inline void unit_rmdatadir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

#define TEST(name) static void name(void)
#define CHECK(x)                                                                   \
    do {                                                                           \
        if (!(x)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #x);  \
            unit_failed_checks++;                                                  \
        }                                                                          \
    } while (0)
#define REQUIRE(x)                                                                 \
    do {                                                                           \
        if (!(x)) {                                                                \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #x);\
            unit_failed_checks++;                                                  \
            return;                                                                \
        }                                                                          \
    } while (0)
#define CHECK_EQ_INT(a, b)                                                                          \
    do {                                                                                            \
        long long _a = (long long)(a), _b = (long long)(b);                                         \
        if (_a != _b) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
                    #a, #b, _a, _b);                                                                \
            unit_failed_checks++;                                                                   \
        }                                                                                           \
    } while (0)
#define CHECK_EQ_STR(a, b)                                                                               \
    do {                                                                                                 \
        const char *_a = (a), *_b = (b);                                                                 \
        if (!_a || !_b || strcmp(_a, _b) != 0) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__, __LINE__,   \
                    #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");                                     \
            unit_failed_checks++;                                                                        \
        }                                                                                                \
    } while (0)

typedef struct {
    const char *name;
    void (*fn)(void);
} unit_case_t;

#define UNIT_CASE(f) {#f, f},
#define UNIT_MAIN(...)                                                                      \
    int main(int argc, char **argv)                                                         \
    {                                                                                       \
        void (*fns[])(void) = {__VA_ARGS__};                                                \
        const char *names = #__VA_ARGS__;                                                   \
        int passed = 0, failed = 0, skipped = 0;                                            \
        size_t n = sizeof fns / sizeof fns[0];                                              \
        const char *p = names;                                                              \
        for (size_t i = 0; i < n; i++) {                                                    \
            while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t')                      \
                p++;                                                                        \
            const char *e = p;                                                              \
            while (*e && *e != ',')                                                         \
                e++;                                                                        \
            int len = (int)(e - p);                                                         \
            if (argc > 1 && (strlen(argv[1]) != (size_t)len || strncmp(argv[1], p, len))) { \
                p = e;                                                                      \
                continue;                                                                   \
            }                                                                               \
            int before = unit_failed_checks;                                                \
            unit_skipped_now = 0;                                                           \
            fns[i]();                                                                       \
            if (unit_failed_checks == before && unit_skipped_now) {                         \
                skipped++;                                                                  \
            } else if (unit_failed_checks == before) {                                      \
                passed++;                                                                   \
            } else {                                                                        \
                failed++;                                                                   \
                fprintf(stderr, "FAIL %.*s\n", len, p);                                     \
            }                                                                               \
            p = e;                                                                          \
        }                                                                                   \
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);              \
        return failed ? 1 : 0;                                                              \
    }

#endif
