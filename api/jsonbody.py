"""Flask's JSON responses, written by orjson where that gives what the standard encoder gives.

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

import re
from typing import Any

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider

from domain.chain import ORJSON_PASSTHROUGH


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
