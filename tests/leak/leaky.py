"""Test-only rulesets for the leak test, registered by the test (``register``) and by its rq worker
(tests/leak/worker.py), never by warlog: freeform with private notes, each hiding them in its own
way, three of them leaking a note on purpose where a real ruleset could:

- ``notes-kept``: keeps each side's private notes in the state, its ``view`` hiding the others'
  (a ruleset with hidden state), and offers a note order naming the notes in the state it is
  given; allows take-backs (so ``TakeBackAccepted`` restores a state with hidden notes). It leaks
  nothing: the leak test must find nothing in its games.
- ``leaky-view``: as notes-kept, but its ``view`` forgets to hide the notes (the state).
- ``leaky-purpose``: a private note rolls a die whose purpose is the note's text, and nothing
  hides the roll (a line and its readable text: history, dice audit, mails, replays).
- ``leaky-refusal``: as notes-kept, but an order of an unknown kind is refused with a message
  that quotes every side's notes (a refusal computed from the whole state).
"""

from __future__ import annotations

import random
from typing import Any

from domain.errors import InvalidOrder
from domain.rulesets import _REGISTRY, UMPIRE
from domain.rulesets import register as register_ruleset
from domain.rulesets.freeform.rules import KINDS, Freeform
from tests.leak.players import freeform_body
from tests.leak.table import Table


def _private(order: Any) -> bool:
    return isinstance(order, dict) and order.get("kind") == "note" and order.get("private") is True


class NotesKept(Freeform):
    name = "notes-kept"
    title = "Leak test: private notes kept in the state"

    def evolve(self, state: dict | None, event: Any) -> dict:
        state = super().evolve(state, event)
        if type(event).__name__ == "OrderAccepted" and _private(event.order):
            notes = state.get("notes") or {}
            state = {**state, "notes": {**notes, event.seat: [*notes.get(event.seat, []), event.order.get("text")]}}
        return state

    def view(self, state: dict, viewer: str | None) -> dict:
        notes = state.get("notes") or {}
        if viewer == UMPIRE or all(side == viewer for side in notes):
            return state
        return {**state, "notes": {side: texts if side == viewer else ["(hidden)"] * len(texts)
                                   for side, texts in notes.items()}}

    def legal_orders(self, state: dict, seat: str) -> list[dict]:
        orders = super().legal_orders(state, seat)
        for order in orders:
            if order["kind"] == "note":
                order["notes so far"] = state.get("notes") or {}  # as the state it is given shows them
        return orders


class LeakyView(NotesKept):
    name = "leaky-view"
    title = "Leak test: a view that forgets the notes"

    def view(self, state: dict, viewer: str | None) -> dict:
        return state


class LeakyPurpose(Freeform):
    name = "leaky-purpose"
    title = "Leak test: a private note's text as a die's purpose"

    def _note(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        super()._note(state, seat, order, dice)
        return [dice.roll(1, 6, seat=seat, purpose=order["text"])] if _private(order) else []


class LeakyRefusal(NotesKept):
    name = "leaky-refusal"
    title = "Leak test: a refusal that quotes the notes"

    def decide(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        if order.get("kind") not in KINDS:
            raise InvalidOrder(f"'kind' must be one of {', '.join(KINDS)}; notes so far: {state.get('notes')}",
                               field="kind")
        return super().decide(state, seat, order, dice)


RULESETS = (NotesKept(), LeakyView(), LeakyPurpose(), LeakyRefusal())


def register() -> None:
    for ruleset in RULESETS:
        register_ruleset(ruleset)


def unregister() -> None:
    for ruleset in RULESETS:
        _REGISTRY.pop(ruleset.name, None)


def body(name: str):
    def make(rng: random.Random) -> dict:
        return {**freeform_body(rng), "ruleset": name}
    return make


def script(t: Table, rng: random.Random) -> None:
    """Every seat writes a private note (a token), then hands over (a mail to the others and a
    webhook), asks for something unknown (a refusal), and takes its last order back; then one
    seat concedes (a mail to the others, and the replays)."""
    for seat in t.seats:
        t.order(seat, {"kind": "note", "text": f"plan {t.plant(f'{seat} private note', seat)}", "private": True})
        t.order(seat, {"kind": "note", "text": "a public note"})
        t.order(seat, {"kind": "peek", "at": "the others' notes"})
        t.order(seat, {"kind": "advance"})
        if t.call(seat, "POST", "/take-backs", {"reason": "misclick"}).status_code == 201:
            t.call(next(s for s in t.seats if s != seat), "POST", "/take-backs/answer", {"accept": True})
    t.check("mid-game")
    t.call(rng.choice(t.seats), "POST", "/concede")
