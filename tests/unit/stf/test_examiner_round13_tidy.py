"""Examiner round 13, STF: small deviations from the text and from the house's own rules (a die is
rolled only when its outcome is used; every roll and every group that stays names its rule).

Each test names the rule it checks; docs/rulesets.md ("Solitaire Task Force") writes down the
readings chosen."""

from __future__ import annotations

import pytest

from domain.rulesets.stf import combat
from tests.unit.stf.helpers import (FixedDice, add_group, answer_waves, combat_state, events_of, rolls_of, run_step,
                                    ship)
from tests.unit.stf.test_combat import acts
from tests.unit.stf.test_air import add as add_air, built, ship as air_ship
from tests.unit.stf.test_examiner_round12 import withdrawing_tf
from tests.unit.stf.test_movement import battle


# ---- STF 2.6.4: the LBNA search die with no Player task force to find --------------------------------
def test_stf_2_6_4_no_search_die_when_no_player_task_force_is_on_the_map_the_unit_is_removed():
    """2.6.4: "If a '1' is rolled, the Backfire/Badger locates the player task force closest to the
    Soviet map edge ... If anything else is rolled, this unit fails to locate a player task force
    and is removed from the game." With no Player task force on the map (a subron and a task force
    off the map only) either face removes the unit: the die decides nothing, so none is rolled
    (before, a d6 was rolled and its 1 removed the unit all the same). The 2.6.3 die is still
    rolled: it decides which type is spent. The removal names 2.6.4 and says why."""
    st = built()
    add_air(st, "P1", "Player", "2205", [air_ship("ssn", "SSN")], kind="subron")
    add_air(st, "P2", "Player", None, [air_ship("dd", "DD")], status="off map")
    out, after = run_step(st, "lbna_strike", FixedDice(4))  # a Badger; no second die planned
    assert [r.rule for r in rolls_of(out)] == ["STF 2.6.3"]
    assert after["lbna"]["used"] == {"badger": 1}
    used = events_of(out, "LbnaChanged")
    assert [e["rule"] for e in used] == ["STF 2.6.4"] and "no Player task force on the map" in used[0]["why"]
    assert not [e for e in events_of(out, "SystemActs") if e["what"] == "LBNA missile attack"]
    # with one on the map the search die is rolled again, and its 1 locates it
    add_air(st, "P3", "Player", "2005", [air_ship("ff", "FF")])
    out, after = run_step(st, "lbna_strike", FixedDice(4, 1))
    assert [r.rule for r in rolls_of(out)] == ["STF 2.6.3", "STF 2.6.4"]
    assert [e["detail"]["target"] for e in events_of(out, "SystemActs") if e["what"] == "LBNA missile attack"] == ["P3"]


# ---- STF 1.12 and 7.6: the withdrawing group's die for a choice of hexes -------------------------------
@pytest.mark.parametrize("rule", ["STF 1.12", "STF 7.6"])
def test_stf_1_12_and_7_6_a_withdrawing_groups_die_for_equally_good_hexes_names_its_own_rule(rule):
    """1.12: a carrier short of its escorts "must withdraw as quickly as possible toward the nearest
    friendly 'Base'"; 7.6: a group with no offensive firepower "will attempt to withdraw towards the
    nearest friendly base". Of hexes as near the base by water and as far from the Player's groups,
    the die is the withdrawing move's, rolled under its own rule as 12.5's retirement is (it was
    labelled 7.5, the approach's). Recorded rolls keep their stored rule; only new rolls name it."""
    st = withdrawing_tf(battle(p1="1506"), rule, "2008")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    rolls = rolls_of(out)
    assert rolls and {r.rule for r in rolls} == {rule}
    assert "withdrawing" in rolls[0].purpose and "2109, 2009" in rolls[0].purpose
    assert [e["rule"] for e in events_of(out, "GroupMoved")] == [rule]


# ---- STF 7.7 against 7.11: whom a group defending against the invasion fires at ------------------------
def test_stf_7_7_engaging_the_invasion_force_names_where_the_group_goes_not_its_target_11_2_keeps_the_cv_first():
    """7.7: "surface action groups and subrons defending against an invasion will move toward the
    nearest player task force containing an invasion freighter and attempt to engage it in battle"
    ("Similar to STF rule 7.5", a movement rule). Read: 7.7 says where the group goes; what it fires
    at is section 11's, so 11.2's "If the friendly player has a CV task force in range ... with the
    CV as its target" holds, and 11.3's guns go at the task force in its hex. 7.11 differs: it
    "will ignore all other movement rules" and names the combat, "engage that task force with SSM,
    4 rounds of gunnery, and torpedo combat", so a landed invasion force is the target first.
    TF1 has closed on P1 (invasion freighter, outside the objective megahex) as 7.7 sends it; P2,
    a CV task force, is one hex off: the SSMs fly at P2's carrier, the guns at P1. Once P1 (and TF1
    with it) is in the objective megahex, 7.11 sends the SSMs at P1."""
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
    add_group(st, "P1", "Player", "0505", {"dd": ship("DD", 4, nation="US", gun="C"),
                                           "fr": ship("FR", 5, nation="US", role="invasion", invasion=True)})
    add_group(st, "P2", "Player", "0506", {"cv": ship("CV", 25, nation="US", air={"L": 2}),
                                           "ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "0505", {"s1": ship("CG", 5, ssm=6, ssm_loads=1, gun="C"), "s2": ship("DD", 4, gun="C")})
    assert not combat.last_ditch_engagement(st, "P1")
    out, after = run_step(st, "surface_combat", FixedDice(default=1))
    assert [(w["rule"], w["detail"]["target_group"], w["detail"]["target"]) for w in acts(out, "SSM wave")] == \
        [("STF 11.2", "P2", "cv")]
    out, _ = answer_waves(after, FixedDice(default=1))
    assert {(g["rule"], g["detail"]["target_group"]) for g in acts(out, "gunnery")} == {("STF 11.3", "P1")}
    # in the objective megahex (CENTRE 1212 of megahex 30), 7.11's Last Ditch Defence: P1 first
    st["groups"]["P1"]["hex"] = st["groups"]["TF1"]["hex"] = "1212"
    st["groups"]["P2"]["hex"] = "1211"
    assert combat.last_ditch_engagement(st, "P1")
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    assert acts(out, "SSM wave")[0]["detail"]["target_group"] == "P1"
