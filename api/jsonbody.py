"""JSON at the door: request bodies read within bounds, and responses written fast.

``read_body`` reads every request body the API takes (``games.load``), in one place: at most
``MAX_BODY`` bytes (with or without Content-Length), UTF-8 JSON, and within the limits below, so
that nothing a reader cannot take back reaches the service. A body that is not JSON is 400
``bad_request`` (NaN and Infinity are not JSON); a body too large is 413 ``payload_too_large``;
JSON beyond a limit is 422 ``invalid_request``, its ``errors`` naming where. docs/api.md lists
the limits.

Responses: Flask's JSON responses, written by orjson where that gives what the standard encoder gives.

An order's result is dumped by ``schemas.dump`` into plain dicts, lists, strings, numbers,
booleans and None, and then Flask's ``DefaultJSONProvider.response`` writes it with
``json.dumps`` (a new encoder each call, ``ensure_ascii``): about 3% of a web worker's samples
under Falklands orders. ``JSONProvider.response`` writes such a body with orjson instead, and
keeps orjson's text only when it reads back as the body: a NaN or an infinity (orjson writes
null, ``json.dumps`` NaN), a tuple, a UUID or another value the standard encoder writes through
Flask's ``default`` reads back as something else, and what orjson refuses (an int past 64 bits, a
key that is not a string, a subclass of str, int, dict or list, a dataclass, a date or time) is
refused outright. Every character the standard encoder escapes (``ensure_ascii``) and orjson does
not, DEL and all past ASCII, is then escaped as the standard encoder escapes it.

Then the bytes are the standard encoder's, except a float under 1e-4 (orjson writes 1e-05 as
0.00001), which reads as the same number. Anything else, and a pretty-printed response (debug,
``compact = False``), goes to Flask's. tests/api/test_jsonbody.py compares both ways.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson
from flask import Response, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

from api.problems import ApiProblem
from domain.storable import MAX_SAFE_INTEGER

ORJSON_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS

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


def read_body() -> Any:
    """The request's JSON body, within every limit of the module docstring; ``ApiProblem`` if not."""
    data = request.get_data(cache=True)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(data) >= limit:
        # Without Content-Length (a chunked body) werkzeug stops reading at the limit without
        # saying more was sent: one byte more on the input means the body was too large.
        if request.environ["wsgi.input"].read(1):
            raise RequestEntityTooLarge(f"a request body is at most {limit} bytes")
    return parse(data)


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
    found = _check(body, "", 0, [0])
    if found:
        raise _beyond(*found)
    return body


def _beyond(where: str, why: str) -> ApiProblem:
    return ApiProblem("invalid_request", f"the body is beyond a limit at {where or '_body'}: {why}",
                      errors={where or "_body": [why]})


def _check(value: Any, where: str, depth: int, count: list[int]) -> tuple[str, str] | None:
    """(where, why) of the first value beyond a limit, or None."""
    count[0] += 1
    if count[0] > MAX_VALUES:
        return where, f"more than {MAX_VALUES} values in one body"
    kind = type(value)
    if kind is str:
        if len(value) > MAX_STRING:
            return where, f"text longer than {MAX_STRING} characters"
        if BAD_TEXT.search(value):
            return where, ("text holding a control character, a bidirectional override or an unpaired "
                           "surrogate (tab and newline are allowed)")
        return None
    if kind is not dict and kind is not list:
        return None  # a number (bounded while parsing), true, false or null
    if depth >= MAX_DEPTH:
        return where, f"arrays and objects nested deeper than {MAX_DEPTH} levels"
    if len(value) > MAX_MEMBERS:
        return where, f"more than {MAX_MEMBERS} members"
    if kind is list:
        items = ((f"{where}[{n}]", item) for n, item in enumerate(value))
    else:
        for key in value:
            if len(key) > MAX_KEY or BAD_KEY.search(key):
                return where or "_body", (f"a key longer than {MAX_KEY} characters or holding a control "
                                          "character, a bidirectional override or an unpaired surrogate")
        items = ((f"{where}.{key}" if where else key, item) for key, item in value.items())
    for path, item in items:
        found = _check(item, path, depth + 1, count)
        if found:
            return found
    return None


def fast_body(obj: Any) -> bytes | None:
    """orjson's text of ``obj`` where it is what ``json.dumps`` writes (module docstring), or None."""
    try:
        text = orjson.dumps(obj, option=ORJSON_PASSTHROUGH)
    except TypeError:  # orjson.JSONEncodeError
        return None
    if orjson.loads(text) != obj:
        return None
    if not text.isascii() or b"\x7f" in text:
        text = _OUTSIDE_ASCII.sub(_escaped, text.decode("utf-8")).encode("ascii")
    return text


# What ``json.dumps`` escapes with ``ensure_ascii`` beyond what orjson escapes too (quotes,
# backslashes and control characters, written alike): DEL and every character past ASCII, which
# in JSON text only strings hold.
_OUTSIDE_ASCII = re.compile("[^\x00-\x7e]")  # (a range up to U+10FFFF takes 20 ms to compile)


def _escaped(match: re.Match) -> str:
    """A character as ``json.dumps`` escapes it: ``\\u`` and 4 lowercase hex digits, a surrogate
    pair past the Basic Multilingual Plane."""
    n = ord(match.group())
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000
    return f"\\u{0xd800 | (n >> 10):04x}\\u{0xdc00 | (n & 0x3ff):04x}"


class JSONProvider(DefaultJSONProvider):
    """Flask's provider (keys in the order the code gives them), its compact responses written
    by ``fast_body`` when it can."""

    sort_keys = False  # keep the order the code gives (legal-order fields, problems)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if not ((self.compact is None and self._app.debug) or self.compact is False):
            body = fast_body(self._prepare_response_obj(args, kwargs))
            if body is not None:
                return self._app.response_class(body + b"\n", mimetype=self.mimetype)
        return super().response(*args, **kwargs)
