"""Examiner round 8: scenarios written from the STF v1.2 text, rule by rule, on the rules the
earlier rounds named least (10.11, 10.12, 10.16, 11.5, 11.6, 7.2, 13.10, 8.13, 12.2, 12.3 ...)
and on two rules meeting in one decision."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import air
from tests.unit.stf.helpers import FixedDice, events_of, play, rolls_of, run_step
from tests.unit.stf.test_air import add, cv, precise_cv_state, strikes


# ---- STF 13.11 / 10.10 / 10.11: a squadron's permanent damage, reported ----------------------------
def test_stf_13_11_damage_reported_on_a_gamesystem_a6_costs_it_a_harpoon_wave_at_its_next_strike():
    """13.11: "Subtract 1 wave for each point of permanent damage on the air units." The damage is
    the base game's result, so the Player reports it (``squadron_damage``, as he reports squadrons
    destroyed); the GameSystem's A-6 that took 1 point then fires 2 waves of 8 Harpoons, not 3."""
    st = precise_cv_state(H=4, L=3)
    st["campaign"]["system_side"] = "US"
    st["units"]["kiev"]["aircraft"] = {"H": "A-6 Intruder", "L": "F-14 Tomcat"}
    st["groups"]["P1"].update(hex="1705", units=["p2"])  # a SAG 2 megahexes off: an ASM attack (10.14)
    out, st = play(st, {"kind": "report", "squadron_damage": {"kiev:H": 1}})
    change = [e for e in events_of(out, "UnitChanged") if e["unit"] == "kiev"][0]
    assert change["changes"] == {"air_damage": {"kiev:H": 1}} and change["rule"] == "STF 13.11"
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert [h["waves"] for h in strikes(out)[0]["detail"]["harpoons"]] == [2]


def test_stf_10_11_after_a_reported_damage_the_undamaged_m_strikes_and_the_damaged_one_escorts():
    """10.11: "if the choice is between two identical units with different damage levels, the
    stronger must be the strike and the weaker the escort." Two M squadrons of 3; the Player
    reports 2 points of damage on the first; Soviet column, row 3: 1 strike, 1 escort."""
    st = precise_cv_state(M=[3, 3])
    _, st = play(st, {"kind": "report", "squadron_damage": {"kiev:M1": 2}})
    out, _ = run_step(st, "air_attacks", FixedDice(3, 1))
    d = strikes(out)[0]["detail"]
    assert (d["strike"], d["escort"]) == (["kiev:M2"], ["kiev:M1"])
    assert air.cap(st, "TF1")["strength"] == 2  # 10.2: half of (1 + 3) left, round up


def test_stf_13_11_damage_adds_up_and_damage_that_leaves_nothing_is_a_squadron_destroyed():
    """Permanent damage adds up over reports; damage that would leave a squadron no strength is
    refused: a squadron with nothing left is destroyed (12.3 counts it, 12.7 looks for it), so the
    Player names it in ``squadrons_destroyed``. A squadron the carrier does not have is refused."""
    st = precise_cv_state(H=4, L=3)
    _, st = play(st, {"kind": "report", "squadron_damage": {"kiev:H": 1}})
    _, st = play(st, {"kind": "report", "squadron_damage": {"kiev:H": 2}})
    assert st["units"]["kiev"]["air_damage"] == {"kiev:H": 3}
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "report", "squadron_damage": {"kiev:H": 1}})
    assert e.value.rule == "STF 12.3" and "squadrons_destroyed" in str(e.value)
    with pytest.raises(RuleViolation):
        play(st, {"kind": "report", "squadron_damage": {"kiev:M": 1}})


