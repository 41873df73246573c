"""The tamper-evident chain: the canonical export line of an event and its hash.

An export line is ``{"game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"}``;
``hash`` is sha256 of the canonical JSON of the line without ``hash``. See docs/dice.md.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64


# One encoder for every call: json.dumps with these options builds a new JSONEncoder each time,
# which costs as much as encoding a short line. encode() keeps no state between calls.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(obj: Any) -> bytes:
    """The canonical JSON of a value: keys sorted, no spaces, UTF-8 (exactly ``json.dumps`` with these options)."""
    return _ENCODER.encode(obj).encode("utf-8")


def canonical_body(line: dict) -> bytes:
    """``canonical`` of an export line without its ``hash``: the bytes its hash is taken of.

    The same bytes as ``canonical({k: v for k, v in line.items() if k != "hash"})``, made faster
    for a line whose ``data`` holds a list of plain dice: sorting the keys of every die's dict is
    most of the encoder's time on such a line, so a die ``{nonce, sides, value}`` with int values
    is written here instead, and the encoder does the rest. Anything else takes the encoder's
    path whole. tests/unit/test_verify.py checks the two agree.
    """
    data = line.get("data")
    if type(data) is dict and "dice" in data:
        dice_json = _dice_json(data["dice"])
        if dice_json is not None:
            data_rest = dict(data)
            del data_rest["dice"]
            line_rest = dict(line)
            del line_rest["data"]
            line_rest.pop("hash", None)
            # "data" and "dice" come first in sorted order only if every other key sorts after them.
            if _keys_after(line_rest, "data") and _keys_after(data_rest, "dice"):
                return ('{"data":{"dice":' + dice_json + _rest(data_rest) + _rest(line_rest)).encode("utf-8")
    body = dict(line)
    body.pop("hash", None)
    return canonical(body)


_DIE = '{"nonce":%d,"sides":%d,"value":%d}'


def _dice_json(dice: Any) -> str | None:
    """The canonical JSON of a list of dice ``{nonce, sides, value}`` with int values; None for anything else."""
    if type(dice) is not list:
        return None
    parts = []
    for die in dice:
        if type(die) is not dict or len(die) != 3:
            return None
        nonce, sides, value = die.get("nonce"), die.get("sides"), die.get("value")
        # type() rather than isinstance: a bool is an int that JSON writes as true/false.
        if type(nonce) is not int or type(sides) is not int or type(value) is not int:
            return None
        parts.append(_DIE % (nonce, sides, value))
    return "[" + ",".join(parts) + "]"


def _keys_after(obj: dict, key: str) -> bool:
    """Whether every key of ``obj`` is a string that sorts after ``key``."""
    try:
        return not obj or min(obj) > key
    except TypeError:  # a key that is not a string
        return False


def _rest(obj: dict) -> str:
    """The members of ``obj`` after a first one already written, and the closing brace."""
    return "," + _ENCODER.encode(obj)[1:] if obj else "}"


def line_hash(game_id: str, seq: int, type_: str, timestamp: str, data: dict, prev_hash: str) -> str:
    """The hash of one export line, from its parts."""
    line = {
        "game_id": game_id,
        "seq": seq,
        "type": type_,
        "timestamp": timestamp,
        "data": data,
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical(line)).hexdigest()


def digest(obj: Any) -> str:
    """A stable digest of any JSON value (used to compare order bodies for idempotency)."""
    return hashlib.sha256(canonical(obj)).hexdigest()
