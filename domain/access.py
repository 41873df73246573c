"""Who may do what to which game: tokens, invite codes, visibility and contact e-mails.

Kept beside the event store, never in it: tokens and invite codes are secrets and e-mails are
personal data, and the event log is exported whole. Tokens and invite codes are random
(256 bits; a seat's replacing token is the SHA-256 of the server key's signature, as unguessable),
shown once, and stored only as their SHA-256. An umpire or spectator token can be revoked, and a
seat replaces its own (``rotate_seat_token``, a row of ``warlog_token_rotations`` each time): a
revoked row is marked, never deleted; whether an umpire may exist at all is the game's log's to
say (``Game.umpire``), not this table's.

A seat's address gets no turn mail until its owner confirms it (``contacts()[seat]["confirmed"]``):
whoever holds a seat token may type any address, so an address hears nothing but one confirmation
mail (a link with a single-use secret that expires after ``CONFIRM_TTL``) until the link is
followed. Each request is a row of ``warlog_email_confirmations``, marked when it is sent and
when it is confirmed, never deleted; at most ``CONFIRM_PER_ADDRESS`` requests per address and
``CONFIRM_PER_SEAT`` per seat within ``CONFIRM_WINDOW`` (``request_confirmation``), checked in
the one transaction that stores a seat's address (``save_contact``).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from domain.storage import SqlTables, rowcount

ADMIN, SEAT, UMPIRE, SPECTATOR = "admin", "seat", "umpire", "spectator"
# A spectator token is a named reader the admin invites (docs/api.md, "Annotations"): it reads what
# any spectator reads, a private game too, and annotates under its name once the game has ended.
TOKEN_PREFIX = {ADMIN: "wla_", SEAT: "wls_", UMPIRE: "wlu_", SPECTATOR: "wlv_"}
INVITE_PREFIX = "wli_"
TOKEN_ID_LENGTH = 16  # hex digits of a token's SHA-256 that name it in a listing: never the secret
# What a join sent under an Idempotency-Key leaves on its invite (hashes, and where it recorded), so
# that the same join sent again after its answer was lost gets the seat a fresh token.
JOIN_COLUMNS = (("join_key_hash", "TEXT"), ("join_body_hash", "TEXT"), ("join_version", "INTEGER"),
                ("join_head", "TEXT"), ("join_replays", "INTEGER"))


CONFIRM_PREFIX = "wlc_"
CONFIRM_TTL = timedelta(hours=48)  # a confirmation link works this long after its mail is made
CONFIRM_WINDOW = timedelta(hours=24)  # the rate limits count the confirmation mails asked for within this
CONFIRM_PER_ADDRESS = 3  # confirmation mails to one address (over every game) within CONFIRM_WINDOW
CONFIRM_PER_SEAT = 3  # confirmation mails for one seat of a game within CONFIRM_WINDOW: none uses up another's
CONFIRM_CLAIM = timedelta(minutes=10)  # a mail job's claim older than this was left by a dead worker


# A seat's token replaced (rotate_seat_token) at most this often within ROTATION_WINDOW: the write limit
# counts per token, and each new token has a budget of its own, so a chain of them is bounded here.
ROTATIONS_PER_SEAT = 10
ROTATION_WINDOW = timedelta(hours=24)
# A join sent again (reissue_seat_token) at most this often: each gives the seat a fresh token, with a
# write limit of its own, as a rotation does. A lost answer is sent again once or twice, not more.
JOIN_REPLAYS = 10
# The admin issues umpire and spectator tokens at will (anyone may create a game), and a revoked
# token's row stays: caps per game bound the table and every listing of it. Live spectator tokens at
# most (live umpire tokens: WARLOG_MAX_UMPIRE_TOKENS, api/app.py), and umpire and spectator tokens
# ever issued, revoked ones counted. The tokens issued before a cap was reached keep working.
SPECTATOR_TOKENS_PER_GAME = 50
TOKENS_ISSUED_PER_GAME = 200


class _Replaced(Exception):
    """Inside reissue_seat_token: the seat replaced its token since its join (rolls the transaction back)."""


class JoinReplayed(Exception):
    """A join sent again beyond JOIN_REPLAYS: reissue_seat_token issued nothing."""


class TooMany(Exception):
    """A request beyond a limit this store counts; ``retry_after`` in whole seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class TooManyConfirmations(TooMany):
    """A confirmation mail asked for beyond a rate limit."""


class TooManyRotations(TooMany):
    """A seat's token replaced beyond ROTATIONS_PER_SEAT within ROTATION_WINDOW."""


class TokenLimit(Exception):
    """An umpire or spectator token beyond a cap of its game; ``code`` the problem's (api/problems.py)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class RotationKeyUsed(Exception):
    """A replacement of a seat's token under an Idempotency-Key that replaced another of its tokens."""


