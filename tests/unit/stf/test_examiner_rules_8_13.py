"""Scenario tests for STF rules 8.x-13.x written from the text alone
(../shared/rules/003_74ca0e4e298164eb.txt), as an examiner would: for each sentence saying what the
GameSystem must, may or never does, the smallest built position where it applies, the step run with
fixed dice, and its conditions and exceptions ("unless", "only if", "each", "at most") checked on
both sides. What test_search.py, test_air.py, test_combat.py and test_retirement.py already assert
is not repeated here."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import air, maps
from tests.unit.stf.helpers import (FixedDice, NoDice, add_group, at_phase, events_of, play, pool_of, rolls_of,
                                    run_step, search_state, ship, system_group)
from tests.unit.stf.test_air import SYS, add, built, cv, far, precise_cv_state, strikes
from tests.unit.stf.test_air import ship as air_ship
from tests.unit.stf.test_retirement import terminal


def refused(st: dict, order: dict, rule: str) -> str:
    with pytest.raises(RuleViolation) as err:
        play(st, order)
    assert err.value.rule == rule, err.value
    return str(err.value)


# ---- STF 8.7: a leader chit already marks the size -----------------------------------------------
def test_stf_8_7_a_rear_admiral_chit_of_an_air_attack_needs_no_false_contact_nor_size_roll():
    """8.7: "If the target has no chit on it then roll 1D6 [false contact] ... If hostile, and the
    task force/subron is less than Accurate, determine its size as described in rule 8.6." A task
    force that STF 10.5 marked with a Rear Admiral chit has a chit (no false-contact roll) and a
    size (a large force: its composition is read in the Rear Admiral column)."""
    st = search_state(system_group("TF1", chit="Rear Admiral", size="large"), pool=pool_of("Soviet", PC=11))
    out, after = play(st, {"kind": "search", "group": "TF1", "search_value": 9}, FixedDice(5, 1))
    rolls = rolls_of(out)
    assert [r.rule for r in rolls] == ["STF 8.7", "STF 8.7"]  # the search, then the composition only
    assert rolls[1].target["column"] == "Rear Admiral TF" and rolls[1].outcome == "11PC"
    assert after["groups"]["TF1"]["intel"] == "precise" and len(after["groups"]["TF1"]["units"]) == 11


# ---- STF 9.3-9.6 for the GameSystem's strikes on the Player's airbases ---------------------------
# also: STF 9.3, STF 13.11
def test_stf_9_6_the_gamesystems_strike_on_a_player_airbase_is_ordinary_bombing_at_5_with_no_harpoons():
    """9.6: "Air attacks against airbases can only be by ordinary bombing, and the 'to hit' die roll
    is '5'." 9.3: the airbase in ring 1 with AA 3 in rings 1-3. 13.11's Harpoons are ASM attacks: a
    US GameSystem's A-6 striking an airbase bombs it."""
    st = built()
    st["campaign"].update(player_airbases=["Neskaupstadur"], system_side="US",
                          ground_aviation={"Player": 1, "system": 0})
    add(st, "TF1", "system", SYS, [cv("nimitz", "US", H=4, L=3)], intel="precise")
    st["units"]["nimitz"]["aircraft"] = {"H": "A-6 Intruder", "L": "F-14 Tomcat"}
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    d = strikes(out)[0]["detail"]
    assert d["target_kind"] == "airbase" and d["strike"] == ["nimitz:H"]
    plan = d["plan"]
    assert (plan["attack"], plan["to_hit"], plan["airbase_ring"], plan["airbase_aa"], plan["aa_rings"]) == (
        "ordinary bombing", 5, 1, 3, [1, 2, 3])
    assert "harpoons" not in d


