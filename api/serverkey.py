"""The server's Ed25519 key, which signs the chain heads it hands back (docs/dice.md, "Signed heads").

Kept in one file (``WARLOG_SERVER_KEY_FILE``; by default ``server-key`` beside the SQLite
database, or in ``WARLOG_DATA_DIR`` on PostgreSQL), created 0600 on first start: the key's
32-byte seed as unpadded base64url on one line. Every web process of a server reads the same file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import signatures
from domain.access import SEAT, TOKEN_PREFIX
from domain.chain import canonical
from domain.storage import StoreConfig, data_dir_from_env, private_dir

KEY_FILE_NAME = "server-key"


def key_path(given: str | None, store: StoreConfig) -> Path:
    """Where the key is kept: ``given`` (a test's config), else WARLOG_SERVER_KEY_FILE, else beside
    the SQLite database, else in the data folder."""
    raw = given or os.environ.get("WARLOG_SERVER_KEY_FILE", "").strip()
    if raw:
        return Path(raw).resolve()
    if store.kind == "sqlite" and store.sqlite_path and store.sqlite_path != ":memory:":
        return Path(store.sqlite_path).resolve().parent / KEY_FILE_NAME
    return data_dir_from_env() / KEY_FILE_NAME


def load_or_create(path: Path) -> Ed25519PrivateKey:
    """The key in ``path``; a new one written there (0600, never replacing a file another process
    wrote meanwhile) when there is none yet. A file that holds no key stops the server."""
    if not path.exists():
        private_dir(path.parent)
        key = signatures.new_private_key()
        # Written whole to a file of its own, then linked into place: a process starting at the
        # same time finds either no file or a whole one, and one key wins.
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(signatures.private_key_text(key) + "\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made it first: its key is read below
        finally:
            os.unlink(temporary)
    try:
        return signatures.private_key_from_text(path.read_text(encoding="ascii"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SystemExit(f"warlog: the server key file {path} holds no key ({exc}); "
                         "move it away to make a new one, or restore it") from None


class ServerKey:
    """The loaded key: signs heads, and names its public half."""

    def __init__(self, key: Ed25519PrivateKey):
        self.key = key
        self.public_key = signatures.public_key_of(key)

    def sign_head(self, game_id: str, seq: int, hash_: str) -> dict:
        return signatures.sign_head(self.key, game_id, seq, hash_)

    def seat_token_after(self, game_id: str, seat: str, old_token: str, request_id: str) -> str:
        """The token that replaces a seat's ``old_token`` under the request's Idempotency-Key: made
        from this key's signature of them (Ed25519 signs deterministically), so the request sent
        again after a lost answer gets the same token back, and nobody without the key can make it."""
        message = canonical({"purpose": "seat token", "game": game_id, "seat": seat, "request_id": request_id,
                             "replaces": hashlib.sha256(old_token.encode()).hexdigest()})
        return TOKEN_PREFIX[SEAT] + signatures.b64url(hashlib.sha256(self.key.sign(message)).digest())
