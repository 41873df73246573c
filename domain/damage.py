"""Damaged logs: the lines of a game's stored log found failing verification, and the operator's
decision about them, kept in a table beside the events (the log itself is never changed).

A game with a failure not yet accepted by an operator takes no orders (``DamagedLog``) and every
read says so. ``warlog check GAME --accept-damage REASON`` records the operator's acceptance of
the failures found so far; the log still fails verification at those lines (exports, the
integrity endpoint and ``warlog verify`` say so forever), but the game plays on from its stored
events. A failure at any other line stops it again. Nothing is deleted: a failure found stays
recorded with its acceptance (docs/operations.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable

from domain.storage import SqlTables

TABLE = "warlog_damaged_lines"


@dataclass(frozen=True)
class DamagedLine:
    """One line of a stored log found failing verification."""

    seq: int
    message: str
    found_at: str
    accepted_at: str | None = None
    reason: str | None = None  # the operator's, when accepted


@dataclass(frozen=True)
class Damage:
    """What is recorded about a game's stored log: its damaged lines in seq order."""

    lines: tuple[DamagedLine, ...] = ()

    @property
    def open(self) -> list[DamagedLine]:
        """The lines no operator has accepted: while there is one, the game takes no orders."""
        return [line for line in self.lines if line.accepted_at is None]

    @property
    def accepted_seqs(self) -> frozenset[int]:
        return frozenset(line.seq for line in self.lines if line.accepted_at is not None)

    def __bool__(self) -> bool:
        return bool(self.lines)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class DamageRecords(SqlTables):
    """The damaged lines of every game, one row per (game, seq), written when a verification
    finds them (loading a game, ``check_integrity``) and marked when an operator accepts them."""

    TABLES = {TABLE: "game_id TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, "
                     "found_at TEXT NOT NULL, accepted_at TEXT, reason TEXT, PRIMARY KEY (game_id, seq)"}

    def of(self, game_id: Any) -> Damage:
        rows = self._run(f"SELECT seq, message, found_at, accepted_at, reason FROM {{t}}{TABLE} "
                         "WHERE game_id = ? ORDER BY seq", (str(game_id),), fetch="all")
        return Damage(tuple(DamagedLine(int(r["seq"]), r["message"], r["found_at"], r["accepted_at"], r["reason"])
                            for r in rows))

    def first_open(self, game_ids: Iterable[str]) -> dict[str, int]:
        """The first damaged line not accepted of each of these games that has one."""
        ids = sorted(set(game_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = self._run(f"SELECT game_id, min(seq) AS seq FROM {{t}}{TABLE} WHERE accepted_at IS NULL "
                         f"AND game_id IN ({marks}) GROUP BY game_id", tuple(ids), fetch="all")
        return {r["game_id"]: int(r["seq"]) for r in rows}

    def record(self, game_id: Any, failures: Iterable[tuple[int, str]]) -> None:
        """Each failing line once (the first message found for it is kept)."""
        first: dict[int, str] = {}
        for seq, message in failures:
            first.setdefault(int(seq), message)
        found = now()
        for seq, message in sorted(first.items()):
            self._run(f"INSERT INTO {{t}}{TABLE} (game_id, seq, message, found_at) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT (game_id, seq) DO NOTHING", (str(game_id), seq, message, found))

    def accept(self, game_id: Any, reason: str) -> int:
        """The operator's acceptance of every damaged line found so far; how many it covers."""
        return self._run(f"UPDATE {{t}}{TABLE} SET accepted_at = ?, reason = ? "
                         "WHERE game_id = ? AND accepted_at IS NULL", (now(), reason, str(game_id)))
