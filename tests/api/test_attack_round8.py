"""The eighth attack round: what a careless client, a hostile file or a server that is not the
one meant could send, answered as the service promises (docs/api.md, README "Exit status"): a
clear error naming what to do, never a traceback nor a 5xx, nothing lost."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from api.cli import main


@pytest.fixture
def answering():
    """A local HTTP server that answers every request 200 with the JSON text ``answer.body``."""
    answer = type("Answer", (), {"body": "{}"})()

    class Handler(http.server.BaseHTTPRequestHandler):
        def _send(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            raw = answer.body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = do_PUT = do_DELETE = _send

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    answer.url = f"http://127.0.0.1:{httpd.server_port}"
    yield answer
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("body", ["[]", "null", '"x"', "5"])
@pytest.mark.parametrize("argv", [("show", "GAME"), ("games",), ("order", "GAME", "note", "hi"), ("kinds", "freeform")],
                         ids=["show", "games", "order", "kinds"])
def test_a_server_answering_json_that_is_no_warlog_answer_is_named_without_a_traceback(
        answering, tmp_path, monkeypatch, capsys, body, argv):
    """README: exit status 2 for 'a server that cannot be reached'; an answer that is not JSON was
    said so. JSON that is not an object (the wrong URL, a proxy: '[]', 'null') went on into the
    command, which ended in an AttributeError traceback."""
    for name in ("WARLOG_SERVER", "WARLOG_TOKEN", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(tmp_path / "client.json"))
    answering.body = body
    game = "11111111-2222-3333-4444-555555555555"
    code = main([game if a == "GAME" else a for a in argv] + ["--server", answering.url, "--token", "wls_x"])
    err = capsys.readouterr().err
    assert code == 2 and "is not a warlog answer" in err and f"is {answering.url}/api/v1 a warlog server?" in err, err


def test_the_list_of_rulesets_is_the_one_answer_that_is_a_list(answering):
    from api.client import WarlogClient

    answering.body = json.dumps([{"name": "freeform"}])
    assert WarlogClient(answering.url).rulesets() == [{"name": "freeform"}]
