"""Falklands Showdown, every number of FS 1.0-6.x and 11.0 read against the code (examiner round
six, part fsnum1): the edge values no earlier test pinned - one short of a threshold and exactly at
it, the first and the last operation, a count at its ends.

Each test quotes the sentence whose number it pins."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, R, TEZ, UK, UK_DESTROYERS, FixedDice, clear, control, empty, events_of, fresh, op, place, play, set_phase,
)

AR_INFANTRY = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "infantry")
UK_INFANTRY = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "infantry")


def vp(st: dict) -> int:
    return st["vp"][S.TRACK]


def a_uk_ship_in_the_tez(st: dict) -> dict:
    """Keep FS 4.4(1) quiet: one UK surface ship in a TEZ sea area."""
    return place(st, UK_DESTROYERS[-1], TEZ[0])


def ended(out: list) -> dict | None:
    found = events_of(out, "GameEnded")
    return found[0] if found else None


# ------------------------------------------------------------------------------------ FS 4.5 ---
@pytest.mark.parametrize("start, stops", [(-3, False), (-4, True)])
def test_fs_4_5_minus_4_plays_on_minus_5_stops_play_for_the_uk(start, stops):
    """FS 4.5 "If the VP tally ever reaches -5, play stops immediately and the UK player is declared
    the winner": AR Op #2 (one negative VP, 4.4(6)) from -3 leaves -4 and the AR phase goes on
    (the UK Submarine Phase follows); from -4 it reaches -5 and the game is over."""
    st = empty("AR Operations")
    st["vp"][S.TRACK] = start
    out, st2 = play(st, AR, op(2, unit="ri_2"))
    assert vp(st2) == start - 1
    if stops:
        assert (ended(out)["winner"], ended(out)["level"], ended(out)["rule"]) == (UK, "sudden death", "FS 4.5")
        assert st2["ended"]
    else:
        assert ended(out) is None and not st2.get("ended")
        assert st2["phase"] == "UK Submarine"


@pytest.mark.parametrize("start, stops", [(0, False), (-1, True)])
def test_fs_4_5_and_4_4_5_port_stanley_taken_four_vp_at_once_reaching_minus_5(start, stops):
    """FS 4.4(5) "four negative VP ... when he takes control of the Port Stanley area" with 4.5:
    from 0 the tally stands at -4 and play goes on; from -1 it reaches -5 in the same instant and
    the UK wins by sudden death, whoever holds what after."""
    st = a_uk_ship_in_the_tez(empty())
    st["vp"][S.TRACK] = start
    place(st, UK_INFANTRY[0], "mount_kent")
    control(st, UK, "mount_kent")
    out, st2 = play(st, UK, op(24, units=[UK_INFANTRY[0]], origin="mount_kent", destination=T.PORT_STANLEY))
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-4, "FS 4.4(5)")]
    assert vp(st2) == start - 4
    if stops:
        assert (ended(out)["winner"], ended(out)["rule"]) == (UK, "FS 4.5") and st2["ended"]
    else:
        assert ended(out) is None and st2["phase"] == "AR Operations"


@pytest.mark.parametrize("start, stops", [(17, False), (18, True)])
def test_fs_4_5_and_11_3_4_5_the_two_vp_of_political_pressure_reaching_plus_20(start, stops):
    """FS 11.3 4-5 "the AR player is awarded two VP at the end of that third UK operation" with 4.5
    "If the VP tally ever reaches +20, play stops immediately": two points from +17 leave +19; from
    +18 they reach +20 and the AR wins the war and the game at once."""
    st = a_uk_ship_in_the_tez(empty())
    st["vp"][S.TRACK] = start
    st["political_pressure"] = {"ops_left": 1}
    st["effects"][UK]["political_pressure"] = {"ops_left": 1}
    out, st2 = play(st, UK, {"kind": "pass"})
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(2, "FS 11.3 4-5")]
    assert vp(st2) == start + 2
    if stops:
        assert (ended(out)["winner"], ended(out)["level"], ended(out)["rule"]) == (AR, "sudden death", "FS 4.5")
    else:
        assert ended(out) is None and st2["phase"] == "AR Operations"
        assert st2["political_pressure"] is None  # spent: the three operations are over


# ---------------------------------------------------------------------------- FS 11.3 5-3 ---
def test_fs_11_3_5_3_weather_with_two_operations_left_leaves_the_uk_its_last_one():
    """FS 11.3 5-3 "Mark one UK operation as having been expended with no effect. This doesn't
    cancel the UK player's next Operations Phase": with two operations left the weather leaves one,
    the game goes on into the next turn, and the UK's one operation there is its last (5.3: "the
    last turn will be truncated, ending immediately with the completion of its first phase")."""
    st = a_uk_ship_in_the_tez(empty())
    st["uk_operations_left"] = 2
    set_phase(st, "AR Submarine", turn=4)
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(5, 3))
    assert [e["result"] for e in events_of(out, "RandomEventDrawn")] == ["5-3"]
    assert st["uk_operations_left"] == 1 and ended(out) is None
    assert (st["turn"], st["phase"]) == (5, "UK Operations")
    out, st = play(st, UK, {"kind": "pass"})
    assert events_of(out, "OperationCompleted")[0]["uk_operations_left"] == 0
    assert ended(out)["rule"] == "FS 4.2" and st["ended"]  # the AR still holds Port Stanley
    assert not events_of(out, "PhaseAdvanced") and R.legal_orders(st, AR) == []


# ------------------------------------------------------------------------------ FS 4.7 / 3.5 ---
@pytest.mark.parametrize("bids, count", [([1, 30], 1), ([30, 30], 30), ([30, 1], 1)])
def test_fs_4_7_and_3_5_bids_at_both_ends_of_1_to_30(bids, count):
    """FS 4.7 "a number of their own choosing between '1' and '30'" (both ends included) and "the
    player who wrote that lower number would command the British": the UK Operations Remaining
    marker starts at the lower bid instead of the "30" of FS 3.5."""
    made = R.setup(None, {"bids": bids})
    assert made.options["uk_operations"] == count
    assert made.state["uk_operations_left"] == count == made.state["uk_operations"]
    assert made.state["vp"][S.TRACK] == 8  # FS 3.5: the VP marker in the "8" box whatever the bids


def test_fs_4_7_a_bid_of_1_under_5_4_ends_the_game_with_the_first_uk_phase():
    """FS 4.7 with one operation, FS 5.4 (event 1-1 "in effect at the start of the first turn": "any
    two operations for the price of one") and 5.3: the UK conducts its two operations of turn 1,
    the pair costing the one operation it has, and the game ends there - no AR phase."""
    st = clear(fresh(bids=[1, 30], superiority=True))
    control(a_uk_ship_in_the_tez(st), UK, T.PORT_STANLEY)
    st["vp"][S.TRACK] = 0
    out, st = play(st, UK, {"kind": "pass"})
    assert st["uk_operations_left"] == 1 and not st.get("ended")
    out, st = play(st, UK, {"kind": "pass"})
    assert st["uk_operations_left"] == 0
    assert (ended(out)["winner"], ended(out)["rule"]) == (UK, "FS 4.6")  # zero VP: the UK's (FS 4.6)
