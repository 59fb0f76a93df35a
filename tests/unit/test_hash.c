/* The seeded hash (util/hash.h): stable within a process, seeded differently in each process. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "util/hash.h"

TEST(test_same_bytes_same_hash)
{
    CHECK(hash_bytes("abc", 3) == hash_str("abc"));
    CHECK(hash_bytes("abc", 3) == hash_bytes("abcd", 3));
    CHECK(hash_bytes("abc", 3) != hash_bytes("abd", 3));
    CHECK(hash_bytes("", 0) == hash_str(""));
}

/* Two processes hash the same key differently: the seed is drawn per process, so keys chosen to collide in
 * one run do not collide in the next. */
TEST(test_seed_differs_between_processes)
{
    char self[400] = "", cmd[512], a[64] = "", b[64] = "";
    REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
    snprintf(cmd, sizeof cmd, "'%s' print 2>/dev/null", self);
    FILE *f = popen(cmd, "r");
    REQUIRE(f && fgets(a, sizeof a, f));
    pclose(f);
    f = popen(cmd, "r");
    REQUIRE(f && fgets(b, sizeof b, f));
    pclose(f);
    CHECK(strlen(a) > 1);
    CHECK(strcmp(a, b) != 0);
}

static int print_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "print") == 0) {
        printf("%llx\n", (unsigned long long)hash_str("key"));
        return 1;
    }
    return 0;
}

#define main unit_main
UNIT_MAIN(test_same_bytes_same_hash, test_seed_differs_between_processes)
#undef main

int main(int argc, char **argv)
{
    if (print_main(argc, argv))
        return 0;
    return unit_main(argc, argv);
}
