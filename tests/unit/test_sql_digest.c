/*
 * sql_digest_text against the DIGEST_TEXT a MariaDB 10.11 server (--performance-schema=ON) gave for the same
 * statements; tests/integration/test_digest.py compares a live server's table with MariaDB's.
 */
#include "sql/sql.h"
#include "unit.h"

static const struct { const char *sql, *mariadb; } cases[] = {
    {"select 1", "SELECT ? "},
    {"SELECT   a , b FROM t   WHERE a = 5 AND b='x' -- comment\n", "SELECT `a` , `b` FROM `t` WHERE `a` = ? AND `b` = ? "},
    {"select * from t where a in (1,2,3)", "SELECT * FROM `t` WHERE `a` IN (...) "},
    {"select * from t where a in (1)", "SELECT * FROM `t` WHERE `a` IN (?) "},
    {"select * from t where a in (1+1, 2)", "SELECT * FROM `t` WHERE `a` IN ( ? + ?, ... ) "},
    {"insert into t values (11,'a',1.5),(12,'b',2.5),(13,'c',3e5)", "INSERT INTO `t` VALUES (...) /* , ... */ "},
    {"insert into t (a,b) values (21,'x'),(22,'y') on duplicate key update b='z'",
     "INSERT INTO `t` ( `a` , `b` ) VALUES (...) /* , ... */ ON DUPLICATE KEY UPDATE `b` = ? "},
    {"insert into t(a) values (1),(2) , (3)", "INSERT INTO `t` ( `a` ) VALUES (?) /* , ... */ "},
    {"update t set b = 'q' where a = -1", "UPDATE `t` SET `b` = ? WHERE `a` = - ? "},
    {"select -1, +2, - 3, 1 - 2, a-1 from t", "SELECT ?, ... - ? , `a` - ? FROM `t` "},
    {"select 1 + -2, (-3), f(-4), a*-5 from t", "SELECT ? + ? , (?) , `f` (?) , `a` * ? FROM `t` "},
    {"select - - 1", "SELECT ? "},
    {"select /* hi */ `a` from `t` where b like 'x%' limit 10", "SELECT `a` FROM `t` WHERE `b` LIKE ? LIMIT ? "},
    {"select a from t where b = \"dq\" order by a desc limit 5, 10",
     "SELECT `a` FROM `t` WHERE `b` = ? ORDER BY `a` DESC LIMIT ?, ... "},
    {"select 0x41, X'42', b'101', N'nat', 1.5e3, .5, _utf8'x'", "SELECT ? , (unknown) , ?, ... , (_charset) ? "},
    {"select @a, @@version, @@session.sql_mode", "SELECT @? , @@`version` , @@SESSION . `sql_mode` "},
    {"set @a = 5", "SET @? = ? "},
    {"show warnings", "SHOW WARNINGS "},
    {"SHOW WARNINGS;", "SHOW WARNINGS "},
    {"select a from d1.t as x where x.a = 1", "SELECT `a` FROM `d1` . `t` AS `x` WHERE `x` . `a` = ? "},
    {"select count(*), sum(a) from t group by b having count(*) > 1",
     "SELECT COUNT ( * ) , SUM ( `a` ) FROM `t` GROUP BY `b` HAVING COUNT ( * ) > ? "},
    {"select null, true, false from dual", "SELECT ? , TRUE , FALSE FROM DUAL "},
    {"delete from t where a between 1 and 100", "DELETE FROM `t` WHERE `a` BETWEEN ? AND ? "},
    {"select 'a' 'b'", "SELECT ? ? "},
    {"select * from t where (a, b) in ((1,'a'),(2,'b'))", "SELECT * FROM `t` WHERE ( `a` , `b` ) IN ( (...) /* , ... */ ) "},
    {"insert into t values (1, 'a', (select 1))", "INSERT INTO `t` VALUES ( ?, ... , ( SELECT ? ) ) "},
    {"select `x``y`, `select` from t", "SELECT `x``y` , `select` FROM `t` "},
    {"Select Count(*) From t", "SELECT COUNT ( * ) FROM `t` "},
    {"/*!40101 SELECT 5 */", "SELECT ? "},
    {"select now(), concat('a', b), cast(a as char) from t",
     "SELECT NOW ( ) , `concat` ( ? , `b` ) , CAST ( `a` AS CHARACTER ) FROM `t` "},
    {"select repeat('x', 3) ", "SELECT REPEAT (...) "},
    {"select database()", "SELECT SCHEMA ( ) "},
    {"select 1 from dual where 1 in (1,2) and (1,2) in ((1,2))", "SELECT ? FROM DUAL WHERE ? IN (...) AND (...) IN ( (...) ) "},
    {"select 1 from t where a in ((1),(2))", "SELECT ? FROM `t` WHERE `a` IN ( (?) /* , ... */ ) "},
    {"select a from t where a <> 1 and a != 2 and b rlike 'x' and b regexp 'y' and a <=> 1 and (a=1 || a=2) and (a=1 && a=2)",
     "SELECT `a` FROM `t` WHERE `a` != ? AND `a` != ? AND `b` RLIKE ? AND `b` RLIKE ? AND `a` <=> ? AND ( `a` = ? || `a` = ? ) AND ( `a` = ? && `a` = ? ) "},
    {"select distinct a from t", "SELECT DISTINCTROW `a` FROM `t` "},
    {"select user(), current_user(), current_timestamp, curdate(), current_date",
     "SELECT SYSTEM_USER ( ) , CURRENT_USER ( ) , NOW , CURDATE ( ) , CURDATE "},
    {"select 0b101, B'101', 0x41, X'41', x'4142', 12345678901234567890, 1.0e-5",
     "SELECT ?, ... , (unknown) , (unknown) , ?, ... "},
    {"select 'x' from t where a = -1.5 and b = - 'x'", "SELECT ? FROM `t` WHERE `a` = - ? AND `b` = - ? "},
    {"create user if not exists u1@localhost", "CREATE SYSTEM_USER IF NOT EXISTS `u1` @? "},
    {"create table if not exists tz (a int default null, b int not null default 5, c varchar(3) default 'x', status int, count int)",
     "CREATE TABLE IF NOT EXISTS `tz` ( `a` INTEGER DEFAULT ? , `b` INTEGER NOT NULL DEFAULT ? , `c` VARCHARACTER (?) DEFAULT ? , STATUS INTEGER , `count` INTEGER ) "},
    {"select a from t where b is null or b <=> null or b = null", "SELECT `a` FROM `t` WHERE `b` IS NULL OR `b` <=> ? OR `b` = ? "},
    {"select a, 'it''s', \"q\\\"q\", '' from t", "SELECT `a` , ?, ... FROM `t` "},
    {"select a from t where b = 'x' # c\nand c = 1", "SELECT `a` FROM `t` WHERE `b` = ? AND `c` = ? "},
    {"select month(now()), current_time, curtime()", "SELECT SQL_TSI_MONTH ( NOW ( ) ) , CURTIME , CURTIME ( ) "},
    {"select a from t where a = +1 and -a = 1", "SELECT `a` FROM `t` WHERE `a` = + ? AND - `a` = ? "},
    {"select std(a), stddev(a), variance(a) from t", "SELECT STDDEV_POP ( `a` ) , STDDEV_POP ( `a` ) , VAR_POP ( `a` ) FROM `t` "},
    {"set session sql_mode = 'ANSI'", "SET SESSION `sql_mode` = ? "},
};

