"""A real SMTP server (aiosmtpd) and a real HTTP webhook receiver on loopback, for the
notification tests."""

from __future__ import annotations

import contextlib
import email
import http.server
import json
import ssl
import threading
from email.message import Message
from typing import Iterator

from standardwebhooks import Webhook, WebhookVerificationError

from bench.server import free_port  # noqa: F401 (the notification tests take it from here)


def confirm_address(access, game_id: str, seat: str, email: str, notify: bool = True) -> None:
    """Give the seat an address and confirm it as its owner does: the request, the secret its mail
    carries, the link followed (domain/access)."""
    access.set_contact(game_id, seat, email, notify)
    _, secret = access.confirmation_to_send(access.request_confirmation(game_id, seat, email))
    assert access.confirm(secret)[0] == "confirmed"


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
    """Records every request; answers ``status`` (a list is consumed one per request) and verifies
    the Standard Webhooks signature with the library as a real receiver would (401 when it fails).
    ``redirect_to`` makes it answer 302 with that Location; ``hold`` makes it wait for that event
    (``arrived`` is set once a request is in)."""

    def __init__(self, secret: str, statuses: list[int] | None = None, redirect_to: str | None = None,
                 hold: threading.Event | None = None):
        self.secret = secret
        self.statuses = list(statuses or [])
        self.redirect_to = redirect_to
        self.hold = hold
        self.arrived = threading.Event()
        self.posts: list[dict] = []
        self.requests: list[str] = []  # "METHOD path" of every request, POST or not

    def handler(self):
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                receiver.requests.append(f"GET {self.path}")
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                receiver.requests.append(f"POST {self.path}")
                receiver.arrived.set()
                if receiver.hold is not None:
                    receiver.hold.wait(120)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:  # what a receiver does, with the Standard Webhooks library
                    Webhook(receiver.secret).verify(raw, dict(self.headers))
                    ok = True
                except WebhookVerificationError:
                    ok = False
                status = receiver.statuses.pop(0) if receiver.statuses else 204
                if receiver.redirect_to:
                    status = 302
                if not ok:
                    status = 401
                receiver.posts.append({"valid": ok, "status": status, "body": json.loads(raw), "raw": raw,
                                       "headers": dict(self.headers)})
                self.send_response(status)
                if receiver.redirect_to:
                    self.send_header("Location", receiver.redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        return Handler


@contextlib.contextmanager
def webhook_receiver(secret: str, statuses: list[int] | None = None, *, host: str = "127.0.0.1",
                     redirect_to: str | None = None, hold: threading.Event | None = None,
                     tls: ssl.SSLContext | None = None) -> Iterator[tuple[Receiver, str]]:
    """A receiver on ``host`` (a loopback address; the tests trust 127.0.0.0/8 through
    WARLOG_WEBHOOK_ALLOW, the ``trusted_receivers`` fixture) and its URL; https with ``tls``."""
    receiver = Receiver(secret, statuses, redirect_to, hold)
    server = http.server.ThreadingHTTPServer((host, 0), receiver.handler())
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver, f"{'https' if tls else 'http'}://{host}:{server.server_address[1]}/hook"
    finally:
        if hold is not None:
            hold.set()
        server.shutdown()
        server.server_close()
