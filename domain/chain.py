"""The tamper-evident chain: the canonical JSON of docs/dice.md and the hash of an export line.

An export line is ``{"game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"}``;
``hash`` is sha256 of the canonical JSON of the line without ``hash``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64


def canonical(obj: Any) -> bytes:
    """The canonical JSON of a value (docs/dice.md): keys sorted, no spaces, not ASCII-escaped, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def line_hash(line: dict) -> str:
    """The hash of an export line: sha256 of the canonical JSON of the line without its ``hash``."""
    return hashlib.sha256(canonical({k: v for k, v in line.items() if k != "hash"})).hexdigest()


def digest(obj: Any) -> str:
    """A stable digest of any JSON value (an order's body, for idempotency): sha256 of its canonical JSON."""
    return hashlib.sha256(canonical(obj)).hexdigest()
