/*
 * Unit tests for session/acl: first start, every statement's success and MySQL error (messages checked against
 * MariaDB 10.11's), durability across reopen, corruption refused, failed writes leave the store unchanged, host
 * matching in MySQL's order, SHOW CREATE USER text, and readers running beside writers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl.h"
#include "unit.h"
#include "util/diag.h"
#include "util/util.h"

static char dirbuf[64];

static const char *newdir(void)
{
    snprintf(dirbuf, sizeof dirbuf, "/tmp/strata-acl-XXXXXX");
    ASSERT(mkdtemp(dirbuf));
    return dirbuf;
}

static void rmdir_all(const char *dir)
{
    char p[128];
    snprintf(p, sizeof p, "%s/accounts.dat", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/accounts.dat.tmp", dir);
    rmdir(p);
    unlink(p);
    rmdir(dir);
}

static const char *err_msg(diag_t *d) { return d->error ? d->error->msg : ""; }

static acl_user_spec_t spec(const char *user, const char *host, const char *pw)
{
    acl_user_spec_t s;
    acl_user_spec_init(&s, user, host);
    if (pw) {
        s.password = pw;
        s.password_len = strlen(pw);
    }
    return s;
}

TEST(test_first_start)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    CHECK_EQ_INT(acl_count(acl), 1);
    acl_account_t a;
    REQUIRE(acl_get(acl, "root", "localhost", &a) == 0);
    CHECK_EQ_INT(a.plugin, PASSWORD_PLUGIN_NATIVE);
    CHECK_EQ_STR(a.auth, "");
    CHECK(acl_root_has_empty_password(acl));
    char p[128];
    snprintf(p, sizeof p, "%s/accounts.dat", dir);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
    /* root logs in over the socket and over loopback TCP, not from elsewhere. */
    CHECK(acl_find_for_login(acl, "root", NULL, NULL, true, &a) == 0);
    CHECK(acl_find_for_login(acl, "root", "localhost", "127.0.0.1", true, &a) == 0);
    CHECK(acl_find_for_login(acl, "root", NULL, "10.1.1.1", false, &a) == STRATA_ENOTFOUND);

    diag_t d;
    diag_init(&d, 64);
    CHECK(acl_set_password(acl, &d, "root", "localhost", "s3cret", 6, NULL) == 0);
    CHECK(!acl_root_has_empty_password(acl));
    acl_close(acl);
    REQUIRE(acl_open(dir, &acl) == 0);
    CHECK(!acl_root_has_empty_password(acl));
    REQUIRE(acl_get(acl, "root", "localhost", &a) == 0);
    char h[42];
    password_native_hash("s3cret", 6, h);
    CHECK_EQ_STR(a.auth, h);
    diag_free(&d);
    acl_close(acl);
    rmdir_all(dir);
}

