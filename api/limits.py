"""Rate limits (flask-limiter, counted in the app's Redis) and the bound on statistics jobs.

Each rate limit counts, per client address or per token, what abuse would repeat; beyond it the
answer is 429 with ``Retry-After`` and a problem naming the setting (api/problems.py). A limit is
a flask-limiter string ("60/minute", "20 per hour; 200 per day"), read once at start; ``0`` or
``off`` turns one off, ``WARLOG_RATE_LIMITS=off`` all of them (benchmarks and load tests do).

- **Failed authentications** (``WARLOG_LIMIT_AUTH_FAILURES``, 60/minute per address): requests
  answered 401 (a token that is not valid) or, for a join, 404 (an unknown invite code) or 409
  with an Idempotency-Key (not the key the invite was used with: a guess at the seat). Only
  failures count; once over, every request of that address that carries a token to the games' or
  jobs' routes, or joins, is 429 until the window lets it through: token and invite guessing.
- **Game creation** (``WARLOG_GAMES_PER_ADDRESS`` games, 20, within ``WARLOG_GAMES_WINDOW_SECONDS``,
  3600, per address): new games and sandboxes created (201); refused or invalid ones do not count.
- **Writes per token** (``WARLOG_LIMIT_ORDERS``, 120/minute per token): every POST, PUT or DELETE
  that carries a token (orders, seals, reveals, take-backs, concessions, standing orders,
  settings, jobs), whatever its outcome: order floods.
- **Stream openings** (``WARLOG_LIMIT_STREAMS``, 60/minute per address): event streams opened.
- **Whole-log reads** (``WARLOG_LIMIT_READS``, 60/minute per address): the reads that go through a
  game's whole stored log at each request, GET or HEAD, whatever their answer (``WHOLE_LOG_READS``: integrity,
  replay frames, history, dice, VP track, take-backs, export, and the state at the start of a turn). Each
  costs a web worker a share of a second or more on a long game; a few a second from one address
  would keep a small server busy. A fork (``FOLDING_WRITES``) folds the log up to its event
  before it may refuse, and counts too. The game page reads two of them per event it is told of.
- **Games lists** (``WARLOG_LIMIT_LISTS``, 120/minute per address): ``GET /api/v1/games`` (and its
  HEAD), with a token or without, whatever its answer. Each reads the games index and first catches
  up every public game's projections; the lobby reads one or two per load.
- **Cross-game statistics**: at most ``WARLOG_STATISTICS_JOBS`` (default 2) such jobs queued or
  running at once (api/jobs.py), beyond: 503 ``statistics_busy`` with ``Retry-After``.
- **One game's replays and statistics**: at most ``WARLOG_GAME_JOBS`` (default 4) jobs of one game
  queued or running at once (api/jobs.py), beyond: 503 ``game_jobs_busy`` with ``Retry-After``.

Counts are kept in the app's Redis (``REDIS_URL``, the embedded one under ``make run``;
``WARLOG_RATE_LIMIT_STORAGE`` names another store, e.g. ``memory://``), so every web process counts
the same requests, in a moving window (at most N within any window). A Redis that does not answer
at start means counting in each process's memory, said once in the log; one that stops answering
later, the same until it answers again. Addresses and tokens are kept as keyed hashes, never in
clear. An IPv6 client counts per /64, which one host usually holds whole. The client address is
the connection's: ``X-Forwarded-For`` is trusted only for ``WARLOG_TRUSTED_PROXIES`` proxies.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Callable, Mapping

from flask import Flask, Response, current_app, request
from flask_limiter import Limit, Limiter
from flask_limiter.errors import RateLimitExceeded
from limits import parse_many
from limits.storage import storage_from_string

from api.auth import token_in
from api.problems import problem
from workers import queue as rqueue

log = logging.getLogger("warlog.limits")

OFF = {"0", "off", "none", "no", "false"}
WRITES = {"POST", "PUT", "PATCH", "DELETE"}
CREATIONS = {"games.create_game", "games.fork_sandbox"}


ZERO = {"WARLOG_GAMES_PER_ADDRESS": "0: no limit", "WARLOG_STATISTICS_JOBS": "0: no limit",
        "WARLOG_GAME_JOBS": "0: no limit",
        "WARLOG_TRUSTED_PROXIES": "0: X-Forwarded-For is not trusted"}  # what 0 means, for the refusal


def _setting(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    raw = (environ.get(name) or "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()):
        zero = f" ({ZERO[name]})" if name in ZERO else ""
        raise ValueError(f"{name} must be a whole number{zero}, not {raw!r}")
    return int(raw)


def games_per_address(environ: Mapping[str, str] | None = None) -> int:
    return _setting("WARLOG_GAMES_PER_ADDRESS", 20, environ)


def games_window(environ: Mapping[str, str] | None = None) -> int:
    return max(1, _setting("WARLOG_GAMES_WINDOW_SECONDS", 3600, environ))


def statistics_jobs(environ: Mapping[str, str] | None = None) -> int:
    return _setting("WARLOG_STATISTICS_JOBS", 2, environ)


def game_jobs(environ: Mapping[str, str] | None = None) -> int:
    return _setting("WARLOG_GAME_JOBS", 4, environ)


def rate_limit(name: str, default: str, environ: Mapping[str, str] | None = None) -> str:
    """A limit string from ``name`` (its default when unset); "" when turned off."""
    environ = os.environ if environ is None else environ
    raw = (environ.get(name) or "").strip() or default
    if raw.lower() in OFF:
        return ""
    try:
        parse_many(raw)
    except ValueError:
        raise ValueError(f"{name} must be a rate limit such as '60/minute' or '20 per hour; 200 per day' "
                         f"(0 or off: no limit), not {raw!r}") from None
    return raw


def switch(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """``WARLOG_RATE_LIMITS``: on unless off."""
    environ = os.environ if environ is None else environ
    raw = (environ.get(name) or "on").strip().lower()
    if raw in OFF:
        return False
    if raw in {"1", "on", "yes", "true"}:
        return True
    raise ValueError(f"{name} is on or off, not {raw!r}")


# ------------------------------------------------------------------------------- the limits ----
@dataclass(frozen=True)
class RateLimit:
    """One limit: its setting, who it counts, which requests it applies to and which it counts."""

    scope: str  # the limit's name in the store and its key in PROBLEM
    setting: str
    default: str | None  # a limit string; None for game creation, made of two numbers (limit_string)
    per: str  # "address" or "token"
    applies: Callable[[], bool]
    counts: Callable[[Response], bool] | None = None  # None: every request it applies to


TOKEN_PATHS = ("/api/v1/games", "/api/v1/jobs")
# endpoint -> the end of its path (api/openapi.py documents their 429 by it): the reads that go
# through a game's whole log at each request; the state only with ?turn= (``_whole_log_read``).
WHOLE_LOG_READS = {"reads.integrity": "/integrity", "pages.game_frames": "/frames", "reads.get_history": "/history",
                   "reads.get_dice": "/dice", "reads.vp": "/vp", "reads.get_take_backs": "/take-backs",
                   "reads.export": "/export", "reads.state": "/state"}  # the API's routes that read a token
# A fork folds the source's log up to ``at`` before it may refuse (fork_hidden, an ended game): a
# POST counted as such a read, whatever its answer (a sandbox made counts as a game created too).
FOLDING_WRITES = {"games.fork_sandbox": "/sandbox"}
STREAM_PATH = "/events/stream"
LIST_PATH = "/api/v1/games"  # GET: the games list (``_games_list``; api/openapi.py documents its 429 by it)


def reads_token(path: str) -> bool:
    """True for a path whose requests may carry a token: those the failures and writes limits watch
    (api/openapi.py documents their 429s by the same test)."""
    return path.startswith(TOKEN_PATHS)


def _with_token() -> bool:
    return "Authorization" in request.headers and reads_token(request.path)


def _failed(response: Response) -> bool:
    """A token that is not valid, an unknown invite code, or a join's Idempotency-Key that is not
    the one the invite was used with (409 invite_used sent with a key): within an hour of a join
    the code and the key take the seat's token again, and the game's creator holds every code."""
    if response.status_code == 401:
        return True
    return request.endpoint == "games.join" and (
        response.status_code == 404 or (response.status_code == 409 and "Idempotency-Key" in request.headers))


def _whole_log_read() -> bool:
    if request.endpoint == "reads.state":
        return "turn" in request.args  # the state now, or after a seq, comes from the projections
    if request.endpoint in FOLDING_WRITES:
        return True
    # HEAD too: Flask answers it with the GET's view, the whole read, and throws the body away.
    return request.method in ("GET", "HEAD") and request.endpoint in WHOLE_LOG_READS


def _games_list() -> bool:
    return request.method in ("GET", "HEAD") and request.endpoint == "games.list_games"


RATE_LIMITS = (
    RateLimit("auth", "WARLOG_LIMIT_AUTH_FAILURES", "60/minute", "address",
              lambda: _with_token() or request.endpoint == "games.join", _failed),
    RateLimit("games", "WARLOG_GAMES_PER_ADDRESS", None, "address",
              lambda: request.endpoint in CREATIONS, lambda response: response.status_code == 201),
    RateLimit("orders", "WARLOG_LIMIT_ORDERS", "120/minute", "token",
              lambda: request.method in WRITES and _with_token()),
    RateLimit("streams", "WARLOG_LIMIT_STREAMS", "60/minute", "address",
              lambda: request.endpoint == "stream.stream"),
    RateLimit("reads", "WARLOG_LIMIT_READS", "60/minute", "address", _whole_log_read),
    RateLimit("lists", "WARLOG_LIMIT_LISTS", "120/minute", "address", _games_list),
)

# scope -> (problem code, what was counted: "{n}" the limit's amount)
PROBLEM = {"auth": ("too_many_failures", "this address has had {n} requests refused for a token that is not valid "
                                         "or an unknown invite code"),
           "games": ("too_many_games", "this address has created {n} games"),
           "orders": ("too_many_orders", "this token has sent {n} orders or other writes"),
           "streams": ("too_many_streams", "this address has opened {n} event streams"),
           "reads": ("too_many_reads", "this address has made {n} reads that go through a game's whole log "
                                       "(integrity, frames, history, dice, VP track, take-backs, export, "
                                       "state at a turn)"),
           "lists": ("too_many_lists", "this address has read the games list {n} times")}


def read_settings(config: dict) -> None:
    """Every setting into ``config`` unless given there (a test's config); a malformed one raises ValueError."""
    config.setdefault("WARLOG_RATE_LIMITS", switch("WARLOG_RATE_LIMITS"))
    config.setdefault("WARLOG_GAMES_PER_ADDRESS", games_per_address())
    config.setdefault("WARLOG_GAMES_WINDOW_SECONDS", games_window())
    config.setdefault("WARLOG_STATISTICS_JOBS", statistics_jobs())
    config.setdefault("WARLOG_GAME_JOBS", game_jobs())
    for limit in RATE_LIMITS:
        if limit.default is not None:
            config.setdefault(limit.setting, rate_limit(limit.setting, limit.default))
    config.setdefault("WARLOG_RATE_LIMIT_PREFIX", os.environ.get("WARLOG_RATE_LIMIT_PREFIX", "").strip() or "warlog")
    config.setdefault("WARLOG_TRUSTED_PROXIES", _setting("WARLOG_TRUSTED_PROXIES", 0))


def limit_string(limit: RateLimit) -> str:
    """The limit as the app's config has it now; "" when off (tests change the config after start)."""
    config = current_app.config
    if limit.scope == "games":
        cap = int(config["WARLOG_GAMES_PER_ADDRESS"] or 0)
        return f"{cap} per {int(config['WARLOG_GAMES_WINDOW_SECONDS'])} second" if cap > 0 else ""
    return config.get(limit.setting) or ""


# ------------------------------------------------------------------------------ who counts ----
class Keys:
    """Keyed hashes of the client's address and token: the store never holds them in clear. The
    key comes from the server's signing key, which every web process of a server shares."""

    def __init__(self, secret: bytes):
        self._secret = hashlib.sha256(b"warlog rate limits\0" + secret).digest()

    def _hash(self, text: str) -> str:
        return hmac.new(self._secret, text.encode(), hashlib.sha256).hexdigest()[:32]

    def address(self) -> str:
        raw = request.remote_addr or "unknown"
        try:
            ip = ipaddress.ip_address(raw)
        except ValueError:
            return self._hash(raw)
        if ip.version == 6:
            if ip.ipv4_mapped is not None:
                return self._hash(str(ip.ipv4_mapped))
            return self._hash(str(ipaddress.ip_network(f"{ip}/64", strict=False)))
        return self._hash(str(ip))

    def token(self) -> str:
        # The token as the server reads it, not the header as sent: 'bearer X' and 'Bearer   X'
        # are one token, with one count. A header that names no token is counted as sent.
        header = request.headers.get("Authorization", "")
        return self._hash("token " + (token_in(header) or "header " + header))


# ---------------------------------------------------------------------------------- storage ----
def storage_uri(config: Mapping) -> str:
    """``WARLOG_RATE_LIMIT_STORAGE`` (config, then environment), else the app's Redis in limits' words."""
    given = config.get("WARLOG_RATE_LIMIT_STORAGE") or os.environ.get("WARLOG_RATE_LIMIT_STORAGE", "").strip()
    if given:
        return given
    url = config.get("REDIS_URL") or rqueue.redis_url()
    return "redis+unix://" + url[len("unix://"):] if url.startswith("unix://") else url


def _storage_options(uri: str) -> dict:
    # A Redis that hangs costs a request a second at most before counting falls back to memory.
    return {"socket_connect_timeout": 1, "socket_timeout": 1} if uri.startswith("redis") else {}


def _answers(uri: str) -> bool:
    try:
        return bool(storage_from_string(uri, **_storage_options(uri)).check())
    except Exception:  # a malformed URL or a missing driver: it does not answer either
        return False


def _redacted(uri: str) -> str:
    """The storage URI without a password, for the log."""
    scheme, sep, rest = uri.partition("://")
    _, at, host = rest.rpartition("@")
    return f"{scheme}{sep}{host}" if at else uri


# ------------------------------------------------------------------------------------- app ----
def init_app(app: Flask, secret: bytes) -> Limiter:
    """The app's limiter: every limit in RATE_LIMITS, checked before each request, and the 429 problem."""
    config = app.config
    if config["WARLOG_TRUSTED_PROXIES"]:
        from werkzeug.middleware.proxy_fix import ProxyFix

        # X-Forwarded-For is trusted for exactly this many proxies in front, never by default;
        # nothing else the proxies send is.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config["WARLOG_TRUSTED_PROXIES"], x_proto=0)
    uri = storage_uri(config) if config["WARLOG_RATE_LIMITS"] else "memory://"
    if config["WARLOG_RATE_LIMITS"] and not uri.startswith("memory") and not _answers(uri):
        log.warning("rate limits: the store at %s does not answer; counting in this process's memory "
                    "(each web process counts apart) until a restart finds it", _redacted(uri))
        uri = "memory://"
    keys = Keys(secret)
    limiter = Limiter(
        keys.address,
        default_limits=[Limit(functools.partial(limit_string, limit), key_function=getattr(keys, limit.per),
                              scope=limit.scope, shared=True, exempt_when=_exempt(limit), deduct_when=limit.counts)
                        for limit in RATE_LIMITS],
        storage_uri=uri, storage_options=_storage_options(uri), strategy="moving-window",
        key_prefix=config["WARLOG_RATE_LIMIT_PREFIX"], in_memory_fallback_enabled=True,
        swallow_errors=True,  # a store failing mid-request is logged, never a 500
        headers_enabled=False, enabled=config["WARLOG_RATE_LIMITS"])
    limiter.init_app(app)
    app.extensions["warlog_limiter"] = limiter

    @app.errorhandler(RateLimitExceeded)
    def too_many(exc: RateLimitExceeded):
        limit = next(rl for rl in RATE_LIMITS if rl.scope == exc.limit.scope)
        code, what = PROBLEM[limit.scope]
        wait = retry_after(limiter)
        return problem(code, f"{what.format(n=exc.limit.limit.amount)} within {exc.limit.limit.get_expiry()} s "
                       f"({limit.setting}); try again in {wait} s", {"Retry-After": str(wait)})

    return limiter


def _exempt(limit: RateLimit) -> Callable[[], bool]:
    return lambda: not limit.applies()


def retry_after(limiter: Limiter) -> int:
    """Whole seconds until the breached limit lets a request through again: at least 1."""
    breached = limiter.current_limit
    if breached is None:
        return 1
    return max(1, math.ceil(breached.window[0] - time.time()))
