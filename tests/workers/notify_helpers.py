"""A real SMTP server (aiosmtpd) and a real HTTP webhook receiver on loopback, for the
notification tests."""

from __future__ import annotations

import contextlib
import email
import http.server
import json
import threading
from email.message import Message
from typing import Iterator

from bench.server import free_port  # noqa: F401 (the notification tests take it from here)
from workers import notify


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.envelopes: list = []

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd handler hook
        self.envelopes.append(envelope)
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


@contextlib.contextmanager
def smtp_server() -> Iterator[tuple[Mailbox, int]]:
    from aiosmtpd.controller import Controller

    box = Mailbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


class Receiver:
    """Records every POST; answers ``status`` (a list is consumed one per request) and checks the
    signature as a real receiver would."""

    def __init__(self, secret: str, statuses: list[int] | None = None):
        self.secret = secret
        self.statuses = list(statuses or [])
        self.posts: list[dict] = []

    def handler(self):
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                ok = notify.verify_signature(receiver.secret, raw, self.headers.get(notify.TIMESTAMP_HEADER),
                                             self.headers.get(notify.SIGNATURE_HEADER))
                status = receiver.statuses.pop(0) if receiver.statuses else 204
                if not ok:
                    status = 401
                receiver.posts.append({"valid": ok, "status": status, "body": json.loads(raw),
                                       "headers": dict(self.headers)})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        return Handler


@contextlib.contextmanager
def webhook_receiver(secret: str, statuses: list[int] | None = None) -> Iterator[tuple[Receiver, str]]:
    receiver = Receiver(secret, statuses)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), receiver.handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver, f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()