# also: STF 9.4
def test_stf_9_5_an_airbase_repaired_below_3_hits_launches_again():
    """9.4: "If an airbase suffers 3 hits it cannot launch aircraft." 9.5: "Airbases repair 1 hit
    per turn if they are not attacked that turn": a turn without attack takes it to 2 hits, and it
    launches again (the Player's airbase strikes an Accurate task force)."""
    from tests.unit.stf.test_air import player_strike_state
    st = player_strike_state()
    st["airbases"] = {"Famagusta": {"owner": "Player", "hits": 3, "attacked": 2}}
    st["campaign"]["ground_aviation"] = {"Player": 2, "system": 0}  # 2.1: the Player has squadrons to fly
    refused(st, {"kind": "air_strike", "from": "Famagusta", "target": "TF1"}, "STF 9.4")
    _, repaired = run_step(at_phase(st, "Terminal", turn=3), "airbase_repair", NoDice())
    assert repaired["airbases"]["Famagusta"]["hits"] == 2
    out, _ = play(at_phase(repaired, "Strike", turn=4), {"kind": "air_strike", "from": "Famagusta", "target": "TF1"})
    assert events_of(out, "PlayerAirAction")[0]["rule"] == "STF 10.1"


# ---- STF 10.1: whichever the origin ----------------------------------------------------------------
@pytest.mark.parametrize("intel", ["unknown", "approximate", "good"])
def test_stf_10_1_a_strike_from_the_players_airbase_on_a_task_force_less_than_accurate_is_refused(intel):
    """10.1: "Air strikes may not be directed at a GameSystem task force unless the search report
    on it is Accurate or Precise" - from a land airbase as from a carrier."""
    from tests.unit.stf.test_air import player_strike_state
    st = player_strike_state(intel)
    assert "Accurate or Precise" in refused(st, {"kind": "air_strike", "from": "Famagusta", "target": "TF1"},
                                            "STF 10.1")


# ---- STF 10.3: an active airbase -----------------------------------------------------------------
# also: STF 9.4
def test_stf_10_3_a_player_airbase_with_3_hits_is_no_active_airbase_and_draws_no_strike():
    """10.3: GameSystem task forces "within ... 6 megahexes of an active player airbase"; 9.4: with
    3 hits it cannot launch aircraft (not active). With nothing else in range, no strike is flown."""
    st = built()
    st["campaign"].update(player_airbases=["Neskaupstadur"], ground_aviation={"Player": 1, "system": 0})
    add(st, "TF1", "system", SYS, [cv("kiev")], intel="precise")
    st["airbases"] = {"Neskaupstadur": {"owner": "Player", "hits": 3}}
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == [] and rolls_of(out) == []
    st["airbases"]["Neskaupstadur"]["hits"] = 2
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["target"] == "Neskaupstadur"


# ---- STF 10.5: "go to the next GameSystem task force" ----------------------------------------------
def test_stf_10_5_no_effect_on_one_task_force_goes_on_to_the_next():
    """10.5: "If even, no effect and go to the next GameSystem task force. If odd, then roll 1D6.
    If less than 6, then no effect and go to the next GameSystem taskforce." Three unknown task
    forces in range: TF1 rolls even, TF2 odd then 5, TF3 odd then 6 and strikes."""
    st = built()
    st["pool"] = {"kuznetsov": {"name": "Kuznetsov", "nation": "Soviet", "class": "CV", "ssm": 0, "torpedoes": 0,
                                "air": {"L": 3, "M": 2, "H": 4}}}
    for gid in ("TF1", "TF2", "TF3"):
        add(st, gid, "system", SYS, [])
    add(st, "P1", "Player", "0605", [cv("nimitz", "US")])
    out, after = run_step(st, "air_attacks", FixedDice(2, 1, 5, 3, 6, 1, 1))
    assert [(r.rule, r.values[0]) for r in rolls_of(out)][:5] == [
        ("STF 10.5", 2), ("STF 10.5", 1), ("STF 10.5", 5), ("STF 10.5", 3), ("STF 10.5", 6)]
    assert [r.purpose.split(":")[0] for r in rolls_of(out)][:5] == ["TF1", "TF2", "TF2", "TF3", "TF3"]
    assert [s["detail"]["group"] for s in strikes(out)] == ["TF3"]
    assert after["groups"]["TF1"]["chit"] is None and after["groups"]["TF2"]["chit"] is None
    assert after["groups"]["TF3"]["chit"] == "Rear Admiral"