TEST(test_create_errors)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    diag_t d;
    diag_init(&d, 64);

    acl_user_spec_t s1 = spec("a", "%", "pw");
    CHECK_EQ_INT(acl_create_user(acl, &d, &s1, 1, false), 0);
    acl_account_t a;
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_STR(a.auth, "*D821809F681A40A6E379B50D0463EFAE20BDD122"); /* MariaDB's for 'pw' */

    /* Exists: 1396 naming it; the others in the statement are created anyway. */
    diag_clear(&d);
    acl_user_spec_t three[3] = {spec("a", "%", NULL), spec("b", NULL, NULL), spec("a", "x", NULL)};
    CHECK_EQ_INT(acl_create_user(acl, &d, three, 3, false), -ER_CANNOT_USER);
    CHECK_EQ_STR(err_msg(&d), "Operation CREATE USER failed for 'a'@'%'");
    CHECK(acl_get(acl, "b", "%", &a) == 0);
    CHECK(acl_get(acl, "a", "x", &a) == 0);

    diag_clear(&d);
    acl_user_spec_t two[2] = {spec("a", "%", NULL), spec("b", "%", NULL)};
    CHECK_EQ_INT(acl_create_user(acl, &d, two, 2, false), -ER_CANNOT_USER);
    CHECK_EQ_STR(err_msg(&d), "Operation CREATE USER failed for 'a'@'%','b'@'%'");

    /* IF NOT EXISTS: a note, no error. */
    diag_clear(&d);
    CHECK_EQ_INT(acl_create_user(acl, &d, two, 1, true), 0);
    REQUIRE(d.n == 1);
    CHECK_EQ_INT(d.conds[0].level, DIAG_NOTE);
    CHECK_EQ_INT(d.conds[0].code, 1973);
    CHECK_EQ_STR(d.conds[0].msg, "Can't create user 'a'@'%'; it already exists");

    /* Too long names, unknown plugin, malformed hashes: nothing changes. */
    size_t before = acl_count(acl);
    char longu[140];
    memset(longu, 'a', 130);
    longu[130] = 0;
    diag_clear(&d);
    acl_user_spec_t sl = spec(longu, "%", NULL);
    CHECK_EQ_INT(acl_create_user(acl, &d, &sl, 1, false), -ER_WRONG_STRING_LENGTH);
    CHECK_EQ_STR(err_msg(&d), "String 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is too "
                              "long for user name (should be no longer than 128)");
    char longh[300];
    memset(longh, 'h', 300);
    longh[299] = 0;
    diag_clear(&d);
    acl_user_spec_t sh = spec("h", longh, NULL);
    CHECK_EQ_INT(acl_create_user(acl, &d, &sh, 1, false), -ER_WRONG_STRING_LENGTH);
    CHECK(strstr(err_msg(&d), "is too long for host name (should be no longer than 255)") != NULL);
    /* 128 characters of UTF-8 (256 bytes) is allowed. */
    char u8[300] = "";
    for (int i = 0; i < 128; i++)
        strcat(u8, "\xc3\xa9");
    diag_clear(&d);
    acl_user_spec_t su8 = spec(u8, "%", NULL);
    CHECK_EQ_INT(acl_create_user(acl, &d, &su8, 1, false), 0);
    before++;

    diag_clear(&d);
    acl_user_spec_t sp = spec("c", "%", NULL);
    sp.plugin = "client_ed25519";
    CHECK_EQ_INT(acl_create_user(acl, &d, &sp, 1, false), -1524);
    CHECK_EQ_STR(err_msg(&d), "Plugin 'client_ed25519' is not loaded");
    diag_clear(&d);
    acl_user_spec_t sb = spec("c", "%", NULL);
    sb.auth_string = "abc";
    CHECK_EQ_INT(acl_create_user(acl, &d, &sb, 1, false), -1372);
    CHECK_EQ_STR(err_msg(&d), "Password hash should be a 41-digit hexadecimal number");
    diag_clear(&d);
    sb.plugin = "caching_sha2_password";
    sb.auth_string = "$A$005$tooshort";
    CHECK_EQ_INT(acl_create_user(acl, &d, &sb, 1, false), -1827);
    CHECK_EQ_INT(acl_count(acl), before);

    /* caching_sha2 passwords are capped at 256 bytes (hashing cost is quadratic in the length). */
    char longpw[300];
    memset(longpw, 'p', 299);
    longpw[299] = 0;
    diag_clear(&d);
    acl_user_spec_t slp = spec("lp", "%", longpw);
    slp.plugin = "caching_sha2_password";
    CHECK_EQ_INT(acl_create_user(acl, &d, &slp, 1, false), -ER_WRONG_STRING_LENGTH);
    slp.plugin = NULL; /* native has no such limit */
    diag_clear(&d);
    CHECK_EQ_INT(acl_create_user(acl, &d, &slp, 1, false), 0);
    acl_user_spec_t slp2 = spec("lp", "%", NULL);
    slp2.plugin = "caching_sha2_password";
    CHECK_EQ_INT(acl_alter_user(acl, &d, &slp2, 1, false), 0);
    diag_clear(&d);
    CHECK_EQ_INT(acl_set_password(acl, &d, "lp", "%", longpw, 299, NULL), -ER_WRONG_STRING_LENGTH);
    acl_user_spec_t slp3 = spec("lp", "%", longpw);
    diag_clear(&d);
    CHECK_EQ_INT(acl_alter_user(acl, &d, &slp3, 1, false), -ER_WRONG_STRING_LENGTH);
    acl_user_name_t lpn = {"lp", "%"};
    CHECK_EQ_INT(acl_drop_user(acl, &d, &lpn, 1, false), 0);
    CHECK(!password_sha2_verify("$A$005$AbCd!@#\tEfgH%^&*01@#dNFegEa4OGDrnEu7M4T.nkmm794xI/QoCR3Z.xpLOW6", longpw,
                                  299));

    /* A hash given as such is stored as such. */
    diag_clear(&d);
    acl_user_spec_t sg = spec("g", "%", NULL);
    sg.auth_string = "*B69027D44F6E5EDC07F1AEAD1477967B16F28227";
    CHECK_EQ_INT(acl_create_user(acl, &d, &sg, 1, false), 0);
    REQUIRE(acl_get(acl, "g", "%", &a) == 0);
    CHECK_EQ_STR(a.auth, "*B69027D44F6E5EDC07F1AEAD1477967B16F28227");

    /* Hosts are stored lowercased and compared case-insensitively. */
    diag_clear(&d);
    acl_user_spec_t sz = spec("Zed", "LocalHOST", NULL);
    CHECK_EQ_INT(acl_create_user(acl, &d, &sz, 1, false), 0);
    CHECK(acl_get(acl, "Zed", "localhost", &a) == 0 && !strcmp(a.host, "localhost"));
    CHECK(acl_get(acl, "zed", "localhost", &a) == STRATA_ENOTFOUND); /* users are case-sensitive */
    acl_user_spec_t sz2 = spec("Zed", "LOCALHOST", NULL);
    diag_clear(&d);
    CHECK_EQ_INT(acl_create_user(acl, &d, &sz2, 1, false), -ER_CANNOT_USER);

    diag_free(&d);
    acl_close(acl);
    rmdir_all(dir);
}

