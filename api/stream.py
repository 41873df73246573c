"""A game's events, live, as Server-Sent Events: ``GET /api/v1/games/{id}/events/stream``.

Each event the caller may see (hidden information filtered per viewer, exactly as every other
read: ``api.games.lines_for``) is sent as::

    id: <seq>
    event: <event type, e.g. OrderAccepted>
    data: <the export line as JSON, plus "text": its readable line>

Where a stream starts:

- after the ``Last-Event-ID`` header (what a reconnecting EventSource sends), else
- after ``?after=SEQ``; ``?after=latest`` means "only events recorded from now on", else
- from the first event of the game.

The header wins over the query: it is where the client actually got to.

The stream begins with ``retry: 2000``, sends a ``: keep-alive`` comment when it has sent nothing
for ``WARLOG_STREAM_HEARTBEAT_SECONDS`` (15) so proxies keep the connection, and finds new events
by polling the store every ``WARLOG_STREAM_POLL_SECONDS`` (0.5): one query for events after the
last seq sent. It ends cleanly after ``WARLOG_STREAM_MAX_SECONDS`` (300, minus up to 10 % so
that streams opened together do not all reconnect together), when the server stops, or when the
client has gone; the client reconnects with ``Last-Event-ID``. Access is decided when the stream
opens, by ``caller_for`` like any other read; the token is looked at again before each batch of
events is sent, so a token revoked meanwhile (an umpire's, a spectator's, a seat's it replaced)
ends the stream before it sends anything more, and the reconnection is refused (401).

Each stream holds one of its worker's connections for its whole life (gevent workers,
api/gunicorn_conf.py). So that streams can never take every connection, a worker process serves
at most ``connections - WARLOG_STREAM_RESERVE`` (8) streams at once; beyond that a stream request
gets 503 ``stream_capacity`` with ``Retry-After``. The gunicorn config tells this module its number
of connections; without it, ``WARLOG_CONNECTIONS`` (1000) is assumed.

Tokens go in the ``Authorization`` header only, never in the query (query strings end up in
logs); a browser's EventSource cannot send that header, so browsers read the stream with
``fetch``.
"""

from __future__ import annotations

import json
import logging
import random
import select
import socket
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Callable, Iterator

from flask import Blueprint, Response, request

from api.auth import Caller, access, bearer_token, caller_for
from api.games import lines_for, service
from api.problems import ApiProblem
from api.schemas import refuse_repeated
from domain.rulesets import Ruleset, find_ruleset
from domain.service import Warlog
from domain.storage import seconds_from_env, whole_from_env
from domain.visibility import Walk

log = logging.getLogger("warlog.api.stream")

bp = Blueprint("stream", __name__, url_prefix="/api/v1")

RETRY_MS = 2000  # how long an EventSource waits before it reconnects
RETRY_AFTER = "5"  # seconds, on a 503 stream_capacity
PAGE = 200  # events per query; a long backlog is sent page by page


def _number(name: str, default: float) -> float:
    value = seconds_from_env(name, default)
    return value if value > 0 else default


@dataclass(frozen=True)
class StreamSettings:
    poll: float = 0.5
    heartbeat: float = 15.0
    max_life: float = 300.0

    @classmethod
    def from_env(cls) -> "StreamSettings":
        return cls(poll=_number("WARLOG_STREAM_POLL_SECONDS", cls.poll),
                   heartbeat=_number("WARLOG_STREAM_HEARTBEAT_SECONDS", cls.heartbeat),
                   max_life=_number("WARLOG_STREAM_MAX_SECONDS", cls.max_life))


# --------------------------------------------------------------------------------- budget ----
class StreamBudget:
    """How many streams this process may hold open at once; a thread-safe counter."""

    def __init__(self, limit: int):
        self._lock = threading.Lock()
        self._open = 0
        self.limit = limit

    @property
    def open(self) -> int:
        with self._lock:
            return self._open

    def take(self) -> "Slot | None":
        """A slot, or None when every slot is in use."""
        with self._lock:
            if self._open >= self.limit:
                return None
            self._open += 1
        return Slot(self)

    def _give_back(self) -> None:
        with self._lock:
            self._open -= 1


class Slot:
    """One open stream's place in the budget; released exactly once, however the stream ends."""

    def __init__(self, budget: StreamBudget):
        self._budget = budget
        self._lock = threading.Lock()
        self._held = True

    def release(self) -> None:
        with self._lock:
            if not self._held:
                return
            self._held = False
        self._budget._give_back()


def _env_int(name: str, default: int) -> int:
    return whole_from_env(name, default)


def budget_limit(concurrency: int | None = None, reserve: int | None = None) -> int:
    """Streams per process: the connections it serves at once minus those kept for other
    requests (may be 0: no streams)."""
    concurrency = _env_int("WARLOG_CONNECTIONS", 1000) if concurrency is None else concurrency
    reserve = _env_int("WARLOG_STREAM_RESERVE", 8) if reserve is None else reserve
    return max(0, concurrency - max(0, reserve))


_budget: StreamBudget | None = None
_budget_lock = threading.Lock()
_should_stop: Callable[[], bool] = lambda: False  # noqa: E731


def budget() -> StreamBudget:
    global _budget
    with _budget_lock:
        if _budget is None:
            _budget = StreamBudget(budget_limit())
        return _budget