# ---- STF 10.2 with 10.13: who flies CAP after a strike ---------------------------------------------
# also: STF 10.10
def test_stf_10_2_the_strike_and_escort_of_a_strike_fly_no_cap_that_turn_nor_the_next():
    """10.2: CAP is "half (round up) the L and M aircraft not on air strikes in this turn or the
    previous turn." A strike flown on turn 3 with L1 as escort: L1 is out of the CAP on turns 3 and 4,
    back on turn 5."""
    st = precise_cv_state(L=[3, 2], M=[2], H=4)
    out, after = run_step(st, "air_attacks", FixedDice(3, 1))  # Soviet 3: 1 strike (H), 1 escort (L1)
    d = strikes(out)[0]["detail"]
    assert d["strike"] == ["kiev:H"] and d["escort"] == ["kiev:L1"]
    for turn, expected, squadrons in ((3, 2, ["kiev:L2", "kiev:M"]), (4, 2, ["kiev:L2", "kiev:M"]),
                                      (5, 4, ["kiev:L1", "kiev:L2", "kiev:M"])):
        c = air.cap(at_phase(after, "Strike", turn=turn), "TF1")
        assert (c["strength"], sorted(c["squadrons"])) == (expected, squadrons), turn


# ---- STF 10.13: a task force, not an airbase; two CVs afloat -----------------------------------------
# also: STF 9.1
def test_stf_10_13_an_airbase_is_no_task_force_it_strikes_on_consecutive_turns():
    """10.13: "A single GameSystem task force may not launch air strikes on consecutive turns" - the
    GameSystem's airbase (land based aviation, 9.1) is no task force: with a squadron that did not
    fly last turn it strikes again."""
    st = built(map_="mediterranean")
    st["campaign"].update(system_airbase="Latakia", ground_aviation={"Player": 0, "system": 2})
    add(st, "P1", "Player", "4711", [air_ship("p1", "DD")])
    out, after = run_step(st, "air_attacks", FixedDice(1, 1))  # Soviet 1: 1 strike
    assert strikes(out)[0]["detail"]["strike"] == ["Latakia:M1"]
    out, _ = run_step(at_phase(after, "Strike", turn=4), "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["strike"] == ["Latakia:M2"]


def test_stf_10_13_a_precise_task_force_whose_second_cv_is_sunk_waits_a_turn():
    """10.13: "... unless the task force is Precisely identified as having two CVs": with one of
    its two CVs sunk it has one, and may not strike the turn after a strike."""
    st = precise_cv_state()
    st["units"]["kiev2"] = {**cv("kiev2"), "group": "TF1"}
    st["groups"]["TF1"]["units"].append("kiev2")
    _, after = run_step(st, "air_attacks", FixedDice(1, 1))
    assert after["strikes"]["TF1"] == 3
    nxt = at_phase(after, "Strike", turn=4)
    out, _ = run_step(nxt, "air_attacks", FixedDice(1, 1))
    assert len(strikes(out)) == 1                          # two CVs: the exception
    nxt["units"]["kiev2"]["sunk"] = True
    out, _ = run_step(nxt, "air_attacks", NoDice())
    assert strikes(out) == []                              # one CV left: it waits


# ---- STF 12.8: no SSMs *or* torpedoes --------------------------------------------------------------
def test_stf_12_8_a_subron_with_ssms_left_but_no_torpedoes_does_not_retire():
    """12.8: "A subron unit with no SSMs or torpedos left must retire": with its torpedoes spent
    but SSMs left it still has weapons, and stays."""
    st = terminal()
    _, st2 = play({**st, "phase": "Combat"}, {"kind": "report", "spent": {"victor": {"torpedoes": 3}}})
    assert st2["units"]["victor"]["torpedoes_left"] == 0
    out, after = run_step({**st2, "phase": "Terminal"}, "retirement", NoDice())
    assert events_of(out, "GroupChanged") == [] and not after["groups"]["SR1"]["retiring"]


# ---- STF 12.7: each carrier ------------------------------------------------------------------------
def test_stf_12_7_two_carriers_without_flight_decks_in_one_task_force_both_retire_that_terminal_phase():
    """12.7: "A CV with no combat aircraft left, or with an inoperable flight deck, must retire. It
    will take with it the three best frigates": a task force with two such CVs and six frigates
    sends both away in the same Terminal Phase, each with three frigates."""
    from tests.unit.stf.helpers import combat_state
    st = combat_state("Terminal")
    add_group(st, "P1", "Player", "1212", {"p": ship("DD", 4, nation="US")})
    units = {"cv1": ship("CV", 15, air={"L": 0, "M": 3, "H": 0}, flight_deck_inoperable=True),
             "cv2": ship("CV", 15, air={"L": 0, "M": 3, "H": 0}, flight_deck_inoperable=True),
             **{f"f{i}": ship("FF", 3, asw=i) for i in range(1, 7)}, "d1": ship("DD", 4)}
    add_group(st, "TF3", "system", "2010", units)
    out, after = run_step(st, "retirement", NoDice())
    leaving = {cv: [g["id"] for g in after["groups"].values() if g.get("carrier_retiring") == cv and g["retiring"]]
               for cv in ("cv1", "cv2")}
    assert all(len(v) == 1 for v in leaving.values()), leaving
    g1, g2 = (after["groups"][leaving[cv][0]] for cv in ("cv1", "cv2"))
    assert g1["id"] != g2["id"]
    assert sorted(g1["units"]) == ["cv1", "f4", "f5", "f6"] and sorted(g2["units"]) == ["cv2", "f1", "f2", "f3"]
    assert after["groups"]["TF3"]["units"] == ["d1"] and not after["groups"]["TF3"]["retiring"]


def test_stf_12_7_two_us_carriers_retiring_together_each_take_a_fast_supply_ship():
    """12.7: "(or, if US, the three best frigates and the fast supply ship)": each of two US CVs
    leaving at once takes three frigates and one fast supply ship of its own."""
    from tests.unit.stf.helpers import combat_state
    st = combat_state("Terminal", player_side="Soviet", system_side="US")
    add_group(st, "P1", "Player", "1212", {"p": ship("DD", 4)})
    units = {"cv1": ship("CV", 25, nation="US", air={"L": 0, "M": 3, "H": 0}, flight_deck_inoperable=True),
             "cv2": ship("CV", 25, nation="US", air={"L": 0, "M": 3, "H": 0}, flight_deck_inoperable=True),
             **{f"f{i}": ship("FF", 3, nation="US", asw=i) for i in range(1, 7)},
             "sup1": ship("FR", 5, nation="US", role="fast resupply"),
             "sup2": ship("FR", 5, nation="US", role="fast resupply"), "d1": ship("DD", 4, nation="US")}
    add_group(st, "TF3", "system", "2010", units)
    _, after = run_step(st, "retirement", NoDice())
    parties = sorted(sorted(g["units"]) for g in after["groups"].values() if g.get("carrier_retiring"))
    assert parties == [["cv1", "f4", "f5", "f6", "sup1"], ["cv2", "f1", "f2", "f3", "sup2"]]
    assert after["groups"]["TF3"]["units"] == ["d1"]


# ---- STF 12.5: the way home ----------------------------------------------------------------------------
def test_stf_12_5_of_two_hexes_toward_its_base_a_retiring_group_takes_the_one_farther_from_the_player():
    """12.5: retiring units go "towards their nearest 'Base' hex. If there is a choice of hexes to
    move into, they will keep as far away from player's task forces and subrons as possible." On
    the G-I-UK map a group at 0808 (14 sea hexes from its base megahexes) comes one hex nearer by
    0908 or 0909; a Player subron at 0910 is next to 0909 and two hexes from 0908: it moves into 0908."""
    from domain.rulesets.stf import movement
    from tests.unit.stf.test_movement import add as mv_add, ship as mv_ship, state as mv_state
    st = mv_state()
    targets, _ = movement.base_targets(st)
    water = movement.water_distances("giuk", targets)
    assert water["0808"] == 14 and water["0908"] == water["0909"] == 13  # both come one hex nearer
    assert maps.distance("giuk", "0909", "0910") == 1 and maps.distance("giuk", "0908", "0910") == 2
    mv_add(st, "P2", "Player", "subron", "0910", [mv_ship("ssn", "SSN")])
    mv_add(st, "TF1", "system", "tf", "0808", [mv_ship("t1", "DD", speed=1)], intel="precise", retiring=True)
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    move = events_of(out, "GroupMoved")[0]
    assert move["rule"] == "STF 12.5" and move["path"][0] == "0908"


def test_stf_12_5_the_base_a_retiring_group_is_sent_to_is_the_one_it_sails_to_nearest_by_sea():
    """12.5: "all the GameSystem units retire towards their nearest 'Base' hex" (12.10: Soviet/
    Cuban: Santiago or Banas). From 1017 in the Caribbean, 2011 is fewer hexes away across Cuba,
    but 1910 is nearer by sea: the group is sent to 1910 and its move makes for 1910."""
    from domain.rulesets.stf import movement, retirement
    from tests.unit.stf.helpers import combat_state
    st = combat_state("Terminal", map="caribbean")
    bases = retirement.bases(st, "Soviet")
    assert sorted(b[0] for b in bases) == ["1910", "2011"]
    assert maps.distance("caribbean", "1017", "2011") < maps.distance("caribbean", "1017", "1910")
    assert movement.water_distances("caribbean", ["1910"])["1017"] < movement.water_distances("caribbean", ["2011"])["1017"]
    add_group(st, "P1", "Player", "0101", {"p": ship("DD", 4, nation="US")})
    add_group(st, "SR1", "system", "1017", {"s": ship("SS", 3, torpedoes=0, ssm=0, ssm_loads=0)}, kind="subron")
    out, after = run_step(st, "retirement", NoDice())
    assert after["groups"]["SR1"]["retiring"] is True and after["groups"]["SR1"]["destination"] == "1910"


def test_stf_12_8_each_subron_with_nothing_left_to_fire_retires_the_others_stay():
    """12.8: "A subron unit with no SSMs or torpedos left must retire" - each such subron in the same
    Terminal Phase; a subron with a torpedo left stays."""
    st = terminal()
    add_group(st, "SR2", "system", "1811", {"foxtrot": ship("SS", 3, torpedoes=0, ssm=0)}, kind="subron")
    add_group(st, "SR3", "system", "1812", {"tango": ship("SS", 3, torpedoes=0, ssm=0)}, kind="subron")
    add_group(st, "SR4", "system", "1813", {"kilo": ship("SS", 3, torpedoes=1, ssm=0)}, kind="subron")
    # SR3 is as near Megahex 63 as 64 (2213, 2214): a die between the two bases
    out, after = run_step(st, "retirement", FixedDice(default=1))
    assert [(e["group"], e["rule"]) for e in events_of(out, "GroupChanged")] == [("SR2", "STF 12.8"), ("SR3", "STF 12.8")]
    assert not after["groups"]["SR4"]["retiring"] and not after["groups"]["SR1"]["retiring"]
