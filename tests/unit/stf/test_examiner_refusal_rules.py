"""Every refused order names the rule it breaks, and the rule whose words forbid it (an examiner's
check of the rule argument of the refusals; the text, 003_74ca0e4e298164eb.txt, is the authority)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import air, maps
from tests.unit.stf.helpers import FixedDice, at_phase, events_of, initial, play, run_step, search_state, system_group


def test_stf_8_2_a_contact_not_yet_on_the_board_is_refused_under_8_2():
    """STF 8.2 "The player, however, must evaluate the contacts on the board": a GameSystem group
    not on the map is no contact to search; 8.1 (contacts, some valid, some not) forbids nothing."""
    st = search_state(system_group("TF1", hex=None, status="off map"))
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "search", "group": "TF1", "search_value": 5})
    assert e.value.rule == "STF 8.2" and "on the board" in e.value.detail


def _groups(st: dict, *specs) -> dict:
    for gid, owner, kind_, hex_ in specs:
        group = {"id": gid, "owner": owner, "kind": kind_, "hex": hex_, "units": [f"{gid}-1"], "status": "on map"}
        if owner == "system":
            group.update({"intel": "unknown", "chit": None, "size": None, "retiring": False,
                          "mode": "deep" if kind_ == "subron" else None, "emcon": kind_ == "tf"})
        st["groups"][gid] = group
        st["units"][f"{gid}-1"] = {"id": f"{gid}-1", "counter": f"{gid}-1", "class": "SSN" if kind_ == "subron" else "DD",
                                   "speed": 2, "ssm": 2, "torpedoes": 0, "gun": "C", "group": gid}
    return st


def test_stf_8_15_an_action_lost_to_a_player_subrons_hex_is_refused_under_8_15_not_8_14():
    """STF 8.15 "If a less than Precise GameSystem task force(s) or subron(s) enters the same hex as
    a player subron, ... the player loses one action in the following turn": the move that action
    would have been is refused naming 8.15 (8.14 is about a Player task force two hexes away)."""
    st = at_phase(initial(), "Movement", turn=2)
    st["campaign"].update({"map": "giuk", "player_side": "US", "system_side": "Soviet", "invader": None,
                           "mission": "Battle", "invasion_target": None})
    _groups(st, ("P1", "Player", "tf", "1506"), ("SR1", "system", "subron", "2210"))
    free, _ = run_step(st, "system_movement", FixedDice(default=1))
    end = events_of(free, "GroupMoved")[0]["path"][-1]
    _groups(st, ("P2", "Player", "subron", end))  # SR1 enters P2's hex
    _, st = run_step(st, "system_movement", FixedDice(default=1))
    assert st["campaign"]["actions_lost"]["count"] == 1
    st = at_phase(st, "Movement", turn=3)
    _, st = play(st, {"kind": "move", "group": "P1", "path": ["1606"]})
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "move", "group": "P2", "path": [maps.sea_neighbours("giuk", end)[0]]})
    assert e.value.rule == "STF 8.15" and "1 by STF 8.15" in e.value.detail


def test_stf_8_14_actions_lost_to_both_rules_name_8_14_and_count_each():
    """One action lost to 8.14 and one to 8.15: the refusal names 8.14 and says how many each cost."""
    st = at_phase(initial(), "Movement", turn=3)
    st["campaign"].update({"map": "giuk", "player_side": "US", "system_side": "Soviet", "invader": None,
                           "mission": "Battle", "invasion_target": None,
                           "actions_lost": {"turn": 3, "count": 2, "rules": {"STF 8.14": 1, "STF 8.15": 1}}})
    _groups(st, ("P1", "Player", "tf", "1506"), ("P2", "Player", "tf", "1510"), ("P3", "Player", "subron", "2210"))
    _, st = play(st, {"kind": "move", "group": "P1", "path": ["1606"]})
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "move", "group": "P2", "path": ["1610"]})
    assert e.value.rule == "STF 8.14" and "1 by STF 8.14, 1 by STF 8.15" in e.value.detail


def _struck_airbase_state(phase: str) -> dict:
    """A US Player in the Mediterranean whose airbase Famagusta has 3 hits (STF 9.4), a task force
    P1 of a DD with a B gun next to the GameSystem's airbase Latakia."""
    st = at_phase(initial(), phase, turn=3)
    st["campaign"].update({"map": "mediterranean", "player_side": "US", "system_side": "Soviet",
                           "player_airbases": ["Famagusta"], "system_airbase": "Latakia",
                           "ground_aviation": {"Player": 2, "system": 0}, "lbna_available": True})
    latakia = maps.place_hex("mediterranean", "Latakia")
    near = next(h for h in maps.sea_neighbours("mediterranean", latakia))
    st["groups"]["P1"] = {"id": "P1", "owner": "Player", "kind": "tf", "hex": near, "units": ["p1"], "status": "on map"}
    st["units"]["p1"] = {"id": "p1", "class": "DD", "gun": "B", "group": "P1"}
    st["airbases"] = {"Famagusta": {"owner": "Player", "hits": 3}}
    assert not air.airbase_active(st, "Famagusta")
    return st


def test_stf_9_8_an_airbase_bombards_nothing_whatever_its_hits():
    """STF 9.8 "Any ship with an 'A' or 'B' gunnery factor can bombard an airbase": a bombardment
    from an airbase is refused for that, not for 9.4's "cannot launch aircraft"."""
    st = _struck_airbase_state("Combat")
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "bombard", "from": "Famagusta", "target": "Latakia"})
    assert e.value.rule == "STF 9.8" and "bombarded by ships" in e.value.detail


def test_stf_9_7_tomahawks_from_an_airbase_are_refused_for_9_7_not_for_its_hits():
    """STF 9.7 "Tomahawk missiles can be used to attack land air bases" (fired by ships, 13.9):
    Tomahawks from an airbase are refused under 9.7; 9.4's 3 hits ground aircraft, not missiles."""
    st = _struck_airbase_state("Combat")  # Tomahawks are SSM combat: the Combat phase (round 11)
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "air_strike", "from": "Famagusta", "target": "Latakia", "tomahawk": True})
    assert e.value.rule == "STF 9.7" and "fired by ships" in e.value.detail
