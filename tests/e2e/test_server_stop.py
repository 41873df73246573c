"""A server stopped as gunicorn is stopped (SIGTERM) says nothing alarming: each worker closes its
store while it still runs normally (api/gunicorn_conf.py ``worker_exit``). Under gevent, closing
it was left to the interpreter's exit, where the connection pool's greenlets were already being
finalized, and every worker printed a traceback."""

from __future__ import annotations

import pytest

from tests.e2e.server import http_json, live_server, store_env


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_a_stopped_server_closes_its_store_without_a_traceback(tmp_path, store):
    with store_env(store) as env:
        with live_server(tmp_path, **env) as url:
            status, _, body = http_json("POST", f"{url}/api/v1/games", {
                "ruleset": "freeform", "options": {"sides": ["Blue", "Red"], "phases": ["Move"]}})
            assert status == 201, body  # the store has been used: its pool is open
        log = url.log()
    assert log.count("Worker exiting") == 2, log[-3000:]
    assert "Traceback" not in log and "Exception ignored" not in log, log[-3000:]
