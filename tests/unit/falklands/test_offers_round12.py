"""FS 7.1: legal-orders offers only what the side may do now, and what it offers is taken.

Over the positions of seeded random games (both sides, every turn the games reach): every
operation offered carries an ``example``, one whole order, which the server takes as sent; every
answer a decision's fields offer is taken; and an order of the random player that the server
takes is of an operation that was offered. Each check runs ``decide`` on a copy of the state."""

from __future__ import annotations

import copy
import random
from itertools import islice

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import play
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.choices import example_candidates, op_choices, template_fields
from tests.unit.falklands import test_fuzz
from tests.unit.falklands.helpers import (
    AR, AR_DESTROYERS, UK, UK_INFANTRY, FixedDice, R, fresh, op, op_4_force, place, remove,
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


def offered_but_refused(state: dict, seat: str) -> list:
    """What ``legal_orders`` offers ``seat`` that the server refuses: an operation's ``example``
    (or its want of one), a decision's answer from its fields."""
    wrong = []
    for t in R.legal_orders(state, seat):
        if t["kind"] == "operation":
            orders = [_order(t)] if "example" in t else []
            wrong += [] if orders else [(state["turn"], state["phase"], t["op"], "no example")]
        else:
            orders = [{"kind": "decide", "decision": t["decision"], "choice": c}
                      for c in (t["fields"]["choice"] if t["kind"] == "decide" else [])]
        for order in orders:
            why = refusal(state, seat, order)
            wrong += [(state["turn"], state["phase"], order, str(why))] if why is not None else []
    return wrong


def test_every_operation_offered_carries_an_example_the_server_takes(positions):
    wrong = [w for state, seat in positions if R.orders_outside_operations(state, seat) is None
             for w in offered_but_refused(state, seat)]
    assert not wrong, wrong[:10]


def test_every_answer_a_decision_offers_is_taken(positions):
    decisions = [(state, seat) for state, seat in positions if state["pending"]]
    assert len(decisions) >= 20, len(decisions)  # the games reach some
    wrong = [w for state, seat in decisions for w in offered_but_refused(state, seat)]
    assert not wrong, wrong[:10]


OPS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, "exocet")


def _taken_but_not_offered(state: dict, seat: str, rng: random.Random) -> list:
    """Orders the server takes of an operation ``legal_orders`` does not offer: the random player's
    order built from the operation's bare choices (before 1-6, 5-1, 5-6, 3-2 narrow them) and the
    whole orders the offer would try for it."""
    offered = {t.get("op") for t in R.legal_orders(state, seat)}
    found = []
    for o in OPS:
        if o in offered:
            continue
        c = op_choices(state, seat, o)
        if c is None:
            continue
        t = {"kind": "operation", "op": o, "choices": c, "fields": template_fields(o, c, seat)}
        orders = [play.order_for(t, state, seat, rng)]
        orders += [{"kind": "operation", "op": o, **e} for e in islice(example_candidates(state, seat, o, c), 20)]
        found += [(state["turn"], state["phase"], seat, order) for order in orders
                  if refusal(state, seat, order) is None]
    return found


def test_every_operation_the_server_takes_is_offered(positions):
    """An order of an operation not offered that the server takes is an offer that leaves out
    something the side may do."""
    rng = random.Random(12)
    wrong = []
    for state, seat in positions[::2]:
        if R.orders_outside_operations(state, seat) is None:
            wrong += _taken_but_not_offered(state, seat, rng)
    assert not wrong, wrong[:10]


# FS 11.3's events that last an Operations Phase (randomevents), and 6-4's held Exocet (FS 7.1 is
# read with each: what it forbids is not offered, what it leaves is, and its examples are taken)
EVENTS = {UK: ("uk_operational_superiority", "poor_uk_staff_work"),
          AR: ("ar_target_of_opportunity", "ar_air_mechanical", "poor_ar_logistics", "ar_air_panache", "exocet")}


def _under(state: dict, seat: str, event: str, done: int = 0) -> dict:
    st = copy.deepcopy(state)
    if event == "exocet":
        st["exocet"] = "held"
    else:
        st["effects"][seat][event] = {"rule": "FS 11.3"}
        st["phase_ops"] = {**S.phase_allowance(st, st["phase"]), "done": done}
    return st


@pytest.mark.parametrize("seat", [UK, AR])
def test_under_each_random_event_what_is_offered_is_taken_and_what_is_taken_is_offered(positions, seat):
    rng = random.Random(6)
    wrong = []
    ops_positions = [(st, s) for st, s in positions if s == seat and R.orders_outside_operations(st, s) is None]
    for state, _ in ops_positions[::4]:
        for event in EVENTS[seat]:
            for done in ((0, 1) if event == "ar_air_panache" else (0,)):
                st = _under(state, seat, event, done)
                wrong += [(event, *x) for x in offered_but_refused(st, seat)]
                wrong += [(event, *x) for x in _taken_but_not_offered(st, seat, rng)]
    assert not wrong, wrong[:10]


