"""Pending decisions (docs/rulesets.md): each decision's id is unique in the game, so an answer
names the one decision it answers. An answer sent for an earlier decision (late, or sent again)
is refused under the waiting decision's rule, never taken for a later decision of the same kind."""

from __future__ import annotations

import copy

import pytest

from domain.errors import InvalidOrder
from tests.unit.falklands.helpers import (
    AR, UK, FixedDice, R, answer, empty, fire, op, pending, place, play, set_phase,
)


def strike(st: dict) -> dict:
    """An AR air strike on a UK ship that can fire back: a defensive_fire decision (FS 10.2)."""
    out, st = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))),
                   FixedDice(default=6))
    assert pending(st)["kind"] == "defensive_fire"
    return st


def two_strikes() -> tuple[dict, dict, dict]:
    """The position, the first defensive_fire decision (answered), the second (waiting)."""
    st = empty("AR Operations")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    st = strike(st)
    first = pending(st)
    out, st = answer(st, UK, {"fire": "auto"}, FixedDice(default=6))
    assert not pending(st)
    set_phase(st, "AR Operations", turn=2)  # the next AR phase: the same strike again
    st = strike(st)
    return st, first, pending(st)


def test_fs_10_2_decisions_of_one_kind_in_two_operations_have_ids_of_their_own():
    st, first, second = two_strikes()
    assert first["kind"] == second["kind"] == "defensive_fire"
    assert first["id"] != second["id"]
    assert first["id"].startswith("defensive_fire-") and second["id"].startswith("defensive_fire-")


def test_fs_10_2_an_answer_naming_an_answered_decision_is_refused_not_taken_for_the_waiting_one():
    """A late or resent answer to the first defensive fire names the first decision's id: it is
    refused under the waiting decision's rule (FS 10.2), as an unknown id is, and nothing is recorded."""
    st, first, second = two_strikes()
    before = copy.deepcopy(st)
    with pytest.raises(InvalidOrder) as err:
        R.decide(copy.deepcopy(st), UK, {"kind": "decide", "decision": first["id"], "choice": {"fire": "auto"}},
                 FixedDice(default=6))
    assert err.value.rule == second["rule"] == "FS 10.2" and err.value.field == "decision"
    assert second["id"] in str(err.value)
    assert st == before
    out, after = play(st, UK, {"kind": "decide", "decision": second["id"], "choice": {"fire": "auto"}}, FixedDice(default=6))
    assert not pending(after)


def intercepted_strike() -> dict:
    """An AR air strike near Hermes on a UK ship that can fire back: first an interception (FS 7.1 Op #11)."""
    st = empty("AR Operations")
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    out, st = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))))
    assert pending(st)["kind"] == "interception"
    return st


def test_fs_7_1_op_11_a_decision_asked_in_an_answers_order_goes_on_counting():
    """Interception (FS 7.1 Op #11) is asked by the operation's order, the defensive fire after it
    by the interception answer's order: one chain, ids counted on, never starting again."""
    st = intercepted_strike()
    intercept = pending(st)
    out, st = answer(st, UK, {"fire": []}, FixedDice(default=6))  # the UK lets them pass
    defend = pending(st)
    assert defend["kind"] == "defensive_fire"
    chain, n = intercept["id"].removeprefix("interception-").rsplit("-", 1)
    assert defend["id"] == f"defensive_fire-{chain}-{int(n) + 1}"


def test_fs_5_1_a_decision_asked_again_after_a_take_back_has_an_id_of_its_own():
    """A take-back (FS 5.1) returns to a position already played: the same strike ordered again
    asks its defensive fire under a new id, so an answer sent for the decision taken back is
    refused, not taken for the one asked now."""
    from domain.rulesets.falklands import state as S

    st = empty("AR Operations")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    before = copy.deepcopy(st)
    first = pending(strike(st))
    back = S.fold(strike(st), "TakeBackAccepted", {"seat": AR, "order_id": "ar-1", "restored": before,
                                                   "superseded_from": 2, "superseded_to": 9, "superseded_rolls": [],
                                                   "rule": "FS 5.1"}, 10)
    assert not pending(back) and back["take_backs"] == 1
    again = strike(back)
    second = pending(again)
    assert second["kind"] == first["kind"] == "defensive_fire" and second["id"] != first["id"]
    with pytest.raises(InvalidOrder) as err:
        R.decide(copy.deepcopy(again), UK, {"kind": "decide", "decision": first["id"], "choice": {"fire": "auto"}},
                 FixedDice(default=6))
    assert err.value.rule == "FS 10.2" and err.value.field == "decision"
    out, after = play(again, UK, {"kind": "decide", "decision": second["id"], "choice": {"fire": "auto"}},
                      FixedDice(default=6))
    assert not pending(after)


def test_fs_5_1_a_decision_asked_again_by_an_answer_after_a_take_back_has_an_id_of_its_own():
    """The answer to an interception (FS 7.1 Op #11) asks the defensive fire; that answer is taken
    back (FS 5.1) and given again, which goes on with the interception's chain: the defensive fire
    it asks has an id of its own, and an answer naming the one taken back is refused saying so."""
    from domain.rulesets.falklands import state as S

    st = intercepted_strike()
    intercept = pending(st)
    before = copy.deepcopy(st)
    out, st = answer(st, UK, {"fire": []}, FixedDice(default=6))
    first = pending(st)
    back = S.fold(st, "TakeBackAccepted", {"seat": UK, "order_id": "uk-1", "restored": before,
                                           "superseded_from": 2, "superseded_to": 9, "superseded_rolls": [],
                                           "rule": "FS 5.1"}, 10)
    assert pending(back)["id"] == intercept["id"] and back["taken_back_decisions"] == [first["id"]]
    out, again = answer(back, UK, {"fire": []}, FixedDice(default=6))
    second = pending(again)
    assert second["kind"] == first["kind"] == "defensive_fire" and second["id"] == f"{first['id']}.1"
    with pytest.raises(InvalidOrder) as err:
        R.decide(copy.deepcopy(again), UK, {"kind": "decide", "decision": first["id"], "choice": {"fire": "auto"}},
                 FixedDice(default=6))
    assert err.value.rule == "FS 10.2" and err.value.field == "decision"
    assert f"{first['id']!r} was taken back (FS 5.1)" in str(err.value) and repr(second["id"]) in str(err.value)
    out, after = play(again, UK, {"kind": "decide", "decision": second["id"], "choice": {"fire": "auto"}},
                      FixedDice(default=6))
    assert not pending(after)
