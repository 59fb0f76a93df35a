-- What `*` lists over joins, and how joins written without parentheses nest, as MariaDB 10.11:
-- a RIGHT JOIN ... ON lists its left side first (FROM as written); USING / NATURAL list the common columns
-- first, once, then each side's others (a RIGHT JOIN ... USING / NATURAL its right side first, as MariaDB swaps
-- it); `a JOIN b JOIN c ON x ON y` is a JOIN (b JOIN c ON x) ON y, and a join written without a condition joins
-- to the leftmost table of the join after it, so `a JOIN b RIGHT JOIN c ON x` is (a JOIN b) RIGHT JOIN c ON x.
-- A LEFT JOIN whose right side holds an outer join filters the group by its ON after the whole group is read.
create table p (pk int, pa int);
create table c (id int, pid int);
insert into p values (1, 10), (2, 20);
insert into c values (1, 1), (2, 3);
select * from p right join c on p.pk = c.pid order by id;
select * from c right join p on p.pk = c.pid order by pk;
select * from p natural right join c order by id, pk;
create table q (id int, pk int);
insert into q values (1, 1);
select * from p right join c on p.pk = c.pid left join q on q.pk = p.pk order by c.id;
select * from q join p right join c on p.pk = c.pid on q.id = c.id;
select p.*, c.* from p right join c on p.pk = c.pid order by c.id;
select c.*, p.pa from p right join c on p.pk = c.pid order by c.id;
create view js_v as select * from p right join c on p.pk = c.pid;
select * from js_v order by id;
select * from (select * from p right join c on p.pk = c.pid) dt order by id;
create table u1 (a int, x1 int);
create table u2 (b int, a int, x2 int);
create table u3 (y3 int, b int);
insert into u1 values (1, 11);
insert into u2 values (2, 1, 22);
insert into u3 values (33, 2);
select * from u1 join u2 using (a) join u3 using (b);
select * from u1 natural join u2 natural join u3;
select * from u1 right join u2 using (a) left join u3 using (b);
select * from u1 right join u2 using (a) right join u3 using (b);
select * from u2 natural right join u1;
-- nesting without parentheses
select count(*) from q join p join c on q.id = c.id;
select * from q left join p left join c on p.pk = c.pid on q.id = p.pk;
select count(*) from q join p left join c on q.id = c.id;
select count(*) from q left join p on q.id = p.pk join c on c.id = q.id;
select count(*) from q join p left join c on p.pk = c.pid using (pk);
select count(*) from q join (p left join c on p.pk = c.pid) on q.id = 1;
select count(*) from q cross join p join c on p.pk = c.pid on q.id = 1;
select count(*) from q left join p join c on p.pk = c.pid;
select * from q left join p;
create table e1 (a int);
create table e2 (b int);
create table e3 (c int);
create table e4 (d int);
insert into e1 values (1), (2);
insert into e2 values (1);
insert into e3 values (1), (5);
insert into e4 values (1), (7);
select * from e1 join e2 right join e3 on e2.b = e3.c order by 1, 2, 3;
select * from e1 join (e2 right join e3 on e2.b = e3.c) order by 1, 2, 3;
select * from e1 join e2 right join e3 on e1.a = e3.c order by 1, 2, 3;
select * from e1 cross join e2 left join e3 on e1.a = e3.c order by 1, 2, 3;
-- a LEFT JOIN over a group holding outer joins
select * from e1 left join (e2 left join e3 on e2.b = e3.c) on e1.a = e2.b order by 1, 2, 3;
select * from e1 left join (e2 left join e3 on e2.b = e3.c) on e1.a = e3.c order by 1, 2, 3;
select * from e1 left join (e2 left join e3 on e2.b = e3.c + 1) on e1.a = coalesce(e3.c, 2) order by 1, 2, 3;
select * from e1 left join (e2 left join (e3 join e4 on e3.c = e4.d) on e2.b = e4.d) on e1.a = e2.b order by 1, 2, 3, 4;
select * from e1 left join (e2 left join (e3 join e4 on e3.c = e4.d) on e2.b = e4.d) on e1.a = e4.d order by 1, 2, 3, 4;
select * from e1 left join (e2 left join (e3 join e4 on e3.c = e4.d) on e2.b = e4.d + 9) on e1.a + 1 = coalesce(e4.d, 3) order by 1, 2, 3, 4;
select * from e4 left join (e1 join (e2 left join e3 on e2.b = e3.c) on e1.a = e2.b) on e4.d = e1.a order by 1, 2, 3, 4;
select * from e4 left join (e1 left join (e2 left join e3 on e2.b = e3.c) on e1.a = e2.b) on e4.d = e3.c order by 1, 2, 3, 4;
select count(*) from e4 left join (e1 left join e2 on e1.a = e2.b) on e4.d = e2.b where e1.a is null;
update e4 left join (e1 left join e3 on e1.a = e3.c) on e4.d = e3.c set e4.d = e4.d + 100 where e1.a is null;
select * from e4 order by d;
drop view js_v;
drop table p, c, q, u1, u2, u3, e1, e2, e3, e4;