def test_stf_13_11_damage_on_the_gamesystem_airbases_ground_squadron_lowers_its_cap():
    """The GameSystem airbase's ground aviation squadrons (2.1; M of 2, provisional) take damage as
    a carrier's do: 1 point on Latakia:M1 leaves 1 + 2 = 3 strength, a CAP of 2 (10.2, round up),
    where it was 2 of 4 before. The Player's own airbases' squadrons are the base game's: refused."""
    from tests.unit.stf.helpers import combat_state
    st = combat_state("Combat", map="mediterranean", system_airbase="Latakia", player_airbases=["Malta"],
                      ground_aviation={"Player": 1, "system": 2})
    assert air.cap(st, "Latakia")["strength"] == 2
    out, st2 = play(st, {"kind": "report", "squadron_damage": {"Latakia:M1": 1}})
    assert st2["airbases"]["Latakia"]["air_damage"] == {"Latakia:M1": 1}
    assert air.cap(st2, "Latakia")["strength"] == 2 and air.cap(st2, "Latakia")["of"] == 3
    with pytest.raises(RuleViolation, match="not the GameSystem's airbase"):
        play(st, {"kind": "report", "squadron_damage": {"Malta:M1": 1}})


# ---- STF 7.1, 7.2 with 5.2: subron speeds, and a command control loss ---------------------------
from tests.unit.stf import test_movement as mv  # noqa: E402


def subron_scene(intel: str, cls: str, ccl: bool = False) -> dict:
    st = mv.state()
    mv.player_tf(st, "P1", "1405")
    units = [] if intel != "precise" else [mv.ship("s1", cls, 1 if cls == "SS" else 2, ssm=0, torpedoes=3, gun=None)]
    mv.add(st, "SR1", "system", "subron", "2005", units, intel=intel)
    if ccl:
        st["campaign"]["system_ccl_turn"] = st["turn"]
    return st


@pytest.mark.parametrize("intel, cls, ccl, hexes", [
    ("good", None, False, 2),        # 7.1/7.2: less than Precise, 2 hexes whatever it holds
    ("precise", "SSN", False, 2),    # 7.1: Precise SSNs, 2
    ("precise", "SS", False, 1),     # 7.1: Precise conventional subs, 1
    ("good", None, True, 1),         # 5.2: one hex of movement
    ("precise", "SS", True, 0),      # 5.2: "conventional subs which can only move at a speed of 1 hex may not move"
    ("precise", "SSN", True, 1),
])
def test_stf_7_2_and_5_2_a_gamesystem_subrons_hexes_by_its_intelligence_its_subs_and_a_command_control_loss(
        intel, cls, ccl, hexes):
    """7.1 "Precisely identified SSNs and all subrons which are less than Precisely identified may
    move two hexes per turn. All Precisely identified conventional subs move at one hex per turn";
    7.2 "subrons at less than Precise will continue to move at 2 hexes per turn"; 5.2 under a
    GameSystem command control loss one hex, and none for a speed-1 group. SR1 makes for P1 (7.5)."""
    out, after = run_step(subron_scene(intel, cls, ccl), "system_movement", FixedDice(default=1))
    assert mv.d("2005", after["groups"]["SR1"]["hex"]) == hexes
    if hexes == 0:
        held = [e for e in events_of(out, "GroupChanged") if e["group"] == "SR1" and e["rule"] == "STF 5.2"]
        assert held and "may not move" in held[0]["why"]


# ---- STF 13.3 with 12.3: which of the Invincible's two AV8 squadrons was destroyed -------------------
def invincible_state() -> dict:
    """A Precise NATO GameSystem task force with the Invincible: 13.3's two AV8 squadrons of 2."""
    from tests.unit.stf.test_air import add, built, ship
    st = built(player="Soviet")
    st["campaign"]["system_side"] = "NATO"
    inv = {"id": "inv", "class": "CV", "nation": "NATO", "name": "Invincible", "air": {"M": 4}, "extra_av8": True}
    add(st, "TF1", "system", "2305", [inv, ship("s1", "DD")], intel="precise", chit="Rear Admiral")
    add(st, "P1", "Player", "0605", [cv("kiev"), ship("p2", "FF")])
    return st


