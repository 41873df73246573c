"""Named positions: the starting points a ruleset keeps as data files (docs/rulesets.md).

A position is ``data/positions/<name>.json`` in the ruleset's package:

    {"title": "Mid-game", "note": "what the position shows and which tests use it",
     "state": {...the ruleset's state...}}

A game created with ``position: "<name>"`` starts from that state, which its ``GameCreated``
records (``setup``) like any initial state: a later change to the file never changes how an
existing game replays. The files are read and checked once, on first use; a file that is not a
position, or whose state the ruleset refuses (``Ruleset.check_position``), raises
``PositionError`` naming the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from domain import storable

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")  # a position's name is its file's stem
FIELDS = {"title": 200, "note": 4000}  # text fields and their most characters


class PositionError(ValueError):
    """A position file this ruleset cannot start a game from; the message names the file."""


@dataclass(frozen=True)
class Position:
    name: str
    title: str
    note: str
    state: dict


def load(directory: Path, check: Callable[[dict], None]) -> dict[str, Position]:
    """Every ``*.json`` of ``directory`` as a Position by name; none when there is no directory.
    ``check(state)`` raises ValueError for a state the ruleset cannot play on."""
    if not directory.is_dir():
        return {}
    return {path.stem: _read(path, check) for path in sorted(directory.glob("*.json"))}


def _read(path: Path, check: Callable[[dict], None]) -> Position:
    where = f"{path.parent.name}/{path.name}"
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PositionError(f"position file {where}: not readable JSON ({exc})") from None
    problem = _problem(path.stem, body)
    if problem is None:
        try:
            check(body["state"])
        except (ValueError, KeyError, TypeError) as exc:
            problem = f"the ruleset refuses its state: {exc}"
    if problem is not None:
        raise PositionError(f"position file {where}: {problem}")
    return Position(path.stem, body["title"], body["note"], body["state"])


def _problem(name: str, body: object) -> str | None:
    """What makes ``body`` no position file, or None."""
    if not NAME.fullmatch(name):
        return "a position's name (the file's stem) is 1-40 of a-z, 0-9, _ and -, starting with a letter or digit"
    if not isinstance(body, dict) or set(body) != {"title", "note", "state"}:
        return "a position file is a JSON object of exactly title, note and state"
    for key, most in FIELDS.items():
        if not isinstance(body[key], str) or not body[key].strip() or len(body[key]) > most:
            return f"{key!r} is text of 1 to {most} characters"
    if not isinstance(body["state"], dict):
        return "'state' is a JSON object: the ruleset's state"
    return storable.problem(body["state"], "state")
