/* Unit tests for util/config: command-line forms, option files (groups, quotes, comments, !include,
 * !includedir), precedence, size suffixes, and error messages that name the option and file:line. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util/config.h"
#include "util/util.h"

static const config_opt_t opts[] = {
    {"port", CONFIG_ARG_REQUIRED, 'P', "Port number", "3306", NULL},
    {"datadir", CONFIG_ARG_REQUIRED, 'h', "Data directory", NULL, NULL},
    {"max_connections", CONFIG_ARG_REQUIRED, 0, "Max connections", "151", NULL},
    {"max_allowed_packet", CONFIG_ARG_REQUIRED, 0, "Max packet", NULL, NULL},
    {"autocommit", CONFIG_ARG_BOOL, 0, "Autocommit", "ON", NULL},
    {"skip_name_resolve", CONFIG_ARG_BOOL, 0, "Don't resolve host names", NULL, NULL},
    {"init_connect", CONFIG_ARG_REQUIRED, 0, "SQL run at connect", NULL, NULL},
    {"log_bin", CONFIG_ARG_OPTIONAL, 0, "Binary log", NULL, NULL},
    {"help", CONFIG_ARG_NONE, '?', "Display this help and exit", NULL, NULL},
    {"version", CONFIG_ARG_NONE, 'V', "Print the version and exit", NULL, NULL},
    {"user", CONFIG_ARG_REQUIRED, 'u', "Run as this user", NULL, NULL},
};
static const char *const groups[] = {"mysqld", "server", "stratad", "mariadb", NULL};

static char dir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static const char *path_of(const char *name)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static int load(config_t *c, int argc, char **argv, const char *const *files)
{
    return config_load(c, argc, argv, opts, ARRAY_LEN(opts), groups, files);
}

static const char *val(const config_t *c, const char *name)
{
    const config_item_t *it = config_get(c, name);
    return it ? (it->value ? it->value : "(none)") : "(missing)";
}

TEST(test_command_line)
{
    char *argv[] = {"stratad", "--port=3307", "--max-connections", "500", "-h/tmp/d", "--skip-name-resolve",
                    "--autocommit=0", "--loose-nonesuch=5", "--log-bin", "-P", "3308", "--enable-autocommit",
                    "--init_connect=SET NAMES utf8mb4", "--help", "-u", "mysql"};
    config_t c;
    REQUIRE(load(&c, ARRAY_LEN(argv), argv, NULL) == 0);
    CHECK_EQ_STR(val(&c, "port"), "3308"); /* last wins */
    CHECK_EQ_STR(val(&c, "max_connections"), "500");
    CHECK_EQ_STR(val(&c, "max-connections"), "500");
    CHECK_EQ_STR(val(&c, "datadir"), "/tmp/d");
    CHECK_EQ_STR(val(&c, "skip_name_resolve"), "ON");
    CHECK_EQ_STR(val(&c, "autocommit"), "ON");
    CHECK_EQ_STR(val(&c, "log_bin"), "(none)");
    CHECK_EQ_STR(val(&c, "init_connect"), "SET NAMES utf8mb4");
    CHECK_EQ_STR(val(&c, "help"), "(none)");
    CHECK_EQ_STR(val(&c, "user"), "mysql");
    CHECK_EQ_STR(val(&c, "version"), "(missing)");
    CHECK_EQ_INT(c.n, 11);
    CHECK_EQ_STR(c.items[0].source, "command line");
    CHECK_EQ_INT(c.nwarnings, 1);
    CHECK_EQ_STR(c.warnings[0], "unknown option '--loose-nonesuch=5' (command line) ignored");
    config_free(&c);

    char *neg[] = {"stratad", "--skip-autocommit", "--disable-log-bin"};
    REQUIRE(load(&c, 3, neg, NULL) == 0);
    CHECK_EQ_STR(val(&c, "autocommit"), "OFF");
    CHECK(config_get(&c, "log_bin")->negated);
    CHECK(config_get(&c, "log_bin")->value == NULL);
    config_free(&c);
}

