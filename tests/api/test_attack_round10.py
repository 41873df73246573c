"""The tenth attack round: what the nine before missed. A job id no job can have, a request path
that writes lines of its own into the server's log, a chunked body gunicorn cannot read. (The
connections that stall after their head are tests/reliability/test_slow_clients.py's; the cap on
a game's jobs is tests/workers/test_jobs_api.py's.)"""

from __future__ import annotations

import json
import logging
import socket
from urllib.parse import urlsplit

import pytest

from tests.e2e.server import live_server


# ------------------------------------------------- a job id outside rq's alphabet is no job ----
@pytest.mark.parametrize("job_id", ["warlog-a.b", "warlog-a%20b", "warlog-%C3%A9", "warlog-%00", "warlog-a%0Ab"])
def test_a_job_id_no_job_can_have_is_404_not_a_500(sqlite_client, job_id):
    """rq takes letters, digits, '_' and '-' in a job id and raises ValueError for anything else:
    GET /api/v1/jobs/warlog-a.b was a 500 for anyone, no token needed."""
    r = sqlite_client.get(f"/api/v1/jobs/{job_id}")
    assert r.status_code == 404 and r.json["code"] == "not_found", r.get_data(as_text=True)


# ---------------------------------------------- a request's path writes no line of the log ----
def test_a_path_holding_a_line_break_is_one_line_of_the_log(sqlite_client, caplog, monkeypatch):
    """The path is decoded before it is logged: '%0A' in it was a line break in the log, so anyone
    could write lines of their choosing there (a forged order, a forged warning)."""
    from api import pages

    def fail(name):
        raise RuntimeError("a bug")

    monkeypatch.setattr(pages, "find_ruleset", fail)  # a view that fails: its path is logged with the error
    with caplog.at_level(logging.ERROR, logger="warlog.api"):
        r = sqlite_client.get("/api/v1/rulesets/x%0A2026-11-29 WARNING forged line%0D%1B[2K")
    assert r.status_code == 500 and r.json["code"] == "internal_error"
    logged = [record.getMessage() for record in caplog.records if record.name == "warlog.api"]
    assert logged and all("\n" not in m and "\r" not in m and "\x1b" not in m for m in logged), logged
    assert any("/api/v1/rulesets/x\\n2026-11-29 WARNING forged line\\r\\x1b[2K" in m for m in logged), logged


# --------------------------------------------------- a chunked body gunicorn cannot read ----
BODY = b'{"ruleset": "freeform"}'
CHUNKED = (b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Transfer-Encoding: chunked\r\n\r\n")


def sent_raw(url: str, data: bytes) -> bytes:
    """What a live server answers to ``data`` sent as it is, until it closes or 10 s pass."""
    u = urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    return got


@pytest.mark.parametrize("chunks", [b"zz\r\n" + BODY + b"\r\n0\r\n\r\n",  # a size that is no hexadecimal number
                                    b"17\r\n" + BODY + b"XX0\r\n\r\n",  # a chunk without its CRLF
                                    b"17;a\rb\r\n" + BODY + b"\r\n0\r\n\r\n",  # a bare CR in an extension
                                    b"17\r\n" + BODY[:10]])  # the client stops halfway (and closes)
def test_a_chunked_body_that_is_not_well_formed_is_400_not_a_500(tmp_path, chunks):
    """gunicorn raises its own parse errors from the body's read, which the app took for a bug:
    a 500 with a traceback in the log, for anyone (POST /api/v1/games needs no token)."""
    with live_server(tmp_path, WEB_CONCURRENCY="1") as url:
        answer = sent_raw(url, CHUNKED + chunks)
        log = url.log()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer[:300]
    assert json.loads(body)["code"] == "bad_request", body
    assert "Traceback" not in log and "unhandled error" not in log, log[-2000:]
