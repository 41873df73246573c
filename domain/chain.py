"""The tamper-evident chain: the canonical export line of an event and its hash.

An export line is ``{"game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"}``;
``hash`` is sha256 of the canonical JSON of the line without ``hash``. See docs/dice.md.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import encode_basestring
from typing import Any

import orjson

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
    for the usual line: a line of exactly the export keys, its ``game_id``, ``prev_hash``,
    ``timestamp`` and ``type`` strings and ``seq`` an int, is written member by member in sorted
    order, and its ``data`` by orjson where that gives the same bytes (``_data_json``). The
    encoder does every other line whole. tests/unit/test_verify.py checks both ways agree.
    """
    if len(line) == 7 and line.keys() == _LINE_KEYS:
        return line_body(line["game_id"], line["seq"], line["type"], line["timestamp"], line["data"],
                         line["prev_hash"])
    body = dict(line)
    body.pop("hash", None)
    return canonical(body)


def line_body(game_id: Any, seq: Any, type_: Any, timestamp: Any, data: Any, prev_hash: Any) -> bytes:
    """``canonical`` of the line of these parts without its hash: the bytes its hash is taken
    of. When ``game_id``, ``prev_hash``, ``timestamp`` and ``type_`` are strings and ``seq`` an
    int (as every line the server makes), the members are written one by one in sorted order
    and ``data`` by ``_data_json``; otherwise the encoder writes the line whole."""
    # type() rather than isinstance: a subclass (a bool is an int) may be written differently.
    if (type(game_id) is str and type(prev_hash) is str and type(seq) is int
            and type(timestamp) is str and type(type_) is str):
        return b'{"data":' + _data_json(data) + (_TAIL % (
            encode_basestring(game_id), encode_basestring(prev_hash), seq,
            encode_basestring(timestamp), encode_basestring(type_))).encode("utf-8")
    return canonical({"game_id": game_id, "seq": seq, "type": type_, "timestamp": timestamp,
                      "data": data, "prev_hash": prev_hash})


# An export line's keys; sorted, "data" comes first and "hash" is left out of the body.
_LINE_KEYS = frozenset(("data", "game_id", "hash", "prev_hash", "seq", "timestamp", "type"))
_TAIL = ',"game_id":%s,"prev_hash":%s,"seq":%d,"timestamp":%s,"type":%s}'
# Keys sorted; a datetime, a dataclass or a subclass of str, int, dict or list (an IntEnum, a
# bool apart) raises, and json.dumps writes it (or refuses it) itself.
# ORJSON_PASSTHROUGH: the types orjson would write itself where the standard encoder writes them
# otherwise or refuses them, handed to a ``default`` instead (none here: orjson refuses them); also
# domain/transcoding.py and api/jsonbody.py.
ORJSON_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS | ORJSON_PASSTHROUGH
_orjson_dumps = orjson.dumps


def _data_json(data: Any) -> bytes:
    """The canonical JSON of a line's ``data``, UTF-8.

    orjson writes strings, ints, booleans, null, lists and dicts with string keys exactly as
    ``json.dumps`` with the canonical options does (keys sorted by code point, the same escapes:
    tests/unit/test_verify.py tries every code point); the bodies of the dice benchmark's lines
    took 6.2 µs each instead of 8.7 here. It is not trusted with floats: it writes 1e-05 as
    0.00001, and NaN and Infinity as null. So its text is used only when it holds no float: no
    number with ``.``, ``e+`` or ``e-`` outside its strings (``_has_float_token``: every finite
    float orjson writes has one), and no ``null`` beyond one for each None among ``data``'s own
    values (a NaN anywhere, or a None deeper down, adds one). What orjson refuses (an int past 64
    bits, a key that is not a string, the types of ``_ORJSON_OPTIONS``) json writes, or refuses
    too.

    Why agreeing bytes are enough: verify accepts a line when the SHA-256 of these bytes is its
    hash. orjson's text here always reads back as ``data`` itself, so it can equal the canonical
    text of ``data`` or of nothing else: no line can pass with a value other than the one hashed.

    The one difference left: orjson writes a plain Enum member (as its value), which json.dumps
    refuses. A line read from JSON cannot hold one. The server hashes its own events and orders
    this way too (``line_hash``, ``digest``), so an event whose data held one would get a hash
    where json.dumps would have raised; it is refused all the same, when it is stored
    (eventsourcing's transcoder raises at a type it has no transcoding for).
    """
    if type(data) is dict:
        try:
            text = _orjson_dumps(data, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError
            return canonical(data)
        if ((b"null" not in text or text.count(b"null") == [*data.values()].count(None))
                and not _has_float_token(text)):
            return text
    return canonical(data)


def _has_float_token(text: bytes) -> bool:
    r"""Whether orjson's ``text`` holds a number with ``.``, ``e+`` or ``e-`` outside its strings
    (every finite float orjson writes has one; an int, ``true``, ``false``, ``null`` and the
    punctuation never do).

    In orjson's strings a backslash always starts an escape, and ``\\`` and ``\"`` are the only
    escapes whose second character is a backslash or a quote: with those taken out (escaped
    backslashes first, left to right, so that ``\\"`` keeps its closing quote), every quote
    left opens or closes a string, and the pieces between quotes alternate outside and inside.
    When any ``.`` in the text sent data to the standard encoder, a rule's name in an event
    (``"FS 7.1"``) sent 70% of Falklands events there."""
    if b"." not in text and b"e+" not in text and b"e-" not in text:
        return False
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(text.split(b'"')[::2])
    return b"." in outside or b"e+" in outside or b"e-" in outside


def line_hash(game_id: str, seq: int, type_: str, timestamp: str, data: dict, prev_hash: str) -> str:
    """The hash of one export line, from its parts (``line_body``)."""
    return hashlib.sha256(line_body(game_id, seq, type_, timestamp, data, prev_hash)).hexdigest()


def digest(obj: Any) -> str:
    """A stable digest of any JSON value (used to compare order bodies for idempotency): the
    SHA-256 of its ``canonical`` bytes, a dict's written by ``_data_json``."""
    return hashlib.sha256(_data_json(obj)).hexdigest()
