"""Where the benchmarks' orders come from: one entry per ruleset.

A source makes a game's creation body and, for a seat that may act, a legal random order:
``random_order(state, seat, rng) -> dict``. Freeform's is here; a ruleset that ships
``domain/rulesets/<name>/play.py`` with ``random_order`` (and optionally ``candidates(rules,
state, seat, rng)``, orders to try in turn when a rule refuses one, ``SCENARIO``, ``OPTIONS`` and
``MAX_ORDERS``) is used through that module. Adding a ruleset is one entry in
``SOURCES``; a ruleset whose play module does not exist yet is skipped with a printed note.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

RandomOrder = Callable[[Any, str, random.Random], dict]

DICE = ("2d6", "2d6", "1d6", "3d6", "d10", "d66")


def freeform_order(state: Any, seat: str, rng: random.Random) -> dict:
    """A freeform order for ``seat``: mostly rolls against a target, some VP, notes and advances
    (an advance past the last phase closes the dice epoch: a reveal and a new commitment)."""
    r = rng.random()
    if r < 0.75:
        dice = rng.choice(DICE)
        order = {"kind": "roll", "dice": dice, "purpose": f"fire at hex {rng.randint(100, 2999)}"}
        if dice != "d66":
            order["target"] = {"compare": ">=", "value": rng.randint(2, 12),
                               "modifiers": [{"value": rng.choice((-1, 1)), "reason": "terrain"}]}
        return order
    if r < 0.85:
        return {"kind": "vp", "side": seat, "delta": rng.choice((-1, 1, 2)), "reason": "objective"}
    if r < 0.95:
        return {"kind": "note", "text": f"{seat} moves to hex {rng.randint(100, 2999)}"}
    return {"kind": "advance"}


def freeform_end(state: Any, seat: str, rng: random.Random) -> dict:
    return {"kind": "end", "winner": seat, "reason": "the last turn is played"}


@dataclass
class Source:
    ruleset: str
    random_order: RandomOrder
    scenario: str | None = None
    options: dict = field(default_factory=dict)
    needs_state: bool = True  # the order depends on the state: the client follows each game's state
    end_order: RandomOrder | None = None  # how a game that never ends by itself is ended
    max_orders: int = 5000  # a game not over after this many orders is a bug in random_order
    candidates: Callable[[Any, str, random.Random], Iterator[dict]] | None = None

    def create_body(self) -> dict:
        return {"ruleset": self.ruleset, "scenario": self.scenario, "options": self.options}

    def orders(self, state: Any, seat: str, rng: random.Random) -> Iterator[dict]:
        """Orders to try in turn until one is accepted (just ``random_order``'s when the ruleset
        offers no ``candidates``)."""
        if self.candidates is not None:
            yield from self.candidates(state, seat, rng)
        else:
            yield self.random_order(state, seat, rng)


def _freeform() -> Source:
    return Source("freeform", freeform_order, options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]},
                  needs_state=False, end_order=freeform_end)


def _play_module(ruleset: str) -> Callable[[], Source]:
    def load() -> Source:
        play = importlib.import_module(f"domain.rulesets.{ruleset}.play")
        candidates = None
        if hasattr(play, "candidates"):
            from domain.rulesets import find_ruleset

            rules = find_ruleset(ruleset)
            candidates = lambda state, seat, rng: play.candidates(rules, state, seat, rng)  # noqa: E731
        return Source(ruleset, play.random_order, scenario=getattr(play, "SCENARIO", None),
                      options=dict(getattr(play, "OPTIONS", {})), candidates=candidates,
                      max_orders=getattr(play, "MAX_ORDERS", 5000))
    return load


SOURCES: dict[str, Callable[[], Source]] = {
    "freeform": _freeform,
    "falklands": _play_module("falklands"),
}


def available(names: list[str] | None = None, notes: list[str] | None = None) -> list[Source]:
    """The sources that can be loaded; each one that cannot is named in ``notes`` (and printed)."""
    found = []
    for name in names or list(SOURCES):
        try:
            found.append(SOURCES[name]())
        except ModuleNotFoundError as exc:
            text = f"{name} orders skipped: {exc.name} does not exist yet"
            print(f"  note: {text}", flush=True)
            if notes is not None:
                notes.append(text)
    return found
