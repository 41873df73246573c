"""Verifiable dice: the commit-reveal derivation of docs/dice.md, and nothing else.

Pure functions over bytes and ints, so a player can check any revealed roll with these few lines.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from dataclasses import dataclass

import rfc8785

SEED_BYTES = 32
_TWO_64 = 2**64


def commitment(seed: bytes) -> str:
    """The public commitment to an epoch seed: sha256 of its bytes, hex."""
    return hashlib.sha256(seed).hexdigest()


def client_entropy(client_seeds: dict[str, str]) -> str:
    """The seats' client seeds ordered by seat name and joined with '|'."""
    return "|".join(client_seeds[name] for name in sorted(client_seeds))


def client_entropy_v2(orders: list[str], seeds: dict[str, str]) -> str:
    """Scheme 2's client entropy of an epoch: sha256 of the RFC 8785 JSON of the order ids
    accepted in the epoch before (in log order) and the human seats' client seeds, hex."""
    return hashlib.sha256(rfc8785.dumps({"orders": list(orders), "seeds": dict(seeds)})).hexdigest()


def face2(seed: bytes, game_id: str, epoch: int, entropy: str, input: str, nonce: int, sides: int) -> int:
    """Scheme 2's face of die ``nonce``: as ``face``, with the roll's ``input`` (the id of the order
    that made it) in the message: ``game_id|epoch|client_entropy|input|nonce|i``."""
    return _draw(seed, game_id, epoch, f"{entropy}|{input}", nonce, sides)[0]


def attempts2(seed: bytes, game_id: str, epoch: int, entropy: str, input: str, nonce: int, sides: int) -> int:
    """How many HMACs ``face2`` computed for this die."""
    return _draw(seed, game_id, epoch, f"{entropy}|{input}", nonce, sides)[1]


def face(seed: bytes, game_id: str, epoch: int, entropy: str, nonce: int, sides: int) -> int:
    """The face (1..sides) of die ``nonce`` of an epoch, by HMAC-SHA256 with rejection sampling."""
    return _draw(seed, game_id, epoch, entropy, nonce, sides)[0]


def attempts(seed: bytes, game_id: str, epoch: int, entropy: str, nonce: int, sides: int) -> int:
    """How many HMACs ``face`` computed for this die (1 unless the rejection step fired)."""
    return _draw(seed, game_id, epoch, entropy, nonce, sides)[1]


def _draw(seed: bytes, game_id: str, epoch: int, entropy: str, nonce: int, sides: int) -> tuple[int, int]:
    """The derivation of docs/dice.md: (face, number of HMACs computed)."""
    if not 2 <= sides <= _TWO_64:
        # Above 2**64 sides no 64-bit draw is ever accepted: refuse rather than loop forever.
        raise ValueError(f"a die has between 2 and 2**64 sides, not {sides}")
    limit = _TWO_64 - (_TWO_64 % sides)
    i = 0
    while True:
        msg = f"{game_id}|{epoch}|{entropy}|{nonce}|{i}".encode()
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest()[:8], "big")
        if x < limit:
            return x % sides + 1, i + 1
        i += 1


_FIRST_8_BYTES = struct.Struct(">Q").unpack_from  # the first 8 bytes as a big-endian unsigned int


class EpochDice:
    """The faces of one epoch's dice, for checking many of them: the same derivation as ``face``
    (scheme 1) or, given the roll's input, as ``face2`` (scheme 2), with the HMAC of the message
    prefix every die of the epoch shares, ``game_id|epoch|client_entropy|``, made once and copied
    for each die (``hmac.HMAC.copy``). tests/unit/test_dice.py checks it against ``face``,
    ``face2`` and the vectors.
    """

    def __init__(self, seed: bytes, game_id: str, epoch: int, entropy: str):
        self._prefix = hmac.new(seed, f"{game_id}|{epoch}|{entropy}|".encode(), hashlib.sha256)

    def hmac(self, rest: bytes) -> bytes:
        """HMAC-SHA256 under the epoch seed of the prefix followed by ``rest``."""
        mac = self._prefix.copy()
        mac.update(rest)
        return mac.digest()

    def face(self, nonce: int, sides: int, input: str | None = None) -> int:
        """The face (1..sides) of die ``nonce``: ``face(seed, game_id, epoch, entropy, nonce, sides)``;
        with the roll's ``input``, ``face2(seed, game_id, epoch, entropy, input, nonce, sides)``."""
        if not 2 <= sides <= _TWO_64:
            raise ValueError(f"a die has between 2 and 2**64 sides, not {sides}")
        limit = _TWO_64 - (_TWO_64 % sides)
        as_int = type(nonce) is int  # b"%d" writes what an f-string writes for an int, not for a bool
        lead = b"" if input is None else f"{input}|".encode()
        i = 0
        while True:
            x, = _FIRST_8_BYTES(self.hmac(lead + (b"%d|%d" % (nonce, i) if as_int else f"{nonce}|{i}".encode())))
            if x < limit:
                return x % sides + 1
            i += 1


@dataclass(frozen=True)
class DiceExpr:
    """A parsed dice expression: ``count`` dice of ``sides`` sides; ``ordered`` reads them as digits."""

    count: int
    sides: int
    ordered: bool = False

    def __str__(self) -> str:
        return "d66" if self.ordered else f"{self.count}d{self.sides}"


# ASCII digits only, and spaces only: "1d6\n" or a tab is not a dice expression.
_EXPR = re.compile(r" *([0-9]*) *[dD] *([0-9]+) *")
MAX_DICE = 100
MAX_SIDES = 1000


def parse(expr: str) -> DiceExpr:
    """Parse 'NdS', 'dS' or 'd66' (two ordered d6, read as tens and units); raise ValueError."""
    if not isinstance(expr, str):
        raise ValueError("a dice expression is a string such as '2d6', 'd10' or 'd66'")
    if expr.strip(" ").lower() == "d66":
        return DiceExpr(2, 6, ordered=True)
    m = _EXPR.fullmatch(expr)
    if not m:
        shown = f"'{expr}'" if len(expr) <= 20 and expr.isprintable() else "this text"
        raise ValueError(f"{shown} is not a dice expression; use NdS (e.g. 3d6), dS (e.g. d10) or d66")
    # Counted by their digits first: a number of thousands of digits is not converted at all.
    count = int(m.group(1) or 1) if len(m.group(1).lstrip("0")) <= 4 else MAX_DICE + 1
    sides = int(m.group(2)) if len(m.group(2).lstrip("0")) <= 5 else MAX_SIDES + 1
    if not 1 <= count <= MAX_DICE:
        raise ValueError(f"between 1 and {MAX_DICE} dice may be rolled at once, not {_shown(count, m.group(1))}")
    if not 2 <= sides <= MAX_SIDES:
        raise ValueError(f"a die has between 2 and {MAX_SIDES} sides, not {_shown(sides, m.group(2))}")
    return DiceExpr(count, sides)


def _shown(value: int, digits: str) -> str:
    """A number as the message shows it: itself, or how many digits it has when that is many."""
    return str(value) if len(digits) <= 20 else f"a number of {len(digits)} digits"
