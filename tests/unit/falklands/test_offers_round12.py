"""FS 7.1: legal-orders offers only what the side may do now, and what it offers is taken.

Over the positions of seeded random games (both sides, every turn the games reach): every
operation offered carries an ``example``, one whole order, which the server takes as sent; every
answer a decision's fields offer is taken; and an order of the random player that the server
takes is of an operation that was offered. Each check runs ``decide`` on a copy of the state."""

from __future__ import annotations

import copy
import random

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import play
from tests.unit.falklands import test_fuzz
from tests.unit.falklands.helpers import (
    AR, UK, FixedDice, R, fresh, op, place, play as play_order, set_phase,
)

GAMES = 12


@pytest.fixture(scope="module")
def positions() -> list[tuple[dict, str]]:
    """(state, seat to move) before every order of a few random games, each position once."""
    seen, out = set(), []
    for state, seat in test_fuzz.positions(GAMES):
        if id(state) not in seen:
            seen.add(id(state))
            out.append((state, seat))
    return out


def refusal(state: dict, seat: str, order: dict, seed: int = 0) -> Exception | None:
    """The refusal of ``order`` on a copy of ``state``, or None when it is taken."""
    rng = random.Random(seed)
    dice = FixedDice(*[rng.randint(1, 6) for _ in range(200)], default=4)
    try:
        R.decide(copy.deepcopy(state), seat, order, dice)
    except (RuleViolation, InvalidOrder) as refused:
        return refused
    return None


def _order(template: dict) -> dict:
    return {"kind": "operation", "op": template["op"], **template["example"]}


def test_every_operation_offered_carries_an_example_the_server_takes(positions):
    wrong = []
    for state, seat in positions:
        for t in R.legal_orders(state, seat):
            if t["kind"] != "operation":
                continue
            if "example" not in t:
                wrong.append((state["turn"], state["phase"], t["op"], "no example"))
                continue
            why = refusal(state, seat, _order(t))
            if why is not None:
                wrong.append((state["turn"], state["phase"], t["op"], t["example"], str(why)))
    assert not wrong, wrong[:10]


def test_every_answer_a_decision_offers_is_taken(positions):
    wrong = []
    for state, seat in positions:
        for t in R.legal_orders(state, seat):
            if t["kind"] != "decide":
                continue
            for choice in t["fields"]["choice"]:
                why = refusal(state, seat, {"kind": "decide", "decision": t["decision"], "choice": choice})
                if why is not None:
                    wrong.append((t["decision_kind"], choice, str(why)))
    assert not wrong, wrong[:10]


def test_every_operation_the_random_player_has_taken_was_offered(positions):
    """An order of an operation not offered that the server takes is an offer that leaves out
    something the side may do (the random player draws from the offer, so its orders here are
    each operation's, rebuilt from the templates of all the operations)."""
    wrong = []
    rng = random.Random(12)
    for state, seat in positions[::3]:
        if R.orders_outside_operations(state, seat) is not None:
            continue
        offered = {t.get("op") for t in R.legal_orders(state, seat)}
        for o in (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, "exocet"):
            if o in offered:
                continue
            # the operation's choices as they would be without the restriction and the filters
            from domain.rulesets.falklands.choices import op_choices, template_fields
            c = op_choices(state, seat, o)
            if c is None:
                continue
            t = {"kind": "operation", "op": o, "choices": c, "fields": template_fields(o, c, seat)}
            try:
                order = play.order_for(t, state, seat, rng)
            except (KeyError, IndexError, TypeError):
                continue
            if refusal(state, seat, order) is None:
                wrong.append((state["turn"], state["phase"], seat, order))
    assert not wrong, wrong[:10]
