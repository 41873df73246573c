"""Gunicorn settings for warlog: ``gunicorn -c api/gunicorn_conf.py 'api.app:create_app()'``.

Threaded workers (gthread), because an open event stream (api/stream.py) holds its thread for
minutes: with sync workers one stream would take a whole worker process. Each worker keeps
``WARLOG_STREAM_RESERVE`` of its threads for other requests (orders, reads), so streams can
never starve them; a kept-alive idle connection holds no thread.

| variable | default | meaning |
|---|---|---|
| ``WEB_CONCURRENCY`` | 2 | worker processes |
| ``WARLOG_THREADS`` | 64 | threads per worker: the most requests (streams included) a worker serves at once |
| ``WARLOG_STREAM_RESERVE`` | 8 | threads per worker that streams may not use |
| ``WARLOG_HOST`` | 0.0.0.0 | address to bind (``warlog serve`` passes its own, 127.0.0.1 by default) |
| ``PORT`` | 8000 | port to bind |

Command-line options still override these (``warlog serve`` passes --bind and --workers).

The access log goes to standard output and holds the method, the path *without* its query
string, status, size, duration and user agent: never a request header (Authorization holds a
bearer token), never a query string, never the Referer.
"""

from __future__ import annotations

import os


def _positive(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    value = int(raw)
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}")
    return value


_host = os.environ.get("WARLOG_HOST", "").strip() or "0.0.0.0"
bind = f"{_host}:{os.environ.get('PORT', '').strip() or '8000'}"
worker_class = "gthread"
workers = _positive("WEB_CONCURRENCY", 2)
threads = _positive("WARLOG_THREADS", 64)

# The worker's main loop reports to the arbiter every second whatever its threads do, so this is
# how long a wedged worker lives, not a limit on requests (streams end by themselves, api/stream.py).
timeout = 30
graceful_timeout = 15  # open streams end within a poll interval of SIGTERM (see post_worker_init)
keepalive = 5

# gunicorn >= 25 opens a control socket (for gunicornc) at one path per user by default, which
# two servers on one machine would share; warlog does not use it. Older gunicorns ignore this.
control_socket_disable = True

accesslog = "-"
errorlog = "-"
loglevel = "info"
# %(U)s is the path alone. Not %(r)s or %(q)s (query string), %(u)s (user of Basic auth),
# %(f)s (Referer) or any %({header}i)s.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'


def post_worker_init(worker) -> None:
    """Tell the stream module this worker's real thread count (command-line options included)
    and how to see that the worker is stopping, so open streams end instead of holding it up."""
    from api import stream

    stream.configure(threads=worker.cfg.threads, should_stop=lambda: not worker.alive)