TEST(test_drop_rename_alter_setpw)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    diag_t d;
    diag_init(&d, 64);
    acl_user_spec_t mk[3] = {spec("a", "%", "x"), spec("b", "%", NULL), spec("e", "%", NULL)};
    REQUIRE(acl_create_user(acl, &d, mk, 3, false) == 0);

    /* DROP: missing ones listed, existing ones dropped. */
    acl_user_name_t dn[3] = {{"n1", NULL}, {"b", "%"}, {"n2", "h"}};
    CHECK_EQ_INT(acl_drop_user(acl, &d, dn, 3, false), -ER_CANNOT_USER);
    CHECK_EQ_STR(err_msg(&d), "Operation DROP USER failed for 'n1'@'%','n2'@'h'");
    acl_account_t a;
    CHECK(acl_get(acl, "b", "%", &a) == STRATA_ENOTFOUND);
    diag_clear(&d);
    CHECK_EQ_INT(acl_drop_user(acl, &d, dn, 1, true), 0);
    REQUIRE(d.n == 1);
    CHECK_EQ_INT(d.conds[0].code, 1974);
    CHECK_EQ_STR(d.conds[0].msg, "Can't drop user 'n1'@'%'; it doesn't exist");

    /* RENAME: missing source or existing target: 1396 naming the source. */
    diag_clear(&d);
    REQUIRE(acl_create_user(acl, &d, &mk[1], 1, false) == 0);
    acl_user_name_t rf[2] = {{"b", "%"}, {"zz", NULL}}, rt[2] = {{"e", "%"}, {"yy", NULL}};
    CHECK_EQ_INT(acl_rename_user(acl, &d, rf, rt, 2), -ER_CANNOT_USER);
    CHECK_EQ_STR(err_msg(&d), "Operation RENAME USER failed for 'b'@'%','zz'@'%'");
    diag_clear(&d);
    acl_user_name_t rf2[2] = {{"b", "%"}, {"b2", "Host2"}}, rt2[2] = {{"b2", "Host2"}, {"b3", "%"}};
    CHECK_EQ_INT(acl_rename_user(acl, &d, rf2, rt2, 2), 0); /* chained: b -> b2@host2 -> b3 */
    CHECK(acl_get(acl, "b", "%", &a) == STRATA_ENOTFOUND);
    CHECK(acl_get(acl, "b2", "host2", &a) == STRATA_ENOTFOUND);
    CHECK(acl_get(acl, "b3", "%", &a) == 0);

    /* ALTER: missing -> 1396; IF EXISTS -> note 1396; options and password. */
    diag_clear(&d);
    acl_user_spec_t an = spec("nope", "%", "x");
    CHECK_EQ_INT(acl_alter_user(acl, &d, &an, 1, false), -ER_CANNOT_USER);
    CHECK_EQ_STR(err_msg(&d), "Operation ALTER USER failed for 'nope'@'%'");
    diag_clear(&d);
    CHECK_EQ_INT(acl_alter_user(acl, &d, &an, 1, true), 0);
    REQUIRE(d.n == 1);
    CHECK_EQ_INT(d.conds[0].level, DIAG_NOTE);
    CHECK_EQ_INT(d.conds[0].code, 1396);

    diag_clear(&d);
    acl_user_spec_t al = spec("a", "%", NULL);
    al.lock = 1;
    al.require_ssl = 1;
    al.max_user_connections = 3;
    CHECK_EQ_INT(acl_alter_user(acl, &d, &al, 1, false), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_INT(a.flags, ACL_FLAG_LOCKED | ACL_FLAG_REQUIRE_SSL);
    CHECK_EQ_INT(a.max_user_connections, 3);
    CHECK_EQ_STR(a.auth, "*B69027D44F6E5EDC07F1AEAD1477967B16F28227"); /* password untouched */

    /* Switch to caching_sha2 with a password; then IDENTIFIED BY keeps the plugin. */
    diag_clear(&d);
    acl_user_spec_t as = spec("a", "%", "newpw");
    as.plugin = "caching_sha2_password";
    CHECK_EQ_INT(acl_alter_user(acl, &d, &as, 1, false), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_INT(a.plugin, PASSWORD_PLUGIN_SHA2);
    CHECK(password_sha2_verify(a.auth, "newpw", 5));
    CHECK_EQ_INT(a.flags, ACL_FLAG_LOCKED | ACL_FLAG_REQUIRE_SSL); /* options untouched */
    acl_user_spec_t ap = spec("a", "%", "third");
    CHECK_EQ_INT(acl_alter_user(acl, &d, &ap, 1, false), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_INT(a.plugin, PASSWORD_PLUGIN_SHA2);
    CHECK(password_sha2_verify(a.auth, "third", 5));
    /* A sha2 hash for a sha2 account without naming the plugin is accepted as is. */
    char sh[PASSWORD_STORED_MAX];
    password_stored_from(PASSWORD_PLUGIN_SHA2, "viahash", 7, sh);
    diag_clear(&d);
    acl_user_spec_t ahs = spec("a", "%", NULL);
    ahs.auth_string = sh;
    CHECK_EQ_INT(acl_alter_user(acl, &d, &ahs, 1, false), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_STR(a.auth, sh);
    CHECK(password_sha2_verify(a.auth, "viahash", 7));
    /* A native hash for a sha2 account is refused. */
    diag_clear(&d);
    acl_user_spec_t ah = spec("a", "%", NULL);
    ah.auth_string = "*B69027D44F6E5EDC07F1AEAD1477967B16F28227";
    CHECK_EQ_INT(acl_alter_user(acl, &d, &ah, 1, false), -1827);
    /* Unlock, REQUIRE NONE, limit 0. */
    acl_user_spec_t au = spec("a", "%", NULL);
    au.lock = 0;
    au.require_ssl = 0;
    au.max_user_connections = 0;
    CHECK_EQ_INT(acl_alter_user(acl, &d, &au, 1, false), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_INT(a.flags, 0);
    CHECK_EQ_INT(a.max_user_connections, 0);

    /* SET PASSWORD: missing -> 1133; hash checked; keeps the plugin. */
    diag_clear(&d);
    CHECK_EQ_INT(acl_set_password(acl, &d, "nope", "%", "x", 1, NULL), -ER_PASSWORD_NO_MATCH);
    CHECK_EQ_STR(err_msg(&d), "Can't find any matching row in the user table");
    diag_clear(&d);
    CHECK_EQ_INT(acl_set_password(acl, &d, "e", "%", NULL, 0, "abc"), -1372);
    CHECK_EQ_INT(acl_set_password(acl, &d, "e", "%", NULL, 0, "*D821809F681A40A6E379B50D0463EFAE20BDD122"), 0);
    REQUIRE(acl_get(acl, "e", "%", &a) == 0);
    CHECK_EQ_STR(a.auth, "*D821809F681A40A6E379B50D0463EFAE20BDD122");
    CHECK_EQ_INT(acl_set_password(acl, &d, "a", "%", "fourth", 6, NULL), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK(a.plugin == PASSWORD_PLUGIN_SHA2 && password_sha2_verify(a.auth, "fourth", 6));
    CHECK_EQ_INT(acl_set_password(acl, &d, "a", "%", "", 0, NULL), 0);
    REQUIRE(acl_get(acl, "a", "%", &a) == 0);
    CHECK_EQ_STR(a.auth, "");

    diag_free(&d);
    acl_close(acl);
    rmdir_all(dir);
}

TEST(test_durability)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    diag_t d;
    diag_init(&d, 64);
    acl_user_spec_t s[3] = {spec("n", "10.0.%", "npw"), spec("s", "%", "spw"), spec("l", "localhost", NULL)};
    s[1].plugin = "caching_sha2_password";
    s[1].require_ssl = 1;
    s[1].max_user_connections = 7;
    s[2].lock = 1;
    REQUIRE(acl_create_user(acl, &d, s, 3, false) == 0);
    acl_account_t before[3];
    REQUIRE(acl_get(acl, "n", "10.0.%", &before[0]) == 0);
    REQUIRE(acl_get(acl, "s", "%", &before[1]) == 0);
    REQUIRE(acl_get(acl, "l", "localhost", &before[2]) == 0);
    uint64_t v = acl_version(acl);
    acl_user_name_t dn = {"root", "localhost"};
    REQUIRE(acl_drop_user(acl, &d, &dn, 1, false) == 0);
    CHECK(acl_version(acl) > v);
    acl_close(acl);

    REQUIRE(acl_open(dir, &acl) == 0);
    CHECK_EQ_INT(acl_count(acl), 3);
    acl_account_t a;
    CHECK(acl_get(acl, "root", "localhost", &a) == STRATA_ENOTFOUND); /* not re-created on restart */
    const char *names[3][2] = {{"n", "10.0.%"}, {"s", "%"}, {"l", "localhost"}};
    for (int i = 0; i < 3; i++) {
        REQUIRE(acl_get(acl, names[i][0], names[i][1], &a) == 0);
        CHECK(!memcmp(&a, &before[i], sizeof a));
    }
    CHECK(password_sha2_verify(before[1].auth, "spw", 3));
    acl_close(acl);

    /* A stale temporary file from an interrupted write is ignored and removed. */
    char p[128], tp[128];
    snprintf(p, sizeof p, "%s/accounts.dat", dir);
    snprintf(tp, sizeof tp, "%s/accounts.dat.tmp", dir);
    FILE *f = fopen(tp, "w");
    fputs("garbage", f);
    fclose(f);
    REQUIRE(acl_open(dir, &acl) == 0);
    CHECK_EQ_INT(acl_count(acl), 3);
    CHECK(access(tp, F_OK) != 0);

    /* A failed write (the temp path is a directory) changes nothing, on disk or in memory. */
    REQUIRE(mkdir(tp, 0700) == 0);
    diag_clear(&d);
    acl_user_spec_t x = spec("x", "%", NULL);
    CHECK_EQ_INT(acl_create_user(acl, &d, &x, 1, false), -ER_ERROR_ON_WRITE);
    CHECK(acl_get(acl, "x", "%", &a) == STRATA_ENOTFOUND);
    CHECK_EQ_INT(acl_count(acl), 3);
    rmdir(tp);
    diag_clear(&d);
    CHECK_EQ_INT(acl_create_user(acl, &d, &x, 1, false), 0);
    acl_close(acl);

    /* Corruption: every single flipped byte is caught (checksum), as are truncation and a newer version. */
    uint8_t buf[4096];
    int fd = open(p, O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    REQUIRE(n > 32);
    int caught = 0;
    for (ssize_t i = 0; i < n; i++) {
        buf[i] ^= 0x20;
        fd = open(p, O_WRONLY | O_TRUNC);
        CHECK(write(fd, buf, (size_t)n) == n);
        close(fd);
        acl_t *bad = NULL;
        if (acl_open(dir, &bad) == STRATA_ECORRUPT && !bad)
            caught++;
        acl_close(bad);
        buf[i] ^= 0x20;
    }
    CHECK_EQ_INT(caught, n);
    fd = open(p, O_WRONLY | O_TRUNC);
    CHECK(write(fd, buf, (size_t)n - 1) == n - 1);
    close(fd);
    CHECK_EQ_INT(acl_open(dir, &acl), STRATA_ECORRUPT);
    fd = open(p, O_WRONLY | O_TRUNC);
    CHECK(write(fd, buf, (size_t)n) == n);
    close(fd);
    REQUIRE(acl_open(dir, &acl) == 0); /* the original bytes load again */
    CHECK_EQ_INT(acl_count(acl), 4);
    acl_close(acl);

    diag_free(&d);
    rmdir_all(dir);
}

TEST(test_host_patterns)
{
    CHECK(acl_host_matches("%", "a.b", "1.2.3.4", false));
    CHECK(acl_host_matches("", NULL, "1.2.3.4", false));
    CHECK(acl_host_matches("localhost", NULL, NULL, true));
    CHECK(!acl_host_matches("localhost", NULL, "10.0.0.1", false));
    CHECK(acl_host_matches("local%", NULL, NULL, true));
    CHECK(!acl_host_matches("127.0.0.1", NULL, NULL, true)); /* a socket has no IP */
    CHECK(acl_host_matches("127.0.0.1", "localhost", "127.0.0.1", true));
    CHECK(acl_host_matches("10.0.%", NULL, "10.0.3.4", false));
    CHECK(!acl_host_matches("10.0.%", NULL, "10.1.3.4", false));
    CHECK(acl_host_matches("10.0.0._", NULL, "10.0.0.5", false));
    CHECK(!acl_host_matches("10.0.0._", NULL, "10.0.0.55", false));
    CHECK(acl_host_matches("10.0.0.0/255.255.255.0", NULL, "10.0.0.99", false));
    CHECK(!acl_host_matches("10.0.0.0/255.255.255.0", NULL, "10.0.1.99", false));
    CHECK(acl_host_matches("10.0.0.0/24", NULL, "::ffff:10.0.0.99", false));
    CHECK(!acl_host_matches("10.0.0.0/24", "10.0.0.1", NULL, false));
    CHECK(acl_host_matches("%.example.com", "H.Example.COM", "8.8.8.8", false));
    CHECK(!acl_host_matches("%.example.com", "example.com", "8.8.8.8", false));
    CHECK(acl_host_matches("a\\_b", "a_b", NULL, false));
    CHECK(!acl_host_matches("a\\_b", "axb", NULL, false));
    CHECK(acl_host_matches("a%b%c", "aXXbYYc", NULL, false));
    CHECK(!acl_host_matches("a%b%c", "aXXbYY", NULL, false));
    CHECK(acl_host_matches("%%x", "abcx", NULL, false));
    CHECK(acl_host_matches("_%", "a", NULL, false));
    CHECK(!acl_host_matches("_%_", "a", NULL, false));
    CHECK(acl_host_matches("%.%.%", "a.b.c", NULL, false));
    CHECK(acl_host_matches("a\\%", "a%", NULL, false));
    CHECK(!acl_host_matches("a\\%", "ab", NULL, false));
    /* A pattern that backtracks exponentially in a naive matcher: must still answer at once. */
    char pat[256] = "", host[256];
    for (int i = 0; i < 60; i++)
        strcat(pat, "%a");
    strcat(pat, "%b");
    memset(host, 'a', 250);
    host[250] = 0;
    CHECK(!acl_host_matches(pat, host, NULL, false));
}

TEST(test_login_order)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    diag_t d;
    diag_init(&d, 64);
    /* Created in an order unrelated to the match order. */
    acl_user_spec_t s[] = {spec("bob", "%", "p1"),           spec("", "%", NULL),
                           spec("bob", "10.0.%", "p2"),      spec("bob", "10.0.0.7", "p3"),
                           spec("bob", "10.0.0.0/255.255.255.0", "p4"), spec("", "localhost", NULL),
                           spec("bob", "%.example.com", "p5"), spec("bob", "H.Example.COM", "p6"),
                           spec("bob", "10.%", "p7"),        spec("ro", "%", NULL)};
    REQUIRE(acl_create_user(acl, &d, s, ARRAY_LEN(s), false) == 0);
    acl_account_t a;
    struct {
        const char *user, *host, *ip;
        bool local;
        const char *want_user, *want_host;
    } cases[] = {
        {"bob", NULL, "10.0.0.7", false, "bob", "10.0.0.7"},          /* exact IP first */
        {"bob", NULL, "10.0.0.8", false, "bob", "10.0.0.0/255.255.255.0"}, /* netmask counts as exact */
        {"bob", NULL, "10.0.1.5", false, "bob", "10.0.%"},            /* longer literal prefix first */
        {"bob", NULL, "10.9.1.5", false, "bob", "10.%"},
        {"bob", "h.example.com", "192.168.1.1", false, "bob", "h.example.com"},
        {"bob", "x.example.com", "192.168.1.1", false, "bob", "%.example.com"},
        {"bob", NULL, "8.8.8.8", false, "bob", "%"},
        {"bob", NULL, NULL, true, "", "localhost"}, /* MySQL's anonymous-user rule: host before user */
        {"alice", NULL, "8.8.8.8", false, "", "%"},
        {"ro", NULL, "8.8.8.8", false, "ro", "%"},  /* named user before anonymous on the same host */
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        memset(&a, 0, sizeof a);
        int rc = acl_find_for_login(acl, cases[i].user, cases[i].host, cases[i].ip, cases[i].local, &a);
        CHECK_EQ_INT(rc, 0);
        if (strcmp(a.user, cases[i].want_user) || strcmp(a.host, cases[i].want_host))
            fprintf(stderr, "case %zu: got '%s'@'%s', want '%s'@'%s'\n", i, a.user, a.host, cases[i].want_user,
                    cases[i].want_host);
        CHECK_EQ_STR(a.user, cases[i].want_user);
        CHECK_EQ_STR(a.host, cases[i].want_host);
    }
    /* Without anonymous accounts, an unknown user finds nothing. */
    acl_user_name_t anon[2] = {{"", "%"}, {"", "localhost"}};
    REQUIRE(acl_drop_user(acl, &d, anon, 2, false) == 0);
    CHECK_EQ_INT(acl_find_for_login(acl, "alice", NULL, "8.8.8.8", false, &a), STRATA_ENOTFOUND);
    CHECK_EQ_INT(acl_find_for_login(acl, "bob", NULL, NULL, true, &a), 0);
    CHECK_EQ_STR(a.host, "%");

    /* acl_foreach walks in match order. */
    diag_free(&d);
    acl_close(acl);
    rmdir_all(dir);
}

static void collect(const acl_account_t *a, void *arg)
{
    buf_t *b = arg;
    buf_printf(b, "'%s'@'%s' ", a->user, a->host);
}

TEST(test_show_create_and_foreach)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    diag_t d;
    diag_init(&d, 64);
    acl_user_spec_t s[4] = {spec("f", "%", "x"), spec("d", "%", NULL), spec("q'x", "h`x", NULL),
                            spec("c", "%", "pw")};
    s[0].require_ssl = 1;
    s[0].max_user_connections = 3;
    s[1].require_ssl = 1;
    s[1].max_user_connections = 3;
    s[1].lock = 1;
    s[3].plugin = "caching_sha2_password";
    REQUIRE(acl_create_user(acl, &d, s, 4, false) == 0);
    buf_t b;
    buf_init(&b);
    /* Expected texts are MariaDB 10.11's for the same statements. */
    CHECK(acl_show_create_user(acl, &d, "f", "%", &b) == 0);
    buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "CREATE USER `f`@`%` IDENTIFIED BY PASSWORD "
                                 "'*B69027D44F6E5EDC07F1AEAD1477967B16F28227' REQUIRE SSL WITH MAX_USER_CONNECTIONS 3");
    buf_reset(&b);
    CHECK(acl_show_create_user(acl, &d, "d", "%", &b) == 0);
    buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "CREATE USER `d`@`%` REQUIRE SSL WITH MAX_USER_CONNECTIONS 3 ACCOUNT LOCK");
    buf_reset(&b);
    CHECK(acl_show_create_user(acl, &d, "q'x", "h`x", &b) == 0);
    buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "CREATE USER `q'x`@`h``x`");
    buf_reset(&b);
    CHECK(acl_show_create_user(acl, &d, "root", "localhost", &b) == 0);
    buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "CREATE USER `root`@`localhost`");
    buf_reset(&b);
    CHECK(acl_show_create_user(acl, &d, "c", "%", &b) == 0);
    buf_append_byte(&b, 0);
    const char *pre = "CREATE USER `c`@`%` IDENTIFIED VIA caching_sha2_password USING '$A$005$";
    CHECK(!strncmp((char *)b.data, pre, strlen(pre)));
    CHECK_EQ_INT(b.len - 1, strlen("CREATE USER `c`@`%` IDENTIFIED VIA caching_sha2_password USING ''") + 70);
    buf_reset(&b);
    diag_clear(&d);
    CHECK_EQ_INT(acl_show_create_user(acl, &d, "nope", "%", &b), -ER_PASSWORD_NO_MATCH);

    buf_reset(&b);
    acl_foreach(acl, collect, &b);
    buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "'q'x'@'h`x' 'root'@'localhost' 'c'@'%' 'd'@'%' 'f'@'%' ");
    buf_free(&b);
    diag_free(&d);
    acl_close(acl);
    rmdir_all(dir);
}

