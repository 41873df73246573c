"""api/gunicorn_conf.py: gevent workers on both stores, and the stream budget follows the
connections a worker serves at once. (tests/e2e runs real servers on both stores.)"""

from __future__ import annotations

import logging
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from api import stream

CONF = Path(__file__).resolve().parents[2] / "api" / "gunicorn_conf.py"


def settings(monkeypatch, **env) -> dict:
    for name in ("WARLOG_DATABASE_URL", "WARLOG_LOCK_TIMEOUT", "WARLOG_CONNECTIONS", "WARLOG_STREAM_RESERVE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))


def initialised_worker(conf: dict, log: logging.Logger | None = None) -> SimpleNamespace:
    """A stand-in for a gunicorn worker, after the config's post_worker_init."""
    worker = SimpleNamespace(alive=True, cfg=SimpleNamespace(
        worker_class_str=conf["worker_class"], worker_connections=conf["worker_connections"]),
        log=SimpleNamespace(error_log=log or logging.getLogger("tests.gunicorn_conf.error")))
    conf["post_worker_init"](worker)
    return worker


def budget_after_worker_init(conf: dict) -> int:
    initialised_worker(conf)
    return stream.budget().limit


@pytest.fixture(autouse=True)
def own_stream_budget(monkeypatch):
    """The stream module's budget and stop check as they were, once the test is over."""
    monkeypatch.setattr(stream, "_budget", None)
    monkeypatch.setattr(stream, "_should_stop", stream._should_stop)
    yield


@pytest.mark.parametrize("database_url", ["", "  ", "postgresql://postgres@127.0.0.1:5432/test"])
def test_both_stores_are_served_by_gevent_workers_whose_connections_bound_the_streams(monkeypatch, database_url):
    """A slow client holds a greenlet, not a thread (tests/reliability/test_slow_clients.py)."""
    conf = settings(monkeypatch, WARLOG_DATABASE_URL=database_url, WARLOG_CONNECTIONS="300",
                    WARLOG_STREAM_RESERVE="10")
    assert conf["worker_class"] == "gevent"
    assert conf["worker_connections"] == 300
    assert budget_after_worker_init(conf) == 290


def test_on_sqlite_a_worker_outlives_its_waits_for_another_process_lock(monkeypatch):
    """A wait on the lock file and then in SQLite blocks the whole gevent worker."""
    assert settings(monkeypatch, WARLOG_LOCK_TIMEOUT="5")["timeout"] == 25
    assert settings(monkeypatch)["timeout"] == 75
    assert settings(monkeypatch, WARLOG_DATABASE_URL="postgresql://x/y")["timeout"] == 30


def test_a_connection_limit_below_one_is_refused(monkeypatch):
    with pytest.raises(ValueError, match="WARLOG_CONNECTIONS must be a whole number, at least 1"):
        settings(monkeypatch, WARLOG_DATABASE_URL="postgresql://x/y", WARLOG_CONNECTIONS="0")



def test_a_client_that_took_nothing_of_its_answer_is_one_line_of_the_log_not_a_traceback(monkeypatch):
    """WARLOG_CLIENT_TIMEOUT (api/app.py ClientTimeout) ends a write to a client that reads nothing;
    gunicorn logs that as a socket error with a traceback, which such clients could repeat at will."""
    log = logging.getLogger("tests.gunicorn_conf.timed_out")
    log.filters.clear()
    initialised_worker(settings(monkeypatch), log)
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append
    log.addHandler(handler)
    try:
        for error in (TimeoutError("timed out"), OSError(5, "Input/output error")):
            try:
                raise error
            except OSError:
                log.error("Socket error processing request.", exc_info=sys.exc_info())
    finally:
        log.removeHandler(handler)
    timed_out, other = seen
    assert (timed_out.levelno, timed_out.exc_info) == (logging.INFO, None), timed_out.__dict__
    assert "took nothing of its answer within WARLOG_CLIENT_TIMEOUT" in timed_out.getMessage()
    assert other.levelno == logging.ERROR and other.exc_info is not None  # any other socket error as before


def test_a_path_holding_a_line_break_is_one_line_of_the_access_log(monkeypatch):
    """gunicorn logs the decoded path (%(U)s): '%0A' in it wrote a line of the client's choosing
    into the access log, e.g. a forged order from another address."""
    from datetime import timedelta

    from gunicorn.config import Config

    conf = settings(monkeypatch)
    cfg = Config()
    cfg.set("access_log_format", conf["access_log_format"])
    logger = conf["logger_class"](cfg)
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/x", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "10.0.0.9",
               "PATH_INFO": '/api/v1/games/x\n10.0.0.1 [29/Nov/2026] "POST /api/v1/games/g/orders HTTP/1.1" 201\x1b[2K',
               "HTTP_USER_AGENT": "agent\u2028two"}
    response = SimpleNamespace(status="404 NOT FOUND", sent=12, headers=[])
    atoms = logger.atoms(response, SimpleNamespace(headers=[]), environ, timedelta(milliseconds=3))
    line = conf["access_log_format"] % atoms
    assert "\n" not in line and "\x1b" not in line and "\u2028" not in line, line
    assert '/api/v1/games/x\\n10.0.0.1 [29/Nov/2026] "POST' in line and "\\x1b[2K" in line and "agent\\u2028two" in line
