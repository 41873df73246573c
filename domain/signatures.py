"""Ed25519 signatures of orders and of chain heads (docs/dice.md, "Signed orders and heads").

A seat that registered a public key signs each order it gives, each seal and reveal of its
sealed orders and (format 2) each of its other commands: concession, take-back request and answer,
standing orders, client-seed change, umpire answer, vacation, extension, claim of a win on time; the server signs the chain heads it hands back. Keys and signatures travel as
unpadded base64url (RFC 4648 section 5) of the raw bytes: 32 bytes of public key (43
characters), 64 of signature (86 characters). The signed bytes are the chain's canonical JSON
(domain/chain.py) of a small object, so any JSON library that sorts keys can rebuild them. The cryptography is pyca ``cryptography``'s, none made here.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from domain import chain

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
_B64URL = re.compile(r"[A-Za-z0-9_-]+")
_HASH = re.compile(r"[0-9a-f]{64}")


def b64url(raw: bytes) -> str:
    """Unpadded base64url of ``raw``."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def from_b64url(text: Any, size: int) -> bytes | None:
    """The ``size`` raw bytes of unpadded base64url ``text``, or None when it is anything else."""
    if not isinstance(text, str) or not _B64URL.fullmatch(text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    # Only the one spelling of these bytes: a re-encoding must give the text back.
    return raw if len(raw) == size and b64url(raw) == text else None


# The encodings of the Ed25519 points of small order (1, 2, 4, 8), the sign bit cleared: y = 0, 1,
# the two y of order 8, p - 1, and p, p + 1 (0 and 1 written past p), as libsodium refuses them. For
# such a key a signature with S = 0 and R of small order verifies for most messages (the identity:
# for every one), so it would prove nothing: anyone could sign for the seat.
_SMALL_ORDER = frozenset(bytes.fromhex(h) for h in (
    "00" * 32, "01" + "00" * 31,
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ec" + "ff" * 30 + "7f", "ed" + "ff" * 30 + "7f", "ee" + "ff" * 30 + "7f"))


def public_key_problem(text: Any) -> str | None:
    """Why ``text`` is not a seat's public key, or None when it is one."""
    raw = from_b64url(text, PUBLIC_KEY_BYTES)
    if raw is None:
        return "a public key is the 32 raw bytes of an Ed25519 key as unpadded base64url (43 characters)"
    try:
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return "this is not an Ed25519 public key"
    if raw[:31] + bytes([raw[31] & 0x7F]) in _SMALL_ORDER:
        return "this Ed25519 key is a point of small order, for which anyone can make a signature that verifies"
    return None


def is_hash(value: Any) -> bool:
    """A line hash as the chain writes it: 64 lowercase hex characters."""
    return isinstance(value, str) and bool(_HASH.fullmatch(value))


def order_message(game_id: str, order_id: str, order: dict, head: str) -> bytes:
    """The bytes a seat signs for an order: the canonical JSON of
    ``{"game", "order_id", "order", "head"}`` (``head`` the chain head the seat saw)."""
    return chain.canonical({"game": game_id, "order_id": order_id, "order": order, "head": head})


# The kind tag of a sealed-orders signature: a seal's signature is no reveal's, nor an order's.
SEAL, REVEAL = "seal", "reveal"


def seal_message(game_id: str, seat: str, round_no: int, commitment: str, head: str) -> bytes:
    """The bytes a seat signs for its seal (docs/dice.md, "Signed orders and heads"): the canonical
    JSON of ``{"game", "kind": "seal", "seat", "round", "commitment", "head"}``."""
    return chain.canonical({"game": game_id, "kind": SEAL, "seat": seat, "round": round_no,
                            "commitment": commitment, "head": head})


def reveal_message(game_id: str, seat: str, round_no: int, orders: list, salt: str, head: str) -> bytes:
    """The bytes a seat signs for its reveal: the canonical JSON of
    ``{"game", "kind": "reveal", "seat", "round", "orders", "salt", "head"}``."""
    return chain.canonical({"game": game_id, "kind": REVEAL, "seat": seat, "round": round_no,
                            "orders": orders, "salt": salt, "head": head})


# The kinds of a seat's other signed commands (format 2), each with the fields of its request that
# its signature covers, as recorded on the command's line (docs/dice.md, "Signed orders and heads").
CONCEDE, TAKE_BACK, TAKE_BACK_ANSWER = "concede", "take_back", "take_back_answer"
STANDING_ORDER, STANDING_ORDER_CANCEL = "standing_order", "standing_order_cancel"
CLIENT_SEED, UMPIRE_ANSWER = "client_seed", "umpire_answer"
# A public and a private annotation are signed as two kinds, so a private one's signature is hidden
# with its text (domain/visibility.py) while the line's kind is known without reading the text.
ANNOTATION, PRIVATE_ANNOTATION = "annotation", "private_annotation"
# An annotation sent again is found by its id and returns its first result, so it is left out of
# "a signed command is recorded once" (game.Game and verify check the other kinds).
ANNOTATIONS = (ANNOTATION, PRIVATE_ANNOTATION)
VACATION, EXTENSION, CLAIM_WIN = "vacation", "extension", "claim_win"  # time control (domain/clock.py)
# A seat's request for a new token (docs/api.md, "A seat's token replaced"): checked, never recorded
# in the log, so no CommandSigned ever names it; its request id is the request's Idempotency-Key.
SEAT_TOKEN = "seat_token"
# A seat's own notification and webhook settings written (docs/api.md, "Notifications"): checked,
# never recorded, as SEAT_TOKEN; ``settings`` is the PUT's JSON body as sent.
NOTIFICATIONS = "notifications"
COMMAND_FIELDS = {
    CONCEDE: (), TAKE_BACK: ("reason",), TAKE_BACK_ANSWER: ("accept",),
    STANDING_ORDER: ("policy_id", "decision_kind", "policy"), STANDING_ORDER_CANCEL: ("policy_id",),
    CLIENT_SEED: ("client_seed",), UMPIRE_ANSWER: ("accept",),
    ANNOTATION: ("annotation_id", "about_seq", "text"), PRIVATE_ANNOTATION: ("annotation_id", "about_seq", "text"),
    VACATION: ("days",), EXTENSION: ("days",), CLAIM_WIN: (), SEAT_TOKEN: ("request_id",),
    NOTIFICATIONS: ("settings",),
}


def command_message(game_id: str, kind: str, seat: str, fields: dict, head: str) -> bytes:
    """The bytes a seat signs for a command of ``kind`` (one of ``COMMAND_FIELDS``): the canonical
    JSON of ``{"game", "kind", "seat", <the kind's fields>, "head"}``."""
    if kind not in COMMAND_FIELDS or set(fields) != set(COMMAND_FIELDS[kind]):
        raise ValueError(f"a {kind!r} command signs exactly {COMMAND_FIELDS.get(kind)}")
    return chain.canonical({"game": game_id, "kind": kind, "seat": seat, **fields, "head": head})


# A keyed seat's join sent again under its Idempotency-Key (docs/api.md, "Idempotency"): checked,
# never recorded. It signs no head (the joiner whose answer was lost holds no token to read one,
# and a private game shows none without) and no seat (the invite names it; no two seats of a game
# share a key), so its object's keys are no other's.
JOIN_AGAIN = "join_again"


def join_again_message(game_id: str, request_id: str) -> bytes:
    """The bytes a keyed seat signs to send its join again: the canonical JSON of
    ``{"game", "kind": "join_again", "request_id"}``, ``request_id`` the join's Idempotency-Key."""
    return chain.canonical({"game": game_id, "kind": JOIN_AGAIN, "request_id": request_id})


def head_message(game_id: str, seq: int, hash_: str) -> bytes:
    """The bytes the server signs for a chain head: the canonical JSON of ``{"game", "seq", "hash"}``."""
    return chain.canonical({"game": game_id, "seq": seq, "hash": hash_})


def signature_valid(public_key: str, signature: Any, message: bytes) -> bool:
    """Whether ``signature`` (base64url) is ``public_key``'s (base64url) Ed25519 signature of ``message``."""
    raw_key = from_b64url(public_key, PUBLIC_KEY_BYTES)
    raw_sig = from_b64url(signature, SIGNATURE_BYTES)
    if raw_key is None or raw_sig is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw_key).verify(raw_sig, message)
    except (InvalidSignature, ValueError):
        return False
    return True


# ---------------------------------------------------------------------------- private keys ----
def new_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_text(key: Ed25519PrivateKey) -> str:
    """The 32-byte seed of a private key as unpadded base64url (how the CLI and the server keep it)."""
    return b64url(key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                    serialization.NoEncryption()))


def private_key_from_text(text: str) -> Ed25519PrivateKey:
    raw = from_b64url(text.strip(), 32)
    if raw is None:
        raise ValueError("a private key is its 32-byte seed as unpadded base64url")
    return Ed25519PrivateKey.from_private_bytes(raw)


def public_key_of(key: Ed25519PrivateKey) -> str:
    return b64url(key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def sign(key: Ed25519PrivateKey, message: bytes) -> str:
    return b64url(key.sign(message))


def sign_order(key: Ed25519PrivateKey, game_id: str, order_id: str, order: dict, head: str) -> str:
    return sign(key, order_message(game_id, order_id, order, head))


def sign_seal(key: Ed25519PrivateKey, game_id: str, seat: str, round_no: int, commitment: str, head: str) -> str:
    return sign(key, seal_message(game_id, seat, round_no, commitment, head))


def sign_reveal(key: Ed25519PrivateKey, game_id: str, seat: str, round_no: int, orders: list, salt: str,
                head: str) -> str:
    return sign(key, reveal_message(game_id, seat, round_no, orders, salt, head))


def sign_command(key: Ed25519PrivateKey, game_id: str, kind: str, seat: str, fields: dict, head: str) -> str:
    return sign(key, command_message(game_id, kind, seat, fields, head))


def sign_join_again(key: Ed25519PrivateKey, game_id: str, request_id: str) -> str:
    return sign(key, join_again_message(game_id, request_id))


def sign_head(key: Ed25519PrivateKey, game_id: str, seq: int, hash_: str) -> dict:
    """A signed head: ``{"game", "seq", "hash", "signature"}``."""
    return {"game": game_id, "seq": seq, "hash": hash_, "signature": sign(key, head_message(game_id, seq, hash_))}


def signed_head_problem(head: Any, server_key: str) -> str | None:
    """Why ``head`` is not a head signed by ``server_key``, or None when it is one."""
    if not isinstance(head, dict) or set(head) != {"game", "seq", "hash", "signature"}:
        return "a signed head is a JSON object with exactly game, seq, hash and signature"
    if not isinstance(head["game"], str) or type(head["seq"]) is not int or not is_hash(head["hash"]):
        return "a signed head's game is text, its seq an integer and its hash 64 lowercase hex characters"
    if not signature_valid(server_key, head["signature"], head_message(head["game"], head["seq"], head["hash"])):
        return "the head's signature is not the server key's"
    return None
