"""Values two JSON encoders treat differently, and comparing what they wrote
(tests/unit/test_transcoding.py, tests/api/test_jsonbody.py)."""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any


class Colour(enum.Enum):
    """A plain Enum: the standard encoder refuses it, orjson would write its value."""

    RED = "red"


class Size(enum.IntEnum):
    """An int subclass: orjson hands it to ``default``."""

    BIG = 3


@dataclasses.dataclass
class Point:
    """A dataclass: orjson hands it to ``default``, the standard encoder refuses it."""

    x: int


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN, of the same types all the way down and dicts in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def has_float(value: Any) -> bool:
    """Whether a float is anywhere in ``value`` (whose text two encoders may write differently)."""
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(has_float(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_float(v) for v in value)
    return False
