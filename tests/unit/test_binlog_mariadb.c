/*
 * Interoperability: a stock MariaDB 10.11 server applies a binlog written by strata.  The test writes DDL and
 * row transactions (INSERT, UPDATE, DELETE over several column types) with the binlog API, starts a scratch
 * mariadbd (skipped if it is not installed or does not come up), pipes `mariadb-binlog FILE | mariadb` into it
 * (the server decodes every TABLE_MAP and rows event itself, as a replica's SQL thread would), and checks the
 * table contents and that the server took strata's GTIDs.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binlog/binlog.h"
#include "unit.h"
#include "util/util.h"

static char dir[128];

static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return strdup("");
    static char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    pclose(p);
    return strdup(out);
}

static void write_binlog(void)
{
    binlog_options_t o;
    binlog_options_default(&o);
    o.dir = dir;
    o.basename = "s";
    o.server_id = 1;
    o.domain_id = 5;
    binlog_t *bl;
    if (binlog_open(&o, &bl, NULL))
        return;
    binlog_trx_t t;
    binlog_trx_init(&t, BINLOG_TRX_DDL);
    const char *q1 = "create database rt";
    binlog_trx_query(&t, "", q1, strlen(q1));
    binlog_commit(bl, &t, NULL);
    binlog_trx_reset(&t, BINLOG_TRX_DDL);
    const char *q2 = "create table rt.t(a int primary key, b varchar(20) character set latin1, c decimal(10,2), "
                     "d datetime(3), t2 time(2), e enum('x','y'), f double, g blob, h bigint unsigned, y year, "
                     "bt bit(5), dt date)";
    binlog_trx_query(&t, "rt", q2, strlen(q2));
    binlog_commit(bl, &t, NULL);
    binlog_col_t c[12] = {binlog_col(BINLOG_T_LONG, 0, 0, false),      binlog_col(BINLOG_T_VARCHAR, 20, 0, true),
                          binlog_col(BINLOG_T_NEWDECIMAL, 10, 2, true), binlog_col(BINLOG_T_DATETIME2, 0, 3, true),
                          binlog_col(BINLOG_T_TIME2, 0, 2, true),       binlog_col(BINLOG_T_ENUM, 1, 0, true),
                          binlog_col(BINLOG_T_DOUBLE, 0, 0, true),      binlog_col(BINLOG_T_BLOB, 2, 0, true),
                          binlog_col(BINLOG_T_LONGLONG, 0, 0, true),    binlog_col(BINLOG_T_YEAR, 0, 0, true),
                          binlog_col(BINLOG_T_BIT, 5, 0, true),         binlog_col(BINLOG_T_DATE, 0, 0, true)};
    binlog_table_t tb = {1, "rt", "t", 12, c};
    binlog_value_t r[12];
    for (int i = 1; i <= 3; i++) {
        binlog_trx_reset(&t, BINLOG_TRX_ROWS);
        t.xid = (uint64_t)i;
        binlog_trx_stmt_begin(&t, "insert into rt.t values (...)", 29);
        memset(r, 0, sizeof r);
        r[0].i = i;
        r[1].s = "row", r[1].len = 3;
        r[2].s = i == 2 ? "0.05" : "-12.34", r[2].len = strlen(r[2].s);
        r[3].tm = (binlog_tm_t){2024, 5, 6, 7, 8, 9, 123000, false};
        r[4].tm = (binlog_tm_t){0, 0, 0, 1, 2, 3, 450000, true};
        r[5].u = 2;
        r[6].d = 0.25 * i;
        r[7].s = "\x00\x01\xff", r[7].len = 3;
        r[8].u = 18446744073709551615ull;
        r[9].i = 1999 + i;
        r[10].u = 0x15;
        r[11].tm = (binlog_tm_t){2000, 2, 29, 0, 0, 0, 0, false};
        if (i == 3)
            for (int k = 1; k < 12; k++)
                r[k].is_null = true;
        binlog_trx_write_row(&t, &tb, r);
        binlog_commit(bl, &t, NULL);
    }
    /* one transaction, two statements: update row 2, delete row 1 */
    binlog_trx_reset(&t, BINLOG_TRX_ROWS);
    t.xid = 10;
    binlog_value_t b[12], a[12];
    memset(b, 0, sizeof b);
    b[0].i = 2;
    b[1].s = "row", b[1].len = 3;
    b[2].s = "0.05", b[2].len = 4;
    b[3].tm = (binlog_tm_t){2024, 5, 6, 7, 8, 9, 123000, false};
    b[4].tm = (binlog_tm_t){0, 0, 0, 1, 2, 3, 450000, true};
    b[5].u = 2;
    b[6].d = 0.5;
    b[7].s = "\x00\x01\xff", b[7].len = 3;
    b[8].u = 18446744073709551615ull;
    b[9].i = 2001;
    b[10].u = 0x15;
    b[11].tm = (binlog_tm_t){2000, 2, 29, 0, 0, 0, 0, false};
    memcpy(a, b, sizeof a);
    a[1].s = "changed", a[1].len = 7;
    a[5].u = 1;
    binlog_trx_stmt_begin(&t, "update", 6);
    binlog_trx_update_row(&t, &tb, b, a);
    binlog_trx_stmt_begin(&t, "delete", 6);
    memcpy(b, r, sizeof b); /* row 1's before image is what was inserted */
    b[0].i = 1;
    for (int k = 1; k < 12; k++)
        b[k].is_null = false;
    b[1].s = "row", b[1].len = 3;
    b[2].s = "-12.34", b[2].len = 6;
    b[3].tm = (binlog_tm_t){2024, 5, 6, 7, 8, 9, 123000, false};
    b[4].tm = (binlog_tm_t){0, 0, 0, 1, 2, 3, 450000, true};
    b[5].u = 2;
    b[6].d = 0.25;
    b[7].s = "\x00\x01\xff", b[7].len = 3;
    b[8].u = 18446744073709551615ull;
    b[9].i = 2000;
    b[10].u = 0x15;
    b[11].tm = (binlog_tm_t){2000, 2, 29, 0, 0, 0, 0, false};
    binlog_trx_delete_row(&t, &tb, b);
    binlog_commit(bl, &t, NULL);
    binlog_trx_free(&t);
    binlog_close(bl);
}

