"""Gunicorn settings for warlog: ``gunicorn -c api/gunicorn_conf.py 'api.app:create_app()'``.

The worker class follows the store, because an open event stream (api/stream.py) holds what
serves it for minutes, and because of how each store waits:

- **PostgreSQL: gevent workers.** Each connection is served by a greenlet; a worker runs one OS
  thread that switches between them whenever one waits on a socket (the database's, the
  client's, Redis's). Orders of many games then share the worker without threads taking the
  GIL from one another (the findings in docs/benchmarks.md compare the two). psycopg waits
  cooperatively once gevent has patched the standard library, which gunicorn's gevent worker
  does before it loads the app.
- **SQLite: threaded workers (gthread).** SQLite runs inside the process: its file locks, busy
  waits and fsyncs would stop every greenlet of a worker at once, where they stop one thread.

Each worker keeps ``WARLOG_STREAM_RESERVE`` of what it can serve at once (threads, or
connections under gevent) for other requests, so streams can never starve orders and reads.

| variable | default | meaning |
|---|---|---|
| ``WEB_CONCURRENCY`` | 2 | worker processes |
| ``WARLOG_THREADS`` | 64 | SQLite (gthread): threads per worker, the most requests (streams included) a worker serves at once; a kept-alive idle connection holds no thread |
| ``WARLOG_CONNECTIONS`` | 1000 | PostgreSQL (gevent): the most connections (kept-alive ones and streams included) a worker holds at once |
| ``WARLOG_STREAM_RESERVE`` | 8 | threads (or connections) per worker that streams may not use |
| ``WARLOG_HOST`` | 0.0.0.0 | address to bind (``warlog serve`` passes its own, 127.0.0.1 by default) |
| ``PORT`` | 8000 | port to bind |

Command-line options still override these (``warlog serve`` passes --bind and --workers).

The access log goes to standard output and holds the method, the path *without* its query
string, status, size, duration and user agent: never a request header (Authorization holds a
bearer token), never a query string, never the Referer.
"""

from __future__ import annotations

import os

from api.accesslog import FORMAT


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
worker_class = "gevent" if os.environ.get("WARLOG_DATABASE_URL", "").strip() else "gthread"
workers = _positive("WEB_CONCURRENCY", 2)
threads = _positive("WARLOG_THREADS", 64)  # gthread only
worker_connections = _positive("WARLOG_CONNECTIONS", 1000)  # gevent only

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
# api/accesslog.py: the format (%(U)s is the path alone; never the query string, a header, the
# Referer or Basic auth's user) and a logger that builds only the atoms it uses.
access_log_format = FORMAT
logger_class = "api.accesslog.AccessLogger"


def post_worker_init(worker) -> None:
    """Tell the stream module how many requests this worker serves at once (its threads, or its
    connections under gevent; command-line options included) and how to see that the worker is
    stopping, so open streams end instead of holding it up. Then set aside, for the cyclic
    garbage collector, everything loading the app made (see ``_freeze_what_loading_made``)."""
    from api import stream

    cfg = worker.cfg
    stream.configure(concurrency=cfg.worker_connections if cfg.worker_class_str == "gevent" else cfg.threads,
                     should_stop=lambda: not worker.alive)
    _freeze_what_loading_made()


def _freeze_what_loading_made() -> None:
    """Move the objects alive once the app has loaded (modules, classes, functions, schemas: some
    77,000 containers) out of the collector's generations, so that its full collections stop
    walking them. Every full collection otherwise stopped the whole worker -- under gevent, every
    request it was serving -- for 26-51 ms, one every few seconds under load; with them set
    aside a full collection took 2-6 ms (bench/findings.md). They live as long as the worker
    does anyway; garbage made after this point is collected as before."""
    import gc

    gc.collect()
    gc.freeze()


def worker_exit(server, worker) -> None:
    """Close the app's store (its connection pool) while the worker still runs normally. Left to
    the interpreter's exit, the service's finalizer closes it then, which under gevent fails
    (the pool's workers are greenlets that are being finalized too) and prints a traceback."""
    app = getattr(worker, "wsgi", None)
    service = getattr(app, "extensions", {}).get("warlog")
    if service is not None:
        service.close()
