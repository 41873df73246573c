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


def problem(value: Any, where: str = "") -> str | None:
    """The first value in ``value`` that a strict JSON reader cannot take back, as
    ``"<path>: <why>"``, or None when every value is storable."""
    return _check(value, where or "value", 0)


def _check(value: Any, where: str, depth: int) -> str | None:
    kind = type(value)
    if kind is str:
        return f"{where}: text holding an unpaired surrogate" if _SURROGATE.search(value) else None
    if kind is int:
        return None if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else \
            f"{where}: a whole number beyond ±(2**53 − 1)"
    if kind is float:
        return None if math.isfinite(value) else f"{where}: {value} is not a JSON number"
    if value is None or kind is bool:
        return None
    if depth >= MAX_DEPTH:
        return f"{where}: nested deeper than {MAX_DEPTH} levels"
    if kind is dict or isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                return f"{where}: a key that is not text"
            if _SURROGATE.search(key):
                return f"{where}: a key holding an unpaired surrogate"
            found = _check(item, f"{where}.{key}", depth + 1)
            if found:
                return found
        return None
    if kind is list or isinstance(value, (list, tuple)):
        for n, item in enumerate(value):
            found = _check(item, f"{where}[{n}]", depth + 1)
            if found:
                return found
        return None
    if isinstance(value, int) and not isinstance(value, bool):  # an IntEnum in a ruleset's data
        return _check(int(value), where, depth)
    if isinstance(value, str):
        return _check(str(value), where, depth)
    if isinstance(value, float):
        return _check(float(value), where, depth)
    return None  # another type: the store's transcoder writes or refuses it