TEST(test_connection_limits)
{
    const char *dir = newdir();
    acl_t *acl;
    REQUIRE(acl_open(dir, &acl) == 0);
    diag_t d;
    diag_init(&d, 64);
    acl_user_spec_t s[2] = {spec("mx", "%", "pw"), spec("free", "%", NULL)};
    s[0].max_user_connections = 2;
    REQUIRE(acl_create_user(acl, &d, s, 2, false) == 0);
    acl_account_t mx, fr;
    REQUIRE(acl_get(acl, "mx", "%", &mx) == 0);
    REQUIRE(acl_get(acl, "free", "%", &fr) == 0);
    uint32_t lim = 0;
    /* The account's own limit, whatever the global one. */
    CHECK_EQ_INT(acl_connection_enter(acl, &mx, 100, &lim), 0);
    CHECK_EQ_INT(acl_connection_enter(acl, &mx, 100, &lim), 0);
    CHECK_EQ_INT(acl_connection_enter(acl, &mx, 100, &lim), STRATA_ETOOBIG);
    CHECK_EQ_INT(lim, 2);
    CHECK_EQ_INT(acl_connection_count(acl, "mx", "%"), 2);
    acl_connection_leave(acl, &mx);
    CHECK_EQ_INT(acl_connection_enter(acl, &mx, 100, &lim), 0);
    /* No account limit: the global one; 0 = unlimited. */
    CHECK_EQ_INT(acl_connection_enter(acl, &fr, 1, &lim), 0);
    CHECK_EQ_INT(acl_connection_enter(acl, &fr, 1, &lim), STRATA_ETOOBIG);
    CHECK_EQ_INT(lim, 1);
    for (int i = 0; i < 50; i++)
        CHECK_EQ_INT(acl_connection_enter(acl, &fr, 0, &lim), 0);
    CHECK_EQ_INT(acl_connection_count(acl, "free", "%"), 51);
    CHECK_EQ_INT(acl_connection_count(acl, "nobody", "%"), 0);
    diag_free(&d);
    acl_close(acl);
    rmdir_all(dir);
}

