"""Simultaneous sealed orders (docs/dice.md, "Sealed orders"): the commitment and its checks.

A seat commits to its orders for a round with ``commitment(...)`` (computed by its client, which
chooses the salt); the server holds only that hash until the seat reveals the orders and the
salt, and accepts the reveal only when it hashes to the commitment. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from domain import chain

MIN_SALT_HEX = 32  # 128 bits: a short order cannot be guessed from its commitment
MAX_SALT_HEX = 128
MAX_SEALED_ORDERS = 20  # orders one seat may seal in one round
_HEX64 = re.compile("[0-9a-f]{64}")
_SALT = re.compile(f"[0-9a-f]{{{MIN_SALT_HEX},{MAX_SALT_HEX}}}")


def commitment(game_id: str, seat: str, round_no: int, orders: list, salt: str) -> str:
    """SHA-256 (lowercase hex) of the canonical JSON of
    ``{"game", "seat", "round", "orders", "salt"}`` (docs/dice.md)."""
    body = {"game": str(game_id), "seat": seat, "round": round_no, "orders": orders, "salt": salt}
    return hashlib.sha256(chain.canonical(body)).hexdigest()


def commitment_problem(value: Any) -> str | None:
    """Why ``value`` is not a commitment (64 lowercase hex digits), or None."""
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        return "a commitment is the SHA-256 of the sealed orders: 64 lowercase hex digits"
    return None


def salt_problem(value: Any) -> str | None:
    """Why ``value`` is not a salt (32 to 128 lowercase hex digits: 128 to 512 random bits), or None."""
    if not isinstance(value, str) or not _SALT.fullmatch(value):
        return (f"a salt is {MIN_SALT_HEX} to {MAX_SALT_HEX} lowercase hex digits "
                "(at least 128 random bits, chosen by the client)")
    return None


def orders_problem(value: Any, max_bytes: int) -> str | None:
    """Why ``value`` is not a list of sealed orders, or None."""
    if not isinstance(value, list) or len(value) > MAX_SEALED_ORDERS:
        return f"sealed orders are a list of at most {MAX_SEALED_ORDERS} orders"
    for at, order in enumerate(value):
        if not isinstance(order, dict):
            return f"sealed order {at} is not a JSON object"
        if len(chain.canonical(order)) > max_bytes:
            return f"sealed order {at} is more than {max_bytes} bytes of JSON"
    return None


def order_id(round_no: int, seat: str, index: int) -> str:
    """The order id a revealed order is carried out under (unique in the game, never client-chosen)."""
    return f"sealed:{round_no}:{seat}:{index}"
