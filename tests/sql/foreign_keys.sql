-- FOREIGN KEY constraints, enforced as InnoDB does (MariaDB 10.11): definitions, SHOW CREATE TABLE,
-- information_schema, checks, referential actions, foreign_key_checks, DDL guards.
create table p (id int primary key, b int, name varchar(20), unique key (b), key (name));
create table c (id int primary key, pid int, constraint fk1 foreign key (pid) references p(id) on delete cascade on update set null);
create table c2 (id int, pid int, foreign key (pid) references p(id), foreign key (id) references p(b) on delete no action on update restrict);
create table c3 (a int references p(id) on update cascade);
create table c4 (n varchar(30), foreign key (n) references p(name) on delete set null on update cascade);
show create table c;
show create table c2;
show create table c3;
show create table c4;
-- errors at CREATE
create table e1 (id int, foreign key (id) references nosuch(id));
create table e2 (id bigint, foreign key (id) references p(id));
create table e3 (id int unsigned, foreign key (id) references p(id));
create table e4 (id int, foreign key (id) references p(nocol));
create table e5 (id int, foreign key (nocol) references p(id));
create table e6 (id int not null, foreign key (id) references p(id) on delete set null);
create table e7 (a int, b int, foreign key (a, b) references p(id));
create table e8 (a int, constraint fk1 foreign key (a) references p(id));
create table e9 (a varchar(5) character set latin1, foreign key (a) references p(name));
create table e10 (a int, foreign key (a) references p(id) on delete set default);
show create table e10;
drop table e10;
-- child side: 1452
insert into c values (1, 5);
insert into c values (1, null);
insert into p values (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three');
insert into c values (2, 1), (3, 2), (4, 3);
insert into c2 values (10, 1), (20, 2);
insert into c2 values (11, 1);
insert into c3 values (1), (2), (null);
insert into c4 values ('one'), ('two'), ('ONE');
insert into c4 values ('four');
insert ignore into c values (5, 77), (6, 1), (7, 78);
select * from c where id >= 5 order by id;
delete from c where id = 6;
update c set pid = 9 where id = 2;
update c set pid = 3 where id = 2;
select * from c order by id;
-- parent side: RESTRICT / NO ACTION
delete from p where id = 1;
update p set b = 11 where id = 1;
update p set id = 5 where id = 1;
-- CASCADE / SET NULL
delete from c2;
delete from p where id = 3;
select * from c order by id;
select * from c4 order by n;
update p set name = 'uno' where id = 1;
select * from c4 order by n;
update p set id = 7 where id = 2;
select * from c order by id;
select * from c3 order by a;
delete from p where id = 1;
select * from c order by id;
select * from c4 order by n;
-- a statement that fails half-way leaves nothing behind
insert into p values (40, 40, 'forty');
insert into c values (40, 40), (41, 99);
select * from c where id >= 40;
-- self-referencing tables
create table s (id int primary key, pid int, foreign key (pid) references s(id) on delete cascade);
insert into s values (1, null), (2, 1), (3, 2), (4, 4), (5, 9);
insert into s values (5, 5);
delete from s where id = 1;
select * from s order by id;
delete from s where id = 4;
select * from s order by id;
create table s2 (id int primary key, pid int, foreign key (pid) references s2(id));
insert into s2 values (1, 1);
delete from s2;
create table s3 (id int primary key, pid int, foreign key (pid) references s3(id) on update cascade);
insert into s3 values (1, null), (2, 1);
update s3 set id = 5 where id = 1;
-- foreign_key_checks
set foreign_key_checks = 0;
insert into c values (50, 999);
create table late (id int, foreign key (id) references not_yet(id));
show create table late;
delete from p where id = 40;
set foreign_key_checks = 1;
select * from c where id >= 40 order by id;
insert into c values (51, 998);
-- DDL guards
drop table p;
truncate table p;
drop table p, c;
alter table c drop column pid;
alter table p drop column id;
alter table c drop index fk1;
alter table c modify pid bigint;
alter table p modify id bigint;
-- ALTER TABLE ADD / DROP FOREIGN KEY
alter table c2 drop foreign key nosuch;
alter table c2 drop foreign key if exists nosuch;
alter table c2 drop foreign key c2_ibfk_1;
show create table c2;
alter table c2 drop index pid;
alter table c2 add constraint zz foreign key (pid) references p(b) on delete cascade;
show create table c2;
alter table c2 drop constraint zz;
alter table c2 drop constraint nosuch;
show create table c2;
create table ac (id int primary key, x int);
insert into ac values (1, 40), (2, 12345);
-- @diff MariaDB names its temporary copy (#sql-alter-...) in the message
alter table ac add constraint acf foreign key (x) references p(id);
select count(*) from ac;
delete from ac where id = 2;
insert into p values (40, 40, 'forty');
alter table ac add constraint acf foreign key (x) references p(id);
show create table ac;
alter table ac rename column x to y;
show create table ac;
-- information_schema
select constraint_name, table_name, constraint_type from information_schema.table_constraints where table_schema = database() order by table_name, constraint_type, constraint_name;
select constraint_name, unique_constraint_schema = database(), unique_constraint_name, match_option, update_rule, delete_rule, table_name, referenced_table_name from information_schema.referential_constraints where constraint_schema = database() order by table_name, constraint_name;
select constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint, referenced_table_schema = database(), referenced_table_name, referenced_column_name from information_schema.key_column_usage where table_schema = database() and referenced_table_name is not null order by table_name, constraint_name, ordinal_position;
-- multi-column keys
create table mp (a int, b int, primary key (a, b));
create table mc (x int, y int, constraint mcf foreign key (x, y) references mp(a, b) on delete cascade);
show create table mc;
insert into mp values (1, 1), (1, 2);
insert into mc values (1, 1), (1, 2), (1, null), (2, null);
insert into mc values (2, 1);
delete from mp where b = 1;
select * from mc order by x, y;
-- cascades nest, to InnoDB's depth
create table d0 (id int primary key);
create table d1 (id int primary key, foreign key (id) references d0(id) on delete cascade);
create table d2 (id int primary key, foreign key (id) references d1(id) on delete cascade);
create table d3 (id int primary key, foreign key (id) references d2(id) on delete cascade);
insert into d0 values (1), (2);
insert into d1 values (1), (2);
insert into d2 values (1), (2);
insert into d3 values (1);
delete from d0 where id = 1;
select (select count(*) from d1), (select count(*) from d2), (select count(*) from d3);
drop table d3, d2, d1, d0;
-- temporary tables have none; a database whose tables others reference stays
create temporary table tt (a int, foreign key (a) references p(id));
create database fk_other_db;
create table fk_other_db.op (id int primary key);
create table oc (a int, foreign key (a) references fk_other_db.op(id));
show create table oc;
drop database fk_other_db;
drop table oc;
drop database fk_other_db;
drop table mc, mp, ac, late, s3, s2, s, c4, c3, c2, c, p;
-- RENAME TABLE: the references follow the parent, and a self-reference its table
create table rp (id int primary key);
create table rc (id int primary key, pid int, constraint rcf foreign key (pid) references rp(id));
create table rs (id int primary key, pid int, constraint rsf foreign key (pid) references rs(id));
insert into rp values (1);
insert into rc values (1, 1);
rename table rp to rp2, rs to rs2;
show create table rc;
show create table rs2;
insert into rc values (2, 2);
insert into rs2 values (1, null), (2, 1);
insert into rs2 values (3, 9);
delete from rp2;
alter table rp2 rename to rp3;
show create table rc;
select referenced_table_name from information_schema.referential_constraints where constraint_schema = database() and constraint_name = 'rcf';
drop table rc, rp3, rs2;
