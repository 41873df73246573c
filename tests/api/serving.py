"""What the tests that serve an app on a thread share (tests/api/test_client.py, the ``serve_stub``
fixture of tests/api/conftest.py): a request handler that keeps werkzeug's request log off the
captured stderr, where the CLI under test writes its own."""

from __future__ import annotations

from werkzeug.serving import WSGIRequestHandler


class QuietHandler(WSGIRequestHandler):
    def log(self, *args, **kwargs):  # no request log on the captured stderr
        pass
