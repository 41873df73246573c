"""The Flask app factory (flaskr style): blueprints over one application service."""

from __future__ import annotations

import logging
import os

from flask import Flask, jsonify
from werkzeug.wsgi import ClosingIterator

from api import limits, problems
from domain.access import AccessStore
from domain.damage import DamageRecords
from api.games import bp as games_bp
from api.jobs import bp as jobs_bp
from api.jsonbody import MAX_BODY, JSONProvider
from api.notify_settings import bp as notify_settings_bp
from api.annotations import bp as annotations_bp
from api.standing import bp as standing_bp
from api.openapi import bp as openapi_bp
from api.pages import bp as pages_bp
from api.reads import bp as reads_bp
from api.stream import bp as stream_bp
from domain.rulesets import find_ruleset, ruleset_names
from domain.service import Warlog
from domain.storage import StoreConfig, config_from_env, error_line, migration_lock, store_not_answering, whole_from_env


# Sent with every response; a view that sets one of them keeps its own (the pages' CSP in
# api/pages.py, /api/docs's in api/openapi.py, the sandboxed artifacts' in api/jobs.py). A JSON
# body, a static file or a problem needs no script, style or frame: nothing is allowed, and no
# other site may frame any of it.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
}


def migrate(config: StoreConfig | None = None) -> StoreConfig:
    """Create every table once: the event store, the seeds, the access tables, the read models."""
    from projections.store import ProjectionStore
    from workers.dispatch import NotifyStore

    config = config or config_from_env()
    with migration_lock(config):  # one migrating process at a time
        Warlog.migrate(config)
        service = Warlog(config)
        try:
            AccessStore.for_service(service).create_tables()
            ProjectionStore.for_service(service).create_tables()
            NotifyStore.for_service(service).create_tables(service.recorder.max_notification_id() or 0)
        finally:
            service.close()
    return config


def schema_made(service: Warlog) -> bool:
    """True once a migrate() has run to its end, of this release or an older one: its last step
    writes the dispatcher's start row. A store that does not answer raises
    (``store_not_answering``): that is not a missing schema."""
    from workers.dispatch import NotifyStore

    try:
        return NotifyStore.for_service(service)._run(
            "SELECT position FROM {t}warlog_notify_tracking WHERE name = 'dispatch'", fetch="one") is not None
    except Exception as exc:  # the table is not there yet (the error's class depends on the database)
        if store_not_answering(exc):
            raise
        return False


def schema_ready(service: Warlog) -> bool:
    """True once migrate() of this release has run to its end: the schema is made and has every
    column this release's tables name (a store an older release made gains them at migrate)."""
    from projections.store import ProjectionStore
    from workers.dispatch import NotifyStore

    return schema_made(service) and not any(
        store.for_service(service).missing_columns()
        for store in (AccessStore, ProjectionStore, NotifyStore, DamageRecords))


def wait_for_database(config: StoreConfig, timeout: float = 120.0, poll: float = 1.0) -> None:
    """For a process started before its PostgreSQL server answers (a compose file, a Procfile
    runner, a reboot): wait, saying so once, instead of ending with a traceback when the service
    cannot be made; after ``timeout`` seconds end with a message naming the cause. A server that
    answers and refuses (a wrong password, user or database: ``REFUSALS``) ends it at once, with
    the server's words. Nothing to wait for on SQLite."""
    if config.kind != "postgres":
        return
    import time

    import psycopg

    from domain.storage import postgres_dsn

    deadline = time.monotonic() + timeout
    said = False
    while True:
        try:
            with psycopg.connect(postgres_dsn(config.postgres), connect_timeout=5):
                return
        except psycopg.OperationalError as exc:
            why = error_line(exc)
            if refused(str(exc)):
                raise SystemExit(f"warlog: the database refuses the connection ({refusal_line(exc)}); "
                                 "check WARLOG_DATABASE_URL") from None
            if not said:  # once; before giving up too
                logging.getLogger("warlog").warning("waiting for the database, which does not answer (%s)", why)
                said = True
            if time.monotonic() >= deadline:
                raise SystemExit(f"warlog: the database does not answer after {timeout:.0f} s ({why}); "
                                 "check that it runs and WARLOG_DATABASE_URL") from None
        time.sleep(poll)


# What libpq says when the server answered and refused (PostgreSQL's own English texts): the
# same answer comes again however long one waits, so it ends the wait at once. Anything else
# (no answer, a server starting up or with too many clients, a text in another language) is
# waited for.
REFUSALS = ("authentication failed", "does not exist", "no pg_hba.conf entry", "no password supplied",
            "permission denied for database")


def refused(text: str) -> bool:
    return any(refusal in text for refusal in REFUSALS)


def refusal_line(exc: BaseException) -> str:
    """The server's own words from libpq's text: the line that holds the refusal."""
    for line in str(exc).splitlines():
        if refused(line):
            return " ".join(line.rsplit("failed: ", 1)[-1].split())
    return error_line(exc)


