"""Examiner round 8, STF readings: each reading of docs/rulesets.md checked against the words of
the v1.2 text; the points the last round left (8.9 for a Soviet CG line, 8.12 before a Soviet
Player's enemy is known, 1.12's freighter) pinned as the text's words settle them."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import combat, forces
from tests.unit.stf.helpers import R, FixedDice, events_of, play, pool_of, run_step, search_state, ship, system_group
from tests.unit.stf.test_composition import BIG, _drawn, accurate, reveal
from tests.unit.stf.test_movement import add, battle, player_tf
from tests.unit.stf.test_search import order


# ---- STF 8.9: a Soviet CG line with no CG and no CL left -----------------------------------------
def test_stf_8_9_soviet_cg_with_cg_and_cl_exhausted_draws_a_kiev_at_its_own_cost():
    """8.9: "If there are no units in the next lower category, then a unit from the next higher
    category may be chosen, but at the higher deployment point cost." Below the CG the Soviets'
    next class is the CL; above it they have no BB, so the next higher class they have is the CV.
    Soviet Commodore TF row 8 (2CG 2DD 2FF), every CG and CL already drawn: two Kievs, 10 each."""
    st = search_state(accurate("TF1", "medium"), pool=pool_of("Soviet", CV=2, DD=2, FF=2), commitment=BIG)
    st["units"] = {"sov-cg-9": _drawn("sov-cg-9", "Soviet", "CG", 6), "sov-cl-9": _drawn("sov-cl-9", "Soviet", "CL", 5)}
    out, after = reveal(st, "TF1", FixedDice(8))
    subs = [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 8.9"]
    assert sorted(u for e in subs for u in e["units"]) == ["sov-cv-1", "sov-cv-2"]
    assert all(e["points"] == 10 and "next higher" in e["why"] for e in subs)
    assert {after["units"][u]["class"] for u in after["groups"]["TF1"]["units"]} == {"CV", "DD", "FF"}


# ---- STF 8.12: "50 if large US" only once the enemy is known to be US ----------------------------
def test_stf_8_12_a_soviet_players_large_task_force_counts_30_until_8_8_fixes_its_nation():
    """8.12: "30 if large or 50 if large US". A Soviet Player's enemy is US or NATO (8.8: "On a
    roll of 1-2, the enemy forces are NATO; on a roll of 3-6 the enemy forces are US"), unknown
    until the first Precise report: a large task force made Accurate before that is estimated 30,
    not 50; once 8.8 has said US, a large one is 50, NATO still 30."""
    for side, points in ((None, 30), ("US", 50), ("NATO", 30)):
        st = search_state(system_group("TF1", chit="Tracked"), player_side="Soviet", system_side=side,
                          map="mediterranean", commitment={"Player": {"points": 14, "carriers": 1}, "system": 108})
        out, after = play(st, order("TF1", 5), FixedDice(5, 6))  # 5 - 2 = 3, 2 less: Accurate; d6 6: large
        assert after["groups"]["TF1"]["size"] == "large"
        assert events_of(out, "DeploymentChanged")[0]["points"] == points, side


# ---- STF 1.12: the US carrier's freighter is part of the requirement ------------------------------
def test_stf_1_12_a_us_carrier_whose_fast_resupply_ship_is_sunk_breaks_the_requirement():
    """1.12: "Each aircraft carrier must always be accompanied by at least three ships of frigate
    level ... and, for the US only, one freighter ... If the aircraft carrier cannot meet this
    escort ship requirement, then it and its remaining escorts must withdraw". The freighter is in
    the one requirement ("must always be accompanied by"), so a US carrier with three frigates
    whose freighter is sunk breaks it; the freighter never counts as one of the three frigates."""
    st = search_state(system_group("TF1", intel="precise", nation="US"), player_side="Soviet", system_side="US")
    units = {"cv": ship("CV", 10, nation="US"), "fr": ship("FR", 5, nation="US", role="fast resupply"),
             **{f"ff{i}": ship("FF", 3, nation="US", asw=2) for i in range(3)}}
    st["units"] = {uid: {**u, "id": uid, "group": "TF1", "hits": 0, "sunk": False} for uid, u in units.items()}
    st["groups"]["TF1"]["units"] = list(units)
    assert forces.escort_shortfall(st, "TF1") is None
    st["units"]["fr"]["sunk"] = True
    assert "fast resupply" in forces.escort_shortfall(st, "TF1")
    st["units"]["fr"]["sunk"] = False
    st["units"]["ff0"]["sunk"] = True  # the freighter does not stand in for a frigate
    assert "ASW ships" in forces.escort_shortfall(st, "TF1")


@pytest.mark.parametrize("gone", ["sunk", "retired", "destroyed"])
def test_stf_1_12_an_escort_out_of_play_no_longer_accompanies_the_carrier(gone):
    """1.12: a carrier "must always be accompanied by at least three ships of frigate level". A
    frigate sunk (12.4), retired off the map at a base (12.9: "removed from the map") or reported
    destroyed (12.3) accompanies nothing: combat no longer counts it in the group, and 1.12 must
    not either. Before, 1.12 left out only the sunk, so a carrier whose third frigate had retired
    still met the requirement while combat fought with two."""
    st = search_state(system_group("TF1", intel="precise"))
    units = {"cv": ship("CV", 10), **{f"ff{i}": ship("FF", 3, asw=2) for i in range(3)}}
    st["units"] = {uid: {**u, "id": uid, "group": "TF1", "hits": 0, "sunk": False} for uid, u in units.items()}
    st["groups"]["TF1"]["units"] = list(units)
    assert forces.escort_shortfall(st, "TF1") is None
    st["units"]["ff0"][gone] = True
    assert [u["id"] for u in combat.units_of(st, "TF1")] == ["cv", "ff1", "ff2"]
    assert "the task force has 2" in forces.escort_shortfall(st, "TF1")
    assert forces.system_withdrawal(st, "TF1")


# ---- STF 8.14: "the player task force loses one action" -------------------------------------------
def test_stf_8_14_the_action_is_lost_by_the_player_task_force_the_contact_came_within_two_hexes_of():
    """8.14: "moves within two hexes of player task force ... but the player task force loses one
    action in the following turn" (8.15, by a Player subron: "the player loses one action"). TF1
    comes within two hexes of P1; P2 is far off. Next turn P1 has lost its action (the server's one
    action of a group a turn is its move): P1's move is refused naming STF 8.14, P2 still moves."""
    st = battle(p1="1506")
    player_tf(st, "P2", "1510", 4)
    add(st, "TF1", "system", "tf", "1906")
    _, st2 = run_step(st, "system_movement", FixedDice(default=1))  # TF1 moves to 1706, two hexes from P1
    st2["turn"] += 1
    with pytest.raises(RuleViolation) as e:
        play(st2, {"kind": "move", "group": "P1", "path": ["1606"]})
    assert e.value.rule == "STF 8.14" and "P1" in str(e.value)
    _, st3 = play(st2, {"kind": "move", "group": "P2", "path": ["1610"]})
    assert st3["groups"]["P2"]["hex"] == "1610"
    assert {o["group"] for o in R.legal_orders(st2, "Player") if o["kind"] == "move"} == {"P2"}
    assert st2["campaign"]["actions_lost"]["groups"] == {"P1": 1}
