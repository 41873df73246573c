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