TEST(test_digest_matches_mariadb)
{
    arena_t a;
    arena_init(&a, 4096);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        char *d = sql_digest_text(&a, cases[i].sql, strlen(cases[i].sql), 0, 1024, &n);
        if (strcmp(d, cases[i].mariadb) != 0) {
            fprintf(stderr, "digest of %s\n  got  %s\n  want %s\n", cases[i].sql, d, cases[i].mariadb);
            unit_failed_checks++;
        }
        CHECK_EQ_INT(n, strlen(d));
    }
    arena_destroy(&a);
}

TEST(test_digest_budget)
{
    /* each value costs 2 bytes of the token array: a 1024-byte budget keeps the first part of a long text */
    arena_t a;
    arena_init(&a, 4096);
    char sql[20000] = "select a from t where a = 1";
    for (int i = 0; i < 1000; i++)
        strcat(sql, " or a = 1");
    size_t n;
    char *d = sql_digest_text(&a, sql, strlen(sql), 0, 1024, &n);
    CHECK(strncmp(d, "SELECT `a` FROM `t` WHERE `a` = ? OR `a` = ? ", 45) == 0);
    CHECK(n < 3000);
    char *small = sql_digest_text(&a, sql, strlen(sql), 0, 12, &n);
    CHECK_EQ_STR(small, "SELECT `a` FROM ");
    arena_destroy(&a);
}

TEST(test_digest_modes)
{
    arena_t a;
    arena_init(&a, 4096);
    size_t n;
    CHECK_EQ_STR(sql_digest_text(&a, "select \"x\" from t", 17, SQL_PARSE_ANSI_QUOTES, 1024, &n),
                 "SELECT `x` FROM `t` ");
    CHECK_EQ_STR(sql_digest_text(&a, "select a from t;", 16, 0, 1024, &n), "SELECT `a` FROM `t` ");
    arena_destroy(&a);
}

UNIT_MAIN(test_digest_matches_mariadb, test_digest_budget, test_digest_modes)
