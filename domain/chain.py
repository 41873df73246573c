"""The tamper-evident chain: the canonical export line of an event and its hash.

An export line is ``{"game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"}``;
``hash`` is sha256 of the canonical JSON of the line without ``hash``. See docs/dice.md.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import c_make_encoder, encode_basestring
from typing import Any

GENESIS = "0" * 64


# One encoder for every call: json.dumps with these options builds a new JSONEncoder each time,
# which costs as much as encoding a short line. encode() keeps no state between calls.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# For canonical_body, called once per line by verify: the C encoder that encode() builds anew on
# every call (with a dict for spotting circular values, which JSON read from a file cannot have),
# built once. The same encoder with the same options, so the same text; without the C
# accelerator, encode() itself.
if c_make_encoder is not None:
    _iterencode = c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", True, False, True)

    def _encode(obj: Any) -> str:
        return "".join(_iterencode(obj, 0))
else:  # pragma: no cover - CPython ships the accelerator
    _encode = _ENCODER.encode


def canonical(obj: Any) -> bytes:
    """The canonical JSON of a value: keys sorted, no spaces, UTF-8 (exactly ``json.dumps`` with these options)."""
    return _ENCODER.encode(obj).encode("utf-8")


def canonical_body(line: dict) -> bytes:
    """``canonical`` of an export line without its ``hash``: the bytes its hash is taken of.

    The same bytes as ``canonical({k: v for k, v in line.items() if k != "hash"})``, made faster
    for the usual line, where the encoder's time goes on sorting keys: a line of exactly the
    export keys, its ``game_id``, ``prev_hash``, ``timestamp`` and ``type`` strings and ``seq`` an
    int, is written member by member in sorted order; and in its ``data`` a list of plain dice
    (``{nonce, sides, value}``, int values), where every die's dict would be sorted, is written
    here too. The encoder does every other value, and a line of any other shape whole.
    tests/unit/test_verify.py checks both ways agree.
    """
    if len(line) == 7 and line.keys() == _LINE_KEYS:
        game_id, prev_hash, seq = line["game_id"], line["prev_hash"], line["seq"]
        timestamp, type_ = line["timestamp"], line["type"]
        # type() rather than isinstance: a subclass (a bool is an int) may be written differently.
        if (type(game_id) is str and type(prev_hash) is str and type(seq) is int
                and type(timestamp) is str and type(type_) is str):
            return (_LINE % (_data_json(line["data"]), encode_basestring(game_id), encode_basestring(prev_hash),
                             seq, encode_basestring(timestamp), encode_basestring(type_))).encode("utf-8")
    body = dict(line)
    body.pop("hash", None)
    return canonical(body)


# An export line's keys; sorted, "data" comes first and "hash" is left out of the body.
_LINE_KEYS = frozenset(("data", "game_id", "hash", "prev_hash", "seq", "timestamp", "type"))
_LINE = '{"data":%s,"game_id":%s,"prev_hash":%s,"seq":%d,"timestamp":%s,"type":%s}'


def _data_json(data: Any) -> str:
    """The canonical JSON of a line's ``data``."""
    if type(data) is dict and "dice" in data:
        dice_json = _dice_json(data["dice"])
        if dice_json is not None:
            rest = dict(data)
            del rest["dice"]
            if not rest:
                return '{"dice":' + dice_json + "}"
            # "dice" is written first: right only if every other key is a string sorting after it.
            try:
                after = min(rest) > "dice"
            except TypeError:  # a key that is not a string
                after = False
            if after:
                return '{"dice":' + dice_json + "," + _encode(rest)[1:]
    return _encode(data)


_DIE = '{"nonce":%d,"sides":%d,"value":%d}'


def _dice_json(dice: Any) -> str | None:
    """The canonical JSON of a list of dice ``{nonce, sides, value}`` with int values; None for anything else."""
    if type(dice) is not list:
        return None
    parts = []
    try:
        for die in dice:
            if type(die) is not dict or len(die) != 3:
                return None
            nonce, sides, value = die["nonce"], die["sides"], die["value"]
            # type() rather than isinstance: a bool is an int that JSON writes as true/false.
            if type(nonce) is not int or type(sides) is not int or type(value) is not int:
                return None
            parts.append(_DIE % (nonce, sides, value))
    except KeyError:  # three keys, but not these three
        return None
    return "[" + ",".join(parts) + "]"


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
