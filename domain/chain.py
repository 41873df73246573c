"""The tamper-evident chain: the canonical JSON of docs/dice.md and the hash of an export line.

An export line is ``{"game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"}``;
``hash`` is sha256 of the canonical JSON of the line without ``hash``. A format-1 game (created
before format 2 existed) hashes with ``canonical``; a format-2 game with RFC 8785 (``canonical_v2``)
over the line's hash form, in which every concealed field is replaced by its commitment.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import rfc8785

GENESIS = "0" * 64
Unhashable = rfc8785.CanonicalizationError  # a value RFC 8785 has no encoding for
FORMATS = (1, 2)
CONCEALED = "concealed"  # the data key naming a line's concealed fields and their salts
_HEX64 = re.compile("[0-9a-f]{64}")


def canonical(obj: Any) -> bytes:
    """The canonical JSON of a value (docs/dice.md): keys sorted, no spaces, not ASCII-escaped, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def canonical_v2(obj: Any) -> bytes:
    """RFC 8785 (JSON Canonicalization Scheme) of a value, as UTF-8: format 2's encoding."""
    return rfc8785.dumps(obj)


def field_commitment(field: str, salt: str, value: Any) -> str:
    """The commitment to a concealed field's value: sha256 of JCS({field, salt, value}), hex."""
    return hashlib.sha256(canonical_v2({"field": field, "salt": salt, "value": value})).hexdigest()


def hash_form(line: dict) -> dict:
    """A format-2 line as it is hashed: each concealed field holds its commitment (computed from
    the value and salt when the salt is there, else already a commitment) and no salt is left."""
    data = line.get("data")
    concealed = data.get(CONCEALED) if isinstance(data, dict) else None
    if not isinstance(concealed, dict):
        return line
    form = dict(data)
    for name, salt in concealed.items():
        if salt is not None:
            form[name] = field_commitment(name, salt, data.get(name))
    form[CONCEALED] = {name: None for name in concealed}
    return {**line, "data": form}


def withheld(data: Any) -> frozenset[str]:
    """The fields of a line's data that this copy holds as commitments (their salt withheld: a
    seat's or spectator's copy, docs/dice.md "Concealed fields"); empty for a full line."""
    concealed = data.get(CONCEALED) if isinstance(data, dict) else None
    if not isinstance(concealed, dict):
        return frozenset()
    return frozenset(name for name, salt in concealed.items() if salt is None)


def salted(data: Any) -> frozenset[str]:
    """The concealed fields of a line's data that this copy opens: value and salt both given."""
    concealed = data.get(CONCEALED) if isinstance(data, dict) else None
    if not isinstance(concealed, dict):
        return frozenset()
    return frozenset(name for name, salt in concealed.items() if salt is not None)


def is_commitment(value: Any) -> bool:
    """Whether ``value`` has the form of a commitment: 64 lowercase hex characters."""
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def line_hash(line: dict, fmt: int = 2) -> str:
    """The hash of an export line of a game of format ``fmt`` (by default the format of games made
    now): sha256 of the canonical JSON of the line without its ``hash`` (format 2: RFC 8785 of its
    hash form; format 1: ``canonical``)."""
    without = {k: v for k, v in line.items() if k != "hash"}
    if fmt == 1:
        return hashlib.sha256(canonical(without)).hexdigest()
    return hashlib.sha256(canonical_v2(hash_form(without))).hexdigest()


def digest(obj: Any) -> str:
    """A stable digest of any JSON value (an order's body, for idempotency): sha256 of its canonical JSON."""
    return hashlib.sha256(canonical(obj)).hexdigest()