TEST(test_command_line_errors)
{
    config_t c;
    char *a1[] = {"stratad", "--nonesuch=1"};
    CHECK_EQ_INT(load(&c, 2, a1, NULL), -1);
    CHECK_EQ_STR(c.errmsg, "unknown option '--nonesuch=1' (command line)");
    config_free(&c);
    char *a2[] = {"stratad", "--port"};
    CHECK_EQ_INT(load(&c, 2, a2, NULL), -1);
    CHECK_EQ_STR(c.errmsg, "option '--port' requires an argument (command line)");
    config_free(&c);
    char *a3[] = {"stratad", "--autocommit=maybe"};
    CHECK_EQ_INT(load(&c, 2, a3, NULL), -1);
    CHECK_EQ_STR(c.errmsg, "option '--autocommit=maybe' requires a boolean value (ON, OFF, 1, 0) (command line)");
    config_free(&c);
    char *a4[] = {"stratad", "--help=1"};
    CHECK_EQ_INT(load(&c, 2, a4, NULL), -1);
    CHECK_EQ_STR(c.errmsg, "option '--help=1' does not take an argument (command line)");
    config_free(&c);
    char *a5[] = {"stratad", "-Z"};
    CHECK_EQ_INT(load(&c, 2, a5, NULL), -1);
    CHECK_EQ_STR(c.errmsg, "unknown option '-Z' (command line)");
    config_free(&c);
    char *a6[] = {"stratad", "stray"};
    CHECK_EQ_INT(load(&c, 2, a6, NULL), -1);
    config_free(&c);
    char *a7[] = {"stratad", "--port", "--datadir=/x"};
    CHECK_EQ_INT(load(&c, 3, a7, NULL), -1);
    config_free(&c);
}

TEST(test_files)
{
    snprintf(dir, sizeof dir, "/tmp/strata-test-config-XXXXXX");
    REQUIRE(mkdtemp(dir) != NULL);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/conf.d", dir);
    mkdir(sub, 0700);
    write_file("my.cnf", "# strata test\n"
                         "[client]\n"
                         "port = 1111\n"
                         "nonesuch = ignored in other groups\n"
                         "[mysqld]\n"
                         "port = 3310   # trailing comment\n"
                         "; another comment\n"
                         "  max_connections=200\n"
                         "skip-name-resolve\n"
                         "init-connect = \"SET @a='x # not a comment'\"\n"
                         "datadir = '/var/lib/strata data'\n"
                         "max_allowed_packet = 64M\n"
                         "!include extra.cnf\n"
                         "!includedir conf.d\n"
                         "[stratad]\n"
                         "max_connections = 300\n");
    write_file("extra.cnf", "[server]\nuser = strata\n");
    write_file("conf.d/20-b.cnf", "[mariadb]\nport = 3320\n");
    write_file("conf.d/10-a.cnf", "[mysqld]\nport = 3315\n");
    write_file("conf.d/ignored.txt", "[mysqld]\nport = 9999\n");

    config_t c;
    const char *files[] = {path_of("my.cnf"), path_of("missing.cnf"), NULL};
    char *argv[] = {"stratad", "--max-connections=400"};
    REQUIRE(load(&c, 2, argv, files) == 0);
    CHECK_EQ_STR(val(&c, "port"), "3320"); /* conf.d read in name order after my.cnf's own port */
    CHECK_EQ_STR(val(&c, "max_connections"), "400");
    CHECK_EQ_STR(val(&c, "skip_name_resolve"), "ON");
    CHECK_EQ_STR(val(&c, "init_connect"), "SET @a='x # not a comment'");
    CHECK_EQ_STR(val(&c, "datadir"), "/var/lib/strata data");
    CHECK_EQ_STR(val(&c, "max_allowed_packet"), "64M");
    CHECK_EQ_STR(val(&c, "user"), "strata");
    /* order: files in order, then the command line */
    REQUIRE(c.n == 11);
    CHECK_EQ_STR(c.items[0].name, "port");
    CHECK_EQ_STR(c.items[0].value, "3310");
    char want[600];
    snprintf(want, sizeof want, "%s:6", path_of("my.cnf"));
    CHECK_EQ_STR(c.items[0].source, want);
    CHECK_EQ_STR(c.items[6].name, "user");
    CHECK_EQ_STR(c.items[7].value, "3315");
    CHECK_EQ_STR(c.items[8].value, "3320");
    CHECK_EQ_STR(c.items[9].value, "300");
    CHECK_EQ_STR(c.items[10].source, "command line");
    FILE *f = tmpfile();
    config_print_defaults(&c, "stratad", f);
    rewind(f);
    char line[2048];
    CHECK(fgets(line, sizeof line, f) && strcmp(line, "stratad would have been started with the following arguments:\n") == 0);
    CHECK(fgets(line, sizeof line, f) && strncmp(line, "--port=3310 --max_connections=200 --skip-name-resolve --init-connect=SET @a='x # not a comment' --datadir=/var/lib/strata data", 123) == 0);
    fclose(f);
    config_free(&c);

    /* --defaults-file replaces the list; --no-defaults reads nothing; the extra file comes after */
    write_file("other.cnf", "[mysqld]\nport=4000\n");
    write_file("extra2.cnf", "[mysqld]\nport=4001\n");
    char df[600], xf[600];
    snprintf(df, sizeof df, "--defaults-file=%s", path_of("other.cnf"));
    snprintf(xf, sizeof xf, "--defaults-extra-file=%s", path_of("extra2.cnf"));
    char *a2[] = {"stratad", df};
    REQUIRE(load(&c, 2, a2, files) == 0);
    CHECK_EQ_STR(val(&c, "port"), "4000");
    CHECK_EQ_INT(c.n, 1);
    config_free(&c);
    char *a3[] = {"stratad", "--no-defaults", "--print-defaults"};
    REQUIRE(load(&c, 3, a3, files) == 0);
    CHECK_EQ_INT(c.n, 0);
    CHECK(c.print_defaults);
    config_free(&c);
    char *a4[] = {"stratad", xf};
    REQUIRE(load(&c, 2, a4, files) == 0);
    CHECK_EQ_STR(val(&c, "port"), "4001");
    config_free(&c);
}