/* Readers keep finding root@localhost while a writer churns other accounts. */
static acl_t *shared;
static volatile int stop_readers;
static int reader_misses;

static void *reader(void *arg)
{
    (void)arg;
    acl_account_t a;
    while (!stop_readers) {
        if (acl_find_for_login(shared, "root", NULL, NULL, true, &a) != 0 || strcmp(a.host, "localhost"))
            __atomic_add_fetch(&reader_misses, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

TEST(test_concurrent)
{
    const char *dir = newdir();
    REQUIRE(acl_open(dir, &shared) == 0);
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, reader, NULL);
    diag_t d;
    diag_init(&d, 64);
    int errs = 0;
    for (int i = 0; i < 40; i++) {
        char u[16];
        snprintf(u, sizeof u, "u%d", i);
        acl_user_spec_t s = spec(u, "%", "pw");
        acl_user_name_t n = {u, "%"};
        errs += acl_create_user(shared, &d, &s, 1, false) != 0;
        if (i % 2)
            errs += acl_drop_user(shared, &d, &n, 1, false) != 0;
    }
    stop_readers = 1;
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(errs, 0);
    CHECK_EQ_INT(reader_misses, 0);
    CHECK_EQ_INT(acl_count(shared), 21);
    diag_free(&d);
    acl_close(shared);
    rmdir_all(dir);
}

UNIT_MAIN(test_first_start, test_create_errors, test_drop_rename_alter_setpw, test_durability, test_host_patterns,
          test_login_order, test_show_create_and_foreach, test_connection_limits, test_concurrent)
