"""SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT and START TRANSACTION READ ONLY, against MariaDB too.
The engine has no savepoints of its own: the executor keeps the undo records of the statements after a savepoint
(sql/exec/exec.c) and the binlog events are cut back with them, so what was rolled back to a savepoint is neither in the
table nor in the binary log."""
import pymysql
import pytest

from sqlutil import binlog_insert_ids, run

BINLOG = ('--log-bin=splog', '--binlog-format=ROW', '--server-id=1')


def ids(c):
    return run(c, "SELECT GROUP_CONCAT(id, ':', v ORDER BY id) FROM sp.t")[0][0]


@pytest.mark.fresh_opts(*BINLOG)
def test_rollback_to_savepoint(fresh_target):
    c = fresh_target.connect()
    run(c, 'RESET MASTER')
    run(c, 'CREATE DATABASE sp')
    run(c, 'CREATE TABLE sp.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB')
    run(c, 'INSERT INTO sp.t VALUES (100, 0)')
    run(c, 'BEGIN')
    run(c, 'INSERT INTO sp.t VALUES (1, 0)')
    run(c, 'SAVEPOINT a')
    run(c, 'INSERT INTO sp.t VALUES (2, 0)')
    run(c, 'UPDATE sp.t SET v = 5 WHERE id = 100')
    run(c, 'SAVEPOINT b')
    run(c, 'INSERT INTO sp.t VALUES (3, 0)')
    run(c, 'DELETE FROM sp.t WHERE id = 1')
    run(c, 'ROLLBACK TO SAVEPOINT b')
    run(c, 'INSERT INTO sp.t VALUES (4, 0)')
    assert ids(c) == '1:0,2:0,4:0,100:5'
    # a failing statement after a savepoint is undone alone and does not disturb the savepoint
    with pytest.raises(pymysql.err.IntegrityError):
        run(c, 'INSERT INTO sp.t VALUES (5, 0), (2, 0)')
    run(c, 'ROLLBACK TO a')
    assert ids(c) == '1:0,100:0'
    run(c, 'SAVEPOINT a')  # the same name again replaces it
    run(c, 'INSERT INTO sp.t VALUES (6, 0)')
    run(c, 'RELEASE SAVEPOINT a')
    with pytest.raises(pymysql.err.OperationalError) as e:
        run(c, 'ROLLBACK TO SAVEPOINT a')
    assert e.value.args[0] == 1305
    run(c, 'COMMIT')
    assert ids(c) == '1:0,6:0,100:0'
    with c.cursor() as cur:
        assert binlog_insert_ids(cur, 'sp', 't') == {100, 1, 6}
    c.close()


def test_savepoint_errors_and_outside_transactions(target):
    c = target.connect()
    with pytest.raises(pymysql.err.OperationalError) as e:
        run(c, 'ROLLBACK TO SAVEPOINT nope')
    assert e.value.args[0] == 1305 and 'SAVEPOINT nope does not exist' in e.value.args[1]
    run(c, 'SAVEPOINT outside')  # accepted and forgotten in autocommit
    with pytest.raises(pymysql.err.OperationalError):
        run(c, 'RELEASE SAVEPOINT outside')
    c.close()


def test_read_only_transaction(target):
    c = target.connect()
    run(c, 'DROP DATABASE IF EXISTS ro')
    run(c, 'CREATE DATABASE ro')
    run(c, 'CREATE TABLE ro.t (id INT PRIMARY KEY) ENGINE=InnoDB')
    run(c, 'START TRANSACTION READ ONLY')
    assert run(c, 'SELECT COUNT(*) FROM ro.t') == ((0,),)
    for sql in ('INSERT INTO ro.t VALUES (1)', 'UPDATE ro.t SET id = 2', 'DELETE FROM ro.t'):
        with pytest.raises(pymysql.err.OperationalError) as e:
            run(c, sql)
        assert e.value.args[0] == 1792, sql
    run(c, 'COMMIT')
    run(c, 'INSERT INTO ro.t VALUES (1)')  # the next transaction is read-write again
    run(c, 'DROP DATABASE ro')
    c.close()


def test_commit_and_chain_and_release(target):
    c = target.connect()
    run(c, 'DROP DATABASE IF EXISTS ch')
    run(c, 'CREATE DATABASE ch')
    run(c, 'CREATE TABLE ch.t (id INT PRIMARY KEY) ENGINE=InnoDB')
    run(c, 'BEGIN')
    run(c, 'INSERT INTO ch.t VALUES (1)')
    run(c, 'COMMIT AND CHAIN')
    run(c, 'INSERT INTO ch.t VALUES (2)')  # inside the chained transaction
    run(c, 'ROLLBACK')
    run(c, 'BEGIN')
    run(c, 'INSERT INTO ch.t VALUES (3)')
    run(c, 'ROLLBACK AND CHAIN')
    run(c, 'INSERT INTO ch.t VALUES (4)')
    run(c, 'COMMIT')
    assert run(c, 'SELECT GROUP_CONCAT(id ORDER BY id) FROM ch.t') == (('1,4',),)
    run(c, 'BEGIN')
    run(c, 'INSERT INTO ch.t VALUES (5)')
    run(c, 'COMMIT RELEASE')
    with pytest.raises(pymysql.err.OperationalError):
        run(c, 'SELECT 1')  # the server closed the connection
    c = target.connect()
    assert run(c, 'SELECT GROUP_CONCAT(id ORDER BY id) FROM ch.t') == (('1,4,5',),)
    run(c, 'DROP DATABASE ch')
    c.close()