TEST(test_mariadb_applies_strata_binlog)
{
    if (system("command -v mariadbd >/dev/null 2>&1 && command -v mariadb-install-db >/dev/null 2>&1 && "
               "command -v mariadb-binlog >/dev/null 2>&1")) {
        SKIP("mariadbd not installed");
    }
    snprintf(dir, sizeof dir, "/tmp/strata-binlog-maria-XXXXXX");
    REQUIRE(mkdtemp(dir));
    write_binlog();
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mariadb-install-db --no-defaults --user=root --datadir=%s/data >/dev/null 2>&1", dir);
    if (system(cmd)) {
        fprintf(stderr, "mariadb-install-db failed\n");
        unit_failed_checks++;
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char dd[200], sock[200], logf[200];
        snprintf(dd, sizeof dd, "--datadir=%s/data", dir);
        snprintf(sock, sizeof sock, "--socket=%s/sock", dir);
        snprintf(logf, sizeof logf, "--log-error=%s/err.log", dir);
        execlp("mariadbd", "mariadbd", "--no-defaults", "--user=root", dd, sock, logf, "--skip-networking",
               "--innodb-buffer-pool-size=16M", "--log-bin=mb", "--server-id=9", (char *)NULL);
        _exit(127);
    }
    char sockp[200];
    snprintf(sockp, sizeof sockp, "%s/sock", dir);
    bool up = false;
    for (int i = 0; i < 300 && !up; i++) {
        struct stat st;
        up = stat(sockp, &st) == 0;
        usleep(100000);
    }
    if (!up) {
        fprintf(stderr, "mariadbd did not start (see %s/err.log)\n", dir);
        unit_failed_checks++;
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return;
    }
    snprintf(cmd, sizeof cmd, "mariadb-binlog %s/s.000001 | mariadb -S %s -uroot 2>&1; echo rc=$?", dir, sockp);
    char *out = run(cmd);
    CHECK(strstr(out, "rc=0") != NULL);
    if (!strstr(out, "rc=0"))
        fprintf(stderr, "%s\n", out);
    free(out);
    snprintf(cmd, sizeof cmd,
             "mariadb -S %s -uroot -N -e \"select a, b, c, d, t2, e, f, hex(g), h, y, bin(bt), dt from rt.t order by "
             "a; select @@gtid_binlog_pos\"",
             sockp);
    out = run(cmd);
    const char *want = "2\tchanged\t0.05\t2024-05-06 07:08:09.123\t-01:02:03.45\tx\t0.5\t0001FF\t18446744073709551615"
                       "\t2001\t10101\t2000-02-29\n"
                       "3\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\n"
                       "5-1-6\n";
    CHECK_EQ_STR(out, want);
    free(out);
    snprintf(cmd, sizeof cmd, "mariadb-admin -S %s -uroot shutdown >/dev/null 2>&1", sockp);
    if (system(cmd))
        kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
}

UNIT_MAIN(test_mariadb_applies_strata_binlog)