def test_stf_13_3_the_av8_squadron_named_destroyed_is_the_one_gone_and_the_other_keeps_its_own_record():
    """13.3 gives the Invincible a second AV8 squadron "of the same strength"; the report names the
    one destroyed (air.py's "inv:M1", "inv:M2"). The squadron left is the other one, with its own
    damage and sorties: M1, damaged 1 point and flown on a strike this turn, is destroyed; M2 is
    left whole and rested (CAP 1 of 2, 10.2), not an "inv:M1" that inherits M1's damage and sortie."""
    st = invincible_state()
    st["sorties"] = {"inv:M1": st["turn"]}
    _, st = play(st, {"kind": "report", "squadron_damage": {"inv:M1": 1}})
    _, st = play(st, {"kind": "report", "squadrons_destroyed": ["inv:M1"]})
    left = air.squadrons(st, "inv")
    assert [(s["id"], s["damage"], s["left"]) for s in left] == [("inv:M2", 0, 2)]
    assert air.cap(st, "TF1")["strength"] == 1
    from domain.rulesets.stf import retirement
    assert retirement.squadrons_destroyed(st) == 1
    with pytest.raises(RuleViolation, match="already destroyed"):
        play(st, {"kind": "report", "squadrons_destroyed": ["inv:M1"]})
    with pytest.raises(RuleViolation, match="no squadron inv:M3"):
        play(st, {"kind": "report", "squadrons_destroyed": ["inv:M3"]})
    _, st = play(st, {"kind": "report", "squadrons_destroyed": ["inv:M2"]})
    assert air.squadrons(st, "inv") == [] and retirement.squadrons_destroyed(st) == 2


# ---- STF 8.7 with 8.14, 8.15 and 11.1: when a subron made Precise goes Shallow ----------------------
def test_stf_8_15_a_subron_revealed_in_a_player_subrons_hex_stays_deep_until_the_next_group_mode_phase():
    """8.7 places "a Precise sub in Shallow" on a Precise search report; 8.14's NOTE keeps a subron
    revealed by proximity Deep "until the following Group Mode Phase, when it will move to Shallow
    for the rest of the game". 8.15's reveal (a Player subron's hex) is the same kind of reveal, so
    it follows 8.14's note (docs, Readings): Deep now, Shallow at the next Group Mode phase (8.14)."""
    st = mv.state()
    mv.player_tf(st, "P1", "1506")
    mv.add(st, "SR1", "system", "subron", "2210")
    free, _ = run_step(st, "system_movement", FixedDice(default=1))
    mv.add(st, "P2", "Player", "subron", events_of(free, "GroupMoved")[0]["path"][-1], [mv.ship("ssn", "SSN", 2)])
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))  # SR1 enters P2's hex
    assert st2["groups"]["SR1"]["intel"] == "precise" and st2["groups"]["SR1"]["mode"] == "deep"
    out, st3 = run_step({**st2, "turn": st2["turn"] + 1, "phase": "Group Mode"}, "group_modes")
    change = [e for e in events_of(out, "GroupChanged") if e["group"] == "SR1"][0]
    assert change["changes"] == {"mode": "shallow"} and change["rule"] == "STF 8.14"


def test_stf_8_7_a_subron_found_precise_by_search_goes_shallow_at_once():
    """8.7's own case: a Precise search result on a subron with a chit (no false-contact roll):
    "Place a Precise sub in Shallow", at once, by 8.7."""
    from tests.unit.stf.helpers import pool_of, search_state, system_group
    st = search_state(system_group("SR1", "subron", chit="Tracked", intel="good", size="small"),
                      pool=pool_of("Soviet", SS=3, SSN=2))
    out, after = play(st, {"kind": "search", "group": "SR1", "search_value": 9}, FixedDice(1, default=1))
    assert after["groups"]["SR1"]["intel"] == "precise" and after["groups"]["SR1"]["mode"] == "shallow"
    assert [e["rule"] for e in events_of(out, "GroupChanged") if e["changes"].get("mode")] == ["STF 8.7"]


