"""The access log (gunicorn's own logger with api/gunicorn_conf.py's format) holds the path
without its query string, and no request header: no bearer token, no Referer, no user.
(tests/e2e/test_stream.py and test_game_e2e.py read a real server's log.)"""

from __future__ import annotations

import datetime
import logging
import runpy
from pathlib import Path
from types import SimpleNamespace

from gunicorn import glogging
from gunicorn.config import Config

CONF = Path(__file__).resolve().parents[2] / "api" / "gunicorn_conf.py"


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_no_token_query_string_or_referer_reaches_the_access_log():
    conf = runpy.run_path(str(CONF))
    assert issubclass(conf["logger_class"], glogging.Logger)  # gunicorn's logger, its texts escaped
    cfg = Config()
    cfg.set("access_log_format", conf["access_log_format"])
    cfg.set("accesslog", "-")
    logger = conf["logger_class"](cfg)
    got = Lines()
    logger.access_log.handlers = [got]
    environ = {"REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": "POST", "RAW_URI": "/api/v1/games/g/orders?token=secret",
               "PATH_INFO": "/api/v1/games/g/orders", "QUERY_STRING": "token=secret", "SERVER_PROTOCOL": "HTTP/1.1",
               "HTTP_USER_AGENT": "curl/8", "HTTP_AUTHORIZATION": "Bearer secret-token",
               "HTTP_REFERER": "http://x/?t=secret", "REMOTE_USER": "secret-user"}
    req = SimpleNamespace(headers=[("AUTHORIZATION", "Bearer secret-token"), ("REFERER", "http://x/?t=secret")])
    resp = SimpleNamespace(status="201 CREATED", sent=812, headers=[("Content-Type", "application/json")])
    logger.access(resp, req, environ, datetime.timedelta(microseconds=12_345))
    [line] = got.lines
    assert '"POST /api/v1/games/g/orders HTTP/1.1" 201 812 12ms "curl/8"' in line
    assert "secret" not in line and "Bearer" not in line and "?" not in line
