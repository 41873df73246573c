"""Examiner round 13, STF: small deviations from the text and from the house's own rules (a die is
rolled only when its outcome is used; every roll and every group that stays names its rule).

Each test names the rule it checks; docs/rulesets.md ("Solitaire Task Force") writes down the
readings chosen."""

from __future__ import annotations

from tests.unit.stf.helpers import FixedDice, events_of, rolls_of, run_step
from tests.unit.stf.test_air import add as add_air, built, ship as air_ship


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
