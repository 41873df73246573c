"""JSON at the door: request bodies read within bounds, and the app's JSON provider.

``read_body`` reads every request body the API takes (``games.load``), in one place (``body_bytes``,
which the page's one form reads through too): at most
``MAX_BODY`` bytes (with or without Content-Length), UTF-8 JSON, and within the limits below, so
that nothing a reader cannot take back reaches the service. A body that is not JSON is 400
``bad_request`` (NaN and Infinity are not JSON); a body too large is 413 ``payload_too_large``;
JSON beyond a limit is 422 ``invalid_request``, its ``errors`` naming where; a body that has not
all arrived within ``WARLOG_CLIENT_TIMEOUT`` seconds of the first read is 408 ``request_timeout``.
docs/api.md lists the limits.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from typing import Any

import gevent
from gevent import monkey
from flask import current_app, request
from gunicorn.http.errors import ParseException
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

from api.problems import ApiProblem
from domain.storable import MAX_SAFE_INTEGER

MAX_BODY = 64 * 1024  # bytes; an order is small (api/app.py sets it as Flask's MAX_CONTENT_LENGTH)
MAX_DEPTH = 16  # arrays and objects nested in one another
MAX_MEMBERS = 200  # members of one object, items of one array
MAX_VALUES = 2000  # values in the whole body
MAX_STRING = 4000  # characters of one string (the longest free text: a freeform note)
MAX_KEY = 100  # characters of one object key
MAX_DIGITS = 16  # digits of a whole number: more cannot be within ±MAX_SAFE_INTEGER

# Never in a text: C0 controls but tab and newline (CR too: it rewrites a terminal's line), DEL
# and the C1 controls, the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069:
# they reorder what a reader sees), and surrogates (a lone one cannot be written as UTF-8).
BAD_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
BAD_KEY = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")  # tab and newline too


class _Refused(ValueError):
    """A number the body may not hold, met while parsing."""


class _NotJSON(ValueError):
    """NaN, Infinity or -Infinity: Python's decoder takes them, JSON has no such values."""


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS or abs(value := int(text)) > MAX_SAFE_INTEGER:
        raise _Refused(f"a whole number beyond ±{MAX_SAFE_INTEGER} (2**53 − 1)")
    return value


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:20]} is too large for a double")
    return value


def _constant(text: str) -> Any:
    raise _NotJSON(f"{text} is not a JSON value (JSON numbers are finite)")


_DECODER = json.JSONDecoder(parse_int=_whole, parse_float=_real, parse_constant=_constant)


class _Late(Exception):
    """The request body had not all arrived by its deadline."""


def read_body() -> Any:
    """The request's JSON body, within every limit of the module docstring; ``ApiProblem`` if not."""
    return parse(body_bytes())


def body_bytes() -> bytes:
    """The request's body, whole, within MAX_BODY and WARLOG_CLIENT_TIMEOUT; ``ApiProblem`` if not.
    Kept (werkzeug's cache), so that a form parsed after it (api/pages) reads it from here."""
    seconds = current_app.config["WARLOG_CLIENT_TIMEOUT"]
    try:
        # Gunicorn times a request's head (keepalive), not its body: a client that sends its head
        # and then part of a body, or nothing, would hold its connection of the worker for good.
        # One deadline for the whole body (a reader that waits per read is held by a trickle),
        # kept by gevent's hub under the gevent workers; a server without gevent has none to keep.
        with gevent.Timeout(seconds, _Late) if monkey.is_module_patched("socket") else contextlib.nullcontext():
            data = request.get_data(cache=True)
            limit = request.max_content_length
            if request.content_length is None and limit is not None and len(data) >= limit:
                # Without Content-Length (a chunked body) werkzeug stops reading at the limit without
                # saying more was sent: one byte more on the input means the body was too large.
                if request.environ["wsgi.input"].read(1):
                    raise RequestEntityTooLarge(f"a request body is at most {limit} bytes")
    except (_Late, TimeoutError):  # TimeoutError: one read waited as long (api/app.py ClientTimeout)
        # What is left of the body gunicorn reads within keepalive, as it reads a request's head,
        # before the connection serves another request; else it closes the connection.
        raise ApiProblem("request_timeout", f"the request body had not all arrived after {seconds} s "
                         "(WARLOG_CLIENT_TIMEOUT); send the request again") from None
    except ParseException as exc:  # gunicorn reads a chunked body as the app asks for it
        raise ApiProblem("bad_request", f"the body's chunked transfer coding is malformed ({exc})") from None
    return data


def parse(data: bytes) -> Any:
    """``data`` as JSON, within every limit of the module docstring; ``ApiProblem`` if not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiProblem("bad_request", "the body is not UTF-8 text") from None
    try:
        body = _DECODER.decode(text)
    except _NotJSON as exc:
        raise ApiProblem("bad_request", f"the body is not valid JSON: {exc}") from None
    except _Refused as exc:
        raise _beyond("_body", str(exc)) from None
    except RecursionError:
        raise _beyond("_body", f"arrays and objects nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # json.JSONDecodeError: its message says where, nothing of Python
        raise ApiProblem("bad_request", f"the body is not valid JSON: {exc}") from None
    found = _check(body)
    if found:
        raise _beyond(*found)
    return body


def _beyond(where: str, why: str) -> ApiProblem:
    return ApiProblem("invalid_request", f"the body is beyond a limit at {where or '_body'}: {why}",
                      errors={where or "_body": [why]})


def _check(body: Any) -> tuple[str, str] | None:
    """(where, why) of the first value of ``body`` beyond a limit, or None."""
    values = 0

    def check(value: Any, where: str, depth: int) -> tuple[str, str] | None:
        nonlocal values
        values += 1
        if values > MAX_VALUES:
            return where, f"more than {MAX_VALUES} values in one body"
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                return where, f"text longer than {MAX_STRING} characters"
            if BAD_TEXT.search(value):
                return where, ("text holding a control character, a bidirectional override or an unpaired "
                               "surrogate (tab and newline are allowed)")
            return None
        if not isinstance(value, (dict, list)):
            return None  # a number (bounded while parsing), true, false or null
        if depth >= MAX_DEPTH:
            return where, f"arrays and objects nested deeper than {MAX_DEPTH} levels"
        if len(value) > MAX_MEMBERS:
            return where, f"more than {MAX_MEMBERS} members"
        if isinstance(value, list):
            items = [(f"{where}[{n}]", item) for n, item in enumerate(value)]
        else:
            for key in value:
                if len(key) > MAX_KEY or BAD_KEY.search(key):
                    return where or "_body", (f"a key longer than {MAX_KEY} characters or holding a control "
                                              "character, a bidirectional override or an unpaired surrogate")
            items = [(f"{where}.{key}" if where else key, item) for key, item in value.items()]
        for path, item in items:
            found = check(item, path, depth + 1)
            if found:
                return found
        return None

    return check(body, "", 0)


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON provider, keeping keys in the order the code gives them (legal-order fields,
    problems) instead of sorting them."""

    sort_keys = False
