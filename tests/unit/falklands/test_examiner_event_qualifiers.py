"""FS 11.2-11.3, the qualifiers of the random events ("only", "unless", "if there are no", "until
rolled into effect again", "doesn't count as an operation" ...), each on its edge case, written
from the rules text alone for what the other examiner modules do not already check. Positions are
small and synthetic (helpers.py); dice are fixed."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S

from .helpers import (
    AR, UK, FixedDice, answer, control, empty, events_of, keep_dice, pending, place, play, uk, with_factor,
)
from .test_rules_random_events import draw

SEA = "sa7"  # a TEZ sea area (FS 2.2)
SHIP_IN_TEZ = "broadsword"  # keeps FS 4.4(1) quiet at the end of a UK operation


def pressure_vp(out) -> list[int]:
    return [e["delta"] for e in events_of(out, "VPScored") if e["rule"] == "FS 11.3 4-5"]


# ---------------------------------------------------------------------------------- 4-5 ---
def test_fs_11_3_4_5_the_game_ends_before_the_third_uk_operation_no_two_vp():
    """FS 11.3 4-5: "... or the AR player is awarded two VP at the end of that third UK operation":
    rolled with two UK operations left, the game ends (FS 4.2/4.6) after the second: there is no
    third UK operation, so no two VP."""
    st = uk()
    control(st, UK, "port_stanley")
    st["vp"][S.TRACK] = 0
    st["uk_operations_left"] = 2
    out, st = draw(st, 4, 5)
    assert st["political_pressure"] == {"ops_left": 3}
    out, st = play(st, UK, {"kind": "pass"})
    assert not pressure_vp(out) and st["political_pressure"] == {"ops_left": 2}
    st["phase"], st["active"] = "UK Operations", [UK]
    st["phase_ops"] = S.phase_allowance(st, "UK Operations")
    out, st = play(st, UK, {"kind": "pass"})
    (ended,) = events_of(out, "GameEnded")
    assert not pressure_vp(out) and st["vp"][S.TRACK] == 0
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.6")


# ------------------------------------------------------------------------- 4-1 4-2 4-3 ---
def test_fs_11_3_4_3_both_markers_out_until_rolled_into_effect_again_for_one_or_the_other():
    """FS 11.3 4-1: "... both markers are then out of play until rolled into effect again for one or
    the other player": the UK's 4-1 took the AR marker (both out); a later 4-3 gives the AR its
    marker again, and a 4-1 after that takes it away once more."""
    st = empty()
    st["markers"][AR] = ["ar_decisive_leader"]
    out, st = draw(st, 4)
    out, st = keep_dice(st, AR, 1)  # the AR keeps the event dice, each as it is rolled
    out, st = answer(st, AR, {"reroll": None})
    assert st["markers"] == {UK: [], AR: []}
    out, st = draw(st, 4, 3)
    assert events_of(out, "MarkerGained") == [{"side": AR, "marker": "ar_decisive_leader", "rule": "FS 11.3 4-3"}]
    assert st["markers"] == {UK: [], AR: ["ar_decisive_leader"]}
    out, st = draw(st, 4)
    out, st = keep_dice(st, AR, 2)
    out, st = answer(st, AR, {"reroll": None})
    assert st["markers"] == {UK: [], AR: []} and not events_of(out, "MarkerGained")


# ---------------------------------------------------------------------------------- 6-3 ---
def test_fs_11_3_6_3_the_replacement_is_no_ar_operation():
    """FS 11.3 6-3: "That placement doesn't count as an AR operation": the next AR Operations Phase
    still has its one operation, and no operation is logged for the AR."""
    st = empty()
    st["units"]["a4_1"].update(eliminated=True, in_play=True, steps=0)
    log = list(st["ops_log"][AR])
    out, st = draw(st, 6, 3)
    out, st = answer(st, AR, {"unit": "a4_1"})
    assert not events_of(out, "OperationBegun") and not events_of(out, "OperationCompleted")
    assert st["ops_log"][AR] == log and S.where(st, "a4_1") == S.ARGENTINA


# ----------------------------------------------------------- the six free attacks, no op ---
FREE_ATTACKS = [
    # (UK die, AR die, seat, units placed in SEA, the free attack's answer)
    (2, 1, UK, ("glamorgan", "drummond"), {"area": SEA, "units": ["glamorgan"], "fire": "auto"}),
    (2, 5, UK, ("glamorgan", "salta"), {"area": SEA, "units": ["glamorgan"], "fire": "auto"}),
    (3, 4, UK, ("spartan", "drummond"), {"area": SEA, "units": ["spartan"], "target": "drummond"}),
    (4, 4, AR, ("drummond", "glamorgan"), {"area": SEA, "units": ["drummond"], "fire": "auto"}),
    (6, 5, AR, ("drummond", "spartan"), {"area": SEA, "units": ["drummond"], "fire": "auto"}),
    (6, 6, AR, ("salta", "glamorgan"), {"area": SEA, "units": ["salta"], "target": "glamorgan"}),
]


@pytest.mark.parametrize("uk_die, ar_die, seat, units, choice", FREE_ATTACKS)
def test_fs_11_3_a_free_attack_counts_as_no_operation_of_either_side(monkeypatch, uk_die, ar_die, seat, units,
                                                                     choice):
    """FS 11.3 2-1 "This attack doesn't count as using up a UK operation", 2-5 likewise, 3-4 "This
    doesn't count as an operation for the UK player", 4-4 "doesn't count as using up an AR
    Operations Phase", 6-5 "doesn't count as an AR operation", 6-6 likewise: no operation is begun
    or logged, the UK track keeps its count and the next Operations Phases keep one operation."""
    st = empty()
    for u in units:
        place(st, u, SEA)
        with_factor(monkeypatch, u, surface=3, sub=3)
    place(st, SHIP_IN_TEZ, "sa6")
    left, log = st["uk_operations_left"], {k: list(v) for k, v in st["ops_log"].items()}
    out, st = draw(st, uk_die, ar_die, default=6)  # every shot misses
    assert pending(st)["seat"] == seat and pending(st)["kind"] == "free_attack"
    outs = list(out)
    out, st = answer(st, seat, choice, FixedDice(default=6))
    outs += out
    while pending(st):  # normal defensive fire, where the event has it
        assert pending(st)["seat"] == S.other(seat)
        out, st = answer(st, S.other(seat), {"fire": "auto"}, FixedDice(default=6))
        outs += out
    assert events_of(outs, "BattleBegun")
    assert not events_of(outs, "OperationBegun") and not events_of(outs, "OperationCompleted")
    assert st["uk_operations_left"] == left and st["ops_log"] == log
    assert st["phase"] == "UK Operations" and st["phase_ops"]["allowed"] == 1


SINKINGS = [
    # (UK die, AR die, seat, attacker, target, target's steps, area, VP)
    (2, 1, UK, "glamorgan", "drummond", 1, "sa4", 1),  # FS 4.4(2): an AR ship sunk outside the TEZ, a debit
    (2, 5, UK, "glamorgan", "salta", 1, SEA, -1),      # FS 4.4(3): an AR ship (submarine) sunk in the TEZ
    (6, 5, AR, "drummond", "spartan", 1, SEA, 1),      # FS 4.4(4): "other UK ships and submarines", one
    (6, 6, AR, "salta", "hermes", 1, SEA, 2),          # FS 4.4(4): Hermes, two
]


@pytest.mark.parametrize("uk_die, ar_die, seat, attacker, target, steps, area, vp", SINKINGS)
def test_fs_11_3_normal_vp_pertain_for_a_sinking_in_a_free_attack(monkeypatch, uk_die, ar_die, seat, attacker,
                                                                  target, steps, area, vp):
    """FS 11.3 2-1 and 2-5 "Normal VP awards and debits pertain for each sinking", 6-5 "Normal VP pertain for
    each sinking", 6-6 "Normal VP awards pertain for a sinking": the sinking scores as FS 4.4 says."""
    st = empty()
    place(st, attacker, area)
    place(st, target, area, steps=steps)
    for u in (attacker, target):
        with_factor(monkeypatch, u, surface=3, sub=3)
    place(st, SHIP_IN_TEZ, "sa6")
    start = st["vp"][S.TRACK]
    out, st = draw(st, uk_die, ar_die)
    choice = {"area": area, "units": [attacker]}
    choice.update({"target": target} if (uk_die, ar_die) == (6, 6) else {"fire": [{"unit": attacker, "at": target}]})
    outs, dice = [], FixedDice(1, default=6)  # the attacker's shot hits, any return fire misses
    out, st = answer(st, seat, choice, dice)
    outs += out
    while pending(st):
        out, st = answer(st, S.other(seat), {"fire": "auto"}, dice)
        outs += out
    assert [e["unit"] for e in events_of(outs, "UnitEliminated")] == [target]
    assert [e["delta"] for e in events_of(outs, "VPScored")] == [vp] and st["vp"][S.TRACK] == start + vp