def configure(concurrency: int | None = None, should_stop: Callable[[], bool] | None = None) -> None:
    """Called by the gunicorn config in each worker: how many requests it serves at once, and how
    to tell that the worker is shutting down (open streams then end at once instead of holding
    it up)."""
    global _budget, _should_stop
    with _budget_lock:
        limit = budget_limit(concurrency)
        if _budget is None:
            _budget = StreamBudget(limit)
        else:
            _budget.limit = limit
    if should_stop is not None:
        _should_stop = should_stop


# ---------------------------------------------------------------------------------- view -----
@bp.get("/games/<game_id>/events/stream")
def stream(game_id: str):
    caller = caller_for(game_id)
    token, tokens = bearer_token(), access()
    warlog = service()
    first = warlog.lines(caller.game_id, after=0, limit=1)  # GameNotFound (404) when none
    rules = find_ruleset(first[0]["data"]["ruleset"])
    after = _start_after(warlog, caller)
    slot = budget().take()
    if slot is None:
        raise ApiProblem("stream_capacity",
                         f"this server process already serves {budget().limit} event streams",
                         {"Retry-After": RETRY_AFTER})
    try:
        still_valid = (lambda: tokens.grant(token) is not None) if token else (lambda: True)
        events = _events(warlog, rules, caller, after, StreamSettings.from_env(),
                         request.environ.get("gunicorn.socket"), slot, still_valid)
        response = Response(events, mimetype="text/event-stream")
    except BaseException:
        slot.release()
        raise
    # A response that is never iterated (HEAD) gives its slot back when closed; one that is not
    # even closed (dropped by a failing after-request step), when it is collected.
    response.call_on_close(slot.release)
    weakref.finalize(response, slot.release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def _start_after(warlog: Warlog, caller: Caller) -> int:
    refuse_repeated(request.args)  # ?after=0&after=latest: a 422, as every read's repeated parameter
    raw = request.headers.get("Last-Event-ID")
    source = "Last-Event-ID"
    if raw is None or not raw.strip():
        raw, source = request.args.get("after"), "after"
    if raw is None or not raw.strip():
        return 0
    raw = raw.strip()
    if source == "after" and raw == "latest":
        return warlog.get_game(caller.game_id).version
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:  # int() refuses "²", which isdigit takes
        raise ApiProblem("bad_request", f"{source} is the seq of the last event seen, e.g. 12"
                         + (", or 'latest'" if source == "after" else ""))
    return int(raw)


# -------------------------------------------------------------------------------- stream -----
def _event(line: dict) -> str:
    data = json.dumps(line, separators=(",", ":"), ensure_ascii=False)  # one line: no raw newlines
    return f"id: {line['seq']}\nevent: {line['type']}\ndata: {data}\n\n"


def _events(warlog: Warlog, rules: Ruleset, caller: Caller, after: int, settings: StreamSettings,
            sock: socket.socket | None, slot: Slot, still_valid: Callable[[], bool] = lambda: True) -> Iterator[bytes]:
    """Runs after the view has returned: uses no request or app context, only what it was given.
    ``still_valid`` says whether the caller's token is still accepted (not revoked since)."""
    started = time.monotonic()
    ends = started + settings.max_life * random.uniform(0.9, 1.0)
    last = after
    try:
        # An ended game records nothing more (its last reveal is saved with GameEnded): once the
        # stream has caught up with it, there is nothing left to wait for.
        game = warlog.get_game(caller.game_id)
        ended = game.is_ended
        revealed = game.sealed_revealed or None  # None: whether each page holds the reveal
        # One walk through every page: an order's signature is hidden with the order.
        walk = Walk(shown_rolls=set(game.shown_rolls))
        yield f"retry: {RETRY_MS}\n\n".encode()
        quiet_since = time.monotonic()
        while True:
            page = warlog.lines(caller.game_id, after=last, limit=PAGE)
            ended = ended or any(line["type"] == "GameEnded" for line in page)
            if page:
                last = page[-1]["seq"]  # hidden events too: they are never asked for again
                shown = lines_for(caller, rules, page, walk, revealed)
                if shown:
                    if not still_valid():
                        return  # revoked since the stream opened: not one event more
                    yield "".join(_event(line) for line in shown).encode()
                    quiet_since = time.monotonic()
                if len(page) == PAGE:
                    if time.monotonic() < ends and not _should_stop():
                        continue  # more backlog: no pause
            if ended and len(page) < PAGE:
                return  # caught up with a finished game
            now = time.monotonic()
            if now >= ends or _should_stop() or _client_gone(sock):
                return
            if now - quiet_since >= settings.heartbeat:
                yield b": keep-alive\n\n"
                quiet_since = now
            time.sleep(min(settings.poll, max(0.0, ends - now)))
    except Exception:
        # Headers are sent: nothing to answer but the end of the stream; the client reconnects.
        log.exception("event stream of game %s stopped after seq %s", caller.game_id, last)
    finally:
        slot.release()


def _client_gone(sock: socket.socket | None) -> bool:
    """True when the client has closed the connection: it is readable and at its end. Without
    this a gone client would keep its place and slot until the next write fails (heartbeat)."""
    if sock is None or not hasattr(select, "poll"):
        return False
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        if not poller.poll(0):
            return False
        return sock.recv(1, socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except ValueError:  # e.g. a TLS socket, which cannot peek: rely on the next write
        return False
    except OSError:  # reset by the peer
        return True
