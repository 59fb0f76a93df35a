"""sysbench (libmariadb) connects and runs a custom Lua script (lua/select_warnings.lua: SELECT with a
warning, SHOW WARNINGS, values checked in Lua) for a few seconds with several threads, with no errors.

No TLS run: sysbench 1.0 hard-codes client-key.pem / client-cert.pem / cacert.pem in its working directory
and has the server verify that client certificate, which needs a CA both servers trust; TLS is covered by
the CLI, PyMySQL and MySQLdb tests instead."""
import os
import re
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, 'lua', 'select_warnings.lua')


@pytest.mark.parametrize('mode', ['tcp', 'unix', 'compression'])
def test_sysbench_lua(target, mode):
    if not shutil.which('sysbench'):
        pytest.skip('sysbench not installed')
    cmd = ['sysbench', '--db-driver=mysql', '--mysql-user=root', '--mysql-password=', '--mysql-db=',
           '--time=2', '--threads=4', '--report-interval=0']
    if mode == 'unix':
        cmd += ['--mysql-socket=' + target.socket, '--mysql-host=localhost']
    else:
        cmd += ['--mysql-host=127.0.0.1', '--mysql-port=%d' % target.port]
    if mode == 'compression':
        cmd.append('--mysql-compression=on')
    r = subprocess.run(cmd + [SCRIPT, 'run'], capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    assert 'FATAL' not in out and 'error' not in out.lower().replace('ignored errors', ''), out[-3000:]
    events = int(re.search(r'total number of events:\s+(\d+)', out).group(1))
    assert events > 100, out[-2000:]
    assert re.search(r'ignored errors:\s+0\s', out), out[-2000:]
    assert re.search(r'reconnects:\s+0\s', out), out[-2000:]

