"""SQLite's writer lock (``storage.writer_lock``) under gevent, as the web workers run it
(api/gunicorn_conf.py): ``flock`` blocks the whole OS thread, so a greenlet that waited on the lock
file while another greenlet of its process held it would stop the process for good. The savers
of one process take turns on a (gevent-patched) thread lock first.

Run in a subprocess that gevent has patched, with a deadline: a hang is a failure, not a stuck run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
from gevent import monkey
monkey.patch_all()

import sys
import gevent
from domain.storage import config_from_env, writer_lock

config = config_from_env({"WARLOG_DATA_DIR": sys.argv[1]})
seen = []

def hold():
    with writer_lock(config):
        seen.append("first in")
        gevent.sleep(0.2)  # a save that waits on a socket, or any other greenlet switch
        seen.append("first out")

def wait():
    with writer_lock(config):
        seen.append("second in")

first = gevent.spawn(hold)
gevent.sleep(0.05)
second = gevent.spawn(wait)
gevent.joinall([first, second], timeout=5)
print(",".join(seen))
"""


def test_a_greenlet_waiting_for_the_writer_lock_lets_the_holder_finish(tmp_path):
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "data")], cwd=ROOT,
                              capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError("the process hung: the second greenlet's flock stopped the first") from None
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "first in,first out,second in"