# ---- STF 10.5 with 8.12 and 1.9: a strike's Rear Admiral chit fills the commitment ------------------
def test_stf_1_9_the_estimate_of_10_5s_rear_admiral_chit_reaching_the_commitment_removes_the_unknown_contacts():
    """10.5: odd, then 6, "place a Rear Admiral chit on the task force" (Accurate, large: 8.12 adds
    30 for a Soviet one). The GameSystem's commitment 45 (1.10: 30 surface + 15 subs) already counts
    15 of subs, so the total reaches 45: 1.9, "all counters which are at 'Good' or lower level of
    intelligence are immediately removed from play": TF2 (unknown) goes before it is considered for
    a strike of its own (no 10.5 roll for it), TF1 (now Accurate) stays and strikes."""
    from tests.unit.stf.test_air import unknown_state
    st = unknown_state()
    add(st, "TF2", "system", "2306")
    st["campaign"]["commitment"] = {"Player": {"points": 21, "carriers": 1}, "system": 45}
    st["deployment"] = {"total": 15, "groups": {"SR4": {"part": "subs", "points": 15}}}
    out, after = run_step(st, "air_attacks", FixedDice(3, 6, 1, 4))
    assert after["deployment"]["total"] == 45 and after["campaign"]["commitment_reached"] is True
    removed = events_of(out, "GroupRemoved")
    assert [(e["group"], e["rule"]) for e in removed] == [("TF2", "STF 1.9")]
    assert after["groups"]["TF1"]["intel"] == "accurate" and strikes(out)[0]["detail"]["group"] == "TF1"
    assert [r.rule for r in rolls_of(out)] == ["STF 10.5", "STF 10.5", "STF 10.3", "STF 10.15"]


# ---- STF 10.3/10.4 with 9.4 and 9.5: a closed Player airbase is no target until repaired ----------
def test_stf_10_4_an_airbase_with_3_hits_is_passed_over_for_the_sag_and_is_the_target_again_once_repaired():
    """10.3 "6 megahexes of an active player airbase"; 9.4 "If an airbase suffers 3 hits it cannot
    launch aircraft"; 10.4 "airbases next and SAGs last"; 9.5 "Airbases repair 1 hit per turn if they
    are not attacked that turn". With 3 hits Neskaupstadur is not active: the strike goes to the SAG.
    A turn with no attack repairs it to 2 hits: next turn it is active again, and first (10.4)."""
    from tests.unit.stf.test_air import built, ship
    st = built()
    st["campaign"].update(player_airbases=["Neskaupstadur"], ground_aviation={"Player": 1, "system": 0})
    st["airbases"] = {"Neskaupstadur": {"owner": "Player", "hits": 3, "attacked": 2}}
    add(st, "TF1", "system", "2305", [cv("kiev")], intel="precise")
    add(st, "P1", "Player", "1705", [ship("p1", "DD")])  # a SAG 2 megahexes off
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["target"] == "P1"
    out, st = run_step(st, "airbase_repair")
    assert st["airbases"]["Neskaupstadur"]["hits"] == 2 and events_of(out, "AirbaseChanged")[0]["rule"] == "STF 9.5"
    st = {**st, "turn": st["turn"] + 1}
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert (strikes(out)[0]["detail"]["target"], strikes(out)[0]["detail"]["target_kind"]) == ("Neskaupstadur", "airbase")


# ---- STF 1.9 with 12.4: a GameSystem ship sunk stays in the deployment total ---------------------
def test_stf_1_9_a_gamesystem_ship_sunk_stays_counted_in_the_deployment_total():
    """1.9 counts "the value of GameSystem ships/subs in play" against the commitment; 8.12 and 8.13
    call it the "deployment point total". A ship the Player sinks was deployed: the total keeps it
    (docs, Readings), so sinking GameSystem ships never lets more counters come on the map (6.4)."""
    from tests.unit.stf.helpers import add_group, combat_state
    from tests.unit.stf.helpers import ship as unit
    st = combat_state("Combat", commitment=45)
    add_group(st, "TF1", "system", "1610", {"udaloy": unit("DD", 4), "krivak": unit("FF", 3)})
    add_group(st, "P1", "Player", "1212", {"p_dd": unit("DD", 4, nation="US")})
    st["deployment"] = {"total": 7, "groups": {"TF1": {"part": "surface", "points": 7}}}
    out, after = play(st, {"kind": "report", "sunk": ["udaloy"]})
    assert after["units"]["udaloy"]["sunk"] and after["vp"]["Player"] == 4
    assert after["deployment"] == st["deployment"] and events_of(out, "DeploymentChanged") == []