def wait_for_schema(service: Warlog, timeout: float = 120.0, poll: float = 0.5) -> None:
    """For processes started beside the one that migrates (a Procfile runner starts them all at
    once): wait for the schema instead of crashing, and never create it (see migrate); and for a
    database that does not answer yet, saying so."""
    import time

    deadline = time.monotonic() + timeout
    said = None
    while True:
        try:
            if schema_ready(service):
                return
            what, waiting, fix = "schema", "the schema (created, or upgraded, by 'warlog migrate' or 'warlog serve')", \
                "run 'warlog migrate'"
        except Exception as exc:  # store_not_answering: the database is down or unreachable
            what, fix = "database", "check that it runs and WARLOG_DATABASE_URL"
            waiting = f"the database, which does not answer ({error_line(exc)})"
        if said != what:  # once, and again if what it waits for changes; before giving up too
            logging.getLogger("warlog").warning("waiting for %s", waiting)
            said = what
        if time.monotonic() >= deadline:
            raise SystemExit(f"warlog: still waiting for {waiting} after {timeout:.0f} s; {fix}")
        time.sleep(poll)


def max_umpire_tokens(given: object = None) -> int:
    """The most live umpire tokens per game: ``given`` (a test's config), else
    WARLOG_MAX_UMPIRE_TOKENS, else 3; a whole number of at least 1, or the server does not start."""
    raw = given if given is not None else (os.environ.get("WARLOG_MAX_UMPIRE_TOKENS", "").strip() or "3")
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = 0
    if value < 1:
        raise SystemExit(f"warlog: WARLOG_MAX_UMPIRE_TOKENS is a whole number of at least 1, not {raw!r}")
    return value


def client_timeout(environ: dict | None = None) -> int:
    """``WARLOG_CLIENT_TIMEOUT``: the seconds a client has to send a request's whole body, and to
    take each part of an answer (30); a whole number, at least 1, or the server does not start."""
    return whole_from_env("WARLOG_CLIENT_TIMEOUT", 30, environ, minimum=1)


class ClientTimeout:
    """WSGI middleware: while the app answers a request, a wait on the client's socket (a read of
    the body, a write of the answer) gives up after ``seconds``. Gunicorn's gevent workers time
    only a request's head (keepalive): a client that sent its head and then took nothing of a
    large answer (an export) held its connection of the worker for good. Back to no timeout once
    the answer is written, for gunicorn's own wait for the next request on the connection. On a
    server that is not gunicorn (no ``gunicorn.socket``) it does nothing."""

    def __init__(self, app, seconds: int):
        self.app, self.seconds = app, seconds

    def __call__(self, environ: dict, start_response):
        sock = environ.get("gunicorn.socket")
        if sock is None:
            return self.app(environ, start_response)
        sock.settimeout(self.seconds)
        try:
            return ClosingIterator(self.app(environ, start_response), lambda: sock.settimeout(None))
        except BaseException:
            sock.settimeout(None)
            raise


def read_settings() -> None:
    """The settings the web process reads later, when a stream opens or a job is queued: read once
    at start too, so that a malformed one stops the app naming it (ValueError), not those requests
    with a 500."""
    from api import stream
    from workers import queue

    stream.StreamSettings.from_env(), stream.budget_limit()
    queue.job_timeout(), queue.retry_policy()


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(MAX_CONTENT_LENGTH=MAX_BODY)  # a bigger body is 413, read or not (api/jsonbody.py)
    app.json = JSONProvider(app)  # api/jsonbody.py: keys in the order the code gives
    if test_config:
        app.config.from_mapping(test_config)
    from workers.webhook_target import Allow

    try:  # a malformed WARLOG_WEBHOOK_ALLOW stops the app at start, not PUT /webhook with a 500
        Allow.from_env()
    except ValueError as exc:
        raise SystemExit(f"warlog: {exc}") from None
    try:  # the limits, read once; a malformed value stops the app at start, not each request with a 500
        limits.read_settings(app.config)
        read_settings()
        app.config.setdefault("WARLOG_CLIENT_TIMEOUT", client_timeout())
    except ValueError as exc:
        raise SystemExit(f"warlog: {exc}") from None
    app.wsgi_app = ClientTimeout(app.wsgi_app, app.config["WARLOG_CLIENT_TIMEOUT"])
    service = app.config.get("WARLOG_SERVICE") or Warlog()
    app.extensions["warlog"] = service
    app.extensions["warlog_access"] = AccessStore.for_service(service)
    from api import serverkey

    app.extensions["warlog_server_key"] = serverkey.ServerKey(serverkey.load_or_create(
        serverkey.key_path(app.config.get("WARLOG_SERVER_KEY_FILE"), service.config)))
    # Rate limits (api/limits.py); their counts are keyed with a secret the server key gives every process.
    limits.init_app(app, app.extensions["warlog_server_key"].key.private_bytes_raw())
    logging.getLogger("warlog").setLevel(logging.INFO)
    app.config["WARLOG_MAX_UMPIRE_TOKENS"] = max_umpire_tokens(app.config.get("WARLOG_MAX_UMPIRE_TOKENS"))

    problems.register(app)
    app.register_blueprint(games_bp)
    app.register_blueprint(openapi_bp)
    app.register_blueprint(reads_bp)
    app.register_blueprint(stream_bp)
    app.register_blueprint(jobs_bp)
    app.register_blueprint(notify_settings_bp)
    app.register_blueprint(standing_bp)
    app.register_blueprint(annotations_bp)
    app.register_blueprint(pages_bp)

    @app.after_request
    def security_headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.get("/healthz")
    def health():
        # A real round trip to the store, the notification log's head, within a bounded time:
        # a store that does not answer is 503 store_unavailable in seconds, not a hang.
        head = service.store_head()
        return jsonify(status="ok", store=service.config.kind, events=head or 0)

    @app.get("/api/v1/rulesets")
    def rulesets():
        return jsonify([{"name": n, "title": find_ruleset(n).title, "vp_note": find_ruleset(n).vp_note}
                        for n in ruleset_names()])

    return app
