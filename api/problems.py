"""Errors as RFC 9457 ``application/problem+json``, one table from error to status.

Every problem has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``; a rule
violation adds ``rule``, a schema error adds ``errors`` (messages per field). No error a client
can cause is a 5xx.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError
from flask import Flask, Response, json, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from domain import errors as de
from domain.storage import StoreWaitedOut, store_not_answering

log = logging.getLogger("warlog.api")

PROBLEM_JSON = "application/problem+json"

# code -> (status, title). docs/api.md lists the same table.
PROBLEMS: dict[str, tuple[int, str]] = {
    "bad_request": (400, "Malformed request"),
    "idempotency_key_required": (400, "An Idempotency-Key header is required"),
    "unauthorized": (401, "A valid token is required"),
    "forbidden": (403, "Not allowed for this token"),
    "fork_hidden": (403, "The state at this event holds information hidden from this token; only the umpire may fork there"),
    "not_found": (404, "Not found"),
    "game_not_found": (404, "No such game"),
    "method_not_allowed": (405, "Method not allowed"),
    "request_timeout": (408, "The request body did not arrive in time"),
    "version_conflict": (409, "The game changed; nothing was recorded"),
    "invite_used": (409, "This invite code has been used"),
    "confirmation_used": (409, "This confirmation link has been used"),
    "umpire_token_limit": (409, "This game has as many live umpire tokens as it may have"),
    "spectator_token_limit": (409, "This game has as many live spectator tokens as it may have"),
    "tokens_issued_limit": (409, "This game has been issued as many umpire and spectator tokens as it may ever have"),
    "stale_version": (412, "The game is not at the version given in If-Match; nothing was recorded"),
    "confirmation_expired": (410, "This confirmation link has expired"),
    "payload_too_large": (413, "Request body too large"),
    "unsupported_media_type": (415, "Send JSON (Content-Type: application/json)"),
    "invalid_request": (422, "The request does not match its schema"),
    "invalid_order": (422, "The order is malformed"),
    "rule_violation": (422, "The rules do not allow this order now"),
    "not_your_move": (422, "It is not this seat's move"),
    "signature_required": (422, "This seat registered a key: its orders, seals, reveals, other commands, token replacement and notification settings carry a signature and a head, a join sent again a signature"),
    "bad_signature": (422, "The signature is not the seat's signature of this order, seal, reveal or command; nothing was recorded"),
    "unknown_head": (422, "The head it was signed over is not a line of this game's log"),
    "signature_reused": (422, "This signature is already in the log: a signed command is recorded once"),
    "idempotency_conflict": (422, "This Idempotency-Key was used for a different order"),
    "invalid_setup": (422, "The ruleset does not accept these options"),
    "unknown_ruleset": (422, "Unknown ruleset"),
    "unknown_seat": (422, "Unknown seat"),
    "integrity_failure": (422, "The log does not verify"),
    "commitment_mismatch": (422, "The revealed orders and salt do not match the seat's commitment; nothing was recorded"),
    "invalid_fork": (422, "A sandbox cannot start at this event"),
    "too_many_games": (429, "Too many games created from this address; retry later"),
    "too_many_failures": (429, "Too many requests with a token that is not valid or an unknown invite code from this address; retry later"),
    "too_many_confirmations": (429, "Too many confirmation mails asked for this address or seat; retry later"),
    "too_many_rotations": (429, "This seat has replaced its token too often; retry later"),
    "too_many_orders": (429, "Too many orders and other writes with this token; retry shortly"),
    "too_many_streams": (429, "Too many event streams opened from this address; retry shortly"),
    "too_many_reads": (429, "Too many reads of whole game logs from this address; retry shortly"),
    "too_many_lists": (429, "Too many reads of the games list from this address; retry shortly"),
    "stream_capacity": (503, "Too many open event streams; retry shortly"),
    "statistics_busy": (503, "Statistics across games are already being made; retry shortly"),
    "game_jobs_busy": (503, "This game's replays and statistics are already being made; retry shortly"),
    "queue_unavailable": (503, "The job queue does not answer; retry shortly"),
    "store_unavailable": (503, "The game store is busy or does not answer; retry shortly"),
    "damaged_log": (409, "The stored log of this game fails verification; it takes no orders until an operator acts"),
    "internal_error": (500, "Internal server error"),
}


# What a log line never holds as it is: line breaks (\r, \n, U+2028/9) would start a line of the
# client's choosing, the other controls (a terminal's escape) and the bidirectional overrides would
# rewrite what a reader sees; the backslash too, so that a "\n" the client wrote stays told apart.
_UNLOGGABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]")


def loggable(text: str) -> str:
    """``text`` (a request's path, a header) for one line of a log: what it may not hold as it is,
    backslash-escaped as Python writes it (``\n``, ``\x1b``, ``\u2028``, ``\\``)."""
    return _UNLOGGABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class ApiProblem(Exception):
    """Raised by views for problems that are not domain errors (auth, headers, media type)."""

    def __init__(self, code: str, detail: str, headers: dict | None = None, **extra: Any):
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def problem(code: str, detail: str, headers: dict | None = None, **extra: Any) -> Response:
    status, title = PROBLEMS[code]
    body = {"type": f"/api/docs#problem-{code}", "title": title, "status": status,
            "detail": detail, "code": code, **{k: v for k, v in extra.items() if v is not None}}
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


STORE_RETRY_AFTER = "2"  # seconds, on a 503 store_unavailable

_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type"}


def register(app: Flask) -> None:
    @app.errorhandler(ApiProblem)
    def api_problem(exc: ApiProblem):
        return problem(exc.code, exc.detail, exc.headers, **exc.extra)

    @app.errorhandler(ValidationError)
    def schema_error(exc: ValidationError):
        messages = exc.messages if isinstance(exc.messages, dict) else {"_body": exc.messages}
        fields = ", ".join(sorted(str(k) for k in messages))
        return problem("invalid_request", f"invalid fields: {fields}", errors=messages)

    @app.errorhandler(de.WarlogError)
    def domain_error(exc: de.WarlogError):
        code = exc.code if exc.code in PROBLEMS else "rule_violation"
        extra: dict[str, Any] = {"rule": getattr(exc, "rule", None), "field": getattr(exc, "field", None)}
        if isinstance(exc, de.Conflict):
            extra["current_version"] = exc.current_version
        if isinstance(exc, de.IntegrityFailure):
            extra["line"] = exc.seq
        return problem(code, exc.message, **extra)

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    @app.errorhandler(StoreWaitedOut)
    def store_unavailable(exc: Exception):
        # Not a bug: a lock another writer held past WARLOG_LOCK_TIMEOUT, the connection pool
        # exhausted, the database gone away. The request's write, if any, was not committed, or
        # its outcome is unknown; a retry of an order with its Idempotency-Key settles which.
        if not store_not_answering(exc):
            return unexpected(exc)
        log.warning("store unavailable on %s %s: %s: %s", request.method, request.path, type(exc).__name__, exc)
        return problem("store_unavailable", "the game store did not answer in time (a lock held by another "
                       "writer, or no connection); retry after Retry-After seconds. An order sent again with "
                       "the same Idempotency-Key is recorded at most once.", {"Retry-After": STORE_RETRY_AFTER})

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        code = _HTTP_CODES.get(exc.code or 500, "bad_request")
        if (exc.code or 500) >= 500:
            code = "internal_error"
        headers = {"Allow": ", ".join(exc.valid_methods)} if getattr(exc, "valid_methods", None) else None
        return problem(code, exc.description or PROBLEMS[code][1], headers)

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        # A server bug: logged with its traceback, never the request's headers (tokens).
        log.exception("unhandled error on %s %s", request.method, loggable(request.path))
        return problem("internal_error", "the server failed; the error was logged")
