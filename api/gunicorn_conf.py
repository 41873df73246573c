"""Gunicorn settings for warlog: ``gunicorn -c api/gunicorn_conf.py 'api.app:create_app()'``.

Gevent workers on both stores: each connection is served by a greenlet, so a client that sends
part of a request and then nothing (a flaky link, a slowloris) holds a greenlet, not a thread,
and is closed when its request head has not arrived within ``keepalive`` seconds
(tests/reliability/test_slow_clients.py). On SQLite the store's calls do not switch greenlets:
a worker's greenlets take turns on its SQLite time (docs/operations.md, "Slow clients").

| variable | default | meaning |
|---|---|---|
| ``WEB_CONCURRENCY`` | 2 | worker processes |
| ``WARLOG_CONNECTIONS`` | 1000 | the most connections (kept-alive and half-open ones and streams included) a worker holds at once |
| ``WARLOG_STREAM_RESERVE`` | 8 | connections per worker that streams may not use |
| ``WARLOG_HOST`` | 0.0.0.0 | address to bind (``warlog serve`` passes its own, 127.0.0.1 by default) |
| ``PORT`` | 8000 | port to bind |

Command-line options still override these (``warlog serve`` passes --bind and --workers).
"""

from __future__ import annotations

import logging
import os

from gunicorn.glogging import Logger


def _positive(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number, at least 1, not {raw!r}")
    return int(raw)


_host = os.environ.get("WARLOG_HOST", "").strip() or "0.0.0.0"
bind = f"{_host}:{os.environ.get('PORT', '').strip() or '8000'}"
worker_class = "gevent"
workers = _positive("WEB_CONCURRENCY", 2)
worker_connections = _positive("WARLOG_CONNECTIONS", 1000)

# How long a wedged worker lives. On SQLite a wait for another process's lock blocks the whole
# worker, on the lock file and again in SQLite (WARLOG_LOCK_TIMEOUT each): the worker outlives both.
timeout = 30 if os.environ.get("WARLOG_DATABASE_URL", "").strip() else 2 * _positive("WARLOG_LOCK_TIMEOUT", 30) + 15
graceful_timeout = 15  # open streams end within a poll interval of SIGTERM (see post_worker_init)
keepalive = 5  # also how long a client has to send a request's head (the gevent worker's read timeout)

# gunicorn >= 25 opens a control socket at one path per user, which two servers on one machine
# would share; warlog does not use it.
control_socket_disable = True

accesslog = "-"
errorlog = "-"
loglevel = "info"
# The path without its query string (%(U)s), never a request header (Authorization holds a
# bearer token), the Referer or Basic auth's user.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'


class AccessLog(Logger):
    """gunicorn's logger, each text of an access line escaped (``api.problems.loggable``): the path
    is logged decoded, and '%0A' in it wrote a line of the client's choosing into the log."""

    def atoms(self, resp, req, environ, request_time):
        from api.problems import loggable  # in a worker, where the app is loaded

        found = super().atoms(resp, req, environ, request_time)
        return {name: loggable(value) if isinstance(value, str) else value for name, value in found.items()}


logger_class = AccessLog


class ClientTimedOut(logging.Filter):
    """Gunicorn logs a write to a client that gave up after WARLOG_CLIENT_TIMEOUT (api/app.py
    ClientTimeout) as a socket error with its traceback: it is a client that took nothing of its
    answer, said in one line, so that such clients cannot fill the log with tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, TimeoutError) and record.getMessage() == "Socket error processing request.":
            record.msg, record.args, record.exc_info, record.exc_text = (
                "a client took nothing of its answer within WARLOG_CLIENT_TIMEOUT seconds: connection closed",
                (), None, None)
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def post_worker_init(worker) -> None:
    """Tell the stream module how many connections this worker serves at once and how to see
    that it is stopping, so open streams end instead of holding it up; say a client that timed
    out in one line."""
    from api import stream

    stream.configure(concurrency=worker.cfg.worker_connections, should_stop=lambda: not worker.alive)
    worker.log.error_log.addFilter(ClientTimedOut())


def worker_exit(server, worker) -> None:
    """Close the app's store (its connection pool) while the worker still runs normally; left to
    the interpreter's exit, closing it under gevent fails and prints a traceback."""
    app = getattr(worker, "wsgi", None)
    service = getattr(app, "extensions", {}).get("warlog")
    if service is not None:
        service.close()
