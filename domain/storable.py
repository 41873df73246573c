"""What may be stored in an event: JSON every reader can read back, strictly.

A value stored in the log is read again by every replay, export, stream, page and statistic. So
it must be JSON that any reader takes: no NaN or infinity (``json.dumps`` writes them as bare
``NaN``, which is not JSON), no unpaired surrogate (not encodable as UTF-8), no integer beyond
what a double holds exactly (JavaScript's safe integers, ±(2**53 − 1); a longer one overflows a
float), object keys that are text, and a bounded depth. ``problem`` names the first value that
breaks this; the aggregate refuses an event holding one, and ``warlog import`` a line holding one.
"""

from __future__ import annotations

import math
import re
from typing import Any

MAX_SAFE_INTEGER = 2**53 - 1
MAX_DEPTH = 64  # a ruleset's state nests a few levels; far below Python's recursion limit

_SURROGATE = re.compile("[\ud800-\udfff]")


def problem(value: Any, where: str = "value") -> str | None:
    """The first value in ``value`` that a strict JSON reader cannot take back, as
    ``"<where><path>: <why>"``, or None when every value is storable."""
    found = _check(value, 0)
    if found is None:
        return None
    path, why = found
    return f"{where}{''.join(reversed(path))}: {why}"


def _check(value: Any, depth: int) -> tuple[list[str], str] | None:
    """(the path to the first unstorable value, innermost first; why), or None. The path is
    made only for a value found, and ASCII text (most of it) skips the search for surrogates."""
    kind = type(value)
    if kind is str:
        if value.isascii() or not _SURROGATE.search(value):
            return None
        return [], "text holding an unpaired surrogate"
    if kind is int:
        return None if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else ([], "a whole number beyond ±(2**53 − 1)")
    if kind is float:
        return None if math.isfinite(value) else ([], f"{value} is not a JSON number")
    if value is None or kind is bool:
        return None
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return [], f"nested deeper than {MAX_DEPTH} levels"
        for key, item in value.items():
            if type(key) is not str:
                return [], "a key that is not text"
            if not key.isascii() and _SURROGATE.search(key):
                return [], "a key holding an unpaired surrogate"
            found = _check(item, depth + 1)
            if found:
                found[0].append(f".{key}")
                return found
        return None
    if isinstance(value, (list, tuple)):
        if depth >= MAX_DEPTH:
            return [], f"nested deeper than {MAX_DEPTH} levels"
        for n, item in enumerate(value):
            found = _check(item, depth + 1)
            if found:
                found[0].append(f"[{n}]")
                return found
        return None
    for plain in (int, float, str):  # a subclass (an IntEnum in a ruleset's data) as its plain value
        if isinstance(value, plain):
            return _check(plain(value), depth)
    return None  # another type: the store's transcoder writes or refuses it