# ------------------------------------------------------------------- the discrepancies ---
def _uk_and_ar_ships_in_sa4() -> dict:
    st = fresh()
    place(st, AR_DESTROYERS[0], "sa4")
    return st


def test_fs_7_1_op_10_is_not_offered_once_used():
    """FS 7.1 Op #10 "This TEZ expansion may be chosen only once per game": the UK's attacks on
    ships (Op #14, #18, #20) offered 'with_op_10' after its one use, and an order that took the
    offer was refused (FS 7.1 Op #10: only once per game)."""
    st = _uk_and_ar_ships_in_sa4()
    assert "with_op_10" in R.operation_template(st, UK, 14)["fields"]  # before its use: offered
    st["op10_used"] = True
    t = R.operation_template(st, UK, 14)
    assert "with_op_10" not in t["fields"]
    why = refusal(st, UK, {**_order(t), "with_op_10": True})
    assert why is not None and why.rule == "FS 7.1 Op #10"


def test_fs_6_5_op_12_is_not_offered_when_no_unit_may_change_ships():
    """FS 7.1 Op #12 "as long as load limits are observed", FS 6.5: a ground unit other than SF
    goes to sea only in an "A" or "T" ship. Infantry aboard Canberra with warships alone in its
    sea area has no other ship to go to: Op #12 was offered all the same (its cargo listed), and
    every cross-decking the random player built from it was refused."""
    st = fresh()
    remove(st, "sas_d")
    place(st, "canberra", "sa4")
    place(st, UK_INFANTRY[0], aboard="canberra")
    for ship in ("hermes", "invincible"):
        assert refusal(st, UK, op(12, moves={UK_INFANTRY[0]: ship})).rule == "FS 6.5"
    assert R.operation_template(st, UK, 12) is None
    assert 12 not in {t.get("op") for t in R.legal_orders(st, UK)}
    place(st, "norland", "sa4")  # a transport with room: now it may
    t = R.operation_template(st, UK, 12)
    assert t["example"] == {"moves": {UK_INFANTRY[0]: "norland"}}
    assert refusal(st, UK, _order(t)) is None


def test_fs_7_1_op_4_example_sends_the_submarine_that_carries_the_sbs():
    """FS 7.1 Op #4: three surface vessels, a submarine and two SF units, the SF aboard the force.
    With the SBS in Onyx, a force with another submarine leaves the SBS behind and is refused; the
    offer listed every submarine and gave no whole order, so the random player's pick of one was
    refused. The example sends Onyx, and is taken."""
    st = fresh()
    st["units"] = copy.deepcopy(st["units"])
    expected = op_4_force(st)
    t = R.operation_template(st, UK, 4)
    assert "spartan" in t["choices"]["submarine"]
    assert refusal(st, UK, {**expected, "submarine": "spartan"}).rule == "FS 7.1 Op #4"
    assert t["example"]["submarine"] == "onyx"
    assert sorted(t["example"]["sf"]) == ["sas_d", "sbs"]
    assert refusal(st, UK, _order(t)) is None


def test_fs_7_1_the_command_line_sends_the_example_as_it_is():
    """Op #18/#19's optional 'aircraft' field carries a value of its own (the first area's first
    aircraft) for a template without a whole order; 'warlog legal' added it to the example, so an
    example that strikes with the 25 de Mayo alone (FS 11.3 5-6's second operation, or another area)
    was printed with an aircraft the server then refused."""
    from api.cli import legal_order_lines

    template = {"kind": "operation", "op": 18, "title": "Air-to-Sea Attack", "rule": "FS 7.1 Op #18",
                "fields": {"op": [18], "area": ["sa4", "sa5"],
                           "aircraft": {"choices": ["daggers_1"], "multiple": True, "optional": True,
                                        "example": ["daggers_1"]},
                           "carriers": {"choices": ["25_de_mayo"], "multiple": True, "optional": True}},
                "example": {"area": "sa5", "carriers": ["25_de_mayo"], "fire": "auto"}}
    line = legal_order_lines(template, "g", {})[-1]
    assert "op=18" in line and "area=sa5" in line and "carriers=" in line and "fire=auto" in line and "aircraft=" not in line, line


def test_fs_7_1_op_12_a_cross_decking_that_moves_no_unit_is_refused():
    """FS 7.1 Op #12 "switch around ground units from naval vessels to other naval vessels": the
    server took {"moves": {"sas_d": "hermes"}} with SAS D already aboard Hermes, an operation spent
    on nothing, which the offer (rightly) never offered; the property test found it taken."""
    st = fresh()
    assert st["units"]["sas_d"]["aboard"] == "hermes"
    why = refusal(st, UK, op(12, moves={"sas_d": "hermes"}))
    assert why is not None and why.rule == "FS 7.1 Op #12", why
    assert refusal(st, UK, op(12, moves={"sas_d": "invincible"})) is None
