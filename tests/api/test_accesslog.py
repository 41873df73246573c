"""api/accesslog.py: warlog's access logger writes exactly the line gunicorn's own logger writes
with warlog's format, from the atoms that format uses alone."""

from __future__ import annotations

import datetime
import logging
import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest
from gunicorn import glogging
from gunicorn.config import Config

from api.accesslog import FORMAT, AccessLogger

CONF = Path(__file__).resolve().parents[2] / "api" / "gunicorn_conf.py"


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def line(cls, resp, environ, request_time, fmt: str = FORMAT) -> str:
    cfg = Config()
    cfg.set("access_log_format", fmt)
    cfg.set("accesslog", "-")
    logger = cls(cfg)
    logger.now = lambda: "[24/Nov/2026:10:00:00 +0000]"  # the same clock for both loggers
    got = Lines()
    logger.access_log.handlers = [got]
    req = SimpleNamespace(headers=[("AUTHORIZATION", "Bearer secret-token"), ("REFERER", "http://x/?t=secret")])
    logger.access(resp, req, environ, request_time)
    return got.lines[0]


ENVIRON = {"REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": "POST", "RAW_URI": "/api/v1/games/g/orders?token=secret",
           "PATH_INFO": "/api/v1/games/g/orders", "QUERY_STRING": "token=secret", "SERVER_PROTOCOL": "HTTP/1.1",
           "HTTP_USER_AGENT": 'curl/8 "quoted"', "HTTP_AUTHORIZATION": "Bearer secret-token",
           "HTTP_REFERER": "http://x/?t=secret"}


@pytest.mark.parametrize("resp, environ, took", [
    (SimpleNamespace(status="201 CREATED", sent=812, headers=[("Content-Type", "application/json")]), ENVIRON,
     datetime.timedelta(microseconds=12_345)),
    (SimpleNamespace(status=404, sent=0, headers=[]), {**ENVIRON, "REQUEST_METHOD": "GET"},
     datetime.timedelta(seconds=2, microseconds=999_999)),
    (SimpleNamespace(status="500 INTERNAL SERVER ERROR", headers=[]),  # nothing sent
     {k: v for k, v in ENVIRON.items() if k not in ("REMOTE_ADDR", "HTTP_USER_AGENT")}, datetime.timedelta(0)),
], ids=["created", "not-found-empty-body", "nothing-sent-no-address-no-agent"])
def test_the_line_is_gunicorns_own(resp, environ, took):
    mine = line(AccessLogger, resp, environ, took)
    assert mine == line(glogging.Logger, resp, environ, took)
    assert "secret" not in mine and "Bearer" not in mine
    assert f'"{environ["REQUEST_METHOD"]} /api/v1/games/g/orders HTTP/1.1"' in mine


def test_another_format_gets_gunicorns_every_atom():
    resp = SimpleNamespace(status="200 OK", sent=3, headers=[])
    fmt = '%(r)s %({authorization}i)s'
    took = datetime.timedelta(0)
    assert line(AccessLogger, resp, ENVIRON, took, fmt) == line(glogging.Logger, resp, ENVIRON, took, fmt) \
        == "POST /api/v1/games/g/orders?token=secret HTTP/1.1 Bearer secret-token"


def test_the_server_uses_it():
    conf = runpy.run_path(str(CONF))
    assert (conf["logger_class"], conf["access_log_format"]) == ("api.accesslog.AccessLogger", FORMAT)
