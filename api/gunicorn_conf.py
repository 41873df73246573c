"""Gunicorn settings for warlog: ``gunicorn -c api/gunicorn_conf.py 'api.app:create_app()'``.

Gevent workers, on both stores. Each connection is served by a greenlet; a worker runs one OS
thread that switches between them whenever one waits on a socket (the client's, the database's,
Redis's). A client is only waited for while it sends: a connection that sends part of a request
and then nothing (a flaky mobile link, a slowloris) holds one greenlet, not a thread, and gunicorn
closes it when its request head has not arrived within ``keepalive`` seconds.

Why not threads (gthread), which served SQLite until issue 29: a gthread worker hands a
connection to a thread as soon as its first bytes arrive, and the thread then reads the rest of
the head with no timeout. Two workers of 64 threads were stopped by 130-140 connections that
never finished their headers, for as long as they stayed open (fewer with event streams open,
each holding a thread). ``tests/reliability/test_slow_clients.py`` holds 300 of them and 30
streams open and checks that /healthz and an order still answer within seconds, on both stores.

On SQLite, the store runs inside the process and its calls do not switch greenlets:

- a save takes the lock file beside the database (``storage.writer_lock``), whose ``flock``
  blocks the whole worker while another *process* saves (one save's time). Within a process,
  savers take turns on a thread lock first, which gevent makes a greenlet lock, so a greenlet
  never waits in ``flock`` on its own process (tests/integration/test_writer_lock_gevent.py);
  ``GroupCommit`` has one leader per process anyway;
- eventsourcing's SQLite pool hands out one writing connection per process at a time, behind a
  (greenlet) lock taken before ``BEGIN``; SQLite's own busy wait, which blocks the worker, then
  only waits for another process's write (the projector's, a worker's), as long as it lasts;
- reads in WAL mode wait for no writer.

So a worker's greenlets share its SQLite time, where threads shared the GIL; what is gained is
that a slow or idle client costs nothing. PostgreSQL's driver (psycopg) waits cooperatively once
gevent has patched the standard library, which gunicorn's gevent worker does before it loads the
app.

Each worker keeps ``WARLOG_STREAM_RESERVE`` of the connections it serves at once for other
requests, so streams can never starve orders and reads.

| variable | default | meaning |
|---|---|---|
| ``WEB_CONCURRENCY`` | 2 | worker processes |
| ``WARLOG_CONNECTIONS`` | 1000 | the most connections (kept-alive and half-open ones and streams included) a worker holds at once |
| ``WARLOG_STREAM_RESERVE`` | 8 | connections per worker that streams may not use |
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
worker_class = "gevent"  # on both stores: see the docstring
workers = _positive("WEB_CONCURRENCY", 2)
worker_connections = _positive("WARLOG_CONNECTIONS", 1000)

# The worker's main loop reports to the arbiter every second while its greenlets wait, so this is
# how long a wedged worker lives, not a limit on requests (streams end by themselves, api/stream.py).
# On SQLite a wait for another process's lock blocks the whole worker, for up to the lock timeout
# on the lock file and again in SQLite (docs/configuration.md): the worker outlives both.
timeout = 30 if os.environ.get("WARLOG_DATABASE_URL", "").strip() else 2 * _positive("WARLOG_LOCK_TIMEOUT", 30) + 15
graceful_timeout = 15  # open streams end within a poll interval of SIGTERM (see post_worker_init)
keepalive = 5  # also how long a client has to send a request's head (the gevent worker's read timeout)

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
    """Tell the stream module how many requests this worker serves at once (its connections;
    command-line options included) and how to see that the worker is stopping, so open streams
    end instead of holding it up. Then set aside, for the cyclic garbage collector, everything
    loading the app made (see ``_freeze_what_loading_made``)."""
    from api import stream

    cfg = worker.cfg
    stream.configure(concurrency=cfg.worker_connections, should_stop=lambda: not worker.alive)
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