# Gmail ignores the dots of a local part, and googlemail.com is gmail.com: one inbox, many spellings.
DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def address_key(email: str) -> str:
    """What the per-address limit counts an address as: lowercased, without a '+tag' on its local
    part (victim+1@, victim+2@ reach one mailbox at most providers: counted apart, one inbox could
    be sent a confirmation mail from every seat an attacker made), and for Gmail without the local
    part's dots (j.smith@ is jsmith@gmail.com)."""
    local, at, domain = email.strip().lower().rpartition("@")
    if not at:
        return email.strip().lower()
    local = local.split("+", 1)[0] or local
    if domain in DOTLESS_DOMAINS:
        local, domain = local.replace(".", "") or local, DOTLESS_DOMAINS[domain]
    return local + at + domain


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def id_of_token(token: str) -> str:
    """How a listing names a token: the start of its SHA-256, which does not reveal it."""
    return _hash(token)[:TOKEN_ID_LENGTH]


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Grant:
    """What one token allows: a role in one game, and for a seat token, which seat."""

    game_id: str
    role: str
    seat: str | None = None  # a seat token's seat; a spectator token's name (the same column)


class AccessStore(SqlTables):
    """SQL tables for tokens, invites, visibility and contacts, on the event store's database."""

    TABLES = {
        "warlog_tokens": "token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, role TEXT NOT NULL, "
                         "seat TEXT, created_at TEXT NOT NULL, revoked_at TEXT",
        "warlog_invites": "invite_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat TEXT NOT NULL, "
                          "used_at TEXT, join_key_hash TEXT, join_body_hash TEXT, join_version INTEGER, "
                          "join_head TEXT, join_replays INTEGER",
        "warlog_game_access": "game_id TEXT PRIMARY KEY, public INTEGER NOT NULL, created_at TEXT NOT NULL",
        "warlog_contacts": "game_id TEXT NOT NULL, seat TEXT NOT NULL, email TEXT NOT NULL, "
                           "notify INTEGER NOT NULL, PRIMARY KEY (game_id, seat)",
        # One row per confirmation mail asked for: the address as typed and as counted (address_key: the rate
        # limit's key), when the dispatcher queued its mail, when a mail job took it, the secret's
        # SHA-256 once the mail is made, when it was sent and when it was confirmed.
        "warlog_email_confirmations": "request_id TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat TEXT NOT NULL, "
                                      "email TEXT NOT NULL, address TEXT NOT NULL, requested_at TEXT NOT NULL, "
                                      "secret_hash TEXT, expires_at TEXT, queued_at TEXT, claimed_at TEXT, sent_at TEXT, "
                                      "confirmed_at TEXT",
        # One row per seat token its seat replaced (rotate_seat_token): whose and when, the hashes of
        # the token replaced and of its successor, and of the request's Idempotency-Key; never a token.
        "warlog_token_rotations": "old_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat TEXT NOT NULL, "
                                  "new_hash TEXT NOT NULL, key_hash TEXT NOT NULL, rotated_at TEXT NOT NULL",
        # One row per signature of a keyed seat's request that the log does not record (its notification
        # settings): the SHA-256 of the signature, whose and when. A signed command is recorded once by
        # the log; such a request is accepted once by this table (use_signature).
        "warlog_used_signatures": "signature_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat TEXT NOT NULL, "
                                  "kind TEXT NOT NULL, used_at TEXT NOT NULL",
    }

    def _create(self, c: Any) -> None:
        super()._create(c)
        # A store made before tokens could be revoked has no revoked_at column: add it. Its
        # umpire tokens were issued by the admin alone, without the seats' agreement the log now
        # records, so they are revoked (the admin issues new ones once the seats agree).
        if not self.has_column(c, "warlog_tokens", "revoked_at"):
            c.execute(f"ALTER TABLE {self._prefix}warlog_tokens ADD COLUMN revoked_at TEXT")
            c.execute(self.sql("UPDATE {t}warlog_tokens SET revoked_at = ? WHERE role = ?"), (_now(), UMPIRE))
        # A store made before a join could be retried keeps no join key: its used invites stay used.
        for column, kind in JOIN_COLUMNS:
            if not self.has_column(c, "warlog_invites", column):
                c.execute(f"ALTER TABLE {self._prefix}warlog_invites ADD COLUMN {column} {kind}")

    # ------------------------------------------------------------------------- creation ----
    def register_game(self, game_id: str, public: bool, seats: list[str]) -> tuple[str, dict[str, str]]:
        """Record a new game's visibility; returns its admin token and one invite code per seat."""
        now = _now()
        admin = new_secret(TOKEN_PREFIX[ADMIN])
        invites = {seat: new_secret(INVITE_PREFIX) for seat in seats}
        p = self._p
        with self._db.transaction(commit=True) as c:
            c.execute(f"INSERT INTO {self._prefix}warlog_game_access (game_id, public, created_at) "
                      f"VALUES ({p}, {p}, {p})", (game_id, 1 if public else 0, now))
            c.execute(f"INSERT INTO {self._prefix}warlog_tokens (token_hash, game_id, role, seat, created_at) "
                      f"VALUES ({p}, {p}, {p}, {p}, {p})", (_hash(admin), game_id, ADMIN, None, now))
            for seat, code in invites.items():
                c.execute(f"INSERT INTO {self._prefix}warlog_invites (invite_hash, game_id, seat, used_at) "
                          f"VALUES ({p}, {p}, {p}, {p})", (_hash(code), game_id, seat, None))
        return admin, invites

    def issue_token(self, game_id: str, role: str, seat: str | None = None) -> str:
        """A new token of ``role``; ``seat`` is a seat token's seat, or a spectator token's name."""
        token = new_secret(TOKEN_PREFIX[role])
        self._run("INSERT INTO {t}warlog_tokens (token_hash, game_id, role, seat, created_at) "
                  "VALUES (?, ?, ?, ?, ?)", (_hash(token), game_id, role, seat, _now()))
        return token

    def issue_capped_token(self, game_id: str, role: str, name: str | None = None, live_cap: int | None = None) -> str:
        """A new umpire or spectator token (``name``: a spectator's), unless the game has issued
        TOKENS_ISSUED_PER_GAME of them (revoked ones counted) or has ``live_cap`` live tokens of
        ``role`` (a spectator's default: SPECTATOR_TOKENS_PER_GAME); then TokenLimit, nothing written.
        Counted and written in one transaction that holds the game's access row, so issues that race
        (several web workers) are counted one after another."""
        if live_cap is None:
            live_cap = SPECTATOR_TOKENS_PER_GAME if role == SPECTATOR else None
        token, p, t = new_secret(TOKEN_PREFIX[role]), self._p, self._prefix
        with self._db.transaction(commit=True) as c:
            # PostgreSQL: the row's lock; SQLite: its write lock, taken by a first write that changes nothing.
            c.execute(f"SELECT 1 FROM {t}warlog_game_access WHERE game_id = {p} FOR UPDATE" if self.kind == "postgres"
                      else f"UPDATE {t}warlog_game_access SET public = public WHERE game_id = {p}", (game_id,))
            c.execute(f"SELECT COUNT(*) AS issued, SUM(CASE WHEN role = {p} AND revoked_at IS NULL THEN 1 ELSE 0 END) "
                      f"AS live FROM {t}warlog_tokens WHERE game_id = {p} AND role IN ({p}, {p})",
                      (role, game_id, UMPIRE, SPECTATOR))
            row = c.fetchone()
            if row["issued"] >= TOKENS_ISSUED_PER_GAME:
                raise TokenLimit("tokens_issued_limit", f"this game has been issued {TOKENS_ISSUED_PER_GAME} umpire "
                                 "and spectator tokens, revoked ones counted, the most one game may have; "
                                 "give a token already issued, or create another game")
            if live_cap is not None and (row["live"] or 0) >= live_cap:
                raise TokenLimit(f"{role}_token_limit", f"this game has {live_cap} live {role} tokens, the most it "
                                 f"may have; revoke one (DELETE .../{role}-tokens/{{token_id}}) first")
            c.execute(f"INSERT INTO {t}warlog_tokens (token_hash, game_id, role, seat, created_at) "
                      f"VALUES ({p}, {p}, {p}, {p}, {p})", (_hash(token), game_id, role, name, _now()))
        return token

    def use_signature(self, game_id: str, seat: str, kind: str, signature: str) -> bool:
        """Mark a keyed seat's signature of a request of ``kind`` used; False when it was used
        before (a replay: the same request, captured and sent again). One INSERT: of two at once,
        one wins."""
        return self._run("INSERT INTO {t}warlog_used_signatures (signature_hash, game_id, seat, kind, used_at) "
                         "VALUES (?, ?, ?, ?, ?) ON CONFLICT (signature_hash) DO NOTHING",
                         (_hash(signature), game_id, seat, kind, _now())) == 1

    def release_signature(self, signature: str) -> None:
        """Undo use_signature when the request it was for changed nothing (a 429): it may be sent again."""
        self._run("DELETE FROM {t}warlog_used_signatures WHERE signature_hash = ?", (_hash(signature),))

    # --------------------------------------------------------------------------- lookups ---
    def grant(self, token: str) -> Grant | None:
        """What ``token`` allows, or None for an unknown or revoked token."""
        row = self._run("SELECT game_id, role, seat, revoked_at FROM {t}warlog_tokens WHERE token_hash = ?",
                        (_hash(token),), fetch="one")
        if row is None or row["revoked_at"] is not None:
            return None
        return Grant(row["game_id"], row["role"], row["seat"])

    # ------------------------------------------------- umpire and spectator tokens ----
    def _tokens(self, game_id: str, role: str) -> list[dict]:
        """The game's tokens of ``role``, live and revoked, oldest first: id, name (a spectator's;
        the seat column), times; never the secret."""
        rows = self._run("SELECT token_hash, seat, created_at, revoked_at FROM {t}warlog_tokens "
                         "WHERE game_id = ? AND role = ? ORDER BY created_at, token_hash", (game_id, role),
                         fetch="all")
        return [{"token_id": r["token_hash"][:TOKEN_ID_LENGTH], "name": r["seat"], "created_at": r["created_at"],
                 "revoked_at": r["revoked_at"]} for r in rows]

    def _revoke_by_id(self, game_id: str, role: str, token_id: str) -> int:
        """Mark the game's live token of ``role`` named ``token_id`` revoked; 1, or 0 when none is."""
        if len(token_id) != TOKEN_ID_LENGTH or not all(ch in "0123456789abcdef" for ch in token_id):
            return 0
        return self._run("UPDATE {t}warlog_tokens SET revoked_at = ? WHERE game_id = ? AND role = ? "
                         "AND revoked_at IS NULL AND token_hash LIKE ?", (_now(), game_id, role, token_id + "%"))

    def umpire_tokens(self, game_id: str) -> list[dict]:
        """Every umpire token of the game, live and revoked, oldest first: id and times, never the secret."""
        return [{k: t[k] for k in ("token_id", "created_at", "revoked_at")} for t in self._tokens(game_id, UMPIRE)]

    def live_umpire_tokens(self, game_id: str) -> int:
        return sum(1 for t in self.umpire_tokens(game_id) if t["revoked_at"] is None)

    def revoke_umpire_tokens(self, game_id: str, token_id: str | None = None) -> int:
        """Mark the game's live umpire tokens revoked (only ``token_id``, if given); returns how many."""
        if token_id is None:
            return self._run("UPDATE {t}warlog_tokens SET revoked_at = ? WHERE game_id = ? AND role = ? "
                             "AND revoked_at IS NULL", (_now(), game_id, UMPIRE))
        return self._revoke_by_id(game_id, UMPIRE, token_id)

    def spectator_tokens(self, game_id: str) -> list[dict]:
        """Every spectator token of the game, live and revoked, oldest first: its name, id and
        times, never the secret."""
        return self._tokens(game_id, SPECTATOR)

    def revoke_spectator_tokens(self, game_id: str, *, token_id: str | None = None, name: str | None = None) -> int:
        """Mark the game's live spectator token ``token_id``, or every live one named ``name``,
        revoked; returns how many. A revoked row stays: the annotations it wrote are in the log."""
        if (token_id is None) == (name is None):
            raise ValueError("revoke a spectator token by its id or by its name, not both or neither")
        if name is not None:
            return self._run("UPDATE {t}warlog_tokens SET revoked_at = ? WHERE game_id = ? AND role = ? "
                             "AND revoked_at IS NULL AND seat = ?", (_now(), game_id, SPECTATOR, name))
        return self._revoke_by_id(game_id, SPECTATOR, token_id)

    def is_public(self, game_id: str) -> bool | None:
        """True or False for a known game; None when this server has no access row for it."""
        row = self._run("SELECT public FROM {t}warlog_game_access WHERE game_id = ?", (game_id,), fetch="one")
        return None if row is None else bool(row["public"])

    def public_game_ids(self) -> set[str]:
        rows = self._run("SELECT game_id FROM {t}warlog_game_access WHERE public = 1", fetch="all")
        return {r["game_id"] for r in rows}

    def invite(self, game_id: str, code: str) -> dict | None:
        """An invite code of this game: its seat, ``used_at`` and what the join that used it
        left (``join_key_hash``, ``join_body_hash``, ``join_version``, ``join_head``); None if unknown."""
        row = self._run("SELECT seat, used_at, join_key_hash, join_body_hash, join_version, join_head "
                        "FROM {t}warlog_invites WHERE invite_hash = ? AND game_id = ?",
                        (_hash(code), game_id), fetch="one")
        return dict(row) if row else None

    def use_invite(self, game_id: str, code: str, join_key: str | None = None, join_body: str | None = None) -> bool:
        """Mark an invite used, keeping the hashes of the join's Idempotency-Key and body when it
        had a key; False when another request used it first."""
        key_hash = None if join_key is None else _hash(join_key)
        body_hash = None if join_key is None or join_body is None else _hash(join_body)
        return self._run("UPDATE {t}warlog_invites SET used_at = ?, join_key_hash = ?, join_body_hash = ? "
                         "WHERE invite_hash = ? AND game_id = ? AND used_at IS NULL",
                         (_now(), key_hash, body_hash, _hash(code), game_id)) == 1

    def joined_at(self, game_id: str, code: str, version: int, chain_head: str) -> None:
        """Keep where the join of an invite recorded, for the answer to the same join sent again."""
        self._run("UPDATE {t}warlog_invites SET join_version = ?, join_head = ? WHERE invite_hash = ? AND game_id = ?",
                  (version, chain_head, _hash(code), game_id))

    def release_invite(self, game_id: str, code: str) -> None:
        """Undo use_invite when the join it was for did not record."""
        self._run("UPDATE {t}warlog_invites SET used_at = NULL, join_key_hash = NULL, join_body_hash = NULL "
                  "WHERE invite_hash = ? AND game_id = ?", (_hash(code), game_id))

    @staticmethod
    def same_join(invite: dict, join_key: str, join_body: str) -> str | None:
        """Whether a join sent again matches the one that used ``invite``: "same", "other_body"
        (its key with another body), or None (no key kept, or another key)."""
        if invite["join_key_hash"] is None or not secrets.compare_digest(invite["join_key_hash"], _hash(join_key)):
            return None
        return "same" if invite["join_body_hash"] == _hash(join_body) else "other_body"

    def reissue_seat_token(self, game_id: str, seat: str, joined_at: str) -> str | None:
        """Revoke the seat's live tokens and issue it a new one, in one transaction: the join
        sent again under its key gets the seat's token again, and the lost one stops working.
        None (nothing written) when the seat replaced its token since ``joined_at``: it had its
        join's answer, and a join that leaked with the replaced token must not take the seat back.
        Raises JoinReplayed (nothing written) once the join was sent again JOIN_REPLAYS times.

        Retries of one join may race (in several web workers): the database serializes them, so
        each revokes the token the one before it issued and exactly one stays live. SQLite writes
        one transaction at a time (the UPDATE, first, waits for the write lock before it reads);
        PostgreSQL's UPDATE would see only the tokens committed when it began, so each retry
        first locks the seat's invite row, waiting there for any other retry to commit. A rotation
        racing it is ordered by the live token's row: the rotations are read after the UPDATE
        (which waited for a rotation holding that row), or the rotation finds its token revoked."""
        token, now, p = new_secret(TOKEN_PREFIX[SEAT]), _now(), self._p
        try:
            with self._db.transaction(commit=True) as c:
                if self.kind == "postgres":
                    c.execute(f"SELECT 1 FROM {self._prefix}warlog_invites WHERE game_id = %s AND seat = %s FOR UPDATE",
                              (game_id, seat))
                c.execute(f"UPDATE {self._prefix}warlog_tokens SET revoked_at = {p} WHERE game_id = {p} AND role = {p} "
                          f"AND seat = {p} AND revoked_at IS NULL", (now, game_id, SEAT, seat))
                c.execute(f"SELECT COUNT(*) AS n FROM {self._prefix}warlog_token_rotations WHERE game_id = {p} "
                          f"AND seat = {p} AND rotated_at >= {p}", (game_id, seat, joined_at))
                if c.fetchone()["n"]:
                    raise _Replaced
                c.execute(f"UPDATE {self._prefix}warlog_invites SET join_replays = COALESCE(join_replays, 0) + 1 "
                          f"WHERE game_id = {p} AND seat = {p} AND used_at = {p} AND COALESCE(join_replays, 0) < {p}",
                          (game_id, seat, joined_at, JOIN_REPLAYS))
                if rowcount(c) != 1:
                    raise JoinReplayed(f"the join of seat {seat} was sent again {JOIN_REPLAYS} times already: its "
                                       "last answer's token is the seat's")
                c.execute(f"INSERT INTO {self._prefix}warlog_tokens (token_hash, game_id, role, seat, created_at) "
                          f"VALUES ({p}, {p}, {p}, {p}, {p})", (_hash(token), game_id, SEAT, seat, now))
        except _Replaced:  # raised inside the transaction, so that its UPDATE is rolled back
            return None
        return token

    def rotate_seat_token(self, game_id: str, seat: str, old_token: str, new_token: str, key: str) -> bool:
        """Revoke the seat's live token ``old_token`` and make ``new_token`` its token, in one
        transaction, recorded in ``warlog_token_rotations``; False (nothing written) when
        ``old_token`` is no longer live. Rotations of one token that race are ordered by the
        database: the UPDATE of its row waits for the other's commit, then finds it revoked.
        Raises TooManyRotations past ROTATIONS_PER_SEAT within ROTATION_WINDOW (each rotation needs
        the seat's live token, so one seat's rotations come one after another), and RotationKeyUsed
        when ``key`` replaced another token of the seat: a keyed seat's signature names the request
        by its key alone, so a captured signed request would replace every later token."""
        now, p, t = _now(), self._p, self._prefix
        since = (datetime.now(timezone.utc) - ROTATION_WINDOW).isoformat()
        with self._db.transaction(commit=True) as c:
            c.execute(f"SELECT COUNT(*) AS n, MIN(rotated_at) AS first FROM {t}warlog_token_rotations "
                      f"WHERE game_id = {p} AND seat = {p} AND rotated_at > {p}", (game_id, seat, since))
            row = c.fetchone()
            if row["n"] >= ROTATIONS_PER_SEAT:
                wait = datetime.fromisoformat(row["first"]) + ROTATION_WINDOW - datetime.now(timezone.utc)
                raise TooManyRotations(f"seat {seat} has replaced its token {ROTATIONS_PER_SEAT} times within "
                                       f"{whole_hours(ROTATION_WINDOW)} hours; try again later",
                                       max(1, int(wait.total_seconds()) + 1))
            c.execute(f"UPDATE {t}warlog_tokens SET revoked_at = {p} WHERE token_hash = {p} AND game_id = {p} "
                      f"AND role = {p} AND seat = {p} AND revoked_at IS NULL", (now, _hash(old_token), game_id, SEAT, seat))
            if rowcount(c) != 1:
                return False
            # Read once the token's row is held: the same request sent twice finds its token revoked above.
            c.execute(f"SELECT 1 FROM {t}warlog_token_rotations WHERE game_id = {p} AND seat = {p} AND key_hash = {p}",
                      (game_id, seat, _hash(key)))
            if c.fetchone() is not None:
                raise RotationKeyUsed(f"this Idempotency-Key replaced another token of seat {seat}: a replacement "
                                      "is a new request, under a key of its own")
            c.execute(f"INSERT INTO {t}warlog_tokens (token_hash, game_id, role, seat, created_at) "
                      f"VALUES ({p}, {p}, {p}, {p}, {p})", (_hash(new_token), game_id, SEAT, seat, now))
            c.execute(f"INSERT INTO {t}warlog_token_rotations (old_hash, game_id, seat, new_hash, key_hash, rotated_at) "
                      f"VALUES ({p}, {p}, {p}, {p}, {p}, {p})",
                      (_hash(old_token), game_id, seat, _hash(new_token), _hash(key), now))
        return True

    def rotation(self, game_id: str, old_token: str, key: str) -> dict | None:
        """The rotation that replaced ``old_token`` under the Idempotency-Key ``key`` (its seat,
        ``rotated_at`` and whether its successor is still ``live``); None for another key or none."""
        row = self._run("SELECT r.seat, r.key_hash, r.new_hash, r.rotated_at, k.revoked_at "
                        "FROM {t}warlog_token_rotations r JOIN {t}warlog_tokens k ON k.token_hash = r.new_hash "
                        "WHERE r.old_hash = ? AND r.game_id = ?", (_hash(old_token), game_id), fetch="one")
        if row is None or not secrets.compare_digest(row["key_hash"], _hash(key)):
            return None
        return {"seat": row["seat"], "rotated_at": row["rotated_at"], "new_hash": row["new_hash"],
                "live": row["revoked_at"] is None}

    def replaced_at(self, token: str) -> str | None:
        """When ``token``, a seat token, was replaced by a rotation; None when it was not (or is no token)."""
        row = self._run("SELECT rotated_at FROM {t}warlog_token_rotations WHERE old_hash = ?", (_hash(token),),
                        fetch="one")
        return None if row is None else row["rotated_at"]

    def seat_token_rotations(self, game_id: str) -> list[dict]:
        """Every rotation of the game's seat tokens, oldest first: the seat and when; never a token."""
        return self._run("SELECT seat, rotated_at FROM {t}warlog_token_rotations WHERE game_id = ? "
                         "ORDER BY rotated_at", (game_id,), fetch="all")

    @staticmethod
    def is_token(token: str, token_hash: str) -> bool:
        return secrets.compare_digest(_hash(token), token_hash)

    def set_contact(self, game_id: str, seat: str, email: str | None, notify: bool = True) -> None:
        """Store the seat's address (or none), asking for no confirmation mail."""
        self.save_contact(game_id, seat, email, notify, ask=False)

    def save_contact(self, game_id: str, seat: str, email: str | None, notify: bool = True, *, ask: bool = True,
                     refuse_new: bool = False, now: datetime | None = None) -> bool:
        """Store the seat's address and, with ``ask``, ask for its confirmation mail unless the seat
        confirmed it already (``request_confirmation``); True when a mail was asked for. Beyond
        the limits the address is stored without a mail, or with ``refuse_new``, when it is not the
        seat's stored one, TooManyConfirmations is raised and nothing is stored.

        One transaction, taken one at a time as ``request_confirmation``'s: checked apart from the
        store, PUTs racing past the check were all stored, those beyond the limits without a mail."""
        now = now or datetime.now(timezone.utc)
        asked = False
        with self._db.transaction(commit=True) as c:
            self._take_turn(c)
            c.execute(self.sql("SELECT email FROM {t}warlog_contacts WHERE game_id = ? AND seat = ?"), (game_id, seat))
            before = (c.fetchone() or {"email": None})["email"]
            if email and ask and not self._confirmed(c, game_id, seat, email):
                try:
                    self._check_limits(c, game_id, seat, email, now)
                except TooManyConfirmations:
                    if refuse_new and email != before:
                        raise
                else:
                    self._insert_request(c, game_id, seat, email, now)
                    asked = True
            c.execute(self.sql("DELETE FROM {t}warlog_contacts WHERE game_id = ? AND seat = ?"), (game_id, seat))
            if email:
                c.execute(self.sql("INSERT INTO {t}warlog_contacts (game_id, seat, email, notify) VALUES (?, ?, ?, ?)"),
                          (game_id, seat, email, 1 if notify else 0))
        return asked

    def contacts(self, game_id: str) -> dict[str, dict]:
        """{seat: {email, notify, confirmed}}: ``confirmed`` when the seat's owner followed a
        confirmation link for this very address (and seat); only then does it get turn mails."""
        rows = self._run("SELECT c.seat, c.email, c.notify, EXISTS (SELECT 1 FROM {t}warlog_email_confirmations f "
                         "WHERE f.game_id = c.game_id AND f.seat = c.seat AND f.email = c.email "
                         "AND f.confirmed_at IS NOT NULL) AS confirmed FROM {t}warlog_contacts c WHERE c.game_id = ?",
                         (game_id,), fetch="all")
        return {r["seat"]: {"email": r["email"], "notify": bool(r["notify"]), "confirmed": bool(r["confirmed"])}
                for r in rows}

    # ------------------------------------------------------------- address confirmation ----
    def is_confirmed(self, game_id: str, seat: str, email: str) -> bool:
        """Whether the seat's owner confirmed ``email`` (as typed) for this seat."""
        with self._db.transaction(commit=False) as c:
            return self._confirmed(c, game_id, seat, email)

    def _confirmed(self, c: Any, game_id: str, seat: str, email: str) -> bool:
        c.execute(self.sql("SELECT 1 FROM {t}warlog_email_confirmations WHERE game_id = ? AND seat = ? AND email = ? "
                           "AND confirmed_at IS NOT NULL"), (game_id, seat, email))
        return c.fetchone() is not None

    def _take_turn(self, c: Any) -> None:
        """Make the transaction ``c`` wait for every other one that asks for confirmation mails or
        stores an address, so that what it counts is not changed under it until it commits.
        SQLite: its write lock, taken by a first write (one changing nothing); PostgreSQL: a lock
        on the table that only other writers of it wait for (reads of ``contacts`` do not)."""
        if self.kind == "postgres":
            c.execute(f"LOCK TABLE {self._prefix}warlog_email_confirmations IN SHARE ROW EXCLUSIVE MODE")
        else:
            c.execute(f"UPDATE {self._prefix}warlog_email_confirmations SET request_id = request_id WHERE 0")

    def _check_limits(self, c: Any, game_id: str, seat: str, email: str, now: datetime) -> None:
        """Raise TooManyConfirmations when a confirmation mail to ``email`` for the game would pass
        CONFIRM_PER_ADDRESS requests to the address or CONFIRM_PER_SEAT for the seat within CONFIRM_WINDOW,
        counted on the transaction ``c``. Counted per seat, not per game: one seat (an opponent)
        cannot use up the mails of another."""
        since = (now - CONFIRM_WINDOW).isoformat()
        for where, keys, cap, what in (("address = ?", (address_key(email),), CONFIRM_PER_ADDRESS, "this address"),
                                       ("game_id = ? AND seat = ?", (game_id, seat), CONFIRM_PER_SEAT, "this seat")):
            c.execute(self.sql(f"SELECT COUNT(*) AS n, MIN(requested_at) AS first FROM {{t}}warlog_email_confirmations "
                               f"WHERE {where} AND requested_at > ?"), (*keys, since))
            row = c.fetchone()
            if row["n"] >= cap:
                wait = datetime.fromisoformat(row["first"]) + CONFIRM_WINDOW - now
                raise TooManyConfirmations(
                    f"{cap} confirmation mails were asked for {what} within {whole_hours(CONFIRM_WINDOW)} hours; "
                    f"ask again later", max(1, int(wait.total_seconds()) + 1))

    def _insert_request(self, c: Any, game_id: str, seat: str, email: str, now: datetime) -> str:
        request_id = uuid.uuid4().hex
        c.execute(self.sql("INSERT INTO {t}warlog_email_confirmations (request_id, game_id, seat, email, address, "
                           "requested_at) VALUES (?, ?, ?, ?, ?, ?)"),
                  (request_id, game_id, seat, email, address_key(email), now.isoformat()))
        return request_id

    def request_confirmation(self, game_id: str, seat: str, email: str, now: datetime | None = None) -> str:
        """Ask for one confirmation mail to ``email``, the seat's address (set it first: the mail
        job sends only to the seat's address of the moment); returns the request's id (the mail
        job's argument, not a secret). Raises TooManyConfirmations beyond the limits
        (``_check_limits``), and asks for nothing then.

        The count and the insert are one transaction that requests take one at a time
        (``_take_turn``): counted apart, a burst of requests (a seat token holder's PUTs, in several
        web workers) all passed the count before any inserted, and one address got fifteen mails
        of its three."""
        now = now or datetime.now(timezone.utc)
        with self._db.transaction(commit=True) as c:
            self._take_turn(c)
            self._check_limits(c, game_id, seat, email, now)
            return self._insert_request(c, game_id, seat, email, now)

    def confirmations_to_queue(self, limit: int = 100) -> list[dict]:
        """The confirmation mails asked for and not handed to the mail queue yet (the dispatcher's outbox)."""
        return self._run("SELECT request_id, game_id FROM {t}warlog_email_confirmations WHERE queued_at IS NULL "
                         "AND confirmed_at IS NULL ORDER BY requested_at LIMIT ?", (limit,), fetch="all")

    def confirmation_queued(self, request_id: str) -> None:
        self._run("UPDATE {t}warlog_email_confirmations SET queued_at = ? WHERE request_id = ?", (_now(), request_id))

    def confirmation_to_send(self, request_id: str, now: datetime | None = None) -> tuple[dict, str] | None:
        """Claim the request's mail for sending: (the request, a fresh secret), the secret's hash kept
        with a new expiry. None when it is unknown, sent or confirmed already, being sent by another
        job (for less than CONFIRM_CLAIM), or the seat's address is no longer this one. A retry
        after a failed send makes a new secret: the link of a mail that failed never works."""
        now = now or datetime.now(timezone.utc)
        row = self._run("SELECT request_id, game_id, seat, email FROM {t}warlog_email_confirmations "
                        "WHERE request_id = ?", (request_id,), fetch="one")
        if row is None or (self.contacts(row["game_id"]).get(row["seat"]) or {}).get("email") != row["email"]:
            return None
        secret = new_secret(CONFIRM_PREFIX)
        claimed = self._run("UPDATE {t}warlog_email_confirmations SET secret_hash = ?, expires_at = ?, claimed_at = ? "
                            "WHERE request_id = ? AND sent_at IS NULL AND confirmed_at IS NULL "
                            "AND (claimed_at IS NULL OR claimed_at < ?)",
                            (_hash(secret), (now + CONFIRM_TTL).isoformat(), now.isoformat(), request_id,
                             (now - CONFIRM_CLAIM).isoformat()))
        return (dict(row), secret) if claimed == 1 else None

    def confirmation_sent(self, request_id: str, sent: bool = True) -> None:
        """Mark the request's mail sent, or (``sent`` False: the send failed) release its claim for a retry."""
        if sent:
            self._run("UPDATE {t}warlog_email_confirmations SET sent_at = ? WHERE request_id = ?", (_now(), request_id))
        else:
            self._run("UPDATE {t}warlog_email_confirmations SET claimed_at = NULL, secret_hash = NULL "
                      "WHERE request_id = ? AND sent_at IS NULL", (request_id,))

    def confirm(self, secret: str, now: datetime | None = None) -> tuple[str, dict | None]:
        """Use a confirmation secret once: ("confirmed", the request), or ("unknown" | "used" |
        "expired", the request or None) when it does not confirm anything."""
        now = now or datetime.now(timezone.utc)
        row = self._run("SELECT request_id, game_id, seat, email, expires_at, confirmed_at "
                        "FROM {t}warlog_email_confirmations WHERE secret_hash = ?", (_hash(secret),), fetch="one")
        if row is None:
            return "unknown", None
        found = {k: row[k] for k in ("game_id", "seat", "email")}
        if row["confirmed_at"] is not None:
            return "used", found
        if datetime.fromisoformat(row["expires_at"]) <= now:
            return "expired", found
        done = self._run("UPDATE {t}warlog_email_confirmations SET confirmed_at = ? WHERE request_id = ? "
                         "AND confirmed_at IS NULL", (now.isoformat(), row["request_id"]))
        return ("confirmed" if done == 1 else "used"), found


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def whole_hours(span: timedelta) -> int:
    return int(span.total_seconds() // 3600)
