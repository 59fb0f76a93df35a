-- CHECK constraints (MariaDB 10.11): column- and table-level, named and unnamed, 4025, check_constraint_checks,
-- ALTER TABLE ADD / DROP CONSTRAINT, SHOW CREATE TABLE, information_schema.
create table t (id int primary key, x int check (x > 0), y int, constraint chk check (x < 100), check (id <> x), check (y between 1 and 10 or y is null));
show create table t;
insert into t values (1, 5, 2);
insert into t values (2, 0, 2);
insert into t values (2, 200, 2);
insert into t values (3, 3, 2);
insert into t values (4, null, null);
insert into t values (5, 6, 11);
insert into t values (6, 7, 3), (7, -1, 3);
select * from t order by id;
update t set x = -5 where id = 1;
update t set x = 50 where id = 1;
update t set y = y + 100;
select * from t order by id;
insert ignore into t values (8, -1, 1), (9, 9, 1);
update ignore t set x = 0 where id = 9;
select * from t order by id;
insert into t values (1, 1, 1) on duplicate key update x = -1;
replace into t values (1, -2, 1);
set check_constraint_checks = 0;
insert into t values (10, -10, 99);
set check_constraint_checks = 1;
select * from t where id = 10;
-- printed forms
create table e (a int, b varchar(10), c date,
  check (a % 2 = 0 or a div 2 = 1 or -a < 3),
  check (b like 'x%' or b not like 'y'),
  check (a not in (1,2) and a not between 1 and 2),
  check (b in ('a','b')),
  check (upper(b) <> 'Q' and coalesce(a,0) >= 0),
  check (a = 1 xor b = 'x'),
  check (case when a > 1 then 1 else 0 end = 1),
  check (a+(b*2)-3 > 0 and (a+b)*2 > 0),
  check (a <=> null or a <> 5),
  check (a is true or a is not false),
  check (c > '2020-01-01'));
show create table e;
select constraint_schema = database(), table_name, constraint_name, level, check_clause from information_schema.check_constraints where constraint_schema = database() order by table_name, constraint_name;
select constraint_name, table_name, constraint_type from information_schema.table_constraints where table_schema = database() order by table_name, constraint_name;
-- errors at definition
create table bad1 (a int, constraint q check (a > 0), constraint q check (a > 1));
create table bad2 (a int, check (nosuch > 0));
-- ALTER TABLE
alter table t add constraint big check (x < 60);
alter table t add constraint small check (x < 2);
alter table t drop constraint chk;
alter table t drop constraint nosuch;
alter table t drop constraint if exists nosuch;
show create table t;
alter table t drop column y;
show create table t;
alter table t add column z int check (z <> 3);
insert into t (id, x, z) values (20, 20, 3);
insert into t (id, x, z) values (20, 20, 4);
show create table t;
create table t2 like t;
show create table t2;
-- CREATE TABLE ... SELECT keeps them and checks the rows it copies
create table ct1 (a int, check (a > 1)) select 5 as a;
show create table ct1;
create table ct2 (check (a > 1)) select 0 as a;
drop table t, t2, e, ct1;