TEST(test_file_errors)
{
    REQUIRE(dir[0]);
    config_t c;
    write_file("bad1.cnf", "[mysqld]\nport=1\n\nnonesuch = 5\n");
    const char *f1[] = {path_of("bad1.cnf"), NULL};
    CHECK_EQ_INT(load(&c, 1, (char *[]){"stratad"}, f1), -1);
    char want[700];
    snprintf(want, sizeof want, "unknown variable 'nonesuch=5' at %s:4", path_of("bad1.cnf"));
    CHECK_EQ_STR(c.errmsg, want);
    config_free(&c);

    write_file("bad2.cnf", "port=1\n");
    const char *f2[] = {path_of("bad2.cnf"), NULL};
    CHECK_EQ_INT(load(&c, 1, (char *[]){"stratad"}, f2), -1);
    snprintf(want, sizeof want, "found option without preceding group at %s:1", path_of("bad2.cnf"));
    CHECK_EQ_STR(c.errmsg, want);
    config_free(&c);

    write_file("bad3.cnf", "[mysqld\n");
    const char *f3[] = {path_of("bad3.cnf"), NULL};
    CHECK_EQ_INT(load(&c, 1, (char *[]){"stratad"}, f3), -1);
    snprintf(want, sizeof want, "wrong group definition at %s:1", path_of("bad3.cnf"));
    CHECK_EQ_STR(c.errmsg, want);
    config_free(&c);

    write_file("bad4.cnf", "[mysqld]\n!include nowhere.cnf\n");
    const char *f4[] = {path_of("bad4.cnf"), NULL};
    CHECK_EQ_INT(load(&c, 1, (char *[]){"stratad"}, f4), -1);
    CHECK(strstr(c.errmsg, "could not open option file") != NULL);
    CHECK(strstr(c.errmsg, "nowhere.cnf") != NULL);
    config_free(&c);

    write_file("loop.cnf", "[mysqld]\n!include loop.cnf\n");
    const char *f5[] = {path_of("loop.cnf"), NULL};
    CHECK_EQ_INT(load(&c, 1, (char *[]){"stratad"}, f5), -1);
    CHECK(strstr(c.errmsg, "too many nested !include") != NULL);
    config_free(&c);

    write_file("loose.cnf", "[mysqld]\nloose-nonesuch = 5\nloose_port = 77\n");
    const char *f6[] = {path_of("loose.cnf"), NULL};
    CHECK_EQ_INT(load(&c, 1, (char *[]){"stratad"}, f6), 0);
    CHECK_EQ_INT(c.nwarnings, 1);
    CHECK_EQ_STR(val(&c, "port"), "77");
    config_free(&c);

    char df[600];
    snprintf(df, sizeof df, "--defaults-file=%s", path_of("absent.cnf"));
    CHECK_EQ_INT(load(&c, 2, (char *[]){"stratad", df}, NULL), -1);
    CHECK(strstr(c.errmsg, "could not open option file") != NULL);
    config_free(&c);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

TEST(test_sizes_help)
{
    unsigned long long v;
    CHECK(config_parse_size("16M", &v) == 0 && v == 16ull << 20);
    CHECK(config_parse_size("16m", &v) == 0 && v == 16ull << 20);
    CHECK(config_parse_size("1G", &v) == 0 && v == 1ull << 30);
    CHECK(config_parse_size("64k", &v) == 0 && v == 65536);
    CHECK(config_parse_size("2T", &v) == 0 && v == 2ull << 40);
    CHECK(config_parse_size("0x10", &v) == 0 && v == 16);
    CHECK(config_parse_size("12", &v) == 0 && v == 12);
    CHECK(config_parse_size("12X", &v) == -1);
    CHECK(config_parse_size("M", &v) == -1);
    CHECK(config_parse_size("16MB", &v) == -1);
    CHECK(config_parse_size("-1", &v) == -1);
    buf_t b;
    buf_init(&b);
    config_help(opts, ARRAY_LEN(opts), &b);
    buf_append_byte(&b, 0);
    const char *h = (const char *)b.data;
    CHECK(strstr(h, "  -P, --port=#") != NULL);
    CHECK(strstr(h, "Port number (default: 3306)") != NULL);
    CHECK(strstr(h, "  --autocommit ") != NULL);
    CHECK(strstr(h, "  --log-bin[=#]") != NULL);
    CHECK(strstr(h, "  -?, --help") != NULL);
    /* sorted by name */
    CHECK(strstr(h, "--autocommit") < strstr(h, "--datadir"));
    CHECK(strstr(h, "--max-allowed-packet") < strstr(h, "--max-connections"));
    buf_free(&b);
}

/* Random bytes and random option-like lines never crash the reader (run under ASan by tests/run). */
TEST(test_garbage)
{
    char tmpl[] = "/tmp/strata-test-garbage-XXXXXX";
    int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    close(fd);
    const char *pieces[] = {"[mysqld]\n", "[", "]", "port", "=", "\"", "'", "\\", "#", ";", "\n", " ",
                            "skip-", "loose-", "!include ", "!includedir ", "max_connections", "16M", "\t",
                            "autocommit", "=on", "x", "\xff", "enable-", "help"};
    unsigned seed = 12345;
    int ok = 0, failed = 0;
    for (int round = 0; round < 300; round++) {
        FILE *f = fopen(tmpl, "w");
        REQUIRE(f != NULL);
        int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 60;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 5 == 0)
                fputc((int)((seed >> 8) & 0xff), f);
            else
                fputs(pieces[(seed >> 16) % ARRAY_LEN(pieces)], f);
        }
        fclose(f);
        config_t c;
        const char *files[] = {tmpl, NULL};
        char *argv[] = {"stratad"};
        if (load(&c, 1, argv, files) == 0)
            ok++;
        else {
            failed++;
            CHECK(c.errmsg[0] != 0);
        }
        config_free(&c);
    }
    CHECK(ok > 0 && failed > 0);
    unlink(tmpl);
}

UNIT_MAIN(test_command_line, test_command_line_errors, test_files, test_file_errors, test_sizes_help, test_garbage)
